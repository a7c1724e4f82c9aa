/* Register allocation after bundling, on the exact issue clocks.
 *
 * Exposed pipelines: a register is taken from the issue of the operation that
 * defines it (not its completion: a stalled cell still completes in-flight writes,
 * so a write could land on a value still waiting to be read) until the issue of its
 * last read. Clocks are numbered through the function in layout order; a value's
 * live range is a set of half-open [def issue, last read) pieces found by walking
 * each block's bundles backwards from its live-out set. Ranges that only touch do
 * not conflict: a read at clock t and a new definition issued at t are fine, since
 * the write lands at t + latency >= t + 1.
 *
 * Assignment is linear scan over these ranges with their holes: registers are tried
 * in order, after the register of a copy's partner (so the copy disappears). A
 * definition nobody reads writes r0. Registers r1..r(nregs-1); r0 reads as zero.
 * If a register cannot be found, the value is spilled and the function is
 * scheduled again. */
#include "mir.h"

#include <stdlib.h>
#include <string.h>

typedef struct range { int s, e; } range;

typedef struct rangeset {
    range *r;
    int n, cap;
} rangeset;

static void rs_add(rangeset *rs, int s, int e)
{
    if (e <= s) return;
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? 2 * rs->cap : 4;
        rs->r = ws_xrealloc(rs->r, sizeof *rs->r * (size_t)rs->cap);
    }
    rs->r[rs->n++] = (range){s, e};
}

static int cmp_range(const void *a, const void *b)
{
    const range *x = a, *y = b;
    return x->s != y->s ? (x->s < y->s ? -1 : 1) : (x->e < y->e ? -1 : x->e > y->e);
}

/* Sorted, and touching pieces merged. */
static void rs_normalize(rangeset *rs)
{
    if (rs->n < 2) return;
    qsort(rs->r, (size_t)rs->n, sizeof *rs->r, cmp_range);
    int m = 0;
    for (int i = 1; i < rs->n; i++) {
        if (rs->r[i].s <= rs->r[m].e) {
            if (rs->r[i].e > rs->r[m].e) rs->r[m].e = rs->r[i].e;
        } else {
            rs->r[++m] = rs->r[i];
        }
    }
    rs->n = m + 1;
}

/* Does the sorted, disjoint set occ overlap any piece of v? */
static int rs_overlaps(const rangeset *occ, const rangeset *v)
{
    for (int k = 0; k < v->n; k++) {
        int lo = 0, hi = occ->n;
        while (lo < hi) {  /* the first piece ending after v's start */
            int mid = (lo + hi) / 2;
            if (occ->r[mid].e <= v->r[k].s) lo = mid + 1;
            else hi = mid;
        }
        if (lo < occ->n && occ->r[lo].s < v->r[k].e) return 1;
    }
    return 0;
}

/* Both sets are sorted: v's pieces are merged in from the back, without sorting
 * occ again (a register of a long block holds thousands of pieces). */
static void rs_insert_all(rangeset *occ, const rangeset *v)
{
    int old = occ->n, added = 0;
    for (int k = 0; k < v->n; k++) added += v->r[k].e > v->r[k].s;
    if (added == 0) return;
    if (occ->n + added > occ->cap) {
        occ->cap = occ->n + added + occ->cap;
        occ->r = ws_xrealloc(occ->r, sizeof *occ->r * (size_t)occ->cap);
    }
    int i = old - 1, j = v->n - 1, out = old + added - 1;
    while (j >= 0) {
        if (v->r[j].e <= v->r[j].s) {
            j--;
            continue;
        }
        if (i >= 0 && cmp_range(&occ->r[i], &v->r[j]) > 0) occ->r[out--] = occ->r[i--];
        else occ->r[out--] = v->r[j--];
    }
    occ->n = old + added;
}

static int rs_length(const rangeset *rs)
{
    int n = 0;
    for (int k = 0; k < rs->n; k++) n += rs->r[k].e - rs->r[k].s;
    return n;
}

typedef struct ops_at {   /* the operations of a block, by issue clock */
    wb_ins **ins;
    int n;
} ops_at;

static int cmp_cycle(const void *a, const void *b)
{
    const wb_ins *x = *(wb_ins *const *)a, *y = *(wb_ins *const *)b;
    return (x->cycle > y->cycle) - (x->cycle < y->cycle);
}

