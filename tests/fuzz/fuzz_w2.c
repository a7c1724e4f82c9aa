/* Fuzz smoke test of the W2 compiler, in process: mutated copies of the example
 * programs go through w2_compile and, when that succeeds, through the backend
 * (the unoptimised module at -O0, then wb_optimize at -O2 and wb_emit_assembly
 * for both models), as warp-cc would run them. Nothing may crash or hang, and
 * the frontend must keep its promises to the user:
 *
 *   - it returns a module exactly when it reported no error, so no input fails
 *     without a message and no error is ignored;
 *   - it never reports an internal error (invalid LLVM IR of its own making);
 *   - every position it reports lies in the source (line 1 to the last + 1).
 *
 * The cases are deterministic (a fixed seed), so a failure names a case that
 * --case reproduces and --dump writes out as a reproducer file. Memory errors
 * are left to the ASan/UBSan build (-DWARP_SANITIZE=ON); a crash still names
 * its case, through a signal handler that then hands the signal on.
 *
 *   fuzz_w2 [--cases N] [--seed S] [--case K] [--dump K FILE] [--timeout SEC] DIR|FILE.w2...
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Core.h>

#include "w2_frontend.h"
#include "warp_backend.h"
#include "warp_support.h"
#include "warp_target.h"

#define MAX_SEEDS 256
#define MAX_INPUT (1u << 20)

typedef struct text {
    char *p;
    size_t len;
} text;

static text seeds[MAX_SEEDS];
static char *seed_names[MAX_SEEDS];
static int nseeds;

/* ---- The case in progress, for the handlers ------------------------------------ */

static volatile sig_atomic_t current_case = -1;
static volatile sig_atomic_t timeout_seconds = 20;

/* write(2) only: these run in signal handlers. */
static void say(const char *s)
{
    ssize_t r = write(2, s, strlen(s));
    (void)r;
}

static void say_number(long v)
{
    char buf[24];
    int i = (int)sizeof buf;
    buf[--i] = 0;
    int neg = v < 0;
    unsigned long u = neg ? 0ul - (unsigned long)v : (unsigned long)v;
    do buf[--i] = (char)('0' + u % 10); while ((u /= 10) && i > 1);
    if (neg) buf[--i] = '-';
    say(buf + i);
}

static void on_alarm(int sig)
{
    (void)sig;
    say("fuzz: case ");
    say_number(current_case);
    say(" did not finish in ");
    say_number(timeout_seconds);
    say(" s (a hang?); reproduce with --case ");
    say_number(current_case);
    say("\n");
    _exit(1);
}

static struct sigaction previous[32];

/* Names the case, then puts the previous handler (ASan's, or the default) back
 * and returns: the faulting instruction runs again and that handler reports
 * it; an abort() raises its signal again itself. */
static void on_crash(int sig)
{
    say("fuzz: case ");
    say_number(current_case);
    say(" crashed with signal ");
    say_number(sig);
    say("; reproduce with --case ");
    say_number(current_case);
    say("\n");
    sigaction(sig, &previous[sig], NULL);
}

/* ws_internal_error, an out-of-memory exit or an LLVM fatal error end the
 * process through exit(): say which case did it. */
