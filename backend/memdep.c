/* Memory dependences of a pipelined loop from affine forms of the addresses.
 *
 * An address is written as t*step + c + sum(k_i * v_i) [+ sym]: t the iteration
 * number, v_i registers that keep their value through the loop (invariants, and
 * the values induction variables hold on entry). Two accesses a (iteration t) and
 * b (iteration t + d) touch one word when their forms are equal; with the same
 * step s that is s*d = Fa - Fb, where Fa - Fb no longer depends on t:
 *   - a constant difference gives d exactly, or no d at all (not a multiple of s):
 *     c[i] loaded and stored back is no recurrence, x[i] and x[i+1] one at d = 1;
 *   - a difference in registers (x[j] and x[j+h], h set before the loop) gives
 *     d = (Fa - Fb)/s, unknown when the program is compiled but fixed for the
 *     loop: when |Fa - Fb| >= N*|s| (N the trip count) every such d is at least N
 *     and the two accesses never meet. The pipeliner checks that on entry and
 *     runs the original loop when it does not hold (LLVM's loop versioning on
 *     run-time checks does the same for its vectorizer);
 *   - anything else (different steps, different symbols, an address that is no
 *     such form) is unknown: program order within an iteration, and the next
 *     iteration after this one.
 * The symbolic case is what the in-place butterfly of an FFT needs: re[j+k] and
 * re[j+k+h] for j = 0..h-1 are h iterations apart, never within one loop. */
#include "mir.h"

#include <string.h>

void wb_aff_const(wb_aff *a, int64_t c)
{
    memset(a, 0, sizeof *a);
    a->c = c;
}

/* Checked arithmetic: a form whose coefficients would leave int64 is no form. */
static int mul(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }
static int add(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }

int wb_aff_term(wb_aff *a, int v, int64_t k)
{
    if (k == 0) return 1;
    for (int i = 0; i < a->nterm; i++)
        if (a->term[i].v == v) {
            if (!add(a->term[i].k, k, &a->term[i].k)) return 0;
            if (a->term[i].k == 0) a->term[i] = a->term[--a->nterm];
            return 1;
        }
    if (a->nterm == WB_AFF_TERMS) return 0;
    a->term[a->nterm].v = v;
    a->term[a->nterm++].k = k;
    return 1;
}

int wb_aff_add(wb_aff *r, const wb_aff *a, const wb_aff *b, int64_t kb)
{
    wb_aff x = *a;
    int64_t p;
    if (b->sym) {
        if (kb != 1 || x.sym) return 0;   /* a sum of two symbols, or a symbol scaled: not an address */
        x.sym = b->sym;
    }
    if (!mul(kb, b->t, &p) || !add(x.t, p, &x.t) || !mul(kb, b->c, &p) || !add(x.c, p, &x.c)) return 0;
    for (int i = 0; i < b->nterm; i++)
        if (!mul(kb, b->term[i].k, &p) || !wb_aff_term(&x, b->term[i].v, p)) return 0;
    *r = x;
    return 1;
}

int wb_aff_scale(wb_aff *a, int64_t k)
{
    if (a->sym && k != 1) return 0;
    if (!mul(a->t, k, &a->t) || !mul(a->c, k, &a->c)) return 0;
    for (int i = 0; i < a->nterm; i++)
        if (!mul(a->term[i].k, k, &a->term[i].k)) return 0;
    if (k == 0) a->nterm = 0;
    return 1;
}

/* Two forms of one register sum, whatever the order of their terms. */
static int same_terms(const wb_aff *a, const wb_aff *b, int64_t sign)
{
    if (a->nterm != b->nterm) return 0;
    for (int i = 0; i < a->nterm; i++) {
        int found = 0;
        for (int j = 0; j < b->nterm && !found; j++) found = a->term[i].v == b->term[j].v && b->term[j].k != INT64_MIN && a->term[i].k == sign * b->term[j].k;
        if (!found) return 0;
    }
    return 1;
}

int wb_aff_equal(const wb_aff *a, const wb_aff *b, int64_t sign)
{
    int64_t c, t;
    return mul(sign, b->c, &c) && mul(sign, b->t, &t) && a->c == c && a->t == t && same_terms(a, b, sign);
}

wb_dep wb_mem_dependence(const wb_aff *a, const wb_aff *b)
{
    wb_dep r = {WB_DEP_UNKNOWN, 0, 0, {0}};
    if ((a->sym == NULL) != (b->sym == NULL) || (a->sym && strcmp(a->sym, b->sym) != 0)) return r;
    if (a->t != b->t) return r;
    /* a - b: the symbols cancel, so do the steps */
    wb_aff diff = *a;
    diff.sym = NULL;
    diff.t = 0;
    if (__builtin_sub_overflow(a->c, b->c, &diff.c)) return r;
    for (int i = 0; i < b->nterm; i++) {
        int64_t k;
        if (!mul(b->term[i].k, -1, &k) || !wb_aff_term(&diff, b->term[i].v, k)) return r;
    }
    int64_t s = a->t;
    if (diff.nterm == 0) {
        if (s == 0) {
            /* one word every iteration, or never the same one */
            if (diff.c != 0) r.kind = WB_DEP_NONE;
            return r;
        }
        if (diff.c % s != 0) {
            r.kind = WB_DEP_NONE;
            return r;
        }
        int64_t d = diff.c / s;
        if (d > 1 << 20 || d < -(1 << 20)) {
            r.kind = WB_DEP_NONE;   /* further apart than any loop this machine runs */
            return r;
        }
        r.kind = WB_DEP_AT;
        r.dist = (int)d;
        return r;
    }
    if (s == 0) return r;
    r.kind = WB_DEP_CHECK;
    r.step = s;
    r.diff = diff;
    return r;
}
