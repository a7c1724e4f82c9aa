/* Reference for single.w2. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t a[4], toleft[4];
    float b[4], toright[4];
    conf_read_int(argc, argv, "a", a, 4);
    conf_read_float(argc, argv, "b", b, 4);
    for (int i = 0; i < 4; i++) {
        toleft[i] = a[i] + a[3 - i] * 10;
        toright[3 - i] = b[i] * (float)a[i];
    }
    conf_ints("toleft", toleft, 4);
    conf_floats("toright", toright, 4);
    return 0;
}
