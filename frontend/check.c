/* The checker: resolves every name of the syntax tree, gives every expression its
 * type, inserts the implicit int -> float conversions, and reports what the
 * language forbids (w2-language.md). After it, lowering meets only valid trees.
 *
 * Scopes: the module's host variables, the cell-id variable, the cell-global
 * variables and the functions share one global scope; a function's locals form a
 * scope inside it and may shadow global names. A name is visible after its
 * declaration, so a function sees only the globals and functions before it,
 * which also rules out recursion. */
#include "w2_internal.h"

#include "warp_target.h"

#include <stdlib.h>
#include <string.h>

const char *w2_type_name(w2_type t)
{
    switch (t) {
    case W2_TY_INT: return "int";
    case W2_TY_FLOAT: return "float";
    case W2_TY_BOOL: return "truth value";
    default: return "erroneous value";
    }
}

const char *w2_binop_spelling(w2_binop op)
{
    static const char *const names[] = {"+", "-", "*", "/", "mod", "=", "<>", "<", "<=", ">", ">=", "and", "or"};
    return names[op];
}

/* ---- Scopes ---------------------------------------------------------------------- */

typedef struct sym {
    const char *name;
    w2_loc loc;
    w2_var *var;
    w2_func *func;
    w2_param *param;        /* in the scope of module parameters */
    int reported;           /* an undeclared name already reported: later uses stay silent */
    unsigned hash;
    struct sym *next;
} sym;

/* A hash table that grows with its names, so that a hostile program with a
 * million declarations is not checked in quadratic time. */
typedef struct scope {
    sym **buckets;
    size_t nbuckets;        /* a power of two */
    size_t count;
} scope;

static unsigned hash(const char *s) { return ws_hash(s, strlen(s)); }

static sym *scope_find(scope *sc, const char *name)
{
    if (!sc) return NULL;
    unsigned h = hash(name);
    for (sym *s = sc->buckets[h & (sc->nbuckets - 1)]; s; s = s->next)
        if (s->hash == h && strcmp(s->name, name) == 0) return s;
    return NULL;
}

/* Adds a new entry for name (the caller has checked it is not there). */
static sym *scope_add(ws_arena *arena, scope *sc, const char *name, w2_loc loc)
{
    if (sc->count >= 2 * sc->nbuckets) {
        size_t n = sc->nbuckets * 8;
        sym **b = ws_arena_alloc(arena, n * sizeof *b);
        for (size_t i = 0; i < sc->nbuckets; i++) {
            for (sym *s = sc->buckets[i], *next; s; s = next) {
                next = s->next;
                s->next = b[s->hash & (n - 1)];
                b[s->hash & (n - 1)] = s;
            }
        }
        sc->buckets = b;
        sc->nbuckets = n;
    }
    sym *s = ws_arena_alloc(arena, sizeof *s);
    s->name = name;
    s->loc = loc;
    s->hash = hash(name);
    s->next = sc->buckets[s->hash & (sc->nbuckets - 1)];
    sc->buckets[s->hash & (sc->nbuckets - 1)] = s;
    sc->count++;
    return s;
}

typedef struct checker {
    w2_ctx *c;
    w2_program *prog;
    scope *globals;
    scope *locals;          /* the current function's, NULL in the cellprogram body */
    scope *all_funcs;       /* every function of the program, to name those defined later */
    w2_func *func;          /* the function being checked */
    int func_id;
    w2_varref **writes;     /* the write set being collected, NULL in the body */
    int height;             /* of the function being checked (or the body) so far */
    int deep_reported;      /* calls nesting too deep are reported once a program */
    int in_ext;             /* inside a fourth argument of receive or send */
    int visit_gen;          /* the current leads_back search (w2_func.visit) */
} checker;

static scope *new_scope(checker *ck)
{
    scope *sc = ws_arena_alloc(&ck->c->arena, sizeof *sc);
    sc->nbuckets = 8;
    sc->buckets = ws_arena_alloc(&ck->c->arena, sc->nbuckets * sizeof *sc->buckets);
    return sc;
}

/* Adds a name; a second declaration in the same scope is an error. */
static void declare(checker *ck, scope *sc, const char *name, w2_loc loc, w2_var *var, w2_func *func)
{
    sym *old = scope_find(sc, name);
    if (old && old->reported) {
        old->loc = loc;
        old->var = var;
        old->func = func;
        old->reported = 0;
        return;
    }
    if (old) {
        w2_error(ck->c, loc, "redeclaration of '%s'", name);
        w2_note(ck->c, old->loc, "'%s' was first declared here", name);
        return;
    }
    sym *s = scope_add(&ck->c->arena, sc, name, loc);
    s->var = var;
    s->func = func;
}

static sym *lookup(checker *ck, const char *name)
{
    sym *s = scope_find(ck->locals, name);
    return s ? s : scope_find(ck->globals, name);
}

/* After an undeclared name is reported, it is entered in the innermost scope
 * (the function's, or the global one in the cellprogram body, which is checked
 * last), so its other uses there are not reported again, as gcc does. */
