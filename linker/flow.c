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

typedef struct lines_ctx {
    const uint8_t *rec;       /* .warp.lines records: address, line, column, file */
    size_t nrec;
    const char **files;
    size_t nfiles;
    uint32_t (*object)[2][2]; /* per bundle, per immediate: the named object's address and size */
    uint32_t ncode;
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

static int position(void *ctx, uint32_t pc, unsigned *file, unsigned *line, unsigned *col)
{
    const uint8_t *r = record_for(ctx, pc);
    if (!r) return 0;
    *line = wld_get32(r + 4);
    *col = wld_get32(r + 8);
    *file = wld_get32(r + 12);
    return 1;
}

static const char *where(void *ctx, uint32_t pc, char *buf, size_t size)
{
    const lines_ctx *L = ctx;
    const uint8_t *r = record_for(L, pc);
    if (!r) return NULL;
    uint32_t f = wld_get32(r + 12);
    const char *name = f < L->nfiles ? L->files[f] : "?";
    const char *base = strrchr(name, '/');
    snprintf(buf, size, "%s:%u", base ? base + 1 : name, wld_get32(r + 4));
    return buf;
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
static void report(const lines_ctx *L, uint32_t pc, const char *out_path, const wfc_result *r)
{
    const uint8_t *rec = record_for(L, pc);
    uint32_t f = rec ? wld_get32(rec + 12) : 0;
    const char *name = rec && f < L->nfiles ? L->files[f] : out_path;
    char err[256];
    size_t len = 0;
    char *text = rec ? ws_read_file(name, &len, 16u << 20, err, sizeof err) : NULL;
    ws_diag d;
    ws_diag_init(&d, name, text, len);
    int line = rec ? (int)wld_get32(rec + 4) : 0, col = rec ? (int)wld_get32(rec + 8) : 0;
    ws_report(&d, WS_ERROR, line, col, "%s", r->message);
    if (r->note[0]) ws_report(&d, WS_NOTE, 0, 0, "%s", r->note);
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
    lines_ctx L = {(const uint8_t *)img->warp_lines.data, img->warp_lines.len / 16, NULL, 0, NULL, ncode};
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
    wfc_program p = {
        .model = M, .code = code, .ncode = ncode, .entry = entry / WT_BUNDLE_BYTES,
        .data = (const uint8_t *)img->data.data, .data_size = (uint32_t)img->data.len,
        .first_cell = (int)first, .last_cell = (int)last,
        .position = position, .where = where, .object = object, .ctx = &L,
    };
    wfc_result r;
    int rc = 0;
    if (wfc_analyse(&p, &r) != 0) {
        report(&L, r.pc, out_path, &r);
        rc = -1;
    } else {
        img->warp_cells.len = 0;
        ws_buf_printf(&img->warp_cells, "%ld %ld %d\n", first, last, (int)r.skew);
        img->e_flags |= WT_EF_FLOWCTL;
    }
    free(L.files);
    free(L.object);
    free(code);
    return rc;
}
