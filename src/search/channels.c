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

#include <ctype.h>
#include <math.h>

#define LONG_MIN_GROUPS 6 /* long text: always the best 6 terms, whatever they cost */
#define LONG_COUNTED 40    /* long text: terms whose row counts are looked up at a time */
#define LONG_FOUND 20      /* ... until this many of them occur in the index */
#define LONG_COUNT_MAX 160 /* ... or this many were looked up */

/* Columns shared by the chunk-based channels, after the channel's own first columns:
 * c.bid, c.owner, c.start_line, c.end_line, b.lang, fl.path, s.name, s.qname, s.kind,
 * s.skey, s.start_line, s.end_line, s.flags. */
#define CHUNK_COLS                                                                             \
    " c.bid, c.owner, c.start_line, c.end_line, b.lang, fl.path, s.name, s.qname, s.kind,"     \
    " s.skey, s.start_line, s.end_line, s.flags"
#define CHUNK_JOINS                                                                            \
    " JOIN blobs b ON b.bid = c.bid JOIN files fl ON fl.bid = c.bid"                           \
    " LEFT JOIN symbols s ON s.bid = c.bid AND s.ord = c.owner"

/* Read CHUNK_COLS starting at column i into c. */
static void read_chunk_cols(sqlite3_stmt *s, int i, lp_arena *a, lp_cand *c)
{
    c->bid = sqlite3_column_int64(s, i);
    c->owner = sqlite3_column_int(s, i + 1);
    c->cstart = (uint32_t)sqlite3_column_int(s, i + 2);
    c->cend = (uint32_t)sqlite3_column_int(s, i + 3);
    c->lang = sqlite3_column_int(s, i + 4);
    c->path = lp_store_col_dup(a, s, i + 5);
    if (sqlite3_column_type(s, i + 6) != SQLITE_NULL) {
        c->name = lp_store_col_dup(a, s, i + 6);
        c->qname = lp_store_col_dup(a, s, i + 7);
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

/* ------------------------------------------------------------------------------------------
 * Synonym budget: an OR query costs one ranking call per matching row, and a synonym of a
 * query word can be a very common word ("make" for "new") that adds thousands of rows and
 * little signal. Literal words are always searched; synonyms are taken rarest first while
 * the rows they can match stay within a budget. Row counts come from the index's vocabulary
 * (fts5vocab). Pruning literal words too was measured and cost quality on the largest
 * corpus (docs/decisions/0003-search-fusion.md). */

typedef struct df_ctx {
    lp_store *st;
    sqlite3_stmt *s;
    int64_t phrase_df; /* min over positions */
    int64_t pos_df;    /* max over the alternatives at the current position */
    uint32_t pos;
    bool any;
} df_ctx;

static int64_t term_df(sqlite3_stmt *s, const char *t, size_t n)
{
    sqlite3_bind_text(s, 1, t, (int)n, SQLITE_TRANSIENT);
    int64_t df = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
    sqlite3_reset(s);
    return df;
}

static void df_close_pos(df_ctx *c)
{
    if (c->any && c->pos_df < c->phrase_df)
        c->phrase_df = c->pos_df;
}

static int df_token(void *ctx, const lp_text_token *t)
{
    df_ctx *c = ctx;
    if (!c->any || t->position != c->pos) {
        df_close_pos(c);
        c->pos = t->position;
        c->pos_df = 0;
        c->any = true;
    }
    int64_t d = term_df(c->s, t->text, t->len);
    if (d > c->pos_df)
        c->pos_df = d;
    if (!(t->flags & (LP_TEXT_TOK_WHOLE | LP_TEXT_TOK_NUMBER | LP_TEXT_TOK_CJK))) {
        char stem[LP_TEXT_TOKEN_MAX + 1];
        size_t n = lp_text_stem((lp_str){t->text, t->len}, stem);
        if (n && (n != t->len || memcmp(stem, t->text, n))) {
            d = term_df(c->s, stem, n);
            if (d > c->pos_df)
                c->pos_df = d;
        }
    }
    return 0;
}

/* The statement "document count of a term" over the index's vocabulary, or NULL (then
 * nothing is pruned or selected by frequency: slower, or less focused, never wrong). */
static sqlite3_stmt *vocab_stmt(lp_store *st)
{
    sqlite3_stmt *s;
    lp_error e = {0};
    if (!lp_store_prepare(st, "SELECT doc FROM temp.loupe_vocab WHERE term = ?1", &s, &e))
        return s;
    /* a TEMP table over the index's own vocabulary, made by src/store */
    lp_status vrc = lp_store_vocab_attach(st, &e);
    if (vrc || lp_store_prepare(st, "SELECT doc FROM temp.loupe_vocab WHERE term = ?1", &s, &e)) {
        lp_log(LP_LOG_DEBUG, "search.vocab_off", "reason=%s", e.msg);
        return NULL;
    }
    return s;
}

/* Rows that contain every position of text (the rarest position's count; an
 * alternative spelling at a position counts as the more common one). */
static int64_t phrase_df(lp_store *st, sqlite3_stmt *s, lp_text_tokenizer *tk, const char *text)
{
    df_ctx c = {st, s, INT64_MAX, 0, 0, false};
    lp_text_tokenize(tk, lp_str_c(text), df_token, &c);
    df_close_pos(&c);
    return c.any ? c.phrase_df : 0;
}

static void prune_phrases(lp_store *st, lp_lex_query *lq, double budget)
{
    bool any_syn = false;
    for (size_t i = 0; i < lq->nphrases; i++)
        any_syn |= !lq->phrase_literal[i];
    if (budget <= 0 || !any_syn)
        return;
    sqlite3_stmt *s = vocab_stmt(st);
    if (!s)
        return;
    lp_text_tokenizer *tk = lp_text_tokenizer_new(LP_TEXT_CODE);
    int64_t df[LP_LEX_MAX_PHRASES];
    size_t order[LP_LEX_MAX_PHRASES];
    for (size_t i = 0; i < lq->nphrases; i++) {
        order[i] = i;
        df[i] = 0;
        if (lq->phrase_literal[i])
            continue; /* literal words are always searched; only synonyms are budgeted */
        df[i] = phrase_df(st, s, tk, lq->phrase_text[i]);
    }
    lp_text_tokenizer_free(tk);
    /* Rarest first (insertion sort: at most 128), ties in query order. */
    for (size_t i = 1; i < lq->nphrases; i++)
        for (size_t j = i; j > 0 && df[order[j]] < df[order[j - 1]]; j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    bool keep[LP_LEX_MAX_PHRASES] = {false};
    double rows = 0;
    for (size_t k = 0; k < lq->nphrases; k++) {
        size_t i = order[k];
        bool literal = lq->phrase_literal[i];
        if (!literal && (df[i] == 0 || rows + (double)df[i] > budget))
            continue;
        keep[i] = true;
        rows += (double)df[i];
    }
    lp_lex_query_keep(lq, keep);
}

/* ------------------------------------------------------------------------------------------
 * Long text (an issue, a stack trace, a log): more terms than a question has. Each term is
 * weighed by what it can tell apart (its idf in this index) and how often the text says it
 * (saturated); the best are searched, while the rows they can match stay within a budget
 * (the rarest ones first always fit), so a 300-word issue costs about what a question does. */

/* Rows of the text index, from FTS5's own "averages" record (rowid 1 of the data table:
 * a varint row count first); 0 when it cannot be read. */
static double fts_rows(lp_store *st)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(lp_store_db(st), "SELECT block FROM chunk_fts_data WHERE id = 1", -1,
                           &s, NULL) != SQLITE_OK)
        return 0;
    double rows = 0;
    if (sqlite3_step(s) == SQLITE_ROW) {
        const unsigned char *p = sqlite3_column_blob(s, 0);
        int n = sqlite3_column_bytes(s, 0);
        uint64_t v = 0;
        for (int i = 0; p && i < n && i < 9; i++) {
            if (i == 8) {
                v = (v << 8) | p[i];
                break;
            }
            v = (v << 7) | (p[i] & 0x7f);
            if (!(p[i] & 0x80))
                break;
        }
        rows = (double)v;
    }
    sqlite3_finalize(s);
    return rows;
}

typedef struct term_rank {
    size_t i;
    double w;
    int64_t df;
} term_rank;

static int term_rank_cmp(const void *a, const void *b)
{
    const term_rank *x = a, *y = b;
    if (x->w != y->w)
        return x->w > y->w ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Rows containing text, counted up to cap (the vocabulary's own counts walk a common word's
 * whole posting list, which for 150 words of an issue costs a second; a capped count stops
 * early, and a word past the cap is common whatever its exact count). -1 on error. */
static int64_t capped_df(sqlite3_stmt *s, const char *text, int64_t cap)
{
    lp_buf m;
    lp_buf_init(&m, strlen(text) + 8);
    lp_lex_put_phrase(&m, text);
    sqlite3_bind_text(s, 1, m.ptr, (int)m.len, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, cap);
    int64_t n = 0;
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW)
        n++;
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    lp_buf_release(&m);
    return step == SQLITE_DONE ? n : -1;
}

/* What the text alone says of a term's promise (before any count): explicit phrases and
 * syms, identifier-looking words (snake_case, camelCase; not digits, which a pasted log's
 * generated names are full of), repetition, length. */
static double text_prior(const lp_lex_term *t)
{
    double p = (double)LP_MIN(t->count, 4u);
    if (t->flags & (LP_LEX_TERM_PHRASE | LP_LEX_TERM_SYM))
        p += 8;
    bool ident = false;
    size_t len = strlen(t->text);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)t->text[i];
        ident |= c == '_' || (i > 0 && isupper(c) && islower((unsigned char)t->text[i - 1]));
    }
    if (ident)
        p += 4;
    return p + (double)LP_MIN(len, (size_t)12) / 4.0;
}

