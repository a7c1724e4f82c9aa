/* Instruction selection: one LLVM function (docs/design.md, section 2) to machine IR
 * over virtual registers.
 *
 * Blocks are visited in reverse post-order, so every value is selected before its
 * uses (phis get their registers up front). Values of every type live in 32-bit
 * registers: i1..i31 zero-extended (i1 is 0 or 1), float as its bits, pointers as
 * byte addresses. Constants, global and frame addresses become literal operands
 * (0 becomes r0); an address is kept as a pair A+B that memory operands take whole.
 * Phis become copies pending on the edges (wb_lower_phis places them); a call ends
 * its machine block, because the callee may use every register. */
#include "mir.h"

#include <llvm-c/DebugInfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Module state ---------------------------------------------------------------- */

static int error_v(wb_module *mod, unsigned line, unsigned col, const char *fmt, va_list ap)
{
    if (mod->failed) return -1;
    mod->failed = 1;
    *mod->err = (ws_diagnostic){.line = (int)line, .col = line ? (int)col : 0, .severity = WS_ERROR};
    vsnprintf(mod->err->message, sizeof mod->err->message, fmt, ap);
    return -1;
}

int wb_error(wb_module *mod, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_v(mod, 0, 0, fmt, ap);
    va_end(ap);
    return -1;
}

int wb_error_at(wb_module *mod, unsigned line, unsigned col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_v(mod, line, col, fmt, ap);
    va_end(ap);
    return -1;
}

/* The frontend's !w2.decl of a global or an alloca: 0 if it has none (an object
 * the optimiser made, or a module from elsewhere). */
static void declaration_of(LLVMValueRef v, unsigned *line, unsigned *col)
{
    *line = *col = 0;
    LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(v));
    unsigned kind = LLVMGetMDKindIDInContext(ctx, "w2.decl", 7);
    LLVMValueRef node = NULL;
    if (LLVMIsAInstruction(v)) {
        node = LLVMGetMetadata(v, kind);
    } else {
        size_t n;
        LLVMValueMetadataEntry *entries = LLVMGlobalCopyAllMetadata(v, &n);
        for (unsigned i = 0; i < n; i++)
            if (LLVMValueMetadataEntriesGetKind(entries, i) == kind)
                node = LLVMMetadataAsValue(ctx, LLVMValueMetadataEntriesGetMetadata(entries, i));
        if (entries) LLVMDisposeValueMetadataEntries(entries);
    }
    if (!node || LLVMGetMDNodeNumOperands(node) != 2) return;
    LLVMValueRef at[2];
    LLVMGetMDNodeOperands(node, at);
    if (!at[0] || !at[1] || !LLVMIsAConstantInt(at[0]) || !LLVMIsAConstantInt(at[1])) return;
    *line = (unsigned)LLVMConstIntGetZExtValue(at[0]);
    *col = (unsigned)LLVMConstIntGetZExtValue(at[1]);
}

void wb_note_data_object(wb_module *mod, LLVMValueRef v, const char *fn, uint64_t bytes)
{
    if (bytes <= mod->largest_bytes) return;
    mod->largest_bytes = bytes;
    declaration_of(v, &mod->largest_line, &mod->largest_col);
    size_t n;
    const char *name = LLVMGetValueName2(v, &n);
    LLVMTypeRef type = LLVMIsAAllocaInst(v) ? LLVMGetAllocatedType(v) : LLVMGlobalGetValueType(v);
    const char *kind = LLVMGetTypeKind(type) == LLVMArrayTypeKind ? "array " : "";
    if (!n)
        snprintf(mod->largest, sizeof mod->largest, "an unnamed object%s%s", fn ? " of function " : "", fn ? fn : "");
    else if (fn)
        snprintf(mod->largest, sizeof mod->largest, "%s'%.*s' of function '%s'", kind, (int)(n > 60 ? 60 : n), name,
                 fn);
    else snprintf(mod->largest, sizeof mod->largest, "%s'%.*s'", kind, (int)(n > 60 ? 60 : n), name);
}

static int symbol_ok(const char *s, size_t n)
{
    if (n == 0 || (s[0] >= '0' && s[0] <= '9')) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '.' || c == '$';
        if (!ok) return 0;
    }
    /* ".L..." names are the backend's local labels. */
    return !(n >= 2 && s[0] == '.' && s[1] == 'L');
}

wb_module *wb_module_new(LLVMModuleRef m, ws_diagnostic *err)
{
    wb_module *mod = ws_xcalloc(1, sizeof *mod);
    mod->m = m;
    mod->err = err;
    mod->td = LLVMGetModuleDataLayout(m);
    if (LLVMPointerSize(mod->td) != 4) {
        wb_error(mod, "the module's pointers are not 32-bit (data layout '%s')", LLVMGetDataLayoutStr(m));
        wb_module_free(mod);
        return NULL;
    }
    /* Symbols for every global, in module order, so that generated names are stable. */
    int idx = 0;
    for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g), idx++) {
        size_t n;
        const char *name = LLVMGetValueName2(g, &n);
        const char *sym;
        if (symbol_ok(name, n)) {
            sym = ws_arena_strndup(&mod->arena, name, n);
        } else if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == 1 || !LLVMGetInitializer(g)) {
            /* Host arrays and declarations are matched by name: no renaming. */
            wb_error(mod, "global '%.*s' cannot be written as an assembler symbol", (int)n, name);
            wb_module_free(mod);
            return NULL;
        } else {
            char buf[32];
            snprintf(buf, sizeof buf, "__wb_global_%d", idx);
            sym = ws_arena_strndup(&mod->arena, buf, strlen(buf));
        }
        mod->names = ws_xrealloc(mod->names, sizeof *mod->names * (size_t)(mod->nnames + 1));
        mod->names[mod->nnames] = sym;
        wb_ptrmap_put(&mod->gnames, g, mod->nnames++);
    }
    return mod;
}

void wb_module_free(wb_module *mod)
{
    if (!mod) return;
    wb_ptrmap_free(&mod->gnames);
    wb_ptrmap_free(&mod->divergent);
    free(mod->names);
    ws_arena_free(&mod->arena);
    free(mod);
}

const char *wb_global_symbol(wb_module *mod, LLVMValueRef g)
{
    int i = wb_ptrmap_get(&mod->gnames, g);
    if (i >= 0) return mod->names[i];
    size_t n;
    const char *name = LLVMGetValueName2(g, &n);
    if (!symbol_ok(name, n)) {
        wb_error(mod, "function '%.*s' cannot be written as an assembler symbol", (int)n, name);
        return NULL;
    }
    const char *sym = ws_arena_strndup(&mod->arena, name, n);
    mod->names = ws_xrealloc(mod->names, sizeof *mod->names * (size_t)(mod->nnames + 1));
    mod->names[mod->nnames] = sym;
    wb_ptrmap_put(&mod->gnames, g, mod->nnames++);
    return sym;
}

/* ---- Selection state --------------------------------------------------------------- */

/* An address: A + B, either part a register, r0 or a literal. */
typedef struct addr {
    wb_opnd a, b;
    int obj;   /* memory object it points into, 0 if unknown */
} addr;

/* What an LLVM value became. */
typedef struct vinfo {
    wb_opnd v;          /* as one operand, if has_v (the low word of a wide value) */
    wb_opnd hi;         /* a wide value's high word, if wide */
    addr p;             /* as an address pair, if has_pair */
    uint8_t has_v, has_pair, wide;
    uint8_t deferred;   /* a compare selected at its only user */
} vinfo;

typedef struct scaled {  /* a scaled index already computed in a machine block */
    LLVMValueRef idx;
    int64_t stride;
    int block;
    wb_opnd v;
} scaled;

typedef struct isel {
    wb_module *mod;
    wb_func *f;
    LLVMValueRef fn;
    const char *fname;
    int cur;                    /* machine block being filled */
    wb_ptrmap vmap;             /* LLVM value -> index in vals */
    vinfo *vals;
    int nvals;
    size_t vcap;
    wb_ptrmap bbmap;            /* LLVM block (as value) -> machine entry block */
    wb_ptrmap objmap;           /* global or alloca -> memory object id */
    scaled *scaled;
    int nscaled;
    LLVMValueRef inst;          /* being selected, for messages */
    unsigned line, col;
} isel;

static const char *opcode_name(LLVMOpcode op)
{
    switch (op) {
    case LLVMRet: return "ret";
    case LLVMBr: return "br";
    case LLVMSwitch: return "switch";
    case LLVMIndirectBr: return "indirectbr";
    case LLVMInvoke: return "invoke";
    case LLVMUnreachable: return "unreachable";
    case LLVMCallBr: return "callbr";
    case LLVMFNeg: return "fneg";
    case LLVMAdd: return "add";
    case LLVMFAdd: return "fadd";
    case LLVMSub: return "sub";
    case LLVMFSub: return "fsub";
    case LLVMMul: return "mul";
    case LLVMFMul: return "fmul";
    case LLVMUDiv: return "udiv";
    case LLVMSDiv: return "sdiv";
    case LLVMFDiv: return "fdiv";
    case LLVMURem: return "urem";
    case LLVMSRem: return "srem";
    case LLVMFRem: return "frem";
    case LLVMShl: return "shl";
    case LLVMLShr: return "lshr";
    case LLVMAShr: return "ashr";
    case LLVMAnd: return "and";
    case LLVMOr: return "or";
    case LLVMXor: return "xor";
    case LLVMAlloca: return "alloca";
    case LLVMLoad: return "load";
    case LLVMStore: return "store";
    case LLVMGetElementPtr: return "getelementptr";
    case LLVMTrunc: return "trunc";
    case LLVMZExt: return "zext";
    case LLVMSExt: return "sext";
    case LLVMFPToUI: return "fptoui";
    case LLVMFPToSI: return "fptosi";
    case LLVMUIToFP: return "uitofp";
    case LLVMSIToFP: return "sitofp";
    case LLVMFPTrunc: return "fptrunc";
    case LLVMFPExt: return "fpext";
    case LLVMPtrToInt: return "ptrtoint";
    case LLVMIntToPtr: return "inttoptr";
    case LLVMBitCast: return "bitcast";
    case LLVMAddrSpaceCast: return "addrspacecast";
    case LLVMICmp: return "icmp";
    case LLVMFCmp: return "fcmp";
    case LLVMPHI: return "phi";
    case LLVMCall: return "call";
    case LLVMSelect: return "select";
    case LLVMUserOp1: case LLVMUserOp2: return "userop";
    case LLVMVAArg: return "va_arg";
    case LLVMExtractElement: return "extractelement";
    case LLVMInsertElement: return "insertelement";
    case LLVMShuffleVector: return "shufflevector";
    case LLVMExtractValue: return "extractvalue";
    case LLVMInsertValue: return "insertvalue";
    case LLVMFreeze: return "freeze";
    case LLVMFence: return "fence";
    case LLVMAtomicCmpXchg: return "cmpxchg";
    case LLVMAtomicRMW: return "atomicrmw";
    case LLVMResume: return "resume";
    case LLVMLandingPad: return "landingpad";
    case LLVMCleanupRet: return "cleanupret";
    case LLVMCatchRet: return "catchret";
    case LLVMCatchPad: return "catchpad";
    case LLVMCleanupPad: return "cleanuppad";
    case LLVMCatchSwitch: return "catchswitch";
    }
    return "?";
}

static int fail(isel *S, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(isel *S, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* The operation's own position: a construct the optimiser made (a memmove from a
     * copying loop) is reported where the source wrote it. */
    return wb_error_at(S->mod, S->line, S->col, "function %s: %s", S->fname, msg);
}

static int unsupported_type(isel *S, LLVMTypeRef t)
{
    char *ts = LLVMPrintTypeToString(t);
    const char *what = S->inst ? opcode_name(LLVMGetInstructionOpcode(S->inst)) : "value";
    fail(S, "unsupported type '%s' in '%s'", ts, what);
    LLVMDisposeMessage(ts);
    return -1;
}

/* Bits of a value of type t in a register: 1..32 for integers, 32 for float and
 * pointers; 0 if the machine has no such value. */
