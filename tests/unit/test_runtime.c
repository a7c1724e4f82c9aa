/* Unit tests of runtime/: images written here with libelf (not by the linker, so the
 * runtime is tested against the contract of docs/design.md, section 4, alone), loaded,
 * run, and corrupted in the ways a bad file can be; host data files in and out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warp_runtime.h"
#include "warp_sim.h"
#include "warp_target.h"

static char tmpdir[64];

/* ---- Building an image ------------------------------------------------------------ */

typedef struct tsym {
    const char *name;
    uint32_t value, size;
    const char *section;   /* ".text", ".data", ".host" */
    int type;              /* STT_FUNC, STT_OBJECT */
} tsym;

typedef struct tspec {
    int machine, type;
    unsigned flags;
    uint32_t entry;
    const uint8_t *text;
    size_t text_size;
    const uint8_t *data;
    size_t data_size, bss_size, host_size;
    const char *cells, *hostdecl;
    const uint8_t *lines;
    size_t lines_size;
    const char *files;
    size_t files_size;
    const tsym *syms;
    size_t nsyms;
} tspec;

typedef struct strtab {
    char buf[1024];
    size_t len;
} strtab;

static uint32_t str_add(strtab *t, const char *s)
{
    if (t->len == 0) t->buf[t->len++] = 0;
    uint32_t off = (uint32_t)t->len;
    size_t n = strlen(s) + 1;
    assert_true(t->len + n <= sizeof t->buf);
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    return off;
}

static Elf_Scn *add_section(Elf *e, strtab *names, const char *name, unsigned type, unsigned flags,
                            const void *buf, size_t size, uint32_t addr, Elf_Type dtype)
{
    Elf_Scn *scn = elf_newscn(e);
    assert_non_null(scn);
    Elf_Data *d = elf_newdata(scn);
    d->d_buf = (void *)buf;
    d->d_size = size;
    d->d_type = dtype;
    d->d_align = 4;
    d->d_version = EV_CURRENT;
    Elf32_Shdr *sh = elf32_getshdr(scn);
    sh->sh_name = str_add(names, name);
    sh->sh_type = type;
    sh->sh_flags = flags;
    sh->sh_addr = addr;
    sh->sh_addralign = 4;
    return scn;
}

