/*
 * channels.c: the candidate generators of a search: lexical (FTS5 + loupe_rank), exact
 * (symbol names) and the chunk lookup the dense channel needs.
 *
 * Every channel returns candidates already joined with their owner symbol, file path and
 * language in ONE statement (no per-candidate lookups). A blob shared by several paths
 * gives one candidate per path. Order inside a channel is deterministic: score desc, then
 * path, chunk start line.
 */
#include "search/search_int.h"

#include "text/text.h"

#include <math.h>

/* Columns shared by the chunk-based channels, after the channel's own first columns:
 * c.bid, c.owner, c.start_line, c.end_line, b.lang, fl.path, s.name, s.qname, s.kind,
 * s.skey, s.start_line, s.end_line, s.flags. */
#define CHUNK_COLS                                                                             \
    " c.bid, c.owner, c.start_line, c.end_line, b.lang, fl.path, s.name, s.qname, s.kind,"     \
    " s.skey, s.start_line, s.end_line, s.flags"
#define CHUNK_JOINS                                                                            \
    " JOIN blobs b ON b.bid = c.bid JOIN files fl ON fl.bid = c.bid"                           \
    " LEFT JOIN symbols s ON s.bid = c.bid AND s.ord = c.owner"

static const char *col_dup(lp_arena *a, sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return t ? lp_arena_strndup(a, (const char *)t, (size_t)sqlite3_column_bytes(s, i)) : NULL;
}

/* Read CHUNK_COLS starting at column i into c. */
static void read_chunk_cols(sqlite3_stmt *s, int i, lp_arena *a, lp_cand *c)
{
    c->bid = sqlite3_column_int64(s, i);
    c->owner = sqlite3_column_int(s, i + 1);
    c->cstart = (uint32_t)sqlite3_column_int(s, i + 2);
    c->cend = (uint32_t)sqlite3_column_int(s, i + 3);
    c->lang = sqlite3_column_int(s, i + 4);
    c->path = col_dup(a, s, i + 5);
    if (sqlite3_column_type(s, i + 6) != SQLITE_NULL) {
        c->name = col_dup(a, s, i + 6);
        c->qname = col_dup(a, s, i + 7);
        c->kind = sqlite3_column_int(s, i + 8);
        c->skey = (uint64_t)sqlite3_column_int64(s, i + 9);
        c->ostart = (uint32_t)sqlite3_column_int(s, i + 10);
        c->oend = (uint32_t)sqlite3_column_int(s, i + 11);
        c->flags = (uint32_t)sqlite3_column_int(s, i + 12);
    } else {
        c->owner = -1;
        c->kind = -1;
        c->ostart = c->cstart;
        c->oend = c->cend;
    }
}

static const char SQL_LEXICAL[] =
    "SELECT f.r," CHUNK_COLS
    " FROM (SELECT rowid AS cid, loupe_rank(chunk_fts, ?2, 1) AS r"
    "       FROM chunk_fts WHERE chunk_fts MATCH ?1 ORDER BY r DESC, rowid LIMIT ?3) f"
    " JOIN chunks c ON c.cid = f.cid" CHUNK_JOINS " ORDER BY f.r DESC, fl.path, c.start_line";

lp_status lp_channel_lexical(lp_store *st, const lp_lex_query *lq, size_t limit,
                             lp_arena *arena, lp_cand_vec *out, lp_error *err)
{
    if (lq->nphrases == 0)
        return LP_OK;
    sqlite3_stmt *s;
    lp_error perr = {0};
    lp_status rc = lp_store_prepare(st, SQL_LEXICAL, &s, &perr);
    if (rc) {
        /* First use on this connection: register loupe_rank and try again. */
        if (lp_search_rank_register(lp_store_db(st)) != SQLITE_OK)
            return lp_store_sql_error(st, "registering the search ranking", err);
        if ((rc = lp_store_prepare(st, SQL_LEXICAL, &s, err)))
            return rc;
    }
    sqlite3_bind_text(s, 1, lq->match.ptr, (int)lq->match.len, SQLITE_STATIC);
    sqlite3_bind_blob(s, 2, lq->spec.ptr, (int)lq->spec.len, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)limit);
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        lp_cand *c = lp_vec_push_zero(out);
        double r = sqlite3_column_double(s, 0);
        double q = floor(r / 65536.0);
        c->score = q / 1e4;
        c->cover = (uint64_t)(r - q * 65536.0);
        read_chunk_cols(s, 1, arena, c);
    }
    rc = step == SQLITE_DONE ? LP_OK : lp_store_sql_error(st, "searching the text index", err);
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return rc;
}

static int input_order_cmp(const void *a, const void *b)
{
    const lp_cand *x = a, *y = b;
    if (x->tier != y->tier)
        return x->tier < y->tier ? -1 : 1;
    return strcmp(x->path, y->path);
}

