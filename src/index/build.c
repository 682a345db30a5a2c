/*
 * build.c: one build (create, sync or reindex) from lease to commit.
 *
 * Threads: the calling thread walks, decides what to read (stat-first), then becomes the
 * single SQLite writer; N workers read, hash, detect the language and parse the files that
 * changed, handing results through a bounded queue (backpressure keeps memory flat on huge
 * trees). Results are written in completion order; nothing depends on that order (ids are
 * not part of any ranking or output ordering).
 *
 * Invariant: every change happens inside one write transaction that ends with the
 * publication row; any failure or cancel rolls back and the previous publication stays.
 */
#include "index/index_int.h"
#include "core/settings.h"

#include "embed/embed.h"
#include "graph/graph.h"

#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------
 * Known blobs: (hash, lang) -> bid, an open-addressing table. Read-only while workers run. */
typedef struct blob_slot {
    lp_hash128 hash;
    int64_t bid; /* 0: empty */
    uint32_t lang;
} blob_slot;

typedef struct blob_map {
    blob_slot *slots;
    size_t cap, len;
} blob_map;

static size_t blob_hash_index(const blob_map *m, lp_hash128 h, uint32_t lang)
{
    return (size_t)((h.lo ^ (h.hi * 31) ^ lang) & (m->cap - 1));
}

static int64_t blob_map_get(const blob_map *m, lp_hash128 h, uint32_t lang)
{
    if (!m->cap)
        return 0;
    for (size_t i = blob_hash_index(m, h, lang);; i = (i + 1) & (m->cap - 1)) {
        const blob_slot *s = &m->slots[i];
        if (!s->bid)
            return 0;
        if (s->lang == lang && lp_hash128_eq(s->hash, h))
            return s->bid;
    }
}

static void blob_map_put(blob_map *m, lp_hash128 h, uint32_t lang, int64_t bid)
{
    if ((m->len + 1) * 2 > m->cap) {
        blob_map old = *m;
        m->cap = old.cap ? old.cap * 2 : 1024;
        m->slots = lp_xcalloc(m->cap, sizeof *m->slots);
        m->len = 0;
        for (size_t i = 0; i < old.cap; i++)
            if (old.slots[i].bid)
                blob_map_put(m, old.slots[i].hash, old.slots[i].lang, old.slots[i].bid);
        free(old.slots);
    }
    size_t i = blob_hash_index(m, h, lang);
    while (m->slots[i].bid && !(m->slots[i].lang == lang && lp_hash128_eq(m->slots[i].hash, h)))
        i = (i + 1) & (m->cap - 1);
    if (!m->slots[i].bid)
        m->len++;
    m->slots[i] = (blob_slot){h, bid, lang};
}

static lp_status blob_map_load(lp_store *st, blob_map *m, lp_error *err)
{
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(st, "SELECT bid, hash, lang FROM blobs", &s, err);
    if (rc)
        return rc;
    while (sqlite3_step(s) == SQLITE_ROW) {
        if (sqlite3_column_bytes(s, 1) != 16)
            continue;
        blob_map_put(m, lp_hash128_from_bytes(sqlite3_column_blob(s, 1)),
                     (uint32_t)sqlite3_column_int(s, 2), sqlite3_column_int64(s, 0));
    }
    sqlite3_reset(s);
    return LP_OK;
}

/* ---------------------------------------------------------------------------------------
 * Work items and results. */
typedef enum result_kind {
    RES_FAIL,  /* could not be read for a reason that is not the file's (a limit, EIO):
                  the build fails, the previous publication stays */
    RES_GONE,  /* vanished since the walk: removed from the publication, not a skip */
    RES_SKIP,  /* not searchable (binary, too large, unreadable) */
    RES_SAME,  /* bytes equal the stored blob: only stat data changed */
    RES_REUSE, /* content already indexed under another path or earlier */
    RES_NEW    /* parsed here: evidence to insert */
} result_kind;

typedef struct work_item {
    const lp_scan_entry *entry;
    const lp_stored_file *stored; /* NULL for a new path */
    bool same_stat;               /* a rebuild reads it although its stat agrees */
} work_item;

typedef struct result {
    size_t item;
    result_kind kind;
    lp_skip_reason skip;
    lp_hash128 hash;
    lp_lang lang;
    int64_t bid; /* RES_REUSE / RES_SAME */
    uint64_t bytes;
    lp_buf content;      /* RES_NEW */
    lp_buf encoded;      /* RES_NEW: content as stored (compressed) */
    lp_arena arena;      /* RES_NEW: parse output */
    lp_parse_result pr;  /* RES_NEW */
    lp_buf vecs;         /* RES_NEW: one stored vector per chunk (empty without a model) */
    lp_error err;        /* RES_FAIL */
} result;

typedef struct build {
    const char *root;
    const lp_index_opts *opts;
    uint64_t max_file_bytes;
    work_item *items;
    size_t nitems;
    const blob_map *known;
    bool rebuild;                /* evidence was reset: every file is new evidence */
    bool embed;                  /* the dense channel has a provider: embed chunks */
    int embed_broken;            /* a connected provider failed: no more requests (atomic) */
    uint32_t embed_dim;
    lp_parse_opts parse_opts; /* the per-file parse budget */

    lp_pool *pool; /* the workers; results are queued up to QUEUE_MAX_* (content bytes) */
} build;

#define QUEUE_MAX_ITEMS 256
#define QUEUE_MAX_BYTES ((uint64_t)96 << 20)

static void result_free(result *r)
{
    if (!r)
        return;
    lp_buf_release(&r->content);
    lp_buf_release(&r->encoded);
    lp_buf_release(&r->vecs);
    lp_arena_release(&r->arena);
    free(r);
}

/* Per-worker embedding state: embedding runs here, in parallel, not in the writer. */
typedef struct worker_embed {
    lp_embedder *em;
    lp_buf scratch;
} worker_embed;

