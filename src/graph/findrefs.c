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

static const lp_graph_ref *arena_copy_refs(lp_arena *a, const lp_graph_ref *items, size_t n)
{
    lp_graph_ref *p = lp_arena_alloc(a, n * sizeof *p);
    memcpy(p, items, n * sizeof *p);
    return p;
}

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

lp_status lp_graph_find_references_run(const lp_graph_call *call, const lp_graph_fr_req *req,
                                      lp_arena *arena, lp_graph_fr_result *out, lp_error *err)
{
    memset(out, 0, sizeof *out);
    const char *id = req->symbol_id;
    if (!id)
        return lp_error_set(err, LP_EINVAL, "find_references needs symbolId (a sym:... id)");
    size_t max_results = (size_t)(req->max_results < 1                   ? 1
                                  : req->max_results > LP_GRAPH_REFS_MAX ? LP_GRAPH_REFS_MAX
                                                                         : req->max_results);
    const char *prefix = req->path_prefix;
    if (prefix) {
        lp_status prc = lp_gq_check_rel_arg("pathPrefix", prefix, strlen(prefix), err);
        if (prc)
            return prc;
        /* "./src", "src/" and "src" name the same folder; "." and "./" the whole root. */
        lp_str p = lp_str_c(prefix);
        for (;;) {
            if (p.len >= 2 && p.ptr[0] == '.' && p.ptr[1] == '/')
                p = lp_str_sub(p, 2, p.len);
            else if (p.len && p.ptr[0] == '/')
                p = lp_str_sub(p, 1, p.len);
            else
                break;
        }
        while (p.len && p.ptr[p.len - 1] == '/')
            p.len--;
        if (p.len == 1 && p.ptr[0] == '.')
            p.len = 0;
        prefix = p.len ? lp_arena_strndup(arena, p.ptr, p.len) : NULL;
    }
    LP_VEC(lp_graph_ref) matches = {0};
    gq_sym root;
    lp_publication pub;
    lp_status rc = lp_gq_symbol_by_id(call->st, id, arena, &root, err);
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
        const char *path_copy = NULL;
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
            if (matches.len >= max_results) {
                cut = true;
                break;
            }
            if (!loaded) {
                loaded = true;
                path_copy = lp_arena_strdup(arena, path);
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
                        if (lp_gq_symbol_at(call->st, fid, f->ord, arena, &f->row, NULL)) {
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
            lp_graph_ref m = {0};
            m.file = path_copy;
            m.line = line;
            m.column = (uint32_t)(p - line_start) + 1;
            m.start_byte = off;
            m.end_byte = off + nl;
            m.text = lp_arena_strndup(arena, line_start, lp_utf8_cut(line_start, ll, 240));
            int32_t o = owner_at(syms.items, syms.len, (uint32_t)off);
            if (o >= 0) {
                lp_graph_sym *own = lp_arena_alloc(arena, sizeof *own);
                *own = syms.items[o].row;
                m.owner = own;
            }
            m.is_definition = sqlite3_column_int64(s, 0) == root.fid && off >= root.start_byte &&
                              off < root.end_byte && line == root.start_line;
            lp_vec_push(&matches, m);
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
    lp_hash128_hex(pub.merkle, out->publication_merkle);
    out->symbol = root;
    out->name = name;
    out->identifier_boundary = boundary;
    out->matches = matches.len ? arena_copy_refs(arena, matches.items, matches.len) : NULL;
    out->nmatches = matches.len;
    out->cut = cut;
    out->publication_partial = pub.partial;
    out->publication_id = pub.id;
    out->files_scanned = files_scanned;
    out->files_total = files_total;
    out->files_with_matches = files_with;
    out->total_matches = total;
    out->bytes_scanned = bytes;
    out->path_prefix = prefix ? lp_arena_strdup(arena, prefix) : NULL;
    lp_graph_warning *w = lp_arena_zalloc(arena, 4 * sizeof *w);
    size_t nw = 0;
    if (prefix && files_scanned == 0)
        w[nw++] = (lp_graph_warning){LP_WARN_NO_FILES_MATCH,
                                     lp_arena_printf(arena,
                                                     "no published file is under pathPrefix "
                                                     "'%s' (relative to the codebase root); "
                                                     "check the folder's spelling",
                                                     prefix)};
    if (cut)
        w[nw++] = (lp_graph_warning){LP_WARN_RESULT_TRUNCATED,
                                     lp_arena_printf(arena,
                                                     "%zu of at least %zu matches shown "
                                                     "(maxResults); raise maxResults or narrow "
                                                     "with pathPrefix",
                                                     max_results, total)};
    if (pub.partial)
        w[nw++] = (lp_graph_warning){LP_WARN_INDEX_PARTIAL,
                                     "the publication reached its byte limit: files past it were "
                                     "not indexed, so matches there are missing"};
    w[nw++] = (lp_graph_warning){
        LP_WARN_TEXTUAL_MATCHES,
        lp_arena_printf(arena,
                        "matches are textual occurrences of '%s' in published content (comments, "
                        "strings and other symbols with that name included); use call_graph for "
                        "proved calls",
                        name)};
    out->warnings = w;
    out->nwarnings = nw;
done:
    lp_vec_free(&matches);
    if (rc)
        memset(out, 0, sizeof *out);
    return rc;
}

json_t *lp_graph_find_references_json(const lp_graph_fr_result *r)
{
    json_t *res = json_object();
    json_t *warnings = json_array();
    for (size_t i = 0; i < r->nwarnings; i++) {
        /* a message is cut at 511 bytes where a character ends (as every graph warning) */
        lp_buf msg;
        lp_buf_init(&msg, 512);
        lp_buf_printf(&msg, "%s", r->warnings[i].message);
        json_array_append_new(warnings, lp_json_pack("{s:o, s:o}", "code",
                                                     lp_json_textz(lp_warn_code(r->warnings[i].code)),
                                                     "message", lp_json_text(msg.ptr, msg.len)));
        lp_buf_release(&msg);
    }
    json_object_set_new(res, "warnings", warnings);
    json_t *matches = json_array();
    for (size_t i = 0; i < r->nmatches; i++) {
        const lp_graph_ref *m = &r->matches[i];
        json_t *o = json_object();
        lp_gq_with_file(o, "file", m->file);
        json_object_set_new(o, "line", json_integer(m->line));
        json_object_set_new(o, "column", json_integer(m->column));
        json_object_set_new(o, "startByte", json_integer((json_int_t)m->start_byte));
        json_object_set_new(o, "endByte", json_integer((json_int_t)m->end_byte));
        json_object_set_new(o, "text", lp_gq_json_str(m->text));
        json_object_set_new(o, "owner", m->owner ? lp_gq_sym_json(m->owner) : json_null());
        json_object_set_new(o, "isDefinition", json_boolean(m->is_definition));
        json_array_append_new(matches, o);
    }
    json_t *reasons = json_array();
    if (r->cut)
        json_array_append_new(reasons, json_string("max_results"));
    if (r->publication_partial)
        json_array_append_new(reasons, lp_json_textz(lp_warn_code(LP_WARN_INDEX_PARTIAL)));
    json_object_set_new(res, "symbol", lp_gq_sym_json(&r->symbol));
    json_object_set_new(res, "name", lp_gq_json_str(r->name));
    json_object_set_new(res, "identifierBoundary", json_boolean(r->identifier_boundary));
    json_object_set_new(res, "matches", matches);
    json_object_set_new(
        res, "coverage",
        lp_json_pack("{s:s, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:s}", "state",
                     lp_graph_fr_complete(r) ? "complete" : "partial", "reasons", reasons,
                     "publicationId", (json_int_t)r->publication_id, "filesScanned",
                     (json_int_t)r->files_scanned, "filesInPublication",
                     (json_int_t)r->files_total, "filesWithMatches",
                     (json_int_t)r->files_with_matches, "totalMatches",
                     (json_int_t)r->total_matches, "bytesScanned", (json_int_t)r->bytes_scanned,
                     "publicationMerkle", r->publication_merkle));
    json_object_set_new(res, "pathPrefix", r->path_prefix ? lp_gq_json_str(r->path_prefix) : json_null());
    return res;
}
