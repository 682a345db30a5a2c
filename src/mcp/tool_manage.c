/*
 * tool_manage.c: manage_index (create, sync, reindex, status, cancel, clear) and
 * list_codebases.
 *
 * Builds run on background threads (ops.c): create/sync/reindex answer at once with state
 * indexing and an operationId (or, with waitMs, when the build ended or the wait ran out).
 * status reports progress from the live operation, or from the lease of a build running in
 * another process; after a restart only durable state (publications, live leases) is
 * known, and nothing is invented.
 */
#include "mcp/tools_int.h"

#include <sys/stat.h>

#define CANCEL_WAIT_MS 10000u

/* ------------------------------------------------------------------------------------------
 * Shapes. */

static json_t *iso_or_null(int64_t ms)
{
    if (ms <= 0)
        return json_null();
    char iso[32];
    lp_format_iso8601(ms, iso);
    return lp_json_textz(iso);
}

static json_t *op_json(const lp_op_info *op)
{
    json_t *o = json_object();
    json_object_set_new(o, "operationId", lp_json_textz(op->id));
    json_object_set_new(o, "action", lp_json_textz(lp_index_op_name(op->kind)));
    json_object_set_new(o, "state", lp_json_textz(lp_op_state_name(op->state)));
    json_object_set_new(o, "cancelRequested", json_boolean(op->cancel_requested));
    json_object_set_new(o, "inThisServer", json_true());
    json_t *p = json_object();
    json_object_set_new(p, "phase", lp_json_textz(op->phase));
    json_object_set_new(p, "filesDone", json_integer((json_int_t)op->files_done));
    json_object_set_new(p, "filesTotal", json_integer((json_int_t)op->files_total));
    json_object_set_new(p, "bytesDone", json_integer((json_int_t)op->bytes_done));
    json_object_set_new(p, "elapsedMs", json_integer((json_int_t)op->elapsed_ms));
    json_object_set_new(p, "startedAt", iso_or_null(op->started_ms));
    json_object_set_new(p, "endedAt", iso_or_null(op->ended_ms));
    json_object_set_new(o, "progress", p);
    if (op->state == LP_OP_SUCCEEDED) {
        const lp_index_report *r = &op->report;
        json_t *res = json_object();
        json_object_set_new(res, "publicationId", json_integer(r->publication_id));
        json_object_set_new(res, "published", json_boolean(r->published));
        json_object_set_new(res, "files", json_integer((json_int_t)r->files));
        json_object_set_new(res, "added", json_integer((json_int_t)r->added));
        json_object_set_new(res, "changed", json_integer((json_int_t)r->changed));
        json_object_set_new(res, "deleted", json_integer((json_int_t)r->deleted));
        json_object_set_new(res, "unchanged", json_integer((json_int_t)r->unchanged));
        json_object_set_new(res, "parsed", json_integer((json_int_t)r->parsed));
        json_object_set_new(res, "symbols", json_integer((json_int_t)r->symbols));
        json_object_set_new(res, "chunks", json_integer((json_int_t)r->chunks));
        json_object_set_new(res, "partial", json_boolean(r->partial));
        json_object_set_new(res, "durationMs", json_integer((json_int_t)r->ms_total));
        if (r->set_aside[0])
            lp_json_set_path(res, "damagedFileKept", r->set_aside, strlen(r->set_aside));
        json_object_set_new(o, "result", res);
    } else {
        json_object_set_new(o, "result", json_null());
    }
    if (op->state == LP_OP_FAILED || op->state == LP_OP_CANCELLED) {
        json_t *e = json_object();
        json_object_set_new(e, "code", lp_json_textz(lp_status_code(op->status)));
        json_object_set_new(e, "message", lp_json_text(op->error, strlen(op->error)));
        json_object_set_new(o, "error", e);
    } else {
        json_object_set_new(o, "error", json_null());
    }
    return o;
}

