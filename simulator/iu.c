/* The Warp interface unit (seed 002, sections 4.2, 4.7 and 5.2): the board between the
 * host and the array that does the host's input and output and the data-independent
 * address work, so that the cells' own units only compute.
 *
 * The image's IU program is parallel to the cells' (docs/design.md, section 1, "The
 * interface unit"): IU bundle i holds what the IU does while an end cell issues its
 * bundle i, which is how the compiler timed the two together. The IU keeps its own
 * registers, one set for each end it serves (the left end's feeds and the right end's
 * host addresses follow their own cell's clock), reads host memory, fills the end
 * cell's queues facing the host through the IU link and gives the host the address
 * of each word leaving the array. It has no floating-point units, no data memory and
 * no sequencer of its own: the program is refused when loaded otherwise.
 *
 * The IU reads its table of pre-stored addresses (tld; the image's .warp.iutab, loaded
 * with the program as the seed's was with the microcode) for the addressing an
 * affine sum cannot give, the FFT's.
 *
 * The IU also writes the address path (@adr, warp_ops.def's WT_PATH rows) of the first
 * cell, which passes each word it reads on to the next: the data-independent addresses
 * and loop-control words, computed once for every cell. Only the IU beside the first
 * cell writes it (the last cell's IU part runs the same bundles later; its path words
 * would be a second copy, so they are dropped).
 *
 * Rates from the seed: the link takes one 32-bit word into the array a cycle, so an IU
 * bundle that feeds k > 1 words holds its end cell for k clocks, and the address path
 * takes two a cycle (a bundle writing k > 2 holds it k/2 clocks); the words leaving the
 * array and the host's transfers (10 MB/s, half a word a 200 ns cycle) are counted
 * for --stats, not enforced (the seed's own claim of full utilisation on the
 * polynomial needs more: docs/design.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"
#include "warp_support.h"

typedef struct iu_pending {
    uint64_t when;
    uint32_t val;
    uint8_t reg;
} iu_pending;

struct wsim_iu_side {
    uint32_t reg[WT_OPND_NREGS];
    iu_pending *pend;
    size_t npend, cap;
    uint64_t bundles, words_in, addresses, link_clocks, path_words[WT_NPATHS];
};

int wsim_iu_check(const wt_model *m, const wt_insn *code, uint32_t ncode, char *err, size_t errlen)
{
    if (m->logical_channels) {
        snprintf(err, errlen, "the program has an interface unit part, which only the Warp has");
        return -1;
    }
    for (uint32_t pc = 0; pc < ncode; pc++)
        for (unsigned s = 0; s < WT_NSLOTS; s++) {
            const char *why = wt_iu_slot_fault(&code[pc], s);
            if (why) {
                snprintf(err, errlen, "interface unit bundle %u, slot %s: %s", pc, wt_slot_layouts[s].name, why);
                return -1;
            }
        }
    return 0;
}

wsim_iu_side *wsim_iu_side_new(void) { return ws_xcalloc(1, sizeof(wsim_iu_side)); }

void wsim_iu_side_free(wsim_iu_side *u)
{
    if (!u) return;
    free(u->pend);
    free(u);
}

/* Results land in the IU's registers when the IU next reads them: only its own
 * bundles read them, so landing late changes nothing. */
static void land_due(wsim_iu_side *u, uint64_t t)
{
    size_t keep = 0;
    for (size_t i = 0; i < u->npend; i++) {
        if (u->pend[i].when <= t) u->reg[u->pend[i].reg] = u->pend[i].val;
        else u->pend[keep++] = u->pend[i];
    }
    u->npend = keep;
}

static uint32_t source(const wsim_iu_side *u, const wt_insn *in, unsigned o)
{
    if (o == WT_OPND_IMM0) return in->imm[0];
    if (o == WT_OPND_IMM1) return in->imm[1];
    return u->reg[o];
}

/* The feeds of IU bundle pc that fill queues cell k faces, by queue. */
static unsigned feeds(const wsim_cell *c, const wt_insn *in, unsigned n[WT_NQUEUES])
{
    unsigned total = 0;
    memset(n, 0, WT_NQUEUES * sizeof *n);
    for (unsigned s = 0; s < WT_NSLOTS; s++) {
        const wt_slot *sl = &in->slot[s];
        if (sl->op == WT_OP_NONE || !wt_op_has_dest((wt_op)sl->op) || !wt_opnd_is_feed(sl->opnd[0])) continue;
        unsigned q = sl->opnd[0] - WT_OPND_FEED;
        if (!(c->feed_live >> q & 1)) continue;
        n[q]++;
        total++;
    }
    return total;
}

