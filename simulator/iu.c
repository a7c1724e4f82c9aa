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

/* Where an IU operation's result goes on the side that runs it. */
enum { IU_TO_NONE, IU_TO_REG, IU_TO_FEED, IU_TO_ADDR, IU_TO_PATH };

/* An IU operation as one side runs it, decided once: its sources as indices into the
 * side's source array, its result's destination on this side. */
typedef struct iu_dop {
    uint8_t op, kind, lat, to;
    uint8_t a, b, c;          /* src[] indices: a register, or IU_SRC_IMM0/1; unused ones are r0 */
    uint8_t dst;              /* operand code */
} iu_dop;

/* An IU bundle as one side runs it: the feeds and path words it sends on this side,
 * which the ready test and the link's clocks need before any operation runs. Pure
 * operations and host loads whose result this side drops are gone; a division or
 * table load stays for its fault. */
typedef struct iu_bundle {
    uint8_t nops, any, words, clocks;
    uint8_t feed_n[WT_NQUEUES], path_n[WT_NPATHS];
    iu_dop ops[WT_NSLOTS];
} iu_bundle;

/* The IU's registers, then the bundle's literals: every source is src[index]. */
enum { IU_SRC_IMM0 = WT_OPND_NREGS, IU_SRC_IMM1, IU_SRC_N };

