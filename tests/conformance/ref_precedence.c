/* Reference for precedence.w2: C has the same precedence for these
 * operators (with % for mod, and unary minus binding tightest). */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t v[3], r[16];
    float f[4];
    conf_read_int(argc, argv, "v", v, 3);
    int32_t a = v[0], b = v[1], d = v[2];
    r[0] = (a - b) - d;
    r[1] = (a / b) / d;
    r[2] = a - (b * d);
    r[3] = (a - b) * d;
    r[4] = (-a) % 3;
    r[5] = -(a % 3);
    r[6] = a * (-b);
    r[7] = a - (-b);
    r[8] = a;
    r[9] = ((-a) * (-b)) + (-d);
    r[10] = (a + ((b * d) % 4)) - ((a / 2) * 3);
    r[11] = (a % b) % d;
    r[12] = (-a) / 2;
    r[13] = (2 + 3 * 4) - ((10 / 3) % 2);
    r[14] = a;
    r[15] = (a - b) * (d + 1);
    float x = 1.0f;
    f[0] = (x - 0.5f) - 0.25f;
    f[1] = (x / 2.0f) / 4.0f;
    f[2] = (-x) * 3.0f + (float)a * 0.5f;
    f[3] = (-(x + 2.0f)) / -4.0f;
    conf_ints("r", r, 16);
    conf_floats("f", f, 4);
    return 0;
}
