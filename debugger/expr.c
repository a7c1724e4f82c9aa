/* Expressions: W2's (docs/w2.md, section 7: or and not = <> < <= > >= + - * / mod,
 * unary -, int(e), float(e), a[i], m[i][j]) with C's spellings too (== != && || !
 * %), over what a cell holds:
 *   NAME      a W2 variable of the cell's function, a cell global, a host array;
 *   $r5 $cid  registers; $pc (the cell's program address), $cycle, $N and $ (history);
 *   @xl ...   the words waiting in one of the cell's queues, oldest first;
 *   &NAME     the address of a variable in memory (for x).
 * Evaluated while parsed (recursive descent): expressions have no side effects. */
#include "wdb_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Printing stops after this many elements (gdb's `set print elements`); a run of
 * equal elements this long prints as `x <repeats N times>` (`set print repeats`).
 * 0 is unlimited. The session sets them before each command. */
static unsigned print_elements = 200, print_repeats = 10;

void wdb_print_limits(unsigned elements, unsigned repeats)
{
    print_elements = elements;
    print_repeats = repeats;
}

void wdb_value_free(value *v)
{
    free(v->words);
    v->words = NULL;
    v->nwords = 0;
}

value wdb_value_copy(const value *v)
{
    value c = *v;
    if (v->words) {
        c.words = ws_xcalloc(v->nwords + 1, sizeof *c.words);
        memcpy(c.words, v->words, v->nwords * sizeof *c.words);
    }
    return c;
}

static value scalar(vkind k, uint32_t bits)
{
    value v;
    memset(&v, 0, sizeof v);
    v.kind = k;
    v.bits = bits;
    return v;
}

/* ---- Formatting ------------------------------------------------------------------------ */

static void put_float(ws_buf *b, uint32_t bits)
{
    float f = wt_f(bits);
    if (isnan(f)) ws_buf_puts(b, signbit(f) ? "-nan" : "nan");
    else if (isinf(f)) ws_buf_puts(b, f < 0 ? "-inf" : "inf");
    else ws_buf_printf(b, "%.9g", (double)f);
}

/* A word of unknown type: small integers (whose float reading would be a tiny
 * denormal, or a NaN for the negative ones) as integers, the rest as floats. */
static int word_is_int(uint32_t w)
{
    int32_t i = (int32_t)w;
    return i >= -(1 << 24) && i <= (1 << 24);
}

static void put_scalar(ws_buf *b, int elem, uint32_t bits, int fmt)
{
    switch (fmt) {
    case 'x': ws_buf_printf(b, "0x%x", bits); return;
    case 'd': ws_buf_printf(b, "%d", (int32_t)bits); return;
    case 'u': ws_buf_printf(b, "%u", bits); return;
    case 'f': put_float(b, bits); return;
    case 'o': ws_buf_printf(b, bits ? "0%o" : "0", bits); return;
    case 't': {
        char bin[33];
        int n = 0;
        for (int i = 31; i >= 0; i--)
            if (n || (bits >> i & 1) || i == 0) bin[n++] = (char)('0' + (bits >> i & 1));
        ws_buf_append(b, bin, (size_t)n);
        return;
    }
    case 'c': {
        /* gdb's: the low byte as a signed char, its value then its character */
        int c = (int)(int8_t)(bits & 0xff);
        static const char esc[] = "\a\b\t\n\v\f\r";
        const char *e = c > 0 ? strchr(esc, c) : NULL;
        if (c == 0) ws_buf_puts(b, "0 '\\000'");
        else if (e) ws_buf_printf(b, "%d '\\%c'", c, "abtnvfr"[e - esc]);
        else if (c == '\'' || c == '\\') ws_buf_printf(b, "%d '\\%c'", c, c);
        else if (c >= 32 && c < 127) ws_buf_printf(b, "%d '%c'", c, c);
        else ws_buf_printf(b, "%d '\\%03o'", c, (unsigned)c & 0xff);
        return;
    }
    default: break;
    }
    if (elem == EL_FLOAT || (elem == EL_WORD && !word_is_int(bits))) put_float(b, bits);
    else ws_buf_printf(b, "%d", (int32_t)bits);
}

static void put_elements(ws_buf *b, const value *v, const uint32_t *w, uint32_t n, int fmt, size_t *printed)
{
    ws_buf_puts(b, "{");
    for (uint32_t i = 0; i < n;) {
        if (print_elements && *printed >= print_elements) {
            ws_buf_puts(b, "...");
            break;
        }
        uint32_t run = 1;
        while (i + run < n && w[i + run] == w[i]) run++;
        if (i) ws_buf_puts(b, ", ");
        put_scalar(b, v->elem, w[i], fmt);
        if (print_repeats && run >= print_repeats) {
            ws_buf_printf(b, " <repeats %u times>", run);
            i += run;
        } else {
            i++;
        }
        (*printed)++;
    }
    ws_buf_puts(b, "}");
}

