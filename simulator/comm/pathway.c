/* Pathways and markers (seed 000, sections 6 and 7.3): the agent acts on every marker
 * once, when it reaches the head of an input channel of this cell.
 *
 *   begin marker, channel unlinked    street-sign routing: on a match CAM hit the cell
 *                                     is the destination (an event) or a corner (the
 *                                     next word becomes the marker); else straight on.
 *                                     The pathway takes a free channel of the marker's
 *                                     pool on the wanted bus, or waits for one.
 *   begin marker, channel bound       the destination: an event
 *   end marker                        passes over a link and frees it behind; at a
 *                                     pathway's end (or a joint) it is consumed, an event
 *   message begin at a joint          a CAM hit splits the message off to this cell (an
 *                                     event); else it follows the default pathway
 *   message and application markers   an event where the computation agent or a spool
 *                                     takes the channel; the word stays to be read
 *
 * The times are section 8's: routing takes route_clocks (corner_clocks at a corner)
 * from the marker's arrival before it may cross the bus. */
#include "comm_internal.h"

#include <string.h>

/* Street-sign routing word (docs/design.md, section 7): the cell address, the action
 * at that cell and the pool to draw channels from. */
#define ROUTE_ADDR(w) ((w) & 0xfffu)
#define ROUTE_ACTION(w) (((w) >> 12) & 7u)
#define ROUTE_POOL(w) (((w) >> 15) & 1u)

void wca_post(wca *a, int cell, unsigned kind, unsigned lic, uint32_t data)
{
    wca_cell *c = &a->cells[cell];
    if (!(c->ev_mask & (1u << kind))) return;
    if (c->ev_n == WCA_EVENT_DEPTH) {
        c->ev_lost = 1;
        return;
    }
    wca_event *e = &c->ev[(c->ev_head + c->ev_n++) % WCA_EVENT_DEPTH];
    e->kind = (uint8_t)kind;
    e->lic = (uint8_t)lic;
    e->data = data;
    a->progress = 1;
}

static int cam_match(const wca_cell *c, uint32_t word)
{
    for (int i = 0; i < 8; i++)
        if (c->cam[i] != 0xffffffffu && ROUTE_ADDR(c->cam[i]) == ROUTE_ADDR(word)) return 1;
    return 0;
}

/* The lowest free output channel of a pool on a bus, or -1. */
int wca_free_loc(const wca *a, int cell, unsigned bus, unsigned pool)
{
    for (unsigned k = 0; k < a->per_bus; k++) {
        const wca_loc *o = &a->locs[(size_t)cell * a->nchan + bus * a->per_bus + k];
        if (o->pool == pool && o->home < 0 && !o->pinned) return (int)(o - a->locs);
    }
    return -1;
}

static void link_to(wca *a, wca_lic *l, wca_loc *o, int owner)
{
    l->cons = CONS_LOC;
    l->loc = (int32_t)(o - a->locs);
    o->src = o->home = l->id;
    o->owner = owner;
    wca_want(a, o);
}

/* The pathway cannot go on from this cell: report it and drop it up to its end. */
static void unroutable(wca *a, wca_lic *l, uint32_t word)
{
    wca_post(a, l->cell, WCA_EV_ROUTE, lic_local(a, l->id), word);
    l->cons = CONS_DISCARD;
    a->progress = 1;
}

static int owner_of(const wca *a, const wca_lic *l)
{
    if (l->up >= 0 && a->locs[l->up].owner >= 0) return a->locs[l->up].owner;
    return l->cell;
}

