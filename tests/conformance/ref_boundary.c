/* Reference for boundary.w2, three cells 0..2, written out by hand:
 *  - X: cell 0 receives 0 (no fourth argument) and each cell adds 7, so the
 *    last cell holds 14; src[2] arrives at cell 0 and gains 1 per cell: 32.
 *  - Y: 0.0 gains 0.25 at each of the three cells; src[3] gains 1 at cells
 *    0 and 1 and reaches the host as a float.
 *  - the loop: the last cell stores 100 (src[i] + 2) at r[2 + i], its sends
 *    without a fourth argument dropped; r[6] gets 5, then 6; r[7] stays 0.
 *  - right to left: cell 2 receives 0, each cell adds 3 and cell 0's send is
 *    dropped; then 100 from the host plus 2 + 1 + 0 into lft[0]; then the int
 *    2 as a float, times 1.5 at each cell, into f[2]; f[3] and lft[1..3] are
 *    never written. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t src[4], r[8] = {0}, lft[4] = {0};
    float f[4] = {0};
    conf_read_int(argc, argv, "src", src, 4);
    r[0] = 14;
    r[1] = src[2] + 2;
    f[0] = 0.0f + 0.25f + 0.25f + 0.25f;
    f[1] = (float)(src[3] + 2);
    for (int i = 0; i < 4; i++) r[2 + i] = (src[i] + 2) * 100;
    r[6] = 6;
    lft[0] = 100 + 2 + 1 + 0;
    f[2] = 2.0f * 1.5f * 1.5f * 1.5f;
    conf_ints("r", r, 8);
    conf_floats("f", f, 4);
    conf_ints("lft", lft, 4);
    return 0;
}
