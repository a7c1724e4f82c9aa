/* Reference for arrays2d.w2: the last cell (2) holds m + 0 + 1 + 2. Only the
 * last cell reports. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t m[3][4], g[3][4], t[4][3], rowsum[3];
    float scaled[2][6];
    conf_read_int(argc, argv, "m", &m[0][0], 12);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) g[i][j] = m[i][j] + 0 + 1 + 2;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 4; b++) t[b][a] = g[a][b];
    for (int i = 0; i < 3; i++) rowsum[i] = g[i][0] + g[i][1] + g[i][2] + g[i][3];
    for (int i = 0; i < 12; i++) scaled[i / 6][i % 6] = (float)g[i / 4][i % 4] * 0.5f;
    conf_ints("t", &t[0][0], 12);
    conf_ints("rowsum", rowsum, 3);
    conf_floats("scaled", &scaled[0][0], 12);
    return 0;
}
