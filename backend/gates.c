/* Gate operands: a received word read straight from its gate by the operation that
 * uses it, and a word to send written straight to its gate by the operation that
 * computes it (`fmul r3, @xl, r2`, `fadd @yr, r1, r2`, `hld @fxl, [r2, data]`).
 *
 * A fold moves a gate operation in program order, which the scheduler then keeps
 * (design rules: gate operations stay in order, a receive never goes before a send
 * that preceded it). So a receive is folded only into a later user with no read of
 * the same queue in between (moving a receive later is always safe). A send moves
 * earlier only past operations that touch no gate: a word sent before a receive it
 * followed, or past another send, could fill a queue that the neighbour drains
 * only after that receive. A producer that is pure is instead moved down to the
 * send's place, which needs no such check (its own receives, if any, only move
 * later, which is safe while no read of the same queue is passed). */
#include "mir.h"

#include <stdlib.h>
#include <string.h>

typedef struct use_info {
    int ndefs, nusers;
    int def_block, def_at;      /* the (single) definition */
    int use_block, use_at;      /* the (single) user; use_at == -1 for a terminator */
} use_info;

static int reads_vreg(const wb_ins *in, int v)
{
    for (int k = 0; k < wb_nsrc(in->op); k++)
        if (wb_is_vreg(in->s[k]) && (int)in->s[k].v == v) return 1;
    return 0;
}

static int reads_gate(const wb_ins *in, unsigned code)
{
    if (in->op == WT_OP_NONE) return 0;
    for (int k = 0; k < wb_nsrc(in->op); k++)
        if (in->s[k].kind == WB_O_REG && in->s[k].v == code) return 1;
    return 0;
}

static int reads_any_gate(const wb_ins *in)
{
    if (in->op == WT_OP_NONE) return 0;
    for (int k = 0; k < wb_nsrc(in->op); k++)
        if (in->s[k].kind == WB_O_REG && wt_opnd_is_gate(in->s[k].v)) return 1;
    return 0;
}

static int writes_gate(const wb_ins *in)
{
    return in->op != WT_OP_NONE && wb_has_dest(in->op) && in->d.kind == WB_O_REG &&
           (wt_opnd_is_gate(in->d.v) || wt_opnd_is_feed(in->d.v) || wt_opnd_is_addr(in->d.v));
}

static use_info *count_uses(const wb_func *f)
{
    use_info *u = ws_xcalloc((size_t)f->nvregs, sizeof *u);
    for (int id = 0; id < f->nblocks; id++) {
        const wb_block *b = f->blocks[id];
        for (int i = -1; i < b->nins; i++) {
            const wb_ins *in = i < 0 ? &b->term : &b->ins[i];
            int at = i < 0 ? -1 : i;
            if (in->op == WT_OP_NONE) continue;
            if (wb_has_dest(in->op) && wb_is_vreg(in->d)) {
                use_info *x = &u[in->d.v];
                x->ndefs++;
                x->def_block = id;
                x->def_at = at;
            }
            for (int k = 0; k < wb_nsrc(in->op); k++) {
                if (!wb_is_vreg(in->s[k])) continue;
                int dup = 0;
                for (int j = 0; j < k; j++) dup |= wb_opnd_eq(in->s[j], in->s[k]);
                if (dup) continue;
                use_info *x = &u[in->s[k].v];
                x->nusers++;
                x->use_block = id;
                x->use_at = at;
            }
        }
    }
    return u;
}

