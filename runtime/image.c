/* Loading a cell image (docs/design.md, section 4). The image comes from outside the
 * toolchain's control as often as not, so every size, offset, index and string is
 * checked before it is used, and every failure is a one-line reason, never a crash.
 * The whole file is read into memory first: libelf parses headers from that copy,
 * and section contents are taken straight from it once their bounds are checked. */
#include "warp_runtime.h"

#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "warp_support.h"

#define MAX_IMAGE_BYTES (256u << 20)
/* Host memory is allocated whole by the simulator; a corrupt .host size must not
 * ask for gigabytes. */
#define MAX_HOST_BYTES WT_MAX_HOST_BYTES
#define LINE_RECORD_BYTES 16

typedef struct loader {
    char *buf;
    size_t len;
    Elf *elf;
    size_t shnum, shstrndx;
    char *err;
    size_t errlen;
    wrt_image *img;
    size_t text_idx, host_idx, symtab_idx; /* 0 when absent */
    uint32_t text_bytes;
    int has_timing;              /* .warp.cells gave the linker's timing fingerprint */
    uint64_t timing;
} loader;

static int fail(loader *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(loader *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(L->err, L->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- Headers and sections ------------------------------------------------------- */

static int check_header(loader *L)
{
    const unsigned char *id = (const unsigned char *)L->buf;
    if (L->len < EI_NIDENT || memcmp(id, ELFMAG, SELFMAG) != 0) return fail(L, "not an ELF file");
    if (id[EI_CLASS] != ELFCLASS32) return fail(L, "not a 32-bit ELF file");
    if (id[EI_DATA] != ELFDATA2LSB) return fail(L, "not a little-endian ELF file");
    if (L->len < sizeof(Elf32_Ehdr)) return fail(L, "truncated ELF header (%zu bytes)", L->len);
    L->elf = elf_memory(L->buf, L->len);
    if (!L->elf || elf_kind(L->elf) != ELF_K_ELF) return fail(L, "not an ELF file: %s", elf_errmsg(-1));
    GElf_Ehdr eh;
    if (!gelf_getehdr(L->elf, &eh)) return fail(L, "bad ELF header: %s", elf_errmsg(-1));
    if (eh.e_machine != WT_EM_WARP)
        return fail(L, "not a Warp image (e_machine 0x%x, expected 0x%x)", (unsigned)eh.e_machine, WT_EM_WARP);
    if (eh.e_type != ET_EXEC)
        return fail(L, "not an executable image (e_type %u%s)", (unsigned)eh.e_type,
                    eh.e_type == ET_REL ? ", a relocatable object: link it first" : "");
    if (eh.e_flags & ~(GElf_Word)(WT_EF_IWARP | WT_EF_FLOWCTL)) return fail(L, "unknown e_flags 0x%x", (unsigned)eh.e_flags);
    L->img->model = wt_model_get(eh.e_flags & WT_EF_IWARP ? WT_MODEL_IWARP : WT_MODEL_WARP);
    L->img->flow_controlled = (eh.e_flags & WT_EF_FLOWCTL) != 0;

    /* libelf reads the tables lazily and trusts their placement: check it first. */
    if (eh.e_shnum == 0 || eh.e_shoff == 0) return fail(L, "no section headers");
    if (eh.e_shentsize != sizeof(Elf32_Shdr)) return fail(L, "bad section header size %u", (unsigned)eh.e_shentsize);
    if ((uint64_t)eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize > L->len)
        return fail(L, "truncated: section headers end past the end of the file (%zu bytes)", L->len);
    if (eh.e_phnum) {
        if (eh.e_phentsize != sizeof(Elf32_Phdr))
            return fail(L, "bad program header size %u", (unsigned)eh.e_phentsize);
        if ((uint64_t)eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize > L->len)
            return fail(L, "truncated: program headers end past the end of the file (%zu bytes)", L->len);
    }
    if (elf_getshdrnum(L->elf, &L->shnum) != 0 || L->shnum != eh.e_shnum)
        return fail(L, "bad section header table: %s", elf_errmsg(-1));
    if (elf_getshdrstrndx(L->elf, &L->shstrndx) != 0 || L->shstrndx == 0 || L->shstrndx >= L->shnum)
        return fail(L, "no section name table");
    return 0;
}

static int get_shdr(loader *L, size_t idx, GElf_Shdr *sh)
{
    Elf_Scn *scn = elf_getscn(L->elf, idx);
    if (!scn || !gelf_getshdr(scn, sh)) return fail(L, "cannot read section header %zu: %s", idx, elf_errmsg(-1));
    return 0;
}

/* Every section's contents must lie in the file before any name or data is read. */
static int check_section_bounds(loader *L)
{
    for (size_t i = 1; i < L->shnum; i++) {
        GElf_Shdr sh;
        if (get_shdr(L, i, &sh)) return -1;
        /* Even an SHT_NULL section: the loader finds sections by name. */
        if (sh.sh_type == SHT_NOBITS) continue;
        if ((uint64_t)sh.sh_offset + sh.sh_size > L->len)
            return fail(L, "truncated: section %zu (offset %llu, %llu bytes) ends past the end of the file (%zu bytes)",
                        i, (unsigned long long)sh.sh_offset, (unsigned long long)sh.sh_size, L->len);
    }
    GElf_Shdr sh;
    if (get_shdr(L, L->shstrndx, &sh)) return -1;
    if (sh.sh_type != SHT_STRTAB || sh.sh_size == 0 || L->buf[sh.sh_offset + sh.sh_size - 1] != 0)
        return fail(L, "bad section name table");
    return 0;
}

static const char *section_name(loader *L, size_t idx, const GElf_Shdr *sh)
{
    const char *name = elf_strptr(L->elf, L->shstrndx, sh->sh_name);
    if (!name) fail(L, "section %zu has a bad name", idx);
    return name;
}

static const unsigned char *contents(loader *L, const GElf_Shdr *sh)
{
    return (const unsigned char *)L->buf + sh->sh_offset;
}

/* ---- Program and data memory ---------------------------------------------------- */

static int load_text(loader *L, const GElf_Shdr *sh)
{
    wrt_image *img = L->img;
    if (sh->sh_type != SHT_PROGBITS) return fail(L, "section .text is not PROGBITS");
    if (sh->sh_addr != 0) return fail(L, "section .text is at program address 0x%llx, not 0",
                                      (unsigned long long)sh->sh_addr);
    if (sh->sh_size % WT_BUNDLE_BYTES != 0)
        return fail(L, "section .text has %llu bytes, not a multiple of the %d-byte bundle",
                    (unsigned long long)sh->sh_size, WT_BUNDLE_BYTES);
    uint64_t n = sh->sh_size / WT_BUNDLE_BYTES;
    if (n == 0) return fail(L, "section .text is empty");
    if (n > img->model->prog_mem_bundles)
        return fail(L, "program of %llu bundles does not fit %s program memory (%u bundles)",
                    (unsigned long long)n, img->model->name, img->model->prog_mem_bundles);
    img->ncode = (uint32_t)n;
    L->text_bytes = (uint32_t)sh->sh_size;
    img->code = ws_xcalloc(n, sizeof *img->code);
    const unsigned char *p = contents(L, sh);
    for (uint32_t i = 0; i < img->ncode; i++)
        if (wt_decode(p + (size_t)i * WT_BUNDLE_BYTES, &img->code[i]) != 0)
            return fail(L, "bundle %u does not decode", i);
    return 0;
}

/* The data memory image: every allocated section that is not program, at its
 * address less WT_DATA_SPACE. */
static int load_data(loader *L)
{
    wrt_image *img = L->img;
    uint32_t limit = img->model->data_mem_bytes;
    img->data = ws_xcalloc(limit, 1);
    for (size_t i = 1; i < L->shnum; i++) {
        GElf_Shdr sh;
        if (get_shdr(L, i, &sh)) return -1;
        if (!(sh.sh_flags & SHF_ALLOC) || i == L->text_idx) continue;
        const char *name = section_name(L, i, &sh);
        if (!name) return -1;
        if (sh.sh_flags & SHF_EXECINSTR) return fail(L, "program section %s besides .text", name);
        if (sh.sh_type != SHT_PROGBITS && sh.sh_type != SHT_NOBITS)
            return fail(L, "allocated section %s is neither PROGBITS nor NOBITS", name);
        if (sh.sh_addr < WT_DATA_SPACE || sh.sh_addr - WT_DATA_SPACE + sh.sh_size > limit)
            return fail(L, "section %s (address 0x%llx, %llu bytes) does not fit %s data memory (%u bytes at 0x%x)",
                        name, (unsigned long long)sh.sh_addr, (unsigned long long)sh.sh_size,
                        img->model->name, limit, WT_DATA_SPACE);
        uint32_t addr = (uint32_t)(sh.sh_addr - WT_DATA_SPACE), end = addr + (uint32_t)sh.sh_size;
        if (end > img->data_size) img->data_size = end;
        if (sh.sh_type == SHT_PROGBITS && sh.sh_size) memcpy(img->data + addr, contents(L, &sh), sh.sh_size);
    }
    return 0;
}

/* ---- The .warp.* sections --------------------------------------------------------- */

/* A section's text, NUL-terminated, for line parsing. */
static char *section_text(loader *L, const GElf_Shdr *sh)
{
    if (sh->sh_type == SHT_NOBITS) return ws_xstrdup("");
    return ws_xstrndup((const char *)contents(L, sh), sh->sh_size);
}

/* An unsigned decimal number no larger than max; advances *p. */
static int parse_uint(const char **p, uint32_t max, uint32_t *out)
{
    const char *s = *p;
    if (*s < '0' || *s > '9') return -1;
    uint64_t v = 0;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (uint64_t)(*s++ - '0');
        if (v > max) return -1;
    }
    *out = (uint32_t)v;
    *p = s;
    return 0;
}

static void skip_blanks(const char **p)
{
    while (**p == ' ' || **p == '\t') (*p)++;
}

static int load_cells(loader *L, const GElf_Shdr *sh)
{
    char *text = section_text(L, sh);
    const char *p = text;
    uint32_t v[3];
    int bad = 0;
    int negative = 0;
    for (int i = 0; i < 3 && !bad; i++) {
        skip_blanks(&p);
        /* the skew may be negative: the last cell starts first (data flowing left) */
        if (i == 2 && *p == '-') negative = *p++ == '-';
        bad = parse_uint(&p, INT32_MAX, &v[i]) != 0;
    }
    /* A flow-controlled image's fourth field: what the linker timed, 16 hex digits. */
    if (!bad && (*p == ' ' || *p == '\t')) {
        skip_blanks(&p);
        if (*p != '\n' && *p) {
            L->has_timing = 1;
            for (int i = 0; i < 16 && !bad; i++, p++) {
                int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
                bad = d < 0;
                L->timing = L->timing << 4 | (uint64_t)(d & 15);
            }
        }
    }
    if (!bad) {
        skip_blanks(&p);
        if (*p == '\n') p++;
    }
    /* A 2-D cellprogram's second line: its cells form a W x H grid on the torus. */
    uint32_t grid[2] = {0, 0};
    int bad_grid = 0;
    if (!bad && strncmp(p, "grid ", 5) == 0) {
        p += 5;
        for (int i = 0; i < 2 && !bad_grid; i++) {
            skip_blanks(&p);
            bad_grid = parse_uint(&p, WCA_MAX_SIDE, &grid[i]) != 0 || grid[i] == 0;
        }
        skip_blanks(&p);
        if (*p == '\n') p++;
    }
    if (!bad) bad = *p != 0;
    free(text);
    if (bad_grid) return fail(L, "bad .warp.cells: expected 'grid W H' (1 to %d cells a side) on its second line",
                              WCA_MAX_SIDE);
    if (bad) return fail(L, "bad .warp.cells: expected one line 'FIRST LAST SKEW'");
    if (v[0] > v[1]) return fail(L, "bad .warp.cells: first cell %u after last cell %u", v[0], v[1]);
    if ((uint64_t)v[1] - v[0] + 1 > WSIM_MAX_CELLS)
        return fail(L, "bad .warp.cells: %llu cells, at most %d", (unsigned long long)v[1] - v[0] + 1, WSIM_MAX_CELLS);
    if (grid[0] && (uint64_t)grid[0] * grid[1] != (uint64_t)v[1] - v[0] + 1)
        return fail(L, "bad .warp.cells: a %ux%u grid is not the %llu cells %u..%u", grid[0], grid[1],
                    (unsigned long long)v[1] - v[0] + 1, v[0], v[1]);
    if (grid[0] && !L->img->model->logical_channels)
        return fail(L, "bad .warp.cells: a grid of cells needs an iWarp image (the Warp array is linear)");
    L->img->grid_width = (int)grid[0];
    L->img->grid_height = (int)grid[1];
    if (grid[0]) {
        /* A 2-D cellprogram runs on its own torus, the host at the edges. */
        wca_config_default(&L->img->grid_comm);
        L->img->grid_comm.topology = WCA_TORUS;
        L->img->grid_comm.width = (int)grid[0];
        L->img->grid_comm.height = (int)grid[1];
        L->img->grid_comm.host_edges = 1;
    }
    L->img->first_cell = (int)v[0];
    L->img->last_cell = (int)v[1];
    L->img->skew = negative ? -(int32_t)v[2] : (int32_t)v[2];
    return 0;
}

static int is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

/* A word of a .warp.host line: the characters up to the next blank or newline. */
static size_t word_len(const char *p)
{
    size_t n = 0;
    while (p[n] && p[n] != ' ' && p[n] != '\t' && p[n] != '\n') n++;
    return n;
}

static int word_is(const char *p, size_t n, const char *w) { return strlen(w) == n && memcmp(p, w, n) == 0; }

static int load_host_decls(loader *L, const GElf_Shdr *sh)
{
    wrt_image *img = L->img;
    char *text = section_text(L, sh);
    const char *p = text;
    size_t cap = 0;
    int line = 0, rc = 0;
    while (*p && rc == 0) {
        line++;
        wrt_host_array a = {0};
        skip_blanks(&p);
        size_t n = word_len(p);
        int ok = n > 0 && is_ident_start(p[0]);
        for (size_t i = 0; ok && i < n; i++) ok = is_ident_char(p[i]);
        if (ok) a.name = ws_xstrndup(p, n);
        p += n;
        skip_blanks(&p);
        n = word_len(p);
        if (ok && (word_is(p, n, "in") || word_is(p, n, "out"))) a.is_out = n == 3;
        else ok = 0;
        p += n;
        skip_blanks(&p);
        n = word_len(p);
        if (ok && (word_is(p, n, "float") || word_is(p, n, "int"))) a.is_float = n == 5;
        else ok = 0;
        p += n;
        for (int d = 0; d < 2 && ok; d++) {
            skip_blanks(&p);
            ok = parse_uint(&p, INT32_MAX, &a.dims[d]) == 0;
        }
        skip_blanks(&p);
        if (ok && *p != '\n' && *p != 0) ok = 0;
        if (*p == '\n') p++;
        if (ok && a.dims[0] == 0 && a.dims[1] != 0) ok = 0;
        uint64_t nelems = a.dims[0] == 0 ? 1 : (uint64_t)a.dims[0] * (a.dims[1] ? a.dims[1] : 1);
        if (!ok || nelems > UINT32_MAX / 4) {
            rc = fail(L, "bad .warp.host line %d: expected 'NAME in|out float|int D0 D1'", line);
            free(a.name);
            break;
        }
        a.nelems = (uint32_t)nelems;
        for (size_t i = 0; i < img->nhost; i++)
            if (strcmp(img->host[i].name, a.name) == 0) rc = fail(L, "host array '%s' is declared twice", a.name);
        if (img->nhost == cap) {
            cap = cap ? 2 * cap : 8;
            img->host = ws_xrealloc(img->host, cap * sizeof *img->host);
        }
        img->host[img->nhost++] = a;
    }
    free(text);
    return rc;
}

/* ---- Symbols ---------------------------------------------------------------------- */

static int symbol_section(loader *L, size_t shndx)
{
    if (shndx == 0 || shndx >= L->shnum || shndx >= SHN_LORESERVE) return -1;
    if (shndx == L->text_idx) return 0;
    if (shndx == L->host_idx) return 2;
    GElf_Shdr sh;
    if (get_shdr(L, shndx, &sh)) return -1;
    return (sh.sh_flags & SHF_ALLOC) && !(sh.sh_flags & SHF_EXECINSTR) ? 1 : -1;
}

static int load_symbols(loader *L)
{
    wrt_image *img = L->img;
    if (!L->symtab_idx) return 0;
    GElf_Shdr sh;
    if (get_shdr(L, L->symtab_idx, &sh)) return -1;
    if (sh.sh_entsize != sizeof(Elf32_Sym) || sh.sh_size % sizeof(Elf32_Sym) != 0)
        return fail(L, "bad symbol table entry size");
    if (sh.sh_link == 0 || sh.sh_link >= L->shnum) return fail(L, "symbol table has no string table");
    GElf_Shdr strsh;
    if (get_shdr(L, sh.sh_link, &strsh)) return -1;
    if (strsh.sh_type != SHT_STRTAB || strsh.sh_size == 0 || L->buf[strsh.sh_offset + strsh.sh_size - 1] != 0)
        return fail(L, "bad symbol string table");
    Elf_Data *d = elf_getdata(elf_getscn(L->elf, L->symtab_idx), NULL);
    size_t n = sh.sh_size / sizeof(Elf32_Sym);
    if (!d && n) return fail(L, "cannot read the symbol table: %s", elf_errmsg(-1));
    img->syms = ws_xcalloc(n ? n : 1, sizeof *img->syms);
    for (size_t i = 1; i < n; i++) {
        GElf_Sym s;
        if (!gelf_getsym(d, (int)i, &s)) return fail(L, "cannot read symbol %zu", i);
        int type = GELF_ST_TYPE(s.st_info);
        if (type == STT_SECTION || type == STT_FILE) continue;
        const char *name = elf_strptr(L->elf, sh.sh_link, s.st_name);
        if (!name) return fail(L, "symbol %zu has a bad name", i);
        if (!*name) continue;
        wrt_symbol *y = &img->syms[img->nsyms++];
        y->name = ws_xstrdup(name);
        y->value = (uint32_t)s.st_value;
        y->size = (uint32_t)s.st_size;
        y->section = symbol_section(L, s.st_shndx);
        /* Data symbols are data memory addresses to everyone after the loader. */
        if (y->section == 1) {
            if (y->value < WT_DATA_SPACE) return fail(L, "data symbol '%s' at 0x%x is below data memory (0x%x)",
                                                      name, y->value, WT_DATA_SPACE);
            y->value -= WT_DATA_SPACE;
        }
        y->is_func = type == STT_FUNC;
        /* A function may be empty, so at the end of the program: the linker
         * accepts a symbol at the end of its section, as ELF allows. */
        if (y->is_func && (y->section != 0 || y->value % WT_BUNDLE_BYTES != 0 || y->value > L->text_bytes ||
                           y->size > L->text_bytes - y->value))
            return fail(L, "function '%s' at 0x%x (%u bytes) is not within the program", name, y->value, y->size);
    }
    return 0;
}

/* Each host array's address is its .host symbol's value. */
static int place_host_arrays(loader *L)
{
    wrt_image *img = L->img;
    for (size_t i = 0; i < img->nhost; i++) {
        wrt_host_array *a = &img->host[i];
        const wrt_symbol *y = NULL;
        for (size_t j = 0; j < img->nsyms && !y; j++)
            if (img->syms[j].section == 2 && strcmp(img->syms[j].name, a->name) == 0) y = &img->syms[j];
        if (!y) return fail(L, "host array '%s' has no symbol in .host", a->name);
        if (y->value % 4 != 0 || (uint64_t)y->value + (uint64_t)a->nelems * 4 > img->host_size)
            return fail(L, "host array '%s' (address 0x%x, %u words) is not within host memory (%u bytes)",
                        a->name, y->value, a->nelems, img->host_size);
        a->addr = y->value;
    }
    return 0;
}

/* ---- Source positions ------------------------------------------------------------- */

static int load_files(loader *L, const GElf_Shdr *sh)
{
    wrt_image *img = L->img;
    if (sh->sh_type == SHT_NOBITS || sh->sh_size == 0) return 0;
    const char *p = (const char *)contents(L, sh);
    if (p[sh->sh_size - 1] != 0) return fail(L, "bad .warp.files: the last name is not terminated");
    size_t n = 0;
    for (size_t i = 0; i < sh->sh_size; i++) n += p[i] == 0;
    img->files = ws_xcalloc(n, sizeof *img->files);
    for (size_t off = 0; off < sh->sh_size; off += strlen(p + off) + 1) img->files[img->nfiles++] = ws_xstrdup(p + off);
    return 0;
}

static int load_lines(loader *L, const GElf_Shdr *sh)
{
    wrt_image *img = L->img;
    if (sh->sh_type == SHT_NOBITS || sh->sh_size == 0) return 0;
    if (sh->sh_size % LINE_RECORD_BYTES != 0)
        return fail(L, "bad .warp.lines: %llu bytes, not a multiple of %d",
                    (unsigned long long)sh->sh_size, LINE_RECORD_BYTES);
    size_t n = sh->sh_size / LINE_RECORD_BYTES;
    const unsigned char *p = contents(L, sh);
    img->lines = ws_xcalloc(n, sizeof *img->lines);
    uint32_t prev = 0;
    for (size_t i = 0; i < n; i++, p += LINE_RECORD_BYTES) {
        uint32_t addr = le32(p), line = le32(p + 4), col = le32(p + 8), file = le32(p + 12);
        if (addr % WT_BUNDLE_BYTES != 0 || addr >= L->text_bytes)
            return fail(L, "bad .warp.lines record %zu: address 0x%x is not a bundle of the program", i, addr);
        if (addr < prev) return fail(L, "bad .warp.lines record %zu: addresses are not sorted", i);
        if (file >= img->nfiles) return fail(L, "bad .warp.lines record %zu: file %u of %zu", i, file, img->nfiles);
        prev = addr;
        img->lines[img->nlines++] = (wrt_line){addr / WT_BUNDLE_BYTES, line, col, file};
    }
    return 0;
}

/* ---- The whole image ---------------------------------------------------------------- */

static int load(loader *L)
{
    wrt_image *img = L->img;
    if (check_header(L) || check_section_bounds(L)) return -1;
    size_t cells_idx = 0, hostdecl_idx = 0, lines_idx = 0, files_idx = 0, iu_idx = 0, iutab_idx = 0;
    for (size_t i = 1; i < L->shnum; i++) {
        GElf_Shdr sh;
        if (get_shdr(L, i, &sh)) return -1;
        const char *name = section_name(L, i, &sh);
        if (!name) return -1;
        size_t *slot = strcmp(name, ".text") == 0 ? &L->text_idx
                     : strcmp(name, ".host") == 0 ? &L->host_idx
                     : strcmp(name, ".warp.cells") == 0 ? &cells_idx
                     : strcmp(name, ".warp.host") == 0 ? &hostdecl_idx
                     : strcmp(name, ".warp.lines") == 0 ? &lines_idx
                     : strcmp(name, ".warp.files") == 0 ? &files_idx
                     : strcmp(name, ".warp.iu") == 0 ? &iu_idx
                     : strcmp(name, ".warp.iutab") == 0 ? &iutab_idx
                     : sh.sh_type == SHT_SYMTAB ? &L->symtab_idx : NULL;
        if (!slot) continue;
        if (*slot) return fail(L, "more than one %s section", sh.sh_type == SHT_SYMTAB ? "symbol table" : name);
        if (strncmp(name, ".warp.", 6) == 0 && sh.sh_type != SHT_PROGBITS)
            return fail(L, "section %s has type %u, not PROGBITS", name, (unsigned)sh.sh_type);
        if (slot == &L->host_idx && sh.sh_type != SHT_NOBITS)
            return fail(L, "section .host has type %u, not NOBITS", (unsigned)sh.sh_type);
        *slot = i;
    }
    if (!L->text_idx) return fail(L, "no .text section");
    if (!cells_idx) return fail(L, "no .warp.cells section");

    GElf_Shdr sh;
    if (get_shdr(L, L->text_idx, &sh) || load_text(L, &sh)) return -1;
    if (load_data(L)) return -1;
    if (iu_idx) {
        if (get_shdr(L, iu_idx, &sh)) return -1;
        if (sh.sh_size != (uint64_t)img->ncode * WT_BUNDLE_BYTES)
            return fail(L, "section .warp.iu has %llu bytes, not the %u bundles of .text",
                        (unsigned long long)sh.sh_size, img->ncode);
        if (img->model->id != WT_MODEL_WARP) return fail(L, "section .warp.iu: only the Warp has an interface unit");
        img->iu_code = ws_xcalloc(img->ncode, sizeof *img->iu_code);
        for (uint32_t i = 0; i < img->ncode; i++)
            if (wt_decode(contents(L, &sh) + (size_t)i * WT_BUNDLE_BYTES, &img->iu_code[i]) != 0)
                return fail(L, "interface unit bundle %u does not decode", i);
    }
    if (iutab_idx) {
        if (get_shdr(L, iutab_idx, &sh)) return -1;
        if (!img->model->iu_table_words)
            return fail(L, "section .warp.iutab: only the Warp's interface unit has an address table");
        if (sh.sh_size % 4 || sh.sh_size > (uint64_t)img->model->iu_table_words * 4)
            return fail(L, "section .warp.iutab has %llu bytes: the interface unit's address table holds up to "
                           "%u 32-bit entries",
                        (unsigned long long)sh.sh_size, img->model->iu_table_words);
        img->iu_table_words = (uint32_t)(sh.sh_size / 4);
        img->iu_table = ws_xcalloc(img->iu_table_words + 1, sizeof *img->iu_table);
        for (uint32_t i = 0; i < img->iu_table_words; i++) img->iu_table[i] = le32(contents(L, &sh) + 4 * i);
    }
    if (get_shdr(L, cells_idx, &sh) || load_cells(L, &sh)) return -1;
    if (L->host_idx) {
        if (get_shdr(L, L->host_idx, &sh)) return -1;
        if (sh.sh_flags & SHF_ALLOC) return fail(L, "section .host must not be allocated in cell memory");
        if (sh.sh_size > MAX_HOST_BYTES)
            return fail(L, "host memory of %llu bytes is larger than %u", (unsigned long long)sh.sh_size, MAX_HOST_BYTES);
        img->host_size = (uint32_t)sh.sh_size;
    }
    if (hostdecl_idx && (get_shdr(L, hostdecl_idx, &sh) || load_host_decls(L, &sh))) return -1;
    if (load_symbols(L) || place_host_arrays(L)) return -1;
    if (files_idx && (get_shdr(L, files_idx, &sh) || load_files(L, &sh))) return -1;
    if (lines_idx && (get_shdr(L, lines_idx, &sh) || load_lines(L, &sh))) return -1;

    GElf_Ehdr eh;
    if (!gelf_getehdr(L->elf, &eh)) return fail(L, "bad ELF header");
    if (eh.e_entry % WT_BUNDLE_BYTES != 0 || eh.e_entry >= L->text_bytes)
        return fail(L, "entry point 0x%llx is not a bundle of the program (%u bytes)",
                    (unsigned long long)eh.e_entry, L->text_bytes);
    img->entry = (uint32_t)(eh.e_entry / WT_BUNDLE_BYTES);
    /* A queue wait is a compiler bug only in the image the linker timed: one
     * changed since (or made by hand with the flag) is run with run-time waits. */
    if (img->flow_controlled) {
        uint64_t now = wt_timing_fingerprint(img->model->id, img->code, img->iu_code, img->ncode, img->data,
                                             img->data_size, img->entry, img->first_cell, img->last_cell, img->skew);
        if (iutab_idx) {
            if (get_shdr(L, iutab_idx, &sh)) return -1;
            now = wt_timing_fingerprint_table(now, contents(L, &sh), img->iu_table_words);
        }
        if (!L->has_timing || now != L->timing) {
            img->flow_controlled = 0;
            img->timing_changed = 1;
        }
    }
    return 0;
}

/* Loads the image in L->buf, which it then owns and frees. */
static wrt_image *load_buffer(loader *L)
{
    if (elf_version(EV_CURRENT) == EV_NONE) {
        snprintf(L->err, L->errlen, "libelf is out of date");
        free(L->buf);
        return NULL;
    }
    L->img = ws_xcalloc(1, sizeof *L->img);
    int rc = load(L);
    if (L->elf) elf_end(L->elf);
    free(L->buf);
    if (rc != 0) {
        wrt_image_free(L->img);
        return NULL;
    }
    return L->img;
}

wrt_image *wrt_image_load(const char *path, char *err, size_t errlen)
{
    loader L = {.err = err, .errlen = errlen};
    char rerr[256];
    L.buf = ws_read_file(path, &L.len, MAX_IMAGE_BYTES, rerr, sizeof rerr);
    if (!L.buf) {
        snprintf(err, errlen, "%s", rerr);
        return NULL;
    }
    return load_buffer(&L);
}

wrt_image *wrt_image_load_memory(const void *buf, size_t len, char *err, size_t errlen)
{
    loader L = {.err = err, .errlen = errlen, .len = len};
    if (len > MAX_IMAGE_BYTES) {
        snprintf(err, errlen, "file is larger than %u bytes", MAX_IMAGE_BYTES);
        return NULL;
    }
    /* libelf wants a writable buffer, and the caller's may not outlive the image. */
    L.buf = ws_xmalloc(len + 1);
    if (len) memcpy(L.buf, buf, len);
    L.buf[len] = 0;
    return load_buffer(&L);
}

void wrt_image_free(wrt_image *img)
{
    if (!img) return;
    free(img->code);
    free(img->iu_code);
    free(img->iu_table);
    free(img->data);
    for (size_t i = 0; i < img->nhost; i++) free(img->host[i].name);
    free(img->host);
    for (size_t i = 0; i < img->nsyms; i++) free(img->syms[i].name);
    free(img->syms);
    free(img->lines);
    for (size_t i = 0; i < img->nfiles; i++) free(img->files[i]);
    free(img->files);
    free(img);
}

/* ---- Queries ------------------------------------------------------------------------ */

const wrt_line *wrt_line_for_pc(const wrt_image *img, uint32_t pc)
{
    size_t lo = 0, hi = img->nlines; /* first record with a pc above the one asked for */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (img->lines[mid].pc <= pc) lo = mid + 1;
        else hi = mid;
    }
    return lo ? &img->lines[lo - 1] : NULL;
}

const wrt_symbol *wrt_func_for_pc(const wrt_image *img, uint32_t pc)
{
    uint64_t addr = (uint64_t)pc * WT_BUNDLE_BYTES;
    const wrt_symbol *best = NULL;
    for (size_t i = 0; i < img->nsyms; i++) {
        const wrt_symbol *y = &img->syms[i];
        if (!y->is_func || y->section != 0 || y->value > addr) continue;
        if (y->size && addr >= (uint64_t)y->value + y->size) continue;
        if (!best || y->value > best->value) best = y;
    }
    return best;
}

const wrt_host_array *wrt_host_find(const wrt_image *img, const char *name)
{
    for (size_t i = 0; i < img->nhost; i++)
        if (strcmp(img->host[i].name, name) == 0) return &img->host[i];
    return NULL;
}

static const char *image_where(void *ctx, uint32_t pc, char *buf, size_t size)
{
    const wrt_image *img = ctx;
    const wrt_line *l = wrt_line_for_pc(img, pc);
    if (!l || l->file >= img->nfiles) return NULL;
    snprintf(buf, size, "%s:%u", img->files[l->file], l->line);
    return buf;
}

void wrt_sim_program(const wrt_image *img, wsim_program *out)
{
    memset(out, 0, sizeof *out);
    out->model = img->model;
    out->code = img->code;
    out->ncode = img->ncode;
    out->iu_code = img->iu_code;
    out->iu_table = img->iu_table;
    out->iu_table_words = img->iu_table_words;
    out->entry = img->entry;
    out->data = img->data;
    out->data_size = img->data_size;
    out->host_size = img->host_size;
    out->first_cell = img->first_cell;
    out->last_cell = img->last_cell;
    out->skew = img->skew;
    out->flow_controlled = img->flow_controlled;
    if (img->grid_width) out->comm = &img->grid_comm;
    out->where = image_where;
    out->where_ctx = (void *)img;
}
