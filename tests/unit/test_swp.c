/* The modulo scheduler on graphs built by hand: ResMII per unit class and gate
 * operations, RecMII over recurrences (gate-order chains included), schedules
 * that keep every edge and every row's resources, and the search past MII. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "mir.h"
#include "warp_target.h"

typedef struct graph {
    wb_mgraph g;
    wb_mnode node[32];
    wb_medge edge[64];
} graph;

static void g_init(graph *G, const char *model)
{
    memset(G, 0, sizeof *G);
    G->g.model = wt_model_by_name(model);
    G->g.node = G->node;
    G->g.edge = G->edge;
}

static int g_op(graph *G, int op, int alt, int gate_ops)
{
    wb_mnode *n = &G->node[G->g.n];
    n->nops = 1;
    n->op[0] = op;
    n->alt[0] = alt;
    n->gate_ops = gate_ops;
    return G->g.n++;
}

static void g_edge(graph *G, int from, int to, int lat, int dist)
{
    G->edge[G->g.ne++] = (wb_medge){from, to, lat, dist};
}

/* Every edge holds and no row of the reservation table is oversubscribed. */
static void assert_valid(const graph *G, const wb_msched *s)
{
    int ii = s->ii;
    assert_true(ii >= s->mii);
    for (int e = 0; e < G->g.ne; e++) {
        const wb_medge *x = &G->edge[e];
        if (s->time[x->to] + ii * x->dist < s->time[x->from] + x->lat)
            fail_msg("edge %d->%d (lat %d, dist %d) broken: %d, %d at II=%d", x->from, x->to, x->lat, x->dist,
                     s->time[x->from], s->time[x->to], ii);
    }
    for (int r = 0; r < ii; r++) {
        int used[WT_NUCLASSES] = {0}, gates = 0;
        for (int i = 0; i < G->g.n; i++) {
            for (int k = 0; k < G->node[i].nops; k++) {
                int op = s->mop[i][k];
                assert_true(op == G->node[i].op[k] || op == G->node[i].alt[k]);
                int ivl = wt_ops[op].interval[G->g.model->id];
                for (int q = 0; q < ivl; q++)
                    if ((s->time[i] + q) % ii == r)
                        used[wt_ops[op].uclass] += q == 0 ? 1 : (int)wt_class_issue(G->g.model, wt_ops[op].uclass);
            }
            if (s->time[i] % ii == r) gates += G->node[i].gate_ops;
        }
        for (int c = 1; c < WT_NUCLASSES; c++)
            if (used[c] > (int)wt_class_issue(G->g.model, c)) fail_msg("row %d: %d %s operations", r, used[c], wt_unit_class_name(c));
        unsigned pc = G->g.model->gate_ops_per_clock;
        if (pc) assert_true(gates <= (int)pc);
    }
}

static void test_res_mii_counts_slots(void **state)
{
    (void)state;
    graph G;
    g_init(&G, "warp");
    /* Five ALU-only operations on two ALUs: three clocks. */
    for (int i = 0; i < 5; i++) g_op(&G, WT_OP_IADD, WT_OP_NONE, 0);
    const char *bound;
    assert_int_equal(wb_res_mii(&G.g, &bound), 3);
    assert_string_equal(bound, "ALU");
    /* With the memory units' adder as an alternative, four units share them: two. */
    for (int i = 0; i < 5; i++) G.node[i].alt[0] = WT_OP_LEA;
    assert_int_equal(wb_res_mii(&G.g, &bound), 2);
    /* A divide keeps its class busy for its whole interval. */
    g_init(&G, "warp");
    g_op(&G, WT_OP_IDIV, WT_OP_NONE, 0);
    assert_int_equal(wb_res_mii(&G.g, &bound), wt_ops[WT_OP_IDIV].interval[WT_MODEL_WARP]);
}

static void test_res_mii_gate_operations_on_iwarp(void **state)
{
    (void)state;
    graph G;
    for (int m = 0; m < 2; m++) {
        g_init(&G, m ? "iwarp" : "warp");
        g_op(&G, WT_OP_IADD, WT_OP_LEA, 2);    /* reads @xl and @yl */
        g_op(&G, WT_OP_MV, WT_OP_MOV, 1);      /* writes @yr */
        g_op(&G, WT_OP_MV, WT_OP_MOV, 1);      /* writes @xr */
        const char *bound;
        /* Warp has no limit; iWarp takes two gate operations a clock. */
        assert_int_equal(wb_res_mii(&G.g, &bound), m ? 2 : 1);
        if (m) assert_string_equal(bound, "gate operations");
    }
}

