/* The memory agent's spool gates (seed 000, section 7.2): each moves the words of one
 * logical channel between its queue and consecutive words of the cell's data memory,
 * at most one word every bus_word_clocks (a channel's rate: "spooling one message
 * queue at peak rate consumes one quarter" of the memory bus), and all of a cell's
 * spools together at most spool_words_per_clock a clock (the 64-bit memory bus),
 * chosen round-robin.
 *
 * In (queue to memory): ends after `count` words, or at a message end marker (which
 * is consumed), or before a word would be stored at or past the address limit.
 * Out (memory to a local channel): ends after `count` words or at the limit; in follow
 * mode it never reads a word its partner spool has not stored yet, so a channel can
 * be lengthened through memory (queue extension) at one clock a word.
 *
 * The memory agent "steals memory and computation cycles" (sec. 7.2): the 64-bit
 * memory bus moves an aligned double word a cycle, the spools' transfers
 * interleaved "at double word granularity", and "spooling one message queue at peak
 * rate consumes one quarter of the total memory and computation bandwidth" (a word
 * every 2 clocks: a double word every 4). So each aligned double word a spool
 * touches takes one clock from its cell, in which the computation agent issues
 * nothing (chosen: the seed does not say whether an instruction that does not use
 * memory could go on; here none does, as "computation cycles" reads), the clock the
 * spool moves its first word of it or, when two spools of a cell need the bus at
 * once, the next free one.
 *
 * %spc, written: bits 0..4 the channel, bit 5 out, bit 6 stop at a message end, bit 7
 * follow the spool gate in bits 8..10; bit 31 set: stop now. Read: bit 0 running,
 * bits 1..2 why it stopped (1 count, 2 end marker, 3 limit, 0 stopped by the
 * program), bit 3 out, bits 8..12 the channel. */
#include "comm_internal.h"

#include <string.h>

enum { STOP_PROGRAM, STOP_COUNT, STOP_MARKER, STOP_LIMIT };

void wca_spool_activate(wca *a, int cell, unsigned s)
{
    wca_spool *p = &a->cells[cell].spool[s];
    if (!p->active || p->in_list) return;
    p->in_list = 1;
    a->active_spool[a->n_active_spool++] = cell * 8 + (int)s;
}

static void stop(wca *a, int cell, unsigned s, unsigned reason)
{
    wca_spool *p = &a->cells[cell].spool[s];
    if (!p->active) return;
    p->active = 0;
    p->reason = (uint8_t)reason;
    wca_lic *l = &a->lics[p->lic];
    if (p->out) {
        l->in_spool = -1;
    } else if (l->cons == CONS_SPOOL && l->spool == (int8_t)s) {
        l->cons = CONS_NONE;
        l->spool = -1;
        if (l->nmarks) wca_attend(a, l);
    }
    a->progress = 1;
    if (reason != STOP_PROGRAM) wca_post(a, cell, WCA_EV_SPOOL, lic_local(a, p->lic), s | reason << 8);
}

static inline void store32(uint8_t *m, uint32_t v)
{
    m[0] = (uint8_t)v;
    m[1] = (uint8_t)(v >> 8);
    m[2] = (uint8_t)(v >> 16);
    m[3] = (uint8_t)(v >> 24);
}

static inline uint32_t load32(const uint8_t *m)
{
    return (uint32_t)m[0] | (uint32_t)m[1] << 8 | (uint32_t)m[2] << 16 | (uint32_t)m[3] << 24;
}

/* Spool p moves the word at addr at t: the first word of an aligned double word (or
 * of the spool's run) takes the memory bus for a clock from the computation agent. */
static void take_memory_cycle(wca *a, wca_cell *c, const wca_spool *p, uint32_t addr, uint64_t t)
{
    if (!c->mem_taken_until || ((addr & 4) && p->next_ok)) return;
    uint64_t *until = c->mem_taken_until;
    *until = (*until > t ? *until : t) + 1;
    wca_note(a, *until);
}

/* One word through spool s of a cell, if it can move at t. 1 if it moved. */
static int spool_move(wca *a, int cell, unsigned s, uint64_t t)
{
    wca_cell *c = &a->cells[cell];
    wca_spool *p = &c->spool[s];
    wca_lic *l = &a->lics[p->lic];
    if (t < p->next_ok) return 0;
    uint32_t room = p->limit < c->mem_size ? p->limit : c->mem_size;
    if (p->out) {
        if (wca_queue_used_at(&l->q, t) >= l->q.cap) return 0;
        if (p->follow) {
            const wca_spool *from = &c->spool[p->partner];
            if (p->addr >= from->addr) return 0;
        }
        if (p->addr > room || room - p->addr < 4) {
            stop(a, cell, s, STOP_LIMIT);
            return 0;
        }
        l->q.used++;
        take_memory_cycle(a, c, p, p->addr, t);
        /* Read from memory this clock, in the queue the next: one clock a word. */
        wca_queue_put(&l->q, load32(c->mem + p->addr), WT_MARK_DATA, t + 1);
        wca_note(a, t + 1);
        l->words++;
        wca_pushed(a, &l->q, t);
    } else {
        if (l->q.count == 0) return 0;
        const wca_qword *h = &l->q.ring[l->q.head];
        if (h->arrival > t || l->hold > t || (h->tag & WT_MARK_AGENT)) return 0;
        if (p->stop_at_end && (h->tag & WCA_TAG_KIND) == WT_MARK_MEND) {
            wca_pop(a, l, t);
            stop(a, cell, s, STOP_MARKER);
            return 1;
        }
        if (p->addr > room || room - p->addr < 4) {
            stop(a, cell, s, STOP_LIMIT);
            return 0;
        }
        wca_qword w = wca_pop(a, l, t);
        take_memory_cycle(a, c, p, p->addr, t);
        store32(c->mem + p->addr, w.word);
    }
    p->addr += 4;
    p->next_ok = t + a->bus_clocks;
    wca_note(a, p->next_ok);
    a->progress = 1;
    if (p->count && --p->count == 0) stop(a, cell, s, STOP_COUNT);
    return 1;
}

