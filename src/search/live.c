/*
 * live.c: live evidence (contract in search.h): the current text of files a query scopes
 * with path: that changed on disk since the publication.
 *
 * The index answers from the publication; when the agent points the search at files it has
 * just edited, the indexed text is out of date. For those files only (the publication's
 * paths that pass the query's path: and -path: globs, as query.c matches them, plus literal
 * path: values naming files added since), this reads the
 * file as it is now, finds the lines that hold query words (case-insensitive), merges nearby
 * lines into regions and returns each region as a group with channel live, ahead of the
 * indexed groups. Nothing is written anywhere.
 *
 * Bounds: at most LP_LIVE_MAX_FILES files of at most LP_LIVE_MAX_FILE_BYTES each, the first
 * LP_LIVE_MAX_LINES lines of each, LP_LIVE_MAX_GROUPS regions in all; every cut is named in a
 * warning. Files with a NUL byte in their first 8 KiB are binary and not read. A file that
 * is gone is reported (live_file_deleted) and never opened. Paths with a ".." component or
 * starting with '/' are ignored (the root is never left).
 */
#include "search/search.h"

#include "scan/scan.h"

#include <ctype.h>
#include <sys/stat.h>

#define LIVE_TERMS_MAX 32
#define REGION_GAP 3 /* matched lines at most this far apart share a region */

typedef struct live_query {
    LP_VEC(char *) globs; /* path: values */
    LP_VEC(char *) terms; /* lower-case words */
} live_query;

static bool is_word(unsigned char c) { return isalnum(c) || c == '_' || c >= 0x80; }

static void add_term(live_query *q, const char *s, size_t n)
{
    if (n < 2 || q->terms.len >= LIVE_TERMS_MAX)
        return;
    char *t = lp_xmalloc(n + 1);
    for (size_t i = 0; i < n; i++)
        t[i] = (char)tolower((unsigned char)s[i]);
    t[n] = '\0';
    for (size_t i = 0; i < q->terms.len; i++) {
        if (!strcmp(q->terms.items[i], t)) {
            free(t);
            return;
        }
    }
    lp_vec_push(&q->terms, t);
}

/* Query words for matching live lines: each word-character run of the free words and sym:
 * values, and each phrase whole (lower-cased, deduplicated). */
static void add_runs(live_query *q, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        while (i < n && !is_word((unsigned char)s[i]))
            i++;
        size_t b = i;
        while (i < n && is_word((unsigned char)s[i]))
            i++;
        add_term(q, s + b, i - b);
    }
}

/* The path: globs and the words of the query, by the query language of query.c. */
static void parse_query(const char *query, lp_search_query *parsed, lp_arena *arena,
                        live_query *q)
{
    if (lp_search_query_parse(query ? query : "", arena, parsed, NULL))
        memset(parsed, 0, sizeof *parsed); /* lp_search_run refused it already */
    for (size_t i = 0; i < parsed->npaths; i++)
        lp_vec_push(&q->globs, lp_xstrdup(parsed->paths[i]));
    for (size_t i = 0; i < parsed->nwords; i++)
        add_runs(q, parsed->words[i]);
    for (size_t i = 0; i < parsed->nsyms; i++)
        add_runs(q, parsed->syms[i]);
    for (size_t i = 0; i < parsed->nphrases; i++)
        add_term(q, parsed->phrases[i], strlen(parsed->phrases[i]));
}

static void live_query_free(live_query *q)
{
    for (size_t i = 0; i < q->globs.len; i++)
        free(q->globs.items[i]);
    for (size_t i = 0; i < q->terms.len; i++)
        free(q->terms.items[i]);
    lp_vec_free(&q->globs);
    lp_vec_free(&q->terms);
}

static bool has_wildcard(const char *g) { return strpbrk(g, "*?[") != NULL; }

static bool safe_rel(const char *rel)
{
    if (!*rel || rel[0] == '/')
        return false;
    for (const char *p = rel; *p;) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return false;
        p += n + (e ? 1 : 0);
    }
    return true;
}

/* ------------------------------------------------------------------------------------------
 * Candidate files. */

typedef struct live_file {
    char *path;
    bool deleted, added;
} live_file;

typedef LP_VEC(live_file) live_files;

