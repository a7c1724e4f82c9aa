/* The machine description of the Warp and iWarp cells: the single source of truth
 * for units, latencies, registers, gates, queues and the instruction encoding.
 * The backend, the assembler, the disassembler and the simulator all read it.
 * docs/design.md, section 1, describes the machine these tables define. */
#ifndef WARP_TARGET_H
#define WARP_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- Models ---------------------------------------------------------------- */

typedef enum wt_model_id { WT_MODEL_WARP, WT_MODEL_IWARP, WT_NMODELS } wt_model_id;

typedef struct wt_model {
    wt_model_id id;
    const char *name;            /* "warp", "iwarp": the -mcpu names */
    unsigned clock_mhz;          /* cell clock */
    unsigned nregs;              /* registers r0..nregs-1, r0 reads as zero */
    unsigned queue_words;        /* depth of each input queue */
    unsigned link_latency;       /* clocks from a gate write's completion to the neighbour's queue */
    unsigned data_mem_bytes;     /* cell data memory */
    unsigned prog_mem_bundles;   /* program memory, in bundles */
    unsigned ret_stack_depth;    /* hardware return-address stack */
    unsigned gate_ops_per_clock; /* gate operations a clock before a bundle takes longer; 0 = no limit */
    unsigned gate_word_clocks;   /* clocks an internal bus between a gate and the communication
                                    agent takes to carry a word; 0 = no limit */
    unsigned double_precision;   /* the double-precision operations exist (WT_K_DOUBLE) */
    unsigned int_ops_per_clock;  /* operations of the ALU fields a clock before a bundle takes
                                    longer; 0 = as many as the fields */
    unsigned interface_unit;     /* Warp: an interface unit beside the end cells, its bundle in the
                                    cells' format, its link into the array (docs/design.md,
                                    section 1); 0 = none */
    unsigned iu_table_words;     /* the interface unit's address table (tld, .warp.iutab); 0 = none */
    /* The communication agent (iWarp only; logical_channels = 0: none, neighbour queues). */
    unsigned logical_channels;   /* logical input channels, and output channels, per cell */
    unsigned bus_word_clocks;    /* clocks a physical bus takes to carry one word */
    unsigned credit_latency;     /* clocks from a dequeue to the transmitter's restored free slot */
    unsigned route_clocks;       /* clocks to route an unmatched begin marker before its bus transfer */
    unsigned corner_clocks;      /* the same for a corner turn (discard, convert the next word) */
    unsigned spool_gates;        /* memory agent's spool gates */
    unsigned spool_words_per_clock; /* memory bus: words all spools together move in one clock */
} wt_model;

const wt_model *wt_model_get(wt_model_id id);
/* NULL if the name is not a model. */
const wt_model *wt_model_by_name(const char *name);

/* ---- Units and slots ----------------------------------------------------------- */

typedef enum wt_unit_class {
    WT_UC_NONE, WT_UC_FA, WT_UC_FM, WT_UC_ALU, WT_UC_MEM, WT_UC_MV, WT_UC_BR, WT_NUCLASSES
} wt_unit_class;

/* The fields of a bundle that hold an operation, in encoding order. */
typedef enum wt_slot_id {
    WT_SLOT_FA, WT_SLOT_FM, WT_SLOT_A0, WT_SLOT_A1, WT_SLOT_M0, WT_SLOT_M1,
    WT_SLOT_V0, WT_SLOT_V1, WT_SLOT_BR, WT_NSLOTS
} wt_slot_id;

typedef struct wt_slot_layout {
    const char *name;         /* "FA", "A0", ... */
    wt_unit_class uclass;
    uint16_t op_lsb, op_width;
    int16_t opnd_lsb[4];      /* subfields d/x, a, b, c: lsb, or -1 if the field has none */
} wt_slot_layout;

extern const wt_slot_layout wt_slot_layouts[WT_NSLOTS];
const char *wt_unit_class_name(wt_unit_class uc);
/* How many slots a bundle has for a unit class (2 for ALU, MEM, MV). */
unsigned wt_class_slots(wt_unit_class uc);

