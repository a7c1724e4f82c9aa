/* The command interpreter: one command line in, everything it says to a FILE*.
 * gdb's names, abbreviations (any unique prefix, and the usual short forms) and
 * message shapes where they fit; what gdb has no word for (cells, queues,
 * channels, clocks) follows the same style. */
#include "wdb_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef int (*cmd_fn)(wdb *d, const char *args, FILE *out);

typedef struct command {
    const char *name;
    const char *alias;        /* a short form that wins over prefixes ("s" is step) */
    cmd_fn fn;
    const char *usage;
    const char *help;
} command;

static const command *find_command(const char *word, size_t n, int *ambiguous);

/* ---- Small parsing helpers -------------------------------------------------------------- */

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    return s;
}

/* The next word of *s (up to a blank), advancing *s; its length (0 at the end). */
static size_t next_word(const char **s, const char **w)
{
    const char *p = skip_ws(*s);
    *w = p;
    size_t n = 0;
    while (p[n] && p[n] != ' ' && p[n] != '\t') n++;
    *s = p + n;
    return n;
}

static int word_is(const char *w, size_t n, const char *kw) { return strlen(kw) == n && !memcmp(w, kw, n); }

static int parse_u64(const char *w, size_t n, uint64_t *v)
{
    char buf[32];
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, w, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    int base = n > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X') ? 16 : 10;
    if (buf[0] == '-') return -1;
    unsigned long long x = strtoull(buf, &end, base);
    if (*end || errno) return -1;
    *v = x;
    return 0;
}

/* An optional count argument ("continue 3", "stepi 10"). */
static int count_arg(wdb *d, const char *args, uint64_t *n)
{
    const char *w;
    size_t len = next_word(&args, &w);
    *n = 1;
    if (!len) return 0;
    if (parse_u64(w, len, n) || *n == 0) return wdb__error(d, "Invalid number \"%.*s\".", (int)len, w);
    if (*skip_ws(args)) return wdb__error(d, "Junk after the count: \"%s\"", skip_ws(args));
    return 0;
}

static int cell_arg(wdb *d, const char *w, size_t n, int *cell)
{
    uint64_t v;
    if (parse_u64(w, n, &v) || v >= (uint64_t)d->ncells)
        return wdb__error(d, "Invalid cell \"%.*s\": the array has cells 0 to %d.", (int)n, w, d->ncells - 1);
    *cell = (int)v;
    return 0;
}

/* ---- Running ------------------------------------------------------------------------------ */

static int cmd_run(wdb *d, const char *args, FILE *out)
{
    if (*skip_ws(args)) return wdb__error(d, "run takes no arguments (give --in and --out to warp-dbg).");
    if (wdb__start(d, out) != WDB_OK) return WDB_ERROR;
    fprintf(out, "Starting program: %s\n", d->image);
    return wdb__resume(d, RUN_CONTINUE, 1, out);
}

static int cmd_continue(wdb *d, const char *args, FILE *out)
{
    uint64_t n;
    if (count_arg(d, args, &n)) return WDB_ERROR;
    if (wdb__resumable(d, out)) return WDB_ERROR;
    if (n > 1 && d->last_bp > 0) {
        for (size_t i = 0; i < d->nbps; i++)
            if (d->bps[i].num == d->last_bp) {
                d->bps[i].ignore = (unsigned)(n - 1);
                fprintf(out, "Will ignore next %llu crossings of breakpoint %d.  Continuing.\n",
                        (unsigned long long)(n - 1), d->last_bp);
            }
    } else {
        if (n > 1) fprintf(out, "Not stopped at any breakpoint; argument ignored.\n");
        fprintf(out, "Continuing.\n");
    }
    return wdb__resume(d, RUN_CONTINUE, 1, out);
}

static int cmd_step(wdb *d, const char *args, FILE *out)
{
    uint64_t n;
    return count_arg(d, args, &n) ? WDB_ERROR : wdb__resume(d, RUN_STEP, n, out);
}

static int cmd_next(wdb *d, const char *args, FILE *out)
{
    uint64_t n;
    return count_arg(d, args, &n) ? WDB_ERROR : wdb__resume(d, RUN_NEXT, n, out);
}

static int cmd_stepi(wdb *d, const char *args, FILE *out)
{
    uint64_t n;
    return count_arg(d, args, &n) ? WDB_ERROR : wdb__resume(d, RUN_STEPI, n, out);
}

static int cmd_finish(wdb *d, const char *args, FILE *out)
{
    if (*skip_ws(args)) return wdb__error(d, "finish takes no arguments.");
    if (wdb__resumable(d, out)) return WDB_ERROR;
    ws_buf b = {0};
    wdb__frame_text(d, wdb__pc(d, d->sel), &b);
    ws_buf_append(&b, "", 1);
    if (wsim_cell_return_stack(d->sim, d->sel, NULL, 0) > 0) fprintf(out, "Run till exit from #0  %s\n", b.data);
    ws_buf_free(&b);
    return wdb__resume(d, RUN_FINISH, 1, out);
}

/* ---- Breakpoints and watchpoints ------------------------------------------------------------ */

void wdb__free_breakpoints(wdb *d)
{
    for (size_t i = 0; i < d->nbps; i++) {
        free(d->bps[i].cond);
        free(d->bps[i].addrs);
        free(d->bps[i].where);
        free(d->bps[i].old);
    }
    free(d->bps);
    d->bps = NULL;
    d->nbps = 0;
}

static bpoint *new_bpoint(wdb *d)
{
    d->bps = ws_xrealloc(d->bps, (d->nbps + 1) * sizeof *d->bps);
    bpoint *b = &d->bps[d->nbps++];
    memset(b, 0, sizeof *b);
    b->num = d->next_num++;
    b->enabled = 1;
    b->cell = -1;
    return b;
}

/* The file a bare line number means: the selected cell's, else main's. */
static const char *default_file(wdb *d)
{
    const wdb_row *r = wdb_row_at(d->dw, wdb__pc(d, d->sel));
    if (!r || r->file >= d->dw->nfiles) {
        for (size_t i = 0; i < d->dw->nfuncs && !r; i++)
            if (!strcmp(d->dw->funcs[i].name, "main")) r = wdb_row_at(d->dw, d->dw->funcs[i].lo);
    }
    if (!r && d->dw->nrows) r = &d->dw->rows[0];
    return r && r->file < d->dw->nfiles ? d->dw->files[r->file] : NULL;
}

static const wdb_func *find_func(wdb *d, const char *name)
{
    for (size_t i = 0; i < d->dw->nfuncs; i++)
        if (!strcmp(d->dw->funcs[i].name, name) || !strcmp(d->dw->funcs[i].linkage, name)) return &d->dw->funcs[i];
    return NULL;
}

/* A function's first statement: where a breakpoint on its name goes. */
static uint32_t func_start(wdb *d, const wdb_func *f)
{
    for (size_t i = 0; i < d->dw->nrows; i++) {
        const wdb_row *r = &d->dw->rows[i];
        if (!r->end && r->is_stmt && r->addr >= f->lo && r->addr < f->hi) return r->addr;
    }
    return f->lo;
}

