/* The wait-for graph of a stuck array: the deadlock report and its Graphviz form.
 *
 * A run is deadlocked when in some clock no cell issued, no agent changed anything
 * and nothing scheduled lies ahead: the state is frozen, so the graph is exact. Its
 * nodes are everything that can wait:
 *   - the cells (what each one's next bundle waits for, with its source line);
 *   - the begin markers the agents hold waiting for a free channel ("agent of cell K");
 *   - the output channels those markers and channel requests wait for, held by a
 *     pathway ("cell K out XRight.1"): free when its end marker crosses them;
 *   - the running spool gates ("spool S of cell K").
 * An edge goes from a waiter to the one who must act for it to go on: the writer of
 * an empty queue (found by following the crossbar links upstream to a gate or a
 * spool), the reader of a full one (downstream: a gate, a spool, a begin marker
 * waiting, a cell that has bound nothing to its pathway's end); each held channel of
 * the pool a marker or a request waits for; for a held channel, the cell that must
 * still send its pathway's end marker, or, the marker sent, whoever must drain the
 * words ahead of it; for a cell in evwait, what would post its event (its running
 * spools, pathways to it waiting on the way), or when nothing is on its way, every
 * cell that may still send it one. A cycle of edges is the deadlock; waits that end
 * at a halted cell, the host or a channel the array does not have are chains. */
#include "sim_internal.h"

#include <stdlib.h>
#include <string.h>

#include "warp_support.h"

typedef enum wf_kind { WF_CELL, WF_ROUTE, WF_CHANNEL, WF_SPOOL } wf_kind;

typedef struct wf_edge {
    int to;
    int label;               /* offset of its text in wf_graph.labels */
    int any;                 /* one of many a wait may be ended by: drawn only on the cycle */
} wf_edge;

typedef struct wf_node {
    wf_kind kind;
    int cell;
    int index;               /* WF_ROUTE: input channel (cell-local); WF_CHANNEL: output channel (global); WF_SPOOL: gate */
    int waiting;             /* 0: halted (a chain ends here) */
    uint32_t word;           /* WF_ROUTE: the begin marker's routing word */
    char text[640];
    wf_edge *to;
    int nto, capto;
} wf_node;

typedef struct wf_graph {
    wf_node *n;
    int count, cap;
    int partial;             /* only the cells: a single wait's text, no graph */
    int *route_of;           /* cell * nchan + input channel -> node, or -1 */
    int *channel_of;         /* global output channel -> node, or -1 */
    int *spool_of;           /* cell * nspool + gate -> node, or -1 */
    ws_buf labels;
    int *cycle;              /* node indices, in order; ncycle 0: none */
    int ncycle;
} wf_graph;

static const char *gate_name(unsigned g) { return wsim_gate_name(g); }

static int add_node(wf_graph *G, wf_kind kind, int cell, int index)
{
    if (G->count == G->cap) {
        G->cap = G->cap ? 2 * G->cap : 16;
        G->n = ws_xrealloc(G->n, (size_t)G->cap * sizeof *G->n);
    }
    wf_node *n = &G->n[G->count];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->cell = cell;
    n->index = index;
    return G->count++;
}

static int label_of(wf_graph *G, const char *fmt, va_list ap)
{
    int at = (int)G->labels.len;
    char text[120];
    vsnprintf(text, sizeof text, fmt, ap);
    ws_buf_append(&G->labels, text, strlen(text) + 1);
    return at;
}

static void push_edge(wf_graph *G, int from, int to, int label, int any)
{
    wf_node *n = &G->n[from];
    if (n->nto == n->capto) {
        n->capto = n->capto ? 2 * n->capto : 4;
        n->to = ws_xrealloc(n->to, (size_t)n->capto * sizeof *n->to);
    }
    n->to[n->nto++] = (wf_edge){to, label, any};
}

