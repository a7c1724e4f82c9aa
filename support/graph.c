/* Control-flow graphs: the textbook algorithms once, for the three stages that walk
 * one (instruction selection over LLVM's blocks, the pipeliner over machine IR
 * blocks, flow control over decoded bundles). Each builds a ws_graph of its own
 * nodes and reads the answers back by node number. */
#include "warp_support.h"

#include <stdlib.h>
#include <string.h>

ws_graph ws_graph_new(int n, const int *from, const int *to, int nedges)
{
    ws_graph g = {n, ws_xcalloc((size_t)n + 2, sizeof *g.at), ws_xcalloc((size_t)nedges + 1, sizeof *g.to)};
    for (int k = 0; k < nedges; k++) g.at[from[k] + 1]++;
    for (int v = 0; v < n; v++) g.at[v + 1] += g.at[v];
    int *fill = ws_xcalloc((size_t)n + 1, sizeof *fill);
    memcpy(fill, g.at, sizeof *fill * (size_t)n);
    for (int k = 0; k < nedges; k++) g.to[fill[from[k]]++] = to[k];
    free(fill);
    return g;
}

ws_graph ws_graph_reverse(const ws_graph *g)
{
    int m = g->at[g->n];
    int *from = ws_xcalloc((size_t)m + 1, sizeof *from), *to = ws_xcalloc((size_t)m + 1, sizeof *to);
    for (int v = 0; v < g->n; v++)
        for (int k = g->at[v]; k < g->at[v + 1]; k++) {
            from[k] = g->to[k];
            to[k] = v;
        }
    ws_graph r = ws_graph_new(g->n, from, to, m);
    free(from);
    free(to);
    return r;
}

void ws_graph_free(ws_graph *g)
{
    free(g->at);
    free(g->to);
    g->at = g->to = NULL;
}

int ws_graph_rpo(const ws_graph *g, int entry, int *order)
{
    /* Depth first by an explicit stack (a long function must not overflow the C
     * stack), a node's successors from its last: its first comes first in the
     * reverse postorder. */
    uint8_t *seen = ws_xcalloc((size_t)g->n + 1, 1);
    int *stack = ws_xcalloc((size_t)g->n + 1, sizeof *stack), *next = ws_xcalloc((size_t)g->n + 1, sizeof *next);
    int sp = 0, np = 0;
    stack[sp++] = entry;
    seen[entry] = 1;
    next[entry] = g->at[entry + 1] - 1;
    while (sp) {
        int v = stack[sp - 1];
        if (next[v] >= g->at[v]) {
            int w = g->to[next[v]--];
            if (!seen[w]) {
                seen[w] = 1;
                next[w] = g->at[w + 1] - 1;
                stack[sp++] = w;
            }
        } else {
            order[np++] = v;
            sp--;
        }
    }
    for (int i = 0; i < np / 2; i++) {
        int t = order[i];
        order[i] = order[np - 1 - i];
        order[np - 1 - i] = t;
    }
    free(seen);
    free(stack);
    free(next);
    return np;
}

void ws_graph_idom(const ws_graph *g, int entry, int *idom)
{
    /* Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm": iterate over
     * reverse postorder, intersecting the processed predecessors' dominator chains
     * by their postorder numbers, until nothing changes. */
    ws_graph preds = ws_graph_reverse(g);
    int *rpo = ws_xcalloc((size_t)g->n + 1, sizeof *rpo), *num = ws_xcalloc((size_t)g->n + 1, sizeof *num);
    int n = ws_graph_rpo(g, entry, rpo);
    for (int v = 0; v < g->n; v++) {
        idom[v] = -1;
        num[v] = -1;
    }
    for (int i = 0; i < n; i++) num[rpo[i]] = i;
    idom[entry] = entry;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 1; i < n; i++) {
            int v = rpo[i], nd = -1;
            for (int k = preds.at[v]; k < preds.at[v + 1]; k++) {
                int p = preds.to[k];
                if (num[p] < 0 || idom[p] < 0) continue;
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
            if (nd != idom[v]) {
                idom[v] = nd;
                changed = 1;
            }
        }
    }
    ws_graph_free(&preds);
    free(rpo);
    free(num);
}

ws_domtree ws_domtree_new(const ws_graph *g, int entry)
{
    int nb = g->n;
    int *idom = ws_xcalloc((size_t)nb + 1, sizeof *idom);
    ws_graph_idom(g, entry, idom);
    /* the tree's children, then its preorder and postorder numbers by one walk */
    int *from = ws_xcalloc((size_t)nb + 1, sizeof *from), *to = ws_xcalloc((size_t)nb + 1, sizeof *to), m = 0;
    for (int v = 0; v < nb; v++)
        if (idom[v] >= 0 && v != entry) {
            from[m] = idom[v];
            to[m++] = v;
        }
    ws_graph tree = ws_graph_new(nb, from, to, m);
    ws_domtree d = {ws_xcalloc((size_t)nb + 1, sizeof *d.pre), ws_xcalloc((size_t)nb + 1, sizeof *d.post)};
    for (int v = 0; v < nb; v++) d.pre[v] = d.post[v] = -1;
    int *stack = ws_xcalloc((size_t)nb + 1, sizeof *stack), *it = ws_xcalloc((size_t)nb + 1, sizeof *it);
    int clock = 0, sp = 0;
    stack[sp++] = entry;
    d.pre[entry] = clock++;
    while (sp) {
        int v = stack[sp - 1];
        if (tree.at[v] + it[v] < tree.at[v + 1]) {
            int c = tree.to[tree.at[v] + it[v]++];
            d.pre[c] = clock++;
            stack[sp++] = c;
        } else {
            d.post[v] = clock++;
            sp--;
        }
    }
    ws_graph_free(&tree);
    free(idom);
    free(from);
    free(to);
    free(stack);
    free(it);
    return d;
}

int ws_dominates(const ws_domtree *d, int a, int b)
{
    return d->pre[a] >= 0 && d->pre[b] >= 0 && d->pre[a] <= d->pre[b] && d->post[b] <= d->post[a];
}

void ws_domtree_free(ws_domtree *d)
{
    free(d->pre);
    free(d->post);
    d->pre = d->post = NULL;
}

void ws_natural_loop(const ws_graph *preds, int header, int tail, uint8_t *in)
{
    int *stack = ws_xcalloc((size_t)preds->n + 1, sizeof *stack), sp = 0;
    in[header] = 1;
    if (!in[tail]) {
        in[tail] = 1;
        stack[sp++] = tail;
    }
    while (sp) {
        int x = stack[--sp];
        for (int k = preds->at[x]; k < preds->at[x + 1]; k++)
            if (!in[preds->to[k]]) {
                in[preds->to[k]] = 1;
                stack[sp++] = preds->to[k];
            }
    }
    free(stack);
}