static void mark_reported(checker *ck, const char *name, w2_loc loc)
{
    scope *sc = ck->locals ? ck->locals : ck->globals;
    scope_add(&ck->c->arena, sc, name, loc)->reported = 1;
}

/* ---- Helpers --------------------------------------------------------------------- */

static int numeric(w2_type t) { return t == W2_TY_INT || t == W2_TY_FLOAT; }

/* Where an expression starts: a message about a whole operand points there
 * rather than at its last operator (binary nodes carry the operator's place). */
static w2_loc start_of(const w2_expr *e)
{
    while (e->kind == W2_EX_BINARY || (e->kind == W2_EX_TOFLOAT && e->implicit)) e = e->lhs;
    return e->loc;
}

static w2_expr *implicit_float(checker *ck, w2_expr *e)
{
    w2_expr *conv = ws_arena_alloc(&ck->c->arena, sizeof *conv);
    conv->kind = W2_EX_TOFLOAT;
    conv->loc = e->loc;
    conv->height = e->height + 1;
    conv->type = W2_TY_FLOAT;
    conv->lhs = e;
    conv->implicit = 1;
    return conv;
}

/* The value of an int expression made of literals and operators, if it has one;
 * arithmetic wraps as on the machine. */
static int const_int(const w2_expr *e, int32_t *out)
{
    int32_t a, b;
    if (!e || e->type != W2_TY_INT) return 0;
    switch (e->kind) {
    case W2_EX_INTLIT:
        *out = e->ival;
        return 1;
    case W2_EX_NEG:
        if (!const_int(e->lhs, &a)) return 0;
        *out = (int32_t)(0u - (uint32_t)a);
        return 1;
    case W2_EX_BINARY:
        if (!const_int(e->lhs, &a) || !const_int(e->rhs, &b)) return 0;
        switch (e->op) {
        case W2_OP_ADD: *out = (int32_t)((uint32_t)a + (uint32_t)b); return 1;
        case W2_OP_SUB: *out = (int32_t)((uint32_t)a - (uint32_t)b); return 1;
        case W2_OP_MUL: *out = (int32_t)((uint32_t)a * (uint32_t)b); return 1;
        case W2_OP_DIV:
        case W2_OP_MOD:
            if (b == 0 || (a == INT32_MIN && b == -1)) return 0;
            *out = e->op == W2_OP_DIV ? a / b : a % b;
            return 1;
        default:
            return 0;
        }
    default:
        return 0;
    }
}

/* Adds a cell-global to the write set of the function being checked, so that a
 * loop calling the function knows whether its variable is changed. */
static void record_write(checker *ck, w2_var *v)
{
    if (!ck->writes || v->kind != W2_VAR_GLOBAL || v->write_mark == ck->func_id) return;
    v->write_mark = ck->func_id;
    w2_varref *r = ws_arena_alloc(&ck->c->arena, sizeof *r);
    r->var = v;
    r->next = *ck->writes;
    *ck->writes = r;
}

/* verb: what the statement does to v ("assign to", "receive into"). */
static void loop_var_assigned(checker *ck, w2_loc loc, w2_var *v, const char *through, const char *verb)
{
    if (through)
        w2_error(ck->c, loc, "call to '%s' assigns '%s', the variable of an enclosing for loop", through, v->name);
    else
        w2_error(ck->c, loc, "cannot %s '%s' inside the for loop it controls", verb, v->name);
    w2_note(ck->c, v->active_loop->loc, "the loop over '%s' is here", v->name);
}

/* ---- Expressions ----------------------------------------------------------------- */

static w2_type check_expr(checker *ck, w2_expr *e);

static const char *ordinal(int i, int n) { return n == 1 ? "" : i == 0 ? "first " : "second "; }

/* A name with its subscripts, as an operand or a destination. Returns the
 * variable, or NULL (and the type W2_TY_ERROR) if it is not a usable one. */
