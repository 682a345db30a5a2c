/*
 * embed_bench.c: throughput and latency of the dense channel (never part of make test).
 *
 *   build/embed-bench [--model FILE] [--rows N] [--reps R] SOURCE_FILE...
 *
 * 1. Index-time embedding: the source files are cut into 40-line chunks and embedded on one
 *    thread; the baseline in the same run is tokenization alone (lp_text_tokenize with the
 *    model's options), which is the floor any text-based channel pays.
 * 2. Query embedding latency: every chunk's first line used as a query (median, p99).
 * 3. Exact dense scan of N vectors (default 200,000, dim of the model) for the top 50, per
 *    SIMD level; the portable C loop is the baseline.
 * Each figure is the median of R repetitions. Output: a markdown table on stdout.
 */
#include "embed/embed_int.h"

#include <math.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n ? v[n / 2] : 0;
}

static int count_tok(void *ctx, const lp_text_token *t)
{
    (void)t;
    (*(size_t *)ctx)++;
    return 0;
}

int main(int argc, char **argv)
{
    const char *model_path = NULL;
    size_t rows = 200000, reps = 5;
    int first = 1;
    for (; first < argc && argv[first][0] == '-'; first += 2) {
        if (first + 1 >= argc)
            break;
        if (!strcmp(argv[first], "--model"))
            model_path = argv[first + 1];
        else if (!strcmp(argv[first], "--rows"))
            rows = (size_t)strtoull(argv[first + 1], NULL, 10);
        else if (!strcmp(argv[first], "--reps"))
            reps = (size_t)strtoull(argv[first + 1], NULL, 10);
    }
    lp_error err = {0};
    lp_embed_model *owned = NULL;
    const lp_embed_model *m = NULL;
    uint64_t tl = lp_now_ns();
    lp_status lrc =
        model_path ? lp_embed_model_load(model_path, &owned, &err) : lp_embed_default(&m, &err);
    double load_ms = (double)(lp_now_ns() - tl) / 1e6;
    if (lrc) {
        fprintf(stderr, "embed-bench: %s\n", err.msg);
        return 1;
    }
    if (owned)
        m = owned;
    lp_embed_info info;
    lp_embed_model_info(m, &info);

    /* Chunks of 40 lines. */
    LP_VEC(lp_str) chunks = {0};
    LP_VEC(char *) files = {0};
    size_t bytes = 0;
    for (int i = first; i < argc; i++) {
        lp_buf b;
        lp_buf_init(&b, 0);
        if (lp_read_file(argv[i], 8u << 20, &b, &err)) {
            lp_buf_release(&b);
            continue;
        }
        size_t len;
        char *p = lp_buf_detach(&b, &len);
        lp_vec_push(&files, p);
        size_t start = 0, lines = 0;
        for (size_t j = 0; j < len; j++) {
            if (p[j] == '\n' && ++lines == 40) {
                lp_vec_push(&chunks, lp_str_n(p + start, j + 1 - start));
                bytes += j + 1 - start;
                start = j + 1;
                lines = 0;
            }
        }
        if (start < len) {
            lp_vec_push(&chunks, lp_str_n(p + start, len - start));
            bytes += len - start;
        }
    }
    if (!chunks.len) {
        fprintf(stderr, "embed-bench: give source files to cut into chunks\n");
        return 2;
    }
    uint32_t dim = info.dim;
    size_t stride = LP_EMBED_VEC_BYTES(dim);
    uint8_t *out = lp_xmalloc(stride);
    lp_embedder *e = lp_embedder_new(m);
    lp_text_tokenizer *tk = lp_text_tokenizer_new(info.tok_options);
    double *t_tok = lp_xcalloc(reps, sizeof(double)), *t_emb = lp_xcalloc(reps, sizeof(double));
    size_t ntok = 0;
    for (size_t r = 0; r < reps; r++) {
        uint64_t t0 = lp_now_ns();
        for (size_t i = 0; i < chunks.len; i++)
            lp_text_tokenize(tk, chunks.items[i], count_tok, &ntok);
        t_tok[r] = (double)(lp_now_ns() - t0) / 1e9;
        t0 = lp_now_ns();
        for (size_t i = 0; i < chunks.len; i++)
            lp_embed_text_q(e, chunks.items[i], out);
        t_emb[r] = (double)(lp_now_ns() - t0) / 1e9;
    }
    double tok_s = median(t_tok, reps), emb_s = median(t_emb, reps);

    /* Query latency: the first line of each chunk (trimmed to 120 bytes). */
    size_t nq = LP_MIN(chunks.len, (size_t)2000);
    double *lat = lp_xcalloc(nq, sizeof(double));
    for (size_t i = 0; i < nq; i++) {
        lp_str c = chunks.items[i];
        size_t nl = lp_str_find_char(c, '\n', 0);
        lp_str q = lp_str_sub(c, 0, LP_MIN(nl == SIZE_MAX ? c.len : nl, (size_t)120));
        uint64_t t0 = lp_now_ns();
        lp_embed_text_q(e, q, out);
        lat[i] = (double)(lp_now_ns() - t0) / 1e3;
    }
    qsort(lat, nq, sizeof *lat, cmp_double);
    double q50 = lat[nq / 2], q99 = lat[(nq * 99) / 100];

    /* Scan. */
    int8_t *mat = lp_xmalloc(rows * dim);
    float *scales = lp_xmalloc(rows * sizeof(float));
    uint64_t s = 1;
    for (size_t i = 0; i < rows * dim; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        mat[i] = (int8_t)((int)((s >> 33) % 255) - 127);
    }
    for (size_t i = 0; i < rows; i++)
        scales[i] = 0.001f;
    lp_embed_hit hits[50];
    double scan_ms[3] = {0, 0, 0};
    double *t = lp_xcalloc(reps, sizeof(double));
    lp_embed_text_q(e, LP_STR("open a network connection and retry on failure"), out);
    for (int lv = 0; lv < 3; lv++) {
        for (size_t r = 0; r < reps; r++) {
            uint64_t t0 = lp_now_ns();
            lp_embed_search_level((lp_simd_level)lv, (const int8_t *)out,
                                  lp_embed_vec_scale(out, dim), mat, scales, rows, dim, 50, hits);
            t[r] = (double)(lp_now_ns() - t0) / 1e6;
        }
        scan_ms[lv] = median(t, reps);
    }

    printf("| measure | value | baseline (same run) | ratio |\n|---|---|---|---|\n");
    printf("| model | %s, dim %u, vocab %u, buckets %u, %zu bytes | | |\n", info.identity, dim,
           info.vocab, info.buckets, info.file_bytes);
    printf("| index-time embedding, 1 thread | %.0f chunks/s (%.1f MB/s; %zu chunks of 40 lines, "
           "%.0f bytes avg) | tokenize only: %.0f chunks/s | %.2fx the tokenizer's time |\n",
           (double)chunks.len / emb_s, (double)bytes / emb_s / 1e6, chunks.len,
           (double)bytes / (double)chunks.len, (double)chunks.len / tok_s, emb_s / tok_s);
    printf("| model load + verification (once per process; XXH3-128 of the payload) | %.1f ms | "
           "| |\n",
           load_ms);
    printf("| query embedding latency | median %.1f us, p99 %.1f us (%zu queries) | | |\n", q50,
           q99, nq);
    for (int lv = 2; lv >= 0; lv--)
        printf("| exact top-50 scan, %zu x %u int8, %s | %.2f ms | portable: %.2f ms | %.1fx |\n",
               rows, dim, lp_embed_simd_name((lp_simd_level)lv), scan_ms[lv], scan_ms[0],
               scan_ms[0] / scan_ms[lv]);
    lp_embedder_free(e);
    lp_text_tokenizer_free(tk);
    lp_embed_model_free(owned);
    for (size_t i = 0; i < files.len; i++)
        free(files.items[i]);
    lp_vec_free(&files);
    lp_vec_free(&chunks);
    free(out);
    free(t_tok);
    free(t_emb);
    free(lat);
    free(mat);
    free(scales);
    free(t);
    return 0;
}
