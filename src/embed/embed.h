/*
 * embed.h: the contract of src/embed: loupe's own static code embeddings and the exact dense
 * scan that serves the dense retrieval channel.
 *
 * Model. A static token table: every vocabulary token (code identifiers split the way the
 * lexical tokenizer splits them, and English words) maps to a d-dimensional int8 vector with
 * a per-row scale; words outside the vocabulary are represented by the mean of hashed
 * character n-gram rows ("subword buckets"). A text's vector is the weighted mean (SIF
 * weights stored in the model) of its token vectors, L2-normalized. The same function
 * embeds queries and code, so a word shared by a question and the code counts from the
 * start; training pulls related words (the question's words and the code's words) together.
 *
 * File format (version 1, little-endian, mmap-able; see model.c for the field list): a
 * 128-byte header (magic "LPEMBED1", format version, dimension, vocabulary and bucket
 * counts, tokenizer options, weighting, payload size, XXH3-128 of the payload), then the
 * payload (row scales, token weights, an open-addressing token table, the token strings,
 * the int8 rows). Loading checks every size and the payload hash; a mismatch is refused
 * with a message that names the file and what to do.
 *
 * Identity. "loupe-static-v1:<16 hex digits of the payload hash>". It enters the
 * publication fingerprint (lp_fingerprint_set_embedding), so a different model means
 * requires_reindex instead of mixing vectors of two models.
 *
 * Shipping. The default model (models/loupe-static-v1.bin, produced by `make model`) is
 * built INTO the binary (an .incbin section), so build/loupe and an installed copy work
 * the same with nothing next to them. LOUPE_EMBED_MODEL=<path> overrides it (a model file
 * written by loupe-train); LOUPE_EMBED_MODEL=none disables the dense channel.
 *
 * Stored vectors. One vector is LP_EMBED_VEC_BYTES(dim) bytes: dim int8 components followed
 * by a little-endian float32 scale; value_j = q_j * scale. The dot product of two stored
 * vectors times both scales approximates their cosine similarity.
 *
 * Threads. A loaded model is immutable and may be shared by any number of threads; an
 * lp_embedder (tokenizer + scratch) belongs to one thread at a time. The scan functions are
 * pure.
 */
#ifndef LP_EMBED_H
#define LP_EMBED_H

#include "core/core.h"
#include "lang/lang.h"
#include "store/store.h"

#define LP_EMBED_DIM_MIN 16
#define LP_EMBED_DIM_MAX 512
#define LP_EMBED_VEC_BYTES(dim) ((size_t)(dim) + 4)
#define LP_EMBED_IDENTITY_MAX 64

/* ------------------------------------------------------------------------------------------
 * Models. */
typedef struct lp_embed_model lp_embed_model;

typedef struct lp_embed_info {
    uint32_t dim;
    uint32_t vocab;   /* token rows */
    uint32_t buckets; /* subword n-gram rows */
    uint32_t ngram_min, ngram_max;
    unsigned tok_options; /* lp_text_tokenizer options (text.h) */
    uint32_t format_version;
    lp_hash128 hash;                      /* XXH3-128 of the payload */
    char identity[LP_EMBED_IDENTITY_MAX]; /* "loupe-static-v1:<hash16>" */
    size_t file_bytes;
} lp_embed_info;

/* Load a model file (mapped read-only, verified). Caller frees with lp_embed_model_free.
 * Fails with LP_ENOENT (missing), LP_ECORRUPT (bad magic, truncated, hash mismatch,
 * inconsistent sizes) or LP_EUNSUPPORTED (another format version), each with a message that
 * names the file and what to do. */
lp_status lp_embed_model_load(const char *path, lp_embed_model **out, lp_error *err);
/* The same from bytes in memory; the bytes are borrowed and must outlive the model. */
lp_status lp_embed_model_from_memory(const void *p, size_t n, lp_embed_model **out, lp_error *err);
void lp_embed_model_free(lp_embed_model *m); /* NULL is a no-op */
void lp_embed_model_info(const lp_embed_model *m, lp_embed_info *out);
uint32_t lp_embed_model_dim(const lp_embed_model *m);

/* The process-wide default model: the file named by LOUPE_EMBED_MODEL if set (or none when
 * it is "none"), else the model built into the binary. (When a connected provider is
 * configured, it replaces the model as the dense channel's provider: lp_embedder_default.) Loaded
 * and verified once (thread safe); the pointer is borrowed and valid until exit. LP_ENOENT when
 * there is no model (the dense channel is then absent, with a warning, never a failed search). */