static w2_var *check_name(checker *ck, w2_expr *e, int as_target)
{
    sym *s = lookup(ck, e->name);
    e->type = W2_TY_ERROR;
    w2_var *v = s ? s->var : NULL;
    if (!s) {
        w2_error(ck->c, e->loc, "use of undeclared identifier '%s'", e->name);
        mark_reported(ck, e->name, e->loc);
    } else if (s->reported) {
        /* Reported at its first use. */
    } else if (s->func) {
        w2_error(ck->c, e->loc, "'%s' is a function, not a variable", e->name);
    } else if (v->kind == W2_VAR_HOST && !ck->in_ext && !as_target) {
        w2_error(ck->c, e->loc,
                 "host variable '%s' can be used only in the fourth argument of receive or send", e->name);
        v = NULL;
    } else if (v->kind == W2_VAR_HOST && !as_target && v->is_out) {
        /* The host fills only 'in' variables; an 'out' one holds whatever the
         * cells stored so far, which the language leaves undefined. */
        w2_error(ck->c, e->loc, "cannot read '%s': it is an 'out' parameter of module '%s', which the cells only "
                 "write", e->name, ck->prog->name);
        v = NULL;
    }
    int n = e->nindex < 2 ? e->nindex : 2;
    for (int i = 0; i < n; i++) {
        w2_expr *ix = e->index[i];
        w2_type t = check_expr(ck, ix);
        if (t == W2_TY_FLOAT)
            w2_error(ck->c, start_of(ix), "array subscript must be int, found float; convert it with int(...)");
        else if (t == W2_TY_BOOL)
            w2_error(ck->c, start_of(ix), "array subscript must be int, found a truth value");
    }
    if (!v) return NULL;
    e->var = v;
    if (e->nindex != v->ndims) {
        if (v->ndims == 0)
            w2_error(ck->c, e->loc, "'%s' is not an array, but it has a subscript", e->name);
        else if (e->nindex == 0)
            w2_error(ck->c, e->loc, "array '%s' needs %d subscript%s", e->name, v->ndims, v->ndims > 1 ? "s" : "");
        else
            w2_error(ck->c, e->loc, "'%s' has %d dimension%s but %d subscript%s given", e->name, v->ndims,
                     v->ndims > 1 ? "s" : "", e->nindex, e->nindex > 1 ? "s are" : " is");
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        int32_t k;
        if (const_int(e->index[i], &k) && (k < 0 || k >= v->dims[i]))
            w2_error(ck->c, start_of(e->index[i]), "%sindex %d is out of bounds for '%s' (valid indices are 0 to %d)",
                     ordinal(i, n), k, e->name, v->dims[i] - 1);
    }
    e->type = v->type;
    return v;
}

/* An operand that must be a number; a truth value is reported. */
static w2_type number_operand(checker *ck, w2_expr *e, const char *op)
{
    w2_type t = check_expr(ck, e);
    if (t == W2_TY_BOOL) {
        w2_error(ck->c, start_of(e), "operand of '%s' is a truth value, not a number (truth values are usable only as conditions)", op);
        return W2_TY_ERROR;
    }
    return t;
}

static void truth_operand(checker *ck, w2_expr *e, const char *op)
{
    w2_type t = check_expr(ck, e);
    if (numeric(t)) w2_error(ck->c, start_of(e), "operand of '%s' must be a truth value, found %s", op, w2_type_name(t));
}

static w2_type check_binary(checker *ck, w2_expr *e)
{
    const char *op = w2_binop_spelling(e->op);
    if (e->op == W2_OP_AND || e->op == W2_OP_OR) {
        truth_operand(ck, e->lhs, op);
        truth_operand(ck, e->rhs, op);
        return W2_TY_BOOL;
    }
    int relational = e->op >= W2_OP_EQ && e->op <= W2_OP_GE;
    w2_type lt = number_operand(ck, e->lhs, op);
    w2_type rt = number_operand(ck, e->rhs, op);
    if (lt == W2_TY_ERROR || rt == W2_TY_ERROR) return relational ? W2_TY_BOOL : W2_TY_ERROR;
    if (e->op == W2_OP_MOD && (lt == W2_TY_FLOAT || rt == W2_TY_FLOAT)) {
        w2_expr *bad = lt == W2_TY_FLOAT ? e->lhs : e->rhs;
        w2_error(ck->c, start_of(bad), "'mod' takes int operands, but its %s operand is float",
                 bad == e->lhs ? "left" : "right");
        return W2_TY_ERROR;
    }
    int32_t k;
    if ((e->op == W2_OP_DIV || e->op == W2_OP_MOD) && lt == W2_TY_INT && rt == W2_TY_INT &&
        const_int(e->rhs, &k) && k == 0)
        w2_warning(ck->c, e->loc, "%s by zero: the cell faults when this runs",
                   e->op == W2_OP_DIV ? "division" : "'mod'");
    if (lt != rt) {
        if (lt == W2_TY_INT) e->lhs = implicit_float(ck, e->lhs);
        else e->rhs = implicit_float(ck, e->rhs);
    }
    if (relational) return W2_TY_BOOL;
    return lt == W2_TY_FLOAT || rt == W2_TY_FLOAT ? W2_TY_FLOAT : W2_TY_INT;
}

static w2_type check_expr(checker *ck, w2_expr *e)
{
    if (!e) return W2_TY_ERROR;
    w2_type t = W2_TY_ERROR;
    switch (e->kind) {
    case W2_EX_INTLIT:
        if (e->range == W2_RANGE_OVERFLOW)
            w2_error(ck->c, e->loc, "integer literal '%s' does not fit in a 32-bit int", e->name);
        t = W2_TY_INT;
        break;
    case W2_EX_FLOATLIT:
        if (e->range == W2_RANGE_OVERFLOW)
            w2_error(ck->c, e->loc, "float literal '%s' is too large for float", e->name);
        else if (e->range == W2_RANGE_UNDERFLOW)
            w2_warning(ck->c, e->loc, "float literal '%s' is too small for float and becomes 0", e->name);
        t = W2_TY_FLOAT;
        break;
    case W2_EX_VAR:
        check_name(ck, e, 0);
        return e->type;
    case W2_EX_NEG:
        t = number_operand(ck, e->lhs, "-");
        break;
    case W2_EX_NOT:
        truth_operand(ck, e->lhs, "not");
        t = W2_TY_BOOL;
        break;
    case W2_EX_BINARY:
        t = check_binary(ck, e);
        break;
    case W2_EX_TOINT:
    case W2_EX_TOFLOAT: {
        const char *name = e->kind == W2_EX_TOINT ? "int" : "float";
        w2_type in = check_expr(ck, e->lhs);
        if (in == W2_TY_BOOL) w2_error(ck->c, e->loc, "%s(...) cannot convert a truth value", name);
        t = e->kind == W2_EX_TOINT ? W2_TY_INT : W2_TY_FLOAT;
        break;
    }
    }
    e->type = t;
    return t;
}

