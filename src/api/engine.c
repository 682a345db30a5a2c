/*
 * engine.c: the engine handle of src/loupe.h. It reads the configuration once (config.c),
 * installs it as the process's settings, registers the embedding identity in the
 * fingerprint, resolves the state folder, and owns a pool of read connections. Every
 * capability is one call: the open -> pin -> check -> run sequence lives here once, and
 * the CLI renders what these calls return.
 *
 * Invariants: an engine's strings (state folder, fingerprint, setting texts) never change
 * after lp_engine_new; results own their memory (one arena each, the result struct at its
 * start), so they outlive the engine; lp_error leaves every public call with `reason` set.
 */
#include "api/api.h"

#include "core/json.h"
#include "embed/embed.h"
#include "lang/lang.h"

#include <pthread.h>
#include <unistd.h>

#define ENGINE_POOL_IDLE 4
#define SEARCH_LIMIT_DEFAULT 10u
#define SEARCH_LIMIT_MAX 200u
#define SEARCH_FROZEN_MIN 50u

struct lp_engine {
    lp_arena arena; /* the engine's own strings (filled in lp_engine_new only) */
    const lp_settings_snap *settings;
    const char *state_dir; /* NULL when it cannot be found (lenient engines only) */
    char state_dir_error[LP_ERROR_MSG_MAX];
    lp_fingerprint fingerprint;
    lp_store_pool *pool;
    const char *setting_text[LP_SET_COUNT];
};

/* Process-wide set-up the modules need once (idempotent). */
static pthread_once_t process_once = PTHREAD_ONCE_INIT;
static void process_init(void)
{
    lp_json_init();
    lp_lang_init(); /* tree-sitter allocates through lp_xmalloc (clean out-of-memory exit) */
}

static lp_status finish(lp_status rc, lp_error *err)
{
    if (rc && err) {
        if (!err->code)
            err->code = rc;
        lp_error_finish(err);
    }
    return rc;
}

lp_status lp_engine_open(const lp_config *cfg, bool lenient, lp_engine **out, lp_error *err)
{
    *out = NULL;
    lp_settings_snap *snap = NULL;
    lp_status rc = lp_config_snapshot(cfg, &snap, err);
    if (rc)
        return finish(rc, err);
    pthread_once(&process_once, process_init);
    lp_engine *e = lp_xcalloc(1, sizeof *e);
    lp_arena_init(&e->arena, 0);
    e->settings = lp_settings_install(snap);
    lp_log_init_from_env(); /* LOUPE_LOG, now from the settings */
    /* The engine owns the embedding identity: the fingerprint every build writes and every
     * read checks is the same for the CLI and a library caller. */
    lp_embed_register_fingerprint();
    lp_fingerprint_current(&e->fingerprint);
    lp_buf dir;
    lp_buf_init(&dir, 0);
    lp_error derr = {0};
    if (lp_settings_state_dir(&dir, &derr) == LP_OK) {
        e->state_dir = lp_arena_strdup(&e->arena, dir.ptr);
    } else if (!lenient) {
        lp_buf_release(&dir);
        if (err)
            *err = derr;
        lp_error_set_reason(err, "state_folder");
        lp_engine_free(e);
        return finish(derr.code, err);
    } else {
        snprintf(e->state_dir_error, sizeof e->state_dir_error, "%s", derr.msg);
    }
    lp_buf_release(&dir);
    e->pool = lp_store_pool_new(ENGINE_POOL_IDLE);
    for (size_t i = 0; i < LP_SET_COUNT; i++) {
        const lp_setting_def *d = lp_setting_def_of((lp_setting_id)i);
        const char *v = e->settings->val[i];
        if (v && (d->flags & LP_SETTING_SECRET))
            v = "(set)";
        else if (!v)
            v = d->type == LP_SETTING_BOOL ? (d->dflt[0] == '1' ? "true" : "false") : d->dflt;
        e->setting_text[i] = lp_arena_strdup(&e->arena, v);
    }
    *out = e;
    return LP_OK;
}

