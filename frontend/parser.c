/* The parser: tokens -> syntax tree (w2_program). Recursive descent, one function
 * per rule of w2-language.md, the rule in a comment above it.
 *
 * Error recovery: the first error puts the parser in panic mode, which silences
 * further messages while the rule functions unwind without consuming; the
 * enclosing statement or declaration list then skips to a ';' or 'end' of its own
 * nesting level and carries on, so each real error is reported once. */
#include "w2_internal.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct parser {
    w2_ctx *c;
    w2_token *tok;
    w2_token *first;        /* the first token */
    int panic;
    int depth;
    int eof_reported;       /* one "found end of file" is enough for a truncated file */
    int in_func;            /* inside a function body */
    w2_loc region;          /* where the statement or declaration being parsed starts */
    int shown;              /* the last syntax error was shown (not an echo) */
    int two_d;              /* a 2-D cellprogram: directions U and D too */
} parser;

/* ---- Token access ---------------------------------------------------------------- */

static int at(parser *p, w2_tok_kind k) { return p->tok->kind == k; }

static w2_token *advance(parser *p)
{
    w2_token *t = p->tok;
    if (t->kind != W2_TK_EOF) p->tok++;
    return t;
}

static int reserved(w2_tok_kind k) { return k >= W2_TK_MODULE && k <= W2_TK_MOD; }

static int consume(parser *p, w2_tok_kind k)
{
    if (!at(p, k)) return 0;
    advance(p);
    return 1;
}

