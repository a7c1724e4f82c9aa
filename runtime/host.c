/* Host data files (the W2 language contract, "Host data"): numbers in,
 * whitespace-separated and row-major; numbers out, one a line. Host memory holds
 * each element as a little-endian 32-bit word at the array's address. */
#include "warp_runtime.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "warp_support.h"

#define MAX_DATA_BYTES (1u << 30)

/* The next whitespace-separated word of s: its start and length; 0 at the end. */
static size_t next_word(const char **s)
{
    const char *p = *s;
    while (*p && isspace((unsigned char)*p)) p++;
    *s = p;
    size_t n = 0;
    while (p[n] && !isspace((unsigned char)p[n])) n++;
    return n;
}

/* One number of the file (the word w of n characters, followed by whitespace or
 * the end of the text) as the array's element type wants it; -1 with a reason.
 * The word is parsed where it is, so a number of any length that strtof or
 * strtoll reads is one ("%.64f" of 1.5 has 66 characters). */
static int parse_number(const char *w, size_t n, int is_float, uint32_t *bits, const char **why)
{
    char *end;
    errno = 0;
    if (is_float) {
        float f = strtof(w, &end);
        if (end != w + n) {
            *why = "is not a number";
            return -1;
        }
        /* "inf" written out is a value; 1e39 is a number too large, not infinity. */
        if (errno == ERANGE && isinf(f)) {
            *why = "does not fit a 32-bit float";
            return -1;
        }
        memcpy(bits, &f, 4);
        return 0;
    }
    long long v = strtoll(w, &end, 10);
    if (end != w + n) {
        strtof(w, &end);
        *why = end == w + n ? "is not an integer" : "is not a number";
        return -1;
    }
    if (errno == ERANGE || v < INT32_MIN || v > INT32_MAX) {
        *why = "does not fit a 32-bit int";
        return -1;
    }
    *bits = (uint32_t)(int32_t)v;
    return 0;
}

int wrt_host_read(const wrt_image *img, wsim *sim, const char *name, const char *path,
                  char *err, size_t errlen)
{
    const wrt_host_array *a = wrt_host_find(img, name);
    if (!a) {
        snprintf(err, errlen, "%s: the image has no host array '%s'", path, name);
        return -1;
    }
    uint32_t host_size;
    uint8_t *host = wsim_host_memory(sim, &host_size);
    if ((uint64_t)a->addr + (uint64_t)a->nelems * 4 > host_size) {
        snprintf(err, errlen, "%s: host array '%s' is not within host memory", path, name);
        return -1;
    }
    size_t len;
    char rerr[256];
    char *text = ws_read_file(path, &len, MAX_DATA_BYTES, rerr, sizeof rerr);
    if (!text) {
        snprintf(err, errlen, "%s: %s", path, rerr);
        return -1;
    }
    if (strlen(text) != len) {
        snprintf(err, errlen, "%s: host array '%s': the file is not text", path, name);
        free(text);
        return -1;
    }
    const char *p = text;
    uint32_t i = 0;
    int rc = 0;
    for (size_t n; (n = next_word(&p)) > 0; p += n) {
        if (i == a->nelems) {
            /* Count the rest, so the message says how far off the file is. */
            uint64_t total = i;
            for (; (n = next_word(&p)) > 0; p += n) total++;
            snprintf(err, errlen, "%s: host array '%s' holds %u numbers, the file has %llu", path, name,
                     a->nelems, (unsigned long long)total);
            rc = -1;
            break;
        }
        uint32_t bits;
        const char *why;
        if (parse_number(p, n, a->is_float, &bits, &why) != 0) {
            snprintf(err, errlen, "%s: host array '%s': number %u '%.*s' %s", path, name, i + 1,
                     (int)(n > 40 ? 40 : n), p, why);
            rc = -1;
            break;
        }
        uint8_t *q = host + a->addr + (size_t)i * 4;
        q[0] = (uint8_t)bits;
        q[1] = (uint8_t)(bits >> 8);
        q[2] = (uint8_t)(bits >> 16);
        q[3] = (uint8_t)(bits >> 24);
        i++;
    }
    if (rc == 0 && i < a->nelems) {
        snprintf(err, errlen, "%s: host array '%s' needs %u number%s, the file has %u", path, name, a->nelems,
                 a->nelems == 1 ? "" : "s", i);
        rc = -1;
    }
    free(text);
    return rc;
}

int wrt_host_write(const wrt_image *img, wsim *sim, const char *name, FILE *out)
{
    const wrt_host_array *a = wrt_host_find(img, name);
    uint32_t host_size;
    const uint8_t *host = wsim_host_memory(sim, &host_size);
    if (!a || (uint64_t)a->addr + (uint64_t)a->nelems * 4 > host_size) return -1;
    for (uint32_t i = 0; i < a->nelems; i++) {
        const uint8_t *q = host + a->addr + (size_t)i * 4;
        uint32_t bits = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
        if (a->is_float) {
            float f;
            memcpy(&f, &bits, 4);
            /* A NaN's sign and payload mean nothing in W2, and they differ between
             * the simulated unit (x86's default NaN is negative) and a compiler's
             * constant folding: every NaN is written "nan", at every -O level. */
            if (f != f) fputs("nan\n", out);
            else fprintf(out, "%.9g\n", (double)f);
        } else {
            fprintf(out, "%d\n", (int)(int32_t)bits);
        }
    }
    return ferror(out) ? -1 : 0;
}
