/* Unit tests of debugger/ and of the DWARF the toolchain writes: line programs the
 * assembler makes from .loc (read back row by row, before and after linking),
 * .debug_info from the backend (functions, variables, types, locations, the
 * pipelined loops' blocks), the reader's refusal of malformed DWARF, and the
 * session driven through wdb_command() and wdb_complete(). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "w2_frontend.h"
#include "warp_assembler.h"
#include "warp_backend.h"
#include "warp_debugger.h"
#include "warp_dwarf.h"
#include "warp_linker.h"

static char tmpdir[64];

static char *tmp_path(const char *name)
{
    static char buf[8][256];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, 256, "%s/%s", tmpdir, name);
    return p;
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_debugger.XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void assemble(const char *text, const char *obj)
{
    ws_diag diag;
    ws_diag_init(&diag, "t.s", text, strlen(text));
    char *errs = NULL;
    size_t errlen = 0;
    diag.out = open_memstream(&errs, &errlen);
    was_options o = {0};
    int rc = was_assemble("t.s", text, strlen(text), &o, obj, &diag);
    fclose(diag.out);
    if (rc != 0) fail_msg("assembly failed: %s", errs);
    free(errs);
}

/* W2 source -> image, as warp-cc does (crt0 from the build). */
static void compile_w2(const char *path, int opt, const char *img)
{
    size_t len;
    char err[512];
    char *text = ws_read_file(path, &len, 1 << 20, err, sizeof err);
    if (!text) fail_msg("%s", err);
    ws_diag diag;
    ws_diag_init(&diag, path, text, len);
    LLVMContextRef ctx = LLVMContextCreate();
    w2_options fo = {.debug_info = 1};
    LLVMModuleRef m = w2_compile(path, text, len, &fo, ctx, &diag);
    assert_non_null(m);
    ws_diagnostic oerr;
    if (wb_optimize(m, wt_model_get(WT_MODEL_WARP), opt, &oerr) != 0) fail_msg("%s", oerr.message);
    wb_options bo = {.model = wt_model_get(WT_MODEL_WARP), .opt_level = opt, .debug_info = 1};
    ws_buf s = {0};
    ws_diagnostic berr;
    if (wb_emit_assembly(m, &bo, &s, &berr) != 0) fail_msg("%s", berr.message);
    ws_buf_append(&s, "", 1);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    char *obj = tmp_path("w2.o");
    assemble(s.data, obj);
    ws_buf_free(&s);
    free(text);
    const char *inputs[] = {WARP_BINARY_DIR "/lib/warp/crt0.o", obj};
    wld_options lo = {.entry = "_start"};
    assert_int_equal(wld_link(inputs, 2, img, &lo), 0);
}

/* ---- Line programs ------------------------------------------------------------------------ */

static const char lines_s[] =
    "        .file   \"dir/t.w2\"\n"
    "        .text\n"
    "        .globl  f\n"
    "f:\n"
    "        .loc    5 3 basic_block\n"
    "        nop\n"
    "        .loc    5 9 is_stmt 0\n"
    "        nop\n"
    "        .loc    4 1\n"
    "        nop\n"
    "        nop\n"
    "        .loc    900 2\n"          /* a long way forward: advance_line */
    "        nop\n"
    "        .loc    7 1 discriminator 2\n"
    "        nop\n";