static void select_terms(lp_store *st, lp_lex_query *lq, lp_arena *arena)
{
    const lp_search_tuning *t = lp_search_tuning_get();
    size_t n = lq->nterms;
    size_t *order = lp_arena_alloc(arena, (n ? n : 1) * sizeof *order);
    double rows_total = fts_rows(st);
    sqlite3_stmt *s = NULL;
    lp_error e = {0};
    if (rows_total <= 0 ||
        lp_store_prepare(st, "SELECT rowid FROM chunk_fts WHERE chunk_fts MATCH ?1 LIMIT ?2", &s,
                         &e)) {
        /* No frequencies: the first terms, in order. */
        size_t k = LP_MIN(n, (size_t)LP_LEX_SHORT_TERMS);
        for (size_t i = 0; i < k; i++)
            order[i] = i;
        lp_lex_query_use_terms(lq, arena, order, k);
        lq->nselected = k;
        return;
    }
    /* Past this many rows a term is common (5% of the rows by default, at most 2,000 so a
     * long text's counting stays bounded). */
    int64_t cap = (int64_t)LP_MAX(50.0, LP_MIN(2000.0, t->long_common * rows_total));
    term_rank *r = lp_arena_alloc(arena, (n ? n : 1) * sizeof *r);
    /* Counting costs about a millisecond a term whatever the cap (FTS5 opens the term in
     * every segment), so only the LONG_COUNTED most promising terms by the text alone are
     * counted: asked-for phrases and syms, identifiers, repeated words, then longer words. */
    for (size_t i = 0; i < n; i++)
        r[i] = (term_rank){i, text_prior(&lq->terms[i]), 0};
    /* The whole of a hyphenated or slashed word ("text/template") is a phrase: FTS5 reads
     * every position of its parts to find it, which for common parts costs more than the
     * rest of the text; in long text its parts are terms anyway. */
    for (size_t i = 0; i < n; i++)
        if (lq->terms[r[i].i].flags & (LP_LEX_TERM_WHOLE | LP_LEX_TERM_NOISE))
            r[i].w = -1;
    qsort(r, n, sizeof *r, term_rank_cmp);
    /* Count the most promising terms first, LONG_COUNTED at a time, and go on while fewer
     * than LONG_FOUND of them occur in the index (a pasted log's identifiers may all be
     * foreign: then the plain words behind them decide), up to LONG_COUNT_MAX. */
    size_t eligible = 0;
    while (eligible < n && r[eligible].w >= 0)
        eligible++;
    size_t counted = 0, found = 0;
    term_rank *sc = lp_arena_alloc(arena, (n ? n : 1) * sizeof *sc);
    while (counted < eligible && counted < LONG_COUNT_MAX &&
           (counted == 0 || (counted % LONG_COUNTED == 0 && found < LONG_FOUND))) {
        size_t batch_end = LP_MIN(eligible, counted + LONG_COUNTED);
        for (; counted < batch_end; counted++) {
            size_t i = r[counted].i;
            const lp_lex_term *term = &lq->terms[i];
            int64_t df = capped_df(s, term->text, cap);
            double w = 0;
            if (df >= cap)
                df = (int64_t)LP_MAX((double)cap, t->long_common * rows_total);
            if (df > 0) {
                double d = (double)df;
                double idf = log(1.0 + (rows_total - d + 0.5) / (d + 0.5));
                w = idf * 2.5 * term->count / (1.5 + term->count);
                if (term->flags & (LP_LEX_TERM_PHRASE | LP_LEX_TERM_SYM))
                    w *= 2.0; /* asked for explicitly */
                if (d >= (double)cap)
                    w *= 0.1; /* in much of the code: little to tell apart */
                found++;
            } else {
                lq->nunindexed++;
            }
            sc[counted] = (term_rank){i, w, df};
        }
    }
    r = sc;
    n = counted;
    qsort(r, n, sizeof *r, term_rank_cmp);
    size_t k = 0;
    double rows = 0;
    size_t max_groups = LP_MIN((size_t)t->long_groups, (size_t)LP_LEX_MAX_GROUPS);
    for (size_t j = 0; j < n && k < max_groups; j++) {
        if (r[j].w <= 0)
            break;
        if (k >= LONG_MIN_GROUPS && rows + (double)r[j].df > t->long_rows)
            continue; /* a rarer term later may still fit */
        order[k++] = r[j].i;
        rows += (double)r[j].df;
    }
    lp_lex_query_use_terms(lq, arena, order, k);
    lq->nselected = k;
    if (lp_log_enabled(LP_LOG_DEBUG)) {
        lp_buf b;
        lp_buf_init(&b, 512);
        for (size_t j = 0; j < n; j++)
            lp_buf_printf(&b, "%s%s:%lld:%.2f", j ? " " : "", lq->terms[r[j].i].text,
                          (long long)r[j].df, r[j].w);
        lp_log(LP_LOG_DEBUG, "search.long_terms", "rows=%.0f cap=%lld selected=%zu terms=%s",
               rows_total, (long long)cap, k, b.ptr);
        lp_buf_release(&b);
    }
}

