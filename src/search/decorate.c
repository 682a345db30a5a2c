/*
 * decorate.c: the surface of a search result (contract in search.h): labels, breadcrumbs,
 * the publication time, per-group staleness by stat, live evidence (live.c), and the JSON
 * of those fields shared by the CLI and the MCP tools.
 *
 * Invariants: everything here reads the pinned publication and the file system's stat data
 * only (live.c reads file text, bounded); a group's owner, span, score and channels are never
 * changed; the order of indexed groups is kept (live groups go first, ranks are renumbered).
 */
#include "search/search.h"

#include "core/json.h"
#include <stdarg.h>
#include <sys/stat.h>

#define CRUMB_DEPTH_MAX 16

void lp_search_result_warn(lp_search_result *res, lp_arena *arena, lp_warn code, const char *fmt,
                           ...)
{
    lp_buf b;
    lp_buf_init(&b, 0);
    lp_buf_printf(&b, "%s: ", lp_warn_code(code));
    va_list ap;
    va_start(ap, fmt);
    lp_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    const char **w = lp_arena_zalloc(arena, (res->nwarnings + 1) * sizeof *w);
    for (size_t i = 0; i < res->nwarnings; i++)
        w[i] = res->warnings[i];
    w[res->nwarnings] = lp_arena_strndup(arena, b.ptr, b.len);
    res->warnings = w;
    res->nwarnings++;
    lp_buf_release(&b);
}

/* ------------------------------------------------------------------------------------------
 * Staleness: one stat per distinct file. */

typedef struct file_state {
    const char *path;
    int64_t bid; /* 0: not in the publication */
    bool stale, deleted;
    bool parse_budget; /* indexed as text: its parse went past the budget */
} file_state;

typedef LP_VEC(file_state) file_states;

static const file_state *file_state_of(lp_store *st, file_states *cache, const char *path)
{
    for (size_t i = 0; i < cache->len; i++)
        if (!strcmp(cache->items[i].path, path))
            return &cache->items[i];
    file_state *f = lp_vec_push_zero(cache);
    f->path = path;
    sqlite3_stmt *s;
    if (lp_store_prepare(st,
                         "SELECT f.bid, f.size, f.mtime_ns, f.ino, f.mode, b.flags"
                         " FROM files f JOIN blobs b USING(bid) WHERE f.path = ?1",
                         &s, NULL))
        return f;
    sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC);
    if (sqlite3_step(s) == SQLITE_ROW) {
        f->bid = sqlite3_column_int64(s, 0);
        uint64_t size = (uint64_t)sqlite3_column_int64(s, 1);
        int64_t mtime = sqlite3_column_int64(s, 2);
        uint64_t ino = (uint64_t)sqlite3_column_int64(s, 3);
        uint32_t mode = (uint32_t)sqlite3_column_int64(s, 4);
        f->parse_budget = (sqlite3_column_int(s, 5) & 2) != 0; /* LP_BLOB_PARSE_BUDGET */
        lp_buf abs;
        lp_buf_init(&abs, 0);
        lp_buf_printf(&abs, "%s/%s", lp_store_root(st), path);
        struct stat sb;
        if (stat(abs.ptr, &sb) != 0) {
            f->stale = f->deleted = true;
        } else {
            int64_t m = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
            f->stale = (uint64_t)sb.st_size != size || m != mtime || (uint64_t)sb.st_ino != ino ||
                       (uint32_t)sb.st_mode != mode;
        }
        lp_buf_release(&abs);
    }
    sqlite3_reset(s);
    return f;
}

/* ------------------------------------------------------------------------------------------
 * Labels and breadcrumbs. */

/* The file's module name: its base name without the last extension; for Go, where the
 * folder is the package, the folder's name. */
static void module_of(const char *path, lp_buf *out)
{
    const char *base = strrchr(path, '/');
    size_t plen = strlen(path);
    if (base && plen > 3 && !strcmp(path + plen - 3, ".go")) {
        const char *dir = base;
        while (dir > path && dir[-1] != '/')
            dir--;
        lp_buf_append(out, dir, (size_t)(base - dir));
        return;
    }
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot > base ? (size_t)(dot - base) : strlen(base);
    lp_buf_append(out, base, n);
}