static int type_bits(LLVMTypeRef t)
{
    switch (LLVMGetTypeKind(t)) {
    case LLVMIntegerTypeKind: {
        unsigned w = LLVMGetIntTypeWidth(t);
        return w >= 1 && w <= 32 ? (int)w : 0;
    }
    case LLVMFloatTypeKind: return 32;
    case LLVMPointerTypeKind: return 32;
    default: return 0;
    }
}

static int is_float(LLVMTypeRef t) { return LLVMGetTypeKind(t) == LLVMFloatTypeKind; }
static int is_int(LLVMTypeRef t) { return LLVMGetTypeKind(t) == LLVMIntegerTypeKind && type_bits(t) > 0; }
static uint32_t mask_of(int bits) { return bits >= 32 ? 0xffffffffu : bits <= 0 ? 0 : (1u << bits) - 1; }

/* ---- Values ------------------------------------------------------------------------- */

static vinfo *info(isel *S, LLVMValueRef v, int create)
{
    int i = wb_ptrmap_get(&S->vmap, v);
    if (i >= 0) return &S->vals[i];
    if (!create) return NULL;
    ws_grow(&S->vals, &S->vcap, (size_t)S->nvals + 1, sizeof *S->vals);
    memset(&S->vals[S->nvals], 0, sizeof S->vals[S->nvals]);
    wb_ptrmap_put(&S->vmap, v, S->nvals);
    return &S->vals[S->nvals++];
}

static void set_val(isel *S, LLVMValueRef v, wb_opnd o)
{
    vinfo *vi = info(S, v, 1);
    vi->v = o;
    vi->has_v = 1;
}

static int obj_of(isel *S, LLVMValueRef base)
{
    int id = wb_ptrmap_get(&S->objmap, base);
    if (id < 0) {
        id = ++S->f->nmemobjs;
        wb_ptrmap_put(&S->objmap, base, id);
    }
    return id;
}

static wb_ins *emit(isel *S, int op, wb_opnd d, wb_opnd a, wb_opnd b, wb_opnd c)
{
    wb_ins in = {.op = (uint16_t)op, .d = d, .s = {a, b, c}, .line = S->line, .col = S->col, .target = -1};
    return wb_append(S->f, S->cur, &in);
}

static wb_opnd none(void) { return (wb_opnd){0}; }

static wb_opnd op2(isel *S, int op, wb_opnd a, wb_opnd b)
{
    wb_opnd d = wb_vreg(wb_new_vreg(S->f, 0));
    emit(S, op, d, a, b, none());
    return d;
}

static wb_opnd op1(isel *S, int op, wb_opnd a) { return op2(S, op, a, none()); }

static wb_opnd copy_of(isel *S, wb_opnd a)
{
    wb_opnd d = wb_vreg(wb_new_vreg(S->f, 0));
    emit(S, WB_COPY, d, a, none(), none());
    return d;
}

static int is_r0(wb_opnd o) { return o.kind == WB_O_REG && o.v == WT_OPND_R0; }

/* Folds a constant address or integer expression: sym (NULL for none) + off. */
static int const_fold(isel *S, LLVMValueRef c, const char **sym, int64_t *off, int *obj);

int wb_gep_const_offset(wb_module *mod, LLVMValueRef gep, int64_t *off, LLVMTypeRef *bad)
{
    LLVMTypeRef ty = LLVMGetGEPSourceElementType(gep);
    int n = LLVMGetNumOperands(gep);
    for (int i = 1; i < n; i++) {
        LLVMValueRef idx = LLVMGetOperand(gep, (unsigned)i);
        if (!LLVMIsAConstantInt(idx)) return -1;
        int64_t k = LLVMConstIntGetSExtValue(idx);
        if (i == 1) {
            *off += k * (int64_t)LLVMABISizeOfType(mod->td, ty);
        } else if (LLVMGetTypeKind(ty) == LLVMStructTypeKind) {
            *off += (int64_t)LLVMOffsetOfElement(mod->td, ty, (unsigned)k);
            ty = LLVMStructGetTypeAtIndex(ty, (unsigned)k);
        } else if (LLVMGetTypeKind(ty) == LLVMArrayTypeKind) {
            ty = LLVMGetElementType(ty);
            *off += k * (int64_t)LLVMABISizeOfType(mod->td, ty);
        } else {
            *bad = ty;
            return -2;
        }
    }
    return 0;
}

static int gep_const_offset(isel *S, LLVMValueRef gep, int64_t *off)
{
    LLVMTypeRef bad = NULL;
    int rc = wb_gep_const_offset(S->mod, gep, off, &bad);
    if (rc == -1) return fail(S, "non-constant index in a constant address");
    if (rc == -2) return unsupported_type(S, bad);
    return 0;
}

static int const_fold(isel *S, LLVMValueRef c, const char **sym, int64_t *off, int *obj)
{
    if (LLVMIsAGlobalVariable(c)) {
        const char *name = wb_global_symbol(S->mod, c);
        if (!name) return -1;
        *sym = name;
        *off = 0;
        if (obj) *obj = obj_of(S, c);
        return 0;
    }
    if (LLVMIsAConstantInt(c)) {
        *sym = NULL;
        *off = LLVMConstIntGetSExtValue(c);
        return 0;
    }
    if (LLVMIsAConstantPointerNull(c) || LLVMIsAUndefValue(c)) {
        *sym = NULL;
        *off = 0;
        return 0;
    }
    if (LLVMIsAFunction(c)) return fail(S, "the address of function '%s' is not supported", LLVMGetValueName(c));
    if (!LLVMIsAConstantExpr(c)) return fail(S, "unsupported constant in an address");
    switch (LLVMGetConstOpcode(c)) {
    case LLVMGetElementPtr:
        if (const_fold(S, LLVMGetOperand(c, 0), sym, off, obj) < 0) return -1;
        return gep_const_offset(S, c, off);
    case LLVMBitCast: case LLVMAddrSpaceCast: case LLVMPtrToInt: case LLVMIntToPtr:
        return const_fold(S, LLVMGetOperand(c, 0), sym, off, obj);
    case LLVMAdd: case LLVMSub: {
        const char *s1, *s2;
        int64_t o1, o2;
        if (const_fold(S, LLVMGetOperand(c, 0), &s1, &o1, obj) < 0) return -1;
        if (const_fold(S, LLVMGetOperand(c, 1), &s2, &o2, NULL) < 0) return -1;
        if (LLVMGetConstOpcode(c) == LLVMAdd && !s1) {
            *sym = s2;
            *off = o1 + o2;
            return 0;
        }
        if (s2 && !(LLVMGetConstOpcode(c) == LLVMSub && s1 && strcmp(s1, s2) == 0))
            return fail(S, "unsupported constant expression (a sum of two addresses)");
        *sym = s2 ? NULL : s1;
        *off = LLVMGetConstOpcode(c) == LLVMAdd ? o1 + o2 : o1 - o2;
        return 0;
    }
    default:
        return fail(S, "unsupported constant expression '%s'", opcode_name(LLVMGetConstOpcode(c)));
    }
}

/* A constant as an operand; -1 on error. */
static int const_opnd(isel *S, LLVMValueRef c, wb_opnd *out, int *obj)
{
    LLVMTypeRef t = LLVMTypeOf(c);
    if (obj) *obj = 0;
    if (LLVMIsAUndefValue(c)) {  /* undef and poison: any value will do */
        *out = wb_reg(WT_OPND_R0);
        return 0;
    }
    if (LLVMIsAConstantInt(c)) {
        int bits = type_bits(t);
        if (!bits) return unsupported_type(S, t);
        *out = wb_imm((uint32_t)LLVMConstIntGetZExtValue(c) & mask_of(bits), 0);
        return 0;
    }
    if (LLVMIsAConstantFP(c)) {
        if (!is_float(t)) return unsupported_type(S, t);
        LLVMBool loses;
        float fl = (float)LLVMConstRealGetDouble(c, &loses);
        uint32_t bits;
        memcpy(&bits, &fl, 4);
        *out = wb_imm(bits, 1);
        return 0;
    }
    if (LLVMGetTypeKind(t) != LLVMPointerTypeKind && !is_int(t)) return unsupported_type(S, t);
    const char *sym;
    int64_t off;
    if (const_fold(S, c, &sym, &off, obj) < 0) return -1;
    *out = sym ? wb_sym(sym, (int32_t)off) : wb_imm((uint32_t)off & mask_of(type_bits(t)), 0);
    return 0;
}

static wb_opnd addr_value(isel *S, addr p);

/* The value as one operand; emits an add if it was kept as an address pair. */
static int val(isel *S, LLVMValueRef v, wb_opnd *out)
{
    if (LLVMIsAConstant(v)) return const_opnd(S, v, out, NULL);
    vinfo *vi = info(S, v, 0);
    if (vi && vi->has_v) {
        *out = vi->v;
        return 0;
    }
    if (vi && vi->has_pair) {
        *out = addr_value(S, vi->p);
        return 0;
    }
    if (LLVMIsAArgument(v)) return fail(S, "functions with parameters are not supported");
    return fail(S, "a value is used before it is defined");
}

/* The value as an address pair. */
static int val_addr(isel *S, LLVMValueRef v, addr *out)
{
    memset(out, 0, sizeof *out);
    out->b = wb_reg(WT_OPND_R0);
    if (LLVMIsAConstant(v)) {
        out->a = wb_reg(WT_OPND_R0);
        return const_opnd(S, v, &out->b, &out->obj);
    }
    vinfo *vi = info(S, v, 0);
    if (vi && vi->has_pair) {
        *out = vi->p;
        return 0;
    }
    if (val(S, v, &out->a) < 0) return -1;
    if (wb_is_lit(out->a)) {
        out->b = out->a;
        out->a = wb_reg(WT_OPND_R0);
    }
    return 0;
}

static wb_opnd addr_value(isel *S, addr p)
{
    if (is_r0(p.b)) return p.a;
    if (is_r0(p.a)) return p.b;
    return op2(S, WT_OP_IADD, p.a, p.b);
}

static wb_opnd lit_plus(wb_opnd lit, int64_t c)
{
    if (lit.kind == WB_O_SYM) return wb_sym(lit.sym, (int32_t)(lit.addend + c));
    return wb_imm((uint32_t)((int64_t)(lit.kind == WB_O_IMM ? lit.v : 0) + c), 0);
}

static addr addr_add_const(isel *S, addr p, int64_t c)
{
    if (c == 0) return p;
    if (wb_is_lit(p.b) || is_r0(p.b)) {
        p.b = lit_plus(p.b, c);
        return p;
    }
    if (wb_is_lit(p.a) || is_r0(p.a)) {
        wb_opnd t = p.a;
        p.a = p.b;
        p.b = lit_plus(t, c);
        return p;
    }
    p.a = op2(S, WT_OP_IADD, p.a, p.b);
    p.b = wb_imm((uint32_t)c, 0);
    return p;
}

static addr addr_add(isel *S, addr p, wb_opnd t)
{
    if (is_r0(p.a)) p.a = t;
    else if (is_r0(p.b)) p.b = t;
    else if (wb_is_lit(p.b)) p.a = op2(S, WT_OP_IADD, p.a, t);
    else if (wb_is_lit(p.a)) p.b = op2(S, WT_OP_IADD, p.b, t);
    else {
        p.a = op2(S, WT_OP_IADD, p.a, p.b);
        p.b = t;
    }
    return p;
}

static int log2_exact(int64_t x)
{
    for (int k = 0; k < 31; k++)
        if (x == (int64_t)1 << k) return k;
    return -1;
}

static wb_opnd sext32(isel *S, wb_opnd x, int bits);

