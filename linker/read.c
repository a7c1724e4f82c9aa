/* Reading an object: every offset, size, index and string is checked before it is
 * used, so a truncated or hostile file gives one line naming what is wrong and
 * never a crash. The ELF header is checked by hand first, because libelf itself
 * trusts the section header table's position and size. */
#include <elf.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "wld_internal.h"

/* Objects are a cell program's worth of code and data: far below this. */
#define MAX_OBJECT_BYTES (256u << 20)
#define MAX_SECTIONS 1024u

int wld_error(const char *path, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ws_file_error(path, "%s", msg);
    return -1;
}

static int is_pow2_or_0(uint32_t v) { return (v & (v - 1)) == 0; }

/* Is [off, off+size) inside the file? */
static int in_file(const wld_obj *o, uint64_t off, uint64_t size)
{
    return off <= o->size && size <= o->size - off;
}

static int check_header(wld_obj *o, uint16_t *shnum, uint16_t *shstrndx)
{
    const uint8_t *h = (const uint8_t *)o->buf;
    if (o->size < SELFMAG || memcmp(h, ELFMAG, SELFMAG) != 0) return wld_error(o->path, "not an ELF file");
    if (o->size < sizeof(Elf32_Ehdr)) return wld_error(o->path, "truncated ELF header");
    if (h[EI_CLASS] != ELFCLASS32) return wld_error(o->path, "not a 32-bit ELF file");
    if (h[EI_DATA] != ELFDATA2LSB) return wld_error(o->path, "not a little-endian ELF file");
    if (h[EI_VERSION] != EV_CURRENT || wld_get32(h + 20) != EV_CURRENT)
        return wld_error(o->path, "unsupported ELF version");
    uint16_t type = wld_get16(h + 16), machine = wld_get16(h + 18);
    uint32_t shoff = wld_get32(h + 32), flags = wld_get32(h + 36);
    uint16_t ehsize = wld_get16(h + 40), shentsize = wld_get16(h + 46);
    *shnum = wld_get16(h + 48);
    *shstrndx = wld_get16(h + 50);
    if (machine != WT_EM_WARP)
        return wld_error(o->path, "not a Warp object (e_machine 0x%x, expected 0x%x)", machine, WT_EM_WARP);
    if (type != ET_REL)
        return wld_error(o->path, type == ET_EXEC ? "is a linked image, not a relocatable object"
                                                  : "not a relocatable object (ELF type %u)", type);
    if ((flags & ~(uint32_t)(WT_EF_IWARP | WT_EF_ANY_MODEL | WT_EF_FLOWCTL)) != 0 ||
        (flags & (WT_EF_IWARP | WT_EF_ANY_MODEL)) == (WT_EF_IWARP | WT_EF_ANY_MODEL))
        return wld_error(o->path, "unknown e_flags 0x%x", flags);
    o->model = flags & WT_EF_ANY_MODEL ? -1 : flags & WT_EF_IWARP ? WT_MODEL_IWARP : WT_MODEL_WARP;
    o->flowctl = (flags & WT_EF_FLOWCTL) != 0;
    if (ehsize != sizeof(Elf32_Ehdr)) return wld_error(o->path, "bad ELF header size %u", ehsize);
    if (*shnum == 0 || shoff == 0) return wld_error(o->path, "no section header table");
    if (shentsize != sizeof(Elf32_Shdr)) return wld_error(o->path, "bad section header size %u", shentsize);
    if (*shnum > MAX_SECTIONS) return wld_error(o->path, "too many sections (%u)", *shnum);
    if (!in_file(o, shoff, (uint64_t)*shnum * sizeof(Elf32_Shdr)))
        return wld_error(o->path, "section header table extends past the end of the file");
    if (*shstrndx == SHN_UNDEF || *shstrndx >= *shnum)
        return wld_error(o->path, "bad section name table index %u", *shstrndx);
    return 0;
}

/* Bundles must be ones the machine defines, encoded the one way wt_encode does,
 * so that relocating one (decode, patch, encode) changes only the patched field;
 * the interface unit's, ones it can issue (else the image would not load). */
