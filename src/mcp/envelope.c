/*
 * envelope.c: the agent envelope every answer carries (DESIGN.md section 10) and the byte
 * budget every tool result is fitted into.
 *
 * Invariants: the budget only removes whole array items (from the end, keeping a prefix, so
 * the order an agent sees is the order the tool produced) and shortens strings at UTF-8
 * boundaries; the object stays valid JSON at every step, and the same input always gives the
 * same output.
 */
#include "mcp/mcp_int.h"

json_t *lp_mcp_envelope_new(const char *codebase_root)
{
    json_t *env = json_object();
    if (codebase_root) /* codebaseRootBytes too when the path is not UTF-8 */
        lp_json_set_path(env, "codebaseRoot", codebase_root, strlen(codebase_root));
    else
        json_object_set_new(env, "codebaseRoot", json_null());
    json_object_set_new(env, "warnings", json_array());
    json_object_set_new(env, "truncated", json_false());
    return env;
}

void lp_mcp_envelope_set_publication(json_t *env, int64_t id, int64_t created_at_ms,
                                     const char *state)
{
    json_t *p = json_object();
    json_object_set_new(p, "id", id >= 0 ? json_integer(id) : json_null());
    if (created_at_ms >= 0) {
        char iso[32];
        lp_format_iso8601(created_at_ms, iso);
        json_object_set_new(p, "createdAt", lp_json_textz(iso));
    } else {
        json_object_set_new(p, "createdAt", json_null());
    }
    json_object_set_new(p, "state", lp_json_textz(state ? state : LP_MCP_STATE_NOT_INDEXED));
    json_object_set_new(env, "publication", p);
}

void lp_mcp_envelope_set_freshness(json_t *env, const char *state, int64_t changed_since)
{
    json_t *f = json_object();
    json_object_set_new(f, "state", lp_json_textz(state ? state : "unknown"));
    json_object_set_new(f, "changedSincePublication",
                        changed_since >= 0 ? json_integer(changed_since) : json_null());
    json_object_set_new(env, "freshness", f);
}

static void add_warning(json_t *obj, const char *code, const char *message)
{
    json_t *item = json_object();
    json_object_set_new(item, "code", lp_json_textz(code));
    json_object_set_new(item, "message", lp_json_text(message, strlen(message)));
    json_t *w = json_object_get(obj, "warnings");
    if (json_is_array(w)) {
        json_array_append_new(w, item);
    } else {
        w = json_array();
        json_array_append_new(w, item); /* filled before it is handed over */
        json_object_set_new(obj, "warnings", w);
    }
}

void lp_mcp_envelope_warn_raw(json_t *env, const char *code, const char *message)
{
    add_warning(env, code, message);
}

void lp_mcp_envelope_warn(json_t *env, lp_warn w, const char *fmt, ...)
{
    const char *code = lp_warn_code(w);
    lp_buf b;
    lp_buf_init(&b, 0);
    va_list ap;
    va_start(ap, fmt);
    lp_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    add_warning(env, code, b.ptr);
    lp_buf_release(&b);
}

void lp_mcp_envelope_next_action(json_t *env, const char *tool, json_t *arguments)
{
    json_t *a = json_object();
    json_object_set_new(a, "tool", lp_json_textz(tool));
    json_object_set_new(a, "arguments", arguments ? arguments : json_object());
    json_object_set_new(env, "recommendedNextAction", a);
}

static const char envelope_properties[] =
    "{"
    "\"codebaseRoot\":{\"type\":[\"string\",\"null\"],"
    "\"description\":\"Absolute path of the indexed root this answer is about.\"},"
    "\"publication\":{\"type\":\"object\",\"description\":\"The index publication the answer "
    "was read from; one answer never mixes two publications.\","
    "\"properties\":{\"id\":{\"type\":[\"integer\",\"null\"]},"
    "\"createdAt\":{\"type\":[\"string\",\"null\"]},"
    "\"state\":{\"enum\":[\"not_indexed\",\"indexing\",\"ready\",\"failed\","
    "\"requires_reindex\",\"stale\",\"damaged\"]}},"
    "\"required\":[\"id\",\"createdAt\",\"state\"]},"
    "\"freshness\":{\"type\":\"object\",\"properties\":{\"state\":{\"type\":\"string\"},"
    "\"changedSincePublication\":{\"type\":[\"integer\",\"null\"]}},\"required\":[\"state\"]},"
    "\"recommendedNextAction\":{\"type\":\"object\",\"description\":\"The call that most "
    "likely helps next.\",\"properties\":{\"tool\":{\"type\":\"string\"},"
    "\"arguments\":{\"type\":\"object\"}},\"required\":[\"tool\",\"arguments\"]}"
    "}";

static const char budget_properties[] =
    "{"
    "\"warnings\":{\"type\":\"array\",\"description\":\"Everything missing or partial in this "
    "answer, with stable codes.\",\"items\":{\"type\":\"object\",\"properties\":{\"code\":"
    "{\"type\":\"string\"},\"message\":{\"type\":\"string\"}},\"required\":[\"code\","
    "\"message\"]}},"
    "\"truncated\":{\"type\":\"boolean\",\"description\":\"True when content was cut to fit "
    "the result byte budget; a result_truncated warning says what was cut.\"}"
    "}";

json_t *lp_mcp_envelope_schema_properties(void)
{
    json_t *p = json_loads(envelope_properties, 0, NULL);
    json_t *b = json_loads(budget_properties, 0, NULL);
    if (!p || !b)
        abort(); /* static text: a failure here is a programming error */
    json_object_update(p, b);
    json_decref(b);
    return p;
}

