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

enum { SEND_WORDS = 16, MAX_ROUTE_WORDS = SEND_WORDS - 2 };

static int write_text(const char *path, const char *text, size_t len)
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

/* Routing words (docs/design.md, section 7): cell | action << 12 | pool << 15 | free << 16. */
static uint32_t rword(int cell, int action, int pool, uint32_t free_bits)
{
    return (uint32_t)cell | (uint32_t)action << 12 | (uint32_t)pool << 15 | free_bits << 16;
}

/* The header of a connection's pathway: the source turning onto its first bus, a
 * turn at each cell where the route changes bus, and the destination with the
 * connection's receive slot there. Every hop in the reservation pool, which the
 * plan never fills beyond its channels. */
static int route_words(const wcs_plan *p, int conn, int first_cid, int dst, uint32_t slot, uint32_t *w)
{
    const wcs_route *r = &p->routes[conn];
    const wcs_hop *h = &p->hops[r->first];
    int n = 0;
    w[n++] = rword(first_cid + h[0].cell, 1 + h[0].bus, 0, 0);
    for (int i = 1; i < r->nhops; i++) {
        if (h[i].bus == h[i - 1].bus) continue;
        if (n == MAX_ROUTE_WORDS - 1) return -1;
        w[n++] = rword(first_cid + h[i].cell, 1 + h[i].bus, 0, 0);
    }
    w[n++] = rword(first_cid + dst, 0, 0, slot);
    return n;
}

/* A token from cell a to cell b, its word `tag` (0x8000 | round: synchronisation;
 * 0x4000 | the source's send slot: a connection's acknowledgement): a pathway with
 * no words in the open pool, which no connection uses, in dimension order on the
 * mesh (no wrap-around link): many tokens under way can fill a channel's queue, so
 * their routes must not close a cycle either. */
static int token_words(const wcs_machine *m, int first_cid, int a, int b, uint32_t tag, uint32_t *w)
{
    int ax = a % m->width, ay = a / m->width, bx = b % m->width, by = b / m->width;
    int dx = bx != ax, dy = by != ay;
    int xbus = bx > ax ? WCS_XRIGHT : WCS_XLEFT, ybus = by > ay ? WCS_YUP : WCS_YDOWN;
    int n = 0;
    if (dx) {
        w[n++] = rword(first_cid + a, 1 + xbus, 1, 0);
        if (dy) w[n++] = rword(first_cid + ay * m->width + bx, 1 + ybus, 1, 0);
    } else {
        w[n++] = rword(first_cid + a, 1 + ybus, 1, 0);
    }
    w[n++] = rword(first_cid + b, 0, 1, tag);
    return n;
}

int main(int argc, char **argv)
{
    ws_program_init("warp-conset");
    wcs_machine m = {0, 0, 3, 12, 2};
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

    int cells = m.width * m.height, rounds = 0;
    while ((1 << rounds) < cells) rounds++;
    /* Slots: a connection's place among its source's sends and its destination's
     * receives, in the order given: where its words come from and go to. */
    int *out_slot = ws_xcalloc((size_t)n + 1, sizeof *out_slot), *in_slot = ws_xcalloc((size_t)n + 1, sizeof *in_slot);
    int *nout = ws_xcalloc((size_t)cells, sizeof *nout), *nin = ws_xcalloc((size_t)cells, sizeof *nin);
    for (int k = 0; k < n; k++) {
        out_slot[k] = nout[c[k].src]++;
        in_slot[k] = nin[c[k].dst]++;
    }
    ws_buf b = {0};
    ws_buf_printf(&b, "; generated by warp-conset: %dx%d torus, %d connections in %d phases (%d bus and %d cell "
                  "channels)\n", m.width, m.height, n, p.nphases, m.bus_channels, m.cell_channels);
    ws_buf_printf(&b, "        .model  iwarp\n        .data\n        .globl  cs_plan\n");
    ws_buf_printf(&b, "cs_plan:\n        .word   %d, %d, %d, %ld\n", p.nphases, cells, rounds, first);
    for (int cell = 0; cell < cells; cell++) ws_buf_printf(&b, "        .word   cs_cell%d\n", cell);
    uint32_t w[SEND_WORDS];
    /* The connections each cell receives, by receive slot: their acknowledgements. */
    int **in_conn = ws_xcalloc((size_t)cells, sizeof *in_conn);
    for (int cell = 0; cell < cells; cell++) in_conn[cell] = ws_xcalloc((size_t)nin[cell] + 1, sizeof **in_conn);
    for (int k = 0; k < n; k++) in_conn[c[k].dst][in_slot[k]] = k;
    int failed = 0;
    for (int cell = 0; cell < cells && !failed; cell++) {
        ws_buf_printf(&b, "cs_cell%d:\n        .word   %d\n", cell, nin[cell]);
        for (int r = 0; r < rounds; r++) {
            int k = token_words(&m, (int)first, cell, (cell + (1 << r)) % cells, 0x8000 | r, w);
            ws_buf_printf(&b, "        .word   %d", k);
            for (int i = 0; i < 3; i++) ws_buf_printf(&b, ", %u", i < k ? w[i] : 0u);
            ws_buf_printf(&b, "\n");
        }
        for (int s = 0; s < nin[cell]; s++) {
            int k = in_conn[cell][s];
            int nw = token_words(&m, (int)first, cell, c[k].src, 0x4000 | out_slot[k], w);
            ws_buf_printf(&b, "        .word   %d", nw);
            for (int i = 0; i < 3; i++) ws_buf_printf(&b, ", %u", i < nw ? w[i] : 0u);
            ws_buf_printf(&b, "  ; acknowledges receive slot %d\n", s);
        }
        for (int ph = 0; ph < p.nphases && !failed; ph++) {
            const int *o = p.order + p.order_start[ph * cells + cell];
            int no = p.order_start[ph * cells + cell + 1] - p.order_start[ph * cells + cell], ns = 0, nr = 0;
            for (int i = 0; i < no; i++) {
                if (c[o[i]].src == cell) ns++;
                else nr++;
            }
            ws_buf_printf(&b, "        .word   %d, %d  ; phase %d\n", ns, nr, ph);
            for (int i = 0; i < no; i++) {
                int k = o[i];
                if (c[k].src != cell) continue;
                int nw = route_words(&p, k, (int)first, c[k].dst, (uint32_t)in_slot[k], w);
                if (nw < 0) {
                    fprintf(stderr, "warp-conset: the route of connection %d (%d to %d) turns more than %d times\n",
                            k, c[k].src, c[k].dst, MAX_ROUTE_WORDS - 2);
                    failed = 1;
                    break;
                }
                ws_buf_printf(&b, "        .word   %d, %d", out_slot[k], nw);
                for (int j = 0; j < nw; j++) ws_buf_printf(&b, ", %u", w[j]);
                ws_buf_printf(&b, "\n");
            }
        }
    }
    int rc = failed;
    if (!failed) {
        fprintf(stderr, "warp-conset: %d connections, %d phases (at least %d)\n", n, p.nphases,
                wcs_phase_lower_bound(&m, c, n));
        rc = write_text(out_path, b.data, b.len);
    }
    ws_buf_free(&b);
    wcs_plan_free(&p);
    free(c);
    free(out_slot);
    free(in_slot);
    for (int cell = 0; cell < cells; cell++) free(in_conn[cell]);
    free(in_conn);
    free(nout);
    free(nin);
    return rc ? 1 : 0;
}
