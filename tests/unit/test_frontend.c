/* Unit tests of the W2 frontend's lexer, parser and checks: good programs are
 * accepted, and each kind of error is reported with its message at the right
 * line and column (diagnostics captured through ws_diag.out). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "w2_frontend.h"
#include "w2_internal.h"
#include "warp_support.h"

/* ---- Helpers --------------------------------------------------------------------- */

static const char poly_src[] =
    "/* Polynomial evaluation. */\n"
    "module polynomial (data in, coeffs in, results out)\n"
    "float data[100], coeffs[10];\n"
    "float results[100];\n"
    "\n"
    "cellprogram (cid : 0 : 9)\n"
    "begin\n"
    "  function poly\n"
    "  begin\n"
    "    float coeff, temp, xin, yin, ans;\n"
    "    int i;\n"
    "\n"
    "    receive (L, X, coeff, coeffs[0]);\n"
    "    for i := 1 to 9 do begin\n"
    "      receive (L, X, temp, coeffs[i]);\n"
    "      send (R, X, temp);\n"
    "    end;\n"
    "    send (R, X, 0.0);\n"
    "\n"
    "    for i := 0 to 99 do begin\n"
    "      receive (L, X, xin, data[i]);\n"
    "      receive (L, Y, yin, 0.0);\n"
    "      send (R, X, xin);\n"
    "      ans := coeff + yin * xin;\n"
    "      send (R, Y, ans, results[i]);\n"
    "    end;\n"
    "  end\n"
    "\n"
    "  call poly;\n"
    "end\n";

typedef struct result {
    char *text;             /* everything written to the diagnostic stream */
    int errors, warnings;
    int ok;                 /* w2_compile returned a module */
} result;

static result compile_opts(const char *src, int werror)
{
    result r = {0};
    size_t len = 0;
    FILE *f = open_memstream(&r.text, &len);
    ws_diag d;
    ws_diag_init(&d, "t.w2", src, strlen(src));
    d.out = f;
    w2_options opts = {.werror = werror};
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = w2_compile("t.w2", src, strlen(src), &opts, ctx, &d);
    fclose(f);
    r.errors = d.errors;
    r.warnings = d.warnings;
    r.ok = m != NULL;
    if (m) LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    return r;
}

static result compile(const char *src) { return compile_opts(src, 0); }

/* A program with the given cell-global declarations and body, line 5 onward:
 *   1 module m (hin in, hout out, hn in, hm out)
 *   2 float hin[10], hout[10];
 *   3 int hn, hm;
 *   4 cellprogram (cid : 0 : 3)
 *   5 begin
 *   6 ... */
static char *program(const char *body)
{
    const char *head = "module m (hin in, hout out, hn in, hm out)\n"
                       "float hin[10], hout[10];\n"
                       "int hn, hm;\n"
                       "cellprogram (cid : 0 : 3)\n"
                       "begin\n";
    char *s = malloc(strlen(head) + strlen(body) + 8);
    sprintf(s, "%s%s\nend\n", head, body);
    return s;
}

/* Compiles and checks that `expect` (e.g. "t.w2:6:3: error: use of undeclared")
 * is in the diagnostics and that compilation failed. */
static void expect_error(const char *body, const char *expect)
{
    char *src = program(body);
    result r = compile(src);
    if (!strstr(r.text, expect)) fail_msg("expected \"%s\" in:\n%s", expect, r.text);
    assert_false(r.ok);
    assert_true(r.errors > 0);
    free(r.text);
    free(src);
}

static void expect_clean(const char *body)
{
    char *src = program(body);
    result r = compile(src);
    if (!r.ok || r.errors || r.warnings) fail_msg("expected a clean compile, got:\n%s", r.text);
    free(r.text);
    free(src);
}

/* ---- Lexer ----------------------------------------------------------------------- */

typedef struct lexed {
    w2_ctx c;
    ws_diag d;
    w2_token *toks;
    size_t n;
    char *out;
    size_t outlen;
    FILE *f;
} lexed;

static void lex(lexed *lx, const char *src)
{
    memset(lx, 0, sizeof *lx);
    ws_diag_init(&lx->d, "t.w2", src, strlen(src));
    lx->f = open_memstream(&lx->out, &lx->outlen);
    lx->d.out = lx->f;
    static const w2_options opts = {0};
    lx->c = (w2_ctx){.path = "t.w2", .text = src, .len = strlen(src), .opts = &opts, .diag = &lx->d};
    lx->toks = w2_lex(&lx->c, &lx->n);
    w2_flush_lexical(&lx->c, (w2_loc){1 << 30, 1 << 30});
    fflush(lx->f);
}

static void lex_free(lexed *lx)
{
    fclose(lx->f);
    free(lx->out);
    free(lx->toks);
    free(lx->c.pending);
    ws_arena_free(&lx->c.arena);
}

static void test_lex_kinds_and_positions(void **state)
{
    (void)state;
    lexed lx;
    lex(&lx, "module foo_1 X\n  := <= <> >= < > = ( ) [ ] , ; : + - * / mod downto");
    w2_tok_kind want[] = {W2_TK_MODULE, W2_TK_IDENT, W2_TK_IDENT, W2_TK_ASSIGN, W2_TK_LE, W2_TK_NE, W2_TK_GE,
                          W2_TK_LT, W2_TK_GT, W2_TK_EQ, W2_TK_LPAREN, W2_TK_RPAREN, W2_TK_LBRACKET,
                          W2_TK_RBRACKET, W2_TK_COMMA, W2_TK_SEMI, W2_TK_COLON, W2_TK_PLUS, W2_TK_MINUS,
                          W2_TK_STAR, W2_TK_SLASH, W2_TK_MOD, W2_TK_DOWNTO, W2_TK_EOF};
    assert_int_equal(lx.n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < lx.n; i++) assert_int_equal(lx.toks[i].kind, want[i]);
    assert_int_equal(lx.toks[1].loc.line, 1);
    assert_int_equal(lx.toks[1].loc.col, 8);
    assert_int_equal(lx.toks[1].len, 5);
    assert_int_equal(lx.toks[3].loc.line, 2);
    assert_int_equal(lx.toks[3].loc.col, 3);
    assert_int_equal(lx.d.errors, 0);
    lex_free(&lx);
}

