/*
 * rank.c: the lexical channel's scoring (BM25F with grouped synonyms) and query building.
 *
 * loupe_rank(chunk_fts, spec, mode) is an FTS5 auxiliary function. spec is a blob made by
 * lp_lex_query_build: BM25F parameters (k1, b, one weight per column) and, per phrase of the
 * MATCH expression in order, the group it belongs to and its weight (1 for the literal word,
 * < 1 for a synonym). mode 0 returns the score; mode 1 the score quantized to 1e-4 times
 * 65536 plus the doc-column coverage mask (bit g: group g occurs in the doc comment), so one
 * call per row serves ranking and the reranker.
 *
 * Score (BM25F, Robertson & Zaragoza): per phrase p, a pseudo term frequency over the
 * columns, tf_p = sum_c w_c * tf_pc / (1 - b + b * len_c / avglen_c); then
 * s_p = idf_p * tf_p * (k1 + 1) / (k1 + tf_p). A group scores max_p(weight_p * s_p) over its
 * phrases, so a synonym can stand in for a missing word but never adds a second vote; the
 * row's score is the sum over groups. idf and average lengths are computed once per query
 * (auxdata), as FTS5's own bm25() does.
 */
#include "search/search_int.h"

#include "text/text.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>

#define NCOL 4
#define MAX_PHRASES LP_LEX_MAX_PHRASES

typedef struct rank_spec {
    float k1, b;
    float w[NCOL];
    int32_t nphrases;
    int32_t group[MAX_PHRASES];
    float weight[MAX_PHRASES];
} rank_spec;

typedef struct rank_cache {
    rank_spec spec;
    double idf[MAX_PHRASES];
    double avglen[NCOL];
} rank_cache;

static int count_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *ud)
{
    (void)api;
    (void)fts;
    (*(int64_t *)ud)++;
    return SQLITE_OK;
}

static rank_cache *cache_get(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_value *v,
                             int *rc)
{
    rank_cache *c = api->xGetAuxdata(fts, 0);
    if (c)
        return c;
    c = sqlite3_malloc(sizeof *c);
    if (!c) {
        *rc = SQLITE_NOMEM;
        return NULL;
    }
    memset(c, 0, sizeof *c);
    int n = sqlite3_value_bytes(v);
    const void *p = sqlite3_value_blob(v);
    if (p && n > 0)
        memcpy(&c->spec, p, LP_MIN((size_t)n, sizeof c->spec));
    int nph = api->xPhraseCount(fts);
    if (c->spec.nphrases > nph)
        c->spec.nphrases = nph;
    if (c->spec.nphrases < 0 || c->spec.nphrases > MAX_PHRASES)
        c->spec.nphrases = 0;
    sqlite3_int64 rows = 0;
    *rc = api->xRowCount(fts, &rows);
    for (int col = 0; col < NCOL && *rc == SQLITE_OK; col++) {
        sqlite3_int64 total = 0;
        *rc = api->xColumnTotalSize(fts, col, &total);
        c->avglen[col] = rows > 0 ? (double)total / (double)rows : 1.0;
        if (c->avglen[col] <= 0)
            c->avglen[col] = 1.0;
    }
    for (int i = 0; i < c->spec.nphrases && *rc == SQLITE_OK; i++) {
        int64_t hits = 0;
        *rc = api->xQueryPhrase(fts, i, &hits, count_row);
        double nn = (double)rows, h = (double)hits;
        c->idf[i] = log(1.0 + (nn - h + 0.5) / (h + 0.5));
    }
    if (*rc != SQLITE_OK) {
        sqlite3_free(c);
        return NULL;
    }
    *rc = api->xSetAuxdata(fts, c, sqlite3_free);
    return *rc == SQLITE_OK ? c : NULL;
}

