/* The core of the communication agent: configuration and topology, logical channels
 * and their static allocation among the buses, credit flow control, and one word a
 * bus a transfer chosen round-robin among the channels that have a word and room
 * (seed 000, sections 4 and 5). */
#include "comm_internal.h"

#include <stdlib.h>
#include <string.h>

#include "warp_support.h"

const char *const wca_bus_names[WCA_NBUSES] = {"XRight", "YUp", "XLeft", "YDown"};

static uint32_t pow2_at_least(uint32_t n)
{
    uint32_t p = 1;
    while (p < n) p <<= 1;
    return p;
}

void wca_queue_init(wca_queue *q, unsigned cap)
{
    memset(q, 0, sizeof *q);
    if (cap > WCA_QUEUE_MAX) cap = WCA_QUEUE_MAX;
    q->cap = (uint16_t)cap;
    q->mask = (uint16_t)(pow2_at_least(cap ? cap : 1) - 1);
    q->ring = ws_xcalloc((size_t)q->mask + 1, sizeof *q->ring);
    q->deq_clock = UINT64_MAX;
}

void wca_queue_fini(wca_queue *q)
{
    free(q->ring);
    q->ring = NULL;
}

/* ---- Configuration ------------------------------------------------------------------- */

void wca_config_default(wca_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->topology = WCA_LINEAR;
    cfg->res_per_bus = 2;
    cfg->open_per_bus = 1;
}

static int parse_uint(const char **p, unsigned *v)
{
    const char *s = *p;
    unsigned n = 0;
    if (*s < '0' || *s > '9') return -1;
    while (*s >= '0' && *s <= '9') {
        n = n * 10 + (unsigned)(*s - '0');
        if (n > 100000) return -1;
        s++;
    }
    *p = s;
    *v = n;
    return 0;
}

int wca_parse_topology(const char *text, wca_config *cfg, char *err, size_t errlen)
{
    if (strcmp(text, "linear") == 0) {
        cfg->topology = WCA_LINEAR;
        cfg->width = cfg->height = 0;
        cfg->host_edges = 0;
        return 0;
    }
    unsigned w, h;
    const char *p = text;
    if (strncmp(p, "torus:", 6) == 0) {
        p += 6;
        if (parse_uint(&p, &w) == 0 && *p == 'x' && (p++, parse_uint(&p, &h) == 0) && *p == 0) {
            if (w < 1 || h < 1 || w > WCA_MAX_SIDE || h > WCA_MAX_SIDE) {
                snprintf(err, errlen, "torus %ux%u: each side must be 1 to %d cells", w, h, WCA_MAX_SIDE);
                return -1;
            }
            cfg->topology = WCA_TORUS;
            cfg->width = (int)w;
            cfg->height = (int)h;
            cfg->host_edges = 0;
            return 0;
        }
    }
    snprintf(err, errlen, "topology '%s': expected 'linear' or 'torus:WxH'", text);
    return -1;
}

int wca_parse_channels(const char *text, wca_config *cfg, char *err, size_t errlen)
{
    unsigned r, o;
    const char *p = text;
    if (parse_uint(&p, &r) == 0 && *p == ',' && (p++, parse_uint(&p, &o) == 0) && *p == 0) {
        cfg->res_per_bus = r;
        cfg->open_per_bus = o;
        return 0;
    }
    snprintf(err, errlen, "channels '%s': expected RESERVED,OPEN (channels of each pool on a bus)", text);
    return -1;
}

/* ---- Construction ------------------------------------------------------------------ */

/* The cell at the far end of output bus d, or -1 (the host past a linear array's
 * end, or past a torus's edge with host_edges). */
static int neighbour_of(const wca_config *cfg, int ncells, int k, unsigned d)
{
    if (cfg->topology == WCA_LINEAR) {
        int right = d == WCA_XRIGHT || d == WCA_YUP;
        int nb = right ? k + 1 : k - 1;
        return nb >= 0 && nb < ncells ? nb : -1;
    }
    int w = cfg->width, h = cfg->height, x = k % w, y = k / w;
    if (cfg->host_edges && ((d == WCA_XLEFT && x == 0) || (d == WCA_XRIGHT && x == w - 1) ||
                            (d == WCA_YDOWN && y == 0) || (d == WCA_YUP && y == h - 1)))
        return -1;
    switch (d) {
    case WCA_XRIGHT: x = (x + 1) % w; break;
    case WCA_XLEFT: x = (x + w - 1) % w; break;
    case WCA_YUP: y = (y + 1) % h; break;
    default: y = (y + h - 1) % h; break;
    }
    return y * w + x;
}

