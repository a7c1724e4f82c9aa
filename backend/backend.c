/* The backend's driver: checks the module, then runs the passes over each function
 * in this order, one machine IR changed in place (first, wb_limit_call_depth inlines
 * the innermost functions of calls nested deeper than the return stack):
 *
 *   wb_isel         LLVM IR -> operations on virtual registers, phis on the edges
 *   wb_lower_phis   edge copies into the predecessor, or onto a split edge
 *   wb_fold_gates   receives read by their user, sends written by their producer
 *   wb_layout       branches for every fallthrough that is not to the next block
 *   wb_coalesce     copies removed where source and destination never conflict
 *   wb_split_iu     Warp: host loads, host addresses and their sums to the interface unit
 *   wb_swp          innermost counted loops software-pipelined (-O1 and up); on Warp the
 *                   IU counts the trips of the counted loops it leaves alone
 *   wb_split_iu     again, for the copies the pipeliner made
 *   wb_spill_calls  values live across a call to the static frame
 *   wb_schedule     bundles (list scheduling per block)    } again after a spill
 *   wb_regalloc     registers on the bundles' issue clocks  }
 *   wb_emit_*       assembly text
 *
 * Each pass's name (wb_pass_names) is what -print-before=, -print-after= and the
 * verifier's messages (-verify-each, wb_verify) call it.
 */
#include "mir.h"

#include <llvm-c/DebugInfo.h>
#include <stdlib.h>
#include <string.h>

const char *const wb_pass_names[WB_NPASSES] = {
    [WB_PASS_ISEL] = "isel",         [WB_PASS_PHIS] = "phis",         [WB_PASS_GATES] = "gates",
    [WB_PASS_LAYOUT] = "layout",     [WB_PASS_COALESCE] = "coalesce", [WB_PASS_SWP] = "swp",
    [WB_PASS_SPILL_CALLS] = "spill-calls", [WB_PASS_SCHEDULE] = "schedule", [WB_PASS_REGALLOC] = "regalloc",
};

int wb_pass_lookup(const char *name)
{
    for (int p = 0; p < WB_NPASSES; p++)
        if (strcmp(wb_pass_names[p], name) == 0) return p;
    return -1;
}

/* One function's way through the passes: what to print around each, and the
 * invariants that hold so far for the verifier. */
typedef struct pass_run {
    wb_module *mod;
    const wb_options *opts;
    wb_func *f;
    unsigned stage;     /* WB_VERIFY_* */
    int attempt, round;
} pass_run;

static void dump(const pass_run *pr, const char *when, wb_pass p)
{
    ws_buf text = {0};
    ws_buf_printf(&text, "# *** IR Dump %s %s", when, wb_pass_names[p]);
    if (pr->attempt) ws_buf_printf(&text, " (attempt %d)", pr->attempt + 1);
    if ((p == WB_PASS_SCHEDULE || p == WB_PASS_REGALLOC) && pr->round) ws_buf_printf(&text, " (round %d)", pr->round + 1);
    ws_buf_puts(&text, " ***:\n");
    wb_mir_print(pr->f, &text);
    ws_buf_puts(&text, "\n");
    fwrite(text.data, 1, text.len, pr->opts->dump ? pr->opts->dump : stderr);
    ws_buf_free(&text);
}

static void before(const pass_run *pr, wb_pass p)
{
    if (pr->opts->print_before >> p & 1) dump(pr, "Before", p);
}

/* After a pass: its dump, then the verifier; -1 (and the module's error) if the
 * pass broke an invariant. */
static int after(pass_run *pr, wb_pass p)
{
    if (pr->opts->print_after >> p & 1) dump(pr, "After", p);
    if (!pr->opts->verify_each) return 0;
    return wb_verify_after(pr->mod, pr->f, pr->stage, p);
}

static int run(pass_run *pr, wb_pass p, void (*pass)(wb_func *))
{
    before(pr, p);
    pass(pr->f);
    return after(pr, p);
}

/* Spilling shortens live ranges each round; this bounds a pathological case. */
enum { MAX_ALLOC_ROUNDS = 16, PRESSURE_MARGIN = 4, SQUEEZE_ATTEMPTS = 3, SQUEEZE_STEP = 6 };

