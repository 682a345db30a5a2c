/*
 * mcp_int.h: what the files of src/mcp share. Not part of the module's contract.
 */
#ifndef LP_MCP_INT_H
#define LP_MCP_INT_H

#include "mcp/mcp.h"

#include <pthread.h>
#include <stdatomic.h>

#define LP_MCP_SERVER_NAME "loupe"
#define LP_MCP_SCHEMA_2020_12 "https://json-schema.org/draft/2020-12/schema"

/* A registered tool: the definition plus its parsed schemas. */
typedef struct lp_mcp_tool {
    lp_mcp_tool_def def;
    json_t *input_schema;  /* owned; "$schema" added; a "path" argument gets "pathBytes" */
    json_t *output_schema; /* owned; envelope/budget properties merged in */
    json_t *listing;       /* owned; the tools/list entry */
} lp_mcp_tool;

typedef struct lp_mcp_cleanup {
    void (*fn)(void *ctx);
    void *ctx;
} lp_mcp_cleanup;

struct lp_mcp_registry {
    LP_VEC(lp_mcp_tool) tools;
    LP_VEC(lp_mcp_cleanup) cleanups;
};

const lp_mcp_tool *lp_mcp_registry_find(const lp_mcp_registry *r, const char *name);
/* "a, b, c" of every tool name into out. */
void lp_mcp_registry_names(const lp_mcp_registry *r, lp_buf *out);

typedef struct lp_mcp_server lp_mcp_server;

/* One tools/call in flight. Owned by the server's in-flight list. */
struct lp_mcp_call {
    lp_mcp_server *srv;
    const lp_mcp_tool *tool;
    json_t *id;             /* owned; the JSON-RPC id (integer or string) */
    char *id_key;           /* owned; canonical key for lookups ("n:5", "s:abc") */
    json_t *args;           /* owned; validated object */
    char *path_bytes;       /* owned; NULL, or the bytes of the pathBytes argument */
    json_t *progress_token; /* owned; NULL when no progress was asked for */
    json_t *client_caps;    /* owned; may be NULL */
    lp_mcp_era era;
    const char *version;    /* static string */
    lp_mcp_log_level log_level; /* modern: per request; legacy: LP_MCP_LOG_NONE = session */
    atomic_bool client_cancelled;
    atomic_bool shutdown_cancelled;
    atomic_bool answered;   /* a response (or the decision not to send one) was made */
    double last_progress;
    bool has_progress;
    bool running;           /* a worker picked it up */
    size_t max_bytes;       /* this answer's budget: maxBytes, at most the server's cap */
    uint64_t started_ns;    /* when it started running (under the server lock) */
    uint64_t cancel_ns;     /* when the client cancelled it, 0 if not (under the lock) */
    atomic_bool abandoned;  /* the watchdog gave up on it: its result is dropped, the
                               handler is asked to stop; the worker still owns the call */
    bool replaced;          /* a new worker took the abandoned one's place (under the lock) */
    lp_arena arena;
    void *pin;
    void (*pin_release)(void *pin);
    const char *error_code; /* static; replaces the status code in an isError text */
    struct lp_mcp_call *next_queued;
    struct lp_mcp_call *next_inflight;
};

/* --- jsonrpc.c: message shapes and the output channel --- */

/* Canonical key of a request id ("n:<int>" or "s:<string>") into out; false when the id is
 * not an integer or a string. */
bool lp_mcp_id_key(const json_t *id, lp_buf *out);
/* {"jsonrpc":"2.0","id":id,"error":{code,message[,data]}}; id NULL gives null; data is
 * stolen. */
json_t *lp_mcp_error_msg(const json_t *id, int code, const char *message, json_t *data);
/* {"jsonrpc":"2.0","id":id,"result":result}; result is stolen. */
json_t *lp_mcp_result_msg(const json_t *id, json_t *result);
/* {"jsonrpc":"2.0","method":method,"params":params}; params is stolen. */
json_t *lp_mcp_notification_msg(const char *method, json_t *params);

/* A line jansson refused (strict is its error): valid JSON that it cannot hold, or not JSON.
 * For valid JSON, *id is the request id when it can be read and echoed (caller owns it;
 * NULL otherwise) and field names the key or value that could not be held
 * ("params.arguments.limit"). */
