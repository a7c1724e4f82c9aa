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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_stride),
        cmocka_unit_test(test_in_place_update),
        cmocka_unit_test(test_unknown_stride),
        cmocka_unit_test(test_two_arrays),
        cmocka_unit_test(test_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
