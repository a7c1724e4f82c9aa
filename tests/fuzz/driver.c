/* A fuzz driver that needs nothing but a C compiler: it replays a seed corpus
 * through a target's LLVMFuzzerTestOneInput, then feeds it a fixed number of
 * mutants of the seeds, as ctest's fuzz smoke tests (fuzz.NAME). It stands in for
 * libFuzzer where clang is not installed; scripts/fuzz.sh runs the real thing.
 *
 * The cases are deterministic (a fixed seed): case k < number of seeds is seed k
 * itself, a later case is seed k mod n with 1 to 4 mutations drawn from a
 * generator seeded by k alone, so --case K reproduces one case without the others
 * and --dump K FILE writes it out (to keep it in tests/fuzz/regress/NAME).
 * Each input is handed over in a buffer of exactly its size, so the sanitizer
 * build catches a read past its end. A crash, an abort (a broken promise, see
 * fuzz.h), an exit or a case that runs past --timeout seconds of CPU time (not
 * of the clock: the machine may be shared) names the case.
 *
 *   fuzz_NAME [--cases N] [--seed S] [--case K] [--dump K FILE] [--timeout SEC]
 *             [--dict FILE] [--max-len BYTES] DIR|FILE...
 *
 * The last line is "fuzz: N passed, N failed". */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "fuzz.h"
#include "warp_support.h"

/* libFuzzer calls this once before the first input if the target defines it. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

typedef struct bytes {
    uint8_t *p;
    size_t len;
} bytes;

static bytes *seeds;
static char **seed_names;
static size_t nseeds, seeds_cap;
static bytes *dict;
static size_t ndict;
static size_t max_len = 1u << 20;

/* ---- The case in progress, for the handlers ------------------------------------ */

static volatile sig_atomic_t current_case = -1;
static volatile sig_atomic_t timeout_seconds = 60;
static const char *argv0 = "fuzz";

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

static void say_reproduce(void)
{
    say("; reproduce with ");
    say(argv0);
    say(" --case ");
    say_number(current_case);
    say(" (same seeds), write it out with --dump ");
    say_number(current_case);
    say(" FILE\n");
}

static void on_alarm(int sig)
{
    say("fuzz: case ");
    say_number(current_case);
    say(" did not finish in ");
    say_number(sig == SIGALRM ? 10 * timeout_seconds : timeout_seconds);
    say(sig == SIGALRM ? " s (a hang?)" : " s of CPU time (a hang?)");
    say_reproduce();
    _exit(1);
}

static struct sigaction previous[32];

/* Names the case, then puts the previous handler (ASan's, or the default) back
 * and returns: the faulting instruction runs again and that handler reports it;
 * an abort() raises its signal again itself. */
static void on_crash(int sig)
{
    say("fuzz: case ");
    say_number(current_case);
    say(" crashed with signal ");
    say_number(sig);
    say_reproduce();
    sigaction(sig, &previous[sig], NULL);
}

