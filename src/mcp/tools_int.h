/*
 * tools_int.h: what the index tools of src/mcp share (not part of the module's contract).
 *
 * One lp_tools per server holds the state the tools share: the index operations running
 * on background threads (ops.c) and the per-root freshness cache (tools_common.c). Each
 * tool lives in its own tool_<name>.c and exports its lp_mcp_tool_def; tools.c registers
 * them with `user` = the lp_tools.
 *
 * Per call, a tool pins one publication with lp_tools_open (the pin is released by the
 * server after the response is written), and every part of its answer takes the
 * publication id from what it read inside that pin.
 */
#ifndef LP_MCP_TOOLS_INT_H
#define LP_MCP_TOOLS_INT_H

#include "index/index.h"
#include "mcp/mcp_int.h"
#include "search/search.h"

/* ------------------------------------------------------------------------------------------
 * ops.c: index operations (create, sync, reindex) on background threads, one per root. */

typedef enum lp_op_state {
    LP_OP_RUNNING = 0,
    LP_OP_SUCCEEDED,
    LP_OP_FAILED,
    LP_OP_CANCELLED,
} lp_op_state;
const char *lp_op_state_name(lp_op_state s); /* running, succeeded, failed, cancelled */

/* A snapshot of one operation (a copy: owns nothing). */
typedef struct lp_op_info {
    char id[24]; /* "op-" + 12 hex digits */
    char root[LP_PATH_MAX + 1];
    lp_index_op kind;
    lp_op_state state;
    bool cancel_requested;
    char phase[32]; /* "starting", "scanning", "indexing", "collecting", "publishing", or
                       the final state */
    uint64_t files_done, files_total, bytes_done;
    int64_t started_ms, ended_ms; /* wall clock; ended_ms 0 while running */
    uint64_t elapsed_ms;
    lp_index_report report; /* meaningful when state is SUCCEEDED */
    lp_status status;       /* LP_OK, or why it failed or was cancelled */
    char error[LP_ERROR_MSG_MAX];
} lp_op_info;

typedef struct lp_ops lp_ops;
/* Called on the operation's thread when it ended, before waiters are woken. */
typedef void (*lp_ops_done_fn)(void *ctx, const lp_op_info *op);

lp_ops *lp_ops_new(lp_ops_done_fn on_done, void *ctx);
/* Cancel the operations still running, wait for every thread, free. NULL is a no-op. */
void lp_ops_free(lp_ops *ops);
/* Start kind on root (an absolute real path) on a new thread; *out is its first snapshot.
 * LP_EBUSY (message naming the operation or the other process) when a writer is live on
 * root, here or in another process; LP_EBUSY too past LP_OPS_MAX_RUNNING operations. */
#define LP_OPS_MAX_RUNNING 4
lp_status lp_ops_start(lp_ops *ops, const char *root, lp_index_op kind, lp_op_info *out,
                       lp_error *err);
/* Snapshot of the operation with this id; false when it is unknown (never started by this
 * server, or dropped from the bounded history). */
bool lp_ops_get(lp_ops *ops, const char *id, lp_op_info *out);
/* Snapshot of the latest operation on root (running first); false when none. */
bool lp_ops_latest(lp_ops *ops, const char *root, lp_op_info *out);
/* Snapshot of the operation running on root; false when none. */
bool lp_ops_running(lp_ops *ops, const char *root, lp_op_info *out);
/* Wait until operation id ends (true), wait_ms passes or stop(stop_ctx) says so (false).
 * tick(tick_ctx, snapshot) runs about five times a second while waiting (may be NULL). *out
 * is the last snapshot. */
bool lp_ops_wait(lp_ops *ops, const char *id, unsigned wait_ms, bool (*stop)(void *),
                 void *stop_ctx, void (*tick)(void *, const lp_op_info *), void *tick_ctx,
                 lp_op_info *out);
/* Ask operation id to stop and wait up to wait_ms for it; *out is the last snapshot.
 * LP_ENOENT when the id is unknown. Cancelling a finished operation changes nothing. */
lp_status lp_ops_cancel(lp_ops *ops, const char *id, unsigned wait_ms, lp_op_info *out,
                        lp_error *err);

/* ------------------------------------------------------------------------------------------
 * tools_common.c: shared state, roots, pins, freshness, envelope pieces. */

/* Freshness of a root: what changed on disk since a publication, by stat data. */
typedef struct lp_fresh {
    bool known;             /* a walk was done (false: unknown) */
    int64_t publication_id; /* the publication that was current when the walk ran */
    uint64_t changed, added, deleted;
    char sample[256];   /* one changed path */
    int64_t checked_ms; /* wall time of the walk */
} lp_fresh;

typedef struct lp_tools lp_tools;

/* Server-wide state of the index tools; freed by lp_tools_free (registry cleanup).
 * Environment: LOUPE_FRESHNESS_TTL_MS (default 2000; 0 walks on every call),
 * LOUPE_AUTO_SYNC=1 (search syncs a stale root first), LOUPE_AUTO_SYNC_WAIT_MS (default
 * 5000: the longest a search waits for that sync). */
lp_tools *lp_tools_new(void);
void lp_tools_free(void *tools);
lp_ops *lp_tools_ops(lp_tools *t);
bool lp_tools_auto_sync(const lp_tools *t, unsigned *wait_ms);

