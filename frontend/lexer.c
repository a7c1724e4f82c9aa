/* The lexer: W2 source text -> an array of tokens (w2-language.md, "Lexical").
 * Keywords are reserved and lower case; L, R, X, Y are ordinary identifiers that
 * the parser recognises where the grammar expects a direction or a channel. */
#include "w2_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const spellings[W2_TK_COUNT] = {
    [W2_TK_EOF] = "end of file",
    [W2_TK_IDENT] = "identifier",
    [W2_TK_INTLIT] = "integer literal",
    [W2_TK_FLOATLIT] = "float literal",
#define X(id, s) [W2_TK_##id] = s,
    W2_KEYWORDS(X) W2_PUNCTUATORS(X)
#undef X
};

const char *w2_tok_spelling(w2_tok_kind k) { return spellings[k]; }

static int is_keyword(w2_tok_kind k) { return k >= W2_TK_MODULE && k <= W2_TK_MOD; }

void w2_tok_describe(const w2_token *t, char *buf, size_t n)
{
    /* A hostile identifier may be megabytes long; the message shows its start. */
    int len = t->len > 40 ? 40 : t->len;
    const char *more = t->len > 40 ? "..." : "";
    switch (t->kind) {
    case W2_TK_EOF:
        snprintf(buf, n, "end of file");
        break;
    case W2_TK_IDENT:
        snprintf(buf, n, "identifier '%.*s%s'", len, t->text, more);
        break;
    case W2_TK_INTLIT:
    case W2_TK_FLOATLIT:
        snprintf(buf, n, "number '%.*s%s'", len, t->text, more);
        break;
    default:
        if (is_keyword(t->kind)) snprintf(buf, n, "keyword '%s'", spellings[t->kind]);
        else snprintf(buf, n, "'%s'", spellings[t->kind]);
        break;
    }
}

typedef struct lexer {
    w2_ctx *c;
    const char *p, *end;
    int line;
    const char *line_start;
    w2_token *toks;
    size_t n, cap;
} lexer;

static w2_loc loc_of(lexer *lx, const char *p) { return (w2_loc){lx->line, (int)(p - lx->line_start) + 1}; }

static void lex_error(lexer *lx, w2_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void lex_error(lexer *lx, w2_loc loc, const char *fmt, ...)
{
    w2_ctx *c = lx->c;
    c->syntax_errors++;
    /* Beyond the error cap no message is shown, so a file of garbage does not
     * make the lexer format and keep millions of them. */
    int cap = c->diag->max_errors;
    if (cap && c->npending > (size_t)cap) return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->npending == c->pending_cap) {
        c->pending_cap = c->pending_cap ? 2 * c->pending_cap : 16;
        c->pending = ws_xrealloc(c->pending, c->pending_cap * sizeof *c->pending);
    }
    c->pending[c->npending++] = (w2_pending){loc, ws_arena_strndup(&c->arena, msg, strlen(msg))};
}

static w2_token *push(lexer *lx, w2_tok_kind k, const char *start, const char *end)
{
    if (lx->n == lx->cap) {
        lx->cap = lx->cap ? lx->cap * 2 : 256;
        lx->toks = ws_xrealloc(lx->toks, lx->cap * sizeof *lx->toks);
    }
    w2_token *t = &lx->toks[lx->n++];
    memset(t, 0, sizeof *t);
    t->kind = k;
    t->loc = loc_of(lx, start);
    t->text = start;
    t->len = (int)(end - start);
    return t;
}

static int is_alpha(int ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }
static int is_digit(int ch) { return ch >= '0' && ch <= '9'; }
static int is_alnum(int ch) { return is_alpha(ch) || is_digit(ch) || ch == '_'; }

static void newline(lexer *lx, const char *after)
{
    lx->line++;
    lx->line_start = after;
}

/* Skips blanks and comments; returns 0 at the end of the text. */
static int skip_space(lexer *lx)
{
    while (lx->p < lx->end) {
        char ch = *lx->p;
        if (ch == '\n') {
            lx->p++;
            newline(lx, lx->p);
        } else if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') {
            lx->p++;
        } else if (ch == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
            w2_loc start = loc_of(lx, lx->p);
            lx->p += 2;
            for (;;) {
                if (lx->p >= lx->end) {
                    lex_error(lx, start, "unterminated comment");
                    return 0;
                }
                if (lx->p[0] == '*' && lx->p + 1 < lx->end && lx->p[1] == '/') {
                    lx->p += 2;
                    break;
                }
                if (*lx->p++ == '\n') newline(lx, lx->p);
            }
        } else {
            return 1;
        }
    }
    return 0;
}