static void test_lex_keywords_are_case_sensitive(void **state)
{
    (void)state;
    lexed lx;
    lex(&lx, "Begin begin BEGIN");
    assert_int_equal(lx.toks[0].kind, W2_TK_IDENT);
    assert_int_equal(lx.toks[1].kind, W2_TK_BEGIN);
    assert_int_equal(lx.toks[2].kind, W2_TK_IDENT);
    lex_free(&lx);
}

static void test_lex_numbers(void **state)
{
    (void)state;
    lexed lx;
    lex(&lx, "42 1.5 0.0 2.5e-3 1e4 2147483648 99999999999999999999999 1E+2");
    assert_int_equal(lx.toks[0].kind, W2_TK_INTLIT);
    assert_int_equal(lx.toks[0].ival, 42);
    assert_int_equal(lx.toks[1].kind, W2_TK_FLOATLIT);
    assert_true(lx.toks[1].fval == 1.5f);
    assert_true(lx.toks[2].fval == 0.0f);
    assert_true(lx.toks[3].fval == 2.5e-3f);
    assert_int_equal(lx.toks[4].kind, W2_TK_FLOATLIT);
    assert_true(lx.toks[4].fval == 1e4f);
    assert_int_equal(lx.toks[5].ival, 2147483648u);
    assert_true(lx.toks[6].ival == UINT64_MAX);
    assert_true(lx.toks[7].fval == 100.0f);
    assert_int_equal(lx.d.errors, 0);
    lex_free(&lx);
}

static void test_lex_float_range_is_recorded(void **state)
{
    (void)state;
    lexed lx;
    lex(&lx, "1e39 1e-60 1e-40");
    assert_int_equal(lx.toks[0].range, W2_RANGE_OVERFLOW);
    assert_int_equal(lx.toks[1].range, W2_RANGE_UNDERFLOW);
    /* A denormal is representable: no complaint. */
    assert_int_equal(lx.toks[2].range, W2_RANGE_OK);
    lex_free(&lx);
}

static void test_lex_comments_span_lines(void **state)
{
    (void)state;
    lexed lx;
    lex(&lx, "a /* one\n two * / ** */ b\n/**/c");
    assert_int_equal(lx.n, 4);
    assert_int_equal(lx.toks[1].loc.line, 2);
    assert_int_equal(lx.toks[1].loc.col, 16);
    assert_int_equal(lx.toks[2].loc.line, 3);
    assert_int_equal(lx.toks[2].loc.col, 5);
    lex_free(&lx);
}

static void test_lex_errors(void **state)
{
    (void)state;
    lexed lx;
    lex(&lx, "a $ b\n_x .5 1e+ 2abc\n/* open");
    assert_non_null(strstr(lx.out, "t.w2:1:3: error: invalid character '$'"));
    assert_non_null(strstr(lx.out, "t.w2:2:1: error: identifiers must start with a letter"));
    assert_non_null(strstr(lx.out, "t.w2:2:4: error: a float literal needs a digit before '.'"));
    assert_non_null(strstr(lx.out, "t.w2:2:8: error: exponent of number '1e+' has no digits"));
    assert_non_null(strstr(lx.out, "t.w2:2:12: error: invalid suffix 'abc' on number"));
    assert_non_null(strstr(lx.out, "t.w2:3:1: error: unterminated comment"));
    /* Errors come out in source order. */
    assert_true(strstr(lx.out, "t.w2:1:3:") < strstr(lx.out, "t.w2:2:1:"));
    assert_int_equal(lx.d.errors, 6);
    lex_free(&lx);
}

static void test_lex_nul_and_high_bytes(void **state)
{
    (void)state;
    const char src[] = "a \x01 \xff b";
    lexed lx;
    lex(&lx, src);
    assert_non_null(strstr(lx.out, "invalid character '\\x01'"));
    assert_non_null(strstr(lx.out, "invalid character '\\xff'"));
    assert_int_equal(lx.n, 3);
    lex_free(&lx);
}

/* ---- Parser ---------------------------------------------------------------------- */

typedef struct parsed {
    lexed lx;
    w2_program *prog;
} parsed;

static void parse(parsed *p, const char *src)
{
    lex(&p->lx, src);
    p->prog = w2_parse(&p->lx.c, p->lx.toks);
    fflush(p->lx.f);
}

static void test_parse_polynomial_tree(void **state)
{
    (void)state;
    parsed p;
    parse(&p, poly_src);
    assert_int_equal(p.lx.d.errors, 0);
    w2_program *prog = p.prog;
    assert_string_equal(prog->name, "polynomial");
    w2_param *pa = prog->params;
    assert_string_equal(pa->name, "data");
    assert_false(pa->is_out);
    assert_string_equal(pa->next->name, "coeffs");
    assert_true(pa->next->next->is_out);
    assert_null(pa->next->next->next);
    w2_var *hv = prog->host_vars;
    assert_string_equal(hv->name, "data");
    assert_int_equal(hv->ndims, 1);
    assert_int_equal(hv->dims[0], 100);
    assert_int_equal(hv->type, W2_TY_FLOAT);
    assert_string_equal(prog->cellid->name, "cid");
    assert_int_equal(prog->first, 0);
    assert_int_equal(prog->last, 9);
    w2_func *f = prog->items->func;
    assert_non_null(f);
    assert_string_equal(f->name, "poly");
    assert_int_equal(f->loc.line, 8);
    assert_int_equal(f->loc.col, 12);
    int nlocals = 0;
    for (w2_var *v = f->locals; v; v = v->next) nlocals++;
    assert_int_equal(nlocals, 6);
    w2_stmt *s = f->body;
    assert_int_equal(s->kind, W2_ST_RECEIVE);
    assert_int_equal(s->dir, W2_DIR_L);
    assert_int_equal(s->chan, W2_CHAN_X);
    assert_string_equal(s->lhs->name, "coeff");
    assert_string_equal(s->ext->name, "coeffs");
    assert_int_equal(s->ext->nindex, 1);
    s = s->next;
    assert_int_equal(s->kind, W2_ST_FOR);
    assert_false(s->downto);
    assert_int_equal(s->body->kind, W2_ST_BLOCK);
    assert_int_equal(s->body->body->next->kind, W2_ST_SEND);
    assert_null(s->body->body->next->ext);
    s = s->next;
    assert_int_equal(s->kind, W2_ST_SEND);
    assert_int_equal(s->rhs->kind, W2_EX_FLOATLIT);
    s = s->next;
    assert_int_equal(s->kind, W2_ST_FOR);
    w2_stmt *last = s->body->body->next->next->next->next;
    assert_int_equal(last->kind, W2_ST_SEND);
    assert_int_equal(last->dir, W2_DIR_R);
    assert_int_equal(last->chan, W2_CHAN_Y);
    assert_null(s->next);
    assert_int_equal(prog->body->kind, W2_ST_CALL);
    assert_string_equal(prog->body->callee, "poly");
    lex_free(&p.lx);
}

