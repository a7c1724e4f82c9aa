/* The Warp's three-way split (seed 002, sections 4.2 and 4.7): the host's reads into
 * the array, the host addresses of its results and the data-independent sums that
 * only they need go to the interface unit; the cells keep the rest.
 *
 * The IU runs in lockstep with the cells' schedule: its operations issue after `||`
 * in the bundle of the cells' program where the scheduler put them
 * (docs/design.md, section 1, "The interface unit"), on units of their own, with
 * registers of their own. So no value may cross between the two: an operation goes
 * to the IU only if every value it reads is made there (or is a literal) and every
 * value it makes is read there. The largest such set is found by demoting, from all
 * the operations the IU can do, every one that reads a cell value or whose value a
 * cell reads, until nothing changes.
 *
 * What the IU does not take, chosen where the seed is silent:
 *  - a constant fed to the host side (`receive (L, Y, y, 0.0)`): the end cell makes
 *    it itself, so that the IU link's one word a cycle carries the host's data only;
 *  - divisions (a division by zero must name the cell's line), and everything in a
 *    function that calls another (the IU's registers are not saved across calls). */
#include "mir.h"

#include <stdlib.h>
#include <string.h>

int wb_iu_feeds(const wb_ins *in) { return in->iu && in->d.kind == WB_O_REG && wt_opnd_is_feed(in->d.v); }

static int iu_source(wb_opnd o) { return o.kind == WB_O_VREG || wb_is_lit(o) || (o.kind == WB_O_REG && o.v == 0); }

/* Could the IU do this operation, were its sources made there? */
static int candidate(const wb_ins *in)
{
    int op = in->op;
    if (op == WT_OP_NONE) return 0;
    /* A host address between two readers of one received word joins their bundle
     * to keep its place among the gate writes (gates.c); the IU issues it there, in
     * the same bundle, after `||`. */
    if (in->bundle_with && !(in->d.kind == WB_O_REG && wt_opnd_is_addr(in->d.v))) return 0;
    if (op != WB_COPY) {
        const wt_op_info *info = &wt_ops[op];
        int alu = info->uclass == WT_UC_ALU && info->kind == WT_K_PURE;
        if (!alu && op != WT_OP_MV && op != WT_OP_LEA && op != WT_OP_HLD) return 0;
    }
    if (!wb_has_dest(op)) return 0;
    if (in->d.kind == WB_O_REG) {
        if (wt_opnd_is_addr(in->d.v) || wt_opnd_is_path(in->d.v)) {
            /* a host address, or a word for the cells (only the IU writes the path) */
        } else if (!(wt_opnd_is_feed(in->d.v) && op == WT_OP_HLD)) {
            return 0;
        }
    } else if (in->d.kind != WB_O_VREG) {
        return 0;
    }
    for (int k = 0; k < wb_nsrc(op); k++)
        if (!iu_source(in->s[k])) return 0;
    return 1;
}

typedef struct split {
    wb_ins **ins;
    uint8_t *fixed, *iu;
    int *blk, *idx;       /* where each operation is: block id, index (nins: the terminator) */
    int n, calls;
    int *def_first, *def_list, *use_first, *use_list;   /* per vreg: the operations, CSR */
    uint8_t *cell_def, *cell_use;                         /* per vreg */
    int *work;                                            /* vregs, negated for cell_use */
    int nwork;
    int conflict;
} split;

static void mark_vreg(split *S, uint32_t v, int use)
{
    uint8_t *flag = use ? S->cell_use : S->cell_def;
    if (flag[v]) return;
    flag[v] = 1;
    S->work[S->nwork++] = use ? -(int)v : (int)v;
}

static void to_cells(split *S, int i)
{
    const wb_ins *in = S->ins[i];
    if (S->fixed[i] && S->iu[i]) S->conflict = 1;
    S->iu[i] = 0;
    if (wb_has_dest(in->op) && in->d.kind == WB_O_VREG) mark_vreg(S, in->d.v, 0);
    for (int k = 0; k < wb_nsrc(in->op); k++)
        if (in->s[k].kind == WB_O_VREG) mark_vreg(S, in->s[k].v, 1);
}