lp_status lp_channel_lexical(lp_store *st, lp_lex_query *lq, size_t limit, lp_arena *arena,
                             lp_cand_vec *out, lp_error *err)
{
    if (lq->pending)
        select_terms(st, lq, arena);
    prune_phrases(st, lq, lp_search_tuning_get()->budget);
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
    c->name = lp_store_col_dup(a, s, 3);
    c->qname = lp_store_col_dup(a, s, 4);
    c->skey = (uint64_t)sqlite3_column_int64(s, 5);
    c->ostart = c->cstart = (uint32_t)sqlite3_column_int(s, 6);
    c->oend = c->cend = (uint32_t)sqlite3_column_int(s, 7);
    c->flags = (uint32_t)sqlite3_column_int(s, 8);
    c->lang = sqlite3_column_int(s, 9);
    c->path = lp_store_col_dup(a, s, 10);
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
        /* The stored qualified name ends with the asked one (Bar.baz asked, pkg.Bar.baz
         * stored), or the asked one (a frame's com.x.Bar.baz) ends with the stored one. */
        bool qmatch = (lp_str_ends_with(lp_buf_str(b), lp_buf_str(a)) &&
                       (b->len == a->len || b->ptr[b->len - a->len - 1] == '.')) ||
                      (b->len < a->len && lp_str_ends_with(lp_buf_str(a), lp_buf_str(b)) &&
                       a->ptr[a->len - b->len - 1] == '.' &&
                       lp_str_find_char(lp_buf_str(b), '.', 0) != SIZE_MAX);
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

/* ------------------------------------------------------------------------------------------
 * Path channel: files the question names (lp_search_query.hints). A hint is matched by its
 * last folders and file name ("flask/app.py" of "/usr/lib/python3/site-packages/flask/app.py"),
 * then by fewer of them; a file name found in more than PATH_MAX_FILES places says nothing.
 * The channel lists the exact and then the lexical candidates in those files first (their
 * order), then the files' top-level symbols in line order. */

#define PATH_MAX_FILES 4
#define PATH_MAX_CANDS 100

static const char SQL_PATH_FILES[] =
    "SELECT path FROM files WHERE path = ?1 OR path LIKE ?2 ESCAPE '\\' ORDER BY path LIMIT 5";
static const char SQL_PATH_SYMS[] =
    "SELECT s.bid, s.ord, s.kind, s.name, s.qname, s.skey, s.start_line, s.end_line, s.flags,"
    " b.lang, fl.path FROM files fl JOIN blobs b ON b.bid = fl.bid"
    " JOIN symbols s ON s.bid = fl.bid WHERE fl.path = ?1 AND s.parent < 0"
    " ORDER BY s.start_line LIMIT 60";

/* The last n segments of h (all when it has fewer), or an empty slice. */
static lp_str last_segments(lp_str h, size_t n)
{
    size_t k = h.len, seen = 0;
    while (k > 0) {
        if (h.ptr[k - 1] == '/' && ++seen == n)
            break;
        k--;
    }
    lp_str t = lp_str_sub(h, k, h.len);
    while (t.len && t.ptr[0] == '/')
        t = lp_str_sub(t, 1, t.len);
    return t;
}

static size_t match_files(lp_store *st, lp_str key, const char **found, lp_arena *arena,
                          lp_error *err, lp_status *rc)
{
    sqlite3_stmt *s;
    if ((*rc = lp_store_prepare(st, SQL_PATH_FILES, &s, err)))
        return 0;
    lp_buf like;
    lp_buf_init(&like, key.len + 8);
    lp_buf_puts(&like, "%/");
    for (size_t i = 0; i < key.len; i++) {
        if (key.ptr[i] == '%' || key.ptr[i] == '_' || key.ptr[i] == '\\')
            lp_buf_putc(&like, '\\');
        lp_buf_putc(&like, key.ptr[i]);
    }
    sqlite3_bind_text(s, 1, key.ptr, (int)key.len, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, like.ptr, (int)like.len, SQLITE_STATIC);
    size_t n = 0;
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        if (n < PATH_MAX_FILES + 1)
            found[n] = lp_store_col_dup(arena, s, 0);
        n++;
    }
    if (step != SQLITE_DONE)
        *rc = lp_store_sql_error(st, "matching file names", err);
    sqlite3_reset(s);
    lp_buf_release(&like);
    return n;
}