/* The statement `x := EXPR` of a tiny program, parsed. */
static w2_expr *parse_expr(parsed *p, const char *expr)
{
    char src[512];
    snprintf(src, sizeof src, "module m (h in) int h; cellprogram (c : 0 : 0) begin x := %s end", expr);
    parse(p, src);
    assert_int_equal(p->lx.d.errors, 0);
    return p->prog->body->rhs;
}

static void test_parse_precedence(void **state)
{
    (void)state;
    parsed p;
    /* -a * b + c mod d  ==  ((-a) * b) + (c mod d) */
    w2_expr *e = parse_expr(&p, "-a * b + c mod d");
    assert_int_equal(e->op, W2_OP_ADD);
    assert_int_equal(e->lhs->op, W2_OP_MUL);
    assert_int_equal(e->lhs->lhs->kind, W2_EX_NEG);
    assert_int_equal(e->rhs->op, W2_OP_MOD);
    lex_free(&p.lx);

    /* not a < b and c = d or e > f  ==  ((not (a < b)) and (c = d)) or (e > f) */
    e = parse_expr(&p, "not a < b and c = d or e > f");
    assert_int_equal(e->op, W2_OP_OR);
    assert_int_equal(e->lhs->op, W2_OP_AND);
    assert_int_equal(e->lhs->lhs->kind, W2_EX_NOT);
    assert_int_equal(e->lhs->lhs->lhs->op, W2_OP_LT);
    assert_int_equal(e->lhs->rhs->op, W2_OP_EQ);
    assert_int_equal(e->rhs->op, W2_OP_GT);
    lex_free(&p.lx);

    /* a - b - c is left-associative; a subscript and parentheses nest. */
    e = parse_expr(&p, "a - b - (c - v[i + 1][2])");
    assert_int_equal(e->op, W2_OP_SUB);
    assert_int_equal(e->lhs->op, W2_OP_SUB);
    assert_int_equal(e->rhs->rhs->kind, W2_EX_VAR);
    assert_int_equal(e->rhs->rhs->nindex, 2);
    assert_int_equal(e->rhs->rhs->index[0]->op, W2_OP_ADD);
    lex_free(&p.lx);

    e = parse_expr(&p, "int(f) + float(3)");
    assert_int_equal(e->lhs->kind, W2_EX_TOINT);
    assert_int_equal(e->rhs->kind, W2_EX_TOFLOAT);
    lex_free(&p.lx);

    e = parse_expr(&p, "-2147483648");
    assert_int_equal(e->kind, W2_EX_INTLIT);
    assert_int_equal(e->ival, INT32_MIN);
    lex_free(&p.lx);
}

static void test_parse_else_binds_nearest_if(void **state)
{
    (void)state;
    parsed p;
    parse(&p, "module m (h in) int h; cellprogram (c : 0 : 0) begin int a;\n"
              "if a < 1 then if a < 2 then a := 1 else a := 2; ; a := 3; end");
    assert_int_equal(p.lx.d.errors, 0);
    w2_stmt *outer = p.prog->body;
    assert_int_equal(outer->kind, W2_ST_IF);
    assert_null(outer->els);
    assert_int_equal(outer->body->kind, W2_ST_IF);
    assert_non_null(outer->body->els);
    /* Empty statements vanish; the ';' before 'end' is harmless. */
    assert_int_equal(outer->next->kind, W2_ST_ASSIGN);
    assert_null(outer->next->next);
    lex_free(&p.lx);
}

static void test_parse_declarations(void **state)
{
    (void)state;
    parsed p;
    parse(&p, "module m (h in) int h[3][4]; cellprogram (c : 2 : 5) begin\n"
              "float a, b[7]; int g[2][3]; function f begin int l; l := 1 end; function k begin end\n"
              "call f end");
    assert_int_equal(p.lx.d.errors, 0);
    assert_int_equal(p.prog->host_vars->ndims, 2);
    assert_int_equal(p.prog->host_vars->dims[1], 4);
    assert_int_equal(p.prog->first, 2);
    assert_int_equal(p.prog->last, 5);
    w2_item *it = p.prog->items;
    assert_string_equal(it->var->name, "a");
    assert_int_equal(it->next->var->dims[0], 7);
    assert_int_equal(it->next->next->var->type, W2_TY_INT);
    assert_string_equal(it->next->next->next->func->name, "f");
    assert_string_equal(it->next->next->next->next->func->name, "k");
    assert_null(it->next->next->next->next->func->body);
    lex_free(&p.lx);
}

static void test_parse_errors_recover(void **state)
{
    (void)state;
    result r = compile("module m (a in, b out)\n"
                       "float a[10], b[10];\n"
                       "cellprogram (cid : 0 : 9)\n"
                       "begin\n"
                       "  float x, y;\n"
                       "  int i;\n"
                       "  function f\n"
                       "  begin\n"
                       "    x = 1.0;\n"
                       "    y := x +;\n"
                       "    if x < y then x := 1.0; else y := 2.0;\n"
                       "    for i := 0 to 9 begin x := x end;\n"
                       "    receive (L, Q, x, a[0]);\n"
                       "    send (R, X, x, b[i]\n"
                       "  end;\n"
                       "  x := 1.0\n"
                       "  y := 2.0;\n"
                       "  float z;\n"
                       "  i := (1 + 2;\n"
                       "  send (Up, X, 1);\n"
                       "end\n");
    const char *want[] = {
        "t.w2:9:7: error: expected ':=' after 'x' (assignment is written ':='), found '='",
        "t.w2:10:13: error: expected an expression, found ';'",
        "t.w2:11:29: error: 'else' without a matching 'if' (no ';' may stand before 'else')",
        "t.w2:12:21: error: expected 'do' after the last bound, found keyword 'begin'",
        "t.w2:13:17: error: expected channel 'X' or 'Y', found identifier 'Q'",
        /* A missing token that belongs at the end of a line is shown there. */
        "t.w2:14:24: error: expected ')' to close 'send', found keyword 'end'",
        "t.w2:16:11: error: expected ';' between statements, found identifier 'y'",
        "t.w2:18:3: error: declarations must come before the first statement",
        "t.w2:19:14: error: expected ')' to close the '(', found ';'",
        "t.w2:20:9: error: expected direction 'L' or 'R', found identifier 'Up'",
    };
    const char *at = r.text;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *hit = strstr(at, want[i]);
        if (!hit) fail_msg("expected \"%s\" (in order) in:\n%s", want[i], r.text);
        at = hit;
    }
    assert_int_equal(r.errors, 10);
    assert_false(r.ok);
    free(r.text);
}

