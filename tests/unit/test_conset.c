/* Unit tests of the ConSet communication compiler (conset/): the patterns of seed
 * 003's experiment on the 64-cell torus (torus neighbours, the butterfly under a
 * Gray-code mapping, all-to-all), each plan checked by wcs_check, an independent
 * reading of routes, channels, cell capacities and timetables; the number of phases
 * against the lower bound and against the seed's own communication compiler. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warp_conset.h"

/* The 8x8 torus of seed 003 with the seed's 12 logical channels for routes (the
 * simulator's default allocation, 2 + 1 channels on each of 4 buses). */
static const wcs_machine torus8 = {8, 8, 3, 12, 2, 0};
static const wcs_options ripup = {8, 0};

static void compile_ok(const wcs_machine *m, const wcs_conn *c, int n, wcs_plan *p)
{
    char err[256];
    if (wcs_compile(m, c, n, &ripup, p, err, sizeof err) != 0) fail_msg("wcs_compile: %s", err);
    if (wcs_check(m, c, n, p, err, sizeof err) != 0) fail_msg("wcs_check: %s", err);
    assert_true(p->nphases >= wcs_phase_lower_bound(m, c, n));
}

static int gray(int v) { return v ^ (v >> 1); }

/* Hypercube node of torus cell (x, y): Gray codes of the coordinates, so cube
 * neighbours are near each other on the torus ([Str92], seed 003 section 5.1.2). */
static int cube_cell(const wcs_machine *m, int node)
{
    int x = 0, y = 0;
    while (gray(x) != (node & 7)) x++;
    while (gray(y) != (node >> 3)) y++;
    return y * m->width + x;
}

static void test_torus_neighbours_need_one_phase(void **state)
{
    (void)state;
    wcs_conn c[64 * 4];
    int n = 0;
    for (int cell = 0; cell < 64; cell++)
        for (int bus = 0; bus < 4; bus++) c[n++] = (wcs_conn){cell, wcs_neighbour(&torus8, cell, bus), 32};
    wcs_plan p;
    compile_ok(&torus8, c, n, &p);
    assert_int_equal(p.nphases, 1);
    for (int k = 0; k < n; k++) assert_int_equal(p.routes[k].nhops, 1);
    /* Each cell sends 4 and receives 4 words-blocks of 64 clocks, one at a time. */
    assert_int_equal(p.phase_clocks[0], 8 * 64);
    wcs_plan_free(&p);
}

static void test_butterfly_two_phases_with_twelve_channels(void **state)
{
    (void)state;
    wcs_conn c[64 * 6];
    int n = 0;
    for (int node = 0; node < 64; node++)
        for (int d = 0; d < 6; d++) c[n++] = (wcs_conn){cube_cell(&torus8, node), cube_cell(&torus8, node ^ (1 << d)), 256};
    wcs_plan p;
    compile_ok(&torus8, c, n, &p);
    /* The seed's compiler needed two phases under 12 channels, one under 16. */
    assert_int_equal(p.nphases, 2);
    wcs_plan_free(&p);
    const wcs_machine wide = {8, 8, 4, 16, 2, 0};
    compile_ok(&wide, c, n, &p);
    assert_int_equal(p.nphases, 1);
    wcs_plan_free(&p);
}

static void test_all_to_all_near_thirty_phases(void **state)
{
    (void)state;
    wcs_conn *c = malloc(sizeof *c * 64 * 63);
    int n = 0;
    for (int a = 0; a < 64; a++)
        for (int b = 0; b < 64; b++)
            if (a != b) c[n++] = (wcs_conn){a, b, 32};
    wcs_plan p;
    compile_ok(&torus8, c, n, &p);
    /* The seed's compiler: 30 phases. The bound: every route enters
     * distance-many cells, 12 a cell a phase. */
    int bound = wcs_phase_lower_bound(&torus8, c, n);
    if (p.nphases > 30) fail_msg("all-to-all in %d phases; the seed's compiler needed 30", p.nphases);
    printf("all-to-all: %d phases (lower bound %d, the seed's compiler 30)\n", p.nphases, bound);
    wcs_plan p2;
    compile_ok(&torus8, c, n, &p2);
    assert_int_equal(p2.nphases, p.nphases);
    assert_int_equal(p2.nhops, p.nhops);
    for (int i = 0; i < p.nhops; i++) {
        assert_int_equal(p2.hops[i].cell, p.hops[i].cell);
        assert_int_equal(p2.hops[i].bus, p.hops[i].bus);
        assert_int_equal(p2.hops[i].channel, p.hops[i].channel);
    }
    assert_memory_equal(p2.order, p.order, sizeof *p.order * (size_t)(2 * n));
    wcs_plan_free(&p2);
    wcs_plan_free(&p);
    free(c);
}

/* A phase lasts as long as its busiest cell: all-to-all's 30 phases hold 134
 * connections each, about 2 a cell, and no cell may send or receive many more in
 * one (the router alone, filling the first phases with whatever fitted, left
 * cells with 10 sends in a phase and others with none; all-to-all at 32 words ran
 * 37,227 clocks so, 27,498 balanced). */
