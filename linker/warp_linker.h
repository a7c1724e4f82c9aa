/* The linker: ELF relocatable objects to a cell image (docs/design.md, section 4):
 * lays out program, data and host memory, resolves symbols and relocations, merges
 * .warp.* sections, and writes an ET_EXEC image with libelf.
 *
 * .warp.lines holds records of four little-endian 32-bit words, sorted by address:
 *   program byte address, source line, source column, index into .warp.files
 * .warp.files holds the source file names, each NUL-terminated, index 0 first. */
#ifndef WARP_LINKER_H
#define WARP_LINKER_H

#include <stddef.h>

typedef struct wld_options {
    const char *entry;      /* entry symbol, "_start" by default */
} wld_options;

/* Links the objects and writes the image to out_path atomically. Returns 0, or -1
 * after printing "warp-ld: FILE: what is wrong" (nothing is written). */
int wld_link(const char *const *inputs, size_t ninputs, const char *out_path,
             const wld_options *opts);

#endif
