/* A test bench's host: words waiting in an end cell's queues before the run, and a
 * record of every word the end cells send the host, so that a test can run compiled
 * code on one cell of the real simulator and look at what it sent. */
#include "sim_internal.h"

#include <stdlib.h>
#include <string.h>

#include "warp_support.h"

int wsim_host_feed_ahead(wsim *s, int cell, int q, const uint32_t *words, unsigned n)
{
    if (s->cycle || s->status != WSIM_RUNNING || cell < 0 || cell >= s->ncells || q < 0 || q >= WT_NQUEUES)
        return -1;
    wsim_cell *c = &s->cells[cell];
    if (!(c->feed_live & (1u << q))) return -1;
    wca_queue *fq = c->feedq[q];
    if (fq->used + n > fq->cap) {
        if (fq->count || fq->used + n > WCA_QUEUE_MAX) return -1;
        wca_queue_fini(fq);
        wca_queue_init(fq, n);
    }
    for (unsigned i = 0; i < n; i++) {
        fq->used++;
        if (s->comm) wca_put(s->comm, fq, words[i], WT_MARK_DATA, 0);
        else wca_queue_put(fq, words[i], WT_MARK_DATA, 0);
    }
    return 0;
}

void wsim_keep_host_words(wsim *s)
{
    if (!s->kept) s->kept = ws_xcalloc((size_t)s->ncells * WT_NQUEUES, sizeof *s->kept);
}

unsigned wsim_host_words(const wsim *s, int cell, int q, uint32_t *words, unsigned max)
{
    if (cell < 0 || cell >= s->ncells || q < 0 || q >= WT_NQUEUES) return 0;
    size_t at = (size_t)cell * WT_NQUEUES + (size_t)q;
    /* The words the host paired with an address are kept; those still waiting for
     * one follow them in the sink. */
    unsigned n = 0;
    if (s->kept)
        for (size_t i = 0; i + 4 <= s->kept[at].len; i += 4, n++)
            if (n < max) memcpy(&words[n], s->kept[at].data + i, 4);
    const wsim_hfifo *f = &s->sink[at];
    for (size_t i = 0; f->e && i < f->count; i++, n++)
        if (n < max) words[n] = f->e[(f->head + i) & (f->cap - 1)].val;
    return n;
}
