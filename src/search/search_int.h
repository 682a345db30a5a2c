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

#include "lang/lang.h"

/* Channel switches (LOUPE_SEARCH_CHANNELS: comma list of lexical, exact, dense, rerank). */
#define LP_SW_LEXICAL 0x1u
#define LP_SW_EXACT 0x2u
#define LP_SW_DENSE 0x4u
#define LP_SW_RERANK 0x8u
#define LP_SW_DEFAULT (LP_SW_LEXICAL | LP_SW_EXACT | LP_SW_RERANK)

/* The lexical query: groups of FTS5 phrases (a query word and its synonyms); only the
 * strongest phrase of a group counts for a chunk. */
#define LP_LEX_MAX_GROUPS 16
#define LP_LEX_MAX_PHRASES 128
typedef struct lp_lex_query {
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
} lp_lex_query;

/* Keep only the phrases whose keep[i] is true: rebuilds match and spec. */
void lp_lex_query_keep(lp_lex_query *lq, const bool *keep);

void lp_lex_query_build(const lp_search_query *q, lp_arena *arena, lp_lex_query *out);
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
/* Chunk ids to candidates, in the order given. */
lp_status lp_channel_chunks(lp_store *st, const int64_t *cids, const float *scores, size_t n,
                            lp_arena *arena, lp_cand_vec *out, lp_error *err);

/* Ranking weights. The defaults are the tuned ones (docs/decisions/0003-search-fusion.md);
 * LOUPE_SEARCH_TUNE="name=value,..." overrides any of them, for tuning runs only. */
typedef struct lp_search_tuning {
    double col[4];             /* BM25F column weights: name, crumbs, doc, body */
    double k1, b;              /* BM25F */
    double w_exact, w_lexical, w_dense; /* RRF channel weights */
    double lex;                /* rerank: normalized lexical score */
    double name, qname, path, doc, exact, def; /* rerank features */
    double demote_test, demote_text;           /* runtime scope multipliers */
    double syn;                /* synonym weight multiplier */
    double container;          /* rerank: penalty of a type (class, struct, ...) owner */
    double budget;             /* lexical: rows the rarest phrases may match (see channels.c) */
} lp_search_tuning;
const lp_search_tuning *lp_search_tuning_get(void);

/* The curated programming synonym table (synonyms.c): expansions of a folded word, best
 * weight first; returns how many were written (at most cap). */
typedef struct lp_code_syn {
    const char *word;
    float weight;
} lp_code_syn;
size_t lp_code_synonyms(lp_str word, lp_code_syn *out, size_t cap);

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

#endif
