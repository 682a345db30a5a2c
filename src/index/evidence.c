/*
 * evidence.c: writing and collecting content-keyed evidence.
 *
 * One blob = (content hash, language). Its rows: blobs, contents, symbols (bid, ord),
 * chunks (cid never reused), and one contentless FTS5 row per chunk (rowid = cid).
 */
#include "index/index_int.h"

#include "embed/embed.h"
#include "graph/graph.h"

static const char SQL_BLOB_INSERT[] =
    "INSERT INTO blobs(hash, lang, size, lines, flags, nsymbols, nchunks)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)";
static const char SQL_SYMBOL_INSERT[] =
    "INSERT INTO symbols(bid, ord, kind, name, qname, parent, ordinal, vis, flags, skey,"
    " start_byte, end_byte, start_line, end_line, sig_end_byte, doc_start_byte, doc_end_byte,"
    " doc_start_line, doc_end_line)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,"
    " ?19)";
static const char SQL_CHUNK_INSERT[] =
    "INSERT INTO chunks(bid, ord, owner, kind, start_line, end_line, start_byte, end_byte)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
static const char SQL_FTS_INSERT[] =
    "INSERT INTO chunk_fts(rowid, name, crumbs, doc, body) VALUES(?1, ?2, ?3, ?4, ?5)";
static const char SQL_FTS_DELETE[] =
    "INSERT INTO chunk_fts(chunk_fts, rowid, name, crumbs, doc, body)"
    " VALUES('delete', ?1, ?2, ?3, ?4, ?5)";
static const char SQL_BLOB_LANG[] = "SELECT lang, flags FROM blobs WHERE bid = ?1";
static const char SQL_CHUNK_IDS[] = "SELECT cid FROM chunks WHERE bid = ?1 ORDER BY ord";

static uint32_t count_lines(lp_str s)
{
    if (s.len == 0)
        return 0;
    uint32_t n = 0;
    for (const char *p = s.ptr, *end = s.ptr + s.len; (p = memchr(p, '\n', (size_t)(end - p)));
         p++)
        n++;
    return s.ptr[s.len - 1] == '\n' ? n : n + 1;
}

static lp_str span_text(lp_str content, uint32_t start, uint32_t end)
{
    if (start > content.len)
        start = (uint32_t)content.len;
    if (end > content.len)
        end = (uint32_t)content.len;
    if (end < start)
        end = start;
    return (lp_str){content.ptr + start, end - start};
}

void lp_evidence_columns(const lp_parse_result *pr, lp_str content, size_t i, lp_buf *name,
                         lp_buf *crumbs, lp_buf *doc)
{
    lp_buf_reset(name);
    lp_buf_reset(crumbs);
    lp_buf_reset(doc);
    const lp_chunk *c = &pr->chunks[i];
    if (c->owner < 0 || (size_t)c->owner >= pr->nsymbols)
        return;
    const lp_symbol *s = &pr->symbols[c->owner];
    lp_buf_puts(name, s->name ? s->name : "");
    lp_buf_puts(crumbs, s->qname ? s->qname : "");
    if (s->doc.start_line)
        lp_buf_put_str(doc, span_text(content, s->doc.start_byte, s->doc.end_byte));
}

static int bind_text(sqlite3_stmt *s, int i, const char *p, size_t n)
{
    return sqlite3_bind_text(s, i, p ? p : "", (int)n, SQLITE_STATIC);
}

static lp_status step_done(lp_store *st, sqlite3_stmt *s, const char *what, lp_error *err)
{
    int rc = sqlite3_step(s);
    lp_status r = rc == SQLITE_DONE ? LP_OK : lp_store_sql_error(st, what, err);
    sqlite3_reset(s);
    return r;
}