/* idx * stride, computed once per machine block. */
static int scaled_index(isel *S, LLVMValueRef idx, int64_t stride, wb_opnd *out)
{
    for (int i = 0; i < S->nscaled; i++)
        if (S->scaled[i].idx == idx && S->scaled[i].stride == stride && S->scaled[i].block == S->cur) {
            *out = S->scaled[i].v;
            return 0;
        }
    LLVMTypeRef t = LLVMTypeOf(idx);
    if (!is_int(t)) return unsupported_type(S, t);
    wb_opnd x;
    if (val(S, idx, &x) < 0) return -1;
    x = sext32(S, x, type_bits(t));   /* GEP indices are signed */
    int k = log2_exact(stride);
    if (k == 0) *out = x;
    else if (k > 0) *out = op2(S, WT_OP_SHL, x, wb_imm((uint32_t)k, 0));
    else *out = op2(S, WT_OP_IMUL, x, wb_imm((uint32_t)stride, 0));
    S->scaled = ws_xrealloc(S->scaled, sizeof *S->scaled * (size_t)(S->nscaled + 1));
    S->scaled[S->nscaled++] = (scaled){idx, stride, S->cur, *out};
    return 0;
}

/* ---- Integer helpers ------------------------------------------------------------------ */

/* Zero-extended bits-wide value to its two's complement 32-bit value. */
static wb_opnd sext32(isel *S, wb_opnd x, int bits)
{
    if (bits >= 32) return x;
    if (bits == 1) return op1(S, WT_OP_INEG, x);
    x = op2(S, WT_OP_SHL, x, wb_imm((uint32_t)(32 - bits), 0));
    return op2(S, WT_OP_SRA, x, wb_imm((uint32_t)(32 - bits), 0));
}

/* Back to the zero-extended form after an operation that may set high bits. */
static wb_opnd norm(isel *S, wb_opnd x, int bits)
{
    if (bits >= 32) return x;
    return op2(S, WT_OP_AND, x, wb_imm(mask_of(bits), 0));
}

static wb_opnd logical_not(isel *S, wb_opnd x) { return op2(S, WT_OP_IEQ, x, wb_reg(WT_OPND_R0)); }

/* ---- Memory ------------------------------------------------------------------------------ */

static void emit_ld(isel *S, int op, wb_opnd d, addr p)
{
    wb_ins *in = emit(S, op, d, p.a, p.b, none());
    in->memobj = p.obj;
}

static void emit_st(isel *S, addr p, wb_opnd v)
{
    wb_ins *in = emit(S, WT_OP_ST, none(), p.a, p.b, v);
    in->memobj = p.obj;
}

/* The memory is word-addressed: a narrower access reads the word that holds it.
 * Objects start on words, so a literal address's byte offset is known. */
static int known_byte_offset(addr p, int *sh)
{
    if (!is_r0(p.a)) return 0;
    if (p.b.kind == WB_O_SYM) *sh = (int)((uint32_t)p.b.addend & 3);
    else if (p.b.kind == WB_O_IMM) *sh = (int)(p.b.v & 3);
    else *sh = 0;
    return 1;
}

static wb_opnd sub_load(isel *S, addr p, uint32_t mask, int space_op)
{
    int off;
    if (known_byte_offset(p, &off)) {
        addr w = addr_add_const(S, p, -off);
        wb_opnd t = wb_vreg(wb_new_vreg(S->f, 0));
        emit_ld(S, space_op, t, w);
        if (off) t = op2(S, WT_OP_SHR, t, wb_imm((uint32_t)off * 8, 0));
        return op2(S, WT_OP_AND, t, wb_imm(mask, 0));
    }
    wb_opnd a = addr_value(S, p);
    wb_opnd wa = op2(S, WT_OP_AND, a, wb_imm(0xfffffffcu, 0));
    wb_opnd sh = op2(S, WT_OP_AND, a, wb_imm(3, 0));
    sh = op2(S, WT_OP_SHL, sh, wb_imm(3, 0));
    wb_opnd t = wb_vreg(wb_new_vreg(S->f, 0));
    emit_ld(S, space_op, t, (addr){wa, wb_reg(WT_OPND_R0), p.obj});
    t = op2(S, WT_OP_SHR, t, sh);
    return op2(S, WT_OP_AND, t, wb_imm(mask, 0));
}

/* v is zero-extended and fits in mask. */
static void sub_store(isel *S, addr p, wb_opnd v, uint32_t mask)
{
    int off;
    if (known_byte_offset(p, &off)) {
        addr w = addr_add_const(S, p, -off);
        wb_opnd t = wb_vreg(wb_new_vreg(S->f, 0));
        emit_ld(S, WT_OP_LD, t, w);
        t = op2(S, WT_OP_AND, t, wb_imm(~(mask << (off * 8)), 0));
        if (off) v = op2(S, WT_OP_SHL, v, wb_imm((uint32_t)off * 8, 0));
        emit_st(S, w, op2(S, WT_OP_OR, t, v));
        return;
    }
    wb_opnd a = addr_value(S, p);
    wb_opnd wa = op2(S, WT_OP_AND, a, wb_imm(0xfffffffcu, 0));
    wb_opnd sh = op2(S, WT_OP_AND, a, wb_imm(3, 0));
    sh = op2(S, WT_OP_SHL, sh, wb_imm(3, 0));
    addr w = {wa, wb_reg(WT_OPND_R0), p.obj};
    wb_opnd t = wb_vreg(wb_new_vreg(S->f, 0));
    emit_ld(S, WT_OP_LD, t, w);
    wb_opnd m = op2(S, WT_OP_SHL, wb_imm(mask, 0), sh);
    m = op1(S, WT_OP_NOT, m);
    t = op2(S, WT_OP_AND, t, m);
    v = op2(S, WT_OP_SHL, v, sh);
    emit_st(S, w, op2(S, WT_OP_OR, t, v));
}

/* A load of a vector of words that is only taken apart by extractelement with
 * constant indices (what the scalarizer leaves of SROA's vectors): the words are
 * loaded one by one, into consecutive vregs, and each extract reads its own. */
static int vector_of_words(LLVMValueRef in)
{
    LLVMTypeRef t = LLVMTypeOf(in);
    if (LLVMGetTypeKind(t) != LLVMVectorTypeKind) return 0;
    LLVMTypeRef e = LLVMGetElementType(t);
    if (!(LLVMGetTypeKind(e) == LLVMFloatTypeKind ||
          (LLVMGetTypeKind(e) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(e) == 32)))
        return 0;
    for (LLVMUseRef u = LLVMGetFirstUse(in); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (LLVMGetInstructionOpcode(user) != LLVMExtractElement || !LLVMIsAConstantInt(LLVMGetOperand(user, 1)))
            return 0;
    }
    return 1;
}

static int sel_load(isel *S, LLVMValueRef in)
{
    LLVMTypeRef t = LLVMTypeOf(in);
    LLVMValueRef ptr = LLVMGetOperand(in, 0);
    int host = LLVMGetPointerAddressSpace(LLVMTypeOf(ptr)) == 1;
    if (vector_of_words(in)) {
        addr p;
        if (val_addr(S, ptr, &p) < 0) return -1;
        unsigned n = LLVMGetVectorSize(t);
        int first = 0;
        for (unsigned k = 0; k < n; k++) {
            int v = wb_new_vreg(S->f, 0);
            if (!first) first = v;
            emit_ld(S, host ? WT_OP_HLD : WT_OP_LD, wb_vreg(v), addr_add_const(S, p, 4 * (int64_t)k));
        }
        set_val(S, in, wb_vreg(first));
        return 0;
    }
    int bits = type_bits(t);
    if (!bits) return unsupported_type(S, t);
    addr p;
    if (val_addr(S, ptr, &p) < 0) return -1;
    int op = host ? WT_OP_HLD : WT_OP_LD;
    unsigned bytes = (unsigned)LLVMStoreSizeOfType(S->mod->td, t);
    if (bytes == 4) {
        wb_opnd d = wb_vreg(wb_new_vreg(S->f, 0));
        emit_ld(S, op, d, p);
        set_val(S, in, d);
        return 0;
    }
    if (bytes != 1 && bytes != 2) return unsupported_type(S, t);
    set_val(S, in, sub_load(S, p, mask_of(bits), op));
    return 0;
}

static int sel_store(isel *S, LLVMValueRef in)
{
    LLVMValueRef v = LLVMGetOperand(in, 0), ptr = LLVMGetOperand(in, 1);
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(ptr)) != 0)
        return fail(S, "a store to host memory (host arrays are written only by send)");
    LLVMTypeRef t = LLVMTypeOf(v);
    if (!type_bits(t)) return unsupported_type(S, t);
    addr p;
    wb_opnd x;
    if (val_addr(S, ptr, &p) < 0 || val(S, v, &x) < 0) return -1;
    unsigned bytes = (unsigned)LLVMStoreSizeOfType(S->mod->td, t);
    if (bytes == 4) emit_st(S, p, x);
    else if (bytes == 1 || bytes == 2) sub_store(S, p, x, mask_of((int)bytes * 8));
    else return unsupported_type(S, t);
    return 0;
}

/* Do all uses take the value as an address pair (val_addr)? */
static int only_memory_uses(LLVMValueRef v)
{
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (LLVMIsALoadInst(user)) continue;
        if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) != v) continue;
        if (LLVMIsAGetElementPtrInst(user) && LLVMGetOperand(user, 0) == v) continue;
        if (LLVMIsACallInst(user)) {
            size_t n;
            const char *name = LLVMGetValueName2(LLVMGetCalledValue(user), &n);
            if ((!strncmp(name, "llvm.memset.", 12) && LLVMGetOperand(user, 0) == v) ||
                ((!strncmp(name, "llvm.memcpy.", 12) || !strncmp(name, "llvm.memmove.", 13)) &&
                 LLVMGetOperand(user, 2) != v))
                continue;
        }
        return 0;
    }
    return 1;
}

static int sel_gep(isel *S, LLVMValueRef in)
{
    addr p;
    if (val_addr(S, LLVMGetOperand(in, 0), &p) < 0) return -1;
    LLVMTypeRef ty = LLVMGetGEPSourceElementType(in);
    int n = LLVMGetNumOperands(in);
    int64_t off = 0;
    for (int i = 1; i < n; i++) {
        LLVMValueRef idx = LLVMGetOperand(in, (unsigned)i);
        int64_t stride;
        if (i == 1) {
            stride = (int64_t)LLVMABISizeOfType(S->mod->td, ty);
        } else if (LLVMGetTypeKind(ty) == LLVMStructTypeKind) {
            if (!LLVMIsAConstantInt(idx)) return fail(S, "non-constant structure index");
            unsigned k = (unsigned)LLVMConstIntGetZExtValue(idx);
            off += (int64_t)LLVMOffsetOfElement(S->mod->td, ty, k);
            ty = LLVMStructGetTypeAtIndex(ty, k);
            continue;
        } else if (LLVMGetTypeKind(ty) == LLVMArrayTypeKind) {
            ty = LLVMGetElementType(ty);
            stride = (int64_t)LLVMABISizeOfType(S->mod->td, ty);
        } else {
            return unsupported_type(S, ty);
        }
        if (LLVMIsAConstantInt(idx)) {
            off += LLVMConstIntGetSExtValue(idx) * stride;
        } else if (stride != 0) {
            wb_opnd t;
            if (scaled_index(S, idx, stride, &t) < 0) return -1;
            p = addr_add(S, p, t);
        }
    }
    p = addr_add_const(S, p, off);
    vinfo *vi = info(S, in, 1);
    vi->p = p;
    vi->has_pair = 1;
    /* Memory operands take the pair whole; any other use wants the sum, made once here. */
    if (!only_memory_uses(in)) {
        vi->v = addr_value(S, p);
        vi->has_v = 1;
    }
    return 0;
}

static int sel_alloca(isel *S, LLVMValueRef in)
{
    LLVMValueRef count = LLVMGetOperand(in, 0);
    if (!LLVMIsAConstantInt(count))
        return fail(S, "an alloca of variable size (frames are static)");
    uint64_t bytes = LLVMABISizeOfType(S->mod->td, LLVMGetAllocatedType(in)) * LLVMConstIntGetZExtValue(count);
    wb_note_data_object(S->mod, in, S->f->name, bytes);
    if (bytes > 0x7fffffffu) return fail(S, "an alloca too large for data memory");
    uint32_t at = wb_frame_alloc(S->f, (uint32_t)bytes);
    vinfo *vi = info(S, in, 1);
    vi->p = (addr){wb_reg(WT_OPND_R0), wb_sym(S->f->frame, (int32_t)at), obj_of(S, in)};
    vi->has_pair = 1;
    vi->v = vi->p.b;
    vi->has_v = 1;
    return 0;
}

