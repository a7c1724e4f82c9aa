/* Reference for right.w2: cell k holds w[k]; the sample reaching cell k at
 * step i is x[i - k] (each cell delays the stream by one step, the first
 * words being 0), and y[i] = sum over k of w[k] * x[i - k], summed from
 * cell 0 to cell 5 in single precision. */
#include "conf.h"

int main(int argc, char **argv)
{
    float w[6], x[12], y[12];
    conf_read_float(argc, argv, "w", w, 6);
    conf_read_float(argc, argv, "x", x, 12);
    for (int i = 0; i < 12; i++) {
        float acc = 0.0f;
        for (int k = 0; k < 6; k++) {
            float xi = i - k >= 0 ? x[i - k] : 0.0f;
            acc = acc + w[k] * xi;
        }
        y[i] = acc;
    }
    conf_floats(NULL, y, 12);
    return 0;
}
