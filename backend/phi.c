/* Phi lowering: the copies pending on each edge become operations.
 *
 * They go at the end of the predecessor when that cannot disturb its other
 * successor (none of the phis' registers live into it or read by its other edge,
 * and the branch condition is not one of them): a rotated loop's back edge then
 * costs no extra jump. Otherwise the edge is split with a block of its own. A set
 * of copies is parallel (a phi may read another phi of the same block), so it is
 * ordered, with a temporary where copies form a cycle. */
#include "mir.h"

#include <stdlib.h>
#include <string.h>

static void emit_copy(wb_func *f, int block, wb_opnd d, wb_opnd s)
{
    wb_ins in = {.op = WB_COPY, .d = d, .s = {s}, .target = -1};
    wb_append(f, block, &in);
}

static void emit_parallel_copy(wb_func *f, int block, const wb_edge *e)
{
    int n = 0;
    wb_opnd *dst = ws_xcalloc((size_t)e->n + 1, sizeof *dst), *src = ws_xcalloc((size_t)e->n + 1, sizeof *src);
    for (int i = 0; i < e->n; i++) {
        if (wb_opnd_eq(e->dst[i], e->src[i])) continue;
        dst[n] = e->dst[i];
        src[n++] = e->src[i];
    }
    while (n > 0) {
        int pick = -1;
        for (int i = 0; i < n && pick < 0; i++) {
            int read = 0;
            for (int j = 0; j < n && !read; j++) read = j != i && wb_opnd_eq(src[j], dst[i]);
            if (!read) pick = i;
        }
        if (pick < 0) {
            /* Only cycles are left: save one destination's old value first. */
            wb_opnd t = wb_vreg(wb_new_vreg(f, 0));
            emit_copy(f, block, t, dst[0]);
            for (int j = 0; j < n; j++)
                if (wb_opnd_eq(src[j], dst[0])) src[j] = t;
            continue;
        }
        emit_copy(f, block, dst[pick], src[pick]);
        dst[pick] = dst[n - 1];
        src[pick] = src[n - 1];
        n--;
    }
    free(dst);
    free(src);
}

static int can_copy_in_pred(const wb_func *f, const wb_live *live, const wb_block *b, const wb_edge *e)
{
    int succ[2], ns = wb_succs(b, succ), effective = 0;
    for (int i = 0; i < e->n; i++) effective |= !wb_opnd_eq(e->dst[i], e->src[i]);
    if (ns < 2 || !effective) return 1;
    int other = succ[0] == e->succ ? succ[1] : succ[0];
    int nin;
    const int *in = wb_live_in(live, other, &nin);
    (void)f;
    for (int i = 0; i < e->n; i++) {
        int d = (int)e->dst[i].v;
        if (wb_live_has(in, nin, d)) return 0;
        if (wb_is_vreg(b->term.s[0]) && (int)b->term.s[0].v == d) return 0;
        for (int k = 0; k < b->nedges; k++) {
            const wb_edge *o = &b->edges[k];
            if (o == e) continue;
            for (int j = 0; j < o->n; j++)
                if (wb_opnd_eq(o->src[j], e->dst[i])) return 0;
        }
    }
    return 1;
}

void wb_lower_phis(wb_func *f)
{
    wb_live *live = wb_liveness(f);
    int nblocks = f->nblocks;
    for (int id = 0; id < nblocks; id++) {
        wb_block *b = f->blocks[id];
        /* Decide every edge of the block before placing any copy. */
        int *in_pred = ws_xcalloc((size_t)b->nedges + 1, sizeof *in_pred);
        for (int k = 0; k < b->nedges; k++) in_pred[k] = can_copy_in_pred(f, live, b, &b->edges[k]);
        for (int k = 0; k < b->nedges; k++) {
            const wb_edge *e = &b->edges[k];
            if (in_pred[k]) {
                emit_parallel_copy(f, id, e);
                continue;
            }
            int nb = wb_new_block(f);
            wb_place_block(f, nb);
            b = f->blocks[id];
            emit_parallel_copy(f, nb, e);
            f->blocks[nb]->fall = e->succ;
            f->blocks[nb]->divergent = b->divergent || f->blocks[e->succ]->divergent;
            if (wb_branches(b->term.op) && b->term.target == e->succ)
                b->term.target = nb;
            else
                b->fall = nb;
        }
        free(in_pred);
        b->edges = NULL;
        b->nedges = 0;
    }
    wb_live_free(live);
}