static void at_exit(void)
{
    if (current_case < 0) return;
    say("fuzz: the process exited during case ");
    say_number(current_case);
    say("\n");
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    int crash[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    for (size_t i = 0; i < sizeof crash / sizeof crash[0]; i++) {
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_crash;
        sa.sa_flags = SA_NODEFER;
        sigaction(crash[i], &sa, &previous[crash[i]]);
    }
    atexit(at_exit);
}

/* ---- Deterministic randomness (splitmix64) ---------------------------------------- */

static uint64_t rng_state;

static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static size_t below(size_t n) { return n ? (size_t)(rng() % n) : 0; }

/* ---- Mutations ------------------------------------------------------------------ */

/* Words and symbols of the language, and a few values at its limits, so that
 * mutations reach the parser and the checker rather than only the lexer. */
static const char *const vocabulary[] = {
    "module", "in", "out", "cellprogram", "begin", "end", "function", "call", "float", "int", "for", "to",
    "downto", "do", "while", "if", "then", "else", "receive", "send", "and", "or", "not", "mod",
    ":=", "<=", ">=", "<>", "(", ")", "[", "]", ",", ";", ":", "+", "-", "*", "/", "=", "<", ">",
    "L", "R", "X", "Y", "cid", "i", "x", "0", "1", "-1", "2147483647", "2147483648", "-2147483648",
    "99999999999999999999", "1.5", "1e39", "1e-50", "0.0", "/*", "*/", "[0]", "[99999]", "[-1]",
    "(L, X, x)", "begin end", "if 1 < 2 then", "int z[2][2];", "float f;", "function g begin end;",
    "call poly;", "0 / 0", "x mod 0",
};

typedef struct buf {
    char *p;
    size_t len;
} buf;

static void insert(buf *b, size_t at, const char *s, size_t n)
{
    if (b->len + n > MAX_INPUT) return;
    memmove(b->p + at + n, b->p + at, b->len - at);
    memcpy(b->p + at, s, n);
    b->len += n;
}

static void mutate(buf *b)
{
    size_t at = below(b->len + 1);
    switch (below(7)) {
    case 0: /* overwrite a byte with any byte */
        if (b->len) b->p[below(b->len)] = (char)below(256);
        break;
    case 1: /* flip one bit */
        if (b->len) b->p[below(b->len)] ^= (char)(1u << below(8));
        break;
    case 2: { /* delete a range */
        size_t n = 1 + below(32);
        if (at + n > b->len) n = b->len - at;
        memmove(b->p + at, b->p + at + n, b->len - at - n);
        b->len -= n;
        break;
    }
    case 3: /* truncate */
        b->len = at;
        break;
    case 4: { /* duplicate a range */
        if (!b->len) break;
        size_t from = below(b->len), n = 1 + below(64);
        if (from + n > b->len) n = b->len - from;
        char copy[64];
        memcpy(copy, b->p + from, n);
        insert(b, at, copy, n);
        break;
    }
    case 5: { /* insert a word or symbol of the language */
        const char *w = vocabulary[below(sizeof vocabulary / sizeof vocabulary[0])];
        char tmp[80];
        int n = snprintf(tmp, sizeof tmp, "%s%s%s", below(2) ? " " : "", w, below(2) ? " " : "");
        insert(b, at, tmp, (size_t)n);
        break;
    }
    default: { /* splice in a line of another seed */
        const text *t = &seeds[below((size_t)nseeds)];
        size_t from = below(t->len), n = 0;
        while (from + n < t->len && t->p[from + n] != '\n' && n < 200) n++;
        insert(b, at, t->p + from, n);
        break;
    }
    }
}

/* Case k: the seeds themselves first, then mutants of them. Each case has its
 * own generator state, so --case reproduces one without running the others. */
static void make_case(long k, uint64_t seed, buf *b)
{
    rng_state = seed ^ ((uint64_t)k * 0xd1342543de82ef95ull);
    const text *t = &seeds[k % nseeds];
    memcpy(b->p, t->p, t->len);
    b->len = t->len;
    if (k < nseeds) return;
    int n = 1 + (int)below(4);
    for (int i = 0; i < n; i++) mutate(b);
}

/* ---- One case ------------------------------------------------------------------- */

typedef struct stats {
    long passed, failed, compiled, rejected, backend_errors;
} stats;

/* The positions in "NAME:LINE:COL: " prefixes must lie in the source. */
static int positions_ok(const char *diags, const char *name, const buf *b, char *why, size_t whylen)
{
    long lines = 1;
    for (size_t i = 0; i < b->len; i++) lines += b->p[i] == '\n';
    size_t nl = strlen(name);
    for (const char *l = diags; *l;) {
        long line, col;
        if (strncmp(l, name, nl) == 0 && l[nl] == ':' && sscanf(l + nl + 1, "%ld:%ld:", &line, &col) == 2 &&
            (line < 1 || line > lines + 1 || col < 1)) {
            snprintf(why, whylen, "position %ld:%ld outside the source (%ld lines)", line, col, lines);
            return 0;
        }
        const char *nl_at = strchr(l, '\n');
        if (!nl_at) break;
        l = nl_at + 1;
    }
    return 1;
}

static void backend(LLVMModuleRef m, const wt_model *model, int opt, int debug_info, stats *st, long k)
{
    char err[512];
    ws_buf out = {0};
    wb_options opts = {.model = model, .opt_level = opt, .debug_info = debug_info};
    if (wb_emit_assembly(m, &opts, &out, err, sizeof err) != 0) {
        /* Not a crash: a construct the backend reports it cannot handle. */
        if (st->backend_errors++ < 5)
            fprintf(stderr, "fuzz: case %ld: backend (%s, -O%d) rejected it: %s\n", k, model->name, opt, err);
    }
    ws_buf_free(&out);
}

static int run_case(long k, const buf *b, stats *st)
{
    char name[32];
    snprintf(name, sizeof name, "case%ld.w2", k);
    char *diags = NULL;
    size_t dlen = 0;
    FILE *f = open_memstream(&diags, &dlen);
    if (!f) {
        perror("fuzz: open_memstream");
        exit(1);
    }
    ws_diag d;
    ws_diag_init(&d, name, b->p, b->len);
    d.out = f;
    w2_options fopts = {.debug_info = (int)(k & 1)};
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = w2_compile(name, b->p, b->len, &fopts, ctx, &d);
    fclose(f);

    char why[256] = "";
    if (!m && d.errors == 0) snprintf(why, sizeof why, "no module, but no error reported");
    else if (m && d.errors) snprintf(why, sizeof why, "a module despite %d error(s)", d.errors);
    else if (strstr(diags, "internal error")) snprintf(why, sizeof why, "an internal error was reported");
    else positions_ok(diags, name, b, why, sizeof why);
    if (k < nseeds && !m) snprintf(why, sizeof why, "the seed %s does not compile", seed_names[k]);

    if (m) {
        st->compiled++;
        LLVMModuleRef o0 = LLVMCloneModule(m);
        backend(o0, wt_model_get(WT_MODEL_WARP), 0, fopts.debug_info, st, k);
        LLVMDisposeModule(o0);
        char err[512];
        if (wb_optimize(m, 2, err, sizeof err) != 0) {
            if (st->backend_errors++ < 5) fprintf(stderr, "fuzz: case %ld: wb_optimize failed: %s\n", k, err);
        } else {
            LLVMModuleRef copy = LLVMCloneModule(m);
            backend(copy, wt_model_get(WT_MODEL_WARP), 2, fopts.debug_info, st, k);
            LLVMDisposeModule(copy);
            backend(m, wt_model_get(WT_MODEL_IWARP), 2, fopts.debug_info, st, k);
        }
        LLVMDisposeModule(m);
    } else {
        st->rejected++;
    }
    LLVMContextDispose(ctx);

    int ok = why[0] == 0;
    if (ok) {
        st->passed++;
    } else {
        st->failed++;
        fprintf(stderr, "fuzz: case %ld FAILED: %s; reproduce with --case %ld, write it out with --dump %ld FILE\n",
                k, why, k, k);
        fprintf(stderr, "%s", diags);
    }
    free(diags);
    return ok;
}

/* ---- Seeds and command line ----------------------------------------------------- */

static void add_seed(const char *path)
{
    if (nseeds == MAX_SEEDS) return;
    char err[256];
    size_t len;
    char *p = ws_read_file(path, &len, MAX_INPUT, err, sizeof err);
    if (!p) {
        fprintf(stderr, "fuzz: %s: %s\n", path, err);
        exit(1);
    }
    seeds[nseeds] = (text){p, len};
    seed_names[nseeds++] = ws_xstrdup(path);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every *.w2 of a directory, in name order, so the cases do not depend on the
 * order readdir happens to return. */
static void add_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "fuzz: %s: %s\n", dir, strerror(errno));
        exit(1);
    }
    char *names[MAX_SEEDS];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < MAX_SEEDS;) {
        size_t l = strlen(e->d_name);
        if (l > 3 && strcmp(e->d_name + l - 3, ".w2") == 0) names[n++] = ws_xstrdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name);
    for (int i = 0; i < n; i++) {
        char *path = ws_xmalloc(strlen(dir) + strlen(names[i]) + 2);
        sprintf(path, "%s/%s", dir, names[i]);
        add_seed(path);
        free(path);
        free(names[i]);
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: fuzz_w2 [--cases N] [--seed S] [--case K] [--dump K FILE] [--timeout SEC] "
                    "DIR|FILE.w2...\n");
    exit(1);
}

