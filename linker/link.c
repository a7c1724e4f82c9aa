/* Linking: objects laid out in command-line order (program memory, then data
 * memory with .data before .bss, then host memory from the merged .warp.host
 * declarations), global symbols resolved, relocations applied through
 * wt_decode/wt_encode, and the .warp.* sections merged. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "wld_internal.h"

/* The resolved globals by name; each entry is owned by the table. */
typedef struct globals {
    ws_strmap byname;
    wld_global **all;
    size_t n, cap;
} globals;

static wld_global *global_get(globals *G, const char *name, int create)
{
    wld_global *g = ws_strmap_get(&G->byname, name, strlen(name));
    if (g || !create) return g;
    g = ws_xcalloc(1, sizeof *g);
    g->name = name;
    ws_strmap_put(&G->byname, name, strlen(name), g);
    ws_grow(&G->all, &G->cap, G->n + 1, sizeof *G->all);
    G->all[G->n++] = g;
    return g;
}

static void globals_free(globals *G)
{
    for (size_t i = 0; i < G->n; i++) free(G->all[i]);
    free(G->all);
    ws_strmap_free(&G->byname);
}

static uint64_t align_up(uint64_t v, uint32_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

static const char *model_name(int model) { return wt_model_get((wt_model_id)model)->name; }

static int check_models(wld_obj *objs, size_t n, const wt_model **out)
{
    const wld_obj *first = NULL;
    for (size_t i = 0; i < n; i++) {
        if (objs[i].model < 0) continue;
        if (!first) first = &objs[i];
        else if (objs[i].model != first->model)
            return wld_error(objs[i].path, "built for the %s model, but %s is built for %s",
                             model_name(objs[i].model), first->path, model_name(first->model));
    }
    *out = wt_model_get(first ? (wt_model_id)first->model : WT_MODEL_WARP);
    return 0;
}

static int data_overflow(const wld_obj *o, uint64_t bytes, const wt_model *M)
{
    return wld_error(o->path, "data of %llu bytes does not fit the %s model's data memory (%u bytes)",
                     (unsigned long long)bytes, M->name, M->data_mem_bytes);
}

static int layout_memory(wld_obj *objs, size_t n, const wt_model *M, uint64_t *bss_addr, uint64_t *bss_size)
{
    uint64_t text = 0;
    for (size_t i = 0; i < n; i++) {
        objs[i].base[WLD_TEXT] = (uint32_t)text;
        text += objs[i].mem_size[WLD_TEXT];
        if (text / WT_BUNDLE_BYTES > M->prog_mem_bundles)
            return wld_error(objs[i].path, "program of %llu bundles does not fit the %s model's program memory (%u bundles)",
                             (unsigned long long)(text / WT_BUNDLE_BYTES), M->name, M->prog_mem_bundles);
    }
    uint64_t addr = 0;
    uint32_t bss_align = 4;
    for (size_t i = 0; i < n; i++) {
        addr = align_up(addr, objs[i].mem_align[WLD_DATA]);
        objs[i].base[WLD_DATA] = (uint32_t)addr;
        addr += objs[i].mem_size[WLD_DATA];
        if (objs[i].mem_align[WLD_BSS] > bss_align) bss_align = objs[i].mem_align[WLD_BSS];
        if (addr > M->data_mem_bytes) return data_overflow(&objs[i], addr, M);
    }
    *bss_addr = addr = align_up(addr, bss_align);
    for (size_t i = 0; i < n; i++) {
        addr = align_up(addr, objs[i].mem_align[WLD_BSS]);
        objs[i].base[WLD_BSS] = (uint32_t)addr;
        addr += objs[i].mem_size[WLD_BSS];
        if (addr > M->data_mem_bytes) return data_overflow(&objs[i], addr, M);
    }
    *bss_size = addr - *bss_addr;
    return 0;
}

/* One host array for every name, however many objects declare it; the
 * declarations must be the same. */
static int merge_host(wld_obj *objs, size_t n, ws_buf *lines, uint64_t *host_size)
{
    const wld_host **seen = NULL;
    const char **seen_in = NULL;
    size_t nseen = 0;
    uint64_t size = 0;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        for (size_t k = 0; k < objs[i].nhost; k++) {
            wld_host *h = &objs[i].host[k];
            size_t j = 0;
            while (j < nseen && !(seen[j]->name_len == h->name_len && memcmp(seen[j]->name, h->name, h->name_len) == 0)) j++;
            if (j < nseen) {
                if (seen[j]->line_len != h->line_len || memcmp(seen[j]->line, h->line, h->line_len) != 0) {
                    rc = wld_error(objs[i].path, "host array declared as '%.*s', but %s declares '%.*s'",
                                   (int)h->line_len, h->line, seen_in[j], (int)seen[j]->line_len, seen[j]->line);
                    break;
                }
                h->addr = seen[j]->addr;
                continue;
            }
            if (size + h->size > WT_MAX_HOST_BYTES) {
                rc = wld_error(objs[i].path, "host arrays need more than the %u bytes of host memory", WT_MAX_HOST_BYTES);
                break;
            }
            h->addr = (uint32_t)size;
            size += h->size;
            seen = ws_xrealloc(seen, (nseen + 1) * sizeof *seen);
            seen_in = ws_xrealloc(seen_in, (nseen + 1) * sizeof *seen_in);
            seen[nseen] = h;
            seen_in[nseen++] = objs[i].path;
            ws_buf_append(lines, h->line, h->line_len);
            ws_buf_append(lines, "\n", 1);
        }
    }
    free(seen);
    free(seen_in);
    *host_size = size;
    return rc;
}