/* A condition of while or if: a truth value. */
static void check_cond(checker *ck, w2_expr *e, const char *stmt)
{
    w2_type t = check_expr(ck, e);
    if (numeric(t))
        w2_error(ck->c, start_of(e), "condition of '%s' must be a truth value, found %s (compare it, e.g. '<> 0')",
                 stmt, w2_type_name(t));
}

/* The value stored into variable v by an assignment, or by a receive when feed is
 * set (its fourth argument): int converts to float, anything else must match. */
static w2_expr *convert_for_store(checker *ck, w2_expr *e, w2_type have, const w2_var *v, int feed)
{
    w2_type want = v->type;
    if (have == W2_TY_ERROR || have == want) return e;
    if (have == W2_TY_BOOL) {
        if (feed) w2_error(ck->c, start_of(e), "fourth argument of receive is a truth value, not a number");
        else w2_error(ck->c, start_of(e), "cannot assign a truth value to '%s' (truth values are usable only as conditions)",
                      v->name);
    } else if (want == W2_TY_FLOAT) {
        return implicit_float(ck, e);
    } else if (feed) {
        w2_error(ck->c, start_of(e), "fourth argument of receive is float but '%s' is int; convert it with int(...)",
                 v->name);
    } else {
        w2_error(ck->c, start_of(e), "cannot assign a float value to int variable '%s' without int(...)", v->name);
    }
    return e;
}

/* ---- Statements ------------------------------------------------------------------ */

static void check_stmts(checker *ck, w2_stmt *s);

/* A destination of an assignment or receive (verb says which): a cell variable
 * other than the cell-id variable and any active loop variable. */
static w2_var *check_target(checker *ck, w2_expr *e, const char *verb)
{
    w2_var *v = check_name(ck, e, 1);
    if (!v) return NULL;
    if (v->kind == W2_VAR_HOST) {
        w2_error(ck->c, e->loc, "cannot %s host variable '%s': host data is written only through the "
                 "fourth argument of send", verb, v->name);
    } else if (v->kind == W2_VAR_CELLID) {
        w2_error(ck->c, e->loc, "cannot %s '%s': it is the cell-id variable, which is read-only", verb, v->name);
    } else if (v->active_loop) {
        loop_var_assigned(ck, e->loc, v, NULL, verb);
    } else {
        record_write(ck, v);
        return v;
    }
    e->type = W2_TY_ERROR;
    return NULL;
}

static void check_for(checker *ck, w2_stmt *s)
{
    w2_expr *lv = s->lhs;
    sym *sy = lookup(ck, lv->name);
    w2_var *v = NULL;
    if (sy && !sy->reported && sy->var && sy->var->ndims) {
        /* 'for a := ...' over an array: the message is about the loop. */
        w2_error(ck->c, lv->loc, "loop variable '%s' must be an int scalar, but it is an array of %s", lv->name,
                 w2_type_name(sy->var->type));
    } else {
        v = check_name(ck, lv, 1);
    }
    if (v) {
        if (v->kind == W2_VAR_HOST || v->kind == W2_VAR_CELLID) {
            w2_error(ck->c, lv->loc, "'%s' cannot be a loop variable: it is %s", v->name,
                     v->kind == W2_VAR_HOST ? "a host variable" : "the read-only cell-id variable");
            v = NULL;
        } else if (v->type != W2_TY_INT || v->ndims != 0) {
            w2_error(ck->c, lv->loc, "loop variable '%s' must be an int scalar, but it is %s%s", v->name,
                     v->ndims ? "an array of " : "", w2_type_name(v->type));
            v = NULL;
        } else if (v->active_loop) {
            loop_var_assigned(ck, lv->loc, v, NULL, "loop again over");
            v = NULL;
        } else {
            record_write(ck, v);
        }
    }
    w2_expr *bounds[2] = {s->rhs, s->limit};
    for (int i = 0; i < 2; i++) {
        w2_type t = check_expr(ck, bounds[i]);
        if (t == W2_TY_FLOAT)
            w2_error(ck->c, start_of(bounds[i]), "bound of a for loop must be int, found float; convert it with int(...)");
        else if (t == W2_TY_BOOL)
            w2_error(ck->c, start_of(bounds[i]), "bound of a for loop must be int, found a truth value");
    }
    if (v) v->active_loop = s;
    check_stmts(ck, s->body);
    if (v) v->active_loop = NULL;
}

