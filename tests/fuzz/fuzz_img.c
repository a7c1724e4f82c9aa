/* Fuzz target: the runtime's image loader, then a bounded run of the simulator
 * on what it accepted, as warp-sim runs an image it was handed: nothing may crash,
 * hang or read outside the simulator's memories; a refused image gets a reason;
 * a run ends done, faulted (with a message naming the cell and pc), deadlocked
 * (with the wait-for report) or at the cycle limit.
 *
 * Every `in` array is filled with numbers of its own (as --in would), every
 * `out` array written out afterwards, the statistics printed.
 *
 * Seeds: the examples linked for both models at -O0 and -O2, and the lit
 * suite's simulator programs (make_seeds.sh). Dictionary (fuzz-dict: elf.dict).
 * Smoke test: fuzz-cases: 10000. */
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "warp_runtime.h"
#include "warp_sim.h"
#include "warp_support.h"

/* Clocks times cells per run: enough for every example, little enough that a
 * 1,024-cell mutant stays fast. */
#define CELL_CLOCK_BUDGET 2000000u

static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!sink) sink = fopen("/dev/null", "w");
    char err[512] = "";
    wrt_image *img = wrt_image_load_memory(data, size, err, sizeof err);
    if (!img) {
        fuzz_require(err[0] != 0, "the loader refused the image without a reason");
        return 0;
    }
    wsim_program prog;
    wrt_sim_program(img, &prog);
    wsim *sim = wsim_new(&prog, err, sizeof err);
    if (!sim) {
        fuzz_require(err[0] != 0, "wsim_new refused the program without a reason");
        wrt_image_free(img);
        return 0;
    }
    uint32_t host_size;
    uint8_t *host = wsim_host_memory(sim, &host_size);
    for (size_t h = 0; h < img->nhost; h++) {
        const wrt_host_array *a = &img->host[h];
        if (a->is_out) continue;
        fuzz_require((uint64_t)a->addr + (uint64_t)a->nelems * 4 <= host_size, "host array '%s' is outside host memory",
                     a->name);
        for (uint32_t i = 0; i < a->nelems; i++) {
            uint32_t v = a->is_float ? 0x3f800000u + i * 0x1000u : i * 7u;
            memcpy(host + a->addr + (size_t)i * 4, &v, 4);
        }
    }
    uint64_t cells = (uint64_t)(img->last_cell - img->first_cell) + 1;
    uint64_t max_cycles = CELL_CLOCK_BUDGET / cells;
    wsim_status st = wsim_run(sim, max_cycles < 1000 ? 1000 : max_cycles);
    switch (st) {
    case WSIM_DONE:
        for (size_t h = 0; h < img->nhost; h++)
            if (img->host[h].is_out) wrt_host_write(img, sim, img->host[h].name, sink);
        break;
    case WSIM_FAULT:
        fuzz_require(strstr(wsim_message(sim), "cell") != NULL, "a fault that names no cell: '%s'", wsim_message(sim));
        break;
    case WSIM_DEADLOCK:
        fuzz_require(wsim_message(sim)[0] != 0, "a deadlock without a report");
        break;
    case WSIM_CYCLE_LIMIT:
        break;
    case WSIM_FLOW_BUG:
        /* a mutated image may claim compile-time flow control it does not have */
        fuzz_require(strstr(wsim_message(sim), "cell") != NULL, "a flow-control stop that names no cell: '%s'",
                     wsim_message(sim));
        break;
    default:
        fuzz_fail("st", "wsim_run returned status %d", (int)st);
    }
    wsim_print_stats(sim, sink);
    wsim_free(sim);
    wrt_image_free(img);
    return 0;
}
