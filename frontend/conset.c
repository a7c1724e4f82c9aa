/* Phased connection sets (docs/w2.md, section 8.5): each connection's destination
 * is evaluated at compile time for every cell and index, the pattern checked (every
 * index a permutation of the cells without a fixed point), and the communication
 * compiler (conset/) partitions, routes and schedules it into the plan that
 * runtime/conset.s runs when the program instantiates the set.
 *
 * Slots: the connections go to the compiler connection by connection, index by
 * index, cell by cell, so every cell sends connection c's index j from slot
 * c->slot + (j - lo), and since each index is a permutation, receives it into the
 * same slot: a statement finds its slot without a table. */
#include "w2_internal.h"

#include <stdlib.h>
#include <string.h>

#include "warp_conset.h"

/* The iWarp's channels as runtime/conset.s uses them: three reservation channels
 * a bus (--channels 3,1), twelve a cell, and 2 clocks a word. A program that also
 * talks to its neighbours (send, receive) holds local channels 16 to 19 for them
 * with three (docs/design.md, 'The W2 channels'), which the runtime needs: its
 * sets are planned for two a bus, and it runs with the default --channels 2,1. */
static const int BUS_CHANNELS = 3, BUS_CHANNELS_BESIDE_NEIGHBOURS = 2, CELL_CHANNELS = 12, CLOCKS_PER_WORD = 2;
/* A set's slots a cell (each two table entries of the runtime's, and every cell
 * holds every cell's part of the plan). */
enum { MAX_SLOTS = 4096 };

typedef struct binding {
    const w2_program *prog;
    const w2_conn *conn;
    int64_t x, y, j;
} binding;

/* Is e an int expression of the cell-id variables, the connection's index and
 * literals? Reports the first part that is not. */
static int valid(w2_ctx *c, const w2_program *prog, const w2_conn *conn, const w2_expr *e)
{
    switch (e->kind) {
    case W2_EX_INTLIT:
        if (e->range == W2_RANGE_OK) return 1;
        w2_error(c, e->loc, "integer literal '%s' is out of range", e->name ? e->name : "?");
        return 0;
    case W2_EX_VAR:
        if (e->nindex == 0 && ((prog->cellid && !strcmp(e->name, prog->cellid->name)) ||
                               (prog->cellid_y && !strcmp(e->name, prog->cellid_y->name)) ||
                               (conn->index && !strcmp(e->name, conn->index))))
            return 1;
        w2_error(c, e->loc, "'%s' in connection '%s': a connection's cell is computed from the cell-id "
                 "variables%s and integer literals only", e->name, conn->name, conn->index ? ", its index" : "");
        return 0;
    case W2_EX_NEG:
        return valid(c, prog, conn, e->lhs);
    case W2_EX_BINARY:
        if (e->op <= W2_OP_MOD) return valid(c, prog, conn, e->lhs) && valid(c, prog, conn, e->rhs);
        /* fall through */
    default:
        w2_error(c, e->loc, "the cell of connection '%s' must be an int expression: + - * / mod of the cell-id "
                 "variables%s and integer literals", conn->name, conn->index ? ", its index" : "");
        return 0;
    }
}

/* W2's int arithmetic (docs/w2.md, section 7): 32 bits, wrapping; / truncates and
 * mod takes the dividend's sign. 0, or -1 on a division by zero (at *where). */
static int eval(const binding *b, const w2_expr *e, int32_t *out, w2_loc *where)
{
    int32_t l = 0, r = 0;
    switch (e->kind) {
    case W2_EX_INTLIT:
        *out = e->ival;
        return 0;
    case W2_EX_VAR:
        if (b->conn->index && !strcmp(e->name, b->conn->index)) *out = (int32_t)b->j;
        else if (b->prog->cellid_y && !strcmp(e->name, b->prog->cellid_y->name)) *out = (int32_t)b->y;
        else *out = (int32_t)b->x;
        return 0;
    case W2_EX_NEG:
        if (eval(b, e->lhs, &l, where)) return -1;
        *out = (int32_t)(0u - (uint32_t)l);
        return 0;
    default:
        break;
    }
    if (eval(b, e->lhs, &l, where) || eval(b, e->rhs, &r, where)) return -1;
    switch (e->op) {
    case W2_OP_ADD: *out = (int32_t)((uint32_t)l + (uint32_t)r); break;
    case W2_OP_SUB: *out = (int32_t)((uint32_t)l - (uint32_t)r); break;
    case W2_OP_MUL: *out = (int32_t)((uint32_t)l * (uint32_t)r); break;
    default:
        if (r == 0) {
            *where = e->loc;
            return -1;
        }
        if (r == -1) *out = e->op == W2_OP_DIV ? (int32_t)(0u - (uint32_t)l) : 0;
        else *out = e->op == W2_OP_DIV ? l / r : l % r;
        break;
    }
    return 0;
}