lp_status lp_engine_new(const lp_config *cfg, lp_engine **out, lp_error *err)
{
    return lp_engine_open(cfg, false, out, err);
}

void lp_engine_free(lp_engine *e)
{
    if (!e)
        return;
    lp_store_pool_free(e->pool);
    lp_arena_release(&e->arena);
    free(e);
}

int lp_engine_abi_version(void) { return LOUPE_ABI_VERSION; }
const char *lp_engine_version(void) { return LOUPE_VERSION; }
const char *lp_engine_state_dir(const lp_engine *e) { return e->state_dir; }
const char *lp_engine_fingerprint(const lp_engine *e) { return e->fingerprint.text; }

const char *lp_engine_setting(const lp_engine *e, const char *name)
{
    lp_setting_id id;
    if (!name || !lp_setting_find(name, &id))
        return NULL;
    return e->setting_text[id];
}

/* ------------------------------------------------------------------------------------------
 * Roots. */

lp_status lp_engine_root_for(lp_engine *e, const char *path, bool must_be_indexed,
                             bool allow_broad, lp_buf *root_out, lp_error *err)
{
    (void)e;
    lp_buf abs;
    lp_buf_init(&abs, 0);
    lp_status rc;
    if (!path) {
        char cwd[LP_PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) {
            rc = lp_error_set(err, LP_EIO, "cannot read the current folder");
            goto done;
        }
        rc = lp_path_real(cwd, &abs, err);
    } else {
        rc = lp_path_real(path, &abs, err);
    }
    if (rc)
        goto done;
    if (must_be_indexed)
        rc = lp_store_find_root(abs.ptr, root_out, err);
    else
        rc = lp_index_resolve_root(abs.ptr, allow_broad, root_out, err);
done:
    lp_buf_release(&abs);
    return rc;
}

/* ------------------------------------------------------------------------------------------
 * Results: one arena each, the struct first in it. */

typedef struct owned {
    lp_arena arena;
    union {
        lp_engine_index_result index;
        lp_engine_search_result search;
        lp_engine_status_result status;
    } u;
} owned;

static owned *owned_new(void)
{
    owned *o = lp_xcalloc(1, sizeof *o);
    lp_arena_init(&o->arena, 0);
    return o;
}

static void owned_free(void *res)
{
    if (!res)
        return;
    owned *o = (owned *)((char *)res - offsetof(owned, u));
    lp_arena_release(&o->arena);
    free(o);
}

void lp_engine_index_result_free(lp_engine_index_result *r) { owned_free(r); }
void lp_engine_search_result_free(lp_engine_search_result *r) { owned_free(r); }
void lp_engine_status_result_free(lp_engine_status_result *r) { owned_free(r); }

static const char *astr(lp_arena *a, const char *s) { return s ? lp_arena_strdup(a, s) : NULL; }

/* ------------------------------------------------------------------------------------------
 * Indexing. */

lp_status lp_engine_index_run(lp_engine *e, const char *root, const lp_index_opts *opts,
                              lp_index_report *rep, lp_error *err)
{
    (void)e;
    return lp_index_run(root, opts, rep, err);
}

static void progress_relay(void *ctx, const lp_index_progress *p)
{
    const lp_engine_index_request *req = ctx;
    req->progress(req->progress_ctx, p->phase, p->files_done, p->files_total);
}

