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

/* The receive r folded into user, or the send s into the operation that computes
 * its word, keeps its statement's position for the flow-control diagnostics. */
static void keep_receive_position(wb_ins *user, int k, const wb_ins *r)
{
    user->recv_line[k] = r->recv_line[0] ? r->recv_line[0] : r->line;
    user->recv_col[k] = r->recv_line[0] ? r->recv_col[0] : r->col;
}

static void keep_send_position(wb_ins *producer, const wb_ins *s)
{
    producer->send_line = s->send_line ? s->send_line : s->line;
    producer->send_col = s->send_line ? s->send_col : s->col;
}

/* Must x stay after y (a register it reads or writes, y writes or reads)? */
static int conflicts(const wb_ins *x, const wb_ins *y)
{
    if (wb_has_dest(x->op) && wb_is_vreg(x->d) &&
        (reads_vreg(y, (int)x->d.v) || (wb_has_dest(y->op) && wb_opnd_eq(y->d, x->d))))
        return 1;
    return wb_has_dest(y->op) && wb_is_vreg(y->d) && reads_vreg(x, (int)y->d.v);
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
/* Can the bundle take x (NULL: a copy without literals) in one of its units? Takes it. */
static int bundle_takes(const wb_func *f, wt_bundle_use *use, wb_opnd *lits, int *nlit, const wb_ins *x)
{
    wb_opnd added[3];
    int extra = x ? wb_new_literals(lits, *nlit, x, added) : 0;
    wt_op alts[WT_MAX_ALTS];
    unsigned n = wb_mop_choices(x ? x->op : WB_COPY, 1, alts);
    for (unsigned k = 0; k < n; k++)
        if (wt_bundle_fits(f->model, use, wt_ops[alts[k]].uclass, (unsigned)extra)) {
            wt_bundle_take(use, wt_ops[alts[k]].uclass, (unsigned)extra);
            for (int j = 0; j < extra; j++) lits[(*nlit)++] = added[j];
            return 1;
        }
    return 0;
}

/* Moves up to just after the receive at i the users of its word that can go
 * there: ones that touch no gate and no memory, and neither read what the
 * operations they pass write nor write what those read or write. Then they can
 * read the word from the gate in the receive's own place in the gate order. */
static void hoist_users(wb_block *b, int i, int v)
{
    int to = i + 1;
    for (int j = i + 1; j < b->nins; j++) {
        wb_ins *u = &b->ins[j];
        if (wb_has_dest(u->op) && wb_is_vreg(u->d) && (int)u->d.v == v) break;
        if (!reads_vreg(u, v) || j == to) {
            if (j == to && reads_vreg(u, v)) to++;
            continue;
        }
        int ok = !writes_gate(u) && !reads_any_gate(u) && u->op != WT_OP_LD && u->op != WT_OP_ST &&
                 u->op != WT_OP_HLD && !wb_is_term_op(u->op) && !u->bundle_with;
        for (int k = to; k < j && ok; k++) {
            const wb_ins *x = &b->ins[k];
            if (x->bundle_with) ok = 0;   /* another bundle group stays as it is */
            if (wb_has_dest(x->op) && wb_is_vreg(x->d) && reads_vreg(u, (int)x->d.v)) ok = 0;
            if (wb_has_dest(u->op) && wb_is_vreg(u->d) &&
                (reads_vreg(x, (int)u->d.v) || (wb_has_dest(x->op) && wb_opnd_eq(x->d, u->d))))
                ok = 0;
        }
        if (!ok) continue;
        wb_ins moved = *u;
        memmove(&b->ins[to + 1], &b->ins[to], sizeof *b->ins * (size_t)(j - to));
        b->ins[to++] = moved;
    }
}

static int fold_shared_receive(wb_func *f, wb_block *b, int i, int nusers, int group)
{
    hoist_users(b, i, (int)b->ins[i].d.v);
    wb_ins *r = &b->ins[i];
    unsigned gate = r->s[0].v, q = gate - WT_OPND_GATE;
    int v = (int)r->d.v;
    int users[WB_MNODE_OPS], nu = 0, all = 0, last = -1;
    for (int j = i + 1; j < b->nins; j++) {
        if (reads_vreg(&b->ins[j], v)) {
            all++;
            if (nu < WB_MNODE_OPS) users[nu++] = j;
        }
        if (wb_has_dest(b->ins[j].op) && wb_opnd_eq(b->ins[j].d, r->d)) break;
    }
    if (nu == 0) return 0;
    /* another read of the queue before the first user would take the word */
    for (int j = i + 1; j < users[0]; j++)
        if (reads_gate(&b->ins[j], gate)) return 0;
    /* The users that can issue together, from the first on: the group stops at
     * the first operation that would have to come between them. None may depend
     * on another (through anything between them), none may read that queue itself,
     * nothing between may read it; gate operations keep their order, so none may
     * come between them but for a host feed or address write (part of a send or
     * receive), which joins the bundle; memory order likewise; a user that sends
     * passes the word on (toward the other side: a bundle that also sends back the
     * way the word came could wait on a full queue whose reader waits on it). */
    uint8_t *tainted = ws_xcalloc((size_t)f->nvregs + 1, 1);
    /* what follows a member without being one: it must come after the group's
     * start, so a user that has to follow it cannot join */
    int *after = ws_xmalloc(sizeof *after * (size_t)b->nins), nafter = 0, stored = 0;
    int mem = 0, cut = b->nins, ng = 0;
    unsigned written = 0;   /* gates the users write: one write of each a bundle */
    int member[2 * WB_MNODE_OPS], nm = 0;   /* the users, and host feed or address writes among them */
    for (int j = users[0]; j < b->nins && j <= users[nu - 1] && cut == b->nins; j++) {
        const wb_ins *x = &b->ins[j];
        int is_user = reads_vreg(x, v), dep = 0, stop = 0;
        for (int k = 0; k < wb_nsrc(x->op); k++)
            if (wb_is_vreg(x->s[k]) && tainted[x->s[k].v]) dep = 1;
        int touches_mem = x->op == WT_OP_LD || x->op == WT_OP_ST;
        int touches_gate = writes_gate(x) || reads_any_gate(x);
        /* Memory and register order tie it to the chain too: a load after a store
         * of the chain, a store after any access, a write of what the chain reads. */
        if (!is_user && touches_mem && ((mem && x->op == WT_OP_ST) || stored)) dep = 1;
        for (int a = 0; a < nafter && !dep; a++)
            if (conflicts(x, &b->ins[after[a]])) {
                if (is_user) stop = 1;
                else dep = 1;
            }
        if (reads_gate(x, gate)) stop = 1;
        if (!is_user && touches_gate && (dep || reads_any_gate(x) || wt_opnd_is_gate(x->d.v))) stop = 1;
        if (is_user && (dep || (touches_mem && mem))) stop = 1;
        if (!is_user && !dep)
            for (int u = 0; u < ng; u++) {
                const wb_ins *y = &b->ins[users[u]];
                if (wb_has_dest(x->op) && wb_is_vreg(x->d) &&
                    (reads_vreg(y, (int)x->d.v) || (wb_has_dest(y->op) && wb_opnd_eq(y->d, x->d))))
                    stop = 1;
                if (touches_mem && (y->op == WT_OP_LD || y->op == WT_OP_ST)) stop = 1;
            }
        if (is_user && writes_gate(x)) {
            unsigned w = x->d.v;
            int toward = wt_opnd_is_gate(w) ? (int)(w - WT_OPND_GATE) >> 1
                       : wt_opnd_is_feed(w) ? (int)(w - WT_OPND_FEED) >> 1 : (int)(w - WT_OPND_ADDR) >> 1;
            if ((written >> (w - WT_OPND_GATE) & 1) || toward == (int)(q >> 1)) stop = 1;
            written |= 1u << (w - WT_OPND_GATE);
        }
        if (stop || nm == 2 * WB_MNODE_OPS) {
            cut = j;
            break;
        }
        if (is_user || touches_gate) member[nm++] = j;
        if (is_user) ng++;
        if (is_user || dep) {
            if (wb_has_dest(x->op) && wb_is_vreg(x->d)) tainted[x->d.v] = 1;
            mem |= touches_mem;
            stored |= x->op == WT_OP_ST;
        }
        if (!is_user && dep) after[nafter++] = j;
    }
    free(after);
    free(tainted);
    /* host writes after the last user in the group stay where they are */
    while (nm && !reads_vreg(&b->ins[member[nm - 1]], v)) nm--;
    /* Users elsewhere (another block, the terminator, past the group) still read
     * the register: then the receive into it joins the bundle too. */
    int keep = all != nusers || ng < all || reads_vreg(&b->term, v);
    int ok = ng >= (keep ? 1 : 2);
    /* The receive that stays moves to the group's bundle: no gate operation
     * between it and the first user may then keep their order. */
    for (int j = i + 1; keep && ok && j < users[0]; j++)
        if (writes_gate(&b->ins[j]) || reads_any_gate(&b->ins[j])) ok = 0;
    nu = ng;
    last = nm ? member[nm - 1] : -1;
    (void)last;
    for (int u = 0; u < nu && ok; u++)
        if (reads_gate(&b->ins[users[u]], gate)) ok = 0;
    /* One bundle must hold them all by the resource model (slots, literal fields),
     * with no divide (its unit stays busy). Copies go last: they take whichever
     * of their units the others leave. */
    wt_bundle_use use = {0};
    wb_opnd lits[WT_BUNDLE_LITERALS];
    int nlit = 0;
    for (int u = 0; u < nm && ok; u++) {
        const wb_ins *x = &b->ins[member[u]];
        if (x->op != WB_COPY && (wt_ops[x->op].interval[f->model->id] > 1 || wb_is_term_op(x->op))) ok = 0;
    }
    for (int copies = 0; copies < 2 && ok; copies++)
        for (int u = copies ? -keep : 0; u < nm && ok; u++) {
            const wb_ins *x = u >= 0 ? &b->ins[member[u]] : NULL;   /* NULL: the receive that stays */
            if (!x || (x->op == WB_COPY) == copies) ok = bundle_takes(f, &use, lits, &nlit, x);
        }
    unsigned per_clock = f->model->gate_ops_per_clock;
    if (ok && per_clock) {
        unsigned reads = 1u << q;
        int writes = 0;
        for (int u = 0; u < nm; u++) {
            const wb_ins *x = &b->ins[member[u]];
            for (int k = 0; k < wb_nsrc(x->op); k++)
                if (x->s[k].kind == WB_O_REG && wt_opnd_is_gate(x->s[k].v)) reads |= 1u << (x->s[k].v - WT_OPND_GATE);
            /* feed and address writes too, unlike a bundle's gate operations (target/):
             * the group issues in one bundle, and a host feed must complete before the
             * read it feeds, which a shared bundle cannot give; without them
             * polynomial.w2 at -mcpu=iwarp -O2 forms a group sched.c cannot place */
            writes += writes_gate(x);
        }
        if (writes + __builtin_popcount(reads) > (int)per_clock) ok = 0;
    }
    /* Groups of one block must not interleave: each issues as one, and two that
     * overlap in program order could each wait for the other. */
    if (!ok || nm == 0) return 0;
    int lo = keep ? i : member[0], hi = member[nm - 1];
    for (int j = 0; ok && j < b->nins; j++) {
        int g = b->ins[j].bundle_with, first = j, end = j;
        if (!g) continue;
        for (int k = j + 1; k < b->nins; k++)
            if (b->ins[k].bundle_with == g) end = k;
        for (int k = 0; k < first; k++)
            if (b->ins[k].bundle_with == g) first = k;
        if (first <= hi && lo <= end) ok = 0;
    }
    if (!ok) return 0;
    for (int u = 0; u < nm; u++) {
        wb_ins *x = &b->ins[member[u]];
        for (int k = 0; k < wb_nsrc(x->op); k++)
            if (wb_opnd_eq(x->s[k], r->d)) {
                x->s[k] = r->s[0];
                keep_receive_position(x, k, r);
            }
        x->bundle_with = group;
    }
    if (keep) r->bundle_with = group;
    else r->op = WT_OP_NONE;
    return 1;
}

/* Does the operation at j stand between two operations of a bundle group it is
 * not part of? */
static int splits_group(const wb_block *b, int j)
{
    for (int a = 0; a < j; a++) {
        int g = b->ins[a].bundle_with;
        if (!g || g == b->ins[j].bundle_with) continue;
        for (int c = j + 1; c < b->nins; c++)
            if (b->ins[c].bundle_with == g) return 1;
    }
    return 0;
}

static void fold_receives(wb_func *f, wb_block *b, int id, const use_info *u, int *groups)
{
    for (int i = 0; i < b->nins; i++) {
        wb_ins *r = &b->ins[i];
        if (r->op != WB_COPY || r->s[0].kind != WB_O_REG || !wt_opnd_is_gate(r->s[0].v) || !wb_is_vreg(r->d))
            continue;
        const use_info *x = &u[r->d.v];
        if (x->ndefs > 1 || x->nusers > 1 || x->use_block != id) {
            /* defined elsewhere too: the register stays, and so does the receive */
            if (fold_shared_receive(f, b, i, x->ndefs == 1 ? x->nusers : -1, *groups + 1)) ++*groups;
            continue;
        }
        if (x->ndefs != 1 || x->nusers != 1 || x->use_block != id) continue;
        /* the user's place, found again: moving users (hoist_users) renumbers */
        int j = i + 1;
        while (j < b->nins && !reads_vreg(&b->ins[j], (int)r->d.v)) j++;
        if (j == b->nins && !reads_vreg(&b->term, (int)r->d.v)) continue;
        wb_ins *user = j == b->nins ? &b->term : &b->ins[j];
        unsigned gate = r->s[0].v;
        /* One read per queue per operation: two of them would see the same word. */
        if (reads_gate(user, gate)) continue;
        /* A user between two operations of another word's bundle group would put
         * the read inside that group: the group would wait for it, and it for the
         * group's earlier gate operations (`receive x; receive y; send x; use y,
         * then x`: the send and the use of x issue as one). */
        if (j < b->nins && splits_group(b, j)) continue;
        int clash = 0;
        for (int k = i + 1; k < j && !clash; k++) clash = reads_gate(&b->ins[k], gate);
        if (clash) continue;
        for (int k = 0; k < wb_nsrc(user->op); k++)
            if (wb_opnd_eq(user->s[k], r->d)) {
                user->s[k] = r->s[0];
                keep_receive_position(user, k, r);
            }
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

/* Is position k between two operations of one bundle group (a gate operation
 * there would have to come both after and before the group)? */
static int inside_group(const wb_block *b, int k)
{
    for (int a = 0; a < k; a++) {
        int g = b->ins[a].bundle_with;
        if (!g) continue;
        for (int c = k; c < b->nins; c++)
            if (b->ins[c].bundle_with == g) return 1;
    }
    return 0;
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
        if (p->op == WT_OP_NONE || !wb_opnd_eq(p->d, s->s[0]) || p->bundle_with) continue;
        if (sinkable(b, i, j) && !inside_group(b, j)) {
            wb_ins moved = *p;
            moved.d = s->d;
            moved.dbg = s->dbg;   /* p's own events stay with p, which goes */
            keep_send_position(&moved, s);
            *s = moved;
            p->op = WT_OP_NONE;
            continue;
        }
        int clash = 0;
        for (int k = i + 1; k < j && !clash; k++) {
            const wb_ins *in = &b->ins[k];
            clash = reads_any_gate(in) || (writes_gate(in) && (!wt_opnd_is_addr(in->d.v) || in->d.v == s->d.v));
        }
        if (clash || inside_group(b, i)) continue;
        p->d = s->d;
        keep_send_position(p, s);
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
