/*
 * vectors.c: stored chunk vectors (the vectors table), the per-publication dense index with
 * its cache, the dense channel entry point, and the fingerprint hook.
 *
 * The cache holds at most DENSE_CACHE entries (one MCP server may serve a few roots); an
 * entry is replaced when its root gets a newer publication. Entries are reference counted:
 * a search holding an index keeps it valid even when the cache drops it.
 */
#include "embed/embed_int.h"
#include "core/settings.h"

#include <pthread.h>
#include <strings.h>

static const char SQL_VEC_INSERT[] =
    "INSERT OR REPLACE INTO vectors(bid, ord, v) VALUES(?1, ?2, ?3)";
static const char SQL_VEC_DELETE[] = "DELETE FROM vectors WHERE bid = ?1";
static const char SQL_VEC_EXISTS[] =
    "SELECT 1 FROM sqlite_master WHERE type='table' AND name='vectors'";
/* Both in (bid, ord) order: the vectors' primary key and the covering index chunks_bid. */
static const char SQL_VEC_ALL[] = "SELECT bid, ord, v FROM vectors ORDER BY bid, ord";
static const char SQL_CHUNK_KEYS[] = "SELECT bid, ord, cid FROM chunks ORDER BY bid, ord";

bool lp_embed_code_vectors_enabled(void)
{
    if (lp_embed_remote_configured())
        return true;
    return lp_setting_bool(LP_SET_DENSE);
}

void lp_embed_register_fingerprint(void)
{
    lp_fingerprint_set_embedding(lp_embed_code_vectors_enabled() ? lp_embed_default_identity()
                                                                 : NULL);
}

/* ------------------------------------------------------------------------------------------
 * Chunk texts. */

static lp_str span_of(lp_str content, uint32_t a, uint32_t b)
{
    if (a > content.len)
        a = (uint32_t)content.len;
    if (b > content.len)
        b = (uint32_t)content.len;
    if (b < a)
        b = a;
    return (lp_str){content.ptr + a, b - a};
}

void lp_embed_chunk_text(const lp_parse_result *pr, lp_str content, size_t i, lp_buf *out)
{
    const lp_chunk *c = &pr->chunks[i];
    if (c->owner >= 0 && (size_t)c->owner < pr->nsymbols) {
        const lp_symbol *s = &pr->symbols[c->owner];
        if (s->qname)
            lp_buf_puts(out, s->qname);
        lp_buf_putc(out, '\n');
        /* A doc comment outside the span is not in the chunk text; a docstring inside it
         * (Python) already is. */
        if (s->doc.start_line &&
            (s->doc.end_byte <= c->span.start_byte || s->doc.start_byte >= c->span.end_byte)) {
            lp_buf_put_str(out, span_of(content, s->doc.start_byte, s->doc.end_byte));
            lp_buf_putc(out, '\n');
        }
    }
    lp_buf_append(out, c->text ? c->text : "", c->text ? c->text_len : 0);
}

void lp_embed_chunks(lp_embedder *e, const lp_parse_result *pr, lp_str content, lp_buf *scratch,
                     lp_buf *out)
{
    lp_buf_reset(out);
    if (!e || !pr->nchunks)
        return;
    uint32_t dim = lp_embedder_dim(e);
    size_t stride = LP_EMBED_VEC_BYTES(dim);
    uint8_t *v = lp_xmalloc(stride * pr->nchunks);
    /* All chunk texts of the file, then one batch: a remote provider gets few requests. */
    lp_buf_reset(scratch);
    size_t *offs = lp_xmalloc(sizeof(size_t) * (pr->nchunks + 1));
    for (size_t i = 0; i < pr->nchunks; i++) {
        offs[i] = scratch->len;
        lp_embed_chunk_text(pr, content, i, scratch);
    }
    offs[pr->nchunks] = scratch->len;
    lp_str *texts = lp_xmalloc(sizeof(lp_str) * pr->nchunks);
    for (size_t i = 0; i < pr->nchunks; i++)
        texts[i] = lp_str_n(scratch->ptr + offs[i], offs[i + 1] - offs[i]);
    lp_embed_batch_q(e, texts, pr->nchunks, v);
    if (!lp_embedder_error(e)->code)
        lp_buf_append(out, v, stride * pr->nchunks);
    free(texts);
    free(offs);
    free(v);
}