lp_status lp_engine_index(lp_engine *e, const lp_engine_index_request *req,
                          lp_engine_index_result **out, lp_error *err)
{
    *out = NULL;
    if (!req || !req->path)
        return finish(lp_error_set(err, LP_EINVAL, "lp_engine_index needs a path"), err);
    if ((unsigned)req->op > (unsigned)LP_ENGINE_REINDEX)
        return finish(lp_error_set(err, LP_EINVAL, "unknown index operation %d", (int)req->op),
                      err);
    lp_buf root;
    lp_buf_init(&root, 0);
    lp_status rc = lp_engine_root_for(e, req->path, false, req->allow_broad_root, &root, err);
    lp_index_report rep;
    memset(&rep, 0, sizeof rep);
    if (!rc) {
        lp_index_opts opts = {.op = (lp_index_op)req->op,
                              .allow_broad_root = req->allow_broad_root,
                              .max_total_bytes = req->max_total_bytes,
                              .threads = req->threads,
                              .cancel = req->cancel,
                              .progress = req->progress ? progress_relay : NULL,
                              .progress_ctx = (void *)req};
        rc = lp_engine_index_run(e, root.ptr, &opts, &rep, err);
    }
    if (!rc) {
        owned *o = owned_new();
        lp_engine_index_result *r = &o->u.index;
        r->root = astr(&o->arena, root.ptr);
        r->publication_id = rep.publication_id;
        r->published = rep.published;
        r->partial = rep.partial;
        r->files = rep.files;
        r->added = rep.added;
        r->changed = rep.changed;
        r->deleted = rep.deleted;
        r->unchanged = rep.unchanged;
        r->symbols = rep.symbols;
        r->chunks = rep.chunks;
        r->ms_total = rep.ms_total;
        *out = r;
    }
    lp_buf_release(&root);
    return finish(rc, err);
}

/* ------------------------------------------------------------------------------------------
 * Search. */

lp_status lp_engine_search_run(lp_engine *e, const char *root, const lp_search_request *req,
                               uint32_t show, lp_arena *arena, lp_search_result *res,
                               lp_buf *handle, bool *no_continuation, lp_error *err)
{
    lp_store *st = NULL;
    *no_continuation = false;
    lp_buf_reset(handle);
    memset(res, 0, sizeof *res);
    lp_status rc = lp_store_pool_take(e->pool, root, &st, err);
    if (!rc)
        rc = lp_store_pin(st, err);
    if (rc) {
        lp_store_pool_give(e->pool, st);
        return rc;
    }
    lp_publication pub;
    rc = lp_store_current(st, &pub, err);
    if (!rc && pub.id == 0) {
        rc = lp_error_set(err, LP_ENOTINDEXED, "%s has no publication yet; run 'loupe index'",
                          root);
    } else if (!rc && !lp_publication_compatible(&pub)) {
        lp_error tmp = {0};
        lp_fingerprint_explain(&pub, root, false, tmp.msg, sizeof tmp.msg);
        rc = lp_error_set(err, LP_EREINDEX, "%s", tmp.msg);
    }
    if (!rc)
        rc = lp_search_run(st, req, arena, res, err);
    if (!rc && res->ngroups > show) {
        /* A continuation that cannot be written (a full disk) is a warning: the search
         * itself read nothing it could not read. */
        lp_error ferr = {0};
        if (lp_search_freeze(root, req, res, show, show, handle, NULL, &ferr) != LP_OK) {
            lp_search_continuation_unavailable(res, arena, (size_t)show, &ferr);
            lp_buf_reset(handle);
            *no_continuation = true;
        }
    }
    lp_store_unpin(st);
    lp_store_pool_give(e->pool, st);
    return rc;
}

