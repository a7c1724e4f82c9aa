/* Liveness of virtual registers per block. Before phis are lowered, an edge's
 * pending copies act as phis: their destinations are defined on the edge (not live
 * into the successor from above) and their sources are used at the end of the
 * predecessor. Only the blocks of the layout take part: any other block has empty
 * sets, and so adds nothing to its predecessors'.
 *
 * The sets are the least solution of the usual backward equations
 *   in[b]  = gen[b] | (out[b] & ~kill[b])
 *   out[b] = union over successors s of (in[s] & ~phidef[s]), | edge sources of b
 * found one vreg at a time: from the blocks that read it before writing it, up
 * through predecessors until a block writes it. The work is the size of the sets
 * plus that of the function, where bit sets over all vregs for every block cost
 * blocks times vregs in time and memory (a function of 100,000 ifs has hundreds of
 * thousands of each). */
#include "mir.h"

#include <stdlib.h>
#include <string.h>

/* A growable list of (block, vreg) pairs. */
typedef struct pairs {
    int *b, *v;
    size_t n, cap;
} pairs;

static void pair_add(pairs *p, int b, int v)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 256;
        p->b = ws_xrealloc(p->b, sizeof *p->b * p->cap);
        p->v = ws_xrealloc(p->v, sizeof *p->v * p->cap);
    }
    p->b[p->n] = b;
    p->v[p->n++] = v;
}

/* The values grouped by key, keys 0..nkeys-1 (a counting sort, stable: values of
 * one key stay in the order they were added). at has nkeys + 1 entries: key k's
 * values are [at[k], at[k + 1]). */
static int *group_by(const int *key, const int *val, size_t n, int nkeys, int **at_out)
{
    int *at = ws_xcalloc((size_t)nkeys + 2, sizeof *at);
    int *grouped = ws_xcalloc(n + 1, sizeof *grouped);
    for (size_t i = 0; i < n; i++) at[key[i] + 1]++;
    for (int k = 0; k < nkeys; k++) at[k + 1] += at[k];
    int *fill = ws_xcalloc((size_t)nkeys + 1, sizeof *fill);
    memcpy(fill, at, sizeof *fill * (size_t)nkeys);
    for (size_t i = 0; i < n; i++) grouped[fill[key[i]]++] = val[i];
    free(fill);
    *at_out = at;
    return grouped;
}

/* Per vreg (per key: key_of), the blocks of the pairs. */
static int *by_vreg(const pairs *p, int nv, int **at_out) { return group_by(p->v, p->b, p->n, nv, at_out); }

/* Per block, the vregs of the pairs (the pairs come in ascending vreg order, so
 * each block's list is ascending). */
static int *by_block(const pairs *p, int nb, int **at_out) { return group_by(p->b, p->v, p->n, nb, at_out); }

/* What one block reads before writing (gen) and writes (kill), tracked vregs only.
 * mark[v]: bit 1 in gen, bit 2 in kill, for the block being walked. */
typedef struct walker {
    const uint8_t *track;
    uint8_t *mark;
    int *touched;
    int ntouched;
} walker;

static void touch(walker *w, int v)
{
    if (!w->mark[v]) w->touched[w->ntouched++] = v;
}

static void walk_def(walker *w, const wb_ins *in)
{
    if (in->op == WT_OP_NONE || !wb_has_dest(in->op) || !wb_is_vreg(in->d)) return;
    int v = (int)in->d.v;
    if (w->track && !w->track[v]) return;
    touch(w, v);
    w->mark[v] = (uint8_t)((w->mark[v] & ~1u) | 2u);
}

static void walk_uses(walker *w, const wb_ins *in)
{
    if (in->op == WT_OP_NONE) return;
    for (int k = 0; k < wb_nsrc(in->op); k++) {
        if (!wb_is_vreg(in->s[k])) continue;
        int v = (int)in->s[k].v;
        if (w->track && !w->track[v]) continue;
        touch(w, v);
        w->mark[v] |= 1u;
    }
}

/* A block scheduled by the pipeliner is read clock by clock, not in list order:
 * the operations of one clock read their sources before any of them writes. Its
 * operations by clock (those outside 0..len-1 take no part). */
