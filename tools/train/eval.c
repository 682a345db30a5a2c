/*
 * eval.c: retrieval quality of a model on held-out pairs, against BM25 in the same run.
 *
 * For a set of N held-out pairs (N <= max_candidates), every description is a query and the
 * N codes are the candidates; the rank of the query's own code gives MRR, recall@1 and
 * recall@10. The model side uses the shipped path exactly: the serialized (int8) model,
 * lp_embedder, quantized vectors, the integer dot product of the scan. BM25 (k1 1.2, b 0.75)
 * uses the same tokenizer options over the same candidates. Ties rank the query's own code
 * after every candidate with an equal score (pessimistic), for both methods alike.
 */
#include "train.h"

#include <math.h>

typedef struct eval_set {
    const lp_pair **p;
    size_t n;
} eval_set;

/* Deterministic sample: held-out pairs of lang (or all languages when lang ==
 * LP_LANG_COUNT), ordered by hash of their code, the first max taken. */
typedef struct hp {
    uint64_t h;
    const lp_pair *p;
} hp;

static int hp_cmp(const void *a, const void *b)
{
    uint64_t x = ((const hp *)a)->h, y = ((const hp *)b)->h;
    return x < y ? -1 : x > y;
}

static eval_set pick(const lp_pairs *pairs, uint32_t lang, uint32_t max)
{
    LP_VEC(hp) v = {0};
    for (size_t i = 0; i < pairs->items.len; i++) {
        const lp_pair *x = &pairs->items.items[i];
        if (!x->heldout || (lang != LP_LANG_COUNT && x->lang != lang))
            continue;
        lp_vec_push(&v, ((hp){lp_hash64_seeded(x->code, x->code_len, lang), x}));
    }
    if (v.len)
        qsort(v.items, v.len, sizeof *v.items, hp_cmp);
    eval_set s = {NULL, LP_MIN(v.len, (size_t)max)};
    s.p = lp_xmalloc(sizeof *s.p * (s.n ? s.n : 1));
    for (size_t i = 0; i < s.n; i++)
        s.p[i] = v.items[i].p;
    lp_vec_free(&v);
    return s;
}

/* ------------------------------------------------------------------------------------------
 * BM25 over the candidate codes. */
typedef struct term_map {
    char **keys;
    uint32_t *ids;
    size_t cap, len;
} term_map;

static uint32_t term_id(term_map *m, const char *t, size_t len, bool add)
{
    if (!m->cap || (add && (m->len + 1) * 2 > m->cap)) {
        term_map old = *m;
        m->cap = old.cap ? old.cap * 2 : 1024;
        m->keys = lp_xcalloc(m->cap, sizeof(char *));
        m->ids = lp_xcalloc(m->cap, sizeof(uint32_t));
        m->len = 0;
        for (size_t i = 0; i < old.cap; i++) {
            if (!old.keys[i])
                continue;
            uint64_t h = lp_hash64_of(old.keys[i], strlen(old.keys[i]));
            size_t s = h & (m->cap - 1);
            while (m->keys[s])
                s = (s + 1) & (m->cap - 1);
            m->keys[s] = old.keys[i];
            m->ids[s] = old.ids[i];
            m->len++;
        }
        free(old.keys);
        free(old.ids);
    }
    uint64_t h = lp_hash64_of(t, len);
    size_t s = h & (m->cap - 1);
    while (m->keys[s]) {
        if (strlen(m->keys[s]) == len && !memcmp(m->keys[s], t, len))
            return m->ids[s];
        s = (s + 1) & (m->cap - 1);
    }
    if (!add)
        return UINT32_MAX;
    m->keys[s] = lp_xstrndup(t, len);
    m->ids[s] = (uint32_t)m->len++;
    return m->ids[s];
}

static void term_map_free(term_map *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->ids);
}

typedef struct tok_collect {
    term_map *m;
    bool add;
    LP_VEC(uint32_t) ids;
} tok_collect;

