/* Software pipelining, first phase: the loop's body read as operations on values
 * (copies folded, the exit test's induction variable found), addresses in affine
 * form, and the rewrites before scheduling (strength reduction, literals hoisted,
 * sends folded, received words read straight from their gates). The overview of
 * the pass is at the top of swp.c. */
#include "swp.h"

#include <stdlib.h>

/* ---- Reading the body ------------------------------------------------------------ */

/* The body as operations on values: each body value defined once, copies between
 * body values folded into the reads. */
int swp_read_body(loop *L)
{
    wb_block *b = L->body;
    if (b->nins > MAX_BODY) return fail(L, "the body is too long to pipeline");
    L->def = ws_xcalloc((size_t)L->nv, sizeof *L->def);
    L->al = ws_xcalloc((size_t)L->nv, sizeof *L->al);
    L->init = ws_xcalloc((size_t)L->nv * (MAX_DIST + 1), sizeof *L->init);
    for (int v = 0; v < L->nv; v++) L->def[v] = -1;
    for (int i = 0; i < b->nins; i++) {
        const wb_ins *in = &b->ins[i];
        if (wb_is_term_op(in->op)) return fail(L, "the body has a branch or call");
        if (!wb_has_dest(in->op) || !wb_is_vreg(in->d)) continue;
        if (L->def[in->d.v] >= 0) return fail(L, "a value is assigned twice in one iteration");
        L->def[in->d.v] = i;
    }
    L->opcap = b->nins + 1;
    L->op = ws_xcalloc((size_t)L->opcap, sizeof *L->op);
    /* Each read of a register of the body is of this iteration's value (it was
     * written before) or the previous one's; a copy between registers of the body
     * goes, its readers reading its source. */
    for (int i = 0; i < b->nins; i++) {
        bop *x = &L->op[L->nop];
        x->in = b->ins[i];
        for (int k = 0; k < wb_nsrc(x->in.op); k++)
            if (is_body_value(L, x->in.s[k])) x->dist[k] = L->def[x->in.s[k].v] < i ? 0 : 1;
        if (x->in.op == WB_COPY && wb_is_vreg(x->in.d) && is_body_value(L, x->in.s[0])) {
            L->al[x->in.d.v] = (alias){(int)x->in.s[0].v, x->dist[0]};
            continue;
        }
        L->nop++;
    }
    /* Every read now names the value it reads and how many iterations back: the
     * chain of copies through the registers r0 <- r1 <- ... <- v, each link read
     * d_i iterations back. A link read one back reads, in iteration 0, what its
     * register held before the loop: v of iteration -(d_i + the links after it). */
    for (int i = 0; i < L->nop; i++)
        for (int k = 0; k < wb_nsrc(L->op[i].in.op); k++) {
            wb_opnd *s = &L->op[i].in.s[k];
            if (!is_body_value(L, *s)) continue;
            int reg[MAX_DIST + 2], dist[MAX_DIST + 2], n = 0, total = 0;
            int v = (int)s->v, d = L->op[i].dist[k];
            for (;;) {
                if (n == MAX_DIST + 1) return fail(L, "a chain of copies too long");
                reg[n] = v;
                dist[n++] = d;
                total += d;
                if (!L->al[v].v) break;
                d = L->al[v].dist;
                v = L->al[v].v;
            }
            if (total > MAX_DIST) return fail(L, "a value crosses too many iterations");
            for (int j = 0, after = total; j < n; after -= dist[j], j++) {
                if (dist[j] != 1) continue;
                int *slot = &INIT(L, v, after);
                if (*slot && *slot != reg[j]) return fail(L, "a value enters the loop in two registers");
                *slot = reg[j];
            }
            s->v = (uint32_t)v;
            L->op[i].dist[k] = total;
        }
    /* Definitions by position in the new list. */
    for (int v = 0; v < L->nv; v++) L->def[v] = -1;
    for (int i = 0; i < L->nop; i++)
        if (wb_has_dest(L->op[i].in.op) && wb_is_vreg(L->op[i].in.d)) L->def[L->op[i].in.d.v] = i;
    return 1;
}

/* Follows eliminated copies: the body value v stands for, and how many
 * iterations back. */
alias swp_resolve(const loop *L, int v)
{
    alias a = {v, 0};
    for (int guard = 0; guard < 8 && a.v < L->nv && L->def[a.v] < 0 && L->al[a.v].v; guard++) {
        a.dist += L->al[a.v].dist;
        a.v = L->al[a.v].v;
    }
    return a;
}

/* The most iterations back that the code after the loop reads body value v
 * (through the copies read_body eliminated); -1 if it does not read it. */
int swp_live_out_dist(const loop *L, const uint64_t *live_after, int v)
{
    /* by the words of the set: few values are read after a loop, and a function
     * of a thousand loops has tens of thousands of vregs */
    int d = -1;
    for (int w = 0; w < (L->nv + 63) / 64; w++)
        for (uint64_t bits = live_after[w]; bits; bits &= bits - 1) {
            int y = w * 64 + __builtin_ctzll(bits);
            if (y == 0 || y >= L->nv || (L->def[y] < 0 && !L->al[y].v)) continue;
            alias a = swp_resolve(L, y);
            if (a.v == v && a.dist > d) d = a.dist;
        }
    return d;
}

/* An induction variable: x = x(previous iteration) + K, K a literal. */
static int iv_step(const loop *L, int x, int32_t *step)
{
    if (x >= L->nv || L->def[x] < 0) return 0;
    const bop *d = &L->op[L->def[x]];
    if (d->in.op != WT_OP_IADD && d->in.op != WT_OP_ISUB) return 0;
    for (int k = 0; k < 2; k++) {
        wb_opnd a = d->in.s[k], c = d->in.s[1 - k];
        if (d->in.op == WT_OP_ISUB && k == 1) break;
        /* a literal moved to a register before the loop is still that literal */
        if (wb_is_vreg(c))
            for (int j = 0; j < L->nhz; j++)
                if (L->hz[j].v == (int)c.v) c = L->hz[j].lit;
        if (!wb_is_vreg(a) || (int)a.v != x || d->dist[k] != 1 || c.kind != WB_O_IMM || c.isfloat) continue;
        int32_t v = (int32_t)c.v;
        *step = d->in.op == WT_OP_ISUB ? -v : v;
        return INIT(L, x, 1) != 0;
    }
    return 0;
}

