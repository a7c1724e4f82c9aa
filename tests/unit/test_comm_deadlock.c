/* The exact deadlock report (docs/design.md, sections 1 and 7): when no cell can issue,
 * no agent can move anything and nothing is scheduled, the run stops at once and
 * says which cell waits on which channel, held by whom, with the source line of each
 * waiting instruction; the wait-for cycle comes first, and the same graph is written
 * for Graphviz. Programs are built by the real assembler. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "comm_harness.h"

static char *dot_of(const cprog *p)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(wsim_deadlock_dot(p->sim, f), 0);
    fclose(f);
    return text;
}

/* A ring of four cells (a 4x1 torus), each sending 40 words right before reading
 * one from the left: every queue on the ring fills (8 words beyond each credit-held
 * channel, 8 in each local one) and each cell waits for the next to read. A gate's
 * internal bus takes a word every 2 clocks (seed 000, sec. 4): each cell writes its
 * words at 1, 3, ..., the 16th at 31; at 33, when the bus is free again, the local
 * channel is full, and nothing is left to happen. */
static const char *ring =
    "        .model  iwarp\n"
    "        .cells  0, 3\n"
    "        .file   \"ring.s\"\n"
    "        .text\n"
    "        .globl  main\n"
    "main:   mv r1, 40\n"
    "        .loc 7\n"
    ".L:     mv @xr, r1 | dbnz r1, .L\n"
    "        .loc 9\n"
    "        mv r2, @xl\n"
    "        halt\n";

static void test_cycle_of_full_queues(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p, ring, "torus:4x1", NULL);
    assert_int_equal(wsim_run(p.sim, 100000), WSIM_DEADLOCK);
    assert_int_equal(wsim_cycles(p.sim), 33);
    assert_string_equal(wsim_message(p.sim),
                        "wait-for cycle: cell 0 -> cell 1 -> cell 2 -> cell 3 -> cell 0\n"
                        "cell 0 (cid 0): pc 1 (ring.s:7): waits to write @xr to local 14 (full); cell 1 reads it through @xl "
                        "(cell 0 local 14 > cell 0 out XRight.0 > cell 1 in XLeft.0)\n"
                        "cell 1 (cid 1): pc 1 (ring.s:7): waits to write @xr to local 14 (full); cell 2 reads it through @xl "
                        "(cell 1 local 14 > cell 1 out XRight.0 > cell 2 in XLeft.0)\n"
                        "cell 2 (cid 2): pc 1 (ring.s:7): waits to write @xr to local 14 (full); cell 3 reads it through @xl "
                        "(cell 2 local 14 > cell 2 out XRight.0 > cell 3 in XLeft.0)\n"
                        "cell 3 (cid 3): pc 1 (ring.s:7): waits to write @xr to local 14 (full); cell 0 reads it through @xl "
                        "(cell 3 local 14 > cell 3 out XRight.0 > cell 0 in XLeft.0)");
    char *dot = dot_of(&p);
    assert_non_null(strstr(dot, "digraph deadlock {\n  label=\"deadlock at clock 33 (red: the wait-for cycle)\";\n"));
    assert_non_null(strstr(dot, "  n3 [label=\"cell 3 (cid 3): pc 1 (ring.s:7)\\nwaits to write @xr to local 14 (full); "
                                "cell 0 reads it through @xl (cell 3 local 14 > cell 3 out XRight.0 > cell 0 in XLeft.0)\", color=red, "
                                "penwidth=2];\n"));
    assert_non_null(strstr(dot, "  n3 -> n0 [label=\"reads @xl\", color=red, penwidth=2];\n"));
    assert_non_null(strstr(dot, "\n}\n"));
    free(dot);
    cprog_free(&p);
}

/* A pool of channels in the cycle: with the systolic channels on channel 0 of each bus,
 * XRight has one reservation channel left (default allocation 2,1). Cell 0's pathway to
 * cell 2 takes it on cells 0 and 1; then cell 0 waits for a word from cell 1, which
 * cell 1 sends only after its own channel request on XRight, blocked by that pathway. */
static const char *pool_cycle =
    "        .model  iwarp\n"
    "        .cells  0, 2\n"
    "        .file   \"pool.s\"\n"
    "        .text\n"
    "        .globl  main\n"
    "main:   ieq r8, cid, 1\n"
    "        bnz r8, .Lone\n"
    "        bnz cid, .Lend\n"
    "        creq r1, 0, 0\n"
    "        nop\n"
    "        nop\n"
    "        and r2, r1, 255\n"
    "        mv %go0, r2\n"
    "        pbegin @g0, 2\n"
    "        .loc 10\n"
    "        mv r3, @xr\n"
    "        halt\n"
    ".Lone:  mv r20, 20\n"
    ".Lw:    dbnz r20, .Lw\n"
    "        .loc 20\n"
    "        creq r1, 0, 0\n"
    "        mv @xl, 5\n"
    ".Lend:  halt\n";