static json_t *lease_json(const lp_lease_info *l)
{
    json_t *w = json_object();
    json_object_set_new(w, "pid", json_integer(l->pid));
    json_object_set_new(w, "operation", lp_json_textz(l->op));
    json_object_set_new(w, "phase", lp_json_textz(l->phase));
    json_object_set_new(w, "filesDone", json_integer((json_int_t)l->files_done));
    json_object_set_new(w, "filesTotal", json_integer((json_int_t)l->files_total));
    json_object_set_new(w, "startedAt", iso_or_null(l->started_ms));
    json_object_set_new(w, "updatedAt", iso_or_null(l->updated_ms));
    json_object_set_new(w, "elapsedMs",
                        json_integer(l->started_ms > 0 ? lp_wall_ms() - l->started_ms : 0));
    json_object_set_new(w, "inThisServer", json_false());
    return w;
}

static json_t *pub_counts(const lp_publication *pub)
{
    if (!pub->id)
        return json_null();
    json_t *p = json_object();
    json_object_set_new(p, "id", json_integer(pub->id));
    json_object_set_new(p, "createdAt", iso_or_null(pub->created_ms));
    json_object_set_new(p, "operation", lp_json_textz(pub->op));
    json_object_set_new(p, "files", json_integer(pub->files));
    json_object_set_new(p, "bytes", json_integer(pub->bytes));
    json_object_set_new(p, "symbols", json_integer(pub->symbols));
    json_object_set_new(p, "chunks", json_integer(pub->chunks));
    json_object_set_new(p, "skipped", json_integer(pub->skipped));
    json_object_set_new(p, "partial", json_boolean(pub->partial));
    json_object_set_new(p, "compatible", json_boolean(lp_publication_compatible(pub)));
    return p;
}

static json_t *action_args(const char *action, const char *key, const char *value)
{
    json_t *a = json_object();
    json_object_set_new(a, "action", lp_json_textz(action));
    lp_json_set_path(a, key, value, strlen(value));
    return a;
}

/* What an agent sees of one root right now (no walk unless fresh_walk). */
typedef struct root_view {
    lp_index_status st;
    bool status_ok;
    char status_error[LP_ERROR_MSG_MAX];
    bool have_op, op_running;
    lp_op_info op; /* the running operation, else the latest one */
    lp_fresh fresh;
    const char *state;
    bool exists;
} root_view;

static void view_root(lp_tools *t, const char *root, bool fresh_walk, root_view *v)
{
    memset(v, 0, sizeof *v);
    lp_error e = {0};
    struct stat sb;
    v->exists = stat(root, &sb) == 0 && S_ISDIR(sb.st_mode);
    v->status_ok = lp_index_status_get(root, false, &v->st, &e) == LP_OK;
    if (!v->status_ok)
        snprintf(v->status_error, sizeof v->status_error, "%s", e.msg);
    v->have_op = lp_ops_latest(lp_tools_ops(t), root, &v->op);
    v->op_running = v->have_op && v->op.state == LP_OP_RUNNING;
    if (v->status_ok && v->st.pub.id && lp_publication_compatible(&v->st.pub) && v->exists)
        lp_tools_freshness(t, root, v->st.pub.id, fresh_walk, &v->fresh, NULL);
    if (!v->status_ok)
        v->state = LP_MCP_STATE_FAILED;
    else if (v->op_running || v->st.lease.held)
        v->state = LP_MCP_STATE_INDEXING;
    else if (v->st.state == LP_STATE_DAMAGED) {
        v->state = LP_MCP_STATE_DAMAGED;
        /* cut the detail, never the advice */
        snprintf(v->status_error, sizeof v->status_error,
                 "the index database is damaged (%.120s); rebuild it with manage_index {action: "
                 "\"reindex\"} (the damaged file is kept aside)",
                 v->st.damage);
    } else if (v->st.pub.id == 0)
        v->state = v->have_op && v->op.state == LP_OP_FAILED ? LP_MCP_STATE_FAILED
                                                             : LP_MCP_STATE_NOT_INDEXED;
    else if (!lp_publication_compatible(&v->st.pub))
        v->state = LP_MCP_STATE_REQUIRES_REINDEX;
    else if (v->fresh.known && (v->fresh.publication_id > v->st.pub.id ||
                                v->fresh.changed + v->fresh.added + v->fresh.deleted))
        v->state = LP_MCP_STATE_STALE;
    else
        v->state = LP_MCP_STATE_READY;
}