/* INT := digit {digit}; FLOAT := digit {digit} ('.' {digit} [exp] | exp);
 * exp := ('e' | 'E') ['+' | '-'] digit {digit} */
static void lex_number(lexer *lx)
{
    const char *start = lx->p, *p = lx->p;
    int is_float = 0;
    while (p < lx->end && is_digit(*p)) p++;
    /* '..' after a number is not its fraction ('0..3', a Pascal range): the
     * number ends before it and lex_invalid reports the '..'. */
    if (p < lx->end && *p == '.' && !(p + 1 < lx->end && p[1] == '.')) {
        is_float = 1;
        p++;
        if (!(p < lx->end && is_digit(*p)))
            lex_error(lx, loc_of(lx, p - 1), "a float literal needs a digit after '.' (write '%.*s.0')",
                      (int)(p - 1 - start > 40 ? 40 : p - 1 - start), start);
        while (p < lx->end && is_digit(*p)) p++;
    }
    if (p < lx->end && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        if (q < lx->end && (*q == '+' || *q == '-')) q++;
        if (q < lx->end && is_digit(*q)) {
            is_float = 1;
            p = q;
            while (p < lx->end && is_digit(*p)) p++;
        } else {
            lex_error(lx, loc_of(lx, p), "exponent of number '%.*s' has no digits",
                     (int)(q - start), start);
            p = q;
        }
    }
    if (p < lx->end && is_alnum(*p)) {
        const char *s = p;
        while (p < lx->end && is_alnum(*p)) p++;
        lex_error(lx, loc_of(lx, s), "invalid suffix '%.*s' on number", (int)(p - s > 40 ? 40 : p - s), s);
    }
    w2_token *t = push(lx, is_float ? W2_TK_FLOATLIT : W2_TK_INTLIT, start, p);
    lx->p = p;
    if (!is_float) {
        uint64_t v = 0;
        for (const char *d = start; d < p && is_digit(*d); d++) {
            unsigned digit = (unsigned)(*d - '0');
            v = v > (UINT64_MAX - digit) / 10 ? UINT64_MAX : v * 10 + digit;
        }
        t->ival = v;
        return;
    }
    /* strtof needs a terminated copy; it rounds correctly to single precision. */
    char *copy = ws_arena_strndup(&lx->c->arena, start, (size_t)(p - start));
    errno = 0;
    float f = strtof(copy, NULL);
    int range = errno == ERANGE;
    if (isinf(f)) {
        t->range = W2_RANGE_OVERFLOW;
        f = 0.0f;
    } else if (range && f == 0.0f) {
        int nonzero = 0;
        for (const char *d = start; d < p && *d != 'e' && *d != 'E'; d++) nonzero |= *d >= '1' && *d <= '9';
        if (nonzero) t->range = W2_RANGE_UNDERFLOW;
    }
    t->fval = f;
}

static w2_tok_kind keyword_kind(const char *s, size_t n)
{
    for (int k = W2_TK_MODULE; k <= W2_TK_MOD; k++)
        if (strlen(spellings[k]) == n && memcmp(spellings[k], s, n) == 0) return (w2_tok_kind)k;
    return W2_TK_IDENT;
}

/* The longest punctuator at p, or W2_TK_EOF if none starts there. */
static w2_tok_kind punctuator(const char *p, const char *end, int *len)
{
    for (int k = W2_TK_ASSIGN; k < W2_TK_COUNT; k++) {
        size_t n = strlen(spellings[k]);
        if ((size_t)(end - p) >= n && memcmp(p, spellings[k], n) == 0) {
            *len = (int)n;
            return (w2_tok_kind)k;
        }
    }
    return W2_TK_EOF;
}

/* What C (or Pascal) programmers write where W2 has another word: the hint
 * makes the message say what to write instead. */
