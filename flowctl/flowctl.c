/* Compile-time flow control: an abstract run of each cell, then the skew.
 *
 * The abstract machine follows the simulator's timing rules exactly (docs/design.md,
 * section 1): one bundle a clock, or two under the iWarp gate-operation rule; a
 * result of latency L issued at t visible from t+L; a bundle that needs a slot a
 * non-pipelined operation still holds waits. It never waits for a queue: finding
 * the skew for which no cell ever would is the point. Values are known (a 32-bit
 * word) or unknown; memory is tracked word by word.
 *
 * Time is an interval [lo, hi] once paths whose lengths differ have merged, and
 * every receive and send is recorded with the interval of its issue clock. For
 * neighbours k (sender) and k+d (receiver, d = +1 rightward, -1 leftward) and the
 * j-th word on a channel, with cell k starting k*skew clocks after cell 0:
 *   arrival:  send_hi(j) + latency + link + k*skew <= recv_lo(j) + (k+d)*skew
 *   capacity: recv_hi(j-Q) + (k+d)*skew < send_lo(j) + k*skew   (Q = queue words;
 *             a dequeue at t frees its slot for writers from t+1)
 * Each gives a bound on skew; the skew is the value nearest 0 within all of them.
 * The Warp's address path (@adr) is such a link too: a cell passes each word it reads
 * there on to the next (a mv's latency and the link later), so its reads are both the
 * receives of one link and the sends of the next; the interface unit fills the first
 * cell's queue as it fills the host-fed ones. */
#include "warp_flowctl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warp_support.h"

#define T_INF (INT64_MAX / 4)   /* an unbounded time; sums of it stay representable */

enum { S_RECV = 0, S_SEND = 4, S_FEED = 8, S_PATH = 12, NSTREAMS = S_PATH + WT_NPATHS };
/* Queues the interface unit fills: the host-fed ones (q), then the paths (G_PATH + p). */
enum { G_PATH = WT_NQUEUES, NFED = WT_NQUEUES + WT_NPATHS };
/* The interface unit's operands in a fop: its registers (IU_REG + r) and its bundle's
 * own literal fields; the first cell's run computes its values, so a branch on a path
 * word it counted goes its way. */
enum { IU_REG = 128, IU_IMM0 = IU_REG + WT_OPND_NREGS, IU_IMM1, PATH_WORDS = 256 };
_Static_assert((int)IU_IMM1 < (int)WT_OPND_IMM0, "the IU's operand codes stay below the cells' literals");
static int is_iu_reg(unsigned code) { return code >= IU_REG && code < IU_REG + WT_OPND_NREGS; }
enum { MAX_NEST = 48, MAX_WIDEN = 64, DEFAULT_BUDGET = 1 << 22 };
enum { IPDOM_UNKNOWN = -3, IPDOM_NONE = -2, IPDOM_RET = -1 };
enum { STOP_J = 0, STOP_B = 1 };

/* ---- The program, decoded once ------------------------------------------------------- */

typedef struct fop {
    uint8_t op, kind, slot, lat, ivl;
    uint8_t dst;              /* operand code; 0 when none */
    uint8_t a, b, c;          /* source operand codes (IMM0/IMM1 as such); 0 is r0 */
    uint8_t reads;            /* bit 0 a, bit 1 b, bit 2 c: sources the operation reads */
    uint8_t iu;               /* the interface unit's: its units are its own, never the cells' busy ones */
} fop;

typedef struct fbundle {
    fop ops[2 * WT_NSLOTS];   /* stores last, as the simulator orders them; the IU's feeds before them */
    uint8_t nops, bad, gate_rd, clocks, reads_cid;
    uint16_t target;
    uint32_t imm[2], iu_imm[2];
    uint32_t obj_lo[2], obj_hi[2];   /* the words of the object immediate k names (lo == hi: none) */
} fbundle;

static void decode(const wfc_program *p, uint32_t pc, fbundle *b)
{
    const wt_model *m = p->model;
    const wt_insn *in = &p->code[pc];
    memset(b, 0, sizeof *b);
    uint32_t nwords = m->data_mem_bytes / 4;
    for (int k = 0; k < 2 && p->object; k++) {
        uint32_t addr, size;
        if (!p->object(p->ctx, pc, k, &addr, &size) || size == 0 || addr / 4 >= nwords) continue;
        uint64_t end = ((uint64_t)addr + size + 3) / 4;
        b->obj_lo[k] = addr / 4;
        b->obj_hi[k] = end < nwords ? (uint32_t)end : nwords;
    }
    /* The cells' operations as target decodes them for the simulator; a bundle the
     * simulator faults at ends the abstract run too. */
    wt_dbundle db;
    wt_decode_bundle(m, in, &db);
    b->target = db.target;
    b->imm[0] = db.imm[0];
    b->imm[1] = db.imm[1];
    b->clocks = db.clocks;
    if (p->iu_code) {
        b->iu_imm[0] = p->iu_code[pc].imm[0];
        b->iu_imm[1] = p->iu_code[pc].imm[1];
    }
    b->bad = db.fault != WT_FAULT_NONE;
    fop stores[WT_NSLOTS];
    unsigned nstores = 0;
    for (unsigned i = 0; i < db.nops; i++) {
        const wt_dop *d = &db.ops[i];
        /* The abstract values are 32-bit words: a double (a fault on the Warp, which
         * decoding found) ends the run on any model. */
        if (wt_kinds[d->kind].value == WT_VAL_DOUBLE) b->bad = 1;
        fop o = {.op = d->op, .kind = d->kind, .slot = d->slot, .lat = d->lat, .ivl = d->interval, .dst = d->dst,
                 .a = d->src[0], .b = d->src[1], .c = d->src[2], .reads = d->reads};
        for (int k = 0; k < 3; k++) {
            if (!(o.reads >> k & 1)) continue;
            if (wt_opnd_is_gate(d->src[k])) b->gate_rd |= (uint8_t)(1u << (d->src[k] - WT_OPND_GATE));
            if (wt_opnd_is_path(d->src[k])) b->gate_rd |= (uint8_t)(1u << (G_PATH + d->src[k] - WT_OPND_PATH));
            if (d->src[k] == WT_OPND_CID) b->reads_cid = 1;
        }
        /* the IU's operations go between the cells' stores and the rest */
        if (wt_kinds[o.kind].memory == WT_MEM_STORE) stores[nstores++] = o;
        else b->ops[b->nops++] = o;
    }
    /* The IU's feeds: words from the host (unknown), landing after the operation's
     * latency; and its path words, which only the first cell's queue takes. */
    unsigned iu_words = 0, path_words[WT_NPATHS] = {0};
    for (unsigned s = 0; p->iu_code && s < WT_NSLOTS; s++) {
        const wt_slot *sl = &p->iu_code[pc].slot[s];
        if (sl->op == WT_OP_NONE || sl->op >= WT_NOPS || !wt_op_has_dest((wt_op)sl->op)) continue;
        if (!wt_opnd_is_feed(sl->opnd[0])) {
            /* registers and path words: values the run computes as the IU does */
            const wt_op_info *info = &wt_ops[sl->op];
            if (wt_iu_slot_fault(&p->iu_code[pc], s) || wt_opnd_is_addr(sl->opnd[0])) continue;
            fop o = {.op = (uint8_t)sl->op, .kind = (uint8_t)info->kind, .slot = (uint8_t)s,
                     .lat = info->latency[m->id], .ivl = 1, .iu = 1};
            uint8_t *src[3] = {&o.a, &o.b, &o.c};
            for (const char *q = info->sig; *q; q++) {
                int sub = wt_sig_subfield(*q);
                if (*q == 'd') {
                    unsigned d = sl->opnd[0];
                    o.dst = wt_opnd_is_reg(d) ? (d ? (uint8_t)(IU_REG + d) : 0) : (uint8_t)d;
                    continue;
                }
                for (int k = 0; k < 3; k++) {
                    if (!(*q == 'm' ? k < 2 : k == sub - 1)) continue;
                    unsigned x = sl->opnd[k + 1];
                    *src[k] = x == WT_OPND_IMM0 ? IU_IMM0 : x == WT_OPND_IMM1 ? IU_IMM1 : x ? (uint8_t)(IU_REG + x) : 0;
                    o.reads |= (uint8_t)(1u << k);
                }
            }
            if (wt_opnd_is_path(sl->opnd[0])) path_words[sl->opnd[0] - WT_OPND_PATH]++;
            b->ops[b->nops++] = o;
            continue;
        }
        const wt_op_info *info = &wt_ops[sl->op];
        b->ops[b->nops++] = (fop){.op = (uint8_t)sl->op, .kind = WT_K_HLOAD, .slot = (uint8_t)s,
                                  .lat = info->latency[m->id], .ivl = 1, .dst = sl->opnd[0], .iu = 1};
        iu_words++;
    }
    for (unsigned i = 0; i < nstores; i++) b->ops[b->nops++] = stores[i];
    if (iu_words > b->clocks) b->clocks = (uint8_t)iu_words;
    for (unsigned k = 0; k < WT_NPATHS; k++) {
        unsigned need = (path_words[k] + wt_paths[k].per_clock - 1) / wt_paths[k].per_clock;
        if (need > b->clocks) b->clocks = (uint8_t)need;
    }
}

