/* The ConSet communication compiler: partitioner and router, then scheduler
 * (warp_conset.h says what each does and why). Everything is deterministic: ties
 * are broken by cell, bus, phase and connection numbers, never by addresses. */
#include "warp_conset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warp_support.h"

/* ---- The torus ------------------------------------------------------------------ */

int wcs_neighbour(const wcs_machine *m, int cell, int bus)
{
    int x = cell % m->width, y = cell / m->width;
    switch (bus) {
    case WCS_XRIGHT: x = (x + 1) % m->width; break;
    case WCS_XLEFT: x = (x + m->width - 1) % m->width; break;
    case WCS_YUP: y = (y + 1) % m->height; break;
    default: y = (y + m->height - 1) % m->height; break;
    }
    return y * m->width + x;
}

static int ring_distance(int a, int b, int n)
{
    int d = abs(a - b);
    return d < n - d ? d : n - d;
}

int wcs_distance(const wcs_machine *m, int a, int b)
{
    if (m->mesh) return abs(a % m->width - b % m->width) + abs(a / m->width - b / m->width);
    return ring_distance(a % m->width, b % m->width, m->width) + ring_distance(a / m->width, b / m->width, m->height);
}

/* Does the bus leave the cell over the torus's edge? */
static int wraps(const wcs_machine *m, int cell, int bus)
{
    int x = cell % m->width, y = cell / m->width;
    switch (bus) {
    case WCS_XRIGHT: return x == m->width - 1;
    case WCS_XLEFT: return x == 0;
    case WCS_YUP: return y == m->height - 1;
    default: return y == 0;
    }
}

/* ---- One phase: what its routes use --------------------------------------------- */

typedef struct phase {
    int *bus_use;     /* per cell * 4 + bus: routes crossing that bus */
    int *cell_use;    /* per cell: routes using one of its logical channels (starting,
                         passing through or ending there) */
    int *starts, *ends; /* per cell: the connections it sends and receives */
    int nconns;
} phase;

typedef struct compiler {
    const wcs_machine *m;
    const wcs_conn *conns;
    int n, ncells;
    phase *phases;
    int nphases;
    size_t phcap;
    int *conn_phase;          /* per connection, -1 while unrouted */
    int **conn_path;          /* per connection: its buses, as cell * 4 + bus */
    int *conn_len;
    /* the search's scratch */
    int64_t *cost;
    int *via;                 /* per cell: the bus index (cell * 4 + bus) it was reached over */
    int *heap, nheap;
    int *path, npath;
} compiler;

static void phase_init(compiler *C, phase *p)
{
    p->bus_use = ws_xcalloc((size_t)C->ncells * 4, sizeof *p->bus_use);
    p->cell_use = ws_xcalloc((size_t)C->ncells, sizeof *p->cell_use);
    p->starts = ws_xcalloc((size_t)C->ncells, sizeof *p->starts);
    p->ends = ws_xcalloc((size_t)C->ncells, sizeof *p->ends);
    p->nconns = 0;
}

static void phase_free(phase *p)
{
    free(p->bus_use);
    free(p->cell_use);
    free(p->starts);
    free(p->ends);
}

/* A step's cost: hops first (a detour spends channels on every bus it crosses),
 * then how full the bus and the cell entered already are, so that routes spread
 * over the torus instead of piling onto the first shortest path. */
enum { HOP_COST = 1 << 20, CONGESTION_COST = 1024 };

static int heap_less(const compiler *C, int a, int b)
{
    return C->cost[a] != C->cost[b] ? C->cost[a] < C->cost[b] : a < b;
}

