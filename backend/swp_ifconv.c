/* Software pipelining: if-conversion of a loop's blocks into one body of
 * predicated operations (selects), so that loops with conditionals pipeline. */
#include "swp.h"

#include <stdlib.h>

/* ---- If-conversion ------------------------------------------------------------------- */

/* The loop's blocks with each after every block that reaches it without the back
 * edge: header first, latch last. */
static int region_order(const wb_func *f, const nloop *lp, int *ord)
{
    int nb = f->nblocks, n = 0, sp = 0;
    uint8_t *state = ws_xcalloc((size_t)nb, 1);   /* 1 on the stack, 2 done */
    int *stack = ws_xcalloc((size_t)nb + 1, sizeof *stack), *it = ws_xcalloc((size_t)nb, sizeof *it);
    int cyclic = 0;
    stack[sp++] = lp->header;
    state[lp->header] = 1;
    while (sp) {
        int b = stack[sp - 1], succ[2], ns = wb_succs(f->blocks[b], succ);
        if (it[b] < ns) {
            int s = succ[it[b]++];
            if (!in_loop(lp, s) || s == lp->header) continue;
            if (state[s] == 1) cyclic = 1;
            if (state[s]) continue;
            state[s] = 1;
            stack[sp++] = s;
        } else {
            state[b] = 2;
            ord[n++] = b;
            sp--;
        }
    }
    for (int i = 0; i < n / 2; i++) {
        int t = ord[i];
        ord[i] = ord[n - 1 - i];
        ord[n - 1 - i] = t;
    }
    free(state);
    free(stack);
    free(it);
    return cyclic ? -1 : n;
}

/* Is every path from the header to the latch through b? */
static int always_runs(const wb_func *f, const nloop *lp, int b)
{
    if (b == lp->header || b == lp->latch) return 1;
    int nb = f->nblocks, sp = 0, found = 0;
    uint8_t *seen = ws_xcalloc((size_t)nb, 1);
    int *stack = ws_xcalloc((size_t)nb + 1, sizeof *stack);
    stack[sp++] = lp->header;
    seen[lp->header] = 1;
    seen[b] = 1;
    while (sp && !found) {
        int x = stack[--sp], succ[2], ns = wb_succs(f->blocks[x], succ);
        for (int k = 0; k < ns; k++) {
            int s = succ[k];
            if (!in_loop(lp, s) || s == lp->header || seen[s]) continue;
            if (s == lp->latch) found = 1;
            seen[s] = 1;
            stack[sp++] = s;
        }
    }
    free(seen);
    free(stack);
    return !found;
}

typedef struct ifc {
    loop *L;
    wb_block *out;
    int *cur;             /* per original vreg: its name now */
    int *left;            /* per original vreg: definitions still to come */
    int nv;
    int scratch;          /* frame offset of the word predicated-off stores write, -1 none */
} ifc;

static void ifc_emit(ifc *C, wb_ins in)
{
    wb_block *b = C->out;
    if (b->nins == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 32;
        b->ins = ws_xrealloc(b->ins, sizeof *b->ins * (size_t)b->cap);
    }
    b->ins[b->nins++] = in;
}

static wb_opnd ifc_src(const ifc *C, wb_opnd s)
{
    if (wb_is_vreg(s) && (int)s.v < C->nv) return wb_vreg(C->cur[s.v]);
    return s;
}

static int ifc_new(ifc *C, const wb_ins *at, int op, wb_opnd a, wb_opnd b, wb_opnd c)
{
    int t = wb_new_vreg(C->L->f, 0);
    wb_ins in = {.op = (uint16_t)op, .d = wb_vreg(t), .s = {a, b, c}, .target = -1,
                 .line = at ? at->line : 0, .col = at ? at->col : 0};
    ifc_emit(C, in);
    return t;
}

/* The name a definition of v writes: v itself if it is the last one. */
static int ifc_def(ifc *C, int v)
{
    if (v >= C->nv) return v;
    return --C->left[v] == 0 ? v : wb_new_vreg(C->L->f, 0);
}

