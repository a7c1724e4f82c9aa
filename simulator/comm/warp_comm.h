/* The iWarp communication agent of every cell of an array (seed 000, sections 4 to 8;
 * docs/design.md, section 7): physical buses between neighbours, logical channels with
 * 8-word queues and credit flow control, a round-robin scheduler per bus, the 20x20
 * crossbar, pathways built by markers with street-sign routing, the match CAM, events
 * for the computation agent, and the memory agent's spool gates.
 *
 * The simulator drives it: it reads and writes the queues bound to the gates itself
 * (the inline helpers below, the hot path), tells the agent of each word it put in or
 * took out, hands it the control-register accesses and operations of its bundles, and
 * calls wca_step once a clock, after results have landed and before any cell issues.
 *
 * Time is the simulator's clock. Every word in a queue carries the first clock it may
 * leave; nothing the agent does at clock t is seen by anyone before t+1 unless it says
 * so, so the order in which buses and cells are visited never changes a result. */
#ifndef WARP_COMM_H
#define WARP_COMM_H

#include <stdint.h>
#include <stdio.h>

#include "warp_target.h"

/* ---- Queues ------------------------------------------------------------------------ */

typedef struct wca_qword {
    uint32_t word;
    uint8_t tag;             /* wt_marker, | WCA_TAG_SEEN once the agent has acted on it */
    uint64_t arrival;        /* first clock it may leave the queue */
} wca_qword;

#define WCA_TAG_SEEN 0x80
#define WCA_TAG_KIND 0x0f

/* A FIFO of words. `used` counts the words plus the slots writers reserved when their
 * bundle issued (the sender's credit on the internal bus), so a completing write
 * always finds room. 32 bytes on a 32-byte boundary: one cache line however queues
 * are laid out (a writer's first touch of its neighbour's queue is the simulator's
 * costliest memory access). */
typedef struct wca_queue {
    _Alignas(32) wca_qword *ring;
    uint32_t head, count, used;
    uint16_t cap, mask;
    uint64_t deq_clock;      /* clock of the last dequeue; UINT64_MAX if none */
} wca_queue;

#define WCA_QUEUE_MAX 32768      /* words a queue can hold */
void wca_queue_init(wca_queue *q, unsigned cap);
void wca_queue_fini(wca_queue *q);

/* May a reader take a word at clock t?  Pathway markers are the agent's, never a gate's. */
static inline int wca_queue_ready(const wca_queue *q, uint64_t t)
{
    const wca_qword *w = &q->ring[q->head];
    return q->count && w->arrival <= t && !(w->tag & WT_MARK_AGENT);
}

/* Slots a writer issuing at clock t sees taken: one freed at t counts from t+1. */
static inline unsigned wca_queue_used_at(const wca_queue *q, uint64_t t)
{
    return q->used + (q->deq_clock == t);
}

/* Appends a word whose slot was reserved (used already counts it). */
static inline void wca_queue_put(wca_queue *q, uint32_t word, uint8_t tag, uint64_t arrival)
{
    wca_qword *w = &q->ring[(q->head + q->count) & q->mask];
    q->count++;
    w->word = word;
    w->tag = tag;
    w->arrival = arrival;
}

/* Takes the head word at clock t. */
static inline wca_qword wca_queue_take(wca_queue *q, uint64_t t)
{
    wca_qword w = q->ring[q->head];
    q->head = (q->head + 1) & q->mask;
    q->count--;
    q->used--;
    q->deq_clock = t;
    return w;
}

/* ---- Topology and configuration -------------------------------------------------------- */

/* The physical buses of a cell, in the seed's order (sec. 4, figure 5). Output bus d
 * leads to the neighbour in direction d, which hears it on its input bus d ^ 2: the
 * input bus is named for the side its words come from. */
enum { WCA_XRIGHT, WCA_YUP, WCA_XLEFT, WCA_YDOWN, WCA_NBUSES };
static inline unsigned wca_opposite(unsigned bus) { return bus ^ 2; }

typedef enum wca_topology {
    /* A row of cells with the host past both ends. X and Y are the two paths of the
     * W2 contract: XRight and YUp lead to the right neighbour, XLeft and YDown to the
     * left one (iWarp's buses are independent, sec. 4, so this wiring is legal). */
    WCA_LINEAR,
    /* W x H cells, cell (x, y) at index y*W + x; X wraps along rows, Y along columns
     * (YUp toward y+1). No host link, unless host_edges. */
    WCA_TORUS
} wca_topology;

