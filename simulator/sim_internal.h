/* The simulator's internal state, shared by its source files only.
 *
 * Time is counted in clocks t = 0, 1, 2, ...  Every change that is not an issue is
 * an *event* stamped with the clock from which it is visible: a result written at
 * t+L, a word reaching a queue at t+L+link, a unit free again at t+interval, a cell
 * allowed to issue at its skewed start or after a two-clock bundle. `horizon` is the
 * latest stamp ever scheduled; once the clock has passed it nothing can change any
 * more unless a cell issues, which is what makes the deadlock test exact. */
#ifndef WSIM_INTERNAL_H
#define WSIM_INTERNAL_H

#include <time.h>

#include "warp_comm.h"
#include "warp_sim.h"
#include "warp_support.h"

/* The gates a bundle names: 0..3 the direction gates (WT_Q_*), 4 and 5 iWarp's @g0, @g1,
 * then the Warp's paths (WT_PATH rows: @adr), which a cell reads as a gate. */
#define WSIM_GATE_PATH WCA_NGATES
#define WSIM_NGATES (WCA_NGATES + WT_NPATHS)
_Static_assert(WSIM_NGATES <= 8, "a bundle's gates are bits of a byte");

/* A cell's source operand file: one flat array so that every operand, whatever it
 * names, is read as src[index] with no branch. Registers keep their codes; r0 is
 * never written, so it stays 0. Control registers are copied in at issue by the
 * bundles that read them. */
enum {
    SRC_CID = WT_OPND_CID,      /* 64 */
    SRC_GATE = WT_OPND_GATE,    /* 65..: the words this bundle dequeued, by gate */
    SRC_IMM0 = SRC_GATE + WSIM_NGATES,
    SRC_IMM1,
    SRC_CTL,                    /* + wt_ctl */
    SRC_N = SRC_CTL + WT_NCTL
};

/* A result on its way: applied at the start of the clock it lands in. */
typedef struct wsim_write {
    uint32_t val;
    uint16_t pc;             /* the issuing bundle, to name it if a host store faults */
    uint8_t dst;
    uint8_t tag;             /* a gate write's marker */
} wsim_write;

/* One operation of a bundle, resolved once when the simulator is made. */
typedef struct wsim_dop {
    uint8_t op, kind, slot, uclass;
    uint8_t a, b, c;       /* src[] indices of A, B, C; a store's value and a branch's
                              condition or counter are in c; unused ones are 0 (r0) */
    uint8_t dst;           /* destination operand code; 0 when none (r0 drops writes) */
    uint8_t lat, interval;
    uint8_t pair;          /* double precision: bit 0 A, bit 1 B, bit 2 the result are pairs */
    uint8_t tag;           /* the marker a gate write carries (WT_MARK_DATA but for markers) */
    uint8_t wr;            /* WSIM_WR_*: where the result goes, decided once */
    wsim_write proto;      /* its pending write but for the value: one store */
} wsim_dop;

/* Where an operation's result goes. */
enum {
    WSIM_WR_NONE,  /* nowhere: no destination, or r0 */
    WSIM_WR_WHEEL, /* a register, gate or control register: into the wheel and no more at
                      issue, its event (a Warp word's arrival over the link) counted in the
                      bundle's event offset */
    WSIM_WR_HOST   /* a host feed or address, which only a cell facing that side keeps */
};

/* Operations issued by unit class (but WT_UC_NONE, which no slot has) are counted in
 * lanes of one word per cell, lane uc-1 for class uc, added
 * once a bundle (wsim_bundle.class_inc) and carried into class_ops every
 * WSIM_LANE_FLUSH issues, before a lane can overflow (a bundle adds at most 2 a class). */
#define WSIM_LANE_BITS 10
#define WSIM_LANE_FLUSH 256u

/* Why a bundle faults when issued (wsim_bundle.bad): target's decoder finds them. */
enum {
    WSIM_BAD_NONE = WT_FAULT_NONE, WSIM_BAD_UNDEFINED = WT_FAULT_UNDEFINED,
    WSIM_BAD_MARKER_DEST = WT_FAULT_MARKER_DEST, WSIM_BAD_CREQ_GATES = WT_FAULT_CREQ_GATES,
    WSIM_BAD_TWO_WAITS = WT_FAULT_TWO_WAITS, WSIM_BAD_NO_AGENT = WT_FAULT_NO_AGENT,
    WSIM_BAD_NO_DOUBLE = WT_FAULT_NO_DOUBLE, WSIM_BAD_NO_PATH = WT_FAULT_NO_PATH,
    WSIM_BAD_PATH_WRITE = WT_FAULT_PATH_WRITE, WSIM_BAD_IU_ONLY = WT_FAULT_IU_ONLY
};

