/*
 * dense.c: the catalog's dense channel (loupe's static embedding model, src/embed).
 *
 * Tool vectors. A tool's vector is made when its definition is prepared (lp_catalog_parse),
 * from the terms the lexical index already tokenized, so nothing is tokenized twice: for
 * each field f with a positive mix weight params.dense_field[f], the field's terms (each
 * weighted by its count) are embedded with lp_embed_terms into a unit vector v_f; the tool's
 * vector is the normalized sum of dense_field[f] * v_f, quantized to int8. The catalog's
 * tokenizers use the model's options (identifier splitting, Porter step 1 stemming,
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

#include <math.h>

struct lp_cat_dense_prep {
    lp_embedder *e;
    uint32_t dim;
    LP_VEC(lp_embed_term) bag;
    float *acc, *part;
};

void lp_cat_dense_init(lp_catalog *cat)
{
    cat->model = NULL;
    cat->dense_note[0] = '\0';
    if (!(cat->params.dense_weight > 0))
        return;
    lp_error err = {0};
    const lp_embed_model *m = NULL;
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
    dp->part = lp_xcalloc(dp->dim, sizeof(float));
    return dp;
}

void lp_cat_dense_prep_free(lp_cat_dense_prep *dp)
{
    if (!dp)
        return;
    lp_embedder_free(dp->e);
    lp_vec_free(&dp->bag);
    free(dp->acc);
    free(dp->part);
    free(dp);
}

void lp_cat_dense_embed_doc(lp_cat_dense_prep *dp, const lp_catalog_params *params,
                            lp_cat_doc *d)
{
    uint32_t dim = dp->dim;
    memset(dp->acc, 0, dim * sizeof(float));
    bool any = false;
    for (int f = 0; f < NF; f++) {
        double w = params->dense_field[f];
        if (!(w > 0))
            continue;
        dp->bag.len = 0;
        for (uint32_t i = 0; i < d->npterms; i++) {
            const lp_cat_pterm *t = &d->pterms[i];
            if (t->tf[f])
                lp_vec_push(&dp->bag, ((lp_embed_term){{d->term_text + t->off, t->len},
                                                       (float)t->tf[f], t->whole != 0}));
        }
        if (!dp->bag.len || !lp_embed_terms(dp->e, dp->bag.items, dp->bag.len, dp->part))
            continue;
        for (uint32_t j = 0; j < dim; j++)
            dp->acc[j] += (float)w * dp->part[j];
        any = true;
    }
    if (!any)
        return;
    double norm = 0;
    for (uint32_t j = 0; j < dim; j++)
        norm += (double)dp->acc[j] * dp->acc[j];
    if (!(norm > 1e-20))
        return;
    float inv = (float)(1.0 / sqrt(norm));
    for (uint32_t j = 0; j < dim; j++)
        dp->acc[j] *= inv;
    d->vec = lp_xmalloc(LP_EMBED_VEC_BYTES(dim));
    lp_embed_quantize(dp->acc, dim, d->vec);
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
 * Query side. */
bool lp_cat_dense_scores(const lp_catalog *cat, lp_str query, float *scores, const char **why)
{
    *why = NULL;
    if (!(cat->params.dense_weight > 0))
        return false;
    if (!cat->model) {
        *why = "dense_channel_absent";
        return false;
    }
    size_t n = LP_MIN(cat->slots.len, cat->dcap);
    uint32_t dim = cat->dim;
    lp_embedder *e = lp_embedder_new(cat->model);
    float *qv = lp_xmalloc(dim * sizeof(float));
    uint8_t *qq = lp_xmalloc(LP_EMBED_VEC_BYTES(dim));
    bool ok = lp_embed_text(e, query, qv);
    if (ok) {
        lp_embed_quantize(qv, dim, qq);
        lp_embed_scores((const int8_t *)qq, lp_embed_vec_scale(qq, dim), cat->dmat, cat->dscale,
                        n, dim, scores);
    }
    for (size_t i = ok ? n : 0; i < cat->slots.len; i++)
        scores[i] = 0.0f;
    free(qq);
    free(qv);
    lp_embedder_free(e);
    return ok;
}
