/* Host reference for examples/collatz.w2: ten Collatz steps per number, C's / and
 * % truncating toward zero as W2's do, and the digit counts summed. */
#include "ref_common.h"

int main(int argc, char **argv)
{
    double n[32];
    int value[32], digits[32];
    ref_read(argc, argv, "n", n, 32);
    for (int i = 0; i < 32; i++) {
        int v = (int)n[i], total = 0;
        for (int cell = 0; cell < 10; cell++) {
            int t = v < 0 ? -v : v, c = 0;
            while (t > 0) {
                t /= 2;
                c++;
            }
            total += c;
            v = v % 2 == 0 ? v / 2 : 3 * v + 1;
        }
        value[i] = v;
        digits[i] = total;
    }
    /* warp-sim prints several out arrays each after a "NAME:" line. */
    printf("value:\n");
    for (int i = 0; i < 32; i++) printf("%d\n", value[i]);
    printf("digits:\n");
    for (int i = 0; i < 32; i++) printf("%d\n", digits[i]);
    return 0;
}
