/* Pathways through the communication agents (seed 000, sections 6 and 7.3), with
 * programs built by the real assembler: street-sign routing across a corner on the
 * 8x8 torus and the teardown behind the end marker, pool exhaustion that blocks a
 * begin marker and then lets it go, joint cells with a default outgoing pathway,
 * midstream redirection (GetRow and PutRow of sec. 3.1.2), the events markers raise.
 *
 * Routing words (docs/design.md, section 7): the cell address in bits 0..11, the
 * action in bits 12..14 (0 arrive, 1 + bus: turn toward that bus), the pool in bit 15.
 * Event words from evwait: kind << 8 | channel, kinds the marker tags (1 message
 * begin, 2 message end, 3 application, 8 pathway begin, 9 pathway end, 7 unroutable). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "comm_harness.h"

enum { EV_MB = 1, EV_ME = 2, EV_AM = 3, EV_ROUTE = 7, EV_PB = 8, EV_PE = 9 };

/* Cell 0 at (0,0) opens a pathway to cell 19 at (3,2): straight on along X to cell 3,
 * where the first routing word (cell 3, turn toward YUp: action 2) matches and the
 * second (cell 19, arrive) becomes the marker; up through cell 11 to cell 19. Two
 * words follow, then the end marker, which frees every channel behind it. */
static const char *torus_corner =
    "        .model  iwarp\n"
    "        .cells  0, 63\n"
    "        .file   \"corner.s\"\n"
    "        .text\n"
    "        .globl  main\n"
    "main:   bz cid, .Lsrc\n"
    "        ieq r9, cid, 19\n"
    "        bnz r9, .Ldst\n"
    "        halt\n"
    ".Lsrc:  creq r1, 0, 0\n"
    "        nop\n"
    "        nop\n"
    "        and r2, r1, 255\n"
    "        mv %go0, r2\n"
    "        pbegin @g0, 0x2003\n"
    "        mv @g0, 19\n"
    "        mv @g0, 100\n"
    "        mv @g0, 200\n"
    "        pend @g0, 0\n"
    "        halt\n"
    ".Ldst:  evwait r1\n"
    "        and r2, r1, 255\n"
    "        mv %gi0, r2 | mv r7, %evdata\n"
    "        mv r3, @g0\n"
    "        mv r4, @g0\n"
    "        evwait r5\n"
    "        halt\n";

static void test_pathway_across_a_corner_on_the_torus(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p, torus_corner, "torus:8x8", NULL);
    cprog_finish(&p, 10000);
    /* Cell 19 heard the pathway arrive on its YDown bus, channel 0 (number 9). */
    assert_int_equal(cprog_reg(&p, 19, 1), EV_PB << 8 | 9);
    assert_int_equal(cprog_reg(&p, 19, 7), 19);
    assert_int_equal(cprog_reg(&p, 19, 3), 100);
    assert_int_equal(cprog_reg(&p, 19, 4), 200);
    assert_int_equal(cprog_reg(&p, 19, 5), EV_PE << 8 | 9);
    /* The words went the street-sign way: X to the corner, then Y. */
    assert_int_equal(wca_bus_words(p.agents, 0, WCA_XRIGHT), 5);
    assert_int_equal(wca_bus_words(p.agents, 1, WCA_XRIGHT), 5);
    assert_int_equal(wca_bus_words(p.agents, 2, WCA_XRIGHT), 5);
    assert_int_equal(wca_bus_words(p.agents, 3, WCA_XRIGHT), 0);
    assert_int_equal(wca_bus_words(p.agents, 3, WCA_YUP), 4);
    assert_int_equal(wca_bus_words(p.agents, 11, WCA_YUP), 4);
    assert_int_equal(wca_bus_words(p.agents, 19, WCA_YUP), 0);
    /* Torn down: every channel it held is free again. */
    assert_true(wca_loc_free(p.agents, 0, 0));
    assert_true(wca_loc_free(p.agents, 1, 0));
    assert_true(wca_loc_free(p.agents, 2, 0));
    assert_true(wca_loc_free(p.agents, 3, 3));
    assert_true(wca_loc_free(p.agents, 11, 3));
    assert_int_equal(wca_lic_link(p.agents, 3, 6), -1);
    assert_int_equal(wca_lic_link(p.agents, 11, 9), -1);
    cprog_free(&p);
}

