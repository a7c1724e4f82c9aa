/* Unit tests of simulator/: programs built bundle by bundle from wt_insn values, run
 * clock by clock, checked against the timing rules of docs/design.md, section 1.
 * Expected clock numbers are worked out in the comments beside each test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warp_sim.h"
#include "warp_target.h"

enum {
    XL = WT_OPND_GATE + WT_Q_XL, YL = WT_OPND_GATE + WT_Q_YL,
    XR = WT_OPND_GATE + WT_Q_XR, YR = WT_OPND_GATE + WT_Q_YR,
    FXL = WT_OPND_FEED + WT_Q_XL, FYL = WT_OPND_FEED + WT_Q_YL,
    AXL = WT_OPND_ADDR + WT_Q_XL, AXR = WT_OPND_ADDR + WT_Q_XR, AYR = WT_OPND_ADDR + WT_Q_YR,
    CID = WT_OPND_CID, I0 = WT_OPND_IMM0, I1 = WT_OPND_IMM1
};

typedef struct tprog {
    wt_insn code[64];
    uint32_t n;
} tprog;

/* A new bundle at the end of the program: a nop until operations are put in it. */
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

/* `mov rd, value` through literal field f, in ALU slot s. */
static void mov_imm(wt_insn *b, wt_slot_id s, unsigned rd, unsigned f, uint32_t value)
{
    b->imm[f] = value;
    put(b, s, WT_OP_MOV, rd, f ? I1 : I0, 0, 0);
}

static void branch(wt_insn *b, wt_op op, unsigned cond, uint16_t target)
{
    put(b, WT_SLOT_BR, op, 0, 0, 0, cond);
    b->target = target;
}

static const char *where(void *ctx, uint32_t pc, char *buf, size_t size)
{
    (void)ctx;
    snprintf(buf, size, "t.w2:%u", pc + 1);
    return buf;
}

static wsim *make(const tprog *t, wt_model_id m, int first, int last, uint32_t skew, uint32_t host_size)
{
    wsim_program p = {
        .model = wt_model_get(m), .code = t->code, .ncode = t->n, .entry = 0,
        .host_size = host_size, .first_cell = first, .last_cell = last, .skew = skew, .where = where,
    };
    char err[256] = "";
    wsim *s = wsim_new(&p, err, sizeof err);
    if (!s) fail_msg("wsim_new: %s", err);
    return s;
}

static void steps(wsim *s, unsigned n)
{
    for (unsigned i = 0; i < n; i++) assert_int_equal(wsim_step(s), WSIM_RUNNING);
}

static uint32_t fbits(float f) { return wt_u(f); }

static unsigned latency(wt_op op, wt_model_id m) { return wt_ops[op].latency[m]; }

/* ---- Pipelines ------------------------------------------------------------------- */

/* fadd and fmul issue at clock 1; a copy at clock 1+L-1 sees the old value (0), one
 * at clock 1+L the result. */
