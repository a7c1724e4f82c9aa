/* The assembler: long-instruction-word assembly text (docs/design.md, section 3)
 * to an ELF relocatable object (section 4), written with libelf. */
#ifndef WARP_ASSEMBLER_H
#define WARP_ASSEMBLER_H

#include <stddef.h>

#include "warp_support.h"
#include "warp_target.h"

typedef struct was_options {
    const wt_model *model;  /* expected model (-mcpu); NULL: take the .model directive,
                               default warp. A .model that disagrees is an error. */
} was_options;

/* Assembles `text` (named path in diagnostics, which go to diag) and writes the
 * object to out_path atomically. Returns 0, or -1 when an error was reported (and
 * then nothing is written). */
int was_assemble(const char *path, const char *text, size_t len, const was_options *opts,
                 const char *out_path, ws_diag *diag);

#endif