/* With one reservation channel a bus, cell 1's pathway to cell 3 holds cell 1's only
 * XRight reservation channel; cell 0's pathway to cell 2, opened a little later,
 * reaches cell 1 and waits there, its begin marker blocked, until cell 1's end marker
 * has crossed; then it goes on. Cells 2 and 3 each read two words of their pathway. */
static const char *pool_exhaustion =
    "        .model  iwarp\n"
    "        .cells  0, 3\n"
    "        .text\n"
    "        .globl  main\n"
    "main:   ieq r8, cid, 1\n"
    "        ilt r9, cid, 2\n"
    "        bnz r8, .Lone\n"
    "        bz r9, .Lrecv\n"
    "        mv r20, 6\n"                 /* cell 0: starts a little after cell 1 */
    ".Lwait: dbnz r20, .Lwait\n"
    "        creq r1, 0, 0\n"
    "        nop\n"
    "        nop\n"
    "        and r2, r1, 255\n"
    "        mv %go0, r2\n"
    "        pbegin @g0, 2\n"
    "        mv @g0, 1\n"
    "        mv @g0, 2\n"
    "        pend @g0, 0\n"
    "        halt\n"
    ".Lone:  creq r1, 0, 0\n"             /* cell 1: to cell 3, held for a while */
    "        nop\n"
    "        nop\n"
    "        and r2, r1, 255\n"
    "        mv %go0, r2\n"
    "        pbegin @g0, 3\n"
    "        mv @g0, 3\n"
    "        mv @g0, 4\n"
    "        mv r20, 60\n"
    ".Lhold: dbnz r20, .Lhold\n"
    "        pend @g0, 0\n"
    "        halt\n"
    ".Lrecv: evwait r1\n"
    "        and r2, r1, 255\n"
    "        mv %gi0, r2\n"
    "        mv r3, @g0\n"
    "        mv r4, @g0\n"
    "        evwait r5\n"
    "        halt\n";

static void test_pool_exhaustion_blocks_then_proceeds(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p, pool_exhaustion, "linear", "1,1");
    int blocked_seen = 0;
    uint64_t blocked_at = 0, went_at = 0;
    for (int t = 0; t < 200 && wsim_status_of(p.sim) == WSIM_RUNNING; t++) {
        if (wsim_step(p.sim) != WSIM_RUNNING) break;
        wca_trace tr;
        int waiting = wca_routing_wait(p.agents, 1, 0, &tr);
        if (waiting && !blocked_seen) {
            blocked_seen = 1;
            blocked_at = wsim_cycles(p.sim);
            /* It waits for a reservation channel on XRight, which cell 1 holds. */
            assert_int_equal(tr.bus, WCA_XRIGHT);
            assert_int_equal(tr.pool, 0);
            assert_int_equal(tr.lic, 4); /* in XLeft.0: 2 channels a bus */
            int holders[4];
            assert_int_equal(wca_pool_holders(p.agents, 1, WCA_XRIGHT, 0, holders, 4), 1);
            assert_int_equal(holders[0], 1);
        }
        if (blocked_seen && !waiting && !went_at) went_at = wsim_cycles(p.sim);
    }
    assert_true(blocked_seen);
    assert_true(went_at > blocked_at + 40);
    assert_int_equal(wsim_status_of(p.sim), WSIM_DONE);
    assert_int_equal(cprog_reg(&p, 2, 3), 1);
    assert_int_equal(cprog_reg(&p, 2, 4), 2);
    assert_int_equal(cprog_reg(&p, 2, 5), EV_PE << 8 | 4);
    assert_int_equal(cprog_reg(&p, 3, 3), 3);
    assert_int_equal(cprog_reg(&p, 3, 4), 4);
    /* Both pathways took cell 1's XRight.0 in turn: 4 + 4 words. */
    assert_int_equal(wca_loc_words(p.agents, 1, 0), 8);
    /* A creq blocks the same way while a pool is empty. */
    cprog_free(&p);
}

/* A joint cell (sec. 6.1.6): cell 1 joins the pathway from cell 0 to its own pathway
 * to cell 3. Messages whose header (a cell address) does not match cell 1's CAM follow
 * the default pathway to cell 3; the one for cell 1 is split off, read by the program,
 * and the link restored. */