static void edge(wf_graph *G, int from, int to, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void edge(wf_graph *G, int from, int to, const char *fmt, ...)
{
    if (to < 0) return;
    for (int i = 0; i < G->n[from].nto; i++)
        if (G->n[from].to[i].to == to) return;
    va_list ap;
    va_start(ap, fmt);
    int label = label_of(G, fmt, ap);
    va_end(ap);
    push_edge(G, from, to, label, 0);
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

static int route_node(const wf_graph *G, const wsim *s, int cell, int lic)
{
    if (G->partial || lic < 0) return -1;
    return G->route_of[(size_t)cell * (size_t)wca_channels(s->comm) + (size_t)lic];
}

static int spool_node(const wf_graph *G, const wsim *s, int cell, int gate)
{
    if (G->partial || gate < 0) return -1;
    return G->spool_of[(size_t)cell * wca_spools(s->comm) + (size_t)gate];
}

/* The cell a wait leads to will never act again. */
static void halted_note(const wsim *s, wf_node *n, int cell)
{
    if (s->cells[cell].state == WSIM_CELL_HALTED) say(n, ", which has halted");
    else if (s->cells[cell].state == WSIM_CELL_FAULTED) say(n, ", which has faulted");
}

/* Who must write for an empty queue to get a word: text and edge. */
static void feeder(const wsim *s, wf_graph *G, int node, const wca_queue *q, unsigned g)
{
    wca_trace tr;
    wca_trace_feeder(s->comm, q, &tr);
    wf_node *n = &G->n[node];
    switch (tr.party) {
    case WCA_BY_GATE:
        say(n, "; cell %d writes it through %s", tr.cell, gate_name((unsigned)tr.gate));
        /* The channels followed name the buses the wait crosses. */
        if (count_of(tr.path, " < ") > 0) say(n, " (%s)", tr.path);
        halted_note(s, n, tr.cell);
        edge(G, node, tr.cell, "writes %s", gate_name((unsigned)tr.gate));
        break;
    case WCA_BY_SPOOL:
        say(n, "; spool gate %d of cell %d fills it", tr.spool, tr.cell);
        if (count_of(tr.path, " < ") > 0) say(n, " (%s)", tr.path);
        edge(G, node, spool_node(G, s, tr.cell, tr.spool), "spools out to it");
        break;
    case WCA_BY_HOST:
        if (g < WT_NQUEUES) say(n, "; only the host feeds it, through this cell's %s", wt_opnd_name(WT_OPND_FEED + g));
        else say(n, "; only the host feeds it (%s)", tr.path);
        break;
    default: say(n, "; nothing feeds it (%s)", tr.path); break;
    }
}

/* Who must read for a full queue to get room: text and edge. */
static void drainer(const wsim *s, wf_graph *G, int node, const wca_queue *q)
{
    wca_trace tr;
    wca_trace_drainer(s->comm, q, &tr);
    wf_node *n = &G->n[node];
    switch (tr.party) {
    case WCA_BY_GATE:
        say(n, "; cell %d reads it through %s", tr.cell, gate_name((unsigned)tr.gate));
        if (count_of(tr.path, " > ") > 0) say(n, " (%s)", tr.path);
        halted_note(s, n, tr.cell);
        edge(G, node, tr.cell, "reads %s", gate_name((unsigned)tr.gate));
        break;
    case WCA_BY_SPOOL:
        say(n, "; spool gate %d of cell %d drains it (%s)", tr.spool, tr.cell, tr.path);
        edge(G, node, spool_node(G, s, tr.cell, tr.spool), "spools it in");
        break;
    case WCA_BY_ROUTING:
        say(n, "; its pathway's begin marker waits in cell %d (%s)", tr.cell, tr.path);
        edge(G, node, route_node(G, s, tr.cell, tr.lic), "pathway begin marker");
        break;
    case WCA_BY_UNBOUND:
        say(n, "; cell %d has bound no gate or spool to the pathway's end (%s)", tr.cell, tr.path);
        halted_note(s, n, tr.cell);
        edge(G, node, tr.cell, "must bind a gate");
        break;
    case WCA_BY_HOST: say(n, "; it leads to the host (%s)", tr.path); break;
    default: say(n, "; nothing drains it (%s)", tr.path); break;
    }
}

/* A held output channel: who holds it, and what its release waits for. */
static int channel_node(const wsim *s, wf_graph *G, int loc)
{
    if (G->channel_of[loc] >= 0) return G->channel_of[loc];
    wca_hold h;
    if (!wca_loc_hold(s->comm, loc, &h)) return -1;
    int node = add_node(G, WF_CHANNEL, loc / wca_channels(s->comm), loc);
    G->channel_of[loc] = node;
    wf_node *n = &G->n[node];
    n->waiting = 1;
    say(n, "held by the pathway of cell %d", h.owner);
    if (h.joined) say(n, " (joined to another pathway's words for now)");
    if (!h.end_sent) {
        say(n, "; cell %d has not sent its end marker", h.owner);
        if (s->cells[h.owner].state == WSIM_CELL_HALTED) say(n, " and has halted");
        else if (s->cells[h.owner].state == WSIM_CELL_FAULTED) say(n, " and has faulted");
        edge(G, node, h.owner, "must send the pathway's end marker");
    } else {
        /* The end marker is on its way; the words ahead of it do not move. */
        say(n, "; its end marker waits behind words that do not move");
        drainer(s, G, node, h.feed);
    }
    return node;
}

/* A marker or a request waiting for a free channel of a pool on a bus of a cell. */
static void pool_edges(const wsim *s, wf_graph *G, int node, int cell, unsigned bus, unsigned pool)
{
    const char *what = pool ? "open" : "reservation";
    int pinned, nchan = wca_channels(s->comm);
    int *locs = ws_xcalloc((size_t)nchan, sizeof *locs);
    int nl = wca_pool_channels(s->comm, cell, bus, pool, locs, nchan, &pinned);
    if (nl == 0) {
        if (pinned) say(&G->n[node], "; the %s channels of %s all carry systolic connections, never released", what,
                        bus_name(bus));
        else say(&G->n[node], "; %s has no %s channel (--channels gives none)", bus_name(bus), what);
        free(locs);
        return;
    }
    say(&G->n[node], "; its channels are held:");
    char name[48];
    for (int i = 0; i < nl; i++) {
        wca_hold h;
        if (!wca_loc_hold(s->comm, locs[i], &h)) continue;
        wca_loc_name(s->comm, locs[i], name, sizeof name);
        say(&G->n[node], "%s %s by the pathway of cell %d", i ? "," : "", name, h.owner);
        if (G->partial) continue;
        int c = channel_node(s, G, locs[i]);
        edge(G, node, c, "%s channel %s of cell %d", what, name, cell);
    }
    free(locs);
}

/* A request waiting for a free local channel: every one is the cell's own, released
 * by what it does (an end marker, unbinding a gate, a spool's end). */
static void local_wait(const wsim *s, wf_graph *G, int node, int k)
{
    wca_local_use u;
    wca_local_use_of(s->comm, k, &u);
    wf_node *n = &G->n[node];
    say(n, "; its %d local channels are taken:", u.total);
    const struct {
        int count;
        const char *by;
    } uses[] = {{u.systolic, "systolic connections"}, {u.pathways, "pathways it opened"}, {u.gates, "gates"},
                {u.spools, "spool gates"}, {u.queued, "words still queued"}};
    int listed = 0;
    for (size_t i = 0; i < sizeof uses / sizeof uses[0]; i++)
        if (uses[i].count) say(n, "%s %d by %s", listed++ ? "," : "", uses[i].count, uses[i].by);
    if (u.pathways || u.gates) edge(G, node, node, "must release a local channel");
    if (!u.spools || G->partial) return;
    for (unsigned g = 0; g < wca_spools(s->comm); g++) {
        wca_spool_wait w;
        char ch[48];
        if (!wca_spool_waiting(s->comm, k, g, &w)) continue;
        lic_text(s, w.q, ch, sizeof ch);
        if (strncmp(ch, "local", 5) == 0)
            edge(G, node, spool_node(G, s, k, (int)g), "releases a local channel when it stops");
    }
}

/* An empty queue a cell reads through gate g. */
static void read_wait(const wsim *s, wf_graph *G, int node, int k, unsigned g, const wca_queue *q)
{
    wf_node *n = &G->n[node];
    if (!s->comm && g >= WSIM_GATE_PATH) {
        say(n, "waits to read %s (its address queue is empty)", gate_name(g));
        if (k == 0) {
            say(n, "; only the interface unit writes it");
            return;
        }
        say(n, "; cell %d passes each word it reads there on to it", k - 1);
        halted_note(s, n, k - 1);
        edge(G, node, k - 1, "reads %s", gate_name(g));
        return;
    }
    if (!s->comm) {
        int nb = g == WT_Q_XL || g == WT_Q_YL ? k - 1 : k + 1;
        say(n, "waits to read %s (its queue is empty)", gate_name(g));
        if (nb < 0 || nb >= s->ncells) {
            say(n, "; only the host feeds it, through this cell's %s", wt_opnd_name(WT_OPND_FEED + g));
            return;
        }
        say(n, "; cell %d writes it through %s", nb, gate_name(g ^ 2));
        halted_note(s, n, nb);
        edge(G, node, nb, "writes %s", gate_name(g ^ 2));
        return;
    }
    char ch[48];
    lic_text(s, q, ch, sizeof ch);
    say(n, "waits to read %s from %s (empty)", gate_name(g), ch);
    feeder(s, G, node, q, g);
}

/* A full queue a cell writes through gate g. */
static void write_wait(const wsim *s, wf_graph *G, int node, int k, unsigned g, const wca_queue *q)
{
    wf_node *n = &G->n[node];
    if (!s->comm) {
        int nb = g == WT_Q_XL || g == WT_Q_YL ? k - 1 : k + 1;
        say(n, "waits to write %s (cell %d's queue is full); cell %d reads it through %s", gate_name(g), nb, nb,
            gate_name(g ^ 2));
        halted_note(s, n, nb);
        edge(G, node, nb, "reads %s", gate_name(g ^ 2));
        return;
    }
    char ch[48];
    lic_text(s, q, ch, sizeof ch);
    say(n, "waits to write %s to %s (full)", gate_name(g), ch);
    drainer(s, G, node, q);
}

/* Does a begin marker's routing word name cell k as its destination? */
static int headed_to(const wsim *s, int k, uint32_t word)
{
    if (((word >> 12) & 7u) != 0) return 0;
    for (int i = 0; i < 8; i++) {
        uint32_t cam = wca_ctl_read(s->comm, k, (wt_ctl)(WT_CTL_CAM0 + i));
        if (cam != 0xffffffffu && (cam & 0xfffu) == (word & 0xfffu)) return 1;
    }
    return 0;
}

/* A cell in evwait with no event waiting: what would post one. */
static void event_wait(const wsim *s, wf_graph *G, int node, int k)
{
    if (G->partial) return;
    uint32_t mask = wca_ctl_read(s->comm, k, WT_CTL_EVMASK);
    if ((mask & 0xffffu) == 0) {
        say(&G->n[node], "; its %%evmask reports no kind of event, so none can come");
        return;
    }
    int specific = 0;
    if (mask & (1u << WCA_EV_SPOOL)) {
        for (unsigned g = 0; g < wca_spools(s->comm); g++) {
            int sp = spool_node(G, s, k, (int)g);
            if (sp < 0) continue;
            say(&G->n[node], "; spool gate %u of this cell posts one when it stops", g);
            edge(G, node, sp, "posts an event when it stops");
            specific = 1;
        }
    }
    if (mask & (1u << WT_MARK_PBEGIN)) {
        for (int i = s->ncells; i < G->count; i++) {
            if (G->n[i].kind != WF_ROUTE || !headed_to(s, k, G->n[i].word)) continue;
            say(&G->n[node], "; a pathway to it waits in the agent of cell %d", G->n[i].cell);
            edge(G, node, i, "a pathway to it waits here");
            specific = 1;
        }
    }
    /* A marker behind words in a queue the cell reads posts its event only when the
     * cell has read them: it waits for itself. */
    const wsim_cell *c = &s->cells[k];
    int nchan = wca_channels(s->comm);
    for (unsigned g = 0; g < WSIM_NGATES; g++) {
        if (!c->in[g]) continue;
        int lic = wca_queue_channel(s->comm, c->in[g]) % nchan;
        unsigned count = wca_lic_words(s->comm, k, lic, NULL, NULL, 0);
        uint32_t *words = ws_xcalloc(count ? count : 1, sizeof *words);
        uint8_t *tags = ws_xcalloc(count ? count : 1, 1);
        wca_lic_words(s->comm, k, lic, words, tags, count);
        for (unsigned i = 1; i < count; i++) {
            if (tags[i] == WT_MARK_DATA || !(mask & (1u << tags[i]))) continue;
            char ch[48];
            lic_text(s, c->in[g], ch, sizeof ch);
            say(&G->n[node], "; a marker in %s waits behind %u word%s it must read through %s first", ch, i,
                i == 1 ? "" : "s", gate_name(g));
            edge(G, node, node, "must read %s first", gate_name(g));
            specific = 1;
            break;
        }
        free(words);
        free(tags);
    }
    if (specific) return;
    /* Nothing is on its way: any cell still running may send it something. The
     * nearest upstream first, so a ring of waiters is found as the ring it is. */
    int label = -1, live = 0, only = -1;
    for (int d = 1; d < s->ncells; d++) {
        int c = ((k - d) % s->ncells + s->ncells) % s->ncells;
        if (s->cells[c].state >= WSIM_CELL_HALTED) continue;
        if (label < 0) {
            int at = (int)G->labels.len;
            ws_buf_append(&G->labels, "may send it an event", sizeof "may send it an event");
            label = at;
        }
        push_edge(G, node, c, label, 1);
        live++;
        only = c;
    }
    if (live == 1) say(&G->n[node], "; nothing is on its way to it: only cell %d, still running, may send one", only);
    else if (live) say(&G->n[node], "; nothing is on its way to it: any of the %d other cells still running may send one", live);
    else say(&G->n[node], "; nothing is on its way to it and every other cell has stopped");
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
    for (unsigned p = 0; p < WT_NPATHS; p++) {
        const wca_queue *q = c->path_next[p];
        if ((b->gate_rd >> (WSIM_GATE_PATH + p) & 1) && q && wca_queue_used_at(q, t) + 1 > q->cap) {
            say(n, "waits to pass %s on (cell %d's address queue is full); cell %d reads it through %s",
                wt_paths[p].name, k + 1, k + 1, wt_paths[p].name);
            halted_note(s, n, k + 1);
            edge(G, node, k + 1, "reads %s", wt_paths[p].name);
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
    if (c->iu && s->prog.iu_code && !wsim_iu_ready(s, c, c->pc, t)) {
        say(n, "waits for room for its interface unit's words (a queue it feeds from the host, or %s, is full)",
            wt_paths[0].name);
        return;
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
            pool_edges(s, G, node, k, A, B);
        else if (o->op == WT_OP_CREQ && A < WCA_NBUSES && B <= 1)
            local_wait(s, G, node, k);
        else if (o->op == WT_OP_EVWAIT)
            event_wait(s, G, node, k);
        return;
    }
    say(n, "cannot issue");
}

/* A running spool gate: what it waits for. */
static void spool_wait(const wsim *s, wf_graph *G, int node)
{
    wca_spool_wait w;
    wf_node *n = &G->n[node];
    wca_spool_waiting(s->comm, n->cell, (unsigned)n->index, &w);
    char ch[48];
    lic_text(s, w.q, ch, sizeof ch);
    if (w.out && w.partner >= 0) {
        say(n, "spools out to %s from 0x%x, which its partner spool gate %d has not stored yet", ch, w.addr,
            w.partner);
        edge(G, node, spool_node(G, s, n->cell, w.partner), "must store the words first");
    } else if (w.out) {
        say(n, "spools out to %s (full)", ch);
        drainer(s, G, node, w.q);
    } else {
        say(n, "spools in from %s (empty)", ch);
        feeder(s, G, node, w.q, WSIM_NGATES);
    }
    if (w.count) say(n, "; %u word%s to go", w.count, w.count == 1 ? "" : "s");
}

static void build_graph(const wsim *s, wf_graph *G, int partial)
{
    memset(G, 0, sizeof *G);
    G->partial = partial || !s->comm;
    uint64_t t = s->cycle;
    for (int k = 0; k < s->ncells; k++) add_node(G, WF_CELL, k, -1);
    if (!G->partial) {
        int nchan = wca_channels(s->comm), nspool = (int)wca_spools(s->comm);
        size_t nlic = (size_t)s->ncells * (size_t)nchan;
        G->route_of = ws_xcalloc(nlic, sizeof *G->route_of);
        G->channel_of = ws_xcalloc(nlic, sizeof *G->channel_of);
        G->spool_of = ws_xcalloc((size_t)s->ncells * (size_t)nspool, sizeof *G->spool_of);
        for (size_t i = 0; i < nlic; i++) G->route_of[i] = G->channel_of[i] = -1;
        for (size_t i = 0; i < (size_t)s->ncells * (size_t)nspool; i++) G->spool_of[i] = -1;
        /* The nodes others point at, first: spools, begin markers. */
        for (int k = 0; k < s->ncells; k++)
            for (int g = 0; g < nspool; g++) {
                wca_spool_wait w;
                if (!wca_spool_waiting(s->comm, k, (unsigned)g, &w)) continue;
                int sp = add_node(G, WF_SPOOL, k, g);
                G->n[sp].waiting = 1;
                G->spool_of[(size_t)k * (size_t)nspool + (size_t)g] = sp;
            }
        for (int k = 0; k < s->ncells; k++) {
            wca_trace tr;
            for (int i = 0; wca_routing_wait(s->comm, k, i, &tr); i++) {
                int r = add_node(G, WF_ROUTE, k, tr.lic);
                G->n[r].waiting = 1;
                G->n[r].word = tr.word;
                G->route_of[(size_t)k * (size_t)nchan + (size_t)tr.lic] = r;
            }
        }
        int fixed = G->count;
        for (int i = s->ncells; i < fixed; i++) {
            if (G->n[i].kind == WF_SPOOL) {
                spool_wait(s, G, i);
                continue;
            }
            wca_trace tr;
            for (int j = 0; wca_routing_wait(s->comm, G->n[i].cell, j, &tr); j++) {
                if (tr.lic != G->n[i].index) continue;
                char ch[48];
                wca_lic_name(s->comm, G->n[i].cell * nchan + tr.lic, ch, sizeof ch);
                say(&G->n[i], "holds a pathway begin marker at the head of %s, waiting for a free %s channel on %s", ch,
                    tr.pool ? "open" : "reservation", bus_name(tr.bus));
                pool_edges(s, G, i, G->n[i].cell, tr.bus, tr.pool);
                break;
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
            int v = G->n[u].to[next[u]++].to;
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
    for (int i = 0; i < G->count; i++) free(G->n[i].to);
    free(G->n);
    free(G->route_of);
    free(G->channel_of);
    free(G->spool_of);
    ws_buf_free(&G->labels);
    free(G->cycle);
}

/* The node's name in the cycle's line: "cell 1", "agent of cell 1",
 * "cell 1 out XRight.0", "spool 0 of cell 1". */
static void node_name(const wsim *s, const wf_node *n, char *buf, size_t size)
{
    char ch[48];
    switch (n->kind) {
    case WF_ROUTE: snprintf(buf, size, "agent of cell %d", n->cell); break;
    case WF_CHANNEL:
        wca_loc_name(s->comm, n->index, ch, sizeof ch);
        snprintf(buf, size, "cell %d %s", n->cell, ch);
        break;
    case WF_SPOOL: snprintf(buf, size, "spool %d of cell %d", n->index, n->cell); break;
    default: snprintf(buf, size, "cell %d", n->cell); break;
    }
}

/* The node's head in its own line: "cell K (cid C): pc P (FILE:LINE)", "agent of cell
 * K (cid C)", "cell K (cid C) out XRight.0", "spool S of cell K (cid C)". */
static void node_head(const wsim *s, const wf_node *n, char *buf, size_t size)
{
    int cid = s->prog.first_cell + n->cell;
    char ch[48];
    switch (n->kind) {
    case WF_ROUTE: snprintf(buf, size, "agent of cell %d (cid %d)", n->cell, cid); return;
    case WF_CHANNEL:
        wca_loc_name(s->comm, n->index, ch, sizeof ch);
        snprintf(buf, size, "cell %d (cid %d) %s", n->cell, cid, ch);
        return;
    case WF_SPOOL: snprintf(buf, size, "spool %d of cell %d (cid %d)", n->index, n->cell, cid); return;
    default: break;
    }
    const wsim_cell *c = &s->cells[n->cell];
    char w[256];
    const char *where = wsim_where(s, c->pc, w, sizeof w);
    if (c->state == WSIM_CELL_HALTED) snprintf(buf, size, "cell %d (cid %d)", n->cell, cid);
    else if (where && *where) snprintf(buf, size, "cell %d (cid %d): pc %u (%s)", n->cell, cid, c->pc, where);
    else snprintf(buf, size, "cell %d (cid %d): pc %u", n->cell, cid, c->pc);
}

void wsim_deadlock(wsim *s)
{
    wf_graph G;
    build_graph(s, &G, 0);
    find_cycle(&G);
    ws_buf b = {0};
    char head[320];
    uint8_t *listed = ws_xcalloc((size_t)G.count, 1);
    if (G.ncycle) {
        ws_buf_printf(&b, "wait-for cycle:");
        for (int i = 0; i <= G.ncycle; i++) {
            node_name(s, &G.n[G.cycle[i % G.ncycle]], head, sizeof head);
            ws_buf_printf(&b, "%s %s", i ? " ->" : "", head);
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

void wsim_wait_reason(const wsim *s, int cell, uint64_t t, char *buf, size_t size)
{
    wf_graph G;
    memset(&G, 0, sizeof G);
    G.partial = 1;
    for (int k = 0; k < s->ncells; k++) add_node(&G, WF_CELL, k, -1);
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
    build_graph(s, &G, 0);
    find_cycle(&G);
    /* cycle_next[i]: the node after i on the cycle, or -1. */
    int *cycle_next = ws_xcalloc((size_t)G.count, sizeof *cycle_next);
    for (int i = 0; i < G.count; i++) cycle_next[i] = -1;
    for (int i = 0; i < G.ncycle; i++) cycle_next[G.cycle[i]] = G.cycle[(i + 1) % G.ncycle];
    fprintf(out, "digraph deadlock {\n  label=\"deadlock at clock %llu%s\";\n  labelloc=t;\n"
                 "  node [shape=box, fontname=\"monospace\"];\n",
            (unsigned long long)s->cycle, G.ncycle ? " (red: the wait-for cycle)" : "");
    /* Every waiting node, and the nodes their edges reach. */
    uint8_t *shown = ws_xcalloc((size_t)G.count, 1);
    for (int i = 0; i < G.count; i++) {
        if (!G.n[i].waiting) continue;
        shown[i] = 1;
        for (int e = 0; e < G.n[i].nto; e++) shown[G.n[i].to[e].to] = 1;
    }
    char head[320], label[1000];
    for (int i = 0; i < G.count; i++) {
        if (!shown[i]) continue;
        const wf_node *n = &G.n[i];
        node_head(s, n, head, sizeof head);
        snprintf(label, sizeof label, "%s\n%s", head, n->text);
        fprintf(out, "  n%d [label=", i);
        dot_string(out, label);
        fprintf(out, "%s];\n", cycle_next[i] >= 0 ? ", color=red, penwidth=2" : n->waiting ? "" : ", style=dashed");
    }
    for (int i = 0; i < G.count; i++) {
        const wf_node *n = &G.n[i];
        for (int e = 0; e < n->nto; e++) {
            int red = cycle_next[i] == n->to[e].to;
            /* "Any cell may send it an event" would draw every pair of cells. */
            if (n->to[e].any && !red) continue;
            fprintf(out, "  n%d -> n%d [label=", i, n->to[e].to);
            dot_string(out, G.labels.data + n->to[e].label);
            fprintf(out, "%s];\n", red ? ", color=red, penwidth=2" : "");
        }
    }
    fprintf(out, "}\n");
    free(cycle_next);
    free(shown);
    graph_free(&G);
    return 0;
}
