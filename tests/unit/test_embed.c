/*
 * test_embed.c: src/embed: model file round trip and refusal of damaged files, SIMD levels
 * agreeing bit for bit, top-K against a brute-force reference, featurization edge cases
 * (empty, huge, invalid UTF-8, unknown words), the built-in model, and stored vectors with
 * the dense channel over a real store.
 */
#include "embed/embed_int.h"
#include "store/store.h"
#include "t.h"

#include <math.h>
#include <unistd.h>

/* A small model: tokens t0..t(n-1) with rows from a seeded generator. */
typedef struct small_model {
    lp_buf bytes;
    float *rows;
    uint32_t dim, vocab, buckets;
} small_model;

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static lp_status small_model_make(small_model *m, const char *const *toks, uint32_t vocab,
                                  uint32_t dim, uint32_t buckets, lp_error *err)
{
    memset(m, 0, sizeof *m);
    lp_buf_init(&m->bytes, 0);
    m->dim = dim;
    m->vocab = vocab;
    m->buckets = buckets;
    m->rows = lp_xmalloc(sizeof(float) * (vocab + buckets) * dim);
    uint64_t s = 42;
    for (size_t i = 0; i < (size_t)(vocab + buckets) * dim; i++)
        m->rows[i] = (float)((double)(rng_next(&s) >> 11) / 9007199254740992.0 - 0.5);
    float *w = lp_xmalloc(sizeof(float) * vocab);
    for (uint32_t i = 0; i < vocab; i++)
        w[i] = 1.0f;
    lp_embed_model_spec sp = {.dim = dim,
                              .vocab = vocab,
                              .buckets = buckets,
                              .ngram_min = 3,
                              .ngram_max = 4,
                              .tok_options = LP_TEXT_CODE,
                              .oov_weight = 1.0f,
                              .tokens = toks,
                              .weights = w,
                              .rows = m->rows};
    lp_status rc = lp_embed_model_serialize(&sp, &m->bytes, err);
    free(w);
    return rc;
}

static void small_model_free(small_model *m)
{
    lp_buf_release(&m->bytes);
    free(m->rows);
}

static const char *const TOKS[] = {"parse", "config", "file", "parse_config", "read", "socket"};

T_TEST(embed_format_roundtrip)
{
    small_model sm;
    lp_error err = {0};
    lp_embed_model *m = NULL;
    lp_embedder *e = NULL;
    lp_buf path;
    lp_buf_init(&path, 0);
    float *v = lp_xcalloc(64, sizeof(float));
    T_CHECK_OK(small_model_make(&sm, TOKS, 6, 64, 32, &err), &err);
    lp_buf_printf(&path, "%s/m.bin", t->tmpdir);
    T_CHECK_OK(lp_write_file_atomic(path.ptr, sm.bytes.ptr, sm.bytes.len, &err), &err);
    T_CHECK_OK(lp_embed_model_load(path.ptr, &m, &err), &err);
    lp_embed_info info;
    lp_embed_model_info(m, &info);
    T_CHECK_INT(info.dim, 64);
    T_CHECK_INT(info.vocab, 6);
    T_CHECK_INT(info.buckets, 32);
    T_CHECK_INT(info.tok_options, LP_TEXT_CODE);
    T_CHECK_INT(info.file_bytes, sm.bytes.len);
    T_CHECK(!strncmp(info.identity, "loupe-static-v1:", 16) && strlen(info.identity) == 32);
    for (uint32_t i = 0; i < 6; i++) {
        T_CHECK_INT(lp_embed_model_lookup(m, TOKS[i], strlen(TOKS[i])), i);
        T_CHECK(lp_str_eq_c(lp_embed_model_token(m, i), TOKS[i]));
    }
    T_CHECK(lp_embed_model_lookup(m, "nope", 4) == UINT32_MAX);
    /* One known token: the vector is that row, dequantized and normalized. */
    e = lp_embedder_new(m);
    T_CHECK(lp_embed_text(e, LP_STR("  socket!! "), v));
    double dot = 0, n1 = 0, n2 = 0;
    for (int j = 0; j < 64; j++) {
        dot += v[j] * sm.rows[5 * 64 + j];
        n1 += v[j] * v[j];
        n2 += sm.rows[5 * 64 + j] * sm.rows[5 * 64 + j];
    }
    T_CHECK(fabs(n1 - 1.0) < 1e-4);
    T_CHECK_MSG(dot / sqrt(n2) > 0.999, "cosine to the source row %f", dot / sqrt(n2));
    /* Equal bytes -> equal identity; the same bytes from memory load too. */
    lp_embed_model *m2 = NULL;
    T_CHECK_OK(lp_embed_model_from_memory(sm.bytes.ptr, sm.bytes.len, &m2, &err), &err);
    lp_embed_info info2;
    lp_embed_model_info(m2, &info2);
    lp_embed_model_free(m2);
    T_CHECK_STR(info2.identity, info.identity);
done:
    free(v);
    lp_embedder_free(e);
    lp_embed_model_free(m);
    lp_buf_release(&path);
    small_model_free(&sm);
}

