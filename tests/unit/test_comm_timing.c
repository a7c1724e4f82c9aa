/* Section 8 of seed 000, measured in simulated clocks (50 ns each) on programs built
 * by the real assembler, and asserted:
 *   logical channel request      150 ns   3 clocks from creq to its result
 *   pathway begin marker         100 ns   2 clocks from pbegin to the marker leaving
 *   each corner-turn address      50 ns   1 clock a routing word
 *   forwarding a marker a cell   200 ns   4 clocks from crossing one bus to the next
 *   a corner turn                250 ns   5 clocks
 *   join                         100 ns   2 clocks to the first word leaving the joint
 *   data through a joint           0 ns   no more than through any cell
 *   message header at a joint    200 ns   as a pathway header
 *   message begin / end markers  100 ns   2 clocks each
 *   pathway end marker           100 ns   2 clocks
 * plus the bus (a word every 2 clocks, 40 MB/s) and the statistics --stats prints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "comm_harness.h"

/* Steps until cell's pc leaves `pc`; returns the clock that issued that bundle. */
static uint64_t clock_issuing(cprog *p, int cell, uint32_t pc)
{
    for (int i = 0; i < 10000; i++) {
        uint64_t t = wsim_cycles(p->sim);
        cprog_step(p);
        if (wsim_cell_pc(p->sim, cell) != pc && wsim_cell_issued(p->sim, cell) > 0) {
            (void)t;
            return t;
        }
    }
    fail_msg("cell %d never left pc %u", cell, pc);
    return 0;
}

/* One cell, its @g0 looped through local channel 12 (no bus in between): each
 * operation's word is there, or its event posted, exactly its latency after issue.
 * The gate's internal bus takes a word every 2 clocks (sec. 4): a nop between two
 * writes. */
static void test_generation_latencies(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p,
                "        .model iwarp\n        .cells 0, 0\n        .text\n        .globl main\n"
                "main:   mv %go0, 12 | mv %gi0, 12\n"  /* 0 */
                "        creq r1, 0, 0\n"              /* 1: result at 4 */
                "        mv r2, r1\n"                  /* 2 */
                "        mv r3, r1\n"                  /* 3 */
                "        mv r4, r1\n"                  /* 4 */
                "        pbegin @g0, 99\n"             /* 5: consumed here, event at 7 */
                "        nop\n"
                "        mv @g0, 7\n"                  /* 7: a routing word, readable at 8 */
                "        nop\n"
                "        mbegin @g0, 8\n"              /* 9: readable at 11 */
                "        nop\n"
                "        mend @g0, 9\n"                /* 11: readable at 13 */
                "        nop\n"
                "        pend @g0, 0\n"                /* 13: consumed at 15 */
                "        halt\n",
                "torus:1x1", NULL);
    assert_int_equal(clock_issuing(&p, 0, 1), 1);
    for (int i = 2; i < 7; i++) cprog_step(&p);       /* clocks 2..6 */
    assert_int_equal(wsim_cycles(p.sim), 7);
    assert_int_equal(wca_events_waiting(p.agents, 0), 0);
    uint32_t w[8];
    uint8_t tags[8];
    cprog_step(&p);                                    /* clock 7 */
    assert_int_equal(wca_events_waiting(p.agents, 0), 1); /* the begin marker: 7 = 5 + 2 */
    assert_int_equal(wca_lic_words(p.agents, 0, 12, w, tags, 8), 0);
    cprog_step(&p);                                    /* clock 8 */
    assert_int_equal(wca_lic_words(p.agents, 0, 12, w, tags, 8), 1);
    assert_int_equal(w[0], 7);                          /* the routing word: 8 = 7 + 1 */
    for (int i = 9; i < 11; i++) cprog_step(&p);       /* clocks 9, 10 */
    assert_int_equal(wca_lic_words(p.agents, 0, 12, w, tags, 8), 1);
    cprog_step(&p);                                    /* clock 11 */
    assert_int_equal(wca_lic_words(p.agents, 0, 12, w, tags, 8), 2);
    assert_int_equal(tags[1], WT_MARK_MBEGIN);         /* 11 = 9 + 2 */
    cprog_step(&p);                                    /* clock 12 */
    assert_int_equal(wca_lic_words(p.agents, 0, 12, w, tags, 8), 2);
    cprog_step(&p);                                    /* clock 13 */
    assert_int_equal(wca_lic_words(p.agents, 0, 12, w, tags, 8), 3);
    assert_int_equal(tags[2], WT_MARK_MEND);           /* 13 = 11 + 2 */
    assert_int_equal(wca_events_waiting(p.agents, 0), 1); /* message markers raise theirs at the head */
    cprog_finish(&p, 100);                             /* halted at 14; the end marker lands at 15 */
    assert_int_equal(wsim_cycles(p.sim), 15);
    assert_int_equal(wca_lic_words(p.agents, 0, 12, w, tags, 8), 4);
    assert_int_equal(tags[3], WT_MARK_PEND);
    /* creq's result: not yet at 2 and 3, there at 4 = 1 + 3. */
    assert_int_equal(cprog_reg(&p, 0, 2), 0);
    assert_int_equal(cprog_reg(&p, 0, 3), 0);
    assert_int_equal(cprog_reg(&p, 0, 4), 13u);        /* local 13, out XRight.0 */
    cprog_free(&p);
}