struct wsim_iu_side {
    uint32_t src[IU_SRC_N];   /* r0 is never written: 0 */
    iu_bundle *code;
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

static uint8_t iu_src(unsigned o)
{
    if (o == WT_OPND_IMM0) return IU_SRC_IMM0;
    if (o == WT_OPND_IMM1) return IU_SRC_IMM1;
    return (uint8_t)o;
}

/* IU bundle `in` as the side beside cell c runs it (wsim_iu_check accepted it). */
static void decode_iu_bundle(const wsim *s, const wsim_cell *c, const wt_insn *in, iu_bundle *b)
{
    int first = c == &s->cells[0];
    unsigned clocks = 1;
    memset(b, 0, sizeof *b);
    for (unsigned sl = 0; sl < WT_NSLOTS; sl++) {
        const wt_slot *x = &in->slot[sl];
        if (x->op == WT_OP_NONE) continue;
        b->any = 1;
        const wt_op_info *info = &wt_ops[x->op];
        iu_dop d = {.op = (uint8_t)x->op, .kind = (uint8_t)info->kind, .lat = info->latency[s->model->id],
                    .dst = x->opnd[0]};
        for (const char *p = info->sig; *p; p++) {
            if (*p == 'a' || *p == 'm') d.a = iu_src(x->opnd[1]);
            if (*p == 'b' || *p == 'm') d.b = iu_src(x->opnd[2]);
            if (*p == 'c') d.c = iu_src(x->opnd[3]);
        }
        unsigned o = x->opnd[0];
        if (!wt_op_has_dest((wt_op)x->op)) d.to = IU_TO_NONE;
        else if (wt_opnd_is_reg(o)) d.to = o ? IU_TO_REG : IU_TO_NONE;
        else if (wt_opnd_is_feed(o) && (c->feed_live >> (o - WT_OPND_FEED) & 1)) {
            d.to = IU_TO_FEED;
            b->feed_n[o - WT_OPND_FEED]++;
            b->words++;
        } else if (wt_opnd_is_addr(o) && (c->addr_live >> (o - WT_OPND_ADDR) & 1)) d.to = IU_TO_ADDR;
        else if (wt_opnd_is_path(o) && first) {
            d.to = IU_TO_PATH;
            unsigned p = o - WT_OPND_PATH, need = (++b->path_n[p] + wt_paths[p].per_clock - 1) / wt_paths[p].per_clock;
            if (need > clocks) clocks = need;
        }
        if (d.to == IU_TO_NONE && d.kind != WT_K_DIV && d.kind != WT_K_TLOAD) continue;
        b->ops[b->nops++] = d;
    }
    b->clocks = (uint8_t)(b->words > clocks ? b->words : clocks);
}

wsim_iu_side *wsim_iu_side_new(const wsim *s, const wsim_cell *c)
{
    wsim_iu_side *u = ws_xcalloc(1, sizeof *u);
    u->code = ws_xcalloc(s->ncode ? s->ncode : 1, sizeof *u->code);
    for (uint32_t pc = 0; pc < s->ncode; pc++) decode_iu_bundle(s, c, &s->prog.iu_code[pc], &u->code[pc]);
    return u;
}

void wsim_iu_side_free(wsim_iu_side *u)
{
    if (!u) return;
    free(u->code);
    free(u->pend);
    free(u);
}

/* Results land in the IU's registers when the IU next reads them: only its own
 * bundles read them, so landing late changes nothing. */
static void land_due(wsim_iu_side *u, uint64_t t)
{
    size_t keep = 0;
    for (size_t i = 0; i < u->npend; i++) {
        if (u->pend[i].when <= t) u->src[u->pend[i].reg] = u->pend[i].val;
        else u->pend[keep++] = u->pend[i];
    }
    u->npend = keep;
}

int wsim_iu_ready(const wsim *s, const wsim_cell *c, uint32_t pc, uint64_t t)
{
    (void)s;
    const iu_bundle *b = &c->iu->code[pc];
    if (b->words)
        for (unsigned q = 0; q < WT_NQUEUES; q++)
            if (b->feed_n[q] && wca_queue_used_at(c->feedq[q], t) + b->feed_n[q] > c->feedq[q]->cap) return 0;
    for (unsigned p = 0; p < WT_NPATHS; p++)
        if (b->path_n[p] && wca_queue_used_at(&c->path[p], t) + b->path_n[p] > c->path[p].cap) return 0;
    return 1;
}

unsigned wsim_iu_issue(wsim *s, wsim_cell *c, uint32_t pc, uint64_t t)
{
    wsim_iu_side *u = c->iu;
    const iu_bundle *b = &u->code[pc];
    const wt_insn *in = &s->prog.iu_code[pc];
    for (unsigned p = 0; p < WT_NPATHS; p++) {
        if (!b->path_n[p]) continue;
        wca_queue *q = &c->path[p];
        q->used += b->path_n[p];
        if (q->used > c->path_peak[p]) c->path_peak[p] = q->used;
        u->path_words[p] += b->path_n[p];
    }
    if (b->nops) {
        land_due(u, t);
        u->src[IU_SRC_IMM0] = in->imm[0];
        u->src[IU_SRC_IMM1] = in->imm[1];
    }
    for (const iu_dop *o = b->ops; o < b->ops + b->nops; o++) {
        uint32_t A = u->src[o->a], B = u->src[o->b], C = u->src[o->c], v = 0;
        if (o->kind == WT_K_HLOAD) {
            uint32_t addr = A + B;
            /* As a cell's host load: past host memory it reads 0. */
            v = (addr & 3) || s->host_size < 4 || addr > s->host_size - 4 ? 0 : wsim_load32(s->host + addr);
        } else if (o->kind == WT_K_TLOAD) {
            uint32_t addr = A + B, words = s->model->iu_table_words;
            if ((addr & 3) || addr / 4 >= words) {
                wsim_fault(s, (int)(c - s->cells), pc,
                           "interface unit %s at table offset 0x%x %s (its address table holds %u entries, "
                           "%u bytes)",
                           wt_ops[o->op].name, addr, (addr & 3) ? "is misaligned" : "is outside the table", words,
                           4 * words);
                return 1;
            }
            /* entries the image did not give are 0, as a table loaded with the microcode */
            v = addr / 4 < s->prog.iu_table_words ? s->prog.iu_table[addr / 4] : 0;
        } else {
            if (o->kind == WT_K_DIV && B == 0) {
                wsim_fault(s, (int)(c - s->cells), pc, "integer division by zero (%s) in the interface unit",
                           wt_ops[o->op].name);
                return 1;
            }
            switch (o->op) {
#define WT_OP(id, mn, uc, code, sig, ity, lw, li, iw, ii, kind, sem)                                   \
    case WT_OP_##id:                                                                                   \
        if (WT_K_##kind == WT_K_PURE || WT_K_##kind == WT_K_DIV) v = (uint32_t)(sem);                 \
        break;
#include "warp_ops.def"
#undef WT_OP
            default: break;
            }
        }
        switch (o->to) {
        case IU_TO_REG:
            ws_grow(&u->pend, &u->cap, u->npend + 1, sizeof *u->pend);
            u->pend[u->npend++] = (iu_pending){t + o->lat, v, o->dst};
            break;
        case IU_TO_FEED:
            c->feedq[o->dst - WT_OPND_FEED]->used++;
            u->words_in++;
            wsim_schedule_write(s, c, o->dst, v, t + o->lat, pc);
            break;
        case IU_TO_ADDR:
            u->addresses++;
            wsim_schedule_write(s, c, o->dst, v, t + o->lat, pc);
            break;
        case IU_TO_PATH:
            wsim_schedule_write(s, c, o->dst, v, t + o->lat, pc);
            break;
        default: break;
        }
    }
    u->bundles += b->any;
    if (b->words > 1) u->link_clocks += b->words - 1u;
    return b->clocks;
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
