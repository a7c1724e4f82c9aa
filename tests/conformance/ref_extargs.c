/* Reference for extargs.w2: the first cell is number 2, so mine = 2000. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t h[6], base, r[6], g[3][2];
    float m[3][2], f[6];
    conf_read_int(argc, argv, "h", h, 6);
    conf_read_float(argc, argv, "m", &m[0][0], 6);
    conf_read_int(argc, argv, "base", &base, 1);
    for (int i = 0; i < 6; i++) r[(i + 3) % 6] = h[5 - i] * 2 + h[i] + base + 2000 + 2;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) f[i * 2 + j] = m[i][1 - j] + (float)(i * 10 + j);
    for (int i = 0; i < 6; i++) g[i / 2][i % 2] = h[i] - 7;
    conf_ints("r", r, 6);
    conf_floats("f", f, 6);
    conf_ints("g", &g[0][0], 6);
    return 0;
}