/* LOCATION: FILE:LINE, LINE, FUNCTION or *ADDRESS. Fills addrs; where says what. */
static int parse_location(wdb *d, const char *w, size_t n, uint32_t **addrs, size_t *naddrs, ws_buf *where)
{
    char spec[512];
    if (n == 0) return wdb__error(d, "Argument required (a location: FILE:LINE, LINE, FUNCTION or *ADDRESS).");
    if (n >= sizeof spec) return wdb__error(d, "Location too long.");
    memcpy(spec, w, n);
    spec[n] = 0;
    *addrs = NULL;
    *naddrs = 0;
    if (spec[0] == '*') {
        uint64_t a;
        if (parse_u64(spec + 1, n - 1, &a)) return wdb__error(d, "Invalid address \"%s\".", spec + 1);
        if (a % WT_BUNDLE_BYTES || a / WT_BUNDLE_BYTES >= d->img->ncode)
            return wdb__error(d, "Address 0x%llx is not a bundle of the program (0 to 0x%x, every %d bytes).",
                              (unsigned long long)a, (d->img->ncode - 1) * WT_BUNDLE_BYTES, WT_BUNDLE_BYTES);
        *addrs = ws_xcalloc(1, sizeof **addrs);
        (*addrs)[0] = (uint32_t)a;
        *naddrs = 1;
        const wdb_row *r = wdb_row_at(d->dw, (uint32_t)a);
        if (r && r->file < d->dw->nfiles) ws_buf_printf(where, "%s:%u", wdb__basename(d->dw->files[r->file]), r->line);
        else ws_buf_printf(where, "*0x%llx", (unsigned long long)a);
        return 0;
    }
    char *colon = strrchr(spec, ':');
    const char *file = NULL, *line = spec;
    if (colon) {
        *colon = 0;
        file = spec;
        line = colon + 1;
    }
    int numeric = *line != 0;
    for (const char *p = line; *p; p++) numeric &= isdigit((unsigned char)*p) != 0;
    if (!numeric) {
        if (file) return wdb__error(d, "Function \"%s\" not defined in \"%s\".", line, file);
        const wdb_func *f = find_func(d, spec);
        if (!f) return wdb__error(d, "Function \"%s\" not defined.", spec);
        *addrs = ws_xcalloc(1, sizeof **addrs);
        (*addrs)[0] = func_start(d, f);
        *naddrs = 1;
        const wdb_row *r = wdb_row_at(d->dw, (*addrs)[0]);
        if (r && r->file < d->dw->nfiles) ws_buf_printf(where, "%s:%u", wdb__basename(d->dw->files[r->file]), r->line);
        else ws_buf_printf(where, "%s", f->name);
        return 0;
    }
    uint64_t ln;
    if (parse_u64(line, strlen(line), &ln) || ln > 0xffffffffu) return wdb__error(d, "Invalid line number \"%s\".", line);
    if (!file) file = default_file(d);
    if (!file) return wdb__error(d, "No symbol table is loaded.");
    size_t k = wdb_line_addrs(d->dw, file, (uint32_t)ln, NULL, 0);
    if (k == 0) {
        /* As gdb: a line without code of its own (a declaration, or code that shares
         * its bundles with an earlier line's) means the next line that has some. */
        uint32_t best = 0;
        for (size_t i = 0; i < d->dw->nrows; i++) {
            const wdb_row *r = &d->dw->rows[i];
            if (r->end || !r->is_stmt || r->line <= ln || (best && r->line >= best)) continue;
            if (wdb_line_addrs(d->dw, file, r->line, NULL, 0)) best = r->line;
        }
        if (best) {
            ln = best;
            k = wdb_line_addrs(d->dw, file, (uint32_t)ln, NULL, 0);
        }
    }
    if (k == 0) {
        int known = 0;
        for (size_t i = 0; i < d->dw->nfiles && !known; i++) {
            size_t a = strlen(d->dw->files[i]), b = strlen(file);
            known = a >= b && !strcmp(d->dw->files[i] + a - b, file) && (a == b || d->dw->files[i][a - b - 1] == '/');
        }
        if (!known) return wdb__error(d, "No source file named %s.", file);
        return wdb__error(d, "No line %llu in file \"%s\".", (unsigned long long)ln, wdb__basename(file));
    }
    *addrs = ws_xcalloc(k, sizeof **addrs);
    *naddrs = wdb_line_addrs(d->dw, file, (uint32_t)ln, *addrs, k);
    ws_buf_printf(where, "%s:%llu", wdb__basename(file), (unsigned long long)ln);
    return 0;
}

static int cmd_break(wdb *d, const char *args, FILE *out)
{
    const char *w;
    size_t n = next_word(&args, &w);
    char here[32];
    if (n == 0) {
        if (!d->sim) return wdb__error(d, "Argument required (a location: FILE:LINE, LINE, FUNCTION or *ADDRESS).");
        snprintf(here, sizeof here, "*%u", wdb__pc(d, d->sel));
        w = here;
        n = strlen(here);
    }
    uint32_t *addrs;
    size_t naddrs;
    ws_buf where = {0};
    if (parse_location(d, w, n, &addrs, &naddrs, &where)) {
        ws_buf_free(&where);
        return WDB_ERROR;
    }
    ws_buf_append(&where, "", 1);
    int cell = -1;
    char *cond = NULL;
    for (;;) {
        const char *kw;
        size_t k = next_word(&args, &kw);
        if (!k) break;
        if (word_is(kw, k, "cell")) {
            const char *cw;
            size_t cn = next_word(&args, &cw);
            if (cell_arg(d, cw, cn, &cell)) goto bad;
        } else if (word_is(kw, k, "if")) {
            const char *c = skip_ws(args);
            if (!*c) {
                wdb__error(d, "Argument required (boolean expression).");
                goto bad;
            }
            char err[512];
            if (wdb__check(d, addrs[0], c, err, sizeof err) != 0) {
                wdb__error(d, "%s", err);
                goto bad;
            }
            cond = ws_xstrdup(c);
            break;
        } else {
            wdb__error(d, "Junk at end of arguments: \"%.*s\" (expected 'cell N' or 'if CONDITION').", (int)k, kw);
            goto bad;
        }
    }
    bpoint *b = new_bpoint(d);
    b->addrs = addrs;
    b->naddrs = naddrs;
    b->where = where.data;
    b->cell = cell;
    b->cond = cond;
    /* gdb's words: "file F, line L." for one location, "F:L. (N locations)" for more. */
    fprintf(out, "Breakpoint %d at 0x%x: ", b->num, addrs[0]);
    const char *colon = strrchr(b->where, ':');
    if (naddrs > 1 || !colon || b->where[0] == '*') fprintf(out, "%s.", b->where);
    else fprintf(out, "file %.*s, line %s.", (int)(colon - b->where), b->where, colon + 1);
    if (naddrs > 1) fprintf(out, " (%zu locations)", naddrs);
    if (cell >= 0) fprintf(out, " (cell %d)", cell);
    fprintf(out, "\n");
    return WDB_OK;
bad:
    free(addrs);
    free(cond);
    ws_buf_free(&where);
    return WDB_ERROR;
}

