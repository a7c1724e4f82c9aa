/* Deadlocks of every kind of resource a cell can wait on, on rings of 2, 3 and 64
 * cells (docs/design.md, section 7, "The deadlock report"): held channels a request
 * waits for, begin markers waiting in an agent for a channel, spool gates, events.
 * Each test builds its program with the real assembler, runs it to the deadlock and
 * checks the reported cycle: its members in order, and the line of each one, which
 * names the channel, bus, spool gate or event it waits on.
 *
 * The rings: 2 and 3 cells on an Nx1 torus, each cell's successor the next one on
 * XRight; 64 cells on an 8x8 torus, a boustrophedon (row 0 right along XRight, up
 * YUp at its end, row 1 back along XLeft, up at its start, ..., row 7 back up to
 * row 0 across the wrap), so the rings turn corners. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "comm_harness.h"

typedef struct ring {
    int n;
    const char *topology;
} ring;

static const ring ring2 = {2, "torus:2x1"}, ring3 = {3, "torus:3x1"}, ring64 = {64, "torus:8x8"};

static const char *const buses[] = {"XRight", "YUp", "XLeft", "YDown"};

/* The bus from cell k toward its successor. */
static unsigned ring_dir(const ring *r, int k)
{
    if (r->n != 64) return WCA_XRIGHT;
    int x = k % 8, y = k / 8;
    if (y % 2 == 0) return x < 7 ? WCA_XRIGHT : WCA_YUP;
    return x > 0 ? WCA_XLEFT : WCA_YUP;
}

static int ring_next(const ring *r, int k)
{
    if (r->n != 64) return (k + 1) % r->n;
    int x = k % 8, y = k / 8;
    switch (ring_dir(r, k)) {
    case WCA_XRIGHT: return y * 8 + x + 1;
    case WCA_XLEFT: return y * 8 + x - 1;
    default: return (y + 1) % 8 * 8 + x;
    }
}

static int ring_prev(const ring *r, int k)
{
    for (int p = 0; p < r->n; p++)
        if (ring_next(r, p) == k) return p;
    fail_msg("cell %d has no predecessor", k);
    return -1;
}

/* A routing word: the destination (action 0) or a turn toward a bus (1 + bus). */
static uint32_t route_word(int cell, unsigned action, unsigned pool)
{
    return (uint32_t)cell | action << 12 | pool << 15;
}

/* The program: a table of four words a cell, (bus to the successor, first routing
 * word, second routing word, 0), at `tab`, then the text. Cell k loads its row into
 * r10..r12. */
static char *program(const ring *r, int hops, unsigned pool1, unsigned pool2, const char *text)
{
    ws_buf b = {0};
    ws_buf_printf(&b, "        .model  iwarp\n        .cells  0, %d\n        .file   \"ring.s\"\n        .data\ntab:\n",
                  r->n - 1);
    for (int k = 0; k < r->n; k++) {
        int n1 = ring_next(r, k), n2 = ring_next(r, n1);
        uint32_t w1, w2;
        if (hops == 1) {
            w1 = route_word(n1, 0, pool1);
            w2 = 0;
        } else {
            /* A corner at the successor turns toward its successor, onto pool2. */
            w1 = route_word(n1, 1 + ring_dir(r, n1), pool1);
            w2 = route_word(n2, 0, pool2);
        }
        ws_buf_printf(&b, "        .word %u, %u, %u, 0\n", ring_dir(r, k), w1, w2);
    }
    ws_buf_printf(&b, "        .text\n        .globl  main\n"
                      "main:   shl r2, cid, 4\n"
                      "        nop\n"
                      "        ld r10, [r2, tab] | ld r11, [r2, tab + 4]\n"
                      "        ld r12, [r2, tab + 8]\n"
                      "        nop\n        nop\n        nop\n        nop\n"
                      "%s",
                  text);
    ws_buf_append(&b, "", 1);
    return b.data;
}

