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
    if (!mul(kb, b->t, &p) || !add(x.t, p, &x.t) || !mul(kb, b->c, &p) || !add(x.c, p, &x.c) ||
        !mul(kb, b->p, &p) || !add(x.p, p, &x.p))
        return 0;
    for (int i = 0; i < b->nterm; i++)
        if (!mul(kb, b->term[i].k, &p) || !wb_aff_term(&x, b->term[i].v, p)) return 0;
    *r = x;
    return 1;
}

int wb_aff_scale(wb_aff *a, int64_t k)
{
    if (a->sym && k != 1) return 0;
    if (!mul(a->t, k, &a->t) || !mul(a->c, k, &a->c) || !mul(a->p, k, &a->p)) return 0;
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
    int64_t c, t, p;
    return mul(sign, b->c, &c) && mul(sign, b->t, &t) && mul(sign, b->p, &p) && a->c == c && a->t == t && a->p == p &&
           same_terms(a, b, sign);
}

wb_dep wb_mem_dependence(const wb_aff *a, const wb_aff *b)
{
    wb_dep r = {WB_DEP_UNKNOWN, 0, 0, {0}, 0};
    if ((a->sym == NULL) != (b->sym == NULL) || (a->sym && strcmp(a->sym, b->sym) != 0)) return r;
    if (a->t != b->t || a->p || b->p) return r;
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

/* a - b, both with one symbol (or none), as a form without it. */
static int difference(const wb_aff *a, const wb_aff *b, wb_aff *diff)
{
    *diff = *a;
    diff->sym = NULL;
    if (__builtin_sub_overflow(a->c, b->c, &diff->c) || __builtin_sub_overflow(a->t, b->t, &diff->t) ||
        __builtin_sub_overflow(a->p, b->p, &diff->p))
        return 0;
    for (int i = 0; i < b->nterm; i++) {
        int64_t k;
        if (!mul(b->term[i].k, -1, &k) || !wb_aff_term(diff, b->term[i].v, k)) return 0;
    }
    return 1;
}

/* The counter's growth over d iterations is d*m + k*g for some k in 0..d
 * (the iterations that took the extra step). a's word of iteration t is b's of
 * iteration t + d when p*(growth) = Fa - Fb, p the coefficient both give the
 * counter: X = (Fa - Fb)/p must be such a growth. With g a register (m > 0 and
 * g >= G checked on entry) and X = alpha + beta*g:
 *   - k = beta: d = alpha/m, whatever g is: a distance known now;
 *   - k < beta: d*m = alpha + (beta - k)*g >= alpha + G, so d >= want once
 *     G >= want*m - alpha;
 *   - k > beta: d*m = alpha - (k - beta)*g <= alpha - G, no d >= 1 once
 *     G > alpha - m.
 * The butterfly's x[p + h] stored and x[p] loaded h iterations later (X = h,
 * alpha = 0, beta = 1) meet no sooner than `want` iterations when h >= want. */
wb_dep wb_counter_dependence(const wb_aff *a, const wb_aff *b, const wb_counter *cn, int want)
{
    wb_dep r = {WB_DEP_UNKNOWN, 0, 0, {0}, 0};
    if (want < 1) want = 1;
    if (a->p == 0 || a->p != b->p || a->t != 0 || b->t != 0) return r;
    if ((a->sym == NULL) != (b->sym == NULL) || (a->sym && strcmp(a->sym, b->sym) != 0)) return r;
    if (cn->m == 0 || cn->g.t || cn->g.p || cn->g.sym) return r;
    wb_aff x, g = cn->g;
    int64_t pk = a->p, m = cn->m;
    if (!difference(a, b, &x)) return r;
    if (m < 0) {
        /* a counter stepping down is -P stepping up */
        if (!mul(m, -1, &m) || !wb_aff_scale(&g, -1) || !mul(pk, -1, &pk)) return r;
    }
    /* X = (Fa - Fb)/p: a term not a multiple of p may make it one at run time;
     * a constant that is not, with every term a multiple, never */
    for (int i = 0; i < x.nterm; i++)
        if (x.term[i].k % pk) return r;
    if (x.c % pk) {
        r.kind = WB_DEP_NONE;
        return r;
    }
    x.c /= pk;
    for (int i = 0; i < x.nterm; i++) x.term[i].k /= pk;
    if (g.nterm == 0) {
        /* a constant extra step: try each d below want */
        int64_t G = g.c;
        if (G < 0) {
            /* steps m and m + G are steps m + G and m + G + |G| */
            m += G;
            G = -G;
        }
        if (m <= 0 || x.nterm) return r;
        for (int64_t d = 1; d < want; d++) {
            int64_t rest = x.c - d * m;
            if (G == 0 ? rest == 0 : rest >= 0 && rest % G == 0 && rest / G <= d) {
                r.kind = WB_DEP_AT;
                r.dist = (int)d;
                return r;
            }
        }
        r.kind = x.c >= (int64_t)want * m ? WB_DEP_AT : WB_DEP_NONE;
        r.dist = want;
        return r;
    }
    /* X = alpha + beta*g */
    int64_t beta = 0, alpha, t;
    for (int j = 0; j < x.nterm; j++)
        if (x.term[j].v == g.term[0].v) {
            if (x.term[j].k % g.term[0].k) return r;
            beta = x.term[j].k / g.term[0].k;
        }
    wb_aff rest;
    wb_aff_const(&rest, 0);
    if (!wb_aff_add(&rest, &x, &g, -beta) || rest.nterm) return r;
    alpha = rest.c;
    int64_t gmin = 0, dist = INT64_MAX;
    if (beta >= 0 && alpha % m == 0 && alpha / m >= (beta > 1 ? beta : 1)) dist = alpha / m;
    if (beta >= 1) {
        if (!mul(want, m, &t) || __builtin_sub_overflow(t, alpha, &t)) return r;
        if (t > gmin) gmin = t;
        if (want < dist) dist = want;
    }
    if (__builtin_sub_overflow(alpha, m - 1, &t)) return r;
    if (t > gmin) gmin = t;
    if (gmin > INT32_MAX) return r;   /* no register holds such a g: the check would always fail */
    r.kind = dist == INT64_MAX ? WB_DEP_NONE : WB_DEP_AT;
    r.dist = dist == INT64_MAX ? 0 : (int)(dist > 1 << 20 ? 1 << 20 : dist);
    r.gmin = gmin;
    return r;
}