static int check_module(wb_module *mod)
{
    LLVMValueRef main_fn = LLVMGetNamedFunction(mod->m, "main");
    if (!main_fn || LLVMIsDeclaration(main_fn)) return wb_error(mod, "the module defines no 'main'");
    for (LLVMValueRef fn = LLVMGetFirstFunction(mod->m); fn; fn = LLVMGetNextFunction(fn)) {
        if (!LLVMIsDeclaration(fn)) continue;
        size_t n;
        const char *name = LLVMGetValueName2(fn, &n);
        if (strncmp(name, "w2.", 3) == 0 || strncmp(name, "llvm.", 5) == 0) continue;
        /* The runtime's entries for W2 statements (w2_msg_send ...): warp-cc links them. */
        if (strncmp(name, "w2_", 3) == 0) continue;
        return wb_error(mod, "function '%s' is declared but not defined", name);
    }
    return 0;
}

static int has_fixed_blocks(const wb_func *f)
{
    for (int id = 0; id < f->nblocks; id++)
        if (f->blocks[id]->fixed) return 1;
    return 0;
}

/* A bound from below on the function's bundles once its branches are final (after
 * the pipeliner): a block takes at least a bundle for its
 * branch, and at least as many as its operations of one unit class need slots of
 * it. Copies do not count (allocation may remove one, and either of two units
 * takes it); nothing later removes another operation or moves it to another
 * block. A program past program memory by this count is refused before
 * scheduling and allocation, which for 100,000 ifs at -O0 were most of the time
 * spent on an answer known here. */
static uint32_t least_bundles(const wb_func *f)
{
    uint32_t total = 0;
    for (int i = 0; i < f->norder; i++) {
        const wb_block *b = f->blocks[f->order[i]];
        uint32_t per_class[WT_NUCLASSES] = {0};
        for (int k = 0; k < b->nins; k++)
            if (b->ins[k].op != WB_COPY) per_class[wt_ops[b->ins[k].op].uclass]++;
        uint32_t len = b->term.op != WT_OP_NONE;
        for (int uc = WT_UC_NONE + 1; uc < WT_NUCLASSES; uc++) {
            uint32_t slots = wt_class_slots((wt_unit_class)uc);
            if (slots && (per_class[uc] + slots - 1) / slots > len) len = (per_class[uc] + slots - 1) / slots;
        }
        total += len;
    }
    return total;
}

/* One attempt; 1 if the pipelined loops need more registers than there are, so
 * the caller compiles the function again with fewer registers for them. */