static int check_bundles(wld_obj *o, const uint8_t *t, const char *sec, int iu)
{
    for (uint32_t off = 0; off < o->mem_size[WLD_TEXT]; off += WT_BUNDLE_BYTES) {
        wt_insn in;
        uint8_t again[WT_BUNDLE_BYTES];
        if (wt_decode(t + off, &in) != 0)
            return wld_error(o->path, "invalid bundle at %s+0x%x", sec, off);
        wt_encode(&in, again);
        if (memcmp(again, t + off, WT_BUNDLE_BYTES) != 0)
            return wld_error(o->path, "malformed bundle at %s+0x%x (stray bits)", sec, off);
        for (unsigned s = 0; iu && s < WT_NSLOTS; s++) {
            const char *why = wt_iu_slot_fault(&in, s);
            if (why) return wld_error(o->path, "%s+0x%x, slot %s: %s", sec, off, wt_slot_layouts[s].name, why);
        }
    }
    return 0;
}

/* "NAME in|out float|int D0 D1\n" lines; the arrays lie in .host in this order. */
static int read_host(wld_obj *o, const char *p, uint32_t size)
{
    const char *end = p + size;
    uint64_t offset = 0;
    if (size > 0 && end[-1] != '\n') return wld_error(o->path, ".warp.host does not end with a newline");
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *f[6], *fe[6];
        int n = 0;
        for (const char *q = p; n < 6;) {
            f[n] = q;
            while (q < nl && *q != ' ') q++;
            fe[n++] = q;
            if (q == nl) break;
            q++;
        }
        if (n != 5)
            return wld_error(o->path, ".warp.host: malformed line '%.*s'", (int)(nl - p), p);
        /* Names are W2 identifiers: the runtime and warp-sim's --in NAME=FILE
         * take nothing else. */
        int ok = fe[0] > f[0] && !(*f[0] >= '0' && *f[0] <= '9');
        for (const char *c = f[0]; ok && c < fe[0]; c++)
            ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_';
        ok &= (fe[1] - f[1] == 2 && memcmp(f[1], "in", 2) == 0) || (fe[1] - f[1] == 3 && memcmp(f[1], "out", 3) == 0);
        ok &= (fe[2] - f[2] == 5 && memcmp(f[2], "float", 5) == 0) || (fe[2] - f[2] == 3 && memcmp(f[2], "int", 3) == 0);
        uint64_t d[2] = {0, 0};
        for (int k = 0; k < 2; k++) {
            ok &= fe[3 + k] > f[3 + k] && fe[3 + k] - f[3 + k] <= 10;
            for (const char *c = f[3 + k]; ok && c < fe[3 + k]; c++) {
                ok &= *c >= '0' && *c <= '9';
                d[k] = d[k] * 10 + (uint64_t)(*c - '0');
            }
        }
        if (!ok || (d[0] == 0 && d[1] != 0))
            return wld_error(o->path, ".warp.host: malformed line '%.*s'", (int)(nl - p), p);
        uint64_t bytes = 4 * (d[0] == 0 ? 1 : d[0] * (d[1] ? d[1] : 1));
        if (bytes > 0xffffffffu || offset + bytes > 0xffffffffu)
            return wld_error(o->path, ".warp.host: host array '%.*s' is too large", (int)(fe[0] - f[0]), f[0]);
        for (size_t i = 0; i < o->nhost; i++)
            if (o->host[i].name_len == (size_t)(fe[0] - f[0]) && memcmp(o->host[i].name, f[0], o->host[i].name_len) == 0)
                return wld_error(o->path, ".warp.host: host array '%.*s' declared twice", (int)(fe[0] - f[0]), f[0]);
        o->host = ws_xrealloc(o->host, (o->nhost + 1) * sizeof *o->host);
        o->host[o->nhost++] = (wld_host){p, (size_t)(nl - p), f[0], (size_t)(fe[0] - f[0]),
                                         (uint32_t)offset, (uint32_t)bytes, 0};
        offset += bytes;
        p = nl + 1;
    }
    if (offset != o->mem_size[WLD_HOST])
        return wld_error(o->path, ".host is %u bytes but .warp.host declares %llu", o->mem_size[WLD_HOST],
                         (unsigned long long)offset);
    return 0;
}

