/*
 * findrefs.c: find_references: every exact textual occurrence of a symbol's name in the
 * published source (identifier-boundary matches in the stored content, not the disk),
 * ranking-independent, in path order, with spans and owning symbols. Coverage is
 * "complete" only when every published file was scanned and the publication itself is not
 * partial; budgets or a partial publication make it "partial", with the reasons.
 *
 * Matches are observational: a textual occurrence is not a proved reference (comments,
 * strings and same-name symbols match too; the owning symbol and line text let the agent
 * judge).
 */
#include "graph/graph_int.h"

static bool ident_byte(unsigned char c)
{
    return c == '_' || c == '$' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ||
           c >= 0x80;
}

static bool all_ident(const char *s)
{
    for (; *s; s++)
        if (!ident_byte((unsigned char)*s))
            return false;
    return true;
}

typedef struct fsym {
    int32_t ord;
    uint32_t start, end;
    gq_sym row;
} fsym;

/* The innermost symbol of the file containing byte offset off, or -1. */
static int32_t owner_at(const fsym *syms, size_t n, uint32_t off)
{
    int32_t best = -1;
    uint32_t best_len = UINT32_MAX;
    for (size_t i = 0; i < n; i++)
        if (syms[i].start <= off && off < syms[i].end && syms[i].end - syms[i].start < best_len) {
            best = (int32_t)i;
            best_len = syms[i].end - syms[i].start;
        }
    return best;
}

