/*
 * server.c: the MCP server loop: reads one JSON-RPC message per line, answers protocol
 * methods on the reader thread, runs tools/call on a worker pool, and shuts down cleanly.
 *
 * Threads: the reader (the caller of lp_mcp_serve) parses every message and answers
 * initialize, ping, logging/setLevel, server/discover, tools/list and argument errors at
 * once, so a slow tool never delays them. tools/call goes through a FIFO queue to
 * `workers` threads. All output goes through one lp_mcp_out (one lock, whole lines).
 *
 * Invariants: every request gets exactly one response, except a call the client cancelled
 * (none, as the specification asks); `answered` is claimed with an atomic exchange so a
 * worker finishing late, the watchdog and the shutdown path never both answer; a call leaves
 * the in-flight list only under the server lock, and is freed by whoever removed it.
 *
 * Stuck calls: a watchdog thread looks at the running calls ten times a second. A call the
 * client cancelled that is still running cancel_grace_ms later, or any call running past
 * call_timeout_ms (answered then with a -32001 timeout error), is abandoned: it is flagged
 * (lp_mcp_call_cancelled turns true, so a handler that checks stops), its eventual result is
 * dropped, and a new worker thread takes its place so the pool never shrinks. The abandoned
 * call keeps everything it owns (its arena, its pinned publication, its store connection):
 * they stay with the worker thread that runs it and are released when the handler returns,
 * never by the watchdog, so nothing is freed under a running handler. That thread then
 * exits. At most LP_MCP_MAX_STUCK calls are abandoned at once; past that no worker is added.
 */
#include "mcp/mcp_int.h"

#include "lang/lang.h"

#include <errno.h>
#include <signal.h>
#include <time.h>

#define SUPPORTED_DESCRIPTION                                                                  \
    "loupe speaks 2026-07-28 through the per-request _meta, and 2025-11-25 and 2025-06-18 "   \
    "through initialize"

#define LP_MCP_MAX_STUCK 64u
#define WATCHDOG_TICK_MS 100u

static const char instructions[] =
    "loupe answers questions about local codebases with evidence: the owning symbol, its "
    "exact source span, its callers and callees, and the state of the index that produced "
    "the answer. Every result names the codebase root and index publication it came from, "
    "lists what is missing or partial in 'warnings' (stable codes), and suggests a "
    "'recommendedNextAction' (tool and arguments) to call next. Results are bounded in "
    "bytes: when 'truncated' is true, narrow the request.";

struct lp_mcp_server {
    const lp_mcp_registry *reg;
    lp_mcp_text_memo text_memo; /* what this session's text blocks already said */
    lp_mcp_options opt;
    const char *version;
    lp_mcp_out out;

    pthread_mutex_t lock; /* guards everything below up to `threads` */
    pthread_cond_t work_cv;
    pthread_cond_t idle_cv;
    lp_mcp_call *queue_head, *queue_tail;
    lp_mcp_call *inflight;
    size_t ninflight;
    bool stopping;

    pthread_t *threads;       /* every worker ever started (replacements appended) */
    unsigned nthreads, threads_cap;
    unsigned running_threads; /* threads that have not exited yet (under lock) */
    unsigned stuck;           /* abandoned calls whose handler has not returned (under lock) */
    pthread_cond_t watch_cv;
    pthread_t watchdog;
    bool have_watchdog;
    bool watchdog_stop; /* under lock */

    /* Legacy session state: written by the reader thread only. */
    bool initialized;
    const char *legacy_version;
    json_t *legacy_caps;
    atomic_int legacy_log_level; /* lp_mcp_log_level; NONE until logging/setLevel */
    atomic_bool shutting_down;
};

/* What the reader learned about one request before dispatching it. */
typedef struct req_ctx {
    const json_t *id;
    const char *method;
    const json_t *params; /* may be NULL */
    lp_mcp_era era;
    const char *version;
    lp_mcp_log_level log_level; /* modern only */
    const json_t *caps;         /* borrowed */
    const json_t *progress_token;
} req_ctx;

static volatile sig_atomic_t got_signal;

static void on_signal(int sig) { got_signal = sig; }

/* ------------------------------------------------------------------------------------------
 * Responses. */

static json_t *server_info(const lp_mcp_server *s)
{
    json_t *i = json_object();
    json_object_set_new(i, "name", lp_json_textz(LP_MCP_SERVER_NAME));
    json_object_set_new(i, "title", json_string("loupe code intelligence"));
    json_object_set_new(i, "version", lp_json_textz(s->version));
    return i;
}

static bool cacheable(const char *method)
{
    return !strcmp(method, "tools/list") || !strcmp(method, "server/discover");
}

/* Shape a result for the era of the request and send it; consumes result. */
static void send_result(lp_mcp_server *s, lp_mcp_era era, const char *method, const json_t *id,
                        json_t *result)
{
    if (era == LP_MCP_ERA_MODERN) {
        json_object_set_new(result, "resultType", json_string("complete"));
        if (cacheable(method)) {
            /* The tool list and the discovery result change only with the binary. */
            json_object_set_new(result, "ttlMs", json_integer(3600000));
            json_object_set_new(result, "cacheScope", json_string("private"));
        }
        json_t *meta = json_object_get(result, "_meta");
        if (json_is_object(meta)) {
            json_object_set_new(meta, LP_MCP_META_SERVER_INFO, server_info(s));
        } else {
            meta = json_object();
            json_object_set_new(meta, LP_MCP_META_SERVER_INFO, server_info(s));
            json_object_set_new(result, "_meta", meta); /* filled before it is handed over */
        }
    }
    lp_mcp_out_send(&s->out, lp_mcp_result_msg(id, result));
}