static void check_float_latency(wt_model_id m)
{
    unsigned L = latency(WT_OP_FADD, m);
    assert_int_equal(L, latency(WT_OP_FMUL, m));
    tprog t = {0};
    wt_insn *b = bundle(&t);
    mov_imm(b, WT_SLOT_A0, 1, 0, fbits(2.0f));
    b->imm[1] = fbits(3.0f);   /* one integer operation a clock on iWarp: the crossbar moves this one */
    put(b, WT_SLOT_V0, WT_OP_MV, 2, I1, 0, 0);
    b = bundle(&t);
    put(b, WT_SLOT_FA, WT_OP_FADD, 3, 1, 2, 0);
    put(b, WT_SLOT_FM, WT_OP_FMUL, 4, 1, 2, 0);
    for (unsigned i = 2; i < L; i++) bundle(&t);
    b = bundle(&t); /* clock L: one before the result */
    put(b, WT_SLOT_V0, WT_OP_MV, 10, 3, 0, 0);
    put(b, WT_SLOT_V1, WT_OP_MV, 12, 4, 0, 0);
    b = bundle(&t); /* clock 1+L */
    put(b, WT_SLOT_V0, WT_OP_MV, 11, 3, 0, 0);
    put(b, WT_SLOT_V1, WT_OP_MV, 13, 4, 0, 0);
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    wsim *s = make(&t, m, 0, 0, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
    assert_int_equal(wsim_cell_reg(s, 0, 10), 0);
    assert_int_equal(wsim_cell_reg(s, 0, 12), 0);
    assert_int_equal(wsim_cell_reg(s, 0, 11), fbits(5.0f));
    assert_int_equal(wsim_cell_reg(s, 0, 13), fbits(6.0f));
    assert_int_equal(wsim_cell_stalls(s, 0), 0);
    /* Halt issues at clock L+2; the copies land at L+2 too, so the run ends then. */
    assert_int_equal(wsim_cycles(s), L + 3);
    wsim_free(s);
}

static void test_float_latency_warp(void **state) { (void)state; check_float_latency(WT_MODEL_WARP); }
static void test_float_latency_iwarp(void **state) { (void)state; check_float_latency(WT_MODEL_IWARP); }

/* A result is visible exactly L clocks after issue, also when read by a register
 * write landing later in the same cell while it stalls. */
static void test_results_land_while_stalled(void **state)
{
    (void)state;
    tprog t = {0};
    wt_insn *b = bundle(&t);
    mov_imm(b, WT_SLOT_A0, 1, 0, fbits(1.5f));
    b = bundle(&t);
    put(b, WT_SLOT_FA, WT_OP_FADD, 2, 1, 1, 0); /* clock 1, lands at 6 on Warp */
    b = bundle(&t);
    put(b, WT_SLOT_V0, WT_OP_MV, 3, XL, 0, 0);  /* stalls for ever: nothing feeds xl */
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    wsim *s = make(&t, WT_MODEL_WARP, 0, 0, 0, 0);
    steps(s, 6);
    assert_int_equal(wsim_cell_reg(s, 0, 2), 0);
    assert_int_equal(wsim_cell_state_of(s, 0), WSIM_CELL_STALLED);
    /* The landing at clock 6 is the last event: the stall is for ever from then on. */
    assert_int_equal(wsim_run(s, 1000), WSIM_DEADLOCK);
    assert_int_equal(wsim_cycles(s), 6);
    assert_int_equal(wsim_cell_reg(s, 0, 2), fbits(3.0f));
    assert_int_equal(wsim_cell_stalls(s, 0), 5);
    wsim_free(s);
}

/* Double precision (iWarp): pairs of registers, low word first; the multiplier and
 * the adder take one every fourth clock; the Warp faults. 1.5 and 2.25 widened,
 * multiplied (3.375), added to 1.5 (4.875) and narrowed back. */
static void test_double_precision(void **state)
{
    (void)state;
    tprog t = {0};
    wt_insn *b = bundle(&t);                                 /* clock 0 */
    mov_imm(b, WT_SLOT_A0, 10, 0, fbits(1.5f));
    b->imm[1] = fbits(2.25f);
    put(b, WT_SLOT_V0, WT_OP_MV, 11, I1, 0, 0);
    put(bundle(&t), WT_SLOT_FM, WT_OP_FTOD, 2, 10, 0, 0);    /* 1, lands at 5 */
    put(bundle(&t), WT_SLOT_FM, WT_OP_FTOD, 4, 11, 0, 0);    /* waits for the unit: 5, lands at 9 */
    put(bundle(&t), WT_SLOT_FM, WT_OP_DMUL, 8, 2, 4, 0);     /* waits: 9, lands at 14 */
    for (int i = 0; i < 4; i++) bundle(&t);                  /* 10..13 */
    put(bundle(&t), WT_SLOT_FA, WT_OP_DADD, 6, 8, 2, 0);     /* 14, lands at 18 */
    put(bundle(&t), WT_SLOT_FM, WT_OP_DTOF, 12, 8, 0, 0);    /* 15, lands at 19 */
    put(bundle(&t), WT_SLOT_FM, WT_OP_DLE, 13, 2, 8, 0);     /* waits: 19, lands at 23 */
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    wsim *s = make(&t, WT_MODEL_IWARP, 0, 0, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
    assert_int_equal(wsim_cell_reg(s, 0, 2), 0);             /* 1.5 = 0x3ff8000000000000 */
    assert_int_equal(wsim_cell_reg(s, 0, 3), 0x3ff80000u);
    assert_int_equal(wsim_cell_reg(s, 0, 8), 0);             /* 3.375 = 0x400b000000000000 */
    assert_int_equal(wsim_cell_reg(s, 0, 9), 0x400b0000u);
    assert_int_equal(wsim_cell_reg(s, 0, 6), 0);             /* 4.875 = 0x4013800000000000 */
    assert_int_equal(wsim_cell_reg(s, 0, 7), 0x40138000u);
    assert_int_equal(wsim_cell_reg(s, 0, 12), fbits(3.375f));
    assert_int_equal(wsim_cell_reg(s, 0, 13), 1);
    /* the second ftod, dmul and dle each wait 3 clocks for the multiplier */
    assert_int_equal(wsim_cell_stalls(s, 0), 9);
    wsim_free(s);
    s = make(&t, WT_MODEL_WARP, 0, 0, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_FAULT);
    assert_non_null(strstr(wsim_message(s), "double precision (dadd, dmul ...) is iWarp's"));
    wsim_free(s);
}

/* fdiv is not pipelined: a second FM operation waits out the issue interval, counted
 * as a unit stall. idiv keeps its own ALU slot busy, not the other one. */
static void check_divide_interval(wt_model_id m)
{
    unsigned fiv = wt_ops[WT_OP_FDIV].interval[m], iiv = wt_ops[WT_OP_IDIV].interval[m];
    tprog t = {0};
    wt_insn *b = bundle(&t);
    mov_imm(b, WT_SLOT_A0, 1, 0, 7);
    mov_imm(b, WT_SLOT_A1, 2, 1, 2);
    b = bundle(&t);                                      /* clock 1 */
    put(b, WT_SLOT_FM, WT_OP_FDIV, 3, 1, 2, 0);
    put(b, WT_SLOT_A0, WT_OP_IDIV, 4, 1, 2, 0);
    b = bundle(&t);                                      /* clock 2: A1 is free */
    put(b, WT_SLOT_A1, WT_OP_IADD, 5, 1, 2, 0);
    b = bundle(&t);                                      /* A0 busy until 1+iiv */
    put(b, WT_SLOT_A0, WT_OP_ISUB, 6, 1, 2, 0);
    b = bundle(&t);                                      /* FM busy until 1+fiv */
    put(b, WT_SLOT_FM, WT_OP_FMUL, 7, 1, 2, 0);
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    wsim *s = make(&t, m, 0, 0, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
    /* isub issues at 1+iiv (stalled from clock 3), fmul at max(1+fiv, 2+iiv). */
    unsigned isub_at = 1 + iiv, fmul_at = 1 + fiv > isub_at + 1 ? 1 + fiv : isub_at + 1;
    uint64_t unit_stalls = (isub_at - 3) + (fmul_at - (isub_at + 1));
    assert_int_equal(wsim_cell_unit_stalls(s, 0), unit_stalls);
    assert_int_equal(wsim_cell_stalls(s, 0), unit_stalls);
    assert_int_equal(wsim_cell_reg(s, 0, 4), 3);
    assert_int_equal(wsim_cell_reg(s, 0, 5), 9);
    assert_int_equal(wsim_cell_reg(s, 0, 6), 5);
    wsim_free(s);
}

static void test_divide_interval_warp(void **state) { (void)state; check_divide_interval(WT_MODEL_WARP); }
static void test_divide_interval_iwarp(void **state) { (void)state; check_divide_interval(WT_MODEL_IWARP); }

/* ---- Queues between cells ---------------------------------------------------------- */

/* Cell 0 sends at clock 1 (mv, latency L); the word reaches cell 1 at 1+L+link. Cell 1
 * tries to receive from clock 1 and stalls until then. */
static void check_queue_timing(wt_model_id m)
{
    const wt_model *mo = wt_model_get(m);
    unsigned L = latency(WT_OP_MV, m), arrive = 1 + L + mo->link_latency;
    tprog t = {0};
    branch(bundle(&t), WT_OP_BNZ, CID, 3);                  /* 0 */
    wt_insn *b = bundle(&t);                                /* 1: cell 0 */
    b->imm[0] = 42;
    put(b, WT_SLOT_V0, WT_OP_MV, XR, I0, 0, 0);
    branch(bundle(&t), WT_OP_HALT, 0, 0);                   /* 2 */
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, 1, XL, 0, 0);     /* 3: cell 1 */
    branch(bundle(&t), WT_OP_HALT, 0, 0);                   /* 4 */
    wsim *s = make(&t, m, 0, 1, 0, 0);
    uint32_t w[4];
    steps(s, arrive);
    assert_int_equal(wsim_cell_pc(s, 1), 3);
    assert_int_equal(wsim_queue_words(s, 1, WT_Q_XL, w, 4), 1);
    assert_int_equal(w[0], 42);
    steps(s, 1);
    assert_int_equal(wsim_cell_pc(s, 1), 4);
    assert_int_equal(wsim_queue_words(s, 1, WT_Q_XL, w, 4), 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
    assert_int_equal(wsim_cell_reg(s, 1, 1), 42);
    assert_int_equal(wsim_cell_stalls(s, 1), arrive - 1);
    assert_int_equal(wsim_cell_unit_stalls(s, 1), 0);
    wsim_free(s);
}

static void test_queue_timing_warp(void **state) { (void)state; check_queue_timing(WT_MODEL_WARP); }
static void test_queue_timing_iwarp(void **state) { (void)state; check_queue_timing(WT_MODEL_IWARP); }

/* iWarp, through the communication agent: @xr fills a local 8-word channel, the
 * XRight bus carries a word every 2 clocks into cell 1's 8-word channel, credits come
 * back 2 clocks after each dequeue. Gates too move a word every 2 clocks (their
 * internal buses). Cell 0 sends 20 words (values 20..1), one every 2 clocks from
 * clock 2 (a stall between each two: 19): word k crosses at 2k+1, arriving at 2k+3
 * (word 8 at 19); cell 1's 8 credits and the local channel's 8 words hold the first
 * 16, sent by 32, and cell 1 reads from 23, so the sender never waits for room. Cell
 * 1 idles until 22 and reads the 20 words at 23, 25, ..., 61 (19 stalls for its
 * gate's bus); it halts at 62; the run ends at 63. */
static void test_full_queue_stalls_sender(void **state)
{
    (void)state;
    tprog t = {0};
    branch(bundle(&t), WT_OP_BNZ, CID, 5);                  /* 0 */
    mov_imm(bundle(&t), WT_SLOT_A0, 1, 0, 20);              /* 1: cell 0 */
    wt_insn *b = bundle(&t);                                /* 2 */
    put(b, WT_SLOT_V0, WT_OP_MV, XR, 1, 0, 0);
    branch(b, WT_OP_DBNZ, 1, 2);
    branch(bundle(&t), WT_OP_HALT, 0, 0);                   /* 3 */
    bundle(&t);                                             /* 4 */
    mov_imm(bundle(&t), WT_SLOT_A0, 2, 0, 20);              /* 5: cell 1 */
    branch(bundle(&t), WT_OP_DBNZ, 2, 6);                   /* 6 */
    mov_imm(bundle(&t), WT_SLOT_A0, 3, 0, 20);              /* 7 */
    b = bundle(&t);                                         /* 8 */
    put(b, WT_SLOT_A0, WT_OP_IADD, 5, 5, XL, 0);
    branch(b, WT_OP_DBNZ, 3, 8);
    branch(bundle(&t), WT_OP_HALT, 0, 0);                   /* 9 */
    wsim *s = make(&t, WT_MODEL_IWARP, 0, 1, 0, 0);
    uint32_t w[16];
    /* The 8th word crosses at 17 and arrives at 19. */
    steps(s, 18);
    assert_int_equal(wsim_queue_words(s, 1, WT_Q_XL, w, 16), 7);
    steps(s, 1);
    assert_int_equal(wsim_queue_words(s, 1, WT_Q_XL, w, 16), 8);
    assert_int_equal(w[0], 20);
    assert_int_equal(w[7], 13);
    /* Clock 18 sent word 9; clock 19 finds its gate's bus busy. */
    assert_int_equal(wsim_cell_state_of(s, 0), WSIM_CELL_RUNNING);
    steps(s, 1);
    assert_int_equal(wsim_cell_state_of(s, 0), WSIM_CELL_STALLED);
    assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
    assert_int_equal(wsim_cell_stalls(s, 0), 19);
    assert_int_equal(wsim_cell_stalls(s, 1), 19);
    assert_int_equal(wsim_cell_reg(s, 1, 5), 210);
    assert_int_equal(wsim_cycles(s), 63);
    wsim_free(s);
}

/* A gate named twice in a bundle is dequeued once; two writes to one gate in a bundle
 * enqueue in slot order. A single cell feeds itself through @fxl. */
static void test_gate_named_twice_dequeues_once(void **state)
{
    (void)state;
    tprog t = {0};
    wt_insn *b = bundle(&t);
    b->imm[0] = 3;
    b->imm[1] = 4;
    put(b, WT_SLOT_V0, WT_OP_MV, FXL, I0, 0, 0);
    put(b, WT_SLOT_V1, WT_OP_MV, FXL, I1, 0, 0);
    b = bundle(&t);
    put(b, WT_SLOT_A0, WT_OP_IADD, 1, XL, XL, 0);
    put(b, WT_SLOT_A1, WT_OP_MOV, 2, XL, 0, 0);
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, 3, XL, 0, 0);
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    wsim *s = make(&t, WT_MODEL_WARP, 0, 0, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
    assert_int_equal(wsim_cell_reg(s, 0, 1), 6);
    assert_int_equal(wsim_cell_reg(s, 0, 2), 3);
    assert_int_equal(wsim_cell_reg(s, 0, 3), 4);
    assert_int_equal(wsim_cell_stalls(s, 0), 0);
    wsim_free(s);
}

/* ---- The host ------------------------------------------------------------------- */

static uint32_t host_word(wsim *s, uint32_t addr)
{
    uint32_t size;
    const uint8_t *h = wsim_host_memory(s, &size);
    return (uint32_t)h[addr] | (uint32_t)h[addr + 1] << 8 | (uint32_t)h[addr + 2] << 16 |
           (uint32_t)h[addr + 3] << 24;
}

/* Words sent off either end are paired in order with the addresses given, whichever
 * comes first; address -1 drops its word. */
static void test_host_sink_pairs_words_with_addresses(void **state)
{
    (void)state;
    tprog t = {0};
    wt_insn *b = bundle(&t);                                 /* two words, no address yet */
    b->imm[0] = 1;
    b->imm[1] = 2;
    put(b, WT_SLOT_V0, WT_OP_MV, XL, I0, 0, 0);
    put(b, WT_SLOT_V1, WT_OP_MV, XL, I1, 0, 0);
    b = bundle(&t);
    b->imm[0] = 0;
    b->imm[1] = 12;
    put(b, WT_SLOT_V0, WT_OP_MV, AXL, I0, 0, 0);
    put(b, WT_SLOT_V1, WT_OP_MV, AXL, I1, 0, 0);
    b = bundle(&t);                                          /* address first, word later */
    b->imm[0] = 0xFFFFFFFFu;
    put(b, WT_SLOT_V0, WT_OP_MV, AXR, I0, 0, 0);
    b = bundle(&t);
    b->imm[0] = 222;
    put(b, WT_SLOT_V0, WT_OP_MV, XR, I0, 0, 0);
    b = bundle(&t);
    b->imm[0] = 333;
    b->imm[1] = 8;
    put(b, WT_SLOT_V0, WT_OP_MV, YR, I0, 0, 0);
    put(b, WT_SLOT_V1, WT_OP_MV, AYR, I1, 0, 0);
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    wsim *s = make(&t, WT_MODEL_WARP, 0, 0, 0, 16);
    assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
    assert_int_equal(host_word(s, 0), 1);
    assert_int_equal(host_word(s, 4), 0);
    assert_int_equal(host_word(s, 8), 333);
    assert_int_equal(host_word(s, 12), 2);
    wsim_free(s);
}

/* Feed writes reach the left end cell's own queue; other cells discard them and
 * receive from their neighbour. The right end's words to the host have no address
 * and are dropped at the end. */
static void test_host_feed_only_on_the_end_cell(void **state)
{
    (void)state;
    tprog t = {0};
    wt_insn *b = bundle(&t);
    b->imm[0] = 7;
    put(b, WT_SLOT_V0, WT_OP_MV, FXL, I0, 0, 0);
    b = bundle(&t);
    put(b, WT_SLOT_V0, WT_OP_MV, 1, XL, 0, 0);
    put(b, WT_SLOT_V1, WT_OP_MV, XR, CID, 0, 0);
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    wsim *s = make(&t, WT_MODEL_WARP, 4, 6, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
    assert_int_equal(wsim_cell_reg(s, 0, 1), 7);
    assert_int_equal(wsim_cell_reg(s, 1, 1), 4);
    assert_int_equal(wsim_cell_reg(s, 2, 1), 5);
    /* Cell 1's word from cell 0, sent at 1, arrives at 3: two stall clocks. */
    assert_int_equal(wsim_cell_stalls(s, 1), 2);
    assert_int_equal(wsim_cell_stalls(s, 2), 4);
    wsim_free(s);
}

/* A test bench's host: words waiting in the first cell's queue before the first clock
 * (more than the queue's depth), and every word the last cell sent the host kept,
 * the one given address -1 and the one never given an address alike. */
static void test_bench_feeds_ahead_and_keeps_host_words(void **state)
{
    (void)state;
    tprog t = {0};
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, 1, XL, 0, 0);
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, 2, XL, 0, 0);
    wt_insn *b = bundle(&t);
    b->imm[0] = 0xFFFFFFFFu;
    put(b, WT_SLOT_V0, WT_OP_MV, XR, 1, 0, 0);
    put(b, WT_SLOT_V1, WT_OP_MV, AXR, I0, 0, 0);
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, XR, 2, 0, 0);
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    wsim *s = make(&t, WT_MODEL_WARP, 0, 1, 0, 0);
    uint32_t words[200], got[8];
    for (unsigned i = 0; i < 200; i++) words[i] = 5 + i;
    unsigned depth = wt_model_get(WT_MODEL_WARP)->queue_words;
    assert_true(depth < 200);
    assert_int_equal(wsim_host_feed_ahead(s, 1, WT_Q_XL, words, 2), -1);   /* cell 1's left is cell 0 */
    assert_int_equal(wsim_host_feed_ahead(s, 0, WT_Q_XL, words, 200), 0);
    wsim_keep_host_words(s);
    assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
    assert_int_equal(wsim_host_feed_ahead(s, 0, WT_Q_XL, words, 1), -1);   /* the run is over */
    assert_int_equal(wsim_host_words(s, 1, WT_Q_XR, got, 8), 2);
    assert_int_equal(got[0], 5);
    assert_int_equal(got[1], 6);
    assert_int_equal(wsim_host_words(s, 0, WT_Q_XR, got, 8), 0);           /* cell 0 sent to cell 1 */
    assert_int_equal(wsim_queue_words(s, 0, WT_Q_XL, NULL, 0), 198);
    wsim_free(s);
    /* Not kept: only the word still waiting for an address. */
    s = make(&t, WT_MODEL_WARP, 0, 1, 0, 0);
    assert_int_equal(wsim_host_feed_ahead(s, 0, WT_Q_XL, words, 2), 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
    assert_int_equal(wsim_host_words(s, 1, WT_Q_XR, got, 8), 1);
    assert_int_equal(got[0], 6);
    wsim_free(s);
}

/* ---- The Warp interface unit (simulator/iu.c) -------------------------------------- */

static wsim *make_iu(const tprog *t, const tprog *iu, int first, int last, uint32_t host_size, char *err,
                     size_t errlen)
{
    wsim_program p = {
        .model = wt_model_get(WT_MODEL_WARP), .code = t->code, .ncode = t->n, .entry = 0,
        .host_size = host_size, .first_cell = first, .last_cell = last, .where = where, .iu_code = iu->code,
    };
    return wsim_new(&p, err, errlen);
}

static void put_host_word(wsim *s, uint32_t addr, uint32_t v)
{
    uint8_t *h = wsim_host_memory(s, NULL);
    for (int i = 0; i < 4; i++) h[addr + (uint32_t)i] = (uint8_t)(v >> (8 * i));
}

/* The IU's bundle i issues beside each end cell's bundle i, with its own registers:
 * it reads two host words into the left end's X queue and gives the right end's two
 * results their host addresses. The cells hold no host operation at all, and an inner
 * cell runs without the IU's operations. */
static void test_iu_feeds_the_left_end_and_addresses_the_right(void **state)
{
    (void)state;
    tprog t = {0}, iu = {0};
    wt_insn *b;
    bundle(&t);                          /* bundles 0, 1: the IU loads and feeds */
    b = bundle(&iu);
    b->imm[0] = 0;
    b->imm[1] = 4;
    put(b, WT_SLOT_M0, WT_OP_HLD, FXL, I0, 0, 0);                   /* hld @fxl, [0] */
    put(b, WT_SLOT_A0, WT_OP_IADD, 5, I1, 0, 0);                    /* IU r5 = 4 */
    bundle(&t);
    b = bundle(&iu);
    put(b, WT_SLOT_M0, WT_OP_HLD, FXL, 5, 0, 0);                    /* hld @fxl, [r5] */
    put(b, WT_SLOT_V0, WT_OP_MV, 6, 5, 0, 0);
    for (int i = 0; i < 2; i++) {       /* bundles 2, 3: cells add 1.0 and pass right */
        b = bundle(&t);
        b->imm[0] = fbits(1.0f);
        put(b, WT_SLOT_FA, WT_OP_FADD, XR, XL, I0, 0);
        b = bundle(&iu);
        b->imm[0] = 16 + 4 * (uint32_t)i;
        put(b, WT_SLOT_A1, WT_OP_MOV, AXR, I0, 0, 0);
    }
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    bundle(&iu);
    char err[256] = "";
    wsim *s = make_iu(&t, &iu, 0, 2, 32, err, sizeof err);
    if (!s) fail_msg("wsim_new: %s", err);
    put_host_word(s, 0, fbits(1.5f));
    put_host_word(s, 4, fbits(-4.0f));
    assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
    assert_int_equal(host_word(s, 16), fbits(4.5f));
    assert_int_equal(host_word(s, 20), fbits(-1.0f));
    /* No cell register was written: the IU's r5 and r6 are its own. */
    for (int k = 0; k < 3; k++) {
        assert_int_equal(wsim_cell_reg(s, k, 5), 0);
        assert_int_equal(wsim_cell_reg(s, k, 6), 0);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    wsim_print_stats(s, f);
    fclose(f);
    assert_non_null(strstr(text, "iu (cell 0's end): bundles 4, words into the array 2, host addresses 0"));
    assert_non_null(strstr(text, "iu (cell 2's end): bundles 4, words into the array 0, host addresses 2"));
    assert_non_null(strstr(text, "iu link: 2 words in, 2 out"));
    assert_non_null(strstr(text, "host: 4 words, 8 cycles at 10 MB/s"));
    free(text);
    wsim_free(s);
}

/* The IU link moves one word into the array a cycle: an IU bundle that feeds both
 * the X and the Y queue holds its end cell a second clock. */
static void test_iu_link_takes_a_word_a_cycle(void **state)
{
    (void)state;
    uint64_t cycles[2];
    for (int two = 0; two < 2; two++) {
        tprog t = {0}, iu = {0};
        bundle(&t);
        wt_insn *b = bundle(&iu);
        b->imm[0] = 3;
        put(b, WT_SLOT_V0, WT_OP_MV, FXL, I0, 0, 0);
        put(b, WT_SLOT_V1, WT_OP_MV, two ? FYL : 1, I0, 0, 0);
        b = bundle(&t);
        put(b, WT_SLOT_V0, WT_OP_MV, 1, XL, 0, 0);
        branch(bundle(&t), WT_OP_HALT, 0, 0);
        bundle(&iu);
        bundle(&iu);
        char err[256] = "";
        wsim *s = make_iu(&t, &iu, 0, 0, 0, err, sizeof err);
        if (!s) fail_msg("wsim_new: %s", err);
        assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
        assert_int_equal(wsim_cell_reg(s, 0, 1), 3);
        assert_int_equal(wsim_cell_stalls(s, 0), 0);
        cycles[two] = wsim_cycles(s);
        wsim_free(s);
    }
    assert_int_equal(cycles[1], cycles[0] + 1);
}

/* What the IU has not got is refused when the program is loaded, by bundle and slot. */
static void test_iu_refuses_what_it_has_not_got(void **state)
{
    (void)state;
    static const struct { wt_slot_id slot; wt_op op; unsigned d, a; const char *why; } cases[] = {
        {WT_SLOT_FA, WT_OP_FADD, 1, 2, "slot FA: a floating-point operation"},
        {WT_SLOT_BR, WT_OP_JMP, 0, 0, "slot BR: a branch"},
        {WT_SLOT_M0, WT_OP_LD, 1, 2, "slot M0: a data-memory access"},
        {WT_SLOT_V0, WT_OP_MV, XR, 2, "slot V0: a destination other than"},
        {WT_SLOT_V0, WT_OP_MV, 1, XL, "slot V0: a source other than"},
        {WT_SLOT_V0, WT_OP_MV, 1, CID, "slot V0: a source other than"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tprog t = {0}, iu = {0};
        bundle(&t);
        branch(bundle(&t), WT_OP_HALT, 0, 0);
        bundle(&iu);
        put(bundle(&iu), cases[i].slot, cases[i].op, cases[i].d, cases[i].a, 0, 0);
        char err[256] = "";
        wsim *s = make_iu(&t, &iu, 0, 1, 0, err, sizeof err);
        assert_null(s);
        assert_non_null(strstr(err, "interface unit bundle 1, "));
        if (!strstr(err, cases[i].why)) fail_msg("case %zu: %s", i, err);
    }
    /* The iWarp has no IU. */
    tprog t = {0}, iu = {0};
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    bundle(&iu);
    wsim_program p = {.model = wt_model_get(WT_MODEL_IWARP), .code = t.code, .ncode = 1, .iu_code = iu.code};
    char err[256] = "";
    assert_null(wsim_new(&p, err, sizeof err));
    assert_non_null(strstr(err, "only the Warp"));
}

static void test_host_load_and_store_bounds(void **state)
{
    (void)state;
    tprog t = {0};
    wt_insn *b = bundle(&t);
    b->imm[0] = 4;
    b->imm[1] = 400;
    put(b, WT_SLOT_M0, WT_OP_HLD, 1, 0, I0, 0);
    put(b, WT_SLOT_M1, WT_OP_HLD, 2, 0, I1, 0); /* outside host memory: reads 0 */
    b = bundle(&t);
    b->imm[0] = 9;
    b->imm[1] = 64;
    put(b, WT_SLOT_V0, WT_OP_MV, XL, I0, 0, 0);
    put(b, WT_SLOT_V1, WT_OP_MV, AXL, I1, 0, 0);
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    wsim *s = make(&t, WT_MODEL_WARP, 0, 0, 0, 16);
    uint32_t size;
    uint8_t *h = wsim_host_memory(s, &size);
    assert_int_equal(size, 16);
    h[4] = 0x2a;
    assert_int_equal(wsim_run(s, 1000), WSIM_FAULT);
    assert_int_equal(wsim_cell_reg(s, 0, 1), 0x2a);
    assert_int_equal(wsim_cell_reg(s, 0, 2), 0);
    assert_string_equal(wsim_message(s),
                        "cell 0 (cid 0): pc 1 (t.w2:2): host store to address 0x40 is outside host memory "
                        "(host memory is 16 bytes)");
    wsim_free(s);
}

/* ---- Faults ------------------------------------------------------------------------- */

static void test_division_by_zero_faults(void **state)
{
    (void)state;
    tprog t = {0};
    mov_imm(bundle(&t), WT_SLOT_A0, 1, 0, 5);
    put(bundle(&t), WT_SLOT_A1, WT_OP_IDIV, 2, 1, 0, 0);
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    wsim *s = make(&t, WT_MODEL_WARP, 3, 3, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_FAULT);
    assert_string_equal(wsim_message(s), "cell 0 (cid 3): pc 1 (t.w2:2): integer division by zero (idiv)");
    assert_int_equal(wsim_cell_state_of(s, 0), WSIM_CELL_FAULTED);
    assert_int_equal(wsim_cycles(s), 1);
    wsim_free(s);
}

/* An inner cell runs the bundle without its host-feed write (no side feeds the host
 * there), but a fault still counts every operation issued before the faulting one,
 * the dropped fadd included, as on the end cells. */
static void test_fault_counts_operations_an_inner_cell_drops(void **state)
{
    (void)state;
    tprog t = {0};
    wt_insn *b = bundle(&t);
    b->imm[0] = 1;
    put(b, WT_SLOT_A0, WT_OP_ISUB, 1, CID, I0, 0); /* r1 = cid - 1: 0 on cell 1 only */
    for (int i = 0; i < 4; i++) bundle(&t);
    b = bundle(&t);
    put(b, WT_SLOT_FA, WT_OP_FADD, FXL, 0, 0, 0);
    put(b, WT_SLOT_A1, WT_OP_IDIV, 2, 3, 1, 0);
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    wsim *s = make(&t, WT_MODEL_WARP, 0, 2, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_FAULT);
    assert_string_equal(wsim_message(s), "cell 1 (cid 1): pc 5 (t.w2:6): integer division by zero (idiv)");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    wsim_print_stats(s, f);
    fclose(f);
    /* Fault at clock 5: one FA operation over 5 clocks. */
    assert_non_null(strstr(text, "cell 1 (cid 1): issued 5, stalls 0 (queue 0, unit 0), FA 20.0%"));
    free(text);
    wsim_free(s);
}

static void test_memory_faults(void **state)
{
    (void)state;
    tprog t = {0};
    wt_insn *b = bundle(&t);
    b->imm[0] = 6;
    put(b, WT_SLOT_M0, WT_OP_LD, 1, 0, I0, 0);
    wsim *s = make(&t, WT_MODEL_WARP, 0, 0, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_FAULT);
    assert_string_equal(wsim_message(s), "cell 0 (cid 0): pc 0 (t.w2:1): load from data address 0x6 is "
                                         "misaligned (data memory is 16384 bytes)");
    wsim_free(s);

    t.code[0].imm[0] = 16384;
    t.code[0].slot[WT_SLOT_M0].op = WT_OP_ST;
    s = make(&t, WT_MODEL_WARP, 0, 0, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_FAULT);
    assert_string_equal(wsim_message(s), "cell 0 (cid 0): pc 0 (t.w2:1): store to data address 0x4000 is "
                                         "outside data memory (data memory is 16384 bytes)");
    wsim_free(s);
}

/* A store writes memory at the end of its clock: a load in the same bundle reads the
 * old word, one in the next bundle the new; the load's result takes 2 clocks. */
static void test_store_then_load(void **state)
{
    (void)state;
    tprog t = {0};
    wt_insn *b = bundle(&t);
    mov_imm(b, WT_SLOT_A0, 1, 0, 0x1234);
    b = bundle(&t);
    b->imm[0] = 8;
    put(b, WT_SLOT_M0, WT_OP_ST, 1, 0, I0, 0);
    put(b, WT_SLOT_M1, WT_OP_LD, 2, 0, I0, 0);
    b = bundle(&t);
    b->imm[0] = 8;
    put(b, WT_SLOT_M0, WT_OP_LD, 3, 0, I0, 0);
    put(bundle(&t), WT_SLOT_A0, WT_OP_MOV, 4, 3, 0, 0);  /* clock 3: too early */
    put(bundle(&t), WT_SLOT_A0, WT_OP_MOV, 5, 3, 0, 0);  /* clock 4 */
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    wsim *s = make(&t, WT_MODEL_WARP, 0, 0, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
    assert_int_equal(wsim_cell_reg(s, 0, 2), 0);
    assert_int_equal(wsim_cell_reg(s, 0, 3), 0x1234);
    assert_int_equal(wsim_cell_reg(s, 0, 4), 0);
    assert_int_equal(wsim_cell_reg(s, 0, 5), 0x1234);
    uint32_t size;
    const uint8_t *mem = wsim_cell_data(s, 0, &size);
    assert_int_equal(size, 16384);
    assert_int_equal(mem[8], 0x34);
    assert_int_equal(mem[9], 0x12);
    wsim_free(s);
}

static void test_pc_outside_program_faults(void **state)
{
    (void)state;
    tprog t = {0};
    branch(bundle(&t), WT_OP_JMP, 0, 40);
    wsim *s = make(&t, WT_MODEL_WARP, 0, 0, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_FAULT);
    /* Blamed on the jump, whose source line is the one to fix. */
    assert_string_equal(wsim_message(s),
                        "cell 0 (cid 0): pc 0 (t.w2:1): jump to bundle 40, outside the program (1 bundles)");
    wsim_free(s);

    tprog u = {0};
    bundle(&u);
    s = make(&u, WT_MODEL_WARP, 0, 0, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_FAULT);
    assert_string_equal(wsim_message(s), "cell 0 (cid 0): pc 0 (t.w2:1): runs past the end of the program (1 bundles)");
    wsim_free(s);
}

static void test_undefined_operation_faults(void **state)
{
    (void)state;
    tprog t = {0};
    put(bundle(&t), WT_SLOT_FA, WT_OP_IADD, 1, 0, 0, 0); /* an ALU operation in the FA field */
    wsim *s = make(&t, WT_MODEL_WARP, 0, 0, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_FAULT);
    assert_string_equal(wsim_message(s), "cell 0 (cid 0): pc 0 (t.w2:1): undefined opcode or operand");
    wsim_free(s);
}

/* ---- Deadlock ---------------------------------------------------------------------- */

/* Both cells receive first: at clock 1 neither can issue and nothing is in flight. */
static void test_deadlock_report(void **state)
{
    (void)state;
    tprog t = {0};
    branch(bundle(&t), WT_OP_BNZ, CID, 3);
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, 1, XR, 0, 0);
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    put(bundle(&t), WT_SLOT_V0, WT_OP_MV, 1, XL, 0, 0);
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    wsim *s = make(&t, WT_MODEL_IWARP, 0, 1, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_DEADLOCK);
    assert_int_equal(wsim_cycles(s), 1);
    assert_string_equal(wsim_message(s), "wait-for cycle: cell 0 -> cell 1 -> cell 0\n"
                                         "cell 0 (cid 0): pc 1 (t.w2:2): waits to read @xr from in XRight.0 (empty); "
                                         "cell 1 writes it through @xl (cell 0 in XRight.0 < cell 1 out XLeft.0 < "
                                         "cell 1 local 12)\n"
                                         "cell 1 (cid 1): pc 3 (t.w2:4): waits to read @xl from in XLeft.0 (empty); "
                                         "cell 0 writes it through @xr (cell 1 in XLeft.0 < cell 0 out XRight.0 < "
                                         "cell 0 local 14)");
    wsim_free(s);
}

/* Cell 1 halts at once; cell 0 fills both queues on the way (its local channel and
 * cell 1's) and waits for room for ever. */
static void test_deadlock_on_full_queue(void **state)
{
    (void)state;
    tprog t = {0};
    branch(bundle(&t), WT_OP_BNZ, CID, 3);
    mov_imm(bundle(&t), WT_SLOT_A0, 1, 0, 20);
    wt_insn *b = bundle(&t);
    put(b, WT_SLOT_V0, WT_OP_MV, XR, 1, 0, 0);
    branch(b, WT_OP_DBNZ, 1, 2);
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    wsim *s = make(&t, WT_MODEL_IWARP, 0, 1, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_DEADLOCK);
    /* A word every 2 clocks through the gate's bus from clock 2: the 16th (8 in cell
     * 1's queue, 8 in the local channel) at 32; clock 34 finds the channel full. */
    assert_int_equal(wsim_cycles(s), 34);
    assert_string_equal(wsim_message(s), "no wait-for cycle: every wait ends at a halted cell, the host or nothing\n"
                                         "cell 0 (cid 0): pc 2 (t.w2:3): waits to write @xr to local 14 (full); "
                                         "cell 1 reads it through @xl (cell 0 local 14 > cell 0 out XRight.0 > "
                                         "cell 1 in XLeft.0), which has halted");
    wsim_free(s);
}

/* ---- Sequencing ------------------------------------------------------------------- */

/* Three gate operations take two clocks on iWarp (none of that on Warp); feed
 * writes do not count. iWarp clocks: bundle 0 at 0, bundle 1 at 1 and 2, bundle 2
 * (two gate writes and a feed) at 3, halt at 4. */
static void check_gate_rule(wt_model_id m)
{
    int iwarp = m == WT_MODEL_IWARP;
    tprog t = {0};
    wt_insn *b = bundle(&t);
    b->imm[0] = 1;
    b->imm[1] = 2;
    put(b, WT_SLOT_V0, WT_OP_MV, FXL, I0, 0, 0);
    put(b, WT_SLOT_V1, WT_OP_MV, FYL, I1, 0, 0);
    put(bundle(&t), WT_SLOT_A0, WT_OP_IADD, XR, XL, YL, 0);
    b = bundle(&t);
    b->imm[0] = 5;
    put(b, WT_SLOT_V0, WT_OP_MV, XR, I0, 0, 0);
    put(b, WT_SLOT_V1, WT_OP_MV, YR, I0, 0, 0);
    put(b, WT_SLOT_A0, WT_OP_MOV, FXL, I0, 0, 0);
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    wsim *s = make(&t, m, 0, 0, 0, 0);
    steps(s, 3);
    assert_int_equal(wsim_cell_issued(s, 0), iwarp ? 2 : 3);
    steps(s, 1);
    assert_int_equal(wsim_cell_issued(s, 0), iwarp ? 3 : 4);
    if (iwarp) {
        steps(s, 1);
        assert_int_equal(wsim_cell_issued(s, 0), 4);
    }
    assert_int_equal(wsim_cell_state_of(s, 0), WSIM_CELL_HALTED);
    assert_int_equal(wsim_cell_stalls(s, 0), 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
    wsim_free(s);
}

static void test_gate_rule_iwarp(void **state) { (void)state; check_gate_rule(WT_MODEL_IWARP); }
static void test_gate_rule_warp(void **state) { (void)state; check_gate_rule(WT_MODEL_WARP); }

/* Cell k starts at clock k*skew. */
static void test_skew(void **state)
{
    (void)state;
    tprog t = {0};
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    wsim *s = make(&t, WT_MODEL_WARP, 0, 2, 5, 0);
    steps(s, 5);
    assert_int_equal(wsim_cell_state_of(s, 0), WSIM_CELL_HALTED);
    assert_int_equal(wsim_cell_state_of(s, 1), WSIM_CELL_WAITING);
    steps(s, 1);
    assert_int_equal(wsim_cell_state_of(s, 1), WSIM_CELL_HALTED);
    assert_int_equal(wsim_cell_state_of(s, 2), WSIM_CELL_WAITING);
    assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
    assert_int_equal(wsim_cycles(s), 11);
    assert_int_equal(wsim_cell_stalls(s, 2), 0);
    wsim_free(s);
}

static void test_call_and_return(void **state)
{
    (void)state;
    tprog t = {0};
    branch(bundle(&t), WT_OP_CALL, 0, 3);             /* 0 */
    mov_imm(bundle(&t), WT_SLOT_A0, 2, 0, 5);         /* 1 */
    branch(bundle(&t), WT_OP_HALT, 0, 0);             /* 2 */
    mov_imm(bundle(&t), WT_SLOT_A0, 1, 0, 7);         /* 3 */
    branch(bundle(&t), WT_OP_RET, 0, 0);              /* 4 */
    wsim *s = make(&t, WT_MODEL_WARP, 0, 0, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
    assert_int_equal(wsim_cell_reg(s, 0, 1), 7);
    assert_int_equal(wsim_cell_reg(s, 0, 2), 5);
    assert_int_equal(wsim_cell_issued(s, 0), 5);
    wsim_free(s);

    tprog r = {0};
    branch(bundle(&r), WT_OP_CALL, 0, 0);             /* recursion without end */
    s = make(&r, WT_MODEL_WARP, 0, 0, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_FAULT);
    assert_string_equal(wsim_message(s), "cell 0 (cid 0): pc 0 (t.w2:1): return stack overflow (depth 16)");
    assert_int_equal(wsim_cycles(s), 16);
    wsim_free(s);

    tprog u = {0};
    branch(bundle(&u), WT_OP_RET, 0, 0);
    s = make(&u, WT_MODEL_WARP, 0, 0, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_FAULT);
    assert_string_equal(wsim_message(s), "cell 0 (cid 0): pc 0 (t.w2:1): return stack underflow (ret with no call)");
    wsim_free(s);
}

/* dbnz r1 with r1 = 10 runs its bundle 10 times. Clocks: mov 0, loop 1..10, halt 11. */
static tprog dbnz_program(void)
{
    tprog t = {0};
    mov_imm(bundle(&t), WT_SLOT_A0, 1, 0, 10);
    wt_insn *b = bundle(&t);
    b->imm[0] = 3;
    put(b, WT_SLOT_A0, WT_OP_IADD, 2, 2, I0, 0);
    branch(b, WT_OP_DBNZ, 1, 1);
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    return t;
}

static void test_dbnz_loop(void **state)
{
    (void)state;
    tprog t = dbnz_program();
    wsim *s = make(&t, WT_MODEL_WARP, 0, 0, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
    assert_int_equal(wsim_cell_reg(s, 0, 1), 0);
    assert_int_equal(wsim_cell_reg(s, 0, 2), 30);
    assert_int_equal(wsim_cell_issued(s, 0), 12);
    assert_int_equal(wsim_cycles(s), 12);
    wsim_free(s);
}

static void test_cycle_limit_and_resume(void **state)
{
    (void)state;
    tprog t = dbnz_program();
    wsim *s = make(&t, WT_MODEL_WARP, 0, 0, 0, 0);
    assert_int_equal(wsim_run(s, 5), WSIM_CYCLE_LIMIT);
    assert_int_equal(wsim_status_of(s), WSIM_CYCLE_LIMIT);
    assert_int_equal(wsim_cycles(s), 5);
    assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
    assert_int_equal(wsim_cycles(s), 12);
    assert_int_equal(wsim_cell_reg(s, 0, 2), 30);
    wsim_free(s);
}

static void test_stats_format(void **state)
{
    (void)state;
    tprog t = dbnz_program();
    wsim *s = make(&t, WT_MODEL_WARP, 0, 0, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    wsim_print_stats(s, f);
    fclose(f);
    /* 11 ALU operations over 12 clocks and 2 slots; 11 BR over 12 clocks and 1 slot. */
    assert_string_equal(text, "cycles: 12\n"
                              "cell 0 (cid 0): issued 12, stalls 0 (queue 0, unit 0), FA 0.0%, FM 0.0%, "
                              "ALU 45.8%, MEM 0.0%, MV 0.0%, BR 91.7%\n");
    free(text);
    wsim_free(s);
}

/* The figures of a window of clocks: clocks 1 to 4 of the loop issue 4 bundles,
 * each an iadd (ALU, 2 slots) and a dbnz (BR, 1 slot); the mov of clock 0 is not
 * in it. A window from the start is --stats's line. */
static void test_stats_window(void **state)
{
    (void)state;
    tprog t = dbnz_program();
    wsim *s = make(&t, WT_MODEL_WARP, 0, 0, 0, 0);
    steps(s, 1);
    wsim_cell_figures from, to;
    wsim_cell_figures_of(s, 0, &from);
    steps(s, 4);
    wsim_cell_figures_of(s, 0, &to);
    assert_int_equal(to.cycle - from.cycle, 4);
    assert_int_equal(to.issued - from.issued, 4);
    assert_int_equal(to.class_ops[WT_UC_ALU] - from.class_ops[WT_UC_ALU], 4);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    wsim_print_cell_window(s, 0, &from, &to, f);
    wsim_print_cell_window(s, 0, NULL, &to, f);
    fclose(f);
    assert_string_equal(text, "cell 0 (cid 0): issued 4, stalls 0 (queue 0, unit 0), FA 0.0%, FM 0.0%, "
                              "ALU 50.0%, MEM 0.0%, MV 0.0%, BR 100.0%\n"
                              "cell 0 (cid 0): issued 5, stalls 0 (queue 0, unit 0), FA 0.0%, FM 0.0%, "
                              "ALU 50.0%, MEM 0.0%, MV 0.0%, BR 80.0%\n");
    free(text);
    wsim_free(s);
}

/* The values come from warp_ops.def: a sample across the classes. */
static void test_operation_values(void **state)
{
    (void)state;
    tprog t = {0};
    wt_insn *b = bundle(&t);
    mov_imm(b, WT_SLOT_A0, 1, 0, (uint32_t)-20);
    mov_imm(b, WT_SLOT_A1, 2, 1, 3);
    b = bundle(&t);
    put(b, WT_SLOT_A0, WT_OP_SRA, 3, 1, 2, 0);
    put(b, WT_SLOT_A1, WT_OP_IMOD, 4, 1, 2, 0);
    put(b, WT_SLOT_FA, WT_OP_ITOF, 5, 1, 0, 0);
    b = bundle(&t);
    put(b, WT_SLOT_A0, WT_OP_SEL, 6, 0, 1, 2);
    put(b, WT_SLOT_A1, WT_OP_ILT, 7, 1, 2, 0);
    branch(bundle(&t), WT_OP_HALT, 0, 0);
    wsim *s = make(&t, WT_MODEL_IWARP, 0, 0, 0, 0);
    assert_int_equal(wsim_run(s, 1000), WSIM_DONE);
    assert_int_equal(wsim_cell_reg(s, 0, 3), (uint32_t)-3);
    assert_int_equal(wsim_cell_reg(s, 0, 4), (uint32_t)-2);
    assert_int_equal(wsim_cell_reg(s, 0, 5), fbits(-20.0f));
    assert_int_equal(wsim_cell_reg(s, 0, 6), 3);
    assert_int_equal(wsim_cell_reg(s, 0, 7), 1);
    wsim_free(s);
}

static void test_new_rejects_what_does_not_fit(void **state)
{
    (void)state;
    tprog t = {0};
    bundle(&t);
    wsim_program p = {.model = wt_model_get(WT_MODEL_WARP), .code = t.code, .ncode = 1,
                      .first_cell = 0, .last_cell = WSIM_MAX_CELLS};
    char err[256];
    assert_null(wsim_new(&p, err, sizeof err));
    assert_non_null(strstr(err, "cells"));
    p.last_cell = 0;
    p.entry = 1;
    assert_null(wsim_new(&p, err, sizeof err));
    assert_non_null(strstr(err, "entry"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_latency_warp),
        cmocka_unit_test(test_float_latency_iwarp),
        cmocka_unit_test(test_double_precision),
        cmocka_unit_test(test_results_land_while_stalled),
        cmocka_unit_test(test_divide_interval_warp),
        cmocka_unit_test(test_divide_interval_iwarp),
        cmocka_unit_test(test_queue_timing_warp),
        cmocka_unit_test(test_queue_timing_iwarp),
        cmocka_unit_test(test_full_queue_stalls_sender),
        cmocka_unit_test(test_gate_named_twice_dequeues_once),
        cmocka_unit_test(test_host_sink_pairs_words_with_addresses),
        cmocka_unit_test(test_host_feed_only_on_the_end_cell),
        cmocka_unit_test(test_bench_feeds_ahead_and_keeps_host_words),
        cmocka_unit_test(test_iu_feeds_the_left_end_and_addresses_the_right),
        cmocka_unit_test(test_iu_link_takes_a_word_a_cycle),
        cmocka_unit_test(test_iu_refuses_what_it_has_not_got),
        cmocka_unit_test(test_host_load_and_store_bounds),
        cmocka_unit_test(test_division_by_zero_faults),
        cmocka_unit_test(test_fault_counts_operations_an_inner_cell_drops),
        cmocka_unit_test(test_memory_faults),
        cmocka_unit_test(test_store_then_load),
        cmocka_unit_test(test_pc_outside_program_faults),
        cmocka_unit_test(test_undefined_operation_faults),
        cmocka_unit_test(test_deadlock_report),
        cmocka_unit_test(test_deadlock_on_full_queue),
        cmocka_unit_test(test_gate_rule_iwarp),
        cmocka_unit_test(test_gate_rule_warp),
        cmocka_unit_test(test_skew),
        cmocka_unit_test(test_call_and_return),
        cmocka_unit_test(test_dbnz_loop),
        cmocka_unit_test(test_cycle_limit_and_resume),
        cmocka_unit_test(test_stats_format),
        cmocka_unit_test(test_stats_window),
        cmocka_unit_test(test_operation_values),
        cmocka_unit_test(test_new_rejects_what_does_not_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