/* The call that most likely helps with a root in view v. */
static json_t *view_next(const char *root, const root_view *v, const char **tool)
{
    const char *s = v->state;
    if (!v->exists) {
        *tool = "manage_index";
        return action_args("clear", "path", root);
    }
    if (!strcmp(s, LP_MCP_STATE_INDEXING)) {
        *tool = "manage_index";
        return v->op_running ? action_args("status", "operationId", v->op.id)
                             : action_args("status", "path", root);
    }
    *tool = "manage_index";
    if (!strcmp(s, LP_MCP_STATE_NOT_INDEXED) || !strcmp(s, LP_MCP_STATE_FAILED))
        return action_args("create", "path", root);
    if (!strcmp(s, LP_MCP_STATE_REQUIRES_REINDEX) || !strcmp(s, LP_MCP_STATE_DAMAGED))
        return action_args("reindex", "path", root);
    if (!strcmp(s, LP_MCP_STATE_STALE))
        return action_args("sync", "path", root);
    *tool = "search_codebase";
    json_t *a = json_object();
    lp_json_set_path(a, "path", root, strlen(root));
    return a;
}

static json_t *fresh_json(const root_view *v)
{
    json_t *f = json_object();
    if (!v->fresh.known) {
        json_object_set_new(f, "state", json_string("unknown"));
        json_object_set_new(f, "changedSincePublication", json_null());
        json_object_set_new(f, "checkedAt", json_null());
        return f;
    }
    bool newer = v->fresh.publication_id > v->st.pub.id;
    uint64_t n = v->fresh.changed + v->fresh.added + v->fresh.deleted;
    json_object_set_new(f, "state", lp_json_textz(newer || n ? "stale" : "fresh"));
    json_object_set_new(f, "changedSincePublication",
                        newer ? json_null() : json_integer((json_int_t)n));
    json_object_set_new(f, "checkedAt", iso_or_null(v->fresh.checked_ms));
    return f;
}

/* ------------------------------------------------------------------------------------------
 * list_codebases */

static const char list_input[] =
    "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}";

