/* Software pipelining: what a schedule must fit besides the graph (registers, the
 * words a cell's own queue holds), and the changes tried when it does not
 * (literals put back, invariants spilled). */
#include "swp.h"

#include <stdlib.h>
#include <string.h>

/* ---- Registers ---------------------------------------------------------------------- */

/* Clocks c = r + k*ii (k any integer) within [lo, hi). */
static int hits(int lo, int hi, int r, int ii)
{
    if (hi <= lo) return 0;
    int first = lo - r <= 0 ? -((r - lo) / ii) : (lo - r + ii - 1) / ii;
    int last = hi - 1 - r >= 0 ? (hi - 1 - r) / ii : -((r - (hi - 1) + ii - 1) / ii);
    return last >= first ? last - first + 1 : 0;
}

/* The registers the kernel needs: at its busiest clock, the values of all the
 * iterations in flight that are live then (a value holds its register from the
 * issue of its definition to the issue of its last read, as the allocator counts),
 * plus the invariants it reads from registers, plus the kernel's counter. */
int swp_reg_need(const loop *L, int ii, const uint64_t *live_after, int *maxlive, int *invariants)
{
    int *cnt = ws_xcalloc((size_t)ii, sizeof *cnt);
    uint8_t *inv = ws_xcalloc((size_t)L->f->nvregs + 1, 1);
    int ninv = 0;
    for (int i = 0; i < L->nop; i++) {
        const bop *x = &L->op[i];
        if (!x->live) continue;
        for (int k = 0; k < wb_nsrc(x->in.op); k++) {
            wb_opnd s = x->in.s[k];
            if (wb_is_vreg(s) && !is_body_value(L, s) && !inv[s.v]) {
                inv[s.v] = 1;
                ninv++;
            }
        }
        if (!wb_has_dest(x->in.op) || !is_body_value(L, x->in.d)) continue;
        int v = (int)x->in.d.v, lo = x->time, hi = lo, read = 0;
        for (int j = 0; j < L->nop; j++) {
            const bop *y = &L->op[j];
            if (!y->live) continue;
            for (int k = 0; k < wb_nsrc(y->in.op); k++)
                if (wb_is_vreg(y->in.s[k]) && (int)y->in.s[k].v == v) {
                    int t = y->time + y->dist[k] * ii;
                    if (t > hi) hi = t;
                    read = 1;
                }
        }
        int d = swp_live_out_dist(L, live_after, v);
        if (!read && d < 0) continue;
        if (!read) hi = lo + wt_ops[x->mop].latency[L->f->model->id];
        if (d > 0 && lo + d * ii + 1 > hi) hi = lo + d * ii + 1;
        for (int r = 0; r < ii; r++) cnt[r] += hits(lo, hi, r, ii);
    }
    int m = 0;
    for (int r = 0; r < ii; r++) m = cnt[r] > m ? cnt[r] : m;
    free(cnt);
    free(inv);
    *maxlive = m;
    *invariants = ninv;
    return m + ninv + 1;
}

/* Does op i read queue q as the first of its bundle? The ops of one bundle that
 * read a queue share the one word it dequeues (a received word with several
 * users), so only one of them takes a word out. */
static int dequeues(const loop *L, int i, unsigned q)
{
    const bop *x = &L->op[i];
    if (!x->live || !(swp_gates_of(&x->in).reads >> q & 1)) return 0;
    for (int j = 0; j < i; j++) {
        const bop *y = &L->op[j];
        if (y->live && y->time == x->time && swp_gates_of(&y->in).reads >> q & 1) return 0;
    }
    return 1;
}

/* Would the host feeds of a queue run so far ahead of its reads that the queue
 * fills? The cell that fills it is the one that drains it: a feed that waits on
 * its full queue waits for a read behind it, forever (iWarp, 8 words). In the
 * steady state, a clock t past every op's time has seen (t - time) / II + 1
 * issues of each feed and of each read before it; the words in the queue then
 * are those, plus what the body reads before feeding it (fed before the loop). */
