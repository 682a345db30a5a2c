/*
 * graph.h: the contract of src/graph, loupe's code graph: edges between symbols resolved
 * from the references src/lang extracts, and the navigation tools built on them.
 *
 * Relationship authority: a CALLS (or IMPORTS, EXPORTS, TESTS) edge exists only when a
 * documented rule of the caller's language proves its target (docs/graph-rules.md).
 * Anything else stays evidence: an unresolved reference with the callee text and a reason,
 * or an ambiguous one with its candidates. Absent edges are never proof of absence: every
 * tool says what the languages involved cannot see (lp_graph_caps).
 *
 * Data (schema in src/store/schema.c):
 *   refs(bid, ord)  content-keyed reference evidence, written with a blob's other evidence
 *                   (lp_graph_evidence_insert) and collected with it;
 *   edges           derived per publication over (file id, symbol ord) endpoints (ord -1:
 *                   the file itself), rebuilt inside the build's write transaction by
 *                   lp_graph_update: fully on create/reindex, incrementally on sync (only
 *                   the references a change can affect are resolved again; the result is
 *                   the same as a full rebuild, see docs/graph-rules.md "Incremental").
 *   CONTAINS edges are not stored: they are the symbols' parents.
 *
 * Dependencies: core, store, lang (and jansson, libgit2 for the tools). src/index calls
 * lp_graph_evidence_* and lp_graph_update from its build; nothing here includes src/index.
 *
 * Threads: a build calls these on its writer connection; the tools read through a
 * connection pinned by the caller (lp_store_pin). Nothing here keeps global mutable state.
 */
#ifndef LP_GRAPH_H
#define LP_GRAPH_H

#include "core/core.h"
#include "lang/lang.h"
#include "store/store.h"

#include "core/json.h"
#include "core/warn.h"

/* Edge kinds. Stored: append only. */
typedef enum lp_edge_kind {
    LP_EDGE_CALLS = 0,    /* caller symbol -> callee symbol (constructor calls -> the type) */
    LP_EDGE_IMPORTS = 1,  /* file (or the symbol holding the import) -> module file / symbol */
    LP_EDGE_EXPORTS = 2,  /* module file -> a symbol it exports (its own or re-exported) */
    LP_EDGE_TESTS = 3,    /* test symbol -> the symbol it exercises */
    LP_EDGE_CONTAINS = 4, /* parent -> child (derived from symbols, never stored) */
    LP_EDGE_KIND_COUNT
} lp_edge_kind;

const char *lp_edge_kind_name(lp_edge_kind k); /* "calls", "imports", ... */
/* Parse "calls" / "CALLS" ...; LP_EDGE_KIND_COUNT when unknown. */
lp_edge_kind lp_edge_kind_from_name(lp_str s);

/* ------------------------------------------------------------------------------------------
 * Capabilities: which edge kinds each language's rules can prove, and what they cannot see.
 * Static data (borrowed, never freed). */
typedef struct lp_graph_caps {
    lp_lang lang;
    bool edges[LP_EDGE_KIND_COUNT];
    const char *rules;  /* one line: what CALLS resolution covers */
    const char *blind;  /* one line: what it cannot see (so an absent edge proves nothing) */
} lp_graph_caps;

/* The capabilities of a language (a row with every edge false for text and docs). */
const lp_graph_caps *lp_graph_caps_for(lp_lang l);
/* The whole table as JSON: [{language, calls, imports, exports, tests, contains, rules,
 * blind}] for the ten code languages (new reference). */
json_t *lp_graph_caps_json(void);

/* Totals of the pinned publication's graph (for status). */
typedef struct lp_graph_totals {
    uint64_t edges[LP_EDGE_KIND_COUNT]; /* proved edges by kind (contains: 0, not stored) */
    uint64_t ambiguous_refs;            /* references with candidates and no edge */
    uint64_t unresolved_calls;          /* call / new references that proved nothing */
    uint64_t refs;                      /* references of the published files */
} lp_graph_totals;
lp_status lp_graph_totals_get(lp_store *st, lp_graph_totals *out, lp_error *err);

/* ------------------------------------------------------------------------------------------
 * Build side (called by src/index inside the build transaction). */

/* Store the references of a new blob (after its symbols). */
lp_status lp_graph_evidence_insert(lp_store *st, int64_t bid, lp_lang lang,
                                   const lp_parse_result *pr, lp_error *err);
