/* Machine IR: construction helpers, operand and operation properties read from the
 * machine description, and the text form used by emission, tests and debugging. */
#include "mir.h"

#include <stdlib.h>
#include <string.h>

wb_func *wb_func_new(const char *name, const wt_model *model)
{
    wb_func *f = ws_xcalloc(1, sizeof *f);
    f->name = ws_arena_strndup(&f->arena, name, strlen(name));
    f->model = model;
    f->nvregs = 1;   /* vreg 0 is never used, so 0 can mean "none" */
    size_t n = strlen(name);
    char *frame = ws_arena_alloc(&f->arena, n + 7);
    memcpy(frame, name, n);
    memcpy(frame + n, ".frame", 7);
    f->frame = frame;
    return f;
}

void wb_func_free(wb_func *f)
{
    if (!f) return;
    for (int i = 0; i < f->nblocks; i++) free(f->blocks[i]->ins);
    free(f->blocks);
    free(f->order);
    free(f->vflags);
    free(f->dvars);
    free(f->dbgev);
    ws_arena_free(&f->arena);
    free(f);
}

int wb_new_block(wb_func *f)
{
    if (f->nblocks == f->bcap) {
        f->bcap = f->bcap ? 2 * f->bcap : 16;
        f->blocks = ws_xrealloc(f->blocks, sizeof *f->blocks * (size_t)f->bcap);
        f->order = ws_xrealloc(f->order, sizeof *f->order * (size_t)f->bcap);
    }
    wb_block *b = ws_arena_alloc(&f->arena, sizeof *b);
    b->id = f->nblocks;
    b->fall = -1;
    f->blocks[f->nblocks++] = b;
    return b->id;
}

void wb_place_block(wb_func *f, int id)
{
    f->order[f->norder++] = id;
}

int wb_new_vreg(wb_func *f, uint8_t flags)
{
    if (f->nvregs >= f->vcap) {
        int old = f->vcap;
        f->vcap = f->vcap ? 2 * f->vcap : 256;
        f->vflags = ws_xrealloc(f->vflags, (size_t)f->vcap);
        memset(f->vflags + old, 0, (size_t)(f->vcap - old));
    }
    f->vflags[f->nvregs] = flags;
    return f->nvregs++;
}

wb_ins *wb_insert(wb_func *f, int block, int at, const wb_ins *in)
{
    wb_block *b = f->blocks[block];
    if (b->nins == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 4;
        b->ins = ws_xrealloc(b->ins, sizeof *b->ins * (size_t)b->cap);
    }
    memmove(&b->ins[at + 1], &b->ins[at], sizeof *b->ins * (size_t)(b->nins - at));
    b->ins[at] = *in;
    b->nins++;
    return &b->ins[at];
}

wb_ins *wb_append(wb_func *f, int block, const wb_ins *in)
{
    return wb_insert(f, block, f->blocks[block]->nins, in);
}

void wb_remove(wb_block *b, int at)
{
    memmove(&b->ins[at], &b->ins[at + 1], sizeof *b->ins * (size_t)(b->nins - at - 1));
    b->nins--;
}

int wb_new_dbgev(wb_func *f, int var, int kind, uint32_t v, uint32_t v2)
{
    if (f->ndbgev == 0) f->ndbgev = 1;   /* index 0 means "none" */
    ws_grow(&f->dbgev, &f->dbgcap, (size_t)f->ndbgev + 1, sizeof *f->dbgev);
    f->dbgev[f->ndbgev] = (wb_dbgev){var, (uint8_t)kind, v, v2, 0};
    return f->ndbgev++;
}

void wb_chain_dbg(wb_func *f, int *list, int ev)
{
    if (!ev) return;
    while (*list) list = &f->dbgev[*list].next;
    *list = ev;
}

