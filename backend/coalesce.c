/* Copy coalescing: a copy whose source and destination never hold different live
 * values at once (in program order) is removed by giving both one virtual
 * register. This is what turns a loop's phi copies (`i <- i.next`) into an update
 * in place. The scheduler keeps the reads and writes of one virtual register in
 * order (write-after-read and write-after-write edges), so the merged register
 * stays correct whatever order the bundles take.
 *
 * The interference test is the classic one: at each definition, the defined
 * register interferes with everything live after it, except a copy's source. */
#include "mir.h"

#include <stdlib.h>
#include <string.h>

/* A bit matrix over virtual registers; above this many, coalescing is skipped (it
 * only saves copies, and the matrix grows with the square). */
enum { MAX_VREGS = 8192 };

static int find(int *parent, int v)
{
    while (parent[v] != v) {
        parent[v] = parent[parent[v]];
        v = parent[v];
    }
    return v;
}

/* One step of the backward walk: the op's definition interferes with what is live
 * after it; then its sources are live before it. */
static void interfere(const wb_ins *in, uint64_t *live, uint64_t *adj, size_t w)
{
    if (in->op == WT_OP_NONE) return;
    if (wb_has_dest(in->op) && wb_is_vreg(in->d)) {
        int d = (int)in->d.v;
        int skip = in->op == WB_COPY && wb_is_vreg(in->s[0]) ? (int)in->s[0].v : -1;
        for (size_t k = 0; k < w; k++) {
            uint64_t bits = live[k];
            while (bits) {
                int v = (int)(k * 64) + __builtin_ctzll(bits);
                bits &= bits - 1;
                if (v == d || v == skip) continue;
                wb_bit_set(adj + (size_t)d * w, v);
                wb_bit_set(adj + (size_t)v * w, d);
            }
        }
        wb_bit_clear(live, d);
    }
    for (int k = 0; k < wb_nsrc(in->op); k++)
        if (wb_is_vreg(in->s[k])) wb_bit_set(live, (int)in->s[k].v);
}

void wb_coalesce(wb_func *f)
{
    int n = f->nvregs;
    if (n > MAX_VREGS) return;
    size_t w = (size_t)(n + 63) / 64;
    uint64_t *adj = ws_xcalloc((size_t)n * w, sizeof *adj);
    uint64_t *live = ws_xcalloc(w, sizeof *live);
    wb_live *l = wb_liveness(f);

    for (int id = 0; id < f->nblocks; id++) {
        const wb_block *b = f->blocks[id];
        int nout;
        const int *out = wb_live_out(l, id, &nout);
        memset(live, 0, w * sizeof *live);
        for (int k = 0; k < nout; k++) wb_bit_set(live, out[k]);
        interfere(&b->term, live, adj, w);
        for (int i = b->nins - 1; i >= 0; i--) interfere(&b->ins[i], live, adj, w);
    }
    wb_live_free(l);

    int *parent = ws_xcalloc((size_t)n, sizeof *parent);
    for (int v = 0; v < n; v++) parent[v] = v;
    for (int oi = 0; oi < f->norder; oi++) {
        const wb_block *b = f->blocks[f->order[oi]];
        for (int i = 0; i < b->nins; i++) {
            const wb_ins *in = &b->ins[i];
            if (in->op != WB_COPY || !wb_is_vreg(in->d) || !wb_is_vreg(in->s[0])) continue;
            int a = find(parent, (int)in->d.v), c = find(parent, (int)in->s[0].v);
            if (a == c || wb_bit(adj + (size_t)a * w, c)) continue;
            if ((f->vflags[a] | f->vflags[c]) & WB_V_SPILLTEMP) continue;
            parent[c] = a;
            uint64_t *ra = adj + (size_t)a * w, *rc = adj + (size_t)c * w;
            for (size_t k = 0; k < w; k++) {
                uint64_t bits = rc[k];
                ra[k] |= bits;
                while (bits) {
                    int x = (int)(k * 64) + __builtin_ctzll(bits);
                    bits &= bits - 1;
                    wb_bit_set(adj + (size_t)x * w, a);
                }
            }
        }
    }

    for (int id = 0; id < f->nblocks; id++) {
        wb_block *b = f->blocks[id];
        for (int i = -1; i < b->nins; i++) {
            wb_ins *in = i < 0 ? &b->term : &b->ins[i];
            if (in->op == WT_OP_NONE) continue;
            if (wb_has_dest(in->op) && wb_is_vreg(in->d)) in->d.v = (uint32_t)find(parent, (int)in->d.v);
            for (int k = 0; k < wb_nsrc(in->op); k++)
                if (wb_is_vreg(in->s[k])) in->s[k].v = (uint32_t)find(parent, (int)in->s[k].v);
        }
        int m = 0;
        for (int i = 0; i < b->nins; i++) {
            const wb_ins *in = &b->ins[i];
            /* A gate is two queues under one operand code: 'mv @xr, @xr' takes a
             * word from the right and returns it, so it is no self-copy. */
            int gate = in->s[0].kind == WB_O_REG && wt_opnd_is_gate(in->s[0].v);
            if (in->op == WB_COPY && !gate && wb_opnd_eq(in->d, in->s[0])) {
                wb_chain_dbg(f, m ? &b->ins[m - 1].dbg : &b->dbg_entry, in->dbg);
                continue;
            }
            b->ins[m++] = *in;
        }
        b->nins = m;
    }
    free(parent);
    free(adj);
    free(live);
}