static void test_parse_error_shows_line_and_caret(void **state)
{
    (void)state;
    result r = compile("module m (a in)\nfloat a;\ncellprogram (c : 0 : 1)\nbegin\n  x := 1 +* 2\nend\n");
    assert_string_equal(r.text, "t.w2:5:11: error: expected an expression, found '*'\n"
                                "  x := 1 +* 2\n"
                                "          ^\n");
    free(r.text);
}

static void test_parse_truncated_file_one_error(void **state)
{
    (void)state;
    result r = compile("module m (a in\n");
    assert_string_equal(r.text, "t.w2:1:15: error: expected ')' after the module parameters, found end of file\n"
                                "module m (a in\n"
                                "              ^\n");
    free(r.text);
    r = compile("module m (a in)\nfloat a;\ncellprogram (c : 0 : 1)\nbegin\n  begin\n    c := 1\n");
    assert_non_null(strstr(r.text, "t.w2:6:11: error: expected 'end' to close the block, found end of file"));
    assert_non_null(strstr(r.text, "t.w2:5:3: note: the block begins here"));
    assert_int_equal(r.errors, 1);
    free(r.text);
    r = compile("");
    assert_non_null(strstr(r.text, "t.w2:1:1: error: expected 'module' at the start of the program, found end of file"));
    assert_int_equal(r.errors, 1);
    free(r.text);
}

static void test_parse_misc_syntax_errors(void **state)
{
    (void)state;
    expect_error("  int x;\n  x := 1 < 2 < 3", "t.w2:7:14: error: comparisons do not chain");
    expect_error("  int x;\n  x := (x", "t.w2:7:10: error: expected ')' to close the '(', found keyword 'end'");
    expect_error("  int x[0];", "t.w2:6:9: error: array size must be at least 1");
    expect_error("  int x[2][3][4];", "t.w2:6:14: error: 'x' has more than 2 dimensions");
    expect_error("  int begin;", "t.w2:6:7: error: expected a variable name, found keyword 'begin' (a reserved word)");
    expect_error("  int x;\n  x := 1;\n  function f begin end",
                 "t.w2:8:3: error: functions must be defined before the first statement");
    expect_error("  function f begin\n    function g begin end\n  end", "t.w2:7:5: error: functions cannot be nested");
    expect_error("  int x;\n  x := int 3", "t.w2:7:12: error: expected '(' after 'int' (a conversion is written int(e))");
    expect_error("  int x;\n  x := 1\nend\nx", "t.w2:9:1: error: expected end of file after the cellprogram's 'end'");
    expect_error("  for := 1 to 2 do ;", "t.w2:6:7: error: expected a loop variable after 'for', found ':='");
    expect_error("  int x[2147483647][2];", "t.w2:6:7: error: array 'x' is too large");
}

static void test_nesting_limits(void **state)
{
    (void)state;
    size_t n = 100000;
    char *body = malloc(4 * n + 64);
    char *p = body + sprintf(body, "  int x;\n  x := ");
    for (size_t i = 0; i < n; i++) *p++ = '(';
    *p++ = '1';
    for (size_t i = 0; i < n; i++) *p++ = ')';
    *p = 0;
    expect_error(body, "error: nesting is too deep (more than 256 levels)");

    p = body + sprintf(body, "  int x;\n  ");
    for (size_t i = 0; i < n / 8; i++) p += sprintf(p, "begin ");
    p += sprintf(p, "x := 1");
    for (size_t i = 0; i < n / 8; i++) p += sprintf(p, " end");
    expect_error(body, "error: nesting is too deep (more than 256 levels)");

    p = body + sprintf(body, "  int x;\n  x := ");
    for (size_t i = 0; i < n / 2; i++) p += sprintf(p, "- ");
    p += sprintf(p, "1");
    expect_error(body, "error: nesting is too deep (more than 256 levels)");

    /* A long flat chain is not nesting, but its tree is deep: bounded too. */
    p = body + sprintf(body, "  int x;\n  x := 1");
    for (size_t i = 0; i < n / 4; i++) p += sprintf(p, "+x");
    expect_error(body, "error: expression is too deeply nested (more than 4096 levels of operators)");

    /* Within the limits, it compiles. */
    p = body + sprintf(body, "  int x;\n  x := 1");
    for (size_t i = 0; i < 4000; i++) p += sprintf(p, "+x");
    p += sprintf(p, ";\n  x := ");
    for (size_t i = 0; i < 200; i++) *p++ = '(';
    *p++ = 'x';
    for (size_t i = 0; i < 200; i++) *p++ = ')';
    *p = 0;
    expect_clean(body);
    free(body);
}

static void test_error_cap(void **state)
{
    (void)state;
    char body[4096];
    char *p = body;
    for (int i = 0; i < 40; i++) p += sprintf(p, "  u%d := 1;\n", i);
    char *src = program(body);
    result r = compile(src);
    assert_int_equal(r.errors, 40);
    assert_non_null(strstr(r.text, "t.w2:25:3: error: use of undeclared identifier 'u19'"));
    assert_null(strstr(r.text, "'u20'"));
    assert_non_null(strstr(r.text, "too many errors emitted"));
    free(r.text);
    free(src);
}

/* ---- Checks ---------------------------------------------------------------------- */