typedef enum lp_mcp_unrepresentable {
    LP_MCP_NOT_JSON,                     /* a real parse error */
    LP_MCP_BIG_INTEGER,                  /* an integer past 64 bits, a real past double */
    LP_MCP_HAS_NUL,                      /* "\u0000" inside a string */
    LP_MCP_UNREPRESENTABLE_NOTIFICATION, /* either, in a message that wants no answer */
} lp_mcp_unrepresentable;
lp_mcp_unrepresentable lp_mcp_parse_unrepresentable(const char *line, size_t len,
                                                    const json_error_t *strict, json_t **id,
                                                    lp_buf *field);

/* The output channel: whole lines written under one lock, so messages never interleave. */
typedef struct lp_mcp_out {
    int fd;
    pthread_mutex_t lock;
    bool broken; /* a write failed (peer gone): later writes are dropped */
    size_t written;
} lp_mcp_out;

void lp_mcp_out_init(lp_mcp_out *o, int fd);
void lp_mcp_out_release(lp_mcp_out *o);
/* Serialize msg compactly and write it as one line; consumes the reference. */
void lp_mcp_out_send(lp_mcp_out *o, json_t *msg);

/* Line reader over a file descriptor with a length limit. */
typedef struct lp_mcp_reader {
    int fd;
    size_t max_line;
    lp_buf buf;      /* pending bytes */
    lp_buf line;     /* the line handed out last */
    size_t scan;     /* bytes of buf already searched for '\n' */
    bool eof;
    bool discarding; /* inside an over-long line: drop bytes until the next '\n' */
    size_t discarded;
} lp_mcp_reader;

typedef enum lp_mcp_read_kind {
    LP_MCP_READ_LINE,    /* line and len: one line without its '\n' (and a trailing '\r') */
    LP_MCP_READ_TOOLONG, /* a line longer than max_line was dropped; *len = its length so far */
    LP_MCP_READ_EOF,
    LP_MCP_READ_INTR,    /* read(2) was interrupted by a signal */
    LP_MCP_READ_ERROR,
} lp_mcp_read_kind;

void lp_mcp_reader_init(lp_mcp_reader *r, int fd, size_t max_line);
void lp_mcp_reader_release(lp_mcp_reader *r);
/* The line stays valid until the next call. */
lp_mcp_read_kind lp_mcp_reader_next(lp_mcp_reader *r, const char **line, size_t *len);

/* --- text.c: the text block, written for a model --- */

#define LP_MCP_TEXT_MEMO_SLOTS 512

/* What this session was already told (warnings), so the text does not repeat it. */
typedef struct lp_mcp_text_memo {
    pthread_mutex_t lock;
    uint64_t slots[LP_MCP_TEXT_MEMO_SLOTS];
    size_t used;
    bool json; /* LOUPE_MCP_TEXT=json: the text block is the JSON of structuredContent */
} lp_mcp_text_memo;

/* Reads LOUPE_MCP_TEXT: LP_EINVAL naming the accepted values when it is neither "outline"
 * nor "json". */
lp_status lp_mcp_text_memo_init(lp_mcp_text_memo *m, lp_error *err);
void lp_mcp_text_memo_destroy(lp_mcp_text_memo *m);
/* The compact outline of structured (see text.c for the rules); memo may be NULL. Returns a
 * NUL-terminated malloc'd string (*len without the NUL), NULL when out of memory. */
char *lp_mcp_text_render(const json_t *structured, lp_mcp_text_memo *memo, size_t *len);

/* --- registry.c: shaping tools/call results --- */

/* The CallToolResult for a successful handler result (stolen): budget applied, text block +
 * structuredContent. The text block is the compact outline (text.c) unless memo is NULL or
 * says json (LOUPE_MCP_TEXT=json), or the outline would be longer than the JSON.
 * Returns NULL and fills err when the budget cannot be met. */
json_t *lp_mcp_tool_result_ok(const lp_mcp_tool *t, json_t *structured, size_t max_bytes,
                              lp_mcp_text_memo *memo, lp_error *err);
/* The CallToolResult {content:[{type:text,text:msg}], isError:true}. */
json_t *lp_mcp_tool_result_error(const char *msg);

/* --- validate.c --- */
size_t lp_mcp_utf8_length(const char *s, size_t n);

#endif
