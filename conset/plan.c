/* The plan as the words runtime/conset.s reads (docs/design.md, section 12): what
 * warp-conset writes as assembly data and what warp-cc puts into a W2 program for
 * each of its connection sets. Every cell holds every cell's block; blocks are
 * found by byte offsets from the plan's first word, so the plan can sit anywhere. */
#include "warp_conset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warp_support.h"

enum { MAX_ROUTE_WORDS = 14, TOKEN_WORDS = 4 };

typedef struct words {
    uint32_t *v;
    size_t n, cap;
} words;

static void put(words *w, uint32_t x)
{
    ws_grow(&w->v, &w->cap, w->n + 1, sizeof *w->v);
    w->v[w->n++] = x;
}

/* Routing words (docs/design.md, section 7): cell | action << 12 | pool << 15 | free << 16. */
static uint32_t rword(int cell, int action, int pool, uint32_t free_bits)
{
    return (uint32_t)cell | (uint32_t)action << 12 | (uint32_t)pool << 15 | free_bits << 16;
}

/* The header of a connection's pathway: the source turning onto its first bus, a
 * turn at each cell where the route changes bus, and the destination with the
 * connection's receive slot there. Every hop in the reservation pool, which the
 * plan never fills beyond its channels. -1 if it turns too often. */
static int route_words(const wcs_plan *p, int conn, int first_cid, int dst, uint32_t slot, uint32_t *w)
{
    const wcs_route *r = &p->routes[conn];
    const wcs_hop *h = &p->hops[r->first];
    int n = 0;
    w[n++] = rword(first_cid + h[0].cell, 1 + h[0].bus, 0, 0);
    for (int i = 1; i < r->nhops; i++) {
        if (h[i].bus == h[i - 1].bus) continue;
        if (n == MAX_ROUTE_WORDS - 1) return -1;
        w[n++] = rword(first_cid + h[i].cell, 1 + h[i].bus, 0, 0);
    }
    w[n++] = rword(first_cid + dst, 0, 0, slot);
    return n;
}

/* A token from cell a to cell b, its word `tag` (0x8000 | round: synchronisation;
 * 0x4000 | the source's send slot: a connection's acknowledgement): a pathway with
 * no words in the open pool, which no connection uses, in dimension order on the
 * mesh (no wrap-around link): many tokens under way can fill a channel's queue, so
 * their routes must not close a cycle either. As [count, w0, w1, w2]. */
static void token(words *out, const wcs_machine *m, int first_cid, int a, int b, uint32_t tag)
{
    int ax = a % m->width, ay = a / m->width, bx = b % m->width, by = b / m->width;
    int dx = bx != ax, dy = by != ay;
    int xbus = bx > ax ? WCS_XRIGHT : WCS_XLEFT, ybus = by > ay ? WCS_YUP : WCS_YDOWN;
    uint32_t w[3] = {0, 0, 0};
    int n = 0;
    if (dx) {
        w[n++] = rword(first_cid + a, 1 + xbus, 1, 0);
        if (dy) w[n++] = rword(first_cid + ay * m->width + bx, 1 + ybus, 1, 0);
    } else {
        w[n++] = rword(first_cid + a, 1 + ybus, 1, 0);
    }
    w[n++] = rword(first_cid + b, 0, 1, tag);
    put(out, (uint32_t)n);
    for (int i = 0; i < 3; i++) put(out, w[i]);
}

int wcs_plan_words(const wcs_machine *m, const wcs_conn *c, int n, const wcs_plan *p, int first_cid,
                   uint32_t **out, size_t *nout, char *err, size_t errlen)
{
    int cells = m->width * m->height, rounds = 0;
    while ((1 << rounds) < cells) rounds++;
    /* Slots: a connection's place among its source's sends and its destination's
     * receives, in the order given: where its words come from and go to. */
    int *out_slot = ws_xcalloc((size_t)n + 1, sizeof *out_slot), *in_slot = ws_xcalloc((size_t)n + 1, sizeof *in_slot);
    int *nsend = ws_xcalloc((size_t)cells, sizeof *nsend), *nrecv = ws_xcalloc((size_t)cells, sizeof *nrecv);
    for (int k = 0; k < n; k++) {
        out_slot[k] = nsend[c[k].src]++;
        in_slot[k] = nrecv[c[k].dst]++;
    }
    /* The connections each cell receives, by receive slot: their acknowledgements. */
    int *in_start = ws_xcalloc((size_t)cells + 1, sizeof *in_start), *in_conn = ws_xcalloc((size_t)n + 1, sizeof *in_conn);
    for (int cell = 0; cell < cells; cell++) in_start[cell + 1] = in_start[cell] + nrecv[cell];
    for (int k = 0; k < n; k++) in_conn[in_start[c[k].dst] + in_slot[k]] = k;
    words w = {0};
    put(&w, (uint32_t)p->nphases);
    put(&w, (uint32_t)cells);
    put(&w, (uint32_t)rounds);
    put(&w, (uint32_t)first_cid);
    size_t offsets = w.n;
    for (int cell = 0; cell < cells; cell++) put(&w, 0);
    int rc = 0;
    uint32_t rw[MAX_ROUTE_WORDS];
    for (int cell = 0; cell < cells && rc == 0; cell++) {
        w.v[offsets + (size_t)cell] = (uint32_t)(4 * w.n);
        put(&w, (uint32_t)nrecv[cell]);
        for (int r = 0; r < rounds; r++) token(&w, m, first_cid, cell, (cell + (1 << r)) % cells, 0x8000u | (uint32_t)r);
        for (int s = 0; s < nrecv[cell]; s++) {
            int k = in_conn[in_start[cell] + s];
            token(&w, m, first_cid, cell, c[k].src, 0x4000u | (uint32_t)out_slot[k]);
        }
        for (int ph = 0; ph < p->nphases && rc == 0; ph++) {
            const int *o = p->order + p->order_start[ph * cells + cell];
            int no = p->order_start[ph * cells + cell + 1] - p->order_start[ph * cells + cell], ns = 0;
            for (int i = 0; i < no; i++) ns += c[o[i]].src == cell;
            put(&w, (uint32_t)ns);
            put(&w, (uint32_t)(no - ns));
            for (int i = 0; i < no; i++) {
                int k = o[i];
                if (c[k].src != cell) continue;
                int nw = route_words(p, k, first_cid, c[k].dst, (uint32_t)in_slot[k], rw);
                if (nw < 0) {
                    snprintf(err, errlen, "the route of connection %d (cell %d to %d) turns more than %d times", k,
                             c[k].src, c[k].dst, MAX_ROUTE_WORDS - 2);
                    rc = -1;
                    break;
                }
                put(&w, (uint32_t)out_slot[k]);
                put(&w, (uint32_t)nw);
                for (int j = 0; j < nw; j++) put(&w, rw[j]);
            }
        }
    }
    free(out_slot);
    free(in_slot);
    free(nsend);
    free(nrecv);
    free(in_start);
    free(in_conn);
    if (rc != 0) {
        free(w.v);
        return -1;
    }
    *out = w.v;
    *nout = w.n;
    return 0;
}