static int cmd_watch(wdb *d, const char *args, FILE *out)
{
    const char *e = skip_ws(args);
    if (!*e) return wdb__error(d, "Argument required (expression to compute).");
    /* "watch EXPR cell N": the trailing cell is the watch's, not the expression's. */
    int cell = d->sel;
    char *expr = ws_xstrdup(e);
    size_t len = strlen(expr);
    while (len && (expr[len - 1] == ' ' || expr[len - 1] == '\t')) expr[--len] = 0;
    char *at = NULL;
    for (char *p = strstr(expr, " cell "); p; p = strstr(p + 1, " cell ")) at = p;
    if (at) {
        const char *num = skip_ws(at + 6);
        int ok = *num != 0;
        for (const char *q = num; *q; q++) ok &= isdigit((unsigned char)*q) != 0;
        if (ok) {
            if (cell_arg(d, num, strlen(num), &cell)) {
                free(expr);
                return WDB_ERROR;
            }
            *at = 0;
        }
    }
    /* As gdb, an expression that cannot be evaluated there is refused now, not
     * at every clock of the run. */
    char err[512];
    if (wdb__check(d, wdb__pc(d, cell), expr, err, sizeof err) != 0) {
        free(expr);
        return wdb__error(d, "%s", err);
    }
    bpoint *b = new_bpoint(d);
    b->is_watch = 1;
    b->cell = cell;
    b->where = expr;
    wdb__watch_init(d, b);
    fprintf(out, "Watchpoint %d: %s (cell %d)\n", b->num, b->where, cell);
    return WDB_OK;
}

static bpoint *find_bp(wdb *d, int num)
{
    for (size_t i = 0; i < d->nbps; i++)
        if (d->bps[i].num == num) return &d->bps[i];
    return NULL;
}

static int for_each_bp(wdb *d, const char *args, int what)
{
    const char *w;
    size_t n;
    int any = 0, rc = WDB_OK;
    while ((n = next_word(&args, &w)) != 0) {
        any = 1;
        uint64_t num;
        bpoint *b = parse_u64(w, n, &num) || num > 1000000 ? NULL : find_bp(d, (int)num);
        if (!b) {
            rc = wdb__error(d, "No breakpoint number %.*s.", (int)n, w);
            continue;
        }
        if (what == 0) {
            size_t i = (size_t)(b - d->bps);
            free(b->cond);
            free(b->addrs);
            free(b->where);
            free(b->old);
            memmove(&d->bps[i], &d->bps[i + 1], (d->nbps - i - 1) * sizeof *d->bps);
            d->nbps--;
        } else {
            b->enabled = what == 1;
        }
    }
    if (!any) {
        if (what == 0) wdb__free_breakpoints(d);
        else
            for (size_t i = 0; i < d->nbps; i++) d->bps[i].enabled = what == 1;
    }
    return rc;
}

static int cmd_delete(wdb *d, const char *args, FILE *out)
{
    (void)out;
    const char *a = skip_ws(args), *w;
    size_t n = next_word(&a, &w);
    if (word_is(w, n, "breakpoints")) args = a;
    return for_each_bp(d, args, 0);
}

static int cmd_enable(wdb *d, const char *args, FILE *out) { (void)out; return for_each_bp(d, args, 1); }
static int cmd_disable(wdb *d, const char *args, FILE *out) { (void)out; return for_each_bp(d, args, 2); }

static int info_breakpoints(wdb *d, const char *args, FILE *out)
{
    (void)args;
    if (!d->nbps) {
        fprintf(out, "No breakpoints or watchpoints.\n");
        return WDB_OK;
    }
    fprintf(out, "Num     Type           Disp Enb Address    What\n");
    for (size_t i = 0; i < d->nbps; i++) {
        const bpoint *b = &d->bps[i];
        if (b->is_watch) {
            fprintf(out, "%-7d watchpoint     keep %c              %s (cell %d)\n", b->num, b->enabled ? 'y' : 'n', b->where,
                    b->cell);
        } else {
            char sym[128];
            const char *s = wdb__sym(d, b->addrs[0], sym, sizeof sym);
            const wdb_func *f = wdb_func_at(d->dw, b->addrs[0]);
            fprintf(out, "%-7d breakpoint     keep %c   0x%08x ", b->num, b->enabled ? 'y' : 'n', b->addrs[0]);
            if (f) fprintf(out, "in %s at %s", f->name, b->where);
            else fprintf(out, "%s", s ? s : b->where);
            if (b->naddrs > 1) fprintf(out, " (%zu locations)", b->naddrs);
            if (b->cell >= 0) fprintf(out, " cell %d", b->cell);
            fprintf(out, "\n");
            if (b->cond) fprintf(out, "\tstop only if %s\n", b->cond);
        }
        if (b->hits) fprintf(out, "\tbreakpoint already hit %u time%s\n", b->hits, b->hits == 1 ? "" : "s");
        if (b->ignore) fprintf(out, "\tWill ignore next %u crossings of breakpoint.\n", b->ignore);
    }
    return WDB_OK;
}

/* ---- Cells -------------------------------------------------------------------------------------- */

static int cmd_cell(wdb *d, const char *args, FILE *out)
{
    const char *w;
    size_t n = next_word(&args, &w);
    if (n) {
        int cell = 0;
        if (cell_arg(d, w, n, &cell)) return WDB_ERROR;
        if (*skip_ws(args)) return wdb__error(d, "Junk after the cell number: \"%s\"", skip_ws(args));
        d->sel = cell;
        d->list_valid = 0;
        fprintf(out, "[Switching to cell %d (cid %d)]\n", cell, d->img->first_cell + cell);
    } else {
        fprintf(out, "[Current cell is %d (cid %d)]\n", d->sel, d->img->first_cell + d->sel);
    }
    if (!d->sim) return WDB_OK;
    uint32_t pc = wdb__pc(d, d->sel);
    ws_buf b = {0};
    wdb__frame_text(d, pc, &b);
    ws_buf_append(&b, "", 1);
    fprintf(out, "#0  %s\n", b.data);
    ws_buf_free(&b);
    const wdb_row *r = wdb_row_at(d->dw, pc);
    if (r) {
        if (r->addr != pc) fprintf(out, "0x%08x\t", pc);
        wdb__print_source_line(d, out, r->file, r->line);
    }
    return WDB_OK;
}