static const struct {
    const char *written, *hint;
} foreign[] = {
    {"!=", "'<>'"}, {"!", "'not'"}, {"&&", "'and'"}, {"&", "'and'"}, {"||", "'or'"}, {"|", "'or'"},
    {"%", "'mod'"}, {"{", "'begin'"}, {"}", "'end'"},
};

/* A character no token starts with: reported (with what to write instead when
 * it is a common slip) and skipped. A '//' comment is skipped to the end of
 * its line, so its words do not turn into errors of their own. */
static void lex_invalid(lexer *lx)
{
    const char *start = lx->p;
    unsigned char ch = (unsigned char)*start;
    w2_loc loc = loc_of(lx, start);
    if (ch == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
        lex_error(lx, loc, "comments are written /* ... */ in W2, not //");
        while (lx->p < lx->end && *lx->p != '\n') lx->p++;
        return;
    }
    for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++) {
        size_t n = strlen(foreign[i].written);
        if ((size_t)(lx->end - start) >= n && memcmp(start, foreign[i].written, n) == 0) {
            lex_error(lx, loc, "invalid character '%c': W2 writes '%s' as %s", ch, foreign[i].written,
                      foreign[i].hint);
            lx->p += n;
            return;
        }
    }
    if (ch == '.' && lx->p + 1 < lx->end && lx->p[1] == '.') {
        lex_error(lx, loc, "invalid '..': W2 has no ranges (the cells of a cellprogram are written "
                  "'(c : 0 : 9)')");
        lx->p += 2;
        return;
    }
    if (ch == '.' && lx->n > 0 && lx->toks[lx->n - 1].kind == W2_TK_END) {
        lex_error(lx, loc, "invalid character '.': a W2 program ends with 'end', without a '.'");
        lx->p++;
        return;
    }
    if (ch == '_')
        lex_error(lx, loc, "identifiers must start with a letter");
    else if (ch == '.' && lx->p + 1 < lx->end && is_digit(lx->p[1]))
        lex_error(lx, loc, "a float literal needs a digit before '.' (write '0.%c...')", lx->p[1]);
    else if (ch >= 0x20 && ch < 0x7f)
        lex_error(lx, loc, "invalid character '%c'", ch);
    else if (ch >= 0xc2 && ch <= 0xf4 && lx->p + 1 < lx->end && ((unsigned char)lx->p[1] & 0xc0) == 0x80) {
        /* One UTF-8 character, one message: its bytes, shown as they are. */
        const char *q = lx->p + 1;
        while (q < lx->end && q - lx->p < 4 && ((unsigned char)*q & 0xc0) == 0x80) q++;
        lex_error(lx, loc, "invalid character '%.*s' (W2 source text is ASCII outside comments)", (int)(q - lx->p),
                  lx->p);
        lx->p = q;
        return;
    } else
        lex_error(lx, loc, "invalid character '\\x%02x'", ch);
    lx->p++;
}

w2_token *w2_lex(w2_ctx *c, size_t *ntokens)
{
    lexer lx = {.c = c, .p = c->text, .end = c->text + c->len, .line = 1, .line_start = c->text};
    /* The end of file sits just after the last token, so "expected 'end', found end
     * of file" points where the missing word belongs. */
    w2_loc eof_loc = {1, 1};
    while (skip_space(&lx)) {
        const char *start = lx.p;
        unsigned char ch = (unsigned char)*lx.p;
        int plen;
        w2_tok_kind k;
        if (is_alpha(ch)) {
            while (lx.p < lx.end && is_alnum(*lx.p)) lx.p++;
            push(&lx, keyword_kind(start, (size_t)(lx.p - start)), start, lx.p);
        } else if (is_digit(ch)) {
            lex_number(&lx);
        } else if (ch == '/' && lx.p + 1 < lx.end && lx.p[1] == '/') {
            lex_invalid(&lx);
            continue;
        } else if ((k = punctuator(lx.p, lx.end, &plen)) != W2_TK_EOF) {
            lx.p += plen;
            push(&lx, k, start, lx.p);
        } else {
            lex_invalid(&lx);
            continue;
        }
        eof_loc = loc_of(&lx, lx.p);
    }
    w2_token *eof = push(&lx, W2_TK_EOF, lx.end, lx.end);
    eof->loc = eof_loc;
    *ntokens = lx.n;
    return lx.toks;
}
