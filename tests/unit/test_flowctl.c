/* Unit tests of flowctl/: programs built bundle by bundle, timed by wfc_analyse,
 * then run on the simulator as a flow-controlled Warp image. The skew must be
 * exact: with it no cell ever waits for a queue (a wait would stop the run as a
 * compiler bug), and where one bound decides it, one clock less makes a cell wait. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warp_flowctl.h"
#include "warp_sim.h"
#include "warp_target.h"

enum {
    XL = WT_OPND_GATE + WT_Q_XL, XR = WT_OPND_GATE + WT_Q_XR,
    FXL = WT_OPND_FEED + WT_Q_XL, FXR = WT_OPND_FEED + WT_Q_XR,
    CID = WT_OPND_CID, I0 = WT_OPND_IMM0
};

typedef struct tprog {
    wt_insn code[64];
    uint32_t n;
} tprog;

static wt_insn *bundle(tprog *t)
{
    wt_insn *b = &t->code[t->n++];
    memset(b, 0, sizeof *b);
    return b;
}

static void put(wt_insn *b, wt_slot_id s, wt_op op, unsigned d, unsigned a, unsigned bb, unsigned c)
{
    b->slot[s].op = (uint16_t)op;
    b->slot[s].opnd[0] = (uint8_t)d;
    b->slot[s].opnd[1] = (uint8_t)a;
    b->slot[s].opnd[2] = (uint8_t)bb;
    b->slot[s].opnd[3] = (uint8_t)c;
}

static void mov_imm(wt_insn *b, wt_slot_id s, unsigned rd, uint32_t value)
{
    b->imm[0] = value;
    put(b, s, WT_OP_MOV, rd, I0, 0, 0);
}

static void branch(wt_insn *b, wt_op op, unsigned cond, uint16_t target)
{
    put(b, WT_SLOT_BR, op, 0, 0, 0, cond);
    b->target = target;
}

static int analyse(const tprog *t, int cells, wfc_result *r)
{
    wfc_program p = {.model = wt_model_get(WT_MODEL_WARP), .code = t->code, .ncode = t->n, .entry = 0,
                     .first_cell = 0, .last_cell = cells - 1};
    return wfc_analyse(&p, r);
}

/* Runs the program as a flow-controlled image with this skew. */
static wsim_status run(const tprog *t, int cells, int32_t skew)
{
    wsim_program p = {.model = wt_model_get(WT_MODEL_WARP), .code = t->code, .ncode = t->n, .entry = 0,
                      .first_cell = 0, .last_cell = cells - 1, .skew = skew, .flow_controlled = 1};
    char err[256];
    wsim *s = wsim_new(&p, err, sizeof err);
    if (!s) fail_msg("wsim_new: %s", err);
    wsim_status st = wsim_run(s, 100000);
    if (st != WSIM_DONE && st != WSIM_FLOW_BUG) fail_msg("run ended with status %d: %s", st, wsim_message(s));
    wsim_free(s);
    return st;
}

/* The skew works and is the smallest in magnitude that does. */
static void assert_exact(const tprog *t, int cells, int32_t skew)
{
    assert_int_equal(run(t, cells, skew), WSIM_DONE);
    if (skew != 0) assert_int_equal(run(t, cells, skew > 0 ? skew - 1 : skew + 1), WSIM_FLOW_BUG);
}

/* Every cell receives n words from one side and passes each on at once:
 *   0: mov r1, n
 *   1: mv @f.., r1                  (the end cell's host supplies the word)
 *   2: mv @out, @in | isub r1, r1, 1
 *   3: bnz r1, 1
 *   4: halt                                                                    */
static void pass_on(tprog *t, int rightward, uint32_t n)
{
    t->n = 0;
    mov_imm(bundle(t), WT_SLOT_A0, 1, n);
    put(bundle(t), WT_SLOT_V0, WT_OP_MV, rightward ? FXL : FXR, 1, 0, 0);
    wt_insn *b = bundle(t);
    put(b, WT_SLOT_V0, WT_OP_MV, rightward ? XR : XL, rightward ? XL : XR, 0, 0);
    b->imm[0] = 1;
    put(b, WT_SLOT_A0, WT_OP_ISUB, 1, 1, I0, 0);
    branch(bundle(t), WT_OP_BNZ, 1, 1);
    put(bundle(t), WT_SLOT_BR, WT_OP_HALT, 0, 0, 0, 0);
}

