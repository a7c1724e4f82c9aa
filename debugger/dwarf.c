/* The DWARF reader: the line programs of .debug_line, the compile units of
 * .debug_info (with .debug_abbrev, .debug_str, .debug_loc) as far as the toolchain
 * writes them (docs/design.md, section 5): functions, named lexical blocks, the
 * variables and their types and locations. Versions 2 to 4, 32-bit format,
 * 4-byte addresses.
 *
 * The file comes from outside as often as not, so every read goes through a
 * bounded cursor (warp_dwarf.h) and every offset, size and index is checked; a
 * malformed file gives a one-line reason, never a crash. Objects need no
 * relocation here: the assembler writes each address's value relative to its
 * section in place. */
#include "warp_debugger.h"

#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "warp_dwarf.h"
#include "warp_support.h"
#include "warp_target.h"

#define MAX_FILE_BYTES (256u << 20)

typedef struct sect {
    const uint8_t *p;
    size_t n;
} sect;

typedef struct reader {
    char *err;
    size_t errlen;
    sect info, abbrev, line, loc, str;
    wdb_dwarf *d;
} reader;

static int fail(reader *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(reader *R, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(R->err, R->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static wd_cursor cur_at(sect s, size_t off, size_t len)
{
    wd_cursor c = {s.p + off, s.p + off + len, 0};
    return c;
}

/* ---- The line table ----------------------------------------------------------------- */

static uint32_t add_file(wdb_dwarf *d, const char *dir, const char *name)
{
    char *full;
    if (dir && *dir && name[0] != '/') {
        full = ws_xmalloc(strlen(dir) + strlen(name) + 2);
        sprintf(full, "%s/%s", dir, name);
    } else {
        full = ws_xstrdup(name);
    }
    for (size_t i = 0; i < d->nfiles; i++)
        if (strcmp(d->files[i], full) == 0) {
            free(full);
            return (uint32_t)i;
        }
    d->files = ws_xrealloc(d->files, (d->nfiles + 1) * sizeof *d->files);
    d->files[d->nfiles] = full;
    return (uint32_t)d->nfiles++;
}

typedef struct rows {
    wdb_row *v;
    size_t n, cap;
} rows;

static void add_row(rows *r, const wdb_row *row)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->v = ws_xrealloc(r->v, r->cap * sizeof *r->v);
    }
    r->v[r->n++] = *row;
}

/* The unit at off of a .debug_line or .debug_info section: its 32-bit DWARF length,
 * checked against the section; c is left after the length and ends with the unit,
 * next is the offset of the unit after it. */
static int unit_start(reader *R, sect s, const char *name, size_t off, size_t *next, wd_cursor *c)
{
    *c = cur_at(s, off, s.n - off);
    uint32_t unit_length = wd_get_u32(c);
    if (c->bad) return fail(R, "%s: truncated unit at 0x%zx", name, off);
    if (unit_length >= 0xfffffff0u) return fail(R, "%s: 64-bit DWARF is not supported", name);
    if (unit_length > (size_t)(c->end - c->p)) return fail(R, "%s: unit at 0x%zx runs past the section", name, off);
    *next = off + 4 + unit_length;
    c->end = c->p + unit_length;
    return 0;
}

/* One line program (DWARF 2-4, section 6.2). */
static int read_program(reader *R, size_t off, size_t *next, rows *out)
{
    wd_cursor c;
    if (unit_start(R, R->line, ".debug_line", off, next, &c) != 0) return -1;
    unsigned version = wd_get_u16(&c);
    if (version < 2 || version > 4) return fail(R, ".debug_line: unit at 0x%zx has version %u (2 to 4 are read)", off, version);
    uint32_t header_length = wd_get_u32(&c);
    if (c.bad || header_length > (size_t)(c.end - c.p)) return fail(R, ".debug_line: bad header length at 0x%zx", off);
    const uint8_t *program = c.p + header_length;
    unsigned min_insn = wd_get_u8(&c);
    if (version >= 4) wd_get_u8(&c);   /* maximum_operations_per_instruction: VLIW op_index unused */
    unsigned default_is_stmt = wd_get_u8(&c);
    int line_base = (int8_t)wd_get_u8(&c);
    unsigned line_range = wd_get_u8(&c), opcode_base = wd_get_u8(&c);
    if (c.bad || line_range == 0 || opcode_base == 0) return fail(R, ".debug_line: bad header at 0x%zx", off);
    uint8_t lengths[256] = {0};
    for (unsigned i = 1; i < opcode_base; i++) lengths[i] = (uint8_t)wd_get_u8(&c);
    const char *dirs[256];
    size_t ndirs = 0;
    for (;;) {
        const char *s = wd_get_str(&c);
        if (!s) return fail(R, ".debug_line: unterminated directory table at 0x%zx", off);
        if (!*s) break;
        if (ndirs < 256) dirs[ndirs++] = s;
    }
    uint32_t *fmap = NULL;
    size_t nf = 0;
    for (;;) {
        const char *s = wd_get_str(&c);
        if (!s) {
            free(fmap);
            return fail(R, ".debug_line: unterminated file table at 0x%zx", off);
        }
        if (!*s) break;
        uint64_t dir = wd_get_uleb(&c);
        wd_get_uleb(&c);
        wd_get_uleb(&c);
        fmap = ws_xrealloc(fmap, (nf + 1) * sizeof *fmap);
        fmap[nf++] = add_file(R->d, dir >= 1 && dir <= ndirs ? dirs[dir - 1] : NULL, s);
    }
    if (c.bad || program < c.p || program > c.end) {
        free(fmap);
        return fail(R, ".debug_line: bad header at 0x%zx", off);
    }
    c.p = program;
    wdb_row st;
    uint32_t file = 1;
    int reset = 1;
    while (c.p < c.end && !c.bad) {
        if (reset) {
            memset(&st, 0, sizeof st);
            st.line = 1;
            st.is_stmt = (uint8_t)(default_is_stmt != 0);
            file = 1;
            reset = 0;
        }
        unsigned op = wd_get_u8(&c);
        st.file = file >= 1 && file <= nf ? fmap[file - 1] : UINT32_MAX;
        if (op >= opcode_base) {
            unsigned adj = op - opcode_base;
            st.addr += (uint32_t)((adj / line_range) * min_insn);
            st.line = (uint32_t)((int64_t)st.line + line_base + (int)(adj % line_range));
            add_row(out, &st);
            st.basic_block = 0;
            st.discriminator = 0;
            continue;
        }
        switch (op) {
        case 0: {
            uint64_t len = wd_get_uleb(&c);
            if (c.bad || len == 0 || len > (uint64_t)(c.end - c.p)) {
                free(fmap);
                return fail(R, ".debug_line: bad extended opcode at 0x%zx", (size_t)(c.p - R->line.p));
            }
            const uint8_t *end = c.p + len;
            unsigned ext = wd_get_u8(&c);
            if (ext == DW_LNE_end_sequence) {
                st.end = 1;
                add_row(out, &st);
                reset = 1;
            } else if (ext == DW_LNE_set_discriminator) {
                st.discriminator = (uint32_t)wd_get_uleb(&c);
            } else if (ext == DW_LNE_set_address) {
                if (len != 1 + WD_ADDR_SIZE) {
                    free(fmap);
                    return fail(R, ".debug_line: %u-byte address (4 are read)", (unsigned)(len - 1));
                }
                st.addr = wd_get_u32(&c);
            }
            c.p = end;   /* define_file, set_discriminator and the unknown: skipped */
            break;
        }
        case DW_LNS_copy:
            add_row(out, &st);
            st.basic_block = 0;
            st.discriminator = 0;
            break;
        case DW_LNS_advance_pc: st.addr += (uint32_t)(wd_get_uleb(&c) * min_insn); break;
        case DW_LNS_advance_line: st.line = (uint32_t)((int64_t)st.line + wd_get_sleb(&c)); break;
        case DW_LNS_set_file: file = (uint32_t)wd_get_uleb(&c); break;
        case DW_LNS_set_column: st.col = (uint32_t)wd_get_uleb(&c); break;
        case DW_LNS_negate_stmt: st.is_stmt = !st.is_stmt; break;
        case DW_LNS_set_basic_block: st.basic_block = 1; break;
        case DW_LNS_const_add_pc: st.addr += (uint32_t)(((255u - opcode_base) / line_range) * min_insn); break;
        case DW_LNS_fixed_advance_pc: st.addr += wd_get_u16(&c); break;
        default:
            for (unsigned i = 0; i < lengths[op]; i++) wd_get_uleb(&c);
            break;
        }
    }
    free(fmap);
    if (c.bad) return fail(R, ".debug_line: truncated program in the unit at 0x%zx", off);
    return 0;
}

static int cmp_row(const void *a, const void *b)
{
    const wdb_row *x = a, *y = b;
    if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
    if (x->end != y->end) return x->end ? -1 : 1;   /* a sequence's end before the next one's start */
    return 0;
}

static int read_lines(reader *R)
{
    rows r = {0};
    for (size_t off = 0, next; off < R->line.n; off = next) {
        if (read_program(R, off, &next, &r) != 0) {
            free(r.v);
            return -1;
        }
    }
    /* Stable (a merge sort): rows of one address keep their order. */
    wdb_row *sorted = r.v;
    if (r.n > 1) {
        wdb_row *tmp = ws_xcalloc(r.n, sizeof *tmp);
        for (size_t width = 1; width < r.n; width *= 2) {
            for (size_t lo = 0; lo < r.n; lo += 2 * width) {
                size_t mid = lo + width < r.n ? lo + width : r.n, hi = lo + 2 * width < r.n ? lo + 2 * width : r.n;
                size_t i = lo, j = mid, k = lo;
                while (i < mid && j < hi) tmp[k++] = cmp_row(&sorted[j], &sorted[i]) < 0 ? sorted[j++] : sorted[i++];
                while (i < mid) tmp[k++] = sorted[i++];
                while (j < hi) tmp[k++] = sorted[j++];
            }
            memcpy(sorted, tmp, r.n * sizeof *tmp);
        }
        free(tmp);
    }
    R->d->rows = sorted;
    R->d->nrows = r.n;
    return 0;
}

/* ---- .debug_info --------------------------------------------------------------------- */

typedef struct abbrev {
    uint64_t code;
    unsigned tag;
    int children;
    size_t nattr;
    unsigned (*attr)[2];      /* name, form */
} abbrev;

typedef struct abbrevs {
    abbrev *v;
    size_t n;
} abbrevs;

static void free_abbrevs(abbrevs *A)
{
    for (size_t i = 0; i < A->n; i++) free(A->v[i].attr);
    free(A->v);
    A->n = 0;
    A->v = NULL;
}

static int read_abbrevs(reader *R, uint32_t off, abbrevs *A)
{
    if (off >= R->abbrev.n) return fail(R, ".debug_info: abbreviation offset 0x%x is past .debug_abbrev", off);
    wd_cursor c = cur_at(R->abbrev, off, R->abbrev.n - off);
    for (;;) {
        uint64_t code = wd_get_uleb(&c);
        if (c.bad) return fail(R, ".debug_abbrev: truncated table at 0x%x", off);
        if (code == 0) return 0;
        if (A->n >= 100000) return fail(R, ".debug_abbrev: too many abbreviations");
        A->v = ws_xrealloc(A->v, (A->n + 1) * sizeof *A->v);
        abbrev *a = &A->v[A->n++];
        memset(a, 0, sizeof *a);
        a->code = code;
        a->tag = (unsigned)wd_get_uleb(&c);
        a->children = wd_get_u8(&c) != 0;
        for (;;) {
            unsigned name = (unsigned)wd_get_uleb(&c), form = (unsigned)wd_get_uleb(&c);
            if (c.bad) return fail(R, ".debug_abbrev: truncated abbreviation %llu", (unsigned long long)code);
            if (!name && !form) break;
            if (a->nattr >= 256) return fail(R, ".debug_abbrev: abbreviation %llu has too many attributes", (unsigned long long)code);
            a->attr = ws_xrealloc(a->attr, (a->nattr + 1) * sizeof *a->attr);
            a->attr[a->nattr][0] = name;
            a->attr[a->nattr][1] = form;
            a->nattr++;
        }
    }
}

static const abbrev *find_abbrev(const abbrevs *A, uint64_t code)
{
    for (size_t i = 0; i < A->n; i++)
        if (A->v[i].code == code) return &A->v[i];
    return NULL;
}

/* What the reader keeps of one DIE. */
typedef struct die {
    uint32_t off;             /* in .debug_info */
    unsigned tag;
    int parent;               /* index, -1 for a unit's root */
    const char *name, *linkage;
    int has_low, high_is_len, has_high;
    uint32_t low, high;
    uint32_t decl_line, decl_file;
    uint32_t swp_ii, swp_stages, swp_unroll, swp_stage;
    uint32_t type;            /* .debug_info offset of the type, 0 none */
    int loc_kind;             /* 0 none, 1 expression, 2 list */
    const uint8_t *loc_expr;
    size_t loc_len;
    uint32_t loc_list;
    int has_bound;
    uint32_t bound;           /* upper bound, or count if bound_is_count */
    int bound_is_count;
    unsigned encoding;
    uint32_t cu_low;          /* the unit's base address */
} die;

typedef struct dies {
    die *v;
    size_t n, cap;
} dies;

typedef struct attr_val {
    uint64_t u;
    const uint8_t *block;
    size_t blen;
    const char *str;
    int is_ref;
} attr_val;

static int read_form(reader *R, wd_cursor *c, unsigned form, uint32_t cu_off, attr_val *v, int depth)
{
    memset(v, 0, sizeof *v);
    switch (form) {
    case DW_FORM_addr: v->u = wd_get_u32(c); break;
    case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: v->u = wd_get_u8(c); break;
    case DW_FORM_data2: case DW_FORM_ref2: v->u = wd_get_u16(c); break;
    case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_sec_offset: case DW_FORM_ref_addr: v->u = wd_get_u32(c); break;
    case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: v->u = wd_get_n(c, 8); break;
    case DW_FORM_sdata: v->u = (uint64_t)wd_get_sleb(c); break;
    case DW_FORM_udata: case DW_FORM_ref_udata: v->u = wd_get_uleb(c); break;
    case DW_FORM_flag_present: v->u = 1; break;
    case DW_FORM_string: v->str = wd_get_str(c); break;
    case DW_FORM_strp: {
        uint32_t o = wd_get_u32(c);
        if (c->bad) break;
        if (o >= R->str.n) return fail(R, ".debug_info: string offset 0x%x is past .debug_str", o);
        wd_cursor s = cur_at(R->str, o, R->str.n - o);
        v->str = wd_get_str(&s);
        if (!v->str) return fail(R, ".debug_str: unterminated string at 0x%x", o);
        break;
    }
    case DW_FORM_exprloc: case DW_FORM_block: case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4: {
        uint64_t n = form == DW_FORM_block1 ? wd_get_u8(c) : form == DW_FORM_block2 ? wd_get_u16(c)
                   : form == DW_FORM_block4 ? wd_get_u32(c) : wd_get_uleb(c);
        if (c->bad || n > (uint64_t)(c->end - c->p)) {
            c->bad = 1;
            break;
        }
        v->block = c->p;
        v->blen = (size_t)n;
        c->p += n;
        break;
    }
    case DW_FORM_indirect:
        if (depth > 4) return fail(R, ".debug_info: DW_FORM_indirect loops");
        return read_form(R, c, (unsigned)wd_get_uleb(c), cu_off, v, depth + 1);
    default:
        return fail(R, ".debug_info: unsupported attribute form 0x%x", form);
    }
    if (form == DW_FORM_ref1 || form == DW_FORM_ref2 || form == DW_FORM_ref4 || form == DW_FORM_ref8 ||
        form == DW_FORM_ref_udata) {
        v->u += cu_off;
        v->is_ref = 1;
    } else if (form == DW_FORM_ref_addr) {
        v->is_ref = 1;
    }
    if (c->bad) return fail(R, ".debug_info: truncated attribute");
    return 0;
}

static int is_const_form(unsigned form)
{
    return form == DW_FORM_data1 || form == DW_FORM_data2 || form == DW_FORM_data4 || form == DW_FORM_data8 ||
           form == DW_FORM_udata || form == DW_FORM_sdata;
}

static int read_unit(reader *R, size_t off, size_t *next, dies *D)
{
    wd_cursor c;
    if (unit_start(R, R->info, ".debug_info", off, next, &c) != 0) return -1;
    unsigned version = wd_get_u16(&c);
    uint32_t abbrev_off = wd_get_u32(&c);
    unsigned addr_size = wd_get_u8(&c);
    if (c.bad) return fail(R, ".debug_info: truncated unit header at 0x%zx", off);
    if (version < 2 || version > 4) return fail(R, ".debug_info: unit at 0x%zx has version %u (2 to 4 are read)", off, version);
    if (addr_size != WD_ADDR_SIZE) return fail(R, ".debug_info: %u-byte addresses (4 are read)", addr_size);
    abbrevs A = {0};
    if (read_abbrevs(R, abbrev_off, &A) != 0) {
        free_abbrevs(&A);
        return -1;
    }
    int stack[512], depth = 0;
    uint32_t cu_low = 0;
    int rc = 0;
    size_t first = D->n;
    while (c.p < c.end && rc == 0) {
        uint32_t die_off = (uint32_t)(c.p - R->info.p);
        uint64_t code = wd_get_uleb(&c);
        if (c.bad) {
            rc = fail(R, ".debug_info: truncated DIE at 0x%x", die_off);
            break;
        }
        if (code == 0) {
            if (depth > 0) depth--;
            continue;
        }
        const abbrev *a = find_abbrev(&A, code);
        if (!a) {
            rc = fail(R, ".debug_info: DIE at 0x%x uses abbreviation %llu, which is not defined", die_off,
                      (unsigned long long)code);
            break;
        }
        if (D->n == D->cap) {
            D->cap = D->cap ? 2 * D->cap : 256;
            D->v = ws_xrealloc(D->v, D->cap * sizeof *D->v);
        }
        die *x = &D->v[D->n];
        memset(x, 0, sizeof *x);
        x->off = die_off;
        x->tag = a->tag;
        x->parent = depth > 0 ? stack[depth - 1] : -1;
        for (size_t i = 0; i < a->nattr && rc == 0; i++) {
            attr_val v;
            unsigned name = a->attr[i][0], form = a->attr[i][1];
            if (read_form(R, &c, form, (uint32_t)off, &v, 0) != 0) {
                rc = -1;
                break;
            }
            switch (name) {
            case DW_AT_name: x->name = v.str; break;
            case DW_AT_comp_dir:
                if (a->tag == DW_TAG_compile_unit && v.str && !R->d->comp_dir) R->d->comp_dir = ws_xstrdup(v.str);
                break;
            case DW_AT_linkage_name: x->linkage = v.str; break;
            case DW_AT_low_pc: x->low = (uint32_t)v.u; x->has_low = 1; break;
            case DW_AT_high_pc:
                x->high = (uint32_t)v.u;
                x->has_high = 1;
                x->high_is_len = is_const_form(form);
                break;
            case DW_AT_decl_line: x->decl_line = (uint32_t)v.u; break;
            case DW_AT_decl_file: x->decl_file = (uint32_t)v.u; break;
            case DW_AT_WARP_swp_ii: x->swp_ii = (uint32_t)v.u; break;
            case DW_AT_WARP_swp_stages: x->swp_stages = (uint32_t)v.u; break;
            case DW_AT_WARP_swp_unroll: x->swp_unroll = (uint32_t)v.u; break;
            case DW_AT_WARP_swp_stage: x->swp_stage = (uint32_t)v.u; break;
            case DW_AT_type: if (v.is_ref) x->type = (uint32_t)v.u; break;
            case DW_AT_location:
                if (v.block) {
                    x->loc_kind = 1;
                    x->loc_expr = v.block;
                    x->loc_len = v.blen;
                } else if (form == DW_FORM_sec_offset || form == DW_FORM_data4) {
                    x->loc_kind = 2;
                    x->loc_list = (uint32_t)v.u;
                }
                break;
            case DW_AT_upper_bound: x->has_bound = 1; x->bound = (uint32_t)v.u; break;
            case DW_AT_count: x->has_bound = 1; x->bound = (uint32_t)v.u; x->bound_is_count = 1; break;
            case DW_AT_encoding: x->encoding = (unsigned)v.u; break;
            default: break;
            }
        }
        if (rc) break;
        if (x->tag == DW_TAG_compile_unit && x->has_low) cu_low = x->low;
        D->n++;
        if (a->children) {
            if (depth == 512) {
                rc = fail(R, ".debug_info: DIEs nested too deep at 0x%x", die_off);
                break;
            }
            stack[depth++] = (int)(D->n - 1);
        }
    }
    for (size_t i = first; i < D->n; i++) D->v[i].cu_low = cu_low;
    free_abbrevs(&A);
    return rc;
}

static const die *die_at(const dies *D, uint32_t off)
{
    size_t lo = 0, hi = D->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (D->v[mid].off < off) lo = mid + 1;
        else hi = mid;
    }
    return lo < D->n && D->v[lo].off == off ? &D->v[lo] : NULL;
}