static bool stat_changed(const char *root, const char *rel, uint64_t size, int64_t mtime,
                         uint64_t ino, uint32_t mode, bool *gone)
{
    lp_buf abs;
    lp_buf_init(&abs, 0);
    lp_buf_printf(&abs, "%s/%s", root, rel);
    struct stat sb;
    bool changed;
    *gone = stat(abs.ptr, &sb) != 0;
    if (*gone) {
        changed = true;
    } else {
        int64_t m = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
        changed = (uint64_t)sb.st_size != size || m != mtime || (uint64_t)sb.st_ino != ino ||
                  (uint32_t)sb.st_mode != mode;
    }
    lp_buf_release(&abs);
    return changed;
}

/* Files of the publication the globs match that changed or went away, then literal paths
 * added since. *more counts changed files past LP_LIVE_MAX_FILES. */
static lp_status find_files(lp_store *st, const lp_search_query *parsed, const live_query *q,
                            live_files *out, uint32_t *more, lp_error *err)
{
    const char *root = lp_store_root(st);
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(
        st, "SELECT path, size, mtime_ns, ino, mode FROM files ORDER BY path", &s, err);
    if (rc)
        return rc;
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *path = (const char *)sqlite3_column_text(s, 0);
        if (!lp_search_query_path_ok(parsed, lp_str_c(path)))
            continue;
        bool gone;
        if (!stat_changed(root, path, (uint64_t)sqlite3_column_int64(s, 1),
                          sqlite3_column_int64(s, 2), (uint64_t)sqlite3_column_int64(s, 3),
                          (uint32_t)sqlite3_column_int64(s, 4), &gone))
            continue;
        if (!gone && out->len >= LP_LIVE_MAX_FILES) {
            (*more)++;
            continue;
        }
        live_file *f = lp_vec_push_zero(out);
        f->path = lp_xstrdup(path);
        f->deleted = gone;
    }
    if (step != SQLITE_DONE)
        rc = lp_store_sql_error(st, "listing files for live evidence", err);
    sqlite3_reset(s);
    if (rc)
        return rc;
    /* A literal path that the publication does not have: a file added since. */
    if ((rc = lp_store_prepare(st, "SELECT 1 FROM files WHERE path = ?1", &s, err)))
        return rc;
    for (size_t i = 0; i < q->globs.len; i++) {
        const char *g = q->globs.items[i];
        if (has_wildcard(g) || !safe_rel(g) || !lp_search_query_path_ok(parsed, lp_str_c(g)))
            continue;
        sqlite3_bind_text(s, 1, g, -1, SQLITE_STATIC);
        bool known = sqlite3_step(s) == SQLITE_ROW;
        sqlite3_reset(s);
        if (known)
            continue;
        lp_buf abs;
        lp_buf_init(&abs, 0);
        lp_buf_printf(&abs, "%s/%s", root, g);
        struct stat sb;
        bool regular = stat(abs.ptr, &sb) == 0 && S_ISREG(sb.st_mode);
        lp_buf_release(&abs);
        if (!regular)
            continue;
        if (out->len >= LP_LIVE_MAX_FILES) {
            (*more)++;
            continue;
        }
        live_file *f = lp_vec_push_zero(out);
        f->path = lp_xstrdup(g);
        f->added = true;
    }
    return LP_OK;
}

/* ------------------------------------------------------------------------------------------
 * Regions. */

typedef struct live_region {
    uint32_t start, end; /* lines, 1-based inclusive */
    uint32_t terms;      /* distinct query words in the region */
} live_region;

typedef LP_VEC(live_region) region_vec;

/* Bitmask of the query words line [p, p+n) holds (case-insensitive). */
static uint32_t line_terms(const live_query *q, const char *p, size_t n, lp_buf *scratch)
{
    lp_buf_reset(scratch);
    for (size_t i = 0; i < n; i++)
        lp_buf_putc(scratch, (char)tolower((unsigned char)p[i]));
    uint32_t mask = 0;
    for (size_t t = 0; t < q->terms.len; t++)
        if (strstr(scratch->ptr ? scratch->ptr : "", q->terms.items[t]))
            mask |= 1u << t;
    return mask;
}

