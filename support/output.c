/* Output files and the end of a program: outputs are written to a temporary beside
 * the target and renamed into place; every temporary is registered, so that exit,
 * a signal or a crash removes it; an output that names an input is refused before
 * anything is written; standard output's write errors are an error at exit. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "warp_support.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- The registry of temporaries ------------------------------------------------ */

/* The signal handler reads these; the program changes them only with the signals
 * blocked, so the handler never sees a half-made entry. */
static char **temps;
static size_t ntemps, temps_cap;

static const int fatal_signals[] = {
    SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF,
    SIGUSR1, SIGUSR2, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS,
};
#define NFATAL (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction previous_action[NFATAL];

static void block_signals(sigset_t *old)
{
    sigset_t all;
    sigemptyset(&all);
    for (size_t i = 0; i < NFATAL; i++) sigaddset(&all, fatal_signals[i]);
    sigprocmask(SIG_BLOCK, &all, old);
}

static void restore_signals(const sigset_t *old) { sigprocmask(SIG_SETMASK, old, NULL); }

void ws_temp_register(const char *path)
{
    char *copy = ws_xstrdup(path);
    sigset_t old;
    block_signals(&old);
    if (ntemps == temps_cap) {
        temps_cap = temps_cap ? temps_cap * 2 : 8;
        /* realloc may move the array: the handler must not read it meanwhile. */
        temps = ws_xrealloc(temps, temps_cap * sizeof *temps);
    }
    temps[ntemps++] = copy;
    restore_signals(&old);
}

int ws_temp_mkstemp(char *template)
{
    /* A signal waits until the new file is registered: none can come between. */
    sigset_t old;
    block_signals(&old);
    int fd = mkstemp(template);
    if (fd >= 0) ws_temp_register(template);
    int e = errno;
    restore_signals(&old);
    errno = e;
    return fd;
}

void ws_temp_release(const char *path)
{
    sigset_t old;
    block_signals(&old);
    char *gone = NULL;
    for (size_t i = ntemps; i-- > 0;) {
        if (strcmp(temps[i], path) == 0) {
            gone = temps[i];
            memmove(&temps[i], &temps[i + 1], (ntemps - i - 1) * sizeof *temps);
            ntemps--;
            break;
        }
    }
    if (ntemps == 0) {
        free(temps);
        temps = NULL;
        temps_cap = 0;
    }
    restore_signals(&old);
    free(gone);
}

/* Async-signal-safe: unlink and rmdir only, newest first. */
static void remove_registered(void)
{
    for (size_t i = ntemps; i-- > 0;)
        if (unlink(temps[i]) != 0 && errno == EISDIR) rmdir(temps[i]);
}

void ws_temp_remove_all(void)
{
    sigset_t old;
    block_signals(&old);
    remove_registered();
    for (size_t i = 0; i < ntemps; i++) free(temps[i]);
    free(temps);
    temps = NULL;
    ntemps = temps_cap = 0;
    restore_signals(&old);
}

/* ---- Signals and exit ------------------------------------------------------------ */

static void on_fatal_signal(int sig, siginfo_t *info, void *context)
{
    (void)context;
    int saved_errno = errno;
    remove_registered();
    errno = saved_errno;
    /* A fault the kernel raised (si_code > 0) happens again when the handler
     * returns, now under the previous action: the process dies at the faulting
     * instruction, or a sanitizer reports it with the right address. */
    int fault = sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
    if (fault && info && info->si_code > 0) {
        size_t k = 0;
        while (k < NFATAL && fatal_signals[k] != sig) k++;
        if (k < NFATAL) sigaction(sig, &previous_action[k], NULL);
        return;
    }
    /* A signal sent (kill, abort) ends the process by its default action. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    sigprocmask(SIG_UNBLOCK, &s, NULL);
    raise(sig);
}

static void close_stdout(void)
{
    int had_error = ferror(stdout) != 0;
    size_t pending = __fpending(stdout);
    int e = fclose(stdout) != 0 ? errno : 0;
    /* A closed standard output (">&-") is fine for a program that wrote nothing. */
    if (e == EBADF && !had_error && pending == 0) return;
    if (!had_error && !e) return;
    fprintf(stderr, "%s: standard output: %s\n", ws_progname(), e ? strerror(e) : "write error");
    _exit(1);
}

static void remove_temps_at_exit(void) { ws_temp_remove_all(); }