/* A build that stores every blob's evidence anew (create, reindex), before it stores any:
 * drops the secondary indexes of refs, which lp_graph_update builds again in one sorted
 * pass (cheaper than keeping them up to date row by row). Inside the build transaction. */
lp_status lp_graph_evidence_bulk_begin(lp_store *st, lp_error *err);
/* Remove the references of a collected blob. */
lp_status lp_graph_evidence_collect(lp_store *st, int64_t bid, lp_error *err);
/* Remove every reference and edge (reindex). */
lp_status lp_graph_reset_all(lp_store *st, lp_error *err);

/* One file changed by the build. */
typedef struct lp_graph_change {
    const char *path;
    int64_t old_fid; /* the file's id before the build (0: added) */
    int64_t old_bid; /* its evidence before (0: added) */
    int64_t new_bid; /* its evidence now (0: deleted) */
} lp_graph_change;

typedef struct lp_graph_stats {
    bool full;                /* rebuilt from scratch */
    uint64_t files_affected;  /* files whose references were resolved again */
    uint64_t refs_resolved;   /* references resolved */
    uint64_t edges;           /* proved edges written */
    uint64_t ambiguous;       /* references left ambiguous */
    uint64_t unresolved;      /* references left unresolved */
    uint64_t ms;
} lp_graph_stats;

/* Bring the edges table up to date with the files table. With full, every reference is
 * resolved again; otherwise only those that `changes` can affect. Must run inside the
 * build's write transaction, after the files table holds the new generation and before
 * the evidence of old blobs is collected (their symbols say what a change removed).
 * LOUPE_TEST_NO_GRAPH=1 empties the graph instead. */
lp_status lp_graph_update(lp_store *st, const lp_graph_change *changes, size_t nchanges,
                          bool full, lp_graph_stats *stats, lp_error *err);

/* Every stored edge (candidates included) as lines
 *   "SRC_PATH:SRC_QNAME[#ORDINAL] -> DST_PATH:DST_QNAME[#ORDINAL] KIND RULE ref=N"
 * (qname "-" for the file itself), sorted, into out (tests compare incremental and full
 * builds, and fixtures with their labels). */
lp_status lp_graph_dump(lp_store *st, lp_buf *out, lp_error *err);

/* ------------------------------------------------------------------------------------------
 * Tools. Each takes a connection pinned on the publication to answer from. A typed tool
 * (call_graph, trace_path, find_references, architecture_overview: below) takes its request
 * struct and fills its result struct in an arena the caller owns; its _json function renders
 * the content object (what MCP returns and --json prints). The JSON tool (detect_changes)
 * takes the arguments (validated against its input schema) and returns a JSON object (new
 * reference). Either answer holds warnings ({code from core/warn.h, message}: merged into the
 * agent envelope). Failures: LP_EINVAL (bad argument), LP_ENOENT (unknown symbol id / file), LP_EAMBIGUOUS,
 * LP_EUNSUPPORTED; err says what to do next. cancel (may be NULL) is polled between units
 * of work (LP_ECANCELED). */
typedef struct lp_graph_call {
    lp_store *st;            /* pinned by the caller */
    const json_t *args;      /* borrowed */
    const volatile int *cancel;     /* non-zero: stop (may be NULL) */
    bool (*is_cancelled)(void *ctx); /* or ask this (may be NULL; the MCP server's way) */
    void *cancel_ctx;
} lp_graph_call;

/* True when the caller asked the tool to stop (either way above). */
bool lp_graph_call_cancelled(const lp_graph_call *call);

typedef lp_status (*lp_graph_tool_fn)(const lp_graph_call *call, json_t **out, lp_error *err);

/* The tools' names, descriptions, arguments and schemas are in the tool table
 * (src/api/tools_graph.c), which calls these. Limits and defaults of their arguments,
 * written once: the table declares them to MCP and the CLI, and the handlers clamp with
 * them. */
