/* Unit tests of support/: the diagnostic format, atomic output files, temporaries
 * removed on exit and on signals, the same-file check, file reading limits, arenas
 * and buffers. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/* A diagnostic handed back as data prints as ws_report would, its notes after it:
 * located ones with their line and caret, one in another file without, one with no
 * position as "FILE: note:". */
static void test_located_diagnostic_with_notes(void **state)
{
    (void)state;
    const char *src = "module m (a in)\n  x := 1;\n  y := x;\n";
    ws_diag d;
    ws_diag_init(&d, "prog.w2", src, strlen(src));
    char *text = NULL;
    size_t len = 0;
    d.out = open_memstream(&text, &len);
    ws_diagnostic x = {.line = 3, .col = 8, .severity = WS_ERROR};
    snprintf(x.message, sizeof x.message, "this receive is fed too late");
    ws_diagnostic_note(&x, 2, 3, "the word is fed here");
    ws_diagnostic_note(&x, 0, 0, "run with -fno-flow-control");
    ws_diagnostic_note(&x, 1, 1, "dropped: two notes at most");
    assert_int_equal(x.nnotes, WS_MAX_NOTES);
    ws_emit(&d, &x);
    x.file = "other.w2";
    x.nnotes = 0;
    ws_emit(&d, &x);
    fclose(d.out);
    assert_string_equal(text, "prog.w2:3:8: error: this receive is fed too late\n"
                              "  y := x;\n"
                              "       ^\n"
                              "prog.w2:2:3: note: the word is fed here\n"
                              "  x := 1;\n"
                              "  ^\n"
                              "prog.w2: note: run with -fno-flow-control\n"
                              "other.w2:3:8: error: this receive is fed too late\n");
    assert_int_equal(d.errors, 2);
    free(text);
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

/* Threads' parts are declared _Alignas(WS_CACHE_LINE); malloc gives 16 bytes. */
static void test_xcalloc_aligned_honours_cache_lines(void **state)
{
    (void)state;
    for (size_t n = 1; n <= 9; n++) {
        unsigned char *p = ws_xcalloc_aligned(n, 24, WS_CACHE_LINE);
        assert_int_equal((uintptr_t)p % WS_CACHE_LINE, 0);
        for (size_t i = 0; i < n * 24; i++) assert_int_equal(p[i], 0);
        free(p);
    }
    void *empty = ws_xcalloc_aligned(0, 8, 128);
    assert_non_null(empty);
    assert_int_equal((uintptr_t)empty % 128, 0);
    free(empty);
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

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_same_file_by_device_and_inode(void **state)
{
    (void)state;
    char a[128], b[128], hard[128], soft[128], dot[160], fresh[128], fresh_dot[160];
    snprintf(a, sizeof a, "%s/a.w2", tmpdir);
    snprintf(b, sizeof b, "%s/b.w2", tmpdir);
    snprintf(hard, sizeof hard, "%s/hard.w2", tmpdir);
    snprintf(soft, sizeof soft, "%s/soft.s", tmpdir);
    snprintf(dot, sizeof dot, "%s/./a.w2", tmpdir);
    snprintf(fresh, sizeof fresh, "%s/new.o", tmpdir);
    snprintf(fresh_dot, sizeof fresh_dot, "%s/./new.o", tmpdir);
    write_file(a, "a");
    write_file(b, "b");
    assert_int_equal(link(a, hard), 0);
    assert_int_equal(symlink("a.w2", soft), 0);
    assert_true(ws_same_file(a, a));
    assert_true(ws_same_file(a, dot));
    assert_true(ws_same_file(a, hard));
    assert_true(ws_same_file(soft, a));
    assert_false(ws_same_file(a, b));
    assert_false(ws_same_file("-", "-"));
    /* Not made yet: the same name in the same directory. */
    assert_true(ws_same_file(fresh, fresh_dot));
    assert_false(ws_same_file(fresh, a));

    const char *inputs[] = {b, NULL, a};
    assert_int_equal(ws_check_output(fresh, inputs, 3), 0);
    assert_int_equal(ws_check_output(hard, inputs, 3), -1);
    assert_int_equal(ws_check_output(dot, inputs, 2), 0); /* a is not among the first two */
    assert_int_equal(ws_check_output(NULL, inputs, 3), 0);
    assert_int_equal(ws_check_output("-", inputs, 3), 0);
    unlink(a);
    unlink(b);
    unlink(hard);
    unlink(soft);
}

/* Runs body in a child after ws_program_init with path registered; the child's
 * wait status. */
static int in_child(const char *path, void (*body)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        /* As a program starts: cmocka's handlers would carry on with the tests. */
        int crashes[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
        for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++) signal(crashes[i], SIG_DFL);
        ws_program_init("test_support");
        write_file(path, "temporary");
        ws_temp_register(path);
        body();
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

static void raise_term(void) { raise(SIGTERM); }
static void raise_abort(void) { abort(); }
static void exit_three(void) { exit(3); }
static void real_fault(void)
{
    /* A page nobody may touch: the kernel's fault, which no sanitizer check
     * (null, bounds) stops first. */
    volatile int *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page != MAP_FAILED) *page = 1;
}
static void ignored_hangup(void)
{
    raise(SIGHUP);
    _exit(7);
}

static void test_temporaries_go_on_signals_and_exit(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/t.tmp1", tmpdir);
    int st = in_child(path, raise_term);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGTERM); /* dies by the signal, after the cleanup */
    assert_int_equal(access(path, F_OK), -1);

    st = in_child(path, raise_abort);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGABRT);
    assert_int_equal(access(path, F_OK), -1);

    st = in_child(path, exit_three);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 3);
    assert_int_equal(access(path, F_OK), -1);

    /* A real crash: the fault happens again under the action it had before. */
    st = in_child(path, real_fault);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGSEGV);
    assert_int_equal(access(path, F_OK), -1);

    /* A signal ignored when the program starts stays ignored (nohup). */
    void (*old)(int) = signal(SIGHUP, SIG_IGN);
    st = in_child(path, ignored_hangup);
    signal(SIGHUP, old);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 7);
    assert_int_equal(unlink(path), 0); /* _exit: nothing ran to remove it */
}

