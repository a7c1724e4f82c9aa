/* The modulo scheduler: iterative modulo scheduling (B. R. Rau, "Iterative modulo
 * scheduling", MICRO-27, 1994) over a graph of its own, so that the tests can
 * hand it graphs and swp.c can hand it loops.
 *
 * A schedule gives every node an issue clock for iteration 0; iteration i issues
 * it II clocks later per iteration. An edge (from, to, lat, dist) requires
 * time[to] + II * dist >= time[from] + lat. The resources of a row of the
 * modulo reservation table (the clocks equal modulo II) are the bundle's slots
 * per unit class, its two literal fields (equal literals share one) and, on
 * iWarp, its gate operations a clock and each gate's internal bus (busy for
 * gate_word_clocks rows from the node that uses it). A non-pipelined
 * operation (issue interval > 1) takes one slot in its row and its whole class in
 * the rows after, as the list scheduler has it (the assembler picks the slot
 * within a class, so the divide's slot cannot be told apart).
 *
 * MII is the larger of ResMII (the busiest class) and RecMII (the tightest
 * cycle: sum of latencies over sum of distances, rounded up). The search starts
 * at MII and gives each II a budget of placements; a node that finds no free row
 * in its window [Estart, Estart + II) is forced in and evicts what it collides
 * with, and what it made late. */
#include "mir.h"

#include <stdlib.h>
#include <string.h>

static int ceil_div(int a, int b) { return (a + b - 1) / b; }

static int op_cost(const wt_model *m, int op)
{
    int ivl = wt_ops[op].interval[m->id];
    return ivl > 1 ? 1 + (ivl - 1) * (int)wt_class_issue(m, wt_ops[op].uclass) : 1;
}

int wb_res_mii(const wb_mgraph *g, const char **bound)
{
    int load[WB_NRES] = {0}, gate_ops = 0;
    /* Operations with one class first, then each flexible one where it costs the
     * least relative to the class's slots. */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < g->n; i++)
            for (int k = 0; k < g->node[i].nops; k++) {
                int op = g->node[i].op[k], alt = g->node[i].alt[k];
                if ((alt != WT_OP_NONE) != pass) continue;
                int iu = g->node[i].iu >> k & 1;
                int c = wb_res(op, iu);
                if (alt != WT_OP_NONE) {
                    int c2 = wb_res(alt, iu);
                    int s1 = wb_res_slots(g->model, c), s2 = wb_res_slots(g->model, c2);
                    if ((load[c2] + op_cost(g->model, alt)) * s1 < (load[c] + op_cost(g->model, op)) * s2) {
                        op = alt;
                        c = c2;
                    }
                }
                load[c] += op_cost(g->model, op);
            }
    for (int i = 0; i < g->n; i++) {
        gate_ops += g->node[i].gate_ops;
        load[WB_RES_LINK] += g->node[i].link;
    }
    int mii = 1;
    *bound = "none";
    for (int c = 1; c < WB_NRES; c++) {
        if (c == WB_RES_IU) continue;
        int need = load[c] ? ceil_div(load[c], wb_res_slots(g->model, c)) : 0;
        if (need > mii || (need == mii && load[c] && !strcmp(*bound, "none"))) {
            mii = need;
            *bound = wt_res_name((unsigned)c);
        }
    }
    unsigned per_clock = g->model->gate_ops_per_clock;
    if (per_clock && ceil_div(gate_ops, (int)per_clock) > mii) {
        mii = ceil_div(gate_ops, (int)per_clock);
        *bound = "gate operations";
    }
    int word_clocks = (int)g->model->gate_word_clocks;
    for (int b = 0; word_clocks && b < 16; b++) {
        int users = 0;
        for (int i = 0; i < g->n; i++) users += g->node[i].gate_buses >> b & 1;
        if (users * word_clocks > mii) {
            mii = users * word_clocks;
            *bound = "gate bus";
        }
    }
    return mii;
}

/* Is there a cycle whose latency exceeds II times its distance? Bellman-Ford for
 * longest paths from a virtual source joined to every node. */
static int positive_cycle(const wb_mgraph *g, int ii, int *len)
{
    for (int i = 0; i < g->n; i++) len[i] = 0;
    for (int round = 0; round <= g->n; round++) {
        int changed = 0;
        for (int e = 0; e < g->ne; e++) {
            const wb_medge *x = &g->edge[e];
            int w = len[x->from] + x->lat - ii * x->dist;
            if (w > len[x->to]) {
                len[x->to] = w;
                changed = 1;
            }
        }
        if (!changed) return 0;
    }
    return 1;
}