static int *csr(int nv, int n, wb_ins **ins, int defs, int **list_out)
{
    int *first = ws_xcalloc((size_t)nv + 2, sizeof *first);
    for (int pass = 0; pass < 2; pass++) {
        int *fill = NULL;
        if (pass) {
            for (int v = 0; v < nv; v++) first[v + 1] += first[v];
            *list_out = ws_xcalloc((size_t)first[nv] + 1, sizeof **list_out);
            fill = ws_xcalloc((size_t)nv + 1, sizeof *fill);
            memcpy(fill, first, sizeof *fill * (size_t)nv);
        }
        for (int i = 0; i < n; i++) {
            const wb_ins *in = ins[i];
            if (defs) {
                if (!wb_has_dest(in->op) || in->d.kind != WB_O_VREG) continue;
                if (pass) (*list_out)[fill[in->d.v]++] = i;
                else first[in->d.v + 1]++;
            } else {
                for (int k = 0; k < wb_nsrc(in->op); k++) {
                    if (in->s[k].kind != WB_O_VREG) continue;
                    if (pass) (*list_out)[fill[in->s[k].v]++] = i;
                    else first[in->s[k].v + 1]++;
                }
            }
        }
        free(fill);
    }
    return first;
}

static void gather(wb_func *f, split *S)
{
    int cap = 0;
    for (int id = 0; id < f->nblocks; id++) cap += f->blocks[id]->nins + 1;
    S->ins = ws_xcalloc((size_t)cap + 1, sizeof *S->ins);
    S->fixed = ws_xcalloc((size_t)cap + 1, 1);
    S->iu = ws_xcalloc((size_t)cap + 1, 1);
    S->blk = ws_xcalloc((size_t)cap + 1, sizeof *S->blk);
    S->idx = ws_xcalloc((size_t)cap + 1, sizeof *S->idx);
    for (int id = 0; id < f->nblocks; id++) {
        wb_block *b = f->blocks[id];
        for (int i = 0; i <= b->nins; i++) {
            wb_ins *in = i < b->nins ? &b->ins[i] : &b->term;
            if (in->op == WT_OP_NONE) continue;
            if (in->op == WT_OP_CALL) S->calls = 1;
            S->fixed[S->n] = (uint8_t)(b->fixed != 0);
            S->blk[S->n] = id;
            S->idx[S->n] = i;
            S->ins[S->n++] = in;
        }
    }
    int nv = f->nvregs;
    S->cell_def = ws_xcalloc((size_t)nv + 1, 1);
    S->cell_use = ws_xcalloc((size_t)nv + 1, 1);
    S->work = ws_xcalloc((size_t)2 * (size_t)nv + (size_t)S->n + 2, sizeof *S->work);
    S->def_first = csr(nv, S->n, S->ins, 1, &S->def_list);
    S->use_first = csr(nv, S->n, S->ins, 0, &S->use_list);
}

static void release(split *S)
{
    free(S->ins);
    free(S->fixed);
    free(S->iu);
    free(S->blk);
    free(S->idx);
    free(S->cell_def);
    free(S->cell_use);
    free(S->work);
    free(S->def_first);
    free(S->def_list);
    free(S->use_first);
    free(S->use_list);
}

typedef struct clone_at { int blk, idx; wb_ins in; } clone_at;

static int cmp_clone_at(const void *a, const void *b)
{
    const clone_at *x = a, *y = b;
    if (x->blk != y->blk) return x->blk < y->blk ? -1 : 1;
    return (x->idx < y->idx) - (x->idx > y->idx);   /* later first: inserting keeps earlier places */
}

/* A value the cells need and the IU needs as well (a loop's index: the cells test
 * it, the IU makes addresses of it) is made twice: the IU gets its own copies of
 * the operations that compute it, on values of its own. */
