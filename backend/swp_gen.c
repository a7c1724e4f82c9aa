/* Software pipelining: code generation from a modulo schedule (entry, prologue,
 * kernel unrolled by modulo variable expansion, epilogue, exit values), as laid
 * out at the top of swp.c. */
#include "swp.h"

#include <stdlib.h>
#include <string.h>

typedef struct gen {
    loop *L;
    int ii, stages, u;
    int **names;          /* per body value: u vregs */
} gen;

static int name_of(const gen *G, int v, int im) { return G->names[v][((im % G->u) + G->u) % G->u]; }

static void put(const gen *G, int block, const bop *o, int im, int cycle)
{
    const loop *L = G->L;
    wb_ins in = o->in;
    if (wb_has_dest(in.op) && is_body_value(L, in.d)) {
        in.swp_value = in.d.v;
        in.swp_iter = im;
        in.d = wb_vreg(name_of(G, (int)in.d.v, im));
    }
    for (int k = 0; k < wb_nsrc(in.op); k++)
        if (is_body_value(L, o->in.s[k])) in.s[k] = wb_vreg(name_of(G, (int)o->in.s[k].v, im - o->dist[k]));
    in.mop = (uint16_t)o->mop;
    in.cycle = cycle;
    wb_append(L->f, block, &in);
}

static int ilog2(int u)
{
    int k = 0;
    while ((1 << k) < u) k++;
    return (1 << k) == u ? k : -1;
}

int swp_new_block_before(wb_func *f, int before)
{
    int id = wb_new_block(f);
    wb_place_block(f, id);
    /* move it from the end of the layout to just before `before` */
    int at = 0;
    while (f->order[at] != before) at++;
    memmove(&f->order[at + 1], &f->order[at], sizeof *f->order * (size_t)(f->norder - 1 - at));
    f->order[at] = id;
    return id;
}

static void append(wb_func *f, int block, wb_ins in) { wb_append(f, block, &in); }

/* -g: in the pipeline's blocks iterations overlap, so each variable the loop
 * assigns has no one value there; their entries say so (emission's dwarf.c reads
 * it). The loop's own blocks (the header, and the blocks if-conversion merged)
 * keep every assignment's event. */
static void mark_assigned(const loop *L, const int *blocks, int n)
{
    wb_func *f = L->f;
    for (int id = 0; id < f->nblocks; id++) {
        if (id != L->id && !(L->member && id < L->nmember && L->member[id])) continue;
        const wb_block *lb = f->blocks[id];
        for (int i = -1; i < lb->nins; i++)
            for (int ev = i < 0 ? lb->dbg_entry : lb->ins[i].dbg; ev; ev = f->dbgev[ev].next) {
                int var = f->dbgev[ev].var;
                if (var < 0) continue;
                for (int k = 0; k < n; k++)
                    wb_chain_dbg(f, &f->blocks[blocks[k]]->dbg_entry, wb_new_dbgev(f, var, WB_DV_NONE, 0, 0));
            }
    }
}

/* The kernel's unrolling (modulo variable expansion): the longest lifetime, in IIs.
 * A value read after the loop d iterations back (a copy the latch saved before
 * an increment) lives d iterations past its definition: the pipeline's last
 * iteration must not have overwritten it. */
int swp_unroll_factor(const loop *L, int ii, const uint64_t *live_after)
{
    int u = 1;
    for (int i = 0; i < L->nop; i++) {
        const bop *x = &L->op[i];
        if (!x->live || !wb_has_dest(x->in.op) || !is_body_value(L, x->in.d)) continue;
        int end = x->time + 1, d = swp_live_out_dist(L, live_after, (int)x->in.d.v);
        if (d > 0 && x->time + d * ii + 1 > end) end = x->time + d * ii + 1;
        for (int j = 0; j < L->nop; j++) {
            const bop *y = &L->op[j];
            if (!y->live) continue;
            for (int k = 0; k < wb_nsrc(y->in.op); k++)
                if (wb_is_vreg(y->in.s[k]) && y->in.s[k].v == x->in.d.v && is_body_value(L, y->in.s[k])) {
                    int t = y->time + y->dist[k] * ii;
                    if (t > end) end = t;
                }
        }
        int need = (end - x->time + ii - 1) / ii;
        if (need > u) u = need;
    }
    /* the values of the d iterations before the loop are all there at its start */
    for (int i = 0; i < L->nop; i++)
        for (int k = 0; L->op[i].live && k < wb_nsrc(L->op[i].in.op); k++)
            if (is_body_value(L, L->op[i].in.s[k]) && L->op[i].dist[k] > u) u = L->op[i].dist[k];
    return u;
}
/* The unrolling the kernel gets: at least swp_unroll_factor's, and with a known
 * trip count N, up to four times that (at most MAX_KERNEL_BUNDLES), the one
 * that leaves the fewest of the N - S + 1 iterations after the prologue to the
 * original loop. Each left-over iteration runs unpipelined, the whole latency
 * of its body: a 32-trip loop at II=2 with six stages, unrolled five times,
 * left two iterations of eleven clocks each to the original loop; unrolled
 * nine times, none. More copies of the kernel need no more registers (as many
 * values live at once). */
