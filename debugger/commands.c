/* The command interpreter: one command line in, everything it says to a FILE*.
 * gdb's names, abbreviations (any unique prefix, and the usual short forms) and
 * message shapes where they fit; what gdb has no word for (cells, queues,
 * channels, clocks) follows the same style. */
#include "wdb_internal.h"

#include <ctype.h>
#include <errno.h>
#include <regex.h>
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
static int cmd_cell_apply(wdb *d, const char *args, FILE *out);
static int info_frame(wdb *d, const char *args, FILE *out);
static int info_args(wdb *d, const char *args, FILE *out);
static int info_source(wdb *d, const char *args, FILE *out);
static int info_symbol(wdb *d, const char *args, FILE *out);
static int info_display(wdb *d, const char *args, FILE *out);
static void show_displays(wdb *d, FILE *out);

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
    if (parse_u64(w, len, n) || *n == 0) return wdb_error(d, "Invalid number \"%.*s\".", (int)len, w);
    if (*skip_ws(args)) return wdb_error(d, "Junk after the count: \"%s\"", skip_ws(args));
    return 0;
}

static int cell_arg(wdb *d, const char *w, size_t n, int *cell)
{
    uint64_t v;
    if (parse_u64(w, n, &v) || v >= (uint64_t)d->ncells)
        return wdb_error(d, "Invalid cell \"%.*s\": the array has cells 0 to %d.", (int)n, w, d->ncells - 1);
    *cell = (int)v;
    return 0;
}

/* ---- Running ------------------------------------------------------------------------------ */

static int cmd_run(wdb *d, const char *args, FILE *out)
{
    if (*skip_ws(args)) return wdb_error(d, "run takes no arguments (give --in and --out to warp-dbg).");
    if (wdb_start(d, out) != WDB_OK) return WDB_ERROR;
    fprintf(out, "Starting program: %s\n", d->image);
    return wdb_resume(d, RUN_CONTINUE, 1, out);
}

static int cmd_continue(wdb *d, const char *args, FILE *out)
{
    uint64_t n;
    if (count_arg(d, args, &n)) return WDB_ERROR;
    if (wdb_resumable(d, out)) return WDB_ERROR;
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
    return wdb_resume(d, RUN_CONTINUE, 1, out);
}

static int cmd_step(wdb *d, const char *args, FILE *out)
{
    uint64_t n;
    return count_arg(d, args, &n) ? WDB_ERROR : wdb_resume(d, RUN_STEP, n, out);
}

static int cmd_next(wdb *d, const char *args, FILE *out)
{
    uint64_t n;
    return count_arg(d, args, &n) ? WDB_ERROR : wdb_resume(d, RUN_NEXT, n, out);
}

static int cmd_stepi(wdb *d, const char *args, FILE *out)
{
    uint64_t n;
    return count_arg(d, args, &n) ? WDB_ERROR : wdb_resume(d, RUN_STEPI, n, out);
}

static int cmd_finish(wdb *d, const char *args, FILE *out)
{
    if (*skip_ws(args)) return wdb_error(d, "finish takes no arguments.");
    if (wdb_resumable(d, out)) return WDB_ERROR;
    ws_buf b = {0};
    wdb_frame_text(d, wdb_pc(d, d->sel), &b);
    ws_buf_append(&b, "", 1);
    if (wsim_cell_return_stack(d->sim, d->sel, NULL, 0) > 0) fprintf(out, "Run till exit from #0  %s\n", b.data);
    ws_buf_free(&b);
    return wdb_resume(d, RUN_FINISH, 1, out);
}

/* ---- Breakpoints and watchpoints ------------------------------------------------------------ */

void wdb_free_breakpoints(wdb *d)
{
    for (size_t i = 0; i < d->nbps; i++) {
        free(d->bps[i].cond);
        free(d->bps[i].addrs);
        free(d->bps[i].where);
        free(d->bps[i].old);
        for (size_t k = 0; k < d->bps[i].ncmds; k++) free(d->bps[i].cmds[k]);
        free(d->bps[i].cmds);
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
    const wdb_row *r = wdb_row_at(d->dw, wdb_pc(d, d->sel));
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

/* A function's symbol in .symtab, for an image without -g. */
static const wrt_symbol *find_func_symbol(wdb *d, const char *name)
{
    for (size_t i = 0; i < d->img->nsyms; i++)
        if (d->img->syms[i].section == 0 && !strcmp(d->img->syms[i].name, name)) return &d->img->syms[i];
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
    if (n == 0) return wdb_error(d, "Argument required (a location: FILE:LINE, LINE, FUNCTION or *ADDRESS).");
    if (n >= sizeof spec) return wdb_error(d, "Location too long.");
    memcpy(spec, w, n);
    spec[n] = 0;
    *addrs = NULL;
    *naddrs = 0;
    if (spec[0] == '*') {
        uint64_t a;
        if (parse_u64(spec + 1, n - 1, &a)) return wdb_error(d, "Invalid address \"%s\".", spec + 1);
        if (a % WT_BUNDLE_BYTES || a / WT_BUNDLE_BYTES >= d->img->ncode)
            return wdb_error(d, "Address 0x%llx is not a bundle of the program (0 to 0x%x, every %d bytes).",
                              (unsigned long long)a, (d->img->ncode - 1) * WT_BUNDLE_BYTES, WT_BUNDLE_BYTES);
        *addrs = ws_xcalloc(1, sizeof **addrs);
        (*addrs)[0] = (uint32_t)a;
        *naddrs = 1;
        const wdb_row *r = wdb_row_at(d->dw, (uint32_t)a);
        if (r && r->file < d->dw->nfiles) ws_buf_printf(where, "%s:%u", wdb_basename(d->dw->files[r->file]), r->line);
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
        if (file) return wdb_error(d, "Function \"%s\" not defined in \"%s\".", line, file);
        const wdb_func *f = find_func(d, spec);
        const wrt_symbol *y = f ? NULL : find_func_symbol(d, spec);
        if (y) {
            /* no line table: the symbol's address, as gdb without debugging information */
            *addrs = ws_xcalloc(1, sizeof **addrs);
            (*addrs)[0] = y->value;
            *naddrs = 1;
            ws_buf_printf(where, "*0x%x", y->value);
            return 0;
        }
        if (!f) return wdb_error(d, "Function \"%s\" not defined.", spec);
        *addrs = ws_xcalloc(1, sizeof **addrs);
        (*addrs)[0] = func_start(d, f);
        *naddrs = 1;
        const wdb_row *r = wdb_row_at(d->dw, (*addrs)[0]);
        if (r && r->file < d->dw->nfiles) ws_buf_printf(where, "%s:%u", wdb_basename(d->dw->files[r->file]), r->line);
        else ws_buf_printf(where, "%s", f->name);
        return 0;
    }
    uint64_t ln;
    if (parse_u64(line, strlen(line), &ln) || ln > 0xffffffffu) return wdb_error(d, "Invalid line number \"%s\".", line);
    if (!file) file = default_file(d);
    if (!file) return wdb_error(d, "No symbol table is loaded.");
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
        if (!known) return wdb_error(d, "No source file named %s.", file);
        return wdb_error(d, "No line %llu in file \"%s\".", (unsigned long long)ln, wdb_basename(file));
    }
    *addrs = ws_xcalloc(k, sizeof **addrs);
    *naddrs = wdb_line_addrs(d->dw, file, (uint32_t)ln, *addrs, k);
    ws_buf_printf(where, "%s:%llu", wdb_basename(file), (unsigned long long)ln);
    return 0;
}

static int set_break(wdb *d, const char *args, FILE *out, int temporary)
{
    const char *w;
    size_t n = next_word(&args, &w);
    char here[32];
    if (n == 0) {
        if (!d->sim) return wdb_error(d, "Argument required (a location: FILE:LINE, LINE, FUNCTION or *ADDRESS).");
        snprintf(here, sizeof here, "*%u", wdb_pc(d, d->sel));
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
                wdb_error(d, "Argument required (boolean expression).");
                goto bad;
            }
            char err[512];
            if (wdb_check(d, addrs[0], c, err, sizeof err) != 0) {
                wdb_error(d, "%s", err);
                goto bad;
            }
            cond = ws_xstrdup(c);
            break;
        } else {
            wdb_error(d, "Junk at end of arguments: \"%.*s\" (expected 'cell N' or 'if CONDITION').", (int)k, kw);
            goto bad;
        }
    }
    bpoint *b = new_bpoint(d);
    b->addrs = addrs;
    b->naddrs = naddrs;
    b->where = where.data;
    b->cell = cell;
    b->cond = cond;
    b->temporary = temporary;
    /* gdb's words: "file F, line L." for one location, "F:L. (N locations)" for
     * more, only the address where no line is known. */
    fprintf(out, "%s %d at 0x%x", temporary ? "Temporary breakpoint" : "Breakpoint", b->num, addrs[0]);
    const char *colon = strrchr(b->where, ':');
    if (b->where[0] != '*' && (naddrs > 1 || !colon)) fprintf(out, ": %s.", b->where);
    else if (b->where[0] != '*') fprintf(out, ": file %.*s, line %s.", (int)(colon - b->where), b->where, colon + 1);
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

static int cmd_break(wdb *d, const char *args, FILE *out) { return set_break(d, args, out, 0); }
static int cmd_tbreak(wdb *d, const char *args, FILE *out) { return set_break(d, args, out, 1); }

static int cmd_watch(wdb *d, const char *args, FILE *out)
{
    const char *e = skip_ws(args);
    if (!*e) return wdb_error(d, "Argument required (expression to compute).");
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
    if (wdb_check(d, wdb_pc(d, cell), expr, err, sizeof err) != 0) {
        free(expr);
        return wdb_error(d, "%s", err);
    }
    bpoint *b = new_bpoint(d);
    b->is_watch = 1;
    b->cell = cell;
    b->where = expr;
    wdb_watch_init(d, b);
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
            rc = wdb_error(d, "No breakpoint number %.*s.", (int)n, w);
            continue;
        }
        if (what == 0) {
            size_t i = (size_t)(b - d->bps);
            free(b->cond);
            free(b->addrs);
            free(b->where);
            free(b->old);
            for (size_t k = 0; k < b->ncmds; k++) free(b->cmds[k]);
            free(b->cmds);
            memmove(&d->bps[i], &d->bps[i + 1], (d->nbps - i - 1) * sizeof *d->bps);
            d->nbps--;
        } else {
            b->enabled = what == 1;
        }
    }
    if (!any) {
        if (what == 0) wdb_free_breakpoints(d);
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
            const char *s = wdb_sym(d, b->addrs[0], sym, sizeof sym);
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
    if (word_is(w, n, "apply")) return cmd_cell_apply(d, args, out);
    if (n) {
        int cell = 0;
        if (cell_arg(d, w, n, &cell)) return WDB_ERROR;
        if (*skip_ws(args)) return wdb_error(d, "Junk after the cell number: \"%s\"", skip_ws(args));
        d->sel = cell;
        d->frame = 0;
        d->list_valid = 0;
        fprintf(out, "[Switching to cell %d (cid %d)]\n", cell, d->img->first_cell + cell);
    } else {
        fprintf(out, "[Current cell is %d (cid %d)]\n", d->sel, d->img->first_cell + d->sel);
    }
    if (!d->sim) return WDB_OK;
    uint32_t pc = wdb_pc(d, d->sel);
    ws_buf b = {0};
    wdb_frame_text(d, pc, &b);
    ws_buf_append(&b, "", 1);
    fprintf(out, "#0  %s\n", b.data);
    ws_buf_free(&b);
    const wdb_row *r = wdb_row_at(d->dw, pc);
    if (r) {
        if (r->addr != pc) fprintf(out, "0x%08x\t", pc);
        wdb_print_source_line(d, out, r->file, r->line);
    }
    return WDB_OK;
}