static const char list_output[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"count\":{\"type\":\"integer\"},"
    "\"codebases\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"root\":{\"type\":\"string\"},"
    "\"exists\":{\"type\":\"boolean\"},"
    "\"state\":{\"enum\":[\"not_indexed\",\"indexing\",\"ready\",\"failed\","
    "\"requires_reindex\",\"stale\",\"damaged\"]},"
    "\"publication\":{\"type\":[\"object\",\"null\"],\"properties\":{"
    "\"id\":{\"type\":\"integer\"},\"createdAt\":{\"type\":[\"string\",\"null\"]},"
    "\"files\":{\"type\":\"integer\"},\"symbols\":{\"type\":\"integer\"},"
    "\"chunks\":{\"type\":\"integer\"},\"partial\":{\"type\":\"boolean\"}},"
    "\"required\":[\"id\",\"createdAt\",\"files\",\"symbols\",\"chunks\",\"partial\"]},"
    "\"freshness\":{\"type\":\"object\",\"properties\":{\"state\":{\"enum\":[\"fresh\","
    "\"stale\",\"unknown\"]},\"changedSincePublication\":{\"type\":[\"integer\",\"null\"]}},"
    "\"required\":[\"state\",\"changedSincePublication\"]},"
    "\"writer\":{\"type\":[\"object\",\"null\"]},"
    "\"lastOperation\":{\"type\":[\"object\",\"null\"]},"
    "\"error\":{\"type\":[\"string\",\"null\"]},"
    "\"recommendedNextAction\":{\"type\":\"object\",\"properties\":{\"tool\":{\"type\":"
    "\"string\"},\"arguments\":{\"type\":\"object\"}},\"required\":[\"tool\",\"arguments\"]}},"
    "\"required\":[\"root\",\"exists\",\"state\",\"publication\",\"freshness\",\"writer\","
    "\"lastOperation\",\"recommendedNextAction\"]}}},"
    "\"required\":[\"count\",\"codebases\",\"warnings\",\"truncated\"]}";

static const char *const list_truncatable[] = {"codebases", NULL};

static lp_status list_fn(lp_mcp_call *call, json_t **result, lp_error *err)
{
    lp_tools *t = lp_tools_of(call);
    lp_root_entry *roots = NULL;
    size_t n = 0;
    lp_status rc = lp_store_list_roots(&roots, &n, err);
    if (rc)
        return rc;
    json_t *out = json_object();
    json_t *arr = json_array();
    json_object_set_new(out, "warnings", json_array());
    for (size_t i = 0; i < n && !lp_mcp_call_cancelled(call); i++) {
        const char *root = roots[i].root;
        root_view v;
        view_root(t, root, false, &v);
        json_t *c = json_object();
        lp_json_set_path(c, "root", root, strlen(root));
        json_object_set_new(c, "exists", json_boolean(v.exists));
        json_object_set_new(c, "state", lp_json_textz(v.state));
        json_object_set_new(c, "publication", pub_counts(&v.st.pub));
        json_object_set_new(c, "freshness", fresh_json(&v));
        if (v.op_running)
            json_object_set_new(c, "writer", op_json(&v.op));
        else if (v.st.lease.held)
            json_object_set_new(c, "writer", lease_json(&v.st.lease));
        else
            json_object_set_new(c, "writer", json_null());
        json_object_set_new(c, "lastOperation",
                            v.have_op && !v.op_running ? op_json(&v.op) : json_null());
        json_object_set_new(c, "error",
                            v.status_error[0] ? lp_json_textz(v.status_error) : json_null());
        const char *tool;
        json_t *args = view_next(root, &v, &tool);
        json_t *next = json_object();
        json_object_set_new(next, "tool", lp_json_textz(tool));
        json_object_set_new(next, "arguments", args);
        json_object_set_new(c, "recommendedNextAction", next);
        json_array_append_new(arr, c);
    }
    json_object_set_new(out, "count", json_integer((json_int_t)n));
    json_object_set_new(out, "codebases", arr);
    if (n == 0)
        lp_mcp_envelope_warn(out, LP_WARN_NO_CODEBASES,
                             "no codebase is indexed yet; index one with manage_index {action: "
                             "\"create\", path: \"/absolute/path/of/the/repository\"}");
    lp_store_roots_free(roots, n);
    *result = out;
    return LP_OK;
}

const lp_mcp_tool_def lp_tool_list_codebases = {
    .name = "list_codebases",
    .title = "List indexed codebases",
    .description =
        "List the codebases loupe has indexed, with their state (ready, stale, indexing, "
        "not_indexed, requires_reindex, failed), current publication (id, time, file, symbol "
        "and chunk counts), the build in progress if any, and the call to make next for each. "
        "Call it first in a session to learn which roots exist; then search_codebase a ready "
        "root, or manage_index the others. Freshness is reported when it is already known "
        "(search_codebase and manage_index status check it).",
    .input_schema = list_input,
    .output_schema = list_output,
    .read_only = true,
    .idempotent = true,
    .truncatable = list_truncatable,
    .fn = list_fn,
};

/* ------------------------------------------------------------------------------------------
 * manage_index */

static const char manage_input[] =
    "{\"type\":\"object\","
    "\"properties\":{"
    "\"action\":{\"type\":\"string\",\"enum\":[\"create\",\"sync\",\"status\",\"reindex\","
    "\"clear\",\"cancel\"],\"description\":\"create: index a folder (or sync it when already "
    "indexed); sync: index only what changed; reindex: rebuild everything (the current "
    "publication serves meanwhile); status: state and progress; cancel: stop operationId; "
    "clear: delete the index (destructive).\"},"
    "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"
    "\"description\":\"Absolute path of the codebase (for create: the repository folder; "
    "otherwise any path inside an indexed codebase).\"},"
    "\"operationId\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":64,"
    "\"description\":\"An operation id from an earlier create, sync or reindex (for cancel "
    "and status).\"},"
    "\"waitMs\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":600000,\"default\":0,"
    "\"description\":\"For create, sync, reindex and status: wait up to this long for the "
    "operation to finish before answering (0: answer at once).\"}"
    "},"
    "\"required\":[\"action\"],"
    "\"additionalProperties\":false,"
    "\"examples\":[{\"action\":\"create\",\"path\":\"/home/me/src/app\"},"
    "{\"action\":\"status\",\"operationId\":\"op-1a2b3c4d5e6f\"}]}";

static const char manage_output[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"action\":{\"enum\":[\"create\",\"sync\",\"status\",\"reindex\",\"clear\",\"cancel\"]},"
    "\"state\":{\"enum\":[\"not_indexed\",\"indexing\",\"ready\",\"failed\","
    "\"requires_reindex\",\"stale\",\"damaged\"],\"description\":\"The codebase's state after the "
    "action.\"},"
    "\"operation\":{\"type\":[\"object\",\"null\"],\"description\":\"The operation this answer "
    "is about: started now, asked for, or the latest one on the codebase in this server.\","
    "\"properties\":{\"operationId\":{\"type\":\"string\"},\"action\":{\"type\":\"string\"},"
    "\"state\":{\"enum\":[\"running\",\"succeeded\",\"failed\",\"cancelled\"]},"
    "\"progress\":{\"type\":\"object\"},\"result\":{\"type\":[\"object\",\"null\"]},"
    "\"error\":{\"type\":[\"object\",\"null\"]}},"
    "\"required\":[\"operationId\",\"action\",\"state\",\"progress\",\"result\",\"error\"]},"
    "\"writer\":{\"type\":[\"object\",\"null\"],\"description\":\"A build running now, in "
    "this server or another process.\"},"
    "\"counts\":{\"type\":[\"object\",\"null\"]},"
    "\"cleared\":{\"type\":\"boolean\"}},"
    "\"required\":[\"codebaseRoot\",\"publication\",\"warnings\",\"action\",\"state\","
    "\"operation\",\"writer\",\"counts\",\"truncated\"]}";

typedef struct wait_ctx {
    lp_mcp_call *call;
} wait_ctx;

static bool wait_stop(void *ctx) { return lp_mcp_call_cancelled(((wait_ctx *)ctx)->call); }

static void wait_tick(void *ctx, const lp_op_info *op)
{
    char msg[96];
    snprintf(msg, sizeof msg, "%s: %llu of %llu files", op->phase,
             (unsigned long long)op->files_done, (unsigned long long)op->files_total);
    lp_mcp_call_progress(((wait_ctx *)ctx)->call, (double)op->files_done,
                         op->files_total ? (double)op->files_total : -1, msg);
}

/* The answer about root after an action: envelope, state, operation, writer, counts. */
static json_t *manage_answer(lp_mcp_call *call, const char *action, const char *root,
                             const lp_op_info *op, bool fresh_walk)
{
    lp_tools *t = lp_tools_of(call);
    root_view v;
    lp_op_info fresh_op;
    /* The operation may end while the view is read: read both again until they agree, so
     * an answer never says `ready` next to a running operation (or the reverse). */
    for (int attempt = 0; attempt < 3; attempt++) {
        view_root(t, root, fresh_walk && attempt == 0, &v);
        if (!op || !lp_ops_get(lp_tools_ops(t), op->id, &fresh_op))
            break;
        op = &fresh_op;
        bool running = op->state == LP_OP_RUNNING;
        if (running == (v.op_running && !strcmp(v.op.id, op->id)) || strcmp(op->root, root))
            break;
    }
    json_t *out = lp_tools_envelope(root, &v.st.pub, v.state);
    json_object_set_new(out, "action", lp_json_textz(action));
    json_object_set_new(out, "state", lp_json_textz(v.state));
    const lp_op_info *shown = op ? op : v.have_op ? &v.op : NULL;
    json_object_set_new(out, "operation", shown ? op_json(shown) : json_null());
    if (v.op_running)
        json_object_set_new(out, "writer", op_json(&v.op));
    else if (v.st.lease.held)
        json_object_set_new(out, "writer", lease_json(&v.st.lease));
    else
        json_object_set_new(out, "writer", json_null());
    json_object_set_new(out, "counts", pub_counts(&v.st.pub));
    if (v.fresh.known) {
        lp_tools_envelope_freshness(out, root, v.st.pub.id, &v.fresh);
    } else {
        lp_mcp_envelope_set_freshness(out, "unknown", -1);
    }
    if (!v.status_ok)
        lp_mcp_envelope_warn(out, LP_WARN_STATUS_FAILED, "%s", v.status_error);
    else if (!strcmp(v.state, LP_MCP_STATE_DAMAGED))
        lp_mcp_envelope_warn(out, LP_WARN_INDEX_DAMAGED, "%s", v.status_error);
    if (shown && shown->state == LP_OP_FAILED)
        lp_mcp_envelope_warn(out, LP_WARN_OPERATION_FAILED, "operation %s (%s) failed: %s", shown->id,
                             lp_index_op_name(shown->kind), shown->error);
    if (v.st.pub.partial)
        lp_mcp_envelope_warn(out, LP_WARN_INDEX_PARTIAL,
                             "publication %lld reached the searchable-byte limit: some files are "
                             "not indexed",
                             (long long)v.st.pub.id);
    const char *tool;
    json_t *args = view_next(root, &v, &tool);
    if (!strcmp(v.state, LP_MCP_STATE_INDEXING) && shown && shown->state == LP_OP_RUNNING) {
        json_decref(args);
        args = action_args("status", "operationId", shown->id);
        json_object_set_new(args, "waitMs", json_integer(5000));
    }
    lp_mcp_envelope_next_action(out, tool, args);
    return out;
}

static lp_status need(lp_mcp_call *call, const char *value, const char *name, const char *action,
                      lp_error *err)
{
    if (value)
        return LP_OK;
    return lp_tools_fail(
        call, "invalid_argument", LP_EINVAL, err,
        "action '%s' needs '%s'; e.g. {\"action\": \"%s\", \"%s\": %s}", action, name, action, name,
        !strcmp(name, "path") ? "\"/absolute/path/of/the/repository\"" : "\"op-1a2b3c4d5e6f\"");
}

/* Resolve the folder to create an index for (like `loupe index PATH`). */
static lp_status create_root(lp_mcp_call *call, const char *path, lp_buf *root, lp_error *err)
{
    if (path[0] != '/')
        return lp_error_set(err, LP_EPATH, "'%s' is relative; give the repository's absolute path",
                            path);
    for (const char *s = path; *s;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return lp_error_set(err, LP_EPATH,
                                "paths with '..' are refused; give the absolute path without '..'");
        s += n + (e ? 1 : 0);
    }
    lp_status rc = lp_index_resolve_root(path, false, root, err);
    if (rc == LP_EBROADROOT)
        lp_mcp_call_set_error_code(call, "broad_root_refused");
    else if (rc == LP_ENOENT)
        return lp_error_set(err, LP_ENOENT, "%s does not exist; give the repository's folder",
                            path);
    else if (rc == LP_EINVAL)
        lp_mcp_call_set_error_code(call, "invalid_argument");
    return rc;
}

static lp_status manage_fn(lp_mcp_call *call, json_t **result, lp_error *err)
{
    lp_tools *t = lp_tools_of(call);
    lp_ops *ops = lp_tools_ops(t);
    const char *action = lp_tools_arg_str(call, "action");
    const char *path = lp_tools_arg_str(call, "path");
    const char *op_id = lp_tools_arg_str(call, "operationId");
    uint32_t wait_ms = lp_tools_arg_uint(call, "waitMs", 0);
    lp_buf root;
    lp_buf_init(&root, 0);
    lp_status rc = LP_OK;
    lp_op_info op;
    wait_ctx wc = {call};
    bool build = !strcmp(action, "create") || !strcmp(action, "sync") || !strcmp(action, "reindex");

    if (build) {
        if ((rc = need(call, path, "path", action, err)))
            goto done;
        lp_index_op kind = !strcmp(action, "create") ? LP_INDEX_CREATE
                           : !strcmp(action, "sync") ? LP_INDEX_SYNC
                                                     : LP_INDEX_REINDEX;
        rc = kind == LP_INDEX_CREATE ? create_root(call, path, &root, err)
                                     : lp_tools_root_of(call, path, &root, NULL, err);
        if (rc)
            goto done;
        if ((rc = lp_ops_start(ops, root.ptr, kind, &op, err)))
            goto done;
        if (wait_ms)
            lp_ops_wait(ops, op.id, wait_ms, wait_stop, &wc, wait_tick, &wc, &op);
        *result = manage_answer(call, action, root.ptr, &op, false);
    } else if (!strcmp(action, "status")) {
        if (!path && !op_id) {
            rc = lp_tools_fail(call, "invalid_argument", LP_EINVAL, err,
                               "action 'status' needs 'path' (the codebase) or 'operationId'");
            goto done;
        }
        bool have_op = false;
        if (op_id) {
            if (!lp_ops_get(ops, op_id, &op)) {
                rc = lp_tools_fail(call, "operation_unknown", LP_ENOENT, err,
                                   "no operation %s is known to this server (operations live "
                                   "only while the server runs; after a restart only the "
                                   "index's durable state is known); ask manage_index {action: "
                                   "\"status\", path: ...} for the codebase's state",
                                   op_id);
                goto done;
            }
            have_op = true;
            lp_buf_puts(&root, op.root);
        } else if ((rc = lp_tools_root_of(call, path, &root, NULL, err))) {
            /* A folder that is not indexed has a status too: not_indexed. */
            if (rc != LP_ENOTINDEXED)
                goto done;
            lp_mcp_call_set_error_code(call, NULL);
            lp_error_clear(err);
            rc = create_root(call, path, &root, err);
            if (rc)
                goto done;
        }
        if (!have_op)
            have_op = lp_ops_running(ops, root.ptr, &op);
        if (have_op && wait_ms && op.state == LP_OP_RUNNING)
            lp_ops_wait(ops, op.id, wait_ms, wait_stop, &wc, wait_tick, &wc, &op);
        *result = manage_answer(call, action, root.ptr, have_op ? &op : NULL, true);
    } else if (!strcmp(action, "cancel")) {
        if ((rc = need(call, op_id, "operationId", action, err)))
            goto done;
        rc = lp_ops_cancel(ops, op_id, CANCEL_WAIT_MS, &op, err);
        if (rc) {
            lp_mcp_call_set_error_code(call, "operation_unknown");
            goto done;
        }
        json_t *out = manage_answer(call, action, op.root, &op, false);
        if (op.state == LP_OP_RUNNING)
            lp_mcp_envelope_warn(out, LP_WARN_CANCEL_PENDING,
                                 "operation %s was asked to stop and is still winding down; "
                                 "the current publication stays as it is",
                                 op.id);
        else if (op.state != LP_OP_CANCELLED)
            lp_mcp_envelope_warn(out, LP_WARN_ALREADY_FINISHED,
                                 "operation %s had already %s; nothing was cancelled", op.id,
                                 lp_op_state_name(op.state));
        *result = out;
    } else if (!strcmp(action, "clear")) {
        if ((rc = need(call, path, "path", action, err)))
            goto done;
        if ((rc = lp_tools_root_of(call, path, &root, NULL, err)))
            goto done;
        if (lp_ops_running(ops, root.ptr, &op)) {
            rc = lp_tools_fail(call, "busy", LP_EBUSY, err,
                               "operation %s (%s) is writing the index of %s; clear is refused "
                               "while a writer is live: cancel it first with manage_index "
                               "{action: \"cancel\", operationId: \"%s\"}",
                               op.id, lp_index_op_name(op.kind), root.ptr, op.id);
            goto done;
        }
        if ((rc = lp_store_clear(root.ptr, err)))
            goto done;
        lp_tools_freshness_forget(t, root.ptr);
        json_t *out = manage_answer(call, action, root.ptr, NULL, false);
        json_object_set_new(out, "operation", json_null());
        json_object_set_new(out, "cleared", json_true());
        *result = out;
    } else {
        rc = lp_tools_fail(call, "invalid_argument", LP_EINVAL, err, "unknown action '%s'", action);
    }
done:
    lp_buf_release(&root);
    return rc;
}

const lp_mcp_tool_def lp_tool_manage_index = {
    .name = "manage_index",
    .title = "Create, update or inspect an index",
    .description =
        "Build and maintain the index of a codebase. create indexes a folder (the first time, "
        "or syncs it when already indexed); sync indexes only the files changed since the "
        "current publication (call it when answers say stale); reindex rebuilds everything "
        "(needed when the state is requires_reindex; the current publication keeps serving "
        "until it is done). These return at once with state indexing and an operationId; the "
        "build runs in the background (waitMs waits for it). status reports the state and the "
        "progress (files done/total, phase, elapsed) of the build; cancel stops operationId "
        "(the previous publication stays current); clear deletes the index (destructive, "
        "refused while a build runs). One build per codebase at a time: another one gets "
        "busy with the running operation named.",
    .input_schema = manage_input,
    .output_schema = manage_output,
    .envelope = true,
    .read_only = false,
    .destructive = true,
    .idempotent = false,
    .fn = manage_fn,
};