static bool path_in(const char *p, const char *const *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(p, set[i]))
            return true;
    return false;
}

lp_status lp_channel_path(lp_store *st, const lp_search_query *q, const lp_cand_vec *exact,
                          const lp_cand_vec *lex, lp_arena *arena, lp_cand_vec *out,
                          lp_error *err)
{
    if (q->nhints == 0)
        return LP_OK;
    const char *files[LP_QUERY_MAX_ITEMS * PATH_MAX_FILES];
    size_t nfiles = 0;
    lp_status rc = LP_OK;
    for (size_t i = 0; i < q->nhints && !rc; i++) {
        lp_str h = lp_str_c(q->hints[i]);
        for (size_t segs = 3; segs >= 1; segs--) {
            lp_str key = last_segments(h, segs);
            if (key.len == 0)
                continue;
            const char *found[PATH_MAX_FILES + 1];
            size_t n = match_files(st, key, found, arena, err, &rc);
            if (rc)
                break;
            if (n == 0)
                continue; /* fewer folders may match (a vendored or moved copy) */
            if (n <= PATH_MAX_FILES)
                for (size_t k = 0; k < n; k++)
                    if (!path_in(found[k], files, nfiles))
                        files[nfiles++] = found[k];
            break; /* found: fewer folders would only be vaguer */
        }
    }
    if (rc || nfiles == 0)
        return rc;
    for (size_t i = 0; i < exact->len && out->len < PATH_MAX_CANDS; i++)
        if (path_in(exact->items[i].path, files, nfiles))
            lp_vec_push(out, exact->items[i]);
    for (size_t i = 0; i < lex->len && out->len < PATH_MAX_CANDS; i++)
        if (path_in(lex->items[i].path, files, nfiles))
            lp_vec_push(out, lex->items[i]);
    size_t from_lex = out->len;
    sqlite3_stmt *s;
    if ((rc = lp_store_prepare(st, SQL_PATH_SYMS, &s, err)))
        return rc;
    for (size_t f = 0; f < nfiles && !rc; f++) {
        sqlite3_bind_text(s, 1, files[f], -1, SQLITE_STATIC);
        int step;
        while ((step = sqlite3_step(s)) == SQLITE_ROW && out->len < PATH_MAX_CANDS) {
            lp_cand c = {0};
            read_sym_row(s, arena, &c);
            bool dup = false;
            for (size_t k = 0; k < from_lex && !dup; k++)
                dup = out->items[k].owner == c.owner && !strcmp(out->items[k].path, c.path);
            if (!dup) {
                c.score = 0.5;
                c.tier = 3;
                lp_vec_push(out, c);
            }
        }
        if (step != SQLITE_DONE && step != SQLITE_ROW)
            rc = lp_store_sql_error(st, "reading the symbols of named files", err);
        sqlite3_reset(s);
    }
    return rc;
}

