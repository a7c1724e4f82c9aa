/* Reference for memdeps.w2: the loops as written, in order. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t n[4], b[16], r[4][16] = {{0}}, h[8], m[4][4];
    int32_t a[17], g[4][4];
    conf_read_int(argc, argv, "n", n, 4);
    conf_read_int(argc, argv, "b", b, 16);
    for (int i = 0; i < 16; i++) a[i] = b[i];
    a[16] = 0;
    for (int i = 1; i <= 15; i++) a[i] = w_add(w_mul(a[i - 1], 2), a[i] % 7);
    for (int i = 0; i < 16; i++) r[0][i] = a[i];
    for (int i = 0; i < 16; i++) a[i] = b[i];
    for (int i = 2; i <= 15; i++) a[i] = a[i - 2] + a[i] * 3;
    for (int i = 0; i < 16; i++) r[1][i] = a[i];
    for (int i = 0; i < 8; i++) {
        int32_t t = a[i];
        a[i] = a[15 - i];
        a[15 - i] = t;
    }
    for (int i = 0; i < 16; i++) r[2][i] = a[i];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) g[i][j] = i * 4 + j;
    for (int i = 0; i < 4; i++)
        for (int j = 1; j < 4; j++) g[i][j] += g[i][j - 1];
    for (int j = 0; j < 4; j++)
        for (int i = 1; i < 4; i++) g[i][j] += g[i - 1][j];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) m[i][j] = g[i][j];
    for (int i = 0; i < 8; i++) h[i] = 0;
    for (int i = 0; i < 16; i++) a[i] = b[i];
    for (int i = 0; i < 16; i++) {
        int t = a[i] % 8;
        if (t < 0) t += 8;
        h[t]++;
    }
    for (int j = 0; j < 4; j++) {
        int32_t cnt = 0;
        for (int i = 1; i <= n[j]; i++) {
            a[i] = a[i - 1] + i;
            cnt += a[i];
        }
        r[3][j] = cnt;
    }
    conf_ints("r", &r[0][0], 64);
    conf_ints("h", h, 8);
    conf_ints("m", &m[0][0], 16);
    return 0;
}