static void send_error(lp_mcp_server *s, const json_t *id, int code, json_t *data,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void send_error(lp_mcp_server *s, const json_t *id, int code, json_t *data,
                       const char *fmt, ...)
{
    lp_buf b;
    lp_buf_init(&b, 0);
    va_list ap;
    va_start(ap, fmt);
    lp_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    lp_log(LP_LOG_DEBUG, "mcp.error", "code=%d msg=\"%.*s\"", code, LP_CUT(b.ptr, 200));
    lp_mcp_out_send(&s->out, lp_mcp_error_msg(id, code, b.ptr, data));
    lp_buf_release(&b);
}

/* ------------------------------------------------------------------------------------------
 * Calls: creation, the in-flight list, the queue. */

static void call_free(lp_mcp_call *c)
{
    if (!c)
        return;
    if (c->pin_release && c->pin)
        c->pin_release(c->pin);
    json_decref(c->id);
    json_decref(c->args);
    free(c->path_bytes);
    json_decref(c->progress_token);
    json_decref(c->client_caps);
    free(c->id_key);
    lp_arena_release(&c->arena);
    free(c);
}

/* Under lock. */
static lp_mcp_call *find_inflight(lp_mcp_server *s, const char *key)
{
    for (lp_mcp_call *c = s->inflight; c; c = c->next_inflight)
        if (!strcmp(c->id_key, key))
            return c;
    return NULL;
}

/* Under lock. */
static void remove_inflight(lp_mcp_server *s, lp_mcp_call *c)
{
    for (lp_mcp_call **p = &s->inflight; *p; p = &(*p)->next_inflight) {
        if (*p == c) {
            *p = c->next_inflight;
            s->ninflight--;
            break;
        }
    }
    if (!s->ninflight)
        pthread_cond_broadcast(&s->idle_cv);
}

/* Under lock: take c out of the queue; false if it is not queued. */
static bool unqueue(lp_mcp_server *s, lp_mcp_call *c)
{
    lp_mcp_call *prev = NULL;
    for (lp_mcp_call *q = s->queue_head; q; prev = q, q = q->next_queued) {
        if (q != c)
            continue;
        if (prev)
            prev->next_queued = q->next_queued;
        else
            s->queue_head = q->next_queued;
        if (s->queue_tail == q)
            s->queue_tail = prev;
        return true;
    }
    return false;
}

static void send_shutdown_error(lp_mcp_server *s, lp_mcp_call *c)
{
    send_error(s, c->id, LP_RPC_INTERNAL_ERROR, NULL,
               "loupe is shutting down (its input was closed) and cancelled tools/call %s "
               "before it finished; send the request again to a running server",
               c->tool->def.name);
}

static void shutdown_answer(lp_mcp_server *s, lp_mcp_call *c)
{
    if (!atomic_exchange(&c->answered, true))
        send_shutdown_error(s, c);
}

/* Worker side: the handler returned; answer (unless cancelled or already answered) and
 * retire the call. Returns true when the call was abandoned and another worker replaced
 * this one (the calling thread must then exit). */
static bool complete_call(lp_mcp_server *s, lp_mcp_call *c, lp_status rc, json_t *result,
                          lp_error *err)
{
    bool client_cancelled = atomic_load(&c->client_cancelled);
    if (client_cancelled) {
        json_decref(result);
        atomic_store(&c->answered, true);
        lp_log(LP_LOG_INFO, "mcp.call.cancelled", "tool=%s id=%s", c->tool->def.name, c->id_key);
    } else if (!atomic_exchange(&c->answered, true)) {
        json_t *res = NULL;
        if (rc == LP_OK) {
            if (!json_is_object(result)) {
                json_decref(result);
                res = lp_mcp_tool_result_error("internal_error: the tool returned no result; "
                                               "this is a loupe bug, please report it");
            } else {
                lp_error e2 = {0};
                res = lp_mcp_tool_result_ok(c->tool, result, c->max_bytes,
                                            &s->text_memo, &e2);
                if (!res) {
                    lp_buf m;
                    lp_buf_init(&m, 0);
                    lp_buf_printf(&m, "%s: %s", lp_status_code(e2.code), e2.msg);
                    res = lp_mcp_tool_result_error(m.ptr);
                    lp_buf_release(&m);
                }
            }
        } else if (rc == LP_ECANCELED && atomic_load(&c->shutdown_cancelled)) {
            json_decref(result);
            send_shutdown_error(s, c);
        } else {
            json_decref(result);
            lp_buf m;
            lp_buf_init(&m, 0);
            lp_buf_printf(&m, "%s: %s", c->error_code ? c->error_code : lp_status_code(rc),
                          err->msg[0] ? err->msg : "the tool failed without saying why");
            res = lp_mcp_tool_result_error(m.ptr);
            lp_buf_release(&m);
        }
        if (res)
            send_result(s, c->era, "tools/call", c->id, res);
    } else {
        json_decref(result);
    }
    pthread_mutex_lock(&s->lock);
    remove_inflight(s, c);
    bool replaced = c->replaced;
    if (atomic_load(&c->abandoned)) {
        s->stuck--;
        lp_log(LP_LOG_WARN, "mcp.call.abandoned_returned", "tool=%s id=%s status=%s",
               c->tool->def.name, c->id_key, lp_status_code(rc));
    }
    pthread_mutex_unlock(&s->lock);
    call_free(c);
    return replaced;
}

/* A worker thread ends (called without the lock). The parser a tool may have made
 * (detect_changes parses) is released before the server may see the thread gone. */
static void *worker_exit(lp_mcp_server *s)
{
    lp_lang_thread_release();
    pthread_mutex_lock(&s->lock);
    s->running_threads--;
    pthread_cond_broadcast(&s->idle_cv);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static void *worker_main(void *arg)
{
    lp_mcp_server *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        while (!s->queue_head && !s->stopping)
            pthread_cond_wait(&s->work_cv, &s->lock);
        lp_mcp_call *c = s->queue_head;
        if (!c) {
            pthread_mutex_unlock(&s->lock);
            return worker_exit(s);
        }
        s->queue_head = c->next_queued;
        if (!s->queue_head)
            s->queue_tail = NULL;
        c->running = true;
        c->started_ns = lp_now_ns();
        pthread_mutex_unlock(&s->lock);

        json_t *result = NULL;
        lp_error err = {0};
        uint64_t t0 = lp_now_ns();
        lp_json_failure_reset();
        lp_status rc = c->tool->def.fn(c, &result, &err);
        if (!rc && lp_json_failed(&err)) { /* an answer with a hole: say so, never send it */
            json_decref(result);
            result = NULL;
            rc = err.code;
        }
        lp_log(LP_LOG_INFO, "mcp.call", "tool=%s id=%s status=%s ms=%.1f", c->tool->def.name,
               c->id_key, lp_status_code(rc), (double)(lp_now_ns() - t0) / 1e6);
        if (complete_call(s, c, rc, result, &err))
            return worker_exit(s); /* abandoned and replaced: the pool has its worker */
    }
}

/* Under lock, with every signal blocked in the calling thread (workers inherit the mask, so
 * signals reach the reader's read(2)): start one more worker. */
static bool spawn_worker(lp_mcp_server *s)
{
    if (s->nthreads == s->threads_cap) {
        s->threads_cap = s->threads_cap ? s->threads_cap * 2 : 8;
        s->threads = lp_xrealloc(s->threads, lp_mul_size(s->threads_cap, sizeof *s->threads));
    }
    if (pthread_create(&s->threads[s->nthreads], NULL, worker_main, s) != 0)
        return false;
    s->nthreads++;
    s->running_threads++;
    return true;
}

/* ------------------------------------------------------------------------------------------
 * The watchdog (see "Stuck calls" at the top). */

typedef struct late_answer {
    json_t *id;
    char tool[64];
    double seconds;
} late_answer;
typedef LP_VEC(late_answer) late_vec;

static void deadline_in(struct timespec *ts, unsigned ms);

/* Under lock: give up on c. A timed-out call is answered (after the lock is released, from
 * *late); a cancelled one is not (the client asked for no answer). */
static void abandon(lp_mcp_server *s, lp_mcp_call *c, bool timed_out, uint64_t now,
                    late_vec *late)
{
    atomic_store(&c->abandoned, true);
    s->stuck++;
    if (timed_out && !atomic_exchange(&c->answered, true)) {
        late_answer *a = lp_vec_push_zero(late);
        a->id = json_deep_copy(c->id);
        snprintf(a->tool, sizeof a->tool, "%s", c->tool->def.name);
        a->seconds = (double)(now - c->started_ns) / 1e9;
    }
    if (s->stuck <= LP_MCP_MAX_STUCK && !s->watchdog_stop)
        c->replaced = spawn_worker(s);
    lp_log(LP_LOG_WARN, "mcp.call.abandoned",
           "tool=%s id=%s reason=%s running_ms=%llu stuck=%u replaced=%d", c->tool->def.name,
           c->id_key, timed_out ? "timeout" : "cancelled_but_running",
           (unsigned long long)((now - c->started_ns) / 1000000), s->stuck, c->replaced);
}

static void *watchdog_main(void *arg)
{
    lp_mcp_server *s = arg;
    uint64_t grace = (uint64_t)s->opt.cancel_grace_ms * 1000000ull;
    uint64_t limit = (uint64_t)s->opt.call_timeout_ms * 1000000ull;
    late_vec late = {0};
    pthread_mutex_lock(&s->lock);
    while (!s->watchdog_stop) {
        struct timespec ts;
        deadline_in(&ts, WATCHDOG_TICK_MS);
        pthread_cond_timedwait(&s->watch_cv, &s->lock, &ts);
        if (s->watchdog_stop)
            break;
        uint64_t now = lp_now_ns();
        for (lp_mcp_call *c = s->inflight; c; c = c->next_inflight) {
            if (!c->running || atomic_load(&c->abandoned))
                continue;
            bool cancelled = c->cancel_ns && now - c->cancel_ns >= grace;
            bool timed_out = now - c->started_ns >= limit;
            if (cancelled || timed_out)
                abandon(s, c, timed_out && !cancelled, now, &late);
        }
        if (!late.len)
            continue;
        pthread_mutex_unlock(&s->lock); /* never write while holding the server lock */
        for (size_t i = 0; i < late.len; i++) {
            late_answer *a = &late.items[i];
            json_t *data = json_object();
            json_object_set_new(data, "code", json_string("timeout"));
            json_object_set_new(data, "tool", lp_json_textz(a->tool));
            json_object_set_new(data, "timeoutMs", json_integer(s->opt.call_timeout_ms));
            send_error(s, a->id, LP_RPC_REQUEST_TIMEOUT, data,
                       "Request timed out: tools/call %s ran for %.1f s, past the %u ms limit "
                       "(--call-timeout-ms); it was abandoned and the server stays available. "
                       "Narrow the request or retry",
                       a->tool, a->seconds, s->opt.call_timeout_ms);
            json_decref(a->id);
        }
        late.len = 0;
        pthread_mutex_lock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    lp_vec_free(&late);
    return NULL;
}

/* ------------------------------------------------------------------------------------------
 * Handler-facing API. */

const json_t *lp_mcp_call_args(const lp_mcp_call *c) { return c->args; }
const char *lp_mcp_call_path_bytes(const lp_mcp_call *c) { return c->path_bytes; }
lp_arena *lp_mcp_call_arena(lp_mcp_call *c) { return &c->arena; }
void *lp_mcp_call_user(const lp_mcp_call *c) { return c->tool->def.user; }
const char *lp_mcp_call_tool_name(const lp_mcp_call *c) { return c->tool->def.name; }
const char *lp_mcp_call_protocol_version(const lp_mcp_call *c) { return c->version; }
lp_mcp_era lp_mcp_call_era(const lp_mcp_call *c) { return c->era; }
const json_t *lp_mcp_call_client_capabilities(const lp_mcp_call *c) { return c->client_caps; }
size_t lp_mcp_call_max_result_bytes(const lp_mcp_call *c) { return c->max_bytes; }

bool lp_mcp_call_cancelled(const lp_mcp_call *c)
{
    return atomic_load(&c->client_cancelled) || atomic_load(&c->shutdown_cancelled) ||
           atomic_load(&c->abandoned);
}

/* An integer when the value is integral (as most progress counts are), else a real. */
static json_t *number(double v)
{
    if (v >= -9e15 && v <= 9e15 && (double)(json_int_t)v == v)
        return json_integer((json_int_t)v);
    return json_real(v);
}

void lp_mcp_call_progress(lp_mcp_call *c, double progress, double total, const char *message)
{
    if (!c->progress_token || lp_mcp_call_cancelled(c))
        return;
    if (c->has_progress && progress <= c->last_progress)
        return;
    c->has_progress = true;
    c->last_progress = progress;
    json_t *p = json_object();
    json_object_set(p, "progressToken", c->progress_token);
    json_object_set_new(p, "progress", number(progress));
    if (total >= 0)
        json_object_set_new(p, "total", number(total));
    if (message)
        json_object_set_new(p, "message", lp_json_text(message, strlen(message)));
    lp_mcp_out_send(&c->srv->out, lp_mcp_notification_msg("notifications/progress", p));
}

void lp_mcp_call_log(lp_mcp_call *c, lp_mcp_log_level lv, const char *fmt, ...)
{
    lp_buf b;
    lp_buf_init(&b, 0);
    va_list ap;
    va_start(ap, fmt);
    lp_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    lp_log(LP_LOG_DEBUG, "mcp.tool_log", "tool=%s level=%s msg=\"%.*s\"", c->tool->def.name,
           lp_mcp_log_level_name(lv), LP_CUT(b.ptr, 200));
    lp_mcp_log_level threshold = c->era == LP_MCP_ERA_MODERN
                                     ? c->log_level
                                     : (lp_mcp_log_level)atomic_load(&c->srv->legacy_log_level);
    if (lv < LP_MCP_LOG_NONE && threshold != LP_MCP_LOG_NONE && lv >= threshold &&
        !lp_mcp_call_cancelled(c)) {
        json_t *p = json_object();
        json_object_set_new(p, "level", lp_json_textz(lp_mcp_log_level_name(lv)));
        json_object_set_new(p, "logger", lp_json_textz(c->tool->def.name));
        json_object_set_new(p, "data", lp_json_text(b.ptr, b.len));
        lp_mcp_out_send(&c->srv->out, lp_mcp_notification_msg("notifications/message", p));
    }
    lp_buf_release(&b);
}

void lp_mcp_call_set_pin(lp_mcp_call *c, void *pin, void (*release)(void *pin))
{
    if (c->pin && c->pin_release && c->pin != pin)
        c->pin_release(c->pin);
    c->pin = pin;
    c->pin_release = release;
}

void *lp_mcp_call_pin(const lp_mcp_call *c) { return c->pin; }

void lp_mcp_call_set_error_code(lp_mcp_call *c, const char *code) { c->error_code = code; }

/* ------------------------------------------------------------------------------------------
 * Methods. */

static json_t *capabilities(void)
{
    json_t *caps = json_object();
    json_t *tools = json_object();
    json_object_set_new(tools, "listChanged", json_false());
    json_object_set_new(caps, "tools", tools);
    json_object_set_new(caps, "logging", json_object());
    return caps;
}

static void do_initialize(lp_mcp_server *s, const req_ctx *r)
{
    json_t *pv = r->params ? json_object_get(r->params, "protocolVersion") : NULL;
    if (!json_is_string(pv)) {
        send_error(s, r->id, LP_RPC_INVALID_PARAMS, NULL,
                   "initialize needs params.protocolVersion, a string such as \"%s\"",
                   LP_MCP_LATEST_LEGACY);
        return;
    }
    if (s->initialized) {
        send_error(s, r->id, LP_RPC_INVALID_REQUEST, NULL,
                   "initialize was already received on this connection (protocol %s); start a "
                   "new server process to negotiate again",
                   s->legacy_version);
        return;
    }
    const char *asked = json_string_value(pv);
    const char *version = LP_MCP_LATEST_LEGACY;
    if (!strcmp(asked, LP_MCP_PROTOCOL_2025_06_18))
        version = LP_MCP_PROTOCOL_2025_06_18;
    s->initialized = true;
    s->legacy_version = version;
    json_t *caps = json_object_get(r->params, "capabilities");
    if (json_is_object(caps))
        s->legacy_caps = json_deep_copy(caps);
    json_t *ci = json_object_get(r->params, "clientInfo");
    lp_log(LP_LOG_INFO, "mcp.initialize", "asked=%s version=%s client=%s", asked, version,
           json_is_string(json_object_get(ci, "name"))
               ? json_string_value(json_object_get(ci, "name"))
               : "?");
    json_t *res = json_object();
    json_object_set_new(res, "protocolVersion", lp_json_textz(version));
    json_object_set_new(res, "capabilities", capabilities());
    json_object_set_new(res, "serverInfo", server_info(s));
    json_object_set_new(res, "instructions", lp_json_textz(instructions));
    send_result(s, LP_MCP_ERA_LEGACY, "initialize", r->id, res);
}

static void do_discover(lp_mcp_server *s, const req_ctx *r)
{
    json_t *res = json_object();
    json_t *versions = json_array();
    json_array_append_new(versions, lp_json_textz(LP_MCP_PROTOCOL_2026_07_28));
    json_object_set_new(res, "supportedVersions", versions);
    json_object_set_new(res, "capabilities", capabilities());
    json_object_set_new(res, "instructions", lp_json_textz(instructions));
    send_result(s, LP_MCP_ERA_MODERN, "server/discover", r->id, res);
}

static void do_set_level(lp_mcp_server *s, const req_ctx *r)
{
    json_t *lv = r->params ? json_object_get(r->params, "level") : NULL;
    lp_mcp_log_level level;
    if (!json_is_string(lv) || !lp_mcp_log_level_parse(json_string_value(lv), &level)) {
        send_error(s, r->id, LP_RPC_INVALID_PARAMS, NULL,
                   "logging/setLevel needs params.level, one of debug, info, notice, warning, "
                   "error, critical, alert, emergency");
        return;
    }
    atomic_store(&s->legacy_log_level, (int)level);
    send_result(s, LP_MCP_ERA_LEGACY, "logging/setLevel", r->id, json_object());
}

static void do_tools_list(lp_mcp_server *s, const req_ctx *r)
{
    json_t *cursor = r->params ? json_object_get(r->params, "cursor") : NULL;
    if (cursor && !json_is_null(cursor)) {
        send_error(s, r->id, LP_RPC_INVALID_PARAMS, NULL,
                   "invalid cursor: loupe lists every tool in one page, so there is no cursor "
                   "to continue from; call tools/list without params.cursor");
        return;
    }
    json_t *res = json_object();
    json_object_set_new(res, "tools", lp_mcp_registry_tools_json(s->reg));
    send_result(s, r->era, "tools/list", r->id, res);
}

/* The bytes of a pathBytes argument (validated as a string) into *out (caller frees), or
 * false with an invalid_argument message in msg. */
static bool path_bytes_arg(const json_t *pb, char **out, lp_buf *msg)
{
    lp_buf b;
    lp_buf_init(&b, LP_PATH_MAX);
    lp_error e = {0};
    bool ok = lp_bytes_unescape(lp_str_n(json_string_value(pb), json_string_length(pb)), &b,
                                &e) == LP_OK;
    if (ok && memchr(b.ptr, '\0', b.len)) {
        lp_error_set(&e, LP_EINVAL, "it holds %%00 (a NUL byte), which no path has");
        ok = false;
    }
    if (ok)
        *out = lp_buf_detach(&b, NULL);
    else
        lp_buf_printf(msg, "invalid_argument: pathBytes is not an escaped path: %s; give the "
                           "pathBytes value of an earlier answer as it is, or path",
                      e.msg);
    lp_buf_release(&b);
    return ok;
}

static void do_tools_call(lp_mcp_server *s, const req_ctx *r)
{
    json_t *name = r->params ? json_object_get(r->params, "name") : NULL;
    if (!json_is_string(name)) {
        send_error(s, r->id, LP_RPC_INVALID_PARAMS, NULL,
                   "tools/call needs params.name, the name of a tool from tools/list");
        return;
    }
    const lp_mcp_tool *t = lp_mcp_registry_find(s->reg, json_string_value(name));
    if (!t) {
        lp_buf names;
        lp_buf_init(&names, 0);
        lp_mcp_registry_names(s->reg, &names);
        json_t *data = json_object();
        json_t *avail = json_array();
        for (size_t i = 0; i < s->reg->tools.len; i++)
            json_array_append_new(avail, lp_json_textz(s->reg->tools.items[i].def.name));
        json_object_set_new(data, "availableTools", avail);
        send_error(s, r->id, LP_RPC_INVALID_PARAMS, data,
                   "unknown tool '%.*s'; the available tools are: %s (tools/list gives their "
                   "schemas)",
                   LP_CUT(json_string_value(name), 100), names.len ? names.ptr : "(none)");
        lp_buf_release(&names);
        return;
    }
    json_t *args = json_object_get(r->params, "arguments");
    if (args && !json_is_null(args) && !json_is_object(args)) {
        send_error(s, r->id, LP_RPC_INVALID_PARAMS, NULL,
                   "tools/call params.arguments must be an object holding the arguments of %s",
                   t->def.name);
        return;
    }
    lp_buf key;
    lp_buf_init(&key, 0);
    lp_mcp_id_key(r->id, &key);
    pthread_mutex_lock(&s->lock);
    bool dup = find_inflight(s, key.ptr) != NULL;
    pthread_mutex_unlock(&s->lock);
    if (dup) {
        send_error(s, r->id, LP_RPC_INVALID_REQUEST, NULL,
                   "request id %s is already used by a request still in flight; use a new id",
                   key.ptr + 2);
        lp_buf_release(&key);
        return;
    }
    json_t *own_args = args && json_is_object(args) ? json_deep_copy(args) : json_object();
    lp_buf msg;
    lp_buf_init(&msg, 0);
    /* pathBytes (the escaped form of a path that is not UTF-8) stands for path. */
    json_t *pb = json_object_get(own_args, "pathBytes");
    char *path_bytes = NULL;
    bool ok = lp_mcp_validate_args(t->input_schema, own_args, t->def.name, &msg);
    if (ok && pb)
        ok = path_bytes_arg(pb, &path_bytes, &msg);
    if (!ok) {
        send_result(s, r->era, "tools/call", r->id, lp_mcp_tool_result_error(msg.ptr));
        lp_buf_release(&msg);
        lp_buf_release(&key);
        json_decref(own_args);
        return;
    }
    lp_buf_release(&msg);

    lp_mcp_call *c = lp_xcalloc(1, sizeof *c);
    c->srv = s;
    c->tool = t;
    c->id = json_deep_copy(r->id);
    c->id_key = lp_buf_detach(&key, NULL);
    c->args = own_args;
    c->path_bytes = path_bytes;
    c->max_bytes = s->opt.max_result_bytes;
    json_t *mb = json_object_get(own_args, "maxBytes"); /* validated: an integer in range */
    if (json_is_integer(mb) && (size_t)json_integer_value(mb) < c->max_bytes)
        c->max_bytes = (size_t)json_integer_value(mb);
    json_object_del(own_args, "maxBytes");
    c->progress_token = r->progress_token ? json_deep_copy(r->progress_token) : NULL;
    c->client_caps = r->caps ? json_deep_copy(r->caps) : NULL;
    c->era = r->era;
    c->version = r->version;
    c->log_level = r->log_level;
    lp_arena_init(&c->arena, 0);
    pthread_mutex_lock(&s->lock);
    c->next_inflight = s->inflight;
    s->inflight = c;
    s->ninflight++;
    if (s->queue_tail)
        s->queue_tail->next_queued = c;
    else
        s->queue_head = c;
    s->queue_tail = c;
    pthread_cond_signal(&s->work_cv);
    pthread_mutex_unlock(&s->lock);
    lp_buf_release(&key);
}

static void do_cancelled(lp_mcp_server *s, const json_t *params)
{
    json_t *rid = params ? json_object_get(params, "requestId") : NULL;
    lp_buf key;
    lp_buf_init(&key, 0);
    if (!lp_mcp_id_key(rid, &key)) {
        lp_log(LP_LOG_DEBUG, "mcp.cancel.ignored", "reason=bad_request_id");
        lp_buf_release(&key);
        return;
    }
    lp_mcp_call *drop = NULL;
    pthread_mutex_lock(&s->lock);
    lp_mcp_call *c = find_inflight(s, key.ptr);
    if (c) {
        atomic_store(&c->client_cancelled, true);
        if (!c->cancel_ns)
            c->cancel_ns = lp_now_ns();
        if (!c->running && unqueue(s, c)) {
            remove_inflight(s, c);
            drop = c;
        }
    }
    pthread_mutex_unlock(&s->lock);
    lp_log(LP_LOG_INFO, "mcp.cancel", "id=%s found=%d queued=%d", key.ptr, c != NULL,
           drop != NULL);
    call_free(drop);
    lp_buf_release(&key);
}

/* ------------------------------------------------------------------------------------------
 * Dispatch. */

/* Validate the 2026-07-28 per-request envelope; on a problem fill key/problem. */
static bool check_envelope(const json_t *meta, const char **key, lp_buf *problem)
{
    json_t *pv = json_object_get(meta, LP_MCP_META_PROTOCOL_VERSION);
    if (!json_is_string(pv)) {
        *key = LP_MCP_META_PROTOCOL_VERSION;
        lp_buf_puts(problem, "must be a string naming the protocol version");
        return false;
    }
    json_t *caps = json_object_get(meta, LP_MCP_META_CLIENT_CAPABILITIES);
    if (!caps) {
        *key = LP_MCP_META_CLIENT_CAPABILITIES;
        lp_buf_puts(problem, "missing (send {} when the client has no optional capabilities)");
        return false;
    }
    if (!json_is_object(caps)) {
        *key = LP_MCP_META_CLIENT_CAPABILITIES;
        lp_buf_puts(problem, "must be an object");
        return false;
    }
    json_t *ci = json_object_get(meta, LP_MCP_META_CLIENT_INFO);
    if (ci && !(json_is_object(ci) && json_is_string(json_object_get(ci, "name")) &&
                json_is_string(json_object_get(ci, "version")))) {
        *key = LP_MCP_META_CLIENT_INFO;
        lp_buf_puts(problem, "must be an object with string name and version");
        return false;
    }
    json_t *ll = json_object_get(meta, LP_MCP_META_LOG_LEVEL);
    lp_mcp_log_level level;
    if (ll && !(json_is_string(ll) && lp_mcp_log_level_parse(json_string_value(ll), &level))) {
        *key = LP_MCP_META_LOG_LEVEL;
        lp_buf_puts(problem, "must be one of debug, info, notice, warning, error, critical, "
                             "alert, emergency");
        return false;
    }
    return true;
}

static const json_t *progress_token_of(const json_t *meta)
{
    json_t *t = meta ? json_object_get(meta, "progressToken") : NULL;
    return (json_is_string(t) || json_is_integer(t)) ? t : NULL;
}

static void dispatch_modern(lp_mcp_server *s, req_ctx *r, const json_t *meta)
{
    const char *key = NULL;
    lp_buf problem;
    lp_buf_init(&problem, 0);
    if (!check_envelope(meta, &key, &problem)) {
        json_t *data = json_object();
        json_t *issue = json_object();
        json_object_set_new(issue, "key", lp_json_textz(key));
        json_object_set_new(issue, "problem", lp_json_textz(problem.ptr));
        json_object_set_new(data, "envelope", issue);
        send_error(s, r->id, LP_RPC_INVALID_PARAMS, data,
                   "Invalid _meta envelope for protocol revision 2026-07-28: %s: %s", key,
                   problem.ptr);
        lp_buf_release(&problem);
        return;
    }
    lp_buf_release(&problem);
    const char *asked = json_string_value(json_object_get(meta, LP_MCP_META_PROTOCOL_VERSION));
    if (strcmp(asked, LP_MCP_PROTOCOL_2026_07_28) != 0) {
        json_t *data = json_object();
        json_t *sup = json_array();
        json_array_append_new(sup, lp_json_textz(LP_MCP_PROTOCOL_2026_07_28));
        json_object_set_new(data, "supported", sup);
        json_object_set_new(data, "requested", lp_json_text(asked, strlen(asked)));
        send_error(s, r->id, LP_RPC_UNSUPPORTED_PROTOCOL_VERSION, data,
                   "Unsupported protocol version: %.*s; " SUPPORTED_DESCRIPTION,
                   LP_CUT(asked, 64));
        return;
    }
    r->era = LP_MCP_ERA_MODERN;
    r->version = LP_MCP_PROTOCOL_2026_07_28;
    r->caps = json_object_get(meta, LP_MCP_META_CLIENT_CAPABILITIES);
    r->log_level = LP_MCP_LOG_NONE;
    json_t *ll = json_object_get(meta, LP_MCP_META_LOG_LEVEL);
    if (ll)
        lp_mcp_log_level_parse(json_string_value(ll), &r->log_level);
    r->progress_token = progress_token_of(meta);
    const char *m = r->method;
    if (!strcmp(m, "server/discover"))
        do_discover(s, r);
    else if (!strcmp(m, "tools/list"))
        do_tools_list(s, r);
    else if (!strcmp(m, "tools/call"))
        do_tools_call(s, r);
    else if (!strcmp(m, "initialize") || !strcmp(m, "ping") || !strcmp(m, "logging/setLevel"))
        send_error(s, r->id, LP_RPC_METHOD_NOT_FOUND, NULL,
                   "Method not found: %s is not part of protocol revision 2026-07-28 (it was "
                   "removed); send it without the per-request _meta to use protocol 2025-11-25",
                   m);
    else
        send_error(s, r->id, LP_RPC_METHOD_NOT_FOUND, NULL,
                   "Method not found: %.*s; on protocol revision 2026-07-28 loupe serves "
                   "server/discover, tools/list and tools/call",
                   LP_CUT(m, 100));
}

static void dispatch_legacy(lp_mcp_server *s, req_ctx *r, const json_t *meta)
{
    r->era = LP_MCP_ERA_LEGACY;
    /* Requests before initialize are served under the latest legacy version (lenient: a
     * script can ask tools/list without a handshake). */
    r->version = s->legacy_version ? s->legacy_version : LP_MCP_LATEST_LEGACY;
    r->caps = s->legacy_caps;
    r->log_level = LP_MCP_LOG_NONE;
    r->progress_token = progress_token_of(meta);
    const char *m = r->method;
    if (!strcmp(m, "initialize"))
        do_initialize(s, r);
    else if (!strcmp(m, "ping"))
        send_result(s, LP_MCP_ERA_LEGACY, m, r->id, json_object());
    else if (!strcmp(m, "logging/setLevel"))
        do_set_level(s, r);
    else if (!strcmp(m, "tools/list"))
        do_tools_list(s, r);
    else if (!strcmp(m, "tools/call"))
        do_tools_call(s, r);
    else if (!strcmp(m, "server/discover"))
        send_error(s, r->id, LP_RPC_METHOD_NOT_FOUND, NULL,
                   "Method not found: server/discover belongs to protocol revision 2026-07-28 "
                   "and needs params._meta with \"%s\": \"%s\" and \"%s\": {}",
                   LP_MCP_META_PROTOCOL_VERSION, LP_MCP_PROTOCOL_2026_07_28,
                   LP_MCP_META_CLIENT_CAPABILITIES);
    else
        send_error(s, r->id, LP_RPC_METHOD_NOT_FOUND, NULL,
                   "Method not found: %.*s; loupe serves initialize, ping, logging/setLevel, "
                   "tools/list and tools/call (and server/discover on protocol 2026-07-28)",
                   LP_CUT(m, 100));
}

static void handle_notification(lp_mcp_server *s, const char *method, const json_t *params)
{
    if (!strcmp(method, "notifications/cancelled"))
        do_cancelled(s, params);
    else if (!strcmp(method, "notifications/initialized"))
        lp_log(LP_LOG_DEBUG, "mcp.initialized", "version=%s",
               s->legacy_version ? s->legacy_version : "none");
    else
        lp_log(LP_LOG_DEBUG, "mcp.notification.ignored", "method=%.*s", LP_CUT(method, 100));
}

static bool blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n')
            return false;
    return true;
}

/* A line jansson refused: a parse error, or valid JSON it cannot hold (an integer past 64
 * bits, "\u0000" in a string). The second keeps its request id whenever the id itself can be
 * read, and is answered as invalid params naming the field, so the client never waits for
 * an answer to a request it sent correctly. */
static void unreadable(lp_mcp_server *s, const char *line, size_t len, const json_error_t *jerr)
{
    json_t *id = NULL;
    lp_buf field;
    lp_buf_init(&field, 0);
    lp_mcp_unrepresentable k = lp_mcp_parse_unrepresentable(line, len, jerr, &id, &field);
    const char *f = field.len ? field.ptr : "(the message)";
    if (k == LP_MCP_NOT_JSON) {
        send_error(s, NULL, LP_RPC_PARSE_ERROR, NULL,
                   "Parse error at column %d: %s; send one JSON-RPC 2.0 message per line as "
                   "UTF-8 JSON",
                   jerr->column, jerr->text);
    } else if (k == LP_MCP_UNREPRESENTABLE_NOTIFICATION) {
        lp_log(LP_LOG_WARN, "mcp.notification.unreadable", "field=%s reason=\"%s\"", f,
               jerr->text);
    } else {
        json_t *data = json_object();
        json_object_set_new(data, "code", json_string("invalid_argument"));
        json_object_set_new(data, "field", lp_json_text(field.ptr, field.len));
        if (k == LP_MCP_BIG_INTEGER)
            send_error(s, id, LP_RPC_INVALID_PARAMS, data,
                       "invalid_argument: %s is a number loupe cannot hold (integers from "
                       "-9223372036854775808 to 9223372036854775807, reals up to about "
                       "1.8e308); send a smaller number",
                       f);
        else
            send_error(s, id, LP_RPC_INVALID_PARAMS, data,
                       "invalid_argument: %s holds \\u0000 (a NUL character), which loupe does "
                       "not accept in any string; remove it",
                       f);
    }
    json_decref(id);
    lp_buf_release(&field);
}

static void handle_line(lp_mcp_server *s, const char *line, size_t len)
{
    if (blank(line, len))
        return;
    json_error_t jerr;
    json_t *msg = json_loadb(line, len, JSON_DECODE_ANY, &jerr);
    if (!msg) {
        unreadable(s, line, len, &jerr);
        return;
    }
    if (json_is_array(msg)) {
        send_error(s, NULL, LP_RPC_INVALID_REQUEST, NULL,
                   "Invalid Request: JSON-RPC batches are not supported (protocol 2025-06-18 "
                   "and later removed batching); send each message on its own line");
        goto done;
    }
    if (!json_is_object(msg)) {
        send_error(s, NULL, LP_RPC_INVALID_REQUEST, NULL,
                   "Invalid Request: a JSON-RPC message must be a JSON object");
        goto done;
    }
    json_t *id = json_object_get(msg, "id");
    json_t *method = json_object_get(msg, "method");
    json_t *jsonrpc = json_object_get(msg, "jsonrpc");
    if (!method && (json_object_get(msg, "result") || json_object_get(msg, "error"))) {
        lp_log(LP_LOG_DEBUG, "mcp.response.ignored", "reason=no_request_sent");
        goto done;
    }
    bool id_ok = json_is_integer(id) || json_is_string(id);
    if (id && !id_ok) {
        send_error(s, NULL, LP_RPC_INVALID_REQUEST, NULL,
                   "Invalid Request: the id must be a string or an integer (MCP does not allow "
                   "null ids)");
        goto done;
    }
    if (!json_is_string(jsonrpc) || strcmp(json_string_value(jsonrpc), "2.0") != 0) {
        if (id)
            send_error(s, id, LP_RPC_INVALID_REQUEST, NULL,
                       "Invalid Request: the message needs \"jsonrpc\": \"2.0\"");
        goto done;
    }
    if (!json_is_string(method)) {
        if (id)
            send_error(s, id, LP_RPC_INVALID_REQUEST, NULL,
                       "Invalid Request: the message needs a string \"method\"");
        goto done;
    }
    json_t *params = json_object_get(msg, "params");
    if (params && !json_is_null(params) && !json_is_object(params)) {
        if (id)
            send_error(s, id, LP_RPC_INVALID_PARAMS, NULL,
                       "Invalid params: MCP params must be an object");
        goto done;
    }
    if (json_is_null(params))
        params = NULL;
    if (!id) {
        handle_notification(s, json_string_value(method), params);
        goto done;
    }
    req_ctx r = {.id = id, .method = json_string_value(method), .params = params};
    json_t *meta = params ? json_object_get(params, "_meta") : NULL;
    if (!json_is_object(meta))
        meta = NULL;
    if (meta && json_object_get(meta, LP_MCP_META_PROTOCOL_VERSION))
        dispatch_modern(s, &r, meta);
    else
        dispatch_legacy(s, &r, meta);
done:
    json_decref(msg);
}

/* ------------------------------------------------------------------------------------------
 * Lifecycle. */

static void deadline_in(struct timespec *ts, unsigned ms)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

/* Under lock: wait until nothing is in flight or the deadline passes. */
static void wait_idle(lp_mcp_server *s, unsigned ms)
{
    struct timespec ts;
    deadline_in(&ts, ms);
    while (s->ninflight) {
        if (pthread_cond_timedwait(&s->idle_cv, &s->lock, &ts) == ETIMEDOUT)
            break;
    }
}

/* Returns true when every worker exited (the server can be freed). */
static bool shut_down(lp_mcp_server *s)
{
    atomic_store(&s->shutting_down, true);
    pthread_mutex_lock(&s->lock);
    s->watchdog_stop = true;
    pthread_cond_broadcast(&s->watch_cv);
    pthread_mutex_unlock(&s->lock);
    if (s->have_watchdog)
        pthread_join(s->watchdog, NULL);
    pthread_mutex_lock(&s->lock);
    wait_idle(s, s->opt.shutdown_grace_ms);
    if (s->ninflight) {
        lp_log(LP_LOG_WARN, "mcp.shutdown.cancel", "inflight=%zu", s->ninflight);
        /* Queued calls never started: answer and drop them now; running ones are asked to
         * stop. */
        lp_mcp_call *c = s->inflight;
        while (c) {
            lp_mcp_call *next = c->next_inflight;
            atomic_store(&c->shutdown_cancelled, true);
            if (!c->running && unqueue(s, c)) {
                remove_inflight(s, c);
                pthread_mutex_unlock(&s->lock);
                shutdown_answer(s, c);
                call_free(c);
                pthread_mutex_lock(&s->lock);
                c = s->inflight; /* the list may have changed while unlocked */
                continue;
            }
            c = next;
        }
        wait_idle(s, s->opt.shutdown_grace_ms);
        for (c = s->inflight; c; c = c->next_inflight)
            shutdown_answer(s, c);
    }
    s->stopping = true;
    pthread_cond_broadcast(&s->work_cv);
    struct timespec ts;
    deadline_in(&ts, 1000);
    while (s->running_threads) {
        if (pthread_cond_timedwait(&s->idle_cv, &s->lock, &ts) == ETIMEDOUT)
            break;
    }
    bool all_exited = s->running_threads == 0;
    pthread_mutex_unlock(&s->lock);
    if (all_exited)
        for (unsigned i = 0; i < s->nthreads; i++)
            pthread_join(s->threads[i], NULL);
    else
        lp_log(LP_LOG_ERROR, "mcp.shutdown.stuck",
               "threads=%u msg=\"a tool ignored cancellation; exiting without waiting\"",
               s->running_threads);
    return all_exited;
}

lp_status lp_mcp_serve(int in_fd, int out_fd, const lp_mcp_registry *reg,
                       const lp_mcp_options *opt_in, bool install_signals, lp_error *err)
{
    lp_mcp_options opt = *opt_in;
    lp_status rc = lp_mcp_options_resolve(&opt, err);
    if (rc)
        return rc;
    lp_mcp_server *s = lp_xcalloc(1, sizeof *s);
    rc = lp_mcp_text_memo_init(&s->text_memo, err);
    if (rc) {
        free(s);
        return rc;
    }
    s->reg = reg;
    s->opt = opt;
    s->version = opt.version ? opt.version : "0";
    lp_mcp_out_init(&s->out, out_fd);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->work_cv, NULL);
    pthread_cond_init(&s->idle_cv, NULL);
    pthread_cond_init(&s->watch_cv, NULL);
    atomic_init(&s->legacy_log_level, LP_MCP_LOG_NONE);
    atomic_init(&s->shutting_down, false);

    signal(SIGPIPE, SIG_IGN);
    if (install_signals) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal; /* no SA_RESTART: read(2) returns EINTR */
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
    }

    /* Workers start with every signal blocked, so signals reach the reader's read(2). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    pthread_mutex_lock(&s->lock);
    for (unsigned i = 0; i < opt.workers; i++)
        if (!spawn_worker(s))
            break;
    pthread_mutex_unlock(&s->lock);
    s->have_watchdog = s->nthreads && pthread_create(&s->watchdog, NULL, watchdog_main, s) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!s->nthreads) {
        rc = lp_error_set(err, LP_ERROR, "cannot start MCP worker threads");
        goto out;
    }
    lp_log(LP_LOG_INFO, "mcp.start", "workers=%u tools=%zu max_result_bytes=%zu", s->nthreads,
           lp_mcp_registry_count(reg), opt.max_result_bytes);

    lp_mcp_reader rd;
    lp_mcp_reader_init(&rd, in_fd, opt.max_line_bytes);
    for (;;) {
        const char *line;
        size_t len;
        lp_mcp_read_kind k = lp_mcp_reader_next(&rd, &line, &len);
        if (k == LP_MCP_READ_LINE) {
            handle_line(s, line, len);
        } else if (k == LP_MCP_READ_TOOLONG) {
            send_error(s, NULL, LP_RPC_INVALID_REQUEST, NULL,
                       "Invalid Request: a message of %zu bytes exceeds the %zu-byte line "
                       "limit (set with --max-line-bytes); it was dropped",
                       len, opt.max_line_bytes);
        } else if (k == LP_MCP_READ_INTR) {
            if (got_signal)
                break;
        } else {
            if (k == LP_MCP_READ_ERROR)
                lp_log(LP_LOG_ERROR, "mcp.input_error", "errno=%d", errno);
            break;
        }
    }
    lp_mcp_reader_release(&rd);
    lp_log(LP_LOG_INFO, "mcp.input_closed", "signal=%d", (int)got_signal);
    if (!shut_down(s)) {
        /* A worker is stuck in a tool: the server must outlive it, so it is not freed. */
        return LP_OK;
    }
out:
    pthread_cond_destroy(&s->work_cv);
    pthread_cond_destroy(&s->idle_cv);
    pthread_cond_destroy(&s->watch_cv);
    pthread_mutex_destroy(&s->lock);
    lp_mcp_text_memo_destroy(&s->text_memo);
    lp_mcp_out_release(&s->out);
    json_decref(s->legacy_caps);
    free(s->threads);
    free(s);
    return rc;
}
