/* One row of the machine description is all a new operation needs: this program is
 * linked with copies of the stage libraries built with tests/unit/xop/extra_ops.def
 * (an integer average, `tavg`, that no source file of the toolchain names), and
 * shows the assembler encoding it, the disassembler printing it, the list scheduler
 * timing it by its latency, flow control timing a Warp program that uses it, and
 * the simulator computing it. A branch, `tbnz`, of an existing kind: the table's
 * flow column for its kind is all that flow control, the simulator, the backend's
 * control-flow graph and the verifier learn of it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mir.h"
#include "warp_assembler.h"
#include "warp_linker.h"
#include "warp_runtime.h"
#include "warp_sim.h"
#include "warp_support.h"
#include "warp_target.h"

static void test_the_table_has_it(void **state)
{
    (void)state;
    wt_op op = wt_op_lookup("tavg");
    assert_int_equal(op, WT_OP_TAVG);
    assert_int_equal(wt_ops[op].uclass, WT_UC_ALU);
    assert_int_equal(wt_op_from_code(WT_UC_ALU, 60), WT_OP_TAVG);
}

/* Two cells on Warp with compile-time flow control: each averages, the first feeds
 * itself from the host side, each passes its result to the right. */
static const char program[] =
    "        .model  warp\n"
    "        .cells  0, 1\n"
    "        .flowctl\n"
    "        .text\n"
    "        .globl  main\n"
    "main:   mv r1, 7 | mov r2, -12\n"
    "        tavg r3, r1, r2\n"
    "        nop\n"
    "        mv @fxl, r3\n"
    "        mv r4, @xl\n"
    "        tavg r5, r4, r1\n"
    "        nop\n"
    "        mv @xr, r5 | mv @axr, -1\n"
    "        halt\n";

typedef struct built {
    char dir[64], obj[96], img[96];
} built;

static void build(built *b)
{
    snprintf(b->dir, sizeof b->dir, "/tmp/warp-xop-XXXXXX");
    if (!mkdtemp(b->dir)) fail_msg("mkdtemp failed");
    snprintf(b->obj, sizeof b->obj, "%s/t.o", b->dir);
    snprintf(b->img, sizeof b->img, "%s/t.img", b->dir);
    ws_diag d;
    ws_diag_init(&d, "t.s", program, strlen(program));
    was_options opts = {.model = wt_model_get(WT_MODEL_WARP)};
    if (was_assemble("t.s", program, strlen(program), &opts, b->obj, &d) != 0) fail_msg("tavg does not assemble");
    const char *inputs[] = {b->obj};
    wld_options lopts = {.entry = "main"};
    /* The linker runs flow control over the cells' code to find the skew. */
    if (wld_link(inputs, 1, b->img, &lopts) != 0) fail_msg("flow control or the linker refused tavg");
}

static void unbuild(built *b)
{
    unlink(b->obj);
    unlink(b->img);
    rmdir(b->dir);
}

static void test_assembled_disassembled_timed_and_run(void **state)
{
    (void)state;
    built b;
    build(&b);
    char err[512];
    wrt_image *img = wrt_image_load(b.img, err, sizeof err);
    if (!img) fail_msg("load: %s", err);
    assert_true(img->flow_controlled);

    /* The image loader decoded the bundles; the disassembler's encoding round trip
     * and its text of the second. */
    uint8_t bits[WT_BUNDLE_BYTES];
    wt_encode(&img->code[img->entry + 1], bits);
    wt_insn in;
    assert_int_equal(wt_decode(bits, &in), 0);
    char text[256];
    wt_format_insn(&in, text, sizeof text, NULL, NULL);
    assert_string_equal(text, "tavg r3, r1, r2");

    wsim_program prog;
    wrt_sim_program(img, &prog);
    wsim *sim = wsim_new(&prog, err, sizeof err);
    if (!sim) fail_msg("wsim_new: %s", err);
    wsim_status st = wsim_run(sim, 1000);
    if (st != WSIM_DONE) fail_msg("status %d: %s", (int)st, wsim_message(sim));
    /* (7 + -12) >> 1 = -3 on the first cell; then (-3 + 7) >> 1 = 2 goes right,
     * where (2 + 7) >> 1 = 4. */
    assert_int_equal((int32_t)wsim_cell_reg(sim, 0, 3), -3);
    assert_int_equal((int32_t)wsim_cell_reg(sim, 0, 5), 2);
    assert_int_equal((int32_t)wsim_cell_reg(sim, 1, 4), 2);
    assert_int_equal((int32_t)wsim_cell_reg(sim, 1, 5), 4);
    wsim_free(sim);
    wrt_image_free(img);
    unbuild(&b);
}

/* The list scheduler bundles it by its class and waits out its latency. */
static void test_scheduled_by_its_latency(void **state)
{
    (void)state;
    wb_func *f = wb_func_new("main", wt_model_get(WT_MODEL_WARP));
    int blk = wb_new_block(f);
    wb_place_block(f, blk);
    int a = wb_new_vreg(f, 0), c = wb_new_vreg(f, 0), avg = wb_new_vreg(f, 0), sum = wb_new_vreg(f, 0);
    wb_append(f, blk, &(wb_ins){.op = WB_COPY, .d = wb_vreg(a), .s = {wb_imm(7, 0)}});
    wb_append(f, blk, &(wb_ins){.op = WB_COPY, .d = wb_vreg(c), .s = {wb_imm(9, 0)}});
    wb_append(f, blk, &(wb_ins){.op = WT_OP_TAVG, .d = wb_vreg(avg), .s = {wb_vreg(a), wb_vreg(c)}});
    wb_append(f, blk, &(wb_ins){.op = WT_OP_IADD, .d = wb_vreg(sum), .s = {wb_vreg(avg), wb_vreg(a)}});
    wb_append(f, blk, &(wb_ins){.op = WB_COPY, .d = wb_reg(WT_OPND_GATE + WT_Q_XR), .s = {wb_vreg(sum)}});
    f->blocks[blk]->term = (wb_ins){.op = WT_OP_HALT};
    wb_schedule(f, 20);
    const wb_block *b = f->blocks[blk];
    assert_int_equal(b->ins[2].mop, WT_OP_TAVG);
    assert_true(b->ins[3].cycle >= b->ins[2].cycle + 2);
    ws_diagnostic why;
    if (wb_verify(f, WB_VERIFY_SCHEDULED, &why) != 0) fail_msg("%s", why.message);
    wb_func_free(f);
}