static void test_temp_release_keeps_the_file(void **state)
{
    (void)state;
    char a[128], b[128];
    snprintf(a, sizeof a, "%s/kept", tmpdir);
    snprintf(b, sizeof b, "%s/removed", tmpdir);
    write_file(a, "a");
    write_file(b, "b");
    ws_temp_register(a);
    ws_temp_register(b);
    ws_temp_release(a);
    ws_temp_remove_all();
    assert_int_equal(access(b, F_OK), -1);
    assert_int_equal(unlink(a), 0);
}

static void test_output_temporary_is_new_and_fits_name_max(void **state)
{
    (void)state;
    /* A file already named like the temporary is neither used nor harmed. */
    char path[128], taken[160];
    snprintf(path, sizeof path, "%s/out.txt", tmpdir);
    snprintf(taken, sizeof taken, "%s.tmp%ld", path, (long)getpid());
    write_file(taken, "someone else's");
    ws_output o;
    FILE *f = ws_output_open(&o, path, 0);
    assert_non_null(f);
    assert_string_not_equal(o.tmp, taken);
    fputs("new\n", f);
    assert_int_equal(ws_output_commit(&o), 0);
    char err[64];
    size_t len;
    char *text = ws_read_file(taken, &len, 1024, err, sizeof err);
    assert_string_equal(text, "someone else's");
    free(text);
    unlink(taken);
    unlink(path);

    /* 252 bytes: NAME.tmpPID would pass NAME_MAX. */
    char name[512];
    int n = snprintf(name, sizeof name, "%s/", tmpdir);
    memset(name + n, 'x', 252);
    name[n + 252] = 0;
    f = ws_output_open(&o, name, 0);
    assert_non_null(f);
    fputs("long\n", f);
    assert_int_equal(ws_output_commit(&o), 0);
    assert_int_equal(count_entries(tmpdir), 1);
    assert_int_equal(unlink(name), 0);
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

/* The CFG utilities on a loop with a diamond inside:
 *   0 -> 1;  1 -> 2, 5;  2 -> 3, 4;  3 -> 1;  4 -> 1;  5 (exit);  6 -> 1 (unreached) */
static void test_graph_orders_dominators_and_loops(void **state)
{
    (void)state;
    int from[] = {0, 1, 1, 2, 2, 3, 4, 6}, to[] = {1, 2, 5, 3, 4, 1, 1, 1};
    ws_graph g = ws_graph_new(7, from, to, 8);
    int order[7], idom[7];
    /* a node's first successor first: the loop's body before its exit */
    assert_int_equal(ws_graph_rpo(&g, 0, order), 6);
    int want[] = {0, 1, 2, 3, 4, 5};
    assert_memory_equal(order, want, sizeof want);
    ws_graph_idom(&g, 0, idom);
    int want_idom[] = {0, 0, 1, 2, 2, 1, -1};
    assert_memory_equal(idom, want_idom, sizeof want_idom);
    /* post-dominators: the reversed graph from the exit */
    ws_graph r = ws_graph_reverse(&g);
    assert_int_equal(r.at[2] - r.at[1], 4);   /* 1's predecessors: 0, 3, 4, 6 ascending */
    assert_int_equal(r.to[r.at[1]], 0);
    assert_int_equal(r.to[r.at[1] + 3], 6);
    ws_graph_idom(&r, 5, idom);
    assert_int_equal(idom[2], 1);   /* both arms of the diamond go back to 1 */
    assert_int_equal(idom[1], 5);
    assert_int_equal(idom[0], 1);
    ws_domtree d = ws_domtree_new(&g, 0);
    assert_true(ws_dominates(&d, 1, 4));
    assert_true(ws_dominates(&d, 2, 3));
    assert_false(ws_dominates(&d, 3, 4));
    assert_false(ws_dominates(&d, 2, 5));
    assert_false(ws_dominates(&d, 6, 6));   /* unreached */
    uint8_t in[7] = {0};
    ws_natural_loop(&r, 1, 3, in);
    ws_natural_loop(&r, 1, 4, in);
    uint8_t want_in[] = {0, 1, 1, 1, 1, 0, 0};
    assert_memory_equal(in, want_in, sizeof want_in);
    ws_domtree_free(&d);
    ws_graph_free(&r);
    ws_graph_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diagnostic_has_position_line_and_caret),
        cmocka_unit_test(test_located_diagnostic_with_notes),
        cmocka_unit_test(test_warning_becomes_error_under_werror),
        cmocka_unit_test(test_error_cap_stops_reporting),
        cmocka_unit_test(test_line_zero_has_no_position),
        cmocka_unit_test(test_output_commit_renames_into_place),
        cmocka_unit_test(test_output_abort_leaves_nothing),
        cmocka_unit_test(test_output_open_fails_in_missing_directory),
        cmocka_unit_test(test_read_file_refuses_oversized_and_missing),
        cmocka_unit_test(test_same_file_by_device_and_inode),
        cmocka_unit_test(test_temporaries_go_on_signals_and_exit),
        cmocka_unit_test(test_temp_release_keeps_the_file),
        cmocka_unit_test(test_output_temporary_is_new_and_fits_name_max),
        cmocka_unit_test(test_xcalloc_aligned_honours_cache_lines),
        cmocka_unit_test(test_arena_and_buffer),
        cmocka_unit_test(test_strmap_hash_and_grow),
        cmocka_unit_test(test_graph_orders_dominators_and_loops),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
