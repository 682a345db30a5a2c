/*
 * trainer.c: vocabulary, SIF weights and contrastive training of the token table.
 *
 * Model: e(text) = normalize(sum_f w_f * V[row_f]) over the text's features (exactly the
 * features the runtime uses: lp_embed_featurize). Loss per batch of B pairs: symmetric
 * InfoNCE over S_ij = e(desc_i) . e(code_j) / tau (in-batch negatives, the neural
 * bag-of-words setup of CodeSearchNet with one shared table). Batches hold pairs of one
 * language so negatives are not trivially separable. Optimizer: Adam with lazy (touched-row)
 * updates and a linearly decaying learning rate.
 *
 * Determinism: the RNG is splitmix64 from the seed; every parallel phase either works on
 * disjoint outputs (texts, batch rows) or on disjoint table rows (thread k owns rows with
 * row % T == k, accumulating in text order), so the bytes do not depend on the thread count.
 */
#include "train.h"

#include <math.h>
#include <pthread.h>

void lp_train_opts_default(lp_train_opts *o)
{
    *o = (lp_train_opts){.seed = 1,
                         .threads = 2,
                         .dim = 256,
                         .vocab_max = 40000,
                         .min_count = 5,
                         .buckets = 8192,
                         .ngram_min = 3,
                         .ngram_max = 5,
                         .sif_a = 1e-3,
                         .epochs = 4,
                         .batch = 512,
                         .lr = 4e-3,
                         .temperature = 0.05,
                         .learn_weights = true,
                         .dropout = 0.0,
                         .anchor = 0.0,
                         .tok_options = LP_TEXT_CODE | LP_TEXT_STEM | LP_TEXT_STOPWORDS};
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double unit_rand(uint64_t *s)
{
    return (double)(splitmix(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* ------------------------------------------------------------------------------------------
 * Kernels. Eight explicit partial sums in a fixed order: the compiler may vectorize them
 * (any SIMD width gives the same IEEE results, as no operation is reassociated). */
static float dot8(const float *a, const float *b, uint32_t d)
{
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    uint32_t j = 0;
    for (; j + 8 <= d; j += 8)
        for (int l = 0; l < 8; l++)
            acc[l] += a[j + l] * b[j + l];
    float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (; j < d; j++)
        s += a[j] * b[j];
    return s;
}

static void axpy(float *restrict y, float w, const float *restrict x, uint32_t d)
{
    for (uint32_t j = 0; j < d; j++)
        y[j] += w * x[j];
}

/* ------------------------------------------------------------------------------------------
 * Parallel helper: run fn(ctx, k, T) on T threads (k = 0..T-1) and wait. */
typedef void (*par_fn)(void *ctx, unsigned k, unsigned T);
typedef struct par_arg {
    par_fn fn;
    void *ctx;
    unsigned k, T;
} par_arg;

static void *par_main(void *a)
{
    par_arg *p = a;
    p->fn(p->ctx, p->k, p->T);
    return NULL;
}

static void par_run(unsigned T, par_fn fn, void *ctx)
{
    pthread_t th[16];
    par_arg args[16];
    unsigned started = 0;
    if (T > 16)
        T = 16;
    for (unsigned k = 1; k < T; k++) {
        args[k] = (par_arg){fn, ctx, k, T};
        if (pthread_create(&th[k], NULL, par_main, &args[k]) != 0)
            break;
        started = k;
    }
    if (started + 1 < T) {
        /* Could not start every thread: finish the missing shares here, in order. */
        for (unsigned k = started + 1; k < T; k++)
            fn(ctx, k, T);
    }
    fn(ctx, 0, T);
    for (unsigned k = 1; k <= started; k++)
        pthread_join(th[k], NULL);
}

/* ------------------------------------------------------------------------------------------
 * Vocabulary. */
typedef struct vtok {
    char *text;
    uint64_t count;
    uint32_t len;
} vtok;

typedef struct vmap {
    uint32_t *slots; /* index + 1 into toks */
    size_t cap;
    LP_VEC(vtok) toks;
    lp_arena arena;
} vmap;

static uint32_t vmap_find(const vmap *m, const char *t, size_t len, uint64_t h, size_t *slot)
{
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        uint32_t e = m->slots[i];
        if (!e) {
            *slot = i;
            return UINT32_MAX;
        }
        const vtok *v = &m->toks.items[e - 1];
        if (v->len == len && !memcmp(v->text, t, len)) {
            *slot = i;
            return e - 1;
        }
    }
}

static void vmap_grow(vmap *m)
{
    free(m->slots);
    m->cap = m->cap ? m->cap * 2 : 1 << 16;
    m->slots = lp_xcalloc(m->cap, sizeof *m->slots);
    for (size_t i = 0; i < m->toks.len; i++) {
        size_t slot;
        vmap_find(m, m->toks.items[i].text, m->toks.items[i].len,
                  lp_embed_token_hash(m->toks.items[i].text, m->toks.items[i].len), &slot);
        m->slots[slot] = (uint32_t)i + 1;
    }
}

static void vmap_add(vmap *m, const char *t, size_t len, uint64_t n)
{
    if ((m->toks.len + 1) * 2 > m->cap)
        vmap_grow(m);
    size_t slot;
    uint32_t i = vmap_find(m, t, len, lp_embed_token_hash(t, len), &slot);
    if (i != UINT32_MAX) {
        m->toks.items[i].count += n;
        return;
    }
    vtok v = {lp_arena_strndup(&m->arena, t, len), n, (uint32_t)len};
    lp_vec_push(&m->toks, v);
    m->slots[slot] = (uint32_t)m->toks.len;
}

static int count_tok(void *ctx, const lp_text_token *tok)
{
    vmap_add(ctx, tok->text, tok->len, 1);
    return 0;
}

static int vtok_cmp(const void *pa, const void *pb)
{
    const vtok *a = pa, *b = pb;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    size_t n = LP_MIN(a->len, b->len);
    int c = memcmp(a->text, b->text, n);
    return c ? c : (a->len < b->len ? -1 : a->len > b->len);
}

/* The final vocabulary: rows 0..n-1 in a lookup table. */
typedef struct vocab {
    vmap map; /* toks sorted; slots rebuilt */
    uint32_t n;
    float *weights;
    uint64_t total;
} vocab;

static uint32_t vocab_lookup(const void *ctx, const char *t, size_t len)
{
    const vocab *v = ctx;
    size_t slot;
    return vmap_find(&v->map, t, len, lp_embed_token_hash(t, len), &slot);
}

static float vocab_weight(const void *ctx, uint32_t row)
{
    return ((const vocab *)ctx)->weights[row];
}

/* The vocabulary of a starting model: its tokens in row order, its weights. */
static void vocab_from_model(const lp_embed_model *m, vocab *v)
{
    memset(v, 0, sizeof *v);
    lp_arena_init(&v->map.arena, 1 << 20);
    const lp_embed_header *h = lp_embed_model_header_(m);
    for (uint32_t i = 0; i < h->vocab; i++) {
        lp_str t = lp_embed_model_token(m, i);
        vmap_add(&v->map, t.ptr, t.len, 1);
    }
    v->n = h->vocab;
    v->total = h->vocab;
    v->weights = lp_xmalloc(sizeof(float) * (v->n ? v->n : 1));
    memcpy(v->weights, lp_embed_model_weights_(m), sizeof(float) * v->n);
}

static void vocab_build(const lp_pairs *pairs, const lp_train_opts *o, vocab *v)
{
    if (o->init) {
        vocab_from_model(o->init, v);
        return;
    }
    memset(v, 0, sizeof *v);
    lp_arena_init(&v->map.arena, 1 << 20);
    lp_text_tokenizer *tk = lp_text_tokenizer_new(o->tok_options);
    for (size_t i = 0; i < pairs->items.len; i++) {
        const lp_pair *x = &pairs->items.items[i];
        if (x->heldout)
            continue;
        lp_text_tokenize(tk, lp_str_n(x->desc, x->desc_len), count_tok, &v->map);
        lp_text_tokenize(tk, lp_str_n(x->code, LP_MIN(x->code_len, (uint32_t)LP_EMBED_TEXT_MAX)),
                         count_tok, &v->map);
    }
    lp_text_tokenizer_free(tk);
    for (size_t i = 0; i < v->map.toks.len; i++)
        v->total += v->map.toks.items[i].count;
    if (v->map.toks.len)
        qsort(v->map.toks.items, v->map.toks.len, sizeof(vtok), vtok_cmp);
    size_t keep = 0;
    while (keep < v->map.toks.len && keep < o->vocab_max &&
           v->map.toks.items[keep].count >= o->min_count)
        keep++;
    v->map.toks.len = keep;
    v->n = (uint32_t)keep;
    /* vmap_grow doubles cap: at least 2 * keep slots (load <= 1/2, as vmap_add keeps it). */
    v->map.cap = (size_t)1 << 15;
    while (v->map.cap < keep)
        v->map.cap <<= 1;
    vmap_grow(&v->map);
    v->weights = lp_xmalloc(sizeof(float) * (keep ? keep : 1));
    for (size_t i = 0; i < keep; i++) {
        double p = (double)v->map.toks.items[i].count / (double)(v->total ? v->total : 1);
        v->weights[i] = (float)(o->sif_a / (o->sif_a + p));
    }
}

static void vocab_free(vocab *v)
{
    free(v->map.slots);
    lp_vec_free(&v->map.toks);
    lp_arena_release(&v->map.arena);
    free(v->weights);
}

/* ------------------------------------------------------------------------------------------
 * Featurized texts (CSR). Text 2p is pair p's description, 2p+1 its code. */
#define FEATS_MAX 768 /* features kept per text */

typedef struct corpus {
    uint32_t *row;
    float *w;
    uint64_t *off; /* ntexts + 1 */
    size_t ntexts;
    uint8_t *lang; /* per pair */
    size_t npairs;
} corpus;

typedef struct feat_job {
    const lp_pairs *pairs;
    const size_t *idx; /* training pair indices */
    size_t n;
    const lp_embed_featurizer *fz;
    unsigned tok_options;
    lp_embed_features out[16];
    LP_VEC(uint32_t) counts[16]; /* features per text, for the thread's range */
} feat_job;

static void feat_part(void *ctx, unsigned k, unsigned T)
{
    feat_job *j = ctx;
    size_t a = j->n * k / T, b = j->n * (k + 1) / T;
    lp_text_tokenizer *tk = lp_text_tokenizer_new(j->tok_options);
    for (size_t i = a; i < b; i++) {
        const lp_pair *x = &j->pairs->items.items[j->idx[i]];
        for (int side = 0; side < 2; side++) {
            size_t before = j->out[k].len;
            lp_str t = side ? lp_str_n(x->code, x->code_len) : lp_str_n(x->desc, x->desc_len);
            lp_embed_featurize(j->fz, tk, t, &j->out[k]);
            if (j->out[k].len - before > FEATS_MAX)
                j->out[k].len = before + FEATS_MAX;
            lp_vec_push(&j->counts[k], (uint32_t)(j->out[k].len - before));
        }
    }
    lp_text_tokenizer_free(tk);
}

static void corpus_build(const lp_pairs *pairs, const size_t *idx, size_t n,
                         const lp_embed_featurizer *fz, const lp_train_opts *o, corpus *c)
{
    feat_job j;
    memset(&j, 0, sizeof j);
    j.pairs = pairs;
    j.idx = idx;
    j.n = n;
    j.fz = fz;
    j.tok_options = o->tok_options;
    unsigned T = o->threads ? LP_MIN(o->threads, 16u) : 1;
    par_run(T, feat_part, &j);
    size_t total = 0;
    for (unsigned k = 0; k < T; k++)
        total += j.out[k].len;
    memset(c, 0, sizeof *c);
    c->ntexts = 2 * n;
    c->npairs = n;
    c->row = lp_xmalloc(sizeof(uint32_t) * (total ? total : 1));
    c->w = lp_xmalloc(sizeof(float) * (total ? total : 1));
    c->off = lp_xmalloc(sizeof(uint64_t) * (c->ntexts + 1));
    c->lang = lp_xmalloc(n ? n : 1);
    size_t t = 0, f = 0;
    c->off[0] = 0;
    for (unsigned k = 0; k < T; k++) {
        size_t src = 0;
        for (size_t i = 0; i < j.counts[k].len; i++) {
            uint32_t cnt = j.counts[k].items[i];
            for (uint32_t q = 0; q < cnt; q++, src++, f++) {
                c->row[f] = j.out[k].items[src].row;
                c->w[f] = j.out[k].items[src].weight;
            }
            c->off[++t] = f;
        }
        lp_vec_free(&j.out[k]);
        lp_vec_free(&j.counts[k]);
    }
    for (size_t i = 0; i < n; i++)
        c->lang[i] = pairs->items.items[idx[i]].lang;
}

static void corpus_free(corpus *c)
{
    free(c->row);
    free(c->w);
    free(c->off);
    free(c->lang);
}

/* ------------------------------------------------------------------------------------------
 * One training step. */
typedef struct trainer {
    const lp_train_opts *o;
    const corpus *c;
    uint32_t dim, rows;
    float *V, *M, *S2, *G;   /* table, Adam moments, gradient accumulator */
    uint32_t vocab;          /* rows below this have a learned pooling weight */
    uint32_t drop_threshold; /* feature dropout: dropped when a 32-bit hash is below this */
    float *W, *WM, *WS, *WG; /* per-row pooling weights (vocab rows), Adam moments, gradient */
    uint32_t *touched_at;    /* step + 1 when the row was last touched */
    unsigned T;
    /* per step */
    const uint32_t *batch; /* pair indices, B */
    uint32_t B;
    float *E;          /* 2B x dim: unit vectors (desc 0..B-1, code B..2B-1) */
    float *inv;        /* 2B: 1 / |u| (0 for an empty text) */
    float *Sc;         /* B x B scores */
    float *dS;         /* B x B */
    float *gE;         /* 2B x dim */
    double *loss_part; /* per thread */
    uint64_t step;
    float lr;
    LP_VEC(uint32_t) touched[16];
} trainer;

/* The initial value of a row: uniform in +-sqrt(3/d) (unit expected norm), from a generator
 * seeded by (seed, row), so it can be regenerated for the decay toward it. */
static void init_row(const trainer *tr, uint32_t row, float *out)
{
    if (tr->o->init) {
        float sc = lp_embed_model_scales_(tr->o->init)[row];
        const int8_t *q = lp_embed_model_rows_(tr->o->init) + (size_t)row * tr->dim;
        for (uint32_t j = 0; j < tr->dim; j++)
            out[j] = sc * (float)q[j];
        return;
    }
    uint64_t s = tr->o->seed ^ ((uint64_t)row * 0xA24BAED4963EE407ull);
    float r = (float)sqrt(3.0 / tr->dim);
    for (uint32_t j = 0; j < tr->dim; j++)
        out[j] = (float)((unit_rand(&s) * 2.0 - 1.0) * r);
}

static inline const uint32_t *text_range(const trainer *tr, uint32_t t, uint64_t *a, uint64_t *b)
{
    uint32_t pair = tr->batch[t % tr->B];
    uint64_t text = 2ull * pair + (t >= tr->B ? 1 : 0);
    *a = tr->c->off[text];
    *b = tr->c->off[text + 1];
    return tr->c->row;
}

/* Feature dropout: a deterministic coin per (seed, step, feature) so the forward and the
 * backward pass drop the same features. */
static inline bool dropped(const trainer *tr, uint64_t f)
{
    if (tr->drop_threshold == 0)
        return false;
    uint64_t z = tr->o->seed * 0x9E3779B97F4A7C15ull ^ (tr->step + 1) * 0xBF58476D1CE4E5B9ull ^
                 f * 0x94D049BB133111EBull;
    z ^= z >> 31;
    z *= 0xD6E8FEB86659FD93ull;
    z ^= z >> 32;
    return (uint32_t)z < tr->drop_threshold;
}

/* A vocabulary token's weight is learned (W); an n-gram's share is fixed. */
static inline float feat_w(const trainer *tr, uint64_t f)
{
    uint32_t r = tr->c->row[f];
    return r < tr->vocab ? tr->W[r] : tr->c->w[f];
}

static void ph_forward(void *ctx, unsigned k, unsigned T)
{
    trainer *tr = ctx;
    uint32_t d = tr->dim, n = 2 * tr->B;
    for (uint32_t t = k; t < n; t += T) {
        float *e = tr->E + (size_t)t * d;
        memset(e, 0, sizeof(float) * d);
        uint64_t a, b;
        text_range(tr, t, &a, &b);
        for (uint64_t f = a; f < b; f++)
            if (!dropped(tr, f))
                axpy(e, feat_w(tr, f), tr->V + (size_t)tr->c->row[f] * d, d);
        double s = dot8(e, e, d);
        if (s < 1e-20) {
            tr->inv[t] = 0.0f;
            memset(e, 0, sizeof(float) * d);
            continue;
        }
        float inv = (float)(1.0 / sqrt(s));
        tr->inv[t] = inv;
        for (uint32_t j = 0; j < d; j++)
            e[j] *= inv;
    }
}

static void ph_scores(void *ctx, unsigned k, unsigned T)
{
    trainer *tr = ctx;
    uint32_t d = tr->dim, B = tr->B;
    float it = (float)(1.0 / tr->o->temperature);
    for (uint32_t i = k; i < B; i += T) {
        const float *q = tr->E + (size_t)i * d;
        for (uint32_t jx = 0; jx < B; jx++) {
            tr->Sc[(size_t)i * B + jx] = dot8(q, tr->E + (size_t)(B + jx) * d, d) * it;
        }
    }
}

/* dS = ((softmax over rows - I) + (softmax over columns - I)) / (2B); loss per thread. */
static void ph_softmax_rows(void *ctx, unsigned k, unsigned T)
{
    trainer *tr = ctx;
    uint32_t B = tr->B;
    double loss = 0;
    for (uint32_t i = k; i < B; i += T) {
        const float *s = tr->Sc + (size_t)i * B;
        float mx = s[0];
        for (uint32_t j = 1; j < B; j++)
            mx = s[j] > mx ? s[j] : mx;
        double z = 0;
        for (uint32_t j = 0; j < B; j++)
            z += exp((double)(s[j] - mx));
        for (uint32_t j = 0; j < B; j++) {
            double p = exp((double)(s[j] - mx)) / z;
            tr->dS[(size_t)i * B + j] = (float)((p - (i == j)) / (2.0 * B));
        }
        loss += -((double)(s[i] - mx) - log(z));
    }
    tr->loss_part[k] = loss;
}

static void ph_softmax_cols(void *ctx, unsigned k, unsigned T)
{
    trainer *tr = ctx;
    uint32_t B = tr->B;
    double loss = 0;
    for (uint32_t j = k; j < B; j += T) {
        float mx = tr->Sc[j];
        for (uint32_t i = 1; i < B; i++)
            mx = tr->Sc[(size_t)i * B + j] > mx ? tr->Sc[(size_t)i * B + j] : mx;
        double z = 0;
        for (uint32_t i = 0; i < B; i++)
            z += exp((double)(tr->Sc[(size_t)i * B + j] - mx));
        for (uint32_t i = 0; i < B; i++) {
            double p = exp((double)(tr->Sc[(size_t)i * B + j] - mx)) / z;
            tr->dS[(size_t)i * B + j] += (float)((p - (i == j)) / (2.0 * B));
        }
        loss += -((double)(tr->Sc[(size_t)j * B + j] - mx) - log(z));
    }
    tr->loss_part[k] += loss;
}

/* gE for texts, then the gradient through the normalization into gE (in place). */
static void ph_grad_e(void *ctx, unsigned k, unsigned T)
{
    trainer *tr = ctx;
    uint32_t d = tr->dim, B = tr->B;
    float it = (float)(1.0 / tr->o->temperature);
    for (uint32_t t = k; t < 2 * B; t += T) {
        float *g = tr->gE + (size_t)t * d;
        memset(g, 0, sizeof(float) * d);
        if (t < B) {
            for (uint32_t jx = 0; jx < B; jx++) {
                axpy(g, tr->dS[(size_t)t * B + jx] * it, tr->E + (size_t)(B + jx) * d, d);
            }
        } else {
            uint32_t col = t - B;
            for (uint32_t i = 0; i < B; i++) {
                axpy(g, tr->dS[(size_t)i * B + col] * it, tr->E + (size_t)i * d, d);
            }
        }
        const float *e = tr->E + (size_t)t * d;
        float dot = dot8(g, e, d);
        float inv = tr->inv[t];
        for (uint32_t j = 0; j < d; j++)
            g[j] = (g[j] - dot * e[j]) * inv;
    }
}

/* Scatter into the rows this thread owns, then Adam on them. */
static void ph_update(void *ctx, unsigned k, unsigned T)
{
    trainer *tr = ctx;
    uint32_t d = tr->dim, n = 2 * tr->B;
    uint32_t mark = (uint32_t)tr->step + 1;
    tr->touched[k].len = 0;
    for (uint32_t t = 0; t < n; t++) {
        if (tr->inv[t] == 0.0f)
            continue;
        const float *g = tr->gE + (size_t)t * d;
        uint64_t a, b;
        text_range(tr, t, &a, &b);
        for (uint64_t f = a; f < b; f++) {
            uint32_t r = tr->c->row[f];
            if (r % T != k || dropped(tr, f))
                continue;
            if (tr->touched_at[r] != mark) {
                tr->touched_at[r] = mark;
                lp_vec_push(&tr->touched[k], r);
                memset(tr->G + (size_t)r * d, 0, sizeof(float) * d);
                if (r < tr->vocab)
                    tr->WG[r] = 0.0f;
            }
            axpy(tr->G + (size_t)r * d, feat_w(tr, f), g, d);
            if (r < tr->vocab) /* d loss / d w_r = g . V_r (V before this step's update) */
                tr->WG[r] += dot8(g, tr->V + (size_t)r * d, d);
        }
    }
    const float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
    double t1 = (double)tr->step + 1;
    float c1 = (float)(1.0 / (1.0 - pow(b1, t1))), c2 = (float)(1.0 / (1.0 - pow(b2, t1)));
    float lr = tr->lr;
    float decay = (float)tr->o->anchor; /* decoupled decay toward the initial row */
    float *init = decay > 0 ? lp_xmalloc(sizeof(float) * d) : NULL;
    for (size_t i = 0; i < tr->touched[k].len; i++) {
        size_t base = (size_t)tr->touched[k].items[i] * d;
        float *V = tr->V + base, *M = tr->M + base, *S2 = tr->S2 + base, *G = tr->G + base;
        if (init) {
            init_row(tr, tr->touched[k].items[i], init);
            for (uint32_t j = 0; j < d; j++)
                V[j] -= lr * decay * (V[j] - init[j]);
        }
        for (uint32_t j = 0; j < d; j++) {
            float g = G[j];
            M[j] = b1 * M[j] + (1 - b1) * g;
            S2[j] = b2 * S2[j] + (1 - b2) * g * g;
            V[j] -= lr * (M[j] * c1) / (sqrtf(S2[j] * c2) + eps);
        }
        uint32_t r = tr->touched[k].items[i];
        if (r < tr->vocab && tr->o->learn_weights) {
            float g = tr->WG[r];
            tr->WM[r] = b1 * tr->WM[r] + (1 - b1) * g;
            tr->WS[r] = b2 * tr->WS[r] + (1 - b2) * g * g;
            float w = tr->W[r] - lr * (tr->WM[r] * c1) / (sqrtf(tr->WS[r] * c2) + eps);
            tr->W[r] = w < 0.0f ? 0.0f : w;
        }
    }
    free(init);
}

/* Batches: a seeded shuffle, grouped by language, cut into batches, batch order shuffled. */
static size_t make_batches(const corpus *c, uint32_t B, uint64_t *rng, uint32_t **order_out,
                           uint64_t **starts_out)
{
    size_t n = c->npairs;
    uint32_t *perm = lp_xmalloc(sizeof(uint32_t) * (n ? n : 1));
    for (size_t i = 0; i < n; i++)
        perm[i] = (uint32_t)i;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(splitmix(rng) % i);
        uint32_t tmp = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = tmp;
    }
    uint32_t *order = lp_xmalloc(sizeof(uint32_t) * (n ? n : 1));
    LP_VEC(uint64_t) starts = {0};
    size_t o = 0;
    for (int lang = 0; lang < LP_LANG_COUNT; lang++) {
        size_t begin = o;
        for (size_t i = 0; i < n; i++)
            if (c->lang[perm[i]] == lang)
                order[o++] = perm[i];
        for (size_t s = begin; s < o; s += B) {
            /* A short tail batch is merged into the previous one of its language. */
            if (o - s < B / 4 && s > begin)
                break;
            lp_vec_push(&starts, (uint64_t)s);
        }
    }
    lp_vec_push(&starts, (uint64_t)o);
    size_t nb = starts.len - 1;
    /* Shuffle the batch order: a permutation of batch ids. */
    uint64_t *bs = lp_xmalloc(sizeof(uint64_t) * 2 * (nb ? nb : 1));
    for (size_t i = 0; i < nb; i++) {
        bs[2 * i] = starts.items[i];
        bs[2 * i + 1] = starts.items[i + 1];
    }
    for (size_t i = nb; i > 1; i--) {
        size_t j = (size_t)(splitmix(rng) % i);
        uint64_t a = bs[2 * (i - 1)], b = bs[2 * (i - 1) + 1];
        bs[2 * (i - 1)] = bs[2 * j];
        bs[2 * (i - 1) + 1] = bs[2 * j + 1];
        bs[2 * j] = a;
        bs[2 * j + 1] = b;
    }
    free(perm);
    lp_vec_free(&starts);
    *order_out = order;
    *starts_out = bs;
    return nb;
}

lp_status lp_train_run(const lp_pairs *pairs, const lp_train_opts *o, lp_buf *model_out,
                       lp_train_stats *st, lp_error *err)
{
    memset(st, 0, sizeof *st);
    uint64_t t0 = lp_now_ns();
    lp_train_opts from_init;
    if (o->init) {
        /* The starting model fixes the shape. */
        const lp_embed_header *ih = lp_embed_model_header_(o->init);
        from_init = *o;
        from_init.dim = ih->dim;
        from_init.buckets = ih->buckets;
        from_init.ngram_min = ih->ngram_min;
        from_init.ngram_max = ih->ngram_max;
        from_init.tok_options = ih->tok_options;
        o = &from_init;
    }
    if (o->dim < LP_EMBED_DIM_MIN || o->dim > LP_EMBED_DIM_MAX || o->batch < 2 || o->batch > 4096)
        return lp_error_set(err, LP_EINVAL, "dim must be %d..%d and batch 2..4096",
                            LP_EMBED_DIM_MIN, LP_EMBED_DIM_MAX);
    LP_VEC(size_t) idx = {0};
    for (size_t i = 0; i < pairs->items.len; i++) {
        const lp_pair *x = &pairs->items.items[i];
        if (x->heldout) {
            st->heldout_pairs++;
            continue;
        }
        lp_vec_push(&idx, i);
        st->per_lang_train[x->lang]++;
    }
    st->train_pairs = idx.len;
    if (idx.len < 2) {
        lp_vec_free(&idx);
        return lp_error_set(err, LP_EINVAL, "only %zu training pairs; extraction found too little",
                            idx.len);
    }
    vocab v;
    vocab_build(pairs, o, &v);
    st->vocab = v.n;
    lp_status rc = LP_OK;
    if (v.n == 0) {
        rc = lp_error_set(err, LP_EINVAL, "empty vocabulary: lower min_count");
        vocab_free(&v);
        lp_vec_free(&idx);
        return rc;
    }
    double oov_p = 1.0 / (double)(v.total ? v.total : 1);
    lp_embed_featurizer fz = {.lookup = vocab_lookup,
                              .weight = vocab_weight,
                              .ctx = &v,
                              .vocab = v.n,
                              .buckets = o->buckets,
                              .ngram_min = o->ngram_min,
                              .ngram_max = o->ngram_max,
                              .oov_weight = o->init ? lp_embed_model_header_(o->init)->oov_weight
                                                    : (float)(o->sif_a / (o->sif_a + oov_p))};
    corpus c;
    corpus_build(pairs, idx.items, idx.len, &fz, o, &c);

    trainer tr;
    memset(&tr, 0, sizeof tr);
    tr.o = o;
    tr.c = &c;
    tr.dim = o->dim;
    tr.rows = v.n + o->buckets;
    tr.T = o->threads ? LP_MIN(o->threads, 16u) : 1;
    size_t cells = lp_mul_size(tr.rows, tr.dim);
    tr.V = lp_xmalloc(cells * sizeof(float));
    tr.M = lp_xcalloc(cells, sizeof(float));
    tr.S2 = lp_xcalloc(cells, sizeof(float));
    tr.G = lp_xmalloc(cells * sizeof(float));
    tr.touched_at = lp_xcalloc(tr.rows, sizeof(uint32_t));
    tr.vocab = v.n;
    tr.drop_threshold = (uint32_t)(o->dropout * 4294967295.0);
    tr.W = lp_xmalloc(sizeof(float) * v.n);
    memcpy(tr.W, v.weights, sizeof(float) * v.n);
    tr.WM = lp_xcalloc(v.n, sizeof(float));
    tr.WS = lp_xcalloc(v.n, sizeof(float));
    tr.WG = lp_xcalloc(v.n, sizeof(float));
    uint64_t rng = o->seed;
    for (uint32_t row = 0; row < tr.rows; row++)
        init_row(&tr, row, tr.V + (size_t)row * tr.dim);
    uint32_t Bmax = o->batch + o->batch / 4 + 1;
    tr.E = lp_xmalloc(sizeof(float) * 2 * Bmax * tr.dim);
    tr.gE = lp_xmalloc(sizeof(float) * 2 * Bmax * tr.dim);
    tr.inv = lp_xmalloc(sizeof(float) * 2 * Bmax);
    tr.Sc = lp_xmalloc(sizeof(float) * Bmax * Bmax);
    tr.dS = lp_xmalloc(sizeof(float) * Bmax * Bmax);
    tr.loss_part = lp_xcalloc(16, sizeof(double));

    uint64_t total_steps = 0;
    {
        uint64_t probe = o->seed ^ 0x5bd1e995u;
        uint32_t *ord;
        uint64_t *bs;
        total_steps = make_batches(&c, o->batch, &probe, &ord, &bs) * (uint64_t)o->epochs;
        free(ord);
        free(bs);
    }
    double last_loss = 0;
    for (uint32_t ep = 0; ep < o->epochs; ep++) {
        uint32_t *order;
        uint64_t *bs;
        size_t nb = make_batches(&c, o->batch, &rng, &order, &bs);
        double ep_loss = 0;
        uint64_t ep_n = 0;
        for (size_t b = 0; b < nb; b++) {
            tr.batch = order + bs[2 * b];
            tr.B = (uint32_t)LP_MIN(bs[2 * b + 1] - bs[2 * b], (uint64_t)Bmax);
            if (tr.B < 2)
                continue;
            double frac = total_steps ? (double)tr.step / (double)total_steps : 0;
            tr.lr = (float)(o->lr * (1.0 - 0.9 * frac));
            par_run(tr.T, ph_forward, &tr);
            par_run(tr.T, ph_scores, &tr);
            par_run(tr.T, ph_softmax_rows, &tr);
            double l = 0;
            for (unsigned k = 0; k < tr.T; k++)
                l += tr.loss_part[k];
            par_run(tr.T, ph_softmax_cols, &tr);
            double l2 = 0;
            for (unsigned k = 0; k < tr.T; k++)
                l2 += tr.loss_part[k];
            (void)l;
            ep_loss += l2 / 2.0; /* both directions, averaged */
            ep_n += tr.B;
            par_run(tr.T, ph_grad_e, &tr);
            par_run(tr.T, ph_update, &tr);
            tr.step++;
        }
        last_loss = ep_n ? ep_loss / (double)ep_n : 0;
        if (!o->quiet)
            fprintf(stderr, "train: epoch %u/%u loss %.4f steps %llu (%.0fs)\n", ep + 1, o->epochs,
                    last_loss, (unsigned long long)tr.step, (double)(lp_now_ns() - t0) / 1e9);
        free(order);
        free(bs);
    }
    st->final_loss = last_loss;

    const char **toks = lp_xmalloc(sizeof(char *) * v.n);
    for (uint32_t i = 0; i < v.n; i++)
        toks[i] = v.map.toks.items[i].text;
    lp_embed_model_spec spec = {.dim = o->dim,
                                .vocab = v.n,
                                .buckets = o->buckets,
                                .ngram_min = o->ngram_min,
                                .ngram_max = o->ngram_max,
                                .tok_options = o->tok_options,
                                .oov_weight = fz.oov_weight,
                                .tokens = toks,
                                .weights = tr.W,
                                .rows = tr.V};
    rc = lp_embed_model_serialize(&spec, model_out, err);
    free(toks);
    for (unsigned k = 0; k < 16; k++)
        lp_vec_free(&tr.touched[k]);
    free(tr.V);
    free(tr.M);
    free(tr.S2);
    free(tr.G);
    free(tr.touched_at);
    free(tr.W);
    free(tr.WM);
    free(tr.WS);
    free(tr.WG);
    free(tr.E);
    free(tr.gE);
    free(tr.inv);
    free(tr.Sc);
    free(tr.dS);
    free(tr.loss_part);
    corpus_free(&c);
    vocab_free(&v);
    lp_vec_free(&idx);
    st->seconds = (double)(lp_now_ns() - t0) / 1e9;
    return rc;
}

/* ------------------------------------------------------------------------------------------
 * The vocabulary for the teacher distillation. */
typedef struct surface_ctx {
    const vocab *v;
    vmap *surf; /* key: 4-byte row, then the spelling */
    lp_str input;
    char key[4 + LP_TEXT_TOKEN_MAX * 4];
} surface_ctx;

static int count_surface(void *vctx, const lp_text_token *tok)
{
    surface_ctx *c = vctx;
    size_t slot;
    uint32_t row = vmap_find(&c->v->map, tok->text, tok->len,
                             lp_embed_token_hash(tok->text, tok->len), &slot);
    if (row == UINT32_MAX || tok->end <= tok->start || tok->end > c->input.len)
        return 0;
    size_t n = LP_MIN(tok->end - tok->start, sizeof c->key - 4);
    memcpy(c->key, &row, 4);
    for (size_t i = 0; i < n; i++) {
        char ch = c->input.ptr[tok->start + i];
        c->key[4 + i] = ch == '\t' || ch == '\n' || ch == '\r' ? ' ' : ch;
    }
    vmap_add(c->surf, c->key, 4 + n, 1);
    return 0;
}

typedef struct extra_ctx {
    vocab *v;
    vmap *added; /* tokens added, with their spelling */
    LP_VEC(char *) spell;
    lp_str word;
    uint64_t count;
    uint32_t max;
} extra_ctx;

static int add_extra(void *vctx, const lp_text_token *tok)
{
    extra_ctx *c = vctx;
    size_t slot;
    if (c->added->toks.len >= c->max ||
        vmap_find(&c->v->map, tok->text, tok->len, lp_embed_token_hash(tok->text, tok->len),
                  &slot) != UINT32_MAX ||
        (c->added->cap && vmap_find(c->added, tok->text, tok->len,
                                    lp_embed_token_hash(tok->text, tok->len), &slot) != UINT32_MAX))
        return 0;
    if (tok->flags & (LP_TEXT_TOK_NUMBER | LP_TEXT_TOK_CJK))
        return 0;
    vmap_add(c->added, tok->text, tok->len, c->count);
    lp_vec_push(&c->spell, lp_arena_strndup(&c->added->arena, c->word.ptr, c->word.len));
    return 0;
}

lp_status lp_train_vocab_dump(const lp_pairs *pairs, const lp_train_opts *o, const char *path,
                              lp_error *err)
{
    return lp_train_vocab_dump_extra(pairs, o, NULL, 0, path, err);
}

lp_status lp_train_vocab_dump_extra(const lp_pairs *pairs, const lp_train_opts *o,
                                    const char *words_path, uint32_t max_extra, const char *path,
                                    lp_error *err)
{
    vocab v;
    vocab_build(pairs, o, &v);
    vmap surf;
    memset(&surf, 0, sizeof surf);
    lp_arena_init(&surf.arena, 1 << 20);
    surface_ctx c = {.v = &v, .surf = &surf};
    lp_text_tokenizer *tk = lp_text_tokenizer_new(o->tok_options);
    for (size_t i = 0; i < pairs->items.len; i++) {
        const lp_pair *x = &pairs->items.items[i];
        if (x->heldout)
            continue;
        c.input = lp_str_n(x->desc, x->desc_len);
        lp_text_tokenize(tk, c.input, count_surface, &c);
        c.input = lp_str_n(x->code, LP_MIN(x->code_len, (uint32_t)LP_EMBED_TEXT_MAX));
        lp_text_tokenize(tk, c.input, count_surface, &c);
    }
    lp_text_tokenizer_free(tk);
    /* The most frequent spelling per row (ties: the smaller bytes, so the file is stable). */
    uint32_t *best = lp_xmalloc(sizeof(uint32_t) * (v.n ? v.n : 1));
    for (uint32_t r = 0; r < v.n; r++)
        best[r] = UINT32_MAX;
    for (size_t i = 0; i < surf.toks.len; i++) {
        const vtok *s = &surf.toks.items[i];
        uint32_t row;
        memcpy(&row, s->text, 4);
        uint32_t b = best[row];
        if (b == UINT32_MAX) {
            best[row] = (uint32_t)i;
            continue;
        }
        const vtok *o2 = &surf.toks.items[b];
        if (vtok_cmp(s, o2) < 0) /* more frequent first, then the smaller bytes */
            best[row] = (uint32_t)i;
    }
    lp_buf out;
    lp_buf_init(&out, 0);
    lp_buf_printf(&out, "#total\t%llu\n", (unsigned long long)v.total);
    for (uint32_t r = 0; r < v.n; r++) {
        const vtok *t = &v.map.toks.items[r];
        lp_buf_append(&out, t->text, t->len);
        lp_buf_printf(&out, "\t%llu\t", (unsigned long long)t->count);
        if (best[r] != UINT32_MAX) {
            const vtok *s = &surf.toks.items[best[r]];
            lp_buf_append(&out, s->text + 4, s->len - 4);
        } else {
            lp_buf_append(&out, t->text, t->len);
        }
        lp_buf_putc(&out, '\n');
    }
    lp_status rc = LP_OK;
    if (words_path) {
        lp_buf wb;
        lp_buf_init(&wb, 0);
        vmap added;
        memset(&added, 0, sizeof added);
        lp_arena_init(&added.arena, 1 << 16);
        extra_ctx ec = {.v = &v, .added = &added, .max = max_extra};
        rc = lp_read_file(words_path, (size_t)64 << 20, &wb, err);
        lp_text_tokenizer *etk = lp_text_tokenizer_new(o->tok_options);
        lp_str all = lp_buf_str(&wb);
        uint64_t rank = 0;
        for (size_t pos = 0; !rc && pos < all.len;) {
            size_t nl = lp_str_find_char(all, '\n', pos);
            if (nl == SIZE_MAX)
                nl = all.len;
            ec.word = lp_str_trim(lp_str_sub(all, pos, nl));
            pos = nl + 1;
            if (!ec.word.len || memchr(ec.word.ptr, '\t', ec.word.len))
                continue;
            rank++;
            ec.count = (uint64_t)((double)v.total * 0.1 / (double)rank);
            if (ec.count < 1)
                ec.count = 1;
            lp_text_tokenize(etk, ec.word, add_extra, &ec);
        }
        lp_text_tokenizer_free(etk);
        for (size_t i = 0; i < added.toks.len; i++) {
            const vtok *t = &added.toks.items[i];
            lp_buf_append(&out, t->text, t->len);
            lp_buf_printf(&out, "\t%llu\t%s\n", (unsigned long long)t->count, ec.spell.items[i]);
        }
        lp_vec_free(&ec.spell);
        free(added.slots);
        lp_vec_free(&added.toks);
        lp_arena_release(&added.arena);
        lp_buf_release(&wb);
    }
    if (!rc && out.err)
        rc = lp_error_set(err, LP_ETOOBIG, "the vocabulary file would be too large");
    if (!rc)
        rc = lp_write_file_atomic(path, out.ptr, out.len, err);
    lp_buf_release(&out);
    free(best);
    free(surf.slots);
    lp_vec_free(&surf.toks);
    lp_arena_release(&surf.arena);
    vocab_free(&v);
    return rc;
}