/* "module > Parent > ... > name" from the symbol's parent chain in its blob. */
static const char *crumbs_of(lp_store *st, int64_t bid, const lp_search_group *g, lp_arena *arena)
{
    sqlite3_stmt *s;
    int32_t ord = -1, parent = -1;
    if (lp_store_prepare(st,
                         "SELECT ord, parent FROM symbols WHERE bid = ?1 AND start_line = ?2"
                         " AND qname = ?3 ORDER BY ord LIMIT 1",
                         &s, NULL))
        return "";
    sqlite3_bind_int64(s, 1, bid);
    sqlite3_bind_int(s, 2, (int)g->owner.start_line);
    sqlite3_bind_text(s, 3, g->owner.qname ? g->owner.qname : "", -1, SQLITE_STATIC);
    if (sqlite3_step(s) == SQLITE_ROW) {
        ord = sqlite3_column_int(s, 0);
        parent = sqlite3_column_int(s, 1);
    }
    sqlite3_reset(s);
    if (ord < 0)
        return "";
    const char *chain[CRUMB_DEPTH_MAX];
    size_t depth = 0;
    if (lp_store_prepare(st, "SELECT name, parent FROM symbols WHERE bid = ?1 AND ord = ?2", &s,
                         NULL))
        return "";
    while (parent >= 0 && parent != ord && depth < CRUMB_DEPTH_MAX) {
        sqlite3_bind_int64(s, 1, bid);
        sqlite3_bind_int(s, 2, parent);
        int next = -1;
        if (sqlite3_step(s) == SQLITE_ROW) {
            chain[depth++] = lp_arena_strdup(arena, (const char *)sqlite3_column_text(s, 0));
            next = sqlite3_column_int(s, 1);
        }
        sqlite3_reset(s);
        if (next >= parent) /* parents come before children: stop on anything else */
            break;
        parent = next;
    }
    lp_buf b;
    lp_buf_init(&b, 0);
    module_of(g->owner.file, &b);
    for (size_t i = depth; i > 0; i--)
        lp_buf_printf(&b, " > %s", chain[i - 1]);
    lp_buf_printf(&b, " > %s", g->owner.symbol ? g->owner.symbol : "");
    const char *out = lp_arena_strndup(arena, b.ptr, b.len);
    lp_buf_release(&b);
    return out;
}

static void label_group(lp_search_group *g, lp_arena *arena)
{
    if (g->owner.qname && *g->owner.qname)
        g->label = g->owner.qname;
    else if (g->owner.symbol && *g->owner.symbol)
        g->label = g->owner.symbol;
    else
        g->label = lp_arena_printf(arena, "%s:%u-%u", g->owner.file, g->owner.start_line,
                                   g->owner.end_line);
}

lp_status lp_search_decorate(lp_store *st, const lp_search_request *req, lp_arena *arena,
                             lp_search_result *res, lp_error *err)
{
    uint64_t t0 = lp_now_ns();
    lp_publication pub;
    lp_status rc = lp_store_current(st, &pub, err);
    if (rc)
        return rc;
    res->published_ms = pub.created_ms;
    file_states cache = {0};
    for (size_t i = 0; i < res->ngroups; i++) {
        lp_search_group *g = &res->groups[i];
        g->published_ms = pub.created_ms;
        if (g->live)
            continue;
        label_group(g, arena);
        const file_state *f = file_state_of(st, &cache, g->owner.file);
        g->stale = f->stale;
        g->deleted = f->deleted;
        if (f->parse_budget) {
            g->text_reason = "parse_budget";
            g->label = lp_arena_printf(arena, "%s [indexed as text: parse_budget]", g->label);
        }
        g->breadcrumbs = f->bid && g->owner.symbol ? crumbs_of(st, f->bid, g, arena) : "";
    }
    size_t nfiles = cache.len;
    lp_vec_free(&cache);
    uint64_t t1 = lp_now_ns();
    if ((rc = lp_search_live(st, req, arena, res, err)))
        return rc;
    res->nstale = 0;
    res->nlive = 0;
    for (size_t i = 0; i < res->ngroups; i++) {
        res->groups[i].rank = (uint32_t)i + 1;
        res->nstale += res->groups[i].stale && !res->groups[i].live;
        res->nlive += res->groups[i].live;
    }
    if (res->nstale)
        lp_search_result_warn(res, arena,
                              LP_WARN_RESULTS_STALE, "%u result(s) come from files that changed on disk "
                              "since publication %lld (freshness.stale); their spans and "
                              "snippets show the indexed version",
                              res->nstale, (long long)res->publication_id);
    lp_log(LP_LOG_DEBUG, "search.decorate",
           "ms=%.3f live_ms=%.3f groups=%zu files=%zu stale=%u live=%u",
           (double)(lp_now_ns() - t0) / 1e6, (double)(lp_now_ns() - t1) / 1e6, res->ngroups,
           nfiles, res->nstale, res->nlive);
    return LP_OK;
}

