/* The memory agent's spool gates (seed 000, sec. 7.2), with programs built by the real
 * assembler: spooling a channel into memory until a count or a message end marker,
 * bounded by the address limit; spooling memory out onto a pathway; and the queue
 * extension, a channel lengthened through memory so that a program which deadlocks
 * with 8-word queues runs.
 *
 * %spc written: channel | out << 5 | stop-at-end << 6 | follow << 7 | partner << 8.
 * Spool events (kind 6) carry gate | reason << 8: 1 count, 2 end marker, 3 limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "comm_harness.h"

enum { EV_SPOOL = 6, EV_PB = 8 };

/* Cell 0 opens a pathway to cell 1 and sends what SEND says; cell 1 spools the
 * channel into memory at 0x100 with the limit, count and control that SPOOL sets
 * (after the pathway's event: r2 is its channel), waits for the spool's event and
 * reads %spa and %spc. */
static void spool_in_program(char *buf, size_t size, const char *send, const char *spool)
{
    snprintf(buf, size,
             "        .model iwarp\n        .cells 0, 1\n        .text\n        .globl main\n"
             "main:   bnz cid, .Lin\n"
             "        creq r1, 0, 0\n        nop\n        nop\n"
             "        and r2, r1, 255\n"
             "        mv %%go0, r2\n"
             "        pbegin @g0, 1\n"
             "%s"
             "        halt\n"
             ".Lin:   mv %%evmask, 0x140\n" /* pathway begins and spools only */
             "        evwait r1\n"
             "        and r2, r1, 255\n"
             "        mv %%sps, 3\n"
             "        mv %%spa, 0x100\n"
             "%s"
             "        evwait r5\n"
             "        mv r6, %%evdata\n"
             "        mv r7, %%spa | mv r8, %%spc\n"
             "        halt\n",
             send, spool);
}

static const char *five_words = "        mv @g0, 10\n        mv @g0, 11\n        mv @g0, 12\n"
                                "        mv @g0, 13\n        mv @g0, 14\n";

static void test_spool_in_until_the_count(void **state)
{
    (void)state;
    char src[2048];
    spool_in_program(src, sizeof src, five_words,
                     "        mv %spl, 0x1000\n        mv %spn, 4\n        mv %spc, r2\n");
    cprog p;
    cprog_build(&p, src, "linear", NULL);
    cprog_finish(&p, 1000);
    assert_int_equal(cprog_reg(&p, 1, 5), EV_SPOOL << 8 | 6);
    assert_int_equal(cprog_reg(&p, 1, 6), 3 | 1 << 8);
    for (uint32_t i = 0; i < 4; i++) assert_int_equal(cprog_mem(&p, 1, 0x100 + 4 * i), 10 + i);
    assert_int_equal(cprog_mem(&p, 1, 0x110), 0);
    assert_int_equal(cprog_reg(&p, 1, 7), 0x110);
    assert_int_equal(cprog_reg(&p, 1, 8), 1u << 1 | 6u << 8); /* stopped: count; channel 6 */
    uint32_t w[8];
    assert_int_equal(wca_lic_words(p.agents, 1, 6, w, NULL, 8), 1); /* the fifth is left */
    assert_int_equal(w[0], 14);
    cprog_free(&p);
}

/* With no count, a message end marker stops it; the marker itself is not stored. */
static void test_spool_in_until_the_end_marker(void **state)
{
    (void)state;
    char src[2048];
    spool_in_program(src, sizeof src,
                     "        mbegin @g0, 77\n        mv @g0, 1\n        mv @g0, 2\n        mv @g0, 3\n"
                     "        mend @g0, 99\n        mv @g0, 4\n",
                     "        mv %spl, 0x1000\n        mv %spn, 0\n        or r3, r2, 64\n"
                     "        mv %spc, r3\n");
    cprog p;
    cprog_build(&p, src, "linear", NULL);
    cprog_finish(&p, 1000);
    assert_int_equal(cprog_reg(&p, 1, 6), 3 | 2 << 8);
    static const uint32_t want[] = {77, 1, 2, 3, 0};
    for (uint32_t i = 0; i < 5; i++) assert_int_equal(cprog_mem(&p, 1, 0x100 + 4 * i), want[i]);
    assert_int_equal(cprog_reg(&p, 1, 7), 0x110);
    uint32_t w[8];
    assert_int_equal(wca_lic_words(p.agents, 1, 6, w, NULL, 8), 1);
    assert_int_equal(w[0], 4);
    cprog_free(&p);
}