static void process_item(build *b, size_t idx, result *r, worker_embed *we)
{
    const work_item *it = &b->items[idx];
    lp_error err;
    r->item = idx;
    lp_status rc = lp_scan_read(b->root, it->entry->path, b->max_file_bytes, &r->content,
                                &r->skip, &err);
    if (rc || r->skip != LP_SKIP_NONE) {
        r->kind = RES_SKIP;
        if (rc == LP_ENOENT) {
            r->kind = RES_GONE;
        } else if (rc) {
            lp_log(LP_LOG_WARN, "index.read_failed", "path=%s error=\"%s\"", it->entry->path,
                   err.msg);
            r->kind = RES_FAIL;
            r->err = err;
        }
        lp_buf_release(&r->content);
        return;
    }
    r->bytes = r->content.len;
    r->hash = lp_hash128_of(r->content.ptr, r->content.len);
    lp_str head = {r->content.ptr, LP_MIN(r->content.len, (size_t)4096)};
    r->lang = lp_lang_detect(lp_str_c(it->entry->path), head);
    if (!b->rebuild && it->stored && it->stored->lang == r->lang &&
        lp_hash128_eq(it->stored->hash, r->hash)) {
        r->kind = RES_SAME;
        r->bid = it->stored->bid;
        lp_buf_release(&r->content);
        return;
    }
    int64_t bid = blob_map_get(b->known, r->hash, (uint32_t)r->lang);
    if (bid) {
        r->kind = RES_REUSE;
        r->bid = bid;
        lp_buf_release(&r->content);
        return;
    }
    r->kind = RES_NEW;
    if (lp_parse(r->lang, lp_buf_str(&r->content), &b->parse_opts, &r->arena, &r->pr, &err) !=
        LP_OK) {
        /* A parser that refuses the input still leaves the text searchable. */
        lp_log(LP_LOG_WARN, "index.parse_failed", "path=%s error=\"%s\"", it->entry->path,
               err.msg);
        lp_arena_release(&r->arena);
        lp_arena_init(&r->arena, 0);
        r->lang = LP_LANG_TEXT;
        if (lp_parse(LP_LANG_TEXT, lp_buf_str(&r->content), NULL, &r->arena, &r->pr, &err)) {
            memset(&r->pr, 0, sizeof r->pr);
            r->pr.lang = LP_LANG_TEXT;
        }
    }
    lp_store_content_encode(lp_buf_str(&r->content), &r->encoded);
    if (we->em && !__atomic_load_n(&b->embed_broken, __ATOMIC_RELAXED)) {
        lp_embed_chunks(we->em, &r->pr, lp_buf_str(&r->content), &we->scratch, &r->vecs);
        /* A connected provider that fails (down, slow, wrong answers) is not asked again
         * in this build: files indexed from here on get no vectors (one warning). */
        if (lp_embedder_error(we->em)->code &&
            !__atomic_exchange_n(&b->embed_broken, 1, __ATOMIC_RELAXED))
            lp_log(LP_LOG_WARN, "embed.provider_failed",
                   "path=%s error=\"%s\" effect=\"no dense vectors for the rest of this build\"",
                   it->entry->path, lp_embedder_error(we->em)->msg);
    }
}

static void *worker_start(void *ctx)
{
    build *b = ctx;
    worker_embed *we = lp_xcalloc(1, sizeof *we);
    if (b->embed && lp_embedder_default(&we->em, NULL) != LP_OK)
        we->em = NULL;
    lp_buf_init(&we->scratch, 0);
    return we;
}

static void *worker_work(void *ctx, void *state, size_t idx, uint64_t *bytes)
{
    result *r = lp_xcalloc(1, sizeof *r);
    lp_buf_init(&r->content, 0);
    lp_buf_init(&r->encoded, 0);
    lp_buf_init(&r->vecs, 0);
    lp_arena_init(&r->arena, 0);
    process_item(ctx, idx, r, state);
    *bytes = r->content.len;
    return r;
}

static void worker_end(void *ctx, void *state)
{
    worker_embed *we = state;
    lp_embedder_free(we->em);
    lp_buf_release(&we->scratch);
    free(we);
    lp_lang_thread_release();
}

static void worker_discard(void *ctx, void *r) { result_free(r); }

static const lp_pool_ops worker_ops = {worker_start, worker_work, worker_end, worker_discard};

/* ---------------------------------------------------------------------------------------
 * The writer side. */

/* A skip as stored. A file skipped for its content (binary) keeps its stat data, so the
 * next sync trusts the reason without reading the file again while the stat agrees. */
typedef struct skip_rec {
    const char *path;
    lp_skip_reason reason;
    const lp_scan_entry *stat; /* NULL when the reason was decided without reading */
} skip_rec;

typedef struct writer {
    lp_store *st;
    const lp_index_opts *opts;
    lp_index_report *rep;
    lp_lease *lease;
    blob_map fresh; /* blobs inserted by this build */
    LP_VEC(int64_t) maybe_orphans;
    LP_VEC(skip_rec) skips;
    LP_VEC(lp_graph_change) changes; /* files added, changed or deleted (for the graph) */
    lp_hash128 *final_hash; /* per scan entry; zero = not in the publication */
    bool *in_pub;
    uint64_t last_progress_ns;
    uint64_t start_ns;
    int64_t id_floor; /* publication ids continue above this (a replaced damaged file) */
} writer;

static const char SQL_FILE_UPSERT[] =
    "INSERT INTO files(path, bid, size, mtime_ns, ino, mode, phash)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)"
    " ON CONFLICT(path) DO UPDATE SET bid = excluded.bid, size = excluded.size,"
    " mtime_ns = excluded.mtime_ns, ino = excluded.ino, mode = excluded.mode";
static const char SQL_FILE_DELETE[] = "DELETE FROM files WHERE path = ?1";

static lp_status file_upsert(writer *w, const lp_scan_entry *e, int64_t bid, lp_error *err)
{
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(w->st, SQL_FILE_UPSERT, &s, err);
    if (rc)
        return rc;
    sqlite3_bind_text(s, 1, e->path, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, bid);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)e->size);
    sqlite3_bind_int64(s, 4, e->mtime_ns);
    sqlite3_bind_int64(s, 5, (sqlite3_int64)e->ino);
    sqlite3_bind_int64(s, 6, e->mode);
    sqlite3_bind_int64(s, 7, (sqlite3_int64)lp_symbol_path_hash(lp_str_c(e->path)));
    rc = sqlite3_step(s) == SQLITE_DONE ? LP_OK
                                        : lp_store_sql_error(w->st, "recording a file", err);
    sqlite3_reset(s);
    return rc;
}

static lp_status file_delete(writer *w, const lp_stored_file *f, lp_error *err)
{
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(w->st, SQL_FILE_DELETE, &s, err);
    if (rc)
        return rc;
    sqlite3_bind_text(s, 1, f->path, -1, SQLITE_STATIC);
    rc = sqlite3_step(s) == SQLITE_DONE ? LP_OK
                                        : lp_store_sql_error(w->st, "removing a file", err);
    sqlite3_reset(s);
    lp_vec_push(&w->maybe_orphans, f->bid);
    lp_vec_push(&w->changes, ((lp_graph_change){f->path, f->fid, f->bid, 0}));
    return rc;
}

