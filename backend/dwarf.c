/* DWARF for -g (docs/design.md, section 5), in the GNU convention: the compiler
 * writes .debug_abbrev, .debug_info and .debug_loc as data directives, and leaves
 * .debug_line to the assembler, which makes it from the `.loc` records (the
 * compile unit's DW_AT_stmt_list points at the label that starts that section).
 *
 * What each variable's DIE says:
 *   - cell globals and -O0 locals (llvm.dbg.declare): DW_OP_addr of their data
 *     memory word, for the whole function;
 *   - values (llvm.dbg.value): a location list, register by register, found by
 *     replaying the allocated code bundle by bundle (locate() below). A bundle
 *     gets a location only where the register surely holds the variable's current
 *     value, whatever the stalls: a write in flight makes its register unknown
 *     until the clock it surely landed.
 *   - in a software-pipelined loop (the pipeliner's blocks), several iterations
 *     overlap in every bundle: the lists follow the iteration of one stage
 *     (swp_locate() below), DWARF's empty location where no register holds it
 *     (the debugger prints <optimized out> and why), and the loop is a
 *     DW_TAG_lexical_block named after what it is, with its schedule in vendor
 *     attributes, so the debugger can say which iteration each stage is in.
 * Addresses in .debug_loc are relative to the compile unit's DW_AT_low_pc, the
 * start of this object's .text, so only .debug_info carries relocations. */
#include "mir.h"

#include <limits.h>
#include <llvm-c/DebugInfo.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warp_dwarf.h"

/* Abbreviation codes: one per DIE shape written below. */
enum {
    AB_CU = 1, AB_BASE, AB_ARRAY, AB_SUBRANGE, AB_GLOBAL, AB_FUNC, AB_FUNC_LEAF, AB_VAR_EXPR,
    AB_VAR_LIST, AB_VAR_NONE, AB_BLOCK
};

/* A location over a range of bundles (relative to .text's start). L_EMPTY is
 * DWARF's empty location (2.6.1.1.4): present in the source, not in the code,
 * written for what a pipelined loop assigns, so the debugger can say why. */
enum { L_NONE, L_REG, L_CONST, L_EMPTY };
typedef struct drange {
    uint32_t lo, hi;
    uint8_t kind;
    uint32_t v;               /* DWARF register number, or the constant's bits */
} drange;

typedef struct dvar_out {
    LLVMMetadataRef md;
    int mem;
    const char *sym;
    int32_t off;
    drange *r;
    int nr;
} dvar_out;

typedef struct dblock_out {   /* a software-pipelined loop */
    uint32_t lo, hi;
    unsigned line;
    uint32_t pro_len;         /* bundles before the kernel */
    int ii, kernel_len;       /* the kernel's */
    int stage;                /* whose iteration the locations describe; -1 the last's */
} dblock_out;

typedef struct dfunc {
    LLVMMetadataRef sp;       /* DISubprogram, or NULL */
    const char *sym;
    uint32_t lo, len;         /* bundles */
    dvar_out *vars;
    int nvars;
    dblock_out *loops;
    int nloops;
} dfunc;

struct wb_dinfo {
    wb_module *mod;
    LLVMContextRef ctx;
    dfunc *funcs;
    int nfuncs;
};

wb_dinfo *wb_dinfo_new(wb_module *mod)
{
    wb_dinfo *d = ws_xcalloc(1, sizeof *d);
    d->mod = mod;
    d->ctx = LLVMGetModuleContext(mod->m);
    return d;
}

void wb_dinfo_free(wb_dinfo *d)
{
    if (!d) return;
    for (int i = 0; i < d->nfuncs; i++) {
        for (int k = 0; k < d->funcs[i].nvars; k++) free(d->funcs[i].vars[k].r);
        free(d->funcs[i].vars);
        free(d->funcs[i].loops);
    }
    free(d->funcs);
    free(d);
}

/* ---- Replaying the code: where each variable lives, bundle by bundle ------------ */

enum { NREG = WT_OPND_NREGS };

typedef struct lstate {
    int valid;
    uint8_t *where;           /* per vreg: the register holding its current value, 0 none */
    uint8_t *bkind;           /* per variable: WB_DV_* */
    uint32_t *bval;
    int pland[NREG];          /* a write in flight to the register: the block-relative clock it */
    uint32_t pvreg[NREG];     /* surely landed by, and its vreg; INT_MIN when none */
} lstate;

typedef struct locator {
    const wb_func *f;
    int nv, nvar;
    ws_graph preds;           /* per block id (wb_cfg reversed) */
    lstate *in, *out;         /* per block id */
    lstate cur;
    dvar_out *vars;           /* the result, per variable */
    uint32_t start;           /* the function's first bundle */
    uint32_t *swp_row;        /* per bundle: its row in swp_reg + 1 (in a pipelined loop), 0 none */
    uint8_t *swp_reg;         /* per pipelined loop bundle x variable: the register holding the
                                 variable's value for the iteration swp_locate() follows; 0 none */
} locator;

static void st_alloc(const locator *L, lstate *s)
{
    s->where = ws_xcalloc((size_t)L->nv + 1, 1);
    s->bkind = ws_xcalloc((size_t)L->nvar + 1, 1);
    s->bval = ws_xcalloc((size_t)L->nvar + 1, sizeof *s->bval);
    for (int r = 0; r < NREG; r++) s->pland[r] = INT_MIN;
}

static void st_free(lstate *s)
{
    free(s->where);
    free(s->bkind);
    free(s->bval);
}

static void st_copy(const locator *L, lstate *to, const lstate *from)
{
    to->valid = from->valid;
    memcpy(to->where, from->where, (size_t)L->nv + 1);
    memcpy(to->bkind, from->bkind, (size_t)L->nvar + 1);
    memcpy(to->bval, from->bval, sizeof *to->bval * ((size_t)L->nvar + 1));
    memcpy(to->pland, from->pland, sizeof to->pland);
    memcpy(to->pvreg, from->pvreg, sizeof to->pvreg);
}

static int st_equal(const locator *L, const lstate *a, const lstate *b)
{
    return a->valid == b->valid && !memcmp(a->where, b->where, (size_t)L->nv + 1) &&
           !memcmp(a->bkind, b->bkind, (size_t)L->nvar + 1) &&
           !memcmp(a->bval, b->bval, sizeof *a->bval * ((size_t)L->nvar + 1)) &&
           !memcmp(a->pland, b->pland, sizeof a->pland) && !memcmp(a->pvreg, b->pvreg, sizeof a->pvreg);
}

/* Where predecessors disagree, nothing is known. */
static void st_meet(const locator *L, lstate *acc, const lstate *s)
{
    if (!s->valid) return;
    if (!acc->valid) {
        st_copy(L, acc, s);
        return;
    }
    for (int v = 0; v <= L->nv; v++)
        if (acc->where[v] != s->where[v]) acc->where[v] = 0;
    for (int k = 0; k < L->nvar; k++)
        if (acc->bkind[k] != s->bkind[k] || acc->bval[k] != s->bval[k]) acc->bkind[k] = WB_DV_NONE;
    for (int r = 0; r < NREG; r++)
        if (acc->pland[r] != s->pland[r] || acc->pvreg[r] != s->pvreg[r]) {
            if (acc->pland[r] != INT_MIN && acc->pvreg[r] <= (uint32_t)L->nv) acc->where[acc->pvreg[r]] = 0;
            acc->pland[r] = INT_MIN;
            /* the register holds one of two values: neither is known */
            for (int v = 0; v <= L->nv; v++)
                if (acc->where[v] == r) acc->where[v] = 0;
        }
}

