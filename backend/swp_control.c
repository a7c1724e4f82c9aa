/* The loop control of the counted loops the pipeliner leaves alone, on the
 * interface unit (seed 002, 4.2), as swp_plan_loop_control does for the kernels
 * it makes: the IU counts the trips and sends the cells, each pass, the word
 * their branch reads (nonzero: again), so the cells neither compare nor, where
 * nothing else reads it, step the loop's index.
 *
 * The same rule holds as for a kernel (docs/design.md, section 1): the IU follows
 * the first cell's program counter and every cell reads the path's words in the
 * order they were written, so only a loop every cell runs as often as the first
 * cell (its header not divergent, diverge.c), in a function that makes no calls
 * (iu.c), in a program whose words flow rightward (o->iu). Unlike a kernel's, the
 * word is sent in the pass whose branch reads it, not one pass ahead: an outer
 * loop's pass runs its inner loops, whose words must not queue behind the outer
 * loop's next one. So each loop's words are written and read within its pass and
 * the path needs no draining. The branch waits for the word (sched.c); it waited
 * as long for the compare it replaces.
 *
 * A loop is counted here when its one way out is a branch on `index = bound` (the
 * frontend's `for`) in its latch, or in the block before a latch that only jumps
 * back, the index stepped by a literal once a pass in that block, its start a
 * literal given in the one block that enters the loop, and the bound a literal:
 * then the trip count is known when compiled. Every loop left alone is reported
 * in its information block: the IU counts it, or the cells' exit test is work
 * the IU could do, and why it does not (bench/kernels.py lists those). The
 * count's start and step take a literal field each (two a bundle, shared with
 * the cells): where by a bound from below on its bundles the block has none
 * free, the count would cost a bundle, and the cells keep their test. */
#include "swp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct site { int blk, at; } site;

/* Per vreg: its definitions (the first two), and how many operands read it. */
typedef struct vinfo { int ndefs, nuses; site def[2]; } vinfo;

static vinfo *index_vregs(const wb_func *f)
{
    vinfo *v = ws_xcalloc((size_t)f->nvregs + 1, sizeof *v);
    for (int id = 0; id < f->nblocks; id++) {
        const wb_block *b = f->blocks[id];
        for (int i = 0; i <= b->nins; i++) {
            const wb_ins *in = i < b->nins ? &b->ins[i] : &b->term;
            if (in->op == WT_OP_NONE) continue;
            for (int k = 0; k < wb_nsrc(in->op); k++)
                if (wb_is_vreg(in->s[k]) && (int)in->s[k].v < f->nvregs) v[in->s[k].v].nuses++;
            if (!wb_has_dest(in->op) || !wb_is_vreg(in->d) || (int)in->d.v >= f->nvregs) continue;
            vinfo *d = &v[in->d.v];
            if (d->ndefs < 2) d->def[d->ndefs] = (site){id, i};
            d->ndefs++;
        }
        for (int e = 0; e < b->nedges; e++)
            for (int k = 0; k < b->edges[e].n; k++) {
                if (wb_is_vreg(b->edges[e].src[k]) && (int)b->edges[e].src[k].v < f->nvregs) v[b->edges[e].src[k].v].nuses++;
                /* a phi's copy not yet lowered: a definition no site names */
                if (wb_is_vreg(b->edges[e].dst[k]) && (int)b->edges[e].dst[k].v < f->nvregs)
                    v[b->edges[e].dst[k].v].ndefs += 2;
            }
    }
    return v;
}

static const wb_ins *at(const wb_func *f, site s) { return &f->blocks[s.blk]->ins[s.at]; }

/* A literal integer, directly or as the one definition of a vreg. */
static int literal(const wb_func *f, const vinfo *v, wb_opnd o, int32_t *val)
{
    if (wb_is_vreg(o) && (int)o.v < f->nvregs && v[o.v].ndefs == 1) {
        const wb_ins *d = at(f, v[o.v].def[0]);
        if (d->op != WB_COPY && d->op != WT_OP_MOV && d->op != WT_OP_MV) return 0;
        o = d->s[0];
    }
    if (o.kind == WB_O_IMM && !o.isfloat) {
        *val = (int32_t)o.v;
        return 1;
    }
    if (o.kind == WB_O_REG && o.v == WT_OPND_R0) {
        *val = 0;
        return 1;
    }
    return 0;
}

