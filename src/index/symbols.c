/*
 * symbols.c: reading published symbols: outlines, lookups by name, by id, and source.
 */
#include "index/index_int.h"

#define SYM_COLS                                                                               \
    "f.path, s.name, s.qname, s.kind, s.start_line, s.end_line, s.start_byte, s.end_byte,"     \
    " s.sig_end_byte, s.doc_start_line, s.doc_end_line, s.ord, s.parent, s.vis, s.flags,"      \
    " s.bid, s.skey"

static void read_row(sqlite3_stmt *s, lp_arena *arena, lp_symbol_row *r)
{
    memset(r, 0, sizeof *r);
    r->path = lp_arena_strdup(arena, (const char *)sqlite3_column_text(s, 0));
    r->name = lp_arena_strdup(arena, (const char *)sqlite3_column_text(s, 1));
    r->qname = lp_arena_strdup(arena, (const char *)sqlite3_column_text(s, 2));
    r->kind = sqlite3_column_int(s, 3);
    r->start_line = (uint32_t)sqlite3_column_int64(s, 4);
    r->end_line = (uint32_t)sqlite3_column_int64(s, 5);
    r->start_byte = (uint32_t)sqlite3_column_int64(s, 6);
    r->end_byte = (uint32_t)sqlite3_column_int64(s, 7);
    r->sig_end_byte = (uint32_t)sqlite3_column_int64(s, 8);
    r->doc_start_line = (uint32_t)sqlite3_column_int64(s, 9);
    r->doc_end_line = (uint32_t)sqlite3_column_int64(s, 10);
    r->ord = sqlite3_column_int(s, 11);
    r->parent = sqlite3_column_int(s, 12);
    r->vis = sqlite3_column_int(s, 13);
    r->flags = (uint32_t)sqlite3_column_int64(s, 14);
    r->bid = sqlite3_column_int64(s, 15);
    /* the key stored at index time (lp_symbol_key of qname, kind with the declaration
     * offset, ordinal): one computation, in evidence.c */
    uint64_t key = (uint64_t)sqlite3_column_int64(s, 16);
    lp_symbol_id_format(lp_symbol_path_hash(lp_str_c(r->path)), key, r->id);
}

typedef LP_VEC(lp_symbol_row) row_vec;

static lp_status collect(lp_store *st, sqlite3_stmt *s, size_t max, lp_arena *arena, row_vec *v,
                         lp_error *err)
{
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        if (max && v->len >= max)
            break;
        read_row(s, arena, lp_vec_push_zero(v));
    }
    lp_status rc = (step == SQLITE_ROW || step == SQLITE_DONE)
                       ? LP_OK
                       : lp_store_sql_error(st, "reading symbols", err);
    sqlite3_reset(s);
    return rc;
}

/* Move a vector's rows into the arena (the caller owns only the arena). */
static void to_arena(row_vec *v, lp_arena *arena, lp_symbol_row **out, size_t *n)
{
    *n = v->len;
    *out = lp_arena_alloc(arena, lp_mul_size(v->len ? v->len : 1, sizeof **out));
    if (v->len)
        memcpy(*out, v->items, v->len * sizeof **out);
    lp_vec_free(v);
}

lp_status lp_index_outline(lp_store *st, const char *rel, lp_arena *arena, lp_symbol_row **out,
                           size_t *n, lp_error *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(st, "SELECT 1 FROM files WHERE path = ?1", &s, err);
    if (rc)
        return rc;
    sqlite3_bind_text(s, 1, rel, -1, SQLITE_STATIC);
    int step = sqlite3_step(s);
    sqlite3_reset(s);
    if (step != SQLITE_ROW) {
        lp_buf why;
        lp_buf_init(&why, 0);
        lp_index_why_absent(st, rel, &why);
        rc = lp_error_set(err, LP_ENOENT, "%s is not in the index: %s; run 'loupe sync' if it is "
                          "new", rel, why.ptr);
        lp_buf_release(&why);
        return rc;
    }
    if ((rc = lp_store_prepare(st,
                               "SELECT " SYM_COLS " FROM files f JOIN symbols s USING(bid)"
                               " WHERE f.path = ?1 ORDER BY s.ord",
                               &s, err)))
        return rc;
    sqlite3_bind_text(s, 1, rel, -1, SQLITE_STATIC);
    row_vec v = {0};
    rc = collect(st, s, 0, arena, &v, err);
    to_arena(&v, arena, out, n);
    return rc;
}

#define LP_FIND_TAILS_MAX 32

/* The suffixes of name that follow a character no symbol name starts with after a
 * separator ('.', ':', '>', ' ', '/', '#', '\\'), the longest first; at most
 * LP_FIND_TAILS_MAX. They point into name. */
static size_t qname_tails(const char *name, const char **tails)
{
    size_t n = 0;
    for (const char *p = name; *p && n < LP_FIND_TAILS_MAX; p++) {
        if (strchr(".:> /#\\", *p) && p[1] && !strchr(".:> /#\\", p[1]))
            tails[n++] = p + 1;
    }
    return n;
}

