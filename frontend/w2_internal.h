/* The W2 frontend's internal interface: tokens, the syntax tree, and the four
 * stages that pass them along (/work/shared/w2-language.md is the language):
 *
 *   text --w2_lex--> tokens --w2_parse--> w2_program --w2_check--> (typed, resolved)
 *        --w2_lower--> LLVM module (docs/design.md, section 2)
 *
 * Every token and node carries its line and column, so any stage can point at
 * the source. All nodes live in the compilation's arena (w2_ctx.arena). */
#ifndef W2_INTERNAL_H
#define W2_INTERNAL_H

#include <llvm-c/Core.h>
#include <stdint.h>

#include "w2_frontend.h"
#include "warp_support.h"

/* Hostile input must not exhaust the stack of the recursive stages: statement and
 * parenthesis nesting is bounded while parsing, and so is the height of any
 * expression tree (long operator chains build deep left spines). */
#define W2_MAX_NESTING 256
#define W2_MAX_EXPR_HEIGHT 4096
/* Functions nested in calls, the body's call included. The machine's return
 * stack holds 16 and the backend inlines deeper calls; optimisers inline chains
 * in time quadratic in their length, so a hostile chain of 100000 functions is
 * refused here rather than compiled for hours. */
#define W2_MAX_CALL_DEPTH 256
/* A 2-D cellprogram's side: the iWarp torus has at most 32 cells a side. */
#define W2_MAX_SIDE 32

typedef struct w2_loc {
    int line, col;          /* 1-based; col counts bytes */
} w2_loc;

/* One compilation: the source, where diagnostics go, and the arena that owns
 * every token, node and string until w2_compile returns. */
typedef struct w2_pending {
    w2_loc loc;
    const char *msg;
} w2_pending;

typedef struct w2_ctx {
    const char *path;
    const char *text;
    size_t len;
    const w2_options *opts;
    ws_diag *diag;
    ws_arena arena;
    /* Errors that leave the tree incomplete (lexical and syntax errors): the
     * checker runs only without them, as it would mostly report their echoes. */
    int syntax_errors;
    /* The lexer runs ahead of the parser, so its errors wait here and are shown
     * in source order among the parser's (w2_flush_lexical). */
    w2_pending *pending;
    size_t npending, pending_cap, next_pending;
} w2_ctx;

