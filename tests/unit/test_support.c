/* Unit tests of support/: the diagnostic format, atomic output files, file reading
 * limits, arenas and buffers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "warp_support.h"

static char *report_to_string(ws_diag *d, ws_severity sev, int line, int col, const char *msg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    d->out = f;
    ws_report(d, sev, line, col, "%s", msg);
    fclose(f);
    return text;
}

static void test_diagnostic_has_position_line_and_caret(void **state)
{
    (void)state;
    const char *src = "module m (a in)\n  x := 1;\n";
    ws_diag d;
    ws_diag_init(&d, "prog.w2", src, strlen(src));
    char *out = report_to_string(&d, WS_ERROR, 2, 3, "use of undeclared identifier 'x'");
    assert_string_equal(out, "prog.w2:2:3: error: use of undeclared identifier 'x'\n"
                             "  x := 1;\n"
                             "  ^\n");
    assert_int_equal(d.errors, 1);
    free(out);
}

static void test_warning_becomes_error_under_werror(void **state)
{
    (void)state;
    ws_diag d;
    ws_diag_init(&d, "p.w2", "a\n", 2);
    d.werror = 1;
    char *out = report_to_string(&d, WS_WARNING, 1, 1, "w");
    assert_non_null(strstr(out, "p.w2:1:1: error: w"));
    assert_int_equal(d.errors, 1);
    assert_int_equal(d.warnings, 0);
    free(out);
}

static void test_error_cap_stops_reporting(void **state)
{
    (void)state;
    ws_diag d;
    ws_diag_init(&d, "p.w2", NULL, 0);
    d.max_errors = 2;
    char *text = NULL;
    size_t len = 0;
    d.out = open_memstream(&text, &len);
    for (int i = 0; i < 5; i++) ws_report(&d, WS_ERROR, 1, 1, "e%d", i);
    fclose(d.out);
    assert_non_null(strstr(text, "e1"));
    assert_null(strstr(text, "e2"));
    assert_non_null(strstr(text, "too many errors"));
    assert_int_equal(d.errors, 5);
    free(text);
}

static void test_line_zero_has_no_position(void **state)
{
    (void)state;
    ws_diag d;
    ws_diag_init(&d, "p.w2", "abc\n", 4);
    char *out = report_to_string(&d, WS_ERROR, 0, 0, "empty program");
    assert_string_equal(out, "p.w2: error: empty program\n");
    free(out);
}

static char tmpdir[64];

static int make_tmpdir(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/warp-support-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int count_entries(const char *dir)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls -A %s | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p && fscanf(p, "%d", &n) != 1) n = -1;
    if (p) pclose(p);
    return n;
}

static void test_output_commit_renames_into_place(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/out.txt", tmpdir);
    ws_output o;
    FILE *f = ws_output_open(&o, path, 0);
    assert_non_null(f);
    fputs("hello\n", f);
    assert_int_equal(access(path, F_OK), -1); /* nothing visible before the commit */
    assert_int_equal(ws_output_commit(&o), 0);
    char err[64];
    size_t len;
    char *text = ws_read_file(path, &len, 1024, err, sizeof err);
    assert_string_equal(text, "hello\n");
    free(text);
    assert_int_equal(count_entries(tmpdir), 1); /* no temporary left beside it */
    unlink(path);
}

static void test_output_abort_leaves_nothing(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/aborted.txt", tmpdir);
    ws_output o;
    FILE *f = ws_output_open(&o, path, 1);
    assert_non_null(f);
    fputs("partial", f);
    ws_output_abort(&o);
    ws_output_abort(&o); /* twice is harmless */
    assert_int_equal(count_entries(tmpdir), 0);
}

static void test_output_open_fails_in_missing_directory(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/no/such/dir/x", tmpdir);
    ws_output o;
    assert_null(ws_output_open(&o, path, 0));
}

