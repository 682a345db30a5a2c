/*
 * search.h: the contract of src/search: from an agent's question to owner-grouped evidence.
 *
 * A search runs inside one pinned publication (lp_store_pin), so every group it returns
 * belongs to that publication. Output memory lives in the caller's arena.
 */
#ifndef LP_SEARCH_H
#define LP_SEARCH_H

#include "core/core.h"
#include "store/store.h"

typedef enum lp_search_scope {
    LP_SCOPE_RUNTIME = 0, /* implementation first; tests demoted; docs excluded */
    LP_SCOPE_TESTS = 1,
    LP_SCOPE_DOCS = 2,
    LP_SCOPE_MIXED = 3,
} lp_search_scope;
const char *lp_search_scope_name(lp_search_scope s);
/* LP_EINVAL with a message listing the valid scopes when unknown. */
lp_status lp_search_scope_parse(lp_str name, lp_search_scope *out, lp_error *err);

/* Channels that contributed to a group (bit set). */
#define LP_CH_EXACT 0x1u
#define LP_CH_LEXICAL 0x2u
#define LP_CH_DENSE 0x4u
#define LP_CH_LIVE 0x8u
#define LP_CH_PATH 0x10u /* a file the question names (a path, a traceback's frame) */
#define LP_CH_REGEX 0x20u /* a line the regex: operator matched */
#define LP_CH_COUNT 6
/* The names of the bits set in channels ("exact", "lexical", "dense", "live", "path", in
 * that order) into out; returns how many. The names are static strings. */
size_t lp_search_channel_names(uint32_t channels, const char *out[LP_CH_COUNT]);
/* The bit of a channel name, 0 when unknown. */
uint32_t lp_search_channel_bit(const char *name);

/* ------------------------------------------------------------------------------------------
 * File roles (src/search/roles.c).
 *
 * A result's file plays a role besides being the project's own code: a test, vendored or
 * generated code, a minified file, a locale catalog, an example, or project meta (change
 * logs, contributor lists, build configuration). The runtime scope demotes them (tests
 * unless the question is about tests; see roles.c for the factors) and every result says
 * which roles it has. Roles come from the path (lp_search_path_roles), from the blob's
 * content (a generated marker, minified text: LP_CONTENT_* at extraction time) and from
 * the publication's .gitattributes files (linguist-generated, linguist-vendored). */
#define LP_ROLE_TEST 0x01u
#define LP_ROLE_VENDORED 0x02u
#define LP_ROLE_GENERATED 0x04u
#define LP_ROLE_MINIFIED 0x08u
#define LP_ROLE_LOCALE 0x10u
#define LP_ROLE_EXAMPLE 0x20u
#define LP_ROLE_META 0x40u
#define LP_ROLE_NAMES_MAX 7
/* Roles of code that is not the project's own (demoted hardest). */
#define LP_ROLE_FOREIGN (LP_ROLE_VENDORED | LP_ROLE_GENERATED | LP_ROLE_MINIFIED | LP_ROLE_LOCALE)
/* The names of the bits set ("test", "vendored", "generated", "minified", "locale",
 * "example", "meta", in that order) into out; returns how many. Static strings. */
size_t lp_search_role_names(uint32_t roles, const char *out[LP_ROLE_NAMES_MAX]);
/* The bit of a role name, 0 when unknown. */
uint32_t lp_search_role_bit(const char *name);
/* Roles a repository-relative path implies by itself (qname, may be NULL: a symbol inside
 * a Rust `mod tests` is a test). */
uint32_t lp_search_path_roles(lp_str path, const char *qname);