wca *wca_new(const wt_model *model, const wca_config *cfg, int ncells, const uint32_t *cids,
             const wca_hooks *hooks, char *err, size_t errlen)
{
    unsigned nchan = model->logical_channels, per_bus = cfg->res_per_bus + cfg->open_per_bus;
    if (nchan == 0) {
        snprintf(err, errlen, "the %s model has no communication agent", model->name);
        return NULL;
    }
    if (per_bus == 0 || per_bus * WCA_NBUSES > nchan || per_bus > 32) {
        snprintf(err, errlen, "%u reserved and %u open channels a bus: the %u channels a cell has allow 1 to %u a bus",
                 cfg->res_per_bus, cfg->open_per_bus, nchan, nchan / WCA_NBUSES);
        return NULL;
    }
    if (cfg->topology == WCA_TORUS) {
        if (cfg->width < 1 || cfg->height < 1 || cfg->width > WCA_MAX_SIDE || cfg->height > WCA_MAX_SIDE) {
            snprintf(err, errlen, "torus %dx%d: each side must be 1 to %d cells", cfg->width, cfg->height,
                     WCA_MAX_SIDE);
            return NULL;
        }
        if (cfg->width * cfg->height != ncells) {
            snprintf(err, errlen, "a %dx%d torus has %d cells, the program runs on %d", cfg->width, cfg->height,
                     cfg->width * cfg->height, ncells);
            return NULL;
        }
    }
    wca *a = ws_xcalloc(1, sizeof *a);
    a->model = model;
    a->cfg = *cfg;
    if (hooks) a->hooks = *hooks;
    a->ncells = ncells;
    a->nchan = nchan;
    a->per_bus = per_bus;
    a->nspool = model->spool_gates > 8 ? 8 : model->spool_gates;
    a->link = model->link_latency;
    a->bus_clocks = model->bus_word_clocks ? model->bus_word_clocks : 1;
    a->credit_lat = model->credit_latency;
    a->route_clocks = model->route_clocks;
    a->corner_clocks = model->corner_clocks;
    a->spool_words = model->spool_words_per_clock ? model->spool_words_per_clock : 1;
    size_t nch = (size_t)ncells * nchan;
    a->cells = ws_xcalloc((size_t)ncells, sizeof *a->cells);
    a->lics = ws_xcalloc_aligned(nch, sizeof *a->lics, _Alignof(wca_lic));
    a->locs = ws_xcalloc(nch, sizeof *a->locs);
    a->buses = ws_xcalloc((size_t)ncells * WCA_NBUSES, sizeof *a->buses);
    a->active_bus = ws_xcalloc((size_t)ncells * WCA_NBUSES, sizeof *a->active_bus);
    a->attn = ws_xcalloc(nch, sizeof *a->attn);
    a->joins = ws_xcalloc(nch, sizeof *a->joins);
    a->active_spool = ws_xcalloc((size_t)ncells * 8, sizeof *a->active_spool);
    unsigned cap = model->queue_words, ret_size = pow2_at_least(cap ? cap : 1);

    for (int k = 0; k < ncells; k++) {
        wca_cell *c = &a->cells[k];
        c->cid = cids ? cids[k] : (uint32_t)k;
        c->gate_in = c->own_in;
        c->gate_out = c->own_out;
        for (unsigned d = 0; d < WCA_NBUSES; d++) c->neighbour[d] = neighbour_of(cfg, ncells, k, d);
        /* The run-time system preloads the match CAM with the cell's address (sec. 6.1.4). */
        c->cam[0] = c->cid;
        for (int i = 1; i < 8; i++) c->cam[i] = 0xffffffffu;
        c->ev_mask = ~1u; /* every kind */
        for (unsigned d = 0; d < WCA_NBUSES; d++) {
            wca_bus *b = &a->buses[k * WCA_NBUSES + d];
            b->cell = k;
            b->dir = (uint8_t)d;
        }
        for (unsigned n = 0; n < nchan; n++) {
            wca_lic *l = lic_at(a, k, n);
            wca_queue_init(&l->q, cap);
            l->id = (int32_t)((size_t)k * nchan + n);
            l->cell = k;
            l->bus = n < WCA_NBUSES * per_bus ? (int8_t)(n / per_bus) : -1;
            l->k = (uint8_t)(n < WCA_NBUSES * per_bus ? n % per_bus : 0);
            l->gate = l->spool = l->out_gate = l->in_spool = -1;
            l->loc = l->joint = l->up = -1;

            wca_loc *o = loc_at(a, k, n);
            o->cell = k;
            o->bus = l->bus;
            o->k = l->k;
            o->pool = o->k >= cfg->res_per_bus;
            o->src = o->home = o->owner = o->join_lic = -1;
            o->remote = -2;
            o->ret_mask = ret_size - 1;
            o->ret = ws_xcalloc(ret_size, sizeof *o->ret);
            o->credits = cap;
        }
    }
    /* The static allocation: output channel (k, d, i) pairs with the neighbour's input
     * channel (d^2, i); an input bus with no neighbour hears the host. */
    for (int k = 0; k < ncells; k++) {
        for (unsigned d = 0; d < WCA_NBUSES; d++) {
            int nb = a->cells[k].neighbour[d];
            for (unsigned i = 0; i < per_bus; i++) {
                wca_loc *o = loc_at(a, k, d * per_bus + i);
                wca_lic *in = lic_at(a, k, d * per_bus + i);
                if (nb < 0) {
                    o->remote = LOC_HOST;
                    in->host_fed = 1;
                } else {
                    unsigned rn = wca_opposite(d) * per_bus + i;
                    o->remote = (int32_t)((size_t)nb * nchan + rn);
                    lic_at(a, nb, rn)->up = (int32_t)((size_t)k * nchan + d * per_bus + i);
                }
            }
        }
    }
    return a;
}

