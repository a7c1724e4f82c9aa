/* Unit tests of linker/: two objects with references both ways are laid out,
 * resolved and relocated as docs/design.md section 4 says (checked through
 * wt_decode); bad and corrupt inputs give one line naming the file and what is
 * wrong, return -1 and leave no output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "warp_assembler.h"
#include "warp_linker.h"
#include "warp_support.h"
#include "warp_target.h"

static char tmpdir[64];

static const char *a_src =
    "        .model warp\n"
    "        .cells 0, 3\n"
    "        .file \"a.w2\"\n"
    "        .host data, in, float, 10\n"
    "        .text\n"
    "        .globl _start\n"
    "        .type _start, @function\n"
    "_start:\n"
    "        .loc 1 1\n"
    "        call func | iadd r1, r0, dvar+4\n"
    "        ld r2, [r0, data+8]\n"
    "        halt\n"
    "        .data\n"
    "        .word 5\n"
    "        .globl aword\n"
    "aword:  .word dvar, func, data+4\n";

static const char *b_src =
    "        .model warp\n"
    "        .cells 0, 3\n"
    "        .file \"b.w2\"\n"
    "        .host results, out, int, 2\n"
    "        .host data, in, float, 10\n"
    "        .text\n"
    "        nop\n"
    "        .globl func\n"
    "        .type func, @function\n"
    "func:   .loc 7 2\n"
    "        jmp func | mv r1, aword\n"
    "        ret\n"
    "        .data\n"
    "        .word 1, 2\n"
    "        .globl dvar\n"
    "dvar:   .word 3\n"
    "        .bss\n"
    "bvar:   .zero 8\n";

/* ---- Helpers ----------------------------------------------------------------------- */

static char *tmp_path(const char *name)
{
    static char paths[8][160];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", tmpdir, name);
    return p;
}

static void assemble_to(const char *src, const char *name, const wt_model *model)
{
    ws_diag d;
    ws_diag_init(&d, name, src, strlen(src));
    was_options opts = {.model = model};
    if (was_assemble(name, src, strlen(src), &opts, tmp_path(name), &d) != 0) fail_msg("cannot assemble %s", name);
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Links with stderr captured; returns wld_link's result. */
static int link_capture(const char *const *inputs, size_t n, const char *out, const char *entry, char **err)
{
    char errpath[160];
    snprintf(errpath, sizeof errpath, "%s/stderr.txt", tmpdir);
    fflush(stderr);
    int saved = dup(2);
    FILE *f = fopen(errpath, "w");
    assert_non_null(f);
    dup2(fileno(f), 2);
    fclose(f);
    wld_options opts = {.entry = entry};
    int rc = wld_link(inputs, n, out, &opts);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char msg[128];
    size_t len;
    *err = ws_read_file(errpath, &len, 1u << 20, msg, sizeof msg);
    assert_non_null(*err);
    unlink(errpath);
    return rc;
}

static char *read_all(const char *path, size_t *n)
{
    char err[128];
    char *p = ws_read_file(path, n, 1u << 24, err, sizeof err);
    if (!p) fail_msg("%s: %s", path, err);
    return p;
}

static void write_all(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    fclose(f);
}

static uint32_t get32(const char *p)
{
    const uint8_t *u = (const uint8_t *)p;
    return (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
}

static void put32(char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (char)(v >> (8 * i));
}

/* The file offset of the section header of the section called name. */
static size_t shdr_of(const char *buf, const char *name)
{
    uint32_t shoff = get32(buf + 32);
    unsigned shnum = (uint8_t)buf[48] | (uint8_t)buf[49] << 8, shstrndx = (uint8_t)buf[50] | (uint8_t)buf[51] << 8;
    const char *shstr = buf + get32(buf + shoff + 40 * shstrndx + 16);
    for (unsigned i = 0; i < shnum; i++)
        if (strcmp(shstr + get32(buf + shoff + 40 * i), name) == 0) return shoff + 40 * i;
    fail_msg("no section %s", name);
    return 0;
}

typedef struct image {
    char *buf;
    size_t size;
    Elf *e;
    size_t shstrndx;
} image;

static void image_open(image *im, const char *path)
{
    im->buf = read_all(path, &im->size);
    elf_version(EV_CURRENT);
    im->e = elf_memory(im->buf, im->size);
    assert_non_null(im->e);
    assert_int_equal(elf_getshdrstrndx(im->e, &im->shstrndx), 0);
}

static void image_close(image *im)
{
    elf_end(im->e);
    free(im->buf);
}

static const uint8_t *image_section(image *im, const char *name, GElf_Shdr *sh)
{
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(im->e, scn));) {
        gelf_getshdr(scn, sh);
        if (strcmp(elf_strptr(im->e, im->shstrndx, sh->sh_name), name) == 0)
            return (const uint8_t *)im->buf + sh->sh_offset;
    }
    fail_msg("no section %s", name);
    return NULL;
}

