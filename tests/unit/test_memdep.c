/* Memory dependence distances from affine forms of addresses (backend/memdep.c):
 * known strides (exact distance, or none), unknown strides (a difference in
 * registers, checked on entry), in-place updates, two arrays, and forms that
 * are no address. The forms are those the pipeliner builds for x[...] with
 * 4-byte words: t*4 + 4*offset + base. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mir.h"

enum { J0 = 100, H = 101, K = 102 };   /* registers: j's value on entry, h, k */

/* sym[4*(j + off) + 4*hk*H + 4*kk*K], j stepped by `step` words an iteration */
static wb_aff word(const char *sym, int64_t step, int64_t off, int64_t hk, int64_t kk)
{
    wb_aff a;
    wb_aff_const(&a, 4 * off);
    a.sym = sym;
    a.t = 4 * step;
    assert_true(wb_aff_term(&a, J0, 4));
    assert_true(wb_aff_term(&a, H, 4 * hk));
    assert_true(wb_aff_term(&a, K, 4 * kk));
    return a;
}

static void test_known_stride(void **state)
{
    (void)state;
    /* x[j] stored, x[j+1] loaded: the load of iteration t-1 reads the word the
     * store of iteration t writes: the store is one iteration after the load */
    wb_aff st = word("x", 1, 0, 0, 0), ld = word("x", 1, 1, 0, 0);
    wb_dep d = wb_mem_dependence(&st, &ld);
    assert_int_equal(d.kind, WB_DEP_AT);
    assert_int_equal(d.dist, -1);
    d = wb_mem_dependence(&ld, &st);
    assert_int_equal(d.kind, WB_DEP_AT);
    assert_int_equal(d.dist, 1);
    /* x[j-3] after x[j]: three iterations */
    wb_aff back = word("x", 1, -3, 0, 0);
    d = wb_mem_dependence(&st, &back);
    assert_int_equal(d.kind, WB_DEP_AT);
    assert_int_equal(d.dist, 3);
    /* stride 2: x[2j] and x[2j+1] never meet, x[2j] and x[2j+4] two apart */
    wb_aff even = word("x", 2, 0, 0, 0), odd = word("x", 2, 1, 0, 0), ahead = word("x", 2, 4, 0, 0);
    assert_int_equal(wb_mem_dependence(&even, &odd).kind, WB_DEP_NONE);
    d = wb_mem_dependence(&ahead, &even);
    assert_int_equal(d.kind, WB_DEP_AT);
    assert_int_equal(d.dist, 2);
    /* different strides: unknown */
    wb_aff one = word("x", 1, 0, 0, 0);
    assert_int_equal(wb_mem_dependence(&even, &one).kind, WB_DEP_UNKNOWN);
}

static void test_in_place_update(void **state)
{
    (void)state;
    /* c[j] := c[j] * 2: the same word in one iteration only, no recurrence */
    wb_aff ld = word("c", 1, 0, 0, 0), st = word("c", 1, 0, 0, 0);
    wb_dep d = wb_mem_dependence(&ld, &st);
    assert_int_equal(d.kind, WB_DEP_AT);
    assert_int_equal(d.dist, 0);
    /* the same, with an invariant offset on both sides: still distance 0 */
    wb_aff ldk = word("c", 1, 0, 0, 1), stk = word("c", 1, 0, 0, 1);
    d = wb_mem_dependence(&ldk, &stk);
    assert_int_equal(d.kind, WB_DEP_AT);
    assert_int_equal(d.dist, 0);
    /* an invariant address (a sum kept in memory): the same word each iteration
     * is unknown (both orders), a different word never */
    wb_aff s0 = word("s", 0, 0, 0, 0), s1 = word("s", 0, 1, 0, 0);
    assert_int_equal(wb_mem_dependence(&s0, &s0).kind, WB_DEP_UNKNOWN);
    assert_int_equal(wb_mem_dependence(&s0, &s1).kind, WB_DEP_NONE);
}