/* ---- Compares ---------------------------------------------------------------------------- */

/* Selects a compare; the result is (operand != 0) XOR *inv. */
static int sel_cmp(isel *S, LLVMValueRef in, wb_opnd *out, int *inv)
{
    *inv = 0;
    LLVMValueRef l = LLVMGetOperand(in, 0), r = LLVMGetOperand(in, 1);
    LLVMTypeRef t = LLVMTypeOf(l);
    wb_opnd a, b;
    if (val(S, l, &a) < 0 || val(S, r, &b) < 0) return -1;
    if (LLVMGetInstructionOpcode(in) == LLVMICmp) {
        int bits = type_bits(t);
        if (!bits || is_float(t)) return unsupported_type(S, t);
        LLVMIntPredicate p = LLVMGetICmpPredicate(in);
        int sgn = p == LLVMIntSGT || p == LLVMIntSGE || p == LLVMIntSLT || p == LLVMIntSLE;
        if (sgn && bits < 32) {
            a = sext32(S, a, bits);
            b = sext32(S, b, bits);
        }
        switch (p) {
        case LLVMIntEQ: *out = op2(S, WT_OP_IEQ, a, b); break;
        case LLVMIntNE: *out = op2(S, WT_OP_INE, a, b); break;
        case LLVMIntSLT: *out = op2(S, WT_OP_ILT, a, b); break;
        case LLVMIntSLE: *out = op2(S, WT_OP_ILE, a, b); break;
        case LLVMIntSGT: *out = op2(S, WT_OP_ILT, b, a); break;
        case LLVMIntSGE: *out = op2(S, WT_OP_ILE, b, a); break;
        case LLVMIntULT: *out = op2(S, WT_OP_ILTU, a, b); break;
        case LLVMIntULE: *out = op2(S, WT_OP_ILEU, a, b); break;
        case LLVMIntUGT: *out = op2(S, WT_OP_ILTU, b, a); break;
        case LLVMIntUGE: *out = op2(S, WT_OP_ILEU, b, a); break;
        }
        return 0;
    }
    if (!is_float(t)) return unsupported_type(S, t);
    /* The machine has the ordered <, <=, ==, its negation fne (unordered or
     * unequal) and funo; the rest are these with operands swapped, or negated. */
    switch (LLVMGetFCmpPredicate(in)) {
    case LLVMRealPredicateFalse: *out = wb_reg(WT_OPND_R0); break;
    case LLVMRealPredicateTrue: *out = wb_imm(1, 0); break;
    case LLVMRealOEQ: *out = op2(S, WT_OP_FEQ, a, b); break;
    case LLVMRealUNE: *out = op2(S, WT_OP_FNE, a, b); break;
    case LLVMRealOLT: *out = op2(S, WT_OP_FLT, a, b); break;
    case LLVMRealOLE: *out = op2(S, WT_OP_FLE, a, b); break;
    case LLVMRealOGT: *out = op2(S, WT_OP_FLT, b, a); break;
    case LLVMRealOGE: *out = op2(S, WT_OP_FLE, b, a); break;
    case LLVMRealUGE: *out = op2(S, WT_OP_FLT, a, b); *inv = 1; break;   /* !(a < b) */
    case LLVMRealUGT: *out = op2(S, WT_OP_FLE, a, b); *inv = 1; break;   /* !(a <= b) */
    case LLVMRealULE: *out = op2(S, WT_OP_FLT, b, a); *inv = 1; break;   /* !(a > b) */
    case LLVMRealULT: *out = op2(S, WT_OP_FLE, b, a); *inv = 1; break;   /* !(a >= b) */
    case LLVMRealUNO: *out = op2(S, WT_OP_FUNO, a, b); break;
    case LLVMRealORD: *out = op2(S, WT_OP_FUNO, a, b); *inv = 1; break;
    case LLVMRealONE:
    case LLVMRealUEQ: {  /* one: a < b or a > b; ueq is its negation */
        wb_opnd x = op2(S, WT_OP_FLT, a, b), y = op2(S, WT_OP_FLT, b, a);
        *out = op2(S, WT_OP_OR, x, y);
        *inv = LLVMGetFCmpPredicate(in) == LLVMRealUEQ;
        break;
    }
    }
    return 0;
}

/* A compare whose only user is a branch or select of its block is selected there,
 * so that a negated float predicate costs nothing (the user swaps its arms). */
static int cmp_deferrable(LLVMValueRef in)
{
    LLVMUseRef u = LLVMGetFirstUse(in);
    if (!u || LLVMGetNextUse(u)) return 0;
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMGetInstructionParent(user) != LLVMGetInstructionParent(in)) return 0;
    if (LLVMIsABranchInst(user)) return 1;
    return LLVMIsASelectInst(user) && LLVMGetOperand(user, 0) == in;
}

/* A condition: (operand != 0) XOR *inv. */
static int cond_val(isel *S, LLVMValueRef c, wb_opnd *out, int *inv)
{
    vinfo *vi = info(S, c, 0);
    if (vi && vi->deferred) return sel_cmp(S, c, out, inv);
    *inv = 0;
    return val(S, c, out);
}

/* ---- Control flow ------------------------------------------------------------------------ */

static int bb_entry(isel *S, LLVMBasicBlockRef bb)
{
    return wb_ptrmap_get(&S->bbmap, LLVMBasicBlockAsValue(bb));
}

static int wide_bits(LLVMTypeRef t);
static int wide_val(isel *S, LLVMValueRef v, wb_opnd *lo, wb_opnd *hi);

/* Records the copies the successor's phis need on the edge from the current block
 * (two for a wide phi: its high word, then its low word). */
static int add_edge(isel *S, LLVMBasicBlockRef from, LLVMBasicBlockRef to)
{
    int n = 0;
    for (LLVMValueRef phi = LLVMGetFirstInstruction(to); phi && LLVMIsAPHINode(phi); phi = LLVMGetNextInstruction(phi))
        n += wide_bits(LLVMTypeOf(phi)) ? 2 : 1;
    if (n == 0) return 0;
    wb_func *f = S->f;
    wb_edge e = {.succ = bb_entry(S, to), .n = 0};
    e.dst = ws_arena_alloc(&f->arena, sizeof *e.dst * (size_t)n);
    e.src = ws_arena_alloc(&f->arena, sizeof *e.src * (size_t)n);
    for (LLVMValueRef phi = LLVMGetFirstInstruction(to); phi && LLVMIsAPHINode(phi); phi = LLVMGetNextInstruction(phi)) {
        unsigned k, count = LLVMCountIncoming(phi);
        for (k = 0; k < count; k++)
            if (LLVMGetIncomingBlock(phi, k) == from) break;
        if (k == count) return fail(S, "a phi has no value for one of its predecessors");
        wb_opnd src, hi;
        if (wide_bits(LLVMTypeOf(phi))) {
            if (wide_val(S, LLVMGetIncomingValue(phi, k), &src, &hi) < 0) return -1;
            e.dst[e.n] = info(S, phi, 0)->hi;
            e.src[e.n++] = hi;
        } else if (val(S, LLVMGetIncomingValue(phi, k), &src) < 0) {
            return -1;
        }
        e.dst[e.n] = info(S, phi, 0)->v;
        e.src[e.n++] = src;
    }
    wb_block *b = f->blocks[S->cur];
    wb_edge *edges = ws_arena_alloc(&f->arena, sizeof *edges * (size_t)(b->nedges + 1));
    if (b->nedges) memcpy(edges, b->edges, sizeof *edges * (size_t)b->nedges);
    edges[b->nedges++] = e;
    b->edges = edges;
    return 0;
}

static void set_term(isel *S, int op, wb_opnd cond, int target)
{
    wb_block *b = S->f->blocks[S->cur];
    memset(&b->term, 0, sizeof b->term);
    b->term.op = (uint16_t)op;
    b->term.s[0] = cond;
    b->term.target = target;
    b->term.line = S->line;
    b->term.col = S->col;
}

/* Starts a new machine block that the current one falls into. */
static void continue_in_new_block(isel *S)
{
    int nb = wb_new_block(S->f);
    S->f->blocks[S->cur]->fall = nb;
    wb_place_block(S->f, nb);
    S->cur = nb;
}

static int sel_br(isel *S, LLVMValueRef in, LLVMBasicBlockRef from)
{
    if (!LLVMIsConditional(in)) {
        LLVMBasicBlockRef t = LLVMGetSuccessor(in, 0);
        if (add_edge(S, from, t) < 0) return -1;
        S->f->blocks[S->cur]->fall = bb_entry(S, t);
        return 0;
    }
    LLVMBasicBlockRef t = LLVMGetSuccessor(in, 0), e = LLVMGetSuccessor(in, 1);
    LLVMValueRef c = LLVMGetCondition(in);
    if (t == e || LLVMIsAConstantInt(c)) {
        LLVMBasicBlockRef to = t == e || LLVMConstIntGetZExtValue(c) ? t : e;
        if (add_edge(S, from, to) < 0) return -1;
        S->f->blocks[S->cur]->fall = bb_entry(S, to);
        return 0;
    }
    wb_opnd cv;
    int inv;
    if (cond_val(S, c, &cv, &inv) < 0) return -1;
    if (add_edge(S, from, t) < 0 || add_edge(S, from, e) < 0) return -1;
    set_term(S, inv ? WT_OP_BZ : WT_OP_BNZ, cv, bb_entry(S, t));
    S->f->blocks[S->cur]->fall = bb_entry(S, e);
    return 0;
}

/* A switch is a chain of compare-and-branch blocks. */
static int sel_switch(isel *S, LLVMValueRef in, LLVMBasicBlockRef from)
{
    LLVMValueRef cond = LLVMGetOperand(in, 0);
    LLVMTypeRef t = LLVMTypeOf(cond);
    if (!is_int(t)) return unsupported_type(S, t);
    wb_opnd x;
    if (val(S, cond, &x) < 0) return -1;
    unsigned n = LLVMGetNumSuccessors(in);
    for (unsigned i = 1; i < n; i++) {
        LLVMBasicBlockRef dest = LLVMGetSuccessor(in, i);
        LLVMValueRef k = LLVMGetOperand(in, 2 * i);
        wb_opnd kv;
        if (const_opnd(S, k, &kv, NULL) < 0) return -1;
        if (is_r0(kv)) {
            set_term(S, WT_OP_BZ, x, bb_entry(S, dest));
        } else {
            wb_opnd c = op2(S, WT_OP_IEQ, x, kv);
            set_term(S, WT_OP_BNZ, c, bb_entry(S, dest));
        }
        if (add_edge(S, from, dest) < 0) return -1;
        continue_in_new_block(S);
    }
    LLVMBasicBlockRef def = LLVMGetSwitchDefaultDest(in);
    if (add_edge(S, from, def) < 0) return -1;
    S->f->blocks[S->cur]->fall = bb_entry(S, def);
    return 0;
}

/* ---- Calls ---------------------------------------------------------------------------------- */

static int queue_arg(isel *S, LLVMValueRef call, int *q)
{
    LLVMValueRef a = LLVMGetOperand(call, 0);
    if (!LLVMIsAConstantInt(a) || LLVMConstIntGetZExtValue(a) > 3)
        return fail(S, "the queue of a communication call must be a constant 0..3");
    *q = (int)LLVMConstIntGetZExtValue(a);
    return 0;
}

static int arg_val(isel *S, LLVMValueRef call, unsigned i, wb_opnd *out)
{
    return val(S, LLVMGetOperand(call, i), out);
}

/* llvm.memset / llvm.memcpy / llvm.memmove: unrolled word stores when small and
 * aligned, else a loop. */
static unsigned call_param_align(LLVMValueRef call, unsigned argno)
{
    unsigned kind = LLVMGetEnumAttributeKindForName("align", 5);
    LLVMAttributeRef a = LLVMGetCallSiteEnumAttribute(call, argno + 1, kind);
    return a ? (unsigned)LLVMGetEnumAttributeValue(a) : 1;
}