/* ---- Operations ---------------------------------------------------------------- */

typedef enum wt_op {
    WT_OP_NONE,
#define WT_OP(id, mn, uc, code, sig, ity, lw, li, iw, ii, kind, sem) WT_OP_##id,
#include "warp_ops.def"
#undef WT_OP
    WT_NOPS
} wt_op;

/* The kinds of operation, from the WT_KIND rows of warp_ops.def. */
typedef enum wt_kind {
#define WT_OP(id, mn, uc, code, sig, ity, lw, li, iw, ii, kind, sem)
#define WT_KIND(id, value, memory, flow) WT_K_##id,
#include "warp_ops.def"
#undef WT_KIND
#undef WT_OP
    WT_NKINDS
} wt_kind;

/* The columns of a WT_KIND row (warp_ops.def describes each value). */
typedef enum wt_value { WT_VAL_NONE, WT_VAL_EXPR, WT_VAL_EXPR_DIV0, WT_VAL_LOADED, WT_VAL_DOUBLE, WT_VAL_AGENT } wt_value;
typedef enum wt_memory { WT_MEM_NONE, WT_MEM_LOAD, WT_MEM_STORE, WT_MEM_HOST_LOAD, WT_MEM_IU_TABLE } wt_memory;
typedef enum wt_flow {
    WT_FLOW_NEXT, WT_FLOW_JUMP, WT_FLOW_IF_ZERO, WT_FLOW_IF_NONZERO, WT_FLOW_COUNT_DOWN,
    WT_FLOW_CALL, WT_FLOW_RETURN, WT_FLOW_HALT
} wt_flow;

typedef struct wt_kind_info {
    const char *name;
    uint8_t value, memory, flow;     /* wt_value, wt_memory, wt_flow */
} wt_kind_info;

extern const wt_kind_info wt_kinds[WT_NKINDS];

typedef struct wt_op_info {
    const char *name;
    wt_unit_class uclass;
    uint8_t code;                    /* opcode in its field; 0 means idle */
    const char *sig;                 /* operand signature, see warp_ops.def */
    char imm_type;                   /* 'f', 'i', 'x' or '-' */
    uint8_t latency[WT_NMODELS];
    uint8_t interval[WT_NMODELS];
    wt_kind kind;
} wt_op_info;

extern const wt_op_info wt_ops[WT_NOPS];

/* Where control goes after an operation (WT_FLOW_NEXT for any that is not one). */
static inline wt_flow wt_op_flow(wt_op op) { return (wt_flow)wt_kinds[wt_ops[op].kind].flow; }
/* Is the operation the Warp interface unit's alone (tld: its address table)? A cell's
 * bundle naming it is refused. */
static inline int wt_op_iu_only(wt_op op) { return wt_kinds[wt_ops[op].kind].memory == WT_MEM_IU_TABLE; }
/* Does the flow go to the bundle's target within the function (a jump or a branch;
 * a call's target is another function)? */
static inline int wt_flow_branches(wt_flow f) { return f >= WT_FLOW_JUMP && f <= WT_FLOW_COUNT_DOWN; }
/* May control go on to the next bundle (a call's callee returns there)? */
static inline int wt_flow_falls_through(wt_flow f)
{
    return f != WT_FLOW_JUMP && f != WT_FLOW_RETURN && f != WT_FLOW_HALT;
}
/* Does the run leave the function here (return, or the cell stops)? */
static inline int wt_flow_exits(wt_flow f) { return f == WT_FLOW_RETURN || f == WT_FLOW_HALT; }