/* An out-of-memory exit or an internal error ends the process through exit(). */
static void at_exit(void)
{
    if (current_case < 0) return;
    say("fuzz: the process exited during case ");
    say_number(current_case);
    say_reproduce();
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    sigaction(SIGVTALRM, &sa, NULL);
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

static void insert(bytes *b, size_t at, const uint8_t *s, size_t n)
{
    if (b->len + n > max_len) return;
    memmove(b->p + at + n, b->p + at, b->len - at);
    memcpy(b->p + at, s, n);
    b->len += n;
}

/* Values that sit on the edges of fields: sizes, offsets, counts and indices of
 * binary formats are where readers go wrong. */
static const uint32_t interesting[] = {
    0, 1, 2, 3, 4, 7, 8, 15, 16, 39, 40, 41, 0x7f, 0x80, 0xff, 0x100, 0xfff, 0x1000,
    0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
};

static void put_le(bytes *b, size_t at, uint32_t v, size_t width)
{
    for (size_t i = 0; i < width && at + i < b->len; i++) b->p[at + i] = (uint8_t)(v >> (8 * i));
}

static void mutate(bytes *b)
{
    size_t at = below(b->len + 1);
    switch (below(11)) {
    case 0: /* overwrite a byte with any byte */
        if (b->len) b->p[below(b->len)] = (uint8_t)below(256);
        break;
    case 1: /* flip one bit */
        if (b->len) b->p[below(b->len)] ^= (uint8_t)(1u << below(8));
        break;
    case 2: { /* delete a range */
        size_t n = 1 + below(below(2) ? 8 : 256);
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
        uint8_t copy[64];
        memcpy(copy, b->p + from, n);
        insert(b, at, copy, n);
        break;
    }
    case 5: case 6: { /* an interesting value in a 1, 2 or 4-byte field, often aligned */
        if (!b->len) break;
        size_t width = (size_t)1 << below(3);
        size_t pos = below(b->len);
        if (below(4)) pos &= ~(width - 1);
        uint32_t v = interesting[below(sizeof interesting / sizeof interesting[0])];
        if (below(4) == 0) v += (uint32_t)below(16) - 8;
        put_le(b, pos, v, width);
        break;
    }
    case 7: { /* add a small number to a 4-byte field */
        if (b->len < 4) break;
        size_t pos = below(b->len - 3) & ~(size_t)3;
        uint32_t v = (uint32_t)b->p[pos] | (uint32_t)b->p[pos + 1] << 8 | (uint32_t)b->p[pos + 2] << 16 |
                     (uint32_t)b->p[pos + 3] << 24;
        put_le(b, pos, v + (uint32_t)below(33) - 16, 4);
        break;
    }
    case 8: { /* a dictionary word, inserted or written over */
        if (!ndict) break;
        const bytes *w = &dict[below(ndict)];
        if (below(2) || at + w->len > b->len) {
            uint8_t tmp[136];
            size_t n = 0;
            if (below(2)) tmp[n++] = ' ';
            memcpy(tmp + n, w->p, w->len);
            n += w->len;
            if (below(2)) tmp[n++] = ' ';
            insert(b, at, tmp, n);
        } else {
            memcpy(b->p + at, w->p, w->len);
        }
        break;
    }
    case 9: { /* splice in a line (or 1..200 bytes) of another seed */
        const bytes *t = &seeds[below(nseeds)];
        if (!t->len) break;
        size_t from = below(t->len), n = 0;
        while (from + n < t->len && t->p[from + n] != '\n' && n < 200) n++;
        if (n == 0) n = 1;
        insert(b, at, t->p + from, n);
        break;
    }
    default: { /* copy a range of the input over another place of it */
        if (b->len < 2) break;
        size_t from = below(b->len), to = below(b->len), n = 1 + below(32);
        if (from + n > b->len) n = b->len - from;
        if (to + n > b->len) n = b->len - to;
        memmove(b->p + to, b->p + from, n);
        break;
    }
    }
}

/* Case k: the seeds themselves first, then mutants of them. Each case has its
 * own generator state, so --case reproduces one without running the others. */
static void make_case(long k, uint64_t seed, bytes *b)
{
    rng_state = seed ^ ((uint64_t)k * 0xd1342543de82ef95ull);
    const bytes *t = &seeds[(size_t)k % nseeds];
    size_t n = t->len > max_len ? max_len : t->len;
    memcpy(b->p, t->p, n);
    b->len = n;
    if ((size_t)k < nseeds) return;
    int m = 1 + (int)below(4);
    for (int i = 0; i < m; i++) mutate(b);
}

/* ---- Seeds, dictionary and command line ------------------------------------------ */

static void add_seed(const char *path)
{
    char err[256];
    size_t len;
    char *p = ws_read_file(path, &len, 64u << 20, err, sizeof err);
    if (!p) {
        fprintf(stderr, "fuzz: %s: %s\n", path, err);
        exit(1);
    }
    if (nseeds == seeds_cap) {
        seeds_cap = seeds_cap ? 2 * seeds_cap : 64;
        seeds = ws_xrealloc(seeds, seeds_cap * sizeof *seeds);
        seed_names = ws_xrealloc(seed_names, seeds_cap * sizeof *seed_names);
    }
    seeds[nseeds] = (bytes){(uint8_t *)p, len};
    seed_names[nseeds++] = ws_xstrdup(path);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every regular file of a directory but dot files and README*, in name order, so
 * the cases do not depend on the order readdir happens to return. */
static void add_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "fuzz: %s: %s\n", dir, strerror(errno));
        exit(1);
    }
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || !strncmp(e->d_name, "README", 6)) continue;
        names = ws_xrealloc(names, (n + 1) * sizeof *names);
        names[n++] = ws_xstrdup(e->d_name);
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        char *path = ws_xmalloc(strlen(dir) + strlen(names[i]) + 2);
        sprintf(path, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) add_seed(path);
        free(path);
        free(names[i]);
    }
    free(names);
}

