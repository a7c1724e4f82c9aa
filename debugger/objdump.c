/* What warp-objdump prints, in binutils' shapes: section headers (-h), the symbol
 * table (-t), relocations (-r), and disassembly (-d) through target/'s decoder,
 * with source lines interleaved from the DWARF line table (-S). Objects and
 * images alike; every offset, size and index is checked before it is used. */
#include "wdb_internal.h"

#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "warp_support.h"
#include "warp_target.h"

#define MAX_FILE_BYTES (256u << 20)

typedef struct dsec {
    GElf_Shdr sh;
    const char *name;
} dsec;

typedef struct dump {
    const char *path;
    const uint8_t *buf;
    size_t len;
    Elf *e;
    GElf_Ehdr eh;
    dsec *s;
    size_t n;
    size_t symtab;            /* 0 if none */
    GElf_Sym *syms;
    size_t nsyms;
    const char **symname;
    wdb_dwarf *dw;
    char *err;
    size_t errlen;
    char **src;               /* per DWARF file, loaded on first use */
    size_t *srclen;
} dump;

static int fail(dump *D, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(dump *D, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(D->err, D->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static int is_reloc(const dsec *s) { return s->sh.sh_type == SHT_RELA || s->sh.sh_type == SHT_REL || s->sh.sh_type == WT_SHT_DEBUG_REL; }

static int in_file(const dump *D, uint64_t off, uint64_t size) { return off <= D->len && size <= D->len - off; }

static const uint8_t *contents(const dump *D, size_t i)
{
    const dsec *s = &D->s[i];
    if (s->sh.sh_type == SHT_NOBITS || !in_file(D, s->sh.sh_offset, s->sh.sh_size)) return NULL;
    return D->buf + s->sh.sh_offset;
}

static int open_dump(dump *D)
{
    if (D->len < EI_NIDENT || memcmp(D->buf, ELFMAG, SELFMAG) != 0) return fail(D, "file format not recognized");
    if (D->buf[EI_CLASS] != ELFCLASS32 || D->buf[EI_DATA] != ELFDATA2LSB || D->len < sizeof(Elf32_Ehdr))
        return fail(D, "file format not recognized (not 32-bit little-endian ELF)");
    if (elf_version(EV_CURRENT) == EV_NONE) return fail(D, "libelf is out of date");
    D->e = elf_memory((char *)D->buf, D->len);
    if (!D->e || elf_kind(D->e) != ELF_K_ELF || !gelf_getehdr(D->e, &D->eh)) return fail(D, "file format not recognized");
    if (D->eh.e_machine != WT_EM_WARP) return fail(D, "not a Warp file (e_machine 0x%x)", (unsigned)D->eh.e_machine);
    if (D->eh.e_shnum && (D->eh.e_shentsize != sizeof(Elf32_Shdr) ||
                          !in_file(D, D->eh.e_shoff, (uint64_t)D->eh.e_shnum * sizeof(Elf32_Shdr))))
        return fail(D, "truncated: section headers end past the end of the file");
    size_t shstrndx;
    if (elf_getshdrnum(D->e, &D->n) != 0 || elf_getshdrstrndx(D->e, &shstrndx) != 0)
        return fail(D, "bad section header table");
    D->s = ws_xcalloc(D->n + 1, sizeof *D->s);
    for (size_t i = 1; i < D->n; i++) {
        Elf_Scn *scn = elf_getscn(D->e, i);
        if (!scn || !gelf_getshdr(scn, &D->s[i].sh)) return fail(D, "cannot read section header %zu", i);
        const char *name = elf_strptr(D->e, shstrndx, D->s[i].sh.sh_name);
        D->s[i].name = name ? name : "?";
        if (D->s[i].sh.sh_type != SHT_NOBITS && !in_file(D, D->s[i].sh.sh_offset, D->s[i].sh.sh_size))
            return fail(D, "truncated: section %s ends past the end of the file", D->s[i].name);
        if (D->s[i].sh.sh_type == SHT_SYMTAB && !D->symtab) D->symtab = i;
    }
    if (D->symtab) {
        const dsec *st = &D->s[D->symtab];
        if (st->sh.sh_entsize != sizeof(Elf32_Sym) || st->sh.sh_link >= D->n) return fail(D, "bad symbol table");
        Elf_Data *data = elf_getdata(elf_getscn(D->e, D->symtab), NULL);
        D->nsyms = st->sh.sh_size / sizeof(Elf32_Sym);
        if (D->nsyms && (!data || data->d_size < D->nsyms * sizeof(Elf32_Sym))) return fail(D, "cannot read the symbol table");
        D->syms = ws_xcalloc(D->nsyms + 1, sizeof *D->syms);
        D->symname = ws_xcalloc(D->nsyms + 1, sizeof *D->symname);
        for (size_t i = 0; i < D->nsyms; i++) {
            if (!gelf_getsym(data, (int)i, &D->syms[i])) return fail(D, "cannot read symbol %zu", i);
            const char *nm = elf_strptr(D->e, st->sh.sh_link, D->syms[i].st_name);
            D->symname[i] = nm ? nm : "";
            if (GELF_ST_TYPE(D->syms[i].st_info) == STT_SECTION && D->syms[i].st_shndx < D->n)
                D->symname[i] = D->s[D->syms[i].st_shndx].name;
        }
    }
    char err[256];
    D->dw = wdb_dwarf_read_mem(D->buf, D->len, err, sizeof err);   /* -S without DWARF: no source */
    return 0;
}

static void close_dump(dump *D)
{
    if (D->dw) {
        for (size_t i = 0; i < D->dw->nfiles; i++) free(D->src ? D->src[i] : NULL);
        wdb_dwarf_free(D->dw);
    }
    free(D->src);
    free(D->srclen);
    free(D->syms);
    free(D->symname);
    free(D->s);
    if (D->e) elf_end(D->e);
}

/* ---- -h ------------------------------------------------------------------------------------ */

static void print_headers(dump *D, FILE *out)
{
    fprintf(out, "Sections:\nIdx Name          Size      VMA       LMA       File off  Algn\n");
    int idx = 0;
    for (size_t i = 1; i < D->n; i++) {
        const dsec *s = &D->s[i];
        if (is_reloc(s) || s->sh.sh_type == SHT_SYMTAB || s->sh.sh_type == SHT_STRTAB) continue;
        unsigned align = 0;
        while (align < 31 && (1u << align) < s->sh.sh_addralign) align++;
        fprintf(out, "%3d %-13s %08llx  %08llx  %08llx  %08llx  2**%u\n", idx++, s->name,
                (unsigned long long)s->sh.sh_size, (unsigned long long)s->sh.sh_addr,
                (unsigned long long)s->sh.sh_addr, (unsigned long long)s->sh.sh_offset, align);
        int has_rel = 0;
        for (size_t k = 1; k < D->n; k++) has_rel |= is_reloc(&D->s[k]) && D->s[k].sh.sh_info == i && D->s[k].sh.sh_size;
        const char *flags[8];
        int nf = 0;
        int alloc = (s->sh.sh_flags & SHF_ALLOC) != 0;
        if (s->sh.sh_type != SHT_NOBITS) flags[nf++] = "CONTENTS";
        if (alloc) flags[nf++] = "ALLOC";
        if (alloc && s->sh.sh_type != SHT_NOBITS) flags[nf++] = "LOAD";
        if (has_rel) flags[nf++] = "RELOC";
        if (!(s->sh.sh_flags & SHF_WRITE) && s->sh.sh_type != SHT_NOBITS) flags[nf++] = "READONLY";
        if (s->sh.sh_flags & SHF_EXECINSTR) flags[nf++] = "CODE";
        else if (alloc && s->sh.sh_type != SHT_NOBITS) flags[nf++] = "DATA";
        if (!strncmp(s->name, ".debug_", 7)) flags[nf++] = "DEBUGGING";
        fprintf(out, "                  ");
        for (int f = 0; f < nf; f++) fprintf(out, "%s%s", f ? ", " : "", flags[f]);
        fprintf(out, "\n");
    }
}

/* ---- -t ------------------------------------------------------------------------------------ */

static const char *section_of(const dump *D, const GElf_Sym *y)
{
    if (y->st_shndx == SHN_UNDEF) return "*UND*";
    if (y->st_shndx == SHN_ABS) return "*ABS*";
    if (y->st_shndx == SHN_COMMON) return "*COM*";
    return y->st_shndx < D->n ? D->s[y->st_shndx].name : "*unknown*";
}

static void print_symbols(dump *D, FILE *out)
{
    fprintf(out, "SYMBOL TABLE:\n");
    if (!D->nsyms) {
        fprintf(out, "no symbols\n");
        return;
    }
    for (size_t i = 1; i < D->nsyms; i++) {
        const GElf_Sym *y = &D->syms[i];
        int bind = GELF_ST_BIND(y->st_info), type = GELF_ST_TYPE(y->st_info);
        char scope = bind == STB_LOCAL ? 'l' : bind == STB_GLOBAL ? (y->st_shndx == SHN_UNDEF ? ' ' : 'g') : bind == STB_WEAK ? ' ' : '?';
        char weak = bind == STB_WEAK ? 'w' : ' ';
        char debug = type == STT_SECTION ? 'd' : ' ';
        char kind = type == STT_FUNC ? 'F' : type == STT_FILE ? 'f' : type == STT_OBJECT ? 'O' : ' ';
        fprintf(out, "%08llx %c%c   %c%c %s\t%08llx %s\n", (unsigned long long)y->st_value, scope, weak, debug, kind,
                section_of(D, y), (unsigned long long)y->st_size, D->symname[i]);
    }
}

/* ---- -r ------------------------------------------------------------------------------------ */

static const char *reloc_name(unsigned type)
{
    switch (type) {
    case WT_R_NONE: return "R_WARP_NONE";
    case WT_R_IMM0: return "R_WARP_IMM0";
    case WT_R_IMM1: return "R_WARP_IMM1";
    case WT_R_TARGET: return "R_WARP_TARGET";
    case WT_R_ABS32: return "R_WARP_ABS32";
    default: return NULL;
    }
}

typedef struct rel {
    uint32_t offset, type, sym;
    int64_t addend;
    int has_addend;
} rel;

/* The relocations of section `i` (of every relocation section for it). */
static rel *relocs_for(dump *D, size_t target, size_t *n)
{
    rel *v = NULL;
    *n = 0;
    for (size_t k = 1; k < D->n; k++) {
        const dsec *s = &D->s[k];
        if (!is_reloc(s) || s->sh.sh_info != target) continue;
        size_t ent = s->sh.sh_type == SHT_RELA ? sizeof(Elf32_Rela) : sizeof(Elf32_Rel);
        const uint8_t *p = contents(D, k);
        if (!p || s->sh.sh_entsize != ent) continue;
        for (size_t i = 0; i + ent <= s->sh.sh_size; i += ent) {
            const uint8_t *q = p + i;
            uint32_t off = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
            uint32_t info = (uint32_t)q[4] | (uint32_t)q[5] << 8 | (uint32_t)q[6] << 16 | (uint32_t)q[7] << 24;
            int32_t add = 0;
            if (ent == sizeof(Elf32_Rela))
                add = (int32_t)((uint32_t)q[8] | (uint32_t)q[9] << 8 | (uint32_t)q[10] << 16 | (uint32_t)q[11] << 24);
            v = ws_xrealloc(v, (*n + 1) * sizeof *v);
            v[(*n)++] = (rel){off, ELF32_R_TYPE(info), ELF32_R_SYM(info), add, ent == sizeof(Elf32_Rela)};
        }
    }
    return v;
}

static void reloc_value(dump *D, const rel *r, char *buf, size_t size)
{
    const char *name = r->sym < D->nsyms ? D->symname[r->sym] : "*bad symbol*";
    if (!r->sym) name = "*ABS*";
    if (r->has_addend && r->addend > 0) snprintf(buf, size, "%s+0x%08llx", name, (unsigned long long)r->addend);
    else if (r->has_addend && r->addend < 0) snprintf(buf, size, "%s-0x%08llx", name, (unsigned long long)-r->addend);
    else snprintf(buf, size, "%s", name);
}

static void print_relocs(dump *D, FILE *out)
{
    for (size_t t = 1; t < D->n; t++) {
        size_t n;
        rel *v = relocs_for(D, t, &n);
        if (!n) {
            free(v);
            continue;
        }
        fprintf(out, "RELOCATION RECORDS FOR [%s]:\nOFFSET   TYPE              VALUE\n", D->s[t].name);
        for (size_t i = 0; i < n; i++) {
            char val[300], tn[32];
            const char *name = reloc_name(v[i].type);
            if (!name) {
                snprintf(tn, sizeof tn, "*unknown %u*", v[i].type);
                name = tn;
            }
            reloc_value(D, &v[i], val, sizeof val);
            fprintf(out, "%08x %-17s %s\n", v[i].offset, name, val);
        }
        fprintf(out, "\n");
        free(v);
    }
}

/* ---- -d and -S ---------------------------------------------------------------------------------- */

static const char *source_line(dump *D, uint32_t file, uint32_t line, size_t *len)
{
    if (!D->dw || file >= D->dw->nfiles || line == 0) return NULL;
    if (!D->src) {
        D->src = ws_xcalloc(D->dw->nfiles + 1, sizeof *D->src);
        D->srclen = ws_xcalloc(D->dw->nfiles + 1, sizeof *D->srclen);
    }
    if (!D->src[file]) {
        char err[256];
        D->src[file] = ws_read_file(D->dw->files[file], &D->srclen[file], 64u << 20, err, sizeof err);
        if (!D->src[file]) D->src[file] = ws_xstrdup("");
    }
    const char *p = D->src[file], *end = p + D->srclen[file];
    for (uint32_t l = 1; l < line && p < end; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    if (p >= end) return NULL;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    *len = (size_t)((nl ? nl : end) - p);
    return p;
}

typedef struct tctx {
    dump *D;
    size_t text;
    char buf[300];
} tctx;

static const char *target_name(void *ctx, unsigned target)
{
    tctx *T = ctx;
    uint32_t a = target * WT_BUNDLE_BYTES;
    const GElf_Sym *best = NULL;
    size_t bi = 0;
    for (size_t i = 1; i < T->D->nsyms; i++) {
        const GElf_Sym *y = &T->D->syms[i];
        int type = GELF_ST_TYPE(y->st_info);
        if (y->st_shndx != T->text || type == STT_SECTION || !*T->D->symname[i] || y->st_value > a) continue;
        if (!best || y->st_value > best->st_value) best = y, bi = i;
    }
    if (best && best->st_value == a) snprintf(T->buf, sizeof T->buf, "%x <%s>", a, T->D->symname[bi]);
    else if (best) snprintf(T->buf, sizeof T->buf, "%x <%s+0x%llx>", a, T->D->symname[bi], (unsigned long long)(a - best->st_value));
    else snprintf(T->buf, sizeof T->buf, "%x", a);
    return T->buf;
}

/* The Warp interface unit's program (.warp.iu), a bundle beside each of the code
 * section's (docs/design.md, section 1, "The interface unit"); 0 if there is none. */
static size_t iu_section(const dump *D, const dsec *text)
{
    if (strcmp(text->name, ".text") != 0) return 0;
    for (size_t k = 1; k < D->n; k++)
        if (D->s[k].sh.sh_type == SHT_PROGBITS && strcmp(D->s[k].name, ".warp.iu") == 0 &&
            D->s[k].sh.sh_size == text->sh.sh_size)
            return k;
    return 0;
}

static int empty_bundle(const wt_insn *in)
{
    for (int s = 0; s < WT_NSLOTS; s++)
        if (in->slot[s].op != WT_OP_NONE) return 0;
    return 1;
}

void wdb_format_bundle(const wt_insn *cells, const wt_insn *iu, char *buf, size_t size,
                       const char *(*target_name)(void *ctx, unsigned target), void *ctx)
{
    int n = wt_format_insn(cells, buf, size, target_name, ctx);
    if (!iu || empty_bundle(iu) || (size_t)n + 5 > size) return;
    memcpy(buf + n, " || ", 5);
    wt_format_insn(iu, buf + n + 4, size - (size_t)n - 4, target_name, ctx);
}

/* The IU's literals are relocated apart (.rela.warp.iu, offsets as in .text): "iu " before them. */
static void print_relocs_at(dump *D, const rel *rels, size_t nrel, uint64_t off, const char *side, FILE *out)
{
    for (size_t i = 0; i < nrel; i++)
        if (rels[i].offset == off) {
            char val[300];
            reloc_value(D, &rels[i], val, sizeof val);
            fprintf(out, "\t\t\t%s%x: %s\t%s\n", side, rels[i].offset, reloc_name(rels[i].type) ? reloc_name(rels[i].type) : "*unknown*", val);
        }
}

/* The Warp interface unit's address table (.warp.iutab), which tld reads by byte
 * offset: eight entries a line, each line as warp-as reads it back. */
static void print_iu_table(dump *D, FILE *out)
{
    for (size_t k = 1; k < D->n; k++) {
        const dsec *s = &D->s[k];
        if (s->sh.sh_type != SHT_PROGBITS || strcmp(s->name, ".warp.iutab") != 0) continue;
        const uint8_t *p = contents(D, k);
        if (!p) continue;
        uint64_t words = s->sh.sh_size / 4;
        fprintf(out, "Interface unit address table (.warp.iutab, %llu %s):\n", (unsigned long long)words,
                words == 1 ? "entry" : "entries");
        for (uint64_t i = 0; i < words; i++) {
            uint32_t v = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
                         (uint32_t)p[4 * i + 3] << 24;
            if (i % 8 == 0) fprintf(out, "%8llx:\t.iutable ", (unsigned long long)(4 * i));
            fprintf(out, "%u%s", v, i % 8 == 7 || i + 1 == words ? "\n" : ", ");
        }
        if (s->sh.sh_size % 4) fprintf(out, "\t(%llu bytes left over)\n", (unsigned long long)(s->sh.sh_size % 4));
        fprintf(out, "\n");
    }
}

static void print_disassembly(dump *D, int source, int with_relocs, FILE *out)
{
    for (size_t t = 1; t < D->n; t++) {
        const dsec *s = &D->s[t];
        if (!(s->sh.sh_flags & SHF_EXECINSTR) || s->sh.sh_type != SHT_PROGBITS) continue;
        const uint8_t *p = contents(D, t);
        if (!p) continue;
        size_t nrel, niu_rel = 0, iu = iu_section(D, s);
        rel *rels = with_relocs ? relocs_for(D, t, &nrel) : NULL;
        if (!rels) nrel = 0;
        const uint8_t *iu_code = iu ? contents(D, iu) : NULL;
        rel *iu_rels = iu_code && with_relocs ? relocs_for(D, iu, &niu_rel) : NULL;
        if (!iu_rels) niu_rel = 0;
        fprintf(out, "Disassembly of section %s:\n", s->name);
        tctx T = {D, t, ""};
        uint32_t last_line = 0, last_file = UINT32_MAX;
        /* In an object the section starts at 0; DWARF addresses are section-relative too. */
        for (uint64_t off = 0; off + WT_BUNDLE_BYTES <= s->sh.sh_size; off += WT_BUNDLE_BYTES) {
            uint32_t addr = (uint32_t)(s->sh.sh_addr + off);
            for (size_t i = 1; i < D->nsyms; i++) {
                const GElf_Sym *y = &D->syms[i];
                int type = GELF_ST_TYPE(y->st_info);
                if (y->st_shndx != t || y->st_value != addr || type == STT_SECTION || !*D->symname[i]) continue;
                if (!strncmp(D->symname[i], ".L", 2)) continue;
                fprintf(out, "\n%08x <%s>:\n", addr, D->symname[i]);
            }
            const wdb_row *r = source && D->dw ? wdb_row_at(D->dw, addr) : NULL;
            if (r && r->addr == addr && (r->line != last_line || r->file != last_file)) {
                /* the lines since the last one shown, as objdump -S does (a few) */
                uint32_t from = r->file == last_file && r->line > last_line && r->line - last_line <= 3 ? last_line + 1
                                                                                                       : r->line;
                for (uint32_t l = from; l <= r->line; l++) {
                    size_t n;
                    const char *text = source_line(D, r->file, l, &n);
                    if (text) fprintf(out, "%.*s\n", (int)n, text);
                }
                last_line = r->line;
                last_file = r->file;
            }
            wt_insn in, iu_in;
            char text[2048];
            int iu_bad = iu_code && wt_decode(iu_code + off, &iu_in) != 0;
            if (wt_decode(p + off, &in) != 0) snprintf(text, sizeof text, "(bad)");
            else wdb_format_bundle(&in, iu_code && !iu_bad ? &iu_in : NULL, text, sizeof text, target_name, &T);
            fprintf(out, "%8x:\t%s%s\n", addr, text, iu_bad ? " || (bad)" : "");
            print_relocs_at(D, rels, nrel, off, "", out);
            print_relocs_at(D, iu_rels, niu_rel, off, "iu ", out);
        }
        fprintf(out, "\n");
        free(rels);
        free(iu_rels);
    }
    print_iu_table(D, out);
}

int wdb_objdump(const char *path, unsigned what, FILE *out, char *err, size_t errlen)
{
    dump D = {.path = path, .err = err, .errlen = errlen};
    size_t len;
    char rerr[256];
    char *buf = ws_read_file(path, &len, MAX_FILE_BYTES, rerr, sizeof rerr);
    if (!buf) {
        snprintf(err, errlen, "%s", rerr);
        return -1;
    }
    D.buf = (const uint8_t *)buf;
    D.len = len;
    int rc = open_dump(&D);
    if (rc == 0) {
        fprintf(out, "\n%s:     file format elf32-warp%s\n\n", path, D.eh.e_flags & WT_EF_IWARP ? " (iwarp)" : "");
        if (what & WDB_DUMP_HEADERS) print_headers(&D, out);
        if (what & WDB_DUMP_SYMBOLS) print_symbols(&D, out);
        if ((what & WDB_DUMP_RELOCS) && !(what & (WDB_DUMP_DISASM | WDB_DUMP_SOURCE))) {
            if (what & (WDB_DUMP_HEADERS | WDB_DUMP_SYMBOLS)) fprintf(out, "\n");
            print_relocs(&D, out);
        }
        if (what & (WDB_DUMP_DISASM | WDB_DUMP_SOURCE)) {
            if (what & (WDB_DUMP_HEADERS | WDB_DUMP_SYMBOLS)) fprintf(out, "\n");
            print_disassembly(&D, (what & WDB_DUMP_SOURCE) != 0, (what & WDB_DUMP_RELOCS) != 0, out);
        }
    }
    close_dump(&D);
    free(buf);
    return rc;
}
