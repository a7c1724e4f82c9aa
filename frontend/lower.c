/* Lowering: a checked w2_program -> an LLVM module in the shape docs/design.md,
 * section 2 fixes for the backend. The IR is deliberately plain (every variable
 * in memory, every read a load), because at -O0 the backend runs no passes.
 *
 * Every instruction carries a source location: without -g the compile unit is
 * line-tables-only, because the machine reports a division by zero with its
 * source line whatever the flags; -g adds variables and types. */
#include "w2_internal.h"

#include <llvm-c/DebugInfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The backend's interface functions (design.md, section 2). */
typedef enum rt_id {
    RT_RECV_F32, RT_RECV_I32, RT_SEND_F32, RT_SEND_I32, RT_FEED_F32, RT_FEED_I32, RT_DEST,
    RT_CELLID, RT_IDIV, RT_IMOD, RT_COUNT
} rt_id;

typedef enum rt_effects {
    RT_COMM,        /* memory(inaccessiblemem: readwrite) nounwind willreturn: ordered among themselves */
    RT_PURE_SPEC,   /* memory(none) nounwind willreturn speculatable */
    RT_PURE_FAULTS  /* memory(none) nounwind: may fault, so never hoisted past a guard */
} rt_effects;

static const struct {
    const char *name;
    char ret;               /* 'v' void, 'i' i32, 'f' float */
    const char *params;
    rt_effects effects;
} rt_table[RT_COUNT] = {
    [RT_RECV_F32] = {"w2.recv.f32", 'f', "i", RT_COMM},
    [RT_RECV_I32] = {"w2.recv.i32", 'i', "i", RT_COMM},
    [RT_SEND_F32] = {"w2.send.f32", 'v', "if", RT_COMM},
    [RT_SEND_I32] = {"w2.send.i32", 'v', "ii", RT_COMM},
    [RT_FEED_F32] = {"w2.host.feed.f32", 'v', "if", RT_COMM},
    [RT_FEED_I32] = {"w2.host.feed.i32", 'v', "ii", RT_COMM},
    [RT_DEST] = {"w2.host.dest", 'v', "ii", RT_COMM},
    [RT_CELLID] = {"w2.cellid", 'i', "", RT_PURE_SPEC},
    [RT_IDIV] = {"w2.idiv", 'i', "ii", RT_PURE_FAULTS},
    [RT_IMOD] = {"w2.imod", 'i', "ii", RT_PURE_FAULTS},
};

/* LLVM 19 encodes memory effects as 2 bits (ModRef) per location: ArgMem at bit
 * 0, InaccessibleMem at bit 2, Other at bit 4. */
#define MEMORY_NONE 0
#define MEMORY_INACCESSIBLE_READWRITE (3u << 2)

typedef struct lowerer {
    w2_ctx *c;
    LLVMContextRef ctx;
    LLVMModuleRef m;
    LLVMBuilderRef b;
    LLVMTypeRef t_void, t_i8, t_i32, t_f32, t_fn;
    LLVMValueRef rt[RT_COUNT];
    LLVMTypeRef rt_type[RT_COUNT];
    LLVMValueRef fptosi;
    LLVMTypeRef fptosi_type;
    LLVMValueRef fn;                /* the function being lowered */
    int32_t first, last;            /* cellprogram (cid : FIRST : LAST) */
    /* A 2-D cellprogram (x : X0 : .., y : Y0 : ..): cell number k (0 to W*H-1) is at
     * column X0 + k mod W, row Y0 + k div W, as the torus numbers its cells. */
    const w2_var *cell_x, *cell_y;
    int32_t x0, y0, width, height;
    /* Debug information. */
    LLVMDIBuilderRef dib;
    LLVMMetadataRef di_file, di_cu, di_scope, di_int, di_float, di_fn_type;
    int full_debug;
    /* The builder's current location: an expression sets its position at every
     * node, and making a DILocation (a lookup in LLVM's uniquing tables) for
     * each was a tenth of a large program's compile time. */
    w2_loc cur_loc;
    LLVMMetadataRef cur_loc_scope;
    /* Message passing (lower_message): the argument block and the runtime's entries. */
    LLVMValueRef main_fn, msg_args, msg_send, msg_recv, msg_flush;
    /* Phased connection sets (lower_con): the argument block and the runtime's entries. */
    LLVMValueRef cs_args, cs_instantiate, cs_range;
} lowerer;

/* ---- Types, locations, runtime functions ------------------------------------------ */

static LLVMTypeRef elem_type(lowerer *lw, const w2_var *v) { return v->type == W2_TY_INT ? lw->t_i32 : lw->t_f32; }

static LLVMTypeRef var_type(lowerer *lw, const w2_var *v)
{
    LLVMTypeRef t = elem_type(lw, v);
    for (int i = v->ndims - 1; i >= 0; i--) t = LLVMArrayType2(t, (uint64_t)v->dims[i]);
    return t;
}

static void set_loc(lowerer *lw, w2_loc loc)
{
    if (loc.line == lw->cur_loc.line && loc.col == lw->cur_loc.col && lw->di_scope == lw->cur_loc_scope) return;
    lw->cur_loc = loc;
    lw->cur_loc_scope = lw->di_scope;
    LLVMMetadataRef l = LLVMDIBuilderCreateDebugLocation(lw->ctx, (unsigned)loc.line, (unsigned)loc.col,
                                                         lw->di_scope, NULL);
    LLVMSetCurrentDebugLocation2(lw->b, l);
}

static void add_fn_attr(lowerer *lw, LLVMValueRef f, const char *name, uint64_t value)
{
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    if (!kind) ws_internal_error("LLVM has no attribute '%s'", name);
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(lw->ctx, kind, value));
}

static LLVMTypeRef type_code(lowerer *lw, char c)
{
    return c == 'i' ? lw->t_i32 : c == 'f' ? lw->t_f32 : lw->t_void;
}