static int word_aligned(LLVMValueRef call, unsigned argno, addr p)
{
    int off;
    if (call_param_align(call, argno) >= 4) return 1;
    return known_byte_offset(p, &off) && off == 0;
}

enum { MEM_SET, MEM_COPY, MEM_MOVE };

static int sel_mem_intrinsic(isel *S, LLVMValueRef call, int kind)
{
    int is_copy = kind != MEM_SET;
    addr dst, src = {0};
    wb_opnd fill = wb_reg(WT_OPND_R0), len;
    int src_op = WT_OP_LD;
    if (val_addr(S, LLVMGetOperand(call, 0), &dst) < 0) return -1;
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(LLVMGetOperand(call, 0))) != 0)
        return fail(S, "a store to host memory (host arrays are written only by send)");
    if (is_copy) {
        if (val_addr(S, LLVMGetOperand(call, 1), &src) < 0) return -1;
        if (LLVMGetPointerAddressSpace(LLVMTypeOf(LLVMGetOperand(call, 1))) == 1) src_op = WT_OP_HLD;
    } else if (arg_val(S, call, 1, &fill) < 0) {
        return -1;
    }
    LLVMValueRef lenv = LLVMGetOperand(call, 2);
    int known = LLVMIsAConstantInt(lenv) != NULL;
    if (!known && !is_int(LLVMTypeOf(lenv))) return unsupported_type(S, LLVMTypeOf(lenv));
    uint64_t n = known ? LLVMConstIntGetZExtValue(lenv) : 0;
    /* LLVM writes the length as i64 when it makes the call itself (inlining a
     * function whose local array is cleared): a constant that fits is a literal. */
    if (known && n <= UINT32_MAX) len = wb_imm((uint32_t)n, 0);
    else if (val(S, lenv, &len) < 0) return -1;
    if (known && n == 0) return 0;
    int words = known && n % 4 == 0 && word_aligned(call, 0, dst) && (!is_copy || word_aligned(call, 1, src));
    wb_opnd word = fill;
    if (!is_copy && words) {
        if (wb_is_lit(fill)) word = wb_imm(fill.v * 0x01010101u, 0);
        else if (!is_r0(fill)) word = op2(S, WT_OP_IMUL, fill, wb_imm(0x01010101u, 0));
    }
    if (words && n <= 64) {
        /* a move reads every word before it writes one: the two may overlap */
        wb_opnd moved[16];
        for (uint64_t k = 0; kind == MEM_MOVE && k < n; k += 4) {
            moved[k / 4] = wb_vreg(wb_new_vreg(S->f, 0));
            emit_ld(S, src_op, moved[k / 4], addr_add_const(S, src, (int64_t)k));
        }
        for (uint64_t k = 0; k < n; k += 4) {
            addr d = addr_add_const(S, dst, (int64_t)k);
            wb_opnd v = word;
            if (kind == MEM_MOVE) {
                v = moved[k / 4];
            } else if (is_copy) {
                v = wb_vreg(wb_new_vreg(S->f, 0));
                emit_ld(S, src_op, v, addr_add_const(S, src, (int64_t)k));
            }
            emit_st(S, d, v);
        }
        return 0;
    }
    /* The loop: p walks the destination (and q the source) until it reaches end. */
    int unit = words ? 4 : 1;
    wb_func *f = S->f;
    wb_opnd p = wb_vreg(wb_new_vreg(f, 0)), q = none();
    emit(S, WB_COPY, p, addr_value(S, dst), none(), none());
    wb_opnd end = op2(S, WT_OP_IADD, p, len);
    if (is_copy) {
        q = wb_vreg(wb_new_vreg(f, 0));
        emit(S, WB_COPY, q, addr_value(S, src), none(), none());
    }
    int done = wb_new_block(f), loop = wb_new_block(f), down = -1;
    if (!known) set_term(S, WT_OP_BZ, len, done);
    if (kind == MEM_MOVE) {
        /* a destination above the source is copied from the end down, so that no
         * word is overwritten before it is read */
        if (!known) continue_in_new_block(S);
        down = wb_new_block(f);
        set_term(S, WT_OP_BNZ, op2(S, WT_OP_ILTU, q, p), down);
    }
    f->blocks[S->cur]->fall = loop;
    wb_place_block(f, loop);
    S->cur = loop;
    addr pd = {p, wb_reg(WT_OPND_R0), dst.obj}, ps = {q, wb_reg(WT_OPND_R0), src.obj};
    if (unit == 4) {
        wb_opnd v = word;
        if (is_copy) {
            v = wb_vreg(wb_new_vreg(f, 0));
            emit_ld(S, src_op, v, ps);
        }
        emit_st(S, pd, v);
    } else {
        wb_opnd v = fill;
        if (is_copy) v = sub_load(S, ps, 0xff, src_op);
        sub_store(S, pd, v, 0xff);
    }
    emit(S, WT_OP_IADD, p, p, wb_imm((uint32_t)unit, 0), none());
    if (is_copy) emit(S, WT_OP_IADD, q, q, wb_imm((uint32_t)unit, 0), none());
    /* p meets end exactly (len is a multiple of the unit): a counted loop, which
     * the pipeliner takes */
    wb_opnd more = op2(S, WT_OP_INE, p, end);
    set_term(S, WT_OP_BNZ, more, loop);
    f->blocks[loop]->fall = done;
    if (down >= 0) {
        /* p and q still hold the starts here: walk both down from their ends */
        wb_place_block(f, down);
        S->cur = down;
        wb_opnd pe = wb_vreg(wb_new_vreg(f, 0)), qe = wb_vreg(wb_new_vreg(f, 0));
        emit(S, WT_OP_IADD, pe, p, len, none());
        emit(S, WT_OP_IADD, qe, q, len, none());
        int back = wb_new_block(f);
        f->blocks[down]->fall = back;
        wb_place_block(f, back);
        S->cur = back;
        emit(S, WT_OP_ISUB, pe, pe, wb_imm((uint32_t)unit, 0), none());
        emit(S, WT_OP_ISUB, qe, qe, wb_imm((uint32_t)unit, 0), none());
        addr bd = {pe, wb_reg(WT_OPND_R0), dst.obj}, bs = {qe, wb_reg(WT_OPND_R0), src.obj};
        if (unit == 4) {
            wb_opnd v = wb_vreg(wb_new_vreg(f, 0));
            emit_ld(S, src_op, v, bs);
            emit_st(S, bd, v);
        } else {
            sub_store(S, bd, sub_load(S, bs, 0xff, src_op), 0xff);
        }
        set_term(S, WT_OP_BNZ, op2(S, WT_OP_INE, pe, p), back);
        f->blocks[back]->fall = done;
    }
    wb_place_block(f, done);
    S->cur = done;
    return 0;
}

static int is_intrinsic(const char *name, const char *prefix)
{
    return strncmp(name, prefix, strlen(prefix)) == 0;
}

/* ---- Debug intrinsics (-g) --------------------------------------------------------------- */

/* The value a metadata operand wraps (ValueAsMetadata), or NULL. */
static LLVMValueRef md_value(LLVMValueRef op)
{
    if (!op || LLVMGetValueKind(op) != LLVMMetadataAsValueValueKind) return NULL;
    LLVMMetadataKind k = LLVMGetMetadataKind(LLVMValueAsMetadata(op));
    if (k != LLVMLocalAsMetadataMetadataKind && k != LLVMConstantAsMetadataMetadataKind) return NULL;
    LLVMValueRef v = NULL;
    LLVMGetMDNodeOperands(op, &v);
    return v;
}

/* Only the empty expression means "the value itself": anything else (a fragment of
 * a split array, an offset) is a location the debugger could not read right, so the
 * variable is said to have none. */
static int md_expr_empty(LLVMValueRef op)
{
    if (!op || LLVMGetValueKind(op) != LLVMMetadataAsValueValueKind) return 0;
    if (LLVMGetMetadataKind(LLVMValueAsMetadata(op)) != LLVMDIExpressionMetadataKind) return 0;
    char *s = LLVMPrintValueToString(op);
    int empty = strstr(s, "DIExpression()") != NULL;
    LLVMDisposeMessage(s);
    return empty;
}

static int dvar_index(wb_func *f, LLVMMetadataRef md)
{
    for (int i = 0; i < f->ndvars; i++)
        if (f->dvars[i].md == md) return i;
    f->dvars = ws_xrealloc(f->dvars, sizeof *f->dvars * (size_t)(f->ndvars + 1));
    f->dvars[f->ndvars] = (wb_dvar){md, 0, NULL, 0};
    return f->ndvars++;
}

/* llvm.dbg.declare: the variable lives at a frame or global address for the whole
 * function. llvm.dbg.value: from here it is this value; the event goes on the last
 * operation selected in the block (or the block's start), and nothing is emitted,
 * so -g never changes the code. */
static void sel_dbg(isel *S, LLVMValueRef in, const char *name)
{
    if (!S->f->debug || LLVMGetNumArgOperands(in) < 3) return;
    LLVMValueRef var = LLVMGetOperand(in, 1), expr = LLVMGetOperand(in, 2);
    if (LLVMGetValueKind(var) != LLVMMetadataAsValueValueKind || LLVMGetMetadataKind(LLVMValueAsMetadata(var)) != LLVMDILocalVariableMetadataKind)
        return;
    int vi = dvar_index(S->f, LLVMValueAsMetadata(var));
    LLVMValueRef v = md_value(LLVMGetOperand(in, 0));
    int empty = md_expr_empty(expr);
    if (!strcmp(name, "llvm.dbg.declare")) {
        wb_dvar *dv = &S->f->dvars[vi];
        if (!v || !empty) return;
        if (LLVMIsAGlobalVariable(v) && LLVMGetPointerAddressSpace(LLVMTypeOf(v)) == 0) {
            const char *sym = wb_global_symbol(S->mod, v);
            if (sym) *dv = (wb_dvar){dv->md, 1, sym, 0};
            return;
        }
        vinfo *x = info(S, v, 0);
        if (x && x->has_pair && is_r0(x->p.a) && x->p.b.kind == WB_O_SYM)
            *dv = (wb_dvar){dv->md, 1, x->p.b.sym, x->p.b.addend};
        return;
    }
    if (strcmp(name, "llvm.dbg.value") != 0) return;
    int kind = WB_DV_NONE;
    uint32_t bits = 0;
    if (v && empty) {
        if (LLVMIsAConstantInt(v) && type_bits(LLVMTypeOf(v)) <= 32) {
            kind = WB_DV_CONST;
            bits = (uint32_t)LLVMConstIntGetZExtValue(v);
        } else if (LLVMIsAConstantFP(v) && is_float(LLVMTypeOf(v))) {
            LLVMBool loses;
            kind = WB_DV_CONST;
            bits = wt_u((float)LLVMConstRealGetDouble(v, &loses));
        } else if (!LLVMIsAConstant(v)) {
            vinfo *x = info(S, v, 0);
            if (x && x->has_v && !x->deferred && !x->wide) {
                if (x->v.kind == WB_O_VREG) kind = WB_DV_VREG, bits = x->v.v;
                else if (x->v.kind == WB_O_REG && x->v.v == WT_OPND_R0) kind = WB_DV_CONST, bits = 0;
                else if (x->v.kind == WB_O_REG && x->v.v == WT_OPND_CID) kind = WB_DV_REG, bits = x->v.v;
                else if (x->v.kind == WB_O_IMM) kind = WB_DV_CONST, bits = x->v.v;
            }
        }
    }
    int ev = wb_new_dbgev(S->f, vi, kind, bits, 0);
    wb_block *b = S->f->blocks[S->cur];
    wb_chain_dbg(S->f, b->nins ? &b->ins[b->nins - 1].dbg : &b->dbg_entry, ev);
}