int swp_kernel_unroll(const loop *L, int ii, int stages, const uint64_t *live_after)
{
    enum { MAX_KERNEL_BUNDLES = 64 };
    int u = swp_unroll_factor(L, ii, live_after);
    if (!L->const_n || L->ncheck) return u;
    int64_t runs = (int64_t)swp_trips(L) - stages + 1;
    if (runs < u) return u;
    int best = u;
    for (int k = u + 1; k <= 4 * u && k <= runs && (int64_t)k * ii <= MAX_KERNEL_BUNDLES; k++)
        if (runs % k < runs % best) best = k;
    return best;
}

/* The one block outside the loop that enters it, by falling into its header with
 * no branch of its own: the pipeline's entry work can go there, where the list
 * scheduler overlaps it with what comes before. -1 if there is none. */
static int preheader(const loop *L)
{
    int p = -1;
    for (int id = 0; id < L->f->nblocks; id++) {
        const wb_block *b = L->f->blocks[id];
        if (id < L->nmember && L->member[id]) continue;
        int enters = b->fall == L->id || (wb_branches(b->term.op) && b->term.target == L->id);
        if (!enters) continue;
        if (p >= 0 || b->fall != L->id || b->term.op != WT_OP_NONE || b->fixed) return -1;
        p = id;
    }
    return p;
}

/* Does a block outside the loop write register v? The blocks where v occurs are
 * asked, not the function: a function of 500 inlined calls has a thousand loops,
 * and a walk of it for each made this 60% of swp_generate. The index must be up
 * to date (swp_generate brings it up to date on first need). */
static int written_outside(const loop *L, int v)
{
    occ_index *x = L->occ;
    int all = !x || v >= x->nv;
    int n = all ? L->f->nblocks : x->n[v];
    if (!all) x->stamp++;
    for (int k = 0; k < n; k++) {
        int id = all ? k : x->at[v][k];
        if (!all && x->seen[id] == x->stamp) continue;
        if (!all) x->seen[id] = x->stamp;
        const wb_block *b = L->f->blocks[id];
        if (id < L->nmember && L->member[id]) continue;
        for (int i = 0; i < b->nins; i++)
            if (wb_has_dest(b->ins[i].op) && wb_opnd_eq(b->ins[i].d, wb_vreg(v))) return 1;
        if (wb_flow(b->term.op) == WT_FLOW_COUNT_DOWN && wb_opnd_eq(b->term.s[0], wb_vreg(v))) return 1;
    }
    return 0;
}

/* A new vreg = op(a, b), appended to block b. */
static int emit_val(wb_func *f, int block, int op, wb_opnd a, wb_opnd b)
{
    int v = wb_new_vreg(f, 0);
    append(f, block, swp_mk(op, wb_vreg(v), a, b));
    return v;
}

/* v * k, by a shift where k is a power of two. */
static int emit_times(wb_func *f, int block, wb_opnd v, int64_t k)
{
    uint64_t m = k < 0 ? (uint64_t)-k : (uint64_t)k;
    int r = (m & (m - 1)) == 0 ? emit_val(f, block, WT_OP_SHL, v, wb_imm((uint32_t)__builtin_ctzll(m), 0))
                               : emit_val(f, block, WT_OP_IMUL, v, wb_imm((uint32_t)m, 0));
    return k < 0 ? emit_val(f, block, WT_OP_ISUB, wb_imm(0, 0), wb_vreg(r)) : r;
}