/* Declared on first use, so a module names only the interface it needs. */
static LLVMValueRef runtime_fn(lowerer *lw, rt_id id)
{
    if (lw->rt[id]) return lw->rt[id];
    LLVMTypeRef params[2];
    unsigned n = (unsigned)strlen(rt_table[id].params);
    for (unsigned i = 0; i < n; i++) params[i] = type_code(lw, rt_table[id].params[i]);
    LLVMTypeRef ft = LLVMFunctionType(type_code(lw, rt_table[id].ret), params, n, 0);
    LLVMValueRef f = LLVMAddFunction(lw->m, rt_table[id].name, ft);
    switch (rt_table[id].effects) {
    case RT_COMM:
        add_fn_attr(lw, f, "memory", MEMORY_INACCESSIBLE_READWRITE);
        add_fn_attr(lw, f, "nounwind", 0);
        add_fn_attr(lw, f, "willreturn", 0);
        break;
    case RT_PURE_SPEC:
        add_fn_attr(lw, f, "memory", MEMORY_NONE);
        add_fn_attr(lw, f, "nounwind", 0);
        add_fn_attr(lw, f, "willreturn", 0);
        add_fn_attr(lw, f, "speculatable", 0);
        break;
    case RT_PURE_FAULTS:
        add_fn_attr(lw, f, "memory", MEMORY_NONE);
        add_fn_attr(lw, f, "nounwind", 0);
        break;
    }
    lw->rt[id] = f;
    lw->rt_type[id] = ft;
    return f;
}

static LLVMValueRef call_rt(lowerer *lw, rt_id id, LLVMValueRef *args, unsigned n, const char *name)
{
    LLVMValueRef f = runtime_fn(lw, id);
    return LLVMBuildCall2(lw->b, lw->rt_type[id], f, args, n, rt_table[id].ret == 'v' ? "" : name);
}

static LLVMValueRef i32_const(lowerer *lw, int32_t v) { return LLVMConstInt(lw->t_i32, (uint32_t)v, 0); }

static LLVMBasicBlockRef new_block(lowerer *lw, const char *name)
{
    return LLVMCreateBasicBlockInContext(lw->ctx, name);
}

/* Blocks join the function when code starts in them, so they print in source order. */
static void start_block(lowerer *lw, LLVMBasicBlockRef bb)
{
    LLVMAppendExistingBasicBlock(lw->fn, bb);
    LLVMPositionBuilderAtEnd(lw->b, bb);
}

/* ---- Expressions ----------------------------------------------------------------- */

static LLVMValueRef rvalue(lowerer *lw, w2_expr *e);

/* The address of a variable or of the element a subscripted name denotes; for a
 * host variable a pointer in address space 1. No 'inbounds': W2 does not check
 * subscripts, and an address outside the array must stay an address (the machine
 * faults on it) rather than become poison. */
static LLVMValueRef element_addr(lowerer *lw, w2_expr *e)
{
    w2_var *v = e->var;
    if (v->ndims == 0) return v->addr;
    LLVMValueRef idx[3] = {i32_const(lw, 0)};
    for (int i = 0; i < v->ndims; i++) idx[i + 1] = rvalue(lw, e->index[i]);
    set_loc(lw, e->loc);
    char name[80];
    snprintf(name, sizeof name, "%.60s.elt", v->name);
    return LLVMBuildGEP2(lw->b, var_type(lw, v), v->addr, idx, (unsigned)v->ndims + 1, name);
}

static LLVMValueRef binary(lowerer *lw, w2_expr *e)
{
    LLVMValueRef l = rvalue(lw, e->lhs), r = rvalue(lw, e->rhs);
    set_loc(lw, e->loc);
    int fl = e->lhs->type == W2_TY_FLOAT;
    LLVMBuilderRef b = lw->b;
    static const LLVMIntPredicate ipred[] = {LLVMIntEQ, LLVMIntNE, LLVMIntSLT, LLVMIntSLE, LLVMIntSGT, LLVMIntSGE};
    /* '<>' is true when either side is a NaN, as != is in C; the others are false then. */
    static const LLVMRealPredicate fpred[] = {LLVMRealOEQ, LLVMRealUNE, LLVMRealOLT,
                                              LLVMRealOLE, LLVMRealOGT, LLVMRealOGE};
    switch (e->op) {
    case W2_OP_ADD: return fl ? LLVMBuildFAdd(b, l, r, "fadd") : LLVMBuildAdd(b, l, r, "add");
    case W2_OP_SUB: return fl ? LLVMBuildFSub(b, l, r, "fsub") : LLVMBuildSub(b, l, r, "sub");
    case W2_OP_MUL: return fl ? LLVMBuildFMul(b, l, r, "fmul") : LLVMBuildMul(b, l, r, "mul");
    case W2_OP_DIV:
        if (fl) return LLVMBuildFDiv(b, l, r, "fdiv");
        return call_rt(lw, RT_IDIV, (LLVMValueRef[]){l, r}, 2, "div");
    case W2_OP_MOD:
        return call_rt(lw, RT_IMOD, (LLVMValueRef[]){l, r}, 2, "mod");
    case W2_OP_EQ:
    case W2_OP_NE:
    case W2_OP_LT:
    case W2_OP_LE:
    case W2_OP_GT:
    case W2_OP_GE:
        if (fl) return LLVMBuildFCmp(b, fpred[e->op - W2_OP_EQ], l, r, "fcmp");
        return LLVMBuildICmp(b, ipred[e->op - W2_OP_EQ], l, r, "cmp");
    case W2_OP_AND: return LLVMBuildAnd(b, l, r, "and");
    case W2_OP_OR: return LLVMBuildOr(b, l, r, "or");
    }
    ws_internal_error("unknown binary operator %d", (int)e->op);
}

/* The cell's column (offset from the first, 0 to W-1) or row (0 to H-1) in a 2-D
 * cellprogram. A power-of-two width, as every torus of the tests has, takes a mask
 * or a shift even at -O0. */
