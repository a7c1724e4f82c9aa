/* Reference for manycells.w2: 0 + 1 + ... + 299 = 44850 added to each word
 * (wrapping), and the maximum of (c * 37) mod 101 over the cells. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t v[8], r[8], m = -1;
    conf_read_int(argc, argv, "v", v, 8);
    for (int i = 0; i < 8; i++) {
        int32_t w = v[i];
        for (int c = 0; c < 300; c++) w = w_add(w, c);
        r[i] = w;
    }
    for (int c = 0; c < 300; c++)
        if ((c * 37) % 101 > m) m = (c * 37) % 101;
    conf_ints("r", r, 8);
    printf("mx:\n");
    conf_int(m);
    return 0;
}