static void test_read_file_refuses_oversized_and_missing(void **state)
{
    (void)state;
    char path[128], err[128];
    snprintf(path, sizeof path, "%s/big", tmpdir);
    FILE *f = fopen(path, "w");
    for (int i = 0; i < 1000; i++) fputc('x', f);
    fclose(f);
    size_t len;
    assert_null(ws_read_file(path, &len, 999, err, sizeof err));
    assert_non_null(strstr(err, "larger than"));
    char *ok = ws_read_file(path, &len, 1000, err, sizeof err);
    assert_non_null(ok);
    assert_int_equal(len, 1000);
    free(ok);
    unlink(path);
    assert_null(ws_read_file("/nonexistent/file", &len, 10, err, sizeof err));
    assert_non_null(strstr(err, "No such file"));
    assert_null(ws_read_file(tmpdir, &len, 10, err, sizeof err));
    assert_string_equal(err, "is a directory");
}

static void test_arena_and_buffer(void **state)
{
    (void)state;
    ws_arena a = {0};
    char *big = ws_arena_alloc(&a, 200000); /* larger than a block */
    for (int i = 0; i < 200000; i++) assert_int_equal(big[i], 0);
    char *s = ws_arena_strndup(&a, "abcdef", 3);
    assert_string_equal(s, "abc");
    assert_int_equal((uintptr_t)ws_arena_alloc(&a, 3) % 16, 0);
    ws_arena_free(&a);
    assert_null(a.head);

    ws_buf b = {0};
    for (int i = 0; i < 1000; i++) ws_buf_printf(&b, "%d,", i);
    assert_int_equal(strncmp(b.data, "0,1,2,", 6), 0);
    assert_int_equal(b.data[b.len - 1], ',');
    char long_text[600];
    memset(long_text, 'y', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = 0;
    size_t before = b.len;
    ws_buf_printf(&b, "%s", long_text); /* longer than the printf fast path */
    assert_int_equal(b.len - before, sizeof long_text - 1);
    ws_buf_free(&b);
}

static int remove_tmpdir(void **state)
{
    (void)state;
    return rmdir(tmpdir);
}

/* The string map: names looked up by length (inside a longer text), replaced,
 * kept across growth; the hash is FNV-1a; arrays grow by doubling. */
static void test_strmap_hash_and_grow(void **state)
{
    (void)state;
    assert_int_equal(ws_hash("", 0), 2166136261u);
    assert_int_equal(ws_hash("a", 1), 0xe40c292cu);
    ws_strmap m = {0};
    assert_null(ws_strmap_get(&m, "x", 1));
    static char names[3000][8];
    for (int i = 0; i < 3000; i++) {
        snprintf(names[i], sizeof names[i], "s%d", i);
        ws_strmap_put(&m, names[i], strlen(names[i]), &names[i]);
    }
    assert_int_equal(m.n, 3000);
    for (int i = 0; i < 3000; i++) assert_ptr_equal(ws_strmap_get(&m, names[i], strlen(names[i])), &names[i]);
    const char *line = "s12, s1299";
    assert_ptr_equal(ws_strmap_get(&m, line, 3), &names[12]);
    assert_ptr_equal(ws_strmap_get(&m, line + 5, 5), &names[1299]);
    assert_ptr_equal(ws_strmap_get(&m, line, 2), &names[1]);   /* "s1", a prefix */
    ws_strmap_put(&m, "s7", 2, &names[8]);
    assert_int_equal(m.n, 3000);
    assert_ptr_equal(ws_strmap_get(&m, "s7", 2), &names[8]);
    ws_strmap_free(&m);
    assert_null(ws_strmap_get(&m, "s7", 2));

    int *a = NULL;
    size_t cap = 0;
    for (int i = 0; i < 1000; i++) {
        ws_grow(&a, &cap, (size_t)i + 1, sizeof *a);
        a[i] = i;
    }
    assert_int_equal(cap, 1024);
    assert_int_equal(a[999], 999);
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diagnostic_has_position_line_and_caret),
        cmocka_unit_test(test_warning_becomes_error_under_werror),
        cmocka_unit_test(test_error_cap_stops_reporting),
        cmocka_unit_test(test_line_zero_has_no_position),
        cmocka_unit_test(test_output_commit_renames_into_place),
        cmocka_unit_test(test_output_abort_leaves_nothing),
        cmocka_unit_test(test_output_open_fails_in_missing_directory),
        cmocka_unit_test(test_read_file_refuses_oversized_and_missing),
        cmocka_unit_test(test_arena_and_buffer),
        cmocka_unit_test(test_strmap_hash_and_grow),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
