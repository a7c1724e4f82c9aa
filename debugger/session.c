/* The session: the image and its DWARF, the simulated array, and run control.
 *
 * The array runs one clock at a time (wsim_step), all cells in lockstep, as the
 * Warp host's step mode ran them (seed 002, section 5.2). After each clock the
 * debugger looks at every cell that issued a bundle: a cell that has just arrived
 * at a breakpoint's address stops the run (a cell stalled at one does not stop it
 * again and again); watchpoints are evaluated again and stop it when their value
 * changed. `step` and `next` follow the selected cell's source lines while the
 * others advance with it; `stepi` and `cycle` are one clock of the whole array. */
#include "wdb_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int wdb_error(wdb *d, const char *fmt, ...)
{
    FILE *e = d->err ? d->err : stderr;
    if (d->cur_out && d->cur_out != e) fflush(d->cur_out);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(e, fmt, ap);
    va_end(ap);
    fputc('\n', e);
    if (d->cur_out != e) fflush(e);
    return WDB_ERROR;
}

int wdb_running(wdb *d, FILE *out)
{
    (void)out;
    if (d->sim) return 0;
    return wdb_error(d, "The program is not being run.");
}

uint32_t wdb_pc(const wdb *d, int cell)
{
    return d->sim ? wsim_cell_pc(d->sim, cell) * WT_BUNDLE_BYTES : d->img->entry * WT_BUNDLE_BYTES;
}

uint32_t wdb_frame_pc(wdb *d, int cell, int frame)
{
    if (!d->sim || frame <= 0) return wdb_pc(d, cell);
    uint32_t ret[64];
    unsigned depth = wsim_cell_return_stack(d->sim, cell, ret, 64);
    if ((unsigned)frame > depth || frame > 64) return wdb_pc(d, cell);
    return ret[frame - 1] ? (ret[frame - 1] - 1) * WT_BUNDLE_BYTES : 0;
}

const char *wdb_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* ---- The session ---------------------------------------------------------------------- */

static char **copy_strings(const char *const *v, size_t n)
{
    char **c = ws_xcalloc(n + 1, sizeof *c);
    for (size_t i = 0; i < n; i++) c[i] = ws_xstrdup(v[i]);
    return c;
}

wdb *wdb_new(const char *image, const wdb_options *opts, char *err, size_t errlen)
{
    char e[512];
    wrt_image *img = wrt_image_load(image, e, sizeof e);
    if (!img) {
        snprintf(err, errlen, "%s: %s", image, e);
        return NULL;
    }
    wdb_dwarf *dw = wdb_dwarf_read(image, e, sizeof e);
    if (!dw) {
        snprintf(err, errlen, "%s: %s", image, e);
        wrt_image_free(img);
        return NULL;
    }
    wca_config comm;
    wca_config_default(&comm);
    if (opts && ((opts->topology && wca_parse_topology(opts->topology, &comm, e, sizeof e) != 0) ||
                 (opts->channels && wca_parse_channels(opts->channels, &comm, e, sizeof e) != 0))) {
        snprintf(err, errlen, "%s", e);
        wdb_dwarf_free(dw);
        wrt_image_free(img);
        return NULL;
    }
    /* A 2-D cellprogram runs on the torus its image names, as under warp-sim. */
    if (img->grid_width) {
        if (opts && opts->topology && (comm.topology != WCA_TORUS || comm.width != img->grid_width ||
                                       comm.height != img->grid_height)) {
            snprintf(err, errlen, "the program is a 2-D cellprogram of %dx%d cells: it runs on the torus:%dx%d "
                     "topology only", img->grid_width, img->grid_height, img->grid_width, img->grid_height);
            wdb_dwarf_free(dw);
            wrt_image_free(img);
            return NULL;
        }
        comm.topology = WCA_TORUS;
        comm.width = img->grid_width;
        comm.height = img->grid_height;
        comm.host_edges = 1;
    }
    wdb *d = ws_xcalloc(1, sizeof *d);
    d->image = ws_xstrdup(image);
    d->comm = comm;
    d->img = img;
    d->dw = dw;
    wrt_sim_program(img, &d->prog);
    d->prog.comm = &d->comm;
    d->ncells = img->last_cell - img->first_cell + 1;
    d->next_num = 1;
    d->last_bp = -1;
    d->list_file = -1;
    d->end_code = -1;
    d->quit_code = -1;
    d->listsize = 10;
    d->print_elements = 200;
    d->print_repeats = 10;
    d->next_display = 1;
    if (opts) {
        d->in_names = copy_strings(opts->in_names, opts->nin);
        d->in_paths = copy_strings(opts->in_paths, opts->nin);
        d->nin = opts->nin;
        d->out_names = copy_strings(opts->out_names, opts->nout);
        d->out_paths = copy_strings(opts->out_paths, opts->nout);
        d->nout = opts->nout;
        d->max_cycles = opts->max_cycles;
    }
    d->issued = ws_xcalloc((size_t)d->ncells, sizeof *d->issued);
    d->swp_entry = ws_xcalloc((size_t)d->ncells, sizeof *d->swp_entry);
    d->swp_lo = ws_xcalloc((size_t)d->ncells, sizeof *d->swp_lo);
    for (size_t i = 0; i < dw->nfuncs; i++)
        for (size_t k = 0; k < dw->funcs[i].nblocks; k++) d->has_swp |= dw->funcs[i].blocks[k].ii > 0;
    d->src = ws_xcalloc(dw->nfiles + 1, sizeof *d->src);
    d->srclen = ws_xcalloc(dw->nfiles + 1, sizeof *d->srclen);
    d->src_tried = ws_xcalloc(dw->nfiles + 1, sizeof *d->src_tried);
    return d;
}

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) free(v[i]);
    free(v);
}