static int info_cells(wdb *d, const char *args, FILE *out)
{
    (void)args;
    if (wdb_running(d, out)) return WDB_ERROR;
    fprintf(out, "  Cell  Cid   PC          State%*sFrame\n", 34, "");
    for (int k = 0; k < d->ncells; k++) {
        char state[256];
        ws_buf b = {0};
        uint32_t pc = wdb_pc(d, k);
        wdb_frame_text(d, pc, &b);
        ws_buf_append(&b, "", 1);
        wdb_cell_state(d, k, state, sizeof state);
        fprintf(out, "%c %-5d %-5d 0x%08x  %-38s %s\n", k == d->sel ? '*' : ' ', k, d->img->first_cell + k, pc, state,
                b.data);
        ws_buf_free(&b);
    }
    return WDB_OK;
}

static void print_locals_at(wdb *d, int frame, const char *indent, FILE *out);

/* One frame's line: "#1  0x000004c0 in main () at polynomial.w2:40" (#0 without the address). */
static void print_frame_line(wdb *d, int frame, FILE *out)
{
    uint32_t at = wdb_frame_pc(d, d->sel, frame);
    ws_buf b = {0};
    wdb_frame_text(d, at, &b);
    ws_buf_append(&b, "", 1);
    if (frame == 0) fprintf(out, "#0  %s\n", b.data);
    else fprintf(out, "#%-2d 0x%08x in %s\n", frame, at, b.data);
    ws_buf_free(&b);
}

static int nframes(wdb *d) { return (int)wsim_cell_return_stack(d->sim, d->sel, NULL, 0) + 1; }

/* backtrace [full] [N | -N]: all frames, the innermost N, or the outermost N;
 * full: with each frame's locals. */
static int cmd_backtrace(wdb *d, const char *args, FILE *out)
{
    int full = 0;
    long long limit = 0;
    const char *w;
    size_t n;
    while ((n = next_word(&args, &w)) != 0) {
        if (word_is(w, n, "full") || word_is(w, n, "-full")) {
            full = 1;
            continue;
        }
        char buf[32];
        char *end;
        snprintf(buf, sizeof buf, "%.*s", (int)n, w);
        errno = 0;
        limit = strtoll(buf, &end, 10);
        if (n >= sizeof buf || *end || errno || limit == 0)
            return wdb_error(d, "Invalid backtrace argument \"%.*s\" (full, N or -N).", (int)n, w);
    }
    if (wdb_running(d, out)) return WDB_ERROR;
    int total = nframes(d);
    if (total > 65) total = 65;
    int from = 0, to = total;
    if (limit > 0 && limit < total) to = (int)limit;
    if (limit < 0 && -limit < total) from = total + (int)limit;
    for (int f = from; f < to; f++) {
        print_frame_line(d, f, out);
        if (full) print_locals_at(d, f, "        ", out);
    }
    if (to < total) fprintf(out, "(More stack frames follow...)\n");
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
        if (n > 100000) return wdb_error(d, "Count too large.");
    }
    if (count && digits) *count = n;
    if (!count && digits) return wdb_error(d, "Item count other than 1 is meaningless in \"print\" command.");
    while (isalpha((unsigned char)*p)) {
        if (*p == 'w') {   /* words: the only unit size */
            p++;
            continue;
        }
        if (!strchr(allowed, *p)) return wdb_error(d, "Undefined output format \"%c\".", *p);
        *fmt = *p++;
    }
    if (*p && *p != ' ' && *p != '\t') return wdb_error(d, "Invalid format \"%s\".", *args);
    *args = p;
    return 0;
}

/* The symbol (a variable's storage) that holds a data or host memory address. */
static const wrt_symbol *data_symbol(wdb *d, int space, uint32_t a)
{
    for (size_t i = 0; i < d->img->nsyms; i++) {
        const wrt_symbol *y = &d->img->syms[i];
        int sec = space == SP_HOST ? 2 : 1;
        if (y->section == sec && a >= y->value && a - y->value < (y->size ? y->size : 4)) return y;
    }
    return NULL;
}

static int cmd_print(wdb *d, const char *args, FILE *out)
{
    int fmt;
    args = skip_ws(args);
    if (parse_fmt(d, &args, &fmt, NULL, "xducfto")) return WDB_ERROR;
    value v;
    char err[512];
    if (wdb_eval_assign(d, d->sel, args, &v, err, sizeof err) != 0) return wdb_error(d, "%s", err);
    ws_buf b = {0};
    wdb_format(&v, fmt, &b);
    if (v.kind == V_PC) {
        char sym[128];
        if (wdb_sym(d, v.bits, sym, sizeof sym)) ws_buf_printf(&b, " <%s>", sym);
    } else if (v.is_ref && !fmt) {
        const wrt_symbol *y = data_symbol(d, v.space, v.bits);
        if (y && v.bits == y->value) ws_buf_printf(&b, " <%s>", y->name);
        else if (y) ws_buf_printf(&b, " <%s+%u>", y->name, v.bits - y->value);
    }
    ws_buf_append(&b, "", 1);
    d->hist = ws_xrealloc(d->hist, (d->nhist + 1) * sizeof *d->hist);
    d->hist[d->nhist++] = v;
    fprintf(out, "$%zu = %s\n", d->nhist, b.data);
    ws_buf_free(&b);
    return WDB_OK;
}

/* gdb's output: the value alone, no newline, not in the value history (for
 * define and echo). */
static int cmd_output(wdb *d, const char *args, FILE *out)
{
    int fmt;
    args = skip_ws(args);
    if (parse_fmt(d, &args, &fmt, NULL, "xducfto")) return WDB_ERROR;
    if (!*skip_ws(args)) return wdb_error(d, "Argument required (expression to compute).");
    value v;
    char err[512];
    if (wdb_eval_assign(d, d->sel, args, &v, err, sizeof err) != 0) return wdb_error(d, "%s", err);
    ws_buf b = {0};
    wdb_format(&v, fmt, &b);
    ws_buf_append(&b, "", 1);
    fputs(b.data, out);
    ws_buf_free(&b);
    wdb_value_free(&v);
    return WDB_OK;
}

static const char *target_name(void *ctx, unsigned target);

static int cmd_x(wdb *d, const char *args, FILE *out)
{
    int fmt;
    uint64_t count = 1;
    int counted = 0;
    args = skip_ws(args);
    if (*args == '/') {
        const char *p = args + 1;
        counted = isdigit((unsigned char)*p) != 0;
    }
    if (parse_fmt(d, &args, &fmt, &count, "xducftosi")) return WDB_ERROR;
    /* x with no address goes on after the last one, in its format and count (gdb). */
    int space;
    uint32_t addr;
    if (!*skip_ws(args)) {
        if (!d->x_valid) return wdb_error(d, "Argument required (starting display address).");
        addr = d->x_next;
        space = d->x_space;
        if (!fmt) fmt = d->x_fmt;
        if (!counted) count = d->x_count;
    } else {
        value v;
        char err[512];
        if (wdb_eval(d, d->sel, args, &v, err, sizeof err) != 0) return wdb_error(d, "%s", err);
        /* An array means its first element; anything else is an address (from &var:
         * in the variable's memory, else in the cell's data memory). */
        if (v.kind == V_NONE || v.kind == V_FLOAT) {
            int none = v.kind == V_NONE;
            wdb_value_free(&v);
            return wdb_error(d, "Invalid address: a %s.", none ? "value that was optimized out" : "float");
        }
        space = v.kind == V_ARRAY || v.is_ref ? (v.space == SP_HOST ? SP_HOST : SP_DATA) : SP_DATA;
        addr = v.kind == V_ARRAY ? v.addr : v.bits;
        wdb_value_free(&v);
    }
    if (!fmt) fmt = d->x_fmt ? d->x_fmt : 'x';   /* x remembers its format, as gdb's */
    d->x_fmt = fmt;
    d->x_count = count;
    d->x_space = space;
    d->x_valid = 1;
    if (fmt == 'i') {
        /* bundles of the program, from a program byte address */
        if (addr % WT_BUNDLE_BYTES) return wdb_error(d, "Address 0x%x is not the start of a bundle (every %d bytes).", addr, WT_BUNDLE_BYTES);
        uint32_t pc = wdb_pc(d, d->sel);
        for (uint64_t i = 0; i < count; i++, addr += WT_BUNDLE_BYTES) {
            if (addr / WT_BUNDLE_BYTES >= d->img->ncode) {
                d->x_next = addr;
                return wdb_error(d, "Cannot access memory at address 0x%x", addr);
            }
            char text[2048], sym[128];
            wdb_format_bundle(&d->img->code[addr / WT_BUNDLE_BYTES], d->img->iu_code ? &d->img->iu_code[addr / WT_BUNDLE_BYTES] : NULL, text,
                          sizeof text, target_name, d);
            const char *y = wdb_sym(d, addr, sym, sizeof sym);
            fprintf(out, "%s0x%x%s%s%s:\t%s\n", addr == pc ? "=> " : "   ", addr, y ? " <" : "", y ? y : "", y ? ">" : "", text);
        }
        d->x_next = addr;
        return WDB_OK;
    }
    /* the program's bundles can be read before a run (above); memory cannot */
    if (wdb_running(d, out)) return WDB_ERROR;
    uint32_t size;
    const uint8_t *mem = space == SP_HOST ? wsim_host_memory(d->sim, &size) : wsim_cell_data(d->sim, d->sel, &size);
    const char *tag = space == SP_HOST ? " (host)" : "";
    if (fmt == 's') {
        /* bytes up to a NUL, as C's strings (W2 has none: for memory of hand-written code) */
        for (uint64_t i = 0; i < count; i++) {
            if (addr >= size) {
                d->x_next = addr;
                return wdb_error(d, "Cannot access memory at address 0x%x", addr);
            }
            fprintf(out, "0x%x%s:\t\"", addr, tag);
            while (addr < size && mem[addr]) {
                unsigned char c = mem[addr++];
                if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
                else if (c >= 32 && c < 127) fputc(c, out);
                else fprintf(out, "\\%03o", c);
            }
            fprintf(out, "\"\n");
            if (addr < size) addr++;
        }
        d->x_next = addr;
        return WDB_OK;
    }
    if (addr % 4) return wdb_error(d, "Cannot access memory at address 0x%x (words are 4-byte aligned)", addr);
    for (uint64_t i = 0; i < count; i++) {
        uint32_t a = addr + 4 * (uint32_t)i;
        if ((uint64_t)addr + 4 * i + 4 > size) {
            /* what could be read is shown; the error names the first word that cannot */
            if (i % 4) fprintf(out, "\n");
            d->x_next = a;
            return wdb_error(d, "Cannot access memory at address 0x%llx", (unsigned long long)addr + 4 * i);
        }
        if (i % 4 == 0) fprintf(out, "%s0x%x%s:", i ? "\n" : "", a, tag);
        const uint8_t *q = mem + a;
        uint32_t w = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
        ws_buf b = {0};
        if (fmt == 'x') ws_buf_printf(&b, "0x%08x", w);
        else {
            value sv = {0};
            sv.kind = V_WORD;
            sv.bits = w;
            wdb_format(&sv, fmt, &b);
        }
        ws_buf_append(&b, "", 1);
        fprintf(out, "\t%s", b.data);
        ws_buf_free(&b);
    }
    fprintf(out, "\n");
    d->x_next = addr + 4 * (uint32_t)count;
    return WDB_OK;
}

