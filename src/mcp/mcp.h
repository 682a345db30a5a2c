/*
 * mcp.h: the contract of src/mcp, loupe's Model Context Protocol server.
 *
 * JSON-RPC 2.0 over stdio, one message per line, both protocol eras:
 *   legacy  : initialize / notifications/initialized, versions 2025-06-18 and 2025-11-25,
 *             ping, logging/setLevel, tools/list, tools/call;
 *   modern  : 2026-07-28, no handshake: every request carries its protocol version and the
 *             client capabilities in params._meta; server/discover, tools/list, tools/call;
 *             results carry resultType, cacheable results ttlMs/cacheScope.
 * See docs/decisions/0023-mcp-protocol-eras.md for every reading of the specification made here.
 *
 * Tools plug in as handler functions (lp_mcp_tool_fn) registered in an lp_mcp_registry.
 * The server validates arguments against the tool's inputSchema before the handler runs,
 * runs handlers on a small worker pool, gives each call an arena, a cancellation flag, a
 * progress callback and a pin slot, fits the handler's result into the byte budget and
 * returns it both as structuredContent and as a text content block.
 *
 * Threading: a handler runs on a worker thread; everything reachable from lp_mcp_call is
 * private to that call. A handler must not keep pointers into the call after it returns.
 */
#ifndef LP_MCP_H
#define LP_MCP_H

#include "core/core.h"

#include "core/json.h"
#include "core/warn.h"

/* ------------------------------------------------------------------------------------------
 * Protocol constants. */
#define LP_MCP_PROTOCOL_2025_06_18 "2025-06-18"
#define LP_MCP_PROTOCOL_2025_11_25 "2025-11-25"
#define LP_MCP_PROTOCOL_2026_07_28 "2026-07-28"
#define LP_MCP_LATEST_LEGACY LP_MCP_PROTOCOL_2025_11_25

/* JSON-RPC and MCP error codes used on the wire. */
enum {
    LP_RPC_PARSE_ERROR = -32700,
    LP_RPC_INVALID_REQUEST = -32600,
    LP_RPC_METHOD_NOT_FOUND = -32601,
    LP_RPC_INVALID_PARAMS = -32602,
    LP_RPC_INTERNAL_ERROR = -32603,
    LP_RPC_MISSING_CLIENT_CAPABILITY = -32021, /* 2026-07-28 */
    LP_RPC_UNSUPPORTED_PROTOCOL_VERSION = -32022, /* 2026-07-28 */
};

/* Reserved _meta keys (2026-07-28). */
#define LP_MCP_META_PROTOCOL_VERSION "io.modelcontextprotocol/protocolVersion"
#define LP_MCP_META_CLIENT_INFO "io.modelcontextprotocol/clientInfo"
#define LP_MCP_META_CLIENT_CAPABILITIES "io.modelcontextprotocol/clientCapabilities"
#define LP_MCP_META_LOG_LEVEL "io.modelcontextprotocol/logLevel"
#define LP_MCP_META_SERVER_INFO "io.modelcontextprotocol/serverInfo"

typedef enum lp_mcp_era { LP_MCP_ERA_LEGACY = 0, LP_MCP_ERA_MODERN = 1 } lp_mcp_era;

/* MCP log levels (RFC 5424 order). LP_MCP_LOG_NONE: send no notifications/message. */
typedef enum lp_mcp_log_level {
    LP_MCP_LOG_DEBUG = 0,
    LP_MCP_LOG_INFO,
    LP_MCP_LOG_NOTICE,
    LP_MCP_LOG_WARNING,
    LP_MCP_LOG_ERROR,
    LP_MCP_LOG_CRITICAL,
    LP_MCP_LOG_ALERT,
    LP_MCP_LOG_EMERGENCY,
    LP_MCP_LOG_NONE
} lp_mcp_log_level;

/* "debug" ... "emergency"; NULL for LP_MCP_LOG_NONE. */
const char *lp_mcp_log_level_name(lp_mcp_log_level lv);
/* Parse a level name; false when s is not one of the eight names. */
bool lp_mcp_log_level_parse(const char *s, lp_mcp_log_level *out);

/* ------------------------------------------------------------------------------------------
 * Server options. Zero means "default" for every field. */
