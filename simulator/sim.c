/* The cycle loop of the array (docs/design.md, section 1).
 *
 * Each clock t runs in two passes over the cells, so that no cell sees another's
 * doings of the same clock in an order-dependent way:
 *   1. land: results due at t are written, words reach queues and host FIFOs, the
 *      host pairs words with addresses; then the run is done if every cell has
 *      halted and no event lies ahead.
 *   2. issue: each cell that may issue tries its bundle. A word pushed in pass 1
 *      by a neighbour is stamped t+link or later, and a slot freed by a dequeue at t
 *      counts for writers only from t+1 (deq_clock), so both passes give the same
 *      result whatever order the cells are visited in.
 * If no cell issued and the clock has reached the event horizon, the array is stuck. */
#include "sim_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "warp_support.h"

static inline uint32_t load32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void store32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline unsigned lowest(unsigned mask) { return (unsigned)__builtin_ctz(mask); }

/* ---- Decoding, once per program ------------------------------------------------- */

static uint8_t src_index(unsigned o)
{
    if (o == WT_OPND_IMM0) return SRC_IMM0;
    if (o == WT_OPND_IMM1) return SRC_IMM1;
    if (wt_opnd_is_pgate(o) || wt_opnd_is_path(o)) return (uint8_t)(SRC_GATE + wsim_gate_of(o));
    if (wt_opnd_is_ctl(o)) return (uint8_t)(SRC_CTL + (o - WT_OPND_CTL));
    return (uint8_t)o;
}

/* The simulator's view of target's decoded bundle (wt_decode_bundle): sources as
 * indices into the issue loop's src[] (decoding checked them), the gates read and
 * written as masks and counts, and the events an issue schedules. */
static void decode_bundle(const wt_model *m, const wt_insn *in, uint32_t pc, wsim_bundle *b)
{
    wt_dbundle db;
    wt_decode_bundle(m, in, &db);
    memset(b, 0, sizeof *b);
    b->bad = db.fault;
    b->target = db.target;
    b->imm[0] = db.imm[0];
    b->imm[1] = db.imm[1];
    b->wait_op = db.wait_op;
    b->slot_mask = db.slot_mask;
    b->clocks = db.clocks;
    b->nops = db.nops;
    for (unsigned i = 0; i < db.nops; i++) {
        const wt_dop *o = &db.ops[i];
        wsim_dop *d = &b->ops[i];
        *d = (wsim_dop){.op = o->op, .kind = o->kind, .slot = o->slot, .uclass = o->uclass, .dst = o->dst,
                        .lat = o->lat, .interval = o->interval, .pair = o->pair};
        int g = wsim_gate_of(o->dst);
        if (g >= 0 && !wt_opnd_is_path(o->dst)) {   /* a cell writing @adr is a fault */
            b->out_mask |= (uint8_t)(1u << g);
            b->out_n[g]++;
        } else if (wt_opnd_is_feed(o->dst)) {
            unsigned q = o->dst - WT_OPND_FEED;
            b->feed_mask |= (uint8_t)(1u << q);
            b->feed_n[q]++;
        }
        uint8_t *srcs[3] = {&d->a, &d->b, &d->c};
        for (int k = 0; k < 3; k++) {
            if (!(o->reads >> k & 1)) continue;
            unsigned x = o->src[k];
            if (o->pair >> k & 1) {
                *srcs[k] = (uint8_t)x;
                continue;
            }
            int gk = wsim_gate_of(x);
            if (gk >= 0) b->gate_rd |= (uint8_t)(1u << gk);
            if (wt_opnd_is_ctl(x)) b->ctl_rd |= 1u << (x - WT_OPND_CTL);
            *srcs[k] = src_index(x);
        }
    }
    unsigned ev = b->clocks > 1 ? b->clocks : 0;
    /* A gate's bus frees a word's time after the bundle: the cell wakes then. */
    for (unsigned g = 0; m->gate_word_clocks && g < WSIM_NGATES; g++) {
        unsigned words = (b->gate_rd >> g & 1) > b->out_n[g] ? 1 : b->out_n[g];
        if (words * m->gate_word_clocks > ev) ev = words * m->gate_word_clocks;
    }
    for (unsigned i = 0; i < b->nops; i++) {
        wsim_dop *d = &b->ops[i];
        d->tag = d->kind == WT_K_COMM ? (uint8_t)wt_op_marker((wt_op)d->op) : WT_MARK_DATA;
        d->wr = !d->dst ? WSIM_WR_NONE
                : d->dst >= WT_OPND_FEED && d->dst < WT_OPND_PGATE ? WSIM_WR_HOST : WSIM_WR_WHEEL;
        d->proto = (wsim_write){.pc = (uint16_t)pc, .dst = d->dst, .tag = d->tag};
        /* On Warp a gate's word reaches the neighbour link clocks after it lands. */
        unsigned lands = d->lat + (wt_opnd_is_gate(d->dst) && !m->logical_channels ? m->link_latency : 0);
        if (d->wr == WSIM_WR_WHEEL && lands > ev) ev = lands;
        if (d->interval > 1 && d->interval > ev) ev = d->interval;
        if (d->uclass != WT_UC_NONE) b->class_inc += 1ull << (WSIM_LANE_BITS * (d->uclass - 1u));
    }
    b->ev = (uint8_t)ev;
    b->io = b->gate_rd || b->out_mask || b->feed_mask || b->wait_op || b->ctl_rd;
    for (unsigned i = 0; i < b->nops; i++) b->slow_units |= b->ops[i].interval > 1;
    for (unsigned g = 0; g < WSIM_NGATES; g++) {
        if (b->gate_rd >> g & 1) b->in_g[b->n_in++] = (uint8_t)g;
        if (b->out_mask >> g & 1) b->out_g[b->n_out++] = (uint8_t)g;
    }
}

/* The bundle as a cell whose host-feed and address gates mean something on the sides
 * in `live` only runs it: such a write elsewhere is dropped at issue, so a pure
 * operation that makes nothing else is removed, and any other keeps its effects
 * (a fault, a unit kept busy) with its result going nowhere. The bundle's figures
 * (class counts, events, clocks) stay those of the whole bundle. */
static void specialise(const wsim_bundle *full, unsigned live, wsim_bundle *b)
{
    *b = *full;
    b->feed_mask &= (uint8_t)live;
    b->nops = 0;
    b->wait_op = 0;
    b->slow_units = 0;
    for (unsigned i = 0; i < full->nops; i++) {
        wsim_dop d = full->ops[i];
        if (d.dst >= WT_OPND_FEED && d.dst < WT_OPND_PGATE && !(live & (1u << ((d.dst - WT_OPND_FEED) & 3)))) {
            if (d.kind == WT_K_PURE && d.interval <= 1) continue;
            d.wr = WSIM_WR_NONE;
        }
        if (full->wait_op == i + 1) b->wait_op = (uint8_t)(b->nops + 1);
        b->slow_units |= d.interval > 1;
        b->ops[b->nops++] = d;
    }
    b->io = b->gate_rd || b->out_mask || b->feed_mask || b->wait_op || b->ctl_rd;
    /* A path read stays plain: paths are the Warp's (an iWarp bundle reading one is bad),
     * and the plain Warp copy passes the word on. */
    b->plain = !b->bad && !b->wait_op && !b->ctl_rd && !b->feed_mask;
    for (unsigned i = 0; i < b->nops; i++)
        if (b->ops[i].kind == WT_K_COMM || b->ops[i].kind == WT_K_DOUBLE || b->ops[i].wr == WSIM_WR_HOST)
            b->plain = 0;
}

/* ---- Construction ---------------------------------------------------------------- */

static uint32_t pow2_at_least(uint32_t n)
{
    uint32_t p = 1;
    while (p < n) p <<= 1;
    return p;
}

/* The most writes that can land in one clock: from each slot, one for every distinct
 * latency its writing operations have (one operation a slot per bundle, so writes of
 * one latency from one slot land in different clocks). */
static unsigned wheel_capacity(const wt_model *m, unsigned *max_latency)
{
    unsigned cap = 0, maxlat = 1;
    for (unsigned s = 0; s < WT_NSLOTS; s++) {
        uint8_t seen[256] = {0};
        for (unsigned op = 1; op < WT_NOPS; op++) {
            unsigned lat = wt_ops[op].latency[m->id];
            if (lat > maxlat) maxlat = lat;
            if (wt_ops[op].uclass != wt_slot_layouts[s].uclass || !wt_op_has_dest((wt_op)op)) continue;
            /* a double's result is two writes */
            uint8_t writes = strchr(wt_ops[op].sig, 'D') ? 2 : 1;
            if (seen[lat] < writes) {
                cap += writes - seen[lat];
                seen[lat] = writes;
            }
        }
    }
    *max_latency = maxlat;
    return cap;
}

static void hfifo_push(wsim_hfifo *f, uint32_t val, uint32_t pc, uint64_t time);

/* A word an end cell's agent sent past the end of the array: the host stores it. */
static void host_sink(void *ctx, int cell, unsigned bus, uint32_t word, uint64_t arrival)
{
    wsim *s = ctx;
    hfifo_push(&s->sink[cell * WT_NQUEUES + ((bus + 2) & 3)], word, 0, arrival);
    s->sink_n++;
}

static int uses_agent_beyond_data(const wsim *s);