static void heap_push(compiler *C, int v)
{
    int i = C->nheap++;
    C->heap[i] = v;
    while (i > 0 && heap_less(C, C->heap[i], C->heap[(i - 1) / 2])) {
        int t = C->heap[i];
        C->heap[i] = C->heap[(i - 1) / 2];
        C->heap[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static int heap_pop(compiler *C)
{
    int top = C->heap[0];
    C->heap[0] = C->heap[--C->nheap];
    for (int i = 0;;) {
        int l = 2 * i + 1, r = l + 1, s = i;
        if (l < C->nheap && heap_less(C, C->heap[l], C->heap[s])) s = l;
        if (r < C->nheap && heap_less(C, C->heap[r], C->heap[s])) s = r;
        if (s == i) break;
        int t = C->heap[i];
        C->heap[i] = C->heap[s];
        C->heap[s] = t;
        i = s;
    }
    return top;
}

/* The cheapest route of connection k in phase p (Dijkstra; a cell may be in the heap
 * more than once, stale entries are skipped). Leaves its buses in C->path and
 * returns its cost, or -1 if the phase has no room for it. */
static int64_t route_in(compiler *C, const phase *p, int k)
{
    const wcs_machine *m = C->m;
    int src = C->conns[k].src, dst = C->conns[k].dst;
    if (p->cell_use[src] >= m->cell_channels) return -1;
    for (int c = 0; c < C->ncells; c++) C->cost[c] = INT64_MAX;
    C->nheap = 0;
    C->cost[src] = 0;
    C->via[src] = -1;
    heap_push(C, src);
    /* Each cell is settled once: a popped cell whose cost is lower than when pushed
     * was pushed again, and the later entry is the one that counts. */
    uint8_t *done = calloc((size_t)C->ncells, 1);
    while (C->nheap) {
        int u = heap_pop(C);
        if (done[u]) continue;
        done[u] = 1;
        if (u == dst) break;
        for (int bus = 0; bus < 4; bus++) {
            int v = wcs_neighbour(m, u, bus);
            if (v == u || done[v] || (m->mesh && wraps(m, u, bus))) continue;
            int used = p->bus_use[u * 4 + bus], entered = p->cell_use[v];
            if (used >= m->bus_channels || entered >= m->cell_channels) continue;
            int64_t c = C->cost[u] + HOP_COST + (int64_t)CONGESTION_COST * used / m->bus_channels +
                        (int64_t)CONGESTION_COST * entered / m->cell_channels;
            if (c < C->cost[v]) {
                C->cost[v] = c;
                C->via[v] = u * 4 + bus;
                heap_push(C, v);
            }
        }
    }
    free(done);
    if (C->cost[dst] == INT64_MAX) return -1;
    C->npath = 0;
    for (int v = dst; v != src; v = C->via[v] / 4) C->path[C->npath++] = C->via[v];
    for (int i = 0; i < C->npath / 2; i++) {
        int t = C->path[i];
        C->path[i] = C->path[C->npath - 1 - i];
        C->path[C->npath - 1 - i] = t;
    }
    return C->cost[dst];
}

static void take_route(compiler *C, int p, int k)
{
    phase *ph = &C->phases[p];
    C->conn_phase[k] = p;
    C->conn_len[k] = C->npath;
    C->conn_path[k] = ws_xrealloc(C->conn_path[k], sizeof **C->conn_path * (size_t)(C->npath + 1));
    memcpy(C->conn_path[k], C->path, sizeof *C->path * (size_t)C->npath);
    ph->cell_use[C->conns[k].src]++;
    ph->starts[C->conns[k].src]++;
    ph->ends[C->conns[k].dst]++;
    for (int i = 0; i < C->npath; i++) {
        ph->bus_use[C->path[i]]++;
        ph->cell_use[wcs_neighbour(C->m, C->path[i] / 4, C->path[i] % 4)]++;
    }
    ph->nconns++;
}

static void rip_up(compiler *C, int k)
{
    phase *ph = &C->phases[C->conn_phase[k]];
    ph->cell_use[C->conns[k].src]--;
    ph->starts[C->conns[k].src]--;
    ph->ends[C->conns[k].dst]--;
    for (int i = 0; i < C->conn_len[k]; i++) {
        int b = C->conn_path[k][i];
        ph->bus_use[b]--;
        ph->cell_use[wcs_neighbour(C->m, b / 4, b % 4)]--;
    }
    ph->nconns--;
    C->conn_phase[k] = -1;
}

static int new_phase(compiler *C)
{
    ws_grow(&C->phases, &C->phcap, (size_t)C->nphases + 1, sizeof *C->phases);
    phase_init(C, &C->phases[C->nphases]);
    return C->nphases++;
}

/* How busy connection k's ends already are in phase p: the more connections
 * one cell sends or receives in a phase, the longer the phase lasts for every
 * cell (all wait for the last at the context switch), however few the others
 * have. */
static int endpoint_load(const compiler *C, const phase *p, int k)
{
    int s = p->starts[C->conns[k].src], e = p->ends[C->conns[k].dst];
    return s > e ? s : e;
}

/* The phase (other than `skip`, -1 for none) whose route for k is shortest, then
 * whose cells at k's ends are least busy, then the earliest; -1 if none has room.
 * The route is left in C->path. */
static int best_phase(compiler *C, int k, int skip)
{
    int best = -1, best_load = 0;
    int64_t best_hops = 0;
    int *best_path = malloc(sizeof *best_path * (size_t)(C->ncells + 1));
    int best_len = 0;
    int64_t shortest = wcs_distance(C->m, C->conns[k].src, C->conns[k].dst);
    for (int p = 0; p < C->nphases; p++) {
        if (p == skip) continue;
        int load = endpoint_load(C, &C->phases[p], k);
        /* A phase no better on both counts is not worth the search. */
        if (best >= 0 && best_hops == shortest && load >= best_load) continue;
        int64_t c = route_in(C, &C->phases[p], k);
        if (c < 0) continue;
        /* Only hops and the ends' load decide between phases: congestion is for
         * spreading routes within a phase. */
        int64_t hops = c / HOP_COST;
        if (best >= 0 && (hops > best_hops || (hops == best_hops && load >= best_load))) continue;
        best = p;
        best_hops = hops;
        best_load = load;
        best_len = C->npath;
        memcpy(best_path, C->path, sizeof *best_path * (size_t)C->npath);
        if (hops == shortest && load == 0) break;
    }
    if (best >= 0) {
        memcpy(C->path, best_path, sizeof *best_path * (size_t)best_len);
        C->npath = best_len;
    }
    free(best_path);
    return best;
}

/* Longest connections first: they have the fewest alternatives once the torus
 * fills; then by source and destination for a stable order. */
static const compiler *sort_ctx;
static int by_length(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    const wcs_conn *ca = &sort_ctx->conns[a], *cb = &sort_ctx->conns[b];
    int da = wcs_distance(sort_ctx->m, ca->src, ca->dst), db = wcs_distance(sort_ctx->m, cb->src, cb->dst);
    if (da != db) return db - da;
    return a - b;
}

/* Moves every connection of the smallest phase into the others, if they have room;
 * 1 if the phase could be emptied (and was removed). */
static int empty_smallest_phase(compiler *C)
{
    int victim = -1;
    for (int p = 0; p < C->nphases; p++)
        if (victim < 0 || C->phases[p].nconns <= C->phases[victim].nconns) victim = p;
    if (victim < 0 || C->nphases < 2) return 0;
    int *moved = malloc(sizeof *moved * (size_t)(C->phases[victim].nconns + 1));
    /* The routes they had, to put them back exactly: rerouting in the victim
     * could take other buses, and then a later one might find no room. */
    int **old_path = malloc(sizeof *old_path * (size_t)(C->phases[victim].nconns + 1));
    int *old_len = malloc(sizeof *old_len * (size_t)(C->phases[victim].nconns + 1));
    int nmoved = 0, ok = 1;
    for (int k = 0; k < C->n && ok; k++) {
        if (C->conn_phase[k] != victim) continue;
        int p = best_phase(C, k, victim);
        if (p < 0) {
            ok = 0;
            break;
        }
        old_len[nmoved] = C->conn_len[k];
        old_path[nmoved] = malloc(sizeof **old_path * (size_t)(C->conn_len[k] + 1));
        memcpy(old_path[nmoved], C->conn_path[k], sizeof **old_path * (size_t)C->conn_len[k]);
        rip_up(C, k);
        take_route(C, p, k);
        moved[nmoved++] = k;
    }
    if (!ok) {
        for (int i = nmoved - 1; i >= 0; i--) {
            int k = moved[i];
            rip_up(C, k);
            C->npath = old_len[i];
            memcpy(C->path, old_path[i], sizeof *C->path * (size_t)old_len[i]);
            take_route(C, victim, k);
        }
    }
    for (int i = 0; i < nmoved; i++) free(old_path[i]);
    free(old_path);
    free(old_len);
    if (!ok) {
        free(moved);
        return 0;
    }
    free(moved);
    phase_free(&C->phases[victim]);
    memmove(&C->phases[victim], &C->phases[victim + 1], sizeof *C->phases * (size_t)(C->nphases - victim - 1));
    C->nphases--;
    for (int k = 0; k < C->n; k++)
        if (C->conn_phase[k] > victim) C->conn_phase[k]--;
    return 1;
}

/* Moves connections between phases, each onto a route no longer than its own,
 * where that evens out how many connections a cell sends and receives in each
 * phase (the sum of their squares falls with every move, so this ends): the
 * router fills the first phases with whatever fits, and a phase lasts as long as
 * its busiest cell. Rounds over all connections until one moves nothing. */
static void balance_ends(compiler *C, int rounds)
{
    for (int r = 0; r < rounds; r++) {
        int moved = 0;
        for (int k = 0; k < C->n; k++) {
            const phase *from = &C->phases[C->conn_phase[k]];
            int src = C->conns[k].src, dst = C->conns[k].dst;
            int a = from->starts[src], e = from->ends[dst];
            if (a + e <= 3) continue;
            int best = -1, best_gain = 0;
            for (int q = 0; q < C->nphases; q++) {
                const phase *to = &C->phases[q];
                int gain = (a - to->starts[src]) + (e - to->ends[dst]) - 2;
                if (q == C->conn_phase[k] || gain <= best_gain) continue;
                int64_t c = route_in(C, to, k);
                if (c < 0 || c / HOP_COST > C->conn_len[k]) continue;
                best = q;
                best_gain = gain;
            }
            if (best < 0) continue;
            route_in(C, &C->phases[best], k);
            rip_up(C, k);
            take_route(C, best, k);
            moved++;
        }
        if (!moved) break;
    }
}

/* ---- The scheduler ------------------------------------------------------------- */

typedef struct interval { uint32_t start, end; } interval;

typedef struct timetable {
    interval *v;
    size_t n, cap;
    uint64_t busy, remaining;
} timetable;

static int is_free(const timetable *t, uint32_t start, uint32_t len)
{
    for (size_t i = 0; i < t->n; i++)
        if (start < t->v[i].end && t->v[i].start < start + len) return 0;
    return 1;
}

/* The first start at which [start, start + len) is free on both cells. */
static uint32_t first_common_gap(const timetable *a, const timetable *b, uint32_t len)
{
    uint32_t best = UINT32_MAX;
    const timetable *both[2] = {a, b};
    if (is_free(a, 0, len) && is_free(b, 0, len)) return 0;
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < both[s]->n; i++) {
            uint32_t t = both[s]->v[i].end;
            if (t < best && is_free(a, t, len) && is_free(b, t, len)) best = t;
        }
    return best;
}

static void book(timetable *t, uint32_t start, uint32_t len)
{
    ws_grow(&t->v, &t->cap, t->n + 1, sizeof *t->v);
    t->v[t->n++] = (interval){start, start + len};
    t->busy += len;
    t->remaining -= len;
}

static const wcs_plan *order_ctx;
static int by_start(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    const wcs_route *ra = &order_ctx->routes[a], *rb = &order_ctx->routes[b];
    if (ra->start != rb->start) return ra->start < rb->start ? -1 : 1;
    return a - b;
}

static void schedule(const compiler *C, wcs_plan *P)
{
    int nc = C->ncells;
    timetable *tt = ws_xcalloc((size_t)nc, sizeof *tt);
    uint8_t *placed = ws_xcalloc((size_t)C->n + 1, 1);
    P->phase_clocks = ws_xcalloc((size_t)C->nphases + 1, sizeof *P->phase_clocks);
    P->order_start = ws_xcalloc((size_t)C->nphases * (size_t)nc + 1, sizeof *P->order_start);
    P->order = ws_xmalloc(sizeof *P->order * (size_t)(2 * C->n + 1));
    int filled = 0;
    for (int p = 0; p < C->nphases; p++) {
        for (int c = 0; c < nc; c++) {
            tt[c].n = 0;
            tt[c].busy = tt[c].remaining = 0;
        }
        int left = 0;
        for (int k = 0; k < C->n; k++) {
            if (C->conn_phase[k] != p) continue;
            uint64_t d = (uint64_t)C->conns[k].words * (uint64_t)C->m->clocks_per_word;
            tt[C->conns[k].src].remaining += d;
            tt[C->conns[k].dst].remaining += d;
            left++;
        }
        for (; left > 0; left--) {
            /* The cell whose schedule can end no earlier than any other's... */
            int cell = -1;
            for (int c = 0; c < nc; c++) {
                if (!tt[c].remaining) continue;
                if (cell < 0 || tt[c].busy + tt[c].remaining > tt[cell].busy + tt[cell].remaining) cell = c;
            }
            /* ...takes its longest connection still to place. */
            int pick = -1;
            uint32_t pick_len = 0;
            for (int k = 0; k < C->n; k++) {
                if (C->conn_phase[k] != p || placed[k] || (C->conns[k].src != cell && C->conns[k].dst != cell)) continue;
                uint32_t d = C->conns[k].words * (uint32_t)C->m->clocks_per_word;
                if (pick < 0 || d > pick_len) pick = k, pick_len = d;
            }
            if (pick < 0) {
                /* Only connections of no length are left anywhere: any cell's will do. */
                for (int k = 0; k < C->n && pick < 0; k++)
                    if (C->conn_phase[k] == p && !placed[k]) pick = k, pick_len = 0;
            }
            const wcs_conn *cn = &C->conns[pick];
            uint32_t start = first_common_gap(&tt[cn->src], &tt[cn->dst], pick_len);
            book(&tt[cn->src], start, pick_len);
            book(&tt[cn->dst], start, pick_len);
            placed[pick] = 1;
            P->routes[pick].start = start;
            P->routes[pick].end = start + pick_len;
            if (start + pick_len > P->phase_clocks[p]) P->phase_clocks[p] = start + pick_len;
        }
        /* Each cell's connections in the order of their start times. */
        for (int c = 0; c < nc; c++) {
            int first = filled;
            P->order_start[p * nc + c] = first;
            for (int k = 0; k < C->n; k++)
                if (C->conn_phase[k] == p && (C->conns[k].src == c || C->conns[k].dst == c)) P->order[filled++] = k;
            order_ctx = P;
            qsort(P->order + first, (size_t)(filled - first), sizeof *P->order, by_start);
        }
    }
    P->order_start[C->nphases * nc] = filled;
    for (int c = 0; c < nc; c++) free(tt[c].v);
    free(tt);
    free(placed);
}

/* ---- The driver ---------------------------------------------------------------- */

static int check_machine(const wcs_machine *m, char *err, size_t errlen)
{
    if (m->width < 1 || m->width > 32 || m->height < 1 || m->height > 32) {
        snprintf(err, errlen, "torus of %dx%d cells: each side must be 1 to 32", m->width, m->height);
        return -1;
    }
    if (m->bus_channels < 1 || m->cell_channels < 1 || m->clocks_per_word < 1) {
        snprintf(err, errlen, "every bus and cell needs at least one logical channel, and a word at least a clock");
        return -1;
    }
    return 0;
}

int wcs_compile(const wcs_machine *m, const wcs_conn *conns, int n, const wcs_options *opts, wcs_plan *out,
                char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (check_machine(m, err, errlen) != 0) return -1;
    int ncells = m->width * m->height;
    if (n < 0 || n > WCS_MAX_CONNS) {
        snprintf(err, errlen, "%d connections: at most %d", n, WCS_MAX_CONNS);
        return -1;
    }
    for (int k = 0; k < n; k++) {
        if (conns[k].src < 0 || conns[k].src >= ncells || conns[k].dst < 0 || conns[k].dst >= ncells) {
            snprintf(err, errlen, "connection %d: cell %d to cell %d, but the torus has cells 0 to %d", k, conns[k].src,
                     conns[k].dst, ncells - 1);
            return -1;
        }
        if (conns[k].src == conns[k].dst) {
            snprintf(err, errlen, "connection %d: cell %d to itself", k, conns[k].src);
            return -1;
        }
        if (conns[k].words > UINT32_MAX / 16 / (uint32_t)m->clocks_per_word) {
            snprintf(err, errlen, "connection %d: %u words is more than a phase can time", k, conns[k].words);
            return -1;
        }
    }
    compiler C = {.m = m, .conns = conns, .n = n, .ncells = ncells};
    C.conn_phase = ws_xmalloc(sizeof *C.conn_phase * (size_t)(n + 1));
    C.conn_path = ws_xcalloc((size_t)n + 1, sizeof *C.conn_path);
    C.conn_len = ws_xcalloc((size_t)n + 1, sizeof *C.conn_len);
    C.cost = ws_xmalloc(sizeof *C.cost * (size_t)ncells);
    C.via = ws_xmalloc(sizeof *C.via * (size_t)ncells);
    C.heap = ws_xmalloc(sizeof *C.heap * (size_t)(ncells * 4 + 1));
    C.path = ws_xmalloc(sizeof *C.path * (size_t)(ncells + 1));
    int *byorder = ws_xmalloc(sizeof *byorder * (size_t)(n + 1));
    for (int k = 0; k < n; k++) {
        C.conn_phase[k] = -1;
        byorder[k] = k;
    }
    sort_ctx = &C;
    qsort(byorder, (size_t)n, sizeof *byorder, by_length);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        int k = byorder[i];
        int p = best_phase(&C, k, -1);
        if (p < 0) {
            /* An empty phase always has room: a shortest route needs one channel of
             * each bus it crosses and of each cell it enters. */
            p = new_phase(&C);
            route_in(&C, &C.phases[p], k);
        }
        take_route(&C, p, k);
    }
    int rounds = opts && opts->ripup_rounds > 0 ? opts->ripup_rounds : 0;
    for (int r = 0; r < rounds && empty_smallest_phase(&C); r++) {}
    balance_ends(&C, 16);
    if (opts && opts->max_phases > 0 && C.nphases > opts->max_phases) {
        snprintf(err, errlen, "the connections need %d phases; at most %d are allowed", C.nphases, opts->max_phases);
        rc = -1;
    }
    if (rc == 0) {
        out->ncells = ncells;
        out->nconns = n;
        out->nphases = C.nphases;
        out->routes = ws_xcalloc((size_t)n + 1, sizeof *out->routes);
        int total = 0;
        for (int k = 0; k < n; k++) total += C.conn_len[k];
        out->hops = ws_xmalloc(sizeof *out->hops * (size_t)(total + 1));
        /* Channels in connection order: the lowest free one on each bus of its phase. */
        int *next_channel = ws_xcalloc((size_t)C.nphases * (size_t)ncells * 4 + 1, sizeof *next_channel);
        for (int k = 0; k < n; k++) {
            wcs_route *r = &out->routes[k];
            r->phase = C.conn_phase[k];
            r->first = out->nhops;
            r->nhops = C.conn_len[k];
            for (int i = 0; i < C.conn_len[k]; i++) {
                int b = C.conn_path[k][i];
                int *ch = &next_channel[((size_t)r->phase * (size_t)ncells) * 4 + (size_t)b];
                out->hops[out->nhops++] = (wcs_hop){b / 4, (uint8_t)(b % 4), (uint8_t)(*ch)++};
            }
        }
        free(next_channel);
        schedule(&C, out);
    }
    for (int p = 0; p < C.nphases; p++) phase_free(&C.phases[p]);
    free(C.phases);
    for (int k = 0; k < n; k++) free(C.conn_path[k]);
    free(C.conn_path);
    free(C.conn_len);
    free(C.conn_phase);
    free(C.cost);
    free(C.via);
    free(C.heap);
    free(C.path);
    free(byorder);
    return rc;
}

void wcs_plan_free(wcs_plan *p)
{
    free(p->routes);
    free(p->hops);
    free(p->order);
    free(p->order_start);
    free(p->phase_clocks);
    memset(p, 0, sizeof *p);
}

/* ---- The independent check -------------------------------------------------------- */

int wcs_check(const wcs_machine *m, const wcs_conn *conns, int n, const wcs_plan *p, char *err, size_t errlen)
{
    if (check_machine(m, err, errlen) != 0) return -1;
    int nc = m->width * m->height;
    if (p->nconns != n || p->ncells != nc) {
        snprintf(err, errlen, "the plan is for %d connections on %d cells, not %d on %d", p->nconns, p->ncells, n, nc);
        return -1;
    }
    size_t slots = (size_t)p->nphases * (size_t)nc;
    int *bus = ws_xcalloc(slots * 4 + 1, sizeof *bus);   /* bitmask of channels taken */
    int *entered = ws_xcalloc(slots + 1, sizeof *entered);
    int rc = -1;
    for (int k = 0; k < n; k++) {
        const wcs_route *r = &p->routes[k];
        if (r->phase < 0 || r->phase >= p->nphases) {
            snprintf(err, errlen, "connection %d: phase %d of %d", k, r->phase, p->nphases);
            goto out;
        }
        int at = conns[k].src;
        if (++entered[(size_t)r->phase * (size_t)nc + (size_t)at] > m->cell_channels) {
            snprintf(err, errlen, "phase %d: more than %d connections use cell %d", r->phase, m->cell_channels, at);
            goto out;
        }
        for (int i = 0; i < r->nhops; i++) {
            const wcs_hop *h = &p->hops[r->first + i];
            if (h->cell != at || h->bus > 3 || h->channel >= m->bus_channels || h->channel >= 31) {
                snprintf(err, errlen, "connection %d: hop %d leaves cell %d over bus %d channel %d, not a step from cell %d",
                         k, i, h->cell, h->bus, h->channel, at);
                goto out;
            }
            int *taken = &bus[((size_t)r->phase * (size_t)nc + (size_t)at) * 4 + h->bus];
            if (*taken >> h->channel & 1) {
                snprintf(err, errlen, "phase %d: channel %d of bus %d of cell %d carries two connections", r->phase,
                         h->channel, h->bus, at);
                goto out;
            }
            *taken |= 1 << h->channel;
            if (m->mesh && wraps(m, at, h->bus)) {
                snprintf(err, errlen, "connection %d: hop %d wraps around the mesh at cell %d", k, i, at);
                goto out;
            }
            at = wcs_neighbour(m, at, h->bus);
            if (++entered[(size_t)r->phase * (size_t)nc + (size_t)at] > m->cell_channels) {
                snprintf(err, errlen, "phase %d: more than %d connections use cell %d", r->phase, m->cell_channels, at);
                goto out;
            }
        }
        if (at != conns[k].dst || r->nhops < 1) {
            snprintf(err, errlen, "connection %d: its route ends at cell %d, not %d", k, at, conns[k].dst);
            goto out;
        }
        if (r->end - r->start != conns[k].words * (uint32_t)m->clocks_per_word) {
            snprintf(err, errlen, "connection %d: scheduled for %u clocks, not %u", k, r->end - r->start,
                     conns[k].words * (uint32_t)m->clocks_per_word);
            goto out;
        }
    }
    for (int ph = 0; ph < p->nphases; ph++) {
        for (int c = 0; c < nc; c++) {
            int from = p->order_start[ph * nc + c], to = p->order_start[ph * nc + c + 1];
            int count = 0;
            for (int k = 0; k < n; k++) count += p->routes[k].phase == ph && (conns[k].src == c || conns[k].dst == c);
            if (to - from != count) {
                snprintf(err, errlen, "phase %d, cell %d: %d transfers in its order, %d connections", ph, c, to - from,
                         count);
                goto out;
            }
            for (int i = from; i < to; i++) {
                int k = p->order[i];
                if (p->routes[k].phase != ph || (conns[k].src != c && conns[k].dst != c)) {
                    snprintf(err, errlen, "phase %d, cell %d: connection %d is not one of its own", ph, c, k);
                    goto out;
                }
                if (i > from && p->routes[k].start < p->routes[p->order[i - 1]].end) {
                    snprintf(err, errlen, "phase %d, cell %d: connection %d starts before connection %d ends", ph, c, k,
                             p->order[i - 1]);
                    goto out;
                }
                if (p->routes[k].end > p->phase_clocks[ph]) {
                    snprintf(err, errlen, "phase %d: connection %d ends after the phase", ph, k);
                    goto out;
                }
            }
        }
    }
    rc = 0;
out:
    free(bus);
    free(entered);
    return rc;
}

int wcs_phase_lower_bound(const wcs_machine *m, const wcs_conn *conns, int n)
{
    int nc = m->width * m->height;
    if (nc < 1 || m->cell_channels < 1 || m->bus_channels < 1) return 0;
    int64_t entries = 0;
    int *in = ws_xcalloc((size_t)nc, sizeof *in), *out = ws_xcalloc((size_t)nc, sizeof *out);
    for (int k = 0; k < n; k++) {
        entries += wcs_distance(m, conns[k].src, conns[k].dst) + 1;
        in[conns[k].dst]++;
        out[conns[k].src]++;
    }
    int64_t per_phase = (int64_t)nc * m->cell_channels;
    int bound = (int)((entries + per_phase - 1) / per_phase);
    int by_bus = 4 * m->bus_channels;
    for (int c = 0; c < nc; c++) {
        int ends = (in[c] + out[c] + m->cell_channels - 1) / m->cell_channels;
        int a = (in[c] + by_bus - 1) / by_bus, b = (out[c] + by_bus - 1) / by_bus;
        if (ends > bound) bound = ends;
        if (a > bound) bound = a;
        if (b > bound) bound = b;
    }
    free(in);
    free(out);
    return bound;
}