/* U and D lead along a 2-D cellprogram's columns, on channel Y; L and R along its
 * rows, on X: each side of a cell has one bus of the torus for the program. */
static void check_direction(checker *ck, const w2_stmt *s)
{
    int vertical = s->dir_name == 'U' || s->dir_name == 'D';
    if (!ck->prog->cellid_y) {
        if (vertical)
            w2_error(ck->c, s->dir_loc, "direction '%c' needs a 2-D cellprogram, whose cells have neighbours "
                     "up and down (e.g. 'cellprogram (x : 0 : 3, y : 0 : 3)')", s->dir_name);
        return;
    }
    if (vertical && s->chan != W2_CHAN_Y)
        w2_error(ck->c, s->dir_loc, "in a 2-D cellprogram '%c' leads along the column, on channel Y, not X",
                 s->dir_name);
    else if (!vertical && s->chan != W2_CHAN_X)
        w2_error(ck->c, s->dir_loc, "in a 2-D cellprogram '%c' leads along the row, on channel X; "
                 "the column's directions are 'U' and 'D', on Y", s->dir_name);
}

static void check_receive(checker *ck, w2_stmt *s)
{
    check_direction(ck, s);
    w2_var *v = check_target(ck, s->lhs, "receive into");
    if (!s->ext) return;
    ck->in_ext = 1;
    w2_type t = check_expr(ck, s->ext);
    ck->in_ext = 0;
    if (v) s->ext = convert_for_store(ck, s->ext, t, v, 1);
}

static void check_send(checker *ck, w2_stmt *s)
{
    check_direction(ck, s);
    w2_type t = check_expr(ck, s->rhs);
    if (t == W2_TY_BOOL) {
        w2_error(ck->c, start_of(s->rhs), "sent value is a truth value, not a number (truth values are usable "
                 "only as conditions)");
        t = W2_TY_ERROR;
    }
    w2_expr *a = s->ext;
    if (!a) return;
    if (a->kind != W2_EX_VAR) {
        w2_error(ck->c, start_of(a), "the fourth argument of send must be a host variable or host array element "
                 "(where the host stores the value)");
        return;
    }
    ck->in_ext = 1;
    w2_var *v = check_name(ck, a, 1);
    ck->in_ext = 0;
    if (!v) return;
    if (v->kind != W2_VAR_HOST) {
        w2_error(ck->c, a->loc, "'%s' is not a host variable: the fourth argument of send names where the host "
                 "stores the value", v->name);
    } else if (!v->is_out) {
        w2_error(ck->c, a->loc, "cannot store into '%s': it is an 'in' parameter of module '%s'", v->name,
                 ck->prog->name);
    } else if (numeric(t) && t != v->type) {
        /* The same word goes to the neighbour, so the value cannot be converted
         * for the host's sake. */
        w2_error(ck->c, start_of(s->rhs), "sent value is %s but host variable '%s' holds %s; convert it with %s(...)",
                 w2_type_name(t), v->name, w2_type_name(v->type), w2_type_name(v->type));
    }
}

/* An argument of sendmsg or receivemsg that must be an int value. */
static void message_int(checker *ck, w2_expr *e, const char *stmt, const char *what)
{
    w2_type t = check_expr(ck, e);
    if (t == W2_TY_FLOAT)
        w2_error(ck->c, start_of(e), "%s of '%s' must be int, found float; convert it with int(...)", what, stmt);
    else if (t == W2_TY_BOOL)
        w2_error(ck->c, start_of(e), "%s of '%s' must be int, found a truth value", what, stmt);
}

/* sendmsg (cell, block, words) and receivemsg (block, words, source [, length]):
 * the block is a cell variable or element, where the words start; the source and
 * length go into int variables. */
static void check_message(checker *ck, w2_stmt *s)
{
    int send = s->kind == W2_ST_MSGSEND;
    const char *stmt = send ? "sendmsg" : "receivemsg";
    if (send) message_int(ck, s->rhs, stmt, "the destination cell");
    w2_var *v = send ? check_name(ck, s->lhs, 0) : check_target(ck, s->lhs, "receive a message into");
    if (v && v->kind == W2_VAR_CELLID)
        w2_error(ck->c, s->lhs->loc, "'%s' is the cell-id variable, which lives in no memory to send from", v->name);
    message_int(ck, s->limit, stmt, "the number of words");
    w2_expr *outs[2] = {s->ext, send ? NULL : s->rhs};
    static const char *const names[2] = {"source cell", "length"};
    for (int i = 0; i < 2; i++) {
        if (!outs[i]) continue;
        w2_var *o = check_target(ck, outs[i], "receive a message's source or length into");
        if (o && o->type != W2_TY_INT)
            w2_error(ck->c, outs[i]->loc, "the %s of '%s' goes into an int variable, but '%s' is float", names[i],
                     stmt, o->name);
    }
}

/* sendcon (conn[index], block, words) and receivecon (the same): a declared
 * connection, with an index exactly when it was declared with one; the block as
 * sendmsg's. instantiate SET: a declared set. */