static void rank_fn(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
                    int nval, sqlite3_value **vals)
{
    if (nval < 2) {
        sqlite3_result_error(ctx, "loupe_rank(fts, spec, mode)", -1);
        return;
    }
    int rc = SQLITE_OK;
    rank_cache *c = cache_get(api, fts, vals[0], &rc);
    if (!c) {
        sqlite3_result_error_code(ctx, rc ? rc : SQLITE_ERROR);
        return;
    }
    int mode = sqlite3_value_int(vals[1]);
    int np = c->spec.nphrases;
    float tf[MAX_PHRASES][NCOL];
    memset(tf, 0, sizeof(float) * (size_t)(np ? np : 1) * NCOL);
    int ninst = 0;
    if ((rc = api->xInstCount(fts, &ninst)) != SQLITE_OK) {
        sqlite3_result_error_code(ctx, rc);
        return;
    }
    for (int i = 0; i < ninst; i++) {
        int ph, col, off;
        if (api->xInst(fts, i, &ph, &col, &off) == SQLITE_OK && ph >= 0 && ph < np && col >= 0 &&
            col < NCOL)
            tf[ph][col] += 1.0f;
    }
    unsigned docmask = 0;
    for (int p = 0; p < np; p++)
        if (tf[p][2] > 0 && c->spec.group[p] >= 0 && c->spec.group[p] < LP_LEX_MASK_GROUPS)
            docmask |= 1u << c->spec.group[p];
    double lennorm[NCOL];
    for (int col = 0; col < NCOL; col++) {
        int len = 0;
        api->xColumnSize(fts, col, &len);
        lennorm[col] = 1.0 - c->spec.b + c->spec.b * (double)len / c->avglen[col];
        if (lennorm[col] <= 0)
            lennorm[col] = 1e-3;
    }
    double best[LP_LEX_MAX_GROUPS] = {0};
    for (int p = 0; p < np; p++) {
        double t = 0;
        for (int col = 0; col < NCOL; col++)
            t += c->spec.w[col] * tf[p][col] / lennorm[col];
        if (t <= 0)
            continue;
        double s = c->idf[p] * t * (c->spec.k1 + 1.0) / (c->spec.k1 + t) * c->spec.weight[p];
        int g = c->spec.group[p];
        if (g >= 0 && g < LP_LEX_MAX_GROUPS && s > best[g])
            best[g] = s;
    }
    double total = 0;
    for (int g = 0; g < LP_LEX_MAX_GROUPS; g++)
        total += best[g];
    if (mode == 1) {
        /* Score and doc coverage in one value (one call per row): the score quantized to
         * 1e-4 above 16 bits of mask. Exact in a double while score < 2^33 / 1e4. */
        double q = floor(LP_MIN(total, 1e5) * 1e4);
        sqlite3_result_double(ctx, q * 65536.0 + (double)docmask);
        return;
    }
    sqlite3_result_double(ctx, total);
}

int lp_search_rank_register(sqlite3 *db)
{
    fts5_api *api;
    int rc = lp_text_fts5_api(db, &api);
    if (rc != SQLITE_OK)
        return rc;
    return api->xCreateFunction(api, "loupe_rank", NULL, rank_fn, NULL);
}

/* ------------------------------------------------------------------------------------------
 * Building the lexical query. */

/* Defaults, tuned on the hand-written development tasks (docs/decisions/0003-search-fusion.md). */
static lp_search_tuning tuning = {
    .col = {8.0, 4.0, 2.0, 1.0},
    .k1 = 0.8,
    .b = 0.75,
    .w_exact = 1.0,
    .w_lexical = 1.0,
    .w_dense = 0.5,
    .w_path = 1.0,
    .w_area = 1.0,
    .lex = 0.5,
    .name = 0.2,
    .qname = 0.05,
    .path = 0.1,
    .doc = 0.2,
    .exact = 0.5,
    .def = 0.05,
    .demote_test = 0.5,
    .demote_text = 0.6,
    .syn = 1.0,
    .container = 0.3,
    .budget = 2000,
    .long_rows = 12000,
    .long_groups = 24,
    .long_common = 0.05,
};
static pthread_once_t tuning_once = PTHREAD_ONCE_INIT;

void lp_search_tune_env(lp_setting_id env, const lp_tune_field *fields, size_t n, void *base,
                        bool nonneg)
{
    const char *v = lp_setting_str(env);
    if (!v || !*v)
        return;
    lp_str s = lp_str_c(v);
    size_t i = 0;
    while (i < s.len) {
        size_t j = lp_str_find_char(s, ',', i);
        if (j == SIZE_MAX)
            j = s.len;
        lp_str item = lp_str_trim(lp_str_sub(s, i, j));
        size_t eq = lp_str_find_char(item, '=', 0);
        if (eq != SIZE_MAX) {
            char num[32];
            size_t len = LP_MIN(item.len - eq - 1, sizeof num - 1);
            memcpy(num, item.ptr + eq + 1, len);
            num[len] = '\0';
            double x = strtod(num, NULL);
            lp_str key = lp_str_sub(item, 0, eq);
            for (size_t k = 0; k < n; k++)
                if (lp_str_eq_c(key, fields[k].name) && (!nonneg || x >= 0))
                    *(double *)((char *)base + fields[k].off) = x;
        }
        i = j + 1;
    }
}