/* The words IU bundle pc writes into each path of cell c: only the first cell's. */
static unsigned path_words(const wsim *s, const wsim_cell *c, const wt_insn *in, unsigned n[WT_NPATHS])
{
    unsigned total = 0;
    memset(n, 0, WT_NPATHS * sizeof *n);
    if (c != &s->cells[0]) return 0;
    for (unsigned sl = 0; sl < WT_NSLOTS; sl++) {
        const wt_slot *x = &in->slot[sl];
        if (x->op == WT_OP_NONE || !wt_op_has_dest((wt_op)x->op) || !wt_opnd_is_path(x->opnd[0])) continue;
        n[x->opnd[0] - WT_OPND_PATH]++;
        total++;
    }
    return total;
}

int wsim_iu_ready(const wsim *s, const wsim_cell *c, uint32_t pc, uint64_t t)
{
    unsigned n[WT_NQUEUES], np[WT_NPATHS];
    if (feeds(c, &s->prog.iu_code[pc], n))
        for (unsigned q = 0; q < WT_NQUEUES; q++)
            if (n[q] && wca_queue_used_at(c->feedq[q], t) + n[q] > c->feedq[q]->cap) return 0;
    if (path_words(s, c, &s->prog.iu_code[pc], np))
        for (unsigned p = 0; p < WT_NPATHS; p++)
            if (np[p] && wca_queue_used_at(&c->path[p], t) + np[p] > c->path[p].cap) return 0;
    return 1;
}

