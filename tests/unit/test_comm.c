/* Unit tests of simulator/comm/ on its own: the agents of an array driven through
 * their public header, clock by clock, as the simulator drives them (words land,
 * then wca_step, then the computation agents read and write). Topologies, the static
 * allocation, credit flow control, the round-robin scheduler of a bus. Expected
 * clocks are worked out beside each test from docs/design.md, section 7. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warp_comm.h"
#include "warp_target.h"

static const wt_model *iwarp(void) { return wt_model_get(WT_MODEL_IWARP); }

typedef struct sunk {
    int cell;
    unsigned bus;
    uint32_t word;
    uint64_t arrival;
} sunk;

static sunk host_words[64];
static int n_host_words;

static void host_sink(void *ctx, int cell, unsigned bus, uint32_t word, uint64_t arrival)
{
    (void)ctx;
    if (n_host_words < 64) host_words[n_host_words++] = (sunk){cell, bus, word, arrival};
}

static wca *make(const char *topology, const char *channels, int ncells)
{
    wca_config cfg;
    wca_config_default(&cfg);
    char err[200] = "";
    if (topology && wca_parse_topology(topology, &cfg, err, sizeof err) != 0) fail_msg("%s", err);
    if (channels && wca_parse_channels(channels, &cfg, err, sizeof err) != 0) fail_msg("%s", err);
    wca_hooks hooks = {.host_sink = host_sink};
    n_host_words = 0;
    wca *a = wca_new(iwarp(), &cfg, ncells, NULL, &hooks, err, sizeof err);
    if (!a) fail_msg("wca_new: %s", err);
    return a;
}

/* A channel request on `bus` of `cell`, its local channel bound to output gate @g0
 * (or @g1): what creq and `mv %go0, r` do. Returns the queue to fill. */
static wca_queue *open_out(wca *a, int cell, unsigned gate, unsigned bus, unsigned pool, uint32_t *pair)
{
    char err[200];
    uint32_t r;
    assert_true(wca_op_ready(a, cell, WT_OP_CREQ, bus, pool, 0));
    assert_int_equal(wca_op(a, cell, WT_OP_CREQ, bus, pool, 0, &r, err, sizeof err), 0);
    assert_int_equal(wca_ctl_write(a, cell, WT_CTL_GO0 + gate, r & 0xff, 0, err, sizeof err), 0);
    if (pair) *pair = r;
    return wca_gate_outputs(a, cell)[WT_NQUEUES + gate];
}

static wca_queue *bind_in(wca *a, int cell, unsigned gate, unsigned lic)
{
    char err[200];
    assert_int_equal(wca_ctl_write(a, cell, WT_CTL_GI0 + gate, lic, 0, err, sizeof err), 0);
    return wca_gate_inputs(a, cell)[WT_NQUEUES + gate];
}

/* A word written through an output gate, landing at t. */
static int put(wca *a, wca_queue *q, uint32_t word, uint64_t t)
{
    if (wca_queue_used_at(q, t) >= q->cap) return 0;
    q->used++;
    wca_queue_put(q, word, WT_MARK_DATA, t);
    wca_pushed(a, q, t);
    return 1;
}

/* A word read through an input gate at t; -1 if none is ready. */
static int64_t get(wca *a, int cell, unsigned gate, uint64_t t)
{
    wca_queue *q = wca_gate_inputs(a, cell)[WT_NQUEUES + gate];
    if (!q || !wca_queue_ready(q, t)) return -1;
    wca_qword w = wca_queue_take(q, t);
    wca_dequeued(a, cell, WT_NQUEUES + gate, q, w.tag, t);
    return w.word;
}

/* Channel numbers with the default allocation: 3 a bus (2 reservation, 1 open). */
static unsigned bus_channel(unsigned bus, unsigned k) { return bus * 3 + k; }

/* ---- Configuration --------------------------------------------------------------------- */

