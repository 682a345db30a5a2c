/*
 * collect.c: removing evidence no file references any more, at the end of a build.
 *
 * The lexical index is a contentless FTS5 table: deleting a row takes the column values it
 * was inserted with, so each dead blob's stored content is parsed again (evidence.c). On a
 * sync of many changed files that re-parse is most of the work (a checkout jump across
 * 1,365 files of pylint: 37% of all instructions, all on the writer thread while the
 * workers sat idle; docs/decisions/0011-sync-collect.md). So the blobs are first sorted
 * out (still referenced or dead) here, then worker threads, each with its own read
 * connection (it sees the committed blobs, which this uncommitted build has not touched
 * yet), compute the rows, and this thread, the only writer, deletes them as they come,
 * through a queue bounded in items and bytes.
 *
 * Invariant: the rows deleted are exactly lp_evidence_fts_rows of the blob, whichever
 * thread computed them.
 */
#include "index/index_int.h"

#define COLLECT_PARALLEL_MIN 16              /* fewer dead blobs: not worth threads */
#define COLLECT_QUEUE_ITEMS 64
#define COLLECT_QUEUE_BYTES ((uint64_t)64 << 20)

typedef struct job {
    int64_t bid;
    lp_arena arena;
    lp_fts_rows rows;
    bool ok; /* rows computed; else the writer computes them */
} job;

typedef struct collector {
    const char *root;
    const int64_t *dead;
} collector;

/* Each worker's read connection (NULL if it could not open: the writer computes its rows). */
static void *collect_start(void *ctx)
{
    const collector *c = ctx;
    lp_store *rd = NULL;
    lp_error err;
    if (lp_store_open(c->root, LP_STORE_READ, &rd, &err) != LP_OK)
        rd = NULL;
    return rd;
}

static void *collect_work(void *ctx, void *state, size_t i, uint64_t *bytes)
{
    const collector *c = ctx;
    lp_store *rd = state;
    lp_error err;
    job *j = lp_xcalloc(1, sizeof *j);
    j->bid = c->dead[i];
    lp_arena_init(&j->arena, 0);
    j->ok = rd && lp_evidence_fts_rows(rd, j->bid, &j->arena, &j->rows, &err) == LP_OK;
    *bytes = j->rows.bytes;
    return j;
}

static void collect_end(void *ctx, void *state)
{
    lp_store_close(state);
    lp_lang_thread_release();
}

static void collect_discard(void *ctx, void *result)
{
    job *j = result;
    lp_arena_release(&j->arena);
    free(j);
}

static const lp_pool_ops collect_ops = {collect_start, collect_work, collect_end,
                                        collect_discard};

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
    collector c = {.root = lp_store_root(st), .dead = dead};
    lp_pool *pool = NULL;
    unsigned want = threads > 16 ? 16 : threads;
    if (!lp_pool_start(&pool, &collect_ops, &c, ndead, want, COLLECT_QUEUE_ITEMS,
                       COLLECT_QUEUE_BYTES, NULL)) {
        /* no thread could start: all of it here */
        for (size_t i = 0; i < ndead && !rc; i++)
            if (!(rc = lp_evidence_collect(st, dead[i], NULL, err)))
                (*collected)++;
        goto out;
    }
    job *j;
    while ((j = lp_pool_pop(pool))) {
        if (!rc)
            rc = lp_evidence_collect(st, j->bid, j->ok ? &j->rows : NULL, err);
        if (!rc)
            (*collected)++;
        if (rc)
            lp_pool_stop(pool);
        collect_discard(&c, j);
    }
    lp_pool_finish(pool);
out:
    free(dead);
    return rc;
}
