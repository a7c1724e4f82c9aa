/* warp-sim: runs a cell image on the simulated array, as a board would:
 *
 *   image --wrt_image_load--> wrt_sim_program --wsim_new--> wrt_host_read (each `in`)
 *         --wsim_run--> wrt_host_write (each `out`) [--stats: wsim_print_stats]
 *
 * Exit status: 0 done, 1 usage or input error, 2 run-time fault, 3 deadlock,
 * 4 cycle limit, 5 a compiler bug: a cell of a flow-controlled Warp image waited
 * for a queue (the compiler's skew was wrong), in the image exactly as the linker
 * timed it (an image changed since runs with run-time waits, and says so). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warp_runtime.h"
#include "warp_sim.h"
#include "warp_support.h"

/* The default guard against a program that never stops: 10^8 clocks, and no more
 * than 10^9 cell-clocks (a few seconds of simulation) on a large array, so that
 * a 1,024-cell image that loops forever does not run for ten minutes. */
#define DEFAULT_MAX_CYCLES 100000000ull
#define DEFAULT_MAX_CELL_CLOCKS 1000000000ull

typedef struct binding {
    const char *name, *path;
} binding;

typedef struct options {
    const char *image;
    binding *ins, *outs;
    int nins, nouts;
    int stats;
    uint64_t max_cycles;        /* 0: the default guard */
    const char *deadlock_dot;   /* --deadlock-dot FILE */
    wca_config comm;            /* --topology, --channels */
    int topology_given;
    int channels_given;
    wsim_pictures pictures;     /* --trace, --vcd, --heatmap, --heatmap-by, --trace-window */
    int threads;                /* --threads, -j */
} options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: warp-sim IMAGE [options]\n"
            "Runs a cell image on the simulated Warp or iWarp array.\n"
            "\n"
            "  --in NAME=FILE     fill host array NAME from FILE (every `in` array needs one)\n"
            "  --out NAME=FILE    write host array NAME to FILE (default: standard output)\n"
            "  --stats            print the cycle count and per-cell figures on standard error\n"
            "  --max-cycles N     stop after N cycles (exit status 4); default %llu, or\n"
            "                     %llu divided by the number of cells if that is less\n"
            "  --topology T       iWarp: 'linear' (default) or 'torus:WxH' (W*H cells); a 2-D\n"
            "                     cellprogram's image gives its own torus\n"
            "  --channels R,O     iWarp: reservation and open channels on each bus (default 2,1)\n"
            "  --deadlock-dot F   on a deadlock, write the wait-for graph to F (Graphviz)\n"
            "  --trace F          write a Chrome/Perfetto trace-event JSON of the run to F\n"
            "  --vcd F            write every queue's fill and channel's busy state to F (VCD)\n"
            "  --heatmap F        draw the array to F (SVG): cells by unit use, links by words\n"
            "  --heatmap-by W     colour cells by 'units' (default) or 'stalls'\n"
            "  --trace-window A:B only clocks A to B-1 in --trace and --vcd (A: or :B for open ends)\n"
            "  -j, --threads N    simulate on N threads (same results; the pictures take one)\n"
            "  --help, --version\n",
            DEFAULT_MAX_CYCLES, DEFAULT_MAX_CELL_CLOCKS);
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "warp-sim: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nusage: warp-sim IMAGE [--in NAME=FILE]... [--out NAME=FILE]... [--stats] "
                    "[--max-cycles N] [--topology T] [--channels R,O] [--deadlock-dot FILE]\n");
    return 1;
}

