/* The instruction-level, cycle-accurate simulator of an array of cells and the host
 * interface past both ends (docs/design.md, section 1). It knows nothing of ELF:
 * the runtime hands it a wsim_program. */
#ifndef WARP_SIM_H
#define WARP_SIM_H

#include <stdint.h>
#include <stdio.h>

#include "warp_comm.h"
#include "warp_target.h"

/* The largest array the simulator builds (the machine description's). */
#define WSIM_MAX_CELLS WT_MAX_CELLS

typedef struct wsim_program {
    const wt_model *model;
    const wt_insn *code;        /* program memory, bundle by bundle */
    uint32_t ncode;
    uint32_t entry;             /* bundle index where every cell starts */
    const uint8_t *data;        /* initial data memory from address 0 (rest is zero) */
    uint32_t data_size;
    uint32_t host_size;         /* bytes of host memory */
    int first_cell, last_cell;  /* cellprogram (cid : first : last) */
    int32_t skew;               /* cell k starts k*skew clocks after the first; negative:
                                   cell k starts (LAST-FIRST-k)*|skew| after the last */
    int flow_controlled;        /* compile-time flow control (Warp): the compiler chose the
                                   skew so that no cell ever waits for a queue, so a wait
                                   stops the run with WSIM_FLOW_BUG */
    /* iWarp: the topology and channel allocation of the communication agents
     * (warp_comm.h); NULL: wca_config_default. Warp arrays are linear. */
    const wca_config *comm;
    /* Optional: names a program address for messages ("poly.w2:27"); NULL if unknown. */
    const char *(*where)(void *ctx, uint32_t pc, char *buf, size_t size);
    void *where_ctx;
    /* Warp: the interface unit's program, ncode bundles parallel to code (IU bundle i
     * issues with an end cell's bundle i; simulator/iu.c); NULL: no IU part. */
    const wt_insn *iu_code;
    /* The IU's address table (tld; .warp.iutab): its first iu_table_words entries of
     * model->iu_table_words, the rest 0. */
    const uint32_t *iu_table;
    uint32_t iu_table_words;
} wsim_program;

typedef enum wsim_status {
    WSIM_RUNNING,      /* more clocks to go */
    WSIM_DONE,         /* every cell halted, nothing in flight */
    WSIM_FAULT,        /* a run-time fault; wsim_message says which cell, pc and line */
    WSIM_DEADLOCK,     /* no cell can ever issue again; wsim_message is the wait-for report */
    WSIM_CYCLE_LIMIT,  /* wsim_run reached its limit */
    WSIM_FLOW_BUG      /* a flow-controlled cell would have waited for a queue: a compiler
                          bug (the skew was wrong); wsim_message says where */
} wsim_status;

typedef enum wsim_cell_state {
    WSIM_CELL_WAITING, /* before its start clock (skew) */
    WSIM_CELL_RUNNING, WSIM_CELL_STALLED, WSIM_CELL_HALTED, WSIM_CELL_FAULTED
} wsim_cell_state;

typedef struct wsim wsim;

/* NULL with a message in err if the program cannot run (e.g. the model's limits). */
wsim *wsim_new(const wsim_program *p, char *err, size_t errlen);
void wsim_free(wsim *s);

/* Threads for wsim_run (default 1): a run from its first clock simulates disjoint
 * groups of cells on n threads, with the same results, cycles, statistics and
 * reports as one thread. An array too small to share (fewer than 3 cells a thread)
 * runs on fewer. A run that faults is made again on one thread, so that its report
 * is one thread's (host memory as it was before the first clock). */
void wsim_set_threads(wsim *s, int n);
/* What the threads of the last threaded run did, for benchmarks: thread i (0 the
 * caller's, < the count returned; 0 if the run took one thread) ran `cpu_seconds` and
 * spent `wait_ticks` of its `ticks` (time stamp counter or nanoseconds) waiting for
 * the others at the clocks' barriers. */
typedef struct wsim_thread_use {
    double cpu_seconds;
    uint64_t ticks, wait_ticks;
} wsim_thread_use;
int wsim_thread_figures(const wsim *s, const wsim_thread_use **use);
wsim_status wsim_step(wsim *s);                     /* one clock of the whole array */
wsim_status wsim_run(wsim *s, uint64_t max_cycles); /* until done, fault, deadlock or the limit */
wsim_status wsim_status_of(const wsim *s);
/* Clocks run so far. Once done: the clocks until every cell had halted and every
 * in-flight result and word had landed; after a fault or deadlock: the clock it
 * happened in. */
uint64_t wsim_cycles(const wsim *s);
const char *wsim_message(const wsim *s);            /* the fault or deadlock report, or "" */
/* After a deadlock: the wait-for graph in Graphviz form (cells and the begin markers
 * the agents hold, an edge from each waiter to whom it waits for, the cycle in red).
 * -1 if the run is not deadlocked. */
int wsim_deadlock_dot(const wsim *s, FILE *out);

/* Host memory, to fill before the run and read after it. */
uint8_t *wsim_host_memory(wsim *s, uint32_t *size);

/* Per-cell figures (instructions issued, stall cycles, each unit's utilisation)
 * and the total cycle count, as --stats prints them:
 *   cycles: N
 *   cell K (cid C): issued I, stalls S (queue Q, unit U), FA a%, FM b%, ALU c%, MEM d%, MV e%, BR f%
 * Utilisation is operations issued in the class / (cycles x slots of the class).
 * On iWarp, then each bus and logical channel that carried or held back a word
 * (wca_print_stats: words, busy clocks, clocks blocked without credit, clocks a ready
 * word waited for its bus). */
void wsim_print_stats(const wsim *s, FILE *out);

/* ---- Inspection, for the debugger and the tests --------------------------------- */

