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

#include <stdlib.h>
#include <string.h>

#include "warp_support.h"

/* The value of a pure (or DIV) operation: the expression from warp_ops.def. */
static inline uint32_t op_value(unsigned op, uint32_t A, uint32_t B, uint32_t C)
{
    switch (op) {
#define WT_OP(id, mn, uc, code, sig, ity, lw, li, iw, ii, kind, sem) \
    case WT_OP_##id: return (uint32_t)(sem);
#include "warp_ops.def"
#undef WT_OP
    default: return 0;
    }
}

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
    return (uint8_t)o;
}

/* A source operand: 0 (r0) stands in for an invalid code after marking the bundle bad. */
static uint8_t take_src(wsim_bundle *b, unsigned o)
{
    if (!wt_opnd_valid_src(o)) {
        b->bad = 1;
        return 0;
    }
    if (wt_opnd_is_gate(o)) b->gate_rd |= (uint8_t)(1u << (o - WT_OPND_GATE));
    return src_index(o);
}

static void decode_bundle(const wt_model *m, const wt_insn *in, wsim_bundle *b)
{
    memset(b, 0, sizeof *b);
    b->target = in->target;
    b->imm[0] = in->imm[0];
    b->imm[1] = in->imm[1];
    wsim_dop stores[WT_NSLOTS];
    unsigned nstores = 0, gate_writes = 0;
    for (unsigned s = 0; s < WT_NSLOTS; s++) {
        const wt_slot *sl = &in->slot[s];
        if (sl->op == WT_OP_NONE) continue;
        if (sl->op >= WT_NOPS || wt_ops[sl->op].uclass != wt_slot_layouts[s].uclass) {
            b->bad = 1;
            continue;
        }
        const wt_op_info *info = &wt_ops[sl->op];
        wsim_dop d = {
            .op = (uint8_t)sl->op, .kind = (uint8_t)info->kind, .slot = (uint8_t)s,
            .uclass = (uint8_t)info->uclass, .lat = info->latency[m->id],
            .interval = info->interval[m->id],
        };
        for (const char *p = info->sig; *p; p++) {
            switch (*p) {
            case 'd': {
                unsigned o = sl->opnd[0];
                if (!wt_opnd_valid_dst(o)) {
                    b->bad = 1;
                    break;
                }
                d.dst = (uint8_t)o;
                if (wt_opnd_is_gate(o)) {
                    unsigned q = o - WT_OPND_GATE;
                    b->out_mask |= (uint8_t)(1u << q);
                    b->out_n[q]++;
                    gate_writes++;
                } else if (wt_opnd_is_feed(o)) {
                    unsigned q = o - WT_OPND_FEED;
                    b->feed_mask |= (uint8_t)(1u << q);
                    b->feed_n[q]++;
                }
                break;
            }
            case 'a': d.a = take_src(b, sl->opnd[1]); break;
            case 'b': d.b = take_src(b, sl->opnd[2]); break;
            case 'c': d.c = take_src(b, sl->opnd[3]); break;
            case 'm':
                d.a = take_src(b, sl->opnd[1]);
                d.b = take_src(b, sl->opnd[2]);
                break;
            case 's': d.c = take_src(b, sl->opnd[0]); break;
            case 'k': d.c = take_src(b, sl->opnd[3]); break;
            case 'K':
                if (!wt_opnd_is_reg(sl->opnd[3])) b->bad = 1;
                else d.c = d.dst = sl->opnd[3];
                break;
            default: break;
            }
        }
        b->slot_mask |= (uint16_t)(1u << s);
        if (d.kind == WT_K_STORE) stores[nstores++] = d;
        else b->ops[b->nops++] = d;
    }
    for (unsigned i = 0; i < nstores; i++) b->ops[b->nops++] = stores[i];
    unsigned gate_ops = (unsigned)__builtin_popcount(b->gate_rd) + gate_writes;
    b->clocks = m->gate_ops_per_clock && gate_ops > m->gate_ops_per_clock ? 2 : 1;
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
            if (!seen[lat]) {
                seen[lat] = 1;
                cap++;
            }
        }
    }
    *max_latency = maxlat;
    return cap;
}

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

    wsim *s = ws_xcalloc(1, sizeof *s);
    s->prog = *p;
    s->model = m;
    s->ncode = p->ncode;
    s->code = ws_xcalloc(p->ncode, sizeof *s->code);
    for (uint32_t i = 0; i < p->ncode; i++) decode_bundle(m, &p->code[i], &s->code[i]);

    unsigned maxlat;
    s->wheel_cap = wheel_capacity(m, &maxlat);
    unsigned wheel_slots = pow2_at_least(maxlat + 1);
    s->wheel_mask = wheel_slots - 1;
    s->qcap = m->queue_words;
    s->qmask = pow2_at_least(m->queue_words) - 1;
    s->link = m->link_latency;
    s->host_size = p->host_size;
    s->host = ws_xcalloc(p->host_size ? p->host_size : 1, 1);
    s->msg = ws_xstrdup("");
    for (int q = 0; q < WT_NQUEUES; q++) {
        s->sink[q].cap = s->addr[q].cap = 16;
        s->sink[q].e = ws_xcalloc(16, sizeof(wsim_hentry));
        s->addr[q].e = ws_xcalloc(16, sizeof(wsim_hentry));
    }

    s->ncells = p->last_cell - p->first_cell + 1;
    s->cells = ws_xcalloc((size_t)s->ncells, sizeof *s->cells);
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
        c->wheel_n = ws_xcalloc(wheel_slots, sizeof *c->wheel_n);
        for (int q = 0; q < WT_NQUEUES; q++) {
            c->q[q].ring = ws_xcalloc(s->qmask + 1, sizeof(wsim_qword));
            c->q[q].deq_clock = UINT64_MAX;
        }
    }
    /* Sending toward the right on X fills the right neighbour's "from the left on X"
     * queue: the queue index with the direction bit flipped. */
    for (int k = 0; k < s->ncells; k++) {
        wsim_cell *c = &s->cells[k];
        for (int q = 0; q < WT_NQUEUES; q++) {
            int right = q >= WT_Q_XR;
            int nb = right ? k + 1 : k - 1;
            c->out[q] = nb >= 0 && nb < s->ncells ? &s->cells[nb].q[q ^ 2] : NULL;
        }
        if (k == 0) c->feed_live |= 1u << WT_Q_XL | 1u << WT_Q_YL;
        if (k == s->ncells - 1) c->feed_live |= 1u << WT_Q_XR | 1u << WT_Q_YR;
        c->addr_live = c->feed_live;
    }
    return s;
}