static void test_good_programs_accepted(void **state)
{
    (void)state;
    result r = compile(poly_src);
    if (!r.ok || r.errors || r.warnings) fail_msg("%s", r.text);
    free(r.text);
    expect_clean("  int i, k, g, arr[5];\n"
                 "  float f, fa[2][3];\n"
                 "  function init\n"
                 "  begin\n"
                 "    int j;\n"
                 "    for j := 0 to 4 do arr[j] := j * 2;\n"
                 "    g := 7\n"
                 "  end;\n"
                 "  function twice begin call init; call init end\n"
                 "  call twice;\n"
                 "  for k := 5 downto 1 do\n"
                 "    if k mod 2 = 0 then f := f + k / 2 else f := f - float(k);\n"
                 "  while g > 0 and not (g = 3) or f <> 1.0 do g := g - 1;\n"
                 "  receive (R, Y, k, hn);\n"
                 "  receive (R, Y, f, hin[cid + hn]);\n"
                 "  receive (L, X, f, 3);\n"
                 "  receive (L, Y, fa[1][2]);\n"
                 "  f := -f * 2.5e-3 + 1e4 + i;\n"
                 "  k := int(f) + -2147483648 - cid;\n"
                 "  send (L, Y, k, hm);\n"
                 "  send (R, X, float(k) / 3.0, hout[k mod 10]);\n"
                 "  send (R, Y, k);\n"
                 "  for i := cid to cid + 3 do send (R, X, i * 2, hm);\n"
                 "  begin end; ;");
    /* Locals may shadow globals, and names are case-sensitive. */
    expect_clean("  int x;\n  function f begin float x, X; x := 1.5; X := x end\n  x := 1; call f");
}

static void test_check_undeclared_and_redeclared(void **state)
{
    (void)state;
    expect_error("  int x;\n  y := x", "t.w2:7:3: error: use of undeclared identifier 'y'");
    expect_error("  int x;\n  x := y + 1", "t.w2:7:8: error: use of undeclared identifier 'y'");
    expect_error("  int x;\n  float x;", "t.w2:7:9: error: redeclaration of 'x'");
    expect_error("  int x;\n  float x;", "t.w2:6:7: note: 'x' was first declared here");
    expect_error("  int cid;", "t.w2:6:7: error: redeclaration of 'cid'");
    expect_error("  int hin;", "t.w2:6:7: error: redeclaration of 'hin'");
    expect_error("  function f begin end;\n  function f begin end", "t.w2:7:12: error: redeclaration of 'f'");
    expect_error("  function f begin int a, a; end", "t.w2:6:27: error: redeclaration of 'a'");
    /* A global declared after a function is not visible inside it. */
    expect_error("  function f begin g := 1 end;\n  int g;", "t.w2:6:20: error: use of undeclared identifier 'g'");
    expect_error("  function f begin end;\n  f := 1", "t.w2:7:3: error: 'f' is a function, not a variable");
}

static void test_check_host_declarations(void **state)
{
    (void)state;
    result r = compile("module m (a in, b out, a out)\nfloat a, c;\nint a;\ncellprogram (c : 0 : 1)\nbegin end\n");
    assert_non_null(strstr(r.text, "t.w2:1:24: error: parameter 'a' appears twice in the header of module 'm'"));
    assert_non_null(strstr(r.text, "t.w2:2:10: error: 'c' is not a parameter of module 'm'"));
    assert_non_null(strstr(r.text, "t.w2:3:5: error: redeclaration of host variable 'a'"));
    assert_non_null(strstr(r.text, "t.w2:1:17: error: parameter 'b' of module 'm' is not declared"));
    assert_false(r.ok);
    free(r.text);
    r = compile("module m (main in)\nfloat main;\ncellprogram (c : 0 : 1)\nbegin end\n");
    assert_non_null(strstr(r.text, "t.w2:2:7: error: host variable cannot be named 'main'"));
    free(r.text);
    r = compile("module m (a in)\nfloat a;\ncellprogram (c : 5 : 2)\nbegin end\n");
    assert_non_null(strstr(r.text, "t.w2:3:18: error: first cell 5 is after the last cell 2"));
    free(r.text);
    r = compile("module m (a in)\nfloat a;\ncellprogram (c : 0 : 3000000000)\nbegin end\n");
    assert_non_null(strstr(r.text, "t.w2:3:22: error: cell number is too large"));
    free(r.text);
}

static void test_check_types(void **state)
{
    (void)state;
    expect_error("  int x;\n  x := 1.5",
                 "t.w2:7:8: error: cannot assign a float value to int variable 'x' without int(...)");
    expect_error("  int x; float f;\n  x := f * 2", "t.w2:7:8: error: cannot assign a float value to int variable 'x'");
    expect_clean("  int x; float f;\n  f := x; f := x + 1; x := int(f * 2.0); f := float(x) / 2");
    expect_error("  float f;\n  f := 1.0 mod 2",
                 "t.w2:7:8: error: 'mod' takes int operands, but its left operand is float");
    expect_error("  float f; int i;\n  i := i mod f",
                 "t.w2:7:14: error: 'mod' takes int operands, but its right operand is float");
    expect_error("  int x;\n  x := x[1]", "t.w2:7:8: error: 'x' is not an array, but it has a subscript");
    expect_error("  int a[3];\n  a := 1", "t.w2:7:3: error: array 'a' needs 1 subscript");
    expect_error("  int a[3][2];\n  a[1] := 1", "t.w2:7:3: error: 'a' has 2 dimensions but 1 subscript is given");
    expect_error("  int a[3];\n  a[1][2][0] := 1", "t.w2:7:3: error: 'a' has 1 dimension but 3 subscripts are given");
    expect_error("  int a[3]; float f;\n  a[f] := 1",
                 "t.w2:7:5: error: array subscript must be int, found float; convert it with int(...)");
    expect_error("  int x;\n  x := int(x < 1)", "t.w2:7:8: error: int(...) cannot convert a truth value");
}

static void test_check_truth_values(void **state)
{
    (void)state;
    expect_error("  int x;\n  if x then x := 1",
                 "t.w2:7:6: error: condition of 'if' must be a truth value, found int (compare it, e.g. '<> 0')");
    expect_error("  float f;\n  while f do f := 1.0",
                 "t.w2:7:9: error: condition of 'while' must be a truth value, found float");
    expect_error("  int x;\n  x := (x < 1) + 1",
                 "t.w2:7:9: error: operand of '+' is a truth value, not a number (truth values are usable only as conditions)");
    expect_error("  int x;\n  x := x < 1",
                 "t.w2:7:8: error: cannot assign a truth value to 'x' (truth values are usable only as conditions)");
    expect_error("  int x;\n  if x and x < 1 then x := 1", "t.w2:7:6: error: operand of 'and' must be a truth value, found int");
    expect_error("  int x;\n  if not x then x := 1", "t.w2:7:10: error: operand of 'not' must be a truth value, found int");
    expect_error("  int x;\n  send (R, X, x = 1)", "t.w2:7:15: error: sent value is a truth value, not a number");
    expect_error("  int x;\n  x := -(x < 1)", "t.w2:7:10: error: operand of '-' is a truth value");
    expect_error("  int x;\n  if (x < 1) = (x > 2) then x := 1", "t.w2:7:7: error: operand of '=' is a truth value");
}

