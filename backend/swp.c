/* Software pipelining of innermost loops (modulo scheduling with modulo variable
 * expansion, after M. Lam, "Software pipelining: an effective scheduling
 * technique for VLIW machines", PLDI 1988, written for Warp).
 *
 * A candidate is a block that branches back to itself on an exit test of the form
 * the frontend's `for` gives (an induction variable stepped by +1 or -1, tested
 * for equality with a loop-invariant bound), with no call in the function. The
 * body is rewritten on a list of its own before it is scheduled:
 *   - copies between values of the body disappear: a read of the copy reads its
 *     source, from the same or the previous iteration (the loop's phis);
 *   - an address i*4 (shl or imul by a constant of an induction variable) becomes
 *     an induction variable of its own, stepped by an add;
 *   - what only feeds the exit test dies (the kernel counts with dbnz);
 *   - literals move to registers loaded before the loop: a bundle has two
 *     literal fields, a kernel row would run out of them;
 *   - a received word whose every user reads it in the same iteration is read
 *     straight from its gate by all of them, in one bundle (one dequeue).
 * The graph's edges are the latencies of values (of this or the previous
 * iteration), memory order, and the gate rules that keep the array free of
 * deadlock: reads of a queue and writes of a gate stay in order, a host feed
 * completes before the read it feeds, and a receive from a side comes strictly
 * after every send toward that side that preceded it in the program.
 *
 * The kernel is unrolled u times so that no value lives longer than u*II clocks
 * in one register (modulo variable expansion); iteration i uses copy i mod u of
 * every value. With N iterations, the pipeline runs N' = S-1 + m*u of them (S
 * stages, m kernel passes, m >= 1); the original block, kept as it was, runs the
 * N - N' left over, or all of them when N is too small. The layout is
 *
 *   entry:    N, m, r = (N - S + 1) mod u; first values; if N < S-1+u goto loop
 *   prologue: the first S-1 stages' clocks        } scheduled here, clock by
 *   kernel:   u*II clocks, dbnz m -> kernel         } clock, the list scheduler
 *   epilogue: the last S-1 stages, then drains      } leaves them alone
 *   exit:     the values the rest of the program reads; if r = 0 skip the loop
 *   loop:     the original block (r more iterations)
 *
 * The phases, each in its file: the candidate loops (swp_loops.c), if-conversion
 * (swp_ifconv.c), reading and rewriting the body (swp_body.c), the dependence graph
 * (swp_graph.c), what a schedule must fit besides it (swp_sched.c), code
 * generation (swp_gen.c) and the report (swp_report.c); this file runs them on
 * each loop, then gives the IU the loop control of the loops left alone
 * (swp_control.c).
 */
