/* The debugger: source-level, whole-array debugging of a cell image over the
 * runtime and the simulator, as the Warp host ran the array in step mode and read
 * every cell's registers (seed 002, section 5.2).
 *
 * Three parts:
 *   - a DWARF reader (wdb_dwarf_*) for what the toolchain writes (docs/design.md,
 *     section 5): the line table, functions, variables and their locations. It
 *     reads images and objects.
 *   - wdb_objdump(), what warp-objdump prints (binutils' shapes).
 *   - a session (wdb_*): breakpoints, watchpoints, stepping of one cell's source
 *     lines with the whole array in lockstep, clock-by-clock stepping, expressions,
 *     and a gdb-like command interpreter: wdb_command() takes one command line and
 *     writes everything it says to a FILE*, so the REPL (tools/warp-dbg.c), batch
 *     mode, the tests and a fuzzer all drive the same function. No input makes it
 *     exit or crash: a bad command is an error message and the session goes on. */
#ifndef WARP_DEBUGGER_H
#define WARP_DEBUGGER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- DWARF ---------------------------------------------------------------------- */

/* One row of the line table. Addresses are program byte addresses (bundle x 40). */
typedef struct wdb_row {
    uint32_t addr;
    uint32_t line, col;
    uint32_t file;            /* index into wdb_dwarf.files */
    uint8_t is_stmt, basic_block;
    uint8_t end;              /* end of a sequence: addr is one past its last bundle */
    uint32_t discriminator;   /* tells apart code of one line (a pipelined kernel's iterations) */
} wdb_row;

typedef struct wdb_type {
    int is_float;             /* else int */
    int ndims;                /* 0 scalar, 1 or 2 */
    uint32_t dims[2];
} wdb_type;

enum {
    WDB_LOC_NONE,             /* no value (optimized out) */
    WDB_LOC_ADDR,             /* v: data memory byte address */
    WDB_LOC_REG,              /* v: DWARF register (0..63 r0..r63, 64 cid) */
    WDB_LOC_CONST,            /* v: the 32 bits of the value */
    WDB_LOC_EMPTY             /* DWARF's empty location: in the source, not in this code */
};

/* A location over [lo, hi) program addresses; a variable in memory has one over
 * its whole function. */
typedef struct wdb_loc {
    uint32_t lo, hi;
    int kind;
    uint32_t v;
} wdb_loc;

typedef struct wdb_var {
    char *name;
    uint32_t decl_line;
    wdb_type type;
    wdb_loc *locs;
    size_t nlocs;
} wdb_var;

/* A named lexical block: the backend names each software-pipelined loop, and
 * gives its schedule (0s when the producer did not): one iteration starts every
 * ii bundles and runs through `stages` of them; the prologue is the first
 * (stages - 1) x ii bundles from lo, the kernel the unroll x ii after it, the
 * epilogue the rest. The locations of the variables the loop assigns describe
 * the iteration of `stage` (in the prologue, until it starts, the first). */
typedef struct wdb_block {
    char *name;
    uint32_t lo, hi;
    uint32_t decl_file, decl_line;
    uint32_t ii, stages, unroll;
    uint32_t stage;           /* whose iteration the variables' locations describe */
} wdb_block;

typedef struct wdb_func {
    char *name, *linkage;
    uint32_t lo, hi;          /* [lo, hi) */
    uint32_t decl_line;
    wdb_var *vars;
    size_t nvars;
    wdb_block *blocks;
    size_t nblocks;
} wdb_func;

/* An allocated data section (.data, .bss, ...): info symbol names it. */
typedef struct wdb_dsection {
    char name[16];
    uint32_t lo, hi;          /* data memory byte addresses, [lo, hi) */
} wdb_dsection;

typedef struct wdb_dwarf {
    wdb_row *rows;            /* every sequence's rows, sorted by address */
    size_t nrows;
    char **files;
    size_t nfiles;
    wdb_func *funcs;          /* sorted by lo */
    size_t nfuncs;
    wdb_var *globals;
    size_t nglobals;
    char *comp_dir;           /* the first unit's DW_AT_comp_dir: where relative file names start; NULL none */
    wdb_dsection *dsecs;      /* an image's data sections */
    size_t ndsecs;
} wdb_dwarf;

/* The DWARF of an ELF image or object; an empty one if the file has none. NULL
 * with a one-line reason in err if the file is not ELF or its DWARF is malformed. */