static int compile_once(wb_module *mod, LLVMValueRef fn, const wb_options *opts, const char *swp_disabled,
                        int squeeze, int *use_iu, ws_buf *text, ws_buf *frames, wb_remarks *report, uint32_t *bundles,
                        uint32_t *frame_bytes)
{
    const char *name = wb_global_symbol(mod, fn);
    if (!name) return -1;
    wb_func *f = wb_func_new(name, opts->model);
    f->debug = mod->dinfo != NULL;
    pass_run pr = {mod, opts, f, 0, squeeze / SQUEEZE_STEP, 0};
    before(&pr, WB_PASS_ISEL);
    int rc = wb_isel(mod, fn, f);
    if (rc == 0) rc = after(&pr, WB_PASS_ISEL);
    if (rc == 0) rc = run(&pr, WB_PASS_PHIS, wb_lower_phis);
    if (rc == 0) rc = run(&pr, WB_PASS_GATES, wb_fold_gates);
    if (rc == 0) rc = run(&pr, WB_PASS_LAYOUT, wb_layout);
    if (rc == 0) rc = run(&pr, WB_PASS_COALESCE, wb_coalesce);
    if (rc == 0 && *use_iu) wb_split_iu(f, *use_iu == 2);
    if (rc == 0 && opts->opt_level > 0) {
        wb_swp_options so = {!opts->no_swp, swp_disabled, wb_source_file(mod), squeeze, report,
                            *use_iu != 0 && !mod->leftward};
        before(&pr, WB_PASS_SWP);
        wb_swp(f, &so);
        rc = after(&pr, WB_PASS_SWP);
    }
    /* The pipeliner's copies join the side of the values they copy; should one of
     * its kernels' IU operations now need a cell value, compile again without the
     * IU's twins (the pipeliner rewrites a loop's addresses from the cells' index),
     * then without the IU. */
    if (rc == 0 && *use_iu && wb_split_iu(f, 0) != 0) {
        (*use_iu)--;
        wb_func_free(f);
        return 1;
    }
    /* Not with pipelined loops: when their registers run out, the function is
     * compiled again with fewer (or none), which may take fewer bundles. */
    if (rc == 0 && !has_fixed_blocks(f)) {
        uint32_t least = *bundles + least_bundles(f);
        if (least > opts->model->prog_mem_bundles)
            rc = wb_error(mod, "the program needs at least %u bundles; %s program memory holds %u", (unsigned)least,
                          opts->model->name, opts->model->prog_mem_bundles);
    }
    if (rc == 0) rc = run(&pr, WB_PASS_SPILL_CALLS, wb_spill_calls);
    if (rc == 0) {
        /* Registers a few short of all: the scheduler's count of live values is an
         * estimate. If allocation still fails where nothing is left to spill, the
         * scheduler is asked to keep fewer values live. */
        int limit = (int)opts->model->nregs - 1 - PRESSURE_MARGIN;
        for (int round = 0; rc == 0; round++) {
            pr.round = round;
            before(&pr, WB_PASS_SCHEDULE);
            wb_schedule(f, limit);
            pr.stage = WB_VERIFY_SCHEDULED;
            if ((rc = after(&pr, WB_PASS_SCHEDULE)) != 0) break;
            before(&pr, WB_PASS_REGALLOC);
            int r = wb_regalloc(f);
            /* 1: spill code was added and is not scheduled yet; -1: nothing changed. */
            pr.stage = r == 0 ? WB_VERIFY_SCHEDULED | WB_VERIFY_ALLOCATED : r > 0 ? 0 : WB_VERIFY_SCHEDULED;
            if ((rc = after(&pr, WB_PASS_REGALLOC)) != 0) break;
            if (r == 0) break;
            /* The allocator spills only values the pipelined blocks never touch:
             * their bundles are final. When that is not enough, start again. */
            if (has_fixed_blocks(f) && (r < 0 || round == MAX_ALLOC_ROUNDS)) {
                wb_func_free(f);
                return 1;
            }
            if (r < 0 && limit > PRESSURE_MARGIN) limit -= PRESSURE_MARGIN;
            else if (r < 0 || round == MAX_ALLOC_ROUNDS) {
                rc = wb_error(mod, "function %s: register allocation failed", name);
                break;
            }
        }
    }
    if (rc == 0) {
        wb_emit_function(f, text);
        wb_emit_frame(f, frames);
        if (mod->dinfo) wb_dinfo_function(mod->dinfo, fn, f, *bundles);
        for (int i = 0; i < f->norder; i++) *bundles += (uint32_t)f->blocks[f->order[i]]->len;
        *frame_bytes += f->frame_size;
    }
    wb_func_free(f);
    return rc;
}

/* Drops the remarks, keeping the array for more. */
static void remarks_clear(wb_remarks *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->at[i].file);
        free(r->at[i].message);
    }
    r->n = 0;
}

void wb_remarks_free(wb_remarks *r)
{
    remarks_clear(r);
    free(r->at);
    *r = (wb_remarks){0};
}

static int compile_function(wb_module *mod, LLVMValueRef fn, const wb_options *opts, ws_buf *text,
                            ws_buf *frames, uint32_t *bundles, uint32_t *frame_bytes)
{
    /* A pipelined loop whose registers the allocator cannot find gets fewer at the
     * next attempt (so it spills or overlaps fewer iterations); after that, the
     * function is compiled without pipelining. */
    wb_remarks report = {0};
    int rc = 1, use_iu = opts->model->id == WT_MODEL_WARP && opts->iu ? 2 : 0;   /* 2: with twins */
    for (int attempt = 0; rc == 1; attempt++) {
        remarks_clear(&report);
        const char *disabled = attempt == SQUEEZE_ATTEMPTS ? "register allocation failed in the pipelined loop" : NULL;
        int had_iu = use_iu;
        rc = compile_once(mod, fn, opts, disabled, attempt * SQUEEZE_STEP, &use_iu, text, frames, &report, bundles,
                          frame_bytes);
        if (rc == 1 && had_iu != use_iu) attempt--;   /* the same attempt again, with less on the IU */
    }
    wb_remarks *to = opts->swp_report;
    for (size_t i = 0; to && i < report.n; i++) {
        ws_grow(&to->at, &to->cap, to->n + 1, sizeof *to->at);
        to->at[to->n++] = report.at[i];
    }
    if (to) report.n = 0;   /* moved */
    wb_remarks_free(&report);
    return rc;
}