/* A .host offset of an object as a host memory address: arrays move independently
 * when merged, so the offset is mapped through the array that holds it. */
static int host_address(const wld_obj *o, const wld_sym *y, uint32_t *addr)
{
    for (size_t k = 0; k < o->nhost; k++) {
        const wld_host *h = &o->host[k];
        if (y->value >= h->offset && y->value - h->offset < h->size) {
            *addr = h->addr + (y->value - h->offset);
            return 0;
        }
    }
    if (o->nhost > 0 && y->value == o->mem_size[WLD_HOST]) {
        const wld_host *h = &o->host[o->nhost - 1];
        *addr = h->addr + h->size;
        return 0;
    }
    return wld_error(o->path, "symbol '%s' does not point into a host array", y->name);
}

static int assign_addresses(wld_obj *objs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        wld_obj *o = &objs[i];
        for (size_t k = 1; k < o->nsyms; k++) {
            wld_sym *y = &o->syms[k];
            if (y->sec == WLD_HOST) {
                if (y->type != STT_SECTION && host_address(o, y, &y->addr) != 0) return -1;
            } else if (y->sec >= 0) {
                y->addr = o->base[y->sec] + y->value;
            } else if (y->sec == WLD_ABS) {
                y->addr = y->value;
            }
        }
    }
    return 0;
}

static int resolve_globals(wld_obj *objs, size_t n, globals *G)
{
    uint32_t order = 0;
    for (size_t i = 0; i < n; i++) {
        wld_obj *o = &objs[i];
        for (size_t k = 1; k < o->nsyms; k++) {
            wld_sym *y = &o->syms[k];
            if (y->bind != STB_GLOBAL) continue;
            wld_global *g = global_get(G, y->name, 1);
            y->global = g;
            if (y->sec == WLD_UNDEF) continue;
            if (!g->def) {
                g->def = y;
                g->def_obj = o;
                g->order = order++;
            } else if (!(y->sec == WLD_HOST && g->def->sec == WLD_HOST && y->addr == g->def->addr)) {
                /* The same host array declared in two objects is one array. */
                return wld_error(o->path, "duplicate definition of '%s' (first defined in %s)", y->name, g->def_obj->path);
            }
        }
    }
    /* Reported in symbol table order, which is the order of first mention. */
    for (size_t i = 0; i < n; i++) {
        wld_obj *o = &objs[i];
        for (int w = 0; w < 3; w++)   /* .text, .data and the IU's .warp.iu */
            for (size_t r = 0; r < o->nrel[w]; r++)
                if (o->rel[w][r].type != WT_R_NONE) o->syms[o->rel[w][r].sym].needed = 1;
        for (size_t k = 0; k < o->ndbg; k++)
            for (size_t r = 0; r < o->dbg[k].nrel; r++)
                if (o->dbg[k].rel[r].type != WT_R_NONE) o->syms[o->dbg[k].rel[r].sym].needed = 1;
    }
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        wld_obj *o = &objs[i];
        for (size_t k = 1; k < o->nsyms; k++) {
            wld_sym *y = &o->syms[k];
            if (!y->needed || !y->global || y->global->def || y->global->ref_obj) continue;
            y->global->ref_obj = o;
            bad = wld_error(o->path, "undefined symbol '%s'", y->name);
        }
    }
    return bad;
}