/* The entry's checks of address differences (WB_DEP_CHECK): the pipeline runs
 * only if each |diff| >= N*|step|, so that the two accesses are more iterations
 * apart than the loop runs. Returns the vreg that is nonzero to run the original
 * loop instead: `small` or'ed with every failed check. */
static int entry_checks(loop *L, int block, int N, int small)
{
    wb_func *f = L->f;
    for (int i = 0; i < L->ncheck; i++) {
        const wb_dep *c = &L->check[i];
        int acc = emit_val(f, block, WB_COPY, wb_imm((uint32_t)c->diff.c, 0), (wb_opnd){0});
        for (int k = 0; k < c->diff.nterm; k++) {
            int t = c->diff.term[k].k == 1 ? (int)c->diff.term[k].v
                                           : emit_times(f, block, wb_vreg(c->diff.term[k].v), c->diff.term[k].k);
            acc = emit_val(f, block, WT_OP_IADD, wb_vreg(acc), wb_vreg(t));
        }
        int span = emit_times(f, block, wb_vreg(N), c->step < 0 ? -c->step : c->step);
        /* diff - span < 0 and -diff - span < 0: the sign bit of their and */
        int lo = emit_val(f, block, WT_OP_ISUB, wb_vreg(acc), wb_vreg(span));
        int neg = emit_val(f, block, WT_OP_ISUB, wb_imm(0, 0), wb_vreg(acc));
        int hi = emit_val(f, block, WT_OP_ISUB, wb_vreg(neg), wb_vreg(span));
        int both = emit_val(f, block, WT_OP_AND, wb_vreg(lo), wb_vreg(hi));
        int near = emit_val(f, block, WT_OP_ILT, wb_vreg(both), wb_imm(0, 0));
        small = emit_val(f, block, WT_OP_OR, wb_vreg(small), wb_vreg(near));
    }
    if (L->ctr_used) {
        /* the stepped counter's extra step, at least what its dependences assumed */
        const wb_aff *g = &L->ctr.g;
        int acc = emit_val(f, block, WB_COPY, wb_imm((uint32_t)g->c, 0), (wb_opnd){0});
        for (int k = 0; k < g->nterm; k++) {
            int t = g->term[k].k == 1 ? (int)g->term[k].v : emit_times(f, block, wb_vreg(g->term[k].v), g->term[k].k);
            acc = emit_val(f, block, WT_OP_IADD, wb_vreg(acc), wb_vreg(t));
        }
        if (L->ctr.m < 0) acc = emit_val(f, block, WT_OP_ISUB, wb_imm(0, 0), wb_vreg(acc));
        int near = emit_val(f, block, WT_OP_ILT, wb_vreg(acc), wb_imm((uint32_t)L->ctr_gmin, 0));
        small = emit_val(f, block, WT_OP_OR, wb_vreg(small), wb_vreg(near));
    }
    return small;
}

/* Seed 002 (4.2): the IU does the loop control a loop's data do not decide and
 * sends it to the cells along the address path; the cells only branch on it. A
 * kernel with a known trip count runs m passes: the IU keeps its own count of
 * them and writes, each pass, the word the next pass's branch reads (nonzero:
 * again), the entry the first; the one word the last pass writes is read after
 * the exit, so every loop leaves the path's queues as it found them. Each pass
 * takes an IU add (ALU or memory unit) and an IU move (crossbar or ALU) and a word
 * of the path: the rows of the modulo schedule where the IU has them free. Not
 * where the trip count is computed on entry (the IU would compute it too: not
 * yet), and not in a function that calls (iu.c keeps it all on the cells). */
static int path_of(const wt_model *m)
{
    for (int p = 0; p < WT_NPATHS; p++)
        if (wt_paths[p].model == m->id) return p;
    return -1;
}

