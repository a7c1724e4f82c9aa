/* Reference for scopes.w2, on cell 5: g = 5 + 42 (shadowme's 'me' is its
 * own), h = 1 + 100, t = 4.0, late = 7 * 3 + 5. */
#include "conf.h"

int main(void)
{
    int32_t r[10] = {0};
    r[0] = 5 + 42;
    r[1] = 1 + 100;
    r[2] = 40;
    r[3] = 7 * 3 + 5;
    r[4] = 5;
    conf_ints(NULL, r, 10);
    return 0;
}