static void test_cycle_through_a_channel_pool(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p, pool_cycle, "linear", NULL);
    assert_int_equal(wsim_run(p.sim, 100000), WSIM_DEADLOCK);
    assert_string_equal(wsim_message(p.sim),
                        "wait-for cycle: cell 0 -> cell 1 -> cell 1 out XRight.1 -> cell 0\n"
                        "cell 0 (cid 0): pc 9 (pool.s:10): waits to read @xr from in XRight.0 (empty); "
                        "cell 1 writes it through @xl (cell 0 in XRight.0 < cell 1 out XLeft.0 < cell 1 local 12)\n"
                        "cell 1 (cid 1): pc 13 (pool.s:20): creq waits for a free reservation channel on bus XRight; "
                        "its channels are held: out XRight.1 by the pathway of cell 0\n"
                        "cell 1 (cid 1) out XRight.1: held by the pathway of cell 0; cell 0 has not sent its end marker");
    char *dot = dot_of(&p);
    assert_non_null(strstr(dot, "  n1 -> n3 [label=\"reservation channel out XRight.1 of cell 1\", color=red, "
                                "penwidth=2];\n"));
    assert_non_null(strstr(dot, "  n3 -> n0 [label=\"must send the pathway's end marker\", color=red, "
                                "penwidth=2];\n"));
    free(dot);
    cprog_free(&p);
}

/* A begin marker in the cycle: cell 0 opens pathway B (open pool) to cell 1 and
 * pathway A (reservation) to cell 2, then writes 20 words on A before one on B. Cell
 * 1's own pathway to cell 2 holds its only XRight reservation channel (allocation 1,1),
 * so A's begin marker waits in cell 1's agent, A's queues fill and cell 0 blocks; cell
 * 1 waits for B's word. The cycle runs through cell 1's agent. */
static const char *marker_cycle =
    "        .model  iwarp\n"
    "        .cells  0, 2\n"
    "        .file   \"marker.s\"\n"
    "        .text\n"
    "        .globl  main\n"
    "main:   ieq r8, cid, 1\n"
    "        bnz r8, .Lone\n"
    "        bnz cid, .Lend\n"
    "        mv r20, 10\n"
    ".Lw:    dbnz r20, .Lw\n"
    "        creq r1, 0, 0\n"
    "        nop\n"
    "        nop\n"
    "        creq r2, 0, 1\n"
    "        nop\n"
    "        nop\n"
    "        and r1, r1, 255 | and r2, r2, 255\n"
    "        mv %go0, r1 | mv %go1, r2\n"
    "        pbegin @g1, 1\n"
    "        pbegin @g0, 2\n"
    "        mv r3, 20\n"
    "        .loc 30\n"
    ".La:    mv @g0, r3 | dbnz r3, .La\n"
    "        mv @g1, 7\n"
    "        halt\n"
    ".Lone:  creq r1, 0, 0\n"
    "        nop\n"
    "        nop\n"
    "        and r2, r1, 255\n"
    "        mv %go0, r2\n"
    "        pbegin @g0, 2\n"
    "        evwait r4\n"
    "        and r5, r4, 255\n"
    "        mv %gi0, r5\n"
    "        .loc 40\n"
    "        mv r6, @g0\n"
    ".Lend:  halt\n";

static void test_cycle_through_a_waiting_begin_marker(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p, marker_cycle, "linear", "1,1");
    assert_int_equal(wsim_run(p.sim, 100000), WSIM_DEADLOCK);
    assert_string_equal(wsim_message(p.sim),
                        "wait-for cycle: cell 0 -> agent of cell 1 -> cell 1 out XRight.0 -> cell 1 -> cell 0\n"
                        "cell 0 (cid 0): pc 16 (marker.s:30): waits to write @g0 to local 8 (full); its pathway's "
                        "begin marker waits in cell 1 (cell 0 local 8 > cell 0 out XRight.0 > cell 1 in XLeft.0)\n"
                        "agent of cell 1 (cid 1): holds a pathway begin marker at the head of in XLeft.0, waiting for a free "
                        "reservation channel on XRight; its channels are held: out XRight.0 by the pathway of cell 1\n"
                        "cell 1 (cid 1) out XRight.0: held by the pathway of cell 1; cell 1 has not sent its end marker\n"
                        "cell 1 (cid 1): pc 28 (marker.s:40): waits to read @g0 from in XLeft.1 (empty); cell 0 "
                        "writes it through @g1 (cell 1 in XLeft.1 < cell 0 out XRight.1 < cell 0 local 9)");
    cprog_free(&p);
}

