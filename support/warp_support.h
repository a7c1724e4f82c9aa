/* Support shared by every stage: diagnostics in the compilers' form, atomic output
 * files, temporaries removed on signals, the refusal to overwrite an input, an
 * arena allocator per unit of work, growable buffers, file reading, the
 * ELF writer of objects and images. */
#ifndef WARP_SUPPORT_H
#define WARP_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- Program identity and fatal paths ---------------------------------------- */

/* The name diagnostics start with ("warp-cc"); set once by each program's main. */
void ws_set_progname(const char *name);
const char *ws_progname(void);
/* Internal bugs only: prints "PROG: internal error: ..." and exits 70. */
_Noreturn void ws_internal_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *ws_xmalloc(size_t n);               /* exits 1 with a message if memory runs out */
void *ws_xcalloc(size_t n, size_t size);
/* Zeroed, aligned to `align` (a power of two, at least sizeof(void *)), released with
 * free(): for objects declared _Alignas(WS_CACHE_LINE), which malloc's 16 bytes do not
 * honour, so that two threads' parts never share a cache line. */
#define WS_CACHE_LINE 64
void *ws_xcalloc_aligned(size_t n, size_t size, size_t align);
void *ws_xrealloc(void *p, size_t n);
char *ws_xstrdup(const char *s);
char *ws_xstrndup(const char *s, size_t n);

/* ---- Diagnostics --------------------------------------------------------------- */

typedef enum ws_severity { WS_NOTE, WS_WARNING, WS_ERROR } ws_severity;

/* One per compilation: counts what was reported and knows the source text, so a
 * message can show the line and a caret. */
typedef struct ws_diag {
    FILE *out;              /* where messages go (stderr by default) */
    const char *path;       /* the file the positions refer to */
    const char *text;       /* its contents, for the source line; may be NULL */
    size_t len;
    int errors, warnings;
    int max_errors;         /* stop reporting after this many (0: no limit) */
    int werror;             /* warnings count as errors */
} ws_diag;

void ws_diag_init(ws_diag *d, const char *path, const char *text, size_t len);
/* "path:line:col: error: message", the source line and a caret under col (1-based).
 * line 0 prints "path: error: message" with no position. */