/* int or float, or an array of them of one or two dimensions. */
static int resolve_type(const dies *D, uint32_t off, wdb_type *t)
{
    memset(t, 0, sizeof *t);
    const die *x = die_at(D, off);
    if (!x) return -1;
    if (x->tag == DW_TAG_base_type) {
        if (x->encoding == DW_ATE_float) t->is_float = 1;
        else if (x->encoding != DW_ATE_signed) return -1;
        return 0;
    }
    if (x->tag != DW_TAG_array_type || !x->type) return -1;
    const die *base = die_at(D, x->type);
    if (!base || base->tag != DW_TAG_base_type || resolve_type(D, x->type, t) != 0) return -1;
    size_t idx = (size_t)(x - D->v);
    for (size_t i = idx + 1; i < D->n && D->v[i].parent == (int)idx; i++) {
        const die *s = &D->v[i];
        if (s->tag != DW_TAG_subrange_type || !s->has_bound || t->ndims == 2) return -1;
        uint64_t n = s->bound_is_count ? s->bound : (uint64_t)s->bound + 1;
        if (n == 0 || n > 0x3fffffff) return -1;
        t->dims[t->ndims++] = (uint32_t)n;
    }
    if (t->ndims == 0) return -1;
    return 0;
}

/* The locations the toolchain writes; anything else reads as none. */
static wdb_loc read_expr(const uint8_t *p, size_t n)
{
    wdb_loc l = {0, 0, WDB_LOC_NONE, 0};
    if (n == 0) {
        l.kind = WDB_LOC_EMPTY;
        return l;
    }
    wd_cursor c = {p, p + n, 0};
    unsigned op = wd_get_u8(&c);
    if (op == DW_OP_addr) {
        /* An image's data addresses are at WT_DATA_SPACE (docs/design.md, section
         * 4); an object's are relative to their section. */
        l.v = wd_get_u32(&c);
        if (l.v >= WT_DATA_SPACE) l.v -= WT_DATA_SPACE;
        l.kind = WDB_LOC_ADDR;
    } else if (op >= DW_OP_reg0 && op <= DW_OP_reg0 + 31) {
        l.v = op - DW_OP_reg0;
        l.kind = WDB_LOC_REG;
    } else if (op == DW_OP_regx) {
        l.v = (uint32_t)wd_get_uleb(&c);
        l.kind = WDB_LOC_REG;
    } else if (op == DW_OP_implicit_value) {
        if (wd_get_uleb(&c) == 4) {
            l.v = wd_get_u32(&c);
            l.kind = WDB_LOC_CONST;
        }
    } else if ((op == DW_OP_constu || op == DW_OP_consts || (op >= DW_OP_lit0 && op <= DW_OP_lit0 + 31))) {
        l.v = op == DW_OP_constu ? (uint32_t)wd_get_uleb(&c) : op == DW_OP_consts ? (uint32_t)wd_get_sleb(&c)
                                                                                : op - DW_OP_lit0;
        if (wd_get_u8(&c) == DW_OP_stack_value) l.kind = WDB_LOC_CONST;
    }
    if (c.bad || c.p != c.end) l.kind = WDB_LOC_NONE;
    if (l.kind == WDB_LOC_REG && l.v > WD_REG_CID) l.kind = WDB_LOC_NONE;
    return l;
}

