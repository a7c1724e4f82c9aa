/* Reference for divmod.w2: C99's / and % truncate toward zero, as W2's / and
 * mod do; the one overflowing case, INT32_MIN / -1, is handled by w_div. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t a[14], b[14], q[14], m[14], k[14][10];
    conf_read_int(argc, argv, "a", a, 14);
    conf_read_int(argc, argv, "b", b, 14);
    for (int i = 0; i < 14; i++) {
        int32_t x = a[i], y = b[i];
        q[i] = w_div(x, y);
        m[i] = w_mod(x, y);
        k[i][0] = x / 2;
        k[i][1] = x % 2;
        k[i][2] = x / 8;
        k[i][3] = x % 16;
        k[i][4] = x / 3;
        k[i][5] = x % 10;
        k[i][6] = x / -7;
        k[i][7] = x % -4;
        k[i][8] = w_sub(w_add(w_mul(w_div(x, y), y), w_mod(x, y)), x);
        k[i][9] = w_neg(x) / 4;
    }
    conf_ints("q", q, 14);
    conf_ints("m", m, 14);
    conf_ints("k", &k[0][0], 14 * 10);
    return 0;
}
