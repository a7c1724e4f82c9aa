/* Reference for ieee.w2: C's IEEE comparisons (a NaN compares unordered),
 * W2's saturating int() written out, and 1.0's single-precision bit pattern. */
#include "conf.h"

#include <math.h>

static int32_t sat_int(float x)
{
    if (isnan(x)) return 0;
    if (x >= 2147483648.0f) return INT32_MAX;
    if (x < -2147483648.0f) return INT32_MIN;
    return (int32_t)x;
}

int main(int argc, char **argv)
{
    float z;
    conf_read_float(argc, argv, "z", &z, 1);
    volatile float zero = z;
    float n = zero / zero, big = 1.0f / zero;
    int32_t r[14];
    r[0] = n == n;
    r[1] = n != n;
    r[2] = n < 1.0f;
    r[3] = n >= 1.0f;
    r[4] = !(n < 1.0f);
    r[5] = sat_int(n);
    r[6] = sat_int(big);
    r[7] = sat_int(-big);
    r[8] = sat_int(zero + 1e10f);
    r[9] = sat_int(zero - 3e9f);
    r[10] = -zero == zero;
    r[11] = 5;
    r[12] = -3;
    float one = 1.0f + zero;
    memcpy(&r[13], &one, 4);
    conf_ints("r", r, 14);
    float nf[3] = {n, n, -n};
    conf_floats("nf", nf, 3);
    return 0;
}
