/* Call nesting against the hardware return stack.
 *
 * `call` pushes its return address on a return stack of ret_stack_depth entries
 * (target/), and crt0's call of main takes the first. W2 forbids recursion, so the
 * deepest nesting a program can reach is known before it runs: the height of main
 * in the call graph, counting main and a leaf as one call each. A W2 program may
 * nest its functions as deep as it likes, so when that height is more than the
 * stack holds, the functions nearest the leaves (every one whose height is at most
 * the excess) are inlined into their callers with LLVM's always-inline pass, which
 * lowers every chain by the excess. Inlining copies a function at each call site,
 * so a deep call graph that calls each level several times could grow without
 * bound, and a very long chain costs the inliner time quadratic in its length;
 * both are counted first, and such a program is refused with a message.
 */
#include "mir.h"

#include <llvm-c/Transforms/PassBuilder.h>
#include <stdlib.h>
#include <string.h>

/* IR instructions the inliner may copy, plus those of the inlined program: far
 * more than any program memory holds (65536 bundles), so only a runaway
 * expansion is refused (a chain of about 600 functions with a few statements
 * each still inlines, in a few seconds). */
enum { INLINE_BUDGET = 1 << 20 };

typedef struct cgraph {
    int n;
    LLVMValueRef *fn;
    int **callees;     /* per function, the callee indices of its call sites */
    int *ncallees;
    int *size;         /* instructions */
    int *height;       /* 0 while unknown */
    char *state;       /* 0 unvisited, 1 on the DFS path, 2 done */
    int *post, npost;  /* the functions, each after the functions it calls */
    wb_ptrmap index;
} cgraph;

static void cg_free(cgraph *g)
{
    for (int i = 0; i < g->n; i++) free(g->callees[i]);
    free(g->fn);
    free(g->callees);
    free(g->ncallees);
    free(g->size);
    free(g->height);
    free(g->state);
    free(g->post);
    wb_ptrmap_free(&g->index);
}

static void cg_build(cgraph *g, LLVMModuleRef m)
{
    memset(g, 0, sizeof *g);
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
        if (!LLVMIsDeclaration(fn)) g->n++;
    g->fn = ws_xcalloc((size_t)g->n + 1, sizeof *g->fn);
    g->callees = ws_xcalloc((size_t)g->n + 1, sizeof *g->callees);
    g->ncallees = ws_xcalloc((size_t)g->n + 1, sizeof *g->ncallees);
    g->size = ws_xcalloc((size_t)g->n + 1, sizeof *g->size);
    g->height = ws_xcalloc((size_t)g->n + 1, sizeof *g->height);
    g->state = ws_xcalloc((size_t)g->n + 1, 1);
    g->post = ws_xcalloc((size_t)g->n + 1, sizeof *g->post);
    int k = 0;
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
        if (!LLVMIsDeclaration(fn)) {
            wb_ptrmap_put(&g->index, fn, k);
            g->fn[k++] = fn;
        }
    for (int i = 0; i < g->n; i++) {
        int cap = 0;
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->fn[i]); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
                g->size[i]++;
                if (!LLVMIsACallInst(in)) continue;
                int callee = wb_ptrmap_get(&g->index, LLVMGetCalledValue(in));
                if (callee < 0) continue;
                if (g->ncallees[i] == cap) {
                    cap = cap ? 2 * cap : 8;
                    g->callees[i] = ws_xrealloc(g->callees[i], sizeof *g->callees[i] * (size_t)cap);
                }
                g->callees[i][g->ncallees[i]++] = callee;
            }
    }
}

/* Heights of all functions (1 for a leaf), each after its callees: an explicit
 * stack rather than recursion, as a program may chain many thousands of
 * functions. -1 and an error if a call leads back to a function on the path. */
static int cg_heights(wb_module *mod, cgraph *g)
{
    int *stack = ws_xcalloc((size_t)g->n + 1, sizeof *stack);
    int *next = ws_xcalloc((size_t)g->n + 1, sizeof *next);   /* callee to look at next */
    int rc = 0;
    for (int root = 0; root < g->n && rc == 0; root++) {
        if (g->state[root]) continue;
        int sp = 0;
        stack[sp++] = root;
        g->state[root] = 1;
        next[root] = 0;
        while (sp > 0) {
            int i = stack[sp - 1];
            if (next[i] < g->ncallees[i]) {
                int c = g->callees[i][next[i]++];
                if (g->state[c] == 1) {
                    size_t len;
                    rc = wb_error(mod, "function '%s' is recursive: its calls cannot nest on the return stack",
                                  LLVMGetValueName2(g->fn[c], &len));
                    break;
                }
                if (g->state[c] == 0) {
                    g->state[c] = 1;
                    next[c] = 0;
                    stack[sp++] = c;
                }
                continue;
            }
            int h = 0;
            for (int k = 0; k < g->ncallees[i]; k++)
                if (g->height[g->callees[i][k]] > h) h = g->height[g->callees[i][k]];
            g->height[i] = h + 1;
            g->state[i] = 2;
            g->post[g->npost++] = i;
            sp--;
        }
    }
    free(stack);
    free(next);
    return rc;
}