static void test_rec_mii(void **state)
{
    (void)state;
    graph G;
    g_init(&G, "warp");
    int a = g_op(&G, WT_OP_FADD, WT_OP_NONE, 0);
    assert_int_equal(wb_rec_mii(&G.g), 0);   /* no cycle */
    /* s = s + x: the add's latency per iteration. */
    g_edge(&G, a, a, 5, 1);
    assert_int_equal(wb_rec_mii(&G.g), 5);
    /* A cycle over two iterations halves the bound (rounded up). */
    g_init(&G, "warp");
    a = g_op(&G, WT_OP_FADD, WT_OP_NONE, 0);
    int b = g_op(&G, WT_OP_FMUL, WT_OP_NONE, 0);
    g_edge(&G, a, b, 5, 0);
    g_edge(&G, b, a, 5, 2);
    assert_int_equal(wb_rec_mii(&G.g), 5);
    g_edge(&G, b, a, 6, 2);
    assert_int_equal(wb_rec_mii(&G.g), 6);
    /* A cycle within one iteration can never be scheduled. */
    g_init(&G, "warp");
    a = g_op(&G, WT_OP_IADD, WT_OP_NONE, 0);
    b = g_op(&G, WT_OP_IADD, WT_OP_NONE, 0);
    g_edge(&G, a, b, 1, 0);
    g_edge(&G, b, a, 1, 0);
    assert_int_equal(wb_rec_mii(&G.g), -1);
}

static void test_gate_order_chain_is_a_recurrence(void **state)
{
    (void)state;
    /* A receive from the right after a send toward the right, and the next
     * iteration's send after that receive's value (a bounce): the gate rules make
     * a cycle send -> receive (1 clock) -> add (1) -> send of the next iteration. */
    graph G;
    g_init(&G, "warp");
    int send = g_op(&G, WT_OP_MV, WT_OP_MOV, 1);
    int recv = g_op(&G, WT_OP_MV, WT_OP_MOV, 1);
    int add = g_op(&G, WT_OP_IADD, WT_OP_NONE, 0);
    g_edge(&G, send, recv, 1, 0);   /* a receive strictly after the send before it */
    g_edge(&G, recv, add, 1, 0);
    g_edge(&G, add, send, 1, 1);    /* the next send carries the sum */
    assert_int_equal(wb_rec_mii(&G.g), 3);
    wb_msched s;
    assert_int_equal(wb_modulo_schedule(&G.g, 16, &s), 0);
    assert_int_equal(s.ii, 3);
    assert_valid(&G, &s);
    wb_msched_free(&s);
}

static void test_horner_reaches_ii_1(void **state)
{
    (void)state;
    /* The polynomial's inner loop as the pipeliner builds it on Warp: every unit
     * has work each clock and nothing recurs but the address. */
    graph G;
    g_init(&G, "warp");
    int feed_x = g_op(&G, WT_OP_HLD, WT_OP_NONE, 0);
    int feed_y = g_op(&G, WT_OP_MV, WT_OP_MOV, 0);
    int mul = g_op(&G, WT_OP_FMUL, WT_OP_NONE, 2);
    G.node[mul].nops = 2;                 /* with the pass-on of x: one dequeue */
    G.node[mul].op[1] = WT_OP_MV;
    G.node[mul].alt[1] = WT_OP_MOV;
    G.node[mul].gate_ops = 3;
    int add = g_op(&G, WT_OP_FADD, WT_OP_NONE, 1);
    int addr = g_op(&G, WT_OP_IADD, WT_OP_LEA, 0);
    int drop = g_op(&G, WT_OP_MV, WT_OP_MOV, 0);
    int ptr = g_op(&G, WT_OP_IADD, WT_OP_LEA, 0);
    g_edge(&G, ptr, ptr, 1, 1);
    g_edge(&G, ptr, feed_x, 1, 0);
    g_edge(&G, ptr, addr, 1, 0);
    g_edge(&G, feed_x, mul, 2, 0);
    g_edge(&G, feed_y, mul, 1, 0);
    g_edge(&G, mul, add, 5, 0);
    g_edge(&G, feed_x, feed_x, 1, 1);
    (void)drop;
    wb_msched s;
    assert_int_equal(wb_modulo_schedule(&G.g, 16, &s), 0);
    assert_int_equal(s.mii, 1);
    assert_int_equal(s.ii, 1);
    assert_true(s.stages >= 3);
    assert_valid(&G, &s);
    wb_msched_free(&s);
}