static void test_parse_configuration(void **state)
{
    (void)state;
    wca_config cfg;
    char err[200];
    wca_config_default(&cfg);
    assert_int_equal(cfg.topology, WCA_LINEAR);
    assert_int_equal(cfg.res_per_bus, 2);
    assert_int_equal(cfg.open_per_bus, 1);
    assert_int_equal(wca_parse_topology("torus:8x8", &cfg, err, sizeof err), 0);
    assert_int_equal(cfg.topology, WCA_TORUS);
    assert_int_equal(cfg.width, 8);
    assert_int_equal(cfg.height, 8);
    assert_int_equal(wca_parse_topology("torus:32x32", &cfg, err, sizeof err), 0);
    assert_int_equal(wca_parse_topology("torus:33x2", &cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "1 to 32"));
    assert_int_equal(wca_parse_topology("torus:8", &cfg, err, sizeof err), -1);
    assert_int_equal(wca_parse_topology("mesh", &cfg, err, sizeof err), -1);
    assert_string_equal(err, "topology 'mesh': expected 'linear' or 'torus:WxH'");
    assert_int_equal(wca_parse_topology("linear", &cfg, err, sizeof err), 0);
    assert_int_equal(cfg.topology, WCA_LINEAR);
    assert_int_equal(wca_parse_channels("4,1", &cfg, err, sizeof err), 0);
    assert_int_equal(cfg.res_per_bus, 4);
    assert_int_equal(wca_parse_channels("4", &cfg, err, sizeof err), -1);

    /* 20 channels a cell: at most 5 a bus. */
    wca_config_default(&cfg);
    cfg.res_per_bus = 5;
    cfg.open_per_bus = 1;
    assert_null(wca_new(iwarp(), &cfg, 2, NULL, NULL, err, sizeof err));
    assert_non_null(strstr(err, "1 to 5 a bus"));
    /* A torus must have the program's cells. */
    assert_int_equal(wca_parse_topology("torus:4x4", &cfg, err, sizeof err), 0);
    cfg.res_per_bus = 2;
    assert_null(wca_new(iwarp(), &cfg, 15, NULL, NULL, err, sizeof err));
    assert_string_equal(err, "a 4x4 torus has 16 cells, the program runs on 15");
    /* Warp has no agent. */
    wca_config_default(&cfg);
    assert_null(wca_new(wt_model_get(WT_MODEL_WARP), &cfg, 2, NULL, NULL, err, sizeof err));
    assert_non_null(strstr(err, "no communication agent"));
}

/* ---- Topologies ------------------------------------------------------------------------ */

/* On the 8x8 torus every output bus of cell (x, y) reaches the right neighbour, with
 * wrap-around, on the channel of the same number of the opposite input bus; a word
 * put at clock 0 crosses at 0 and arrives at 0 + 2. */
static void test_torus_wiring(void **state)
{
    (void)state;
    wca *a = make("torus:8x8", NULL, 64);
    static const int cases[][2] = {{0, 0}, {7, 0}, {0, 7}, {7, 7}, {3, 5}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int x = cases[i][0], y = cases[i][1], cell = y * 8 + x;
        int to[WCA_NBUSES] = {
            [WCA_XRIGHT] = y * 8 + (x + 1) % 8, [WCA_XLEFT] = y * 8 + (x + 7) % 8,
            [WCA_YUP] = ((y + 1) % 8) * 8 + x, [WCA_YDOWN] = ((y + 7) % 8) * 8 + x,
        };
        for (unsigned bus = 0; bus < WCA_NBUSES; bus++) {
            uint64_t t0 = 10 * (i * 4 + bus);
            wca_queue *q = open_out(a, cell, 0, bus, 0, NULL);
            assert_true(put(a, q, 1000 + bus, t0));
            wca_step(a, t0);
            uint32_t w[8];
            unsigned in = bus_channel(wca_opposite(bus), 0);
            assert_int_equal(wca_lic_words(a, to[bus], (int)in, w, NULL, 8), 1);
            assert_int_equal(w[0], 1000 + bus);
            assert_int_equal(wca_loc_last_sent(a, cell, (int)bus_channel(bus, 0)), t0);
            /* Read it there and unbind, so the next case finds the channel empty. */
            assert_true(bind_in(a, to[bus], 1, in) != NULL);
            assert_int_equal(get(a, to[bus], 1, t0 + 1), -1); /* still on the bus */
            assert_int_equal(get(a, to[bus], 1, t0 + 2), 1000 + bus);
            char err[100];
            assert_int_equal(wca_ctl_write(a, to[bus], WT_CTL_GI1, 0xffffffffu, t0, err, sizeof err), 0);
        }
        /* creq gave each request the lowest free channel, then a new local channel. */
    }
    wca_free(a);
}

