/*
 * tools_common.c: what the index tools share: the server-wide lp_tools (operations and the
 * freshness cache), argument access, root resolution that fails closed, the per-call pin,
 * and the envelope pieces every answer carries.
 *
 * Freshness costs a walk of the tree (stat only; about 25 ms for the 8,000 files of the Go
 * source tree on this machine), too much for every search. It is cached per root for
 * LOUPE_FRESHNESS_TTL_MS (default 2 s) together with the publication it was compared with;
 * concurrent callers for one root share one walk (single flight). A sync made by this
 * server records the root as fresh for its new publication.
 */
#include "mcp/tools_int.h"
#include "core/settings.h"

#include <sys/stat.h>

#define FRESH_SLOTS 32

typedef struct fresh_entry {
    char *root; /* NULL: free slot */
    lp_fresh value;
    bool walking;
    int64_t used_ms;
} fresh_entry;

/* Idle read connections kept between requests: each worker's request reuses a connection
 * whose SQLite page cache is warm (16 MiB bound each, so at most 64 MiB). */
#define POOL_IDLE_MAX 4

struct lp_tools {
    lp_ops *ops;
    lp_store_pool *pool;
    pthread_mutex_t mu;
    pthread_cond_t walked;
    fresh_entry fresh[FRESH_SLOTS];
    unsigned fresh_ttl_ms;
    bool auto_sync;
    unsigned auto_sync_wait_ms;
};


static void op_done(void *ctx, const lp_op_info *op)
{
    lp_tools *t = ctx;
    if (op->state == LP_OP_SUCCEEDED)
        lp_tools_freshness_set(t, op->root, op->report.publication_id);
    else
        lp_tools_freshness_forget(t, op->root);
}

lp_tools *lp_tools_new(void)
{
    lp_tools *t = lp_xcalloc(1, sizeof *t);
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->walked, NULL);
    t->ops = lp_ops_new(op_done, t);
    t->pool = lp_store_pool_new(POOL_IDLE_MAX);
    /* settings (core/settings.h): the table holds the defaults and bounds */
    t->fresh_ttl_ms = (unsigned)lp_setting_u64(LP_SET_FRESHNESS_TTL_MS);
    t->auto_sync = lp_setting_bool(LP_SET_AUTO_SYNC);
    t->auto_sync_wait_ms = (unsigned)lp_setting_u64(LP_SET_AUTO_SYNC_WAIT_MS);
    return t;
}

