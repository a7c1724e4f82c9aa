/* Which blocks every cell runs alike (seed 002, 4.2: the IU's loop control).
 *
 * The IU follows the first cell's program counter and writes the address path;
 * every cell reads the path's words in the order they were written. A loop whose
 * passes the IU counts writes a word a pass and its cells read one: so the path
 * stays in step on every cell exactly when every cell runs each such loop as
 * often, and in the same order among them, as the first cell does. That holds for
 * a block whose executions no cell-dependent value decides: one not control
 * dependent, directly or through other such blocks, on a branch on a received
 * word, the cell's number or memory, in a function no such block calls. A block
 * that is (a "divergent" block) may run on the first cell and not on another, or
 * a different number of times: the IU may not count a loop there. Elsewhere the
 * cells may still go different ways: their divergent regions read no path word
 * (the only words on the path are the counted loops'), so the words the first
 * cell's counted loops wrote reach every other cell's counted loops in order.
 *
 * Values: a received word, `cid`, a load (memory may hold either) and a value
 * chosen at the join of a divergent branch (a phi with an incoming edge from a
 * divergent block, or from a block whose branch is divergent) are cell-dependent,
 * and so is anything computed from one. The analysis starts from "every value the
 * same" and marks values and blocks divergent until nothing changes, so a counter
 * stepped from a constant in a loop stays uniform. */
#include "mir.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct cfg {
    LLVMValueRef fn;
    int n, words;               /* blocks; 64-bit words of a block set */
    LLVMBasicBlockRef *bb;      /* by index */
    int **succ;                 /* per block: successor indices, -1 ended */
    uint64_t *cd;               /* per block: the blocks control dependent on its branch */
} cfg;

static int has(const uint64_t *set, int i) { return (int)((set[i / 64] >> (i % 64)) & 1); }
static void add(uint64_t *set, int i) { set[i / 64] |= 1ull << (i % 64); }

static int block_index(const cfg *g, LLVMBasicBlockRef bb)
{
    for (int i = 0; i < g->n; i++)
        if (g->bb[i] == bb) return i;
    return -1;
}

/* Control dependence from post-dominators: Y depends on X's branch when Y
 * post-dominates a successor of X but not X strictly (Ferrante, Ottenstein and
 * Warren). The post-dominators are found by iteration over sets, with one virtual
 * exit after every block that leaves the function. */
static void build_cfg(cfg *g, LLVMValueRef fn)
{
    g->fn = fn;
    g->n = (int)LLVMCountBasicBlocks(fn);
    g->bb = ws_xcalloc((size_t)g->n + 1, sizeof *g->bb);
    LLVMGetBasicBlocks(fn, g->bb);
    int n = g->n, all = n + 1;
    g->words = (all + 63) / 64;
    g->succ = ws_xcalloc((size_t)n + 1, sizeof *g->succ);
    for (int i = 0; i < n; i++) {
        LLVMValueRef t = LLVMGetBasicBlockTerminator(g->bb[i]);
        unsigned ns = t ? LLVMGetNumSuccessors(t) : 0;
        g->succ[i] = ws_xcalloc((size_t)ns + 2, sizeof **g->succ);
        int k = 0;
        for (unsigned s = 0; s < ns; s++) g->succ[i][k++] = block_index(g, LLVMGetSuccessor(t, s));
        if (ns == 0) g->succ[i][k++] = n;   /* the virtual exit */
        g->succ[i][k] = -1;
    }
    size_t W = (size_t)g->words;
    uint64_t *pdom = ws_xcalloc((size_t)all * W, sizeof *pdom), *tmp = ws_xcalloc(W, sizeof *tmp);
    for (int i = 0; i < n; i++) memset(pdom + (size_t)i * W, 0xff, W * sizeof *pdom);
    add(pdom + (size_t)n * W, n);
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = n - 1; i >= 0; i--) {
            memset(tmp, 0xff, W * sizeof *tmp);
            for (int k = 0; g->succ[i][k] >= 0; k++)
                for (size_t w = 0; w < W; w++) tmp[w] &= pdom[(size_t)g->succ[i][k] * W + w];
            add(tmp, i);
            if (memcmp(tmp, pdom + (size_t)i * W, W * sizeof *tmp) != 0) {
                memcpy(pdom + (size_t)i * W, tmp, W * sizeof *tmp);
                changed = 1;
            }
        }
    }
    g->cd = ws_xcalloc((size_t)n * W + 1, sizeof *g->cd);
    for (int x = 0; x < n; x++) {
        if (g->succ[x][1] < 0) continue;   /* one successor: no choice */
        uint64_t *cd = g->cd + (size_t)x * W;
        const uint64_t *px = pdom + (size_t)x * W;
        for (int k = 0; g->succ[x][k] >= 0; k++) {
            const uint64_t *ps = pdom + (size_t)g->succ[x][k] * W;
            for (int y = 0; y < n; y++)
                if (has(ps, y) && (y == x || !has(px, y))) add(cd, y);
        }
    }
    free(tmp);
    free(pdom);
}

