/* Reference for lexical.w2. r[3]: a single cell receiving from the left on
 * X without a fourth argument gets 0. r[4]: 41 + 1, to the host on the left. */
#include "conf.h"

int main(void)
{
    int32_t r[6] = {1234, 5 + 6 + 7, 8, 0, 42, 4};
    float f[8] = {2.5e-3f, 1e4f, 1e2f, 0.0f, 12.0f + 15.0f, 0.3f * 10.0f, 123456789.0f, 0.1f + 0.2f};
    conf_ints("r", r, 6);
    conf_floats("f", f, 8);
    return 0;
}