void wca_free(wca *a)
{
    if (!a) return;
    /* Giving the thread parts back touches the buses and cells: do it while they live. */
    wca_use_parts(a, 0, NULL);
    size_t nch = (size_t)a->ncells * a->nchan;
    for (size_t i = 0; i < nch; i++) {
        wca_queue_fini(&a->lics[i].q);
        free(a->locs[i].ret);
    }
    free(a->cells);
    free(a->lics);
    free(a->locs);
    free(a->buses);
    free(a->active_bus);
    free(a->attn);
    free(a->joins);
    free(a->active_spool);
    free(a);
}

void wca_attach_memory(wca *a, int cell, uint8_t *mem, uint32_t size, uint64_t *taken_until)
{
    a->cells[cell].mem = mem;
    a->cells[cell].mem_size = size;
    a->cells[cell].mem_taken_until = taken_until;
}

int wca_setup_systolic(wca *a, char *err, size_t errlen)
{
    unsigned local0 = WCA_NBUSES * a->per_bus;
    if (a->cfg.res_per_bus < 1 || a->nchan - local0 < WT_NQUEUES) {
        snprintf(err, errlen, "the direction gates need a reservation channel on every bus and %d local channels "
                 "(there are %u)", WT_NQUEUES, a->nchan - local0);
        return -1;
    }
    for (int k = 0; k < a->ncells; k++) {
        wca_cell *c = &a->cells[k];
        for (unsigned q = 0; q < WT_NQUEUES; q++) {
            /* Direction gate q faces bus (q + 2) & 3: @xl (0) reads from XLeft and
             * writes to it, @xr (2) XRight, @yl (1) YDown, @yr (3) YUp. */
            unsigned bus = (q + 2) & 3;
            wca_lic *in = lic_at(a, k, bus * a->per_bus);
            in->cons = CONS_GATE;
            in->gate = (int8_t)q;
            in->pinned = 1;
            c->gate_in[q] = &in->q;
            wca_lic *from = lic_at(a, k, local0 + q);
            wca_loc *o = loc_at(a, k, bus * a->per_bus);
            from->pinned = 1;
            from->out_gate = (int8_t)q;
            from->cons = CONS_LOC;
            from->loc = (int32_t)(o - a->locs);
            o->src = o->home = from->id;
            o->owner = k;
            o->pinned = 1;
            c->gate_out[q] = &from->q;
        }
    }
    return 0;
}

