/*
 * embed.c: text -> features -> weighted mean of int8 rows -> L2-normalized vector.
 *
 * Featurization (lp_embed_featurize) is shared with the trainer, so the table is used at run
 * time exactly as it was trained. Work is linear in the text (capped at LP_EMBED_TEXT_MAX
 * bytes) and allocation-free after the first few calls (the feature vector is reused).
 */
#include "embed/embed_int.h"

#include <math.h>

/* ------------------------------------------------------------------------------------------
 * Featurization. */

uint32_t lp_embed_ngram_row(const lp_embed_featurizer *f, const char *gram, size_t len)
{
    uint64_t h = lp_hash64_seeded(gram, len, 0x6e6772616dull /* "ngram" */);
    return f->vocab + (uint32_t)(h % f->buckets);
}

typedef struct feat_ctx {
    const lp_embed_featurizer *f;
    lp_embed_features *out;
    size_t ntok;
} feat_ctx;

/* The features of one token (mult multiplies its weight); false when it gives none. */
static bool featurize_one(const lp_embed_featurizer *f, const char *text, size_t len,
                          bool no_subwords, float mult, lp_embed_features *out)
{
    uint32_t row = f->lookup(f->ctx, text, len);
    if (row != UINT32_MAX) {
        lp_vec_push(out, ((lp_embed_feature){row, mult * f->weight(f->ctx, row)}));
        return true;
    }
    /* Outside the vocabulary: a whole identifier is covered by its parts, and a number
     * carries no meaning in its digits. Other tokens fall back to their n-grams. */
    if (no_subwords || !f->buckets || len > LP_TEXT_TOKEN_MAX)
        return false;
    char padded[LP_TEXT_TOKEN_MAX + 2];
    size_t n = len + 2;
    padded[0] = '<';
    memcpy(padded + 1, text, len);
    padded[n - 1] = '>';
    size_t first = out->len, grams = 0;
    for (uint32_t g = f->ngram_min; g <= f->ngram_max && g <= n; g++) {
        for (size_t i = 0; i + g <= n; i++) {
            lp_vec_push(out, ((lp_embed_feature){lp_embed_ngram_row(f, padded + i, g), 0.0f}));
            grams++;
        }
    }
    if (!grams)
        return false;
    float w = mult * f->oov_weight / (float)grams;
    for (size_t i = first; i < out->len; i++)
        out->items[i].weight = w;
    return true;
}

static int feat_token(void *vctx, const lp_text_token *tok)
{
    feat_ctx *c = vctx;
    bool no_sub = (tok->flags & (LP_TEXT_TOK_WHOLE | LP_TEXT_TOK_NUMBER)) != 0;
    if (featurize_one(c->f, tok->text, tok->len, no_sub, 1.0f, c->out))
        c->ntok++;
    return 0;
}

size_t lp_embed_featurize(const lp_embed_featurizer *f, lp_text_tokenizer *tk, lp_str text,
                          lp_embed_features *out)
{
    /* The same tokens as a byte cut (a split character is skipped either way). */
    text.len = lp_utf8_cut(text.ptr, text.len, LP_EMBED_TEXT_MAX);
    feat_ctx c = {f, out, 0};
    lp_text_tokenize(tk, text, feat_token, &c);
    return c.ntok;
}

/* acc += s * q, the hot loop. Every level does the same per-element float operations
 * (convert, multiply, add; no fused multiply-add), so results are identical. */
static void axpy_i8_portable(float *restrict acc, float s, const int8_t *restrict q, uint32_t dim)
{
    for (uint32_t j = 0; j < dim; j++)
        acc[j] += s * (float)q[j];
}

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
__attribute__((target("avx2"))) static void axpy_i8_avx2(float *restrict acc, float s,
                                                         const int8_t *restrict q, uint32_t dim)
{
    __m256 vs = _mm256_set1_ps(s);
    uint32_t j = 0;
    for (; j + 8 <= dim; j += 8) {
        __m128i b = _mm_loadl_epi64((const __m128i *)(const void *)(q + j));
        __m256 x = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b));
        __m256 a = _mm256_loadu_ps(acc + j);
        _mm256_storeu_ps(acc + j, _mm256_add_ps(a, _mm256_mul_ps(vs, x)));
    }
    for (; j < dim; j++)
        acc[j] += s * (float)q[j];
}

