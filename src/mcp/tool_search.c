/*
 * tool_search.c: search_codebase (one search in one pinned publication, the first page of
 * a frozen result set) and continue_search (the next page of that set, never re-ranked).
 *
 * The page shown is fitted to the result budget here, before the set is frozen, so the
 * continuation always starts right after the last result the agent saw (the budget never
 * cuts results behind the handle's back).
 */
#include "mcp/tools_int.h"

#include <math.h>

#define DEFAULT_DISCLOSURE 8u
#define DEFAULT_LIMIT 50u

/* ------------------------------------------------------------------------------------------
 * Shared shapes. */

static json_t *opt_str(const char *s) { return s ? lp_json_text(s, strlen(s)) : json_null(); }

static json_t *channels_json(uint32_t ch)
{
    const char *names[LP_CH_COUNT];
    size_t n = lp_search_channel_names(ch, names);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, lp_json_textz(names[i]));
    return a;
}

static json_t *result_json(const char *root, int64_t pub_id, const lp_search_group *g)
{
    json_t *owner = json_object();
    json_object_set_new(owner, "id", g->owner.id[0] ? lp_json_textz(g->owner.id) : json_null());
    lp_json_set_path(owner, "file", g->owner.file ? g->owner.file : "",
                     g->owner.file ? strlen(g->owner.file) : 0);
    json_object_set_new(owner, "symbol", opt_str(g->owner.symbol));
    json_object_set_new(owner, "qualifiedName", opt_str(g->owner.qname));
    json_object_set_new(owner, "kind", opt_str(g->owner.kind ? g->owner.kind : "file"));
    json_object_set_new(owner, "startLine", json_integer(g->owner.start_line));
    json_object_set_new(owner, "endLine", json_integer(g->owner.end_line));
    json_t *r = json_object();
    json_object_set_new(r, "rank", json_integer(g->rank));
    json_object_set_new(r, "publicationId", json_integer(pub_id));
    json_object_set_new(r, "owner", owner);
    json_object_set_new(r, "score", json_real(g->score));
    json_object_set_new(r, "channels", channels_json(g->channels));
    json_object_set_new(r, "snippet", opt_str(g->snippet ? g->snippet : ""));
    json_object_set_new(r, "snippetStartLine", json_integer(g->snippet_start_line));
    lp_search_group_surface_json(r, root, g);
    if (g->listed)
        json_object_set_new(r, "fileSize", json_integer((json_int_t)g->file_size));
    if (g->nmembers || g->listed) { /* file view or listing: the file and its owners */
        lp_json_set_path(r, "file", g->owner.file ? g->owner.file : "",
                         g->owner.file ? strlen(g->owner.file) : 0);
        json_t *arr = json_array();
        for (uint32_t i = 0; i < g->nmembers; i++) {
            const lp_search_member *m = &g->members[i];
            json_t *o = json_object();
            json_object_set_new(o, "id",
                                m->owner.id[0] ? lp_json_textz(m->owner.id) : json_null());
            json_object_set_new(o, "symbol", opt_str(m->owner.symbol));
            json_object_set_new(o, "qualifiedName", opt_str(m->owner.qname));
            json_object_set_new(o, "kind", opt_str(m->owner.kind ? m->owner.kind : "file"));
            json_object_set_new(o, "startLine", json_integer(m->owner.start_line));
            json_object_set_new(o, "endLine", json_integer(m->owner.end_line));
            json_object_set_new(o, "score", json_real(m->score));
            json_object_set_new(o, "ownerRank", json_integer(m->rank));
            json_array_append_new(arr, o);
        }
        json_object_set_new(r, "owners", arr);
        json_object_set_new(r, "fileOwners", json_integer(g->nfile_owners));
    }
    return r;
}

json_t *lp_tools_search_page(const char *root, int64_t pub_id, const lp_search_group *groups,
                             size_t ngroups, size_t from, size_t count)
{
    json_t *a = json_array();
    for (size_t i = from; i < ngroups && i < from + count; i++)
        json_array_append_new(a, result_json(root, pub_id, &groups[i]));
    return a;
}