/* The exit test: the block's branch on (iv == bound), iv stepped by +-1. */
int swp_read_exit_test(loop *L)
{
    const wb_block *b = L->body;
    wb_opnd c = b->term.s[0];
    if (!wb_is_vreg(c) || (int)c.v >= L->nv || L->def[c.v] < 0) return fail(L, "the exit test is not computed in the loop");
    const bop *t = &L->op[L->def[c.v]];
    int eq = t->in.op == WT_OP_IEQ, ne = t->in.op == WT_OP_INE;
    wt_flow exit_flow = wb_flow(b->term.op);
    if (!((eq && exit_flow == WT_FLOW_IF_ZERO) || (ne && exit_flow == WT_FLOW_IF_NONZERO)))
        return fail(L, "not a counted loop (the exit test is not 'induction variable = bound')");
    for (int k = 0; k < 2; k++) {
        wb_opnd a = t->in.s[k], o = t->in.s[1 - k];
        if (!is_body_value(L, a) || is_body_value(L, o)) continue;
        int32_t step;
        /* stepped by a power of two (a pointer walking words, too): the trip count
         * is the distance shifted */
        uint32_t mag;
        if (!iv_step(L, (int)a.v, &step) || (mag = step < 0 ? 0u - (uint32_t)step : (uint32_t)step) == 0 ||
            (mag & (mag - 1)) || mag > 0x40000000u)
            continue;
        L->iv = (int)a.v;
        L->iv_step = step;
        L->iv_shift = __builtin_ctz(mag);
        L->iv_init = INIT(L, a.v, 1);
        L->test_dist = t->dist[k];
        L->bound = o;
        return 1;
    }
    return fail(L, "not a counted loop (no induction variable stepped by a power of two against a loop-invariant bound)");
}

/* ---- Addresses ------------------------------------------------------------------- */

/* The affine form (memdep.c) of value o read `dist` iterations back: literals,
 * symbols, invariants, induction variables, and their sums, differences and
 * products by constants. An induction variable x = x' + K holds, in iteration t,
 * init + K*(t+1); read one back, init + K*t (init: the register that holds x
 * before the loop). A value of an earlier iteration other than an induction
 * variable read at most one back is no form: before the loop it was whatever
 * the entry gave it. 0 if o has no form. */
static int aff_of(const loop *L, wb_opnd o, int dist, wb_aff *a, int depth)
{
    if (o.kind == WB_O_IMM) {
        if (o.isfloat) return 0;
        wb_aff_const(a, (int32_t)o.v);
        return 1;
    }
    if (o.kind == WB_O_REG && o.v == WT_OPND_R0) {
        wb_aff_const(a, 0);
        return 1;
    }
    if (o.kind == WB_O_SYM) {
        wb_aff_const(a, o.addend);
        a->sym = o.sym;
        return 1;
    }
    if (!wb_is_vreg(o)) return 0;
    if (!is_body_value(L, o)) {
        wb_aff_const(a, 0);
        return wb_aff_term(a, (int)o.v, 1);
    }
    if ((int)o.v == L->ctr_v) {
        /* the stepped counter as the iteration found it; after its step, no form */
        if (dist != 1) return 0;
        wb_aff_const(a, 0);
        a->p = 1;
        return 1;
    }
    int32_t step;
    if (iv_step(L, (int)o.v, &step)) {
        if (dist > 1 || INIT(L, o.v, 1) <= 0) return 0;
        wb_aff_const(a, (int64_t)step * (1 - dist));
        a->t = step;
        return wb_aff_term(a, INIT(L, o.v, 1), 1);
    }
    if (dist > 0 || depth == 0) return 0;
    const bop *d = &L->op[L->def[o.v]];
    wb_aff x, y;
    switch (d->in.op) {
    case WT_OP_IADD:
    case WT_OP_LEA:
    case WT_OP_ISUB:
        if (!aff_of(L, d->in.s[0], dist + d->dist[0], &x, depth - 1) ||
            !aff_of(L, d->in.s[1], dist + d->dist[1], &y, depth - 1))
            return 0;
        return wb_aff_add(a, &x, &y, d->in.op == WT_OP_ISUB ? -1 : 1);
    case WT_OP_SHL:
    case WT_OP_IMUL:
        for (int k = 0; k < 2; k++) {
            wb_opnd c = d->in.s[1 - k];
            if (c.kind != WB_O_IMM || c.isfloat || (d->in.op == WT_OP_SHL && (k != 0 || c.v > 30))) continue;
            if (!aff_of(L, d->in.s[k], dist + d->dist[k], a, depth - 1)) return 0;
            return wb_aff_scale(a, d->in.op == WT_OP_SHL ? (int64_t)1 << c.v : (int64_t)(int32_t)c.v);
        }
        return 0;
    case WT_OP_OR: {
        /* a | c with a a multiple of 2^m > c >= 0 is a + c (2*i + 1 written as an or) */
        wb_opnd c = d->in.s[1];
        if (c.kind != WB_O_IMM || c.isfloat || (int32_t)c.v < 0 ||
            !aff_of(L, d->in.s[0], dist + d->dist[0], a, depth - 1) || a->sym)
            return 0;
        int64_t all = a->t | a->c;
        for (int i = 0; i < a->nterm; i++) all |= a->term[i].k;
        if (all == 0 || (all & -all) <= (int64_t)c.v) return 0;
        a->c += (int32_t)c.v;
        return 1;
    }
    case WB_COPY:
        return aff_of(L, d->in.s[0], dist + d->dist[0], a, depth - 1);
    default:
        return 0;
    }
}

/* The values o (read `dist` iterations back) may have, as forms of counter v
 * (p = 1: its value when the iteration began) or of invariants (p = 0): a
 * select gives both its sides, a sum each pair. At most two; 0 if more, or if
 * o depends on anything else. */
