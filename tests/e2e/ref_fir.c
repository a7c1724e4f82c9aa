/* Host reference for examples/fir.w2: the partial sum grows cell by cell, one
 * multiply and one add a cell, in single precision. */
#include "ref_common.h"

int main(int argc, char **argv)
{
    double x[64], w[8];
    ref_read(argc, argv, "x", x, 64);
    ref_read(argc, argv, "w", w, 8);
    for (int i = 0; i < 64; i++) {
        volatile float y = 0.0f;
        for (int k = 0; k < 8; k++) {
            volatile float p = (float)w[k] * (i - k >= 0 ? (float)x[i - k] : 0.0f);
            y = y + p;
        }
        printf("%.9g\n", (double)y);
    }
    return 0;
}
