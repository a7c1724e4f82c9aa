/* The linker's view of one input object once read and validated (read.c), the
 * layout and resolution (link.c) and the image writer (image.c). */
#ifndef WLD_INTERNAL_H
#define WLD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <libelf.h>

#include "warp_linker.h"
#include "warp_support.h"
#include "warp_target.h"

/* The largest section alignment accepted: more would only waste data memory. */
#define WLD_MAX_ALIGN 4096u

/* The sections an object contributes to memory, in image order. */
enum { WLD_TEXT, WLD_DATA, WLD_BSS, WLD_HOST, WLD_NMEM };
/* Where a symbol lives besides those: undefined, absolute, or a section that holds
 * no memory (only section and file symbols may point there). */
enum { WLD_UNDEF = -1, WLD_ABS = -2, WLD_OTHER = -3 };

typedef struct wld_global wld_global;

typedef struct wld_sym {
    const char *name;        /* into the object's string table */
    uint32_t value, size;
    uint8_t bind, type;
    int sec;                 /* WLD_TEXT.. or WLD_UNDEF, WLD_ABS, WLD_OTHER */
    uint32_t addr;           /* its address in the image, once laid out */
    wld_global *global;      /* for STB_GLOBAL symbols */
    int needed;              /* a relocation refers to it */
    int dbg;                 /* the section symbol of debug section dbg[k]: k; else -1 */
} wld_sym;

typedef struct wld_rel {
    uint32_t offset, type, sym;
    int32_t addend;
} wld_rel;

/* A debug section (docs/design.md, section 5): concatenated by name into the image,
 * its WT_SHT_DEBUG_REL relocations applied (S + the value in place). */
typedef struct wld_dbgsec {
    const char *name;        /* into the object's section name table */
    const uint8_t *data;
    uint32_t size;
    unsigned index;          /* ELF section index */
    wld_rel *rel;
    size_t nrel;
    uint32_t base;           /* where it lands in the image's section of that name */
} wld_dbgsec;

typedef struct wld_host {
    const char *line;        /* "NAME in float 100 0", into the object */
    size_t line_len;
    const char *name;
    size_t name_len;
    uint32_t offset, size;   /* in the object's .host */
    uint32_t addr;           /* in host memory */
} wld_host;

typedef struct wld_obj {
    const char *path;
    char *buf;
    size_t size;
    Elf *elf;
    int model;               /* WT_MODEL_*, or -1: either */
    int flowctl;             /* asks for compile-time flow control (.flowctl) */
    const uint8_t *mem[WLD_NMEM];
    uint32_t mem_size[WLD_NMEM], mem_align[WLD_NMEM];
    unsigned mem_index[WLD_NMEM]; /* ELF section index, 0 if absent */
    uint32_t base[WLD_NMEM];     /* where the section lands in its memory */
    const char *cells;
    uint32_t cells_size;
    int has_cells;
    uint32_t cells_v[5];     /* FIRST LAST SKEW, and a 2-D array's W H (0 0 if linear) */
    const uint8_t *lines;
    uint32_t nlines;
    const uint8_t *gates;    /* .warp.gates: address, line, column, file | queue << 16 | send << 24 */
    uint32_t ngates;
    const char **files;
    uint32_t nfiles;
    wld_host *host;
    size_t nhost;
    wld_sym *syms;
    size_t nsyms;
    wld_rel *rel[3];         /* against .text, .data, .warp.iu */
    size_t nrel[3];
    const uint8_t *iu;       /* .warp.iu: the interface unit's bundles, parallel to .text; NULL */
    unsigned iu_index;
    const uint8_t *iutab;    /* .warp.iutab: the interface unit's address table; NULL */
    uint32_t iutab_size;
    wld_dbgsec *dbg;
    size_t ndbg;
} wld_obj;

struct wld_global {
    const char *name;
    wld_obj *def_obj;        /* NULL while undefined */
    wld_sym *def;
    wld_obj *ref_obj;        /* first object whose relocations need it */
    uint32_t order;          /* definition order, for the image's symbol table */
};

/* Reads and validates one object; -1 after a "PROG: PATH: ..." message. */
int wld_read_object(wld_obj *o, const char *path);
void wld_free_object(wld_obj *o);
/* A "PROG: PATH: ..." message; returns -1. */
int wld_error(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The linked image, ready to be written. */
typedef struct wld_image {
    uint32_t e_flags, entry;
    ws_buf text, data;
    uint32_t bss_addr, bss_size, host_size;
    ws_buf warp_host, warp_cells, warp_lines, warp_files;
    ws_buf warp_iu;          /* parallel to text; empty if no object has an IU part */
    ws_buf warp_iutab;       /* the IU's address table, from the one object that gives it */
    ws_buf symtab, strtab;   /* Elf32_Sym entries in file byte order, names */
    uint32_t first_global;
    const char **dbg_names;  /* the debug sections, in order of first appearance */
    ws_buf *dbg;
    size_t ndbg;
} wld_image;

int wld_write_image(const wld_image *img, const char *out_path);

/* flow.c: for a Warp image whose objects ask for it, the skew between cells from
 * the program's timing, into .warp.cells, and WT_EF_FLOWCTL in e_flags. -1 after a
 * compiler-style diagnostic naming the statement that cannot be timed. */
int wld_flow_control(const wld_obj *objs, size_t n, const wt_model *M, uint32_t entry, wld_image *img,
                     const char *out_path);

static inline uint32_t wld_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint16_t wld_get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

static inline void wld_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

#endif
