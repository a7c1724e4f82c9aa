#include "warp_support.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *progname = "warp";

void ws_set_progname(const char *name) { progname = name; }
const char *ws_progname(void) { return progname; }

_Noreturn void ws_internal_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: internal error: ", progname);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(70);
}

static _Noreturn void out_of_memory(size_t n)
{
    fprintf(stderr, "%s: out of memory (asked for %zu bytes)\n", progname, n);
    exit(1);
}

void *ws_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) out_of_memory(n);
    return p;
}

void *ws_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) out_of_memory(n * size);
    return p;
}

void *ws_xcalloc_aligned(size_t n, size_t size, size_t align)
{
    if (size && n > SIZE_MAX / size) out_of_memory(SIZE_MAX);
    size_t bytes = n * size;
    if (bytes == 0) bytes = 1;
    void *p = NULL;
    if (posix_memalign(&p, align, bytes) != 0) out_of_memory(bytes);
    memset(p, 0, bytes);
    return p;
}

void *ws_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) out_of_memory(n);
    return p;
}

char *ws_xstrdup(const char *s) { return ws_xstrndup(s, strlen(s)); }

char *ws_xstrndup(const char *s, size_t n)
{
    char *p = ws_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

/* ---- Diagnostics --------------------------------------------------------------- */

/* Where every message goes unless a caller says otherwise (NULL: stderr). */
static FILE *error_stream;

void ws_diag_init(ws_diag *d, const char *path, const char *text, size_t len)
{
    memset(d, 0, sizeof *d);
    d->out = error_stream ? error_stream : stderr;
    d->path = path;
    d->text = text;
    d->len = len;
    d->max_errors = 20;
}

#define SOURCE_WINDOW 160

static void print_source_line(ws_diag *d, int line, int col)
{
    if (!d->text || line <= 0) return;
    const char *p = d->text, *end = d->text + d->len;
    for (int l = 1; l < line && p < end; p++)
        if (*p == '\n') l++;
    if (p >= end && line > 1) return;
    const char *e = p;
    while (e < end && *e != '\n') e++;
    /* A long line is shown as a window around the column, "..." marking what is
     * cut, as clang does: a generated one-line file must not echo megabytes. */
    const char *from = p, *to = e;
    if (e - p > SOURCE_WINDOW) {
        const char *at = col > 0 && col - 1 <= e - p ? p + col - 1 : p;
        from = at - p > SOURCE_WINDOW / 2 ? at - SOURCE_WINDOW / 2 : p;
        to = e - from > SOURCE_WINDOW ? from + SOURCE_WINDOW : e;
    }
    const char *pre = from > p ? "..." : "";
    fprintf(d->out, "%s%.*s%s\n", pre, (int)(to - from), from, to < e ? "..." : "");
    /* Tabs stay tabs under the caret so it lines up in the terminal, and a
     * character of several UTF-8 bytes takes one column (columns in the
     * message count bytes, as compilers do). */
    fputs(pre[0] ? "   " : "", d->out);
    for (const char *q = from; q < p + col - 1 && q < to; q++) {
        unsigned char ch = (unsigned char)*q;
        if ((ch & 0xc0) != 0x80) fputc(ch == '\t' ? '\t' : ' ', d->out);
    }
    fputs("^\n", d->out);
}

/* One message of a diagnostic: counted, then "FILE:LINE:COL: SEVERITY: text", the
 * source line and a caret. 0, or -1 if past the error limit (nothing printed). */
static int emit_one(ws_diag *d, const char *file, ws_severity sev, int line, int col, const char *fmt, va_list ap)
{
    if (sev == WS_WARNING && d->werror) sev = WS_ERROR;
    if (sev == WS_ERROR) {
        d->errors++;
        if (d->max_errors && d->errors > d->max_errors) {
            if (d->errors == d->max_errors + 1)
                fprintf(d->out, "%s: fatal error: too many errors emitted, stopping now\n", d->path);
            return -1;
        }
    } else if (sev == WS_WARNING) {
        d->warnings++;
    }
    static const char *names[] = {"note", "warning", "error"};
    if (!file) file = d->path;
    if (line > 0) fprintf(d->out, "%s:%d:%d: %s: ", file, line, col > 0 ? col : 1, names[sev]);
    else fprintf(d->out, "%s: %s: ", file, names[sev]);
    vfprintf(d->out, fmt, ap);
    fputc('\n', d->out);
    if (file == d->path || !strcmp(file, d->path)) print_source_line(d, line, col);
    return 0;
}

static int emit_text(ws_diag *d, const char *file, ws_severity sev, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = emit_one(d, file, sev, line, col, fmt, ap);
    va_end(ap);
    return rc;
}

void ws_vreport(ws_diag *d, ws_severity sev, int line, int col, const char *fmt, va_list ap)
{
    emit_one(d, NULL, sev, line, col, fmt, ap);
}

void ws_diagnostic_note(ws_diagnostic *x, int line, int col, const char *fmt, ...)
{
    if (x->nnotes == WS_MAX_NOTES) return;
    ws_note *n = &x->notes[x->nnotes++];
    n->line = line;
    n->col = col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->text, sizeof n->text, fmt, ap);
    va_end(ap);
}

