/* Pictures of a run: a Chrome/Perfetto trace, a VCD and an SVG heat map.
 *
 * The run steps one clock at a time (wsim_step, the same clocks as wsim_run) and
 * after each clock compares every cell with what it was before: whether it issued or
 * stalled, how full its queues are, which of its channels carried a word. Only
 * changes are written, so a long steady loop costs a few lines a slice. */
#include "sim_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "warp_support.h"

/* Queues a cell shows: Warp's four and the address paths the program uses (@adr),
 * iWarp's input gates (the channel each is bound to). */
#define TR_NQ WSIM_NGATES
/* Channels a cell shows: Warp's links into its four queues, iWarp's four output buses. */
#define TR_NCH 4

enum { SL_NONE, SL_ISSUE, SL_STALL_QUEUE, SL_STALL_UNIT };

typedef struct tr_cell {
    uint32_t pc;
    uint64_t issued, stall_q, stall_u;
    unsigned fill[TR_NQ];
    uint8_t busy[TR_NCH];
    /* The open slice. */
    int kind;
    const char *label;
    uint64_t since;
    uint64_t link_words[TR_NCH];  /* Warp: words that crossed the link into queue q */
} tr_cell;

struct wsim_tracer {
    wsim *s;
    wsim_pictures p;
    ws_output trace, vcd, heat;
    FILE *tf, *vf;
    int first_event;
    const char **label;      /* by pc: "file:line", or "bundle N" */
    ws_strmap labels;
    char **owned;            /* the distinct labels */
    size_t nowned;
    tr_cell *cells;
    int nq;                  /* queues shown a cell */
    unsigned gate[TR_NQ];    /* the gate each shows: a queue index, or WSIM_GATE_PATH + p */
    uint64_t vcd_time;       /* the last "#t" written, UINT64_MAX before any */
};

/* ---- Sampling ----------------------------------------------------------------------- */

static const wca_queue *queue_of(const wsim_tracer *tr, const wsim_cell *c, int q)
{
    unsigned g = tr->gate[q];
    if (tr->s->comm) return c->in[g];
    return g < WT_NQUEUES ? &c->q[g] : &c->path[g - WSIM_GATE_PATH];
}

static unsigned fill_of(const wsim_tracer *tr, const wsim_cell *c, int q)
{
    const wca_queue *in = queue_of(tr, c, q);
    return in ? in->count : 0;
}

/* Does the program read path p or its IU write it? Only then is it shown, so that
 * the pictures of a program without it stay as they were. */
static int path_used(const wsim *s, unsigned p)
{
    if (wt_paths[p].model != s->model->id) return 0;
    for (uint32_t pc = 0; pc < s->ncode; pc++) {
        if (s->code[pc].gate_rd >> (WSIM_GATE_PATH + p) & 1) return 1;
        if (!s->prog.iu_code) continue;
        for (unsigned sl = 0; sl < WT_NSLOTS; sl++) {
            const wt_slot *x = &s->prog.iu_code[pc].slot[sl];
            if (x->op != WT_OP_NONE && wt_op_has_dest((wt_op)x->op) && x->opnd[0] == WT_OPND_PATH + p) return 1;
        }
    }
    return 0;
}

/* A shown queue's name: "xl" ..., "g0", "g1", or the path's operand without its '@'. */
static const char *queue_name(const wsim_tracer *tr, int q)
{
    static const char *const gate_names[WCA_NGATES] = {"xl", "yl", "xr", "yr", "g0", "g1"};
    unsigned g = tr->gate[q];
    return g < WSIM_GATE_PATH ? gate_names[g] : wt_paths[g - WSIM_GATE_PATH].name + 1;
}

/* Is the channel busy in clock t: a word on the Warp link into queue ch, or iWarp's
 * output bus ch carrying one. */
static int busy_of(const wsim *s, int k, int ch, uint64_t t)
{
    if (s->comm) return wca_bus_busy_until(s->comm, k, (unsigned)ch) > t;
    const wca_queue *q = &s->cells[k].q[ch];
    return q->count && q->ring[(q->head + q->count - 1) & q->mask].arrival > t;
}