/* Two cache lines: the fields issue tests first, then the operations. */
typedef struct wsim_bundle {
    uint8_t nops;
    uint8_t bad;             /* WSIM_BAD_*: faults when issued */
    uint8_t gate_rd;         /* input gates dequeued, bit g: each once, however often named */
    uint8_t out_mask, feed_mask;
    uint8_t wait_op;         /* 1 + index in ops of a creq or evwait, which may block; 0 */
    uint8_t clocks;          /* 1, or more under the iWarp gate and integer rules */
    uint8_t io;              /* it names a gate or control register, or may wait */
    uint8_t slow_units;      /* an operation keeps its unit busy for more than a clock */
    uint8_t plain;           /* in a cell's copy: none of the rarer cases (a fault known at
                                decode, creq or evwait, control registers, host feeds,
                                the agent's or double operations, an end cell with an
                                IU), so issue takes the path compiled without them */
    uint8_t nop;             /* in a cell's copy: plain, no gate, one clock, not the last
                                bundle, and no operation left but at most one pure one whose
                                result the cell drops and which keeps its unit busy for
                                more than a clock: issuing it changes only the cell's pc,
                                counters and that unit (the clock loops issue it ahead) */
    uint16_t slot_mask;      /* slots with an operation, for the unit-busy test */
    uint16_t target;
    uint8_t out_n[WSIM_NGATES], feed_n[WT_NQUEUES]; /* words written to each gate */
    /* gate_rd and out_mask as lists, lowest gate first: the issue loops run on them */
    uint8_t n_in, n_out, in_g[WSIM_NGATES], out_g[WSIM_NGATES];
    uint32_t ctl_rd;         /* control registers read, bit wt_ctl */
    uint8_t ev;              /* the latest event an issue schedules, in clocks after it: a
                                register write landing, a unit freed, a two-clock bundle's
                                end (gate, host and control writes note their own) */
    uint32_t imm[2];
    uint64_t class_inc;      /* operations by unit class, in lanes (WSIM_LANE_BITS) */
    wsim_dop ops[WT_NSLOTS]; /* stores last: memory is written after every read */
} wsim_bundle;

/* A gate write lands in the queue its gate is bound to then, which is the one whose
 * slot it reserved at issue: the agent refuses to rebind an output gate while a write
 * to it is under way. */

/* Input queues are wca_queue (simulator/comm/warp_comm.h). Words enter one when their
 * writer completes (so arrival stamps rise with the position) and leave at dequeue;
 * `used` counts words plus the slots writers reserved at issue: the sender's credit,
 * so a completing write always finds room. On Warp each cell owns its four queues and
 * a gate write fills the neighbour's; on iWarp the communication agent owns them. */

/* A FIFO at the host: words sent off the end of the array, or the addresses the end
 * cell gave for them. Unbounded, as the host's memory is. */
typedef struct wsim_hentry {
    uint32_t val;
    uint32_t pc;
    uint64_t time;
} wsim_hentry;

typedef struct wsim_hfifo {
    wsim_hentry *e;
    size_t head, count, cap; /* cap is a power of two */
} wsim_hfifo;

/* The interface unit's state for one end cell it serves (simulator/iu.c). */
typedef struct wsim_iu_side wsim_iu_side;

/* Slots of a cell's wheel at the most: a power of two above the longest latency of
 * warp_ops.def (wsim_new refuses a model that needs more). */
#define WSIM_WHEEL_SLOTS 32

typedef struct wsim_cell {
    /* What every clock touches first, together, in the cell's first cache line. */
    const wsim_bundle *code; /* the program as this cell runs it (wsim.code_for) */
    uint32_t pc;
    wsim_cell_state state;
    uint64_t next_issue;     /* skewed start, or the clock after a two-clock bundle */
    uint16_t wheel_n[WSIM_WHEEL_SLOTS]; /* writes pending in each slot of the wheel */
    uint8_t feed_live, addr_live; /* bit q: this cell is the end facing side q */
    uint64_t busy_max;       /* max of busy_until: skips the unit test when all are free */
    uint64_t mem_taken_until; /* iWarp: the memory agent holds the memory bus before this clock */
    uint64_t ahead;          /* 1 + the clock whose nop bundle warp_clock issued a clock early */
    uint64_t ahead_busy_max, ahead_busy; /* what that nop's slow unit and busy_max were: unissue_ahead */
    wsim_write *wheel;       /* wheel_slots x wheel_cap pending writes, by landing clock */
    /* By gate: the queue an input gate reads (NULL: unbound), the queue an output gate
     * fills (NULL on Warp: the host). On iWarp the agent keeps them current. */
    wca_queue *in[WSIM_NGATES], *out[WSIM_NGATES];
    wca_queue *feedq[WT_NQUEUES]; /* the queue a host-feed gate fills */
    wsim_iu_side *iu;        /* an end cell with an IU program: the IU's part beside it; NULL */
    uint32_t src[SRC_N];
    uint64_t busy_until[WT_NSLOTS];
    /* iWarp: the clock from which each gate's internal bus (input gates, then output
     * gates) carries its next word (wt_model.gate_word_clocks). */
    uint64_t gate_free[2][WSIM_NGATES];
    unsigned rsp;
    uint32_t *rstack;
    uint8_t *mem;
    uint64_t issued, stall_queue, stall_unit;
    uint64_t class_ops[WT_NUCLASSES]; /* but those still in class_lanes */
    uint64_t class_lanes;
    wca_queue q[WT_NQUEUES];     /* Warp: the cell's input queues */
    /* Warp: each path's queue (in[WSIM_GATE_PATH + p] reads it), the next cell's, to
     * which a word read is passed on (NULL at the last cell: dropped), and the most
     * words the writer ever found in the queue it fills. */
    wca_queue path[WT_NPATHS];
    wca_queue *path_next[WT_NPATHS];
    uint32_t path_peak[WT_NPATHS];
    uint64_t path_reads[WT_NPATHS];
} wsim_cell;