static int collect_tok(void *ctx, const lp_text_token *tok)
{
    tok_collect *c = ctx;
    uint32_t id = term_id(c->m, tok->text, tok->len, c->add);
    if (id != UINT32_MAX)
        lp_vec_push(&c->ids, id);
    return 0;
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* scores[q * n + d] for every query q and candidate d. */
static void bm25_scores(const eval_set *s, unsigned tok_options, float *scores)
{
    size_t n = s->n;
    term_map m = {0};
    lp_text_tokenizer *tk = lp_text_tokenizer_new(tok_options);
    /* Documents as sorted term lists. */
    uint32_t **terms = lp_xcalloc(n, sizeof *terms);
    size_t *nterms = lp_xcalloc(n, sizeof *nterms);
    double avgdl = 0;
    for (size_t d = 0; d < n; d++) {
        tok_collect c = {&m, true, {0}};
        lp_text_tokenize(tk, lp_str_n(s->p[d]->code, s->p[d]->code_len), collect_tok, &c);
        if (c.ids.len)
            qsort(c.ids.items, c.ids.len, sizeof(uint32_t), u32_cmp);
        terms[d] = c.ids.items;
        nterms[d] = c.ids.len;
        avgdl += (double)c.ids.len;
    }
    avgdl = n ? avgdl / (double)n : 1;
    uint32_t *df = lp_xcalloc(m.len + 1, sizeof(uint32_t));
    for (size_t d = 0; d < n; d++)
        for (size_t i = 0; i < nterms[d]; i++)
            if (i == 0 || terms[d][i] != terms[d][i - 1])
                df[terms[d][i]]++;
    const double k1 = 1.2, b = 0.75;
    for (size_t q = 0; q < n; q++) {
        tok_collect c = {&m, false, {0}};
        lp_text_tokenize(tk, lp_str_n(s->p[q]->desc, s->p[q]->desc_len), collect_tok, &c);
        if (c.ids.len)
            qsort(c.ids.items, c.ids.len, sizeof(uint32_t), u32_cmp);
        for (size_t d = 0; d < n; d++) {
            double sc = 0;
            for (size_t i = 0; i < c.ids.len; i++) {
                if (i && c.ids.items[i] == c.ids.items[i - 1])
                    continue;
                uint32_t t = c.ids.items[i];
                /* term frequency by binary search for the run of t */
                size_t lo = 0, hi = nterms[d];
                while (lo < hi) {
                    size_t mid = (lo + hi) / 2;
                    if (terms[d][mid] < t)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                size_t tf = 0;
                while (lo + tf < nterms[d] && terms[d][lo + tf] == t)
                    tf++;
                if (!tf)
                    continue;
                double idf = log(1.0 + ((double)n - df[t] + 0.5) / (df[t] + 0.5));
                double norm = (double)tf * (k1 + 1) /
                              ((double)tf + k1 * (1 - b + b * (double)nterms[d] / avgdl));
                sc += idf * norm;
            }
            scores[q * n + d] = (float)sc;
        }
        lp_vec_free(&c.ids);
    }
    for (size_t d = 0; d < n; d++)
        free(terms[d]);
    free(terms);
    free(nterms);
    free(df);
    lp_text_tokenizer_free(tk);
    term_map_free(&m);
}

/* ------------------------------------------------------------------------------------------
 * Model scores: quantized vectors and the scan's integer dot product. */
static void model_scores(const eval_set *s, const lp_embed_model *model, float *scores)
{
    size_t n = s->n;
    uint32_t dim = lp_embed_model_dim(model);
    size_t stride = LP_EMBED_VEC_BYTES(dim);
    uint8_t *qv = lp_xmalloc(stride * (n ? n : 1)), *cv = lp_xmalloc(stride * (n ? n : 1));
    lp_embedder *e = lp_embedder_new(model);
    for (size_t i = 0; i < n; i++) {
        lp_embed_text_q(e, lp_str_n(s->p[i]->desc, s->p[i]->desc_len), qv + i * stride);
        lp_embed_text_q(e, lp_str_n(s->p[i]->code, s->p[i]->code_len), cv + i * stride);
    }
    lp_embedder_free(e);
    lp_simd_level lv = lp_embed_simd_best();
    for (size_t q = 0; q < n; q++) {
        const uint8_t *a = qv + q * stride;
        float qs = lp_embed_vec_scale(a, dim);
        for (size_t d = 0; d < n; d++) {
            const uint8_t *b = cv + d * stride;
            int32_t dot = lp_embed_dot_i8(lv, (const int8_t *)a, (const int8_t *)b, dim);
            scores[q * n + d] = (float)dot * qs * lp_embed_vec_scale(b, dim);
        }
    }
    free(qv);
    free(cv);
}

static void ranks_to_metrics(const float *scores, size_t n, double *mrr, double *r1, double *r10)
{
    double sum = 0, h1 = 0, h10 = 0;
    for (size_t q = 0; q < n; q++) {
        float own = scores[q * n + q];
        size_t rank = 1;
        for (size_t d = 0; d < n; d++)
            if (d != q && scores[q * n + d] >= own)
                rank++;
        sum += 1.0 / (double)rank;
        h1 += rank == 1;
        h10 += rank <= 10;
    }
    *mrr = n ? sum / (double)n : 0;
    *r1 = n ? h1 / (double)n : 0;
    *r10 = n ? h10 / (double)n : 0;
}

/* Reciprocal-rank fusion (k = 60) of two score matrices: what the search layer does with
 * the lexical and dense channels. Writes fused scores into out. */
static const float *sort_scores;
static int idx_by_score(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    if (sort_scores[a] != sort_scores[b])
        return sort_scores[a] > sort_scores[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

static void rrf(const float *s1, const float *s2, size_t n, float *out)
{
    uint32_t *idx = lp_xmalloc(sizeof(uint32_t) * n);
    for (size_t q = 0; q < n; q++) {
        float *o = out + q * n;
        memset(o, 0, sizeof(float) * n);
        const float *src[2] = {s1 + q * n, s2 + q * n};
        for (int m = 0; m < 2; m++) {
            for (size_t i = 0; i < n; i++)
                idx[i] = (uint32_t)i;
            sort_scores = src[m];
            qsort(idx, n, sizeof *idx, idx_by_score);
            for (size_t r = 0; r < n; r++)
                o[idx[r]] += 1.0f / (60.0f + (float)r + 1.0f);
        }
    }
    free(idx);
}

size_t lp_train_eval(const lp_pairs *pairs, const uint8_t *model, size_t model_len,
                     uint32_t max_candidates, uint32_t min_pairs, unsigned threads,
                     lp_eval_result *out, size_t cap, lp_error *err)
{
    (void)threads;
    lp_embed_model *m;
    if (lp_embed_model_from_memory(model, model_len, &m, err))
        return 0;
    lp_embed_info info;
    lp_embed_model_info(m, &info);
    size_t nout = 0;
    for (uint32_t lang = 0; lang <= LP_LANG_COUNT && nout < cap; lang++) {
        eval_set s = pick(pairs, lang, max_candidates);
        if (s.n < (lang == LP_LANG_COUNT ? 2 : min_pairs) || s.n < 2) {
            free(s.p);
            continue;
        }
        float *sc = lp_xmalloc(sizeof(float) * s.n * s.n);
        float *sb = lp_xmalloc(sizeof(float) * s.n * s.n);
        float *sf = lp_xmalloc(sizeof(float) * s.n * s.n);
        lp_eval_result *r = &out[nout++];
        memset(r, 0, sizeof *r);
        r->lang = lang;
        r->queries = (uint32_t)s.n;
        model_scores(&s, m, sc);
        ranks_to_metrics(sc, s.n, &r->mrr_model, &r->r1_model, &r->r10_model);
        bm25_scores(&s, info.tok_options, sb);
        ranks_to_metrics(sb, s.n, &r->mrr_bm25, &r->r1_bm25, &r->r10_bm25);
        rrf(sc, sb, s.n, sf);
        ranks_to_metrics(sf, s.n, &r->mrr_fused, &r->r1_fused, &r->r10_fused);
        free(sc);
        free(sb);
        free(sf);
        free(s.p);
    }
    lp_embed_model_free(m);
    return nout;
}