lp_status lp_engine_search(lp_engine *e, const lp_engine_search_request *req,
                           lp_engine_search_result **out, lp_error *err)
{
    *out = NULL;
    if (!req || !req->path || !req->query)
        return finish(lp_error_set(err, LP_EINVAL, "lp_engine_search needs a path and a query"),
                      err);
    uint32_t limit = req->limit ? req->limit : SEARCH_LIMIT_DEFAULT;
    if (limit > SEARCH_LIMIT_MAX)
        return finish(lp_error_set(err, LP_EINVAL, "limit is at most %u, not %u",
                                   SEARCH_LIMIT_MAX, limit),
                      err);
    lp_search_request sreq = {.query = req->query, .limit = LP_MAX(limit, SEARCH_FROZEN_MIN)};
    lp_status rc = lp_search_scope_parse(lp_str_c(req->scope ? req->scope : "runtime"),
                                         &sreq.scope, err);
    if (!rc)
        rc = lp_search_grouping_parse(lp_str_c(req->group ? req->group : "owner"), &sreq.group,
                                      err);
    if (rc)
        return finish(rc, err);
    lp_buf root, handle;
    lp_buf_init(&root, 0);
    lp_buf_init(&handle, 0);
    owned *o = owned_new();
    lp_search_result res;
    bool no_cont = false;
    rc = lp_engine_root_for(e, req->path, true, false, &root, err);
    if (!rc)
        rc = lp_engine_search_run(e, root.ptr, &sreq, limit, &o->arena, &res, &handle, &no_cont,
                                  err);
    if (!rc) {
        lp_arena *a = &o->arena;
        lp_engine_search_result *r = &o->u.search;
        r->root = astr(a, root.ptr);
        r->publication_id = res.publication_id;
        r->confidence = res.confidence;
        r->total = res.ngroups;
        r->nhits = LP_MIN(res.ngroups, (size_t)limit);
        lp_engine_hit *hits = lp_arena_alloc(a, (r->nhits ? r->nhits : 1) * sizeof *hits);
        memset(hits, 0, (r->nhits ? r->nhits : 1) * sizeof *hits);
        for (size_t i = 0; i < r->nhits; i++) {
            const lp_search_group *g = &res.groups[i];
            lp_engine_hit *h = &hits[i];
            h->rank = g->rank;
            h->score = g->score;
            h->file = g->owner.file; /* in the arena already */
            h->start_line = g->owner.start_line;
            h->end_line = g->owner.end_line;
            h->symbol = g->owner.symbol;
            h->qualified_name = g->owner.qname;
            h->kind = g->live ? "region" : g->owner.kind;
            h->id = g->owner.id[0] ? astr(a, g->owner.id) : NULL;
            h->breadcrumbs = g->breadcrumbs && *g->breadcrumbs ? g->breadcrumbs : NULL;
            h->snippet = g->snippet ? g->snippet : "";
            h->snippet_start_line = g->snippet_start_line;
            h->stale = g->stale;
        }
        r->hits = hits;
        r->nwarnings = res.nwarnings;
        r->warnings = res.warnings;
        r->continuation = handle.len ? astr(a, handle.ptr) : NULL;
        *out = r;
    } else {
        owned_free(&o->u);
    }
    lp_buf_release(&root);
    lp_buf_release(&handle);
    return finish(rc, err);
}

/* ------------------------------------------------------------------------------------------
 * Status. */

lp_status lp_engine_status(lp_engine *e, const char *path, bool check_fresh,
                           lp_engine_status_result **out, lp_error *err)
{
    *out = NULL;
    if (!path)
        return finish(lp_error_set(err, LP_EINVAL, "lp_engine_status needs a path"), err);
    lp_buf root;
    lp_buf_init(&root, 0);
    lp_status rc = lp_engine_root_for(e, path, true, false, &root, err);
    lp_index_status s;
    memset(&s, 0, sizeof s);
    if (rc == LP_ENOTINDEXED) {
        /* Not under any indexed root: an answer (not_indexed), not an error. */
        lp_error_clear(err);
        lp_buf_reset(&root);
        rc = lp_engine_root_for(e, path, false, true, &root, err);
        s.state = LP_STATE_NOT_INDEXED;
    } else if (!rc) {
        rc = lp_index_status_get(root.ptr, check_fresh, &s, err);
    }
    if (!rc) {
        owned *o = owned_new();
        lp_engine_status_result *r = &o->u.status;
        r->root = astr(&o->arena, root.ptr);
        r->state = lp_index_state_name(s.state);
        r->publication_id = s.pub.id;
        r->published_ms = s.pub.created_ms;
        r->files = s.pub.files > 0 ? (uint64_t)s.pub.files : 0;
        r->freshness_checked = s.freshness_checked;
        r->changed = s.changed;
        r->added = s.added;
        r->deleted = s.deleted;
        *out = r;
    }
    lp_buf_release(&root);
    return finish(rc, err);
}