int wb_rec_mii(const wb_mgraph *g)
{
    int hi = 1;
    for (int e = 0; e < g->ne; e++) hi += g->edge[e].lat > 0 ? g->edge[e].lat : 0;
    int *len = ws_xcalloc((size_t)g->n + 1, sizeof *len);
    int rec;
    if (positive_cycle(g, hi, len)) {
        rec = -1;   /* a cycle within one iteration: no II can schedule it */
    } else if (!positive_cycle(g, 1, len)) {
        /* Nothing binds beyond one clock; say 1 if there is a recurrence at all
         * (a cycle through a loop-carried edge), 0 if there is none. */
        wb_mgraph unit = *g;
        unit.edge = ws_xcalloc((size_t)g->ne + 1, sizeof *unit.edge);
        for (int e = 0; e < g->ne; e++) unit.edge[e] = (wb_medge){g->edge[e].from, g->edge[e].to, 1, 0};
        rec = positive_cycle(&unit, 0, len) ? 1 : 0;
        free(unit.edge);
    } else {
        int lo = 2;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (positive_cycle(g, mid, len)) lo = mid + 1;
            else hi = mid;
        }
        rec = lo;
    }
    free(len);
    return rec;
}

/* Longest paths under weights lat - rec * dist (Floyd-Warshall; no cycle is
 * positive at RecMII), then the edge u -> v carried to a later iteration that
 * the heaviest path v -> u closes into the cycle with the least slack: the one
 * that sets RecMII (where the ratio is not whole, the nearest). */
int wb_rec_cycle(const wb_mgraph *g, int rec, int *edges, int max)
{
    int n = g->n, found = 0;
    if (rec <= 0 || n <= 0 || max <= 0) return 0;
    const long none = -(1L << 40);
    long *d = ws_xcalloc((size_t)n * (size_t)n, sizeof *d);
    int *first = ws_xcalloc((size_t)n * (size_t)n, sizeof *first);   /* the path's first edge */
    for (int i = 0; i < n * n; i++) d[i] = none;
    for (int i = 0; i < n; i++) d[(size_t)i * (size_t)n + (size_t)i] = 0;
    for (int e = 0; e < g->ne; e++) {
        const wb_medge *x = &g->edge[e];
        size_t at = (size_t)x->from * (size_t)n + (size_t)x->to;
        long w = x->lat - (long)rec * x->dist;
        if (x->from != x->to && w > d[at]) {
            d[at] = w;
            first[at] = e;
        }
    }
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++) {
            long ik = d[(size_t)i * (size_t)n + (size_t)k];
            if (ik == none) continue;
            for (int j = 0; j < n; j++) {
                long kj = d[(size_t)k * (size_t)n + (size_t)j];
                size_t at = (size_t)i * (size_t)n + (size_t)j;
                if (kj != none && ik + kj > d[at] && i != j) {
                    d[at] = ik + kj;
                    first[at] = first[(size_t)i * (size_t)n + (size_t)k];
                }
            }
        }
    int best = -1;
    long best_slack = none;
    for (int e = 0; e < g->ne; e++) {
        const wb_medge *x = &g->edge[e];
        long back = x->from == x->to ? 0 : d[(size_t)x->to * (size_t)n + (size_t)x->from];
        if (x->dist <= 0 || back == none) continue;
        long slack = back + x->lat - (long)rec * x->dist;
        if (slack > best_slack) {
            best_slack = slack;
            best = e;
        }
    }
    if (best >= 0) {
        const wb_medge *x = &g->edge[best];
        edges[found++] = best;
        for (int at = x->to, guard = 0; at != x->from && found < max && guard < n; guard++) {
            int f = first[(size_t)at * (size_t)n + (size_t)x->from];
            edges[found++] = f;
            at = g->edge[f].to;
        }
    }
    free(d);
    free(first);
    return found;
}

/* ---- The reservation table ---------------------------------------------------- */

typedef struct mrt {
    int ii;
    int (*used)[WB_NRES];
    int *gate;
    unsigned *bus;        /* per row: the gate buses (wb_mnode.gate_buses) carrying a word */
    wb_opnd (*lit)[WT_BUNDLE_LITERALS];   /* per row: the literals in its fields, with how many nodes use each */
    int (*litn)[WT_BUNDLE_LITERALS];
    int fixed_left[WB_NRES];   /* slots that operations of one class only, not placed, need */
    int strict;           /* an operation with two classes takes one only where the other
                             operations of that class leave room in the table */
} mrt;