/* A linear array: XRight and YUp lead right, XLeft and YDown left; past the ends is
 * the host, which takes every word (no credit) two clocks after it crosses. */
static void test_linear_wiring_and_host(void **state)
{
    (void)state;
    wca *a = make("linear", NULL, 3);
    wca_queue *q = open_out(a, 1, 0, WCA_YUP, 0, NULL);
    assert_true(put(a, q, 7, 0));
    wca_step(a, 0);
    uint32_t w[8];
    assert_int_equal(wca_lic_words(a, 2, (int)bus_channel(WCA_YDOWN, 0), w, NULL, 8), 1);
    /* The end cells' outer buses lead to the host, and creq refuses them. */
    char err[200];
    uint32_t r;
    assert_int_equal(wca_op(a, 2, WT_OP_CREQ, WCA_XRIGHT, 0, 0, &r, err, sizeof err), -1);
    assert_string_equal(err, "creq: bus XRight leads out of the array");
    wca_free(a);

    /* The systolic channels do reach the host: 12 words, no credit needed. Word i
     * crosses at 1 + 2i. */
    a = make("linear", NULL, 3);
    assert_int_equal(wca_setup_systolic(a, err, sizeof err), 0);
    wca_queue *right = wca_gate_outputs(a, 2)[WT_Q_XR];
    for (int i = 0; i < 8; i++) assert_true(put(a, right, 100u + (unsigned)i, 1));
    int extra = 0;
    for (uint64_t t = 1; t < 40; t++) {
        if (t >= 2 && extra < 4 && put(a, right, 200u + (unsigned)extra, t)) extra++;
        wca_step(a, t);
    }
    assert_int_equal(n_host_words, 12);
    for (int i = 0; i < 12; i++) {
        assert_int_equal(host_words[i].cell, 2);
        assert_int_equal(host_words[i].bus, WCA_XRIGHT);
        assert_int_equal(host_words[i].arrival, 1 + 2 * (uint64_t)i + 2);
    }
    assert_int_equal(host_words[8].word, 200);
    assert_int_equal(host_words[11].word, 203);
    wca_free(a);
}

/* ---- Credits ------------------------------------------------------------------------- */

/* One channel, a receiver that does not read: exactly 8 words cross (one every 2
 * clocks from clock 0: 0, 2, ..., 14), the 9th waits for a credit. The receiver reads
 * one word at 30; its dequeue signal restores the credit at 32 and word 9 crosses then. */