void lp_tools_free(void *tools)
{
    lp_tools *t = tools;
    if (!t)
        return;
    lp_ops_free(t->ops); /* joins the builds: nothing calls op_done after this */
    lp_store_pool_free(t->pool);
    for (size_t i = 0; i < FRESH_SLOTS; i++)
        free(t->fresh[i].root);
    pthread_cond_destroy(&t->walked);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

lp_ops *lp_tools_ops(lp_tools *t) { return t->ops; }

bool lp_tools_auto_sync(const lp_tools *t, unsigned *wait_ms)
{
    *wait_ms = t->auto_sync_wait_ms;
    return t->auto_sync;
}

lp_tools *lp_tools_of(lp_mcp_call *call) { return lp_mcp_call_user(call); }

/* ------------------------------------------------------------------------------------------
 * Freshness cache. */

/* Under mu. */
static fresh_entry *fresh_find(lp_tools *t, const char *root)
{
    for (size_t i = 0; i < FRESH_SLOTS; i++)
        if (t->fresh[i].root && !strcmp(t->fresh[i].root, root))
            return &t->fresh[i];
    return NULL;
}

/* Under mu: the entry of root, taking a free or the least recently used idle slot. NULL
 * when every slot is busy walking. */
static fresh_entry *fresh_slot(lp_tools *t, const char *root)
{
    fresh_entry *e = fresh_find(t, root);
    if (e)
        return e;
    fresh_entry *victim = NULL;
    for (size_t i = 0; i < FRESH_SLOTS; i++) {
        fresh_entry *c = &t->fresh[i];
        if (!c->root) {
            victim = c;
            break;
        }
        if (!c->walking && (!victim || c->used_ms < victim->used_ms))
            victim = c;
    }
    if (!victim)
        return NULL;
    free(victim->root);
    memset(victim, 0, sizeof *victim);
    victim->root = lp_xstrdup(root);
    return victim;
}

static bool usable(const lp_tools *t, const fresh_entry *e, int64_t pub_id, int64_t now)
{
    return e->value.known && e->value.publication_id >= pub_id &&
           now - e->value.checked_ms < (int64_t)t->fresh_ttl_ms;
}

lp_status lp_tools_freshness(lp_tools *t, const char *root, int64_t pub_id, bool may_walk,
                             lp_fresh *out, lp_error *err)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&t->mu);
    fresh_entry *e;
    for (;;) {
        e = fresh_slot(t, root);
        if (!e) {
            pthread_cond_wait(&t->walked, &t->mu);
            continue;
        }
        e->used_ms = lp_wall_ms();
        if (usable(t, e, pub_id, lp_wall_ms())) {
            *out = e->value;
            pthread_mutex_unlock(&t->mu);
            return LP_OK;
        }
        if (!may_walk) {
            pthread_mutex_unlock(&t->mu);
            return LP_OK;
        }
        if (!e->walking)
            break;
        pthread_cond_wait(&t->walked, &t->mu); /* another call walks this root: share it */
    }
    e->walking = true;
    pthread_mutex_unlock(&t->mu);

    lp_index_status s;
    int64_t started = lp_wall_ms();
    uint64_t t0 = lp_now_ns();
    lp_status rc = lp_index_status_get(root, true, &s, err);
    lp_log(LP_LOG_DEBUG, "mcp.freshness.walk", "root=%s ms=%.1f status=%s", root,
           (double)(lp_now_ns() - t0) / 1e6, lp_status_code(rc));

    pthread_mutex_lock(&t->mu);
    e = fresh_find(t, root); /* walking entries are never evicted */
    e->walking = false;
    if (!rc && s.freshness_checked) {
        e->value.known = true;
        e->value.publication_id = s.pub.id;
        e->value.changed = s.changed;
        e->value.added = s.added;
        e->value.deleted = s.deleted;
        lp_utf8_copy(e->value.sample, sizeof e->value.sample, s.sample_changed);
        e->value.checked_ms = started;
        *out = e->value;
    }
    pthread_cond_broadcast(&t->walked);
    pthread_mutex_unlock(&t->mu);
    return rc;
}

void lp_tools_freshness_set(lp_tools *t, const char *root, int64_t pub_id)
{
    pthread_mutex_lock(&t->mu);
    fresh_entry *e = fresh_slot(t, root);
    if (e && !e->walking) {
        memset(&e->value, 0, sizeof e->value);
        e->value.known = true;
        e->value.publication_id = pub_id;
        e->value.checked_ms = lp_wall_ms();
        e->used_ms = e->value.checked_ms;
    }
    pthread_mutex_unlock(&t->mu);
}

void lp_tools_freshness_forget(lp_tools *t, const char *root)
{
    pthread_mutex_lock(&t->mu);
    fresh_entry *e = fresh_find(t, root);
    if (e && !e->walking)
        memset(&e->value, 0, sizeof e->value);
    pthread_mutex_unlock(&t->mu);
}

/* ------------------------------------------------------------------------------------------
 * Arguments and failures. */

const char *lp_tools_arg_str(lp_mcp_call *call, const char *name)
{
    /* pathBytes, when given, is the path (it can name bytes that are not UTF-8). */
    if (!strcmp(name, "path") && lp_mcp_call_path_bytes(call))
        return lp_mcp_call_path_bytes(call);
    return json_string_value(json_object_get(lp_mcp_call_args(call), name));
}

