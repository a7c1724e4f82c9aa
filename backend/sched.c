/* Bundling: list scheduling of each block into long instruction words.
 *
 * An edge i -> j with distance d means issue(j) >= issue(i) + d. The edges:
 *   - a value's use issues no earlier than its definition's latency (exposed
 *     pipelines: nothing interlocks), a redefinition no earlier than the reads of
 *     the old value, and completes after the previous definition;
 *   - memory: a store writes at the end of its issue clock, a load reads at issue;
 *     accesses that may touch the same object stay in order;
 *   - gates (what keeps the array deadlock-free in blocking mode): gate operations
 *     keep program order; a receive issues strictly after any earlier send (host
 *     feed and address writes included); writes to one queue complete in order;
 *     a host feed completes before the next read of its queue; a queue is read once
 *     a bundle (two reads of it are two words);
 *   - the terminator issues when everything else of the block has completed or
 *     completes with it, so that no write lands in the next block's time.
 * Resources per bundle: the unit classes' slots a clock (wt_class_issue), at most two
 * distinct literals (IMM0, IMM1), one branch (the BR class has one slot); a
 * non-pipelined operation (issue interval > 1) keeps its class busy; on iWarp, no
 * more gate operations than the model's gate_ops_per_clock (as target/ counts
 * them: host-feed and host-address writes are not gate operations), and a gate
 * moves a word every gate_word_clocks (its internal bus). The assembler
 * picks the slot within a class, so after the divide's bundle the whole class
 * waits: whichever slot the divide landed in stays free of new work.
 * Priority: longest latency path to the block's end, then program order; but when
 * the values live at once reach the limit, operations that do not add one go first,
 * and if none is left only the oldest in program order may add one (the allocator
 * works on this schedule, so it cannot undo a crowded one). An operation whose value
 * is not wanted for more than FAR_SLACK clocks only fills bundles nothing nearer
 * can use. */
#include "mir.h"

#include <stdlib.h>
#include <string.h>

typedef struct node {
    wb_ins *in;
    int lat, ivl;
    unsigned reads;       /* input gates read, bit q */
    int wgate;            /* output, feed or address gate written, -1 none */
    int mem;              /* 0 none, 1 load, 2 store (data memory) */
    int npred, ready, height, done;
    int *succ, *dist;
    int nsucc;
    int gfirst, gnext;    /* its bundle group: the first member, the next one (-1: none) */
} node;

static void analyse(const wb_func *f, node *n, wb_ins *in)
{
    memset(n, 0, sizeof *n);
    n->in = in;
    n->lat = wb_latency(f, in->op);
    n->ivl = wb_interval(f, in->op);
    n->wgate = -1;
    for (int k = 0; k < wb_nsrc(in->op); k++)
        if (in->s[k].kind == WB_O_REG && wt_opnd_is_gate(in->s[k].v)) n->reads |= 1u << (in->s[k].v - WT_OPND_GATE);
    if (wb_has_dest(in->op) && in->d.kind == WB_O_REG &&
        (wt_opnd_is_gate(in->d.v) || wt_opnd_is_feed(in->d.v) || wt_opnd_is_addr(in->d.v)))
        n->wgate = (int)in->d.v;
    if (in->op == WT_OP_LD) n->mem = 1;
    if (in->op == WT_OP_ST) n->mem = 2;
}

static int max(int a, int b) { return a > b ? a : b; }

static int reads_vreg(const wb_ins *in, wb_opnd v)
{
    for (int k = 0; k < wb_nsrc(in->op); k++)
        if (wb_is_vreg(in->s[k]) && in->s[k].v == v.v) return 1;
    return 0;
}

/* The distance i -> j for i before j in program order; -1 if independent. */
static int distance(const node *a, const node *b, int b_is_term)
{
    const wb_ins *i = a->in, *j = b->in;
    int d = -1;
    /* users of one received word issue together (gates.c made sure they can) */
    if (i->bundle_with && i->bundle_with == j->bundle_with) return -1;
    int idef = wb_has_dest(i->op) && wb_is_vreg(i->d), jdef = wb_has_dest(j->op) && wb_is_vreg(j->d);
    if (idef && reads_vreg(j, i->d)) d = max(d, a->lat);
    if (jdef && reads_vreg(i, j->d)) d = max(d, 0);
    if (idef && jdef && i->d.v == j->d.v) d = max(d, max(1, a->lat - b->lat + 1));

    if (a->mem && b->mem && (i->memobj == 0 || j->memobj == 0 || i->memobj == j->memobj)) {
        if (a->mem == 2 && b->mem == 1) d = max(d, a->lat);
        else if (a->mem == 2 && b->mem == 2) d = max(d, 1);
        else if (a->mem == 1 && b->mem == 2) d = max(d, 0);
    }

    int ia = a->reads || a->wgate >= 0, ib = b->reads || b->wgate >= 0;
    if (ia && ib) d = max(d, 0);
    if (a->wgate >= 0 && b->reads) d = max(d, 1);
    if (a->reads & b->reads) d = max(d, 1);
    if (a->wgate >= 0 && a->wgate == b->wgate) d = max(d, a->lat - b->lat + 1);
    if (a->wgate >= 0 && wt_opnd_is_feed((unsigned)a->wgate) &&
        (b->reads >> (a->wgate - WT_OPND_FEED) & 1))
        d = max(d, a->lat);

    if (b_is_term) d = max(d, max(max(a->lat, a->ivl) - 1, 0));
    /* a branch on the word the IU sends the cells this pass (swp_iu_counts): the
     * word must be in the first cell's queue when the branch reads it. Only a
     * block's branch reads a path word the same block writes. */
    if (b_is_term && wb_has_dest(i->op) && i->d.kind == WB_O_REG && wt_opnd_is_path(i->d.v))
        for (int k = 0; k < wb_nsrc(j->op); k++)
            if (j->s[k].kind == WB_O_REG && j->s[k].v == i->d.v) d = max(d, a->lat);
    return d;
}