static void check_con_transfer(checker *ck, w2_stmt *s)
{
    int send = s->kind == W2_ST_CONSEND;
    const char *stmt = send ? "sendcon" : "receivecon";
    s->conn = w2_find_conn(ck->prog, s->callee);
    if (!s->conn) {
        w2_error(ck->c, s->callee_loc, "'%s' is not a connection (declare it in a 'phase NAME : ...' before the "
                 "statements)", s->callee);
    } else if (s->conn->index && !s->rhs) {
        w2_error(ck->c, s->callee_loc, "connection '%s' has an index ('%s[%s]' of %lld to %lld)", s->callee,
                 s->callee, s->conn->index, (long long)s->conn->lo, (long long)s->conn->hi);
    } else if (!s->conn->index && s->rhs) {
        w2_error(ck->c, start_of(s->rhs), "connection '%s' is a single connection, without an index", s->callee);
    }
    if (s->rhs) message_int(ck, s->rhs, stmt, "the connection's index");
    w2_var *v = send ? check_name(ck, s->lhs, 0) : check_target(ck, s->lhs, "receive a connection's words into");
    if (v && v->kind == W2_VAR_CELLID)
        w2_error(ck->c, s->lhs->loc, "'%s' is the cell-id variable, which lives in no memory to send from", v->name);
    else if (v && v->kind == W2_VAR_LOCAL)
        w2_error(ck->c, s->lhs->loc, "'%s' is a function's local: the words of '%s' move at 'instantiate', which may "
                 "come after the function has returned, so the block must be a cell-global variable", v->name, stmt);
    message_int(ck, s->limit, stmt, "the number of words");
}

static void check_instantiate(checker *ck, w2_stmt *s)
{
    s->set = w2_find_conset(ck->prog, s->callee);
    if (!s->set)
        w2_error(ck->c, s->callee_loc, "'%s' is not a phase (declare it as 'phase %s : ...' before the statements)",
                 s->callee, s->callee);
}

/* Appends to the work list the functions that the statements s call, and
 * says whether one of those calls names `target`. Statement nesting is bounded
 * by the parser, so this recursion is too. */
static int calls_into(checker *ck, w2_stmt *s, const char *target, w2_func ***list, size_t *n, size_t *cap)
{
    for (; s; s = s->next) {
        if (s->kind == W2_ST_CALL && s->callee) {
            if (strcmp(s->callee, target) == 0) return 1;
            sym *f = scope_find(ck->all_funcs, s->callee);
            if (f && f->func->visit != ck->visit_gen) {
                f->func->visit = ck->visit_gen;
                if (*n == *cap) {
                    *cap = *cap ? *cap * 2 : 16;
                    *list = ws_xrealloc(*list, *cap * sizeof **list);
                }
                (*list)[(*n)++] = f->func;
            }
        }
        if (calls_into(ck, s->body, target, list, n, cap) || calls_into(ck, s->els, target, list, n, cap))
            return 1;
    }
    return 0;
}

/* Whether the function `later` (defined after the one being checked) calls the
 * one being checked, directly or through other functions: then the call to it
 * is an attempt at recursion, and the message says so. A work list rather than
 * recursion, as the chain of functions may be long. */
static int leads_back(checker *ck, w2_func *later)
{
    w2_func **list = NULL;
    size_t n = 0, cap = 0;
    int found = 0;
    later->visit = ++ck->visit_gen;
    if (!calls_into(ck, later->body, ck->func->name, &list, &n, &cap))
        for (size_t i = 0; i < n && !found; i++) found = calls_into(ck, list[i]->body, ck->func->name, &list, &n, &cap);
    else
        found = 1;
    free(list);
    return found;
}

static void check_call(checker *ck, w2_stmt *s)
{
    sym *sy = lookup(ck, s->callee);
    if (sy && sy->reported) return;
    if (sy && sy->func) {
        w2_func *f = sy->func;
        s->func = f;
        if (f->height + 1 > ck->height) ck->height = f->height + 1;
        if (f->height + 1 > W2_MAX_CALL_DEPTH && !ck->deep_reported) {
            w2_error(ck->c, s->callee_loc, "call to '%s' nests calls more than %d deep", s->callee,
                     W2_MAX_CALL_DEPTH);
            ck->deep_reported = 1;
        }
        for (w2_varref *w = f->writes; w; w = w->next) {
            if (w->var->active_loop) loop_var_assigned(ck, s->callee_loc, w->var, f->name, "assign to");
            record_write(ck, w->var);
        }
        return;
    }
    if (sy) {
        w2_error(ck->c, s->callee_loc, "'%s' is a variable, not a function", s->callee);
        return;
    }
    if (ck->func && strcmp(ck->func->name, s->callee) == 0) {
        w2_error(ck->c, s->callee_loc, "function '%s' calls itself: recursion is not allowed", s->callee);
        mark_reported(ck, s->callee, s->callee_loc);
        return;
    }
    sym *later = scope_find(ck->all_funcs, s->callee);
    if (later) {
        /* The search costs a walk over the later functions; past the error cap,
         * where the message would not be shown, it is skipped, so a long chain
         * of such calls is not checked in quadratic time. */
        ws_diag *d = ck->c->diag;
        int shown = !d->max_errors || d->errors < d->max_errors;
        if (ck->func && shown && leads_back(ck, later->func))
            w2_error(ck->c, s->callee_loc, "call to '%s' leads back to '%s': recursion is not allowed", s->callee,
                     ck->func->name);
        else
            w2_error(ck->c, s->callee_loc, "function '%s' is called before it is defined", s->callee);
        w2_note(ck->c, later->loc, "'%s' is defined here; a function may call only functions defined before it",
                s->callee);
        mark_reported(ck, s->callee, s->callee_loc);
        return;
    }
    w2_error(ck->c, s->callee_loc, "call to undefined function '%s'", s->callee);
    mark_reported(ck, s->callee, s->callee_loc);
}