/* WT_OP_NONE if no operation has that mnemonic. */
wt_op wt_op_lookup(const char *mnemonic);
/* WT_OP_NONE if the code is idle or undefined for the class. */
wt_op wt_op_from_code(wt_unit_class uc, unsigned code);
/* The subfield (0..3) a signature letter lives in; -1 for 't' and 'm' (which spans 1 and 2). */
int wt_sig_subfield(char sigch);
/* Does the operation write a destination operand (signature has 'd' or 'K')? */
int wt_op_has_dest(wt_op op);
/* The operations that may stand for op in a bundle, op first, then the table's
 * alternatives (WT_ALT rows: the same value on another unit, so a scheduler can take
 * whichever unit is free). Returns how many (at least 1). */
enum { WT_MAX_ALTS = 4 };
unsigned wt_op_alternatives(wt_op op, wt_op out[WT_MAX_ALTS]);

/* The tag a word carries through the iWarp communication agent (seed 000, sec. 6.1.2:
 * "a data word plus tag is a marker"). Pathway markers are the agent's own and never
 * reach a gate; message and application markers travel with the data. */
typedef enum wt_marker {
    WT_MARK_DATA = 0,
    WT_MARK_MBEGIN = 1,   /* message begin: its word is the message header */
    WT_MARK_MEND = 2,     /* message end */
    WT_MARK_APP = 3,      /* application marker: a tagged data word anywhere in a message */
    WT_MARK_PBEGIN = 8,   /* pathway begin: its word is street-sign routing (docs/design.md) */
    WT_MARK_PEND = 9      /* pathway end: returns the channels */
} wt_marker;
#define WT_MARK_AGENT 8   /* tag bit of the markers the agent consumes */
/* The marker a WT_K_COMM operation writes to its output gate, or WT_MARK_DATA. */
wt_marker wt_op_marker(wt_op op);

/* ---- Operands ------------------------------------------------------------------ */

/* The paths of warp_ops.def (WT_PATH rows): the Warp's address path. */
typedef enum wt_path {
#define WT_OP(id, mn, uc, code, sig, ity, lw, li, iw, ii, kind, sem)
#define WT_PATH(id, name, words, per_clock, model) WT_PATH_##id,
#include "warp_ops.def"
#undef WT_PATH
#undef WT_OP
    WT_NPATHS
} wt_path;

typedef struct wt_path_info {
    const char *name;            /* the operand: "@adr" */
    uint16_t words;              /* each cell's queue */
    uint8_t per_clock;           /* words the interface unit writes into it a clock */
    wt_model_id model;           /* the one model that has it */
} wt_path_info;
extern const wt_path_info wt_paths[WT_NPATHS];

/* Queue index q = 2*dir + chan, dir L=0 R=1, chan X=0 Y=1: the same numbering as
 * the frontend's w2.* calls. */
enum { WT_Q_XL, WT_Q_YL, WT_Q_XR, WT_Q_YR, WT_NQUEUES };

enum {
    WT_OPND_R0 = 0,
    WT_OPND_NREGS = 64,
    WT_OPND_CID = 64,
    WT_OPND_GATE = 65,     /* + q: @xl @yl @xr @yr */
    WT_OPND_FEED = 69,     /* + q: @fxl @fyl @fxr @fyr (destination only) */
    WT_OPND_ADDR = 73,     /* + q: @axl @ayl @axr @ayr (destination only) */
    WT_OPND_PGATE = 77,    /* + g: @g0 @g1, iWarp's two input gates (as sources) and two
                              output gates (as destinations), bound to channels by %gi/%go */
    WT_OPND_CTL = 79,      /* + wt_ctl: the communication agent's control registers */
    WT_OPND_PATH = 79 + 22, /* + wt_path: read by a cell (dequeues, and passes the word on),
                               written by the interface unit */
    WT_OPND_LAST_NAMED = WT_OPND_PATH + WT_NPATHS - 1,
    WT_OPND_IMM0 = 254,
    WT_OPND_IMM1 = 255
};

