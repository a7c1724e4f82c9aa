/* Shared by the conformance references: reading host data (ref_common.h) and
 * printing results exactly as warp-sim does (%d for int, %.9g for float, and a
 * "NAME:" line before each out array when a module has several). */
#ifndef CONF_H
#define CONF_H

#include "ref_common.h"

#include <stdint.h>

/* Reads host array `name` of n ints. */
static inline void conf_read_int(int argc, char **argv, const char *name, int32_t *v, int n)
{
    double *d = malloc(sizeof *d * (size_t)n);
    ref_read(argc, argv, name, d, n);
    for (int i = 0; i < n; i++) v[i] = (int32_t)d[i];
    free(d);
}

/* Reads host array `name` of n floats (rounded to single precision, as warp-sim). */
static inline void conf_read_float(int argc, char **argv, const char *name, float *v, int n)
{
    double *d = malloc(sizeof *d * (size_t)n);
    ref_read(argc, argv, name, d, n);
    for (int i = 0; i < n; i++) v[i] = (float)d[i];
    free(d);
}

static inline void conf_head(const char *name) { printf("%s:\n", name); }
static inline void conf_int(int32_t v) { printf("%d\n", (int)v); }
/* warp-sim writes every NaN as "nan", whatever its sign. */
static inline void conf_float(float v)
{
    if (v != v) printf("nan\n");
    else printf("%.9g\n", (double)v);
}

static inline void conf_ints(const char *name, const int32_t *v, int n)
{
    if (name) conf_head(name);
    for (int i = 0; i < n; i++) conf_int(v[i]);
}

static inline void conf_floats(const char *name, const float *v, int n)
{
    if (name) conf_head(name);
    for (int i = 0; i < n; i++) conf_float(v[i]);
}

/* W2's wrapping int arithmetic, without C's undefined behaviour. */
static inline int32_t w_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int32_t w_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
static inline int32_t w_mul(int32_t a, int32_t b) { return (int32_t)((uint32_t)a * (uint32_t)b); }
static inline int32_t w_neg(int32_t a) { return (int32_t)(0u - (uint32_t)a); }
/* '/' truncates toward zero; INT32_MIN / -1 wraps to INT32_MIN. */
static inline int32_t w_div(int32_t a, int32_t b) { return b == -1 ? w_neg(a) : a / b; }
/* 'mod' follows the dividend's sign; INT32_MIN mod -1 is 0. */
static inline int32_t w_mod(int32_t a, int32_t b) { return b == -1 ? 0 : a % b; }

#endif