/* ------------------------------------------------------------------------------------------
 * Query language (src/search/query.c).
 *
 * A query is free text plus operators, separated by white space:
 *   path:GLOB    keep only files matching GLOB (several path: are OR-ed)
 *   -path:GLOB   drop files matching GLOB (any of them)
 *   lang:L[,L]   keep only these languages (names and aliases of lp_lang_from_name)
 *   kind:K[,K]   keep only owners of these symbol kinds (lp_symkind_name, plus fn, func,
 *                const, var, type)
 *   sym:NAME     a symbol name or qualified name (Foo.bar, a::b) for the exact channel
 *   regex:RE     a PCRE2 pattern matched line by line against the indexed text (a grep with
 *                owners: regex.c); one per query, no free words beside it
 *   "a phrase"   an exact phrase between balanced straight quotes; an operator value may be
 *                quoted too: path:"my dir/x.go". An unbalanced quote and typographic quotes
 *                (“ ” ‘ ’ « ») are text: they separate words.
 * Operator names are lowercase ASCII. A word like `file:x` or `language:go` (a misspelt
 * operator) is an error that names the valid operators; any other `a:b` word is text.
 * Every other word is free text. A free word that looks like an identifier (camelCase,
 * snake_case, SCREAMING_CASE, dotted a.b, qualified a::b or Foo#bar; trailing "()" and
 * surrounding punctuation removed) is also copied to idents for the exact channel.
 *
 * Path globs (lp_wildmatch, pathname mode): a glob without '/' matches any one path
 * segment ("*_test.go", "vendor", "http"); a glob with '/' is anchored at the root (a
 * leading '/' or "./" is dropped) and matches the path or any of its folders, so
 * "net/http" keeps everything below net/http. "**" spans folders.
 *
 * Any text is accepted as a question (an issue, a stack trace, a log): there is no word
 * limit; a query over LP_QUERY_MAX_BYTES is cut there (at a character boundary, shortened
 * set); a free word over LP_QUERY_MAX_VALUE bytes is dropped (counted in dropped); phrases
 * past the 16th, phrases over LP_QUERY_MAX_VALUE bytes and one-token quoted paths are taken
 * as words. Long text is reduced to its useful terms by the lexical channel (rank.c).
 * Pasted evidence is recognised in free words: a file path or file name with a source
 * extension (line numbers dropped) becomes a path hint (the path channel), and a stack
 * frame's function (Python "line N, in f", Go "pkg.(*T).m(", Java/C#/Scala/JS
 * "a.b.C.m(") becomes an ident for the exact channel, with its owner-qualified tail.
 *
 * Errors (LP_EINVAL, with a message saying what to write instead) are for operators only:
 * an empty operator value, an unknown language or kind, an unterminated quote in an
 * operator value, a negated operator other than -path:, a misspelt operator, more than 16
 * globs or 16 syms, an operator value over 256 bytes.
 * Every string is NUL-terminated and lives in the arena given to lp_search_query_parse. */
#define LP_QUERY_MAX_BYTES 65536
#define LP_QUERY_MAX_ITEMS 16
#define LP_QUERY_MAX_VALUE 256

typedef struct lp_search_query {
    const char **words; /* free-text words as written (operators and phrases removed) */
    size_t nwords;
    const char **phrases; /* contents of "..." (never empty) */
    size_t nphrases;
    const char **paths; /* path: globs (normalized: no leading '/' or "./") */
    size_t npaths;
    const char **not_paths; /* -path: globs */
    size_t nnot_paths;
    int *langs; /* lp_lang values, no duplicates */
    size_t nlangs;
    int *kinds; /* lp_symkind values, no duplicates */
    size_t nkinds;
    const char **syms; /* sym: values */
    size_t nsyms;
    const char **idents; /* identifier-looking free words (cleaned), then syms; no duplicates */
    size_t nidents;
    const char **hints; /* files named in the text ("src/app.py", a traceback's frames'
                           files): '/' separators, no line numbers; at most 16, no duplicates */
    size_t nhints;
    const char *regex; /* regex:PATTERN (PCRE2 syntax), or NULL: a grep over the index */
    const char *area; /* the "area: subject" prefix of a commit subject or issue title
                         ("net/http" of "net/http: close idle connections"), or NULL */
    bool shortened; /* the text was cut at LP_QUERY_MAX_BYTES */
    size_t dropped; /* free words dropped for being longer than LP_QUERY_MAX_VALUE */
} lp_search_query;