static void test_pass_on_rightward(void **state)
{
    (void)state;
    tprog t;
    pass_on(&t, 1, 20);
    wfc_result r;
    assert_int_equal(analyse(&t, 6, &r), 0);
    /* Word j is received and sent by cell k at clock 2 + 3j; the mv's latency (1)
     * and the link (1) bring it to cell k+1 two clocks later: skew 2 (the seed's
     * figure 4-1 example, where the skew is one step). */
    assert_int_equal(r.skew, 2);
    assert_exact(&t, 6, r.skew);
}

static void test_pass_on_leftward_skews_the_other_way(void **state)
{
    (void)state;
    tprog t;
    pass_on(&t, 0, 20);
    wfc_result r;
    assert_int_equal(analyse(&t, 5, &r), 0);
    assert_int_equal(r.skew, -2);   /* the last cell starts first */
    assert_exact(&t, 5, r.skew);
}

/* Cell k first waits 3*(8 - cid) clocks in a loop on its own number, then passes
 * n words on: the cells differ, so each is timed on its own.
 *   0: isub r2, 8, cid
 *   1: bz r2, 4
 *   2: isub r2, r2, 1
 *   3: jmp 1                 (2 more clocks a turn: 1, 2, 3)
 *   4..8: pass_on                                                               */
static void test_cell_number_decides_the_timing(void **state)
{
    (void)state;
    tprog t = {0};
    wt_insn *b0 = bundle(&t);
    b0->imm[0] = 8;
    put(b0, WT_SLOT_A0, WT_OP_ISUB, 2, I0, CID, 0);
    branch(bundle(&t), WT_OP_BZ, 2, 4);
    wt_insn *b = bundle(&t);
    b->imm[0] = 1;
    put(b, WT_SLOT_A0, WT_OP_ISUB, 2, 2, I0, 0);
    branch(bundle(&t), WT_OP_JMP, 0, 1);
    tprog tail;
    pass_on(&tail, 1, 10);
    for (uint32_t i = 0; i < tail.n; i++) {
        wt_insn *x = bundle(&t);
        *x = tail.code[i];
        if (x->slot[WT_SLOT_BR].op == WT_OP_BNZ) x->target = (uint16_t)(x->target + 4);
    }
    wfc_result r;
    assert_int_equal(analyse(&t, 4, &r), 0);
    /* Cell k+1 starts passing 3 clocks sooner than cell k: 2 + 3 */
    assert_int_equal(r.skew, 5);
    assert_exact(&t, 4, r.skew);
}

/* A branch on a received word, with ways of different lengths but one send each:
 * the time after it is an interval, and the skew covers its latest end.
 *   0: mov r1, 8
 *   1: mv @fxl, r1
 *   2: mv r2, @xl                  (the word: 8, 7, ..., 1 on cell 0)
 *   3: and r3, r2, 1
 *   4: bz r3, 7
 *   5: nop
 *   6: nop                         (odd words: two clocks more)
 *   7: mv @xr, r2 | isub r1, r1, 1
 *   8: bnz r1, 1
 *   9: halt                                                                     */