static void error_at(parser *p, w2_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Whether a lexical error was reported between from and upto: the lexer skipped
 * what it could not read, so a syntax error after it in the same statement is
 * most likely its echo ("3 # 4" parses as "3 4"). */
static int lexical_error_between(const w2_ctx *c, w2_loc from, w2_loc upto)
{
    for (size_t i = c->next_pending; i-- > 0;) {
        w2_loc l = c->pending[i].loc;
        if (l.line < from.line || (l.line == from.line && l.col < from.col)) return 0;
        if (l.line < upto.line || (l.line == upto.line && l.col <= upto.col)) return 1;
    }
    return 0;
}

static void error_at(parser *p, w2_loc loc, const char *fmt, ...)
{
    if (p->panic) return;
    p->panic = 1;
    p->shown = 0;
    if (p->tok->kind == W2_TK_EOF) {
        if (p->eof_reported) return;
        p->eof_reported = 1;
    }
    p->c->syntax_errors++;
    /* Every lexical error lies before the end of file, even an unterminated
     * comment that starts after the last token. */
    w2_loc upto = p->tok->kind == W2_TK_EOF ? (w2_loc){INT_MAX, INT_MAX} : loc;
    w2_flush_lexical(p->c, upto);
    if (lexical_error_between(p->c, p->region, upto)) return;
    p->shown = 1;
    va_list ap;
    va_start(ap, fmt);
    ws_vreport(p->c->diag, WS_ERROR, loc.line, loc.col, fmt, ap);
    va_end(ap);
}

/* A value the grammar accepts but the language does not (an array size of 0):
 * the tree stays whole, so parsing goes on normally and the checker still runs. */
static void value_error(parser *p, w2_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void value_error(parser *p, w2_loc loc, const char *fmt, ...)
{
    if (p->panic) return;
    w2_flush_lexical(p->c, loc);
    va_list ap;
    va_start(ap, fmt);
    ws_vreport(p->c->diag, WS_ERROR, loc.line, loc.col, fmt, ap);
    va_end(ap);
}

/* "expected ':=' after 'x', found '='": what was expected, where, and what is there. */
/* Where a missing token belongs: at the token found instead, or, when that
 * one starts a later line, just after the previous token, the end of the line
 * the token is missing from. Tokens never span lines. */
static w2_loc missing_loc(parser *p)
{
    if (p->tok == p->first) return p->tok->loc;
    const w2_token *prev = p->tok - 1;
    if (p->tok->loc.line > prev->loc.line) return (w2_loc){prev->loc.line, prev->loc.col + prev->len};
    return p->tok->loc;
}

static w2_token *expect(parser *p, w2_tok_kind k, const char *where)
{
    if (at(p, k)) return advance(p);
    char found[96], wanted[32];
    w2_tok_describe(p->tok, found, sizeof found);
    /* A word or punctuator is quoted; a class of tokens is named. */
    if (k == W2_TK_INTLIT) snprintf(wanted, sizeof wanted, "an integer");
    else snprintf(wanted, sizeof wanted, "'%s'", w2_tok_spelling(k));
    error_at(p, missing_loc(p), "expected %s%s%s, found %s", wanted, *where ? " " : "", where, found);
    return NULL;
}

/* Expects the 'end' of something that began at `start`; when the file ends
 * first, a note shows where it began. Returns 0 if the 'end' is missing. */
static int missing_end(parser *p, const char *where, w2_loc start, const char *note)
{
    int was_panic = p->panic;
    if (expect(p, W2_TK_END, where)) return 1;
    if (at(p, W2_TK_EOF) && !was_panic && p->shown) w2_note(p->c, start, "%s", note);
    return 0;
}

static const char *ident_text(parser *p, const w2_token *t)
{
    return ws_arena_strndup(&p->c->arena, t->text, (size_t)t->len);
}

static w2_token *expect_ident(parser *p, const char *what)
{
    if (at(p, W2_TK_IDENT)) return advance(p);
    char found[96];
    w2_tok_describe(p->tok, found, sizeof found);
    error_at(p, p->tok->loc, "expected %s, found %s%s", what, found, reserved(p->tok->kind) ? " (a reserved word)" : "");
    return NULL;
}

/* Bounds the recursion of the rule functions (see W2_MAX_NESTING). */
static int enter(parser *p)
{
    if (p->depth >= W2_MAX_NESTING) {
        error_at(p, p->tok->loc, "nesting is too deep (more than %d levels)", W2_MAX_NESTING);
        return 0;
    }
    p->depth++;
    return 1;
}

static void leave(parser *p) { p->depth--; }

/* Skips to a ';' or 'end' of the current nesting level (whole begin...end blocks
 * are skipped, and a ';' inside parentheses does not end the statement: C's
 * 'for (i := 0; i < n; ...)' is one mistake, not three), or the end of file, and
 * leaves panic mode. Parentheses never span a keyword that structures
 * statements, so one left open does not swallow the rest of the block. */
static void synchronize(parser *p)
{
    int depth = 0, parens = 0;
    for (;;) {
        w2_tok_kind k = p->tok->kind;
        if (k == W2_TK_EOF) break;
        if (depth == 0 && k == W2_TK_END) break;
        if (depth == 0 && parens == 0 && k == W2_TK_SEMI) break;
        if (k == W2_TK_LPAREN) parens++;
        else if (k == W2_TK_RPAREN && parens > 0) parens--;
        else if (k == W2_TK_BEGIN || k == W2_TK_END || k == W2_TK_THEN || k == W2_TK_DO || k == W2_TK_ELSE)
            parens = 0;
        if (k == W2_TK_BEGIN) depth++;
        else if (k == W2_TK_END) depth--;
        advance(p);
    }
    p->panic = 0;
}

/* After a broken declaration: past its ';', or up to the next word that starts
 * something a declaration cannot contain. */
static void skip_declaration(parser *p)
{
    for (;;) {
        w2_tok_kind k = p->tok->kind;
        if (k == W2_TK_SEMI) {
            advance(p);
            break;
        }
        if (k == W2_TK_EOF || k == W2_TK_BEGIN || k == W2_TK_END || k == W2_TK_FUNCTION ||
            k == W2_TK_CELLPROGRAM || k == W2_TK_FLOAT || k == W2_TK_INT)
            break;
        advance(p);
    }
    p->panic = 0;
}

static void *new_node(parser *p, size_t size) { return ws_arena_alloc(&p->c->arena, size); }

static int starts_statement(w2_tok_kind k);

/* 'real x;' or 'integer a[4], b;': a name where a type belongs, then a name and
 * what may follow one in a declaration. Taken as a declaration with an unknown
 * type, so that the declarations after it are still taken as declarations. */
static int unknown_type_decl(parser *p)
{
    if (!at(p, W2_TK_IDENT) || p->tok[1].kind != W2_TK_IDENT) return 0;
    w2_tok_kind k = p->tok[2].kind;
    return k == W2_TK_SEMI || k == W2_TK_COMMA || k == W2_TK_LBRACKET;
}

/* Reports the unknown type and skips the declaration. */
static void unknown_type(parser *p)
{
    const w2_token *t = p->tok;
    p->region = t->loc;
    error_at(p, t->loc, "unknown type name '%.*s' (the types are 'int' and 'float')", t->len > 40 ? 40 : t->len,
             t->text);
    skip_declaration(p);
}

/* ---- Expressions ----------------------------------------------------------------- */

static w2_expr *expr(parser *p);

static w2_expr *new_expr(parser *p, w2_expr_kind k, w2_loc loc)
{
    w2_expr *e = new_node(p, sizeof *e);
    e->kind = k;
    e->loc = loc;
    e->height = 1;
    return e;
}

static int height(const w2_expr *e) { return e ? e->height : 0; }

/* An operator node; its height bounds the recursion of the later stages. */
static w2_expr *new_op(parser *p, w2_expr_kind k, w2_binop op, w2_loc loc, w2_expr *l, w2_expr *r)
{
    w2_expr *e = new_expr(p, k, loc);
    e->op = op;
    e->lhs = l;
    e->rhs = r;
    int h = height(l) > height(r) ? height(l) : height(r);
    e->height = h + 1;
    if (e->height > W2_MAX_EXPR_HEIGHT) {
        error_at(p, loc, "expression is too deeply nested (more than %d levels of operators)", W2_MAX_EXPR_HEIGHT);
        return NULL;
    }
    return e;
}

/* lvalue := NAME ['[' expr ']' ['[' expr ']']]
 * More than two subscripts parse, so that the checker can say how many the
 * variable takes. */
static w2_expr *lvalue(parser *p)
{
    w2_token *name = expect_ident(p, "a variable name");
    if (!name) return NULL;
    w2_expr *e = new_expr(p, W2_EX_VAR, name->loc);
    e->name = ident_text(p, name);
    while (at(p, W2_TK_LBRACKET)) {
        advance(p);
        w2_expr *ix = expr(p);
        if (e->nindex < 2) e->index[e->nindex] = ix;
        e->nindex++;
        if (height(ix) + 1 > e->height) e->height = height(ix) + 1;
        if (at(p, W2_TK_COMMA) && !p->panic) {
            error_at(p, p->tok->loc, "expected ']' after the subscript, found ',' (an element of a 2-D array is "
                     "written %s[i][j])", e->name);
            return e;
        }
        if (!expect(p, W2_TK_RBRACKET, "after the subscript")) return e;
    }
    return e;
}

/* An integer literal, negated when it follows a unary minus: -2147483648 fits an
 * int although 2147483648 does not. */
static w2_expr *int_literal(parser *p, w2_token *t, int negate, w2_loc loc)
{
    uint64_t limit = negate ? (uint64_t)INT32_MAX + 1 : (uint64_t)INT32_MAX;
    w2_expr *e = new_expr(p, W2_EX_INTLIT, loc);
    if (t->ival > limit) {
        char text[64];
        snprintf(text, sizeof text, "%s%.*s%s", negate ? "-" : "", t->len > 40 ? 40 : t->len, t->text,
                 t->len > 40 ? "..." : "");
        e->range = W2_RANGE_OVERFLOW;
        e->name = ws_arena_strndup(&p->c->arena, text, strlen(text));
        return e;
    }
    e->ival = (int32_t)(negate ? (uint32_t)(-(int64_t)t->ival) : (uint32_t)t->ival);
    return e;
}

/* primary := INT | FLOAT | lvalue | '(' expr ')' | ('float' | 'int') '(' expr ')' */
static w2_expr *primary(parser *p)
{
    w2_token *t = p->tok;
    switch (t->kind) {
    case W2_TK_INTLIT:
        advance(p);
        return int_literal(p, t, 0, t->loc);
    case W2_TK_FLOATLIT: {
        advance(p);
        w2_expr *e = new_expr(p, W2_EX_FLOATLIT, t->loc);
        e->fval = t->fval;
        e->range = t->range;
        if (t->range != W2_RANGE_OK)
            e->name = ws_arena_strndup(&p->c->arena, t->text, (size_t)(t->len > 40 ? 40 : t->len));
        return e;
    }
    case W2_TK_IDENT:
        if (t[1].kind == W2_TK_LPAREN) {
            int len = t->len > 40 ? 40 : t->len;
            error_at(p, t[1].loc,
                     "'%.*s(...)' is not an expression: functions take no arguments and return no value (a "
                     "statement 'call %.*s' runs one); only int(...) and float(...) take an argument",
                     len, t->text, len, t->text);
            return NULL;
        }
        return lvalue(p);
    case W2_TK_LPAREN: {
        advance(p);
        w2_expr *e = expr(p);
        expect(p, W2_TK_RPAREN, "to close the '('");
        return e;
    }
    case W2_TK_FLOAT:
    case W2_TK_INT: {
        advance(p);
        const char *what = t->kind == W2_TK_INT ? "after 'int' (a conversion is written int(e))"
                                                : "after 'float' (a conversion is written float(e))";
        if (!expect(p, W2_TK_LPAREN, what)) return NULL;
        w2_expr *e = expr(p);
        expect(p, W2_TK_RPAREN, "to close the conversion");
        return new_op(p, t->kind == W2_TK_INT ? W2_EX_TOINT : W2_EX_TOFLOAT, 0, t->loc, e, NULL);
    }
    default: {
        char found[96];
        w2_tok_describe(t, found, sizeof found);
        error_at(p, t->loc, "expected an expression, found %s", found);
        return NULL;
    }
    }
}

/* unary := '-' unary | primary */
static w2_expr *unary(parser *p)
{
    if (!at(p, W2_TK_MINUS)) return primary(p);
    w2_token *minus = advance(p);
    if (at(p, W2_TK_INTLIT)) return int_literal(p, advance(p), 1, minus->loc);
    if (!enter(p)) return NULL;
    w2_expr *operand = unary(p);
    leave(p);
    return new_op(p, W2_EX_NEG, 0, minus->loc, operand, NULL);
}

/* term := unary {('*' | '/' | 'mod') unary} */
static w2_expr *term(parser *p)
{
    w2_expr *e = unary(p);
    for (;;) {
        w2_binop op;
        if (at(p, W2_TK_STAR)) op = W2_OP_MUL;
        else if (at(p, W2_TK_SLASH)) op = W2_OP_DIV;
        else if (at(p, W2_TK_MOD)) op = W2_OP_MOD;
        else return e;
        w2_loc loc = advance(p)->loc;
        e = new_op(p, W2_EX_BINARY, op, loc, e, unary(p));
    }
}

/* sum := term {('+' | '-') term} */
static w2_expr *sum(parser *p)
{
    w2_expr *e = term(p);
    for (;;) {
        w2_binop op;
        if (at(p, W2_TK_PLUS)) op = W2_OP_ADD;
        else if (at(p, W2_TK_MINUS)) op = W2_OP_SUB;
        else return e;
        w2_loc loc = advance(p)->loc;
        e = new_op(p, W2_EX_BINARY, op, loc, e, term(p));
    }
}

static int relop(parser *p, w2_binop *op)
{
    switch (p->tok->kind) {
    case W2_TK_EQ: *op = W2_OP_EQ; return 1;
    case W2_TK_NE: *op = W2_OP_NE; return 1;
    case W2_TK_LT: *op = W2_OP_LT; return 1;
    case W2_TK_LE: *op = W2_OP_LE; return 1;
    case W2_TK_GT: *op = W2_OP_GT; return 1;
    case W2_TK_GE: *op = W2_OP_GE; return 1;
    default: return 0;
    }
}

/* relation := sum [('=' | '<>' | '<' | '<=' | '>' | '>=') sum]   -- non-associative */
static w2_expr *relation(parser *p)
{
    w2_expr *e = sum(p);
    w2_binop op;
    if (!relop(p, &op)) return e;
    w2_loc loc = advance(p)->loc;
    if (op == W2_OP_EQ && at(p, W2_TK_EQ)) {
        error_at(p, loc, "comparison for equality is written '=' in W2, not '=='");
        return e;
    }
    e = new_op(p, W2_EX_BINARY, op, loc, e, sum(p));
    if (relop(p, &op))
        error_at(p, p->tok->loc, "comparisons do not chain: '%s' cannot follow a comparison (combine them with 'and')",
                 w2_tok_spelling(p->tok->kind));
    return e;
}

/* negation := 'not' negation | relation */
static w2_expr *negation(parser *p)
{
    if (!at(p, W2_TK_NOT)) return relation(p);
    w2_loc loc = advance(p)->loc;
    if (!enter(p)) return NULL;
    w2_expr *operand = negation(p);
    leave(p);
    return new_op(p, W2_EX_NOT, 0, loc, operand, NULL);
}

/* conjunction := negation {'and' negation} */
static w2_expr *conjunction(parser *p)
{
    w2_expr *e = negation(p);
    while (at(p, W2_TK_AND)) {
        w2_loc loc = advance(p)->loc;
        e = new_op(p, W2_EX_BINARY, W2_OP_AND, loc, e, negation(p));
    }
    return e;
}

/* expr := conjunction {'or' conjunction} */
static w2_expr *expr(parser *p)
{
    if (!enter(p)) return NULL;
    w2_expr *e = conjunction(p);
    while (at(p, W2_TK_OR)) {
        w2_loc loc = advance(p)->loc;
        e = new_op(p, W2_EX_BINARY, W2_OP_OR, loc, e, conjunction(p));
    }
    leave(p);
    return e;
}

/* ---- Declarations ---------------------------------------------------------------- */

static int32_t dimension(parser *p)
{
    w2_token *t = expect(p, W2_TK_INTLIT, "as the array size");
    if (!t) return 1;
    if (t->ival == 0) {
        value_error(p, t->loc, "array size must be at least 1");
        return 1;
    }
    if (t->ival > INT32_MAX) {
        value_error(p, t->loc, "array size '%.*s' is too large", t->len > 40 ? 40 : t->len, t->text);
        return 1;
    }
    return (int32_t)t->ival;
}

/* item := NAME ['[' INT ']' ['[' INT ']']] */
static w2_var *item(parser *p, w2_type type, w2_var_kind kind)
{
    w2_token *name = expect_ident(p, "a variable name");
    if (!name) {
        /* 'int end;': the reserved word stands where a name belongs; stepping
         * over it keeps recovery from taking it for the word itself. */
        w2_tok_kind next = p->tok[p->tok->kind != W2_TK_EOF].kind;
        if (reserved(p->tok->kind) && (next == W2_TK_SEMI || next == W2_TK_COMMA || next == W2_TK_LBRACKET))
            advance(p);
        return NULL;
    }
    w2_var *v = new_node(p, sizeof *v);
    v->name = ident_text(p, name);
    v->loc = name->loc;
    v->kind = kind;
    v->type = type;
    while (at(p, W2_TK_LBRACKET)) {
        w2_token *lb = advance(p);
        int32_t d = dimension(p);
        if (v->ndims == 2) {
            error_at(p, lb->loc, "'%s' has more than 2 dimensions", v->name);
        } else {
            v->dims[v->ndims++] = d;
        }
        if (!expect(p, W2_TK_RBRACKET, "after the array size")) return v;
    }
    /* Data and host addresses are 32-bit byte addresses. */
    int64_t bytes = 4;
    for (int i = 0; i < v->ndims && bytes <= INT32_MAX; i++) bytes *= v->dims[i];
    if (bytes > INT32_MAX) value_error(p, v->loc, "array '%s' is too large (2^31 bytes or more)", v->name);
    return v;
}

/* decl := type item {',' item} ';'     type := 'float' | 'int'
 * Appends the variables to *tail. With want_semi 0 the ';' is left for the
 * statement list (a misplaced declaration among statements). */
static void decl(parser *p, w2_var_kind kind, w2_var ***tail, int want_semi)
{
    p->region = p->tok->loc;
    w2_type type = advance(p)->kind == W2_TK_INT ? W2_TY_INT : W2_TY_FLOAT;
    do {
        w2_var *v = item(p, type, kind);
        if (v) {
            **tail = v;
            *tail = &v->next;
        }
        if (p->panic) break;
        if (v && (at(p, W2_TK_ASSIGN) || at(p, W2_TK_EQ))) {
            error_at(p, p->tok->loc, "a declaration cannot give '%s' a value: assign it with ':=' after the "
                     "declarations", v->name);
            break;
        }
    } while (consume(p, W2_TK_COMMA));
    if (!p->panic && want_semi && !expect(p, W2_TK_SEMI, "after the declaration")) {
        /* A ';' forgotten at the end of a line, before the next declaration
         * or statement: go on as if it were there, so that what follows is
         * still checked. */
        w2_tok_kind k = p->tok->kind;
        int next_line = p->tok > p->first && p->tok->loc.line > p->tok[-1].loc.line;
        if (next_line && (k == W2_TK_INT || k == W2_TK_FLOAT || k == W2_TK_FUNCTION || k == W2_TK_CELLPROGRAM ||
                          starts_statement(k)))
            p->panic = 0;
    }
    if (p->panic) {
        if (want_semi) skip_declaration(p);
        else synchronize(p);
    }
}

/* ---- Statements ------------------------------------------------------------------ */

static w2_stmt *stmts(parser *p);
static w2_func *funcdef(parser *p);

static w2_stmt *new_stmt(parser *p, w2_stmt_kind k, w2_loc loc)
{
    w2_stmt *s = new_node(p, sizeof *s);
    s->kind = k;
    s->loc = loc;
    return s;
}

/* dir := 'L' | 'R'     chan := 'X' | 'Y' */
static int side(parser *p, const char *a, const char *b, const char *what)
{
    w2_token *t = p->tok;
    if (t->kind == W2_TK_IDENT && t->len == 1 && (t->text[0] == a[0] || t->text[0] == b[0])) {
        advance(p);
        return t->text[0] == b[0];
    }
    char found[96];
    w2_tok_describe(t, found, sizeof found);
    error_at(p, t->loc, "expected %s '%s' or '%s', found %s", what, a, b, found);
    return 0;
}

/* dir := 'L' | 'R' | 'U' | 'D'. U and D are the column neighbours of a 2-D
 * cellprogram; the checker pairs each direction with its channel, and says what a
 * 1-D program's U or D would need. */
static void direction(parser *p, w2_stmt *s)
{
    w2_token *t = p->tok;
    if (t->kind == W2_TK_IDENT && t->len == 1 && strchr("LRUD", t->text[0])) {
        advance(p);
        s->dir_name = t->text[0];
        s->dir_loc = t->loc;
        s->dir = t->text[0] == 'R' || t->text[0] == 'U';
        return;
    }
    char found[96];
    w2_tok_describe(t, found, sizeof found);
    if (p->two_d) error_at(p, t->loc, "expected direction 'L', 'R', 'U' or 'D', found %s", found);
    else error_at(p, t->loc, "expected direction 'L' or 'R', found %s", found);
}

/* 'receive' '(' dir ',' chan ',' lvalue [',' ext] ')'
 * 'send' '(' dir ',' chan ',' expr [',' ext] ')' */
static w2_stmt *transfer(parser *p)
{
    w2_token *kw = advance(p);
    int is_send = kw->kind == W2_TK_SEND;
    w2_stmt *s = new_stmt(p, is_send ? W2_ST_SEND : W2_ST_RECEIVE, kw->loc);
    if (!expect(p, W2_TK_LPAREN, is_send ? "after 'send'" : "after 'receive'")) return s;
    direction(p, s);
    if (p->panic || !expect(p, W2_TK_COMMA, "after the direction")) return s;
    s->chan = side(p, "X", "Y", "channel");
    if (p->panic || !expect(p, W2_TK_COMMA, "after the channel")) return s;
    if (is_send) {
        s->rhs = expr(p);
    } else {
        s->lhs = lvalue(p);
        w2_binop op;
        if (!p->panic && (at(p, W2_TK_PLUS) || at(p, W2_TK_MINUS) || at(p, W2_TK_STAR) || at(p, W2_TK_SLASH) ||
                          at(p, W2_TK_MOD) || relop(p, &op))) {
            error_at(p, p->tok->loc, "the third argument of receive must be a variable (where the word is "
                     "stored), not an expression");
            return s;
        }
    }
    if (!p->panic && !at(p, W2_TK_COMMA) && !at(p, W2_TK_RPAREN)) {
        char found[96];
        w2_tok_describe(p->tok, found, sizeof found);
        error_at(p, missing_loc(p), "expected ',' or ')' after the %s, found %s",
                 is_send ? "value sent" : "variable received into", found);
        return s;
    }
    if (consume(p, W2_TK_COMMA)) s->ext = expr(p);
    if (!p->panic && at(p, W2_TK_COMMA)) {
        error_at(p, p->tok->loc, "'%s' takes at most four arguments", is_send ? "send" : "receive");
        return s;
    }
    expect(p, W2_TK_RPAREN, is_send ? "to close 'send'" : "to close 'receive'");
    return s;
}

/* Message passing on iWarp (docs/w2.md, section 8.3). The two words are not
 * reserved: they start a statement only when a '(' follows, so programs that use
 * them as names still compile.
 *   'sendmsg' '(' expr ',' lvalue ',' expr ')'                 cell, block, words
 *   'receivemsg' '(' lvalue ',' expr ',' lvalue [',' lvalue] ')' block, words, source, length */
static int is_message_word(const w2_token *t)
{
    return t->kind == W2_TK_IDENT && t[1].kind == W2_TK_LPAREN &&
           ((t->len == 7 && !memcmp(t->text, "sendmsg", 7)) || (t->len == 10 && !memcmp(t->text, "receivemsg", 10)));
}

static w2_stmt *message(parser *p)
{
    w2_token *kw = advance(p);
    int is_send = kw->len == 7;
    const char *name = is_send ? "sendmsg" : "receivemsg";
    w2_stmt *s = new_stmt(p, is_send ? W2_ST_MSGSEND : W2_ST_MSGRECV, kw->loc);
    char where[64];
    advance(p); /* '(' */
    if (is_send) {
        s->rhs = expr(p);
        if (p->panic || !expect(p, W2_TK_COMMA, "after the destination cell")) return s;
    }
    s->lhs = lvalue(p);
    if (p->panic || !expect(p, W2_TK_COMMA, "after the first element of the block")) return s;
    s->limit = expr(p);
    if (!is_send) {
        if (p->panic || !expect(p, W2_TK_COMMA, "after the number of words")) return s;
        s->ext = lvalue(p);
        if (!p->panic && consume(p, W2_TK_COMMA)) s->rhs = lvalue(p);
    }
    snprintf(where, sizeof where, "to close '%s'", name);
    if (!p->panic && at(p, W2_TK_COMMA)) {
        error_at(p, p->tok->loc, "'%s' takes at most %s arguments", name, is_send ? "three" : "four");
        return s;
    }
    expect(p, W2_TK_RPAREN, where);
    return s;
}

/* Phased connection sets on iWarp (docs/w2.md, section 8.5). The words 'phase',
 * 'sendcon', 'receivecon' and 'instantiate' are not reserved: each starts a
 * declaration or statement only where nothing else could stand (a name followed
 * by a name and ':', by '(', or by a name). */
static int word_is(const w2_token *t, const char *w)
{
    return t->kind == W2_TK_IDENT && (size_t)t->len == strlen(w) && !memcmp(t->text, w, (size_t)t->len);
}

static int is_phase_decl(const w2_token *t)
{
    return word_is(t, "phase") && t[1].kind == W2_TK_IDENT && t[2].kind == W2_TK_COLON;
}

static int is_con_word(const w2_token *t)
{
    return (word_is(t, "sendcon") || word_is(t, "receivecon")) && t[1].kind == W2_TK_LPAREN;
}

static int is_instantiate(const w2_token *t) { return word_is(t, "instantiate") && t[1].kind == W2_TK_IDENT; }

/* A connection's index bound: an int literal, perhaps negative. */
static int bound(parser *p, int64_t *v, const char *what)
{
    int neg = consume(p, W2_TK_MINUS);
    w2_token *t = expect(p, W2_TK_INTLIT, what);
    if (!t) return 0;
    if (t->ival > INT32_MAX) {
        value_error(p, t->loc, "the bound '%.*s' is too large", t->len > 40 ? 40 : t->len, t->text);
        return 0;
    }
    *v = neg ? -(int64_t)t->ival : (int64_t)t->ival;
    return 1;
}

/* conset := 'phase' NAME ':' conn {',' conn} ';'
 * conn   := NAME ['[' NAME ':' INT ':' INT ']'] 'to' expr */
static void conset_decl(parser *p, w2_program *prog, w2_conset ***tail)
{
    p->region = p->tok->loc;
    advance(p); /* 'phase' */
    w2_token *name = advance(p);
    advance(p); /* ':' */
    w2_conset *set = new_node(p, sizeof *set);
    set->name = ident_text(p, name);
    set->loc = name->loc;
    w2_conn **ct = &set->conns;
    do {
        w2_token *cn = expect_ident(p, "a connection's name");
        if (!cn) break;
        w2_conn *c = new_node(p, sizeof *c);
        c->name = ident_text(p, cn);
        c->loc = cn->loc;
        c->set = set;
        if (consume(p, W2_TK_LBRACKET)) {
            w2_token *ix = expect_ident(p, "the connection's index variable");
            if (!ix) break;
            c->index = ident_text(p, ix);
            c->index_loc = ix->loc;
            if (!expect(p, W2_TK_COLON, "after the index variable") || !bound(p, &c->lo, "as the first index") ||
                !expect(p, W2_TK_COLON, "after the first index") || !bound(p, &c->hi, "as the last index") ||
                !expect(p, W2_TK_RBRACKET, "after the last index"))
                break;
            if (c->lo > c->hi) {
                value_error(p, c->index_loc, "the index of '%s' runs from %lld to %lld: the first must not exceed "
                            "the last", c->name, (long long)c->lo, (long long)c->hi);
                c->hi = c->lo;
            }
        }
        if (!expect(p, W2_TK_TO, "before the connection's destination cell")) break;
        c->dst = expr(p);
        *ct = c;
        ct = &c->next;
    } while (!p->panic && consume(p, W2_TK_COMMA));
    if (!p->panic) expect(p, W2_TK_SEMI, "after the connections of a phase");
    if (p->panic) skip_declaration(p);
    (void)prog;
    **tail = set;
    *tail = &set->next;
}

/* 'sendcon' '(' NAME ['[' expr ']'] ',' lvalue ',' expr ')'      connection, block, words
 * 'receivecon' '(' NAME ['[' expr ']'] ',' lvalue ',' expr ')'   connection, block, most words */
static w2_stmt *con_transfer(parser *p)
{
    w2_token *kw = advance(p);
    int is_send = kw->len == 7;
    const char *name = is_send ? "sendcon" : "receivecon";
    w2_stmt *s = new_stmt(p, is_send ? W2_ST_CONSEND : W2_ST_CONRECV, kw->loc);
    advance(p); /* '(' */
    w2_token *cn = expect_ident(p, "a connection's name");
    if (!cn) return s;
    s->callee = ident_text(p, cn);
    s->callee_loc = cn->loc;
    if (consume(p, W2_TK_LBRACKET)) {
        s->rhs = expr(p);
        if (p->panic || !expect(p, W2_TK_RBRACKET, "after the connection's index")) return s;
    }
    if (!expect(p, W2_TK_COMMA, "after the connection")) return s;
    s->lhs = lvalue(p);
    if (p->panic || !expect(p, W2_TK_COMMA, "after the first element of the block")) return s;
    s->limit = expr(p);
    char where[64];
    snprintf(where, sizeof where, "to close '%s'", name);
    if (!p->panic && at(p, W2_TK_COMMA)) {
        error_at(p, p->tok->loc, "'%s' takes three arguments", name);
        return s;
    }
    expect(p, W2_TK_RPAREN, where);
    return s;
}

/* stmt := lvalue ':=' expr
 *       | 'for' NAME ':=' expr ('to' | 'downto') expr 'do' stmt
 *       | 'while' expr 'do' stmt
 *       | 'if' expr 'then' stmt ['else' stmt]
 *       | 'begin' stmts 'end'
 *       | 'receive' ... | 'send' ...
 *       | 'call' NAME
 *       |                            -- the empty statement: NULL */
static w2_stmt *stmt(parser *p)
{
    w2_token *t = p->tok;
    /* 'for :=' is a loop missing its variable, which the loop's own message says
     * better; any other reserved word before ':=' was meant as a variable name. */
    if (reserved(t->kind) && t->kind != W2_TK_FOR && t[1].kind == W2_TK_ASSIGN) {
        error_at(p, t->loc, "'%s' is a reserved word and cannot name a variable", w2_tok_spelling(t->kind));
        advance(p);
        return NULL;
    }
    switch (t->kind) {
    case W2_TK_SEMI:
    case W2_TK_END:
    case W2_TK_ELSE:
    case W2_TK_EOF:
        return NULL;
    case W2_TK_IDENT: {
        int len = t->len > 40 ? 40 : t->len;
        w2_tok_kind next = t[1].kind;
        if ((next == W2_TK_PLUS || next == W2_TK_MINUS) && t[2].kind == next) {
            const char *op = next == W2_TK_PLUS ? "+" : "-";
            error_at(p, t[1].loc, "W2 has no '%s%s': write '%.*s := %.*s %s 1'", op, op, len, t->text, len, t->text,
                     op);
            return NULL;
        }
        if (is_con_word(t)) return con_transfer(p);
        if (is_instantiate(t)) {
            w2_stmt *s = new_stmt(p, W2_ST_INSTANTIATE, t->loc);
            advance(p);
            w2_token *set = advance(p);
            s->callee = ident_text(p, set);
            s->callee_loc = set->loc;
            return s;
        }
        if (unknown_type_decl(p)) {
            /* Among the statements: the type is the news, not the place. */
            error_at(p, t->loc, "unknown type name '%.*s' (the types are 'int' and 'float')", len, t->text);
            return NULL;
        }
        if (is_message_word(t)) return message(p);
        if (next == W2_TK_LPAREN) {
            error_at(p, t[1].loc, "'%.*s(...)' is not a statement: functions take no arguments, and a "
                     "function is run with 'call %.*s'", len, t->text, len, t->text);
            return NULL;
        }
        if (next == W2_TK_SEMI || next == W2_TK_END || next == W2_TK_EOF) {
            error_at(p, t->loc, "a name alone is not a statement: write 'call %.*s' to run a function, or "
                     "'%.*s := ...' to assign", len, t->text, len, t->text);
            advance(p);
            return NULL;
        }
        w2_stmt *s = new_stmt(p, W2_ST_ASSIGN, t->loc);
        s->lhs = lvalue(p);
        char where[96];
        snprintf(where, sizeof where, "after '%.*s' (assignment is written ':=')", t->len > 40 ? 40 : t->len, t->text);
        if (!expect(p, W2_TK_ASSIGN, where)) return s;
        s->rhs = expr(p);
        return s;
    }
    case W2_TK_RECEIVE:
    case W2_TK_SEND:
        return transfer(p);
    case W2_TK_CALL: {
        advance(p);
        w2_stmt *s = new_stmt(p, W2_ST_CALL, t->loc);
        w2_token *name = expect_ident(p, "a function name after 'call'");
        if (name) {
            s->callee = ident_text(p, name);
            s->callee_loc = name->loc;
            if (at(p, W2_TK_LPAREN))
                error_at(p, p->tok->loc, "functions take no arguments: write 'call %s' without parentheses",
                         s->callee);
        }
        return s;
    }
    case W2_TK_FUNCTION:
        /* Parsed anyway, so errors inside it are found too. */
        if (p->in_func) error_at(p, t->loc, "functions cannot be nested");
        else error_at(p, t->loc, "functions must be defined before the first statement");
        p->panic = 0;
        funcdef(p);
        return NULL;
    case W2_TK_FLOAT:
    case W2_TK_INT: {
        error_at(p, t->loc, "declarations must come before the first statement");
        p->panic = 0;
        w2_var *dropped = NULL, **tail = &dropped;
        decl(p, W2_VAR_LOCAL, &tail, 0);
        return NULL;
    }
    default:
        break;
    }
    if (!enter(p)) return NULL;
    w2_stmt *s = NULL;
    advance(p);
    switch (t->kind) {
    case W2_TK_FOR:
        s = new_stmt(p, W2_ST_FOR, t->loc);
        w2_token *var = expect_ident(p, "a loop variable after 'for'");
        if (!var) break;
        s->lhs = new_expr(p, W2_EX_VAR, var->loc);
        s->lhs->name = ident_text(p, var);
        if (!expect(p, W2_TK_ASSIGN, "after the loop variable")) break;
        s->rhs = expr(p);
        if (at(p, W2_TK_DOWNTO)) {
            s->downto = 1;
            advance(p);
        } else if (!expect(p, W2_TK_TO, "or 'downto' after the first bound")) {
            break;
        }
        s->limit = expr(p);
        if (!expect(p, W2_TK_DO, "after the last bound")) break;
        s->body = stmt(p);
        break;
    case W2_TK_WHILE:
        s = new_stmt(p, W2_ST_WHILE, t->loc);
        s->cond = expr(p);
        if (!expect(p, W2_TK_DO, "after the condition of 'while'")) break;
        s->body = stmt(p);
        break;
    case W2_TK_IF:
        s = new_stmt(p, W2_ST_IF, t->loc);
        s->cond = expr(p);
        if (!expect(p, W2_TK_THEN, "after the condition of 'if'")) break;
        s->body = stmt(p);
        if (consume(p, W2_TK_ELSE)) s->els = stmt(p);
        break;
    case W2_TK_BEGIN:
        s = new_stmt(p, W2_ST_BLOCK, t->loc);
        s->body = stmts(p);
        s->end_loc = p->tok->loc;
        missing_end(p, "to close the block", t->loc, "the block begins here");
        break;
    default: {
        char found[96];
        w2_tok_describe(t, found, sizeof found);
        error_at(p, t->loc, "expected a statement, found %s", found);
        break;
    }
    }
    leave(p);
    return s;
}

static int starts_statement(w2_tok_kind k)
{
    return k == W2_TK_IDENT || k == W2_TK_FOR || k == W2_TK_WHILE || k == W2_TK_IF || k == W2_TK_BEGIN ||
           k == W2_TK_RECEIVE || k == W2_TK_SEND || k == W2_TK_CALL;
}

/* stmts := stmt {';' stmt}     -- ends before 'end' (or the end of file) */
static w2_stmt *stmts(parser *p)
{
    w2_stmt head = {0}, *tail = &head;
    for (;;) {
        p->region = p->tok->loc;
        w2_stmt *s = stmt(p);
        if (p->panic) synchronize(p);
        if (s) {
            tail->next = s;
            tail = s;
        }
        if (consume(p, W2_TK_SEMI)) continue;
        if (at(p, W2_TK_END) || at(p, W2_TK_EOF)) break;
        char found[96];
        w2_tok_describe(p->tok, found, sizeof found);
        if (at(p, W2_TK_ELSE)) {
            error_at(p, p->tok->loc, "'else' without a matching 'if' (no ';' may stand before 'else')");
            advance(p);
            synchronize(p);
        } else if (starts_statement(p->tok->kind)) {
            /* Most likely a forgotten ';': go on as if it were there. */
            error_at(p, missing_loc(p), "expected ';' between statements, found %s", found);
            p->panic = 0;
        } else if (at(p, W2_TK_RPAREN)) {
            error_at(p, p->tok->loc, "unmatched ')': no '(' is open here");
            advance(p);
            synchronize(p);
        } else {
            error_at(p, p->tok->loc, "expected ';' or 'end' after the statement, found %s", found);
            advance(p);
            synchronize(p);
        }
        consume(p, W2_TK_SEMI);
    }
    return head.next;
}

/* funcdef := 'function' NAME 'begin' {decl} stmts 'end' [';']
 * The optional ';' is left to the caller: among statements it is a separator. */
static w2_func *funcdef(parser *p)
{
    p->region = p->tok->loc;
    w2_token *kw = advance(p);
    w2_func *f = new_node(p, sizeof *f);
    f->loc = kw->loc;
    w2_token *name = expect_ident(p, "a function name");
    if (name) {
        f->name = ident_text(p, name);
        f->loc = name->loc;
    }
    f->begin_loc = p->tok->loc;
    if (!p->panic) expect(p, W2_TK_BEGIN, "after the function name");
    if (p->panic) {
        /* A forgotten 'begin' before the body: take the body as it stands, up to
         * its 'end'. Otherwise resume at a body nearby, else at the next ';'. */
        w2_tok_kind k = p->tok->kind;
        int body_here = name && (k == W2_TK_INT || k == W2_TK_FLOAT || unknown_type_decl(p) ||
                                 (starts_statement(k) && k != W2_TK_BEGIN));
        if (!body_here)
            while (!at(p, W2_TK_BEGIN) && !at(p, W2_TK_SEMI) && !at(p, W2_TK_EOF) && !at(p, W2_TK_END)) advance(p);
        p->panic = 0;
        if (!body_here && !consume(p, W2_TK_BEGIN)) return NULL;
    }
    w2_var **tail = &f->locals;
    for (;;) {
        if (at(p, W2_TK_FLOAT) || at(p, W2_TK_INT)) decl(p, W2_VAR_LOCAL, &tail, 1);
        else if (unknown_type_decl(p)) unknown_type(p);
        else break;
    }
    int outer = p->in_func;
    p->in_func = 1;
    f->body = stmts(p);
    p->in_func = outer;
    f->end_loc = p->tok->loc;
    missing_end(p, "to close the function body", kw->loc, "the function begins here");
    return f->name ? f : NULL;
}

/* ---- Program --------------------------------------------------------------------- */

/* param := NAME ('in' | 'out') */
static w2_param *param(parser *p)
{
    w2_token *name = expect_ident(p, "a parameter name");
    if (!name) return NULL;
    w2_param *pa = new_node(p, sizeof *pa);
    pa->name = ident_text(p, name);
    pa->loc = name->loc;
    if (consume(p, W2_TK_OUT)) {
        pa->is_out = 1;
    } else if (!consume(p, W2_TK_IN)) {
        char found[96];
        w2_tok_describe(p->tok, found, sizeof found);
        error_at(p, p->tok->loc, "expected 'in' or 'out' after parameter '%s', found %s", pa->name, found);
    }
    return pa;
}

/* The second dimension of a 2-D cellprogram: ',' NAME ':' INT ':' INT, the rows. */
static void cellprog_y(parser *p, w2_program *prog)
{
    advance(p);
    p->two_d = 1;
    w2_token *id = expect_ident(p, "the name of the second cell-id variable");
    if (id) {
        w2_var *v = new_node(p, sizeof *v);
        v->name = ident_text(p, id);
        v->loc = id->loc;
        v->kind = W2_VAR_CELLID;
        v->type = W2_TY_INT;
        prog->cellid_y = v;
    }
    w2_token *first = NULL, *last = NULL;
    if (!p->panic && expect(p, W2_TK_COLON, "after the second cell-id variable"))
        first = expect(p, W2_TK_INTLIT, "as the first row number");
    if (!p->panic && expect(p, W2_TK_COLON, "after the first row number"))
        last = expect(p, W2_TK_INTLIT, "as the last row number");
    if (first && last) {
        prog->first_y = first->ival > INT32_MAX ? INT32_MAX + 1LL : (int64_t)first->ival;
        prog->last_y = last->ival > INT32_MAX ? INT32_MAX + 1LL : (int64_t)last->ival;
        prog->first_y_loc = first->loc;
        prog->last_y_loc = last->loc;
    }
}

/* cellprog := 'cellprogram' '(' NAME ':' INT ':' INT [',' NAME ':' INT ':' INT] ')' 'begin'
 *             {funcdef | decl} stmts 'end' */
static void cellprog(parser *p, w2_program *prog)
{
    p->region = p->tok->loc;
    w2_token *kw = advance(p);
    prog->cell_loc = kw->loc;
    if (expect(p, W2_TK_LPAREN, "after 'cellprogram'")) {
        w2_token *id = expect_ident(p, "the name of the cell-id variable");
        if (id) {
            w2_var *v = new_node(p, sizeof *v);
            v->name = ident_text(p, id);
            v->loc = id->loc;
            v->kind = W2_VAR_CELLID;
            v->type = W2_TY_INT;
            prog->cellid = v;
        }
        w2_token *first = NULL, *last = NULL;
        if (!p->panic && expect(p, W2_TK_COLON, "after the cell-id variable"))
            first = expect(p, W2_TK_INTLIT, "as the first cell number");
        if (!p->panic && expect(p, W2_TK_COLON, "after the first cell number"))
            last = expect(p, W2_TK_INTLIT, "as the last cell number");
        if (first && last) {
            prog->first = first->ival > INT32_MAX ? INT32_MAX + 1LL : (int64_t)first->ival;
            prog->last = last->ival > INT32_MAX ? INT32_MAX + 1LL : (int64_t)last->ival;
            prog->first_loc = first->loc;
            prog->last_loc = last->loc;
        }
        int two_d = !p->panic && at(p, W2_TK_COMMA);
        if (two_d) cellprog_y(p, prog);
        if (!p->panic && two_d && at(p, W2_TK_COMMA))
            error_at(p, p->tok->loc, "a cellprogram has one or two cell-id variables: the iWarp torus is 2-D");
        if (!p->panic) expect(p, W2_TK_RPAREN, two_d ? "after the last row number" : "after the last cell number");
    }
    if (p->panic) {
        while (!at(p, W2_TK_BEGIN) && !at(p, W2_TK_EOF)) advance(p);
        p->panic = 0;
    }
    prog->begin_loc = p->tok->loc;
    if (!expect(p, W2_TK_BEGIN, "to start the cellprogram body")) return;

    w2_item **tail = &prog->items;
    w2_conset **set_tail = &prog->consets;
    for (;;) {
        if (is_phase_decl(p->tok)) {
            conset_decl(p, prog, &set_tail);
        } else if (at(p, W2_TK_FUNCTION)) {
            w2_func *f = funcdef(p);
            consume(p, W2_TK_SEMI);
            if (f) {
                w2_item *it = new_node(p, sizeof *it);
                it->func = f;
                *tail = it;
                tail = &it->next;
            }
        } else if (unknown_type_decl(p)) {
            unknown_type(p);
        } else if (at(p, W2_TK_FLOAT) || at(p, W2_TK_INT)) {
            w2_var *vars = NULL, **vtail = &vars;
            decl(p, W2_VAR_GLOBAL, &vtail, 1);
            for (w2_var *v = vars; v; v = v->next) {
                w2_item *it = new_node(p, sizeof *it);
                it->var = v;
                *tail = it;
                tail = &it->next;
            }
        } else {
            break;
        }
    }
    prog->body = stmts(p);
    prog->end_loc = p->tok->loc;
    if (!missing_end(p, "to close the cellprogram", kw->loc, "the cellprogram begins here")) return;
    if (at(p, W2_TK_END)) {
        /* Most likely a block whose 'begin' is missing ('do' without 'begin'
         * before several statements): its 'end' closed the cellprogram early. */
        error_at(p, p->tok->loc, "'end' without a matching 'begin'");
        if (p->shown) w2_note(p->c, p->tok[-1].loc, "the cellprogram's 'begin' is matched by this 'end'");
    } else if (!at(p, W2_TK_EOF)) {
        char found[96];
        w2_tok_describe(p->tok, found, sizeof found);
        error_at(p, p->tok->loc, "expected end of file after the cellprogram's 'end', found %s", found);
    }
}

/* program := 'module' NAME '(' param {',' param} ')' {hostdecl} cellprog
 * hostdecl := type item {',' item} ';' */
static w2_program *program(parser *p)
{
    w2_program *prog = new_node(p, sizeof *prog);
    prog->loc = p->tok->loc;
    if (expect(p, W2_TK_MODULE, "at the start of the program")) {
        w2_token *name = expect_ident(p, "the module name");
        if (name) {
            prog->name = ident_text(p, name);
            prog->loc = name->loc;
        }
        if (!p->panic && expect(p, W2_TK_LPAREN, "after the module name")) {
            w2_param **tail = &prog->params;
            do {
                w2_param *pa = param(p);
                if (pa) {
                    *tail = pa;
                    tail = &pa->next;
                }
            } while (!p->panic && consume(p, W2_TK_COMMA));
            if (!p->panic) expect(p, W2_TK_RPAREN, "after the module parameters");
        }
    }
    if (p->panic) {
        while (!at(p, W2_TK_FLOAT) && !at(p, W2_TK_INT) && !at(p, W2_TK_CELLPROGRAM) && !at(p, W2_TK_EOF))
            advance(p);
        p->panic = 0;
    }
    w2_var **tail = &prog->host_vars;
    for (;;) {
        if (at(p, W2_TK_FLOAT) || at(p, W2_TK_INT)) decl(p, W2_VAR_HOST, &tail, 1);
        else if (unknown_type_decl(p)) unknown_type(p);
        else break;
    }
    if (!at(p, W2_TK_CELLPROGRAM)) {
        char found[96];
        w2_tok_describe(p->tok, found, sizeof found);
        error_at(p, p->tok->loc, "expected a host declaration or 'cellprogram', found %s", found);
        while (!at(p, W2_TK_CELLPROGRAM) && !at(p, W2_TK_EOF)) advance(p);
        p->panic = 0;
        if (at(p, W2_TK_EOF)) return prog;
    }
    cellprog(p, prog);
    return prog;
}

w2_program *w2_parse(w2_ctx *c, w2_token *tokens)
{
    parser p = {.c = c, .tok = tokens, .first = tokens};
    return program(&p);
}