static void write_image(const char *path, const tspec *sp)
{
    assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
    assert_non_null(e);
    Elf32_Ehdr *eh = elf32_newehdr(e);
    eh->e_ident[EI_DATA] = ELFDATA2LSB;
    eh->e_machine = (Elf32_Half)sp->machine;
    eh->e_type = (Elf32_Half)sp->type;
    eh->e_version = EV_CURRENT;
    eh->e_flags = sp->flags;
    eh->e_entry = sp->entry;

    static strtab names, symnames;
    memset(&names, 0, sizeof names);
    memset(&symnames, 0, sizeof symnames);
    str_add(&names, "");
    str_add(&symnames, "");
    size_t idx = 1, text_idx = 0, data_idx = 0, host_idx = 0;
    if (sp->text) {
        Elf_Scn *s = add_section(e, &names, ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, sp->text,
                                 sp->text_size, 0, ELF_T_BYTE);
        /* libelf will not write a size that is not a multiple of the entry size. */
        if (sp->text_size % WT_BUNDLE_BYTES == 0) elf32_getshdr(s)->sh_entsize = WT_BUNDLE_BYTES;
        text_idx = idx++;
    }
    if (sp->data_size) {
        add_section(e, &names, ".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, sp->data, sp->data_size,
                    WT_DATA_SPACE, ELF_T_BYTE);
        data_idx = idx++;
    }
    if (sp->bss_size) {
        add_section(e, &names, ".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, NULL, sp->bss_size,
                    WT_DATA_SPACE + (uint32_t)sp->data_size, ELF_T_BYTE);
        idx++;
    }
    if (sp->host_size) {
        add_section(e, &names, ".host", SHT_NOBITS, 0, NULL, sp->host_size, 0, ELF_T_BYTE);
        host_idx = idx++;
    }
    if (sp->hostdecl) {
        add_section(e, &names, ".warp.host", SHT_PROGBITS, 0, sp->hostdecl, strlen(sp->hostdecl), 0, ELF_T_BYTE);
        idx++;
    }
    if (sp->cells) {
        add_section(e, &names, ".warp.cells", SHT_PROGBITS, 0, sp->cells, strlen(sp->cells), 0, ELF_T_BYTE);
        idx++;
    }
    if (sp->lines) {
        add_section(e, &names, ".warp.lines", SHT_PROGBITS, 0, sp->lines, sp->lines_size, 0, ELF_T_BYTE);
        idx++;
    }
    if (sp->files) {
        add_section(e, &names, ".warp.files", SHT_PROGBITS, 0, sp->files, sp->files_size, 0, ELF_T_BYTE);
        idx++;
    }
    static Elf32_Sym syms[16];
    memset(syms, 0, sizeof syms);
    size_t nsyms = 1;
    for (size_t i = 0; i < sp->nsyms; i++) {
        Elf32_Sym *y = &syms[nsyms++];
        y->st_name = str_add(&symnames, sp->syms[i].name);
        const char *sec = sp->syms[i].section;
        y->st_value = sp->syms[i].value + (strcmp(sec, ".data") == 0 ? WT_DATA_SPACE : 0);
        y->st_size = sp->syms[i].size;
        y->st_info = ELF32_ST_INFO(STB_GLOBAL, sp->syms[i].type);
        y->st_shndx = (Elf32_Half)(strcmp(sec, ".text") == 0 ? text_idx
                                 : strcmp(sec, ".data") == 0 ? data_idx : host_idx);
    }
    size_t strtab_idx = idx + 1;
    idx += 2;
    Elf_Scn *st = add_section(e, &names, ".symtab", SHT_SYMTAB, 0, syms, nsyms * sizeof(Elf32_Sym), 0, ELF_T_SYM);
    elf32_getshdr(st)->sh_entsize = sizeof(Elf32_Sym);
    elf32_getshdr(st)->sh_link = (Elf32_Word)strtab_idx;
    elf32_getshdr(st)->sh_info = 1;
    add_section(e, &names, ".strtab", SHT_STRTAB, 0, symnames.buf, symnames.len, 0, ELF_T_BYTE);
    size_t shstr_idx = idx++;
    Elf_Scn *ss = add_section(e, &names, ".shstrtab", SHT_STRTAB, 0, names.buf, 0, 0, ELF_T_BYTE);
    /* Its own name went in as the section was made: its size is known only now. */
    elf_getdata(ss, NULL)->d_size = names.len;
    eh->e_shstrndx = (Elf32_Half)shstr_idx;
    if (elf_update(e, ELF_C_WRITE) <= 0) fail_msg("elf_update: %s", elf_errmsg(-1));
    elf_end(e);
    close(fd);
}

/* The test program, for one cell: doubles the 4 ints of `vals` into `res`.
 *   0 _start: call main      1: halt
 *   2 main:   hld r1,[r0,0] | hld r2,[r0,4]     3: hld r3,[r0,8] | hld r4,[r0,12]
 *   4: nop    5: iadd r5,r1,r1 | iadd r6,r2,r2   6: iadd r7,r3,r3 | iadd r8,r4,r4
 *   7..10: mv @xl, rN | mv @axl, 16+4i          11: ret */
static uint8_t text[12 * WT_BUNDLE_BYTES];

static void put(wt_insn *b, wt_slot_id s, wt_op op, unsigned d, unsigned a, unsigned bb)
{
    b->slot[s].op = (uint16_t)op;
    b->slot[s].opnd[0] = (uint8_t)d;
    b->slot[s].opnd[1] = (uint8_t)a;
    b->slot[s].opnd[2] = (uint8_t)bb;
}

