/* Reference for cellid.w2: the first cell (3) receives 1000 - 3 from the host;
 * the cells 3..7 add their squares. Each cell sends its own number first, then
 * passes on its left neighbours' numbers, nearest first: the last cell (7)
 * sends its own, which the host drops (no fourth argument), then 6, 5, 4, 3
 * into ids[0..3]; ids[4] is never written. */
#include "conf.h"

int main(void)
{
    int32_t sum = 1000 - 3, ids[5] = {0};
    float sq[5];
    for (int n = 3; n <= 7; n++) sum += n * n;
    for (int i = 0; i < 4; i++) ids[i] = 6 - i;
    for (int i = 0; i < 5; i++) sq[i] = (float)(i + 7) * 0.5f;
    printf("sum:\n");
    conf_int(sum);
    conf_ints("ids", ids, 5);
    conf_floats("sq", sq, 5);
    return 0;
}
