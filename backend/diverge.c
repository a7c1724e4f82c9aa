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
    int n;                      /* blocks */
    LLVMBasicBlockRef *bb;      /* by index */
    ws_graph cd;                /* block -> the blocks control dependent on its branch */
} cfg;

/* Control dependence from the post-dominator tree: Y depends on X's branch when Y
 * post-dominates a successor S of X but not X strictly (Ferrante, Ottenstein and
 * Warren), which are the nodes from S up the tree to X's immediate post-dominator,
 * that one excluded (Cytron et al.). One virtual exit follows every block that
 * leaves the function. A block that reaches no exit has no post-dominator: the
 * walk from it stops at once, so it depends on the branch that led to it. The
 * work is the length of those walks, not blocks times blocks: 100,000 ifs at -O0
 * asked dense post-dominator sets for 11 GB. */
static void build_cfg(cfg *g, LLVMValueRef fn)
{
    g->fn = fn;
    int n = g->n = (int)LLVMCountBasicBlocks(fn);
    g->bb = ws_xcalloc((size_t)n + 1, sizeof *g->bb);
    LLVMGetBasicBlocks(fn, g->bb);
    wb_ptrmap index = {0};
    for (int i = 0; i < n; i++) wb_ptrmap_put(&index, g->bb[i], i);
    int m = 0, cap = 16;
    int *from = ws_xcalloc((size_t)cap, sizeof *from), *to = ws_xcalloc((size_t)cap, sizeof *to);
    for (int i = 0; i < n; i++) {
        LLVMValueRef t = LLVMGetBasicBlockTerminator(g->bb[i]);
        unsigned ns = t ? LLVMGetNumSuccessors(t) : 0;
        for (unsigned k = 0; k < ns || (ns == 0 && k == 0); k++) {
            if (m == cap) {
                cap *= 2;
                from = ws_xrealloc(from, (size_t)cap * sizeof *from);
                to = ws_xrealloc(to, (size_t)cap * sizeof *to);
            }
            from[m] = i;
            to[m++] = ns ? wb_ptrmap_get(&index, LLVMGetSuccessor(t, k)) : n;   /* n: the virtual exit */
        }
    }
    wb_ptrmap_free(&index);
    ws_graph succ = ws_graph_new(n + 1, from, to, m), preds = ws_graph_reverse(&succ);
    int *ipdom = ws_xcalloc((size_t)n + 2, sizeof *ipdom);
    ws_graph_idom(&preds, n, ipdom);
    int dm = 0;
    for (int x = 0; x < n; x++) {
        if (succ.at[x + 1] - succ.at[x] < 2) continue;   /* one successor: no choice */
        for (int k = succ.at[x]; k < succ.at[x + 1]; k++)
            for (int y = succ.to[k]; y >= 0 && y != n && y != ipdom[x]; y = ipdom[y] == y ? -1 : ipdom[y]) {
                if (dm == cap) {
                    cap *= 2;
                    from = ws_xrealloc(from, (size_t)cap * sizeof *from);
                    to = ws_xrealloc(to, (size_t)cap * sizeof *to);
                }
                from[dm] = x;
                to[dm++] = y;
            }
    }
    g->cd = ws_graph_new(n, from, to, dm);
    free(ipdom);
    ws_graph_free(&succ);
    ws_graph_free(&preds);
    free(from);
    free(to);
}

static void free_cfg(cfg *g)
{
    ws_graph_free(&g->cd);
    free(g->bb);
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
        if (block_div(s, bb) || branch_div(s, bb))
            for (int k = g->cd.at[i]; k < g->cd.at[i + 1]; k++) mark(s, LLVMBasicBlockAsValue(g->bb[g->cd.to[k]]));
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
