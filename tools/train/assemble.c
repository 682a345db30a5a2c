/*
 * assemble.c: a model from a distilled table (tools/teacher): the vocabulary TSV written by
 * lp_train_vocab_dump, float32 rows from the teacher, SIF weights from the counts and
 * n-gram buckets derived from the vocabulary rows. The result is an ordinary model file
 * (lp_embed_model_serialize), used as is or as the start of lp_train_run (opts.init).
 */
#include "train.h"

#include <math.h>

typedef struct vocab_tsv {
    LP_VEC(char *) tokens;
    LP_VEC(uint64_t) counts;
    uint64_t total;
    lp_arena arena;
} vocab_tsv;

static lp_status read_vocab(const char *path, vocab_tsv *v, lp_error *err)
{
    lp_buf b;
    lp_buf_init(&b, 0);
    lp_status rc = lp_read_file(path, (size_t)1 << 30, &b, err);
    if (rc)
        goto done;
    lp_str all = lp_buf_str(&b);
    size_t lineno = 0;
    for (size_t pos = 0; pos < all.len;) {
        size_t nl = lp_str_find_char(all, '\n', pos);
        if (nl == SIZE_MAX)
            nl = all.len;
        lp_str line = lp_str_sub(all, pos, nl);
        pos = nl + 1;
        lineno++;
        if (!line.len)
            continue;
        size_t t1 = lp_str_find_char(line, '\t', 0);
        size_t t2 = t1 == SIZE_MAX ? SIZE_MAX : lp_str_find_char(line, '\t', t1 + 1);
        uint64_t n;
        lp_str num = lp_str_sub(line, t1 == SIZE_MAX ? 0 : t1 + 1, t2 == SIZE_MAX ? line.len : t2);
        if (t1 == SIZE_MAX || t1 == 0 || t1 > LP_TEXT_TOKEN_MAX || !lp_parse_u64(num, &n)) {
            rc = lp_error_set(err, LP_EINVAL,
                              "%s:%zu: expected token<TAB>count<TAB>surface; regenerate the "
                              "file with `loupe-train vocab`",
                              path, lineno);
            goto done;
        }
        if (lineno == 1 && line.ptr[0] == '#') {
            v->total = n;
            continue;
        }
        lp_vec_push(&v->tokens, lp_arena_strndup(&v->arena, line.ptr, t1));
        lp_vec_push(&v->counts, n);
    }
    if (!v->tokens.len || !v->total)
        rc = lp_error_set(err, LP_EINVAL, "%s: no vocabulary or no #total line", path);
done:
    lp_buf_release(&b);
    return rc;
}


static uint32_t no_lookup(const void *ctx, const char *t, size_t len)
{
    (void)ctx, (void)t, (void)len;
    return UINT32_MAX;
}

static float no_weight(const void *ctx, uint32_t row)
{
    (void)ctx, (void)row;
    return 0.0f;
}

lp_status lp_train_assemble(const char *vocab_path, const char *rows_path, uint32_t dim,
                            const lp_train_opts *o, lp_buf *model_out, lp_error *err)
{
    vocab_tsv v;
    memset(&v, 0, sizeof v);
    lp_arena_init(&v.arena, 1 << 20);
    lp_buf rb;
    lp_buf_init(&rb, 0);
    float *rows = NULL, *wts = NULL;
    uint32_t *bcount = NULL;
    lp_status rc = read_vocab(vocab_path, &v, err);
    if (rc)
        goto done;
    if (dim < LP_EMBED_DIM_MIN || dim > LP_EMBED_DIM_MAX) {
        rc = lp_error_set(err, LP_EINVAL, "dim must be %d..%d", LP_EMBED_DIM_MIN,
                          LP_EMBED_DIM_MAX);
        goto done;
    }
    uint32_t n = (uint32_t)v.tokens.len;
    size_t want = (size_t)n * dim * sizeof(float);
    if ((rc = lp_read_file(rows_path, want + 1, &rb, err)))
        goto done;
    if (rb.len != want) {
        rc = lp_error_set(err, LP_EINVAL,
                          "%s has %zu bytes; %u tokens x %u dims of float32 need %zu (was it "
                          "written for this vocabulary and dim?)",
                          rows_path, rb.len, n, dim, want);
        goto done;
    }
    uint32_t total_rows = n + o->buckets;
    rows = lp_xcalloc((size_t)total_rows * dim, sizeof(float));
    memcpy(rows, rb.ptr, want);
    for (size_t i = 0; i < (size_t)n * dim; i++) {
        if (!isfinite(rows[i])) {
            rc = lp_error_set(err, LP_EINVAL, "%s: row %zu has a value that is not finite",
                              rows_path, i / dim);
            goto done;
        }
    }
    wts = lp_xmalloc(sizeof(float) * n);
    for (uint32_t i = 0; i < n; i++) {
        double p = (double)v.counts.items[i] / (double)v.total;
        wts[i] = (float)(o->sif_a / (o->sif_a + p));
    }
    /* Buckets: the mean row of the vocabulary tokens that contain each n-gram. */
    if (o->buckets) {
        lp_embed_featurizer fz = {.lookup = no_lookup,
                                  .weight = no_weight,
                                  .vocab = n,
                                  .buckets = o->buckets,
                                  .ngram_min = o->ngram_min,
                                  .ngram_max = o->ngram_max,
                                  .oov_weight = 1.0f};
        bcount = lp_xcalloc(o->buckets, sizeof(uint32_t));
        char padded[LP_TEXT_TOKEN_MAX + 2];
        for (uint32_t i = 0; i < n; i++) {
            const char *t = v.tokens.items[i];
            size_t len = strlen(t), pn = len + 2;
            padded[0] = '<';
            memcpy(padded + 1, t, len);
            padded[pn - 1] = '>';
            for (uint32_t g = o->ngram_min; g <= o->ngram_max && g <= pn; g++) {
                for (size_t s = 0; s + g <= pn; s++) {
                    uint32_t r = lp_embed_ngram_row(&fz, padded + s, g);
                    float *dst = rows + (size_t)r * dim;
                    const float *src = rows + (size_t)i * dim;
                    for (uint32_t j = 0; j < dim; j++)
                        dst[j] += src[j];
                    bcount[r - n]++;
                }
            }
        }
        for (uint32_t b = 0; b < o->buckets; b++) {
            if (!bcount[b])
                continue;
            float *dst = rows + (size_t)(n + b) * dim;
            for (uint32_t j = 0; j < dim; j++)
                dst[j] /= (float)bcount[b];
        }
    }
    double oov_p = 1.0 / (double)v.total;
    lp_embed_model_spec spec = {.dim = dim,
                                .vocab = n,
                                .buckets = o->buckets,
                                .ngram_min = o->ngram_min,
                                .ngram_max = o->ngram_max,
                                .tok_options = o->tok_options,
                                .oov_weight = (float)(o->sif_a / (o->sif_a + oov_p)),
                                .tokens = (const char *const *)v.tokens.items,
                                .weights = wts,
                                .rows = rows};
    rc = lp_embed_model_serialize(&spec, model_out, err);
done:
    free(rows);
    free(wts);
    free(bcount);
    lp_buf_release(&rb);
    lp_vec_free(&v.tokens);
    lp_vec_free(&v.counts);
    lp_arena_release(&v.arena);
    return rc;
}
