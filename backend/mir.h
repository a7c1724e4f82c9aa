/* The backend's machine IR, shared by its passes (internal to backend/).
 *
 * A function is an array of blocks; a block is a list of operations in program
 * order plus at most one terminator (a BR-class operation). Operations are the
 * machine description's wt_op values plus the pseudo-operation WB_COPY, which the
 * scheduler turns into `mv` (crossbar) or `mov` (integer ALU), whichever unit is free.
 * Operands start as virtual registers and are rewritten in place to operand codes
 * (r1..r63, gates) by the register allocator: one IR from selection to emission.
 *
 * Sources are kept in signature order: for "dab" s[0]=a s[1]=b, for "dabc" s[0..2],
 * for "dm" the memory operand [s[0], s[1]], for "ms" [s[0], s[1]] and the stored
 * value s[2], for "kt" the condition s[0]. */
#ifndef WB_MIR_H
#define WB_MIR_H

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <stdarg.h>
#include <stdint.h>

#include "warp_backend.h"

enum { WB_COPY = WT_NOPS, WB_NOPCODES };

typedef enum wb_okind {
    WB_O_NONE,
    WB_O_VREG,  /* v: virtual register number (>= 1) */
    WB_O_REG,   /* v: operand code (r0..r63, cid, gates) */
    WB_O_IMM,   /* v: the 32 literal bits; isfloat: print as a float */
    WB_O_SYM    /* sym + addend: a link-time literal */
} wb_okind;

typedef struct wb_opnd {
    uint8_t kind;
    uint8_t isfloat;
    uint32_t v;
    const char *sym;
    int32_t addend;
} wb_opnd;

typedef struct wb_ins {
    uint16_t op;          /* wt_op or WB_COPY */
    uint16_t mop;         /* after scheduling: the machine op (WB_COPY resolved) */
    wb_opnd d;            /* destination, WB_O_NONE if the op has none */
    wb_opnd s[3];         /* sources, see the header comment */
    int target;           /* BZ/BNZ/JMP: target block id */
    const char *callee;   /* CALL: the function's name */
    int memobj;           /* LD/ST: the object accessed; 0 may be any */
    unsigned line, col;   /* source position, 0 if unknown */
    /* A receive folded into source k, or a send into the destination, of this
     * operation (gates.c): the position of its own statement, which flow-control
     * diagnostics name; line 0 if it is the operation's. */
    unsigned recv_line[3], recv_col[3], send_line, send_col;
    int cycle;            /* after scheduling: issue cycle within the block */
    int dbg;              /* -g: the first debug event after this operation (f->dbgev), 0 none */
    uint32_t dvreg;       /* after allocation: the virtual register the destination was */
    int bundle_with;      /* operations of a block with the same nonzero number issue in one
                             bundle: they read one received word straight from its gate */
    uint8_t iu;           /* Warp: issued by the interface unit beside the cells' bundle (iu.c) */
    /* -g, in a pipelined loop's blocks: the loop body's value this copy of its
     * operation defines (0 none), and for which iteration (as swp_gen.c counts
     * them per block); dwarf.c finds each iteration's variables from them. */
    uint32_t swp_value;
    int swp_iter;
} wb_ins;

/* Parallel copies that a phi needs on the edge into succ (lowered by wb_lower_phis). */
typedef struct wb_edge {
    int succ;
    int n;
    wb_opnd *dst;         /* virtual registers of the successor's phis */
    wb_opnd *src;
} wb_edge;

typedef struct wb_block {
    int id;
    wb_ins *ins;          /* the body, in program order */
    int nins, cap;
    wb_ins term;          /* term.op == WT_OP_NONE: no terminator */
    int fall;             /* block reached after the body and term (fallthrough), -1 none */
    wb_edge *edges;
    int nedges;
    int len;              /* bundles, after scheduling */
    int fixed;            /* scheduled by the pipeliner: cycles, mops and len are final */
    const char *comment;  /* printed before the block's first bundle, or NULL */
    int dbg_entry;        /* -g: debug events at the block's start, 0 none */
    int ii;               /* a pipelined kernel: its II (one iteration starts every ii bundles) */
    int divergent;        /* cells may run it different numbers of times (diverge.c): no IU loop control */
} wb_block;