unsigned wsim_iu_issue(wsim *s, wsim_cell *c, uint32_t pc, uint64_t t)
{
    wsim_iu_side *u = c->iu;
    const wt_insn *in = &s->prog.iu_code[pc];
    unsigned n[WT_NQUEUES], words = feeds(c, in, n), np[WT_NPATHS], clocks = 1;
    int any = 0;
    if (path_words(s, c, in, np))
        for (unsigned p = 0; p < WT_NPATHS; p++) {
            if (!np[p]) continue;
            wca_queue *q = &c->path[p];
            q->used += np[p];
            if (q->used > c->path_peak[p]) c->path_peak[p] = q->used;
            u->path_words[p] += np[p];
            unsigned need = (np[p] + wt_paths[p].per_clock - 1) / wt_paths[p].per_clock;
            if (need > clocks) clocks = need;
        }
    land_due(u, t);
    for (unsigned s_ = 0; s_ < WT_NSLOTS; s_++) {
        const wt_slot *sl = &in->slot[s_];
        if (sl->op == WT_OP_NONE) continue;
        any = 1;
        const wt_op_info *info = &wt_ops[sl->op];
        uint32_t A = 0, B = 0, C = 0, v = 0;
        for (const char *p = info->sig; *p; p++) {
            if (*p == 'a') A = source(u, in, sl->opnd[1]);
            else if (*p == 'b') B = source(u, in, sl->opnd[2]);
            else if (*p == 'c') C = source(u, in, sl->opnd[3]);
            else if (*p == 'm') {
                A = source(u, in, sl->opnd[1]);
                B = source(u, in, sl->opnd[2]);
            }
        }
        (void)C;
        if (info->kind == WT_K_HLOAD) {
            uint32_t addr = A + B;
            /* As a cell's host load: past host memory it reads 0. */
            v = (addr & 3) || s->host_size < 4 || addr > s->host_size - 4 ? 0 : wsim_load32(s->host + addr);
        } else if (info->kind == WT_K_TLOAD) {
            uint32_t addr = A + B, words = s->model->iu_table_words;
            if ((addr & 3) || addr / 4 >= words) {
                wsim_fault(s, (int)(c - s->cells), pc,
                           "interface unit %s at table offset 0x%x %s (its address table holds %u entries, "
                           "%u bytes)",
                           info->name, addr, (addr & 3) ? "is misaligned" : "is outside the table", words, 4 * words);
                return 1;
            }
            /* entries the image did not give are 0, as a table loaded with the microcode */
            v = addr / 4 < s->prog.iu_table_words ? s->prog.iu_table[addr / 4] : 0;
        } else {
            if (info->kind == WT_K_DIV && B == 0) {
                wsim_fault(s, (int)(c - s->cells), pc, "integer division by zero (%s) in the interface unit",
                           info->name);
                return 1;
            }
            switch (sl->op) {
#define WT_OP(id, mn, uc, code, sig, ity, lw, li, iw, ii, kind, sem)                                   \
    case WT_OP_##id:                                                                                   \
        if (WT_K_##kind == WT_K_PURE || WT_K_##kind == WT_K_DIV) v = (uint32_t)(sem);                 \
        break;
#include "warp_ops.def"
#undef WT_OP
            default: break;
            }
        }
        unsigned d = sl->opnd[0], lat = info->latency[s->model->id];
        if (wt_opnd_is_reg(d)) {
            if (d == 0) continue;
            ws_grow(&u->pend, &u->cap, u->npend + 1, sizeof *u->pend);
            u->pend[u->npend++] = (iu_pending){t + lat, v, (uint8_t)d};
        } else if (wt_opnd_is_feed(d)) {
            unsigned q = d - WT_OPND_FEED;
            if (!(c->feed_live >> q & 1)) continue;
            c->feedq[q]->used++;
            u->words_in++;
            wsim_schedule_write(s, c, d, v, t + lat, pc);
        } else if (wt_opnd_is_addr(d)) {
            if (!(c->addr_live >> (d - WT_OPND_ADDR) & 1)) continue;
            u->addresses++;
            wsim_schedule_write(s, c, d, v, t + lat, pc);
        } else if (wt_opnd_is_path(d)) {
            if (c != &s->cells[0]) continue;
            wsim_schedule_write(s, c, d, v, t + lat, pc);
        }
    }
    u->bundles += any;
    if (words > 1) u->link_clocks += words - 1;
    return words > clocks ? words : clocks;
}

void wsim_iu_print_stats(const wsim *s, FILE *out)
{
    uint64_t in = 0;
    for (int k = 0; k < s->ncells; k++) {
        const wsim_iu_side *u = s->cells[k].iu;
        if (!u) continue;
        fprintf(out,
                "iu (cell %d's end): bundles %llu, words into the array %llu, host addresses %llu, "
                "clocks held by the link %llu\n",
                k, (unsigned long long)u->bundles, (unsigned long long)u->words_in,
                (unsigned long long)u->addresses, (unsigned long long)u->link_clocks);
        in += u->words_in;
    }
    for (unsigned p = 0; p < WT_NPATHS; p++) {
        const wsim_iu_side *u = s->cells[0].iu;
        uint64_t reads = 0;
        uint32_t peak = 0;
        for (int k = 0; k < s->ncells; k++) {
            reads += s->cells[k].path_reads[p];
            if (s->cells[k].path_peak[p] > peak) peak = s->cells[k].path_peak[p];
        }
        if (!reads && (!u || !u->path_words[p])) continue;
        /* the seed's rate: two addresses a 200 ns cycle between neighbours */
        fprintf(out,
                "address path %s: %llu words from the iu (%u a cycle at most), %llu reads by the cells, "
                "fullest queue %u of %u words\n",
                wt_paths[p].name, (unsigned long long)(u ? u->path_words[p] : 0), wt_paths[p].per_clock,
                (unsigned long long)reads, peak, wt_paths[p].words);
    }
    uint64_t outw = s->iu_words_out;
    /* 10 MB/s at 5 MHz: 2 bytes a cycle, a 32-bit word every 2 cycles. The host
     * supplies every word fed (constants too: the IU has them from the host) and
     * takes every word stored. */
    uint64_t host_words = in + s->iu_host_stores;
    fprintf(out,
            "iu link: %llu words in, %llu out in %llu cycles (the seed's link: a word in and a word out a cycle); "
            "host: %llu words, %llu cycles at 10 MB/s\n",
            (unsigned long long)in, (unsigned long long)outw, (unsigned long long)s->cycle,
            (unsigned long long)host_words, (unsigned long long)(2 * host_words));
}
