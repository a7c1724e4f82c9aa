/* The communication agent's state, shared by its source files only.
 *
 * Channels are numbered twice: cell-locally (what the computation agent writes in
 * %gi0, creq's result, join's operands: 0..nchan-1) and globally (cell*nchan + n,
 * the index into the arrays below). A bus channel's cell-local number is
 * bus*per_bus + k; output channel (cell c, bus d, k) feeds input channel (neighbour
 * of c toward d, bus d^2, k), fixed for the run: the static allocation of sec. 5.1.
 *
 * The agent only works on what is active: the buses with a channel holding words
 * (`active_bus`), the input channels with a marker to act on (`attn`), the running
 * spool gates (`active_spool`) and pending joins. An idle channel costs nothing. */
#ifndef WCA_INTERNAL_H
#define WCA_INTERNAL_H

#include <stddef.h>

#include "warp_comm.h"
#include "warp_support.h"

/* Who takes the words of an input channel. */
typedef enum lic_consumer {
    CONS_NONE,      /* nobody yet: a begin marker at its head is routed from here */
    CONS_LOC,       /* the crossbar: linked to output channel `loc` */
    CONS_GATE,      /* an input gate of the computation agent */
    CONS_SPOOL,     /* a spool gate storing to memory */
    CONS_DISCARD    /* a pathway that could not be routed: dropped up to its end marker */
} lic_consumer;

typedef struct wca_lic {
    wca_queue q;
    /* What the buses and the computation agent touch on every word. */
    uint64_t hold;          /* its head may not leave before this clock */
    int32_t up;             /* the global output channel that feeds it over a bus, or -1 */
    int32_t loc;            /* CONS_LOC: the global output channel */
    uint8_t cons;           /* lic_consumer */
    uint8_t attn;           /* in the attention list */
    int8_t in_spool;        /* local channels: the spool gate that fills it, or -1 */
    int8_t spool;           /* CONS_SPOOL: the spool gate */
    uint8_t up_crosses;     /* threads: `up` is another part's, its credits are crossings */
    uint32_t nmarks;        /* markers in the queue */
    uint64_t words;         /* words it received */
    /* The rest. */
    int32_t id;             /* its global number */
    int cell;
    int32_t joint;          /* its default outgoing pathway (a join), or -1 */
    int8_t bus;             /* input bus, or -1 for a local channel */
    uint8_t k;              /* channel on its bus */
    int8_t gate;            /* CONS_GATE: the input gate */
    int8_t out_gate;        /* local channels: the output gate that fills it, or -1 */
    uint8_t pinned;         /* a systolic connection of the W2 contract */
    uint8_t waiting;        /* a begin marker at its head waits for a free channel */
    uint8_t wait_bus, wait_pool;
    uint8_t host_fed;       /* an end cell's channel from the host */
} wca_lic;

typedef struct wca_loc {
    /* What a transfer touches. */
    int32_t src;            /* the input channel feeding it now, or -1 */
    int32_t remote;         /* the neighbour's input channel; LOC_HOST: the host */
    uint32_t credits;       /* free slots in the remote queue as the transmitter knows them */
    uint32_t ret_head, ret_n, ret_mask;
    uint64_t *ret;          /* clocks at which dequeue signals restore credits, a ring */
    uint64_t credit_back;   /* first restore after the credits ran out, for the statistics */
    uint64_t prev_end;      /* clock its previous word's transfer ended */
    uint64_t last_sent;
    uint8_t k, pinned;
    int8_t bus;             /* output bus, or -1: not allocated to any */
    uint8_t pool;
    uint8_t crosses;        /* threads: `remote` is another part's, its words are crossings */
    /* The rest. */
    int cell;
    int32_t home;           /* the input channel it was opened with; -1: free */
    int32_t owner;          /* cell whose pathway holds it */
    int32_t join_lic;       /* a join waiting to take effect, or -1 */
    uint64_t join_at;
    uint64_t words, blocked, waited;
} wca_loc;

#define LOC_HOST (-1)

typedef struct wca_bus {
    int cell;
    uint8_t dir;
    uint8_t in_list;
    uint8_t rr;             /* channel served last */
    uint8_t solo;           /* wca_move_data_only: one output channel of the bus is linked */
    uint32_t want;          /* bit k: output channel k of this bus has a feeder with words */
    uint64_t busy_until;
    uint64_t words, busy, blocked;
} wca_bus;

typedef struct wca_event {
    uint8_t kind, lic;
    uint32_t data;
} wca_event;

typedef struct wca_spool {
    uint8_t active, out, stop_at_end, follow, partner, reason, in_list;
    int32_t lic;            /* global */
    uint32_t addr, limit, count;
    uint64_t next_ok;
} wca_spool;