static int read_cells(wld_obj *o, const char *p, uint32_t size)
{
    if (size == 0) return 0;
    const char *end = p + size;
    for (int k = 0; k < 3; k++) {
        uint64_t v = 0;
        const char *s = p;
        while (p < end && *p >= '0' && *p <= '9' && p - s < 10) v = v * 10 + (uint64_t)(*p++ - '0');
        if (p == s || v > 0x7fffffff || p == end || *p != (k < 2 ? ' ' : '\n'))
            return wld_error(o->path, ".warp.cells is not 'FIRST LAST SKEW'");
        o->cells_v[k] = (uint32_t)v;
        p++;
    }
    /* A 2-D cell array's second line, `grid W H` (docs/design.md, section 4). */
    if (p != end && end - p >= 5 && memcmp(p, "grid ", 5) == 0) {
        p += 5;
        for (int k = 3; k < 5; k++) {
            uint64_t v = 0;
            const char *s = p;
            while (p < end && *p >= '0' && *p <= '9' && p - s < 3) v = v * 10 + (uint64_t)(*p++ - '0');
            if (p == s || v < 1 || v > 32 || p == end || *p != (k < 4 ? ' ' : '\n'))
                return wld_error(o->path, ".warp.cells: expected 'grid W H' (1 to 32 cells a side) on its second line");
            o->cells_v[k] = (uint32_t)v;
            p++;
        }
        if ((uint64_t)o->cells_v[3] * o->cells_v[4] != (uint64_t)o->cells_v[1] - o->cells_v[0] + 1)
            return wld_error(o->path, ".warp.cells: a %ux%u grid is not the %u cells %u..%u", o->cells_v[3],
                             o->cells_v[4], o->cells_v[1] - o->cells_v[0] + 1, o->cells_v[0], o->cells_v[1]);
    }
    if (p != end || o->cells_v[0] > o->cells_v[1])
        return wld_error(o->path, ".warp.cells is not 'FIRST LAST SKEW'");
    if (o->cells_v[1] - o->cells_v[0] + 1 > WT_MAX_CELLS)
        return wld_error(o->path, ".warp.cells: %u cells; the array has at most %d", o->cells_v[1] - o->cells_v[0] + 1,
                         WT_MAX_CELLS);
    o->has_cells = 1;
    return 0;
}

static int read_files(wld_obj *o, const char *p, uint32_t size)
{
    if (size == 0) return 0;
    if (p[size - 1] != 0) return wld_error(o->path, ".warp.files does not end with a NUL");
    for (const char *q = p; q < p + size; q += strlen(q) + 1) {
        if (*q == 0) return wld_error(o->path, ".warp.files has an empty file name");
        o->files = ws_xrealloc(o->files, (o->nfiles + 1) * sizeof *o->files);
        o->files[o->nfiles++] = q;
    }
    return 0;
}

static int read_lines(wld_obj *o, const uint8_t *p, uint32_t size)
{
    if (size % 16 != 0) return wld_error(o->path, ".warp.lines size %u is not a multiple of 16", size);
    uint32_t prev = 0;
    for (uint32_t i = 0; i < size / 16; i++) {
        uint32_t addr = wld_get32(p + 16 * i), file = wld_get32(p + 16 * i + 12);
        if (addr % WT_BUNDLE_BYTES != 0 || addr >= o->mem_size[WLD_TEXT])
            return wld_error(o->path, ".warp.lines record %u: address 0x%x is not a bundle of .text", i, addr);
        if (addr < prev) return wld_error(o->path, ".warp.lines record %u is out of address order", i);
        if (file >= o->nfiles)
            return wld_error(o->path, ".warp.lines record %u: file index %u, but .warp.files has %u", i, file, o->nfiles);
        prev = addr;
    }
    o->lines = p;
    o->nlines = size / 16;
    return 0;
}

/* .warp.gates (optional): the statements of receives and sends that are not
 * their bundle's line record's, for flow-control diagnostics. */
static int read_gates(wld_obj *o, const uint8_t *p, uint32_t size)
{
    if (size % 16 != 0) return wld_error(o->path, ".warp.gates size %u is not a multiple of 16", size);
    for (uint32_t i = 0; i < size / 16; i++) {
        uint32_t addr = wld_get32(p + 16 * i), info = wld_get32(p + 16 * i + 12);
        if (addr % WT_BUNDLE_BYTES != 0 || addr >= o->mem_size[WLD_TEXT])
            return wld_error(o->path, ".warp.gates record %u: address 0x%x is not a bundle of .text", i, addr);
        if ((info & 0xffff) >= o->nfiles || (info >> 16 & 0xff) >= WT_NQUEUES || info >> 24 > 1)
            return wld_error(o->path, ".warp.gates record %u: bad file, queue or kind (0x%x)", i, info);
    }
    o->gates = p;
    o->ngates = size / 16;
    return 0;
}

