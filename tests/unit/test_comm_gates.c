/* iWarp's gates through the communication agent, with programs built by the real
 * assembler and linker: @g0 and @g1 bound to channels under program control
 * (%gi0/%go0), blocking on empty and full, the tag register, the gate-operation rule
 * (seed 000, sec. 7.1), and the direction gates of W2 programs carried by the buses.
 * Clocks are worked out beside each program. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "comm_harness.h"

/* Cell 0 asks for a channel on XRight (creq at 1, its result at 4), binds @g0 to the
 * local channel it got (the write lands at 6) and sends 11 at 6 and 22 at 7: they
 * land at 7 and 8 and cross at 7 and 9 (a word every 2 clocks), arriving at 9 and
 * 11 on cell 1's channel in XLeft.0, number 6. Cell 1 bound @g0 to it at 1 (landing
 * at 2) and blocks from 2 until 9, then at 10; it reads its gate registers at 12 and
 * halts at 13 (the dequeue signal of 11 reaches cell 0 then): the run ends at 14. */
static const char *send_receive =
    "        .model  iwarp\n"
    "        .cells  0, 1\n"
    "        .file   \"gates.s\"\n"
    "        .text\n"
    "        .globl  main\n"
    "main:   bnz cid, .Lrecv\n"
    "        creq r1, 0, 0\n"
    "        nop\n"
    "        nop\n"
    "        and r2, r1, 255\n"
    "        mv %go0, r2\n"
    "        mv @g0, 11\n"
    "        mv @g0, 22\n"
    "        halt\n"
    ".Lrecv: mv %gi0, 6\n"
    "        mv r3, @g0\n"
    "        mv r4, @g0\n"
    "        mv r5, %gi0 | mv r6, %go0\n"
    "        halt\n";

static void test_gates_bound_by_the_program(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p, send_receive, "linear", NULL);
    assert_non_null(p.agents);
    for (int t = 0; t < 9; t++) cprog_step(&p);
    assert_int_equal(wsim_cell_pc(p.sim, 1), 10);               /* still at the first read */
    assert_int_equal(wsim_cell_state_of(p.sim, 1), WSIM_CELL_STALLED);
    assert_int_equal(wca_loc_last_sent(p.agents, 0, 0), 7);
    cprog_finish(&p, 1000);
    assert_int_equal(cprog_reg(&p, 0, 1), 12u | 0u << 8);        /* local 12, out XRight.0 */
    assert_int_equal(cprog_reg(&p, 1, 3), 11);
    assert_int_equal(cprog_reg(&p, 1, 4), 22);
    assert_int_equal(cprog_reg(&p, 1, 5), 6);
    assert_int_equal(cprog_reg(&p, 1, 6), 0xffffffffu);          /* output gate 0 unbound */
    assert_int_equal(wsim_cell_stalls(p.sim, 1), 7 + 1);
    assert_int_equal(wca_loc_last_sent(p.agents, 0, 0), 9);
    assert_int_equal(wca_bus_words(p.agents, 0, WCA_XRIGHT), 2);
    assert_int_equal(wsim_cycles(p.sim), 14);
    cprog_free(&p);
}

static void test_unbound_gate_faults(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p,
                "        .model iwarp\n        .cells 0, 0\n        .file \"u.s\"\n        .text\n"
                "        .globl main\nmain:\n        .loc 3\n        mv r1, @g1\n        halt\n",
                NULL, NULL);
    assert_int_equal(wsim_run(p.sim, 100), WSIM_FAULT);
    assert_string_equal(wsim_message(p.sim),
                        "cell 0 (cid 0): pc 0 (u.s:3): input gate @g1 is bound to no channel (write %gi1 first)");
    cprog_free(&p);
    cprog_build(&p,
                "        .model iwarp\n        .cells 0, 0\n        .text\n        .globl main\n"
                "main:   mv %go0, 3\n        halt\n",
                NULL, NULL);
    assert_int_equal(wsim_run(p.sim, 100), WSIM_FAULT);
    assert_string_equal(wsim_message(p.sim), "cell 0 (cid 0): pc 0: output gate @g0 bound to channel 3, which is fed "
                                             "by a bus (output gates fill local channels)");
    cprog_free(&p);
    /* A write still under way pins the binding: fadd writes @g0 3 clocks after issue,
     * the unbinding lands after 1. */
    cprog_build(&p,
                "        .model iwarp\n        .cells 0, 0\n        .text\n        .globl main\n"
                "main:   mv %go0, 12\n"
                "        fadd @g0, r1, r1\n"
                "        mv %go0, -1\n"
                "        halt\n",
                NULL, NULL);
    assert_int_equal(wsim_run(p.sim, 100), WSIM_FAULT);
    assert_string_equal(wsim_message(p.sim),
                        "cell 0 (cid 0): pc 2: output gate @g0 rebound while a write to it is under way");
    cprog_free(&p);
}

