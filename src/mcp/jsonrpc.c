/*
 * jsonrpc.c: JSON-RPC 2.0 framing for MCP over stdio: the line reader with its length
 * limit, the serialized output channel and message builders.
 *
 * Invariants: every line written to the output fd is one complete compact JSON message
 * followed by '\n' (jansson's compact form escapes newlines inside strings), written under
 * one lock so concurrent senders never interleave; the reader never holds more than
 * max_line + one read chunk of pending bytes.
 */
#include "mcp/mcp_int.h"

#include <errno.h>
#include <unistd.h>

static const char *const level_names[] = {"debug",    "info",  "notice", "warning",
                                          "error",    "critical", "alert", "emergency"};

const char *lp_mcp_log_level_name(lp_mcp_log_level lv)
{
    return lv < LP_MCP_LOG_NONE ? level_names[lv] : NULL;
}

bool lp_mcp_log_level_parse(const char *s, lp_mcp_log_level *out)
{
    if (!s)
        return false;
    for (size_t i = 0; i < LP_ARRAY_LEN(level_names); i++) {
        if (!strcmp(s, level_names[i])) {
            *out = (lp_mcp_log_level)i;
            return true;
        }
    }
    return false;
}

lp_status lp_mcp_options_resolve(lp_mcp_options *o, lp_error *err)
{
    if (!o->workers)
        o->workers = LP_MCP_DEFAULT_WORKERS;
    if (!o->max_result_bytes)
        o->max_result_bytes = LP_MCP_DEFAULT_RESULT_BYTES;
    if (!o->max_line_bytes)
        o->max_line_bytes = LP_MCP_DEFAULT_LINE_BYTES;
    if (!o->shutdown_grace_ms)
        o->shutdown_grace_ms = LP_MCP_DEFAULT_SHUTDOWN_GRACE_MS;
    if (!o->call_timeout_ms)
        o->call_timeout_ms = LP_MCP_DEFAULT_CALL_TIMEOUT_MS;
    if (!o->cancel_grace_ms)
        o->cancel_grace_ms = LP_MCP_DEFAULT_CANCEL_GRACE_MS;
    if (o->call_timeout_ms < 100 || o->call_timeout_ms > 86400000u)
        return lp_error_set(err, LP_EINVAL,
                            "--call-timeout-ms must be between 100 and 86400000 (got %u)",
                            o->call_timeout_ms);
    if (o->cancel_grace_ms > 600000)
        return lp_error_set(err, LP_EINVAL, "--cancel-grace-ms must be at most 600000 (got %u)",
                            o->cancel_grace_ms);
    if (o->workers > LP_MCP_MAX_WORKERS)
        return lp_error_set(err, LP_EINVAL, "--workers must be between 1 and %u (got %u)",
                            LP_MCP_MAX_WORKERS, o->workers);
    if (o->max_result_bytes < LP_MCP_MIN_RESULT_BYTES ||
        o->max_result_bytes > (size_t)64 * 1024 * 1024)
        return lp_error_set(err, LP_EINVAL,
                            "--max-result-bytes must be between %zu and 67108864 (got %zu)",
                            LP_MCP_MIN_RESULT_BYTES, o->max_result_bytes);
    if (o->max_line_bytes < 1024 || o->max_line_bytes > (size_t)1 << 30)
        return lp_error_set(err, LP_EINVAL,
                            "--max-line-bytes must be between 1024 and 1073741824 (got %zu)",
                            o->max_line_bytes);
    if (o->shutdown_grace_ms > 600000)
        return lp_error_set(err, LP_EINVAL,
                            "--shutdown-grace-ms must be at most 600000 (got %u)",
                            o->shutdown_grace_ms);
    return LP_OK;
}

/* ------------------------------------------------------------------------------------------
 * UTF-8 (text itself is core's: lp_json_text, lp_utf8_cut). */

size_t lp_mcp_utf8_length(const char *s, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            count++;
    return count;
}

/* ------------------------------------------------------------------------------------------
 * Message builders. */