static void run_to_deadlock(cprog *p, const ring *r, const char *src, const char *channels)
{
    cprog_build(p, src, r->topology, channels);
    assert_int_equal(wsim_run(p->sim, 1000000), WSIM_DEADLOCK);
}

/* The message must start with the cycle `expect` and hold each of the lines. */
static void check_report(const cprog *p, const char *cycle, const ws_buf *lines, int members)
{
    const char *msg = wsim_message(p->sim);
    size_t len = strlen(cycle);
    if (strncmp(msg, cycle, len) != 0 || msg[len] != '\n') fail_msg("expected the cycle\n%s\ngot\n%s", cycle, msg);
    for (const char *l = lines->data; *l; l += strlen(l) + 1)
        if (!strstr(msg, l)) fail_msg("expected the line\n%s\nin\n%s", l, msg);
    /* Every waiter is on the ring: nothing else waits. */
    if (strstr(msg, "also waiting")) fail_msg("waiters off the cycle:\n%s", msg);
    /* The Graphviz form draws the same cycle in red: its nodes and its edges. */
    char *dot = NULL;
    size_t dlen = 0;
    FILE *f = open_memstream(&dot, &dlen);
    assert_int_equal(wsim_deadlock_dot(p->sim, f), 0);
    fclose(f);
    int red = 0;
    for (const char *q = strstr(dot, "color=red"); q; q = strstr(q + 1, "color=red")) red++;
    assert_int_equal(red, 2 * members);
    free(dot);
}