static int read_symbols(wld_obj *o, Elf_Scn *scn, const GElf_Shdr *sh, const GElf_Shdr *strsh, size_t shnum)
{
    const char *strtab = o->buf + strsh->sh_offset;
    uint32_t strsize = (uint32_t)strsh->sh_size;
    if (strsh->sh_type != SHT_STRTAB || strsize == 0 || strtab[strsize - 1] != 0)
        return wld_error(o->path, "bad symbol string table");
    if (sh->sh_entsize != sizeof(Elf32_Sym) || sh->sh_size % sizeof(Elf32_Sym) != 0)
        return wld_error(o->path, "bad symbol table entry size");
    size_t n = sh->sh_size / sizeof(Elf32_Sym);
    if (sh->sh_info > n) return wld_error(o->path, "symbol table: first global %u is past its %zu entries", (unsigned)sh->sh_info, n);
    Elf_Data *d = elf_getdata(scn, NULL);
    if (n > 0 && (!d || d->d_size < n * sizeof(Elf32_Sym))) return wld_error(o->path, "cannot read the symbol table: %s", elf_errmsg(-1));
    o->syms = ws_xcalloc(n ? n : 1, sizeof *o->syms);
    o->nsyms = n;
    for (size_t i = 0; i < n; i++) {
        GElf_Sym s;
        if (!gelf_getsym(d, (int)i, &s)) return wld_error(o->path, "cannot read symbol %zu: %s", i, elf_errmsg(-1));
        wld_sym *y = &o->syms[i];
        if (s.st_name >= strsize) return wld_error(o->path, "symbol %zu: name offset %u is past the string table", i, s.st_name);
        y->name = strtab + s.st_name;
        y->value = (uint32_t)s.st_value;
        y->size = (uint32_t)s.st_size;
        y->bind = GELF_ST_BIND(s.st_info);
        y->type = GELF_ST_TYPE(s.st_info);
        if (i == 0) {
            y->sec = WLD_UNDEF;
            continue;
        }
        if (y->bind != STB_LOCAL && y->bind != STB_GLOBAL)
            return wld_error(o->path, "symbol '%s': binding %u is not supported", y->name, y->bind);
        if ((y->bind == STB_LOCAL) != (i < sh->sh_info))
            return wld_error(o->path, "symbol '%s': %s symbol on the wrong side of the first global",
                             y->name, y->bind == STB_LOCAL ? "local" : "global");
        if (y->type > STT_FILE) return wld_error(o->path, "symbol '%s': type %u is not supported", y->name, y->type);
        /* The image keeps functions and objects where their type says they are:
         * the runtime looks functions up in program memory. */
        if (y->type == STT_FILE && s.st_shndx != SHN_ABS)
            return wld_error(o->path, "file symbol '%s' is not absolute", y->name);
        if (s.st_shndx == SHN_COMMON) return wld_error(o->path, "symbol '%s': common symbols are not supported", y->name);
        y->sec = s.st_shndx == SHN_UNDEF ? WLD_UNDEF : s.st_shndx == SHN_ABS ? WLD_ABS : WLD_OTHER;
        for (int m = 0; m < WLD_NMEM; m++)
            if (o->mem_index[m] && s.st_shndx == o->mem_index[m]) y->sec = m;
        y->dbg = -1;
        for (size_t k = 0; k < o->ndbg; k++)
            if (y->type == STT_SECTION && s.st_shndx == o->dbg[k].index) y->dbg = (int)k;
        /* Section symbols may name sections that hold no memory (gas writes
         * them); anything else there could not be given an address. */
        if (y->sec == WLD_OTHER && (s.st_shndx >= shnum || y->type != STT_SECTION))
            return wld_error(o->path, "symbol '%s' is defined in section %u, which holds no memory", y->name, s.st_shndx);
        if (y->sec == WLD_UNDEF && y->bind == STB_LOCAL)
            return wld_error(o->path, "local symbol '%s' is undefined", y->name);
        if (y->sec >= 0 && y->value > o->mem_size[y->sec])
            return wld_error(o->path, "symbol '%s': value 0x%x is past the end of its section", y->name, y->value);
        if (y->sec >= 0 && y->size > o->mem_size[y->sec] - y->value)
            return wld_error(o->path, "symbol '%s': its %u bytes from 0x%x run past the end of its section", y->name,
                             y->size, y->value);
        if (y->type == STT_FUNC && y->sec != WLD_TEXT && y->sec != WLD_UNDEF)
            return wld_error(o->path, "function symbol '%s' is not in .text", y->name);
        if (y->sec == WLD_TEXT && y->value % WT_BUNDLE_BYTES != 0)
            return wld_error(o->path, "symbol '%s': 0x%x is not the start of a bundle", y->name, y->value);
    }
    return 0;
}