typedef struct bundle_state {
    wt_bundle_use use;    /* slots, the IU link, literal fields, gate operations: target's model */
    wb_opnd lits[WT_BUNDLE_LITERALS];   /* the literals use.literals counts, to tell equal ones */
    int busy_from[WT_NRES], busy_until[WT_NRES];   /* a divide's unit, [from, until) */
    /* iWarp: each gate's internal bus (input gates, then output gates) carrying a word,
     * [from, until): gate_word_clocks after the bundle that moved it */
    int bus_from[2][8], bus_until[2][8];
} bundle_state;

/* Is a gate the operation reads or writes still carrying the word of an earlier
 * bundle at t? */
static int gate_bus_busy(const bundle_state *st, const wb_ins *in, int t)
{
    wt_bundle_use u = {0};
    wb_add_gate_ops(&u, in);
    for (int g = 0; g < 8; g++) {
        if ((u.gates_read >> g & 1) && st->bus_from[0][g] < t && t < st->bus_until[0][g]) return 1;
        if ((u.gates_written >> g & 1) && st->bus_from[1][g] < t && t < st->bus_until[1][g]) return 1;
    }
    return 0;
}


/* Can the node's operation join the bundle at cycle t? Sets *mop to the machine op
 * it would be. */
static int fits(const wb_func *f, const bundle_state *st, const node *n, int t, int *mop)
{
    const wb_ins *in = n->in;
    /* iWarp: a bundle with more gate operations than a clock handles takes two
     * clocks; better to spread them, unless one operation alone has more. */
    wt_bundle_use after = st->use;
    wb_add_gate_ops(&after, in);
    if (!wt_bundle_gates_fit(f->model, &st->use, &after)) return 0;
    if (f->model->gate_word_clocks && gate_bus_busy(st, in, t)) return 0;
    wb_opnd seen[3];
    unsigned extra = (unsigned)wb_new_literals(st->lits, st->use.literals, in, seen);
    if (wb_iu_feeds(in) && !wt_bundle_fits(f->model, &st->use, WT_RES_LINK, 0)) return 0;
    /* An operation takes whichever of the table's alternatives has a free unit: a
     * copy a crossbar move or an ALU mov, an add an ALU or a memory unit's address
     * adder (lea), its own unit first. */
    wt_op choices[WT_MAX_ALTS];
    unsigned nc = wb_mop_choices(in->op, 0, choices);
    for (unsigned c = 0; c < nc; c++) {
        unsigned res = wt_op_res(choices[c], in->iu);
        int busy = st->busy_from[res] < t && t < st->busy_until[res];
        if (wt_bundle_fits(f->model, &st->use, res, extra) && !busy) {
            *mop = choices[c];
            return 1;
        }
    }
    return 0;
}

static void take(const wb_func *f, bundle_state *st, const node *n, int t, int mop)
{
    unsigned res = wt_op_res((wt_op)mop, n->in->iu);
    int extra = wb_new_literals(st->lits, st->use.literals, n->in, st->lits + st->use.literals);
    wt_bundle_take(&st->use, res, (unsigned)extra);
    if (wb_iu_feeds(n->in)) wt_bundle_take(&st->use, WT_RES_LINK, 0);
    wb_add_gate_ops(&st->use, n->in);
    if (f->model->gate_word_clocks) {
        wt_bundle_use u = {0};
        wb_add_gate_ops(&u, n->in);
        for (int g = 0; g < 8; g++)
            for (int w = 0; w < 2; w++)
                if ((w ? u.gates_written : u.gates_read) >> g & 1) {
                    st->bus_from[w][g] = t;
                    st->bus_until[w][g] = t + (int)f->model->gate_word_clocks;
                }
    }
    int ivl = wt_ops[mop].interval[f->model->id];
    if (ivl > 1) {
        st->busy_from[res] = t;
        st->busy_until[res] = t + ivl;
    }
}