void ws_emit(ws_diag *d, const ws_diagnostic *x)
{
    if (emit_text(d, x->file, x->severity, x->line, x->col, "%s", x->message) != 0) return;
    for (int i = 0; i < x->nnotes && i < WS_MAX_NOTES; i++)
        emit_text(d, x->file, WS_NOTE, x->notes[i].line, x->notes[i].col, "%s", x->notes[i].text);
}

void ws_report(ws_diag *d, ws_severity sev, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ws_vreport(d, sev, line, col, fmt, ap);
    va_end(ap);
}

void ws_set_error_stream(FILE *f) { error_stream = f; }

void ws_file_error(const char *path, const char *fmt, ...)
{
    FILE *out = error_stream ? error_stream : stderr;
    va_list ap;
    va_start(ap, fmt);
    fprintf(out, "%s: %s: ", progname, path);
    vfprintf(out, fmt, ap);
    fputc('\n', out);
    va_end(ap);
}

/* ---- Reading files ------------------------------------------------------------- */

char *ws_read_file(const char *path, size_t *len, size_t max_bytes, char *err, size_t errlen)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (f != stdin && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "is a directory");
        fclose(f);
        return NULL;
    }
    ws_buf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (b.len + n > max_bytes) {
            snprintf(err, errlen, "file is larger than %zu bytes", max_bytes);
            ws_buf_free(&b);
            if (f != stdin) fclose(f);
            return NULL;
        }
        ws_buf_append(&b, chunk, n);
    }
    int bad = ferror(f);
    if (f != stdin) fclose(f);
    if (bad) {
        snprintf(err, errlen, "read error");
        ws_buf_free(&b);
        return NULL;
    }
    ws_buf_append(&b, "", 1);
    *len = b.len - 1;
    return b.data;
}

/* ---- Arena --------------------------------------------------------------------- */

struct ws_arena_block {
    ws_arena_block *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

void *ws_arena_alloc(ws_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    ws_arena_block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = n > 65536 ? n : 65536;
        b = ws_xmalloc(sizeof *b + size);
        b->next = a->head;
        b->used = 0;
        b->size = size;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *ws_arena_strndup(ws_arena *a, const char *s, size_t n)
{
    char *p = ws_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    return p;
}

void ws_arena_free(ws_arena *a)
{
    while (a->head) {
        ws_arena_block *next = a->head->next;
        free(a->head);
        a->head = next;
    }
}

/* ---- Buffers ------------------------------------------------------------------- */

void ws_buf_append(ws_buf *b, const void *p, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap < b->len + n + 1) cap *= 2;
        b->data = ws_xrealloc(b->data, cap);
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = 0;
}

void ws_buf_puts(ws_buf *b, const char *s) { ws_buf_append(b, s, strlen(s)); }

void ws_buf_printf(ws_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        ws_buf_append(b, small, (size_t)n);
        return;
    }
    char *big = ws_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    ws_buf_append(b, big, (size_t)n);
    free(big);
}

/* ---- Growable arrays, hashing, a string map ----------------------------------- */

void ws_grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return;
    size_t n = *cap ? *cap : 16;
    while (n < need) n *= 2;
    void **array = p;
    *array = ws_xrealloc(*array, n * size);
    *cap = n;
}

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* qsort's array must not be NULL even when empty, and an empty list may be one */
void ws_sort_ints(int *a, size_t n)
{
    if (n > 1) qsort(a, n, sizeof *a, compare_ints);
}

uint32_t ws_hash(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 16777619u;
    return h;
}

struct ws_strmap_slot {
    const char *key;    /* NULL: empty */
    size_t len;
    uint32_t hash;
    void *val;
};

/* The slot holding the name, or the empty one where it would go. */
static struct ws_strmap_slot *strmap_find(const ws_strmap *m, const char *key, size_t len, uint32_t h)
{
    size_t k = h & (m->cap - 1);
    for (;; k = (k + 1) & (m->cap - 1)) {
        struct ws_strmap_slot *s = &m->slots[k];
        if (!s->key || (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0)) return s;
    }
}

void *ws_strmap_get(const ws_strmap *m, const char *key, size_t len)
{
    if (!m->n) return NULL;
    struct ws_strmap_slot *s = strmap_find(m, key, len, ws_hash(key, len));
    return s->key ? s->val : NULL;
}

void ws_strmap_put(ws_strmap *m, const char *key, size_t len, void *val)
{
    if ((m->n + 1) * 2 > m->cap) {
        ws_strmap old = *m;
        m->cap = old.cap ? old.cap * 2 : 64;
        m->slots = ws_xcalloc(m->cap, sizeof *m->slots);
        for (size_t i = 0; i < old.cap; i++)
            if (old.slots[i].key) *strmap_find(m, old.slots[i].key, old.slots[i].len, old.slots[i].hash) = old.slots[i];
        free(old.slots);
    }
    uint32_t h = ws_hash(key, len);
    struct ws_strmap_slot *s = strmap_find(m, key, len, h);
    if (!s->key) m->n++;
    *s = (struct ws_strmap_slot){key, len, h, val};
}

void ws_strmap_free(ws_strmap *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

void ws_buf_free(ws_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}