/* "--opt VALUE" or "--opt=VALUE": the value, or NULL if this argument is not opt. */
static const char *option_value(int argc, char **argv, int *i, const char *opt, int *missing)
{
    size_t n = strlen(opt);
    if (strncmp(argv[*i], opt, n) != 0) return NULL;
    if (argv[*i][n] == '=') return argv[*i] + n + 1;
    if (argv[*i][n] != 0) return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

static int add_binding(binding **list, int *n, const char *arg, const char *opt)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1]) return usage_error("expected NAME=FILE after '%s'", opt);
    binding *b = &(*list)[(*n)++];
    b->name = ws_xstrndup(arg, (size_t)(eq - arg));
    b->path = eq + 1;
    for (int i = 0; i < *n - 1; i++)
        if (strcmp((*list)[i].name, b->name) == 0) return usage_error("host array '%s' is bound twice", b->name);
    return 0;
}

/* A clock number for --trace-window: 0 with *n set, or -1. */
static int parse_clock(const char *text, size_t len, uint64_t *n)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf) return -1;
    memcpy(buf, text, len);
    buf[len] = 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (*end || errno || buf[0] == '-' || buf[0] == '+' || buf[0] == ' ') return -1;
    *n = v;
    return 0;
}

/* "FROM:TO", "FROM:" or ":TO". */
static int parse_window(const char *v, wsim_pictures *p)
{
    const char *colon = strchr(v, ':');
    if (!colon) return -1;
    p->from = 0;
    p->to = UINT64_MAX;
    if (colon > v && parse_clock(v, (size_t)(colon - v), &p->from) != 0) return -1;
    if (colon[1] && parse_clock(colon + 1, strlen(colon + 1), &p->to) != 0) return -1;
    return p->from < p->to ? 0 : -1;
}

static int parse_args(int argc, char **argv, options *o)
{
    o->ins = ws_xcalloc((size_t)argc, sizeof *o->ins);
    o->outs = ws_xcalloc((size_t)argc, sizeof *o->outs);
    wca_config_default(&o->comm);
    o->pictures.to = UINT64_MAX;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int missing = 0;
        if (strcmp(a, "--help") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(a, "--version") == 0) {
            printf("warp-sim 0.1.0 (cycle-accurate Warp and iWarp array simulator)\n");
            exit(0);
        } else if (strcmp(a, "--stats") == 0) {
            o->stats = 1;
        } else if ((v = option_value(argc, argv, &i, "--in", &missing)) != NULL) {
            if (add_binding(&o->ins, &o->nins, v, "--in")) return 1;
        } else if ((v = option_value(argc, argv, &i, "--out", &missing)) != NULL) {
            if (add_binding(&o->outs, &o->nouts, v, "--out")) return 1;
        } else if ((v = option_value(argc, argv, &i, "--max-cycles", &missing)) != NULL) {
            char *end;
            errno = 0;
            unsigned long long n = strtoull(v, &end, 10);
            if (end == v || *end || errno || v[0] == '-' || n == 0)
                return usage_error("--max-cycles wants a positive number, not '%s'", v);
            o->max_cycles = n;
        } else if ((v = option_value(argc, argv, &i, "--topology", &missing)) != NULL) {
            char err[200];
            if (wca_parse_topology(v, &o->comm, err, sizeof err) != 0) return usage_error("%s", err);
            o->topology_given = 1;
        } else if ((v = option_value(argc, argv, &i, "--channels", &missing)) != NULL) {
            char err[200];
            if (wca_parse_channels(v, &o->comm, err, sizeof err) != 0) return usage_error("%s", err);
            o->channels_given = 1;
        } else if ((v = option_value(argc, argv, &i, "--deadlock-dot", &missing)) != NULL) {
            o->deadlock_dot = v;
        } else if ((v = option_value(argc, argv, &i, "--trace-window", &missing)) != NULL) {
            if (parse_window(v, &o->pictures) != 0)
                return usage_error("--trace-window wants FROM:TO, clocks with FROM < TO, not '%s'", v);
        } else if ((v = option_value(argc, argv, &i, "--trace", &missing)) != NULL) {
            o->pictures.trace = v;
        } else if ((v = option_value(argc, argv, &i, "--vcd", &missing)) != NULL) {
            o->pictures.vcd = v;
        } else if ((v = option_value(argc, argv, &i, "--heatmap-by", &missing)) != NULL) {
            if (strcmp(v, "units") != 0 && strcmp(v, "stalls") != 0)
                return usage_error("--heatmap-by wants 'units' or 'stalls', not '%s'", v);
            o->pictures.heat_by_stalls = strcmp(v, "stalls") == 0;
        } else if ((v = option_value(argc, argv, &i, "--heatmap", &missing)) != NULL) {
            o->pictures.heatmap = v;
        } else if ((v = option_value(argc, argv, &i, "--threads", &missing)) != NULL ||
                   (v = option_value(argc, argv, &i, "-j", &missing)) != NULL ||
                   (strncmp(a, "-j", 2) == 0 && a[2] >= '0' && a[2] <= '9' && (v = a + 2))) {
            char *end;
            errno = 0;
            long n = strtol(v, &end, 10);
            if (end == v || *end || errno || n < 1 || n > 256 || v[0] == '+' || v[0] == ' ')
                return usage_error("--threads wants a number of threads from 1 to 256, not '%s'", v);
            o->threads = (int)n;
        } else if (missing) {
            return usage_error("missing value after '%s'", a);
        } else if (a[0] == '-' && a[1] != 0) {
            return usage_error("unknown option '%s'", a);
        } else if (o->image) {
            return usage_error("more than one image ('%s')", a);
        } else {
            o->image = a;
        }
    }
    if (!o->image) return usage_error("%s", "no image given");
    return 0;
}