static LLVMValueRef grid_offset(lowerer *lw, int row, const char *name)
{
    LLVMValueRef cid = call_rt(lw, RT_CELLID, NULL, 0, "cid");
    uint32_t w = (uint32_t)lw->width;
    if ((w & (w - 1)) == 0) {
        unsigned shift = 0;
        while ((1u << shift) < w) shift++;
        return row ? LLVMBuildLShr(lw->b, cid, i32_const(lw, (int32_t)shift), name)
                   : LLVMBuildAnd(lw->b, cid, i32_const(lw, (int32_t)(w - 1)), name);
    }
    return row ? LLVMBuildUDiv(lw->b, cid, i32_const(lw, lw->width), name)
               : LLVMBuildURem(lw->b, cid, i32_const(lw, lw->width), name);
}

static LLVMValueRef grid_coordinate(lowerer *lw, int row, const char *name)
{
    int32_t base = row ? lw->y0 : lw->x0;
    LLVMValueRef off = grid_offset(lw, row, base ? "off" : name);
    return base ? LLVMBuildAdd(lw->b, off, i32_const(lw, base), name) : off;
}

static LLVMValueRef rvalue(lowerer *lw, w2_expr *e)
{
    switch (e->kind) {
    case W2_EX_INTLIT:
        return i32_const(lw, e->ival);
    case W2_EX_FLOATLIT:
        return LLVMConstReal(lw->t_f32, e->fval);
    case W2_EX_VAR: {
        w2_var *v = e->var;
        if (v->kind == W2_VAR_CELLID) {
            set_loc(lw, e->loc);
            if (lw->cell_x) return grid_coordinate(lw, v == lw->cell_y, v->name);
            return call_rt(lw, RT_CELLID, NULL, 0, v->name);
        }
        LLVMValueRef addr = element_addr(lw, e);
        set_loc(lw, e->loc);
        return LLVMBuildLoad2(lw->b, elem_type(lw, v), addr, v->name);
    }
    case W2_EX_NEG: {
        LLVMValueRef x = rvalue(lw, e->lhs);
        set_loc(lw, e->loc);
        return e->type == W2_TY_INT ? LLVMBuildNeg(lw->b, x, "neg") : LLVMBuildFNeg(lw->b, x, "fneg");
    }
    case W2_EX_NOT: {
        LLVMValueRef x = rvalue(lw, e->lhs);
        set_loc(lw, e->loc);
        return LLVMBuildNot(lw->b, x, "not");
    }
    case W2_EX_BINARY:
        return binary(lw, e);
    case W2_EX_TOINT: {
        LLVMValueRef x = rvalue(lw, e->lhs);
        if (e->lhs->type != W2_TY_FLOAT) return x;
        set_loc(lw, e->loc);
        /* Saturating, so an out-of-range float gives INT_MIN/INT_MAX (NaN gives 0)
         * on every target and at every optimisation level, never poison. */
        if (!lw->fptosi) {
            LLVMTypeRef types[2] = {lw->t_i32, lw->t_f32};
            unsigned id = LLVMLookupIntrinsicID("llvm.fptosi.sat", 15);
            lw->fptosi = LLVMGetIntrinsicDeclaration(lw->m, id, types, 2);
            lw->fptosi_type = LLVMIntrinsicGetType(lw->ctx, id, types, 2);
        }
        return LLVMBuildCall2(lw->b, lw->fptosi_type, lw->fptosi, &x, 1, "toint");
    }
    case W2_EX_TOFLOAT: {
        LLVMValueRef x = rvalue(lw, e->lhs);
        if (e->lhs->type != W2_TY_INT) return x;
        set_loc(lw, e->loc);
        return LLVMBuildSIToFP(lw->b, x, lw->t_f32, "tofloat");
    }
    }
    ws_internal_error("unknown expression kind %d", (int)e->kind);
}

/* ---- Statements ------------------------------------------------------------------ */

static void lower_stmts(lowerer *lw, w2_stmt *s);

static LLVMValueRef side_const(lowerer *lw, const w2_stmt *s) { return i32_const(lw, 2 * s->dir + s->chan); }

/* Whether evaluating e can fault: an int division or 'mod' (by zero), or a
 * subscripted cell array (an address outside data memory). Host loads never
 * fault (design.md, section 1). */
static int may_fault(const w2_expr *e)
{
    if (!e) return 0;
    if (e->kind == W2_EX_BINARY && (e->op == W2_OP_DIV || e->op == W2_OP_MOD) && e->lhs->type == W2_TY_INT)
        return 1;
    if (e->kind == W2_EX_VAR) {
        if (e->nindex > 0 && e->var->kind != W2_VAR_HOST) return 1;
        return may_fault(e->index[0]) || may_fault(e->index[1]);
    }
    return may_fault(e->lhs) || may_fault(e->rhs);
}

typedef LLVMValueRef (*ext_eval)(lowerer *lw, w2_expr *e);

/* A fourth argument's value: only the end cell facing the host on the side the
 * statement names uses it, and on every other cell it is ignored, so it must
 * not fault there either (an index or divisor that means something only on the
 * end cell). An argument that may fault is evaluated under a test of the cell
 * number, and the other cells take `other` instead. */
/* Whether the cell is at the edge of a 2-D cellprogram that faces the host on the
 * statement's side: the first column for L, the last for R, the first row for D,
 * the last for U. NULL when every cell is (a single column or row). */
static LLVMValueRef at_grid_edge(lowerer *lw, const w2_stmt *s)
{
    int vertical = s->chan == W2_CHAN_Y;
    int32_t n = vertical ? lw->height : lw->width;
    if (n == 1) return NULL;
    LLVMValueRef off = grid_offset(lw, vertical, vertical ? "row" : "col");
    return LLVMBuildICmp(lw->b, LLVMIntEQ, off, i32_const(lw, s->dir == W2_DIR_L ? 0 : n - 1), "at.edge");
}