static void test_unknown_stride(void **state)
{
    (void)state;
    /* the butterfly: x[j+k] and x[j+k+h], h and k set before the loop */
    wb_aff lo = word("x", 1, 0, 0, 1), hi = word("x", 1, 0, 1, 1);
    wb_dep d = wb_mem_dependence(&hi, &lo);
    assert_int_equal(d.kind, WB_DEP_CHECK);
    assert_int_equal(d.step, 4);
    /* the difference is 4h: k and j's start cancel */
    assert_int_equal(d.diff.c, 0);
    assert_int_equal(d.diff.nterm, 1);
    assert_int_equal(d.diff.term[0].v, H);
    assert_int_equal(d.diff.term[0].k, 4);
    /* the other order: -4h, the same check */
    wb_dep e = wb_mem_dependence(&lo, &hi);
    assert_int_equal(e.kind, WB_DEP_CHECK);
    assert_true(wb_aff_equal(&d.diff, &e.diff, -1));
    assert_false(wb_aff_equal(&d.diff, &e.diff, 1));
    /* x[j+h+1] and x[j]: 4h + 4 */
    wb_aff hi1 = word("x", 1, 1, 1, 0), j = word("x", 1, 0, 0, 0);
    d = wb_mem_dependence(&hi1, &j);
    assert_int_equal(d.kind, WB_DEP_CHECK);
    assert_int_equal(d.diff.c, 4);
    /* an invariant address against a moving one: unknown */
    wb_aff inv = word("x", 0, 0, 1, 0);
    assert_int_equal(wb_mem_dependence(&inv, &j).kind, WB_DEP_UNKNOWN);
}

static void test_two_arrays(void **state)
{
    (void)state;
    /* re[j] and im[j]: different symbols, nothing known from the forms (the
     * memory objects keep them apart, not the addresses) */
    wb_aff re = word("re", 1, 0, 0, 0), im = word("im", 1, 0, 0, 0);
    assert_int_equal(wb_mem_dependence(&re, &im).kind, WB_DEP_UNKNOWN);
    /* a base in a register on one side only */
    wb_aff p = word(NULL, 1, 0, 0, 0);
    assert_int_equal(wb_mem_dependence(&re, &p).kind, WB_DEP_UNKNOWN);
    /* two pointers in registers, one word apart */
    wb_aff q = word(NULL, 1, 1, 0, 0);
    wb_dep d = wb_mem_dependence(&q, &p);
    assert_int_equal(d.kind, WB_DEP_AT);
    assert_int_equal(d.dist, 1);
}

static void test_forms(void **state)
{
    (void)state;
    wb_aff a, b, r;
    wb_aff_const(&a, 8);
    a.sym = "x";
    wb_aff_const(&b, 0);
    assert_true(wb_aff_term(&b, H, 1));
    /* x + 8 + 4h */
    assert_true(wb_aff_add(&r, &a, &b, 4));
    assert_int_equal(r.c, 8);
    assert_int_equal(r.nterm, 1);
    /* a symbol twice, or scaled, is no address */
    assert_false(wb_aff_add(&r, &a, &a, 1));
    assert_false(wb_aff_scale(&a, 2));
    /* terms cancel */
    assert_true(wb_aff_add(&r, &b, &b, -1));
    assert_int_equal(r.nterm, 0);
    /* coefficients beyond int64 (a product of products by constants): no form */
    wb_aff big;
    wb_aff_const(&big, 3);
    big.t = 4;
    assert_true(wb_aff_scale(&big, (int64_t)1 << 40));
    assert_false(wb_aff_scale(&big, (int64_t)1 << 40));
    wb_aff_const(&big, INT64_MAX);
    assert_false(wb_aff_add(&r, &big, &big, 1));
    /* too many registers */
    wb_aff m;
    wb_aff_const(&m, 0);
    for (int i = 0; i < WB_AFF_TERMS; i++) assert_true(wb_aff_term(&m, i + 1, 1));
    assert_false(wb_aff_term(&m, 99, 1));
}