void wdb_free(wdb *d)
{
    if (!d) return;
    wsim_free(d->sim);
    wdb_free_breakpoints(d);
    for (size_t i = 0; i < d->nhist; i++) wdb_value_free(&d->hist[i]);
    free(d->hist);
    for (size_t i = 0; i < d->dw->nfiles; i++) free(d->src[i]);
    free(d->src);
    free(d->srclen);
    free(d->src_tried);
    wdb_dwarf_free(d->dw);
    wrt_image_free(d->img);
    free_strings(d->in_names, d->nin);
    free_strings(d->in_paths, d->nin);
    free_strings(d->out_names, d->nout);
    free_strings(d->out_paths, d->nout);
    free(d->issued);
    free(d->swp_entry);
    free(d->swp_lo);
    free(d->last_cmd);
    free(d->image);
    free_strings(d->displays, d->ndisplays);
    free(d->display_nums);
    free_strings(d->dirs, d->ndirs);
    for (size_t i = 0; i < d->nusercmds; i++) {
        free(d->usercmds[i].name);
        free_strings(d->usercmds[i].lines, d->usercmds[i].nlines);
    }
    free(d->usercmds);
    free_strings(d->collect, d->ncollect);
    free(d->collect_name);
    free(d->adv_addrs);
    free(d);
}

void wdb_interrupt(wdb *d) { d->stop_req = 1; }

/* ---- Where things are -------------------------------------------------------------------- */

/* The program symbol at or before addr: a function's, else any (hand-written code). */
static const wrt_symbol *text_symbol(wdb *d, uint32_t addr)
{
    const wrt_symbol *y = wrt_func_for_pc(d->img, addr / WT_BUNDLE_BYTES);
    for (size_t i = 0; !y && i < d->img->nsyms; i++) {
        const wrt_symbol *s = &d->img->syms[i];
        if (s->section == 0 && s->value <= addr && (!y || s->value > y->value)) y = s;
    }
    return y;
}

const char *wdb_sym(wdb *d, uint32_t addr, char *buf, size_t size)
{
    const wdb_func *f = wdb_func_at(d->dw, addr);
    if (f) {
        snprintf(buf, size, "%s+%u", f->linkage, addr - f->lo);
        return buf;
    }
    const wrt_symbol *y = text_symbol(d, addr);
    if (!y) return NULL;
    snprintf(buf, size, "%s+%u", y->name, addr - y->value);
    return buf;
}