int main(int argc, char **argv)
{
    long cases = 1000, only = -1, dump = -1;
    uint64_t seed = 0x5741525057325fULL;
    const char *dump_path = NULL;
    ws_set_progname("fuzz_w2");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cases") && i + 1 < argc) cases = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--case") && i + 1 < argc) only = atol(argv[++i]);
        else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) timeout_seconds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--dump") && i + 2 < argc) {
            dump = atol(argv[++i]);
            dump_path = argv[++i];
        } else if (argv[i][0] == '-') usage();
        else {
            size_t l = strlen(argv[i]);
            if (l > 3 && !strcmp(argv[i] + l - 3, ".w2")) add_seed(argv[i]);
            else add_dir(argv[i]);
        }
    }
    if (nseeds == 0 || cases < 1 || timeout_seconds < 1) usage();

    buf b = {ws_xmalloc(MAX_INPUT), 0};
    if (dump >= 0) {
        make_case(dump, seed, &b);
        FILE *f = fopen(dump_path, "wb");
        if (!f || fwrite(b.p, 1, b.len, f) != b.len || fclose(f) != 0) {
            fprintf(stderr, "fuzz: %s: cannot write\n", dump_path);
            return 1;
        }
        return 0;
    }

    install_handlers();
    stats st = {0};
    long first = only >= 0 ? only : 0, last = only >= 0 ? only : cases - 1;
    for (long k = first; k <= last; k++) {
        make_case(k, seed, &b);
        current_case = (sig_atomic_t)k;
        alarm((unsigned)timeout_seconds);
        run_case(k, &b, &st);
        alarm(0);
        current_case = -1;
    }
    printf("fuzz: %ld passed, %ld failed\n", st.passed, st.failed);
    printf("fuzz: %ld cases from %d seeds: %ld compiled (and went through the backend), %ld rejected with "
           "diagnostics, %ld backend errors\n",
           st.passed + st.failed, nseeds, st.compiled, st.rejected, st.backend_errors);
    free(b.p);
    for (int i = 0; i < nseeds; i++) {
        free(seeds[i].p);
        free(seed_names[i]);
    }
    return st.failed ? 1 : 0;
}