static int step_forms(const loop *L, int v, wb_opnd o, int dist, wb_aff out[2], int depth)
{
    if (wb_is_vreg(o) && (int)o.v == v && dist == 1) {
        wb_aff_const(&out[0], 0);
        out[0].p = 1;
        return 1;
    }
    if (!is_body_value(L, o)) return aff_of(L, o, dist, &out[0], 0) && !out[0].sym ? 1 : 0;
    if (dist > 0 || depth == 0) return 0;
    const bop *d = &L->op[L->def[o.v]];
    wb_aff x[2], y[2];
    int nx, ny, n = 0;
    switch (d->in.op) {
    case WB_COPY:
    case WT_OP_MOV:
    case WT_OP_MV:
        return step_forms(L, v, d->in.s[0], dist + d->dist[0], out, depth - 1);
    case WT_OP_IADD:
    case WT_OP_ISUB:
        nx = step_forms(L, v, d->in.s[0], dist + d->dist[0], x, depth - 1);
        ny = nx ? step_forms(L, v, d->in.s[1], dist + d->dist[1], y, depth - 1) : 0;
        for (int i = 0; i < nx; i++)
            for (int j = 0; j < ny; j++) {
                wb_aff s;
                if (!wb_aff_add(&s, &x[i], &y[j], d->in.op == WT_OP_ISUB ? -1 : 1)) return 0;
                int seen = 0;
                for (int k = 0; k < n && !seen; k++) seen = wb_aff_equal(&out[k], &s, 1);
                if (seen) continue;
                if (n == 2) return 0;
                out[n++] = s;
            }
        return n;
    case WT_OP_SEL:
        nx = step_forms(L, v, d->in.s[1], dist + d->dist[1], x, depth - 1);
        ny = nx ? step_forms(L, v, d->in.s[2], dist + d->dist[2], y, depth - 1) : 0;
        if (!ny) return 0;
        for (int i = 0; i < nx + ny; i++) {
            const wb_aff *s = i < nx ? &x[i] : &y[i - nx];
            int seen = 0;
            for (int k = 0; k < n && !seen; k++) seen = wb_aff_equal(&out[k], s, 1);
            if (seen) continue;
            if (n == 2) return 0;
            out[n++] = *s;
        }
        return n;
    default:
        return 0;
    }
}

/* A body value that is a stepped counter (wb_counter): each iteration adds a
 * constant m, or m + g. The in-place butterfly's pointer, which a restart
 * (if j = h then p := p + h) makes no induction variable. */
static int find_counter(loop *L)
{
    /* the body's adds and subtracts, by vreg: the lowest that is a counter wins
     * (a walk of every vreg of the function cost its size for each loop) */
    int *cand = ws_xcalloc((size_t)L->nop + 1, sizeof *cand), ncand = 0;
    for (int i = 0; i < L->nop; i++) {
        const wb_ins *in = &L->op[i].in;
        if ((in->op == WT_OP_IADD || in->op == WT_OP_ISUB) && is_body_value(L, in->d) && L->def[in->d.v] == i)
            cand[ncand++] = (int)in->d.v;
    }
    ws_sort_ints(cand, (size_t)ncand);
    for (int c = 0; c < ncand; c++) {
        int v = cand[c];
        wb_aff s[2];
        if (step_forms(L, v, wb_vreg(v), 0, s, 8) != 2 || s[0].p != 1 || s[1].p != 1) continue;
        s[0].p = s[1].p = 0;
        int k = s[0].nterm == 0 ? 0 : s[1].nterm == 0 ? 1 : -1;
        if (k < 0 || s[k].c == 0 || s[k].c < INT32_MIN || s[k].c > INT32_MAX) continue;
        if (!wb_aff_add(&L->ctr.g, &s[1 - k], &s[k], -1)) continue;
        L->ctr_v = v;
        L->ctr.m = s[k].c;
        free(cand);
        return 1;
    }
    free(cand);
    L->ctr_v = 0;
    return 0;
}

/* Every load's and store's address as a form, read before the body is rewritten
 * (strength reduction makes new induction variables, literals move to
 * registers: the forms stay those of the values). */
void swp_address_forms(loop *L)
{
    find_counter(L);
    for (int i = 0; i < L->nop; i++) {
        bop *x = &L->op[i];
        if (x->in.op != WT_OP_LD && x->in.op != WT_OP_ST) continue;
        wb_aff a, b;
        x->has_addr = aff_of(L, x->in.s[0], x->dist[0], &a, 12) && aff_of(L, x->in.s[1], x->dist[1], &b, 12) &&
                      wb_aff_add(&x->addr, &a, &b, 1);
    }
}

/* A difference of addresses to check on entry; 0 if there is no room for it. */
int swp_add_check(loop *L, const wb_dep *d)
{
    for (int i = 0; i < L->ncheck; i++)
        if ((L->check[i].step == d->step || L->check[i].step == -d->step) &&
            (wb_aff_equal(&L->check[i].diff, &d->diff, 1) || wb_aff_equal(&L->check[i].diff, &d->diff, -1)))
            return 1;
    if (L->ncheck == MAX_CHECKS) return 0;
    L->check[L->ncheck++] = *d;
    return 1;
}

static int constant_of(loop *L, wb_opnd o, int32_t *val);

/* Is value o never negative? The exit test's induction variable is not when it
 * steps up to a constant bound from starts (every copy into it before the loop;
 * a variable that several loops count with has several) that are constants
 * between 0 and the bound. */
static int never_negative(loop *L, wb_opnd o)
{
    int32_t bound;
    if (!wb_is_vreg(o) || (int)o.v != L->iv || L->iv_step <= 0 || !constant_of(L, L->bound, &bound) || bound < 0 ||
        (int64_t)bound + L->iv_step > INT32_MAX)
        return 0;
    int ndefs = 0;
    for (int id = 0; id < L->f->nblocks; id++) {
        const wb_block *b = L->f->blocks[id];
        if (id < L->nmember && L->member[id]) continue;
        for (int i = 0; i < b->nins; i++) {
            const wb_ins *in = &b->ins[i];
            if (!wb_has_dest(in->op) || !wb_opnd_eq(in->d, wb_vreg(L->iv_init))) continue;
            wb_opnd s = in->s[0];
            int64_t c = s.kind == WB_O_REG && s.v == WT_OPND_R0 ? 0 : s.kind == WB_O_IMM && !s.isfloat ? (int32_t)s.v : -1;
            if ((in->op != WB_COPY && in->op != WT_OP_MOV && in->op != WT_OP_MV) || c < 0 || c > bound) return 0;
            ndefs++;
        }
    }
    return ndefs > 0;
}