static int sel_call(isel *S, LLVMValueRef in)
{
    LLVMValueRef callee = LLVMGetCalledValue(in);
    if (!LLVMIsAFunction(callee)) return fail(S, "an indirect call");
    size_t nlen;
    const char *name = LLVMGetValueName2(callee, &nlen);
    wb_opnd a, b;
    int q;
    LLVMTypeRef rt = LLVMTypeOf(in);
    int rbits = LLVMGetTypeKind(rt) == LLVMVoidTypeKind ? 0 : type_bits(rt);

    if (is_intrinsic(name, "w2.")) {
        if (!strcmp(name, "w2.recv.f32") || !strcmp(name, "w2.recv.i32")) {
            if (queue_arg(S, in, &q) < 0) return -1;
            set_val(S, in, copy_of(S, wb_reg(WT_OPND_GATE + (unsigned)q)));
            return 0;
        }
        int base = !strcmp(name, "w2.send.f32") || !strcmp(name, "w2.send.i32") ? WT_OPND_GATE
                   : !strcmp(name, "w2.host.feed.f32") || !strcmp(name, "w2.host.feed.i32") ? WT_OPND_FEED
                   : !strcmp(name, "w2.host.dest") ? WT_OPND_ADDR : -1;
        if (base >= 0) {
            if (queue_arg(S, in, &q) < 0 || arg_val(S, in, 1, &a) < 0) return -1;
            emit(S, WB_COPY, wb_reg((unsigned)(base + q)), a, none(), none());
            return 0;
        }
        if (!strcmp(name, "w2.cellid")) {
            set_val(S, in, wb_reg(WT_OPND_CID));
            return 0;
        }
        if (!strcmp(name, "w2.idiv") || !strcmp(name, "w2.imod")) {
            if (arg_val(S, in, 0, &a) < 0 || arg_val(S, in, 1, &b) < 0) return -1;
            int div = name[4] == 'd';
            if (b.kind == WB_O_IMM && !b.isfloat && b.v > 1 && b.v <= 0x40000000u && (b.v & (b.v - 1)) == 0) {
                /* By 2^k: no divider (6 clocks, not pipelined) but shifts. Rounding
                 * toward zero: a negative dividend gets 2^k - 1 added first. */
                int k = __builtin_ctz(b.v);
                wb_opnd sign = op2(S, WT_OP_SRA, a, wb_imm(31, 0));
                wb_opnd bias = op2(S, WT_OP_SHR, sign, wb_imm((uint32_t)(32 - k), 0));
                wb_opnd t = op2(S, WT_OP_IADD, a, bias);
                if (div) set_val(S, in, op2(S, WT_OP_SRA, t, wb_imm((uint32_t)k, 0)));
                else set_val(S, in, op2(S, WT_OP_ISUB, a, op2(S, WT_OP_AND, t, wb_imm(~(b.v - 1), 0))));
                return 0;
            }
            if (b.kind == WB_O_IMM && !b.isfloat && b.v == 1) {
                set_val(S, in, div ? a : wb_reg(WT_OPND_R0));
                return 0;
            }
            set_val(S, in, op2(S, div ? WT_OP_IDIV : WT_OP_IMOD, a, b));
            return 0;
        }
        return fail(S, "unsupported call to '%s'", name);
    }

    if (is_intrinsic(name, "llvm.")) {
        if (is_intrinsic(name, "llvm.dbg.")) {
            sel_dbg(S, in, name);
            return 0;
        }
        if (is_intrinsic(name, "llvm.lifetime.") ||
            !strcmp(name, "llvm.assume") || !strcmp(name, "llvm.experimental.noalias.scope.decl"))
            return 0;
        struct { const char *prefix; int op, sgn; } minmax[] = {
            {"llvm.smin.", WT_OP_IMIN, 1}, {"llvm.smax.", WT_OP_IMAX, 1},
            {"llvm.umin.", WT_OP_IMINU, 0}, {"llvm.umax.", WT_OP_IMAXU, 0},
        };
        for (int i = 0; i < 4; i++) {
            if (!is_intrinsic(name, minmax[i].prefix)) continue;
            if (!rbits || is_float(rt)) return unsupported_type(S, rt);
            if (arg_val(S, in, 0, &a) < 0 || arg_val(S, in, 1, &b) < 0) return -1;
            if (minmax[i].sgn && rbits < 32) {
                a = sext32(S, a, rbits);
                b = sext32(S, b, rbits);
                set_val(S, in, norm(S, op2(S, minmax[i].op, a, b), rbits));
            } else {
                set_val(S, in, op2(S, minmax[i].op, a, b));
            }
            return 0;
        }
        if (is_intrinsic(name, "llvm.abs.")) {
            if (!rbits || is_float(rt)) return unsupported_type(S, rt);
            if (arg_val(S, in, 0, &a) < 0) return -1;
            a = sext32(S, a, rbits);
            set_val(S, in, norm(S, op2(S, WT_OP_IMAX, a, op1(S, WT_OP_INEG, a)), rbits));
            return 0;
        }
        if (!strcmp(name, "llvm.fptosi.sat.i32.f32")) {
            if (arg_val(S, in, 0, &a) < 0) return -1;
            set_val(S, in, op1(S, WT_OP_FTOI, a));
            return 0;
        }
        if (!strcmp(name, "llvm.fabs.f32")) {
            if (arg_val(S, in, 0, &a) < 0) return -1;
            set_val(S, in, op1(S, WT_OP_FABS, a));
            return 0;
        }
        if (!strcmp(name, "llvm.copysign.f32")) {  /* a's magnitude, b's sign bit */
            if (arg_val(S, in, 0, &a) < 0 || arg_val(S, in, 1, &b) < 0) return -1;
            a = op2(S, WT_OP_AND, a, wb_imm(0x7fffffffu, 0));
            b = op2(S, WT_OP_AND, b, wb_imm(0x80000000u, 0));
            set_val(S, in, op2(S, WT_OP_OR, a, b));
            return 0;
        }
        if (!strcmp(name, "llvm.fshl.i32") || !strcmp(name, "llvm.fshr.i32")) {
            /* Funnel shifts (LLVM's rotates): the shift amount is taken mod 32, and
             * an amount of 0 gives the first (fshl) or second (fshr) operand. */
            wb_opnd c;
            if (arg_val(S, in, 0, &a) < 0 || arg_val(S, in, 1, &b) < 0 || arg_val(S, in, 2, &c) < 0) return -1;
            int left = name[8] == 'l';
            c = op2(S, WT_OP_AND, c, wb_imm(31, 0));
            wb_opnd rest = op2(S, WT_OP_ISUB, wb_imm(32, 0), c);
            wb_opnd hi = op2(S, WT_OP_SHL, a, left ? c : rest), lo = op2(S, WT_OP_SHR, b, left ? rest : c);
            wb_opnd d = wb_vreg(wb_new_vreg(S->f, 0));
            emit(S, WT_OP_SEL, d, c, op2(S, WT_OP_OR, hi, lo), left ? a : b);
            set_val(S, in, d);
            return 0;
        }
        if (!strcmp(name, "llvm.usub.sat.i32")) {  /* max(a, b) - b */
            if (arg_val(S, in, 0, &a) < 0 || arg_val(S, in, 1, &b) < 0) return -1;
            set_val(S, in, op2(S, WT_OP_ISUB, op2(S, WT_OP_IMAXU, a, b), b));
            return 0;
        }
        if (!strcmp(name, "llvm.uadd.sat.i32")) {  /* a + b, or all ones if it wrapped */
            if (arg_val(S, in, 0, &a) < 0 || arg_val(S, in, 1, &b) < 0) return -1;
            wb_opnd s = op2(S, WT_OP_IADD, a, b), c = op2(S, WT_OP_ILTU, s, a);
            wb_opnd d = wb_vreg(wb_new_vreg(S->f, 0));
            emit(S, WT_OP_SEL, d, c, wb_imm(0xffffffffu, 0), s);
            set_val(S, in, d);
            return 0;
        }
        if (is_intrinsic(name, "llvm.memset.")) return sel_mem_intrinsic(S, in, MEM_SET);
        if (is_intrinsic(name, "llvm.memcpy.")) return sel_mem_intrinsic(S, in, MEM_COPY);
        if (is_intrinsic(name, "llvm.memmove.")) return sel_mem_intrinsic(S, in, MEM_MOVE);
        return fail(S, "unsupported call to '%s'", name);
    }

    /* A W2 function: void(), all registers the callee's. */
    if (LLVMCountParams(callee) != 0 || rbits)
        return fail(S, "call to '%s': only functions without parameters or result are supported", name);
    const char *sym = wb_global_symbol(S->mod, callee);
    if (!sym) return -1;
    set_term(S, WT_OP_CALL, none(), -1);
    S->f->blocks[S->cur]->term.callee = sym;
    continue_in_new_block(S);
    return 0;
}

/* ---- Instructions ---------------------------------------------------------------------------- */

static int sel_binary(isel *S, LLVMValueRef in, LLVMOpcode opc)
{
    LLVMTypeRef t = LLVMTypeOf(in);
    int bits = type_bits(t);
    wb_opnd a, b;
    if (val(S, LLVMGetOperand(in, 0), &a) < 0 || val(S, LLVMGetOperand(in, 1), &b) < 0) return -1;
    int fop = 0;
    switch (opc) {
    case LLVMFAdd: fop = WT_OP_FADD; break;
    case LLVMFSub: fop = WT_OP_FSUB; break;
    case LLVMFMul: fop = WT_OP_FMUL; break;
    case LLVMFDiv: fop = WT_OP_FDIV; break;
    default: break;
    }
    if (fop) {
        if (!is_float(t)) return unsupported_type(S, t);
        set_val(S, in, op2(S, fop, a, b));
        return 0;
    }
    if (!is_int(t)) return unsupported_type(S, t);
    int op = 0, sext = 0, renorm = 0;
    switch (opc) {
    case LLVMAdd: op = WT_OP_IADD; renorm = 1; break;
    case LLVMSub: op = WT_OP_ISUB; renorm = 1; break;
    case LLVMMul: op = WT_OP_IMUL; renorm = 1; break;
    case LLVMSDiv: op = WT_OP_IDIV; sext = 2; renorm = 1; break;
    case LLVMSRem: op = WT_OP_IMOD; sext = 2; renorm = 1; break;
    case LLVMUDiv: op = WT_OP_IDIVU; break;
    case LLVMURem: op = WT_OP_IMODU; break;
    case LLVMShl: op = WT_OP_SHL; renorm = 1; break;
    case LLVMLShr: op = WT_OP_SHR; break;
    case LLVMAShr: op = WT_OP_SRA; sext = 1; renorm = 1; break;
    case LLVMAnd: op = WT_OP_AND; break;
    case LLVMOr: op = WT_OP_OR; break;
    case LLVMXor: op = WT_OP_XOR; break;
    default: return fail(S, "unsupported instruction '%s'", opcode_name(opc));
    }
    if (bits < 32 && sext) {
        a = sext32(S, a, bits);
        if (sext == 2) b = sext32(S, b, bits);
    }
    wb_opnd d = op2(S, op, a, b);
    set_val(S, in, bits < 32 && renorm ? norm(S, d, bits) : d);
    return 0;
}

static int alias_value(isel *S, LLVMValueRef in, LLVMValueRef src)
{
    if (LLVMIsAConstant(src)) {
        wb_opnd o;
        if (const_opnd(S, src, &o, NULL) < 0) return -1;
        set_val(S, in, o);
        return 0;
    }
    vinfo *si = info(S, src, 0);
    if (!si) return fail(S, "a value is used before it is defined");
    vinfo copy = *si;
    *info(S, in, 1) = copy;
    return 0;
}