static inline int wt_opnd_is_reg(unsigned o)  { return o < WT_OPND_NREGS; }
static inline int wt_opnd_is_gate(unsigned o) { return o >= WT_OPND_GATE && o < WT_OPND_GATE + 4; }
static inline int wt_opnd_is_feed(unsigned o) { return o >= WT_OPND_FEED && o < WT_OPND_FEED + 4; }
static inline int wt_opnd_is_addr(unsigned o) { return o >= WT_OPND_ADDR && o < WT_OPND_ADDR + 4; }
static inline int wt_opnd_is_imm(unsigned o)  { return o == WT_OPND_IMM0 || o == WT_OPND_IMM1; }
static inline int wt_opnd_is_pgate(unsigned o) { return o == WT_OPND_PGATE || o == WT_OPND_PGATE + 1; }
static inline int wt_opnd_is_ctl(unsigned o)  { return o >= WT_OPND_CTL && o < WT_OPND_PATH; }
static inline int wt_opnd_is_path(unsigned o) { return o >= WT_OPND_PATH && o < WT_OPND_PATH + WT_NPATHS; }

/* The control registers of the iWarp communication agent, named %NAME in assembly
 * (docs/design.md, section 7). Writes take effect when the writing operation
 * completes; reads see the agent's state at issue. */
typedef enum wt_ctl {
    WT_CTL_GI0, WT_CTL_GI1,    /* input gate @g0/@g1: the logical input channel bound, or -1 */
    WT_CTL_GO0, WT_CTL_GO1,    /* output gate @g0/@g1: the local input channel it fills, or -1 */
    WT_CTL_GT0, WT_CTL_GT1,    /* tag (wt_marker) of the word last read through @g0/@g1 */
    WT_CTL_CAM0, WT_CTL_CAM1, WT_CTL_CAM2, WT_CTL_CAM3,
    WT_CTL_CAM4, WT_CTL_CAM5, WT_CTL_CAM6, WT_CTL_CAM7, /* match CAM: cell addresses, -1 empty */
    WT_CTL_EVST,               /* events waiting (bits 0..7), bit 31: some were lost */
    WT_CTL_EVMASK,             /* bit k: report events of kind k */
    WT_CTL_EVDATA,             /* the word of the event evwait took last */
    WT_CTL_SPS,                /* spool gate selected for the four below */
    WT_CTL_SPA,                /* its memory byte address (the next word's) */
    WT_CTL_SPL,                /* its address limit: no word at or past it */
    WT_CTL_SPN,                /* words still to move; 0: no count */
    WT_CTL_SPC,                /* write: start or stop; read: status (docs/design.md) */
    WT_NCTL
} wt_ctl;

typedef struct wt_ctl_info {
    const char *name;          /* "%gi0", ... */
    uint8_t readable, writable;
} wt_ctl_info;
extern const wt_ctl_info wt_ctls[WT_NCTL];
/* May this code stand as a source?  As a destination? */
int wt_opnd_valid_src(unsigned o);
int wt_opnd_valid_dst(unsigned o);
/* "r5", "cid", "@xl", ...; NULL for immediates and undefined codes. */
const char *wt_opnd_name(unsigned o);
/* The code of a named operand ("r5", "@fxl", "cid"), or -1. */
int wt_opnd_parse(const char *name, size_t len);
/* Must this symbol be written in double quotes in assembly ("r5", "nan")?  True
 * when the name is not a plain identifier (a letter, '_', '.' or '$', then those
 * and digits) or when the operand syntax claims it: an operand name, anything
 * of the shape r<digits>, and the literals inf and nan. */
int wt_symbol_needs_quotes(const char *name);

/* ---- What a bundle can hold (the resource model) --------------------------------
 *
 * One account of a bundle's resources, for every stage that builds or checks
 * bundles: the unit classes' slots (wt_class_slots), one branch, the literal fields
 * (WT_BUNDLE_LITERALS: the caller tells which literals are new, as it knows what
 * makes two literals equal: a symbol's address, a float's bits), and on iWarp the
 * gate operations of seed 000 section 7.1: each input gate dequeued (however many
 * operations read it) and each output-gate write; host-feed and host-address writes
 * are not gate operations. */

