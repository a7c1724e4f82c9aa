/* warp-dbg: the debugger's driver, as gdb is run:
 *
 *   warp-dbg [-batch] [-x FILE]... [-q] IMAGE [--in NAME=FILE]... [--out NAME=FILE]...
 *            [--max-cycles N]
 *
 * Commands come from each -x FILE, then (without -batch) from the terminal through
 * readline (history, line editing, completion of commands, variables, registers
 * and gates), or from standard input when it is not a terminal. Every command goes
 * to wdb_command(); an error in one is reported on standard error and the
 * session goes on. Exit status, as gdb -batch -return-child-result: `quit N`
 * exits N; otherwise, after a script (-batch, or commands on standard input), how
 * the last run of the program ended, in warp-sim's codes (2 fault, 3 deadlock, 4
 * cycle limit, 5 flow-control violation, 1 when an --out file cannot be written);
 * when it finished or never ended, 1 if the last command failed or a -x file
 * could not be read, else 0. A terminal session exits 0 (the user saw every
 * error) unless -return-child-result is given. A write error on standard output
 * is exit 1 with a message. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "warp_debugger.h"
#include "warp_support.h"

#define PROMPT "(warp-dbg) "

static wdb *session;
static volatile sig_atomic_t at_prompt;

/* Ctrl-C: a run stops at the next clock; at the prompt, the line typed so far is
 * dropped and a fresh prompt shown, as gdb's "Quit". */
static void on_sigint(int sig)
{
    (void)sig;
    if (at_prompt) {
        static const char quit[] = "^C\nQuit\n";
        ssize_t r = write(STDOUT_FILENO, quit, sizeof quit - 1);
        (void)r;
        rl_replace_line("", 0);
        rl_on_new_line();
        rl_redisplay();
        return;
    }
    if (session) wdb_interrupt(session);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: warp-dbg [options] IMAGE [--in NAME=FILE]... [--out NAME=FILE]... [--max-cycles N]\n"
            "Debugs a cell image on the simulated array, source line by source line, every\n"
            "cell in lockstep.\n"
            "\n"
            "  -batch             run the -x files, then exit (no terminal session)\n"
            "  -x FILE            run the commands in FILE first\n"
            "  -q, -quiet         no banner\n"
            "  -return-child-result  a terminal session also exits with how the program ended\n"
            "  --in NAME=FILE     fill host array NAME from FILE at each run\n"
            "  --out NAME=FILE    write host array NAME to FILE when the program finishes\n"
            "  --max-cycles N     stop a run after N clocks\n"
            "  --topology T       iWarp: 'linear' (default) or 'torus:WxH', as warp-sim\n"
            "  --channels R,O     iWarp: reservation and open channels on each bus, as warp-sim\n"
            "  --help, --version\n"
            "\n"
            "Type \"help\" at the (warp-dbg) prompt for the commands.\n");
}

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "warp-dbg: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    fprintf(stderr, "usage: warp-dbg [-batch] [-x FILE]... IMAGE [--in NAME=FILE]... [--out NAME=FILE]... "
                    "[--max-cycles N]\n");
    return 1;
}

/* Runs every line of a stream; the status of the last command. */
static int run_stream(FILE *in, FILE *out, int *quit)
{
    char *line = NULL;
    size_t cap = 0;
    int rc = WDB_OK;
    while (!*quit && getline(&line, &cap, in) >= 0) {
        int r = wdb_command(session, line, out);
        if (r == WDB_QUIT) *quit = 1;
        else rc = r;
    }
    free(line);
    return rc;
}

/* ---- readline ---------------------------------------------------------------------------- */

static char **matches;
static size_t match_next;

static char *match_generator(const char *text, int state)
{
    (void)text;
    if (!state) match_next = 0;
    if (!matches || !matches[match_next]) return NULL;
    return strdup(matches[match_next++]);
}