static void tuning_load(void)
{
    static const lp_tune_field fields[] = {
        {"name_col", offsetof(lp_search_tuning, col[0])},
        {"crumbs_col", offsetof(lp_search_tuning, col[1])},
        {"doc_col", offsetof(lp_search_tuning, col[2])},
        {"body_col", offsetof(lp_search_tuning, col[3])},
        {"k1", offsetof(lp_search_tuning, k1)},
        {"b", offsetof(lp_search_tuning, b)},
        {"w_exact", offsetof(lp_search_tuning, w_exact)},
        {"w_lexical", offsetof(lp_search_tuning, w_lexical)},
        {"w_dense", offsetof(lp_search_tuning, w_dense)},
        {"w_path", offsetof(lp_search_tuning, w_path)},
        {"w_area", offsetof(lp_search_tuning, w_area)},
        {"lex", offsetof(lp_search_tuning, lex)},
        {"name", offsetof(lp_search_tuning, name)},
        {"qname", offsetof(lp_search_tuning, qname)},
        {"path", offsetof(lp_search_tuning, path)},
        {"doc", offsetof(lp_search_tuning, doc)},
        {"exact", offsetof(lp_search_tuning, exact)},
        {"def", offsetof(lp_search_tuning, def)},
        {"demote_test", offsetof(lp_search_tuning, demote_test)},
        {"demote_text", offsetof(lp_search_tuning, demote_text)},
        {"syn", offsetof(lp_search_tuning, syn)},
        {"container", offsetof(lp_search_tuning, container)},
        {"budget", offsetof(lp_search_tuning, budget)},
        {"long_rows", offsetof(lp_search_tuning, long_rows)},
        {"long_groups", offsetof(lp_search_tuning, long_groups)},
        {"long_common", offsetof(lp_search_tuning, long_common)},
    };
    lp_search_tune_env(LP_SET_SEARCH_TUNE, fields, LP_ARRAY_LEN(fields), &tuning, false);
}

const lp_search_tuning *lp_search_tuning_get(void)
{
    pthread_once(&tuning_once, tuning_load);
    return &tuning;
}

static const char *const test_words[] = {"test",  "tests", "testing", "unittest", "spec",
                                         "specs", "mock",  "mocks",   "fixture",  "fixtures"};

typedef struct stem_ctx {
    lp_buf *out;
    size_t n;
    bool all_stop;
} stem_ctx;

/* Collect the folded, stemmed parts (no WHOLE tokens) of a word, space separated. */
static int on_part(void *ctx, const lp_text_token *t)
{
    stem_ctx *c = ctx;
    if (t->flags & LP_TEXT_TOK_WHOLE)
        return 0;
    lp_str w = {t->text, t->len};
    if (!lp_text_is_stopword(w))
        c->all_stop = false;
    char st[LP_TEXT_TOKEN_MAX + 1];
    size_t n = lp_text_stem(w, st);
    if (c->n++)
        lp_buf_putc(c->out, ' ');
    lp_buf_append(c->out, st, n);
    return 0;
}

void lp_lex_put_phrase(lp_buf *match, const char *text)
{
    lp_str t = lp_str_c(text);
    lp_buf_putc(match, '"');
    for (size_t i = 0; i < t.len; i++) {
        if (t.ptr[i] == '"')
            lp_buf_putc(match, '"');
        lp_buf_putc(match, t.ptr[i]);
    }
    lp_buf_putc(match, '"');
}

static void put_phrase(lp_buf *match, lp_str text)
{
    if (match->len)
        lp_buf_puts(match, " OR ");
    lp_buf_putc(match, '"');
    for (size_t i = 0; i < text.len; i++) {
        if (text.ptr[i] == '"')
            lp_buf_putc(match, '"');
        lp_buf_putc(match, text.ptr[i]);
    }
    lp_buf_putc(match, '"');
}