/* ------------------------------------------------------------------------------------------
 * Area channel: the "area: subject" convention of commit subjects and issue titles
 * ("pathlib: extract a function", "net/http: close idle connections"). The area's parts
 * are compared, squashed and stemmed, with consecutive path components (folders, then the
 * file name without its extensions); an area naming more than AREA_MAX_FILES files and more
 * than a quarter of all files says little (a "src" folder). The channel lists the exact and
 * then the lexical candidates in the named files, in their channel's order: it reorders, it
 * adds no candidate. */

#define AREA_MAX_FILES 64
#define AREA_MAX_PARTS 8

/* Squash and stem s into out; 0 when it is too long or empty. */
static size_t squash_stem(lp_text_tokenizer *tk, lp_str s, lp_buf *tmp,
                          char out[LP_TEXT_TOKEN_MAX + 1])
{
    lp_buf_reset(tmp);
    lp_text_squash_with(tk, s, tmp);
    if (tmp->len == 0 || tmp->len > LP_TEXT_TOKEN_MAX)
        return 0;
    return lp_text_stem((lp_str){tmp->ptr, tmp->len}, out);
}

typedef struct area_key {
    char part[AREA_MAX_PARTS][LP_TEXT_TOKEN_MAX + 1];
    size_t len[AREA_MAX_PARTS];
    size_t n;
} area_key;

