/* The long-instruction-word backend: optimises an LLVM module, selects machine
 * operations, allocates registers, packs bundles under the machine description's
 * units and latencies, folds gate reads and writes into operations, and writes
 * assembly text for warp-as (docs/design.md, sections 2 and 3). */
#ifndef WARP_BACKEND_H
#define WARP_BACKEND_H

#include <llvm-c/Core.h>
#include <stdio.h>

#include "warp_support.h"
#include "warp_target.h"

/* A compile-time bound (docs/design.md, section 3): at -O1 and up, a function
 * whose LLVM instructions times its call sites pass the model's program memory in
 * bundles (iWarp 65,536, Warp 8,192) is not inlined (its calls stay calls): copies
 * past that would not fit, and compile time stays linear in the source. */
uint64_t wb_inline_budget(const wt_model *model);

/* The machine-IR passes, in the order they run (docs/design.md, section 3), for
 * -print-before=NAME, -print-after=NAME and -verify-each. */
typedef enum wb_pass {
    WB_PASS_ISEL, WB_PASS_PHIS, WB_PASS_GATES, WB_PASS_LAYOUT, WB_PASS_COALESCE, WB_PASS_SWP,
    WB_PASS_SPILL_CALLS, WB_PASS_SCHEDULE, WB_PASS_REGALLOC, WB_NPASSES
} wb_pass;
extern const char *const wb_pass_names[WB_NPASSES];
/* The pass of that name, or -1. */
int wb_pass_lookup(const char *name);

/* What the pipeliner did with one innermost loop (-Rpass=swp), for the driver to
 * print as clang prints a remark. */
typedef struct wb_remark {
    char *file;             /* the W2 source the module names, or "?" */
    unsigned line;          /* the loop statement's line (0: unknown) */
    char *message;          /* "II=n MII=m (ResMII=r, RecMII=c) stages=s..." or
                               "not pipelined: why" */
} wb_remark;

typedef struct wb_remarks {
    wb_remark *at;
    size_t n, cap;
} wb_remarks;

/* Frees the remarks and leaves the list empty. */
void wb_remarks_free(wb_remarks *r);

typedef struct wb_options {
    const wt_model *model;  /* -mcpu */
    int opt_level;          /* 0..3 */
    int debug_info;         /* -g: emit .loc and keep variables findable */
    int no_swp;             /* -fno-swp: no software pipelining */
    int iu;                 /* -fiu: on Warp, host loads, host addresses and their sums go to
                               the interface unit (not yet the default: the pipeliner's
                               loops keep them on the cells) */
    int no_flow_control;    /* -fno-flow-control: on Warp, leave the cells' timing to the
                               queues at run time (no `.flowctl`, skew 0) */
    wb_remarks *swp_report; /* if set, gets a remark per innermost loop (-Rpass=swp) */
    unsigned print_before;  /* bit 1 << pass: print the machine IR before the pass runs */
    unsigned print_after;   /* ... and after it (on dump, with a header naming the pass) */
    int verify_each;        /* -verify-each: check the machine IR's invariants after every
                               pass; a fault fails the compilation, naming the pass */
    FILE *dump;             /* where the machine IR is printed; stderr if NULL */
} wb_options;

/* Runs LLVM's default<O1..3> pipeline (nothing at O0), for the model the module will
 * be compiled for (its inlining budget). 0 on success; else -1 and the error in err,
 * about the whole module (line 0) as wb_emit_assembly's are. */
int wb_optimize(LLVMModuleRef m, const wt_model *model, int opt_level, ws_diagnostic *err);

/* Appends the module's assembly to out. 0 on success; else -1 and the error in err:
 * its message names the function and the construct the backend could not handle (or
 * the limit the program passes), and it is located at the W2 line and column of the
 * operation it is about where the module carries them (line 0: the whole program, as
 * a program too large for program memory; data too large for data memory is located
 * at its largest object's declaration). The driver prints it as "backend: MESSAGE"
 * about the file when it has no line. */
int wb_emit_assembly(LLVMModuleRef m, const wb_options *opts, ws_buf *out, ws_diagnostic *err);

#endif