/* Can the row's literal fields hold the node's literals as well? */
static int lits_fit(const mrt *t, const wb_mnode *x, int r)
{
    int used = 0;
    for (int f = 0; f < WT_BUNDLE_LITERALS; f++) used += t->litn[r][f] > 0;
    for (int k = 0; k < x->nlit; k++) {
        int have = 0;
        for (int f = 0; f < WT_BUNDLE_LITERALS; f++) have |= t->litn[r][f] > 0 && wb_lit_eq(t->lit[r][f], x->lit[k]);
        if (!have) used++;
    }
    return used <= WT_BUNDLE_LITERALS;
}

static void lits_take(mrt *t, const wb_mnode *x, int r, int sign)
{
    for (int k = 0; k < x->nlit; k++) {
        int f = -1;
        for (int j = 0; j < WT_BUNDLE_LITERALS && f < 0; j++)
            if (t->litn[r][j] > 0 && wb_lit_eq(t->lit[r][j], x->lit[k])) f = j;
        if (f < 0 && sign > 0) {
            f = 0;
            while (t->litn[r][f] > 0) f++;
            t->lit[r][f] = x->lit[k];
        }
        if (f >= 0) t->litn[r][f] += sign;
    }
}

static void take(const wb_mgraph *g, mrt *t, int op, int iu, int time, int sign)
{
    int c = wb_res(op, iu), r = time % t->ii;
    int ivl = wt_ops[op].interval[g->model->id];
    t->used[r][c] += sign;
    for (int k = 1; k < ivl; k++) t->used[(r + k) % t->ii][c] += sign * wb_res_slots(g->model, c);
}

static int op_fits(const wb_mgraph *g, const mrt *t, int op, int iu, int time)
{
    int c = wb_res(op, iu), r = time % t->ii, slots = wb_res_slots(g->model, c);
    int ivl = wt_ops[op].interval[g->model->id];
    if (ivl > t->ii) return 0;
    if (t->used[r][c] + 1 > slots) return 0;
    for (int k = 1; k < ivl; k++)
        if (t->used[(r + k) % t->ii][c] > 0) return 0;
    return 1;
}

/* Does the table have room for op besides what the operations of its class
 * alone, not placed yet, will take? An add that either the ALU or a memory
 * unit's address adder can do, placed on the memory unit of a row where the
 * ALUs are busy, takes the slot that the last load needs when the memory units
 * are as busy as the ALUs (a body unrolled to fill both). */
static int room_for(const wb_mgraph *g, const mrt *t, int op, int iu)
{
    int c = wb_res(op, iu), used = 0;
    for (int r = 0; r < t->ii; r++) used += t->used[r][c];
    return used + op_cost(g->model, op) + t->fixed_left[c] <= t->ii * wb_res_slots(g->model, c);
}

static void fixed_take(const wb_mgraph *g, mrt *t, const wb_mnode *x, int sign)
{
    for (int k = 0; k < x->nops; k++)
        if (x->alt[k] == WT_OP_NONE) t->fixed_left[wb_res(x->op[k], x->iu >> k & 1)] -= sign * op_cost(g->model, x->op[k]);
}

/* Chooses each operation's machine op so the node fits at `time`; takes the
 * resources and returns 1, or takes nothing and returns 0. */