#define LP_MCP_DEFAULT_WORKERS 4u
#define LP_MCP_MAX_WORKERS 64u
#define LP_MCP_DEFAULT_RESULT_BYTES ((size_t)24 * 1024)
#define LP_MCP_MIN_RESULT_BYTES ((size_t)1024)
#define LP_MCP_DEFAULT_LINE_BYTES ((size_t)16 * 1024 * 1024)
#define LP_MCP_DEFAULT_SHUTDOWN_GRACE_MS 2000u
/* Longer than the longest wait an argument can ask for (waitMs, 600 s). */
#define LP_MCP_DEFAULT_CALL_TIMEOUT_MS 660000u
#define LP_MCP_DEFAULT_CANCEL_GRACE_MS 2000u
/* JSON-RPC error of a call the watchdog gave up on (the MCP SDKs' RequestTimeout). */
#define LP_RPC_REQUEST_TIMEOUT (-32001)

typedef struct lp_mcp_options {
    unsigned workers;          /* worker threads for tools/call (default 4, max 64) */
    size_t max_result_bytes;   /* budget of one tool result's JSON (default 24 KiB, min 1 KiB) */
    size_t max_line_bytes;     /* longest accepted input line (default 16 MiB) */
    unsigned shutdown_grace_ms; /* after stdin closes: wait this long for in-flight calls,
                                   then cancel them and wait as long again (default 2000) */
    unsigned call_timeout_ms;  /* a tools/call still running after this long is answered
                                  with a -32001 timeout error and abandoned (default 660000) */
    unsigned cancel_grace_ms;  /* a cancelled call still running after this long is abandoned
                                  (default 2000); see "Stuck calls" at lp_mcp_serve */
    bool test_tools;           /* register the debug_* test fixtures (LOUPE_MCP_TEST_TOOLS=1) */
    struct lp_catalog *tool_catalog; /* serve search_tools over it (--tool-catalog); borrowed,
                                        not changed while the server runs; NULL: no tool */
    const char *version;       /* serverInfo.version (borrowed; static storage) */
} lp_mcp_options;

/* Fill defaults for zero fields and check ranges (LP_EINVAL with a message naming the
 * option otherwise). */
lp_status lp_mcp_options_resolve(lp_mcp_options *o, lp_error *err);

/* ------------------------------------------------------------------------------------------
 * Tools.
 *
 * A call is what a handler sees. All pointers obtained from it are valid until the handler
 * returns (arena memory until the call ends, after the response is written).
 */
typedef struct lp_mcp_call lp_mcp_call;

/*
 * A tool handler. On success it returns LP_OK and stores a JSON object in *result (ownership
 * passes to the server; it becomes structuredContent and must validate against the tool's
 * outputSchema). The server then fits it into the byte budget (see lp_mcp_budget_fit) using
 * the tool's `truncatable` keys.
 *
 * On failure it returns a negative lp_status with err filled: the client gets a tool result
 * with isError true and the text "<status code>: <err->msg>", so err->msg must tell the
 * agent what to do next. LP_ECANCELED after lp_mcp_call_cancelled() became true means "I
 * stopped because I was asked to": no response is sent for a call the client cancelled.
 * *result must be left NULL on failure.
 */
typedef lp_status (*lp_mcp_tool_fn)(lp_mcp_call *call, json_t **result, lp_error *err);

typedef struct lp_mcp_tool_def {
    const char *name;        /* [a-z0-9_]+, unique */
    const char *title;       /* short human title */
    const char *description; /* for an agent: what it is for, when to call it, what next */
    /* JSON Schema 2020-12 texts. The input schema may use only the subset that
     * lp_mcp_schema_check accepts (validation happens in C, uniformly). The output schema is
     * any 2020-12 object schema; the registry adds the `truncated` and `warnings` properties
     * (every result goes through the budget) and, when `envelope` is set, the agent envelope
     * properties (lp_mcp_envelope_schema_properties). Both get "$schema" if missing. */
    const char *input_schema;
    const char *output_schema;
    bool envelope;           /* the result is an agent envelope (DESIGN.md section 10) */
    bool read_only, destructive, idempotent, open_world; /* annotations */
    /* Top-level array keys of the result the budget may cut, in cut order; NULL-terminated.
     * NULL: nothing can be cut (only long strings are shortened). */
    const char *const *truncatable;
    lp_mcp_tool_fn fn;
    void *user;              /* handed back by lp_mcp_call_user() */
    bool test_only;          /* a test fixture; documented as such in its description */
} lp_mcp_tool_def;

typedef struct lp_mcp_registry lp_mcp_registry;

lp_mcp_registry *lp_mcp_registry_new(void);
void lp_mcp_registry_free(lp_mcp_registry *r); /* NULL is a no-op */
/* Register a tool. The def's strings and `user` are borrowed for the registry's lifetime
 * (use static storage). Fails with LP_EINVAL when the name is taken or malformed, a schema
 * is not valid JSON, or the input schema uses keywords outside the supported subset. */