void wsim_free(wsim *s)
{
    if (!s) return;
    for (int k = 0; k < s->ncells; k++) {
        wsim_cell *c = &s->cells[k];
        for (int q = 0; q < WT_NQUEUES; q++) free(c->q[q].ring);
        free(c->mem);
        free(c->rstack);
        free(c->wheel);
        free(c->wheel_n);
    }
    for (int q = 0; q < WT_NQUEUES; q++) {
        free(s->sink[q].e);
        free(s->addr[q].e);
    }
    free(s->cells);
    free(s->code);
    free(s->host);
    free(s->msg);
    free(s);
}

/* ---- Pass 1: landing ------------------------------------------------------------ */

static void hfifo_push(wsim_hfifo *f, uint32_t val, uint32_t pc, uint64_t time)
{
    if (f->count == f->cap) {
        /* Rare (the host keeps up with every send that names an address): grow and unwrap. */
        wsim_hentry *e = ws_xmalloc(2 * f->cap * sizeof *e);
        for (size_t i = 0; i < f->count; i++) e[i] = f->e[(f->head + i) & (f->cap - 1)];
        free(f->e);
        f->e = e;
        f->head = 0;
        f->cap *= 2;
    }
    wsim_hentry *x = &f->e[(f->head + f->count++) & (f->cap - 1)];
    x->val = val;
    x->pc = pc;
    x->time = time;
}

static inline void queue_push(wsim *s, wsim_queue *q, uint32_t word, uint64_t arrival)
{
    wsim_qword *w = &q->ring[(q->head + q->count++) & s->qmask];
    w->word = word;
    w->arrival = arrival;
}

static void land(wsim *s, wsim_cell *c, uint64_t t, unsigned slot)
{
    wsim_write *w = &c->wheel[(size_t)slot * s->wheel_cap];
    unsigned n = c->wheel_n[slot];
    c->wheel_n[slot] = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned d = w[i].dst;
        if (d < WT_OPND_NREGS) {
            c->src[d] = w[i].val;
        } else if (d < WT_OPND_FEED) {
            unsigned q = d - WT_OPND_GATE;
            if (c->out[q]) queue_push(s, c->out[q], w[i].val, t + s->link);
            else hfifo_push(&s->sink[q], w[i].val, w[i].pc, t + s->link);
        } else if (d < WT_OPND_ADDR) {
            queue_push(s, &c->q[d - WT_OPND_FEED], w[i].val, t);
        } else {
            hfifo_push(&s->addr[d - WT_OPND_ADDR], w[i].val, w[i].pc, t);
        }
    }
}

