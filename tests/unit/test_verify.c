/* Unit tests of the machine-IR verifier (backend/verify.c): a small function built
 * by hand passes at every stage, and each way of breaking an invariant is caught
 * and named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mir.h"

/* @B0: %1 = 1.5; %2 = %1 + %1 (fadd); halt */
typedef struct fixture {
    wb_func *f;
    int v1, v2;
} fixture;

static fixture build(void)
{
    fixture x;
    x.f = wb_func_new("main", wt_model_by_name("warp"));
    int b = wb_new_block(x.f);
    wb_place_block(x.f, b);
    x.v1 = wb_new_vreg(x.f, 0);
    x.v2 = wb_new_vreg(x.f, 0);
    wb_ins in = {.op = WB_COPY, .d = wb_vreg(x.v1), .s = {wb_imm(0x3fc00000u, 1)}};
    wb_append(x.f, b, &in);
    wb_ins add = {.op = WT_OP_FADD, .d = wb_vreg(x.v2), .s = {wb_vreg(x.v1), wb_vreg(x.v1)}};
    wb_append(x.f, b, &add);
    x.f->blocks[b]->term = (wb_ins){.op = WT_OP_HALT};
    return x;
}

/* Issue clocks by hand: the copy at 0 (as mv), the add once the copy is done. */
static void schedule(fixture *x)
{
    wb_block *b = x->f->blocks[0];
    b->ins[0].cycle = 0;
    b->ins[0].mop = WT_OP_MV;
    int ready = wb_latency(x->f, WT_OP_MV);
    b->ins[1].cycle = ready;
    b->ins[1].mop = WT_OP_FADD;
    b->term.cycle = ready + wb_latency(x->f, WT_OP_FADD);
    b->term.mop = WT_OP_HALT;
    b->len = b->term.cycle + 1;
}

static void allocate(fixture *x)
{
    wb_block *b = x->f->blocks[0];
    b->ins[0].d = wb_reg(1);
    b->ins[1].d = wb_reg(2);
    b->ins[1].s[0] = b->ins[1].s[1] = wb_reg(1);
}

/* The verifier's verdict at a stage, and its message. */
static int verify(const fixture *x, unsigned stage, char *msg, size_t size)
{
    ws_diagnostic fault;
    int rc = wb_verify(x->f, stage, &fault);
    if (snprintf(msg, size, "%s", fault.message) < 0) msg[0] = 0;
    return rc;
}

static void expect_fault(const fixture *x, unsigned stage, const char *words)
{
    char msg[512];
    assert_int_equal(verify(x, stage, msg, sizeof msg), -1);
    if (!strstr(msg, words)) fail_msg("expected '%s' in: %s", words, msg);
    assert_non_null(strstr(msg, "function main, @B0"));
}

static void test_valid_function_passes_every_stage(void **state)
{
    (void)state;
    fixture x = build();
    char msg[512];
    assert_int_equal(verify(&x, 0, msg, sizeof msg), 0);
    schedule(&x);
    assert_int_equal(verify(&x, WB_VERIFY_SCHEDULED, msg, sizeof msg), 0);
    allocate(&x);
    assert_int_equal(verify(&x, WB_VERIFY_SCHEDULED | WB_VERIFY_ALLOCATED, msg, sizeof msg), 0);
    wb_func_free(x.f);
}

static void test_read_before_write(void **state)
{
    (void)state;
    fixture x = build();
    int v3 = wb_new_vreg(x.f, 0);
    x.f->blocks[0]->ins[1].s[1] = wb_vreg(v3);
    expect_fault(&x, 0, "may be read before anything writes it");
    wb_func_free(x.f);
}

static void test_vreg_out_of_range(void **state)
{
    (void)state;
    fixture x = build();
    x.f->blocks[0]->ins[1].s[0] = wb_vreg(99);
    expect_fault(&x, 0, "virtual register %99 out of range");
    wb_func_free(x.f);
}

static void test_branch_to_missing_block(void **state)
{
    (void)state;
    fixture x = build();
    x.f->blocks[0]->term = (wb_ins){.op = WT_OP_JMP, .target = 7};
    expect_fault(&x, 0, "branch to block 7, which does not exist");
    wb_func_free(x.f);
}

static void test_branch_inside_block(void **state)
{
    (void)state;
    fixture x = build();
    wb_ins j = {.op = WT_OP_JMP, .target = 0};
    wb_insert(x.f, 0, 1, &j);
    expect_fault(&x, 0, "a branch in the body of a block");
    wb_func_free(x.f);
}

static void test_missing_source(void **state)
{
    (void)state;
    fixture x = build();
    x.f->blocks[0]->ins[1].s[1] = (wb_opnd){0};
    expect_fault(&x, 0, "source operand missing");
    wb_func_free(x.f);
}

static void test_value_read_before_ready(void **state)
{
    (void)state;
    fixture x = build();
    schedule(&x);
    x.f->blocks[0]->ins[1].cycle = 0;   /* in the copy's own bundle */
    expect_fault(&x, WB_VERIFY_SCHEDULED, "before it is ready");
    wb_func_free(x.f);
}