lp_status lp_embed_default(const lp_embed_model **out, lp_error *err);
/* The identity of the default provider for the fingerprint: the connected provider's when
 * configured, else the default model's, read from its header without hashing the payload
 * (cheap at start-up): "loupe-static-v1:<hash16>", or NULL when there is no provider. Borrowed,
 * static. A model whose payload later fails verification serves no vectors, so a wrong identity can
 * never put bad vectors in an index. */
const char *lp_embed_default_identity(void);
/* Whether code indexes get dense vectors: when LOUPE_DENSE is 1/on/yes, or a connected
 * provider is configured (LOUPE_EMBED_URL). Off by default: on the development set the dense
 * channel did not raise MRR@10 enough to be on by default (docs/decisions/0003), and its
 * vectors were 28% of the Linux kernel's index (docs/decisions/0005). The tool catalog
 * (src/catalog) uses the model regardless. */
bool lp_embed_code_vectors_enabled(void);
/* Call once at start-up: puts lp_embed_default_identity() in the publication fingerprint
 * when lp_embed_code_vectors_enabled(), else "none"; so turning LOUPE_DENSE on or off makes
 * existing indexes require a reindex instead of serving without (or with stale) vectors. */
void lp_embed_register_fingerprint(void);

/* ------------------------------------------------------------------------------------------
 * The connected provider (remote.c): any OpenAI-compatible /v1/embeddings endpoint, used
 * INSTEAD of the built-in model when LOUPE_EMBED_URL is set (with LOUPE_EMBED_REMOTE_MODEL
 * and LOUPE_EMBED_DIM; optional LOUPE_EMBED_API_KEY and LOUPE_EMBED_TIMEOUT_MS). Its
 * identity "openai-compat:<model>:<dim>:<url hash>" is then the fingerprint's embedding
 * identity. Requests fail with LP_EIO (message: HTTP status or curl's reason, "timed out");
 * callers degrade instead of failing (see lp_dense_search). */
typedef struct lp_embed_remote lp_embed_remote;
bool lp_embed_remote_configured(void); /* LOUPE_EMBED_URL is set */
/* The process-wide remote configuration (borrowed, valid until exit); LP_ENOENT when not
 * configured, LP_EINVAL with a message when misconfigured. */
lp_status lp_embed_remote_get(const lp_embed_remote **out, lp_error *err);
const char *lp_embed_remote_identity(const lp_embed_remote *r);
uint32_t lp_embed_remote_dim(const lp_embed_remote *r);
/* Embed n texts (each cut at 8 KiB; batches of 64 per request) into out: n stored vectors
 * of LP_EMBED_VEC_BYTES(dim) bytes (zeros for an empty answer vector). The timeout is the
 * configured one, or timeout_ms when that is smaller (> 0). Thread safe (one curl handle per
 * request). */
lp_status lp_embed_remote_batch(const lp_embed_remote *r, const lp_str *texts, size_t n,
                                long timeout_ms, uint8_t *out, lp_error *err);

/* ------------------------------------------------------------------------------------------
 * Embedding text. */
typedef struct lp_embedder lp_embedder;

/* Per-thread embedding context for model m (borrowed; must outlive it). Never NULL.
 * Caller frees with lp_embedder_free. */
lp_embedder *lp_embedder_new(const lp_embed_model *m);
/* An embedder for the default provider: the connected one when configured, else the
 * default model (lp_embed_default). Fails as they do (LP_ENOENT: no provider). Caller frees
 * with lp_embedder_free. A remote-backed embedder makes HTTP requests in lp_embed_text*;
 * when one fails those return false and lp_embedder_error says why. */
lp_status lp_embedder_default(lp_embedder **out, lp_error *err);
/* The last provider error of e (code 0 when none); cleared by the next successful call. */
const lp_error *lp_embedder_error(const lp_embedder *e);
/* Request timeout for a remote-backed embedder (queries use a short one); no-op otherwise. */
void lp_embedder_set_timeout(lp_embedder *e, long timeout_ms);
void lp_embedder_free(lp_embedder *e); /* NULL is a no-op */
uint32_t lp_embedder_dim(const lp_embedder *e);

/* Embed text into out[dim] (L2-normalized). Returns false and writes zeros when the text
 * holds no token the model knows (empty text, only punctuation, only stopwords). Never fails
 * on content: any bytes, any size (only the first LP_EMBED_TEXT_MAX bytes are read). */
#define LP_EMBED_TEXT_MAX ((size_t)64 << 10)
bool lp_embed_text(lp_embedder *e, lp_str text, float *out);
/* Embed and quantize into the stored form: out must hold LP_EMBED_VEC_BYTES(dim) bytes.
 * Returns false (an all-zero vector with scale 0) as lp_embed_text does. */