static void free_cfg(cfg *g)
{
    for (int i = 0; i < g->n; i++) free(g->succ[i]);
    free(g->succ);
    free(g->bb);
    free(g->cd);
}

static const char *callee_name(LLVMValueRef call)
{
    LLVMValueRef callee = LLVMGetCalledValue(call);
    size_t n;
    return callee && LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &n) : NULL;
}

typedef struct state {
    wb_ptrmap *div;        /* values, blocks and functions found divergent */
    int changed;
} state;

static int is_div(const state *s, LLVMValueRef v) { return wb_ptrmap_get(s->div, v) >= 0; }

static void mark(state *s, LLVMValueRef v)
{
    if (is_div(s, v)) return;
    wb_ptrmap_put(s->div, v, 1);
    s->changed = 1;
}

static int block_div(const state *s, LLVMBasicBlockRef bb) { return is_div(s, LLVMBasicBlockAsValue(bb)); }

/* Is the branch ending bb decided differently on different cells? */
static int branch_div(const state *s, LLVMBasicBlockRef bb)
{
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    if (!t) return 0;
    if (LLVMIsASwitchInst(t) || (LLVMIsABranchInst(t) && LLVMIsConditional(t)))
        return is_div(s, LLVMGetOperand(t, 0));
    return LLVMGetNumSuccessors(t) > 1;   /* anything else that chooses: take it as divergent */
}

static int value_div(const state *s, LLVMValueRef in)
{
    LLVMOpcode op = LLVMGetInstructionOpcode(in);
    if (op == LLVMLoad || op == LLVMAlloca) return 1;
    if (op == LLVMCall) {
        const char *name = callee_name(in);
        if (!name) return 1;
        if (strncmp(name, "w2.recv.", 8) == 0 || strcmp(name, "w2.cellid") == 0) return 1;
        /* the W2 functions return nothing; the rest are pure functions of their operands */
        if (strncmp(name, "llvm.", 5) != 0 && strncmp(name, "w2.", 3) != 0 &&
            LLVMGetTypeKind(LLVMTypeOf(in)) != LLVMVoidTypeKind)
            return 1;
    }
    if (op == LLVMPHI)
        for (unsigned k = 0; k < LLVMCountIncoming(in); k++) {
            LLVMBasicBlockRef from = LLVMGetIncomingBlock(in, k);
            if (block_div(s, from) || branch_div(s, from)) return 1;
        }
    int n = LLVMGetNumOperands(in);
    for (int i = 0; i < n; i++) {
        LLVMValueRef o = LLVMGetOperand(in, (unsigned)i);
        if (o && LLVMIsAInstruction(o) && is_div(s, o)) return 1;
    }
    return 0;
}

static void pass(state *s, const cfg *g)
{
    int fdiv = is_div(s, g->fn);
    for (int i = 0; i < g->n; i++) {
        LLVMBasicBlockRef bb = g->bb[i];
        if (fdiv) mark(s, LLVMBasicBlockAsValue(bb));
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            if (LLVMGetTypeKind(LLVMTypeOf(in)) != LLVMVoidTypeKind && !is_div(s, in) && value_div(s, in))
                mark(s, in);
            if (!LLVMIsACallInst(in) || !block_div(s, bb)) continue;
            LLVMValueRef callee = LLVMGetCalledValue(in);
            if (callee && LLVMIsAFunction(callee) && !LLVMIsDeclaration(callee)) mark(s, callee);
        }
        if (block_div(s, bb) || branch_div(s, bb)) {
            const uint64_t *cd = g->cd + (size_t)i * (size_t)g->words;
            for (int y = 0; y < g->n; y++)
                if (has(cd, y)) mark(s, LLVMBasicBlockAsValue(g->bb[y]));
        }
    }
}

void wb_find_divergent_blocks(wb_module *mod)
{
    int nf = 0;
    for (LLVMValueRef fn = LLVMGetFirstFunction(mod->m); fn; fn = LLVMGetNextFunction(fn))
        nf += !LLVMIsDeclaration(fn);
    cfg *g = ws_xcalloc((size_t)nf + 1, sizeof *g);
    nf = 0;
    for (LLVMValueRef fn = LLVMGetFirstFunction(mod->m); fn; fn = LLVMGetNextFunction(fn))
        if (!LLVMIsDeclaration(fn)) build_cfg(&g[nf++], fn);
    state s = {&mod->divergent, 1};
    while (s.changed) {
        s.changed = 0;
        for (int i = 0; i < nf; i++) pass(&s, &g[i]);
    }
    for (int i = 0; i < nf; i++) free_cfg(&g[i]);
    free(g);
}

int wb_block_divergent(const wb_module *mod, LLVMBasicBlockRef bb)
{
    return wb_ptrmap_get(&mod->divergent, LLVMBasicBlockAsValue(bb)) >= 0;
}