static LLVMValueRef lower_ext(lowerer *lw, const w2_stmt *s, ext_eval eval, LLVMValueRef other)
{
    if (!may_fault(s->ext) || (!lw->cell_x && lw->first == lw->last)) return eval(lw, s->ext);
    set_loc(lw, s->ext->loc);
    LLVMValueRef at_end;
    if (lw->cell_x) {
        at_end = at_grid_edge(lw, s);
        if (!at_end) return eval(lw, s->ext);
    } else {
        int32_t end = s->dir == W2_DIR_L ? lw->first : lw->last;
        LLVMValueRef cid = call_rt(lw, RT_CELLID, NULL, 0, "cid");
        at_end = LLVMBuildICmp(lw->b, LLVMIntEQ, cid, i32_const(lw, end), "at.end");
    }
    LLVMBasicBlockRef from = LLVMGetInsertBlock(lw->b);
    LLVMBasicBlockRef use = new_block(lw, "ext.use"), join = new_block(lw, "ext.join");
    LLVMBuildCondBr(lw->b, at_end, use, join);
    start_block(lw, use);
    LLVMValueRef v = eval(lw, s->ext);
    LLVMBasicBlockRef use_end = LLVMGetInsertBlock(lw->b);
    LLVMBuildBr(lw->b, join);
    start_block(lw, join);
    LLVMValueRef phi = LLVMBuildPhi(lw->b, LLVMTypeOf(other), "ext");
    LLVMAddIncoming(phi, (LLVMValueRef[]){v, other}, (LLVMBasicBlockRef[]){use_end, from}, 2);
    return phi;
}

/* The host byte address of a send's fourth argument. */
static LLVMValueRef host_addr(lowerer *lw, w2_expr *e)
{
    LLVMValueRef addr = element_addr(lw, e);
    set_loc(lw, e->loc);
    return LLVMBuildPtrToInt(lw->b, addr, lw->t_i32, "haddr");
}

/* The host feed goes right before the receive: on the end cell facing the host
 * it supplies the word this receive takes. */
static void lower_receive(lowerer *lw, w2_stmt *s)
{
    int fl = s->lhs->var->type == W2_TY_FLOAT;
    LLVMValueRef q = side_const(lw, s);
    LLVMValueRef zero = fl ? LLVMConstReal(lw->t_f32, 0.0) : i32_const(lw, 0);
    LLVMValueRef feed = s->ext ? lower_ext(lw, s, rvalue, zero) : zero;
    LLVMValueRef addr = element_addr(lw, s->lhs);
    set_loc(lw, s->loc);
    call_rt(lw, fl ? RT_FEED_F32 : RT_FEED_I32, (LLVMValueRef[]){q, feed}, 2, "");
    LLVMValueRef v = call_rt(lw, fl ? RT_RECV_F32 : RT_RECV_I32, &q, 1, "recv");
    LLVMBuildStore(lw->b, v, addr);
}

/* The host address goes right after the send: on the end cell facing the host it
 * says where the host stores the word just sent (-1: nowhere). */
static void lower_send(lowerer *lw, w2_stmt *s)
{
    int fl = s->rhs->type == W2_TY_FLOAT;
    LLVMValueRef q = side_const(lw, s);
    LLVMValueRef v = rvalue(lw, s->rhs);
    LLVMValueRef haddr = s->ext ? lower_ext(lw, s, host_addr, i32_const(lw, -1)) : i32_const(lw, -1);
    set_loc(lw, s->loc);
    call_rt(lw, fl ? RT_SEND_F32 : RT_SEND_I32, (LLVMValueRef[]){q, v}, 2, "");
    call_rt(lw, RT_DEST, (LLVMValueRef[]){q, haddr}, 2, "");
}

/* sendmsg and receivemsg call the message-passing runtime (runtime/msg_w2.s), a
 * W2-style function without parameters: the arguments go through the global
 * w2_msg_args, which this program defines and the runtime reads and writes. It is
 * not internal, and the block's address is stored in it, so LLVM keeps the stores
 * before each call and reloads what the call may have written. The torus is a 2-D
 * cellprogram's, cells numbered from 0 as the torus numbers them; a linear one's
 * cells as a square, or a row when their number is no square. */
static LLVMValueRef msg_entry(lowerer *lw, const char *name)
{
    LLVMValueRef f = LLVMAddFunction(lw->m, name, lw->t_fn);
    LLVMSetLinkage(f, LLVMExternalLinkage);
    return f;
}

static void msg_arg(lowerer *lw, int i, LLVMValueRef v)
{
    LLVMValueRef ix[2] = {i32_const(lw, 0), i32_const(lw, i)};
    LLVMTypeRef t = LLVMArrayType2(lw->t_i32, 8);
    LLVMBuildStore(lw->b, v, LLVMBuildInBoundsGEP2(lw->b, t, lw->msg_args, ix, 2, "msg.arg"));
}

static LLVMValueRef msg_result(lowerer *lw, int i)
{
    LLVMValueRef ix[2] = {i32_const(lw, 0), i32_const(lw, i)};
    LLVMTypeRef t = LLVMArrayType2(lw->t_i32, 8);
    return LLVMBuildLoad2(lw->b, lw->t_i32, LLVMBuildInBoundsGEP2(lw->b, t, lw->msg_args, ix, 2, "msg.res"), "msg");
}