bool lp_embed_text_q(lp_embedder *e, lp_str text, uint8_t *out);
/* Batch form: vector i of texts[i] at out + i * LP_EMBED_VEC_BYTES(dim). Returns how many
 * texts had a non-zero vector. */
size_t lp_embed_batch_q(lp_embedder *e, const lp_str *texts, size_t n, uint8_t *out);

/* A bag of tokens that a caller has already produced with the model's tokenizer options
 * (lp_text_tokenize with LP_TEXT_CODE | LP_TEXT_STEM | LP_TEXT_STOPWORDS, or a subset of
 * them), each with a multiplier (a count, a field weight). */
typedef struct lp_embed_term {
    lp_str text;  /* folded token, borrowed */
    float weight; /* multiplies the token's own weight; <= 0 skips the token */
    bool whole;   /* a whole identifier (LP_TEXT_TOK_WHOLE): no subword fallback */
} lp_embed_term;

/* Embed a bag of tokens into out[dim] (L2-normalized), featurized exactly as lp_embed_text
 * featurizes the tokens it produces (vocabulary row, else subword n-grams unless the token is
 * whole or only digits), so callers that tokenize once (src/catalog) need not tokenize again.
 * Returns false and writes zeros when no token is known, and always for a remote-backed
 * embedder (a bag of tokens cannot be sent to a provider). */
bool lp_embed_terms(lp_embedder *e, const lp_embed_term *terms, size_t n, float *out);
/* The unnormalized contribution of one token to lp_embed_terms' sum (its weighted row, or
 * its weighted subword rows), written to out[dim] (overwritten): a caller that meets the
 * same token in many texts can compute it once, add it with its multipliers and normalize.
 * Returns false (zeros) when the token gives nothing, or for a remote-backed embedder. */
bool lp_embed_term_vector(lp_embedder *e, lp_str text, bool whole, float *out);

/* Quantize a float vector into the stored form (dim int8 + float scale). */
void lp_embed_quantize(const float *v, uint32_t dim, uint8_t *out);
/* Read the scale of a stored vector. */
float lp_embed_vec_scale(const uint8_t *stored, uint32_t dim);
/* acc[dim] += s * (the float values of a stored vector), with the SIMD level of
 * lp_embed_simd_best (every level gives the same floats). */
void lp_embed_add_stored(float *acc, float s, const uint8_t *stored, uint32_t dim);
/* acc[dim] += s * q[dim] (int8 components without a stored scale), the same way. */
void lp_embed_add_i8(float *acc, float s, const int8_t *q, uint32_t dim);

/* ------------------------------------------------------------------------------------------
 * Exact dense search over a contiguous int8 matrix. */
typedef enum lp_simd_level {
    LP_SIMD_PORTABLE = 0,
    LP_SIMD_SSE41 = 1,
    LP_SIMD_AVX2 = 2,
} lp_simd_level;

/* The best level this CPU supports (checked once with __builtin_cpu_supports).
 * LOUPE_SIMD=portable|sse41|avx2 caps it (for tests and benchmarks). */
lp_simd_level lp_embed_simd_best(void);
const char *lp_embed_simd_name(lp_simd_level l);

typedef struct lp_embed_hit {
    uint32_t index; /* row in the matrix */
    float score;    /* dot(q, row) * qscale * scale[row]: the cosine for unit vectors */
} lp_embed_hit;

/* Top k rows of matrix (n rows of dim int8, row i at matrix + i * dim) by score against the
 * query (dim int8 with scale qscale); scales[i] is row i's scale. Writes at most k hits to
 * out, best first; ties go to the lower index, so the order is fully deterministic.
 * Returns the number written (at most min(k, n)). Rows with scale 0 (no vector) and a query
 * with scale 0 never match.
 * Every SIMD level returns identical results (integer dot products, same float math). */
size_t lp_embed_search(const int8_t *query, float qscale, const int8_t *matrix, const float *scales,
                       size_t n, uint32_t dim, size_t k, lp_embed_hit *out);
/* The same with an explicit level (a level the CPU lacks falls back to the best it has). */
size_t lp_embed_search_level(lp_simd_level level, const int8_t *query, float qscale,
                             const int8_t *matrix, const float *scales, size_t n, uint32_t dim,
                             size_t k, lp_embed_hit *out);
/* The score of every row (as lp_embed_search computes it) into out[n]; rows with scale 0
 * and a query with scale 0 score 0. For callers that rank or filter all rows themselves
 * (a tool catalog of a few thousand rows). Identical at every SIMD level. */