static void forget_register(const locator *L, lstate *s, unsigned r)
{
    for (int v = 0; v <= L->nv; v++)
        if (s->where[v] == r) s->where[v] = 0;
}

static void land_until(const locator *L, lstate *s, int clock)
{
    for (int r = 1; r < NREG; r++) {
        if (s->pland[r] == INT_MIN || s->pland[r] > clock) continue;
        forget_register(L, s, (unsigned)r);
        if (s->pvreg[r] && s->pvreg[r] <= (uint32_t)L->nv) s->where[s->pvreg[r]] = (uint8_t)r;
        s->pland[r] = INT_MIN;
    }
}

static void apply_events(const locator *L, lstate *s, int ev)
{
    for (; ev; ev = L->f->dbgev[ev].next) {
        const wb_dbgev *e = &L->f->dbgev[ev];
        if (e->kind == WB_DV_ALIAS) {
            if (e->v <= (uint32_t)L->nv && e->v2 <= (uint32_t)L->nv) s->where[e->v] = s->where[e->v2];
            continue;
        }
        if (e->var < 0 || e->var >= L->nvar) continue;
        s->bkind[e->var] = e->kind;
        s->bval[e->var] = e->v;
    }
}

static void issue(const locator *L, lstate *s, const wb_ins *in, int clock)
{
    if (in->op == WT_OP_NONE) return;
    int mop = in->mop ? in->mop : in->op;
    if (in->dvreg && in->dvreg <= (uint32_t)L->nv) s->where[in->dvreg] = 0;
    if (wb_has_dest(in->op) && in->d.kind == WB_O_REG && in->d.v > 0 && in->d.v < NREG) {
        unsigned r = in->d.v;
        forget_register(L, s, r);
        int lat = mop < WT_NOPS ? wt_ops[mop].latency[L->f->model->id] : 1;
        s->pland[r] = clock + (lat > 0 ? lat : 1);
        s->pvreg[r] = in->dvreg;
    }
    apply_events(L, s, in->dbg);
}

static void record(locator *L, const lstate *s, uint32_t bundle, const uint8_t *overlap)
{
    for (int k = 0; k < L->nvar; k++) {
        if (L->f->dvars[k].mem) continue;
        uint8_t kind = L_NONE;
        uint32_t v = 0;
        if (overlap && overlap[k] && s->bkind[k] == WB_DV_NONE) {
            kind = L_EMPTY;
            uint32_t row = L->swp_row ? L->swp_row[bundle - L->start] : 0;
            uint8_t r = row ? L->swp_reg[(size_t)(row - 1) * (size_t)L->nvar + (size_t)k] : 0;
            if (r) kind = L_REG, v = r;
        } else if (s->valid) {
            switch (s->bkind[k]) {
            case WB_DV_VREG:
                if (s->bval[k] <= (uint32_t)L->nv && s->where[s->bval[k]]) kind = L_REG, v = s->where[s->bval[k]];
                break;
            case WB_DV_REG: kind = L_REG, v = s->bval[k] == WT_OPND_CID ? WD_REG_CID : s->bval[k]; break;
            case WB_DV_CONST: kind = L_CONST, v = s->bval[k]; break;
            default: break;
            }
        }
        if (kind == L_NONE) continue;
        dvar_out *o = &L->vars[k];
        if (o->nr && o->r[o->nr - 1].hi == bundle && o->r[o->nr - 1].kind == kind && o->r[o->nr - 1].v == v) {
            o->r[o->nr - 1].hi = bundle + 1;
            continue;
        }
        o->r = ws_xrealloc(o->r, sizeof *o->r * (size_t)(o->nr + 1));
        o->r[o->nr++] = (drange){bundle, bundle + 1, kind, v};
    }
}

/* One block from its entry state; with rec, the locations of its bundles (which
 * start at `at`). The exit state is left in L->cur. */
static void run_block(locator *L, const wb_block *b, int rec, uint32_t at)
{
    lstate *s = &L->cur;
    if (b->fixed) {
        /* Overlapping iterations: a variable the loop assigns has no one value
         * here, and a register the block writes holds no one value. What the
         * loop leaves alone (a loop-invariant variable in a register it never
         * writes) keeps its location. The pipeliner put on the block's entry a
         * "no value" for each variable the loop assigns (swp_gen.c). */
        apply_events(L, s, b->dbg_entry);
        uint8_t *overlap = ws_xcalloc((size_t)L->nvar + 1, 1);
        for (int ev = b->dbg_entry; ev; ev = L->f->dbgev[ev].next)
            if (L->f->dbgev[ev].var >= 0 && L->f->dbgev[ev].var < L->nvar) overlap[L->f->dbgev[ev].var] = 1;
        land_until(L, s, 0);   /* written in the last bundle before: there on entry */
        for (int r = 1; r < NREG; r++)
            if (s->pland[r] != INT_MIN) {
                forget_register(L, s, (unsigned)r);
                if (s->pvreg[r] <= (uint32_t)L->nv) s->where[s->pvreg[r]] = 0;
                s->pland[r] = INT_MIN;
            }
        for (int i = 0; i <= b->nins; i++) {
            const wb_ins *in = i == b->nins ? &b->term : &b->ins[i];
            if (in->op == WT_OP_NONE) continue;
            if (in->dvreg && in->dvreg <= (uint32_t)L->nv) s->where[in->dvreg] = 0;
            if (wb_has_dest(in->op) && in->d.kind == WB_O_REG && in->d.v > 0 && in->d.v < NREG)
                forget_register(L, s, in->d.v);
            for (int ev = in->dbg; ev; ev = L->f->dbgev[ev].next) {
                const wb_dbgev *e = &L->f->dbgev[ev];
                if (e->var >= 0 && e->var < L->nvar) s->bkind[e->var] = WB_DV_NONE;
                else if (e->kind == WB_DV_ALIAS && e->v <= (uint32_t)L->nv) s->where[e->v] = 0;
            }
        }
        for (int c = 0; rec && c < b->len; c++) record(L, s, at + (uint32_t)c, overlap);
        free(overlap);
        return;
    }
    apply_events(L, s, b->dbg_entry);
    for (int c = 0; c < b->len; c++) {
        land_until(L, s, c - 1);
        if (rec) record(L, s, at + (uint32_t)c, NULL);
        for (int i = 0; i < b->nins; i++)
            if (b->ins[i].cycle == c) issue(L, s, &b->ins[i], c);
        if (b->term.op != WT_OP_NONE && b->term.cycle == c) issue(L, s, &b->term, c);
    }
    land_until(L, s, b->len - 1);
    for (int r = 0; r < NREG; r++)
        if (s->pland[r] != INT_MIN) s->pland[r] -= b->len;
    if (wb_flow(b->term.op) == WT_FLOW_CALL) {
        /* The callee may use every register. */
        for (int v = 0; v <= L->nv; v++) s->where[v] = 0;
        for (int r = 0; r < NREG; r++) s->pland[r] = INT_MIN;
    }
}