typedef struct wca_config {
    wca_topology topology;
    int width, height;           /* torus; a linear array is ncells x 1 */
    /* Torus: the buses that would wrap around lead to and from the host instead, as
     * past the ends of a linear array: XLeft of column 0, XRight of column W-1,
     * YDown of row 0 and YUp of row H-1 (a 2-D W2 cellprogram; the image says so). */
    int host_edges;
    /* Static allocation (sec. 5.1): on every bus, channels 0..res-1 belong to the
     * reservation pool and res..res+open-1 to the open pool; each cell's input
     * channels past 4*(res+open) are local, fed by its computation or memory agent. */
    unsigned res_per_bus, open_per_bus;
} wca_config;

#define WCA_MAX_SIDE 32          /* tori up to 32 x 32 */

/* The configuration warp-sim uses when none is given: linear, 2 reservation and 1
 * open channel a bus (12 bus channels and 8 local ones a cell). */
void wca_config_default(wca_config *cfg);
/* Parses "linear" or "torus:WxH" (warp-sim --topology), and "R,O" (--channels).
 * 0, or -1 with a reason in err. */
int wca_parse_topology(const char *text, wca_config *cfg, char *err, size_t errlen);
int wca_parse_channels(const char *text, wca_config *cfg, char *err, size_t errlen);

/* ---- The agents of an array ------------------------------------------------------------ */

typedef struct wca wca;

typedef struct wca_hooks {
    void *ctx;
    /* A word an end cell sent past the end of a linear array (or an edge cell off
     * the edge of a torus with host_edges), reaching the host at `arrival`; bus is
     * that cell's output bus. */
    void (*host_sink)(void *ctx, int cell, unsigned bus, uint32_t word, uint64_t arrival);
} wca_hooks;

/* NULL with a reason in err if the configuration does not fit the model or the cells. */
wca *wca_new(const wt_model *model, const wca_config *cfg, int ncells, const uint32_t *cids,
             const wca_hooks *hooks, char *err, size_t errlen);
void wca_free(wca *a);
/* The cell's data memory, which its spool gates read and write; taken_until (or
 * NULL), the clock before which the memory agent holds the cell's memory bus and
 * the computation agent issues nothing (seed 000, sec. 7.2: spooling "steals memory
 * and computation cycles"), which the agent raises. */
void wca_attach_memory(wca *a, int cell, uint8_t *mem, uint32_t size, uint64_t *taken_until);

/* The systolic connections of the W2 contract: on every cell, channel 0 of each bus
 * carries the direction gate's words (@xr out on XRight, @xl in from XLeft, ...), fed
 * by one local channel per output gate, pinned for the whole run. 0, or -1 with a
 * reason (no reservation channel, fewer than four local channels). */
int wca_setup_systolic(wca *a, char *err, size_t errlen);

/* The gates of a cell: 0..3 the direction gates (WT_Q_*), 4 and 5 @g0 and @g1. The
 * agent keeps the tables current; an entry is NULL while the gate is not bound. */
#define WCA_NGATES 6
wca_queue *const *wca_gate_inputs(const wca *a, int cell);
wca_queue *const *wca_gate_outputs(const wca *a, int cell);
/* From now on the agent keeps a cell's gate tables in the caller's arrays (of
 * WCA_NGATES entries, outliving the agent), which saves the simulator's hot path a
 * pointer; they start as copies of the current ones. */
void wca_use_gate_tables(wca *a, int cell, wca_queue **in, wca_queue **out);
/* The queue an end cell's host-feed gate fills for its direction gate q. */
wca_queue *wca_feed_queue(wca *a, int cell, unsigned q);

/* A word was appended to queue q (one of the agent's) at clock t: linked channels,
 * spools and markers take note. */
void wca_pushed(wca *a, wca_queue *q, uint64_t t);
/* Appends a word to queue q (one of the agent's) whose slot was reserved, and takes
 * note as wca_pushed: the path of every word a cell writes to a gate. */
void wca_put(wca *a, wca_queue *q, uint32_t word, uint8_t tag, uint64_t arrival);
/* The program moves data only, over the links it has now, which stay (no markers,
 * spools, joins, control registers, @g0 or @g1: see the threads below). A word put
 * at its arrival clock into the only linked channel of a free bus then crosses in
 * wca_put, as the bus's step at that clock would take it, and the bus is not
 * activated to find it. */
void wca_move_data_only(wca *a);
/* Cell `cell` took word w through input gate `gate` at clock t: the dequeue signal
 * restores the transmitter's credit. */
void wca_dequeued(wca *a, int cell, unsigned gate, wca_queue *q, uint8_t tag, uint64_t t);