/* Parse text into out (zeroed first). LP_EINVAL with an actionable message on a bad
 * query; an empty or operator-only query parses fine (see lp_search_query_has_terms). */
lp_status lp_search_query_parse(const char *text, lp_arena *arena, lp_search_query *out,
                                lp_error *err);
/* True when q has something to search for: a word, a phrase or a sym. */
bool lp_search_query_has_terms(const lp_search_query *q);
/* True when a repository-relative path passes q's path: and -path: globs. */
bool lp_search_query_path_ok(const lp_search_query *q, lp_str path);
/* One glob against one path, as path: matches it. */
bool lp_search_glob_match(const char *glob, lp_str path);
/* True when word looks like an identifier (as described above); word is already cleaned. */
bool lp_search_is_identifier(lp_str word);

/* How results are grouped: by owning symbol (the default) or by file (src/search/group.c). */
typedef enum lp_search_grouping {
    LP_GROUP_OWNER = 0,
    LP_GROUP_FILE = 1,
} lp_search_grouping;
const char *lp_search_grouping_name(lp_search_grouping g); /* "owner", "file" */
/* LP_EINVAL with a message listing the valid values when unknown. */
lp_status lp_search_grouping_parse(lp_str name, lp_search_grouping *out, lp_error *err);

typedef struct lp_search_request {
    const char *query;
    lp_search_scope scope;
    uint32_t limit;         /* groups in the frozen set; 0 = 50; max 200 */
    uint32_t snippet_lines; /* 0 = 6 */
    lp_search_grouping group; /* LP_GROUP_FILE: one group per file (see lp_search_group_files) */
} lp_search_request;

typedef struct lp_search_owner {
    char id[LP_SYMBOL_ID_LEN]; /* "" when the group is a file region without a symbol */
    const char *file;          /* repository-relative path */
    const char *symbol;        /* name, or NULL */
    const char *qname;         /* qualified name, or NULL */
    const char *kind;          /* "function", ..., or "file" */
    uint32_t start_line, end_line;
} lp_search_owner;

/* One of the best owners of a file group (file view). */
typedef struct lp_search_member {
    lp_search_owner owner;
    double score;  /* the owner's own score */
    uint32_t rank; /* its rank in the owner view of the same search (1-based) */
} lp_search_member;
#define LP_FILE_MEMBERS_MAX 3u

typedef struct lp_search_group {
    uint32_t rank; /* 1-based */
    lp_search_owner owner;
    double score;
    uint32_t channels;
    const char *snippet; /* "N| line\n..." bounded */
    uint32_t snippet_start_line;
    /* The surface of the group, set by lp_search_decorate (src/search/decorate.c). */
    const char *label;       /* qualified name, else symbol name, else "file:start-end" */
    const char *breadcrumbs; /* "session > SessionManager > refresh": the file's module, the
                                enclosing symbols, the owner; "" for a file region */
    int64_t published_ms;    /* when the group's publication was made */
    bool stale;              /* the file differs on disk from the publication (stat data) */
    bool deleted;            /* the file is gone from disk (stale too) */
    bool live;               /* read from disk at search time (channel live), not indexed */
    const char *text_reason; /* NULL, or why a code file was indexed as text ("parse_budget":
                                its parse went past the per-file budget); static string */
    uint32_t roles;          /* LP_ROLE_* of the group's file (set by lp_search_run) */
    /* Copies folded into this group: the same owner in files with the same content, or a
     * near-duplicate (same file name and owner shape). ndups counts them all; dup_paths
     * holds the first LP_SEARCH_DUP_PATHS of them (arena). */
    uint32_t ndups;
    const char **dup_paths;
    uint32_t ndup_paths;
    /* File view only (nmembers > 0): the group is a file; owner, snippet and surface are
     * those of its best owner, score and channels the file's. */
    const lp_search_member *members; /* best first, at most LP_FILE_MEMBERS_MAX */
    uint32_t nmembers;
    uint32_t nfile_owners; /* owners of this file among the candidates aggregated */
    /* A file listing (a query of path:/lang: filters only, listing.c): the group is a file,
     * members are its first top-level symbols, nfile_owners counts them all. */
    bool listed;
    uint64_t file_size; /* bytes, when listed */
} lp_search_group;
#define LP_SEARCH_DUP_PATHS 5

