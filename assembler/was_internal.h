/* What the assembler's parser hands to its object writer: the contents of every
 * section of docs/design.md, section 4, before they become ELF. */
#ifndef WAS_INTERNAL_H
#define WAS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "warp_support.h"
#include "warp_target.h"

/* The sections a symbol can be defined in, in their object section order. The
 * debug sections (`.section .debug_*`) follow as WAS_SEC_EXTRA + k, k their index
 * in was_unit.extra. */
typedef enum was_sec { WAS_SEC_UNDEF, WAS_SEC_TEXT, WAS_SEC_DATA, WAS_SEC_BSS, WAS_SEC_HOST, WAS_SEC_EXTRA } was_sec;

typedef struct was_sym {
    char *name;
    was_sec sec;            /* WAS_SEC_UNDEF until defined */
    uint32_t value;         /* byte offset in its section */
    uint32_t size;
    int type;               /* STT_NOTYPE, STT_FUNC, STT_OBJECT */
    int global;             /* .globl, .host, or referenced but never defined */
    int referenced;
    int def_line, def_col;  /* where defined, for "previous definition" notes */
    int ref_line, ref_col;  /* first reference, for "undefined" errors */
    uint32_t elf_index;     /* set by the object writer */
} was_sym;

typedef struct was_reloc {
    uint32_t offset;        /* bundle offset in .text, word offset in .data */
    uint32_t type;          /* WT_R_* */
    was_sym *sym;
    int32_t addend;
    int line, col;          /* the reference, for diagnostics after the last line */
} was_reloc;

typedef struct was_relocs { was_reloc *v; size_t n, cap; } was_relocs;

/* A non-allocated section of data directives: DWARF (docs/design.md, section 5).
 * The assembler appends the line program it makes from `.loc` to .debug_line. */
typedef struct was_extra {
    char *name;
    ws_buf data;
    was_relocs rel;         /* R_WARP_ABS32 only */
} was_extra;

typedef struct was_unit {
    uint32_t e_flags;
    ws_buf text, data;
    uint32_t bss_size, host_size;
    uint32_t data_align, bss_align;
    ws_buf warp_host, warp_cells, warp_lines, warp_files;
    ws_buf warp_gates;      /* `.gateloc` records: bundle, line, column, file | queue << 16 | send << 24 */
    was_relocs rtext, rdata;
    /* The interface unit's program (`CELL OPS || IU OPS`): a bundle for every bundle
     * of .text once any line has an IU part, empty ("" ) if none has; its literal
     * relocations, offsets as in .text. */
    ws_buf warp_iu;
    was_relocs riu;
    ws_buf warp_iutab;      /* `.iutable`: the IU's address table, 32-bit entries */
    was_extra *extra;       /* in order of first `.section` */
    size_t nextra;
    was_sym **syms;         /* in order of first mention: the symbol table's order */
    size_t nsyms, cap;
} was_unit;

/* Writes the object atomically to out_path; -1 after a "PROG: PATH: ..." message. */
int was_write_object(was_unit *u, const char *out_path);

#endif