enum { WB_V_SPILLTEMP = 1, WB_V_IU = 2 };  /* vreg flags; WB_V_IU: an interface unit value, never spilled */

/* Resources of a bundle (target's resource model: the cells' unit classes, the
 * interface unit's, its link), under the backend's names. */
enum { WB_RES_IU = WT_RES_IU, WB_RES_LINK = WT_RES_LINK, WB_NRES = WT_NRES };
static inline int wb_res(int mop, int iu) { return (int)wt_op_res((wt_op)mop, iu); }
static inline int wb_res_slots(const wt_model *m, int r) { return (int)wt_res_issue(m, (unsigned)r); }
/* Does the IU operation take the link (a word it feeds into the array)? */
int wb_iu_feeds(const wb_ins *in);

/* ---- Debug information (-g): where each W2 variable lives ---------------------
 *
 * Selection turns llvm.dbg.declare into a variable in memory for the whole
 * function, and llvm.dbg.value into an *event* on the operation it follows ("from
 * here, variable var is vreg v / a constant / nothing"). Events ride on their
 * operation through every pass; a pass that deletes an operation hands its events
 * to the operation before it (wb_move_dbg). Emission (dwarf.c) replays the
 * scheduled, allocated code clock by clock to find, for each bundle, the register
 * that holds each variable's current value, if one surely does. */
typedef enum wb_dvkind {
    WB_DV_NONE,    /* the variable has no value from here (optimised out) */
    WB_DV_VREG,    /* v: the variable is the current value of vreg v */
    WB_DV_REG,     /* v: an operand code that holds it (cid) */
    WB_DV_CONST,   /* v: the 32 bits of a constant */
    WB_DV_ALIAS    /* var unused: vreg v now also lives where vreg v2 does (a copy that vanished) */
} wb_dvkind;

typedef struct wb_dbgev {
    int var;              /* index in f->dvars */
    uint8_t kind;         /* wb_dvkind */
    uint32_t v, v2;
    int next;             /* the next event of the same operation, 0 none */
} wb_dbgev;

typedef struct wb_dvar {
    LLVMMetadataRef md;   /* the DILocalVariable */
    int mem;              /* in memory at sym+off for the whole function (llvm.dbg.declare) */
    const char *sym;
    int32_t off;
} wb_dvar;

typedef struct wb_func {
    const char *name;
    const wt_model *model;
    ws_arena arena;       /* everything of this function, freed once it is emitted */
    wb_block **blocks;    /* indexed by block id */
    int nblocks, bcap;
    int *order;           /* layout: block ids in emission order */
    int norder;
    int nvregs;           /* vregs are 1..nvregs-1 */
    uint8_t *vflags;
    int vcap;
    const char *frame;    /* the static frame's symbol, "NAME.frame" */
    uint32_t frame_size;
    int nmemobjs;         /* memory object ids handed out so far */
    int debug;            /* -g: selection records variables and events */
    wb_dvar *dvars;
    int ndvars;
    wb_dbgev *dbgev;      /* 1..ndbgev-1; 0 means none */
    int ndbgev;
    size_t dbgcap;
} wb_func;

/* ---- mir.c: construction and inspection ------------------------------------- */

/* Pointer -> int, for lookups only (never iterated, so output cannot depend on
 * addresses). */
typedef struct wb_ptrmap {
    const void **keys;
    int *vals;
    size_t cap, n;
} wb_ptrmap;
int wb_ptrmap_get(const wb_ptrmap *m, const void *key);   /* -1 if absent */
void wb_ptrmap_put(wb_ptrmap *m, const void *key, int val);
void wb_ptrmap_free(wb_ptrmap *m);