/* Along the first row of the 8x8 torus from cell 0, a corner at cell 4 toward YUp,
 * to cell 28 at (4, 3). The first word each bus on the way carries is the marker. */
static const char *route =
    "        .model  iwarp\n"
    "        .cells  0, 63\n"
    "        .text\n"
    "        .globl  main\n"
    "main:   bnz cid, .Lend\n"
    "        creq r1, 0, 0\n"
    "        nop\n"
    "        nop\n"
    "        and r2, r1, 255\n"
    "        mv %go0, r2\n"
    "        pbegin @g0, 0x2004\n"    /* 6: cell 4, turn toward YUp */
    "        mv @g0, 28\n"
    "        mv @g0, 1\n"
    "        pend @g0, 0\n"
    ".Lend:  halt\n";

static void test_forwarding_and_corner_turn(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p, route, "torus:8x8", NULL);
    /* cell, its output channel on the way (XRight.0 is 0, YUp.0 is 3) */
    static const int hops[][2] = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 3}, {12, 3}, {20, 3}};
    uint64_t first[7] = {0};
    uint64_t pbegin_at = 0, event_at = 0;
    for (int i = 0; i < 200 && wsim_status_of(p.sim) == WSIM_RUNNING; i++) {
        uint64_t t = wsim_cycles(p.sim);
        uint32_t pc = wsim_cell_pc(p.sim, 0);
        if (wsim_step(p.sim) != WSIM_RUNNING) break;
        if (pc == 6 && wsim_cell_pc(p.sim, 0) == 7) pbegin_at = t;
        for (int h = 0; h < 7; h++)
            if (!first[h] && wca_loc_words(p.agents, hops[h][0], hops[h][1])) first[h] = t;
        if (!event_at && wca_events_waiting(p.agents, 28)) event_at = t;
    }
    assert_int_equal(wsim_status_of(p.sim), WSIM_DONE);
    /* The marker leaves 2 clocks after pbegin (100 ns). */
    assert_int_equal(first[0], pbegin_at + 2);
    /* 4 clocks a cell straight on (200 ns), 5 at the corner (250 ns). */
    assert_int_equal(first[1] - first[0], 4);
    assert_int_equal(first[2] - first[1], 4);
    assert_int_equal(first[3] - first[2], 4);
    assert_int_equal(first[4] - first[3], 5);
    assert_int_equal(first[5] - first[4], 4);
    assert_int_equal(first[6] - first[5], 4);
    /* The destination hears it when it arrives: 2 clocks on the bus. */
    assert_int_equal(event_at, first[6] + 2);
    /* The corner consumed one routing word: the row's buses carried one more word. */
    assert_int_equal(wca_loc_words(p.agents, 3, 0), 4);
    assert_int_equal(wca_loc_words(p.agents, 4, 3), 3);
    cprog_free(&p);
}

/* Linear cells 0..3. Cell 1 opens a pathway to cell 3 and joins to it the pathway from
 * cell 0, on which one data word already waits: it leaves the joint 2 clocks after the
 * join issues (100 ns). Later a message header not for cell 1 is forwarded 2 clocks
 * after it arrives (200 ns with its bus), and a data word of the joined pathway
 * crosses the joint in the clock it arrives, as through any cell. */