static int info_registers(wdb *d, const char *args, FILE *out)
{
    if (wdb_running(d, out)) return WDB_ERROR;
    const char *w;
    size_t n;
    int any = 0;
    while ((n = next_word(&args, &w)) != 0) {
        any = 1;
        if (*w == '$') w++, n--;
        int o = wt_opnd_parse(w, n);
        if (word_is(w, n, "pc")) {
            char sym[128];
            uint32_t pc = wdb_pc(d, d->sel);
            fprintf(out, "%-7s0x%-10x <%s>\n", "pc", pc, wdb_sym(d, pc, sym, sizeof sym) ? sym : "??");
        } else if (o == WT_OPND_CID) {
            fprintf(out, "%-7s%d\n", "cid", d->img->first_cell + d->sel);
        } else if (o >= 0 && wt_opnd_is_reg((unsigned)o)) {
            uint32_t v = wsim_cell_reg(d->sim, d->sel, (unsigned)o);
            fprintf(out, "%-7s0x%08x  %-12d %.9g\n", wt_opnd_name((unsigned)o), v, (int32_t)v, (double)wt_f(v));
        } else {
            return wdb_error(d, "Invalid register `%.*s'", (int)n, w);
        }
    }
    if (any) return WDB_OK;
    for (unsigned r = 1; r < d->img->model->nregs && r < WT_OPND_NREGS; r++) {
        uint32_t v = wsim_cell_reg(d->sim, d->sel, r);
        fprintf(out, "%-7s0x%08x  %-12d %.9g\n", wt_opnd_name(r), v, (int32_t)v, (double)wt_f(v));
    }
    char sym[128];
    uint32_t pc = wdb_pc(d, d->sel);
    fprintf(out, "%-7s%d\n", "cid", d->img->first_cell + d->sel);
    fprintf(out, "%-7s0x%-10x <%s>\n", "pc", pc, wdb_sym(d, pc, sym, sizeof sym) ? sym : "??");
    return WDB_OK;
}

/* The locals of a frame of the selected cell, each "name = value". */
static void print_locals_at(wdb *d, int frame, const char *indent, FILE *out)
{
    const wdb_func *f = wdb_func_at(d->dw, wdb_frame_pc(d, d->sel, frame));
    if (!f || !f->nvars) {
        fprintf(out, "%sNo locals.\n", indent);
        return;
    }
    int saved = d->frame;
    d->frame = frame;
    for (size_t i = 0; i < f->nvars; i++) {
        value v;
        char err[256];
        if (wdb_eval(d, d->sel, f->vars[i].name, &v, err, sizeof err) != 0) {
            fprintf(out, "%s%s = <error: %s>\n", indent, f->vars[i].name, err);
            continue;
        }
        ws_buf b = {0};
        wdb_format(&v, 0, &b);
        ws_buf_append(&b, "", 1);
        fprintf(out, "%s%s = %s\n", indent, f->vars[i].name, b.data);
        ws_buf_free(&b);
        wdb_value_free(&v);
    }
    d->frame = saved;
}

/* "cell N" after an info command: that cell instead of the selected one. */
static int cell_suffix(wdb *d, const char *args, int *cell)
{
    const char *w;
    size_t n = next_word(&args, &w);
    *cell = d->sel;
    if (!n) return 0;
    if (word_is(w, n, "cell")) n = next_word(&args, &w);
    if (!n) return wdb_error(d, "Argument required (cell number).");
    if (cell_arg(d, w, n, cell)) return -1;
    if (*skip_ws(args)) return wdb_error(d, "Junk after the cell number: \"%s\"", skip_ws(args));
    return 0;
}

static int info_locals(wdb *d, const char *args, FILE *out)
{
    int cell;
    if (cell_suffix(d, args, &cell)) return WDB_ERROR;
    if (wdb_running(d, out)) return WDB_ERROR;
    int sel = d->sel, frame = d->frame;
    if (cell != sel) {
        d->sel = cell;
        d->frame = 0;
    }
    print_locals_at(d, d->frame, "", out);
    d->sel = sel;
    d->frame = frame;
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
    wdb_format(&v, 0, &b);
    ws_buf_append(&b, "", 1);
    fprintf(out, "%s", b.data);
    ws_buf_free(&b);
}

static int info_queues(wdb *d, const char *args, FILE *out)
{
    if (wdb_running(d, out)) return WDB_ERROR;
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
                wdb_format(&v, 0, &b);
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
    if (wdb_running(d, out)) return WDB_ERROR;
    const char *w;
    size_t n = next_word(&args, &w);
    if (n && !word_is(w, n, "all")) return wdb_error(d, "info channels takes no argument but \"all\".");
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

/* The figures of clocks FROM up to TO (those before TO): the run keeps only its
 * totals, so a second simulator replays it from the start, taking every cell's
 * figures at FROM and at TO. */
static int stats_window(wdb *d, uint64_t from, uint64_t to, int only, FILE *out)
{
    uint64_t now = wsim_cycles(d->sim);
    if (from > to) return wdb_error(d, "The window's start %llu is after its end %llu.", (unsigned long long)from,
                                    (unsigned long long)to);
    if (to > now)
        return wdb_error(d, "Clock %llu has not run yet: the run is at clock %llu.", (unsigned long long)to,
                         (unsigned long long)now);
    wsim *r = wdb_new_sim(d);
    if (!r) return WDB_ERROR;
    int lo = only < 0 ? 0 : only, hi = only < 0 ? d->ncells : only + 1;
    wsim_cell_figures *at_from = ws_xcalloc((size_t)(hi - lo), sizeof *at_from);
    wsim_run(r, from);
    for (int k = lo; k < hi; k++) wsim_cell_figures_of(r, k, &at_from[k - lo]);
    wsim_run(r, to);
    if (wsim_cycles(r) != to)
        fprintf(out, "warning: the replay ended at clock %llu, not %llu\n", (unsigned long long)wsim_cycles(r),
                (unsigned long long)to);
    if (d->altered) fprintf(out, "warning: set var changed registers or memory in this run; the replay does not\n");
    fprintf(out, "clocks %llu to %llu: %llu\n", (unsigned long long)from, (unsigned long long)to,
            (unsigned long long)(to - from));
    for (int k = lo; k < hi; k++) {
        wsim_cell_figures at_to;
        wsim_cell_figures_of(r, k, &at_to);
        wsim_print_cell_window(r, k, &at_from[k - lo], &at_to, out);
    }
    free(at_from);
    wsim_free(r);
    return WDB_OK;
}

static int info_stats(wdb *d, const char *args, FILE *out)
{
    const char *w;
    size_t n = next_word(&args, &w);
    int only = -1;
    uint64_t from = 0, to = 0;
    int window = 0;
    const char *after_first = args;
    const char *w2;
    size_t n2 = n && !word_is(w, n, "cell") ? next_word(&after_first, &w2) : 0;
    if (n2 && !word_is(w2, n2, "cell")) {
        /* FROM TO [[cell] N] */
        if (parse_u64(w, n, &from)) return wdb_error(d, "Invalid clock \"%.*s\".", (int)n, w);
        if (parse_u64(w2, n2, &to)) return wdb_error(d, "Invalid clock \"%.*s\".", (int)n2, w2);
        window = 1;
        args = after_first;
        n = next_word(&args, &w);
    }
    if (n && word_is(w, n, "cell")) n = next_word(&args, &w);
    if (n && cell_arg(d, w, n, &only)) return WDB_ERROR;
    if (n && *skip_ws(args)) return wdb_error(d, "Junk after the cell number: \"%s\"", skip_ws(args));
    if (wdb_running(d, out)) return WDB_ERROR;
    if (window) return stats_window(d, from, to, only, out);
    if (only < 0) {
        wsim_print_stats(d->sim, out);
        return WDB_OK;
    }
    /* one cell: the cycle count and that cell's line of the simulator's report */
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) return wdb_error(d, "info stats: %s", strerror(errno));
    wsim_print_stats(d->sim, m);
    fclose(m);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "cell %d (", only);
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        size_t l = nl ? (size_t)(nl - line) : strlen(line);
        if (!strncmp(line, "cycles:", 7) || !strncmp(line, prefix, strlen(prefix))) fprintf(out, "%.*s\n", (int)l, line);
        line = nl ? nl + 1 : NULL;
    }
    free(text);
    return WDB_OK;
}

static int info_functions(wdb *d, const char *args, FILE *out)
{
    const char *re = skip_ws(args);
    regex_t rx;
    if (*re) {
        int rc = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB);
        if (rc) {
            char msg[128];
            regerror(rc, &rx, msg, sizeof msg);
            regfree(&rx);
            return wdb_error(d, "Invalid regexp \"%s\": %s", re, msg);
        }
        fprintf(out, "All functions matching regular expression \"%s\":\n", re);
    } else {
        fprintf(out, "All defined functions:\n");
    }
    for (size_t i = 0; i < d->dw->nfuncs; i++) {
        const wdb_func *f = &d->dw->funcs[i];
        if (*re && regexec(&rx, f->name, 0, NULL, 0) != 0) continue;
        const wdb_row *r = wdb_row_at(d->dw, f->lo);
        fprintf(out, "%s:%u\t%s ();\t0x%08x-0x%08x\n", r && r->file < d->dw->nfiles ? wdb_basename(d->dw->files[r->file]) : "??",
                f->decl_line, f->name, f->lo, f->hi);
    }
    if (*re) regfree(&rx);
    return WDB_OK;
}

/* info line [LOCATION]: where a line's code starts and ends (gdb's words). */
static int info_line(wdb *d, const char *args, FILE *out)
{
    const char *w;
    size_t n = next_word(&args, &w);
    uint32_t pc = wdb_frame_pc(d, d->sel, d->frame);
    const wdb_row *r = NULL;
    if (n) {
        uint32_t *addrs;
        size_t na;
        ws_buf where = {0};
        if (parse_location(d, w, n, &addrs, &na, &where)) {
            ws_buf_free(&where);
            return WDB_ERROR;
        }
        ws_buf_append(&where, "", 1);
        const char *colon = strrchr(where.data, ':');
        unsigned long want = colon ? strtoul(colon + 1, NULL, 10) : 0;
        ws_buf_free(&where);
        pc = addrs[0];
        free(addrs);
        /* of the rows at that address (statements that begin in one bundle), the line's */
        for (size_t i = 0; i < d->dw->nrows; i++)
            if (d->dw->rows[i].addr == pc && !d->dw->rows[i].end && (!r || d->dw->rows[i].line == want))
                r = &d->dw->rows[i];
        if (r && want && r->line != want) r = NULL;
        if (!r) r = wdb_stmt_at(d->dw, pc);
    }
    if (!r) r = wdb_row_at(d->dw, pc);
    if (!r) return wdb_error(d, "No line number information available for address 0x%x", pc);
    /* the line's code runs from its row to the next row of another line */
    uint32_t end = r->addr;
    for (size_t i = (size_t)(r - d->dw->rows) + 1; i < d->dw->nrows; i++) {
        const wdb_row *q = &d->dw->rows[i];
        if (q->addr > r->addr && (q->line != r->line || q->end || q->file != r->file)) {
            end = q->addr;
            break;
        }
    }
    char s1[128], s2[128];
    const char *y1 = wdb_sym(d, r->addr, s1, sizeof s1), *y2 = wdb_sym(d, end, s2, sizeof s2);
    fprintf(out, "Line %u of \"%s\" starts at address 0x%x%s%s%s and ends at 0x%x%s%s%s.\n", r->line,
            r->file < d->dw->nfiles ? wdb_basename(d->dw->files[r->file]) : "??", r->addr, y1 ? " <" : "", y1 ? y1 : "",
            y1 ? ">" : "", end, y2 ? " <" : "", y2 ? y2 : "", y2 ? ">" : "");
    return WDB_OK;
}