static GElf_Sym image_symbol(image *im, const char *name)
{
    GElf_Shdr sh;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(im->e, scn));) {
        gelf_getshdr(scn, &sh);
        if (sh.sh_type != SHT_SYMTAB) continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym s;
            gelf_getsym(d, (int)i, &s);
            if (strcmp(elf_strptr(im->e, sh.sh_link, s.st_name), name) == 0) return s;
        }
    }
    fail_msg("no symbol %s", name);
    GElf_Sym none = {0};
    return none;
}

static wt_insn image_bundle(image *im, unsigned index)
{
    GElf_Shdr sh;
    const uint8_t *t = image_section(im, ".text", &sh);
    assert_true((index + 1) * WT_BUNDLE_BYTES <= sh.sh_size);
    wt_insn in;
    assert_int_equal(wt_decode(t + index * WT_BUNDLE_BYTES, &in), 0);
    return in;
}

static void assert_readelf_clean(const char *path)
{
    if (system("readelf --version >/dev/null 2>&1") != 0) return;
    static const char *const forms[] = {"readelf -a -W '%s' 2>&1 >/dev/null",
                                        "readelf -h -S -s -l -W '%s' 2>&1 | grep -i warning"};
    for (int i = 0; i < 2; i++) {
        char cmd[512], out[512];
        snprintf(cmd, sizeof cmd, forms[i], path);
        FILE *p = popen(cmd, "r");
        assert_non_null(p);
        size_t n = fread(out, 1, sizeof out - 1, p);
        out[n] = 0;
        pclose(p);
        if (n > 0) fail_msg("readelf warns about %s: %s", path, out);
    }
}

/* ---- Linking ----------------------------------------------------------------------- */

