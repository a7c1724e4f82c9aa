/* Reference for relational.w2: C's comparisons, with the int operand of a
 * mixed comparison converted to float first, as W2 does. */
#include "conf.h"

static int mask(int eq, int ne, int lt, int le, int gt, int ge)
{
    return eq + 2 * ne + 4 * lt + 8 * le + 16 * gt + 32 * ge;
}

int main(int argc, char **argv)
{
    int32_t ia[8], ib[8], ri[8], rf[8], rm[8];
    float fa[8], fb[8];
    conf_read_int(argc, argv, "ia", ia, 8);
    conf_read_int(argc, argv, "ib", ib, 8);
    conf_read_float(argc, argv, "fa", fa, 8);
    conf_read_float(argc, argv, "fb", fb, 8);
    for (int i = 0; i < 8; i++) {
        int32_t x = ia[i], y = ib[i];
        float p = fa[i], q = fb[i];
        ri[i] = mask(x == y, x != y, x < y, x <= y, x > y, x >= y);
        rf[i] = mask(p == q, p != q, p < q, p <= q, p > q, p >= q);
        float fx = (float)x, fy = (float)y;
        rm[i] = (fx == q) + 2 * (fx != q) + 4 * (p < fy) + 8 * (fy <= p) +
                16 * ((float)w_add(x, 1) > p * 2.0f) + 32 * ((float)w_neg(x) >= -q);
    }
    conf_ints("ri", ri, 8);
    conf_ints("rf", rf, 8);
    conf_ints("rm", rm, 8);
    return 0;
}
