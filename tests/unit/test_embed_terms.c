/*
 * test_embed_terms.c: the src/embed entry points the tool catalog uses: embedding a bag of
 * already-made tokens (lp_embed_terms, lp_embed_term_vector, lp_embed_add_stored), scoring
 * every row (lp_embed_scores), and the quantizer's rounding; with the built-in model.
 */
#include "embed/embed.h"
#include "t.h"
#include "text/text.h"

#include <math.h>

typedef struct tokbag {
    LP_VEC(lp_embed_term) terms;
    lp_buf text;
    LP_VEC(size_t) offs;
} tokbag;

static int collect(void *ctx, const lp_text_token *tok)
{
    tokbag *b = ctx;
    lp_vec_push(&b->offs, b->text.len);
    lp_buf_append(&b->text, tok->text, tok->len);
    lp_vec_push(&b->terms,
                ((lp_embed_term){{NULL, tok->len}, 1.0f, (tok->flags & LP_TEXT_TOK_WHOLE) != 0}));
    return 0;
}

static double max_diff(const float *a, const float *b, uint32_t n)
{
    double m = 0;
    for (uint32_t i = 0; i < n; i++)
        m = fmax(m, fabs((double)a[i] - b[i]));
    return m;
}

T_TEST(embed_terms_match_embed_text)
{
    lp_error err = {0};
    const lp_embed_model *m = NULL;
    lp_embedder *e = NULL;
    lp_text_tokenizer *tk = NULL;
    float *a = NULL, *b = NULL, *c = NULL, *v = NULL;
    tokbag bag = {0};
    lp_buf_init(&bag.text, 0);
    T_CHECK_OK(lp_embed_default(&m, &err), &err);
    e = lp_embedder_new(m);
    uint32_t dim = lp_embedder_dim(e);
    a = lp_xcalloc(dim, sizeof *a);
    b = lp_xcalloc(dim, sizeof *b);
    c = lp_xcalloc(dim, sizeof *c);
    v = lp_xcalloc(dim, sizeof *v);
    /* Known words, a whole identifier, a word outside the vocabulary, a number. */
    lp_str text = LP_STR("Parse the JSON payload with parseJsonPayload, zqxwvbnm 2048 times");
    tk = lp_text_tokenizer_new(LP_TEXT_CODE | LP_TEXT_STEM | LP_TEXT_STOPWORDS);
    lp_text_tokenize(tk, text, collect, &bag);
    T_CHECK(bag.terms.len >= 6);
    for (size_t i = 0; i < bag.terms.len; i++)
        bag.terms.items[i].text.ptr = bag.text.ptr + bag.offs.items[i];
    /* The bag of the tokens lp_embed_text would make embeds like the text. */
    T_CHECK(lp_embed_text(e, text, a));
    T_CHECK(lp_embed_terms(e, bag.terms.items, bag.terms.len, b));
    T_CHECK_MSG(max_diff(a, b, dim) < 1e-6, "terms vs text differ by %g", max_diff(a, b, dim));
    /* Summing each token's contribution and normalizing gives the same vector. */
    memset(c, 0, dim * sizeof *c);
    for (size_t i = 0; i < bag.terms.len; i++)
        if (lp_embed_term_vector(e, bag.terms.items[i].text, bag.terms.items[i].whole, v))
            for (uint32_t j = 0; j < dim; j++)
                c[j] += v[j];
    double n = 0;
    for (uint32_t j = 0; j < dim; j++)
        n += (double)c[j] * c[j];
    T_CHECK(n > 0);
    for (uint32_t j = 0; j < dim; j++)
        c[j] = (float)(c[j] / sqrt(n));
    T_CHECK_MSG(max_diff(a, c, dim) < 1e-5, "contributions differ by %g", max_diff(a, c, dim));
    /* Weights: doubling every token changes nothing after normalization; a zero weight
     * drops a token; numbers and whole identifiers outside the vocabulary give nothing. */
    for (size_t i = 0; i < bag.terms.len; i++)
        bag.terms.items[i].weight = 2.0f;
    T_CHECK(lp_embed_terms(e, bag.terms.items, bag.terms.len, b));
    T_CHECK(max_diff(a, b, dim) < 1e-6);
    T_CHECK(!lp_embed_term_vector(e, LP_STR("98765431"), false, v));
    T_CHECK(!lp_embed_term_vector(e, LP_STR("zqxwvbnmzq"), true, v));
    T_CHECK(lp_embed_term_vector(e, LP_STR("zqxwvbnmzq"), false, v)); /* subwords */
    lp_embed_term none = {LP_STR("json"), 0.0f, false};
    T_CHECK(!lp_embed_terms(e, &none, 1, b));
    for (uint32_t j = 0; j < dim; j++)
        T_CHECK(b[j] == 0.0f);
done:
    lp_text_tokenizer_free(tk);
    lp_vec_free(&bag.terms);
    lp_vec_free(&bag.offs);
    lp_buf_release(&bag.text);
    free(a);
    free(b);
    free(c);
    free(v);
    lp_embedder_free(e);
}