static int in_window(const wsim_tracer *tr, uint64_t t) { return t >= tr->p.from && t < tr->p.to; }

/* ---- Trace-event JSON ------------------------------------------------------------ */

static void json_string(FILE *f, const char *text)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

static void event_start(wsim_tracer *tr)
{
    fputs(tr->first_event ? "\n" : ",\n", tr->tf);
    tr->first_event = 0;
}

static const char *const warp_link_names[TR_NCH] = {"link_xl", "link_yl", "link_xr", "link_yr"};
static const char *const bus_names[TR_NCH] = {"bus_xright", "bus_yup", "bus_xleft", "bus_ydown"};

/* Closes cell k's open slice at clock `end` (clipped to the window). */
static void slice_close(wsim_tracer *tr, int k, uint64_t end)
{
    tr_cell *tc = &tr->cells[k];
    if (!tr->tf || tc->kind == SL_NONE) return;
    uint64_t from = tc->since > tr->p.from ? tc->since : tr->p.from;
    if (end > tr->p.to) end = tr->p.to;
    if (end <= from) return;
    event_start(tr);
    fputs("{\"name\":", tr->tf);
    if (tc->kind == SL_ISSUE) {
        json_string(tr->tf, tc->label);
    } else {
        char name[300];
        snprintf(name, sizeof name, "stall (%s) at %s", tc->kind == SL_STALL_QUEUE ? "queue" : "unit", tc->label);
        json_string(tr->tf, name);
    }
    fprintf(tr->tf, ",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%llu,\"dur\":%llu,\"pid\":%d,\"tid\":1}",
            tc->kind == SL_ISSUE ? "issue" : "stall", (unsigned long long)from, (unsigned long long)(end - from),
            k + 1);
}

static void counter(wsim_tracer *tr, int k, uint64_t t)
{
    if (!tr->tf || !in_window(tr, t)) return;
    event_start(tr);
    fprintf(tr->tf, "{\"name\":\"queue fill\",\"ph\":\"C\",\"ts\":%llu,\"pid\":%d,\"args\":{",
            (unsigned long long)t, k + 1);
    for (int q = 0; q < tr->nq; q++)
        fprintf(tr->tf, "%s\"%s\":%u", q ? "," : "", queue_name(tr, q), tr->cells[k].fill[q]);
    fputs("}}", tr->tf);
}

static void trace_header(wsim_tracer *tr)
{
    const wsim *s = tr->s;
    FILE *f = tr->tf;
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"model\":\"%s\",\"clock\":\"one ts unit is one clock\"},"
               "\"traceEvents\":[",
            s->model->name);
    tr->first_event = 1;
    for (int k = 0; k < s->ncells; k++) {
        event_start(tr);
        fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"cell %d (cid %d)\"}}",
                k + 1, k, s->prog.first_cell + k);
        event_start(tr);
        fprintf(f, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"sort_index\":%d}}", k + 1, k);
        event_start(tr);
        fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":1,\"args\":{\"name\":\"issue\"}}", k + 1);
    }
}

/* ---- VCD ------------------------------------------------------------------------- */

/* A variable's identifier: printable characters, base 94. */
static void vcd_id(char *buf, unsigned n)
{
    int i = 0;
    do {
        buf[i++] = (char)('!' + n % 94);
        n /= 94;
    } while (n);
    buf[i] = 0;
}

static unsigned var_fill(const wsim_tracer *tr, int k, int q) { return (unsigned)(k * (tr->nq + TR_NCH) + q); }
static unsigned var_busy(const wsim_tracer *tr, int k, int ch)
{
    return (unsigned)(k * (tr->nq + TR_NCH) + tr->nq + ch);
}

static void vcd_time(wsim_tracer *tr, uint64_t t)
{
    if (tr->vcd_time == t) return;
    fprintf(tr->vf, "#%llu\n", (unsigned long long)t);
    tr->vcd_time = t;
}