/* x stepped by a literal: `x = x + K` (or - K), or `y = x + K ... x = y`, K's sign in *step. */
static int stepped(const wb_ins *in, uint32_t x, int32_t *step)
{
    if (in->op != WT_OP_IADD && in->op != WT_OP_ISUB) return 0;
    for (int k = 0; k < 2; k++) {
        wb_opnd a = in->s[k], c = in->s[1 - k];
        if (in->op == WT_OP_ISUB && k == 1) break;
        if (!wb_is_vreg(a) || a.v != x || c.kind != WB_O_IMM || c.isfloat || (int32_t)c.v == 0) continue;
        *step = in->op == WT_OP_ISUB ? -(int32_t)c.v : (int32_t)c.v;
        return (int32_t)c.v != INT32_MIN;
    }
    return 0;
}

typedef struct plan {
    int header, latch, pre;   /* latch: the block whose branch ends the loop; pre: the one block outside that enters it */
    int exit_taken;           /* the branch is taken to leave the loop */
    int32_t n;                /* trips; 0: none known */
    uint32_t x, y, c;         /* the index, its next value (0: stepped in place), the exit test */
    int free_test, free_index;   /* nothing else reads the test, the index */
    int set_in;               /* a two-pass loop's flag (x): the block that sets it, else -1 */
} plan;

/* A loop of two passes as LLVM writes one (conv3's `for y := 0 to 1`: `if y = 0
 * then y := 1, again`): the test block T leaves when a flag is set, the flag is a
 * literal 0 given in the one block that enters the loop and a literal other than
 * 0 given in the latch J, which only T reaches and which only jumps back. */
static int two_passes(const wb_func *f, const vinfo *v, const wb_block *T, int J, int out, plan *p)
{
    int out_if_set = (wb_flow(T->term.op) == WT_FLOW_IF_NONZERO) == (T->term.target == out);
    if (!out_if_set || !wb_is_vreg(T->term.s[0]) || (int)T->term.s[0].v >= f->nvregs) return 0;
    uint32_t x = T->term.s[0].v;
    if (v[x].ndefs != 2) return 0;
    site a = v[x].def[0], b = v[x].def[1];
    if (a.blk != p->pre) {
        site t = a;
        a = b;
        b = t;
    }
    int32_t start, set;
    const wb_ins *s0 = at(f, a), *s1 = at(f, b);
    if (a.blk != p->pre || b.blk != J || s0->op != WB_COPY || s1->op != WB_COPY || wb_is_vreg(s0->s[0]) ||
        wb_is_vreg(s1->s[0]) || !literal(f, v, s0->s[0], &start) || !literal(f, v, s1->s[0], &set) || start != 0 ||
        set == 0)
        return 0;
    p->n = 2;
    p->x = p->c = x;
    p->exit_taken = T->term.target == out;
    p->free_test = p->free_index = v[x].nuses == 1;
    p->set_in = J;
    return 1;
}