static int read_relocs(wld_obj *o, Elf_Scn *scn, const GElf_Shdr *sh, int which)
{
    if (sh->sh_entsize != sizeof(Elf32_Rela) || sh->sh_size % sizeof(Elf32_Rela) != 0)
        return wld_error(o->path, "bad relocation entry size");
    static const char *const names[3] = {".text", ".data", ".warp.iu"};
    if (o->rel[which]) return wld_error(o->path, "more than one relocation section for %s", names[which]);
    size_t n = sh->sh_size / sizeof(Elf32_Rela);
    Elf_Data *d = elf_getdata(scn, NULL);
    if (n > 0 && (!d || d->d_size < n * sizeof(Elf32_Rela))) return wld_error(o->path, "cannot read relocations: %s", elf_errmsg(-1));
    o->rel[which] = ws_xcalloc(n ? n : 1, sizeof(wld_rel));
    o->nrel[which] = n;
    uint32_t limit = o->mem_size[which == 1 ? WLD_DATA : WLD_TEXT];
    for (size_t i = 0; i < n; i++) {
        GElf_Rela r;
        if (!gelf_getrela(d, (int)i, &r)) return wld_error(o->path, "cannot read relocation %zu: %s", i, elf_errmsg(-1));
        wld_rel *x = &o->rel[which][i];
        x->offset = (uint32_t)r.r_offset;
        x->type = GELF_R_TYPE(r.r_info);
        x->sym = GELF_R_SYM(r.r_info);
        x->addend = (int32_t)r.r_addend;
        const char *sec = names[which];
        if (x->sym >= o->nsyms)
            return wld_error(o->path, "relocation %zu in %s: symbol index %u is past the symbol table", i, sec, x->sym);
        const wld_sym *y = &o->syms[x->sym];
        if (y->sec == WLD_OTHER)
            return wld_error(o->path, "relocation %zu in %s refers to a section that holds no memory", i, sec);
        /* Host arrays are placed one by one when objects share them, so only an
         * array's own symbol says where an address lands. */
        if (y->sec == WLD_HOST && y->type == STT_SECTION)
            return wld_error(o->path, "relocation %zu in %s is against the .host section, not a host array", i, sec);
        int ok = which == 1 ? (x->type == WT_R_NONE || x->type == WT_R_ABS32)
                 : which == 2 ? (x->type == WT_R_NONE || x->type == WT_R_IMM0 || x->type == WT_R_IMM1)
                              : (x->type == WT_R_NONE || x->type == WT_R_IMM0 || x->type == WT_R_IMM1 ||
                                 x->type == WT_R_TARGET);
        if (!ok) return wld_error(o->path, "relocation %zu in %s: type %u does not apply there", i, sec, x->type);
        if (which == 1 ? x->offset > limit || limit - x->offset < 4 : x->offset >= limit)
            return wld_error(o->path, "relocation %zu: offset 0x%x is outside %s (%u bytes)", i, x->offset, sec, limit);
        if (which != 1 && x->offset % WT_BUNDLE_BYTES != 0)
            return wld_error(o->path, "relocation %zu: offset 0x%x in %s is not the start of a bundle", i, x->offset, sec);
    }
    return 0;
}

/* The image names each host array's address by its symbol (the runtime finds it
 * there), so every array .warp.host declares must have one, where it lies. */
static int check_host_symbols(const wld_obj *o)
{
    for (size_t k = 0; k < o->nhost; k++) {
        const wld_host *h = &o->host[k];
        int found = 0;
        for (size_t i = 1; i < o->nsyms && !found; i++) {
            const wld_sym *y = &o->syms[i];
            found = y->sec == WLD_HOST && y->type != STT_SECTION && strlen(y->name) == h->name_len &&
                    memcmp(y->name, h->name, h->name_len) == 0 && y->value == h->offset;
        }
        if (!found)
            return wld_error(o->path, "host array '%.*s' has no symbol at its place in .host (0x%x)",
                             (int)h->name_len, h->name, h->offset);
    }
    return 0;
}