void swp_plan_loop_control(loop *L, const wb_msched *ms)
{
    wb_func *f = L->f;
    int path = path_of(f->model), ii = ms->ii;
    L->iu_ctl = 0;
    L->iu_why = NULL;
    L->iu_divergent = 0;
    if (!L->o->iu || !L->const_n || path < 0 || f->model->id != WT_MODEL_WARP) return;
    if (f->blocks[L->id]->divergent) {
        L->iu_divergent = 1;
        return;
    }
    /* A function that calls is never pipelined (wb_swp asks swp_has_call once), so
     * no check for calls here: a walk of the function for each of its loops cost a
     * thousand loops' function 8% of its compile. */
    int (*used)[WB_NRES] = ws_xcalloc((size_t)ii, sizeof *used);
    for (int i = 0; i < L->nop; i++) {
        const bop *o = &L->op[i];
        if (!o->live) continue;
        int r = o->time % ii;
        used[r][wb_res(o->mop, o->in.iu)]++;
        if (wb_has_dest(o->in.op) && o->in.d.kind == WB_O_REG && wt_opnd_is_path(o->in.d.v))
            used[r][WT_RES_PATH + (int)(o->in.d.v - WT_OPND_PATH)]++;
    }
    wt_op alt[WT_MAX_ALTS];
    int dec = -1, wr = -1;
    unsigned nalt = wb_mop_choices(WT_OP_IADD, 0, alt);
    /* the step early and the write late: with the write after the step lands, the
     * count starts at the first word (one literal for both) */
    for (int r = 0; r < ii && dec < 0; r++)
        for (unsigned k = 0; k < nalt && dec < 0; k++)
            if (used[r][wb_res(alt[k], 1)] < wb_res_slots(f->model, wb_res(alt[k], 1))) {
                dec = r;
                L->iu_dec_mop = alt[k];
                used[r][wb_res(alt[k], 1)]++;
            }
    nalt = wb_mop_choices(WB_COPY, 0, alt);
    for (int r = ii - 1; r >= 0 && wr < 0; r--) {
        if (used[r][WT_RES_PATH + path] >= wb_res_slots(f->model, WT_RES_PATH + path)) continue;
        for (unsigned k = 0; k < nalt && wr < 0; k++)
            if (used[r][wb_res(alt[k], 1)] < wb_res_slots(f->model, wb_res(alt[k], 1))) {
                wr = r;
                L->iu_wr_mop = alt[k];
            }
    }
    free(used);
    if (dec < 0 || wr < 0) {
        L->iu_why = dec < 0 ? "no IU adder free in the kernel" : "no IU move and path word free in the kernel";
        return;
    }
    L->iu_ctl = 1;
    L->iu_dec_row = dec;
    L->iu_wr_row = wr;
}

/* The IU's count of the kernel's passes (swp_plan_loop_control), for `passes`
 * passes: the entry sends the first pass's word and sets the count; each pass
 * steps it in its first copy of the body and sends the next pass's word in its
 * last (from cycle `last`); the kernel branches on the word; after the pipeline
 * the cells read the word the last pass sent. A write that issues before the step
 * lands reads the count before it. The step adds an IU register holding -1: one
 * the pipeliner hoisted already if there is one (the entry's literal fields are
 * shared with the cells'). */
static void iu_loop_control(loop *L, int E, int K, int POST, int32_t passes, int last, unsigned line, unsigned col)
{
    wb_func *f = L->f;
    wb_opnd path = wb_reg((unsigned)(WT_OPND_PATH + path_of(f->model)));
    int count = wb_new_vreg(f, WB_V_IU), minus1 = 0;
    for (int j = 0; j < L->nhz && !minus1; j++)
        if ((f->vflags[L->hz[j].v] & WB_V_IU) && L->einit[L->hz[j].einit].op != WT_OP_NONE &&
            wb_lit_eq(L->hz[j].lit, wb_imm((uint32_t)-1, 0)))
            minus1 = L->hz[j].v;
    int dec_at = L->iu_dec_row, wr_at = last + L->iu_wr_row, n = 2;
    wb_ins in[4] = {swp_mk(WB_COPY, path, wb_imm((uint32_t)(passes - 1), 0), (wb_opnd){0}),
                    swp_mk(WB_COPY, wb_vreg(count), wb_imm((uint32_t)(passes - 1), 0), (wb_opnd){0})};
    if (!minus1) {
        minus1 = wb_new_vreg(f, WB_V_IU);
        in[n++] = swp_mk(WB_COPY, wb_vreg(minus1), wb_imm((uint32_t)-1, 0), (wb_opnd){0});
    }
    /* a write that reads the count before the pass's step (a kernel of one bundle)
     * needs it one lower: a step in the entry rather than a second literal there */
    if (wr_at <= dec_at) in[n++] = swp_mk(WT_OP_IADD, wb_vreg(count), wb_vreg(count), wb_vreg(minus1));
    for (int k = 0; k < n; k++) {
        in[k].iu = 1;
        in[k].line = line;
        in[k].col = col;
        wb_append(f, E, &in[k]);
    }
    /* the pass's step and its write, at the kernel clocks swp_plan_loop_control chose */
    wb_ins kernel[2] = {swp_mk(WT_OP_IADD, wb_vreg(count), wb_vreg(count), wb_vreg(minus1)),
                        swp_mk(WB_COPY, path, wb_vreg(count), (wb_opnd){0})};
    int mop[2] = {L->iu_dec_mop, L->iu_wr_mop}, at[2] = {dec_at, wr_at};
    for (int k = 0; k < 2; k++) {
        kernel[k].iu = 1;
        kernel[k].mop = (uint16_t)mop[k];
        kernel[k].cycle = at[k];
        kernel[k].line = line;
        kernel[k].col = col;
        wb_append(f, K, &kernel[k]);
    }
    wb_block *kb = f->blocks[K];
    kb->term = swp_mk(WT_OP_BNZ, (wb_opnd){0}, path, (wb_opnd){0});
    kb->term.mop = WT_OP_BNZ;
    wb_ins drain = swp_mk(WB_COPY, wb_vreg(wb_new_vreg(f, 0)), path, (wb_opnd){0});
    wb_append(f, POST, &drain);
}

