/* Software pipelining: the dependence graph of the body (values, memory order and
 * the gate rules that keep the array free of deadlock) and the bounds on II it
 * gives. */
#include "swp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

gate_use swp_gates_of(const wb_ins *in)
{
    gate_use g = {0, -1};
    for (int k = 0; k < wb_nsrc(in->op); k++)
        if (is_gate_read(in->s[k])) g.reads |= 1u << (in->s[k].v - WT_OPND_GATE);
    if (writes_gate_like(in)) g.wcode = (int)in->d.v;
    return g;
}

/* The side (0 left, 1 right) a written code faces; -1 if none. */
static int write_side(int code)
{
    if (code < 0) return -1;
    int q = wt_opnd_is_gate((unsigned)code) ? code - WT_OPND_GATE
          : wt_opnd_is_feed((unsigned)code) ? code - WT_OPND_FEED : code - WT_OPND_ADDR;
    return q >> 1;
}

static unsigned side_reads(unsigned reads, int side) { return reads & (side ? 0xcu : 0x3u); }

static void edge(gbuild *b, int from, int to, int lat, int dist)
{
    if (from == to && lat - dist <= 0 && dist > 0) return;   /* never binds at II >= 1 */
    if (b->g.ne == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 64;
        b->g.edge = ws_xrealloc(b->g.edge, sizeof *b->g.edge * (size_t)b->cap);
        b->mem = ws_xrealloc(b->mem, sizeof *b->mem * (size_t)b->cap);
    }
    b->mem[b->g.ne][0] = b->mem[b->g.ne][1] = -1;
    b->g.edge[b->g.ne++] = (wb_medge){from, to, lat, dist};
}

static void mem_edge(gbuild *b, int from, int to, int lat, int dist, int op_from, int op_to)
{
    int ne = b->g.ne;
    edge(b, from, to, lat, dist);
    if (b->g.ne > ne) {
        b->mem[ne][0] = op_from;
        b->mem[ne][1] = op_to;
    }
}

static int op_latency(const loop *L, const wb_ins *in) { return wb_latency(L->f, in->op); }

/* Ordering of two operations a before b (program order) of one iteration, and of
 * b before a of the next. */
static void order_pair(loop *L, gbuild *B, const bop *x, const bop *y)
{
    const wb_ins *a = &x->in, *b = &y->in;
    gate_use ga = swp_gates_of(a), gb = swp_gates_of(b);
    int la = op_latency(L, a), lb = op_latency(L, b);
    int na = x->node, nb = y->node;
    /* the same queue read twice */
    if (ga.reads & gb.reads) {
        edge(B, na, nb, 1, 0);
        edge(B, nb, na, 1, 1);
    }
    /* the same gate written twice: in order of completion */
    if (ga.wcode >= 0 && ga.wcode == gb.wcode) {
        edge(B, na, nb, la - lb + 1 > 1 ? la - lb + 1 : 1, 0);
        edge(B, nb, na, lb - la + 1 > 1 ? lb - la + 1 : 1, 1);
    }
    /* a host feed completes before the read it feeds; the feed of the next
     * iteration may run ahead (the queue keeps order) */
    if (ga.wcode >= 0 && wt_opnd_is_feed((unsigned)ga.wcode) && (gb.reads >> (ga.wcode - WT_OPND_FEED) & 1))
        edge(B, na, nb, la, 0);
    if (gb.wcode >= 0 && wt_opnd_is_feed((unsigned)gb.wcode) && (ga.reads >> (gb.wcode - WT_OPND_FEED) & 1))
        edge(B, nb, na, lb, 1);
    /* a receive strictly after the sends toward its side that preceded it */
    int sa = write_side(ga.wcode), sb = write_side(gb.wcode);
    if (sa >= 0 && side_reads(gb.reads, sa)) edge(B, na, nb, 1, 0);
    if (sb >= 0 && side_reads(ga.reads, sb)) edge(B, nb, na, 1, 1);
    /* memory */
    int ma = a->op == WT_OP_LD ? 1 : a->op == WT_OP_ST ? 2 : 0;
    int mb = b->op == WT_OP_LD ? 1 : b->op == WT_OP_ST ? 2 : 0;
    if (ma && mb && (ma == 2 || mb == 2) && (a->memobj == 0 || b->memobj == 0 || a->memobj == b->memobj)) {
        int ab = ma == 2 && mb == 1 ? la : ma == 2 && mb == 2 ? 1 : 0;
        int ba = mb == 2 && ma == 1 ? lb : mb == 2 && ma == 2 ? 1 : 0;
        /* Affine addresses: only the iterations whose words coincide are ordered
         * (c[i] loaded and stored again is no recurrence across iterations);
         * x[j] and x[j+h] are apart by h/step iterations, checked on entry to
         * be more than the loop runs. */
        wb_dep dep = {.kind = WB_DEP_UNKNOWN};
        int ix = (int)(x - L->op), iy = (int)(y - L->op);
        if (x->has_addr && y->has_addr && L->ctr_v && (x->addr.p || y->addr.p)) {
            /* through the stepped counter: program order within an iteration,
             * and y before x of the iterations at the distances it allows */
            dep = wb_counter_dependence(&y->addr, &x->addr, &L->ctr, L->ctr_want);
            mem_edge(B, na, nb, ab, 0, ix, iy);
            if (dep.kind == WB_DEP_UNKNOWN) {
                mem_edge(B, nb, na, ba, 1, iy, ix);
                return;
            }
            if (L->ctr.g.nterm) {
                L->ctr_used = 1;
                if (dep.gmin > L->ctr_gmin) L->ctr_gmin = dep.gmin;
            }
            if (dep.kind == WB_DEP_AT) mem_edge(B, nb, na, ba, dep.dist, iy, ix);
            return;
        }
        if (x->has_addr && y->has_addr) dep = wb_mem_dependence(&x->addr, &y->addr);
        if (dep.kind == WB_DEP_CHECK && !swp_add_check(L, &dep)) dep.kind = WB_DEP_UNKNOWN;
        if (dep.kind == WB_DEP_AT && dep.dist >= 0) {
            mem_edge(B, na, nb, ab, dep.dist, ix, iy);
        } else if (dep.kind == WB_DEP_AT) {
            mem_edge(B, nb, na, ba, -dep.dist, iy, ix);
        } else if (dep.kind == WB_DEP_UNKNOWN) {
            mem_edge(B, na, nb, ab, 0, ix, iy);
            mem_edge(B, nb, na, ba, 1, iy, ix);
        }
    }
}
int swp_graph_mii(const gbuild *B)
{
    const char *bound;
    int res = wb_res_mii(&B->g, &bound), rec = wb_rec_mii(&B->g);
    return rec > res ? rec : res;
}