lp_status lp_mcp_registry_add(lp_mcp_registry *r, const lp_mcp_tool_def *def, lp_error *err);
size_t lp_mcp_registry_count(const lp_mcp_registry *r);
/* The tool list as sent by tools/list (new reference; caller owns). */
json_t *lp_mcp_registry_tools_json(const lp_mcp_registry *r);
/* Run fn(ctx) when the registry is freed (after the server stopped), in reverse order of
 * registration: tools that keep server-wide state (background index builds, caches) stop
 * and release it there. */
void lp_mcp_registry_on_free(lp_mcp_registry *r, void (*fn)(void *ctx), void *ctx);

/*
 * Register every tool loupe serves (src/mcp/tools.c): list_codebases, manage_index,
 * search_codebase, continue_search, file_outline and read_file, then the debug_* fixtures
 * when opt->test_tools. The index tools share server-wide state (background index
 * operations, the freshness cache) that lives until the registry is freed; freeing it
 * cancels the index operations still running (their previous publication stays current).
 */
lp_status lp_mcp_register_tools(lp_mcp_registry *r, const lp_mcp_options *opt, lp_error *err);
/* The test fixtures alone (src/mcp/tools_debug.c). */
lp_status lp_mcp_register_debug_tools(lp_mcp_registry *r, lp_error *err);
/* search_tools over opt->tool_catalog (src/mcp/tools_catalog.c). */
lp_status lp_mcp_register_catalog_tools(lp_mcp_registry *r, const lp_mcp_options *opt,
                                        lp_error *err);

/* --- what a handler may ask of its call --- */

/* The validated arguments object (borrowed; never NULL, {} when the client sent none). */
const json_t *lp_mcp_call_args(const lp_mcp_call *c);
/* The bytes of the call's "pathBytes" argument (decoded, NUL-free), or NULL when it has none.
 * Borrowed until the call ends. lp_tools_arg_str(call, "path") returns it when present. */
const char *lp_mcp_call_path_bytes(const lp_mcp_call *c);
/* Per-call arena, released after the response is written. */
lp_arena *lp_mcp_call_arena(lp_mcp_call *c);
/* lp_mcp_tool_def.user of the called tool. */
void *lp_mcp_call_user(const lp_mcp_call *c);
const char *lp_mcp_call_tool_name(const lp_mcp_call *c);
/* Protocol version governing this call ("2025-06-18", "2025-11-25", "2026-07-28"). */
const char *lp_mcp_call_protocol_version(const lp_mcp_call *c);
lp_mcp_era lp_mcp_call_era(const lp_mcp_call *c);
/* Client capabilities declared for this call (modern: per request; legacy: at initialize).
 * Borrowed; may be NULL. */
const json_t *lp_mcp_call_client_capabilities(const lp_mcp_call *c);
/* Budget the result will be fitted into (for handlers that bound content themselves). */
size_t lp_mcp_call_max_result_bytes(const lp_mcp_call *c);
/* True once the client cancelled the call or the server is shutting down. Poll it between
 * units of work and return LP_ECANCELED promptly. Thread-safe. */
bool lp_mcp_call_cancelled(const lp_mcp_call *c);
/* Report progress when the client asked for it (_meta.progressToken); otherwise a no-op.
 * progress must increase between calls (non-increasing values are dropped); total < 0 means
 * unknown; message may be NULL. */
void lp_mcp_call_progress(lp_mcp_call *c, double progress, double total, const char *message);
/* Send notifications/message when the client's level for this call admits lv (legacy: the
 * level set by logging/setLevel; modern: _meta io.modelcontextprotocol/logLevel; no level,
 * no message). Also logged to stderr at debug. */