/* Summary features of an answer, the input of the confidence model (confidence.c). */
#define LP_CONF_NFEAT 12
/* The feature names, in order (static strings). */
const char *const *lp_search_conf_names(void);
/* Below this confidence an answer carries the warning no_confident_match. */
double lp_search_conf_threshold(void);

typedef struct lp_search_result {
    lp_search_group *groups; /* best first, deterministic order */
    size_t ngroups;
    int64_t publication_id;
    const char *const *warnings; /* stable codes with text: "dense_channel_absent: ..." */
    size_t nwarnings;
    double timing_ms; /* wall time of lp_search_run (retrieval, fusion, rerank, snippets) */
    /* Set by lp_search_decorate. */
    int64_t published_ms; /* when the publication was made */
    uint32_t nstale;      /* groups whose file changed on disk since the publication */
    uint32_t nlive;       /* live groups (read from disk, channel live) */
    /* Set by lp_search_confidence (src/search/confidence.c): the estimated probability that
     * the answer holds what was asked for, in [0, 1]; -1 when not computed. */
    double confidence;
    double features[LP_CONF_NFEAT]; /* the answer's summary features (lp_search_conf_names) */
    lp_search_grouping group;       /* how groups are made */
} lp_search_result;

/* Run a search in st's pinned publication. Bad queries fail with LP_EINVAL and a message
 * that says how to fix them. */
lp_status lp_search_run(lp_store *st, const lp_search_request *req, lp_arena *arena,
                        lp_search_result *out, lp_error *err);

/* ------------------------------------------------------------------------------------------
 * The file view (src/search/group.c).
 *
 * lp_search_group_files turns res, owner groups best first (lp_search_run asks for up to
 * LP_FILE_DEPTH of them in the file view), into file groups: one per file, score = the
 * best owner's score plus LP_FILE_DAMP times the sum of the next owners' scores (each
 * scaled by LP_FILE_DECAY per place, see docs/decisions/0015-file-view-and-confidence.md),
 * best first in the usual deterministic order (score desc, path asc), at most `limit`.
 * Each file group keeps its best LP_FILE_MEMBERS_MAX owners as members; its owner,
 * snippet and surface are the best owner's. Memory lives in arena. */
#define LP_FILE_DEPTH 200u
void lp_search_group_files(lp_search_result *res, uint32_t limit, lp_arena *arena);

/* ------------------------------------------------------------------------------------------
 * The surface of a result (src/search/decorate.c, src/search/live.c).
 *
 * lp_search_decorate runs at the end of lp_search_run, inside the same pin: it labels every
 * group (label, breadcrumbs from the symbols' parent chain), stamps the publication time,
 * marks groups whose file changed on disk since the publication (one stat per distinct
 * file, compared with the stored stat data; no hashing), and adds live evidence: when the
 * query is scoped by path: to files that changed on disk, it reads their current text
 * (bounded by LP_LIVE_MAX_FILE_BYTES, LP_LIVE_MAX_LINES, LP_LIVE_MAX_FILES) and puts the
 * regions that match the query words first, as groups with channel live and a
 * live_evidence warning. A deleted file is reported (live_file_deleted), never read. */
