/* Host reference for examples/polynomial.w2: the same Horner rule in single
 * precision, one multiply and one add a step (no fused multiply-add: the cells have
 * separate units), printed as warp-sim prints float arrays. */
#include "ref_common.h"

int main(int argc, char **argv)
{
    double data[100], coeffs[10];
    ref_read(argc, argv, "data", data, 100);
    ref_read(argc, argv, "coeffs", coeffs, 10);
    for (int i = 0; i < 100; i++) {
        volatile float y = 0.0f; /* volatile: each step rounds to single precision */
        for (int k = 0; k < 10; k++) {
            volatile float p = y * (float)data[i];
            y = (float)coeffs[k] + p;
        }
        printf("%.9g\n", (double)y);
    }
    return 0;
}