static void report_progress(writer *w, const char *phase, uint64_t done, uint64_t total,
                            uint64_t bytes, uint64_t bytes_total, bool force)
{
    uint64_t now = lp_now_ns();
    if (!force && now - w->last_progress_ns < 200000000ull)
        return;
    w->last_progress_ns = now;
    if (w->opts->progress) {
        lp_index_progress p = {phase, done, total, bytes, bytes_total,
                               (now - w->start_ns) / 1000000};
        w->opts->progress(w->opts->progress_ctx, &p);
    }
    lp_lease_progress(w->lease, phase, done, total, bytes);
}

static lp_status write_result(writer *w, build *b, result *r, lp_error *err)
{
    const work_item *it = &b->items[r->item];
    const lp_scan_entry *e = it->entry;
    lp_index_report *rep = w->rep;
    if (r->kind == RES_FAIL) {
        *err = r->err;
        return err->code ? err->code : LP_EIO;
    }
    if (r->kind == RES_GONE) {
        if (it->stored) {
            rep->deleted++;
            return file_delete(w, it->stored, err);
        }
        return LP_OK;
    }
    rep->files_read++;
    if (r->kind == RES_SKIP) {
        lp_vec_push(&w->skips,
                    ((skip_rec){e->path, r->skip, r->skip == LP_SKIP_BINARY ? e : NULL}));
        rep->skip_counts[r->skip]++;
        if (it->stored) {
            rep->deleted++;
            return file_delete(w, it->stored, err);
        }
        return LP_OK;
    }
    rep->bytes_read += r->bytes;
    int64_t bid = r->bid;
    if (r->kind == RES_NEW) {
        bid = blob_map_get(&w->fresh, r->hash, (uint32_t)r->lang);
        if (!bid) {
            uint32_t dim = b->embed ? b->embed_dim : 0;
            bool have = dim && r->vecs.len == r->pr.nchunks * LP_EMBED_VEC_BYTES(dim);
            lp_status rc = lp_evidence_insert(w->st, r->hash, r->lang, lp_buf_str(&r->content),
                                              lp_buf_str(&r->encoded), &r->pr,
                                              have ? (const uint8_t *)r->vecs.ptr : NULL, dim,
                                              &bid, err);
            if (rc) {
                lp_error_prefix(err, "%s", e->path);
                return rc;
            }
            blob_map_put(&w->fresh, r->hash, (uint32_t)r->lang, bid);
            rep->parsed++;
            if (r->pr.parse_budget) {
                rep->skip_counts[LP_SKIP_PARSE_BUDGET]++;
                lp_log(LP_LOG_WARN, "index.parse_budget",
                       "path=%s over=%s effect=\"indexed as text (no symbols)\"", e->path,
                       r->pr.parse_budget);
            }
        } else {
            rep->reused++;
        }
    } else if (r->kind == RES_REUSE) {
        rep->reused++;
    }
    if (b->rebuild) {
        /* all evidence is new; the counts still compare with the previous generation */
        if (!it->stored)
            rep->added++;
        else if (!it->same_stat && it->stored->lang == r->lang &&
                 lp_hash128_eq(it->stored->hash, r->hash))
            rep->touched++;
        else if (!it->same_stat)
            rep->changed++;
    } else if (!it->stored) {
        rep->added++;
        lp_vec_push(&w->changes, ((lp_graph_change){e->path, 0, 0, bid}));
    } else if (r->kind == RES_SAME) {
        rep->touched++;
    } else {
        rep->changed++;
        lp_vec_push(&w->maybe_orphans, it->stored->bid);
        lp_vec_push(&w->changes, ((lp_graph_change){e->path, it->stored->fid, it->stored->bid, bid}));
    }
    return file_upsert(w, e, bid, err);
}

/* The stat columns of a stored skip agree with rec (NULL columns when rec has none). */
static bool skip_stat_same(sqlite3_stmt *s, int col, const skip_rec *rec)
{
    if (!rec->stat)
        return sqlite3_column_type(s, col) == SQLITE_NULL;
    return sqlite3_column_type(s, col) != SQLITE_NULL &&
           (uint64_t)sqlite3_column_int64(s, col) == rec->stat->size &&
           sqlite3_column_int64(s, col + 1) == rec->stat->mtime_ns &&
           (uint64_t)sqlite3_column_int64(s, col + 2) == rec->stat->ino &&
           (uint32_t)sqlite3_column_int64(s, col + 3) == rec->stat->mode;
}

/* *changed: the skipped paths or reasons differ from the stored ones (evidence changed);
 * *stats_changed: only the stat data kept for binary files differs. */
static lp_status skipped_changed(writer *w, bool *changed, bool *stats_changed, lp_error *err)
{
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(
        w->st, "SELECT path, reason, size, mtime_ns, ino, mode FROM skipped ORDER BY path", &s,
        err);
    if (rc)
        return rc;
    size_t i = 0;
    *changed = *stats_changed = false;
    while (!*changed && sqlite3_step(s) == SQLITE_ROW) {
        const char *p = (const char *)sqlite3_column_text(s, 0);
        if (i >= w->skips.len || strcmp(p, w->skips.items[i].path) != 0 ||
            sqlite3_column_int(s, 1) != (int)w->skips.items[i].reason)
            *changed = true;
        else if (!skip_stat_same(s, 2, &w->skips.items[i]))
            *stats_changed = true;
        i++;
    }
    if (i != w->skips.len)
        *changed = true;
    sqlite3_reset(s);
    return LP_OK;
}

static int skip_cmp(const void *a, const void *b)
{
    return strcmp(((const skip_rec *)a)->path, ((const skip_rec *)b)->path);
}

static lp_status write_skipped(writer *w, lp_error *err)
{
    lp_status rc = lp_store_exec(w->st, "DELETE FROM skipped", err);
    sqlite3_stmt *s;
    for (size_t i = 0; i < w->skips.len && !rc; i++) {
        const skip_rec *k = &w->skips.items[i];
        if ((rc = lp_store_prepare(w->st,
                                   "INSERT OR REPLACE INTO skipped(path, reason, size, mtime_ns,"
                                   " ino, mode) VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
                                   &s, err)))
            break;
        sqlite3_bind_text(s, 1, k->path, -1, SQLITE_STATIC);
        sqlite3_bind_int(s, 2, (int)k->reason);
        if (k->stat) {
            sqlite3_bind_int64(s, 3, (sqlite3_int64)k->stat->size);
            sqlite3_bind_int64(s, 4, k->stat->mtime_ns);
            sqlite3_bind_int64(s, 5, (sqlite3_int64)k->stat->ino);
            sqlite3_bind_int64(s, 6, (sqlite3_int64)k->stat->mode);
        } /* unbound parameters are NULL */
        if (sqlite3_step(s) != SQLITE_DONE)
            rc = lp_store_sql_error(w->st, "recording skipped files", err);
        sqlite3_reset(s);
    }
    return rc;
}