static char **complete(const char *text, int start, int end)
{
    (void)start;
    if (matches) {
        for (size_t i = 0; matches[i]; i++) free(matches[i]);
        free(matches);
    }
    matches = wdb_complete(session, rl_line_buffer, (size_t)end);
    rl_attempted_completion_over = 1;   /* never file names */
    /* A file name completes to "name.w2:" with no space after it. */
    if (matches && !matches[1] && matches[0][strlen(matches[0]) - 1] == ':') rl_completion_append_character = 0;
    return rl_completion_matches(text, match_generator);
}

static int repl(FILE *out)
{
    rl_readline_name = "warp-dbg";
    rl_attempted_completion_function = complete;
    rl_completer_word_break_characters = (char *)" \t\n";
    /* our SIGINT handler, not readline's: readline's keeps the line */
    rl_catch_signals = 0;
    wdb_set_repeat(session, 1);
    for (;;) {
        at_prompt = 1;
        char *line = readline(PROMPT);
        at_prompt = 0;
        if (!line) {
            fputs("quit\n", out);
            break;
        }
        if (*line) add_history(line);
        int r = wdb_command(session, line, out);
        free(line);
        if (r == WDB_QUIT) break;
    }
    if (matches) {
        for (size_t i = 0; matches[i]; i++) free(matches[i]);
        free(matches);
    }
    /* A person at the terminal saw every error: quitting is a success. */
    return WDB_OK;
}