static void lower_message(lowerer *lw, w2_stmt *s)
{
    if (!lw->msg_args) {
        LLVMTypeRef t = LLVMArrayType2(lw->t_i32, 8);
        lw->msg_args = LLVMAddGlobal(lw->m, t, "w2_msg_args");
        LLVMSetInitializer(lw->msg_args, LLVMConstNull(t));
        lw->msg_send = msg_entry(lw, "w2_msg_send");
        lw->msg_recv = msg_entry(lw, "w2_msg_recv");
        lw->msg_flush = msg_entry(lw, "w2_msg_flush");
    }
    int send = s->kind == W2_ST_MSGSEND;
    LLVMValueRef cell = send ? rvalue(lw, s->rhs) : NULL;
    LLVMValueRef words = rvalue(lw, s->limit);
    LLVMValueRef block = element_addr(lw, s->lhs);
    set_loc(lw, s->loc);
    int32_t cells = lw->last - lw->first + 1, side = 1, first = lw->first;
    while ((side + 1) * (side + 1) <= cells) side++;
    int32_t w = side * side == cells ? side : cells, h = side * side == cells ? side : 1;
    if (lw->cell_x) {
        /* A 2-D cellprogram names its torus; its cells are numbered from 0. */
        w = lw->width;
        h = lw->height;
        first = 0;
    }
    LLVMValueRef addr = LLVMBuildPtrToInt(lw->b, block, lw->t_i32, "msg.block");
    int i = 0;
    if (send) msg_arg(lw, i++, cell);
    msg_arg(lw, i++, addr);
    msg_arg(lw, i++, words);
    msg_arg(lw, 4, i32_const(lw, w));
    msg_arg(lw, 5, i32_const(lw, h));
    msg_arg(lw, 6, i32_const(lw, first));
    LLVMBuildCall2(lw->b, lw->t_fn, send ? lw->msg_send : lw->msg_recv, NULL, 0, "");
    if (send) return;
    w2_expr *outs[2] = {s->ext, s->rhs};
    for (int k = 0; k < 2; k++) {
        if (!outs[k]) continue;
        LLVMValueRef v = msg_result(lw, 2 + k);
        LLVMValueRef dst = element_addr(lw, outs[k]);
        set_loc(lw, s->loc);
        LLVMBuildStore(lw->b, v, dst);
    }
}

/* Phased connection sets (frontend/conset.c made each set's plan): a set's plan is
 * a constant array, and its send and receive tables hold a block (address, words)
 * a slot, which sendcon and receivecon fill; instantiate passes the three to the
 * runtime (runtime/conset_w2.s) through the global w2_cs_args, as messages do. */
static void con_globals(lowerer *lw, w2_conset *set)
{
    if (set->plan_g) return;
    char name[160];
    LLVMValueRef *words = ws_xmalloc(sizeof *words * (set->nplan + 1));
    for (size_t i = 0; i < set->nplan; i++) words[i] = LLVMConstInt(lw->t_i32, set->plan[i], 0);
    LLVMTypeRef pt = LLVMArrayType2(lw->t_i32, set->nplan);
    snprintf(name, sizeof name, "w2.cs.plan.%s", set->name);
    set->plan_g = LLVMAddGlobal(lw->m, pt, name);
    LLVMSetInitializer(set->plan_g, LLVMConstArray2(lw->t_i32, words, set->nplan));
    LLVMSetGlobalConstant(set->plan_g, 1);
    LLVMSetLinkage(set->plan_g, LLVMInternalLinkage);
    free(words);
    LLVMTypeRef tt = LLVMArrayType2(lw->t_i32, 2 * (uint64_t)set->nslots);
    snprintf(name, sizeof name, "w2.cs.send.%s", set->name);
    set->send_g = LLVMAddGlobal(lw->m, tt, name);
    snprintf(name, sizeof name, "w2.cs.recv.%s", set->name);
    set->recv_g = LLVMAddGlobal(lw->m, tt, name);
    LLVMValueRef tables[2] = {set->send_g, set->recv_g};
    for (int i = 0; i < 2; i++) {
        LLVMSetInitializer(tables[i], LLVMConstNull(tt));
        LLVMSetLinkage(tables[i], LLVMInternalLinkage);
    }
    if (!lw->cs_args) {
        LLVMTypeRef at = LLVMArrayType2(lw->t_i32, 4);
        lw->cs_args = LLVMAddGlobal(lw->m, at, "w2_cs_args");
        LLVMSetInitializer(lw->cs_args, LLVMConstNull(at));
        lw->cs_instantiate = msg_entry(lw, "w2_cs_instantiate");
        lw->cs_range = msg_entry(lw, "w2_cs_range");
    }
}

static void table_store(lowerer *lw, LLVMValueRef table, uint64_t n, LLVMValueRef index, LLVMValueRef v)
{
    LLVMValueRef ix[2] = {i32_const(lw, 0), index};
    LLVMBuildStore(lw->b, v, LLVMBuildInBoundsGEP2(lw->b, LLVMArrayType2(lw->t_i32, n), table, ix, 2, "cs.entry"));
}

/* sendcon and receivecon post a block for the connection's slot at this cell; an
 * index outside the connection's range calls w2_cs_range, which faults. */
static void lower_con_transfer(lowerer *lw, w2_stmt *s)
{
    w2_conn *k = s->conn;
    con_globals(lw, k->set);
    LLVMValueRef index = s->rhs ? rvalue(lw, s->rhs) : NULL;
    LLVMValueRef words = rvalue(lw, s->limit);
    LLVMValueRef block = element_addr(lw, s->lhs);
    set_loc(lw, s->loc);
    LLVMValueRef slot = i32_const(lw, k->slot);
    if (index) {
        LLVMValueRef off = LLVMBuildSub(lw->b, index, i32_const(lw, (int32_t)k->lo), "cs.off");
        LLVMValueRef in = LLVMBuildICmp(lw->b, LLVMIntULT, off, i32_const(lw, (int32_t)(k->hi - k->lo + 1)), "cs.in");
        LLVMBasicBlockRef bad = new_block(lw, "cs.range"), ok = new_block(lw, "cs.slot");
        LLVMBuildCondBr(lw->b, in, ok, bad);
        start_block(lw, bad);
        LLVMBuildCall2(lw->b, lw->t_fn, lw->cs_range, NULL, 0, "");
        LLVMBuildBr(lw->b, ok);
        start_block(lw, ok);
        slot = LLVMBuildAdd(lw->b, slot, off, "cs.slot");
    }
    LLVMValueRef table = s->kind == W2_ST_CONSEND ? k->set->send_g : k->set->recv_g;
    uint64_t n = 2 * (uint64_t)k->set->nslots;
    LLVMValueRef entry = LLVMBuildShl(lw->b, slot, i32_const(lw, 1), "cs.entry");
    table_store(lw, table, n, entry, LLVMBuildPtrToInt(lw->b, block, lw->t_i32, "cs.block"));
    table_store(lw, table, n, LLVMBuildAdd(lw->b, entry, i32_const(lw, 1), "cs.words"), words);
}

