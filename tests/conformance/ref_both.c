/* Reference for both.w2: four cells, 0 to 3. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t p[7], rp[7], sq[7];
    float q[7], rq[7], sp[7];
    conf_read_int(argc, argv, "p", p, 7);
    conf_read_float(argc, argv, "q", q, 7);
    for (int i = 0; i < 7; i++) {
        rp[i] = p[i] * 16;
        float f = q[i];
        for (int k = 3; k >= 0; k--) f = f + (float)k;
        rq[i] = f;
        f = q[i];
        for (int k = 0; k < 4; k++) f = f * 2.0f;
        sp[i] = f;
        sq[i] = p[i] - 1 + 3 + 2 + 1 + 0;
    }
    conf_ints("rp", rp, 7);
    conf_floats("rq", rq, 7);
    conf_floats("sp", sp, 7);
    conf_ints("sq", sq, 7);
    return 0;
}