/* The loop's trip count, if known when compiled (plan.n), and what its exit test is. */
static void read_loop(const wb_func *f, const vinfo *v, const nloop *lp, const uint8_t *reach, plan *p)
{
    memset(p, 0, sizeof *p);
    p->header = lp->header;
    p->latch = -1;
    p->pre = -1;
    p->set_in = -1;
    if (lp->latch < 0) return;
    /* the one way out: a branch in the latch, or in the one block before a latch
     * that only jumps back (the test block, run once a pass either way) */
    int X = -1;
    for (int id = 0; id < f->nblocks; id++) {
        if (!reach[id]) continue;
        int succ[2], ns = wb_succs(f->blocks[id], succ);
        for (int k = 0; k < ns; k++) {
            if (in_loop(lp, id) && !in_loop(lp, succ[k])) {
                if (X >= 0) return;
                X = id;
            }
            if (!in_loop(lp, id) && succ[k] == lp->header) {
                if (p->pre >= 0 && p->pre != id) return;
                p->pre = id;
            }
        }
    }
    if (X < 0 || p->pre < 0) return;
    const wb_block *T = f->blocks[X], *J = f->blocks[lp->latch];
    if (!wb_is_cond_branch(T->term.op) || T->fall < 0) return;
    int out = in_loop(lp, T->fall) ? T->term.target : T->fall, stay = out == T->fall ? T->term.target : T->fall;
    if (in_loop(lp, out) || !in_loop(lp, stay)) return;
    if (X != lp->latch) {
        /* the latch: nothing but the way back, reached from the test block alone */
        int into_latch = 0;
        for (int id = 0; id < f->nblocks; id++) {
            int succ[2], ns = reach[id] ? wb_succs(f->blocks[id], succ) : 0;
            for (int k = 0; k < ns; k++) into_latch += succ[k] == lp->latch;
        }
        int back = J->term.op == WT_OP_NONE ? J->fall : wb_flow(J->term.op) == WT_FLOW_JUMP ? J->term.target : -1;
        if (stay != lp->latch || back != lp->header || into_latch != 1) return;
        if (J->nins != 0) {
            p->latch = X;
            if (!two_passes(f, v, T, lp->latch, out, p)) p->latch = -1;
            return;
        }
    } else if (stay != lp->header) {
        return;
    }
    p->latch = X;
    if (!wb_is_vreg(T->term.s[0]) || (int)T->term.s[0].v >= f->nvregs) return;
    uint32_t c = T->term.s[0].v;
    if (v[c].ndefs != 1 || v[c].def[0].blk != X) return;
    int cat = v[c].def[0].at;
    const wb_ins *t = at(f, v[c].def[0]);
    /* the loop ends when index = bound */
    int out_if_set = (wb_flow(T->term.op) == WT_FLOW_IF_NONZERO) == (T->term.target == out);
    if (!((t->op == WT_OP_IEQ && out_if_set) || (t->op == WT_OP_INE && !out_if_set))) return;
    p->exit_taken = T->term.target == out;
    for (int k = 0; k < 2; k++) {
        wb_opnd a = t->s[k];
        int32_t bound, start, step;
        if (!wb_is_vreg(a) || (int)a.v >= f->nvregs || !literal(f, v, t->s[1 - k], &bound)) continue;
        /* a: the index x, or y = x + K where x = y closes the pass */
        uint32_t x = a.v, y = 0;
        int next = 0;   /* the test reads the index after this pass's step */
        if (v[a.v].ndefs == 1 && v[a.v].def[0].blk == X && v[a.v].def[0].at < cat) {
            const wb_ins *d = at(f, v[a.v].def[0]);
            if (d->op != WT_OP_IADD && d->op != WT_OP_ISUB) continue;
            x = wb_is_vreg(d->s[0]) ? d->s[0].v : d->op == WT_OP_IADD && wb_is_vreg(d->s[1]) ? d->s[1].v : 0;
            if (!x || (int)x >= f->nvregs) continue;
            y = a.v;
            next = 1;
        }
        if (v[x].ndefs != 2) continue;
        site in = v[x].def[0], start_at = v[x].def[1];
        if (!in_loop(lp, in.blk)) {
            site s = in;
            in = start_at;
            start_at = s;
        }
        if (in.blk != X || start_at.blk != p->pre) continue;
        const wb_ins *d = at(f, in), *o = at(f, start_at);
        if (o->op != WB_COPY && o->op != WT_OP_MOV && o->op != WT_OP_MV) continue;
        /* the start itself, not a register that held it (it may have changed since) */
        if (wb_is_vreg(o->s[0]) || !literal(f, v, o->s[0], &start)) continue;
        if (y) {
            /* x = y after y = x + K, the test between them or after */
            if (d->op != WB_COPY || !wb_is_vreg(d->s[0]) || d->s[0].v != y || in.at < v[y].def[0].at) continue;
            if (!stepped(at(f, v[y].def[0]), x, &step)) continue;
        } else if (stepped(d, x, &step)) {
            next = in.at < cat;
        } else if (d->op == WB_COPY && wb_is_vreg(d->s[0]) && (int)d->s[0].v < f->nvregs && v[d->s[0].v].ndefs == 1 &&
                   v[d->s[0].v].def[0].blk == X && v[d->s[0].v].def[0].at < in.at &&
                   stepped(at(f, v[d->s[0].v].def[0]), x, &step)) {
            y = d->s[0].v;
            next = in.at < cat;
        } else {
            continue;
        }
        /* pass k (from 0) tests start + step * (k + next); the first equal to the bound ends the loop */
        int64_t diff = (int64_t)bound - start;
        if (diff % step != 0 || diff / step < next || diff / step - next + 1 > INT32_MAX) continue;
        p->n = (int32_t)(diff / step - next + 1);
        p->x = x;
        p->y = y;
        p->c = c;
        p->free_test = v[c].nuses == 1;
        /* the index's readers: its step and the test, no other */
        int test_reads_x = 0, test_reads_y = 0;
        for (int j = 0; j < 2; j++) {
            test_reads_x += wb_is_vreg(t->s[j]) && t->s[j].v == x;
            test_reads_y += y && wb_is_vreg(t->s[j]) && t->s[j].v == y;
        }
        p->free_index = p->free_test && v[x].nuses == 1 + test_reads_x && (!y || v[y].nuses == 1 + test_reads_y);
        return;
    }
}