__attribute__((target("sse4.1"))) static void axpy_i8_sse41(float *restrict acc, float s,
                                                            const int8_t *restrict q, uint32_t dim)
{
    __m128 vs = _mm_set1_ps(s);
    uint32_t j = 0;
    for (; j + 4 <= dim; j += 4) {
        int32_t w;
        memcpy(&w, q + j, 4);
        __m128 x = _mm_cvtepi32_ps(_mm_cvtepi8_epi32(_mm_cvtsi32_si128(w)));
        __m128 a = _mm_loadu_ps(acc + j);
        _mm_storeu_ps(acc + j, _mm_add_ps(a, _mm_mul_ps(vs, x)));
    }
    for (; j < dim; j++)
        acc[j] += s * (float)q[j];
}
#endif

typedef void (*axpy_fn)(float *restrict, float, const int8_t *restrict, uint32_t);

static axpy_fn axpy_for(lp_simd_level level)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (level >= LP_SIMD_AVX2 && __builtin_cpu_supports("avx2"))
        return axpy_i8_avx2;
    if (level >= LP_SIMD_SSE41 && __builtin_cpu_supports("sse4.1"))
        return axpy_i8_sse41;
#else
    (void)level;
#endif
    return axpy_i8_portable;
}

static axpy_fn pick_axpy(void) { return axpy_for(lp_embed_simd_best()); }

void lp_embed_axpy_i8(lp_simd_level level, float *acc, float s, const int8_t *q, uint32_t dim)
{
    axpy_for(level)(acc, s, q, dim);
}

/* ------------------------------------------------------------------------------------------
 * The embedder. */
struct lp_embedder {
    const lp_embed_model *m;       /* the built-in (or file) model, or NULL when remote */
    const lp_embed_remote *remote; /* the connected provider, or NULL */
    uint32_t dim;
    long timeout_ms;
    lp_error err;
    uint8_t *qbuf; /* one stored vector (remote path) */
    lp_text_tokenizer *tk;
    axpy_fn axpy;
    lp_embed_featurizer f;
    lp_embed_features feats;
    float *acc;
};

static uint32_t model_lookup(const void *ctx, const char *tok, size_t len)
{
    return lp_embed_model_lookup(ctx, tok, len);
}

static float model_weight(const void *ctx, uint32_t row)
{
    return lp_embed_model_weights_(ctx)[row];
}

lp_embedder *lp_embedder_new(const lp_embed_model *m)
{
    const lp_embed_header *h = lp_embed_model_header_(m);
    lp_embedder *e = lp_xcalloc(1, sizeof *e);
    e->m = m;
    e->dim = h->dim;
    e->tk = lp_text_tokenizer_new(h->tok_options);
    e->axpy = pick_axpy();
    e->f = (lp_embed_featurizer){.lookup = model_lookup,
                                 .weight = model_weight,
                                 .ctx = m,
                                 .vocab = h->vocab,
                                 .buckets = h->buckets,
                                 .ngram_min = h->ngram_min,
                                 .ngram_max = h->ngram_max,
                                 .oov_weight = h->oov_weight};
    e->acc = lp_xcalloc(h->dim, sizeof(float));
    return e;
}

lp_status lp_embedder_default(lp_embedder **out, lp_error *err)
{
    *out = NULL;
    if (lp_embed_remote_configured()) {
        const lp_embed_remote *r;
        lp_status rc = lp_embed_remote_get(&r, err);
        if (rc)
            return rc;
        lp_embedder *e = lp_xcalloc(1, sizeof *e);
        e->remote = r;
        e->dim = lp_embed_remote_dim(r);
        e->acc = lp_xcalloc(e->dim, sizeof(float));
        e->qbuf = lp_xmalloc(LP_EMBED_VEC_BYTES(e->dim));
        *out = e;
        return LP_OK;
    }
    const lp_embed_model *m;
    lp_status rc = lp_embed_default(&m, err);
    if (rc)
        return rc;
    *out = lp_embedder_new(m);
    return LP_OK;
}

