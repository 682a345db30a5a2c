/*
 * train.h: the contract of loupe-train, the trainer of loupe's static code embeddings.
 *
 * Pipeline (driven by tools/train/make-model.sh through `make model`):
 *   1. extract: for every source file of the corpus packages, lp_lang_detect + lp_parse
 *      (loupe's own language layer); every documented symbol gives a pair (description =
 *      the first paragraph of its doc comment, code = its source without the doc).
 *   2. train: vocabulary from the training pairs, SIF weights, a token table trained with a
 *      contrastive loss (in-batch negatives, symmetric InfoNCE) between the description's
 *      and the code's weighted-mean vectors; serialized by lp_embed_model_serialize.
 *   3. eval: on pairs of held-out packages, MRR of description -> code among up to 1,000
 *      candidates for the shipped (quantized) model and for BM25 in the same run.
 *
 * Determinism: given the same pairs file and seed, the model bytes are identical, whatever
 * the thread count (every reduction has a fixed order; threads own disjoint rows).
 */
#ifndef LP_TRAIN_H
#define LP_TRAIN_H

#include "core/core.h"
#include "embed/embed_int.h"
#include "lang/lang.h"

/* ------------------------------------------------------------------------------------------
 * Pairs. */
typedef struct lp_pair {
    uint8_t lang;  /* lp_lang */
    bool heldout;  /* from a held-out unit: evaluation only */
    uint32_t unit; /* index into lp_pairs.units */
    char *desc;    /* owned by the pairs' arena */
    uint32_t desc_len;
    char *code;
    uint32_t code_len;
} lp_pair;

typedef struct lp_pairs {
    lp_arena arena;
    LP_VEC(lp_pair) items;
    LP_VEC(char *) units; /* corpus units ("python3-sympy", "openjdk-17-source:java.sql") */
} lp_pairs;

void lp_pairs_init(lp_pairs *p);
void lp_pairs_release(lp_pairs *p);
uint32_t lp_pairs_unit(lp_pairs *p, const char *name); /* index, added when new */
void lp_pairs_add(lp_pairs *p, uint32_t unit, lp_lang lang, lp_str desc, lp_str code);
/* Binary file: "LPPAIRS1", unit count, units, pair count, pairs. */
lp_status lp_pairs_write(const lp_pairs *p, const char *path, lp_error *err);
lp_status lp_pairs_read(lp_pairs *p, const char *path, lp_error *err);

#define LP_PAIR_DESC_MAX 480  /* bytes of a description */
#define LP_PAIR_CODE_MAX 3000 /* bytes of code */

/* The description of a doc comment: comment markers and docstring quotes removed, the first
 * paragraph only, cut before parameter/return sections and examples; whitespace collapsed.
 * Appends to out; returns the number of words. */
size_t lp_train_clean_doc(lp_str doc, lp_buf *out);
/* True when a description is boilerplate that says nothing about the code ("{@inheritDoc}",
 * "TODO", "DO NOT EDIT", "Deprecated."...). */
bool lp_train_doc_is_boilerplate(lp_str desc);

/* Pairs of one parsed file: every documented definition (function, method, constructor,
 * class-like, macro, type alias; declarations too) that is not a test. Code is the
 * qualified name, a newline, then the symbol's span with the doc removed when it lies
 * inside (Python docstrings), cut at LP_PAIR_CODE_MAX bytes on a line end; spans under 40
 * bytes are skipped. Returns the number added. */
size_t lp_train_pairs_from_parse(lp_pairs *p, uint32_t unit, lp_str content,
                                 const lp_parse_result *pr);

/* Extract from a list file of "unit<TAB>path" lines: files are parsed by `threads` threads
 * and their pairs appended in list order (deterministic). Pairs whose code repeats an earlier
 * pair's code are dropped. heldout_units: comma-separated unit names marked held out. */
typedef struct lp_extract_stats {
    uint64_t files, parsed, failed, pairs, dupes;
    uint64_t per_lang[LP_LANG_COUNT];
} lp_extract_stats;
lp_status lp_train_extract(const char *list_path, const char *heldout_units, unsigned threads,
                           lp_pairs *out, lp_extract_stats *stats, lp_error *err);