/* Each cell counts r1 down from 3 with tbnz, sending r1 right each time on the
 * first cell and receiving it on the second: flow control must follow the branch
 * to time the loops (three words each way), and the simulator must take it. */
static const char loop_program[] =
    "        .model  warp\n"
    "        .cells  0, 1\n"
    "        .flowctl\n"
    "        .text\n"
    "        .globl  main\n"
    "main:   mov r1, 3 | mv r2, 0\n"
    "        ieq r3, cid, 0\n"
    "        nop\n"
    "        bz r3, .Lrecv\n"
    ".Lsend: mv @xr, r1 | mv @axr, -1 | isub r1, r1, 1\n"
    "        tbnz r1, .Lsend\n"
    "        halt\n"
    ".Lrecv: mv r4, @xl | isub r1, r1, 1\n"
    "        iadd r2, r2, r4\n"
    "        tbnz r1, .Lrecv\n"
    "        halt\n";

static void test_branch_taken_by_flow_control_and_the_simulator(void **state)
{
    (void)state;
    char dir[] = "/tmp/warp-xop-XXXXXX", obj[96], img[96], err[512];
    if (!mkdtemp(dir)) fail_msg("mkdtemp failed");
    snprintf(obj, sizeof obj, "%s/l.o", dir);
    snprintf(img, sizeof img, "%s/l.img", dir);
    ws_diag d;
    ws_diag_init(&d, "l.s", loop_program, strlen(loop_program));
    was_options opts = {.model = wt_model_get(WT_MODEL_WARP)};
    if (was_assemble("l.s", loop_program, strlen(loop_program), &opts, obj, &d) != 0) fail_msg("tbnz does not assemble");
    const char *inputs[] = {obj};
    wld_options lopts = {.entry = "main"};
    if (wld_link(inputs, 1, img, &lopts) != 0) fail_msg("flow control or the linker refused the tbnz loops");
    wrt_image *image = wrt_image_load(img, err, sizeof err);
    if (!image) fail_msg("load: %s", err);
    assert_true(image->flow_controlled);
    char text[256];
    wt_format_insn(&image->code[image->entry + 5], text, sizeof text, NULL, NULL);
    assert_string_equal(text, "tbnz r1, 4");
    wsim_program prog;
    wrt_sim_program(image, &prog);
    wsim *sim = wsim_new(&prog, err, sizeof err);
    if (!sim) fail_msg("wsim_new: %s", err);
    wsim_status st = wsim_run(sim, 1000);
    if (st != WSIM_DONE) fail_msg("status %d: %s", (int)st, wsim_message(sim));
    /* 3 + 2 + 1 received: the branch went back twice on each cell */
    assert_int_equal(wsim_cell_reg(sim, 1, 2), 6);
    assert_int_equal(wsim_cell_reg(sim, 0, 1), 0);
    wsim_free(sim);
    wrt_image_free(image);
    unlink(obj);
    unlink(img);
    rmdir(dir);
}

/* The backend's control-flow graph has the branch's target as a successor, and the
 * verifier checks that target exists. */
static void test_branch_in_the_backend_cfg(void **state)
{
    (void)state;
    wb_func *f = wb_func_new("main", wt_model_get(WT_MODEL_WARP));
    int entry = wb_new_block(f), loop = wb_new_block(f), out = wb_new_block(f);
    wb_place_block(f, entry);
    wb_place_block(f, loop);
    wb_place_block(f, out);
    int n = wb_new_vreg(f, 0);
    wb_append(f, entry, &(wb_ins){.op = WB_COPY, .d = wb_vreg(n), .s = {wb_imm(3, 0)}});
    f->blocks[entry]->fall = loop;
    wb_append(f, loop, &(wb_ins){.op = WT_OP_ISUB, .d = wb_vreg(n), .s = {wb_vreg(n), wb_imm(1, 0)}});
    f->blocks[loop]->term = (wb_ins){.op = WT_OP_TBNZ, .s = {wb_vreg(n)}, .target = loop};
    f->blocks[loop]->fall = out;
    f->blocks[out]->term = (wb_ins){.op = WT_OP_HALT};
    int succ[2];
    assert_int_equal(wb_succs(f->blocks[loop], succ), 2);
    assert_int_equal(succ[0], loop);
    assert_int_equal(succ[1], out);
    ws_diagnostic why;
    if (wb_verify(f, 0, &why) != 0) fail_msg("%s", why.message);
    f->blocks[loop]->term.target = 17;
    assert_int_not_equal(wb_verify(f, 0, &why), 0);
    wb_func_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_table_has_it),
        cmocka_unit_test(test_assembled_disassembled_timed_and_run),
        cmocka_unit_test(test_scheduled_by_its_latency),
        cmocka_unit_test(test_branch_taken_by_flow_control_and_the_simulator),
        cmocka_unit_test(test_branch_in_the_backend_cfg),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