/* The regions of text that hold query words (the first lines when the query has none). */
static void find_regions(const live_query *q, const char *text, size_t n, uint32_t *nlines,
                         bool *line_capped, region_vec *out)
{
    lp_buf scratch;
    lp_buf_init(&scratch, 256);
    uint32_t line = 0, last_hit = 0;
    uint32_t mask = 0;
    live_region cur = {0};
    *line_capped = false;
    for (size_t i = 0; i < n;) {
        if (line >= LP_LIVE_MAX_LINES) {
            *line_capped = true;
            break;
        }
        line++;
        const char *nl = memchr(text + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - text) : n;
        uint32_t m = q->terms.len ? line_terms(q, text + i, e - i, &scratch) : 0;
        if (m) {
            if (cur.start && line - last_hit > REGION_GAP) {
                cur.terms = (uint32_t)__builtin_popcount(mask);
                lp_vec_push(out, cur);
                cur.start = 0;
            }
            if (!cur.start) {
                cur.start = line;
                mask = 0;
            }
            cur.end = line;
            mask |= m;
            last_hit = line;
        }
        i = nl ? e + 1 : n;
    }
    if (cur.start) {
        cur.terms = (uint32_t)__builtin_popcount(mask);
        lp_vec_push(out, cur);
    }
    if (!q->terms.len && line) {
        live_region r = {1, LP_MIN(line, 6u), 0};
        lp_vec_push(out, r);
    }
    *nlines = line;
    lp_buf_release(&scratch);
}

/* Numbered snippet of lines [from, to] of text, at most max_lines lines of 200 bytes. */
static const char *snippet_of(const char *text, size_t n, uint32_t from, uint32_t to,
                              uint32_t max_lines, lp_arena *arena)
{
    lp_buf b;
    lp_buf_init(&b, 1024);
    uint32_t line = 1, shown = 0;
    for (size_t i = 0; i < n && line <= to && shown < max_lines;) {
        const char *nl = memchr(text + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - text) : n;
        if (line >= from) {
            lp_buf_printf(&b, "%u| ", line);
            lp_utf8_put(&b, text + i, lp_utf8_cut(text + i, e - i, 200));
            lp_buf_putc(&b, '\n');
            shown++;
        }
        line++;
        i = nl ? e + 1 : n;
    }
    const char *s = lp_arena_strndup(arena, b.ptr ? b.ptr : "", b.len);
    lp_buf_release(&b);
    return s;
}

static int live_group_cmp(const void *a, const void *b)
{
    const lp_search_group *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    int c = strcmp(x->owner.file, y->owner.file);
    if (c)
        return c;
    if (x->owner.start_line != y->owner.start_line)
        return x->owner.start_line < y->owner.start_line ? -1 : 1;
    return 0;
}

typedef LP_VEC(lp_search_group) group_vec;

/* Read one changed file and add its regions to groups. Returns false (with a warning) when
 * it was not read. */
static bool read_file_regions(lp_store *st, const live_query *q, const live_file *f,
                              uint32_t snippet_lines, int64_t published_ms, lp_arena *arena,
                              group_vec *groups, lp_search_result *res, uint32_t *line_caps)
{
    lp_buf text;
    lp_buf_init(&text, 0);
    lp_error e = {0};
    bool ok = false;
    /* The scanner's own read: below the root with no symlink escape, O_NONBLOCK, fstat
     * after the open, regular files only, bounded: a fifo or a device swapped in for an
     * indexed file is never opened for reading, let alone waited on. */
    lp_skip_reason skip = LP_SKIP_NONE;
    lp_status rc = lp_scan_read(lp_store_root(st), f->path, LP_LIVE_MAX_FILE_BYTES, &text, &skip,
                                &e);
    if (rc) {
        lp_search_result_warn(res, arena, LP_WARN_LIVE_SKIPPED, "%s changed on disk but cannot be read: %s",
                              f->path, e.msg);
        goto done;
    }
    switch (skip) {
    case LP_SKIP_NONE:
        break;
    case LP_SKIP_TOO_LARGE:
        lp_search_result_warn(res, arena,
                              LP_WARN_LIVE_SKIPPED, "%s changed on disk but is larger than %zu bytes; "
                              "its current text was not read",
                              f->path, LP_LIVE_MAX_FILE_BYTES);
        goto done;
    case LP_SKIP_BINARY:
        lp_search_result_warn(res, arena,
                              LP_WARN_LIVE_SKIPPED, "%s changed on disk and is binary now; not read",
                              f->path);
        goto done;
    case LP_SKIP_SPECIAL:
        lp_search_result_warn(res, arena,
                              LP_WARN_LIVE_SKIPPED, "%s is not a regular file on disk now (a fifo, "
                              "socket or device); not read, the published text is served",
                              f->path);
        goto done;
    default:
        lp_search_result_warn(res, arena, LP_WARN_LIVE_SKIPPED, "%s on disk is %s now; not read",
                              f->path, lp_skip_reason_text(skip));
        goto done;
    }
    region_vec regions = {0};
    uint32_t nlines = 0;
    bool capped = false;
    find_regions(q, text.ptr ? text.ptr : "", text.len, &nlines, &capped, &regions);
    *line_caps += capped;
    for (size_t i = 0; i < regions.len; i++) {
        const live_region *r = &regions.items[i];
        uint32_t from = r->start > 1 ? r->start - 1 : 1;
        uint32_t to = r->end + 1 <= nlines ? r->end + 1 : r->end;
        lp_search_group *g = lp_vec_push_zero(groups);
        g->owner.file = lp_arena_strdup(arena, f->path);
        g->owner.kind = "file";
        g->owner.start_line = from;
        g->owner.end_line = to;
        g->score = q->terms.len ? (double)r->terms / (double)q->terms.len : 0.0;
        g->channels = LP_CH_LIVE;
        g->snippet_start_line = from;
        g->snippet = snippet_of(text.ptr, text.len, from, to, snippet_lines, arena);
        g->label = lp_arena_printf(arena, "%s:%u-%u", f->path, from, to);
        g->breadcrumbs = "";
        g->published_ms = published_ms;
        g->stale = true;
        g->live = true;
    }
    lp_vec_free(&regions);
    ok = true;
done:
    lp_buf_release(&text);
    return ok;
}