/* sim_threads.c: runs work(ctx, part) for parts 0..n-1, part 0 on the caller's thread. */
typedef struct wsim_pool wsim_pool;
wsim_pool *wsim_pool_new(int n, void (*work)(void *ctx, int part), void *ctx);
int wsim_pool_size(const wsim_pool *p); /* fewer than asked if a thread could not start */
void wsim_pool_run(wsim_pool *p);
/* A fine clock for the threads' figures: the time stamp counter where there is one. */
static inline uint64_t wsim_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}
/* Ends the threads; with use, a new array of what each did (0 the caller), and
 * returns how many there were. */
int wsim_pool_free(wsim_pool *p, wsim_thread_use **use);

/* One thread's share of a clock: cells lo..hi-1 (Warp) or those in runs (iWarp),
 * none of which touches a cell of another share, and what its issues add to the
 * whole array's figures. */
/* Clocks an iWarp group runs between two barriers: no more than a word takes to cross
 * a link or a dequeue signal to return a credit (iwarp_window_parallel). */
#define WSIM_WINDOW 2

typedef struct wsim_part {
    _Alignas(WS_CACHE_LINE) int lo, hi;
    int *runs, nruns;        /* iWarp: the group's cells, runs of them: [runs[2i], runs[2i+1]) */
    uint64_t busy;           /* iWarp: wsim_ticks its windows took since the groups were last cut */
    uint64_t horizon;
    int nhalted, issued;
    /* iWarp: clock j of the window, for deciding it as one pass does: the horizon
     * after the agents' step and after the issue, whether the step changed anything,
     * whether a cell issued, the cells halted and the bus steps without credit by
     * its end. */
    struct {
        uint64_t stepped, issued_by, blocked;
        int progress, issued, nhalted;
    } at[WSIM_WINDOW];
} wsim_part;

struct wsim {
    wsim_program prog;
    const wt_model *model;
    wsim_bundle *code;       /* the program as decoded, which reports describe */
    /* The program as the cells with host-feed sides m (bit q: the end facing side q)
     * run it: the operations whose only effect is a feed or address write a cell with
     * no such side drops are gone, so an inner cell never looks at them. */
    wsim_bundle *code_for[1u << WT_NQUEUES];
    uint32_t ncode;
    int ncells;
    wsim_cell *cells;
    uint64_t cycle;          /* the clock about to run; the cycle count once stopped */
    uint64_t horizon;        /* latest event stamp scheduled */
    wsim_status status;
    int at_limit;            /* wsim_run stopped at its limit (status stays RUNNING) */
    int data_only;           /* iWarp: the agents only move data (no spool takes a cell's memory) */
    uint64_t limit;          /* wsim_run's limit: a nop is issued ahead only before it */
    int nhalted;
    unsigned wheel_mask, wheel_cap;
    unsigned qcap, link;
    unsigned gate_clocks;     /* wt_model.gate_word_clocks */
    wca *comm;               /* iWarp: the communication agents; NULL on Warp */
    wca_config comm_cfg;     /* their topology, for pictures of the array */
    uint64_t agent_clock;    /* 1 + the clock the agents last stepped */
    int agent_progress;      /* they changed something in that clock */
    uint8_t *host;
    uint32_t host_size;
    /* By cell * WT_NQUEUES + q, for the sides facing the host (`ends`): the words
     * the cell sent the host, the addresses it gave for them. sink_n and addr_n
     * count the entries of all, so a clock with nothing to pair skips them. */
    wsim_hfifo *sink, *addr;
    int *ends;
    int nends;
    size_t sink_n, addr_n;
    /* wsim_keep_host_words: by the same index, every word the host paired (ws_buf of
     * uint32_t), for a test bench; NULL: none kept. */
    ws_buf *kept;
    uint64_t iu_words_out, iu_host_stores; /* with an IU: words that left the array, stored */
    char *msg;
    /* Threads (wsim_set_threads). Warp: a clock runs its parts at once, then the
     * cells between parts (`seam`) alone, in order: the same clock as one pass,
     * because no cell sees what another does within a clock. iWarp: each part runs a
     * window of WSIM_WINDOW clocks at once (iwarp_window_parallel). */
    int threads;             /* asked for; 1: one pass */
    int nparts;              /* parts of this run; 0: one pass */
    wsim_part *parts;
    int ngroups;             /* entries of parts: nparts, and on iWarp the cells facing the host */
    int *cut;                /* iWarp: group i is cells cut[i] .. cut[i+1]-1 but those facing the host */
    uint64_t windows;        /* iWarp: windows run on the threads */
    int *seam;
    int nseam;
    wsim_pool *pool;
    int in_parallel;         /* a parallel phase runs: a fault is only noted (par_fault) */
    int par_fault;           /* atomic: a cell faulted or waited against the skew in one */
    uint8_t *host_at_start;  /* host memory before the first clock, for a run again alone */
    wsim_thread_use *thread_use; /* the last threaded run's threads (wsim_thread_figures) */
    int nthread_use;
};

