/* Compile-time flow control (docs/design.md, section 6): the clock at which every
 * cell of a linked program issues each receive and send, and the skew between
 * neighbouring cells that keeps every queue from being read empty or written past
 * its capacity. This is how the Warp machine ran: the compiler skewed the cells,
 * the hardware never waited (seed 002, sections 4.3, 4.4 and 4.7).
 *
 * Each cell's program is run abstractly, stall-free, with every value that the
 * compiler can know (literals, the cell's number, what is computed from them, the
 * initial data memory) and every other value (received words, host data) unknown.
 * A branch on a known value goes its way; a branch on an unknown one runs both ways
 * to where they meet again (the branch's immediate post-dominator) and merges them:
 * their times become an interval, values that differ become unknown, and both must
 * send and receive the same number of words. A loop whose exit depends on an unknown
 * value is run to a fixed point with no upper bound on the time after it; inside it
 * no receive or send may happen. The linker calls this for Warp objects that ask for
 * it (`.flowctl`). */
#ifndef WARP_FLOWCTL_H
#define WARP_FLOWCTL_H

#include <stddef.h>
#include <stdint.h>

#include "warp_target.h"

typedef struct wfc_program {
    const wt_model *model;
    const wt_insn *code;
    uint32_t ncode, entry;
    /* The interface unit's bundles, parallel to code (NULL: none): bundle pc's host
     * feeds fill the end cell's queues as it issues its own bundle pc, and more than
     * one word holds that cell a clock each (the IU link's word a cycle). */
    const wt_insn *iu_code;
    const uint8_t *data;        /* initial data memory from address 0 (the rest is 0) */
    uint32_t data_size;
    int first_cell, last_cell;
    /* The source position of a bundle, or of one of its gate operations (op, see
     * below: a bundle's receive and send may belong to statements other than its
     * line record's), as file index, line, column (0 if unknown): the statement
     * blamed for a loop or an if is the earliest position among its bundles. May
     * be NULL. */
    int (*position)(void *ctx, uint32_t pc, int op, unsigned *file, unsigned *line, unsigned *col);
    /* "poly.w2:27:5" for a bundle or one of its gate operations, for messages;
     * NULL if unknown. May be NULL. */
    const char *(*where)(void *ctx, uint32_t pc, int op, char *buf, size_t size);
    /* The data object whose symbol the relocation of bundle pc's immediate imm (0
     * or 1) names: its address and size in bytes, 1; or 0 (none, or not known). A
     * store whose address is unknown but whose immediate names an object (a[t],
     * the array's symbol the immediate) is taken to stay within that object, as a
     * subscript within its array does: every other word keeps its value. May be
     * NULL: such a store may then change any word. */
    int (*object)(void *ctx, uint32_t pc, int imm, uint32_t *addr, uint32_t *size);
    void *ctx;
    uint64_t max_clocks;        /* analysis budget in bundles, all cells together; 0: the default */
} wfc_program;

/* Which operation of a bundle a position is about: the bundle as a whole, its
 * receive from queue q (WFC_RECEIVE + q) or its send to gate q (WFC_SEND + q), q a
 * queue index (WT_Q_XL..WT_Q_YR). */
enum { WFC_BUNDLE = -1, WFC_RECEIVE = 0, WFC_SEND = 4 };

typedef struct wfc_result {
    int32_t skew;               /* cell k starts k*skew clocks after cell 0; negative:
                                   the last cell starts first */
    int64_t skew_lo, skew_hi;   /* every skew in [lo, hi] works (INT64_MIN/MAX: no bound) */
    uint64_t clocks;            /* the longest cell's run (its latest halt) */
    uint32_t pc;                /* on failure: the bundle of the statement to blame */
    int op;                     /* on failure: which of its operations (WFC_BUNDLE, ...) */
    char message[1024];         /* on failure: what is wrong (no position) */
    char note[512];             /* on failure: a hint, or "" */
} wfc_result;

/* 0 and the skew; or -1 with pc, message and note when the program's I/O cannot be
 * timed at compile time, or no skew satisfies every queue. */
int wfc_analyse(const wfc_program *p, wfc_result *out);

#endif