static int info_cells(wdb *d, const char *args, FILE *out)
{
    (void)args;
    if (wdb__running(d, out)) return WDB_ERROR;
    fprintf(out, "  Cell  Cid   PC          State%*sFrame\n", 34, "");
    for (int k = 0; k < d->ncells; k++) {
        char state[256];
        ws_buf b = {0};
        uint32_t pc = wdb__pc(d, k);
        wdb__frame_text(d, pc, &b);
        ws_buf_append(&b, "", 1);
        wdb__cell_state(d, k, state, sizeof state);
        fprintf(out, "%c %-5d %-5d 0x%08x  %-38s %s\n", k == d->sel ? '*' : ' ', k, d->img->first_cell + k, pc, state,
                b.data);
        ws_buf_free(&b);
    }
    return WDB_OK;
}

static int cmd_backtrace(wdb *d, const char *args, FILE *out)
{
    (void)args;
    if (wdb__running(d, out)) return WDB_ERROR;
    uint32_t ret[64];
    unsigned depth = wsim_cell_return_stack(d->sim, d->sel, ret, 64);
    ws_buf b = {0};
    wdb__frame_text(d, wdb__pc(d, d->sel), &b);
    ws_buf_append(&b, "", 1);
    fprintf(out, "#0  %s\n", b.data);
    for (unsigned i = 0; i < depth && i < 64; i++) {
        /* the call that the return address follows */
        uint32_t at = ret[i] ? (ret[i] - 1) * WT_BUNDLE_BYTES : 0;
        b.len = 0;
        wdb__frame_text(d, at, &b);
        ws_buf_append(&b, "", 1);
        fprintf(out, "#%u  0x%08x in %s\n", i + 1, at, b.data);
    }
    ws_buf_free(&b);
    return WDB_OK;
}

/* ---- Data --------------------------------------------------------------------------------------- */

/* "/x" and the like after a command name: the format letter and count. */
static int parse_fmt(wdb *d, const char **args, int *fmt, uint64_t *count, const char *allowed)
{
    *fmt = 0;
    const char *p = *args;
    if (*p != '/') return 0;
    p++;
    uint64_t n = 0;
    int digits = 0;
    while (isdigit((unsigned char)*p)) {
        n = n * 10 + (uint64_t)(*p++ - '0');
        digits = 1;
        if (n > 100000) return wdb__error(d, "Count too large.");
    }
    if (count && digits) *count = n;
    if (!count && digits) return wdb__error(d, "Item count other than 1 is meaningless in \"print\" command.");
    while (isalpha((unsigned char)*p)) {
        if (*p == 'w') {   /* words: the only unit size */
            p++;
            continue;
        }
        if (!strchr(allowed, *p)) return wdb__error(d, "Undefined output format \"%c\".", *p);
        *fmt = *p++;
    }
    if (*p && *p != ' ' && *p != '\t') return wdb__error(d, "Invalid format \"%s\".", *args);
    *args = p;
    return 0;
}

static int cmd_print(wdb *d, const char *args, FILE *out)
{
    int fmt;
    args = skip_ws(args);
    if (parse_fmt(d, &args, &fmt, NULL, "xduf")) return WDB_ERROR;
    value v;
    char err[512];
    if (wdb__eval(d, d->sel, args, &v, err, sizeof err) != 0) return wdb__error(d, "%s", err);
    ws_buf b = {0};
    wdb__format(&v, fmt, &b);
    if (v.kind == V_PC) {
        char sym[128];
        if (wdb__sym(d, v.bits, sym, sizeof sym)) ws_buf_printf(&b, " <%s>", sym);
    }
    ws_buf_append(&b, "", 1);
    d->hist = ws_xrealloc(d->hist, (d->nhist + 1) * sizeof *d->hist);
    d->hist[d->nhist++] = v;
    fprintf(out, "$%zu = %s\n", d->nhist, b.data);
    ws_buf_free(&b);
    return WDB_OK;
}

static int cmd_x(wdb *d, const char *args, FILE *out)
{
    int fmt;
    uint64_t count = 1;
    args = skip_ws(args);
    if (parse_fmt(d, &args, &fmt, &count, "xduf")) return WDB_ERROR;
    if (!fmt) fmt = 'x';
    value v;
    char err[512];
    if (wdb__eval(d, d->sel, args, &v, err, sizeof err) != 0) return wdb__error(d, "%s", err);
    /* An array means its first element; anything else is an address (from &var:
     * in the variable's memory, else in the cell's data memory). */
    if (v.kind == V_NONE || v.kind == V_FLOAT) {
        wdb__value_free(&v);
        return wdb__error(d, "Invalid address: a %s.", v.kind == V_NONE ? "value that was optimized out" : "float");
    }
    int space = v.kind == V_ARRAY || v.is_ref ? (v.space == SP_HOST ? SP_HOST : SP_DATA) : SP_DATA;
    uint32_t addr = v.kind == V_ARRAY ? v.addr : v.bits;
    wdb__value_free(&v);
    uint32_t size;
    const uint8_t *mem = space == SP_HOST ? wsim_host_memory(d->sim, &size) : wsim_cell_data(d->sim, d->sel, &size);
    if (addr % 4 || (uint64_t)addr + 4 * count > size)
        return wdb__error(d, "Cannot access memory at address 0x%x", addr);
    for (uint64_t i = 0; i < count; i++) {
        if (i % 4 == 0) fprintf(out, "%s0x%x%s:", i ? "\n" : "", addr + 4 * (uint32_t)i, space == SP_HOST ? " (host)" : "");
        const uint8_t *q = mem + addr + 4 * i;
        uint32_t w = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
        ws_buf b = {0};
        if (fmt == 'x') ws_buf_printf(&b, "0x%08x", w);
        else {
            value s = {0};
            s.kind = V_WORD;
            s.bits = w;
            wdb__format(&s, fmt, &b);
        }
        ws_buf_append(&b, "", 1);
        fprintf(out, "\t%s", b.data);
        ws_buf_free(&b);
    }
    fprintf(out, "\n");
    return WDB_OK;
}

static int info_registers(wdb *d, const char *args, FILE *out)
{
    if (wdb__running(d, out)) return WDB_ERROR;
    const char *w;
    size_t n;
    int any = 0;
    while ((n = next_word(&args, &w)) != 0) {
        any = 1;
        if (*w == '$') w++, n--;
        int o = wt_opnd_parse(w, n);
        if (word_is(w, n, "pc")) {
            char sym[128];
            uint32_t pc = wdb__pc(d, d->sel);
            fprintf(out, "%-7s0x%-10x <%s>\n", "pc", pc, wdb__sym(d, pc, sym, sizeof sym) ? sym : "??");
        } else if (o == WT_OPND_CID) {
            fprintf(out, "%-7s%d\n", "cid", d->img->first_cell + d->sel);
        } else if (o >= 0 && wt_opnd_is_reg((unsigned)o)) {
            uint32_t v = wsim_cell_reg(d->sim, d->sel, (unsigned)o);
            fprintf(out, "%-7s0x%08x  %-12d %.9g\n", wt_opnd_name((unsigned)o), v, (int32_t)v, (double)wt_f(v));
        } else {
            return wdb__error(d, "Invalid register `%.*s'", (int)n, w);
        }
    }
    if (any) return WDB_OK;
    for (unsigned r = 1; r < d->img->model->nregs && r < WT_OPND_NREGS; r++) {
        uint32_t v = wsim_cell_reg(d->sim, d->sel, r);
        fprintf(out, "%-7s0x%08x  %-12d %.9g\n", wt_opnd_name(r), v, (int32_t)v, (double)wt_f(v));
    }
    char sym[128];
    uint32_t pc = wdb__pc(d, d->sel);
    fprintf(out, "%-7s%d\n", "cid", d->img->first_cell + d->sel);
    fprintf(out, "%-7s0x%-10x <%s>\n", "pc", pc, wdb__sym(d, pc, sym, sizeof sym) ? sym : "??");
    return WDB_OK;
}