wb_func *wb_func_new(const char *name, const wt_model *model);
void wb_func_free(wb_func *f);
int wb_new_block(wb_func *f);          /* not yet in the layout */
void wb_place_block(wb_func *f, int id);  /* appends a block to the layout */
int wb_new_vreg(wb_func *f, uint8_t flags);
wb_ins *wb_append(wb_func *f, int block, const wb_ins *in);
wb_ins *wb_insert(wb_func *f, int block, int at, const wb_ins *in);
void wb_remove(wb_block *b, int at);
uint32_t wb_frame_alloc(wb_func *f, uint32_t bytes);
/* A debug event; returns its index. */
int wb_new_dbgev(wb_func *f, int var, int kind, uint32_t v, uint32_t v2);
/* Appends the event chain `ev` to *list (an operation's dbg or a block's dbg_entry). */
void wb_chain_dbg(wb_func *f, int *list, int ev);
/* Before operation `at` of the block is deleted: its events go to the operation
 * before it, or to the block's start. */
void wb_move_dbg(wb_func *f, wb_block *b, int at);

wb_opnd wb_vreg(int v);
wb_opnd wb_reg(unsigned code);
wb_opnd wb_imm(uint32_t bits, int isfloat);   /* 0 becomes r0 */
wb_opnd wb_sym(const char *sym, int32_t addend);
/* inline: the pipeliner asks it for every operand of every block it walks */
static inline int wb_is_vreg(wb_opnd o) { return o.kind == WB_O_VREG; }
int wb_is_lit(wb_opnd o);                     /* IMM or SYM: takes a literal field */
int wb_opnd_eq(wb_opnd a, wb_opnd b);
int wb_lit_eq(wb_opnd a, wb_opnd b);          /* would share a literal field */
/* The literals of in that lits[0..n) does not hold, each once, stored in added (room
 * for 3): how many more of a bundle's literal fields (WT_BUNDLE_LITERALS) in takes. */
int wb_new_literals(const wb_opnd *lits, int n, const wb_ins *in, wb_opnd *added);
/* The machine operations that may carry op, the first preferred: op and the table's
 * alternatives (wt_op_alternatives); a copy is mv or what may stand for it. With
 * copies_only, an operation other than a copy keeps its own unit. */
unsigned wb_mop_choices(int op, int copies_only, wt_op out[WT_MAX_ALTS]);

int wb_nsrc(int op);                          /* sources an operation reads */
int wb_has_dest(int op);
int wb_is_term_op(int op);                    /* a BR-class operation */
/* Does op go to its target block (a jump or branch, by the table's flow column)? */
int wb_branches(int op);
/* Where control goes after op, by the table (WT_FLOW_NEXT for none, a copy, a plain
 * operation): the passes that look at terminators ask this, not the mnemonic. */
wt_flow wb_flow(int op);
/* A conditional branch on zero or nonzero (WT_FLOW_IF_ZERO, WT_FLOW_IF_NONZERO). */
int wb_is_cond_branch(int op);
/* The branch taken when op is not (the other condition, the same operands), or
 * WT_OP_NONE if the table has none; and the table's jump. */
int wb_inverse_branch(int op);
int wb_jump_op(void);
/* Adds the gate operations of in (the queues it dequeues, the gate it writes) to u by
 * target's resource model, which every stage that bundles or times bundles uses. */
void wb_add_gate_ops(wt_bundle_use *u, const wb_ins *in);
/* A backend bug about one operation: "PROG: internal error: backend: function F,
 * 'OP ...' (W2 line L, column C): message" (the position where the machine IR carries
 * one), exit 70. */