static void place(const wb_func *f, bundle_state *st, node *n, int t, int mop)
{
    take(f, st, n, t, mop);
    n->in->cycle = t;
    n->in->mop = (uint16_t)mop;
    n->done = 1;
}

/* Can every operation of node i's bundle group issue at t, together? */
static int group_ready(const wb_func *f, const bundle_state *st, const node *nodes, int i, int t)
{
    bundle_state tmp = *st;
    for (int g = nodes[i].gfirst; g >= 0; g = nodes[g].gnext) {
        const node *x = &nodes[g];
        int mop;
        if (x->done || x->npred > 0 || x->ready > t || !fits(f, &tmp, x, t, &mop)) return 0;
        take(f, &tmp, x, t, mop);
    }
    return 1;
}

/* Have all of node i's bundle group (or i alone) their operands, so that the group
 * can issue once the clock and the units allow? */
static int group_available(const node *nodes, int i)
{
    if (nodes[i].gfirst < 0) return 1;
    for (int g = nodes[i].gfirst; g >= 0; g = nodes[g].gnext)
        if (nodes[g].done || nodes[g].npred > 0) return 0;
    return 1;
}

static int distinct_literals(const wb_ins *in, int *last)
{
    int n = 0;
    for (int k = 0; k < wb_nsrc(in->op); k++) {
        if (!wb_is_lit(in->s[k])) continue;
        int seen = 0;
        for (int j = 0; j < k; j++) seen |= wb_lit_eq(in->s[j], in->s[k]);
        if (!seen) {
            n++;
            *last = k;
        }
    }
    return n;
}

/* A bundle holds two literals: an operation wanting three gets one from a register. */
static void legalize_literals(wb_func *f, int id)
{
    for (int i = 0; i <= f->blocks[id]->nins; i++) {
        wb_block *b = f->blocks[id];
        int is_term = i == b->nins;
        wb_ins *in = is_term ? &b->term : &b->ins[i];
        int k;
        if (in->op == WT_OP_NONE || distinct_literals(in, &k) <= 2) continue;
        wb_opnd lit = in->s[k], t = wb_vreg(wb_new_vreg(f, 0));
        for (int j = 0; j < wb_nsrc(in->op); j++)
            if (wb_lit_eq(in->s[j], lit)) in->s[j] = t;
        wb_ins copy = {.op = WB_COPY, .d = t, .s = {lit}, .target = -1, .line = in->line, .col = in->col};
        wb_insert(f, id, i, &copy);
        i--;   /* look at the same operation again, now one further on */
    }
}

/* Register pressure, counted the way the allocator will: a value holds a register
 * from its definition's issue until its last read in the block (or to the end,
 * if it lives out). Reads of one name are counted per operation. */
typedef struct pressure {
    int count, limit;
    int *uses_left;            /* per vreg: operations of the block still to read it */
    uint8_t *live;             /* per vreg */
    uint8_t *live_out;    /* per vreg: live out of the block */
} pressure;

/* The change in live values if `in` issued now. */
static int pressure_delta(const pressure *p, const wb_ins *in)
{
    int d = 0;
    for (int k = 0; k < wb_nsrc(in->op); k++) {
        wb_opnd s = in->s[k];
        int dup = 0;
        for (int j = 0; j < k; j++) dup |= wb_opnd_eq(in->s[j], s);
        if (!wb_is_vreg(s) || dup) continue;
        if (p->live[s.v] && p->uses_left[s.v] == 1 && !p->live_out[s.v]) d--;
    }
    if (wb_has_dest(in->op) && wb_is_vreg(in->d)) {
        int v = (int)in->d.v;
        int reads_own = 0;
        for (int k = 0; k < wb_nsrc(in->op); k++) reads_own |= wb_is_vreg(in->s[k]) && in->s[k].v == in->d.v;
        int dies_now = p->live[v] && reads_own && p->uses_left[v] == 1 && !p->live_out[v];
        int wanted = p->uses_left[v] - reads_own > 0 || p->live_out[v];
        if (wanted && (!p->live[v] || dies_now)) d++;
    }
    return d;
}

static void pressure_issue(pressure *p, const wb_ins *in)
{
    for (int k = 0; k < wb_nsrc(in->op); k++) {
        wb_opnd s = in->s[k];
        int dup = 0;
        for (int j = 0; j < k; j++) dup |= wb_opnd_eq(in->s[j], s);
        if (!wb_is_vreg(s) || dup) continue;
        p->uses_left[s.v]--;
        if (p->live[s.v] && p->uses_left[s.v] == 0 && !p->live_out[s.v]) {
            p->live[s.v] = 0;
            p->count--;
        }
    }
    if (wb_has_dest(in->op) && wb_is_vreg(in->d)) {
        int v = (int)in->d.v;
        if (!p->live[v] && (p->uses_left[v] > 0 || p->live_out[v])) {
            p->live[v] = 1;
            p->count++;
        }
    }
}

