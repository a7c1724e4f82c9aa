/* Reference for sort.w2: the numbers in decreasing order. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t v[8];
    conf_read_int(argc, argv, "v", v, 8);
    for (int i = 0; i < 8; i++)
        for (int j = i + 1; j < 8; j++)
            if (v[j] > v[i]) {
                int32_t t = v[i];
                v[i] = v[j];
                v[j] = t;
            }
    conf_ints(NULL, v, 8);
    return 0;
}