/* One operation of block b, which runs when predicate p (0: always) holds. */
static int ifc_op(ifc *C, const wb_ins *orig, int p, int b, const wb_live *live)
{
    loop *L = C->L;
    wb_ins in = *orig;
    for (int k = 0; k < wb_nsrc(in.op); k++) in.s[k] = ifc_src(C, in.s[k]);
    if (!p) {
        if (wb_has_dest(in.op) && wb_is_vreg(in.d) && (int)in.d.v < C->nv) {
            int v = (int)in.d.v, n = ifc_def(C, v);
            in.d = wb_vreg(n);
            C->cur[v] = n;
        }
        ifc_emit(C, in);
        return 1;
    }
    for (int k = 0; k < wb_nsrc(in.op); k++)
        if (is_gate_read(in.s[k])) return fail(L, "a receive or send under a condition (it cannot run on both ways)");
    if (writes_gate_like(&in)) return fail(L, "a receive or send under a condition (it cannot run on both ways)");
    if (wb_is_term_op(in.op)) return fail(L, "a call in the loop");
    wb_opnd pv = wb_vreg(p);
    if (in.op == WT_OP_LD || in.op == WT_OP_ST) {
        /* The address when p holds; otherwise a harmless one: address 0 to load
         * from, a word of the frame to store to. */
        int a = ifc_new(C, orig, WT_OP_IADD, in.s[0], in.s[1], (wb_opnd){0});
        wb_opnd off = wb_reg(WT_OPND_R0);
        if (in.op == WT_OP_ST) {
            if (C->scratch < 0) C->scratch = (int)wb_frame_alloc(L->f, 4);
            off = wb_sym(L->f->frame, C->scratch);
        }
        int sa = ifc_new(C, orig, WT_OP_SEL, pv, wb_vreg(a), off);
        in.s[0] = wb_vreg(sa);
        in.s[1] = wb_reg(WT_OPND_R0);
        if (in.op == WT_OP_ST) {
            ifc_emit(C, in);
            return 1;
        }
    } else if (in.op != WB_COPY && wt_ops[in.op].kind == WT_K_DIV) {
        /* a divisor that cannot be 0 when p does not hold (WB_COPY is past the
         * machine's table: reading wt_ops for it was undefined) */
        in.s[1] = wb_vreg(ifc_new(C, orig, WT_OP_SEL, pv, in.s[1], wb_imm(1, 0)));
    } else if (in.op != WB_COPY && wt_ops[in.op].kind != WT_K_PURE && wt_ops[in.op].kind != WT_K_HLOAD) {
        return fail(L, "an operation under a condition that cannot run on both ways");
    }
    if (!wb_has_dest(in.op) || !wb_is_vreg(in.d) || (int)in.d.v >= C->nv) {
        ifc_emit(C, in);
        return 1;
    }
    int v = (int)in.d.v, old = C->cur[v], n = ifc_def(C, v);
    int nout;
    const int *out = wb_live_out(live, b, &nout);
    if (wb_live_has(out, nout, v)) {
        /* v keeps its value on the other way */
        int t = wb_new_vreg(L->f, 0);
        in.d = wb_vreg(t);
        ifc_emit(C, in);
        wb_ins sel = {.op = WT_OP_SEL, .d = wb_vreg(n), .s = {pv, wb_vreg(t), wb_vreg(old)}, .target = -1,
                      .line = orig->line, .col = orig->col};
        ifc_emit(C, sel);
    } else {
        in.d = wb_vreg(n);
        ifc_emit(C, in);
    }
    C->cur[v] = n;
    return 1;
}

/* The condition (0 or 1) under which block from goes on to block to. */
static int edge_pred(ifc *C, int from, int to, int pfrom)
{
    const wb_block *b = C->L->f->blocks[from];
    const wb_ins *t = &b->term;
    int cond = 0;
    if (wb_is_cond_branch(t->op) && t->target != b->fall) {
        int taken = t->target == to;
        int nonzero = (wb_flow(t->op) == WT_FLOW_IF_NONZERO) == taken;
        cond = ifc_new(C, t, nonzero ? WT_OP_INE : WT_OP_IEQ, ifc_src(C, t->s[0]), wb_reg(WT_OPND_R0), (wb_opnd){0});
    }
    if (!cond) return pfrom;
    if (!pfrom) return cond;
    return ifc_new(C, t, WT_OP_AND, wb_vreg(pfrom), wb_vreg(cond), (wb_opnd){0});
}