/* Split a '/'-separated string into squashed, stemmed parts; false when a part is empty or
 * too long, or there are too many. The file name loses its extensions when last is true. */
static bool area_parts(lp_text_tokenizer *tk, lp_str s, bool file_last, lp_buf *tmp,
                        area_key *k)
{
    k->n = 0;
    size_t i = 0;
    while (i <= s.len) {
        size_t j = lp_str_find_char(s, '/', i);
        bool last = j == SIZE_MAX;
        if (last)
            j = s.len;
        lp_str c = lp_str_sub(s, i, j);
        if (last && file_last) {
            size_t dot = lp_str_find_char(c, '.', 1);
            if (dot != SIZE_MAX)
                c = lp_str_sub(c, 0, dot);
        }
        if (k->n == AREA_MAX_PARTS)
            return false;
        if ((k->len[k->n] = squash_stem(tk, c, tmp, k->part[k->n])) == 0)
            return false;
        k->n++;
        i = j + 1;
    }
    return k->n > 0;
}

static bool area_covers(const area_key *area, const area_key *path)
{
    for (size_t at = 0; at + area->n <= path->n; at++) {
        size_t m = 0;
        while (m < area->n && area->len[m] == path->len[at + m] &&
               memcmp(area->part[m], path->part[at + m], area->len[m]) == 0)
            m++;
        if (m == area->n)
            return true;
    }
    return false;
}

