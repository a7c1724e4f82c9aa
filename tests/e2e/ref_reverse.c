/* Host reference for examples/reverse.w2: cells 9 down to 0 each halve the value
 * and add their number, in single precision. */
#include "ref_common.h"

int main(int argc, char **argv)
{
    double s[16];
    ref_read(argc, argv, "samples", s, 16);
    for (int i = 0; i < 16; i++) {
        volatile float v = (float)s[i];
        for (int cell = 9; cell >= 0; cell--) {
            volatile float h = v * 0.5f;
            v = h + (float)cell;
        }
        printf("%.9g\n", (double)v);
    }
    return 0;
}