/* A begin marker at the head of an unlinked channel, arrived at `at`. */
static void route(wca *a, wca_lic *l, uint64_t at, uint64_t t)
{
    wca_cell *c = &a->cells[l->cell];
    wca_qword *h = &l->q.ring[l->q.head];
    uint32_t word = h->word;
    unsigned out, pool;
    uint64_t ready;
    int corner = 0;
    if (cam_match(c, word)) {
        unsigned action = ROUTE_ACTION(word);
        if (action == 0) {
            /* The destination: the computation agent learns of the new pathway. */
            wca_pop(a, l, t);
            wca_post(a, l->cell, WT_MARK_PBEGIN, lic_local(a, l->id), word);
            a->progress = 1;
            return;
        }
        if (action > WCA_NBUSES) {
            wca_pop(a, l, t);
            unroutable(a, l, word);
            return;
        }
        /* A corner: the next word, the destination or the next corner, becomes the
         * marker and heads the new way. */
        if (l->q.count < 2 || l->q.ring[(l->q.head + 1) & l->q.mask].arrival > t) return;
        out = action - 1;
        pool = ROUTE_POOL(l->q.ring[(l->q.head + 1) & l->q.mask].word);
        ready = at + a->corner_clocks;
        corner = 1;
    } else {
        if (l->bus < 0) {
            /* A local channel has no straight on: its pathway starts with creq. */
            wca_pop(a, l, t);
            unroutable(a, l, word);
            return;
        }
        out = wca_opposite((unsigned)l->bus);
        pool = ROUTE_POOL(word);
        ready = at + a->route_clocks;
    }
    if (c->neighbour[out] < 0) {
        /* Past the end of a linear array (sec. 6.1.4: report, discard). */
        wca_pop(a, l, t);
        unroutable(a, l, word);
        return;
    }
    int g = wca_free_loc(a, l->cell, out, pool);
    if (g < 0) {
        /* No channel free that way: wait, retrying every clock (sec. 6.1.4). */
        l->waiting = 1;
        l->wait_bus = (uint8_t)out;
        l->wait_pool = (uint8_t)pool;
        return;
    }
    l->waiting = 0;
    int owner = owner_of(a, l);
    if (corner) {
        wca_pop(a, l, t);
        h = &l->q.ring[l->q.head];
        if ((h->tag & WCA_TAG_KIND) == WT_MARK_DATA) l->nmarks++;
        h->tag = WT_MARK_PBEGIN;
    }
    h->tag |= WCA_TAG_SEEN;
    if (ready < t) ready = t;
    l->hold = ready;
    wca_note(a, ready);
    link_to(a, l, &a->locs[g], owner);
    a->progress = 1;
}

/* Acts on the marker at the head of l, if one is due. */
static void attend(wca *a, wca_lic *l, uint64_t t)
{
    if (l->q.count == 0) return;
    wca_qword *h = &l->q.ring[l->q.head];
    if (h->arrival > t || l->hold > t) return;
    unsigned tag = h->tag & WCA_TAG_KIND;
    unsigned n = lic_local(a, l->id);
    if (l->cons == CONS_DISCARD) {
        /* Drop what has arrived, up to and with the end marker. */
        while (l->q.count && l->q.ring[l->q.head].arrival <= t) {
            wca_qword w = wca_pop(a, l, t);
            a->progress = 1;
            if ((w.tag & WCA_TAG_KIND) == WT_MARK_PEND) {
                l->cons = CONS_NONE;
                break;
            }
        }
        return;
    }
    if (tag == WT_MARK_DATA || (h->tag & WCA_TAG_SEEN)) return;
    if (l->cons == CONS_LOC) {
        wca_loc *o = &a->locs[l->loc];
        int joint = l->joint >= 0 && o->src == l->id && o->home != l->id;
        if (joint && tag == WT_MARK_MBEGIN && cam_match(&a->cells[l->cell], h->word)) {
            /* The message is for this cell: split it off the default pathway. */
            h->tag |= WCA_TAG_SEEN;
            l->cons = CONS_NONE;
            o->src = o->home;
            wca_want(a, o);
            wca_post(a, l->cell, WT_MARK_MBEGIN, n, h->word);
            a->progress = 1;
            return;
        }
        if (joint && tag == WT_MARK_PEND) {
            /* The incoming pathway ends here; the outgoing one is this cell's. */
            wca_pop(a, l, t);
            l->cons = CONS_NONE;
            l->loc = -1;
            l->joint = -1;
            o->src = o->home;
            wca_want(a, o);
            wca_post(a, l->cell, WT_MARK_PEND, n, 0);
            a->progress = 1;
            return;
        }
        h->tag |= WCA_TAG_SEEN;
        if (joint && tag == WT_MARK_MBEGIN) {
            /* Forwarded by the agent: a message header costs what a pathway header does. */
            l->hold = h->arrival + a->route_clocks;
            wca_note(a, l->hold);
        }
        a->progress = 1;
        return;
    }
    switch (tag) {
    case WT_MARK_PBEGIN:
        if (l->cons == CONS_NONE) {
            route(a, l, h->arrival, t);
        } else {
            uint32_t word = h->word;
            wca_pop(a, l, t);
            wca_post(a, l->cell, WT_MARK_PBEGIN, n, word);
            a->progress = 1;
        }
        break;
    case WT_MARK_PEND: {
        wca_pop(a, l, t);
        if (l->pinned) {
            /* A systolic channel is not a pathway's: it stays. */
            wca_post(a, l->cell, WT_MARK_PEND, n, 0);
            a->progress = 1;
            break;
        }
        if (l->cons == CONS_GATE) {
            wca_cell *c = &a->cells[l->cell];
            c->gate_in[l->gate] = NULL;
            l->gate = -1;
        }
        if (l->cons != CONS_SPOOL) l->cons = CONS_NONE;
        l->joint = -1;
        wca_post(a, l->cell, WT_MARK_PEND, n, 0);
        a->progress = 1;
        break;
    }
    default:
        /* Message begin and end, application markers: the reader learns of them. */
        h->tag |= WCA_TAG_SEEN;
        wca_post(a, l->cell, tag, n, h->word);
        a->progress = 1;
        break;
    }
}