/* The literal fields of a bundle (wt_insn.imm, operands WT_OPND_IMM0 and IMM1):
 * operations of one bundle share them, equal literals sharing a field. */
#define WT_BUNDLE_LITERALS 2

static inline int wt_opnd_is_gate_in(unsigned o)  { return wt_opnd_is_gate(o) || wt_opnd_is_pgate(o); }
static inline int wt_opnd_is_gate_out(unsigned o) { return wt_opnd_is_gate(o) || wt_opnd_is_pgate(o); }

/* Resources an operation of a bundle takes: a slot of a unit class of the cells
 * (wt_unit_class), or on the Warp (wt_model.interface_unit) the same class of the
 * interface unit's bundle, which issues beside the cells' (a separate encoding with
 * the cells' format); and the IU link, which carries WT_IU_LINK_WORDS words a
 * clock into the array (seed 002, section 3): a host feed written by the IU takes it. */
enum { WT_RES_IU = WT_NUCLASSES, WT_RES_LINK = 2 * WT_NUCLASSES, WT_RES_PATH, WT_NRES = WT_RES_PATH + WT_NPATHS };
#define WT_IU_LINK_WORDS 1
/* WT_RES_PATH + p: the interface unit's writes into path p (wt_paths[p].per_clock a clock). */
/* The resource of op in the cells' bundle (iu 0) or the interface unit's (iu 1). */
static inline unsigned wt_op_res(wt_op op, int iu) { return (unsigned)wt_ops[op].uclass + (iu ? WT_RES_IU : 0); }
/* Operations of resource r a bundle holds: with m NULL as far as the encoding goes
 * (the class's slots, the link's words), with a model what issues in one clock on
 * it (wt_class_issue; none of the interface unit's on a model without one). */
unsigned wt_res_issue(const wt_model *m, unsigned r);
/* "ALU", "IU ALU", "IU link", "IU @adr" */
const char *wt_res_name(unsigned r);

typedef struct wt_bundle_use {
    uint8_t used[WT_NRES];       /* operations per resource (wt_op_res, WT_RES_LINK) */
    uint8_t gates_read;          /* bits 0..3: @xl @yl @xr @yr dequeued; 4, 5: @g0, @g1 */
    uint8_t gates_written;       /* the same bits for the output gates written */
    uint8_t gate_writes;         /* output-gate writes */
    uint8_t literals;            /* literal fields taken */
} wt_bundle_use;

/* The bundle-legality check: may an operation taking resource res (a unit class, or
 * wt_op_res) and bringing new_literals literals the bundle does not hold yet join
 * it? With m NULL, as far as the encoding goes (the class's slots, what assembler
 * and verifier accept); with a model, what issues in one clock on it
 * (wt_res_issue), which schedulers fill bundles to. The cells' and the interface
 * unit's operations share the literal fields here (the IU's bundle has fields of its
 * own: a simplification the backend makes). */
int wt_bundle_fits(const wt_model *m, const wt_bundle_use *u, unsigned res, unsigned new_literals);
/* Takes the slot and literal fields wt_bundle_fits allowed (gates: wt_bundle_add_gates). */
void wt_bundle_take(wt_bundle_use *u, unsigned res, unsigned new_literals);
/* Gate operations: may an operation whose gate operations make the bundle's `after`
 * join a bundle whose gate operations are `before`, without the bundle taking more
 * than a clock for them (iWarp: gate_ops_per_clock)? A bundle with none takes any
 * one operation, however many it has. */
int wt_bundle_gates_fit(const wt_model *m, const wt_bundle_use *before, const wt_bundle_use *after);

/* Adds an operation of class uc writing dst (WT_OPND_* code, or -1 for none) and
 * reading the nsrc operand codes in srcs (literal codes are fine). Returns 0, or
 * -1 if the bundle has no free slot of the class. */
int wt_bundle_add(wt_bundle_use *u, wt_unit_class uc, int dst, const unsigned *srcs, int nsrc);
/* The gate operations alone of an operation writing dst and reading srcs, for a
 * stage that keeps the slots itself (the list scheduler picks among alternatives). */
