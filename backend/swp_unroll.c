/* Software pipelining: the body unrolled before it is scheduled.
 *
 * A modulo schedule issues an iteration every II whole clocks. When the busiest
 * unit's share of an iteration is not a whole number of clocks (three memory
 * references on two memory units: 1.5), the kernel of one iteration wastes the
 * rest of the last clock: II=2 for 1.5. Scheduled as one iteration of u of
 * them, the body reaches the bound (II=3 for two). The driver (swp.c) tries it
 * when the unit that sets II is not filled, and keeps it when the II an old
 * iteration gets is smaller and the run, fill and drain counted, is shorter.
 *
 * Iteration j of the new loop runs iterations u*j .. u*j + u-1 of the old one:
 * copy c of the body is old iteration u*j + c. Copy u-1 keeps the body's names
 * (the values read after the loop, and by the original block for the iterations
 * left over, are the last iteration's); the others get names of their own. */
#include "swp.h"

#include <stdlib.h>
#include <string.h>

/* Old iteration u*j + c - d, as a copy and a number of new iterations back. */
static void place(int u, int c, int d, int *copy, int *back)
{
    int t = c - d;
    *copy = ((t % u) + u) % u;
    *back = (*copy - t) / u;
}

int swp_unroll_body(loop *L, int u, uint64_t **after)
{
    wb_func *f = L->f;
    int nop = L->nop, onv = L->nv;
    if (u < 2 || nop * u > MAX_BODY) return 0;
    for (int i = 0; i < nop; i++)
        if (L->op[i].in.bundle_with) return 0;
    /* the exit test's counter steps by u times its literal */
    int ivdef = L->iv > 0 && L->iv < onv ? L->def[L->iv] : -1;
    if (ivdef < 0) return 0;
    const bop *ivop = &L->op[ivdef];
    int lit = ivop->in.op == WT_OP_ISUB || ivop->in.s[1].kind == WB_O_IMM ? 1 : 0;
    if ((ivop->in.op != WT_OP_IADD && ivop->in.op != WT_OP_ISUB) || ivop->in.s[lit].kind != WB_O_IMM ||
        ivop->in.s[lit].isfloat || (int64_t)L->iv_step * u > INT32_MAX / 2 || (int64_t)L->iv_step * u < INT32_MIN / 2)
        return 0;

    /* names: copy u-1 is the body's own */
    int **name = ws_xcalloc((size_t)u, sizeof *name);
    for (int c = 0; c < u; c++) name[c] = ws_xcalloc((size_t)onv, sizeof *name[c]);
    for (int v = 1; v < onv; v++) {
        if (L->def[v] < 0) continue;
        for (int c = 0; c < u - 1; c++) name[c][v] = wb_new_vreg(f, f->vflags[v]);
        name[u - 1][v] = v;
    }
    int nv = f->nvregs;

    bop *op = ws_xcalloc((size_t)(nop * u + (L->opcap - L->nop) + 1), sizeof *op);
    for (int c = 0; c < u; c++)
        for (int i = 0; i < nop; i++) {
            bop *x = &op[c * nop + i];
            *x = L->op[i];
            if (wb_has_dest(x->in.op) && is_body_value(L, x->in.d)) x->in.d.v = (uint32_t)name[c][x->in.d.v];
            for (int k = 0; k < wb_nsrc(x->in.op); k++) {
                if (!is_body_value(L, L->op[i].in.s[k])) continue;
                int cc, back;
                place(u, c, L->op[i].dist[k], &cc, &back);
                x->in.s[k].v = (uint32_t)name[cc][L->op[i].in.s[k].v];
                x->dist[k] = back;
            }
        }
    /* copy u-1's counter: counter of the previous new iteration + u steps */
    bop *last = &op[(u - 1) * nop + ivdef];
    last->in.s[1 - lit] = wb_vreg(L->iv);
    last->dist[1 - lit] = 1;
    last->in.s[lit] = wb_imm((uint32_t)((int32_t)L->op[ivdef].in.s[lit].v * u), 0);

    /* eliminated copies read after the loop: the value of the old iteration they
     * name, counted from the last one */
    alias *al = ws_xcalloc((size_t)nv, sizeof *al);
    for (int y = 1; y < onv; y++) {
        if (!L->al[y].v) continue;
        alias a = swp_resolve(L, y);
        if (a.v >= onv || L->def[a.v] < 0) {
            al[y] = L->al[y];
            continue;
        }
        int cc, back;
        place(u, u - 1, a.dist, &cc, &back);
        al[y] = (alias){name[cc][a.v], back};
    }
    /* the registers that hold each copy's values of the new iterations before the
     * loop: new iteration -k of copy c is old iteration -(u*k - c) */
    int *init = ws_xcalloc((size_t)nv * (MAX_DIST + 1), sizeof *init);
    for (int v = 1; v < onv; v++)
        for (int c = 0; c < u && L->def[v] >= 0; c++)
            for (int k = 1; k <= MAX_DIST && u * k - c <= MAX_DIST; k++)
                init[(size_t)name[c][v] * (MAX_DIST + 1) + (size_t)k] = INIT(L, v, u * k - c);

    L->origin = ws_xcalloc((size_t)nv, sizeof *L->origin);
    L->copy = ws_xcalloc((size_t)nv, sizeof *L->copy);
    for (int v = 1; v < onv; v++)
        for (int c = 0; c < u && L->def[v] >= 0; c++) {
            L->origin[name[c][v]] = v;
            L->copy[name[c][v]] = c;
        }
    free(L->al);
    free(L->init);
    free(L->op);
    L->al = al;
    L->init = init;
    L->op = op;
    L->opcap = nop * u + (L->opcap - L->nop) + 1;
    L->nop = nop * u;
    L->def = ws_xrealloc(L->def, sizeof *L->def * (size_t)nv);
    for (int v = 0; v < nv; v++) L->def[v] = -1;
    for (int i = 0; i < L->nop; i++)
        if (wb_has_dest(L->op[i].in.op) && wb_is_vreg(L->op[i].in.d) && (int)L->op[i].in.d.v < nv)
            L->def[L->op[i].in.d.v] = i;
    size_t ow = ((size_t)onv + 63) / 64, nw = ((size_t)nv + 63) / 64;
    *after = ws_xrealloc(*after, sizeof **after * (nw ? nw : 1));
    for (size_t w = ow ? ow : 1; w < nw; w++) (*after)[w] = 0;
    L->nv = nv;
    L->unroll = u;
    for (int c = 0; c < u; c++) free(name[c]);
    free(name);
    return 1;
}

/* The old iterations before the last one of new iteration -back's copy c (the
 * distance, in the loop as written, of a value read after it). */
int swp_old_dist(const loop *L, int v, int back)
{
    if (L->unroll < 2) return back;
    int c = v < L->nv && L->origin[v] ? L->copy[v] : L->unroll - 1;
    return L->unroll * back + (L->unroll - 1 - c);
}

/* The old value a name of the unrolled body stands for. */
int swp_old_value(const loop *L, int v)
{
    return L->unroll > 1 && v < L->nv && L->origin[v] ? L->origin[v] : v;
}