/* Each cell with a running spool, once a clock: out spools first, so that in follow
 * mode they see what their partner stored up to t-1; the cell's memory budget goes
 * round-robin from the spool after the one served first last time. */
void wca_spool_step(wca *a, uint64_t t)
{
    for (int i = 0; i < a->n_active_spool; i++) {
        int cell = a->active_spool[i] / 8;
        wca_cell *c = &a->cells[cell];
        if (c->spool_clock == t + 1) continue;
        c->spool_clock = t + 1;
        unsigned budget = a->spool_words, first = 8;
        for (int out = 1; out >= 0; out--) {
            for (unsigned j = 0; j < 8 && budget; j++) {
                unsigned s = (c->spool_rr + j) % 8;
                const wca_spool *p = &c->spool[s];
                if (!p->active || p->out != out || !spool_move(a, cell, s, t)) continue;
                budget--;
                if (first == 8) first = s;
            }
        }
        if (first < 8) c->spool_rr = (first + 1) % 8;
    }
    for (int i = 0; i < a->n_active_spool;) {
        int id = a->active_spool[i];
        wca_spool *p = &a->cells[id / 8].spool[id % 8];
        if (p->active) {
            i++;
        } else {
            p->in_list = 0;
            a->active_spool[i] = a->active_spool[--a->n_active_spool];
        }
    }
}

uint32_t wca_spool_read(const wca *a, int cell, wt_ctl reg)
{
    const wca_cell *c = &a->cells[cell];
    const wca_spool *p = &c->spool[c->spool_sel];
    switch (reg) {
    case WT_CTL_SPS: return c->spool_sel;
    case WT_CTL_SPA: return p->addr;
    case WT_CTL_SPL: return p->limit;
    case WT_CTL_SPN: return p->count;
    case WT_CTL_SPC:
        return p->active | (uint32_t)p->reason << 1 | (uint32_t)p->out << 3 |
               (p->lic >= 0 ? lic_local(a, p->lic) : 0) << 8;
    default: return 0;
    }
}

int wca_spool_write(wca *a, int cell, wt_ctl reg, uint32_t v, uint64_t t, char *err, size_t errlen)
{
    wca_cell *c = &a->cells[cell];
    wca_spool *p = &c->spool[c->spool_sel];
    (void)t;
    if (reg == WT_CTL_SPS) {
        if (v >= a->nspool) {
            snprintf(err, errlen, "%%sps: spool gate %u: a cell has %u", v, a->nspool);
            return -1;
        }
        c->spool_sel = v;
        return 0;
    }
    if (reg != WT_CTL_SPC && p->active) {
        snprintf(err, errlen, "%s: spool gate %u is running", wt_ctls[reg].name, c->spool_sel);
        return -1;
    }
    switch (reg) {
    case WT_CTL_SPA:
        if (v & 3) {
            snprintf(err, errlen, "%%spa: spool address 0x%x is misaligned", v);
            return -1;
        }
        p->addr = v;
        return 0;
    case WT_CTL_SPL: p->limit = v; return 0;
    case WT_CTL_SPN: p->count = v; return 0;
    case WT_CTL_SPC: break;
    default: return 0;
    }
    if (v & 0x80000000u) {
        stop(a, cell, c->spool_sel, STOP_PROGRAM);
        return 0;
    }
    if (p->active) {
        snprintf(err, errlen, "%%spc: spool gate %u is running", c->spool_sel);
        return -1;
    }
    unsigned n = v & 31, out = (v >> 5) & 1;
    if (n >= a->nchan) {
        snprintf(err, errlen, "%%spc: channel %u: a cell has %u", n, a->nchan);
        return -1;
    }
    wca_lic *l = lic_at(a, cell, n);
    if (out) {
        if (l->bus >= 0 || l->out_gate >= 0 || l->in_spool >= 0 || l->pinned) {
            snprintf(err, errlen, "%%spc: spooling out to channel %u, which is %s", n,
                     l->bus >= 0 ? "fed by a bus (spools out fill local channels)" : "filled already");
            return -1;
        }
        l->in_spool = (int8_t)c->spool_sel;
    } else {
        if (l->cons != CONS_NONE) {
            snprintf(err, errlen, "%%spc: spooling in from channel %u, which is taken by %s", n,
                     l->cons == CONS_GATE ? "a gate" : l->cons == CONS_LOC ? "a link" : "a spool gate");
            return -1;
        }
        l->cons = CONS_SPOOL;
        l->spool = (int8_t)c->spool_sel;
    }
    p->active = 1;
    p->out = (uint8_t)out;
    p->stop_at_end = (v >> 6) & 1;
    p->follow = (v >> 7) & 1;
    p->partner = (v >> 8) & 7;
    p->reason = 0;
    p->lic = l->id;
    p->next_ok = 0;
    wca_spool_activate(a, cell, c->spool_sel);
    a->progress = 1;
    return 0;
}
