/* Shared by the communication-agent tests (test_comm_*.c): assembles a test program
 * with the real assembler, links it with the real linker, loads it with the runtime
 * and makes a simulator for it on a given topology, as warp-sim would. */
#ifndef COMM_HARNESS_H
#define COMM_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warp_assembler.h"
#include "warp_comm.h"
#include "warp_linker.h"
#include "warp_runtime.h"
#include "warp_sim.h"
#include "warp_support.h"

typedef struct cprog {
    char dir[64];
    wrt_image *img;
    wsim *sim;
    const wca *agents;
    wca_config cfg;
} cprog;

/* Builds src (named "t.s") for iWarp on "linear" or "torus:WxH" with channels "R,O"
 * (NULL: the defaults); the entry point is `main`. */
static inline void cprog_build(cprog *p, const char *src, const char *topology, const char *channels)
{
    memset(p, 0, sizeof *p);
    snprintf(p->dir, sizeof p->dir, "/tmp/warp-comm-XXXXXX");
    if (!mkdtemp(p->dir)) fail_msg("mkdtemp failed");
    char obj[96], img[96], err[512];
    snprintf(obj, sizeof obj, "%s/t.o", p->dir);
    snprintf(img, sizeof img, "%s/t.img", p->dir);
    ws_diag d;
    ws_diag_init(&d, "t.s", src, strlen(src));
    was_options opts = {.model = wt_model_get(WT_MODEL_IWARP)};
    if (was_assemble("t.s", src, strlen(src), &opts, obj, &d) != 0) fail_msg("the test program does not assemble");
    const char *inputs[] = {obj};
    wld_options lopts = {.entry = "main"};
    if (wld_link(inputs, 1, img, &lopts) != 0) fail_msg("the test program does not link");
    p->img = wrt_image_load(img, err, sizeof err);
    if (!p->img) fail_msg("load: %s", err);
    unlink(obj);
    unlink(img);
    rmdir(p->dir);
    wca_config_default(&p->cfg);
    if (topology && wca_parse_topology(topology, &p->cfg, err, sizeof err) != 0) fail_msg("%s", err);
    if (channels && wca_parse_channels(channels, &p->cfg, err, sizeof err) != 0) fail_msg("%s", err);
    wsim_program prog;
    wrt_sim_program(p->img, &prog);
    prog.comm = &p->cfg;
    p->sim = wsim_new(&prog, err, sizeof err);
    if (!p->sim) fail_msg("wsim_new: %s", err);
    p->agents = wsim_comm(p->sim);
}

static inline void cprog_free(cprog *p)
{
    wsim_free(p->sim);
    wrt_image_free(p->img);
}

/* Runs one clock; it must not stop the run. */
static inline void cprog_step(cprog *p)
{
    wsim_status st = wsim_step(p->sim);
    if (st != WSIM_RUNNING) fail_msg("the run stopped at clock %llu: %s", (unsigned long long)wsim_cycles(p->sim),
                                     wsim_message(p->sim));
}

/* Runs until done; fails the test with the simulator's message otherwise. */
static inline void cprog_finish(cprog *p, uint64_t limit)
{
    wsim_status st = wsim_run(p->sim, limit);
    if (st != WSIM_DONE) fail_msg("status %d at clock %llu: %s", (int)st, (unsigned long long)wsim_cycles(p->sim),
                                  wsim_message(p->sim));
}

static inline uint32_t cprog_reg(const cprog *p, int cell, unsigned r) { return wsim_cell_reg(p->sim, cell, r); }

/* The data-memory word of a cell at a byte address. */
static inline uint32_t cprog_mem(const cprog *p, int cell, uint32_t addr)
{
    uint32_t size;
    const uint8_t *m = wsim_cell_data(p->sim, cell, &size);
    return (uint32_t)m[addr] | (uint32_t)m[addr + 1] << 8 | (uint32_t)m[addr + 2] << 16 | (uint32_t)m[addr + 3] << 24;
}

#endif
