/* Compile-time flow control at link time: once the program is laid out, the skew
 * between neighbouring cells follows from its schedule (flowctl/), and goes into
 * .warp.cells. Only a Warp image whose objects ask for it (`.flowctl`, which
 * warp-cc writes for -mcpu=warp) is timed: hand-written assembly keeps the skew
 * its `.cells` gives and the simulator's run-time waits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warp_flowctl.h"
#include "wld_internal.h"

typedef struct gate_pos {
    uint32_t pc, line, col, file;
    int op;                   /* WFC_RECEIVE + q or WFC_SEND + q */
} gate_pos;

typedef struct lines_ctx {
    const uint8_t *rec;       /* .warp.lines records: address, line, column, file */
    size_t nrec;
    const char **files;
    size_t nfiles;
    uint32_t (*object)[2][2]; /* per bundle, per immediate: the named object's address and size */
    uint32_t ncode;
    gate_pos *gates;          /* by bundle: receives and sends that are not their line record's */
    size_t ngates;
} lines_ctx;

/* The last line record at or before the bundle. */
static const uint8_t *record_for(const lines_ctx *L, uint32_t pc)
{
    uint32_t addr = pc * WT_BUNDLE_BYTES;
    size_t lo = 0, hi = L->nrec;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (wld_get32(L->rec + 16 * mid) <= addr) lo = mid + 1;
        else hi = mid;
    }
    return lo ? L->rec + 16 * (lo - 1) : NULL;
}

/* The statement of the bundle's gate operation op if .warp.gates names one, else
 * the bundle's line record. */
static int position(void *ctx, uint32_t pc, int op, unsigned *file, unsigned *line, unsigned *col)
{
    const lines_ctx *L = ctx;
    if (op != WFC_BUNDLE) {
        size_t lo = 0, hi = L->ngates;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (L->gates[mid].pc < pc) lo = mid + 1;
            else hi = mid;
        }
        for (; lo < L->ngates && L->gates[lo].pc == pc; lo++)
            if (L->gates[lo].op == op) {
                *line = L->gates[lo].line;
                *col = L->gates[lo].col;
                *file = L->gates[lo].file;
                return 1;
            }
    }
    const uint8_t *r = record_for(L, pc);
    if (!r) return 0;
    *line = wld_get32(r + 4);
    *col = wld_get32(r + 8);
    *file = wld_get32(r + 12);
    return 1;
}

static const char *where(void *ctx, uint32_t pc, int op, char *buf, size_t size)
{
    const lines_ctx *L = ctx;
    unsigned f, line, col;
    if (!position(ctx, pc, op, &f, &line, &col)) return NULL;
    const char *name = f < L->nfiles ? L->files[f] : "?";
    const char *base = strrchr(name, '/');
    if (col) snprintf(buf, size, "%s:%u:%u", base ? base + 1 : name, line, col);
    else snprintf(buf, size, "%s:%u", base ? base + 1 : name, line);
    return buf;
}

/* The objects' .warp.gates records, in image order (objects lie in command-line
 * order, records in address order), their files numbered as the image's. */
static void collect_gates(const wld_obj *objs, size_t n, lines_ctx *L)
{
    for (size_t i = 0; i < n; i++) {
        const wld_obj *o = &objs[i];
        for (uint32_t r = 0; r < o->ngates; r++) {
            const uint8_t *p = o->gates + 16 * r;
            uint32_t info = wld_get32(p + 12), f = info & 0xffff, file = 0;
            while (file < L->nfiles && strcmp(L->files[file], o->files[f]) != 0) file++;
            L->gates = ws_xrealloc(L->gates, sizeof *L->gates * (L->ngates + 1));
            L->gates[L->ngates++] = (gate_pos){(o->base[WLD_TEXT] + wld_get32(p)) / WT_BUNDLE_BYTES,
                                               wld_get32(p + 4), wld_get32(p + 8), file,
                                               (int)(info >> 24 ? WFC_SEND : WFC_RECEIVE) + (int)(info >> 16 & 0xff)};
        }
    }
}

static int object(void *ctx, uint32_t pc, int imm, uint32_t *addr, uint32_t *size)
{
    const lines_ctx *L = ctx;
    if (pc >= L->ncode || !L->object[pc][imm][1]) return 0;
    *addr = L->object[pc][imm][0];
    *size = L->object[pc][imm][1];
    return 1;
}

/* The data object a relocation names: a global's definition, or for a local (the
 * assembler relocates those through their section's symbol) the smallest object of
 * that object file around the address. */
static const wld_sym *named_object(const wld_obj *o, const wld_rel *x)
{
    const wld_sym *y = &o->syms[x->sym];
    if (y->global) y = y->global->def;
    if (!y || (y->sec != WLD_DATA && y->sec != WLD_BSS)) return NULL;
    if (y->type == STT_OBJECT) return y->size ? y : NULL;
    if (y->type != STT_SECTION) return NULL;
    uint32_t at = y->addr + (uint32_t)x->addend;
    const wld_sym *best = NULL;
    for (size_t k = 1; k < o->nsyms; k++) {
        const wld_sym *z = &o->syms[k];
        if (z->type != STT_OBJECT || z->sec != y->sec || !z->size || at < z->addr || at - z->addr >= z->size)
            continue;
        if (!best || z->size < best->size) best = z;
    }
    return best;
}