/* Load bytes through a file and expect a refusal with code and message fragment. */
static bool refused(lp_t *t, const char *bytes, size_t n, lp_status want, const char *frag)
{
    lp_buf path;
    lp_buf_init(&path, 0);
    lp_buf_printf(&path, "%s/bad.bin", t->tmpdir);
    lp_error err = {0};
    lp_embed_model *m = NULL;
    bool ok = lp_write_file_atomic(path.ptr, bytes, n, &err) == LP_OK;
    lp_status rc = lp_embed_model_load(path.ptr, &m, &err);
    ok = ok && rc == want && m == NULL && strstr(err.msg, frag) != NULL;
    if (!ok)
        fprintf(stdout, "# refused: got %s \"%s\", want %s \"%s\"\n", lp_status_code(rc), err.msg,
                lp_status_code(want), frag);
    lp_embed_model_free(m);
    lp_buf_release(&path);
    return ok;
}

T_TEST(embed_corrupt_files_refused)
{
    small_model sm;
    lp_error err = {0};
    char *b = NULL, *big = NULL;
    T_CHECK_OK(small_model_make(&sm, TOKS, 6, 32, 8, &err), &err);
    size_t n = sm.bytes.len;
    b = lp_xmalloc(n);
    /* A flipped payload byte: the hash catches it. */
    memcpy(b, sm.bytes.ptr, n);
    b[n - 70] ^= 0x40;
    T_CHECK(refused(t, b, n, LP_ECORRUPT, "content hash mismatch"));
    /* Truncated. */
    T_CHECK(refused(t, sm.bytes.ptr, n - 64, LP_ECORRUPT, "truncated"));
    T_CHECK(refused(t, sm.bytes.ptr, 100, LP_ECORRUPT, "truncated header"));
    /* Trailing garbage. */
    big = lp_xcalloc(1, n + 64);
    memcpy(big, sm.bytes.ptr, n);
    T_CHECK(refused(t, big, n + 64, LP_ECORRUPT, "trailing bytes"));
    /* Wrong magic and wrong version. */
    memcpy(b, sm.bytes.ptr, n);
    memcpy(b, "NOTAMODL", 8);
    T_CHECK(refused(t, b, n, LP_ECORRUPT, "wrong magic"));
    memcpy(b, sm.bytes.ptr, n);
    uint32_t v2 = 2;
    memcpy(b + 8, &v2, 4);
    T_CHECK(refused(t, b, n, LP_EUNSUPPORTED, "format version 2"));
    /* A header field out of range (dimension) is refused before any section is read. */
    memcpy(b, sm.bytes.ptr, n);
    uint32_t dim = 100000;
    memcpy(b + 16, &dim, 4);
    T_CHECK(refused(t, b, n, LP_ECORRUPT, "out of range"));
    /* Empty and missing files. */
    T_CHECK(refused(t, "", 0, LP_ECORRUPT, "empty"));
    lp_embed_model *m = NULL;
    T_CHECK(lp_embed_model_load("/nonexistent/loupe/model.bin", &m, &err) == LP_ENOENT);
    T_CHECK(strstr(err.msg, "/nonexistent/loupe/model.bin") != NULL);
done:
    free(b);
    free(big);
    small_model_free(&sm);
}

static void fill_i8(int8_t *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (int8_t)((int)(rng_next(&seed) % 255) - 127);
}

