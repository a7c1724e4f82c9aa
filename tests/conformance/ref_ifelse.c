/* Reference for ifelse.w2, each decision written with C's braces; r[i][5] is
 * never written when a is odd and not a multiple of 3, and then prints 0. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t v[9], r[9][6] = {{0}};
    float w[9];
    conf_read_int(argc, argv, "v", v, 9);
    conf_read_float(argc, argv, "w", w, 9);
    for (int i = 0; i < 9; i++) {
        int a = v[i];
        float x = w[i];
        r[i][0] = a < 0 ? -1 : a == 0 ? 0 : 1;
        int d = 0;
        if (a > 0) {
            if (a > 10) d = 1;
            else d = 2;
        }
        r[i][1] = d;
        int e = 0;
        if (a > 0) {
            if (a > 10) e = 1;
        } else {
            e = 3;
        }
        r[i][2] = e;
        int z = 7;
        if (a != 5) z = 8;
        if (a == 6) z = 9;
        r[i][3] = z;
        int q;
        if (x > 0.5f) q = x > 2.0f ? 3 : 2;
        else if (x == 0.5f) q = 1;
        else if (x >= -0.5f) q = 0;
        else q = -1;
        r[i][4] = q;
        if (a % 3 == 0) r[i][5] = a % 2 == 0 ? 6 : 3;
        else if (a % 2 == 0) r[i][5] = 2;
    }
    conf_ints(NULL, &r[0][0], 9 * 6);
    return 0;
}