typedef struct wca_cell {
    uint32_t cid;
    int neighbour[WCA_NBUSES];     /* cell index, or -1 (the host, or none) */
    wca_queue **gate_in, **gate_out;   /* the gate tables: own_*, or the simulator's */
    wca_queue *own_in[WCA_NGATES], *own_out[WCA_NGATES];
    uint8_t gate_tag[2];
    uint32_t cam[8];
    wca_event ev[WCA_EVENT_DEPTH];
    unsigned ev_head, ev_n;
    uint32_t ev_lost, ev_mask, ev_data;
    wca_spool spool[8];
    unsigned spool_sel, spool_rr;
    uint64_t spool_clock;   /* clock + 1 of its spools' last turn */
    uint8_t *mem;
    uint32_t mem_size;
    uint64_t *mem_taken_until;   /* the simulator's: see wca_attach_memory */
} wca_cell;

/* What one part does to another's cells within a window of clocks (wca_use_parts):
 * a word its bus moved into their channel, or a dequeue signal returning a credit to
 * their output channel. Both take effect `link` or `credit_lat` clocks later, after
 * the window, so they wait in the part's list until wca_parts_merge. */
typedef struct wca_crossing {
    int32_t to;             /* the global input channel (a word) or output channel (a credit) */
    uint8_t credit, tag;
    uint32_t word;
    uint64_t when;          /* the word's arrival, or the credit's return */
} wca_crossing;

/* A simulator thread's share of the agents (wca_use_parts): the active buses of its
 * cells, what its steps add to the array's figures, and its crossings. */
typedef struct wca_part {
    _Alignas(WS_CACHE_LINE) int *active;
    int n_active;
    int progress;
    uint64_t horizon;
    uint64_t blocked;       /* bus steps that found no credit */
    wca_crossing *out;
    size_t n_out, cap_out;
} wca_part;

/* The share the calling thread works on, or NULL: the whole array's lists. */
extern _Thread_local wca_part *wca_current_part;

struct wca {
    const wt_model *model;
    wca_config cfg;
    wca_hooks hooks;
    int ncells;
    unsigned nchan, per_bus, nspool;
    unsigned link, bus_clocks, credit_lat, route_clocks, corner_clocks, spool_words;
    wca_cell *cells;
    wca_lic *lics;
    wca_loc *locs;
    wca_bus *buses;
    int *active_bus;
    int n_active_bus;
    int *attn;
    int n_attn;
    int *active_spool;
    int n_active_spool;
    int *joins;
    int n_joins;
    uint64_t horizon;
    int progress;           /* set by anything that changes state within a step */
    int landed_progress;    /* a word crossed a bus as it landed (wca_put), before the step */
    int data_only;          /* wca_move_data_only */
    /* Threads: each cell's part, and the parts; NULL: none. */
    int *part_of;
    wca_part *parts;
    int nparts;
};

static inline void wca_note(wca *a, uint64_t when)
{
    wca_part *p = wca_current_part;
    uint64_t *h = p ? &p->horizon : &a->horizon;
    if (when > *h) *h = when;
}

static inline wca_lic *lic_at(wca *a, int cell, unsigned n) { return &a->lics[(size_t)cell * a->nchan + n]; }
static inline wca_loc *loc_at(wca *a, int cell, unsigned n) { return &a->locs[(size_t)cell * a->nchan + n]; }
static inline unsigned lic_local(const wca *a, int g) { return (unsigned)g % a->nchan; }
/* The channel a queue of the agents belongs to. */
static inline wca_lic *lic_of(const wca *a, const wca_queue *q)
{
    return &a->lics[(const wca_lic *)(const void *)((const char *)q - offsetof(wca_lic, q)) - a->lics];
}

/* comm.c */
void wca_bus_activate(wca *a, int bus);
void wca_want(wca *a, wca_loc *loc);                /* its feeder may have words */
/* Takes the head word of an input channel at t (any reader): the dequeue signal,
 * the marker count. */
wca_qword wca_pop(wca *a, wca_lic *l, uint64_t t);
void wca_attend(wca *a, wca_lic *l);
void wca_close_loc(wca *a, wca_loc *o);

/* pathway.c */
void wca_attention_step(wca *a, uint64_t t);
void wca_joins_step(wca *a, uint64_t t);
void wca_post(wca *a, int cell, unsigned kind, unsigned lic, uint32_t data);
int wca_free_loc(const wca *a, int cell, unsigned bus, unsigned pool);

/* spool.c */
void wca_spool_step(wca *a, uint64_t t);
uint32_t wca_spool_read(const wca *a, int cell, wt_ctl reg);
int wca_spool_write(wca *a, int cell, wt_ctl reg, uint32_t v, uint64_t t, char *err, size_t errlen);
void wca_spool_activate(wca *a, int cell, unsigned s);

extern const char *const wca_bus_names[WCA_NBUSES];

#endif