/* The symbol a relocation resolves to: a global's definition wherever it is. */
static const wld_sym *target_of(const wld_obj *o, uint32_t sym)
{
    const wld_sym *y = &o->syms[sym];
    return y->global ? y->global->def : y;
}

static int apply_relocations(wld_obj *objs, size_t n, const wt_model *M, uint8_t *text, uint8_t *data, uint8_t *iu)
{
    for (size_t i = 0; i < n; i++) {
        wld_obj *o = &objs[i];
        /* The IU's literals: its bundles lie where the cells' do. */
        for (size_t r = 0; r < o->nrel[2]; r++) {
            const wld_rel *x = &o->rel[2][r];
            if (x->type == WT_R_NONE) continue;
            const wld_sym *y = target_of(o, x->sym);
            uint8_t *b = iu + o->base[WLD_TEXT] + x->offset;
            wt_insn in;
            wt_decode(b, &in);
            in.imm[x->type == WT_R_IMM1] = (x->sym ? y->addr : 0) + (uint32_t)x->addend;
            wt_encode(&in, b);
        }
        for (size_t r = 0; r < o->nrel[1]; r++) {
            const wld_rel *x = &o->rel[1][r];
            if (x->type == WT_R_NONE) continue;
            const wld_sym *y = target_of(o, x->sym);
            wld_put32(data + o->base[WLD_DATA] + x->offset, (x->sym ? y->addr : 0) + (uint32_t)x->addend);
        }
        for (size_t r = 0; r < o->nrel[0]; r++) {
            const wld_rel *x = &o->rel[0][r];
            if (x->type == WT_R_NONE) continue;
            const wld_sym *y = target_of(o, x->sym);
            uint32_t v = (x->sym ? y->addr : 0) + (uint32_t)x->addend;
            uint8_t *b = text + o->base[WLD_TEXT] + x->offset;
            wt_insn in;
            wt_decode(b, &in);
            if (x->type == WT_R_IMM0) {
                in.imm[0] = v;
            } else if (x->type == WT_R_IMM1) {
                in.imm[1] = v;
            } else {
                const char *name = x->sym ? o->syms[x->sym].name : "(absolute)";
                if (x->sym && y->sec != WLD_TEXT)
                    return wld_error(o->path, "branch target '%s' is not in .text", name);
                if (v % WT_BUNDLE_BYTES != 0)
                    return wld_error(o->path, "branch target '%s' (0x%x) is not at a bundle boundary", name, v);
                uint32_t idx = v / WT_BUNDLE_BYTES;
                if (idx > 0xffff || idx >= M->prog_mem_bundles)
                    return wld_error(o->path, "branch target '%s' (bundle %u) is outside the %s model's program memory (%u bundles)",
                                     name, idx, M->name, M->prog_mem_bundles);
                in.target = (uint16_t)idx;
            }
            wt_encode(&in, b);
        }
    }
    return 0;
}

