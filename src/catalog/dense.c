/*
 * dense.c: the catalog's dense channel (loupe's static embedding model, src/embed).
 *
 * Tool vectors. A tool's vector is made when its definition is prepared (lp_catalog_parse),
 * from the terms the lexical index already tokenized, so nothing is tokenized twice: each
 * distinct term once, weighted by the sum over fields of params.dense_field[f] times its
 * count in f, times its request-word weight (as the query's words are): the normalized sum of the
 * terms' contributions (lp_embed_term_vector, the model's own featurization), quantized to int8.
 * The catalog's tokenizers use the model's options (identifier splitting, Porter step 1 stemming,
 * stopwords), so the rows found are the rows the model was trained with.
 *
 * The matrix. An indexed tool's vector is row `slot` of one int8 matrix (with a scale per
 * row; scale 0 = free slot or no vector), so a query scores every tool in one exact SIMD
 * pass. A doc outside the index (in a batch, or removed by a transaction that may still be
 * undone) carries its vector itself (doc->vec): index_doc moves it into the matrix and
 * unindex_docs moves it back, which keeps add/replace/remove transactional with no
 * re-embedding.
 *
 * Model: the built-in model (or LOUPE_EMBED_MODEL), never a connected provider: a catalog
 * load must not make a network request per tool. No model (LOUPE_EMBED_MODEL=none, a build
 * without one) means no dense channel; searches then say so with a warning.
 */
#include "catalog/catalog_int.h"
#include "core/settings.h"

#include "core/warn.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>

/* A parse embeds each distinct term once: its contribution (lp_embed_term_vector) is cached
 * by term text for the rest of the parse, quantized like a stored vector (dim int8 and a
 * scale: 2 MiB for CACHE_MAX terms at dim 256, small enough to stay in cache while tools are
 * summed); past CACHE_MAX terms, terms are embedded where they occur. A catalog file repeats
 * its vocabulary across tools (10,000 tools: 10,800 distinct terms, 310,000 term uses). */
#define CACHE_MAX 8192
#define TABLE_SLOTS (4 * CACHE_MAX)

typedef struct centry {
    uint64_t hash;
    uint32_t off; /* into texts */
    uint16_t len;
    uint8_t whole;
    uint8_t ok;    /* the term has a vector */
    float request; /* its request-word weight */
} centry;

struct lp_cat_dense_prep {
    lp_embedder *e;
    uint32_t dim;
    float *acc, *tmp;
    /* TABLE_SLOTS slots: the high 32 bits of the term's hash (so most misses never touch
     * the entry) and the entry index + 1 (0 = empty slot), in one word. */
    uint64_t *table;
    LP_VEC(centry) entries;
    lp_buf texts;
    uint8_t *pool; /* stored vectors, LP_EMBED_VEC_BYTES(dim) each, grown as entries arrive */
    size_t pool_rows;
};

/* LOUPE_CATALOG_EMBED_MODEL: a model for the catalog only (process-wide, never freed, like
 * the built-in one). */
static pthread_once_t catalog_model_once = PTHREAD_ONCE_INIT;
static lp_embed_model *catalog_model;
static lp_error catalog_model_err;

static void catalog_model_load(void)
{
    const char *path = lp_setting_str(LP_SET_CATALOG_EMBED_MODEL);
    if (strcmp(path, "none") == 0) {
        snprintf(catalog_model_err.msg, sizeof catalog_model_err.msg,
                 "the dense channel is off (LOUPE_CATALOG_EMBED_MODEL=none)");
        return;
    }
    lp_error e = {0};
    if (lp_embed_model_load(path, &catalog_model, &e) != LP_OK) {
        catalog_model = NULL;
        snprintf(catalog_model_err.msg, sizeof catalog_model_err.msg,
                 "LOUPE_CATALOG_EMBED_MODEL: %.200s", e.msg);
    }
}

