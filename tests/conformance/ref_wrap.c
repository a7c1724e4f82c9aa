/* Reference for wrap.w2: 32-bit wrapping arithmetic through unsigned C. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t v[4], r[16];
    conf_read_int(argc, argv, "v", v, 4);
    int32_t big = v[0], small = v[1], m = v[2], p = v[3], acc;
    r[0] = w_add(big, 1);
    r[1] = w_sub(small, 1);
    r[2] = w_mul(m, m);
    r[3] = w_mul(p, 1000);
    r[4] = w_neg(small);
    r[5] = w_mul(big, big);
    r[6] = w_add(big, 1) > big;
    acc = 1;
    for (int i = 1; i <= 40; i++) acc = w_mul(acc, 3);
    r[7] = acc;
    r[8] = w_add(2147483647, 1);
    r[9] = w_sub(INT32_MIN, 1);
    r[10] = w_add(big, big);
    acc = 0;
    for (int i = 1; i <= 3000; i++) acc = w_add(acc, 1000003);
    r[11] = acc;
    int t = 0;
    for (int i = 0; i <= 9; i++)
        if (w_mul(p, i) < w_mul(p, i - 1)) t++;
    r[12] = t;
    r[13] = w_add(w_mul(65536, 65536), 7);
    r[14] = w_sub(small, big);
    r[15] = w_sub(big, small) / 2;
    conf_ints(NULL, r, 16);
    return 0;
}