/* The torus the cells form, as sendmsg's (docs/w2.md, section 8.4): a 2-D
 * cellprogram's grid, or a linear one's cells as a square, else a row. */
static void torus_of(const w2_program *prog, int *w, int *h)
{
    if (prog->cellid_y) {
        *w = (int)(prog->last - prog->first + 1);
        *h = (int)(prog->last_y - prog->first_y + 1);
        return;
    }
    int cells = (int)(prog->last - prog->first + 1), side = 1;
    while ((side + 1) * (side + 1) <= cells) side++;
    *w = side * side == cells ? side : cells;
    *h = side * side == cells ? side : 1;
}

/* A cell as a program names it: its cell id (1-D) or its number on the grid (2-D). */
static long long cell_name(const w2_program *prog, int cell)
{
    return prog->cellid_y ? cell : prog->first + cell;
}

/* The connections of one set, checked; NULL after an error (reported). */
static wcs_conn *connections(w2_ctx *c, const w2_program *prog, w2_conset *set, int w, int h, int *nout)
{
    int cells = w * h;
    int64_t nslots = 0;
    for (w2_conn *k = set->conns; k; k = k->next) {
        k->slot = (int)nslots;
        nslots += k->hi - k->lo + 1;
        if (nslots > MAX_SLOTS || nslots * cells > WCS_MAX_CONNS) {
            w2_error(c, k->loc, "phase '%s' has more than %d connections a cell (or %d in all)", set->name, MAX_SLOTS,
                     WCS_MAX_CONNS);
            return NULL;
        }
    }
    set->nslots = (int)nslots;
    wcs_conn *out = ws_xcalloc((size_t)(nslots * cells) + 1, sizeof *out);
    int *from = ws_xmalloc(sizeof *from * (size_t)cells);
    int n = 0, failed = 0;
    for (w2_conn *k = set->conns; k && !failed; k = k->next) {
        for (int64_t j = k->lo; j <= k->hi && !failed; j++) {
            for (int d = 0; d < cells; d++) from[d] = -1;
            char conn_name[96];
            if (k->index) snprintf(conn_name, sizeof conn_name, "%s[%lld]", k->name, (long long)j);
            else snprintf(conn_name, sizeof conn_name, "%s", k->name);
            for (int s = 0; s < cells && !failed; s++) {
                binding b = {prog, k, prog->first + s % w, prog->first_y + s / w, j};
                if (!prog->cellid_y) b.x = prog->first + s;
                int32_t v;
                w2_loc where;
                failed = 1;
                if (eval(&b, k->dst, &v, &where)) {
                    w2_error(c, where, "connection '%s' of cell %lld divides by zero", conn_name, cell_name(prog, s));
                    break;
                }
                int64_t d = prog->cellid_y ? (int64_t)v : (int64_t)v - prog->first;
                if (d < 0 || d >= cells) {
                    w2_error(c, k->dst->loc, "connection '%s' of cell %lld leads to cell %d, which is not one of "
                             "the cellprogram's (%lld to %lld)", conn_name, cell_name(prog, s), v,
                             cell_name(prog, 0), cell_name(prog, cells - 1));
                    break;
                }
                if (d == s) {
                    w2_error(c, k->dst->loc, "connection '%s' of cell %lld leads to the cell itself", conn_name,
                             cell_name(prog, s));
                    break;
                }
                if (from[d] >= 0) {
                    w2_error(c, k->dst->loc, "cells %lld and %lld both lead connection '%s' to cell %lld: each "
                             "index must lead the cells to different cells (every cell receives one, as it sends "
                             "one)", cell_name(prog, from[d]), cell_name(prog, s), conn_name, cell_name(prog, (int)d));
                    break;
                }
                from[d] = s;
                out[n++] = (wcs_conn){s, (int)d, 32};
                failed = 0;
            }
        }
    }
    free(from);
    if (failed) {
        free(out);
        return NULL;
    }
    *nout = n;
    return out;
}

static int talks_to_neighbours(const w2_stmt *s)
{
    for (; s; s = s->next)
        if (s->kind == W2_ST_SEND || s->kind == W2_ST_RECEIVE || talks_to_neighbours(s->body) ||
            talks_to_neighbours(s->els))
            return 1;
    return 0;
}