void lp_cat_dense_init(lp_catalog *cat)
{
    cat->model = NULL;
    cat->dense_note[0] = '\0';
    if (!(cat->params.dense_weight > 0))
        return;
    lp_error err = {0};
    const lp_embed_model *m = NULL;
    const char *own = lp_setting_str(LP_SET_CATALOG_EMBED_MODEL);
    if (own && *own) {
        /* The catalog's own table (e.g. models/loupe-teacher-v1.bin), leaving code search's
         * model alone; "none" turns the channel off. Loaded once per process. */
        pthread_once(&catalog_model_once, catalog_model_load);
        if (!catalog_model) {
            snprintf(cat->dense_note, sizeof cat->dense_note, "%s", catalog_model_err.msg);
            return;
        }
        cat->model = catalog_model;
        cat->dim = lp_embed_model_dim(catalog_model);
        return;
    }
    if (lp_embed_default(&m, &err) != LP_OK) {
        snprintf(cat->dense_note, sizeof cat->dense_note, "%s", err.msg);
        return;
    }
    cat->model = m;
    cat->dim = lp_embed_model_dim(m);
}

void lp_cat_dense_release(lp_catalog *cat)
{
    free(cat->dmat);
    free(cat->dscale);
    cat->dmat = NULL;
    cat->dscale = NULL;
    cat->dcap = 0;
}

size_t lp_cat_dense_memory(const lp_catalog *cat)
{
    return cat->dcap * ((size_t)cat->dim + sizeof(float));
}

/* ------------------------------------------------------------------------------------------
 * Parse side. */
lp_cat_dense_prep *lp_cat_dense_prep_new(const lp_catalog *cat)
{
    if (!cat->model)
        return NULL;
    lp_cat_dense_prep *dp = lp_xcalloc(1, sizeof *dp);
    dp->e = lp_embedder_new(cat->model);
    dp->dim = cat->dim;
    dp->acc = lp_xcalloc(dp->dim, sizeof(float));
    dp->tmp = lp_xcalloc(dp->dim, sizeof(float));
    dp->table = lp_xcalloc(TABLE_SLOTS, sizeof *dp->table);
    lp_buf_init(&dp->texts, 0);
    return dp;
}

void lp_cat_dense_prep_free(lp_cat_dense_prep *dp)
{
    if (!dp)
        return;
    lp_embedder_free(dp->e);
    free(dp->acc);
    free(dp->tmp);
    free(dp->table);
    lp_vec_free(&dp->entries);
    lp_buf_release(&dp->texts);
    free(dp->pool);
    free(dp);
}

/* acc += w * v, 8 floats at a time with the compiler's vector extension (SSE pairs, or AVX
 * where the target has it); the same float operations per element as a scalar loop. */
typedef float v8f __attribute__((vector_size(32)));

static void axpy(float *restrict acc, float w, const float *restrict v, uint32_t dim)
{
    uint32_t j = 0;
    v8f vw = {w, w, w, w, w, w, w, w};
    for (; j + 8 <= dim; j += 8) {
        v8f a, x;
        memcpy(&a, acc + j, sizeof a);
        memcpy(&x, v + j, sizeof x);
        a += vw * x;
        memcpy(acc + j, &a, sizeof a);
    }
    for (; j < dim; j++)
        acc[j] += w * v[j];
}

/* The sum of squares of v, in 8 float lanes (fixed order, so deterministic). */
static double sum_squares(const float *v, uint32_t dim)
{
    v8f s = {0, 0, 0, 0, 0, 0, 0, 0};
    uint32_t j = 0;
    for (; j + 8 <= dim; j += 8) {
        v8f x;
        memcpy(&x, v + j, sizeof x);
        s += x * x;
    }
    double total = 0;
    for (int k = 0; k < 8; k++)
        total += s[k];
    for (; j < dim; j++)
        total += (double)v[j] * v[j];
    return total;
}

/* Add w times the contribution of term t, times its request-word weight (a word that
 * requests for many tools use says as little in a description as in a query), to acc;
 * false when the term has none. */