/* Every binding names an array of the right direction; every `in` array has one. */
static int check_bindings(const options *o, const wrt_image *img)
{
    for (int i = 0; i < o->nins + o->nouts; i++) {
        int is_in = i < o->nins;
        const binding *b = is_in ? &o->ins[i] : &o->outs[i - o->nins];
        const wrt_host_array *a = wrt_host_find(img, b->name);
        if (!a) {
            fprintf(stderr, "warp-sim: %s: no host array '%s'\n", o->image, b->name);
            return -1;
        }
        if (a->is_out == is_in) {
            fprintf(stderr, "warp-sim: %s: host array '%s' is declared %s, not %s\n", o->image, b->name,
                    a->is_out ? "out" : "in", is_in ? "in" : "out");
            return -1;
        }
    }
    for (size_t h = 0; h < img->nhost; h++) {
        if (img->host[h].is_out) continue;
        int found = 0;
        for (int i = 0; i < o->nins && !found; i++) found = strcmp(o->ins[i].name, img->host[h].name) == 0;
        if (!found) {
            fprintf(stderr, "warp-sim: %s: no --in given for host array '%s'\n", o->image, img->host[h].name);
            return -1;
        }
    }
    return 0;
}

/* The run's results: each --out file, then every other `out` array on stdout. */
static int write_outputs(const options *o, const wrt_image *img, wsim *sim, ws_output *files)
{
    int failed = 0;
    for (int i = 0; i < o->nouts; i++) {
        if (wrt_host_write(img, sim, o->outs[i].name, files[i].f) != 0 || ws_output_commit(&files[i]) != 0) {
            fprintf(stderr, "warp-sim: %s: %s\n", o->outs[i].path, strerror(errno));
            ws_output_abort(&files[i]);
            failed = 1;
        }
    }
    int unbound = 0;
    for (size_t h = 0; h < img->nhost; h++) {
        if (!img->host[h].is_out) continue;
        int bound = 0;
        for (int i = 0; i < o->nouts; i++) bound |= strcmp(o->outs[i].name, img->host[h].name) == 0;
        unbound += !bound;
    }
    for (size_t h = 0; h < img->nhost; h++) {
        const wrt_host_array *a = &img->host[h];
        int bound = 0;
        for (int i = 0; i < o->nouts; i++) bound |= strcmp(o->outs[i].name, a->name) == 0;
        if (!a->is_out || bound) continue;
        if (unbound > 1) printf("%s:\n", a->name);
        if (wrt_host_write(img, sim, a->name, stdout) != 0) failed = 1;
    }
    if (fflush(stdout) != 0) {
        fprintf(stderr, "warp-sim: standard output: %s\n", strerror(errno));
        clearerr(stdout); /* reported: not again at exit */
        failed = 1;
    }
    return failed;
}