/* ---- The dependence graph ----------------------------------------------------------
 *
 * distance() gives the edge between two operations; comparing every pair costs
 * n^2 on a long block (a few thousand statements of straight-line code took
 * minutes). Each operation is compared instead with the few earlier ones that can
 * constrain it directly: the last definition of each register it reads and
 * writes and the reads since, the last store to each object it may touch and the
 * loads since, the previous gate operation, the last one writing any gate, the
 * last reader of each queue it reads, the last writer of its gate and the last
 * feed of each queue it reads; the terminator with every operation. Every
 * pair left out is ordered through those by a path at least as long as its own
 * distance, so the earliest issue times and the priorities (longest paths) are
 * the same as with all pairs, and so is the schedule. */

typedef struct chain {
    int node, next;
} chain;

typedef struct deps {
    int *edge_from, *edge_to, *edge_dist;
    int nedges, cap;
    int *stamp;                /* per node: the consumer it was last offered to */
    chain *pool;               /* linked lists of node indices */
    int npool;
    size_t pool_cap;
} deps;

static void offer(deps *D, const node *nodes, int i, int j, int is_term)
{
    if (i < 0 || D->stamp[i] == j) return;
    D->stamp[i] = j;
    int d = distance(&nodes[i], &nodes[j], is_term);
    if (d < 0) return;
    if (D->nedges == D->cap) {
        D->cap = D->cap ? 2 * D->cap : 256;
        D->edge_from = ws_xrealloc(D->edge_from, sizeof *D->edge_from * (size_t)D->cap);
        D->edge_to = ws_xrealloc(D->edge_to, sizeof *D->edge_to * (size_t)D->cap);
        D->edge_dist = ws_xrealloc(D->edge_dist, sizeof *D->edge_dist * (size_t)D->cap);
    }
    D->edge_from[D->nedges] = i;
    D->edge_to[D->nedges] = j;
    D->edge_dist[D->nedges++] = d;
}

static int push_chain(deps *D, int head, int node_index)
{
    ws_grow(&D->pool, &D->pool_cap, (size_t)D->npool + 1, sizeof *D->pool);
    D->pool[D->npool] = (chain){node_index, head};
    return D->npool++;
}

static void offer_chain(deps *D, const node *nodes, int head, int j, int is_term)
{
    for (int c = head; c >= 0; c = D->pool[c].next) offer(D, nodes, D->pool[c].node, j, is_term);
}

enum { NGATES = WT_OPND_ADDR + 4 };   /* gate, feed and address operands are below */

/* Per vreg and per memory object, the latest accesses of the block being
 * scheduled; all -1 between blocks (each block resets only what it touched: tables
 * made for every block cost blocks times vregs on a long function). */
typedef struct access_tables {
    int nv, nobj;
    int *last_def, *reads;         /* reads since last_def */
    int *last_store, *loads;       /* loads since last_store */
} access_tables;