static const char *joint =
    "        .model  iwarp\n"
    "        .cells  0, 3\n"
    "        .text\n"
    "        .globl  main\n"
    "main:   ieq r8, cid, 1\n"
    "        bnz r8, .Lj\n"
    "        bnz cid, .Lend\n"
    "        creq r1, 0, 0\n"
    "        nop\n"
    "        nop\n"
    "        and r2, r1, 255\n"
    "        mv %go0, r2\n"
    "        pbegin @g0, 1\n"
    "        mv @g0, 5\n"               /* waits at cell 1 until the join */
    "        mv r20, 40\n"
    ".L1:    dbnz r20, .L1\n"
    "        mbegin @g0, 3\n"
    "        mv r20, 30\n"
    ".L2:    dbnz r20, .L2\n"
    "        mv @g0, 6\n"
    ".Lend:  halt\n"
    ".Lj:    creq r1, 0, 0\n"
    "        nop\n"
    "        nop\n"
    "        and r2, r1, 255 | shr r3, r1, 8\n"
    "        mv %go0, r2\n"
    "        pbegin @g0, 3\n"
    "        evwait r4\n"
    "        and r5, r4, 255\n"
    "        mv r20, 10\n"
    ".L3:    dbnz r20, .L3\n"
    "        join r5, r3\n"             /* 27 */
    "        halt\n";

static void test_join_and_joint_latencies(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p, joint, "linear", NULL);
    uint64_t join_at = 0, in_at[4] = {0}, out_at[4] = {0};
    uint64_t n_in = 0, n_out = 0;
    for (int i = 0; i < 400 && wsim_status_of(p.sim) == WSIM_RUNNING; i++) {
        uint64_t t = wsim_cycles(p.sim);
        uint32_t pc = wsim_cell_pc(p.sim, 1);
        if (wsim_step(p.sim) != WSIM_RUNNING) break;
        if (pc == 27 && wsim_cell_pc(p.sim, 1) == 28) join_at = t;
        uint64_t a = wca_loc_words(p.agents, 0, 0), b = wca_loc_words(p.agents, 1, 0);
        if (a > n_in && a <= 4) in_at[a - 1] = t;
        if (b > n_out && b <= 4) out_at[b - 1] = t;
        n_in = a;
        n_out = b;
    }
    assert_int_equal(wsim_status_of(p.sim), WSIM_DONE);
    assert_true(join_at > 0);
    /* Cell 0's bus carried: the marker, 5, the header, 6. Cell 1's: its own marker,
     * then 5, the header, 6. */
    assert_int_equal(out_at[1], join_at + 2);
    assert_int_equal(out_at[2], in_at[2] + 2 + 2);
    assert_int_equal(out_at[3], in_at[3] + 2);
    assert_int_equal(cprog_reg(&p, 1, 4) >> 8, 8);
    cprog_free(&p);
}

/* A bus carries a word every 2 clocks (40 MB/s, sec. 4): cell 0 writes 64 words as
 * fast as the gate rule lets it; the statistics count them, the bus busy 128 clocks,
 * and nothing blocked, since cell 1 reads every word at once. */
static void test_bus_rate_and_statistics(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p,
                "        .model iwarp\n        .cells 0, 1\n        .text\n        .globl main\n"
                "main:   mv r1, 64\n"
                "        bnz cid, .Lr\n"
                ".Lw:    mv @xr, r1 | dbnz r1, .Lw\n"
                "        halt\n"
                ".Lr:    iadd r2, r2, @xl | dbnz r1, .Lr\n"
                "        halt\n",
                "linear", NULL);
    uint64_t first = 0, last = 0;
    for (int i = 0; i < 1000 && wsim_status_of(p.sim) == WSIM_RUNNING; i++) {
        uint64_t t = wsim_cycles(p.sim);
        uint64_t before = wca_loc_words(p.agents, 0, 0);
        if (wsim_step(p.sim) != WSIM_RUNNING) break;
        if (wca_loc_words(p.agents, 0, 0) > before) {
            if (!first) first = t;
            last = t;
        }
    }
    assert_int_equal(wsim_status_of(p.sim), WSIM_DONE);
    assert_int_equal(last - first, 2 * 63);
    assert_int_equal(cprog_reg(&p, 1, 2), 64 * 65 / 2);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    wsim_print_stats(p.sim, f);
    fclose(f);
    char want[200];
    snprintf(want, sizeof want, "bus cell 0 XRight: words 64, busy 128 (%.1f%%), blocked 0\n",
             100.0 * 128 / (double)wsim_cycles(p.sim));
    assert_non_null(strstr(text, want));
    assert_non_null(strstr(text, "channel cell 0 out XRight.0: words 64, busy 128, blocked 0, waited 0\n"));
    assert_null(strstr(text, "bus cell 1")); /* idle buses are not listed */
    free(text);
    cprog_free(&p);
}

/* A channel whose receiver does not read is blocked without credit; its clocks count.
 * Cell 1 idles until 59 and reads from 60: words 1..8 cross at 3, 5, ..., 17; word 9
 * is ready (the bus free again) from 19 and its credit comes back at 62 (the first
 * read at 60 + 2): 43 blocked clocks; then the reads keep up. */
