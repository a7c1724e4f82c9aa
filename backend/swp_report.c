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
    wb_remarks *r = L->o->report;
    if (!r) return;
    va_list ap;
    va_start(ap, fmt);
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ws_grow(&r->at, &r->cap, r->n + 1, sizeof *r->at);
    r->at[r->n++] = (wb_remark){ws_xstrdup(L->o->file ? L->o->file : "?"), L->line, ws_xstrdup(buf)};
}

/* Operations of each unit class in one iteration, as scheduled: the cells', then
 * the interface unit's (wb_res). */
void swp_class_counts(const loop *L, const wb_mgraph *g, int count[WB_NRES], int *gate_ops)
{
    memset(count, 0, sizeof *count * WB_NRES);
    for (int i = 0; i < L->nop; i++)
        if (L->op[i].live) {
            count[wb_res(L->op[i].mop, L->op[i].in.iu)]++;
            count[WB_RES_LINK] += wb_iu_feeds(&L->op[i].in);
        }
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
    if (L->ctr_used)
        ws_buf_printf(c, "        ;*      Checked on entry                 : the counter's extra step at least %lld "
                      "(its loads and stores %d or more iterations apart; else the original loop runs)\n",
                      (long long)L->ctr_gmin, L->ctr_want);
}

/* A trip count no data and no cell number decide is the IU's to count (seed 002,
 * 4.2): the cells branch on the word it sends along the address path
 * (swp_plan_loop_control); where it cannot, the kernel's dbnz is loop control on
 * the cells that the IU could do. Not where the cells may run the loop
 * different numbers of times (matmul's line 40, cid times on cell cid): every
 * cell reads the same path words, so no count the IU sends fits them all, and
 * the dbnz is the cells' own work. */
static void loop_control(const loop *L, ws_buf *c)
{
    if (L->iu_ctl)
        ws_buf_printf(c, "        ;*      Loop control on the cells        : 0 (the IU counts the %d trips; the cells "
                      "branch on @adr)\n", L->n);
    else if (L->n > 0 && L->iu_divergent)
        ws_buf_printf(c, "        ;*      Loop control on the cells        : 1 not the IU's (dbnz; %d trips, known; the "
                      "cells may run the loop different numbers of times, and every cell reads the same path words)\n",
                      L->n);
    else if (L->n > 0)
        ws_buf_printf(c, "        ;*      Loop control on the cells        : 1 the IU could do (dbnz; %d trips, known%s%s)\n",
                      L->n, L->iu_why ? "; " : "", L->iu_why ? L->iu_why : "");
    else
        ws_buf_puts(c, "        ;*      Loop control on the cells        : 0 the IU could do (no constant trip count "
                    "found)\n");
}

void swp_info_iu(const loop *L, const int count[WB_NRES], ws_buf *c)
{
    int any = 0;
    for (int k = 1; k < WT_NUCLASSES; k++) any |= count[WB_RES_IU + k] > 0;
    if (L->f->model->id != WT_MODEL_WARP) return;
    if (!any) {
        loop_control(L, c);
        return;
    }
    /* Host operations a cell still issues: constant feeds (the end cell makes them,
     * iu.c), and any host load or address whose sources come from the cells. */
    int feeds = 0, constant = 0, addresses = 0, loads = 0;
    for (int i = 0; i < L->nop; i++) {
        const wb_ins *in = &L->op[i].in;
        if (!L->op[i].live || in->iu) continue;
        if (in->op == WT_OP_HLD) loads++;
        if (!wb_has_dest(in->op) || in->d.kind != WB_O_REG) continue;
        if (wt_opnd_is_feed(in->d.v)) {
            feeds++;
            if (in->op == WB_COPY || in->op == WT_OP_MV || in->op == WT_OP_MOV)
                constant += wb_is_lit(in->s[0]) || (in->s[0].kind == WB_O_REG && in->s[0].v == 0);
        }
        if (wt_opnd_is_addr(in->d.v)) addresses++;
    }
    ws_buf_puts(c, "        ;*      Interface unit an iteration      :");
    for (int k = 1; k < WT_NUCLASSES; k++)
        if (count[WB_RES_IU + k]) ws_buf_printf(c, " %s %d", wt_unit_class_name((wt_unit_class)k), count[WB_RES_IU + k]);
    ws_buf_printf(c, " link %d (one word a clock)\n", count[WB_RES_LINK]);
    ws_buf_printf(c, "        ;*      Host operations on the cells     : %d feeds (%d constant), %d host loads, "
                  "%d host addresses\n", feeds, constant, loads, addresses);
    loop_control(L, c);
}
