/* The debugger's session, shared by its source files only: session.c (the image,
 * the simulator, run control, stop reports), expr.c (expressions and values),
 * commands.c (the command interpreter and completion). */
#ifndef WDB_INTERNAL_H
#define WDB_INTERNAL_H

#include <signal.h>

#include "warp_debugger.h"
#include "warp_runtime.h"
#include "warp_sim.h"
#include "warp_support.h"

typedef struct bpoint {
    int num;
    int is_watch;
    int enabled;
    int cell;                 /* break: -1 any cell; watch: the cell it watches */
    char *cond;               /* break: NULL or an expression */
    uint32_t *addrs;          /* break: program byte addresses */
    size_t naddrs;
    char *where;              /* break: "file polynomial.w2, line 33"; watch: the expression */
    char *old;                /* watch: the last value as text, NULL when it had none */
    unsigned hits, ignore;
    int temporary;            /* tbreak: deleted when it stops the run */
    char **cmds;              /* commands ... end: run when it stops the run */
    size_t ncmds;
} bpoint;

/* A value: what print shows, and where it came from (x and & want that). */
typedef enum vkind { V_INT, V_FLOAT, V_WORD, V_ARRAY, V_NONE, V_PC } vkind;
enum { SP_NONE, SP_DATA, SP_HOST };
enum { EL_INT, EL_FLOAT, EL_WORD };

typedef struct value {
    vkind kind;
    uint32_t bits;            /* scalars and V_PC (a byte address) */
    int elem;                 /* arrays: EL_* */
    int ndims;
    uint32_t dims[2];
    uint32_t *words;          /* arrays: owned */
    size_t nwords;
    int space;                /* an lvalue in memory: SP_DATA or SP_HOST at addr */
    uint32_t addr;
    int is_ref;               /* made by &: bits is an address in space */
    int ref_elem, ref_ndims;  /* ...of an object of this type (print's "(int *) 0x4") */
    uint32_t ref_dims[2];
    int lreg;                 /* an lvalue in register lreg - 1 of the cell (0: none) */
    char why[160];            /* V_NONE: why there is no value */
} value;

struct wdb {
    char *image;
    wrt_image *img;
    wdb_dwarf *dw;
    wsim_program prog;
    wsim *sim;                /* NULL until run */
    char **in_names, **in_paths, **out_names, **out_paths;
    size_t nin, nout;
    uint64_t max_cycles;
    wca_config comm;          /* iWarp: topology and channels */
    int ncells;
    int sel;                  /* the selected cell */
    bpoint *bps;
    size_t nbps;
    int next_num;
    int last_bp;              /* the breakpoint of the last stop, for `continue N` */
    char *last_cmd;
    int repeat;
    int list_file, list_valid;
    uint32_t list_next;       /* next line `list` shows */
    value *hist;              /* $1, $2, ... */
    size_t nhist;
    volatile sig_atomic_t stop_req;
    int fresh;                /* run started, no clock yet */
    int altered;              /* set var wrote a register or memory during this run */
    uint64_t *issued;         /* per cell, before the clock being run */
    int has_swp;              /* the DWARF describes a software-pipelined loop's schedule */
    uint64_t *swp_entry;      /* per cell: bundles it had issued when it last entered a pipelined */
    uint32_t *swp_lo;         /* loop's prologue, and that prologue's address + 1 (0: none yet) */
    char **src;               /* per DWARF file: its text, loaded on first use */
    size_t *srclen;
    int *src_tried;
    FILE *err_stream;         /* wdb_set_error_stream; NULL: the command's own stream */
    FILE *err;                /* where the running command's errors go */
    FILE *cur_out;            /* and its output */
    int end_code;             /* how the last run ended (WDB_END_*), -1 while none has */
    int quit_code;            /* quit N: N; -1 for plain quit */
    int frame;                /* the selected frame of the selected cell: 0 innermost */
    uint32_t x_next;          /* where `x` with no address goes on */
    int x_space, x_fmt, x_valid;
    uint64_t x_count;
    unsigned listsize;        /* lines `list` shows */
    char **displays;          /* display EXPR: shown at every stop */
    size_t ndisplays;
    int *display_nums;
    int next_display;
    char **dirs;              /* directory DIR: where sources are looked for */
    size_t ndirs;
    struct usercmd *usercmds; /* define NAME ... end */
    size_t nusercmds;
    char **collect;           /* commands ... end, define ... end: the lines being read */
    size_t ncollect;
    int collect_kind;         /* 0 none, 1 breakpoint commands, 2 define */
    int collect_bp;
    char *collect_name;
    int nesting;              /* source, user commands and breakpoint commands running */
    uint32_t *adv_addrs;      /* advance, until LOCATION */
    size_t nadv;
    unsigned stops;           /* runs that stopped: displays are shown after each */
    int pending_cmds;         /* the breakpoint whose commands run after this stop */
    int pending_delete;       /* the temporary breakpoint that stopped the run */
    int allow_shell;
    unsigned print_elements, print_repeats;
};

struct usercmd {
    char *name;
    char **lines;
    size_t nlines;
};