static void add_loc(wdb_var *v, wdb_loc l)
{
    v->locs = ws_xrealloc(v->locs, (v->nlocs + 1) * sizeof *v->locs);
    v->locs[v->nlocs++] = l;
}

static int read_var(reader *R, const dies *D, const die *x, uint32_t lo, uint32_t hi, wdb_var *v)
{
    memset(v, 0, sizeof *v);
    if (!x->name || resolve_type(D, x->type, &v->type) != 0) return 1;   /* not a W2 variable: skipped */
    v->name = ws_xstrdup(x->name);
    v->decl_line = x->decl_line;
    if (x->loc_kind == 1) {
        wdb_loc l = read_expr(x->loc_expr, x->loc_len);
        l.lo = lo;
        l.hi = hi;
        if (l.kind != WDB_LOC_NONE) add_loc(v, l);
    } else if (x->loc_kind == 2) {
        if (x->loc_list >= R->loc.n) return fail(R, ".debug_info: location list 0x%x is past .debug_loc", x->loc_list);
        wd_cursor c = cur_at(R->loc, x->loc_list, R->loc.n - x->loc_list);
        uint32_t base = x->cu_low;
        for (int guard = 0; guard < 1000000; guard++) {
            uint32_t b = wd_get_u32(&c), e = wd_get_u32(&c);
            if (c.bad) return fail(R, ".debug_loc: unterminated list at 0x%x", x->loc_list);
            if (b == 0 && e == 0) break;
            if (b == 0xffffffffu) {
                base = e;
                continue;
            }
            unsigned len = wd_get_u16(&c);
            if (c.bad || len > (size_t)(c.end - c.p)) return fail(R, ".debug_loc: truncated entry in the list at 0x%x", x->loc_list);
            wdb_loc l = read_expr(c.p, len);
            c.p += len;
            l.lo = base + b;
            l.hi = base + e;
            if (l.kind != WDB_LOC_NONE && l.lo < l.hi) add_loc(v, l);
        }
    }
    return 0;
}