static void vcd_fill(wsim_tracer *tr, unsigned var, unsigned value)
{
    char id[8];
    vcd_id(id, var);
    fputc('b', tr->vf);
    int top = 15;
    while (top > 0 && !(value >> top & 1)) top--;
    for (int i = top; i >= 0; i--) fputc('0' + (int)(value >> i & 1), tr->vf);
    fprintf(tr->vf, " %s\n", id);
}

static void vcd_bit(wsim_tracer *tr, unsigned var, int value)
{
    char id[8];
    vcd_id(id, var);
    fprintf(tr->vf, "%d%s\n", value ? 1 : 0, id);
}

static void vcd_header(wsim_tracer *tr)
{
    const wsim *s = tr->s;
    FILE *f = tr->vf;
    fprintf(f, "$comment %s array of %d cells: one time unit is one clock $end\n", s->model->name, s->ncells);
    fputs("$timescale 1 ns $end\n$scope module array $end\n", f);
    for (int k = 0; k < s->ncells; k++) {
        fprintf(f, "$scope module cell%d $end\n", k);
        char id[8];
        for (int q = 0; q < tr->nq; q++) {
            vcd_id(id, var_fill(tr, k, q));
            fprintf(f, "$var wire 16 %s fill_%s $end\n", id, queue_name(tr, q));
        }
        for (int ch = 0; ch < TR_NCH; ch++) {
            vcd_id(id, var_busy(tr, k, ch));
            fprintf(f, "$var wire 1 %s %s $end\n", id, s->comm ? bus_names[ch] : warp_link_names[ch]);
        }
        fputs("$upscope $end\n", f);
    }
    fputs("$upscope $end\n$enddefinitions $end\n", f);
}

/* The values at the start of the window. */
static void vcd_dump_all(wsim_tracer *tr, uint64_t t)
{
    vcd_time(tr, t);
    fputs("$dumpvars\n", tr->vf);
    for (int k = 0; k < tr->s->ncells; k++) {
        for (int q = 0; q < tr->nq; q++) vcd_fill(tr, var_fill(tr, k, q), tr->cells[k].fill[q]);
        for (int ch = 0; ch < TR_NCH; ch++) vcd_bit(tr, var_busy(tr, k, ch), tr->cells[k].busy[ch]);
    }
    fputs("$end\n", tr->vf);
}

/* ---- The run ----------------------------------------------------------------------- */

static void open_failed(wsim_tracer *tr, const char *path, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    wsim_tracer_abort(tr);
}

wsim_tracer *wsim_tracer_new(wsim *s, const wsim_pictures *p, char *err, size_t errlen)
{
    wsim_tracer *tr = ws_xcalloc(1, sizeof *tr);
    tr->s = s;
    tr->p = *p;
    if (tr->p.to <= tr->p.from) tr->p.to = tr->p.from;
    if (s->comm) {
        for (unsigned g = 0; g < WCA_NGATES; g++) tr->gate[tr->nq++] = g;
    } else {
        for (unsigned q = 0; q < WT_NQUEUES; q++) tr->gate[tr->nq++] = q;
        for (unsigned p = 0; p < WT_NPATHS; p++)
            if (path_used(s, p)) tr->gate[tr->nq++] = WSIM_GATE_PATH + p;
    }
    tr->vcd_time = UINT64_MAX;
    tr->cells = ws_xcalloc((size_t)s->ncells, sizeof *tr->cells);
    tr->label = ws_xcalloc(s->ncode, sizeof *tr->label);
    for (uint32_t pc = 0; pc < s->ncode; pc++) {
        char buf[256];
        const char *where = wsim_where(s, pc, buf, sizeof buf);
        char own[32];
        if (!where) {
            snprintf(own, sizeof own, "bundle %u", pc);
            where = own;
        }
        /* The file's name without its directory: short, and the same wherever it was built. */
        const char *slash = strrchr(where, '/');
        if (slash && slash[1]) where = slash + 1;
        size_t len = strlen(where);
        char *known = ws_strmap_get(&tr->labels, where, len);
        if (!known) {
            known = ws_xstrdup(where);
            ws_strmap_put(&tr->labels, known, len, known);
            tr->owned = ws_xrealloc(tr->owned, (tr->nowned + 1) * sizeof *tr->owned);
            tr->owned[tr->nowned++] = known;
        }
        tr->label[pc] = known;
    }
    if (p->trace && !(tr->tf = ws_output_open(&tr->trace, p->trace, 0))) {
        open_failed(tr, p->trace, err, errlen);
        return NULL;
    }
    if (p->vcd && !(tr->vf = ws_output_open(&tr->vcd, p->vcd, 0))) {
        open_failed(tr, p->vcd, err, errlen);
        return NULL;
    }
    if (p->heatmap && !ws_output_open(&tr->heat, p->heatmap, 0)) {
        open_failed(tr, p->heatmap, err, errlen);
        return NULL;
    }
    for (int k = 0; k < s->ncells; k++) {
        tr_cell *tc = &tr->cells[k];
        const wsim_cell *c = &s->cells[k];
        for (int q = 0; q < tr->nq; q++) tc->fill[q] = fill_of(tr, c, q);
        for (int ch = 0; ch < TR_NCH; ch++) tc->busy[ch] = (uint8_t)busy_of(s, k, ch, s->cycle);
    }
    if (tr->tf) trace_header(tr);
    if (tr->vf) vcd_header(tr);
    return tr;
}