/* The value of a pure operation: the expression from warp_ops.def, as the
 * simulator computes it. */
static uint32_t op_value(unsigned op, uint32_t A, uint32_t B, uint32_t C)
{
    switch (op) {
#define WT_OP(id, mn, uc, code, sig, ity, lw, li, iw, ii, kind, sem) \
    case WT_OP_##id: return (uint32_t)(sem);
#include "warp_ops.def"
#undef WT_OP
    default: return 0;
    }
}

/* ---- Abstract state --------------------------------------------------------------------- */

typedef struct aval { uint32_t v; uint8_t k; } aval;   /* k: the value is known */

typedef struct pend { int at; uint8_t dst; aval val; } pend;   /* lands `at` clocks from now */

typedef struct ev {
    int64_t lo, hi;           /* issue clock */
    uint32_t pc;
    uint32_t cause;           /* hi == T_INF: the loop blamed for it */
    uint8_t lat;
    int8_t op;                /* which operation of the bundle: WFC_RECEIVE + q, WFC_SEND + q */
} ev;

typedef struct evlog {
    ev *e[NSTREAMS];
    int n[NSTREAMS], cap[NSTREAMS];
} evlog;

typedef struct path {
    uint32_t pc;
    int64_t lo, hi;           /* the clock at which the next bundle issues */
    uint32_t cause;           /* hi == T_INF: the bundle blamed for it */
    int halted;               /* 1 halted, 2 faulted (the run stops; its timing no longer matters) */
    aval reg[WT_OPND_NREGS];
    uint32_t *mem;
    uint8_t *memk;
    int memk_any;             /* some memk may be set (else all memory is unknown already) */
    pend *pend;
    int npend, cappend;
    int busy_lo[WT_NSLOTS], busy_hi[WT_NSLOTS];
    uint32_t *rstack;
    unsigned rsp;
    int fed[NFED];            /* words the IU fed that landed in a queue facing the host (or the first
                                 cell's path queue), not yet read */
    int held[NFED];           /* slots of that queue taken (fed or on their way), not yet read */
    aval iureg[WT_OPND_NREGS];   /* the interface unit's registers (the first cell's run) */
    aval pathq[WT_NPATHS][PATH_WORDS]; /* the first cell's path queues: the words landed */
    int phead[WT_NPATHS], pcount[WT_NPATHS];
    aval path_now[WT_NPATHS];    /* the word the bundle being issued read from each path */
    int pread[WT_NPATHS];        /* words this run has read from each path; -1 once ways that read
                                    different numbers merged */
    evlog log;
} path;

typedef struct level {
    uint32_t b;               /* the branch */
    int32_t j;                /* where its ways meet: a pc, or IPDOM_RET */
    unsigned depth;           /* return-stack depth of the branch */
    uint8_t *visit;           /* bundles run at that depth, to find the statement: the
                                 number of the last way (from 1) that ran each */
    uint8_t way;
    uint8_t *in_loop;         /* bundles of the ways that came back to the branch */
    uint32_t *trail;          /* bundles the current way ran, each once */
    size_t ntrail, captrail;
} level;

typedef struct an {
    const wfc_program *p;
    const wt_model *m;
    fbundle *code;
    uint32_t nwords;
    int cid;
    uint8_t host_side;        /* bit q: queue q of this cell faces the host */
    uint8_t first;            /* the first cell: the IU fills its path queues */
    uint8_t path_values;      /* this run's path words are the first cell's: it runs the IU */
    uint8_t uses_cid;         /* cells differ: a run a cell */
    /* The words the first cell's run read from each path, in order (each known where
     * every way that read it agrees). Every cell reads the same words in the same
     * order (each passes on what it reads), so another cell's i-th word is the first
     * cell's i-th: its run, which does not run the IU, takes its words from here. */
    aval *pseq[WT_NPATHS];
    int npseq[WT_NPATHS], cappseq[WT_NPATHS];
    uint64_t budget, used;
    int32_t *ipdom;           /* per pc, cached */
    level lv[MAX_NEST];
    int nlv;
    wfc_result *out;
    int failed;
} an;

static const char *const toward_name[NFED] = {"toward the left on X", "toward the left on Y",
                                              "toward the right on X", "toward the right on Y",
                                              "on along the address path"};
static const char *const from_name[NFED] = {"from the left on X", "from the left on Y",
                                            "from the right on X", "from the right on Y",
                                            "from the address path"};
_Static_assert(WT_NPATHS == 1, "one name a path above");

static const char *where(const an *A, uint32_t pc, int op, char *buf, size_t size)
{
    const char *w = A->p->where ? A->p->where(A->p->ctx, pc, op, buf, size) : NULL;
    if (!w || !*w) {
        snprintf(buf, size, "pc %u", pc);
        return buf;
    }
    return w;
}

static int vfail(an *A, uint32_t pc, int op, const char *note, const char *fmt, va_list ap)
{
    if (A->failed) return -1;
    A->failed = 1;
    A->out->pc = pc;
    A->out->op = op;
    vsnprintf(A->out->message, sizeof A->out->message, fmt, ap);
    snprintf(A->out->note, sizeof A->out->note, "%s", note ? note : "");
    return -1;
}

