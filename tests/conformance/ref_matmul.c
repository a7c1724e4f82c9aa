/* Reference for matmul.w2: each element of C is the dot product of a row of
 * A and a column of B, summed in order k = 0, 1, 2 from 0.0. */
#include "conf.h"

int main(int argc, char **argv)
{
    float a[5][3], b[3][4], c[5][4];
    conf_read_float(argc, argv, "a", &a[0][0], 15);
    conf_read_float(argc, argv, "b", &b[0][0], 12);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++) {
            float t = 0.0f;
            for (int k = 0; k < 3; k++) t = t + a[i][k] * b[k][j];
            c[i][j] = t;
        }
    conf_floats(NULL, &c[0][0], 20);
    return 0;
}