static int sel_cast(isel *S, LLVMValueRef in, LLVMOpcode opc)
{
    LLVMValueRef src = LLVMGetOperand(in, 0);
    LLVMTypeRef st = LLVMTypeOf(src), dt = LLVMTypeOf(in);
    int sb = type_bits(st), db = type_bits(dt);
    if (!sb) return unsupported_type(S, st);
    if (!db) return unsupported_type(S, dt);
    wb_opnd a;
    switch (opc) {
    case LLVMBitCast: case LLVMAddrSpaceCast: case LLVMIntToPtr: case LLVMZExt:
        return alias_value(S, in, src);
    case LLVMPtrToInt:
        if (db == 32) return alias_value(S, in, src);
        if (val(S, src, &a) < 0) return -1;
        set_val(S, in, norm(S, a, db));
        return 0;
    case LLVMTrunc:
        if (val(S, src, &a) < 0) return -1;
        set_val(S, in, norm(S, a, db));
        return 0;
    case LLVMSExt:
        if (val(S, src, &a) < 0) return -1;
        set_val(S, in, norm(S, sext32(S, a, sb), db));
        return 0;
    case LLVMSIToFP: case LLVMUIToFP:
        if (!is_float(dt) || !is_int(st)) return unsupported_type(S, is_float(dt) ? st : dt);
        if (val(S, src, &a) < 0) return -1;
        if (opc == LLVMSIToFP) set_val(S, in, op1(S, WT_OP_ITOF, sext32(S, a, sb)));
        else set_val(S, in, op1(S, WT_OP_UTOF, a));
        return 0;
    case LLVMFPToSI: case LLVMFPToUI:
        if (!is_float(st) || !is_int(dt)) return unsupported_type(S, is_float(st) ? dt : st);
        if (val(S, src, &a) < 0) return -1;
        if (opc == LLVMFPToUI && db == 32) {
            /* ftoi saturates at 2^31: values from there on are converted less 2^31. */
            wb_opnd big = wb_imm(0x4f000000u, 1);   /* 2147483648.0 */
            wb_opnd hi = op2(S, WT_OP_FLE, big, a);
            wb_opnd lo = op1(S, WT_OP_FTOI, a);
            wb_opnd up = op1(S, WT_OP_FTOI, op2(S, WT_OP_FSUB, a, big));
            up = op2(S, WT_OP_XOR, up, wb_imm(0x80000000u, 0));
            wb_opnd d = wb_vreg(wb_new_vreg(S->f, 0));
            emit(S, WT_OP_SEL, d, hi, up, lo);
            set_val(S, in, d);
            return 0;
        }
        set_val(S, in, norm(S, op1(S, WT_OP_FTOI, a), db));
        return 0;
    default:
        return fail(S, "unsupported instruction '%s'", opcode_name(opc));
    }
}

static int sel_select(isel *S, LLVMValueRef in)
{
    LLVMTypeRef t = LLVMTypeOf(in);
    if (!type_bits(t)) return unsupported_type(S, t);
    wb_opnd c, a, b;
    int inv;
    if (cond_val(S, LLVMGetOperand(in, 0), &c, &inv) < 0) return -1;
    if (val(S, LLVMGetOperand(in, 1), &a) < 0 || val(S, LLVMGetOperand(in, 2), &b) < 0) return -1;
    wb_opnd d = wb_vreg(wb_new_vreg(S->f, 0));
    if (inv) emit(S, WT_OP_SEL, d, c, b, a);
    else emit(S, WT_OP_SEL, d, c, a, b);
    set_val(S, in, d);
    return 0;
}

/* ---- Wide integers ---------------------------------------------------------------------- *
 *
 * LLVM's closed forms of loop sums (scalar evolution) compute in i33..i64 before
 * truncating back to i32. Such values are pairs of registers, low word and high
 * word, the high word zero-extended from the type's width; the arithmetic of those
 * closed forms is supported (extensions, truncation, add, sub, mul, bitwise
 * operations, shifts by constants, compares, select), phis (IndVarSimplify
 * widens the induction variable the closed form multiplies) and 64-bit loads and
 * stores (an 8-byte memset or memcpy becomes one). */

static int wide_bits(LLVMTypeRef t)
{
    if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind) return 0;
    unsigned w = LLVMGetIntTypeWidth(t);
    return w > 32 && w <= 64 ? (int)w : 0;
}

static int wide_val(isel *S, LLVMValueRef v, wb_opnd *lo, wb_opnd *hi)
{
    int bits = wide_bits(LLVMTypeOf(v));
    if (LLVMIsAConstantInt(v)) {
        uint64_t x = LLVMConstIntGetZExtValue(v);
        *lo = wb_imm((uint32_t)x, 0);
        *hi = wb_imm((uint32_t)(x >> 32) & mask_of(bits - 32), 0);
        return 0;
    }
    if (LLVMIsAUndefValue(v)) {
        *lo = *hi = wb_reg(WT_OPND_R0);
        return 0;
    }
    vinfo *vi = info(S, v, 0);
    if (!vi || !vi->wide) return unsupported_type(S, LLVMTypeOf(v));
    *lo = vi->v;
    *hi = vi->hi;
    return 0;
}

static void set_wide(isel *S, LLVMValueRef v, wb_opnd lo, wb_opnd hi)
{
    vinfo *vi = info(S, v, 1);
    vi->v = lo;
    vi->hi = hi;
    vi->has_v = 1;
    vi->wide = 1;
}

/* The high 32 bits, unsigned, of a 32 x 32 product, from 16-bit halves. */
static wb_opnd mul_high(isel *S, wb_opnd x, wb_opnd y)
{
    wb_opnd m16 = wb_imm(0xffff, 0), s16 = wb_imm(16, 0);
    wb_opnd x0 = op2(S, WT_OP_AND, x, m16), x1 = op2(S, WT_OP_SHR, x, s16);
    wb_opnd y0 = op2(S, WT_OP_AND, y, m16), y1 = op2(S, WT_OP_SHR, y, s16);
    wb_opnd p00 = op2(S, WT_OP_IMUL, x0, y0), p01 = op2(S, WT_OP_IMUL, x0, y1);
    wb_opnd p10 = op2(S, WT_OP_IMUL, x1, y0), p11 = op2(S, WT_OP_IMUL, x1, y1);
    wb_opnd mid = op2(S, WT_OP_SHR, p00, s16);
    mid = op2(S, WT_OP_IADD, mid, op2(S, WT_OP_AND, p01, m16));
    mid = op2(S, WT_OP_IADD, mid, op2(S, WT_OP_AND, p10, m16));
    wb_opnd h = op2(S, WT_OP_IADD, p11, op2(S, WT_OP_SHR, p01, s16));
    h = op2(S, WT_OP_IADD, h, op2(S, WT_OP_SHR, p10, s16));
    return op2(S, WT_OP_IADD, h, op2(S, WT_OP_SHR, mid, s16));
}

/* lt (or le) of two wide values: on the high words, then the low words unsigned. */
static wb_opnd wide_less(isel *S, wb_opnd al, wb_opnd ah, wb_opnd bl, wb_opnd bh, int sgn, int or_equal)
{
    wb_opnd hl = op2(S, sgn ? WT_OP_ILT : WT_OP_ILTU, ah, bh);
    wb_opnd he = op2(S, WT_OP_IEQ, ah, bh);
    wb_opnd ll = op2(S, or_equal ? WT_OP_ILEU : WT_OP_ILTU, al, bl);
    return op2(S, WT_OP_OR, hl, op2(S, WT_OP_AND, he, ll));
}

static int sel_wide(isel *S, LLVMValueRef in, LLVMOpcode opc)
{
    LLVMTypeRef rt = LLVMTypeOf(in);
    int rb = wide_bits(rt);
    wb_opnd al, ah, bl, bh, lo, hi;
    uint32_t hmask = mask_of(rb - 32);
    switch (opc) {
    case LLVMZExt: case LLVMSExt: {
        LLVMValueRef src = LLVMGetOperand(in, 0);
        int sb = type_bits(LLVMTypeOf(src)), swb = wide_bits(LLVMTypeOf(src));
        if (!rb || (!sb && !swb)) return unsupported_type(S, sb || swb ? rt : LLVMTypeOf(src));
        if (sb) {
            if (val(S, src, &al) < 0) return -1;
            ah = wb_reg(WT_OPND_R0);
            if (opc == LLVMSExt) {
                al = sext32(S, al, sb);
                ah = op2(S, WT_OP_SRA, al, wb_imm(31, 0));
            }
        } else {
            if (wide_val(S, src, &al, &ah) < 0) return -1;
            if (opc == LLVMSExt) ah = sext32(S, ah, swb - 32);
        }
        set_wide(S, in, al, rb < 64 && !is_r0(ah) ? op2(S, WT_OP_AND, ah, wb_imm(hmask, 0)) : ah);
        return 0;
    }
    case LLVMTrunc: {
        if (wide_val(S, LLVMGetOperand(in, 0), &al, &ah) < 0) return -1;
        int tb = type_bits(rt);
        if (tb) set_val(S, in, norm(S, al, tb));
        else if (rb) set_wide(S, in, al, op2(S, WT_OP_AND, ah, wb_imm(hmask, 0)));
        else return unsupported_type(S, rt);
        return 0;
    }
    case LLVMFreeze:
        if (wide_val(S, LLVMGetOperand(in, 0), &al, &ah) < 0) return -1;
        set_wide(S, in, al, ah);
        return 0;
    case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMAnd: case LLVMOr: case LLVMXor:
        if (wide_val(S, LLVMGetOperand(in, 0), &al, &ah) < 0 || wide_val(S, LLVMGetOperand(in, 1), &bl, &bh) < 0)
            return -1;
        switch (opc) {
        case LLVMAdd:
            lo = op2(S, WT_OP_IADD, al, bl);
            hi = op2(S, WT_OP_IADD, op2(S, WT_OP_IADD, ah, bh), op2(S, WT_OP_ILTU, lo, al));
            break;
        case LLVMSub:
            lo = op2(S, WT_OP_ISUB, al, bl);
            hi = op2(S, WT_OP_ISUB, op2(S, WT_OP_ISUB, ah, bh), op2(S, WT_OP_ILTU, al, bl));
            break;
        case LLVMMul:
            lo = op2(S, WT_OP_IMUL, al, bl);
            hi = op2(S, WT_OP_IADD, mul_high(S, al, bl),
                     op2(S, WT_OP_IADD, op2(S, WT_OP_IMUL, al, bh), op2(S, WT_OP_IMUL, ah, bl)));
            break;
        default: {
            int op = opc == LLVMAnd ? WT_OP_AND : opc == LLVMOr ? WT_OP_OR : WT_OP_XOR;
            set_wide(S, in, op2(S, op, al, bl), op2(S, op, ah, bh));
            return 0;
        }
        }
        set_wide(S, in, lo, rb < 64 ? op2(S, WT_OP_AND, hi, wb_imm(hmask, 0)) : hi);
        return 0;
    case LLVMShl: case LLVMLShr: case LLVMAShr: {
        LLVMValueRef amount = LLVMGetOperand(in, 1);
        if (!LLVMIsAConstantInt(amount)) return fail(S, "a shift of a %d-bit value by a variable amount", rb);
        unsigned c = (unsigned)LLVMConstIntGetZExtValue(amount);
        if (c >= (unsigned)rb) return fail(S, "a shift by %u of a %d-bit value", c, rb);
        if (wide_val(S, LLVMGetOperand(in, 0), &al, &ah) < 0) return -1;
        if (opc == LLVMAShr) ah = sext32(S, ah, rb - 32);
        if (c == 0) {
            lo = al;
            hi = ah;
        } else if (opc == LLVMShl) {
            if (c < 32) {
                hi = op2(S, WT_OP_OR, op2(S, WT_OP_SHL, ah, wb_imm(c, 0)), op2(S, WT_OP_SHR, al, wb_imm(32 - c, 0)));
                lo = op2(S, WT_OP_SHL, al, wb_imm(c, 0));
            } else {
                hi = op2(S, WT_OP_SHL, al, wb_imm(c - 32, 0));
                lo = wb_reg(WT_OPND_R0);
            }
        } else {
            int sh = opc == LLVMAShr ? WT_OP_SRA : WT_OP_SHR;
            if (c < 32) {
                lo = op2(S, WT_OP_OR, op2(S, WT_OP_SHR, al, wb_imm(c, 0)), op2(S, WT_OP_SHL, ah, wb_imm(32 - c, 0)));
                hi = op2(S, sh, ah, wb_imm(c, 0));
            } else {
                lo = op2(S, sh, ah, wb_imm(c - 32, 0));
                hi = opc == LLVMAShr ? op2(S, WT_OP_SRA, ah, wb_imm(31, 0)) : wb_reg(WT_OPND_R0);
            }
        }
        set_wide(S, in, lo, rb < 64 && !is_r0(hi) ? op2(S, WT_OP_AND, hi, wb_imm(hmask, 0)) : hi);
        return 0;
    }
    case LLVMLoad: case LLVMStore: {
        /* A 64-bit access (instcombine turns an 8-byte memset or memcpy into one):
         * two words, the low one first (little-endian). */
        int is_store = opc == LLVMStore;
        LLVMValueRef v = is_store ? LLVMGetOperand(in, 0) : in, ptr = LLVMGetOperand(in, is_store ? 1 : 0);
        LLVMTypeRef vt = LLVMTypeOf(v);
        if (LLVMStoreSizeOfType(S->mod->td, vt) != 8) return unsupported_type(S, vt);
        int host = LLVMGetPointerAddressSpace(LLVMTypeOf(ptr)) == 1;
        if (is_store && host) return fail(S, "a store to host memory (host arrays are written only by send)");
        addr p;
        if (val_addr(S, ptr, &p) < 0) return -1;
        addr p4 = addr_add_const(S, p, 4);
        if (is_store) {
            if (wide_val(S, v, &al, &ah) < 0) return -1;
            emit_st(S, p, al);
            emit_st(S, p4, ah);
            return 0;
        }
        int op = host ? WT_OP_HLD : WT_OP_LD;
        lo = wb_vreg(wb_new_vreg(S->f, 0));
        hi = wb_vreg(wb_new_vreg(S->f, 0));
        emit_ld(S, op, lo, p);
        emit_ld(S, op, hi, p4);
        set_wide(S, in, lo, rb < 64 ? op2(S, WT_OP_AND, hi, wb_imm(hmask, 0)) : hi);
        return 0;
    }
    case LLVMICmp: {
        int ob = wide_bits(LLVMTypeOf(LLVMGetOperand(in, 0)));
        if (wide_val(S, LLVMGetOperand(in, 0), &al, &ah) < 0 || wide_val(S, LLVMGetOperand(in, 1), &bl, &bh) < 0)
            return -1;
        LLVMIntPredicate p = LLVMGetICmpPredicate(in);
        int sgn = p == LLVMIntSGT || p == LLVMIntSGE || p == LLVMIntSLT || p == LLVMIntSLE;
        if (sgn) {
            ah = sext32(S, ah, ob - 32);
            bh = sext32(S, bh, ob - 32);
        }
        wb_opnd r;
        switch (p) {
        case LLVMIntEQ: r = op2(S, WT_OP_AND, op2(S, WT_OP_IEQ, al, bl), op2(S, WT_OP_IEQ, ah, bh)); break;
        case LLVMIntNE: r = op2(S, WT_OP_OR, op2(S, WT_OP_INE, al, bl), op2(S, WT_OP_INE, ah, bh)); break;
        case LLVMIntSLT: case LLVMIntULT: r = wide_less(S, al, ah, bl, bh, sgn, 0); break;
        case LLVMIntSLE: case LLVMIntULE: r = wide_less(S, al, ah, bl, bh, sgn, 1); break;
        case LLVMIntSGT: case LLVMIntUGT: r = wide_less(S, bl, bh, al, ah, sgn, 0); break;
        default: r = wide_less(S, bl, bh, al, ah, sgn, 1); break;
        }
        set_val(S, in, r);
        return 0;
    }
    case LLVMSelect: {
        wb_opnd c;
        int inv;
        if (cond_val(S, LLVMGetOperand(in, 0), &c, &inv) < 0) return -1;
        if (wide_val(S, LLVMGetOperand(in, 1 + inv), &al, &ah) < 0 ||
            wide_val(S, LLVMGetOperand(in, 2 - inv), &bl, &bh) < 0)
            return -1;
        lo = wb_vreg(wb_new_vreg(S->f, 0));
        hi = wb_vreg(wb_new_vreg(S->f, 0));
        emit(S, WT_OP_SEL, lo, c, al, bl);
        emit(S, WT_OP_SEL, hi, c, ah, bh);
        set_wide(S, in, lo, hi);
        return 0;
    }
    default:
        return unsupported_type(S, rb ? rt : LLVMTypeOf(LLVMGetOperand(in, 0)));
    }
}

