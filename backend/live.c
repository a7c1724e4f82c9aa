/* Liveness of virtual registers per block, by the usual backward dataflow. Before
 * phis are lowered, an edge's pending copies act as phis: their destinations are
 * defined on the edge (not live into the successor from above) and their sources
 * are used at the end of the predecessor. */
#include "mir.h"

#include <stdlib.h>
#include <string.h>

static void ins_gen_kill(const wb_ins *in, uint64_t *gen, uint64_t *kill)
{
    /* Walked backwards: a def kills, then the op's uses are exposed above it. */
    if (in->op != WT_OP_NONE && wb_has_dest(in->op) && wb_is_vreg(in->d)) {
        wb_bit_set(kill, (int)in->d.v);
        wb_bit_clear(gen, (int)in->d.v);
    }
    if (in->op == WT_OP_NONE) return;
    for (int k = 0; k < wb_nsrc(in->op); k++)
        if (wb_is_vreg(in->s[k])) wb_bit_set(gen, (int)in->s[k].v);
}

/* A block scheduled by the pipeliner is read clock by clock, not in list order:
 * the operations of one clock read their sources before any of them writes. */
static void fixed_gen_kill(const wb_block *b, uint64_t *gen, uint64_t *kill)
{
    for (int c = b->len - 1; c >= 0; c--) {
        for (int i = -1; i < b->nins; i++) {
            const wb_ins *in = i < 0 ? &b->term : &b->ins[i];
            if (in->op == WT_OP_NONE || in->cycle != c || !wb_has_dest(in->op) || !wb_is_vreg(in->d)) continue;
            wb_bit_set(kill, (int)in->d.v);
            wb_bit_clear(gen, (int)in->d.v);
        }
        for (int i = -1; i < b->nins; i++) {
            const wb_ins *in = i < 0 ? &b->term : &b->ins[i];
            if (in->op == WT_OP_NONE || in->cycle != c) continue;
            for (int k = 0; k < wb_nsrc(in->op); k++)
                if (wb_is_vreg(in->s[k])) wb_bit_set(gen, (int)in->s[k].v);
        }
    }
}

wb_live *wb_liveness(const wb_func *f)
{
    wb_live *l = ws_xcalloc(1, sizeof *l);
    int nb = f->nblocks;
    l->words = (f->nvregs + 63) / 64;
    size_t w = (size_t)l->words;
    l->in = ws_xcalloc((size_t)nb * w, sizeof *l->in);
    l->out = ws_xcalloc((size_t)nb * w, sizeof *l->out);
    uint64_t *gen = ws_xcalloc((size_t)nb * w, sizeof *gen);
    uint64_t *kill = ws_xcalloc((size_t)nb * w, sizeof *kill);
    uint64_t *phidef = ws_xcalloc((size_t)nb * w, sizeof *phidef);
    uint64_t *tmp = ws_xcalloc(w ? w : 1, sizeof *tmp);

    for (int id = 0; id < nb; id++) {
        const wb_block *b = f->blocks[id];
        uint64_t *g = gen + (size_t)id * w, *k = kill + (size_t)id * w;
        if (b->fixed) {
            fixed_gen_kill(b, g, k);
            continue;
        }
        ins_gen_kill(&b->term, g, k);
        for (int i = b->nins - 1; i >= 0; i--) ins_gen_kill(&b->ins[i], g, k);
        for (int e = 0; e < b->nedges; e++)
            for (int c = 0; c < b->edges[e].n; c++)
                wb_bit_set(phidef + (size_t)b->edges[e].succ * w, (int)b->edges[e].dst[c].v);
    }

    for (int changed = 1; changed;) {
        changed = 0;
        for (int oi = f->norder - 1; oi >= 0; oi--) {
            int id = f->order[oi];
            const wb_block *b = f->blocks[id];
            uint64_t *out = l->out + (size_t)id * w, *in = l->in + (size_t)id * w;
            int succ[2], ns = wb_succs(b, succ);
            memset(tmp, 0, w * sizeof *tmp);
            for (int s = 0; s < ns; s++) {
                const uint64_t *sin = l->in + (size_t)succ[s] * w;
                const uint64_t *pd = phidef + (size_t)succ[s] * w;
                for (size_t i = 0; i < w; i++) tmp[i] |= sin[i] & ~pd[i];
            }
            for (int e = 0; e < b->nedges; e++)
                for (int c = 0; c < b->edges[e].n; c++)
                    if (wb_is_vreg(b->edges[e].src[c])) wb_bit_set(tmp, (int)b->edges[e].src[c].v);
            memcpy(out, tmp, w * sizeof *tmp);
            const uint64_t *g = gen + (size_t)id * w, *k = kill + (size_t)id * w;
            for (size_t i = 0; i < w; i++) {
                uint64_t v = g[i] | (out[i] & ~k[i]);
                if (v != in[i]) {
                    in[i] = v;
                    changed = 1;
                }
            }
        }
    }
    free(gen);
    free(kill);
    free(phidef);
    free(tmp);
    return l;
}

void wb_live_free(wb_live *l)
{
    if (!l) return;
    free(l->in);
    free(l->out);
    free(l);
}
