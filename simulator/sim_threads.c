/* The threads of a run: a pool that runs the parts of one phase of a clock and returns
 * when all have finished. A clock of a large array is a few microseconds of work, so
 * threads wait for the next phase spinning, and yield the core once the wait grows long.
 *
 * A part is not bound to a thread: every thread, the caller's included, claims the
 * parts of a phase one at a time until none is left. On a loaded machine a thread the
 * scheduler has not run for a while simply claims nothing, and the caller runs its
 * part instead of waiting a time slice for it every clock (with one barrier per clock
 * that wait made a threaded run ten times slower than one thread). Each thread tries
 * its own part first (thread i part i), then the others: on free cores a part then
 * stays on one core, with its cells' state in that core's cache. Claimed from one
 * shared ticket, the parts changed cores from clock to clock and every line of their
 * state crossed between the caches: each thread ran its part at half the speed of one
 * thread running the whole array. Which thread runs a part changes no result: a part
 * touches only its own cells and its own figures. */
#include "sim_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "warp_support.h"

/* Pauses before a waiting thread starts yielding its core. */
#define SPINS_BEFORE_YIELD 2000

/* Parts a pool runs at most. */
#define MAX_PARTS 65535

static double thread_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One thread's place: the figures it keeps about itself (wsim_thread_use). */
typedef struct member {
    _Alignas(WS_CACHE_LINE) uint64_t start, wait; /* ticks */
    double cpu_start;
    wsim_thread_use use;
    pthread_t thread;
    struct wsim_pool *pool;
} member;

/* The last phase in which a part was claimed: a part is claimed by moving it to the
 * phase under way, so a thread still on an earlier phase, which finished only once
 * every part had been claimed in it, can claim nothing of this one. */
typedef struct claim {
    _Alignas(WS_CACHE_LINE) uint64_t phase; /* atomic */
} claim;

struct wsim_pool {
    _Alignas(WS_CACHE_LINE) uint64_t posted; /* atomic: the phase under way */
    _Alignas(WS_CACHE_LINE) int finished;    /* parts of this phase done (atomic) */
    _Alignas(WS_CACHE_LINE) int stop;        /* atomic: workers leave */
    int n;
    uint64_t phase;                          /* the caller's: the phase under way */
    void (*work)(void *ctx, int part);
    void *ctx;
    member *members;                         /* 0 the caller's, 1..n-1 the threads' */
    claim *claims;                           /* one a part */
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

/* Runs the parts of phase ph that no thread has claimed, its own (`first`) first. */
static void claim_parts(wsim_pool *p, uint64_t ph, int first)
{
    for (int j = 0; j < p->n; j++) {
        int i = first + j < p->n ? first + j : first + j - p->n;
        uint64_t *c = &p->claims[i].phase;
        uint64_t cur = __atomic_load_n(c, __ATOMIC_ACQUIRE);
        if (cur >= ph || !__atomic_compare_exchange_n(c, &cur, ph, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            continue;
        p->work(p->ctx, i);
        __atomic_fetch_add(&p->finished, 1, __ATOMIC_RELEASE);
    }
}

static void member_start(member *m)
{
    m->start = wsim_ticks();
    m->cpu_start = thread_cpu_seconds();
}

static void member_end(member *m)
{
    m->use.cpu_seconds = thread_cpu_seconds() - m->cpu_start;
    m->use.ticks = wsim_ticks() - m->start;
    m->use.wait_ticks = m->wait;
}

static void *worker_main(void *arg)
{
    member *m = arg;
    wsim_pool *p = m->pool;
    uint64_t seen = 0;
    member_start(m);
    for (;;) {
        unsigned spins = 0;
        uint64_t ph, t0 = wsim_ticks();
        while ((ph = __atomic_load_n(&p->posted, __ATOMIC_ACQUIRE)) == seen) {
            if (__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
                m->wait += wsim_ticks() - t0;
                member_end(m);
                return NULL;
            }
            relax(&spins);
        }
        m->wait += wsim_ticks() - t0;
        seen = ph;
        claim_parts(p, ph, (int)(m - p->members));
    }
}

wsim_pool *wsim_pool_new(int n, void (*work)(void *ctx, int part), void *ctx)
{
    wsim_pool *p = ws_xcalloc_aligned(1, sizeof *p, WS_CACHE_LINE);
    if (n > MAX_PARTS) n = MAX_PARTS;
    p->n = n;
    p->work = work;
    p->ctx = ctx;
    p->members = ws_xcalloc_aligned((size_t)n, sizeof *p->members, WS_CACHE_LINE);
    p->claims = ws_xcalloc_aligned((size_t)n, sizeof *p->claims, WS_CACHE_LINE);
    member_start(&p->members[0]);
    for (int i = 1; i < n; i++) {
        p->members[i].pool = p;
        if (pthread_create(&p->members[i].thread, NULL, worker_main, &p->members[i]) != 0) {
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
    uint64_t ph = ++p->phase;
    /* No thread touches `finished` between the last phase's end and this post. */
    __atomic_store_n(&p->finished, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&p->posted, ph, __ATOMIC_RELEASE);
    claim_parts(p, ph, 0);
    if (__atomic_load_n(&p->finished, __ATOMIC_ACQUIRE) == p->n) return;
    unsigned spins = 0;
    uint64_t t0 = wsim_ticks();
    while (__atomic_load_n(&p->finished, __ATOMIC_ACQUIRE) < p->n) relax(&spins);
    p->members[0].wait += wsim_ticks() - t0;
}

int wsim_pool_free(wsim_pool *p, wsim_thread_use **use)
{
    if (!p) return 0;
    int n = p->n;
    __atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
    for (int i = 1; i < n; i++) pthread_join(p->members[i].thread, NULL);
    member_end(&p->members[0]);
    if (use) {
        *use = ws_xcalloc((size_t)n, sizeof **use);
        for (int i = 0; i < n; i++) (*use)[i] = p->members[i].use;
    }
    free(p->members);
    free(p->claims);
    free(p);
    return n;
}
