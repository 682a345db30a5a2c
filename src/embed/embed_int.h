/*
 * embed_int.h: internals of src/embed shared with the trainer (tools/train): the file
 * layout, text featurization (text -> weighted rows) and the model writer.
 *
 * Featurization is the single definition of "which rows a text touches, with which weight":
 * the runtime and the trainer both call lp_embed_featurize, so a trained table is used
 * exactly as it was trained.
 */
#ifndef LP_EMBED_INT_H
#define LP_EMBED_INT_H

#include "embed/embed.h"
#include "text/text.h"

#define LP_EMBED_MAGIC "LPEMBED1"
#define LP_EMBED_FORMAT_VERSION 1u
#define LP_EMBED_HEADER_BYTES 128u
#define LP_EMBED_ALIGN 64u
#define LP_EMBED_WEIGHT_SIF 1u
#define LP_EMBED_FILE_MAX ((size_t)64 << 20) /* a model larger than this is refused */
#define LP_EMBED_VOCAB_MAX (1u << 20)
#define LP_EMBED_BUCKETS_MAX (1u << 20)

/* The header as stored (all little-endian; x86-64 and aarch64 are little-endian, a
 * big-endian host refuses the file). Offsets are from the start of the file. */
typedef struct lp_embed_header {
    char magic[8];         /* "LPEMBED1" */
    uint32_t version;      /* LP_EMBED_FORMAT_VERSION */
    uint32_t header_bytes; /* 128 */
    uint32_t dim;
    uint32_t vocab;   /* token rows: 0 .. vocab-1 */
    uint32_t buckets; /* n-gram rows: vocab .. vocab+buckets-1 */
    uint32_t ngram_min, ngram_max;
    uint32_t tok_options; /* lp_text_tokenizer options for every text */
    uint32_t weighting;   /* LP_EMBED_WEIGHT_SIF */
    float oov_weight;     /* weight of a token outside the vocabulary */
    uint32_t table_slots; /* power of two, >= 2 * vocab */
    uint32_t strings_bytes;
    uint64_t payload_bytes;   /* file size - header_bytes */
    uint8_t payload_hash[16]; /* XXH3-128 of the payload, big-endian (lp_hash128_bytes) */
    /* payload offsets (from file start), each LP_EMBED_ALIGN-aligned */
    uint64_t off_scales;  /* float[vocab + buckets] */
    uint64_t off_weights; /* float[vocab] */
    uint64_t off_table;   /* uint32[table_slots]: row + 1, 0 = empty */
    uint64_t off_stroff;  /* uint32[vocab + 1]: token i is strings[stroff[i], stroff[i+1]) */
    uint64_t off_strings; /* char[strings_bytes] */
    uint64_t off_rows;    /* int8[(vocab + buckets) * dim] */
} lp_embed_header;

_Static_assert(sizeof(lp_embed_header) <= LP_EMBED_HEADER_BYTES, "header fits");

/* ------------------------------------------------------------------------------------------
 * Featurization. A text becomes a list of (row, weight) features: a vocabulary token gives
 * its row with the token's weight; a token outside the vocabulary (a part, not a whole
 * identifier, and not a number) gives its character n-grams of "<token>" (ngram_min ..
 * ngram_max bytes) hashed into the buckets, sharing the OOV weight equally. */
typedef struct lp_embed_feature {
    uint32_t row;
    float weight;
} lp_embed_feature;

/* Vocabulary lookup: row of token (folded, len bytes), or UINT32_MAX when absent. */
typedef uint32_t (*lp_embed_lookup_fn)(const void *ctx, const char *tok, size_t len);
/* Weight of vocabulary row. */
typedef float (*lp_embed_weight_fn)(const void *ctx, uint32_t row);

typedef struct lp_embed_featurizer {
    lp_embed_lookup_fn lookup;
    lp_embed_weight_fn weight;
    const void *ctx;
    uint32_t vocab, buckets, ngram_min, ngram_max;
    float oov_weight;
} lp_embed_featurizer;

typedef LP_VEC(lp_embed_feature) lp_embed_features;

/* Append the features of text (at most LP_EMBED_TEXT_MAX bytes are read) to out; returns
 * the number of tokens that produced features. tk must have been made with the model's
 * tokenizer options. */
size_t lp_embed_featurize(const lp_embed_featurizer *f, lp_text_tokenizer *tk, lp_str text,
                          lp_embed_features *out);
/* Bucket row (vocab + bucket index) of one n-gram. */
uint32_t lp_embed_ngram_row(const lp_embed_featurizer *f, const char *gram, size_t len);
/* acc += s * q at a SIMD level (a level the CPU lacks falls back); every level gives the
 * same floats. Exposed for tests. */
void lp_embed_axpy_i8(lp_simd_level level, float *acc, float s, const int8_t *q, uint32_t dim);
/* Hash used by the token table (stable: part of the format). */
uint64_t lp_embed_token_hash(const char *tok, size_t len);

/* ------------------------------------------------------------------------------------------
 * Writing a model (the trainer). rows are float; they are quantized here per row. */
typedef struct lp_embed_model_spec {
    uint32_t dim, vocab, buckets, ngram_min, ngram_max;
    unsigned tok_options;
    float oov_weight;
    const char *const *tokens; /* vocab folded tokens (distinct) */
    const float *weights;      /* vocab */
    const float *rows;         /* (vocab + buckets) * dim */
} lp_embed_model_spec;

/* Serialize spec into out (the complete file bytes). Deterministic: equal specs give equal
 * bytes. */
lp_status lp_embed_model_serialize(const lp_embed_model_spec *spec, lp_buf *out, lp_error *err);

/* Token string of row i (borrowed from the model), for tools and tests. */
lp_str lp_embed_model_token(const lp_embed_model *m, uint32_t row);
/* Row of a token in a loaded model, or UINT32_MAX. */
uint32_t lp_embed_model_lookup(const lp_embed_model *m, const char *tok, size_t len);
/* Raw sections of a loaded model (borrowed), for the trainer that starts from a model. */
const float *lp_embed_model_scales_(const lp_embed_model *m);
const float *lp_embed_model_weights_(const lp_embed_model *m);
const int8_t *lp_embed_model_rows_(const lp_embed_model *m);
const lp_embed_header *lp_embed_model_header_(const lp_embed_model *m);

#endif