wca_queue *const *wca_gate_inputs(const wca *a, int cell) { return a->cells[cell].gate_in; }
wca_queue *const *wca_gate_outputs(const wca *a, int cell) { return a->cells[cell].gate_out; }

void wca_use_gate_tables(wca *a, int cell, wca_queue **in, wca_queue **out)
{
    wca_cell *c = &a->cells[cell];
    memcpy(in, c->gate_in, WCA_NGATES * sizeof *in);
    memcpy(out, c->gate_out, WCA_NGATES * sizeof *out);
    c->gate_in = in;
    c->gate_out = out;
}

wca_queue *wca_feed_queue(wca *a, int cell, unsigned q)
{
    return &lic_at(a, cell, ((q + 2) & 3) * a->per_bus)->q;
}

/* ---- Words in and out of channels ----------------------------------------------------- */

void wca_attend(wca *a, wca_lic *l)
{
    if (l->attn) return;
    l->attn = 1;
    a->attn[a->n_attn++] = l->id;
}

_Thread_local wca_part *wca_current_part;

/* Inlined into the per-word paths (a word landing, a transfer); the exported
 * functions below are for the rarer callers. */
static inline __attribute__((always_inline)) void bus_activate(wca *a, int bus)
{
    wca_bus *b = &a->buses[bus];
    if (b->in_list) return;
    b->in_list = 1;
    if (a->parts) {
        /* Only the thread of the bus's part, or wca_parts_merge's, is here. */
        wca_part *p = &a->parts[a->part_of[b->cell]];
        p->active[p->n_active++] = bus;
        return;
    }
    a->active_bus[a->n_active_bus++] = bus;
}

void wca_bus_activate(wca *a, int bus) { bus_activate(a, bus); }

static inline __attribute__((always_inline)) void want(wca *a, wca_loc *o)
{
    if (o->src < 0 || o->bus < 0 || a->lics[o->src].q.count == 0) return;
    int bus = o->cell * WCA_NBUSES + o->bus;
    a->buses[bus].want |= 1u << o->k;
    bus_activate(a, bus);
}

void wca_want(wca *a, wca_loc *o) { want(a, o); }

/* A word is in l's queue: whoever takes from it may act. */
static inline __attribute__((always_inline)) void took_word(wca *a, wca_lic *l, uint8_t tag)
{
    l->words++;
    if (tag != WT_MARK_DATA) {
        l->nmarks++;
        wca_attend(a, l);
    }
    switch (l->cons) {
    case CONS_LOC: {
        wca_loc *o = &a->locs[l->loc];
        if (o->src == l->id) want(a, o);
        break;
    }
    case CONS_SPOOL: wca_spool_activate(a, l->cell, (unsigned)l->spool); break;
    case CONS_DISCARD: wca_attend(a, l); break;
    default: break;
    }
}

void wca_pushed(wca *a, wca_queue *q, uint64_t t)
{
    (void)t;
    wca_lic *l = lic_of(a, q);
    took_word(a, l, q->ring[(q->head + q->count - 1) & q->mask].tag);
}

static inline __attribute__((always_inline)) void transfer(wca *a, wca_bus *b, wca_loc *o, wca_lic *l, uint64_t t);
static inline void absorb_credits(wca_loc *o, uint64_t t);

void wca_put(wca *a, wca_queue *q, uint32_t word, uint8_t tag, uint64_t arrival)
{
    wca_queue_put(q, word, tag, arrival);
    wca_lic *l = lic_of(a, q);
    /* The word is due now (landing precedes the step of its clock). On a bus whose
     * only linked channel it is, free, with credit, the step would take it first
     * whatever else it did, and buses moving data step in any order: it crosses
     * here. (With threads, a part lands its cells before it steps their buses: the
     * same holds.) */
    if (a->data_only && q->count == 1 && tag == WT_MARK_DATA && l->cons == CONS_LOC && l->hold <= arrival) {
        wca_loc *o = &a->locs[l->loc];
        wca_bus *b = o->bus >= 0 ? &a->buses[o->cell * WCA_NBUSES + o->bus] : NULL;
        if (b && b->solo && o->src == l->id && !b->want && arrival >= b->busy_until) {
            if (o->remote != LOC_HOST) absorb_credits(o, arrival);
            if (o->remote == LOC_HOST || o->credits) {
                l->words++;
                transfer(a, b, o, l, arrival);
                b->rr = o->k;
                /* a thread's part counted it in its own progress */
                if (!wca_current_part) a->landed_progress = 1;
                return;
            }
        }
    }
    took_word(a, l, tag);
}