lp_status lp_channel_chunks(lp_store *st, const int64_t *cids, const float *scores, size_t n,
                            lp_arena *arena, lp_cand_vec *out, lp_error *err)
{
    if (n == 0)
        return LP_OK;
    /* The ids are integers we produced: safe to inline; one statement for the batch. */
    lp_buf sql;
    lp_buf_init(&sql, 256 + n * 12);
    lp_buf_puts(&sql, "SELECT c.cid," CHUNK_COLS " FROM chunks c" CHUNK_JOINS " WHERE c.cid IN (");
    for (size_t i = 0; i < n; i++)
        lp_buf_printf(&sql, "%s%lld", i ? "," : "", (long long)cids[i]);
    lp_buf_puts(&sql, ") ORDER BY c.cid, fl.path");
    sqlite3_stmt *s = NULL;
    lp_status rc = LP_OK;
    size_t first = out->len;
    if (sqlite3_prepare_v2(lp_store_db(st), sql.ptr, (int)sql.len, &s, NULL) != SQLITE_OK) {
        rc = lp_store_sql_error(st, "reading chunks", err);
        goto done;
    }
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t cid = sqlite3_column_int64(s, 0);
        lp_cand *c = lp_vec_push_zero(out);
        read_chunk_cols(s, 1, arena, c);
        c->score = 0;
        for (size_t i = 0; i < n; i++)
            if (cids[i] == cid) {
                c->score = scores[i];
                c->tier = (int)i; /* input order, for the sort below */
                break;
            }
    }
    if (step != SQLITE_DONE)
        rc = lp_store_sql_error(st, "reading chunks", err);
    /* Back to the order given (the statement returns them by cid). */
    if (out->len - first > 1)
        qsort(out->items + first, out->len - first, sizeof out->items[0], input_order_cmp);
    for (size_t i = first; i < out->len; i++)
        out->items[i].tier = 0;
done:
    sqlite3_finalize(s);
    lp_buf_release(&sql);
    return rc;
}

/* ------------------------------------------------------------------------------------------
 * Exact channel. */

static const char SQL_EXACT_NAME[] =
    "SELECT s.bid, s.ord, s.kind, s.name, s.qname, s.skey, s.start_line, s.end_line, s.flags,"
    " b.lang, fl.path FROM symbols s JOIN blobs b ON b.bid = s.bid"
    " JOIN files fl ON fl.bid = s.bid WHERE s.name = ?1 ORDER BY fl.path, s.start_line LIMIT 200";

/* Folded: the FTS name column holds the whole identifier folded ("parseargs"), so one
 * lookup finds ParseArgs, parse_args, PARSE_ARGS; the caller checks the squashed name. */
static const char SQL_EXACT_FOLDED[] =
    "SELECT DISTINCT s.bid, s.ord, s.kind, s.name, s.qname, s.skey, s.start_line, s.end_line,"
    " s.flags, b.lang, fl.path FROM chunk_fts JOIN chunks c ON c.cid = chunk_fts.rowid"
    " JOIN symbols s ON s.bid = c.bid AND s.ord = c.owner JOIN blobs b ON b.bid = s.bid"
    " JOIN files fl ON fl.bid = s.bid WHERE chunk_fts MATCH ?1"
    " ORDER BY fl.path, s.start_line LIMIT 400";

/* Normalize separators (::, #, ->, /) to '.' for qualified comparisons. */
static void norm_qname(lp_str in, lp_buf *out)
{
    lp_buf_reset(out);
    for (size_t i = 0; i < in.len; i++) {
        char ch = in.ptr[i];
        if ((ch == ':' || ch == '-') && i + 1 < in.len &&
            (in.ptr[i + 1] == ':' || in.ptr[i + 1] == '>')) {
            lp_buf_putc(out, '.');
            i++;
        } else {
            lp_buf_putc(out, ch == '#' || ch == '/' ? '.' : ch);
        }
    }
}

/* The last part of a qualified identifier. */
static lp_str last_part(lp_str id)
{
    size_t from = 0;
    for (size_t i = 0; i < id.len; i++) {
        char ch = id.ptr[i];
        if (ch == '.' || ch == '#' || ch == ':' || ch == '>')
            from = i + 1;
    }
    return lp_str_sub(id, from, id.len);
}

static void read_sym_row(sqlite3_stmt *s, lp_arena *a, lp_cand *c)
{
    c->bid = sqlite3_column_int64(s, 0);
    c->owner = sqlite3_column_int(s, 1);
    c->kind = sqlite3_column_int(s, 2);
    c->name = col_dup(a, s, 3);
    c->qname = col_dup(a, s, 4);
    c->skey = (uint64_t)sqlite3_column_int64(s, 5);
    c->ostart = c->cstart = (uint32_t)sqlite3_column_int(s, 6);
    c->oend = c->cend = (uint32_t)sqlite3_column_int(s, 7);
    c->flags = (uint32_t)sqlite3_column_int(s, 8);
    c->lang = sqlite3_column_int(s, 9);
    c->path = col_dup(a, s, 10);
}

