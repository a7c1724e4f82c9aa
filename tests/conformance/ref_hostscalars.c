/* Reference for hostscalars.w2: each cell sums the first n scaled values. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t n;
    float scale, v[5];
    conf_read_int(argc, argv, "n", &n, 1);
    conf_read_float(argc, argv, "scale", &scale, 1);
    conf_read_float(argc, argv, "v", v, 5);
    float s = 0.0f;
    for (int i = 0; i < 5; i++)
        if (i < n) s = s + v[i] * scale;
    printf("total:\n");
    conf_float(((scale + (float)n) + s) + s); /* both cells add their sum */
    printf("mean:\n");
    conf_float(s / (float)n);
    printf("count:\n");
    conf_int(n + 1);
    return 0;
}