/* Live ranges of every vreg; marks dead definitions in dead[] (indexed like a
 * flattened walk: block by block, body then terminator). */
static void build_ranges(wb_func *f, rangeset *ranges, uint8_t **dead_of)
{
    wb_live *l = wb_liveness(f);
    /* the values live at the walk's point, and every one that was (to find those
     * live at the block's start without a walk over all vregs) */
    uint8_t *live = ws_xcalloc((size_t)f->nvregs + 1, 1);
    int *was = NULL;
    size_t nwas = 0, wascap = 0;
    int *end = ws_xcalloc((size_t)f->nvregs, sizeof *end);
    int base = 0;
    for (int oi = 0; oi < f->norder; oi++) {
        int id = f->order[oi];
        wb_block *b = f->blocks[id];
        int n = b->nins + (b->term.op != WT_OP_NONE);
        wb_ins **ins = ws_xcalloc((size_t)n + 1, sizeof *ins);
        for (int i = 0; i < b->nins; i++) ins[i] = &b->ins[i];
        if (b->term.op != WT_OP_NONE) ins[n - 1] = &b->term;
        qsort(ins, (size_t)n, sizeof *ins, cmp_cycle);
        uint8_t *dead = dead_of[id];
        memset(dead, 0, (size_t)b->nins + 1);

        int nout;
        const int *out = wb_live_out(l, id, &nout);
        ws_grow(&was, &wascap, (size_t)nout + 3 * (size_t)n + 1, sizeof *was);
        nwas = 0;
        for (int j = 0; j < nout; j++)
            if (out[j] >= 1 && out[j] < f->nvregs) {
                live[out[j]] = 1;
                was[nwas++] = out[j];
                end[out[j]] = base + b->len;
            }
        int k = n - 1;
        for (int c = b->len - 1; c >= 0; c--) {
            int first = k;
            while (first >= 0 && ins[first]->cycle == c) first--;
            /* Definitions of this clock, then its reads. */
            for (int x = k; x > first; x--) {
                wb_ins *in = ins[x];
                if (!wb_has_dest(in->op) || !wb_is_vreg(in->d)) continue;
                int v = (int)in->d.v;
                if (live[v]) {
                    rs_add(&ranges[v], base + c, end[v]);
                    live[v] = 0;
                } else {
                    dead[in == &b->term ? b->nins : (int)(in - b->ins)] = 1;
                }
            }
            for (int x = k; x > first; x--) {
                wb_ins *in = ins[x];
                for (int s = 0; s < wb_nsrc(in->op); s++) {
                    if (!wb_is_vreg(in->s[s])) continue;
                    int v = (int)in->s[s].v;
                    if (!live[v]) {
                        live[v] = 1;
                        was[nwas++] = v;
                        end[v] = base + c;
                    }
                }
            }
            k = first;
        }
        for (size_t j = 0; j < nwas; j++)
            if (live[was[j]]) {
                rs_add(&ranges[was[j]], base, end[was[j]]);
                live[was[j]] = 0;
            }
        base += b->len;
        free(ins);
    }
    /* A write still in flight when its block ends (a pipelined loop's kernel and
     * prologue leave some) lands in the first clocks of whichever block comes
     * next: the register stays taken until then. */
    int *start = ws_xcalloc((size_t)f->nblocks + 1, sizeof *start);
    for (int oi = 0, at = 0; oi < f->norder; oi++) {
        start[f->order[oi]] = at;
        at += f->blocks[f->order[oi]]->len;
    }
    for (int id = 0; id < f->nblocks; id++) {
        const wb_block *b = f->blocks[id];
        int succ[2], ns = wb_succs(b, succ);
        for (int i = 0; i < b->nins; i++) {
            const wb_ins *in = &b->ins[i];
            if (!wb_has_dest(in->op) || !wb_is_vreg(in->d) || dead_of[id][i]) continue;
            int spill = in->cycle + wt_ops[in->mop].latency[f->model->id] - b->len;
            for (int k = 0; k < ns && spill > 0; k++) {
                int len = f->blocks[succ[k]]->len;
                rs_add(&ranges[in->d.v], start[succ[k]], start[succ[k]] + (spill < len ? spill : len));
            }
        }
    }
    free(start);
    for (int v = 1; v < f->nvregs; v++) rs_normalize(&ranges[v]);
    free(live);
    free(was);
    free(end);
    wb_live_free(l);
}