/* The statement to blame is the bundle's (a loop's or an if's head)... */
static int fail(an *A, uint32_t pc, const char *note, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(an *A, uint32_t pc, const char *note, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(A, pc, WFC_BUNDLE, note, fmt, ap);
    va_end(ap);
    return -1;
}

/* ...or that of the receive or send e. */
static int fail_io(an *A, const ev *e, const char *note, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail_io(an *A, const ev *e, const char *note, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(A, e->pc, e->op, note, fmt, ap);
    va_end(ap);
    return -1;
}

static const char *const RUNTIME_NOTE =
    "-mcpu=warp times every receive and send at compile time (the Warp had no run-time flow control); "
    "-mcpu=iwarp, or -fno-flow-control, lets cells wait for their queues at run time";

static void path_init(an *A, path *P)
{
    memset(P, 0, sizeof *P);
    P->mem = ws_xcalloc(A->nwords ? A->nwords : 1, sizeof *P->mem);
    P->memk = ws_xcalloc(A->nwords ? A->nwords : 1, 1);
    P->rstack = ws_xcalloc(A->m->ret_stack_depth ? A->m->ret_stack_depth : 1, sizeof *P->rstack);
    P->cause = UINT32_MAX;
}

static void log_free(evlog *l)
{
    for (int s = 0; s < NSTREAMS; s++) free(l->e[s]);
    memset(l, 0, sizeof *l);
}

static void path_free(path *P)
{
    free(P->mem);
    free(P->memk);
    free(P->pend);
    free(P->rstack);
    log_free(&P->log);
}

/* A copy of the state, with an empty event log. */
static void path_copy(an *A, path *to, const path *from)
{
    /* a copy of the memory costs the budget what running that many bundles would */
    A->used += A->nwords / 64;
    path_init(A, to);
    uint32_t *mem = to->mem, *rstack = to->rstack;
    uint8_t *memk = to->memk;
    *to = *from;
    to->mem = mem;
    to->memk = memk;
    to->rstack = rstack;
    memcpy(to->mem, from->mem, sizeof *mem * (A->nwords ? A->nwords : 1));
    memcpy(to->memk, from->memk, A->nwords ? A->nwords : 1);
    memcpy(to->rstack, from->rstack, sizeof *rstack * (A->m->ret_stack_depth ? A->m->ret_stack_depth : 1));
    to->pend = from->npend ? ws_xmalloc(sizeof *to->pend * (size_t)from->npend) : NULL;
    if (from->npend) memcpy(to->pend, from->pend, sizeof *to->pend * (size_t)from->npend);
    to->cappend = from->npend;
    memset(&to->log, 0, sizeof to->log);
}

static void log_add(evlog *l, int s, ev e)
{
    if (l->n[s] == l->cap[s]) {
        l->cap[s] = l->cap[s] ? 2 * l->cap[s] : 16;
        l->e[s] = ws_xrealloc(l->e[s], sizeof *l->e[s] * (size_t)l->cap[s]);
    }
    l->e[s][l->n[s]++] = e;
}

static void log_append(evlog *to, const evlog *from)
{
    for (int s = 0; s < NSTREAMS; s++)
        for (int i = 0; i < from->n[s]; i++) log_add(to, s, from->e[s][i]);
}

static void record(path *P, int stream, uint32_t pc, uint8_t lat)
{
    ev e = {P->lo, P->hi, pc, P->hi >= T_INF ? P->cause : UINT32_MAX, lat,
            (int8_t)(stream < S_FEED ? stream : WFC_BUNDLE)};
    log_add(&P->log, stream, e);
}

/* ---- Running ------------------------------------------------------------------------------ */

static void land_one(an *A, path *P, const pend *w)
{
    (void)A;
    if (w->dst < WT_OPND_NREGS) {
        if (w->dst) P->reg[w->dst] = w->val;
    } else if (wt_opnd_is_feed(w->dst)) {
        P->fed[w->dst - WT_OPND_FEED]++;
    } else if (wt_opnd_is_path(w->dst)) {
        unsigned k = w->dst - WT_OPND_PATH;
        P->fed[G_PATH + k]++;
        if (P->pcount[k] < PATH_WORDS) P->pathq[k][(P->phead[k] + P->pcount[k]++) % PATH_WORDS] = w->val;
    } else if (is_iu_reg(w->dst)) {
        P->iureg[w->dst - IU_REG] = w->val;
    }
}

/* Moves time on by d_hi clocks at the latest and d_lo at the earliest (they differ
 * only when merged paths had a unit busy for different times). */
static void advance(an *A, path *P, int d_lo, int d_hi)
{
    if (d_lo != d_hi && P->npend) {
        /* When the writes in flight land is no longer certain: their registers
         * hold either value meanwhile. */
        for (int i = 0; i < P->npend; i++)
            if (P->pend[i].dst < WT_OPND_NREGS && P->pend[i].dst) P->reg[P->pend[i].dst].k = 0;
            else if (is_iu_reg(P->pend[i].dst)) P->iureg[P->pend[i].dst - IU_REG].k = 0;
            else land_one(A, P, &P->pend[i]);
        P->npend = 0;
    }
    for (int c = 0; c < d_hi && P->npend; c++) {
        int n = 0;
        for (int i = 0; i < P->npend; i++) {
            if (--P->pend[i].at <= 0) land_one(A, P, &P->pend[i]);
            else P->pend[n++] = P->pend[i];
        }
        P->npend = n;
    }
    for (int s = 0; s < WT_NSLOTS; s++) {
        P->busy_lo[s] = P->busy_lo[s] > d_lo ? P->busy_lo[s] - d_lo : 0;
        P->busy_hi[s] = P->busy_hi[s] > d_hi ? P->busy_hi[s] - d_hi : 0;
    }
    P->lo += d_lo;
    P->hi = P->hi >= T_INF ? T_INF : P->hi + d_hi;
}

static void schedule(path *P, int at, uint8_t dst, aval v)
{
    if (P->npend == P->cappend) {
        P->cappend = P->cappend ? 2 * P->cappend : 16;
        P->pend = ws_xrealloc(P->pend, sizeof *P->pend * (size_t)P->cappend);
    }
    P->pend[P->npend++] = (pend){at, dst, v};
}

static aval source(const an *A, const path *P, const fbundle *b, uint8_t code)
{
    if (code < WT_OPND_NREGS) return code ? P->reg[code] : (aval){0, 1};
    if (code == WT_OPND_CID) return (aval){(uint32_t)A->cid, 1};
    if (code == WT_OPND_IMM0) return (aval){b->imm[0], 1};
    if (code == WT_OPND_IMM1) return (aval){b->imm[1], 1};
    if (is_iu_reg(code)) return P->iureg[code - IU_REG];
    if (code == IU_IMM0 || code == IU_IMM1) return (aval){b->iu_imm[code - IU_IMM0], 1};
    if (wt_opnd_is_path(code)) return P->path_now[code - WT_OPND_PATH];
    return (aval){0, 0};   /* a received word */
}

static int word_index(const an *A, aval addr, uint32_t *w)
{
    if (!addr.k || (addr.v & 3) || A->m->data_mem_bytes < 4 || addr.v > A->m->data_mem_bytes - 4) return 0;
    *w = addr.v / 4;
    return 1;
}

/* A store to an address the run does not know. When one of its address operands
 * is an immediate whose relocation names a data object (a subscripted array: the
 * array's symbol, the subscript in the register), it changes a word of that object
 * only, so loop counters and frame slots elsewhere keep their values (W2 subscripts
 * are not checked; one outside its array is taken not to reach what the timing
 * depends on, and if it did, the simulator's check of every receive and send of a
 * flow-controlled run would stop it). Without one, any word may have changed. */
static void forget_stored(const an *A, path *P, const fbundle *b, const fop *o)
{
    const uint8_t opnd[2] = {o->a, o->b};
    for (int i = 0; i < 2; i++) {
        int k = opnd[i] == WT_OPND_IMM0 ? 0 : opnd[i] == WT_OPND_IMM1 ? 1 : -1;
        if (k < 0 || b->obj_lo[k] == b->obj_hi[k]) continue;
        memset(P->memk + b->obj_lo[k], 0, b->obj_hi[k] - b->obj_lo[k]);
        return;
    }
    memset(P->memk, 0, A->nwords);
    P->memk_any = 0;
}

enum { STEP_ON, STEP_UNKNOWN_BRANCH, STEP_ERROR };

/* Issues the bundle at P->pc. STEP_UNKNOWN_BRANCH leaves pc at the branch: which way
 * it goes depends on an unknown value. */
static int step(an *A, path *P)
{
    if (P->pc >= A->p->ncode || A->code[P->pc].bad) {
        P->halted = 2;
        return STEP_ON;
    }
    if (++A->used > A->budget)
        return fail(A, P->pc, RUNTIME_NOTE,
                    "timing this program's I/O at compile time takes more than %llu bundles of abstract "
                    "execution (all cells together, both ways of every branch on data): too long",
                    (unsigned long long)A->budget),
               STEP_ERROR;
    const fbundle *b = &A->code[P->pc];
    uint32_t pc = P->pc;
    int slo = 0, shi = 0;
    for (unsigned i = 0; i < b->nops; i++) {
        int s = b->ops[i].slot;
        if (b->ops[i].iu) continue;
        if (P->busy_lo[s] > slo) slo = P->busy_lo[s];
        if (P->busy_hi[s] > shi) shi = P->busy_hi[s];
    }
    if (shi) advance(A, P, slo, shi);

    /* Host-fed queues: the word a receive reads must have landed, and feeds may
     * not take more slots than the queue has (the compiler's own invariant). */
    for (unsigned q = 0; q < WT_NQUEUES; q++) {
        if (!(b->gate_rd >> q & 1) || !(A->host_side >> q & 1)) continue;
        if (P->fed[q] <= 0)
            return fail(A, pc, NULL, "internal compiler error: the host's word for this receive %s is fed too late",
                        from_name[q]),
                   STEP_ERROR;
    }
    int feeds[WT_NQUEUES] = {0};
    for (unsigned i = 0; i < b->nops; i++)
        if (wt_opnd_is_feed(b->ops[i].dst)) feeds[b->ops[i].dst - WT_OPND_FEED]++;
    for (unsigned q = 0; q < WT_NQUEUES; q++) {
        if (!feeds[q] || !(A->host_side >> q & 1)) continue;
        if (P->held[q] + feeds[q] > (int)A->m->queue_words)
            return fail(A, pc, NULL, "internal compiler error: more than %u words fed ahead of their receives %s",
                        A->m->queue_words, from_name[q]),
                   STEP_ERROR;
        P->held[q] += feeds[q];
    }

    for (unsigned q = 0; q < WT_NQUEUES; q++) {
        if (!(b->gate_rd >> q & 1)) continue;
        record(P, S_RECV + (int)q, pc, 0);
        if (A->host_side >> q & 1) {
            P->fed[q]--;
            P->held[q]--;
        }
    }
    for (unsigned k = 0; k < WT_NPATHS; k++) {
        unsigned g = G_PATH + k;
        int iu_words = 0;
        for (unsigned i = 0; i < b->nops; i++) iu_words += b->ops[i].dst == WT_OPND_PATH + k;
        if (!(b->gate_rd >> g & 1) && !iu_words) continue;
        if (A->path_values) {
            if (A->first && (b->gate_rd >> g & 1) && P->fed[g] <= 0)
                return fail(A, pc, NULL, "the interface unit's word for this read of %s lands too late",
                            wt_paths[k].name),
                       STEP_ERROR;
            if (A->first && P->held[g] + iu_words > (int)wt_paths[k].words)
                return fail(A, pc, NULL, "the interface unit writes more than %u words to %s ahead of their reads",
                            wt_paths[k].words, wt_paths[k].name),
                       STEP_ERROR;
            P->held[g] += iu_words;
        }
        if (!(b->gate_rd >> g & 1)) continue;
        /* read here, passed on to the next cell a mv's latency later */
        record(P, S_PATH + (int)k, pc, wt_ops[WT_OP_MV].latency[A->m->id]);
        P->path_now[k] = (aval){0, 0};
        int i = P->pread[k];
        if (i >= 0) P->pread[k]++;
        if (A->path_values) {
            P->fed[g]--;
            P->held[g]--;
            if (P->pcount[k]) {
                P->path_now[k] = P->pathq[k][P->phead[k]];
                P->phead[k] = (P->phead[k] + 1) % PATH_WORDS;
                P->pcount[k]--;
            }
            if (A->first && A->uses_cid && i >= 0) {
                /* reads go in order along a way: index i is the next one, or one another way read */
                if (i == A->npseq[k]) {
                    if (A->npseq[k] == A->cappseq[k]) {
                        A->cappseq[k] = A->cappseq[k] ? 2 * A->cappseq[k] : 64;
                        A->pseq[k] = ws_xrealloc(A->pseq[k], sizeof *A->pseq[k] * (size_t)A->cappseq[k]);
                    }
                    A->pseq[k][A->npseq[k]++] = P->path_now[k];
                } else if (i < A->npseq[k]) {
                    aval *w = &A->pseq[k][i];
                    if (!P->path_now[k].k || w->v != P->path_now[k].v) w->k = 0;
                }
            }
        } else if (i >= 0 && i < A->npseq[k]) {
            P->path_now[k] = A->pseq[k][i];
        }
    }
    uint32_t next = pc + 1;
    int unknown_branch = 0, halt = 0;
    for (unsigned i = 0; i < b->nops; i++) {
        const fop *o = &b->ops[i];
        aval a = o->reads & 1 ? source(A, P, b, o->a) : (aval){0, 1};
        aval bb = o->reads & 2 ? source(A, P, b, o->b) : (aval){0, 1};
        aval c = o->reads & 4 ? source(A, P, b, o->c) : (aval){0, 1};
        aval v = {0, 0};
        uint32_t w;
        if (o->ivl > 1) {
            if (P->busy_lo[o->slot] < o->ivl) P->busy_lo[o->slot] = o->ivl;
            if (P->busy_hi[o->slot] < o->ivl) P->busy_hi[o->slot] = o->ivl;
        }
        /* The kind's columns, abstracted: what the simulator would do with the
         * values known, unknown where it depends on one that is not. */
        const wt_kind_info *K = &wt_kinds[o->kind];
        aval loaded = {0, 0};
        aval addr = {a.v + bb.v, (uint8_t)(a.k && bb.k)};
        switch ((wt_memory)K->memory) {
        case WT_MEM_NONE:
        case WT_MEM_HOST_LOAD:   /* host data is not the run's to know */
        case WT_MEM_IU_TABLE:    /* nor the IU's table (the image's, not the program's) */
            break;
        case WT_MEM_LOAD:
            if (word_index(A, addr, &w)) loaded = (aval){P->mem[w], P->memk[w]};
            else if (addr.k) halt = 2;
            break;
        case WT_MEM_STORE:
            if (word_index(A, addr, &w)) {
                P->mem[w] = c.v;
                P->memk[w] = c.k;
                P->memk_any |= c.k;
            } else if (addr.k) {
                halt = 2;
            } else if (P->memk_any) {
                forget_stored(A, P, b, o);
            }
            break;
        }
        switch ((wt_value)K->value) {
        case WT_VAL_NONE: break;
        case WT_VAL_EXPR:
            if (o->op == WT_OP_SEL) {   /* a known condition picks a value, unknown or not */
                if (a.k) v = a.v ? bb : c;
                else if (bb.k && c.k && bb.v == c.v) v = bb;
            } else if (a.k && bb.k && c.k) {
                v = (aval){op_value(o->op, a.v, bb.v, c.v), 1};
            }
            break;
        case WT_VAL_EXPR_DIV0:
            if (bb.k && bb.v == 0) halt = 2;   /* the simulator stops the run here */
            if (a.k && bb.k) v = (aval){op_value(o->op, a.v, bb.v, c.v), 1};
            break;
        case WT_VAL_LOADED: v = loaded; break;
        case WT_VAL_DOUBLE:   /* decoding refused it */
        case WT_VAL_AGENT:    /* the Warp has no communication agent: the simulator stops */
            halt = 2;
            continue;
        }
        switch ((wt_flow)K->flow) {
        case WT_FLOW_NEXT: break;
        case WT_FLOW_JUMP: next = b->target; break;
        case WT_FLOW_IF_ZERO:
        case WT_FLOW_IF_NONZERO:
            if (!c.k) unknown_branch = 1;
            else if ((c.v == 0) == (K->flow == WT_FLOW_IF_ZERO)) next = b->target;
            break;
        case WT_FLOW_COUNT_DOWN:
            if (c.k) {
                v = (aval){c.v - 1, 1};
                if (v.v != 0) next = b->target;
            } else {
                unknown_branch = 1;
            }
            break;
        case WT_FLOW_CALL:
            if (P->rsp >= A->m->ret_stack_depth) {
                halt = 2;
                continue;
            }
            P->rstack[P->rsp++] = pc + 1;
            next = b->target;
            break;
        case WT_FLOW_RETURN:
            if (P->rsp == 0) {
                halt = 2;
                continue;
            }
            next = P->rstack[--P->rsp];
            break;
        case WT_FLOW_HALT: halt = 1; break;
        }
        if (!o->dst) continue;
        if (o->dst < WT_OPND_NREGS) {
            schedule(P, o->lat, o->dst, v);
        } else if (wt_opnd_is_gate(o->dst)) {
            record(P, S_SEND + (o->dst - WT_OPND_GATE), pc, o->lat);
        } else if (wt_opnd_is_feed(o->dst)) {
            record(P, S_FEED + (o->dst - WT_OPND_FEED), pc, o->lat);
            if (A->host_side >> (o->dst - WT_OPND_FEED) & 1) schedule(P, o->lat, o->dst, v);
        } else if (wt_opnd_is_path(o->dst)) {
            if (A->path_values) schedule(P, o->lat, o->dst, v);
        } else if (is_iu_reg(o->dst)) {
            schedule(P, o->lat, o->dst, v);
        }
    }
    advance(A, P, b->clocks, b->clocks);
    if (halt) {
        P->halted = halt;
        return STEP_ON;
    }
    if (unknown_branch) return STEP_UNKNOWN_BRANCH;
    P->pc = next;
    return STEP_ON;
}

/* ---- Where the ways of a branch meet ---------------------------------------------------- */

/* Successors within the function (a call continues after itself); *exits when the
 * bundle may leave it (ret, halt, or the end of the program). */
static int succs(const an *A, uint32_t pc, uint32_t s[2], int *exits)
{
    *exits = 0;
    const fbundle *b = &A->code[pc];
    int n = 0;
    if (b->bad) {
        *exits = 1;
        return 0;
    }
    wt_flow flow = WT_FLOW_NEXT;
    for (unsigned i = 0; i < b->nops; i++)
        if (wt_op_flow((wt_op)b->ops[i].op) != WT_FLOW_NEXT) flow = wt_op_flow((wt_op)b->ops[i].op);
    uint32_t cand[2];
    int nc = 0;
    if (wt_flow_branches(flow)) cand[nc++] = b->target;
    if (wt_flow_falls_through(flow)) cand[nc++] = pc + 1;
    if (wt_flow_exits(flow)) *exits = 1;
    for (int i = 0; i < nc; i++) {
        if (cand[i] >= A->p->ncode) *exits = 1;
        else if (n == 0 || s[0] != cand[i]) s[n++] = cand[i];
    }
    return n;
}

/* The immediate post-dominator of bundle b within its function: the immediate
 * dominator on the reversed graph of what b reaches. */
static int32_t ipdom(an *A, uint32_t b)
{
    if (A->ipdom[b] != IPDOM_UNKNOWN) return A->ipdom[b];
    uint32_t ncode = A->p->ncode;
    int32_t *num = ws_xmalloc(sizeof *num * ncode);
    for (uint32_t i = 0; i < ncode; i++) num[i] = -1;
    /* Nodes: 0 is the exit, then what b reaches. */
    uint32_t *node = ws_xmalloc(sizeof *node * (ncode + 1));
    int n = 1;
    node[n] = b;
    num[b] = n++;
    for (int i = 1; i < n; i++) {
        uint32_t s[2];
        int ex, k = succs(A, node[i], s, &ex);
        for (int j = 0; j < k; j++)
            if (num[s[j]] < 0) {
                node[n] = s[j];
                num[s[j]] = n++;
            }
    }
    /* The graph with the exit (node 0) after every exiting node; its dominators
     * turned round are the post-dominators. */
    int *from = ws_xmalloc(sizeof *from * (size_t)n * 3), *to = ws_xmalloc(sizeof *to * (size_t)n * 3), ne = 0;
    for (int i = 1; i < n; i++) {
        uint32_t s[2];
        int ex, k = succs(A, node[i], s, &ex);
        for (int j = 0; j < k; j++) {
            from[ne] = i;
            to[ne++] = num[s[j]];
        }
        if (ex) {
            from[ne] = i;
            to[ne++] = 0;
        }
    }
    ws_graph cfg = ws_graph_new(n, from, to, ne), reversed = ws_graph_reverse(&cfg);
    int *idom = ws_xmalloc(sizeof *idom * (size_t)n);
    ws_graph_idom(&reversed, 0, idom);
    int32_t r = idom[1] < 0 ? IPDOM_NONE : idom[1] == 0 ? IPDOM_RET : (int32_t)node[idom[1]];
    A->ipdom[b] = r;
    ws_graph_free(&cfg);
    ws_graph_free(&reversed);
    free(num);
    free(node);
    free(from);
    free(to);
    free(idom);
    return r;
}

/* ---- Merging ------------------------------------------------------------------------------ */

/* The bundle among those visited (and b) with the earliest source position in b's
 * file: the head of the statement (a loop's or an if's first line). */
static uint32_t blame(const an *A, uint32_t b, const uint8_t *visit)
{
    if (!A->p->position) return b;
    unsigned bf, bl, bc;
    if (!A->p->position(A->p->ctx, b, WFC_BUNDLE, &bf, &bl, &bc) || !bl) return b;
    uint32_t best = b;
    for (uint32_t pc = 0; visit && pc < A->p->ncode; pc++) {
        unsigned f, l, c;
        if (!visit[pc] || !A->p->position(A->p->ctx, pc, WFC_BUNDLE, &f, &l, &c) || f != bf || !l) continue;
        /* A bundle without a line record of its own has its predecessor's: when
         * that one lies outside the statement, so does the position. */
        unsigned pf, pl, pcol;
        if (pc > 0 && !visit[pc - 1] && A->p->position(A->p->ctx, pc - 1, WFC_BUNDLE, &pf, &pl, &pcol) &&
            pf == f && pl == l && pcol == c)
            continue;
        /* column 0 is a position on the line without a column: any column is better */
        if (l < bl || (l == bl && c - 1 < bc - 1)) {
            bl = l;
            bc = c;
            best = pc;
        }
    }
    return best;
}

/* The statement of a loop whose exit depends on data (visit: the loop's bundles,
 * those of the ways back to b, not the code after it). A loop the compiler rotated
 * (its test at the bottom, b branching back) carries the test's position on its
 * last bundles, often the body's; its statement is that of the guard before it,
 * the conditional branch that skips the loop, when that comes no later in the
 * source than the body. */
static uint32_t loop_blame(const an *A, uint32_t b, const uint8_t *visit)
{
    uint32_t best = blame(A, b, visit);
    unsigned bf, bl, bc, f, l, c;
    if (!A->p->position || A->code[b].target > b ||
        !A->p->position(A->p->ctx, best, WFC_BUNDLE, &bf, &bl, &bc))
        return best;
    uint32_t head = b;
    while (head > 0 && visit[head - 1]) head--;
    for (uint32_t pc = head, steps = 0; pc-- > 0 && steps < 64; steps++) {
        const fbundle *x = &A->code[pc];
        int flow = -1;
        for (unsigned i = 0; i < x->nops; i++)
            if (wt_op_flow((wt_op)x->ops[i].op) != WT_FLOW_NEXT) flow = wt_op_flow((wt_op)x->ops[i].op);
        if (flow < 0) continue;
        if ((flow == WT_FLOW_IF_ZERO || flow == WT_FLOW_IF_NONZERO) && x->target > b &&
            A->p->position(A->p->ctx, pc, WFC_BUNDLE, &f, &l, &c) && f == bf && l && l <= bl)
            return pc;
        break;
    }
    return best;
}

static int same_values(const an *A, const path *x, const path *y)
{
    for (int r = 1; r < WT_OPND_NREGS; r++)
        if (x->reg[r].k != y->reg[r].k || (x->reg[r].k && x->reg[r].v != y->reg[r].v)) return 0;
    for (uint32_t w = 0; w < A->nwords; w++)
        if (x->memk[w] != y->memk[w] || (x->memk[w] && x->mem[w] != y->mem[w])) return 0;
    if (x->npend != y->npend) return 0;
    for (int i = 0; i < x->npend; i++) {
        const pend *a = &x->pend[i], *b = &y->pend[i];
        if (a->at != b->at || a->dst != b->dst || a->val.k != b->val.k || (a->val.k && a->val.v != b->val.v))
            return 0;
    }
    for (int q = 0; q < NFED; q++)
        if (x->fed[q] != y->fed[q] || x->held[q] != y->held[q]) return 0;
    for (int r = 1; r < WT_OPND_NREGS; r++)
        if (x->iureg[r].k != y->iureg[r].k || (x->iureg[r].k && x->iureg[r].v != y->iureg[r].v)) return 0;
    for (int k = 0; k < WT_NPATHS; k++) {
        if (x->pcount[k] != y->pcount[k] || x->pread[k] != y->pread[k]) return 0;
        for (int i = 0; i < x->pcount[k]; i++) {
            aval a = x->pathq[k][(x->phead[k] + i) % PATH_WORDS], c = y->pathq[k][(y->phead[k] + i) % PATH_WORDS];
            if (a.k != c.k || (a.k && a.v != c.v)) return 0;
        }
    }
    return 1;
}

/* x becomes what holds on either way: times widen, differing values become unknown. */
static void merge_state(const an *A, path *x, const path *y)
{
    if (y->lo < x->lo) x->lo = y->lo;
    if (y->hi > x->hi) {
        if (y->hi >= T_INF && x->hi < T_INF) x->cause = y->cause;
        x->hi = y->hi;
    }
    for (int r = 1; r < WT_OPND_NREGS; r++)
        if (!y->reg[r].k || x->reg[r].v != y->reg[r].v) x->reg[r].k = 0;
    for (int r = 1; r < WT_OPND_NREGS; r++)
        if (!y->iureg[r].k || x->iureg[r].v != y->iureg[r].v) x->iureg[r].k = 0;
    for (int k = 0; k < WT_NPATHS; k++) {
        /* words either way holds: the fewer (a read past them is unknown), each known where both agree */
        if (x->pread[k] != y->pread[k]) x->pread[k] = -1;
        if (y->pcount[k] < x->pcount[k]) x->pcount[k] = y->pcount[k];
        for (int i = 0; i < x->pcount[k]; i++) {
            aval *a = &x->pathq[k][(x->phead[k] + i) % PATH_WORDS];
            aval c = y->pathq[k][(y->phead[k] + i) % PATH_WORDS];
            if (!c.k || a->v != c.v) a->k = 0;
        }
    }
    for (uint32_t w = 0; w < A->nwords; w++)
        if (!y->memk[w] || x->mem[w] != y->mem[w]) x->memk[w] = 0;
    int same = x->npend == y->npend;
    for (int i = 0; same && i < x->npend; i++) {
        const pend *a = &x->pend[i], *b = &y->pend[i];
        same = a->at == b->at && a->dst == b->dst && a->val.k == b->val.k && a->val.v == b->val.v;
    }
    if (!same) {
        /* Writes still in flight differ: their registers are unknown from now on,
         * whichever lands. Host feeds land (a word is a word). */
        const path *both[2] = {x, y};
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < both[k]->npend; i++) {
                uint8_t d = both[k]->pend[i].dst;
                if (d && d < WT_OPND_NREGS) x->reg[d].k = 0;
                if (is_iu_reg(d)) x->iureg[d - IU_REG].k = 0;
            }
        int n = 0;
        for (int i = 0; i < x->npend; i++)
            if (x->pend[i].dst >= WT_OPND_NREGS && !is_iu_reg(x->pend[i].dst)) x->pend[n++] = x->pend[i];
        x->npend = n;
    }
    for (int s = 0; s < WT_NSLOTS; s++) {
        if (y->busy_lo[s] < x->busy_lo[s]) x->busy_lo[s] = y->busy_lo[s];
        if (y->busy_hi[s] > x->busy_hi[s]) x->busy_hi[s] = y->busy_hi[s];
    }
    for (int q = 0; q < NFED; q++) {
        if (y->fed[q] < x->fed[q]) x->fed[q] = y->fed[q];
        if (y->held[q] > x->held[q]) x->held[q] = y->held[q];
    }
}

/* Two ways that met: both must have received and sent the same words. */
static int merge_logs(evlog *x, const evlog *y)
{
    for (int s = 0; s < NSTREAMS; s++)
        if (x->n[s] != y->n[s]) return -1;
    for (int s = 0; s < NSTREAMS; s++)
        for (int i = 0; i < x->n[s]; i++) {
            ev *a = &x->e[s][i];
            const ev *b = &y->e[s][i];
            if (b->lo < a->lo) a->lo = b->lo;
            if (b->hi > a->hi) {
                if (b->hi >= T_INF && a->hi < T_INF) a->cause = b->cause;
                a->hi = b->hi;
            }
        }
    return 0;
}

/* The receive or send of the lowest bundle among a way's (a host feed only if it
 * has neither: a receive's statement is the receive's, not its fourth argument's),
 * or NULL if it has none. */
static const ev *first_io(const evlog *l)
{
    const ev *first = NULL;
    for (int s = 0; s < NSTREAMS; s++)
        if (l->n[s] && (!first || (s < S_FEED && first->op == WFC_BUNDLE) ||
                        ((s < S_FEED) == (first->op != WFC_BUNDLE) && l->e[s][0].pc < first->pc)))
            first = &l->e[s][0];
    return first;
}

static int explore(an *A, path *P);

/* Runs P until it reaches a stop of an open branch (returns 1 + 2*level + kind),
 * halts or faults (0), or fails (-1). */
static int run(an *A, path *P)
{
    for (;;) {
        if (P->halted) return 0;
        for (int i = A->nlv - 1; i >= 0; i--) {
            const level *L = &A->lv[i];
            if (L->j == IPDOM_RET ? P->rsp < L->depth : (P->pc == (uint32_t)L->j && P->rsp == L->depth))
                return 1 + 2 * i + STOP_J;
            if (P->pc == L->b && P->rsp == L->depth) return 1 + 2 * i + STOP_B;
        }
        level *in = A->nlv ? &A->lv[A->nlv - 1] : NULL;
        if (in && P->rsp == in->depth && P->pc < A->p->ncode && in->visit[P->pc] != in->way) {
            in->visit[P->pc] = in->way;
            if (in->ntrail == in->captrail) {
                in->captrail = in->captrail ? 2 * in->captrail : 64;
                in->trail = ws_xrealloc(in->trail, sizeof *in->trail * in->captrail);
            }
            in->trail[in->ntrail++] = P->pc;
        }
        int r = step(A, P);
        if (r == STEP_ERROR) return -1;
        if (r == STEP_UNKNOWN_BRANCH && explore(A, P) < 0) return -1;
    }
}

/* P has just issued a branch whose way depends on an unknown value: both ways run
 * to where they meet (P continues from there with their merged state). A way that
 * comes back to the branch first is a loop with a data-dependent trip count: it
 * is run again from the merged state until nothing changes, and the time after it
 * has no upper bound. */
static int explore(an *A, path *P)
{
    uint32_t b = P->pc;
    const fbundle *bb = &A->code[b];
    uint32_t way[2] = {bb->target, b + 1};
    if (way[0] == way[1]) {
        P->pc = way[0];
        return 0;
    }
    int32_t j = ipdom(A, b);
    if (j == IPDOM_NONE)
        return fail(A, b, RUNTIME_NOTE, "this loop never ends whatever the data, and its exit test depends on data");
    if (A->nlv == MAX_NEST)
        return fail(A, b, RUNTIME_NOTE, "branches on data nest too deeply here to time the I/O at compile time");
    level *L = &A->lv[A->nlv++];
    *L = (level){b, j, P->rsp, ws_xcalloc(A->p->ncode, 1), 0, ws_xcalloc(A->p->ncode, 1), NULL, 0, 0};
    L->visit[b] = 1;
    L->in_loop[b] = 1;
    path head, acc;
    int have = 0, rc = 0, widened = 0;
    path_copy(A, &head, P);
    for (int round = 0; rc == 0; round++) {
        path back[2];
        int nback = 0;
        for (int w = 0; w < 2 && rc == 0; w++) {
            path Q;
            path_copy(A, &Q, &head);
            Q.pc = way[w];
            L->way = L->way == UINT8_MAX ? 1 : L->way + 1;
            L->ntrail = 0;
            int r = run(A, &Q);
            if (r > 0 && (r - 1) / 2 == A->nlv - 1 && (r - 1) % 2 == STOP_B)
                for (size_t t = 0; t < L->ntrail; t++) L->in_loop[L->trail[t]] = 1;
            if (r < 0) {
                rc = -1;
            } else if (r == 0) {
                /* halts or faults: the run ends that way, so its timing cannot matter */
            } else if ((r - 1) / 2 != A->nlv - 1) {
                rc = fail(A, blame(A, b, L->visit), RUNTIME_NOTE,
                          "the control flow here depends on data and leaves the statement around it in more than "
                          "one way: its I/O cannot be timed at compile time");
            } else if ((r - 1) % 2 == STOP_J) {
                if (!have) {
                    acc = Q;
                    have = 1;
                    continue;
                }
                if (merge_logs(&acc.log, &Q.log) < 0) {
                    char wb[256];
                    const ev *io = first_io(&Q.log) ? first_io(&Q.log) : first_io(&acc.log);
                    rc = fail(A, blame(A, b, L->visit), RUNTIME_NOTE,
                              "which way this statement goes depends on data, and its ways send or receive different "
                              "numbers of words (%s): the I/O after it cannot be timed at compile time",
                              !io ? "after it" : where(A, io->pc, io->op, wb, sizeof wb));
                } else {
                    merge_state(A, &acc, &Q);
                }
            } else {
                const ev *io = first_io(&Q.log);
                if (io) {
                    char wb[256];
                    rc = fail(A, loop_blame(A, b, L->in_loop), RUNTIME_NOTE,
                              "this loop runs a number of times that depends on data, and it sends or receives "
                              "(%s): its I/O cannot be timed at compile time",
                              where(A, io->pc, io->op, wb, sizeof wb));
                } else {
                    back[nback++] = Q;
                    continue;
                }
            }
            path_free(&Q);
        }
        if (rc || nback == 0) {
            for (int k = 0; k < nback; k++) path_free(&back[k]);
            break;
        }
        /* A loop on data: the ways that came back issue the branch again and join
         * the head; the time after the loop has no upper bound. */
        path next;
        path_copy(A, &next, &head);
        for (int k = 0; k < nback && rc == 0; k++) {
            if (step(A, &back[k]) == STEP_ERROR) {
                rc = -1;
            } else if (first_io(&back[k].log)) {
                char wb[256];
                const ev *io = first_io(&back[k].log);
                rc = fail(A, loop_blame(A, b, L->in_loop), RUNTIME_NOTE,
                          "this loop runs a number of times that depends on data, and it sends or receives "
                          "(%s): its I/O cannot be timed at compile time",
                          where(A, io->pc, io->op, wb, sizeof wb));
            } else if (!back[k].halted) {
                merge_state(A, &next, &back[k]);
            }
        }
        for (int k = 0; k < nback; k++) path_free(&back[k]);
        if (!widened) {
            next.cause = loop_blame(A, b, L->in_loop);
            next.hi = T_INF;
            widened = 1;
        }
        int stable = same_values(A, &next, &head) && next.hi == head.hi;
        path_free(&head);
        head = next;
        head.pc = b;
        if (rc == 0 && stable) break;
        if (rc == 0 && round == MAX_WIDEN)
            rc = fail(A, loop_blame(A, b, L->in_loop), RUNTIME_NOTE, "the values this loop computes do not settle");
    }
    path_free(&head);
    free(L->visit);
    free(L->in_loop);
    free(L->trail);
    A->nlv--;
    if (rc) {
        if (have) path_free(&acc);
        return -1;
    }
    if (!have) {
        P->halted = 1;
        return 0;
    }
    /* P continues as the merged way, after its own events and the ways' ones. */
    log_append(&P->log, &acc.log);
    evlog mine = P->log;
    P->log = (evlog){0};
    path_free(P);
    log_free(&acc.log);
    *P = acc;
    P->log = mine;
    return 0;
}

/* ---- The skew ------------------------------------------------------------------------------ */

/* What set one bound on the skew: word `word` on the link from cell `sender` to
 * cell `sender + d` (gate qs), sent at `send` and read at `recv`. For an arrival
 * bound recv is the word's own receive; for a capacity bound it is the receive of
 * the word Q places earlier (`read`), whose slot the word needs. */
typedef struct why {
    const ev *send, *recv;
    int sender, d, qs, word, read;
    int capacity;
} why;

typedef struct bound {
    int64_t lo, hi;
    why lo_why, hi_why;
} bound;

static void set_bound(bound *B, int lower, int64_t v, why w)
{
    if (lower && v > B->lo) {
        B->lo = v;
        B->lo_why = w;
    } else if (!lower && v < B->hi) {
        B->hi = v;
        B->hi_why = w;
    }
}

/* The words cell s sends on gate qs reach cell s+d (d = +1 or -1) in its queue qr;
 * or (qs = qr = G_PATH + p) the words cell s reads on path p reach cell s+1. */
static int check_link(an *A, const evlog *S, const evlog *R, int qs, int qr, int s, int d, bound *B)
{
    int path = qs >= G_PATH;
    int ss = path ? S_PATH + qs - G_PATH : S_SEND + qs, rs = path ? S_PATH + qr - G_PATH : S_RECV + qr;
    int ns = S->n[ss], nr = R->n[rs];
    const ev *se = S->e[ss], *re = R->e[rs];
    int first = A->p->first_cell;
    int64_t qcap = path ? wt_paths[qs - G_PATH].words : A->m->queue_words, link = A->m->link_latency;
    char wb[256];
    if (nr > ns)
        return fail_io(A, &re[ns], NULL,
                       "cell %d receives %d words %s but cell %d sends it only %d: this receive would wait forever",
                       first + s + d, nr, from_name[qr], first + s, ns);
    for (int j = 0; j < nr; j++) {
        if (se[j].hi >= T_INF)
            return fail(A, se[j].cause, RUNTIME_NOTE,
                        "this loop runs a number of times that depends on data, so when the send at %s happens "
                        "cannot be bounded at compile time",
                        where(A, se[j].pc, se[j].op, wb, sizeof wb));
        /* d*skew >= send_hi + lat + link - recv_lo */
        int64_t need = se[j].hi + se[j].lat + link - re[j].lo;
        set_bound(B, d > 0, d > 0 ? need : -need, (why){&se[j], &re[j], s, d, qs, j, j, 0});
    }
    for (int j = (int)qcap; j < ns; j++) {
        int i = j - (int)qcap;
        if (i >= nr)
            return fail_io(A, &se[j], NULL,
                           "cell %d sends %d words %s but cell %d receives only %d: more than %lld would stay in its queue",
                           first + s, ns, toward_name[qs], first + s + d, nr, (long long)qcap);
        if (re[i].hi >= T_INF)
            return fail(A, re[i].cause, RUNTIME_NOTE,
                        "this loop runs a number of times that depends on data, so when the receive at %s happens "
                        "cannot be bounded, and the queue it reads could overflow",
                        where(A, re[i].pc, re[i].op, wb, sizeof wb));
        /* d*skew <= send_lo - recv_hi - 1 */
        int64_t room = se[j].lo - re[i].hi - 1;
        set_bound(B, d < 0, d > 0 ? room : -room, (why){&se[j], &re[i], s, d, qs, j, i, 1});
    }
    return 0;
}

/* No skew suits both bounds: the error names the receive or send behind the
 * lower bound, and the note the real cause. Bounds from words that flow in
 * opposite directions exclude each other whatever the timing (the skew is one
 * number for the whole array); on one link and one direction, the sender runs
 * ahead of the receiver by more than the queue holds. */
static int no_skew(an *A, const bound *B)
{
    const why *lw = &B->lo_why, *hw = &B->hi_why;
    /* each bound's own event: the read word for an arrival bound, the sent one for capacity */
    const ev *le = lw->capacity ? lw->send : lw->recv, *he = hw->capacity ? hw->send : hw->recv;
    char wb[256], note[512];
    int first = A->p->first_cell;
    int64_t qcap = A->m->queue_words;
    if (lw->d != hw->d) {
        snprintf(note, sizeof note,
                 "words flow %s here and %s at %s, and one skew serves the whole array, so the Warp compiler "
                 "times only programs whose data flow one way; -mcpu=iwarp, or -fno-flow-control, lets cells "
                 "wait for their queues at run time",
                 lw->d > 0 ? "rightward" : "leftward", hw->d > 0 ? "rightward" : "leftward",
                 where(A, he->pc, he->op, wb, sizeof wb));
    } else {
        /* a: the word that must arrive in time; b: the word that needs the slot of
         * word b - Q, read earlier. Between them the receiver takes longer to read
         * words a..b-Q than the sender takes to send words a..b. */
        const why *arr = lw->capacity ? hw : lw, *cap = lw->capacity ? lw : hw;
        int a = arr->word, b = cap->word;
        if (arr->sender == cap->sender && arr->qs == cap->qs && a <= cap->read) {
            snprintf(note, sizeof note,
                     "cell %d sends words %d to %d %s in %lld clocks, but cell %d reads words %d to %d in %lld "
                     "clocks: its queue of %lld words cannot absorb the difference at any skew (send more slowly, "
                     "read faster, or send fewer words ahead); -mcpu=iwarp, or -fno-flow-control, lets cells wait "
                     "for their queues at run time",
                     first + arr->sender, a, b, toward_name[arr->qs], (long long)(cap->send->lo - arr->send->hi),
                     first + arr->sender + arr->d, a, cap->read, (long long)(cap->recv->hi - arr->recv->lo),
                     (long long)qcap);
        } else {
            char wb2[256];
            snprintf(note, sizeof note,
                     "the data flow one way, but no skew lets the word read at %s arrive in time and the word sent "
                     "at %s find room in a queue of %lld words; -mcpu=iwarp, or -fno-flow-control, lets cells wait "
                     "for their queues at run time",
                     where(A, arr->recv->pc, arr->recv->op, wb, sizeof wb),
                     where(A, cap->send->pc, cap->send->op, wb2, sizeof wb2), (long long)qcap);
        }
    }
    return fail_io(A, le, note,
                   "no skew between neighbouring cells suits both the word %s here and the word %s at %s: the first "
                   "needs each cell to start at least %lld clocks after its left neighbour, the second at most %lld",
                   lw->capacity ? "sent" : "read", hw->capacity ? "sent" : "read",
                   where(A, he->pc, he->op, wb, sizeof wb), (long long)B->lo, (long long)B->hi);
}

static int analyse_cell(an *A, int k, path *P)
{
    int n = A->p->last_cell - A->p->first_cell + 1;
    A->cid = A->p->first_cell + k;
    A->host_side = 0;
    if (k == 0) A->host_side |= 1u << WT_Q_XL | 1u << WT_Q_YL;
    if (k == n - 1) A->host_side |= 1u << WT_Q_XR | 1u << WT_Q_YR;
    A->first = k == 0;
    A->path_values = k == 0 || !A->uses_cid;
    path_init(A, P);
    P->pc = A->p->entry;
    for (int r = 0; r < WT_OPND_NREGS; r++) P->reg[r] = P->iureg[r] = (aval){0, 1};
    uint32_t dsz = A->p->data_size < A->nwords * 4 ? A->p->data_size : A->nwords * 4;
    for (uint32_t w = 0; w < A->nwords; w++) {
        uint32_t v = 0;
        for (int i = 0; i < 4; i++)
            if (4 * w + (uint32_t)i < dsz && A->p->data) v |= (uint32_t)A->p->data[4 * w + i] << (8 * i);
        P->mem[w] = v;
        P->memk[w] = 1;
    }
    P->memk_any = 1;
    return run(A, P) < 0 ? -1 : 0;
}

int wfc_analyse(const wfc_program *p, wfc_result *out)
{
    memset(out, 0, sizeof *out);
    out->skew_lo = INT64_MIN;
    out->skew_hi = INT64_MAX;
    an A = {.p = p, .m = p->model, .out = out};
    if (!p->model || p->ncode == 0 || p->entry >= p->ncode || p->first_cell > p->last_cell) {
        snprintf(out->message, sizeof out->message, "nothing to time (no program or no cells)");
        return -1;
    }
    A.nwords = p->model->data_mem_bytes / 4;
    A.budget = p->max_clocks ? p->max_clocks : DEFAULT_BUDGET;
    A.code = ws_xcalloc(p->ncode, sizeof *A.code);
    A.ipdom = ws_xmalloc(sizeof *A.ipdom * p->ncode);
    int uses_cid = 0;
    for (uint32_t i = 0; i < p->ncode; i++) {
        decode(p, i, &A.code[i]);
        uses_cid |= A.code[i].reads_cid;
        A.ipdom[i] = IPDOM_UNKNOWN;
    }
    int n = p->last_cell - p->first_cell + 1;
    /* Cells that never read their number all run alike: one run serves every cell
     * (as both ends at once: the checks of host-fed queues are per queue). */
    int runs = uses_cid ? n : 1;
    A.uses_cid = (uint8_t)uses_cid;
    path *cell = ws_xcalloc((size_t)runs, sizeof *cell);
    int rc = 0, done = 0;
    for (int k = 0; k < runs && rc == 0; k++, done++) {
        if (!uses_cid) {
            A.cid = p->first_cell;
            rc = analyse_cell(&A, 0, &cell[k]);
            if (rc == 0 && n > 1) {
                /* the other end's host-fed queues, on a run of its own */
                path other;
                rc = analyse_cell(&A, n - 1, &other);
                path_free(&other);
            }
        } else {
            rc = analyse_cell(&A, k, &cell[k]);
        }
        if (rc == 0 && cell[k].hi < T_INF && (uint64_t)cell[k].hi > out->clocks) out->clocks = (uint64_t)cell[k].hi;
    }
    bound B = {INT64_MIN, INT64_MAX, {0}, {0}};
    for (int s = 0; rc == 0 && s + 1 < n; s++) {
        const evlog *left = &cell[uses_cid ? s : 0].log, *right = &cell[uses_cid ? s + 1 : 0].log;
        for (int ch = 0; ch < 2 && rc == 0; ch++) {
            /* rightward: cell s sends on gate XR/YR, cell s+1 reads queue XL/YL */
            rc = check_link(&A, left, right, WT_Q_XR + ch, WT_Q_XL + ch, s, +1, &B);
            /* leftward: cell s+1 sends on gate XL/YL, cell s reads queue XR/YR */
            if (rc == 0) rc = check_link(&A, right, left, WT_Q_XL + ch, WT_Q_XR + ch, s + 1, -1, &B);
        }
        /* the path after the program's own words: where both bound the skew alike
         * (the IU's loop control beside the data it counts), the data are named */
        for (int k = 0; k < WT_NPATHS && rc == 0; k++)
            rc = check_link(&A, left, right, G_PATH + k, G_PATH + k, s, +1, &B);
    }
    if (rc == 0) {
        out->skew_lo = B.lo;
        out->skew_hi = B.hi;
        if (B.lo > B.hi) {
            rc = no_skew(&A, &B);
        } else if (B.lo > INT32_MAX || B.hi < INT32_MIN) {
            const why *w = B.lo > INT32_MAX ? &B.lo_why : &B.hi_why;
            rc = fail_io(&A, w->capacity ? w->send : w->recv, NULL, "the skew this needs is out of range");
        } else {
            int64_t skew = 0;
            if (skew < B.lo) skew = B.lo;
            if (skew > B.hi) skew = B.hi;
            out->skew = (int32_t)skew;
            if (out->clocks) out->clocks += (uint64_t)(n - 1) * (uint64_t)(skew < 0 ? -skew : skew);
        }
    }
    for (int k = 0; k < done && k < runs; k++) path_free(&cell[k]);
    for (int k = 0; k < WT_NPATHS; k++) free(A.pseq[k]);
    free(cell);
    free(A.code);
    free(A.ipdom);
    return rc;
}