/* One clock of every agent: markers acted on, one word a free bus, spools. Returns 1
 * if anything changed (a cell may now issue), 0 if the agents are idle or blocked. */
int wca_step(wca *a, uint64_t t);
/* The latest clock at which something the agents scheduled happens. */
uint64_t wca_horizon(const wca *a);

/* Threads (the simulator's --threads), for agents that move data only (no markers,
 * spools, joins or control registers: the order in which those act across cells is
 * the routing's). Each cell belongs to a part, whose buses and cells one thread runs
 * through a window of clocks while the other parts run theirs. What a part does to
 * another part's cells, a word crossing a bus or a dequeue signal, takes effect
 * `link` or `credit_latency` clocks later, so within a window of no more clocks than
 * either it is kept with the part (a crossing) and applied by wca_parts_merge.
 * Moving data, buses give the same clock in any order. wca_use_parts(a, 0, NULL)
 * ends it, and wca_step works on the whole array again. */
int wca_neighbour(const wca *a, int cell, unsigned bus); /* a cell index, or -1 */
void wca_use_parts(wca *a, int nparts, const int *part_of);
/* On the calling thread, what the agents schedule and whether they changed anything
 * count in the part, until wca_part_end. */
void wca_part_begin(wca *a, int part);
void wca_part_end(wca *a);
/* One clock of the part's buses: whether they, or words that crossed a bus as they
 * landed since the last call, changed anything. */
int wca_step_part(wca *a, int part, uint64_t t);
/* The latest clock the part's agents have scheduled something for since
 * wca_part_begin, and the bus steps that found no credit. */
uint64_t wca_part_horizon(const wca *a, int part);
uint64_t wca_part_blocked(const wca *a, int part);
/* After a window, on one thread: applies every part's crossings (in part order, each
 * part's in the order made) and adds the parts' figures to the array's. */
void wca_parts_merge(wca *a);

/* ---- The computation agent's requests ------------------------------------------------ */

/* Could operation op (WT_K_COMM) with sources A, B issue now, or must it block? */
int wca_op_ready(const wca *a, int cell, wt_op op, uint32_t A, uint32_t B, uint64_t t);
/* Performs it at issue clock t; *result is its value. 0, or -1 with a fault in err. */
int wca_op(wca *a, int cell, wt_op op, uint32_t A, uint32_t B, uint64_t t, uint32_t *result, char *err,
           size_t errlen);
uint32_t wca_ctl_read(const wca *a, int cell, wt_ctl reg);
/* A write landing at clock t. 0, or -1 with a fault in err. */
int wca_ctl_write(wca *a, int cell, wt_ctl reg, uint32_t value, uint64_t t, char *err, size_t errlen);

/* Events (sec. 7.3): kinds are the marker tags, plus these. */
enum {
    WCA_EV_SPOOL = 6,            /* a spool gate stopped; its word: gate | reason << 8 */
    WCA_EV_ROUTE = 7             /* a begin marker could not be routed; its word: the marker */
};
#define WCA_EVENT_DEPTH 16

/* ---- Inspection, statistics, waits ------------------------------------------------- */

int wca_channels(const wca *a);                 /* logical channels of each kind a cell */
/* "in XLeft.0", "out XRight.1", "local 3": a channel of a cell, for messages. */
void wca_lic_name(const wca *a, int lic, char *buf, size_t size);
void wca_loc_name(const wca *a, int loc, char *buf, size_t size);
/* The global number (cell * wca_channels + n) of the input channel a queue of the
 * agents belongs to. */
int wca_queue_channel(const wca *a, const wca_queue *q);
/* Words in a cell's input channel n that a reader could see now or later, oldest
 * first; returns the count, copies at most max (with their tags if tags != NULL). */
unsigned wca_lic_words(const wca *a, int cell, int n, uint32_t *words, uint8_t *tags, unsigned max);
/* The output channel cell-local input channel n is linked to, or -1. */
int wca_lic_link(const wca *a, int cell, int n);
/* Is output channel n of the cell free for a request or a marker? */
int wca_loc_free(const wca *a, int cell, int n);
/* Clock at which the last word on output channel n of the cell started across its bus. */
uint64_t wca_loc_last_sent(const wca *a, int cell, int n);
uint64_t wca_loc_words(const wca *a, int cell, int n);
uint64_t wca_bus_words(const wca *a, int cell, unsigned bus);
/* The first clock at which the bus is free again: it carries a word at clock t if t is
 * earlier (warp-sim --vcd). */
uint64_t wca_bus_busy_until(const wca *a, int cell, unsigned bus);
unsigned wca_events_waiting(const wca *a, int cell);