static int info_locals(wdb *d, const char *args, FILE *out)
{
    (void)args;
    if (wdb__running(d, out)) return WDB_ERROR;
    const wdb_func *f = wdb_func_at(d->dw, wdb__pc(d, d->sel));
    if (!f || !f->nvars) {
        fprintf(out, "No locals.\n");
        return WDB_OK;
    }
    for (size_t i = 0; i < f->nvars; i++) {
        value v;
        char err[256];
        if (wdb__eval(d, d->sel, f->vars[i].name, &v, err, sizeof err) != 0) {
            fprintf(out, "%s = <error: %s>\n", f->vars[i].name, err);
            continue;
        }
        ws_buf b = {0};
        wdb__format(&v, 0, &b);
        ws_buf_append(&b, "", 1);
        fprintf(out, "%s = %s\n", f->vars[i].name, b.data);
        ws_buf_free(&b);
        wdb__value_free(&v);
    }
    return WDB_OK;
}

static const char *const queue_names[WT_NQUEUES] = {"xl", "yl", "xr", "yr"};

static void put_words(wdb *d, int cell, int q, FILE *out)
{
    uint32_t w[64];
    unsigned n = wsim_queue_words(d->sim, cell, q, w, 64);
    value v = {0};
    v.kind = V_ARRAY;
    v.elem = EL_WORD;
    v.ndims = 1;
    v.dims[0] = n > 64 ? 64 : n;
    v.nwords = v.dims[0];
    v.words = w;
    ws_buf b = {0};
    wdb__format(&v, 0, &b);
    ws_buf_append(&b, "", 1);
    fprintf(out, "%s", b.data);
    ws_buf_free(&b);
}

static int info_queues(wdb *d, const char *args, FILE *out)
{
    if (wdb__running(d, out)) return WDB_ERROR;
    const char *w;
    size_t n = next_word(&args, &w);
    int only = -1;
    if (n && cell_arg(d, w, n, &only)) return WDB_ERROR;
    fprintf(out, "Cell  Queue  Waiting  On link  Reserved  Words (oldest first)\n");
    int shown = 0;
    for (int k = 0; k < d->ncells; k++) {
        if (only >= 0 && k != only) continue;
        for (int q = 0; q < WT_NQUEUES; q++) {
            wsim_queue_state st;
            wsim_queue_info(d->sim, k, q, &st);
            if (only < 0 && !st.waiting && !st.on_link && !st.reserved) continue;
            fprintf(out, "%-5d %-6s %u/%-6u %-8u %-9u ", k, queue_names[q], st.waiting, st.capacity, st.on_link, st.reserved);
            put_words(d, k, q, out);
            fprintf(out, "\n");
            shown++;
        }
    }
    if (!shown) fprintf(out, "(every queue is empty)\n");
    return WDB_OK;
}

/* iWarp: every logical input channel that holds words (with `all`, also those
 * linked to an output channel: a pathway, or the W2 connections), with its
 * words and markers. */
static int info_logical_channels(wdb *d, const wca *a, int all, FILE *out)
{
    int nch = wca_channels(a), hidden = 0;
    fprintf(out, "Cell  Input channel      Words  Linked to            Words (oldest first)\n");
    for (int k = 0; k < d->ncells; k++)
        for (int n = 0; n < nch; n++) {
            uint32_t w[64];
            uint8_t tags[64];
            unsigned cnt = wca_lic_words(a, k, n, w, tags, 64);
            int link = wca_lic_link(a, k, n);
            if (!cnt && link < 0) continue;
            if (!cnt && !all) {
                hidden++;
                continue;
            }
            char lic[64], loc[64] = "-";
            wca_lic_name(a, k * nch + n, lic, sizeof lic);
            if (link >= 0) wca_loc_name(a, k * nch + link, loc, sizeof loc);
            fprintf(out, "%-5d %-18s %-6u %-20s {", k, lic, cnt, loc);
            for (unsigned i = 0; i < cnt && i < 64; i++) {
                ws_buf b = {0};
                value v = {0};
                v.kind = V_WORD;
                v.bits = w[i];
                wdb__format(&v, 0, &b);
                ws_buf_append(&b, "", 1);
                static const char *const marks[16] = {[WT_MARK_MBEGIN] = "message begin", [WT_MARK_MEND] = "message end",
                                                      [WT_MARK_APP] = "marker", [WT_MARK_PBEGIN] = "pathway begin",
                                                      [WT_MARK_PEND] = "pathway end"};
                const char *m = marks[tags[i] & 15];
                fprintf(out, "%s%s%s%s%s", i ? ", " : "", m ? "<" : "", m ? m : "", m ? " " : "", b.data);
                if (m) fputc('>', out);
                ws_buf_free(&b);
            }
            fprintf(out, "%s}\n", cnt > 64 ? ", ..." : "");
        }
    if (hidden) fprintf(out, "(%d linked channels are empty: \"info channels all\" lists them)\n", hidden);
    return WDB_OK;
}

/* A channel: the link from a sender (a cell or the host) into one queue; on
 * iWarp the communication agents' logical channels. */
static int info_channels(wdb *d, const char *args, FILE *out)
{
    if (wdb__running(d, out)) return WDB_ERROR;
    const char *w;
    size_t n = next_word(&args, &w);
    if (n && !word_is(w, n, "all")) return wdb__error(d, "info channels takes no argument but \"all\".");
    const wca *a = wsim_comm(d->sim);
    if (a) return info_logical_channels(d, a, n != 0, out);
    fprintf(out, "Channel            Into       Waiting  On link  Reserved  Free\n");
    for (int q = 0; q < WT_NQUEUES; q++) {
        int rightward = q < WT_Q_XR;   /* queues from the left are fed by the cell to the left */
        for (int k = 0; k < d->ncells; k++) {
            int from = rightward ? k - 1 : k + 1;
            char name[32];
            if (from < 0 || from >= d->ncells) snprintf(name, sizeof name, "host -> %d %c", k, (q & 1) ? 'Y' : 'X');
            else snprintf(name, sizeof name, "%d -> %d %c", from, k, (q & 1) ? 'Y' : 'X');
            wsim_queue_state st;
            wsim_queue_info(d->sim, k, q, &st);
            unsigned used = st.waiting + st.on_link + st.reserved;
            char into[16];
            snprintf(into, sizeof into, "%d %s", k, queue_names[q]);
            fprintf(out, "%-18s %-10s %-8u %-8u %-9u %u\n", name, into, st.waiting, st.on_link, st.reserved,
                    st.capacity > used ? st.capacity - used : 0);
        }
    }
    return WDB_OK;
}