static void add_phrase(lp_lex_query *lq, rank_spec *spec, lp_arena *arena, lp_str text,
                       int group, float weight)
{
    if (lq->nphrases >= MAX_PHRASES)
        return;
    put_phrase(&lq->match, text);
    spec->group[lq->nphrases] = group;
    spec->weight[lq->nphrases] = weight;
    lq->phrase_text[lq->nphrases] = lp_arena_strndup(arena, text.ptr, text.len);
    lq->phrase_group[lq->nphrases] = group;
    lq->phrase_weight[lq->nphrases] = weight;
    lq->nphrases++;
}

void lp_lex_query_keep(lp_lex_query *lq, const bool *keep)
{
    rank_spec spec;
    memcpy(&spec, lq->spec.ptr, sizeof spec);
    lp_buf_reset(&lq->match);
    size_t n = 0;
    for (size_t i = 0; i < lq->nphrases; i++) {
        if (!keep[i])
            continue;
        put_phrase(&lq->match, lp_str_c(lq->phrase_text[i]));
        lq->phrase_text[n] = lq->phrase_text[i];
        spec.group[n] = lq->phrase_group[n] = lq->phrase_group[i];
        spec.weight[n] = lq->phrase_weight[n] = lq->phrase_weight[i];
        lq->phrase_literal[n] = lq->phrase_literal[i];
        n++;
    }
    lq->nphrases = n;
    spec.nphrases = (int32_t)n;
    lp_buf_reset(&lq->spec);
    lp_buf_append(&lq->spec, &spec, sizeof spec);
}

/* One group for a term: the literal text and (syn) its synonyms (single words only). The
 * group's query weight qw multiplies every phrase of it. */
static void add_group(lp_lex_query *lq, rank_spec *spec, lp_text_tokenizer *tk, lp_arena *arena,
                      lp_str text, bool phrase, bool syn, float qw)
{
    if (lq->ngroups >= LP_LEX_MAX_GROUPS)
        return;
    lp_buf stems;
    lp_buf_init(&stems, 64);
    stem_ctx sc = {&stems, 0, true};
    lp_text_tokenize(tk, text, on_part, &sc);
    if (sc.n == 0 || (sc.all_stop && !phrase)) {
        lp_buf_release(&stems);
        return;
    }
    int g = (int)lq->ngroups++;
    lq->stems[g] = lp_arena_strndup(arena, stems.ptr, stems.len);
    lq->syn_stems[g] = "";
    size_t first = lq->nphrases;
    add_phrase(lq, spec, arena, text, g, qw);
    if (lq->nphrases > first)
        lq->phrase_literal[first] = true;
    if (syn && !phrase && sc.n == 1 && lp_search_tuning_get()->syn > 0) {
        lp_buf folded;
        lp_buf_init(&folded, 32);
        lp_text_fold(text, &folded);
        lp_code_syn syns[6];
        size_t ns = lp_code_synonyms(lp_buf_str(&folded), syns, LP_ARRAY_LEN(syns));
        lp_buf_reset(&stems);
        for (size_t i = 0; i < ns; i++) {
            add_phrase(lq, spec, arena, lp_str_c(syns[i].word), g,
                       qw * syns[i].weight * (float)lp_search_tuning_get()->syn);
            char st[LP_TEXT_TOKEN_MAX + 1];
            size_t n = lp_text_stem(lp_str_c(syns[i].word), st);
            if (i)
                lp_buf_putc(&stems, ' ');
            lp_buf_append(&stems, st, n);
            if (syns[i].weight > lq->syn_weight[g])
                lq->syn_weight[g] = syns[i].weight;
        }
        lq->syn_stems[g] = lp_arena_strndup(arena, stems.ptr, stems.len);
        lp_buf_release(&folded);
    }
    lp_buf_release(&stems);
}

/* ------------------------------------------------------------------------------------------
 * Terms: what the question offers to search for, before groups are chosen. */

typedef LP_VEC(lp_lex_term) term_vec;