/* x mod 2^k as a signed remainder (LLVM's srem by a power of two: x - ((x +
 * ((x >> 31) >>> (32 - k))) & -2^k)) is x & (2^k - 1) when x is never negative:
 * the shifts, the add and the subtract go. A W2 int wraps, so LLVM does not
 * know a loop counter stays positive; the pipeliner does. */
void swp_simplify_remainders(loop *L)
{
    for (int i = 0; i < L->nop; i++) {
        bop *r = &L->op[i];
        if (r->in.op != WT_OP_ISUB || !is_body_value(L, r->in.s[1]) || r->dist[1] != 0) continue;
        wb_opnd x = r->in.s[0];
        const bop *a = &L->op[L->def[r->in.s[1].v]];
        if (a->in.op != WT_OP_AND || a->in.s[1].kind != WB_O_IMM || !is_body_value(L, a->in.s[0]) || a->dist[0])
            continue;
        uint32_t mask = -(uint32_t)a->in.s[1].v;   /* 2^k */
        if (mask < 2 || (mask & (mask - 1))) continue;
        const bop *ad = &L->op[L->def[a->in.s[0].v]];
        if (ad->in.op != WT_OP_IADD || !wb_opnd_eq(ad->in.s[0], x) || ad->dist[0] != r->dist[0] ||
            !is_body_value(L, ad->in.s[1]) || ad->dist[1])
            continue;
        const bop *sh = &L->op[L->def[ad->in.s[1].v]];
        if (sh->in.op != WT_OP_SHR || !is_body_value(L, sh->in.s[0]) || sh->dist[0]) continue;
        const bop *sg = &L->op[L->def[sh->in.s[0].v]];
        if (sg->in.op != WT_OP_SRA || !wb_opnd_eq(sg->in.s[0], x) || sg->dist[0] != r->dist[0] ||
            !never_negative(L, x))
            continue;
        r->in.op = WT_OP_AND;
        r->in.s[1] = wb_imm(mask - 1, 0);
        r->dist[1] = 0;
    }
}

/* ---- Rewriting the body ------------------------------------------------------------ */

wb_ins swp_mk(int op, wb_opnd d, wb_opnd a, wb_opnd b)
{
    wb_ins in = {.op = (uint16_t)op, .d = d, .s = {a, b}, .target = -1};
    return in;
}

void swp_add_einit(loop *L, wb_ins in)
{
    L->einit = ws_xrealloc(L->einit, sizeof *L->einit * (size_t)(L->neinit + 1));
    L->einit[L->neinit++] = in;
}

/* a | c where the affine form shows that a has no bit of c (2 * i + 1, which
 * LLVM writes as an or) is a + c: an add that strength reduction sees through
 * and that the memory units' address adders may take. */
void swp_disjoint_ors_to_adds(loop *L)
{
    for (int i = 0; i < L->nop; i++) {
        bop *x = &L->op[i];
        wb_aff a;
        if (x->in.op != WT_OP_OR || !wb_is_vreg(x->in.d) || x->in.s[1].kind != WB_O_IMM ||
            !aff_of(L, x->in.d, 0, &a, 12))
            continue;
        x->in.op = WT_OP_IADD;
    }
}

/* a = shl iv, k  or  a = imul iv, c, or the same of iv + K: a becomes an
 * induction variable of its own. (iv + K) << k steps like iv << k, from a
 * start K << k higher, so that the two addresses v[2i] and v[2i + 1] are two
 * pointers stepped by one add each, not an add, a shift and an add. */
void swp_strength_reduce(loop *L)
{
    for (int i = 0; i < L->nop; i++) {
        bop *x = &L->op[i];
        if ((x->in.op != WT_OP_SHL && x->in.op != WT_OP_IMUL) || !wb_is_vreg(x->in.d)) continue;
        int k = -1;
        for (int j = 0; j < 2; j++)
            if (is_body_value(L, x->in.s[j]) && x->in.s[1 - j].kind == WB_O_IMM) k = j;
        if (k < 0 || (x->in.op == WT_OP_SHL && k != 0)) continue;
        int32_t step;
        int iv = (int)x->in.s[k].v, d = x->dist[k];
        uint32_t offset = 0;
        if (!iv_step(L, iv, &step)) {
            /* iv + K (either order), read in this iteration */
            const bop *s = &L->op[L->def[iv]];
            int j = 0;
            if (d != 0 || s->in.op != WT_OP_IADD) continue;
            if (s->in.s[0].kind == WB_O_IMM) j = 1;
            if (s->in.s[1 - j].kind != WB_O_IMM || s->in.s[1 - j].isfloat || !wb_is_vreg(s->in.s[j]) ||
                !iv_step(L, (int)s->in.s[j].v, &step))
                continue;
            offset = s->in.s[1 - j].v;
            iv = (int)s->in.s[j].v;
            d = s->dist[j];
        }
        uint32_t c = x->in.s[1 - k].v;
        int32_t scale = x->in.op == WT_OP_SHL ? (int32_t)(1u << (c & 31)) : (int32_t)c;
        int32_t astep = (int32_t)((uint32_t)step * (uint32_t)scale);
        /* a of iteration -1 = f(iv before the loop) - d*astep */
        int a = (int)x->in.d.v;
        int t = wb_new_vreg(L->f, 0);
        /* iv may itself be one made here (a shift of a shift): its start is a vreg of the entry's */
        int iv_before = INIT(L, iv, 1) > 0 ? INIT(L, iv, 1) : -INIT(L, iv, 1);
        int start = t;
        uint32_t below = offset * (uint32_t)scale - (uint32_t)d * (uint32_t)astep;
        int32_t first;
        if (INIT(L, iv, 1) > 0 && constant_of(L, wb_vreg(iv_before), &first)) {
            /* a counter that starts at a literal (j := 0): its start here too, one
             * move, not a chain of two or three operations ahead of the prologue */
            swp_add_einit(L, swp_mk(WB_COPY, wb_vreg(t), wb_imm((uint32_t)first * (uint32_t)scale + below, 0),
                                    (wb_opnd){0}));
            below = 0;
        } else {
            swp_add_einit(L, swp_mk(x->in.op, wb_vreg(t), wb_vreg(iv_before), x->in.s[1 - k]));
        }
        if (below) {
            int down = (int32_t)below < 0;
            start = wb_new_vreg(L->f, 0);
            swp_add_einit(L, swp_mk(down ? WT_OP_ISUB : WT_OP_IADD, wb_vreg(start), wb_vreg(t),
                                    wb_imm(down ? 0u - below : below, 0)));
        }
        for (int j = 1; j <= MAX_DIST; j++) INIT(L, a, j) = 0;
        INIT(L, a, 1) = -start;   /* negative: a vreg made here, not a name of the body */
        int iu = x->in.iu;
        x->in = swp_mk(WT_OP_IADD, wb_vreg(a), wb_vreg(a), wb_imm((uint32_t)astep, 0));
        x->in.iu = (uint8_t)iu;   /* the interface unit's address stays its own (iu.c) */
        x->in.line = L->body->nins ? L->body->ins[0].line : L->body->term.line;
        x->dist[0] = 1;
        x->dist[1] = 0;
    }
}

