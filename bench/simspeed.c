/* Simulator speed: loads an image once and runs it REPEAT times in-process, so the
 * figure is the simulator's own (no process start-up, no file parsing), in
 * simulated cell-clocks per second of CPU time, and per second of wall time (what
 * --threads shortens; CPU time counts every thread's).
 *   bench-simspeed IMAGE [--in NAME=FILE]... [--repeat N] [--topology T] [--channels R,O] [--threads N]
 * Prints: cells C cycles Y runs N cpu_seconds S mcell_cycles_per_s M wall_seconds W mcell_cycles_per_wall_s V
 * and, for a threaded run, each thread's CPU seconds and the share of its time it
 * waited at the clocks' barriers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "warp_runtime.h"
#include "warp_sim.h"
#include "warp_support.h"

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    ws_set_progname("bench-simspeed");
    if (argc < 2) {
        fprintf(stderr, "usage: bench-simspeed IMAGE [--in NAME=FILE]... [--repeat N]\n");
        return 1;
    }
    const char *ins[64];
    int nins = 0, repeat = 10, threads = 1;
    char err[512];
    wca_config comm;
    wca_config_default(&comm);
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--in") == 0 && i + 1 < argc && nins < 64) ins[nins++] = argv[++i];
        else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) repeat = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--topology") == 0 && i + 1 < argc) {
            if (wca_parse_topology(argv[++i], &comm, err, sizeof err) != 0) {
                fprintf(stderr, "bench-simspeed: %s\n", err);
                return 1;
            }
        } else if (strcmp(argv[i], "--channels") == 0 && i + 1 < argc) {
            if (wca_parse_channels(argv[++i], &comm, err, sizeof err) != 0) {
                fprintf(stderr, "bench-simspeed: %s\n", err);
                return 1;
            }
        } else {
            fprintf(stderr, "bench-simspeed: unexpected argument '%s'\n", argv[i]);
            return 1;
        }
    }
    wrt_image *img = wrt_image_load(argv[1], err, sizeof err);
    if (!img) {
        fprintf(stderr, "bench-simspeed: %s: %s\n", argv[1], err);
        return 1;
    }
    wsim_program prog;
    wrt_sim_program(img, &prog);
    prog.comm = &comm;
    double busy = 0, wall = 0;
    uint64_t cycles = 0;
    /* Each thread's CPU seconds and barrier wait over all runs (threaded runs only). */
    enum { MAX_THREADS_SHOWN = 16 };
    double thread_cpu[MAX_THREADS_SHOWN] = {0};
    uint64_t thread_ticks[MAX_THREADS_SHOWN] = {0}, thread_wait[MAX_THREADS_SHOWN] = {0};
    int nthreads = 0;
    int cells = 0;
    for (int r = 0; r < repeat; r++) {
        wsim *sim = wsim_new(&prog, err, sizeof err);
        if (!sim) {
            fprintf(stderr, "bench-simspeed: %s\n", err);
            return 1;
        }
        for (int i = 0; i < nins; i++) {
            char name[128];
            const char *eq = strchr(ins[i], '=');
            if (!eq || (size_t)(eq - ins[i]) >= sizeof name) return 1;
            memcpy(name, ins[i], (size_t)(eq - ins[i]));
            name[eq - ins[i]] = 0;
            if (wrt_host_read(img, sim, name, eq + 1, err, sizeof err) != 0) {
                fprintf(stderr, "bench-simspeed: %s\n", err);
                return 1;
            }
        }
        wsim_set_threads(sim, threads);
        double t0 = cpu_seconds(), w0 = wall_seconds();
        wsim_status st = wsim_run(sim, UINT64_MAX);
        busy += cpu_seconds() - t0;
        wall += wall_seconds() - w0;
        if (st != WSIM_DONE) {
            fprintf(stderr, "bench-simspeed: the run did not finish: %s\n", wsim_message(sim));
            return 1;
        }
        cycles = wsim_cycles(sim);
        cells = wsim_ncells(sim);
        const wsim_thread_use *use;
        nthreads = wsim_thread_figures(sim, &use);
        if (nthreads > MAX_THREADS_SHOWN) nthreads = MAX_THREADS_SHOWN;
        for (int i = 0; i < nthreads; i++) {
            thread_cpu[i] += use[i].cpu_seconds;
            thread_ticks[i] += use[i].ticks;
            thread_wait[i] += use[i].wait_ticks;
        }
        wsim_free(sim);
    }
    double cell_cycles = (double)cycles * cells * repeat;
    printf("cells %d cycles %llu runs %d cpu_seconds %.4f mcell_cycles_per_s %.2f wall_seconds %.4f "
           "mcell_cycles_per_wall_s %.2f\n", cells, (unsigned long long)cycles, repeat, busy,
           busy > 0 ? cell_cycles / busy / 1e6 : 0.0, wall, wall > 0 ? cell_cycles / wall / 1e6 : 0.0);
    /* Threaded: per thread, "threadI_cpu_seconds S threadI_wait_share F" (0 the caller). */
    for (int i = 0; i < nthreads; i++)
        printf("thread%d_cpu_seconds %.4f thread%d_wait_share %.3f\n", i, thread_cpu[i], i,
               thread_ticks[i] ? (double)thread_wait[i] / (double)thread_ticks[i] : 0.0);
    wrt_image_free(img);
    return 0;
}