static void test_credits_stop_at_the_receiver_queue(void **state)
{
    (void)state;
    wca *a = make("linear", NULL, 2);
    uint32_t pair;
    wca_queue *q = open_out(a, 0, 0, WCA_XRIGHT, 0, &pair);
    unsigned out = pair >> 8, in = bus_channel(WCA_XLEFT, out % 3);
    int sent = 0;
    for (uint64_t t = 0; t < 30; t++) {
        while (sent < 12 && put(a, q, (uint32_t)sent, t)) sent++;
        wca_step(a, t);
    }
    /* The local channel holds 8 too: 16 words in all, 12 sent, 8 across. */
    assert_int_equal(wca_loc_words(a, 0, (int)out), 8);
    assert_int_equal(wca_loc_last_sent(a, 0, (int)out), 14);
    uint32_t w[16];
    assert_int_equal(wca_lic_words(a, 1, (int)in, w, NULL, 16), 8);
    bind_in(a, 1, 0, in);
    wca_step(a, 30);
    assert_int_equal(get(a, 1, 0, 30), 0);
    wca_step(a, 31);
    assert_int_equal(wca_loc_words(a, 0, (int)out), 8);
    wca_step(a, 32);
    assert_int_equal(wca_loc_words(a, 0, (int)out), 9);
    assert_int_equal(wca_loc_last_sent(a, 0, (int)out), 32);
    /* Nothing else moves, and the agents say so. */
    assert_int_equal(wca_step(a, 34), 0);
    assert_int_equal(wca_horizon(a), 34);
    wca_free(a);
}

/* ---- The round-robin scheduler --------------------------------------------------------- */

/* Writes a word through @g0 bound to local channel `lic` (rebinding it). */
static int put_on(wca *a, int cell, unsigned lic, uint32_t word, uint64_t t)
{
    char err[100];
    assert_int_equal(wca_ctl_write(a, cell, WT_CTL_GO0, lic, t, err, sizeof err), 0);
    return put(a, wca_gate_outputs(a, cell)[WT_NQUEUES], word, t);
}

/* Streams words on channels of cell 0's XRight bus (one request per pool given) for
 * `clocks` clocks, the first `active` of them always full, the receiver reading every
 * channel each clock. Returns the words each carried and the bus's total. */
static void stream(const unsigned *pools, int nch, int active, uint64_t clocks, uint64_t *words, uint64_t *bus_words)
{
    wca *a = make("linear", NULL, 2);
    unsigned lic[3], in[3], out[3];
    char err[100];
    for (int i = 0; i < nch; i++) {
        uint32_t pair;
        assert_int_equal(wca_op(a, 0, WT_OP_CREQ, WCA_XRIGHT, pools[i], 0, &pair, err, sizeof err), 0);
        lic[i] = pair & 0xff;
        out[i] = pair >> 8;
        in[i] = bus_channel(WCA_XLEFT, out[i] % 3);
    }
    for (uint64_t t = 0; t < clocks; t++) {
        for (int i = 0; i < active; i++) put_on(a, 0, lic[i], (uint32_t)i, t);
        wca_step(a, t);
        for (int i = 0; i < nch; i++) {
            assert_int_equal(wca_ctl_write(a, 1, WT_CTL_GI0, in[i], t, err, sizeof err), 0);
            get(a, 1, 0, t);
            assert_int_equal(wca_ctl_write(a, 1, WT_CTL_GI0, 0xffffffffu, t, err, sizeof err), 0);
        }
    }
    for (int i = 0; i < nch; i++) words[i] = wca_loc_words(a, 0, (int)out[i]);
    *bus_words = wca_bus_words(a, 0, WCA_XRIGHT);
    wca_free(a);
}

/* One active channel has the whole bus: a word every 2 clocks (sec. 5.2). */
static void test_one_channel_takes_the_whole_bus(void **state)
{
    (void)state;
    uint64_t words[3], bus;
    static const unsigned pools[] = {0, 0, 1};
    stream(pools, 1, 1, 400, words, &bus);
    assert_int_equal(words[0], 200);
    /* The same with two idle channels open on the bus: idle ones take nothing. */
    stream(pools, 3, 1, 400, words, &bus);
    assert_int_equal(words[0], 200);
    assert_int_equal(words[1], 0);
    assert_int_equal(words[2], 0);
    assert_int_equal(bus, 200);
}