static void test_line_program(void **state)
{
    (void)state;
    char *obj = tmp_path("lines.o");
    assemble(lines_s, obj);
    char err[256];
    wdb_dwarf *d = wdb_dwarf_read(obj, err, sizeof err);
    if (!d) fail_msg("%s", err);
    assert_int_equal(d->nfiles, 1);
    assert_string_equal(d->files[0], "dir/t.w2");
    struct { uint32_t addr, line, col; int stmt, bb, end; uint32_t discr; } want[] = {
        {0, 5, 3, 1, 1, 0, 0},   {40, 5, 9, 0, 0, 0, 0},  {80, 4, 1, 1, 0, 0, 0},
        {160, 900, 2, 1, 0, 0, 0}, {200, 7, 1, 1, 0, 0, 2}, {240, 7, 1, 1, 0, 1, 0},
    };
    assert_int_equal(d->nrows, 6);
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(d->rows[i].addr, want[i].addr);
        assert_int_equal(d->rows[i].line, want[i].line);
        if (!want[i].end) assert_int_equal(d->rows[i].col, want[i].col);
        assert_int_equal(d->rows[i].is_stmt, want[i].stmt);
        assert_int_equal(d->rows[i].basic_block, want[i].bb);
        assert_int_equal(d->rows[i].end, want[i].end);
        assert_int_equal(d->rows[i].discriminator, want[i].discr);
    }
    /* The row of an address: the last at or before it; none past the end. */
    assert_int_equal(wdb_row_at(d, 120)->line, 4);
    assert_null(wdb_row_at(d, 240));
    assert_non_null(wdb_stmt_at(d, 80));
    assert_null(wdb_stmt_at(d, 40));    /* not a statement */
    assert_null(wdb_stmt_at(d, 120));   /* inside a row */
    /* Breakpoints by line: the statement rows, matched by any tail of the path. */
    uint32_t a[4];
    assert_int_equal(wdb_line_addrs(d, "t.w2", 5, a, 4), 1);
    assert_int_equal(a[0], 0);
    assert_int_equal(wdb_line_addrs(d, "dir/t.w2", 4, a, 4), 1);
    assert_int_equal(a[0], 80);
    assert_int_equal(wdb_line_addrs(d, "x/t.w2", 4, a, 4), 0);
    assert_int_equal(wdb_line_addrs(d, "r/t.w2", 4, a, 4), 0);   /* not a whole path component */
    assert_int_equal(wdb_line_addrs(d, NULL, 900, a, 4), 1);
    wdb_dwarf_free(d);

    /* Linked after another object, every address moves with the code. */
    char *other = tmp_path("other.o");
    assemble("        .text\n        .globl _start\n_start: nop\n        nop\n        halt\n", other);
    const char *inputs[] = {other, obj};
    wld_options lo = {.entry = "_start"};
    char *img = tmp_path("lines.img");
    assert_int_equal(wld_link(inputs, 2, img, &lo), 0);
    d = wdb_dwarf_read(img, err, sizeof err);
    if (!d) fail_msg("%s", err);
    assert_int_equal(d->nrows, 6);
    for (size_t i = 0; i < 6; i++) assert_int_equal(d->rows[i].addr, want[i].addr + 3 * 40);
    wdb_dwarf_free(d);
}

/* ---- .debug_info from the compiler ---------------------------------------------------------- */

static const wdb_func *func(const wdb_dwarf *d, const char *name)
{
    for (size_t i = 0; i < d->nfuncs; i++)
        if (!strcmp(d->funcs[i].name, name)) return &d->funcs[i];
    fail_msg("no function %s", name);
    return NULL;
}

static const wdb_var *var(const wdb_func *f, const char *name)
{
    for (size_t i = 0; i < f->nvars; i++)
        if (!strcmp(f->vars[i].name, name)) return &f->vars[i];
    fail_msg("no variable %s in %s", name, f->name);
    return NULL;
}