/* The graph of the live operations: one node per op, or per group of fused users. */
void swp_build_graph(loop *L, gbuild *B)
{
    free(B->g.node);
    free(B->g.edge);
    free(B->mem);
    memset(B, 0, sizeof *B);
    int n = 0;
    for (int i = 0; i < L->nop; i++) {
        bop *x = &L->op[i];
        if (!x->live) continue;
        x->node = x->group == i ? n++ : L->op[x->group].node;
    }
    B->g.model = L->f->model;
    B->g.n = n;
    L->ctr_used = 0;
    L->ctr_gmin = 0;
    B->g.node = ws_xcalloc((size_t)n + 1, sizeof *B->g.node);
    for (int i = 0; i < L->nop; i++) {
        bop *x = &L->op[i];
        if (!x->live) continue;
        wb_mnode *m = &B->g.node[x->node];
        if (m->nops == 0) m->no_value = 1;
        if (wb_has_dest(x->in.op) && wb_is_vreg(x->in.d)) m->no_value = 0;
        wt_op choices[WT_MAX_ALTS];
        unsigned nc = wb_mop_choices(x->in.op, 0, choices);
        m->iu |= (unsigned)(x->in.iu != 0) << m->nops;
        m->link += wb_iu_feeds(&x->in);
        m->op[m->nops] = choices[0];
        m->alt[m->nops++] = nc > 1 ? choices[1] : WT_OP_NONE;   /* the modulo scheduler tries one */
        for (int k = 0; k < wb_nsrc(x->in.op); k++) {
            wb_opnd s = x->in.s[k];
            int have = !wb_is_lit(s);
            for (int j = 0; j < m->nlit && !have; j++) have = wb_lit_eq(m->lit[j], s);
            if (!have && m->nlit < 2 * WB_MNODE_OPS) m->lit[m->nlit++] = s;
        }
    }
    /* Gate operations per node, as a bundle counts them */
    for (int nd = 0; nd < n; nd++) {
        wt_bundle_use use = {0};
        for (int i = 0; i < L->nop; i++)
            if (L->op[i].live && L->op[i].node == nd) wb_add_gate_ops(&use, &L->op[i].in);
        B->g.node[nd].gate_ops = (int)wt_bundle_gate_ops(&use);
        B->g.node[nd].gate_buses = use.gates_read | (unsigned)use.gates_written << 8;
    }
    for (int j = 0; j < L->nop; j++) {
        const bop *y = &L->op[j];
        if (!y->live) continue;
        for (int k = 0; k < wb_nsrc(y->in.op); k++) {
            wb_opnd s = y->in.s[k];
            if (!is_body_value(L, s)) continue;
            const bop *x = &L->op[L->def[s.v]];
            if (x->node == y->node && y->dist[k] == 0) continue;
            edge(B, x->node, y->node, op_latency(L, &x->in), y->dist[k]);
        }
    }
    for (int i = 0; i < L->nop; i++)
        for (int j = i + 1; j < L->nop; j++)
            if (L->op[i].live && L->op[j].live && L->op[i].node != L->op[j].node)
                order_pair(L, B, &L->op[i], &L->op[j]);
    /* A reload issues just before the op it feeds, so that it holds a register
     * for as short a time as it can. */
    for (int i = 0; i < L->nop; i++) {
        const bop *x = &L->op[i];
        if (x->live && x->reload_for >= 0)
            edge(B, L->op[x->reload_for].node, x->node, -(op_latency(L, &x->in) + 1), 0);
    }
}

