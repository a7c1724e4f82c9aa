/* Reference for for.w2, written out loop by loop for cell 3. trace[0..2] are
 * the words cells 2, 1, 0 sent (count * 100 + cid); trace[3] is never written. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t n, r[20] = {0}, trace[16] = {0};
    conf_read_int(argc, argv, "n", &n, 1);
    int32_t lim = n, count, k;
    count = 0;
    for (int i = 1; i <= lim; i++) count += i;
    r[0] = count;
    count = 0;
    for (int i = lim; i >= 1; i--) count = count * 2 + i;
    r[1] = count;
    r[2] = 0;
    k = lim;
    count = 0;
    for (int i = 1, hi = k; i <= hi; i++) { k--; count++; }
    r[3] = count;
    r[4] = k;
    count = 0;
    for (int i = -3; i <= 3; i++) count += i * i;
    r[5] = count;
    count = 0;
    for (int i = -2; i >= -6; i--) count = count * 10 - i;
    r[6] = count;
    r[7] = 3;
    r[8] = 3;
    r[9] = 1 + 2 + 3 + 4;
    count = 0;
    for (int i = 0; i <= 3; i++)
        for (int j = i; j >= 0; j--) count++;
    r[10] = count;
    /* Each cell sends its own word, then passes on its left neighbours' words,
     * nearest first: cell 3 receives cell 2's, then cell 1's, then cell 0's. */
    for (int i = 0; i < 3; i++) {
        int cell = 2 - i;
        trace[i] = (3 - cell) * 100 + cell;
    }
    r[11] = 0; /* cell 3: 'for i := 3 to 2' runs nothing */
    r[12] = 7;
    int32_t j = 100;
    for (int i = 100, hi = 100 + lim * 2; i <= hi; i++) j++;
    r[13] = j;
    for (int i = 0; i <= 9; i++) trace[i + 4] = i * i;
    conf_ints("r", r, 20);
    conf_ints("trace", trace, 16);
    return 0;
}