static void free_var(wdb_var *v)
{
    free(v->name);
    free(v->locs);
}

static int cmp_func(const void *a, const void *b)
{
    const wdb_func *x = a, *y = b;
    return x->lo != y->lo ? (x->lo < y->lo ? -1 : 1) : 0;
}

static int read_info(reader *R)
{
    dies D = {0};
    int rc = 0;
    for (size_t off = 0, next; off < R->info.n && rc == 0; off = next) rc = read_unit(R, off, &next, &D);
    wdb_dwarf *d = R->d;
    /* Functions first, so variables can find theirs. */
    int *fidx = ws_xcalloc(D.n + 1, sizeof *fidx);
    for (size_t i = 0; i < D.n && rc == 0; i++) {
        const die *x = &D.v[i];
        fidx[i] = x->parent >= 0 ? fidx[x->parent] : -1;
        if (x->tag != DW_TAG_subprogram || !x->has_low || !x->name) continue;
        d->funcs = ws_xrealloc(d->funcs, (d->nfuncs + 1) * sizeof *d->funcs);
        wdb_func *f = &d->funcs[d->nfuncs];
        memset(f, 0, sizeof *f);
        f->name = ws_xstrdup(x->name);
        f->linkage = ws_xstrdup(x->linkage ? x->linkage : x->name);
        f->lo = x->low;
        f->hi = !x->has_high ? x->low : x->high_is_len ? x->low + x->high : x->high;
        f->decl_line = x->decl_line;
        fidx[i] = (int)d->nfuncs++;
    }
    for (size_t i = 0; i < D.n && rc == 0; i++) {
        const die *x = &D.v[i];
        int fi = fidx[i];
        if (x->tag == DW_TAG_lexical_block && x->name && x->has_low && fi >= 0) {
            wdb_func *f = &d->funcs[fi];
            f->blocks = ws_xrealloc(f->blocks, (f->nblocks + 1) * sizeof *f->blocks);
            wdb_block *b = &f->blocks[f->nblocks++];
            *b = (wdb_block){ws_xstrdup(x->name), x->low, x->high_is_len ? x->low + x->high : x->high,
                             x->decl_file, x->decl_line, x->swp_ii, x->swp_stages, x->swp_unroll, x->swp_stage};
            /* a schedule that does not fit its block is not used */
            uint64_t pro = (uint64_t)(b->stages ? b->stages - 1 : 0) * b->ii * WT_BUNDLE_BYTES;
            if (!b->ii || !b->stages || b->stages > 4096 || b->stage >= b->stages || b->ii > 4096 || b->unroll > 4096 || b->hi < b->lo ||
                pro + (uint64_t)b->unroll * b->ii * WT_BUNDLE_BYTES > b->hi - b->lo)
                b->ii = b->stages = b->unroll = 0;
        }
        if (x->tag != DW_TAG_variable) continue;
        wdb_var v;
        if (fi >= 0) {
            wdb_func *f = &d->funcs[fi];
            int r = read_var(R, &D, x, f->lo, f->hi, &v);
            if (r < 0) rc = -1;
            if (r != 0) continue;
            f->vars = ws_xrealloc(f->vars, (f->nvars + 1) * sizeof *f->vars);
            f->vars[f->nvars++] = v;
        } else if (x->parent >= 0 && D.v[x->parent].tag == DW_TAG_compile_unit) {
            int r = read_var(R, &D, x, 0, UINT32_MAX, &v);
            if (r < 0) rc = -1;
            if (r != 0) continue;
            d->globals = ws_xrealloc(d->globals, (d->nglobals + 1) * sizeof *d->globals);
            d->globals[d->nglobals++] = v;
        }
    }
    free(fidx);
    free(D.v);
    if (d->nfuncs > 1) qsort(d->funcs, d->nfuncs, sizeof *d->funcs, cmp_func);
    return rc;
}