int swp_overfills_own_queue(const loop *L, int ii)
{
    char *takes = ws_xcalloc((size_t)L->nop + 1, 1);   /* op i dequeues a word of q */
    int over = 0;
    for (unsigned q = 0; q < 4 && !over; q++) {
        int code = (int)(WT_OPND_FEED + q), bal = 0, before = 0, last = 0, any = 0;
        for (int i = 0; i < L->nop; i++) {
            const bop *x = &L->op[i];
            takes[i] = (char)dequeues(L, i, q);
            if (!x->live) continue;
            if (takes[i]) bal--;
            if (swp_gates_of(&x->in).wcode == code) bal++, any = 1;
            if (-bal > before) before = -bal;
            if (x->time > last) last = x->time;
        }
        if (!any) continue;
        for (int t = last + 1; t <= last + ii && !over; t++) {
            int words = before;
            for (int i = 0; i < L->nop; i++) {
                const bop *x = &L->op[i];
                if (!x->live) continue;
                if (swp_gates_of(&x->in).wcode == code) words += (t - x->time) / ii + 1;
                if (takes[i]) words -= (t - 1 - x->time) / ii + 1;
            }
            over = words > (int)L->f->model->queue_words;
        }
    }
    free(takes);
    return over;
}

/* A new value of the body: the per-value tables grow with it. */
static int add_value(loop *L, uint64_t **after)
{
    int v = wb_new_vreg(L->f, 0), nv = L->f->nvregs;
    L->def = ws_xrealloc(L->def, sizeof *L->def * (size_t)nv);
    L->al = ws_xrealloc(L->al, sizeof *L->al * (size_t)nv);
    L->init = ws_xrealloc(L->init, sizeof *L->init * (size_t)nv * (MAX_DIST + 1));
    for (int i = L->nv; i < nv; i++) {
        L->def[i] = -1;
        L->al[i] = (alias){0, 0};
        for (int j = 0; j <= MAX_DIST; j++) INIT(L, i, j) = 0;
    }
    size_t wo = ((size_t)L->nv + 63) / 64, wn = ((size_t)nv + 63) / 64;
    if (wn > wo) {
        *after = ws_xrealloc(*after, sizeof **after * wn);
        memset(*after + wo, 0, sizeof **after * (wn - wo));
    }
    L->nv = nv;
    return v;
}

static int add_op(loop *L, bop x)
{
    if (L->nop == L->opcap) {
        L->opcap = 2 * L->opcap + 8;
        L->op = ws_xrealloc(L->op, sizeof *L->op * (size_t)L->opcap);
    }
    L->op[L->nop] = x;
    return L->nop++;
}

static int reads_value(const bop *x, int v)
{
    for (int k = 0; k < wb_nsrc(x->in.op); k++)
        if (wb_is_vreg(x->in.s[k]) && (int)x->in.s[k].v == v) return 1;
    return 0;
}

/* Would the node of op g (its group) read more distinct literals than a bundle's
 * fields hold if the register v held literal lit again? */
static int too_many_literals(const loop *L, int g, int v, wb_opnd lit)
{
    wb_opnd seen[2 * WB_MNODE_OPS + 3];
    int n = 0;
    for (int i = 0; i < L->nop; i++) {
        const bop *x = &L->op[i];
        if (!x->live || x->group != g) continue;
        for (int k = 0; k < wb_nsrc(x->in.op); k++) {
            wb_opnd s = x->in.s[k];
            if (wb_is_vreg(s) && (int)s.v == v) s = lit;
            if (!wb_is_lit(s)) continue;
            int have = 0;
            for (int j = 0; j < n && !have; j++) have = wb_lit_eq(seen[j], s);
            if (!have) seen[n++] = s;
        }
    }
    return n > WT_BUNDLE_LITERALS;
}

/* Register pressure, first remedy: a literal moved to a register before the loop
 * goes back into the operations that read it, where a row's literal fields allow
 * (the scheduler keeps two a row). The one with the fewest readers goes first. */
