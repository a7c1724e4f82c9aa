/* Reference for bounce.w2: on X, cell k holds a + k, the last cell (4) turns
 * v = a + 4 into 10 v, and each cell on the way back adds its number.
 * On Y, cell k holds b * 2^(4 - k); the first cell turns v = 16 b into v - 1,
 * and each cell on the way right adds 100 times its number. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t a[6], b[6], ra[6], rb[6];
    conf_read_int(argc, argv, "a", a, 6);
    conf_read_int(argc, argv, "b", b, 6);
    for (int i = 0; i < 6; i++) {
        int32_t w = (a[i] + 4) * 10;
        for (int c = 4; c >= 0; c--) w += c;
        ra[i] = w;
        w = b[i] * 16 - 1;
        for (int c = 0; c <= 4; c++) w += c * 100;
        rb[i] = w;
    }
    conf_ints("ra", ra, 6);
    conf_ints("rb", rb, 6);
    return 0;
}