static void test_info_O0(void **state)
{
    (void)state;
    char *img = tmp_path("calls.img");
    compile_w2(WARP_SOURCE_DIR "/tests/lit/dbg/Inputs/calls.w2", 0, img);
    char err[256];
    wdb_dwarf *d = wdb_dwarf_read(img, err, sizeof err);
    if (!d) fail_msg("%s", err);
    /* crt0's two bundles come first; then main, twice, run in module order */
    const wdb_func *m = func(d, "main"), *tw = func(d, "twice"), *run = func(d, "run");
    assert_int_equal(m->lo, 80);
    assert_true(m->hi > m->lo && tw->lo >= m->hi && run->lo >= tw->hi);
    assert_int_equal(tw->decl_line, 10);
    assert_int_equal(run->nvars, 2);
    const wdb_var *i = var(run, "i"), *v = var(run, "v");
    assert_int_equal(i->decl_line, 17);
    assert_false(i->type.is_float);
    assert_int_equal(i->type.ndims, 0);
    /* -O0: each local in the static frame, for the whole function */
    assert_int_equal(i->nlocs, 1);
    assert_int_equal(i->locs[0].kind, WDB_LOC_ADDR);
    assert_int_equal(i->locs[0].lo, run->lo);
    assert_int_equal(i->locs[0].hi, run->hi);
    assert_int_equal(v->locs[0].kind, WDB_LOC_ADDR);
    assert_int_equal(v->locs[0].v, i->locs[0].v + 4);
    assert_int_equal(wdb_var_loc(i, run->lo).kind, WDB_LOC_ADDR);
    assert_int_equal(wdb_var_loc(i, run->hi).kind, WDB_LOC_NONE);
    /* the cell global */
    assert_int_equal(d->nglobals, 1);
    assert_string_equal(d->globals[0].name, "total");
    assert_int_equal(d->globals[0].locs[0].kind, WDB_LOC_ADDR);
    assert_non_null(wdb_func_at(d, run->lo));
    assert_ptr_equal(wdb_func_at(d, run->lo), run);
    wdb_dwarf_free(d);
}

static void test_info_O2(void **state)
{
    (void)state;
    char *img = tmp_path("poly2.img");
    compile_w2(WARP_SOURCE_DIR "/examples/polynomial.w2", 2, img);
    char err[256];
    wdb_dwarf *d = wdb_dwarf_read(img, err, sizeof err);
    if (!d) fail_msg("%s", err);
    const wdb_func *m = func(d, "main");   /* poly was inlined */
    /* coeff: a constant 0, then the register its received word lives in */
    const wdb_var *coeff = var(m, "coeff");
    assert_true(coeff->type.is_float);
    int has_reg = 0, has_const = 0;
    for (size_t k = 0; k < coeff->nlocs; k++) {
        has_reg |= coeff->locs[k].kind == WDB_LOC_REG;
        has_const |= coeff->locs[k].kind == WDB_LOC_CONST && coeff->locs[k].v == 0;
        assert_true(coeff->locs[k].lo < coeff->locs[k].hi);
        assert_true(coeff->locs[k].lo >= m->lo && coeff->locs[k].hi <= m->hi);
    }
    assert_true(has_reg && has_const);
    /* Both loops pipelined: named blocks, and xin has the empty location there. */
    assert_int_equal(m->nblocks, 2);
    assert_string_equal(m->blocks[1].name, "software-pipelined loop at line 29");
    const wdb_var *xin = var(m, "xin");
    uint32_t mid = (m->blocks[1].lo + m->blocks[1].hi) / 2 / 40 * 40;
    assert_int_equal(wdb_var_loc(xin, mid).kind, WDB_LOC_EMPTY);
    /* the loop-invariant coefficient is still readable inside the kernel */
    assert_int_equal(wdb_var_loc(coeff, mid).kind, WDB_LOC_REG);
    wdb_dwarf_free(d);
}

/* ---- Malformed DWARF --------------------------------------------------------------------------- */

/* The bytes of a file and where one of its sections lies. */
static char *load_with_section(const char *path, const char *name, size_t *len, size_t *off, size_t *size)
{
    char err[256];
    char *buf = ws_read_file(path, len, 1 << 24, err, sizeof err);
    assert_non_null(buf);
    elf_version(EV_CURRENT);
    Elf *e = elf_memory(buf, *len);
    size_t shstrndx;
    elf_getshdrstrndx(e, &shstrndx);
    *off = 0;
    for (Elf_Scn *s = elf_nextscn(e, NULL); s; s = elf_nextscn(e, s)) {
        GElf_Shdr sh;
        gelf_getshdr(s, &sh);
        if (!strcmp(elf_strptr(e, shstrndx, sh.sh_name), name)) {
            *off = sh.sh_offset;
            *size = sh.sh_size;
        }
    }
    elf_end(e);
    assert_true(*off != 0);
    return buf;
}