/* Definitions that answer "where is X" before fields and variables. */
static int kind_rank(int kind)
{
    switch (kind) {
    case LP_SYM_FUNCTION:
    case LP_SYM_METHOD:
    case LP_SYM_CONSTRUCTOR:
    case LP_SYM_CLASS:
    case LP_SYM_STRUCT:
    case LP_SYM_INTERFACE:
    case LP_SYM_TRAIT:
    case LP_SYM_ENUM:
    case LP_SYM_TYPE_ALIAS:
    case LP_SYM_MACRO:
        return 0;
    default:
        return 1;
    }
}

static int exact_cmp(const void *a, const void *b)
{
    const lp_cand *x = a, *y = b;
    if (x->tier != y->tier)
        return x->tier < y->tier ? -1 : 1;
    int kx = kind_rank(x->kind), ky = kind_rank(y->kind);
    if (kx != ky)
        return kx < ky ? -1 : 1;
    int c = strcmp(x->path, y->path);
    if (c)
        return c;
    return x->ostart < y->ostart ? -1 : x->ostart > y->ostart;
}

static lp_status exact_one(lp_store *st, lp_str ident, lp_arena *arena, lp_cand_vec *out,
                           lp_buf *a, lp_buf *b, lp_error *err)
{
    lp_str name = last_part(ident);
    bool qualified = name.len != ident.len;
    size_t first = out->len;
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(st, SQL_EXACT_NAME, &s, err);
    if (rc)
        return rc;
    sqlite3_bind_text(s, 1, name.ptr, (int)name.len, SQLITE_STATIC);
    norm_qname(ident, a);
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        lp_cand c = {0};
        read_sym_row(s, arena, &c);
        norm_qname(lp_str_c(c.qname), b);
        bool qmatch = lp_str_ends_with(lp_buf_str(b), lp_buf_str(a)) &&
                      (b->len == a->len || b->ptr[b->len - a->len - 1] == '.');
        if (qualified && !qmatch)
            continue;
        c.tier = qualified ? 0 : 1;
        c.score = 1.0;
        lp_vec_push(out, c);
    }
    rc = step == SQLITE_DONE ? LP_OK : lp_store_sql_error(st, "looking up symbols", err);
    sqlite3_reset(s);
    if (rc || out->len > first)
        return rc;
    /* Nothing case-sensitive: fold. */
    lp_buf squash;
    lp_buf_init(&squash, 64);
    lp_text_squash(name, &squash);
    if (squash.len == 0 || squash.len > LP_TEXT_TOKEN_MAX) {
        lp_buf_release(&squash);
        return LP_OK;
    }
    /* The name as a phrase: the query tokenizer splits it as the index did, so parseArgs
     * meets parse_args and ParseArgs. */
    lp_buf m;
    lp_buf_init(&m, 96);
    lp_buf_puts(&m, "name : \"");
    for (size_t i = 0; i < name.len; i++)
        if (name.ptr[i] != '"')
            lp_buf_putc(&m, name.ptr[i]);
    lp_buf_putc(&m, '"');
    if ((rc = lp_store_prepare(st, SQL_EXACT_FOLDED, &s, err)))
        goto done;
    sqlite3_bind_text(s, 1, m.ptr, (int)m.len, SQLITE_STATIC);
    lp_buf sq2;
    lp_buf_init(&sq2, 64);
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        lp_cand c = {0};
        read_sym_row(s, arena, &c);
        lp_buf_reset(&sq2);
        lp_text_squash(lp_str_c(c.name), &sq2);
        if (!lp_str_eq(lp_buf_str(&sq2), lp_buf_str(&squash)))
            continue;
        c.tier = 2;
        c.score = 0.5;
        lp_vec_push(out, c);
    }
    rc = step == SQLITE_DONE ? LP_OK : lp_store_sql_error(st, "looking up symbols", err);
    sqlite3_reset(s);
    lp_buf_release(&sq2);
done:
    lp_buf_release(&m);
    lp_buf_release(&squash);
    return rc;
}

lp_status lp_channel_exact(lp_store *st, const lp_search_query *q, lp_arena *arena,
                           lp_cand_vec *out, lp_error *err)
{
    lp_buf a, b;
    lp_buf_init(&a, 128);
    lp_buf_init(&b, 128);
    lp_status rc = LP_OK;
    for (size_t i = 0; i < q->nidents && !rc; i++)
        rc = exact_one(st, lp_str_c(q->idents[i]), arena, out, &a, &b, err);
    if (!rc && out->len > 1)
        qsort(out->items, out->len, sizeof out->items[0], exact_cmp);
    lp_buf_release(&a);
    lp_buf_release(&b);
    return rc;
}
