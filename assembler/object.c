/* The object writer: the parsed unit as an ELF32 little-endian ET_REL file with
 * exactly the sections of docs/design.md, section 4, always all of them and always
 * in the same order, so the linker finds them by name and the same source gives
 * the same bytes; the debug sections (section 5), if any, follow .warp.files, and
 * their relocations follow .rela.data, then .warp.gates if `.gateloc` gave any,
 * then .warp.iu and .rela.warp.iu if a bundle has an interface-unit part, then
 * .warp.iutab if `.iutable` filled the interface unit's address table;
 * support/elfwrite.c lays the file out. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "was_internal.h"

/* The fixed sections; the debug sections come at S_EXTRA.. and push the rest back. */
enum { S_NULL, S_TEXT, S_DATA, S_BSS, S_HOST, S_WHOST, S_WCELLS, S_WLINES, S_WFILES, S_EXTRA };

/* Where a unit's sections land: indices of sections and of their section symbols. */
typedef struct layout {
    size_t nextra;
    uint32_t rela_text, rela_data, gates, symtab, strtab, count;   /* gates: 0 if none */
    uint32_t iu, rela_iu;   /* the interface unit's program and its relocations: 0 if none */
    uint32_t iutab;         /* the interface unit's address table: 0 if none */
    uint32_t *extra_rel;    /* per debug section: its relocation section, 0 if none */
} layout;

typedef ws_elf_section sec;