void lp_embed_scores(const int8_t *query, float qscale, const int8_t *matrix, const float *scales,
                     size_t n, uint32_t dim, float *out);
/* Integer dot product of two int8 vectors at a level (exposed for tests). */
int32_t lp_embed_dot_i8(lp_simd_level level, const int8_t *a, const int8_t *b, uint32_t dim);

/* ------------------------------------------------------------------------------------------
 * Index and search integration (vectors.c).
 *
 * Vectors are evidence keyed by content, like chunks: table
 *   vectors(bid INTEGER, ord INTEGER, v BLOB, PRIMARY KEY(bid, ord)) WITHOUT ROWID
 * holds one stored vector (LP_EMBED_VEC_BYTES(dim) bytes) per chunk (bid, ord) that has one.
 * The index pipeline embeds chunks in its worker threads (lp_embed_chunks) and the writer
 * inserts the bytes (lp_embed_store_insert); collecting a blob deletes its vectors
 * (lp_embed_store_delete), a reset all of them (lp_embed_store_clear). Which
 * model made them is in the publication fingerprint, so a reader never mixes models. */

/* The text embedded for chunk i of a parse result: the owner's qualified name, its doc
 * comment and the chunk text. Appends to out. */
void lp_embed_chunk_text(const lp_parse_result *pr, lp_str content, size_t i, lp_buf *out);
/* Embed every chunk of pr into out (reset first): pr->nchunks vectors of
 * LP_EMBED_VEC_BYTES(dim) bytes, chunk order. scratch is reused between calls. With a
 * remote provider whose request fails, out stays empty and lp_embedder_error says why. */
void lp_embed_chunks(lp_embedder *e, const lp_parse_result *pr, lp_str content, lp_buf *scratch,
                     lp_buf *out);

/* The table is defined in src/store/schema.c (databases older than it get it from
 * lp_store_schema_complete); src/embed owns its rows: nothing else writes them. */
/* Delete every stored vector (a reset before a rebuild; inside the writer's transaction). */
lp_status lp_embed_store_clear(lp_store *st, lp_error *err);
/* Store the vectors of blob bid: n vectors of LP_EMBED_VEC_BYTES(dim) bytes, ord 0..n-1.
 * Vectors whose scale is 0 (chunks with no known token) are not stored. */
lp_status lp_embed_store_insert(lp_store *st, int64_t bid, const uint8_t *vecs, size_t n,
                                uint32_t dim, lp_error *err);
/* Delete the vectors of blob bid (no error when it has none or the table is absent). */
lp_status lp_embed_store_delete(lp_store *st, int64_t bid, lp_error *err);

/* The dense index of one publication: every stored vector of the pinned publication as a
 * contiguous int8 matrix, with the chunk id of each row. Immutable once built; shared
 * through a small process-wide cache keyed by (root, publication id, model identity) and
 * reference counted. */
typedef struct lp_dense_index {
    const char *identity; /* model identity the vectors were made with */
    int64_t publication_id;
    uint32_t dim;
    size_t n;
    const int8_t *matrix; /* n * dim */
    const float *scales;  /* n */
    const int64_t *cids;  /* n, ascending */
} lp_dense_index;

/* Load the dense index of the publication pinned on st (lp_store_pin) whose id is
 * publication_id, or reuse the cached one. Caller releases with lp_dense_index_release.
 * An index without vectors has n = 0 (not an error). */
lp_status lp_dense_index_get(lp_store *st, int64_t publication_id, const lp_dense_index **out,
                             lp_error *err);
void lp_dense_index_release(const lp_dense_index *ix); /* NULL is a no-op */
/* Drop every cached index (tests; memory pressure). Indexes still held stay valid. */
void lp_dense_cache_clear(void);

typedef struct lp_dense_hit {
    int64_t cid; /* chunks.cid */
    float score; /* cosine similarity, about -1 .. 1 */
} lp_dense_hit;

/* The dense channel in one call: embed query with the default provider, scan the pinned
 * publication's vectors, write the k best chunks to out (best first; ties by lower cid).
 * *nout is the number written; a query with no known token gives *nout = 0 and LP_OK.
 * ANY other status means "no dense channel for this request" and err says why: LP_ENOENT
 * (no model), LP_EIO (the connected provider failed or timed out; queries wait at most
 * 5 s), ... The caller adds an LP_WARN_DENSE_CHANNEL_ABSENT warning with err->msg and goes on
 * with the other channels: never a failed search. */
lp_status lp_dense_search(lp_store *st, int64_t publication_id, lp_str query, size_t k,
                          lp_dense_hit *out, size_t *nout, lp_error *err);

#endif