static void test_check_literals(void **state)
{
    (void)state;
    expect_error("  int x;\n  x := 2147483648",
                 "t.w2:7:8: error: integer literal '2147483648' does not fit in a 32-bit int");
    expect_error("  int x;\n  x := -2147483649",
                 "t.w2:7:8: error: integer literal '-2147483649' does not fit in a 32-bit int");
    expect_error("  float f;\n  f := 3.5e38", "t.w2:7:8: error: float literal '3.5e38' is too large for float");
    expect_clean("  int x; float f;\n  x := -2147483648; x := 2147483647; f := 3.4e38");
    char *src = program("  float f;\n  f := 1e-50");
    result r = compile(src);
    assert_true(r.ok);
    assert_non_null(strstr(r.text, "t.w2:7:8: warning: float literal '1e-50' is too small for float and becomes 0"));
    free(r.text);
    r = compile_opts(src, 1);
    assert_false(r.ok);
    assert_non_null(strstr(r.text, "t.w2:7:8: error: float literal '1e-50'"));
    free(r.text);
    free(src);
}

static void test_check_constant_indices(void **state)
{
    (void)state;
    expect_error("  int a[10];\n  a[10] := 1",
                 "t.w2:7:5: error: index 10 is out of bounds for 'a' (valid indices are 0 to 9)");
    expect_error("  int a[10];\n  a[-1] := 1", "t.w2:7:5: error: index -1 is out of bounds for 'a'");
    expect_error("  int a[10];\n  a[2 * 5 - 1 + 1] := 1", "t.w2:7:5: error: index 10 is out of bounds for 'a'");
    expect_error("  int a[3][4];\n  a[2][4] := 1",
                 "t.w2:7:8: error: second index 4 is out of bounds for 'a' (valid indices are 0 to 3)");
    expect_error("  float f;\n  receive (L, X, f, hin[10])", "t.w2:7:25: error: index 10 is out of bounds for 'hin'");
    expect_clean("  int a[10], i;\n  a[9] := a[0]; a[i + 10] := 1");
}

static void test_check_assignments_to_read_only(void **state)
{
    (void)state;
    expect_error("  cid := 3",
                 "t.w2:6:3: error: cannot assign to 'cid': it is the cell-id variable, which is read-only");
    expect_error("  receive (L, X, cid)", "t.w2:6:18: error: cannot receive into 'cid'");
    expect_error("  int i;\n  for i := 1 to 3 do i := 2",
                 "t.w2:7:22: error: cannot assign to 'i' inside the for loop it controls");
    expect_error("  int i;\n  for i := 1 to 3 do i := 2", "t.w2:7:3: note: the loop over 'i' is here");
    expect_error("  int i;\n  for i := 1 to 3 do begin receive (L, X, i) end", "t.w2:7:43: error: cannot receive into 'i'");
    expect_error("  int i;\n  for i := 1 to 3 do for i := 1 to 2 do ;", "t.w2:7:26: error: cannot loop again over 'i'");
    expect_error("  int i;\n  function f begin i := 0 end;\n  function g begin call f end;\n"
                 "  for i := 1 to 3 do call g",
                 "t.w2:9:27: error: call to 'g' assigns 'i', the variable of an enclosing for loop");
    expect_error("  for cid := 1 to 3 do ;", "t.w2:6:7: error: 'cid' cannot be a loop variable");
    expect_error("  float f;\n  for f := 1 to 3 do ;", "t.w2:7:7: error: loop variable 'f' must be an int scalar, but it is float");
    expect_error("  int i;\n  for i := 1.0 to 3 do ;", "t.w2:7:12: error: bound of a for loop must be int, found float");
    /* After the loop the variable is free again. */
    expect_clean("  int i;\n  for i := 1 to 3 do ;\n  i := 5; for i := i to 7 do ;");
}

static void test_check_host_access(void **state)
{
    (void)state;
    expect_error("  float f;\n  f := hin[0]",
                 "t.w2:7:8: error: host variable 'hin' can be used only in the fourth argument of receive or send");
    expect_error("  hout[1] := 1.0",
                 "t.w2:6:3: error: cannot assign to host variable 'hout': host data is written only through the "
                 "fourth argument of send");
    expect_error("  send (R, X, hn)", "t.w2:6:15: error: host variable 'hn' can be used only in the fourth argument");
    expect_error("  float f;\n  send (R, X, f, f)", "t.w2:7:18: error: 'f' is not a host variable");
    expect_error("  float f;\n  send (R, X, f, 1)",
                 "t.w2:7:18: error: the fourth argument of send must be a host variable or host array element");
    expect_error("  float f;\n  send (R, X, f, hin[0])",
                 "t.w2:7:18: error: cannot store into 'hin': it is an 'in' parameter of module 'm'");
    expect_error("  int k;\n  send (R, X, k, hout[0])",
                 "t.w2:7:15: error: sent value is int but host variable 'hout' holds float; convert it with float(...)");
    expect_error("  int k;\n  receive (L, X, k, hin[0])",
                 "t.w2:7:21: error: fourth argument of receive is float but 'k' is int; convert it with int(...)");
    expect_error("  receive (L, X, hout[0])", "t.w2:6:18: error: cannot receive into host variable 'hout'");
    expect_clean("  int k; float f;\n  receive (L, X, k, int(hin[hn]) + k); receive (L, X, f, hn);\n"
                 "  send (R, Y, f, hout[hn + k]); send (R, X, k, hm)");
}

static void test_check_calls(void **state)
{
    (void)state;
    expect_error("  call nothere", "t.w2:6:8: error: call to undefined function 'nothere'");
    expect_error("  function f begin call g end;\n  function g begin end",
                 "t.w2:6:25: error: function 'g' is called before it is defined");
    expect_error("  function f begin call g end;\n  function g begin end",
                 "t.w2:7:12: note: 'g' is defined here; a function may call only functions defined before it");
    expect_error("  function f begin call f end",
                 "t.w2:6:25: error: function 'f' calls itself: recursion is not allowed");
    expect_error("  int v;\n  call v", "t.w2:7:8: error: 'v' is a variable, not a function");
}

