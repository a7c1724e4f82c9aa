/* The assembler's parser: one line at a time, the syntax of docs/design.md,
 * section 3. Every operation is checked against its row of target/warp_ops.def and
 * encoded with wt_encode, so the assembler cannot disagree with the disassembler or
 * the simulator. An error abandons its line only; the next line is still read so
 * that one run reports as many mistakes as it can. */
#include "warp_assembler.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "warp_dwarf.h"
#include "was_internal.h"

/* Sections beyond this are surely a runaway .zero, not a cell program: data memory
 * is at most a quarter of a megabyte, program memory 65536 bundles. */
#define MAX_SECTION_BYTES (1u << 30)
#define MAX_TEXT_BUNDLES 65536u

typedef struct lit {
    int is_sym;
    was_sym *sym;
    int32_t addend;
    uint32_t bits;
} lit;

typedef struct bundle {
    wt_insn insn;
    wt_bundle_use use;      /* its slots by target's resource model */
    lit lits[WT_BUNDLE_LITERALS];
    int nlits;
    int lit_line[WT_BUNDLE_LITERALS], lit_col[WT_BUNDLE_LITERALS];
    was_sym *target;        /* symbolic branch target, or NULL */
    int target_col;
} bundle;

/* A `.loc` as it reached a bundle: what .warp.lines records, plus the flags the
 * DWARF line program carries. */
typedef struct locrec {
    uint32_t addr, line, col, file;
    uint8_t is_stmt, basic_block;
    uint32_t discriminator;
} locrec;

typedef struct as {
    ws_diag *diag;
    const char *path;
    const wt_model *want;   /* -mcpu, or NULL */
    const wt_model *model;  /* from .model, or NULL */
    int in_iu_part;         /* parsing a bundle's interface-unit part (after '||') */
    was_unit u;
    was_sec sec;
    ws_strmap symbols;      /* u.syms by name */
    int line;
    const char *bol;        /* start of the current line, for columns */
    int loc_pending;
    uint32_t loc_line, loc_col, loc_file;
    uint32_t gate_pending[8][3];   /* `.gateloc`s for the next bundle: line, column, queue | send << 8 */
    int ngate_pending;
    uint8_t loc_is_stmt, loc_bb;
    uint32_t loc_discr;
    locrec *locs;
    size_t nlocs, loccap;
    int cur_file;           /* index into files, -1 before any .file */
    char **files;
    size_t nfiles;
    int have_cells;
    int flowctl;            /* .flowctl: the linker times the cells (Warp) */
    long cells_first, cells_last;
    long grid_width, grid_height; /* .grid: a 2-D cell array on the torus; 0 if none */
    was_sym text_sym;       /* .text itself, for the line program's relocation */
} as;

