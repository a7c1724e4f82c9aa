/* The communication compiler of phased connection sets (ConSet, seed 003, sections
 * 2 and 4.4) for the iWarp torus: given the connections a program declares between
 * cells, it partitions them into phases, routes each over the torus's buses and
 * logical channels so that no bus and no cell carries more connections in a phase
 * than the hardware has channels for, and schedules each phase's transfers on
 * every cell.
 *
 *  - Router and partitioner (the seed's APR): connections are taken longest first;
 *    each is routed by a shortest-path search in a copy of the torus per phase,
 *    where a step costs more the more connections already use its bus and the cell
 *    it enters, and goes to the phase with the cheapest route; a new phase is opened
 *    only when no phase has room. Then rounds of rip-up and reroute empty the
 *    smallest phases into the others where that is possible.
 *  - Scheduler (the seed's AS): in each phase, a connection occupies both of its
 *    cells for `words * clocks_per_word` clocks; the cell with the largest lower
 *    bound on its finishing time takes its longest unscheduled connection, placed
 *    in the first interval free on both cells. Each cell serves its connections in
 *    the order of their start times, so every wait is for an earlier start and no
 *    schedule can deadlock.
 *
 * Cells are numbered y * width + x; buses as in the communication agent
 * (docs/design.md, section 7): 0 XRight (x+1), 1 YUp (y+1), 2 XLeft, 3 YDown, each
 * wrapping around the torus. */
#ifndef WARP_CONSET_H
#define WARP_CONSET_H

#include <stddef.h>
#include <stdint.h>

typedef struct wcs_machine {
    int width, height;       /* the torus, 1..32 a side */
    int bus_channels;        /* connections one bus may carry in a phase (its logical channels) */
    int cell_channels;       /* connections that may use one cell in a phase: each takes one
                                of its logical channels where it starts, passes through or
                                ends (seed 003, section 4.4.1: the node's capacity) */
    int clocks_per_word;     /* network access: clocks to send or receive a word (seed 003: 2) */
    int mesh;                /* no route takes a link that wraps around (in a 2-D W2 program
                                those lead to the host) */
} wcs_machine;

typedef struct wcs_conn {
    int src, dst;            /* cell numbers; src != dst */
    uint32_t words;          /* the data it carries in its phase (for the schedule) */
} wcs_conn;

enum { WCS_XRIGHT, WCS_YUP, WCS_XLEFT, WCS_YDOWN };

/* A connection leaves `cell` over bus `bus` on the bus's logical channel `channel`. */
typedef struct wcs_hop {
    int cell;
    uint8_t bus, channel;
} wcs_hop;

typedef struct wcs_route {
    int phase;
    int first, nhops;        /* its hops: plan->hops[first .. first + nhops) */
    uint32_t start, end;     /* scheduled clocks within its phase */
} wcs_route;

typedef struct wcs_plan {
    int ncells, nconns, nphases;
    wcs_route *routes;       /* one per connection, in the caller's order */
    wcs_hop *hops;
    int nhops;
    /* Phase p, cell c serves connections order[order_start[p * ncells + c] ..
     * order_start[p * ncells + c + 1]) in that order (sends and receives alike). */
    int *order, *order_start;
    uint32_t *phase_clocks;  /* each phase's predicted length: its schedule's last end */
} wcs_plan;

typedef struct wcs_options {
    int ripup_rounds;        /* rip-up and reroute passes after the first routing (seed: k) */
    int max_phases;          /* refuse patterns needing more (0: no limit) */
} wcs_options;

/* The largest pattern the compiler takes: connections, and hops of all routes. */
#define WCS_MAX_CONNS (1 << 20)

/* 0 and a plan; -1 with a message in err (a bad machine or connection, or more
 * phases than allowed). */
int wcs_compile(const wcs_machine *m, const wcs_conn *conns, int nconns, const wcs_options *opts,
                wcs_plan *out, char *err, size_t errlen);
void wcs_plan_free(wcs_plan *p);

/* Checks a plan independently of how it was made: each route a path of neighbouring
 * buses from its source to its destination, no bus channel taken twice and no cell
 * entered more often than it may be in one phase, each cell's transfers disjoint in
 * time and in the order given. 0, or -1 with the first fault in err. */
int wcs_check(const wcs_machine *m, const wcs_conn *conns, int nconns, const wcs_plan *p, char *err,
              size_t errlen);

/* The plan as the words runtime/conset.s runs (docs/design.md, section 12): phases,
 * cells, synchronisation rounds, first_cid, the byte offset of each cell's block
 * from the first word, then the blocks. A connection's slots are its places among
 * its source's sends and its destination's receives in the order of `conns`.
 * 0 and the words (free them); -1 with a message in err (a route with too many
 * turns for a pathway header). */
int wcs_plan_words(const wcs_machine *m, const wcs_conn *conns, int nconns, const wcs_plan *p, int first_cid,
                   uint32_t **words, size_t *nwords, char *err, size_t errlen);

/* A lower bound on the phases any router needs: the cell channels all shortest
 * routes need (hops + 1 each), over what the cells offer in one phase; and at least
 * the connections one cell starts and ends over its channels, or over its buses. */
int wcs_phase_lower_bound(const wcs_machine *m, const wcs_conn *conns, int nconns);

/* The distance between two cells (hops of a shortest route; on a mesh, without
 * wrapping around). */
int wcs_distance(const wcs_machine *m, int a, int b);
/* The neighbour of a cell over a bus. */
int wcs_neighbour(const wcs_machine *m, int cell, int bus);

#endif
