/* The machine IR verifier: the invariants every pass may rely on, checked between
 * passes under -verify-each (as LLVM's -verify-machineinstrs and QBE's ssacheck()),
 * so that a pass that breaks one is named at once instead of being found in the
 * final assembly or, worse, in a simulated run.
 *
 * What holds at every stage: blocks and the layout are consistent, branch targets,
 * fallthroughs and phi edges name blocks, each operation has the operands its
 * signature asks for, virtual registers are in range, operand codes are legal as
 * sources or destinations, and no virtual register is read on a path from the
 * entry that never defines it. After scheduling: every operation has an issue
 * clock inside its block and a machine operation its unit may run, each bundle
 * fits the resource model of target/ (slots, one branch, two literal fields), and
 * in list-scheduled blocks a value is read no earlier than its latency allows.
 * After allocation: no virtual register is left. */
#include "mir.h"

#include <stdarg.h>
#include <stdlib.h>

typedef struct verifier {
    const wb_func *f;
    unsigned stage;
    ws_diagnostic *fault;
    int failed;
} verifier;

static void fault(verifier *V, const wb_block *b, const wb_ins *in, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Records the first fault only: later ones are usually its consequences. It is
 * located at the operation's W2 position, so the message names the operation as the
 * machine IR prints it but not where it is. */
static void fault(verifier *V, const wb_block *b, const wb_ins *in, const char *fmt, ...)
{
    if (V->failed++) return;
    ws_buf why = {0};
    va_list ap;
    va_start(ap, fmt);
    wb_put_about(&why, V->f, b, in, 0, fmt, ap);
    va_end(ap);
    unsigned line = in ? in->line : 0;
    *V->fault = (ws_diagnostic){.line = (int)line, .col = line ? (int)in->col : 0, .severity = WS_ERROR};
    snprintf(V->fault->message, sizeof V->fault->message, "%.*s", (int)why.len, why.data);
    ws_buf_free(&why);
}

static int valid_block(const wb_func *f, int id) { return id >= 0 && id < f->nblocks && f->blocks[id]; }

static void check_vreg(verifier *V, const wb_block *b, const wb_ins *in, wb_opnd o)
{
    if (o.kind != WB_O_VREG) return;
    if (V->stage & WB_VERIFY_ALLOCATED) fault(V, b, in, "virtual register %%%u left after allocation", o.v);
    else if (o.v < 1 || (int)o.v >= V->f->nvregs)
        fault(V, b, in, "virtual register %%%u out of range (1..%d)", o.v, V->f->nvregs - 1);
}

static void check_operand(verifier *V, const wb_block *b, const wb_ins *in, wb_opnd o, int is_dest)
{
    switch (o.kind) {
    case WB_O_VREG: check_vreg(V, b, in, o); break;
    case WB_O_REG:
        if (is_dest ? !wt_opnd_valid_dst(o.v) : !wt_opnd_valid_src(o.v))
            fault(V, b, in, "operand code %u is not a legal %s", o.v, is_dest ? "destination" : "source");
        else if (wt_opnd_is_reg(o.v) && o.v >= V->f->model->nregs)
            fault(V, b, in, "register r%u does not exist on %s", o.v, V->f->model->name);
        break;
    case WB_O_IMM:
    case WB_O_SYM:
        if (is_dest) fault(V, b, in, "a literal as destination");
        break;
    default: fault(V, b, in, "%s operand missing", is_dest ? "destination" : "source"); break;
    }
}

static void check_ins(verifier *V, const wb_block *b, const wb_ins *in, int is_term)
{
    const wb_func *f = V->f;
    if (in->op == WT_OP_NONE || in->op >= WB_NOPCODES) {
        fault(V, b, NULL, "operation code %u is not an operation", in->op);
        return;
    }
    int op = in->op;
    if (is_term && !wb_is_term_op(op)) fault(V, b, in, "the terminator is not a branch-class operation");
    if (!is_term && wb_is_term_op(op) && wb_flow(op) != WT_FLOW_CALL)
        fault(V, b, in, "a branch in the body of a block (only the terminator may branch)");
    if (wb_branches(op)) {
        if (!valid_block(f, in->target)) fault(V, b, in, "branch to block %d, which does not exist", in->target);
    }
    if (wb_flow(op) == WT_FLOW_CALL && !in->callee) fault(V, b, in, "a call without a callee");
    if (wb_has_dest(op)) check_operand(V, b, in, in->d, 1);
    else if (in->d.kind != WB_O_NONE) fault(V, b, in, "a destination on an operation that writes none");
    if (op != WB_COPY && wt_ops[op].sig && strchr(wt_ops[op].sig, 'K') && in->d.kind == WB_O_REG &&
        !wt_opnd_is_reg(in->d.v))
        fault(V, b, in, "a counter that is not a register");
    for (int k = 0; k < wb_nsrc(op); k++) check_operand(V, b, in, in->s[k], 0);
    if ((op == WT_OP_LD || op == WT_OP_ST) && (in->memobj < 0 || in->memobj > f->nmemobjs))
        fault(V, b, in, "memory object %d out of range (0..%d)", in->memobj, f->nmemobjs);
    if (in->dbg < 0 || (in->dbg > 0 && in->dbg >= f->ndbgev)) fault(V, b, in, "debug event %d out of range", in->dbg);

    if ((V->stage & WB_VERIFY_SCHEDULED) || b->fixed) {
        if (in->cycle < 0 || in->cycle >= b->len)
            fault(V, b, in, "issue clock %d outside the block's %d bundles", in->cycle, b->len);
        int mop = in->mop;
        wt_op choices[WT_MAX_ALTS];
        unsigned nc = wb_mop_choices(op, 0, choices);
        int ok = 0;
        for (unsigned k = 0; k < nc; k++) ok |= mop == (int)choices[k];
        if (!ok) fault(V, b, in, "scheduled as '%s', which cannot run it", mop > 0 && mop < WT_NOPS ? wt_ops[mop].name : "?");
    }
}

/* ---- Blocks and the layout ----------------------------------------------------- */

static void check_cfg(verifier *V)
{
    const wb_func *f = V->f;
    for (int id = 0; id < f->nblocks; id++) {
        const wb_block *b = f->blocks[id];
        if (!b) continue;
        if (b->id != id) fault(V, b, NULL, "block stored at index %d", id);
        if (b->fall != -1 && !valid_block(f, b->fall)) fault(V, b, NULL, "falls to block %d, which does not exist", b->fall);
        if (b->ii && !b->fixed) fault(V, b, NULL, "an II of %d on a block the pipeliner did not schedule", b->ii);
        if (b->ii < 0 || (b->ii && b->len && b->ii > b->len)) fault(V, b, NULL, "II %d for a block of %d bundles", b->ii, b->len);
        int succ[2];
        int n = wb_succs(b, succ);
        for (int e = 0; e < b->nedges; e++) {
            const wb_edge *ed = &b->edges[e];
            int found = 0;
            for (int s = 0; s < n; s++) found |= succ[s] == ed->succ;
            if (!found) fault(V, b, NULL, "phi copies on an edge to @B%d, which is not a successor", ed->succ);
            for (int c = 0; c < ed->n; c++) {
                if (ed->dst[c].kind != WB_O_VREG) fault(V, b, NULL, "a phi copy into something other than a virtual register");
                else check_vreg(V, b, NULL, ed->dst[c]);
                check_vreg(V, b, NULL, ed->src[c]);
            }
        }
        for (int i = 0; i < b->nins; i++) check_ins(V, b, &b->ins[i], 0);
        if (b->term.op != WT_OP_NONE) check_ins(V, b, &b->term, 1);
    }
    uint8_t *placed = calloc((size_t)f->nblocks + 1, 1);
    for (int i = 0; i < f->norder; i++) {
        int id = f->order[i];
        if (!valid_block(f, id)) fault(V, NULL, NULL, "the layout names block %d, which does not exist", id);
        else if (placed[id]++) fault(V, NULL, NULL, "the layout places @B%d twice", id);
    }
    free(placed);
}

/* ---- Bundles --------------------------------------------------------------------- */

static void add_to_bundle(verifier *V, const wb_block *b, const wb_ins *in, wt_bundle_use *use, wb_opnd *lits,
                          int *nlits)
{
    if (in->mop == WT_OP_NONE || in->mop >= WT_NOPS) return;   /* already reported */
    unsigned srcs[3];
    int nsrc = 0;
    for (int k = 0; k < wb_nsrc(in->op); k++)
        if (in->s[k].kind == WB_O_REG) srcs[nsrc++] = in->s[k].v;
    wb_opnd added[3];
    int extra = wb_new_literals(lits, *nlits, in, added);
    wt_unit_class uc = wt_ops[in->mop].uclass;
    unsigned res = wt_op_res((wt_op)in->mop, in->iu);
    if (!wt_bundle_fits(NULL, use, res, 0))
        fault(V, b, in, "no free %s%s slot in the bundle at clock %d", in->iu ? "interface unit " : "",
              wt_unit_class_name(uc), in->cycle);
    else if (!wt_bundle_fits(NULL, use, res, (unsigned)extra))
        fault(V, b, in, "a third distinct literal in the bundle at clock %d", in->cycle);
    else if (wb_iu_feeds(in) && !wt_bundle_fits(NULL, use, WT_RES_LINK, 0))
        fault(V, b, in, "a second word through the interface unit's link in the bundle at clock %d", in->cycle);
    else {
        wt_bundle_take(use, res, (unsigned)extra);
        if (wb_iu_feeds(in)) wt_bundle_take(use, WT_RES_LINK, 0);
        for (int j = 0; j < extra; j++) lits[(*nlits)++] = added[j];
        wt_bundle_add_gates(use, in->d.kind == WB_O_REG ? (int)in->d.v : -1, srcs, nsrc);
    }
}

/* Operations grouped by clock: each clock's operations must fit one bundle. */
static void check_bundles(verifier *V, const wb_block *b)
{
    if (b->len <= 0) return;
    int n = b->nins + (b->term.op != WT_OP_NONE);
    int *count = calloc((size_t)b->len + 1, sizeof *count);
    int *start = calloc((size_t)b->len + 2, sizeof *start);
    int *byclock = malloc(sizeof *byclock * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        const wb_ins *in = i < b->nins ? &b->ins[i] : &b->term;
        if (in->cycle >= 0 && in->cycle < b->len) count[in->cycle]++;
    }
    for (int c = 0; c < b->len; c++) start[c + 1] = start[c] + count[c];
    memset(count, 0, sizeof *count * (size_t)b->len);
    for (int i = 0; i < n; i++) {
        const wb_ins *in = i < b->nins ? &b->ins[i] : &b->term;
        if (in->cycle >= 0 && in->cycle < b->len) byclock[start[in->cycle] + count[in->cycle]++] = i;
    }
    for (int c = 0; c < b->len && !V->failed; c++) {
        wt_bundle_use use = {0};   /* the cells' part and the interface unit's */
        wb_opnd lits[WT_BUNDLE_LITERALS];
        int nlits = 0;
        for (int k = start[c]; k < start[c + 1]; k++) {
            int i = byclock[k];
            const wb_ins *in = i < b->nins ? &b->ins[i] : &b->term;
            add_to_bundle(V, b, in, &use, lits, &nlits);
        }
    }
    free(count);
    free(start);
    free(byclock);
}

/* In a list-scheduled block (the pipeliner's blocks overlap iterations, so program
 * order is not issue order there), a value is read no earlier than its producer's
 * latency after the producer issues. */
static void check_latencies(verifier *V, const wb_block *b)
{
    if (b->fixed) return;
    for (int j = 0; j < b->nins + (b->term.op != WT_OP_NONE) && !V->failed; j++) {
        const wb_ins *use = j < b->nins ? &b->ins[j] : &b->term;
        for (int k = 0; k < wb_nsrc(use->op); k++) {
            if (!wb_is_vreg(use->s[k])) continue;
            for (int i = j - 1; i >= 0; i--) {
                const wb_ins *def = &b->ins[i];
                if (!wb_has_dest(def->op) || !wb_is_vreg(def->d) || def->d.v != use->s[k].v) continue;
                int ready = def->cycle + wb_latency(V->f, def->mop ? def->mop : def->op);
                if (use->cycle < ready)
                    fault(V, b, use, "reads %%%u at clock %d, before it is ready at clock %d", use->s[k].v, use->cycle,
                          ready);
                break;
            }
        }
    }
}

/* No virtual register may be read on a path from the entry that never writes it. */
static void check_defined(verifier *V)
{
    const wb_func *f = V->f;
    if (f->norder == 0 || f->nvregs <= 1) return;
    wb_live *live = wb_liveness(f);
    int entry = f->order[0];
    int nin;
    const int *in = wb_live_in(live, entry, &nin);
    int v = nin ? in[0] : -1;
    if (v >= 0) {
        /* Name the first reader, in layout order, for the message. */
        const wb_block *rb = NULL;
        const wb_ins *rin = NULL;
        for (int i = 0; i < f->norder && !rin; i++) {
            const wb_block *b = f->blocks[f->order[i]];
            for (int k = 0; k <= b->nins && !rin; k++) {
                const wb_ins *in = k < b->nins ? &b->ins[k] : &b->term;
                if (in->op == WT_OP_NONE) continue;
                for (int s = 0; s < wb_nsrc(in->op); s++)
                    if (wb_is_vreg(in->s[s]) && (int)in->s[s].v == v) rb = b, rin = in;
            }
        }
        fault(V, rb, rin, "%%%d may be read before anything writes it", v);
    }
    wb_live_free(live);
}

int wb_verify(const wb_func *f, unsigned stage, ws_diagnostic *fault)
{
    verifier V = {f, stage, fault, 0};
    *fault = (ws_diagnostic){.severity = WS_ERROR};
    check_cfg(&V);
    for (int id = 0; id < f->nblocks && !V.failed; id++) {
        const wb_block *b = f->blocks[id];
        if (!b || !((stage & WB_VERIFY_SCHEDULED) || b->fixed)) continue;
        check_bundles(&V, b);
        if (!(stage & WB_VERIFY_ALLOCATED)) check_latencies(&V, b);
    }
    if (!V.failed && !(stage & WB_VERIFY_ALLOCATED)) check_defined(&V);
    return V.failed ? -1 : 0;
}

int wb_verify_after(wb_module *mod, const wb_func *f, unsigned stage, wb_pass pass)
{
    ws_diagnostic fault;
    if (wb_verify(f, stage, &fault) == 0) return 0;
    return wb_error_at(mod, (unsigned)fault.line, (unsigned)fault.col, "internal error: machine IR verifier, after %s: %s",
                       wb_pass_names[pass], fault.message);
}
