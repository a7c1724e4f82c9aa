/* Reference for arrays1d.w2: the words cell 3 sees are the host's values after
 * three cells have each added 1 (ints) or doubled them (floats). */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t iv[8], hist[8], tmp[8], rev[8], isum[8];
    float fv[8], acc[8], fscaled[8];
    conf_read_int(argc, argv, "iv", iv, 8);
    conf_read_float(argc, argv, "fv", fv, 8);
    const int cell = 3;
    for (int j = 0; j < 8; j++) {
        hist[j] = iv[j] + cell;
        float v = fv[j];
        for (int c = 0; c < cell; c++) v = v * 2.0f;
        acc[7 - j] = v;
    }
    for (int j = 0; j < 8; j++) tmp[j] = hist[7 - j];
    for (int j = 0; j < 8; j++) hist[j] = tmp[j] * 10 + cell;
    for (int i = 0; i < 8; i++) {
        rev[i] = hist[i];
        fscaled[i] = acc[i] + (float)cell;
    }
    for (int i = 1; i < 8; i++) hist[i] += hist[i - 1];
    for (int i = 0; i < 8; i++) isum[i] = hist[i];
    /* warp-sim prints the out arrays in the order of the module header. */
    conf_ints("isum", isum, 8);
    conf_ints("rev", rev, 8);
    conf_floats("fscaled", fscaled, 8);
    return 0;
}