/* The files the current generation skipped as binary, with their stat data, sorted by
 * path (rows from before schema 4 have none and are left out: they are read again). */
static lp_status load_binary_skips(lp_store *st, lp_arena *arena, lp_stored_file **out,
                                   size_t *n, lp_error *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(st,
                                    "SELECT path, size, mtime_ns, ino, mode FROM skipped"
                                    " WHERE reason = ?1 AND size IS NOT NULL ORDER BY path",
                                    &s, err);
    if (rc)
        return rc;
    sqlite3_bind_int(s, 1, (int)LP_SKIP_BINARY);
    LP_VEC(lp_stored_file) v = {0};
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        lp_stored_file *f = lp_vec_push_zero(&v);
        f->path = lp_arena_strdup(arena, (const char *)sqlite3_column_text(s, 0));
        f->size = (uint64_t)sqlite3_column_int64(s, 1);
        f->mtime_ns = sqlite3_column_int64(s, 2);
        f->ino = (uint64_t)sqlite3_column_int64(s, 3);
        f->mode = (uint32_t)sqlite3_column_int64(s, 4);
    }
    if (step != SQLITE_DONE)
        rc = lp_store_sql_error(st, "loading the skipped files", err);
    sqlite3_reset(s);
    if (!rc && v.len) {
        *out = lp_arena_alloc(arena, lp_mul_size(v.len, sizeof *v.items));
        memcpy(*out, v.items, v.len * sizeof *v.items);
        *n = v.len;
    }
    lp_vec_free(&v);
    return rc;
}

