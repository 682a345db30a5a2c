/*
 * regex.c: the regex:PATTERN operator, a grep over the indexed text that answers with
 * owners (contract in search_int.h).
 *
 * The pattern is PCRE2 syntax, compiled once (UTF, invalid UTF-8 in the text matched as
 * bytes that match nothing, multi-line anchors; JIT when available) with a match limit and
 * a depth limit, so a catastrophic pattern fails on a file instead of hanging: that file is
 * skipped and a regex_too_costly warning names it. Files are read in path order from the
 * pinned publication (their indexed text, so every answer is of one generation), within
 * LP_REGEX_BUDGET_MS of wall time; past it the scan stops with regex_partial saying how far
 * it got. Each matching line is one group: its innermost owning symbol (or the line itself
 * as a file region), a snippet of the line and its neighbours, channel "regex". More lines
 * than the limit: the first ones, and result_truncated.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "search/search_int.h"

#include <pcre2.h>

#define REGEX_MATCH_LIMIT 2000000u
#define REGEX_DEPTH_LIMIT 20000u
#define REGEX_CONTEXT 1 /* lines shown before and after a matching line */

static const char SQL_FILES[] = "SELECT fl.path, fl.bid, b.lang FROM files fl"
                                " JOIN blobs b ON b.bid = fl.bid ORDER BY fl.path";
static const char SQL_OWNER[] =
    "SELECT name, qname, kind, start_line, end_line, skey FROM symbols"
    " WHERE bid = ?1 AND start_line <= ?2 AND end_line >= ?2"
    " ORDER BY start_line DESC, end_line ASC LIMIT 1";

typedef struct scan {
    lp_store *st;
    sqlite3_stmt *owner;
    pcre2_code *re;
    pcre2_match_data *md;
    pcre2_match_context *mctx;
    lp_arena *arena;
    lp_search_result *out;
    uint32_t limit;
    bool truncated;
    const char *costly; /* the first file skipped for the match limit */
    size_t ncostly;
} scan;

/* The innermost symbol around line into g's owner, else the line as a file region. */
static void set_owner(scan *sc, int64_t bid, const char *path, uint32_t line, lp_search_group *g)
{
    g->owner.file = path;
    g->owner.kind = "file";
    g->owner.start_line = g->owner.end_line = line;
    sqlite3_bind_int64(sc->owner, 1, bid);
    sqlite3_bind_int64(sc->owner, 2, line);
    if (sqlite3_step(sc->owner) == SQLITE_ROW) {
        g->owner.symbol = lp_store_col_dup(sc->arena, sc->owner, 0);
        g->owner.qname = lp_store_col_dup(sc->arena, sc->owner, 1);
        g->owner.kind = lp_symkind_name((lp_symkind)sqlite3_column_int(sc->owner, 2));
        g->owner.start_line = (uint32_t)sqlite3_column_int64(sc->owner, 3);
        g->owner.end_line = (uint32_t)sqlite3_column_int64(sc->owner, 4);
        lp_symbol_id_format(lp_symbol_path_hash(lp_str_c(path)),
                            (uint64_t)sqlite3_column_int64(sc->owner, 5), g->owner.id);
    }
    sqlite3_reset(sc->owner);
}

/* Lines [from, to] of text (1-based, from the line starting at `at`, number `line`) as
 * "N| text\n". */
static const char *snippet(lp_arena *a, const char *text, size_t len, size_t at, uint32_t line,
                           uint32_t *first)
{
    /* Back up REGEX_CONTEXT lines. */
    size_t s = at;
    uint32_t l = line;
    for (int k = 0; k < REGEX_CONTEXT && s > 0; k++) {
        size_t p = s - 1; /* the newline ending the previous line */
        while (p > 0 && text[p - 1] != '\n')
            p--;
        s = p;
        l--;
    }
    *first = l;
    lp_buf b;
    lp_buf_init(&b, 0);
    for (uint32_t n = 0; n <= (uint32_t)(line - l) + REGEX_CONTEXT && s < len; n++) {
        const char *nl = memchr(text + s, '\n', len - s);
        size_t e = nl ? (size_t)(nl - text) : len;
        size_t show = LP_MIN(e - s, (size_t)240);
        show = lp_utf8_cut(text + s, show, show);
        lp_buf_printf(&b, "%u| ", l + n);
        lp_buf_append(&b, text + s, show);
        if (show < e - s)
            lp_buf_puts(&b, " ...");
        lp_buf_putc(&b, '\n');
        s = e + 1;
    }
    const char *r = lp_arena_strndup(a, b.ptr, b.len);
    lp_buf_release(&b);
    return r;
}