static void test_data_dependent_branch_with_equal_io(void **state)
{
    (void)state;
    tprog t = {0};
    mov_imm(bundle(&t), WT_SLOT_A0, 1, 8);
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, FXL, 1, 0, 0);
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, 2, XL, 0, 0);
    wt_insn *b = bundle(&t);
    b->imm[0] = 1;
    put(b, WT_SLOT_A0, WT_OP_AND, 3, 2, I0, 0);
    branch(bundle(&t), WT_OP_BZ, 3, 7);
    bundle(&t);
    bundle(&t);
    b = bundle(&t);
    put(b, WT_SLOT_V0, WT_OP_MV, XR, 2, 0, 0);
    b->imm[0] = 1;
    put(b, WT_SLOT_A0, WT_OP_ISUB, 1, 1, I0, 0);
    branch(bundle(&t), WT_OP_BNZ, 1, 1);
    put(bundle(&t), WT_SLOT_BR, WT_OP_HALT, 0, 0, 0, 0);
    wfc_result r;
    assert_int_equal(analyse(&t, 3, &r), 0);
    assert_true(r.skew > 2);
    assert_int_equal(run(&t, 3, r.skew), WSIM_DONE);
}

/* A loop counted by a received word that receives in its body. */
static void test_loop_on_data_with_io_is_rejected(void **state)
{
    (void)state;
    tprog t = {0};
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, FXL, 0, 0, 0);
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, 1, XL, 0, 0);      /* 1: r1 = the count */
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, FXL, 0, 0, 0);     /* 2: loop */
    wt_insn *b = bundle(&t);                                  /* 3 */
    put(b, WT_SLOT_V0, WT_OP_MV, XR, XL, 0, 0);
    b->imm[0] = 1;
    put(b, WT_SLOT_A0, WT_OP_ISUB, 1, 1, I0, 0);
    branch(bundle(&t), WT_OP_BNZ, 1, 2);                     /* 4 */
    put(bundle(&t), WT_SLOT_BR, WT_OP_HALT, 0, 0, 0, 0);
    wfc_result r;
    assert_int_equal(analyse(&t, 2, &r), -1);
    assert_non_null(strstr(r.message, "depends on data"));
    assert_true(r.pc >= 2 && r.pc <= 4);
}

/* A loop counted by a received word with no I/O inside, then a send: the send's
 * time has no upper bound. */
static void test_send_after_loop_on_data_is_rejected(void **state)
{
    (void)state;
    tprog t = {0};
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, FXL, 0, 0, 0);
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, 1, XL, 0, 0);
    wt_insn *b = bundle(&t);                                  /* 2: loop */
    b->imm[0] = 1;
    put(b, WT_SLOT_A0, WT_OP_ISUB, 1, 1, I0, 0);
    branch(bundle(&t), WT_OP_BNZ, 1, 2);                     /* 3 */
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, XR, 0, 0, 0);      /* 4: the send */
    put(bundle(&t), WT_SLOT_BR, WT_OP_HALT, 0, 0, 0, 0);
    wfc_result r;
    assert_int_equal(analyse(&t, 2, &r), -1);
    assert_non_null(strstr(r.message, "cannot be bounded"));
    assert_true(r.pc == 2 || r.pc == 3);   /* the loop, not the send */
    /* On one cell nothing is sent to a neighbour: nothing to time, and no error. */
    assert_int_equal(analyse(&t, 1, &r), 0);
}

/* A branch on data that sends on one way only. */
static void test_unequal_io_is_rejected(void **state)
{
    (void)state;
    tprog t = {0};
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, FXL, 0, 0, 0);
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, 2, XL, 0, 0);
    branch(bundle(&t), WT_OP_BZ, 2, 4);                      /* 2 */
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, XR, 2, 0, 0);      /* 3 */
    put(bundle(&t), WT_SLOT_BR, WT_OP_HALT, 0, 0, 0, 0);     /* 4 */
    wfc_result r;
    assert_int_equal(analyse(&t, 2, &r), -1);
    assert_non_null(strstr(r.message, "different numbers of words"));
}

/* Words both ways in every step: rightward they need a positive skew, leftward a
 * negative one. */