static int merge_cells(wld_obj *objs, size_t n, ws_buf *out)
{
    const wld_obj *first = NULL;
    for (size_t i = 0; i < n; i++) {
        const wld_obj *o = &objs[i];
        if (!o->has_cells) continue;
        if (o->cells_v[3] && o->model == WT_MODEL_WARP)
            return wld_error(o->path, "a %ux%u grid of cells needs the iWarp model (the Warp array is linear)",
                             o->cells_v[3], o->cells_v[4]);
        if (!first) {
            first = o;
            ws_buf_printf(out, "%u %u %u\n", o->cells_v[0], o->cells_v[1], o->cells_v[2]);
            if (o->cells_v[3]) ws_buf_printf(out, "grid %u %u\n", o->cells_v[3], o->cells_v[4]);
        } else if (memcmp(o->cells_v, first->cells_v, 3 * sizeof o->cells_v[0]) != 0) {
            return wld_error(o->path, "cells %u..%u (skew %u) do not agree with %u..%u (skew %u) in %s",
                             o->cells_v[0], o->cells_v[1], o->cells_v[2], first->cells_v[0], first->cells_v[1],
                             first->cells_v[2], first->path);
        } else if (o->cells_v[3] != first->cells_v[3] || o->cells_v[4] != first->cells_v[4]) {
            char mine[40] = "a linear array", theirs[40] = "a linear array";
            if (o->cells_v[3]) snprintf(mine, sizeof mine, "a %ux%u grid", o->cells_v[3], o->cells_v[4]);
            if (first->cells_v[3])
                snprintf(theirs, sizeof theirs, "a %ux%u grid", first->cells_v[3], first->cells_v[4]);
            return wld_error(o->path, "its cells form %s, but those of %s %s", mine, first->path, theirs);
        }
    }
    /* An image always says which cells run it; a program that never declared a
     * cellprogram (hand-written assembly) runs on the one cell 0. */
    if (!first) ws_buf_puts(out, "0 0 0\n");
    return 0;
}

/* One file list for the image; each object's records move by its text base and
 * name their file by its index in that list. */
static void merge_lines(wld_obj *objs, size_t n, ws_buf *lines, ws_buf *files)
{
    const char **names = NULL;
    size_t nnames = 0;
    for (size_t i = 0; i < n; i++) {
        wld_obj *o = &objs[i];
        uint32_t *map = ws_xcalloc(o->nfiles ? o->nfiles : 1, sizeof *map);
        for (uint32_t f = 0; f < o->nfiles; f++) {
            size_t j = 0;
            while (j < nnames && strcmp(names[j], o->files[f]) != 0) j++;
            if (j == nnames) {
                names = ws_xrealloc(names, (nnames + 1) * sizeof *names);
                names[nnames++] = o->files[f];
                ws_buf_append(files, o->files[f], strlen(o->files[f]) + 1);
            }
            map[f] = (uint32_t)j;
        }
        for (uint32_t r = 0; r < o->nlines; r++) {
            const uint8_t *p = o->lines + 16 * r;
            uint8_t rec[16];
            wld_put32(rec, wld_get32(p) + o->base[WLD_TEXT]);
            memcpy(rec + 4, p + 4, 8);
            wld_put32(rec + 12, map[wld_get32(p + 12)]);
            ws_buf_append(lines, rec, sizeof rec);
        }
        free(map);
    }
    free(names);
}

/* A symbol's address as the image's ELF metadata gives it (symbol table, DWARF):
 * data memory at WT_DATA_SPACE, so that it overlaps no program address. */
static uint32_t elf_address(const wld_sym *y)
{
    return y->addr + (y->sec == WLD_DATA || y->sec == WLD_BSS ? WT_DATA_SPACE : 0);
}

/* The debug sections: one of each name, the objects' parts in command-line order,
 * each relocation adding its symbol's ELF address (or, for a debug section's symbol,
 * where that object's part landed) to the value in place. */
