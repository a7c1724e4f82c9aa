/* The helpers of fuzz.h, shared by every target under either driver. */
#define _GNU_SOURCE /* open_memstream */
#include "fuzz.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warp_support.h"

static FILE *messages;
static char *messages_buf;
static size_t messages_len;

FILE *fuzz_begin(void)
{
    if (messages) fclose(messages);
    free(messages_buf);
    messages_buf = NULL;
    messages_len = 0;
    messages = open_memstream(&messages_buf, &messages_len);
    if (!messages) {
        perror("fuzz: open_memstream");
        abort();
    }
    ws_set_error_stream(messages);
    return messages;
}

const char *fuzz_messages(void)
{
    if (!messages) return "";
    fflush(messages);
    return messages_buf ? messages_buf : "";
}

_Noreturn void fuzz_fail(const char *cond, const char *fmt, ...)
{
    fprintf(stderr, "fuzz: broken promise (%s): ", cond);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nfuzz: the stage's messages for this input:\n%s", fuzz_messages());
    abort();
}

/* ---- The private directory -------------------------------------------------------- */

static char *dir;

/* Removes whatever the stages left in it (they remove their own temporary
 * files; a crash in the middle of a write may not). */
static void remove_dir(void)
{
    if (!dir) return;
    DIR *d = opendir(dir);
    if (d) {
        for (struct dirent *e; (e = readdir(d));) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char *p = ws_xmalloc(strlen(dir) + strlen(e->d_name) + 2);
            sprintf(p, "%s/%s", dir, e->d_name);
            unlink(p);
            free(p);
        }
        closedir(d);
    }
    rmdir(dir);
    free(dir);
    dir = NULL;
}

/* Paths are made once per name and kept, so a target may hold several at once. */
static char *paths[16];
static size_t npaths;

static void free_paths(void)
{
    for (size_t i = 0; i < npaths; i++) free(paths[i]);
    npaths = 0;
}

const char *fuzz_path(const char *name)
{
    if (!dir) {
        const char *tmp = getenv("TMPDIR");
        if (!tmp || !*tmp) tmp = "/tmp";
        dir = ws_xmalloc(strlen(tmp) + 32);
        sprintf(dir, "%s/warp-fuzz-XXXXXX", tmp);
        if (!mkdtemp(dir)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(free_paths);
        atexit(remove_dir);
    }
    size_t dl = strlen(dir);
    for (size_t i = 0; i < npaths; i++)
        if (!strcmp(paths[i] + dl + 1, name)) return paths[i];
    if (npaths == sizeof paths / sizeof paths[0]) {
        fprintf(stderr, "fuzz: too many file names\n");
        abort();
    }
    char *p = ws_xmalloc(dl + strlen(name) + 2);
    sprintf(p, "%s/%s", dir, name);
    paths[npaths++] = p;
    return p;
}

const char *fuzz_write_file(const char *name, const void *data, size_t size)
{
    const char *path = fuzz_path(name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        perror(path);
        abort();
    }
    return path;
}

const char *fuzz_crt0_path(void) { return WARP_BINARY_DIR "/lib/warp/crt0.o"; }