/* The budget fields alone (warnings, truncated); internal to the registry. */
json_t *lp_mcp_budget_schema_properties(void);
json_t *lp_mcp_budget_schema_properties(void)
{
    json_t *b = json_loads(budget_properties, 0, NULL);
    if (!b)
        abort();
    return b;
}

/* ------------------------------------------------------------------------------------------
 * Budget. */

static size_t dumped_size(const json_t *v) { return json_dumpb(v, NULL, 0, JSON_COMPACT); }

/* A new array holding the first k items of src (shared references). */
static json_t *prefix(const json_t *src, size_t k)
{
    json_t *a = json_array();
    for (size_t i = 0; i < k; i++)
        json_array_append(a, json_array_get(src, i));
    return a;
}

/* The longest string leaf under v (first in document order on ties). */
static void longest_string(json_t *v, json_t **best, size_t *best_len)
{
    if (json_is_string(v)) {
        size_t n = json_string_length(v);
        if (n > *best_len) {
            *best = v;
            *best_len = n;
        }
    } else if (json_is_object(v)) {
        const char *k;
        json_t *e;
        json_object_foreach(v, k, e) longest_string(e, best, best_len);
    } else if (json_is_array(v)) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) longest_string(e, best, best_len);
    }
}

static void halve_string(json_t *s)
{
    const char *p = json_string_value(s);
    size_t n = json_string_length(s);
    size_t cut = lp_utf8_cut(p, n, n / 2);
    lp_buf b;
    lp_buf_init(&b, 0);
    lp_buf_append(&b, p, cut);
    lp_buf_puts(&b, "\xE2\x80\xA6"); /* ... */
    json_string_setn_nocheck(s, b.ptr, b.len);
    lp_buf_release(&b);
}

static lp_status finish(json_t *result, char **out, size_t *out_len)
{
    size_t n = dumped_size(result);
    char *text = lp_xmalloc(n + 1);
    json_dumpb(result, text, n, JSON_COMPACT);
    text[n] = '\0';
    *out = text;
    *out_len = n;
    return LP_OK;
}

lp_status lp_mcp_budget_fit(json_t *result, size_t max_bytes, const char *const *truncatable,
                            char **out, size_t *out_len, lp_error *err)
{
    *out = NULL;
    *out_len = 0;
    if (!json_is_object(result))
        return lp_error_set(err, LP_EINVAL, "a tool result must be a JSON object");
    json_object_set_new(result, "truncated", json_false());
    if (dumped_size(result) <= max_bytes)
        return finish(result, out, out_len);

    json_object_set_new(result, "truncated", json_true());
    for (size_t ki = 0; truncatable && truncatable[ki]; ki++) {
        const char *key = truncatable[ki];
        json_t *full = json_object_get(result, key);
        if (!json_is_array(full) || json_array_size(full) == 0)
            continue;
        json_incref(full);
        size_t n = json_array_size(full);
        /* The warning is sized for the worst case (k printed with as many digits as n), so
         * the final text with the real k is never longer than what was measured. */
        json_t *w = json_object_get(result, "warnings");
        size_t nwarn = json_is_array(w) ? json_array_size(w) : 0;
        char msg[256];
        snprintf(msg, sizeof msg,
                 "'%s' was cut to the first %zu of %zu items to fit the %zu-byte result budget; "
                 "narrow the request or raise maxBytes (the server's cap: --max-result-bytes)",
                 key, n, n, max_bytes);
        add_warning(result, lp_warn_code(LP_WARN_RESULT_TRUNCATED), msg);
        size_t lo = 0, hi = n; /* invariant: prefix(lo) fits or lo == 0; prefix(hi) = full */
        size_t fit = 0;
        bool any = false;
        while (lo <= hi) {
            size_t mid = lo + (hi - lo) / 2;
            json_object_set_new(result, key, prefix(full, mid));
            if (dumped_size(result) <= max_bytes) {
                fit = mid;
                any = true;
                lo = mid + 1;
            } else {
                if (mid == 0)
                    break;
                hi = mid - 1;
            }
        }
        json_object_set_new(result, key, prefix(full, any ? fit : 0));
        json_decref(full);
        w = json_object_get(result, "warnings");
        snprintf(msg, sizeof msg,
                 "'%s' was cut to the first %zu of %zu items to fit the %zu-byte result budget; "
                 "narrow the request or raise maxBytes (the server's cap: --max-result-bytes)",
                 key, any ? fit : 0, n, max_bytes);
        json_object_set_new(json_array_get(w, nwarn), "message", lp_json_textz(msg));
        if (any && dumped_size(result) <= max_bytes)
            return finish(result, out, out_len);
    }

    /* Lists are as short as they go: shorten the longest strings. */
    add_warning(result, lp_warn_code(LP_WARN_TEXT_SHORTENED),
                "long text fields were shortened (marked with an ellipsis) to fit the result "
                "budget; ask for a narrower range");
    for (int round = 0; round < 256 && dumped_size(result) > max_bytes; round++) {
        json_t *best = NULL;
        size_t best_len = 0;
        longest_string(result, &best, &best_len);
        if (!best || best_len < 16)
            break;
        halve_string(best);
    }
    if (dumped_size(result) <= max_bytes)
        return finish(result, out, out_len);
    return lp_error_set(err, LP_ETOOBIG,
                        "the result needs %zu bytes even after truncation, more than the "
                        "%zu-byte budget; raise maxBytes (the server's cap: --max-result-bytes or "
                        "LOUPE_MCP_MAX_RESULT_BYTES)",
                        dumped_size(result), max_bytes);
}