/* Per-bus and per-channel figures, as --stats prints them (only what carried or
 * waited for something), with `cycles` clocks run:
 *   bus cell K XRight: words W, busy B (P%), blocked X
 *   channel cell K out XRight.0: words W, blocked X (no credit), waited Y (bus taken) */
void wca_print_stats(const wca *a, FILE *out, uint64_t cycles);

/* Why a queue does not move: what the deadlock report follows. */
typedef enum wca_party {
    WCA_BY_NOBODY,               /* nothing feeds or drains it: a channel left unlinked */
    WCA_BY_GATE,                 /* a cell's computation agent through a gate */
    WCA_BY_SPOOL,                /* a cell's spool gate */
    WCA_BY_HOST,                 /* the host past the end of the array */
    WCA_BY_ROUTING,              /* a begin marker waiting for a free channel */
    WCA_BY_UNBOUND               /* a channel at a pathway's end no gate or spool is bound to */
} wca_party;

typedef struct wca_trace {
    wca_party party;
    int cell;                    /* where the party is */
    int gate, spool, lic;        /* which gate, spool or input channel (cell-local) */
    unsigned bus, pool;          /* WCA_BY_ROUTING: the free channel it waits for */
    uint32_t word;               /* WCA_BY_ROUTING: the begin marker's routing word */
    char path[256];              /* the channels followed, "out XRight.0 > in XLeft.0 > ..." */
} wca_trace;

/* Who must write for queue q (empty) to get a word, following linked channels
 * upstream; and who must read for q (full) to get room, following them downstream. */
void wca_trace_feeder(const wca *a, const wca_queue *q, wca_trace *tr);
void wca_trace_drainer(const wca *a, const wca_queue *q, wca_trace *tr);
/* The cells whose pathways hold every channel of pool `pool` on a bus of a cell (the
 * cells that must send an end marker); returns the count, at most max stored. */
int wca_pool_holders(const wca *a, int cell, unsigned bus, unsigned pool, int *cells, int max);
/* The output channels of pool `pool` on a bus of a cell that pathways may take
 * (global numbers; the systolic connections, never released, are counted in *pinned
 * instead); returns the count, at most max stored. */
int wca_pool_channels(const wca *a, int cell, unsigned bus, unsigned pool, int *locs, int max, int *pinned);

/* Who holds an output channel (global number) and what its release waits for: the
 * end marker of the pathway of `owner` must cross it. */
typedef struct wca_hold {
    int owner;                   /* the cell whose pathway holds it */
    int end_sent;                /* the end marker is queued on the way to it */
    int joined;                  /* a join gave it to another pathway's words for now */
    const wca_queue *feed;       /* the input channel feeding it now, or NULL */
} wca_hold;
/* 1 and *h if a pathway holds the channel, 0 if it is free or systolic. */
int wca_loc_hold(const wca *a, int loc, wca_hold *h);

/* A running spool gate, which in a frozen state waits: an in spool for a word in its
 * channel, an out spool for room in its channel or, in follow mode, for its partner. */
typedef struct wca_spool_wait {
    int out;                     /* memory to channel */
    const wca_queue *q;          /* its channel's queue */
    int lic;                     /* its channel, cell-local */
    int partner;                 /* follow mode: the spool it has caught up with, else -1 */
    uint32_t count, addr;        /* words left (0: no count), the next address */
} wca_spool_wait;
unsigned wca_spools(const wca *a);             /* spool gates a cell */
/* 1 and *w if spool gate s of the cell is running, 0 if it is stopped. */
int wca_spool_waiting(const wca *a, int cell, unsigned s, wca_spool_wait *w);

/* A cell's local input channels, and what takes those that are not free (creq
 * waits for a free one). */
typedef struct wca_local_use {
    int total;
    int systolic;                /* the W2 contract's, for good */
    int pathways;                /* linked to an output channel: pathways the cell opened */
    int gates;                   /* bound to an output or input gate */
    int spools;                  /* filled or drained by a spool gate */
    int queued;                  /* none of those, but words are still queued or being dropped */
} wca_local_use;
void wca_local_use_of(const wca *a, int cell, wca_local_use *u);

/* For a cell blocked in creq or evwait: what it waits for, as text. */
void wca_op_wait(const wca *a, int cell, wt_op op, uint32_t A, uint32_t B, char *buf, size_t size);
/* Begin markers of a cell waiting at the head of a channel for a free output channel:
 * fills *tr (party WCA_BY_ROUTING) for the n-th one; 0 when there is none. */
int wca_routing_wait(const wca *a, int cell, int n, wca_trace *tr);

#endif