void wca_move_data_only(wca *a)
{
    a->data_only = 1;
    for (int bus = 0; bus < a->ncells * WCA_NBUSES; bus++) {
        wca_bus *b = &a->buses[bus];
        unsigned base = (unsigned)b->cell * a->nchan + b->dir * a->per_bus, linked = 0;
        for (unsigned k = 0; k < a->per_bus; k++) {
            const wca_loc *o = &a->locs[base + k];
            linked += o->src >= 0 && o->bus == (int8_t)b->dir;
        }
        b->solo = linked == 1;
    }
}

/* Keeps what this part does to another part's cells for wca_parts_merge. */
static void cross(wca_part *p, int32_t to, int credit, uint32_t word, uint8_t tag, uint64_t when)
{
    if (p->n_out == p->cap_out) ws_grow(&p->out, &p->cap_out, p->n_out + 1, sizeof *p->out);
    p->out[p->n_out++] = (wca_crossing){.to = to, .credit = (uint8_t)credit, .tag = tag, .word = word, .when = when};
}

static inline void return_credit(wca_loc *o, uint64_t when)
{
    o->ret[(o->ret_head + o->ret_n++) & o->ret_mask] = when;
}

/* The dequeue signal: the transmitter gets its slot back credit_latency clocks later. */
static inline __attribute__((always_inline)) void dequeue_signal(wca *a, wca_lic *l, uint64_t t)
{
    if (l->up < 0) return;
    wca_loc *o = &a->locs[l->up];
    uint64_t when = t + a->credit_lat;
    if (l->up_crosses) cross(wca_current_part, l->up, 1, 0, 0, when);
    else return_credit(o, when);
    wca_note(a, when);
}

static inline __attribute__((always_inline)) wca_qword pop(wca *a, wca_lic *l, uint64_t t)
{
    wca_qword w = wca_queue_take(&l->q, t);
    dequeue_signal(a, l, t);
    if ((w.tag & WCA_TAG_KIND) != WT_MARK_DATA) l->nmarks--;
    return w;
}

wca_qword wca_pop(wca *a, wca_lic *l, uint64_t t) { return pop(a, l, t); }

void wca_dequeued(wca *a, int cell, unsigned gate, wca_queue *q, uint8_t tag, uint64_t t)
{
    wca_lic *l = lic_of(a, q);
    dequeue_signal(a, l, t);
    tag &= WCA_TAG_KIND;
    if (tag != WT_MARK_DATA) l->nmarks--;
    if (gate >= WT_NQUEUES) a->cells[cell].gate_tag[gate - WT_NQUEUES] = tag;
    if (l->in_spool >= 0) wca_spool_activate(a, cell, (unsigned)l->in_spool);
}

/* A pathway's end marker has crossed: its channel returns to the free set. */
void wca_close_loc(wca *a, wca_loc *o)
{
    if (o->src >= 0) {
        wca_lic *l = &a->lics[o->src];
        l->cons = CONS_NONE;
        l->loc = -1;
        l->joint = -1;
    }
    if (o->home >= 0 && o->home != o->src) {
        wca_lic *h = &a->lics[o->home];
        if (h->cons == CONS_LOC && h->loc == (int32_t)(o - a->locs)) {
            h->cons = CONS_NONE;
            h->loc = -1;
        }
    }
    o->src = o->home = o->owner = -1;
    o->join_lic = -1;
    int bus = o->cell * WCA_NBUSES + o->bus;
    a->buses[bus].want &= ~(1u << o->k);
}

/* ---- Buses ------------------------------------------------------------------------- */

/* Dequeue signals due by t restore credits. */
static inline void absorb_credits(wca_loc *o, uint64_t t)
{
    while (o->ret_n && o->ret[o->ret_head & o->ret_mask] <= t) {
        if (o->credits == 0 && !o->credit_back) o->credit_back = o->ret[o->ret_head & o->ret_mask];
        o->credits++;
        o->ret_head++;
        o->ret_n--;
    }
}