/* A cell's figures as --stats counts them, at the clock they are taken: two takings
 * give the figures of the clocks between (the debugger's `info stats` over a window). */
typedef struct wsim_cell_figures {
    uint64_t cycle;
    uint64_t issued, queue_stalls, unit_stalls;
    uint64_t class_ops[WT_NUCLASSES];   /* operations issued, by unit class */
} wsim_cell_figures;
void wsim_cell_figures_of(const wsim *s, int cell, wsim_cell_figures *out);
/* The cell's --stats line over the clocks from `from` (NULL: the run's start) to `to`. */
void wsim_print_cell_window(const wsim *s, int cell, const wsim_cell_figures *from, const wsim_cell_figures *to,
                            FILE *out);

int wsim_ncells(const wsim *s);                      /* cells are 0..n-1; cid = first + k */
wsim_cell_state wsim_cell_state_of(const wsim *s, int cell);
uint32_t wsim_cell_pc(const wsim *s, int cell);
uint32_t wsim_cell_reg(const wsim *s, int cell, unsigned reg);
const uint8_t *wsim_cell_data(const wsim *s, int cell, uint32_t *size);
/* The debugger's `set var`: a register (not r0) or an aligned data word of a cell;
 * -1 if there is none. A value still in a unit's pipeline lands later. */
int wsim_set_cell_reg(wsim *s, int cell, unsigned reg, uint32_t value);
int wsim_set_cell_word(wsim *s, int cell, uint32_t addr, uint32_t value);
/* Words in queue q (WT_Q_*) of a cell that a bundle issued now could dequeue (not
 * those still on the link), oldest first; returns the count, copies at most max. */
unsigned wsim_queue_words(const wsim *s, int cell, int q, uint32_t *words, unsigned max);
uint64_t wsim_cell_issued(const wsim *s, int cell);
uint64_t wsim_cell_stalls(const wsim *s, int cell);      /* all stall clocks */
uint64_t wsim_cell_unit_stalls(const wsim *s, int cell); /* of which: waiting for a busy unit */
/* iWarp: the cells' communication agents, to inspect through warp_comm.h; NULL on Warp. */
const wca *wsim_comm(const wsim *s);
/* Why the cell's next bundle could not issue in the coming clock ("waits on queue
 * xl (empty)", ...), as the wait-for report says it; "" if it could. */
void wsim_cell_wait(const wsim *s, int cell, char *buf, size_t size);
/* The hardware return stack: its depth, and up to max return addresses (bundle
 * indices), innermost first. */
unsigned wsim_cell_return_stack(const wsim *s, int cell, uint32_t *pcs, unsigned max);

/* A queue's occupancy (a channel's end): words a bundle could dequeue now, words on
 * the link (sent, not arrived), slots reserved by writes in flight, and its depth. */
typedef struct wsim_queue_state {
    unsigned waiting, on_link, reserved, capacity;
} wsim_queue_state;
void wsim_queue_info(const wsim *s, int cell, int q, wsim_queue_state *out);

/* ---- A test bench's host (sim_bench.c) ----------------------------------------- */
/* For runs on one thread: a faulting threaded run is made again from scratch, without
 * the words fed ahead or kept. */

/* Puts n words in queue q (WT_Q_*) of a cell facing the host on that side, as if the
 * host had fed them before the first clock: the upstream neighbour of a one-cell test
 * bench. The queue grows to hold them (WCA_QUEUE_MAX words at most), so a bench may
 * hand more than the machine's depth. 0, or -1 if the run has started, the cell does
 * not face the host on side q, or the words do not fit. */
int wsim_host_feed_ahead(wsim *s, int cell, int q, const uint32_t *words, unsigned n);
/* From now on keeps every word the end cells send the host, including those given
 * the address 0xFFFFFFFF (dropped) and those that never get an address. */
void wsim_keep_host_words(wsim *s);
/* The words cell sent the host through side q, oldest first: those kept since
 * wsim_keep_host_words, then those still waiting for an address. Returns the count,
 * copies at most max. */
unsigned wsim_host_words(const wsim *s, int cell, int q, uint32_t *words, unsigned max);

/* ---- Pictures of a run (sim_trace.c) ------------------------------------------- */

/* What to write while the run goes on. The trace and the VCD hold the clocks
 * from <= t < to only (to = UINT64_MAX: to the end); the heat map always shows the
 * whole run. Files are written beside their target and renamed into place. */
typedef struct wsim_pictures {
    const char *trace;      /* Chrome/Perfetto trace-event JSON: a track a cell with a
                               slice for each run of clocks issuing from one source
                               line or stalled, and a counter of its queues' fill */
    const char *vcd;        /* Value Change Dump: every queue's fill, every channel's busy state */
    const char *heatmap;    /* SVG of the array: cells coloured by heat_by, links by words */
    int heat_by_stalls;     /* colour cells by their share of stalled clocks, not unit use */
    uint64_t from, to;
} wsim_pictures;

typedef struct wsim_tracer wsim_tracer;

/* NULL with a reason in err if a file cannot be opened. Before the run starts. */
wsim_tracer *wsim_tracer_new(wsim *s, const wsim_pictures *p, char *err, size_t errlen);
/* wsim_run, recording each clock: the same clocks, results and statistics. */
wsim_status wsim_run_traced(wsim *s, wsim_tracer *tr, uint64_t max_cycles);
/* Writes what is left (the heat map, the last slices) and renames the files into
 * place; 0, or -1 with a reason in err (nothing is left behind). Frees tr. */
int wsim_tracer_finish(wsim_tracer *tr, char *err, size_t errlen);
/* Drops the files unwritten. Frees tr; NULL is fine. */
void wsim_tracer_abort(wsim_tracer *tr);

#endif