static void expect_refused(const char *buf, size_t len, const char *why)
{
    char err[256] = "";
    wdb_dwarf *d = wdb_dwarf_read_mem(buf, len, err, sizeof err);
    if (d) fail_msg("read malformed DWARF (%s) without complaint", why);
    if (!strstr(err, why)) fail_msg("expected '%s', got '%s'", why, err);
}

static void test_malformed(void **state)
{
    (void)state;
    char *img = tmp_path("calls2.img");
    compile_w2(WARP_SOURCE_DIR "/tests/lit/dbg/Inputs/calls.w2", 0, img);
    size_t len, off, size;
    char *buf = load_with_section(img, ".debug_info", &len, &off, &size);
    char *c = malloc(len);

    memcpy(c, buf, len);
    c[off] = (char)0xf0;   /* unit_length far past the section */
    c[off + 1] = (char)0xff;
    expect_refused(c, len, "runs past the section");

    memcpy(c, buf, len);
    c[off + 4] = 5;        /* DWARF 5 */
    expect_refused(c, len, "version 5");

    memcpy(c, buf, len);
    c[off + 11] = 99;      /* the first DIE's abbreviation */
    expect_refused(c, len, "abbreviation 99, which is not defined");

    memcpy(c, buf, len);
    c[off + 10] = 8;       /* address size */
    expect_refused(c, len, "8-byte addresses");

    free(buf);
    buf = load_with_section(img, ".debug_line", &len, &off, &size);
    c = realloc(c, len);
    memcpy(c, buf, len);
    c[off + 4] = 1;        /* line table version 1 */
    expect_refused(c, len, ".debug_line: unit at 0x0 has version 1");
    memcpy(c, buf, len);
    c[off + 6] = (char)0xff;   /* header_length past the unit */
    c[off + 7] = (char)0xff;
    expect_refused(c, len, "bad header length");

    /* Truncation anywhere: refused or read, never a crash (ASan watches). */
    for (size_t cut = 0; cut < len; cut += len / 97 + 1) {
        char err[256];
        wdb_dwarf_free(wdb_dwarf_read_mem(buf, cut, err, sizeof err));
    }
    expect_refused("not elf", 7, "not an ELF file");
    free(c);
    free(buf);
}

/* ---- The session ---------------------------------------------------------------------------------- */

static char *run_cmds(wdb *d, const char *const *cmds, int *last)
{
    static char *text;   /* open_memstream's buffer: outlives the stream */
    static size_t n;
    text = NULL;
    FILE *out = open_memstream(&text, &n);
    for (; *cmds; cmds++) *last = wdb_command(d, *cmds, out);
    fclose(out);
    return text;
}