void wt_bundle_add_gates(wt_bundle_use *u, int dst, const unsigned *srcs, int nsrc);
/* Gate operations of the bundle so far. */
unsigned wt_bundle_gate_ops(const wt_bundle_use *u);
/* Clocks the bundle takes on the model: more than 1 when its gate operations or its
 * integer operations exceed what a clock handles (iWarp), else 1. */
unsigned wt_bundle_clocks(const wt_model *m, const wt_bundle_use *u);
/* Operations of class uc a bundle holds and still issues in one clock on the model:
 * the class's slots, or fewer (iWarp's one integer operation a clock). Schedulers
 * fill bundles up to this. */
unsigned wt_class_issue(const wt_model *m, wt_unit_class uc);
/* The shortest issue interval among the class's operations on the model: at its
 * peak the class issues wt_class_issue operations every this many clocks (iWarp's
 * float units: one every 2). Utilisation is measured against that peak. */
unsigned wt_class_interval(const wt_model *m, wt_unit_class uc);

/* ---- Bundles ------------------------------------------------------------------- */

#define WT_BUNDLE_BYTES 40
#define WT_BUNDLE_BITS 320

typedef struct wt_slot {
    uint16_t op;       /* wt_op, WT_OP_NONE when idle */
    uint8_t opnd[4];   /* subfields d/x, a, b, c */
} wt_slot;

typedef struct wt_insn {
    wt_slot slot[WT_NSLOTS];
    uint16_t target;   /* branch target, a bundle index */
    uint32_t imm[WT_BUNDLE_LITERALS];
} wt_insn;

/* The operands of a slot's operation as its signature names them: what the
 * stages that read decoded code (the simulator, flow control, the resource count,
 * the decoder's checks) take them from. */
typedef struct wt_operands {
    uint8_t dst;          /* the operand code written ('d', 'D', or the counter of 'K'); 0: none */
    uint8_t src[3];       /* a, b, c: a memory operand's address is a + b; a store's value,
                             a branch condition and a counter are c */
    uint8_t reads;        /* bit k: src[k] is read */
    uint8_t pair;         /* register pairs (D A B): bit 0 a, bit 1 b, bit 2 dst */
    uint8_t bad;          /* an operand code its signature letter does not allow */
} wt_operands;
/* sl->op must be a defined operation. */
void wt_slot_operands(const wt_slot *sl, wt_operands *o);

/* The resources of a decoded bundle by the resource model's account (wt_bundle_add),
 * operation by operation: what the simulator and flow control time a bundle by.
 * A slot whose operation is not of its unit class is skipped (decoding refuses it). */
wt_bundle_use wt_insn_use(const wt_insn *in);

/* ---- A bundle decoded for running it ------------------------------------------ */

/* Why a bundle cannot run on a model: the simulator faults when it issues one, and
 * flow control's abstract run stops there. */
typedef enum wt_bundle_fault {
    WT_FAULT_NONE,
    WT_FAULT_UNDEFINED,     /* an undefined operation or operand code, or an operation in
                               another class's slot */
    WT_FAULT_MARKER_DEST,   /* a marker written to a register, not an output gate */
    WT_FAULT_CREQ_GATES,    /* creq or evwait reading a gate */
    WT_FAULT_TWO_WAITS,     /* two creq or evwait */
    WT_FAULT_NO_AGENT,      /* the iWarp agent's gates, control registers or operations on
                               a model without logical channels */
    WT_FAULT_NO_DOUBLE,     /* a double operation on a model without double precision */
    WT_FAULT_NO_PATH,       /* a read of an address path the model has not */
    WT_FAULT_PATH_WRITE,    /* a cell writing the address path (only the IU does) */
    WT_FAULT_IU_ONLY,       /* the IU's address table in a cell's bundle */
    WT_NFAULTS
} wt_bundle_fault;

/* One operation of a decoded bundle: its operands as wt_slot_operands reads them, and
 * the table's figures for the model. */