uint32_t lp_tools_arg_uint(lp_mcp_call *call, const char *name, uint32_t dflt)
{
    json_t *v = json_object_get(lp_mcp_call_args(call), name);
    if (!json_is_number(v))
        return dflt;
    double d = json_number_value(v);
    return d < 0 ? 0 : d > (double)UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

bool lp_tools_arg_present(lp_mcp_call *call, const char *name)
{
    json_t *v = json_object_get(lp_mcp_call_args(call), name);
    return v && !json_is_null(v);
}

lp_status lp_tools_fail(lp_mcp_call *call, const char *code, lp_status status, lp_error *err,
                        const char *fmt, ...)
{
    lp_mcp_call_set_error_code(call, code);
    va_list ap;
    va_start(ap, fmt);
    lp_error_setv(err, status, fmt, ap);
    va_end(ap);
    return status;
}

/* ------------------------------------------------------------------------------------------
 * Roots and pins. */

static bool has_dotdot(const char *p)
{
    for (const char *s = p; *s;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return true;
        s += n + (e ? 1 : 0);
    }
    return false;
}

lp_status lp_tools_root_of(lp_mcp_call *call, const char *path, lp_buf *root, lp_buf *rel,
                           lp_error *err)
{
    lp_buf real, state;
    lp_buf_init(&real, 0);
    lp_buf_init(&state, 0);
    lp_status rc = LP_OK;
    lp_str rest;
    if (!path || !*path) {
        rc = lp_tools_fail(call, "invalid_argument", LP_EINVAL, err,
                           "'path' is empty; give the absolute path of the codebase (or of a "
                           "file or folder inside it)");
        goto done;
    }
    if (strlen(path) > LP_PATH_MAX) {
        rc = lp_error_set(err, LP_EPATH, "'path' is longer than %d bytes", LP_PATH_MAX);
        goto done;
    }
    if (path[0] != '/') {
        rc = lp_error_set(err, LP_EPATH,
                          "'%s' is relative; give an absolute path (the codebase root is listed "
                          "by list_codebases)",
                          path);
        goto done;
    }
    if (has_dotdot(path)) {
        rc = lp_error_set(err, LP_EPATH,
                          "paths with '..' are refused; give the absolute path without '..'");
        goto done;
    }
    rc = lp_path_real(path, &real, err);
    if (rc) {
        if (rc == LP_ENOENT)
            rc = lp_error_set(err, LP_ENOENT,
                              "%s does not exist; give an existing absolute path (list_codebases "
                              "lists the indexed roots)",
                              path);
        goto done;
    }
    if ((rc = lp_store_state_dir(&state, err)))
        goto done;
    if (lp_path_under(lp_buf_str(&state), lp_buf_str(&real), &rest)) {
        rc = lp_error_set(err, LP_EPATH, "%s is inside loupe's state folder, which is not served",
                          path);
        goto done;
    }
    rc = lp_store_find_root(real.ptr, root, err);
    if (rc == LP_ENOTINDEXED) {
        struct stat sb;
        bool dir = stat(real.ptr, &sb) == 0 && S_ISDIR(sb.st_mode);
        rc = lp_tools_fail(call, "not_indexed", LP_ENOTINDEXED, err,
                           "%s is not inside an indexed codebase; index it first with "
                           "manage_index {action: \"create\", path: \"%s\"}%s",
                           real.ptr, dir ? real.ptr : "<the repository folder>",
                           dir ? "" : " (the folder of the repository that holds this file)");
        goto done;
    }
    if (rc)
        goto done;
    lp_path_under(lp_buf_str(root), lp_buf_str(&real), &rest);
    if (rel) {
        lp_buf_reset(rel);
        lp_buf_put_str(rel, rest);
    }
done:
    lp_buf_release(&real);
    lp_buf_release(&state);
    return rc;
}

typedef struct pooled_pin {
    lp_store_pool *pool;
    lp_store *st;
} pooled_pin;

static void release_pin(void *pin)
{
    pooled_pin *pp = pin;
    lp_store_unpin(pp->st);
    lp_store_pool_give(pp->pool, pp->st);
    free(pp);
}

lp_status lp_tools_open(lp_mcp_call *call, const char *root, lp_store **st_out, lp_publication *pub,
                        lp_error *err)
{
    *st_out = NULL;
    memset(pub, 0, sizeof *pub);
    lp_tools *t = lp_tools_of(call);
    lp_store *st = NULL;
    lp_status rc = lp_store_pool_take(t->pool, root, &st, err);
    if (!rc) {
        rc = lp_store_pin(st, err);
        if (rc) {
            lp_store_close(st);
            return rc;
        }
        pooled_pin *pp = lp_xmalloc(sizeof *pp);
        *pp = (pooled_pin){t->pool, st};
        lp_mcp_call_set_pin(call, pp, release_pin);
        rc = lp_store_current(st, pub, err);
        if (rc)
            return rc;
    }
    if (rc == LP_EREINDEX || (!rc && pub->id && !lp_publication_compatible(pub))) {
        char why[LP_ERROR_MSG_MAX];
        lp_fingerprint_explain(pub, root, true, why, sizeof why);
        return lp_tools_fail(call, "requires_reindex", LP_EREINDEX, err, "%s", why);
    }
    if (rc == LP_ECORRUPT) {
        char what[200];
        if (!lp_store_damage_get(root, what, sizeof what))
            snprintf(what, sizeof what, "%.*s", (int)sizeof what - 1, err->msg);
        return lp_tools_fail(call, "damaged", LP_ECORRUPT, err,
                             "the index database of %s is damaged (%s) and is not served; "
                             "rebuild it with manage_index {action: \"reindex\", path: \"%s\"} "
                             "(the damaged file is kept aside)",
                             root, what, root);
    }
    if (rc && rc != LP_ENOTINDEXED)
        return rc;
    if (rc == LP_ENOTINDEXED || pub->id == 0) {
        lp_op_info op;
        if (lp_ops_running(t->ops, root, &op))
            return lp_tools_fail(call, "indexing", LP_ENOTINDEXED, err,
                                 "the first index of %s is being built (operation %s, phase %s, "
                                 "%llu of %llu files); follow it with manage_index {action: "
                                 "\"status\", operationId: \"%s\"} and retry when it is ready",
                                 root, op.id, op.phase, (unsigned long long)op.files_done,
                                 (unsigned long long)op.files_total, op.id);
        lp_lease_info lease;
        if (lp_lease_inspect(root, &lease, NULL) == LP_OK && lease.held)
            return lp_tools_fail(call, "indexing", LP_ENOTINDEXED, err,
                                 "the first index of %s is being built by another loupe process "
                                 "(pid %ld, phase %s, %llu of %llu files); follow it with "
                                 "manage_index {action: \"status\", path: \"%s\"}",
                                 root, lease.pid, lease.phase, (unsigned long long)lease.files_done,
                                 (unsigned long long)lease.files_total, root);
        return lp_tools_fail(call, "not_indexed", LP_ENOTINDEXED, err,
                             "%s has no index yet; build it with manage_index {action: "
                             "\"create\", path: \"%s\"}",
                             root, root);
    }
    *st_out = st;
    return LP_OK;
}

/* ------------------------------------------------------------------------------------------
 * Envelope pieces. */

json_t *lp_tools_envelope(const char *root, const lp_publication *pub, const char *state)
{
    json_t *env = lp_mcp_envelope_new(root);
    lp_mcp_envelope_set_publication(env, pub && pub->id ? pub->id : -1,
                                    pub && pub->id ? pub->created_ms : -1, state);
    return env;
}

bool lp_tools_envelope_freshness(json_t *env, const char *root, int64_t pub_id, const lp_fresh *f)
{
    if (!f->known) {
        lp_mcp_envelope_set_freshness(env, "unknown", -1);
        return false;
    }
    bool newer = f->publication_id > pub_id;
    uint64_t n = f->changed + f->added + f->deleted;
    if (newer) {
        lp_mcp_envelope_set_freshness(env, LP_MCP_STATE_STALE, -1);
        lp_mcp_envelope_warn(env, LP_WARN_NEWER_PUBLICATION,
                             "publication %lld of %s became current while this answer was read "
                             "from publication %lld; ask again for the newer evidence",
                             (long long)f->publication_id, root, (long long)pub_id);
        return true;
    }
    if (n == 0) {
        lp_mcp_envelope_set_freshness(env, "fresh", 0);
        return false;
    }
    lp_mcp_envelope_set_freshness(env, LP_MCP_STATE_STALE, (int64_t)n);
    lp_mcp_envelope_warn(env, LP_WARN_INDEX_STALE,
                         "%llu file(s) changed on disk since publication %lld (%llu changed, %llu "
                         "added, %llu deleted; e.g. %s); answers show the indexed version. "
                         "Bring the index up to date with manage_index {action: \"sync\"}",
                         (unsigned long long)n, (long long)pub_id, (unsigned long long)f->changed,
                         (unsigned long long)f->added, (unsigned long long)f->deleted, f->sample);
    json_t *args = json_object();
    json_object_set_new(args, "action", json_string("sync"));
    lp_json_set_path(args, "path", root, strlen(root));
    lp_mcp_envelope_next_action(env, "manage_index", args);
    return true;
}

void lp_tools_warn_writer(lp_tools *t, json_t *env, const char *root)
{
    lp_op_info op;
    if (lp_ops_running(t->ops, root, &op)) {
        lp_mcp_envelope_warn(env, LP_WARN_INDEXING_IN_PROGRESS,
                             "operation %s (%s) is building a new publication of this codebase "
                             "(phase %s, %llu of %llu files); this answer comes from the current "
                             "one",
                             op.id, lp_index_op_name(op.kind), op.phase,
                             (unsigned long long)op.files_done, (unsigned long long)op.files_total);
        return;
    }
    lp_lease_info lease;
    if (lp_lease_inspect(root, &lease, NULL) == LP_OK && lease.held)
        lp_mcp_envelope_warn(env, LP_WARN_INDEXING_IN_PROGRESS,
                             "another loupe process (pid %ld) is running '%s' on this codebase "
                             "(phase %s); this answer comes from the current publication",
                             lease.pid, lease.op, lease.phase);
}

void lp_tools_warn_coded(json_t *env, const char *coded)
{
    const char *colon = strstr(coded, ": ");
    if (!colon) {
        lp_mcp_envelope_warn_raw(env, "warning", coded); /* a warning without a code: a bug */
        return;
    }
    char code[64];
    snprintf(code, sizeof code, "%.*s",
             (int)lp_utf8_cut(coded, (size_t)(colon - coded), sizeof code - 1), coded);
    lp_mcp_envelope_warn_raw(env, code, colon + 2);
}

void lp_tools_number_lines(const char *text, uint32_t first, lp_buf *out)
{
    uint32_t line = first;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        lp_buf_printf(out, "%u| ", line++);
        lp_buf_append(out, p, len);
        lp_buf_putc(out, '\n');
        p += len + (nl ? 1 : 0);
    }
}

