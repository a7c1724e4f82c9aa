/* The wait-for graph of a stuck array: the deadlock report and its Graphviz form.
 *
 * A run is deadlocked when in some clock no cell issued, no agent changed anything
 * and nothing scheduled lies ahead: the state is frozen, so the graph is exact. Its
 * nodes are the cells (what each one's next bundle waits for, with its source line)
 * and the begin markers the agents hold waiting for a free channel; an edge goes from
 * a waiter to the one who must act for it to go on: the cell that writes the empty
 * queue it reads (found by following the crossbar links upstream to a gate), the cell
 * that reads the full queue it writes (downstream), the cells whose pathways hold the
 * channels of a pool. A cycle of edges is the deadlock; waits that end at a halted
 * cell, the host or nobody are chains. */
#include "sim_internal.h"

#include <stdlib.h>
#include <string.h>

#include "warp_support.h"

#define WF_EDGES 8

typedef struct wf_node {
    int cell;
    int route_lic;           /* -1: the cell's computation agent; else a begin marker's channel */
    int waiting;             /* 0: halted (a chain ends here) */
    char text[480];
    int nto;
    int to[WF_EDGES];
    char label[WF_EDGES][80];
} wf_node;

typedef struct wf_graph {
    wf_node *n;
    int count, cap;
    int *cycle;              /* node indices, in order; ncycle 0: none */
    int ncycle;
} wf_graph;

static const char *gate_name(unsigned g)
{
    return wt_opnd_name(g < WT_NQUEUES ? WT_OPND_GATE + g : WT_OPND_PGATE + g - WT_NQUEUES);
}

static int add_node(wf_graph *G, int cell, int route_lic)
{
    if (G->count == G->cap) {
        G->cap = G->cap ? 2 * G->cap : 16;
        G->n = ws_xrealloc(G->n, (size_t)G->cap * sizeof *G->n);
    }
    wf_node *n = &G->n[G->count];
    memset(n, 0, sizeof *n);
    n->cell = cell;
    n->route_lic = route_lic;
    return G->count++;
}

static int route_node(wf_graph *G, int cell, int lic)
{
    for (int i = 0; i < G->count; i++)
        if (G->n[i].cell == cell && G->n[i].route_lic == lic) return i;
    return -1;
}