static inline __attribute__((always_inline)) void transfer(wca *a, wca_bus *b, wca_loc *o, wca_lic *l, uint64_t t)
{
    wca_qword w = pop(a, l, t);
    uint8_t tag = w.tag & WCA_TAG_KIND;
    uint64_t arrive = t + a->link;
    /* Statistics: from the moment the word could have gone to now, first the clocks
     * without credit, then those spent waiting for the bus. */
    uint64_t ready = w.arrival > l->hold ? w.arrival : l->hold;
    if (o->prev_end > ready) ready = o->prev_end;
    if (o->credit_back > ready) {
        o->blocked += o->credit_back - ready;
        ready = o->credit_back;
    }
    o->credit_back = 0;
    if (t > ready) o->waited += t - ready;

    if (o->remote == LOC_HOST) {
        if (a->hooks.host_sink) a->hooks.host_sink(a->hooks.ctx, o->cell, (unsigned)o->bus, w.word, arrive);
    } else {
        wca_lic *r = &a->lics[o->remote];
        if (o->crosses) {
            cross(wca_current_part, o->remote, 0, w.word, tag, arrive);
        } else {
            r->q.used++;
            wca_queue_put(&r->q, w.word, tag, arrive);
            took_word(a, r, tag);
        }
        o->credits--;
    }
    b->busy_until = t + a->bus_clocks;
    o->prev_end = b->busy_until;
    o->last_sent = t;
    o->words++;
    b->words++;
    b->busy += a->bus_clocks;
    wca_note(a, arrive > b->busy_until ? arrive : b->busy_until);
    if (wca_current_part) wca_current_part->progress = 1;
    else a->progress = 1;
    if (tag == WT_MARK_PEND && !o->pinned) wca_close_loc(a, o);
    else if (l->q.count == 0) b->want &= ~(1u << o->k);
}

/* One transfer on a free bus: the next channel after the one served last that has a
 * word ready and a free slot at the far end. 0 when the bus has nothing to send. */
static inline __attribute__((always_inline)) int bus_step(wca *a, wca_bus *b, uint64_t t)
{
    if (!b->want) return 0;
    if (t < b->busy_until) return 1;
    unsigned base = (unsigned)b->cell * a->nchan + b->dir * a->per_bus;
    int credit_blocked = 0;
    /* The channels that want the bus, those after the one served last first. */
    uint32_t upto = (2u << b->rr) - 1, phase[2] = {b->want & ~upto, b->want & upto};
    for (int ph = 0; ph < 2; ph++) {
        for (uint32_t m = phase[ph]; m; m &= m - 1) {
            unsigned k = (unsigned)__builtin_ctz(m);
            wca_loc *o = &a->locs[base + k];
            if (o->src < 0 || a->lics[o->src].q.count == 0) {
                b->want &= ~(1u << k);
                continue;
            }
            wca_lic *l = &a->lics[o->src];
            const wca_qword *h = &l->q.ring[l->q.head];
            if (h->arrival > t || l->hold > t) continue;
            /* A marker moves once this cell's agent has acted on it. */
            if ((h->tag & WCA_TAG_KIND) != WT_MARK_DATA && !(h->tag & WCA_TAG_SEEN)) continue;
            if (o->remote != LOC_HOST) {
                absorb_credits(o, t);
                if (o->credits == 0) {
                    credit_blocked = 1;
                    continue;
                }
            }
            transfer(a, b, o, l, t);
            b->rr = (uint8_t)k;
            return 1;
        }
    }
    if (credit_blocked) {
        b->blocked++;
        if (wca_current_part) wca_current_part->blocked++;
    }
    return b->want != 0;
}

int wca_step(wca *a, uint64_t t)
{
    a->progress = a->landed_progress;
    a->landed_progress = 0;
    if (a->n_joins) wca_joins_step(a, t);
    if (a->n_attn) wca_attention_step(a, t);
    for (int i = 0; i < a->n_active_bus;) {
        wca_bus *b = &a->buses[a->active_bus[i]];
        if (bus_step(a, b, t)) {
            i++;
        } else {
            b->in_list = 0;
            a->active_bus[i] = a->active_bus[--a->n_active_bus];
        }
    }
    if (a->n_active_spool) wca_spool_step(a, t);
    return a->progress;
}

