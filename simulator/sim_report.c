/* What the simulator tells people: fault messages, the --stats figures, and the
 * inspection calls of the debugger and the tests (the deadlock report: waitfor.c). */
#include "sim_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "warp_support.h"

const char *wsim_where(const wsim *s, uint32_t pc, char *buf, size_t size)
{
    if (!s->prog.where) return NULL;
    return s->prog.where(s->prog.where_ctx, pc, buf, size);
}

/* "pc P (FILE:LINE)" or "pc P". */
static void pc_text(const wsim *s, uint32_t pc, char *buf, size_t size)
{
    char w[256];
    const char *where = wsim_where(s, pc, w, sizeof w);
    if (where && *where) snprintf(buf, size, "pc %u (%s)", pc, where);
    else snprintf(buf, size, "pc %u", pc);
}

void wsim_fault(wsim *s, int cell, uint32_t pc, const char *fmt, ...)
{
    if (s->in_parallel) {
        /* Which fault of the clock one pass would report is not known here: the run
         * is made again on one thread (wsim_run). */
        s->cells[cell].state = WSIM_CELL_FAULTED;
        __atomic_store_n(&s->par_fault, 1, __ATOMIC_RELAXED);
        return;
    }
    char what[256], at[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    pc_text(s, pc, at, sizeof at);
    ws_buf b = {0};
    ws_buf_printf(&b, "cell %d (cid %d): %s: %s", cell, s->prog.first_cell + cell, at, what);
    ws_buf_append(&b, "", 1);
    free(s->msg);
    s->msg = b.data;
    s->status = WSIM_FAULT;
    s->cells[cell].state = WSIM_CELL_FAULTED;
}

void wsim_flow_bug(wsim *s, int k, uint32_t pc, uint64_t t)
{
    if (s->in_parallel) {
        __atomic_store_n(&s->par_fault, 1, __ATOMIC_RELAXED);
        return;
    }
    char at[300], why[160];
    pc_text(s, pc, at, sizeof at);
    wsim_wait_reason(s, k, t, why, sizeof why);
    ws_buf b = {0};
    ws_buf_printf(&b, "compiler bug: cell %d (cid %d): %s: at clock %llu it %s, but the compiler timed the cells "
                  "(skew %d) so that no cell ever waits for a queue",
                  k, s->prog.first_cell + k, at, (unsigned long long)t, *why ? why : "cannot issue", (int)s->prog.skew);
    ws_buf_append(&b, "", 1);
    free(s->msg);
    s->msg = b.data;
    s->status = WSIM_FLOW_BUG;
}

static double percent(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void wsim_cell_figures_of(const wsim *s, int cell, wsim_cell_figures *out)
{
    memset(out, 0, sizeof *out);
    out->cycle = s->cycle;
    if (cell < 0 || cell >= s->ncells) return;
    const wsim_cell *c = &s->cells[cell];
    out->issued = c->issued;
    out->queue_stalls = c->stall_queue;
    out->unit_stalls = c->stall_unit;
    for (unsigned uc = 0; uc < WT_NUCLASSES; uc++) out->class_ops[uc] = wsim_class_ops(c, uc);
}

void wsim_print_cell_window(const wsim *s, int cell, const wsim_cell_figures *from, const wsim_cell_figures *to,
                            FILE *out)
{
    static const wsim_cell_figures start;
    if (!from) from = &start;
    uint64_t clocks = to->cycle - from->cycle, queue = to->queue_stalls - from->queue_stalls,
             unit = to->unit_stalls - from->unit_stalls;
    fprintf(out, "cell %d (cid %d): issued %llu, stalls %llu (queue %llu, unit %llu)", cell,
            s->prog.first_cell + cell, (unsigned long long)(to->issued - from->issued),
            (unsigned long long)(queue + unit), (unsigned long long)queue, (unsigned long long)unit);
    for (int uc = WT_UC_FA; uc < WT_NUCLASSES; uc++)
        fprintf(out, ", %s %.1f%%", wt_unit_class_name((wt_unit_class)uc),
                percent((to->class_ops[uc] - from->class_ops[uc]) * wt_class_interval(s->model, (wt_unit_class)uc),
                        clocks * wt_class_issue(s->model, (wt_unit_class)uc)));
    fputc('\n', out);
}

void wsim_print_stats(const wsim *s, FILE *out)
{
    fprintf(out, "cycles: %llu\n", (unsigned long long)s->cycle);
    for (int k = 0; k < s->ncells; k++) {
        wsim_cell_figures now;
        wsim_cell_figures_of(s, k, &now);
        wsim_print_cell_window(s, k, NULL, &now, out);
    }
    if (s->comm) wca_print_stats(s->comm, out, s->cycle);
    if (s->prog.iu_code) wsim_iu_print_stats(s, out);
}

/* ---- Inspection ------------------------------------------------------------------ */

int wsim_ncells(const wsim *s) { return s->ncells; }

static const wsim_cell *cell_at(const wsim *s, int cell)
{
    return cell >= 0 && cell < s->ncells ? &s->cells[cell] : NULL;
}

wsim_cell_state wsim_cell_state_of(const wsim *s, int cell)
{
    const wsim_cell *c = cell_at(s, cell);
    return c ? c->state : WSIM_CELL_FAULTED;
}

uint32_t wsim_cell_pc(const wsim *s, int cell)
{
    const wsim_cell *c = cell_at(s, cell);
    return c ? c->pc : 0;
}

uint32_t wsim_cell_reg(const wsim *s, int cell, unsigned reg)
{
    const wsim_cell *c = cell_at(s, cell);
    return c && reg < WT_OPND_NREGS ? c->src[reg] : 0;
}

const uint8_t *wsim_cell_data(const wsim *s, int cell, uint32_t *size)
{
    const wsim_cell *c = cell_at(s, cell);
    if (size) *size = c ? s->model->data_mem_bytes : 0;
    return c ? c->mem : NULL;
}

unsigned wsim_queue_words(const wsim *s, int cell, int q, uint32_t *words, unsigned max)
{
    const wsim_cell *c = cell_at(s, cell);
    if (!c || q < 0 || q >= WT_NQUEUES) return 0;
    const wca_queue *in = c->in[q];
    unsigned n = 0;
    if (!in) return 0;
    /* Words still on the link are not in the queue yet. */
    for (uint32_t i = 0; i < in->count; i++) {
        const wca_qword *w = &in->ring[(in->head + i) & in->mask];
        if (w->arrival > s->cycle) break;
        if (n < max) words[n] = w->word;
        n++;
    }
    return n;
}

uint64_t wsim_cell_issued(const wsim *s, int cell)
{
    const wsim_cell *c = cell_at(s, cell);
    return c ? c->issued : 0;
}

uint64_t wsim_cell_stalls(const wsim *s, int cell)
{
    const wsim_cell *c = cell_at(s, cell);
    return c ? c->stall_queue + c->stall_unit : 0;
}

uint64_t wsim_cell_unit_stalls(const wsim *s, int cell)
{
    const wsim_cell *c = cell_at(s, cell);
    return c ? c->stall_unit : 0;
}

const wca *wsim_comm(const wsim *s) { return s->comm; }
void wsim_cell_wait(const wsim *s, int cell, char *buf, size_t size)
{
    if (size) buf[0] = 0;
    if (!cell_at(s, cell) || size == 0) return;
    wsim_wait_reason(s, cell, s->cycle, buf, size);
    /* The report's words for a cell that waits for nothing (it could issue), or
     * has stopped: not a wait. */
    if (!strcmp(buf, "cannot issue") || !strncmp(buf, "has ", 4)) buf[0] = 0;
}

unsigned wsim_cell_return_stack(const wsim *s, int cell, uint32_t *pcs, unsigned max)
{
    const wsim_cell *c = cell_at(s, cell);
    if (!c) return 0;
    for (unsigned i = 0; i < c->rsp && i < max; i++) pcs[i] = c->rstack[c->rsp - 1 - i];
    return c->rsp;
}

void wsim_queue_info(const wsim *s, int cell, int q, wsim_queue_state *out)
{
    memset(out, 0, sizeof *out);
    const wsim_cell *c = cell_at(s, cell);
    if (!c || q < 0 || q >= WT_NQUEUES) return;
    const wca_queue *in = c->in[q];
    if (!in) return;   /* iWarp: a gate not bound to a channel */
    unsigned waiting = 0;
    for (uint32_t i = 0; i < in->count; i++) {
        if (in->ring[(in->head + i) & in->mask].arrival > s->cycle) break;
        waiting++;
    }
    out->waiting = waiting;
    out->on_link = in->count - waiting;
    out->reserved = in->used - in->count;
    out->capacity = in->cap;
}

/* ---- Changes, for the debugger's set var ------------------------------------------ */

int wsim_set_cell_reg(wsim *s, int cell, unsigned reg, uint32_t value)
{
    wsim_cell *c = cell >= 0 && cell < s->ncells ? &s->cells[cell] : NULL;
    /* r0 reads as zero on every model */
    if (!c || reg == 0 || reg >= s->model->nregs || reg >= WT_OPND_NREGS) return -1;
    c->src[reg] = value;
    return 0;
}

int wsim_set_cell_word(wsim *s, int cell, uint32_t addr, uint32_t value)
{
    wsim_cell *c = cell >= 0 && cell < s->ncells ? &s->cells[cell] : NULL;
    if (!c || addr % 4 || (uint64_t)addr + 4 > s->model->data_mem_bytes) return -1;
    for (int i = 0; i < 4; i++) c->mem[addr + (uint32_t)i] = (uint8_t)(value >> (8 * i));
    return 0;
}
