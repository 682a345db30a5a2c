/*
 * collect.c: removing evidence no file references any more, at the end of a build.
 *
 * The lexical index is a contentless FTS5 table: deleting a row takes the column values it
 * was inserted with, so each dead blob's stored content is parsed again (evidence.c). On a
 * sync of many changed files that re-parse is most of the work (a checkout jump across
 * 1,365 files of pylint: 37% of all instructions, all on the writer thread while the
 * workers sat idle; docs/decisions/0008-sync-collect.md). So the blobs are first sorted
 * out (still referenced or dead) here, then worker threads, each with its own read
 * connection (it sees the committed blobs, which this uncommitted build has not touched
 * yet), compute the rows, and this thread, the only writer, deletes them as they come,
 * through a queue bounded in items and bytes.
 *
 * Invariant: the rows deleted are exactly lp_evidence_fts_rows of the blob, whichever
 * thread computed them.
 */
#include "index/index_int.h"

#include <pthread.h>

#define COLLECT_PARALLEL_MIN 16              /* fewer dead blobs: not worth threads */
#define COLLECT_QUEUE_ITEMS 64
#define COLLECT_QUEUE_BYTES ((uint64_t)64 << 20)

typedef struct job {
    int64_t bid;
    lp_arena arena;
    lp_fts_rows rows;
    bool ok;          /* rows computed; else the writer computes them */
    struct job *next; /* queue link */
} job;

typedef struct collector {
    const char *root;
    const int64_t *dead;
    size_t ndead;
    pthread_mutex_t mu;
    pthread_cond_t can_push, can_pop;
    size_t next;           /* next dead blob a worker takes */
    job *head, *tail;
    size_t queued;
    uint64_t queued_bytes;
    unsigned live;         /* workers still running */
    bool stop;
} collector;

static void *collect_worker(void *arg)
{
    collector *c = arg;
    lp_store *rd = NULL;
    lp_error err;
    if (lp_store_open(c->root, LP_STORE_READ, &rd, &err) != LP_OK)
        rd = NULL; /* the writer computes what this worker would have */
    for (;;) {
        pthread_mutex_lock(&c->mu);
        if (c->stop || c->next >= c->ndead) {
            c->live--;
            pthread_cond_broadcast(&c->can_pop);
            pthread_mutex_unlock(&c->mu);
            break;
        }
        size_t i = c->next++;
        pthread_mutex_unlock(&c->mu);

        job *j = lp_xcalloc(1, sizeof *j);
        j->bid = c->dead[i];
        lp_arena_init(&j->arena, 0);
        j->ok = rd && lp_evidence_fts_rows(rd, j->bid, &j->arena, &j->rows, &err) == LP_OK;

        pthread_mutex_lock(&c->mu);
        while (!c->stop && (c->queued >= COLLECT_QUEUE_ITEMS ||
                            (c->queued && c->queued_bytes + j->rows.bytes > COLLECT_QUEUE_BYTES)))
            pthread_cond_wait(&c->can_push, &c->mu);
        if (c->stop) {
            pthread_mutex_unlock(&c->mu);
            lp_arena_release(&j->arena);
            free(j);
            continue;
        }
        if (c->tail)
            c->tail->next = j;
        else
            c->head = j;
        c->tail = j;
        c->queued++;
        c->queued_bytes += j->rows.bytes;
        pthread_cond_signal(&c->can_pop);
        pthread_mutex_unlock(&c->mu);
    }
    lp_store_close(rd);
    lp_lang_thread_release();
    return NULL;
}

static job *collect_pop(collector *c)
{
    pthread_mutex_lock(&c->mu);
    while (!c->head && c->live > 0)
        pthread_cond_wait(&c->can_pop, &c->mu);
    job *j = c->head;
    if (j) {
        c->head = j->next;
        if (!c->head)
            c->tail = NULL;
        c->queued--;
        c->queued_bytes -= j->rows.bytes;
        pthread_cond_signal(&c->can_push);
    }
    pthread_mutex_unlock(&c->mu);
    return j;
}