/* ---- Pipelined loops: each variable for one stage's iteration ------------------------ */

/* In a pipelined loop's prologue, kernel and epilogue every bundle works on several
 * iterations: stage s on the one s periods (of II bundles) older than stage 0's.
 * The locations describe one of them, the iteration of one stage chosen for the
 * whole loop (docs/design.md, section 5): the stage at which the most variables
 * are in registers over the kernel, the older of two that tie (its values are
 * the more complete). In the prologue, until that stage starts, the oldest
 * iteration (the first) stands in. A variable's location at a bundle is the
 * register that holds its value for that iteration once the assignment landed,
 * before that the previous iteration's (what the variable holds at that point of
 * the sequential loop); where neither is surely in a register, none.
 *
 * The replay follows what each register holds, tagged with the iteration: the
 * pipeliner numbered each copy's iteration from its block's first period's
 * (wb_ins.swp_iter, from the loop's first in the prologue), and the oldest
 * iteration in flight advances by one every II bundles of the kernel and the
 * epilogue. */
typedef struct swp_replay {
    const locator *L;
    const int *value_of;      /* per variable: the body value it is, 0 none */
    int ii, stages, stage;    /* stage: whose iteration the locations describe */
    long oldest;              /* the oldest iteration in flight, in the kernel and epilogue */
    int clock;
    int hold_var[NREG];       /* the variable and iteration each register holds */
    long hold_it[NREG];
    int pend_clock[NREG];     /* a write in flight: when it surely landed, whose value */
    int pend_var[NREG];
    long pend_it[NREG];
    long found;               /* bundles x variables given a register */
    long *landed;             /* per variable: the newest iteration whose value landed */
} swp_replay;

static int var_of_value(const swp_replay *R, uint32_t value)
{
    for (int k = 0; value && k < R->L->nvar; k++)
        if (R->value_of[k] == (int)value) return k;
    return -1;
}

/* One block (in_pro: of the prologue), its bundles' locations into out (len x
 * nvar) if out, for its first `periods` periods. */
static void swp_replay_block(swp_replay *R, const wb_block *b, int in_pro, uint8_t *out, int periods)
{
    const locator *L = R->L;
    long first = in_pro ? 0 : R->oldest;
    for (int c = 0; c < b->len; c++, R->clock++) {
        if (!in_pro && c && c % R->ii == 0) R->oldest++;
        for (int r = 1; r < NREG; r++)
            if (R->pend_clock[r] != INT_MIN && R->pend_clock[r] <= R->clock - 1) {
                R->hold_var[r] = R->pend_var[r];
                R->hold_it[r] = R->pend_it[r];
                R->pend_clock[r] = INT_MIN;
                if (R->hold_var[r] >= 0 && R->hold_it[r] > R->landed[R->hold_var[r]])
                    R->landed[R->hold_var[r]] = R->hold_it[r];
            }
        /* the chosen stage's iteration: in the prologue (where clock / II is the
         * period, stage 0's iteration) the first until that stage starts */
        long t = R->clock / R->ii;
        long ref = in_pro ? (t > R->stage ? t - R->stage : 0) : R->oldest + (R->stages - 1 - R->stage);
        if (out && c / R->ii < periods)
            for (int k = 0; k < L->nvar; k++) {
                if (!R->value_of[k]) continue;
                int now = 0, before = 0;
                for (int r = 1; r < NREG; r++) {
                    if (R->hold_var[r] != k) continue;
                    if (R->hold_it[r] == ref) now = r;
                    else if (R->hold_it[r] == ref - 1) before = r;
                }
                /* the previous iteration's only until this one's landed: once
                 * its register is reused, the value is gone, not older */
                if (R->landed[k] >= ref) before = 0;
                out[(size_t)c * (size_t)L->nvar + (size_t)k] = (uint8_t)(now ? now : before);
            }
        for (int i = 0; i <= b->nins; i++) {
            const wb_ins *in = i == b->nins ? &b->term : &b->ins[i];
            if (in->op == WT_OP_NONE || in->cycle != c) continue;
            if (!wb_has_dest(in->op) || in->d.kind != WB_O_REG || in->d.v == 0 || in->d.v >= NREG) continue;
            unsigned r = in->d.v;
            int mop = in->mop ? in->mop : in->op;
            int lat = mop < WT_NOPS ? wt_ops[mop].latency[L->f->model->id] : 1;
            R->hold_var[r] = -1;
            R->pend_clock[r] = R->clock + (lat > 0 ? lat : 1);
            R->pend_var[r] = var_of_value(R, in->swp_value);
            R->pend_it[r] = first + in->swp_iter;
        }
    }
}

/* The loop of blocks order[from..to) of f (the kernel at order[kernel]) replayed
 * for one stage; the locations into out (the loop's bundles x nvar) if out.
 * Returns how many bundles x variables of the kernel have a register. */
static long swp_replay_loop(locator *L, const int *value_of, int from, int kernel, int to, int stage, uint8_t *out)
{
    const wb_func *f = L->f;
    const wb_block *kb = f->blocks[f->order[kernel]];
    int nvar = L->nvar;
    uint32_t pro_len = 0;
    for (int oi = from; oi < kernel; oi++) pro_len += (uint32_t)f->blocks[f->order[oi]]->len;
    swp_replay R = {.L = L, .value_of = value_of, .ii = kb->ii, .stages = (int)pro_len / kb->ii + 1, .stage = stage};
    R.landed = ws_xcalloc((size_t)nvar + 1, sizeof *R.landed);
    for (int k = 0; k < nvar; k++) R.landed[k] = -1;
    for (int r = 0; r < NREG; r++) {
        R.hold_var[r] = -1;
        R.pend_clock[r] = INT_MIN;
    }
    size_t off = 0;
    for (int oi = from; oi < kernel; oi++) {
        const wb_block *b = f->blocks[f->order[oi]];
        swp_replay_block(&R, b, 1, out ? out + off * (size_t)nvar : NULL, INT_MAX);
        off += (size_t)b->len;
    }
    /* The kernel twice: its first pass (from the prologue) and the steady state
     * (from its own end); a location stands where both agree. */
    size_t klen = (size_t)kb->len * (size_t)nvar;
    uint8_t *first = ws_xcalloc(klen + 1, 1), *steady = ws_xcalloc(klen + 1, 1);
    swp_replay_block(&R, kb, 0, first, INT_MAX);
    R.oldest++;
    swp_replay_block(&R, kb, 0, steady, INT_MAX);
    long found = 0;
    for (size_t i = 0; i < klen; i++) {
        uint8_t r = first[i] == steady[i] ? first[i] : 0;
        found += r != 0;
        if (out) out[off * (size_t)nvar + i] = r;
    }
    off += (size_t)kb->len;
    free(first);
    free(steady);
    /* the epilogue (the pipeliner makes one), while the stage still has an iteration */
    if (kernel + 1 < to) {
        R.oldest++;
        swp_replay_block(&R, f->blocks[f->order[kernel + 1]], 0, out ? out + off * (size_t)nvar : NULL, stage);
    }
    free(R.landed);
    return found;
}

/* The locations in one pipelined loop, blocks order[from..to) of f starting at
 * bundle `at`; returns the stage they describe (-1: not a pipelined loop). */
