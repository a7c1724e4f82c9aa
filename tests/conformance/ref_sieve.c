/* Reference for sieve.w2: the sieve of Eratosthenes over the input stream,
 * one prime per cell for eight cells, and the count of numbers that pass the
 * last cell's prime. */
#include "conf.h"

int main(int argc, char **argv)
{
    int32_t nums[40], stream[40], primes[8];
    conf_read_int(argc, argv, "nums", nums, 40);
    int n = 0;
    while (nums[n] != -1) {
        stream[n] = nums[n];
        n++;
    }
    int passed = 0;
    for (int c = 0; c < 8; c++) {
        int m = 0;
        primes[c] = n > 0 ? stream[0] : -1;
        for (int i = 1; i < n; i++)
            if (stream[i] % primes[c] != 0) stream[m++] = stream[i];
        passed = n > 0 ? m : 0;
        n = m;
    }
    conf_ints("primes", primes, 8);
    printf("left:\n");
    conf_int(passed);
    return 0;
}