wdb_dwarf *wdb_dwarf_read(const char *path, char *err, size_t errlen);
wdb_dwarf *wdb_dwarf_read_mem(const void *buf, size_t len, char *err, size_t errlen);
void wdb_dwarf_free(wdb_dwarf *d);

/* The row whose range holds addr, or NULL. */
const wdb_row *wdb_row_at(const wdb_dwarf *d, uint32_t addr);
/* The statement row starting exactly at addr, or NULL. */
const wdb_row *wdb_stmt_at(const wdb_dwarf *d, uint32_t addr);
const wdb_func *wdb_func_at(const wdb_dwarf *d, uint32_t addr);
/* Where a breakpoint on FILE:LINE goes: in each function, for each basic block,
 * the lowest address of a statement row of that line (gdb's rule). file matches
 * a file name, its base name or a trailing part of its path; NULL means any.
 * Returns how many; copies at most max. */
size_t wdb_line_addrs(const wdb_dwarf *d, const char *file, uint32_t line, uint32_t *addrs, size_t max);
/* A variable's location at a program address (kind WDB_LOC_NONE if none). */
wdb_loc wdb_var_loc(const wdb_var *v, uint32_t addr);

/* ---- warp-objdump ----------------------------------------------------------------- */

enum {
    WDB_DUMP_HEADERS = 1,     /* -h: section headers */
    WDB_DUMP_SYMBOLS = 2,     /* -t: the symbol table */
    WDB_DUMP_RELOCS = 4,      /* -r: relocations (with -d: under their bundles) */
    WDB_DUMP_DISASM = 8,      /* -d: disassembly of the code sections */
    WDB_DUMP_SOURCE = 16      /* -S: disassembly with source lines from .debug_line */
};

/* Prints what binutils' objdump prints for those flags, for an object or an
 * image. -1 with a reason in err (nothing sensible to print). */
int wdb_objdump(const char *path, unsigned what, FILE *out, char *err, size_t errlen);

/* ---- The session ------------------------------------------------------------------ */

typedef struct wdb wdb;

typedef struct wdb_options {
    const char *const *in_names, *const *in_paths;   /* --in NAME=FILE */
    size_t nin;
    const char *const *out_names, *const *out_paths; /* --out NAME=FILE */
    size_t nout;
    uint64_t max_cycles;                             /* 0: no limit */
    const char *topology, *channels;                 /* iWarp: as warp-sim's --topology, --channels; NULL: default */
} wdb_options;

/* Loads the image and its DWARF. NULL with a one-line reason in err. */
wdb *wdb_new(const char *image, const wdb_options *opts, char *err, size_t errlen);
void wdb_free(wdb *d);

enum { WDB_OK = 0, WDB_ERROR = -1, WDB_QUIT = 1 };

/* Runs one command line (gdb's names and abbreviations: run, continue, step,
 * next, stepi, cycle, finish, break, watch, delete, info ..., cell, print, x, list,
 * disassemble, backtrace, help, quit). WDB_ERROR after a message for a bad
 * command; WDB_QUIT for quit. With repeat set (the REPL), an empty line repeats
 * the last command as gdb does; otherwise it does nothing. */
int wdb_command(wdb *d, const char *line, FILE *out);
void wdb_set_repeat(wdb *d, int repeat);
/* Where command errors go (gdb: standard error); NULL, the default: the stream
 * given to wdb_command, with the rest of what the command says. */
void wdb_set_error_stream(wdb *d, FILE *err);
/* How the last run ended, in warp-sim's exit codes (README): 0 finished, 2 fault,
 * 3 deadlock, 4 cycle limit, 5 flow-control violation; -1 while no run has ended
 * (never started, stopped at a breakpoint, or killed). warp-dbg -batch exits
 * with it, as gdb -return-child-result. */
int wdb_exit_code(const wdb *d);
/* Whether `shell` and `!` may run commands: off by default (a fuzzer or a test
 * drives sessions too); warp-dbg turns it on. */
void wdb_allow_shell(wdb *d, int allow);
/* After WDB_QUIT: the status `quit N` asked for, or -1 for a plain quit. */
int wdb_quit_code(const wdb *d);
/* Asks a running command to stop at the next clock (from a SIGINT handler). */
void wdb_interrupt(wdb *d);
/* Completions of the word that ends at `end` of line: command names first, then
 * (after a command) variables, registers, gates, functions, files and info
 * subcommands. A NULL-terminated array of strings, all malloc'd; NULL if none. */
char **wdb_complete(wdb *d, const char *line, size_t end);

#endif