static int hex_digit(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A libFuzzer dictionary: lines [name=]"value", '#' comments, \\ \" \xNN escapes. */
static void load_dict(const char *path)
{
    char err[256];
    size_t len;
    char *text = ws_read_file(path, &len, 1u << 20, err, sizeof err);
    if (!text) {
        fprintf(stderr, "fuzz: %s: %s\n", path, err);
        exit(1);
    }
    int line = 0;
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = 0;
        line++;
        while (*p == ' ' || *p == '\t') p++;
        char *q = *p == '#' || !*p ? NULL : strchr(p, '"');
        if (q) {
            uint8_t w[128];
            size_t n = 0;
            int ok = 0;
            for (q++; *q && n < sizeof w; q++) {
                if (*q == '"') { ok = 1; break; }
                if (*q != '\\') { w[n++] = (uint8_t)*q; continue; }
                q++;
                if (*q == 'x' && hex_digit(q[1]) >= 0 && hex_digit(q[2]) >= 0) {
                    w[n++] = (uint8_t)(hex_digit(q[1]) * 16 + hex_digit(q[2]));
                    q += 2;
                } else if (*q == '\\' || *q == '"') {
                    w[n++] = (uint8_t)*q;
                } else {
                    break;
                }
            }
            if (!ok || n == 0) {
                fprintf(stderr, "fuzz: %s:%d: not a dictionary entry\n", path, line);
                exit(1);
            }
            dict = ws_xrealloc(dict, (ndict + 1) * sizeof *dict);
            dict[ndict].p = ws_xmalloc(n);
            memcpy(dict[ndict].p, w, n);
            dict[ndict++].len = n;
        }
        if (!nl) break;
        p = nl + 1;
    }
    free(text);
}

static void usage(void)
{
    fprintf(stderr, "usage: %s [--cases N] [--seed S] [--case K] [--dump K FILE] [--timeout SEC] "
                    "[--dict FILE] [--max-len BYTES] DIR|FILE...\n", argv0);
    exit(1);
}

int main(int argc, char **argv)
{
    long cases = 1000, only = -1, dump = -1;
    uint64_t seed = 0x5741525057325fULL;
    const char *dump_path = NULL;
    argv0 = argv[0];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cases") && i + 1 < argc) cases = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--case") && i + 1 < argc) only = atol(argv[++i]);
        else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) timeout_seconds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--dict") && i + 1 < argc) load_dict(argv[++i]);
        else if (!strcmp(argv[i], "--max-len") && i + 1 < argc) max_len = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--dump") && i + 2 < argc) {
            dump = atol(argv[++i]);
            dump_path = argv[++i];
        } else if (argv[i][0] == '-') usage();
        else {
            struct stat st;
            if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) add_dir(argv[i]);
            else add_seed(argv[i]);
        }
    }
    if (nseeds == 0 || cases < 1 || timeout_seconds < 1 || max_len < 1) usage();

    /* Room for the largest case; each case is then copied into a buffer of its
     * own exact size. */
    size_t room = max_len;
    for (size_t i = 0; i < nseeds; i++)
        if (seeds[i].len > room) room = seeds[i].len;
    bytes b = {ws_xmalloc(room + 1), 0};
    if (dump >= 0) {
        make_case(dump, seed, &b);
        FILE *f = fopen(dump_path, "wb");
        if (!f || fwrite(b.p, 1, b.len, f) != b.len || fclose(f) != 0) {
            fprintf(stderr, "fuzz: %s: cannot write\n", dump_path);
            return 1;
        }
        return 0;
    }

    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    install_handlers();
    long first = only >= 0 ? only : 0, last = only >= 0 ? only : cases - 1, ran = 0;
    for (long k = first; k <= last; k++) {
        make_case(k, seed, &b);
        uint8_t *exact = ws_xmalloc(b.len ? b.len : 1);
        if (b.len) memcpy(exact, b.p, b.len);
        current_case = (sig_atomic_t)k;
        /* CPU time for a hang; the clock, ten times longer, as a last resort. */
        struct itimerval cpu = {.it_value = {.tv_sec = timeout_seconds}}, off = {0};
        setitimer(ITIMER_VIRTUAL, &cpu, NULL);
        alarm(10u * (unsigned)timeout_seconds);
        LLVMFuzzerTestOneInput(exact, b.len);
        alarm(0);
        setitimer(ITIMER_VIRTUAL, &off, NULL);
        current_case = -1;
        free(exact);
        ran++;
    }
    /* A failure does not come back here: it ends the process naming its case. */
    printf("fuzz: %ld cases from %zu seeds (%zu dictionary words)\n", ran, nseeds, ndict);
    printf("fuzz: %ld passed, 0 failed\n", ran);
    free(b.p);
    for (size_t i = 0; i < nseeds; i++) {
        free(seeds[i].p);
        free(seed_names[i]);
    }
    free(seeds);
    free(seed_names);
    for (size_t i = 0; i < ndict; i++) free(dict[i].p);
    free(dict);
    return 0;
}