/* ------------------------------------------------------------------------------------------
 * JSON of the surface fields. */

const char *lp_search_group_next_tool(const lp_search_group *g)
{
    /* A live group's text is in its snippet already, and read_file answers from the
     * publication: the step that makes it evidence is a sync. So for a deleted file. */
    if (g->deleted || g->live)
        return "manage_index";
    if (g->owner.id[0])
        return "read_file";
    return "file_outline";
}

void lp_search_group_surface_json(struct json_t *obj, const char *root, const lp_search_group *g)
{
    json_object_set_new(obj, "label", lp_json_textz(g->label ? g->label : ""));
    json_object_set_new(obj, "breadcrumbs", lp_json_textz(g->breadcrumbs ? g->breadcrumbs : ""));
    json_t *f = json_object();
    if (g->published_ms > 0) {
        char iso[32];
        lp_format_iso8601(g->published_ms, iso);
        json_object_set_new(f, "publishedAt", lp_json_textz(iso));
    } else {
        json_object_set_new(f, "publishedAt", json_null());
    }
    json_object_set_new(f, "stale", json_boolean(g->stale));
    json_object_set_new(f, "deleted", json_boolean(g->deleted));
    json_object_set_new(f, "live", json_boolean(g->live));
    json_object_set_new(obj, "freshness", f);
    if (g->text_reason)
        json_object_set_new(obj, "indexedAsText", json_string("parse_budget"));
    /* File roles and folded copies (roles.c, search.c): only when there are some. */
    const char *names[LP_ROLE_NAMES_MAX];
    size_t nroles = lp_search_role_names(g->roles, names);
    if (nroles) {
        json_t *r = json_array();
        for (size_t i = 0; i < nroles; i++)
            json_array_append_new(r, lp_json_textz(names[i]));
        json_object_set_new(obj, "roles", r);
    }
    if (g->ndups) {
        json_t *d = json_object(), *paths = json_array();
        json_object_set_new(d, "count", json_integer(g->ndups));
        for (uint32_t i = 0; i < g->ndup_paths; i++)
            json_array_append_new(paths, lp_json_textz(g->dup_paths[i]));
        json_object_set_new(d, "paths", paths);
        json_object_set_new(obj, "duplicates", d);
    }

    const char *tool = lp_search_group_next_tool(g);
    json_t *args = json_object();
    if (!strcmp(tool, "manage_index")) {
        json_object_set_new(args, "action", json_string("sync"));
        lp_json_set_path2(args, "path", root, NULL);
    } else {
        lp_json_set_path2(args, "path", root, g->owner.file);
        if (g->owner.id[0]) {
            json_t *sym = json_object();
            json_object_set_new(sym, "symbolId", lp_json_textz(g->owner.id));
            json_object_set_new(args, "open_symbol", sym);
        }
    }
    json_t *next = json_object();
    json_object_set_new(next, "tool", lp_json_textz(tool));
    json_object_set_new(next, "arguments", args);
    json_object_set_new(obj, "recommendedNextAction", next);
}
