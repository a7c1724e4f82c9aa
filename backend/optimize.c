/* LLVM's own optimisation: the default<O1..3> pipelines, with the vectorizers off
 * (the cells have no vector units) and loop unrolling off (software pipelining
 * wants loops rolled). */
#include "warp_backend.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Error.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A communication call names its queue with a constant, which selects the gate.
 * SimplifyCFG would merge `send(2, a)` and `send(3, b)` of the two arms of an if
 * into one call with a phi for the queue; `nomerge` keeps the calls apart. */
static void keep_queues_constant(LLVMModuleRef m)
{
    static const char *const prefixes[] = {"w2.recv.", "w2.send.", "w2.host.feed.", "w2.host.dest"};
    unsigned kind = LLVMGetEnumAttributeKindForName("nomerge", 7);
    LLVMAttributeRef nomerge = LLVMCreateEnumAttribute(LLVMGetModuleContext(m), kind, 0);
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
        size_t n;
        const char *name = LLVMGetValueName2(fn, &n);
        for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
            if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
                LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, nomerge);
    }
}

/* The cells have no vector registers. LLVM 19's PassBuilder re-enables the SLP and
 * loop vectorizers for a "default<O2>" or "default<O3>" pipeline whatever the
 * PassBuilderOptions say (it sets them from the level while parsing the alias), and
 * without a TargetMachine the default cost model offers 128-bit vectors: four
 * adjacent loads summed became `load <4 x i32>` and `vector.reduce.add`, which
 * instruction selection cannot take. Both vectorizers skip a function marked
 * `noimplicitfloat`, so every function is. */
static void forbid_vectors(LLVMModuleRef m)
{
    unsigned kind = LLVMGetEnumAttributeKindForName("noimplicitfloat", 15);
    LLVMAttributeRef attr = LLVMCreateEnumAttribute(LLVMGetModuleContext(m), kind, 0);
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
        if (!LLVMIsDeclaration(fn)) LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, attr);
}

/* LLVM's inliner copies a small function into every call site, however many there
 * are, and its loop passes then cost more than linear time in the copies (500
 * calls of a function with two loops: a thousand loops in one function). A
 * function whose copies would together pass the budget stays out of line: its
 * calls stay calls, and compile time stays linear in the source (docs/design.md,
 * section 3). The budget is an LLVM instruction, before optimisation, for each
 * bundle of program memory: copies past it would not fit (500 calls of that
 * function inlined need 33,003 bundles on Warp, which holds 8,192), while a
 * program that fits inlines what it did. */
uint64_t wb_inline_budget(const wt_model *model) { return model->prog_mem_bundles; }

static void bound_inlining(LLVMModuleRef m, uint64_t budget)
{
    unsigned kind = LLVMGetEnumAttributeKindForName("noinline", 8);
    LLVMAttributeRef noinline = LLVMCreateEnumAttribute(LLVMGetModuleContext(m), kind, 0);
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
        if (LLVMIsDeclaration(fn)) continue;
        uint64_t size = 0, sites = 0;
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) size++;
        for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) sites++;
        if (sites > 1 && size * sites > budget)
            LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, noinline);
    }
}

int wb_optimize(LLVMModuleRef m, const wt_model *model, int opt_level, ws_diagnostic *err)
{
    *err = (ws_diagnostic){.severity = WS_ERROR};
    char *msg = NULL;
    if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
        snprintf(err->message, sizeof err->message, "invalid LLVM module: %s", msg ? msg : "(no message)");
        LLVMDisposeMessage(msg);
        return -1;
    }
    LLVMDisposeMessage(msg);
    if (opt_level < 0 || opt_level > 3) {
        snprintf(err->message, sizeof err->message, "no optimisation level %d (0 to 3)", opt_level);
        return -1;
    }
    if (opt_level == 0) return 0;
    keep_queues_constant(m);
    forbid_vectors(m);
    bound_inlining(m, wb_inline_budget(model));
    char pipeline[96];
    /* SROA may still turn a group of scalars into a vector; the cells have none,
     * so vector arithmetic is split back into scalars (LLVM 19's scalarizer leaves
     * vector loads and stores whole, hence forbid_vectors). A plain "instcombine"
     * in a pipeline string also checks that one round reached a fixpoint and
     * aborts the compiler when it did not (LLVM ERROR on a valid program):
     * another round is only a missed simplification. */
    snprintf(pipeline, sizeof pipeline, "default<O%d>,function(scalarizer,instcombine<no-verify-fixpoint>,dce)", opt_level);
    LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
    LLVMPassBuilderOptionsSetLoopVectorization(o, 0);
    LLVMPassBuilderOptionsSetSLPVectorization(o, 0);
    LLVMPassBuilderOptionsSetLoopUnrolling(o, 0);
    LLVMPassBuilderOptionsSetLoopInterleaving(o, 0);
    LLVMErrorRef e = LLVMRunPasses(m, pipeline, NULL, o);
    LLVMDisposePassBuilderOptions(o);
    if (e) {
        char *text = LLVMGetErrorMessage(e);
        snprintf(err->message, sizeof err->message, "LLVM optimisation failed: %s", text);
        LLVMDisposeErrorMessage(text);
        return -1;
    }
    return 0;
}