const lp_error *lp_embedder_error(const lp_embedder *e) { return &e->err; }
void lp_embedder_set_timeout(lp_embedder *e, long timeout_ms) { e->timeout_ms = timeout_ms; }

/* Remote path: one request for one text, into the stored form. */
static bool remote_one(lp_embedder *e, lp_str text, uint8_t *out)
{
    lp_error err = {0};
    if (lp_embed_remote_batch(e->remote, &text, 1, e->timeout_ms, out, &err)) {
        e->err = err;
        memset(out, 0, LP_EMBED_VEC_BYTES(e->dim));
        return false;
    }
    lp_error_clear(&e->err);
    return lp_embed_vec_scale(out, e->dim) != 0.0f;
}

void lp_embedder_free(lp_embedder *e)
{
    if (!e)
        return;
    free(e->qbuf);
    lp_text_tokenizer_free(e->tk);
    lp_vec_free(&e->feats);
    free(e->acc);
    free(e);
}

uint32_t lp_embedder_dim(const lp_embedder *e) { return e->dim; }

/* out = the weighted sum of the rows of e->feats (local model). */
static void sum_features(lp_embedder *e, float *out)
{
    uint32_t dim = lp_embed_model_header_(e->m)->dim;
    const float *scales = lp_embed_model_scales_(e->m);
    const int8_t *rows = lp_embed_model_rows_(e->m);
    memset(out, 0, dim * sizeof(float));
    for (size_t i = 0; i < e->feats.len; i++) {
        const lp_embed_feature *ft = &e->feats.items[i];
        float s = ft->weight * scales[ft->row];
        if (s != 0.0f)
            e->axpy(out, s, rows + (size_t)ft->row * dim, dim);
    }
}

/* out = the L2-normalized weighted sum of the rows of e->feats (local model). */
static bool accumulate(lp_embedder *e, float *out)
{
    uint32_t dim = lp_embed_model_header_(e->m)->dim;
    sum_features(e, out);
    double norm = 0.0;
    for (uint32_t j = 0; j < dim; j++)
        norm += (double)out[j] * out[j];
    if (!(norm > 1e-20)) {
        memset(out, 0, dim * sizeof(float));
        return false;
    }
    float inv = (float)(1.0 / sqrt(norm));
    for (uint32_t j = 0; j < dim; j++)
        out[j] *= inv;
    return true;
}

bool lp_embed_text(lp_embedder *e, lp_str text, float *out)
{
    if (e->remote) {
        bool ok = remote_one(e, text, e->qbuf);
        float sc = lp_embed_vec_scale(e->qbuf, e->dim);
        for (uint32_t j = 0; j < e->dim; j++)
            out[j] = (float)((int8_t)e->qbuf[j]) * sc;
        return ok;
    }
    e->feats.len = 0;
    lp_embed_featurize(&e->f, e->tk, text, &e->feats);
    return accumulate(e, out);
}

static bool all_digits(lp_str s)
{
    for (size_t i = 0; i < s.len; i++)
        if (s.ptr[i] < '0' || s.ptr[i] > '9')
            return false;
    return s.len > 0;
}

bool lp_embed_term_vector(lp_embedder *e, lp_str text, bool whole, float *out)
{
    e->feats.len = 0;
    if (e->remote || !text.len ||
        !featurize_one(&e->f, text.ptr, text.len, whole || all_digits(text), 1.0f, &e->feats)) {
        memset(out, 0, e->dim * sizeof(float));
        return false;
    }
    sum_features(e, out);
    return true;
}

bool lp_embed_terms(lp_embedder *e, const lp_embed_term *terms, size_t n, float *out)
{
    if (e->remote) {
        memset(out, 0, e->dim * sizeof(float));
        return false;
    }
    e->feats.len = 0;
    for (size_t i = 0; i < n; i++) {
        const lp_embed_term *t = &terms[i];
        if (t->weight > 0.0f && t->text.len)
            featurize_one(&e->f, t->text.ptr, t->text.len, t->whole || all_digits(t->text),
                          t->weight, &e->feats);
    }
    return accumulate(e, out);
}

/* Quantization, 4 lanes at a time (SSE2 width) with the compiler's vector extension: the
 * same per-element operations as the scalar tail, so the result does not depend on it. */