/* iWarp: every cell's gates lead to its communication agent. */
static int make_agents(wsim *s, const wca_config *given, int systolic, char *err, size_t errlen)
{
    wca_config cfg;
    if (given) cfg = *given;
    else wca_config_default(&cfg);
    s->comm_cfg = cfg;
    uint32_t *cids = ws_xcalloc((size_t)s->ncells, sizeof *cids);
    for (int k = 0; k < s->ncells; k++) cids[k] = s->cells[k].src[SRC_CID];
    wca_hooks hooks = {.ctx = s, .host_sink = host_sink};
    s->comm = wca_new(s->model, &cfg, s->ncells, cids, &hooks, err, errlen);
    free(cids);
    if (!s->comm) return -1;
    /* A program that names the direction gates is a W2 program: its neighbour
     * channels are set up before it starts. */
    if (systolic && wca_setup_systolic(s->comm, err, errlen) != 0) return -1;
    s->data_only = !uses_agent_beyond_data(s);
    if (s->data_only) wca_move_data_only(s->comm);
    for (int k = 0; k < s->ncells; k++) {
        wsim_cell *c = &s->cells[k];
        wca_attach_memory(s->comm, k, c->mem, s->model->data_mem_bytes, &c->mem_taken_until);
        wca_use_gate_tables(s->comm, k, c->in, c->out);
        for (unsigned q = 0; q < WT_NQUEUES; q++) c->feedq[q] = wca_feed_queue(s->comm, k, q);
    }
    return 0;
}

/* The sides (bit q) on which cell k faces the host: the ends of a linear array,
 * the edges of a torus whose edges lead to the host (a 2-D cellprogram). */
static unsigned host_sides(const wsim_program *p, int k, int ncells)
{
    const wca_config *g = p->comm;
    if (p->model->logical_channels && g && g->topology == WCA_TORUS && g->host_edges) {
        int x = k % g->width, y = k / g->width;
        return (x == 0 ? 1u << WT_Q_XL : 0) | (x == g->width - 1 ? 1u << WT_Q_XR : 0) |
               (y == 0 ? 1u << WT_Q_YL : 0) | (y == g->height - 1 ? 1u << WT_Q_YR : 0);
    }
    return (k == 0 ? 1u << WT_Q_XL | 1u << WT_Q_YL : 0) | (k == ncells - 1 ? 1u << WT_Q_XR | 1u << WT_Q_YR : 0);
}

static int wsim_init(wsim *s, const wsim_program *p, char *err, size_t errlen);

wsim *wsim_new(const wsim_program *p, char *err, size_t errlen)
{
    const wt_model *m = p->model;
    if (!m) {
        snprintf(err, errlen, "no machine model");
        return NULL;
    }
    if (p->ncode == 0) {
        snprintf(err, errlen, "the program is empty");
        return NULL;
    }
    if (p->ncode > m->prog_mem_bundles || p->ncode > 65536) {
        snprintf(err, errlen, "the program has %u bundles; %s program memory holds %u",
                 p->ncode, m->name, m->prog_mem_bundles);
        return NULL;
    }
    if (p->entry >= p->ncode) {
        snprintf(err, errlen, "entry bundle %u is outside the program (%u bundles)", p->entry, p->ncode);
        return NULL;
    }
    if (p->data_size > m->data_mem_bytes || (p->data_size && !p->data)) {
        snprintf(err, errlen, "%u bytes of data do not fit %s data memory (%u bytes)",
                 p->data_size, m->name, m->data_mem_bytes);
        return NULL;
    }
    if (p->first_cell > p->last_cell || p->first_cell < 0 ||
        (int64_t)p->last_cell - p->first_cell + 1 > WSIM_MAX_CELLS) {
        snprintf(err, errlen, "cells %d to %d: the array must have 1 to %d cells",
                 p->first_cell, p->last_cell, WSIM_MAX_CELLS);
        return NULL;
    }

    if (p->iu_code && wsim_iu_check(m, p->iu_code, p->ncode, err, errlen) != 0) return NULL;
    if (p->iu_table_words > m->iu_table_words) {
        snprintf(err, errlen, "an interface unit address table of %u entries; the %s has %u", p->iu_table_words,
                 m->name, m->iu_table_words);
        return NULL;
    }
    if (!m->logical_channels && p->comm && p->comm->topology != WCA_LINEAR) {
        snprintf(err, errlen, "the %s model is a linear array: a torus needs -mcpu=iwarp", m->name);
        return NULL;
    }

    wsim *s = ws_xcalloc(1, sizeof *s);
    s->threads = 1;
    if (wsim_init(s, p, err, errlen) != 0) {
        wsim_free(s);
        return NULL;
    }
    return s;
}

/* Makes the array of program p in s, all zero but its settings. 0, or -1 with a
 * reason (s is then half made: wsim_release frees it). */
static int wsim_init(wsim *s, const wsim_program *p, char *err, size_t errlen)
{
    const wt_model *m = p->model;
    s->prog = *p;
    s->prog.comm = NULL;
    s->model = m;
    s->ncode = p->ncode;
    s->code = ws_xcalloc(p->ncode, sizeof *s->code);
    int systolic = 0;
    for (uint32_t i = 0; i < p->ncode; i++) {
        decode_bundle(m, &p->code[i], i, &s->code[i]);
        systolic |= (s->code[i].gate_rd | s->code[i].out_mask) & 0xf;
    }

    unsigned maxlat;
    s->wheel_cap = wheel_capacity(m, &maxlat);
    /* An end cell's wheel also takes the feeds and addresses of the IU's bundle. */
    if (p->iu_code) s->wheel_cap *= 2;
    unsigned wheel_slots = pow2_at_least(maxlat + 1);
    if (wheel_slots > WSIM_WHEEL_SLOTS)
        ws_internal_error("a latency of %u clocks needs %u wheel slots; WSIM_WHEEL_SLOTS is %u", maxlat, wheel_slots,
                          WSIM_WHEEL_SLOTS);
    s->wheel_mask = wheel_slots - 1;
    s->qcap = m->queue_words;
    s->link = m->link_latency;
    s->gate_clocks = m->gate_word_clocks;
    s->host_size = p->host_size;
    s->host = ws_xcalloc(p->host_size ? p->host_size : 1, 1);
    s->msg = ws_xstrdup("");
    s->ncells = p->last_cell - p->first_cell + 1;
    s->sink = ws_xcalloc((size_t)s->ncells * WT_NQUEUES, sizeof *s->sink);
    s->addr = ws_xcalloc((size_t)s->ncells * WT_NQUEUES, sizeof *s->addr);
    s->ends = ws_xcalloc((size_t)s->ncells * WT_NQUEUES, sizeof *s->ends);
    s->cells = ws_xcalloc_aligned((size_t)s->ncells, sizeof *s->cells, WS_CACHE_LINE);
    for (int k = 0; k < s->ncells; k++) {
        wsim_cell *c = &s->cells[k];
        c->src[SRC_CID] = (uint32_t)(p->first_cell + k);
        c->pc = p->entry;
        c->state = WSIM_CELL_WAITING;
        c->next_issue = p->skew >= 0 ? (uint64_t)k * (uint64_t)p->skew
                                      : (uint64_t)(s->ncells - 1 - k) * (uint64_t)(-(int64_t)p->skew);
        if (c->next_issue > s->horizon) s->horizon = c->next_issue;
        c->mem = ws_xcalloc(m->data_mem_bytes, 1);
        if (p->data_size) memcpy(c->mem, p->data, p->data_size);
        c->rstack = ws_xcalloc(m->ret_stack_depth ? m->ret_stack_depth : 1, sizeof *c->rstack);
        c->wheel = ws_xcalloc((size_t)wheel_slots * s->wheel_cap, sizeof *c->wheel);
        c->feed_live = (uint8_t)host_sides(p, k, s->ncells);
        c->addr_live = c->feed_live;
        for (unsigned q = 0; q < WT_NQUEUES; q++) {
            if (!(c->feed_live & (1u << q))) continue;
            s->ends[s->nends++] = k * WT_NQUEUES + (int)q;
            s->sink[k * WT_NQUEUES + q].cap = s->addr[k * WT_NQUEUES + q].cap = 16;
            s->sink[k * WT_NQUEUES + q].e = ws_xcalloc(16, sizeof(wsim_hentry));
            s->addr[k * WT_NQUEUES + q].e = ws_xcalloc(16, sizeof(wsim_hentry));
        }
        if (!s->code_for[c->feed_live]) {
            wsim_bundle *v = ws_xcalloc(p->ncode, sizeof *v);
            for (uint32_t i = 0; i < p->ncode; i++) {
                specialise(&s->code[i], c->feed_live, &v[i]);
                /* an end cell with an IU (below) takes the general path */
                if (p->iu_code && c->feed_live) v[i].plain = 0;
                /* an iWarp inner cell's `utof @fxl, r5` is gone but for its unit, busy two clocks */
                unsigned busy_only = 0;
                for (unsigned j = 0; j < v[i].nops; j++)
                    busy_only += v[i].ops[j].kind == WT_K_PURE && v[i].ops[j].wr == WSIM_WR_NONE &&
                                 v[i].ops[j].interval > 1 ? 1 : 100;
                v[i].nop = v[i].plain && busy_only <= 1 && !v[i].io && v[i].clocks == 1 && i + 1 < p->ncode;
            }
            s->code_for[c->feed_live] = v;
        }
        c->code = s->code_for[c->feed_live];
        if (p->iu_code && c->feed_live) c->iu = wsim_iu_side_new(s, c);
    }
    if (m->logical_channels) {
        return make_agents(s, p->comm, systolic, err, errlen);
    }
    /* Warp: sending toward the right on X fills the right neighbour's "from the left on
     * X" queue, the queue index with the direction bit flipped. */
    for (int k = 0; k < s->ncells; k++) {
        wsim_cell *c = &s->cells[k];
        for (int q = 0; q < WT_NQUEUES; q++) wca_queue_init(&c->q[q], s->qcap);
        for (unsigned p = 0; p < WT_NPATHS; p++) {
            wca_queue_init(&c->path[p], wt_paths[p].words);
            if (wt_paths[p].model == m->id) c->in[WSIM_GATE_PATH + p] = &c->path[p];
        }
    }
    for (int k = 0; k < s->ncells; k++) {
        wsim_cell *c = &s->cells[k];
        for (int q = 0; q < WT_NQUEUES; q++) {
            int right = q >= WT_Q_XR;
            int nb = right ? k + 1 : k - 1;
            c->in[q] = &c->q[q];
            c->out[q] = nb >= 0 && nb < s->ncells ? &s->cells[nb].q[q ^ 2] : NULL;
            c->feedq[q] = &c->q[q];
        }
        for (unsigned p = 0; p < WT_NPATHS; p++)
            c->path_next[p] = k + 1 < s->ncells && c->in[WSIM_GATE_PATH + p] ? &s->cells[k + 1].path[p] : NULL;
    }
    return 0;
}