static void lower_instantiate(lowerer *lw, w2_stmt *s)
{
    w2_conset *set = s->set;
    con_globals(lw, set);
    LLVMValueRef g[3] = {set->plan_g, set->send_g, set->recv_g};
    LLVMTypeRef at = LLVMArrayType2(lw->t_i32, 4);
    for (int i = 0; i < 3; i++) {
        LLVMValueRef ix[2] = {i32_const(lw, 0), i32_const(lw, i)};
        LLVMBuildStore(lw->b, LLVMBuildPtrToInt(lw->b, g[i], lw->t_i32, "cs.arg"),
                       LLVMBuildInBoundsGEP2(lw->b, at, lw->cs_args, ix, 2, "cs.args"));
    }
    LLVMBuildCall2(lw->b, lw->t_fn, lw->cs_instantiate, NULL, 0, "");
}

/* Both bounds are evaluated once, before the loop. The exit test compares the
 * variable with the last bound before stepping, so a loop up to INT_MAX (or down
 * to INT_MIN) ends instead of wrapping; the checker guarantees that nothing else
 * assigns the variable inside the loop. */
static void lower_for(lowerer *lw, w2_stmt *s)
{
    LLVMValueRef lo = rvalue(lw, s->rhs);
    LLVMValueRef hi = rvalue(lw, s->limit);
    LLVMValueRef addr = s->lhs->var->addr;
    set_loc(lw, s->loc);
    LLVMBuildStore(lw->b, lo, addr);
    LLVMValueRef empty = LLVMBuildICmp(lw->b, s->downto ? LLVMIntSLT : LLVMIntSGT, lo, hi, "for.empty");
    LLVMBasicBlockRef body = new_block(lw, "for.body"), step = new_block(lw, "for.step");
    LLVMBasicBlockRef end = new_block(lw, "for.end");
    /* Constant bounds fold the test; a plain branch spares the unoptimised
     * backend a branch on a constant. */
    if (LLVMIsAConstantInt(empty)) LLVMBuildBr(lw->b, LLVMConstIntGetZExtValue(empty) ? end : body);
    else LLVMBuildCondBr(lw->b, empty, end, body);

    start_block(lw, body);
    lower_stmts(lw, s->body);
    set_loc(lw, s->loc);
    LLVMValueRef cur = LLVMBuildLoad2(lw->b, lw->t_i32, addr, s->lhs->var->name);
    LLVMValueRef done = LLVMBuildICmp(lw->b, LLVMIntEQ, cur, hi, "for.done");
    LLVMBuildCondBr(lw->b, done, end, step);

    start_block(lw, step);
    LLVMValueRef next = s->downto ? LLVMBuildSub(lw->b, cur, i32_const(lw, 1), "for.next")
                                  : LLVMBuildAdd(lw->b, cur, i32_const(lw, 1), "for.next");
    LLVMBuildStore(lw->b, next, addr);
    LLVMBuildBr(lw->b, body);

    start_block(lw, end);
}

static void lower_while(lowerer *lw, w2_stmt *s)
{
    LLVMBasicBlockRef cond = new_block(lw, "while.cond"), body = new_block(lw, "while.body");
    LLVMBasicBlockRef end = new_block(lw, "while.end");
    LLVMBuildBr(lw->b, cond);
    start_block(lw, cond);
    LLVMValueRef c = rvalue(lw, s->cond);
    set_loc(lw, s->loc);
    LLVMBuildCondBr(lw->b, c, body, end);
    start_block(lw, body);
    lower_stmts(lw, s->body);
    set_loc(lw, s->loc);
    LLVMBuildBr(lw->b, cond);
    start_block(lw, end);
}

static void lower_if(lowerer *lw, w2_stmt *s)
{
    LLVMValueRef c = rvalue(lw, s->cond);
    set_loc(lw, s->loc);
    LLVMBasicBlockRef then = new_block(lw, "if.then"), end = new_block(lw, "if.end");
    LLVMBasicBlockRef els = s->els ? new_block(lw, "if.else") : end;
    LLVMBuildCondBr(lw->b, c, then, els);
    start_block(lw, then);
    lower_stmts(lw, s->body);
    LLVMBuildBr(lw->b, end);
    if (s->els) {
        start_block(lw, els);
        lower_stmts(lw, s->els);
        LLVMBuildBr(lw->b, end);
    }
    start_block(lw, end);
}

static void lower_stmt(lowerer *lw, w2_stmt *s)
{
    set_loc(lw, s->loc);
    switch (s->kind) {
    case W2_ST_ASSIGN: {
        LLVMValueRef v = rvalue(lw, s->rhs);
        LLVMValueRef addr = element_addr(lw, s->lhs);
        set_loc(lw, s->loc);
        LLVMBuildStore(lw->b, v, addr);
        break;
    }
    case W2_ST_FOR:
        lower_for(lw, s);
        break;
    case W2_ST_WHILE:
        lower_while(lw, s);
        break;
    case W2_ST_IF:
        lower_if(lw, s);
        break;
    case W2_ST_BLOCK:
        lower_stmts(lw, s->body);
        break;
    case W2_ST_RECEIVE:
        lower_receive(lw, s);
        break;
    case W2_ST_SEND:
        lower_send(lw, s);
        break;
    case W2_ST_CALL:
        LLVMBuildCall2(lw->b, lw->t_fn, s->func->fn, NULL, 0, "");
        break;
    case W2_ST_MSGSEND:
    case W2_ST_MSGRECV:
        lower_message(lw, s);
        break;
    case W2_ST_CONSEND:
    case W2_ST_CONRECV:
        lower_con_transfer(lw, s);
        break;
    case W2_ST_INSTANTIATE:
        lower_instantiate(lw, s);
        break;
    }
}

static void lower_stmts(lowerer *lw, w2_stmt *s)
{
    for (; s; s = s->next) lower_stmt(lw, s);
}

/* ---- Debug information ----------------------------------------------------------- */

