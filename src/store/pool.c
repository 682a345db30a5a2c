/*
 * pool.c: idle read connections kept warm for a long-lived process (contract in store.h).
 */
#include "store/store_int.h"

#include <pthread.h>
#include <sys/stat.h>

struct lp_store_pool {
    pthread_mutex_t mu;
    size_t max_idle;
    LP_VEC(lp_store *) idle; /* oldest first */
};

lp_store_pool *lp_store_pool_new(size_t max_idle)
{
    lp_store_pool *p = lp_xcalloc(1, sizeof *p);
    pthread_mutex_init(&p->mu, NULL);
    p->max_idle = max_idle;
    return p;
}

void lp_store_pool_free(lp_store_pool *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->idle.len; i++)
        lp_store_close(p->idle.items[i]);
    lp_vec_free(&p->idle);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

/* The file the connection opened is still the database of its root. */
static bool still_current(const lp_store *st)
{
    struct stat sb;
    return stat(st->path, &sb) == 0 && (uint64_t)sb.st_dev == st->dev &&
           (uint64_t)sb.st_ino == st->ino;
}

lp_status lp_store_pool_take(lp_store_pool *p, const char *root, lp_store **out,
                             lp_error *err)
{
    *out = NULL;
    lp_store *found = NULL;
    pthread_mutex_lock(&p->mu);
    for (size_t i = p->idle.len; i > 0 && !found; i--) { /* newest first: warmest cache */
        lp_store *st = p->idle.items[i - 1];
        if (strcmp(st->root, root) != 0)
            continue;
        found = st;
        memmove(&p->idle.items[i - 1], &p->idle.items[i],
                (p->idle.len - i) * sizeof p->idle.items[0]);
        p->idle.len--;
    }
    pthread_mutex_unlock(&p->mu);
    /* a database noted as damaged (by any process) is refused by lp_store_open below */
    if (found && still_current(found) && !lp_store_damage_get(root, NULL, 0)) {
        *out = found;
        return LP_OK;
    }
    lp_store_close(found); /* removed, replaced or damaged: never served */
    return lp_store_open(root, LP_STORE_READ, out, err);
}

void lp_store_pool_give(lp_store_pool *p, lp_store *st)
{
    if (!st)
        return;
    /* a reader opened for a full disk is not kept: the next one may use the -shm again */
    if (!p || st->pinned || st->mode != LP_STORE_READ || st->heap_wal || p->max_idle == 0) {
        lp_store_close(st);
        return;
    }
    lp_store *evict = NULL;
    pthread_mutex_lock(&p->mu);
    if (p->idle.len >= p->max_idle) {
        evict = p->idle.items[0];
        memmove(&p->idle.items[0], &p->idle.items[1],
                (p->idle.len - 1) * sizeof p->idle.items[0]);
        p->idle.len--;
    }
    lp_vec_push(&p->idle, st);
    pthread_mutex_unlock(&p->mu);
    lp_store_close(evict);
}