void swp_generate(loop *L, const wb_msched *ms, const uint64_t *live_after, ws_buf *info)
{
    wb_func *f = L->f;
    int ii = ms->ii, S = ms->stages, u = swp_kernel_unroll(L, ii, S, live_after);
    gen G = {L, ii, S, u, NULL};
    G.names = ws_xcalloc((size_t)L->nv, sizeof *G.names);
    int *named = ws_xcalloc((size_t)L->nop + 1, sizeof *named), nnamed = 0;   /* the vregs G.names names */
    for (int i = 0; i < L->nop; i++) {
        const bop *x = &L->op[i];
        if (!x->live || !wb_has_dest(x->in.op) || !is_body_value(L, x->in.d)) continue;
        int *nm = ws_arena_alloc(&f->arena, sizeof *nm * (size_t)u);
        for (int k = 0; k < u; k++) nm[k] = wb_new_vreg(f, 0);
        if (!G.names[x->in.d.v]) named[nnamed++] = (int)x->in.d.v;
        G.names[x->in.d.v] = nm;
    }
    /* in the order of the vregs, as the entry's copies are made */
    ws_sort_ints(named, (size_t)nnamed);
    const wb_block *lb = L->body;
    unsigned line = swp_loop_line(lb), col = lb->term.line ? lb->term.col : 0;
    int P = preheader(L);
    int E = P >= 0 ? P : swp_new_block_before(f, L->id), E2 = L->const_n ? E : swp_new_block_before(f, L->id);
    int PRO = swp_new_block_before(f, L->id), K = swp_new_block_before(f, L->id);
    int EPI = swp_new_block_before(f, L->id), POST = swp_new_block_before(f, L->id);
    int e_from = f->blocks[E]->nins;
    /* Every way into the loop from outside now enters the pipeline's check. */
    for (int id = 0; id < f->nblocks; id++) {
        wb_block *p = f->blocks[id];
        if ((id < L->nmember && L->member[id]) || id == E || id == E2 || id == POST) continue;
        if (p->fall == L->id) p->fall = E;
        if (wb_branches(p->term.op) && p->term.target == L->id)
            p->term.target = E;
    }

    /* entry: the trip count and the check, then (only on the pipeline's way, so
     * that the values the original loop would read die at their copies) the
     * first values */
    for (int i = 0; i < L->neinit; i++)
        if (L->einit[i].op != WT_OP_NONE) append(f, E2, L->einit[i]);
    int diff = wb_new_vreg(f, 0), N = wb_new_vreg(f, 0);
    wb_opnd init = wb_vreg(L->iv_init);
    int small = wb_new_vreg(f, 0), over = wb_new_vreg(f, 0), m = wb_new_vreg(f, 0), r = wb_new_vreg(f, 0);
    int nmin = S - 1 + u < 2 ? 2 : S - 1 + u;
    int lg = ilog2(u);
    /* an unrolled body (swp_unroll.c): N counts its iterations, N0 the old ones */
    int U = L->unroll > 1 ? L->unroll : 1, lgU = ilog2(U), N0 = N;
    int32_t trips = swp_trips(L);
    if (L->const_n) {
        /* known trip count (at least nmin: pipeline checked): no check */
        append(f, E, swp_mk(WB_COPY, wb_vreg(N), wb_imm((uint32_t)trips, 0), (wb_opnd){0}));
        if (!L->iu_ctl) append(f, E, swp_mk(WB_COPY, wb_vreg(m), wb_imm((uint32_t)((trips - S + 1) / u), 0), (wb_opnd){0}));
        append(f, E, swp_mk(WB_COPY, wb_vreg(r), wb_imm((uint32_t)((trips - S + 1) % u), 0), (wb_opnd){0}));
    } else {
        append(f, E, L->iv_step > 0 ? swp_mk(WT_OP_ISUB, wb_vreg(diff), L->bound, init) : swp_mk(WT_OP_ISUB, wb_vreg(diff), init, L->bound));
        if (L->iv_shift) {
            int steps = wb_new_vreg(f, 0);
            append(f, E, swp_mk(WT_OP_SRA, wb_vreg(steps), wb_vreg(diff), wb_imm((uint32_t)L->iv_shift, 0)));
            diff = steps;
        }
        append(f, E, swp_mk(WT_OP_IADD, wb_vreg(N), wb_vreg(diff), wb_imm((uint32_t)L->test_dist, 0)));
        if (U > 1) {
            N = wb_new_vreg(f, 0);
            append(f, E, swp_mk(WT_OP_SHR, wb_vreg(N), wb_vreg(N0), wb_imm((uint32_t)lgU, 0)));
        }
        append(f, E, swp_mk(WT_OP_ILTU, wb_vreg(small), wb_vreg(N), wb_imm((uint32_t)nmin, 0)));
        append(f, E, swp_mk(WT_OP_ISUB, wb_vreg(over), wb_vreg(N), wb_imm((uint32_t)(S - 1), 0)));
        small = entry_checks(L, E, N, small);
    }
    if (L->const_n) {
    } else if (lg >= 0) {
        append(f, E, swp_mk(WT_OP_SHR, wb_vreg(m), wb_vreg(over), wb_imm((uint32_t)lg, 0)));
        append(f, E, swp_mk(WT_OP_AND, wb_vreg(r), wb_vreg(over), wb_imm((uint32_t)(u - 1), 0)));
    } else {
        append(f, E, swp_mk(WT_OP_IDIVU, wb_vreg(m), wb_vreg(over), wb_imm((uint32_t)u, 0)));
        append(f, E, swp_mk(WT_OP_IMODU, wb_vreg(r), wb_vreg(over), wb_imm((uint32_t)u, 0)));
    }
    /* The entry's new code is in the occurrence index from here on; the copies
     * below write only the pipeline's own names, which no INIT names. */
    int indexed = 0;
    for (int c = 0; c < nnamed; c++)
        for (int j = 1, v = named[c]; j <= MAX_DIST; j++) {
            if (!INIT(L, v, j)) continue;
            int from = INIT(L, v, j) > 0 ? INIT(L, v, j) : -INIT(L, v, j);
            /* a register nothing before the loop writes (a value the first
             * iteration assigns before it reads it, on every way through)
             * enters as 0: its value is never used, but it is defined */
            /* ...or one written elsewhere but not live into the loop (an
             * if-converted join value's old value, x = p ? t : x) */
            int unused = !wb_live_has(L->entry_live, L->entry_n, from);
            if (!unused && L->occ && !indexed) {
                swp_occ_update(L->occ, f);
                indexed = 1;
            }
            if (!unused) unused = !written_outside(L, from);
            wb_opnd src = INIT(L, v, j) > 0 && unused ? wb_imm(0, 0) : wb_vreg(from);
            append(f, E2, swp_mk(WB_COPY, wb_vreg(name_of(&G, v, -j)), src, (wb_opnd){0}));
        }
    for (int e = 0; e < 2; e++)
        for (int i = e ? 0 : e_from; i < f->blocks[e ? E2 : E]->nins; i++) {
            if (e && E2 == E) break;
            f->blocks[e ? E2 : E]->ins[i].line = line;
            f->blocks[e ? E2 : E]->ins[i].col = col;
        }
    if (!L->const_n) {
        wb_block *eb = f->blocks[E];
        eb->term = swp_mk(WT_OP_BNZ, (wb_opnd){0}, wb_vreg(small), (wb_opnd){0});
        eb->term.target = L->id;
        eb->term.line = line;
        eb->term.col = col;
        eb->fall = E2;
    }
    f->blocks[E2]->fall = PRO;

    /* prologue, kernel, epilogue */
    int maxlat = 1;
    for (int i = 0; i < L->nop; i++) {
        const bop *o = &L->op[i];
        if (!o->live) continue;
        int s = o->time / ii, row = o->time % ii;
        int lat = wt_ops[o->mop].latency[f->model->id], ivl = wt_ops[o->mop].interval[f->model->id];
        if ((lat > ivl ? lat : ivl) > maxlat) maxlat = lat > ivl ? lat : ivl;
        for (int q = s; q <= S - 2; q++) put(&G, PRO, o, q - s, q * ii + row);
        for (int k = 0; k < u; k++) put(&G, K, o, S - 1 + k - s, k * ii + row);
        for (int j = 0; j + 1 <= s && j <= S - 2; j++)
            if (s >= j + 1) put(&G, EPI, o, S - 1 + j - s, j * ii + row);
    }
    f->blocks[PRO]->len = (S - 1) * ii;
    f->blocks[PRO]->fall = K;
    wb_block *kb = f->blocks[K];
    kb->len = u * ii;
    if (L->iu_ctl) {
        iu_loop_control(L, E, K, POST, (trips - S + 1) / u, (u - 1) * ii, line, col);
    } else {
        kb->term = swp_mk(WT_OP_DBNZ, (wb_opnd){0}, wb_vreg(m), (wb_opnd){0});
        kb->term.mop = WT_OP_DBNZ;
    }
    kb->term.target = K;
    kb->term.cycle = u * ii - 1;
    kb->term.line = line;
    kb->term.col = col;
    kb->fall = EPI;
    ws_buf_printf(info, "        ;*      Kernel                           : %d bundles, unrolled %d times (modulo variable "
                  "expansion)\n", u * ii, u);
    int32_t left = L->const_n ? L->n - U * (trips - (trips - S + 1) % u) : 0;
    if (L->const_n)
        ws_buf_printf(info, "        ;*      Left to the original loop        : %d iterations (%d through the prologue, %d kernel "
                      "pass%s)\n", left, S - 1, (trips - S + 1) / u, (trips - S + 1) / u == 1 ? "" : "es");
    if (!L->const_n)
        ws_buf_printf(info, "        ;*      Minimum trip count               : %d (shorter loops run the original code)\n",
                      nmin);
    swp_info_tail(info);
    ws_buf_append(info, "", 1);
    kb->comment = ws_arena_strndup(&f->arena, info->data, strlen(info->data));
    kb->ii = ii;
    wb_block *pb = f->blocks[EPI];
    int elen = (S - 1) * ii > maxlat ? (S - 1) * ii : maxlat;
    for (int i = 0; i < pb->nins; i++) {
        int lat = wt_ops[pb->ins[i].mop].latency[f->model->id];
        if (pb->ins[i].cycle + lat > elen) elen = pb->ins[i].cycle + lat;
    }
    pb->len = elen;
    pb->fall = POST;
    f->blocks[PRO]->fixed = f->blocks[K]->fixed = f->blocks[EPI]->fixed = 1;
    mark_assigned(L, (int[]){PRO, K, EPI}, 3);

    /* after the pipeline: the values the rest of the program reads */
    int nprime = wb_new_vreg(f, 0), left_reg = r;
    append(f, POST, swp_mk(WT_OP_ISUB, wb_vreg(nprime), wb_vreg(N), wb_vreg(r)));
    if (U > 1) {
        /* in old iterations; what the original block runs: N0 - that */
        int old = wb_new_vreg(f, 0);
        append(f, POST, swp_mk(WT_OP_SHL, wb_vreg(old), wb_vreg(nprime), wb_imm((uint32_t)lgU, 0)));
        nprime = old;
        if (!L->const_n) {
            left_reg = wb_new_vreg(f, 0);
            append(f, POST, swp_mk(WT_OP_ISUB, wb_vreg(left_reg), wb_vreg(N0), wb_vreg(nprime)));
        }
    }
    /* Induction variables the pipeline did not step (swp_mark_live): start plus
     * step times the iterations run, all known (L->n stays the trip count when
     * entry checks make the pipeline count it again, and when they fail, the
     * original loop runs instead). Into registers of their own first, since the
     * values assigned below may be their starts. */
    int *formula_value = ws_xcalloc((size_t)L->nv + 1, sizeof *formula_value);
    uint32_t old_run = (uint32_t)(trips - (trips - S + 1) % u) * (uint32_t)U;
    int straight_out = L->const_n && left == 0;   /* see below */
    for (int y = 1; y < L->nv; y++) {
        if (!wb_bit(live_after, y) || (L->def[y] < 0 && !L->al[y].v)) continue;
        if (straight_out && (y >= L->exit_nv || !wb_bit(L->exit_live, y))) continue;
        alias a = swp_resolve(L, y);
        if (a.v >= L->nv || !L->formula[a.v] || G.names[a.v]) continue;
        formula_value[y] = wb_new_vreg(f, 0);
        uint32_t add = (old_run - (uint32_t)a.dist) * (uint32_t)L->by_formula[a.v];
        append(f, POST, swp_mk(WT_OP_IADD, wb_vreg(formula_value[y]), wb_vreg(INIT(L, a.v, 1)), wb_imm(add, 0)));
    }
    /* The counter's register before the loop may itself be among the values
     * assigned here (the counter and a saved copy of it, both computed from
     * it): it is assigned last. With nothing left over the way out goes
     * straight to the exit: only what is read there (the counter's last value,
     * dead where the loop nest restarts it, took three clocks each time). */
    for (int pass = 0; pass < 2; pass++)
        for (int y = 1; y < L->nv; y++) {
            if ((y == L->iv_init) != pass) continue;
            if (!wb_bit(live_after, y) || (L->def[y] < 0 && !L->al[y].v)) continue;
            if (straight_out && (y >= L->exit_nv || !wb_bit(L->exit_live, y))) continue;
            alias a = swp_resolve(L, y);
            if (formula_value[y]) {
                append(f, POST, swp_mk(WB_COPY, wb_vreg(y), wb_vreg(formula_value[y]), (wb_opnd){0}));
            } else if (swp_old_value(L, a.v) == L->iv && !G.names[a.v]) {
                int t = nprime, dist = swp_old_dist(L, a.v, a.dist);
                if (dist) {
                    t = wb_new_vreg(f, 0);
                    append(f, POST, swp_mk(WT_OP_ISUB, wb_vreg(t), wb_vreg(nprime), wb_imm((uint32_t)dist, 0)));
                }
                if (L->iv_shift) {
                    int scaled = wb_new_vreg(f, 0);
                    append(f, POST, swp_mk(WT_OP_SHL, wb_vreg(scaled), wb_vreg(t), wb_imm((uint32_t)L->iv_shift, 0)));
                    t = scaled;
                }
                append(f, POST, swp_mk(L->iv_step > 0 ? WT_OP_IADD : WT_OP_ISUB, wb_vreg(y), init, wb_vreg(t)));
            } else {
                append(f, POST, swp_mk(WB_COPY, wb_vreg(y), wb_vreg(name_of(&G, a.v, S - 2 - a.dist)), (wb_opnd){0}));
            }
        }
    for (int i = 0; i < f->blocks[POST]->nins; i++) {
        f->blocks[POST]->ins[i].line = line;
        f->blocks[POST]->ins[i].col = col;
    }
    wb_block *qb = f->blocks[POST];
    qb->fall = L->id;
    if (!L->const_n || left == 0) {
        /* with a known trip count: no iteration left over, straight out */
        qb->term = L->const_n ? swp_mk(WT_OP_JMP, (wb_opnd){0}, (wb_opnd){0}, (wb_opnd){0})
                              : swp_mk(WT_OP_BZ, (wb_opnd){0}, wb_vreg(left_reg), (wb_opnd){0});
        qb->term.target = L->exit;
        qb->term.line = line;
        qb->term.col = col;
        if (L->const_n) qb->fall = -1;
    }
    free(formula_value);
    free(named);
    free(G.names);
}
