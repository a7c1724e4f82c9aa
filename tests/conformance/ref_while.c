/* Reference for while.w2: Euclid's algorithm on absolute values counting its
 * steps, and the other loops written out. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t a[6], b[6], g[6], steps[6];
    float misc[6];
    conf_read_int(argc, argv, "a", a, 6);
    conf_read_int(argc, argv, "b", b, 6);
    for (int i = 0; i < 6; i++) {
        int32_t x = a[i] < 0 ? -a[i] : a[i], y = b[i] < 0 ? -b[i] : b[i], n = 0;
        while (y != 0) {
            int32_t t = x % y;
            x = y;
            y = t;
            n++;
        }
        g[i] = x;
        steps[i] = n;
    }
    misc[0] = 0.0f;
    float f = 1.0f;
    int k = 0;
    while (f < 1000.0f) {
        f = f * 1.5f;
        k++;
    }
    misc[1] = f;
    misc[2] = (float)k;
    int n = 50;
    k = 0;
    while (!(n <= 3) && k < 1000) {
        n /= 2;
        k++;
    }
    misc[3] = (float)(n * 100 + k);
    n = 0;
    for (int i = 0; i < 5; i++)
        for (int t = i; t >= 0; t--) n += t;
    misc[4] = (float)n;
    n = 0;
    for (k = 3; k > -4; k--) n = n * 2 + k;
    misc[5] = (float)n;
    conf_ints("g", g, 6);
    conf_ints("steps", steps, 6);
    conf_floats("misc", misc, 6);
    return 0;
}
