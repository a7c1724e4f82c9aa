/* Reference for histcall.w2: every call of bump folds the current word t into
 * acc (acc := 3 acc + k t for k = 0..39, wrapping) and counts t; count calls it
 * for each of the 8 words, the cell program once more with the last word. */
#include "conf.h"

static int32_t acc, t, cnt[4];

static void bump(void)
{
    for (int k = 0; k < 40; k++) acc = w_add(w_mul(acc, 3), w_mul(t, k));
    cnt[t]++;
}

int main(int argc, char **argv)
{
    int32_t v[8];
    conf_read_int(argc, argv, "v", v, 8);
    for (int i = 0; i < 8; i++) {
        t = v[i];
        bump();
    }
    bump();
    conf_ints("r", cnt, 4);
    conf_head("z");
    conf_int(acc);
    return 0;
}