static void duplicate(wb_func *f)
{
    split S = {0};
    gather(f, &S);
    int nv = f->nvregs, n = S.n;
    if (S.calls || nv <= 1) {
        release(&S);
        return;
    }
    uint8_t *comp = ws_xcalloc((size_t)n + 1, 1), *reach = ws_xcalloc((size_t)n + 1, 1);
    uint8_t *noncomp = ws_xcalloc((size_t)nv + 1, 1), *need = ws_xcalloc((size_t)nv + 1, 1);
    int *work = S.work, nw = 0;
    /* Computable on the IU: a candidate whose sources are all computable (every definition). */
    for (int i = 0; i < n; i++) comp[i] = (uint8_t)candidate(S.ins[i]);
    for (int v = 1; v < nv; v++)
        if (S.def_first[v] == S.def_first[v + 1]) noncomp[v] = 1, work[nw++] = v;
    for (int i = 0; i < n; i++) {
        const wb_ins *in = S.ins[i];
        if (!comp[i] && wb_has_dest(in->op) && in->d.kind == WB_O_VREG && !noncomp[in->d.v])
            noncomp[in->d.v] = 1, work[nw++] = (int)in->d.v;
    }
    for (int id = 0; id < f->nblocks; id++)
        for (int e = 0; e < f->blocks[id]->nedges; e++)
            for (int k = 0; k < f->blocks[id]->edges[e].n; k++) {
                wb_opnd d = f->blocks[id]->edges[e].dst[k];
                if (d.kind == WB_O_VREG && !noncomp[d.v]) noncomp[d.v] = 1, work[nw++] = (int)d.v;
            }
    while (nw > 0) {
        int v = work[--nw];
        for (int j = S.use_first[v]; j < S.use_first[v + 1]; j++) {
            int u = S.use_list[j];
            if (!comp[u]) continue;
            comp[u] = 0;
            const wb_ins *in = S.ins[u];
            if (wb_has_dest(in->op) && in->d.kind == WB_O_VREG && !noncomp[in->d.v])
                noncomp[in->d.v] = 1, work[nw++] = (int)in->d.v;
        }
    }
    /* What the IU's host feeds and addresses need. */
    for (int i = 0; i < n; i++)
        if (comp[i] && S.ins[i]->d.kind == WB_O_REG) reach[i] = 1, work[nw++] = i;
    while (nw > 0) {
        const wb_ins *in = S.ins[work[--nw]];
        for (int k = 0; k < wb_nsrc(in->op); k++) {
            if (in->s[k].kind != WB_O_VREG) continue;
            uint32_t v = in->s[k].v;
            for (int j = S.def_first[v]; j < S.def_first[v + 1]; j++)
                if (!reach[S.def_list[j]]) reach[S.def_list[j]] = 1, work[nw++] = S.def_list[j];
        }
    }
    /* What the cells need: every source of their operations, and of the
     * operations that make those values. */
    for (int i = 0; i < n; i++) {
        if (reach[i]) continue;
        const wb_ins *in = S.ins[i];
        for (int k = 0; k < wb_nsrc(in->op); k++)
            if (in->s[k].kind == WB_O_VREG && !need[in->s[k].v]) need[in->s[k].v] = 1, work[nw++] = (int)in->s[k].v;
    }
    for (int id = 0; id < f->nblocks; id++)
        for (int e = 0; e < f->blocks[id]->nedges; e++)
            for (int k = 0; k < f->blocks[id]->edges[e].n; k++) {
                wb_opnd src = f->blocks[id]->edges[e].src[k];
                if (src.kind == WB_O_VREG && !need[src.v]) need[src.v] = 1, work[nw++] = (int)src.v;
            }
    while (nw > 0) {
        int v = work[--nw];
        for (int j = S.def_first[v]; j < S.def_first[v + 1]; j++) {
            const wb_ins *in = S.ins[S.def_list[j]];
            if (!reach[S.def_list[j]]) continue;
            for (int k = 0; k < wb_nsrc(in->op); k++)
                if (in->s[k].kind == WB_O_VREG && !need[in->s[k].v])
                    need[in->s[k].v] = 1, work[nw++] = (int)in->s[k].v;
        }
    }
    /* Both need it: the IU's own copy. */
    uint32_t *twin = ws_xcalloc((size_t)nv + 1, sizeof *twin);
    for (int v = 1; v < nv; v++) {
        if (!need[v]) continue;
        int both = 0;
        for (int j = S.def_first[v]; j < S.def_first[v + 1]; j++) both |= reach[S.def_list[j]];
        if (both) twin[v] = (uint32_t)wb_new_vreg(f, 0);
    }
    clone_at *clones = NULL;
    size_t nclones = 0, ccap = 0;
    for (int i = 0; i < n; i++) {
        if (!reach[i]) continue;
        wb_ins *in = S.ins[i];
        int defines_twin = wb_has_dest(in->op) && in->d.kind == WB_O_VREG && twin[in->d.v];
        wb_ins copy = *in;
        for (int k = 0; k < wb_nsrc(in->op); k++)
            if (copy.s[k].kind == WB_O_VREG && twin[copy.s[k].v]) copy.s[k] = wb_vreg((int)twin[copy.s[k].v]);
        if (!defines_twin) {
            *in = copy;   /* the IU's alone: it reads the IU's copies */
            continue;
        }
        copy.d = wb_vreg((int)twin[in->d.v]);
        copy.dbg = 0;
        ws_grow(&clones, &ccap, nclones + 1, sizeof *clones);
        clones[nclones++] = (clone_at){S.blk[i], S.idx[i], copy};
    }
    if (nclones > 1) qsort(clones, nclones, sizeof *clones, cmp_clone_at);   /* qsort wants a non-null array even for none */
    for (size_t c = 0; c < nclones; c++) wb_insert(f, clones[c].blk, clones[c].idx + 1, &clones[c].in);
    free(clones);
    free(twin);
    free(comp);
    free(reach);
    free(noncomp);
    free(need);
    release(&S);
}