static void test_check_division_by_zero_warns(void **state)
{
    (void)state;
    char *src = program("  int x;\n  x := x / (2 - 2); x := x mod 0");
    result r = compile(src);
    assert_true(r.ok);
    assert_int_equal(r.warnings, 2);
    assert_non_null(strstr(r.text, "t.w2:7:10: warning: division by zero: the cell faults when this runs"));
    assert_non_null(strstr(r.text, "t.w2:7:28: warning: 'mod' by zero"));
    free(r.text);
    free(src);
}

/* ---- Diagnostics a user can act on --------------------------------------------- */

static int count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what)) n++;
    return n;
}

/* Slips from C: each character is named with what W2 writes instead, and a //
 * comment is skipped to the end of its line. */
static void test_lex_hints_for_c_habits(void **state)
{
    (void)state;
    lexed lx;
    lex(&lx, "a != b && c || d % e { }\nx // y := ; z\nw");
    assert_non_null(strstr(lx.out, "t.w2:1:3: error: invalid character '!': W2 writes '!=' as '<>'"));
    assert_non_null(strstr(lx.out, "t.w2:1:8: error: invalid character '&': W2 writes '&&' as 'and'"));
    assert_non_null(strstr(lx.out, "t.w2:1:13: error: invalid character '|': W2 writes '||' as 'or'"));
    assert_non_null(strstr(lx.out, "t.w2:1:18: error: invalid character '%': W2 writes '%' as 'mod'"));
    assert_non_null(strstr(lx.out, "t.w2:1:22: error: invalid character '{': W2 writes '{' as 'begin'"));
    assert_non_null(strstr(lx.out, "t.w2:1:24: error: invalid character '}': W2 writes '}' as 'end'"));
    assert_non_null(strstr(lx.out, "t.w2:2:3: error: comments are written /* ... */ in W2, not //"));
    assert_int_equal(lx.d.errors, 7);
    /* a b c d e, x, then w on the next line: the comment's words are gone. */
    assert_int_equal(lx.n, 8);
    assert_int_equal(lx.toks[6].loc.line, 3);
    lex_free(&lx);
}

/* The lexer skips what it cannot read; the syntax error that follows in the same
 * statement is its echo and is not shown, and neither is "found end of file"
 * after an unterminated comment. A later statement's error still is. */
static void test_lexical_errors_have_no_echo(void **state)
{
    (void)state;
    char *src = program("  int i;\n  i := 3 # 4;\n  i := 1 +;\n  i := 2 /* open\n");
    result r = compile(src);
    assert_non_null(strstr(r.text, "t.w2:7:10: error: invalid character '#'"));
    assert_non_null(strstr(r.text, "t.w2:8:11: error: expected an expression, found ';'"));
    assert_non_null(strstr(r.text, "t.w2:9:10: error: unterminated comment"));
    assert_int_equal(count(r.text, "error:"), 3);
    assert_int_equal(r.errors, 3);
    assert_false(r.ok);
    free(r.text);
    free(src);
}

static void test_parse_hints(void **state)
{
    (void)state;
    expect_error("  int i;\n  i := i == 1",
                 "t.w2:7:10: error: comparison for equality is written '=' in W2, not '=='");
    expect_error("  int i;\n  i := f(2)",
                 "t.w2:7:9: error: 'f(...)' is not an expression: functions take no arguments and return no value "
                 "(a statement 'call f' runs one); only int(...) and float(...) take an argument");
    expect_error("  f(2)", "t.w2:6:4: error: 'f(...)' is not a statement: functions take no arguments, and a "
                           "function is run with 'call f'");
    expect_error("  f;", "t.w2:6:3: error: a name alone is not a statement: write 'call f' to run a function, or "
                         "'f := ...' to assign");
    expect_error("  int i = 2;", "t.w2:6:9: error: a declaration cannot give 'i' a value: assign it with ':=' "
                                 "after the declarations");
    /* A missing token that belongs at the end of a line is shown there. */
    expect_error("  int i;\n  if i > 1\n  i := 2", "t.w2:7:11: error: expected 'then' after the condition of 'if'");
}

/* An undeclared name or undefined function is reported once in each function
 * and once in the body, not at every use. */
static void test_check_reports_a_name_once(void **state)
{
    (void)state;
    char *src = program("  function f begin q := q + 1; q := 2; call g; call g end\n"
                        "  function h begin q := 1 end\n"
                        "  q := q; call g; call g");
    result r = compile(src);
    assert_int_equal(count(r.text, "undeclared identifier 'q'"), 3);
    assert_int_equal(count(r.text, "undefined function 'g'"), 2);
    assert_int_equal(r.errors, 5);
    free(r.text);
    free(src);
}

/* A cell variable declared before 'cellprogram' is reported, with a note saying
 * where cell variables go (once), and is then taken as a cell variable. */
static void test_check_misplaced_cell_variable(void **state)
{
    (void)state;
    result r = compile("module m (r out)\nint r;\nint n, k;\ncellprogram (c : 0 : 1)\nbegin\n"
                       "  n := 1; k := n; send (R, X, k, r)\nend\n");
    assert_non_null(strstr(r.text, "t.w2:3:5: error: 'n' is not a parameter of module 'm'"));
    assert_non_null(strstr(r.text, "t.w2:3:8: error: 'k' is not a parameter of module 'm'"));
    assert_non_null(strstr(r.text, "t.w2:4:1: note: host variables must be parameters of the module; cell "
                                   "variables are declared after the cellprogram's 'begin'"));
    assert_int_equal(count(r.text, "note:"), 1);
    assert_int_equal(r.errors, 2);
    free(r.text);
    /* Named like the cell-id variable: no second error about that. */
    r = compile("module m (r out)\nint r;\nint c;\ncellprogram (c : 0 : 1)\nbegin\nend\n");
    assert_int_equal(r.errors, 1);
    free(r.text);
}

static void test_check_duplicate_parameter(void **state)
{
    (void)state;
    result r = compile("module m (a in, a out)\nfloat a[2];\ncellprogram (c : 0 : 1)\nbegin\nend\n");
    assert_non_null(strstr(r.text, "t.w2:1:17: error: parameter 'a' appears twice in the header of module 'm'"));
    assert_non_null(strstr(r.text, "t.w2:1:11: note: 'a' is first listed here"));
    assert_int_equal(r.errors, 1);
    free(r.text);
}

/* A call to a later function that calls back is named as recursion; one that
 * does not is only out of order. */