/* Does a cell receive from its right neighbour or send to its left one? The
 * address path runs only rightward, each cell a link's latency after its left
 * neighbour (skew >= 2 where it is read), while words that flow leftward need the
 * cells to start right to left: such a program keeps its loop control on the
 * cells, where flow control can time it. */
static int moves_leftward(LLVMModuleRef m)
{
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
                if (!LLVMIsACallInst(in)) continue;
                LLVMValueRef callee = LLVMGetCalledValue(in), q = LLVMGetOperand(in, 0);
                size_t n;
                const char *name = LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &n) : "";
                int recv = strncmp(name, "w2.recv.", 8) == 0, send = strncmp(name, "w2.send.", 8) == 0;
                if ((!recv && !send) || !LLVMIsAConstantInt(q)) continue;
                int right = LLVMConstIntGetZExtValue(q) >= WT_Q_XR;
                if (recv == right) return 1;
            }
    return 0;
}

int wb_emit_assembly(LLVMModuleRef m, const wb_options *opts, ws_buf *out, ws_diagnostic *err)
{
    *err = (ws_diagnostic){.severity = WS_ERROR};
    if (!opts || !opts->model) {
        snprintf(err->message, sizeof err->message, "no target model");
        return -1;
    }
    wb_module *mod = wb_module_new(m, err);
    if (!mod) return -1;
    ws_buf head = {0}, text = {0}, frames = {0};
    uint32_t bundles = 0, data_bytes = 0;
    int rc = check_module(mod);
    mod->leftward = opts->model->id == WT_MODEL_WARP && opts->iu && moves_leftward(m);
    if (opts->model->id == WT_MODEL_WARP && opts->iu) wb_find_divergent_blocks(mod);
    if (rc == 0) rc = wb_limit_call_depth(mod, opts->model);
    if (rc == 0) rc = wb_emit_module_header(mod, opts, &head);
    ws_buf_puts(&text, "        .text\n");
    if (opts->debug_info) {
        /* Selection reads llvm.dbg.* as calls, which the C API can inspect; the
         * records of LLVM's new format it cannot (LLVM 19). */
        LLVMSetIsNewDbgInfoFormat(m, 0);
        mod->dinfo = wb_dinfo_new(mod);
        ws_buf_puts(&text, ".Ltext0:\n");
    }
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn && rc == 0; fn = LLVMGetNextFunction(fn))
        if (!LLVMIsDeclaration(fn)) rc = compile_function(mod, fn, opts, &text, &frames, &bundles, &data_bytes);
    if (rc == 0) rc = wb_emit_globals(mod, &head, &frames);
    if (rc == 0) {
        for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
            if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == 0) {
                uint64_t bytes = LLVMABISizeOfType(mod->td, LLVMGlobalGetValueType(g));
                wb_note_data_object(mod, g, NULL, bytes);
                data_bytes += (uint32_t)((bytes + 3) & ~3ull);
            }
        if (bundles > opts->model->prog_mem_bundles)
            rc = wb_error(mod, "the program needs %u bundles; %s program memory holds %u", (unsigned)bundles,
                          opts->model->name, opts->model->prog_mem_bundles);
        else if (data_bytes > opts->model->data_mem_bytes)
            rc = wb_error_at(mod, mod->largest_line, mod->largest_col,
                             "the program needs %u bytes of data memory; %s has %u (the largest object: %s, %llu bytes)",
                             (unsigned)data_bytes, opts->model->name, opts->model->data_mem_bytes, mod->largest,
                             (unsigned long long)mod->largest_bytes);
    }
    if (rc == 0 && mod->dinfo) rc = wb_dinfo_emit(mod->dinfo, bundles, &text);
    if (rc == 0) {
        ws_buf_append(out, head.data, head.len);
        ws_buf_append(out, text.data, text.len);
    }
    wb_dinfo_free(mod->dinfo);
    mod->dinfo = NULL;
    ws_buf_free(&head);
    ws_buf_free(&text);
    ws_buf_free(&frames);
    wb_module_free(mod);
    return rc;
}