lp_status lp_evidence_insert(lp_store *st, lp_hash128 hash, lp_lang lang, lp_str content,
                             lp_str encoded, const lp_parse_result *pr, const uint8_t *vecs,
                             uint32_t dim, int64_t *bid_out, lp_error *err)
{
    sqlite3_stmt *s;
    lp_status rc;
    uint8_t hb[16];
    lp_hash128_bytes(hash, hb);
    if ((rc = lp_store_prepare(st, SQL_BLOB_INSERT, &s, err)))
        return rc;
    sqlite3_bind_blob(s, 1, hb, 16, SQLITE_STATIC);
    sqlite3_bind_int(s, 2, (int)lang);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)content.len);
    sqlite3_bind_int64(s, 4, count_lines(content));
    sqlite3_bind_int(s, 5, (pr->partial_parse ? LP_BLOB_PARTIAL : 0) |
                               (pr->parse_budget ? LP_BLOB_PARSE_BUDGET : 0) |
                               (pr->content_flags & LP_CONTENT_GENERATED ? LP_BLOB_GENERATED : 0) |
                               (pr->content_flags & LP_CONTENT_MINIFIED ? LP_BLOB_MINIFIED : 0));
    sqlite3_bind_int64(s, 6, (sqlite3_int64)pr->nsymbols);
    sqlite3_bind_int64(s, 7, (sqlite3_int64)pr->nchunks);
    if ((rc = step_done(st, s, "storing a file's evidence", err)))
        return rc;
    int64_t bid = sqlite3_last_insert_rowid(lp_store_db(st));
    *bid_out = bid;

    if ((rc = lp_store_content_put(st, bid, encoded, err)))
        return rc;

    for (size_t i = 0; i < pr->nsymbols; i++) {
        const lp_symbol *y = &pr->symbols[i];
        if ((rc = lp_store_prepare(st, SQL_SYMBOL_INSERT, &s, err)))
            return rc;
        const char *qn = y->qname ? y->qname : "";
        sqlite3_bind_int64(s, 1, bid);
        sqlite3_bind_int64(s, 2, (sqlite3_int64)i);
        sqlite3_bind_int(s, 3, (int)y->kind);
        bind_text(s, 4, y->name, y->name ? strlen(y->name) : 0);
        bind_text(s, 5, qn, strlen(qn));
        sqlite3_bind_int(s, 6, y->parent);
        sqlite3_bind_int64(s, 7, y->ordinal);
        sqlite3_bind_int(s, 8, (int)y->vis);
        sqlite3_bind_int64(s, 9, y->flags);
        sqlite3_bind_int64(s, 10,
                           (sqlite3_int64)lp_symbol_key(lp_str_c(qn),
                                                       lp_symbol_key_kind(y->kind, y->flags),
                                                       y->ordinal));
        sqlite3_bind_int64(s, 11, y->span.start_byte);
        sqlite3_bind_int64(s, 12, y->span.end_byte);
        sqlite3_bind_int64(s, 13, y->span.start_line);
        sqlite3_bind_int64(s, 14, y->span.end_line);
        sqlite3_bind_int64(s, 15, y->sig.end_byte);
        sqlite3_bind_int64(s, 16, y->doc.start_byte);
        sqlite3_bind_int64(s, 17, y->doc.end_byte);
        sqlite3_bind_int64(s, 18, y->doc.start_line);
        sqlite3_bind_int64(s, 19, y->doc.end_line);
        if ((rc = step_done(st, s, "storing a symbol", err)))
            return rc;
    }

    if ((rc = lp_graph_evidence_insert(st, bid, lang, pr, err)))
        return rc;

    lp_buf name, crumbs, doc;
    lp_buf_init(&name, 0);
    lp_buf_init(&crumbs, 0);
    lp_buf_init(&doc, 0);
    for (size_t i = 0; i < pr->nchunks && !rc; i++) {
        const lp_chunk *c = &pr->chunks[i];
        if ((rc = lp_store_prepare(st, SQL_CHUNK_INSERT, &s, err)))
            break;
        sqlite3_bind_int64(s, 1, bid);
        sqlite3_bind_int64(s, 2, (sqlite3_int64)i);
        sqlite3_bind_int(s, 3, c->owner);
        sqlite3_bind_int(s, 4, (int)c->kind);
        sqlite3_bind_int64(s, 5, c->span.start_line);
        sqlite3_bind_int64(s, 6, c->span.end_line);
        sqlite3_bind_int64(s, 7, c->span.start_byte);
        sqlite3_bind_int64(s, 8, c->span.end_byte);
        if ((rc = step_done(st, s, "storing a chunk", err)))
            break;
        int64_t cid = sqlite3_last_insert_rowid(lp_store_db(st));
        lp_evidence_columns(pr, content, i, &name, &crumbs, &doc);
        if ((rc = lp_store_prepare(st, SQL_FTS_INSERT, &s, err)))
            break;
        sqlite3_bind_int64(s, 1, cid);
        bind_text(s, 2, name.ptr, name.len);
        bind_text(s, 3, crumbs.ptr, crumbs.len);
        bind_text(s, 4, doc.ptr, doc.len);
        bind_text(s, 5, c->text, c->text_len);
        rc = step_done(st, s, "indexing a chunk's text", err);
    }
    lp_buf_release(&name);
    lp_buf_release(&crumbs);
    lp_buf_release(&doc);
    /* Dense vectors (embedded by the worker that parsed the file). */
    if (!rc && vecs && dim)
        rc = lp_embed_store_insert(st, bid, vecs, pr->nchunks, dim, err);
    return rc;
}