void ws_report(ws_diag *d, ws_severity sev, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void ws_vreport(ws_diag *d, ws_severity sev, int line, int col, const char *fmt, va_list ap);

/* A located diagnostic as data: what a stage that does not print hands back (flow
 * control's rejection, which the linker locates), for ws_emit to print as ws_report
 * would, each note after it. file NULL: the ws_diag's; a position in another file
 * gets no source line. line 0: no position. */
enum { WS_MAX_NOTES = 2 };
typedef struct ws_note {
    int line, col;
    char text[512];
} ws_note;
typedef struct ws_diagnostic {
    const char *file;
    int line, col;
    ws_severity severity;
    char message[1024];
    int nnotes;
    ws_note notes[WS_MAX_NOTES];
} ws_diagnostic;
/* Adds a note (dropped beyond WS_MAX_NOTES). */
void ws_diagnostic_note(ws_diagnostic *x, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void ws_emit(ws_diag *d, const ws_diagnostic *x);

/* A one-line error about a file, with no position: "PROG: path: message". */
void ws_file_error(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Where ws_file_error and new ws_diag write (NULL: stderr), for programs that run
 * the stages in process and keep their messages, as the fuzz targets do. */
void ws_set_error_stream(FILE *f);

/* ---- Program start: temporaries and standard output, however the program ends ---- */

/* The first call of every program's main (it also sets the program's name). From
 * then on:
 *  - the registered temporaries (ws_temp_register, and every ws_output's) are
 *    removed at exit and on a signal that ends the process: SIGINT, SIGTERM,
 *    SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF,
 *    SIGUSR1, SIGUSR2, and the crashes SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
 *    SIGSYS. Then the process dies by that signal (the shell's status says
 *    which); a fault the kernel raised (a real crash) happens again under the
 *    action it had before, so a sanitizer still reports it.
 *    A signal ignored when the program starts (nohup, `cmd &`) stays ignored.
 *  - standard output is closed at exit; a write error on it (a full disk, a closed
 *    pipe) prints "PROG: standard output: REASON" and makes the exit status 1.
 * A program that handles one of these signals itself (warp-dbg's SIGINT stops the
 * simulated run) installs its handler after this call. */
void ws_program_init(const char *name);

/* Registers a file, or a directory that will be empty by then, to remove if the
 * program ends before ws_temp_release. The path is copied; the most recent is
 * removed first, so a directory's files go before the directory. */
void ws_temp_register(const char *path);
/* mkstemp, and the new file registered, with no signal able to come between:
 * the descriptor, or -1 (errno). */
int ws_temp_mkstemp(char *template);
/* Forgets path (it was renamed into place, or removed). */
void ws_temp_release(const char *path);
/* Removes every registered temporary now, and forgets them. */
void ws_temp_remove_all(void);

/* ---- Outputs that must not overwrite an input ------------------------------------ */

/* 1 when a and b name the same file: the same device and inode ("x.w2", "./x.w2"
 * and a hard link of it), or, for files that do not exist yet, the same name in
 * the same directory. 0 otherwise, and for "-". */
int ws_same_file(const char *a, const char *b);
/* Refuses, as gcc does, an output that names one of the inputs (NULL entries are
 * skipped; "-" is the file standard input reads): prints "PROG: input file 'IN'
 * is the same as output file" (and the output's own spelling when it differs) and
 * returns -1; an empty name or a directory is refused too. 0 otherwise. Call it
 * before anything is written: the input is then never touched. */
int ws_check_output(const char *output, const char *const *inputs, size_t ninputs);

/* ---- Output files: written beside the target, renamed into place ---------------- */

typedef struct ws_output {
    char *path;     /* where the commit puts the bytes */
    char *tmp;      /* the temporary beside it (registered), or NULL */
    FILE *f;
    int copy;       /* a device, FIFO or socket: f is an anonymous temporary file
                     * whose bytes the commit writes to path (a device is never
                     * replaced by a file, and a FIFO gets whole output) */
} ws_output;

/* NULL on failure (the reason in errno). "-" writes to stdout directly. A symbolic
 * link is followed: the file it names is replaced and the link stays. The
 * temporary "NAME.tmpPID" is created new (never over an existing file), and is
 * shortened when NAME is so long that it would pass NAME_MAX. */
FILE *ws_output_open(ws_output *o, const char *path, int binary);
/* Flushes, closes and renames; -1 (and nothing left behind) on failure. A failed
 * run leaves whatever file was at path before untouched. */
int ws_output_commit(ws_output *o);
/* Closes and removes the temporary file. Safe to call twice or after commit. */
void ws_output_abort(ws_output *o);
/* Writes len bytes of text to path through ws_output: 0, or -1 after a message
 * naming path (the compiler's assembly, warp-conset's program). */
int ws_write_text(const char *path, const char *text, size_t len);

/* ---- Reading files ------------------------------------------------------------- */

/* The whole file, NUL-terminated; NULL with a message in err on failure. Files over
 * max_bytes are refused, so a hostile input cannot exhaust memory. */
char *ws_read_file(const char *path, size_t *len, size_t max_bytes, char *err, size_t errlen);

/* ---- Arena: free everything of one unit of work at once ------------------------- */

typedef struct ws_arena_block ws_arena_block;
typedef struct ws_arena { ws_arena_block *head; } ws_arena;

void *ws_arena_alloc(ws_arena *a, size_t n);          /* zeroed, 16-byte aligned */
char *ws_arena_strndup(ws_arena *a, const char *s, size_t n);
void ws_arena_free(ws_arena *a);

/* ---- Growable arrays, hashing, a string map ----------------------------------- */

/* Room for at least `need` elements of `size` bytes in the array *p, whose capacity
 * is *cap: doubling from 16, so appending n elements costs O(n). */
void ws_grow(void *p, size_t *cap, size_t need, size_t size);

/* Sorts n ints in ascending order. */
void ws_sort_ints(int *a, size_t n);

/* FNV-1a of n bytes: the one string hash of the tree (symbol tables, scopes). */
uint32_t ws_hash(const void *p, size_t n);

/* Names to pointers, open-addressed. The map keeps the key pointers, not copies:
 * the bytes must outlive it. Lookups take a length, so a name inside a line of
 * text needs no copy to be looked up. */
typedef struct ws_strmap {
    struct ws_strmap_slot *slots;
    size_t cap, n;
} ws_strmap;
/* The value stored for the name, or NULL. */
void *ws_strmap_get(const ws_strmap *m, const char *key, size_t len);
/* Stores the value for the name (replacing any); key[0..len) must outlive the map. */
void ws_strmap_put(ws_strmap *m, const char *key, size_t len, void *val);
void ws_strmap_free(ws_strmap *m);

/* ---- Control-flow graphs (graph.c) ---------------------------------------------- */

/* A directed graph of nodes 0..n-1, compressed: the successors of v are
 * to[at[v]] .. to[at[v + 1] - 1], in the order the edges were given. */
typedef struct ws_graph { int n; int *at, *to; } ws_graph;

/* The graph of the edges from[k] -> to[k], k < nedges. */
ws_graph ws_graph_new(int n, const int *from, const int *to, int nedges);
/* Every edge turned round: the predecessors, each node's by ascending source. */
ws_graph ws_graph_reverse(const ws_graph *g);
void ws_graph_free(ws_graph *g);
/* The nodes entry reaches, in reverse postorder with a node's first successor
 * before its later ones (a loop's body follows its header), into order (room for
 * g->n). Returns how many. */
int ws_graph_rpo(const ws_graph *g, int entry, int *order);
/* Immediate dominators from entry: idom[entry] = entry, -1 where entry does not
 * reach. Post-dominators are the dominators of the reversed graph from the exit. */
void ws_graph_idom(const ws_graph *g, int entry, int *idom);
/* The dominator tree numbered so that "a dominates b" is two comparisons. */
typedef struct ws_domtree { int *pre, *post; } ws_domtree;
ws_domtree ws_domtree_new(const ws_graph *g, int entry);
int ws_dominates(const ws_domtree *d, int a, int b);
void ws_domtree_free(ws_domtree *d);
/* The natural loop of the back edge tail -> header: sets in[] for the header and
 * every node that reaches tail without passing it (preds: the reversed graph). */
void ws_natural_loop(const ws_graph *preds, int header, int tail, uint8_t *in);

/* ---- Growable byte buffer ------------------------------------------------------ */

typedef struct ws_buf { char *data; size_t len, cap; } ws_buf;

void ws_buf_append(ws_buf *b, const void *p, size_t n);
void ws_buf_puts(ws_buf *b, const char *s);
void ws_buf_printf(ws_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ws_buf_free(ws_buf *b);

/* ---- Writing ELF files: the assembler's objects and the linker's images -------- */

/* One section: its header's fields and its bytes (none for SHT_NOBITS). */
typedef struct ws_elf_section {
    const char *name;
    uint32_t type, flags, addr, link, info, align, entsize;
    const void *data;
    uint32_t size;
} ws_elf_section;

/* A PT_LOAD segment: the bytes of one section, mem_size bytes in memory. */
typedef struct ws_elf_segment { uint32_t section, mem_size, flags; } ws_elf_segment;

typedef struct ws_elf_file {
    uint16_t type, machine;         /* ET_REL or ET_EXEC; EM_ */
    uint32_t flags, entry;
    const ws_elf_section *secs;     /* secs[0] is the null section */
    uint32_t nsecs;                 /* the section-name table is added after them */
    const ws_elf_segment *segs;
    uint32_t nsegs;
    int executable;                 /* a new file gets mode 0777 less the umask */
} ws_elf_file;

/* ELF32 little-endian, through a temporary file renamed into place ("-": standard
 * output). 0, or -1 after a message naming path. */
int ws_elf_write(const ws_elf_file *f, const char *path);

#endif
