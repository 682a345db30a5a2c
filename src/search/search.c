/*
 * search.c: the lexical search path: FTS5 BM25 over chunks, grouped by owner.
 *
 * Query words become a quoted OR query (never raw FTS5 syntax, so no user text can inject
 * operators). Chunk hits map to (file, owner symbol); several chunks of one owner count
 * once (the best). Order: score desc, path asc, start line asc, label asc, id asc.
 */
#include "search/search.h"

#include "lang/lang.h"

#include <ctype.h>
#include <math.h>

#define FTS_CANDIDATES 400

static const char *const scope_names[] = {"runtime", "tests", "docs", "mixed"};

const char *lp_search_scope_name(lp_search_scope s)
{
    return (unsigned)s < LP_ARRAY_LEN(scope_names) ? scope_names[s] : "runtime";
}

lp_status lp_search_scope_parse(lp_str name, lp_search_scope *out, lp_error *err)
{
    for (size_t i = 0; i < LP_ARRAY_LEN(scope_names); i++) {
        if (lp_str_eq_c(name, scope_names[i])) {
            *out = (lp_search_scope)i;
            return LP_OK;
        }
    }
    return lp_error_set(err, LP_EINVAL,
                        "unknown scope '" LP_STR_FMT "'; use runtime, tests, docs or mixed",
                        LP_STR_ARG(name));
}

/* Build the FTS5 query: each word quoted, OR-ed. Returns the number of terms. */
static size_t build_match(const char *q, lp_buf *out)
{
    size_t terms = 0;
    const char *p = q;
    while (*p) {
        while (*p && !(isalnum((unsigned char)*p) || *p == '_' || (unsigned char)*p >= 0x80))
            p++;
        const char *s = p;
        while (*p && (isalnum((unsigned char)*p) || *p == '_' || (unsigned char)*p >= 0x80))
            p++;
        if (p > s) {
            if (terms++)
                lp_buf_puts(out, " OR ");
            lp_buf_putc(out, '"');
            lp_buf_append(out, s, (size_t)(p - s));
            lp_buf_putc(out, '"');
        }
    }
    return terms;
}

typedef struct cand {
    int64_t bid;
    int32_t owner;
    uint32_t start_line, end_line; /* chunk lines */
    double score;                  /* higher is better */
} cand;

typedef struct group_tmp {
    lp_search_group g;
    int64_t bid;
    uint32_t chunk_line; /* where the best chunk starts (snippet anchor) */
    uint32_t chunk_end;
} group_tmp;

static int group_cmp(const void *a, const void *b)
{
    const lp_search_group *x = &((const group_tmp *)a)->g, *y = &((const group_tmp *)b)->g;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    int c = strcmp(x->owner.file, y->owner.file);
    if (c)
        return c;
    if (x->owner.start_line != y->owner.start_line)
        return x->owner.start_line < y->owner.start_line ? -1 : 1;
    c = strcmp(x->owner.qname ? x->owner.qname : "", y->owner.qname ? y->owner.qname : "");
    if (c)
        return c;
    return strcmp(x->owner.id, y->owner.id);
}

static const char *make_snippet(lp_store *st, int64_t bid, uint32_t from, uint32_t to,
                                uint32_t max_lines, lp_arena *arena)
{
    lp_buf content;
    lp_buf_init(&content, 0);
    const char *result = "";
    if (lp_store_content_get(st, bid, &content, NULL) == LP_OK) {
        const char *p = content.ptr;
        size_t n = content.len;
        lp_buf b;
        lp_buf_init(&b, 4096);
        uint32_t line = 1;
        size_t i = 0;
        while (i < n && line < from) {
            const char *nl = memchr(p + i, '\n', n - i);
            if (!nl)
                break;
            i = (size_t)(nl - p) + 1;
            line++;
        }
        uint32_t shown = 0;
        while (i < n && line <= to && shown < max_lines) {
            const char *nl = memchr(p + i, '\n', n - i);
            size_t e = nl ? (size_t)(nl - p) : n;
            size_t len = LP_MIN(e - i, (size_t)200); /* long lines are cut */
            lp_buf_printf(&b, "%u| ", line);
            lp_buf_append(&b, p + i, len);
            lp_buf_putc(&b, '\n');
            shown++;
            line++;
            i = nl ? e + 1 : n;
        }
        result = lp_arena_strndup(arena, b.ptr, b.len);
        lp_buf_release(&b);
    }
    lp_buf_release(&content);
    return result;
}