void w2_error(w2_ctx *c, w2_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void w2_warning(w2_ctx *c, w2_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A note belongs to the error before it, so it is dropped when that error was
 * past the error cap and not shown. */
void w2_note(w2_ctx *c, w2_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Reports the waiting lexical errors at or before loc. */
void w2_flush_lexical(w2_ctx *c, w2_loc upto);

/* ---- Tokens (lexer.c) ------------------------------------------------------------ */

#define W2_KEYWORDS(X)                                                                 \
    X(MODULE, "module") X(IN, "in") X(OUT, "out") X(CELLPROGRAM, "cellprogram")          \
    X(BEGIN, "begin") X(END, "end") X(FUNCTION, "function") X(CALL, "call")              \
    X(FLOAT, "float") X(INT, "int") X(FOR, "for") X(TO, "to") X(DOWNTO, "downto")        \
    X(DO, "do") X(WHILE, "while") X(IF, "if") X(THEN, "then") X(ELSE, "else")            \
    X(RECEIVE, "receive") X(SEND, "send") X(AND, "and") X(OR, "or") X(NOT, "not")        \
    X(MOD, "mod")

#define W2_PUNCTUATORS(X)                                                              \
    X(ASSIGN, ":=") X(LE, "<=") X(GE, ">=") X(NE, "<>") X(LPAREN, "(") X(RPAREN, ")")    \
    X(LBRACKET, "[") X(RBRACKET, "]") X(COMMA, ",") X(SEMI, ";") X(COLON, ":")           \
    X(PLUS, "+") X(MINUS, "-") X(STAR, "*") X(SLASH, "/") X(EQ, "=") X(LT, "<")          \
    X(GT, ">")

typedef enum w2_tok_kind {
    W2_TK_EOF,
    W2_TK_IDENT,
    W2_TK_INTLIT,
    W2_TK_FLOATLIT,
#define X(id, s) W2_TK_##id,
    W2_KEYWORDS(X) W2_PUNCTUATORS(X)
#undef X
    W2_TK_COUNT
} w2_tok_kind;

typedef struct w2_token {
    w2_tok_kind kind;
    w2_loc loc;
    const char *text;       /* into the source */
    int len;
    uint64_t ival;          /* INTLIT: the value, saturated at UINT64_MAX */
    float fval;             /* FLOATLIT: the value rounded to single precision */
    int range;              /* FLOATLIT: W2_RANGE_*, reported by the parser */
} w2_token;

enum { W2_RANGE_OK, W2_RANGE_OVERFLOW, W2_RANGE_UNDERFLOW };

/* The spelling of a keyword or punctuator ("begin", ":="), or a word for the
 * other kinds ("identifier"). */
const char *w2_tok_spelling(w2_tok_kind k);
/* The token as a diagnostic names it: "identifier 'x'", "'begin'", "end of file". */
void w2_tok_describe(const w2_token *t, char *buf, size_t n);

/* The whole source as tokens ending with one W2_TK_EOF; lexical errors are
 * queued (see w2_ctx.pending) and the offending characters skipped. Free the
 * array with free(). */
w2_token *w2_lex(w2_ctx *c, size_t *ntokens);

/* ---- The syntax tree (parser.c builds it, check.c annotates it) ------------------- */

/* Expression types. A truth value (relational, and, or, not) is usable only as a
 * condition; W2_TY_ERROR marks a subtree already reported, so it causes no more
 * messages. */
typedef enum w2_type { W2_TY_ERROR, W2_TY_INT, W2_TY_FLOAT, W2_TY_BOOL } w2_type;
const char *w2_type_name(w2_type t);

typedef enum w2_var_kind {
    W2_VAR_HOST,            /* a module parameter: host memory, addrspace(1) */
    W2_VAR_GLOBAL,          /* declared in the cellprogram block */
    W2_VAR_LOCAL,           /* declared in a function */
    W2_VAR_CELLID           /* the cell-id variable of the cellprogram header */
} w2_var_kind;

typedef struct w2_stmt w2_stmt;
typedef struct w2_func w2_func;

typedef struct w2_var {
    const char *name;
    w2_loc loc;
    w2_var_kind kind;
    w2_type type;           /* element type: W2_TY_INT or W2_TY_FLOAT */
    int ndims;              /* 0 scalar, 1 or 2 */
    int32_t dims[2];
    int is_out;             /* host: declared 'out' in the module header */
    struct w2_var *next;    /* the next variable of the same declaration list */
    /* check.c */
    w2_stmt *active_loop;   /* the for statement this variable controls now, if any */
    int write_mark;         /* id of the last function whose write set holds it */
    /* lower.c */
    LLVMValueRef addr;      /* alloca or global */
} w2_var;

typedef enum w2_expr_kind {
    W2_EX_INTLIT, W2_EX_FLOATLIT,
    W2_EX_VAR,              /* a name with 0..2 subscripts */
    W2_EX_NEG, W2_EX_NOT,   /* operand in lhs */
    W2_EX_BINARY,
    W2_EX_TOINT, W2_EX_TOFLOAT  /* int(e), float(e), and the checker's implicit int -> float */
} w2_expr_kind;

typedef enum w2_binop {
    W2_OP_ADD, W2_OP_SUB, W2_OP_MUL, W2_OP_DIV, W2_OP_MOD,
    W2_OP_EQ, W2_OP_NE, W2_OP_LT, W2_OP_LE, W2_OP_GT, W2_OP_GE,
    W2_OP_AND, W2_OP_OR
} w2_binop;
const char *w2_binop_spelling(w2_binop op);

typedef struct w2_expr {
    w2_expr_kind kind;
    w2_loc loc;             /* the operator, literal or name */
    int height;             /* 1 for a leaf */
    w2_type type;           /* set by the checker */
    w2_binop op;
    struct w2_expr *lhs, *rhs;
    int32_t ival;
    float fval;
    int range;              /* literals: W2_RANGE_*, reported by the checker */
    const char *name;       /* VAR; a literal out of range: its spelling */
    int nindex;             /* subscripts written (may exceed 2: an error) */
    struct w2_expr *index[2];
    w2_var *var;            /* VAR: resolved by the checker */
    int implicit;           /* a conversion the checker inserted */
} w2_expr;

typedef enum w2_stmt_kind {
    W2_ST_ASSIGN, W2_ST_FOR, W2_ST_WHILE, W2_ST_IF, W2_ST_BLOCK,
    W2_ST_RECEIVE, W2_ST_SEND, W2_ST_CALL,
    W2_ST_MSGSEND, W2_ST_MSGRECV,   /* sendmsg, receivemsg (iWarp message passing) */
    W2_ST_CONSEND, W2_ST_CONRECV,   /* sendcon, receivecon (phased connection sets) */
    W2_ST_INSTANTIATE               /* instantiate SET */
} w2_stmt_kind;

/* Phased connection sets (iWarp, docs/w2.md section 8.5): a set's connections, each
 * a family over an index (or one connection), every cell the source of one per
 * index, leading to the cell its expression computes. */
typedef struct w2_conset w2_conset;
typedef struct w2_conn {
    const char *name;
    w2_loc loc;
    const char *index;      /* the index variable's name, or NULL: one connection */
    w2_loc index_loc;
    int64_t lo, hi;         /* the index's range (lo = hi = 0 without one) */
    w2_expr *dst;           /* the destination cell, from the cell-id variables and the index */
    w2_conset *set;
    int slot;               /* the slot of its first index at every cell (check.c) */
    struct w2_conn *next;   /* the set's next connection */
} w2_conn;

struct w2_conset {
    const char *name;
    w2_loc loc;
    w2_conn *conns;
    int nslots;             /* slots a cell sends (and receives) in this set */
    uint32_t *plan;         /* the plan runtime/conset.s runs (check.c) */
    size_t nplan;
    int nphases;
    struct w2_conset *next;
    LLVMValueRef plan_g, send_g, recv_g;  /* lower.c */
};

/* q = 2*dir + chan names a side and channel (docs/design.md, section 2). */
enum { W2_DIR_L = 0, W2_DIR_R = 1, W2_CHAN_X = 0, W2_CHAN_Y = 1 };

struct w2_stmt {
    w2_stmt_kind kind;
    w2_loc loc;             /* the first token */
    w2_loc end_loc;         /* BLOCK: its 'end' */
    struct w2_stmt *next;
    w2_expr *lhs;           /* ASSIGN, RECEIVE: the lvalue; FOR: the loop variable; MSG*: the block's first element */
    w2_expr *rhs;           /* ASSIGN: the value; SEND: the value; FOR: first bound; MSGSEND: the cell;
                             * MSGRECV: where the length goes, or NULL */
    w2_expr *limit;         /* FOR: last bound; MSG*: the number of words */
    int downto;
    w2_expr *cond;          /* WHILE, IF */
    struct w2_stmt *body;   /* FOR, WHILE, BLOCK; IF: the then branch */
    struct w2_stmt *els;    /* IF */
    int dir, chan;          /* RECEIVE, SEND: U is the side toward y+1 (dir R on channel Y), D
                               the side toward y-1 (dir L on Y) */
    char dir_name;          /* RECEIVE, SEND: the direction as written: 'L', 'R', 'U' or 'D' */
    w2_loc dir_loc;
    w2_expr *ext;           /* RECEIVE, SEND: the fourth argument, or NULL; MSGRECV: where the source goes */
    const char *callee;     /* CALL */
    w2_loc callee_loc;
    w2_func *func;          /* CALL: resolved by the checker */
    w2_conn *conn;          /* CONSEND, CONRECV: callee names it, rhs its index (or NULL); resolved
                             * by the checker; lhs the block, limit the words */
    w2_conset *set;         /* INSTANTIATE: callee names it */
};

/* Globals a function assigns, directly or through the functions it calls. */
typedef struct w2_varref {
    w2_var *var;
    struct w2_varref *next;
} w2_varref;

struct w2_func {
    const char *name;
    w2_loc loc;             /* the name */
    w2_loc begin_loc, end_loc;
    w2_var *locals;
    w2_stmt *body;
    /* check.c */
    int id;
    w2_varref *writes;
    int visit;              /* search mark: does a call to it lead back to the caller? */
    int height;             /* calls nested in a call of it, itself included (1: calls none) */
    /* lower.c */
    LLVMValueRef fn;
};

/* The cellprogram block in source order: a declaration (one item per variable)
 * or a function. Order matters: a name is visible after its declaration. */
typedef struct w2_item {
    w2_var *var;
    w2_func *func;
    struct w2_item *next;
} w2_item;

typedef struct w2_param {
    const char *name;
    w2_loc loc;
    int is_out;
    w2_var *var;            /* its host declaration: matched by the checker */
    int duplicate;          /* a second parameter of the same name (reported) */
    struct w2_param *next;
} w2_param;

typedef struct w2_program {
    const char *name;
    w2_loc loc;
    w2_param *params;
    w2_var *host_vars;      /* the host declarations, in source order */
    w2_var *cellid;         /* the cell-id variable */
    int64_t first, last;    /* cellprogram (cid : FIRST : LAST) */
    w2_loc first_loc, last_loc;
    /* A 2-D cellprogram (x : X0 : X1, y : Y0 : Y1): cellid is x, cellid_y is y, and
     * the cells form an (X1-X0+1) x (Y1-Y0+1) array on the iWarp torus. */
    w2_var *cellid_y;
    int64_t first_y, last_y;
    w2_loc first_y_loc, last_y_loc;
    w2_loc cell_loc;        /* 'cellprogram' */
    w2_loc begin_loc, end_loc;
    w2_item *items;
    w2_conset *consets;     /* in source order */
    w2_stmt *body;
} w2_program;

/* NULL only when nothing usable could be parsed; syntax errors are reported, and
 * the caller checks diag->errors before going on. */
w2_program *w2_parse(w2_ctx *c, w2_token *tokens);

/* Resolves names, computes types, inserts implicit conversions and reports every
 * semantic error. Returns the number of errors it reported. */
int w2_check(w2_ctx *c, w2_program *prog);

/* Phased connection sets (conset.c), called by w2_check: the sets' names and
 * expressions, before the statements; then, in a program without errors, every
 * set's connections evaluated and checked and its plan made. The lookups of
 * statements' names. */
void w2_check_consets(w2_ctx *c, w2_program *prog);
void w2_plan_consets(w2_ctx *c, w2_program *prog);
w2_conn *w2_find_conn(const w2_program *prog, const char *name);
w2_conset *w2_find_conset(const w2_program *prog, const char *name);
/* The reservation channels a bus the program's sets are planned for (and the
 * program runs with: --channels N,1). */
int w2_conset_bus_channels(const w2_program *prog);

/* The module for a checked program. */
LLVMModuleRef w2_lower(w2_ctx *c, w2_program *prog, LLVMContextRef ctx);

#endif