static const command info_cmds[] = {
    {"args", NULL, info_args, "info args", "The arguments of the selected frame (W2's functions take none)."},
    {"breakpoints", "b", info_breakpoints, "info breakpoints", "Breakpoints and watchpoints, with their hit counts."},
    {"cells", NULL, info_cells, "info cells", "Every cell: its pc, state (running, stalled on which queue or unit, halted) and frame."},
    {"channels", NULL, info_channels, "info channels [all]",
     "Warp: every link into every queue (words waiting, on the link, reserved, free slots); iWarp: the logical "
     "channels that hold words (all: and the linked ones)."},
    {"display", NULL, info_display, "info display", "The expressions display shows at every stop."},
    {"frame", "f", info_frame, "info frame", "The selected frame: its pc, line, caller, and the pipelined loop it is in."},
    {"functions", NULL, info_functions, "info functions [REGEXP]", "The program's functions (those matching REGEXP) and their addresses."},
    {"line", NULL, info_line, "info line [LOCATION]", "Where the code of a line (the selected frame's) starts and ends."},
    {"locals", NULL, info_locals, "info locals [cell N]", "The variables of the selected frame's function (or cell N's), with their values."},
    {"queues", NULL, info_queues, "info queues [CELL]", "The queues that hold words (all four of CELL's): counts and words."},
    {"registers", "r", info_registers, "info registers [rN...]", "The selected cell's registers (hex, int, float), cid and pc."},
    {"source", NULL, info_source, "info source", "The current source file."},
    {"stats", NULL, info_stats, "info stats [FROM TO] [CELL]",
     "Cycles so far and each cell's (or CELL's) issue, stall and unit figures; with FROM TO, those of clocks FROM "
     "up to TO only (a replay of the run from its start)."},
    {"symbol", NULL, info_symbol, "info symbol ADDRESS", "The symbol at or before a program or data address."},
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
    if (!c) return wdb_error(d, amb ? "Ambiguous info command \"%.*s\"." : "Undefined info command: \"%.*s\".  Try \"help info\".", (int)n, w);
    return c->fn(d, args, out);
}

/* ---- Source and code ----------------------------------------------------------------------------- */

static int show_lines(wdb *d, int file, uint32_t from, uint32_t to, FILE *out)
{
    const char *text;
    size_t len;
    if (wdb_source(d, (uint32_t)file, from, &text, &len) != 0) {
        if (from > 1 && wdb_source(d, (uint32_t)file, 1, &text, &len) == 0)
            return wdb_error(d, "Line number %u out of range; \"%s\" has fewer lines.", from,
                              wdb_basename(d->dw->files[file]));
        fprintf(out, "%u\tin %s\n", from, d->dw->files[file]);
        return WDB_ERROR;
    }
    for (uint32_t l = from; l <= to && wdb_source(d, (uint32_t)file, l, &text, &len) == 0; l++) {
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
        const wdb_row *r = wdb_row_at(d->dw, wdb_pc(d, d->sel));
        if (!r && d->dw->nrows) r = &d->dw->rows[0];
        for (size_t i = 0; !r && i < d->dw->nfuncs; i++)
            if (!strcmp(d->dw->funcs[i].name, "main")) r = wdb_row_at(d->dw, d->dw->funcs[i].lo);
        if (r) {
            file = (int)r->file;
            center = r->line;
        }
    }
    if (file < 0) return wdb_error(d, "No symbol table is loaded.");
    /* listsize lines (set listsize; 0 unlimited) around the line, as gdb centres them */
    uint32_t size = d->listsize ? d->listsize : 0xfffffffeu, half = d->listsize ? d->listsize / 2 : 0xfffffffeu;
    uint32_t from = center > half ? center - half : 1;
    if (d->list_valid && !n) from = d->list_next;
    d->list_file = file;
    d->list_valid = 1;
    uint64_t to = (uint64_t)from + size - 1;
    if (show_lines(d, file, from, to > 0xffffffffu ? 0xffffffffu : (uint32_t)to, out)) return WDB_ERROR;
    return WDB_OK;
}

static const char *target_name(void *ctx, unsigned target)
{
    wdb *d = ctx;
    static char buf[160];
    char sym[128];
    uint32_t a = target * WT_BUNDLE_BYTES;
    if (wdb_sym(d, a, sym, sizeof sym)) snprintf(buf, sizeof buf, "0x%x <%s>", a, sym);
    else snprintf(buf, sizeof buf, "0x%x", a);
    return buf;
}

/* An address expression's value, for disassemble's range. */
static int eval_address(wdb *d, const char *text, uint32_t *a)
{
    value v;
    char err[512];
    if (wdb_eval(d, d->sel, text, &v, err, sizeof err) != 0) return wdb_error(d, "%s", err);
    *a = v.bits;
    int scalar_ok = v.kind == V_INT || v.kind == V_PC || v.kind == V_WORD;
    wdb_value_free(&v);
    return scalar_ok ? 0 : wdb_error(d, "Invalid address for disassemble.");
}

/* gdb's `disassemble START,END` and `START,+LENGTH`: the bundles from START's
 * up to END, each named by its function and offset. */
static int disassemble_range(wdb *d, const char *args, FILE *out)
{
    const char *comma = strchr(args, ',');
    char *start = ws_xstrndup(args, (size_t)(comma - args));
    const char *end = skip_ws(comma + 1);
    int length = *end == '+';
    uint32_t lo, hi;
    int bad = eval_address(d, start, &lo) || eval_address(d, length ? end + 1 : end, &hi);
    free(start);
    if (bad) return WDB_ERROR;
    if (length) hi = lo + hi < lo ? UINT32_MAX : lo + hi;
    uint32_t pc = wdb_pc(d, d->sel);
    fprintf(out, "Dump of assembler code from 0x%x to 0x%x:\n", lo, hi);
    for (uint32_t a = lo - lo % WT_BUNDLE_BYTES; a < hi && a / WT_BUNDLE_BYTES < d->img->ncode; a += WT_BUNDLE_BYTES) {
        char text[2048], sym[128];
        wdb_format_bundle(&d->img->code[a / WT_BUNDLE_BYTES], d->img->iu_code ? &d->img->iu_code[a / WT_BUNDLE_BYTES] : NULL, text,
                          sizeof text, target_name, d);
        if (wdb_sym(d, a, sym, sizeof sym))
            fprintf(out, "%s 0x%08x <%s>:\t%s\n", d->sim && a == pc ? "=>" : "  ", a, sym, text);
        else fprintf(out, "%s 0x%08x:\t%s\n", d->sim && a == pc ? "=>" : "  ", a, text);
    }
    fprintf(out, "End of assembler dump.\n");
    return WDB_OK;
}

static int cmd_disassemble(wdb *d, const char *args, FILE *out)
{
    if (strchr(args, ',')) return disassemble_range(d, args, out);
    const char *w;
    size_t n = next_word(&args, &w);
    uint32_t pc = wdb_pc(d, d->sel);
    uint32_t lo, hi;
    const char *name;
    if (n) {
        char spec[256];
        snprintf(spec, sizeof spec, "%.*s", (int)n, w);
        const wdb_func *f = find_func(d, spec);
        const wrt_symbol *y = NULL;
        if (!f) {
            /* an address (or an expression giving one): the function around it */
            value v;
            char err[512];
            int ok = isdigit((unsigned char)spec[0]) || spec[0] == '$' || spec[0] == '(' || spec[0] == '*';
            const char *e = spec[0] == '*' ? spec + 1 : spec;
            if (!ok) y = find_func_symbol(d, spec);
            if (!ok && !y) return wdb_error(d, "No symbol \"%s\" in current context.", spec);
            if (ok) {
                if (wdb_eval(d, d->sel, e, &v, err, sizeof err) != 0) return wdb_error(d, "%s", err);
                uint32_t a = v.bits;
                int scalar_ok = v.kind == V_INT || v.kind == V_PC || v.kind == V_WORD;
                wdb_value_free(&v);
                if (!scalar_ok) return wdb_error(d, "Invalid address for disassemble.");
                f = wdb_func_at(d->dw, a);
                if (!f) y = wrt_func_for_pc(d->img, a / WT_BUNDLE_BYTES);
                if (!f && !y) return wdb_error(d, "No function contains specified address 0x%x.", a);
            }
        }
        lo = f ? f->lo : y->value;
        hi = f ? f->hi : y->size ? y->value + y->size : lo + WT_BUNDLE_BYTES;
        name = f ? f->name : y->name;
    } else {
        const wdb_func *f = wdb_func_at(d->dw, pc);
        const wrt_symbol *y = f ? NULL : wrt_func_for_pc(d->img, pc / WT_BUNDLE_BYTES);
        if (!f && !y) return wdb_error(d, "No function contains program counter for selected cell.");
        lo = f ? f->lo : y->value;
        hi = f ? f->hi : y->size ? y->value + y->size : lo + WT_BUNDLE_BYTES;
        name = f ? f->name : y->name;
    }
    fprintf(out, "Dump of assembler code for function %s:\n", name);
    for (uint32_t a = lo; a < hi && a / WT_BUNDLE_BYTES < d->img->ncode; a += WT_BUNDLE_BYTES) {
        char text[2048];
        wdb_format_bundle(&d->img->code[a / WT_BUNDLE_BYTES], d->img->iu_code ? &d->img->iu_code[a / WT_BUNDLE_BYTES] : NULL, text,
                          sizeof text, target_name, d);
        fprintf(out, "%s 0x%08x <+%u>:\t%s\n", d->sim && a == pc ? "=>" : "  ", a, a - lo, text);
    }
    fprintf(out, "End of assembler dump.\n");
    return WDB_OK;
}

/* ---- Frames -------------------------------------------------------------------------------- */

static void print_selected_frame(wdb *d, FILE *out)
{
    print_frame_line(d, d->frame, out);
    uint32_t pc = wdb_frame_pc(d, d->sel, d->frame);
    const wdb_row *r = wdb_row_at(d->dw, pc);
    if (r) {
        if (d->frame == 0 && r->addr != pc) fprintf(out, "0x%08x\t", pc);
        wdb_print_source_line(d, out, r->file, r->line);
    }
}

static int select_frame(wdb *d, long long frame, FILE *out)
{
    if (wdb_running(d, out)) return WDB_ERROR;
    int total = nframes(d);
    if (frame < 0) return wdb_error(d, "Bottom (innermost) frame selected; you cannot go down.");
    if (frame >= total) {
        if (frame == d->frame + 1 || total - 1 == d->frame) return wdb_error(d, "Initial frame selected; you cannot go up.");
        return wdb_error(d, "No frame at level %lld.", frame);
    }
    d->frame = (int)frame;
    d->list_valid = 0;
    print_selected_frame(d, out);
    return WDB_OK;
}

static int frame_count_arg(wdb *d, const char *args, long long *n)
{
    const char *w;
    size_t len = next_word(&args, &w);
    if (!len) return 0;
    uint64_t v;
    if (parse_u64(w, len, &v) || v > 1000000) return wdb_error(d, "Invalid number \"%.*s\".", (int)len, w);
    if (*skip_ws(args)) return wdb_error(d, "Junk after the number: \"%s\"", skip_ws(args));
    *n = (long long)v;
    return 0;
}