int w2_conset_bus_channels(const w2_program *prog)
{
    int neighbours = talks_to_neighbours(prog->body);
    for (const w2_item *it = prog->items; it && !neighbours; it = it->next)
        if (it->func) neighbours = talks_to_neighbours(it->func->body);
    return neighbours ? BUS_CHANNELS_BESIDE_NEIGHBOURS : BUS_CHANNELS;
}

static void plan_set(w2_ctx *c, const w2_program *prog, w2_conset *set)
{
    int w, h;
    torus_of(prog, &w, &h);
    if (w > W2_MAX_SIDE || h > W2_MAX_SIDE) {
        w2_error(c, set->loc, "phase '%s': the %d cells form a row of %d, but the iWarp torus has at most %d a "
                 "side (a square number of cells forms a square)", set->name, w * h, w, W2_MAX_SIDE);
        return;
    }
    int n = 0;
    wcs_conn *conns = connections(c, prog, set, w, h, &n);
    if (!conns) return;
    /* A 2-D program's wrap-around links lead to the host (section 8.3). */
    wcs_machine m = {w, h, w2_conset_bus_channels(prog), CELL_CHANNELS, CLOCKS_PER_WORD, prog->cellid_y != NULL};
    wcs_options opts = {8, 0};
    wcs_plan plan;
    char err[256];
    uint32_t *words = NULL;
    size_t nwords = 0;
    int first = prog->cellid_y ? 0 : (int)prog->first;
    if (wcs_compile(&m, conns, n, &opts, &plan, err, sizeof err) != 0) {
        w2_error(c, set->loc, "phase '%s': %s", set->name, err);
        free(conns);
        return;
    }
    if (wcs_check(&m, conns, n, &plan, err, sizeof err) != 0 ||
        wcs_plan_words(&m, conns, n, &plan, first, &words, &nwords, err, sizeof err) != 0) {
        w2_error(c, set->loc, "phase '%s': %s", set->name, err);
    } else {
        set->nphases = plan.nphases;
        set->nplan = nwords;
        set->plan = ws_arena_alloc(&c->arena, sizeof *set->plan * (nwords + 1));
        memcpy(set->plan, words, sizeof *words * nwords);
    }
    free(words);
    wcs_plan_free(&plan);
    free(conns);
}

void w2_check_consets(w2_ctx *c, w2_program *prog)
{
    for (w2_conset *set = prog->consets; set; set = set->next) {
        if (!c->opts || !c->opts->iwarp) {
            w2_error(c, set->loc, "phased connection sets need the iWarp's communication agent: compile with "
                     "-mcpu=iwarp");
            return;
        }
        for (w2_conset *o = prog->consets; o != set; o = o->next)
            if (!strcmp(o->name, set->name)) w2_error(c, set->loc, "a second phase named '%s'", set->name);
        for (w2_conn *k = set->conns; k; k = k->next) {
            const w2_conn *first = NULL;
            for (w2_conset *o = prog->consets; !first; o = o->next) {
                for (w2_conn *q = o->conns; q && q != k && !first; q = q->next)
                    if (!strcmp(q->name, k->name)) first = q;
                if (o == set) break;
            }
            if (first) {
                w2_error(c, k->loc, "a second connection named '%s'", k->name);
                w2_note(c, first->loc, "the first is here");
            }
            if (k->index && ((prog->cellid && !strcmp(k->index, prog->cellid->name)) ||
                             (prog->cellid_y && !strcmp(k->index, prog->cellid_y->name))))
                w2_error(c, k->index_loc, "the index of connection '%s' is named like a cell-id variable", k->name);
            else if (k->dst)
                valid(c, prog, k, k->dst);
        }
    }
}

void w2_plan_consets(w2_ctx *c, w2_program *prog)
{
    for (w2_conset *set = prog->consets; set; set = set->next) plan_set(c, prog, set);
}

w2_conn *w2_find_conn(const w2_program *prog, const char *name)
{
    for (w2_conset *set = prog->consets; set; set = set->next)
        for (w2_conn *k = set->conns; k; k = k->next)
            if (!strcmp(k->name, name)) return k;
    return NULL;
}

w2_conset *w2_find_conset(const w2_program *prog, const char *name)
{
    for (w2_conset *set = prog->consets; set; set = set->next)
        if (!strcmp(set->name, name)) return set;
    return NULL;
}
