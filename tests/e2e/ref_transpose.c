/* Host reference for examples/transpose.w2: three transposes make one, and three
 * increments add 3. */
#include "ref_common.h"

int main(int argc, char **argv)
{
    double m[24];
    ref_read(argc, argv, "m", m, 24);
    for (int j = 0; j < 6; j++)
        for (int i = 0; i < 4; i++) {
            volatile float v = (float)m[i * 6 + j];
            for (int cell = 0; cell < 3; cell++) v = v + 1.0f;
            printf("%.9g\n", (double)v);
        }
    return 0;
}