/* The program address of a frame of a cell: frame 0 its pc, frame k the call
 * that the k-th return address follows. */
uint32_t wdb_frame_pc(wdb *d, int cell, int frame);

/* ---- session.c -------------------------------------------------------------------- */

/* The error every command reports the same way, on the session's error stream
 * (standard output is flushed first, so the two stay in order); returns WDB_ERROR. */
int wdb_error(wdb *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int wdb_running(wdb *d, FILE *out);        /* 0 if a run is under way, else an error */
uint32_t wdb_pc(const wdb *d, int cell);    /* program byte address */
/* "poly () at polynomial.w2:33" or "0x438 in ?? ()". */
void wdb_frame_text(wdb *d, uint32_t addr, ws_buf *b);
/* "33\t<source line>\n" (or "33\tin FILE\n"), after an optional address. */
void wdb_print_source_line(wdb *d, FILE *out, uint32_t file, uint32_t line);
/* A source line's text (without its newline); -1 if the file or line is not there. */
int wdb_source(wdb *d, uint32_t file, uint32_t line, const char **text, size_t *len);
const char *wdb_basename(const char *path);
/* A symbolic program address: "poly+920", or NULL. */
const char *wdb_sym(wdb *d, uint32_t addr, char *buf, size_t size);
/* A bundle as the assembler reads it: the cells' operations, then, if the Warp
 * interface unit does anything beside them (iu may be NULL), ` || ` and the IU's
 * (objdump.c). */
void wdb_format_bundle(const wt_insn *cells, const wt_insn *iu, char *buf, size_t size,
                       const char *(*target_name)(void *ctx, unsigned target), void *ctx);
const char *wdb_cell_state(wdb *d, int cell, char *buf, size_t size);

/* RUN_UNTIL: next, but not back to a line before (a loop's jump back runs on);
 * RUN_ADVANCE: on until the selected cell reaches one of d->adv_addrs, or its
 * frame returns. */
enum { RUN_CONTINUE, RUN_STEPI, RUN_STEP, RUN_NEXT, RUN_FINISH, RUN_UNTIL, RUN_ADVANCE };
int wdb_start(wdb *d, FILE *out);
/* A fresh simulator of the program with the --in files, as `run` starts it; NULL after
 * an error (reported). For figures of past clocks, which the run does not keep. */
wsim *wdb_new_sim(wdb *d);
/* A watchpoint's value now, as the base of the next comparison. */
void wdb_watch_init(wdb *d, bpoint *b);
int wdb_resume(wdb *d, int mode, uint64_t count, FILE *out);
int wdb_resumable(wdb *d, FILE *out);   /* 0 if a run can go on, else an error */

/* ---- expr.c ------------------------------------------------------------------------- */

/* Evaluates EXPR in a cell's context. -1 with a message in err (gdb's wording). */
int wdb_eval(wdb *d, int cell, const char *expr, value *out, char *err, size_t errlen);
/* The same for print and set var, where a top-level `LVALUE = EXPR` (or `:=`)
 * assigns, as in gdb; in conditions `=` stays W2's comparison. */
int wdb_eval_assign(wdb *d, int cell, const char *expr, value *out, char *err, size_t errlen);
/* Checks EXPR as if evaluated at program address pc (its names, syntax, types),
 * without reading the array: for conditions and watches when they are set. */
int wdb_check(wdb *d, uint32_t pc, const char *expr, char *err, size_t errlen);
void wdb_value_free(value *v);
value wdb_value_copy(const value *v);
/* fmt: 0, or a print format letter 'x', 'd', 'u', 'f', 'c', 't', 'o'. */
void wdb_format(const value *v, int fmt, ws_buf *b);
/* In a software-pipelined loop at pc: its block; NULL if pc is in none (or its
 * schedule is not described). */
const wdb_block *wdb_swp_block(const wdb *d, uint32_t pc);
/* The iteration (from 0, the loop's first) that each stage of the pipelined loop
 * at the cell's pc is in: iter[s], -1 for a stage that is idle there; in *shown
 * the one whose values the variables show (-1 none). -1 if the cell's entry into
 * the loop was not seen (the run did not go through its prologue). */
int wdb_swp_iterations(const wdb *d, int cell, const wdb_block *b, int64_t *iter, int64_t *shown);
/* "pipelined loop at polynomial.w2:29, II=1, 9 stages: stage 0 iteration 12, ..." */
void wdb_swp_text(wdb *d, int cell, ws_buf *b);
/* The type of what &EXPR points at, as C writes a pointer to it: "int *", "float (*)[10]". */
void wdb_pointer_type(const value *v, ws_buf *b);
int wdb_truth(const value *v);      /* non-zero scalar */
/* gdb's print elements and print repeats (0: unlimited), for what follows. */
void wdb_print_limits(unsigned elements, unsigned repeats);
/* The variables in scope in a cell: its function's locals, then globals. */
const wdb_var *wdb_find_var(wdb *d, int cell, const char *name);

/* ---- commands.c ----------------------------------------------------------------------- */

void wdb_free_breakpoints(wdb *d);

#endif