static void merge_debug(wld_obj *objs, size_t n, wld_image *img)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < objs[i].ndbg; k++) {
            wld_dbgsec *d = &objs[i].dbg[k];
            size_t j = 0;
            while (j < img->ndbg && strcmp(img->dbg_names[j], d->name) != 0) j++;
            if (j == img->ndbg) {
                img->dbg_names = ws_xrealloc(img->dbg_names, (img->ndbg + 1) * sizeof *img->dbg_names);
                img->dbg = ws_xrealloc(img->dbg, (img->ndbg + 1) * sizeof *img->dbg);
                img->dbg_names[j] = d->name;
                memset(&img->dbg[j], 0, sizeof img->dbg[j]);
                img->ndbg++;
            }
            d->base = (uint32_t)img->dbg[j].len;
            ws_buf_append(&img->dbg[j], d->data, d->size);
        }
    for (size_t i = 0; i < n; i++) {
        wld_obj *o = &objs[i];
        for (size_t k = 0; k < o->ndbg; k++) {
            wld_dbgsec *d = &o->dbg[k];
            size_t j = 0;
            while (strcmp(img->dbg_names[j], d->name) != 0) j++;
            uint8_t *bytes = (uint8_t *)img->dbg[j].data + d->base;
            for (size_t r = 0; r < d->nrel; r++) {
                const wld_rel *x = &d->rel[r];
                if (x->type == WT_R_NONE) continue;
                const wld_sym *y = target_of(o, x->sym);
                uint32_t s = !x->sym ? 0 : y->dbg >= 0 ? o->dbg[y->dbg].base : elf_address(y);
                wld_put32(bytes + x->offset, wld_get32(bytes + x->offset) + s);
            }
        }
    }
}

static void put_sym(wld_image *img, const wld_sym *y)
{
    static const uint16_t shndx[WLD_NMEM] = {1, 2, 3, 4};
    uint8_t s[16];
    uint32_t name = (uint32_t)img->strtab.len;
    ws_buf_append(&img->strtab, y->name, strlen(y->name) + 1);
    wld_put32(s, name);
    wld_put32(s + 4, elf_address(y));
    wld_put32(s + 8, y->size);
    s[12] = (uint8_t)ELF32_ST_INFO(y->bind, y->type);
    s[13] = STV_DEFAULT;
    uint16_t ndx = y->sec >= 0 ? shndx[y->sec] : SHN_ABS;
    s[14] = (uint8_t)ndx;
    s[15] = (uint8_t)(ndx >> 8);
    ws_buf_append(&img->symtab, s, sizeof s);
}

static int emitted(const wld_sym *y)
{
    return y->type != STT_SECTION && y->type != STT_FILE && (y->sec >= 0 || y->sec == WLD_ABS);
}

static void build_symtab(wld_obj *objs, size_t n, wld_image *img)
{
    static const uint8_t null_sym[16];
    ws_buf_append(&img->symtab, null_sym, sizeof null_sym);
    ws_buf_append(&img->strtab, "", 1);
    uint32_t count = 1;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 1; k < objs[i].nsyms; k++) {
            const wld_sym *y = &objs[i].syms[k];
            if (y->bind == STB_LOCAL && emitted(y)) {
                put_sym(img, y);
                count++;
            }
        }
    img->first_global = count;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 1; k < objs[i].nsyms; k++) {
            const wld_sym *y = &objs[i].syms[k];
            if (y->global && y->global->def == y && emitted(y)) put_sym(img, y);
        }
}

static void image_free(wld_image *img)
{
    ws_buf_free(&img->text);
    ws_buf_free(&img->data);
    ws_buf_free(&img->warp_host);
    ws_buf_free(&img->warp_cells);
    ws_buf_free(&img->warp_lines);
    ws_buf_free(&img->warp_files);
    ws_buf_free(&img->warp_iu);
    ws_buf_free(&img->warp_iutab);
    ws_buf_free(&img->symtab);
    ws_buf_free(&img->strtab);
    for (size_t j = 0; j < img->ndbg; j++) ws_buf_free(&img->dbg[j]);
    free(img->dbg);
    free(img->dbg_names);
}