/* Two busy channels share the bus word by word: half each, to one word. */
static void test_two_channels_share_fairly(void **state)
{
    (void)state;
    uint64_t words[3], bus;
    static const unsigned pools[] = {0, 0, 1};
    stream(pools, 2, 2, 400, words, &bus);
    assert_int_equal(words[0] + words[1], 200);
    assert_true(words[0] >= 99 && words[0] <= 101);
    /* Three, of both pools: a third each. */
    stream(pools, 3, 3, 600, words, &bus);
    assert_int_equal(bus, 300);
    for (int i = 0; i < 3; i++) assert_true(words[i] >= 99 && words[i] <= 101);
}

/* ---- Allocation and the crossbar ------------------------------------------------------- */

/* With 2 reservation and 1 open channel a bus, cell-local numbers are bus*3 + k and the
 * 8 channels past 12 are local. Requests take the lowest free of each. */
static void test_static_allocation_and_requests(void **state)
{
    (void)state;
    wca *a = make("torus:2x2", NULL, 4);
    char err[200];
    uint32_t r;
    char name[64];
    assert_int_equal(wca_channels(a), 20);
    wca_lic_name(a, 0 * 20 + 7, name, sizeof name);
    assert_string_equal(name, "in XLeft.1");
    wca_lic_name(a, 3 * 20 + 12, name, sizeof name);
    assert_string_equal(name, "local 12");
    wca_loc_name(a, 3, name, sizeof name);
    assert_string_equal(name, "out YUp.0");
    assert_int_equal(wca_op(a, 0, WT_OP_CREQ, WCA_YUP, 1, 0, &r, err, sizeof err), 0);
    assert_int_equal(r, 12u | (3u * 1 + 2) << 8);
    assert_int_equal(wca_op(a, 0, WT_OP_CREQ, WCA_YUP, 0, 0, &r, err, sizeof err), 0);
    assert_int_equal(r, 13u | 3u << 8);
    assert_int_equal(wca_op(a, 0, WT_OP_CREQ, WCA_YUP, 0, 0, &r, err, sizeof err), 0);
    assert_int_equal(r, 14u | 4u << 8);
    /* The pool is empty now: a request blocks. */
    assert_false(wca_op_ready(a, 0, WT_OP_CREQ, WCA_YUP, 0, 0));
    assert_false(wca_op_ready(a, 0, WT_OP_CREQ, WCA_YUP, 1, 0));
    assert_true(wca_op_ready(a, 0, WT_OP_CREQ, WCA_XRIGHT, 1, 0));
    wca_op_wait(a, 0, WT_OP_CREQ, WCA_YUP, 0, name, sizeof name);
    assert_string_equal(name, "waits for a free reservation channel on bus YUp");
    /* The other 5 local channels go next; then none is left. */
    for (unsigned bus = 0; bus < WCA_NBUSES; bus++) {
        if (bus == WCA_YUP) continue;
        for (unsigned pool = 0; pool < 2 && wca_op_ready(a, 0, WT_OP_CREQ, bus, pool, 0); pool++)
            assert_int_equal(wca_op(a, 0, WT_OP_CREQ, bus, pool, 0, &r, err, sizeof err), 0);
    }
    assert_int_equal(r & 0xff, 19);
    assert_false(wca_op_ready(a, 0, WT_OP_CREQ, WCA_YDOWN, 0, 0));
    wca_op_wait(a, 0, WT_OP_CREQ, WCA_YDOWN, 0, name, sizeof name);
    assert_string_equal(name, "waits for a free local channel");
    /* Bad operands fault. */
    assert_int_equal(wca_op(a, 0, WT_OP_CREQ, 4, 0, 0, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "buses are 0 to 3"));
    /* An output gate fills local channels only; an input gate takes a free channel. */
    assert_int_equal(wca_ctl_write(a, 1, WT_CTL_GO0, 2, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "fed by a bus"));
    assert_int_equal(wca_ctl_write(a, 1, WT_CTL_GI0, 20, 0, err, sizeof err), -1);
    assert_int_equal(wca_ctl_write(a, 0, WT_CTL_GI0, 12, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "taken by a link"));
    assert_int_equal(wca_ctl_write(a, 1, WT_CTL_GI0, 5, 0, err, sizeof err), 0);
    assert_int_equal(wca_ctl_read(a, 1, WT_CTL_GI0), 5);
    assert_int_equal(wca_ctl_read(a, 1, WT_CTL_GI1), 0xffffffffu);
    assert_int_equal(wca_ctl_write(a, 1, WT_CTL_GI1, 5, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "another gate"));
    /* The match CAM starts with the cell's address. */
    assert_int_equal(wca_ctl_read(a, 3, WT_CTL_CAM0), 3);
    assert_int_equal(wca_ctl_read(a, 3, WT_CTL_CAM1), 0xffffffffu);
    wca_free(a);
}

