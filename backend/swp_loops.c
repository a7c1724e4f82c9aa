/* Software pipelining: the candidates, natural loops found from the dominator
 * tree. */
#include "swp.h"

#include <stdlib.h>
#include <string.h>

int swp_has_call(const wb_func *f)
{
    for (int id = 0; id < f->nblocks; id++) {
        const wb_block *b = f->blocks[id];
        if (wb_flow(b->term.op) == WT_FLOW_CALL) return 1;
        for (int i = 0; i < b->nins; i++)
            if (wb_flow(b->ins[i].op) == WT_FLOW_CALL) return 1;
    }
    return 0;
}
/* Which blocks the entry reaches (f->norder > 0): a byte per block. */
uint8_t *swp_reachable_blocks(const wb_func *f)
{
    uint8_t *reach = ws_xcalloc((size_t)f->nblocks, 1);
    int *stack = ws_xcalloc((size_t)f->nblocks + 1, sizeof *stack), sp = 0;
    stack[sp++] = f->order[0];
    reach[f->order[0]] = 1;
    while (sp) {
        int succ[2], b = stack[--sp], n = wb_succs(f->blocks[b], succ);
        for (int k = 0; k < n; k++)
            if (!reach[succ[k]]) {
                reach[succ[k]] = 1;
                stack[sp++] = succ[k];
            }
    }
    free(stack);
    return reach;
}

int swp_find_loops(const wb_func *f, nloop **out)
{
    int nb = f->nblocks, nl = 0;
    *out = NULL;
    if (f->norder == 0) return 0;
    uint8_t *reach = swp_reachable_blocks(f);
    /* the reached blocks' graph; a back edge goes to a block that dominates its source */
    ws_graph cfg = wb_cfg(f, reach), preds = ws_graph_reverse(&cfg);
    ws_domtree dom = ws_domtree_new(&cfg, f->order[0]);
    for (int oi = 0; oi < f->norder; oi++) {
        int h = f->order[oi];
        if (!reach[h]) continue;
        nloop L = {h, -1, NULL, 1, nb};
        int latches = 0;
        for (int q = preds.at[h]; q < preds.at[h + 1]; q++) {
            int t = preds.to[q];
            if (!ws_dominates(&dom, h, t)) continue;
            if (!L.in) L.in = ws_xcalloc((size_t)nb, 1);
            latches++;
            L.latch = t;
            ws_natural_loop(&preds, h, t, L.in);
        }
        if (!L.in) continue;
        if (latches > 1) L.latch = -1;
        *out = ws_xrealloc(*out, sizeof **out * (size_t)(nl + 1));
        (*out)[nl++] = L;
    }
    for (int a = 0; a < nl; a++)
        for (int b = 0; b < nl; b++)
            if (a != b && (*out)[a].in[(*out)[b].header]) (*out)[a].inner = 0;
    free(reach);
    ws_graph_free(&cfg);
    ws_graph_free(&preds);
    ws_domtree_free(&dom);
    return nl;
}

/* The line of a loop's statement: its back branch's (the `for`), else the
 * first known one of its header. */
unsigned swp_nloop_line(const wb_func *f, const nloop *lp)
{
    if (lp->latch >= 0 && f->blocks[lp->latch]->term.line) return f->blocks[lp->latch]->term.line;
    unsigned line = swp_loop_line(f->blocks[lp->header]);
    for (int id = 0; !line && id < f->nblocks; id++)
        if (in_loop(lp, id)) line = swp_loop_line(f->blocks[id]);
    return line;
}