/* An induction variable besides the exit test's whose value after the loop,
 * with the trip count known, is its start plus a constant: the pipeline need
 * not step it if nothing in the loop reads it but its own step (strength
 * reduction took the others). The interface unit's copy of a loop's index
 * (iu.c) is one: the IU cannot read the cells' counter, and the original loop,
 * run for the iterations left over, reads the copy. Values read after the loop
 * further back than the last iteration keep it stepped. */
static void find_formula_ivs(loop *L, const uint64_t *live_after)
{
    L->by_formula = ws_xcalloc((size_t)L->nv + 1, sizeof *L->by_formula);
    L->formula = ws_xcalloc((size_t)L->nv + 1, 1);
    if (!L->const_n || L->unroll > 1) return;
    for (int v = 1; v < L->nv; v++) {
        int32_t step;
        if (v == L->iv || L->def[v] < 0 || !iv_step(L, v, &step) || INIT(L, v, 1) <= 0) continue;
        L->formula[v] = 1;
        L->by_formula[v] = step;
    }
    for (int y = 1; y < L->nv; y++) {
        if (!wb_bit(live_after, y) || (L->def[y] < 0 && !L->al[y].v)) continue;
        alias a = swp_resolve(L, y);
        if (a.v < L->nv && L->formula[a.v] && a.dist > 1) L->formula[a.v] = 0;
    }
}

/* Marks what the pipeline must compute: operations with effects, values read
 * after the loop or by the leftover iterations, and what those read. The
 * exit test's induction variable is left out: its final value has a formula;
 * so are the induction variables of find_formula_ivs that nothing else reads. */
void swp_mark_live(loop *L, const uint64_t *live_after)
{
    int changed = 1;
    find_formula_ivs(L, live_after);
    for (int i = 0; i < L->nop; i++) {
        bop *x = &L->op[i];
        const wb_ins *in = &x->in;
        int effect = writes_gate_like(in) || in->op == WT_OP_ST || in->op == WT_OP_HLD;
        for (int k = 0; k < wb_nsrc(in->op); k++) effect |= is_gate_read(in->s[k]);
        int v = wb_has_dest(in->op) && wb_is_vreg(in->d) ? (int)in->d.v : 0;
        if (v && v != L->iv && !L->formula[v] && wb_bit(live_after, v)) effect = 1;
        x->live = effect;
    }
    /* Eliminated copies read after the loop keep their source alive. */
    for (int v = 1; v < L->nv; v++) {
        if (!L->al[v].v || !wb_bit(live_after, v)) continue;
        alias a = swp_resolve(L, v);
        if (a.v != L->iv && L->def[a.v] >= 0 && !L->formula[a.v]) L->op[L->def[a.v]].live = 1;
    }
    while (changed) {
        changed = 0;
        for (int i = L->nop - 1; i >= 0; i--) {
            if (!L->op[i].live) continue;
            for (int k = 0; k < wb_nsrc(L->op[i].in.op); k++) {
                wb_opnd s = L->op[i].in.s[k];
                if (!is_body_value(L, s) || L->op[L->def[s.v]].live) continue;
                L->op[L->def[s.v]].live = 1;
                changed = 1;
            }
        }
    }
    for (int v = 1; v < L->nv; v++)
        if (L->formula[v] && L->op[L->def[v]].live) L->formula[v] = 0;
}

/* An operation of invariants alone (bm + (k << 7) in a loop over j) computes
 * the same value every iteration: it runs once, in the entry block, and leaves
 * the body (a slot on its unit every iteration, and a step in the chain to the
 * load it addresses, which may cost a stage of fill and drain). Only values
 * read in the iteration that computes them: a read of an earlier iteration's
 * would, in the first, read what the register held before the loop. An
 * interface unit's operation of the IU's invariants goes to the entry as the
 * IU's (its registers are its own, iu.c): conv3's row address y * 264, made
 * again every pass, held an IU adder the IU's loop count needed. */