/* The loop's blocks as one: every block's operations run on every iteration, those
 * of a block that runs only sometimes under its predicate (Allen, Kennedy, Porterfield
 * and Warren's if-conversion): a value it defines is selected (`sel`) against the
 * old one, a load or store takes a harmless address and a division a harmless
 * divisor when the predicate is false. A receive or send cannot run on both ways. */
int swp_if_convert(loop *L, const nloop *lp, const wb_live *live)
{
    wb_func *f = L->f;
    int nb = f->nblocks;
    int *ord = ws_xcalloc((size_t)nb + 1, sizeof *ord);
    int n = region_order(f, lp, ord);
    int ok = 1;
    if (n < 0 || ord[n - 1] != lp->latch) ok = fail(L, "the loop's blocks do not form an if-then-else shape");
    for (int i = 0; ok && i < n; i++) {
        const wb_block *b = f->blocks[ord[i]];
        int succ[2], ns = wb_succs(b, succ);
        if (b->nedges) ok = fail(L, "the loop's blocks do not form an if-then-else shape");
        if (wb_flow(b->term.op) == WT_FLOW_CALL || wb_flow(b->term.op) == WT_FLOW_COUNT_DOWN)
            ok = fail(L, "a call or counted branch in the loop");
        for (int k = 0; ok && k < ns; k++)
            if (!in_loop(lp, succ[k]) && ord[i] != lp->latch) ok = fail(L, "the loop leaves from more than one place");
    }
    ifc C = {L, ws_arena_alloc(&f->arena, sizeof *C.out), NULL, NULL, f->nvregs, -1};
    C.cur = ws_xcalloc((size_t)C.nv, sizeof *C.cur);
    C.left = ws_xcalloc((size_t)C.nv, sizeof *C.left);
    for (int v = 0; v < C.nv; v++) C.cur[v] = v;
    for (int i = 0; ok && i < n; i++) {
        const wb_block *b = f->blocks[ord[i]];
        for (int k = 0; k < b->nins; k++)
            if (wb_has_dest(b->ins[k].op) && wb_is_vreg(b->ins[k].d)) C.left[b->ins[k].d.v]++;
    }
    int *pred = ws_xcalloc((size_t)nb + 1, sizeof *pred);
    int *inpred = ws_xcalloc((size_t)nb + 1, sizeof *inpred);   /* OR of the edges in so far */
    for (int i = 0; ok && i < n; i++) {
        int id = ord[i];
        const wb_block *b = f->blocks[id];
        int always = always_runs(f, lp, id);
        pred[id] = always ? 0 : inpred[id];
        for (int k = 0; ok && k < b->nins; k++) ok = ifc_op(&C, &b->ins[k], pred[id], id, live);
        if (!ok || id == lp->latch) break;
        int succ[2], ns = wb_succs(b, succ);
        for (int k = 0; k < ns; k++) {
            int s = succ[k];
            if (k == 1 && succ[0] == s) continue;
            if (always_runs(f, lp, s)) continue;
            /* A block that does not always run is reached on a condition: an edge
             * from such a block, or a branch (e is never 0 here). */
            int e = edge_pred(&C, id, s, pred[id]);
            inpred[s] = inpred[s] ? ifc_new(&C, &b->term, WT_OP_OR, wb_vreg(inpred[s]), wb_vreg(e), (wb_opnd){0}) : e;
        }
    }
    if (ok) {
        wb_block *out = C.out;
        const wb_block *latch = f->blocks[lp->latch];
        out->id = L->id;
        out->term = latch->term;
        out->term.s[0] = ifc_src(&C, latch->term.s[0]);
        out->fall = latch->fall;
        L->body = out;
    } else {
        free(C.out->ins);
    }
    free(C.cur);
    free(C.left);
    free(pred);
    free(inpred);
    free(ord);
    return ok;
}