/* ------------------------------------------------------------------------------------------
 * Training. */
typedef struct lp_train_opts {
    uint64_t seed;
    unsigned threads;
    uint32_t dim; /* 128..256 */
    uint32_t vocab_max;
    uint32_t min_count;
    uint32_t buckets;
    uint32_t ngram_min, ngram_max;
    double sif_a;
    uint32_t epochs;
    uint32_t batch;
    double lr;
    double temperature;
    unsigned tok_options;
    bool learn_weights; /* learn each token's pooling weight (initialized from SIF) */
    double dropout;     /* fraction of features dropped per training step */
    double anchor;      /* decoupled decay of each row toward its initial value (per lr) */
    bool quiet;
    /* Start from this model (a distilled table) instead of random rows: its vocabulary,
     * weights, buckets, n-gram range and dim are kept (dim, vocab_max, min_count, buckets
     * and sif_a are then ignored) and its rows are the initial values (and the anchor). */
    const lp_embed_model *init;
} lp_train_opts;

void lp_train_opts_default(lp_train_opts *o);

typedef struct lp_train_stats {
    uint64_t train_pairs, heldout_pairs;
    uint64_t per_lang_train[LP_LANG_COUNT];
    uint32_t vocab;
    double seconds;
    double final_loss;
} lp_train_stats;

/* Train on the pairs that are not held out and serialize the model into model_out. */
lp_status lp_train_run(const lp_pairs *pairs, const lp_train_opts *opts, lp_buf *model_out,
                       lp_train_stats *stats, lp_error *err);

/* The vocabulary training would use (same order, same counts), written as a TSV for the
 * teacher distillation (tools/teacher): a first line "#total<TAB>N" (all token occurrences
 * counted, in or out of the vocabulary), then one line per row: token<TAB>count<TAB>surface,
 * where surface is the token's most frequent source spelling (as written, before folding
 * and stemming; tabs and newlines become spaces). */
lp_status lp_train_vocab_dump(const lp_pairs *pairs, const lp_train_opts *opts, const char *path,
                              lp_error *err);
/* The same, then general-English words appended: words (one per line, most frequent first,
 * as a teacher's word list orders them) go through the model's tokenizer; each token not yet
 * in the vocabulary is added with the word as its spelling and a Zipf count
 * total * 0.1 / rank (English word frequencies follow p(r) ~ 0.1 / r), at most max_extra. */
lp_status lp_train_vocab_dump_extra(const lp_pairs *pairs, const lp_train_opts *opts,
                                    const char *words_path, uint32_t max_extra, const char *path,
                                    lp_error *err);

/* Assemble a model from a vocabulary TSV (lp_train_vocab_dump's format) and float32 rows
 * (vocab x dim, little-endian, row-major: the distilled table). Token weights are SIF
 * a/(a+p) from the counts; every n-gram bucket row is the mean of the rows of the vocabulary
 * tokens whose "<token>" contains that n-gram (so a word outside the vocabulary lands near
 * the words that share its pieces). opts gives sif_a, buckets and the n-gram range. */
lp_status lp_train_assemble(const char *vocab_tsv, const char *rows_path, uint32_t dim,
                            const lp_train_opts *opts, lp_buf *model_out, lp_error *err);

/* ------------------------------------------------------------------------------------------
 * Evaluation. */
typedef struct lp_eval_result {
    uint32_t lang;    /* lp_lang, or LP_LANG_COUNT for "all languages mixed" */
    uint32_t queries; /* = candidates */
    double mrr_model, mrr_bm25;
    double r1_model, r1_bm25; /* recall@1 */
    double r10_model, r10_bm25;
    double mrr_fused, r1_fused, r10_fused; /* reciprocal-rank fusion of the two (k = 60) */
} lp_eval_result;

/* Evaluate model (serialized bytes) on the held-out pairs: per language with at least
 * min_pairs pairs (up to max_candidates each, chosen deterministically), plus a mixed set.
 * Writes up to cap results; returns how many. */
size_t lp_train_eval(const lp_pairs *pairs, const uint8_t *model, size_t model_len,
                     uint32_t max_candidates, uint32_t min_pairs, unsigned threads,
                     lp_eval_result *out, size_t cap, lp_error *err);

#endif