typedef struct wt_dop {
    uint8_t op, kind, slot, uclass;
    uint8_t lat, interval;    /* on the model the bundle was decoded for */
    uint8_t dst;              /* operand code written; 0: none */
    uint8_t src[3];           /* source operand codes (a register pair: its first register) */
    uint8_t reads, pair;      /* as wt_operands */
} wt_dop;

/* A cell's bundle as the simulator runs it and flow control abstracts it: the one
 * walk over its slots both start from. Each keeps its own view on top: the
 * simulator its source indices, gate masks and events, flow control the objects
 * its literals name and the interface unit's bundle. */
typedef struct wt_dbundle {
    wt_dop ops[WT_NSLOTS];    /* in slot order, stores last: memory is written after every
                                 read in the bundle */
    uint8_t nops;
    uint8_t fault;            /* wt_bundle_fault; of several, the one the last check found */
    uint8_t clocks;           /* issue clocks by the resource model (wt_bundle_clocks) */
    uint8_t wait_op;          /* 1 + index in ops of a creq or evwait, which may block; 0 */
    uint16_t slot_mask;       /* slots with an operation */
    uint16_t target;
    uint32_t imm[WT_BUNDLE_LITERALS];
} wt_dbundle;
void wt_decode_bundle(const wt_model *m, const wt_insn *in, wt_dbundle *b);

void wt_encode(const wt_insn *in, uint8_t out[WT_BUNDLE_BYTES]);
/* 0 on success; -1 for an undefined opcode, a bad operand code or set reserved bits
 * (the bundle is then decoded as far as it goes). */
int wt_decode(const uint8_t in[WT_BUNDLE_BYTES], wt_insn *out);
/* The Warp interface unit's bundles (docs/design.md, section 1): why the IU cannot
 * issue slot s of a decoded bundle, or NULL if it can. The linker and the loader
 * ask the same question. */
const char *wt_iu_slot_fault(const wt_insn *in, unsigned s);
/* The assembly text of a bundle ("fmul r3, @xl, @yl | mv @xr, @xl", or "nop").
 * Literals are printed as numbers; branch targets as bundle indices unless
 * target_name supplies a name. Returns the length it wanted, like snprintf. */
int wt_format_insn(const wt_insn *in, char *buf, size_t size,
                   const char *(*target_name)(void *ctx, unsigned target), void *ctx);
/* A literal as the assembler reads it back: floats keep a '.' or exponent, inf and
 * NaN are raw hex; 'i' and 'x' literals are signed decimal. */
int wt_format_literal(uint32_t bits, char imm_type, char *buf, size_t size);

/* ---- Values (used by the table's value expressions) ----------------------------- */