static int error_at(as *A, const char *pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int error_at(as *A, const char *pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ws_vreport(A->diag, WS_ERROR, A->line, (int)(pos - A->bol) + 1, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- Characters and tokens --------------------------------------------------- */

static int is_space(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int ident_start(int c) { return isalpha((unsigned char)c) || c == '_' || c == '.' || c == '$'; }
static int ident_char(int c) { return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$'; }

static const char *skip_ws(const char *p, const char *e)
{
    while (p < e && is_space(*p)) p++;
    return p;
}

static void trim(const char **s, const char **e)
{
    *s = skip_ws(*s, *e);
    while (*e > *s && is_space((*e)[-1])) (*e)--;
}

/* The end of a name starting at p, or p if none starts there. A '.' followed by a
 * digit starts a number (".5"), not a name. */
static const char *scan_ident(const char *p, const char *e)
{
    if (p >= e || !ident_start(*p) || (*p == '.' && p + 1 < e && is_digit(p[1]))) return p;
    p++;
    while (p < e && ident_char(*p)) p++;
    return p;
}

static int token_is(const char *s, const char *e, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(e - s) == n && memcmp(s, word, n) == 0;
}

/* "r" and digits: a register name, valid or not, so "r64" is an error rather than a
 * symbol that would only fail at link time. */
static int looks_like_register(const char *s, const char *e)
{
    if (e - s < 2 || *s != 'r') return 0;
    for (const char *p = s + 1; p < e; p++)
        if (!is_digit(*p)) return 0;
    return 1;
}

/* A symbol at p: a name, or any name in double quotes, as GNU as allows, for the
 * symbols whose names the operand syntax claims ("r5", "cid", "nan"). Returns the
 * token's end, or p if none starts there; [*ns, *ne) is the name without quotes
 * and *quoted says whether it had them. */
static const char *scan_symbol(const char *p, const char *e, const char **ns, const char **ne, int *quoted)
{
    *quoted = 0;
    if (p < e && *p == '"') {
        const char *q = p + 1;
        while (q < e && *q != '"') q++;
        if (q == e || q == p + 1) return p;
        *ns = p + 1;
        *ne = q;
        *quoted = 1;
        return q + 1;
    }
    const char *q = scan_ident(p, e);
    *ns = p;
    *ne = q;
    return q;
}

/* Splits [s, e) at the commas outside brackets and strings. -1 after an error. */
static int split_commas(as *A, const char *s, const char *e, const char **as_, const char **ae,
                        int max, int *n, const char *what)
{
    *n = 0;
    trim(&s, &e);
    if (s == e) return 0;
    int depth = 0, in_str = 0;
    const char *start = s;
    for (const char *p = s; p <= e; p++) {
        if (p < e && in_str) {
            if (*p == '\\' && p + 1 < e) p++;
            else if (*p == '"') in_str = 0;
            continue;
        }
        if (p < e && *p == '"') { in_str = 1; continue; }
        if (p < e && *p == '[') depth++;
        if (p < e && *p == ']') depth--;
        if (p == e || (*p == ',' && depth == 0)) {
            const char *ts = start, *te = p;
            trim(&ts, &te);
            if (ts == te) return error_at(A, ts, "expected an operand");
            if (*n == max) return error_at(A, ts, "too many operands for '%s'", what);
            as_[*n] = ts;
            ae[*n] = te;
            (*n)++;
            start = p + 1;
        }
    }
    return 0;
}

/* ---- Symbols ----------------------------------------------------------------- */

static was_sym *find_symbol(as *A, const char *s, size_t n, int create)
{
    was_sym *y = ws_strmap_get(&A->symbols, s, n);
    if (y || !create) return y;
    y = ws_xcalloc(1, sizeof *y);
    y->name = ws_xstrndup(s, n);
    y->type = STT_NOTYPE;
    ws_strmap_put(&A->symbols, y->name, n, y);
    ws_grow(&A->u.syms, &A->u.cap, A->u.nsyms + 1, sizeof *A->u.syms);
    A->u.syms[A->u.nsyms++] = y;
    return y;
}

static was_sym *ref_symbol(as *A, const char *s, const char *e)
{
    was_sym *y = find_symbol(A, s, (size_t)(e - s), 1);
    if (!y->referenced) {
        y->referenced = 1;
        y->ref_line = A->line;
        y->ref_col = (int)(s - A->bol) + 1;
    }
    return y;
}

static was_extra *extra_of(as *A, was_sec sec)
{
    return sec >= WAS_SEC_EXTRA && (size_t)(sec - WAS_SEC_EXTRA) < A->u.nextra ? &A->u.extra[sec - WAS_SEC_EXTRA] : NULL;
}

static uint32_t section_offset(as *A)
{
    switch (A->sec) {
    case WAS_SEC_TEXT: return (uint32_t)A->u.text.len;
    case WAS_SEC_DATA: return (uint32_t)A->u.data.len;
    case WAS_SEC_BSS: return A->u.bss_size;
    default: {
        was_extra *x = extra_of(A, A->sec);
        return x ? (uint32_t)x->data.len : 0;
    }
    }
}

/* The bytes of the current section, if it holds any (.data or a debug section). */
static ws_buf *section_bytes(as *A)
{
    if (A->sec == WAS_SEC_DATA) return &A->u.data;
    was_extra *x = extra_of(A, A->sec);
    return x ? &x->data : NULL;
}

static was_relocs *section_relocs(as *A)
{
    if (A->sec == WAS_SEC_DATA) return &A->u.rdata;
    was_extra *x = extra_of(A, A->sec);
    return x ? &x->rel : NULL;
}

static int define_symbol(as *A, const char *s, const char *e, was_sec sec, uint32_t value)
{
    was_sym *y = find_symbol(A, s, (size_t)(e - s), 1);
    if (y->sec != WAS_SEC_UNDEF) {
        error_at(A, s, "redefinition of '%s'", y->name);
        ws_report(A->diag, WS_NOTE, y->def_line, y->def_col, "previous definition of '%s' is here", y->name);
        return -1;
    }
    y->sec = sec;
    y->value = value;
    y->def_line = A->line;
    y->def_col = (int)(s - A->bol) + 1;
    return 0;
}

/* ---- Numbers and literals ------------------------------------------------------ */

typedef struct num {
    int is_float, is_hex;
    int64_t ival;
    uint32_t fbits;
} num;

/* Reads [s, e) as one number. 1: not shaped like a number; -1: an error was
 * reported (out of range). */
static int parse_number(as *A, const char *s, const char *e, num *out)
{
    memset(out, 0, sizeof *out);
    const char *p = s;
    int neg = 0;
    if (p < e && (*p == '+' || *p == '-')) neg = *p++ == '-';
    if (token_is(p, e, "inf") || token_is(p, e, "nan")) {
        out->is_float = 1;
        out->fbits = (*p == 'i' ? 0x7f800000u : 0x7fc00000u) | (neg ? 0x80000000u : 0);
        return 0;
    }
    if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        uint64_t v = 0;
        for (const char *q = p + 2; q < e; q++) {
            int c = tolower((unsigned char)*q), d;
            if (is_digit(c)) d = c - '0';
            else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
            else return 1;
            v = v * 16 + (unsigned)d;
            if (v > 0xffffffffu) return error_at(A, s, "'%.*s' does not fit in 32 bits", (int)(e - s), s);
        }
        out->is_hex = 1;
        out->ival = neg ? -(int64_t)v : (int64_t)v;
        return 0;
    }
    const char *q = p;
    int ndig = 0;
    while (q < e && is_digit(*q)) q++, ndig++;
    if (q < e && *q == '.') {
        out->is_float = 1;
        for (q++; q < e && is_digit(*q); q++) ndig++;
    }
    if (ndig == 0) return 1;
    if (q < e && (*q == 'e' || *q == 'E')) {
        out->is_float = 1;
        q++;
        if (q < e && (*q == '+' || *q == '-')) q++;
        if (q == e || !is_digit(*q)) return 1;
        while (q < e && is_digit(*q)) q++;
    }
    if (q != e) return 1;
    if (out->is_float) {
        char buf[128];
        if ((size_t)(e - s) >= sizeof buf) return error_at(A, s, "float literal is too long");
        memcpy(buf, s, (size_t)(e - s));
        buf[e - s] = 0;
        errno = 0;
        float f = strtof(buf, NULL);
        /* Underflow to a denormal or zero is the nearest float; overflow is not. */
        if (errno == ERANGE && isinf(f))
            return error_at(A, s, "float literal '%.*s' is out of range", (int)(e - s), s);
        out->fbits = wt_u(f);
        return 0;
    }
    uint64_t v = 0;
    for (const char *d = p; d < e; d++) {
        v = v * 10 + (unsigned)(*d - '0');
        if (v > 0xffffffffu) break;
    }
    if (v > (neg ? 0x80000000u : 0xffffffffu))
        return error_at(A, s, "integer literal '%.*s' does not fit in 32 bits", (int)(e - s), s);
    out->ival = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

/* A plain integer (decimal or hex) within [lo, hi], for directives and addends. */
static int parse_int(as *A, const char *s, const char *e, int64_t lo, int64_t hi, int64_t *v)
{
    num n;
    int r = parse_number(A, s, e, &n);
    if (r < 0) return -1;
    if (r > 0 || n.is_float) return error_at(A, s, "expected an integer, not '%.*s'", (int)(e - s), s);
    if (n.ival < lo || n.ival > hi)
        return error_at(A, s, "%.*s is out of range (%lld..%lld)", (int)(e - s), s, (long long)lo, (long long)hi);
    *v = n.ival;
    return 0;
}

/* A literal expression (section 3): a number, SYMBOL, SYMBOL+N or SYMBOL-N. ity is
 * the operand's literal type: an integer in an 'f' operand is that float, a float
 * in an 'i' operand is an error, hex is always the raw bits. */
static int parse_literal(as *A, const char *s, const char *e, char ity, lit *out)
{
    memset(out, 0, sizeof *out);
    const char *ns, *ne;
    int quoted;
    const char *q = scan_symbol(s, e, &ns, &ne, &quoted);
    if (q > s && (quoted || (!token_is(s, e, "inf") && !token_is(s, e, "nan")))) {
        if (!quoted && (wt_opnd_parse(s, (size_t)(q - s)) >= 0 || looks_like_register(s, q)))
            return error_at(A, s, "'%.*s' cannot be used in an expression (a symbol of that name is "
                            "written \"%.*s\")", (int)(q - s), s, (int)(q - s), s);
        const char *p = skip_ws(q, e);
        int64_t addend = 0;
        if (p < e) {
            if (*p != '+' && *p != '-')
                return error_at(A, p, "unexpected '%.*s' after symbol", (int)(e - p), p);
            int neg = *p == '-';
            const char *ns = skip_ws(p + 1, e);
            if (ns == e || *ns == '+' || *ns == '-') return error_at(A, ns, "expected a number after '%c'", *p);
            if (parse_int(A, ns, e, 0, neg ? 0x80000000LL : 0x7fffffffLL, &addend) != 0) return -1;
            if (neg) addend = -addend;
        }
        out->is_sym = 1;
        out->sym = ref_symbol(A, ns, ne);
        out->addend = (int32_t)addend;
        return 0;
    }
    num n;
    int r = parse_number(A, s, e, &n);
    if (r < 0) return -1;
    if (r > 0) return error_at(A, s, "invalid operand '%.*s'", (int)(e - s), s);
    if (n.is_float) {
        if (ity == 'i')
            return error_at(A, s, "float literal '%.*s' in an integer operand", (int)(e - s), s);
        out->bits = n.fbits;
    } else if (ity == 'f' && !n.is_hex) {
        out->bits = wt_u((float)n.ival);
    } else {
        out->bits = (uint32_t)n.ival;
    }
    return 0;
}

/* ---- Operands ------------------------------------------------------------------ */

static int same_literal(const lit *a, const lit *b)
{
    if (a->is_sym != b->is_sym) return 0;
    return a->is_sym ? a->sym == b->sym && a->addend == b->addend : a->bits == b->bits;
}

/* The literal field a literal goes to: an equal one already there, else the next
 * free one. */
static int assign_literal(as *A, bundle *B, const lit *L, const char *pos, uint8_t *code)
{
    for (int i = 0; i < B->nlits; i++)
        if (same_literal(&B->lits[i], L)) {
            *code = (uint8_t)(WT_OPND_IMM0 + i);
            return 0;
        }
    if (B->nlits == WT_BUNDLE_LITERALS) return error_at(A, pos, "more than two distinct literals in one bundle");
    B->lits[B->nlits] = *L;
    B->lit_line[B->nlits] = A->line;
    B->lit_col[B->nlits] = (int)(pos - A->bol) + 1;
    *code = (uint8_t)(WT_OPND_IMM0 + B->nlits);
    B->nlits++;
    return 0;
}

/* A path (@adr) exists on one model only. */
static int check_path_model(as *A, const char *s, unsigned o)
{
    const wt_model *m = A->model ? A->model : A->want;
    if (!wt_opnd_is_path(o) || !m || m->id == wt_paths[o - WT_OPND_PATH].model) return 0;
    return error_at(A, s, "%s is the address path of the %s model; %s has none", wt_paths[o - WT_OPND_PATH].name,
                    wt_model_get(wt_paths[o - WT_OPND_PATH].model)->name, m->name);
}

static int parse_source(as *A, bundle *B, const char *s, const char *e, char ity, uint8_t *code)
{
    trim(&s, &e);
    if (s == e) return error_at(A, s, "expected an operand");
    int o = wt_opnd_parse(s, (size_t)(e - s));
    if (o >= 0) {
        if (!wt_opnd_valid_src((unsigned)o))
            return error_at(A, s, "'%.*s' is a destination-only gate and cannot be read", (int)(e - s), s);
        if (check_path_model(A, s, (unsigned)o) != 0) return -1;
        *code = (uint8_t)o;
        return 0;
    }
    if (*s == '@') return error_at(A, s, "unknown gate '%.*s'", (int)(e - s), s);
    if (looks_like_register(s, e))
        return error_at(A, s, "'%.*s' is not a register (r0..r%d)", (int)(e - s), s, WT_OPND_NREGS - 1);
    if (*s == '[') return error_at(A, s, "a memory operand is not allowed here");
    lit L;
    if (parse_literal(A, s, e, ity, &L) != 0) return -1;
    return assign_literal(A, B, &L, s, code);
}

static int parse_dest(as *A, const char *s, const char *e, uint8_t *code)
{
    int o = wt_opnd_parse(s, (size_t)(e - s));
    if (o >= 0) {
        if (!wt_opnd_valid_dst((unsigned)o))
            return error_at(A, s, "'%.*s' cannot be a destination", (int)(e - s), s);
        if (check_path_model(A, s, (unsigned)o) != 0) return -1;
        if (wt_opnd_is_path((unsigned)o) && !A->in_iu_part)
            return error_at(A, s, "only the interface unit writes %.*s (after '||'); a cell reads it and passes "
                                  "each word on to the next", (int)(e - s), s);
        *code = (uint8_t)o;
        return 0;
    }
    if (*s == '@') return error_at(A, s, "unknown gate '%.*s'", (int)(e - s), s);
    if (looks_like_register(s, e))
        return error_at(A, s, "'%.*s' is not a register (r0..r%d)", (int)(e - s), s, WT_OPND_NREGS - 1);
    return error_at(A, s, "expected a register or an output gate as destination, not '%.*s'", (int)(e - s), s);
}

/* [A, B] or [A]: [A] reads r0 for B, which is 0 and costs no literal field. */
static int parse_memory(as *A, bundle *B, const char *s, const char *e, wt_slot *sl)
{
    if (*s != '[' || e[-1] != ']' || e - s < 2)
        return error_at(A, s, "expected a memory operand [A, B], not '%.*s'", (int)(e - s), s);
    const char *ps[2], *pe[2];
    int n;
    if (split_commas(A, s + 1, e - 1, ps, pe, 2, &n, "[]") != 0) return -1;
    if (n == 0) return error_at(A, s, "empty memory operand");
    if (parse_source(A, B, ps[0], pe[0], 'i', &sl->opnd[1]) != 0) return -1;
    sl->opnd[2] = WT_OPND_R0;
    if (n == 2 && parse_source(A, B, ps[1], pe[1], 'i', &sl->opnd[2]) != 0) return -1;
    return 0;
}

static int parse_target(as *A, bundle *B, const char *s, const char *e)
{
    if (is_digit(*s)) {
        int64_t v;
        if (parse_int(A, s, e, 0, 0xffff, &v) != 0) return -1;
        B->insn.target = (uint16_t)v;
        return 0;
    }
    const char *ns, *ne;
    int quoted;
    const char *q = scan_symbol(s, e, &ns, &ne, &quoted);
    if (q != e || q == s || (!quoted && (wt_opnd_parse(s, (size_t)(e - s)) >= 0 || looks_like_register(s, e))))
        return error_at(A, s, "expected a label or a bundle number as branch target, not '%.*s'",
                        (int)(e - s), s);
    B->target = ref_symbol(A, ns, ne);
    B->target_col = (int)(s - A->bol) + 1;
    return 0;
}

/* ---- Bundles ------------------------------------------------------------------- */

static int parse_operation(as *A, bundle *B, const char *s, const char *e)
{
    trim(&s, &e);
    if (s == e) return error_at(A, s, "expected an operation");
    const char *q = s;
    while (q < e && isalnum((unsigned char)*q)) q++;
    if (q == s || (q < e && !is_space(*q)))
        return error_at(A, s, "expected an operation, not '%.*s'", (int)(e - s), s);
    char name[16];
    size_t n = (size_t)(q - s);
    if (n >= sizeof name) return error_at(A, s, "unknown operation '%.*s'", (int)n, s);
    memcpy(name, s, n);
    name[n] = 0;
    const char *os[4], *oe[4];
    int nops;
    if (strcmp(name, "nop") == 0) {
        if (skip_ws(q, e) != e) return error_at(A, skip_ws(q, e), "'nop' takes no operands");
        return 0;
    }
    wt_op op = wt_op_lookup(name);
    if (op == WT_OP_NONE) return error_at(A, s, "unknown operation '%s'", name);
    const wt_op_info *info = &wt_ops[op];
    if (wt_op_iu_only(op) && !A->in_iu_part)
        return error_at(A, s, "only the interface unit has the address table that '%s' reads (after '||'); "
                              "it sends the cells what they need on @adr", name);
    if (split_commas(A, q, e, os, oe, 4, &nops, name) != 0) return -1;
    int want = (int)strlen(info->sig);
    if (nops != want)
        return error_at(A, s, "'%s' takes %d operand%s, got %d", name, want, want == 1 ? "" : "s", nops);

    if (!wt_bundle_fits(NULL, &B->use, info->uclass, 0))
        return error_at(A, s, "too many %s operations in one bundle", wt_unit_class_name(info->uclass));
    wt_bundle_take(&B->use, info->uclass, 0);
    /* the class's first free field: the encoding's order */
    int slot = 0;
    while (wt_slot_layouts[slot].uclass != info->uclass || B->insn.slot[slot].op != WT_OP_NONE) slot++;
    wt_slot *sl = &B->insn.slot[slot];

    for (int i = 0; i < want; i++) {
        char c = info->sig[i];
        const char *ts = os[i], *te = oe[i];
        int sub = wt_sig_subfield(c);
        int rc;
        switch (c) {
        case 'd':
            rc = parse_dest(A, ts, te, &sl->opnd[sub]);
            break;
        case 'K': {
            int o = wt_opnd_parse(ts, (size_t)(te - ts));
            rc = 0;
            if (o < 0 || !wt_opnd_is_reg((unsigned)o))
                rc = error_at(A, ts, "the counter of '%s' must be a register, not '%.*s'", name,
                              (int)(te - ts), ts);
            else
                sl->opnd[sub] = (uint8_t)o;
            break;
        }
        case 'D':
        case 'A':
        case 'B': {
            int o = wt_opnd_parse(ts, (size_t)(te - ts));
            rc = 0;
            if (o < 0 || !wt_opnd_is_pair((unsigned)o))
                rc = error_at(A, ts,
                              "'%s' takes a double in a register pair, named by its first register (r2, r4 "
                              "... r62), not '%.*s'",
                              name, (int)(te - ts), ts);
            else
                sl->opnd[sub] = (uint8_t)o;
            break;
        }
        case 'm':
            rc = parse_memory(A, B, ts, te, sl);
            break;
        case 't':
            rc = parse_target(A, B, ts, te);
            break;
        default:
            rc = parse_source(A, B, ts, te, info->imm_type, &sl->opnd[sub]);
            break;
        }
        if (rc != 0) return -1;
    }
    sl->op = (uint16_t)op;
    return 0;
}

static void add_reloc(was_relocs *r, uint32_t offset, uint32_t type, was_sym *sym, int32_t addend,
                      int line, int col)
{
    ws_grow(&r->v, &r->cap, r->n + 1, sizeof *r->v);
    r->v[r->n++] = (was_reloc){offset, type, sym, addend, line, col};
}

static void put32(ws_buf *b, uint32_t v)
{
    uint8_t w[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    ws_buf_append(b, w, 4);
}

/* The operations of one side of a bundle line ("a | b | c") into B. */
static int parse_operations(as *A, bundle *B, const char *s, const char *e)
{
    const char *start = s;
    for (const char *p = s;; p++) {
        if (p == e || *p == '|') {
            if (parse_operation(A, B, start, p) != 0) return -1;
            if (p == e) return 0;
            start = p + 1;
        }
    }
}

static void put_literals(bundle *B, was_relocs *rel, uint32_t off)
{
    for (int i = 0; i < B->nlits; i++) {
        if (B->lits[i].is_sym)
            add_reloc(rel, off, WT_R_IMM0 + (uint32_t)i, B->lits[i].sym, B->lits[i].addend, B->lit_line[i],
                      B->lit_col[i]);
        else
            B->insn.imm[i] = B->lits[i].bits;
    }
}

/* The Warp interface unit's part of a bundle (docs/design.md, section 1): what the
 * IU's own units may do, and no branch (it follows the cells' program counter). */
static int check_iu_part(as *A, const bundle *B, const char *pos)
{
    if (A->model && A->model->id != WT_MODEL_WARP)
        return error_at(A, pos, "only the Warp has an interface unit ('||' part)");
    if (B->target || B->insn.target) return error_at(A, pos, "the interface unit has no branches");
    for (int k = 0; k < WT_NSLOTS; k++) {
        const wt_slot *sl = &B->insn.slot[k];
        if (sl->op == WT_OP_NONE) continue;
        const wt_op_info *info = &wt_ops[sl->op];
        const char *why = NULL;
        if (info->uclass == WT_UC_FA || info->uclass == WT_UC_FM || info->uclass == WT_UC_BR)
            why = "has no unit for";
        else if (info->kind == WT_K_LOAD || info->kind == WT_K_STORE)
            why = "has no data memory for";
        else if (info->kind == WT_K_COMM)
            why = "cannot do";
        if (why) return error_at(A, pos, "the interface unit %s '%s'", why, info->name);
        for (const char *p = info->sig; *p; p++) {
            int sub = wt_sig_subfield(*p);
            unsigned o = *p == 'm' ? 0 : sl->opnd[sub < 0 ? 0 : sub];
            if (*p == 'd' && !wt_opnd_is_reg(o) && !wt_opnd_is_feed(o) && !wt_opnd_is_addr(o) && !wt_opnd_is_path(o))
                return error_at(A, pos, "the interface unit writes registers, host feeds, host addresses and "
                                        "the address path only");
            int bad_src = *p == 'm' ? !(wt_opnd_is_reg(sl->opnd[1]) || wt_opnd_is_imm(sl->opnd[1])) ||
                                          !(wt_opnd_is_reg(sl->opnd[2]) || wt_opnd_is_imm(sl->opnd[2]))
                                    : *p != 'd' && *p != 't' && !wt_opnd_is_reg(o) && !wt_opnd_is_imm(o);
            if (bad_src) return error_at(A, pos, "the interface unit reads registers and literals only");
        }
    }
    return 0;
}

static void parse_bundle(as *A, const char *s, const char *e)
{
    if (A->sec != WAS_SEC_TEXT) {
        error_at(A, s, "operations are only allowed in .text");
        return;
    }
    if (A->u.text.len / WT_BUNDLE_BYTES >= MAX_TEXT_BUNDLES) {
        error_at(A, s, "more than %u bundles in .text", MAX_TEXT_BUNDLES);
        return;
    }
    const char *iu = NULL;
    for (const char *p = s; p + 1 < e; p++)
        if (p[0] == '|' && p[1] == '|') {
            iu = p;
            break;
        }
    bundle B, U;
    memset(&B, 0, sizeof B);
    memset(&U, 0, sizeof U);
    if (parse_operations(A, &B, s, iu ? iu : e) != 0) return;
    A->in_iu_part = 1;
    int iu_bad = iu && (parse_operations(A, &U, iu + 2, e) != 0 || check_iu_part(A, &U, skip_ws(iu + 2, e)) != 0);
    A->in_iu_part = 0;
    if (iu_bad) return;
    uint32_t off = (uint32_t)A->u.text.len;
    put_literals(&B, &A->u.rtext, off);
    if (B.target) add_reloc(&A->u.rtext, off, WT_R_TARGET, B.target, 0, A->line, B.target_col);
    uint8_t bytes[WT_BUNDLE_BYTES];
    wt_encode(&B.insn, bytes);
    ws_buf_append(&A->u.text, bytes, sizeof bytes);
    if (iu || A->u.warp_iu.len) {
        /* The IU's program is parallel to .text: empty bundles before its first part. */
        static const uint8_t empty[WT_BUNDLE_BYTES];
        while (A->u.warp_iu.len < off) ws_buf_append(&A->u.warp_iu, empty, sizeof empty);
        put_literals(&U, &A->u.riu, off);
        wt_encode(&U.insn, bytes);
        ws_buf_append(&A->u.warp_iu, bytes, sizeof bytes);
    }
    if (A->loc_pending) {
        put32(&A->u.warp_lines, off);
        put32(&A->u.warp_lines, A->loc_line);
        put32(&A->u.warp_lines, A->loc_col);
        put32(&A->u.warp_lines, A->loc_file);
        ws_grow(&A->locs, &A->loccap, A->nlocs + 1, sizeof *A->locs);
        A->locs[A->nlocs++] = (locrec){off, A->loc_line, A->loc_col, A->loc_file, A->loc_is_stmt, A->loc_bb,
                                       A->loc_discr};
        A->loc_pending = 0;
    }
    for (int i = 0; i < A->ngate_pending; i++) {
        put32(&A->u.warp_gates, off);
        put32(&A->u.warp_gates, A->gate_pending[i][0]);
        put32(&A->u.warp_gates, A->gate_pending[i][1]);
        put32(&A->u.warp_gates, (uint32_t)A->cur_file | (A->gate_pending[i][2] & 0xff) << 16 |
                                    (A->gate_pending[i][2] >> 8) << 24);
    }
    A->ngate_pending = 0;
}

/* ---- Directives ---------------------------------------------------------------- */

typedef struct dargs {
    const char *name_pos;   /* the directive, for errors about it as a whole */
    const char *name;
    const char *s[16], *e[16];
    int n;
} dargs;

static int want_args(as *A, const dargs *d, int lo, int hi)
{
    if (d->n >= lo && d->n <= hi) return 0;
    if (lo == hi)
        return error_at(A, d->name_pos, "'%s' takes %d argument%s, got %d", d->name, lo, lo == 1 ? "" : "s", d->n);
    return error_at(A, d->name_pos, "'%s' takes %d to %d arguments, got %d", d->name, lo, hi, d->n);
}

/* A symbol name argument: the whole argument must be one name, quoted or not.
 * On success [*s, *e) is the name without its quotes. */
static int name_arg(as *A, const char **s, const char **e)
{
    const char *ns, *ne;
    int quoted;
    const char *q = scan_symbol(*s, *e, &ns, &ne, &quoted);
    if (q == *s || q != *e) return error_at(A, *s, "expected a symbol name, not '%.*s'", (int)(*e - *s), *s);
    if (!quoted && (wt_opnd_parse(*s, (size_t)(*e - *s)) >= 0 || looks_like_register(*s, *e)))
        return error_at(A, *s, "'%.*s' is an operand name and cannot be a symbol unquoted (write \"%.*s\")",
                        (int)(*e - *s), *s, (int)(*e - *s), *s);
    *s = ns;
    *e = ne;
    return 0;
}

/* The current section would grow to new_size bytes. Data memory is a few
 * hundred KiB on either model, so a section past the larger is an error here,
 * before the assembler spends memory and disk on it. */
static int grow_section(as *A, const char *pos, uint64_t new_size)
{
    if (new_size > MAX_SECTION_BYTES) return error_at(A, pos, "section is larger than %u bytes", MAX_SECTION_BYTES);
    if (A->sec == WAS_SEC_DATA || A->sec == WAS_SEC_BSS) {
        uint32_t limit = 0;
        for (int m = 0; m < WT_NMODELS; m++)
            if (wt_model_get((wt_model_id)m)->data_mem_bytes > limit) limit = wt_model_get((wt_model_id)m)->data_mem_bytes;
        if (new_size > limit)
            return error_at(A, pos, "%s would be %llu bytes; data memory holds at most %u",
                            A->sec == WAS_SEC_DATA ? ".data" : ".bss", (unsigned long long)new_size, limit);
    }
    return 0;
}

static void zero_fill(as *A, uint32_t n)
{
    static const char zeros[256];
    if (A->sec == WAS_SEC_BSS) {
        A->u.bss_size += n;
        return;
    }
    ws_buf *b = section_bytes(A);
    while (b && n > 0) {
        uint32_t k = n < sizeof zeros ? n : (uint32_t)sizeof zeros;
        ws_buf_append(b, zeros, k);
        n -= k;
    }
}

static int dir_model(as *A, dargs *d)
{
    if (want_args(A, d, 1, 1) != 0 || name_arg(A, &d->s[0], &d->e[0]) != 0) return -1;
    char name[16];
    size_t n = (size_t)(d->e[0] - d->s[0]);
    const wt_model *m = NULL;
    if (n < sizeof name) {
        memcpy(name, d->s[0], n);
        name[n] = 0;
        m = wt_model_by_name(name);
    }
    if (!m) return error_at(A, d->s[0], "unknown model '%.*s' (expected warp or iwarp)", (int)n, d->s[0]);
    if (A->want && A->want != m)
        return error_at(A, d->s[0], "'.model %s' does not match -mcpu=%s", m->name, A->want->name);
    if (A->model && A->model != m)
        return error_at(A, d->s[0], "'.model %s' conflicts with the earlier '.model %s'", m->name, A->model->name);
    A->model = m;
    return 0;
}

static int dir_cells(as *A, dargs *d)
{
    int64_t first, last;
    if (want_args(A, d, 2, 2) != 0) return -1;
    if (parse_int(A, d->s[0], d->e[0], 0, 0x7fffffff, &first) != 0) return -1;
    if (parse_int(A, d->s[1], d->e[1], 0, 0x7fffffff, &last) != 0) return -1;
    if (first > last) return error_at(A, d->s[0], "first cell %lld is after last cell %lld", (long long)first, (long long)last);
    if (last - first + 1 > WT_MAX_CELLS)
        return error_at(A, d->s[1], "%lld cells; the array has at most %d", (long long)(last - first + 1), WT_MAX_CELLS);
    if (A->have_cells && (A->cells_first != first || A->cells_last != last))
        return error_at(A, d->name_pos, "'.cells %lld, %lld' conflicts with the earlier '.cells %ld, %ld'",
                        (long long)first, (long long)last, A->cells_first, A->cells_last);
    if (!A->have_cells) ws_buf_printf(&A->u.warp_cells, "%lld %lld 0\n", (long long)first, (long long)last);
    A->have_cells = 1;
    A->cells_first = (long)first;
    A->cells_last = (long)last;
    return 0;
}

/* `.grid W, H`: the cells of `.cells` form a W x H array on the iWarp torus, the
 * host at its edges (a 2-D W2 cellprogram): the second line of .warp.cells. */
static int dir_grid(as *A, dargs *d)
{
    int64_t w, h;
    if (want_args(A, d, 2, 2) != 0) return -1;
    if (parse_int(A, d->s[0], d->e[0], 1, 32, &w) != 0) return -1;
    if (parse_int(A, d->s[1], d->e[1], 1, 32, &h) != 0) return -1;
    const wt_model *m = A->model ? A->model : A->want;
    if (!m || m->id != WT_MODEL_IWARP)
        return error_at(A, d->name_pos, "'.grid' needs the iwarp model: a 2-D cell array is a torus of iWarp cells");
    if (!A->have_cells) return error_at(A, d->name_pos, "'.grid' needs the array's '.cells' before it");
    if (w * h != A->cells_last - A->cells_first + 1)
        return error_at(A, d->name_pos, "'.grid %lld, %lld' is %lld cells, but '.cells' gives %ld", (long long)w,
                        (long long)h, (long long)(w * h), A->cells_last - A->cells_first + 1);
    if (A->grid_width && (A->grid_width != w || A->grid_height != h))
        return error_at(A, d->name_pos, "'.grid %lld, %lld' conflicts with the earlier '.grid %ld, %ld'",
                        (long long)w, (long long)h, A->grid_width, A->grid_height);
    if (!A->grid_width) ws_buf_printf(&A->u.warp_cells, "grid %lld %lld\n", (long long)w, (long long)h);
    A->grid_width = (long)w;
    A->grid_height = (long)h;
    return 0;
}

static uint32_t file_index(as *A, const char *name, size_t n)
{
    for (size_t i = 0; i < A->nfiles; i++)
        if (strlen(A->files[i]) == n && memcmp(A->files[i], name, n) == 0) return (uint32_t)i;
    A->files = ws_xrealloc(A->files, (A->nfiles + 1) * sizeof *A->files);
    A->files[A->nfiles] = ws_xstrndup(name, n);
    ws_buf_append(&A->u.warp_files, name, n);
    ws_buf_append(&A->u.warp_files, "", 1);
    return (uint32_t)A->nfiles++;
}

static int dir_file(as *A, dargs *d)
{
    if (want_args(A, d, 1, 1) != 0) return -1;
    const char *s = d->s[0], *e = d->e[0];
    if (*s != '"' || e - s < 2 || e[-1] != '"')
        return error_at(A, s, "expected a quoted file name, not '%.*s'", (int)(e - s), s);
    ws_buf name = {0};
    for (const char *p = s + 1; p < e - 1; p++) {
        char c = *p;
        if (c == '\\') {
            if (++p >= e - 1) { ws_buf_free(&name); return error_at(A, p, "unterminated escape"); }
            switch (*p) {
            case '\\': case '"': c = *p; break;
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            default: ws_buf_free(&name); return error_at(A, p - 1, "unknown escape '\\%c'", *p);
            }
        } else if (c == '"') {
            ws_buf_free(&name);
            return error_at(A, p, "unexpected '\"' in file name");
        }
        ws_buf_append(&name, &c, 1);
    }
    if (name.len == 0) return error_at(A, s, "empty file name");
    A->cur_file = (int)file_index(A, name.data, name.len);
    ws_buf_free(&name);
    return 0;
}

/* .loc LINE [COL] [is_stmt 0|1] [basic_block] [discriminator N]: the arguments may
 * be separated by blanks, as gas writes them. The options are gas's and describe
 * this bundle only: is_stmt 0 says it does not begin a statement of the line (the
 * line's code began earlier in its block), basic_block that it begins a basic
 * block, a discriminator tells apart code of one line (a pipelined kernel's
 * iterations). */
static int dir_loc(as *A, const char *pos, const char *s, const char *e)
{
    int64_t v[2] = {0, 0};
    int n = 0, is_stmt = 1, bb = 0;
    int64_t discr = 0;
    const char *p = skip_ws(s, e);
    while (p < e) {
        const char *q = p;
        while (q < e && !is_space(*q) && *q != ',') q++;
        if (q == p) return error_at(A, p, "expected a number");
        if (token_is(p, q, "is_stmt") || token_is(p, q, "discriminator")) {
            int stmt = *p == 'i';
            const char *r = skip_ws(q, e), *t = r;
            while (t < e && !is_space(*t) && *t != ',') t++;
            int64_t v;
            if (r == t) return error_at(A, r, stmt ? "expected 0 or 1 after 'is_stmt'" : "expected a number after 'discriminator'");
            if (parse_int(A, r, t, 0, stmt ? 1 : 0xffffffffLL, &v) != 0) return -1;
            if (stmt) is_stmt = (int)v;
            else discr = v;
            q = t;
        } else if (token_is(p, q, "basic_block")) {
            bb = 1;
        } else if (n > 0 && ident_start(*p)) {
            return error_at(A, p, "unknown '.loc' option '%.*s' (expected is_stmt, basic_block or discriminator)",
                            (int)(q - p), p);
        } else {
            if (n == 2) return error_at(A, p, "too many arguments to '.loc'");
            if (parse_int(A, p, q, 0, 0xffffffffLL, &v[n]) != 0) return -1;
            n++;
        }
        p = skip_ws(q, e);
        if (p < e && *p == ',') p = skip_ws(p + 1, e);
    }
    if (n == 0) return error_at(A, pos, "'.loc' takes a line and an optional column");
    /* Two .loc before one bundle: the first is a row of its own at the bundle's
     * address (a statement that begins in a bundle named by another), in the line
     * table only; the last names the bundle, there and in .warp.lines. */
    if (A->loc_pending) {
        if (A->nlocs == A->loccap) {
            A->loccap = A->loccap ? 2 * A->loccap : 256;
            A->locs = ws_xrealloc(A->locs, A->loccap * sizeof *A->locs);
        }
        A->locs[A->nlocs++] = (locrec){(uint32_t)A->u.text.len, A->loc_line, A->loc_col, A->loc_file, A->loc_is_stmt,
                                       A->loc_bb, A->loc_discr};
    }
    A->loc_is_stmt = (uint8_t)is_stmt;
    A->loc_bb = (uint8_t)bb;
    A->loc_discr = (uint32_t)discr;
    /* Without a .file the lines can only be of the assembly itself. */
    if (A->cur_file < 0) A->cur_file = (int)file_index(A, A->path, strlen(A->path));
    A->loc_pending = 1;
    A->loc_line = (uint32_t)v[0];
    A->loc_col = (uint32_t)v[1];
    A->loc_file = (uint32_t)A->cur_file;
    return 0;
}

/* .gateloc receive|send GATE, LINE, COL: the next bundle's receive from (send to)
 * GATE is the statement at LINE:COL of the current file, not the bundle's own line
 * record (the compiler's, for Warp flow-control diagnostics; .warp.gates). */
static int dir_gateloc(as *A, dargs *d)
{
    if (want_args(A, d, 3, 3) != 0) return -1;
    const char *k = d->s[0], *ke = k;
    while (ke < d->e[0] && !is_space(*ke)) ke++;
    int send = token_is(k, ke, "send");
    if (!send && !token_is(k, ke, "receive")) return error_at(A, k, "expected 'receive' or 'send'");
    const char *g = skip_ws(ke, d->e[0]);
    int q = wt_opnd_parse(g, (size_t)(d->e[0] - g));
    if (q < 0 || !wt_opnd_is_gate((unsigned)q)) return error_at(A, g, "expected a gate (@xl, @yl, @xr or @yr)");
    int64_t line, col;
    if (parse_int(A, d->s[1], d->e[1], 0, 0xffffffffLL, &line) != 0 ||
        parse_int(A, d->s[2], d->e[2], 0, 0xffffffffLL, &col) != 0)
        return -1;
    if (A->ngate_pending == 8) return error_at(A, k, "more than 8 '.gateloc' for one bundle");
    if (A->cur_file < 0) A->cur_file = (int)file_index(A, A->path, strlen(A->path));
    uint32_t *rec = A->gate_pending[A->ngate_pending++];
    rec[0] = (uint32_t)line;
    rec[1] = (uint32_t)col;
    rec[2] = (uint32_t)(q - WT_OPND_GATE) | (uint32_t)send << 8;
    return 0;
}

static int dir_host(as *A, dargs *d)
{
    if (want_args(A, d, 4, 5) != 0 || name_arg(A, &d->s[0], &d->e[0]) != 0) return -1;
    /* A host array is named on warp-sim's command line and in the runtime: a W2
     * identifier, nothing else. */
    int ident = !is_digit(*d->s[0]);
    for (const char *c = d->s[0]; ident && c < d->e[0]; c++) ident = isalnum((unsigned char)*c) || *c == '_';
    if (!ident)
        return error_at(A, d->s[0], "host array name '%.*s' is not an identifier (letters, digits and '_')",
                        (int)(d->e[0] - d->s[0]), d->s[0]);
    const char *dir, *type;
    if (token_is(d->s[1], d->e[1], "in")) dir = "in";
    else if (token_is(d->s[1], d->e[1], "out")) dir = "out";
    else return error_at(A, d->s[1], "expected 'in' or 'out', not '%.*s'", (int)(d->e[1] - d->s[1]), d->s[1]);
    if (token_is(d->s[2], d->e[2], "float")) type = "float";
    else if (token_is(d->s[2], d->e[2], "int")) type = "int";
    else return error_at(A, d->s[2], "expected 'float' or 'int', not '%.*s'", (int)(d->e[2] - d->s[2]), d->s[2]);
    int64_t d0, d1 = 0;
    if (parse_int(A, d->s[3], d->e[3], 0, MAX_SECTION_BYTES / 4, &d0) != 0) return -1;
    if (d->n == 5 && parse_int(A, d->s[4], d->e[4], 0, MAX_SECTION_BYTES / 4, &d1) != 0) return -1;
    if (d0 == 0 && d1 != 0) return error_at(A, d->s[4], "a scalar (first dimension 0) has no second dimension");
    uint64_t elems = d0 == 0 ? 1 : (uint64_t)d0 * (uint64_t)(d1 ? d1 : 1);
    uint64_t bytes = elems * 4;
    if ((uint64_t)A->u.host_size + bytes > WT_MAX_HOST_BYTES)
        return error_at(A, d->s[3], "host array '%.*s' needs %llu bytes%s; host memory holds at most %u",
                        (int)(d->e[0] - d->s[0]), d->s[0], (unsigned long long)bytes, A->u.host_size ? " more" : "",
                        WT_MAX_HOST_BYTES);
    if (define_symbol(A, d->s[0], d->e[0], WAS_SEC_HOST, A->u.host_size) != 0) return -1;
    was_sym *y = find_symbol(A, d->s[0], (size_t)(d->e[0] - d->s[0]), 0);
    /* Host arrays are the program's interface to the host: every object naming
     * one means the same array, so the symbol is always global. */
    y->global = 1;
    y->type = STT_OBJECT;
    y->size = (uint32_t)bytes;
    A->u.host_size += (uint32_t)bytes;
    ws_buf_printf(&A->u.warp_host, "%s %s %s %lld %lld\n", y->name, dir, type, (long long)d0, (long long)d1);
    return 0;
}

static int dir_globl(as *A, dargs *d)
{
    if (d->n == 0) return error_at(A, d->name_pos, "'%s' needs a symbol name", d->name);
    for (int i = 0; i < d->n; i++) {
        if (name_arg(A, &d->s[i], &d->e[i]) != 0) return -1;
        find_symbol(A, d->s[i], (size_t)(d->e[i] - d->s[i]), 1)->global = 1;
    }
    return 0;
}

static int dir_type(as *A, dargs *d)
{
    if (want_args(A, d, 2, 2) != 0 || name_arg(A, &d->s[0], &d->e[0]) != 0) return -1;
    const char *s = d->s[1], *e = d->e[1];
    int type;
    if (*s == '@' || *s == '%') s++;
    if (token_is(s, e, "function")) type = STT_FUNC;
    else if (token_is(s, e, "object")) type = STT_OBJECT;
    else if (token_is(s, e, "notype")) type = STT_NOTYPE;
    else return error_at(A, d->s[1], "expected @function, @object or @notype, not '%.*s'", (int)(e - d->s[1]), d->s[1]);
    find_symbol(A, d->s[0], (size_t)(d->e[0] - d->s[0]), 1)->type = type;
    return 0;
}

/* .size NAME, N or .size NAME, .-NAME (the bytes from the label to here). */
static int dir_size(as *A, dargs *d)
{
    if (want_args(A, d, 2, 2) != 0 || name_arg(A, &d->s[0], &d->e[0]) != 0) return -1;
    was_sym *y = find_symbol(A, d->s[0], (size_t)(d->e[0] - d->s[0]), 1);
    const char *s = d->s[1], *e = d->e[1];
    if (*s == '.' && (s + 1 == e || is_space(s[1]) || s[1] == '-')) {
        const char *p = skip_ws(s + 1, e);
        if (p == e || *p != '-') return error_at(A, s, "expected '.-SYMBOL' or a number");
        const char *ns = skip_ws(p + 1, e);
        const char *ne = e;
        if (name_arg(A, &ns, &ne) != 0) return -1;
        was_sym *from = find_symbol(A, ns, (size_t)(ne - ns), 0);
        if (!from || from->sec == WAS_SEC_UNDEF || from->sec != A->sec)
            return error_at(A, ns, "'%.*s' is not defined earlier in this section", (int)(e - ns), ns);
        y->size = section_offset(A) - from->value;
        return 0;
    }
    int64_t v;
    if (parse_int(A, s, e, 0, 0xffffffffLL, &v) != 0) return -1;
    y->size = (uint32_t)v;
    return 0;
}

/* In .text every bundle already sits on a bundle boundary, the only alignment
 * program memory has, so .align there asks for nothing. */
static int dir_align(as *A, dargs *d)
{
    int64_t v;
    if (want_args(A, d, 1, 1) != 0 || parse_int(A, d->s[0], d->e[0], 1, 4096, &v) != 0) return -1;
    if (v & (v - 1)) return error_at(A, d->s[0], "alignment %lld is not a power of two", (long long)v);
    if (A->sec == WAS_SEC_TEXT) return 0;
    uint32_t off = section_offset(A), pad = (uint32_t)((v - off % v) % v);
    if (grow_section(A, d->s[0], (uint64_t)off + pad) != 0) return -1;
    zero_fill(A, pad);
    if (A->sec != WAS_SEC_DATA && A->sec != WAS_SEC_BSS) return 0;   /* debug sections are byte streams */
    uint32_t *align = A->sec == WAS_SEC_DATA ? &A->u.data_align : &A->u.bss_align;
    if (*align < (uint32_t)v) *align = (uint32_t)v;
    return 0;
}

/* .word takes any number of values, so it reads its own list. */
/* The first stop character in [p, e) outside a quoted string (whose escapes it
 * skips), or e. */
static const char *find_unquoted(const char *p, const char *e, char stop)
{
    for (int in_str = 0; p < e; p++) {
        if (in_str) {
            if (*p == '\\' && p + 1 < e) p++;
            else if (*p == '"') in_str = 0;
        } else if (*p == '"') {
            in_str = 1;
        } else if (*p == stop) {
            return p;
        }
    }
    return e;
}

/* The next value of a directive's comma-separated list, trimmed, from *cur on: 1 and
 * [*vs, *ve) set, then *cur past its comma (NULL after the last value); 0 when the
 * list is done; -1 for an empty value, reported. A comma inside a quoted string
 * belongs to the string. */
static int next_value(as *A, const char **cur, const char *e, const char **vs, const char **ve)
{
    if (!*cur) return 0;
    const char *p = find_unquoted(*cur, e, ',');
    *vs = *cur;
    *ve = p;
    trim(vs, ve);
    *cur = p < e ? p + 1 : NULL;
    if (*vs == *ve) return error_at(A, *vs, "expected a value");
    return 1;
}

static int dir_word(as *A, const char *pos, const char *s, const char *e)
{
    ws_buf *bytes = section_bytes(A);
    was_relocs *rel = section_relocs(A);
    if (!bytes)
        return error_at(A, pos, "'.word' is only allowed in .data and debug sections%s",
                        A->sec == WAS_SEC_BSS ? " (use .zero in .bss)" : "");
    trim(&s, &e);
    if (s == e) return error_at(A, pos, "'.word' needs at least one value");
    const char *vs, *ve;
    for (int more; (more = next_value(A, &s, e, &vs, &ve)) != 0;) {
        if (more < 0 || grow_section(A, vs, bytes->len + 4u) != 0) return -1;
        lit L;
        if (parse_literal(A, vs, ve, 'x', &L) != 0) return -1;
        if (L.is_sym)
            add_reloc(rel, (uint32_t)bytes->len, WT_R_ABS32, L.sym, L.addend, A->line, (int)(vs - A->bol) + 1);
        put32(bytes, L.is_sym ? 0 : L.bits);
    }
    return 0;
}

/* A quoted string with C's escapes (\\ \" \n \t and octal \NNN, as the
 * compiler writes control characters), appended to out. */
static int parse_string(as *A, const char *s, const char *e, ws_buf *out)
{
    if (e - s < 2 || *s != '"' || e[-1] != '"')
        return error_at(A, s, "expected a quoted string, not '%.*s'", (int)(e - s), s);
    for (const char *p = s + 1; p < e - 1; p++) {
        char c = *p;
        if (c == '"') return error_at(A, p, "unexpected '\"' in string");
        if (c == '\\') {
            if (++p >= e - 1) return error_at(A, p, "unterminated escape");
            if (*p >= '0' && *p <= '7') {
                unsigned v = 0;
                for (int k = 0; k < 3 && p < e - 1 && *p >= '0' && *p <= '7'; k++, p++) v = v * 8 + (unsigned)(*p - '0');
                p--;
                if (v > 255) return error_at(A, p, "octal escape out of range");
                c = (char)v;
            } else {
                switch (*p) {
                case '\\': case '"': c = *p; break;
                case 'n': c = '\n'; break;
                case 't': c = '\t'; break;
                default: return error_at(A, p - 1, "unknown escape '\\%c'", *p);
                }
            }
        }
        ws_buf_append(out, &c, 1);
    }
    return 0;
}

/* .byte, .short, .uleb128, .sleb128 (integers) and .ascii, .asciz (strings): the
 * data directives of debug sections, any number of values each. .word (and its
 * names .long and .4byte) is dir_word, which also takes symbols. */
static int dir_data(as *A, const char *name, const char *pos, const char *s, const char *e)
{
    ws_buf *bytes = section_bytes(A);
    if (!bytes || A->sec == WAS_SEC_DATA)
        return error_at(A, pos, "'%s' is only allowed in debug sections (.section .debug_...)", name);
    int is_str = strcmp(name, ".ascii") == 0 || strcmp(name, ".asciz") == 0 || strcmp(name, ".string") == 0;
    trim(&s, &e);
    if (s == e) return error_at(A, pos, "'%s' needs at least one value", name);
    const char *vs, *ve;
    for (int more; (more = next_value(A, &s, e, &vs, &ve)) != 0;) {
        if (more < 0) return -1;
        if (is_str) {
            if (parse_string(A, vs, ve, bytes) != 0) return -1;
            if (strcmp(name, ".ascii") != 0) ws_buf_append(bytes, "", 1);   /* .asciz, .string */
        } else if (strcmp(name, ".byte") == 0) {
            int64_t v;
            if (parse_int(A, vs, ve, -128, 255, &v) != 0) return -1;
            wd_u8(bytes, (unsigned)v);
        } else if (strcmp(name, ".short") == 0 || strcmp(name, ".2byte") == 0) {
            int64_t v;
            if (parse_int(A, vs, ve, -32768, 65535, &v) != 0) return -1;
            wd_u16(bytes, (unsigned)v);
        } else if (strcmp(name, ".uleb128") == 0) {
            int64_t v;
            if (parse_int(A, vs, ve, 0, 0xffffffffLL, &v) != 0) return -1;
            wd_uleb(bytes, (uint64_t)v);
        } else {
            int64_t v;
            if (parse_int(A, vs, ve, -0x80000000LL, 0x7fffffffLL, &v) != 0) return -1;
            wd_sleb(bytes, v);
        }
        if (grow_section(A, vs, bytes->len) != 0) return -1;
    }
    return 0;
}

/* .section NAME [, "" [, @progbits]]: .text, .data and .bss by another name, or a
 * debug section (non-allocated, its name .debug_...), made on first use. */
static int dir_section(as *A, dargs *d)
{
    if (d->n < 1 || d->n > 3) return want_args(A, d, 1, 3);
    const char *s = d->s[0], *e = d->e[0];
    if (scan_ident(s, e) != e) return error_at(A, s, "expected a section name, not '%.*s'", (int)(e - s), s);
    if (d->n >= 2 && !token_is(d->s[1], d->e[1], "\"\""))
        return error_at(A, d->s[1], "section flags %.*s are not supported (debug sections take \"\")",
                        (int)(d->e[1] - d->s[1]), d->s[1]);
    if (d->n == 3 && !token_is(d->s[2], d->e[2], "@progbits") && !token_is(d->s[2], d->e[2], "%progbits"))
        return error_at(A, d->s[2], "expected @progbits, not '%.*s'", (int)(d->e[2] - d->s[2]), d->s[2]);
    if (token_is(s, e, ".text") || token_is(s, e, ".data") || token_is(s, e, ".bss")) {
        A->sec = s[1] == 't' ? WAS_SEC_TEXT : s[1] == 'd' ? WAS_SEC_DATA : WAS_SEC_BSS;
        return 0;
    }
    if (e - s <= 7 || strncmp(s, ".debug_", 7) != 0)
        return error_at(A, s, "section '%.*s' is not supported (.text, .data, .bss and .debug_* only)", (int)(e - s), s);
    for (size_t k = 0; k < A->u.nextra; k++)
        if (token_is(s, e, A->u.extra[k].name)) {
            A->sec = (was_sec)(WAS_SEC_EXTRA + k);
            return 0;
        }
    if (A->u.nextra >= 64) return error_at(A, s, "too many sections");
    A->u.extra = ws_xrealloc(A->u.extra, (A->u.nextra + 1) * sizeof *A->u.extra);
    memset(&A->u.extra[A->u.nextra], 0, sizeof *A->u.extra);
    A->u.extra[A->u.nextra].name = ws_xstrndup(s, (size_t)(e - s));
    A->sec = (was_sec)(WAS_SEC_EXTRA + A->u.nextra++);
    return 0;
}

/* `.iutable V, V, ...`: entries appended to the Warp interface unit's address table,
 * which tld reads by byte offset (entry k at 4k). One object of a program gives it
 * (warp-ld), so offsets need no relocation; entries are numbers (an address the
 * cells add to their own array's, as the seed's FFT addressing does). */
static int dir_iutable(as *A, const char *pos, const char *s, const char *e)
{
    const wt_model *m = A->model ? A->model : A->want;
    if (m && !m->iu_table_words) return error_at(A, pos, "the %s model has no interface unit address table", m->name);
    uint32_t most = wt_model_get(WT_MODEL_WARP)->iu_table_words;
    trim(&s, &e);
    if (s == e) return error_at(A, pos, "'.iutable' needs at least one value");
    const char *vs, *ve;
    for (int more; (more = next_value(A, &s, e, &vs, &ve)) != 0;) {
        if (more < 0) return -1;
        if (A->u.warp_iutab.len / 4 >= most)
            return error_at(A, vs, "more than %u entries in the interface unit's address table", most);
        int64_t v;
        if (parse_int(A, vs, ve, INT32_MIN, UINT32_MAX, &v) != 0) return -1;
        put32(&A->u.warp_iutab, (uint32_t)v);
    }
    return 0;
}

static int dir_zero(as *A, dargs *d)
{
    int64_t v;
    if (A->sec == WAS_SEC_TEXT) return error_at(A, d->name_pos, "'.zero' is not allowed in .text");
    if (want_args(A, d, 1, 1) != 0 || parse_int(A, d->s[0], d->e[0], 0, MAX_SECTION_BYTES, &v) != 0) return -1;
    if (grow_section(A, d->s[0], (uint64_t)section_offset(A) + (uint64_t)v) != 0) return -1;
    zero_fill(A, (uint32_t)v);
    return 0;
}

static void parse_directive(as *A, const char *s, const char *e)
{
    const char *q = scan_ident(s, e);
    if (q == s) {
        error_at(A, s, "expected a directive, a label or an operation");
        return;
    }
    char name[32];
    size_t n = (size_t)(q - s);
    if (n >= sizeof name) n = sizeof name - 1;
    memcpy(name, s, n);
    name[n] = 0;
    if (q < e && !is_space(*q)) {
        error_at(A, q, "unexpected '%c' after '%s'", *q, name);
        return;
    }
    if (strcmp(name, ".loc") == 0) {
        dir_loc(A, s, q, e);
        return;
    }
    if (strcmp(name, ".word") == 0 || strcmp(name, ".long") == 0 || strcmp(name, ".4byte") == 0) {
        dir_word(A, s, q, e);
        return;
    }
    if (strcmp(name, ".iutable") == 0) {
        dir_iutable(A, s, q, e);
        return;
    }
    static const char *const data_dirs[] = {".byte", ".short", ".2byte", ".uleb128", ".sleb128",
                                            ".ascii", ".asciz", ".string"};
    for (size_t k = 0; k < sizeof data_dirs / sizeof *data_dirs; k++)
        if (strcmp(name, data_dirs[k]) == 0) {
            dir_data(A, data_dirs[k], s, q, e);
            return;
        }
    dargs d = {.name_pos = s, .name = name};
    if (split_commas(A, q, e, d.s, d.e, 16, &d.n, name) != 0) return;
    if (strcmp(name, ".text") == 0 || strcmp(name, ".data") == 0 || strcmp(name, ".bss") == 0) {
        if (want_args(A, &d, 0, 0) == 0)
            A->sec = name[1] == 't' ? WAS_SEC_TEXT : name[1] == 'd' ? WAS_SEC_DATA : WAS_SEC_BSS;
    } else if (strcmp(name, ".section") == 0) {
        dir_section(A, &d);
    } else if (strcmp(name, ".model") == 0) {
        dir_model(A, &d);
    } else if (strcmp(name, ".cells") == 0) {
        dir_cells(A, &d);
    } else if (strcmp(name, ".grid") == 0) {
        dir_grid(A, &d);
    } else if (strcmp(name, ".flowctl") == 0) {
        if (want_args(A, &d, 0, 0) == 0) A->flowctl = 1;
    } else if (strcmp(name, ".gateloc") == 0) {
        dir_gateloc(A, &d);
    } else if (strcmp(name, ".file") == 0) {
        dir_file(A, &d);
    } else if (strcmp(name, ".host") == 0) {
        dir_host(A, &d);
    } else if (strcmp(name, ".globl") == 0 || strcmp(name, ".global") == 0) {
        dir_globl(A, &d);
    } else if (strcmp(name, ".type") == 0) {
        dir_type(A, &d);
    } else if (strcmp(name, ".size") == 0) {
        dir_size(A, &d);
    } else if (strcmp(name, ".align") == 0) {
        dir_align(A, &d);
    } else if (strcmp(name, ".zero") == 0) {
        dir_zero(A, &d);
    } else {
        error_at(A, s, "unknown directive '%s'", name);
    }
}

/* ---- Lines ----------------------------------------------------------------------- */

static void parse_line(as *A, const char *s, const char *e)
{
    const char *p = skip_ws(s, e);
    for (;;) {
        const char *ns, *ne;
        int quoted;
        const char *q = scan_symbol(p, e, &ns, &ne, &quoted);
        if (q == p) break;
        const char *r = skip_ws(q, e);
        if (r == e || *r != ':') break;
        if (!quoted && (wt_opnd_parse(p, (size_t)(q - p)) >= 0 || looks_like_register(p, q))) {
            error_at(A, p, "'%.*s' is an operand name and cannot be a label unquoted (write \"%.*s\":)",
                     (int)(q - p), p, (int)(q - p), p);
            return;
        }
        if (define_symbol(A, ns, ne, A->sec, section_offset(A)) != 0) return;
        p = skip_ws(r + 1, e);
    }
    if (p == e) return;
    if (*p == '.' && !(p + 1 < e && is_digit(p[1]))) parse_directive(A, p, e);
    else parse_bundle(A, p, e);
}

/* Checks that need the whole file: labels used but never defined, branches to
 * labels outside .text. */
static void check_references(as *A)
{
    for (size_t i = 0; i < A->u.nsyms; i++) {
        was_sym *y = A->u.syms[i];
        if (y->referenced && y->sec == WAS_SEC_UNDEF && strncmp(y->name, ".L", 2) == 0)
            ws_report(A->diag, WS_ERROR, y->ref_line, y->ref_col, "undefined local label '%s'", y->name);
    }
    for (size_t i = 0; i < A->u.rtext.n; i++) {
        was_reloc *r = &A->u.rtext.v[i];
        if (r->type == WT_R_TARGET && r->sym->sec != WAS_SEC_UNDEF && r->sym->sec != WAS_SEC_TEXT)
            ws_report(A->diag, WS_ERROR, r->line, r->col, "branch target '%s' is not in .text", r->sym->name);
    }
}

/* ---- The DWARF line program ---------------------------------------------------- */

/* One row: the registers that changed, then a special opcode when the line and
 * address advance fit one (DWARF 4, section 6.2.5.1), else the long forms. */
static void line_row(ws_buf *b, const locrec *r, uint32_t *addr, uint32_t *file, uint32_t *line, uint32_t *col,
                     int *is_stmt)
{
    if (r->file + 1 != *file) {
        wd_u8(b, DW_LNS_set_file);
        wd_uleb(b, r->file + 1);
        *file = r->file + 1;
    }
    if (r->col != *col) {
        wd_u8(b, DW_LNS_set_column);
        wd_uleb(b, r->col);
        *col = r->col;
    }
    if (r->is_stmt != *is_stmt) {
        wd_u8(b, DW_LNS_negate_stmt);
        *is_stmt = r->is_stmt;
    }
    if (r->basic_block) wd_u8(b, DW_LNS_set_basic_block);
    if (r->discriminator) {
        ws_buf d = {0};
        wd_uleb(&d, r->discriminator);
        wd_u8(b, 0);
        wd_uleb(b, 1 + d.len);
        wd_u8(b, DW_LNE_set_discriminator);
        ws_buf_append(b, d.data, d.len);
        ws_buf_free(&d);
    }
    uint32_t advance = r->addr / WD_LINE_MIN_INSN - *addr;
    int64_t dline = (int64_t)r->line - (int64_t)*line;
    *addr += advance;
    *line = r->line;
    if (dline < WD_LINE_BASE || dline >= WD_LINE_BASE + WD_LINE_RANGE) {
        wd_u8(b, DW_LNS_advance_line);
        wd_sleb(b, dline);
        dline = 0;
    }
    uint64_t special = (uint64_t)(dline - WD_LINE_BASE) + (uint64_t)WD_LINE_RANGE * advance + WD_OPCODE_BASE;
    if (special > 255) {
        wd_u8(b, DW_LNS_advance_pc);
        wd_uleb(b, advance);
        special = (uint64_t)(dline - WD_LINE_BASE) + WD_OPCODE_BASE;
    }
    wd_u8(b, (unsigned)special);
}

/* What gas makes of `.loc`: a DWARF 4 line program for .text appended to
 * .debug_line, one sequence from the first bundle to the end of .text. Its start
 * address is relocated against .text, so the linker moves it with the code. */
static void emit_line_program(as *A)
{
    if (A->nlocs == 0) return;
    size_t k = 0;
    while (k < A->u.nextra && strcmp(A->u.extra[k].name, ".debug_line") != 0) k++;
    if (k == A->u.nextra) {
        A->u.extra = ws_xrealloc(A->u.extra, (A->u.nextra + 1) * sizeof *A->u.extra);
        memset(&A->u.extra[k], 0, sizeof *A->u.extra);
        A->u.extra[k].name = ws_xstrdup(".debug_line");
        A->u.nextra++;
    }
    ws_buf *b = &A->u.extra[k].data;
    size_t start = b->len;
    wd_u32(b, 0);                         /* unit_length, set below */
    wd_u16(b, WD_VERSION);
    size_t hl = b->len;
    wd_u32(b, 0);                         /* header_length, set below */
    wd_u8(b, WD_LINE_MIN_INSN);
    wd_u8(b, 1);                          /* maximum_operations_per_instruction */
    wd_u8(b, 1);                          /* default_is_stmt */
    wd_u8(b, (unsigned)(uint8_t)WD_LINE_BASE);
    wd_u8(b, WD_LINE_RANGE);
    wd_u8(b, WD_OPCODE_BASE);
    static const uint8_t std_lengths[WD_OPCODE_BASE - 1] = {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};
    ws_buf_append(b, std_lengths, sizeof std_lengths);
    wd_u8(b, 0);                          /* no include directories: names are as given */
    for (size_t i = 0; i < A->nfiles; i++) {
        ws_buf_append(b, A->files[i], strlen(A->files[i]) + 1);
        wd_uleb(b, 0);                    /* directory, time, size */
        wd_uleb(b, 0);
        wd_uleb(b, 0);
    }
    wd_u8(b, 0);
    uint32_t header_length = (uint32_t)(b->len - hl - 4);
    memcpy(b->data + hl, (uint8_t[4]){(uint8_t)header_length, (uint8_t)(header_length >> 8),
                                      (uint8_t)(header_length >> 16), (uint8_t)(header_length >> 24)}, 4);
    wd_u8(b, 0);                          /* DW_LNE_set_address .text+0 */
    wd_uleb(b, 1 + WD_ADDR_SIZE);
    wd_u8(b, DW_LNE_set_address);
    A->text_sym.name = ".text";
    A->text_sym.sec = WAS_SEC_TEXT;
    add_reloc(&A->u.extra[k].rel, (uint32_t)b->len, WT_R_ABS32, &A->text_sym, 0, 0, 0);
    wd_u32(b, 0);
    uint32_t addr = 0, file = 1, line = 1, col = 0;
    int is_stmt = 1;
    for (size_t i = 0; i < A->nlocs; i++) line_row(b, &A->locs[i], &addr, &file, &line, &col, &is_stmt);
    uint32_t end = (uint32_t)(A->u.text.len / WT_BUNDLE_BYTES);
    if (end > addr) {
        wd_u8(b, DW_LNS_advance_pc);
        wd_uleb(b, end - addr);
    }
    wd_u8(b, 0);                          /* DW_LNE_end_sequence */
    wd_uleb(b, 1);
    wd_u8(b, DW_LNE_end_sequence);
    uint32_t unit_length = (uint32_t)(b->len - start - 4);
    memcpy(b->data + start, (uint8_t[4]){(uint8_t)unit_length, (uint8_t)(unit_length >> 8),
                                         (uint8_t)(unit_length >> 16), (uint8_t)(unit_length >> 24)}, 4);
}

static void free_unit(as *A)
{
    for (size_t k = 0; k < A->u.nextra; k++) {
        free(A->u.extra[k].name);
        ws_buf_free(&A->u.extra[k].data);
        free(A->u.extra[k].rel.v);
    }
    free(A->u.extra);
    free(A->locs);
    for (size_t i = 0; i < A->u.nsyms; i++) {
        free(A->u.syms[i]->name);
        free(A->u.syms[i]);
    }
    free(A->u.syms);
    free(A->u.rtext.v);
    free(A->u.rdata.v);
    free(A->u.riu.v);
    ws_buf_free(&A->u.warp_iu);
    ws_buf_free(&A->u.warp_iutab);
    ws_buf_free(&A->u.text);
    ws_buf_free(&A->u.data);
    ws_buf_free(&A->u.warp_host);
    ws_buf_free(&A->u.warp_cells);
    ws_buf_free(&A->u.warp_lines);
    ws_buf_free(&A->u.warp_gates);
    ws_buf_free(&A->u.warp_files);
    for (size_t i = 0; i < A->nfiles; i++) free(A->files[i]);
    free(A->files);
    ws_strmap_free(&A->symbols);
}

int was_assemble(const char *path, const char *text, size_t len, const was_options *opts,
                 const char *out_path, ws_diag *diag)
{
    as A;
    memset(&A, 0, sizeof A);
    A.diag = diag;
    A.path = path;
    A.want = opts ? opts->model : NULL;
    A.sec = WAS_SEC_TEXT;
    A.cur_file = -1;
    A.u.data_align = A.u.bss_align = 4;
    int errors_before = diag->errors;

    const char *end = text + len;
    for (const char *p = text; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        A.line++;
        A.bol = p;
        parse_line(&A, p, find_unquoted(p, le, ';'));   /* up to its comment */
        p = nl ? nl + 1 : end;
        if (diag->max_errors && diag->errors > diag->max_errors) break;
    }
    check_references(&A);
    if (diag->errors == errors_before) emit_line_program(&A);

    int rc = -1;
    if (diag->errors == errors_before) {
        const wt_model *m = A.model ? A.model : A.want;
        A.u.e_flags = !m ? WT_EF_ANY_MODEL : m->id == WT_MODEL_IWARP ? WT_EF_IWARP : 0;
        if (A.flowctl) A.u.e_flags |= WT_EF_FLOWCTL;
        rc = was_write_object(&A.u, out_path);
    }
    free_unit(&A);
    return rc;
}