#define LP_GRAPH_CG_DEPTH_DEFAULT 2
#define LP_GRAPH_CG_DEPTH_MAX 5
#define LP_GRAPH_CG_NODES_DEFAULT 100
#define LP_GRAPH_CG_NODES_MAX 1000
#define LP_GRAPH_CG_EDGES_DEFAULT 300
#define LP_GRAPH_CG_EDGES_MAX 5000
#define LP_GRAPH_TRACE_DEPTH_DEFAULT 8
#define LP_GRAPH_TRACE_DEPTH_MAX 16
#define LP_GRAPH_TRACE_NODES_DEFAULT 5000
#define LP_GRAPH_TRACE_NODES_MAX 100000
#define LP_GRAPH_REFS_DEFAULT 200
#define LP_GRAPH_REFS_MAX 5000
#define LP_GRAPH_CHANGES_DEPTH_MAX 3 /* also the default */
#define LP_GRAPH_CHANGES_CALLERS_DEFAULT 200
#define LP_GRAPH_CHANGES_CALLERS_MAX 5000
#define LP_GRAPH_CHANGES_FILES_DEFAULT 500
#define LP_GRAPH_CHANGES_FILES_MAX 10000
#define LP_GRAPH_ARCH_PACKAGES_DEFAULT 200
#define LP_GRAPH_ARCH_PACKAGES_MAX 5000

/* The JSON tool (not migrated to structs yet), callable directly (the CLI does). */

/* ------------------------------------------------------------------------------------------
 * Typed results. A symbol of the pinned publication (strings owned by the arena the call was
 * given; a file pseudo-symbol has ord -1, id "" and name = qname = path). */
typedef struct lp_graph_sym {
    char id[LP_SYMBOL_ID_LEN];
    int64_t fid, bid;
    const char *path;
    const char *name, *qname;
    int kind; /* lp_symkind */
    int32_t ord, parent;
    uint32_t flags;
    lp_lang lang;
    uint32_t start_line, end_line, start_byte, end_byte;
} lp_graph_sym;

/* JSON {id, kind, name, qualifiedName, file, startLine, endLine, language} (new reference). */
json_t *lp_graph_sym_json(const lp_graph_sym *s);
/* The id of s as answers give it: its sym:... id, or file:<path> for a file (in arena). */
const char *lp_graph_sym_id(const lp_graph_sym *s, lp_arena *arena);

/* call_graph: the request (the tool table's argument order; src/api/tools_graph.c). */
typedef enum lp_graph_direction {
    LP_GRAPH_CALLERS = 0, /* enum order of the "direction" argument */
    LP_GRAPH_CALLEES = 1,
    LP_GRAPH_BOTH = 2,
} lp_graph_direction;
const char *lp_graph_direction_name(lp_graph_direction d); /* "callers", ... */

typedef struct lp_graph_cg_req {
    const char *symbol_id;  /* sym:... (borrowed) */
    int64_t direction;      /* lp_graph_direction */
    int64_t depth;          /* 1-LP_GRAPH_CG_DEPTH_MAX */
    int64_t max_nodes;      /* 1-LP_GRAPH_CG_NODES_MAX */
    int64_t max_edges;      /* 1-LP_GRAPH_CG_EDGES_MAX */
} lp_graph_cg_req;

/* A call site: the reference's lines, argument text and callee text, in file. present is
 * false when the reference row is gone (rendered as null). */
typedef struct lp_graph_site {
    bool present;
    const char *file;
    uint32_t start_line, end_line;
    const char *args;   /* may be NULL */
    const char *callee;
} lp_graph_site;

typedef struct lp_graph_cg_node {
    lp_graph_sym sym;
    int depth;
    int side; /* 0 root, 1 callee side, 2 caller side */
} lp_graph_cg_node;

typedef struct lp_graph_cg_edge {
    const char *from, *to; /* symbol ids (file:<path> for files) */
    const char *strategy;  /* "<language>.<rule>" */
    lp_graph_site site;
} lp_graph_cg_edge;

/* An unresolved (reason set) or ambiguous (candidates set) call site of the root. */
typedef struct lp_graph_cg_open {
    const char *callee;
    const char *file;
    uint32_t start_line, end_line;
    const char *reason, *explanation; /* unresolved */
    int candidate_count;              /* ambiguous: all candidates ... */
    const lp_graph_sym *candidates;   /* ... of which these are listed */
    size_t ncandidates;
} lp_graph_cg_open;

typedef struct lp_graph_cg_possible {
    const char *callee, *file;
    uint32_t start_line;
} lp_graph_cg_possible;

typedef struct lp_graph_cg_test {
    lp_graph_sym sym;
    const char *const *evidence; /* rule names */
    size_t nevidence;
} lp_graph_cg_test;