void wdb_pointer_type(const value *v, ws_buf *b)
{
    ws_buf_puts(b, v->ref_elem == EL_FLOAT ? "float" : v->ref_elem == EL_INT ? "int" : "word");
    if (!v->ref_ndims) {
        ws_buf_puts(b, " *");
        return;
    }
    ws_buf_printf(b, " (*)[%u]", v->ref_dims[0]);
    if (v->ref_ndims > 1) ws_buf_printf(b, "[%u]", v->ref_dims[1]);
}

void wdb_format(const value *v, int fmt, ws_buf *b)
{
    if (v->is_ref && !fmt) {
        /* gdb's shape for a pointer: its type, then the address in hex */
        ws_buf_puts(b, "(");
        wdb_pointer_type(v, b);
        ws_buf_printf(b, ") 0x%x", v->bits);
        return;
    }
    switch (v->kind) {
    case V_INT: put_scalar(b, EL_INT, v->bits, fmt); return;
    case V_FLOAT: put_scalar(b, EL_FLOAT, v->bits, fmt); return;
    case V_WORD: put_scalar(b, EL_WORD, v->bits, fmt); return;
    case V_NONE: ws_buf_puts(b, v->why[0] ? v->why : "<optimized out>"); return;
    case V_PC: ws_buf_printf(b, "0x%x", v->bits); return;
    case V_ARRAY: {
        size_t printed = 0;
        if (v->ndims == 2) {
            ws_buf_puts(b, "{");
            for (uint32_t r = 0; r < v->dims[0]; r++) {
                if (print_elements && printed >= print_elements) {
                    ws_buf_puts(b, "...");
                    break;
                }
                if (r) ws_buf_puts(b, ", ");
                put_elements(b, v, v->words + (size_t)r * v->dims[1], v->dims[1], fmt, &printed);
            }
            ws_buf_puts(b, "}");
        } else {
            put_elements(b, v, v->words, (uint32_t)v->nwords, fmt, &printed);
        }
        return;
    }
    }
}

int wdb_truth(const value *v)
{
    if (v->kind == V_FLOAT) return wt_f(v->bits) != 0.0f;
    if (v->kind == V_INT || v->kind == V_WORD || v->kind == V_PC) return v->bits != 0;
    return 0;
}

/* ---- Names -------------------------------------------------------------------------------- */

static const wdb_var *find_var_at(wdb *d, uint32_t pc, const char *name)
{
    const wdb_func *f = wdb_func_at(d->dw, pc);
    if (f)
        for (size_t i = 0; i < f->nvars; i++)
            if (strcmp(f->vars[i].name, name) == 0) return &f->vars[i];
    for (size_t i = 0; i < d->dw->nglobals; i++)
        if (strcmp(d->dw->globals[i].name, name) == 0) return &d->dw->globals[i];
    return NULL;
}

const wdb_var *wdb_find_var(wdb *d, int cell, const char *name) { return find_var_at(d, wdb_pc(d, cell), name); }

/* ---- The parser --------------------------------------------------------------------------- */

typedef struct parser {
    wdb *d;
    int cell;
    const char *p;
    char *err;
    size_t errlen;
    int failed;
    int depth;                /* nesting of the recursive descent below */
    uint32_t pc;              /* whose scope names are looked up in */
    int check;                /* only check the expression: names, syntax and types, no values */
    int assign;               /* a top-level `=` assigns (print, set var) */
    int negated;              /* a unary minus comes just before: -2147483648 is a W2 int */
    int outer;                /* in a caller's frame: registers hold the callee's values */
    const char *start;        /* the expression's first character */
} parser;

/* Each level of nesting (a parenthesis, an index, int(), a unary operator) costs
 * the recursive descent about ten C frames: deeper expressions are refused with
 * a message instead of overflowing the stack. No one writes 256 levels by hand. */
#define MAX_EXPR_DEPTH 256