static LLVMMetadataRef di_var_type(lowerer *lw, const w2_var *v)
{
    LLVMMetadataRef t = v->type == W2_TY_INT ? lw->di_int : lw->di_float;
    if (v->ndims == 0) return t;
    LLVMMetadataRef subs[2];
    uint64_t bits = 32;
    for (int i = 0; i < v->ndims; i++) {
        subs[i] = LLVMDIBuilderGetOrCreateSubrange(lw->dib, 0, v->dims[i]);
        bits *= (uint64_t)v->dims[i];
    }
    return LLVMDIBuilderCreateArrayType(lw->dib, bits, 32, t, subs, (unsigned)v->ndims);
}

static void init_debug_info(lowerer *lw, const char *path)
{
    lw->full_debug = lw->c->opts->debug_info;
    lw->dib = LLVMCreateDIBuilder(lw->m);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dirlen = slash ? (size_t)(slash - path) : 0;
    lw->di_file = LLVMDIBuilderCreateFile(lw->dib, base, strlen(base), path, dirlen);
    /* DWARF has no code for W2; Pascal is its nearest relative there. */
    static const char producer[] = "warp-cc (W2 frontend)";
    lw->di_cu = LLVMDIBuilderCreateCompileUnit(
        lw->dib, LLVMDWARFSourceLanguagePascal83, lw->di_file, producer, sizeof producer - 1, 0, "", 0, 0, "",
        0, lw->full_debug ? LLVMDWARFEmissionFull : LLVMDWARFEmissionLineTablesOnly, 0, 0, 0, "", 0, "", 0);
    LLVMAddModuleFlag(lw->m, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
                      LLVMValueAsMetadata(i32_const(lw, (int32_t)LLVMDebugMetadataVersion())));
    LLVMAddModuleFlag(lw->m, LLVMModuleFlagBehaviorWarning, "Dwarf Version", 13,
                      LLVMValueAsMetadata(i32_const(lw, 4)));
    LLVMMetadataRef no_result = NULL;
    lw->di_fn_type = LLVMDIBuilderCreateSubroutineType(lw->dib, lw->di_file, &no_result, 1, LLVMDIFlagZero);
    /* DW_ATE_signed = 5, DW_ATE_float = 4. */
    lw->di_int = LLVMDIBuilderCreateBasicType(lw->dib, "int", 3, 32, 5, LLVMDIFlagZero);
    lw->di_float = LLVMDIBuilderCreateBasicType(lw->dib, "float", 5, 32, 4, LLVMDIFlagZero);
}

static void di_global(lowerer *lw, w2_var *v)
{
    if (!lw->full_debug) return;
    LLVMMetadataRef expr = LLVMDIBuilderCreateExpression(lw->dib, NULL, 0);
    size_t n = strlen(v->name);
    LLVMMetadataRef gve = LLVMDIBuilderCreateGlobalVariableExpression(
        lw->dib, lw->di_cu, v->name, n, v->name, n, lw->di_file, (unsigned)v->loc.line, di_var_type(lw, v), 1,
        expr, NULL, 32);
    LLVMGlobalSetMetadata(v->addr, LLVMGetMDKindIDInContext(lw->ctx, "dbg", 3), gve);
}

/* A cell variable's declaration, for the backend's report of a program whose data
 * does not fit data memory: the debug information has it only under -g. */
static void note_declaration(lowerer *lw, const w2_var *v)
{
    LLVMMetadataRef at[2] = {LLVMValueAsMetadata(i32_const(lw, v->loc.line)),
                             LLVMValueAsMetadata(i32_const(lw, v->loc.col))};
    LLVMMetadataRef node = LLVMMDNodeInContext2(lw->ctx, at, 2);
    unsigned kind = LLVMGetMDKindIDInContext(lw->ctx, "w2.decl", 7);
    if (LLVMIsAGlobalVariable(v->addr)) LLVMGlobalSetMetadata(v->addr, kind, node);
    else LLVMSetMetadata(v->addr, kind, LLVMMetadataAsValue(lw->ctx, node));
}

static void di_local(lowerer *lw, w2_var *v, LLVMBasicBlockRef entry)
{
    if (!lw->full_debug) return;
    LLVMMetadataRef var = LLVMDIBuilderCreateAutoVariable(lw->dib, lw->di_scope, v->name, strlen(v->name),
                                                          lw->di_file, (unsigned)v->loc.line,
                                                          di_var_type(lw, v), 1, LLVMDIFlagZero, 32);
    LLVMMetadataRef loc = LLVMDIBuilderCreateDebugLocation(lw->ctx, (unsigned)v->loc.line, (unsigned)v->loc.col,
                                                           lw->di_scope, NULL);
    LLVMDIBuilderInsertDeclareRecordAtEnd(lw->dib, v->addr, var, LLVMDIBuilderCreateExpression(lw->dib, NULL, 0),
                                          loc, entry);
}

/* ---- Functions and the module ---------------------------------------------------- */

/* One function: locals in entry-block allocas, set to zero on entry (as cell
 * globals are), so a program that reads a variable before writing it behaves
 * the same at every optimisation level. */
static void lower_function(lowerer *lw, LLVMValueRef fn, const char *name, w2_loc loc, w2_loc body_loc,
                           w2_var *locals, w2_stmt *body, w2_loc end_loc)
{
    lw->fn = fn;
    lw->di_scope = LLVMDIBuilderCreateFunction(
        lw->dib, lw->di_file, name, strlen(name), LLVMGetValueName(fn), strlen(LLVMGetValueName(fn)), lw->di_file,
        (unsigned)loc.line, lw->di_fn_type, LLVMGetLinkage(fn) == LLVMInternalLinkage, 1, (unsigned)body_loc.line,
        LLVMDIFlagZero, 0);
    LLVMSetSubprogram(fn, lw->di_scope);
    LLVMBasicBlockRef entry = new_block(lw, "entry");
    start_block(lw, entry);
    set_loc(lw, loc);
    for (w2_var *v = locals; v; v = v->next) {
        v->addr = LLVMBuildAlloca(lw->b, var_type(lw, v), v->name);
        note_declaration(lw, v);
        di_local(lw, v, entry);
    }
    for (w2_var *v = locals; v; v = v->next) {
        set_loc(lw, v->loc);
        if (v->ndims == 0) {
            LLVMBuildStore(lw->b, LLVMConstNull(elem_type(lw, v)), v->addr);
        } else {
            uint32_t bytes = 4;
            for (int i = 0; i < v->ndims; i++) bytes *= (uint32_t)v->dims[i];
            LLVMBuildMemSet(lw->b, v->addr, LLVMConstInt(lw->t_i8, 0, 0), LLVMConstInt(lw->t_i32, bytes, 0), 4);
        }
    }
    lower_stmts(lw, body);
    set_loc(lw, end_loc);
    /* Sends run in the background: every message leaves before the cell halts. */
    if (fn == lw->main_fn && lw->msg_flush) LLVMBuildCall2(lw->b, lw->t_fn, lw->msg_flush, NULL, 0, "");
    LLVMBuildRetVoid(lw->b);
}

