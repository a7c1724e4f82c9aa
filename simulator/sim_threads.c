/* The threads of a run: a pool that runs one phase of a clock on every thread and
 * returns when all have finished it. A clock of a large array is a few microseconds
 * of work, so threads wait for the next phase spinning, and yield the core once the
 * wait grows long (the machine may have fewer free cores than threads). */
#include "sim_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "warp_support.h"

/* Pauses before a waiting thread starts yielding its core. */
#define SPINS_BEFORE_YIELD 2000

typedef struct worker {
    _Alignas(WS_CACHE_LINE) uint64_t done; /* the last phase it finished (atomic) */
    pthread_t thread;
    struct wsim_pool *pool;
    int part;
} worker;

struct wsim_pool {
    _Alignas(WS_CACHE_LINE) uint64_t phase; /* the phase under way (atomic); starts at 0 */
    int stop;                    /* atomic: workers leave */
    int n;
    void (*work)(void *ctx, int part);
    void *ctx;
    worker *workers;             /* parts 1..n-1; part 0 is the caller's */
};

static void relax(unsigned *spins)
{
    if (++*spins < SPINS_BEFORE_YIELD) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        return;
    }
    sched_yield();
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    wsim_pool *p = w->pool;
    uint64_t seen = 0;
    for (;;) {
        unsigned spins = 0;
        uint64_t ph;
        while ((ph = __atomic_load_n(&p->phase, __ATOMIC_ACQUIRE)) == seen) {
            if (__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) return NULL;
            relax(&spins);
        }
        seen = ph;
        p->work(p->ctx, w->part);
        __atomic_store_n(&w->done, ph, __ATOMIC_RELEASE);
    }
}

wsim_pool *wsim_pool_new(int n, void (*work)(void *ctx, int part), void *ctx)
{
    wsim_pool *p = ws_xcalloc_aligned(1, sizeof *p, WS_CACHE_LINE);
    p->n = n;
    p->work = work;
    p->ctx = ctx;
    p->workers = ws_xcalloc_aligned((size_t)n, sizeof *p->workers, WS_CACHE_LINE);
    for (int i = 1; i < n; i++) {
        worker *w = &p->workers[i];
        w->pool = p;
        w->part = i;
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
            /* No thread: the parts it would have run run on the caller's. */
            p->n = i;
            break;
        }
    }
    return p;
}

int wsim_pool_size(const wsim_pool *p) { return p->n; }

void wsim_pool_run(wsim_pool *p)
{
    uint64_t ph = __atomic_load_n(&p->phase, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(&p->phase, ph, __ATOMIC_RELEASE);
    p->work(p->ctx, 0);
    for (int i = 1; i < p->n; i++) {
        unsigned spins = 0;
        while (__atomic_load_n(&p->workers[i].done, __ATOMIC_ACQUIRE) != ph) relax(&spins);
    }
}

void wsim_pool_free(wsim_pool *p)
{
    if (!p) return;
    __atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
    for (int i = 1; i < p->n; i++) pthread_join(p->workers[i].thread, NULL);
    free(p->workers);
    free(p);
}
