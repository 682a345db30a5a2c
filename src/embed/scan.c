/*
 * scan.c: exact top-K dense search over int8 vectors, with the SIMD level chosen at run time.
 *
 * Every level computes the same exact int32 dot product (int8 widened to int16, pairwise
 * multiply-add into int32: no saturation), and the score and the top-K selection are shared
 * code, so all levels return bit-identical results. The selection keeps a min-heap of the k
 * best (score desc, index asc) and sorts it at the end.
 */
#include "embed/embed.h"
#include "core/settings.h"

#include <pthread.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LP_X86 1
#else
#define LP_X86 0
#endif

/* ------------------------------------------------------------------------------------------
 * Dot products. */

static inline int32_t dot_portable(const int8_t *a, const int8_t *b, uint32_t dim)
{
    int32_t s = 0;
    for (uint32_t j = 0; j < dim; j++)
        s += (int32_t)a[j] * (int32_t)b[j];
    return s;
}

#if LP_X86
__attribute__((target("sse4.1"))) static inline int32_t dot_sse41(const int8_t *a, const int8_t *b,
                                                                  uint32_t dim)
{
    __m128i acc = _mm_setzero_si128();
    uint32_t j = 0;
    for (; j + 16 <= dim; j += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(a + j));
        __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(b + j));
        __m128i xl = _mm_cvtepi8_epi16(x), yl = _mm_cvtepi8_epi16(y);
        __m128i xh = _mm_cvtepi8_epi16(_mm_srli_si128(x, 8));
        __m128i yh = _mm_cvtepi8_epi16(_mm_srli_si128(y, 8));
        acc = _mm_add_epi32(acc, _mm_madd_epi16(xl, yl));
        acc = _mm_add_epi32(acc, _mm_madd_epi16(xh, yh));
    }
    acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, _MM_SHUFFLE(1, 0, 3, 2)));
    acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, _MM_SHUFFLE(2, 3, 0, 1)));
    int32_t s = _mm_cvtsi128_si32(acc);
    for (; j < dim; j++)
        s += (int32_t)a[j] * (int32_t)b[j];
    return s;
}

__attribute__((target("avx2"))) static inline int32_t dot_avx2(const int8_t *a, const int8_t *b,
                                                               uint32_t dim)
{
    __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
    uint32_t j = 0;
    for (; j + 32 <= dim; j += 32) {
        __m256i x0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(a + j)));
        __m256i y0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(b + j)));
        __m256i x1 =
            _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(a + j + 16)));
        __m256i y1 =
            _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(b + j + 16)));
        acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(x0, y0));
        acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(x1, y1));
    }
    __m256i acc = _mm256_add_epi32(acc0, acc1);
    __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, _MM_SHUFFLE(1, 0, 3, 2)));
    s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, _MM_SHUFFLE(2, 3, 0, 1)));
    int32_t s = _mm_cvtsi128_si32(s4);
    for (; j < dim; j++)
        s += (int32_t)a[j] * (int32_t)b[j];
    return s;
}
#endif

/* ------------------------------------------------------------------------------------------
 * Level selection. */

static pthread_once_t level_once = PTHREAD_ONCE_INIT;
static lp_simd_level cpu_level = LP_SIMD_PORTABLE;

static void detect_level(void)
{
    lp_simd_level l = LP_SIMD_PORTABLE;
#if LP_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        l = LP_SIMD_AVX2;
    else if (__builtin_cpu_supports("sse4.1"))
        l = LP_SIMD_SSE41;
#endif
    const char *cap = lp_setting_str(LP_SET_SIMD);
    if (cap) {
        lp_simd_level c = !strcmp(cap, "portable") ? LP_SIMD_PORTABLE
                          : !strcmp(cap, "sse41")  ? LP_SIMD_SSE41
                                                   : LP_SIMD_AVX2;
        if (c < l)
            l = c;
    }
    cpu_level = l;
}

/* The level the CPU really has (LOUPE_SIMD applied). */
lp_simd_level lp_embed_simd_best(void)
{
    pthread_once(&level_once, detect_level);
    return cpu_level;
}

const char *lp_embed_simd_name(lp_simd_level l)
{
    return l == LP_SIMD_AVX2 ? "avx2" : l == LP_SIMD_SSE41 ? "sse41" : "portable";
}

/* Hardware support only (not capped by LOUPE_SIMD), for explicit levels. */
static lp_simd_level hw_clamp(lp_simd_level want)
{
#if LP_X86
    __builtin_cpu_init();
    if (want >= LP_SIMD_AVX2 && __builtin_cpu_supports("avx2"))
        return LP_SIMD_AVX2;
    if (want >= LP_SIMD_SSE41 && __builtin_cpu_supports("sse4.1"))
        return LP_SIMD_SSE41;
#else
    (void)want;
#endif
    return LP_SIMD_PORTABLE;
}

int32_t lp_embed_dot_i8(lp_simd_level level, const int8_t *a, const int8_t *b, uint32_t dim)
{
#if LP_X86
    switch (hw_clamp(level)) {
    case LP_SIMD_AVX2:
        return dot_avx2(a, b, dim);
    case LP_SIMD_SSE41:
        return dot_sse41(a, b, dim);
    default:
        break;
    }
#else
    (void)level;
#endif
    return dot_portable(a, b, dim);
}

/* ------------------------------------------------------------------------------------------
 * Top-K selection (shared by every level). */

/* a ranks below b: lower score, or an equal score and a higher index. */
static inline bool worse(const lp_embed_hit *a, const lp_embed_hit *b)
{
    return a->score < b->score || (a->score == b->score && a->index > b->index);
}