static lp_status insert_publication(writer *w, lp_error *err)
{
    lp_index_report *rep = w->rep;
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(
        w->st,
        "SELECT count(*), coalesce(sum(b.size), 0), coalesce(sum(b.nsymbols), 0),"
        " coalesce(sum(b.nchunks), 0) FROM files f JOIN blobs b USING(bid)",
        &s, err);
    if (rc)
        return rc;
    if (sqlite3_step(s) == SQLITE_ROW) {
        rep->files = (uint64_t)sqlite3_column_int64(s, 0);
        rep->bytes_total = (uint64_t)sqlite3_column_int64(s, 1);
        rep->symbols = (uint64_t)sqlite3_column_int64(s, 2);
        rep->chunks = (uint64_t)sqlite3_column_int64(s, 3);
    }
    sqlite3_reset(s);
    lp_fingerprint fp;
    lp_fingerprint_current(&fp);
    uint8_t mk[16];
    lp_hash128_bytes(rep->merkle, mk);
    uint64_t skipped = 0;
    for (int i = 0; i < LP_SKIP_COUNT; i++)
        if (i != LP_SKIP_IGNORED && i != LP_SKIP_PARSE_BUDGET) /* parse_budget is indexed */
            skipped += rep->skip_counts[i];
    if ((rc = lp_store_prepare(w->st,
                               "INSERT INTO publications(id, created_ms, op, fingerprint, merkle,"
                               " files, bytes, symbols, chunks, skipped, partial, duration_ms)"
                               " VALUES((SELECT max(coalesce(max(id), 0), ?12) + 1"
                               " FROM publications), ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                               &s, err)))
        return rc;
    sqlite3_bind_int64(s, 1, lp_wall_ms());
    sqlite3_bind_text(s, 2, lp_index_op_name(rep->op), -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, fp.text, -1, SQLITE_TRANSIENT);
    sqlite3_bind_blob(s, 4, mk, 16, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 5, (sqlite3_int64)rep->files);
    sqlite3_bind_int64(s, 6, (sqlite3_int64)rep->bytes_total);
    sqlite3_bind_int64(s, 7, (sqlite3_int64)rep->symbols);
    sqlite3_bind_int64(s, 8, (sqlite3_int64)rep->chunks);
    sqlite3_bind_int64(s, 9, (sqlite3_int64)skipped);
    sqlite3_bind_int(s, 10, rep->partial ? 1 : 0);
    sqlite3_bind_int64(s, 11, (sqlite3_int64)((lp_now_ns() - w->start_ns) / 1000000));
    sqlite3_bind_int64(s, 12, w->id_floor);
    rc = sqlite3_step(s) == SQLITE_DONE ? LP_OK
                                        : lp_store_sql_error(w->st, "publishing", err);
    sqlite3_reset(s);
    if (!rc)
        rep->publication_id = sqlite3_last_insert_rowid(lp_store_db(w->st));
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * The build. */

const char *lp_index_op_name(lp_index_op op)
{
    return op == LP_INDEX_REINDEX ? "reindex" : op == LP_INDEX_SYNC ? "sync" : "create";
}

/* Descriptors a parse worker holds at most at once: the root, one folder (the
 * component-by-component open on kernels without openat2) and the file. */
#define FDS_PER_WORKER 3
/* Kept free for the writer: the lease note's temporary file, SQLite reopening its journal
 * or a shared-memory file, a connected embedding provider's socket. */
#define FDS_RESERVED 6

/* Workers that fit the open-file limit next to what is open now, at least 1: a low limit
 * gives fewer workers rather than a failed build (a limit too low for one fails cleanly
 * with LP_ELIMIT when a descriptor is refused). */
static unsigned fd_fit(unsigned want)
{
    uint64_t free_now = lp_fd_free();
    if (free_now == UINT64_MAX)
        return want;
    uint64_t fit = free_now > FDS_RESERVED ? (free_now - FDS_RESERVED) / FDS_PER_WORKER : 0;
    if (fit < want) {
        lp_log(LP_LOG_INFO, "index.workers_capped", "wanted=%u fit=%llu free_fds=%llu", want,
               (unsigned long long)fit, (unsigned long long)free_now);
        return fit ? (unsigned)fit : 1;
    }
    return want;
}

/* Memory this process may still use: MemAvailable, the cgroup's room, RLIMIT_AS; the least
 * of those known (0: unknown). */
static uint64_t memory_room(void)
{
    uint64_t room = 0;
    char line[128];
    FILE *f = fopen("/proc/meminfo", "re");
    if (f) {
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
                room = (uint64_t)kb << 10;
        fclose(f);
    }
    unsigned long long max = 0, cur = 0;
    f = fopen("/sys/fs/cgroup/memory.max", "re");
    if (f) {
        if (fscanf(f, "%llu", &max) != 1)
            max = 0; /* "max": no limit */
        fclose(f);
    }
    f = fopen("/sys/fs/cgroup/memory.current", "re");
    if (f) {
        if (fscanf(f, "%llu", &cur) != 1)
            cur = 0;
        fclose(f);
    }
    if (max && max > cur && (!room || max - cur < room))
        room = max - cur;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (!room || (uint64_t)rl.rlim_cur < room))
        room = (uint64_t)rl.rlim_cur;
    return room;
}

/* Parse workers: --threads, else one per CPU (at most 16), but no more than half the
 * memory room can hold at one parse budget each (plus the file and its output): four
 * 8 MiB generated files parsed at once must not take the machine's memory. */
static unsigned worker_count(const lp_index_opts *opts, uint64_t budget_bytes)
{
    if (opts->threads)
        return fd_fit(opts->threads);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned want = n < 1 ? 1 : n > 16 ? 16 : (unsigned)n;
    uint64_t room = memory_room();
    if (budget_bytes && room) {
        uint64_t per = budget_bytes + ((uint64_t)32 << 20);
        uint64_t fit = room / 2 / per;
        if (fit < want) {
            lp_log(LP_LOG_INFO, "index.workers_by_memory", "cpus=%u room_mb=%llu workers=%llu",
                   want, (unsigned long long)(room >> 20),
                   (unsigned long long)(fit ? fit : 1));
            want = fit ? (unsigned)fit : 1;
        }
    }
    return fd_fit(want);
}

/* Rebuild a sync's evidence from nothing when it would touch at least
 * LOUPE_SYNC_REBUILD_PERCENT (default 20) percent of a tree of at least
 * LOUPE_SYNC_REBUILD_MIN_FILES (default 1000) files. Small trees stay incremental: the
 * difference is milliseconds there, and the incremental path keeps its coverage. */
static bool rebuild_pays(size_t stored, size_t touched)
{
    uint64_t pct = lp_setting_u64(LP_SET_SYNC_REBUILD_PERCENT);
    uint64_t min_files = lp_setting_u64(LP_SET_SYNC_REBUILD_MIN_FILES);
    return pct > 0 && stored >= min_files && stored > 0 && touched * 100 >= pct * stored;
}

static uint64_t default_limit(void)
{
    return lp_setting_u64(LP_SET_MAX_TOTAL_BYTES);
}

/* The searchable-byte limit of this build: --max-total-bytes when given (and remembered
 * for the root, in meta, so a later sync or reindex without it keeps the root whole), else
 * the root's remembered limit, else LOUPE_MAX_TOTAL_BYTES, else the default. Runs inside
 * the build's write transaction. */
static lp_status total_limit(lp_store *st, const lp_index_opts *opts, uint64_t *out,
                             lp_error *err)
{
    if (opts->max_total_bytes) {
        *out = opts->max_total_bytes;
        char v[24];
        snprintf(v, sizeof v, "%llu", (unsigned long long)opts->max_total_bytes);
        return lp_store_meta_set(st, "max_total_bytes", v, "remembering the byte limit", err);
    }
    lp_buf t;
    lp_buf_init(&t, 0);
    bool found = false;
    lp_status rc = lp_store_meta_get(st, "max_total_bytes", &t, &found, err);
    uint64_t kept = 0;
    if (!rc && found && !lp_parse_u64(lp_buf_str(&t), &kept))
        kept = 0;
    lp_buf_release(&t);
    if (rc)
        return rc;
    *out = kept ? kept : default_limit();
    return LP_OK;
}


static const char *const db_files[] = {"index.db", "index.db-wal", "index.db-shm"};

/* Remove the root's database files (called with the writer lease held and no connection
 * open): a database that serves nothing (unpublished, or unservable on reindex). */
static void remove_db_files(const char *root)
{
    lp_buf dir, p;
    lp_buf_init(&dir, 0);
    lp_buf_init(&p, 0);
    if (lp_store_root_dir(root, &dir, NULL) == LP_OK) {
        for (size_t i = 0; i < LP_ARRAY_LEN(db_files); i++) {
            lp_buf_reset(&p);
            lp_buf_printf(&p, "%s/%s", dir.ptr, db_files[i]);
            unlink(p.ptr);
        }
        lp_log(LP_LOG_INFO, "index.db_removed", "root=%s dir=%s", root, dir.ptr);
    }
    lp_buf_release(&dir);
    lp_buf_release(&p);
}

/* The highest publication id of root's database, when it can still be read (a damaged file
 * is being replaced: the new one continues its ids, so an old continuation handle can never
 * name a publication of the new file). Else the time in seconds, above any id in practice. */
static int64_t publication_floor(lp_store *st)
{
    int64_t floor = lp_wall_ms() / 1000;
    sqlite3_stmt *s = NULL;
    if (st && sqlite3_prepare_v2(lp_store_db(st), "SELECT max(id) FROM publications", -1, &s,
                                 NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) == SQLITE_INTEGER)
        floor = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return floor;
}

/* Open the writer connection. create and sync refuse a root noted as damaged; after a
 * writer died mid-build the database is checked (quick_check) before anything is built on
 * it. reindex always ends with a sound database: it checks the file in full, and a damaged
 * one (or fresh = true: an in-place rebuild met damage) is moved aside and rebuilt from
 * nothing; an incompatible (newer) schema is replaced. */
static lp_status open_writer(const char *root, const lp_index_opts *opts, lp_lease *lease,
                             bool fresh, lp_store **st, lp_index_report *rep, int64_t *id_floor,
                             lp_error *err)
{
    *id_floor = 0;
    char damage[200] = "";
    bool noted = lp_store_damage_get(root, damage, sizeof damage);
    bool reindex = opts->op == LP_INDEX_REINDEX;
    if (noted && !reindex)
        return lp_store_damaged_error(root, damage, err);
    lp_status rc = lp_store_open(root, LP_STORE_WRITE, st, err);
    if (!rc && (reindex || lp_lease_after_crash(lease))) {
        if (lp_lease_after_crash(lease))
            lp_log(LP_LOG_INFO, "index.check_after_crash", "root=%s", root);
        rc = noted || fresh ? lp_store_damaged_error(root, damage, err)
                            : lp_store_check(*st, reindex, err);
    }
    if (!reindex || (rc != LP_EREINDEX && rc != LP_ECORRUPT))
        return rc;
    /* Unservable anyway: start over (we hold the lease). */
    if (rc == LP_ECORRUPT) {
        *id_floor = publication_floor(*st);
        lp_store_close(*st);
        *st = NULL;
        lp_buf aside;
        lp_buf_init(&aside, 0);
        lp_log(LP_LOG_WARN, "index.rebuild_damaged", "root=%s error=\"%s\"", root, err->msg);
        lp_error_clear(err);
        rc = lp_store_set_aside(root, &aside, err);
        snprintf(rep->set_aside, sizeof rep->set_aside, "%s", aside.ptr ? aside.ptr : "");
        lp_buf_release(&aside);
        if (rc)
            return rc;
        /* What is there now is a new, empty database: if this rebuild stops, the root is
         * simply not indexed, not damaged. */
        lp_store_damage_forget(root);
    } else {
        lp_store_close(*st);
        *st = NULL;
        remove_db_files(root);
    }
    lp_error_clear(err);
    return lp_store_open(root, LP_STORE_WRITE, st, err);
}

/* A build failed for a reason outside the tree (a limit, the disk): say that nothing was
 * published and which publication still serves, when the message has room for it. */
static void say_nothing_published(lp_error *err, int64_t kept)
{
    if (!err)
        return;
    char tail[96];
    if (kept)
        snprintf(tail, sizeof tail, "; nothing was published (publication %lld stays current)",
                 (long long)kept);
    else
        snprintf(tail, sizeof tail, "; nothing was published");
    size_t n = strlen(err->msg), t = strlen(tail);
    if (n + t < sizeof err->msg)
        memcpy(err->msg + n, tail, t + 1);
}

static lp_status build_once(const char *root, const lp_index_opts *opts, bool fresh,
                            lp_index_report *rep, lp_error *err);

/* A cancellation point: LP_ECANCELED once the flag is set (another thread, or a signal
 * handler, may set it at any time). */
static lp_status check_cancel(const char *root, const lp_index_opts *opts, lp_error *err)
{
    if (opts->cancel && __atomic_load_n(opts->cancel, __ATOMIC_RELAXED))
        return lp_error_set(err, LP_ECANCELED, "indexing of %s was cancelled", root);
    return LP_OK;
}

/* Test hook: sleep LOUPE_TEST_PAUSE_<what>_MS milliseconds (tests send a signal then). */
static void test_pause(lp_setting_id var)
{
    uint64_t ms = lp_setting_u64(var);
    if (ms)
        usleep((useconds_t)LP_MIN(ms, 10000u) * 1000u);
}

lp_status lp_index_run(const char *root, const lp_index_opts *opts, lp_index_report *rep,
                       lp_error *err)
{
    lp_status rc = build_once(root, opts, false, rep, err);
    if (rc == LP_ECORRUPT && opts->op == LP_INDEX_REINDEX) {
        /* The database passed its check but a page read during the rebuild was damaged:
         * nothing was committed; start again from an empty file. */
        lp_log(LP_LOG_WARN, "index.reindex_met_damage", "root=%s error=\"%s\"", root, err->msg);
        lp_error_clear(err);
        rc = build_once(root, opts, true, rep, err);
    }
    if (rc == LP_OK && opts->op == LP_INDEX_REINDEX)
        lp_store_damage_forget(root);
    return rc;
}

static lp_status build_once(const char *root, const lp_index_opts *opts, bool fresh,
                            lp_index_report *rep, lp_error *err)
{
    memset(rep, 0, sizeof *rep);
    lp_lang_init();
    uint64_t t0 = lp_now_ns();
    lp_lease *lease = NULL;
    lp_store *st = NULL;
    lp_arena arena;
    lp_arena_init(&arena, 0);
    lp_buf state_dir;
    lp_buf_init(&state_dir, 0);
    blob_map known = {0};
    writer w = {0};
    build b = {0};
    bool in_txn = false;
    lp_scan_result scan = {0};
    lp_stored_file *stored = NULL, *binary = NULL;
    size_t nstored = 0, nbinary = 0;
    LP_VEC(work_item) items = {0};
    lp_publication cur = {0};
    bool first_build = false; /* the database holds no publication: a failure removes it */
    int64_t probed_id = 0;    /* sync: the current publication before the lease was taken */
    LP_VEC(work_item) same = {0}; /* files whose stat agrees (read only by a rebuild) */

    lp_status rc = LP_OK;
    if (opts->op == LP_INDEX_SYNC) {
        /* sync never creates an index: probe without creating anything. */
        lp_store *probe = NULL;
        rc = lp_store_open(root, LP_STORE_READ, &probe, err);
        lp_publication p = {0};
        if (!rc)
            rc = lp_store_current(probe, &p, err);
        lp_store_close(probe);
        probed_id = p.id;
        if (!rc && p.id == 0)
            rc = lp_error_set(err, LP_ENOTINDEXED, "%s is not indexed yet; run 'loupe index %s'",
                              root, root);
        if (rc)
            goto done;
    }
    if ((rc = lp_lease_acquire(root, lp_index_op_name(opts->op), &lease, err)))
        goto done;
    int64_t id_floor = 0;
    if ((rc = open_writer(root, opts, lease, fresh, &st, rep, &id_floor, err)))
        goto done;
    if ((rc = lp_store_current(st, &cur, err)))
        goto done;
    first_build = cur.id == 0;
    rep->op = opts->op == LP_INDEX_CREATE && cur.id ? LP_INDEX_SYNC : opts->op;
    if (cur.id && !lp_publication_compatible(&cur) && opts->op != LP_INDEX_REINDEX) {
        lp_fingerprint_explain(&cur, root, false, err->msg, sizeof err->msg);
        rc = err->code = LP_EREINDEX;
        goto done;
    }
    if ((rc = lp_store_exec(st, "BEGIN IMMEDIATE", err)))
        goto done;
    in_txn = true;
    /* Databases made before the vectors table existed get it here (same transaction). */
    if ((rc = lp_store_schema_complete(st, err)))
        goto done;
    w = (writer){.st = st, .opts = opts, .rep = rep, .lease = lease, .start_ns = t0,
                 .id_floor = id_floor};
    report_progress(&w, "scanning", 0, 0, 0, 0, true);

    if (opts->op == LP_INDEX_REINDEX) {
        if ((rc = lp_evidence_reset_all(st, err)))
            goto done;
    } else {
        if ((rc = lp_index_load_files(st, &arena, &stored, &nstored, err)))
            goto done;
        if ((rc = load_binary_skips(st, &arena, &binary, &nbinary, err)))
            goto done;
        if ((rc = blob_map_load(st, &known, err)))
            goto done;
    }
    /* every blob's references are stored anew: their name indexes are built once, by
     * lp_graph_update, instead of row by row */
    if ((opts->op == LP_INDEX_REINDEX || cur.id == 0) &&
        (rc = lp_graph_evidence_bulk_begin(st, err)))
        goto done;

    if ((rc = lp_store_state_dir(&state_dir, err)))
        goto done;
    lp_scan_opts sopts = {.max_file_bytes = opts->max_file_bytes,
                          .state_dir = state_dir.ptr,
                          .use_default_ignores = true};
    if ((rc = lp_scan_walk(root, &sopts, &arena, &scan, err)))
        goto done;
    rep->ms_scan = (lp_now_ns() - t0) / 1000000;
    for (int i = 0; i < LP_SKIP_COUNT; i++)
        rep->skip_counts[i] = scan.skip_counts[i];
    for (size_t i = 0; i < scan.nskipped; i++)
        lp_vec_push(&w.skips, ((skip_rec){scan.skipped[i].path, scan.skipped[i].reason, NULL}));

    /* Merge-join the walk with the stored generation (both sorted by path): decide what to
     * read, and apply the per-publication byte limit in path order (deterministic). */
    uint64_t limit = 0, admitted = 0;
    if ((rc = total_limit(st, opts, &limit, err)))
        goto done;
    size_t si = 0, bi = 0;
    for (size_t ei = 0; ei < scan.nentries; ei++) {
        const lp_scan_entry *e = &scan.entries[ei];
        while (si < nstored && strcmp(stored[si].path, e->path) < 0) {
            if ((rc = file_delete(&w, &stored[si], err)))
                goto done;
            rep->deleted++;
            si++;
        }
        const lp_stored_file *f =
            si < nstored && strcmp(stored[si].path, e->path) == 0 ? &stored[si++] : NULL;
        if (admitted + e->size > limit) {
            lp_vec_push(&w.skips, ((skip_rec){e->path, LP_SKIP_LIMIT_REACHED, NULL}));
            rep->skip_counts[LP_SKIP_LIMIT_REACHED]++;
            rep->partial = true;
            if (f) {
                if ((rc = file_delete(&w, f, err)))
                    goto done;
                rep->deleted++;
            }
            continue;
        }
        admitted += e->size;
        if (f && lp_index_stat_same(f, e)) {
            rep->unchanged++;
            lp_vec_push(&same, ((work_item){e, f, true}));
            continue;
        }
        while (bi < nbinary && strcmp(binary[bi].path, e->path) < 0)
            bi++;
        if (!f && bi < nbinary && strcmp(binary[bi].path, e->path) == 0 &&
            lp_index_stat_same(&binary[bi], e)) {
            lp_vec_push(&w.skips, ((skip_rec){e->path, LP_SKIP_BINARY, e}));
            rep->skip_counts[LP_SKIP_BINARY]++;
            continue;
        }
        lp_vec_push(&items, ((work_item){e, f, false}));
    }
    for (; si < nstored; si++) {
        if ((rc = file_delete(&w, &stored[si], err)))
            goto done;
        rep->deleted++;
    }
    /* A sync that changes much of a large tree rebuilds its evidence from nothing, like a
     * create: an incremental sync costs the single writer ~4x a create per changed file
     * (the dead blobs' FTS rows are deleted by re-parsing them, the graph is relinked where
     * the changes reach), so past ~25% changed it is slower than starting over
     * (docs/decisions/0011-sync-collect.md). Results are the same either way. */
    if (cur.id && opts->op != LP_INDEX_REINDEX &&
        rebuild_pays(nstored, items.len + rep->deleted)) {
        lp_log(LP_LOG_INFO, "index.sync_rebuild", "root=%s stored=%zu to_read=%zu deleted=%llu",
               root, nstored, items.len, (unsigned long long)rep->deleted);
        if ((rc = lp_evidence_reset_all(st, err)) || (rc = lp_graph_evidence_bulk_begin(st, err)))
            goto done;
        free(known.slots);
        known = (blob_map){0};
        for (size_t i = 0; i < same.len; i++)
            lp_vec_push(&items, same.items[i]);
        b.rebuild = true;
        rep->rebuilt = true;
    }

    /* Workers read, hash and parse; this thread writes. */
    b.root = root;
    b.opts = opts;
    b.max_file_bytes = opts->max_file_bytes ? opts->max_file_bytes : LP_SCAN_MAX_FILE_BYTES;
    b.items = items.items;
    b.nitems = items.len;
    b.known = &known;
    lp_parse_budget_default(&b.parse_opts.budget_bytes, &b.parse_opts.budget_ms);
    {
        /* The dense channel's vectors: only when the model is the one in the fingerprint
         * (lp_embed_register_fingerprint at start-up). Without a model, no vectors. */
        lp_error merr = {0};
        lp_embedder *probe = NULL;
        if (lp_embed_code_vectors_enabled() && lp_embed_default_identity()) {
            if (lp_embedder_default(&probe, &merr) == LP_OK) {
                b.embed = true;
                b.embed_dim = lp_embedder_dim(probe);
            } else {
                lp_log(LP_LOG_WARN, "embed.model_unavailable", "error=\"%s\"", merr.msg);
            }
        }
        lp_embedder_free(probe);
    }
    unsigned want = worker_count(opts, b.parse_opts.budget_bytes);
    if (want > items.len)
        want = items.len ? (unsigned)items.len : 0;
    int thread_err = 0;
    if (want && !lp_pool_start(&b.pool, &worker_ops, &b, items.len, want, QUEUE_MAX_ITEMS,
                               QUEUE_MAX_BYTES, &thread_err)) {
        rc = lp_error_set(err, thread_err == EAGAIN || thread_err == ENOMEM ? LP_ENOMEM : LP_ERROR,
                          "cannot start worker threads (%s): not enough memory or threads; the "
                          "previous publication stays current. Raise the memory limit (ulimit "
                          "-v) or the thread limit",
                          strerror(thread_err));
        goto done;
    }
    uint64_t done_items = 0;
    /* Test hook: slow the writer down so tests can kill or race a build mid-way. */
    uint64_t test_delay_us = lp_setting_u64(LP_SET_TEST_WRITE_DELAY_US);
    result *r;
    while (b.pool && (r = lp_pool_pop(b.pool))) {
        if (test_delay_us)
            usleep((useconds_t)LP_MIN(test_delay_us, 1000000u));
        /* Atomic: another thread (an MCP cancel) may set the flag while this one builds. */
        if (!rc)
            rc = check_cancel(root, opts, err);
        if (!rc)
            rc = write_result(&w, &b, r, err);
        if (rc)
            lp_pool_stop(b.pool);
        result_free(r);
        done_items++;
        report_progress(&w, "indexing", done_items, items.len, rep->bytes_read, 0, false);
    }
    lp_pool_finish(b.pool);
    b.pool = NULL;
    uint64_t t_phase = lp_now_ns();
    rep->ms_write = (t_phase - t0) / 1000000 - rep->ms_scan;
    if (rc)
        goto done;

    /* The code graph: before old evidence is collected (its symbols say what changed). */
    report_progress(&w, "linking", done_items, items.len, rep->bytes_read, 0, true);
    lp_graph_stats gst;
    if ((rc = lp_graph_update(st, w.changes.items, w.changes.len,
                              opts->op == LP_INDEX_REINDEX || cur.id == 0 || b.rebuild, &gst,
                              err)))
        goto done;
    rep->graph_full = gst.full;
    rep->graph_edges = gst.edges;
    rep->graph_refs = gst.refs_resolved;
    rep->ms_graph = gst.ms;
    if ((rc = check_cancel(root, opts, err)))
        goto done;
    report_progress(&w, "collecting", done_items, items.len, rep->bytes_read, 0, true);
    t_phase = lp_now_ns();
    if (!b.rebuild &&
        (rc = lp_index_collect(st, w.maybe_orphans.items, w.maybe_orphans.len,
                               worker_count(opts, b.parse_opts.budget_bytes), &rep->collected,
                               err)))
        goto done;
    if (b.rebuild)
        rep->collected = nstored; /* every old blob went with the reset */
    rep->ms_collect = (lp_now_ns() - t_phase) / 1000000;
    t_phase = lp_now_ns();
    if ((rc = check_cancel(root, opts, err)))
        goto done;
    if (w.skips.len)
        qsort(w.skips.items, w.skips.len, sizeof w.skips.items[0], skip_cmp);
    bool skips_changed = false, skip_stats_changed = false;
    if ((rc = skipped_changed(&w, &skips_changed, &skip_stats_changed, err)))
        goto done;

    bool evidence_changed = rep->added || rep->changed || rep->deleted || skips_changed ||
                            opts->op == LP_INDEX_REINDEX || cur.id == 0;
    if (evidence_changed) {
        report_progress(&w, "publishing", done_items, items.len, rep->bytes_read, 0, true);
        if ((rc = write_skipped(&w, err)))
            goto done;
        /* Merkle root over the final generation. */
        sqlite3_stmt *s;
        if ((rc = lp_store_prepare(st,
                                   "SELECT f.path, b.hash FROM files f JOIN blobs b USING(bid)",
                                   &s, err)))
            goto done;
        LP_VEC(const char *) paths = {0};
        LP_VEC(lp_hash128) hashes = {0};
        lp_arena_mark mark = lp_arena_get_mark(&arena);
        while (sqlite3_step(s) == SQLITE_ROW) {
            lp_vec_push(&paths, lp_arena_strdup(&arena, (const char *)sqlite3_column_text(s, 0)));
            lp_hash128 h = {0, 0};
            if (sqlite3_column_bytes(s, 1) == 16)
                h = lp_hash128_from_bytes(sqlite3_column_blob(s, 1));
            lp_vec_push(&hashes, h);
        }
        sqlite3_reset(s);
        rep->merkle = lp_merkle_root(paths.items, hashes.items, paths.len);
        lp_vec_free(&paths);
        lp_vec_free(&hashes);
        lp_arena_rewind(&arena, mark);
        if ((rc = insert_publication(&w, err)))
            goto done;
        rep->published = true;
    } else {
        /* Only the stat data of binary files moved (a touch): kept for the next sync; the
         * evidence and its publication are unchanged. */
        if (skip_stats_changed && (rc = write_skipped(&w, err)))
            goto done;
        rep->publication_id = cur.id;
        rep->files = (uint64_t)cur.files;
        rep->bytes_total = (uint64_t)cur.bytes;
        rep->symbols = (uint64_t)cur.symbols;
        rep->chunks = (uint64_t)cur.chunks;
        rep->merkle = cur.merkle;
        rep->partial = cur.partial;
    }
    /* Test hook: a crash between the last write and the commit must lose nothing. */
    if (lp_setting_bool(LP_SET_TEST_CRASH_BEFORE_COMMIT))
        abort();
    rep->ms_publish = (lp_now_ns() - t_phase) / 1000000;
    test_pause(LP_SET_TEST_PAUSE_BEFORE_COMMIT_MS);
    t_phase = lp_now_ns();
    /* The last cancellation point: past it the publication is committed and stays. */
    if ((rc = check_cancel(root, opts, err)))
        goto done;
    rc = lp_store_exec(st, "COMMIT", err);
    in_txn = rc != LP_OK;
    if (!rc)
        test_pause(LP_SET_TEST_PAUSE_AFTER_COMMIT_MS);
    if (!rc && evidence_changed)
        lp_store_exec(st, "PRAGMA wal_checkpoint(TRUNCATE)", NULL);
    rep->ms_commit = (lp_now_ns() - t_phase) / 1000000;
done:
    if (rc == LP_ELIMIT || rc == LP_EIO || rc == LP_ENOSPC || rc == LP_ESQL)
        say_nothing_published(err, cur.id ? cur.id : probed_id);
    lp_pool_finish(b.pool); /* stops the workers, frees what they queued */
    lp_vec_free(&items);
    lp_vec_free(&same);
    if (in_txn && st)
        lp_store_exec(st, "ROLLBACK", NULL);
    rep->ms_total = (lp_now_ns() - t0) / 1000000;
    free(known.slots);
    free(w.fresh.slots);
    lp_vec_free(&w.maybe_orphans);
    lp_vec_free(&w.changes);
    lp_vec_free(&w.skips);
    lp_store_close(st);
    /* A first build that failed (a full disk, a limit, a cancel) published nothing: its
     * database, with a WAL that may hold megabytes of uncommitted pages, serves nothing;
     * remove it rather than leave it on a disk that may be full. */
    if (rc && first_build)
        remove_db_files(root);
    lp_lease_release(lease);
    lp_arena_release(&arena);
    lp_buf_release(&state_dir);
    lp_log(rc ? LP_LOG_WARN : LP_LOG_INFO, "index.done",
           "root=%s op=%s status=%s files=%llu parsed=%llu ms=%llu scan_ms=%llu write_ms=%llu"
           " graph_ms=%llu collect_ms=%llu publish_ms=%llu commit_ms=%llu",
           root, lp_index_op_name(opts->op), lp_status_code(rc), (unsigned long long)rep->files,
           (unsigned long long)rep->parsed, (unsigned long long)rep->ms_total,
           (unsigned long long)rep->ms_scan, (unsigned long long)rep->ms_write,
           (unsigned long long)rep->ms_graph, (unsigned long long)rep->ms_collect,
           (unsigned long long)rep->ms_publish, (unsigned long long)rep->ms_commit);
    return rc;
}
