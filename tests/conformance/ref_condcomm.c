/* Reference for condcomm.w2: cell c keeps the words w with w mod 4 = c (mod
 * following the dividend's sign, so negative words are never kept), as
 * 10 w + c, in order; the host gets the words no cell kept on X, and on Y the
 * kept words of cell 0, then cell 1, 2 and 3. Unwritten elements print 0. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t v[12], onx[12] = {0}, ony[12] = {0};
    conf_read_int(argc, argv, "v", v, 12);
    int n = 12, ny = 0;
    for (int c = 0; c < 4; c++) {
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (v[i] % 4 == c) ony[ny++] = v[i] * 10 + c;
            else v[m++] = v[i];
        }
        n = m;
    }
    for (int i = 0; i < n; i++) onx[i] = v[i];
    conf_ints("onx", onx, 12);
    conf_ints("ony", ony, 12);
    printf("nx:\n");
    conf_int(n);
    printf("ny:\n");
    conf_int(ny);
    return 0;
}