void swp_hoist_invariants(loop *L, const uint64_t *live_after)
{
    for (int i = 0; i < L->nop; i++) {
        bop *x = &L->op[i];
        const wb_ins *in = &x->in;
        if (!x->live || x->in.bundle_with || !wb_has_dest(in->op) || !wb_is_vreg(in->d) ||
            in->op >= WT_NOPS || wt_ops[in->op].kind != WT_K_PURE)
            continue;
        int iu = in->iu != 0;
        if (((L->f->vflags[in->d.v] & WB_V_IU) != 0) != iu) continue;
        int v = (int)in->d.v, ok = v != L->iv && !wb_bit(live_after, v) && swp_live_out_dist(L, live_after, v) < 0;
        for (int k = 0; k < wb_nsrc(in->op) && ok; k++)
            ok = !is_body_value(L, in->s[k]) && !is_gate_read(in->s[k]) &&
                 !(wb_is_vreg(in->s[k]) && ((L->f->vflags[in->s[k].v] & WB_V_IU) != 0) != iu) &&
                 !(iu && in->s[k].kind == WB_O_REG && in->s[k].v != 0);
        for (int j = 0; j < L->nop && ok; j++)
            for (int k = 0; k < wb_nsrc(L->op[j].in.op) && ok; k++)
                ok = !(L->op[j].live && is_body_value(L, L->op[j].in.s[k]) && (int)L->op[j].in.s[k].v == v &&
                       L->op[j].dist[k] != 0);
        for (int u = 1; u < L->nv && ok; u++) ok = !(L->al[u].v && swp_resolve(L, u).v == v);
        if (!ok) continue;
        /* the same computation hoisted before (a body unrolled has one a copy) */
        int t = 0;
        for (int e = 0; e < L->neinit && !t; e++) {
            const wb_ins *h = &L->einit[e];
            if (h->op != in->op || !wb_is_vreg(h->d) || ((L->f->vflags[h->d.v] & WB_V_IU) != 0) != iu) continue;
            int same = 1;
            for (int k = 0; k < wb_nsrc(in->op); k++) same &= wb_opnd_eq(h->s[k], in->s[k]) && h->s[k].isfloat == in->s[k].isfloat;
            if (same) t = (int)h->d.v;
        }
        if (!t) {
            t = wb_new_vreg(L->f, L->f->vflags[v]);
            wb_ins h = *in;
            h.d = wb_vreg(t);
            swp_add_einit(L, h);
        }
        for (int j = 0; j < L->nop; j++)
            for (int k = 0; k < wb_nsrc(L->op[j].in.op); k++)
                if (is_body_value(L, L->op[j].in.s[k]) && (int)L->op[j].in.s[k].v == v) {
                    L->op[j].in.s[k] = wb_vreg(t);
                    L->op[j].dist[k] = 0;
                }
        x->live = 0;
        L->def[v] = -1;
    }
}

/* Literals to registers, loaded in the entry block (a kernel row has two literal
 * fields; under register pressure some go back, see rematerialize). */
void swp_hoist_literals(loop *L)
{
    for (int i = 0; i < L->nop; i++) {
        bop *x = &L->op[i];
        if (!x->live) continue;
        for (int k = 0; k < wb_nsrc(x->in.op); k++) {
            wb_opnd s = x->in.s[k];
            if (!wb_is_lit(s)) continue;
            /* one register a side: the interface unit's registers are not the cells' */
            int v = 0, iu = x->in.iu;
            for (int j = 0; j < L->nhz && !v; j++)
                if (wb_lit_eq(L->hz[j].lit, s) && !(L->f->vflags[L->hz[j].v] & WB_V_IU) == !iu) v = L->hz[j].v;
            if (!v) {
                v = wb_new_vreg(L->f, iu ? WB_V_IU : 0);
                L->hz = ws_xrealloc(L->hz, sizeof *L->hz * (size_t)(L->nhz + 1));
                L->hz[L->nhz++] = (hoisted){s, v, L->neinit};
                swp_add_einit(L, swp_mk(WB_COPY, wb_vreg(v), s, (wb_opnd){0}));
            }
            x->in.s[k] = wb_vreg(v);
            x->dist[k] = 0;
        }
    }
}


/* A send of a value whose one use it is: the operation that computes the value
 * writes the gate itself, in the send's place in the list (so that the gate's
 * writes keep their order), and the copy goes. If-conversion's selects of what
 * to send (after gates.c, which does the same before) need it: a copy a send
 * takes a crossbar move or an ALU slot. */
void swp_fold_sends(loop *L, const uint64_t *live_after)
{
    for (int c = 0; c < L->nop; c++) {
        bop *x = &L->op[c];
        if (!x->live || x->in.op != WB_COPY || x->in.d.kind != WB_O_REG || !wt_opnd_is_gate(x->in.d.v) ||
            !is_body_value(L, x->in.s[0]) || x->dist[0] != 0 || x->group != c)
            continue;
        int v = (int)x->in.s[0].v, d = L->def[v];
        bop *y = &L->op[d];
        if (d >= c || !y->live || y->group != d || y->in.op == WB_COPY || !wb_has_dest(y->in.op) ||
            wt_ops[y->in.op].kind != WT_K_PURE || wb_bit(live_after, v))
            continue;
        int uses = 0;
        for (int i = 0; i < L->nop; i++)
            if (L->op[i].live)
                for (int k = 0; k < wb_nsrc(L->op[i].in.op); k++) uses += wb_is_vreg(L->op[i].in.s[k]) && (int)L->op[i].in.s[k].v == v;
        for (int u = 1; u < L->nv; u++)
            if (L->al[u].v && swp_resolve(L, u).v == v) uses += 2;
        /* a user of a received word that others read in its bundle stays there
         * (moved to the send, it would leave them a group without it: two reads
         * of the gate) */
        for (int i = 0; i < L->nop; i++)
            if (i != d && L->op[i].group == d) uses = 0;
        if (uses != 1) continue;
        bop moved = *y;
        moved.in.d = x->in.d;
        moved.in.line = x->in.line;
        moved.in.col = x->in.col;
        moved.group = c;
        *x = moved;
        y->live = 0;
        L->def[v] = -1;
    }
}

/* Does op x read value v, only from this iteration? -1 if it does not read it. */
static int reads_now(const bop *x, int v)
{
    int r = -1;
    for (int k = 0; k < wb_nsrc(x->in.op); k++)
        if (wb_is_vreg(x->in.s[k]) && (int)x->in.s[k].v == v) r = (r != 0 && x->dist[k] == 0) ? 1 : 0;
    return r;
}

/* A received word read straight from its gate by the users of this iteration that
 * can share one bundle with each other (a gate is dequeued once a bundle). If
 * others still need it in a register (the next iteration, after the loop), the
 * receive into that register joins the bundle too; else it goes. Sets each
 * fused op's group to the op whose node it joins. */