/* ------------------------------------------------------------------------------------------
 * The vectors table. */

lp_status lp_embed_store_clear(lp_store *st, lp_error *err)
{
    return lp_store_exec(st, "DELETE FROM vectors;", err);
}

static lp_status step_done(lp_store *st, sqlite3_stmt *s, const char *what, lp_error *err)
{
    int rc = sqlite3_step(s);
    lp_status r = rc == SQLITE_DONE ? LP_OK : lp_store_sql_error(st, what, err);
    sqlite3_reset(s);
    return r;
}

lp_status lp_embed_store_insert(lp_store *st, int64_t bid, const uint8_t *vecs, size_t n,
                                uint32_t dim, lp_error *err)
{
    size_t stride = LP_EMBED_VEC_BYTES(dim);
    lp_status rc = LP_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        const uint8_t *v = vecs + i * stride;
        if (lp_embed_vec_scale(v, dim) == 0.0f)
            continue;
        sqlite3_stmt *s;
        if ((rc = lp_store_prepare(st, SQL_VEC_INSERT, &s, err)))
            break;
        sqlite3_bind_int64(s, 1, bid);
        sqlite3_bind_int64(s, 2, (sqlite3_int64)i);
        sqlite3_bind_blob(s, 3, v, (int)stride, SQLITE_STATIC);
        rc = step_done(st, s, "storing a chunk vector", err);
    }
    return rc;
}

static bool table_exists(lp_store *st)
{
    sqlite3_stmt *s;
    if (lp_store_prepare(st, SQL_VEC_EXISTS, &s, NULL))
        return false;
    bool yes = sqlite3_step(s) == SQLITE_ROW;
    sqlite3_reset(s);
    return yes;
}

lp_status lp_embed_store_delete(lp_store *st, int64_t bid, lp_error *err)
{
    if (!table_exists(st))
        return LP_OK;
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(st, SQL_VEC_DELETE, &s, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, bid);
    return step_done(st, s, "removing chunk vectors", err);
}

/* ------------------------------------------------------------------------------------------
 * Dense indexes and their cache. */

typedef struct dense_entry {
    lp_dense_index ix; /* first: the public view */
    char *root;
    char identity[LP_EMBED_IDENTITY_MAX];
    int refs; /* the cache's reference counts as one while cached */
    int8_t *matrix;
    float *scales;
    int64_t *cids;
} dense_entry;

#define DENSE_CACHE 4

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static dense_entry *cache[DENSE_CACHE];
static uint64_t cache_tick[DENSE_CACHE], tick;

static void entry_unref_locked(dense_entry *e)
{
    if (--e->refs > 0)
        return;
    free(e->root);
    free(e->matrix);
    free(e->scales);
    free(e->cids);
    free(e);
}

void lp_dense_index_release(const lp_dense_index *ix)
{
    if (!ix)
        return;
    pthread_mutex_lock(&cache_mu);
    entry_unref_locked((dense_entry *)(uintptr_t)ix);
    pthread_mutex_unlock(&cache_mu);
}

void lp_dense_cache_clear(void)
{
    pthread_mutex_lock(&cache_mu);
    for (size_t i = 0; i < DENSE_CACHE; i++) {
        if (cache[i])
            entry_unref_locked(cache[i]);
        cache[i] = NULL;
    }
    pthread_mutex_unlock(&cache_mu);
}

/* Chunk ids by (bid, ord), from the covering index chunks_bid: sorted like the vectors'
 * primary key, so the two are merge-joined in one pass each (much cheaper than an SQL join
 * with a lookup per row on a million chunks). */
typedef struct chunk_key {
    int64_t bid, ord, cid;
} chunk_key;

typedef struct row_ref {
    int64_t cid;
    size_t row; /* row in the load-order matrix */
} row_ref;

static int row_ref_cmp(const void *a, const void *b)
{
    int64_t x = ((const row_ref *)a)->cid, y = ((const row_ref *)b)->cid;
    return x < y ? -1 : x > y;
}