typedef struct heap {
    lp_embed_hit *h; /* min-heap by "worse": h[0] is the worst kept hit */
    size_t len, cap;
} heap;

static void heap_offer(heap *hp, lp_embed_hit x)
{
    lp_embed_hit *h = hp->h;
    if (hp->len < hp->cap) {
        size_t i = hp->len++;
        while (i > 0) {
            size_t p = (i - 1) / 2;
            if (!worse(&x, &h[p]))
                break;
            h[i] = h[p];
            i = p;
        }
        h[i] = x;
        return;
    }
    if (!worse(&h[0], &x))
        return;
    size_t i = 0, n = hp->len;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const lp_embed_hit *mv = &x;
        if (l < n && worse(&h[l], mv)) {
            m = l;
            mv = &h[l];
        }
        if (r < n && worse(&h[r], mv))
            m = r;
        if (m == i)
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = x;
}

static int hit_cmp(const void *pa, const void *pb)
{
    const lp_embed_hit *a = pa, *b = pb;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static inline float score_of(int32_t dot, float qscale, float rscale)
{
    return (float)dot * qscale * rscale;
}

#define SCAN_BODY(DOT)                                                                             \
    for (size_t i = 0; i < n; i++) {                                                               \
        if (scales[i] == 0.0f)                                                                     \
            continue;                                                                              \
        lp_embed_hit x = {(uint32_t)i,                                                             \
                          score_of(DOT(query, matrix + i * dim, dim), qscale, scales[i])};         \
        if (hp->len < hp->cap || worse(&hp->h[0], &x))                                             \
            heap_offer(hp, x);                                                                     \
    }

static void scan_portable(heap *hp, const int8_t *query, float qscale, const int8_t *matrix,
                          const float *scales, size_t n, uint32_t dim)
{
    SCAN_BODY(dot_portable)
}

#if LP_X86
__attribute__((target("sse4.1"))) static void scan_sse41(heap *hp, const int8_t *query,
                                                         float qscale, const int8_t *matrix,
                                                         const float *scales, size_t n,
                                                         uint32_t dim)
{
    SCAN_BODY(dot_sse41)
}

__attribute__((target("avx2"))) static void scan_avx2(heap *hp, const int8_t *query, float qscale,
                                                      const int8_t *matrix, const float *scales,
                                                      size_t n, uint32_t dim){SCAN_BODY(dot_avx2)}
#endif

size_t lp_embed_search_level(lp_simd_level level, const int8_t *query, float qscale,
                             const int8_t *matrix, const float *scales, size_t n, uint32_t dim,
                             size_t k, lp_embed_hit *out)
{
    if (k == 0 || n == 0 || qscale == 0.0f)
        return 0;
    heap hp = {out, 0, k};
#if LP_X86
    switch (hw_clamp(level)) {
    case LP_SIMD_AVX2:
        scan_avx2(&hp, query, qscale, matrix, scales, n, dim);
        break;
    case LP_SIMD_SSE41:
        scan_sse41(&hp, query, qscale, matrix, scales, n, dim);
        break;
    default:
        scan_portable(&hp, query, qscale, matrix, scales, n, dim);
        break;
    }
#else
    (void)level;
    scan_portable(&hp, query, qscale, matrix, scales, n, dim);
#endif
    qsort(out, hp.len, sizeof *out, hit_cmp);
    return hp.len;
}

size_t lp_embed_search(const int8_t *query, float qscale, const int8_t *matrix, const float *scales,
                       size_t n, uint32_t dim, size_t k, lp_embed_hit *out)
{
    return lp_embed_search_level(lp_embed_simd_best(), query, qscale, matrix, scales, n, dim, k,
                                 out);
}

/* ------------------------------------------------------------------------------------------
 * Every row's score. */

#define SCORES_BODY(DOT)                                                                           \
    for (size_t i = 0; i < n; i++)                                                                 \
        out[i] = scales[i] == 0.0f ? 0.0f                                                          \
                                   : score_of(DOT(query, matrix + i * dim, dim), qscale, scales[i]);

static void scores_portable(const int8_t *query, float qscale, const int8_t *matrix,
                            const float *scales, size_t n, uint32_t dim, float *out)
{
    SCORES_BODY(dot_portable)
}

#if LP_X86
__attribute__((target("sse4.1"))) static void scores_sse41(const int8_t *query, float qscale,
                                                           const int8_t *matrix,
                                                           const float *scales, size_t n,
                                                           uint32_t dim, float *out)
{
    SCORES_BODY(dot_sse41)
}

__attribute__((target("avx2"))) static void scores_avx2(const int8_t *query, float qscale,
                                                        const int8_t *matrix, const float *scales,
                                                        size_t n, uint32_t dim, float *out)
{
    SCORES_BODY(dot_avx2)
}
#endif

void lp_embed_scores(const int8_t *query, float qscale, const int8_t *matrix, const float *scales,
                     size_t n, uint32_t dim, float *out)
{
    if (qscale == 0.0f) {
        for (size_t i = 0; i < n; i++)
            out[i] = 0.0f;
        return;
    }
#if LP_X86
    switch (lp_embed_simd_best()) {
    case LP_SIMD_AVX2:
        scores_avx2(query, qscale, matrix, scales, n, dim, out);
        return;
    case LP_SIMD_SSE41:
        scores_sse41(query, qscale, matrix, scales, n, dim, out);
        return;
    default:
        break;
    }
#endif
    scores_portable(query, qscale, matrix, scales, n, dim, out);
}
