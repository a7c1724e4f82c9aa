/* Reference for mixed.w2, each conversion written where W2 puts it. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t a[5], b[5], k[5][4];
    float f[5][9];
    conf_read_int(argc, argv, "a", a, 5);
    conf_read_int(argc, argv, "b", b, 5);
    for (int n = 0; n < 5; n++) {
        int32_t i = a[n], j = b[n];
        f[n][0] = (float)(i / j) * 1.5f;
        f[n][1] = 1.5f * (float)i / (float)j;
        f[n][2] = (float)(i % j) + 0.5f;
        float x = (float)(i / j);
        f[n][3] = x;
        f[n][4] = (float)i / (float)j;
        f[n][5] = (float)(a[n] / b[n] - 1);
        f[n][6] = ((float)i + (float)j * 0.25f) - (float)(i / 2);
        f[n][7] = (float)(-i / 4) + 0.0f;
        f[n][8] = (float)(int32_t)((float)i * 0.75f) * 2.0f;
        k[n][0] = (float)(i / 2) == 1.5f;
        k[n][1] = (float)i / 2.0f > (float)j;
        k[n][2] = (int32_t)((float)(i / j) * 1.5f);
        k[n][3] = (int32_t)((float)((int32_t)x / 2) * 1.5f) + (int32_t)(-x);
    }
    conf_floats("f", &f[0][0], 45);
    conf_ints("k", &k[0][0], 20);
    return 0;
}