static int node_place(const wb_mgraph *g, mrt *t, int i, int time, int *mop)
{
    const wb_mnode *x = &g->node[i];
    unsigned per_clock = g->model->gate_ops_per_clock;
    int r = time % t->ii;
    if (per_clock && x->gate_ops && t->gate[r] > 0 && t->gate[r] + x->gate_ops > (int)per_clock) return 0;
    int word_clocks = (int)g->model->gate_word_clocks;
    if (word_clocks && x->gate_buses) {
        if (word_clocks > t->ii) return 0;
        for (int k = 0; k < word_clocks; k++)
            if (t->bus[(r + k) % t->ii] & x->gate_buses) return 0;
    }
    if (x->nlit && !lits_fit(t, x, r)) return 0;
    if (x->link && t->used[r][WB_RES_LINK] + x->link > wb_res_slots(g->model, WB_RES_LINK)) return 0;
    int k;
    for (k = 0; k < x->nops; k++) {
        int iu = x->iu >> k & 1;
        int two = x->alt[k] != WT_OP_NONE && t->strict;
        if (op_fits(g, t, x->op[k], iu, time) && (!two || room_for(g, t, x->op[k], iu))) mop[k] = x->op[k];
        else if (x->alt[k] != WT_OP_NONE && op_fits(g, t, x->alt[k], iu, time) && (!two || room_for(g, t, x->alt[k], iu)))
            mop[k] = x->alt[k];
        else break;
        take(g, t, mop[k], iu, time, +1);
    }
    if (k < x->nops) {
        while (k-- > 0) take(g, t, mop[k], x->iu >> k & 1, time, -1);
        return 0;
    }
    t->used[r][WB_RES_LINK] += x->link;
    t->gate[r] += x->gate_ops;
    for (int k = 0; k < word_clocks && x->gate_buses; k++) t->bus[(r + k) % t->ii] |= x->gate_buses;
    lits_take(t, x, r, +1);
    fixed_take(g, t, x, +1);
    return 1;
}

/* The longest issue interval among the node's operations: the clocks it holds
 * its unit. */
static int node_interval(const wb_mgraph *g, int i)
{
    int k = 1;
    for (int j = 0; j < g->node[i].nops; j++) {
        int ivl = (int)wt_ops[g->node[i].op[j]].interval[g->model->id];
        if (ivl > k) k = ivl;
    }
    return k;
}

static void node_remove(const wb_mgraph *g, mrt *t, int i, int time, const int *mop)
{
    for (int k = 0; k < g->node[i].nops; k++) take(g, t, mop[k], g->node[i].iu >> k & 1, time, -1);
    t->used[time % t->ii][WB_RES_LINK] -= g->node[i].link;
    t->gate[time % t->ii] -= g->node[i].gate_ops;
    for (int k = 0; k < (int)g->model->gate_word_clocks && g->node[i].gate_buses; k++)
        t->bus[(time + k) % t->ii] &= ~g->node[i].gate_buses;
    lits_take(t, &g->node[i], time % t->ii, -1);
    fixed_take(g, t, &g->node[i], -1);
}

/* Does node j, at its time, hold a resource that node i needs in the rows it
 * would occupy at `time`? */
static int collides(const wb_mgraph *g, int ii, int i, int time, int j, int jtime, const int *jmop)
{
    const wb_mnode *x = &g->node[i], *y = &g->node[j];
    if (g->model->gate_ops_per_clock && x->gate_ops && y->gate_ops && time % ii == jtime % ii) return 1;
    if (x->nlit && y->nlit && time % ii == jtime % ii) return 1;
    if (x->link && y->link && time % ii == jtime % ii) return 1;
    int word_clocks = (int)g->model->gate_word_clocks;
    if (word_clocks && (x->gate_buses & y->gate_buses))
        for (int p = 0; p < word_clocks; p++)
            for (int q = 0; q < word_clocks; q++)
                if ((time + p) % ii == (jtime + q) % ii) return 1;
    for (int a = 0; a < x->nops; a++) {
        int rows_a = wt_ops[x->op[a]].interval[g->model->id];
        for (int b = 0; b < y->nops; b++) {
            if ((x->iu >> a & 1) != (y->iu >> b & 1)) continue;   /* the IU's units are not the cells' */
            int cx = wt_ops[x->op[a]].uclass, cx2 = x->alt[a] ? (int)wt_ops[x->alt[a]].uclass : -1;
            int cy = wt_ops[jmop[b]].uclass;
            if (cy != cx && cy != cx2) continue;
            int rows_b = wt_ops[jmop[b]].interval[g->model->id];
            for (int p = 0; p < rows_a; p++)
                for (int q = 0; q < rows_b; q++)
                    if ((time + p) % ii == (jtime + q) % ii) return 1;
        }
    }
    return 0;
}