/* Does the instruction make or take an i33..i64 value? */
static int involves_wide(LLVMValueRef in)
{
    if (wide_bits(LLVMTypeOf(in))) return 1;
    if (LLVMIsACallInst(in)) return 0;
    int n = LLVMGetNumOperands(in);
    for (int i = 0; i < n && i < 3; i++)
        if (wide_bits(LLVMTypeOf(LLVMGetOperand(in, (unsigned)i)))) return 1;
    return 0;
}

static int sel_inst(isel *S, LLVMValueRef in, LLVMBasicBlockRef bb)
{
    LLVMOpcode opc = LLVMGetInstructionOpcode(in);
    S->inst = in;
    S->line = LLVMGetDebugLocLine(in);
    S->col = LLVMGetDebugLocColumn(in);
    int vec = (opc == LLVMLoad && vector_of_words(in)) ||
              (opc == LLVMExtractElement && LLVMIsALoadInst(LLVMGetOperand(in, 0)) &&
               vector_of_words(LLVMGetOperand(in, 0)));
    if (!vec && opc != LLVMPHI && opc != LLVMBr && opc != LLVMSwitch && involves_wide(in)) return sel_wide(S, in, opc);
    switch (opc) {
    case LLVMRet:
        if (LLVMGetNumOperands(in) != 0) return fail(S, "functions returning a value are not supported");
        set_term(S, WT_OP_RET, none(), -1);
        return 0;
    case LLVMBr: return sel_br(S, in, bb);
    case LLVMSwitch: return sel_switch(S, in, bb);
    case LLVMUnreachable:
        set_term(S, WT_OP_HALT, none(), -1);
        return 0;
    case LLVMPHI: return 0;   /* its register was made up front; copies come on the edges */
    case LLVMFNeg: {
        wb_opnd a;
        if (!is_float(LLVMTypeOf(in))) return unsupported_type(S, LLVMTypeOf(in));
        if (val(S, LLVMGetOperand(in, 0), &a) < 0) return -1;
        set_val(S, in, op1(S, WT_OP_FNEG, a));
        return 0;
    }
    case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMUDiv: case LLVMSDiv: case LLVMURem:
    case LLVMSRem: case LLVMShl: case LLVMLShr: case LLVMAShr: case LLVMAnd: case LLVMOr:
    case LLVMXor: case LLVMFAdd: case LLVMFSub: case LLVMFMul: case LLVMFDiv:
        return sel_binary(S, in, opc);
    case LLVMAlloca: return sel_alloca(S, in);
    case LLVMLoad: return sel_load(S, in);
    case LLVMExtractElement: {
        LLVMValueRef vec = LLVMGetOperand(in, 0);
        wb_opnd base;
        if (!LLVMIsALoadInst(vec) || !vector_of_words(vec)) return fail(S, "unsupported instruction 'extractelement'");
        if (val(S, vec, &base) < 0) return -1;
        unsigned long long k = LLVMConstIntGetZExtValue(LLVMGetOperand(in, 1));
        if (k >= LLVMGetVectorSize(LLVMTypeOf(vec))) return fail(S, "an extractelement past the end of its vector");
        set_val(S, in, wb_vreg((int)base.v + (int)k));
        return 0;
    }
    case LLVMStore: return sel_store(S, in);
    case LLVMGetElementPtr: return sel_gep(S, in);
    case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMFPToUI: case LLVMFPToSI:
    case LLVMUIToFP: case LLVMSIToFP: case LLVMPtrToInt: case LLVMIntToPtr: case LLVMBitCast:
    case LLVMAddrSpaceCast:
        return sel_cast(S, in, opc);
    case LLVMFreeze: return alias_value(S, in, LLVMGetOperand(in, 0));
    case LLVMICmp: case LLVMFCmp: {
        if (cmp_deferrable(in)) {
            info(S, in, 1)->deferred = 1;
            return 0;
        }
        wb_opnd r;
        int inv;
        if (sel_cmp(S, in, &r, &inv) < 0) return -1;
        set_val(S, in, inv ? logical_not(S, r) : r);
        return 0;
    }
    case LLVMSelect: return sel_select(S, in);
    case LLVMCall: return sel_call(S, in);
    default: return fail(S, "unsupported instruction '%s'", opcode_name(opc));
    }
}

/* ---- Driver --------------------------------------------------------------------------------- */

/* Reverse post-order of the reachable blocks, first successors first, so that a
 * loop body follows its header and uses follow definitions. */
static int rpo(LLVMValueRef fn, LLVMBasicBlockRef **out)
{
    int n = (int)LLVMCountBasicBlocks(fn), ne = 0;
    LLVMBasicBlockRef *all = ws_xcalloc((size_t)n, sizeof *all);
    LLVMGetBasicBlocks(fn, all);
    wb_ptrmap index = {0};
    for (int i = 0; i < n; i++) wb_ptrmap_put(&index, LLVMBasicBlockAsValue(all[i]), i);
    for (int i = 0; i < n; i++) ne += (int)LLVMGetNumSuccessors(LLVMGetBasicBlockTerminator(all[i]));
    int *from = ws_xcalloc((size_t)ne + 1, sizeof *from), *to = ws_xcalloc((size_t)ne + 1, sizeof *to), *order;
    ne = 0;
    for (int i = 0; i < n; i++) {
        LLVMValueRef term = LLVMGetBasicBlockTerminator(all[i]);
        for (unsigned k = 0; k < LLVMGetNumSuccessors(term); k++) {
            from[ne] = i;
            to[ne++] = wb_ptrmap_get(&index, LLVMBasicBlockAsValue(LLVMGetSuccessor(term, k)));
        }
    }
    ws_graph cfg = ws_graph_new(n, from, to, ne);
    order = ws_xcalloc((size_t)n + 1, sizeof *order);
    int np = ws_graph_rpo(&cfg, 0, order);
    LLVMBasicBlockRef *blocks = ws_xcalloc((size_t)np + 1, sizeof *blocks);
    for (int i = 0; i < np; i++) blocks[i] = all[order[i]];
    ws_graph_free(&cfg);
    wb_ptrmap_free(&index);
    free(all);
    free(from);
    free(to);
    free(order);
    *out = blocks;
    return np;
}

int wb_isel(wb_module *mod, LLVMValueRef fn, wb_func *f)
{
    isel S = {.mod = mod, .f = f, .fn = fn, .fname = f->name};
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        if (!LLVMGetBasicBlockTerminator(bb)) return fail(&S, "a block without a terminator");
    LLVMBasicBlockRef *order;
    int n = rpo(fn, &order);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        wb_ptrmap_put(&S.bbmap, LLVMBasicBlockAsValue(order[i]), wb_new_block(f));
        for (LLVMValueRef in = LLVMGetFirstInstruction(order[i]); in && LLVMIsAPHINode(in);
             in = LLVMGetNextInstruction(in)) {
            S.inst = in;
            if (wide_bits(LLVMTypeOf(in))) {
                /* A wide induction variable of a closed form: a register pair. */
                set_wide(&S, in, wb_vreg(wb_new_vreg(f, 0)), wb_vreg(wb_new_vreg(f, 0)));
                continue;
            }
            if (!type_bits(LLVMTypeOf(in))) {
                rc = unsupported_type(&S, LLVMTypeOf(in));
                goto done;
            }
            set_val(&S, in, wb_vreg(wb_new_vreg(f, 0)));
        }
    }
    for (int i = 0; i < n && rc == 0; i++) {
        S.cur = bb_entry(&S, order[i]);
        wb_place_block(f, S.cur);
        int made = f->nblocks, divergent = wb_block_divergent(mod, order[i]);
        for (LLVMValueRef in = LLVMGetFirstInstruction(order[i]); in && rc == 0; in = LLVMGetNextInstruction(in))
            rc = sel_inst(&S, in, order[i]);
        f->blocks[bb_entry(&S, order[i])]->divergent = divergent;
        for (int id = made; id < f->nblocks; id++) f->blocks[id]->divergent = divergent;
    }
done:
    free(order);
    free(S.vals);
    free(S.scaled);
    wb_ptrmap_free(&S.vmap);
    wb_ptrmap_free(&S.bbmap);
    wb_ptrmap_free(&S.objmap);
    return rc;
}