/* A held channel whose end marker is sent: cell 0 sends 12 words and the end marker
 * on a pathway to cell 1, then asks for another channel of that pool, which the
 * pathway still holds: its end marker waits behind words at cell 1, which has bound
 * nothing to the pathway's end and waits for an event that only cell 0 could send. */
static const char *end_behind =
    "        .model  iwarp\n"
    "        .cells  0, 1\n"
    "        .file   \"end.s\"\n"
    "        .text\n"
    "        .globl  main\n"
    "main:   bnz cid, .Lone\n"
    "        creq r1, 0, 0\n"
    "        nop\n"
    "        nop\n"
    "        and r2, r1, 255\n"
    "        mv %go0, r2\n"
    "        pbegin @g0, 1\n"
    "        mv r3, 12\n"
    ".La:    mv @g0, r3 | dbnz r3, .La\n"
    "        pend @g0, 0\n"
    "        .loc 10\n"
    "        creq r4, 0, 0\n"
    "        halt\n"
    ".Lone:  evwait r4\n"
    "        .loc 20\n"
    "        evwait r4\n"
    "        halt\n";

static void test_cycle_through_an_end_marker_behind_words(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p, end_behind, "linear", "1,1");
    assert_int_equal(wsim_run(p.sim, 100000), WSIM_DEADLOCK);
    assert_string_equal(wsim_message(p.sim),
                        "wait-for cycle: cell 0 -> cell 0 out XRight.0 -> cell 1 -> cell 0\n"
                        "cell 0 (cid 0): pc 10 (end.s:10): creq waits for a free reservation channel on bus XRight; "
                        "its channels are held: out XRight.0 by the pathway of cell 0\n"
                        "cell 0 (cid 0) out XRight.0: held by the pathway of cell 0; its end marker waits behind words "
                        "that do not move; cell 1 has bound no gate or spool to the pathway's end (cell 0 local 8 > "
                        "cell 0 out XRight.0 > cell 1 in XLeft.0)\n"
                        "cell 1 (cid 1): pc 13 (end.s:20): evwait waits for an event (none waiting); nothing is on its "
                        "way to it: only cell 0, still running, may send one");
    char *dot = dot_of(&p);
    assert_non_null(strstr(dot, "  n2 -> n1 [label=\"must bind a gate\", color=red, penwidth=2];\n"));
    assert_non_null(strstr(dot, "  n1 -> n0 [label=\"may send it an event\", color=red, penwidth=2];\n"));
    free(dot);
    cprog_free(&p);
}

/* An event mask that reports nothing: the wait is a chain's end, no cell can end it. */
static void test_evwait_with_every_event_masked(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p,
                "        .model  iwarp\n        .cells  0, 1\n        .file   \"mask.s\"\n        .text\n"
                "        .globl  main\nmain:   mv %evmask, 0\n        .loc 5\n        evwait r4\n        halt\n",
                "linear", NULL);
    assert_int_equal(wsim_run(p.sim, 100000), WSIM_DEADLOCK);
    assert_string_equal(wsim_message(p.sim),
                        "no wait-for cycle: every wait ends at a halted cell, the host or nothing\n"
                        "cell 0 (cid 0): pc 1 (mask.s:5): evwait waits for an event (none waiting); its %evmask "
                        "reports no kind of event, so none can come\n"
                        "cell 1 (cid 1): pc 1 (mask.s:5): evwait waits for an event (none waiting); its %evmask "
                        "reports no kind of event, so none can come");
    cprog_free(&p);
}

/* A marker behind words the waiting cell must read itself: cell 0 sends three words
 * and a message begin marker on a pathway to cell 1, which binds @g0 to it and waits
 * for the marker's event without reading the words ahead of it. */
static void test_event_behind_unread_words(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p,
                "        .model  iwarp\n        .cells  0, 1\n        .file   \"self.s\"\n        .text\n"
                "        .globl  main\nmain:   bnz cid, .Lone\n"
                "        creq r1, 0, 1\n        nop\n        nop\n        and r2, r1, 255\n"
                "        mv %go0, r2\n        pbegin @g0, 32769\n        mv @g0, 1\n        mv @g0, 2\n"
                "        mv @g0, 3\n        mbegin @g0, 4\n        halt\n"
                ".Lone:  evwait r4\n        and r5, r4, 255\n        mv %gi0, r5\n        .loc 7\n"
                "        evwait r4\n        halt\n",
                "linear", NULL);
    assert_int_equal(wsim_run(p.sim, 100000), WSIM_DEADLOCK);
    assert_string_equal(wsim_message(p.sim),
                        "wait-for cycle: cell 1 -> cell 1\n"
                        "cell 1 (cid 1): pc 15 (self.s:7): evwait waits for an event (none waiting); a marker in in "
                        "XLeft.2 waits behind 3 words it must read through @g0 first");
    cprog_free(&p);
}