/* The W2 contract's channels: channel 0 of every bus, pinned, each fed by a local
 * channel of its direction gate; input gate q reads channel 0 of bus (q+2)&3. */
static void test_systolic_channels(void **state)
{
    (void)state;
    wca *a = make("linear", NULL, 3);
    char err[200];
    assert_int_equal(wca_setup_systolic(a, err, sizeof err), 0);
    for (unsigned q = 0; q < WT_NQUEUES; q++) {
        unsigned bus = (q + 2) & 3;
        assert_int_equal(wca_queue_channel(a, wca_gate_inputs(a, 1)[q]), 20 + (int)bus_channel(bus, 0));
        assert_int_equal(wca_queue_channel(a, wca_gate_outputs(a, 1)[q]), 20 + 12 + (int)q);
        assert_int_equal(wca_lic_link(a, 1, 12 + (int)q), (int)bus_channel(bus, 0));
        assert_false(wca_loc_free(a, 1, (int)bus_channel(bus, 0)));
        assert_ptr_equal(wca_feed_queue(a, 0, q), wca_gate_inputs(a, 0)[q]);
    }
    /* Cell 1's @xr reaches cell 2's @xl, its @yl cell 0's @yr. */
    wca_queue *q = wca_gate_outputs(a, 1)[WT_Q_XR];
    assert_true(put(a, q, 55, 0));
    wca_step(a, 0);
    wca_step(a, 1);
    assert_false(wca_queue_ready(wca_gate_inputs(a, 2)[WT_Q_XL], 1));
    assert_true(wca_queue_ready(wca_gate_inputs(a, 2)[WT_Q_XL], 2));
    q = wca_gate_outputs(a, 1)[WT_Q_YL];
    assert_true(put(a, q, 66, 3));
    wca_step(a, 3);
    uint32_t w[4];
    assert_int_equal(wca_lic_words(a, 0, (int)bus_channel(WCA_YUP, 0), w, NULL, 4), 1);
    assert_int_equal(w[0], 66);
    /* Too few channels for them: one a bus and no reservation pool. */
    wca_config cfg;
    wca_config_default(&cfg);
    cfg.res_per_bus = 0;
    wca *b = wca_new(iwarp(), &cfg, 2, NULL, NULL, err, sizeof err);
    assert_non_null(b);
    assert_int_equal(wca_setup_systolic(b, err, sizeof err), -1);
    assert_non_null(strstr(err, "reservation channel"));
    wca_free(b);
    wca_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_configuration),
        cmocka_unit_test(test_torus_wiring),
        cmocka_unit_test(test_linear_wiring_and_host),
        cmocka_unit_test(test_credits_stop_at_the_receiver_queue),
        cmocka_unit_test(test_one_channel_takes_the_whole_bus),
        cmocka_unit_test(test_two_channels_share_fairly),
        cmocka_unit_test(test_static_allocation_and_requests),
        cmocka_unit_test(test_systolic_channels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