static json_t *pagination_json(int64_t pub_id, size_t offset, size_t shown, size_t frozen,
                               const char *handle, int64_t expires_ms)
{
    json_t *p = json_object();
    json_object_set_new(p, "publicationId", json_integer(pub_id));
    json_object_set_new(p, "offset", json_integer((json_int_t)offset));
    json_object_set_new(p, "shown", json_integer((json_int_t)shown));
    json_object_set_new(p, "frozen", json_integer((json_int_t)frozen));
    bool complete = !handle || !*handle;
    json_object_set_new(p, "complete", json_boolean(complete));
    json_object_set_new(p, "continuation", complete ? json_null() : lp_json_textz(handle));
    if (!complete && expires_ms > 0) {
        char iso[32];
        lp_format_iso8601(expires_ms, iso);
        json_object_set_new(p, "expiresAt", lp_json_textz(iso));
    } else {
        json_object_set_new(p, "expiresAt", json_null());
    }
    return p;
}

/* The recommended next step for the top result of a page (kept when the answer is fresh). */
static void next_for_top(json_t *env, const char *root, const lp_search_group *top,
                         const char *query, lp_search_scope scope)
{
    if (!top) {
        json_t *args = json_object();
        lp_json_set_path(args, "path", root, strlen(root));
        json_object_set_new(args, "query", lp_json_text(query, strlen(query)));
        if (scope != LP_SCOPE_MIXED) {
            json_object_set_new(args, "scope", json_string("mixed"));
            lp_mcp_envelope_next_action(env, "search_codebase", args);
        } else {
            json_decref(args);
        }
        return;
    }
    /* The top result's own next action (read_file open_symbol, file_outline, or a sync for
     * a live result or a deleted file): decorate.c decides it for every result alike. */
    json_t *tmp = json_object();
    lp_search_group_surface_json(tmp, root, top);
    json_object_set(env, "recommendedNextAction", json_object_get(tmp, "recommendedNextAction"));
    json_decref(tmp);
}

/* Bytes of compact JSON. */
static size_t json_size(const json_t *j) { return json_dumpb(j, NULL, 0, JSON_COMPACT); }

/* Room kept for the page_shortened warning, added after fitting (its text is under 160
 * bytes); without it the registry's budget would shorten snippets instead. */
#define PAGE_WARNING_RESERVE 256u

/* Shrink the results of out to what fits in budget (pagination placeholder included, and
 * room for a page_shortened warning); returns how many stay (at least 1 when there was
 * any). */
static size_t fit_page(json_t *out, size_t budget)
{
    json_t *results = json_object_get(out, "results");
    size_t n = json_array_size(results);
    size_t fit = budget > 2 * PAGE_WARNING_RESERVE ? budget - PAGE_WARNING_RESERVE : budget;
    while (n > 1 && json_size(out) > fit) {
        json_array_remove(results, n - 1);
        n--;
    }
    if (n == 1 && json_size(out) > fit) {
        /* One result over the budget: the server shortens its long strings to fit. When even
         * that cannot fit (a tiny budget), show none: the continuation starts at it and a
         * page_shortened warning says to raise the budget. */
        json_t *copy = json_deep_copy(out);
        char *text = NULL;
        size_t len = 0;
        lp_error e = {0};
        if (lp_mcp_budget_fit(copy, fit, NULL, &text, &len, &e) != LP_OK) {
            json_array_remove(results, 0);
            n = 0;
        }
        free(text);
        json_decref(copy);
    }
    return n;
}

/* A placeholder as long as any handle, so fitting accounts for the real one. */
typedef struct placeholder {
    char text[LP_FROZEN_HANDLE_MAX + 1];
} placeholder;

static placeholder handle_placeholder(void)
{
    placeholder p;
    memset(p.text, 'x', LP_FROZEN_HANDLE_MAX);
    p.text[LP_FROZEN_HANDLE_MAX] = '\0';
    return p;
}

static void add_partial_warning(json_t *env, const lp_publication *pub)
{
    if (pub->partial)
        lp_mcp_envelope_warn(env, LP_WARN_INDEX_PARTIAL,
                             "publication %lld reached the searchable-byte limit: some files are "
                             "not indexed (manage_index status counts them as limit_reached)",
                             (long long)pub->id);
}

static bool call_cancelled(void *ctx) { return lp_mcp_call_cancelled(ctx); }

/* ------------------------------------------------------------------------------------------
 * search_codebase */