uint64_t wca_horizon(const wca *a) { return a->horizon; }

/* ---- Threads ------------------------------------------------------------------------ */

int wca_neighbour(const wca *a, int cell, unsigned bus) { return a->cells[cell].neighbour[bus]; }

void wca_use_parts(wca *a, int nparts, const int *part_of)
{
    /* The buses active now move to their lists, in the order they were in. */
    int *was = a->active_bus, n = a->n_active_bus;
    if (a->parts) {
        n = 0;
        for (int i = 0; i < a->nparts; i++) {
            wca_part *p = &a->parts[i];
            for (int j = 0; j < p->n_active; j++) was[n++] = p->active[j];
            free(p->active);
            free(p->out);
        }
        free(a->parts);
        free(a->part_of);
        a->parts = NULL;
        a->part_of = NULL;
        a->nparts = 0;
    }
    a->n_active_bus = 0;
    if (nparts > 0) {
        size_t nb = (size_t)a->ncells * WCA_NBUSES;
        a->nparts = nparts;
        a->parts = ws_xcalloc_aligned((size_t)nparts, sizeof *a->parts, WS_CACHE_LINE);
        for (int i = 0; i < nparts; i++) a->parts[i].active = ws_xcalloc(nb, sizeof(int));
        a->part_of = ws_xcalloc((size_t)a->ncells, sizeof *a->part_of);
        memcpy(a->part_of, part_of, (size_t)a->ncells * sizeof *part_of);
    }
    /* Flags on the lines a word touches, so that it does not fetch the cold ones
     * that name the cells. */
    for (size_t g = 0; g < (size_t)a->ncells * a->nchan; g++) {
        wca_loc *o = &a->locs[g];
        wca_lic *l = &a->lics[g];
        o->crosses = nparts > 0 && o->remote >= 0 && part_of[a->lics[o->remote].cell] != part_of[o->cell];
        l->up_crosses = nparts > 0 && l->up >= 0 && part_of[a->locs[l->up].cell] != part_of[l->cell];
    }
    for (int i = 0; i < n; i++) {
        a->buses[was[i]].in_list = 0;
        wca_bus_activate(a, was[i]);
    }
}

/* Steps the active buses of one list; keeps those with more to send. */
static void step_list(wca *a, int *list, int *n, uint64_t t)
{
    for (int i = 0; i < *n;) {
        wca_bus *b = &a->buses[list[i]];
        if (bus_step(a, b, t)) {
            i++;
        } else {
            b->in_list = 0;
            list[i] = list[--*n];
        }
    }
}

void wca_part_begin(wca *a, int part)
{
    wca_part *p = &a->parts[part];
    p->horizon = 0;
    p->progress = 0;
    p->blocked = 0;
    wca_current_part = p;
}

void wca_part_end(wca *a)
{
    (void)a;
    wca_current_part = NULL;
}

int wca_step_part(wca *a, int part, uint64_t t)
{
    wca_part *p = &a->parts[part];
    step_list(a, p->active, &p->n_active, t);
    int progress = p->progress;
    p->progress = 0;
    return progress;
}

uint64_t wca_part_horizon(const wca *a, int part) { return a->parts[part].horizon; }
uint64_t wca_part_blocked(const wca *a, int part) { return a->parts[part].blocked; }

void wca_parts_merge(wca *a)
{
    for (int i = 0; i < a->nparts; i++) {
        wca_part *p = &a->parts[i];
        for (size_t j = 0; j < p->n_out; j++) {
            const wca_crossing *c = &p->out[j];
            if (c->credit) {
                return_credit(&a->locs[c->to], c->when);
            } else {
                wca_lic *r = &a->lics[c->to];
                r->q.used++;
                wca_queue_put(&r->q, c->word, c->tag, c->when);
                took_word(a, r, c->tag);
            }
        }
        p->n_out = 0;
        wca_note(a, p->horizon);
        p->horizon = 0;
        p->progress = 0;
    }
}

/* ---- Inspection ---------------------------------------------------------------------- */

int wca_channels(const wca *a) { return (int)a->nchan; }
int wca_queue_channel(const wca *a, const wca_queue *q) { return lic_of(a, q)->id; }

