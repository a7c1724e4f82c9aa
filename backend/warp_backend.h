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

typedef struct wb_options {
    const wt_model *model;  /* -mcpu */
    int opt_level;          /* 0..3 */
    int debug_info;         /* -g: emit .loc and keep variables findable */
    int no_swp;             /* -fno-swp: no software pipelining */
    int no_flow_control;    /* -fno-flow-control: on Warp, leave the cells' timing to the
                               queues at run time (no `.flowctl`, skew 0) */
    ws_buf *swp_report;     /* if set, one line per innermost loop (-Rpass=swp):
                               "FILE:LINE: II=n MII=m (ResMII=r, RecMII=c) stages=s"
                               or "FILE:LINE: not pipelined: why" */
} wb_options;

/* Runs LLVM's default<O1..3> pipeline (nothing at O0). 0 on success; else -1 and
 * a message in err. */
int wb_optimize(LLVMModuleRef m, int opt_level, char *err, size_t errlen);

/* Appends the module's assembly to out. 0 on success; else -1 and a message in err
 * naming the function and the construct it could not handle. */
int wb_emit_assembly(LLVMModuleRef m, const wb_options *opts, ws_buf *out,
                     char *err, size_t errlen);

#endif