static void test_both_ways_has_no_skew(void **state)
{
    (void)state;
    tprog t = {0};
    mov_imm(bundle(&t), WT_SLOT_A0, 1, 4);
    wt_insn *b = bundle(&t);                                  /* 1 */
    put(b, WT_SLOT_V0, WT_OP_MV, FXL, 0, 0, 0);
    put(b, WT_SLOT_V1, WT_OP_MV, FXR, 0, 0, 0);
    b = bundle(&t);                                           /* 2 */
    put(b, WT_SLOT_V0, WT_OP_MV, XR, XL, 0, 0);
    put(b, WT_SLOT_V1, WT_OP_MV, XL, XR, 0, 0);
    b->imm[0] = 1;
    put(b, WT_SLOT_A0, WT_OP_ISUB, 1, 1, I0, 0);
    branch(bundle(&t), WT_OP_BNZ, 1, 1);
    put(bundle(&t), WT_SLOT_BR, WT_OP_HALT, 0, 0, 0, 0);
    wfc_result r;
    assert_int_equal(analyse(&t, 3, &r), -1);
    assert_non_null(strstr(r.message, "no skew"));
    assert_true(r.skew_lo > r.skew_hi);
}

/* Cell k sends 200 words at once, then receives 200, slowly: the queue (128 words)
 * bounds the skew from above, the arrival from below.
 *   0: mov r1, 200
 *   1: mv @xr, r0 | isub r1, r1, 1
 *   2: bnz r1, 1
 *   3: mov r1, 200
 *   4: mv @fxl, r0
 *   5: mv r2, @xl | isub r1, r1, 1
 *   6: nop
 *   7: bnz r1, 4
 *   8: halt                                                                      */
static void test_queue_capacity_bounds_the_skew(void **state)
{
    (void)state;
    tprog t = {0};
    mov_imm(bundle(&t), WT_SLOT_A0, 1, 200);
    wt_insn *b = bundle(&t);
    put(b, WT_SLOT_V0, WT_OP_MV, XR, 0, 0, 0);
    b->imm[0] = 1;
    put(b, WT_SLOT_A0, WT_OP_ISUB, 1, 1, I0, 0);
    branch(bundle(&t), WT_OP_BNZ, 1, 1);
    mov_imm(bundle(&t), WT_SLOT_A0, 1, 200);
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, FXL, 0, 0, 0);
    b = bundle(&t);
    put(b, WT_SLOT_V0, WT_OP_MV, 2, XL, 0, 0);
    b->imm[0] = 1;
    put(b, WT_SLOT_A0, WT_OP_ISUB, 1, 1, I0, 0);
    bundle(&t);
    branch(bundle(&t), WT_OP_BNZ, 1, 4);
    put(bundle(&t), WT_SLOT_BR, WT_OP_HALT, 0, 0, 0, 0);
    wfc_result r;
    assert_int_equal(analyse(&t, 3, &r), 0);
    /* Sends at 1 + 2j; cell k+1 reads word i at 403 + 4i + skew. Word j >= 128
     * needs word j - 128 read before: 403 + 4(j-128) + skew < 1 + 2j for every
     * j < 200, tightest at j = 199: skew < -288; arrival needs 1 + 2j + 2 <=
     * 403 + 4j + skew: skew >= -400. The skew nearest 0 is -289. */
    assert_int_equal(r.skew_hi, -289);
    assert_int_equal(r.skew_lo, -400);
    assert_int_equal(r.skew, -289);
    assert_int_equal(run(&t, 3, r.skew), WSIM_DONE);
    assert_int_equal(run(&t, 3, r.skew + 1), WSIM_FLOW_BUG);
}

/* A program longer than the analysis budget is refused with a message that says
 * so, not timed wrongly; the same program under the default budget is timed. */
static void test_budget_refuses_a_program_too_long_to_time(void **state)
{
    (void)state;
    tprog t;
    pass_on(&t, 1, 1000);   /* 3 bundles a word, 6 cells (the abstract run of one serves all) */
    wfc_program p = {.model = wt_model_get(WT_MODEL_WARP), .code = t.code, .ncode = t.n, .entry = 0,
                     .first_cell = 0, .last_cell = 5, .max_clocks = 500};
    wfc_result r;
    assert_int_equal(wfc_analyse(&p, &r), -1);
    assert_non_null(strstr(r.message, "more than 500 bundles"));
    assert_non_null(strstr(r.note, "-fno-flow-control"));
    p.max_clocks = 0;
    assert_int_equal(wfc_analyse(&p, &r), 0);
    assert_int_equal(r.skew, 2);
}

