/*
 * search_int.h: internals shared by the files of src/search (not a public contract).
 *
 * A search gathers candidates from its channels (exact, lexical, dense), each a ranked list
 * of chunks or symbols already joined with their owner, file and language; fuses them per
 * owner (weighted reciprocal rank, one vote per owner per channel); reranks the top; and
 * turns the best into groups.
 */
#ifndef LP_SEARCH_INT_H
#define LP_SEARCH_INT_H

#include "search/search.h"
#include "core/settings.h"

#include "lang/lang.h"
#include "text/text.h"

/* Channel switches (LOUPE_SEARCH_CHANNELS: comma list of lexical, exact, dense, rerank). */
#define LP_SW_LEXICAL 0x1u
#define LP_SW_EXACT 0x2u
#define LP_SW_DENSE 0x4u
#define LP_SW_RERANK 0x8u
#define LP_SW_DEFAULT (LP_SW_LEXICAL | LP_SW_EXACT | LP_SW_RERANK)

/* The lexical query: groups of FTS5 phrases (a query word and its synonyms); only the
 * strongest phrase of a group counts for a chunk. */
#define LP_LEX_MAX_GROUPS 32
#define LP_LEX_MASK_GROUPS 16 /* doc coverage is tracked for the first 16 groups */
#define LP_LEX_MAX_PHRASES 128
#define LP_LEX_SHORT_TERMS 16 /* more terms than this: long text, terms are selected */

/* A term of the question: a phrase, a sym: value, a word, or a part or the whole of a
 * hyphenated or slashed word; counted once per occurrence. */
#define LP_LEX_TERM_PHRASE 0x1u
#define LP_LEX_TERM_SYM 0x2u
#define LP_LEX_TERM_WHOLE 0x4u /* the whole of a hyphenated word (a phrase of its parts) */
#define LP_LEX_TERM_NOISE 0x8u /* a number, hex literal or version: never selected from long text */
typedef struct lp_lex_term {
    const char *text; /* as written (arena) */
    const char *key;  /* folded text (arena) */
    unsigned flags;
    uint32_t count; /* occurrences in the question */
    uint32_t first; /* position of the first one (item order) */
} lp_lex_term;

typedef struct lp_lex_query {
    lp_lex_term *terms; /* arena; stop-word-only terms removed */
    size_t nterms;
    bool long_text; /* more than LP_LEX_SHORT_TERMS terms: selected by document frequency */
    bool pending;   /* groups not built yet (long text before lp_lex_query_select) */
    lp_buf match; /* FTS5 expression: "p0" OR "p1" OR ... */
    lp_buf spec;  /* loupe_rank spec: per phrase "group:weight" (see rank.c) */
    size_t ngroups;
    size_t nphrases;
    /* Per group: the folded stems of its literal word (for coverage in the reranker),
     * space separated, and its synonyms' stems with their weight. */
    const char *stems[LP_LEX_MAX_GROUPS];
    const char *syn_stems[LP_LEX_MAX_GROUPS];
    float syn_weight[LP_LEX_MAX_GROUPS];
    bool about_tests; /* a word asks about tests */
    /* Every phrase, in order: its text (arena), group and weight. */
    const char *phrase_text[LP_LEX_MAX_PHRASES];
    int phrase_group[LP_LEX_MAX_PHRASES];
    float phrase_weight[LP_LEX_MAX_PHRASES];
    bool phrase_literal[LP_LEX_MAX_PHRASES]; /* the term itself, not a synonym */
    /* Long text: how many terms were selected of nterms, and how many matched nothing. */
    size_t nselected, nunindexed;
} lp_lex_query;

/* text as one FTS5 phrase ("..." with quotes doubled) appended to match. */
void lp_lex_put_phrase(lp_buf *match, const char *text);
/* Keep only the phrases whose keep[i] is true: rebuilds match and spec. */
void lp_lex_query_keep(lp_lex_query *lq, const bool *keep);

/* Collect q's terms; for a short question build the groups (one per term, in order, with
 * synonyms); for long text leave them pending. */
void lp_lex_query_build(const lp_search_query *q, lp_arena *arena, lp_lex_query *out);
/* Build the groups from the terms order[0..n) (best first; synonyms only for a short
 * question; long text weighs a term by its count in the question). */
void lp_lex_query_use_terms(lp_lex_query *lq, lp_arena *arena, const size_t *order, size_t n);
void lp_lex_query_release(lp_lex_query *lq);

/* Register loupe_rank on a connection (once; harmless when present). SQLite result code. */
int lp_search_rank_register(sqlite3 *db);