void ws_program_init(const char *name)
{
    ws_set_progname(name);
    /* atexit runs the newest first: the temporaries go, then standard output is
     * closed (whose failure ends the process with _exit). */
    atexit(close_stdout);
    atexit(remove_temps_at_exit);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO;
    /* No second fatal signal interrupts the cleanup of the first. */
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NFATAL; i++) sigaddset(&sa.sa_mask, fatal_signals[i]);
    for (size_t i = 0; i < NFATAL; i++) {
        if (sigaction(fatal_signals[i], NULL, &previous_action[i]) != 0) continue;
        if (!(previous_action[i].sa_flags & SA_SIGINFO) && previous_action[i].sa_handler == SIG_IGN) continue;
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

/* ---- Outputs that would overwrite an input ---------------------------------------- */

/* What a path names: an existing file's device and inode, or, for a name not yet
 * made, its directory's device and inode and the last component. */
typedef struct file_id {
    dev_t dev;
    ino_t ino;
    int exists;
    const char *base;
    size_t base_len;
} file_id;

static int identify(const char *path, file_id *id)
{
    memset(id, 0, sizeof *id);
    struct stat st;
    if (strcmp(path, "-") == 0) return -1;
    if (stat(path, &st) == 0) {
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        id->exists = 1;
        return 0;
    }
    if (errno != ENOENT) return -1;
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') len--;
    const char *slash = NULL;
    for (size_t i = len; i-- > 0;)
        if (path[i] == '/') { slash = path + i; break; }
    char *dir = slash ? ws_xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : ws_xstrdup(".");
    int rc = stat(dir, &st);
    free(dir);
    if (rc != 0) return -1;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    id->base = slash ? slash + 1 : path;
    id->base_len = (size_t)(path + len - id->base);
    return 0;
}

/* An input: "-" is what standard input reads. */
static int identify_input(const char *path, file_id *id)
{
    if (strcmp(path, "-") != 0) return identify(path, id);
    memset(id, 0, sizeof *id);
    struct stat st;
    if (fstat(STDIN_FILENO, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    id->exists = 1;
    return 0;
}

static int same_id(const file_id *a, const file_id *b)
{
    if (a->dev != b->dev || a->ino != b->ino || a->exists != b->exists) return 0;
    return a->exists || (a->base_len == b->base_len && memcmp(a->base, b->base, a->base_len) == 0);
}

int ws_same_file(const char *a, const char *b)
{
    file_id x, y;
    if (identify(a, &x) != 0 || identify(b, &y) != 0) return 0;
    return same_id(&x, &y);
}

int ws_check_output(const char *output, const char *const *inputs, size_t ninputs)
{
    if (!output) return 0;
    if (!*output) {
        fprintf(stderr, "%s: the output file name is empty\n", ws_progname());
        return -1;
    }
    /* Found now, not after the work whose result it would hold. */
    struct stat st;
    if (strcmp(output, "-") != 0 && stat(output, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: %s: the output is a directory\n", ws_progname(), output);
        return -1;
    }
    file_id out;
    /* Standard output is not checked: the shell opened it before we ran. */
    if (identify(output, &out) != 0) return 0;
    for (size_t i = 0; i < ninputs; i++) {
        file_id in;
        if (!inputs[i] || identify_input(inputs[i], &in) != 0 || !same_id(&in, &out)) continue;
        const char *shown = strcmp(inputs[i], "-") == 0 ? "<stdin>" : inputs[i];
        if (strcmp(inputs[i], output) == 0)
            fprintf(stderr, "%s: input file '%s' is the same as output file\n", ws_progname(), shown);
        else
            fprintf(stderr, "%s: input file '%s' is the same as output file '%s'\n", ws_progname(), shown, output);
        return -1;
    }
    return 0;
}

/* ---- Output files -------------------------------------------------------------- */

/* "DIR/NAME.tmpPID" (".tmpPID.N" on a later attempt, when that name is taken),
 * with NAME cut short when the whole would pass the directory's NAME_MAX. */
static char *temp_name(const char *target, unsigned attempt)
{
    const char *slash = strrchr(target, '/');
    size_t dir_len = slash ? (size_t)(slash - target) + 1 : 0;
    const char *base = target + dir_len;
    char suffix[48];
    if (attempt) snprintf(suffix, sizeof suffix, ".tmp%ld.%u", (long)getpid(), attempt);
    else snprintf(suffix, sizeof suffix, ".tmp%ld", (long)getpid());
    long name_max = NAME_MAX;
    char *dir = dir_len ? ws_xstrndup(target, dir_len) : ws_xstrdup(".");
    long limit = pathconf(dir, _PC_NAME_MAX);
    free(dir);
    if (limit > 0) name_max = limit;
    size_t keep = strlen(base);
    if (keep + strlen(suffix) > (size_t)name_max)
        keep = (size_t)name_max > strlen(suffix) ? (size_t)name_max - strlen(suffix) : 0;
    size_t n = dir_len + keep + strlen(suffix) + 1;
    char *tmp = ws_xmalloc(n);
    memcpy(tmp, target, dir_len + keep);
    strcpy(tmp + dir_len + keep, suffix);
    return tmp;
}

/* The file a symbolic link names is the one replaced, so the link stays a link:
 * path itself, or where its links lead (a link to a file not made yet included). */
static char *link_target(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) return ws_xstrdup(path);
    char *real = realpath(path, NULL);
    if (real) return real;
    char to[PATH_MAX];
    ssize_t n = readlink(path, to, sizeof to - 1);
    if (n <= 0) return ws_xstrdup(path);
    to[n] = 0;
    const char *slash = strrchr(path, '/');
    if (to[0] == '/' || !slash) return ws_xstrdup(to);
    size_t dir = (size_t)(slash - path) + 1;
    char *joined = ws_xmalloc(dir + (size_t)n + 1);
    memcpy(joined, path, dir);
    memcpy(joined + dir, to, (size_t)n + 1);
    return joined;
}

FILE *ws_output_open(ws_output *o, const char *path, int binary)
{
    (void)binary; /* POSIX streams make no difference between text and binary */
    memset(o, 0, sizeof *o);
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return o->f;
    }
    char *target = link_target(path);
    struct stat st;
    if (stat(target, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) {
            free(target);
            errno = EISDIR;
            return NULL;
        }
        /* A device or FIFO is written in place at the commit, from an anonymous
         * file: renaming over /dev/null would replace the device with a file. */
        o->f = tmpfile();
        if (!o->f) {
            int e = errno;
            free(target);
            errno = e;
            return NULL;
        }
        o->path = target;
        o->copy = 1;
        return o->f;
    }
    for (unsigned attempt = 0; attempt < 100; attempt++) {
        char *tmp = temp_name(target, attempt);
        /* Made and registered with the signals held, so none comes between the
         * two (and a name another program holds is never registered). */
        sigset_t old;
        block_signals(&old);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd >= 0) ws_temp_register(tmp);
        restore_signals(&old);
        if (fd >= 0) {
            o->f = fdopen(fd, "w");
            if (o->f) {
                o->path = target;
                o->tmp = tmp;
                return o->f;
            }
            int e = errno;
            close(fd);
            unlink(tmp);
            ws_temp_release(tmp);
            errno = e;
        }
        int e = errno;
        free(tmp);
        errno = e;
        if (e != EEXIST) break;
    }
    int e = errno;
    free(target);
    errno = e;
    return NULL;
}

/* Writes the anonymous file's bytes to the device or FIFO at o->path. */
static int copy_out(ws_output *o)
{
    if (fflush(o->f) != 0 || ferror(o->f)) return -1;
    rewind(o->f);
    FILE *dst = fopen(o->path, "w");
    if (!dst) return -1;
    char buf[65536];
    size_t n;
    int bad = 0;
    while (!bad && (n = fread(buf, 1, sizeof buf, o->f)) > 0) bad = fwrite(buf, 1, n, dst) != n;
    bad |= ferror(o->f) != 0;
    int e = errno;
    if (fclose(dst) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    errno = e;
    return bad ? -1 : 0;
}

int ws_output_commit(ws_output *o)
{
    if (!o->f) return -1;
    if (o->f == stdout) {
        o->f = NULL;
        if (fflush(stdout) == 0 && !ferror(stdout)) return 0;
        /* The caller reports it; the check at exit need not say it again. */
        int e = errno;
        clearerr(stdout);
        errno = e;
        return -1;
    }
    int bad;
    if (o->copy) {
        bad = copy_out(o) != 0;
        int e = errno;
        fclose(o->f);
        errno = e;
    } else {
        bad = ferror(o->f) | (fclose(o->f) != 0);
    }
    o->f = NULL;
    if (!bad && o->tmp) {
        /* An image is executable by the simulator, as an a.out is by the kernel. */
        struct stat st;
        if (stat(o->path, &st) == 0) chmod(o->tmp, st.st_mode & 07777);
        bad = rename(o->tmp, o->path) != 0;
    }
    int e = errno;
    if (o->tmp) {
        if (bad) unlink(o->tmp);
        ws_temp_release(o->tmp);
    }
    free(o->path);
    free(o->tmp);
    o->path = o->tmp = NULL;
    errno = e;
    return bad ? -1 : 0;
}

void ws_output_abort(ws_output *o)
{
    /* Standard output stays open; its error, if any, is the caller's to report. */
    if (o->f == stdout) clearerr(stdout);
    if (o->f && o->f != stdout) fclose(o->f);
    if (o->tmp) {
        unlink(o->tmp);
        ws_temp_release(o->tmp);
    }
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

int ws_write_text(const char *path, const char *text, size_t len)
{
    ws_output out;
    FILE *f = ws_output_open(&out, path, 0);
    if (!f) {
        ws_file_error(path, "cannot write: %s", strerror(errno));
        return -1;
    }
    if (fwrite(text, 1, len, f) != len) {
        ws_output_abort(&out);
        ws_file_error(path, "write error");
        return -1;
    }
    if (ws_output_commit(&out) != 0) {
        ws_file_error(path, "cannot write: %s", strerror(errno));
        return -1;
    }
    return 0;
}
