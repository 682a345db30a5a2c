/*
 * listing.c: a query of filters only (path: globs or lang:, no words) lists the files they
 * match, the search agents reach for when they want "the Go files under net/http" rather
 * than an answer to a question (contract in search_int.h).
 *
 * Files come in path order from the pinned publication, each as a file group (kind "file",
 * lines 1..its line count) with its size, its top-level symbols as members (the first
 * LP_FILE_MEMBERS_MAX; nfile_owners counts them all; kind: keeps only those kinds and the
 * files that have one) and a snippet listing up to LIST_SNIPPET_SYMBOLS of them. The scope
 * narrows the listing only when it is asked for explicitly (tests, docs): a path glob is
 * already explicit about what to list. More matches than the limit: the first ones, and a
 * result_truncated warning with the count. The confidence is 1: nothing is estimated.
 */
#include "search/search_int.h"

#define LIST_SNIPPET_SYMBOLS 12

static const char SQL_FILES[] = "SELECT fl.path, fl.bid, b.lang, b.size, b.lines FROM files fl"
                                " JOIN blobs b ON b.bid = fl.bid ORDER BY fl.path";
static const char SQL_TOP[] = "SELECT name, qname, kind, start_line, end_line, skey FROM symbols"
                              " WHERE bid = ?1 AND parent < 0 ORDER BY start_line, ord";

static bool lang_ok(const lp_search_query *q, int lang)
{
    for (size_t i = 0; i < q->nlangs; i++)
        if (q->langs[i] == lang)
            return true;
    return q->nlangs == 0;
}

static bool kind_ok(const lp_search_query *q, int kind)
{
    for (size_t i = 0; i < q->nkinds; i++)
        if (q->kinds[i] == kind)
            return true;
    return q->nkinds == 0;
}

static bool scope_ok(lp_search_scope scope, int lang, const char *path)
{
    switch (scope) {
    case LP_SCOPE_TESTS:
        return (lp_search_path_roles(lp_str_c(path), NULL) & LP_ROLE_TEST) != 0;
    case LP_SCOPE_DOCS:
        return lang == LP_LANG_MARKDOWN || lang == LP_LANG_RST || lang == LP_LANG_TEXT;
    default:
        return true;
    }
}

bool lp_search_file_admitted(const lp_search_query *q, lp_search_scope scope, const char *path,
                             int lang)
{
    return path && lang_ok(q, lang) && lp_search_query_path_ok(q, lp_str_c(path)) &&
           scope_ok(scope, lang, path);
}

/* The top-level symbols of one file into g (members, count, snippet); false when kind:
 * filters are given and none of its symbols is of those kinds. */
static bool top_symbols(sqlite3_stmt *s, const lp_search_query *q, const char *path,
                        lp_search_group *g, lp_arena *arena, lp_buf *snip)
{
    lp_search_member *m = lp_arena_zalloc(arena, LP_FILE_MEMBERS_MAX * sizeof *m);
    uint64_t phash = lp_symbol_path_hash(lp_str_c(path));
    lp_buf_reset(snip);
    uint32_t n = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        int kind = sqlite3_column_int(s, 2);
        if (!kind_ok(q, kind))
            continue;
        uint32_t start = (uint32_t)sqlite3_column_int64(s, 3);
        const char *name = (const char *)sqlite3_column_text(s, 0);
        if (n < LP_FILE_MEMBERS_MAX) {
            lp_search_owner *o = &m[n].owner;
            o->file = path;
            o->symbol = lp_store_col_dup(arena, s, 0);
            o->qname = lp_store_col_dup(arena, s, 1);
            o->kind = lp_symkind_name((lp_symkind)kind);
            o->start_line = start;
            o->end_line = (uint32_t)sqlite3_column_int64(s, 4);
            lp_symbol_id_format(phash, (uint64_t)sqlite3_column_int64(s, 5), o->id);
            m[n].rank = n + 1;
        }
        if (n < LIST_SNIPPET_SYMBOLS)
            lp_buf_printf(snip, "%u| %s %s\n", start, lp_symkind_name((lp_symkind)kind),
                          name ? name : "");
        n++;
    }
    sqlite3_reset(s);
    if (n > LIST_SNIPPET_SYMBOLS)
        lp_buf_printf(snip, "... %u more\n", n - LIST_SNIPPET_SYMBOLS);
    g->members = m;
    g->nmembers = LP_MIN(n, LP_FILE_MEMBERS_MAX);
    g->nfile_owners = n;
    g->snippet = lp_arena_strndup(arena, snip->ptr, snip->len);
    g->snippet_start_line = 1;
    return n > 0 || q->nkinds == 0;
}

lp_status lp_search_list_files(lp_store *st, const lp_search_query *q,
                               const lp_search_request *req, lp_arena *arena,
                               lp_search_result *out, lp_error *err)
{
    uint32_t limit = req->limit ? LP_MIN(req->limit, 200u) : 50;
    sqlite3_stmt *files, *top;
    lp_status rc;
    if ((rc = lp_store_prepare(st, SQL_FILES, &files, err)) ||
        (rc = lp_store_prepare(st, SQL_TOP, &top, err)))
        return rc;
    out->groups = lp_arena_zalloc(arena, limit * sizeof *out->groups);
    out->ngroups = 0;
    lp_roles *roles = lp_roles_new(st);
    lp_buf snip;
    lp_buf_init(&snip, 0);
    size_t matched = 0;
    int step;
    while ((step = sqlite3_step(files)) == SQLITE_ROW) {
        const char *path = (const char *)sqlite3_column_text(files, 0);
        int64_t bid = sqlite3_column_int64(files, 1);
        int lang = sqlite3_column_int(files, 2);
        if (!lp_search_file_admitted(q, req->scope, path, lang))
            continue;
        if (out->ngroups == limit && q->nkinds == 0) {
            matched++; /* counted, not listed */
            continue;
        }
        lp_search_group g = {0};
        const char *p = lp_store_col_dup(arena, files, 0);
        sqlite3_bind_int64(top, 1, bid);
        if (!top_symbols(top, q, p, &g, arena, &snip))
            continue;
        matched++;
        if (out->ngroups == limit)
            continue;
        g.rank = (uint32_t)out->ngroups + 1;
        g.owner.file = p;
        g.owner.kind = "file";
        g.owner.start_line = 1;
        g.owner.end_line = (uint32_t)sqlite3_column_int64(files, 4);
        g.channels = LP_CH_PATH;
        g.listed = true;
        g.file_size = (uint64_t)sqlite3_column_int64(files, 3);
        g.roles = lp_roles_of(roles, bid, p, NULL);
        out->groups[out->ngroups++] = g;
    }
    if (step != SQLITE_DONE)
        rc = lp_store_sql_error(st, "listing the files of the index", err);
    sqlite3_reset(files);
    lp_buf_release(&snip);
    lp_roles_free(roles);
    out->group = LP_GROUP_FILE;
    out->confidence = 1.0; /* exactly the files the filters match: nothing is estimated */
    if (!rc && matched > out->ngroups)
        lp_search_result_warn(out, arena,
                              LP_WARN_RESULT_TRUNCATED, "%zu files match; the first %zu by path are "
                              "listed (raise the limit up to 200, or narrow the path: glob)",
                              matched, out->ngroups);
    if (!rc && matched == 0)
        lp_search_result_warn(out, arena,
                              LP_WARN_NO_FILES_MATCH, "no indexed file matches the path:/lang:%s "
                              "filters; check the glob against 'loupe status' or list a "
                              "folder with path:DIR",
                              q->nkinds ? "/kind:" : "");
    return rc;
}
