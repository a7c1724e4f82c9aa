/* The message-passing runtime (runtime/msg.s) on the simulated torus: all-to-all in
 * natural order (cell c sends to c+1, c+2, ... before it receives anything, the
 * order that deadlocked with a blocking channel request), at several message sizes
 * and torus sizes. Every received block is checked word by word against what its
 * source computed, and every cell must have heard from every other exactly once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "comm_harness.h"

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) fail_msg("cannot read %s", path);
    s[n] = 0;
    fclose(f);
    return s;
}

/* What cell `from` sends to cell `to` as word i. */
static uint32_t payload(uint32_t from, uint32_t to, uint32_t i) { return from * 1000003u + to * 1009u + i; }

/* The test program: fill the send buffer (block d for cell d), queue a send to each
 * other cell in natural order, receive N-1 messages into consecutive blocks of the
 * receive buffer with their sources and lengths, flush, halt. r32.. survive calls. */
static char *alltoall_program(unsigned w, unsigned h, unsigned k)
{
    unsigned n = w * h;
    char *rt = read_text(WARP_SOURCE_DIR "/runtime/msg.s");
    size_t size = strlen(rt) + 8192;
    char *s = malloc(size);
    snprintf(s, size,
             "%s\n"
             "        .cells 0, %u\n"
             "        .data\n"
             "srcs:   .zero %u\n"
             "lens:   .zero %u\n"
             "sbuf:   .zero %u\n"
             "rbuf:   .zero %u\n"
             "        .text\n        .globl main\n"
             "main:   mv r1, %u | mv r2, %u\n"
             "        mv r3, 0\n"
             "        call msg_init\n"
             /* r32 the word's address, r33 d, r34 i, r35 the value */
             "        mv r32, sbuf | mv r33, 0\n"
             ".Lfd:   imul r35, cid, 1000003 | imul r36, r33, 1009\n"
             "        mv r34, %u\n"
             "        iadd r35, r35, r36\n"
             ".Lfi:   st [r32, 0], r35 | iadd r35, r35, 1\n"
             "        iadd r32, r32, 4 | isub r34, r34, 1\n"
             "        bnz r34, .Lfi\n"
             "        iadd r33, r33, 1\n"
             "        ine r36, r33, %u\n"
             "        bnz r36, .Lfd\n"
             /* sends: j = 1 .. n-1, d = (cid + j) mod n */
             "        mv r37, 1\n"
             ".Ls:    iadd r1, cid, r37\n"
             "        imodu r1, r1, %u\n"
             "        nop\n        nop\n        nop\n        nop\n        nop\n        nop\n"
             "        imul r2, r1, %u\n"
             "        mv r3, %u\n"
             "        iadd r2, r2, sbuf\n"
             "        call msg_send\n"
             "        iadd r37, r37, 1\n"
             "        ine r36, r37, %u\n"
             "        bnz r36, .Ls\n"
             /* receives into block j */
             "        mv r37, 0 | mv r38, rbuf\n"
             ".Lr:    mv r1, r38 | mv r2, %u\n"
             "        call msg_recv\n"
             "        shl r39, r37, 2\n"
             "        st [r39, srcs], r1 | st [r39, lens], r2\n"
             "        iadd r37, r37, 1 | iadd r38, r38, %u\n"
             "        ine r36, r37, %u\n"
             "        bnz r36, .Lr\n"
             "        call msg_flush\n"
             "        halt\n",
             rt, n - 1, 4 * n, 4 * n, 4 * k * n, 4 * k * n, w, h, k, n, n, 4 * k, k, n, k, 4 * k, n - 1);
    free(rt);
    return s;
}

static void run_alltoall(unsigned w, unsigned h, unsigned k, uint64_t limit)
{
    unsigned n = w * h;
    char *src = alltoall_program(w, h, k);
    char topo[32];
    snprintf(topo, sizeof topo, "torus:%ux%u", w, h);
    cprog p;
    cprog_build(&p, src, topo, NULL);
    free(src);
    cprog_finish(&p, limit);
    uint32_t srcs = 0, lens = 0, rbuf = 0;
    for (unsigned i = 0; i < p.img->nsyms; i++) {
        const wrt_symbol *y = &p.img->syms[i];
        if (!strcmp(y->name, "srcs")) srcs = y->value;
        if (!strcmp(y->name, "lens")) lens = y->value;
        if (!strcmp(y->name, "rbuf")) rbuf = y->value;
    }
    for (unsigned c = 0; c < n; c++) {
        uint8_t heard[1024] = {0};
        for (unsigned j = 0; j + 1 < n; j++) {
            uint32_t from = cprog_mem(&p, (int)c, srcs + 4 * j);
            assert_true(from < n && from != c);
            assert_int_equal(heard[from], 0);
            heard[from] = 1;
            assert_int_equal(cprog_mem(&p, (int)c, lens + 4 * j), k);
            for (unsigned i = 0; i < k; i++)
                if (cprog_mem(&p, (int)c, rbuf + 4 * (j * k + i)) != payload(from, c, i))
                    fail_msg("cell %u, message %u from cell %u: word %u is %u, not %u", c, j, from, i,
                             cprog_mem(&p, (int)c, rbuf + 4 * (j * k + i)), payload(from, c, i));
        }
    }
    cprog_free(&p);
}

static void test_alltoall_2x2(void **state)
{
    (void)state;
    run_alltoall(2, 2, 4, 100000);
}

static void test_alltoall_4x4_small(void **state)
{
    (void)state;
    run_alltoall(4, 4, 1, 200000);
    run_alltoall(4, 4, 5, 200000);
}

static void test_alltoall_4x4_sizes(void **state)
{
    (void)state;
    run_alltoall(4, 4, 32, 400000);
    run_alltoall(4, 4, 256, 2000000);
}

static void test_alltoall_8x8(void **state)
{
    (void)state;
    run_alltoall(8, 8, 32, 4000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alltoall_2x2),
        cmocka_unit_test(test_alltoall_4x4_small),
        cmocka_unit_test(test_alltoall_4x4_sizes),
        cmocka_unit_test(test_alltoall_8x8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