/* ---- The file -------------------------------------------------------------------------- */

static int find_sections(reader *R, const uint8_t *buf, size_t len)
{
    if (len < EI_NIDENT || memcmp(buf, ELFMAG, SELFMAG) != 0) return fail(R, "not an ELF file");
    if (buf[EI_CLASS] != ELFCLASS32 || buf[EI_DATA] != ELFDATA2LSB) return fail(R, "not a 32-bit little-endian ELF file");
    if (len < sizeof(Elf32_Ehdr)) return fail(R, "truncated ELF header");
    if (elf_version(EV_CURRENT) == EV_NONE) return fail(R, "libelf is out of date");
    Elf *e = elf_memory((char *)buf, len);
    if (!e || elf_kind(e) != ELF_K_ELF) {
        if (e) elf_end(e);
        return fail(R, "not an ELF file: %s", elf_errmsg(-1));
    }
    GElf_Ehdr eh;
    size_t shnum = 0, shstrndx = 0;
    int rc = 0;
    if (!gelf_getehdr(e, &eh)) rc = fail(R, "bad ELF header");
    else if (eh.e_shnum && (eh.e_shentsize != sizeof(Elf32_Shdr) ||
                            (uint64_t)eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(Elf32_Shdr) > len))
        rc = fail(R, "truncated: section headers end past the end of the file");
    else if (elf_getshdrnum(e, &shnum) != 0 || elf_getshdrstrndx(e, &shstrndx) != 0)
        rc = fail(R, "bad section header table");
    for (size_t i = 1; i < shnum && rc == 0; i++) {
        Elf_Scn *scn = elf_getscn(e, i);
        GElf_Shdr sh;
        if (!scn || !gelf_getshdr(scn, &sh)) {
            rc = fail(R, "cannot read section header %zu", i);
            break;
        }
        const char *name = elf_strptr(e, shstrndx, sh.sh_name);
        if (name && (sh.sh_flags & SHF_ALLOC) && !(sh.sh_flags & SHF_EXECINSTR) && sh.sh_addr >= WT_DATA_SPACE &&
            strlen(name) < sizeof R->d->dsecs->name) {
            /* an image's data memory is at WT_DATA_SPACE in the file, from 0 on the machine */
            wdb_dsection *ds = ws_xrealloc(R->d->dsecs, (R->d->ndsecs + 1) * sizeof *ds);
            R->d->dsecs = ds;
            ds += R->d->ndsecs++;
            snprintf(ds->name, sizeof ds->name, "%s", name);
            ds->lo = (uint32_t)(sh.sh_addr - WT_DATA_SPACE);
            ds->hi = sh.sh_size > 0xffffffffu - ds->lo ? 0xffffffffu : ds->lo + (uint32_t)sh.sh_size;
        }
        if (!name || strncmp(name, ".debug_", 7) != 0 || sh.sh_type == SHT_NOBITS) continue;
        if (sh.sh_offset > len || sh.sh_size > len - sh.sh_offset) {
            rc = fail(R, "truncated: section %s ends past the end of the file", name);
            break;
        }
        sect s = {buf + sh.sh_offset, (size_t)sh.sh_size};
        if (!strcmp(name, ".debug_info")) R->info = s;
        else if (!strcmp(name, ".debug_abbrev")) R->abbrev = s;
        else if (!strcmp(name, ".debug_line")) R->line = s;
        else if (!strcmp(name, ".debug_loc")) R->loc = s;
        else if (!strcmp(name, ".debug_str")) R->str = s;
    }
    elf_end(e);
    return rc;
}