static int info_stats(wdb *d, const char *args, FILE *out)
{
    (void)args;
    if (wdb__running(d, out)) return WDB_ERROR;
    wsim_print_stats(d->sim, out);
    return WDB_OK;
}

static int info_functions(wdb *d, const char *args, FILE *out)
{
    (void)args;
    fprintf(out, "All defined functions:\n");
    for (size_t i = 0; i < d->dw->nfuncs; i++) {
        const wdb_func *f = &d->dw->funcs[i];
        const wdb_row *r = wdb_row_at(d->dw, f->lo);
        fprintf(out, "%s:%u\t%s ();\t0x%08x-0x%08x\n", r && r->file < d->dw->nfiles ? wdb__basename(d->dw->files[r->file]) : "??",
                f->decl_line, f->name, f->lo, f->hi);
    }
    return WDB_OK;
}

static int info_line(wdb *d, const char *args, FILE *out)
{
    (void)args;
    uint32_t pc = wdb__pc(d, d->sel);
    const wdb_row *r = wdb_row_at(d->dw, pc);
    if (!r) return wdb__error(d, "No line number information available for address 0x%x", pc);
    fprintf(out, "Line %u of \"%s\" is at address 0x%x.\n", r->line,
            r->file < d->dw->nfiles ? wdb__basename(d->dw->files[r->file]) : "??", r->addr);
    return WDB_OK;
}

static const command info_cmds[] = {
    {"breakpoints", "b", info_breakpoints, "info breakpoints", "Breakpoints and watchpoints, with their hit counts."},
    {"cells", NULL, info_cells, "info cells", "Every cell: its pc, state (running, stalled on which queue or unit, halted) and frame."},
    {"channels", NULL, info_channels, "info channels [all]",
     "Warp: every link into every queue (words waiting, on the link, reserved, free slots); iWarp: the logical "
     "channels that hold words (all: and the linked ones)."},
    {"functions", NULL, info_functions, "info functions", "The program's functions and their addresses."},
    {"line", NULL, info_line, "info line", "The selected cell's source line and its address."},
    {"locals", NULL, info_locals, "info locals", "The variables of the selected cell's function, with their values."},
    {"queues", NULL, info_queues, "info queues [CELL]", "The queues that hold words (all four of CELL's): counts and words."},
    {"registers", "r", info_registers, "info registers [rN...]", "The selected cell's registers (hex, int, float), cid and pc."},
    {"stats", NULL, info_stats, "info stats", "Cycles so far and each cell's issue, stall and unit figures."},
    {"watchpoints", NULL, info_breakpoints, "info watchpoints", "Breakpoints and watchpoints."},
};

static const command *find_in(const command *tab, size_t n, const char *w, size_t len, int *ambiguous)
{
    const command *found = NULL;
    *ambiguous = 0;
    for (size_t i = 0; i < n; i++) {
        if (word_is(w, len, tab[i].name) || (tab[i].alias && word_is(w, len, tab[i].alias))) return &tab[i];
        if (len && !strncmp(tab[i].name, w, len)) {
            if (found) *ambiguous = 1;
            found = &tab[i];
        }
    }
    return *ambiguous ? NULL : found;
}

static int cmd_info(wdb *d, const char *args, FILE *out)
{
    const char *w;
    size_t n = next_word(&args, &w);
    if (!n) {
        fprintf(out, "\"info\" must be followed by the name of an info command.\nList of info subcommands:\n\n");
        for (size_t i = 0; i < sizeof info_cmds / sizeof *info_cmds; i++)
            fprintf(out, "info %-12s -- %s\n", info_cmds[i].name, info_cmds[i].help);
        return WDB_ERROR;
    }
    int amb;
    const command *c = find_in(info_cmds, sizeof info_cmds / sizeof *info_cmds, w, n, &amb);
    if (!c) return wdb__error(d, amb ? "Ambiguous info command \"%.*s\"." : "Undefined info command: \"%.*s\".  Try \"help info\".", (int)n, w);
    return c->fn(d, args, out);
}

/* ---- Source and code ----------------------------------------------------------------------------- */

static int show_lines(wdb *d, int file, uint32_t from, uint32_t to, FILE *out)
{
    const char *text;
    size_t len;
    if (wdb__source(d, (uint32_t)file, from, &text, &len) != 0) {
        if (from > 1 && wdb__source(d, (uint32_t)file, 1, &text, &len) == 0)
            return wdb__error(d, "Line number %u out of range; \"%s\" has fewer lines.", from,
                              wdb__basename(d->dw->files[file]));
        fprintf(out, "%u\tin %s\n", from, d->dw->files[file]);
        return WDB_ERROR;
    }
    for (uint32_t l = from; l <= to && wdb__source(d, (uint32_t)file, l, &text, &len) == 0; l++) {
        fprintf(out, "%u\t%.*s\n", l, (int)len, text);
        d->list_next = l + 1;
    }
    return WDB_OK;
}

static int cmd_list(wdb *d, const char *args, FILE *out)
{
    const char *w;
    size_t n = next_word(&args, &w);
    int file = -1;
    uint32_t center = 0;
    if (n) {
        uint32_t *addrs;
        size_t na;
        ws_buf where = {0};
        char spec[300];
        int numeric = 1;
        for (size_t i = 0; i < n; i++) numeric &= isdigit((unsigned char)w[i]) != 0;
        if (numeric && n < 10) {
            const char *f = default_file(d);
            for (size_t i = 0; f && i < d->dw->nfiles; i++)
                if (!strcmp(d->dw->files[i], f)) file = (int)i;
            center = (uint32_t)strtoul(w, NULL, 10);
        } else {
            snprintf(spec, sizeof spec, "%.*s", (int)n, w);
            if (parse_location(d, spec, strlen(spec), &addrs, &na, &where)) {
                ws_buf_free(&where);
                return WDB_ERROR;
            }
            const wdb_row *r = wdb_row_at(d->dw, addrs[0]);
            if (r) {
                file = (int)r->file;
                center = r->line;
            }
            free(addrs);
            ws_buf_free(&where);
        }
    } else if (d->list_valid) {
        file = d->list_file;
        center = d->list_next + 5;
    } else {
        const wdb_row *r = wdb_row_at(d->dw, wdb__pc(d, d->sel));
        if (!r && d->dw->nrows) r = &d->dw->rows[0];
        for (size_t i = 0; !r && i < d->dw->nfuncs; i++)
            if (!strcmp(d->dw->funcs[i].name, "main")) r = wdb_row_at(d->dw, d->dw->funcs[i].lo);
        if (r) {
            file = (int)r->file;
            center = r->line;
        }
    }
    if (file < 0) return wdb__error(d, "No symbol table is loaded.");
    uint32_t from = center > 5 ? center - 5 : 1;
    if (d->list_valid && !n) from = d->list_next;
    d->list_file = file;
    d->list_valid = 1;
    if (show_lines(d, file, from, from + 9, out)) return WDB_ERROR;
    return WDB_OK;
}