void wca_attention_step(wca *a, uint64_t t)
{
    for (int i = 0; i < a->n_attn;) {
        wca_lic *l = &a->lics[a->attn[i]];
        attend(a, l, t);
        if (l->nmarks || l->cons == CONS_DISCARD) {
            i++;
        } else {
            l->attn = 0;
            a->attn[i] = a->attn[--a->n_attn];
        }
    }
}

/* A join takes effect join_clocks after issue, once the words already queued for the
 * output channel have left (a message is never reordered). */
void wca_joins_step(wca *a, uint64_t t)
{
    for (int i = 0; i < a->n_joins;) {
        wca_loc *o = &a->locs[a->joins[i]];
        if (o->join_lic < 0) {
            a->joins[i] = a->joins[--a->n_joins];
            continue;
        }
        if (t < o->join_at || (o->src >= 0 && o->src != o->join_lic && a->lics[o->src].q.count)) {
            i++;
            continue;
        }
        wca_lic *l = &a->lics[o->join_lic];
        l->cons = CONS_LOC;
        l->loc = (int32_t)(o - a->locs);
        l->joint = l->loc;
        o->src = o->join_lic;
        o->join_lic = -1;
        if (l->q.count) {
            /* A message header the program saw while it held the channel is judged
             * again by the joint's CAM now. */
            wca_qword *h = &l->q.ring[l->q.head];
            if ((h->tag & WCA_TAG_KIND) == WT_MARK_MBEGIN) h->tag = WT_MARK_MBEGIN;
            if (h->tag != WT_MARK_DATA) wca_attend(a, l);
        }
        wca_want(a, o);
        a->progress = 1;
        a->joins[i] = a->joins[--a->n_joins];
    }
}

/* ---- Requests of the computation agent ------------------------------------------------- */

static int free_local_lic(const wca *a, int cell)
{
    for (unsigned n = WCA_NBUSES * a->per_bus; n < a->nchan; n++) {
        const wca_lic *l = &a->lics[(size_t)cell * a->nchan + n];
        if (!l->pinned && l->cons == CONS_NONE && l->out_gate < 0 && l->in_spool < 0 && l->q.used == 0)
            return (int)n;
    }
    return -1;
}

int wca_op_ready(const wca *a, int cell, wt_op op, uint32_t A, uint32_t B, uint64_t t)
{
    (void)t;
    switch (op) {
    case WT_OP_CREQ:
        if (A >= WCA_NBUSES || B > 1) return 1; /* wca_op faults */
        return wca_free_loc(a, cell, A, B) >= 0 && free_local_lic(a, cell) >= 0;
    case WT_OP_EVWAIT: return a->cells[cell].ev_n > 0;
    default: return 1;
    }
}

void wca_op_wait(const wca *a, int cell, wt_op op, uint32_t A, uint32_t B, char *buf, size_t size)
{
    if (op == WT_OP_EVWAIT) {
        snprintf(buf, size, "waits for an event (none waiting)");
    } else if (op == WT_OP_CREQ && A < WCA_NBUSES && B <= 1) {
        if (wca_free_loc(a, cell, A, B) < 0)
            snprintf(buf, size, "waits for a free %s channel on bus %s", B ? "open" : "reservation",
                     wca_bus_names[A]);
        else
            snprintf(buf, size, "waits for a free local channel");
    } else {
        buf[0] = 0;
    }
}

