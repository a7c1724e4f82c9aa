/* Spilling: a virtual register kept in a frame word instead, stored after each
 * definition and loaded into a fresh short-lived register before each use.
 *
 * Calls: the callee may use every register and W2 has no recursion, so there is no
 * callee-saved convention; whatever is live across a call lives in the caller's
 * static frame. The register allocator also spills here when it runs out. */
#include "mir.h"

#include <stdlib.h>

typedef struct slot {
    uint32_t offset;
    int obj;   /* memory object id: a slot only orders against itself */
} slot;

static const slot *get_slot(wb_func *f, slot *slots, int v)
{
    if (!slots[v].obj) {
        slots[v].offset = wb_frame_alloc(f, 4);
        slots[v].obj = ++f->nmemobjs;
    }
    return &slots[v];
}

/* A block's operations as rewritten: built in one pass, where inserting each load
 * and store into the block would move the rest of a long block every time. */
typedef struct insbuf {
    wb_ins *ins;
    size_t n, cap;
} insbuf;

static void put_ins(insbuf *o, const wb_ins *in)
{
    ws_grow(&o->ins, &o->cap, o->n + 1, sizeof *o->ins);
    o->ins[o->n++] = *in;
}

/* The entries of avail[] set in this block, to clear after it (all of avail for
 * every block would cost blocks times vregs). */
typedef struct vlist {
    int *v;
    size_t n, cap;
} vlist;

static void note_avail(int *avail, vlist *set, int v, int t)
{
    avail[v] = t;
    ws_grow(&set->v, &set->cap, set->n + 1, sizeof *set->v);
    set->v[set->n++] = v;
}

/* Loads every spilled source of `in` into a temporary, appending the loads to o,
 * unless avail[] already has it in a register of this block. */
static void reload_sources(wb_func *f, insbuf *o, wb_ins *in, int nv, const uint8_t *spill, slot *slots, int *avail,
                           vlist *set)
{
    wb_ins cur = *in;
    for (int k = 0; k < wb_nsrc(cur.op); k++) {
        wb_opnd s = cur.s[k];
        if (!wb_is_vreg(s) || (int)s.v >= nv || !spill[s.v]) continue;
        wb_opnd t;
        if (avail && avail[s.v]) {
            t = wb_vreg(avail[s.v]);
        } else {
            const slot *sl = get_slot(f, slots, (int)s.v);
            t = wb_vreg(wb_new_vreg(f, WB_V_SPILLTEMP));
            wb_ins ld = {.op = WT_OP_LD, .d = t, .s = {wb_reg(WT_OPND_R0), wb_sym(f->frame, (int32_t)sl->offset)},
                         .memobj = sl->obj, .target = -1, .line = cur.line, .col = cur.col};
            put_ins(o, &ld);
            if (avail) note_avail(avail, set, (int)s.v, (int)t.v);
        }
        for (int j = k; j < wb_nsrc(cur.op); j++)
            if (wb_opnd_eq(cur.s[j], s)) cur.s[j] = t;
    }
    for (int k = 0; k < 3; k++) in->s[k] = cur.s[k];
}

/* With reuse, a value once stored or loaded in a block is read from that register
 * for the rest of the block: right for values spilled because of calls, which end
 * their blocks; the allocator's spills want every range short instead. */
static void spill(wb_func *f, const uint8_t *which, int reuse)
{
    int nv = f->nvregs;
    slot *slots = ws_xcalloc((size_t)nv, sizeof *slots);
    int *avail = reuse ? ws_xcalloc((size_t)nv, sizeof *avail) : NULL;
    vlist set = {0};
    for (int id = 0; id < f->nblocks; id++) {
        wb_block *b = f->blocks[id];
        insbuf o = {0};
        ws_grow(&o.ins, &o.cap, (size_t)b->nins + 1, sizeof *o.ins);
        for (int i = 0; i < b->nins; i++) {
            wb_ins in = b->ins[i];
            reload_sources(f, &o, &in, nv, which, slots, avail, &set);
            if (wb_has_dest(in.op) && wb_is_vreg(in.d) && (int)in.d.v < nv && which[in.d.v]) {
                const slot *sl = get_slot(f, slots, (int)in.d.v);
                int v = (int)in.d.v;
                wb_opnd t = wb_vreg(wb_new_vreg(f, WB_V_SPILLTEMP));
                in.d = t;
                wb_ins st = {.op = WT_OP_ST, .s = {wb_reg(WT_OPND_R0), wb_sym(f->frame, (int32_t)sl->offset), t},
                             .memobj = sl->obj, .target = -1, .line = in.line, .col = in.col};
                put_ins(&o, &in);
                put_ins(&o, &st);
                if (avail) note_avail(avail, &set, v, (int)t.v);
            } else {
                put_ins(&o, &in);
            }
        }
        if (b->term.op != WT_OP_NONE) {
            wb_ins t = b->term;
            reload_sources(f, &o, &t, nv, which, slots, avail, &set);
            b->term = t;
        }
        free(b->ins);
        b->ins = o.ins;
        b->nins = (int)o.n;
        b->cap = (int)o.cap;
        for (size_t k = 0; k < set.n; k++) avail[set.v[k]] = 0;
        set.n = 0;
    }
    free(set.v);
    free(slots);
    free(avail);
}

void wb_spill_vregs(wb_func *f, const uint8_t *which)
{
    spill(f, which, 0);
}

void wb_spill_calls(wb_func *f)
{
    wb_live *l = wb_liveness(f);
    uint8_t *which = ws_xcalloc((size_t)f->nvregs, 1);
    int any = 0;
    for (int id = 0; id < f->nblocks; id++) {
        if (wb_flow(f->blocks[id]->term.op) != WT_FLOW_CALL) continue;
        int nout;
        const int *out = wb_live_out(l, id, &nout);
        for (int k = 0; k < nout; k++)
            if (out[k] >= 1 && out[k] < f->nvregs) {
                which[out[k]] = 1;
                any = 1;
            }
    }
    if (any) spill(f, which, 1);
    free(which);
    wb_live_free(l);
}