wdb_dwarf *wdb_dwarf_read_mem(const void *buf, size_t len, char *err, size_t errlen)
{
    reader R = {.err = err, .errlen = errlen};
    R.d = ws_xcalloc(1, sizeof *R.d);
    if (find_sections(&R, buf, len) != 0 || read_lines(&R) != 0 || read_info(&R) != 0) {
        wdb_dwarf_free(R.d);
        return NULL;
    }
    return R.d;
}

wdb_dwarf *wdb_dwarf_read(const char *path, char *err, size_t errlen)
{
    size_t len;
    char rerr[256];
    char *buf = ws_read_file(path, &len, MAX_FILE_BYTES, rerr, sizeof rerr);
    if (!buf) {
        snprintf(err, errlen, "%s", rerr);
        return NULL;
    }
    wdb_dwarf *d = wdb_dwarf_read_mem(buf, len, err, errlen);
    free(buf);
    return d;
}

void wdb_dwarf_free(wdb_dwarf *d)
{
    if (!d) return;
    free(d->rows);
    free(d->comp_dir);
    free(d->dsecs);
    for (size_t i = 0; i < d->nfiles; i++) free(d->files[i]);
    free(d->files);
    for (size_t i = 0; i < d->nfuncs; i++) {
        wdb_func *f = &d->funcs[i];
        free(f->name);
        free(f->linkage);
        for (size_t k = 0; k < f->nvars; k++) free_var(&f->vars[k]);
        free(f->vars);
        for (size_t k = 0; k < f->nblocks; k++) free(f->blocks[k].name);
        free(f->blocks);
    }
    free(d->funcs);
    for (size_t i = 0; i < d->nglobals; i++) free_var(&d->globals[i]);
    free(d->globals);
    free(d);
}