/* The message as a compiler gives it: FILE:LINE:COL, the source line, a caret. */
static void report(lines_ctx *L, const char *out_path, const wfc_result *r)
{
    unsigned f = 0, uline = 0, ucol = 0;
    int known = position(L, r->pc, r->op, &f, &uline, &ucol);
    const char *name = known && f < L->nfiles ? L->files[f] : out_path;
    char err[256];
    size_t len = 0;
    char *text = known ? ws_read_file(name, &len, 16u << 20, err, sizeof err) : NULL;
    ws_diag d;
    ws_diag_init(&d, name, text, len);
    ws_diagnostic x = {.line = (int)uline, .col = (int)ucol, .severity = WS_ERROR};
    snprintf(x.message, sizeof x.message, "%s", r->message);
    if (r->note[0]) ws_diagnostic_note(&x, 0, 0, "%s", r->note);
    ws_emit(&d, &x);
    free(text);
}

int wld_flow_control(const wld_obj *objs, size_t n, const wt_model *M, uint32_t entry, wld_image *img,
                     const char *out_path)
{
    int asked = 0;
    for (size_t i = 0; i < n; i++) asked |= objs[i].flowctl;
    if (!asked || M->id != WT_MODEL_WARP) return 0;
    long first = 0, last = 0, skew = 0;
    ws_buf_append(&img->warp_cells, "", 1);
    if (sscanf(img->warp_cells.data, "%ld %ld %ld", &first, &last, &skew) != 3)
        return wld_error(out_path, "internal error: no cells to time");
    img->warp_cells.len--;

    uint32_t ncode = (uint32_t)(img->text.len / WT_BUNDLE_BYTES);
    wt_insn *code = ws_xcalloc(ncode ? ncode : 1, sizeof *code);
    for (uint32_t i = 0; i < ncode; i++) wt_decode((const uint8_t *)img->text.data + (size_t)i * WT_BUNDLE_BYTES, &code[i]);
    lines_ctx L = {(const uint8_t *)img->warp_lines.data, img->warp_lines.len / 16, NULL, 0, NULL, ncode, NULL, 0};
    L.object = ws_xcalloc(ncode ? ncode : 1, sizeof *L.object);
    for (size_t i = 0; i < n; i++)
        for (size_t r = 0; r < objs[i].nrel[0]; r++) {
            const wld_rel *x = &objs[i].rel[0][r];
            if (x->type != WT_R_IMM0 && x->type != WT_R_IMM1) continue;
            const wld_sym *y = named_object(&objs[i], x);
            uint32_t pc = (objs[i].base[WLD_TEXT] + x->offset) / WT_BUNDLE_BYTES;
            if (!y || pc >= ncode) continue;
            L.object[pc][x->type == WT_R_IMM1][0] = y->addr;
            L.object[pc][x->type == WT_R_IMM1][1] = y->size;
        }
    for (size_t off = 0; off < img->warp_files.len; off += strlen(img->warp_files.data + off) + 1) {
        L.files = ws_xrealloc(L.files, sizeof *L.files * (L.nfiles + 1));
        L.files[L.nfiles++] = img->warp_files.data + off;
    }
    collect_gates(objs, n, &L);
    wt_insn *iu_code = NULL;
    if (img->warp_iu.len == (size_t)ncode * WT_BUNDLE_BYTES && ncode) {
        iu_code = ws_xcalloc(ncode, sizeof *iu_code);
        for (uint32_t i = 0; i < ncode; i++)
            wt_decode((const uint8_t *)img->warp_iu.data + (size_t)i * WT_BUNDLE_BYTES, &iu_code[i]);
    }
    wfc_program p = {
        .model = M, .code = code, .ncode = ncode, .entry = entry / WT_BUNDLE_BYTES, .iu_code = iu_code,
        .data = (const uint8_t *)img->data.data, .data_size = (uint32_t)img->data.len,
        .first_cell = (int)first, .last_cell = (int)last,
        .position = position, .where = where, .object = object, .ctx = &L,
    };
    wfc_result r;
    int rc = 0;
    if (wfc_analyse(&p, &r) != 0) {
        report(&L, out_path, &r);
        rc = -1;
    } else {
        img->warp_cells.len = 0;
        uint64_t timed = wt_timing_fingerprint(M->id, code, iu_code, ncode, (const uint8_t *)img->data.data,
                                               (uint32_t)img->data.len, p.entry, (int)first, (int)last, r.skew);
        timed = wt_timing_fingerprint_table(timed, (const uint8_t *)img->warp_iutab.data,
                                            (uint32_t)(img->warp_iutab.len / 4));
        ws_buf_printf(&img->warp_cells, "%ld %ld %d %016llx\n", first, last, (int)r.skew, (unsigned long long)timed);
        img->e_flags |= WT_EF_FLOWCTL;
    }
    free(L.files);
    free(L.object);
    free(L.gates);
    free(code);
    free(iu_code);
    return rc;
}