/* The address-limit register keeps a spool inside its buffer (0x100..0x108 here). */
static void test_spool_in_stops_at_the_limit(void **state)
{
    (void)state;
    char src[2048];
    spool_in_program(src, sizeof src, five_words, "        mv %spl, 0x108\n        mv %spn, 0\n        mv %spc, r2\n");
    cprog p;
    cprog_build(&p, src, "linear", NULL);
    cprog_finish(&p, 1000);
    assert_int_equal(cprog_reg(&p, 1, 6), 3 | 3 << 8);
    assert_int_equal(cprog_mem(&p, 1, 0x100), 10);
    assert_int_equal(cprog_mem(&p, 1, 0x104), 11);
    assert_int_equal(cprog_mem(&p, 1, 0x108), 0);
    assert_int_equal(cprog_reg(&p, 1, 7), 0x108);
    uint32_t w[8];
    assert_int_equal(wca_lic_words(p.agents, 1, 6, w, NULL, 8), 3);
    cprog_free(&p);
}

/* Memory communication out (sec. 7.2): cell 0 opens a pathway, writes its begin marker
 * through a gate, then lets spool gate 5 send six words of its data memory; cell 1
 * reads them through a gate. The spool moves a word every 2 clocks (a channel's
 * rate), so its six words take 12 clocks from its start. */
static void check_spool_out(const char *limits, unsigned words, unsigned reason)
{
    char src[2048];
    snprintf(src, sizeof src,
                "        .model iwarp\n        .cells 0, 1\n"
                "        .data\nbuf:    .word 5, 6, 7, 8, 9, 10\n"
                "        .text\n        .globl main\n"
                "main:   bnz cid, .Lin\n"
                "        creq r1, 0, 0\n        nop\n        nop\n"
                "        and r2, r1, 255\n"
                "        mv %%go0, r2\n"
                "        pbegin @g0, 1\n"
                "        mv %%go0, -1\n"
                "        mv %%sps, 5\n"
                "        mv %%spa, buf\n"
                "%s"
                "        or r3, r2, 32\n"
                "        mv %%spc, r3\n"
                "        evwait r5\n"
                "        mv r6, %%evdata\n"
                "        halt\n"
                ".Lin:   evwait r1\n"
                "        and r2, r1, 255\n"
                "        mv %%gi0, r2\n",
                limits);
    /* Cell 1 reads as many words as the spool sends, into r10, r11, ... */
    for (unsigned i = 0; i < words; i++)
        snprintf(src + strlen(src), sizeof src - strlen(src), "        mv r%u, @g0\n", 10 + i);
    snprintf(src + strlen(src), sizeof src - strlen(src), "        halt\n");
    cprog p;
    cprog_build(&p, src, "linear", NULL);
    cprog_finish(&p, 1000);
    for (unsigned i = 0; i < words; i++) assert_int_equal(cprog_reg(&p, 1, 10 + i), 5 + i);
    assert_int_equal(cprog_reg(&p, 0, 5), EV_SPOOL << 8 | 12);
    assert_int_equal(cprog_reg(&p, 0, 6), 5 | reason << 8);
    assert_int_equal(wca_loc_words(p.agents, 0, 0), 1 + words);
    cprog_free(&p);
}

/* Six words by count; with no count, four before the limit (buf + 16). */
static void test_spool_out_onto_a_pathway(void **state)
{
    (void)state;
    check_spool_out("        mv %spl, 0x1000\n        mv %spn, 6\n", 6, 1);
    check_spool_out("        mv %spl, buf+16\n        mv %spn, 0\n", 4, 3);
}

/* A program that needs a queue longer than the hardware's (sec. 7.2, Kung 1988): cell 0
 * sends 30 words on pathway A, then one on pathway B; cell 1 reads B first. With 8-word
 * queues A holds 16 words (the local channel and the far one) and cell 0 blocks before
 * it writes B: a deadlock. With the queue extension, cell 1 spools A into a buffer at
 * 0x1000 (gate 0) and a second spool (gate 1) follows it out of the buffer into local
 * channel 12, which @g0 reads: memory lengthens the queue and the program runs. */