bool lp_mcp_id_key(const json_t *id, lp_buf *out)
{
    lp_buf_reset(out);
    if (json_is_integer(id)) {
        lp_buf_printf(out, "n:%" JSON_INTEGER_FORMAT, json_integer_value(id));
        return true;
    }
    if (json_is_string(id)) {
        lp_buf_puts(out, "s:");
        lp_buf_append(out, json_string_value(id), json_string_length(id));
        return !out->err;
    }
    return false;
}

static json_t *envelope(const json_t *id)
{
    json_t *m = json_object();
    json_object_set_new(m, "jsonrpc", json_string("2.0"));
    json_object_set_new(m, "id", id ? json_deep_copy(id) : json_null());
    return m;
}

json_t *lp_mcp_error_msg(const json_t *id, int code, const char *message, json_t *data)
{
    json_t *m = envelope(id);
    json_t *e = json_object();
    json_object_set_new(e, "code", json_integer(code));
    json_object_set_new(e, "message", lp_json_text(message, strlen(message)));
    if (data)
        json_object_set_new(e, "data", data);
    json_object_set_new(m, "error", e);
    return m;
}

json_t *lp_mcp_result_msg(const json_t *id, json_t *result)
{
    json_t *m = envelope(id);
    json_object_set_new(m, "result", result ? result : json_object());
    return m;
}

json_t *lp_mcp_notification_msg(const char *method, json_t *params)
{
    json_t *m = json_object();
    json_object_set_new(m, "jsonrpc", json_string("2.0"));
    json_object_set_new(m, "method", lp_json_textz(method));
    if (params)
        json_object_set_new(m, "params", params);
    return m;
}

/* ------------------------------------------------------------------------------------------
 * Output channel. */

void lp_mcp_out_init(lp_mcp_out *o, int fd)
{
    memset(o, 0, sizeof *o);
    o->fd = fd;
    pthread_mutex_init(&o->lock, NULL);
}

void lp_mcp_out_release(lp_mcp_out *o) { pthread_mutex_destroy(&o->lock); }

static bool write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}

void lp_mcp_out_send(lp_mcp_out *o, json_t *msg)
{
    if (!msg)
        return;
    size_t len = json_dumpb(msg, NULL, 0, JSON_COMPACT);
    char *text = lp_xmalloc(len + 1);
    json_dumpb(msg, text, len, JSON_COMPACT);
    text[len] = '\n';
    json_decref(msg);
    pthread_mutex_lock(&o->lock);
    if (!o->broken) {
        if (write_all(o->fd, text, len + 1)) {
            o->written += len + 1;
        } else {
            o->broken = true;
            lp_log(LP_LOG_WARN, "mcp.output_closed", "errno=%d msg=\"%s\"", errno,
                   strerror(errno));
        }
    }
    pthread_mutex_unlock(&o->lock);
    free(text);
}

/* ------------------------------------------------------------------------------------------
 * Line reader. */

#define READ_CHUNK 65536

void lp_mcp_reader_init(lp_mcp_reader *r, int fd, size_t max_line)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->max_line = max_line;
    lp_buf_init(&r->buf, 0);
    lp_buf_init(&r->line, 0);
}

void lp_mcp_reader_release(lp_mcp_reader *r)
{
    lp_buf_release(&r->buf);
    lp_buf_release(&r->line);
}