void swp_fuse_gate_reads(loop *L, const uint64_t *live_after)
{
    for (int i = 0; i < L->nop; i++) {
        bop *r = &L->op[i];
        if (!r->live || r->in.op != WB_COPY || !is_gate_read(r->in.s[0]) || !wb_is_vreg(r->in.d) || r->group != i)
            continue;
        int v = (int)r->in.d.v, keep = wb_bit(live_after, v), nf = 0, last = i;
        for (int u = 1; u < L->nv; u++)
            if (L->al[u].v && swp_resolve(L, u).v == v) keep = 1;
        uint8_t *fuse = ws_xcalloc((size_t)L->nop + 1, 1);
        /* slots the bundle has left: the receive's copy (if it stays) takes a
         * crossbar move or an ALU, as may any copy */
        int room[WT_NUCLASSES];
        for (int c = 0; c < WT_NUCLASSES; c++) room[c] = (int)wt_class_issue(L->f->model, (wt_unit_class)c);
        int flex = room[WT_UC_MV] + room[WT_UC_ALU] - 1;
        unsigned q = 1u << (r->in.s[0].v - WT_OPND_GATE);
        int written[WB_MNODE_OPS], nwritten = 0;
        for (int j = 0; j < L->nop; j++) {
            const bop *x = &L->op[j];
            int now = reads_now(x, v);
            if (now < 0) continue;
            int c = x->in.op == WB_COPY ? -1 : (int)wt_ops[x->in.op].uclass;
            int fits = c < 0 ? flex > 0 : room[c] > 0 && wt_ops[x->in.op].interval[L->f->model->id] == 1;
            if (c == WT_UC_MV || c == WT_UC_ALU) fits = fits && flex > 0;
            /* A user that already reads this queue (another word, folded before)
             * would dequeue once for both: `fadd r1, @yl, @yl` adds one word to
             * itself. */
            if (swp_gates_of(&x->in).reads & q) fits = 0;
            /* Two users that send through one gate from one bundle complete in
             * the order of their latencies, not the program's: `fmul @xr, @xl, r1
             * | mv @xr, @xl` sends the copy first. */
            int wcode = swp_gates_of(&x->in).wcode;
            for (int w = 0; w < nwritten && wcode >= 0; w++)
                if (written[w] == wcode) fits = 0;
            if (now == 1 && x->live && j > i && x->group == j && fits && nf + 1 + keep <= WB_MNODE_OPS) {
                if (wcode >= 0) written[nwritten++] = wcode;
                if (c >= 0) room[c]--;
                if (c < 0 || c == WT_UC_MV || c == WT_UC_ALU) flex--;
                fuse[j] = 1;
                nf++;
                last = j;
            } else {
                keep = 1;
            }
        }
        /* Another read of the same queue between the receive and a user would
         * take the word meant for it. */
        for (int j = i + 1; j < last && nf; j++)
            if (L->op[j].live && !fuse[j] && (swp_gates_of(&L->op[j].in).reads & q)) nf = 0;
        /* Users share a bundle: none may read another's result. */
        for (int j = i + 1; j <= last && nf; j++) {
            const bop *x = &L->op[j];
            if (!fuse[j]) continue;
            for (int k = 0; k < wb_nsrc(x->in.op); k++) {
                wb_opnd s = x->in.s[k];
                if (!is_body_value(L, s) || x->dist[k] != 0 || (int)s.v == v) continue;
                int d = L->def[s.v];
                for (int m = 0; m < wb_nsrc(L->op[d].in.op); m++)
                    if (wb_is_vreg(L->op[d].in.s[m]) && (int)L->op[d].in.s[m].v == v && L->op[d].dist[m] == 0) nf = 0;
                if (fuse[d]) nf = 0;
            }
        }
        /* On iWarp a bundle with more gate operations than a clock takes needs two
         * clocks: keep the receive apart rather than build such a bundle. */
        unsigned per_clock = L->f->model->gate_ops_per_clock;
        if (per_clock && nf) {
            wt_bundle_use use = {.gates_read = (uint8_t)q};
            for (int j = i + 1; j <= last; j++)
                if (fuse[j]) wb_add_gate_ops(&use, &L->op[j].in);
            if (wt_bundle_gate_ops(&use) > per_clock) nf = 0;
        }
        if (nf) {
            int node = keep ? i : -1;
            for (int j = i + 1; j < L->nop; j++) {
                if (!fuse[j]) continue;
                bop *x = &L->op[j];
                for (int k = 0; k < wb_nsrc(x->in.op); k++)
                    if (wb_is_vreg(x->in.s[k]) && (int)x->in.s[k].v == v) x->in.s[k] = r->in.s[0];
                if (node < 0) node = j;
                x->group = node;
            }
            if (!keep) r->live = 0;
        }
        free(fuse);
    }
}

/* Undoes the gate folding of a received word that a register keeps as well: its
 * users, which read the gate in the receive's bundle, read the register instead,
 * each an operation of its own. A shared bundle ties the receive to its latest
 * user; when a user waits for a value of the previous iteration (b := c; b*2 +
 * c) that tie is a recurrence the program does not have. Returns how many
 * groups it split. */
int swp_unfuse_receives(loop *L)
{
    int split = 0;
    for (int i = 0; i < L->nop; i++) {
        bop *r = &L->op[i];
        if (!r->live || r->in.op != WB_COPY || !is_gate_read(r->in.s[0]) || !is_body_value(L, r->in.d)) continue;
        int g = r->group, members = 0;
        for (int j = 0; j < L->nop; j++) members += L->op[j].group == g && j != i;
        if (!members) continue;
        for (int j = 0; j < L->nop; j++) {
            bop *x = &L->op[j];
            if (x->group != g) continue;
            x->group = j;
            if (j == i) continue;
            for (int k = 0; k < wb_nsrc(x->in.op); k++)
                if (wb_opnd_eq(x->in.s[k], r->in.s[0])) {
                    x->in.s[k] = r->in.d;
                    x->dist[k] = 0;
                }
        }
        split++;
    }
    return split;
}


int swp_loop_pre(loop *L)
{
    if (L->pre_found) return L->pre;
    L->pre_found = 1;
    L->pre = -1;
    for (int id = 0; id < L->f->nblocks; id++) {
        if (id < L->nmember && L->member[id]) continue;
        int succ[2], ns = wb_succs(L->f->blocks[id], succ);
        for (int k = 0; k < ns; k++) {
            if (succ[k] != L->id || L->pre == id) continue;
            if (L->pre >= 0) return L->pre = -1;
            L->pre = id;
        }
    }
    return L->pre;
}