static void build_text(void)
{
    wt_insn code[12];
    memset(code, 0, sizeof code);
    code[0].slot[WT_SLOT_BR].op = WT_OP_CALL;
    code[0].target = 2;
    code[1].slot[WT_SLOT_BR].op = WT_OP_HALT;
    for (int i = 0; i < 4; i++) {
        wt_insn *b = &code[2 + i / 2];
        b->imm[i % 2] = (uint32_t)(4 * i);
        put(b, i % 2 ? WT_SLOT_M1 : WT_SLOT_M0, WT_OP_HLD, 1 + (unsigned)i, 0, i % 2 ? WT_OPND_IMM1 : WT_OPND_IMM0);
        b = &code[5 + i / 2];
        put(b, i % 2 ? WT_SLOT_A1 : WT_SLOT_A0, WT_OP_IADD, 5 + (unsigned)i, 1 + (unsigned)i, 1 + (unsigned)i);
        b = &code[7 + i];
        b->imm[0] = (uint32_t)(16 + 4 * i);
        put(b, WT_SLOT_V0, WT_OP_MV, WT_OPND_GATE + WT_Q_XL, 5 + (unsigned)i, 0);
        put(b, WT_SLOT_V1, WT_OP_MV, WT_OPND_ADDR + WT_Q_XL, WT_OPND_IMM0, 0);
    }
    code[11].slot[WT_SLOT_BR].op = WT_OP_RET;
    for (int i = 0; i < 12; i++) wt_encode(&code[i], text + i * WT_BUNDLE_BYTES);
}

static const uint8_t data_bytes[8] = {1, 0, 0, 0, 2, 0, 0, 0};
static const tsym good_syms[] = {
    {"_start", 0, 80, ".text", STT_FUNC},
    {"main", 80, 400, ".text", STT_FUNC},
    {"table", 0, 8, ".data", STT_OBJECT},
    {"vals", 0, 16, ".host", STT_OBJECT},
    {"res", 16, 16, ".host", STT_OBJECT},
};
static uint8_t lines[3 * 16];
static const char files[] = "t.w2\0lib.w2";

static void le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static tspec good_spec(void)
{
    build_text();
    static const uint32_t recs[3][4] = {{80, 10, 3, 0}, {200, 12, 5, 0}, {280, 7, 1, 1}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) le(lines + 16 * i + 4 * j, recs[i][j]);
    tspec sp = {
        .machine = WT_EM_WARP, .type = ET_EXEC, .flags = 0, .entry = 0,
        .text = text, .text_size = sizeof text,
        .data = data_bytes, .data_size = sizeof data_bytes, .bss_size = 24, .host_size = 32,
        .cells = "0 0 0\n", .hostdecl = "vals in int 4 0\nres out int 4 0\n",
        .lines = lines, .lines_size = sizeof lines, .files = files, .files_size = sizeof files,
        .syms = good_syms, .nsyms = sizeof good_syms / sizeof good_syms[0],
    };
    return sp;
}

static char *path_in_tmp(const char *name)
{
    static char buf[8][128];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, 128, "%s/%s", tmpdir, name);
    return p;
}

static void write_text_file(const char *path, const char *text_)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text_, f);
    fclose(f);
}

/* Loads an image built from sp and expects it refused with a reason containing want. */
static void expect_refused(const tspec *sp, const char *want)
{
    const char *path = path_in_tmp("bad.img");
    write_image(path, sp);
    char err[512] = "";
    wrt_image *img = wrt_image_load(path, err, sizeof err);
    if (img) fail_msg("loaded, expected '%s'", want);
    if (!strstr(err, want)) fail_msg("error '%s' does not contain '%s'", err, want);
    assert_null(strchr(err, '\n'));
}

static uint8_t *read_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static uint8_t buf[1 << 16];
    *len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return buf;
}

static void write_bytes(const char *path, const uint8_t *p, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, len, f), len);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_runtime.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* ---- Loading ------------------------------------------------------------------------- */