static void check_stmt(checker *ck, w2_stmt *s)
{
    switch (s->kind) {
    case W2_ST_ASSIGN: {
        w2_var *v = check_target(ck, s->lhs, "assign to");
        w2_type t = check_expr(ck, s->rhs);
        if (v) s->rhs = convert_for_store(ck, s->rhs, t, v, 0);
        break;
    }
    case W2_ST_FOR:
        check_for(ck, s);
        break;
    case W2_ST_WHILE:
        check_cond(ck, s->cond, "while");
        check_stmts(ck, s->body);
        break;
    case W2_ST_IF:
        check_cond(ck, s->cond, "if");
        check_stmts(ck, s->body);
        check_stmts(ck, s->els);
        break;
    case W2_ST_BLOCK:
        check_stmts(ck, s->body);
        break;
    case W2_ST_RECEIVE:
        check_receive(ck, s);
        break;
    case W2_ST_SEND:
        check_send(ck, s);
        break;
    case W2_ST_CALL:
        check_call(ck, s);
        break;
    case W2_ST_MSGSEND:
    case W2_ST_MSGRECV:
        check_message(ck, s);
        break;
    case W2_ST_CONSEND:
    case W2_ST_CONRECV:
        check_con_transfer(ck, s);
        break;
    case W2_ST_INSTANTIATE:
        check_instantiate(ck, s);
        break;
    }
}

/* Statement lists are linked; a single statement (a loop body) is a list of one. */
static void check_stmts(checker *ck, w2_stmt *s)
{
    for (; s; s = s->next) check_stmt(ck, s);
}

/* ---- Program --------------------------------------------------------------------- */

static void check_func(checker *ck, w2_func *f, int id)
{
    ck->locals = new_scope(ck);
    for (w2_var *v = f->locals; v; v = v->next) declare(ck, ck->locals, v->name, v->loc, v, NULL);
    ck->func = f;
    ck->func_id = f->id = id;
    ck->writes = &f->writes;
    ck->height = 1;
    check_stmts(ck, f->body);
    f->height = ck->height;
    ck->height = 1;
    ck->locals = NULL;
    ck->func = NULL;
    ck->writes = NULL;
    /* Declared after its body: inside it, its own name is not yet a function. */
    declare(ck, ck->globals, f->name, f->loc, NULL, f);
}

static void check_host(checker *ck, w2_program *prog)
{
    int noted = 0, host_full = 0;
    int64_t host_bytes = 0;
    scope *params = new_scope(ck);
    for (w2_param *pa = prog->params; pa; pa = pa->next) {
        sym *first = scope_find(params, pa->name);
        if (first) {
            w2_error(ck->c, pa->loc, "parameter '%s' appears twice in the header of module '%s'", pa->name,
                     prog->name);
            w2_note(ck->c, first->loc, "'%s' is first listed here", pa->name);
            pa->duplicate = 1;
        } else {
            scope_add(&ck->c->arena, params, pa->name, pa->loc)->param = pa;
        }
    }
    for (w2_var *v = prog->host_vars; v; v = v->next) {
        sym *ps = scope_find(params, v->name);
        w2_param *pa = ps ? ps->param : NULL;
        if (!pa) {
            /* Most likely a cell variable declared too early: w2_check declares
             * it as one, so that its uses are not reported as undeclared. */
            w2_error(ck->c, v->loc, "'%s' is not a parameter of module '%s'", v->name, prog->name);
            if (!noted++)
                w2_note(ck->c, prog->cell_loc, "host variables must be parameters of the module; cell variables "
                        "are declared after the cellprogram's 'begin'");
            v->kind = W2_VAR_GLOBAL;
            continue;
        }
        if (pa->var) {
            w2_error(ck->c, v->loc, "redeclaration of host variable '%s'", v->name);
            w2_note(ck->c, pa->var->loc, "'%s' was first declared here", v->name);
            continue;
        }
        pa->var = v;
        v->is_out = pa->is_out;
        /* Host memory holds every host array; say so here rather than leave it to
         * the assembler, whose file the user never saw. */
        int64_t bytes = 4;
        for (int i = 0; i < v->ndims && bytes <= WT_MAX_HOST_BYTES; i++) bytes *= v->dims[i];
        host_bytes += bytes;
        if (host_bytes > WT_MAX_HOST_BYTES && !host_full++)
            w2_error(ck->c, v->loc, "host array '%s' needs %lld bytes%s; host memory holds at most %u", v->name,
                     (long long)bytes, host_bytes > bytes ? " more" : "", WT_MAX_HOST_BYTES);
        /* The host symbol is external: LLVM would rename it rather than let it
         * clash with the program's entry point. */
        if (strcmp(v->name, "main") == 0)
            w2_error(ck->c, v->loc, "host variable cannot be named 'main': that is the cell program's entry point");
        declare(ck, ck->globals, v->name, v->loc, v, NULL);
    }
    for (w2_param *pa = prog->params; pa; pa = pa->next)
        if (!pa->var && !pa->duplicate)
            w2_error(ck->c, pa->loc, "parameter '%s' of module '%s' is not declared (e.g. 'float %s[100];')",
                     pa->name, prog->name, pa->name);
}

