/* Reference for functions.w2: each cell transforms the value with combine();
 * the float on Y accumulates every cell's transformed value divided by 4. */
#include "conf.h"

static int32_t combine(int32_t acc, int cell)
{
    acc *= 2;
    acc += cell + 1;
    acc *= 2;
    acc *= 2;
    if (acc > 1000) acc += cell + 1;
    else acc -= 1;
    return acc;
}

int main(int argc, char **argv)
{
    int32_t inp[5], out1[5];
    float out2[5];
    conf_read_int(argc, argv, "inp", inp, 5);
    for (int i = 0; i < 5; i++) {
        int32_t v = inp[i];
        float f = 0.0f;
        for (int cell = 0; cell < 3; cell++) {
            v = combine(v, cell);
            f = f + (float)v / 4.0f;
        }
        out1[i] = v;
        out2[i] = f;
    }
    conf_ints("out1", out1, 5);
    conf_floats("out2", out2, 5);
    return 0;
}