/* ---- main --------------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    /* Temporaries of --out removed on a signal; our SIGINT handler comes after. */
    ws_program_init("warp-dbg");
    const char **xfiles = ws_xcalloc((size_t)argc, sizeof *xfiles);
    const char **in_names = ws_xcalloc((size_t)argc, sizeof *in_names), **in_paths = ws_xcalloc((size_t)argc, sizeof *in_paths);
    const char **out_names = ws_xcalloc((size_t)argc, sizeof *out_names), **out_paths = ws_xcalloc((size_t)argc, sizeof *out_paths);
    size_t nx = 0, nin = 0, nout = 0;
    int batch = 0, quiet = 0, status = 0, child_result = 0;
    uint64_t max_cycles = 0;
    const char *image = NULL, *topology = NULL, *channels = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-help")) {
            usage(stdout);
            goto out;
        } else if (!strcmp(a, "--version") || !strcmp(a, "-version")) {
            printf("warp-dbg 0.1.0 (source-level debugger of the Warp and iWarp arrays)\n");
            goto out;
        } else if (!strcmp(a, "-batch") || !strcmp(a, "--batch")) {
            batch = 1;
            quiet = 1;
        } else if (!strcmp(a, "-return-child-result") || !strcmp(a, "--return-child-result")) {
            child_result = 1;
        } else if (!strcmp(a, "-q") || !strcmp(a, "-quiet") || !strcmp(a, "--quiet") || !strcmp(a, "-nx")) {
            quiet = 1;
        } else if (!strcmp(a, "-x") || !strcmp(a, "--command")) {
            if (++i >= argc) { status = usage_error("missing file after", a); goto out; }
            xfiles[nx++] = argv[i];
        } else if (!strcmp(a, "--in") || !strcmp(a, "--out")) {
            if (++i >= argc) { status = usage_error("missing NAME=FILE after", a); goto out; }
            const char *eq = strchr(argv[i], '=');
            if (!eq || eq == argv[i] || !eq[1]) { status = usage_error("expected NAME=FILE after", a); goto out; }
            const char *name = ws_xstrndup(argv[i], (size_t)(eq - argv[i]));
            if (a[2] == 'i') {
                in_names[nin] = name;
                in_paths[nin++] = eq + 1;
            } else {
                out_names[nout] = name;
                out_paths[nout++] = eq + 1;
            }
        } else if (!strcmp(a, "--topology") || !strcmp(a, "--channels")) {
            if (++i >= argc) {
                status = usage_error("missing value after", a);
                goto out;
            }
            if (a[2] == 't') topology = argv[i];
            else channels = argv[i];
        } else if (!strcmp(a, "--max-cycles")) {
            if (++i >= argc) { status = usage_error("missing number after", a); goto out; }
            char *end;
            errno = 0;
            unsigned long long n = strtoull(argv[i], &end, 10);
            if (end == argv[i] || *end || errno || argv[i][0] == '-' || n == 0)
                { status = usage_error("--max-cycles wants a positive number, not", argv[i]); goto out; }
            max_cycles = n;
        } else if (a[0] == '-' && a[1]) {
            { status = usage_error("unknown option", a); goto out; }
        } else if (image) {
            { status = usage_error("more than one image:", a); goto out; }
        } else {
            image = a;
        }
    }
    if (!image) { status = usage_error("no image given", NULL); goto out; }
    /* No --out may overwrite the image or an --in file, nor another --out: refused
     * before the program runs, as warp-sim does. */
    {
        const char **inputs = ws_xcalloc(nin + 1, sizeof *inputs);
        inputs[0] = image;
        for (size_t i = 0; i < nin; i++) inputs[1 + i] = in_paths[i];
        int bad = 0;
        for (size_t i = 0; i < nout && !bad; i++) {
            bad = ws_check_output(out_paths[i], inputs, 1 + nin) != 0;
            for (size_t j = 0; j < i && !bad; j++)
                if (ws_same_file(out_paths[j], out_paths[i])) {
                    fprintf(stderr, "warp-dbg: '%s' and '%s' are the same output file\n", out_paths[j], out_paths[i]);
                    bad = 1;
                }
        }
        free(inputs);
        if (bad) { status = 1; goto out; }
    }

    wdb_options o = {in_names, in_paths, nin, out_names, out_paths, nout, max_cycles, topology, channels};
    char err[1024];
    session = wdb_new(image, &o, err, sizeof err);
    if (!session) {
        fprintf(stderr, "warp-dbg: %s\n", err);
        status = 1;
        goto out;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);

    int interactive = !batch && isatty(STDIN_FILENO);
    if (interactive && !quiet)
        printf("warp-dbg 0.1.0: the Warp and iWarp arrays, cell by cell. Type \"help\" for the commands.\n"
               "Reading symbols from %s...\n", image);
    wdb_set_error_stream(session, stderr);
    wdb_allow_shell(session, 1);
    int quit = 0, file_failed = 0;
    for (size_t i = 0; i < nx && !quit; i++) {
        FILE *f = fopen(xfiles[i], "r");
        struct stat st;
        if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
            fclose(f);
            f = NULL;
            errno = EISDIR;
        }
        if (!f) {
            fflush(stdout);
            fprintf(stderr, "warp-dbg: %s: %s\n", xfiles[i], strerror(errno));
            file_failed = 1;
            continue;
        }
        status = run_stream(f, stdout, &quit) == WDB_OK ? 0 : 1;
        fclose(f);
    }
    if (!batch && !quit) {
        int rc = interactive ? repl(stdout) : run_stream(stdin, stdout, &quit);
        status = rc == WDB_OK ? 0 : 1;
        if (!interactive) child_result = 1;
    }
    if (batch) child_result = 1;
    if (file_failed) status = 1;
    int end = wdb_exit_code(session);
    if (child_result && end > 0) status = end;
    if (wdb_quit_code(session) >= 0) status = wdb_quit_code(session);
    wdb_free(session);
out:
    /* gdb and the other tools: output that could not be written is a failure. */
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int e = errno;
        fprintf(stderr, "warp-dbg: standard output: write error%s%s\n", e ? ": " : "", e ? strerror(e) : "");
        clearerr(stdout);   /* reported: ws_program_init's check at exit need not again */
        status = 1;
    }
    for (size_t i = 0; i < nin; i++) free((char *)in_names[i]);
    for (size_t i = 0; i < nout; i++) free((char *)out_names[i]);
    free(xfiles);
    free(in_names);
    free(in_paths);
    free(out_names);
    free(out_paths);
    return status;
}