int wca_op(wca *a, int cell, wt_op op, uint32_t A, uint32_t B, uint64_t t, uint32_t *result, char *err,
           size_t errlen)
{
    wca_cell *c = &a->cells[cell];
    *result = 0;
    switch (op) {
    case WT_OP_CREQ: {
        if (A >= WCA_NBUSES || B > 1) {
            snprintf(err, errlen, "creq: bus %u, pool %u: buses are 0 to 3, pools 0 (reservation) and 1 (open)",
                     A, B);
            return -1;
        }
        if (c->neighbour[A] < 0) {
            snprintf(err, errlen, "creq: bus %s leads out of the array", wca_bus_names[A]);
            return -1;
        }
        int g = wca_free_loc(a, cell, A, B), n = free_local_lic(a, cell);
        wca_lic *l = lic_at(a, cell, (unsigned)n);
        link_to(a, l, &a->locs[g], cell);
        *result = (uint32_t)n | lic_local(a, g) << 8;
        a->progress = 1;
        return 0;
    }
    case WT_OP_JOIN: {
        if (A >= a->nchan || B >= a->nchan) {
            snprintf(err, errlen, "join: channels %u and %u: a cell has %u of each", A, B, a->nchan);
            return -1;
        }
        wca_lic *l = lic_at(a, cell, A);
        wca_loc *o = loc_at(a, cell, B);
        if (o->bus < 0 || o->home < 0 || o->pinned || l->pinned) {
            snprintf(err, errlen, "join: output channel %u is not an open pathway of this cell", B);
            return -1;
        }
        if (l->cons == CONS_SPOOL || (l->cons == CONS_LOC && l->loc != (int32_t)(o - a->locs))) {
            snprintf(err, errlen, "join: input channel %u is taken by a %s", A,
                     l->cons == CONS_SPOOL ? "spool gate" : "link to another channel");
            return -1;
        }
        if (l->cons == CONS_GATE) {
            /* Redirection (sec. 3.1.2): the rest of the message goes on, not to the gate. */
            c->gate_in[l->gate] = NULL;
            l->gate = -1;
            l->cons = CONS_NONE;
        }
        o->join_lic = l->id;
        o->join_at = t + wt_ops[WT_OP_JOIN].latency[a->model->id];
        wca_note(a, o->join_at);
        int listed = 0;
        for (int i = 0; i < a->n_joins; i++) listed |= a->joins[i] == (int)(o - a->locs);
        if (!listed) a->joins[a->n_joins++] = (int)(o - a->locs);
        return 0;
    }
    case WT_OP_EVWAIT: {
        wca_event *e = &c->ev[c->ev_head];
        *result = (uint32_t)e->kind << 8 | e->lic;
        c->ev_data = e->data;
        c->ev_head = (c->ev_head + 1) % WCA_EVENT_DEPTH;
        c->ev_n--;
        return 0;
    }
    default:
        *result = A; /* markers: the word goes out through the gate */
        return 0;
    }
}

/* ---- Control registers ------------------------------------------------------------- */

uint32_t wca_ctl_read(const wca *a, int cell, wt_ctl reg)
{
    const wca_cell *c = &a->cells[cell];
    switch (reg) {
    case WT_CTL_GI0:
    case WT_CTL_GI1: {
        const wca_queue *q = c->gate_in[WT_NQUEUES + reg - WT_CTL_GI0];
        return q ? lic_local(a, lic_of(a, q)->id) : 0xffffffffu;
    }
    case WT_CTL_GO0:
    case WT_CTL_GO1: {
        const wca_queue *q = c->gate_out[WT_NQUEUES + reg - WT_CTL_GO0];
        return q ? lic_local(a, lic_of(a, q)->id) : 0xffffffffu;
    }
    case WT_CTL_GT0: return c->gate_tag[0];
    case WT_CTL_GT1: return c->gate_tag[1];
    case WT_CTL_EVST: return c->ev_n | c->ev_lost << 31;
    case WT_CTL_EVMASK: return c->ev_mask;
    case WT_CTL_EVDATA: return c->ev_data;
    default:
        if (reg >= WT_CTL_CAM0 && reg <= WT_CTL_CAM7) return c->cam[reg - WT_CTL_CAM0];
        return wca_spool_read(a, cell, reg);
    }
}