static void walk_fixed(walker *w, const wb_block *b)
{
    int n = b->nins + 1, len = b->len > 0 ? b->len : 0;
    int *at = ws_xcalloc((size_t)len + 2, sizeof *at);
    const wb_ins **ins = ws_xcalloc((size_t)n + 1, sizeof *ins);
    for (int i = -1; i < b->nins; i++) {
        const wb_ins *in = i < 0 ? &b->term : &b->ins[i];
        if (in->op != WT_OP_NONE && in->cycle >= 0 && in->cycle < len) at[in->cycle + 1]++;
    }
    for (int c = 0; c < len; c++) at[c + 1] += at[c];
    int *fill = ws_xcalloc((size_t)len + 1, sizeof *fill);
    memcpy(fill, at, sizeof *fill * (size_t)len);
    for (int i = -1; i < b->nins; i++) {
        const wb_ins *in = i < 0 ? &b->term : &b->ins[i];
        if (in->op != WT_OP_NONE && in->cycle >= 0 && in->cycle < len) ins[fill[in->cycle]++] = in;
    }
    for (int c = len - 1; c >= 0; c--) {
        for (int k = at[c]; k < at[c + 1]; k++) walk_def(w, ins[k]);
        for (int k = at[c]; k < at[c + 1]; k++) walk_uses(w, ins[k]);
    }
    free(at);
    free(ins);
    free(fill);
}

/* The key of vreg v in the solution: v itself, or with a list of tracked vregs
 * its place there, so that the work per vreg is that of the list, not of every
 * vreg of the function (a function of a thousand loops asks about each). */
typedef struct keys {
    const int *list;
    int n;
} keys;