static const char search_input[] =
    "{\"type\":\"object\","
    "\"properties\":{"
    "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"
    "\"description\":\"Absolute path of the codebase to search: its root, or any folder or "
    "file inside it (list_codebases lists the indexed roots).\"},"
    "\"query\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":65536,"
    "\"description\":\"What you are looking for, in words or identifiers: 'where is the "
    "access token refreshed', 'parseConfig', 'retry backoff'; or a whole issue text, stack "
    "trace or log (long text is reduced to its most telling terms). Filters alone "
    "('path:src/**/*.go', 'lang:rust') list the files they match with their sizes and "
    "top-level symbols. regex:PATTERN (PCRE2, quoted when it has spaces) greps the indexed "
    "text and answers each matching line with its owner.\"},"
    "\"scope\":{\"type\":\"string\",\"enum\":[\"runtime\",\"tests\",\"docs\",\"mixed\"],"
    "\"default\":\"runtime\",\"description\":\"runtime: implementation code first; tests: "
    "test code; docs: documentation; mixed: everything.\"},"
    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":200,\"default\":50,"
    "\"description\":\"How many results to find and freeze (the result set continue_search "
    "pages through).\"},"
    "\"disclosureLimit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":50,\"default\":8,"
    "\"description\":\"How many results this answer shows (fewer when they do not fit the "
    "result budget); continue_search shows the rest.\"},"
    "\"groupBy\":{\"type\":\"string\",\"enum\":[\"owner\",\"file\"],\"default\":\"owner\","
    "\"description\":\"owner: one result per owning symbol; file: one result per file, ranked "
    "by its owners' evidence, with its best owners (to decide which files to open).\"}"
    "},"
    "\"required\":[\"path\",\"query\"],"
    "\"additionalProperties\":false,"
    "\"examples\":[{\"path\":\"/home/me/src/app\",\"query\":\"where is the access token "
    "refreshed\"}]}";

#define RESULT_SCHEMA                                                                              \
    "{\"type\":\"object\",\"properties\":{"                                                        \
    "\"rank\":{\"type\":\"integer\",\"minimum\":1},"                                               \
    "\"publicationId\":{\"type\":\"integer\"},"                                                    \
    "\"owner\":{\"type\":\"object\",\"properties\":{"                                              \
    "\"id\":{\"type\":[\"string\",\"null\"],\"description\":\"Symbol id for read_file "            \
    "open_symbol; null for a file region without a symbol.\"},"                                    \
    "\"file\":{\"type\":\"string\",\"description\":\"Path relative to codebaseRoot.\"},"           \
    "\"symbol\":{\"type\":[\"string\",\"null\"]},"                                                 \
    "\"qualifiedName\":{\"type\":[\"string\",\"null\"]},"                                          \
    "\"kind\":{\"type\":\"string\"},"                                                              \
    "\"startLine\":{\"type\":\"integer\"},\"endLine\":{\"type\":\"integer\"}},"                    \
    "\"required\":[\"id\",\"file\",\"symbol\",\"qualifiedName\",\"kind\",\"startLine\","           \
    "\"endLine\"]},"                                                                               \
    "\"score\":{\"type\":\"number\"},"                                                             \
    "\"channels\":{\"type\":\"array\",\"items\":{\"enum\":[\"exact\",\"lexical\",\"dense\","       \
    "\"live\",\"path\",\"regex\"]}},"                                                                \
    "\"snippet\":{\"type\":\"string\",\"description\":\"Numbered lines 'N| text'.\"},"             \
    "\"snippetStartLine\":{\"type\":\"integer\"},"                                                 \
    "\"label\":{\"type\":\"string\",\"description\":\"Qualified name of the owner, or "            \
    "file:start-end for a region without a symbol.\"},"                                            \
    "\"breadcrumbs\":{\"type\":\"string\",\"description\":\"Where the owner sits: module > "       \
    "enclosing symbols > owner; empty for a file region.\"},"                                      \
    "\"roles\":{\"type\":\"array\",\"items\":{\"enum\":[\"test\",\"vendored\",\"generated\","     \
    "\"minified\",\"locale\",\"example\",\"meta\"]},\"description\":\"The file's roles besides "    \
    "project code (absent when none); the runtime scope ranks them lower.\"},"                    \
    "\"duplicates\":{\"type\":\"object\",\"description\":\"Copies of this result in other files, "  \
    "folded into it (absent when none).\",\"properties\":{\"count\":{\"type\":\"integer\"},"        \
    "\"paths\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}}},"                             \
    "\"freshness\":{\"type\":\"object\",\"properties\":{"                                          \
    "\"publishedAt\":{\"type\":[\"string\",\"null\"],\"description\":\"When the publication "      \
    "this result comes from was made.\"},"                                                         \
    "\"stale\":{\"type\":\"boolean\",\"description\":\"The file changed on disk since the "        \
    "publication: span and snippet show the indexed version.\"},"                                  \
    "\"deleted\":{\"type\":\"boolean\",\"description\":\"The file was deleted since the "          \
    "publication.\"},"                                                                             \
    "\"live\":{\"type\":\"boolean\",\"description\":\"Read from disk at search time (channel "     \
    "live; path:-scoped query on a changed file), not from the index.\"}},"                        \
    "\"required\":[\"publishedAt\",\"stale\",\"deleted\",\"live\"]},"                              \
    "\"recommendedNextAction\":{\"type\":\"object\",\"description\":\"The call that opens this "   \
    "result.\",\"properties\":{\"tool\":{\"type\":\"string\"},\"arguments\":{\"type\":"            \
    "\"object\"}},\"required\":[\"tool\",\"arguments\"]}},"                                        \
    "\"file\":{\"type\":\"string\",\"description\":\"groupBy file: the file of this result.\"},"   \
    "\"owners\":{\"type\":\"array\",\"description\":\"groupBy file: the file's best owners, "      \
    "best first (id, symbol, qualifiedName, kind, startLine, endLine, score, ownerRank).\","       \
    "\"items\":{\"type\":\"object\"}},"                                                            \
    "\"fileOwners\":{\"type\":\"integer\",\"description\":\"groupBy file: owners of the file "     \
    "among the candidates (a listing: its top-level symbols).\"},"                                \
    "\"fileSize\":{\"type\":\"integer\",\"description\":\"A listing (filters only): the "     \
    "file's size in bytes.\"},"                                                                    \
    "\"required\":[\"rank\",\"publicationId\",\"owner\",\"score\",\"channels\",\"snippet\","       \
    "\"label\",\"breadcrumbs\",\"freshness\",\"recommendedNextAction\"]}"