/* Frees what wsim_init made, and the threads' tables. */
static void wsim_release(wsim *s)
{
    for (int k = 0; k < s->ncells; k++) {
        wsim_cell *c = &s->cells[k];
        for (int q = 0; q < WT_NQUEUES; q++) wca_queue_fini(&c->q[q]);
        for (unsigned p = 0; p < WT_NPATHS; p++) wca_queue_fini(&c->path[p]);
        free(c->mem);
        free(c->rstack);
        free(c->wheel);
        wsim_iu_side_free(c->iu);
    }
    for (size_t i = 0; s->sink && i < (size_t)s->ncells * WT_NQUEUES; i++) {
        free(s->sink[i].e);
        free(s->addr[i].e);
    }
    for (size_t i = 0; s->kept && i < (size_t)s->ncells * WT_NQUEUES; i++) ws_buf_free(&s->kept[i]);
    free(s->kept);
    free(s->sink);
    free(s->addr);
    free(s->ends);
    wca_free(s->comm);
    free(s->cells);
    free(s->code);
    for (unsigned m = 0; m < 1u << WT_NQUEUES; m++) free(s->code_for[m]);
    free(s->host);
    free(s->msg);
    for (int i = 0; i < s->ngroups; i++) free(s->parts[i].runs);
    free(s->parts);
    free(s->cut);
    free(s->seam);
    free(s->host_at_start);
    free(s->thread_use);
}

void wsim_free(wsim *s)
{
    if (!s) return;
    wsim_release(s);
    free(s);
}

/* ---- Pass 1: landing ------------------------------------------------------------ */

static void hfifo_push(wsim_hfifo *f, uint32_t val, uint32_t pc, uint64_t time)
{
    if (f->count == f->cap) {
        /* Rare (the host keeps up with every send that names an address): grow and unwrap. */
        size_t cap = f->cap ? 2 * f->cap : 16;
        wsim_hentry *e = ws_xmalloc(cap * sizeof *e);
        for (size_t i = 0; i < f->count; i++) e[i] = f->e[(f->head + i) & (f->cap - 1)];
        free(f->e);
        f->e = e;
        f->head = 0;
        f->cap = cap;
    }
    wsim_hentry *x = &f->e[(f->head + f->count++) & (f->cap - 1)];
    x->val = val;
    x->pc = pc;
    x->time = time;
}

/* A word written to a queue at clock t: on Warp it crosses the link to the
 * neighbour's queue; on iWarp it enters a channel of the cell's own agent, whose bus
 * then carries it. */
static inline void queue_land(wsim *s, wca_queue *q, uint32_t word, uint8_t tag, uint64_t arrival, uint64_t t)
{
    (void)t;
    if (s->comm) wca_put(s->comm, q, word, tag, arrival);
    else wca_queue_put(q, word, tag, arrival);
}

static void land_other(wsim *s, wsim_cell *c, uint64_t t, const wsim_write *w);

/* Registers here; the rest, rarer, out of line. */
static inline __attribute__((always_inline)) void land(wsim *s, wsim_cell *c, uint64_t t, unsigned slot)
{
    const wsim_write *w = &c->wheel[(size_t)slot * s->wheel_cap];
    unsigned n = c->wheel_n[slot];
    c->wheel_n[slot] = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned d = w[i].dst;
        if (d < WT_OPND_NREGS) {
            c->src[d] = w[i].val;
        } else if (d < WT_OPND_FEED && !s->comm && c->out[d - WT_OPND_GATE]) {
            /* A Warp word crossing the link to the neighbour's queue. */
            wca_queue_put(c->out[d - WT_OPND_GATE], w[i].val, w[i].tag, t + s->link);
        } else if (d < WT_OPND_FEED && c->out[d - WT_OPND_GATE]) {
            /* An iWarp word entering a channel of the cell's agent, which a bus carries. */
            wca_put(s->comm, c->out[d - WT_OPND_GATE], w[i].val, w[i].tag, t);
        } else {
            land_other(s, c, t, &w[i]);
            if (s->status != WSIM_RUNNING) return;
        }
    }
}

static __attribute__((noinline)) void land_other(wsim *s, wsim_cell *c, uint64_t t, const wsim_write *w)
{
    unsigned d = w->dst;
    if (d < WT_OPND_FEED) {
        wca_queue *q = c->out[d - WT_OPND_GATE];
        if (q) queue_land(s, q, w->val, w->tag, s->comm ? t : t + s->link, t);
        else {
            hfifo_push(&s->sink[(c - s->cells) * WT_NQUEUES + d - WT_OPND_GATE], w->val, w->pc, t + s->link);
            s->sink_n++;
        }
    } else if (wt_opnd_is_pgate(d)) {
        queue_land(s, c->out[WT_NQUEUES + d - WT_OPND_PGATE], w->val, w->tag, t, t);
    } else if (wt_opnd_is_feed(d)) {
        queue_land(s, c->feedq[d - WT_OPND_FEED], w->val, WT_MARK_DATA, t, t);
    } else if (wt_opnd_is_addr(d)) {
        hfifo_push(&s->addr[(c - s->cells) * WT_NQUEUES + d - WT_OPND_ADDR], w->val, w->pc, t);
        s->addr_n++;
    } else if (wt_opnd_is_path(d)) {
        /* the interface unit's word, its slot reserved when the IU issued */
        wca_queue_put(&c->path[d - WT_OPND_PATH], w->val, WT_MARK_DATA, t);
    } else {
        char why[200];
        int k = (int)(c - s->cells);
        if (wca_ctl_write(s->comm, k, (wt_ctl)(d - WT_OPND_CTL), w->val, t, why, sizeof why) != 0)
            wsim_fault(s, k, w->pc, "%s", why);
    }
}

/* The host stores each word an end cell sent it at the address that cell gave. */
static void host_pair(wsim *s, uint64_t t)
{
    for (int i = 0; i < s->nends; i++) {
        wsim_hfifo *w = &s->sink[s->ends[i]], *a = &s->addr[s->ends[i]];
        while (w->count && a->count && w->e[w->head].time <= t) {
            uint32_t val = w->e[w->head].val;
            uint32_t addr = a->e[a->head].val, pc = a->e[a->head].pc;
            w->head = (w->head + 1) & (w->cap - 1);
            a->head = (a->head + 1) & (a->cap - 1);
            w->count--;
            a->count--;
            s->sink_n--;
            s->addr_n--;
            s->iu_words_out++;
            if (s->kept) ws_buf_append(&s->kept[s->ends[i]], &val, sizeof val);
            if (addr == 0xFFFFFFFFu) continue;
            s->iu_host_stores++;
            if ((addr & 3) || s->host_size < 4 || addr > s->host_size - 4) {
                int cell = s->ends[i] / WT_NQUEUES;
                wsim_fault(s, cell, pc, "host store to address 0x%x %s (host memory is %u bytes)",
                            addr, (addr & 3) ? "is misaligned" : "is outside host memory", s->host_size);
                return;
            }
            store32(s->host + addr, val);
        }
    }
}

uint64_t wsim_horizon(const wsim *s)
{
    uint64_t h = s->comm ? wca_horizon(s->comm) : 0;
    return h > s->horizon ? h : s->horizon;
}

static void begin_clock(wsim *s)
{
    uint64_t t = s->cycle;
    unsigned slot = (unsigned)(t & s->wheel_mask);
    wsim_cell *const cells = s->cells;
    const int n = s->ncells;
    for (int k = 0; k < n; k++) {
        if (!cells[k].wheel_n[slot]) continue;
        land(s, &cells[k], t, slot);
        if (s->status != WSIM_RUNNING) return;
    }
    /* The agents move words once a clock, after what lands and before any cell issues;
     * wsim_run may repeat begin_clock at its limit, which must not repeat this. */
    if (s->comm && s->agent_clock != t + 1) {
        s->agent_clock = t + 1;
        s->agent_progress = wca_step(s->comm, t);
    }
    if (s->sink_n && s->addr_n) host_pair(s, t);
    if (s->status == WSIM_RUNNING && s->nhalted == s->ncells && wsim_horizon(s) <= t && !s->agent_progress)
        s->status = WSIM_DONE;
}

/* ---- Pass 2: issue ---------------------------------------------------------------- */

static inline void note_event(uint64_t *horizon, uint64_t when)
{
    if (when > *horizon) *horizon = when;
}

/* Carries the class lanes into the counters. */
static void flush_lanes(wsim_cell *c)
{
    for (unsigned uc = 1; uc < WT_NUCLASSES; uc++)
        c->class_ops[uc] += (c->class_lanes >> (WSIM_LANE_BITS * (uc - 1))) & ((1u << WSIM_LANE_BITS) - 1);
    c->class_lanes = 0;
}