static int swp_locate(locator *L, int from, int to, uint32_t at)
{
    const wb_func *f = L->f;
    int kernel = -1;
    for (int oi = from; oi < to; oi++)
        if (f->blocks[f->order[oi]]->ii > 0 && kernel < 0) kernel = oi;
    if (kernel < 0) return -1;
    const wb_block *kb = f->blocks[f->order[kernel]];
    int nvar = L->nvar;
    uint32_t pro_len = 0;
    for (int oi = from; oi < kernel; oi++) pro_len += (uint32_t)f->blocks[f->order[oi]]->len;
    int stages = (int)pro_len / kb->ii + 1;
    /* which body value each variable is: one for all its assignments in the loop */
    int *value_of = ws_xcalloc((size_t)nvar + 1, sizeof *value_of);
    for (int oi = from; oi < to; oi++) {
        const wb_block *b = f->blocks[f->order[oi]];
        for (int i = 0; i < b->nins; i++)
            for (int ev = b->ins[i].dbg; ev; ev = f->dbgev[ev].next) {
                const wb_dbgev *e = &f->dbgev[ev];
                if (e->var < 0 || e->var >= nvar || e->kind != WB_DV_VREG) continue;
                value_of[e->var] = value_of[e->var] == 0 || value_of[e->var] == (int)e->v ? (int)e->v : -1;
            }
    }
    for (int k = 0; k < nvar; k++)
        if (value_of[k] < 0) value_of[k] = 0;
    int best = stages - 1;
    long most = -1;
    for (int s = stages - 1; s >= 0; s--) {
        long n = swp_replay_loop(L, value_of, from, kernel, to, s, NULL);
        if (n > most) most = n, best = s;
    }
    swp_replay_loop(L, value_of, from, kernel, to, best, L->swp_reg + (size_t)(L->swp_row[at - L->start] - 1) * (size_t)nvar);
    free(value_of);
    return best;
}

/* stage_of_loop: per run of pipeliner blocks, the stage its locations describe. */
static void locate(const wb_func *f, dvar_out *vars, uint32_t start, int *stage_of_loop, int maxloops)
{
    int nloops = 0;
    locator L = {.f = f, .nv = f->nvregs, .nvar = f->ndvars, .vars = vars, .start = start};
    /* rows for the pipelined loops' bundles only */
    uint32_t total = 0, rows = 0;
    for (int oi = 0; oi < f->norder; oi++) {
        total += (uint32_t)f->blocks[f->order[oi]]->len;
        if (f->blocks[f->order[oi]]->fixed) rows += (uint32_t)f->blocks[f->order[oi]]->len;
    }
    if (rows) {
        L.swp_row = ws_xcalloc((size_t)total + 1, sizeof *L.swp_row);
        L.swp_reg = ws_xcalloc((size_t)rows * (size_t)L.nvar + 1, 1);
        for (uint32_t oi = 0, at = 0, row = 0; oi < (uint32_t)f->norder; oi++) {
            const wb_block *b = f->blocks[f->order[oi]];
            for (int c = 0; c < b->len; c++, at++)
                if (b->fixed) L.swp_row[at] = ++row;
        }
    }
    for (int oi = 0, at = 0; oi < f->norder;) {
        if (!f->blocks[f->order[oi]]->fixed) {
            at += f->blocks[f->order[oi++]]->len;
            continue;
        }
        int end = oi, len = 0;
        while (end < f->norder && f->blocks[f->order[end]]->fixed) len += f->blocks[f->order[end++]]->len;
        int stage = L.swp_row ? swp_locate(&L, oi, end, start + (uint32_t)at) : -1;
        if (nloops < maxloops) stage_of_loop[nloops] = stage;
        nloops++;
        at += len;
        oi = end;
    }
    L.in = ws_xcalloc((size_t)f->nblocks, sizeof *L.in);
    L.out = ws_xcalloc((size_t)f->nblocks, sizeof *L.out);
    for (int id = 0; id < f->nblocks; id++) {
        st_alloc(&L, &L.in[id]);
        st_alloc(&L, &L.out[id]);
    }
    st_alloc(&L, &L.cur);
    ws_graph cfg = wb_cfg(f, NULL);
    L.preds = ws_graph_reverse(&cfg);
    ws_graph_free(&cfg);
    int entry = f->norder ? f->order[0] : 0;
    /* Forward to a fixed point: each block's entry is the meet of its
     * predecessors' exits; the function's entry knows nothing. */
    for (int round = 0, changed = 1; changed && round < 4 * f->nblocks + 8; round++) {
        changed = 0;
        for (int oi = 0; oi < f->norder; oi++) {
            int id = f->order[oi];
            lstate *in = &L.in[id];
            in->valid = 0;
            if (id == entry) {
                memset(in->where, 0, (size_t)L.nv + 1);
                memset(in->bkind, 0, (size_t)L.nvar + 1);
                memset(in->bval, 0, sizeof *in->bval * ((size_t)L.nvar + 1));
                for (int r = 0; r < NREG; r++) in->pland[r] = INT_MIN;
                in->valid = 1;
            }
            for (int k = L.preds.at[id]; k < L.preds.at[id + 1]; k++) st_meet(&L, in, &L.out[L.preds.to[k]]);
            if (!in->valid) continue;
            st_copy(&L, &L.cur, in);
            run_block(&L, f->blocks[id], 0, 0);
            if (!st_equal(&L, &L.cur, &L.out[id])) {
                st_copy(&L, &L.out[id], &L.cur);
                changed = 1;
            }
        }
    }
    uint32_t at = start;
    for (int oi = 0; oi < f->norder; oi++) {
        const wb_block *b = f->blocks[f->order[oi]];
        st_copy(&L, &L.cur, &L.in[b->id]);
        if (L.cur.valid) run_block(&L, b, 1, at);
        at += (uint32_t)b->len;
    }
    for (int id = 0; id < f->nblocks; id++) {
        st_free(&L.in[id]);
        st_free(&L.out[id]);
    }
    ws_graph_free(&L.preds);
    st_free(&L.cur);
    free(L.in);
    free(L.out);
    free(L.swp_reg);
    free(L.swp_row);
}