/* After clock t: what each cell did, and what changed. */
static void sample(wsim_tracer *tr, uint64_t t)
{
    wsim *s = tr->s;
    int window = in_window(tr, t);
    for (int k = 0; k < s->ncells; k++) {
        tr_cell *tc = &tr->cells[k];
        const wsim_cell *c = &s->cells[k];
        int did = SL_NONE;
        int issued = c->issued != tc->issued;
        if (issued) did = SL_ISSUE;
        else if (c->stall_queue != tc->stall_q) did = SL_STALL_QUEUE;
        else if (c->stall_unit != tc->stall_u) did = SL_STALL_UNIT;
        const char *label = tr->label[tc->pc < s->ncode ? tc->pc : 0];
        if (did != tc->kind || (did != SL_NONE && label != tc->label)) {
            slice_close(tr, k, t);
            tc->kind = did;
            tc->label = label;
            tc->since = t;
        }
        int changed = 0;
        for (int q = 0; q < tr->nq; q++) {
            unsigned fill = fill_of(tr, c, q);
            /* (a path's words come from the IU or the cell before, not over a link) */
            if (!s->comm && q < WT_NQUEUES) {
                /* Words that crossed the link into the queue: what it gained, and what
                 * the bundle took from it. */
                unsigned taken = issued && tc->pc < s->ncode && (s->code[tc->pc].gate_rd >> q & 1);
                tc->link_words[q] += fill + taken - tc->fill[q];
            }
            if (fill != tc->fill[q]) {
                changed = 1;
                tc->fill[q] = fill;
                if (window && tr->vf && t != tr->p.from) {
                    vcd_time(tr, t);
                    vcd_fill(tr, var_fill(tr, k, q), fill);
                }
            }
        }
        if (changed && t != tr->p.from) counter(tr, k, t);
        for (int ch = 0; ch < TR_NCH; ch++) {
            int busy = busy_of(s, k, ch, t);
            if (busy != tc->busy[ch]) {
                tc->busy[ch] = (uint8_t)busy;
                if (window && tr->vf && t != tr->p.from) {
                    vcd_time(tr, t);
                    vcd_bit(tr, var_busy(tr, k, ch), busy);
                }
            }
        }
        tc->pc = c->pc;
        tc->issued = c->issued;
        tc->stall_q = c->stall_queue;
        tc->stall_u = c->stall_unit;
    }
    /* The window opens with every value as this clock left it. */
    if (window && t == tr->p.from) {
        if (tr->vf) vcd_dump_all(tr, t);
        for (int k = 0; k < s->ncells && tr->tf; k++) counter(tr, k, t);
    }
}