/* The host stores each word an end cell sent it at the address that cell gave. */
static void host_pair(wsim *s, uint64_t t)
{
    for (int q = 0; q < WT_NQUEUES; q++) {
        wsim_hfifo *w = &s->sink[q], *a = &s->addr[q];
        while (w->count && a->count && w->e[w->head].time <= t) {
            uint32_t val = w->e[w->head].val;
            uint32_t addr = a->e[a->head].val, pc = a->e[a->head].pc;
            w->head = (w->head + 1) & (w->cap - 1);
            a->head = (a->head + 1) & (a->cap - 1);
            w->count--;
            a->count--;
            if (addr == 0xFFFFFFFFu) continue;
            if ((addr & 3) || s->host_size < 4 || addr > s->host_size - 4) {
                int cell = q < WT_Q_XR ? 0 : s->ncells - 1;
                wsim__fault(s, cell, pc, "host store to address 0x%x %s (host memory is %u bytes)",
                            addr, (addr & 3) ? "is misaligned" : "is outside host memory", s->host_size);
                return;
            }
            store32(s->host + addr, val);
        }
    }
}

static void begin_clock(wsim *s)
{
    uint64_t t = s->cycle;
    unsigned slot = (unsigned)(t & s->wheel_mask);
    for (int k = 0; k < s->ncells; k++)
        if (s->cells[k].wheel_n[slot]) land(s, &s->cells[k], t, slot);
    for (int q = 0; q < WT_NQUEUES; q++) {
        if (s->sink[q].count && s->addr[q].count) {
            host_pair(s, t);
            break;
        }
    }
    if (s->status == WSIM_RUNNING && s->nhalted == s->ncells && s->horizon <= t) s->status = WSIM_DONE;
}

/* ---- Pass 2: issue ---------------------------------------------------------------- */

static inline void note_event(wsim *s, uint64_t when)
{
    if (when > s->horizon) s->horizon = when;
}

static inline void schedule(wsim *s, wsim_cell *c, unsigned dst, uint32_t val, uint64_t when, uint32_t pc)
{
    unsigned slot = (unsigned)(when & s->wheel_mask);
    wsim_write *w = &c->wheel[(size_t)slot * s->wheel_cap + c->wheel_n[slot]++];
    w->val = val;
    w->dst = (uint8_t)dst;
    w->pc = (uint16_t)pc;
    note_event(s, wt_opnd_is_gate(dst) ? when + s->link : when);
}

/* A writer at clock t does not yet see a slot its reader freed at t. */
static inline unsigned queue_used_at(const wsim_queue *q, uint64_t t)
{
    return q->used + (q->deq_clock == t);
}

static inline int queue_ready(const wsim_queue *q, uint64_t t)
{
    return q->count && q->ring[q->head].arrival <= t;
}