static const char *target_name(void *ctx, unsigned target)
{
    wdb *d = ctx;
    static char buf[160];
    char sym[128];
    uint32_t a = target * WT_BUNDLE_BYTES;
    if (wdb__sym(d, a, sym, sizeof sym)) snprintf(buf, sizeof buf, "0x%x <%s>", a, sym);
    else snprintf(buf, sizeof buf, "0x%x", a);
    return buf;
}

static int cmd_disassemble(wdb *d, const char *args, FILE *out)
{
    const char *w;
    size_t n = next_word(&args, &w);
    uint32_t pc = wdb__pc(d, d->sel);
    uint32_t lo, hi;
    const char *name;
    if (n) {
        char spec[256];
        snprintf(spec, sizeof spec, "%.*s", (int)n, w);
        const wdb_func *f = find_func(d, spec);
        if (!f) return wdb__error(d, "No function contains specified address.");
        lo = f->lo;
        hi = f->hi;
        name = f->name;
    } else {
        const wdb_func *f = wdb_func_at(d->dw, pc);
        const wrt_symbol *y = f ? NULL : wrt_func_for_pc(d->img, pc / WT_BUNDLE_BYTES);
        if (!f && !y) return wdb__error(d, "No function contains program counter for selected cell.");
        lo = f ? f->lo : y->value;
        hi = f ? f->hi : y->size ? y->value + y->size : lo + WT_BUNDLE_BYTES;
        name = f ? f->name : y->name;
    }
    fprintf(out, "Dump of assembler code for function %s:\n", name);
    for (uint32_t a = lo; a < hi && a / WT_BUNDLE_BYTES < d->img->ncode; a += WT_BUNDLE_BYTES) {
        char text[1024];
        wt_format_insn(&d->img->code[a / WT_BUNDLE_BYTES], text, sizeof text, target_name, d);
        fprintf(out, "%s 0x%08x <+%u>:\t%s\n", d->sim && a == pc ? "=>" : "  ", a, a - lo, text);
    }
    fprintf(out, "End of assembler dump.\n");
    return WDB_OK;
}

/* ---- The rest ---------------------------------------------------------------------------------- */

static int cmd_echo(wdb *d, const char *args, FILE *out)
{
    (void)d;
    for (const char *p = skip_ws(args); *p; p++) {
        if (*p == '\\' && p[1] == 'n') {
            fputc('\n', out);
            p++;
        } else if (*p == '\\' && p[1]) {
            fputc(*++p, out);
        } else {
            fputc(*p, out);
        }
    }
    return WDB_OK;
}

static int cmd_quit(wdb *d, const char *args, FILE *out)
{
    (void)out;
    const char *e = skip_ws(args);
    d->quit_code = -1;
    if (!*e) return WDB_QUIT;
    /* quit EXPR, as gdb: the debugger's exit status */
    value v;
    char err[512];
    int rc = wdb__eval(d, d->sel, e, &v, err, sizeof err);
    if (rc != 0) return wdb__error(d, "%s", err);
    if (v.kind != V_INT && v.kind != V_WORD) {
        wdb__value_free(&v);
        return wdb__error(d, "quit wants an integer exit status.");
    }
    d->quit_code = (int)(v.bits & 0xff);
    wdb__value_free(&v);
    return WDB_QUIT;
}

static int cmd_help(wdb *d, const char *args, FILE *out);

static const command commands[] = {
    {"backtrace", "bt", cmd_backtrace, "backtrace", "The selected cell's calls, from its return stack."},
    {"break", "b", cmd_break, "break [FILE:LINE | LINE | FUNCTION | *ADDRESS] [cell N] [if CONDITION]",
     "Stop when a cell arrives at a location (any cell, or cell N; when CONDITION holds there)."},
    {"cell", NULL, cmd_cell, "cell [N]", "Select cell N (what print, step, x, info registers look at), or show the selected one."},
    {"continue", "c", cmd_continue, "continue [N]", "Run the array on; with N, ignore the breakpoint that stopped it N-1 more times."},
    {"cycle", NULL, cmd_stepi, "cycle [N]", "Run the whole array N clocks (default 1); the same as stepi."},
    {"delete", "d", cmd_delete, "delete [N...]", "Delete breakpoints and watchpoints N..., or all of them."},
    {"disable", NULL, cmd_disable, "disable [N...]", "Disable breakpoints and watchpoints N..., or all."},
    {"disassemble", NULL, cmd_disassemble, "disassemble [FUNCTION]", "The bundles of the selected cell's function (=> marks its pc)."},
    {"echo", NULL, cmd_echo, "echo TEXT", "Print TEXT (\\n is a newline)."},
    {"enable", NULL, cmd_enable, "enable [N...]", "Enable breakpoints and watchpoints N..., or all."},
    {"finish", "fin", cmd_finish, "finish", "Run until the selected cell returns from its function."},
    {"help", "h", cmd_help, "help [COMMAND]", "List the commands, or say what one does."},
    {"info", "i", cmd_info, "info SUBCOMMAND", "breakpoints, cells, channels, functions, line, locals, queues, registers, stats."},
    {"list", "l", cmd_list, "list [LINE | FILE:LINE | FUNCTION]", "Ten source lines around a place; again: the next ten."},
    {"next", "n", cmd_next, "next [N]", "One source line of the selected cell, over calls; the other cells run in lockstep."},
    {"nexti", "ni", cmd_stepi, "nexti [N]", "The same as stepi: every clock is the whole array's."},
    {"print", "p", cmd_print, "print[/FMT] EXPR",
     "Evaluate EXPR in the selected cell: W2 variables, a[i], m[i][j], host arrays, $r5 $cid $pc $cycle, "
     "@xl @yl @xr @yr (queued words), $N (history). FMT: x d u f."},
    {"quit", "q", cmd_quit, "quit", "Leave the debugger."},
    {"run", "r", cmd_run, "run", "Start the array from the beginning (again), with the --in files."},
    {"step", "s", cmd_step, "step [N]", "One source line of the selected cell, into calls; the other cells run in lockstep."},
    {"stepi", "si", cmd_stepi, "stepi [N]", "Run the whole array N clocks (default 1)."},
    {"watch", NULL, cmd_watch, "watch EXPR [cell N]",
     "Stop when EXPR's value changes in the selected cell (or cell N): a variable, an element, or a queue (@xl)."},
    {"where", NULL, cmd_backtrace, "where", "The same as backtrace."},
    {"x", NULL, cmd_x, "x[/NFMT] ADDRESS", "N words of the selected cell's data memory from ADDRESS (or &var; host arrays read host memory). FMT: x d u f."},
};
enum { NCOMMANDS = sizeof commands / sizeof *commands };

static const command *find_command(const char *word, size_t n, int *ambiguous)
{
    return find_in(commands, NCOMMANDS, word, n, ambiguous);
}

