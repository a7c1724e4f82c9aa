/* Unit tests of assembler/: the syntax of docs/design.md section 3, slot
 * assignment, literal fields, relocations, the object's sections and symbols, each
 * diagnostic with its position, error recovery and determinism. */
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
#include "warp_support.h"
#include "warp_target.h"

static char tmpdir[64];
static char out_path[128];

/* ---- Helpers ----------------------------------------------------------------------- */

/* Assembles src as "t.s" into tmpdir/t.o; the diagnostics in *diag (may be NULL). */
static int assemble_as(const char *src, const wt_model *model, const char *out, char **diag)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ws_diag d;
    ws_diag_init(&d, "t.s", src, strlen(src));
    d.out = f;
    was_options opts = {.model = model};
    int rc = was_assemble("t.s", src, strlen(src), &opts, out, &d);
    fclose(f);
    if (diag) *diag = text;
    else free(text);
    return rc;
}

static int assemble(const char *src, char **diag)
{
    unlink(out_path);
    return assemble_as(src, NULL, out_path, diag);
}

typedef struct object {
    char *buf;
    size_t size;
    Elf *e;
    size_t shstrndx;
} object;

static void object_open(object *o, const char *path)
{
    char err[256];
    o->buf = ws_read_file(path, &o->size, 1u << 24, err, sizeof err);
    if (!o->buf) fail_msg("%s: %s", path, err);
    elf_version(EV_CURRENT);
    o->e = elf_memory(o->buf, o->size);
    assert_non_null(o->e);
    assert_int_equal(elf_getshdrstrndx(o->e, &o->shstrndx), 0);
}

static void object_close(object *o)
{
    elf_end(o->e);
    free(o->buf);
}

static Elf_Scn *section(object *o, const char *name, GElf_Shdr *sh)
{
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(o->e, scn));) {
        gelf_getshdr(scn, sh);
        if (strcmp(elf_strptr(o->e, o->shstrndx, sh->sh_name), name) == 0) return scn;
    }
    fail_msg("no section %s", name);
    return NULL;
}

static const uint8_t *section_bytes(object *o, const char *name, size_t *size)
{
    GElf_Shdr sh;
    Elf_Scn *scn = section(o, name, &sh);
    Elf_Data *d = elf_rawdata(scn, NULL);
    *size = d ? d->d_size : 0;
    return d ? d->d_buf : (const uint8_t *)"";
}

static int find_symbol(object *o, const char *name, GElf_Sym *out)
{
    GElf_Shdr sh;
    Elf_Scn *scn = section(o, ".symtab", &sh);
    Elf_Data *d = elf_getdata(scn, NULL);
    for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
        gelf_getsym(d, (int)i, out);
        if (strcmp(elf_strptr(o->e, sh.sh_link, out->st_name), name) == 0) return (int)i;
    }
    return -1;
}

static const char *symbol_name(object *o, unsigned index)
{
    GElf_Shdr sh;
    Elf_Scn *scn = section(o, ".symtab", &sh);
    GElf_Sym s;
    gelf_getsym(elf_getdata(scn, NULL), (int)index, &s);
    if (GELF_ST_TYPE(s.st_info) == STT_SECTION) {
        GElf_Shdr target;
        gelf_getshdr(elf_getscn(o->e, s.st_shndx), &target);
        return elf_strptr(o->e, o->shstrndx, target.sh_name);
    }
    return elf_strptr(o->e, sh.sh_link, s.st_name);
}

/* The relocations of a section as "OFFSET TYPE SYMBOL+ADDEND;" text. */
static char *relocations(object *o, const char *name)
{
    GElf_Shdr sh;
    Elf_Scn *scn = section(o, name, &sh);
    Elf_Data *d = elf_getdata(scn, NULL);
    ws_buf b = {0};
    ws_buf_append(&b, "", 0);
    for (size_t i = 0; i < sh.sh_size / sizeof(Elf32_Rela); i++) {
        GElf_Rela r;
        gelf_getrela(d, (int)i, &r);
        ws_buf_printf(&b, "%u %u %s%+d;", (unsigned)r.r_offset, (unsigned)GELF_R_TYPE(r.r_info),
                      symbol_name(o, (unsigned)GELF_R_SYM(r.r_info)), (int)r.r_addend);
    }
    return b.data;
}

static wt_insn bundle(object *o, unsigned index)
{
    size_t size;
    const uint8_t *t = section_bytes(o, ".text", &size);
    assert_true((index + 1) * WT_BUNDLE_BYTES <= size);
    wt_insn in;
    assert_int_equal(wt_decode(t + index * WT_BUNDLE_BYTES, &in), 0);
    return in;
}

