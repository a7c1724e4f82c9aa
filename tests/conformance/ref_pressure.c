/* Reference for pressure.w2: the loop body transcribed statement by statement
 * (mod as %, float literals as float constants); cell 1 reports. Both cells
 * run the loop, cell 1 on the values plus 1. */
#include "conf.h"

int main(int argc, char **argv)
{
    float x[10];
    conf_read_float(argc, argv, "x", x, 10);
    float a0 = 0, a1 = 1, a2 = 2, a3 = 3, a4 = 4, a5 = 5, a6 = 6, a7 = 7, a8 = 8, a9 = 9;
    float b0 = 0.5f, b1 = 1.5f, b2 = 2.5f, b3 = 3.5f, b4 = 4.5f, b5 = 5.5f, b6 = 6.5f, b7 = 7.5f, b8 = 8.5f,
          b9 = 9.5f;
    int32_t i0 = 0, i1 = 1, i2 = 2, i3 = 3, i4 = 4, i5 = 5, i6 = 6, i7 = 7, i8 = 8, i9 = 9;
    int32_t j0 = 10, j1 = 11, j2 = 12, j3 = 13, j4 = 14, j5 = 15, j6 = 16, j7 = 17, j8 = 18, j9 = 19;
    for (int i = 0; i < 10; i++) {
        {
            float v = x[i] + 1.0f;
            int32_t w = (int32_t)v;
        a0 = a0 + v * b9;
        a1 = a1 * 0.5f + v;
        a2 = a2 - v * a1;
        a3 = a3 + a2 * 0.25f;
        a4 = a4 * 0.75f + b0;
        a5 = a5 + a4 - v;
        a6 = a6 * 0.5f + a5 * 0.5f;
        a7 = a7 + b3 * v;
        a8 = a8 - a7 * 0.125f;
        a9 = a9 + a8 * 0.0625f;
        b0 = b0 + 1.0f;
        b1 = b1 * 0.5f + a0 * 0.001f;
        b2 = b2 + b1;
        b3 = b3 * 0.9f;
        b4 = b4 + v * v * 0.01f;
        b5 = b5 - b4 * 0.1f;
        b6 = b6 + b5;
        b7 = b7 * 0.5f + b6 * 0.5f;
        b8 = b8 + b7 - v;
        b9 = b9 * 0.99f;
        i0 = i0 + w;
        i1 = i1 * 3 + i0;
        i2 = i2 - i1 % 5;
        i3 = i3 + i2 * 2;
        i4 = i4 + i3 / 3;
        i5 = i5 * 2 - i4;
        i6 = i6 + i5 % 7;
        i7 = i7 - i6;
        i8 = i8 + i7 * w;
        i9 = i9 + i8 / 5;
        j0 = j0 + i9 % 11;
        j1 = j1 - j0;
        j2 = j2 + j1 * 2;
        j3 = j3 * 3 % 1000 + j2;
        j4 = j4 + j3 / 7;
        j5 = j5 - j4 % 13;
        j6 = j6 + j5 + w;
        j7 = j7 * 2 - j6;
        j8 = j8 + j7 % 17;
        j9 = j9 + j8 + i9;
        }
    }
    float r[20] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, b0, b1, b2, b3, b4, b5, b6, b7, b8, b9};
    int32_t s[20] = {i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, j0, j1, j2, j3, j4, j5, j6, j7, j8, j9};
    conf_floats("r", r, 20);
    conf_ints("s", s, 20);
    return 0;
}