#include "swp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Where each vreg occurs ---------------------------------------------------------
 *
 * Per vreg, the blocks that read or write it (a block may be listed twice, or
 * after it stopped naming the vreg: users check). The questions the pass asks for
 * a loop (what its values' liveness is, how often a value is written) then cost
 * the blocks where those values occur, not the function: a function of 500
 * inlined calls has a thousand loops. Built once, and brought up to date after
 * each loop is pipelined, from the blocks that are new or have grown. */

static void occ_note(occ_index *x, const wb_opnd *o, int id)
{
    if (!wb_is_vreg(*o) || (int)o->v >= x->nv) return;
    int v = (int)o->v;
    if (x->n[v] && x->at[v][x->n[v] - 1] == id) return;
    if (x->n[v] == x->cap[v]) {
        x->cap[v] = x->cap[v] ? 2 * x->cap[v] : 4;
        x->at[v] = ws_xrealloc(x->at[v], sizeof *x->at[v] * (size_t)x->cap[v]);
    }
    x->at[v][x->n[v]++] = id;
}

static void occ_read_block(occ_index *x, const wb_func *f, int id)
{
    const wb_block *b = f->blocks[id];
    for (int i = -1; i < b->nins; i++) {
        const wb_ins *in = i < 0 ? &b->term : &b->ins[i];
        if (in->op == WT_OP_NONE) continue;
        if (wb_has_dest(in->op)) occ_note(x, &in->d, id);
        for (int k = 0; k < wb_nsrc(in->op); k++) occ_note(x, &in->s[k], id);
    }
    for (int e = 0; e < b->nedges; e++)
        for (int c = 0; c < b->edges[e].n; c++) {
            occ_note(x, &b->edges[e].src[c], id);
            occ_note(x, &b->edges[e].dst[c], id);
        }
    x->nins[id] = b->nins;
    x->term_op[id] = b->term.op;
}

/* Covers every vreg and block of f, reading the blocks that changed since. */
void swp_occ_update(occ_index *x, const wb_func *f)
{
    if (f->nvregs > x->nv) {
        x->at = ws_xrealloc(x->at, sizeof *x->at * (size_t)f->nvregs);
        x->n = ws_xrealloc(x->n, sizeof *x->n * (size_t)f->nvregs);
        x->cap = ws_xrealloc(x->cap, sizeof *x->cap * (size_t)f->nvregs);
        for (int v = x->nv; v < f->nvregs; v++) {
            x->at[v] = NULL;
            x->n[v] = x->cap[v] = 0;
        }
        x->nv = f->nvregs;
    }
    int old = x->nb;
    if (f->nblocks > x->nb) {
        x->nins = ws_xrealloc(x->nins, sizeof *x->nins * (size_t)f->nblocks);
        x->term_op = ws_xrealloc(x->term_op, sizeof *x->term_op * (size_t)f->nblocks);
        x->seen = ws_xrealloc(x->seen, sizeof *x->seen * (size_t)f->nblocks);
        for (int id = x->nb; id < f->nblocks; id++) x->seen[id] = 0;
        x->nb = f->nblocks;
    }
    for (int id = 0; id < x->nb; id++)
        if (id >= old || x->nins[id] != f->blocks[id]->nins || x->term_op[id] != f->blocks[id]->term.op)
            occ_read_block(x, f, id);
}

static void occ_free(occ_index *x)
{
    for (int v = 0; v < x->nv; v++) free(x->at[v]);
    free(x->at);
    free(x->n);
    free(x->cap);
    free(x->nins);
    free(x->term_op);
    free(x->seen);
}

/* Liveness of the values the loop's blocks define, the only ones whose liveness
 * the pass asks about (what the body computes that is read after it, and what
 * if-conversion must keep on the way not taken), over the blocks where they occur:
 * the whole function's would cost its size for every loop. */
static wb_live *loop_liveness(const wb_func *f, const nloop *lp, const occ_index *x)
{
    uint8_t *track = ws_xcalloc((size_t)f->nvregs + 1, 1);
    uint8_t *listed = ws_xcalloc((size_t)f->nblocks + 1, 1);
    int *blocks = NULL, nblocks = 0, *tracked = NULL, ntracked = 0;
    size_t cap = 0, tcap = 0;
    for (int id = 0; id < lp->nin && id < f->nblocks; id++) {
        const wb_block *b = f->blocks[id];
        for (int i = -1; lp->in[id] && i < b->nins; i++) {
            const wb_ins *in = i < 0 ? &b->term : &b->ins[i];
            if (in->op == WT_OP_NONE || !wb_has_dest(in->op) || !wb_is_vreg(in->d) || track[in->d.v]) continue;
            int v = (int)in->d.v;
            track[v] = 1;
            ws_grow(&tracked, &tcap, (size_t)ntracked + 1, sizeof *tracked);
            tracked[ntracked++] = v;
            for (int k = 0; v < x->nv && k < x->n[v]; k++) {
                int at = x->at[v][k];
                if (listed[at]) continue;
                listed[at] = 1;
                ws_grow(&blocks, &cap, (size_t)nblocks + 1, sizeof *blocks);
                blocks[nblocks++] = at;
            }
        }
    }
    ws_sort_ints(tracked, (size_t)ntracked);
    wb_live *live = wb_liveness_in(f, track, tracked, ntracked, blocks, nblocks);
    free(tracked);
    free(track);
    free(listed);
    free(blocks);
    return live;
}

/* A pipelining that may be given up, leaving the function as it was: of the
 * body as written, given up when the unit that sets II has idle slots, to try
 * the body unrolled; of the body unrolled, kept only if it beats the first. */
typedef struct trial {
    int ii, stages;             /* the body as written: its schedule */
    const struct trial *beat;   /* an unrolled trial: the schedule it must beat */
} trial;

/* The clocks a loop of n iterations takes pipelined: the pipeline's fill and
 * drain, and the old iterations left to the original block (each its whole
 * latency, at most S*II). */
static int64_t pipeline_clocks(int64_t n, int unroll, int ii, int stages)
{
    int64_t runs = n / unroll, left = n - runs * unroll;
    return (runs + stages - 1) * ii + left * (int64_t)stages * ii;
}

/* The clocks a loop with a known trip count takes pipelined with S stages:
 * fill, kernel passes and drain, and each iteration left to the original loop
 * its whole latency (as pipeline_clocks). INT64_MAX where it runs too few times. */
static int64_t known_run_clocks(const loop *L, int ii, int S, const uint64_t *after)
{
    int64_t trips = swp_trips(L);
    int u = swp_kernel_unroll(L, ii, S, after);
    if (trips < S - 1 + u) return INT64_MAX;
    int64_t runs = trips - S + 1;
    return (2 * (S - 1) + runs / u * u) * (int64_t)ii + runs % u * (int64_t)S * ii;
}

/* The scheduler keeps each operation's row and numbers stages from row 0, so
 * a schedule whose first operation issues late in its row has a stage more
 * than its length needs, and the prologue starts with empty bundles. Moving
 * every operation by the same number of clocks keeps the modulo table (its
 * rows turn), so the stages can be the fewest the schedule's length allows or
 * one more; with a known trip count the kernel's unrolling then leaves a
 * different number of iterations to the original loop. This takes the one
 * whose run is shortest, the scheduler's where none is shorter (conv2d's
 * pixel loop: hoisting an IU operation moved the first one from row 0 to
 * row 8 of II=9, 5 stages became 6 and two pixels a row ran unpipelined). */
static void choose_stages(loop *L, wb_msched *ms, int nnodes, const uint64_t *after)
{
    if (!L->const_n || L->ncheck || L->ctr_used || nnodes <= 0) return;
    int ii = ms->ii, lo = ms->time[0], hi = ms->time[0];
    for (int i = 1; i < nnodes; i++) {
        lo = ms->time[i] < lo ? ms->time[i] : lo;
        hi = ms->time[i] > hi ? ms->time[i] : hi;
    }
    int fewest = (hi - lo) / ii + 1, best_first = lo, best_stages = ms->stages;
    int64_t best = known_run_clocks(L, ii, ms->stages, after);
    /* the first operation in row 0, or as early as gives one stage more (with
     * II=1, a first stage of one empty bundle) */
    int firsts[2] = {0, fewest * ii - (hi - lo)};
    for (int k = 0; k < 2; k++) {
        if (firsts[k] == lo) continue;
        int S = (hi - lo + firsts[k]) / ii + 1;
        int64_t c = known_run_clocks(L, ii, S, after);
        if (c < best) best = c, best_first = firsts[k], best_stages = S;
    }
    if (best_first == lo) return;
    for (int i = 0; i < nnodes; i++) ms->time[i] += best_first - lo;
    for (int i = 0; i < L->nop; i++)
        if (L->op[i].live) L->op[i].time += best_first - lo;
    ms->stages = best_stages;
}

/* Pipelines the loop; with a trial, returns 0 to give it up (the function
 * unchanged); else 2 if it made a pipeline, 1 if it left the loop as it was. */
static int pipeline(wb_func *f, const nloop *lp, const wb_swp_options *o, occ_index *occ, int unroll, trial *tr)
{
    int nvregs0 = f->nvregs;
    wb_live *live = loop_liveness(f, lp, occ);
    int id = lp->header;
    loop L = {.f = f, .occ = occ, .o = o, .id = id, .exit = f->blocks[lp->latch]->fall, .member = lp->in,
              .nmember = lp->nin, .line = swp_nloop_line(f, lp)};
    wb_msched ms = {0};
    gbuild B = {0};
    ws_buf tried = {0};
    int ok = 1;
    if (lp->latch == id) L.body = f->blocks[id];
    else ok = swp_if_convert(&L, lp, live);
    L.nv = f->nvregs;
    L.entry_live = wb_live_in(live, id, &L.entry_n);
    /* Values read after the loop, or by the original loop for the left-over
     * iterations (names made by if-conversion are never among them). */
    size_t wn = ((size_t)L.nv + 63) / 64;
    uint64_t *after = ws_xcalloc(wn ? wn : 1, sizeof *after);
    L.exit_live = ws_xcalloc(wn ? wn : 1, sizeof *L.exit_live);
    L.exit_nv = L.nv;
    for (int k = 0; k < 2; k++) {
        int n;
        const int *in = wb_live_in(live, k ? id : L.exit, &n);
        for (int j = 0; j < n; j++) {
            wb_bit_set(after, in[j]);
            if (!k) wb_bit_set(L.exit_live, in[j]);
        }
    }
    ok = ok && swp_read_body(&L) && swp_read_exit_test(&L);
    if (ok) swp_trip_count(&L);
    if (ok && unroll > 1 && !((!L.const_n || L.n / unroll >= 2) && swp_unroll_body(&L, unroll, &after))) ok = 0;
    if (ok) {
        for (int i = 0; i < L.nop; i++) {
            L.op[i].group = i;
            L.op[i].reload_for = -1;
            /* users of one received word that gate folding made read it together */
            for (int j = 0; j < i && L.op[i].in.bundle_with; j++)
                if (L.op[j].in.bundle_with == L.op[i].in.bundle_with) {
                    L.op[i].group = j;
                    break;
                }
        }
        swp_simplify_remainders(&L);
        swp_address_forms(&L);
        swp_disjoint_ors_to_adds(&L);
        swp_strength_reduce(&L);
        swp_mark_live(&L, after);
        swp_hoist_invariants(&L, after);
        swp_hoist_literals(&L);
        swp_fold_sends(&L, after);
        /* Received words read straight from their gates, unless a bundle shared
         * with a user that waits for the previous iteration makes a recurrence:
         * then, if that gives a smaller MII, the words land in registers. */
        size_t bytes = sizeof *L.op * (size_t)L.nop;
        bop *plain = ws_xcalloc((size_t)L.opcap, sizeof *plain);
        memcpy(plain, L.op, bytes);
        swp_fuse_gate_reads(&L, after);
        swp_build_graph(&L, &B);
        swp_counter_distance(&L, &B);
        int fused_mii = B.g.n ? swp_graph_mii(&B) : 0;
        const char *bound;
        if (B.g.n && wb_rec_mii(&B.g) > wb_res_mii(&B.g, &bound)) {
            bop *fused = L.op;
            L.op = plain;
            plain = fused;
            if (swp_unfuse_receives(&L)) swp_build_graph(&L, &B);
            if (swp_graph_mii(&B) >= fused_mii) {
                memcpy(L.op, plain, bytes);
                swp_build_graph(&L, &B);
            } else {
                L.unfused = fused_mii;
            }
        }
        free(plain);
        if (B.g.n == 0) ok = fail(&L, "the loop does nothing");
    }
    /* Schedule from MII up; where the schedule needs more registers than there
     * are, put literals back, then spill invariants, then try a larger II. */
    int budget = (int)f->model->nregs - 1 - SWP_REG_MARGIN - o->squeeze;
    int ii_from = 0, need = 0, maxlive = 0, ninv = 0, res_mii = 0, rec_mii = 0, mii = 0;
    const char *res_bound = "none";
    while (ok) {
        swp_build_graph(&L, &B);
        wb_msched_free(&ms);
        int rc = wb_modulo_schedule_from(&B.g, ii_from, MAX_II, &ms);
        if (!mii) {
            res_mii = ms.res_mii;
            rec_mii = ms.rec_mii;
            mii = ms.mii;
            res_bound = ms.res_bound;
            swp_memory_bounds(&L, &B, rec_mii);
            if (rec_mii > 1 && rec_mii >= res_mii) swp_recurrence_note(&L, &B, rec_mii);
        }
        for (const char *p = ms.tried.data; p && *p;) {
            const char *e = strchr(p, '\n');
            ws_buf_printf(&tried, "%.*s\n", (int)(e ? e - p : (long)strlen(p)), p);
            p = e ? e + 1 : p + strlen(p);
        }
        if (rc != 0) {
            ok = 0;
            snprintf(L.whybuf, sizeof L.whybuf, "no schedule up to II=%d (ResMII=%d, RecMII=%d)", MAX_II, res_mii,
                     rec_mii);
            L.why = L.whybuf;
            break;
        }
        for (int i = 0; i < L.nop; i++) {
            bop *x = &L.op[i];
            if (!x->live) continue;
            x->time = ms.time[x->node];
            int k = 0;
            for (int j = 0; j < i; j++) k += L.op[j].live && L.op[j].node == x->node;
            x->mop = ms.mop[x->node][k];
        }
        if (swp_overfills_own_queue(&L, ms.ii)) {
            ws_buf_printf(&tried, "II=%d failed: host feeds run more words ahead of their reads than the queue "
                          "holds (%u)\n", ms.ii, f->model->queue_words);
            ii_from = ms.ii + 1;
            continue;
        }
        need = swp_reg_need(&L, ms.ii, after, &maxlive, &ninv);
        if (need <= budget) break;
        if (unroll > 1) {
            /* a trial spills nothing: the frame would keep the slot */
            ok = 0;
            break;
        }
        ws_buf_printf(&tried, "II=%d failed: %d registers needed (%d live at once, %d invariants), %d free: ", ms.ii,
                      need, maxlive, ninv, budget);
        if (swp_rematerialize(&L, &tried) || swp_spill_invariant(&L, ms.ii, &after, &tried)) {
            ws_buf_puts(&tried, "\n");
            ii_from = ms.ii;
            continue;
        }
        if (ms.stages == 1) {
            ws_buf_puts(&tried, "one iteration alone needs them\n");
            snprintf(L.whybuf, sizeof L.whybuf, "one iteration needs %d registers, %d are free", need, budget);
            L.why = L.whybuf;
            ok = 0;
            break;
        }
        ws_buf_puts(&tried, "fewer iterations in flight\n");
        ii_from = ms.ii + 1;
    }
    if (ok) choose_stages(&L, &ms, B.g.n, after);
    if (ok && L.const_n && swp_trips(&L) < ms.stages - 1 + swp_unroll_factor(&L, ms.ii, after)) {
        snprintf(L.whybuf, sizeof L.whybuf, "it runs %d times, fewer than the pipeline needs (%d at II=%d)", L.n,
                 (ms.stages - 1 + swp_unroll_factor(&L, ms.ii, after)) * (L.unroll > 1 ? L.unroll : 1), ms.ii);
        L.why = L.whybuf;
        ok = 0;
    }
    /* the entry checks address differences: it computes N and may take the original loop */
    if (ok && (L.ncheck || L.ctr_used)) L.const_n = 0;
    if (ok && o->disabled) {
        snprintf(L.whybuf, sizeof L.whybuf, "%s (II=%d MII=%d (ResMII=%d, RecMII=%d) stages=%d, %d registers)",
                 o->disabled, ms.ii, mii, res_mii, rec_mii, ms.stages, need);
        L.why = L.whybuf;
        ok = 0;
    }
    int given_up = 0, generated = 0;
    if (tr && unroll == 1) {
        tr->ii = ms.ii;
        tr->stages = ms.stages;
        if (ok && !L.spilled && !L.remat && ms.ii == res_mii && rec_mii < res_mii) {
            int count[WB_NRES], gops;
            swp_class_counts(&L, &B.g, count, &gops);
            /* twice the body on the units as they are filled now */
            int twice = 1;
            for (int k = 1; k < WB_NRES; k++) {
                int slots = wb_res_slots(f->model, k);
                if (slots && (2 * count[k] + slots - 1) / slots > twice) twice = (2 * count[k] + slots - 1) / slots;
            }
            int per = (int)f->model->gate_ops_per_clock;
            if (per && (2 * gops + per - 1) / per > twice) twice = (2 * gops + per - 1) / per;
            given_up = twice < 2 * ms.ii;
        }
    } else if (tr) {
        /* an unrolled body is kept when an old iteration takes fewer clocks and
         * the loop's run, fill and drain counted, is shorter; with a trip count
         * computed on entry, when an old iteration takes fewer clocks (a run too
         * short for the longer pipeline takes the original loop: in the suites,
         * iWarp editdist 443929 -> 418329 cycles, Warp matmul kernel 1244 -> 1204) */
        given_up = !ok || ms.ii >= unroll * tr->beat->ii ||
                   (L.const_n && pipeline_clocks(L.n, unroll, ms.ii, ms.stages) >= pipeline_clocks(L.n, 1, tr->beat->ii, tr->beat->stages));
    }
    if (given_up) {
        ok = 0;
        f->nvregs = nvregs0;   /* the names made for the trial are unused */
    }
    ws_buf c = {0};
    if (!given_up) swp_info_head(&L, &c);
    if (given_up) {
    } else if (ok) {
        int count[WB_NRES], gops;
        swp_class_counts(&L, &B.g, count, &gops);
        if (L.const_n) ws_buf_printf(&c, "        ;*      Known trip count                 : %d\n", L.n);
        else ws_buf_puts(&c, "        ;*      Known trip count                 : none (computed on entry)\n");
        if (L.unroll > 1)
            ws_buf_printf(&c, "        ;*      Body unrolled before scheduling  : %d times (II=%d for %d iterations; II=%d "
                          "for one)\n", L.unroll, ms.ii, L.unroll, tr->beat->ii);
        ws_buf_printf(&c, "        ;*      Loop-carried dependence bound    : %d (RecMII)\n", rec_mii);
        ws_buf_printf(&c, "        ;*      Resource bound                   : %d (ResMII, %s)\n", res_mii, res_bound);
        swp_memory_notes(&L, &c);
        if (L.unfused)
            ws_buf_printf(&c, "        ;*      Received words                   : in registers, each user apart (read "
                          "from the gate in one bundle: MII=%d)\n", L.unfused);
        ws_buf_puts(&c, "        ;*      Resources                        :");
        for (int k = 1; k < WT_NUCLASSES; k++) ws_buf_printf(&c, " %-4s", wt_unit_class_name((wt_unit_class)k));
        ws_buf_puts(&c, " gate\n        ;*        operations an iteration        :");
        for (int k = 1; k < WT_NUCLASSES; k++) ws_buf_printf(&c, " %-4d", count[k]);
        ws_buf_printf(&c, " %d\n        ;*        slots a clock                  :", gops);
        for (int k = 1; k < WT_NUCLASSES; k++) ws_buf_printf(&c, " %-4u", wt_class_issue(f->model, (wt_unit_class)k));
        if (f->model->gate_ops_per_clock) ws_buf_printf(&c, " %u\n", f->model->gate_ops_per_clock);
        else ws_buf_puts(&c, " -\n");
        swp_plan_loop_control(&L, &ms);
        swp_info_iu(&L, count, &c);
        ws_buf_puts(&c, "        ;*\n");
        ws_buf_puts(&c, "        ;*      Searching for software pipeline schedule at ...\n");
        swp_info_tried(&c, tried.data);
        ws_buf_printf(&c, "        ;*         II=%d  Schedule found with %d iterations in parallel\n", ms.ii, ms.stages);
        ws_buf_puts(&c, "        ;*      Done\n");
        ws_buf_puts(&c, "        ;*\n");
        ws_buf_printf(&c, "        ;*      II=%d MII=%d (ResMII=%d, RecMII=%d) stages=%d\n", ms.ii, mii, res_mii, rec_mii,
                      ms.stages);
        ws_buf_printf(&c, "        ;*      Registers                        : %d of %d (%d live at once, %d invariants, "
                      "the counter)\n", need, budget, maxlive, ninv);
        if (L.spilled || L.remat)
            ws_buf_printf(&c, "        ;*      Spills                           : %d invariants reloaded in the loop, "
                          "%d literals back in their operations\n", L.spilled, L.remat);
        else
            ws_buf_puts(&c, "        ;*      Spills                           : none\n");
        if (L.spilled)
            swp_report(&L, "II=%d MII=%d (ResMII=%d, RecMII=%d) stages=%d, %d registers, %d spilled", ms.ii, mii, res_mii,
                   rec_mii, ms.stages, need, L.spilled);
        else if (L.unroll > 1)
            swp_report(&L, "II=%d MII=%d (ResMII=%d, RecMII=%d) stages=%d, body unrolled %d times (II=%d for one)%s%s",
                       ms.ii, mii, res_mii, rec_mii, ms.stages, L.unroll, tr->beat->ii,
                       L.nmemnote ? "; RecMII from memory: " : "", L.nmemnote ? L.memnote[0] : "");
        else
            swp_report(&L, "II=%d MII=%d (ResMII=%d, RecMII=%d) stages=%d%s%s", ms.ii, mii, res_mii, rec_mii, ms.stages,
                   L.nmemnote ? "; RecMII from memory: " : "", L.nmemnote ? L.memnote[0] : "");
        swp_generate(&L, &ms, after, &c);
        generated = 1;
    } else {
        swp_report(&L, "not pipelined: %s", L.why ? L.why : "?");
        if (mii) {
            ws_buf_printf(&c, "        ;*      Loop-carried dependence bound    : %d (RecMII)\n", rec_mii);
            ws_buf_printf(&c, "        ;*      Resource bound                   : %d (ResMII, %s)\n", res_mii, res_bound);
            swp_memory_notes(&L, &c);
            ws_buf_puts(&c, "        ;*      Searching for software pipeline schedule at ...\n");
            swp_info_tried(&c, tried.data);
        }
        ws_buf_printf(&c, "        ;*      Disqualified loop: %s\n", L.why ? L.why : "?");
        swp_info_tail(&c);
        ws_buf_append(&c, "", 1);
        f->blocks[id]->comment = ws_arena_strndup(&f->arena, c.data, strlen(c.data));
    }
    ws_buf_free(&c);
    ws_buf_free(&tried);
    wb_msched_free(&ms);
    free(B.g.node);
    free(B.g.edge);
    free(B.mem);
    free(L.op);
    free(L.def);
    free(L.al);
    free(L.init);
    free(L.einit);
    free(L.hz);
    free(after);
    free(L.exit_live);
    free(L.origin);
    free(L.copy);
    free(L.by_formula);
    free(L.formula);
    if (L.body && L.body != f->blocks[id]) free(L.body->ins);
    wb_live_free(live);
    return given_up ? 0 : generated ? 2 : 1;
}

/* A loop the pass leaves alone before looking inside: the report and the comment. */
static void disqualify(wb_func *f, const nloop *lp, const wb_swp_options *o, const char *why)
{
    loop R = {.f = f, .o = o, .id = lp->header, .line = swp_nloop_line(f, lp)};
    swp_report(&R, "not pipelined: %s", why);
    ws_buf c = {0};
    swp_info_head(&R, &c);
    ws_buf_printf(&c, "        ;*      Disqualified loop: %s\n", why);
    swp_info_tail(&c);
    ws_buf_append(&c, "", 1);
    f->blocks[lp->header]->comment = ws_arena_strndup(&f->arena, c.data, strlen(c.data));
    ws_buf_free(&c);
}

/* Is in an operation that may run once more than the program asks, its result
 * unused: computes a register from registers, no memory, gate, fault or effect? */
static int harmless(const wb_ins *in)
{
    if (in->op != WB_COPY && (in->op >= WT_NOPS || wt_ops[in->op].kind != WT_K_PURE)) return 0;
    if (!wb_has_dest(in->op) || !wb_is_vreg(in->d)) return 0;
    for (int k = 0; k < wb_nsrc(in->op); k++)
        if (in->s[k].kind == WB_O_REG && in->s[k].v != WT_OPND_R0 && in->s[k].v != WT_OPND_CID && !wb_is_vreg(in->s[k]))
            return 0;   /* the cell's number reads like a constant (h = cid + 1: j + 1 = h is j = cid) */
    return 1;
}

/* A loop that tests its exit in a block H and goes back from a latch of its own
 * (H: ...; if c goto exit; T: ...; goto head) tests it at its end when T's
 * operations run in H after the test (a loop of one block when H is the head): they are harmless, their results dead
 * where the loop exits, so that running them once more on the way out changes
 * nothing. T then only jumps to the exit, or dies. This is the shape of a loop
 * whose if LLVM turned into selects sunk below the exit test (a counter that
 * restarts), and of a self loop whose exit the layout put first (bnz exit; jmp
 * head). */
static void merge_latches(wb_func *f)
{
    wb_live *live = NULL;
    ws_graph cfg = wb_cfg(f, NULL), preds = ws_graph_reverse(&cfg);
    ws_graph_free(&cfg);
    for (int h = 0; h < f->nblocks; h++) {
        wb_block *H = f->blocks[h];
        if (!wb_is_cond_branch(H->term.op) || wb_inverse_branch(H->term.op) == WT_OP_NONE || H->fixed || H->fall < 0)
            continue;
        int t = H->term.target, x = H->fall, t_is_fall = 0, back_to = -1;
        for (int side = 0; side < 2; side++) {
            int cand = side ? H->fall : H->term.target, other = side ? H->term.target : H->fall;
            const wb_block *T = f->blocks[cand];
            int to = wb_flow(T->term.op) == WT_FLOW_JUMP && T->fall < 0 ? T->term.target
                     : T->term.op == WT_OP_NONE       ? T->fall
                                                      : -1;
            int one_pred = preds.at[cand + 1] - preds.at[cand] == 1;
            if (to >= 0 && cand != h && other != h && other != cand && to != cand && to != other && one_pred && !T->fixed) {
                back_to = to;
                t = cand;
                x = other;
                t_is_fall = side;
                break;
            }
            t = -1;
        }
        if (t < 0) continue;
        wb_block *T = f->blocks[t];
        int ok = T->nins <= 64;
        for (int i = 0; i < T->nins && ok; i++) ok = harmless(&T->ins[i]);
        if (!ok) continue;
        if (!live) live = wb_liveness(f);
        /* A value the exit reads that T assigns (a phi's copy) is saved before
         * T's operations and put back on the way out. */
        int nexit = 0;
        const int *exit_in = x < live->nblocks ? wb_live_in(live, x, &nexit) : NULL;
        int keep[8], nkeep = 0;
        for (int i = 0; i < T->nins && ok; i++) {
            const wb_ins *in = &T->ins[i];
            ok = !wb_opnd_eq(in->d, H->term.s[0]);
            if (!ok || !wb_live_has(exit_in, nexit, (int)in->d.v)) continue;
            int seen = 0;
            for (int k = 0; k < nkeep; k++) seen |= keep[k] == (int)in->d.v;
            if (!seen && nkeep == 8) ok = 0;
            else if (!seen) keep[nkeep++] = (int)in->d.v;
        }
        if (!ok) continue;
        int saved[8];
        for (int k = 0; k < nkeep; k++) {
            saved[k] = wb_new_vreg(f, 0);
            wb_ins cp = {.op = WB_COPY, .d = wb_vreg(saved[k]), .s = {wb_vreg(keep[k])}, .target = -1,
                         .line = H->term.line, .col = H->term.col};
            wb_append(f, h, &cp);
        }
        for (int i = 0; i < f->blocks[t]->nins; i++) {
            wb_ins in = f->blocks[t]->ins[i];
            wb_append(f, h, &in);
        }
        int out = t;   /* the block the way out goes through */
        if (nkeep && !t_is_fall) {
            out = swp_new_block_before(f, x);
            f->blocks[h]->fall = out;
            f->blocks[out]->fall = x;
        }
        f->blocks[t]->nins = 0;   /* T's operations now run in H */
        for (int k = 0; k < nkeep; k++) {
            wb_ins cp = {.op = WB_COPY, .d = wb_vreg(keep[k]), .s = {wb_vreg(saved[k])}, .target = -1,
                         .line = f->blocks[h]->term.line, .col = f->blocks[h]->term.col};
            wb_append(f, out, &cp);
        }
        H = f->blocks[h];
        T = f->blocks[t];
        if (t_is_fall) {
            /* H goes where T went when it would have gone to T; T leads out */
            H->term.op = (uint16_t)wb_inverse_branch(H->term.op);
            H->term.target = back_to;
            T->term.op = (uint16_t)wb_jump_op();
            T->term.target = x;
            T->fall = -1;
        } else {
            H->term.target = back_to;
        }
        wb_live_free(live);
        live = NULL;
    }
    if (live) wb_live_free(live);
    ws_graph_free(&preds);
}

void wb_swp(wb_func *f, const wb_swp_options *o)
{
    merge_latches(f);
    nloop *loops;
    int nl = swp_find_loops(f, &loops);
    int calls = swp_has_call(f);
    occ_index occ = {0};
    swp_occ_update(&occ, f);
    int *left = ws_xcalloc((size_t)nl + 1, sizeof *left), nleft = 0;   /* the loops not pipelined: their headers */
    for (int i = 0; i < nl; i++) {
        const nloop *lp = &loops[i];
        const wb_block *t = lp->latch >= 0 ? f->blocks[lp->latch] : NULL;
        left[nleft++] = lp->header;
        if (!lp->inner) disqualify(f, lp, o, "it contains a loop");
        else if (!o->enable) disqualify(f, lp, o, "-fno-swp");
        else if (calls) disqualify(f, lp, o, "the function makes calls");
        else if (!t) disqualify(f, lp, o, "the loop goes back from more than one place");
        else if (!wb_is_cond_branch(t->term.op) || t->term.target != lp->header || t->fall < 0 ||
                 in_loop(lp, t->fall))
            disqualify(f, lp, o, "not a counted loop (it does not test its exit at its end)");
        else {
            /* Where the unit that sets II has idle slots, the body unrolled twice
             * may fill them (swp_unroll.c). */
            trial plain = {0}, twice = {.beat = &plain};
            int done = pipeline(f, lp, o, &occ, 1, &plain);
            if (!done) done = pipeline(f, lp, o, &occ, 2, &twice);
            if (!done) done = pipeline(f, lp, o, &occ, 1, NULL);
            if (done == 2) nleft--;
            swp_occ_update(&occ, f);
        }
    }
    for (int i = 0; i < nl; i++) free(loops[i].in);
    free(loops);
    occ_free(&occ);
    swp_iu_counts(f, o, left, nleft);
    free(left);
    /* A pipelined loop with a known trip count and nothing left over never runs
     * its original code: it leaves the layout (no bundles, no program memory). */
    if (f->norder) {
        uint8_t *reach = swp_reachable_blocks(f);
        int n = 0;
        for (int i = 0; i < f->norder; i++)
            if (reach[f->order[i]]) f->order[n++] = f->order[i];
        f->norder = n;
        free(reach);
    }
}
