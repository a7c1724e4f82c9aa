/* The W2 frontend: lexer, parser, checks, and lowering of one cell program to an
 * LLVM module through the LLVM-C API (conventions: docs/design.md, section 2). */
#ifndef W2_FRONTEND_H
#define W2_FRONTEND_H

#include <llvm-c/Core.h>
#include <stddef.h>

#include "warp_support.h"

typedef struct w2_options {
    int debug_info;   /* -g: emit LLVM debug information */
    int werror;       /* -Werror */
    int iwarp;        /* -mcpu=iwarp: 2-D cellprograms (the torus) are allowed */
} w2_options;

/* Compiles the W2 source `text` (named `path` in diagnostics) into a new module in
 * `ctx`. Diagnostics go to diag (file:line:col: error: ..., source line, caret).
 * Returns the module, or NULL when any error was reported. */
LLVMModuleRef w2_compile(const char *path, const char *text, size_t len,
                         const w2_options *opts, LLVMContextRef ctx, ws_diag *diag);

#endif