static void build_edges(node *nodes, int n, int has_term, access_tables *t)
{
    deps D = {0};
    D.stamp = ws_xcalloc((size_t)n, sizeof *D.stamp);
    for (int i = 0; i < n; i++) D.stamp[i] = -1;
    int nv = t->nv, nobj = t->nobj;
    int *last_def = t->last_def, *reads = t->reads, *last_store = t->last_store, *loads = t->loads;
    int last_gate_op = -1, last_gate_writer = -1, last_reader[4], last_writer[NGATES];
    for (int q = 0; q < 4; q++) last_reader[q] = -1;
    for (int g = 0; g < NGATES; g++) last_writer[g] = -1;

    for (int j = 0; j < n; j++) {
        node *b = &nodes[j];
        const wb_ins *in = b->in;
        int is_term = has_term && j == n - 1;
        if (is_term) {
            for (int i = 0; i < j; i++) offer(&D, nodes, i, j, 1);
            break;
        }
        /* Registers: the values read and the one written. */
        int ns = wb_nsrc(in->op);
        for (int k = 0; k < ns; k++)
            if (wb_is_vreg(in->s[k]) && (int)in->s[k].v < nv) offer(&D, nodes, last_def[in->s[k].v], j, 0);
        int dv = wb_has_dest(in->op) && wb_is_vreg(in->d) && (int)in->d.v < nv ? (int)in->d.v : -1;
        if (dv >= 0) {
            offer(&D, nodes, last_def[dv], j, 0);
            offer_chain(&D, nodes, reads[dv], j, 0);
        }
        /* Memory: object 0 may be any object. */
        int obj = in->memobj >= 0 && in->memobj < nobj ? in->memobj : 0;
        if (b->mem) {
            /* an access to one object orders against it and object 0 only (every
             * spill slot is an object: a walk over all of them costs their number) */
            int last = obj == 0 ? nobj - 1 : 1;
            for (int k = 0; k <= last; k++) {
                int o = obj == 0 || k == 0 ? k : obj;
                offer(&D, nodes, last_store[o], j, 0);
                if (b->mem == 2) offer_chain(&D, nodes, loads[o], j, 0);
            }
        }
        /* Gates. */
        if (b->reads || b->wgate >= 0) {
            offer(&D, nodes, last_gate_op, j, 0);
            offer(&D, nodes, last_gate_writer, j, 0);
            for (int q = 0; q < 4; q++)
                if (b->reads >> q & 1) {
                    offer(&D, nodes, last_reader[q], j, 0);
                    offer(&D, nodes, last_writer[WT_OPND_FEED + q], j, 0);
                }
            if (b->wgate >= 0 && b->wgate < NGATES) offer(&D, nodes, last_writer[b->wgate], j, 0);
        }

        /* Now j is the latest of its kinds. */
        for (int k = 0; k < ns; k++) {
            int dup = 0;
            for (int m = 0; m < k; m++) dup |= wb_opnd_eq(in->s[m], in->s[k]);
            if (!dup && wb_is_vreg(in->s[k]) && (int)in->s[k].v < nv)
                reads[in->s[k].v] = push_chain(&D, reads[in->s[k].v], j);
        }
        if (dv >= 0) {
            last_def[dv] = j;
            reads[dv] = -1;
        }
        if (b->mem == 1) loads[obj] = push_chain(&D, loads[obj], j);
        if (b->mem == 2) {
            last_store[obj] = j;
            loads[obj] = -1;
            if (obj == 0)
                for (int o = 1; o < nobj; o++) loads[o] = -1;   /* ordered before j, which any access follows */
        }
        if (b->reads || b->wgate >= 0) last_gate_op = j;
        if (b->wgate >= 0) {
            last_gate_writer = j;
            if (b->wgate < NGATES) last_writer[b->wgate] = j;
        }
        for (int q = 0; q < 4; q++)
            if (b->reads >> q & 1) last_reader[q] = j;
    }

    int *cnt = ws_xcalloc((size_t)n, sizeof *cnt);
    for (int e = 0; e < D.nedges; e++) cnt[D.edge_from[e]]++;
    for (int i = 0; i < n; i++) {
        nodes[i].succ = ws_xcalloc((size_t)cnt[i] + 1, sizeof(int));
        nodes[i].dist = ws_xcalloc((size_t)cnt[i] + 1, sizeof(int));
    }
    /* Successors in increasing order, as the pairwise loops made them. */
    for (int e = 0; e < D.nedges; e++) {
        node *a = &nodes[D.edge_from[e]];
        int k = a->nsucc++;
        while (k > 0 && a->succ[k - 1] > D.edge_to[e]) {
            a->succ[k] = a->succ[k - 1];
            a->dist[k] = a->dist[k - 1];
            k--;
        }
        a->succ[k] = D.edge_to[e];
        a->dist[k] = D.edge_dist[e];
        nodes[D.edge_to[e]].npred++;
    }
    free(cnt);
    free(D.edge_from);
    free(D.edge_to);
    free(D.edge_dist);
    free(D.stamp);
    free(D.pool);
    for (int j = 0; j < n; j++) {
        const wb_ins *in = nodes[j].in;
        for (int k = 0; k < wb_nsrc(in->op); k++)
            if (wb_is_vreg(in->s[k]) && (int)in->s[k].v < nv) last_def[in->s[k].v] = reads[in->s[k].v] = -1;
        if (wb_has_dest(in->op) && wb_is_vreg(in->d) && (int)in->d.v < nv) last_def[in->d.v] = reads[in->d.v] = -1;
        int obj = in->memobj >= 0 && in->memobj < nobj ? in->memobj : 0;
        last_store[obj] = loads[obj] = -1;
    }
}

typedef struct gmember { int group, node; } gmember;