/* Can control leave the loop and come back to it without passing block `reset`
 * (an enclosing loop that does not run `reset` between the two)? */
static int reenters(const loop *L, int reset)
{
    const wb_func *f = L->f;
    uint8_t *seen = ws_xcalloc((size_t)f->nblocks, 1);
    int *stack = ws_xcalloc((size_t)f->nblocks, sizeof *stack), n = 0, found = 0;
    for (int id = 0; id < L->nmember && id < f->nblocks; id++) {
        int succ[2], ns = L->member[id] ? wb_succs(f->blocks[id], succ) : 0;
        for (int k = 0; k < ns; k++)
            if (!(succ[k] < L->nmember && L->member[succ[k]]) && !seen[succ[k]]) {
                seen[succ[k]] = 1;
                stack[n++] = succ[k];
            }
    }
    while (n && !found) {
        int id = stack[--n];
        if (id == reset) continue;
        int succ[2], ns = wb_succs(f->blocks[id], succ);
        for (int k = 0; k < ns && !found; k++) {
            if (succ[k] == L->id || (succ[k] < L->nmember && L->member[succ[k]])) found = 1;
            else if (!seen[succ[k]]) {
                seen[succ[k]] = 1;
                stack[n++] = succ[k];
            }
        }
    }
    free(seen);
    free(stack);
    return found;
}

/* v's one definition outside the loop (NULL if none or several), its block, and
 * whether the loop defines v too. */
static const wb_ins *def_outside(const loop *L, wb_opnd o, int *blk, int *at, int *inside)
{
    const wb_ins *def = NULL;
    int ndefs = 0;
    *inside = 0;
    /* the blocks where o occurs, each once */
    occ_index *x = L->occ;
    int all = !x || (int)o.v >= x->nv || x->nb != L->f->nblocks;
    int n = all ? L->f->nblocks : x->n[o.v];
    if (!all) x->stamp++;
    for (int k = 0; k < n; k++) {
        int id = all ? k : x->at[o.v][k];
        if (!all && x->seen[id] == x->stamp) continue;
        if (!all) x->seen[id] = x->stamp;
        const wb_block *b = L->f->blocks[id];
        int member = id < L->nmember && L->member[id];
        for (int i = 0; i < b->nins; i++) {
            if (!wb_has_dest(b->ins[i].op) || !wb_opnd_eq(b->ins[i].d, o)) continue;
            if (member) {
                *inside = 1;
                continue;
            }
            def = &b->ins[i];
            *blk = id;
            *at = i;
            ndefs++;
        }
    }
    return ndefs == 1 ? def : NULL;
}

/* The value of v when the loop is entered, if its one definition outside the loop
 * copies a constant. A v the loop also defines may enter with the loop's last value
 * instead, when an enclosing loop runs this one again (`k := 0` before an outer
 * loop, `k := k + 1` inside this one), unless that definition is in the one block
 * that enters the loop or on every way back to it. */
static int constant_of(loop *L, wb_opnd o, int32_t *val)
{
    if (o.kind == WB_O_IMM && !o.isfloat) {
        *val = (int32_t)o.v;
        return 1;
    }
    if (o.kind == WB_O_REG && o.v == WT_OPND_R0) {
        *val = 0;
        return 1;
    }
    if (!wb_is_vreg(o)) return 0;
    int def_blk = -1, at, defined_inside;
    const wb_ins *def = def_outside(L, o, &def_blk, &at, &defined_inside);
    if (!def || (def->op != WB_COPY && def->op != WT_OP_MOV && def->op != WT_OP_MV)) return 0;
    if (defined_inside && def_blk != swp_loop_pre(L) && reenters(L, def_blk)) return 0;
    wb_opnd s = def->s[0];
    if ((s.kind != WB_O_IMM || s.isfloat) && !(s.kind == WB_O_REG && s.v == WT_OPND_R0)) return 0;
    *val = s.kind == WB_O_IMM ? (int32_t)s.v : 0;
    return 1;
}

/* bound - start when the bound is the start's value at the loop's entry plus a
 * literal: computed once, in the one block that enters the loop, from a start not
 * written after it there (a pointer compared with the end of the array it walks,
 * `for x := 0 to 65 do buf[x] := 0.0` as LLVM writes it). */
static int bound_offset(loop *L, int start, wb_opnd bound, int64_t *diff)
{
    int blk = -1, at, inside;
    const wb_ins *def = wb_is_vreg(bound) ? def_outside(L, bound, &blk, &at, &inside) : NULL;
    if (!def || inside || blk != swp_loop_pre(L) || (def->op != WT_OP_IADD && def->op != WT_OP_ISUB)) return 0;
    int k = wb_opnd_eq(def->s[0], wb_vreg(start)) ? 0 : def->op == WT_OP_IADD && wb_opnd_eq(def->s[1], wb_vreg(start)) ? 1 : -1;
    wb_opnd c = k < 0 ? (wb_opnd){0} : def->s[1 - k];
    if (k < 0 || c.kind != WB_O_IMM || c.isfloat) return 0;
    const wb_block *b = L->f->blocks[blk];
    for (int i = at + 1; i < b->nins; i++)
        if (wb_has_dest(b->ins[i].op) && wb_opnd_eq(b->ins[i].d, wb_vreg(start))) return 0;
    *diff = def->op == WT_OP_ISUB ? -(int64_t)(int32_t)c.v : (int64_t)(int32_t)c.v;
    return 1;
}

/* The trip count, when the start and the bound are constants, or the bound is the
 * start plus a constant. */
void swp_trip_count(loop *L)
{
    int32_t init, bound;
    int64_t diff;
    if (constant_of(L, wb_vreg(L->iv_init), &init) && constant_of(L, L->bound, &bound))
        diff = (int64_t)bound - init;
    else if (!bound_offset(L, L->iv_init, L->bound, &diff))
        return;
    if (L->iv_step < 0) diff = -diff;
    if (diff % ((int64_t)1 << L->iv_shift) != 0) return;
    int64_t n = diff / ((int64_t)1 << L->iv_shift) + L->test_dist;
    if (n < 1 || n > INT32_MAX) return;
    L->const_n = 1;
    L->n = (int32_t)n;
}
