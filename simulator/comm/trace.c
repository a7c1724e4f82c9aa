/* What the deadlock report needs from the agent: who must act for a queue to move,
 * found by following the crossbar links from channel to channel; who holds the
 * channels a blocked request or begin marker waits for, and what their release waits
 * for; what a running spool gate waits for. */
#include "comm_internal.h"

#include <string.h>

static void add_step(wca_trace *tr, const char *sep, int cell, const char *name)
{
    size_t n = strlen(tr->path);
    if (n + 1 < sizeof tr->path)
        snprintf(tr->path + n, sizeof tr->path - n, "%scell %d %s", n ? sep : "", cell, name);
}

static void add_lic(const wca *a, wca_trace *tr, const char *sep, int g)
{
    char name[48];
    wca_lic_name(a, g, name, sizeof name);
    add_step(tr, sep, a->lics[g].cell, name);
}

static void add_loc(const wca *a, wca_trace *tr, const char *sep, int g)
{
    char name[48];
    wca_loc_name(a, g, name, sizeof name);
    add_step(tr, sep, a->locs[g].cell, name);
}

static void set_party(wca_trace *tr, wca_party p, int cell)
{
    tr->party = p;
    tr->cell = cell;
}

void wca_trace_feeder(const wca *a, const wca_queue *q, wca_trace *tr)
{
    memset(tr, 0, sizeof *tr);
    tr->gate = tr->spool = tr->lic = -1;
    int g = lic_of(a, q)->id;
    /* A chain visits each channel once; the bound keeps a corrupt one finite. */
    for (size_t steps = 0; steps <= (size_t)a->ncells * a->nchan; steps++) {
        const wca_lic *l = &a->lics[g];
        add_lic(a, tr, " < ", g);
        tr->lic = (int)lic_local(a, g);
        if (l->in_spool >= 0) {
            set_party(tr, WCA_BY_SPOOL, l->cell);
            tr->spool = l->in_spool;
            return;
        }
        if (l->bus < 0) {
            set_party(tr, l->out_gate >= 0 ? WCA_BY_GATE : WCA_BY_NOBODY, l->cell);
            tr->gate = l->out_gate;
            return;
        }
        if (l->host_fed || l->up < 0) {
            set_party(tr, WCA_BY_HOST, l->cell);
            return;
        }
        const wca_loc *o = &a->locs[l->up];
        add_loc(a, tr, " < ", l->up);
        if (o->src < 0) {
            set_party(tr, WCA_BY_NOBODY, o->cell);
            return;
        }
        g = o->src;
    }
    set_party(tr, WCA_BY_NOBODY, a->lics[g].cell);
}

void wca_trace_drainer(const wca *a, const wca_queue *q, wca_trace *tr)
{
    memset(tr, 0, sizeof *tr);
    tr->gate = tr->spool = tr->lic = -1;
    int g = lic_of(a, q)->id;
    for (size_t steps = 0; steps <= (size_t)a->ncells * a->nchan; steps++) {
        const wca_lic *l = &a->lics[g];
        add_lic(a, tr, " > ", g);
        tr->lic = (int)lic_local(a, g);
        switch (l->cons) {
        case CONS_GATE:
            set_party(tr, WCA_BY_GATE, l->cell);
            tr->gate = l->gate;
            return;
        case CONS_SPOOL:
            set_party(tr, WCA_BY_SPOOL, l->cell);
            tr->spool = l->spool;
            return;
        case CONS_NONE:
            if (l->waiting) {
                set_party(tr, WCA_BY_ROUTING, l->cell);
                tr->bus = l->wait_bus;
                tr->pool = l->wait_pool;
                tr->word = l->q.ring[l->q.head].word;
            } else {
                set_party(tr, l->bus < 0 ? WCA_BY_NOBODY : WCA_BY_UNBOUND, l->cell);
            }
            return;
        case CONS_DISCARD:
            set_party(tr, WCA_BY_NOBODY, l->cell);
            return;
        default: break;
        }
        const wca_loc *o = &a->locs[l->loc];
        add_loc(a, tr, " > ", l->loc);
        if (o->src != g) {
            /* Parked: a join gave its output channel to another input channel. */
            set_party(tr, WCA_BY_NOBODY, l->cell);
            return;
        }
        if (o->remote == LOC_HOST) {
            set_party(tr, WCA_BY_HOST, l->cell);
            return;
        }
        g = o->remote;
    }
    set_party(tr, WCA_BY_NOBODY, a->lics[g].cell);
}

int wca_pool_holders(const wca *a, int cell, unsigned bus, unsigned pool, int *cells, int max)
{
    int n = 0;
    for (unsigned k = 0; k < a->per_bus; k++) {
        const wca_loc *o = &a->locs[(size_t)cell * a->nchan + bus * a->per_bus + k];
        /* The systolic channels are never released: no pathway holds them. */
        if (o->pool != pool || o->home < 0 || o->pinned) continue;
        int owner = o->owner >= 0 ? o->owner : cell, seen = 0;
        for (int i = 0; i < n && i < max; i++) seen |= cells[i] == owner;
        if (seen) continue;
        if (n < max) cells[n] = owner;
        n++;
    }
    return n;
}