/* A 2-D cellprogram: its rows as its columns, both sides within the torus, and
 * iWarp, whose torus it runs on (the Warp array is linear). The columns' range
 * has had the checks of a 1-D program's. */
static void check_two_d(checker *ck, const w2_program *prog)
{
    w2_ctx *c = ck->c;
    if (!c->opts || !c->opts->iwarp)
        w2_error(c, prog->cell_loc, "a 2-D cellprogram runs on the iWarp torus only: compile it with -mcpu=iwarp "
                 "(the Warp array is linear)");
    if (prog->first <= prog->last && prog->last - prog->first + 1 > W2_MAX_SIDE &&
        prog->last - prog->first + 1 <= WT_MAX_CELLS)
        w2_error(c, prog->last_loc, "a 2-D cellprogram of %lld columns; the iWarp torus has at most %d a side",
                 (long long)(prog->last - prog->first + 1), W2_MAX_SIDE);
    if (prog->first_y > INT32_MAX)
        w2_error(c, prog->first_y_loc, "row number is too large");
    else if (prog->last_y > INT32_MAX)
        w2_error(c, prog->last_y_loc, "row number is too large");
    else if (prog->first_y > prog->last_y)
        w2_error(c, prog->first_y_loc, "first row %lld is after the last row %lld", (long long)prog->first_y,
                 (long long)prog->last_y);
    else if (prog->last_y - prog->first_y + 1 > W2_MAX_SIDE)
        w2_error(c, prog->last_y_loc, "a 2-D cellprogram of %lld rows; the iWarp torus has at most %d a side",
                 (long long)(prog->last_y - prog->first_y + 1), W2_MAX_SIDE);
}

int w2_check(w2_ctx *c, w2_program *prog)
{
    int before = c->diag->errors;
    checker ck = {.c = c, .prog = prog};
    ck.globals = new_scope(&ck);
    ck.all_funcs = new_scope(&ck);
    check_host(&ck, prog);

    if (prog->first > INT32_MAX)
        w2_error(c, prog->first_loc, "cell number is too large");
    else if (prog->last > INT32_MAX)
        w2_error(c, prog->last_loc, "cell number is too large");
    else if (prog->first > prog->last)
        w2_error(c, prog->first_loc, "first cell %lld is after the last cell %lld", (long long)prog->first,
                 (long long)prog->last);
    else if (prog->last - prog->first + 1 > WT_MAX_CELLS)
        w2_error(c, prog->last_loc, "cellprogram of %lld cells; the array has at most %d",
                 (long long)(prog->last - prog->first + 1), WT_MAX_CELLS);
    if (prog->cellid_y) check_two_d(&ck, prog);
    if (prog->cellid) declare(&ck, ck.globals, prog->cellid->name, prog->cellid->loc, prog->cellid, NULL);
    if (prog->cellid_y) declare(&ck, ck.globals, prog->cellid_y->name, prog->cellid_y->loc, prog->cellid_y, NULL);
    /* The misplaced cell variables (check_host), unless the name is taken:
     * that clash would only echo the error already reported. */
    for (w2_var *v = prog->host_vars; v; v = v->next)
        if (v->kind == W2_VAR_GLOBAL && !scope_find(ck.globals, v->name))
            declare(&ck, ck.globals, v->name, v->loc, v, NULL);

    for (w2_item *it = prog->items; it; it = it->next)
        if (it->func && !scope_find(ck.all_funcs, it->func->name))
            declare(&ck, ck.all_funcs, it->func->name, it->func->loc, NULL, it->func);
    int id = 0;
    for (w2_item *it = prog->items; it; it = it->next) {
        if (it->var) declare(&ck, ck.globals, it->var->name, it->var->loc, it->var, NULL);
        else check_func(&ck, it->func, ++id);
    }
    w2_check_consets(c, prog);
    check_stmts(&ck, prog->body);
    if (c->diag->errors == before) w2_plan_consets(c, prog);
    return c->diag->errors - before;
}