/* ---- Queries ---------------------------------------------------------------------------- */

/* The index of the last row at or before addr, or -1. */
static ptrdiff_t last_row(const wdb_dwarf *d, uint32_t addr)
{
    size_t lo = 0, hi = d->nrows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->rows[mid].addr <= addr) lo = mid + 1;
        else hi = mid;
    }
    return (ptrdiff_t)lo - 1;
}

const wdb_row *wdb_row_at(const wdb_dwarf *d, uint32_t addr)
{
    ptrdiff_t i = last_row(d, addr);
    if (i < 0 || d->rows[i].end) return NULL;
    return &d->rows[i];
}

const wdb_row *wdb_stmt_at(const wdb_dwarf *d, uint32_t addr)
{
    const wdb_row *r = wdb_row_at(d, addr);
    return r && r->addr == addr && r->is_stmt ? r : NULL;
}

const wdb_func *wdb_func_at(const wdb_dwarf *d, uint32_t addr)
{
    const wdb_func *best = NULL;
    for (size_t i = 0; i < d->nfuncs; i++)
        if (addr >= d->funcs[i].lo && addr < d->funcs[i].hi) best = &d->funcs[i];
    return best;
}

static int file_matches(const char *path, const char *want)
{
    if (!want) return 1;
    size_t n = strlen(path), m = strlen(want);
    if (m > n) return 0;
    if (strcmp(path + n - m, want) != 0) return 0;
    return m == n || path[n - m - 1] == '/';
}