static int cmp_gmember(const void *a, const void *b)
{
    const gmember *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

/* ---- Operations whose users are far away ---------------------------------------------
 *
 * An operation that defines a value and could issue now, but whose slack (the
 * longest path left in the block, less its own) is more than FAR_SLACK clocks,
 * gains nothing by going early except when a unit is idle anyway; it costs a
 * register for all that while. Such operations wait in a heap by priority, off
 * the list scanned each clock (a long block has thousands: every reload of a
 * variable that LLVM could not keep in a register), and join it as the block's
 * remaining critical path shrinks to within FAR_SLACK of their own. Before that,
 * one of them issues only into a bundle that nothing nearer can use, and only
 * while fewer than half the registers the scheduler may fill hold live values,
 * or if it kills more values than it makes. */
enum { FAR_SLACK = 32, FAR_TRIES = 64 };

typedef struct far_heap {
    int *at;
    int n;
} far_heap;

/* Higher priority first: height, then program order, as the list is scanned. */
static int far_before(const node *nodes, int i, int j)
{
    if (nodes[i].height != nodes[j].height) return nodes[i].height > nodes[j].height;
    return i < j;
}

static void far_push(far_heap *h, const node *nodes, int i)
{
    int k = h->n++;
    while (k > 0 && far_before(nodes, i, h->at[(k - 1) / 2])) {
        h->at[k] = h->at[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    h->at[k] = i;
}

static void far_remove_root(far_heap *h, const node *nodes)
{
    int last = h->at[--h->n], k = 0;
    for (;;) {
        int c = 2 * k + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && far_before(nodes, h->at[c + 1], h->at[c])) c++;
        if (!far_before(nodes, h->at[c], last)) break;
        h->at[k] = h->at[c];
        k = c;
    }
    if (h->n > 0) h->at[k] = last;
}

/* The first operation not yet issued (a bundle group issues its members from the
 * heap too), or -1. */
static int far_top(far_heap *h, const node *nodes)
{
    while (h->n > 0 && nodes[h->at[0]].done) far_remove_root(h, nodes);
    return h->n > 0 ? h->at[0] : -1;
}

static int far_pop(far_heap *h, const node *nodes)
{
    int top = far_top(h, nodes);
    if (top >= 0) far_remove_root(h, nodes);
    return top;
}

/* One heap per unit class of the cells and of the IU (and one each for operations
 * that may take either of two units, copies and adds): a bundle whose class is full
 * skips the whole heap at once. */
enum { NFAR = WT_NRES + 2 };

static int far_bucket(const wb_ins *in)
{
    wt_op choices[WT_MAX_ALTS];
    if (wb_mop_choices(in->op, 0, choices) > 1) return WT_NRES + (in->iu != 0);
    return (int)wt_op_res(choices[0], in->iu);
}

static void avail_insert(int *avail, int *navail, int i)
{
    int pos = (*navail)++;
    while (pos > 0 && avail[pos - 1] > i) {
        avail[pos] = avail[pos - 1];
        pos--;
    }
    avail[pos] = i;
}

/* A newly issuable operation joins the list, or the heap if it defines a value
 * that is not wanted for a while. */
static void make_available(const node *nodes, int i, int critical, int *avail, int *navail, far_heap *far)
{
    const wb_ins *in = nodes[i].in;
    if (wb_has_dest(in->op) && wb_is_vreg(in->d) && critical - nodes[i].height > FAR_SLACK)
        far_push(&far[far_bucket(in)], nodes, i);
    else
        avail_insert(avail, navail, i);
}

static void schedule_block(const wb_func *f, wb_block *b, pressure *pr, access_tables *t)
{
    int has_term = b->term.op != WT_OP_NONE;
    int n = b->nins + has_term;
    b->len = 0;
    if (n == 0) return;
    node *nodes = ws_xcalloc((size_t)n, sizeof *nodes);
    for (int i = 0; i < b->nins; i++) analyse(f, &nodes[i], &b->ins[i]);
    if (has_term) analyse(f, &nodes[n - 1], &b->term);
    for (int i = 0; i < n; i++) {
        const wb_ins *in = nodes[i].in;
        for (int k = 0; k < wb_nsrc(in->op); k++) {
            int dup = 0;
            for (int j = 0; j < k; j++) dup |= wb_opnd_eq(in->s[j], in->s[k]);
            if (wb_is_vreg(in->s[k]) && !dup) pr->uses_left[in->s[k].v]++;
        }
    }

    build_edges(nodes, n, has_term, t);
    /* Bundle groups as lists, in program order. */
    for (int i = 0; i < n; i++) nodes[i].gfirst = nodes[i].gnext = -1;
    int ng = 0;
    gmember *gm = ws_xcalloc((size_t)n + 1, sizeof *gm);
    for (int i = 0; i < n; i++)
        if (nodes[i].in->bundle_with) gm[ng++] = (gmember){nodes[i].in->bundle_with, i};
    qsort(gm, (size_t)ng, sizeof *gm, cmp_gmember);
    for (int k = 0; k < ng; k++) {
        int first = k > 0 && gm[k - 1].group == gm[k].group ? nodes[gm[k - 1].node].gfirst : gm[k].node;
        nodes[gm[k].node].gfirst = first;
        if (k > 0 && gm[k - 1].group == gm[k].group) nodes[gm[k - 1].node].gnext = gm[k].node;
    }
    free(gm);
    for (int i = n - 1; i >= 0; i--) {
        int h = max(nodes[i].lat, nodes[i].ivl);
        for (int k = 0; k < nodes[i].nsucc; k++) h = max(h, nodes[i].dist[k] + nodes[nodes[i].succ[k]].height);
        nodes[i].height = h;
    }

    bundle_state st;
    memset(&st, 0, sizeof st);
    /* The operations whose predecessors have all issued, in program order (the
     * order breaks ties of priority): only these are looked at each clock. */
    int *avail = ws_xcalloc((size_t)n, sizeof *avail), navail = 0;
    far_heap far[NFAR];
    for (int c = 0; c < NFAR; c++) far[c] = (far_heap){ws_xcalloc((size_t)n, sizeof(int)), 0};
    int critical = 0;   /* the longest path left: the greatest height not yet issued */
    for (int i = 0; i < n; i++) critical = max(critical, nodes[i].height);
    for (int i = 0; i < n; i++)
        if (nodes[i].npred == 0) make_available(nodes, i, critical, avail, &navail, far);
    int left = n;
    for (int t = 0; left > 0; t++) {
        /* a bundle group that could never issue would loop here forever */
        if (t > 64 * n + 4096) {
            int first = 0;
            while (nodes[first].done) first++;
            wb_internal_error_at(f, nodes[first].in, "the list scheduler cannot place it (%d operations left)", left);
        }
        st.use = (wt_bundle_use){0};
        for (;;) {
            /* The operation of greatest height not yet issued has all its
             * predecessors issued, or one of equal height has (a path to it is
             * no shorter): the greatest height on the list or in the heap. */
            critical = 0;
            for (int a = 0; a < navail; a++) critical = max(critical, nodes[avail[a]].height);
            for (int c = 0; c < NFAR; c++) {
                int top = far_top(&far[c], nodes);
                if (top >= 0) critical = max(critical, nodes[top].height);
            }
            for (int c = 0, top; c < NFAR; c++)
                while ((top = far_top(&far[c], nodes)) >= 0 && critical - nodes[top].height <= FAR_SLACK)
                    avail_insert(avail, &navail, far_pop(&far[c], nodes));
            /* The best operation that fits, and the best that also keeps the live
             * values under the limit. Over the limit, an operation that adds a live
             * value waits while one that does not is still to come. */
            int best = -1, best_mop = 0, calm = -1, calm_mop = 0, waiting = 0, best_at = -1, calm_at = -1;
            int oldest = -1, oldest_at = -1, oldest_mop = -1;
            for (int a = 0; a < navail; a++) {
                int i = avail[a];
                node *x = &nodes[i];
                int mop;
                if (oldest < 0 && group_available(nodes, i)) {
                    oldest = i;
                    oldest_at = a;
                }
                if (x->gfirst >= 0 && !group_ready(f, &st, nodes, i, t)) continue;
                int delta = pressure_delta(pr, x->in);
                int over = delta > 0 && pr->count + delta > pr->limit;
                if (!over) waiting = 1;
                if (x->ready > t || !fits(f, &st, x, t, &mop)) continue;
                if (i == oldest) oldest_mop = mop;
                if (best < 0 || x->height > nodes[best].height) {
                    best = i;
                    best_mop = mop;
                    best_at = a;
                }
                if (!over && (calm < 0 || x->height > nodes[calm].height)) {
                    calm = i;
                    calm_mop = mop;
                    calm_at = a;
                }
            }
            for (int c = 0; c < NFAR; c++) {
                /* A far operation goes if it comes before the best near one (an
                 * operation that defines nothing is never far: a send, a store) or
                 * nothing near fits. */
                int tried[FAR_TRIES], ntried = 0, top;
                if (c < WT_RES_LINK && !wt_bundle_fits(f->model, &st.use, (unsigned)c, 0)) continue;
                while (ntried < FAR_TRIES && (top = far_top(&far[c], nodes)) >= 0 &&
                       (calm < 0 || far_before(nodes, top, calm))) {
                    int i = far_pop(&far[c], nodes), mop;
                    tried[ntried++] = i;
                    node *x = &nodes[i];
                    if (x->gfirst >= 0 && !group_ready(f, &st, nodes, i, t)) continue;
                    if (x->ready > t || !fits(f, &st, x, t, &mop)) continue;
                    int delta = pressure_delta(pr, x->in);
                    if (delta > 0 && pr->count + delta > pr->limit) continue;
                    calm = i;
                    calm_mop = mop;
                    calm_at = -1;
                    break;
                }
                for (int k = 0; k < ntried; k++) far_push(&far[c], nodes, tried[k]);
            }
            if (calm >= 0) {
                best = calm;
                best_mop = calm_mop;
                best_at = calm_at;
            } else if (waiting) {
                best = -1;
            } else if (oldest >= 0) {
                /* Every operation left would add a live value past the limit: only
                 * the first in program order goes, when it can. Another one (a load
                 * whose user is a thousand clocks away, a spill's reload) would hold
                 * its register all that while, and the next and the next: the block
                 * would need ever more registers, and spilling would not help, as
                 * the reloads would be hoisted as far. Program order is a schedule
                 * whose pressure spilling can always bring down. */
                best = oldest_mop >= 0 ? oldest : -1;
                best_mop = oldest_mop;
                best_at = oldest_at;
            }
            if (best < 0) break;
            /* users of one received word issue together: the whole group goes */
            int group = nodes[best].gfirst >= 0;
            for (int g = group ? nodes[best].gfirst : best; g >= 0; g = group ? nodes[g].gnext : -1) {
                node *x = &nodes[g];
                int mop = best_mop;
                if (group && !fits(f, &st, x, t, &mop)) wb_internal_error_at(f, x->in, "its bundle group does not fit");
                pressure_issue(pr, x->in);
                place(f, &st, x, t, mop);
                left--;
                int at = g == best && best_at >= 0 && best_at < navail && avail[best_at] == g ? best_at : 0;
                while (at < navail && avail[at] != g) at++;
                if (at < navail) {
                    memmove(&avail[at], &avail[at + 1], sizeof *avail * (size_t)(navail - at - 1));
                    navail--;
                }
                for (int k = 0; k < x->nsucc; k++) {
                    int yi = x->succ[k];
                    node *y = &nodes[yi];
                    y->ready = max(y->ready, t + x->dist[k]);
                    if (--y->npred == 0) make_available(nodes, yi, critical, avail, &navail, far);
                }
            }
        }
    }
    free(avail);
    for (int c = 0; c < NFAR; c++) free(far[c].at);

    for (int i = 0; i < n; i++) {
        const node *x = &nodes[i];
        b->len = max(b->len, x->in->cycle + max(x->lat, x->ivl));
    }
    if (has_term) b->len = b->term.cycle + 1;
    for (int i = 0; i < n; i++) {
        free(nodes[i].succ);
        free(nodes[i].dist);
    }
    free(nodes);
}

void wb_schedule(wb_func *f, int limit)
{
    for (int id = 0; id < f->nblocks; id++)
        if (!f->blocks[id]->fixed) legalize_literals(f, id);
    wb_live *l = wb_liveness(f);
    pressure pr = {.limit = limit};
    pr.uses_left = ws_xcalloc((size_t)f->nvregs, sizeof *pr.uses_left);
    pr.live = ws_xcalloc((size_t)f->nvregs, 1);
    pr.live_out = ws_xcalloc((size_t)f->nvregs, 1);
    access_tables t = {f->nvregs + 1, f->nmemobjs + 1, NULL, NULL, NULL, NULL};
    t.last_def = ws_xcalloc((size_t)t.nv, sizeof *t.last_def);
    t.reads = ws_xcalloc((size_t)t.nv, sizeof *t.reads);
    t.last_store = ws_xcalloc((size_t)t.nobj, sizeof *t.last_store);
    t.loads = ws_xcalloc((size_t)t.nobj, sizeof *t.loads);
    for (int v = 0; v < t.nv; v++) t.last_def[v] = t.reads[v] = -1;
    for (int o = 0; o < t.nobj; o++) t.last_store[o] = t.loads[o] = -1;
    /* Only the block's own vregs are set and cleared: a walk over all of them
     * for each block costs blocks times vregs on a long function. The count of
     * reads left returns to zero as the block's operations issue. */
    for (int id = 0; id < f->nblocks; id++) {
        int nin, nout;
        const int *in = wb_live_in(l, id, &nin), *out = wb_live_out(l, id, &nout);
        wb_block *b = f->blocks[id];
        pr.count = 0;
        for (int k = 0; k < nin; k++)
            if (in[k] >= 1 && in[k] < f->nvregs) {
                pr.live[in[k]] = 1;
                pr.count++;
            }
        for (int k = 0; k < nout; k++)
            if (out[k] < f->nvregs) pr.live_out[out[k]] = 1;
        if (!b->fixed) schedule_block(f, b, &pr, &t);
        for (int k = 0; k < nin; k++)
            if (in[k] < f->nvregs) pr.live[in[k]] = 0;
        for (int k = 0; k < nout; k++)
            if (out[k] < f->nvregs) pr.live_out[out[k]] = 0;
        for (int i = 0; i <= b->nins; i++) {
            const wb_ins *x = i == b->nins ? &b->term : &b->ins[i];
            if (x->op == WT_OP_NONE) continue;
            if (wb_has_dest(x->op) && wb_is_vreg(x->d) && (int)x->d.v < f->nvregs) pr.live[x->d.v] = 0;
            for (int k = 0; k < wb_nsrc(x->op); k++)
                if (wb_is_vreg(x->s[k]) && (int)x->s[k].v < f->nvregs) pr.uses_left[x->s[k].v] = 0;
        }
    }
    free(pr.uses_left);
    free(pr.live);
    free(pr.live_out);
    free(t.last_def);
    free(t.reads);
    free(t.last_store);
    free(t.loads);
    wb_live_free(l);
}