static int key_of(const keys *k, int v)
{
    if (!k->list) return v;
    int lo = 0, hi = k->n - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (k->list[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static void pair_add_key(pairs *p, const keys *k, int b, int v) { pair_add(p, b, key_of(k, v)); }

wb_live *wb_liveness_in(const wb_func *f, const uint8_t *track, const int *tracked, int ntracked, const int *blocks,
                        int nblocks)
{
    int nb = f->nblocks, nv = f->nvregs > 0 ? f->nvregs : 1;
    keys K = {track ? tracked : NULL, ntracked};
    int nkeys = track ? (ntracked > 0 ? ntracked : 1) : nv;
    uint8_t *in_order = ws_xcalloc((size_t)nb + 1, 1);
    for (int oi = 0; oi < f->norder; oi++) in_order[f->order[oi]] = 1;

    /* gen, kill, the destinations of the phis on the edges into each block, and
     * the sources of those on the edges out of it */
    pairs gen = {0}, kill = {0}, phidef = {0}, esrc = {0};
    walker w = {track, ws_xcalloc((size_t)nv, 1), NULL, 0};
    int maxins = 0, nwalk = blocks ? nblocks : nb;
    for (int k = 0; k < nwalk; k++)
        if (f->blocks[blocks ? blocks[k] : k]->nins > maxins) maxins = f->blocks[blocks ? blocks[k] : k]->nins;
    w.touched = ws_xcalloc((size_t)(maxins + 1) * 4 + 1, sizeof *w.touched);
    for (int k = 0; k < nwalk; k++) {
        int id = blocks ? blocks[k] : k;
        const wb_block *b = f->blocks[id];
        for (int e = 0; e < b->nedges; e++)
            for (int c = 0; c < b->edges[e].n; c++) {
                int d = (int)b->edges[e].dst[c].v, s = (int)b->edges[e].src[c].v;
                if (!track || track[d]) pair_add_key(&phidef, &K, b->edges[e].succ, d);
                if (wb_is_vreg(b->edges[e].src[c]) && (!track || track[s])) pair_add_key(&esrc, &K, id, s);
            }
        if (!in_order[id]) continue;
        w.ntouched = 0;
        if (b->fixed) {
            walk_fixed(&w, b);
        } else {
            walk_def(&w, &b->term);
            walk_uses(&w, &b->term);
            for (int i = b->nins - 1; i >= 0; i--) {
                walk_def(&w, &b->ins[i]);
                walk_uses(&w, &b->ins[i]);
            }
        }
        for (int k = 0; k < w.ntouched; k++) {
            int v = w.touched[k];
            if (w.mark[v] & 1u) pair_add_key(&gen, &K, id, v);
            if (w.mark[v] & 2u) pair_add_key(&kill, &K, id, v);
            w.mark[v] = 0;
        }
    }
    free(w.mark);
    free(w.touched);

    int *gen_at, *kill_at, *phi_at, *esrc_at;
    int *gen_b = by_vreg(&gen, nkeys, &gen_at), *kill_b = by_vreg(&kill, nkeys, &kill_at);
    int *phi_b = by_vreg(&phidef, nkeys, &phi_at), *esrc_b = by_vreg(&esrc, nkeys, &esrc_at);

    /* predecessors in the layout */
    ws_graph cfg = wb_cfg(f, in_order), preds = ws_graph_reverse(&cfg);
    ws_graph_free(&cfg);

    /* One vreg at a time; the stamps (key + 1) say "for this vreg" without clearing. */
    int *killed = ws_xcalloc((size_t)nb + 1, sizeof *killed), *phi = ws_xcalloc((size_t)nb + 1, sizeof *phi);
    int *is_in = ws_xcalloc((size_t)nb + 1, sizeof *is_in), *is_out = ws_xcalloc((size_t)nb + 1, sizeof *is_out);
    int *work = ws_xcalloc((size_t)nb + 1, sizeof *work);
    pairs in = {0}, out = {0};
    for (int key = 0; key < nkeys; key++) {
        if (gen_at[key] == gen_at[key + 1] && esrc_at[key] == esrc_at[key + 1]) continue;
        int v = K.list ? K.list[key] : key, st = key + 1;
        for (int k = kill_at[key]; k < kill_at[key + 1]; k++) killed[kill_b[k]] = st;
        for (int k = phi_at[key]; k < phi_at[key + 1]; k++) phi[phi_b[k]] = st;
        int nw = 0;
        for (int k = gen_at[key]; k < gen_at[key + 1]; k++) {
            int b = gen_b[k];
            if (is_in[b] == st) continue;
            is_in[b] = st;
            pair_add(&in, b, v);
            work[nw++] = b;
        }
        for (int k = esrc_at[key]; k < esrc_at[key + 1]; k++) {
            int p = esrc_b[k];
            if (!in_order[p] || is_out[p] == st) continue;
            is_out[p] = st;
            pair_add(&out, p, v);
            if (killed[p] != st && is_in[p] != st) {
                is_in[p] = st;
                pair_add(&in, p, v);
                work[nw++] = p;
            }
        }
        while (nw) {
            int b = work[--nw];
            if (phi[b] == st) continue;
            for (int k = preds.at[b]; k < preds.at[b + 1]; k++) {
                int p = preds.to[k];
                if (is_out[p] == st) continue;
                is_out[p] = st;
                pair_add(&out, p, v);
                if (killed[p] != st && is_in[p] != st) {
                    is_in[p] = st;
                    pair_add(&in, p, v);
                    work[nw++] = p;
                }
            }
        }
    }

    wb_live *l = ws_xcalloc(1, sizeof *l);
    l->nblocks = nb;
    l->in = by_block(&in, nb, &l->in_at);
    l->out = by_block(&out, nb, &l->out_at);

    pairs *all[] = {&gen, &kill, &phidef, &esrc, &in, &out};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        free(all[i]->b);
        free(all[i]->v);
    }
    free(gen_at);
    free(gen_b);
    free(kill_at);
    free(kill_b);
    free(phi_at);
    free(phi_b);
    free(esrc_at);
    free(esrc_b);
    ws_graph_free(&preds);
    free(killed);
    free(phi);
    free(is_in);
    free(is_out);
    free(work);
    free(in_order);
    return l;
}

wb_live *wb_liveness(const wb_func *f) { return wb_liveness_in(f, NULL, NULL, 0, NULL, 0); }

int wb_live_has(const int *set, int n, int v)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (set[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && set[lo] == v;
}

void wb_live_free(wb_live *l)
{
    if (!l) return;
    free(l->in_at);
    free(l->out_at);
    free(l->in);
    free(l->out);
    free(l);
}