static int path_operand(const wt_model *m)
{
    for (int q = 0; q < WT_NPATHS; q++)
        if (wt_paths[q].model == m->id) return (int)WT_OPND_PATH + q;
    return -1;
}

/* Removes the definition of vreg r in block id (its debug events go to the operation before). */
static void remove_def(wb_func *f, int id, uint32_t r)
{
    wb_block *b = f->blocks[id];
    for (int i = 0; i < b->nins; i++)
        if (wb_has_dest(b->ins[i].op) && wb_is_vreg(b->ins[i].d) && b->ins[i].d.v == r) {
            wb_move_dbg(f, b, i);
            wb_remove(b, i);
            return;
        }
}

/* Has the block, as few bundles as its cells' operations can take, a literal
 * field free for lit? A bundle has WT_BUNDLE_LITERALS, which the IU's half shares:
 * the count's start in a block whose bundles use them all would take a bundle
 * of its own (fft's line 25 at -fno-swp, after eight stores to the frame). */
static int literal_room(const wb_func *f, const wb_block *b, wb_opnd lit, int *done, int nv)
{
    wb_opnd *lits = ws_xcalloc((size_t)3 * ((size_t)b->nins + 2), sizeof *lits);
    int n = 0, per_class[WT_NUCLASSES] = {0};
    unsigned least = 1, feeds = 0, reads[4] = {0};   /* the IU link's words, and each queue's reads: one a bundle */
    for (int i = 0; i <= b->nins; i++) {
        const wb_ins *in = i < b->nins ? &b->ins[i] : &b->term;
        if (in->op == WT_OP_NONE) continue;
        n += wb_new_literals(lits, n, in, lits + n);
        if (!in->iu && in->op != WB_COPY && i < b->nins) per_class[wt_ops[in->op].uclass]++;
        feeds += (unsigned)wb_iu_feeds(in);
        for (int k = 0; k < wb_nsrc(in->op); k++)
            if (in->s[k].kind == WB_O_REG && wt_opnd_is_gate(in->s[k].v)) reads[in->s[k].v - WT_OPND_GATE]++;
    }
    wb_ins use = {.op = WB_COPY, .s = {lit}};
    n += wb_new_literals(lits, n, &use, lits + n);
    free(lits);
    /* and its values' latencies: the branch waits until every operation completes
     * (done: per vreg, the clock its value is ready, -1 outside this walk) */
    for (int i = 0; i < b->nins; i++) {
        const wb_ins *in = &b->ins[i];
        int t = 0;
        for (int k = 0; k < wb_nsrc(in->op); k++)
            if (wb_is_vreg(in->s[k]) && (int)in->s[k].v < nv && done[in->s[k].v] > t) t = done[in->s[k].v];
        int end = t + wb_latency(f, in->op);
        if (wb_has_dest(in->op) && wb_is_vreg(in->d) && (int)in->d.v < nv) done[in->d.v] = end;
        if ((unsigned)end > least) least = (unsigned)end;
    }
    for (int i = 0; i < b->nins; i++)
        if (wb_has_dest(b->ins[i].op) && wb_is_vreg(b->ins[i].d) && (int)b->ins[i].d.v < nv) done[b->ins[i].d.v] = -1;
    if (feeds > least) least = feeds;
    for (int q = 0; q < 4; q++)
        if (reads[q] > least) least = reads[q];
    for (int uc = WT_UC_NONE + 1; uc < WT_NUCLASSES; uc++) {
        unsigned slots = wt_class_slots((wt_unit_class)uc);
        if (slots && (per_class[uc] + slots - 1) / slots > least) least = (per_class[uc] + slots - 1) / slots;
    }
    return (unsigned)n <= WT_BUNDLE_LITERALS * least;
}