static void test_load_good_image(void **state)
{
    (void)state;
    tspec sp = good_spec();
    const char *path = path_in_tmp("good.img");
    write_image(path, &sp);
    char err[512] = "";
    wrt_image *img = wrt_image_load(path, err, sizeof err);
    if (!img) fail_msg("%s", err);
    assert_int_equal(img->model->id, WT_MODEL_WARP);
    assert_int_equal(img->ncode, 12);
    assert_int_equal(img->entry, 0);
    assert_int_equal(img->code[0].slot[WT_SLOT_BR].op, WT_OP_CALL);
    assert_int_equal(img->data_size, 32);
    assert_int_equal(img->data[4], 2);
    assert_int_equal(img->host_size, 32);
    assert_int_equal(img->first_cell, 0);
    assert_int_equal(img->last_cell, 0);
    assert_int_equal(img->nhost, 2);
    const wrt_host_array *res = wrt_host_find(img, "res");
    assert_non_null(res);
    assert_true(res->is_out);
    assert_false(res->is_float);
    assert_int_equal(res->addr, 16);
    assert_int_equal(res->nelems, 4);
    assert_null(wrt_host_find(img, "nope"));
    assert_int_equal(img->nfiles, 2);
    assert_string_equal(img->files[1], "lib.w2");
    assert_null(wrt_line_for_pc(img, 1));
    assert_int_equal(wrt_line_for_pc(img, 2)->line, 10);
    assert_int_equal(wrt_line_for_pc(img, 6)->line, 12);
    assert_int_equal(wrt_line_for_pc(img, 11)->file, 1);
    assert_string_equal(wrt_func_for_pc(img, 1)->name, "_start");
    assert_string_equal(wrt_func_for_pc(img, 11)->name, "main");
    wsim_program prog;
    wrt_sim_program(img, &prog);
    char buf[64];
    assert_string_equal(prog.where(prog.where_ctx, 6, buf, sizeof buf), "t.w2:12");
    assert_string_equal(prog.where(prog.where_ctx, 7, buf, sizeof buf), "lib.w2:7");
    wrt_image_free(img);
}

static void test_iwarp_flag_and_cells(void **state)
{
    (void)state;
    tspec sp = good_spec();
    sp.flags = WT_EF_IWARP;
    sp.cells = "3 12 2\n";
    const char *path = path_in_tmp("iwarp.img");
    write_image(path, &sp);
    char err[512] = "";
    wrt_image *img = wrt_image_load(path, err, sizeof err);
    if (!img) fail_msg("%s", err);
    assert_int_equal(img->model->id, WT_MODEL_IWARP);
    assert_int_equal(img->first_cell, 3);
    assert_int_equal(img->last_cell, 12);
    assert_int_equal(img->skew, 2);
    wrt_image_free(img);
}

static void test_refuses_bad_headers(void **state)
{
    (void)state;
    tspec sp = good_spec();
    sp.machine = 62;
    expect_refused(&sp, "not a Warp image (e_machine 0x3e, expected 0x5741)");
    sp = good_spec();
    sp.type = ET_REL;
    expect_refused(&sp, "not an executable image");
    sp = good_spec();
    sp.flags = 6;
    expect_refused(&sp, "unknown e_flags 0x6");
    sp = good_spec();
    sp.entry = 20;
    expect_refused(&sp, "entry point 0x14 is not a bundle of the program");
    sp = good_spec();
    sp.entry = 480;
    expect_refused(&sp, "entry point 0x1e0");
}

static void test_refuses_bad_text(void **state)
{
    (void)state;
    tspec sp = good_spec();
    sp.text_size = 41;
    expect_refused(&sp, "section .text has 41 bytes, not a multiple of the 40-byte bundle");
    sp = good_spec();
    sp.text = NULL;
    expect_refused(&sp, "no .text section");
    sp = good_spec();
    text[WT_BUNDLE_BYTES + 39] = 0x80; /* a reserved bit of bundle 1 */
    expect_refused(&sp, "bundle 1 does not decode");
    sp = good_spec();
    text[3 * WT_BUNDLE_BYTES] |= 0x0f; /* FA opcode 15: undefined */
    expect_refused(&sp, "bundle 3 does not decode");
}