#define PAGINATION_SCHEMA                                                                          \
    "{\"type\":\"object\",\"properties\":{"                                                        \
    "\"publicationId\":{\"type\":\"integer\"},"                                                    \
    "\"offset\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"Results before this "        \
    "page.\"},"                                                                                    \
    "\"shown\":{\"type\":\"integer\",\"minimum\":0},"                                              \
    "\"frozen\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"Results in the frozen "      \
    "set.\"},"                                                                                     \
    "\"complete\":{\"type\":\"boolean\",\"description\":\"True when no result is left.\"},"        \
    "\"continuation\":{\"type\":[\"string\",\"null\"],\"description\":\"Pass to "                  \
    "continue_search for the next page; null when complete.\"},"                                   \
    "\"expiresAt\":{\"type\":[\"string\",\"null\"]}},"                                             \
    "\"required\":[\"publicationId\",\"offset\",\"shown\",\"frozen\",\"complete\","                \
    "\"continuation\"]}"

static const char search_output[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"query\":{\"type\":\"string\"},"
    "\"scope\":{\"enum\":[\"runtime\",\"tests\",\"docs\",\"mixed\"]},"
    "\"groupBy\":{\"enum\":[\"owner\",\"file\"]},"
    "\"confidence\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1,\"description\":\"How "
    "likely the answer holds what was asked for; below the threshold the warning "
    "no_confident_match says the index probably cannot answer this question.\"},"
    "\"results\":{\"type\":\"array\",\"items\":" RESULT_SCHEMA "},"
    "\"pagination\":" PAGINATION_SCHEMA "},"
    "\"required\":[\"codebaseRoot\",\"publication\",\"freshness\",\"warnings\",\"query\","
    "\"scope\",\"groupBy\",\"confidence\",\"results\",\"pagination\",\"truncated\"]}";

/* Bring a stale root up to date before searching (LOUPE_AUTO_SYNC=1): start or join a sync,
 * wait for it (bounded), and re-pin. Warnings say what happened when it did not finish. */
static lp_status auto_sync(lp_mcp_call *call, const char *root, json_t *warn_into, lp_store **st,
                           lp_publication *pub, unsigned wait_ms, bool *synced, lp_error *err)
{
    lp_tools *t = lp_tools_of(call);
    *synced = false;
    /* Release the pin first: a reader pinned on the old publication would hold up the
     * sync's WAL checkpoint. */
    lp_mcp_call_set_pin(call, NULL, NULL);
    *st = NULL;
    lp_op_info op;
    lp_error e2 = {0};
    lp_status rc = lp_ops_start(lp_tools_ops(t), root, LP_INDEX_SYNC, &op, &e2);
    bool have = rc == LP_OK || (rc == LP_EBUSY && lp_ops_running(lp_tools_ops(t), root, &op));
    if (!have) {
        lp_mcp_envelope_warn(warn_into, LP_WARN_AUTO_SYNC_FAILED, "the automatic sync did not start: %s",
                             e2.msg);
    } else {
        bool ended =
            lp_ops_wait(lp_tools_ops(t), op.id, wait_ms, call_cancelled, call, NULL, NULL, &op);
        if (!ended)
            lp_mcp_envelope_warn(warn_into, LP_WARN_AUTO_SYNC_PENDING,
                                 "the automatic sync (operation %s) was still running after %u "
                                 "ms; this answer comes from the previous publication",
                                 op.id, wait_ms);
        else if (op.state != LP_OP_SUCCEEDED)
            lp_mcp_envelope_warn(warn_into, LP_WARN_AUTO_SYNC_FAILED,
                                 "the automatic sync (operation %s) ended %s: %s", op.id,
                                 lp_op_state_name(op.state), op.error);
        else
            *synced = true;
    }
    return lp_tools_open(call, root, st, pub, err);
}

static lp_status search_fn(lp_mcp_call *call, json_t **result, lp_error *err)
{
    lp_tools *t = lp_tools_of(call);
    lp_arena *arena = lp_mcp_call_arena(call);
    const char *path = lp_tools_arg_str(call, "path");
    const char *query = lp_tools_arg_str(call, "query");
    uint32_t limit = lp_tools_arg_uint(call, "limit", DEFAULT_LIMIT);
    uint32_t page = lp_tools_arg_uint(call, "disclosureLimit", DEFAULT_DISCLOSURE);
    lp_search_request req = {.query = query, .limit = limit};
    const char *scope_name = lp_tools_arg_str(call, "scope");
    if (scope_name && lp_search_scope_parse(lp_str_c(scope_name), &req.scope, err))
        return LP_EINVAL;
    const char *group_name = lp_tools_arg_str(call, "groupBy");
    if (group_name && lp_search_grouping_parse(lp_str_c(group_name), &req.group, err))
        return LP_EINVAL;
    lp_buf root, handle;
    lp_buf_init(&root, 0);
    lp_buf_init(&handle, 0);
    json_t *out = NULL, *early_warnings = json_object();
    lp_store *st = NULL;
    lp_publication pub;
    uint64_t t0 = lp_now_ns(), t_open = 0, t_fresh = 0, t_search = 0;
    lp_status rc = lp_tools_root_of(call, path, &root, NULL, err);
    if (!rc)
        rc = lp_tools_open(call, root.ptr, &st, &pub, err);
    if (rc)
        goto done;
    t_open = lp_now_ns();

    lp_fresh fresh;
    lp_error ferr = {0};
    if (lp_tools_freshness(t, root.ptr, pub.id, true, &fresh, &ferr))
        lp_mcp_envelope_warn(early_warnings, LP_WARN_FRESHNESS_UNKNOWN,
                             "could not check the files on disk: %s", ferr.msg);
    unsigned wait_ms;
    bool stale_now = fresh.known && (fresh.publication_id > pub.id ||
                                     fresh.changed + fresh.added + fresh.deleted > 0);
    bool synced = false;
    if (stale_now && lp_tools_auto_sync(t, &wait_ms)) {
        if ((rc = auto_sync(call, root.ptr, early_warnings, &st, &pub, wait_ms, &synced, err)))
            goto done;
        if (lp_tools_freshness(t, root.ptr, pub.id, true, &fresh, &ferr))
            memset(&fresh, 0, sizeof fresh);
    }

    t_fresh = lp_now_ns();
    lp_search_result res;
    if ((rc = lp_search_run(st, &req, arena, &res, err)))
        goto done;
    t_search = lp_now_ns();
    if (res.publication_id != pub.id) {
        /* Impossible inside one pin; refuse rather than mix. */
        rc = lp_error_set(err, LP_ECORRUPT,
                          "the search read publication %lld while %lld was pinned; retry",
                          (long long)res.publication_id, (long long)pub.id);
        goto done;
    }

    out = lp_tools_envelope(root.ptr, &pub, LP_MCP_STATE_READY);
    json_t *early = json_object_get(early_warnings, "warnings");
    if (early)
        json_object_set(out, "warnings", early); /* shared: early_warnings is freed below */
    if (synced)
        lp_mcp_envelope_warn(out, LP_WARN_AUTO_SYNCED,
                             "files had changed on disk: the index was synced first "
                             "(LOUPE_AUTO_SYNC=1); this answer comes from publication %lld",
                             (long long)pub.id);
    for (size_t i = 0; i < res.nwarnings; i++)
        lp_tools_warn_coded(out, res.warnings[i]);
    add_partial_warning(out, &pub);
    lp_tools_warn_writer(t, out, root.ptr);
    next_for_top(out, root.ptr, res.ngroups ? &res.groups[0] : NULL, query, req.scope);
    if (lp_tools_envelope_freshness(out, root.ptr, pub.id, &fresh))
        json_object_set_new(json_object_get(out, "publication"), "state",
                            lp_json_textz(LP_MCP_STATE_STALE));
    json_object_set_new(out, "query", lp_json_text(query, strlen(query)));
    json_object_set_new(out, "scope", lp_json_textz(lp_search_scope_name(req.scope)));
    json_object_set_new(out, "groupBy", lp_json_textz(lp_search_grouping_name(res.group)));
    json_object_set_new(out, "confidence", json_real(round(res.confidence * 1000.0) / 1000.0));

    size_t shown = LP_MIN((size_t)page, res.ngroups);
    json_object_set_new(
        out, "results",
        lp_tools_search_page(root.ptr, res.publication_id, res.groups, res.ngroups, 0, shown));
    if (shown > 0) { /* every page is fitted, the last one too */
        json_object_set_new(out, "pagination",
                            pagination_json(res.publication_id, 0, shown, res.ngroups,
                                            handle_placeholder().text, lp_wall_ms()));
        shown = fit_page(out, lp_mcp_call_max_result_bytes(call));
    }
    int64_t expires = 0;
    bool no_continuation = false;
    if (shown < res.ngroups) {
        /* A continuation that cannot be written (a full disk) is a warning, not a failed
         * search: the page goes out, complete false, continuation null, and says why. */
        lp_error cerr = {0};
        if (lp_search_freeze(root.ptr, &req, &res, (uint32_t)shown, page, &handle, &expires,
                             &cerr) != LP_OK) {
            lp_buf_reset(&handle);
            no_continuation = true;
            lp_log(LP_LOG_INFO, "search.continuation_unavailable", "error=\"%s\"", cerr.msg);
            lp_mcp_envelope_warn(out, LP_WARN_CONTINUATION_UNAVAILABLE,
                                 "%zu more results were found but cannot be continued, so "
                                 "pagination.continuation is null: %s. Narrow the query (or "
                                 "ask for a larger disclosureLimit) to see them",
                                 res.ngroups - shown, cerr.msg);
        }
        if (shown < page)
            lp_mcp_envelope_warn(out, LP_WARN_PAGE_SHORTENED,
                                 "%zu of the %u results asked for fit the result budget; "
                                 "continue_search shows the rest%s",
                                 shown, page,
                                 shown ? "" : " (raise maxBytes, or the server's cap --max-result-bytes, to see one)");
    }
    json_object_set_new(
        out, "pagination",
        pagination_json(res.publication_id, 0, shown, res.ngroups, handle.ptr, expires));
    if (no_continuation)
        json_object_set_new(json_object_get(out, "pagination"), "complete", json_false());
    lp_log(LP_LOG_DEBUG, "mcp.search.timing",
           "open_ms=%.2f fresh_ms=%.2f search_ms=%.2f rest_ms=%.2f groups=%zu",
           (double)(t_open - t0) / 1e6, (double)(t_fresh - t_open) / 1e6,
           (double)(t_search - t_fresh) / 1e6, (double)(lp_now_ns() - t_search) / 1e6, res.ngroups);
    *result = out;
    out = NULL;
done:
    json_decref(out);
    json_decref(early_warnings);
    lp_buf_release(&root);
    lp_buf_release(&handle);
    return rc;
}

const lp_mcp_tool_def lp_tool_search_codebase = {
    .name = "search_codebase",
    .title = "Search a codebase",
    .description =
        "Find where something is implemented, configured or documented in an indexed "
        "codebase, by meaning or by identifier. Use it first when you do not know where to "
        "look. Results are grouped by owning symbol (function, class, section) with its exact "
        "span, a numbered snippet and the channels that matched, best first, all from one "
        "index publication. The answer shows `disclosureLimit` results of a frozen set of up to "
        "`limit`; pass pagination.continuation to continue_search for more (never re-ranked). "
        "Each result also has a label, breadcrumbs (module > enclosing symbols > owner), its "
        "freshness (publishedAt; stale when its file changed on disk since, deleted when gone) "
        "and its own recommendedNextAction. Next: open the top symbol with read_file "
        "{open_symbol} (or file_outline when it has no symbol), as recommendedNextAction says. "
        "A stale index is reported in freshness and warnings with the manage_index sync to run "
        "(LOUPE_AUTO_SYNC=1 syncs first); a query scoped with path:GLOB to files changed since "
        "also returns their current text as live results (channel live). A codebase that is "
        "not indexed yet fails with the manage_index call to run. groupBy \"file\" ranks files "
        "instead, each with its best owners. `confidence` (0-1) says how likely the answer holds "
        "what was asked; a no_confident_match warning means the codebase probably has no "
        "answer: rephrase with words from the code rather than trusting the top result.",
    .input_schema = search_input,
    .output_schema = search_output,
    .envelope = true,
    .read_only = true,
    .idempotent = true,
    .fn = search_fn,
};

/* ------------------------------------------------------------------------------------------
 * continue_search */

static const char continue_input[] =
    "{\"type\":\"object\","
    "\"properties\":{"
    "\"continuation\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200,"
    "\"description\":\"pagination.continuation from search_codebase or continue_search, "
    "exactly as given.\"},"
    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":50,"
    "\"description\":\"Results to show (default: the page size of the search).\"}"
    "},"
    "\"required\":[\"continuation\"],"
    "\"additionalProperties\":false,"
    "\"examples\":[{\"continuation\":\"c:3:9b1e4f0a2c3d5e6f:8:8:6575a1b2\"}]}";

static const char continue_output[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"query\":{\"type\":\"string\"},"
    "\"scope\":{\"enum\":[\"runtime\",\"tests\",\"docs\",\"mixed\"]},"
    "\"groupBy\":{\"enum\":[\"owner\",\"file\"]},"
    "\"confidence\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1,\"description\":\"How "
    "likely the answer holds what was asked for; below the threshold the warning "
    "no_confident_match says the index probably cannot answer this question.\"},"
    "\"results\":{\"type\":\"array\",\"items\":" RESULT_SCHEMA "},"
    "\"pagination\":" PAGINATION_SCHEMA "},"
    "\"required\":[\"codebaseRoot\",\"publication\",\"freshness\",\"warnings\",\"query\","
    "\"scope\",\"results\",\"pagination\",\"truncated\"]}";

static lp_status continue_fn(lp_mcp_call *call, json_t **result, lp_error *err)
{
    lp_tools *t = lp_tools_of(call);
    lp_arena *arena = lp_mcp_call_arena(call);
    const char *handle_arg = lp_tools_arg_str(call, "continuation");
    lp_frozen_set set;
    lp_frozen_fail why = LP_FROZEN_OK;
    lp_buf next;
    lp_buf_init(&next, 0);
    json_t *out = NULL;
    lp_store *st = NULL;
    lp_publication pub;
    lp_status rc = lp_search_frozen_load(handle_arg, arena, &set, &why, err);
    if (rc) {
        lp_mcp_call_set_error_code(call, lp_frozen_fail_code(why));
        size_t n = strlen(err->msg);
        if (why != LP_FROZEN_MALFORMED)
            snprintf(err->msg + n, sizeof err->msg - n, " with search_codebase");
        goto done;
    }
    if ((rc = lp_tools_open(call, set.root, &st, &pub, err)))
        goto done;
    if ((rc = lp_search_frozen_check(&set, st, &why, err))) {
        lp_mcp_call_set_error_code(call, lp_frozen_fail_code(why));
        if (why == LP_FROZEN_DRIFTED)
            lp_error_set(err, LP_EEXPIRED,
                         "the index of %s changed since this result set was made (publication "
                         "%lld is current, the set is from %lld); run search_codebase {path: "
                         "\"%s\", query: \"%.*s\"} again",
                         set.root, (long long)pub.id, (long long)set.publication_id, set.root,
                         LP_CUT(set.query, 80));
        goto done;
    }
    uint32_t page = lp_tools_arg_uint(call, "limit", set.page);
    size_t from = set.offset;
    size_t shown = LP_MIN((size_t)page, set.ngroups - from);

    out = lp_tools_envelope(set.root, &pub, LP_MCP_STATE_READY);
    for (size_t i = 0; i < set.nwarnings; i++)
        lp_tools_warn_coded(out, set.warnings[i]);
    add_partial_warning(out, &pub);
    lp_tools_warn_writer(t, out, set.root);
    next_for_top(out, set.root, shown ? &set.groups[from] : NULL, set.query, set.scope);
    lp_fresh fresh;
    lp_error ferr = {0};
    if (lp_tools_freshness(t, set.root, pub.id, true, &fresh, &ferr))
        lp_mcp_envelope_warn(out, LP_WARN_FRESHNESS_UNKNOWN, "could not check the files on disk: %s",
                             ferr.msg);
    if (lp_tools_envelope_freshness(out, set.root, pub.id, &fresh))
        json_object_set_new(json_object_get(out, "publication"), "state",
                            lp_json_textz(LP_MCP_STATE_STALE));
    json_object_set_new(out, "query", lp_json_text(set.query, strlen(set.query)));
    json_object_set_new(out, "scope", lp_json_textz(lp_search_scope_name(set.scope)));
    json_object_set_new(out, "groupBy", lp_json_textz(lp_search_grouping_name(set.group)));
    if (set.confidence >= 0)
        json_object_set_new(out, "confidence",
                            json_real(round(set.confidence * 1000.0) / 1000.0));
    json_object_set_new(
        out, "results",
        lp_tools_search_page(set.root, set.publication_id, set.groups, set.ngroups, from, shown));
    if (shown > 0) { /* every page is fitted, the last one too */
        json_object_set_new(out, "pagination",
                            pagination_json(set.publication_id, from, shown, set.ngroups,
                                            handle_placeholder().text, set.expires_ms));
        shown = fit_page(out, lp_mcp_call_max_result_bytes(call));
    }
    lp_search_frozen_handle(&set, (uint32_t)(from + shown), page, &next);
    if (next.len && shown < page)
        lp_mcp_envelope_warn(out, LP_WARN_PAGE_SHORTENED,
                             "%zu of the %u results asked for fit the result budget; "
                             "continue_search shows the rest%s",
                             shown, page, shown ? "" : " (raise maxBytes, or the server's cap --max-result-bytes, to see one)");
    json_object_set_new(
        out, "pagination",
        pagination_json(set.publication_id, from, shown, set.ngroups, next.ptr, set.expires_ms));
    *result = out;
    out = NULL;
done:
    json_decref(out);
    lp_buf_release(&next);
    return rc;
}

const lp_mcp_tool_def lp_tool_continue_search = {
    .name = "continue_search",
    .title = "Next page of a search",
    .description =
        "Show the next results of a search_codebase answer: pass its "
        "pagination.continuation. The results come from the set frozen when the search ran "
        "(same order and scores, same index publication); nothing is searched again. The set "
        "lives 30 minutes; a continuation that is malformed, unknown, expired, or whose "
        "codebase was re-indexed since fails with continuation_malformed, "
        "continuation_unknown, continuation_expired or continuation_drifted: run "
        "search_codebase again then. Next: open a result with read_file, or continue while "
        "pagination.complete is false.",
    .input_schema = continue_input,
    .output_schema = continue_output,
    .envelope = true,
    .read_only = true,
    .idempotent = true,
    .fn = continue_fn,
};