static inline void schedule(wsim *s, wsim_cell *c, const wsim_dop *o, uint32_t val, uint64_t when, uint32_t pc,
                            uint64_t *horizon)
{
    unsigned slot = (unsigned)(when & s->wheel_mask), dst = o->dst;
    wsim_write *w = &c->wheel[(size_t)slot * s->wheel_cap + c->wheel_n[slot]++];
    w->val = val;
    w->dst = (uint8_t)dst;
    w->pc = (uint16_t)pc;
    w->tag = o->tag;
    /* On Warp the word reaches the neighbour link clocks later; on iWarp it enters a
     * channel of the cell's agent, which keeps its own horizon. */
    note_event(horizon, wt_opnd_is_gate(dst) && !s->comm ? when + s->link : when);
}

void wsim_schedule_write(wsim *s, wsim_cell *c, unsigned dst, uint32_t val, uint64_t when, uint32_t pc)
{
    wsim_dop o = {.dst = (uint8_t)dst, .tag = WT_MARK_DATA};
    schedule(s, c, &o, val, when, pc, &s->horizon);
}

/* Path words pass a cell as a mv to a gate would: the next cell finds the word in its
 * queue a mv's latency plus a link's after the read (warp_ops.def, WT_PATH). Inline in
 * the plain Warp issue: with the IU counting loops every inner cell's kernel reads
 * @adr (bnz @adr), which would otherwise take the general path each iteration. */
static inline __attribute__((always_inline)) void path_pass(wsim *s, wsim_cell *c, unsigned g, wca_qword w,
                                                            uint64_t t, uint64_t *horizon)
{
    unsigned p = g - WSIM_GATE_PATH;
    wca_queue *nq = c->path_next[p];
    c->path_reads[p]++;
    if (!nq) return;
    uint64_t arrival = t + wt_ops[WT_OP_MV].latency[s->model->id] + s->link;
    nq->used++;
    wca_queue_put(nq, w.word, w.tag, arrival);
    if (wca_queue_used_at(nq, t) > c[1].path_peak[p]) c[1].path_peak[p] = wca_queue_used_at(nq, t);
    note_event(horizon, arrival);
}

static __attribute__((noinline, cold)) void fault_unbound(wsim *s, int k, uint32_t pc, int input, unsigned g)
{
    const char *name = wsim_gate_name(g);
    if (g < WT_NQUEUES)
        wsim_fault(s, k, pc, "%s gate %s is connected to no channel", input ? "input" : "output", name);
    else
        wsim_fault(s, k, pc, "%s gate %s is bound to no channel (write %%%s%u first)", input ? "input" : "output",
                    name, input ? "gi" : "go", g - WT_NQUEUES);
}

/* A request to the cell's communication agent: 0, or -1 after a fault. Out of the
 * issue loop's way: most bundles make none. */
static __attribute__((noinline)) int comm_op(wsim *s, int k, uint32_t pc, unsigned op, uint32_t A, uint32_t B,
                                             uint64_t t, uint32_t *v)
{
    char why[200];
    if (wca_op(s->comm, k, (wt_op)op, A, B, t, v, why, sizeof why) == 0) return 0;
    wsim_fault(s, k, pc, "%s", why);
    return -1;
}

/* iWarp: is the internal bus of a gate the bundle reads or writes still carrying
 * its last word (one every gate_word_clocks)? */
static inline int gate_bus_busy(const wsim_cell *c, const wsim_bundle *b, uint64_t t)
{
    for (unsigned i = 0; i < b->n_in; i++)
        if (c->gate_free[0][b->in_g[i]] > t) return 1;
    for (unsigned i = 0; i < b->n_out; i++)
        if (c->gate_free[1][b->out_g[i]] > t) return 1;
    return 0;
}

/* The value of a double-precision operation (WT_K_DOUBLE) from its 64-bit sources. */
static __attribute__((noinline)) uint64_t double_value(unsigned op, uint64_t A, uint64_t B)
{
    const uint64_t C = 0;
    (void)C;
    switch (op) {
#define WT_OP(id, mn, uc, code, sig, ity, lw, li, iw, ii, kind, sem) \
    case WT_OP_##id:                                                \
        return WT_K_##kind == WT_K_DOUBLE ? (uint64_t)(sem) : 0;
#include "warp_ops.def"
#undef WT_OP
    default: return 0;
    }
}

/* Which copy of issue runs: the general one, or one for a plain bundle (the caller
 * knows the pc is in the program, the bundle is plain and the cell has no IU) on a
 * Warp array (no agents, so no spool takes the memory) or an iWarp one. */
enum { ISSUE_GENERAL, ISSUE_PLAIN_WARP, ISSUE_PLAIN_IWARP };

/* Tries to issue cell k's next bundle at clock t. 1 if it issued. What it schedules
 * raises *horizon; a halt counts in *nhalted (the array's, or a thread's share's).
 * `copy` is a constant (ISSUE_*), so each copy leaves out the code it cannot need. */