lp_mcp_read_kind lp_mcp_reader_next(lp_mcp_reader *r, const char **line, size_t *len)
{
    for (;;) {
        /* Look for a newline in the bytes not yet scanned. */
        char *nl = r->scan < r->buf.len ? memchr(r->buf.ptr + r->scan, '\n', r->buf.len - r->scan)
                                        : NULL;
        if (nl) {
            size_t n = (size_t)(nl - r->buf.ptr);
            if (r->discarding) {
                size_t total = r->discarded + n;
                memmove(r->buf.ptr, nl + 1, r->buf.len - n - 1);
                lp_buf_truncate(&r->buf, r->buf.len - n - 1);
                r->scan = 0;
                r->discarding = false;
                r->discarded = 0;
                *line = NULL;
                *len = total;
                return LP_MCP_READ_TOOLONG;
            }
            if (n > r->max_line) {
                memmove(r->buf.ptr, nl + 1, r->buf.len - n - 1);
                lp_buf_truncate(&r->buf, r->buf.len - n - 1);
                r->scan = 0;
                *line = NULL;
                *len = n;
                return LP_MCP_READ_TOOLONG;
            }
            size_t ln = n;
            if (ln && r->buf.ptr[ln - 1] == '\r')
                ln--;
            /* Copy the line out so the pending buffer can be compacted now. */
            lp_buf_reset(&r->line);
            lp_buf_append(&r->line, r->buf.ptr, ln);
            memmove(r->buf.ptr, nl + 1, r->buf.len - n - 1);
            lp_buf_truncate(&r->buf, r->buf.len - n - 1);
            r->scan = 0;
            *line = r->line.ptr;
            *len = r->line.len;
            return LP_MCP_READ_LINE;
        }
        r->scan = r->buf.len;
        if (!r->discarding && r->buf.len > r->max_line) {
            /* Over-long line without its end yet: drop what we have, keep discarding. */
            r->discarding = true;
            r->discarded = r->buf.len;
            lp_buf_reset(&r->buf);
            r->scan = 0;
        } else if (r->discarding && r->buf.len) {
            r->discarded += r->buf.len;
            lp_buf_reset(&r->buf);
            r->scan = 0;
        }
        if (r->eof) {
            if (r->discarding) {
                r->discarding = false;
                *line = NULL;
                *len = r->discarded;
                return LP_MCP_READ_TOOLONG;
            }
            if (r->buf.len) {
                /* A last line without '\n' still counts as a message. */
                lp_buf_putc(&r->buf, '\n');
                continue;
            }
            return LP_MCP_READ_EOF;
        }
        char chunk[READ_CHUNK];
        ssize_t got = read(r->fd, chunk, sizeof chunk);
        if (got < 0) {
            if (errno == EINTR)
                return LP_MCP_READ_INTR;
            return LP_MCP_READ_ERROR;
        }
        if (got == 0) {
            r->eof = true;
            continue;
        }
        lp_buf_append(&r->buf, chunk, (size_t)got);
        if (r->buf.err)
            return LP_MCP_READ_ERROR;
    }
}

/* ------------------------------------------------------------------------------------------
 * Valid JSON that jansson cannot hold: integers past 64 bits, "\u0000" in strings. */

typedef struct scan_frame {
    bool object;
    size_t index;    /* arrays: the element being read */
    const char *key; /* objects: the member being read (raw text between the quotes) */
    size_t key_len;
} scan_frame;

#define SCAN_DEPTH_MAX 64

/* "params.arguments.limit", "params.arguments.paths[2]" for the frames st[0..depth). */
static void frames_path(const scan_frame *st, int depth, lp_buf *out)
{
    lp_buf_reset(out);
    for (int d = 0; d < depth; d++) {
        if (st[d].object && st[d].key) {
            if (out->len)
                lp_buf_putc(out, '.');
            lp_buf_append(out, st[d].key, lp_utf8_cut(st[d].key, st[d].key_len, 64));
        } else if (!st[d].object) {
            lp_buf_printf(out, "[%zu]", st[d].index);
        }
    }
}

/* The path of the last key or value that starts before byte pos of the JSON text p[0..n)
 * (jansson reports an error after the token that caused it) into out (when not NULL), and
 * that token's bytes [*tok_start, *tok_end). */