int wld_link(const char *const *inputs, size_t ninputs, const char *out_path, const wld_options *opts)
{
    const char *entry = opts && opts->entry ? opts->entry : "_start";
    if (ninputs == 0) return wld_error(out_path, "no input files");
    wld_obj *objs = ws_xcalloc(ninputs, sizeof *objs);
    globals G = {0};
    wld_image img;
    memset(&img, 0, sizeof img);
    const wt_model *M = NULL;
    uint64_t bss_addr = 0, bss_size = 0, host_size = 0;
    int rc = -1;

    for (size_t i = 0; i < ninputs; i++)
        if (wld_read_object(&objs[i], inputs[i]) != 0) goto out;
    if (check_models(objs, ninputs, &M) != 0) goto out;
    if (layout_memory(objs, ninputs, M, &bss_addr, &bss_size) != 0) goto out;
    if (merge_host(objs, ninputs, &img.warp_host, &host_size) != 0) goto out;
    if (assign_addresses(objs, ninputs) != 0) goto out;
    if (resolve_globals(objs, ninputs, &G) != 0) goto out;

    wld_global *eg = global_get(&G, entry, 0);
    if (!eg || !eg->def) {
        wld_error(out_path, "entry symbol '%s' is not defined", entry);
        goto out;
    }
    if (eg->def->sec != WLD_TEXT) {
        wld_error(out_path, "entry symbol '%s' is not in .text", entry);
        goto out;
    }

    ws_buf_append(&img.text, "", 0);
    for (size_t i = 0; i < ninputs; i++)
        if (objs[i].mem_size[WLD_TEXT])
            ws_buf_append(&img.text, objs[i].mem[WLD_TEXT], objs[i].mem_size[WLD_TEXT]);
    int any_iu = 0;
    for (size_t i = 0; i < ninputs; i++) any_iu |= objs[i].iu != NULL;
    if (any_iu && M->id != WT_MODEL_WARP) {
        wld_error(out_path, "an interface unit program (.warp.iu) needs the Warp model");
        goto out;
    }
    for (size_t i = 0; any_iu && i < ninputs; i++) {
        /* An object without an IU part gives the IU nothing to do beside its code. */
        if (objs[i].iu) ws_buf_append(&img.warp_iu, objs[i].iu, objs[i].mem_size[WLD_TEXT]);
        else
            for (uint32_t k = 0; k < objs[i].mem_size[WLD_TEXT]; k++) ws_buf_append(&img.warp_iu, "", 1);
    }
    /* tld reads the table by offsets the assembler wrote as numbers: one object
     * gives the whole table, so none of them moves. */
    for (size_t i = 0; i < ninputs; i++) {
        if (!objs[i].iutab) continue;
        if (M->id != WT_MODEL_WARP) {
            wld_error(objs[i].path, "an interface unit address table (.warp.iutab) needs the Warp model");
            goto out;
        }
        if (img.warp_iutab.len) {
            wld_error(objs[i].path, "a second interface unit address table (.warp.iutab): one object gives it");
            goto out;
        }
        ws_buf_append(&img.warp_iutab, objs[i].iutab, objs[i].iutab_size);
    }
    for (size_t i = 0; i < ninputs; i++) {
        static const char zeros[WLD_MAX_ALIGN];
        size_t pad = objs[i].base[WLD_DATA] - img.data.len;
        ws_buf_append(&img.data, zeros, pad);
        if (objs[i].mem_size[WLD_DATA])
            ws_buf_append(&img.data, objs[i].mem[WLD_DATA], objs[i].mem_size[WLD_DATA]);
    }
    if (apply_relocations(objs, ninputs, M, (uint8_t *)img.text.data, (uint8_t *)img.data.data,
                          (uint8_t *)img.warp_iu.data) != 0)
        goto out;
    if (merge_cells(objs, ninputs, &img.warp_cells) != 0) goto out;
    merge_lines(objs, ninputs, &img.warp_lines, &img.warp_files);
    merge_debug(objs, ninputs, &img);
    build_symtab(objs, ninputs, &img);

    img.e_flags = M->id == WT_MODEL_IWARP ? WT_EF_IWARP : 0;
    img.entry = eg->def->addr;
    img.bss_addr = (uint32_t)bss_addr;
    img.bss_size = (uint32_t)bss_size;
    img.host_size = (uint32_t)host_size;
    if (wld_flow_control(objs, ninputs, M, img.entry, &img, out_path) != 0) goto out;
    rc = wld_write_image(&img, out_path);
out:
    image_free(&img);
    globals_free(&G);
    for (size_t i = 0; i < ninputs; i++) wld_free_object(&objs[i]);
    free(objs);
    return rc;
}