void wdb_frame_text(wdb *d, uint32_t addr, ws_buf *b)
{
    const wdb_func *f = wdb_func_at(d->dw, addr);
    const wdb_row *r = wdb_row_at(d->dw, addr);
    const char *name = f ? f->name : NULL;
    const wrt_symbol *y = name ? NULL : text_symbol(d, addr);
    if (!name && y) name = y->name;
    if (!name) {
        ws_buf_printf(b, "0x%08x in ?? ()", addr);
        return;
    }
    ws_buf_printf(b, "%s ()", name);
    if (r && r->file < d->dw->nfiles && f) ws_buf_printf(b, " at %s:%u", wdb_basename(d->dw->files[r->file]), r->line);
}

static const char *source_text(wdb *d, uint32_t file, size_t *len)
{
    if (file >= d->dw->nfiles) return NULL;
    if (!d->src_tried[file]) {
        char e[256];
        d->src_tried[file] = 1;
        d->src[file] = ws_read_file(d->dw->files[file], &d->srclen[file], 64u << 20, e, sizeof e);
        /* a relative name from the compilation directory, as gdb's $cdir */
        if (!d->src[file] && d->dw->comp_dir && d->dw->files[file][0] != '/') {
            ws_buf p = {0};
            ws_buf_printf(&p, "%s/%s", d->dw->comp_dir, d->dw->files[file]);
            ws_buf_append(&p, "", 1);
            d->src[file] = ws_read_file(p.data, &d->srclen[file], 64u << 20, e, sizeof e);
            ws_buf_free(&p);
        }
        /* then the `directory` list, newest first, as gdb: DIR/PATH, then DIR/BASENAME */
        for (size_t i = d->ndirs; !d->src[file] && i-- > 0;) {
            const char *names[2] = {d->dw->files[file], wdb_basename(d->dw->files[file])};
            for (int k = 0; k < 2 && !d->src[file]; k++) {
                ws_buf p = {0};
                ws_buf_printf(&p, "%s/%s", d->dirs[i], names[k]);
                ws_buf_append(&p, "", 1);
                d->src[file] = ws_read_file(p.data, &d->srclen[file], 64u << 20, e, sizeof e);
                ws_buf_free(&p);
            }
        }
    }
    *len = d->srclen[file];
    return d->src[file];
}