static const char *extension_head =
    "        .model iwarp\n        .cells 0, 1\n        .file \"ext.s\"\n        .text\n        .globl main\n"
    "main:   bnz cid, .Lin\n"
    "        creq r1, 0, 0\n        nop\n        nop\n"
    "        creq r2, 0, 0\n        nop\n        nop\n"
    "        and r1, r1, 255 | and r2, r2, 255\n"
    "        mv %go0, r1 | mv %go1, r2\n"
    "        pbegin @g0, 1\n"
    "        pbegin @g1, 1\n"
    "        mv r3, 30\n"
    "        .loc 20\n"
    ".La:    mv @g0, r3 | dbnz r3, .La\n"
    "        mv @g1, 1000\n"
    "        halt\n"
    ".Lin:   evwait r1\n"
    "        evwait r2\n"
    "        and r1, r1, 255 | and r2, r2, 255\n"
    "        mv %gi1, r2\n";
static const char *extension_tail =
    "        .loc 40\n"
    "        mv r4, @g1\n"
    "        mv r5, 0 | mv r3, 30\n"
    ".Lb:    iadd r5, r5, @g0 | dbnz r3, .Lb\n"
    "        halt\n";

static const char *direct = "        mv %gi0, r1\n";
static const char *extended =
    "        mv %sps, 0\n        mv %spa, 0x1000\n        mv %spl, 0x2000\n        mv %spn, 30\n"
    "        mv %spc, r1\n"
    "        mv %sps, 1\n        mv %spa, 0x1000\n        mv %spl, 0x2000\n        mv %spn, 30\n"
    "        mv %spc, 172\n" /* local 12, out, follow gate 0 */
    "        mv %gi0, 12\n";

static void test_queue_extension_through_memory(void **state)
{
    (void)state;
    char src[2048];
    cprog p;
    snprintf(src, sizeof src, "%s%s%s", extension_head, direct, extension_tail);
    cprog_build(&p, src, "linear", NULL);
    assert_int_equal(wsim_run(p.sim, 10000), WSIM_DEADLOCK);
    cprog_free(&p);

    snprintf(src, sizeof src, "%s%s%s", extension_head, extended, extension_tail);
    cprog_build(&p, src, "linear", NULL);
    cprog_finish(&p, 10000);
    assert_int_equal(cprog_reg(&p, 1, 4), 1000);
    assert_int_equal(cprog_reg(&p, 1, 5), 30 * 31 / 2);
    assert_int_equal(cprog_mem(&p, 1, 0x1000), 30);
    assert_int_equal(cprog_mem(&p, 1, 0x1000 + 4 * 29), 1);
    cprog_free(&p);
}

/* Bad spool settings fault at the write, naming the register. */
static void test_spool_faults(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p,
                "        .model iwarp\n        .cells 0, 0\n        .text\n        .globl main\n"
                "main:   mv %spa, 6\n        halt\n",
                NULL, NULL);
    assert_int_equal(wsim_run(p.sim, 100), WSIM_FAULT);
    assert_string_equal(wsim_message(p.sim), "cell 0 (cid 0): pc 0: %spa: spool address 0x6 is misaligned");
    cprog_free(&p);
    cprog_build(&p,
                "        .model iwarp\n        .cells 0, 0\n        .text\n        .globl main\n"
                "main:   mv %sps, 8\n        halt\n",
                NULL, NULL);
    assert_int_equal(wsim_run(p.sim, 100), WSIM_FAULT);
    assert_string_equal(wsim_message(p.sim), "cell 0 (cid 0): pc 0: %sps: spool gate 8: a cell has 8");
    cprog_free(&p);
    cprog_build(&p,
                "        .model iwarp\n        .cells 0, 0\n        .text\n        .globl main\n"
                "main:   mv %spc, 35\n        halt\n",
                NULL, NULL);
    assert_int_equal(wsim_run(p.sim, 100), WSIM_FAULT);
    assert_string_equal(wsim_message(p.sim), "cell 0 (cid 0): pc 0: %spc: spooling out to channel 3, which is fed "
                                             "by a bus (spools out fill local channels)");
    cprog_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spool_in_until_the_count),
        cmocka_unit_test(test_spool_in_until_the_end_marker),
        cmocka_unit_test(test_spool_in_stops_at_the_limit),
        cmocka_unit_test(test_spool_out_onto_a_pathway),
        cmocka_unit_test(test_queue_extension_through_memory),
        cmocka_unit_test(test_spool_faults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