void wb_dinfo_function(wb_dinfo *d, LLVMValueRef fn, const wb_func *f, uint32_t offset)
{
    d->funcs = ws_xrealloc(d->funcs, sizeof *d->funcs * (size_t)(d->nfuncs + 1));
    dfunc *df = &d->funcs[d->nfuncs++];
    memset(df, 0, sizeof *df);
    ws_arena *A = &d->mod->arena;   /* the function's own arena goes with it */
    df->sp = LLVMGetSubprogram(fn);
    df->sym = ws_arena_strndup(A, f->name, strlen(f->name));
    df->lo = offset;
    for (int oi = 0; oi < f->norder; oi++) {
        const wb_block *b = f->blocks[f->order[oi]];
        if (b->fixed) {
            /* Consecutive pipeliner blocks make one loop, named after the line of
             * its `for`, which the kernel's branch carries. */
            if (!df->nloops || df->loops[df->nloops - 1].hi != offset + df->len) {
                df->loops = ws_xrealloc(df->loops, sizeof *df->loops * (size_t)(df->nloops + 1));
                df->loops[df->nloops++] = (dblock_out){offset + df->len, offset + df->len, 0, 0, 0, 0, -1};
            }
            dblock_out *lp = &df->loops[df->nloops - 1];
            if (b->ii > 0 && !lp->ii) {
                lp->ii = b->ii;
                lp->kernel_len = b->len;
                lp->pro_len = offset + df->len - lp->lo;
            }
            lp->hi += (uint32_t)b->len;
            if (b->term.op != WT_OP_NONE && b->term.line) lp->line = b->term.line;
        }
        df->len += (uint32_t)b->len;
    }
    df->nvars = f->ndvars;
    df->vars = ws_xcalloc((size_t)f->ndvars + 1, sizeof *df->vars);
    for (int k = 0; k < f->ndvars; k++)
        df->vars[k] = (dvar_out){f->dvars[k].md, f->dvars[k].mem,
                                 f->dvars[k].sym ? ws_arena_strndup(A, f->dvars[k].sym, strlen(f->dvars[k].sym)) : NULL,
                                 f->dvars[k].off, NULL, 0};
    int *stage = ws_xcalloc((size_t)df->nloops + 1, sizeof *stage);
    for (int k = 0; k < df->nloops; k++) stage[k] = -1;
    if (f->ndvars) locate(f, df->vars, offset, stage, df->nloops);
    for (int k = 0; k < df->nloops; k++) df->loops[k].stage = stage[k];
    free(stage);
}

/* ---- Reading the frontend's metadata ------------------------------------------- */

/* The operands of a metadata node (as values: MDString, nested nodes, constants). */
static LLVMValueRef *md_ops(wb_dinfo *d, LLVMMetadataRef md, unsigned *n)
{
    LLVMValueRef v = LLVMMetadataAsValue(d->ctx, md);
    *n = LLVMGetMDNodeNumOperands(v);
    LLVMValueRef *ops = ws_xcalloc(*n + 1, sizeof *ops);
    LLVMGetMDNodeOperands(v, ops);
    return ops;
}

static int is_node(LLVMValueRef v)
{
    if (!v || LLVMGetValueKind(v) != LLVMMetadataAsValueValueKind) return 0;
    LLVMMetadataKind k = LLVMGetMetadataKind(LLVMValueAsMetadata(v));
    return k != LLVMMDStringMetadataKind && k != LLVMLocalAsMetadataMetadataKind &&
           k != LLVMConstantAsMetadataMetadataKind && k != LLVMDIArgListMetadataKind;
}

/* Operand i of a DI node as a string ("" if absent). DIVariable: 1 is the name;
 * DISubprogram: 2. */
static const char *md_name(wb_dinfo *d, LLVMMetadataRef md, unsigned i)
{
    unsigned n;
    LLVMValueRef *ops = md_ops(d, md, &n);
    unsigned len = 0;
    const char *s = i < n && ops[i] ? LLVMGetMDString(ops[i], &len) : NULL;
    free(ops);
    return s && len ? s : "";
}

static LLVMMetadataRef md_node_op(wb_dinfo *d, LLVMMetadataRef md, unsigned i)
{
    unsigned n;
    LLVMValueRef *ops = md_ops(d, md, &n);
    LLVMMetadataRef r = i < n && is_node(ops[i]) ? LLVMValueAsMetadata(ops[i]) : NULL;
    free(ops);
    return r;
}

/* W2's types: int or float, scalars or arrays of one or two dimensions. */
typedef struct dtype {
    int is_float, ndims;
    uint32_t dims[2];
    uint32_t die;             /* offset of its DIE in the unit */
} dtype;

static int read_type(wb_dinfo *d, LLVMMetadataRef t, dtype *out)
{
    memset(out, 0, sizeof *out);
    if (!t) return -1;
    LLVMMetadataKind k = LLVMGetMetadataKind(t);
    if (k == LLVMDICompositeTypeMetadataKind) {
        LLVMMetadataRef base = md_node_op(d, t, 3), elems = md_node_op(d, t, 4);
        if (read_type(d, base, out) < 0 || out->ndims || !elems) return -1;
        unsigned n;
        LLVMValueRef *subs = md_ops(d, elems, &n);
        int ok = n >= 1 && n <= 2;
        for (unsigned i = 0; i < n && ok; i++) {
            ok = is_node(subs[i]) && LLVMGetMetadataKind(LLVMValueAsMetadata(subs[i])) == LLVMDISubrangeMetadataKind;
            if (!ok) break;
            unsigned m;
            LLVMValueRef *c = md_ops(d, LLVMValueAsMetadata(subs[i]), &m);
            ok = m >= 1 && c[0] && LLVMIsAConstantInt(c[0]) && LLVMConstIntGetSExtValue(c[0]) > 0 &&
                 LLVMConstIntGetSExtValue(c[0]) <= 0x3fffffff;
            if (ok) out->dims[i] = (uint32_t)LLVMConstIntGetSExtValue(c[0]);
            free(c);
        }
        free(subs);
        out->ndims = (int)n;
        return ok ? 0 : -1;
    }
    if (k != LLVMDIBasicTypeMetadataKind || LLVMDITypeGetSizeInBits(t) != 32) return -1;
    size_t len;
    const char *name = LLVMDITypeGetName(t, &len);
    if (len == 3 && !memcmp(name, "int", 3)) return 0;
    if (len == 5 && !memcmp(name, "float", 5)) {
        out->is_float = 1;
        return 0;
    }
    return -1;
}

/* ---- Writing: bytes, with the relocated words and comments noted --------------- */

typedef struct dmark {
    uint32_t off;
    int kind;                 /* 0 comment, 1 relocated word, 2 string */
    const char *text;         /* comment, or symbol */
    int32_t addend;
    uint32_t len;             /* string: bytes with the NUL */
} dmark;

typedef struct dsec {
    ws_buf b;
    dmark *m;
    int nm;
} dsec;

static void mark(dsec *s, int kind, const char *text, int32_t addend, uint32_t len)
{
    s->m = ws_xrealloc(s->m, sizeof *s->m * (size_t)(s->nm + 1));
    s->m[s->nm++] = (dmark){(uint32_t)s->b.len, kind, text, addend, len};
}

static void put_comment(dsec *s, const char *text) { mark(s, 0, text, 0, 0); }

static void put_reloc(dsec *s, const char *sym, int32_t addend)
{
    mark(s, 1, sym, addend, 4);
    wd_u32(&s->b, 0);
}

static void put_string(dsec *s, const char *str)
{
    mark(s, 2, NULL, 0, (uint32_t)strlen(str) + 1);
    ws_buf_append(&s->b, str, strlen(str) + 1);
}

static void put_str_escaped(ws_buf *out, const char *s, size_t n)
{
    ws_buf_puts(out, "\"");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') ws_buf_printf(out, "\\%c", c);
        else if (c < 32 || c >= 127) ws_buf_printf(out, "\\%03o", c);
        else ws_buf_append(out, &s[i], 1);
    }
    ws_buf_puts(out, "\"");
}