/* Add (or count again) a term; the folded text is the key. */
static void add_term(term_vec *v, lp_arena *arena, lp_str text, unsigned flags, uint32_t pos)
{
    if (text.len == 0)
        return;
    lp_buf f;
    lp_buf_init(&f, text.len + 8);
    lp_text_fold(text, &f);
    for (size_t i = 0; i < v->len; i++)
        if (v->items[i].flags == flags && !strcmp(v->items[i].key, f.ptr ? f.ptr : "")) {
            v->items[i].count++;
            lp_buf_release(&f);
            return;
        }
    lp_lex_term *t = lp_vec_push_zero(v);
    t->text = lp_arena_strndup(arena, text.ptr, text.len);
    t->key = lp_arena_strndup(arena, f.ptr ? f.ptr : "", f.len);
    t->flags = flags;
    t->count = 1;
    t->first = pos;
    lp_buf_release(&f);
}

static bool is_alnum_byte(unsigned char c) { return isalnum(c) || c >= 0x80; }
static bool is_word_byte(unsigned char c) { return is_alnum_byte(c) || c == '_' || c == '$'; }

/* A number, a hex literal or a version ("1.19", "0x8c5", "+0x45", "2091"): in pasted text
 * these are line numbers, offsets and addresses; a short question keeps them ("404"), long
 * text does not select them (LP_LEX_TERM_NOISE). */
static bool is_noise(lp_str w)
{
    bool letter = false;
    for (size_t i = 0; i < w.len; i++)
        letter |= isalpha((unsigned char)w.ptr[i]) || (unsigned char)w.ptr[i] >= 0x80;
    if (!letter)
        return true;
    size_t k = 0;
    if (k < w.len && w.ptr[k] == '+')
        k++;
    if (w.len - k > 2 && w.ptr[k] == '0' && (w.ptr[k + 1] == 'x' || w.ptr[k + 1] == 'X')) {
        for (size_t i = k + 2; i < w.len; i++)
            if (!isxdigit((unsigned char)w.ptr[i]))
                return false;
        return true;
    }
    return false;
}

/* A free word. Surrounding punctuation goes ("(evalCall,", "validateType?)"); numbers and
 * hex literals are not terms; "deque-based", "read/write", "client-side": the parts are
 * terms of their own and the whole (a phrase of the parts) a term at a lower weight; other
 * inner punctuation ("page:2:15", "a=b") only separates parts. */
static void add_word_terms(term_vec *v, lp_arena *arena, lp_str w, uint32_t pos)
{
    size_t a = 0, b = w.len;
    while (a < b && !is_word_byte((unsigned char)w.ptr[a]))
        a++;
    while (b > a && !is_word_byte((unsigned char)w.ptr[b - 1]))
        b--;
    w = lp_str_sub(w, a, b);
    if (w.len == 0)
        return;
    size_t splits = 0, others = 0;
    for (size_t i = 1; i + 1 < w.len; i++) {
        unsigned char c = (unsigned char)w.ptr[i];
        if (is_word_byte(c))
            continue;
        if ((c == '-' || c == '/') && is_alnum_byte((unsigned char)w.ptr[i - 1]) &&
            is_alnum_byte((unsigned char)w.ptr[i + 1]))
            splits++;
        else if (c != '.' && c != '\'')
            others++;
    }
    if (splits == 0 && others == 0) {
        add_term(v, arena, w, is_noise(w) ? LP_LEX_TERM_NOISE : 0, pos);
        return;
    }
    size_t start = 0, parts = 0;
    for (size_t i = 0; i <= w.len; i++) {
        if (i < w.len && (is_word_byte((unsigned char)w.ptr[i]) || w.ptr[i] == '.' ||
                          w.ptr[i] == '\''))
            continue;
        lp_str part = lp_str_sub(w, start, i);
        while (part.len && (part.ptr[part.len - 1] == '.' || part.ptr[part.len - 1] == '\''))
            part.len--;
        if (part.len) {
            add_term(v, arena, part, is_noise(part) ? LP_LEX_TERM_NOISE : 0, pos);
            parts++;
        }
        start = i + 1;
    }
    if (splits && !others && parts > 1)
        add_term(v, arena, w, LP_LEX_TERM_WHOLE, pos);
}

/* Robertson's query-term-frequency saturation (k3 = 1.5): a word said three times in an
 * issue weighs more than one said once, but not three times as much. */
static float qtf_weight(uint32_t count)
{
    const double k3 = 1.5;
    return (float)((k3 + 1.0) * count / (k3 + count));
}