typedef float q_v4f __attribute__((vector_size(16)));
typedef int32_t q_v4i __attribute__((vector_size(16)));
typedef int8_t q_v4b __attribute__((vector_size(4)));

/* lroundf (half away from zero) of x for |x| <= 127, clamped to [-127, 127], without the
 * libm call: x - trunc(x) is exact for |x| < 2^23 (checked equal on every float of
 * [-128, 128]). */
static inline int8_t round_q(float x)
{
    int32_t r = (int32_t)x;
    float frac = x - (float)r;
    r += (frac >= 0.5f) - (frac <= -0.5f);
    return (int8_t)(r > 127 ? 127 : r < -127 ? -127 : r);
}

void lp_embed_quantize(const float *v, uint32_t dim, uint8_t *out)
{
    float mx = 0.0f;
    for (uint32_t j = 0; j < dim; j++) {
        float a = fabsf(v[j]);
        if (a > mx)
            mx = a;
    }
    int8_t *q = (int8_t *)out;
    float scale = 0.0f;
    if (mx > 0.0f) {
        float inv = 127.0f / mx;
        const q_v4f vinv = {inv, inv, inv, inv};
        const q_v4f half = {0.5f, 0.5f, 0.5f, 0.5f};
        const q_v4i hi = {127, 127, 127, 127};
        uint32_t j = 0;
        for (; j + 4 <= dim; j += 4) {
            q_v4f x;
            memcpy(&x, v + j, sizeof x);
            x *= vinv;
            q_v4i r = __builtin_convertvector(x, q_v4i); /* truncates, as (int32_t)x */
            q_v4f frac = x - __builtin_convertvector(r, q_v4f);
            /* A true comparison is -1: r + 1 when frac >= 0.5, r - 1 when frac <= -0.5. */
            r = r - (q_v4i)(frac >= half) + (q_v4i)(frac <= -half);
            q_v4i over = (q_v4i)(r > hi), under = (q_v4i)(r < -hi);
            r = (r & ~over & ~under) | (hi & over) | (-hi & under);
            q_v4b b = __builtin_convertvector(r, q_v4b);
            memcpy(q + j, &b, sizeof b);
        }
        for (; j < dim; j++)
            q[j] = round_q(v[j] * inv);
        scale = mx / 127.0f;
    } else {
        memset(q, 0, dim);
    }
    memcpy(out + dim, &scale, 4);
}

float lp_embed_vec_scale(const uint8_t *stored, uint32_t dim)
{
    float s;
    memcpy(&s, stored + dim, 4);
    return s;
}

void lp_embed_add_i8(float *acc, float s, const int8_t *q, uint32_t dim)
{
    if (s != 0.0f)
        pick_axpy()(acc, s, q, dim);
}

void lp_embed_add_stored(float *acc, float s, const uint8_t *stored, uint32_t dim)
{
    float sc = s * lp_embed_vec_scale(stored, dim);
    if (sc != 0.0f)
        pick_axpy()(acc, sc, (const int8_t *)stored, dim);
}

bool lp_embed_text_q(lp_embedder *e, lp_str text, uint8_t *out)
{
    if (e->remote)
        return remote_one(e, text, out);
    bool ok = lp_embed_text(e, text, e->acc);
    lp_embed_quantize(e->acc, e->dim, out);
    return ok;
}

size_t lp_embed_batch_q(lp_embedder *e, const lp_str *texts, size_t n, uint8_t *out)
{
    size_t stride = LP_EMBED_VEC_BYTES(e->dim), nonzero = 0;
    if (e->remote) {
        lp_error err = {0};
        if (lp_embed_remote_batch(e->remote, texts, n, e->timeout_ms, out, &err)) {
            e->err = err;
            return 0;
        }
        lp_error_clear(&e->err);
        for (size_t i = 0; i < n; i++)
            nonzero += lp_embed_vec_scale(out + i * stride, e->dim) != 0.0f;
        return nonzero;
    }
    for (size_t i = 0; i < n; i++)
        nonzero += lp_embed_text_q(e, texts[i], out + i * stride);
    return nonzero;
}