void wca_lic_name(const wca *a, int g, char *buf, size_t size)
{
    const wca_lic *l = &a->lics[g];
    if (l->bus < 0) snprintf(buf, size, "local %u", lic_local(a, g));
    else snprintf(buf, size, "in %s.%u", wca_bus_names[l->bus], l->k);
}

void wca_loc_name(const wca *a, int g, char *buf, size_t size)
{
    const wca_loc *o = &a->locs[g];
    if (o->bus < 0) snprintf(buf, size, "out %u (no bus)", lic_local(a, g));
    else snprintf(buf, size, "out %s.%u", wca_bus_names[o->bus], o->k);
}

unsigned wca_lic_words(const wca *a, int cell, int n, uint32_t *words, uint8_t *tags, unsigned max)
{
    if (cell < 0 || cell >= a->ncells || n < 0 || (unsigned)n >= a->nchan) return 0;
    const wca_queue *q = &a->lics[(size_t)cell * a->nchan + (unsigned)n].q;
    for (unsigned i = 0; i < q->count && i < max; i++) {
        const wca_qword *w = &q->ring[(q->head + i) & q->mask];
        words[i] = w->word;
        if (tags) tags[i] = w->tag & WCA_TAG_KIND;
    }
    return q->count;
}

int wca_lic_link(const wca *a, int cell, int n)
{
    const wca_lic *l = &a->lics[(size_t)cell * a->nchan + (unsigned)n];
    return l->cons == CONS_LOC ? (int)lic_local(a, l->loc) : -1;
}

int wca_loc_free(const wca *a, int cell, int n)
{
    const wca_loc *o = &a->locs[(size_t)cell * a->nchan + (unsigned)n];
    return o->bus >= 0 && o->home < 0 && !o->pinned;
}

uint64_t wca_loc_last_sent(const wca *a, int cell, int n) { return a->locs[(size_t)cell * a->nchan + (unsigned)n].last_sent; }
uint64_t wca_loc_words(const wca *a, int cell, int n) { return a->locs[(size_t)cell * a->nchan + (unsigned)n].words; }
uint64_t wca_bus_words(const wca *a, int cell, unsigned bus) { return a->buses[cell * WCA_NBUSES + bus].words; }
uint64_t wca_bus_busy_until(const wca *a, int cell, unsigned bus) { return a->buses[cell * WCA_NBUSES + bus].busy_until; }
unsigned wca_events_waiting(const wca *a, int cell) { return a->cells[cell].ev_n; }

static double percent(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void wca_print_stats(const wca *a, FILE *out, uint64_t cycles)
{
    for (int k = 0; k < a->ncells; k++) {
        for (unsigned d = 0; d < WCA_NBUSES; d++) {
            const wca_bus *b = &a->buses[k * WCA_NBUSES + d];
            if (!b->words && !b->blocked) continue;
            fprintf(out, "bus cell %d %s: words %llu, busy %llu (%.1f%%), blocked %llu\n", k, wca_bus_names[d],
                    (unsigned long long)b->words, (unsigned long long)b->busy, percent(b->busy, cycles),
                    (unsigned long long)b->blocked);
        }
        for (unsigned n = 0; n < a->nchan; n++) {
            const wca_loc *o = &a->locs[(size_t)k * a->nchan + n];
            uint64_t blocked = o->blocked;
            /* A channel still without credit at the end has been blocked since its
             * head word was ready. */
            if (o->src >= 0 && o->credits == 0 && o->ret_n == 0 && a->lics[o->src].q.count) {
                const wca_lic *l = &a->lics[o->src];
                uint64_t ready = l->q.ring[l->q.head].arrival;
                if (o->prev_end > ready) ready = o->prev_end;
                if (cycles > ready) blocked += cycles - ready;
            }
            if (!o->words && !blocked) continue;
            char name[48];
            wca_loc_name(a, (int)((size_t)k * a->nchan + n), name, sizeof name);
            fprintf(out, "channel cell %d %s: words %llu, busy %llu, blocked %llu, waited %llu\n", k, name,
                    (unsigned long long)o->words, (unsigned long long)(o->words * a->bus_clocks),
                    (unsigned long long)blocked, (unsigned long long)o->waited);
        }
    }
}