static int try_ii(const wb_mgraph *g, int ii, wb_msched *out, const char **why)
{
    int n = g->n;
    int *height = ws_xcalloc((size_t)n + 1, sizeof *height);
    int *order = ws_xcalloc((size_t)n + 1, sizeof *order);
    int *prev = ws_xcalloc((size_t)n + 1, sizeof *prev);
    mrt t = {ii, ws_xcalloc((size_t)ii, sizeof *t.used), ws_xcalloc((size_t)ii, sizeof *t.gate),
             ws_xcalloc((size_t)ii, sizeof *t.bus), ws_xcalloc((size_t)ii, sizeof *t.lit),
             ws_xcalloc((size_t)ii, sizeof *t.litn), {0}, 0};
    for (int i = 0; i < n; i++) fixed_take(g, &t, &g->node[i], -1);
    /* Height: the longest path to any node's end, under this II. */
    for (int round = 0; round <= n; round++) {
        int changed = 0;
        for (int e = 0; e < g->ne; e++) {
            const wb_medge *x = &g->edge[e];
            int h = height[x->to] + x->lat - ii * x->dist;
            if (h > height[x->from]) {
                height[x->from] = h;
                changed = 1;
            }
        }
        if (!changed) break;
    }
    for (int i = 0; i < n; i++) {
        order[i] = i;
        out->time[i] = -1;
        prev[i] = -1;
    }
    for (int i = 1; i < n; i++) {   /* stable insertion sort: height down, index up */
        int v = order[i], j = i;
        while (j > 0 && height[order[j - 1]] < height[v]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    int horizon = 1;
    for (int e = 0; e < g->ne; e++) horizon += g->edge[e].lat > 0 ? g->edge[e].lat : 0;
    horizon += n * ii;
    /* Clocks count from `base`, so that a node placed before its placed readers
     * never needs a negative one; the schedule is shifted back to 0 at the end. */
    int base = horizon;
    horizon += base;
    int budget = 8 * n + 16, left = n, ok = 1;
    *why = NULL;
    while (left > 0) {
        if (budget-- <= 0) {
            *why = "the placement budget ran out (resources and recurrences collide)";
            ok = 0;
            break;
        }
        int i = -1;
        for (int k = 0; k < n && i < 0; k++)
            if (out->time[order[k]] < 0) i = order[k];
        /* As soon as its placed predecessors allow; with only successors placed,
         * as late as they allow (so that no value waits long in a register). */
        int estart = base, lstart = -1, preds = 0, succs = 0;
        for (int e = 0; e < g->ne; e++) {
            const wb_medge *x = &g->edge[e];
            if (x->from == x->to) continue;
            if (x->to == i && out->time[x->from] >= 0) {
                int s = out->time[x->from] + x->lat - ii * x->dist;
                if (s > estart) estart = s;
                preds = 1;
            }
            if (x->from == i && out->time[x->to] >= 0) {
                int s = out->time[x->to] + ii * x->dist - x->lat;
                if (!succs || s < lstart) lstart = s;
                succs = 1;
            }
        }
        int at = -1;
        /* An operation that holds its unit for k clocks (iWarp's float units
         * take one every second clock) tries the clocks that are multiples of k
         * first, when II is: the table's rows then tile with no gap of one
         * clock that nothing can use (nine products at II=18 fit only so). */
        int align = node_interval(g, i);
        if (align < 2 || ii % align) align = 1;
        /* first where each operation leaves room for the others of its class */
        for (int pass = align > 1 ? 0 : 1, strict = 1; pass < 2 && at < 0; pass += !strict, strict = !strict) {
            t.strict = strict;
            int step = pass ? 1 : align;
            if (succs && !preds && lstart >= 0) {
                for (int c = lstart; c > lstart - ii && c >= 0 && at < 0; c--)
                    if ((step == 1 || c % step == 0) && node_place(g, &t, i, c, out->mop[i])) at = c;
            } else {
                int end = estart + ii;
                if (succs && lstart + 1 < end) end = lstart + 1;
                for (int c = estart; c < end && at < 0; c++)
                    if ((step == 1 || c % step == 0) && node_place(g, &t, i, c, out->mop[i])) at = c;
            }
        }
        t.strict = 0;
        if (at < 0 && succs && !preds && lstart >= 0 && lstart - ii + 1 > 0)
            estart = lstart - ii + 1 > estart ? estart : lstart - ii + 1;
        if (at < 0) {
            at = prev[i] < 0 || estart > prev[i] ? estart : prev[i] + 1;
            if (at > horizon) {
                *why = "nodes kept moving later (no row fits)";
                ok = 0;
                break;
            }
            for (int j = 0; j < n; j++) {
                if (j == i || out->time[j] < 0 || !collides(g, ii, i, at, j, out->time[j], out->mop[j])) continue;
                node_remove(g, &t, j, out->time[j], out->mop[j]);
                out->time[j] = -1;
                left++;
            }
            if (!node_place(g, &t, i, at, out->mop[i])) {
                *why = "an operation does not fit in any row";
                ok = 0;
                break;
            }
        }
        out->time[i] = at;
        prev[i] = at;
        left--;
        for (int e = 0; e < g->ne; e++) {
            const wb_medge *x = &g->edge[e];
            int j = x->to;
            if (x->from != i || j == i || out->time[j] < 0) continue;
            if (out->time[j] + ii * x->dist < at + x->lat) {
                node_remove(g, &t, j, out->time[j], out->mop[j]);
                out->time[j] = -1;
                left++;
            }
        }
    }
    if (ok) {
        /* Placement is as early as it can be; a node whose readers all come
         * later moves to the latest clock it can take in the table, so that its
         * value holds a register as short a time as it can (from the latest node
         * back, until nothing moves). A node that writes no register stays: a
         * send moved later (its only successors the next iteration's sends, a
         * cycle that may drift any distance) keeps what it sends in registers. */
        int *mop = ws_xcalloc(WB_MNODE_OPS, sizeof *mop);
        for (int changed = 1, rounds = 0; changed && rounds < n + 1; rounds++) {
            changed = 0;
            for (int k = n - 1; k >= 0; k--) {
                int i = order[k], latest = -1, has_out = 0;
                if (g->node[i].no_value) continue;
                for (int e = 0; e < g->ne; e++) {
                    const wb_medge *x = &g->edge[e];
                    if (x->from != i || x->to == i) continue;
                    int s = out->time[x->to] + ii * x->dist - x->lat;
                    if (!has_out || s < latest) latest = s;
                    has_out = 1;
                }
                if (!has_out || latest <= out->time[i]) continue;
                node_remove(g, &t, i, out->time[i], out->mop[i]);
                int at = out->time[i];
                for (int c = latest; c > out->time[i]; c--)
                    if (node_place(g, &t, i, c, mop)) {
                        at = c;
                        memcpy(out->mop[i], mop, sizeof *mop * WB_MNODE_OPS);
                        break;
                    }
                if (at == out->time[i]) {
                    node_place(g, &t, i, at, mop);
                    memcpy(out->mop[i], mop, sizeof *mop * WB_MNODE_OPS);
                } else {
                    out->time[i] = at;
                    changed = 1;
                }
            }
        }
        free(mop);
        int lo = out->time[0];
        for (int i = 0; i < n; i++) lo = out->time[i] < lo ? out->time[i] : lo;
        int hi = 0;
        for (int i = 0; i < n; i++) {
            out->time[i] -= lo - (lo % ii);   /* keep the rows: shift by whole IIs */
            hi = out->time[i] > hi ? out->time[i] : hi;
        }
        out->stages = hi / ii + 1;
    }
    free(height);
    free(order);
    free(prev);
    free(t.used);
    free(t.gate);
    free(t.bus);
    free(t.lit);
    free(t.litn);
    return ok;
}

int wb_modulo_schedule(const wb_mgraph *g, int max_ii, wb_msched *out)
{
    return wb_modulo_schedule_from(g, 0, max_ii, out);
}

int wb_modulo_schedule_from(const wb_mgraph *g, int min_ii, int max_ii, wb_msched *out)
{
    memset(out, 0, sizeof *out);
    out->time = ws_xcalloc((size_t)g->n + 1, sizeof *out->time);
    out->mop = ws_xcalloc((size_t)g->n + 1, sizeof *out->mop);
    out->res_mii = wb_res_mii(g, &out->res_bound);
    out->rec_mii = wb_rec_mii(g);
    if (out->rec_mii < 0) {
        ws_buf_printf(&out->tried, "a dependence cycle has distance 0: it cannot be scheduled\n");
        return -1;
    }
    out->mii = out->res_mii > out->rec_mii ? out->res_mii : out->rec_mii;
    for (int ii = out->mii > min_ii ? out->mii : min_ii; ii <= max_ii; ii++) {
        const char *why;
        if (try_ii(g, ii, out, &why)) {
            out->ii = ii;
            return 0;
        }
        ws_buf_printf(&out->tried, "II=%d failed: %s\n", ii, why);
    }
    return -1;
}

void wb_msched_free(wb_msched *s)
{
    free(s->time);
    free(s->mop);
    ws_buf_free(&s->tried);
    memset(s, 0, sizeof *s);
}