static const char *joint =
    "        .model  iwarp\n"
    "        .cells  0, 3\n"
    "        .text\n"
    "        .globl  main\n"
    "main:   ieq r8, cid, 1\n"
    "        ieq r9, cid, 3\n"
    "        bnz r8, .Ljoint\n"
    "        bnz r9, .Lsink\n"
    "        bnz cid, .Lend\n"
    "        creq r1, 0, 0\n"             /* cell 0: to cell 1, three messages */
    "        nop\n"
    "        nop\n"
    "        and r2, r1, 255\n"
    "        mv %go0, r2\n"
    "        pbegin @g0, 1\n"
    "        mv r20, 40\n"               /* until cell 1 has joined */
    ".Lslow: dbnz r20, .Lslow\n"
    "        mbegin @g0, 3\n"
    "        mv @g0, 11\n"
    "        mv @g0, 12\n"
    "        mend @g0, 0\n"
    "        mbegin @g0, 1\n"
    "        mv @g0, 21\n"
    "        mv @g0, 22\n"
    "        mend @g0, 0\n"
    "        mbegin @g0, 3\n"
    "        mv @g0, 31\n"
    "        mend @g0, 0\n"
    ".Lend:  halt\n"
    ".Ljoint: creq r1, 0, 0\n"            /* cell 1: its pathway to cell 3 */
    "        nop\n"
    "        nop\n"
    "        and r2, r1, 255 | shr r3, r1, 8\n"
    "        mv %go0, r2\n"
    "        pbegin @g0, 3\n"
    "        evwait r4\n"                 /* the pathway from cell 0 */
    "        and r5, r4, 255\n"
    "        join r5, r3\n"
    "        evwait r6\n"                 /* a message for this cell */
    "        mv %gi0, r5 | mv r7, %evdata\n"
    "        mv r10, @g0\n"
    "        mv r11, @g0\n"
    "        mv r12, @g0\n"
    "        mv r13, @g0\n"
    "        mv r14, %gt0\n"
    "        join r5, r3\n"
    "        halt\n"
    ".Lsink: evwait r1\n"                 /* cell 3 */
    "        and r2, r1, 255\n"
    "        mv %gi0, r2\n"
    "        mv r10, @g0\n"
    "        mv r11, @g0 | mv r20, %gt0\n"  /* %gt0: the tag of r10's word */
    "        mv r12, @g0\n"
    "        mv r13, @g0\n"
    "        mv r14, @g0 | mv r21, %gt0\n"  /* r13's */
    "        mv r15, @g0\n"
    "        mv r16, @g0\n"
    "        mv r22, %gt0\n"
    "        halt\n";

static void test_joint_cell_forwards_and_splits(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p, joint, "linear", NULL);
    cprog_finish(&p, 10000);
    assert_int_equal(cprog_reg(&p, 1, 4), EV_PB << 8 | 6);
    assert_int_equal(cprog_reg(&p, 1, 6), EV_MB << 8 | 6);
    assert_int_equal(cprog_reg(&p, 1, 7), 1);
    assert_int_equal(cprog_reg(&p, 1, 10), 1);   /* the header */
    assert_int_equal(cprog_reg(&p, 1, 11), 21);
    assert_int_equal(cprog_reg(&p, 1, 12), 22);
    assert_int_equal(cprog_reg(&p, 1, 14), WT_MARK_MEND);
    static const uint32_t at3[] = {3, 11, 12, 0, 3, 31, 0};
    for (int i = 0; i < 7; i++) assert_int_equal(cprog_reg(&p, 3, 10 + (unsigned)i), at3[i]);
    assert_int_equal(cprog_reg(&p, 3, 20), WT_MARK_MBEGIN);
    assert_int_equal(cprog_reg(&p, 3, 21), WT_MARK_MEND);
    assert_int_equal(cprog_reg(&p, 3, 22), WT_MARK_MEND);
    cprog_free(&p);
}

/* GetRow (sec. 3.1.2, figure 3a): cell 0 sends one message of a header (the words
 * each cell takes) and six words; cells 1 and 2 each read the header and their two
 * words, start a message of their own with the same header and redirect the rest of
 * the incoming one after it; cell 3 takes the last two words and the end marker. */