/* sym[4*(pc*P + off) + 4*hk*H]: P a stepped counter's value as the iteration begins */
static wb_aff at_counter(const char *sym, int64_t pc, int64_t off, int64_t hk)
{
    wb_aff a;
    wb_aff_const(&a, 4 * off);
    a.sym = sym;
    a.p = 4 * pc;
    assert_true(wb_aff_term(&a, H, 4 * hk));
    return a;
}

/* p := p + m, and + g more in some iterations */
static wb_counter counter(int64_t m, int64_t gc, int64_t gh)
{
    wb_counter c = {.m = m};
    wb_aff_const(&c.g, gc);
    assert_true(wb_aff_term(&c.g, H, gh));
    return c;
}

static void test_stepped_counter(void **state)
{
    (void)state;
    /* the butterfly: p + 1 or p + 1 + h an iteration; x[p + h] stored meets
     * x[p] loaded only after h iterations without the extra step: no sooner
     * than `want` iterations once h >= want */
    wb_counter bf = counter(1, 0, 1);
    wb_aff hi = at_counter("x", 1, 0, 1), lo = at_counter("x", 1, 0, 0);
    wb_dep d = wb_counter_dependence(&hi, &lo, &bf, 4);
    assert_int_equal(d.kind, WB_DEP_AT);
    assert_int_equal(d.dist, 4);
    assert_int_equal(d.gmin, 4);
    d = wb_counter_dependence(&hi, &lo, &bf, 1);
    assert_int_equal(d.kind, WB_DEP_AT);
    assert_int_equal(d.dist, 1);
    assert_int_equal(d.gmin, 1);
    /* x[p] of one iteration is never x[p + h] of a later one (p only grows),
     * nor x[p] again: no loop-carried dependence, h >= 0 assumed */
    d = wb_counter_dependence(&lo, &hi, &bf, 4);
    assert_int_equal(d.kind, WB_DEP_NONE);
    assert_int_equal(d.gmin, 0);
    assert_int_equal(wb_counter_dependence(&lo, &lo, &bf, 4).kind, WB_DEP_NONE);
    assert_int_equal(wb_counter_dependence(&hi, &hi, &bf, 4).kind, WB_DEP_NONE);
    /* x[p + 1] stored, x[p] loaded: the next iteration, whatever h is, once
     * h >= 1 (with h = 0 the extra step could not keep them apart either) */
    wb_aff next = at_counter("x", 1, 1, 0);
    d = wb_counter_dependence(&next, &lo, &bf, 4);
    assert_int_equal(d.kind, WB_DEP_AT);
    assert_int_equal(d.dist, 1);
    assert_int_equal(d.gmin, 1);
    /* x[p + 3] and x[p]: three iterations apart without the extra step, or one
     * with it when h = 2: asking for 4 needs h > 2 and gives 3 */
    wb_aff three = at_counter("x", 1, 3, 0);
    d = wb_counter_dependence(&three, &lo, &bf, 4);
    assert_int_equal(d.kind, WB_DEP_AT);
    assert_int_equal(d.dist, 3);
    assert_int_equal(d.gmin, 3);
    /* a counter stepping down: p - 1 or p - 1 - h; x[p - h] stored, x[p] loaded */
    wb_counter down = counter(-1, 0, -1);
    wb_aff below = at_counter("x", 1, 0, -1);
    d = wb_counter_dependence(&below, &lo, &down, 3);
    assert_int_equal(d.kind, WB_DEP_AT);
    assert_int_equal(d.dist, 3);
    assert_int_equal(d.gmin, 3);
    assert_int_equal(wb_counter_dependence(&lo, &below, &down, 3).kind, WB_DEP_NONE);
}