/* No output file (--out, --deadlock-dot, the pictures) names an input (the image,
 * an --in file) or another output. */
static int refuse_overwriting_inputs(const options *o)
{
    const char **inputs = ws_xcalloc((size_t)o->nins + 1, sizeof *inputs);
    inputs[0] = o->image;
    for (int i = 0; i < o->nins; i++) inputs[i + 1] = o->ins[i].path;
    const char **outs = ws_xcalloc((size_t)o->nouts + 4, sizeof *outs);
    int n = 0;
    for (int i = 0; i < o->nouts; i++) outs[n++] = o->outs[i].path;
    const char *others[] = {o->deadlock_dot, o->pictures.trace, o->pictures.vcd, o->pictures.heatmap};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (others[i]) outs[n++] = others[i];
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        rc = ws_check_output(outs[i], inputs, (size_t)o->nins + 1);
        for (int j = i + 1; j < n && rc == 0; j++) {
            if (ws_same_file(outs[i], outs[j])) {
                fprintf(stderr, "warp-sim: '%s' and '%s' are the same output file\n", outs[i], outs[j]);
                rc = -1;
            }
        }
    }
    free(outs);
    free(inputs);
    return rc;
}

static int run(const options *o)
{
    char err[512];
    if (refuse_overwriting_inputs(o) != 0) return 1;
    wrt_image *img = wrt_image_load(o->image, err, sizeof err);
    if (!img) {
        fprintf(stderr, "warp-sim: %s: %s\n", o->image, err);
        return 1;
    }
    if (img->timing_changed)
        fprintf(stderr, "warp-sim: %s: warning: the image is not the one the linker timed (it was changed "
                        "since): its cells wait for their queues at run time\n", o->image);
    wsim_program prog;
    wrt_sim_program(img, &prog);
    if (o->channels_given && !img->model->logical_channels) {
        fprintf(stderr, "warp-sim: %s: --channels needs an iWarp image (-mcpu=iwarp)\n", o->image);
        wrt_image_free(img);
        return 1;
    }
    /* A 2-D cellprogram's image names its torus, whose edges lead to the host. */
    wca_config comm = o->comm;
    if (img->grid_width) {
        if (o->topology_given && (comm.topology != WCA_TORUS || comm.width != img->grid_width ||
                                  comm.height != img->grid_height)) {
            fprintf(stderr, "warp-sim: %s: the program is a 2-D cellprogram of %dx%d cells: it runs on the "
                            "torus:%dx%d topology only\n", o->image, img->grid_width, img->grid_height,
                    img->grid_width, img->grid_height);
            wrt_image_free(img);
            return 1;
        }
        comm.topology = WCA_TORUS;
        comm.width = img->grid_width;
        comm.height = img->grid_height;
        comm.host_edges = 1;
    }
    prog.comm = &comm;
    wsim *sim = wsim_new(&prog, err, sizeof err);
    if (!sim) {
        fprintf(stderr, "warp-sim: %s: %s\n", o->image, err);
        wrt_image_free(img);
        return 1;
    }
    int rc = 0;
    ws_output *files = ws_xcalloc((size_t)o->nouts + 1, sizeof *files);
    int opened = 0;
    if (check_bindings(o, img) != 0) rc = 1;
    for (int i = 0; rc == 0 && i < o->nins; i++) {
        if (wrt_host_read(img, sim, o->ins[i].name, o->ins[i].path, err, sizeof err) != 0) {
            fprintf(stderr, "warp-sim: %s\n", err);
            rc = 1;
        }
    }
    /* Output files are opened before the run, so a bad path fails at once. */
    for (; rc == 0 && opened < o->nouts; opened++) {
        if (!ws_output_open(&files[opened], o->outs[opened].path, 0)) {
            fprintf(stderr, "warp-sim: %s: %s\n", o->outs[opened].path, strerror(errno));
            rc = 1;
            break;
        }
    }

    if (rc == 0) {
        uint64_t cells = (uint64_t)(img->last_cell - img->first_cell) + 1;
        uint64_t limit = o->max_cycles;
        if (!limit) limit = DEFAULT_MAX_CELL_CLOCKS / cells < DEFAULT_MAX_CYCLES ? DEFAULT_MAX_CELL_CLOCKS / cells
                                                                                 : DEFAULT_MAX_CYCLES;
        const wsim_pictures *pic = &o->pictures;
        wsim_tracer *tracer = NULL;
        if (pic->trace || pic->vcd || pic->heatmap) {
            tracer = wsim_tracer_new(sim, pic, err, sizeof err);
            if (!tracer) {
                fprintf(stderr, "warp-sim: %s\n", err);
                for (int i = 0; i < opened; i++) ws_output_abort(&files[i]);
                free(files);
                wsim_free(sim);
                wrt_image_free(img);
                return 1;
            }
        }
        if (o->threads) wsim_set_threads(sim, o->threads);
        wsim_status st = tracer ? wsim_run_traced(sim, tracer, limit) : wsim_run(sim, limit);
        /* The pictures are written whatever the run's end: a deadlock's is the one to see. */
        int pictures_failed = tracer && wsim_tracer_finish(tracer, err, sizeof err) != 0;
        if (pictures_failed) fprintf(stderr, "warp-sim: %s\n", err);
        unsigned long long cycles = (unsigned long long)wsim_cycles(sim);
        switch (st) {
        case WSIM_DONE:
            rc = write_outputs(o, img, sim, files);
            opened = 0;
            break;
        case WSIM_FAULT:
            fprintf(stderr, "warp-sim: fault: %s\n", wsim_message(sim));
            rc = 2;
            break;
        case WSIM_DEADLOCK: {
            fprintf(stderr, "warp-sim: deadlock at cycle %llu:\n", cycles);
            const char *m = wsim_message(sim);
            while (*m) {
                size_t n = strcspn(m, "\n");
                fprintf(stderr, "  %.*s\n", (int)n, m);
                m += n + (m[n] == '\n');
            }
            rc = 3;
            if (o->deadlock_dot) {
                ws_output dot = {0};
                if (!ws_output_open(&dot, o->deadlock_dot, 0) || wsim_deadlock_dot(sim, dot.f) != 0 ||
                    ws_output_commit(&dot) != 0) {
                    fprintf(stderr, "warp-sim: %s: %s\n", o->deadlock_dot, strerror(errno));
                    ws_output_abort(&dot);
                }
            }
            break;
        }
        case WSIM_FLOW_BUG:
            fprintf(stderr, "warp-sim: %s\n", wsim_message(sim));
            rc = 5;
            break;
        default:
            fprintf(stderr, "warp-sim: %s: stopped at the cycle limit (%llu cycles%s)\n", o->image, cycles,
                    o->max_cycles ? "" : ", the default; --max-cycles sets another");
            rc = 4;
            break;
        }
        if (o->stats) wsim_print_stats(sim, stderr);
        if (pictures_failed && rc == 0) rc = 1;
    }
    for (int i = 0; i < opened; i++) ws_output_abort(&files[i]);
    free(files);
    wsim_free(sim);
    wrt_image_free(img);
    return rc;
}

int main(int argc, char **argv)
{
    ws_program_init("warp-sim");
    options o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc == 0) rc = run(&o);
    for (int i = 0; i < o.nins; i++) free((char *)o.ins[i].name);
    for (int i = 0; i < o.nouts; i++) free((char *)o.outs[i].name);
    free(o.ins);
    free(o.outs);
    return rc;
}