size_t wdb_line_addrs(const wdb_dwarf *d, const char *file, uint32_t line, uint32_t *addrs, size_t max)
{
    size_t n = 0;
    /* The rows of one basic block lie between two rows that start blocks (or a
     * sequence's end); in each, the first statement row of the line. */
    int taken = 0;
    for (size_t i = 0; i < d->nrows; i++) {
        const wdb_row *r = &d->rows[i];
        if (r->end || r->basic_block) taken = 0;
        if (r->end || !r->is_stmt || r->line != line || taken) continue;
        if (r->file >= d->nfiles || !file_matches(d->files[r->file], file)) continue;
        /* several rows at one address: each is a statement that begins there
         * (the last names the address); a line's own repeat counts once */
        if (i + 1 < d->nrows && d->rows[i + 1].addr == r->addr && !d->rows[i + 1].end && d->rows[i + 1].line == line)
            continue;
        taken = 1;
        if (n < max) addrs[n] = r->addr;
        n++;
    }
    return n;
}

wdb_loc wdb_var_loc(const wdb_var *v, uint32_t addr)
{
    for (size_t i = 0; i < v->nlocs; i++)
        if (addr >= v->locs[i].lo && addr < v->locs[i].hi) return v->locs[i];
    wdb_loc none = {0, 0, WDB_LOC_NONE, 0};
    return none;
}