lp_status lp_index_find_symbols(lp_store *st, const char *name, size_t max, lp_arena *arena,
                                lp_symbol_row **out, size_t *n, lp_error *err)
{
    *out = NULL;
    *n = 0;
    row_vec v = {0};
    /* A qualified name ends with its symbol's name after a separator ('.', '::', ' > ', '#',
     * ...), so the name index finds it: the candidates are the name itself and every
     * suffix that follows a character that cannot be part of a name. */
    const char *tails[LP_FIND_TAILS_MAX];
    size_t ntails = qname_tails(name, tails);
    lp_buf sql;
    lp_buf_init(&sql, 512);
    lp_buf_puts(&sql, "SELECT " SYM_COLS " FROM symbols s JOIN files f USING(bid)"
                      " WHERE s.name = ?1");
    if (ntails) {
        lp_buf_puts(&sql, " OR (s.qname = ?1 AND s.name IN (");
        for (size_t i = 0; i < ntails; i++)
            lp_buf_printf(&sql, "%s?%zu", i ? ", " : "", i + 2);
        lp_buf_puts(&sql, "))");
    }
    lp_buf_puts(&sql, " ORDER BY f.path, s.start_line, s.ord");
    sqlite3_stmt *s = NULL;
    lp_status rc = LP_OK;
    if (sqlite3_prepare_v2(lp_store_db(st), sql.ptr, (int)sql.len, &s, NULL) != SQLITE_OK)
        rc = lp_store_sql_error(st, "finding symbols", err);
    lp_buf_release(&sql);
    if (rc)
        return rc;
    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    for (size_t i = 0; i < ntails; i++)
        sqlite3_bind_text(s, (int)i + 2, tails[i], -1, SQLITE_STATIC);
    rc = collect(st, s, max, arena, &v, err);
    sqlite3_finalize(s);
    if (rc)
        goto done;
    if (v.len == 0) {
        if ((rc = lp_store_prepare(st,
                                   "SELECT " SYM_COLS " FROM symbols s JOIN files f USING(bid)"
                                   " WHERE s.name = ?1 COLLATE NOCASE OR s.qname = ?1 COLLATE"
                                   " NOCASE ORDER BY f.path, s.start_line, s.ord",
                                   &s, err)))
            goto done;
        sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
        rc = collect(st, s, max, arena, &v, err);
    }
done:
    to_arena(&v, arena, out, n);
    return rc;
}

lp_status lp_index_symbol_by_id(lp_store *st, const char *id, lp_arena *arena,
                                lp_symbol_row *out, lp_error *err)
{
    uint64_t ph, key;
    if (!lp_symbol_id_parse(lp_str_c(id), &ph, &key))
        return lp_error_set(err, LP_EINVAL,
                            "'%s' is not a symbol id; ids look like sym:<24 hex digits> and come "
                            "from search, outline or symbol results",
                            id);
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(st,
                                    "SELECT " SYM_COLS " FROM files f JOIN symbols s USING(bid)"
                                    " WHERE f.phash = ?1 AND s.skey = ?2",
                                    &s, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)ph);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)key);
    row_vec v = {0};
    rc = collect(st, s, 4, arena, &v, err);
    if (!rc) {
        /* Both hashes are truncated: keep only rows whose full id really matches. */
        size_t k = 0;
        for (size_t i = 0; i < v.len; i++)
            if (!strcmp(v.items[i].id, id))
                v.items[k++] = v.items[i];
        v.len = k;
        if (v.len == 0)
            rc = lp_error_set(err, LP_ENOENT,
                              "no symbol %s in the current publication (the file or symbol "
                              "changed since the id was given); search again or outline the file",
                              id);
        else if (v.len > 1)
            rc = lp_error_set(err, LP_EAMBIGUOUS,
                              "%s matches %zu symbols (%s:%u and %s:%u); use the file outline to "
                              "pick one by span",
                              id, v.len, v.items[0].path, v.items[0].start_line, v.items[1].path,
                              v.items[1].start_line);
        else
            *out = v.items[0];
    }
    lp_vec_free(&v);
    return rc;
}

lp_status lp_index_symbol_source(lp_store *st, const lp_symbol_row *sym, size_t max_bytes,
                                 lp_arena *arena, const char **text, bool *truncated,
                                 lp_error *err)
{
    *text = "";
    *truncated = false;
    lp_buf content;
    lp_buf_init(&content, 0);
    lp_status rc = lp_store_content_get(st, sym->bid, &content, err);
    if (!rc) {
        const char *p = content.ptr;
        size_t n = content.len;
        size_t a = LP_MIN((size_t)sym->start_byte, n), b = LP_MIN((size_t)sym->end_byte, n);
        if (b < a)
            b = a;
        if (b - a > max_bytes) {
            size_t cut = a + max_bytes;
            /* Cut at a line end so the text stays readable; a first line longer than the
             * bound is cut where a character ends (never nothing at all). */
            while (cut > a && p[cut - 1] != '\n')
                cut--;
            b = cut > a ? cut : a + lp_utf8_cut(p + a, b - a, max_bytes);
            *truncated = true;
        }
        *text = lp_arena_strndup(arena, p + a, b - a);
    } else if (rc == LP_ENOENT) {
        rc = lp_error_set(err, LP_ECORRUPT, "the content of %s is missing from the index; run "
                                            "'loupe reindex'",
                          sym->path);
    }
    lp_buf_release(&content);
    return rc;
}