lp_status lp_graph_find_references(const lp_graph_call *call, json_t **out, lp_error *err)
{
    *out = NULL;
    const char *id = lp_gq_arg_str(call->args, "symbolId");
    if (!id)
        return lp_error_set(err, LP_EINVAL, "find_references needs symbolId (a sym:... id)");
    size_t max_results = (size_t)lp_gq_arg_int(call->args, "maxResults", 200, 1, 5000);
    const char *prefix = lp_gq_arg_str(call->args, "pathPrefix");
    if (prefix) {
        lp_status prc = lp_gq_check_rel_arg(
            "pathPrefix", prefix, json_string_length(json_object_get(call->args, "pathPrefix")),
            err);
        if (prc)
            return prc;
    }
    lp_arena arena;
    lp_arena_init(&arena, 0);
    json_t *res = json_object();
    json_object_set_new(res, "warnings", json_array());
    json_t *matches = json_array();
    gq_sym root;
    lp_publication pub;
    lp_status rc = lp_gq_symbol_by_id(call->st, id, &arena, &root, err);
    if (!rc && root.ord < 0)
        rc = lp_error_set(err, LP_EINVAL, "find_references needs a symbol id, not a file");
    if (!rc)
        rc = lp_store_current(call->st, &pub, err);
    if (rc)
        goto done;
    const char *name = root.name;
    size_t nl = strlen(name);
    bool boundary = all_ident(name);
    if (!nl) {
        rc = lp_error_set(err, LP_EINVAL, "that symbol has no name to look for");
        goto done;
    }
    /* its own statement (not the connection's cache): other queries run while it steps */
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(lp_store_db(call->st),
                           "SELECT f.fid, f.path, f.bid, c.data FROM files f JOIN contents c"
                           " ON c.bid = f.bid ORDER BY f.path",
                           -1, &s, NULL) != SQLITE_OK) {
        rc = lp_store_sql_error(call->st, "reading published content", err);
        goto done;
    }
    size_t files_scanned = 0, files_total = 0, files_with = 0, total = 0;
    uint64_t bytes = 0;
    bool cut = false, cancelled = false;
    LP_VEC(fsym) syms = {0};
    lp_buf plain;
    lp_buf_init(&plain, 0);
    while (sqlite3_step(s) == SQLITE_ROW) {
        files_total++;
        const char *path = (const char *)sqlite3_column_text(s, 1);
        if (prefix && *prefix) {
            lp_str rel;
            if (!lp_path_under(lp_str_c(prefix), lp_str_c(path), &rel) && strcmp(prefix, path) != 0)
                continue;
        }
        if (lp_graph_call_cancelled(call)) {
            cancelled = true;
            break;
        }
        files_scanned++;
        if (cut)
            continue; /* keep counting files for the coverage report */
        /* stored content is encoded (compressed): decode it before matching */
        if (lp_store_content_decode(sqlite3_column_blob(s, 3), (size_t)sqlite3_column_bytes(s, 3),
                                    &plain, NULL) != LP_OK)
            continue;
        const char *data = plain.ptr;
        size_t n = plain.len;
        bytes += n;
        bool loaded = false, any = false;
        syms.len = 0;
        const char *p = data, *end = data + n;
        uint32_t line = 1;
        const char *line_start = data, *counted = data;
        while (p < end && (p = memmem(p, (size_t)(end - p), name, nl))) {
            size_t off = (size_t)(p - data);
            bool ok = !boundary || ((off == 0 || !ident_byte((unsigned char)data[off - 1])) &&
                                    (off + nl >= n || !ident_byte((unsigned char)data[off + nl])));
            if (!ok) {
                p += 1;
                continue;
            }
            /* line number: count newlines since the last match */
            for (; counted < p; counted++)
                if (*counted == '\n') {
                    line++;
                    line_start = counted + 1;
                }
            total++;
            any = true;
            if (json_array_size(matches) >= max_results) {
                cut = true;
                break;
            }
            if (!loaded) {
                loaded = true;
                sqlite3_stmt *q;
                int64_t fid = sqlite3_column_int64(s, 0);
                if (!lp_store_prepare(call->st, "SELECT s.ord FROM files f JOIN symbols s ON"
                                                " s.bid = f.bid WHERE f.fid = ?1 ORDER BY s.ord",
                                      &q, NULL)) {
                    sqlite3_bind_int64(q, 1, fid);
                    LP_VEC(int32_t) ords = {0};
                    while (sqlite3_step(q) == SQLITE_ROW)
                        lp_vec_push(&ords, sqlite3_column_int(q, 0));
                    sqlite3_reset(q);
                    for (size_t k = 0; k < ords.len; k++) {
                        fsym *f = lp_vec_push_zero(&syms);
                        f->ord = ords.items[k];
                        if (lp_gq_symbol_at(call->st, fid, f->ord, &arena, &f->row, NULL)) {
                            syms.len--;
                            continue;
                        }
                        f->start = f->row.start_byte;
                        f->end = f->row.end_byte;
                    }
                    lp_vec_free(&ords);
                }
            }
            const char *le = memchr(p, '\n', (size_t)(end - p));
            if (!le)
                le = end;
            size_t ll = (size_t)(le - line_start);
            char *text = lp_arena_strndup(&arena, line_start, lp_utf8_cut(line_start, ll, 240));
            json_t *m = json_object();
            lp_gq_with_file(m, "file", path);
            json_object_set_new(m, "line", json_integer(line));
            json_object_set_new(m, "column", json_integer((json_int_t)(p - line_start) + 1));
            json_object_set_new(m, "startByte", json_integer((json_int_t)off));
            json_object_set_new(m, "endByte", json_integer((json_int_t)(off + nl)));
            json_object_set_new(m, "text", lp_gq_json_str(text));
            int32_t o = owner_at(syms.items, syms.len, (uint32_t)off);
            json_object_set_new(m, "owner", o >= 0 ? lp_gq_sym_json(&syms.items[o].row) : json_null());
            bool is_def = sqlite3_column_int64(s, 0) == root.fid && off >= root.start_byte &&
                          off < root.end_byte && line == root.start_line;
            json_object_set_new(m, "isDefinition", json_boolean(is_def));
            json_array_append_new(matches, m);
            p += nl;
        }
        if (any)
            files_with++;
    }
    sqlite3_finalize(s);
    lp_vec_free(&syms);
    lp_buf_release(&plain);
    if (cancelled) {
        rc = lp_error_set(err, LP_ECANCELED, "find_references was cancelled");
        goto done;
    }
    char merkle[LP_HASH_HEX];
    lp_hash128_hex(pub.merkle, merkle);
    json_t *reasons = json_array();
    if (cut)
        json_array_append_new(reasons, json_string("max_results"));
    if (pub.partial)
        json_array_append_new(reasons, json_string("publication_partial"));
    bool complete = !cut && !pub.partial;
    json_object_set_new(res, "symbol", lp_gq_sym_json(&root));
    json_object_set_new(res, "name", lp_gq_json_str(name));
    json_object_set_new(res, "identifierBoundary", json_boolean(boundary));
    json_object_set_new(res, "matches", matches);
    matches = NULL;
    json_object_set_new(
        res, "coverage",
        lp_json_pack("{s:s, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:s}", "state",
                  complete ? "complete" : "partial", "reasons", reasons, "publicationId",
                  (json_int_t)pub.id, "filesScanned", (json_int_t)files_scanned, "filesInPublication",
                  (json_int_t)files_total, "filesWithMatches", (json_int_t)files_with,
                  "totalMatches", (json_int_t)total, "bytesScanned", (json_int_t)bytes,
                  "publicationMerkle", merkle));
    json_object_set_new(res, "pathPrefix", prefix ? lp_gq_json_str(prefix) : json_null());
    if (cut)
        lp_gq_warn(res, "results_truncated",
                "%zu of at least %zu matches shown (maxResults); raise maxResults or narrow with "
                "pathPrefix",
                max_results, total);
    if (pub.partial)
        lp_gq_warn(res, "publication_partial",
                "the publication reached its byte limit: files past it were not indexed, so "
                "matches there are missing");
    lp_gq_warn(res, "textual_matches",
            "matches are textual occurrences of '%s' in published content (comments, strings and "
            "other symbols with that name included); use call_graph for proved calls",
            name);
done:
    json_decref(matches);
    lp_arena_release(&arena);
    if (rc) {
        json_decref(res);
        return rc;
    }
    *out = res;
    return LP_OK;
}