#define LP_LIVE_MAX_FILE_BYTES ((size_t)1 << 20)
#define LP_LIVE_MAX_LINES 20000u
#define LP_LIVE_MAX_FILES 16u
#define LP_LIVE_MAX_GROUPS 20u

lp_status lp_search_decorate(lp_store *st, const lp_search_request *req, lp_arena *arena,
                             lp_search_result *res, lp_error *err);

/* Live evidence (src/search/live.c): called by lp_search_decorate; prepends live groups to
 * res and appends warnings (arena-owned). */
lp_status lp_search_live(lp_store *st, const lp_search_request *req, lp_arena *arena,
                         lp_search_result *res, lp_error *err);

/* Append a "code: text" warning to res (arena-owned copy of the list). */
void lp_search_result_warn(lp_search_result *res, lp_arena *arena, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The tool an agent should call next for g: "read_file" (open_symbol), "file_outline" (a
 * file region without a symbol) or "manage_index" (sync: the group is live, its text not
 * indexed yet, or its file was deleted). Static string. */
const char *lp_search_group_next_tool(const lp_search_group *g);

/* Add the surface fields of g to obj, a result JSON object (jansson): "label",
 * "breadcrumbs", "freshness" {publishedAt, stale, deleted, live} and
 * "recommendedNextAction" {tool, arguments} with absolute paths under root. */
struct json_t;
void lp_search_group_surface_json(struct json_t *obj, const char *root,
                                  const lp_search_group *g);

/* ------------------------------------------------------------------------------------------
 * Frozen result sets (src/search/frozen.c).
 *
 * Freezing a search result writes its groups once, as a small file under the state folder
 * ($STATE/frozen/<set id>.json, written to a temporary name and renamed), and gives a
 * continuation handle naming a page of it. Continuing reads that file and never re-runs
 * retrieval, so every page keeps the order and scores of the first. Handles are text and
 * work across processes (`loupe more` in a new process, the MCP server after a restart).
 *
 * A set is bound to (root, publication id, hash of the normalized request); its id is a hash
 * of the three (and, when some groups were read from disk, live or stale, of what disk
 * showed), so the same search on the same publication rewrites the same set. A handle
 * fails with a specific reason (lp_frozen_fail): malformed (not a handle), unknown (no such
 * set: never made here, or removed by the caps), expired (older than the TTL) or drifted
 * (the root's current publication is not the set's any more). Every message says to search
 * again.
 *
 * This is a cache, not index state: losing it costs one search. Bounds: sets live
 * LP_FROZEN_TTL_MS (env LOUPE_FROZEN_TTL_MS); at most LP_FROZEN_MAX_SETS sets and
 * LP_FROZEN_MAX_BYTES bytes (env LOUPE_FROZEN_MAX_SETS, LOUPE_FROZEN_MAX_BYTES) are kept;
 * each write first removes expired sets, then the oldest ones past the caps. A set holds at
 * most 200 groups with bounded snippets (about 300 KiB at worst); nothing stays in memory.
 *
 * Handle syntax: "c:<publication id>:<set id, 16 hex>:<offset>:<page>:<created, hex s>".
 */
#define LP_FROZEN_TTL_MS ((int64_t)30 * 60 * 1000)
#define LP_FROZEN_MAX_SETS 256u
#define LP_FROZEN_MAX_BYTES ((uint64_t)32 << 20)
#define LP_FROZEN_HANDLE_MAX 96

typedef enum lp_frozen_fail {
    LP_FROZEN_OK = 0,
    LP_FROZEN_MALFORMED, /* not a continuation handle (LP_EINVAL) */
    LP_FROZEN_UNKNOWN,   /* no such set (LP_ENOENT) */
    LP_FROZEN_EXPIRED,   /* the set is older than the TTL (LP_EEXPIRED) */
    LP_FROZEN_DRIFTED,   /* the root was re-published since (LP_EEXPIRED) */
    LP_FROZEN_BROKEN,    /* the set file is unreadable or damaged (LP_EIO) */
} lp_frozen_fail;

/* Stable code: "continuation_malformed", "continuation_unknown", "continuation_expired",
 * "continuation_drifted", "continuation_broken"; "ok" for LP_FROZEN_OK. */
const char *lp_frozen_fail_code(lp_frozen_fail f);

/* A loaded set. Every pointer is owned by the arena given to lp_search_frozen_load. */
typedef struct lp_frozen_set {
    char id[17];             /* set id, 16 hex */
    const char *root;        /* the indexed root (absolute real path) */
    int64_t publication_id;  /* the publication the groups come from */
    const char *query;       /* the normalized query */
    lp_search_scope scope;
    uint32_t limit;          /* the frozen bound the search ran with */
    char request_hash[17];
    int64_t created_ms, expires_ms;
    lp_search_group *groups; /* the whole set, ranks 1..ngroups */
    size_t ngroups;
    const char *const *warnings; /* the search's warnings ("code: text") */
    size_t nwarnings;
    lp_search_grouping group; /* how the groups were made (file view: members are set) */
    double confidence;        /* the search's confidence; -1 when the set has none */
    uint32_t offset; /* from the handle: index of the first group of the page it names */
    uint32_t page;   /* from the handle: the page size it was made with */
} lp_frozen_set;

/* Hash of the normalized request (query trimmed with runs of white space collapsed, scope,
 * effective limit and snippet lines) as 16 hex digits. */
void lp_search_request_hash(const lp_search_request *req, char out[17]);

/* Freeze res, the result of req on root (from a publication pinned by the caller), and put
 * in handle_out the handle of the page of `page` groups starting at group index `offset`
 * (0-based; normally the number of groups already shown), and in *expires_ms (may be NULL)
 * when the set expires. LP_ENOSPC (lp_store_disk_full) on a full disk, LP_EIO or LP_ELIMIT
 * when the state folder cannot be written otherwise; LP_EINVAL when offset is past the end.
 * A caller serving a search never fails it for this: the answer goes out without a
 * continuation and with the warning LP_CONTINUATION_UNAVAILABLE (see
 * lp_search_continuation_unavailable). */
lp_status lp_search_freeze(const char *root, const lp_search_request *req,
                           const lp_search_result *res, uint32_t offset, uint32_t page,
                           lp_buf *handle_out, int64_t *expires_ms, lp_error *err);

/* The stable warning code of an answer whose continuation could not be written. */
#define LP_CONTINUATION_UNAVAILABLE "continuation_unavailable"
/* The warning text for it ("<code>: the N results after the first M cannot be continued:
 * <why>; ...") into res's warnings (arena-owned). */
void lp_search_continuation_unavailable(lp_search_result *res, lp_arena *arena, size_t shown,
                                        const lp_error *why);

/* Load the set a handle names. Fails with why (may be NULL) set to MALFORMED (LP_EINVAL),
 * UNKNOWN (LP_ENOENT), EXPIRED (LP_EEXPIRED) or BROKEN (LP_EIO); never touches an index. */
lp_status lp_search_frozen_load(const char *handle, lp_arena *arena, lp_frozen_set *out,
                                lp_frozen_fail *why, lp_error *err);

/* Check that st (open on set->root; pinned by the caller for the whole request) serves the
 * set's publication: LP_EEXPIRED with why = DRIFTED when the current publication differs. */
lp_status lp_search_frozen_check(const lp_frozen_set *set, lp_store *st, lp_frozen_fail *why,
                                 lp_error *err);

/* The handle of the page of `page` groups at `offset` of a loaded set into out (reset
 * first); "" when offset is at or past the end (the set is complete). */
void lp_search_frozen_handle(const lp_frozen_set *set, uint32_t offset, uint32_t page,
                             lp_buf *out);

#endif