/* Instructions of each function once the functions marked in `inl` are inlined
 * into it, capped just above the budget; callees come first in g->post. Returns
 * the instructions the inliner copies on the way: it inlines bottom-up, so a
 * chain of k inlined levels copies about k^2 / 2 functions' worth, capped too. */
static long cg_inlined_sizes(const cgraph *g, const char *inl, long *size)
{
    long copied = 0;
    for (int k = 0; k < g->npost; k++) {
        int i = g->post[k];
        long s = g->size[i];
        for (int c = 0; c < g->ncallees[i] && s <= INLINE_BUDGET; c++)
            if (inl[g->callees[i][c]]) {
                s += size[g->callees[i][c]];
                if (copied <= INLINE_BUDGET) copied += size[g->callees[i][c]];
            }
        size[i] = s > INLINE_BUDGET ? INLINE_BUDGET + 1 : s;
    }
    return copied;
}

/* main's call that starts a chain `need` calls deep (main counts as one), where the
 * message about the nesting points; NULL if there is none. */
static LLVMValueRef deepest_call(const cgraph *g, int entry, int need)
{
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->fn[entry]); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            if (!LLVMIsACallInst(in)) continue;
            int callee = wb_ptrmap_get(&g->index, LLVMGetCalledValue(in));
            if (callee >= 0 && g->height[callee] == need - 1) return in;
        }
    return NULL;
}

int wb_limit_call_depth(wb_module *mod, const wt_model *model)
{
    LLVMValueRef main_fn = LLVMGetNamedFunction(mod->m, "main");
    cgraph g;
    cg_build(&g, mod->m);
    int rc = cg_heights(mod, &g), entry = wb_ptrmap_get(&g.index, main_fn);
    int need = entry < 0 ? 0 : g.height[entry];
    int room = (int)model->ret_stack_depth;
    if (rc == 0 && need > room) {
        int excess = need - room;
        char *inl = ws_xcalloc((size_t)g.n + 1, 1);
        long *size = ws_xcalloc((size_t)g.n + 1, sizeof *size);
        for (int i = 0; i < g.n; i++) inl[i] = i != entry && g.height[i] <= excess;
        long total = cg_inlined_sizes(&g, inl, size);
        for (int i = 0; i < g.n && total <= INLINE_BUDGET; i++)
            if (!inl[i]) total += size[i];
        if (total > INLINE_BUDGET) {
            LLVMValueRef call = deepest_call(&g, entry, need);
            rc = wb_error_at(mod, call ? LLVMGetDebugLocLine(call) : 0, call ? LLVMGetDebugLocColumn(call) : 0,
                             "calls nest %d deep, more than the %d the return stack holds, and inlining the "
                             "innermost %d levels would make the program too large",
                             need, room, excess);
        } else {
            unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
            unsigned never = LLVMGetEnumAttributeKindForName("noinline", 8);
            LLVMAttributeRef attr = LLVMCreateEnumAttribute(LLVMGetModuleContext(mod->m), always, 0);
            for (int i = 0; i < g.n; i++)
                if (inl[i]) {
                    LLVMRemoveEnumAttributeAtIndex(g.fn[i], LLVMAttributeFunctionIndex, never);
                    LLVMAddAttributeAtIndex(g.fn[i], LLVMAttributeFunctionIndex, attr);
                }
            LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
            LLVMErrorRef e = LLVMRunPasses(mod->m, "always-inline", NULL, o);
            LLVMDisposePassBuilderOptions(o);
            if (e) {
                char *text = LLVMGetErrorMessage(e);
                rc = wb_error(mod, "inlining calls nested deeper than the return stack failed: %s", text);
                LLVMDisposeErrorMessage(text);
            }
        }
        free(inl);
        free(size);
    }
    cg_free(&g);
    return rc;
}