static inline float wt_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t wt_u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline int32_t wt_i(uint32_t u) { return (int32_t)u; }
static inline double wt_d(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }
static inline uint64_t wt_ud(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
/* Does signature letter c name a register pair (a double)? */
static inline int wt_sig_pair(char c) { return c == 'D' || c == 'A' || c == 'B'; }
/* A register pair's first register: even, r2..r62. */
static inline int wt_opnd_is_pair(unsigned o) { return o >= 2 && o < 64 && !(o & 1); }
static inline uint32_t wt_sra(uint32_t a, uint32_t b)
{
    b &= 31;
    return (a & 0x80000000u) ? ~(~a >> b) : a >> b;
}
/* Truncating division that wraps INT_MIN / -1 as the contract's int does. */
static inline uint32_t wt_idiv(uint32_t a, uint32_t b)
{
    if (b == 0) return 0;
    if (a == 0x80000000u && b == 0xffffffffu) return a;
    return (uint32_t)(wt_i(a) / wt_i(b));
}
static inline uint32_t wt_imod(uint32_t a, uint32_t b)
{
    if (b == 0 || (a == 0x80000000u && b == 0xffffffffu)) return 0;
    return (uint32_t)(wt_i(a) % wt_i(b));
}
/* Toward zero, saturating to 32 bits; NaN gives 0 (llvm.fptosi.sat). A float is
 * exact as a double, so single and double precision share it. */
static inline uint32_t wt_sat_i32(double d)
{
    if (d != d) return 0;
    if (d >= 2147483648.0) return 0x7fffffffu;
    if (d < -2147483648.0) return 0x80000000u;
    return (uint32_t)(int32_t)d;
}
static inline uint32_t wt_dtoi_sat(uint64_t a) { return wt_sat_i32(wt_d(a)); }
static inline uint32_t wt_ftoi_sat(uint32_t a) { return wt_sat_i32((double)wt_f(a)); }

/* The largest array of cells, on either model (iWarp systems grow to 1,024 cells,
 * seed 000): the compiler, assembler, linker and simulator all refuse more. */
#define WT_MAX_CELLS 1024
/* The most host memory a program may declare (all its host arrays): what the
 * simulator allocates for the host, so every stage refuses more. */
#define WT_MAX_HOST_BYTES (256u << 20)

/* ---- ELF conventions (docs/design.md, section 4) -------------------------------- */

#define WT_EM_WARP 0x5741        /* unassigned machine number, "WA" */
#define WT_EF_IWARP 0x1          /* e_flags: built for the iWarp model */
/* Where an image's ELF addresses put data memory (sections, segment, data symbols,
 * DW_OP_addr): program and data memory are separate spaces, both from 0, and
 * gdb and readelf read one address space, so data memory is placed above any
 * program as AVR's toolchain places its data at 0x800000. Loaders subtract it. */
#define WT_DATA_SPACE 0x10000000u
/* e_flags of an object assembled with neither -mcpu nor .model: its code means the
 * same on both models, so it links with objects of either (crt0.o is built once
 * for both). Images never carry it. */
#define WT_EF_ANY_MODEL 0x2
/* e_flags of an object that asks for compile-time flow control (`.flowctl`), and of a
 * Warp image whose skew the linker computed from its schedule: the simulator then
 * treats any wait for a queue as a compiler bug (docs/design.md, section 6). */
#define WT_EF_FLOWCTL 0x4
/* What the linker timed for WT_EF_FLOWCTL: a fingerprint (64-bit FNV-1a) of the
 * code as it decodes, the Warp interface unit's bundles beside it (iu_code, NULL
 * for an image without .warp.iu, which then hashes as before the IU existed), the
 * initial data (trailing zeros aside, so .bss adds nothing), the entry bundle, the
 * model, the cells and the skew. The linker writes it after the skew in
 * .warp.cells; a loader that computes another has an image changed since, whose
 * queue waits are no compiler bug. */
uint64_t wt_timing_fingerprint(wt_model_id model, const wt_insn *code, const wt_insn *iu_code, uint32_t ncode,
                               const uint8_t *data, uint32_t data_size, uint32_t entry, int first_cell,
                               int last_cell, int32_t skew);
/* The same, covering also the interface unit's address table (.warp.iutab, `words`
 * little-endian 32-bit entries): an image without one hashes as above. */
uint64_t wt_timing_fingerprint_table(uint64_t fingerprint, const uint8_t *table, uint32_t words);
enum {
    WT_R_NONE = 0,
    WT_R_IMM0 = 1,               /* S+A into literal field 0 of the bundle at r_offset */
    WT_R_IMM1 = 2,               /* S+A into literal field 1 */
    WT_R_TARGET = 3,             /* (S+A)/40 into the branch target field */
    WT_R_ABS32 = 4               /* S+A into a 32-bit data word */
};
/* Relocations of a debug section of an object (docs/design.md, section 5): Elf32_Rel
 * entries of type WT_R_ABS32 with the addend in place, in a section of this
 * processor-specific type named ".warp.rel" + the debug section's name. readelf
 * knows no Warp relocation and would complain about standard ones; with these it
 * reads an object's DWARF as it is, every address relative to its section. */
#define WT_SHT_DEBUG_REL 0x70000001u

#endif