/* A debug section's relocations: Elf32_Rel entries read from the file's bytes
 * (the section type is the toolchain's own, which libelf does not convert). */
static int read_debug_relocs(wld_obj *o, const GElf_Shdr *sh, const char *name, wld_dbgsec *d)
{
    if (sh->sh_entsize != sizeof(Elf32_Rel) || sh->sh_size % sizeof(Elf32_Rel) != 0)
        return wld_error(o->path, "%s: bad relocation entry size", name);
    if (d->rel) return wld_error(o->path, "more than one relocation section for %s", d->name);
    size_t n = sh->sh_size / sizeof(Elf32_Rel);
    const uint8_t *p = (const uint8_t *)o->buf + sh->sh_offset;
    d->rel = ws_xcalloc(n ? n : 1, sizeof *d->rel);
    d->nrel = n;
    for (size_t i = 0; i < n; i++, p += sizeof(Elf32_Rel)) {
        wld_rel *x = &d->rel[i];
        uint32_t info = wld_get32(p + 4);
        x->offset = wld_get32(p);
        x->type = ELF32_R_TYPE(info);
        x->sym = ELF32_R_SYM(info);
        if (x->type != WT_R_NONE && x->type != WT_R_ABS32)
            return wld_error(o->path, "relocation %zu in %s: type %u does not apply there", i, d->name, x->type);
        if (x->offset > d->size || d->size - x->offset < 4)
            return wld_error(o->path, "relocation %zu: offset 0x%x is outside %s", i, x->offset, d->name);
        if (x->sym >= o->nsyms)
            return wld_error(o->path, "relocation %zu in %s: symbol index %u is past the symbol table", i, d->name, x->sym);
        const wld_sym *y = &o->syms[x->sym];
        if (y->sec == WLD_OTHER && y->dbg < 0)
            return wld_error(o->path, "relocation %zu in %s refers to a section that is neither memory nor debug information",
                             i, d->name);
        if (y->sec == WLD_HOST && y->type == STT_SECTION)
            return wld_error(o->path, "relocation %zu in %s is against the .host section, not a host array", i, d->name);
    }
    return 0;
}