static void test_stepped_counter_constant_steps(void **state)
{
    (void)state;
    /* steps 1 or 3: x[p + 2] is two short steps ahead, x[p + 3] one long one */
    wb_counter c = counter(1, 2, 0);
    wb_aff lo = at_counter("x", 1, 0, 0), two = at_counter("x", 1, 2, 0), five = at_counter("x", 1, 5, 0);
    wb_aff three = at_counter("x", 1, 3, 0);
    wb_dep d = wb_counter_dependence(&two, &lo, &c, 8);
    assert_int_equal(d.kind, WB_DEP_AT);
    assert_int_equal(d.dist, 2);
    d = wb_counter_dependence(&three, &lo, &c, 8);
    assert_int_equal(d.kind, WB_DEP_AT);
    assert_int_equal(d.dist, 1);
    /* 5 = 3 + 1 + 1: three iterations at the least; asking for 2, 2 */
    d = wb_counter_dependence(&five, &lo, &c, 8);
    assert_int_equal(d.kind, WB_DEP_AT);
    assert_int_equal(d.dist, 3);
    d = wb_counter_dependence(&five, &lo, &c, 2);
    assert_int_equal(d.kind, WB_DEP_AT);
    assert_int_equal(d.dist, 2);
    /* behind the counter: never */
    assert_int_equal(wb_counter_dependence(&lo, &five, &c, 8).kind, WB_DEP_NONE);
    assert_int_equal(d.gmin, 0);
    /* steps 3 or 1 written the other way round (m = 3, g = -2): the same */
    wb_counter r = counter(3, -2, 0);
    d = wb_counter_dependence(&five, &lo, &r, 8);
    assert_int_equal(d.kind, WB_DEP_AT);
    assert_int_equal(d.dist, 3);
    /* steps 1 or -1: the counter may come back, nothing known */
    wb_counter back = counter(1, -2, 0);
    assert_int_equal(wb_counter_dependence(&five, &lo, &back, 8).kind, WB_DEP_UNKNOWN);
    /* x[2p] and x[2p + 1]: never one word */
    wb_aff even = at_counter("x", 2, 0, 0), odd = at_counter("x", 2, 0, 0);
    odd.c += 4;
    assert_int_equal(wb_counter_dependence(&odd, &even, &c, 8).kind, WB_DEP_NONE);
}

static void test_stepped_counter_unknown(void **state)
{
    (void)state;
    wb_counter bf = counter(1, 0, 1);
    wb_aff lo = at_counter("x", 1, 0, 0);
    /* another array, the counter scaled otherwise, an induction variable too */
    wb_aff other = at_counter("y", 1, 0, 0), twice = at_counter("x", 2, 0, 0), moving = at_counter("x", 1, 0, 0);
    moving.t = 4;
    assert_int_equal(wb_counter_dependence(&other, &lo, &bf, 4).kind, WB_DEP_UNKNOWN);
    assert_int_equal(wb_counter_dependence(&twice, &lo, &bf, 4).kind, WB_DEP_UNKNOWN);
    assert_int_equal(wb_counter_dependence(&moving, &lo, &bf, 4).kind, WB_DEP_UNKNOWN);
    /* x[p + k] against x[p], k a register the counter does not step by */
    wb_aff k = at_counter("x", 1, 0, 0);
    assert_true(wb_aff_term(&k, K, 4));
    assert_int_equal(wb_counter_dependence(&k, &lo, &bf, 4).kind, WB_DEP_UNKNOWN);
    /* the plain test leaves counter forms alone */
    assert_int_equal(wb_mem_dependence(&lo, &lo).kind, WB_DEP_UNKNOWN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_stride),
        cmocka_unit_test(test_in_place_update),
        cmocka_unit_test(test_unknown_stride),
        cmocka_unit_test(test_two_arrays),
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_stepped_counter),
        cmocka_unit_test(test_stepped_counter_constant_steps),
        cmocka_unit_test(test_stepped_counter_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