static const char *getrow =
    "        .model  iwarp\n"
    "        .cells  0, 3\n"
    "        .text\n"
    "        .globl  main\n"
    "main:   ieq r8, cid, 3\n"
    "        iadd r11, cid, 1\n"
    "        bnz r8, .Lin\n"
    "        creq r10, 0, 0\n"            /* cells 0..2: a pathway to the right */
    "        nop\n"
    "        nop\n"
    "        and r2, r10, 255 | shr r3, r10, 8\n"
    "        mv %go0, r2\n"
    "        pbegin @g0, r11\n"
    "        bnz cid, .Lin\n"
    "        mbegin @g0, 2\n"             /* cell 0: the whole row */
    "        mv @g0, 1\n"
    "        mv @g0, 2\n"
    "        mv @g0, 3\n"
    "        mv @g0, 4\n"
    "        mv @g0, 5\n"
    "        mv @g0, 6\n"
    "        mend @g0, 0\n"
    "        halt\n"
    ".Lin:   evwait r1\n"                 /* the pathway from the left */
    "        and r5, r1, 255\n"
    "        mv %gi0, r5\n"
    "        evwait r12\n"                /* its message begins */
    "        mv r4, @g0\n"                /* the header */
    "        mv r6, @g0\n"
    "        mv r7, @g0\n"
    "        bnz r8, .Llast\n"
    "        mbegin @g0, r4\n"            /* pass the rest on, behind a header */
    "        join r5, r3\n"
    "        halt\n"
    ".Llast: mv r9, @g0\n"
    "        mv r13, %gt0\n"
    "        halt\n";

static void test_getrow_redirects_the_rest(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p, getrow, "linear", NULL);
    cprog_finish(&p, 10000);
    for (int k = 1; k <= 3; k++) {
        assert_int_equal(cprog_reg(&p, k, 12), EV_MB << 8 | 6);
        assert_int_equal(cprog_reg(&p, k, 4), 2);
        assert_int_equal(cprog_reg(&p, k, 6), 2u * (unsigned)k - 1);
        assert_int_equal(cprog_reg(&p, k, 7), 2u * (unsigned)k);
    }
    assert_int_equal(cprog_reg(&p, 3, 13), WT_MARK_MEND);
    /* Cell 1 carried its header and the four words for cells 2 and 3, and the end. */
    assert_int_equal(wca_loc_words(p.agents, 1, 0), 1 + 1 + 4 + 1);
    cprog_free(&p);
}

/* PutRow (figure 3b): each cell sends a message of two words to the right without
 * closing it, peels the header off the incoming message and redirects the rest of it
 * behind its own; cell 0's message closes the whole. Cell 3 reads one message: cell
 * 2's header, then 2's, 1's and 0's words, and the end marker. */
static const char *putrow =
    "        .model  iwarp\n"
    "        .cells  0, 3\n"
    "        .text\n"
    "        .globl  main\n"
    "main:   ieq r8, cid, 3\n"
    "        iadd r11, cid, 1\n"
    "        imul r12, cid, 10\n"
    "        bnz r8, .Lsink\n"
    "        creq r10, 0, 0\n"
    "        nop\n"
    "        nop\n"
    "        and r2, r10, 255 | shr r3, r10, 8\n"
    "        mv %go0, r2 | iadd r13, r12, 1\n"
    "        pbegin @g0, r11 | iadd r14, r12, 2\n"
    "        mbegin @g0, cid\n"
    "        mv @g0, r13\n"
    "        mv @g0, r14\n"
    "        bnz cid, .Lpeel\n"
    "        mend @g0, 0\n"               /* cell 0: the end of the whole */
    "        halt\n"
    ".Lpeel: evwait r1\n"
    "        and r5, r1, 255\n"
    "        mv %gi0, r5\n"
    "        evwait r6\n"                 /* the incoming message */
    "        mv r4, @g0\n"                /* its header, peeled off */
    "        join r5, r3\n"
    "        halt\n"
    ".Lsink: evwait r1\n"
    "        and r5, r1, 255\n"
    "        mv %gi0, r5\n"
    "        mv r20, @g0\n"
    "        mv r21, @g0\n"
    "        mv r22, @g0\n"
    "        mv r23, @g0\n"
    "        mv r24, @g0\n"
    "        mv r25, @g0\n"
    "        mv r26, @g0\n"
    "        mv r27, @g0\n"
    "        mv r28, %gt0\n"
    "        halt\n";

