/* Reference for types.w2: C's float arithmetic in single precision and its
 * (int) conversion, which truncates toward zero as W2's int() does. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t k[6], n[6][6];
    float x[6], f[6][7];
    conf_read_int(argc, argv, "k", k, 6);
    conf_read_float(argc, argv, "x", x, 6);
    for (int i = 0; i < 6; i++) {
        int32_t a = k[i];
        float y = x[i], z = (float)a;
        f[i][0] = (float)a + y;
        f[i][1] = y * (float)a - (float)a;
        f[i][2] = (float)(a / 2) + y;
        f[i][3] = (float)a / 2.0f;
        f[i][4] = (float)a / 2.0f;
        f[i][5] = z / 4.0f + 1.0f;
        f[i][6] = (float)(int32_t)y - y;
        n[i][0] = (int32_t)y;
        n[i][1] = (int32_t)-y;
        n[i][2] = (int32_t)(y * 10.0f) + a;
        n[i][3] = a * 3 / 2;
        n[i][4] = (int32_t)((float)a / 3.0f);
        n[i][5] = (int32_t)((float)a + y);
    }
    conf_floats("f", &f[0][0], 6 * 7);
    conf_ints("n", &n[0][0], 6 * 6);
    return 0;
}