static void test_scheduler_goes_past_mii_when_it_must(void **state)
{
    (void)state;
    /* Two divides share the ALUs: each blocks the class for its interval after
     * issue, so II must hold both intervals. */
    graph G;
    g_init(&G, "warp");
    g_op(&G, WT_OP_IDIV, WT_OP_NONE, 0);
    g_op(&G, WT_OP_IDIV, WT_OP_NONE, 0);
    wb_msched s;
    assert_int_equal(wb_modulo_schedule(&G.g, 64, &s), 0);
    assert_true(s.ii >= 2 * wt_ops[WT_OP_IDIV].interval[WT_MODEL_WARP] - 1);
    assert_valid(&G, &s);
    wb_msched_free(&s);
    /* An impossible limit fails and says why. */
    g_init(&G, "warp");
    int a = g_op(&G, WT_OP_FADD, WT_OP_NONE, 0);
    g_edge(&G, a, a, 5, 1);
    assert_int_not_equal(wb_modulo_schedule(&G.g, 3, &s), 0);
    assert_int_equal(s.rec_mii, 5);
    wb_msched_free(&s);
}

static void test_products_tile_the_multipliers_rows_on_iwarp(void **state)
{
    (void)state;
    /* A 3 x 3 convolution's point: nine products summed by eight adds. On iWarp
     * each float operation holds its unit two clocks, so the nine products fill
     * all 18 rows at II=18 only if each starts on an even clock; placed as
     * early as their inputs allow, they left one-clock gaps and the search
     * went to II=22. */
    graph G;
    g_init(&G, "iwarp");
    int lat_mul = (int)wt_ops[WT_OP_FMUL].latency[WT_MODEL_IWARP];
    int lat_add = (int)wt_ops[WT_OP_FADD].latency[WT_MODEL_IWARP];
    int mul[9], sum = -1;
    for (int k = 0; k < 9; k++) {
        int ld = g_op(&G, WT_OP_LD, WT_OP_NONE, 0);
        mul[k] = g_op(&G, WT_OP_FMUL, WT_OP_NONE, 0);
        g_edge(&G, ld, mul[k], (int)wt_ops[WT_OP_LD].latency[WT_MODEL_IWARP] + k % 2, 0);
    }
    for (int k = 1; k < 9; k++) {
        int a = g_op(&G, WT_OP_FADD, WT_OP_NONE, 0);
        g_edge(&G, k == 1 ? mul[0] : sum, a, k == 1 ? lat_mul : lat_add, 0);
        g_edge(&G, mul[k], a, lat_mul, 0);
        sum = a;
    }
    wb_msched s;
    assert_int_equal(wb_modulo_schedule(&G.g, 64, &s), 0);
    assert_int_equal(s.mii, 18);
    assert_int_equal(s.ii, 18);
    assert_valid(&G, &s);
    wb_msched_free(&s);
}

static void test_many_operations_with_recurrences(void **state)
{
    (void)state;
    /* A chain of float adds with an accumulator and mixed units, on both models. */
    for (int m = 0; m < 2; m++) {
        graph G;
        g_init(&G, m ? "iwarp" : "warp");
        int prev = -1;
        for (int i = 0; i < 12; i++) {
            int op = i % 3 == 0 ? WT_OP_FADD : i % 3 == 1 ? WT_OP_FMUL : WT_OP_IADD;
            int n = g_op(&G, op, op == WT_OP_IADD ? WT_OP_LEA : WT_OP_NONE, i % 4 == 0);
            if (prev >= 0) g_edge(&G, prev, n, wt_ops[G.node[prev].op[0]].latency[G.g.model->id], 0);
            prev = n;
        }
        g_edge(&G, prev, 0, 1, 1);
        g_edge(&G, 0, 0, wt_ops[WT_OP_FADD].latency[G.g.model->id], 1);
        wb_msched s;
        assert_int_equal(wb_modulo_schedule(&G.g, 200, &s), 0);
        assert_int_equal(s.ii, s.mii);
        assert_valid(&G, &s);
        wb_msched_free(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_res_mii_counts_slots),
        cmocka_unit_test(test_res_mii_gate_operations_on_iwarp),
        cmocka_unit_test(test_rec_mii),
        cmocka_unit_test(test_gate_order_chain_is_a_recurrence),
        cmocka_unit_test(test_horner_reaches_ii_1),
        cmocka_unit_test(test_scheduler_goes_past_mii_when_it_must),
        cmocka_unit_test(test_many_operations_with_recurrences),
        cmocka_unit_test(test_products_tile_the_multipliers_rows_on_iwarp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
