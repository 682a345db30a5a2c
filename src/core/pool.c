/*
 * pool.c: lp_pool, the project's worker pool (contract in core.h).
 *
 * Invariants (under mu): next <= nitems; live counts workers that have not exited;
 * queued/queued_bytes describe the list head..tail; once stop is set no result is queued
 * again. The popping thread waits on can_pop, workers on can_push.
 */
#include "core/core.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

typedef struct node {
    struct node *next;
    void *result;
    uint64_t bytes;
} node;

struct lp_pool {
    const lp_pool_ops *ops;
    void *ctx;
    size_t nitems, max_items;
    uint64_t max_bytes;
    pthread_mutex_t mu;
    pthread_cond_t can_push, can_pop;
    size_t next;
    node *head, *tail;
    size_t queued;
    uint64_t queued_bytes;
    unsigned live, started;
    bool stop;
    pthread_t *threads;
};

static void *pool_worker(void *arg)
{
    lp_pool *p = arg;
    void *state = p->ops->thread_start ? p->ops->thread_start(p->ctx) : NULL;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        if (p->stop || p->next >= p->nitems) {
            pthread_mutex_unlock(&p->mu);
            break;
        }
        size_t idx = p->next++;
        pthread_mutex_unlock(&p->mu);

        node *n = lp_xmalloc(sizeof *n);
        n->next = NULL;
        n->bytes = 0;
        n->result = p->ops->work(p->ctx, state, idx, &n->bytes);

        pthread_mutex_lock(&p->mu);
        while (!p->stop && (p->queued >= p->max_items ||
                            (p->queued && p->queued_bytes + n->bytes > p->max_bytes)))
            pthread_cond_wait(&p->can_push, &p->mu);
        if (p->stop) {
            pthread_mutex_unlock(&p->mu);
            p->ops->discard(p->ctx, n->result);
            free(n);
            continue;
        }
        if (p->tail)
            p->tail->next = n;
        else
            p->head = n;
        p->tail = n;
        p->queued++;
        p->queued_bytes += n->bytes;
        pthread_cond_signal(&p->can_pop);
        pthread_mutex_unlock(&p->mu);
    }
    if (p->ops->thread_end)
        p->ops->thread_end(p->ctx, state);
    pthread_mutex_lock(&p->mu);
    p->live--;
    pthread_cond_broadcast(&p->can_pop);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

unsigned lp_pool_start(lp_pool **out, const lp_pool_ops *ops, void *ctx, size_t nitems,
                       unsigned threads, size_t max_items, uint64_t max_bytes, int *thread_err)
{
    lp_pool *p = lp_xcalloc(1, sizeof *p);
    p->ops = ops;
    p->ctx = ctx;
    p->nitems = nitems;
    p->max_items = max_items ? max_items : 1;
    p->max_bytes = max_bytes;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->can_push, NULL);
    pthread_cond_init(&p->can_pop, NULL);
    p->threads = lp_xcalloc(threads ? threads : 1, sizeof *p->threads);
    p->live = threads;
    int terr = 0;
    for (unsigned i = 0; i < threads; i++) {
        if ((terr = pthread_create(&p->threads[i], NULL, pool_worker, p)) != 0) {
            pthread_mutex_lock(&p->mu);
            p->live -= threads - i;
            pthread_mutex_unlock(&p->mu);
            break;
        }
        p->started++;
    }
    if (thread_err)
        *thread_err = p->started ? 0 : (terr ? terr : EINVAL);
    if (!p->started) {
        lp_pool_finish(p);
        *out = NULL;
        return 0;
    }
    *out = p;
    return p->started;
}

void *lp_pool_pop(lp_pool *p)
{
    pthread_mutex_lock(&p->mu);
    while (!p->head && p->live > 0)
        pthread_cond_wait(&p->can_pop, &p->mu);
    node *n = p->head;
    void *r = NULL;
    if (n) {
        p->head = n->next;
        if (!p->head)
            p->tail = NULL;
        p->queued--;
        p->queued_bytes -= n->bytes;
        pthread_cond_signal(&p->can_push);
        r = n->result;
    }
    pthread_mutex_unlock(&p->mu);
    free(n);
    return r;
}

void lp_pool_stop(lp_pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->can_push);
    pthread_mutex_unlock(&p->mu);
}

void lp_pool_finish(lp_pool *p)
{
    if (!p)
        return;
    lp_pool_stop(p);
    void *r;
    while ((r = lp_pool_pop(p)))
        p->ops->discard(p->ctx, r);
    for (unsigned i = 0; i < p->started; i++)
        pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->can_push);
    pthread_cond_destroy(&p->can_pop);
    free(p->threads);
    free(p);
}