static void test_session(void **state)
{
    (void)state;
    char *img = tmp_path("poly0.img");
    compile_w2(WARP_SOURCE_DIR "/examples/polynomial.w2", 0, img);
    const char *in_names[] = {"data", "coeffs"};
    const char *in_paths[] = {WARP_SOURCE_DIR "/examples/polynomial.data", WARP_SOURCE_DIR "/examples/polynomial.coeffs"};
    wdb_options o = {in_names, in_paths, 2, NULL, NULL, 0, 0, NULL, NULL};
    char err[256];
    wdb *d = wdb_new(img, &o, err, sizeof err);
    if (!d) fail_msg("%s", err);
    int last;
    /* W2's `=` compares except where gdb's assigns: a whole lvalue on the left of print */
    const char *cmds[] = {"break polynomial.w2:33 cell 3", "run", "print coeff", "print xin == data[0]",
                          "print coeff = 1.5", "print coeff", "print 1 = 1", "set var coeff = 2", "print coeff",
                          "print $r0 = 3", NULL};
    char *t = run_cmds(d, cmds, &last);
    assert_int_equal(last, WDB_ERROR);
    assert_non_null(strstr(t, "Breakpoint 1, cell 3, poly () at polynomial.w2:33\n"));
    assert_non_null(strstr(t, "$1 = 0.75\n"));
    assert_non_null(strstr(t, "$2 = 1\n"));
    assert_non_null(strstr(t, "$3 = 1.5\n$4 = 1.5\n$5 = 1\n$6 = 2\nRegister $r0 cannot be written.\n"));
    free(t);

    /* Errors are errors; quit is quit; nothing ends the session by itself. */
    const char *bad[] = {"print 1 +", NULL};
    t = run_cmds(d, bad, &last);
    assert_int_equal(last, WDB_ERROR);
    assert_string_equal(t, "A syntax error in expression, near `'.\n");
    free(t);
    const char *q[] = {"quit", NULL};
    t = run_cmds(d, q, &last);
    assert_int_equal(last, WDB_QUIT);
    free(t);

    /* An empty line repeats the last command only when asked to (the REPL). */
    const char *rep[] = {"stepi", "", NULL};
    t = run_cmds(d, rep, &last);
    assert_int_equal(strstr(strstr(t, "cycle ") + 1, "cycle ") != NULL, 0);
    free(t);
    wdb_set_repeat(d, 1);
    t = run_cmds(d, rep, &last);
    assert_non_null(strstr(strstr(t, "cycle ") + 1, "cycle "));
    free(t);

    /* Whatever the line, the interpreter answers (a small fuzz of shapes). */
    const char *odd[] = {"p", "p (((((", "x/99999999999 0", "b *", "b :", "list 0", "info queues 99", "watch", "p $",
                         "p @", "p data[-1]", "p data[1][1]", "disassemble nosuch", "p 1/0", "p 99999999999",
                         "cont 0", "delete 7", "\x01\x02", "p \"x\"", "x/4 &1", NULL};
    t = run_cmds(d, odd, &last);
    free(t);
    wdb_free(d);
}

static char **complete(wdb *d, const char *line)
{
    return wdb_complete(d, line, strlen(line));
}

static int has(char **c, const char *s)
{
    for (size_t i = 0; c && c[i]; i++)
        if (!strcmp(c[i], s)) return 1;
    return 0;
}

static size_t count(char **c)
{
    size_t n = 0;
    while (c && c[n]) n++;
    return n;
}

static void free_cands(char **c)
{
    for (size_t i = 0; c && c[i]; i++) free(c[i]);
    free(c);
}

static void test_completion(void **state)
{
    (void)state;
    char *img = tmp_path("poly1.img");
    compile_w2(WARP_SOURCE_DIR "/examples/polynomial.w2", 0, img);
    char err[256];
    wdb *d = wdb_new(img, NULL, err, sizeof err);
    if (!d) fail_msg("%s", err);
    char **c = complete(d, "br");
    assert_int_equal(count(c), 1);
    assert_string_equal(c[0], "break");
    free_cands(c);
    c = complete(d, "  s");
    assert_true(has(c, "step") && has(c, "stepi") && !has(c, "break"));
    free_cands(c);
    c = complete(d, "info q");
    assert_int_equal(count(c), 1);
    assert_string_equal(c[0], "queues");
    free_cands(c);
    c = complete(d, "print co");   /* host array and the function's variable */
    assert_true(has(c, "coeffs") && has(c, "coeff"));
    free_cands(c);
    c = complete(d, "print $r1");
    assert_true(has(c, "$r1") && has(c, "$r10") && has(c, "$r19") && !has(c, "$r2"));
    free_cands(c);
    c = complete(d, "print @x");
    assert_int_equal(count(c), 2);
    free_cands(c);
    c = complete(d, "break poly");
    assert_true(has(c, "polynomial.w2:") && has(c, "poly"));
    free_cands(c);
    c = complete(d, "frob");
    assert_null(c);
    wdb_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_program),
        cmocka_unit_test(test_info_O0),
        cmocka_unit_test(test_info_O2),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_session),
        cmocka_unit_test(test_completion),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