static bool add_term(lp_cat_dense_prep *dp, const lp_catalog_params *params, const lp_cat_doc *d,
                     const lp_cat_pterm *t, float w, float *acc)
{
    lp_str text = {d->term_text + t->off, t->len};
    size_t vb = LP_EMBED_VEC_BYTES(dp->dim);
    size_t mask = TABLE_SLOTS - 1, i = (size_t)t->hash & mask;
    uint64_t tag = t->hash & 0xffffffff00000000ull;
    const uint8_t *q = NULL;
    for (uint64_t e; (e = dp->table[i]) != 0; i = (i + 1) & mask) {
        if ((e & 0xffffffff00000000ull) != tag)
            continue;
        uint32_t idx = (uint32_t)e - 1;
        const centry *c = &dp->entries.items[idx];
        if (c->hash == t->hash && c->len == t->len && c->whole == t->whole &&
            !memcmp(dp->texts.ptr + c->off, text.ptr, text.len)) {
            if (!c->ok)
                return false;
            q = dp->pool + (size_t)idx * vb;
            w *= c->request;
            break;
        }
    }
    if (!q && dp->entries.len >= CACHE_MAX) {
        if (!lp_embed_term_vector(dp->e, text, t->whole, dp->tmp))
            return false;
        axpy(acc, w * (float)lp_cat_request_weight(params, text), dp->tmp, dp->dim);
        return true;
    }
    if (!q) {
        size_t k = dp->entries.len;
        if (k == dp->pool_rows) {
            dp->pool_rows = dp->pool_rows ? LP_MIN(2 * dp->pool_rows, (size_t)CACHE_MAX) : 256;
            dp->pool = lp_xrealloc(dp->pool, lp_mul_size(dp->pool_rows, vb));
        }
        bool ok = lp_embed_term_vector(dp->e, text, t->whole, dp->tmp);
        float rq = (float)lp_cat_request_weight(params, text);
        lp_vec_push(&dp->entries,
                    ((centry){t->hash, (uint32_t)dp->texts.len, t->len, t->whole, ok, rq}));
        lp_buf_append(&dp->texts, text.ptr, text.len);
        dp->table[i] = tag | ((uint64_t)k + 1);
        if (!ok)
            return false;
        lp_embed_quantize(dp->tmp, dp->dim, dp->pool + k * vb);
        q = dp->pool + k * vb;
        w *= rq;
    }
    lp_embed_add_stored(acc, w, q, dp->dim);
    return true;
}

void lp_cat_dense_embed_doc(lp_cat_dense_prep *dp, const lp_catalog_params *params, lp_cat_doc *d)
{
    uint32_t dim = dp->dim;
    float *acc = dp->acc;
    memset(acc, 0, dim * sizeof(float));
    bool any = false;
    for (uint32_t i = 0; i < d->npterms; i++) {
        const lp_cat_pterm *t = &d->pterms[i];
        double w = 0;
        for (int f = 0; f < NF; f++)
            w += params->dense_field[f] * t->tf[f];
        if (!(w > 0))
            continue;
        any |= add_term(dp, params, d, t, (float)w, acc);
    }
    if (!any)
        return;
    double norm = sum_squares(acc, dim);
    if (!(norm > 1e-20))
        return;
    float inv = (float)(1.0 / sqrt(norm));
    for (uint32_t j = 0; j < dim; j++)
        acc[j] *= inv;
    d->vec = lp_xmalloc(LP_EMBED_VEC_BYTES(dim));
    lp_embed_quantize(acc, dim, d->vec);
}

/* ------------------------------------------------------------------------------------------
 * The matrix. */
static void ensure_rows(lp_catalog *cat, size_t rows)
{
    if (rows <= cat->dcap)
        return;
    size_t cap = cat->dcap ? cat->dcap : 64;
    while (cap < rows)
        cap *= 2;
    cat->dmat = lp_xrealloc(cat->dmat, lp_mul_size(cap, cat->dim));
    cat->dscale = lp_xrealloc(cat->dscale, lp_mul_size(cap, sizeof(float)));
    memset(cat->dmat + cat->dcap * cat->dim, 0, (cap - cat->dcap) * cat->dim);
    for (size_t i = cat->dcap; i < cap; i++)
        cat->dscale[i] = 0.0f;
    cat->dcap = cap;
}