int wdb_source(wdb *d, uint32_t file, uint32_t line, const char **text, size_t *len)
{
    size_t n;
    const char *s = source_text(d, file, &n);
    if (!s || line == 0) return -1;
    const char *p = s, *end = s + n;
    for (uint32_t l = 1; l < line && p < end; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    if (p >= end) return -1;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    *text = p;
    *len = (size_t)((nl ? nl : end) - p);
    return 0;
}

void wdb_print_source_line(wdb *d, FILE *out, uint32_t file, uint32_t line)
{
    const char *t;
    size_t n;
    if (wdb_source(d, file, line, &t, &n) == 0) fprintf(out, "%u\t%.*s\n", line, (int)n, t);
    else fprintf(out, "%u\tin %s\n", line, file < d->dw->nfiles ? d->dw->files[file] : "??");
}

const char *wdb_cell_state(wdb *d, int cell, char *buf, size_t size)
{
    if (!d->sim) {
        snprintf(buf, size, "not started");
        return buf;
    }
    switch (wsim_cell_state_of(d->sim, cell)) {
    case WSIM_CELL_HALTED: snprintf(buf, size, "halted"); return buf;
    case WSIM_CELL_FAULTED: snprintf(buf, size, "faulted"); return buf;
    default: break;
    }
    char why[200];
    wsim_cell_wait(d->sim, cell, why, sizeof why);
    /* "starts at clock N" is also what a cell says in the clock after a bundle
     * when the run stopped there (a fault): only one that never issued waits. */
    if (*why && strncmp(why, "starts at", 9) == 0 && wsim_cell_issued(d->sim, cell) > 0) why[0] = 0;
    if (*why && strncmp(why, "starts at", 9) == 0) snprintf(buf, size, "waiting: %s", why);
    else if (*why) snprintf(buf, size, "stalled: %s", why);
    else snprintf(buf, size, "running");
    return buf;
}

/* "cell 3, poly () at polynomial.w2:33" + the source line; mid-line with the address. */
static void print_location(wdb *d, FILE *out, int cell, int with_cell, int with_frame)
{
    uint32_t pc = wdb_pc(d, cell);
    const wdb_row *r = wdb_row_at(d->dw, pc);
    if (with_frame || !r) {
        ws_buf b = {0};
        wdb_frame_text(d, pc, &b);
        ws_buf_append(&b, "", 1);
        if (with_cell) fprintf(out, "cell %d, ", cell);
        fprintf(out, "%s\n", b.data);
        ws_buf_free(&b);
    }
    if (r) {
        if (r->addr != pc) fprintf(out, "0x%08x\t", pc);
        wdb_print_source_line(d, out, r->file, r->line);
    }
    if (wdb_swp_block(d, pc)) {
        ws_buf b = {0};
        wdb_swp_text(d, cell, &b);
        ws_buf_append(&b, "", 1);
        fprintf(out, "%s\n", b.data);
        ws_buf_free(&b);
    }
}

/* ---- Starting a run ------------------------------------------------------------------- */

wsim *wdb_new_sim(wdb *d)
{
    char err[512];
    wsim *s = wsim_new(&d->prog, err, sizeof err);
    if (!s) {
        wdb_error(d, "%s: %s", d->image, err);
        return NULL;
    }
    for (size_t i = 0; i < d->nin; i++) {
        if (wrt_host_read(d->img, s, d->in_names[i], d->in_paths[i], err, sizeof err) != 0) {
            wsim_free(s);
            wdb_error(d, "%s", err);
            return NULL;
        }
    }
    return s;
}

int wdb_start(wdb *d, FILE *out)
{
    wsim *s = wdb_new_sim(d);
    if (!s) return WDB_ERROR;
    for (size_t h = 0; h < d->img->nhost; h++) {
        if (d->img->host[h].is_out) continue;
        int bound = 0;
        for (size_t i = 0; i < d->nin && !bound; i++) bound = strcmp(d->in_names[i], d->img->host[h].name) == 0;
        if (!bound) fprintf(out, "warning: no --in for host array '%s': it starts as zeros\n", d->img->host[h].name);
    }
    wsim_free(d->sim);
    d->sim = s;
    d->fresh = 1;
    memset(d->swp_lo, 0, sizeof *d->swp_lo * (size_t)d->ncells);
    d->altered = 0;
    d->end_code = -1;
    for (size_t i = 0; i < d->nbps; i++) {
        d->bps[i].hits = 0;
        if (d->bps[i].is_watch) wdb_watch_init(d, &d->bps[i]);
    }
    if (d->sel >= d->ncells) d->sel = 0;
    return WDB_OK;
}

static int write_outputs(wdb *d, FILE *out)
{
    (void)out;
    int rc = WDB_OK;
    for (size_t i = 0; i < d->nout; i++) {
        ws_output o;
        FILE *f = ws_output_open(&o, d->out_paths[i], 0);
        if (!f) {
            rc = wdb_error(d, "%s: cannot write: %s", d->out_paths[i], strerror(errno));
            continue;
        }
        if (wrt_host_write(d->img, d->sim, d->out_names[i], f) != 0) {
            ws_output_abort(&o);
            rc = wdb_error(d, "%s: no host array '%s'", d->image, d->out_names[i]);
        } else if (ws_output_commit(&o) != 0) {
            rc = wdb_error(d, "%s: cannot write: %s", d->out_paths[i], strerror(errno));
        }
    }
    return rc;
}

/* ---- Breakpoints and watchpoints after a clock ------------------------------------------- */

/* A breakpoint that the cell's arrival at pc triggers (condition true, not ignored). */
static bpoint *hit_breakpoint(wdb *d, int cell, uint32_t pc, FILE *out)
{
    for (size_t i = 0; i < d->nbps; i++) {
        bpoint *b = &d->bps[i];
        if (b->is_watch || !b->enabled || (b->cell >= 0 && b->cell != cell)) continue;
        int at = 0;
        for (size_t k = 0; k < b->naddrs && !at; k++) at = b->addrs[k] == pc;
        if (!at) continue;
        if (b->cond) {
            value v;
            char err[256];
            if (wdb_eval(d, cell, b->cond, &v, err, sizeof err) != 0) {
                fprintf(out, "Error in testing condition for breakpoint %d:\n%s\n", b->num, err);
                b->hits++;
                return b;   /* gdb stops when the condition cannot be tested */
            }
            int t = wdb_truth(&v);
            wdb_value_free(&v);
            if (!t) continue;
        }
        b->hits++;
        if (b->ignore) {
            b->ignore--;
            continue;
        }
        return b;
    }
    return NULL;
}

static char *watch_text(wdb *d, const bpoint *b)
{
    value v;
    char err[256];
    if (wdb_eval(d, b->cell, b->where, &v, err, sizeof err) != 0) return NULL;
    if (v.kind == V_NONE) {
        wdb_value_free(&v);
        return NULL;
    }
    ws_buf t = {0};
    wdb_format(&v, 0, &t);
    ws_buf_append(&t, "", 1);
    wdb_value_free(&v);
    return t.data;
}

/* A watchpoint whose value changed; old and new text in *was and *now. */
static bpoint *hit_watchpoint(wdb *d, char **was, char **now)
{
    for (size_t i = 0; i < d->nbps; i++) {
        bpoint *b = &d->bps[i];
        if (!b->is_watch || !b->enabled) continue;
        char *t = watch_text(d, b);
        if (t && b->old && strcmp(t, b->old) != 0) {
            b->hits++;
            *was = b->old;
            *now = t;
            b->old = ws_xstrdup(t);
            return b;
        }
        if (t) {
            free(b->old);
            b->old = t;
        }
    }
    return NULL;
}

void wdb_watch_init(wdb *d, bpoint *b)
{
    free(b->old);
    b->old = d->sim ? watch_text(d, b) : NULL;
}

/* ---- Resuming -------------------------------------------------------------------------- */

typedef struct stepper {
    int mode;
    int cell;
    uint32_t start_pc;
    uint32_t line;            /* the line being stepped over; 0 none */
    uint32_t discr;           /* and its discriminator */
    const wdb_func *func;
    unsigned depth;           /* return stack depth at the start */
    int left_line;            /* finish: returned */
} stepper;

static unsigned depth_of(wdb *d, int cell) { return wsim_cell_return_stack(d->sim, cell, NULL, 0); }

static void stepper_init(wdb *d, stepper *st, int mode)
{
    memset(st, 0, sizeof *st);
    st->mode = mode;
    st->cell = d->sel;
    st->start_pc = wdb_pc(d, d->sel);
    const wdb_row *r = wdb_row_at(d->dw, st->start_pc);
    st->line = r ? r->line : 0;
    st->discr = r ? r->discriminator : 0;
    st->func = wdb_func_at(d->dw, st->start_pc);
    st->depth = depth_of(d, d->sel);
}

/* After the selected cell issued and arrived at pc (from prev): is the step done? */
static int step_done(wdb *d, stepper *st, uint32_t prev, uint32_t pc)
{
    unsigned depth = depth_of(d, st->cell);
    if (st->mode == RUN_FINISH) return depth < st->depth;
    if (st->mode == RUN_ADVANCE) {
        for (size_t i = 0; i < d->nadv; i++)
            if (d->adv_addrs[i] == pc) return 1;
        return depth < st->depth;
    }
    if (depth > st->depth) {
        if (st->mode == RUN_NEXT || st->mode == RUN_UNTIL) return 0;              /* inside a call: step over it */
        return wdb_stmt_at(d->dw, pc) != NULL;           /* step: the callee's first line */
    }
    if (depth < st->depth) {
        /* Returned: at a statement's start, that is the next line; in the middle
         * of one (the call's own line), go on to the next statement. */
        st->depth = depth;
        if (wdb_stmt_at(d->dw, pc)) return 1;
        const wdb_row *r = wdb_row_at(d->dw, pc);
        st->line = r ? r->line : 0;
        st->discr = r ? r->discriminator : 0;
        st->start_pc = pc;
        return 0;
    }
    const wdb_row *r = wdb_stmt_at(d->dw, pc);
    if (!r) return 0;
    /* A new line (or another iteration of a pipelined kernel: a new
     * discriminator), or the same line again by a jump back (a loop). */
    if (st->mode == RUN_UNTIL) return pc > st->start_pc && r->line != st->line;
    return r->line != st->line || r->discriminator != st->discr || pc <= prev;
}

enum { STOP_NONE, STOP_STEP, STOP_BREAK, STOP_WATCH, STOP_DONE, STOP_FAULT, STOP_DEADLOCK, STOP_LIMIT,
       STOP_INTERRUPT, STOP_HALTED, STOP_FLOW };

static void report_stop(wdb *d, FILE *out, int why, int cell, bpoint *b, const char *was, const char *now,
                        const stepper *st, bpoint *w)
{
    uint64_t cyc = wsim_cycles(d->sim);
    if (cell >= 0 && cell != d->sel) {
        d->sel = cell;
        fprintf(out, "[Switching to cell %d]\n", cell);
    }
    switch (why) {
    case STOP_BREAK:
        /* A watched value that changed in the same clock is said first. */
        if (w) fprintf(out, "\nWatchpoint %d: %s\n\nOld value = %s\nNew value = %s\n", w->num, w->where, was, now);
        fprintf(out, "\n%s %d, ", b->temporary ? "Temporary breakpoint" : "Breakpoint", b->num);
        print_location(d, out, d->sel, 1, 1);
        break;
    case STOP_WATCH:
        fprintf(out, "\nWatchpoint %d: %s\n\nOld value = %s\nNew value = %s\n", w->num, w->where, was, now);
        print_location(d, out, d->sel, 1, 1);
        break;
    case STOP_STEP: {
        uint32_t pc = wdb_pc(d, d->sel);
        if (st->mode == RUN_STEPI) {
            char state[256];
            fprintf(out, "cycle %llu, ", (unsigned long long)cyc);
            print_location(d, out, d->sel, 1, 1);
            wdb_cell_state(d, d->sel, state, sizeof state);
            if (strcmp(state, "running") != 0) fprintf(out, "cell %d is %s\n", d->sel, state);
        } else {
            print_location(d, out, d->sel, 0, wdb_func_at(d->dw, pc) != st->func || st->mode == RUN_FINISH);
        }
        break;
    }
    case STOP_DONE:
        fprintf(out, "[Program finished after %llu cycles]\n", (unsigned long long)cyc);
        break;
    case STOP_FAULT:
        fprintf(out, "\nProgram stopped by a fault at cycle %llu:\n%s\n", (unsigned long long)cyc, wsim_message(d->sim));
        print_location(d, out, d->sel, 1, 1);
        break;
    case STOP_DEADLOCK:
        fprintf(out, "\nProgram stopped: deadlock at cycle %llu\n%s\n", (unsigned long long)cyc, wsim_message(d->sim));
        break;
    case STOP_FLOW:
        /* compile-time flow control (Warp): a cell would have waited for a queue */
        fprintf(out, "\nProgram stopped at cycle %llu:\n%s\n", (unsigned long long)cyc, wsim_message(d->sim));
        print_location(d, out, d->sel, 1, 1);
        break;
    case STOP_LIMIT:
        fprintf(out, "\nProgram stopped: cycle limit %llu reached\n", (unsigned long long)d->max_cycles);
        print_location(d, out, d->sel, 1, 1);
        break;
    case STOP_INTERRUPT:
        fprintf(out, "\nProgram interrupted at cycle %llu.\n", (unsigned long long)cyc);
        print_location(d, out, d->sel, 1, 1);
        break;
    case STOP_HALTED:
        fprintf(out, "[cell %d halted at cycle %llu]\n", d->sel, (unsigned long long)cyc);
        break;
    default:
        break;
    }
}

/* ---- Software-pipelined loops ---------------------------------------------------------- */

/* A pipelined loop's iterations are told apart by the bundles its cell has issued
 * since it entered the prologue: iteration n starts n x II bundles after it, and
 * stage s of it runs s x II bundles later (stalls issue nothing, so they do not
 * count). The run goes clock by clock, so every entry is seen here. */
static void note_swp_entries(wdb *d)
{
    for (int k = 0; k < d->ncells; k++) {
        if (wsim_cell_issued(d->sim, k) == d->issued[k]) continue;
        uint32_t pc = wdb_pc(d, k);
        const wdb_block *b = wdb_swp_block(d, pc);
        if (!b || b->lo != pc) continue;
        d->swp_entry[k] = wsim_cell_issued(d->sim, k);
        d->swp_lo[k] = pc + 1;
    }
}

const wdb_block *wdb_swp_block(const wdb *d, uint32_t pc)
{
    const wdb_func *f = wdb_func_at(d->dw, pc);
    for (size_t i = 0; f && i < f->nblocks; i++)
        if (f->blocks[i].ii && pc >= f->blocks[i].lo && pc < f->blocks[i].hi) return &f->blocks[i];
    return NULL;
}

int wdb_swp_iterations(const wdb *d, int cell, const wdb_block *b, int64_t *iter, int64_t *shown)
{
    *shown = -1;
    if (!d->sim || d->swp_lo[cell] != b->lo + 1) return -1;
    uint32_t pc = wdb_pc(d, cell);
    uint64_t done = wsim_cell_issued(d->sim, cell) - d->swp_entry[cell];
    uint64_t at = (pc - b->lo) / WT_BUNDLE_BYTES;   /* the bundle's place in the block */
    uint64_t pro = (uint64_t)(b->stages - 1) * b->ii, kernel = (uint64_t)b->unroll * b->ii;
    /* in the epilogue no iteration starts: from its j-th II on, stages 0..j are idle */
    uint64_t idle_below = at >= pro + kernel ? (at - pro - kernel) / b->ii + 1 : 0;
    int64_t t = (int64_t)(done / b->ii);
    for (uint32_t s = 0; s < b->stages; s++) iter[s] = t - (int64_t)s >= 0 && s >= idle_below ? t - (int64_t)s : -1;
    /* the DWARF's stage; in the prologue, until it starts, the first iteration */
    *shown = iter[b->stage] >= 0 ? iter[b->stage] : at < pro ? 0 : -1;
    return 0;
}

void wdb_swp_text(wdb *d, int cell, ws_buf *out)
{
    uint32_t pc = wdb_pc(d, cell);
    const wdb_block *b = wdb_swp_block(d, pc);
    if (!b) return;
    const wdb_row *r = wdb_row_at(d->dw, b->lo);
    ws_buf_printf(out, "pipelined loop at %s:%u, II=%u, %u stage%s", r && r->file < d->dw->nfiles ? wdb_basename(d->dw->files[r->file]) : "??",
                  b->decl_line, b->ii, b->stages, b->stages == 1 ? "" : "s");
    int64_t *iter = ws_xcalloc(b->stages, sizeof *iter), shown;
    if (wdb_swp_iterations(d, cell, b, iter, &shown) != 0) {
        ws_buf_puts(out, " (which iteration each is in is not known: the run did not enter the loop at its start)");
    } else {
        for (uint32_t s = 0; s < b->stages; s++) {
            ws_buf_printf(out, "%s stage %u ", s ? "," : ":", s);
            if (iter[s] >= 0) ws_buf_printf(out, "iteration %lld", (long long)iter[s]);
            else ws_buf_puts(out, "idle");
        }
        if (shown >= 0) ws_buf_printf(out, "; variables show iteration %lld", (long long)shown);
    }
    free(iter);
}

/* The cell a fault or flow-control report names ("... cell K (cid C): ..."), or -1. */
static int fault_cell(const char *msg)
{
    const char *c = strstr(msg, "cell ");
    int k;
    return c && sscanf(c, "cell %d", &k) == 1 ? k : -1;
}

int wdb_resumable(wdb *d, FILE *out)
{
    if (wdb_running(d, out)) return WDB_ERROR;
    wsim_status s0 = wsim_status_of(d->sim);
    if (s0 != WSIM_RUNNING && s0 != WSIM_CYCLE_LIMIT)
        return wdb_error(d, "The program is not being run: it %s.",
                          s0 == WSIM_DONE ? "has finished" : s0 == WSIM_FAULT ? "stopped at a fault"
                          : s0 == WSIM_DEADLOCK ? "is deadlocked" : "stopped at a flow-control violation");
    return WDB_OK;
}

int wdb_resume(wdb *d, int mode, uint64_t count, FILE *out)
{
    if (wdb_resumable(d, out)) return WDB_ERROR;
    if ((mode == RUN_STEP || mode == RUN_NEXT || mode == RUN_FINISH || mode == RUN_UNTIL || mode == RUN_ADVANCE) &&
        wsim_cell_state_of(d->sim, d->sel) >= WSIM_CELL_HALTED)
        return wdb_error(d, "cell %d has halted; select a running cell (cell N).", d->sel);
    if (mode == RUN_FINISH && depth_of(d, d->sel) == 0)
        return wdb_error(d, "\"finish\" not meaningful in the outermost frame.");
    d->stop_req = 0;
    d->end_code = -1;
    d->frame = 0;
    uint64_t done_units = 0;
    stepper st;
    stepper_init(d, &st, mode);
    if (d->fresh) {
        /* Every cell starts at the entry: a breakpoint there stops the run first. */
        d->fresh = 0;
        for (int k = 0; k < d->ncells; k++) {
            bpoint *b = hit_breakpoint(d, k, wdb_pc(d, k), out);
            if (!b) continue;
            d->last_bp = b->num;
            report_stop(d, out, STOP_BREAK, k, b, NULL, NULL, &st, NULL);
            d->stops++;
            if (b->ncmds) d->pending_cmds = b->num;
            if (b->temporary) d->pending_delete = b->num;
            return WDB_OK;
        }
    }
    for (;;) {
        for (int k = 0; k < d->ncells; k++) d->issued[k] = wsim_cell_issued(d->sim, k);
        uint32_t prev_pc = wdb_pc(d, st.cell);
        wsim_status s = wsim_step(d->sim);
        int why = STOP_NONE, cell = -1;
        bpoint *b = NULL, *w = NULL;
        char *was = NULL, *now = NULL;
        if (s == WSIM_DONE) why = STOP_DONE;
        else if (s == WSIM_FAULT) why = STOP_FAULT, cell = fault_cell(wsim_message(d->sim));
        else if (s == WSIM_DEADLOCK) why = STOP_DEADLOCK;
        else if (s == WSIM_FLOW_BUG) why = STOP_FLOW, cell = fault_cell(wsim_message(d->sim));
        if (why == STOP_NONE && d->has_swp) note_swp_entries(d);
        if (why == STOP_NONE) {
            for (int k = 0; k < d->ncells && !b; k++) {
                if (wsim_cell_issued(d->sim, k) == d->issued[k] || wsim_cell_state_of(d->sim, k) >= WSIM_CELL_HALTED)
                    continue;
                b = hit_breakpoint(d, k, wdb_pc(d, k), out);
                if (b) cell = k;
            }
            if (b) why = STOP_BREAK;
        }
        if (why == STOP_NONE || why == STOP_BREAK) w = hit_watchpoint(d, &was, &now);
        if (why == STOP_NONE && w) why = STOP_WATCH, cell = w->cell;
        if (why == STOP_NONE) {
            int moved = wsim_cell_issued(d->sim, st.cell) != d->issued[st.cell];
            if (mode == RUN_STEPI) {
                if (++done_units >= count) why = STOP_STEP;
            } else if (mode != RUN_CONTINUE && moved) {
                if (wsim_cell_state_of(d->sim, st.cell) >= WSIM_CELL_HALTED) {
                    why = STOP_HALTED;
                } else if (step_done(d, &st, prev_pc, wdb_pc(d, st.cell))) {
                    if (++done_units >= count || mode == RUN_FINISH) why = STOP_STEP;
                    else stepper_init(d, &st, mode);
                }
            }
        }
        if (why == STOP_NONE && d->max_cycles && wsim_cycles(d->sim) >= d->max_cycles) why = STOP_LIMIT;
        if (why == STOP_NONE && d->stop_req) why = STOP_INTERRUPT;
        if (why == STOP_NONE) continue;
        d->last_bp = why == STOP_BREAK ? b->num : -1;
        /* warp-sim's exit codes (README), for -batch's exit status and $_exitcode */
        d->end_code = why == STOP_DONE ? 0 : why == STOP_FAULT ? 2 : why == STOP_DEADLOCK ? 3 : why == STOP_LIMIT ? 4
                    : why == STOP_FLOW ? 5 : -1;
        report_stop(d, out, why, cell, b, was, now, &st, w);
        d->stops++;
        if (why == STOP_BREAK && b->ncmds) d->pending_cmds = b->num;
        if (why == STOP_BREAK && b->temporary) d->pending_delete = b->num;
        free(was);
        free(now);
        d->stop_req = 0;
        /* An output that cannot be written is an I/O error: warp-sim's exit 1. */
        if (why == STOP_DONE && write_outputs(d, out) != WDB_OK) {
            d->end_code = 1;
            return WDB_ERROR;
        }
        return WDB_OK;
    }
}