lp_status lp_evidence_fts_rows(lp_store *st, int64_t bid, lp_arena *arena, lp_fts_rows *out,
                               lp_error *err)
{
    memset(out, 0, sizeof *out);
    out->bid = bid;
    sqlite3_stmt *s;
    LP_VEC(int64_t) cids = {0};
    lp_buf raw, name, crumbs, doc;
    lp_buf_init(&raw, 0);
    lp_buf_init(&name, 0);
    lp_buf_init(&crumbs, 0);
    lp_buf_init(&doc, 0);
    lp_status rc = lp_store_prepare(st, SQL_CHUNK_IDS, &s, err);
    if (rc)
        goto done;
    sqlite3_bind_int64(s, 1, bid);
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW)
        lp_vec_push(&cids, sqlite3_column_int64(s, 0));
    sqlite3_reset(s);
    if (step != SQLITE_DONE) {
        rc = lp_store_sql_error(st, "reading a blob's chunks", err);
        goto done;
    }
    if ((rc = lp_store_prepare(st, SQL_BLOB_LANG, &s, err)))
        goto done;
    sqlite3_bind_int64(s, 1, bid);
    if (sqlite3_step(s) != SQLITE_ROW) {
        sqlite3_reset(s);
        goto done; /* no such blob: nothing to delete */
    }
    lp_lang lang = (lp_lang)sqlite3_column_int(s, 0);
    int flags = sqlite3_column_int(s, 1);
    sqlite3_reset(s);
    if (lp_store_content_get(st, bid, &raw, NULL) != LP_OK)
        goto done; /* no content: its FTS rows cannot be computed (left, as before) */
    /* A file kept as text for its parse budget was chunked as text: do the same, or the
     * values would not be the ones indexed. */
    if (flags & LP_BLOB_PARSE_BUDGET)
        lang = LP_LANG_TEXT;
    lp_str content = lp_buf_str(&raw);
    lp_parse_result pr;
    lp_error perr;
    lp_parse_opts popts = {.no_refs = true}; /* only the chunks' columns are needed */
    if (lp_parse(lang, content, &popts, arena, &pr, &perr) != LP_OK)
        goto done;
    if (pr.nchunks != cids.len)
        lp_log(LP_LOG_WARN, "index.collect_mismatch", "bid=%lld stored=%zu parsed=%zu",
               (long long)bid, cids.len, pr.nchunks);
    size_t n = LP_MIN(pr.nchunks, cids.len);
    out->cids = lp_arena_alloc(arena, lp_mul_size(n ? n : 1, sizeof *out->cids));
    out->cols = lp_arena_alloc(arena, lp_mul_size(n ? n : 1, sizeof *out->cols));
    for (size_t i = 0; i < n; i++) {
        lp_evidence_columns(&pr, content, i, &name, &crumbs, &doc);
        out->cids[i] = cids.items[i];
        out->cols[i][0] = (lp_str){lp_arena_strndup(arena, name.ptr, name.len), name.len};
        out->cols[i][1] = (lp_str){lp_arena_strndup(arena, crumbs.ptr, crumbs.len), crumbs.len};
        out->cols[i][2] = (lp_str){lp_arena_strndup(arena, doc.ptr, doc.len), doc.len};
        out->cols[i][3] = (lp_str){pr.chunks[i].text, pr.chunks[i].text_len};
        out->bytes += name.len + crumbs.len + doc.len + pr.chunks[i].text_len;
    }
    out->n = n;