_Noreturn void wb_internal_error_at(const wb_func *f, const wb_ins *in, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* " (line L, column C)", " (line L)" or "": an operation's W2 position for messages. */
void wb_put_position(ws_buf *out, const wb_ins *in);
/* "function F[, @Bn][, 'OP ...'[ (line L, column C)]]: message": what a message about
 * the machine IR says of where it is (b, in may be NULL; the position if asked). */
void wb_put_about(ws_buf *out, const wb_func *f, const wb_block *b, const wb_ins *in, int position, const char *fmt,
                  va_list ap);
/* Latency and issue interval of an op on the model (WB_COPY: the slower of mv, mov). */
int wb_latency(const wb_func *f, int op);
int wb_interval(const wb_func *f, int op);

/* A symbol reference as the assembler reads it: quoted where the operand syntax
 * claims the name (a W2 variable called r5 or nan), then +N or -N. */
void wb_put_symbol(ws_buf *out, const char *sym, int32_t addend);
/* The text of one operation (machine op `op`, so a resolved WB_COPY prints as mv/mov). */
void wb_format_ins(ws_buf *out, const wb_func *f, const wb_ins *in, int op,
                   const char *(*label)(void *ctx, int block), void *ctx);
/* The machine IR as text, for tests and debugging. */
void wb_mir_print(const wb_func *f, ws_buf *out);

/* ---- modsched.c: the modulo scheduler, on a graph of its own ----------------- */

/* A node issues as one piece: usually one operation; several when a received word
 * is read straight from its gate by all its users, which must then share a bundle
 * (a gate is dequeued once a bundle). Each operation may run as its own machine op
 * or an alternative (a copy: mv or mov; an address sum: iadd or lea). */
enum { WB_MNODE_OPS = 6 };
typedef struct wb_mnode {
    int nops;
    int op[WB_MNODE_OPS];      /* machine ops */
    int alt[WB_MNODE_OPS];     /* an alternative machine op, or WT_OP_NONE */
    int gate_ops;              /* gate operations (iWarp: per clock at most gate_ops_per_clock) */
    unsigned gate_buses;       /* the gates it reads (bits 0..7, wt_bundle_use.gates_read) and
                                  writes (bits 8..15): iWarp's internal buses, a word every
                                  gate_word_clocks each */
    int nlit;                  /* distinct literals its operations read (a bundle has two fields) */
    wb_opnd lit[2 * WB_MNODE_OPS];
    int no_value;              /* writes no register (a store, a send, a host feed): issuing it later
                                  only keeps its sources in their registers longer */
    unsigned iu;               /* bit k: operation k is the interface unit's (its own unit classes;
                                  a bundle group may hold a host address beside the cells' ops) */
    int link;                  /* words it feeds through the IU link (at most one a clock) */
} wb_mnode;

/* issue(to) >= issue(from) + lat - II * dist */
typedef struct wb_medge { int from, to, lat, dist; } wb_medge;

typedef struct wb_mgraph {
    const wt_model *model;
    int n, ne;
    wb_mnode *node;
    wb_medge *edge;
} wb_mgraph;

typedef struct wb_msched {
    int res_mii, rec_mii, mii;
    const char *res_bound;     /* the unit class (or "gate operations") behind ResMII */
    int ii;                    /* 0 if no schedule was found up to the limit */
    int stages;
    int *time;                 /* per node: issue clock of iteration 0, from 0 */
    int (*mop)[WB_MNODE_OPS];  /* per node and operation: the machine op chosen */
    ws_buf tried;              /* one line per II tried and failed, and why */
} wb_msched;

/* ResMII over the model's units and RecMII over the graph's cycles. */
int wb_res_mii(const wb_mgraph *g, const char **bound);
int wb_rec_mii(const wb_mgraph *g);   /* 0 when the graph has no cycle */
/* One cycle that sets RecMII = rec: its edges in order, the first one carried
 * to a later iteration; the count (at most max), 0 if none. */
int wb_rec_cycle(const wb_mgraph *g, int rec, int *edges, int max);
/* Iterative modulo scheduling (Rau) from MII up to max_ii; 0 on success. */
int wb_modulo_schedule(const wb_mgraph *g, int max_ii, wb_msched *out);
/* The same, trying no II below min_ii (the MII figures are still the graph's). */
int wb_modulo_schedule_from(const wb_mgraph *g, int min_ii, int max_ii, wb_msched *out);
void wb_msched_free(wb_msched *s);

/* ---- memdep.c: memory dependences from affine forms of addresses ------------ */

/* t*step + c + sum(k_i * v_i) + p*P (+ sym): t the iteration, v_i registers that
 * hold one value through the loop, P the value a stepped counter (wb_counter)
 * holds when the iteration begins. */
enum { WB_AFF_TERMS = 6 };
typedef struct wb_aff {
    int64_t t, c, p;
    const char *sym;
    int nterm;
    struct { int v; int64_t k; } term[WB_AFF_TERMS];
} wb_aff;

void wb_aff_const(wb_aff *a, int64_t c);
int wb_aff_term(wb_aff *a, int v, int64_t k);                      /* += k*v; 0 if too many terms */
int wb_aff_add(wb_aff *r, const wb_aff *a, const wb_aff *b, int64_t kb);   /* r = a + kb*b; 0 if not affine */
int wb_aff_scale(wb_aff *a, int64_t k);
int wb_aff_equal(const wb_aff *a, const wb_aff *b, int64_t sign);  /* a == sign*b (symbols aside) */

typedef enum wb_dep_kind {
    WB_DEP_NONE,      /* the two never touch one word */
    WB_DEP_AT,        /* b of iteration t + dist touches a's word of iteration t */
    WB_DEP_CHECK,     /* they meet only if |diff| < N*|step| (N the trip count): checked on entry */
    WB_DEP_UNKNOWN
} wb_dep_kind;
typedef struct wb_dep {
    wb_dep_kind kind;
    int dist;
    int64_t step;     /* WB_DEP_CHECK: the address step an iteration */
    wb_aff diff;      /* WB_DEP_CHECK: a's address less b's (no t, no symbol) */
    int64_t gmin;     /* wb_counter_dependence: the least extra step g the answer assumes */
} wb_dep;
/* How the accesses at a (iteration t) and b relate (forms without a counter). */
wb_dep wb_mem_dependence(const wb_aff *a, const wb_aff *b);

/* A counter that no affine form describes: each iteration adds m, or m + g
 * (g loop-invariant, the same sign as m): p := p + 1; if j = h then p := p + h
 * (m = 1, g = h). Its value after d iterations has grown by d*m + k*g, k in 0..d. */
typedef struct wb_counter {
    int64_t m;
    wb_aff g;         /* no t, no symbol, no counter */
} wb_counter;
/* How a (iteration t) and b (iteration t + d, d >= 1) relate when their
 * addresses read the counter: WB_DEP_NONE, WB_DEP_AT (the least d they may meet
 * at; `want` when every d below it is excluded) or WB_DEP_UNKNOWN. Both hold
 * only if g >= gmin, which the caller checks on entry when g is no constant. */
wb_dep wb_counter_dependence(const wb_aff *a, const wb_aff *b, const wb_counter *c, int want);

/* ---- swp*.c: software pipelining of innermost loops ------------------------ */

typedef struct wb_swp_options {
    int enable;                /* -fno-swp clears it */
    const char *disabled;      /* when set, loops are analysed and reported with this reason, not changed */
    const char *file;          /* the source file, for the report */
    int squeeze;               /* registers kept back from a pipelined loop (after a failed allocation) */
    wb_remarks *report;        /* a remark per loop, or NULL */
    int iu;                    /* Warp with the interface unit: it may count the kernels' passes (@adr) */
} wb_swp_options;

/* Pipelines every single-block counted loop it can: the loop becomes an entry
 * check, a prologue, a kernel and an epilogue, scheduled here (the list scheduler
 * leaves them alone), and the original block stays for short and leftover trip
 * counts. Appends a report line per loop. */
void wb_swp(wb_func *f, const wb_swp_options *o);

/* ---- live.c: liveness over virtual registers -------------------------------- */

/* Per block id, the vregs live into it and out of it, ascending. */
typedef struct wb_live {
    int nblocks;
    int *in_at, *out_at;  /* nblocks + 1 offsets into in and out */
    int *in, *out;
} wb_live;

/* Edges' pending copies count as defined on the edge (phis). */
wb_live *wb_liveness(const wb_func *f);
/* The same sets for the vregs v with track[v] set only (the others are in none),
 * listed in tracked (ascending, ntracked of them), given the blocks that read or
 * write any of them (each once; NULL: all): the cost is then theirs and the
 * layout's, not the function's. */
wb_live *wb_liveness_in(const wb_func *f, const uint8_t *track, const int *tracked, int ntracked, const int *blocks,
                        int nblocks);
void wb_live_free(wb_live *l);
static inline const int *wb_live_in(const wb_live *l, int id, int *n)
{
    *n = l->in_at[id + 1] - l->in_at[id];
    return l->in + l->in_at[id];
}
static inline const int *wb_live_out(const wb_live *l, int id, int *n)
{
    *n = l->out_at[id + 1] - l->out_at[id];
    return l->out + l->out_at[id];
}
/* Is v in the ascending set of n vregs? */
int wb_live_has(const int *set, int n, int v);
static inline int wb_bit(const uint64_t *set, int v) { return (int)((set[v >> 6] >> (v & 63)) & 1); }
static inline void wb_bit_set(uint64_t *set, int v) { set[v >> 6] |= 1ull << (v & 63); }
static inline void wb_bit_clear(uint64_t *set, int v) { set[v >> 6] &= ~(1ull << (v & 63)); }
/* The first member >= from of a set of `words` words, or -1: walking a sparse set
 * costs its words, not its bits (a long function has many blocks and vregs). */
static inline int wb_bit_next(const uint64_t *set, int words, int from)
{
    if (from < 0) from = 0;
    int k = from >> 6;
    if (k >= words) return -1;
    uint64_t bits = set[k] & (~0ull << (from & 63));
    while (!bits) {
        if (++k >= words) return -1;
        bits = set[k];
    }
    return k * 64 + __builtin_ctzll(bits);
}

/* The block's successors (up to 2: term target, then fall); returns how many. */
int wb_succs(const wb_block *b, int succ[2]);
/* The control-flow graph of f's blocks (node = block id, successors as wb_succs
 * gives them), for support/graph.c's algorithms; only the edges out of blocks with
 * keep[id] set count (keep NULL: every block). The predecessor lists are its
 * ws_graph_reverse, each block's by ascending id. */
ws_graph wb_cfg(const wb_func *f, const uint8_t *keep);

/* ---- verify.c: the invariants between passes ------------------------------- */

/* What has been done to the function so far: which invariants hold. */
enum { WB_VERIFY_SCHEDULED = 1, WB_VERIFY_ALLOCATED = 2 };
/* 0 if f holds the invariants of its stage; else -1 and the first fault, located at
 * the W2 line and column of the operation it is about (line 0: none, or not known). */
int wb_verify(const wb_func *f, unsigned stage, ws_diagnostic *fault);

/* ---- the passes, in the order backend.c runs them ---------------------------- */

/* What selection and emission share about the module (isel.c). */
typedef struct wb_module {
    LLVMModuleRef m;
    LLVMTargetDataRef td;
    ws_diagnostic *err;        /* the first error, for the driver to print */
    int failed;
    ws_arena arena;
    wb_ptrmap gnames;          /* global value -> index in names */
    const char **names;
    int nnames;
    struct wb_dinfo *dinfo;    /* -g: DWARF collected function by function */
    /* The largest object in data memory, named when the program does not fit, and
     * reported at its declaration (!w2.decl; line 0: the module has none). */
    uint64_t largest_bytes;
    char largest[160];         /* "array 'a' of function 'f'" */
    unsigned largest_line, largest_col;
    int leftward;              /* the IU may not count loops: some cell receives from R or sends to
                                  L (wb_emit_assembly) */
    wb_ptrmap divergent;       /* blocks (and values, functions) cells may run differently (diverge.c) */
} wb_module;

/* NULL, with the error in err, if the module's data layout is not the contract's. */
wb_module *wb_module_new(LLVMModuleRef m, ws_diagnostic *err);
void wb_module_free(wb_module *mod);
/* Records the first error; later ones are dropped. Returns -1. wb_error_at locates it
 * at a W2 line and column (line 0: unknown), for an error about one operation. */
int wb_error(wb_module *mod, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int wb_error_at(wb_module *mod, unsigned line, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* -verify-each after a pass: 0, or -1 and wb_verify's fault as the module's error,
 * naming the pass ("internal error: machine IR verifier, after PASS: ..."), located
 * at the operation's W2 position. */
int wb_verify_after(wb_module *mod, const wb_func *f, unsigned stage, wb_pass pass);
/* Notes an object of data memory (a global, or a frame's variable in function fn,
 * NULL for globals), for the message when the program does not fit. */
void wb_note_data_object(wb_module *mod, LLVMValueRef v, const char *fn, uint64_t bytes);
/* The assembly name of a global variable or function; NULL (and an error) if it
 * cannot be written as a symbol. Unnamed globals get a generated name. */
const char *wb_global_symbol(wb_module *mod, LLVMValueRef g);
/* Adds the byte offset of a getelementptr (instruction or constant expression) whose
 * indices are all constant to *off: 0; -1 if an index is not constant; -2 if it
 * steps into a type other than a struct or array (that type in *bad). Selection of a
 * constant address and an initializer's relocation read it alike. */
int wb_gep_const_offset(wb_module *mod, LLVMValueRef gep, int64_t *off, LLVMTypeRef *bad);
/* Inlines the innermost functions if calls nest deeper than the return stack
 * (calls.c); -1 and an error if that cannot be done. Run before wb_isel. */
int wb_limit_call_depth(wb_module *mod, const wt_model *model);
int wb_isel(wb_module *mod, LLVMValueRef fn, wb_func *f);   /* isel.c, -1 on error */
/* diverge.c: finds the blocks whose executions a received word, the cell's number
 * or memory may decide (mod->divergent); the IU may count no loop there. */
void wb_find_divergent_blocks(wb_module *mod);
int wb_block_divergent(const wb_module *mod, LLVMBasicBlockRef bb);
void wb_lower_phis(wb_func *f);                              /* phi.c */
void wb_fold_gates(wb_func *f);                              /* gates.c */
void wb_layout(wb_func *f);                                  /* layout.c */
void wb_coalesce(wb_func *f);                                /* coalesce.c */
void wb_spill_calls(wb_func *f);                             /* spill.c */
/* Warp: marks the operations the interface unit does (host loads into the feeds,
 * host addresses and the data-independent sums they use; with twins, the IU gets
 * copies of such sums the cells need too); 0, or -1 when the operations the
 * pipeliner placed for the IU (`fixed` blocks) no longer can be. */
int wb_split_iu(wb_func *f, int twins);                                  /* iu.c */
void wb_spill_vregs(wb_func *f, const uint8_t *which);       /* spill.c */
/* limit: live values the scheduler tries to stay under (a register count). */
void wb_schedule(wb_func *f, int limit);                     /* sched.c */
/* 0: allocated; 1: spill code was added, schedule again; -1: nothing left to
 * spill (the driver then schedules with fewer live values). */
int wb_regalloc(wb_func *f);                                 /* regalloc.c */

/* dwarf.c: DWARF for the module (-g): .debug_abbrev, .debug_info, .debug_loc as
 * data directives, and the .debug_line label the assembler's line program fills. */
typedef struct wb_dinfo wb_dinfo;
wb_dinfo *wb_dinfo_new(wb_module *mod);
void wb_dinfo_free(wb_dinfo *d);
/* After a function is emitted: its subprogram and where its variables live. The
 * function starts `offset` bundles after the start of .text. */
void wb_dinfo_function(wb_dinfo *d, LLVMValueRef fn, const wb_func *f, uint32_t offset);
/* The sections, at the end of the module's assembly; text_bundles is all of .text. */
int wb_dinfo_emit(wb_dinfo *d, uint32_t text_bundles, ws_buf *out);
/* emit.c */
int wb_emit_module_header(wb_module *mod, const wb_options *opts, ws_buf *out);
const char *wb_source_file(wb_module *mod);                   /* !w2.source, or NULL */
/* .bss (globals, then the frames' text), then .data. */
int wb_emit_globals(wb_module *mod, ws_buf *out, const ws_buf *frames);
void wb_emit_frame(const wb_func *f, ws_buf *out);
void wb_emit_function(const wb_func *f, ws_buf *out);

#endif