/* One candidate: a chunk (lexical, dense) or a symbol (exact) with its owner and file. */
typedef struct lp_cand {
    int64_t bid;
    int32_t owner;          /* symbol ord, -1 for a file region */
    uint32_t cstart, cend;  /* chunk lines (the symbol's lines for an exact hit) */
    const char *path;       /* arena */
    int lang;
    const char *name, *qname; /* arena, NULL without an owner */
    int kind;                 /* lp_symkind, -1 without an owner */
    uint64_t skey;
    uint32_t ostart, oend; /* owner lines */
    uint32_t flags;        /* symbol flags */
    double score;          /* channel score (higher is better) */
    uint64_t cover;        /* lexical: doc coverage mask, bit g = group g in the doc */
    int tier;              /* exact: 0 qualified, 1 name, 2 folded */
} lp_cand;

typedef LP_VEC(lp_cand) lp_cand_vec;

/* Prunes lq's most common phrases first (see channels.c), then runs it. */
lp_status lp_channel_lexical(lp_store *st, lp_lex_query *lq, size_t limit, lp_arena *arena,
                             lp_cand_vec *out, lp_error *err);
lp_status lp_channel_exact(lp_store *st, const lp_search_query *q, lp_arena *arena,
                           lp_cand_vec *out, lp_error *err);
/* Files the question names (q->hints): the exact, then the lexical candidates in them (in
 * their channel's order), then their top-level symbols. */
lp_status lp_channel_path(lp_store *st, const lp_search_query *q, const lp_cand_vec *exact,
                          const lp_cand_vec *lex, lp_arena *arena, lp_cand_vec *out,
                          lp_error *err);
/* Files the question's "area: subject" prefix names (lp_search_query.area; folders and
 * file names compared squashed and stemmed; at most 64 files or a quarter of all): the
 * exact, then the lexical candidates in them, in their channel's order. */
lp_status lp_channel_area(lp_store *st, const lp_search_query *q, const lp_cand_vec *exact,
                          const lp_cand_vec *lex, lp_arena *arena, lp_cand_vec *out,
                          lp_error *err);
/* A query of filters only (path: globs, lang:, kind:; no words): the files they match in
 * path order, each a listed file group (listing.c). */
lp_status lp_search_list_files(lp_store *st, const lp_search_query *q,
                               const lp_search_request *req, lp_arena *arena,
                               lp_search_result *out, lp_error *err);
/* Whether a file passes q's path:/-path:/lang: filters and an explicit tests or docs scope
 * (the rule of listings and regex scans: a path glob is explicit about what to read). */
bool lp_search_file_admitted(const lp_search_query *q, lp_search_scope scope, const char *path,
                             int lang);
/* regex:PATTERN (regex.c): the lines it matches in the indexed text of the admitted files,
 * in path and line order, each with its innermost owner; bounded by LP_REGEX_BUDGET_MS of
 * wall time and PCRE2's match and depth limits (warnings say what was not read). */
#define LP_REGEX_BUDGET_MS 3000u
lp_status lp_search_regex(lp_store *st, const lp_search_query *q, const lp_search_request *req,
                          lp_arena *arena, lp_search_result *out, lp_error *err);
/* Chunk ids to candidates, in the order given. */
lp_status lp_channel_chunks(lp_store *st, const int64_t *cids, const float *scores, size_t n,
                            lp_arena *arena, lp_cand_vec *out, lp_error *err);

/* Ranking weights. The defaults are the tuned ones (docs/decisions/0003-search-fusion.md);
 * LOUPE_SEARCH_TUNE="name=value,..." overrides any of them, for tuning runs only. */
typedef struct lp_search_tuning {
    double col[4];             /* BM25F column weights: name, crumbs, doc, body */
    double k1, b;              /* BM25F */
    double w_exact, w_lexical, w_dense, w_path, w_area; /* RRF channel weights */
    double lex;                /* rerank: normalized lexical score */
    double name, qname, path, doc, exact, def; /* rerank features */
    double demote_test, demote_text;           /* runtime scope multipliers */
    double syn;                /* synonym weight multiplier */
    double container;          /* rerank: penalty of a type (class, struct, ...) owner */
    double budget;             /* lexical: rows the rarest phrases may match (see channels.c) */
    double long_rows;   /* long text: rows the selected terms may match (channels.c) */
    double long_groups; /* long text: at most this many terms (<= LP_LEX_MAX_GROUPS) */
    double long_common; /* long text: a term in more than this share of rows (at most 2,000
                           rows) weighs 0.1 */
} lp_search_tuning;
const lp_search_tuning *lp_search_tuning_get(void);

/* Tuning overrides from the environment, for tuning runs only: env holds "name=value,...";
 * each known name sets the double at base + off (with nonneg, only values >= 0); unknown
 * names and malformed items are ignored. */
typedef struct lp_tune_field {
    const char *name;
    size_t off;
} lp_tune_field;
void lp_search_tune_env(lp_setting_id env, const lp_tune_field *fields, size_t n, void *base,
                        bool nonneg);