void lp_cat_dense_put(lp_catalog *cat, lp_cat_doc *d)
{
    if (!cat->model) {
        free(d->vec);
        d->vec = NULL;
        return;
    }
    ensure_rows(cat, (size_t)d->slot + 1);
    if (d->vec) {
        memcpy(cat->dmat + (size_t)d->slot * cat->dim, d->vec, cat->dim);
        cat->dscale[d->slot] = lp_embed_vec_scale(d->vec, cat->dim);
        free(d->vec);
        d->vec = NULL;
    } else {
        cat->dscale[d->slot] = 0.0f;
    }
}

void lp_cat_dense_take(lp_catalog *cat, lp_cat_doc *d)
{
    if (!cat->model || d->slot >= cat->dcap || cat->dscale[d->slot] == 0.0f)
        return;
    d->vec = lp_xmalloc(LP_EMBED_VEC_BYTES(cat->dim));
    memcpy(d->vec, cat->dmat + (size_t)d->slot * cat->dim, cat->dim);
    memcpy(d->vec + cat->dim, &cat->dscale[d->slot], sizeof(float));
    cat->dscale[d->slot] = 0.0f;
}

/* ------------------------------------------------------------------------------------------
 * Query side: the query's tokens (the model's tokenizer options), each weighted by its
 * request-word weight (search.c), embedded as a bag. */
typedef struct qbag {
    LP_VEC(lp_embed_term) terms;
    lp_buf text; /* token bytes; terms point here once tokenizing is done */
    LP_VEC(size_t) offs;
    const lp_catalog_params *params;
} qbag;

static int collect_qtok(void *ctx, const lp_text_token *tok)
{
    qbag *b = ctx;
    lp_vec_push(&b->offs, b->text.len);
    lp_buf_append(&b->text, tok->text, tok->len);
    lp_str t = {tok->text, tok->len};
    float w = (float)lp_cat_request_weight(b->params, t);
    lp_vec_push(&b->terms,
                ((lp_embed_term){{NULL, tok->len}, w, (tok->flags & LP_TEXT_TOK_WHOLE) != 0}));
    return 0;
}

bool lp_cat_dense_scores(const lp_catalog *cat, lp_str query, float *scores, const char **why)
{
    *why = NULL;
    if (!(cat->params.dense_weight > 0))
        return false;
    if (!cat->model) {
        *why = lp_warn_code(LP_WARN_DENSE_CHANNEL_ABSENT);
        return false;
    }
    size_t n = LP_MIN(cat->slots.len, cat->dcap);
    uint32_t dim = cat->dim;
    lp_embedder *e = lp_embedder_new(cat->model);
    float *qv = lp_xmalloc(dim * sizeof(float));
    uint8_t *qq = lp_xmalloc(LP_EMBED_VEC_BYTES(dim));
    qbag bag = {.params = &cat->params};
    lp_buf_init(&bag.text, 0);
    lp_text_tokenizer *tk = lp_text_tokenizer_new(LP_TEXT_CODE | LP_TEXT_STEM | LP_TEXT_STOPWORDS);
    lp_text_tokenize(tk, query, collect_qtok, &bag);
    lp_text_tokenizer_free(tk);
    for (size_t i = 0; i < bag.terms.len; i++)
        bag.terms.items[i].text.ptr = bag.text.ptr + bag.offs.items[i];
    bool ok = lp_embed_terms(e, bag.terms.items, bag.terms.len, qv);
    lp_vec_free(&bag.terms);
    lp_vec_free(&bag.offs);
    lp_buf_release(&bag.text);
    if (ok) {
        lp_embed_quantize(qv, dim, qq);
        lp_embed_scores((const int8_t *)qq, lp_embed_vec_scale(qq, dim), cat->dmat, cat->dscale, n,
                        dim, scores);
    }
    for (size_t i = ok ? n : 0; i < cat->slots.len; i++)
        scores[i] = 0.0f;
    free(qq);
    free(qv);
    lp_embedder_free(e);
    return ok;
}