static void test_check_recursion_through_later_functions(void **state)
{
    (void)state;
    expect_error("  function a begin call b end;\n  function b begin call a end",
                 "t.w2:6:25: error: call to 'b' leads back to 'a': recursion is not allowed");
    expect_error("  function a begin call b end;\n  function b begin call c end;\n  function c begin call a end",
                 "t.w2:6:25: error: call to 'b' leads back to 'a': recursion is not allowed");
    expect_error("  function a begin if 1 < 2 then begin call b end end;\n  function b begin end",
                 "t.w2:6:45: error: function 'b' is called before it is defined");
}

/* Scopes grow with their names: thousands of globals and locals resolve, and
 * a redeclaration among them still points at the first. */
static void test_check_many_names(void **state)
{
    (void)state;
    enum { N = 3000 };
    ws_buf b = {0};
    ws_buf_puts(&b, "  int ");
    for (int i = 0; i < N; i++) ws_buf_printf(&b, "%sv%d", i ? ", " : "", i);
    ws_buf_puts(&b, ";\n  function f begin int ");
    for (int i = 0; i < N; i++) ws_buf_printf(&b, "%sl%d", i ? ", " : "", i);
    ws_buf_puts(&b, ";\n   l0 := 1");
    for (int i = 1; i < N; i++) ws_buf_printf(&b, "; l%d := l%d + v%d", i, i - 1, i);
    ws_buf_puts(&b, " end;\n  call f;\n  v7 := v2999");
    ws_buf_append(&b, "", 1);
    expect_clean(b.data);
    ws_buf_free(&b);
    ws_buf_puts(&b, "  int ");
    for (int i = 0; i < N; i++) ws_buf_printf(&b, "%sv%d", i ? ", " : "", i);
    ws_buf_puts(&b, ";\n  float v1500;");
    ws_buf_append(&b, "", 1);
    char *src = program(b.data);
    result r = compile(src);
    assert_non_null(strstr(r.text, "t.w2:7:9: error: redeclaration of 'v1500'"));
    assert_non_null(strstr(r.text, "note: 'v1500' was first declared here"));
    assert_int_equal(r.errors, 1);
    free(r.text);
    free(src);
    ws_buf_free(&b);
}

static void test_semantic_errors_in_order_after_clean_parse(void **state)
{
    (void)state;
    result r = compile("module m (a in)\nfloat a;\ncellprogram (c : 0 : 1)\nbegin\n"
                       "  int x;\n  x := 1.5;\n  y := 2;\n  x := 99999999999;\nend\n");
    const char *e1 = strstr(r.text, "t.w2:6:8: error");
    const char *e2 = strstr(r.text, "t.w2:7:3: error");
    const char *e3 = strstr(r.text, "t.w2:8:8: error");
    assert_true(e1 && e2 && e3 && e1 < e2 && e2 < e3);
    assert_int_equal(r.errors, 3);
    free(r.text);
}

static void test_random_garbage_never_crashes(void **state)
{
    (void)state;
    /* Mutations of a good program: every outcome must be a module or errors. */
    static const char *const pieces[] = {"begin", "end", ";", ":=", "(", ")", "[", "]", "for", "to", "do",
                                         "if", "then", "else", "receive", "send", "call", "function",
                                         "int", "float", "not", "and", "mod", "/*", "L", "X", "1", "1.5",
                                         "-", "<", ",", ":", "cellprogram", "module", "\x01"};
    unsigned seed = 12345;
    size_t plen = strlen(poly_src);
    char *buf = malloc(plen + 4096);
    for (int round = 0; round < 300; round++) {
        memcpy(buf, poly_src, plen + 1);
        for (int k = 0; k < 4; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t len = strlen(buf);
            size_t pos = (seed >> 8) % (len + 1);
            seed = seed * 1103515245u + 12345u;
            const char *piece = pieces[(seed >> 8) % (sizeof pieces / sizeof pieces[0])];
            if ((seed >> 20) & 1) {
                size_t cut = (seed >> 4) % 16;
                if (pos + cut > len) cut = len - pos;
                memmove(buf + pos, buf + pos + cut, len - pos - cut + 1);
            } else {
                size_t n = strlen(piece);
                memmove(buf + pos + n + 1, buf + pos, len - pos + 1);
                memcpy(buf + pos, piece, n);
                buf[pos + n] = ' ';
            }
        }
        result r = compile(buf);
        assert_true(r.ok == (r.errors == 0));
        free(r.text);
    }
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lex_kinds_and_positions),
        cmocka_unit_test(test_lex_keywords_are_case_sensitive),
        cmocka_unit_test(test_lex_numbers),
        cmocka_unit_test(test_lex_float_range_is_recorded),
        cmocka_unit_test(test_lex_comments_span_lines),
        cmocka_unit_test(test_lex_errors),
        cmocka_unit_test(test_lex_nul_and_high_bytes),
        cmocka_unit_test(test_parse_polynomial_tree),
        cmocka_unit_test(test_parse_precedence),
        cmocka_unit_test(test_parse_else_binds_nearest_if),
        cmocka_unit_test(test_parse_declarations),
        cmocka_unit_test(test_parse_errors_recover),
        cmocka_unit_test(test_parse_error_shows_line_and_caret),
        cmocka_unit_test(test_parse_truncated_file_one_error),
        cmocka_unit_test(test_parse_misc_syntax_errors),
        cmocka_unit_test(test_nesting_limits),
        cmocka_unit_test(test_error_cap),
        cmocka_unit_test(test_good_programs_accepted),
        cmocka_unit_test(test_check_undeclared_and_redeclared),
        cmocka_unit_test(test_check_host_declarations),
        cmocka_unit_test(test_check_types),
        cmocka_unit_test(test_check_truth_values),
        cmocka_unit_test(test_check_literals),
        cmocka_unit_test(test_check_constant_indices),
        cmocka_unit_test(test_check_assignments_to_read_only),
        cmocka_unit_test(test_check_host_access),
        cmocka_unit_test(test_check_calls),
        cmocka_unit_test(test_check_division_by_zero_warns),
        cmocka_unit_test(test_semantic_errors_in_order_after_clean_parse),
        cmocka_unit_test(test_random_garbage_never_crashes),
        cmocka_unit_test(test_lex_hints_for_c_habits),
        cmocka_unit_test(test_lexical_errors_have_no_echo),
        cmocka_unit_test(test_parse_hints),
        cmocka_unit_test(test_check_reports_a_name_once),
        cmocka_unit_test(test_check_misplaced_cell_variable),
        cmocka_unit_test(test_check_duplicate_parameter),
        cmocka_unit_test(test_check_recursion_through_later_functions),
        cmocka_unit_test(test_check_many_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