/* The curated programming synonym table (synonyms.c): expansions of a folded word, best
 * weight first; returns how many were written (at most cap). */
typedef struct lp_code_syn {
    const char *word;
    float weight;
} lp_code_syn;
size_t lp_code_synonyms(lp_str word, lp_code_syn *out, size_t cap);
/* Abbreviations (synonyms.c): the long forms of a short word and the short forms of a long
 * one (buf <-> buffer, cfg -> config, configuration), weight 0.8; also found through the
 * word's stem ("buffers" -> buf). Used by fallback.c for words the index lacks. */
size_t lp_code_abbrevs(lp_str word, lp_code_syn *out, size_t cap);

/* Fallbacks that keep a real question from finding nothing (fallback.c): for the words the
 * index lacks, abbreviations, compounds with a neighbour ("ring buffer" -> ringbuf),
 * segmentation, prefix and typo matches against the index's vocabulary, added to lq as
 * phrases of the words' groups. A query whose words are all indexed is left as it is. Runs inside the
 * caller's pin, before the lexical channel; never fails a search (no vocabulary: nothing
 * added). out's memory lives in arena. */
typedef struct lp_fallback {
    struct lp_fallback_state *state; /* NULL when nothing was looked up */
    size_t nadded;                   /* phrases added to lq */
} lp_fallback;
lp_status lp_search_fallback(lp_store *st, lp_lex_query *lq, lp_arena *arena, lp_fallback *out,
                             lp_error *err);
/* The words_not_indexed warning ("code: text", arena) given the channels' candidate counts,
 * or NULL: set when a word of the question is not in the index and a fallback stood in for
 * it, or when exact and lexical found nothing (then it says whether dense answered). */
const char *lp_search_fallback_warning(const lp_fallback *fb, size_t nlexical, size_t nexact,
                                       size_t ndense, lp_arena *arena);
/* False when LOUPE_FALLBACK="off:<part>,..." turns part (compound, segment, prefix, typo,
 * abbrev) off; for ablations. */
bool lp_search_fallback_on(const char *part);

/* File roles of one search's candidates (roles.c): path rules, the blobs' content flags
 * and the publication's .gitattributes, cached per (bid, path). lp_roles_new borrows st
 * (pinned by the caller) for its lifetime; caller frees with lp_roles_free. */
typedef struct lp_roles lp_roles;
lp_roles *lp_roles_new(lp_store *st);
void lp_roles_free(lp_roles *r);
uint32_t lp_roles_of(lp_roles *r, int64_t bid, const char *path, const char *qname);
/* The runtime scope's multiplier of an owner with these roles: tests by demote_test unless
 * about_tests; foreign code (LP_ROLE_FOREIGN) hardest unless spare_foreign (an exact hit
 * on a name nothing else defines); project meta and examples below code. */
double lp_roles_factor(uint32_t roles, bool about_tests, bool spare_foreign, double demote_test);

/* ------------------------------------------------------------------------------------------
 * Confidence (confidence.c): what lp_search_run hands over about an answer. */
#define LP_CONF_TOP 5
typedef struct lp_conf_input {
    double score[LP_CONF_TOP]; /* the best final scores, best first */
    size_t nscores;
    double top_cover;    /* fraction of query word groups in the top owner's span text */
    double top5_cover;   /* the same for the union of the top LP_CONF_TOP owners' spans */
    double top_name_cover; /* the top owner's qualified name and path */
    double top_doc_cover;  /* the top owner's doc comment (lexical coverage mask) */
    uint32_t top_channels; /* LP_CH_* of the top owner */
    int top_exact_tier;    /* 0 qualified, 1 name, 2 folded, 3 none */
    double top_lex;        /* the top owner's raw lexical score */
    size_t ngroups;        /* query word groups */
    size_t nowners;        /* owners admitted by the filters and scope */
} lp_conf_input;

/* Coverage of lq's word groups by the lines [from, to] of text (1-based, at most
 * LP_CONF_SPAN_LINES of them): per group 1 when every stem of the literal word occurs, the
 * synonym weight when a synonym does, else 0; the mean over groups. When seen is not NULL,
 * the groups found are OR-ed into it (bit g) and the return is over the union. */
#define LP_CONF_SPAN_LINES 400u
double lp_conf_span_cover(lp_text_tokenizer *tk, const lp_lex_query *lq, lp_str text,
                          uint32_t from, uint32_t to, uint64_t *seen);

/* The features of in, the model's confidence, and the no_confident_match warning when it
 * is below the threshold, into res (warnings arena-owned). */
void lp_search_confidence(const lp_conf_input *in, lp_search_result *res, lp_arena *arena);

#endif
