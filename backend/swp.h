/* The software pipeliner's own types, shared by its phases (swp*.c); the rest of
 * the backend sees only wb_swp in mir.h. */
#ifndef WARP_SWP_H
#define WARP_SWP_H

#include "mir.h"

enum { MAX_BODY = 160, MAX_UNROLL = 16, MAX_II = 64, MAX_DIST = 8, MAX_CHECKS = 4, MAX_MEMNOTES = 4 };

typedef struct bop {
    wb_ins in;            /* sources: body values, invariants, gates */
    int dist[3];          /* per source that is a body value: iterations back */
    int live;
    int group;            /* the op whose node it issues with (itself, usually) */
    int node;
    int time;             /* issue clock of iteration 0 */
    int mop;
    int reload_for;       /* a reload of a spilled invariant: the op it feeds, else -1 */
    int has_addr;         /* a load or store whose address has an affine form: */
    wb_aff addr;
} bop;

typedef struct alias { int v, dist; } alias;

typedef struct hoisted { wb_opnd lit; int v; int einit; } hoisted;

/* Per vreg, the blocks where it occurs (see occ_update). */
typedef struct occ_index {
    int nv, nb;           /* vregs and blocks covered */
    int **at;             /* per vreg: block ids */
    int *n, *cap;
    int *nins;            /* per block: its length when last read */
    int *term_op;         /* per block: its terminator's op when last read */
    int *seen, stamp;     /* per block: walks that list each block once */
} occ_index;

/* Brings x up to date with f: new vregs, and the blocks that are new or changed length. */
void swp_occ_update(occ_index *x, const wb_func *f);

typedef struct loop {
    wb_func *f;
    occ_index *occ;       /* where each vreg occurs */
    const wb_swp_options *o;
    int id, exit;         /* the loop's header block, and where it exits to */
    unsigned line;        /* the loop statement's line, for the report */
    wb_block *body;       /* its body as one block: the header itself, or the if-converted blocks */
    const uint8_t *member;   /* per block id: in the loop (the pipeline's entry does not redirect them) */
    int nmember;             /* entries of member */
    int pre, pre_found;      /* the one block outside that enters the header, or -1 (swp_loop_pre) */
    int nv;               /* vregs when the pass began: the body's names */
    bop *op;
    int nop;
    int *def;             /* per vreg: its defining op, -1 if none in the body */
    alias *al;            /* per vreg defined by an eliminated copy: what it reads */
    int *init;            /* per body value v and distance d (1..MAX_DIST): the register that holds
                             v of iteration -d before the loop (INIT(L, v, d)); negative: a
                             vreg made here, not a name of the body; 0: none */
    wb_ins *einit;        /* entry-block operations computing some of those */
    int neinit;
    /* the induction variable of the exit test */
    int iv, iv_step, iv_init, bound_is_vreg;
    int iv_shift;         /* |iv_step| = 1 << iv_shift */
    wb_opnd bound;
    int test_dist;
    const char *why;      /* why not pipelined */
    char whybuf[160];
    hoisted *hz;          /* literals moved to registers before the loop */
    int nhz;
    int opcap;            /* room in op[] */
    int const_n;          /* the trip count is known: n */
    int32_t n;
    int spilled;          /* invariants kept in the frame and reloaded before each use */
    int remat;            /* literals put back into the operations */
    wb_dep check[MAX_CHECKS];   /* address differences checked on entry (WB_DEP_CHECK) */
    int ncheck;
    /* a stepped counter the addresses read (wb_counter): p := p + 1; if j = h then p := p + h */
    int ctr_v;            /* its vreg, 0 if none */
    wb_counter ctr;
    int ctr_want;         /* the least distance its dependences are given (swp_counter_distance) */
    int ctr_used;         /* some edge relies on g >= ctr_gmin, checked on entry */
    int64_t ctr_gmin;
    char memnote[MAX_MEMNOTES][96];   /* memory edges that bound RecMII, for the report */
    int nmemnote;
    char recnote[240];    /* the recurrence that sets RecMII, where it binds: for the report */
    int unfused;          /* received words kept in registers, their users apart (unfuse_receives):
                             the MII the shared bundles gave */
    const int *entry_live;        /* the loop's own values live into the header before the pass */
    int entry_n;
    int unroll;           /* old iterations a new one runs (swp_unroll.c); 0 or 1: not unrolled */
    int *origin, *copy;   /* unrolled, per vreg: the old body value a name stands for, and its copy */
    uint64_t *exit_live;  /* the vregs below exit_nv live where the loop exits (the pipeline's way out
                             with nothing left over assigns only those) */
    int exit_nv;
    int32_t *by_formula;  /* per vreg (swp_mark_live): an induction variable the pipeline does not
                             step, its value after the loop start + step * iterations; its step */
    uint8_t *formula;     /* per vreg: by_formula applies */
    /* Warp: the interface unit counts the kernel's passes and the cells branch on the
     * word it sends (swp_plan_loop_control): the kernel cycles (< II) of its
     * decrement and of its write to the path, and the machine ops they take */
    int iu_ctl, iu_dec_row, iu_dec_mop, iu_wr_row, iu_wr_mop;
    const char *iu_why;   /* why not, for the report (NULL: not the IU's at all, as with -fno-iu) */
    int iu_divergent;     /* the cells may run it different numbers of times: not the IU's to count */
} loop;

/* A loop's trip count in iterations of its (unrolled) body. */
static inline int32_t swp_trips(const loop *L) { return L->unroll > 1 ? L->n / L->unroll : L->n; }