static void test_all_to_all_balanced_ends(void **state)
{
    (void)state;
    wcs_conn *c = malloc(sizeof *c * 64 * 63);
    int n = 0;
    for (int a = 0; a < 64; a++)
        for (int b = 0; b < 64; b++)
            if (a != b) c[n++] = (wcs_conn){a, b, 32};
    wcs_plan p;
    compile_ok(&torus8, c, n, &p);
    int *sends = calloc((size_t)p.nphases * 64, sizeof *sends), *recvs = calloc((size_t)p.nphases * 64, sizeof *recvs);
    int most_sent = 0, most_received = 0;
    for (int k = 0; k < n; k++) {
        int *s = &sends[p.routes[k].phase * 64 + c[k].src], *r = &recvs[p.routes[k].phase * 64 + c[k].dst];
        if (++*s > most_sent) most_sent = *s;
        if (++*r > most_received) most_received = *r;
    }
    printf("all-to-all: at most %d sends and %d receives a cell in a phase\n", most_sent, most_received);
    assert_true(most_sent <= 4);
    assert_true(most_received <= 4);
    free(sends);
    free(recvs);
    wcs_plan_free(&p);
    free(c);
}

/* Many connections between the same two cells: their one bus carries three a
 * phase, so the partitioner must open phases (or detour), and rip-up may not merge
 * them beyond what the channels allow. */
static void test_parallel_connections_fill_channels(void **state)
{
    (void)state;
    const wcs_machine line = {4, 1, 3, 12, 2, 0};
    wcs_conn c[12];
    for (int k = 0; k < 12; k++) c[k] = (wcs_conn){0, 1, (uint32_t)k + 1};
    wcs_plan p;
    compile_ok(&line, c, 12, &p);
    /* From cell 0 to cell 1 over XRight (1 hop) or XLeft around (3 hops): the
     * detours share cells 3 and 2, and cell 1 is entered at most 12 times. */
    assert_true(p.nphases >= 2);
    wcs_plan_free(&p);
}

/* The scheduler: a cell's transfers never overlap, and it takes the longest first
 * on the busiest cell. */
static void test_schedule_orders_each_cell(void **state)
{
    (void)state;
    const wcs_machine m = {4, 4, 3, 12, 2, 0};
    wcs_conn c[] = {{0, 1, 10}, {0, 4, 100}, {2, 1, 50}, {5, 1, 5}};
    wcs_plan p;
    compile_ok(&m, c, 4, &p);
    assert_int_equal(p.nphases, 1);
    /* Cell 1 has 65 words to receive, cell 0 110 to send: cell 0 goes first with its
     * 100-word connection at clock 0. */
    assert_int_equal(p.routes[1].start, 0);
    int from = p.order_start[0], to = p.order_start[1];
    assert_int_equal(to - from, 2);
    assert_int_equal(p.order[from], 1);
    assert_int_equal(p.phase_clocks[0], 220);
    wcs_plan_free(&p);
}

static void test_bad_input_and_corrupted_plan(void **state)
{
    (void)state;
    char err[256];
    wcs_plan p;
    wcs_conn self = {3, 3, 1};
    assert_int_equal(wcs_compile(&torus8, &self, 1, &ripup, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "cell 3 to itself"));
    wcs_conn far = {0, 64, 1};
    assert_int_equal(wcs_compile(&torus8, &far, 1, &ripup, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "cells 0 to 63"));
    wcs_machine big = {33, 2, 3, 12, 2, 0};
    assert_int_equal(wcs_compile(&big, &far, 1, &ripup, &p, err, sizeof err), -1);
    /* Five connections into cell 1, whose four buses carry one each a phase. */
    wcs_conn five[] = {{0, 1, 4}, {0, 1, 4}, {0, 1, 4}, {0, 1, 4}, {0, 1, 4}};
    wcs_options one = {0, 1};
    const wcs_machine thin = {8, 8, 1, 12, 2, 0};
    assert_int_equal(wcs_phase_lower_bound(&thin, five, 5), 2);
    assert_int_equal(wcs_compile(&thin, five, 5, &one, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "need 2 phases; at most 1"));
    wcs_conn two[] = {{0, 1, 4}, {0, 1, 4}, {8, 9, 4}};

    compile_ok(&torus8, two, 3, &p);
    /* Two connections on one channel of one bus: the check must see it. */
    p.hops[p.routes[1].first] = p.hops[p.routes[0].first];
    p.routes[1].phase = p.routes[0].phase;
    assert_int_equal(wcs_check(&torus8, two, 3, &p, err, sizeof err), -1);
    wcs_plan_free(&p);
    compile_ok(&torus8, two, 3, &p);
    p.hops[p.routes[2].first].bus ^= 2;   /* turned around: no longer reaches cell 9 */
    assert_int_equal(wcs_check(&torus8, two, 3, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "not 9"));
    wcs_plan_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_torus_neighbours_need_one_phase),
        cmocka_unit_test(test_butterfly_two_phases_with_twelve_channels),
        cmocka_unit_test(test_all_to_all_near_thirty_phases),
        cmocka_unit_test(test_all_to_all_balanced_ends),
        cmocka_unit_test(test_parallel_connections_fill_channels),
        cmocka_unit_test(test_schedule_orders_each_cell),
        cmocka_unit_test(test_bad_input_and_corrupted_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
