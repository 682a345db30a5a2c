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

typedef struct lp_search_request {
    const char *query;
    lp_search_scope scope;
    uint32_t limit;         /* groups in the frozen set; 0 = 50; max 200 */
    uint32_t snippet_lines; /* 0 = 6 */
} lp_search_request;

typedef struct lp_search_owner {
    char id[LP_SYMBOL_ID_LEN]; /* "" when the group is a file region without a symbol */
    const char *file;          /* repository-relative path */
    const char *symbol;        /* name, or NULL */
    const char *qname;         /* qualified name, or NULL */
    const char *kind;          /* "function", ..., or "file" */
    uint32_t start_line, end_line;
} lp_search_owner;

typedef struct lp_search_group {
    uint32_t rank; /* 1-based */
    lp_search_owner owner;
    double score;
    uint32_t channels;
    const char *snippet; /* "N| line\n..." bounded */
    uint32_t snippet_start_line;
} lp_search_group;

typedef struct lp_search_result {
    lp_search_group *groups; /* best first, deterministic order */
    size_t ngroups;
    int64_t publication_id;
    const char *const *warnings; /* stable codes with text: "dense_channel_absent: ..." */
    size_t nwarnings;
} lp_search_result;

/* Run a search in st's pinned publication. Bad queries fail with LP_EINVAL and a message
 * that says how to fix them. */
lp_status lp_search_run(lp_store *st, const lp_search_request *req, lp_arena *arena,
                        lp_search_result *out, lp_error *err);

#endif