static void put32(ws_buf *b, uint32_t v)
{
    uint8_t w[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    ws_buf_append(b, w, 4);
}

static void put_sym(ws_buf *b, uint32_t name, uint32_t value, uint32_t size, int bind, int type,
                    uint16_t shndx)
{
    put32(b, name);
    put32(b, value);
    put32(b, size);
    uint8_t tail[4] = {(uint8_t)ELF32_ST_INFO(bind, type), STV_DEFAULT, (uint8_t)shndx, (uint8_t)(shndx >> 8)};
    ws_buf_append(b, tail, 4);
}

static uint32_t add_string(ws_buf *strtab, const char *s)
{
    uint32_t off = (uint32_t)strtab->len;
    ws_buf_append(strtab, s, strlen(s) + 1);
    return off;
}

static uint16_t shndx_of(was_sec s)
{
    switch (s) {
    case WAS_SEC_TEXT: return S_TEXT;
    case WAS_SEC_DATA: return S_DATA;
    case WAS_SEC_BSS: return S_BSS;
    case WAS_SEC_HOST: return S_HOST;
    case WAS_SEC_UNDEF: return SHN_UNDEF;
    default: return (uint16_t)(S_EXTRA + (s - WAS_SEC_EXTRA));
    }
}

/* Section symbols: .text .data .bss .host are 1..4 (their section indices), the
 * debug sections' follow. */
static uint32_t section_symbol(was_sec s)
{
    return s >= WAS_SEC_EXTRA ? 5u + (uint32_t)(s - WAS_SEC_EXTRA) : shndx_of(s);
}

/* Local labels (.L...) are the compiler's; they stay out of the symbol table, and
 * relocations against any local go through its section's symbol. */
static int is_emitted_local(const was_sym *y)
{
    return !y->global && y->sec != WAS_SEC_UNDEF && strncmp(y->name, ".L", 2) != 0;
}

static int is_emitted_global(const was_sym *y)
{
    return y->global || (y->sec == WAS_SEC_UNDEF && y->referenced);
}

static void build_symtab(was_unit *u, ws_buf *symtab, ws_buf *strtab, uint32_t *first_global)
{
    ws_buf_append(strtab, "", 1);
    put_sym(symtab, 0, 0, 0, STB_LOCAL, STT_NOTYPE, SHN_UNDEF);
    for (uint16_t s = S_TEXT; s <= S_HOST; s++) put_sym(symtab, 0, 0, 0, STB_LOCAL, STT_SECTION, s);
    for (size_t k = 0; k < u->nextra; k++)
        put_sym(symtab, 0, 0, 0, STB_LOCAL, STT_SECTION, shndx_of((was_sec)(WAS_SEC_EXTRA + k)));
    uint32_t index = 1 + (S_HOST - S_TEXT + 1) + (uint32_t)u->nextra;
    for (size_t i = 0; i < u->nsyms; i++) {
        was_sym *y = u->syms[i];
        if (!is_emitted_local(y)) continue;
        y->elf_index = index++;
        put_sym(symtab, add_string(strtab, y->name), y->value, y->size, STB_LOCAL, y->type, shndx_of(y->sec));
    }
    *first_global = index;
    for (size_t i = 0; i < u->nsyms; i++) {
        was_sym *y = u->syms[i];
        if (!is_emitted_global(y)) continue;
        y->elf_index = index++;
        put_sym(symtab, add_string(strtab, y->name), y->sec == WAS_SEC_UNDEF ? 0 : y->value, y->size,
                STB_GLOBAL, y->type, shndx_of(y->sec));
    }
}

static void build_rela(const was_relocs *r, ws_buf *out)
{
    for (size_t i = 0; i < r->n; i++) {
        const was_reloc *x = &r->v[i];
        uint32_t sym = x->sym->elf_index;
        uint32_t addend = (uint32_t)x->addend;
        if (!is_emitted_global(x->sym)) {
            sym = section_symbol(x->sym->sec);
            addend += x->sym->value;
        }
        put32(out, x->offset);
        put32(out, ELF32_R_INFO(sym, x->type));
        put32(out, addend);
    }
}

/* A debug section's relocations, REL style (WT_SHT_DEBUG_REL): every symbol this
 * object defines is reached through its section's symbol, and the value relative
 * to that section is written in place, so a reader that applies nothing (readelf)
 * sees each address as an offset in its section. */
static void build_debug_rel(const was_relocs *r, uint8_t *bytes, ws_buf *out)
{
    for (size_t i = 0; i < r->n; i++) {
        const was_reloc *x = &r->v[i];
        uint32_t sym = x->sym->elf_index, in_place = (uint32_t)x->addend;
        if (x->sym->sec != WAS_SEC_UNDEF) {
            sym = section_symbol(x->sym->sec);
            in_place += x->sym->value;
        }
        uint8_t *p = bytes + x->offset;
        p[0] = (uint8_t)in_place;
        p[1] = (uint8_t)(in_place >> 8);
        p[2] = (uint8_t)(in_place >> 16);
        p[3] = (uint8_t)(in_place >> 24);
        put32(out, x->offset);
        put32(out, ELF32_R_INFO(sym, x->type));
    }
}

int was_write_object(was_unit *u, const char *out_path)
{
    ws_buf symtab = {0}, strtab = {0}, rtext = {0}, rdata = {0};
    uint32_t first_global;
    build_symtab(u, &symtab, &strtab, &first_global);
    build_rela(&u->rtext, &rtext);
    build_rela(&u->rdata, &rdata);
    ws_buf riu = {0};
    build_rela(&u->riu, &riu);
    /* The IU's program runs to the end of .text, its last bundles empty. */
    static const uint8_t empty[WT_BUNDLE_BYTES];
    while (u->warp_iu.len && u->warp_iu.len < u->text.len) ws_buf_append(&u->warp_iu, empty, sizeof empty);

    layout L = {.nextra = u->nextra};
    L.extra_rel = ws_xcalloc(u->nextra + 1, sizeof *L.extra_rel);
    ws_buf *drel = ws_xcalloc(u->nextra + 1, sizeof *drel);
    char **drel_names = ws_xcalloc(u->nextra + 1, sizeof *drel_names);
    uint32_t next = S_EXTRA + (uint32_t)u->nextra;
    L.rela_text = next++;
    L.rela_data = next++;
    for (size_t k = 0; k < u->nextra; k++)
        if (u->extra[k].rel.n) L.extra_rel[k] = next++;
    if (u->warp_gates.len) L.gates = next++;
    if (u->warp_iu.len) {
        L.iu = next++;
        L.rela_iu = next++;
    }
    if (u->warp_iutab.len) L.iutab = next++;
    L.symtab = next++;
    L.strtab = next++;
    L.count = next;     /* the section-name table comes after these */

    sec *secs = ws_xcalloc(L.count, sizeof *secs);
    secs[S_TEXT] = (sec){".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0, 0, 0, 8, WT_BUNDLE_BYTES,
                         u->text.data, (uint32_t)u->text.len};
    secs[S_DATA] = (sec){".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 0, 0, 0, u->data_align, 0, u->data.data,
                         (uint32_t)u->data.len};
    secs[S_BSS] = (sec){".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 0, 0, 0, u->bss_align, 0, NULL, u->bss_size};
    secs[S_HOST] = (sec){".host", SHT_NOBITS, 0, 0, 0, 0, 4, 0, NULL, u->host_size};
    secs[S_WHOST] = (sec){".warp.host", SHT_PROGBITS, 0, 0, 0, 0, 1, 0, u->warp_host.data,
                          (uint32_t)u->warp_host.len};
    secs[S_WCELLS] = (sec){".warp.cells", SHT_PROGBITS, 0, 0, 0, 0, 1, 0, u->warp_cells.data,
                           (uint32_t)u->warp_cells.len};
    secs[S_WLINES] = (sec){".warp.lines", SHT_PROGBITS, 0, 0, 0, 0, 4, 16, u->warp_lines.data,
                           (uint32_t)u->warp_lines.len};
    secs[S_WFILES] = (sec){".warp.files", SHT_PROGBITS, 0, 0, 0, 0, 1, 0, u->warp_files.data,
                           (uint32_t)u->warp_files.len};
    for (size_t k = 0; k < u->nextra; k++) {
        was_extra *x = &u->extra[k];
        if (x->rel.n) build_debug_rel(&x->rel, (uint8_t *)x->data.data, &drel[k]);
        secs[S_EXTRA + k] = (sec){x->name, SHT_PROGBITS, 0, 0, 0, 0, 1, 0, x->data.data, (uint32_t)x->data.len};
        if (!L.extra_rel[k]) continue;
        drel_names[k] = ws_xmalloc(strlen(x->name) + 16);
        sprintf(drel_names[k], ".warp.rel%s", x->name);
        secs[L.extra_rel[k]] = (sec){drel_names[k], WT_SHT_DEBUG_REL, SHF_INFO_LINK, 0, L.symtab,
                                     (uint32_t)(S_EXTRA + k), 4, sizeof(Elf32_Rel), drel[k].data,
                                     (uint32_t)drel[k].len};
    }
    secs[L.rela_text] = (sec){".rela.text", SHT_RELA, SHF_INFO_LINK, 0, L.symtab, S_TEXT, 4,
                              sizeof(Elf32_Rela), rtext.data, (uint32_t)rtext.len};
    secs[L.rela_data] = (sec){".rela.data", SHT_RELA, SHF_INFO_LINK, 0, L.symtab, S_DATA, 4,
                              sizeof(Elf32_Rela), rdata.data, (uint32_t)rdata.len};
    if (L.gates)
        secs[L.gates] = (sec){".warp.gates", SHT_PROGBITS, 0, 0, 0, 0, 4, 16, u->warp_gates.data,
                              (uint32_t)u->warp_gates.len};
    if (L.iu) {
        secs[L.iu] = (sec){".warp.iu", SHT_PROGBITS, 0, 0, 0, 0, 8, WT_BUNDLE_BYTES, u->warp_iu.data,
                           (uint32_t)u->warp_iu.len};
        secs[L.rela_iu] = (sec){".rela.warp.iu", SHT_RELA, SHF_INFO_LINK, 0, L.symtab, L.iu, 4,
                                sizeof(Elf32_Rela), riu.data, (uint32_t)riu.len};
    }
    if (L.iutab)
        secs[L.iutab] = (sec){".warp.iutab", SHT_PROGBITS, 0, 0, 0, 0, 4, 4, u->warp_iutab.data,
                              (uint32_t)u->warp_iutab.len};
    secs[L.symtab] = (sec){".symtab", SHT_SYMTAB, 0, 0, L.strtab, first_global, 4, sizeof(Elf32_Sym),
                           symtab.data, (uint32_t)symtab.len};
    secs[L.strtab] = (sec){".strtab", SHT_STRTAB, 0, 0, 0, 0, 1, 0, strtab.data, (uint32_t)strtab.len};
    ws_elf_file file = {.type = ET_REL, .machine = WT_EM_WARP, .flags = u->e_flags, .secs = secs, .nsecs = L.count};
    int rc = ws_elf_write(&file, out_path);
    ws_buf_free(&symtab);
    ws_buf_free(&strtab);
    ws_buf_free(&rtext);
    ws_buf_free(&rdata);
    ws_buf_free(&riu);
    for (size_t k = 0; k < u->nextra; k++) {
        ws_buf_free(&drel[k]);
        free(drel_names[k]);
    }
    free(drel);
    free(drel_names);
    free(L.extra_rel);
    free(secs);
    return rc;
}