static lp_status dense_build(lp_store *st, uint32_t dim, dense_entry *e, lp_error *err)
{
    sqlite3_stmt *s;
    LP_VEC(chunk_key) keys = {0};
    LP_VEC(row_ref) refs = {0};
    int8_t *tmp = NULL;
    float *tscale = NULL;
    size_t cap = 0, n = 0, wrong = 0, k = 0;
    size_t stride = LP_EMBED_VEC_BYTES(dim);
    int step;
    lp_status rc = lp_store_prepare(st, SQL_CHUNK_KEYS, &s, err);
    if (rc)
        goto done;
    while ((step = sqlite3_step(s)) == SQLITE_ROW)
        lp_vec_push(&keys, ((chunk_key){sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1),
                                        sqlite3_column_int64(s, 2)}));
    sqlite3_reset(s);
    if (step != SQLITE_DONE) {
        rc = lp_store_sql_error(st, "loading chunk ids", err);
        goto done;
    }
    if ((rc = lp_store_prepare(st, SQL_VEC_ALL, &s, err)))
        goto done;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t bid = sqlite3_column_int64(s, 0), ord = sqlite3_column_int64(s, 1);
        while (k < keys.len &&
               (keys.items[k].bid < bid || (keys.items[k].bid == bid && keys.items[k].ord < ord)))
            k++;
        if (k == keys.len || keys.items[k].bid != bid || keys.items[k].ord != ord)
            continue; /* a vector without its chunk (cannot happen in a published state) */
        if ((size_t)sqlite3_column_bytes(s, 2) != stride) {
            wrong++;
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            tmp = lp_xrealloc(tmp, lp_mul_size(cap, dim));
            tscale = lp_xrealloc(tscale, sizeof(float) * cap);
        }
        const uint8_t *v = sqlite3_column_blob(s, 2);
        memcpy(tmp + n * dim, v, dim);
        tscale[n] = lp_embed_vec_scale(v, dim);
        lp_vec_push(&refs, ((row_ref){keys.items[k].cid, n}));
        n++;
    }
    sqlite3_reset(s);
    if (step != SQLITE_DONE) {
        rc = lp_store_sql_error(st, "loading chunk vectors", err);
        goto done;
    }
    /* Rows in ascending chunk id: ties in a scan then resolve to the lower chunk id. */
    if (refs.len)
        qsort(refs.items, refs.len, sizeof *refs.items, row_ref_cmp);
    e->matrix = lp_xmalloc(lp_mul_size(n ? n : 1, dim));
    e->scales = lp_xmalloc(sizeof(float) * (n ? n : 1));
    e->cids = lp_xmalloc(sizeof(int64_t) * (n ? n : 1));
    for (size_t i = 0; i < n; i++) {
        memcpy(e->matrix + i * dim, tmp + refs.items[i].row * dim, dim);
        e->scales[i] = tscale[refs.items[i].row];
        e->cids[i] = refs.items[i].cid;
    }
    e->ix.n = n;
    if (wrong)
        lp_log(LP_LOG_WARN, "embed.vector_size_mismatch",
               "root=%s skipped=%zu dim=%u hint=\"run 'loupe reindex'\"", lp_store_root(st), wrong,
               dim);
done:
    lp_vec_free(&keys);
    lp_vec_free(&refs);
    free(tmp);
    free(tscale);
    return rc;
}

/* Identity and dimension of the default provider. */
static lp_status provider_shape(char identity[LP_EMBED_IDENTITY_MAX], uint32_t *dim, lp_error *err)
{
    if (lp_embed_remote_configured()) {
        const lp_embed_remote *r;
        lp_status rc = lp_embed_remote_get(&r, err);
        if (rc)
            return rc;
        snprintf(identity, LP_EMBED_IDENTITY_MAX, "%s", lp_embed_remote_identity(r));
        *dim = lp_embed_remote_dim(r);
        return LP_OK;
    }
    const lp_embed_model *m;
    lp_status rc = lp_embed_default(&m, err);
    if (rc)
        return rc;
    lp_embed_info info;
    lp_embed_model_info(m, &info);
    snprintf(identity, LP_EMBED_IDENTITY_MAX, "%s", info.identity);
    *dim = info.dim;
    return LP_OK;
}