T_TEST(embed_scores_and_add_stored)
{
    lp_error err = {0};
    const lp_embed_model *m = NULL;
    lp_embedder *e = NULL;
    uint8_t *mat = NULL, *q = NULL;
    float *scales = NULL, *scores = NULL, *acc = NULL;
    lp_embed_hit hits[4];
    T_CHECK_OK(lp_embed_default(&m, &err), &err);
    e = lp_embedder_new(m);
    uint32_t dim = lp_embedder_dim(e);
    static const char *const texts[] = {"open a socket", "read a file", "", "sort a list",
                                        "write a file"};
    size_t n = LP_ARRAY_LEN(texts), vb = LP_EMBED_VEC_BYTES(dim);
    uint8_t *rows = lp_xcalloc(n, vb);
    mat = lp_xcalloc(n, dim);
    scales = lp_xcalloc(n, sizeof *scales);
    scores = lp_xcalloc(n, sizeof *scores);
    q = lp_xcalloc(1, vb);
    acc = lp_xcalloc(dim, sizeof *acc);
    for (size_t i = 0; i < n; i++) {
        lp_embed_text_q(e, lp_str_c(texts[i]), rows + i * vb);
        memcpy(mat + i * dim, rows + i * vb, dim);
        scales[i] = lp_embed_vec_scale(rows + i * vb, dim);
    }
    free(rows);
    T_CHECK(scales[2] == 0.0f); /* the empty text has no vector */
    T_CHECK(lp_embed_text_q(e, LP_STR("load the file contents"), q));
    float qs = lp_embed_vec_scale(q, dim);
    lp_embed_scores((const int8_t *)q, qs, (const int8_t *)mat, scales, n, dim, scores);
    size_t k = lp_embed_search((const int8_t *)q, qs, (const int8_t *)mat, scales, n, dim, 4, hits);
    T_CHECK_INT(k, 4);
    /* Every scored row agrees with the top-K scan; the row without a vector scores 0. */
    for (size_t i = 0; i < k; i++)
        T_CHECK(scores[hits[i].index] == hits[i].score);
    T_CHECK(scores[2] == 0.0f);
    T_CHECK(hits[0].index == 1 || hits[0].index == 4); /* a file-reading text first */
    /* A query with scale 0 scores every row 0. */
    lp_embed_scores((const int8_t *)q, 0.0f, (const int8_t *)mat, scales, n, dim, scores);
    for (size_t i = 0; i < n; i++)
        T_CHECK(scores[i] == 0.0f);
    /* add_stored adds the stored vector's values times s. */
    lp_embed_add_stored(acc, 2.0f, q, dim);
    for (uint32_t j = 0; j < dim; j++)
        T_CHECK(acc[j] == 2.0f * (qs * (float)(int8_t)q[j]));
done:
    free(mat);
    free(q);
    free(scales);
    free(scores);
    free(acc);
    lp_embedder_free(e);
}

T_TEST(embed_quantize_rounds_half_away_from_zero)
{
    uint32_t dim = 64;
    float v[64];
    uint8_t out[LP_EMBED_VEC_BYTES(64)];
    uint64_t s = 7;
    for (int round = 0; round < 200; round++) {
        for (uint32_t j = 0; j < dim; j++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            v[j] = (float)((double)(s >> 11) / 9007199254740992.0 * 2 - 1);
        }
        if (round % 3 == 0) /* exact halves after scaling: max 127 makes x.5 reachable */
            for (uint32_t j = 1; j < dim; j++)
                v[j] = (float)((int)(v[j] * 100) + 0.5) / 127.0f;
        v[0] = round % 2 ? 1.0f : -1.0f;
        lp_embed_quantize(v, dim, out);
        float mx = 0;
        for (uint32_t j = 0; j < dim; j++)
            mx = fmaxf(mx, fabsf(v[j]));
        float inv = 127.0f / mx;
        for (uint32_t j = 0; j < dim; j++) {
            long r = lroundf(v[j] * inv);
            r = r > 127 ? 127 : r < -127 ? -127 : r;
            T_CHECK_MSG((int8_t)out[j] == r, "round %d j %u: %d vs %ld (x=%.9g)", round, j,
                        (int8_t)out[j], r, (double)(v[j] * inv));
        }
        T_CHECK(lp_embed_vec_scale(out, dim) == mx / 127.0f);
    }
done:;
}
