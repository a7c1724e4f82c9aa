/* Reference for floats.w2: C's float arithmetic, each operation rounded to
 * single precision (-ffp-contract=off, SSE arithmetic). r[14], r[15] are never
 * written. */
#include "conf.h"

int main(int argc, char **argv)
{
    float x[6], r[16] = {0};
    int32_t n[4], k[8];
    conf_read_float(argc, argv, "x", x, 6);
    conf_read_int(argc, argv, "n", n, 4);
    volatile float zero = 0.0f;
    float a = x[0], b = x[1];
    r[0] = a + b;
    r[1] = 1.0f / 3.0f;
    r[2] = a * 1e30f * 1e10f;
    r[3] = 16777216.0f + 1.0f;
    r[4] = -a * 0.0f;
    r[5] = 1.0f / zero;
    r[6] = -1.0f / zero;
    a = x[2];
    r[7] = a * a;
    r[8] = a / 3.0f;
    a = x[3];
    b = x[4];
    r[9] = (a - b) * (a + b);
    r[10] = a * a - b * b;
    a = 0.0f;
    for (int i = 1; i <= 1000; i++) a = a + 0.1f;
    r[11] = a;
    a = x[5];
    r[12] = a / 7.0f * 7.0f;
    r[13] = (float)n[0];
    for (int i = 0; i < 4; i++) k[i] = (int32_t)(float)n[i];
    k[4] = (int32_t)2147483520.0f;
    k[5] = (int32_t)-2147483648.0f;
    k[6] = 0;
    k[7] = 0;
    conf_floats("r", r, 16);
    conf_ints("k", k, 8);
    return 0;
}