static LLVMMetadataRef md_str(lowerer *lw, const char *s) { return LLVMMDStringInContext2(lw->ctx, s, strlen(s)); }
static LLVMMetadataRef md_i32(lowerer *lw, int64_t v) { return LLVMValueAsMetadata(i32_const(lw, (int32_t)v)); }

static void add_named_md(lowerer *lw, const char *name, LLVMMetadataRef *ops, size_t n)
{
    LLVMValueRef node = LLVMMetadataAsValue(lw->ctx, LLVMMDNodeInContext2(lw->ctx, ops, n));
    LLVMAddNamedMetadataOperand(lw->m, name, node);
}

static void lower_host(lowerer *lw, w2_program *prog)
{
    for (w2_param *pa = prog->params; pa; pa = pa->next) {
        w2_var *v = pa->var;
        v->addr = LLVMAddGlobalInAddressSpace(lw->m, var_type(lw, v), v->name, 1);
        LLVMSetGlobalConstant(v->addr, !v->is_out);
        LLVMMetadataRef ops[5] = {md_str(lw, v->name), md_str(lw, v->is_out ? "out" : "in"),
                                  md_str(lw, v->type == W2_TY_INT ? "int" : "float"),
                                  md_i32(lw, v->ndims > 0 ? v->dims[0] : 0), md_i32(lw, v->ndims > 1 ? v->dims[1] : 0)};
        add_named_md(lw, "w2.host", ops, 5);
    }
}

LLVMModuleRef w2_lower(w2_ctx *c, w2_program *prog, LLVMContextRef ctx)
{
    lowerer lw = {.c = c, .ctx = ctx, .first = (int32_t)prog->first, .last = (int32_t)prog->last};
    if (prog->cellid_y) {
        lw.cell_x = prog->cellid;
        lw.cell_y = prog->cellid_y;
        lw.x0 = (int32_t)prog->first;
        lw.y0 = (int32_t)prog->first_y;
        lw.width = (int32_t)(prog->last - prog->first + 1);
        lw.height = (int32_t)(prog->last_y - prog->first_y + 1);
    }
    lw.m = LLVMModuleCreateWithNameInContext(c->path, ctx);
    LLVMSetSourceFileName(lw.m, c->path, strlen(c->path));
    LLVMSetDataLayout(lw.m, "e-m:e-p:32:32-i64:32-f64:32-n32-S32");
    LLVMSetTarget(lw.m, "warp-unknown-none");
    lw.b = LLVMCreateBuilderInContext(ctx);
    lw.t_void = LLVMVoidTypeInContext(ctx);
    lw.t_i8 = LLVMInt8TypeInContext(ctx);
    lw.t_i32 = LLVMInt32TypeInContext(ctx);
    lw.t_f32 = LLVMFloatTypeInContext(ctx);
    lw.t_fn = LLVMFunctionType(lw.t_void, NULL, 0, 0);
    init_debug_info(&lw, c->path);

    lower_host(&lw, prog);
    /* The body claims the name main first: a W2 function called main becomes main.1. */
    LLVMValueRef main_fn = LLVMAddFunction(lw.m, "main", lw.t_fn);
    lw.main_fn = main_fn;
    for (w2_item *it = prog->items; it; it = it->next) {
        if (it->var) {
            w2_var *v = it->var;
            LLVMTypeRef t = var_type(&lw, v);
            v->addr = LLVMAddGlobal(lw.m, t, v->name);
            LLVMSetLinkage(v->addr, LLVMInternalLinkage);
            LLVMSetInitializer(v->addr, LLVMConstNull(t));
            note_declaration(&lw, v);
            di_global(&lw, v);
        } else {
            it->func->fn = LLVMAddFunction(lw.m, it->func->name, lw.t_fn);
            LLVMSetLinkage(it->func->fn, LLVMInternalLinkage);
        }
    }
    for (w2_item *it = prog->items; it; it = it->next) {
        if (!it->func) continue;
        w2_func *f = it->func;
        lower_function(&lw, f->fn, f->name, f->loc, f->begin_loc, f->locals, f->body, f->end_loc);
    }
    lower_function(&lw, main_fn, "main", prog->cell_loc, prog->begin_loc, NULL, prog->body, prog->end_loc);

    if (lw.cell_x) {
        add_named_md(&lw, "w2.cells", (LLVMMetadataRef[]){md_i32(&lw, 0), md_i32(&lw, lw.width * lw.height - 1)}, 2);
        add_named_md(&lw, "w2.grid", (LLVMMetadataRef[]){md_i32(&lw, lw.width), md_i32(&lw, lw.height)}, 2);
    } else {
        add_named_md(&lw, "w2.cells", (LLVMMetadataRef[]){md_i32(&lw, prog->first), md_i32(&lw, prog->last)}, 2);
    }
    add_named_md(&lw, "w2.source", (LLVMMetadataRef[]){md_str(&lw, c->path)}, 1);
    LLVMDIBuilderFinalize(lw.dib);
    LLVMDisposeDIBuilder(lw.dib);
    LLVMDisposeBuilder(lw.b);
    return lw.m;
}
