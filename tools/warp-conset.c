/* warp-conset: the communication compiler of phased connection sets as a program.
 * It reads the connections of a pattern (a file of "SRC DST" lines, or one of seed
 * 003's patterns by name), partitions, routes and schedules them with warp_conset
 * (docs/design.md, section 8), checks the plan, and writes it as an assembly data
 * file that runtime/conset.s executes on the cells (section 12): per cell, the
 * routing words of the tokens of its synchronisation rounds, then per phase the
 * pathway headers of the connections it starts, in the scheduler's order.
 *
 *   warp-conset --torus WxH (--pattern torus|butterfly|alltoall | --conns FILE)
 *               [--words K] [--channels B] [--cell-channels C] [--first CID] -o PLAN.s */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warp_conset.h"
#include "warp_support.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: warp-conset --torus WxH (--pattern P | --conns FILE) [options] -o PLAN.s\n"
            "Partitions, routes and schedules a pattern of connections into phases (seed 003's\n"
            "ConSet) and writes the plan for runtime/conset.s as assembly.\n"
            "\n"
            "  --torus WxH          the torus (1 to 32 a side)\n"
            "  --pattern P          'torus' (the 4 neighbours), 'butterfly' (the 6 hypercube\n"
            "                       neighbours under a Gray-code mapping), 'alltoall'\n"
            "  --conns FILE         or the connections, a 'SRC DST' pair of cell numbers a line\n"
            "  --words K            words a connection carries, for the schedule (default 32)\n"
            "  --channels B         connections a bus carries in a phase (default 3)\n"
            "  --cell-channels C    connections a cell lends channels to in a phase (default 12)\n"
            "  --first CID          the first cell's cell id (default 0)\n"
            "  -o FILE              the plan (required)\n"
            "  --help, --version\n");
}

static int gray(int v) { return v ^ (v >> 1); }

/* The cell whose Gray-coded coordinates make hypercube node `node` (the mapping of
 * seed 003, section 5.1.2; as tests/unit/test_conset.c). */
static int cube_cell(int w, int bits_x, int node)
{
    int x = 0, y = 0;
    while (gray(x) != (node & ((1 << bits_x) - 1))) x++;
    while (gray(y) != (node >> bits_x)) y++;
    return y * w + x;
}

static int log2_exact(int v)
{
    int k = 0;
    while ((1 << k) < v) k++;
    return (1 << k) == v ? k : -1;
}

static int make_pattern(const char *name, const wcs_machine *m, uint32_t words, wcs_conn **out, int *n)
{
    int cells = m->width * m->height;
    wcs_conn *c = ws_xcalloc((size_t)cells * (size_t)cells + 1, sizeof *c);
    int k = 0;
    if (!strcmp(name, "torus")) {
        for (int cell = 0; cell < cells; cell++)
            for (int bus = 0; bus < 4; bus++) {
                int to = wcs_neighbour(m, cell, bus);
                if (to != cell) c[k++] = (wcs_conn){cell, to, words};
            }
    } else if (!strcmp(name, "butterfly")) {
        int bx = log2_exact(m->width), by = log2_exact(m->height);
        if (bx < 0 || by < 0) {
            fprintf(stderr, "warp-conset: the butterfly needs a torus whose sides are powers of two\n");
            free(c);
            return -1;
        }
        for (int node = 0; node < cells; node++)
            for (int d = 0; d < bx + by; d++)
                c[k++] = (wcs_conn){cube_cell(m->width, bx, node), cube_cell(m->width, bx, node ^ (1 << d)), words};
    } else if (!strcmp(name, "alltoall")) {
        for (int a = 0; a < cells; a++)
            for (int b = 0; b < cells; b++)
                if (a != b) c[k++] = (wcs_conn){a, b, words};
    } else {
        fprintf(stderr, "warp-conset: unknown pattern '%s' (torus, butterfly or alltoall)\n", name);
        free(c);
        return -1;
    }
    *out = c;
    *n = k;
    return 0;
}

static int read_conns(const char *path, const wcs_machine *m, uint32_t words, wcs_conn **out, int *n)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        ws_file_error(path, "%s", strerror(errno));
        return -1;
    }
    int cap = 64, k = 0, line = 0, cells = m->width * m->height;
    wcs_conn *c = ws_xcalloc((size_t)cap, sizeof *c);
    char buf[256];
    while (fgets(buf, sizeof buf, f)) {
        line++;
        int a, b;
        char extra;
        if (sscanf(buf, " %c", &extra) != 1 || extra == '#') continue;
        if (sscanf(buf, "%d %d %c", &a, &b, &extra) != 2 || a < 0 || b < 0 || a >= cells || b >= cells || a == b) {
            fprintf(stderr, "warp-conset: %s:%d: expected two different cell numbers from 0 to %d\n", path, line,
                    cells - 1);
            fclose(f);
            free(c);
            return -1;
        }
        if (k == cap) c = ws_xrealloc(c, sizeof *c * (size_t)(cap *= 2));
        c[k++] = (wcs_conn){a, b, words};
    }
    fclose(f);
    *out = c;
    *n = k;
    return 0;
}