static void write_section(ws_buf *out, const char *name, const char *label, const dsec *s)
{
    ws_buf_printf(out, "        .section %s\n%s:\n", name, label);
    uint32_t off = 0;
    int mi = 0;
    while (off < s->b.len || mi < s->nm) {
        if (mi < s->nm && s->m[mi].off == off) {
            const dmark *m = &s->m[mi++];
            if (m->kind == 0) {
                ws_buf_printf(out, "        ; %s\n", m->text);
            } else if (m->kind == 1) {
                ws_buf_puts(out, "        .word   ");
                wb_put_symbol(out, m->text, m->addend);
                ws_buf_puts(out, "\n");
                off += 4;
            } else {
                ws_buf_puts(out, "        .asciz  ");
                put_str_escaped(out, s->b.data + off, m->len - 1);
                ws_buf_puts(out, "\n");
                off += m->len;
            }
            continue;
        }
        uint32_t end = (uint32_t)s->b.len;
        if (mi < s->nm && s->m[mi].off < end) end = s->m[mi].off;
        if (end - off > 16) end = off + 16;
        ws_buf_puts(out, "        .byte   ");
        for (uint32_t i = off; i < end; i++)
            ws_buf_printf(out, "%s%u", i > off ? ", " : "", (unsigned)(uint8_t)s->b.data[i]);
        ws_buf_puts(out, "\n");
        off = end;
    }
}