static void test_putrow_concatenates(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p, putrow, "linear", NULL);
    cprog_finish(&p, 10000);
    static const uint32_t want[] = {2, 21, 22, 11, 12, 1, 2, 0};
    for (int i = 0; i < 8; i++) assert_int_equal(cprog_reg(&p, 3, 20 + (unsigned)i), want[i]);
    assert_int_equal(cprog_reg(&p, 3, 28), WT_MARK_MEND);
    assert_int_equal(cprog_reg(&p, 1, 4), 0); /* cell 1 peeled cell 0's header */
    assert_int_equal(cprog_reg(&p, 2, 4), 1);
    cprog_free(&p);
}

/* A begin marker that reaches the end of a linear array unmatched is reported there
 * (an event of kind 7 carrying the marker) and the pathway is dropped up to its end
 * marker; the channels behind it are freed as usual. A masked kind is not reported. */
static void test_unroutable_pathway_is_reported(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p,
                "        .model iwarp\n        .cells 0, 1\n        .text\n        .globl main\n"
                "main:   bnz cid, .Lend\n"
                "        creq r1, 0, 0\n        nop\n        nop\n"
                "        and r2, r1, 255\n"
                "        mv %go0, r2\n"
                "        pbegin @g0, 7\n"
                "        mv @g0, 1\n"
                "        amark @g0, 2\n"
                "        pend @g0, 0\n"
                "        halt\n"
                ".Lend:  evwait r1\n"
                "        mv r2, %evdata\n"
                "        mv r3, %evst\n"
                "        halt\n",
                "linear", NULL);
    cprog_finish(&p, 1000);
    assert_int_equal(cprog_reg(&p, 1, 1), EV_ROUTE << 8 | 6);
    assert_int_equal(cprog_reg(&p, 1, 2), 7);
    assert_int_equal(cprog_reg(&p, 1, 3), 0); /* the dropped application marker raised nothing */
    assert_true(wca_loc_free(p.agents, 0, 0));
    uint32_t w[8];
    assert_int_equal(wca_lic_words(p.agents, 1, 6, w, NULL, 8), 0);
    cprog_free(&p);
}

/* Events wait in a FIFO of 16 (sec. 7.3): the 17th is lost and %evst says so until
 * written; a kind cleared from %evmask raises nothing. Seventeen application markers
 * go through a channel looped back to the cell itself. */
static void test_event_fifo_and_mask(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p,
                "        .model iwarp\n        .cells 0, 0\n        .text\n        .globl main\n"
                "main:   mv %go0, 12 | mv %gi0, 12\n"
                "        mv r1, 17\n"
                ".L:     amark @g0, r1\n"
                "        mv r2, @g0 | dbnz r1, .L\n"
                "        mv r3, %evst\n"
                "        mv %evst, 0\n"
                "        mv %evmask, 0\n"
                "        amark @g0, 5\n"
                "        mv r2, @g0\n"
                "        mv r4, %evst\n"
                "        evwait r5\n"
                "        mv r6, %evdata\n"
                "        halt\n",
                NULL, NULL);
    cprog_finish(&p, 1000);
    assert_int_equal(cprog_reg(&p, 0, 3), 16u | 1u << 31);
    assert_int_equal(cprog_reg(&p, 0, 4), 16);
    assert_int_equal(cprog_reg(&p, 0, 5), EV_AM << 8 | 12);
    assert_int_equal(cprog_reg(&p, 0, 6), 17);
    assert_int_equal(cprog_reg(&p, 0, 2), 5);
    cprog_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pathway_across_a_corner_on_the_torus),
        cmocka_unit_test(test_pool_exhaustion_blocks_then_proceeds),
        cmocka_unit_test(test_joint_cell_forwards_and_splits),
        cmocka_unit_test(test_getrow_redirects_the_rest),
        cmocka_unit_test(test_putrow_concatenates),
        cmocka_unit_test(test_unroutable_pathway_is_reported),
        cmocka_unit_test(test_event_fifo_and_mask),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