done:
    lp_buf_release(&raw);
    lp_buf_release(&name);
    lp_buf_release(&crumbs);
    lp_buf_release(&doc);
    lp_vec_free(&cids);
    return rc;
}

lp_status lp_evidence_collect(lp_store *st, int64_t bid, const lp_fts_rows *rows, lp_error *err)
{
    sqlite3_stmt *s;
    lp_arena arena;
    lp_arena_init(&arena, 0);
    lp_fts_rows mine;
    lp_status rc = LP_OK;
    if (!rows) {
        if ((rc = lp_evidence_fts_rows(st, bid, &arena, &mine, err)))
            goto done;
        rows = &mine;
    }
    for (size_t i = 0; i < rows->n && !rc; i++) {
        if ((rc = lp_store_prepare(st, SQL_FTS_DELETE, &s, err)))
            break;
        sqlite3_bind_int64(s, 1, rows->cids[i]);
        for (int c = 0; c < 4; c++)
            bind_text(s, 2 + c, rows->cols[i][c].ptr, rows->cols[i][c].len);
        rc = step_done(st, s, "removing a chunk's text", err);
    }
    if (!rc)
        rc = lp_embed_store_delete(st, bid, err);
    if (rc)
        goto done;
    if ((rc = lp_graph_evidence_collect(st, bid, err)))
        goto done;
    static const char *const deletes[] = {"DELETE FROM chunks WHERE bid = ?1",
                                          "DELETE FROM symbols WHERE bid = ?1", NULL,
                                          "DELETE FROM blobs WHERE bid = ?1"};
    for (size_t i = 0; i < LP_ARRAY_LEN(deletes) && !rc; i++) {
        if (!deletes[i]) { /* the content: src/store's table */
            rc = lp_store_content_delete(st, bid, err);
            continue;
        }
        if ((rc = lp_store_prepare(st, deletes[i], &s, err)))
            break;
        sqlite3_bind_int64(s, 1, bid);
        rc = step_done(st, s, "removing unreferenced evidence", err);
    }
done:
    lp_arena_release(&arena);
    return rc;
}

lp_status lp_evidence_reset_all(lp_store *st, lp_error *err)
{
    /* each owner empties its own tables (docs/ARCHITECTURE.md, "Who owns which table") */
    lp_status rc = lp_graph_reset_all(st, err);
    if (!rc)
        rc = lp_store_exec(st,
                           "DELETE FROM files; DELETE FROM skipped; DELETE FROM chunks;"
                           "DELETE FROM symbols;",
                           err);
    if (!rc)
        rc = lp_store_content_clear(st, err);
    if (!rc)
        rc = lp_store_exec(st, "DELETE FROM blobs;", err);
    if (!rc)
        rc = lp_embed_store_clear(st, err);
    if (!rc)
        rc = lp_store_exec(st, "INSERT INTO chunk_fts(chunk_fts) VALUES('delete-all');", err);
    return rc;
}