int wb_split_iu(wb_func *f, int twins)
{
    if (f->model->id != WT_MODEL_WARP) return 0;
    if (twins) duplicate(f);
    split S = {0};
    gather(f, &S);
    int nv = f->nvregs;
    for (int i = 0; i < S.n; i++)
        S.iu[i] = S.fixed[i] ? S.ins[i]->iu : (uint8_t)(!S.calls && candidate(S.ins[i]));
    for (int id = 0; id < f->nblocks; id++)
        for (int e = 0; e < f->blocks[id]->nedges; e++) {
            const wb_edge *E = &f->blocks[id]->edges[e];
            for (int k = 0; k < E->n; k++) {
                if (E->dst[k].kind == WB_O_VREG) mark_vreg(&S, E->dst[k].v, 0);
                if (E->src[k].kind == WB_O_VREG) mark_vreg(&S, E->src[k].v, 1);
            }
        }
    for (int i = 0; i < S.n; i++)
        if (!S.iu[i]) to_cells(&S, i);
    while (S.nwork > 0) {
        int w = S.work[--S.nwork];
        /* A cell value: its IU readers go to the cells. A value a cell reads: so do its IU makers. */
        int v = w < 0 ? -w : w;
        const int *first = w < 0 ? S.def_first : S.use_first, *list = w < 0 ? S.def_list : S.use_list;
        for (int j = first[v]; j < first[v + 1]; j++)
            if (S.iu[list[j]]) to_cells(&S, list[j]);
    }
    for (int v = 0; v < nv && f->vflags; v++) f->vflags[v] &= (uint8_t)~WB_V_IU;
    for (int i = 0; i < S.n; i++) {
        wb_ins *in = S.ins[i];
        in->iu = S.iu[i];
        if (in->iu && wb_has_dest(in->op) && in->d.kind == WB_O_VREG) f->vflags[in->d.v] |= WB_V_IU;
    }
    int rc = S.conflict ? -1 : 0;
    release(&S);
    return rc;
}
