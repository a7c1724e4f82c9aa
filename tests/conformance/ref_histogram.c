/* Reference for histogram.w2: the last cell counts the words below 4 of the
 * stream it passes on (the same stream as every cell), by value. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t v[8], cnt[4] = {0};
    conf_read_int(argc, argv, "v", v, 8);
    for (int i = 0; i < 8; i++)
        if (v[i] >= 0 && v[i] < 4) cnt[v[i]]++;
    conf_ints(NULL, cnt, 4);
    return 0;
}