void lp_lex_query_use_terms(lp_lex_query *lq, lp_arena *arena, const size_t *order, size_t n)
{
    rank_spec spec;
    memset(&spec, 0, sizeof spec);
    const lp_search_tuning *t = lp_search_tuning_get();
    spec.k1 = (float)t->k1;
    spec.b = (float)t->b;
    for (int c = 0; c < NCOL; c++)
        spec.w[c] = (float)t->col[c];
    lp_buf_reset(&lq->match);
    lp_buf_reset(&lq->spec);
    lq->ngroups = lq->nphrases = 0;
    lp_text_tokenizer *tk = lp_text_tokenizer_new(LP_TEXT_CODE);
    for (size_t k = 0; k < n; k++) {
        const lp_lex_term *term = &lq->terms[order[k]];
        bool phrase = term->flags & LP_LEX_TERM_PHRASE;
        float qw = lq->long_text ? qtf_weight(term->count) : 1.0f;
        if (term->flags & LP_LEX_TERM_WHOLE)
            qw *= 0.5f;
        add_group(lq, &spec, tk, arena, lp_str_c(term->text), phrase || (term->flags & LP_LEX_TERM_WHOLE),
                  !lq->long_text, qw);
    }
    lp_text_tokenizer_free(tk);
    spec.nphrases = (int32_t)lq->nphrases;
    lp_buf_append(&lq->spec, &spec, sizeof spec);
    lq->pending = false;
}

void lp_lex_query_build(const lp_search_query *q, lp_arena *arena, lp_lex_query *out)
{
    memset(out, 0, sizeof *out);
    lp_buf_init(&out->match, 1024);
    lp_buf_init(&out->spec, sizeof(rank_spec));
    term_vec v = {0};
    /* Phrases first (they are the most specific), then syms, then words in order. */
    for (size_t i = 0; i < q->nphrases; i++)
        add_term(&v, arena, lp_str_c(q->phrases[i]), LP_LEX_TERM_PHRASE, (uint32_t)i);
    for (size_t i = 0; i < q->nsyms; i++)
        add_term(&v, arena, lp_str_c(q->syms[i]), LP_LEX_TERM_SYM, (uint32_t)i);
    lp_buf f;
    lp_buf_init(&f, 32);
    for (size_t i = 0; i < q->nwords; i++) {
        lp_str w = lp_str_c(q->words[i]);
        lp_buf_reset(&f);
        lp_text_fold(w, &f);
        for (size_t k = 0; k < LP_ARRAY_LEN(test_words); k++)
            if (lp_str_eq_c(lp_buf_str(&f), test_words[k]))
                out->about_tests = true;
        add_word_terms(&v, arena, w, (uint32_t)(q->nphrases + q->nsyms + i));
    }
    lp_buf_release(&f);
    /* Terms that tokenize to stop words only (the, of, ...) are not terms. */
    lp_text_tokenizer *tk = lp_text_tokenizer_new(LP_TEXT_CODE);
    size_t n = 0;
    for (size_t i = 0; i < v.len; i++) {
        lp_buf stems;
        lp_buf_init(&stems, 32);
        stem_ctx sc = {&stems, 0, true};
        lp_text_tokenize(tk, lp_str_c(v.items[i].text), on_part, &sc);
        bool keep = sc.n > 0 && (!sc.all_stop || (v.items[i].flags & LP_LEX_TERM_PHRASE));
        lp_buf_release(&stems);
        if (keep)
            v.items[n++] = v.items[i];
    }
    lp_text_tokenizer_free(tk);
    out->nterms = n;
    out->terms = lp_arena_alloc(arena, (n ? n : 1) * sizeof *out->terms);
    if (n)
        memcpy(out->terms, v.items, n * sizeof *out->terms);
    lp_vec_free(&v);
    /* A question of a few terms searches all of them, in order; long text (an issue, a
     * log) is reduced to its most useful terms by the lexical channel, which knows the
     * index's document frequencies (lp_lex_query_select). */
    out->long_text = n > LP_LEX_SHORT_TERMS;
    if (out->long_text) {
        out->pending = true;
        return;
    }
    size_t order[LP_LEX_SHORT_TERMS];
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    lp_lex_query_use_terms(out, arena, order, n);
}

void lp_lex_query_release(lp_lex_query *lq)
{
    lp_buf_release(&lq->match);
    lp_buf_release(&lq->spec);
}