static void test_refuses_bad_warp_sections(void **state)
{
    (void)state;
    static const struct { const char *cells, *want; } cells[] = {
        {"0 x 0\n", "bad .warp.cells: expected one line 'FIRST LAST SKEW'"},
        {"0 9\n", "bad .warp.cells"},
        {"0 9 0\n1 2 0\n", "bad .warp.cells"},
        {"5 2 0\n", "bad .warp.cells: first cell 5 after last cell 2"},
        {"0 5000 0\n", "bad .warp.cells: 5001 cells, at most 1024"},
        {"-1 3 0\n", "bad .warp.cells"},
    };
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++) {
        tspec sp = good_spec();
        sp.cells = cells[i].cells;
        expect_refused(&sp, cells[i].want);
    }
    tspec sp = good_spec();
    sp.cells = NULL;
    expect_refused(&sp, "no .warp.cells section");
    sp = good_spec();
    sp.hostdecl = "vals in int 4 0\nres sideways int 4 0\n";
    expect_refused(&sp, "bad .warp.host line 2");
    sp = good_spec();
    sp.hostdecl = "vals in int 4 0\nmissing out float 2 0\n";
    expect_refused(&sp, "host array 'missing' has no symbol in .host");
    sp = good_spec();
    sp.hostdecl = "vals in int 40 0\n";
    expect_refused(&sp, "host array 'vals' (address 0x0, 40 words) is not within host memory (32 bytes)");
    sp = good_spec();
    sp.lines_size = 20;
    expect_refused(&sp, "bad .warp.lines: 20 bytes");
    sp = good_spec();
    le(lines + 12, 5);
    expect_refused(&sp, "bad .warp.lines record 0: file 5 of 2");
    sp = good_spec();
    le(lines + 16, 40);
    expect_refused(&sp, "bad .warp.lines record 1: addresses are not sorted");
    sp = good_spec();
    sp.files_size = sizeof files - 1;
    expect_refused(&sp, "bad .warp.files");
}

static void test_refuses_data_beyond_memory(void **state)
{
    (void)state;
    tspec sp = good_spec();
    sp.bss_size = 16384;
    expect_refused(&sp, "section .bss (address 0x10000008, 16384 bytes) does not fit warp data memory (16384 bytes at 0x10000000)");
}

static void test_refuses_truncated_and_foreign_files(void **state)
{
    (void)state;
    tspec sp = good_spec();
    const char *good = path_in_tmp("good.img");
    write_image(good, &sp);
    size_t len;
    uint8_t *bytes = read_bytes(good, &len);
    const char *bad = path_in_tmp("cut.img");
    char err[512];
    static const struct { size_t keep; const char *want; } cuts[] = {
        {0, "not an ELF file"}, {10, "not an ELF file"}, {40, "truncated ELF header"},
        {300, "truncated"},
    };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        write_bytes(bad, bytes, cuts[i].keep);
        assert_null(wrt_image_load(bad, err, sizeof err));
        if (!strstr(err, cuts[i].want)) fail_msg("cut at %zu: '%s'", cuts[i].keep, err);
    }
    uint8_t copy[1 << 16];
    memcpy(copy, bytes, len);
    copy[EI_CLASS] = ELFCLASS64;
    write_bytes(bad, copy, len);
    assert_null(wrt_image_load(bad, err, sizeof err));
    assert_string_equal(err, "not a 32-bit ELF file");
    copy[EI_CLASS] = ELFCLASS32;
    copy[EI_DATA] = ELFDATA2MSB;
    write_bytes(bad, copy, len);
    assert_null(wrt_image_load(bad, err, sizeof err));
    assert_string_equal(err, "not a little-endian ELF file");
    assert_null(wrt_image_load(path_in_tmp("missing.img"), err, sizeof err));
    assert_string_equal(err, "No such file or directory");
}