static void test_blocked_statistics(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p,
                "        .model iwarp\n        .cells 0, 1\n        .text\n        .globl main\n"
                "main:   mv r1, 20\n"
                "        bnz cid, .Lr\n"
                ".Lw:    mv @xr, r1 | dbnz r1, .Lw\n"
                "        halt\n"
                ".Lr:    mv r9, 57\n"
                ".Ld:    dbnz r9, .Ld\n"
                ".Lx:    iadd r2, r2, @xl | dbnz r1, .Lx\n"
                "        halt\n",
                "linear", NULL);
    cprog_finish(&p, 1000);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    wsim_print_stats(p.sim, f);
    fclose(f);
    assert_non_null(strstr(text, "channel cell 0 out XRight.0: words 20, busy 40, blocked 43, waited 0\n"));
    free(text);
    cprog_free(&p);
}

/* Two pathways from cell 0 to cell 1 share its XRight bus (channels XRight.0 and .1).
 * With both busy, the round-robin scheduler alternates: at every clock the two have
 * carried the same number of words, to one. With only the first one writing, the
 * second open but idle, the first has the whole bus: a word every 2 clocks. */
static void check_sharing(int both)
{
    char src[1600];
    snprintf(src, sizeof src,
             "        .model iwarp\n        .cells 0, 1\n        .text\n        .globl main\n"
             "main:   bnz cid, .Lr\n"
             "        creq r1, 0, 0\n        nop\n        nop\n"
             "        creq r2, 0, 0\n        nop\n        nop\n"
             "        and r1, r1, 255 | and r2, r2, 255\n"
             "        mv %%go0, r1 | mv %%go1, r2\n"
             "        pbegin @g0, 1\n"
             "        pbegin @g1, 1\n"
             "        mv r3, 100\n"
             ".Lw:    mv @g0, r3 | %s | dbnz r3, .Lw\n"
             "        halt\n"
             ".Lr:    evwait r1\n"
             "        evwait r2\n"
             "        and r1, r1, 255 | and r2, r2, 255\n"
             "        mv %%gi0, r1 | mv %%gi1, r2\n"
             "        mv r3, 100\n"
             ".Lx:    iadd r4, r4, @g0 | %s | dbnz r3, .Lx\n"
             "        halt\n",
             both ? "mv @g1, r3" : "nop", both ? "iadd r5, r5, @g1" : "nop");
    /* "nop" is not an operation inside a bundle: drop it. */
    for (char *q; (q = strstr(src, " | nop")) != NULL;) memmove(q, q + 6, strlen(q + 6) + 1);
    cprog p;
    cprog_build(&p, src, "linear", NULL);
    uint64_t first = 0, last = 0, total = 0;
    while (wsim_status_of(p.sim) == WSIM_RUNNING) {
        uint64_t t = wsim_cycles(p.sim);
        if (wsim_step(p.sim) != WSIM_RUNNING) break;
        uint64_t a = wca_loc_words(p.agents, 0, 0), b = wca_loc_words(p.agents, 0, 1);
        if (both) assert_true(a + 1 >= b && b + 1 >= a);
        if (a + b > total) {
            if (a + b > 2 && !first) first = t; /* after the two begin markers */
            last = t;
            total = a + b;
        }
    }
    assert_int_equal(wsim_status_of(p.sim), WSIM_DONE);
    assert_int_equal(wca_loc_words(p.agents, 0, 0), 101);
    assert_int_equal(wca_loc_words(p.agents, 0, 1), both ? 101 : 1);
    /* Back to back on the bus: a word every 2 clocks, whoever's it is. */
    assert_int_equal(last - first, 2 * (both ? 199 : 99));
    assert_int_equal(cprog_reg(&p, 1, 4), 100 * 101 / 2);
    if (both) assert_int_equal(cprog_reg(&p, 1, 5), 100 * 101 / 2);
    cprog_free(&p);
}

static void test_two_channels_share_the_bus(void **state) { (void)state; check_sharing(1); }
static void test_one_channel_takes_the_bus(void **state) { (void)state; check_sharing(0); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generation_latencies),
        cmocka_unit_test(test_forwarding_and_corner_turn),
        cmocka_unit_test(test_join_and_joint_latencies),
        cmocka_unit_test(test_bus_rate_and_statistics),
        cmocka_unit_test(test_blocked_statistics),
        cmocka_unit_test(test_two_channels_share_the_bus),
        cmocka_unit_test(test_one_channel_takes_the_bus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