lp_status lp_dense_index_get(lp_store *st, int64_t publication_id, const lp_dense_index **out,
                             lp_error *err)
{
    *out = NULL;
    struct {
        char identity[LP_EMBED_IDENTITY_MAX];
        uint32_t dim;
    } info;
    lp_status rc = provider_shape(info.identity, &info.dim, err);
    if (rc)
        return rc;
    const char *root = lp_store_root(st);

    pthread_mutex_lock(&cache_mu);
    for (size_t i = 0; i < DENSE_CACHE; i++) {
        dense_entry *e = cache[i];
        if (e && e->ix.publication_id == publication_id && !strcmp(e->root, root) &&
            !strcmp(e->identity, info.identity)) {
            e->refs++;
            cache_tick[i] = ++tick;
            pthread_mutex_unlock(&cache_mu);
            *out = &e->ix;
            return LP_OK;
        }
    }
    pthread_mutex_unlock(&cache_mu);

    /* Built outside the lock: loading 200k vectors takes a while and other roots may be
     * searched meanwhile. Two threads may build the same entry; the later one wins. */
    dense_entry *e = lp_xcalloc(1, sizeof *e);
    e->root = lp_xstrdup(root);
    snprintf(e->identity, sizeof e->identity, "%s", info.identity);
    e->refs = 1;
    e->ix.identity = e->identity;
    e->ix.publication_id = publication_id;
    e->ix.dim = info.dim;
    if (table_exists(st) && (rc = dense_build(st, info.dim, e, err))) {
        pthread_mutex_lock(&cache_mu);
        entry_unref_locked(e);
        pthread_mutex_unlock(&cache_mu);
        return rc;
    }
    e->ix.matrix = e->matrix;
    e->ix.scales = e->scales;
    e->ix.cids = e->cids;

    pthread_mutex_lock(&cache_mu);
    size_t slot = 0;
    for (size_t i = 0; i < DENSE_CACHE; i++) {
        /* Replace an older publication of the same root first, else the least recent. */
        if (cache[i] && !strcmp(cache[i]->root, root)) {
            slot = i;
            break;
        }
        if (!cache[i] || cache_tick[i] < cache_tick[slot])
            slot = i;
        if (!cache[i])
            break;
    }
    if (cache[slot])
        entry_unref_locked(cache[slot]);
    cache[slot] = e;
    cache_tick[slot] = ++tick;
    e->refs++; /* the caller's reference */
    pthread_mutex_unlock(&cache_mu);
    *out = &e->ix;
    return LP_OK;
}

lp_status lp_dense_search(lp_store *st, int64_t publication_id, lp_str query, size_t k,
                          lp_dense_hit *out, size_t *nout, lp_error *err)
{
    *nout = 0;
    lp_embedder *em = NULL;
    lp_status rc = lp_embedder_default(&em, err);
    if (rc)
        return rc;
    uint32_t dim = lp_embedder_dim(em);
    lp_embedder_set_timeout(em, 5000);
    uint8_t *q = lp_xmalloc(LP_EMBED_VEC_BYTES(dim));
    lp_embed_hit *hits = NULL;
    const lp_dense_index *ix = NULL;
    bool any = lp_embed_text_q(em, query, q);
    if (lp_embedder_error(em)->code) {
        if (err)
            *err = *lp_embedder_error(em);
        rc = lp_embedder_error(em)->code;
        goto done;
    }
    if (!any || k == 0)
        goto done;
    if ((rc = lp_dense_index_get(st, publication_id, &ix, err)))
        goto done;
    if (ix->dim != dim || ix->n == 0)
        goto done;
    hits = lp_xmalloc(sizeof *hits * k);
    size_t n = lp_embed_search((const int8_t *)q, lp_embed_vec_scale(q, dim), ix->matrix,
                               ix->scales, ix->n, dim, k, hits);
    /* Rows are in ascending cid order, so index order is cid order: ties stay by cid. */
    for (size_t i = 0; i < n; i++)
        out[i] = (lp_dense_hit){ix->cids[hits[i].index], hits[i].score};
    *nout = n;
done:
    lp_dense_index_release(ix);
    free(hits);
    free(q);
    lp_embedder_free(em);
    return rc;
}