static void fold_receives(wb_block *b, int id, const use_info *u)
{
    for (int i = 0; i < b->nins; i++) {
        wb_ins *r = &b->ins[i];
        if (r->op != WB_COPY || r->s[0].kind != WB_O_REG || !wt_opnd_is_gate(r->s[0].v) || !wb_is_vreg(r->d))
            continue;
        const use_info *x = &u[r->d.v];
        if (x->ndefs != 1 || x->nusers != 1 || x->use_block != id) continue;
        int j = x->use_at < 0 ? b->nins : x->use_at;
        if (j <= i) continue;
        wb_ins *user = x->use_at < 0 ? &b->term : &b->ins[j];
        unsigned gate = r->s[0].v;
        /* One read per queue per operation: two of them would see the same word. */
        if (reads_gate(user, gate)) continue;
        int clash = 0;
        for (int k = i + 1; k < j && !clash; k++) clash = reads_gate(&b->ins[k], gate);
        if (clash) continue;
        for (int k = 0; k < wb_nsrc(user->op); k++)
            if (wb_opnd_eq(user->s[k], r->d)) user->s[k] = r->s[0];
        r->op = WT_OP_NONE;
    }
}

static int sinkable(const wb_block *b, int i, int j)
{
    const wb_ins *p = &b->ins[i];
    if (p->op != WB_COPY) {
        wt_kind k = wt_ops[p->op].kind;
        if (k != WT_K_PURE && k != WT_K_HLOAD) return 0;
    }
    for (int k = i + 1; k < j; k++) {
        const wb_ins *in = &b->ins[k];
        if (in->op == WT_OP_NONE) continue;
        /* Its sources must still hold the same values at the send... */
        if (wb_has_dest(in->op) && wb_is_vreg(in->d) && reads_vreg(p, (int)in->d.v)) return 0;
        /* ...and a receive it does moves later only past reads of other queues. */
        for (int s = 0; s < wb_nsrc(p->op); s++)
            if (p->s[s].kind == WB_O_REG && wt_opnd_is_gate(p->s[s].v) && reads_gate(in, p->s[s].v)) return 0;
    }
    return 1;
}

static void fold_sends(wb_block *b, int id, const use_info *u)
{
    for (int j = 0; j < b->nins; j++) {
        wb_ins *s = &b->ins[j];
        if (s->op != WB_COPY || !writes_gate(s) || !wb_is_vreg(s->s[0])) continue;
        const use_info *x = &u[s->s[0].v];
        if (x->ndefs != 1 || x->nusers != 1 || x->def_block != id || x->def_at < 0 || x->def_at >= j) continue;
        int i = x->def_at;
        wb_ins *p = &b->ins[i];
        if (p->op == WT_OP_NONE || !wb_opnd_eq(p->d, s->s[0])) continue;
        if (sinkable(b, i, j)) {
            wb_ins moved = *p;
            moved.d = s->d;
            moved.dbg = s->dbg;   /* p's own events stay with p, which goes */
            *s = moved;
            p->op = WT_OP_NONE;
            continue;
        }
        int clash = 0;
        for (int k = i + 1; k < j && !clash; k++) {
            const wb_ins *in = &b->ins[k];
            clash = reads_any_gate(in) || (writes_gate(in) && (!wt_opnd_is_addr(in->d.v) || in->d.v == s->d.v));
        }
        if (clash) continue;
        p->d = s->d;
        s->op = WT_OP_NONE;
    }
}

static void compact(wb_func *f, wb_block *b)
{
    for (int i = 0; i < b->nins; i++)
        if (b->ins[i].op == WT_OP_NONE) wb_move_dbg(f, b, i);
    int n = 0;
    for (int i = 0; i < b->nins; i++)
        if (b->ins[i].op != WT_OP_NONE) b->ins[n++] = b->ins[i];
    b->nins = n;
}

void wb_fold_gates(wb_func *f)
{
    use_info *u = count_uses(f);
    for (int id = 0; id < f->nblocks; id++) fold_receives(f->blocks[id], id, u);
    free(u);
    /* Receives folded into sends changed who uses what: count again. */
    u = count_uses(f);
    for (int id = 0; id < f->nblocks; id++) fold_sends(f->blocks[id], id, u);
    free(u);
    for (int id = 0; id < f->nblocks; id++) compact(f, f->blocks[id]);
}