typedef struct lp_graph_count {
    const char *name;
    size_t count;
} lp_graph_count;

typedef struct lp_graph_warning {
    lp_warn code;
    const char *message;
} lp_graph_warning;

/* The answer of call_graph (everything in the arena the call was given). */
typedef struct lp_graph_cg_result {
    lp_graph_sym root;
    lp_graph_direction direction;
    int depth;
    const lp_graph_cg_node *nodes; /* the root is not among them */
    size_t nnodes;
    const lp_graph_cg_edge *edges;
    size_t nedges;
    const lp_graph_cg_test *tests;
    size_t ntests;
    /* callee side (direction callees or both) */
    bool has_callees;
    size_t proved_calls, ambiguous, unresolved;
    const lp_graph_count *unresolved_by_reason; /* in first-seen order */
    size_t nreasons;
    const lp_graph_cg_open *unresolved_callees, *ambiguous_callees;
    size_t nunresolved_callees, nambiguous_callees;
    /* caller side (direction callers or both) */
    bool has_callers;
    size_t proved_callers, ambiguous_call_sites, unresolved_same_name;
    bool unresolved_same_name_capped;
    const lp_graph_site *ambiguous_callers;
    size_t nambiguous_callers;
    const lp_graph_cg_possible *possible_callers;
    size_t npossible_callers;
    uint32_t langs; /* 1 << lp_lang of every symbol shown: the capabilities to state */
    bool cut_nodes, cut_edges, cut_depth;
    const lp_graph_warning *warnings;
    size_t nwarnings;
} lp_graph_cg_result;

/* call_graph over the pinned publication of call->st (call->args unused). Failures as the
 * tools above. Everything in *out lives in arena. */
lp_status lp_graph_call_graph_run(const lp_graph_call *call, const lp_graph_cg_req *req,
                                  lp_arena *arena, lp_graph_cg_result *out, lp_error *err);
/* The MCP content object of a call_graph answer (new reference), the same that the CLI's
 * --json prints: {warnings, unresolvedCallees?, ambiguousCallees?, ambiguousCallers?,
 * possibleCallers?, root, direction, depth, nodes, edges, tests, evidenceSummary,
 * capabilities, truncation}. */
json_t *lp_graph_call_graph_json(const lp_graph_cg_result *r);
lp_status lp_graph_detect_changes(const lp_graph_call *call, json_t **out, lp_error *err);

/* trace_path: the request (the tool table's argument order) and the answer. */
typedef struct lp_graph_tp_req {
    const char *from_id, *to_id; /* sym:... or file:<path> (borrowed) */
    uint32_t edge_kinds;         /* 1 << lp_edge_kind; 0: calls */
    int64_t max_depth;           /* 1-LP_GRAPH_TRACE_DEPTH_MAX */
    int64_t max_nodes;           /* 1-LP_GRAPH_TRACE_NODES_MAX */
} lp_graph_tp_req;

typedef struct lp_graph_tp_edge {
    const char *from, *to; /* ids (file:<path> for files) */
    lp_edge_kind kind;
    const char *strategy;  /* NULL for contains */
    lp_graph_site site;    /* not present for contains */
} lp_graph_tp_edge;

typedef struct lp_graph_tp_result {
    lp_graph_sym from, to;
    bool found;
    const lp_graph_sym *path; /* from ... to when found */
    size_t npath;
    const lp_graph_tp_edge *edges; /* npath - 1 */
    size_t nedges;
    size_t explored;     /* nodes reached */
    uint32_t edge_kinds; /* the kinds followed */
    uint32_t langs;      /* of from and to: the capabilities to state */
    bool cut_nodes, cut_depth;
    const lp_graph_warning *warnings;
    size_t nwarnings;
} lp_graph_tp_result;

/* trace_path over the pinned publication of call->st (call->args unused); *out lives in
 * arena. */
lp_status lp_graph_trace_path_run(const lp_graph_call *call, const lp_graph_tp_req *req,
                                  lp_arena *arena, lp_graph_tp_result *out, lp_error *err);
/* Its content object (new reference): {warnings, from, to, found, path, edges, length,
 * explored, truncation, edgeKinds, capabilities}. */
json_t *lp_graph_trace_path_json(const lp_graph_tp_result *r);