void lp_mcp_call_log(lp_mcp_call *c, lp_mcp_log_level lv, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Pin slot: a handler pins one index publication for the whole call and stores it here;
 * the server calls release(pin) exactly once after the response is written (or the call is
 * dropped). Setting a new pin releases the previous one. */
void lp_mcp_call_set_pin(lp_mcp_call *c, void *pin, void (*release)(void *pin));
void *lp_mcp_call_pin(const lp_mcp_call *c);
/* A more specific stable code for the handler's failure ("continuation_expired", ...): the
 * isError text becomes "<code>: <err->msg>" instead of "<status code>: <err->msg>". code must
 * be a static string of [a-z0-9_]; NULL restores the status code. Ignored on success. */
void lp_mcp_call_set_error_code(lp_mcp_call *c, const char *code);

/* ------------------------------------------------------------------------------------------
 * Input validation: a JSON Schema 2020-12 subset implemented in C.
 *
 * Supported keywords: $schema, $id, title, description, default, examples, format
 * (annotation only), type (one name or an array of names), properties, required,
 * additionalProperties (false/true), enum, const, minimum, maximum, exclusiveMinimum,
 * exclusiveMaximum, minLength, maxLength (Unicode code points), items, minItems, maxItems.
 * Anything else makes lp_mcp_schema_check fail, so no tool silently relies on a keyword
 * that is not enforced.
 */
lp_status lp_mcp_schema_check(const json_t *schema, lp_error *err);
/* Validate args against schema. On failure returns false and writes into msg one sentence
 * per problem (at most 5) naming the argument, what was expected and what was given, then
 * "Example: {...}" from the schema's first `examples` entry when there is one. */
bool lp_mcp_validate_args(const json_t *schema, const json_t *args, const char *tool,
                          lp_buf *msg);

/* ------------------------------------------------------------------------------------------
 * Agent envelope (DESIGN.md section 10) and the result byte budget.
 *
 * {codebaseRoot, publication {id, createdAt, state}, freshness {state,
 *  changedSincePublication}, warnings [{code, message}], recommendedNextAction {tool,
 *  arguments}, truncated} plus the tool's own content.
 */
#define LP_MCP_STATE_NOT_INDEXED "not_indexed"
#define LP_MCP_STATE_INDEXING "indexing"
#define LP_MCP_STATE_READY "ready"
#define LP_MCP_STATE_FAILED "failed"
#define LP_MCP_STATE_REQUIRES_REINDEX "requires_reindex"
#define LP_MCP_STATE_STALE "stale"
#define LP_MCP_STATE_DAMAGED "damaged"

/* New envelope {codebaseRoot, warnings: [], truncated: false}; root may be NULL (then
 * codebaseRoot is null). Caller owns the reference. */
json_t *lp_mcp_envelope_new(const char *codebase_root);
/* state: one of LP_MCP_STATE_*; created_at_ms is formatted as ISO-8601 UTC. id < 0 or
 * created_at_ms < 0 write null for that field. */
void lp_mcp_envelope_set_publication(json_t *env, int64_t id, int64_t created_at_ms,
                                     const char *state);
void lp_mcp_envelope_set_freshness(json_t *env, const char *state, int64_t changed_since);
/* Append {code, message} to warnings (created when missing); the code is w's (core/warn.h,
 * the one table of warning codes). */
void lp_mcp_envelope_warn(json_t *env, lp_warn w, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same with a code already in text form (a "code: message" warning from src/search,
 * an lp_read_info.disk_code): the code must come from lp_warn_code. */
void lp_mcp_envelope_warn_raw(json_t *env, const char *code, const char *message);
/* recommendedNextAction = {tool, arguments}; arguments is stolen (NULL gives {}). */
void lp_mcp_envelope_next_action(json_t *env, const char *tool, json_t *arguments);
/* JSON Schema `properties` for the envelope fields (new reference; caller owns). */
json_t *lp_mcp_envelope_schema_properties(void);

/*
 * Fit result (an object) into max_bytes of compact JSON, deterministically:
 *   1. sets "truncated": false; if it fits, done;
 *   2. otherwise, for each key of `truncatable` in order, keeps the longest prefix of that
 *      array that fits (binary search), adds a result_truncated warning naming the key and
 *      "shown N of M", sets "truncated": true; stops as soon as the result fits;
 *   3. if it still does not fit, halves the longest string leaves (UTF-8 safe, marked with
 *      an ellipsis) and adds a text_shortened warning.
 * On success *out is the compact JSON (caller frees with free()) and *out_len its length.
 * Fails with LP_ETOOBIG when even that cannot fit (the result is left valid JSON).
 */
lp_status lp_mcp_budget_fit(json_t *result, size_t max_bytes, const char *const *truncatable,
                            char **out, size_t *out_len, lp_error *err);

/* ------------------------------------------------------------------------------------------
 * The server. */

/*
 * Serve MCP on in_fd/out_fd until in_fd reaches end of file (or SIGINT/SIGTERM when
 * install_signals), then finish or cancel in-flight calls within 2 x shutdown_grace_ms and
 * return LP_OK. out_fd carries protocol messages only. reg is borrowed.
 */
lp_status lp_mcp_serve(int in_fd, int out_fd, const lp_mcp_registry *reg,
                       const lp_mcp_options *opt, bool install_signals, lp_error *err);

#endif
