/* Reference for left.w2: the words enter at cell 4 and leave from cell 1. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t a[10], ra[10];
    float b[10], rb[10];
    conf_read_int(argc, argv, "a", a, 10);
    conf_read_float(argc, argv, "b", b, 10);
    for (int i = 9; i >= 0; i--) {
        int32_t v = a[i];
        float f = b[i] + 0.5f;
        for (int c = 4; c >= 1; c--) {
            v = v * 3 - c;
            f = f * 0.5f + (float)c;
        }
        ra[9 - i] = v;
        rb[i] = f;
    }
    conf_ints("ra", ra, 10);
    conf_floats("rb", rb, 10);
    return 0;
}