lp_status lp_search_run(lp_store *st, const lp_search_request *req, lp_arena *arena,
                        lp_search_result *out, lp_error *err)
{
    memset(out, 0, sizeof *out);
    lp_buf match;
    lp_buf_init(&match, 64 * 1024);
    LP_VEC(cand) cands = {0};
    LP_VEC(group_tmp) groups = {0};
    lp_status rc = LP_OK;
    uint32_t limit = req->limit ? LP_MIN(req->limit, 200u) : 50;
    uint32_t snippet_lines = req->snippet_lines ? req->snippet_lines : 6;

    if (!req->query || strlen(req->query) > 4096) {
        rc = lp_error_set(err, LP_EINVAL, "the query must be 1 to 4096 bytes of text");
        goto done;
    }
    if (build_match(req->query, &match) == 0) {
        rc = lp_error_set(err, LP_EINVAL,
                          "the query has no words to search for; ask with words or identifiers, "
                          "e.g. 'where is the token refreshed'");
        goto done;
    }
    lp_publication pub;
    if ((rc = lp_store_current(st, &pub, err)))
        goto done;
    out->publication_id = pub.id;

    sqlite3_stmt *s;
    if ((rc = lp_store_prepare(st,
                               "SELECT c.bid, c.owner, c.start_line, c.end_line,"
                               " bm25(chunk_fts, 8.0, 4.0, 2.0, 1.0)"
                               " FROM chunk_fts JOIN chunks c ON c.cid = chunk_fts.rowid"
                               " WHERE chunk_fts MATCH ?1 ORDER BY rank LIMIT 400",
                               &s, err)))
        goto done;
    sqlite3_bind_text(s, 1, match.ptr, (int)match.len, SQLITE_STATIC);
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        cand c = {sqlite3_column_int64(s, 0), sqlite3_column_int(s, 1),
                  (uint32_t)sqlite3_column_int(s, 2), (uint32_t)sqlite3_column_int(s, 3),
                  -sqlite3_column_double(s, 4)};
        lp_vec_push(&cands, c);
    }
    if (step != SQLITE_DONE)
        rc = lp_store_sql_error(st, "searching", err);
    sqlite3_reset(s);
    if (rc)
        goto done;

    /* Expand each chunk to its files and owner; keep the best chunk per (file, owner). */
    for (size_t i = 0; i < cands.len; i++) {
        const cand *c = &cands.items[i];
        const char *sym_name = NULL, *sym_qname = NULL, *kind = "file";
        uint32_t os = c->start_line, oe = c->end_line;
        int okind = -1;
        uint64_t skey = 0;
        if (c->owner >= 0) {
            if ((rc = lp_store_prepare(st,
                                       "SELECT name, qname, kind, skey, start_line, end_line"
                                       " FROM symbols WHERE bid = ?1 AND ord = ?2",
                                       &s, err)))
                goto done;
            sqlite3_bind_int64(s, 1, c->bid);
            sqlite3_bind_int(s, 2, c->owner);
            if (sqlite3_step(s) == SQLITE_ROW) {
                sym_name = lp_arena_strdup(arena, (const char *)sqlite3_column_text(s, 0));
                sym_qname = lp_arena_strdup(arena, (const char *)sqlite3_column_text(s, 1));
                okind = sqlite3_column_int(s, 2);
                kind = lp_symkind_name((lp_symkind)okind);
                skey = (uint64_t)sqlite3_column_int64(s, 3); /* evidence.c computed it */
                os = (uint32_t)sqlite3_column_int(s, 4);
                oe = (uint32_t)sqlite3_column_int(s, 5);
            }
            sqlite3_reset(s);
        }
        if ((rc = lp_store_prepare(st, "SELECT path FROM files WHERE bid = ?1 ORDER BY path", &s,
                                   err)))
            goto done;
        sqlite3_bind_int64(s, 1, c->bid);
        while (sqlite3_step(s) == SQLITE_ROW) {
            const char *path = (const char *)sqlite3_column_text(s, 0);
            bool merged = false;
            for (size_t g = 0; g < groups.len && !merged; g++) {
                group_tmp *gt = &groups.items[g];
                if (gt->bid == c->bid && gt->g.owner.start_line == os &&
                    (c->owner >= 0 ? gt->g.owner.symbol != NULL : gt->chunk_line == c->start_line) &&
                    !strcmp(gt->g.owner.file, path)) {
                    merged = true; /* one owner, one vote: keep the best chunk (first seen) */
                }
            }
            if (merged)
                continue;
            group_tmp *gt = lp_vec_push_zero(&groups);
            gt->bid = c->bid;
            gt->chunk_line = c->start_line;
            gt->chunk_end = c->end_line;
            gt->g.score = c->score;
            gt->g.channels = LP_CH_LEXICAL;
            gt->g.owner.file = lp_arena_strdup(arena, path);
            gt->g.owner.symbol = sym_name;
            gt->g.owner.qname = sym_qname;
            gt->g.owner.kind = kind;
            gt->g.owner.start_line = c->owner >= 0 ? os : c->start_line;
            gt->g.owner.end_line = c->owner >= 0 ? oe : c->end_line;
            if (c->owner >= 0 && sym_qname)
                lp_symbol_id_format(lp_symbol_path_hash(lp_str_c(path)), skey,
                                    gt->g.owner.id);
        }
        sqlite3_reset(s);
    }
    if (groups.len)
        qsort(groups.items, groups.len, sizeof groups.items[0], group_cmp);
    size_t n = LP_MIN(groups.len, (size_t)limit);
    out->groups = lp_arena_zalloc(arena, (n ? n : 1) * sizeof *out->groups);
    for (size_t i = 0; i < n; i++) {
        group_tmp *gt = &groups.items[i];
        gt->g.rank = (uint32_t)i + 1;
        gt->g.snippet_start_line = gt->chunk_line;
        gt->g.snippet = make_snippet(st, gt->bid, gt->chunk_line, gt->chunk_end, snippet_lines,
                                     arena);
        out->groups[i] = gt->g;
    }
    out->ngroups = n;
    static const char *const warn_dense[] = {
        "dense_channel_absent: semantic search is not available in this build; results come "
        "from lexical matching only"};
    out->warnings = warn_dense;
    out->nwarnings = 1;
    rc = lp_search_decorate(st, req, arena, out, err); /* surface: decorate.c */
done:
    lp_buf_release(&match);
    lp_vec_free(&cands);
    lp_vec_free(&groups);
    return rc;
}