static char *first_line(const char *s)
{
    const char *nl = strchr(s, '\n');
    return ws_xstrndup(s, nl ? (size_t)(nl - s) : strlen(s));
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* readelf must read the file without a single warning (when binutils is here). */
static void assert_readelf_clean(const char *path)
{
    if (system("readelf --version >/dev/null 2>&1") != 0) return;
    static const char *const forms[] = {"readelf -a -W '%s' 2>&1 >/dev/null",
                                        "readelf -h -S -s -r -W '%s' 2>&1 | grep -i warning"};
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

/* Runs with stderr going to a string (the output-file errors are written there). */
static char *stderr_to_file_begin(int *saved, char *path, size_t size)
{
    snprintf(path, size, "%s/stderr.txt", tmpdir);
    fflush(stderr);
    *saved = dup(2);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    dup2(fileno(f), 2);
    fclose(f);
    return path;
}

static char *stderr_to_file_end(int saved, const char *path)
{
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char err[128];
    size_t n;
    char *text = ws_read_file(path, &n, 1u << 20, err, sizeof err);
    unlink(path);
    assert_non_null(text);
    return text;
}

/* ---- Syntax ---------------------------------------------------------------------- */

static const char *design_example =
    "        .model  warp                  ; or iwarp: must match -mcpu\n"
    "        .cells  0, 9                  ; cellprogram (cid : 0 : 9)\n"
    "        .file   \"polynomial.w2\"\n"
    "        .host   data, in, float, 100  ; host array (dims: D0 [, D1]; 0 = scalar)\n"
    "        .host   results, out, float, 100\n"
    "        .bss\n"
    "        .globl  coeff\n"
    "        .type   coeff, @object\n"
    "        .size   coeff, 4\n"
    "coeff:  .zero   4\n"
    "        .data\n"
    "tab:    .word   1, 2.5, coeff+4       ; 32-bit words: int, float, symbol+addend\n"
    "        .text\n"
    "        .globl  main\n"
    "        .type   main, @function\n"
    "main:\n"
    "        .loc    21 5                  ; source line, column of what follows\n"
    "        mv r1, 0 | iadd r2, r0, 99\n"
    ".L1:    fmul r3, @xl, @yl | mv @xr, @xl | hld @fxl, [r2, data]\n"
    "        ld r4, [r0, coeff] | st [r5, 8], r4\n"
    "        bnz r2, .L1 | isub r2, r2, 1\n"
    "        ret\n";

static void test_design_example(void **state)
{
    (void)state;
    char *diag;
    assert_int_equal(assemble(design_example, &diag), 0);
    assert_string_equal(diag, "");
    free(diag);
    object o;
    object_open(&o, out_path);
    GElf_Ehdr eh;
    gelf_getehdr(o.e, &eh);
    assert_int_equal(eh.e_type, ET_REL);
    assert_int_equal(eh.e_machine, WT_EM_WARP);
    assert_int_equal(eh.e_flags, 0);
    assert_int_equal(eh.e_ident[EI_CLASS], ELFCLASS32);
    assert_int_equal(eh.e_ident[EI_DATA], ELFDATA2LSB);

    /* Section order and kinds are the contract; the .loc gives a DWARF line program. */
    static const char *names[] = {".text", ".data", ".bss", ".host", ".warp.host", ".warp.cells",
                                  ".warp.lines", ".warp.files", ".debug_line", ".rela.text", ".rela.data",
                                  ".warp.rel.debug_line", ".symtab", ".strtab", ".shstrtab"};
    static const unsigned types[] = {SHT_PROGBITS, SHT_PROGBITS, SHT_NOBITS, SHT_NOBITS, SHT_PROGBITS,
                                     SHT_PROGBITS, SHT_PROGBITS, SHT_PROGBITS, SHT_PROGBITS, SHT_RELA, SHT_RELA,
                                     WT_SHT_DEBUG_REL, SHT_SYMTAB, SHT_STRTAB, SHT_STRTAB};
    size_t shnum;
    elf_getshdrnum(o.e, &shnum);
    assert_int_equal(shnum, 16);
    for (size_t i = 1; i < shnum; i++) {
        GElf_Shdr sh;
        gelf_getshdr(elf_getscn(o.e, i), &sh);
        assert_string_equal(elf_strptr(o.e, o.shstrndx, sh.sh_name), names[i - 1]);
        assert_int_equal(sh.sh_type, types[i - 1]);
    }
    GElf_Shdr sh;
    section(&o, ".text", &sh);
    assert_int_equal(sh.sh_entsize, 40);
    assert_int_equal(sh.sh_flags, SHF_ALLOC | SHF_EXECINSTR);
    assert_int_equal(sh.sh_size, 5 * 40);
    section(&o, ".bss", &sh);
    assert_int_equal(sh.sh_size, 4);
    section(&o, ".host", &sh);
    assert_int_equal(sh.sh_size, 800);
    assert_int_equal(sh.sh_flags, 0);

    size_t n;
    const uint8_t *p = section_bytes(&o, ".warp.host", &n);
    assert_int_equal(n, strlen("data in float 100 0\nresults out float 100 0\n"));
    assert_memory_equal(p, "data in float 100 0\nresults out float 100 0\n", n);
    p = section_bytes(&o, ".warp.cells", &n);
    assert_int_equal(n, 6);
    assert_memory_equal(p, "0 9 0\n", 6);
    p = section_bytes(&o, ".warp.files", &n);
    assert_int_equal(n, 14);
    assert_memory_equal(p, "polynomial.w2", 14);
    p = section_bytes(&o, ".warp.lines", &n);
    assert_int_equal(n, 16);
    static const uint8_t rec[16] = {0, 0, 0, 0, 21, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0};
    assert_memory_equal(p, rec, 16);
    p = section_bytes(&o, ".data", &n);
    assert_int_equal(n, 12);
    static const uint8_t words[12] = {1, 0, 0, 0, 0, 0, 0x20, 0x40, 0, 0, 0, 0};
    assert_memory_equal(p, words, 12);

    /* Bundle 0: mv in V0 with literal 0 in IMM0; iadd in A0 with 99 in IMM1. */
    wt_insn b0 = bundle(&o, 0);
    assert_int_equal(b0.slot[WT_SLOT_V0].op, WT_OP_MV);
    assert_int_equal(b0.slot[WT_SLOT_V0].opnd[0], 1);
    assert_int_equal(b0.slot[WT_SLOT_V0].opnd[1], WT_OPND_IMM0);
    assert_int_equal(b0.slot[WT_SLOT_A0].op, WT_OP_IADD);
    assert_int_equal(b0.slot[WT_SLOT_A0].opnd[2], WT_OPND_IMM1);
    assert_int_equal(b0.imm[0], 0);
    assert_int_equal(b0.imm[1], 99);
    /* Bundle 1: the gate read twice stays the same operand code. */
    wt_insn b1 = bundle(&o, 1);
    assert_int_equal(b1.slot[WT_SLOT_FM].op, WT_OP_FMUL);
    assert_int_equal(b1.slot[WT_SLOT_FM].opnd[1], WT_OPND_GATE + WT_Q_XL);
    assert_int_equal(b1.slot[WT_SLOT_V0].opnd[0], WT_OPND_GATE + WT_Q_XR);
    assert_int_equal(b1.slot[WT_SLOT_V0].opnd[1], WT_OPND_GATE + WT_Q_XL);
    assert_int_equal(b1.slot[WT_SLOT_M0].op, WT_OP_HLD);
    assert_int_equal(b1.slot[WT_SLOT_M0].opnd[0], WT_OPND_FEED + WT_Q_XL);
    assert_int_equal(b1.slot[WT_SLOT_M0].opnd[2], WT_OPND_IMM0);
    /* Bundle 2: two memory operations fill M0 and M1. */
    wt_insn b2 = bundle(&o, 2);
    assert_int_equal(b2.slot[WT_SLOT_M0].op, WT_OP_LD);
    assert_int_equal(b2.slot[WT_SLOT_M1].op, WT_OP_ST);
    assert_int_equal(b2.slot[WT_SLOT_M1].opnd[0], 4);
    assert_int_equal(b2.slot[WT_SLOT_M1].opnd[1], 5);
    assert_int_equal(b2.slot[WT_SLOT_M1].opnd[2], WT_OPND_IMM1);
    assert_int_equal(b2.imm[1], 8);
    wt_insn b3 = bundle(&o, 3);
    assert_int_equal(b3.slot[WT_SLOT_BR].op, WT_OP_BNZ);
    assert_int_equal(b3.slot[WT_SLOT_BR].opnd[3], 2);
    assert_int_equal(bundle(&o, 4).slot[WT_SLOT_BR].op, WT_OP_RET);

    char *r = relocations(&o, ".rela.text");
    assert_string_equal(r, "40 1 data+0;80 1 coeff+0;120 3 .text+40;");
    free(r);
    r = relocations(&o, ".rela.data");
    assert_string_equal(r, "8 4 coeff+4;");
    free(r);

    GElf_Sym s;
    int idx = find_symbol(&o, "data", &s);
    assert_true(idx > 0);
    assert_int_equal(GELF_ST_BIND(s.st_info), STB_GLOBAL);
    assert_int_equal(GELF_ST_TYPE(s.st_info), STT_OBJECT);
    assert_int_equal(s.st_size, 400);
    assert_int_equal(s.st_value, 0);
    assert_true(find_symbol(&o, "results", &s) > 0);
    assert_int_equal(s.st_value, 400);
    assert_true(find_symbol(&o, "main", &s) > 0);
    assert_int_equal(GELF_ST_TYPE(s.st_info), STT_FUNC);
    assert_int_equal(GELF_ST_BIND(s.st_info), STB_GLOBAL);
    assert_int_equal(s.st_shndx, 1);
    assert_true(find_symbol(&o, "coeff", &s) > 0);
    assert_int_equal(s.st_size, 4);
    assert_int_equal(s.st_shndx, 3);
    assert_true(find_symbol(&o, "tab", &s) > 0);
    assert_int_equal(GELF_ST_BIND(s.st_info), STB_LOCAL);
    assert_int_equal(find_symbol(&o, ".L1", &s), -1);
    object_close(&o);
    assert_readelf_clean(out_path);
}

static void test_labels_comments_and_nop(void **state)
{
    (void)state;
    const char *src = "; a comment line\n"
                      "\n"
                      "a: b:   nop            ; two labels, one bundle\n"
                      "c:\n"
                      "\tnop ; tab indented\n"
                      "$x.y_1: halt\n";
    assert_int_equal(assemble(src, NULL), 0);
    object o;
    object_open(&o, out_path);
    GElf_Sym s;
    assert_true(find_symbol(&o, "a", &s) > 0);
    assert_int_equal(s.st_value, 0);
    assert_true(find_symbol(&o, "b", &s) > 0);
    assert_int_equal(s.st_value, 0);
    assert_true(find_symbol(&o, "c", &s) > 0);
    assert_int_equal(s.st_value, 40);
    assert_true(find_symbol(&o, "$x.y_1", &s) > 0);
    assert_int_equal(s.st_value, 80);
    wt_insn n0 = bundle(&o, 0);
    for (int k = 0; k < WT_NSLOTS; k++) assert_int_equal(n0.slot[k].op, WT_OP_NONE);
    assert_int_equal(bundle(&o, 2).slot[WT_SLOT_BR].op, WT_OP_HALT);
    object_close(&o);
}

static void test_slot_assignment(void **state)
{
    (void)state;
    const char *src = "iadd r1, r2, r3 | isub r4, r5, r6 | ld r7, [r8] | ld r9, [r10, r11] | "
                      "mv r12, r13 | mv @xr, @yl | fadd r14, r15, r16 | fmul r17, r18, r19 | halt\n";
    assert_int_equal(assemble(src, NULL), 0);
    object o;
    object_open(&o, out_path);
    wt_insn b = bundle(&o, 0);
    assert_int_equal(b.slot[WT_SLOT_A0].op, WT_OP_IADD);
    assert_int_equal(b.slot[WT_SLOT_A1].op, WT_OP_ISUB);
    assert_int_equal(b.slot[WT_SLOT_M0].op, WT_OP_LD);
    assert_int_equal(b.slot[WT_SLOT_M0].opnd[2], 0); /* [A] is [A, r0] */
    assert_int_equal(b.slot[WT_SLOT_M1].opnd[2], 11);
    assert_int_equal(b.slot[WT_SLOT_V0].opnd[0], 12);
    assert_int_equal(b.slot[WT_SLOT_V1].opnd[0], WT_OPND_GATE + WT_Q_XR);
    assert_int_equal(b.slot[WT_SLOT_FA].op, WT_OP_FADD);
    assert_int_equal(b.slot[WT_SLOT_FM].op, WT_OP_FMUL);
    assert_int_equal(b.slot[WT_SLOT_BR].op, WT_OP_HALT);
    object_close(&o);
}

/* ---- Literals ---------------------------------------------------------------------- */

static void test_literal_sharing_and_typing(void **state)
{
    (void)state;
    const char *src =
        "fadd r1, r2, 1.5 | fmul r3, r4, 1.5\n"             /* equal floats share IMM0 */
        "iadd r1, r2, 5 | isub r3, r4, 0x5 | mv r5, 7\n"     /* 5 and 0x5 share; 7 in IMM1 */
        "fadd r1, r2, 2 | fmul r1, r2, 0x40000000\n"         /* int 2 in float is 2.0f: shared with raw bits */
        "mv r1, 2.5 | mv r2, -1\n"                           /* untyped: float bits, int bits */
        "fadd r1, r2, -inf | fmul r3, r4, nan\n"
        "iadd r1, r0, sym+4 | isub r2, r0, sym+4 | ld r3, [r0, sym-4]\n"
        "fadd r1, r2, 1e3 | iadd r1, r2, -2147483648\n"
        "mv r1, 4294967295\n";
    assert_int_equal(assemble(src, NULL), 0);
    object o;
    object_open(&o, out_path);
    wt_insn b = bundle(&o, 0);
    assert_int_equal(b.slot[WT_SLOT_FA].opnd[2], WT_OPND_IMM0);
    assert_int_equal(b.slot[WT_SLOT_FM].opnd[2], WT_OPND_IMM0);
    assert_int_equal(b.imm[0], wt_u(1.5f));
    assert_int_equal(b.imm[1], 0);
    b = bundle(&o, 1);
    assert_int_equal(b.slot[WT_SLOT_A1].opnd[2], WT_OPND_IMM0);
    assert_int_equal(b.slot[WT_SLOT_V0].opnd[1], WT_OPND_IMM1);
    assert_int_equal(b.imm[0], 5);
    assert_int_equal(b.imm[1], 7);
    b = bundle(&o, 2);
    assert_int_equal(b.imm[0], 0x40000000u);
    assert_int_equal(b.slot[WT_SLOT_FM].opnd[2], WT_OPND_IMM0);
    b = bundle(&o, 3);
    assert_int_equal(b.imm[0], wt_u(2.5f));
    assert_int_equal(b.imm[1], 0xffffffffu);
    b = bundle(&o, 4);
    assert_int_equal(b.imm[0], 0xff800000u);
    assert_int_equal(b.imm[1], 0x7fc00000u);
    b = bundle(&o, 5);
    assert_int_equal(b.slot[WT_SLOT_A0].opnd[2], WT_OPND_IMM0);
    assert_int_equal(b.slot[WT_SLOT_A1].opnd[2], WT_OPND_IMM0);
    assert_int_equal(b.slot[WT_SLOT_M0].opnd[2], WT_OPND_IMM1);
    b = bundle(&o, 6);
    assert_int_equal(b.imm[0], wt_u(1000.0f));
    assert_int_equal(b.imm[1], 0x80000000u);
    assert_int_equal(bundle(&o, 7).imm[0], 0xffffffffu);
    char *r = relocations(&o, ".rela.text");
    assert_string_equal(r, "200 1 sym+4;200 2 sym-4;");
    free(r);
    /* An undefined symbol is left to the linker as a global. */
    GElf_Sym s;
    assert_true(find_symbol(&o, "sym", &s) > 0);
    assert_int_equal(s.st_shndx, SHN_UNDEF);
    assert_int_equal(GELF_ST_BIND(s.st_info), STB_GLOBAL);
    object_close(&o);
}

/* ---- Relocations ------------------------------------------------------------------- */

static void test_relocations(void **state)
{
    (void)state;
    const char *src = "        .globl f\n"
                      "f:      call g | iadd r1, r0, local_data | mv r2, gdata+8\n"
                      "loop:   jmp loop\n"
                      "        jmp f\n"
                      "        jmp 7\n"
                      "        .data\n"
                      "local_data: .word 0\n"
                      "        .globl gdata\n"
                      "gdata:  .word f, loop, gdata-4, ext+12, 0x10\n";
    assert_int_equal(assemble(src, NULL), 0);
    object o;
    object_open(&o, out_path);
    char *r = relocations(&o, ".rela.text");
    /* Locals go through their section's symbol, globals through themselves. */
    assert_string_equal(r, "0 1 .data+0;0 2 gdata+8;0 3 g+0;40 3 .text+40;80 3 f+0;");
    free(r);
    r = relocations(&o, ".rela.data");
    assert_string_equal(r, "4 4 f+0;8 4 .text+40;12 4 gdata-4;16 4 ext+12;");
    free(r);
    assert_int_equal(bundle(&o, 3).target, 7);
    size_t n;
    const uint8_t *d = section_bytes(&o, ".data", &n);
    assert_int_equal(n, 24);
    assert_int_equal(d[20], 0x10);
    GElf_Shdr sh;
    section(&o, ".rela.text", &sh);
    assert_int_equal(sh.sh_info, 1);
    assert_int_equal(sh.sh_entsize, sizeof(Elf32_Rela));
    section(&o, ".symtab", &sh);
    /* Globals follow the locals and sh_info says where. */
    GElf_Sym s;
    assert_true(find_symbol(&o, "loop", &s) < (int)sh.sh_info);
    assert_true(find_symbol(&o, "f", &s) >= (int)sh.sh_info);
    assert_true(find_symbol(&o, "g", &s) >= (int)sh.sh_info);
    object_close(&o);
    assert_readelf_clean(out_path);
}

/* ---- Directives -------------------------------------------------------------------- */

static void test_host_models_and_lines(void **state)
{
    (void)state;
    const char *src = "        .model iwarp\n"
                      "        .host s, out, int, 0\n"
                      "        .host m, in, float, 3, 4\n"
                      "        .file \"a.w2\"\n"
                      "        .loc 3 7\n"
                      "        nop\n"
                      "        nop\n"
                      "        .file \"b.w2\"\n"
                      "        .loc 9, 2\n"
                      "        .loc 10 1\n"
                      "        halt\n"
                      "        .data\n"
                      "        .word 1\n"
                      "        .align 16\n"
                      "x:      .word 2\n"
                      "        .bss\n"
                      "        .zero 2\n"
                      "        .align 8\n"
                      "y:      .zero 8\n";
    char *diag;
    assert_int_equal(assemble(src, &diag), 0);
    assert_string_equal(diag, "");
    free(diag);
    object o;
    object_open(&o, out_path);
    GElf_Ehdr eh;
    gelf_getehdr(o.e, &eh);
    assert_int_equal(eh.e_flags, WT_EF_IWARP);
    size_t n;
    const uint8_t *p = section_bytes(&o, ".warp.host", &n);
    assert_memory_equal(p, "s out int 0 0\nm in float 3 4\n", n);
    GElf_Sym s;
    assert_true(find_symbol(&o, "m", &s) > 0);
    assert_int_equal(s.st_value, 4);
    assert_int_equal(s.st_size, 48);
    p = section_bytes(&o, ".warp.lines", &n);
    assert_int_equal(n, 32);
    static const uint8_t recs[32] = {0, 0, 0, 0, 3, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0,
                                     80, 0, 0, 0, 10, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    assert_memory_equal(p, recs, 32);
    p = section_bytes(&o, ".warp.files", &n);
    assert_int_equal(n, 10);
    assert_memory_equal(p, "a.w2\0b.w2", 10);
    assert_true(find_symbol(&o, "x", &s) > 0);
    assert_int_equal(s.st_value, 16);
    assert_true(find_symbol(&o, "y", &s) > 0);
    assert_int_equal(s.st_value, 8);
    GElf_Shdr sh;
    section(&o, ".data", &sh);
    assert_int_equal(sh.sh_addralign, 16);
    section(&o, ".bss", &sh);
    assert_int_equal(sh.sh_addralign, 8);
    assert_int_equal(sh.sh_size, 16);
    object_close(&o);

    /* -mcpu alone sets the model; with neither, the object is for either model. */
    assert_int_equal(assemble_as("halt\n", wt_model_get(WT_MODEL_IWARP), out_path, NULL), 0);
    object_open(&o, out_path);
    gelf_getehdr(o.e, &eh);
    assert_int_equal(eh.e_flags, WT_EF_IWARP);
    object_close(&o);
    assert_int_equal(assemble("halt\n", NULL), 0);
    object_open(&o, out_path);
    gelf_getehdr(o.e, &eh);
    assert_int_equal(eh.e_flags, 0x2);
    object_close(&o);
    assert_int_equal(assemble(".model warp\nhalt\n", NULL), 0);
    object_open(&o, out_path);
    gelf_getehdr(o.e, &eh);
    assert_int_equal(eh.e_flags, 0);
    object_close(&o);
}

/* ---- Diagnostics ------------------------------------------------------------------- */

typedef struct bad_case {
    const char *src;
    const char *message;    /* the first line of the diagnostics, exactly */
} bad_case;

static const bad_case bad_cases[] = {
    {"main:\n        fadd r1, r2\n", "t.s:2:9: error: 'fadd' takes 3 operands, got 2"},
    {"  frobnicate r1\n", "t.s:1:3: error: unknown operation 'frobnicate'"},
    {"fadd r1, r2, r3 | fsub r4, r5, r6\n", "t.s:1:19: error: too many FA operations in one bundle"},
    {"iadd r1, r2, r3 | isub r4, r5, r6 | and r1, r1, r1\n", "t.s:1:37: error: too many ALU operations in one bundle"},
    {"ld r1, [r2] | ld r1, [r2] | st [r1], r2\n", "t.s:1:29: error: too many MEM operations in one bundle"},
    {"mv r1, r2 | mv r3, r4 | mv r5, r6\n", "t.s:1:25: error: too many MV operations in one bundle"},
    {"jmp 1 | ret\n", "t.s:1:9: error: too many BR operations in one bundle"},
    {"iadd r1, r2, 1 | isub r3, r4, 2 | mv r5, 3\n", "t.s:1:42: error: more than two distinct literals in one bundle"},
    {"mv r1, @fxl\n", "t.s:1:8: error: '@fxl' is a destination-only gate and cannot be read"},
    {"mv r1, @axr\n", "t.s:1:8: error: '@axr' is a destination-only gate and cannot be read"},
    {"mv cid, r1\n", "t.s:1:4: error: 'cid' cannot be a destination"},
    {"mv 5, r1\n", "t.s:1:4: error: expected a register or an output gate as destination, not '5'"},
    {"mv r64, r1\n", "t.s:1:4: error: 'r64' is not a register (r0..r63)"},
    {"mv r1, @zz\n", "t.s:1:8: error: unknown gate '@zz'"},
    {"iadd r1, r2, 1.5\n", "t.s:1:14: error: float literal '1.5' in an integer operand"},
    {"ld r1, [r2, 0.5]\n", "t.s:1:13: error: float literal '0.5' in an integer operand"},
    {"fadd r1, r2, 1e99\n", "t.s:1:14: error: float literal '1e99' is out of range"},
    {"iadd r1, r2, 4294967296\n", "t.s:1:14: error: integer literal '4294967296' does not fit in 32 bits"},
    {"iadd r1, r2, 12abc\n", "t.s:1:14: error: invalid operand '12abc'"},
    {"iadd r1, r2, x*2\n", "t.s:1:15: error: unexpected '*2' after symbol"},
    {"ld r1, [r2\n", "t.s:1:8: error: expected a memory operand [A, B], not '[r2'"},
    {"ld r1, r2\n", "t.s:1:8: error: expected a memory operand [A, B], not 'r2'"},
    {"iadd r1, , r2\n", "t.s:1:10: error: expected an operand"},
    {"iadd r1, r2, r3 |\n", "t.s:1:18: error: expected an operation"},
    {"nop r1\n", "t.s:1:5: error: 'nop' takes no operands"},
    {"dbnz 3, .L1\n.L1: halt\n", "t.s:1:6: error: the counter of 'dbnz' must be a register, not '3'"},
    {"jmp r1\n", "t.s:1:5: error: expected a label or a bundle number as branch target, not 'r1'"},
    {"jmp 65536\n", "t.s:1:5: error: 65536 is out of range (0..65535)"},
    {"jmp .Lnowhere\n", "t.s:1:5: error: undefined local label '.Lnowhere'"},
    {"jmp d\n.data\nd: .word 1\n", "t.s:1:5: error: branch target 'd' is not in .text"},
    {"a: nop\na: nop\n", "t.s:2:1: error: redefinition of 'a'"},
    {"r1: nop\n", "t.s:1:1: error: 'r1' is an operand name and cannot be a label unquoted (write \"r1\":)"},
    {".data\n  halt\n", "t.s:2:3: error: operations are only allowed in .text"},
    {".word 1\n", "t.s:1:1: error: '.word' is only allowed in .data and debug sections"},
    {".bss\n.word 1\n", "t.s:2:1: error: '.word' is only allowed in .data and debug sections (use .zero in .bss)"},
    {".zero 4\n", "t.s:1:1: error: '.zero' is not allowed in .text"},
    {".model pdp11\n", "t.s:1:8: error: unknown model 'pdp11' (expected warp or iwarp)"},
    {".model warp\n.model iwarp\n", "t.s:2:8: error: '.model iwarp' conflicts with the earlier '.model warp'"},
    {".cells 3, 1\n", "t.s:1:8: error: first cell 3 is after last cell 1"},
    {".cells 0, 9\n.cells 0, 8\n", "t.s:2:1: error: '.cells 0, 8' conflicts with the earlier '.cells 0, 9'"},
    {".cells 0\n", "t.s:1:1: error: '.cells' takes 2 arguments, got 1"},
    {".host a, sideways, float, 4\n", "t.s:1:10: error: expected 'in' or 'out', not 'sideways'"},
    {".host a, in, double, 4\n", "t.s:1:14: error: expected 'float' or 'int', not 'double'"},
    {".host a, in, float, 0, 4\n", "t.s:1:24: error: a scalar (first dimension 0) has no second dimension"},
    {".host a, in, float, -1\n", "t.s:1:21: error: -1 is out of range (0..268435456)"},
    {".file polynomial.w2\n", "t.s:1:7: error: expected a quoted file name, not 'polynomial.w2'"},
    {".loc x\n", "t.s:1:6: error: expected an integer, not 'x'"},
    {".align 3\n", "t.s:1:8: error: alignment 3 is not a power of two"},
    {".type f, @banana\n", "t.s:1:10: error: expected @function, @object or @notype, not '@banana'"},
    {".globl 5\n", "t.s:1:8: error: expected a symbol name, not '5'"},
    {".frob 1\n", "t.s:1:1: error: unknown directive '.frob'"},
    {"\t.data\n\t.word x+\n", "t.s:2:10: error: expected a number after '+'"},
};

static void test_error_messages_and_positions(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        char *diag;
        int rc = assemble(bad_cases[i].src, &diag);
        char *line = first_line(diag);
        if (rc != -1 || strcmp(line, bad_cases[i].message) != 0)
            fail_msg("for %s\n  got:      %s (rc %d)\n  expected: %s", bad_cases[i].src, line, rc,
                     bad_cases[i].message);
        if (file_exists(out_path)) fail_msg("an object was written for %s", bad_cases[i].src);
        free(line);
        free(diag);
    }
}

static void test_error_shows_line_and_caret(void **state)
{
    (void)state;
    char *diag;
    assert_int_equal(assemble("main:\n\tfadd r1, r2, 1.5 | fsub r1, r2, 2.5 | halt\n", &diag), -1);
    assert_string_equal(diag, "t.s:2:21: error: too many FA operations in one bundle\n"
                              "\tfadd r1, r2, 1.5 | fsub r1, r2, 2.5 | halt\n"
                              "\t                   ^\n");
    free(diag);
    /* A redefinition also points at the first one. */
    assert_int_equal(assemble("x: nop\n  x: nop\n", &diag), -1);
    assert_string_equal(diag, "t.s:2:3: error: redefinition of 'x'\n"
                              "  x: nop\n"
                              "  ^\n"
                              "t.s:1:1: note: previous definition of 'x' is here\n"
                              "x: nop\n"
                              "^\n");
    free(diag);
}

static void test_mcpu_mismatch(void **state)
{
    (void)state;
    char *diag;
    unlink(out_path);
    assert_int_equal(assemble_as(".model iwarp\n", wt_model_get(WT_MODEL_WARP), out_path, &diag), -1);
    char *line = first_line(diag);
    assert_string_equal(line, "t.s:1:8: error: '.model iwarp' does not match -mcpu=warp");
    free(line);
    free(diag);
    assert_false(file_exists(out_path));
}

/* Every bad line is reported, not only the first; no object is written. */
static void test_continues_after_errors(void **state)
{
    (void)state;
    char *diag;
    assert_int_equal(assemble("bogus1\nhalt\nbogus2 r1\n\tfadd r1\n.data\nx: .word y z\n", &diag), -1);
    int errors = 0;
    for (const char *p = diag; (p = strstr(p, ": error: ")); p++) errors++;
    assert_int_equal(errors, 4);
    assert_non_null(strstr(diag, "t.s:1:1: error: unknown operation 'bogus1'"));
    assert_non_null(strstr(diag, "t.s:3:1: error: unknown operation 'bogus2'"));
    assert_non_null(strstr(diag, "t.s:4:2: error: 'fadd' takes 3 operands, got 1"));
    assert_non_null(strstr(diag, "t.s:6:12: error: unexpected 'z' after symbol"));
    free(diag);
    assert_false(file_exists(out_path));

    ws_buf many = {0};
    for (int i = 0; i < 30; i++) ws_buf_puts(&many, "bad\n");
    assert_int_equal(assemble(many.data, &diag), -1);
    errors = 0;
    for (const char *p = diag; (p = strstr(p, ": error: ")); p++) errors++;
    assert_int_equal(errors, 20);
    assert_non_null(strstr(diag, "too many errors"));
    free(diag);
    ws_buf_free(&many);
}

static void test_output_is_deterministic(void **state)
{
    (void)state;
    char other[160];
    snprintf(other, sizeof other, "%s/again.o", tmpdir);
    assert_int_equal(assemble(design_example, NULL), 0);
    assert_int_equal(assemble_as(design_example, NULL, other, NULL), 0);
    char err[128];
    size_t n1, n2;
    char *a = ws_read_file(out_path, &n1, 1u << 20, err, sizeof err);
    char *b = ws_read_file(other, &n2, 1u << 20, err, sizeof err);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1);
    free(a);
    free(b);
    unlink(other);
}

/* A failed write leaves neither the target nor a temporary file. */
static void test_unwritable_output(void **state)
{
    (void)state;
    char path[160];
    snprintf(path, sizeof path, "%s/missing-dir/x.o", tmpdir);
    int saved;
    char errpath[160];
    stderr_to_file_begin(&saved, errpath, sizeof errpath);
    int rc = assemble_as("halt\n", NULL, path, NULL);
    char *text = stderr_to_file_end(saved, errpath);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(text, "missing-dir/x.o: cannot write"));
    free(text);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_assembler.XXXXXX");
    if (!mkdtemp(tmpdir)) return -1;
    snprintf(out_path, sizeof out_path, "%s/t.o", tmpdir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(out_path);
    return rmdir(tmpdir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_design_example),
        cmocka_unit_test(test_labels_comments_and_nop),
        cmocka_unit_test(test_slot_assignment),
        cmocka_unit_test(test_literal_sharing_and_typing),
        cmocka_unit_test(test_relocations),
        cmocka_unit_test(test_host_models_and_lines),
        cmocka_unit_test(test_error_messages_and_positions),
        cmocka_unit_test(test_error_shows_line_and_caret),
        cmocka_unit_test(test_mcpu_mismatch),
        cmocka_unit_test(test_continues_after_errors),
        cmocka_unit_test(test_output_is_deterministic),
        cmocka_unit_test(test_unwritable_output),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