T_TEST(embed_simd_levels_agree)
{
    int8_t *a = lp_xmalloc(600), *b = lp_xmalloc(600);
    int8_t *mat = NULL;
    float *sc = NULL;
    lp_embed_hit *h[3] = {NULL, NULL, NULL};
    static const uint32_t dims[] = {16, 17, 31, 32, 33, 128, 255, 256, 300};
    for (size_t d = 0; d < LP_ARRAY_LEN(dims); d++) {
        fill_i8(a, dims[d], d + 1);
        fill_i8(b, dims[d], d + 100);
        /* Extremes: the widening multiply-add must not saturate. */
        if (d == 0)
            for (int j = 0; j < 16; j++)
                a[j] = b[j] = (j & 1) ? 127 : -127;
        int32_t ref = 0;
        for (uint32_t j = 0; j < dims[d]; j++)
            ref += a[j] * b[j];
        for (int lv = 0; lv < 3; lv++)
            T_CHECK_MSG(lp_embed_dot_i8((lp_simd_level)lv, a, b, dims[d]) == ref, "dim %u level %d",
                        dims[d], lv);
    }
    /* Whole scans: identical hits at every level, including tied rows. */
    size_t n = 5000;
    uint32_t dim = 256;
    mat = lp_xmalloc(n * dim);
    sc = lp_xmalloc(n * sizeof(float));
    fill_i8(mat, n * dim, 7);
    for (size_t i = 0; i < n; i++)
        sc[i] = 0.001f + (float)(i % 13) * 1e-4f;
    memcpy(mat + 100 * dim, mat + 4000 * dim, dim); /* a tie pair */
    sc[100] = sc[4000];
    fill_i8(a, dim, 99);
    for (int lv = 0; lv < 3; lv++)
        h[lv] = lp_xmalloc(sizeof(lp_embed_hit) * 50);
    size_t got[3];
    for (int lv = 0; lv < 3; lv++)
        got[lv] = lp_embed_search_level((lp_simd_level)lv, a, 0.01f, mat, sc, n, dim, 50, h[lv]);
    T_CHECK(got[0] == 50 && got[1] == 50 && got[2] == 50);
    T_CHECK(memcmp(h[0], h[1], sizeof(lp_embed_hit) * 50) == 0);
    T_CHECK(memcmp(h[0], h[2], sizeof(lp_embed_hit) * 50) == 0);
    T_CHECK(lp_embed_simd_best() <= LP_SIMD_AVX2);
    /* The embedding accumulation: identical floats at every level (no fused multiply-add). */
    for (size_t d = 0; d < LP_ARRAY_LEN(dims); d++) {
        float acc[3][300];
        fill_i8(a, dims[d], d + 7);
        for (int lv = 0; lv < 3; lv++) {
            for (uint32_t j = 0; j < dims[d]; j++)
                acc[lv][j] = 0.25f * (float)j - 3.0f;
            lp_embed_axpy_i8((lp_simd_level)lv, acc[lv], 0.013f, a, dims[d]);
            lp_embed_axpy_i8((lp_simd_level)lv, acc[lv], -1.7e-3f, b, dims[d]);
        }
        T_CHECK_MSG(!memcmp(acc[0], acc[1], sizeof(float) * dims[d]) &&
                        !memcmp(acc[0], acc[2], sizeof(float) * dims[d]),
                    "axpy levels differ at dim %u", dims[d]);
    }
    fprintf(stdout, "# simd level here: %s\n", lp_embed_simd_name(lp_embed_simd_best()));
done:
    free(a);
    free(b);
    free(mat);
    free(sc);
    for (int lv = 0; lv < 3; lv++)
        free(h[lv]);
}

typedef struct ref_hit {
    float score;
    uint32_t index;
} ref_hit;