/* Scan one file's text; false when the group limit is reached. */
static bool scan_file(scan *sc, int64_t bid, const char *path, const char *text, size_t len)
{
    size_t pos = 0, line_start = 0;
    uint32_t line = 1;
    while (pos <= len) {
        int rc = pcre2_match(sc->re, (PCRE2_SPTR)text, len, pos, 0, sc->md, sc->mctx);
        if (rc == PCRE2_ERROR_NOMATCH)
            return true;
        if (rc < 0) {
            if (!sc->costly)
                sc->costly = path;
            sc->ncostly++;
            return true; /* match or depth limit: this file is skipped */
        }
        size_t m = pcre2_get_ovector_pointer(sc->md)[0];
        /* Count the lines up to the match. */
        for (const char *p = text + line_start; p < text + m;) {
            const char *nl = memchr(p, '\n', (size_t)(text + m - p));
            if (!nl)
                break;
            line++;
            line_start = (size_t)(nl - text) + 1;
            p = nl + 1;
        }
        if (sc->out->ngroups == sc->limit) {
            sc->truncated = true;
            return false;
        }
        lp_search_group *g = &sc->out->groups[sc->out->ngroups++];
        memset(g, 0, sizeof *g);
        g->rank = (uint32_t)sc->out->ngroups;
        g->score = 1.0;
        g->channels = LP_CH_REGEX;
        set_owner(sc, bid, path, line, g);
        g->snippet = snippet(sc->arena, text, len, line_start, line, &g->snippet_start_line);
        /* One group per line: go on from the next line. */
        const char *nl = memchr(text + m, '\n', len - m);
        if (!nl)
            return true;
        line++;
        line_start = pos = (size_t)(nl - text) + 1;
    }
    return true;
}

lp_status lp_search_regex(lp_store *st, const lp_search_query *q, const lp_search_request *req,
                          lp_arena *arena, lp_search_result *out, lp_error *err)
{
    int ec;
    PCRE2_SIZE eoff;
    pcre2_code *re =
        pcre2_compile((PCRE2_SPTR)q->regex, PCRE2_ZERO_TERMINATED,
                      PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_MULTILINE, &ec, &eoff, NULL);
    if (!re) {
        PCRE2_UCHAR msg[160];
        pcre2_get_error_message(ec, msg, sizeof msg);
        return lp_error_set(err, LP_EINVAL,
                            "regex: does not compile at offset %zu: %s (PCRE2 syntax; quote a "
                            "pattern with spaces: regex:\"a b\")",
                            (size_t)eoff, (const char *)msg);
    }
    pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* falls back to the interpreter */
    scan sc = {.st = st, .re = re, .arena = arena, .out = out};
    sc.md = pcre2_match_data_create_from_pattern(re, NULL);
    sc.mctx = pcre2_match_context_create(NULL);
    pcre2_set_match_limit(sc.mctx, REGEX_MATCH_LIMIT);
    pcre2_set_depth_limit(sc.mctx, REGEX_DEPTH_LIMIT);
    sc.limit = req->limit ? LP_MIN(req->limit, 200u) : 50;
    out->groups = lp_arena_zalloc(arena, sc.limit * sizeof *out->groups);
    out->ngroups = 0;
    sqlite3_stmt *files = NULL;
    lp_buf text;
    lp_buf_init(&text, 0);
    lp_status rc;
    size_t admitted = 0, read = 0;
    bool more = true, out_of_time = false;
    const char *stopped_at = NULL;
    uint64_t deadline = lp_now_ns() + (uint64_t)LP_REGEX_BUDGET_MS * 1000000u;
    if ((rc = lp_store_prepare(st, SQL_FILES, &files, err)) ||
        (rc = lp_store_prepare(st, SQL_OWNER, &sc.owner, err)))
        goto done;
    int step;
    while ((step = sqlite3_step(files)) == SQLITE_ROW) {
        const char *path = (const char *)sqlite3_column_text(files, 0);
        if (!lp_search_file_admitted(q, req->scope, path, sqlite3_column_int(files, 2)))
            continue;
        admitted++;
        if (!more || out_of_time)
            continue; /* counted for the warnings */
        if (lp_now_ns() > deadline) {
            out_of_time = true;
            stopped_at = lp_arena_strdup(arena, path);
            continue;
        }
        int64_t bid = sqlite3_column_int64(files, 1);
        if (lp_store_content_get(st, bid, &text, NULL) != LP_OK)
            continue; /* no text stored (skipped or binary) */
        read++;
        more = scan_file(&sc, bid, lp_arena_strdup(arena, path), text.ptr, text.len);
    }
    if (step != SQLITE_DONE)
        rc = lp_store_sql_error(st, "reading the files for regex:", err);
    sqlite3_reset(files);
    out->group = LP_GROUP_OWNER;
    out->confidence = 1.0; /* the lines the pattern matches: nothing is estimated */
    if (rc)
        goto done;
    if (sc.truncated)
        lp_search_result_warn(out, arena,
                              LP_WARN_RESULT_TRUNCATED, "more lines match than the %u listed (the first "
                              "in path order); narrow with path: or lang:, or raise the limit "
                              "up to 200",
                              sc.limit);
    if (out_of_time)
        lp_search_result_warn(out, arena,
                              LP_WARN_REGEX_PARTIAL, "the scan stopped after %u ms at %s: %zu of %zu "
                              "files read; narrow with path: or lang:",
                              LP_REGEX_BUDGET_MS, stopped_at, read, admitted);
    if (sc.ncostly)
        lp_search_result_warn(out, arena,
                              LP_WARN_REGEX_TOO_COSTLY, "the pattern hit PCRE2's match limit in %zu "
                              "file%s (first: %s), which %s skipped; simplify nested "
                              "repetitions",
                              sc.ncostly, sc.ncostly == 1 ? "" : "s", sc.costly,
                              sc.ncostly == 1 ? "was" : "were");
done:
    lp_buf_release(&text);
    pcre2_match_context_free(sc.mctx);
    pcre2_match_data_free(sc.md);
    pcre2_code_free(re);
    return rc;
}