static bool cand_in_area(lp_text_tokenizer *tk, const area_key *area, const char *path,
                         lp_buf *tmp, area_key *pk)
{
    return path && area_parts(tk, lp_str_c(path), true, tmp, pk) && area_covers(area, pk);
}

lp_status lp_channel_area(lp_store *st, const lp_search_query *q, const lp_cand_vec *exact,
                          const lp_cand_vec *lex, lp_arena *arena, lp_cand_vec *out,
                          lp_error *err)
{
    if (!q->area)
        return LP_OK;
    lp_text_tokenizer *tk = lp_text_tokenizer_new(LP_TEXT_SQUASH);
    lp_buf tmp;
    lp_buf_init(&tmp, 0);
    area_key *area = lp_arena_alloc(arena, sizeof *area);
    area_key *pk = lp_arena_alloc(arena, sizeof *pk);
    size_t total = 0, named = 0;
    lp_status rc = LP_OK;
    sqlite3_stmt *s = NULL;
    bool ok = area_parts(tk, lp_str_c(q->area), false, &tmp, area);
    if (ok && !(rc = lp_store_prepare(st, "SELECT path FROM files", &s, err))) {
        int step;
        while ((step = sqlite3_step(s)) == SQLITE_ROW) {
            total++;
            named += cand_in_area(tk, area, (const char *)sqlite3_column_text(s, 0), &tmp, pk);
        }
        if (step != SQLITE_DONE)
            rc = lp_store_sql_error(st, "matching the question's area with file names", err);
        sqlite3_reset(s);
    }
    if (ok && !rc && named && (named <= AREA_MAX_FILES || named <= total / 4)) {
        for (size_t i = 0; i < exact->len && out->len < PATH_MAX_CANDS; i++)
            if (cand_in_area(tk, area, exact->items[i].path, &tmp, pk))
                lp_vec_push(out, exact->items[i]);
        for (size_t i = 0; i < lex->len && out->len < PATH_MAX_CANDS; i++)
            if (cand_in_area(tk, area, lex->items[i].path, &tmp, pk))
                lp_vec_push(out, lex->items[i]);
    }
    lp_buf_release(&tmp);
    lp_text_tokenizer_free(tk);
    return rc;
}