typedef struct by_start { int start, v; } by_start;

static int cmp_start(const void *a, const void *b)
{
    const by_start *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

int wb_regalloc(wb_func *f)
{
    int nv = f->nvregs, nregs = (int)f->model->nregs;
    rangeset *ranges = ws_xcalloc((size_t)nv, sizeof *ranges);
    uint8_t **dead = ws_xcalloc((size_t)f->nblocks, sizeof *dead);
    for (int id = 0; id < f->nblocks; id++) dead[id] = ws_xcalloc((size_t)f->blocks[id]->nins + 1, 1);
    build_ranges(f, ranges, dead);

    /* Copy partners, for hints. */
    int *hint_a = NULL, *hint_b = NULL, nh = 0, hcap = 0;
    for (int id = 0; id < f->nblocks; id++) {
        const wb_block *b = f->blocks[id];
        for (int i = 0; i < b->nins; i++) {
            const wb_ins *in = &b->ins[i];
            if (in->op != WB_COPY || !wb_is_vreg(in->d) || !wb_is_vreg(in->s[0])) continue;
            if (nh == hcap) {
                hcap = hcap ? 2 * hcap : 64;
                hint_a = ws_xrealloc(hint_a, sizeof *hint_a * (size_t)hcap);
                hint_b = ws_xrealloc(hint_b, sizeof *hint_b * (size_t)hcap);
            }
            hint_a[nh] = (int)in->d.v;
            hint_b[nh++] = (int)in->s[0].v;
        }
    }

    by_start *order = ws_xcalloc((size_t)nv, sizeof *order);
    int no = 0;
    for (int v = 1; v < nv; v++)
        if (ranges[v].n) order[no++] = (by_start){ranges[v].r[0].s, v};
    qsort(order, (size_t)no, sizeof *order, cmp_start);

    /* Each vreg's partners, in the order of the copies (a walk over every copy for
     * each vreg would cost values times copies). */
    int *hint_first = ws_xcalloc((size_t)nv + 1, sizeof *hint_first);
    int *partners = ws_xcalloc((size_t)nh * 2 + 1, sizeof *partners);
    for (int h = 0; h < nh; h++) {
        if (hint_a[h] < nv) hint_first[hint_a[h] + 1]++;
        if (hint_b[h] != hint_a[h] && hint_b[h] < nv) hint_first[hint_b[h] + 1]++;
    }
    for (int v = 0; v < nv; v++) hint_first[v + 1] += hint_first[v];
    int *hint_fill = ws_xcalloc((size_t)nv + 1, sizeof *hint_fill);
    memcpy(hint_fill, hint_first, sizeof *hint_fill * (size_t)nv);
    for (int h = 0; h < nh; h++) {
        if (hint_a[h] < nv) partners[hint_fill[hint_a[h]]++] = hint_b[h];
        if (hint_b[h] != hint_a[h] && hint_b[h] < nv) partners[hint_fill[hint_b[h]]++] = hint_a[h];
    }
    free(hint_fill);

    int *reg = ws_xcalloc((size_t)nv, sizeof *reg);   /* 0: none */
    rangeset *occ = ws_xcalloc((size_t)nregs, sizeof *occ);
    uint8_t *failed = ws_xcalloc((size_t)nv, 1);
    int nfailed = 0;
    for (int oi = 0; oi < no; oi++) {
        int v = order[oi].v, got = 0;
        for (int h = hint_first[v]; h < hint_first[v + 1] && !got; h++) {
            int partner = partners[h];
            int r = partner ? reg[partner] : 0;
            if (r && !rs_overlaps(&occ[r], &ranges[v])) got = r;
        }
        for (int r = 1; r < nregs && !got; r++)
            if (!rs_overlaps(&occ[r], &ranges[v])) got = r;
        if (!got) {
            failed[v] = 1;
            nfailed++;
            continue;
        }
        reg[v] = got;
        rs_insert_all(&occ[got], &ranges[v]);
    }

    int rc = 0;
    if (nfailed) {
        /* Spill what failed; a spill temporary cannot be spilled again, nor a value
         * a pipelined block reads or writes (its bundles are final), so the
         * longest-lived ordinary value beside it goes instead. */
        uint8_t *spill = ws_xcalloc((size_t)nv, 1), *fixed = ws_xcalloc((size_t)nv, 1);
        for (int id = 0; id < f->nblocks; id++) {
            const wb_block *b = f->blocks[id];
            for (int i = 0; b->fixed && i <= b->nins; i++) {
                const wb_ins *in = i == b->nins ? &b->term : &b->ins[i];
                if (in->op == WT_OP_NONE) continue;
                if (wb_has_dest(in->op) && wb_is_vreg(in->d)) fixed[in->d.v] = 1;
                for (int s = 0; s < wb_nsrc(in->op); s++)
                    if (wb_is_vreg(in->s[s])) fixed[in->s[s].v] = 1;
            }
        }
        /* The IU's values have no memory to go to (it has none). */
        for (int v = 1; v < nv; v++)
            if (f->vflags[v] & WB_V_IU) fixed[v] = 1;
        int any = 0;
        for (int v = 1; v < nv; v++) {
            if (!failed[v]) continue;
            if (!(f->vflags[v] & WB_V_SPILLTEMP) && !fixed[v]) {
                spill[v] = 1;
                any = 1;
                continue;
            }
            int best = 0, best_len = -1;
            for (int u = 1; u < nv; u++) {
                if (!reg[u] || spill[u] || (f->vflags[u] & WB_V_SPILLTEMP) || fixed[u]) continue;
                if (!rs_overlaps(&ranges[u], &ranges[v])) continue;
                int len = rs_length(&ranges[u]);
                if (len > best_len) {
                    best = u;
                    best_len = len;
                }
            }
            if (best) {
                spill[best] = 1;
                any = 1;
            }
        }
        if (any) {
            wb_spill_vregs(f, spill);
            rc = 1;
        } else {
            rc = -1;
        }
        free(spill);
        free(fixed);
    } else {
        for (int id = 0; id < f->nblocks; id++) {
            wb_block *b = f->blocks[id];
            for (int i = 0; i <= b->nins; i++) {
                wb_ins *in = i == b->nins ? &b->term : &b->ins[i];
                if (in->op == WT_OP_NONE) continue;
                in->dvreg = wb_has_dest(in->op) && wb_is_vreg(in->d) ? in->d.v : 0;
                /* -g: a copy about to vanish (both sides in one register) says
                 * that its destination now lives where its source does. */
                if (f->debug && in->op == WB_COPY && wb_is_vreg(in->d) && wb_is_vreg(in->s[0]) && !dead[id][i] &&
                    reg[in->d.v] == reg[in->s[0].v]) {
                    int ev = wb_new_dbgev(f, -1, WB_DV_ALIAS, in->d.v, in->s[0].v);
                    f->dbgev[ev].next = in->dbg;
                    in->dbg = ev;
                }
                for (int s = 0; s < wb_nsrc(in->op); s++)
                    if (wb_is_vreg(in->s[s])) in->s[s] = wb_reg((unsigned)reg[in->s[s].v]);
                if (wb_has_dest(in->op) && wb_is_vreg(in->d))
                    in->d = wb_reg(dead[id][i] ? WT_OPND_R0 : (unsigned)reg[in->d.v]);
            }
            /* Copies that became a register to itself, or to r0, do nothing; but a
             * receive nobody reads (of a gate or the address path) must still take
             * its word off the queue. */
            int m = 0;
            for (int i = 0; i < b->nins; i++) {
                const wb_ins *in = &b->ins[i];
                int from_gate = in->s[0].kind == WB_O_REG && (wt_opnd_is_gate(in->s[0].v) || wt_opnd_is_path(in->s[0].v));
                if (in->op == WB_COPY && in->d.kind == WB_O_REG && !from_gate &&
                    (in->d.v == WT_OPND_R0 || wb_opnd_eq(in->d, in->s[0]))) {
                    wb_chain_dbg(f, m ? &b->ins[m - 1].dbg : &b->dbg_entry, in->dbg);
                    continue;
                }
                b->ins[m++] = *in;
            }
            b->nins = m;
        }
    }

    for (int v = 0; v < nv; v++) free(ranges[v].r);
    for (int r = 0; r < nregs; r++) free(occ[r].r);
    for (int id = 0; id < f->nblocks; id++) free(dead[id]);
    free(ranges);
    free(dead);
    free(occ);
    free(reg);
    free(failed);
    free(order);
    free(hint_a);
    free(hint_b);
    free(hint_first);
    free(partners);
    return rc;
}