static void test_bundle_over_its_slots(void **state)
{
    (void)state;
    fixture x = build();
    wb_ins add = {.op = WT_OP_FADD, .d = wb_vreg(wb_new_vreg(x.f, 0)), .s = {wb_vreg(x.v1), wb_vreg(x.v1)}};
    wb_append(x.f, 0, &add);
    schedule(&x);
    wb_ins *second = &x.f->blocks[0]->ins[2];
    second->cycle = x.f->blocks[0]->ins[1].cycle;   /* two float adds, one FA slot */
    second->mop = WT_OP_FADD;
    expect_fault(&x, WB_VERIFY_SCHEDULED, "no free FA slot");
    wb_func_free(x.f);
}

static void test_three_literals_in_a_bundle(void **state)
{
    (void)state;
    fixture x = build();
    for (int k = 0; k < 2; k++) {
        wb_ins c = {.op = WB_COPY, .d = wb_vreg(wb_new_vreg(x.f, 0)), .s = {wb_imm(100u + (unsigned)k, 0)}};
        wb_append(x.f, 0, &c);
    }
    schedule(&x);
    for (int k = 2; k < 4; k++) {
        x.f->blocks[0]->ins[k].cycle = 0;
        x.f->blocks[0]->ins[k].mop = k == 2 ? WT_OP_MV : WT_OP_MOV;
    }
    expect_fault(&x, WB_VERIFY_SCHEDULED, "a third distinct literal");
    wb_func_free(x.f);
}

static void test_wrong_machine_op(void **state)
{
    (void)state;
    fixture x = build();
    schedule(&x);
    x.f->blocks[0]->ins[1].mop = WT_OP_FMUL;
    expect_fault(&x, WB_VERIFY_SCHEDULED, "scheduled as 'fmul', which cannot run it");
    wb_func_free(x.f);
}

static void test_clock_outside_block(void **state)
{
    (void)state;
    fixture x = build();
    schedule(&x);
    x.f->blocks[0]->ins[0].cycle = x.f->blocks[0]->len;
    expect_fault(&x, WB_VERIFY_SCHEDULED, "outside the block's");
    wb_func_free(x.f);
}

static void test_vreg_after_allocation(void **state)
{
    (void)state;
    fixture x = build();
    schedule(&x);
    allocate(&x);
    x.f->blocks[0]->ins[1].s[1] = wb_vreg(x.v1);
    expect_fault(&x, WB_VERIFY_SCHEDULED | WB_VERIFY_ALLOCATED, "left after allocation");
    wb_func_free(x.f);
}

static void test_ii_on_unpipelined_block(void **state)
{
    (void)state;
    fixture x = build();
    x.f->blocks[0]->ii = 2;
    expect_fault(&x, 0, "an II of 2 on a block the pipeliner did not schedule");
    wb_func_free(x.f);
}

/* What -verify-each prints when a pass breaks the machine IR: the broken operation's
 * W2 line and column, the pass, and the source line with a caret, as any error. */
static void test_fault_after_a_pass_is_located(void **state)
{
    (void)state;
    fixture x = build();
    wb_block *b = x.f->blocks[0];
    b->ins[0].line = 4, b->ins[0].col = 5;
    b->ins[1].line = 5, b->ins[1].col = 10;
    schedule(&x);
    b->ins[1].cycle = 0;   /* as if the scheduler had put the add beside the copy */
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("t", ctx);
    LLVMSetDataLayout(m, "e-m:e-p:32:32-i64:32-f64:32-n32-S32");
    ws_diagnostic err;
    wb_module *mod = wb_module_new(m, &err);
    assert_non_null(mod);
    assert_int_equal(wb_verify_after(mod, x.f, WB_VERIFY_SCHEDULED, WB_PASS_SCHEDULE), -1);
    static const char src[] = "module m (r out)\nfloat r;\ncellprogram (c : 0 : 0)\nbegin\n"
                              "  y := x + x;\n  send (R, X, y, r)\nend\n";
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    ws_diag d;
    ws_diag_init(&d, "t.w2", src, sizeof src - 1);
    d.out = out;
    ws_emit(&d, &err);
    fclose(out);
    char expected[512];
    snprintf(expected, sizeof expected,
             "t.w2:5:10: error: internal error: machine IR verifier, after schedule: function main, @B0, "
             "'fadd %%2, %%1, %%1': reads %%1 at clock 0, before it is ready at clock %d\n"
             "  y := x + x;\n"
             "         ^\n",
             wb_latency(x.f, WT_OP_MV));
    assert_string_equal(text, expected);
    free(text);
    wb_module_free(mod);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    wb_func_free(x.f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_function_passes_every_stage),
        cmocka_unit_test(test_read_before_write),
        cmocka_unit_test(test_vreg_out_of_range),
        cmocka_unit_test(test_branch_to_missing_block),
        cmocka_unit_test(test_branch_inside_block),
        cmocka_unit_test(test_missing_source),
        cmocka_unit_test(test_value_read_before_ready),
        cmocka_unit_test(test_bundle_over_its_slots),
        cmocka_unit_test(test_three_literals_in_a_bundle),
        cmocka_unit_test(test_wrong_machine_op),
        cmocka_unit_test(test_clock_outside_block),
        cmocka_unit_test(test_vreg_after_allocation),
        cmocka_unit_test(test_ii_on_unpipelined_block),
        cmocka_unit_test(test_fault_after_a_pass_is_located),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