/* find_references: the request and the answer. */
typedef struct lp_graph_fr_req {
    const char *symbol_id;   /* sym:... (borrowed) */
    const char *path_prefix; /* only files under this folder (NULL: all) */
    int64_t max_results;     /* 1-LP_GRAPH_REFS_MAX */
} lp_graph_fr_req;

/* One textual occurrence of the name. */
typedef struct lp_graph_ref {
    const char *file;
    uint32_t line, column; /* 1-based; column in bytes */
    size_t start_byte, end_byte;
    const char *text;           /* the line, cut at 240 bytes where a character ends */
    const lp_graph_sym *owner;  /* innermost symbol around it (NULL: none) */
    bool is_definition;
} lp_graph_ref;

typedef struct lp_graph_fr_result {
    lp_graph_sym symbol;
    const char *name;
    bool identifier_boundary;
    const lp_graph_ref *matches;
    size_t nmatches;
    bool cut;                 /* maxResults reached */
    bool publication_partial; /* the publication itself skipped files */
    int64_t publication_id;
    char publication_merkle[LP_HASH_HEX];
    size_t files_scanned, files_total, files_with_matches, total_matches;
    uint64_t bytes_scanned;
    const char *path_prefix; /* as asked (NULL: none) */
    const lp_graph_warning *warnings;
    size_t nwarnings;
} lp_graph_fr_result;

/* Coverage is complete when nothing was cut and the publication is not partial. */
static inline bool lp_graph_fr_complete(const lp_graph_fr_result *r)
{
    return !r->cut && !r->publication_partial;
}

/* find_references over the pinned publication of call->st; *out lives in arena. */
lp_status lp_graph_find_references_run(const lp_graph_call *call, const lp_graph_fr_req *req,
                                      lp_arena *arena, lp_graph_fr_result *out, lp_error *err);
/* Its content object (new reference): {warnings, symbol, name, identifierBoundary, matches,
 * coverage, pathPrefix}. */
json_t *lp_graph_find_references_json(const lp_graph_fr_result *r);

/* architecture_overview: the request and the answer. */
typedef enum lp_graph_scope {
    LP_GRAPH_SCOPE_RUNTIME = 0, /* enum order of the "scope" argument: test files left out */
    LP_GRAPH_SCOPE_TESTS = 1,   /* test files only */
    LP_GRAPH_SCOPE_ALL = 2,
} lp_graph_scope;
const char *lp_graph_scope_name(lp_graph_scope s);

typedef struct lp_graph_arch_req {
    const char *subtree;  /* only files under this folder (NULL: all; borrowed) */
    int64_t scope;        /* lp_graph_scope */
    int64_t max_packages; /* 1-LP_GRAPH_ARCH_PACKAGES_MAX (dependencies shown: 8 times that) */
} lp_graph_arch_req;

typedef struct lp_graph_package {
    const char *name; /* Java/Scala package, C# namespace, or "folder/" */
    uint32_t langs;   /* 1 << lp_lang */
    uint32_t files, symbols, fan_in, fan_out;
} lp_graph_package;

typedef struct lp_graph_dependency {
    const char *from, *to; /* package names */
    uint64_t calls, imports;
} lp_graph_dependency;

typedef struct lp_graph_cycle {
    const char *const *members; /* package names, sorted */
    size_t nmembers;
} lp_graph_cycle;

typedef struct lp_graph_arch_result {
    lp_graph_scope scope;
    const char *subtree;                 /* as asked (NULL: none) */
    const lp_graph_package *packages;    /* by name, at most max_packages */
    size_t npackages;
    const lp_graph_dependency *dependencies; /* by (from, to) index order, at most 8x */
    size_t ndependencies;
    const lp_graph_cycle *cycles;
    size_t ncycles;
    size_t total_packages, total_files, total_dependencies;
    uint64_t internal_edges;
    bool cut; /* packages or dependencies past the budget */
    const lp_graph_warning *warnings;
    size_t nwarnings;
} lp_graph_arch_result;

/* architecture_overview over the pinned publication of call->st; *out lives in arena. */
lp_status lp_graph_architecture_run(const lp_graph_call *call, const lp_graph_arch_req *req,
                                    lp_arena *arena, lp_graph_arch_result *out, lp_error *err);
/* Its content object (new reference): {warnings, scope, subtree, packages, dependencies,
 * cycles, totals, truncation}. */
json_t *lp_graph_architecture_json(const lp_graph_arch_result *r);

#endif