/* The least distance the stepped counter's memory dependences are given: the
 * smallest at which they no longer keep RecMII above ResMII. Each costs an
 * entry check (g >= a bound that grows with it; else the original loop runs),
 * so no larger than that. */
void swp_counter_distance(loop *L, gbuild *B)
{
    enum { MAX_WANT = 16 };
    L->ctr_want = 1;
    if (!L->ctr_v || B->g.n == 0) return;
    const char *bound;
    int res = wb_res_mii(&B->g, &bound), best = wb_rec_mii(&B->g), best_want = 1;
    for (int want = 2; want <= MAX_WANT && best > res; want++) {
        L->ctr_want = want;
        swp_build_graph(L, B);
        int rec = wb_rec_mii(&B->g);
        if (rec < best) {
            best = rec;
            best_want = want;
        }
    }
    if (L->ctr_want != best_want) {
        L->ctr_want = best_want;
        swp_build_graph(L, B);
    }
}

/* The memory edges that set RecMII: those without which it would be smaller
 * (a load and a store that may touch one word, d iterations apart). */
void swp_memory_bounds(loop *L, gbuild *B, int rec_mii)
{
    if (rec_mii <= 0) return;
    for (int e = 0; e < B->g.ne && L->nmemnote < MAX_MEMNOTES; e++) {
        if (B->mem[e][0] < 0) continue;
        int lat = B->g.edge[e].lat;
        B->g.edge[e].lat = -(1 << 20);
        int without = wb_rec_mii(&B->g);
        B->g.edge[e].lat = lat;
        if (without >= rec_mii) continue;
        const wb_ins *a = &L->op[B->mem[e][0]].in, *b = &L->op[B->mem[e][1]].in;
        snprintf(L->memnote[L->nmemnote++], sizeof L->memnote[0], "%s (line %u) -> %s (line %u) at distance %d",
                 wt_ops[a->op].name, a->line, wt_ops[b->op].name, b->line, B->g.edge[e].dist);
    }
}

/* The operations of the cycle that sets RecMII, in order, and what carries it
 * to the next iteration: the reason a loop runs above ResMII. */
void swp_recurrence_note(loop *L, const gbuild *B, int rec_mii)
{
    enum { MAX_SHOWN = 8 };
    int edges[MAX_BODY + 1];
    int n = wb_rec_cycle(&B->g, rec_mii, edges, MAX_BODY + 1);
    if (n == 0) return;
    ws_buf c = {0};
    int shown = 0;
    for (int k = 0; k < n; k++) {
        int e = edges[k], node = B->g.edge[e].to, from = B->g.edge[e].from;
        /* a node of several operations (users of one gate read): the one the
         * edge reaches, by memory or by a value of the node it leaves */
        const wb_ins *in = B->mem[e][1] >= 0 ? &L->op[B->mem[e][1]].in : NULL;
        for (int i = 0; i < L->nop && !in; i++) {
            const bop *y = &L->op[i];
            for (int q = 0; y->live && y->node == node && q < wb_nsrc(y->in.op) && !in; q++)
                if (is_body_value(L, y->in.s[q]) && L->op[L->def[y->in.s[q].v]].node == from) in = &y->in;
        }
        for (int i = 0; i < L->nop && !in; i++)
            if (L->op[i].live && L->op[i].node == node) in = &L->op[i].in;
        if (!in) continue;
        if (k == n - 1 || shown < MAX_SHOWN)
            ws_buf_printf(&c, "%s%s (line %u)", shown ? " -> " : "", in->op == WB_COPY ? "copy" : wt_ops[in->op].name, in->line);
        else if (shown == MAX_SHOWN)
            ws_buf_puts(&c, " -> ...");
        shown++;
    }
    const wb_medge *back = &B->g.edge[edges[0]];
    const char *how = "by the order of gate operations";
    if (B->mem[edges[0]][0] >= 0) how = "through memory";
    for (int i = 0; i < L->nop; i++) {
        const bop *x = &L->op[i];
        if (!x->live || x->node != back->from || !wb_has_dest(x->in.op) || !is_body_value(L, x->in.d)) continue;
        for (int j = 0; j < L->nop; j++)
            for (int k = 0; L->op[j].live && L->op[j].node == back->to && k < wb_nsrc(L->op[j].in.op); k++)
                if (L->op[j].dist[k] > 0 && wb_opnd_eq(L->op[j].in.s[k], x->in.d)) how = "in a register";
    }
    ws_buf_printf(&c, " -> the first again %d iteration%s later, %s", back->dist, back->dist == 1 ? "" : "s", how);
    snprintf(L->recnote, sizeof L->recnote, "%s", c.data ? c.data : "");
    ws_buf_free(&c);
}