static void take_control(wb_func *f, const plan *p, int path)
{
    const wb_ins *br = &f->blocks[p->latch]->term;
    unsigned line = br->line, col = br->col;
    int count = wb_new_vreg(f, WB_V_IU);
    wb_ins in[3] = {swp_mk(WB_COPY, wb_vreg(count), wb_imm((uint32_t)(p->n - 1), 0), (wb_opnd){0}),
                    swp_mk(WB_COPY, wb_reg((unsigned)path), wb_vreg(count), (wb_opnd){0}),
                    swp_mk(WT_OP_ISUB, wb_vreg(count), wb_vreg(count), wb_imm(1, 0))};
    for (int k = 0; k < 3; k++) {
        in[k].iu = 1;
        in[k].line = line;
        in[k].col = col;
        wb_append(f, k ? p->latch : p->pre, &in[k]);
    }
    wb_block *T = f->blocks[p->latch];
    T->term.op = T->term.mop = p->exit_taken ? WT_OP_BZ : WT_OP_BNZ;
    T->term.s[0] = wb_reg((unsigned)path);
    if (p->free_test) remove_def(f, p->latch, p->c);
    if (p->free_index) {
        if (p->y) remove_def(f, p->latch, p->y);
        remove_def(f, p->set_in >= 0 ? p->set_in : p->latch, p->x);
        remove_def(f, p->pre, p->x);
    }
}

/* The line in the loop's information block, before its closing rule. */
static void note(wb_func *f, int id, const char *text)
{
    const char *old = f->blocks[id]->comment;
    if (!old) return;
    const char *end = strstr(old, "        ;*----");
    const char *last = NULL;
    for (const char *q = end; q; q = strstr(q + 1, "        ;*----")) last = q;
    if (!last || last == old) return;
    ws_buf c = {0};
    ws_buf_append(&c, old, (size_t)(last - old));
    ws_buf_printf(&c, "        ;*      Loop control on the cells        : %s\n", text);
    ws_buf_puts(&c, last);
    ws_buf_append(&c, "", 1);
    f->blocks[id]->comment = ws_arena_strndup(&f->arena, c.data, strlen(c.data));
    ws_buf_free(&c);
}

void swp_iu_counts(wb_func *f, const wb_swp_options *o, const int *headers, int nheaders)
{
    if (f->model->id != WT_MODEL_WARP || nheaders == 0 || f->norder == 0) return;
    nloop *loops;
    int nl = swp_find_loops(f, &loops), calls = swp_has_call(f), path = path_operand(f->model);
    uint8_t *want = ws_xcalloc((size_t)f->nblocks + 1, 1), *reach = swp_reachable_blocks(f);
    for (int i = 0; i < nheaders; i++)
        if (headers[i] < f->nblocks) want[headers[i]] = 1;
    vinfo *v = index_vregs(f);
    plan *plans = ws_xcalloc((size_t)nl + 1, sizeof *plans);
    int nv = f->nvregs, *done = ws_xcalloc((size_t)nv + 1, sizeof *done);   /* the count's vregs come after nv */
    for (int r = 0; r <= nv; r++) done[r] = -1;
    /* every loop read before any changes: the index describes the function as it was */
    for (int i = 0; i < nl; i++)
        if (want[loops[i].header]) read_loop(f, v, &loops[i], reach, &plans[i]);
    for (int i = 0; i < nl; i++) {
        const plan *p = &plans[i];
        if (!want[loops[i].header]) continue;
        char text[240];
        const wb_block *pre = p->n ? f->blocks[p->pre] : NULL;
        const char *why = NULL;   /* why the IU does not count a loop it could */
        if (!p->n) {
        } else if (!o->iu) {
            why = "";
        } else if (calls) {
            why = "; the function makes calls (the IU's registers are not kept across them)";
        } else if (path < 0 || pre->fixed || f->blocks[p->latch]->fixed) {
            why = "; its entry is a pipeline's";
        } else if (!literal_room(f, pre, wb_imm((uint32_t)(p->n - 1), 0), done, nv)) {
            why = "; the block before it has no literal field free for the count";
        } else if (!literal_room(f, f->blocks[p->latch], wb_imm(1, 0), done, nv)) {
            why = "; its test block has no literal field free for the count's step";
        }
        if (!p->n) {
            snprintf(text, sizeof text, "0 the IU could do (no constant trip count found)");
        } else if (o->iu && f->blocks[p->header]->divergent) {
            snprintf(text, sizeof text, "1 not the IU's (the exit test; %d trips, known; the cells may run the loop "
                     "different numbers of times, and every cell reads the same path words)", p->n);
        } else if (why) {
            snprintf(text, sizeof text, "1 the IU could do (the exit test; %d trips, known%s)", p->n, why);
        } else {
            take_control(f, p, path);
            snprintf(text, sizeof text, "0 (the IU counts the %d trips; the cells branch on @adr)", p->n);
        }
        note(f, p->header, text);
    }
    free(plans);
    free(done);
    free(v);
    free(want);
    free(reach);
    for (int i = 0; i < nl; i++) free(loops[i].in);
    free(loops);
}