wsim_status wsim_run_traced(wsim *s, wsim_tracer *tr, uint64_t max_cycles)
{
    s->at_limit = 0;
    for (int k = 0; k < s->ncells; k++) {
        tr_cell *tc = &tr->cells[k];
        const wsim_cell *c = &s->cells[k];
        tc->pc = c->pc;
        tc->issued = c->issued;
        tc->stall_q = c->stall_queue;
        tc->stall_u = c->stall_unit;
    }
    while (s->status == WSIM_RUNNING && s->cycle < max_cycles) {
        uint64_t t = s->cycle;
        wsim_step(s);
        sample(tr, t);
    }
    /* At the limit, wsim_run lands the limit's clock and says so. */
    if (s->status == WSIM_RUNNING) return wsim_run(s, max_cycles);
    return s->status;
}

/* ---- The heat map ---------------------------------------------------------------- */

/* A colour on the scale from white (0) to `full` (1). */
static void shade(char *buf, size_t size, double x, const int full[3])
{
    if (x < 0) x = 0;
    if (x > 1) x = 1;
    int rgb[3];
    for (int i = 0; i < 3; i++) rgb[i] = (int)(255 + (full[i] - 255) * x + 0.5);
    snprintf(buf, size, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

static double share(uint64_t part, uint64_t whole) { return whole ? (double)part / (double)whole : 0.0; }

/* Where cell k is drawn: its column and row. A torus as its grid; a linear array in
 * rows of 16, each row running the way the array does so that neighbours touch. */
static void place(const wsim *s, int k, int *col, int *row)
{
    if (s->comm && s->comm_cfg.topology == WCA_TORUS) {
        *col = k % s->comm_cfg.width;
        *row = s->comm_cfg.height - 1 - k / s->comm_cfg.width;   /* YUp drawn upward */
        return;
    }
    *row = k / 16;
    *col = *row % 2 ? 15 - k % 16 : k % 16;
}

/* Words carried from cell `from` toward its neighbour in direction d, and the cell
 * it reaches (-1: the host or none). */
static int link_words(const wsim_tracer *tr, int from, unsigned d, uint64_t *words)
{
    const wsim *s = tr->s;
    int torus = s->comm && s->comm_cfg.topology == WCA_TORUS;
    int to;
    if (torus) {
        int w = s->comm_cfg.width, h = s->comm_cfg.height, x = from % w, y = from / w;
        /* With host edges (a 2-D cellprogram) the buses that would wrap lead to the host. */
        if (s->comm_cfg.host_edges && ((d == WCA_XRIGHT && x == w - 1) || (d == WCA_XLEFT && x == 0) ||
                                       (d == WCA_YUP && y == h - 1) || (d == WCA_YDOWN && y == 0)))
            return -1;
        if (d == WCA_XRIGHT) x = (x + 1) % w;
        else if (d == WCA_XLEFT) x = (x + w - 1) % w;
        else if (d == WCA_YUP) y = (y + 1) % h;
        else y = (y + h - 1) % h;
        to = y * w + x;
    } else {
        to = d == WCA_XRIGHT || d == WCA_YUP ? from + 1 : from - 1;
        if (to < 0 || to >= s->ncells) return -1;
    }
    if (s->comm) {
        *words = wca_bus_words(s->comm, from, d);
    } else {
        /* Warp: the receiving cell's queue from that side (XRight fills xl, YUp yl). */
        static const int queue_for[WCA_NBUSES] = {WT_Q_XL, WT_Q_YL, WT_Q_XR, WT_Q_YR};
        *words = tr->cells[to].link_words[queue_for[d]];
    }
    return to;
}

static void write_heatmap(wsim_tracer *tr, FILE *f)
{
    const wsim *s = tr->s;
    static const int blue[3] = {8, 48, 107}, red[3] = {165, 15, 21}, grey[3] = {37, 37, 37};
    enum { CELL = 64, GAP = 40, MARGIN = 40, TOP = 60 };
    int cols = 1, rows = 1;
    for (int k = 0; k < s->ncells; k++) {
        int c, r;
        place(s, k, &c, &r);
        if (c + 1 > cols) cols = c + 1;
        if (r + 1 > rows) rows = r + 1;
    }
    int width = 2 * MARGIN + cols * CELL + (cols - 1) * GAP, height = TOP + MARGIN + rows * CELL + (rows - 1) * GAP + 30;
    if (width < 900) width = 900;
    uint64_t most = 1;
    for (int k = 0; k < s->ncells; k++) {
        for (unsigned d = 0; d < WCA_NBUSES; d++) {
            uint64_t w = 0;
            if (link_words(tr, k, d, &w) >= 0 && w > most) most = w;
        }
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"sans-serif\">\n",
            width, height, width, height);
    fprintf(f, "<defs><marker id=\"head\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"9\" "
               "markerHeight=\"9\" markerUnits=\"userSpaceOnUse\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#333\"/></marker></defs>\n");
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f, "<text x=\"%d\" y=\"24\" font-size=\"16\">%s array, %d cells, %llu clocks: cells by %s, links by words carried (most %llu)</text>\n",
            MARGIN, s->model->name, s->ncells, (unsigned long long)s->cycle,
            tr->p.heat_by_stalls ? "share of clocks stalled" : "unit utilisation", (unsigned long long)most);
    fprintf(f, "<text x=\"%d\" y=\"44\" font-size=\"12\" fill=\"#555\">white 0%%, darkest 100%%; "
               "arrows from the sender, width by words</text>\n", MARGIN);
    /* Links first, under the cells. */
    for (int k = 0; k < s->ncells; k++) {
        for (unsigned d = 0; d < WCA_NBUSES; d++) {
            uint64_t words = 0;
            int to = link_words(tr, k, d, &words);
            if (to < 0 || to == k || !words) continue;
            int c0, r0, c1, r1;
            place(s, k, &c0, &r0);
            place(s, to, &c1, &r1);
            double x0 = MARGIN + c0 * (CELL + GAP) + CELL / 2.0, y0 = TOP + r0 * (CELL + GAP) + CELL / 2.0;
            double x1 = MARGIN + c1 * (CELL + GAP) + CELL / 2.0, y1 = TOP + r1 * (CELL + GAP) + CELL / 2.0;
            double dx = x1 - x0, dy = y1 - y0, len = dx * dx + dy * dy;
            int wrap = (dx * dx > (double)(CELL + GAP) * (CELL + GAP) * 1.5) ||
                       (dy * dy > (double)(CELL + GAP) * (CELL + GAP) * 1.5);
            if (len == 0) continue;
            /* Two directions side by side: each offset to its own right. Links are
             * horizontal or vertical, so the length is the one non-zero difference. */
            double n = 1.0 / ((dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy));
            /* Each bus its own lane: X above Y on a row, each direction to its right. */
            static const double lane[WCA_NBUSES] = {-12, 5, 12, -5};
            double ox = (dy != 0 ? -1 : 0) * lane[d] * (dy > 0 ? 1 : -1), oy = (dx != 0 ? 1 : 0) * lane[d] * (dx > 0 ? 1 : -1);
            if (dx == 0) ox = (d == WCA_XRIGHT || d == WCA_XLEFT ? -1 : 1) * (dy > 0 ? 7 : 14);
            if (dy == 0) oy = (d == WCA_XRIGHT || d == WCA_XLEFT ? -1 : 1) * (dx > 0 ? 7 : 14);
            if (wrap) {
                /* A torus's wrap-around: a stub leaving the edge. */
                x1 = x0 + dx * n * (CELL / 2.0 + GAP / 2.0) * (dx * dx > dy * dy ? -1 : 1) * (dx * dx > dy * dy);
                y1 = y0 + dy * n * (CELL / 2.0 + GAP / 2.0) * -(dy * dy > dx * dx);
                if (dx * dx > dy * dy) y1 = y0;
                else x1 = x0;
            } else {
                x0 += dx * n * CELL / 2.0;
                y0 += dy * n * CELL / 2.0;
                x1 -= dx * n * CELL / 2.0;
                y1 -= dy * n * CELL / 2.0;
            }
            char colour[8];
            double part = (double)words / (double)most;
            shade(colour, sizeof colour, 0.25 + 0.75 * part, grey);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.1f\" marker-end=\"url(#head)\">"
                       "<title>cell %d to cell %d (%s): %llu words</title></line>\n",
                    x0 + ox, y0 + oy, x1 + ox, y1 + oy, colour, 1.0 + 5.0 * part, k, to, bus_names[d] + 4,
                    (unsigned long long)words);
        }
    }
    for (int k = 0; k < s->ncells; k++) {
        const wsim_cell *c = &s->cells[k];
        uint64_t ops = 0, slots = 0;
        for (int uc = WT_UC_FA; uc < WT_NUCLASSES; uc++) {
            ops += wsim_class_ops(c, (unsigned)uc) * wt_class_interval(s->model, (wt_unit_class)uc);
            slots += wt_class_issue(s->model, (wt_unit_class)uc);
        }
        double util = share(ops, s->cycle * slots), stalled = share(c->stall_queue + c->stall_unit, s->cycle);
        double x = tr->p.heat_by_stalls ? stalled : util;
        char colour[8];
        shade(colour, sizeof colour, x, tr->p.heat_by_stalls ? red : blue);
        int col, row;
        place(s, k, &col, &row);
        int px = MARGIN + col * (CELL + GAP), py = TOP + row * (CELL + GAP);
        fprintf(f, "<g><title>cell %d (cid %d): issued %llu, units %.1f%%, stalled %.1f%% (queue %llu, unit %llu)</title>"
                   "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"6\" fill=\"%s\" stroke=\"#333\"/>",
                k, s->prog.first_cell + k, (unsigned long long)c->issued, 100 * util, 100 * stalled,
                (unsigned long long)c->stall_queue, (unsigned long long)c->stall_unit, px, py, CELL, CELL, colour);
        const char *ink = x > 0.5 ? "white" : "black";
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\" fill=\"%s\">%d</text>", px + CELL / 2,
                py + 26, ink, k);
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\" fill=\"%s\">%.0f%%</text></g>\n",
                px + CELL / 2, py + 44, ink, 100 * x);
    }
    fputs("</svg>\n", f);
}