/* Every prefix of a good image, and every single corrupted byte, is refused or
 * loaded without a crash; the message is always one line. */
static void test_survives_every_cut_and_flip(void **state)
{
    (void)state;
    tspec sp = good_spec();
    const char *good = path_in_tmp("good.img");
    write_image(good, &sp);
    size_t len;
    uint8_t *bytes = read_bytes(good, &len);
    uint8_t copy[1 << 16];
    const char *bad = path_in_tmp("fuzz.img");
    char err[512];
    for (size_t keep = 0; keep < len; keep++) {
        write_bytes(bad, bytes, keep);
        wrt_image *img = wrt_image_load(bad, err, sizeof err);
        if (img) fail_msg("a %zu-byte prefix loaded", keep);
        assert_null(strchr(err, '\n'));
    }
    for (size_t pos = 0; pos < len; pos++) {
        for (int v = 0; v < 2; v++) {
            memcpy(copy, bytes, len);
            copy[pos] = v ? (uint8_t)(copy[pos] ^ 0xff) : 0x7f;
            write_bytes(bad, copy, len);
            err[0] = 0;
            wrt_image *img = wrt_image_load(bad, err, sizeof err);
            if (img) {
                wsim_program prog;
                wrt_sim_program(img, &prog);
                wsim *s = wsim_new(&prog, err, sizeof err);
                if (s) {
                    wsim_run(s, 1000);
                    wsim_free(s);
                }
                wrt_image_free(img);
            } else {
                assert_true(err[0] != 0);
                assert_null(strchr(err, '\n'));
            }
        }
    }
}

/* ---- Host data ---------------------------------------------------------------------- */

typedef struct loaded {
    wrt_image *img;
    wsim *sim;
} loaded;

static loaded load_with(const char *hostdecl)
{
    tspec sp = good_spec();
    if (hostdecl) sp.hostdecl = hostdecl;
    static const tsym syms[] = {
        {"_start", 0, 80, ".text", STT_FUNC}, {"main", 80, 400, ".text", STT_FUNC},
        {"vals", 0, 16, ".host", STT_OBJECT}, {"res", 16, 16, ".host", STT_OBJECT},
        {"fl", 0, 12, ".host", STT_OBJECT}, {"m", 0, 24, ".host", STT_OBJECT},
    };
    sp.syms = syms;
    sp.nsyms = sizeof syms / sizeof syms[0];
    const char *path = path_in_tmp("host.img");
    write_image(path, &sp);
    char err[512] = "";
    loaded l;
    l.img = wrt_image_load(path, err, sizeof err);
    if (!l.img) fail_msg("%s", err);
    wsim_program prog;
    wrt_sim_program(l.img, &prog);
    l.sim = wsim_new(&prog, err, sizeof err);
    if (!l.sim) fail_msg("%s", err);
    return l;
}

static void unload(loaded *l)
{
    wsim_free(l->sim);
    wrt_image_free(l->img);
}

static char *write_out(loaded *l, const char *name)
{
    char *text_ = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text_, &len);
    assert_int_equal(wrt_host_write(l->img, l->sim, name, f), 0);
    fclose(f);
    return text_;
}

