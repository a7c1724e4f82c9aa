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

/* Several users of one received word read it from the gate in one bundle, which
 * dequeues it once: the users must be able to issue together. None may depend on
 * another (through any operation between them: values, memory, gate order), none
 * may read that queue itself, nothing between the receive and the last user may
 * read it, and a user that sends passes the word on (toward the other side: a
 * bundle that also sends back the way the word came could wait on a full queue
 * whose reader waits on it). The bundle's gate operations must fit a clock
 * (iWarp). */
static int fold_shared_receive(wb_func *f, wb_block *b, int i, int nusers, int group)
{
    wb_ins *r = &b->ins[i];
    unsigned gate = r->s[0].v, q = gate - WT_OPND_GATE;
    int v = (int)r->d.v;
    int users[WB_MNODE_OPS], nu = 0, last = -1;
    for (int j = i + 1; j < b->nins; j++) {
        if (reads_vreg(&b->ins[j], v)) {
            if (nu == WB_MNODE_OPS) return 0;
            users[nu++] = j;
            last = j;
        }
        if (wb_has_dest(b->ins[j].op) && wb_opnd_eq(b->ins[j].d, r->d)) break;
    }
    /* Users elsewhere (another block, the terminator) still read the register:
     * then the receive into it joins the bundle too. */
    int keep = nu != nusers || reads_vreg(&b->term, v);
    if (nu < (keep ? 1 : 2)) return 0;
    for (int j = i + 1; j <= last; j++)
        if (reads_gate(&b->ins[j], gate)) return 0;
    /* The users' results, and everything computed from them, must not reach
     * another user; no user may write what another (or anything in between that
     * a later user depends on) reads or writes, and memory and gates keep order:
     * so between the first and the last user only operations independent of the
     * earlier users may run. */
    uint8_t *tainted = ws_xcalloc((size_t)f->nvregs + 1, 1);
    int ok = 1, mem = 0;
    unsigned written = 0;   /* gates the users write: one write of each a bundle */
    int member[2 * WB_MNODE_OPS], nm = 0;   /* the users, and host feed or address writes among them */
    for (int j = users[0]; j <= last && ok; j++) {
        const wb_ins *x = &b->ins[j];
        int is_user = reads_vreg(x, v), dep = 0;
        for (int k = 0; k < wb_nsrc(x->op); k++)
            if (wb_is_vreg(x->s[k]) && tainted[x->s[k].v]) dep = 1;
        int touches_mem = x->op == WT_OP_LD || x->op == WT_OP_ST;
        int touches_gate = writes_gate(x) || reads_any_gate(x);
        /* every user reads the gate once folded: gate operations keep their order,
         * so none may come between the users, but for a host feed or address
         * write (part of a send or receive), which joins the bundle */
        if (!is_user && touches_gate) {
            int extra = !dep && !reads_any_gate(x) && !wt_opnd_is_gate(x->d.v) && nm < 2 * WB_MNODE_OPS - 1;
            if (extra) member[nm++] = j;
            else ok = 0;
        }
        if (is_user && nm < 2 * WB_MNODE_OPS) member[nm++] = j;
        if (is_user && (dep || (touches_mem && mem))) ok = 0;
        if (is_user || dep) {
            if (wb_has_dest(x->op) && wb_is_vreg(x->d)) tainted[x->d.v] = 1;
            mem |= touches_mem;
        }
        /* an operation in between that must follow an earlier user: it writes
         * what that user reads or writes, or touches memory after it (a later
         * user may depend on it, so the group could never issue) */
        if (!is_user && !dep) {
            for (int u = 0; u < nu && users[u] < j; u++) {
                const wb_ins *y = &b->ins[users[u]];
                if (wb_has_dest(x->op) && wb_is_vreg(x->d) &&
                    (reads_vreg(y, (int)x->d.v) || (wb_has_dest(y->op) && wb_opnd_eq(y->d, x->d))))
                    ok = 0;
                if (touches_mem && (y->op == WT_OP_LD || y->op == WT_OP_ST)) ok = 0;
            }
        }
        if (is_user && writes_gate(x)) {
            unsigned w = x->d.v;
            if (written >> (w - WT_OPND_GATE) & 1) ok = 0;
            written |= 1u << (w - WT_OPND_GATE);
            int toward = wt_opnd_is_gate(w) ? (int)(w - WT_OPND_GATE) >> 1
                       : wt_opnd_is_feed(w) ? (int)(w - WT_OPND_FEED) >> 1 : (int)(w - WT_OPND_ADDR) >> 1;
            if (toward == (int)(q >> 1)) ok = 0;
        }
    }
    free(tainted);
    for (int u = 0; u < nu && ok; u++)
        if (reads_gate(&b->ins[users[u]], gate)) ok = 0;
    /* One bundle must hold them all: slots per class (a copy takes a crossbar
     * move or an ALU), its two literal fields, no divide (its unit stays busy). */
    int used[WT_NUCLASSES] = {0}, copies = keep, nlit = 0;
    wb_opnd lits[3 * WB_MNODE_OPS];
    for (int u = 0; u < nm && ok; u++) {
        const wb_ins *x = &b->ins[member[u]];
        if (x->op == WB_COPY) copies++;
        else if (wt_ops[x->op].interval[f->model->id] > 1 || wb_is_term_op(x->op)) ok = 0;
        else used[wt_ops[x->op].uclass]++;
        for (int k = 0; k < wb_nsrc(x->op); k++) {
            if (!wb_is_lit(x->s[k])) continue;
            int seen = 0;
            for (int j = 0; j < nlit; j++) seen |= wb_lit_eq(lits[j], x->s[k]);
            if (!seen) lits[nlit++] = x->s[k];
        }
    }
    for (int c = 1; c < WT_NUCLASSES && ok; c++)
        if (used[c] > (int)wt_class_slots((wt_unit_class)c)) ok = 0;
    int spare = (int)wt_class_slots(WT_UC_MV) - used[WT_UC_MV] + (int)wt_class_slots(WT_UC_ALU) - used[WT_UC_ALU];
    if (copies > spare || nlit > 2) ok = 0;
    unsigned per_clock = f->model->gate_ops_per_clock;
    if (ok && per_clock) {
        unsigned reads = 1u << q;
        int writes = 0;
        for (int u = 0; u < nm; u++) {
            const wb_ins *x = &b->ins[member[u]];
            for (int k = 0; k < wb_nsrc(x->op); k++)
                if (x->s[k].kind == WB_O_REG && wt_opnd_is_gate(x->s[k].v)) reads |= 1u << (x->s[k].v - WT_OPND_GATE);
            writes += writes_gate(x);   /* as the list scheduler counts them */
        }
        if (writes + __builtin_popcount(reads) > (int)per_clock) ok = 0;
    }
    if (!ok) return 0;
    for (int u = 0; u < nm; u++) {
        wb_ins *x = &b->ins[member[u]];
        for (int k = 0; k < wb_nsrc(x->op); k++)
            if (wb_opnd_eq(x->s[k], r->d)) x->s[k] = r->s[0];
        x->bundle_with = group;
    }
    if (keep) r->bundle_with = group;
    else r->op = WT_OP_NONE;
    return 1;
}

static void fold_receives(wb_func *f, wb_block *b, int id, const use_info *u, int *groups)
{
    for (int i = 0; i < b->nins; i++) {
        wb_ins *r = &b->ins[i];
        if (r->op != WB_COPY || r->s[0].kind != WB_O_REG || !wt_opnd_is_gate(r->s[0].v) || !wb_is_vreg(r->d))
            continue;
        const use_info *x = &u[r->d.v];
        if (x->ndefs == 1 && (x->nusers > 1 || x->use_block != id)) {
            if (fold_shared_receive(f, b, i, x->nusers, *groups + 1)) ++*groups;
            continue;
        }
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
    int groups = 0;
    for (int id = 0; id < f->nblocks; id++) fold_receives(f, f->blocks[id], id, u, &groups);
    free(u);
    /* Receives folded into sends changed who uses what: count again. */
    u = count_uses(f);
    for (int id = 0; id < f->nblocks; id++) fold_sends(f->blocks[id], id, u);
    free(u);
    for (int id = 0; id < f->nblocks; id++) compact(f, f->blocks[id]);
}