static inline int is_body_value(const loop *L, wb_opnd o) { return wb_is_vreg(o) && (int)o.v < L->nv && L->def[o.v] >= 0; }

#define INIT(L, v, d) ((L)->init[(size_t)(v) * (MAX_DIST + 1) + (size_t)(d)])

static inline int is_gate_read(wb_opnd o) { return o.kind == WB_O_REG && wt_opnd_is_gate(o.v); }

static inline int writes_gate_like(const wb_ins *in)
{
    return wb_has_dest(in->op) && in->d.kind == WB_O_REG &&
           (wt_opnd_is_gate(in->d.v) || wt_opnd_is_feed(in->d.v) || wt_opnd_is_addr(in->d.v));
}

/* Records the first reason a loop cannot be pipelined; returns 0 (failure). */
static inline int fail(loop *L, const char *why)
{
    if (!L->why) L->why = why;
    return 0;
}

typedef struct gate_use {
    unsigned reads;       /* queues read, bit q */
    int wcode;            /* gate, feed or address code written, -1 none */
} gate_use;

typedef struct gbuild {
    wb_mgraph g;
    int cap;
    int (*mem)[2];        /* per edge: the load and store (op indices) of a memory edge, else -1 */
} gbuild;


typedef struct nloop {
    int header;
    int latch;            /* the block whose branch goes back to the header; -1: several */
    uint8_t *in;          /* per block id below nin */
    int inner;            /* contains no other loop */
    int nin;              /* entries of in: the blocks when the loops were found (later ones are in none) */
} nloop;

static inline int in_loop(const nloop *lp, int id) { return id >= 0 && id < lp->nin && lp->in[id]; }

/* The register budget of a pipelined loop: every register but r0, a margin for
 * the allocator's fragmentation, and what the driver takes back after a failure. */
enum { SWP_REG_MARGIN = 4 };

/* swp_body.c */
/* The one block outside the loop that enters its header, or -1 if none or several. */
int swp_loop_pre(loop *L);
int swp_read_body(loop *L);
alias swp_resolve(const loop *L, int v);
int swp_live_out_dist(const loop *L, const uint64_t *live_after, int v);
int swp_read_exit_test(loop *L);
void swp_address_forms(loop *L);
int swp_add_check(loop *L, const wb_dep *d);
void swp_simplify_remainders(loop *L);
wb_ins swp_mk(int op, wb_opnd d, wb_opnd a, wb_opnd b);
void swp_add_einit(loop *L, wb_ins in);
void swp_disjoint_ors_to_adds(loop *L);
void swp_strength_reduce(loop *L);
void swp_mark_live(loop *L, const uint64_t *live_after);
void swp_hoist_invariants(loop *L, const uint64_t *live_after);
void swp_hoist_literals(loop *L);
void swp_fold_sends(loop *L, const uint64_t *live_after);
void swp_fuse_gate_reads(loop *L, const uint64_t *live_after);
int swp_unfuse_receives(loop *L);
void swp_trip_count(loop *L);

/* swp_graph.c */
gate_use swp_gates_of(const wb_ins *in);
int swp_graph_mii(const gbuild *B);
void swp_build_graph(loop *L, gbuild *B);
void swp_memory_bounds(loop *L, gbuild *B, int rec_mii);
void swp_recurrence_note(loop *L, const gbuild *B, int rec_mii);
void swp_counter_distance(loop *L, gbuild *B);

/* swp_sched.c */
int swp_reg_need(const loop *L, int ii, const uint64_t *live_after, int *maxlive, int *invariants);
int swp_overfills_own_queue(const loop *L, int ii);
int swp_rematerialize(loop *L, ws_buf *log);
int swp_spill_invariant(loop *L, int ii, uint64_t **after, ws_buf *log);

/* swp_gen.c */
int swp_new_block_before(wb_func *f, int before);
int swp_kernel_unroll(const loop *L, int ii, int stages, const uint64_t *live_after);
int swp_unroll_factor(const loop *L, int ii, const uint64_t *live_after);
void swp_plan_loop_control(loop *L, const wb_msched *ms);
void swp_generate(loop *L, const wb_msched *ms, const uint64_t *live_after, ws_buf *info);

/* swp_report.c */
unsigned swp_loop_line(const wb_block *b);
void swp_info_tail(ws_buf *c);
void swp_report(const loop *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void swp_class_counts(const loop *L, const wb_mgraph *g, int count[WB_NRES], int *gate_ops);
/* Warp: what the interface unit does an iteration, and the host operations left on the cells. */
void swp_info_iu(const loop *L, const int count[WB_NRES], ws_buf *c);
void swp_info_head(const loop *L, ws_buf *c);
void swp_info_tried(ws_buf *c, const char *tried);
void swp_memory_notes(const loop *L, ws_buf *c);

/* swp_control.c: the loops with these headers were not pipelined */
void swp_iu_counts(wb_func *f, const wb_swp_options *o, const int *headers, int nheaders);

/* swp_loops.c */
int swp_has_call(const wb_func *f);
uint8_t *swp_reachable_blocks(const wb_func *f);
int swp_find_loops(const wb_func *f, nloop **out);
unsigned swp_nloop_line(const wb_func *f, const nloop *lp);

/* swp_unroll.c */
int swp_unroll_body(loop *L, int u, uint64_t **after);
int swp_old_dist(const loop *L, int v, int back);
int swp_old_value(const loop *L, int v);

/* swp_ifconv.c */
int swp_if_convert(loop *L, const nloop *lp, const wb_live *live);

#endif