static int perr(parser *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(parser *P, const char *fmt, ...)
{
    if (P->failed) return -1;
    P->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(P->err, P->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static void skip(parser *P)
{
    while (*P->p == ' ' || *P->p == '\t') P->p++;
}

/* Consumes the operator or keyword if it comes next (keywords as whole words). */
static int accept(parser *P, const char *tok)
{
    skip(P);
    size_t n = strlen(tok);
    if (strncmp(P->p, tok, n) != 0) return 0;
    if (isalpha((unsigned char)tok[0]) && (isalnum((unsigned char)P->p[n]) || P->p[n] == '_')) return 0;
    /* `<` is not the start of `<=` or `<>`, `=` not of `==`, and so on. */
    if (!isalpha((unsigned char)tok[0]) && n == 1 && (P->p[1] == '=' || (tok[0] == '<' && P->p[1] == '>'))) return 0;
    if (n == 1 && (tok[0] == '&' || tok[0] == '|') && P->p[1] == tok[0]) return 0;
    P->p += n;
    return 1;
}

static int need_scalar(parser *P, value *v)
{
    if (v->kind == V_ARRAY) return perr(P, "Arrays cannot be used in arithmetic.");
    if (v->kind == V_NONE) return perr(P, "value has been optimized out");
    /* A word of unknown type computes as it prints: @xl[0] * 2 doubles the float
     * that print @xl[0] shows, not its bits. */
    if (v->kind == V_WORD) v->kind = word_is_int(v->bits) ? V_INT : V_FLOAT;
    return 0;
}

static int is_fl(const value *v) { return v->kind == V_FLOAT; }
static float as_f(const value *v) { return v->kind == V_FLOAT ? wt_f(v->bits) : (float)(int32_t)v->bits; }

static int expr_or(parser *P, value *v);
static int deeper(parser *P);

/* Reads n words of a space (data memory of the cell or host memory). */
static int read_words(parser *P, int space, uint32_t addr, size_t n, uint32_t *out)
{
    uint32_t size = 0;
    const uint8_t *mem = space == SP_HOST ? wsim_host_memory(P->d->sim, &size) : wsim_cell_data(P->d->sim, P->cell, &size);
    if (addr % 4 || (uint64_t)addr + 4 * (uint64_t)n > size)
        return perr(P, "Cannot access memory at address 0x%x", addr);
    for (size_t i = 0; i < n; i++) {
        const uint8_t *q = mem + addr + 4 * i;
        out[i] = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
    }
    return 0;
}

/* A variable or host array's value; arrays read whole. */
static int load(parser *P, int space, uint32_t addr, const wdb_type *t, value *v)
{
    memset(v, 0, sizeof *v);
    v->space = space;
    v->addr = addr;
    if (t->ndims == 0) {
        v->kind = t->is_float ? V_FLOAT : V_INT;
        return read_words(P, space, addr, 1, &v->bits);
    }
    v->kind = V_ARRAY;
    v->elem = t->is_float ? EL_FLOAT : EL_INT;
    v->ndims = t->ndims;
    v->dims[0] = t->dims[0];
    v->dims[1] = t->dims[1];
    v->nwords = (size_t)t->dims[0] * (t->ndims > 1 ? t->dims[1] : 1);
    if (v->nwords > (1u << 26)) return perr(P, "array too large");
    v->words = ws_xcalloc(v->nwords + 1, sizeof *v->words);
    return read_words(P, space, addr, v->nwords, v->words);
}

static int variable(parser *P, const char *name, value *v)
{
    wdb *d = P->d;
    const wdb_var *var = find_var_at(d, P->pc, name);
    if (P->check && (var || wrt_host_find(d->img, name))) {
        /* a value of the right type: what the expression does with it is checked */
        memset(v, 0, sizeof *v);
        wdb_type t = {0, 0, {0, 0}};
        const wrt_host_array *h = var ? NULL : wrt_host_find(d->img, name);
        if (var) t = var->type;
        else t = (wdb_type){h->is_float, h->dims[0] ? (h->dims[1] ? 2 : 1) : 0, {h->dims[0], h->dims[1]}};
        if (!t.ndims) {
            v->kind = t.is_float ? V_FLOAT : V_INT;
            return 0;
        }
        v->kind = V_ARRAY;
        v->elem = t.is_float ? EL_FLOAT : EL_INT;
        v->ndims = t.ndims;
        v->dims[0] = t.dims[0];
        v->dims[1] = t.dims[1];
        v->nwords = (size_t)t.dims[0] * (t.ndims > 1 ? t.dims[1] : 1);
        if (v->nwords > (1u << 26)) return perr(P, "array too large");
        v->words = ws_xcalloc(v->nwords + 1, sizeof *v->words);
        return 0;
    }
    if ((var || wrt_host_find(d->img, name)) && !d->sim) return perr(P, "The program is not being run.");
    if (var) {
        uint32_t pc = P->pc;
        wdb_loc l = wdb_var_loc(var, pc);
        memset(v, 0, sizeof *v);
        switch (l.kind) {
        case WDB_LOC_ADDR: return load(P, SP_DATA, l.v, &var->type, v);
        case WDB_LOC_REG:
            if (var->type.ndims) break;
            if (P->outer && l.v < 64) {
                /* no call saves registers: the callee has them now */
                v->kind = V_NONE;
                snprintf(v->why, sizeof v->why, "<not saved>");
                return 0;
            }
            v->kind = var->type.is_float ? V_FLOAT : V_INT;
            v->bits = l.v == 64 ? (uint32_t)(d->img->first_cell + P->cell) : wsim_cell_reg(d->sim, P->cell, l.v);
            if (l.v < 64) v->lreg = (int)l.v + 1;
            return 0;
        case WDB_LOC_CONST:
            if (var->type.ndims) break;
            v->kind = var->type.is_float ? V_FLOAT : V_INT;
            v->bits = l.v;
            return 0;
        default: break;
        }
        v->kind = V_NONE;
        snprintf(v->why, sizeof v->why, "<optimized out>");
        /* The compiler's empty location: the variable is assigned by the
         * software-pipelined loop around pc, whose iterations overlap here. */
        const wdb_func *f = wdb_func_at(d->dw, pc);
        for (size_t i = 0; l.kind == WDB_LOC_EMPTY && f && i < f->nblocks; i++)
            if (pc >= f->blocks[i].lo && pc < f->blocks[i].hi)
                snprintf(v->why, sizeof v->why, "<optimized out: assigned in the %s, whose iterations overlap here>",
                         f->blocks[i].name);
        return 0;
    }
    /* a function's name is its address, as in gdb (x/i poly, info symbol poly) */
    for (size_t i = 0; i < d->dw->nfuncs; i++)
        if (!strcmp(d->dw->funcs[i].name, name)) {
            *v = scalar(V_PC, d->dw->funcs[i].lo);
            return 0;
        }
    const wrt_host_array *h = wrt_host_find(d->img, name);
    if (h) {
        wdb_type t = {h->is_float, h->dims[0] ? (h->dims[1] ? 2 : 1) : 0, {h->dims[0], h->dims[1]}};
        return load(P, SP_HOST, h->addr, &t, v);
    }
    return perr(P, "No symbol \"%s\" in current context.", name);
}

static int dollar(parser *P, value *v)
{
    wdb *d = P->d;
    if (*P->p == '$') {
        /* $$ and $$N: the value N back from the last one (gdb's) */
        P->p++;
        const char *s = P->p;
        while (isdigit((unsigned char)*P->p)) P->p++;
        unsigned long long back = P->p > s ? strtoull(s, NULL, 10) : 1;
        if (P->p - s > 9 || back >= d->nhist) return perr(P, "History has not yet reached $$%llu.", back);
        *v = wdb_value_copy(&d->hist[d->nhist - 1 - back]);
        v->space = SP_NONE;
        return 0;
    }
    const char *s = P->p;
    while (isalnum((unsigned char)*P->p) || *P->p == '_') P->p++;
    size_t n = (size_t)(P->p - s);
    char name[32];
    if (n >= sizeof name) return perr(P, "Invalid register or history value");
    memcpy(name, s, n);
    name[n] = 0;
    if (n == 0 || isdigit((unsigned char)name[0])) {
        size_t k = n == 0 ? d->nhist : n > 9 ? (size_t)-1 : (size_t)strtoul(name, NULL, 10);
        if (k == 0 || k > d->nhist) return perr(P, "History has not yet reached $%s.", n ? name : "1");
        *v = wdb_value_copy(&d->hist[k - 1]);
        v->space = SP_NONE;
        return 0;
    }
    if (!strcmp(name, "_exitcode")) {
        /* How the last run ended (warp-sim's exit status); void while none has. */
        if (d->end_code < 0) {
            memset(v, 0, sizeof *v);
            v->kind = V_NONE;
            snprintf(v->why, sizeof v->why, "void");
        } else {
            *v = scalar(V_INT, (uint32_t)d->end_code);
        }
        return 0;
    }
    if (P->check) {
        int o = wt_opnd_parse(name, n);
        if (strcmp(name, "pc") && strcmp(name, "cycle") && o != WT_OPND_CID && (o < 0 || !wt_opnd_is_reg((unsigned)o)))
            return perr(P, "Invalid register \"$%s\"", name);
        *v = scalar(!strcmp(name, "pc") ? V_PC : V_WORD, 0);
        return 0;
    }
    if (!d->sim) return perr(P, "The program is not being run.");
    if (!strcmp(name, "pc")) {
        *v = scalar(V_PC, wdb_pc(d, P->cell));
        return 0;
    }
    if (!strcmp(name, "cycle")) {
        *v = scalar(V_INT, (uint32_t)wsim_cycles(d->sim));
        return 0;
    }
    int o = wt_opnd_parse(name, n);
    if (o == WT_OPND_CID) {
        *v = scalar(V_INT, (uint32_t)(d->img->first_cell + P->cell));
        return 0;
    }
    if (o >= 0 && wt_opnd_is_reg((unsigned)o)) {
        *v = scalar(V_WORD, wsim_cell_reg(d->sim, P->cell, (unsigned)o));
        v->lreg = o + 1;
        return 0;
    }
    return perr(P, "Invalid register \"$%s\"", name);
}

static int gate(parser *P, value *v)
{
    const char *s = P->p - 1;
    while (isalpha((unsigned char)*P->p)) P->p++;
    int o = wt_opnd_parse(s, (size_t)(P->p - s));
    if (o < 0 || !wt_opnd_is_gate((unsigned)o)) return perr(P, "No queue \"%.*s\" (the queues are @xl @yl @xr @yr)", (int)(P->p - s), s);
    if (!P->d->sim && !P->check) return perr(P, "The program is not being run.");
    uint32_t words[256];
    /* checking: a queue that holds one word, so that @xl[0] is an element */
    unsigned n = P->check ? 1 : wsim_queue_words(P->d->sim, P->cell, o - WT_OPND_GATE, words, 256);
    if (P->check) words[0] = 0;
    if (n > 256) n = 256;
    memset(v, 0, sizeof *v);
    v->kind = V_ARRAY;
    v->elem = EL_WORD;
    v->ndims = 1;
    v->dims[0] = n;
    v->nwords = n;
    v->words = ws_xcalloc(n + 1, sizeof *v->words);
    memcpy(v->words, words, n * sizeof *words);
    return 0;
}

static int index_of(parser *P, value *ix, uint32_t dim, uint32_t *out)
{
    if (need_scalar(P, ix)) return -1;
    if (is_fl(ix)) return perr(P, "Array index must be an integer.");
    int32_t i = (int32_t)ix->bits;
    if (P->check && dim) i = 0;   /* the index's value is not known yet */
    if (dim == 0) return perr(P, "Index %d is out of bounds: the queue is empty.", i);
    if (i < 0 || (uint32_t)i >= dim) return perr(P, "Index %d is out of bounds (0..%u).", i, dim - 1);
    *out = (uint32_t)i;
    return 0;
}

static int primary(parser *P, value *v)
{
    skip(P);
    const char *s = P->p;
    if (*s == '(') {
        P->p++;
        if (expr_or(P, v)) return -1;
        if (!accept(P, ")")) {
            wdb_value_free(v);   /* an array's words ($1 of an array, a queue) */
            return perr(P, "A syntax error in expression, near `%s'.", P->p);
        }
        return 0;
    }
    if (*s == '$') {
        P->p++;
        return dollar(P, v);
    }
    if (*s == '@') {
        P->p++;
        return gate(P, v);
    }
    if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
        char *end;
        int is_hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
        int is_float = !is_hex && (strpbrk(s, ".eE") != NULL);
        if (is_float) {
            /* a float only if the number itself has the dot or exponent */
            char *iend;
            strtoul(s, &iend, 10);
            is_float = *iend == '.' || *iend == 'e' || *iend == 'E';
        }
        if (is_float) {
            float f = strtof(s, &end);
            *v = scalar(V_FLOAT, wt_u(f));
        } else {
            errno = 0;
            unsigned long long n = strtoull(s, &end, is_hex ? 16 : 10);
            /* W2's ints are 32 bits: a decimal constant past INT_MAX would wrap
             * (hexadecimal ones are bit patterns, up to 0xffffffff). */
            uint64_t max = is_hex ? 0xffffffffull : P->negated ? 0x80000000ull : 0x7fffffffull;
            if (errno == ERANGE || n > max) return perr(P, "Numeric constant too large for a 32-bit int: %.*s.", (int)(end - s), s);
            *v = scalar(V_INT, (uint32_t)n);
        }
        if (isalpha((unsigned char)*end) || *end == '_') return perr(P, "Invalid number \"%.*s\".", (int)(end - s + 1), s);
        P->p = end;
        return 0;
    }
    if (isalpha((unsigned char)*s) || *s == '_') {
        while (isalnum((unsigned char)*P->p) || *P->p == '_' || *P->p == '.') P->p++;
        size_t n = (size_t)(P->p - s);
        char name[256];
        if (n >= sizeof name) return perr(P, "Name too long.");
        memcpy(name, s, n);
        name[n] = 0;
        if (!strcmp(name, "int") || !strcmp(name, "float")) {
            skip(P);
            if (*P->p == '(') {
                P->p++;
                value a;
                if (expr_or(P, &a)) return -1;
                if (!accept(P, ")")) {
                    wdb_value_free(&a);
                    return perr(P, "A syntax error in expression, near `%s'.", P->p);
                }
                if (need_scalar(P, &a)) {
                    wdb_value_free(&a);
                    return -1;
                }
                if (name[0] == 'i') *v = scalar(V_INT, is_fl(&a) ? wt_ftoi_sat(a.bits) : a.bits);
                else *v = scalar(V_FLOAT, wt_u(as_f(&a)));
                return 0;
            }
        }
        return variable(P, name, v);
    }
    if (!*s) return perr(P, "A syntax error in expression, near `'.");
    return perr(P, "A syntax error in expression, near `%s'.", s);
}

static int postfix(parser *P, value *v)
{
    /* The indices, freed on every way out: an index may be an array (a queue's
     * words) that the error paths would otherwise leak. */
    value ix, ix2;
    memset(&ix, 0, sizeof ix);
    memset(&ix2, 0, sizeof ix2);
    if (primary(P, v)) return -1;
    while (accept(P, "[")) {
        wdb_value_free(&ix);
        wdb_value_free(&ix2);
        if (expr_or(P, &ix)) goto bad;
        int two = accept(P, ",");   /* m[i, j] as well as m[i][j] */
        if (two && expr_or(P, &ix2)) goto bad;
        if (!accept(P, "]")) {
            perr(P, "A syntax error in expression, near `%s'.", P->p);
            goto bad;
        }
        if (v->kind != V_ARRAY) {
            perr(P, "cannot subscript something that is not an array");
            goto bad;
        }
        uint32_t i;
        if (index_of(P, &ix, v->dims[0], &i)) goto bad;
        value e;
        memset(&e, 0, sizeof e);
        if (v->ndims == 2) {
            e.kind = V_ARRAY;
            e.elem = v->elem;
            e.ndims = 1;
            e.dims[0] = v->dims[1];
            e.nwords = v->dims[1];
            e.words = ws_xcalloc(e.nwords + 1, sizeof *e.words);
            memcpy(e.words, v->words + (size_t)i * v->dims[1], e.nwords * sizeof *e.words);
            e.space = v->space;
            e.addr = v->addr + 4 * i * v->dims[1];
        } else {
            e.kind = v->elem == EL_FLOAT ? V_FLOAT : v->elem == EL_INT ? V_INT : V_WORD;
            e.bits = v->words[i];
            e.space = v->space;
            e.addr = v->addr + 4 * i;
        }
        wdb_value_free(v);
        *v = e;
        if (two) {
            uint32_t j;
            if (v->kind != V_ARRAY) {
                perr(P, "cannot subscript something that is not an array");
                goto bad;
            }
            if (index_of(P, &ix2, v->dims[0], &j)) goto bad;
            value e2 = scalar(v->elem == EL_FLOAT ? V_FLOAT : V_INT, v->words[j]);
            e2.space = v->space;
            e2.addr = v->addr + 4 * j;
            wdb_value_free(v);
            *v = e2;
        }
    }
    wdb_value_free(&ix);
    wdb_value_free(&ix2);
    return 0;
bad:
    wdb_value_free(&ix);
    wdb_value_free(&ix2);
    wdb_value_free(v);
    return -1;
}

static int unary(parser *P, value *v)
{
    if (accept(P, "-")) {
        if (deeper(P)) return -1;
        skip(P);
        P->negated = isdigit((unsigned char)*P->p);
        int rc = unary(P, v);
        P->negated = 0;
        P->depth--;
        if (rc) return -1;
        if (need_scalar(P, v)) {
            wdb_value_free(v);
            return -1;
        }
        if (is_fl(v)) v->bits ^= 0x80000000u;
        else *v = scalar(V_INT, (uint32_t)-(int64_t)(int32_t)v->bits);
        return 0;
    }
    if (accept(P, "&")) {
        if (postfix(P, v)) return -1;
        if (v->space == SP_NONE) {
            wdb_value_free(v);
            return perr(P, "Attempt to take address of value not located in memory.");
        }
        int sp = v->space;
        uint32_t a = v->addr;
        int elem = v->kind == V_ARRAY ? v->elem : v->kind == V_FLOAT ? EL_FLOAT : v->kind == V_INT ? EL_INT : EL_WORD;
        int ndims = v->kind == V_ARRAY ? v->ndims : 0;
        uint32_t dims[2] = {v->dims[0], v->dims[1]};
        wdb_value_free(v);
        *v = scalar(V_INT, a);
        v->space = sp;   /* remembered for x: host or data memory */
        v->addr = a;
        v->is_ref = 1;
        v->ref_elem = elem;
        v->ref_ndims = ndims;
        memcpy(v->ref_dims, dims, sizeof dims);
        return 0;
    }
    return postfix(P, v);
}

static int binary(parser *P, value *a, value *b, int op, value *out)
{
    if (need_scalar(P, a) || need_scalar(P, b)) return -1;
    if (op == '%' && (is_fl(a) || is_fl(b))) return perr(P, "Integer only operation mod.");
    if (is_fl(a) || is_fl(b)) {
        float x = as_f(a), y = as_f(b), r = 0;
        switch (op) {
        case '+': r = x + y; break;
        case '-': r = x - y; break;
        case '*': r = x * y; break;
        case '/': r = x / y; break;
        case '<': *out = scalar(V_INT, x < y); return 0;
        case 'l': *out = scalar(V_INT, x <= y); return 0;
        case '>': *out = scalar(V_INT, x > y); return 0;
        case 'g': *out = scalar(V_INT, x >= y); return 0;
        case '=': *out = scalar(V_INT, x == y); return 0;
        case '!': *out = scalar(V_INT, x != y); return 0;
        default: break;
        }
        *out = scalar(V_FLOAT, wt_u(r));
        return 0;
    }
    uint32_t x = a->bits, y = b->bits, r = 0;
    switch (op) {
    case '+': r = x + y; break;
    case '-': r = x - y; break;
    case '*': r = (uint32_t)((int64_t)(int32_t)x * (int32_t)y); break;
    case '/':
    case '%':
        /* checking: the divisor's value is not known yet */
        if (!y && !P->check) return perr(P, "Division by zero");
        r = !y ? 0 : op == '/' ? wt_idiv(x, y) : wt_imod(x, y);
        break;
    case '<': r = (int32_t)x < (int32_t)y; break;
    case 'l': r = (int32_t)x <= (int32_t)y; break;
    case '>': r = (int32_t)x > (int32_t)y; break;
    case 'g': r = (int32_t)x >= (int32_t)y; break;
    case '=': r = x == y; break;
    case '!': r = x != y; break;
    default: break;
    }
    *out = scalar(V_INT, r);
    return 0;
}

/* v op (the next operand): the operand parsed by `operand`, both freed after. */
static int combine(parser *P, value *v, int op, int (*operand)(parser *, value *))
{
    value b, r;
    if (operand(P, &b)) {
        wdb_value_free(v);
        return -1;
    }
    int rc = binary(P, v, &b, op, &r);
    wdb_value_free(v);
    wdb_value_free(&b);
    if (rc) return -1;
    *v = r;
    return 0;
}

static int mul(parser *P, value *v)
{
    if (unary(P, v)) return -1;
    for (;;) {
        int op = accept(P, "*") ? '*' : accept(P, "/") ? '/' : (accept(P, "mod") || accept(P, "%")) ? '%' : 0;
        if (!op) return 0;
        if (combine(P, v, op, unary)) return -1;
    }
}

static int add(parser *P, value *v)
{
    if (mul(P, v)) return -1;
    for (;;) {
        int op = accept(P, "+") ? '+' : accept(P, "-") ? '-' : 0;
        if (!op) return 0;
        if (combine(P, v, op, mul)) return -1;
    }
}

static int cmp(parser *P, value *v)
{
    skip(P);
    const char *from = P->p;
    if (add(P, v)) return -1;
    /* print x = 5: an lvalue that is the whole left side is assigned (gdb), not
     * compared as W2's `=` would; print 1 = 1 still compares. */
    skip(P);
    if (P->assign && P->depth == 1 && from == P->start && P->p[0] == '=' && P->p[1] != '=' && !v->is_ref &&
        (v->lreg || v->space != SP_NONE) && v->kind != V_ARRAY)
        return 0;
    int op = accept(P, "<=") ? 'l' : accept(P, ">=") ? 'g' : accept(P, "<>") ? '!' : accept(P, "!=") ? '!'
           : accept(P, "==") ? '=' : accept(P, "=") ? '=' : accept(P, "<") ? '<' : accept(P, ">") ? '>' : 0;
    return op ? combine(P, v, op, add) : 0;
}

static int not_(parser *P, value *v)
{
    if (accept(P, "not") || accept(P, "!")) {
        if (deeper(P)) return -1;
        int rc = not_(P, v);
        P->depth--;
        if (rc) return -1;
        if (need_scalar(P, v)) {
            wdb_value_free(v);
            return -1;
        }
        *v = scalar(V_INT, !wdb_truth(v));
        return 0;
    }
    return cmp(P, v);
}

static int logic(parser *P, value *v, int is_or)
{
    if (is_or ? logic(P, v, 0) : not_(P, v)) return -1;
    for (;;) {
        int more = is_or ? (accept(P, "or") || accept(P, "||")) : (accept(P, "and") || accept(P, "&&"));
        if (!more) return 0;
        value b;
        if (is_or ? logic(P, &b, 0) : not_(P, &b)) {
            wdb_value_free(v);
            return -1;
        }
        if (need_scalar(P, v) || need_scalar(P, &b)) {
            wdb_value_free(v);
            wdb_value_free(&b);
            return -1;
        }
        int t = is_or ? (wdb_truth(v) || wdb_truth(&b)) : (wdb_truth(v) && wdb_truth(&b));
        wdb_value_free(v);
        wdb_value_free(&b);
        *v = scalar(V_INT, (uint32_t)t);
    }
}

/* Enters one level of nesting; -1 (with the message) past the limit. */
static int deeper(parser *P)
{
    if (++P->depth > MAX_EXPR_DEPTH)
        return perr(P, "Expression nested too deeply (more than %d levels of parentheses, indices or unary operators).",
                    MAX_EXPR_DEPTH);
    return 0;
}

static int expr_or(parser *P, value *v)
{
    if (deeper(P)) return -1;
    int rc = logic(P, v, 1);
    P->depth--;
    return rc;
}

/* Stores r into the lvalue v (converted to its type); v becomes the new value. */
static int store(parser *P, value *v, value *r)
{
    wdb *d = P->d;
    if (need_scalar(P, r)) return -1;
    if (v->kind == V_ARRAY) return perr(P, "Assignment to a whole array is not supported: assign its elements.");
    if (v->kind == V_NONE) return perr(P, "Left operand of assignment is optimized out.");
    if (!v->lreg && v->space == SP_NONE) return perr(P, "Left operand of assignment is not an lvalue.");
    if (v->is_ref) return perr(P, "Left operand of assignment is not an lvalue.");
    uint32_t bits = r->bits;
    if (v->kind == V_FLOAT && r->kind != V_FLOAT) bits = wt_u((float)(int32_t)r->bits);
    else if (v->kind == V_INT && r->kind == V_FLOAT) bits = wt_ftoi_sat(r->bits);
    int rc;
    if (v->lreg) rc = wsim_set_cell_reg(d->sim, P->cell, (unsigned)(v->lreg - 1), bits);
    else if (v->space == SP_HOST) {
        uint32_t size;
        uint8_t *mem = wsim_host_memory(d->sim, &size);
        rc = v->addr % 4 || (uint64_t)v->addr + 4 > size ? -1 : 0;
        for (int i = 0; rc == 0 && i < 4; i++) mem[v->addr + (uint32_t)i] = (uint8_t)(bits >> (8 * i));
    } else {
        rc = wsim_set_cell_word(d->sim, P->cell, v->addr, bits);
    }
    if (rc && v->lreg) return perr(P, "Register $%s cannot be written.", wt_opnd_name((unsigned)(v->lreg - 1)));
    if (rc) return perr(P, "Cannot access memory at address 0x%x", v->addr);
    d->altered = 1;
    v->bits = bits;
    if (v->kind == V_WORD) v->kind = r->kind == V_FLOAT ? V_FLOAT : V_INT;
    return 0;
}

static int eval(wdb *d, int cell, const char *expr, value *out, char *err, size_t errlen, int assign)
{
    memset(out, 0, sizeof *out);
    int outer = cell == d->sel && d->frame > 0;
    parser P = {d, cell, expr, err, errlen, 0, 0, wdb_frame_pc(d, cell, outer ? d->frame : 0), 0, assign, 0, outer, NULL};
    skip(&P);
    P.start = P.p;
    if (!*P.p) {
        snprintf(err, errlen, "Argument required (expression to compute).");
        return -1;
    }
    if (expr_or(&P, out)) {
        wdb_value_free(out);
        return -1;
    }
    skip(&P);
    if (assign && (accept(&P, ":=") || accept(&P, "="))) {
        value r;
        /* the right side one level down: an `=` in it is W2's comparison */
        P.depth = 1;
        if (expr_or(&P, &r) || store(&P, out, &r)) {
            wdb_value_free(&r);
            wdb_value_free(out);
            return -1;
        }
        wdb_value_free(&r);
        skip(&P);
    }
    if (*P.p) {
        wdb_value_free(out);
        perr(&P, "A syntax error in expression, near `%s'.", P.p);
        return -1;
    }
    return 0;
}

int wdb_eval(wdb *d, int cell, const char *expr, value *out, char *err, size_t errlen)
{
    return eval(d, cell, expr, out, err, errlen, 0);
}

int wdb_eval_assign(wdb *d, int cell, const char *expr, value *out, char *err, size_t errlen)
{
    return eval(d, cell, expr, out, err, errlen, 1);
}

int wdb_check(wdb *d, uint32_t pc, const char *expr, char *err, size_t errlen)
{
    value v;
    parser P = {d, 0, expr, err, errlen, 0, 0, pc, 1, 0, 0, 0, NULL};
    skip(&P);
    if (!*P.p) {
        snprintf(err, errlen, "Argument required (expression to compute).");
        return -1;
    }
    int rc = expr_or(&P, &v);
    if (rc == 0) {
        wdb_value_free(&v);
        skip(&P);
        if (*P.p) {
            perr(&P, "A syntax error in expression, near `%s'.", P.p);
            rc = -1;
        }
    }
    return rc;
}