int wca_routing_wait(const wca *a, int cell, int n, wca_trace *tr)
{
    for (unsigned i = 0; i < a->nchan; i++) {
        const wca_lic *l = &a->lics[(size_t)cell * a->nchan + i];
        if (!l->waiting || l->cons != CONS_NONE || l->q.count == 0) continue;
        if ((l->q.ring[l->q.head].tag & WCA_TAG_KIND) != WT_MARK_PBEGIN) continue;
        if (n-- > 0) continue;
        memset(tr, 0, sizeof *tr);
        tr->party = WCA_BY_ROUTING;
        tr->cell = cell;
        tr->gate = tr->spool = -1;
        tr->lic = (int)i;
        tr->bus = l->wait_bus;
        tr->pool = l->wait_pool;
        tr->word = l->q.ring[l->q.head].word;
        add_lic(a, tr, "", l->id);
        return 1;
    }
    return 0;
}

int wca_pool_channels(const wca *a, int cell, unsigned bus, unsigned pool, int *locs, int max, int *pinned)
{
    int n = 0;
    *pinned = 0;
    for (unsigned k = 0; k < a->per_bus; k++) {
        const wca_loc *o = &a->locs[(size_t)cell * a->nchan + bus * a->per_bus + k];
        if (o->pool != pool) continue;
        if (o->pinned) {
            ++*pinned;
            continue;
        }
        if (n < max) locs[n] = (int)(o - a->locs);
        n++;
    }
    return n;
}

/* Is a pathway end marker queued in l or upstream of it, on the way to its output
 * channel?  Words upstream of the channel a begin marker linked belong to that
 * pathway or to later ones, so the first end marker met is this pathway's. */
static int end_marker_upstream(const wca *a, int g)
{
    for (size_t steps = 0; g >= 0 && steps <= (size_t)a->ncells * a->nchan; steps++) {
        const wca_lic *l = &a->lics[g];
        for (uint32_t i = 0; i < l->q.count; i++)
            if ((l->q.ring[(l->q.head + i) & l->q.mask].tag & WCA_TAG_KIND) == WT_MARK_PEND) return 1;
        if (l->bus < 0 || l->host_fed || l->up < 0) return 0;
        const wca_loc *o = &a->locs[l->up];
        if (o->src < 0) return 0;
        g = o->src;
    }
    return 0;
}

int wca_loc_hold(const wca *a, int loc, wca_hold *h)
{
    memset(h, 0, sizeof *h);
    h->owner = -1;
    const wca_loc *o = &a->locs[loc];
    if (o->home < 0 || o->pinned) return 0;
    h->owner = o->owner >= 0 ? o->owner : o->cell;
    h->joined = o->src >= 0 && o->src != o->home;
    h->feed = o->src >= 0 ? &a->lics[o->src].q : NULL;
    /* At a joint the incoming pathway's end marker ends only that pathway: the joint
     * cell's own must still come. */
    h->end_sent = !h->joined && o->src >= 0 && end_marker_upstream(a, o->src);
    return 1;
}

unsigned wca_spools(const wca *a) { return a->nspool; }

int wca_spool_waiting(const wca *a, int cell, unsigned s, wca_spool_wait *w)
{
    memset(w, 0, sizeof *w);
    w->partner = -1;
    if (s >= a->nspool) return 0;
    const wca_cell *c = &a->cells[cell];
    const wca_spool *p = &c->spool[s];
    if (!p->active) return 0;
    const wca_lic *l = &a->lics[p->lic];
    w->out = p->out;
    w->q = &l->q;
    w->lic = (int)lic_local(a, p->lic);
    w->count = p->count;
    w->addr = p->addr;
    if (p->out && p->follow && p->addr >= c->spool[p->partner].addr) w->partner = p->partner;
    return 1;
}

void wca_local_use_of(const wca *a, int cell, wca_local_use *u)
{
    memset(u, 0, sizeof *u);
    for (unsigned n = WCA_NBUSES * a->per_bus; n < a->nchan; n++) {
        const wca_lic *l = &a->lics[(size_t)cell * a->nchan + n];
        u->total++;
        /* In the order free_local_lic tests them: the first reason a channel is taken. */
        if (l->pinned) u->systolic++;
        else if (l->cons == CONS_LOC) u->pathways++;
        else if (l->cons == CONS_GATE || l->out_gate >= 0) u->gates++;
        else if (l->cons == CONS_SPOOL || l->in_spool >= 0) u->spools++;
        else if (l->cons != CONS_NONE || l->q.used) u->queued++;
    }
}