int main(int argc, char **argv)
{
    ws_program_init("warp-conset");
    wcs_machine m = {0, 0, 3, 12, 2, 0};
    const char *pattern = NULL, *conns_path = NULL, *out_path = NULL;
    long words = 32, first = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            printf("warp-conset 0.1.0\n");
            return 0;
        } else if (v && !strcmp(a, "--torus")) {
            char extra;
            if (sscanf(v, "%dx%d%c", &m.width, &m.height, &extra) != 2 || m.width < 1 || m.height < 1 ||
                m.width > 32 || m.height > 32) {
                fprintf(stderr, "warp-conset: --torus '%s': expected WxH, 1 to 32 a side\n", v);
                return 1;
            }
            i++;
        } else if (v && !strcmp(a, "--pattern")) {
            pattern = argv[++i];
        } else if (v && !strcmp(a, "--conns")) {
            conns_path = argv[++i];
        } else if (v && (!strcmp(a, "--words") || !strcmp(a, "--channels") || !strcmp(a, "--cell-channels") ||
                         !strcmp(a, "--first"))) {
            char *end;
            errno = 0;
            long n = strtol(v, &end, 10);
            if (errno || *end || n < (strcmp(a, "--first") ? 1 : 0) || n > 1000000) {
                fprintf(stderr, "warp-conset: %s '%s': expected a number\n", a, v);
                return 1;
            }
            if (!strcmp(a, "--words")) words = n;
            else if (!strcmp(a, "--channels")) m.bus_channels = (int)n;
            else if (!strcmp(a, "--cell-channels")) m.cell_channels = (int)n;
            else first = n;
            i++;
        } else if (v && !strcmp(a, "-o")) {
            out_path = argv[++i];
        } else {
            fprintf(stderr, "warp-conset: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 1;
        }
    }
    if (!m.width || !out_path || !pattern == !conns_path) {
        fprintf(stderr, "warp-conset: give --torus, -o and one of --pattern and --conns\n");
        return 1;
    }
    if (conns_path && ws_check_output(out_path, &conns_path, 1) != 0) return 1;
    wcs_conn *c = NULL;
    int n = 0;
    if ((pattern ? make_pattern(pattern, &m, (uint32_t)words, &c, &n)
                 : read_conns(conns_path, &m, (uint32_t)words, &c, &n)) != 0)
        return 1;
    wcs_options opts = {8, 0};
    wcs_plan p;
    char err[256];
    if (wcs_compile(&m, c, n, &opts, &p, err, sizeof err) != 0 || wcs_check(&m, c, n, &p, err, sizeof err) != 0) {
        fprintf(stderr, "warp-conset: %s\n", err);
        free(c);
        return 1;
    }

    uint32_t *w = NULL;
    size_t nw = 0;
    int rc = wcs_plan_words(&m, c, n, &p, (int)first, &w, &nw, err, sizeof err);
    ws_buf b = {0};
    if (rc == 0) {
        fprintf(stderr, "warp-conset: %d connections, %d phases (at least %d)\n", n, p.nphases,
                wcs_phase_lower_bound(&m, c, n));
        ws_buf_printf(&b, "; generated by warp-conset: %dx%d torus, %d connections in %d phases (%d bus and %d "
                      "cell channels)\n", m.width, m.height, n, p.nphases, m.bus_channels, m.cell_channels);
        ws_buf_printf(&b, "        .model  iwarp\n        .data\n        .globl  cs_plan\ncs_plan:\n");
        ws_buf_printf(&b, "        .word   %u, %u, %u, %u", w[0], w[1], w[2], w[3]);
        for (size_t i = 4; i < nw; i++) ws_buf_printf(&b, "%s%u", (i - 4) % 8 ? ", " : "\n        .word   ", w[i]);
        ws_buf_printf(&b, "\n");
        rc = ws_write_text(out_path, b.data, b.len);
    } else {
        fprintf(stderr, "warp-conset: %s\n", err);
    }
    free(w);
    ws_buf_free(&b);
    wcs_plan_free(&p);
    free(c);
    return rc ? 1 : 0;
}