/* The whole path: data in, the program run, results out. */
static void test_run_image_with_host_data(void **state)
{
    (void)state;
    loaded l = load_with(NULL);
    const char *in = path_in_tmp("vals.txt");
    write_text_file(in, "  3 -4\n\t5\n\n 2147483647  ");
    char err[512] = "";
    if (wrt_host_read(l.img, l.sim, "vals", in, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(wsim_run(l.sim, 1000), WSIM_DONE);
    char *out = write_out(&l, "res");
    assert_string_equal(out, "6\n-8\n10\n-2\n");
    free(out);
    unload(&l);
}

static void expect_read_error(loaded *l, const char *name, const char *content, const char *want)
{
    const char *in = path_in_tmp("in.txt");
    write_text_file(in, content);
    char err[512] = "";
    assert_int_equal(wrt_host_read(l->img, l->sim, name, in, err, sizeof err), -1);
    char full[600];
    snprintf(full, sizeof full, "%s: %s", in, want);
    if (strcmp(err, full) != 0) fail_msg("got '%s', wanted '%s'", err, full);
}

static void test_host_read_errors_name_the_array(void **state)
{
    (void)state;
    loaded l = load_with(NULL);
    expect_read_error(&l, "vals", "1 2\n", "host array 'vals' needs 4 numbers, the file has 2");
    expect_read_error(&l, "vals", "1 2 x 4\n", "host array 'vals': number 3 'x' is not a number");
    expect_read_error(&l, "vals", "1 2.5 3 4\n", "host array 'vals': number 2 '2.5' is not an integer");
    expect_read_error(&l, "vals", "1 2 3 4 5 6\n", "host array 'vals' holds 4 numbers, the file has 6");
    expect_read_error(&l, "vals", "1 2 3 4294967296\n", "host array 'vals': number 4 '4294967296' does not fit a 32-bit int");
    expect_read_error(&l, "nope", "1\n", "the image has no host array 'nope'");
    char err[512];
    assert_int_equal(wrt_host_read(l.img, l.sim, "vals", path_in_tmp("absent.txt"), err, sizeof err), -1);
    assert_non_null(strstr(err, "absent.txt: No such file or directory"));
    unload(&l);
}

static void test_float_arrays_read_and_write(void **state)
{
    (void)state;
    loaded l = load_with("fl in float 3 0\nm out float 2 3\n");
    const char *in = path_in_tmp("fl.txt");
    write_text_file(in, "1 -2.5 1e-3");
    char err[512] = "";
    if (wrt_host_read(l.img, l.sim, "fl", in, err, sizeof err) != 0) fail_msg("%s", err);
    char *out = write_out(&l, "fl");
    assert_string_equal(out, "1\n-2.5\n0.00100000005\n");
    free(out);
    const wrt_host_array *m = wrt_host_find(l.img, "m");
    assert_int_equal(m->nelems, 6);
    assert_int_equal(m->dims[0], 2);
    assert_int_equal(m->dims[1], 3);
    expect_read_error(&l, "fl", "1 2", "host array 'fl' needs 3 numbers, the file has 2");
    unload(&l);
}

/* crt0.s is what the contract says: call main, then halt, one operation a line. */
static void test_crt0_source(void **state)
{
    (void)state;
    FILE *f = fopen(WARP_SOURCE_DIR "/runtime/crt0.s", "r");
    assert_non_null(f);
    char line[256];
    int saw_start = 0, saw_call = 0, saw_halt = 0, saw_globl = 0;
    while (fgets(line, sizeof line, f)) {
        char *c = strchr(line, ';');
        if (c) *c = 0;
        if (strstr(line, ".globl") && strstr(line, "_start")) saw_globl = 1;
        if (strstr(line, "_start:")) saw_start = 1;
        if (strstr(line, "call") && strstr(line, "main")) saw_call = saw_start;
        if (strstr(line, "halt")) saw_halt = saw_call;
    }
    fclose(f);
    assert_true(saw_globl && saw_start && saw_call && saw_halt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_good_image),
        cmocka_unit_test(test_iwarp_flag_and_cells),
        cmocka_unit_test(test_refuses_bad_headers),
        cmocka_unit_test(test_refuses_bad_text),
        cmocka_unit_test(test_refuses_bad_warp_sections),
        cmocka_unit_test(test_refuses_data_beyond_memory),
        cmocka_unit_test(test_refuses_truncated_and_foreign_files),
        cmocka_unit_test(test_survives_every_cut_and_flip),
        cmocka_unit_test(test_run_image_with_host_data),
        cmocka_unit_test(test_host_read_errors_name_the_array),
        cmocka_unit_test(test_float_arrays_read_and_write),
        cmocka_unit_test(test_crt0_source),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