static void line(ws_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(ws_buf *b, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    ws_buf_append(b, text, strlen(text) + 1);
}

/* ---- Channels: requests waiting for channels held by pathways -------------------- */

/* Each cell opens a pathway two cells on: the first hop on the open pool, the rest,
 * after a corner at its successor, on the reservation pool, which takes the
 * successor's one reservation channel toward its own successor. Then each cell asks
 * for that channel for itself: its predecessor's pathway holds it, and the
 * predecessor, waiting in the same request, never sends the end marker. */
static const char *channel_text = "        creq r1, r10, 1\n"
                                  "        nop\n        nop\n"
                                  "        and r3, r1, 255\n"
                                  "        mv %go0, r3\n"
                                  "        pbegin @g0, r11\n"
                                  "        mv @g0, r12\n"
                                  "        mv r20, 40\n"
                                  ".Lw:    dbnz r20, .Lw\n"
                                  "        .loc 20\n"
                                  "        creq r4, r10, 0\n"
                                  "        pend @g0, 0\n"
                                  "        halt\n";

static void channel_deadlock(const ring *r)
{
    char *src = program(r, 2, 1, 0, channel_text);
    cprog p;
    run_to_deadlock(&p, r, src, "1,1");
    /* From cell 0 back along the ring: each request waits for the channel its
     * predecessor's pathway holds. */
    ws_buf cycle = {0}, lines = {0};
    ws_buf_printf(&cycle, "wait-for cycle:");
    int k = 0;
    for (int i = 0; i < r->n; i++) {
        const char *bus = buses[ring_dir(r, k)];
        int prev = ring_prev(r, k);
        ws_buf_printf(&cycle, " cell %d -> cell %d out %s.0 ->", k, k, bus);
        line(&lines, "cell %d (cid %d): pc 17 (ring.s:20): creq waits for a free reservation channel on bus %s; its "
                     "channels are held: out %s.0 by the pathway of cell %d",
             k, k, bus, bus, prev);
        line(&lines, "cell %d (cid %d) out %s.0: held by the pathway of cell %d; cell %d has not sent its end marker", k,
             k, bus, prev, prev);
        k = prev;
    }
    ws_buf_printf(&cycle, " cell 0");
    ws_buf_append(&lines, "", 1);
    check_report(&p, cycle.data, &lines, 2 * r->n);
    ws_buf_free(&cycle);
    ws_buf_free(&lines);
    cprog_free(&p);
    free(src);
}

static void test_channel_deadlock_2(void **state) { (void)state; channel_deadlock(&ring2); }
static void test_channel_deadlock_3(void **state) { (void)state; channel_deadlock(&ring3); }
static void test_channel_deadlock_64(void **state) { (void)state; channel_deadlock(&ring64); }

/* ---- Pathways: begin markers waiting in agents ------------------------------------ */

/* Each cell opens a pathway two cells on, all on the open pool (one channel a bus),
 * and writes 40 words into it. Its begin marker reaches the successor, whose own
 * pathway holds the channel it needs; the words fill the queues behind it and the
 * cell waits, so it never sends the end marker its predecessor's marker waits for. */
static const char *pathway_text = "        creq r1, r10, 1\n"
                                  "        nop\n        nop\n"
                                  "        and r3, r1, 255\n"
                                  "        mv %go0, r3\n"
                                  "        pbegin @g0, r11\n"
                                  "        mv @g0, r12\n"
                                  "        mv r5, 40\n"
                                  "        .loc 30\n"
                                  ".La:    mv @g0, r5 | dbnz r5, .La\n"
                                  "        pend @g0, 0\n"
                                  "        halt\n";

static void pathway_deadlock(const ring *r)
{
    char *src = program(r, 2, 1, 1, pathway_text);
    cprog p;
    run_to_deadlock(&p, r, src, "0,1");
    /* From cell 0 forward: its words wait behind its marker in its successor's agent. */
    ws_buf cycle = {0}, lines = {0};
    ws_buf_printf(&cycle, "wait-for cycle:");
    int k = 0;
    for (int i = 0; i < r->n; i++) {
        int next = ring_next(r, k);
        const char *in = buses[ring_dir(r, k) ^ 2], *out = buses[ring_dir(r, next)];
        ws_buf_printf(&cycle, " cell %d -> agent of cell %d -> cell %d out %s.0 ->", k, next, next, out);
        line(&lines,
             "cell %d (cid %d): pc 16 (ring.s:30): waits to write @g0 to local 4 (full); its pathway's begin marker "
             "waits in cell %d (cell %d local 4 > cell %d out %s.0 > cell %d in %s.0)",
             k, k, next, k, k, buses[ring_dir(r, k)], next, in);
        line(&lines,
             "agent of cell %d (cid %d): holds a pathway begin marker at the head of in %s.0, waiting for a free open "
             "channel on %s; its channels are held: out %s.0 by the pathway of cell %d",
             next, next, in, out, out, next);
        line(&lines, "cell %d (cid %d) out %s.0: held by the pathway of cell %d; cell %d has not sent its end marker",
             next, next, out, next, next);
        k = next;
    }
    ws_buf_printf(&cycle, " cell 0");
    ws_buf_append(&lines, "", 1);
    check_report(&p, cycle.data, &lines, 3 * r->n);
    ws_buf_free(&cycle);
    ws_buf_free(&lines);
    cprog_free(&p);
    free(src);
}

static void test_pathway_deadlock_2(void **state) { (void)state; pathway_deadlock(&ring2); }
static void test_pathway_deadlock_3(void **state) { (void)state; pathway_deadlock(&ring3); }
static void test_pathway_deadlock_64(void **state) { (void)state; pathway_deadlock(&ring64); }

/* ---- Spool gates -------------------------------------------------------------------- */

/* Each cell opens a pathway to its successor and lengthens the one from its
 * predecessor through memory (queue extension): spool gate 0 stores the channel's
 * words at 0x1000, spool gate 1 follows it, reading them back into local channel 10,
 * which input gate @g0 reads. Each cell reads first and writes after: its out spool
 * waits for its in spool, which waits for a word from its predecessor. */
static const char *spool_text = "        creq r1, r10, 1\n"
                                "        nop\n        nop\n"
                                "        and r3, r1, 255\n"
                                "        mv %go0, r3\n"
                                "        pbegin @g0, r11\n"
                                "        evwait r4\n"
                                "        and r5, r4, 255\n"
                                "        mv %sps, 0\n"
                                "        mv %spa, 0x1000\n"
                                "        mv %spl, 0x2000\n"
                                "        mv %spn, 0\n"
                                "        mv %spc, r5\n"
                                "        mv %sps, 1\n"
                                "        mv %spa, 0x1000\n"
                                "        mv %spl, 0x2000\n"
                                "        mv %spn, 0\n"
                                "        mv %spc, 0xaa\n" /* channel 10, out, follow spool 0 */
                                "        mv %gi0, 10\n"
                                "        .loc 40\n"
                                "        mv r6, @g0\n"
                                "        mv @g0, r6\n"
                                "        halt\n";

static void spool_deadlock(const ring *r)
{
    char *src = program(r, 1, 1, 0, spool_text);
    cprog p;
    run_to_deadlock(&p, r, src, "0,1");
    ws_buf cycle = {0}, lines = {0};
    ws_buf_printf(&cycle, "wait-for cycle:");
    int k = 0;
    for (int i = 0; i < r->n; i++) {
        int prev = ring_prev(r, k);
        const char *in = buses[ring_dir(r, prev) ^ 2], *pout = buses[ring_dir(r, prev)];
        ws_buf_printf(&cycle, " cell %d -> spool 1 of cell %d -> spool 0 of cell %d ->", k, k, k);
        line(&lines, "cell %d (cid %d): pc 27 (ring.s:40): waits to read @g0 from local 10 (empty); spool gate 1 of "
                     "cell %d fills it",
             k, k, k);
        line(&lines, "spool 1 of cell %d (cid %d): spools out to local 10 from 0x1000, which its partner spool gate 0 "
                     "has not stored yet",
             k, k);
        line(&lines,
             "spool 0 of cell %d (cid %d): spools in from in %s.0 (empty); cell %d writes it through @g0 (cell %d in "
             "%s.0 < cell %d out %s.0 < cell %d local 4)",
             k, k, in, prev, k, in, prev, pout, prev);
        k = prev;
    }
    ws_buf_printf(&cycle, " cell 0");
    ws_buf_append(&lines, "", 1);
    check_report(&p, cycle.data, &lines, 3 * r->n);
    ws_buf_free(&cycle);
    ws_buf_free(&lines);
    cprog_free(&p);
    free(src);
}

static void test_spool_deadlock_2(void **state) { (void)state; spool_deadlock(&ring2); }
static void test_spool_deadlock_3(void **state) { (void)state; spool_deadlock(&ring3); }
static void test_spool_deadlock_64(void **state) { (void)state; spool_deadlock(&ring64); }

/* ---- Events --------------------------------------------------------------------------- */

/* Each cell opens a pathway to its successor, spools in one word from its
 * predecessor's and waits for the spool gate's stop event before it writes that
 * word: each waits for an event only its predecessor can cause. */
static const char *event_text = "        creq r1, r10, 1\n"
                                "        nop\n        nop\n"
                                "        and r3, r1, 255\n"
                                "        mv %go0, r3\n"
                                "        pbegin @g0, r11\n"
                                "        evwait r4\n"
                                "        and r5, r4, 255\n"
                                "        mv %sps, 0\n"
                                "        mv %spa, 0x1000\n"
                                "        mv %spl, 0x2000\n"
                                "        mv %spn, 1\n"
                                "        mv %spc, r5\n"
                                "        .loc 50\n"
                                "        evwait r4\n"
                                "        mv @g0, 1\n"
                                "        halt\n";

static void event_deadlock(const ring *r)
{
    char *src = program(r, 1, 1, 0, event_text);
    cprog p;
    run_to_deadlock(&p, r, src, "0,1");
    ws_buf cycle = {0}, lines = {0};
    ws_buf_printf(&cycle, "wait-for cycle:");
    int k = 0;
    for (int i = 0; i < r->n; i++) {
        int prev = ring_prev(r, k);
        const char *in = buses[ring_dir(r, prev) ^ 2], *pout = buses[ring_dir(r, prev)];
        ws_buf_printf(&cycle, " cell %d -> spool 0 of cell %d ->", k, k);
        line(&lines, "cell %d (cid %d): pc 21 (ring.s:50): evwait waits for an event (none waiting); spool gate 0 of "
                     "this cell posts one when it stops",
             k, k);
        line(&lines,
             "spool 0 of cell %d (cid %d): spools in from in %s.0 (empty); cell %d writes it through @g0 (cell %d in "
             "%s.0 < cell %d out %s.0 < cell %d local 4); 1 word to go",
             k, k, in, prev, k, in, prev, pout, prev);
        k = prev;
    }
    ws_buf_printf(&cycle, " cell 0");
    ws_buf_append(&lines, "", 1);
    check_report(&p, cycle.data, &lines, 2 * r->n);
    ws_buf_free(&cycle);
    ws_buf_free(&lines);
    cprog_free(&p);
    free(src);
}

static void test_event_deadlock_2(void **state) { (void)state; event_deadlock(&ring2); }
static void test_event_deadlock_3(void **state) { (void)state; event_deadlock(&ring3); }
static void test_event_deadlock_64(void **state) { (void)state; event_deadlock(&ring64); }

/* Each cell waits for an event before anything is sent: nothing is on its way to any
 * of them, so each waits for every other cell, the nearest upstream first; the cycle
 * is the ring backwards. The "any cell" edges are drawn only where they are on it. */
static void idle_event_deadlock(const ring *r)
{
    char *src = program(r, 1, 1, 0, "        .loc 60\n        evwait r4\n        halt\n");
    cprog p;
    run_to_deadlock(&p, r, src, "0,1");
    ws_buf cycle = {0}, lines = {0};
    ws_buf_printf(&cycle, "wait-for cycle:");
    for (int i = 0; i < r->n; i++) {
        int k = (r->n - i) % r->n;
        ws_buf_printf(&cycle, " cell %d ->", k);
        if (r->n == 2)
            line(&lines, "cell %d (cid %d): pc 8 (ring.s:60): evwait waits for an event (none waiting); nothing is on "
                         "its way to it: only cell %d, still running, may send one",
                 k, k, 1 - k);
        else
            line(&lines, "cell %d (cid %d): pc 8 (ring.s:60): evwait waits for an event (none waiting); nothing is on "
                         "its way to it: any of the %d other cells still running may send one",
                 k, k, r->n - 1);
    }
    ws_buf_printf(&cycle, " cell 0");
    ws_buf_append(&lines, "", 1);
    check_report(&p, cycle.data, &lines, r->n);
    ws_buf_free(&cycle);
    ws_buf_free(&lines);
    cprog_free(&p);
    free(src);
}

static void test_idle_event_deadlock_2(void **state) { (void)state; idle_event_deadlock(&ring2); }
static void test_idle_event_deadlock_3(void **state) { (void)state; idle_event_deadlock(&ring3); }
static void test_idle_event_deadlock_64(void **state) { (void)state; idle_event_deadlock(&ring64); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_channel_deadlock_2), cmocka_unit_test(test_channel_deadlock_3),
        cmocka_unit_test(test_channel_deadlock_64), cmocka_unit_test(test_pathway_deadlock_2),
        cmocka_unit_test(test_pathway_deadlock_3), cmocka_unit_test(test_pathway_deadlock_64),
        cmocka_unit_test(test_spool_deadlock_2), cmocka_unit_test(test_spool_deadlock_3),
        cmocka_unit_test(test_spool_deadlock_64), cmocka_unit_test(test_event_deadlock_2),
        cmocka_unit_test(test_event_deadlock_3), cmocka_unit_test(test_event_deadlock_64),
        cmocka_unit_test(test_idle_event_deadlock_2), cmocka_unit_test(test_idle_event_deadlock_3),
        cmocka_unit_test(test_idle_event_deadlock_64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