/* A store through a received subscript beside a counted loop whose counter stays
 * in memory (as at -O0):
 *   0: mov r1, 4
 *   1: st [r0, 400], r1            the counter, word 100
 *   2: mv @fxl, r0
 *   3: mv r2, @xl                   a received subscript
 *   4: nop
 *   5: st [r2, 800], r0             cnt[t]: the immediate names cnt, 800..815
 *   6: ld r1, [r0, 400]
 *   7: nop
 *   8: nop
 *   9: isub r1, r1, 1
 *  10: st [r0, 400], r1
 *  11: bnz r1, 2
 *  12: halt
 * Confined to cnt, the store leaves the counter known and the loop is timed; with
 * no object, or an object that holds the counter, it is a loop on data. */
static int object_at(void *ctx, uint32_t pc, int imm, uint32_t *addr, uint32_t *size)
{
    const uint32_t *obj = ctx;
    if (pc != 5 || imm != 0) return 0;
    *addr = obj[0];
    *size = obj[1];
    return 1;
}

static void test_store_stays_in_its_object(void **state)
{
    (void)state;
    tprog t = {0};
    mov_imm(bundle(&t), WT_SLOT_A0, 1, 4);
    wt_insn *b = bundle(&t);
    b->imm[0] = 400;
    put(b, WT_SLOT_M0, WT_OP_ST, 1, 0, I0, 0);
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, FXL, 0, 0, 0);
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, 2, XL, 0, 0);
    bundle(&t);
    b = bundle(&t);
    b->imm[0] = 800;
    put(b, WT_SLOT_M0, WT_OP_ST, 0, 2, I0, 0);
    b = bundle(&t);
    b->imm[0] = 400;
    put(b, WT_SLOT_M0, WT_OP_LD, 1, 0, I0, 0);
    bundle(&t);
    bundle(&t);
    b = bundle(&t);
    b->imm[0] = 1;
    put(b, WT_SLOT_A0, WT_OP_ISUB, 1, 1, I0, 0);
    b = bundle(&t);
    b->imm[0] = 400;
    put(b, WT_SLOT_M0, WT_OP_ST, 1, 0, I0, 0);
    branch(bundle(&t), WT_OP_BNZ, 1, 2);
    put(bundle(&t), WT_SLOT_BR, WT_OP_HALT, 0, 0, 0, 0);

    uint32_t cnt[2] = {800, 16}, around_counter[2] = {384, 32};
    wfc_program p = {.model = wt_model_get(WT_MODEL_WARP), .code = t.code, .ncode = t.n, .entry = 0,
                     .first_cell = 0, .last_cell = 0, .object = object_at, .ctx = cnt};
    wfc_result r;
    assert_int_equal(wfc_analyse(&p, &r), 0);
    assert_int_equal(run(&t, 1, r.skew), WSIM_DONE);
    p.ctx = around_counter;
    assert_int_equal(wfc_analyse(&p, &r), -1);
    assert_non_null(strstr(r.message, "depends on data"));
    p.object = NULL;
    assert_int_equal(wfc_analyse(&p, &r), -1);
    assert_non_null(strstr(r.message, "depends on data"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pass_on_rightward),
        cmocka_unit_test(test_store_stays_in_its_object),
        cmocka_unit_test(test_pass_on_leftward_skews_the_other_way),
        cmocka_unit_test(test_cell_number_decides_the_timing),
        cmocka_unit_test(test_data_dependent_branch_with_equal_io),
        cmocka_unit_test(test_loop_on_data_with_io_is_rejected),
        cmocka_unit_test(test_send_after_loop_on_data_is_rejected),
        cmocka_unit_test(test_unequal_io_is_rejected),
        cmocka_unit_test(test_both_ways_has_no_skew),
        cmocka_unit_test(test_queue_capacity_bounds_the_skew),
        cmocka_unit_test(test_budget_refuses_a_program_too_long_to_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