/* One cell, its gates looped through local channels 12 and 13. Clock 2 writes both
 * (two gate operations: one clock); each output gate's bus carries a word every 2
 * clocks (sec. 4), so the next writes wait for clock 4 (a nop at 3); clock 4 reads
 * both and writes both: four gate operations take clocks 4 and 5 (sec. 7.1); clock
 * 6 reads the results. */
static void test_four_gate_operations_take_two_clocks(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p,
                "        .model iwarp\n        .cells 0, 0\n        .text\n        .globl main\n"
                "main:   mv %go0, 12 | mv %gi0, 12\n"
                "        mv %go1, 13 | mv %gi1, 13\n"
                "        mv @g0, 1 | mv @g1, 2\n"
                "        nop\n"
                "        iadd @g0, @g0, @g1 | mv @g1, @g1\n"
                "        mv r5, @g0 | mv r6, @g1\n"
                "        halt\n",
                NULL, NULL);
    for (int t = 0; t < 5; t++) cprog_step(&p);
    assert_int_equal(wsim_cell_issued(p.sim, 0), 5);
    cprog_step(&p);
    assert_int_equal(wsim_cell_issued(p.sim, 0), 5); /* the second clock of bundle 4 */
    cprog_step(&p);
    assert_int_equal(wsim_cell_issued(p.sim, 0), 6);
    cprog_finish(&p, 100);
    assert_int_equal(cprog_reg(&p, 0, 5), 3);
    assert_int_equal(cprog_reg(&p, 0, 6), 2);
    assert_int_equal(wsim_cell_stalls(p.sim, 0), 0);
    assert_int_equal(wsim_cycles(p.sim), 8);
    cprog_free(&p);
}

/* An application marker is a tagged word: it reads like data, %gt0 keeps its tag
 * (as the bundle finds it, before its own dequeues), and it raises an event. */
static void test_tag_register_and_marker_event(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p,
                "        .model iwarp\n        .cells 0, 0\n        .text\n        .globl main\n"
                "main:   mv %go0, 12 | mv %gi0, 12\n"
                "        amark @g0, 7\n"
                "        mv @g0, 8\n"
                "        mv r1, @g0\n"
                "        mv r2, %gt0 | mv r3, @g0\n"
                "        mv r4, %gt0\n"
                "        evwait r5\n"
                "        mv r6, %evdata | mv r7, %evst\n"
                "        halt\n",
                NULL, NULL);
    cprog_finish(&p, 100);
    assert_int_equal(cprog_reg(&p, 0, 1), 7);
    assert_int_equal(cprog_reg(&p, 0, 2), WT_MARK_APP);
    assert_int_equal(cprog_reg(&p, 0, 3), 8);
    assert_int_equal(cprog_reg(&p, 0, 4), WT_MARK_DATA);
    assert_int_equal(cprog_reg(&p, 0, 5), (uint32_t)WT_MARK_APP << 8 | 12);
    assert_int_equal(cprog_reg(&p, 0, 6), 7);
    assert_int_equal(cprog_reg(&p, 0, 7), 0);
    cprog_free(&p);
}

/* A W2-style program on three cells: each adds one to what comes from the left on X
 * and sends it right; cell 0's words come from the host feed, cell 2's go to the host.
 * Every word crosses the XRight buses through the agents. */
static void test_direction_gates_ride_the_buses(void **state)
{
    (void)state;
    cprog p;
    cprog_build(&p,
                "        .model iwarp\n        .cells 0, 2\n        .host out, out, int, 4\n        .text\n"
                "        .globl main\n"
                "main:   mv r1, 4 | mv r2, out\n"
                ".L1:    mv @fxl, 100\n"
                "        iadd @xr, @xl, 1 | mv @axr, r2\n"
                "        iadd r2, r2, 4 | dbnz r1, .L1\n"
                "        halt\n",
                "linear", NULL);
    cprog_finish(&p, 1000);
    uint32_t size;
    const uint8_t *h = wsim_host_memory(p.sim, &size);
    for (int i = 0; i < 4; i++) assert_int_equal(h[4 * i], 103);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(wca_bus_words(p.agents, k, WCA_XRIGHT), 4);
        assert_int_equal(wca_bus_words(p.agents, k, WCA_XLEFT), 0);
    }
    cprog_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gates_bound_by_the_program),
        cmocka_unit_test(test_unbound_gate_faults),
        cmocka_unit_test(test_four_gate_operations_take_two_clocks),
        cmocka_unit_test(test_tag_register_and_marker_event),
        cmocka_unit_test(test_direction_gates_ride_the_buses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