/* Operations of unit class uc the cell issued. */
static inline uint64_t wsim_class_ops(const wsim_cell *c, unsigned uc)
{
    if (uc == WT_UC_NONE) return c->class_ops[uc];
    return c->class_ops[uc] + ((c->class_lanes >> (WSIM_LANE_BITS * (uc - 1))) & ((1u << WSIM_LANE_BITS) - 1));
}

static inline uint32_t wsim_load32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A write that lands at clock `when` in cell c's wheel: a host feed or address the IU
 * gives for that cell's end (sim.c). */
void wsim_schedule_write(wsim *s, wsim_cell *c, unsigned dst, uint32_t val, uint64_t when, uint32_t pc);

/* iu.c: the interface unit. wsim_iu_check refuses an IU program the IU cannot run
 * (-1 with a reason). wsim_iu_ready: may the end cell issue bundle pc, the IU's feeds
 * finding room? wsim_iu_issue runs IU bundle pc beside it and returns the clocks the
 * pair takes (the IU link moves one word in a clock). */
int wsim_iu_check(const wt_model *m, const wt_insn *code, uint32_t ncode, char *err, size_t errlen);
/* The IU's side beside end cell c, its program decoded for that side (c's feed_live set). */
wsim_iu_side *wsim_iu_side_new(const wsim *s, const wsim_cell *c);
void wsim_iu_side_free(wsim_iu_side *u);
int wsim_iu_ready(const wsim *s, const wsim_cell *c, uint32_t pc, uint64_t t);
unsigned wsim_iu_issue(wsim *s, wsim_cell *c, uint32_t pc, uint64_t t);
void wsim_iu_print_stats(const wsim *s, FILE *out);

/* sim_report.c: the fault and deadlock messages. */
void wsim_fault(wsim *s, int cell, uint32_t pc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void wsim_deadlock(wsim *s);
/* A flow-controlled cell found a queue empty or full: stops the run (WSIM_FLOW_BUG). */
void wsim_flow_bug(wsim *s, int cell, uint32_t pc, uint64_t t);
/* The latest clock anything scheduled happens, the agents' included. */
uint64_t wsim_horizon(const wsim *s);
/* The gate an operand code names (0..5), or -1. */
static inline int wsim_gate_of(unsigned o)
{
    if (wt_opnd_is_gate(o)) return (int)(o - WT_OPND_GATE);
    if (wt_opnd_is_pgate(o)) return (int)(o - WT_OPND_PGATE) + WT_NQUEUES;
    if (wt_opnd_is_path(o)) return (int)(o - WT_OPND_PATH) + WSIM_GATE_PATH;
    return -1;
}
/* "@xl", "@g0", "@adr": the operand of gate g (wsim_gate_of). */
static inline const char *wsim_gate_name(unsigned g)
{
    if (g >= WSIM_GATE_PATH) return wt_opnd_name(WT_OPND_PATH + g - WSIM_GATE_PATH);
    return wt_opnd_name(g < WT_NQUEUES ? WT_OPND_GATE + g : WT_OPND_PGATE + g - WT_NQUEUES);
}
/* Why a cell's next bundle cannot issue at clock t; "" if it can. */
void wsim_wait_reason(const wsim *s, int cell, uint64_t t, char *buf, size_t size);
/* "FILE:LINE" of a program address through the program's callback; NULL if unknown. */
const char *wsim_where(const wsim *s, uint32_t pc, char *buf, size_t size);

#endif