/* A request for a channel when every local channel is taken by the cell's own
 * pathways: 8 requests take the 8 local channels of the default allocation, the 9th
 * waits for one of them, which only the cell itself can end. */
static void test_request_waiting_for_a_local_channel(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p,
                "        .model  iwarp\n        .cells  0, 1\n        .file   \"local.s\"\n        .text\n"
                "        .globl  main\nmain:   bnz cid, .Lend\n"
                "        creq r1, 0, 0\n        creq r1, 0, 0\n        creq r1, 0, 1\n"
                "        creq r1, 1, 0\n        creq r1, 1, 0\n        creq r1, 1, 1\n"
                "        creq r1, 2, 0\n        creq r1, 2, 0\n"
                "        .loc 9\n        creq r1, 2, 1\n.Lend:  halt\n",
                "torus:2x1", NULL);
    assert_int_equal(wsim_run(p.sim, 100000), WSIM_DEADLOCK);
    assert_string_equal(wsim_message(p.sim),
                        "wait-for cycle: cell 0 -> cell 0\n"
                        "cell 0 (cid 0): pc 9 (local.s:9): creq waits for a free local channel; its 8 local channels "
                        "are taken: 8 by pathways it opened");
    cprog_free(&p);
}

/* Warp has no agents; its report is built the same way from the neighbour queues.
 * Both cells read from the right first: cell 1's right is the host, never fed, so the
 * waits form a chain, not a cycle. */
static void test_warp_report_names_the_neighbours(void **state)
{
    (void)state;
    cprog p;
    memset(&p, 0, sizeof p);
    const char *src = "        .model warp\n        .cells 0, 1\n        .file \"w.s\"\n        .text\n"
                      "        .globl main\nmain:\n        .loc 3\n        mv r1, @xr\n"
                      "        .loc 4\n        mv @xl, r1\n        halt\n";
    char dir[] = "/tmp/warp-comm-XXXXXX", obj[64], img[64], err[256];
    assert_non_null(mkdtemp(dir));
    snprintf(obj, sizeof obj, "%s/w.o", dir);
    snprintf(img, sizeof img, "%s/w.img", dir);
    ws_diag d;
    ws_diag_init(&d, "w.s", src, strlen(src));
    was_options opts = {.model = wt_model_get(WT_MODEL_WARP)};
    assert_int_equal(was_assemble("w.s", src, strlen(src), &opts, obj, &d), 0);
    const char *inputs[] = {obj};
    wld_options lopts = {.entry = "main"};
    assert_int_equal(wld_link(inputs, 1, img, &lopts), 0);
    wrt_image *im = wrt_image_load(img, err, sizeof err);
    assert_non_null(im);
    unlink(obj);
    unlink(img);
    rmdir(dir);
    wsim_program prog;
    wrt_sim_program(im, &prog);
    wsim *s = wsim_new(&prog, err, sizeof err);
    assert_non_null(s);
    assert_null(wsim_comm(s));
    assert_int_equal(wsim_run(s, 1000), WSIM_DEADLOCK);
    assert_string_equal(wsim_message(s),
                        "no wait-for cycle: every wait ends at a halted cell, the host or nothing\n"
                        "cell 0 (cid 0): pc 0 (w.s:3): waits to read @xr (its queue is empty); cell 1 writes it "
                        "through @xl\n"
                        "cell 1 (cid 1): pc 0 (w.s:3): waits to read @xr (its queue is empty); only the host feeds it, "
                        "through this cell's @fxr");
    wsim_free(s);
    wrt_image_free(im);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cycle_of_full_queues),
        cmocka_unit_test(test_cycle_through_a_channel_pool),
        cmocka_unit_test(test_cycle_through_a_waiting_begin_marker),
        cmocka_unit_test(test_cycle_through_an_end_marker_behind_words),
        cmocka_unit_test(test_evwait_with_every_event_masked),
        cmocka_unit_test(test_event_behind_unread_words),
        cmocka_unit_test(test_request_waiting_for_a_local_channel),
        cmocka_unit_test(test_warp_report_names_the_neighbours),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