static int bid_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The blobs of maybe_orphans that no file references now, each once. */
static lp_status find_dead(lp_store *st, const int64_t *maybe, size_t n, int64_t **out,
                           size_t *nout, lp_error *err)
{
    LP_VEC(int64_t) dead = {0};
    sqlite3_stmt *s;
    lp_status rc = LP_OK;
    /* several paths may have pointed at one blob: decide each once (sorted, not a scan of
     * the ones before: a sync of 200,000 changed files must not be quadratic) */
    int64_t *sorted = lp_xmalloc(lp_mul_size(n ? n : 1, sizeof *sorted));
    if (n)
        memcpy(sorted, maybe, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, bid_cmp);
    for (size_t i = 0; i < n && !rc; i++) {
        int64_t bid = sorted[i];
        if (i && sorted[i - 1] == bid)
            continue;
        if ((rc = lp_store_prepare(st, "SELECT 1 FROM files WHERE bid = ?1 LIMIT 1", &s, err)))
            break;
        sqlite3_bind_int64(s, 1, bid);
        int step = sqlite3_step(s);
        sqlite3_reset(s);
        if (step == SQLITE_DONE)
            lp_vec_push(&dead, bid);
        else if (step != SQLITE_ROW)
            rc = lp_store_sql_error(st, "collecting evidence", err);
    }
    free(sorted);
    *out = dead.items;
    *nout = dead.len;
    return rc;
}

lp_status lp_index_collect(lp_store *st, const int64_t *maybe_orphans, size_t n,
                           unsigned threads, uint64_t *collected, lp_error *err)
{
    int64_t *dead = NULL;
    size_t ndead = 0;
    lp_status rc = find_dead(st, maybe_orphans, n, &dead, &ndead, err);
    if (rc || ndead == 0)
        goto out;
    if (ndead < COLLECT_PARALLEL_MIN || threads <= 1) {
        for (size_t i = 0; i < ndead && !rc; i++)
            if (!(rc = lp_evidence_collect(st, dead[i], NULL, err)))
                (*collected)++;
        goto out;
    }
    collector c = {.root = lp_store_root(st), .dead = dead, .ndead = ndead};
    pthread_mutex_init(&c.mu, NULL);
    pthread_cond_init(&c.can_push, NULL);
    pthread_cond_init(&c.can_pop, NULL);
    pthread_t tids[16];
    unsigned want = threads > 16 ? 16 : threads, started = 0;
    c.live = want;
    for (unsigned i = 0; i < want; i++) {
        if (pthread_create(&tids[i], NULL, collect_worker, &c) != 0) {
            pthread_mutex_lock(&c.mu);
            c.live -= want - i;
            pthread_mutex_unlock(&c.mu);
            break;
        }
        started++;
    }
    job *j;
    while ((j = collect_pop(&c))) {
        if (!rc)
            rc = lp_evidence_collect(st, j->bid, j->ok ? &j->rows : NULL, err);
        if (!rc)
            (*collected)++;
        if (rc) {
            pthread_mutex_lock(&c.mu);
            c.stop = true;
            pthread_cond_broadcast(&c.can_push);
            pthread_mutex_unlock(&c.mu);
        }
        lp_arena_release(&j->arena);
        free(j);
    }
    for (unsigned i = 0; i < started; i++)
        pthread_join(tids[i], NULL);
    /* Blobs no worker reached (none started, or a stop): done here. */
    for (size_t i = c.next; i < ndead && !rc && started == 0; i++)
        if (!(rc = lp_evidence_collect(st, dead[i], NULL, err)))
            (*collected)++;
    pthread_mutex_destroy(&c.mu);
    pthread_cond_destroy(&c.can_push);
    pthread_cond_destroy(&c.can_pop);
out:
    free(dead);
    return rc;
}