static int cmd_frame(wdb *d, const char *args, FILE *out)
{
    long long n = d->frame;
    if (frame_count_arg(d, args, &n)) return WDB_ERROR;
    return select_frame(d, n, out);
}

static int cmd_up(wdb *d, const char *args, FILE *out)
{
    long long n = 1;
    if (frame_count_arg(d, args, &n)) return WDB_ERROR;
    /* gdb: `up` at the outermost frame is an error, `up N` goes as far as it can */
    if (d->sim && d->frame == nframes(d) - 1 && !*skip_ws(args))
        return wdb_error(d, "Initial frame selected; you cannot go up.");
    long long to = d->frame + n;
    if (d->sim && to >= nframes(d)) to = nframes(d) - 1;
    return select_frame(d, to, out);
}

static int cmd_down(wdb *d, const char *args, FILE *out)
{
    long long n = 1;
    if (frame_count_arg(d, args, &n)) return WDB_ERROR;
    if (d->sim && d->frame == 0 && !*skip_ws(args))
        return wdb_error(d, "Bottom (innermost) frame selected; you cannot go down.");
    long long to = d->frame - n;
    return select_frame(d, to < 0 ? 0 : to, out);
}

static int info_frame(wdb *d, const char *args, FILE *out)
{
    (void)args;
    if (wdb_running(d, out)) return WDB_ERROR;
    int total = nframes(d);
    uint32_t pc = wdb_frame_pc(d, d->sel, d->frame);
    const wdb_func *f = wdb_func_at(d->dw, pc);
    const wdb_row *r = wdb_row_at(d->dw, pc);
    char sym[128];
    const char *y = wdb_sym(d, pc, sym, sizeof sym);
    fprintf(out, "Stack level %d, cell %d (cid %d):\n", d->frame, d->sel, d->img->first_cell + d->sel);
    fprintf(out, " pc = 0x%x in %s", pc, f ? f->name : y ? y : "??");
    if (r && r->file < d->dw->nfiles) fprintf(out, " (%s:%u)", wdb_basename(d->dw->files[r->file]), r->line);
    if (d->frame + 1 < total) fprintf(out, "; saved pc = 0x%x", wdb_frame_pc(d, d->sel, d->frame + 1));
    fprintf(out, "\n");
    if (d->frame + 1 < total) fprintf(out, " called by frame at level %d\n", d->frame + 1);
    if (d->frame > 0) fprintf(out, " caller of frame at level %d\n", d->frame - 1);
    for (size_t i = 0; f && i < f->nblocks; i++)
        if (pc >= f->blocks[i].lo && pc < f->blocks[i].hi) fprintf(out, " in the %s\n", f->blocks[i].name);
    if (d->frame == 0 && wdb_swp_block(d, pc)) {
        ws_buf b = {0};
        wdb_swp_text(d, d->sel, &b);
        ws_buf_append(&b, "", 1);
        fprintf(out, " %s\n", b.data);
        ws_buf_free(&b);
    }
    fprintf(out, " source language w2.\n");
    fprintf(out, " return stack depth %u; registers are not saved by calls.\n", (unsigned)(total - 1));
    return WDB_OK;
}

static int info_args(wdb *d, const char *args, FILE *out)
{
    (void)args;
    if (wdb_running(d, out)) return WDB_ERROR;
    /* W2's functions take no parameters: their data is the cell's globals */
    fprintf(out, "No arguments.\n");
    return WDB_OK;
}

static int info_source(wdb *d, const char *args, FILE *out)
{
    (void)args;
    const wdb_row *r = wdb_row_at(d->dw, wdb_frame_pc(d, d->sel, d->frame));
    if (!r && d->list_valid && d->list_file >= 0) {
        for (size_t i = 0; i < d->dw->nrows && !r; i++)
            if ((int)d->dw->rows[i].file == d->list_file) r = &d->dw->rows[i];
    }
    if (!d->sim && !d->list_valid) r = NULL;
    if (!r || r->file >= d->dw->nfiles) {
        fprintf(out, "No current source file.\n");
        return WDB_OK;
    }
    const char *name = d->dw->files[r->file];
    size_t len;
    const char *text;
    fprintf(out, "Current source file is %s\n", name);
    if (d->dw->comp_dir) fprintf(out, "Compilation directory is %s\n", d->dw->comp_dir);
    if (wdb_source(d, r->file, 1, &text, &len) == 0) {
        unsigned lines = 0;
        for (uint32_t l = 1; wdb_source(d, r->file, l, &text, &len) == 0; l++) lines = l;
        fprintf(out, "Contains %u lines.\n", lines);
    } else {
        fprintf(out, "The source is not found (directory DIR adds a place to look).\n");
    }
    fprintf(out, "Source language is w2.\nProducer is warp-cc.\nCompiled with DWARF 4 debugging format.\n");
    return WDB_OK;
}

static int info_symbol(wdb *d, const char *args, FILE *out)
{
    const char *e = skip_ws(args);
    if (!*e) return wdb_error(d, "Argument required (address).");
    value v;
    char err[512];
    if (wdb_eval(d, d->sel, e, &v, err, sizeof err) != 0) return wdb_error(d, "%s", err);
    uint32_t a = v.bits;
    int ok = v.kind == V_INT || v.kind == V_PC || v.kind == V_WORD;
    int space = v.is_ref ? v.space : SP_NONE;
    wdb_value_free(&v);
    if (!ok) return wdb_error(d, "Invalid address: \"%s\".", e);
    if (space != SP_HOST && space != SP_DATA) {
        char sym[128];
        const char *y = wdb_sym(d, a, sym, sizeof sym);
        if (y && a / WT_BUNDLE_BYTES < d->img->ncode) {
            const char *plus = strrchr(y, '+');
            if (plus && !strcmp(plus, "+0")) fprintf(out, "%.*s in section .text\n", (int)(plus - y), y);
            else if (plus) fprintf(out, "%.*s + %s in section .text\n", (int)(plus - y), y, plus + 1);
            return WDB_OK;
        }
    }
    /* data: the symbol (a variable's storage) that holds the address */
    const wrt_symbol *y = data_symbol(d, space == SP_HOST ? SP_HOST : SP_DATA, a);
    if (y) {
        const char *sec = space == SP_HOST ? ".host" : ".data";
        for (size_t i = 0; space != SP_HOST && i < d->dw->ndsecs; i++)
            if (y->value >= d->dw->dsecs[i].lo && y->value < d->dw->dsecs[i].hi) sec = d->dw->dsecs[i].name;
        if (a == y->value) fprintf(out, "%s in section %s\n", y->name, sec);
        else fprintf(out, "%s + %u in section %s\n", y->name, a - y->value, sec);
        return WDB_OK;
    }
    fprintf(out, "No symbol matches %s.\n", e);
    return WDB_OK;
}

/* ---- Types ----------------------------------------------------------------------------------- */

static void type_name(const value *v, ws_buf *b)
{
    if (v->is_ref) {
        wdb_pointer_type(v, b);
        return;
    }
    switch (v->kind) {
    case V_INT: ws_buf_puts(b, "int"); return;
    case V_FLOAT: ws_buf_puts(b, "float"); return;
    case V_WORD: ws_buf_puts(b, "word"); return;
    case V_PC: ws_buf_puts(b, "program address"); return;
    case V_NONE: ws_buf_puts(b, v->why[0] && !strcmp(v->why, "void") ? "void" : "<optimized out>"); return;
    case V_ARRAY:
        ws_buf_puts(b, v->elem == EL_FLOAT ? "float" : v->elem == EL_INT ? "int" : "word");
        ws_buf_printf(b, " [%u]", v->dims[0]);
        if (v->ndims > 1) ws_buf_printf(b, "[%u]", v->dims[1]);
        return;
    }
}

static int cmd_whatis(wdb *d, const char *args, FILE *out)
{
    const char *e = skip_ws(args);
    if (!*e) return wdb_error(d, "Argument required (one or more choice items).");
    /* a type name is its own type, as gdb's whatis int */
    if (!strcmp(e, "int") || !strcmp(e, "float")) {
        fprintf(out, "type = %s\n", e);
        return WDB_OK;
    }
    value v;
    char err[512];
    int rc = d->sim ? wdb_eval(d, d->sel, e, &v, err, sizeof err)
                    : wdb_check(d, wdb_frame_pc(d, d->sel, 0), e, err, sizeof err);
    if (rc != 0) return wdb_error(d, "%s", err);
    if (d->sim && v.kind == V_NONE && wdb_find_var(d, d->sel, e)) wdb_value_free(&v);
    if (!d->sim || v.kind == V_NONE) {
        /* without a run, or optimized out: the type comes from the declaration */
        const wdb_var *var = wdb_find_var(d, d->sel, e);
        const wrt_host_array *h = var ? NULL : wrt_host_find(d->img, e);
        memset(&v, 0, sizeof v);
        wdb_type t = {0, 0, {0, 0}};
        if (var) t = var->type;
        else if (h) t = (wdb_type){h->is_float, h->dims[0] ? (h->dims[1] ? 2 : 1) : 0, {h->dims[0], h->dims[1]}};
        else return wdb_error(d, "The program is not being run.");
        v.kind = t.ndims ? V_ARRAY : t.is_float ? V_FLOAT : V_INT;
        v.elem = t.is_float ? EL_FLOAT : EL_INT;
        v.ndims = t.ndims;
        v.dims[0] = t.dims[0];
        v.dims[1] = t.dims[1];
    }
    ws_buf b = {0};
    type_name(&v, &b);
    ws_buf_append(&b, "", 1);
    fprintf(out, "type = %s\n", b.data);
    ws_buf_free(&b);
    wdb_value_free(&v);
    return WDB_OK;
}

/* ---- Breakpoint settings ---------------------------------------------------------------------- */

static bpoint *bp_arg(wdb *d, const char **args)
{
    const char *w;
    size_t n = next_word(args, &w);
    uint64_t num;
    if (!n) {
        wdb_error(d, "Argument required (breakpoint number).");
        return NULL;
    }
    bpoint *b = parse_u64(w, n, &num) || num > 1000000 ? NULL : find_bp(d, (int)num);
    if (!b) wdb_error(d, "No breakpoint number %.*s.", (int)n, w);
    return b;
}

static int cmd_condition(wdb *d, const char *args, FILE *out)
{
    bpoint *b = bp_arg(d, &args);
    if (!b) return WDB_ERROR;
    if (b->is_watch) return wdb_error(d, "Watchpoint %d takes no condition: its expression is what it watches.", b->num);
    const char *c = skip_ws(args);
    if (!*c) {
        free(b->cond);
        b->cond = NULL;
        fprintf(out, "Breakpoint %d now unconditional.\n", b->num);
        return WDB_OK;
    }
    char err[512];
    if (wdb_check(d, b->addrs[0], c, err, sizeof err) != 0) return wdb_error(d, "%s", err);
    free(b->cond);
    b->cond = ws_xstrdup(c);
    return WDB_OK;
}