static int ref_cmp(const void *pa, const void *pb)
{
    const ref_hit *a = pa, *b = pb;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

T_TEST(embed_topk_matches_bruteforce)
{
    size_t n = 3000;
    uint32_t dim = 64;
    int8_t *mat = lp_xmalloc(n * dim), q[64];
    float *sc = lp_xmalloc(n * sizeof(float));
    ref_hit *ref = lp_xmalloc(n * sizeof(ref_hit));
    lp_embed_hit *out = lp_xmalloc((n + 10) * sizeof(lp_embed_hit));
    fill_i8(mat, n * dim, 3);
    fill_i8(q, dim, 4);
    for (size_t i = 0; i < n; i++)
        sc[i] = (i % 17 == 0) ? 0.0f : 0.01f; /* every 17th row has no vector */
    for (size_t i = 0; i < 40; i++)           /* many exact ties */
        memcpy(mat + (i * 7 + 1) * dim, mat + 1 * dim, dim);
    size_t nref = 0;
    for (size_t i = 0; i < n; i++) {
        if (sc[i] == 0.0f)
            continue;
        int32_t d = 0;
        for (uint32_t j = 0; j < dim; j++)
            d += q[j] * mat[i * dim + j];
        ref[nref++] = (ref_hit){(float)d * 0.5f * sc[i], (uint32_t)i};
    }
    qsort(ref, nref, sizeof *ref, ref_cmp);
    static const size_t ks[] = {1, 2, 7, 100, 2000, 3000, 5000};
    for (size_t ki = 0; ki < LP_ARRAY_LEN(ks); ki++) {
        size_t k = ks[ki];
        size_t got = lp_embed_search(q, 0.5f, mat, sc, n, dim, k, out);
        T_CHECK_INT(got, LP_MIN(k, nref));
        for (size_t i = 0; i < got; i++)
            T_CHECK_MSG(out[i].index == ref[i].index && out[i].score == ref[i].score,
                        "k=%zu rank %zu: got %u (%g), want %u (%g)", k, i, out[i].index,
                        out[i].score, ref[i].index, ref[i].score);
    }
    T_CHECK_INT(lp_embed_search(q, 0.0f, mat, sc, n, dim, 5, out), 0);
    T_CHECK_INT(lp_embed_search(q, 0.5f, mat, sc, 0, dim, 5, out), 0);
done:
    free(mat);
    free(sc);
    free(ref);
    free(out);
}

T_TEST(embed_text_edge_cases)
{
    small_model sm;
    lp_error err = {0};
    lp_embed_model *m = NULL;
    lp_embedder *e = NULL;
    char *huge = NULL;
    float v[32], v2[32];
    uint8_t q[LP_EMBED_VEC_BYTES(32)];
    T_CHECK_OK(small_model_make(&sm, TOKS, 6, 32, 64, &err), &err);
    T_CHECK_OK(lp_embed_model_from_memory(sm.bytes.ptr, sm.bytes.len, &m, &err), &err);
    e = lp_embedder_new(m);
    /* Nothing to embed: false and a zero vector with scale 0. */
    T_CHECK(!lp_embed_text(e, LP_STR(""), v));
    T_CHECK(v[0] == 0.0f && v[31] == 0.0f);
    T_CHECK(!lp_embed_text(e, LP_STR("  (){}[];,.  \n\t"), v));
    T_CHECK(!lp_embed_text(e, LP_STR("12345 678"), v)); /* numbers outside the vocabulary */
    T_CHECK(!lp_embed_text_q(e, LP_STR(""), q));
    T_CHECK(lp_embed_vec_scale(q, 32) == 0.0f);
    /* Invalid UTF-8 around a known word: the word still counts. */
    T_CHECK(lp_embed_text(e, LP_STR("\xff\xfe parse \xc3\x28 \xed\xa0\x80"), v));
    T_CHECK(lp_embed_text(e, LP_STR("parse"), v2));
    T_CHECK(memcmp(v, v2, sizeof v) == 0);
    /* Identifier splitting: parseConfig = parse + config + the whole (known) parse_config?
     * No: the whole of parseConfig folds to "parseconfig", unknown, and is skipped. */
    T_CHECK(lp_embed_text(e, LP_STR("parseConfig"), v));
    T_CHECK(lp_embed_text(e, LP_STR("parse config"), v2));
    for (int j = 0; j < 32; j++)
        T_CHECK(fabsf(v[j] - v2[j]) < 1e-6f);
    /* An unknown word falls back to its n-grams: a non-zero, repeatable vector. */
    T_CHECK(lp_embed_text(e, LP_STR("frobnicate"), v));
    T_CHECK(lp_embed_text(e, LP_STR("frobnicate"), v2));
    T_CHECK(memcmp(v, v2, sizeof v) == 0);
    /* Huge input: bounded work, same answer as its first LP_EMBED_TEXT_MAX bytes. */
    size_t big = 4u << 20;
    huge = lp_xmalloc(big);
    uint64_t s = 5;
    for (size_t i = 0; i < big; i++) {
        uint64_t r = rng_next(&s) % 40;
        huge[i] = r < 26 ? (char)('a' + r) : r < 30 ? ' ' : (char)(0x80 + r);
    }
    memcpy(huge + 10, " socket ", 8);
    uint64_t t0 = t_cpu_ns();
    T_CHECK(lp_embed_text(e, lp_str_n(huge, big), v));
    T_CHECK(lp_embed_text(e, lp_str_n(huge, LP_EMBED_TEXT_MAX), v2));
    T_CHECK(memcmp(v, v2, sizeof v) == 0);
    T_CHECK_MSG(t_cpu_ns() - t0 < 10000000000ull, "huge text took too long");
    /* Quantized form round-trips within int8 precision. */
    T_CHECK(lp_embed_text_q(e, LP_STR("read socket file"), q));
    T_CHECK(lp_embed_text(e, LP_STR("read socket file"), v));
    float sc = lp_embed_vec_scale(q, 32);
    for (int j = 0; j < 32; j++)
        T_CHECK(fabsf((float)((int8_t)q[j]) * sc - v[j]) <= sc * 0.51f);
done:
    free(huge);
    lp_embedder_free(e);
    lp_embed_model_free(m);
    small_model_free(&sm);
}

T_TEST(embed_default_model)
{
    lp_error err = {0};
    const lp_embed_model *m = NULL;
    const char *id = lp_embed_default_identity();
    lp_status rc = lp_embed_default(&m, &err);
    if (getenv("LOUPE_EMBED_MODEL")) {
        T_CHECK(1); /* overridden: nothing to say about the built-in one */
        goto done;
    }
    if (!id) {
        /* Built without models/loupe-static-v1.bin: absent, with a message that says why. */
        T_CHECK(rc == LP_ENOENT && m == NULL && strstr(err.msg, "make model"));
        goto done;
    }
    T_CHECK_OK(rc, &err);
    lp_embed_info info;
    lp_embed_model_info(m, &info);
    T_CHECK_STR(info.identity, id);
    T_CHECK(info.dim >= 128 && info.dim <= 256);
    T_CHECK(info.file_bytes <= (16u << 20));
    /* The fingerprint carries the identity once registered, when code indexes get vectors
     * (LOUPE_DENSE=1); "none" otherwise. */
    lp_fingerprint fp;
    unsetenv("LOUPE_DENSE");
    lp_embed_register_fingerprint();
    lp_fingerprint_current(&fp);
    T_CHECK(strstr(fp.text, "embedding=none") != NULL);
    setenv("LOUPE_DENSE", "1", 1);
    lp_embed_register_fingerprint();
    lp_fingerprint_current(&fp);
    unsetenv("LOUPE_DENSE");
    T_CHECK(strstr(fp.text, id) != NULL);
    lp_fingerprint_set_embedding(NULL);
    /* Related words land closer than unrelated ones with the trained table. */
    lp_embedder *e = lp_embedder_new(m);
    float a[512], b[512], c[512];
    lp_embed_text(e, LP_STR("open a network connection to the server"), a);
    lp_embed_text(
        e, LP_STR("func dialTCP(addr string) (net.Conn, error) { return net.Dial(\"tcp\", addr) }"),
        b);
    lp_embed_text(e, LP_STR("def mean(values): return sum(values) / len(values)"), c);
    lp_embedder_free(e);
    double ab = 0, ac = 0;
    for (uint32_t j = 0; j < info.dim; j++) {
        ab += a[j] * b[j];
        ac += a[j] * c[j];
    }
    T_CHECK_MSG(ab > ac, "network query: socket code %f, mean code %f", ab, ac);
done:;
}

/* Stored vectors through a real store: insert, dense index per publication (cached, rebuilt
 * for a new publication), deletion with the blob, and lp_dense_search end to end. */
T_TEST(embed_store_vectors_and_dense_index)
{
    lp_error err = {0};
    lp_store *st = NULL;
    sqlite3_stmt *s = NULL;
    const lp_dense_index *ix = NULL, *ix2 = NULL;
    lp_buf home, root;
    lp_buf_init(&home, 0);
    lp_buf_init(&root, 0);
    lp_buf_printf(&home, "%s/state", t->tmpdir);
    lp_buf_printf(&root, "%s/repo", t->tmpdir);
    char *old_home = getenv("LOUPE_HOME") ? lp_xstrdup(getenv("LOUPE_HOME")) : NULL;
    setenv("LOUPE_HOME", home.ptr, 1);
    T_CHECK(lp_t_sh("mkdir -p %s", root.ptr) == 0);
    T_CHECK_OK(lp_store_open(root.ptr, LP_STORE_WRITE, &st, &err), &err);
    T_CHECK_OK(lp_store_schema_complete(st, &err), &err); /* idempotent with the schema's table */
    /* Two blobs' chunks: blob 1 has chunks 0..2, blob 2 has chunk 0. */
    T_CHECK_OK(lp_store_exec(st,
                             "INSERT INTO chunks(bid, ord, owner, kind, start_line, end_line,"
                             " start_byte, end_byte) VALUES(1,0,-1,3,1,2,0,1),(1,1,-1,3,3,4,0,1),"
                             "(1,2,-1,3,5,6,0,1),(2,0,-1,3,1,2,0,1)",
                             &err),
               &err);
    uint32_t dim = 32;
    size_t stride = LP_EMBED_VEC_BYTES(dim);
    uint8_t vecs[4 * LP_EMBED_VEC_BYTES(32)];
    float v[32];
    for (int c = 0; c < 4; c++) {
        for (uint32_t j = 0; j < dim; j++)
            v[j] = (float)((j == (uint32_t)c) ? 1.0 : 0.01 * j);
        lp_embed_quantize(v, dim, vecs + (size_t)c * stride);
    }
    memset(vecs + 2 * stride, 0, stride); /* chunk (1,2) has no vector: not stored */
    T_CHECK_OK(lp_embed_store_insert(st, 1, vecs, 3, dim, &err), &err);
    T_CHECK_OK(lp_embed_store_insert(st, 2, vecs + 3 * stride, 1, dim, &err), &err);
    T_CHECK(sqlite3_prepare_v2(lp_store_db(st), "SELECT count(*) FROM vectors", -1, &s, NULL) ==
            SQLITE_OK);
    T_CHECK(sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0) == 3);
    sqlite3_finalize(s);
    s = NULL;
    /* The dense index needs the default model's dimension; only check it when it matches. */
    const lp_embed_model *m = NULL;
    if (lp_embed_default(&m, &err) == LP_OK && lp_embed_model_dim(m) == dim) {
        T_CHECK_OK(lp_dense_index_get(st, 7, &ix, &err), &err);
        T_CHECK_INT(ix->n, 3);
    }
    /* Deleting a blob's vectors. */
    T_CHECK_OK(lp_embed_store_delete(st, 1, &err), &err);
    T_CHECK(sqlite3_prepare_v2(lp_store_db(st), "SELECT count(*) FROM vectors", -1, &s, NULL) ==
            SQLITE_OK);
    T_CHECK(sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0) == 1);
    sqlite3_finalize(s);
    s = NULL;
    if (m) {
        /* With the real model: vectors made by it are found by lp_dense_search, best first,
         * and a second publication id gets a fresh (not stale cached) index. */
        uint32_t md = lp_embed_model_dim(m);
        size_t ms = LP_EMBED_VEC_BYTES(md);
        uint8_t *mv = lp_xmalloc(ms * 3);
        lp_embedder *e = lp_embedder_new(m);
        lp_embed_text_q(e, LP_STR("func dialTCP(addr string) net.Conn { return net.Dial(addr) }"),
                        mv);
        lp_embed_text_q(e, LP_STR("def mean(values): return sum(values) / len(values)"), mv + ms);
        lp_embed_text_q(e, LP_STR("class HtmlTemplate: def render(self, context): ..."),
                        mv + 2 * ms);
        lp_embedder_free(e);
        T_CHECK_OK(lp_store_exec(st, "DELETE FROM vectors", &err), &err);
        T_CHECK_OK(lp_embed_store_insert(st, 1, mv, 3, md, &err), &err);
        free(mv);
        T_CHECK_OK(lp_dense_index_get(st, 8, &ix2, &err), &err);
        T_CHECK_INT(ix2->n, 3);
        T_CHECK_INT(ix2->cids[0], 1);
        lp_dense_hit hits[5];
        size_t n = 0;
        T_CHECK_OK(lp_dense_search(st, 8, LP_STR("compute the average of a list of numbers"), 5,
                                   hits, &n, &err),
                   &err);
        T_CHECK_INT(n, 3);
        T_CHECK_MSG(hits[0].cid == 2, "best chunk %lld", (long long)hits[0].cid);
        T_CHECK(hits[0].score >= hits[1].score && hits[1].score >= hits[2].score);
        /* A query with no known token: no hits, no error. */
        T_CHECK_OK(lp_dense_search(st, 8, LP_STR(" ;;; "), 5, hits, &n, &err), &err);
        T_CHECK_INT(n, 0);
    }
done:
    if (s)
        sqlite3_finalize(s);
    lp_dense_index_release(ix);
    lp_dense_index_release(ix2);
    lp_dense_cache_clear();
    lp_store_close(st);
    if (old_home) {
        setenv("LOUPE_HOME", old_home, 1);
        free(old_home);
    } else {
        unsetenv("LOUPE_HOME");
    }
    lp_buf_release(&home);
    lp_buf_release(&root);
}
