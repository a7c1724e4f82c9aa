/* Software pipelining: the report (-fswp-report lines and the software pipeline
 * information block in the assembly). */
#include "swp.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The loop's source line: its branch's (the `for`), else its first known one. */
unsigned swp_loop_line(const wb_block *b)
{
    if (b->term.line) return b->term.line;
    for (int i = 0; i < b->nins; i++)
        if (b->ins[i].line) return b->ins[i].line;
    return 0;
}

void swp_info_tail(ws_buf *c)
{
    ws_buf_puts(c, "        ;*----------------------------------------------------------------------------*\n");
}


void swp_report(const loop *L, const char *fmt, ...)
{
    if (!L->o->report) return;
    ws_buf_printf(L->o->report, "%s:%u: ", L->o->file ? L->o->file : "?", L->line);
    va_list ap;
    va_start(ap, fmt);
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ws_buf_printf(L->o->report, "%s\n", buf);
}

/* Operations of each unit class in one iteration, as scheduled. */
void swp_class_counts(const loop *L, const wb_mgraph *g, int count[WT_NUCLASSES], int *gate_ops)
{
    memset(count, 0, sizeof *count * WT_NUCLASSES);
    for (int i = 0; i < L->nop; i++)
        if (L->op[i].live) count[wt_ops[L->op[i].mop].uclass]++;
    *gate_ops = 0;
    for (int i = 0; i < g->n; i++) *gate_ops += g->node[i].gate_ops;
}

/* The loop's report in the assembly, after TI's C6000 "software pipeline
 * information" block: the bounds, each II tried and why it failed, registers,
 * spills. */
void swp_info_head(const loop *L, ws_buf *c)
{
    ws_buf_puts(c, "        ;*----------------------------------------------------------------------------*\n");
    ws_buf_puts(c, "        ;*   SOFTWARE PIPELINE INFORMATION\n");
    ws_buf_puts(c, "        ;*\n");
    ws_buf_printf(c, "        ;*      Loop source line                 : %s:%u\n", L->o->file ? L->o->file : "?", L->line);
}

void swp_info_tried(ws_buf *c, const char *tried)
{
    for (const char *p = tried; p && *p;) {
        const char *e = strchr(p, '\n');
        ws_buf_printf(c, "        ;*         %.*s\n", (int)(e ? e - p : (long)strlen(p)), p);
        p = e ? e + 1 : p + strlen(p);
    }
}

void swp_memory_notes(const loop *L, ws_buf *c)
{
    if (L->recnote[0]) ws_buf_printf(c, "        ;*      Recurrence bounding RecMII       : %s\n", L->recnote);
    for (int i = 0; i < L->nmemnote; i++)
        ws_buf_printf(c, "        ;*      Memory dependence bounding RecMII: %s\n", L->memnote[i]);
    for (int i = 0; i < L->ncheck; i++)
        ws_buf_printf(c, "        ;*      Checked on entry                 : two addresses %s N*%lld bytes apart "
                      "(else the original loop runs)\n", "at least", (long long)(L->check[i].step < 0 ? -L->check[i].step : L->check[i].step));
}