static int cmd_ignore(wdb *d, const char *args, FILE *out)
{
    bpoint *b = bp_arg(d, &args);
    if (!b) return WDB_ERROR;
    const char *w;
    size_t n = next_word(&args, &w);
    uint64_t count;
    if (!n) return wdb_error(d, "Second argument (specified ignore-count) is missing.");
    if (parse_u64(w, n, &count) || count > 0xffffffffu) return wdb_error(d, "Invalid number \"%.*s\".", (int)n, w);
    b->ignore = (unsigned)count;
    if (count == 0) fprintf(out, "Will stop next time breakpoint %d is reached.\n", b->num);
    else if (count == 1) fprintf(out, "Will ignore next crossing of breakpoint %d.\n", b->num);
    else fprintf(out, "Will ignore next %u crossings of breakpoint %d.\n", b->ignore, b->num);
    return WDB_OK;
}

/* commands [N]: the lines up to `end` run when breakpoint N (default: the last
 * one made) stops the run. */
static int cmd_commands(wdb *d, const char *args, FILE *out)
{
    (void)out;
    bpoint *b = NULL;
    if (*skip_ws(args)) {
        b = bp_arg(d, &args);
        if (!b) return WDB_ERROR;
    } else {
        for (size_t i = 0; i < d->nbps; i++)
            if (d->bps[i].num == d->next_num - 1) b = &d->bps[i];
        if (!b) return wdb_error(d, "No breakpoints specified.");
    }
    d->collect_kind = 1;
    d->collect_bp = b->num;
    return WDB_OK;
}

static int cmd_define(wdb *d, const char *args, FILE *out)
{
    (void)out;
    const char *w;
    size_t n = next_word(&args, &w);
    if (!n) return wdb_error(d, "Argument required (name of command to define).");
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)w[i]) && w[i] != '_' && w[i] != '-')
            return wdb_error(d, "Invalid command name \"%.*s\".", (int)n, w);
    int amb;
    const command *c = find_command(w, n, &amb);
    if (c && word_is(w, n, c->name)) return wdb_error(d, "\"%s\" is a built-in command.", c->name);
    d->collect_kind = 2;
    free(d->collect_name);
    d->collect_name = ws_xstrndup(w, n);
    return WDB_OK;
}

/* ---- Running, more ------------------------------------------------------------------------ */

static int cmd_start(wdb *d, const char *args, FILE *out)
{
    if (*skip_ws(args)) return wdb_error(d, "start takes no arguments (give --in and --out to warp-dbg).");
    const wdb_func *f = find_func(d, "main");
    const wrt_symbol *y = f ? NULL : find_func_symbol(d, "main");
    if (!f && !y) return wdb_error(d, "No symbol table loaded.  Use the \"file\" command.");
    if (set_break(d, "main", out, 1) != WDB_OK) return WDB_ERROR;
    if (wdb_start(d, out) != WDB_OK) return WDB_ERROR;
    fprintf(out, "Starting program: %s\n", d->image);
    return wdb_resume(d, RUN_CONTINUE, 1, out);
}

static int cmd_kill(wdb *d, const char *args, FILE *out)
{
    if (*skip_ws(args)) return wdb_error(d, "kill takes no arguments.");
    if (!d->sim) return wdb_error(d, "The program is not being run.");
    wsim_free(d->sim);
    d->sim = NULL;
    d->frame = 0;
    d->end_code = -1;
    fprintf(out, "[Program killed]\n");
    return WDB_OK;
}

static int run_to(wdb *d, const char *args, FILE *out, int mode)
{
    const char *w;
    size_t n = next_word(&args, &w);
    if (*skip_ws(args)) return wdb_error(d, "Junk after the location: \"%s\"", skip_ws(args));
    if (wdb_resumable(d, out)) return WDB_ERROR;
    if (!n) {
        if (mode == RUN_ADVANCE) return wdb_error(d, "Argument required (a location).");
        return wdb_resume(d, RUN_UNTIL, 1, out);
    }
    uint32_t *addrs;
    size_t na;
    ws_buf where = {0};
    int rc = parse_location(d, w, n, &addrs, &na, &where);
    ws_buf_free(&where);
    if (rc) return WDB_ERROR;
    free(d->adv_addrs);
    d->adv_addrs = addrs;
    d->nadv = na;
    rc = wdb_resume(d, RUN_ADVANCE, 1, out);
    free(d->adv_addrs);
    d->adv_addrs = NULL;
    d->nadv = 0;
    return rc;
}

static int cmd_until(wdb *d, const char *args, FILE *out) { return run_to(d, args, out, RUN_UNTIL); }
static int cmd_advance(wdb *d, const char *args, FILE *out) { return run_to(d, args, out, RUN_ADVANCE); }

/* ---- Displays ----------------------------------------------------------------------------- */

static void show_display(wdb *d, size_t i, FILE *out)
{
    const char *e = d->displays[i];
    int fmt = 0;
    if (*e == '/') {
        fmt = e[1];
        e = skip_ws(e + 2);
    }
    value v;
    char err[512];
    if (wdb_eval(d, d->sel, e, &v, err, sizeof err) != 0) {
        fprintf(out, "%d: %s = <error: %s>\n", d->display_nums[i], e, err);
        return;
    }
    ws_buf b = {0};
    wdb_format(&v, fmt, &b);
    ws_buf_append(&b, "", 1);
    if (fmt) fprintf(out, "%d: /%c %s = %s\n", d->display_nums[i], fmt, e, b.data);
    else fprintf(out, "%d: %s = %s\n", d->display_nums[i], e, b.data);
    ws_buf_free(&b);
    wdb_value_free(&v);
}

static void show_displays(wdb *d, FILE *out)
{
    if (!d->sim) return;
    for (size_t i = 0; i < d->ndisplays; i++) show_display(d, i, out);
}

static int cmd_display(wdb *d, const char *args, FILE *out)
{
    const char *e = skip_ws(args);
    if (!*e) {
        show_displays(d, out);
        return WDB_OK;
    }
    int fmt = 0;
    if (parse_fmt(d, &e, &fmt, NULL, "xducfto")) return WDB_ERROR;
    e = skip_ws(e);
    char err[512];
    if (wdb_check(d, wdb_frame_pc(d, d->sel, d->frame), e, err, sizeof err) != 0) return wdb_error(d, "%s", err);
    ws_buf t = {0};
    if (fmt) ws_buf_printf(&t, "/%c ", fmt);
    ws_buf_puts(&t, e);
    ws_buf_append(&t, "", 1);
    d->displays = ws_xrealloc(d->displays, (d->ndisplays + 1) * sizeof *d->displays);
    d->display_nums = ws_xrealloc(d->display_nums, (d->ndisplays + 1) * sizeof *d->display_nums);
    d->displays[d->ndisplays] = t.data;
    d->display_nums[d->ndisplays] = d->next_display++;
    d->ndisplays++;
    if (d->sim) show_display(d, d->ndisplays - 1, out);
    return WDB_OK;
}

static int cmd_undisplay(wdb *d, const char *args, FILE *out)
{
    (void)out;
    const char *w;
    size_t n;
    int any = 0, rc = WDB_OK;
    while ((n = next_word(&args, &w)) != 0) {
        any = 1;
        uint64_t num;
        size_t i = d->ndisplays;
        if (!parse_u64(w, n, &num))
            for (i = 0; i < d->ndisplays && (uint64_t)d->display_nums[i] != num; i++) continue;
        if (i == d->ndisplays) {
            rc = wdb_error(d, "No display number %.*s.", (int)n, w);
            continue;
        }
        free(d->displays[i]);
        memmove(&d->displays[i], &d->displays[i + 1], (d->ndisplays - i - 1) * sizeof *d->displays);
        memmove(&d->display_nums[i], &d->display_nums[i + 1], (d->ndisplays - i - 1) * sizeof *d->display_nums);
        d->ndisplays--;
    }
    if (!any) {
        for (size_t i = 0; i < d->ndisplays; i++) free(d->displays[i]);
        d->ndisplays = 0;
    }
    return rc;
}

static int info_display(wdb *d, const char *args, FILE *out)
{
    (void)args;
    if (!d->ndisplays) {
        fprintf(out, "There are no auto-display expressions now.\n");
        return WDB_OK;
    }
    fprintf(out, "Auto-display expressions now in effect:\nNum Enb Expression\n");
    for (size_t i = 0; i < d->ndisplays; i++) fprintf(out, "%d:   y  %s\n", d->display_nums[i], d->displays[i]);
    return WDB_OK;
}

/* ---- Settings ------------------------------------------------------------------------------ */

static int parse_limit(wdb *d, const char *args, unsigned *v)
{
    const char *w;
    size_t n = next_word(&args, &w);
    uint64_t x;
    if (!n) return wdb_error(d, "Argument required (integer to set it to, or \"unlimited\").");
    if (word_is(w, n, "unlimited")) x = 0;
    else if (parse_u64(w, n, &x) || x > 0x7fffffff) return wdb_error(d, "Invalid number \"%.*s\".", (int)n, w);
    if (*skip_ws(args)) return wdb_error(d, "Junk after the number: \"%s\"", skip_ws(args));
    *v = (unsigned)x;
    return 0;
}

static int cmd_set(wdb *d, const char *args, FILE *out)
{
    (void)out;
    const char *a = skip_ws(args), *w;
    size_t n = next_word(&a, &w);
    if (!n) return wdb_error(d, "Argument required (expression to compute).");
    if (word_is(w, n, "var") || word_is(w, n, "variable")) {
        value v;
        char err[512];
        if (wdb_eval_assign(d, d->sel, a, &v, err, sizeof err) != 0) return wdb_error(d, "%s", err);
        wdb_value_free(&v);
        return WDB_OK;
    }
    if (word_is(w, n, "listsize")) return parse_limit(d, a, &d->listsize) ? WDB_ERROR : WDB_OK;
    if (word_is(w, n, "print") || word_is(w, n, "p")) {
        const char *s2;
        size_t m = next_word(&a, &s2);
        if (word_is(s2, m, "elements")) return parse_limit(d, a, &d->print_elements) ? WDB_ERROR : WDB_OK;
        if (word_is(s2, m, "repeats")) return parse_limit(d, a, &d->print_repeats) ? WDB_ERROR : WDB_OK;
        return wdb_error(d, "Undefined set print command: \"%.*s\".  Try \"help set\".", (int)m, s2);
    }
    /* no pager and no questions here: what scripts for gdb set is already so */
    if (word_is(w, n, "confirm") || word_is(w, n, "pagination") || word_is(w, n, "height") || word_is(w, n, "width"))
        return WDB_OK;
    /* set EXPR, as gdb: an assignment when it is not a setting's name */
    if (strchr(args, '=')) {
        value v;
        char err[512];
        if (wdb_eval_assign(d, d->sel, args, &v, err, sizeof err) != 0) return wdb_error(d, "%s", err);
        wdb_value_free(&v);
        return WDB_OK;
    }
    return wdb_error(d, "Undefined set command: \"%.*s\".  Try \"help set\".", (int)n, w);
}