int swp_rematerialize(loop *L, ws_buf *log)
{
    int best = -1, best_uses = 0;
    for (int j = 0; j < L->nhz; j++) {
        if (L->einit[L->hz[j].einit].op == WT_OP_NONE) continue;
        int uses = 0, fits = 1;
        for (int i = 0; i < L->nop && fits; i++) {
            if (!L->op[i].live || !reads_value(&L->op[i], L->hz[j].v)) continue;
            uses++;
            fits = !too_many_literals(L, L->op[i].group, L->hz[j].v, L->hz[j].lit);
        }
        if (fits && uses && (best < 0 || uses < best_uses)) {
            best = j;
            best_uses = uses;
        }
    }
    if (best < 0) return 0;
    const hoisted *h = &L->hz[best];
    for (int i = 0; i < L->nop; i++) {
        bop *x = &L->op[i];
        if (!x->live) continue;
        for (int k = 0; k < wb_nsrc(x->in.op); k++)
            if (wb_is_vreg(x->in.s[k]) && (int)x->in.s[k].v == h->v) x->in.s[k] = h->lit;
    }
    L->einit[h->einit].op = WT_OP_NONE;
    L->remat++;
    ws_buf_puts(log, "a literal back into the operations that read it (");
    if (h->lit.kind == WB_O_SYM) wb_put_symbol(log, h->lit.sym, h->lit.addend);
    else ws_buf_printf(log, "%d", (int)h->lit.v);
    ws_buf_puts(log, ")");
    return 1;
}

/* Second remedy, a spill: an invariant the loop reads from a register is stored in
 * the frame before the loop and reloaded just before each operation that reads
 * it, if the memory units have room at this II. The one with the fewest readers
 * goes first. */
int swp_spill_invariant(loop *L, int ii, uint64_t **after, ws_buf *log)
{
    int mem = 0;
    for (int i = 0; i < L->nop; i++)
        if (L->op[i].live && !L->op[i].in.iu &&
            wt_ops[L->op[i].in.op == WB_COPY ? WT_OP_MV : L->op[i].in.op].uclass == WT_UC_MEM &&
            L->op[i].in.op != WT_OP_LEA)
            mem++;
    int best = 0, best_uses = 0;
    for (int i = 0; i < L->nop; i++) {
        const bop *x = &L->op[i];
        if (!x->live || x->reload_for >= 0) continue;
        for (int k = 0; k < wb_nsrc(x->in.op); k++) {
            wb_opnd s = x->in.s[k];
            /* an IU value has no cell memory to wait in */
            if (!wb_is_vreg(s) || is_body_value(L, s) || (int)s.v == best || (L->f->vflags[s.v] & WB_V_IU)) continue;
            int uses = 0;
            for (int j = 0; j < L->nop; j++) uses += L->op[j].live && reads_value(&L->op[j], (int)s.v);
            if (!best || uses < best_uses) {
                best = (int)s.v;
                best_uses = uses;
            }
        }
    }
    if (!best || mem + best_uses > (int)wt_class_slots(WT_UC_MEM) * ii) return 0;
    wb_func *f = L->f;
    uint32_t off = wb_frame_alloc(f, 4);
    int obj = ++f->nmemobjs;
    wb_opnd slot = wb_sym(f->frame, (int32_t)off);
    wb_ins st = {.op = WT_OP_ST, .s = {wb_reg(WT_OPND_R0), slot, wb_vreg(best)}, .memobj = obj, .target = -1};
    swp_add_einit(L, st);
    int n = L->nop;
    for (int i = 0; i < n; i++) {
        if (!L->op[i].live || L->op[i].reload_for >= 0 || !reads_value(&L->op[i], best)) continue;
        int t = add_value(L, after);
        wb_ins ld = {.op = WT_OP_LD, .d = wb_vreg(t), .s = {wb_reg(WT_OPND_R0), slot}, .memobj = obj, .target = -1,
                     .line = L->op[i].in.line, .col = L->op[i].in.col};
        int at = add_op(L, (bop){.in = ld, .live = 1, .group = L->nop, .reload_for = i});
        L->def[t] = at;
        bop *x = &L->op[i];
        for (int k = 0; k < wb_nsrc(x->in.op); k++)
            if (wb_is_vreg(x->in.s[k]) && (int)x->in.s[k].v == best) {
                x->in.s[k] = wb_vreg(t);
                x->dist[k] = 0;
            }
    }
    L->spilled++;
    ws_buf_printf(log, "spilled an invariant (reloaded before each of its %d uses)", best_uses);
    return 1;
}
