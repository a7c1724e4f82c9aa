/* Host reference for examples/matvec.w2: each row's dot product summed left to
 * right, one multiply and one add a term, in single precision. */
#include "ref_common.h"

int main(int argc, char **argv)
{
    double a[64], x[8];
    ref_read(argc, argv, "a", a, 64);
    ref_read(argc, argv, "x", x, 8);
    for (int i = 0; i < 8; i++) {
        volatile float acc = 0.0f;
        for (int j = 0; j < 8; j++) {
            volatile float p = (float)a[i * 8 + j] * (float)x[j];
            acc = acc + p;
        }
        printf("%.9g\n", (double)acc);
    }
    return 0;
}