/* Tries to issue cell k's next bundle at clock t. 1 if it issued. */
static int issue(wsim *s, int k, uint64_t t)
{
    wsim_cell *c = &s->cells[k];
    uint32_t pc = c->pc;
    if (pc >= s->ncode) {
        wsim__fault(s, k, pc, "pc outside the program (%u bundles)", s->ncode);
        return 0;
    }
    const wsim_bundle *b = &s->code[pc];
    if (b->bad) {
        wsim__fault(s, k, pc, "undefined opcode or operand");
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
    for (unsigned m = b->gate_rd; m; m &= m - 1)
        if (!queue_ready(&c->q[lowest(m)], t)) goto stall;
    for (unsigned m = b->out_mask; m; m &= m - 1) {
        unsigned q = lowest(m);
        if (c->out[q] && queue_used_at(c->out[q], t) + b->out_n[q] > s->qcap) goto stall;
    }
    for (unsigned m = b->feed_mask & c->feed_live; m; m &= m - 1) {
        unsigned q = lowest(m);
        if (queue_used_at(&c->q[q], t) + b->feed_n[q] > s->qcap) goto stall;
    }

    for (unsigned m = b->gate_rd; m; m &= m - 1) {
        unsigned q = lowest(m);
        wsim_queue *in = &c->q[q];
        c->src[SRC_GATE + q] = in->ring[in->head].word;
        in->head = (in->head + 1) & s->qmask;
        in->count--;
        in->used--;
        in->deq_clock = t;
    }
    for (unsigned m = b->out_mask; m; m &= m - 1) {
        unsigned q = lowest(m);
        if (c->out[q]) c->out[q]->used += b->out_n[q];
    }
    for (unsigned m = b->feed_mask & c->feed_live; m; m &= m - 1) {
        unsigned q = lowest(m);
        c->q[q].used += b->feed_n[q];
    }
    c->src[SRC_IMM0] = b->imm[0];
    c->src[SRC_IMM1] = b->imm[1];

    uint32_t next = pc + 1;
    int halt = 0;
    const uint32_t *src = c->src;
    for (unsigned i = 0; i < b->nops; i++) {
        const wsim_dop *o = &b->ops[i];
        uint32_t A = src[o->a], B = src[o->b], C = src[o->c], v, addr;
        c->class_ops[o->uclass]++;
        if (o->interval > 1) {
            uint64_t free_at = t + o->interval;
            c->busy_until[o->slot] = free_at;
            if (free_at > c->busy_max) c->busy_max = free_at;
            note_event(s, free_at);
        }
        switch (o->kind) {
        case WT_K_PURE:
            v = op_value(o->op, A, B, C);
            break;
        case WT_K_DIV:
            if (B == 0) {
                wsim__fault(s, k, pc, "integer division by zero (%s)", wt_ops[o->op].name);
                return 0;
            }
            v = op_value(o->op, A, B, C);
            break;
        case WT_K_LOAD:
            addr = A + B;
            if ((addr & 3) || addr > s->model->data_mem_bytes - 4) {
                wsim__fault(s, k, pc, "load from data address 0x%x %s (data memory is %u bytes)", addr,
                            (addr & 3) ? "is misaligned" : "is outside data memory",
                            s->model->data_mem_bytes);
                return 0;
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
                wsim__fault(s, k, pc, "store to data address 0x%x %s (data memory is %u bytes)", addr,
                            (addr & 3) ? "is misaligned" : "is outside data memory",
                            s->model->data_mem_bytes);
                return 0;
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
                wsim__fault(s, k, pc, "return stack overflow (depth %u)", s->model->ret_stack_depth);
                return 0;
            }
            c->rstack[c->rsp++] = pc + 1;
            next = b->target;
            continue;
        case WT_K_RET:
            if (c->rsp == 0) {
                wsim__fault(s, k, pc, "return stack underflow (ret with no call)");
                return 0;
            }
            next = c->rstack[--c->rsp];
            continue;
        case WT_K_HALT:
            halt = 1;
            continue;
        default:
            wsim__fault(s, k, pc, "undefined opcode or operand");
            return 0;
        }
        unsigned dst = o->dst;
        if (!dst) continue;
        if (dst >= WT_OPND_FEED) {
            /* Host feed and address gates mean something on the end facing that side only. */
            unsigned live = dst < WT_OPND_ADDR ? c->feed_live : c->addr_live;
            if (!(live & (1u << ((dst - WT_OPND_FEED) & 3)))) continue;
        }
        schedule(s, c, dst, v, t + o->lat, pc);
    }

    c->issued++;
    c->next_issue = t + b->clocks;
    if (b->clocks > 1) note_event(s, c->next_issue);
    if (halt) {
        c->state = WSIM_CELL_HALTED;
        s->nhalted++;
    } else if (next >= s->ncode) {
        /* Blamed on the bundle that goes there: its source line is the one to fix. */
        if (next == pc + 1) wsim__fault(s, k, pc, "runs past the end of the program (%u bundles)", s->ncode);
        else wsim__fault(s, k, pc, "jump to bundle %u, outside the program (%u bundles)", next, s->ncode);
    } else {
        c->state = WSIM_CELL_RUNNING;
        c->pc = next;
    }
    return 1;

stall:
    if (s->prog.flow_controlled) {
        wsim__flow_bug(s, k, pc, t);
        return 0;
    }
    c->stall_queue++;
    c->state = WSIM_CELL_STALLED;
    return 0;
}

static void issue_clock(wsim *s)
{
    uint64_t t = s->cycle;
    int issued = 0;
    for (int k = 0; k < s->ncells; k++) {
        wsim_cell *c = &s->cells[k];
        if (c->state >= WSIM_CELL_HALTED || t < c->next_issue) continue;
        issued |= issue(s, k, t);
        if (s->status != WSIM_RUNNING) return;
    }
    if (!issued && s->horizon <= t && s->nhalted < s->ncells) {
        wsim__deadlock(s);
        return;
    }
    s->cycle = t + 1;
}

wsim_status wsim_step(wsim *s)
{
    s->at_limit = 0;
    if (s->status != WSIM_RUNNING) return s->status;
    begin_clock(s);
    if (s->status == WSIM_RUNNING) issue_clock(s);
    return s->status;
}

wsim_status wsim_run(wsim *s, uint64_t max_cycles)
{
    s->at_limit = 0;
    while (s->status == WSIM_RUNNING) {
        /* Landing is idempotent within a clock, so stopping here at the limit and
         * resuming later repeats it harmlessly. */
        begin_clock(s);
        if (s->status != WSIM_RUNNING) break;
        if (s->cycle >= max_cycles) {
            s->at_limit = 1;
            return WSIM_CYCLE_LIMIT;
        }
        issue_clock(s);
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