static inline __attribute__((always_inline)) int issue_impl(wsim *s, int k, wsim_cell *c, uint32_t pc,
                                                            uint64_t t, uint64_t *horizon, int *nhalted,
                                                            const int copy)
{
    const int plain = copy != ISSUE_GENERAL;
    wca *const comm = copy == ISSUE_PLAIN_WARP ? NULL : s->comm;
    if (!plain && pc >= s->ncode) {
        wsim_fault(s, k, pc, "pc outside the program (%u bundles)", s->ncode);
        return 0;
    }
    const wsim_bundle *b = &c->code[pc];
    if (!plain && __builtin_expect(b->bad, 0)) {
        static const char *const why[] = {
            [WSIM_BAD_UNDEFINED] = "undefined opcode or operand",
            [WSIM_BAD_MARKER_DEST] = "a marker goes to an output gate, not a register",
            [WSIM_BAD_CREQ_GATES] = "creq reads its bus and pool from registers or literals, not gates",
            [WSIM_BAD_TWO_WAITS] = "one creq or evwait a bundle",
            [WSIM_BAD_NO_AGENT] = "iWarp's communication agent (@g0, @g1, control registers, creq ...) is not "
                                  "on the Warp model: compile with -mcpu=iwarp",
            [WSIM_BAD_NO_DOUBLE] = "double precision (dadd, dmul ...) is iWarp's; the Warp cell's data path is "
                                   "32 bits: assemble with -mcpu=iwarp",
            [WSIM_BAD_NO_PATH] = "the address path (@adr) is the Warp's: the iWarp cells compute their own addresses",
            [WSIM_BAD_PATH_WRITE] = "only the interface unit writes the address path (@adr); a cell passes on what "
                                    "it reads",
            [WSIM_BAD_IU_ONLY] = "only the interface unit has the address table (tld); it sends the cells what "
                                 "they need on @adr",
        };
        wsim_fault(s, k, pc, "%s", why[b->bad]);
        return 0;
    }

    /* the memory agent took this clock for a spool (comm/spool.c) */
    if (copy != ISSUE_PLAIN_WARP && __builtin_expect(t < c->mem_taken_until, 0)) {
        c->stall_unit++;
        c->state = WSIM_CELL_STALLED;
        return 0;
    }
    if (t < c->busy_max) {
        for (unsigned m = b->slot_mask; m; m &= m - 1) {
            if (c->busy_until[lowest(m)] > t) {
                c->stall_unit++;
                c->state = WSIM_CELL_STALLED;
                return 0;
            }
        }
    }
    if (!plain && __builtin_expect(c->iu != NULL, 0) && !wsim_iu_ready(s, c, pc, t)) goto stall;
    wca_queue **in = c->in, **out = c->out;
    if (b->io) {
        if (s->gate_clocks && gate_bus_busy(c, b, t)) {
            c->stall_unit++;
            c->state = WSIM_CELL_STALLED;
            return 0;
        }
        const unsigned n_in = b->n_in, n_out = b->n_out;
        for (unsigned i = 0; i < n_in; i++) {
            const wca_queue *q = in[b->in_g[i]];
            if (!q) {
                fault_unbound(s, k, pc, 1, b->in_g[i]);
                return 0;
            }
            if (!wca_queue_ready(q, t)) goto stall;
            /* a path's word read is passed on: the next cell's queue needs room */
            if (copy != ISSUE_PLAIN_IWARP && b->in_g[i] >= WSIM_GATE_PATH) {
                const wca_queue *nq = c->path_next[b->in_g[i] - WSIM_GATE_PATH];
                if (nq && wca_queue_used_at(nq, t) + 1 > nq->cap) goto stall;
            }
        }
        for (unsigned i = 0; i < n_out; i++) {
            unsigned g = b->out_g[i];
            const wca_queue *q = out[g];
            if (!q) {
                /* On Warp the host takes what an end cell sends past the end. */
                if (!comm && g < WT_NQUEUES) continue;
                fault_unbound(s, k, pc, 0, g);
                return 0;
            }
            if (wca_queue_used_at(q, t) + b->out_n[g] > q->cap) goto stall;
        }
        for (unsigned m = plain ? 0 : b->feed_mask & c->feed_live; m; m &= m - 1) {
            unsigned q = lowest(m);
            if (wca_queue_used_at(c->feedq[q], t) + b->feed_n[q] > c->feedq[q]->cap) goto stall;
        }
        if (!plain && b->wait_op) {
            const wsim_dop *o = &b->ops[b->wait_op - 1];
            c->src[SRC_IMM0] = b->imm[0];
            c->src[SRC_IMM1] = b->imm[1];
            if (!wca_op_ready(s->comm, k, (wt_op)o->op, c->src[o->a], c->src[o->b], t)) goto stall;
        }

        /* Control registers are read as the bundle finds them, before its own dequeues. */
        for (uint32_t m = plain ? 0 : b->ctl_rd; m; m &= m - 1)
            c->src[SRC_CTL + lowest(m)] = wca_ctl_read(s->comm, k, (wt_ctl)lowest(m));
        for (unsigned i = 0; i < n_in; i++) {
            unsigned g = b->in_g[i];
            wca_queue *q = in[g];
            wca_qword w = wca_queue_take(q, t);
            c->src[SRC_GATE + g] = w.word;
            if (comm) wca_dequeued(comm, k, g, q, w.tag, t);
            else if (g >= WSIM_GATE_PATH) path_pass(s, c, g, w, t, horizon);
        }
        for (unsigned i = 0; i < n_out; i++) {
            unsigned g = b->out_g[i];
            if (out[g]) out[g]->used += b->out_n[g];
        }
        if (s->gate_clocks) {
            for (unsigned i = 0; i < n_in; i++) c->gate_free[0][b->in_g[i]] = t + s->gate_clocks;
            for (unsigned i = 0; i < n_out; i++)
                c->gate_free[1][b->out_g[i]] = t + (uint64_t)s->gate_clocks * b->out_n[b->out_g[i]];
        }
        for (unsigned m = plain ? 0 : b->feed_mask & c->feed_live; m; m &= m - 1) {
            unsigned q = lowest(m);
            c->feedq[q]->used += b->feed_n[q];
        }
    }
    c->src[SRC_IMM0] = b->imm[0];
    c->src[SRC_IMM1] = b->imm[1];

    uint32_t next = pc + 1;
    int halt = 0;
    const uint32_t *src = c->src;
    /* Every register write, freed unit and two-clock end at once: the bundle's latest. */
    note_event(horizon, t + b->ev);
    /* The operations by pointer, their end in a local: a store through the wheel or
     * the source file may alias any byte of the bundle, which would reload its count. */
    const wsim_dop *o, *const ops_end = b->ops + b->nops;
    if (b->slow_units) {
        for (o = b->ops; o < ops_end; o++) {
            if (o->interval > 1) {
                uint64_t free_at = t + o->interval;
                c->busy_until[o->slot] = free_at;
                if (free_at > c->busy_max) c->busy_max = free_at;
            }
        }
    }
    wsim_write *const wheel = c->wheel;
    uint16_t *const wheel_n = c->wheel_n;
    const unsigned wheel_mask = s->wheel_mask, wheel_cap = s->wheel_cap;
    for (o = b->ops; o < ops_end; o++) {
        uint32_t v, addr;
        /* One dispatch on the operation: a pure one computes its value in its own case;
         * the kind of any other is a constant there, so its case only jumps on. */
        /* Operands are read where the expression names them. */
#define A (src[o->a])
#define B (src[o->b])
#define C (src[o->c])
        switch (o->op) {
#define WT_OP(id, mn, uc, code, sig, ity, lw, li, iw, ii, kind, sem)                                   \
    case WT_OP_##id:                                                                                   \
        if (WT_K_##kind == WT_K_PURE) {                                                                \
            v = (uint32_t)(sem);                                                                       \
            goto write;                                                                                \
        }                                                                                              \
        if (WT_K_##kind == WT_K_DIV) {                                                                 \
            if (B == 0) goto div_zero;                                                                 \
            v = (uint32_t)(sem);                                                                       \
            goto write;                                                                                \
        }                                                                                              \
        if (WT_K_##kind == WT_K_DBNZ) {                                                                \
            v = C - 1;                                                                                 \
            if (v != 0) next = b->target;                                                              \
            goto write;                                                                                \
        }                                                                                              \
        if (WT_K_##kind == WT_K_JMP || (WT_K_##kind == WT_K_BZ && C == 0) ||                           \
            (WT_K_##kind == WT_K_BNZ && C != 0)) {                                                     \
            next = b->target;                                                                          \
            continue;                                                                                  \
        }                                                                                              \
        if (WT_K_##kind == WT_K_BZ || WT_K_##kind == WT_K_BNZ) continue;                               \
        break;
#include "warp_ops.def"
#undef WT_OP
        default: break;
        }
#undef A
#undef B
#undef C
        uint32_t A = src[o->a], B = src[o->b], C = src[o->c];
        switch (o->kind) {
        case WT_K_LOAD:
            addr = A + B;
            if ((addr & 3) || addr > s->model->data_mem_bytes - 4) {
                wsim_fault(s, k, pc, "load from data address 0x%x %s (data memory is %u bytes)", addr,
                            (addr & 3) ? "is misaligned" : "is outside data memory",
                            s->model->data_mem_bytes);
                goto op_fault;
            }
            v = load32(c->mem + addr);
            break;
        case WT_K_HLOAD:
            /* Non-end cells evaluate boundary expressions too, with indices that may
             * mean nothing there: a host load never faults. */
            addr = A + B;
            v = (addr & 3) || s->host_size < 4 || addr > s->host_size - 4 ? 0 : load32(s->host + addr);
            break;
        case WT_K_STORE:
            addr = A + B;
            if ((addr & 3) || addr > s->model->data_mem_bytes - 4) {
                wsim_fault(s, k, pc, "store to data address 0x%x %s (data memory is %u bytes)", addr,
                            (addr & 3) ? "is misaligned" : "is outside data memory",
                            s->model->data_mem_bytes);
                goto op_fault;
            }
            store32(c->mem + addr, C);
            continue;
        case WT_K_JMP:
            next = b->target;
            continue;
        case WT_K_BZ:
            if (C == 0) next = b->target;
            continue;
        case WT_K_BNZ:
            if (C != 0) next = b->target;
            continue;
        case WT_K_DBNZ:
            v = C - 1;
            if (v != 0) next = b->target;
            break;
        case WT_K_CALL:
            if (c->rsp >= s->model->ret_stack_depth) {
                wsim_fault(s, k, pc, "return stack overflow (depth %u)", s->model->ret_stack_depth);
                goto op_fault;
            }
            c->rstack[c->rsp++] = pc + 1;
            next = b->target;
            continue;
        case WT_K_RET:
            if (c->rsp == 0) {
                wsim_fault(s, k, pc, "return stack underflow (ret with no call)");
                goto op_fault;
            }
            next = c->rstack[--c->rsp];
            continue;
        case WT_K_HALT:
            halt = 1;
            continue;
        case WT_K_COMM:
            if (plain) __builtin_unreachable();
            if (comm_op(s, k, pc, o->op, A, B, t, &v) != 0) goto op_fault;
            break;
        case WT_K_DOUBLE: {
            if (plain) __builtin_unreachable();
            uint64_t r = double_value(o->op, o->pair & 1 ? A | (uint64_t)src[o->a + 1] << 32 : A,
                                      o->pair & 2 ? B | (uint64_t)src[o->b + 1] << 32 : B);
            if (o->pair & 4) {
                /* the high word to the pair's second register, landing with the low one */
                unsigned slot = (unsigned)((t + o->lat) & wheel_mask);
                wsim_write w = o->proto;
                w.dst = (uint8_t)(o->dst + 1);
                w.val = (uint32_t)(r >> 32);
                wheel[(size_t)slot * wheel_cap + wheel_n[slot]++] = w;
            }
            v = (uint32_t)r;
            break;
        }
        default:
            wsim_fault(s, k, pc, "undefined opcode or operand");
            goto op_fault;
        }
    write:
        if (__builtin_expect(o->wr == WSIM_WR_WHEEL, 1)) {
            unsigned slot = (unsigned)((t + o->lat) & wheel_mask);
            wsim_write *w = &wheel[(size_t)slot * wheel_cap + wheel_n[slot]++];
            /* two stores: the value, and the rest as one word */
            w->val = v;
            memcpy(&w->pc, &o->proto.pc, sizeof *w - offsetof(wsim_write, pc));
            continue;
        }
        if (plain || o->wr == WSIM_WR_NONE) continue;
        /* Host feed and address gates mean something on the end facing that side only. */
        unsigned dst = o->dst, live = dst < WT_OPND_ADDR ? c->feed_live : c->addr_live;
        if (!(live & (1u << ((dst - WT_OPND_FEED) & 3)))) continue;
        schedule(s, c, o, v, t + o->lat, pc, horizon);
    }

    c->class_lanes += b->class_inc;
    if ((c->issued & (WSIM_LANE_FLUSH - 1)) == WSIM_LANE_FLUSH - 1) flush_lanes(c);
    c->issued++;
    c->next_issue = t + b->clocks;
    if (!plain && __builtin_expect(c->iu != NULL, 0)) {
        uint64_t until = t + wsim_iu_issue(s, c, pc, t);
        if (until > c->next_issue) c->next_issue = until;
        note_event(horizon, c->next_issue);
    }
    if (halt) {
        c->state = WSIM_CELL_HALTED;
        ++*nhalted;
    } else if (next >= s->ncode) {
        /* Blamed on the bundle that goes there: its source line is the one to fix. */
        if (next == pc + 1) wsim_fault(s, k, pc, "runs past the end of the program (%u bundles)", s->ncode);
        else wsim_fault(s, k, pc, "jump to bundle %u, outside the program (%u bundles)", next, s->ncode);
    } else {
        c->state = WSIM_CELL_RUNNING;
        c->pc = next;
    }
    return 1;

div_zero:
    wsim_fault(s, k, pc, "integer division by zero (%s)", wt_ops[o->op].name);
op_fault:
    /* The operations before the faulting one and itself were issued, counted in the
     * whole bundle, whose order the cell's copy keeps. */
    {
        const wsim_bundle *full = &s->code[pc];
        for (unsigned j = 0; j < full->nops; j++) {
            c->class_ops[full->ops[j].uclass]++;
            if (o < ops_end && full->ops[j].slot == o->slot) break;
        }
    }
    return 0;

stall:
    if (s->prog.flow_controlled) {
        wsim_flow_bug(s, k, pc, t);
        return 0;
    }
    c->stall_queue++;
    c->state = WSIM_CELL_STALLED;
    return 0;
}

static __attribute__((noinline)) int issue_general(wsim *s, int k, uint64_t t, uint64_t *horizon, int *nhalted)
{
    wsim_cell *c = &s->cells[k];
    return issue_impl(s, k, c, c->pc, t, horizon, nhalted, ISSUE_GENERAL);
}

/* `plain` is the copy for a plain bundle: ISSUE_PLAIN_WARP or ISSUE_PLAIN_IWARP where
 * the caller runs one model only, or ISSUE_GENERAL to choose by the array's. */
static inline __attribute__((always_inline)) int issue(wsim *s, int k, uint64_t t, uint64_t *horizon, int *nhalted,
                                                       const int plain)
{
    wsim_cell *c = &s->cells[k];
    uint32_t pc = c->pc;
    if (__builtin_expect(pc < s->ncode && c->code[pc].plain, 1)) {
        if (plain == ISSUE_PLAIN_WARP || (plain == ISSUE_GENERAL && !s->comm))
            return issue_impl(s, k, c, pc, t, horizon, nhalted, ISSUE_PLAIN_WARP);
        return issue_impl(s, k, c, pc, t, horizon, nhalted, ISSUE_PLAIN_IWARP);
    }
    return issue_general(s, k, t, horizon, nhalted);
}

static inline void issue_ahead(const wsim *s, wsim_cell *c, uint64_t t, uint64_t *horizon);
static void unissue_ahead(wsim_cell *c, uint64_t t);

/* The issue pass of a clock, its copy for one model (`plain`, a constant); with
 * `ahead`, a cell that issued issues a nop bundle at once (issue_ahead). */
static inline __attribute__((always_inline)) void issue_clock_of(wsim *s, const int plain, const int ahead)
{
    uint64_t t = s->cycle;
    int issued = 0;
    for (int k = 0; k < s->ncells; k++) {
        wsim_cell *c = &s->cells[k];
        if (c->state >= WSIM_CELL_HALTED || t < c->next_issue) continue;
        if (issue(s, k, t, &s->horizon, &s->nhalted, plain)) {
            issued = 1;
            if (ahead && c->next_issue == t + 1 && c->state == WSIM_CELL_RUNNING) issue_ahead(s, c, t, &s->horizon);
        }
        if (s->status != WSIM_RUNNING) {
            for (int j = 0; ahead && j < s->ncells; j++) unissue_ahead(&s->cells[j], j <= k ? t + 1 : t);
            return;
        }
    }
    if (!issued && !s->agent_progress && wsim_horizon(s) <= t && s->nhalted < s->ncells) {
        wsim_deadlock(s);
        return;
    }
    s->cycle = t + 1;
}

static void issue_clock(wsim *s)
{
    if (s->comm) issue_clock_of(s, ISSUE_PLAIN_IWARP, 0);
    else issue_clock_of(s, ISSUE_PLAIN_WARP, 0);
}

/* wsim_run's iWarp issue pass: nops are issued ahead where no spool may take a cell's
 * memory in the clock after (a bundle stalls on that, which the clock before cannot
 * know). Not wsim_step's, which looks at every clock. */
static void iwarp_issue_clock_ahead(wsim *s) { issue_clock_of(s, ISSUE_PLAIN_IWARP, 1); }

wsim_status wsim_step(wsim *s)
{
    s->at_limit = 0;
    if (s->status != WSIM_RUNNING) return s->status;
    begin_clock(s);
    if (s->status == WSIM_RUNNING) issue_clock(s);
    return s->status;
}

/* Cell c issued at t and may issue again at t+1: if its next bundle is a nop whose
 * units are free then, it issues now what it would issue at t+1, which it cannot
 * fail to (a nop bundle waits on no queue and faults never), and which no other cell
 * can see: the cell's clock t+1 is then only the `t < next_issue` test. The
 * bundle's events are noted now, and t+2 besides, so that clock t+1, where this cell
 * no longer issues, is not taken for a deadlock (the cell's next issue, at t+2 or
 * later, notes at least that much anyway). Not at or past wsim_run's limit, where
 * the run must stop in the state of one clock at a time; a clock that stops
 * part-way takes it back from the cells it did not reach (unissue_ahead). */
static inline void issue_ahead(const wsim *s, wsim_cell *c, uint64_t t, uint64_t *horizon)
{
    const wsim_bundle *e = &c->code[c->pc];
    if (!e->nop || c->busy_max > t + 1 || t + 1 >= s->limit) return;
    note_event(horizon, t + 1 + (e->ev > 1 ? e->ev : 1));
    if (e->nops) {
        const wsim_dop *o = &e->ops[0];
        c->ahead_busy_max = c->busy_max;
        c->ahead_busy = c->busy_until[o->slot];
        c->busy_until[o->slot] = t + 1 + o->interval;
        if (c->busy_until[o->slot] > c->busy_max) c->busy_max = c->busy_until[o->slot];
    }
    c->class_lanes += e->class_inc;
    if ((c->issued & (WSIM_LANE_FLUSH - 1)) == WSIM_LANE_FLUSH - 1) flush_lanes(c);
    c->issued++;
    c->pc++;
    c->next_issue = t + 2;
    c->ahead = t + 2;
}

/* Clock t stopped (a fault, a flow bug) before it reached cell c: a nop c issued
 * ahead for t did not issue. */
static void unissue_ahead(wsim_cell *c, uint64_t t)
{
    if (c->ahead != t + 1 || c->state != WSIM_CELL_RUNNING) return;
    c->pc--;
    c->issued--;
    c->next_issue = t;
    c->ahead = 0;
    if (c->code[c->pc].nops) {
        c->busy_until[c->code[c->pc].ops[0].slot] = c->ahead_busy;
        c->busy_max = c->ahead_busy_max;
    }
    flush_lanes(c);
    uint64_t inc = c->code[c->pc].class_inc;
    for (unsigned uc = 1; uc < WT_NUCLASSES; uc++)
        c->class_ops[uc] -= (inc >> (WSIM_LANE_BITS * (uc - 1))) & ((1u << WSIM_LANE_BITS) - 1);
}

/* One clock of a Warp array in one pass over the cells, each landing what is due and
 * then issuing: the same as begin_clock and issue_clock, because what a cell lands at
 * t is seen by no other cell's issue at t. A word crossing a link arrives at
 * t+link > t; slots were reserved at issue; and only the end cells touch the host,
 * whose addresses and words pair, and whose memory a host load reads, so they land
 * first. For a clock in which some cell has not halted (else begin_clock decides
 * whether the run is done). */
static void warp_clock(wsim *s)
{
    uint64_t t = s->cycle;
    unsigned slot = (unsigned)(t & s->wheel_mask);
    int last = s->ncells - 1, k = 0;
    wsim_cell *cells = s->cells;
    if (cells[0].wheel_n[slot]) land(s, &cells[0], t, slot);
    if (last > 0 && cells[last].wheel_n[slot]) land(s, &cells[last], t, slot);
    if (s->sink_n && s->addr_n) host_pair(s, t);
    int issued = 0, reached = 0;
    if (s->status == WSIM_RUNNING) {
        for (; k <= last; k++) {
            wsim_cell *c = &cells[k];
            /* The ends landed above, which emptied their slot: no test of k needed. */
            if (c->wheel_n[slot]) land(s, c, t, slot);
            if (c->state >= WSIM_CELL_HALTED || t < c->next_issue) continue;
            if (issue(s, k, t, &s->horizon, &s->nhalted, ISSUE_PLAIN_WARP)) {
                issued = 1;
                if (c->next_issue == t + 1 && c->state == WSIM_CELL_RUNNING) issue_ahead(s, c, t, &s->horizon);
            }
            if (s->status != WSIM_RUNNING) break;
        }
        reached = k + 1;
    }
    if (s->status != WSIM_RUNNING) {
        /* Stopped within the clock: the cells not yet visited land too, as they would have. */
        for (k++; k < last; k++)
            if (cells[k].wheel_n[slot]) land(s, &cells[k], t, slot);
        /* and the cells it reached issued no nop for t+1 either */
        for (k = 0; k < reached && k <= last; k++) unissue_ahead(&cells[k], t + 1);
        for (k = reached; k <= last; k++) unissue_ahead(&cells[k], t);
        return;
    }
    if (!issued && wsim_horizon(s) <= t && s->nhalted < s->ncells) {
        wsim_deadlock(s);
        return;
    }
    s->cycle = t + 1;
}

/* ---- Threads ------------------------------------------------------------------------ */

/* The cells a part needs at the least: its first and last run on the seam, and at
 * least one between them on its thread. */
#define WSIM_MIN_PART_CELLS 3

void wsim_set_threads(wsim *s, int n) { s->threads = n < 1 ? 1 : n; }

int wsim_thread_figures(const wsim *s, const wsim_thread_use **use)
{
    *use = s->thread_use;
    return s->nthread_use;
}

/* A Warp cell touches its own queues and its neighbours' only, so each thread takes
 * a run of cells whose neighbours are its own too: its group but the first and the
 * last, which (with the ends, which meet the host) are the seam, run after the
 * parts. */
static void plan_parts(wsim *s, int n)
{
    s->parts = ws_xcalloc_aligned((size_t)n, sizeof *s->parts, WS_CACHE_LINE);
    s->seam = ws_xcalloc((size_t)n * 2, sizeof *s->seam);
    s->nparts = n;
    s->ngroups = n;
    s->nseam = 0;
    for (int i = 0; i < n; i++) {
        int lo = (int)((int64_t)s->ncells * i / n), hi = (int)((int64_t)s->ncells * (i + 1) / n);
        s->parts[i].lo = lo + 1;
        s->parts[i].hi = hi - 1;
        s->seam[s->nseam++] = lo;
        s->seam[s->nseam++] = hi - 1;
    }
}

static void warp_part(void *ctx, int i)
{
    wsim *s = ctx;
    wsim_part *p = &s->parts[i];
    uint64_t t = s->cycle, horizon = s->horizon;
    unsigned slot = (unsigned)(t & s->wheel_mask);
    int nhalted = 0, issued = 0;
    for (int k = p->lo; k < p->hi; k++) {
        wsim_cell *c = &s->cells[k];
        if (c->wheel_n[slot]) land(s, c, t, slot);
        if (c->state >= WSIM_CELL_HALTED || t < c->next_issue) continue;
        if (issue(s, k, t, &horizon, &nhalted, ISSUE_PLAIN_WARP)) {
            issued = 1;
            /* a clock that faults is made again alone: nothing to take back */
            if (c->next_issue == t + 1 && c->state == WSIM_CELL_RUNNING) issue_ahead(s, c, t, &horizon);
        }
        if (__atomic_load_n(&s->par_fault, __ATOMIC_RELAXED)) break;
    }
    p->horizon = horizon;
    p->nhalted = nhalted;
    p->issued = issued;
}

/* Runs every thread's share of the phase and folds their figures into the array's:
 * whether any cell issued, or -1 if one faulted (the caller reruns on one thread). */
static int run_parts(wsim *s)
{
    s->in_parallel = 1;
    wsim_pool_run(s->pool);
    s->in_parallel = 0;
    if (s->par_fault) return -1;
    int issued = 0;
    for (int i = 0; i < s->nparts; i++) {
        const wsim_part *p = &s->parts[i];
        note_event(&s->horizon, p->horizon);
        s->nhalted += p->nhalted;
        issued |= p->issued;
    }
    return issued;
}

/* warp_clock on the threads. 0, or -1 if a cell faulted or waited against the skew
 * in it: which of them one pass reports, and what the cells after it did, is known
 * only to one pass, so the run is made again alone. */
static int warp_clock_parallel(wsim *s)
{
    uint64_t t = s->cycle;
    unsigned slot = (unsigned)(t & s->wheel_mask);
    int last = s->ncells - 1;
    wsim_cell *cells = s->cells;
    if (cells[0].wheel_n[slot]) land(s, &cells[0], t, slot);
    if (cells[last].wheel_n[slot]) land(s, &cells[last], t, slot);
    if (s->sink_n && s->addr_n) host_pair(s, t);
    if (s->status != WSIM_RUNNING) {
        /* As warp_clock: the other cells land, and nothing issues. */
        for (int k = 1; k < last; k++)
            if (cells[k].wheel_n[slot]) land(s, &cells[k], t, slot);
        for (int k = 0; k <= last; k++) unissue_ahead(&cells[k], t);
        return 0;
    }
    int issued = run_parts(s);
    if (issued < 0) return -1;
    for (int j = 0; j < s->nseam; j++) {
        int k = s->seam[j];
        wsim_cell *c = &cells[k];
        if (k > 0 && k < last && c->wheel_n[slot]) land(s, c, t, slot);
        if (c->state >= WSIM_CELL_HALTED || t < c->next_issue) continue;
        if (issue(s, k, t, &s->horizon, &s->nhalted, ISSUE_PLAIN_WARP)) {
            issued = 1;
            if (c->next_issue == t + 1 && c->state == WSIM_CELL_RUNNING) issue_ahead(s, c, t, &s->horizon);
        }
        if (s->status != WSIM_RUNNING) return -1;
    }
    if (!issued && wsim_horizon(s) <= t && s->nhalted < s->ncells) {
        wsim_deadlock(s);
        return 0;
    }
    s->cycle = t + 1;
    return 0;
}

/* Makes the run again from its start on one thread, up to the same limit. */
static wsim_status run_alone(wsim *s, uint64_t max_cycles)
{
    wsim_program p = s->prog;
    wca_config cfg = s->comm_cfg;
    p.comm = s->comm ? &cfg : NULL;
    uint8_t *host = s->host_at_start;
    s->host_at_start = NULL;
    int threads = s->threads;
    wsim_release(s);
    memset(s, 0, sizeof *s);
    s->threads = threads;
    char err[256];
    if (wsim_init(s, &p, err, sizeof err) != 0) {
        /* It was made once: only memory could fail, which ws_xcalloc does not return. */
        free(host);
        free(s->msg);
        s->msg = ws_xstrdup(err);
        s->status = WSIM_FAULT;
        return s->status;
    }
    memcpy(s->host, host, s->host_size);
    free(host);
    s->nparts = -1; /* no threads for this run */
    return wsim_run(s, max_cycles);
}

/* ---- iWarp on threads: the agents move data only ---------------------------------- */

/* Does the program use the agents for more than moving data between neighbours
 * (pathways, markers, spools, events, control registers, @g0 and @g1)? Those act in
 * an order across cells that the routing depends on: such a run takes one thread. */
static int uses_agent_beyond_data(const wsim *s)
{
    for (uint32_t i = 0; i < s->ncode; i++) {
        const wsim_bundle *b = &s->code[i];
        if (b->bad || b->wait_op || b->ctl_rd || ((b->gate_rd | b->out_mask) & 0x30)) return 1;
        for (unsigned j = 0; j < b->nops; j++)
            if (b->ops[j].kind == WT_K_COMM || wt_opnd_is_ctl(b->ops[j].dst) || wt_opnd_is_pgate(b->ops[j].dst))
                return 1;
    }
    return 0;
}

/* Contiguous groups of cells, one a thread (group i: cut[i] .. cut[i+1]-1), and after
 * them one more: the cells facing the host (its feeds, or a bus to it), whose host
 * queues and figures are the array's, run by the thread of group 0. 0, or -1 if a
 * thread's group has no cell. */
static int cut_iwarp_parts(wsim *s)
{
    int n = s->nparts;
    int *part_of = ws_xcalloc((size_t)s->ncells, sizeof *part_of);
    for (int i = 0; i < n; i++)
        for (int k = s->cut[i]; k < s->cut[i + 1]; k++) part_of[k] = i;
    for (int k = 0; k < s->ncells; k++) {
        if (s->cells[k].feed_live) part_of[k] = n;
        for (unsigned d = 0; d < WCA_NBUSES; d++)
            if (wca_neighbour(s->comm, k, d) < 0) part_of[k] = n;
    }
    /* Runs of cells, so that a group's loops walk the cells as one pass does. */
    for (int i = 0; i <= n; i++) s->parts[i].nruns = 0;
    for (int k = 0; k < s->ncells; k++) {
        wsim_part *p = &s->parts[part_of[k]];
        if (p->nruns && p->runs[2 * p->nruns - 1] == k) {
            p->runs[2 * p->nruns - 1] = k + 1;
        } else {
            p->runs[2 * p->nruns] = k;
            p->runs[2 * p->nruns + 1] = k + 1;
            p->nruns++;
        }
    }
    int ok = 1;
    for (int i = 0; i < n; i++) ok &= s->parts[i].nruns > 0;
    if (ok) wca_use_parts(s->comm, n + 1, part_of);
    free(part_of);
    return ok ? 0 : -1;
}

static int plan_iwarp_parts(wsim *s, int n)
{
    s->parts = ws_xcalloc_aligned((size_t)n + 1, sizeof *s->parts, WS_CACHE_LINE);
    s->nparts = n;
    s->ngroups = n + 1;
    for (int i = 0; i <= n; i++) s->parts[i].runs = ws_xcalloc((size_t)s->ncells * 2, sizeof(int));
    s->cut = ws_xcalloc((size_t)n + 1, sizeof *s->cut);
    for (int i = 0; i <= n; i++) s->cut[i] = (int)((int64_t)s->ncells * i / n);
    return cut_iwarp_parts(s);
}

/* Windows between two looks at how long each group takes. */
#define WSIM_WINDOWS_A_CUT 256

/* Moves the cuts between the threads' groups so that each takes as long as the next:
 * the same work takes one thread longer than another (here the second thread's
 * group took about a fifth longer than the main thread's, and the main thread
 * waited for it a quarter of its time), and the slowest group decides each window.
 * Which cells a group holds changes no result. */
static void recut_iwarp_parts(wsim *s)
{
    int n = s->nparts, moved = 0;
    for (int i = 0; i + 1 < n; i++) {
        double a = (double)s->parts[i].busy, b = (double)s->parts[i + 1].busy;
        int na = s->cut[i + 1] - s->cut[i], nb = s->cut[i + 2] - s->cut[i + 1];
        if (a <= 0 || b <= 0 || na <= 0 || nb <= 0) continue;
        /* cells to move from i to i+1 for equal times at each side's rate, halved
         * so that the cut settles rather than swings */
        int m = (int)((a - b) / (a / na + b / nb) / 2);
        if (m > na - WSIM_MIN_PART_CELLS) m = na - WSIM_MIN_PART_CELLS;
        if (-m > nb - WSIM_MIN_PART_CELLS) m = -(nb - WSIM_MIN_PART_CELLS);
        if (m == 0) continue;
        s->cut[i + 1] -= m;
        moved = 1;
    }
    for (int i = 0; i < n; i++) s->parts[i].busy = 0;
    if (moved && cut_iwarp_parts(s) != 0) {
        /* a group left without a cell of its own: back to even cuts, which had some */
        for (int i = 0; i <= n; i++) s->cut[i] = (int)((int64_t)s->ncells * i / n);
        cut_iwarp_parts(s);
    }
}

static __attribute__((noinline)) void land_group(wsim *s, const wsim_part *p, uint64_t t)
{
    /* in locals: a landing stores through pointers the compiler cannot tell apart */
    wsim_cell *const cells = s->cells;
    const int *const runs = p->runs, nruns = p->nruns;
    unsigned slot = (unsigned)(t & s->wheel_mask);
    for (int r = 0; r < nruns; r++)
        for (int k = runs[2 * r], end = runs[2 * r + 1]; k < end; k++)
            if (cells[k].wheel_n[slot]) land(s, &cells[k], t, slot);
}

/* Whether a cell of the group issued at t. */
static __attribute__((noinline)) int issue_group(wsim *s, const wsim_part *p, uint64_t t, uint64_t *horizon,
                                                 int *nhalted)
{
    wsim_cell *const cells = s->cells;
    const int *const runs = p->runs, nruns = p->nruns, ahead = s->data_only;
    uint64_t h = *horizon;
    int halted = 0, issued = 0;
    for (int r = 0; r < nruns; r++) {
        for (int k = runs[2 * r], end = runs[2 * r + 1]; k < end; k++) {
            wsim_cell *c = &cells[k];
            if (c->state >= WSIM_CELL_HALTED || t < c->next_issue) continue;
            if (!issue(s, k, t, &h, &halted, ISSUE_PLAIN_IWARP)) continue;
            issued = 1;
            /* as one pass (data only: no spool takes the memory); a window that
             * faults is made again alone, so nothing is taken back */
            if (ahead && c->next_issue == t + 1 && c->state == WSIM_CELL_RUNNING) issue_ahead(s, c, t, &h);
        }
    }
    *horizon = h;
    *nhalted += halted;
    return issued;
}

/* Group g's clocks t .. t+WSIM_WINDOW-1, each as one pass makes it (its cells land,
 * its buses step, the host pairs, its cells issue), with what one pass decides a
 * clock by noted for each clock. Nothing another group does within the window can
 * reach these cells before it ends (wca_use_parts), so the groups run at once. */
static void iwarp_group_window(wsim *s, int g, uint64_t t)
{
    wsim_part *p = &s->parts[g];
    wca *a = s->comm;
    uint64_t horizon = s->horizon;
    int nhalted = 0;
    wca_part_begin(a, g);
    memset(p->at, 0, sizeof p->at);
    for (int j = 0; j < WSIM_WINDOW; j++) {
        uint64_t tj = t + (uint64_t)j;
        land_group(s, p, tj);
        if (__atomic_load_n(&s->par_fault, __ATOMIC_RELAXED)) break;
        p->at[j].progress = wca_step_part(a, g, tj);
        if (g == s->nparts && s->sink_n && s->addr_n) host_pair(s, tj);
        uint64_t agents = wca_part_horizon(a, g);
        p->at[j].stepped = agents > horizon ? agents : horizon;
        p->at[j].issued = issue_group(s, p, tj, &horizon, &nhalted);
        if (__atomic_load_n(&s->par_fault, __ATOMIC_RELAXED)) break;
        agents = wca_part_horizon(a, g);
        p->at[j].issued_by = agents > horizon ? agents : horizon;
        p->at[j].nhalted = nhalted;
        p->at[j].blocked = wca_part_blocked(a, g);
    }
    p->horizon = horizon;
    wca_part_end(a);
}

static void iwarp_part(void *ctx, int i)
{
    wsim *s = ctx;
    uint64_t t = s->cycle, t0 = wsim_ticks();
    iwarp_group_window(s, i, t);
    if (i == 0) iwarp_group_window(s, s->nparts, t);
    s->parts[i].busy += wsim_ticks() - t0;
}

/* A window of iWarp clocks on the threads: 0, or -1 if a cell faulted or the array
 * deadlocked in it (the run is made again alone, so that its report is one pass's),
 * or if the run ended at the window's first clock, which one pass would have ended
 * with a figure the second clock has since changed. The end of a run and a deadlock
 * are decided for each clock of the window as one pass decides them. */
static int iwarp_window_parallel(wsim *s)
{
    uint64_t t = s->cycle, h0 = wsim_horizon(s);
    int nhalted0 = s->nhalted;
    s->in_parallel = 1;
    wsim_pool_run(s->pool);
    s->in_parallel = 0;
    if (s->par_fault) return -1;
    wca_parts_merge(s->comm);
    /* Clock j of the window, over all groups: the horizon after the agents' step and
     * after the issue, whether the step changed anything, whether a cell issued, the
     * cells halted by its end, and the bus steps without credit so far. */
    uint64_t stepped[WSIM_WINDOW], issued_by[WSIM_WINDOW], blocked[WSIM_WINDOW] = {0};
    int progress[WSIM_WINDOW] = {0}, issued[WSIM_WINDOW] = {0}, nhalted[WSIM_WINDOW];
    for (int j = 0; j < WSIM_WINDOW; j++) {
        stepped[j] = issued_by[j] = h0;
        nhalted[j] = nhalted0;
    }
    for (int g = 0; g <= s->nparts; g++) {
        const wsim_part *p = &s->parts[g];
        for (int j = 0; j < WSIM_WINDOW; j++) {
            note_event(&stepped[j], p->at[j].stepped);
            note_event(&issued_by[j], p->at[j].issued_by);
            progress[j] |= p->at[j].progress;
            issued[j] |= p->at[j].issued;
            nhalted[j] += p->at[j].nhalted;
            blocked[j] += p->at[j].blocked;
        }
        note_event(&s->horizon, p->horizon);
    }
    s->nhalted = nhalted[WSIM_WINDOW - 1];
    for (int j = 0; j < WSIM_WINDOW; j++) {
        uint64_t tj = t + (uint64_t)j;
        if ((j ? nhalted[j - 1] : nhalted0) == s->ncells && stepped[j] <= tj && !progress[j]) {
            /* The run ended at tj. The window's later clocks changed nothing but the
             * count of bus steps without credit, which one pass would not have made. */
            if (blocked[WSIM_WINDOW - 1] != blocked[j]) return -1;
            s->status = WSIM_DONE;
            s->cycle = tj;
            return 0;
        }
        if (!issued[j] && !progress[j] && issued_by[j] <= tj && nhalted[j] < s->ncells) return -1;
    }
    s->cycle = t + WSIM_WINDOW;
    s->agent_clock = s->cycle;
    return 0;
}

/* Threads for a run from its first clock, if the array is big enough to share. */
static void start_threads(wsim *s)
{
    s->nparts = -1;
    if (s->threads < 2 || s->cycle != 0) return;
    int n = s->threads;
    if (n > s->ncells / WSIM_MIN_PART_CELLS) n = s->ncells / WSIM_MIN_PART_CELLS;
    if (n < 2) return;
    if (s->comm) {
        /* A group runs a window of clocks alone only if nothing another group does in
         * it reaches its cells before the window ends. */
        if (uses_agent_beyond_data(s) || s->model->credit_latency < WSIM_WINDOW || s->link < WSIM_WINDOW) return;
        if (plan_iwarp_parts(s, n) != 0) {
            for (int i = 0; i < s->ngroups; i++) free(s->parts[i].runs);
            free(s->parts);
            free(s->cut);
            s->parts = NULL;
            s->cut = NULL;
            s->ngroups = 0;
            s->nparts = -1;
            return;
        }
    } else {
        plan_parts(s, n);
    }
    s->pool = wsim_pool_new(n, s->comm ? iwarp_part : warp_part, s);
    if (wsim_pool_size(s->pool) < n) {
        /* A thread could not start: one pass. */
        wsim_pool_free(s->pool, NULL);
        s->pool = NULL;
        s->nparts = -1;
        if (s->comm) wca_use_parts(s->comm, 0, NULL);
        return;
    }
    s->host_at_start = ws_xmalloc(s->host_size ? s->host_size : 1);
    memcpy(s->host_at_start, s->host, s->host_size);
}

static void stop_threads(wsim *s)
{
    free(s->thread_use);
    s->thread_use = NULL;
    s->nthread_use = wsim_pool_free(s->pool, &s->thread_use);
    s->pool = NULL;
    if (s->comm) wca_use_parts(s->comm, 0, NULL);
}

wsim_status wsim_run(wsim *s, uint64_t max_cycles)
{
    s->at_limit = 0;
    s->limit = max_cycles;
    if (s->nparts == 0) start_threads(s);
    if (s->pool && s->comm) {
        while (s->status == WSIM_RUNNING && s->cycle + WSIM_WINDOW <= max_cycles) {
            if (iwarp_window_parallel(s) != 0) {
                stop_threads(s);
                return run_alone(s, max_cycles);
            }
            if (++s->windows % WSIM_WINDOWS_A_CUT == 0) recut_iwarp_parts(s);
        }
        /* Any clocks left before the limit run in one pass below: a window leaves
         * the array as one pass leaves it between two clocks. */
        stop_threads(s);
    }
    if (s->pool) {
        while (s->status == WSIM_RUNNING && s->nhalted < s->ncells && s->cycle < max_cycles) {
            if (warp_clock_parallel(s) != 0) {
                stop_threads(s);
                return run_alone(s, max_cycles);
            }
        }
        stop_threads(s);
    }
    while (s->status == WSIM_RUNNING) {
        if (!s->comm && s->nhalted < s->ncells && s->cycle < max_cycles) {
            warp_clock(s);
            continue;
        }
        /* Landing is idempotent within a clock, so stopping here at the limit and
         * resuming later repeats it harmlessly. */
        begin_clock(s);
        if (s->status != WSIM_RUNNING) {
            /* a landing faulted: no cell issued a nop at this clock after all */
            for (int k = 0; s->data_only && k < s->ncells; k++) unissue_ahead(&s->cells[k], s->cycle);
            break;
        }
        if (s->cycle >= max_cycles) {
            s->at_limit = 1;
            return WSIM_CYCLE_LIMIT;
        }
        if (s->data_only) iwarp_issue_clock_ahead(s);
        else issue_clock(s);
    }
    return s->status;
}

wsim_status wsim_status_of(const wsim *s) { return s->at_limit ? WSIM_CYCLE_LIMIT : s->status; }
uint64_t wsim_cycles(const wsim *s) { return s->cycle; }
const char *wsim_message(const wsim *s) { return s->msg; }

uint8_t *wsim_host_memory(wsim *s, uint32_t *size)
{
    if (size) *size = s->host_size;
    return s->host;
}