static void test_link_two_objects(void **state)
{
    (void)state;
    assemble_to(a_src, "a.o", NULL);
    assemble_to(b_src, "b.o", NULL);
    const char *in[] = {tmp_path("a.o"), tmp_path("b.o")};
    const char *out = tmp_path("img");
    char *err;
    assert_int_equal(link_capture(in, 2, out, NULL, &err), 0);
    assert_string_equal(err, "");
    free(err);

    image im;
    image_open(&im, out);
    GElf_Ehdr eh;
    gelf_getehdr(im.e, &eh);
    assert_int_equal(eh.e_type, ET_EXEC);
    assert_int_equal(eh.e_machine, WT_EM_WARP);
    assert_int_equal(eh.e_entry, 0);
    assert_int_equal(eh.e_flags, 0);

    /* Layout: a's 3 bundles, then b's; func is b's second bundle, bundle 4. */
    wt_insn b0 = image_bundle(&im, 0);
    assert_int_equal(b0.slot[WT_SLOT_BR].op, WT_OP_CALL);
    assert_int_equal(b0.target, 4);
    /* Data: a's 16 bytes from 0, b's from 16 (dvar at 24), b's .bss from 28. */
    assert_int_equal(b0.slot[WT_SLOT_A0].opnd[2], WT_OPND_IMM0);
    assert_int_equal(b0.imm[0], 24 + 4);
    wt_insn b1 = image_bundle(&im, 1);
    assert_int_equal(b1.slot[WT_SLOT_M0].opnd[2], WT_OPND_IMM0);
    assert_int_equal(b1.imm[0], 8);
    wt_insn b4 = image_bundle(&im, 4);
    assert_int_equal(b4.slot[WT_SLOT_BR].op, WT_OP_JMP);
    assert_int_equal(b4.target, 4);
    assert_int_equal(b4.imm[0], 4);
    assert_int_equal(image_bundle(&im, 5).slot[WT_SLOT_BR].op, WT_OP_RET);

    GElf_Shdr sh;
    const uint8_t *d = image_section(&im, ".data", &sh);
    assert_int_equal(sh.sh_size, 28);
    assert_int_equal(sh.sh_addr, WT_DATA_SPACE);
    uint32_t words[7];
    for (int i = 0; i < 7; i++) words[i] = get32((const char *)d + 4 * i);
    assert_int_equal(words[0], 5);
    assert_int_equal(words[1], 24);       /* dvar */
    assert_int_equal(words[2], 4 * 40);   /* func, a program byte address */
    assert_int_equal(words[3], 4);        /* data+4 in host memory */
    assert_int_equal(words[4], 1);
    assert_int_equal(words[6], 3);
    image_section(&im, ".bss", &sh);
    assert_int_equal(sh.sh_addr, WT_DATA_SPACE + 28);
    assert_int_equal(sh.sh_size, 8);
    image_section(&im, ".host", &sh);
    assert_int_equal(sh.sh_type, SHT_NOBITS);
    assert_int_equal(sh.sh_size, 48);

    const uint8_t *p = image_section(&im, ".warp.host", &sh);
    const char *hosts = "data in float 10 0\nresults out int 2 0\n";
    assert_int_equal(sh.sh_size, strlen(hosts));
    assert_memory_equal(p, hosts, sh.sh_size);
    p = image_section(&im, ".warp.cells", &sh);
    assert_int_equal(sh.sh_size, 6);
    assert_memory_equal(p, "0 3 0\n", 6);
    p = image_section(&im, ".warp.files", &sh);
    assert_int_equal(sh.sh_size, 10);
    assert_memory_equal(p, "a.w2\0b.w2", 10);
    p = image_section(&im, ".warp.lines", &sh);
    assert_int_equal(sh.sh_size, 32);
    static const uint8_t recs[32] = {0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
                                     160, 0, 0, 0, 7, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0};
    assert_memory_equal(p, recs, 32);

    GElf_Sym s = image_symbol(&im, "func");
    assert_int_equal(s.st_value, 160);
    assert_int_equal(GELF_ST_TYPE(s.st_info), STT_FUNC);
    assert_int_equal(s.st_shndx, 1);
    s = image_symbol(&im, "dvar");
    assert_int_equal(s.st_value, WT_DATA_SPACE + 24);
    assert_int_equal(s.st_shndx, 2);
    s = image_symbol(&im, "bvar");
    assert_int_equal(s.st_value, WT_DATA_SPACE + 28);
    assert_int_equal(GELF_ST_BIND(s.st_info), STB_LOCAL);
    s = image_symbol(&im, "results");
    assert_int_equal(s.st_value, 40);
    assert_int_equal(s.st_shndx, 4);
    s = image_symbol(&im, "data");
    assert_int_equal(s.st_value, 0);

    size_t phnum;
    elf_getphdrnum(im.e, &phnum);
    assert_int_equal(phnum, 2);
    GElf_Phdr ph;
    gelf_getphdr(im.e, 0, &ph);
    assert_int_equal(ph.p_type, PT_LOAD);
    assert_int_equal(ph.p_vaddr, 0);
    assert_int_equal(ph.p_filesz, 6 * 40);
    assert_int_equal(ph.p_flags, PF_R | PF_X);
    image_section(&im, ".text", &sh);
    assert_int_equal(ph.p_offset, sh.sh_offset);
    gelf_getphdr(im.e, 1, &ph);
    assert_int_equal(ph.p_type, PT_LOAD);
    assert_int_equal(ph.p_vaddr, WT_DATA_SPACE);
    assert_int_equal(ph.p_filesz, 28);
    assert_int_equal(ph.p_memsz, 36);
    assert_int_equal(ph.p_flags, PF_R | PF_W);
    image_close(&im);
    assert_readelf_clean(out);

    /* The same inputs give the same bytes. */
    const char *again = tmp_path("img2");
    assert_int_equal(link_capture(in, 2, again, NULL, &err), 0);
    free(err);
    size_t n1, n2;
    char *x = read_all(out, &n1), *y = read_all(again, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(x, y, n1);
    free(x);
    free(y);
    unlink(out);
    unlink(again);
}

static void test_models(void **state)
{
    (void)state;
    /* An object built for no model in particular joins either. */
    assemble_to(".globl _start\n_start: call main\nhalt\n", "crt0.o", NULL);
    assemble_to(".globl main\nmain: ret\n", "iw.o", wt_model_get(WT_MODEL_IWARP));
    const char *in[] = {tmp_path("crt0.o"), tmp_path("iw.o")};
    const char *out = tmp_path("img");
    char *err;
    assert_int_equal(link_capture(in, 2, out, NULL, &err), 0);
    free(err);
    image im;
    image_open(&im, out);
    GElf_Ehdr eh;
    gelf_getehdr(im.e, &eh);
    assert_int_equal(eh.e_flags, WT_EF_IWARP);
    assert_int_equal(image_bundle(&im, 0).target, 2);
    GElf_Shdr sh;
    const uint8_t *cells = image_section(&im, ".warp.cells", &sh);
    assert_int_equal(sh.sh_size, 6);
    assert_memory_equal(cells, "0 0 0\n", 6);
    image_close(&im);
    unlink(out);
    /* -e names another entry. */
    assert_int_equal(link_capture(in, 2, out, "main", &err), 0);
    free(err);
    image_open(&im, out);
    gelf_getehdr(im.e, &eh);
    assert_int_equal(eh.e_entry, 80);
    image_close(&im);
    unlink(out);
}

/* ---- Errors ------------------------------------------------------------------------- */

/* Links the inputs expecting failure: -1, one line naming file and fault, no output. */
static void expect_failure(const char *const *in, size_t n, const char *entry, const char *expected)
{
    const char *out = tmp_path("bad.img");
    unlink(out);
    char *err;
    int rc = link_capture(in, n, out, entry, &err);
    if (rc != -1 || strcmp(err, expected) != 0)
        fail_msg("got (rc %d):\n%s\nexpected:\n%s", rc, err, expected);
    if (file_exists(out)) fail_msg("%s was written", out);
    /* Nor a temporary file beside it. */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls %s | grep -q 'bad.img.tmp'", tmpdir);
    if (system(cmd) == 0) fail_msg("a temporary file was left behind");
    free(err);
}

static void test_undefined_and_duplicate(void **state)
{
    (void)state;
    char line[512];
    assemble_to(a_src, "a.o", NULL);
    assemble_to(b_src, "b.o", NULL);
    assemble_to(".globl main\nmain: call missing | mv r1, gone\n", "u.o", NULL);
    const char *a[] = {tmp_path("a.o")};
    snprintf(line, sizeof line, "warp-ld: %s: undefined symbol 'func'\nwarp-ld: %s: undefined symbol 'dvar'\n",
             a[0], a[0]);
    expect_failure(a, 1, NULL, line);
    const char *u[] = {tmp_path("u.o")};
    snprintf(line, sizeof line, "warp-ld: %s: undefined symbol 'missing'\nwarp-ld: %s: undefined symbol 'gone'\n",
             u[0], u[0]);
    expect_failure(u, 1, "main", line);
    const char *dup[] = {tmp_path("a.o"), tmp_path("b.o"), tmp_path("a.o")};
    snprintf(line, sizeof line, "warp-ld: %s: duplicate definition of '_start' (first defined in %s)\n", dup[2], dup[0]);
    expect_failure(dup, 3, NULL, line);
    const char *noentry[] = {tmp_path("b.o"), tmp_path("a.o")};
    snprintf(line, sizeof line, "warp-ld: %s: entry symbol 'nowhere' is not defined\n", tmp_path("bad.img"));
    expect_failure(noentry, 2, "nowhere", line);
    const char *missing[] = {tmp_path("nonexistent.o")};
    snprintf(line, sizeof line, "warp-ld: %s: No such file or directory\n", missing[0]);
    expect_failure(missing, 1, NULL, line);
}

static void test_conflicts(void **state)
{
    (void)state;
    char line[512];
    assemble_to(a_src, "a.o", NULL);
    assemble_to(b_src, "b.o", NULL);
    assemble_to(".model iwarp\nhalt\n", "iw.o", NULL);
    assemble_to(".cells 1, 3\nhalt\n", "cells.o", NULL);
    assemble_to(".host data, in, int, 10\n", "host.o", NULL);
    const char *mixed[] = {tmp_path("a.o"), tmp_path("b.o"), tmp_path("iw.o")};
    snprintf(line, sizeof line, "warp-ld: %s: built for the iwarp model, but %s is built for warp\n", mixed[2], mixed[0]);
    expect_failure(mixed, 3, NULL, line);
    const char *cells[] = {tmp_path("a.o"), tmp_path("b.o"), tmp_path("cells.o")};
    snprintf(line, sizeof line, "warp-ld: %s: cells 1..3 (skew 0) do not agree with 0..3 (skew 0) in %s\n", cells[2], cells[0]);
    expect_failure(cells, 3, NULL, line);
    const char *host[] = {tmp_path("a.o"), tmp_path("b.o"), tmp_path("host.o")};
    snprintf(line, sizeof line,
             "warp-ld: %s: host array declared as 'data in int 10 0', but %s declares 'data in float 10 0'\n",
             host[2], host[0]);
    expect_failure(host, 3, NULL, line);

    /* Memories of the model: 8192 bundles and 16 KiB of data on Warp. */
    ws_buf big = {0};
    ws_buf_puts(&big, ".model warp\n.globl _start\n_start:\n");
    for (int i = 0; i < 8193; i++) ws_buf_puts(&big, "nop\n");
    assemble_to(big.data, "big.o", NULL);
    ws_buf_free(&big);
    const char *bigp[] = {tmp_path("big.o")};
    snprintf(line, sizeof line,
             "warp-ld: %s: program of 8193 bundles does not fit the warp model's program memory (8192 bundles)\n", bigp[0]);
    expect_failure(bigp, 1, NULL, line);
    assemble_to(".model warp\n.globl _start\n_start: halt\n.data\n.zero 16000\n.bss\n.zero 400\n", "bigdata.o", NULL);
    const char *bigd[] = {tmp_path("bigdata.o")};
    snprintf(line, sizeof line,
             "warp-ld: %s: data of 16400 bytes does not fit the warp model's data memory (16384 bytes)\n", bigd[0]);
    expect_failure(bigd, 1, NULL, line);
    assemble_to(".globl _start\n_start: jmp d\n", "brdata.o", NULL);
    assemble_to(".data\n.globl d\nd: .word 0\n", "d.o", NULL);
    const char *brd[] = {tmp_path("brdata.o"), tmp_path("d.o")};
    snprintf(line, sizeof line, "warp-ld: %s: branch target 'd' is not in .text\n", brd[0]);
    expect_failure(brd, 2, NULL, line);
}

/* Writes a copy of a.o with `patch` applied and expects the link of it to fail
 * with `what`. */
static void corrupt_case(const char *name, void (*patch)(char *buf, size_t *size), const char *what)
{
    size_t n;
    char *buf = read_all(tmp_path("a.o"), &n);
    buf = realloc(buf, n + 64);
    patch(buf, &n);
    const char *path = tmp_path(name);
    write_all(path, buf, n);
    free(buf);
    char line[512];
    snprintf(line, sizeof line, "warp-ld: %s: %s\n", path, what);
    const char *in[] = {path};
    expect_failure(in, 1, NULL, line);
}

static void p_truncate(char *b, size_t *n) { (void)b; *n = 200; }
static void p_tiny(char *b, size_t *n) { (void)b; *n = 30; }
static void p_garbage(char *b, size_t *n) { memcpy(b, "\x7f" "ELF garbage", 12); *n = 12; }
static void p_not_elf(char *b, size_t *n) { (void)n; b[1] = 'X'; }
static void p_machine(char *b, size_t *n) { (void)n; b[18] = 0x3e; b[19] = 0; }
static void p_class(char *b, size_t *n) { (void)n; b[EI_CLASS] = ELFCLASS64; }
static void p_endian(char *b, size_t *n) { (void)n; b[EI_DATA] = ELFDATA2MSB; }
static void p_type(char *b, size_t *n) { (void)n; b[16] = ET_DYN; }
static void p_flags(char *b, size_t *n) { (void)n; b[36] = 0x10; }
static void p_shoff(char *b, size_t *n) { put32(b + 32, (uint32_t)*n - 8); }
static void p_shnum(char *b, size_t *n) { (void)n; b[48] = (char)0xff; b[49] = 0x7f; }
static void p_shstrndx(char *b, size_t *n) { (void)n; b[50] = 99; }
static void p_sec_offset(char *b, size_t *n) { (void)n; put32(b + shdr_of(b, ".data") + 16, 0x7fffff00u); }
static void p_sec_size(char *b, size_t *n) { (void)n; put32(b + shdr_of(b, ".warp.host") + 20, 0x10000); }
static void p_sec_name(char *b, size_t *n) { (void)n; put32(b + shdr_of(b, ".data"), 0x100000); }
static void p_text_size(char *b, size_t *n) { (void)n; put32(b + shdr_of(b, ".text") + 20, 100); }
static void p_symtab_entsize(char *b, size_t *n) { (void)n; put32(b + shdr_of(b, ".symtab") + 36, 12); }

static void p_sym_name(char *b, size_t *n)
{
    (void)n;
    size_t sh = shdr_of(b, ".symtab");
    put32(b + get32(b + sh + 16) + 16 * 5, 0xffff);  /* symbol 5's st_name */
}

static void p_reloc_offset(char *b, size_t *n)
{
    (void)n;
    size_t sh = shdr_of(b, ".rela.text");
    put32(b + get32(b + sh + 16), 4000);
}

static void p_reloc_type(char *b, size_t *n)
{
    (void)n;
    size_t sh = shdr_of(b, ".rela.data");
    char *info = b + get32(b + sh + 16) + 4;
    put32(info, (get32(info) & ~0xffu) | WT_R_TARGET);
}

static void p_reloc_sym(char *b, size_t *n)
{
    (void)n;
    size_t sh = shdr_of(b, ".rela.text");
    char *info = b + get32(b + sh + 16) + 4;
    put32(info, (500u << 8) | (get32(info) & 0xffu));
}

static void p_bundle(char *b, size_t *n)
{
    (void)n;
    b[get32(b + shdr_of(b, ".text") + 16) + 40 + 39] = 1;  /* a reserved bit of bundle 1 */
}

static void p_opcode(char *b, size_t *n)
{
    (void)n;
    b[get32(b + shdr_of(b, ".text") + 16) + 80] = 0x0f;  /* FA opcode 15: undefined */
}

static void p_lines(char *b, size_t *n)
{
    (void)n;
    put32(b + get32(b + shdr_of(b, ".warp.lines") + 16) + 12, 7);  /* file index 7 */
}

static void p_host(char *b, size_t *n)
{
    (void)n;
    b[get32(b + shdr_of(b, ".warp.host") + 16) + 5] = 'X';  /* "data Xn float..." */
}

static void test_corrupt_objects(void **state)
{
    (void)state;
    assemble_to(a_src, "a.o", NULL);
    corrupt_case("trunc.o", p_truncate, "section header table extends past the end of the file");
    corrupt_case("tiny.o", p_tiny, "truncated ELF header");
    corrupt_case("garbage.o", p_garbage, "truncated ELF header");
    corrupt_case("notelf.o", p_not_elf, "not an ELF file");
    corrupt_case("machine.o", p_machine, "not a Warp object (e_machine 0x3e, expected 0x5741)");
    corrupt_case("class.o", p_class, "not a 32-bit ELF file");
    corrupt_case("endian.o", p_endian, "not a little-endian ELF file");
    corrupt_case("type.o", p_type, "not a relocatable object (ELF type 3)");
    corrupt_case("flags.o", p_flags, "unknown e_flags 0x10");
    corrupt_case("shoff.o", p_shoff, "section header table extends past the end of the file");
    corrupt_case("shnum.o", p_shnum, "too many sections (32767)");
    corrupt_case("shstrndx.o", p_shstrndx, "bad section name table index 99");
    corrupt_case("secoff.o", p_sec_offset, "section 2 extends past the end of the file");
    corrupt_case("secsize.o", p_sec_size, "section 5 extends past the end of the file");
    corrupt_case("secname.o", p_sec_name, "section 2: name offset 1048576 is past the section name table");
    corrupt_case("textsize.o", p_text_size, ".text size 100 is not a whole number of 40-byte bundles");
    corrupt_case("symentsize.o", p_symtab_entsize, "bad symbol table entry size");
    corrupt_case("symname.o", p_sym_name, "symbol 5: name offset 65535 is past the string table");
    corrupt_case("reloff.o", p_reloc_offset, "relocation 0: offset 0xfa0 is outside .text (120 bytes)");
    corrupt_case("reltype.o", p_reloc_type, "relocation 0 in .data: type 3 does not apply there");
    corrupt_case("relsym.o", p_reloc_sym, "relocation 0 in .text: symbol index 500 is past the symbol table");
    corrupt_case("bundle.o", p_bundle, "invalid bundle at .text+0x28");
    corrupt_case("opcode.o", p_opcode, "invalid bundle at .text+0x50");
    corrupt_case("lines.o", p_lines, ".warp.lines record 0: file index 7, but .warp.files has 1");
    corrupt_case("host.o", p_host, ".warp.host: malformed line 'data Xn float 10 0'");

    /* An image is not an object. */
    assemble_to(b_src, "b.o", NULL);
    const char *in[] = {tmp_path("a.o"), tmp_path("b.o")};
    const char *img = tmp_path("good.img");
    char *err;
    assert_int_equal(link_capture(in, 2, img, NULL, &err), 0);
    free(err);
    char line[256];
    snprintf(line, sizeof line, "warp-ld: %s: is a linked image, not a relocatable object\n", img);
    const char *imgs[] = {img};
    expect_failure(imgs, 1, NULL, line);
    unlink(img);
}

/* Every truncation of a good object is refused cleanly (and never crashes). */
static void test_every_truncation(void **state)
{
    (void)state;
    assemble_to(a_src, "a.o", NULL);
    size_t n;
    char *buf = read_all(tmp_path("a.o"), &n);
    const char *path = tmp_path("cut.o"), *out = tmp_path("cut.img");
    for (size_t len = 0; len < n; len += 7) {
        write_all(path, buf, len);
        char *err;
        const char *in[] = {path};
        int rc = link_capture(in, 1, out, NULL, &err);
        if (rc != -1 || strncmp(err, "warp-ld: ", 9) != 0 || strchr(err, '\n') != err + strlen(err) - 1)
            fail_msg("length %zu: rc %d, %s", len, rc, err);
        assert_false(file_exists(out));
        free(err);
    }
    free(buf);
    unlink(path);
}

static int setup(void **state)
{
    (void)state;
    ws_set_progname("warp-ld");
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_linker.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_link_two_objects),
        cmocka_unit_test(test_models),
        cmocka_unit_test(test_undefined_and_duplicate),
        cmocka_unit_test(test_conflicts),
        cmocka_unit_test(test_corrupt_objects),
        cmocka_unit_test(test_every_truncation),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