/* The freshness of root compared with publication pub_id. Served from the cache when a
 * walk of at most the TTL ago saw pub_id or a newer publication; otherwise, with may_walk,
 * walks the tree (one walk per root at a time: concurrent callers wait for it and share
 * its result); without may_walk *out is unknown. A result whose publication_id is newer
 * than pub_id means the pinned publication is no longer current. */
lp_status lp_tools_freshness(lp_tools *t, const char *root, int64_t pub_id, bool may_walk,
                             lp_fresh *out, lp_error *err);
/* Record that root was just brought up to date as publication pub_id (after a sync). */
void lp_tools_freshness_set(lp_tools *t, const char *root, int64_t pub_id);
/* Forget root's freshness (after a clear or a failed build). */
void lp_tools_freshness_forget(lp_tools *t, const char *root);

/* The lp_tools of a call (its tool's user pointer). */
lp_tools *lp_tools_of(lp_mcp_call *call);

/* Arguments (validated against the schema already). NULL / dflt when absent. */
const char *lp_tools_arg_str(lp_mcp_call *call, const char *name);
uint32_t lp_tools_arg_uint(lp_mcp_call *call, const char *name, uint32_t dflt);
bool lp_tools_arg_present(lp_mcp_call *call, const char *name);

/* Fail the call with a specific stable code (see lp_mcp_call_set_error_code). */
lp_status lp_tools_fail(lp_mcp_call *call, const char *code, lp_status status, lp_error *err,
                        const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The indexed root that contains the user-given `path` (a folder or file, absolute), and
 * the path relative to it ("" for the root). Fails closed like lp_index_resolve_file (no
 * '..', no NUL, the state folder is refused); a path under no indexed root fails with code
 * not_indexed and a message naming the manage_index create call to run. */
lp_status lp_tools_root_of(lp_mcp_call *call, const char *path, lp_buf *root, lp_buf *rel,
                           lp_error *err);

/* Open root for reading, pin its current publication for the rest of the call (released by
 * the server after the response), and read it into *pub. A root without a publication fails
 * with code not_indexed (or indexing, naming the build in progress); one made by another
 * loupe version fails with code requires_reindex; both messages name the manage_index call
 * that fixes it. *st is borrowed from the call. */
lp_status lp_tools_open(lp_mcp_call *call, const char *root, lp_store **st, lp_publication *pub,
                        lp_error *err);

/* Envelope for root with publication pub (id 0: none) and the given publication state. */
json_t *lp_tools_envelope(const char *root, const lp_publication *pub, const char *state);
/* Set freshness (and a stale warning plus the sync recommendation when stale) from f for an
 * answer read from publication pub_id. Returns true when the answer is stale. */
bool lp_tools_envelope_freshness(json_t *env, const char *root, int64_t pub_id, const lp_fresh *f);
/* Freshness of an answer about one file: its state is the file's (stale when its bytes on
 * disk differ from the publication, with a file_stale warning and the sync recommendation);
 * changedSincePublication comes from the root's cached walk when there is one (no walk). */
void lp_tools_file_freshness(lp_tools *t, json_t *env, const char *root, const char *rel,
                             int64_t pub_id, bool file_stale);
/* When the file's text on disk could not be used (a fifo or device swapped in, gone,
 * unreadable, too large, binary, a read error), a warning with info->disk_code saying so;
 * nothing otherwise. */
void lp_tools_file_disk_note(json_t *env, const lp_read_info *info);
/* Resolve a user-given file path (absolute) to its indexed root and relative path with
 * lp_index_resolve_file (fail closed), with messages that name the tool to call next. */
lp_status lp_tools_resolve_file(lp_mcp_call *call, const char *path, lp_buf *root, lp_buf *rel,
                                lp_error *err);
/* A warning for a writer that is building a newer publication of root right now. */
void lp_tools_warn_writer(lp_tools *t, json_t *env, const char *root);
/* "warning code: text" from src/search into {code, message} on env. */
void lp_tools_warn_coded(json_t *env, const char *coded);
/* Snippet-style "N| text" numbering of raw text starting at line first, into out. */
void lp_tools_number_lines(const char *text, uint32_t first, lp_buf *out);

/* ------------------------------------------------------------------------------------------
 * The tools (one file each). */
extern const lp_mcp_tool_def lp_tool_list_codebases;
extern const lp_mcp_tool_def lp_tool_manage_index;
extern const lp_mcp_tool_def lp_tool_search_codebase;
extern const lp_mcp_tool_def lp_tool_continue_search;
extern const lp_mcp_tool_def lp_tool_file_outline;
extern const lp_mcp_tool_def lp_tool_read_file;

/* tool_graph.c: register the code-graph tools of src/graph (user = t). */
lp_status lp_tools_register_graph(lp_mcp_registry *r, lp_tools *t, lp_error *err);

/* tool_outline.c: one outline row as JSON (id, name, qualifiedName, kind, startLine, endLine,
 * parentId, depth); rows are a whole file's outline in source order. */
json_t *lp_tools_symbol_json(const lp_symbol_row *rows, size_t n, size_t i);

/* tool_search.c: the result page shared by search_codebase and continue_search. */
json_t *lp_tools_search_page(const char *root, int64_t pub_id, const lp_search_group *groups,
                             size_t ngroups, size_t from, size_t count);

#endif
