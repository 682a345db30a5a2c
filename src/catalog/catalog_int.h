/*
 * catalog_int.h: what the files of src/catalog share (not part of the contract).
 *
 *   util.c    error codes, limits, parameters, token estimate, JSON text helpers
 *   json.c    strict one-pass JSON parser into an arena tree (values and byte ranges)
 *   jscan.c   byte ranges of JSON values (the exact source bytes of each definition)
 *   parse.c   shapes, provider adapters, field extraction, bounded schema traversal
 *   index.c   dictionary, postings, trigram index, transactional add/replace/remove
 *   search.c  BM25F ranking, expansions, filters, budgets, fusion, result JSON
 *   dense.c   the dense channel: tool vectors, the slot matrix, query scores
 *   words.c   the word channel (general-English word vectors): model file, tool vectors,
 *             the slot matrix, query scores; words_blob.c carries the built-in model
 *   mcp.c     the search_tools MCP tool
 */
#ifndef LP_CATALOG_INT_H
#define LP_CATALOG_INT_H

#include "catalog/catalog.h"
#include "embed/embed.h"
#include "text/text.h"

#define NF LP_CATALOG_NFIELDS

/* Fill err with "<code>: <message>" and return the code's status. */
lp_status lp_cat_fail(lp_error *err, lp_catalog_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Fill defaults into *l and check maxima (invalid_limit). */
lp_status lp_cat_limits_resolve(lp_catalog_limits *l, lp_error *err);

/* ------------------------------------------------------------------------------------------
 * JSON text helpers. */

/* Append s as a JSON string literal (quotes, escapes; invalid UTF-8 bytes become U+FFFD). */
void lp_cat_json_str(lp_buf *out, lp_str s);
/* Line and column (1-based) of byte offset off in s. */
void lp_cat_line_col(const char *s, size_t len, size_t off, size_t *line, size_t *col);

/* ------------------------------------------------------------------------------------------
 * json.c: a strict JSON parser into an arena tree. It accepts a subset of what jansson
 * accepts with JSON_REJECT_DUPLICATES | JSON_DECODE_ANY and gives the same values; when it
 * refuses, the caller asks jansson (for the error message, or for a value this parser
 * refused conservatively). No error messages of its own. */
typedef enum lp_json_type {
    LP_JSON_NULL,
    LP_JSON_FALSE,
    LP_JSON_TRUE,
    LP_JSON_NUMBER,
    LP_JSON_STRING,
    LP_JSON_ARRAY,
    LP_JSON_OBJECT
} lp_json_type;

typedef struct lp_json_pair lp_json_pair;
typedef struct lp_json {
    uint8_t type;        /* lp_json_type */
    uint32_t n;          /* string: decoded bytes; array, object: members */
    uint32_t start, end; /* [start, end) of the value in the parsed text */
    uint32_t ws, st;     /* array, object: whitespace bytes outside strings and structural
                          * characters (quotes, brackets, colons, commas) in the range */
    union {
        const char *str;     /* decoded, NUL-terminated (never holds a NUL) */
        struct lp_json *items;
        lp_json_pair *pairs; /* in document order */
    };
} lp_json;
struct lp_json_pair {
    const char *key; /* decoded, NUL-terminated */
    uint32_t klen;
    lp_json val;
};

/* Deeper nesting is refused (jansson's own limit is 2048). */
#define LP_JSON_MAX_DEPTH 1000
/* Accept any number and any depth (the text is known valid: jansson accepted it). */
#define LP_JSON_TRUSTED 1u
/* Parse all of [s, s + len) (one value, whitespace around it). Nodes and strings go to the
 * arena (valid until it is rewound); offsets are relative to s. NULL when the text is not
 * valid JSON, is refused conservatively, or the tree would take more than max_tree bytes
 * of the arena (0 = no cap). */
lp_json *lp_json_parse(lp_arena *a, const char *s, size_t len, unsigned flags, size_t max_tree);
/* Member of an object by key; NULL if absent or obj is not an object. */
const lp_json *lp_json_get(const lp_json *obj, const char *key);
/* lp_catalog_estimate_tokens of the bytes of an array or object, from the parse counts. */
size_t lp_json_estimate_tokens(const lp_json *v);

/* ------------------------------------------------------------------------------------------
 * jscan: byte ranges of values in a document that jansson has already validated. All
 * functions stay inside [0, len) whatever the input. */
typedef struct lp_jrange {
    size_t start, end; /* [start, end) of one JSON value, no surrounding whitespace */
} lp_jrange;
typedef LP_VEC(lp_jrange) lp_jrange_vec;

/* Range of the value starting at the first non-space byte at or after pos. */
bool lp_jscan_value(const char *s, size_t len, size_t pos, lp_jrange *out);
/* Ranges of the elements of the array at r (which must span exactly one array); false if
 * the skeleton is malformed. */
bool lp_jscan_array(const char *s, size_t len, lp_jrange r, lp_jrange_vec *out);
/* Range of the member value with this key in the object at r; false if absent. */
bool lp_jscan_member(const char *s, size_t len, lp_jrange r, const char *key, lp_jrange *out);
typedef struct lp_jmember {
    lp_jrange key; /* the key's string literal, quotes included */
    lp_jrange value;
} lp_jmember;
typedef LP_VEC(lp_jmember) lp_jmember_vec;
/* Members of the object at r (which must span exactly one object); false if the skeleton
 * is malformed. */
bool lp_jscan_object(const char *s, size_t len, lp_jrange r, lp_jmember_vec *out);
/* Does the member's key decode to key (ASCII keys only)? */
bool lp_jscan_key_is(const char *s, lp_jmember m, const char *key);

/* ------------------------------------------------------------------------------------------
 * A document: one tool, prepared by parse.c, indexed by index.c. */
typedef struct lp_cat_pterm {
    uint64_t hash; /* lp_hash64_of(text) */
    uint32_t off;  /* into doc->term_text */
    uint16_t len;
    uint8_t tf[NF]; /* saturating counts */
    uint8_t whole;  /* every occurrence was a whole identifier (LP_TEXT_TOK_WHOLE) */
} lp_cat_pterm;

typedef struct lp_cat_dterm {
    uint32_t term;  /* dictionary id */
    uint8_t tf[NF];
} lp_cat_dterm;

typedef struct lp_cat_doc {
    lp_catalog_tool pub;    /* strings below are owned by the doc */
    char *strings;          /* one block: id, name, ns, title, description, group, source */
    char **tags;            /* owned, pub.tags points here */
    char **aliases;
    char *def;              /* copy of the definition bytes */
    char *squash_name;      /* squashed local name ("createissue") */
    char *squash_full;      /* squashed name as given, with its prefix */
    char *squash_ns;        /* squashed namespace */
    uint32_t flen[NF];      /* field lengths in tokens */
    /* Prepared terms (a batch document); freed when indexed. */
    lp_cat_pterm *pterms;
    uint32_t npterms;
    char *term_text;
    /* Indexed terms (a catalog document). */
    lp_cat_dterm *dterms;
    uint32_t ndterms;
    uint32_t slot;
    /* The tool's stored vector (LP_EMBED_VEC_BYTES(dim) bytes) while the doc is outside the
     * index (in a batch, or removed by a transaction that may still undo); NULL while it is
     * indexed (the vector is then row `slot` of the catalog's matrix) or when it has none. */
    uint8_t *vec;
    uint8_t *wvec; /* the same for the word channel (words.c) */
    size_t mem; /* approximate heap bytes held */
} lp_cat_doc;

void lp_cat_doc_free(lp_cat_doc *d);

struct lp_catalog_batch {
    LP_VEC(lp_cat_doc *) docs;
    LP_VEC(char *) warnings;
    char *group;
    char *source;
};

/* ------------------------------------------------------------------------------------------
 * The index. */
typedef struct lp_cat_posting {
    uint32_t doc; /* slot */
    uint8_t tf[NF];
    uint8_t pad[2];
} lp_cat_posting;

typedef struct lp_cat_term {
    uint32_t off; /* into cat->text */
    uint16_t len;
    uint16_t pad;
    uint32_t mark; /* scratch stamp for batch operations */
    uint32_t df;   /* == npost */
    uint32_t npost, cap;
    lp_cat_posting *post;
} lp_cat_term;

typedef struct lp_cat_tri {
    uint32_t key; /* trigram + 1 (0 marks an empty slot) */
    uint32_t n, cap;
    uint32_t *terms;
} lp_cat_tri;

struct lp_catalog {
    lp_catalog_limits limits;
    lp_catalog_params params;
    /* Documents by slot (NULL = free slot). */
    LP_VEC(lp_cat_doc *) slots;
    LP_VEC(uint32_t) free_slots;
    size_t ndocs;
    /* id -> slot: open addressing, UINT32_MAX = empty. */
    uint32_t *id_table;
    size_t id_cap;
    /* Dictionary: term ids index terms; text holds term bytes; term_table maps hash -> id. */
    LP_VEC(lp_cat_term) terms;
    LP_VEC(char) text;
    uint32_t *term_table;
    size_t term_cap;
    /* Trigram -> term ids (terms of 3+ bytes), open addressing on key. */
    lp_cat_tri *tri;
    size_t tri_cap, tri_used;
    /* Totals for BM25F. */
    uint64_t field_total[NF];
    size_t definition_bytes;
    size_t postings;
    size_t fail_insert_at; /* test hook */
    uint32_t mark;         /* last stamp used in terms[].mark */
    /* BM25F length normalization, 1 / (1 - b + b * len / avg), per slot and field;
     * refreshed after every mutation so searches only read it. */
    float *inv_norm;
    size_t inv_norm_slots;
    /* Dense channel: the model (borrowed, process-wide; NULL = no channel, dense_note says
     * why) and one int8 row per slot with its scale (0 = free slot or no vector). */
    const lp_embed_model *model;
    uint32_t dim;
    char dense_note[LP_ERROR_MSG_MAX];
    int8_t *dmat;
    float *dscale;
    size_t dcap;
    /* Word channel (words.c): the model (borrowed, process-wide; NULL = no channel,
     * words_note says why) and one int8 row per slot with its scale, as above. */
    const struct lp_cat_words *words;
    /* The same model as an English dictionary (the prefix rule, search.c); set whenever the
     * model is loaded, even with the word channel off. */
    const struct lp_cat_words *dict;
    char words_note[LP_ERROR_MSG_MAX];
    int8_t *wmat;
    float *wscale;
    size_t wcap;
};

/* dense.c */
void lp_cat_dense_init(lp_catalog *cat); /* in lp_catalog_new: load the model if asked */
void lp_cat_dense_release(lp_catalog *cat);
void lp_cat_dense_put(lp_catalog *cat, lp_cat_doc *d);  /* index: d->vec -> row d->slot */
void lp_cat_dense_take(lp_catalog *cat, lp_cat_doc *d); /* unindex: row d->slot -> d->vec */
size_t lp_cat_dense_memory(const lp_catalog *cat);
/* Cosine of the query with every slot into scores[cat->slots.len] (0 for free slots and
 * tools without a vector). False when the channel is absent or the query has no token the
 * model knows; *why is then a warning code or NULL (no known token). */
bool lp_cat_dense_scores(const lp_catalog *cat, lp_str query, float *scores, const char **why);

/* words.c: the word channel (general-English word vectors; file layout there). */
typedef struct lp_cat_words lp_cat_words;
/* Check and use size bytes at p (4-byte aligned, kept alive by the caller) as a model; name
 * is for messages. LP_EINVAL with a message saying what is wrong and what to do. */
lp_status lp_cat_words_open(const void *p, size_t size, const char *name, lp_cat_words *m,
                            lp_error *err);
/* mmap the file at path and open it; *out is freed with lp_cat_words_close. */
lp_status lp_cat_words_load(const char *path, lp_cat_words **out, lp_error *err);
void lp_cat_words_close(lp_cat_words *m);
uint32_t lp_cat_words_dim(const lp_cat_words *m);
uint32_t lp_cat_words_rows(const lp_cat_words *m);
/* Row of a term (hash = lp_hash64_of(term)), UINT32_MAX if absent. */
uint32_t lp_cat_words_lookup(const lp_cat_words *m, uint64_t hash, lp_str term);
void lp_cat_words_init(lp_catalog *cat); /* in lp_catalog_new: the default model if asked */
void lp_cat_words_release(lp_catalog *cat);
void lp_cat_words_put(lp_catalog *cat, lp_cat_doc *d);  /* index: d->wvec -> row d->slot */
void lp_cat_words_take(lp_catalog *cat, lp_cat_doc *d); /* unindex: row d->slot -> d->wvec */
size_t lp_cat_words_memory(const lp_catalog *cat);
/* Parse side: a per-parse term cache (NULL: no word channel). Embed a prepared doc (its
 * pterms) into d->wvec (NULL when no term has a vector). */
typedef struct lp_cat_words_prep lp_cat_words_prep;
lp_cat_words_prep *lp_cat_words_prep_new(const lp_catalog *cat);
void lp_cat_words_prep_free(lp_cat_words_prep *wp);
void lp_cat_words_embed_doc(lp_cat_words_prep *wp, const lp_catalog_params *P, lp_cat_doc *d);
/* Cosine of the query with every slot, as lp_cat_dense_scores (*why: word_channel_absent). */
bool lp_cat_words_scores(const lp_catalog *cat, lp_str query, float *scores, const char **why);

/* request_words.c (generated) and search.c: how generic a request word is. */
typedef struct lp_cat_request_word {
    const char *word; /* lowercase, as written */
    float fraction;   /* of the tools whose requests use it */
} lp_cat_request_word;
extern const lp_cat_request_word lp_cat_request_words[];
extern const size_t lp_cat_request_word_count;
/* The fraction for a folded, stemmed query term (the table's words stemmed alike; the
 * largest fraction when several words share a stem); 0 for a word not in the table. */
float lp_cat_request_fraction(lp_str term);
/* The weight of a query term: 1 / (1 + request_alpha * (fraction - request_floor)) above
 * the floor, else 1 (see lp_catalog_params). */
double lp_cat_request_weight(const lp_catalog_params *P, lp_str term);

/* search.c: cut a request into intents at the joints of params.intent_joints (at most max
 * parts, slices of text); returns how many (1 = one intent: no cut). Every part has at
 * least params.intent_min plain query terms: a short piece takes the pieces after it (the
 * last, the part before it), so "find cheap flights and hotels" stays one request. */
#define LP_CAT_MAX_INTENTS 4
size_t lp_cat_split_intents(const lp_catalog *cat, lp_str text, lp_str *parts, size_t max);

/* search.c: recompute inv_norm (called at the end of every mutation). */
void lp_cat_refresh_norms(lp_catalog *cat);

/* index.c */
uint32_t lp_cat_term_lookup(const lp_catalog *cat, lp_str text); /* UINT32_MAX if absent */
static inline lp_str lp_cat_term_text(const lp_catalog *cat, uint32_t id)
{
    return (lp_str){cat->text.items + cat->terms.items[id].off, cat->terms.items[id].len};
}
/* Term ids sharing trigrams with q; see search.c for use. */
const lp_cat_tri *lp_cat_tri_get(const lp_catalog *cat, uint32_t trigram);

/* parse.c: prepare one definition (value v at bytes [r.start, r.end) of s). */
typedef struct lp_cat_parse_ctx {
    const lp_catalog_limits *limits;
    const char *source;
    const char *server;
    const char *group;
    const char *s; /* the whole document */
    size_t len;
    size_t index;    /* entry number, for messages */
    size_t line_off; /* where() has counted lines up to this offset ... */
    size_t line;     /* ... and this is the line there (1-based) */
    lp_catalog_provider forced; /* LP_CATALOG_GENERIC = detect */
    lp_text_tokenizer *code_tk, *prose_tk, *schema_tk, *squash_tk;
    void *scratch; /* parse.c's per-document scratch buffers */
    const lp_catalog_params *params;
    struct lp_cat_dense_prep *dense; /* NULL: the catalog has no dense channel */
    struct lp_cat_words_prep *words; /* NULL: no word channel */
} lp_cat_parse_ctx;

/* dense.c, parse side: a per-parse embedder and scratch. */
typedef struct lp_cat_dense_prep lp_cat_dense_prep;
lp_cat_dense_prep *lp_cat_dense_prep_new(const lp_catalog *cat); /* NULL: no channel */
void lp_cat_dense_prep_free(lp_cat_dense_prep *dp);
/* Embed a prepared doc (its pterms) into d->vec; d->vec stays NULL when no term is known. */
void lp_cat_dense_embed_doc(lp_cat_dense_prep *dp, const lp_catalog_params *params,
                            lp_cat_doc *d);

#endif