lp_status lp_search_live(lp_store *st, const lp_search_request *req, lp_arena *arena,
                         lp_search_result *res, lp_error *err)
{
    live_query q = {0};
    live_files files = {0};
    group_vec live = {0};
    lp_status rc = LP_OK;
    lp_search_query parsed;
    parse_query(req->query, &parsed, arena, &q);
    if (!q.globs.len)
        goto done;
    uint32_t more = 0, line_caps = 0, read = 0, deleted = 0;
    if ((rc = find_files(st, &parsed, &q, &files, &more, err)))
        goto done;
    uint32_t snippet_lines = req->snippet_lines ? req->snippet_lines : 6;
    for (size_t i = 0; i < files.len; i++) {
        const live_file *f = &files.items[i];
        if (f->deleted) {
            deleted++;
            lp_search_result_warn(res, arena,
                                  LP_WARN_LIVE_FILE_DELETED, "%s was deleted since publication %lld; it "
                                  "was not read, and results from it show the indexed version",
                                  f->path, (long long)res->publication_id);
            continue;
        }
        read += read_file_regions(st, &q, f, snippet_lines, res->published_ms, arena, &live, res,
                                  &line_caps);
    }
    if (more)
        lp_search_result_warn(res, arena,
                              LP_WARN_LIVE_CAPPED, "%u more changed file(s) match path: but only %u are "
                              "read per search; narrow path: to see them",
                              more, LP_LIVE_MAX_FILES);
    if (line_caps)
        lp_search_result_warn(res, arena,
                              LP_WARN_LIVE_CAPPED, "%u changed file(s) are longer than %u lines; only "
                              "their first %u lines were searched",
                              line_caps, LP_LIVE_MAX_LINES, LP_LIVE_MAX_LINES);
    if (live.len)
        qsort(live.items, live.len, sizeof live.items[0], live_group_cmp);
    uint32_t limit = req->limit ? LP_MIN(req->limit, 200u) : 50u;
    size_t nlive = LP_MIN(live.len, (size_t)LP_MIN(LP_LIVE_MAX_GROUPS, limit));
    if (live.len > nlive)
        lp_search_result_warn(res, arena,
                              LP_WARN_LIVE_CAPPED, "%zu live regions matched; the best %zu are shown",
                              live.len, nlive);
    if (read)
        lp_search_result_warn(res, arena,
                              LP_WARN_LIVE_EVIDENCE, "%u file(s) matching path: changed on disk since "
                              "publication %lld; %zu region(s) of their current text were read "
                              "from disk (channel live, freshness.live) and are not indexed; "
                              "manage_index {action: \"sync\"} (loupe sync) indexes them",
                              read, (long long)res->publication_id, nlive);
    (void)deleted;
    if (nlive) {
        size_t total = LP_MIN(nlive + res->ngroups, (size_t)limit);
        lp_search_group *g = lp_arena_zalloc(arena, total * sizeof *g);
        memcpy(g, live.items, nlive * sizeof *g);
        if (total > nlive)
            memcpy(g + nlive, res->groups, (total - nlive) * sizeof *g);
        res->groups = g;
        res->ngroups = total;
    }
done:
    for (size_t i = 0; i < files.len; i++)
        free(files.items[i].path);
    lp_vec_free(&files);
    lp_vec_free(&live);
    live_query_free(&q);
    return rc;
}