static int cmd_show(wdb *d, const char *args, FILE *out)
{
    const char *a = skip_ws(args), *w;
    size_t n = next_word(&a, &w);
    char num[32];
    if (word_is(w, n, "listsize")) {
        snprintf(num, sizeof num, "%u", d->listsize);
        fprintf(out, "Number of source lines warp-dbg will list by default is %s.\n", d->listsize ? num : "unlimited");
        return WDB_OK;
    }
    if (word_is(w, n, "print") || word_is(w, n, "p")) {
        const char *s2;
        size_t m = next_word(&a, &s2);
        int all = m == 0;
        if (all || word_is(s2, m, "elements")) {
            snprintf(num, sizeof num, "%u", d->print_elements);
            fprintf(out, "%sLimit on string chars or array elements to print is %s.\n", all ? "print elements:  " : "",
                    d->print_elements ? num : "unlimited");
        }
        if (all || word_is(s2, m, "repeats")) {
            snprintf(num, sizeof num, "%u", d->print_repeats);
            fprintf(out, "%sThreshold for repeated print elements is %s.\n", all ? "print repeats:  " : "",
                    d->print_repeats ? num : "unlimited");
        }
        if (!all && !word_is(s2, m, "elements") && !word_is(s2, m, "repeats"))
            return wdb_error(d, "Undefined show print command: \"%.*s\".  Try \"help show\".", (int)m, s2);
        return WDB_OK;
    }
    if (word_is(w, n, "version")) {
        fprintf(out, "warp-dbg 0.1.0 (source-level debugger of the Warp and iWarp arrays)\n");
        return WDB_OK;
    }
    if (word_is(w, n, "directories")) {
        fprintf(out, "Source directories searched: ");
        for (size_t i = d->ndirs; i-- > 0;) fprintf(out, "%s:", d->dirs[i]);
        fprintf(out, "$cdir:$cwd\n");
        return WDB_OK;
    }
    return wdb_error(d, "Undefined show command: \"%.*s\".  Try \"help show\".", (int)n, w);
}

static int cmd_directory(wdb *d, const char *args, FILE *out)
{
    const char *w;
    size_t n;
    int any = 0;
    while ((n = next_word(&args, &w)) != 0) {
        any = 1;
        d->dirs = ws_xrealloc(d->dirs, (d->ndirs + 1) * sizeof *d->dirs);
        d->dirs[d->ndirs++] = ws_xstrndup(w, n);
    }
    if (!any) {
        for (size_t i = 0; i < d->ndirs; i++) free(d->dirs[i]);
        d->ndirs = 0;
    }
    /* sources not found before may be found now */
    for (size_t i = 0; i < d->dw->nfiles; i++)
        if (!d->src[i]) d->src_tried[i] = 0;
    return cmd_show(d, "directories", out);
}

/* ---- Scripts --------------------------------------------------------------------------------- */

/* How deep source files, user commands and breakpoint commands may call each
 * other: a command that sources itself ends here, not in a stack overflow. */
#define MAX_NESTING 16

static int run_lines(wdb *d, char *const *lines, size_t n, FILE *out, const char *what)
{
    if (d->nesting >= MAX_NESTING)
        return wdb_error(d, "%s: nested too deeply (more than %d levels of source, define and commands).", what, MAX_NESTING);
    d->nesting++;
    int rc = WDB_OK;
    for (size_t i = 0; i < n && rc != WDB_QUIT; i++) {
        rc = wdb_command(d, lines[i], out);
        /* a command that fails ends the script, as in gdb */
        if (rc == WDB_ERROR) break;
    }
    d->nesting--;
    return rc;
}

static int cmd_source(wdb *d, const char *args, FILE *out)
{
    const char *f = skip_ws(args);
    if (!*f) return wdb_error(d, "source command requires file name of file to source.");
    char e[256];
    size_t len;
    char *text = ws_read_file(f, &len, 16u << 20, e, sizeof e);
    if (!text) return wdb_error(d, "%s", e);
    size_t n = 0;
    char **lines = NULL;
    for (char *p = text; p && *p;) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = 0;
        lines = ws_xrealloc(lines, (n + 1) * sizeof *lines);
        lines[n++] = p;
        p = nl ? nl + 1 : NULL;
    }
    int rc = run_lines(d, lines, n, out, f);
    free(lines);
    free(text);
    return rc;
}

static int cmd_shell(wdb *d, const char *args, FILE *out)
{
    if (!d->allow_shell) return wdb_error(d, "shell is not available in this session.");
    const char *c = skip_ws(args);
    fflush(out);
    fflush(stdout);
    int rc = system(*c ? c : "${SHELL:-/bin/sh}");
    if (rc == -1) return wdb_error(d, "shell: %s", strerror(errno));
    return WDB_OK;
}

/* cell apply all|LIST CMD: CMD on each of the cells, as gdb's thread apply. */
static int cmd_cell_apply(wdb *d, const char *args, FILE *out)
{
    const char *w;
    size_t n = next_word(&args, &w);
    if (!n) return wdb_error(d, "Please specify a cell ID list.");
    char *pick = ws_xcalloc((size_t)d->ncells, 1);
    if (word_is(w, n, "all")) {
        memset(pick, 1, (size_t)d->ncells);
    } else {
        /* a list of cells and ranges: 0 2-4 */
        for (;;) {
            char buf[48];
            if (n >= sizeof buf) goto bad_list;
            memcpy(buf, w, n);
            buf[n] = 0;
            if (!isdigit((unsigned char)buf[0])) break;
            char *dash = strchr(buf, '-'), *end;
            unsigned long lo = strtoul(buf, &end, 10), hi = lo;
            if (dash) hi = strtoul(dash + 1, &end, 10);
            if (*end || (dash && end == dash + 1) || lo > hi || hi >= (unsigned long)d->ncells) {
                free(pick);
                return wdb_error(d, "Invalid cell list \"%s\": the array has cells 0 to %d.", buf, d->ncells - 1);
            }
            for (unsigned long k = lo; k <= hi; k++) pick[k] = 1;
            const char *save = args;
            n = next_word(&args, &w);
            if (!n) {
                args = save;
                break;
            }
        }
        /* the word that is not a cell starts the command */
        args = w;
    }
    const char *cmd = skip_ws(args);
    if (!*cmd) {
        free(pick);
        return wdb_error(d, "Please specify a command following the cell ID list.");
    }
    int sel = d->sel, frame = d->frame, rc = WDB_OK;
    for (int k = 0; k < d->ncells && rc != WDB_QUIT; k++) {
        if (!pick[k]) continue;
        d->sel = k;
        d->frame = 0;
        fprintf(out, "\nCell %d (cid %d):\n", k, d->img->first_cell + k);
        char *line = ws_xstrdup(cmd);
        char *lines[1] = {line};
        int r = run_lines(d, lines, 1, out, "cell apply");
        free(line);
        if (r != WDB_OK) rc = r;
        /* a command that ran the array moved every cell: the rest see that */
    }
    if (rc != WDB_QUIT) {
        d->sel = sel < d->ncells ? sel : 0;
        d->frame = frame;
    }
    free(pick);
    return rc;
bad_list:
    free(pick);
    return wdb_error(d, "Invalid cell list.");
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
    int rc = wdb_eval(d, d->sel, e, &v, err, sizeof err);
    if (rc != 0) return wdb_error(d, "%s", err);
    if (v.kind != V_INT && v.kind != V_WORD) {
        wdb_value_free(&v);
        return wdb_error(d, "quit wants an integer exit status.");
    }
    d->quit_code = (int)(v.bits & 0xff);
    wdb_value_free(&v);
    return WDB_QUIT;
}

static int cmd_help(wdb *d, const char *args, FILE *out);