static void field_at(const char *p, size_t n, size_t pos, lp_buf *out, size_t *tok_start,
                     size_t *tok_end)
{
    scan_frame st[SCAN_DEPTH_MAX];
    int depth = 0;
    bool want_key = false;
    *tok_start = *tok_end = 0;
    if (out)
        lp_buf_reset(out);
    for (size_t i = 0; i < n && i < pos;) {
        char c = p[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ':') {
            i++;
            continue;
        }
        if (c == ',') {
            if (depth > 0 && st[depth - 1].object)
                want_key = true;
            else if (depth > 0)
                st[depth - 1].index++;
            i++;
            continue;
        }
        if (c == '{' || c == '[') {
            if (depth == SCAN_DEPTH_MAX)
                return;
            st[depth++] = (scan_frame){.object = c == '{'};
            want_key = c == '{';
            i++;
            continue;
        }
        if (c == '}' || c == ']') {
            if (depth > 0)
                depth--;
            want_key = false;
            i++;
            continue;
        }
        size_t start = i;
        if (c == '"') {
            for (i++; i < n && p[i] != '"'; i++)
                if (p[i] == '\\')
                    i++;
            i++;
        } else {
            while (i < n && !strchr(" \t\r\n,]}:", p[i]))
                i++;
        }
        if (want_key && depth > 0) {
            st[depth - 1].key = p + start + 1;
            st[depth - 1].key_len = i - start >= 2 ? i - start - 2 : 0;
            want_key = false;
        }
        *tok_start = start;
        *tok_end = LP_MIN(i, n);
        if (out)
            frames_path(st, depth, out);
    }
}

/* jansson's errors for JSON it reads correctly but cannot hold. */
static bool unholdable(const char *text, lp_mcp_unrepresentable *kind)
{
    if (strstr(text, "\\u0000") || strstr(text, "NUL byte")) {
        *kind = LP_MCP_HAS_NUL;
        return true;
    }
    if (strstr(text, "too big integer") || strstr(text, "real number overflow")) {
        *kind = LP_MCP_BIG_INTEGER;
        return true;
    }
    return false;
}

/* Parse line with each token jansson cannot hold replaced by a harmless one (a string by
 * "", a number by 0), so the grammar is still jansson's own: NULL when it is not JSON (or
 * holds too many such tokens). *id_replaced says when the top-level "id" was one. */
static json_t *parse_tolerant(const char *line, size_t len, bool *id_replaced)
{
    lp_buf text, path;
    lp_buf_init(&text, 0);
    lp_buf_init(&path, 0);
    lp_buf_append(&text, line, len);
    json_t *m = NULL;
    *id_replaced = false;
    for (int round = 0; round < 64; round++) {
        json_error_t e;
        m = json_loadb(text.ptr, text.len, JSON_DECODE_ANY, &e);
        lp_mcp_unrepresentable k;
        if (m || !unholdable(e.text, &k) || e.position <= 0)
            break;
        size_t a, b;
        field_at(text.ptr, text.len, (size_t)e.position, &path, &a, &b);
        if (b <= a)
            break;
        if (!strcmp(path.ptr, "id"))
            *id_replaced = true;
        const char *with = text.ptr[a] == '"' ? "\"\"" : "0";
        lp_buf rest;
        lp_buf_init(&rest, 0);
        lp_buf_append(&rest, text.ptr + b, text.len - b);
        lp_buf_truncate(&text, a);
        lp_buf_puts(&text, with);
        lp_buf_append(&text, rest.ptr, rest.len);
        lp_buf_release(&rest);
    }
    lp_buf_release(&text);
    lp_buf_release(&path);
    return m;
}

lp_mcp_unrepresentable lp_mcp_parse_unrepresentable(const char *line, size_t len,
                                                    const json_error_t *strict, json_t **id,
                                                    lp_buf *field)
{
    *id = NULL;
    lp_buf_reset(field);
    lp_mcp_unrepresentable kind;
    if (!unholdable(strict->text, &kind))
        return LP_MCP_NOT_JSON;
    bool id_replaced;
    json_t *m = parse_tolerant(line, len, &id_replaced);
    if (!m)
        return LP_MCP_NOT_JSON;
    size_t a, b;
    field_at(line, len, strict->position > 0 ? (size_t)strict->position : 0, field, &a, &b);
    json_t *v = json_is_object(m) ? json_object_get(m, "id") : NULL;
    /* The id as sent, unless it was itself what jansson cannot hold (then it cannot be
     * echoed: the answer goes with a null id and names it). */
    if ((json_is_integer(v) || json_is_string(v)) && !id_replaced)
        *id = json_deep_copy(v);
    if (!json_object_get(m, "method") || !v)
        kind = LP_MCP_UNREPRESENTABLE_NOTIFICATION;
    json_decref(m);
    return kind;
}