void lp_tools_file_freshness(lp_tools *t, json_t *env, const char *root, const char *rel,
                             int64_t pub_id, bool file_stale)
{
    lp_fresh f;
    lp_tools_freshness(t, root, pub_id, false, &f, NULL);
    int64_t count =
        f.known && f.publication_id == pub_id ? (int64_t)(f.changed + f.added + f.deleted) : -1;
    if (!file_stale) {
        lp_mcp_envelope_set_freshness(env, "fresh", count);
        return;
    }
    lp_mcp_envelope_set_freshness(env, LP_MCP_STATE_STALE, count);
    json_object_set_new(json_object_get(env, "publication"), "state",
                        lp_json_textz(LP_MCP_STATE_STALE));
    lp_mcp_envelope_warn(env, LP_WARN_FILE_STALE,
                         "%s changed on disk since publication %lld; this answer shows the "
                         "indexed version. Index the change with manage_index {action: \"sync\"}",
                         rel, (long long)pub_id);
    json_t *args = json_object();
    json_object_set_new(args, "action", json_string("sync"));
    lp_json_set_path(args, "path", root, strlen(root));
    lp_mcp_envelope_next_action(env, "manage_index", args);
}

void lp_tools_file_disk_note(json_t *env, const lp_read_info *info)
{
    if (info->disk_code && info->disk_note[0])
        lp_mcp_envelope_warn_raw(env, info->disk_code, info->disk_note);
}

lp_status lp_tools_resolve_file(lp_mcp_call *call, const char *path, lp_buf *root, lp_buf *rel,
                                lp_error *err)
{
    if (path && path[0] && path[0] != '/')
        return lp_error_set(err, LP_EPATH,
                            "'%s' is relative; give the file's absolute path (codebaseRoot + '/' "
                            "+ the result's file)",
                            path);
    lp_status rc = lp_index_resolve_file(path ? path : "", NULL, root, rel, err);
    if (rc == LP_EPATH && strstr(err->msg, "outside every indexed root")) {
        size_t n = strlen(err->msg);
        snprintf(err->msg + n, sizeof err->msg - n,
                 "; to serve it, index its repository with manage_index {action: \"create\"}");
    }
    if (rc)
        return rc;
    struct stat sb;
    lp_buf abs;
    lp_buf_init(&abs, 0);
    lp_buf_printf(&abs, "%s/%s", root->ptr, rel->ptr);
    if (stat(abs.ptr, &sb) == 0 && S_ISDIR(sb.st_mode))
        rc = lp_tools_fail(call, "invalid_argument", LP_EINVAL, err,
                           "%s is a folder; give a file inside it (search_codebase finds files)",
                           path);
    lp_buf_release(&abs);
    return rc;
}