static const command commands[] = {
    {"advance", NULL, cmd_advance, "advance LOCATION", "Run until the selected cell reaches LOCATION or its frame returns."},
    {"backtrace", "bt", cmd_backtrace, "backtrace [full] [N | -N]",
     "The selected cell's calls, from its return stack (the innermost N, the outermost N; full: with locals)."},
    {"break", "b", cmd_break, "break [FILE:LINE | LINE | FUNCTION | *ADDRESS] [cell N] [if CONDITION]",
     "Stop when a cell arrives at a location (any cell, or cell N; when CONDITION holds there)."},
    {"cell", NULL, cmd_cell, "cell [N] | cell apply all|LIST COMMAND",
     "Select cell N (what print, step, x, info registers look at), or show the selected one; apply: run COMMAND on "
     "every cell, or on the cells of LIST (0 2-4)."},
    {"commands", NULL, cmd_commands, "commands [N] ... end", "Commands to run when breakpoint N (the last one) stops the run."},
    {"condition", NULL, cmd_condition, "condition N [EXPR]", "Stop at breakpoint N only when EXPR holds (none: always)."},
    {"continue", "c", cmd_continue, "continue [N]", "Run the array on; with N, ignore the breakpoint that stopped it N-1 more times."},
    {"cycle", NULL, cmd_stepi, "cycle [N]", "Run the whole array N clocks (default 1); the same as stepi."},
    {"define", NULL, cmd_define, "define NAME ... end", "A new command NAME: the lines up to end ($arg0..., $argc)."},
    {"delete", "d", cmd_delete, "delete [N...]", "Delete breakpoints and watchpoints N..., or all of them."},
    {"directory", "dir", cmd_directory, "directory [DIR...]", "Also look for source files in DIR (none: forget the list)."},
    {"disable", NULL, cmd_disable, "disable [N...]", "Disable breakpoints and watchpoints N..., or all."},
    {"disassemble", NULL, cmd_disassemble, "disassemble [FUNCTION | ADDRESS | START,END | START,+LENGTH]",
     "The bundles of a function (the selected cell's, or the one around ADDRESS), or from START to END or for LENGTH bytes; => marks the pc."},
    {"display", NULL, cmd_display, "display[/FMT] [EXPR]", "Print EXPR now and at every stop (no EXPR: print them all)."},
    {"down", NULL, cmd_down, "down [N]", "Select the frame N (1) below: the callee."},
    {"echo", NULL, cmd_echo, "echo TEXT", "Print TEXT (\\n is a newline)."},
    {"enable", NULL, cmd_enable, "enable [N...]", "Enable breakpoints and watchpoints N..., or all."},
    {"finish", "fin", cmd_finish, "finish", "Run until the selected cell returns from its function."},
    {"frame", "f", cmd_frame, "frame [N]", "Select frame N of the selected cell (0 innermost), or show the selected one."},
    {"help", "h", cmd_help, "help [COMMAND]", "List the commands, or say what one does."},
    {"ignore", NULL, cmd_ignore, "ignore N COUNT", "Let breakpoint N pass COUNT times."},
    {"info", "i", cmd_info, "info SUBCOMMAND",
     "args, breakpoints, cells, channels, display, frame, functions, line, locals, queues, registers, source, stats, symbol."},
    {"kill", "k", cmd_kill, "kill", "End the run of the program."},
    {"list", "l", cmd_list, "list [LINE | FILE:LINE | FUNCTION]", "Ten source lines around a place; again: the next ten."},
    {"next", "n", cmd_next, "next [N]", "One source line of the selected cell, over calls; the other cells run in lockstep."},
    {"nexti", "ni", cmd_stepi, "nexti [N]", "The same as stepi: every clock is the whole array's."},
    {"output", NULL, cmd_output, "output[/FMT] EXPR", "Print EXPR's value alone: no $N, no newline."},
    {"ptype", NULL, cmd_whatis, "ptype EXPR", "The type of EXPR."},
    {"print", "p", cmd_print, "print[/FMT] EXPR",
     "Evaluate EXPR in the selected cell: W2 variables, a[i], m[i][j], host arrays, $r5 $cid $pc $cycle, "
     "@xl @yl @xr @yr (queued words), $N $$ $$N (history), $_exitcode. x = EXPR assigns. FMT: x d u f c t o."},
    {"quit", "q", cmd_quit, "quit [N]", "Leave the debugger (exit status N)."},
    {"run", "r", cmd_run, "run", "Start the array from the beginning (again), with the --in files."},
    {"set", NULL, cmd_set, "set var EXPR | set listsize N | set print elements|repeats N",
     "Assign (set var x = 5, also print x = 5), or change a setting (unlimited: no limit)."},
    {"shell", NULL, cmd_shell, "shell [COMMAND]", "Run COMMAND (or a shell) with /bin/sh; also !COMMAND."},
    {"show", NULL, cmd_show, "show listsize | print [elements|repeats] | directories | version", "A setting's value."},
    {"source", NULL, cmd_source, "source FILE", "Run the commands in FILE (until one fails)."},
    {"start", NULL, cmd_start, "start", "Run the program to the start of main (a temporary breakpoint)."},
    {"step", "s", cmd_step, "step [N]", "One source line of the selected cell, into calls; the other cells run in lockstep."},
    {"stepi", "si", cmd_stepi, "stepi [N]", "Run the whole array N clocks (default 1)."},
    {"tbreak", NULL, cmd_tbreak, "tbreak LOCATION [cell N] [if CONDITION]", "A breakpoint that is deleted when it stops the run."},
    {"undisplay", NULL, cmd_undisplay, "undisplay [N...]", "Stop displaying expressions N... (or all)."},
    {"until", "u", cmd_until, "until [LOCATION]",
     "next, but never back to an earlier line (runs a loop to its end); LOCATION: as advance."},
    {"up", NULL, cmd_up, "up [N]", "Select the frame N (1) above: the caller."},
    {"watch", NULL, cmd_watch, "watch EXPR [cell N]",
     "Stop when EXPR's value changes in the selected cell (or cell N): a variable, an element, or a queue (@xl)."},
    {"whatis", NULL, cmd_whatis, "whatis EXPR", "The type of EXPR."},
    {"where", NULL, cmd_backtrace, "where", "The same as backtrace."},
    {"x", NULL, cmd_x, "x[/NFMT] [ADDRESS]",
     "N words of the selected cell's data memory from ADDRESS (or &var; host arrays read host memory; none: on from the "
     "last). FMT: x d u f c t o; s a string; i bundles of the program."},
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
        if (!c) return wdb_error(d, "Undefined command: \"%.*s\".  Try \"help\".", (int)n, w);
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
void wdb_allow_shell(wdb *d, int allow) { d->allow_shell = allow; }

static void add_line(char ***lines, size_t *n, const char *line)
{
    *lines = ws_xrealloc(*lines, (*n + 1) * sizeof **lines);
    (*lines)[(*n)++] = ws_xstrdup(line);
}

/* A line of `commands` or `define` being read; `end` finishes it. */
static int collect_line(wdb *d, const char *cmd)
{
    if (strcmp(cmd, "end") != 0) {
        add_line(&d->collect, &d->ncollect, cmd);
        return WDB_OK;
    }
    if (d->collect_kind == 1) {
        bpoint *b = find_bp(d, d->collect_bp);
        if (b) {
            for (size_t k = 0; k < b->ncmds; k++) free(b->cmds[k]);
            free(b->cmds);
            b->cmds = d->collect;
            b->ncmds = d->ncollect;
            d->collect = NULL;
        }
    } else {
        struct usercmd *u = NULL;
        for (size_t i = 0; i < d->nusercmds; i++)
            if (!strcmp(d->usercmds[i].name, d->collect_name)) u = &d->usercmds[i];
        if (!u) {
            d->usercmds = ws_xrealloc(d->usercmds, (d->nusercmds + 1) * sizeof *d->usercmds);
            u = &d->usercmds[d->nusercmds++];
            u->name = ws_xstrdup(d->collect_name);
        } else {
            for (size_t k = 0; k < u->nlines; k++) free(u->lines[k]);
            free(u->lines);
        }
        u->lines = d->collect;
        u->nlines = d->ncollect;
        d->collect = NULL;
    }
    for (size_t k = 0; d->collect && k < d->ncollect; k++) free(d->collect[k]);
    free(d->collect);
    d->collect = NULL;
    d->ncollect = 0;
    d->collect_kind = 0;
    return WDB_OK;
}

/* A user command: its lines with $arg0... and $argc replaced by the arguments. */
static int run_user(wdb *d, const struct usercmd *u, const char *args, FILE *out)
{
    const char *argv[10];
    size_t argl[10];
    int argc = 0;
    const char *w;
    size_t n;
    while (argc < 10 && (n = next_word(&args, &w)) != 0) {
        argv[argc] = w;
        argl[argc++] = n;
    }
    char **lines = ws_xcalloc(u->nlines + 1, sizeof *lines);
    for (size_t i = 0; i < u->nlines; i++) {
        ws_buf b = {0};
        for (const char *p = u->lines[i]; *p;) {
            if (!strncmp(p, "$argc", 5)) {
                ws_buf_printf(&b, "%d", argc);
                p += 5;
            } else if (!strncmp(p, "$arg", 4) && isdigit((unsigned char)p[4])) {
                int k = p[4] - '0';
                if (k < argc) ws_buf_append(&b, argv[k], argl[k]);
                p += 5;
            } else {
                ws_buf_append(&b, p++, 1);
            }
        }
        ws_buf_append(&b, "", 1);
        lines[i] = b.data;
    }
    int rc;
    if (d->nesting >= MAX_NESTING) {
        rc = wdb_error(d, "%s: nested too deeply (more than %d levels of source, define and commands).", u->name, MAX_NESTING);
    } else {
        d->nesting++;
        rc = WDB_OK;
        for (size_t i = 0; i < u->nlines && rc != WDB_QUIT; i++) {
            rc = wdb_command(d, lines[i], out);
            if (rc == WDB_ERROR) break;
        }
        d->nesting--;
    }
    for (size_t i = 0; i < u->nlines; i++) free(lines[i]);
    free(lines);
    return rc;
}

/* After a command: a temporary breakpoint that stopped the run goes, the
 * displays are shown, and the commands of the breakpoint that stopped it run. */
static int after_stop(wdb *d, unsigned stops, FILE *out, int rc)
{
    for (int rounds = 0; rounds < 100000 && rc != WDB_QUIT; rounds++) {
        if (d->pending_delete > 0) {
            char num[16];
            snprintf(num, sizeof num, "%d", d->pending_delete);
            d->pending_delete = 0;
            for_each_bp(d, num, 0);
        }
        if (d->stops != stops) {
            stops = d->stops;
            show_displays(d, out);
        }
        bpoint *b = d->pending_cmds > 0 ? find_bp(d, d->pending_cmds) : NULL;
        d->pending_cmds = 0;
        if (!b || !b->ncmds) break;
        /* a copy: the commands may delete their own breakpoint */
        char **lines = ws_xcalloc(b->ncmds + 1, sizeof *lines);
        size_t n = b->ncmds;
        for (size_t i = 0; i < n; i++) lines[i] = ws_xstrdup(b->cmds[i]);
        unsigned before = d->stops;
        d->nesting++;
        for (size_t i = 0; i < n && rc != WDB_QUIT; i++) {
            int r = wdb_command(d, lines[i], out);
            if (r == WDB_QUIT) rc = r;
            /* a command that ran the array ends the list, as in gdb */
            if (r == WDB_ERROR || d->stops != before) break;
        }
        d->nesting--;
        for (size_t i = 0; i < n; i++) free(lines[i]);
        free(lines);
    }
    return rc;
}

int wdb_command(wdb *d, const char *line, FILE *out)
{
    d->cur_out = out;
    d->err = d->err_stream ? d->err_stream : out;
    wdb_print_limits(d->print_elements, d->print_repeats);
    const char *p = skip_ws(line);
    if (d->collect_kind) {
        char *c = ws_xstrdup(p);
        c[strcspn(c, "\r\n")] = 0;
        size_t l = strlen(c);
        while (l && (c[l - 1] == ' ' || c[l - 1] == '\t')) c[--l] = 0;
        int rc = collect_line(d, c);
        free(c);
        return rc;
    }
    if (*p == '#') return WDB_OK;
    if (!*p || *p == '\n' || *p == '\r') {
        if (!d->repeat || !d->last_cmd || d->nesting) return WDB_OK;
        p = d->last_cmd;
    }
    /* One line: whatever follows a newline is not part of this command. */
    char *cmd = ws_xstrdup(p);
    cmd[strcspn(cmd, "\r\n")] = 0;
    size_t len = strlen(cmd);
    while (len && (cmd[len - 1] == ' ' || cmd[len - 1] == '\t')) cmd[--len] = 0;
    unsigned stops = d->stops;
    int rc;
    const command *c = NULL;
    if (cmd[0] == '!') {
        rc = cmd_shell(d, cmd + 1, out);
    } else {
        /* The command name: letters, or up to a '/' (print/x, x/4f). */
        size_t n = 0;
        while (cmd[n] && cmd[n] != ' ' && cmd[n] != '\t' && cmd[n] != '/') n++;
        const struct usercmd *u = NULL;
        for (size_t i = 0; i < d->nusercmds && !u; i++)
            if (word_is(cmd, n, d->usercmds[i].name)) u = &d->usercmds[i];
        int amb;
        c = u ? NULL : find_command(cmd, n, &amb);
        if (u) rc = run_user(d, u, cmd + n, out);
        else if (!c && amb) rc = wdb_error(d, "Ambiguous command \"%.*s\".", (int)n, cmd);
        else if (!c) rc = wdb_error(d, "Undefined command: \"%.*s\".  Try \"help\".", (int)n, cmd);
        else rc = c->fn(d, cmd + n, out);
    }
    if (d->nesting == 0) rc = after_stop(d, stops, out, rc);
    /* gdb repeats neither a new run nor what would make a second breakpoint;
     * list and x go on where they stopped. */
    if (c && (c->fn == cmd_list || c->fn == cmd_x)) {
        free(cmd);
        cmd = ws_xstrdup(c->fn == cmd_list ? "list" : "x");
    } else if (!c || c->fn == cmd_run || c->fn == cmd_break || c->fn == cmd_tbreak || c->fn == cmd_watch ||
               c->fn == cmd_delete || c->fn == cmd_quit || c->fn == cmd_start || c->fn == cmd_kill ||
               c->fn == cmd_commands || c->fn == cmd_define || c->fn == cmd_display || c->fn == cmd_undisplay ||
               c->fn == cmd_set || c->fn == cmd_source || c->fn == cmd_shell || c->fn == cmd_directory ||
               c->fn == cmd_condition || c->fn == cmd_ignore) {
        free(cmd);
        cmd = NULL;
    }
    if (d->nesting == 0) {
        free(d->last_cmd);
        d->last_cmd = cmd;
    } else {
        free(cmd);
    }
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
    const wdb_func *f = wdb_func_at(d->dw, wdb_pc(d, d->sel));
    for (size_t i = 0; f && i < f->nvars; i++) cand(&c, word, wlen, f->vars[i].name);
    for (size_t k = 0; k < d->dw->nfuncs; k++)
        for (size_t i = 0; i < d->dw->funcs[k].nvars; i++) cand(&c, word, wlen, d->dw->funcs[k].vars[i].name);
    for (size_t i = 0; i < d->dw->nglobals; i++) cand(&c, word, wlen, d->dw->globals[i].name);
    for (size_t i = 0; i < d->img->nhost; i++) cand(&c, word, wlen, d->img->host[i].name);
    for (size_t i = 0; i < d->dw->nfuncs; i++) cand(&c, word, wlen, d->dw->funcs[i].name);
    if (cmd && (cmd->fn == cmd_break || cmd->fn == cmd_list))
        for (size_t i = 0; i < d->dw->nfiles; i++) {
            char fl[512];
            snprintf(fl, sizeof fl, "%s:", wdb_basename(d->dw->files[i]));
            cand(&c, word, wlen, fl);
        }
    return c.v;
}
