/* Reference for logic.w2 with C's logical operators (the inputs never make a
 * division fault, so evaluating both operands changes nothing). */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t a[8], b[8], c[8], r[8][8] = {{0}};
    conf_read_int(argc, argv, "a", a, 8);
    conf_read_int(argc, argv, "b", b, 8);
    conf_read_int(argc, argv, "c", c, 8);
    for (int i = 0; i < 8; i++) {
        int x = a[i], y = b[i], z = c[i], k = 0;
        if (x > 0 && y > 0) k += 1;
        if (x > 0 || y > 0) k += 2;
        if (!(x > 0)) k += 4;
        if (!(x > 0 && y > 0)) k += 8;
        if ((!(x > 0) && y > 0) || z > 0) k += 16;
        if (x > 0 && (y > 0 || z > 0)) k += 32;
        if (x > 0 || (y > 0 && z > 0)) k += 64;
        if (z > 0) k += 128;
        r[i][0] = k;
        k = 0;
        if (100 / (x + 5) > 10 && 100 / (y + 5) > 10) k = 1;
        if (100 / (x + 5) > 10 || 100 / (y + 5) > 10) k += 2;
        r[i][1] = k;
        r[i][2] = x == y || y == z || x == z;
        r[i][3] = x != 0 && y != 0 && z != 0;
        r[i][4] = !(x < y) && !(y < z);
        while (x > 0 && z > 0) { x--; z--; }
        r[i][5] = x * 10 + z;
    }
    conf_ints(NULL, &r[0][0], 64);
    return 0;
}