int wld_read_object(wld_obj *o, const char *path)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    char err[512];
    o->buf = ws_read_file(path, &o->size, MAX_OBJECT_BYTES, err, sizeof err);
    if (!o->buf) return wld_error(path, "%s", err);
    uint16_t shnum = 0, shstrndx = 0;
    if (check_header(o, &shnum, &shstrndx) != 0) return -1;
    if (elf_version(EV_CURRENT) == EV_NONE) return wld_error(path, "libelf: %s", elf_errmsg(-1));
    o->elf = elf_memory(o->buf, o->size);
    if (!o->elf || elf_kind(o->elf) != ELF_K_ELF) return wld_error(path, "cannot read ELF: %s", elf_errmsg(-1));
    size_t n;
    if (elf_getshdrnum(o->elf, &n) != 0 || n != shnum) return wld_error(path, "inconsistent section count");

    GElf_Shdr *sh = ws_xcalloc(n, sizeof *sh);
    int rc = -1;
    for (size_t i = 0; i < n; i++) {
        Elf_Scn *scn = elf_getscn(o->elf, i);
        if (!scn || !gelf_getshdr(scn, &sh[i])) {
            wld_error(path, "cannot read section header %zu: %s", i, elf_errmsg(-1));
            goto out;
        }
        if (i > 0 && sh[i].sh_type != SHT_NOBITS && sh[i].sh_type != SHT_NULL &&
            !in_file(o, sh[i].sh_offset, sh[i].sh_size)) {
            wld_error(path, "section %zu extends past the end of the file", i);
            goto out;
        }
        if (!is_pow2_or_0((uint32_t)sh[i].sh_addralign)) {
            wld_error(path, "section %zu: alignment %u is not a power of two", i, (unsigned)sh[i].sh_addralign);
            goto out;
        }
    }
    const GElf_Shdr *ssh = &sh[shstrndx];
    const char *shstr = o->buf + ssh->sh_offset;
    if (ssh->sh_type != SHT_STRTAB || ssh->sh_size == 0 || shstr[ssh->sh_size - 1] != 0) {
        wld_error(path, "bad section name table");
        goto out;
    }

    static const char *const mem_names[WLD_NMEM] = {".text", ".data", ".bss", ".host"};
    static const uint32_t mem_types[WLD_NMEM] = {SHT_PROGBITS, SHT_PROGBITS, SHT_NOBITS, SHT_NOBITS};
    static const char *const warp_names[5] = {".warp.host", ".warp.cells", ".warp.lines", ".warp.files",
                                              ".warp.gates"};
    size_t warp_index[5] = {0, 0, 0, 0, 0}, symtab = 0;
    for (size_t i = 1; i < n; i++) {
        if (sh[i].sh_name >= ssh->sh_size) {
            wld_error(path, "section %zu: name offset %u is past the section name table", i, sh[i].sh_name);
            goto out;
        }
        const char *name = shstr + sh[i].sh_name;
        int known = 0;
        for (int m = 0; m < WLD_NMEM; m++) {
            if (strcmp(name, mem_names[m]) != 0) continue;
            known = 1;
            if (o->mem_index[m]) { wld_error(path, "more than one %s section", name); goto out; }
            if (sh[i].sh_type != mem_types[m]) { wld_error(path, "%s has section type %u", name, sh[i].sh_type); goto out; }
            if (sh[i].sh_size > 0xffffffffu || sh[i].sh_addralign > WLD_MAX_ALIGN) {
                wld_error(path, "%s is too large or too aligned", name);
                goto out;
            }
            o->mem_index[m] = (unsigned)i;
            o->mem_size[m] = (uint32_t)sh[i].sh_size;
            o->mem_align[m] = sh[i].sh_addralign > 4 ? (uint32_t)sh[i].sh_addralign : 4;
            o->mem[m] = mem_types[m] == SHT_PROGBITS ? (const uint8_t *)o->buf + sh[i].sh_offset : NULL;
        }
        for (int w = 0; w < 5; w++) {
            if (strcmp(name, warp_names[w]) != 0) continue;
            known = 1;
            if (warp_index[w]) { wld_error(path, "more than one %s section", name); goto out; }
            if (sh[i].sh_type != SHT_PROGBITS) { wld_error(path, "%s has section type %u", name, sh[i].sh_type); goto out; }
            warp_index[w] = i;
        }
        if (strcmp(name, ".warp.iu") == 0) {
            known = 1;
            if (o->iu_index) { wld_error(path, "more than one %s section", name); goto out; }
            if (sh[i].sh_type != SHT_PROGBITS) { wld_error(path, "%s has section type %u", name, sh[i].sh_type); goto out; }
            o->iu_index = (unsigned)i;
            o->iu = (const uint8_t *)o->buf + sh[i].sh_offset;
        }
        if (strcmp(name, ".warp.iutab") == 0) {
            known = 1;
            if (o->iutab) { wld_error(path, "more than one %s section", name); goto out; }
            if (sh[i].sh_type != SHT_PROGBITS) { wld_error(path, "%s has section type %u", name, sh[i].sh_type); goto out; }
            uint32_t most = wt_model_get(WT_MODEL_WARP)->iu_table_words;
            if (sh[i].sh_size % 4 || sh[i].sh_size > (uint64_t)most * 4) {
                wld_error(path, "%s has %llu bytes: the interface unit's address table holds up to %u 32-bit entries",
                          name, (unsigned long long)sh[i].sh_size, most);
                goto out;
            }
            o->iutab = (const uint8_t *)o->buf + sh[i].sh_offset;
            o->iutab_size = (uint32_t)sh[i].sh_size;
        }
        if (strncmp(name, ".debug_", 7) == 0 && name[7] && !(sh[i].sh_flags & SHF_ALLOC)) {
            known = 1;
            if (sh[i].sh_type != SHT_PROGBITS || sh[i].sh_size > 0xffffffffu) {
                wld_error(path, "%s has section type %u", name, sh[i].sh_type);
                goto out;
            }
            for (size_t k = 0; k < o->ndbg; k++)
                if (strcmp(o->dbg[k].name, name) == 0) { wld_error(path, "more than one %s section", name); goto out; }
            o->dbg = ws_xrealloc(o->dbg, (o->ndbg + 1) * sizeof *o->dbg);
            o->dbg[o->ndbg++] = (wld_dbgsec){name, (const uint8_t *)o->buf + sh[i].sh_offset,
                                             (uint32_t)sh[i].sh_size, (unsigned)i, NULL, 0, 0};
        }
        if (sh[i].sh_type == SHT_SYMTAB) {
            if (symtab) { wld_error(path, "more than one symbol table"); goto out; }
            symtab = i;
        } else if (sh[i].sh_type == SHT_REL) {
            wld_error(path, "%s: REL relocations are not supported (RELA only)", name);
            goto out;
        } else if (!known && (sh[i].sh_flags & SHF_ALLOC)) {
            wld_error(path, "unsupported section '%s'", name);
            goto out;
        }
    }
    if (o->mem_size[WLD_TEXT] % WT_BUNDLE_BYTES != 0) {
        wld_error(path, ".text size %u is not a whole number of %d-byte bundles", o->mem_size[WLD_TEXT], WT_BUNDLE_BYTES);
        goto out;
    }
    if (o->iu_index && sh[o->iu_index].sh_size != o->mem_size[WLD_TEXT]) {
        wld_error(path, ".warp.iu has %llu bytes, not the %u of .text it runs beside", (unsigned long long)sh[o->iu_index].sh_size,
                  o->mem_size[WLD_TEXT]);
        goto out;
    }
    if (!symtab) { wld_error(path, "no symbol table"); goto out; }
    if (sh[symtab].sh_link == 0 || sh[symtab].sh_link >= n) { wld_error(path, "symbol table has no string table"); goto out; }
    if (check_bundles(o, o->mem[WLD_TEXT], ".text", 0) != 0) goto out;
    if (o->iu && check_bundles(o, o->iu, ".warp.iu", 1) != 0) goto out;
    if (read_symbols(o, elf_getscn(o->elf, symtab), &sh[symtab], &sh[sh[symtab].sh_link], n) != 0) goto out;

    for (size_t i = 1; i < n; i++) {
        if (sh[i].sh_type != SHT_RELA) continue;
        int which = -1;
        if (sh[i].sh_info != 0 && sh[i].sh_info == o->mem_index[WLD_TEXT]) which = 0;
        if (sh[i].sh_info != 0 && sh[i].sh_info == o->mem_index[WLD_DATA]) which = 1;
        if (sh[i].sh_info != 0 && sh[i].sh_info == o->iu_index) which = 2;
        if (which < 0) {
            wld_error(path, "%s relocates section %u, which is not .text or .data", shstr + sh[i].sh_name, (unsigned)sh[i].sh_info);
            goto out;
        }
        if (sh[i].sh_link != symtab) { wld_error(path, "%s does not use the symbol table", shstr + sh[i].sh_name); goto out; }
        if (read_relocs(o, elf_getscn(o->elf, i), &sh[i], which) != 0) goto out;
    }
    for (size_t i = 1; i < n; i++) {
        if (sh[i].sh_type != WT_SHT_DEBUG_REL) continue;
        const char *name = shstr + sh[i].sh_name;
        size_t k = 0;
        while (k < o->ndbg && o->dbg[k].index != sh[i].sh_info) k++;
        if (k == o->ndbg) {
            wld_error(path, "%s relocates section %u, which is not a debug section", name, (unsigned)sh[i].sh_info);
            goto out;
        }
        if (sh[i].sh_link != symtab) { wld_error(path, "%s does not use the symbol table", name); goto out; }
        if (read_debug_relocs(o, &sh[i], name, &o->dbg[k]) != 0) goto out;
    }

    const char *w[5];
    uint32_t wsize[5];
    for (int k = 0; k < 5; k++) {
        w[k] = warp_index[k] ? o->buf + sh[warp_index[k]].sh_offset : "";
        wsize[k] = warp_index[k] ? (uint32_t)sh[warp_index[k]].sh_size : 0;
    }
    if (read_host(o, w[0], wsize[0]) != 0 || read_cells(o, w[1], wsize[1]) != 0 ||
        read_files(o, w[3], wsize[3]) != 0 || read_lines(o, (const uint8_t *)w[2], wsize[2]) != 0 ||
        read_gates(o, (const uint8_t *)w[4], wsize[4]) != 0)
        goto out;
    if (check_host_symbols(o) != 0) goto out;
    rc = 0;
out:
    free(sh);
    return rc;
}

void wld_free_object(wld_obj *o)
{
    if (o->elf) elf_end(o->elf);
    free(o->buf);
    free(o->syms);
    free(o->rel[0]);
    free(o->rel[1]);
    free(o->rel[2]);
    free(o->host);
    free(o->files);
    for (size_t k = 0; k < o->ndbg; k++) free(o->dbg[k].rel);
    free(o->dbg);
    memset(o, 0, sizeof *o);
}