static int bind_input(wca *a, int cell, unsigned gate, uint32_t v, char *err, size_t errlen)
{
    wca_cell *c = &a->cells[cell];
    wca_queue *old = c->gate_in[gate];
    if (v == 0xffffffffu) {
        if (old) {
            wca_lic *l = lic_of(a, old);
            l->cons = CONS_NONE;
            l->gate = -1;
            if (l->nmarks) wca_attend(a, l);
            c->gate_in[gate] = NULL;
        }
        return 0;
    }
    if (v >= a->nchan) {
        snprintf(err, errlen, "input gate @g%u bound to channel %u: a cell has %u", gate - WT_NQUEUES, v, a->nchan);
        return -1;
    }
    wca_lic *l = lic_at(a, cell, v);
    if (old == &l->q) return 0;
    if (l->cons != CONS_NONE) {
        snprintf(err, errlen, "input gate @g%u bound to channel %u, which is taken by %s", gate - WT_NQUEUES, v,
                 l->cons == CONS_GATE ? "another gate" : l->cons == CONS_LOC ? "a link" : "a spool gate");
        return -1;
    }
    if (old) {
        wca_lic *o = lic_of(a, old);
        o->cons = CONS_NONE;
        o->gate = -1;
        if (o->nmarks) wca_attend(a, o);
    }
    l->cons = CONS_GATE;
    l->gate = (int8_t)gate;
    c->gate_in[gate] = &l->q;
    if (l->nmarks) wca_attend(a, l);
    return 0;
}

static int bind_output(wca *a, int cell, unsigned gate, uint32_t v, char *err, size_t errlen)
{
    wca_cell *c = &a->cells[cell];
    wca_queue *old = c->gate_out[gate];
    if (old && old->used != old->count) {
        /* A write issued before lands after: it must find the queue it reserved. */
        snprintf(err, errlen, "output gate @g%u rebound while a write to it is under way", gate - WT_NQUEUES);
        return -1;
    }
    if (v == 0xffffffffu) {
        if (old) lic_of(a, old)->out_gate = -1;
        c->gate_out[gate] = NULL;
        return 0;
    }
    if (v >= a->nchan) {
        snprintf(err, errlen, "output gate @g%u bound to channel %u: a cell has %u", gate - WT_NQUEUES, v,
                 a->nchan);
        return -1;
    }
    wca_lic *l = lic_at(a, cell, v);
    if (old == &l->q) return 0;
    if (l->bus >= 0 || l->out_gate >= 0 || l->in_spool >= 0) {
        snprintf(err, errlen, "output gate @g%u bound to channel %u, which is %s", gate - WT_NQUEUES, v,
                 l->bus >= 0 ? "fed by a bus (output gates fill local channels)" : "filled already");
        return -1;
    }
    if (old) lic_of(a, old)->out_gate = -1;
    l->out_gate = (int8_t)gate;
    c->gate_out[gate] = &l->q;
    return 0;
}

int wca_ctl_write(wca *a, int cell, wt_ctl reg, uint32_t v, uint64_t t, char *err, size_t errlen)
{
    wca_cell *c = &a->cells[cell];
    a->progress = 1;
    switch (reg) {
    case WT_CTL_GI0:
    case WT_CTL_GI1: return bind_input(a, cell, WT_NQUEUES + (unsigned)(reg - WT_CTL_GI0), v, err, errlen);
    case WT_CTL_GO0:
    case WT_CTL_GO1: return bind_output(a, cell, WT_NQUEUES + (unsigned)(reg - WT_CTL_GO0), v, err, errlen);
    case WT_CTL_EVST:
        c->ev_lost = 0; /* writing clears the lost-events bit */
        return 0;
    case WT_CTL_EVMASK:
        c->ev_mask = v;
        return 0;
    default:
        if (reg >= WT_CTL_CAM0 && reg <= WT_CTL_CAM7) {
            c->cam[reg - WT_CTL_CAM0] = v;
            return 0;
        }
        return wca_spool_write(a, cell, reg, v, t, err, errlen);
    }
}