static void edge(wf_node *n, int to, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void edge(wf_node *n, int to, const char *fmt, ...)
{
    for (int i = 0; i < n->nto; i++)
        if (n->to[i] == to) return;
    if (n->nto == WF_EDGES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->label[n->nto], sizeof n->label[0], fmt, ap);
    va_end(ap);
    n->to[n->nto++] = to;
}

static void say(wf_node *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(wf_node *n, const char *fmt, ...)
{
    size_t len = strlen(n->text);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->text + len, sizeof n->text - len, fmt, ap);
    va_end(ap);
}

static void lic_text(const wsim *s, const wca_queue *q, char *buf, size_t size)
{
    wca_lic_name(s->comm, wca_queue_channel(s->comm, q), buf, size);
}

static const char *bus_name(unsigned bus)
{
    static const char *const names[] = {"XRight", "YUp", "XLeft", "YDown"};
    return bus < 4 ? names[bus] : "?";
}

static int count_of(const char *s, const char *sub)
{
    int n = 0;
    for (const char *p = strstr(s, sub); p; p = strstr(p + 1, sub)) n++;
    return n;
}

/* The holders of a pool's channels: edges to them. */
static void pool_edges(const wsim *s, wf_node *n, int cell, unsigned bus, unsigned pool)
{
    int holders[WF_EDGES];
    int nh = wca_pool_holders(s->comm, cell, bus, pool, holders, WF_EDGES);
    say(n, "; its channels are held by the pathway%s of cell%s", nh > 1 ? "s" : "", nh > 1 ? "s" : "");
    for (int i = 0; i < nh && i < WF_EDGES; i++) {
        say(n, "%s %d", i ? (i + 1 == nh ? " and" : ",") : "", holders[i]);
        edge(n, holders[i], "holds a %s channel on %s of cell %d", pool ? "open" : "reservation", bus_name(bus), cell);
    }
}

/* The cell a wait leads to will never act again. */
static void halted_note(const wsim *s, wf_node *n, int cell)
{
    if (s->cells[cell].state == WSIM_CELL_HALTED) say(n, ", which has halted");
    else if (s->cells[cell].state == WSIM_CELL_FAULTED) say(n, ", which has faulted");
}

/* An empty queue a cell reads through gate g. */
static void read_wait(const wsim *s, wf_graph *G, int node, int k, unsigned g, const wca_queue *q)
{
    wf_node *n = &G->n[node];
    if (!s->comm) {
        int nb = g == WT_Q_XL || g == WT_Q_YL ? k - 1 : k + 1;
        say(n, "waits to read %s (its queue is empty)", gate_name(g));
        if (nb < 0 || nb >= s->ncells) {
            say(n, "; only the host feeds it, through this cell's %s", wt_opnd_name(WT_OPND_FEED + g));
            return;
        }
        say(n, "; cell %d writes it through %s", nb, gate_name(g ^ 2));
        halted_note(s, n, nb);
        edge(n, nb, "writes %s", gate_name(g ^ 2));
        return;
    }
    char ch[48];
    lic_text(s, q, ch, sizeof ch);
    say(n, "waits to read %s from %s (empty)", gate_name(g), ch);
    wca_trace tr;
    wca_trace_feeder(s->comm, q, &tr);
    switch (tr.party) {
    case WCA_BY_GATE:
        say(n, "; cell %d writes it through %s", tr.cell, gate_name((unsigned)tr.gate));
        /* A neighbour's gate is plain; a pathway's far end is worth its route. */
        if (count_of(tr.path, " < ") > 2) say(n, " (%s)", tr.path);
        halted_note(s, n, tr.cell);
        edge(n, tr.cell, "writes %s", gate_name((unsigned)tr.gate));
        break;
    case WCA_BY_SPOOL: say(n, "; spool gate %d of cell %d fills it", tr.spool, tr.cell); break;
    case WCA_BY_HOST: say(n, "; only the host feeds it, through this cell's %s", wt_opnd_name(WT_OPND_FEED + g)); break;
    default: say(n, "; nothing feeds it (%s)", tr.path); break;
    }
}

/* A full queue a cell writes through gate g (count words). */
static void write_wait(const wsim *s, wf_graph *G, int node, int k, unsigned g, const wca_queue *q)
{
    wf_node *n = &G->n[node];
    if (!s->comm) {
        int nb = g == WT_Q_XL || g == WT_Q_YL ? k - 1 : k + 1;
        say(n, "waits to write %s (cell %d's queue is full); cell %d reads it through %s", gate_name(g), nb, nb,
            gate_name(g ^ 2));
        halted_note(s, n, nb);
        edge(n, nb, "reads %s", gate_name(g ^ 2));
        return;
    }
    char ch[48];
    lic_text(s, q, ch, sizeof ch);
    say(n, "waits to write %s to %s (full)", gate_name(g), ch);
    wca_trace tr;
    wca_trace_drainer(s->comm, q, &tr);
    switch (tr.party) {
    case WCA_BY_GATE:
        say(n, "; cell %d reads it through %s", tr.cell, gate_name((unsigned)tr.gate));
        if (count_of(tr.path, " > ") > 2) say(n, " (%s)", tr.path);
        halted_note(s, n, tr.cell);
        edge(n, tr.cell, "reads %s", gate_name((unsigned)tr.gate));
        break;
    case WCA_BY_SPOOL: say(n, "; spool gate %d of cell %d drains it (%s)", tr.spool, tr.cell, tr.path); break;
    case WCA_BY_ROUTING: {
        int r = route_node(G, tr.cell, tr.lic);
        say(n, "; its pathway's begin marker waits in cell %d (%s)", tr.cell, tr.path);
        if (r >= 0) edge(&G->n[node], r, "pathway begin marker");
        break;
    }
    case WCA_BY_UNBOUND:
        say(n, "; cell %d has bound no gate or spool to the pathway's end (%s)", tr.cell, tr.path);
        edge(n, tr.cell, "must bind a gate");
        break;
    default: say(n, "; nothing drains it (%s)", tr.path); break;
    }
}

/* What cell k's next bundle waits for at clock t. */
static void cell_wait(const wsim *s, wf_graph *G, int node, int k, uint64_t t)
{
    const wsim_cell *c = &s->cells[k];
    wf_node *n = &G->n[node];
    if (c->state >= WSIM_CELL_HALTED) {
        say(n, c->state == WSIM_CELL_HALTED ? "has halted" : "has faulted");
        return;
    }
    n->waiting = 1;
    if (c->pc >= s->ncode) {
        say(n, "cannot issue");
        return;
    }
    if (t < c->next_issue) {
        say(n, "starts at clock %llu", (unsigned long long)c->next_issue);
        return;
    }
    const wsim_bundle *b = &s->code[c->pc];
    for (unsigned m = b->slot_mask; m; m &= m - 1) {
        unsigned slot = (unsigned)__builtin_ctz(m);
        if (c->busy_until[slot] > t) {
            say(n, "waits for unit %s (busy until clock %llu)", wt_slot_layouts[slot].name,
                (unsigned long long)c->busy_until[slot]);
            return;
        }
    }
    for (unsigned g = 0; g < WSIM_NGATES; g++) {
        const wca_queue *q = c->in[g];
        if ((b->gate_rd & (1u << g)) && q && !wca_queue_ready(q, t)) {
            read_wait(s, G, node, k, g, q);
            return;
        }
    }
    for (unsigned g = 0; g < WSIM_NGATES; g++) {
        const wca_queue *q = c->out[g];
        if ((b->out_mask & (1u << g)) && q && wca_queue_used_at(q, t) + b->out_n[g] > q->cap) {
            write_wait(s, G, node, k, g, q);
            return;
        }
    }
    for (unsigned q = 0; q < WT_NQUEUES; q++) {
        const wca_queue *in = c->feedq[q];
        if ((b->feed_mask & c->feed_live & (1u << q)) && wca_queue_used_at(in, t) + b->feed_n[q] > in->cap) {
            say(n, "waits to feed its queue %s from the host (full: this cell does not read it)",
                gate_name(q));
            return;
        }
    }
    if (b->wait_op) {
        const wsim_dop *o = &b->ops[b->wait_op - 1];
        uint32_t A = c->src[o->a], B = c->src[o->b];
        if (o->a == SRC_IMM0 || o->a == SRC_IMM1) A = b->imm[o->a - SRC_IMM0];
        if (o->b == SRC_IMM0 || o->b == SRC_IMM1) B = b->imm[o->b - SRC_IMM0];
        char why[160];
        wca_op_wait(s->comm, k, (wt_op)o->op, A, B, why, sizeof why);
        say(n, "%s %s", wt_ops[o->op].name, why);
        if (o->op == WT_OP_CREQ && A < WCA_NBUSES && B <= 1 && strstr(why, "local") == NULL)
            pool_edges(s, &G->n[node], k, A, B);
        return;
    }
    say(n, "cannot issue");
}

static void build(const wsim *s, wf_graph *G)
{
    memset(G, 0, sizeof *G);
    uint64_t t = s->cycle;
    for (int k = 0; k < s->ncells; k++) add_node(G, k, -1);
    /* Begin markers waiting for a channel, first, so that edges can point at them. */
    if (s->comm) {
        for (int k = 0; k < s->ncells; k++) {
            wca_trace tr;
            for (int i = 0; wca_routing_wait(s->comm, k, i, &tr); i++) {
                int r = add_node(G, k, tr.lic);
                wf_node *n = &G->n[r];
                n->waiting = 1;
                char ch[48];
                wca_lic_name(s->comm, k * wca_channels(s->comm) + tr.lic, ch, sizeof ch);
                say(n, "holds a pathway begin marker at the head of %s, waiting for a free %s channel on %s", ch,
                    tr.pool ? "open" : "reservation", bus_name(tr.bus));
                pool_edges(s, n, k, tr.bus, tr.pool);
            }
        }
    }
    for (int k = 0; k < s->ncells; k++) cell_wait(s, G, k, k, t);
}

/* The first cycle a depth-first walk from the waiting nodes meets, in order. */
static void find_cycle(wf_graph *G)
{
    int n = G->count;
    int *color = ws_xcalloc((size_t)n, sizeof *color), *parent = ws_xcalloc((size_t)n, sizeof *parent);
    int *stack = ws_xcalloc((size_t)n, sizeof *stack), *next = ws_xcalloc((size_t)n, sizeof *next);
    for (int root = 0; root < n && !G->ncycle; root++) {
        if (color[root] || !G->n[root].waiting) continue;
        int sp = 0;
        stack[sp++] = root;
        color[root] = 1;
        next[root] = 0;
        parent[root] = -1;
        while (sp && !G->ncycle) {
            int u = stack[sp - 1];
            if (next[u] == G->n[u].nto) {
                color[u] = 2;
                sp--;
                continue;
            }
            int v = G->n[u].to[next[u]++];
            if (color[v] == 1) {
                /* v .. u on the stack is the cycle. */
                int len = 0;
                for (int w = u; w != v; w = parent[w]) len++;
                G->ncycle = len + 1;
                G->cycle = ws_xcalloc((size_t)G->ncycle, sizeof *G->cycle);
                int i = G->ncycle - 1;
                for (int w = u; w != v; w = parent[w]) G->cycle[i--] = w;
                G->cycle[0] = v;
            } else if (color[v] == 0) {
                color[v] = 1;
                parent[v] = u;
                next[v] = 0;
                stack[sp++] = v;
            }
        }
    }
    free(color);
    free(parent);
    free(stack);
    free(next);
}

static void graph_free(wf_graph *G)
{
    free(G->n);
    free(G->cycle);
}

/* "cell K (cid C): pc P (FILE:LINE)" or "agent of cell K (cid C)". */
static void node_head(const wsim *s, const wf_node *n, char *buf, size_t size)
{
    int cid = s->prog.first_cell + n->cell;
    if (n->route_lic >= 0) {
        snprintf(buf, size, "agent of cell %d (cid %d)", n->cell, cid);
        return;
    }
    const wsim_cell *c = &s->cells[n->cell];
    char w[256];
    const char *where = wsim__where(s, c->pc, w, sizeof w);
    if (c->state == WSIM_CELL_HALTED) snprintf(buf, size, "cell %d (cid %d)", n->cell, cid);
    else if (where && *where) snprintf(buf, size, "cell %d (cid %d): pc %u (%s)", n->cell, cid, c->pc, where);
    else snprintf(buf, size, "cell %d (cid %d): pc %u", n->cell, cid, c->pc);
}

void wsim__deadlock(wsim *s)
{
    wf_graph G;
    build(s, &G);
    find_cycle(&G);
    ws_buf b = {0};
    char head[320];
    uint8_t *listed = ws_xcalloc((size_t)G.count, 1);
    if (G.ncycle) {
        ws_buf_printf(&b, "wait-for cycle:");
        for (int i = 0; i <= G.ncycle; i++) {
            const wf_node *n = &G.n[G.cycle[i % G.ncycle]];
            if (n->route_lic >= 0) ws_buf_printf(&b, "%s agent of cell %d", i ? " ->" : "", n->cell);
            else ws_buf_printf(&b, "%s cell %d", i ? " ->" : "", n->cell);
        }
        for (int i = 0; i < G.ncycle; i++) {
            const wf_node *n = &G.n[G.cycle[i]];
            node_head(s, n, head, sizeof head);
            ws_buf_printf(&b, "\n%s: %s", head, n->text);
            listed[G.cycle[i]] = 1;
        }
    } else {
        ws_buf_printf(&b, "no wait-for cycle: every wait ends at a halted cell, the host or nothing");
    }
    int others = 0;
    for (int i = 0; i < G.count; i++) {
        const wf_node *n = &G.n[i];
        if (listed[i] || !n->waiting) continue;
        if (G.ncycle && !others++) ws_buf_printf(&b, "\nalso waiting:");
        node_head(s, n, head, sizeof head);
        ws_buf_printf(&b, "\n%s: %s", head, n->text);
    }
    ws_buf_append(&b, "", 1);
    free(listed);
    graph_free(&G);
    free(s->msg);
    s->msg = b.data;
    s->status = WSIM_DEADLOCK;
}

void wsim__wait_reason(const wsim *s, int cell, uint64_t t, char *buf, size_t size)
{
    wf_graph G;
    memset(&G, 0, sizeof G);
    for (int k = 0; k < s->ncells; k++) add_node(&G, k, -1);
    cell_wait(s, &G, cell, cell, t);
    snprintf(buf, size, "%s", G.n[cell].waiting ? G.n[cell].text : "");
    graph_free(&G);
}

static void dot_string(FILE *out, const char *sv)
{
    fputc('"', out);
    for (const char *p = sv; *p; p++) {
        if (*p == '"' || *p == '\\') fputc('\\', out);
        if (*p == '\n') fputs("\\n", out);
        else fputc(*p, out);
    }
    fputc('"', out);
}

int wsim_deadlock_dot(const wsim *s, FILE *out)
{
    if (s->status != WSIM_DEADLOCK) return -1;
    wf_graph G;
    build(s, &G);
    find_cycle(&G);
    uint8_t *in_cycle = ws_xcalloc((size_t)G.count, 1);
    for (int i = 0; i < G.ncycle; i++) in_cycle[G.cycle[i]] = 1;
    fprintf(out, "digraph deadlock {\n  label=\"deadlock at clock %llu%s\";\n  labelloc=t;\n"
                 "  node [shape=box, fontname=\"monospace\"];\n",
            (unsigned long long)s->cycle, G.ncycle ? " (red: the wait-for cycle)" : "");
    /* Every waiting node, and the nodes their edges reach. */
    uint8_t *shown = ws_xcalloc((size_t)G.count, 1);
    for (int i = 0; i < G.count; i++) {
        if (!G.n[i].waiting) continue;
        shown[i] = 1;
        for (int e = 0; e < G.n[i].nto; e++) shown[G.n[i].to[e]] = 1;
    }
    char head[320], label[900];
    for (int i = 0; i < G.count; i++) {
        if (!shown[i]) continue;
        const wf_node *n = &G.n[i];
        node_head(s, n, head, sizeof head);
        snprintf(label, sizeof label, "%s\n%s", head, n->text);
        fprintf(out, "  n%d [label=", i);
        dot_string(out, label);
        fprintf(out, "%s];\n", in_cycle[i] ? ", color=red, penwidth=2" : n->waiting ? "" : ", style=dashed");
    }
    for (int i = 0; i < G.count; i++) {
        const wf_node *n = &G.n[i];
        for (int e = 0; e < n->nto; e++) {
            int red = 0;
            for (int j = 0; j < G.ncycle; j++)
                red |= G.cycle[j] == i && G.cycle[(j + 1) % G.ncycle] == n->to[e];
            fprintf(out, "  n%d -> n%d [label=", i, n->to[e]);
            dot_string(out, n->label[e]);
            fprintf(out, "%s];\n", red ? ", color=red, penwidth=2" : "");
        }
    }
    fprintf(out, "}\n");
    free(in_cycle);
    free(shown);
    graph_free(&G);
    return 0;
}