void wb_move_dbg(wb_func *f, wb_block *b, int at)
{
    int ev = b->ins[at].dbg;
    if (!ev) return;
    b->ins[at].dbg = 0;
    int prev = at - 1;
    while (prev >= 0 && b->ins[prev].op == WT_OP_NONE) prev--;
    wb_chain_dbg(f, prev >= 0 ? &b->ins[prev].dbg : &b->dbg_entry, ev);
}

uint32_t wb_frame_alloc(wb_func *f, uint32_t bytes)
{
    /* Every object starts on a word: the memory is word-addressed (4-aligned bytes). */
    uint32_t at = f->frame_size;
    f->frame_size += (bytes + 3) & ~3u;
    return at;
}

/* ---- Pointer map: open addressing, linear probing ------------------------------ */

static size_t ptr_hash(const void *k, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)k * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 17) & (cap - 1);
}

int wb_ptrmap_get(const wb_ptrmap *m, const void *key)
{
    if (!m->cap) return -1;
    for (size_t i = ptr_hash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (!m->keys[i]) return -1;
        if (m->keys[i] == key) return m->vals[i];
    }
}

void wb_ptrmap_put(wb_ptrmap *m, const void *key, int val)
{
    if (2 * (m->n + 1) > m->cap) {
        wb_ptrmap old = *m;
        m->cap = old.cap ? 2 * old.cap : 64;
        m->keys = ws_xcalloc(m->cap, sizeof *m->keys);
        m->vals = ws_xcalloc(m->cap, sizeof *m->vals);
        m->n = 0;
        for (size_t i = 0; i < old.cap; i++)
            if (old.keys[i]) wb_ptrmap_put(m, old.keys[i], old.vals[i]);
        free(old.keys);
        free(old.vals);
    }
    size_t i = ptr_hash(key, m->cap);
    while (m->keys[i] && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
    if (!m->keys[i]) m->n++;
    m->keys[i] = key;
    m->vals[i] = val;
}

void wb_ptrmap_free(wb_ptrmap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* ---- Operands ------------------------------------------------------------------ */

wb_opnd wb_vreg(int v) { return (wb_opnd){.kind = WB_O_VREG, .v = (uint32_t)v}; }
wb_opnd wb_reg(unsigned code) { return (wb_opnd){.kind = WB_O_REG, .v = code}; }

wb_opnd wb_imm(uint32_t bits, int isfloat)
{
    /* r0 reads as zero, integer and +0.0 alike, and costs no literal field. */
    if (bits == 0) return wb_reg(WT_OPND_R0);
    return (wb_opnd){.kind = WB_O_IMM, .isfloat = (uint8_t)(isfloat != 0), .v = bits};
}

wb_opnd wb_sym(const char *sym, int32_t addend)
{
    return (wb_opnd){.kind = WB_O_SYM, .sym = sym, .addend = addend};
}

int wb_is_lit(wb_opnd o) { return o.kind == WB_O_IMM || o.kind == WB_O_SYM; }

int wb_lit_eq(wb_opnd a, wb_opnd b)
{
    if (a.kind != b.kind) return 0;
    if (a.kind == WB_O_IMM) return a.v == b.v;
    if (a.kind == WB_O_SYM) return a.addend == b.addend && strcmp(a.sym, b.sym) == 0;
    return 0;
}

int wb_new_literals(const wb_opnd *lits, int n, const wb_ins *in, wb_opnd *added)
{
    int extra = 0;
    for (int k = 0; k < wb_nsrc(in->op); k++) {
        wb_opnd s = in->s[k];
        if (!wb_is_lit(s)) continue;
        int known = 0;
        for (int x = 0; x < n; x++) known |= wb_lit_eq(lits[x], s);
        for (int x = 0; x < extra; x++) known |= wb_lit_eq(added[x], s);
        if (!known) added[extra++] = s;
    }
    return extra;
}

unsigned wb_mop_choices(int op, int copies_only, wt_op out[WT_MAX_ALTS])
{
    if (op == WB_COPY) return wt_op_alternatives(WT_OP_MV, out);
    if (copies_only) {
        out[0] = (wt_op)op;
        return 1;
    }
    return wt_op_alternatives((wt_op)op, out);
}

int wb_opnd_eq(wb_opnd a, wb_opnd b)
{
    if (a.kind != b.kind) return 0;
    if (a.kind == WB_O_VREG || a.kind == WB_O_REG) return a.v == b.v;
    if (a.kind == WB_O_NONE) return 1;
    return wb_lit_eq(a, b);
}

/* ---- Operations ---------------------------------------------------------------- */

/* Sources and destination of each operation, read once from the signatures of
 * the machine description: the scheduler asks for them for every pair of
 * operations it compares. */
static signed char op_nsrc[WB_NOPCODES], op_dest[WB_NOPCODES];
static int op_shape_ready;

static void op_shapes(void)
{
    for (int op = 0; op < WT_NOPS; op++) {
        int n = 0;
        for (const char *p = wt_ops[op].sig; p && *p; p++) {
            if (*p == 'm') n += 2;
            else if (strchr("abcskK", *p)) n++;
        }
        op_nsrc[op] = (signed char)n;
        op_dest[op] = wt_ops[op].sig && strchr(wt_ops[op].sig, 'd') != NULL;
    }
    op_nsrc[WB_COPY] = 1;
    op_dest[WB_COPY] = 1;
    op_shape_ready = 1;
}

int wb_nsrc(int op)
{
    if (!op_shape_ready) op_shapes();
    return op_nsrc[op];
}

int wb_has_dest(int op)
{
    if (!op_shape_ready) op_shapes();
    return op_dest[op];
}

int wb_is_term_op(int op) { return op != WB_COPY && op != WT_OP_NONE && wt_ops[op].uclass == WT_UC_BR; }

wt_flow wb_flow(int op) { return op > WT_OP_NONE && op < WT_NOPS ? wt_op_flow((wt_op)op) : WT_FLOW_NEXT; }

int wb_branches(int op) { return wt_flow_branches(wb_flow(op)); }

int wb_is_cond_branch(int op)
{
    wt_flow fl = wb_flow(op);
    return fl == WT_FLOW_IF_ZERO || fl == WT_FLOW_IF_NONZERO;
}

int wb_inverse_branch(int op)
{
    if (!wb_is_cond_branch(op)) return WT_OP_NONE;
    wt_flow want = wb_flow(op) == WT_FLOW_IF_ZERO ? WT_FLOW_IF_NONZERO : WT_FLOW_IF_ZERO;
    for (int k = WT_OP_NONE + 1; k < WT_NOPS; k++)
        if (wb_flow(k) == want && wt_ops[k].uclass == wt_ops[op].uclass && !strcmp(wt_ops[k].sig, wt_ops[op].sig))
            return k;
    return WT_OP_NONE;
}

int wb_jump_op(void)
{
    for (int k = WT_OP_NONE + 1; k < WT_NOPS; k++)
        if (wb_flow(k) == WT_FLOW_JUMP) return k;
    ws_internal_error("backend: the machine description has no jump");
}

void wb_add_gate_ops(wt_bundle_use *u, const wb_ins *in)
{
    unsigned srcs[3];
    int nsrc = 0;
    for (int k = 0; k < wb_nsrc(in->op); k++)
        if (in->s[k].kind == WB_O_REG) srcs[nsrc++] = in->s[k].v;
    int dst = in->op != WT_OP_NONE && wb_has_dest(in->op) && in->d.kind == WB_O_REG ? (int)in->d.v : -1;
    wt_bundle_add_gates(u, dst, srcs, nsrc);
}

/* A copy is whichever of its alternatives (mv, mov) the scheduler finds free: the
 * slower one's figure holds for both. */
static int copy_figure(const wb_func *f, int interval)
{
    wt_op alts[WT_MAX_ALTS];
    unsigned n = wt_op_alternatives(WT_OP_MV, alts);
    int worst = 0;
    for (unsigned k = 0; k < n; k++) {
        int v = interval ? wt_ops[alts[k]].interval[f->model->id] : wt_ops[alts[k]].latency[f->model->id];
        if (v > worst) worst = v;
    }
    return worst;
}

void wb_put_position(ws_buf *out, const wb_ins *in)
{
    if (in->line && in->col) ws_buf_printf(out, " (line %u, column %u)", in->line, in->col);
    else if (in->line) ws_buf_printf(out, " (line %u)", in->line);
}

void wb_put_about(ws_buf *out, const wb_func *f, const wb_block *b, const wb_ins *in, int position, const char *fmt,
                  va_list ap)
{
    ws_buf_printf(out, "function %s", f->name);
    if (b) ws_buf_printf(out, ", @B%d", b->id);
    if (in) {
        ws_buf_puts(out, ", '");
        wb_format_ins(out, f, in, in->op, NULL, NULL);
        ws_buf_puts(out, "'");
        if (position) wb_put_position(out, in);
    }
    ws_buf_puts(out, ": ");
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    ws_buf_puts(out, msg);
}

_Noreturn void wb_internal_error_at(const wb_func *f, const wb_ins *in, const char *fmt, ...)
{
    ws_buf b = {0};
    ws_buf_puts(&b, "backend: ");
    va_list ap;
    va_start(ap, fmt);
    wb_put_about(&b, f, NULL, in, 1, fmt, ap);
    va_end(ap);
    ws_buf_append(&b, "", 1);
    ws_internal_error("%s", b.data);
}

int wb_latency(const wb_func *f, int op)
{
    return op == WB_COPY ? copy_figure(f, 0) : wt_ops[op].latency[f->model->id];
}

int wb_interval(const wb_func *f, int op)
{
    return op == WB_COPY ? copy_figure(f, 1) : wt_ops[op].interval[f->model->id];
}

/* ---- Text ---------------------------------------------------------------------- */

static void put_opnd(ws_buf *out, wb_opnd o, char imm_type)
{
    char lit[48];
    switch (o.kind) {
    case WB_O_VREG: ws_buf_printf(out, "%%%u", o.v); break;
    case WB_O_REG: {
        const char *name = wt_opnd_name(o.v);
        if (name) ws_buf_puts(out, name);
        else ws_buf_printf(out, "?%u", o.v);
        break;
    }
    case WB_O_IMM:
        /* Untyped ('x') literals keep their float form so the text says what it is;
         * the assembler takes a float literal's bits there. */
        if (imm_type == 'x') imm_type = o.isfloat ? 'f' : 'i';
        wt_format_literal(o.v, imm_type == 'f' ? 'f' : 'i', lit, sizeof lit);
        ws_buf_puts(out, lit);
        break;
    case WB_O_SYM: wb_put_symbol(out, o.sym, o.addend); break;
    default: ws_buf_puts(out, "?"); break;
    }
}

void wb_put_symbol(ws_buf *out, const char *sym, int32_t addend)
{
    ws_buf_printf(out, wt_symbol_needs_quotes(sym) ? "\"%s\"" : "%s", sym);
    if (addend > 0) ws_buf_printf(out, "+%d", (int)addend);
    else if (addend < 0) ws_buf_printf(out, "-%u", 0u - (uint32_t)addend);
}

void wb_format_ins(ws_buf *out, const wb_func *f, const wb_ins *in, int op,
                   const char *(*label)(void *ctx, int block), void *ctx)
{
    (void)f;
    if (op == WB_COPY) {
        ws_buf_puts(out, "copy ");
        put_opnd(out, in->d, 'x');
        ws_buf_puts(out, ", ");
        put_opnd(out, in->s[0], 'x');
        return;
    }
    const wt_op_info *info = &wt_ops[op];
    ws_buf_puts(out, info->name);
    int k = 0;
    for (const char *p = info->sig; *p; p++) {
        ws_buf_puts(out, p == info->sig ? " " : ", ");
        switch (*p) {
        case 'd': put_opnd(out, in->d, info->imm_type); break;
        case 'm':
            ws_buf_puts(out, "[");
            put_opnd(out, in->s[k], 'i');
            if (!(in->s[k + 1].kind == WB_O_REG && in->s[k + 1].v == WT_OPND_R0)) {
                ws_buf_puts(out, ", ");
                put_opnd(out, in->s[k + 1], 'i');
            }
            ws_buf_puts(out, "]");
            k += 2;
            break;
        case 't':
            if (wb_flow(op) == WT_FLOW_CALL) wb_put_symbol(out, in->callee, 0);
            else {
                const char *name = label ? label(ctx, in->target) : NULL;
                if (name) ws_buf_puts(out, name);
                else ws_buf_printf(out, "@B%d", in->target);
            }
            break;
        default: put_opnd(out, in->s[k++], info->imm_type); break;
        }
    }
}

/* Once a block is scheduled its operations print with their issue clocks and the
 * machine operations chosen (a copy as mv or mov). */
static void print_ins(ws_buf *out, const wb_func *f, const wb_block *b, const wb_ins *in)
{
    int scheduled = b->len > 0 && in->mop != WT_OP_NONE;
    if (scheduled) ws_buf_printf(out, "  %4d  ", in->cycle);
    else ws_buf_puts(out, "    ");
    if (in->iu) ws_buf_puts(out, "|| ");   /* the interface unit's */
    wb_format_ins(out, f, in, scheduled ? in->mop : in->op, NULL, NULL);
    if (in->line) ws_buf_printf(out, "  ; line %u", in->line);
    ws_buf_puts(out, "\n");
}

void wb_mir_print(const wb_func *f, ws_buf *out)
{
    ws_buf_printf(out, "function %s (frame %u bytes)\n", f->name, (unsigned)f->frame_size);
    for (int i = 0; i < f->norder; i++) {
        const wb_block *b = f->blocks[f->order[i]];
        ws_buf_printf(out, "@B%d:", b->id);
        if (b->fall >= 0) ws_buf_printf(out, "  ; falls to @B%d", b->fall);
        if (b->len > 0) ws_buf_printf(out, "  ; %d bundles", b->len);
        if (b->ii) ws_buf_printf(out, ", pipelined kernel II=%d", b->ii);
        ws_buf_puts(out, "\n");
        for (int k = 0; k < b->nins; k++) print_ins(out, f, b, &b->ins[k]);
        for (int e = 0; e < b->nedges; e++) {
            ws_buf_printf(out, "    ; edge to @B%d:", b->edges[e].succ);
            for (int c = 0; c < b->edges[e].n; c++) {
                ws_buf_puts(out, c ? ", " : " ");
                put_opnd(out, b->edges[e].dst[c], 'x');
                ws_buf_puts(out, " <- ");
                put_opnd(out, b->edges[e].src[c], 'x');
            }
            ws_buf_puts(out, "\n");
        }
        if (b->term.op != WT_OP_NONE) print_ins(out, f, b, &b->term);
    }
}

int wb_succs(const wb_block *b, int succ[2])
{
    int n = 0;
    if (wb_branches(b->term.op)) succ[n++] = b->term.target;
    if (b->fall >= 0 && (n == 0 || succ[0] != b->fall)) succ[n++] = b->fall;
    return n;
}

ws_graph wb_cfg(const wb_func *f, const uint8_t *keep)
{
    int nb = f->nblocks, ne = 0;
    int *from = ws_xcalloc((size_t)nb * 2 + 1, sizeof *from), *to = ws_xcalloc((size_t)nb * 2 + 1, sizeof *to);
    for (int p = 0; p < nb; p++) {
        int succ[2], n = !keep || keep[p] ? wb_succs(f->blocks[p], succ) : 0;
        for (int k = 0; k < n; k++) {
            from[ne] = p;
            to[ne++] = succ[k];
        }
    }
    ws_graph g = ws_graph_new(nb, from, to, ne);
    free(from);
    free(to);
    return g;
}