static void set32(ws_buf *b, uint32_t at, uint32_t v)
{
    uint8_t *p = (uint8_t *)b->data + at;
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void abbrev(ws_buf *a, unsigned code, unsigned tag, int children, const unsigned *attrs)
{
    wd_uleb(a, code);
    wd_uleb(a, tag);
    wd_u8(a, children ? DW_CHILDREN_yes : DW_CHILDREN_no);
    for (; *attrs; attrs += 2) {
        wd_uleb(a, attrs[0]);
        wd_uleb(a, attrs[1]);
    }
    wd_u8(a, 0);
    wd_u8(a, 0);
}

static void write_abbrevs(ws_buf *a)
{
    abbrev(a, AB_CU, DW_TAG_compile_unit, 1,
           (const unsigned[]){DW_AT_producer, DW_FORM_string, DW_AT_language, DW_FORM_data2, DW_AT_name,
                              DW_FORM_string, DW_AT_comp_dir, DW_FORM_string, DW_AT_stmt_list, DW_FORM_sec_offset,
                              DW_AT_low_pc, DW_FORM_addr,
                              DW_AT_high_pc, DW_FORM_data4, 0});
    abbrev(a, AB_BASE, DW_TAG_base_type, 0,
           (const unsigned[]){DW_AT_name, DW_FORM_string, DW_AT_encoding, DW_FORM_data1, DW_AT_byte_size,
                              DW_FORM_data1, 0});
    abbrev(a, AB_ARRAY, DW_TAG_array_type, 1, (const unsigned[]){DW_AT_type, DW_FORM_ref4, 0});
    /* Both bounds explicit, whatever the language's default lower bound (Pascal's
     * is 1: an upper bound alone read float m[3][4] as [1..2][1..3]). */
    abbrev(a, AB_SUBRANGE, DW_TAG_subrange_type, 0,
           (const unsigned[]){DW_AT_lower_bound, DW_FORM_data1, DW_AT_count, DW_FORM_data4, 0});
    abbrev(a, AB_GLOBAL, DW_TAG_variable, 0,
           (const unsigned[]){DW_AT_name, DW_FORM_string, DW_AT_decl_file, DW_FORM_data1, DW_AT_decl_line,
                              DW_FORM_data4, DW_AT_type, DW_FORM_ref4, DW_AT_external, DW_FORM_flag_present,
                              DW_AT_location, DW_FORM_exprloc, 0});
    const unsigned func[] = {DW_AT_name, DW_FORM_string, DW_AT_linkage_name, DW_FORM_string, DW_AT_decl_file,
                             DW_FORM_data1, DW_AT_decl_line, DW_FORM_data4, DW_AT_low_pc, DW_FORM_addr,
                             DW_AT_high_pc, DW_FORM_data4, 0};
    abbrev(a, AB_FUNC, DW_TAG_subprogram, 1, func);
    abbrev(a, AB_FUNC_LEAF, DW_TAG_subprogram, 0, func);
    abbrev(a, AB_VAR_EXPR, DW_TAG_variable, 0,
           (const unsigned[]){DW_AT_name, DW_FORM_string, DW_AT_decl_file, DW_FORM_data1, DW_AT_decl_line,
                              DW_FORM_data4, DW_AT_type, DW_FORM_ref4, DW_AT_location, DW_FORM_exprloc, 0});
    abbrev(a, AB_VAR_LIST, DW_TAG_variable, 0,
           (const unsigned[]){DW_AT_name, DW_FORM_string, DW_AT_decl_file, DW_FORM_data1, DW_AT_decl_line,
                              DW_FORM_data4, DW_AT_type, DW_FORM_ref4, DW_AT_location, DW_FORM_sec_offset, 0});
    abbrev(a, AB_VAR_NONE, DW_TAG_variable, 0,
           (const unsigned[]){DW_AT_name, DW_FORM_string, DW_AT_decl_file, DW_FORM_data1, DW_AT_decl_line,
                              DW_FORM_data4, DW_AT_type, DW_FORM_ref4, 0});
    abbrev(a, AB_BLOCK, DW_TAG_lexical_block, 0,
           (const unsigned[]){DW_AT_name, DW_FORM_string, DW_AT_low_pc, DW_FORM_addr, DW_AT_high_pc, DW_FORM_data4,
                              DW_AT_decl_file, DW_FORM_data1, DW_AT_decl_line, DW_FORM_data4,
                              DW_AT_WARP_swp_ii, DW_FORM_udata, DW_AT_WARP_swp_stages, DW_FORM_udata,
                              DW_AT_WARP_swp_unroll, DW_FORM_udata, DW_AT_WARP_swp_stage, DW_FORM_udata, 0});
    wd_u8(a, 0);
}

typedef struct types {
    dtype *t;
    int n;
} types;

static int type_index(types *T, const dtype *t)
{
    for (int i = 0; i < T->n; i++)
        if (T->t[i].is_float == t->is_float && T->t[i].ndims == t->ndims && T->t[i].dims[0] == t->dims[0] &&
            T->t[i].dims[1] == t->dims[1])
            return i;
    T->t = ws_xrealloc(T->t, sizeof *T->t * (size_t)(T->n + 1));
    T->t[T->n] = *t;
    return T->n++;
}

/* The DIE of a variable with a DW_OP_addr location. */
static void addr_location(dsec *info, const char *sym, int32_t off)
{
    wd_uleb(&info->b, 1 + WD_ADDR_SIZE);
    wd_u8(&info->b, DW_OP_addr);
    put_reloc(info, sym, off);
}

static void loc_expr(ws_buf *b, const drange *r)
{
    if (r->kind == L_EMPTY) return;
    if (r->kind == L_REG) {
        if (r->v < 32) {
            wd_u8(b, DW_OP_reg0 + r->v);
        } else {
            wd_u8(b, DW_OP_regx);
            wd_uleb(b, r->v);
        }
    } else {
        wd_u8(b, DW_OP_implicit_value);
        wd_uleb(b, 4);
        wd_u32(b, r->v);
    }
}

/* The DIGlobalVariableExpressions of the compile unit's globals list: those of
 * globals the optimizer removed are only there. NULL-terminated, malloc'd. */
static void emitted_var(LLVMMetadataRef **done, size_t *n, LLVMMetadataRef var)
{
    *done = ws_xrealloc(*done, (*n + 1) * sizeof **done);
    (*done)[(*n)++] = var;
}

static LLVMMetadataRef *cu_globals(wb_dinfo *d, LLVMModuleRef m)
{
    LLVMMetadataRef *out = ws_xcalloc(1, sizeof *out);
    size_t n = 0;
    unsigned ncu = LLVMGetNamedMetadataNumOperands(m, "llvm.dbg.cu");
    LLVMValueRef *cus = ws_xcalloc(ncu + 1, sizeof *cus);
    LLVMGetNamedMetadataOperands(m, "llvm.dbg.cu", cus);
    for (unsigned c = 0; c < ncu; c++) {
        /* DICompileUnit's operand 6 is its globals (LLVM's DICompileUnit layout) */
        LLVMMetadataRef list = md_node_op(d, LLVMValueAsMetadata(cus[c]), 6);
        if (!list) continue;
        unsigned k;
        LLVMValueRef *ops = md_ops(d, list, &k);
        for (unsigned i = 0; i < k; i++) {
            if (!is_node(ops[i])) continue;
            LLVMMetadataRef gve = LLVMValueAsMetadata(ops[i]);
            if (LLVMGetMetadataKind(gve) != LLVMDIGlobalVariableExpressionMetadataKind) continue;
            out = ws_xrealloc(out, (n + 2) * sizeof *out);
            out[n++] = gve;
            out[n] = NULL;
        }
        free(ops);
    }
    free(cus);
    return out;
}

int wb_dinfo_emit(wb_dinfo *d, uint32_t text_bundles, ws_buf *out)
{
    wb_module *mod = d->mod;
    ws_arena *A = &mod->arena;
    dsec info = {0}, loc = {0};
    ws_buf abbr = {0};
    write_abbrevs(&abbr);

    /* Types first: every variable's, so their DIE offsets are known below. */
    types T = {0};
    dtype base[2] = {{0, 0, {0, 0}, 0}, {1, 0, {0, 0}, 0}};
    type_index(&T, &base[0]);
    type_index(&T, &base[1]);
    unsigned dbg_kind = LLVMGetMDKindIDInContext(d->ctx, "dbg", 3);
    for (LLVMValueRef g = LLVMGetFirstGlobal(mod->m); g; g = LLVMGetNextGlobal(g)) {
        size_t n;
        LLVMValueMetadataEntry *e = LLVMGlobalCopyAllMetadata(g, &n);
        for (unsigned i = 0; i < n; i++) {
            if (LLVMValueMetadataEntriesGetKind(e, i) != dbg_kind) continue;
            LLVMMetadataRef gve = LLVMValueMetadataEntriesGetMetadata(e, i);
            if (LLVMGetMetadataKind(gve) != LLVMDIGlobalVariableExpressionMetadataKind) continue;
            dtype t;
            if (read_type(d, md_node_op(d, LLVMDIGlobalVariableExpressionGetVariable(gve), 3), &t) == 0)
                type_index(&T, &t);
        }
        if (e) LLVMDisposeValueMetadataEntries(e);
    }
    LLVMMetadataRef *listed = cu_globals(d, mod->m);
    for (size_t i = 0; listed[i]; i++) {
        dtype t;
        if (read_type(d, md_node_op(d, LLVMDIGlobalVariableExpressionGetVariable(listed[i]), 3), &t) == 0)
            type_index(&T, &t);
    }
    for (int i = 0; i < d->nfuncs; i++)
        for (int k = 0; k < d->funcs[i].nvars; k++) {
            dtype t;
            if (read_type(d, md_node_op(d, d->funcs[i].vars[k].md, 3), &t) == 0) type_index(&T, &t);
        }

    const char *file = wb_source_file(mod);
    put_comment(&info, "compile unit");
    wd_u32(&info.b, 0);                       /* unit_length, set below */
    wd_u16(&info.b, WD_VERSION);
    put_reloc(&info, ".Ldebug_abbrev0", 0);
    wd_u8(&info.b, WD_ADDR_SIZE);
    wd_uleb(&info.b, AB_CU);
    put_string(&info, "warp-cc");
    /* DWARF has no code for W2. Its arrays are C's (0-based, row-major) and so
     * are its scalars; under Pascal's code (lower bound 1 by default) gdb and
     * llvm-dwarfdump show them in Pascal's syntax, [0..5] for a C-like [6]. */
    wd_u16(&info.b, DW_LANG_C99);
    put_string(&info, file ? file : "");
    /* where a relative DW_AT_name and the line table's file names are found from */
    char cwd[PATH_MAX];
    put_string(&info, getcwd(cwd, sizeof cwd) ? cwd : ".");
    put_reloc(&info, ".Ldebug_line0", 0);
    put_reloc(&info, ".Ltext0", 0);
    wd_u32(&info.b, text_bundles * WT_BUNDLE_BYTES);

    for (int i = 0; i < T.n; i++) {
        dtype *t = &T.t[i];
        if (t->ndims) continue;
        t->die = (uint32_t)info.b.len;
        put_comment(&info, t->is_float ? "base type float" : "base type int");
        wd_uleb(&info.b, AB_BASE);
        put_string(&info, t->is_float ? "float" : "int");
        wd_u8(&info.b, t->is_float ? DW_ATE_float : DW_ATE_signed);
        wd_u8(&info.b, 4);
    }
    for (int i = 0; i < T.n; i++) {
        dtype *t = &T.t[i];
        if (!t->ndims) continue;
        t->die = (uint32_t)info.b.len;
        char *c = ws_arena_alloc(A, 64);
        snprintf(c, 64, "array %s[%u]%s", t->is_float ? "float" : "int", (unsigned)t->dims[0], t->ndims > 1 ? "[..]" : "");
        put_comment(&info, c);
        wd_uleb(&info.b, AB_ARRAY);
        wd_u32(&info.b, T.t[t->is_float].die);
        for (int k = 0; k < t->ndims; k++) {
            wd_uleb(&info.b, AB_SUBRANGE);
            wd_u8(&info.b, 0);
            wd_u32(&info.b, t->dims[k]);
        }
        wd_u8(&info.b, 0);
    }

    /* Cell globals. */
    LLVMMetadataRef *done = NULL;
    size_t ndone = 0;
    for (LLVMValueRef g = LLVMGetFirstGlobal(mod->m); g; g = LLVMGetNextGlobal(g)) {
        if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != 0) continue;
        size_t n;
        LLVMValueMetadataEntry *e = LLVMGlobalCopyAllMetadata(g, &n);
        for (unsigned i = 0; i < n; i++) {
            if (LLVMValueMetadataEntriesGetKind(e, i) != dbg_kind) continue;
            LLVMMetadataRef gve = LLVMValueMetadataEntriesGetMetadata(e, i);
            if (LLVMGetMetadataKind(gve) != LLVMDIGlobalVariableExpressionMetadataKind) continue;
            LLVMMetadataRef var = LLVMDIGlobalVariableExpressionGetVariable(gve);
            LLVMValueRef expr = LLVMMetadataAsValue(d->ctx, LLVMDIGlobalVariableExpressionGetExpression(gve));
            char *es = LLVMPrintValueToString(expr);
            int empty = strstr(es, "DIExpression()") != NULL;
            LLVMDisposeMessage(es);
            dtype t;
            const char *sym = wb_global_symbol(mod, g);
            if (!var || !empty || !sym || read_type(d, md_node_op(d, var, 3), &t) < 0) continue;
            const char *name = md_name(d, var, 1);
            char *c = ws_arena_alloc(A, strlen(name) + 32);
            sprintf(c, "variable %s", name);
            put_comment(&info, c);
            wd_uleb(&info.b, AB_GLOBAL);
            put_string(&info, name);
            wd_u8(&info.b, 1);
            wd_u32(&info.b, LLVMDIVariableGetLine(var));
            wd_u32(&info.b, T.t[type_index(&T, &t)].die);
            addr_location(&info, sym, 0);
            emitted_var(&done, &ndone, var);
        }
        if (e) LLVMDisposeValueMetadataEntries(e);
    }
    /* Globals the optimizer removed (never read, or folded into their uses):
     * still declared, with no location, so the debugger says <optimized out>. */
    for (size_t i = 0; listed[i]; i++) {
        LLVMMetadataRef var = LLVMDIGlobalVariableExpressionGetVariable(listed[i]);
        dtype t;
        int seen = 0;
        for (size_t k = 0; k < ndone && !seen; k++) seen = done[k] == var;
        if (!var || seen || read_type(d, md_node_op(d, var, 3), &t) < 0) continue;
        emitted_var(&done, &ndone, var);
        const char *name = md_name(d, var, 1);
        char *c = ws_arena_alloc(A, strlen(name) + 48);
        sprintf(c, "variable %s (optimized out)", name);
        put_comment(&info, c);
        wd_uleb(&info.b, AB_VAR_NONE);
        put_string(&info, name);
        wd_u8(&info.b, 1);
        wd_u32(&info.b, LLVMDIVariableGetLine(var));
        wd_u32(&info.b, T.t[type_index(&T, &t)].die);
    }
    free(listed);
    free(done);

    for (int i = 0; i < d->nfuncs; i++) {
        dfunc *fn = &d->funcs[i];
        const char *name = fn->sp ? md_name(d, fn->sp, 2) : fn->sym;
        if (!*name) name = fn->sym;
        int leaf = 1;
        for (int k = 0; k < fn->nvars; k++) {
            dtype t;
            if (read_type(d, md_node_op(d, fn->vars[k].md, 3), &t) == 0) leaf = 0;
        }
        if (fn->nloops) leaf = 0;
        char *c = ws_arena_alloc(A, strlen(name) + 32);
        sprintf(c, "function %s", name);
        put_comment(&info, c);
        wd_uleb(&info.b, leaf ? AB_FUNC_LEAF : AB_FUNC);
        put_string(&info, name);
        put_string(&info, fn->sym);
        wd_u8(&info.b, 1);
        wd_u32(&info.b, fn->sp ? LLVMDISubprogramGetLine(fn->sp) : 0);
        put_reloc(&info, fn->sym, 0);
        wd_u32(&info.b, fn->len * WT_BUNDLE_BYTES);
        for (int k = 0; k < fn->nvars; k++) {
            dvar_out *v = &fn->vars[k];
            dtype t;
            if (read_type(d, md_node_op(d, v->md, 3), &t) < 0) continue;
            const char *vname = md_name(d, v->md, 1);
            int code = v->mem ? AB_VAR_EXPR : v->nr ? AB_VAR_LIST : AB_VAR_NONE;
            char *vc = ws_arena_alloc(A, strlen(vname) + 48);
            sprintf(vc, "variable %s%s", vname, code == AB_VAR_NONE ? " (optimized out)" : "");
            put_comment(&info, vc);
            wd_uleb(&info.b, (uint64_t)code);
            put_string(&info, vname);
            wd_u8(&info.b, 1);
            wd_u32(&info.b, LLVMDIVariableGetLine(v->md));
            wd_u32(&info.b, T.t[type_index(&T, &t)].die);
            if (code == AB_VAR_EXPR) {
                addr_location(&info, v->sym, v->off);
            } else if (code == AB_VAR_LIST) {
                put_reloc(&info, ".Ldebug_loc0", (int32_t)loc.b.len);
                char *lc = ws_arena_alloc(A, strlen(vname) + 32);
                sprintf(lc, "%s", vname);
                put_comment(&loc, lc);
                for (int r = 0; r < v->nr; r++) {
                    wd_u32(&loc.b, v->r[r].lo * WT_BUNDLE_BYTES);
                    wd_u32(&loc.b, v->r[r].hi * WT_BUNDLE_BYTES);
                    ws_buf e = {0};
                    loc_expr(&e, &v->r[r]);
                    wd_u16(&loc.b, (unsigned)e.len);
                    if (e.len) ws_buf_append(&loc.b, e.data, e.len);   /* empty: no operation */
                    ws_buf_free(&e);
                }
                wd_u32(&loc.b, 0);
                wd_u32(&loc.b, 0);
            }
        }
        for (int k = 0; k < fn->nloops; k++) {
            dblock_out *lp = &fn->loops[k];
            char *ln = ws_arena_alloc(A, 96);
            snprintf(ln, 96, "software-pipelined loop at line %u", lp->line);
            put_comment(&info, ln);
            wd_uleb(&info.b, AB_BLOCK);
            put_string(&info, ln);
            put_reloc(&info, ".Ltext0", (int32_t)(lp->lo * WT_BUNDLE_BYTES));
            wd_u32(&info.b, (lp->hi - lp->lo) * WT_BUNDLE_BYTES);
            wd_u8(&info.b, 1);
            wd_u32(&info.b, lp->line);
            /* what the debugger needs to say which iteration each stage is in */
            int ii = lp->ii > 0 ? lp->ii : 1;
            wd_uleb(&info.b, (uint64_t)(lp->ii > 0 ? lp->ii : 0));
            wd_uleb(&info.b, lp->ii > 0 ? lp->pro_len / (uint32_t)ii + 1 : 0);
            wd_uleb(&info.b, (uint64_t)(lp->kernel_len / ii));
            uint32_t stages = lp->ii > 0 ? lp->pro_len / (uint32_t)ii + 1 : 1;
            wd_uleb(&info.b, lp->stage >= 0 ? (uint64_t)lp->stage : stages - 1);
        }
        if (!leaf) wd_u8(&info.b, 0);
    }
    wd_u8(&info.b, 0);                        /* end of the unit's children */
    set32(&info.b, 0, (uint32_t)info.b.len - 4);

    dsec ab = {abbr, NULL, 0};
    ws_buf_puts(out, "\n");
    write_section(out, ".debug_abbrev", ".Ldebug_abbrev0", &ab);
    write_section(out, ".debug_info", ".Ldebug_info0", &info);
    write_section(out, ".debug_loc", ".Ldebug_loc0", &loc);
    /* The assembler appends the line program it makes from the .loc records. */
    ws_buf_puts(out, "        .section .debug_line\n.Ldebug_line0:\n");

    ws_buf_free(&abbr);
    ws_buf_free(&info.b);
    free(info.m);
    ws_buf_free(&loc.b);
    free(loc.m);
    free(T.t);
    return 0;
}
