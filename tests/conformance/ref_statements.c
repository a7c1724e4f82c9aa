/* Reference for statements.w2: the empty statements do nothing; r[4..7] are
 * never written. */
#include "conf.h"

int main(void)
{
    int32_t r[8] = {0};
    int s = 0;
    s += 10;       /* the nested blocks */
    s += 2;        /* two calls of bump */
    r[0] = s;
    r[1] = 5;      /* after 'for i := 1 to 5 do ;' i holds 5 */
    r[2] = 1 + 2 + 3 + 4;
    r[3] = r[2];
    conf_ints(NULL, r, 8);
    return 0;
}