static int cmd_help(wdb *d, const char *args, FILE *out)
{
    (void)d;
    const char *w;
    size_t n = next_word(&args, &w);
    if (n) {
        int amb;
        const command *c = find_command(w, n, &amb);
        if (!c) return wdb__error(d, "Undefined command: \"%.*s\".  Try \"help\".", (int)n, w);
        fprintf(out, "%s\n%s\n", c->usage, c->help);
        if (c->fn == cmd_info)
            for (size_t i = 0; i < sizeof info_cmds / sizeof *info_cmds; i++)
                fprintf(out, "  %-26s %s\n", info_cmds[i].usage, info_cmds[i].help);
        return WDB_OK;
    }
    fprintf(out, "warp-dbg commands (any unique prefix works; short forms in brackets):\n\n");
    for (size_t i = 0; i < NCOMMANDS; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s%s%s%s", commands[i].name, commands[i].alias ? " [" : "",
                 commands[i].alias ? commands[i].alias : "", commands[i].alias ? "]" : "");
        fprintf(out, "  %-18s %s\n", name, commands[i].help);
    }
    fprintf(out, "\nAn empty line repeats the last command. Cells are numbered from 0; each\n"
                 "clock runs every cell (the Warp host's step mode).\n");
    return WDB_OK;
}

/* ---- The interpreter -------------------------------------------------------------------------------- */

void wdb_set_repeat(wdb *d, int repeat) { d->repeat = repeat; }
void wdb_set_error_stream(wdb *d, FILE *err) { d->err_stream = err; }
int wdb_exit_code(const wdb *d) { return d->end_code; }
int wdb_quit_code(const wdb *d) { return d->quit_code; }

int wdb_command(wdb *d, const char *line, FILE *out)
{
    d->cur_out = out;
    d->err = d->err_stream ? d->err_stream : out;
    const char *p = skip_ws(line);
    if (*p == '#') return WDB_OK;
    if (!*p || *p == '\n') {
        if (!d->repeat || !d->last_cmd) return WDB_OK;
        p = d->last_cmd;
    }
    /* One line: whatever follows a newline is not part of this command. */
    char *cmd = ws_xstrdup(p);
    cmd[strcspn(cmd, "\r\n")] = 0;
    size_t len = strlen(cmd);
    while (len && (cmd[len - 1] == ' ' || cmd[len - 1] == '\t')) cmd[--len] = 0;
    /* The command name: letters, or up to a '/' (print/x, x/4f). */
    size_t n = 0;
    while (cmd[n] && cmd[n] != ' ' && cmd[n] != '\t' && cmd[n] != '/') n++;
    int amb;
    const command *c = find_command(cmd, n, &amb);
    int rc;
    if (!c && amb) rc = wdb__error(d, "Ambiguous command \"%.*s\".", (int)n, cmd);
    else if (!c) rc = wdb__error(d, "Undefined command: \"%.*s\".  Try \"help\".", (int)n, cmd);
    else rc = c->fn(d, cmd + n, out);
    /* gdb repeats neither a new run nor what would make a second breakpoint. */
    if (c && (c->fn == cmd_run || c->fn == cmd_break || c->fn == cmd_watch || c->fn == cmd_delete || c->fn == cmd_quit)) {
        free(cmd);
        cmd = NULL;
    }
    free(d->last_cmd);
    d->last_cmd = cmd;
    fflush(out);
    return rc;
}

/* ---- Completion ------------------------------------------------------------------------------------- */

typedef struct cands {
    char **v;
    size_t n;
} cands;

static void cand(cands *c, const char *word, size_t wlen, const char *s)
{
    if (strncmp(s, word, wlen) != 0) return;
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->v[i], s)) return;
    c->v = ws_xrealloc(c->v, (c->n + 2) * sizeof *c->v);
    c->v[c->n++] = ws_xstrdup(s);
    c->v[c->n] = NULL;
}

char **wdb_complete(wdb *d, const char *line, size_t end)
{
    size_t start = end;
    while (start > 0 && line[start - 1] != ' ' && line[start - 1] != '\t') start--;
    const char *word = line + start;
    size_t wlen = end - start;
    cands c = {0};
    const char *p = skip_ws(line);
    if ((size_t)(p - line) >= start) {
        for (size_t i = 0; i < NCOMMANDS; i++) cand(&c, word, wlen, commands[i].name);
        return c.v;
    }
    size_t n = 0;
    while (p[n] && p[n] != ' ' && p[n] != '\t' && p[n] != '/') n++;
    int amb;
    const command *cmd = find_command(p, n, &amb);
    if (cmd && cmd->fn == cmd_info) {
        for (size_t i = 0; i < sizeof info_cmds / sizeof *info_cmds; i++) cand(&c, word, wlen, info_cmds[i].name);
        return c.v;
    }
    if (cmd && cmd->fn == cmd_help) {
        for (size_t i = 0; i < NCOMMANDS; i++) cand(&c, word, wlen, commands[i].name);
        return c.v;
    }
    /* Names: the selected cell's variables, globals, host arrays, functions,
     * registers and gates; source files after break and list. */
    if (wlen && word[0] == '$') {
        char r[16];
        for (unsigned k = 0; k < WT_OPND_NREGS && k < d->img->model->nregs; k++) {
            snprintf(r, sizeof r, "$r%u", k);
            cand(&c, word, wlen, r);
        }
        cand(&c, word, wlen, "$cid");
        cand(&c, word, wlen, "$pc");
        cand(&c, word, wlen, "$cycle");
        return c.v;
    }
    if (wlen && word[0] == '@') {
        for (int q = 0; q < WT_NQUEUES; q++) {
            char g[8];
            snprintf(g, sizeof g, "@%s", queue_names[q]);
            cand(&c, word, wlen, g);
        }
        return c.v;
    }
    /* the selected cell's function's variables first, then every function's */
    const wdb_func *f = wdb_func_at(d->dw, wdb__pc(d, d->sel));
    for (size_t i = 0; f && i < f->nvars; i++) cand(&c, word, wlen, f->vars[i].name);
    for (size_t k = 0; k < d->dw->nfuncs; k++)
        for (size_t i = 0; i < d->dw->funcs[k].nvars; i++) cand(&c, word, wlen, d->dw->funcs[k].vars[i].name);
    for (size_t i = 0; i < d->dw->nglobals; i++) cand(&c, word, wlen, d->dw->globals[i].name);
    for (size_t i = 0; i < d->img->nhost; i++) cand(&c, word, wlen, d->img->host[i].name);
    for (size_t i = 0; i < d->dw->nfuncs; i++) cand(&c, word, wlen, d->dw->funcs[i].name);
    if (cmd && (cmd->fn == cmd_break || cmd->fn == cmd_list))
        for (size_t i = 0; i < d->dw->nfiles; i++) {
            char fl[512];
            snprintf(fl, sizeof fl, "%s:", wdb__basename(d->dw->files[i]));
            cand(&c, word, wlen, fl);
        }
    return c.v;
}
