/* Software pipelining: the candidates, natural loops found from the dominator
 * tree. */
#include "swp.h"

#include <stdlib.h>
#include <string.h>

int swp_has_call(const wb_func *f)
{
    for (int id = 0; id < f->nblocks; id++) {
        const wb_block *b = f->blocks[id];
        if (b->term.op == WT_OP_CALL) return 1;
        for (int i = 0; i < b->nins; i++)
            if (b->ins[i].op == WT_OP_CALL) return 1;
    }
    return 0;
}
/* Natural loops: a back edge goes to a block that dominates its source. */
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

/* Immediate dominators of the blocks the entry reaches (Cooper, Harvey and
 * Kennedy's iteration over reverse postorder), then a walk of the dominator tree
 * that numbers each block's subtree: "a dominates b" is then two comparisons. Bit
 * sets of dominators per block cost blocks squared, in time and memory. */
typedef struct domtree {
    int *pre, *post;      /* per block: the subtree of a is pre[a]..post[a]; -1 unreached */
} domtree;

static int dominates(const domtree *d, int a, int b)
{
    return d->pre[a] >= 0 && d->pre[b] >= 0 && d->pre[a] <= d->pre[b] && d->post[b] <= d->post[a];
}

static domtree dominators(const wb_func *f, const uint8_t *reach, const int *pred_at, const int *preds)
{
    int nb = f->nblocks, entry = f->order[0], n = 0;
    int *rpo = ws_xcalloc((size_t)nb + 1, sizeof *rpo), *num = ws_xcalloc((size_t)nb + 1, sizeof *num);
    int *stack = ws_xcalloc((size_t)nb + 1, sizeof *stack), *it = ws_xcalloc((size_t)nb + 1, sizeof *it), sp = 0;
    uint8_t *seen = ws_xcalloc((size_t)nb + 1, 1);
    /* postorder by an explicit stack, then reversed */
    stack[sp++] = entry;
    seen[entry] = 1;
    while (sp) {
        int b = stack[sp - 1], succ[2], ns = wb_succs(f->blocks[b], succ);
        if (it[b] < ns) {
            int s = succ[it[b]++];
            if (!seen[s]) {
                seen[s] = 1;
                stack[sp++] = s;
            }
        } else {
            rpo[n++] = b;
            sp--;
        }
    }
    for (int i = 0; i < n / 2; i++) {
        int t = rpo[i];
        rpo[i] = rpo[n - 1 - i];
        rpo[n - 1 - i] = t;
    }
    for (int b = 0; b < nb; b++) num[b] = -1;
    for (int i = 0; i < n; i++) num[rpo[i]] = i;
    int *idom = ws_xcalloc((size_t)nb + 1, sizeof *idom);
    for (int b = 0; b < nb; b++) idom[b] = -1;
    idom[entry] = entry;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 1; i < n; i++) {
            int b = rpo[i], nd = -1;
            for (int k = pred_at[b]; k < pred_at[b + 1]; k++) {
                int p = preds[k];
                if (!reach[p] || num[p] < 0 || idom[p] < 0) continue;
                if (nd < 0) {
                    nd = p;
                    continue;
                }
                int x = p, y = nd;
                while (x != y) {
                    while (num[x] > num[y]) x = idom[x];
                    while (num[y] > num[x]) y = idom[y];
                }
                nd = x;
            }
            if (nd != idom[b]) {
                idom[b] = nd;
                changed = 1;
            }
        }
    }
    /* the tree's children, and its preorder and postorder numbers */
    int *child_at = ws_xcalloc((size_t)nb + 2, sizeof *child_at), *child = ws_xcalloc((size_t)nb + 1, sizeof *child);
    for (int i = 1; i < n; i++) child_at[idom[rpo[i]] + 1]++;
    for (int b = 0; b < nb; b++) child_at[b + 1] += child_at[b];
    int *fill = ws_xcalloc((size_t)nb + 1, sizeof *fill);
    memcpy(fill, child_at, sizeof *fill * (size_t)nb);
    for (int i = 1; i < n; i++) child[fill[idom[rpo[i]]]++] = rpo[i];
    domtree d = {ws_xcalloc((size_t)nb + 1, sizeof *d.pre), ws_xcalloc((size_t)nb + 1, sizeof *d.post)};
    for (int b = 0; b < nb; b++) d.pre[b] = d.post[b] = -1;
    int clock = 0;
    sp = 0;
    memset(it, 0, sizeof *it * (size_t)nb);
    stack[sp++] = entry;
    d.pre[entry] = clock++;
    while (sp) {
        int b = stack[sp - 1];
        if (child_at[b] + it[b] < child_at[b + 1]) {
            int c = child[child_at[b] + it[b]++];
            d.pre[c] = clock++;
            stack[sp++] = c;
        } else {
            d.post[b] = clock++;
            sp--;
        }
    }
    free(rpo);
    free(num);
    free(stack);
    free(it);
    free(seen);
    free(idom);
    free(child_at);
    free(child);
    free(fill);
    return d;
}

int swp_find_loops(const wb_func *f, nloop **out)
{
    int nb = f->nblocks, nl = 0;
    *out = NULL;
    if (f->norder == 0) return 0;
    uint8_t *reach = swp_reachable_blocks(f);
    /* predecessors among the reached blocks, ascending */
    int *pred_at = ws_xcalloc((size_t)nb + 2, sizeof *pred_at), *preds;
    for (int p = 0; p < nb; p++) {
        int succ[2], n = reach[p] ? wb_succs(f->blocks[p], succ) : 0;
        for (int k = 0; k < n; k++) pred_at[succ[k] + 1]++;
    }
    for (int b = 0; b < nb; b++) pred_at[b + 1] += pred_at[b];
    preds = ws_xcalloc((size_t)pred_at[nb] + 1, sizeof *preds);
    int *fill = ws_xcalloc((size_t)nb + 1, sizeof *fill);
    memcpy(fill, pred_at, sizeof *fill * (size_t)nb);
    for (int p = 0; p < nb; p++) {
        int succ[2], n = reach[p] ? wb_succs(f->blocks[p], succ) : 0;
        for (int k = 0; k < n; k++) preds[fill[succ[k]]++] = p;
    }
    free(fill);
    domtree dom = dominators(f, reach, pred_at, preds);
    int *stack = ws_xcalloc((size_t)nb + 1, sizeof *stack), sp = 0;
    for (int oi = 0; oi < f->norder; oi++) {
        int h = f->order[oi];
        if (!reach[h]) continue;
        nloop L = {h, -1, NULL, 1, nb};
        int latches = 0;
        for (int q = pred_at[h]; q < pred_at[h + 1]; q++) {
            int t = preds[q];
            if (!dominates(&dom, h, t)) continue;
            if (!L.in) L.in = ws_xcalloc((size_t)nb, 1);
            L.in[h] = 1;
            latches++;
            L.latch = t;
            /* everything that reaches t without passing h */
            sp = 0;
            if (!L.in[t]) {
                L.in[t] = 1;
                stack[sp++] = t;
            }
            while (sp) {
                int x = stack[--sp];
                for (int k = pred_at[x]; k < pred_at[x + 1]; k++) {
                    int p = preds[k];
                    if (!L.in[p]) {
                        L.in[p] = 1;
                        stack[sp++] = p;
                    }
                }
            }
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
    free(stack);
    free(pred_at);
    free(preds);
    free(dom.pre);
    free(dom.post);
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