/* ---- Finishing ------------------------------------------------------------------- */

static void free_tracer(wsim_tracer *tr)
{
    ws_strmap_free(&tr->labels);
    for (size_t i = 0; i < tr->nowned; i++) free(tr->owned[i]);
    free(tr->owned);
    free(tr->label);
    free(tr->cells);
    free(tr);
}

void wsim_tracer_abort(wsim_tracer *tr)
{
    if (!tr) return;
    ws_output_abort(&tr->trace);
    ws_output_abort(&tr->vcd);
    ws_output_abort(&tr->heat);
    free_tracer(tr);
}

int wsim_tracer_finish(wsim_tracer *tr, char *err, size_t errlen)
{
    wsim *s = tr->s;
    /* The clock the run stopped in counts: it ran (a fault, a deadlock) or landed. */
    uint64_t end = s->cycle + (s->status != WSIM_DONE && !s->at_limit);
    if (tr->tf) {
        for (int k = 0; k < s->ncells; k++) slice_close(tr, k, end);
        fputs("\n]}\n", tr->tf);
    }
    if (tr->vf) {
        uint64_t last = end < tr->p.to ? end : tr->p.to;
        if (tr->vcd_time != UINT64_MAX && last > tr->vcd_time) vcd_time(tr, last);
    }
    if (tr->heat.f) write_heatmap(tr, tr->heat.f);
    const char *failed = NULL;
    if (tr->trace.f && ws_output_commit(&tr->trace) != 0) failed = tr->p.trace;
    if (!failed && tr->vcd.f && ws_output_commit(&tr->vcd) != 0) failed = tr->p.vcd;
    if (!failed && tr->heat.f && ws_output_commit(&tr->heat) != 0) failed = tr->p.heatmap;
    if (failed) {
        snprintf(err, errlen, "%s: %s", failed, strerror(errno));
        wsim_tracer_abort(tr);
        return -1;
    }
    free_tracer(tr);
    return 0;
}
