/*
 * text.c: the text content of a tool result, written for a model (mcp_int.h,
 * lp_mcp_text_render).
 *
 * structuredContent keeps the full typed answer; the text block says the same in fewer
 * tokens: an indented "key: value" outline (no quotes, braces or commas), where
 *   - null, "" and empty lists/objects are left out, and so are the flags that only matter
 *     when set (truncated, stale, deleted, live, cancelRequested) when they are false;
 *   - real numbers keep 4 significant digits (scores);
 *   - a string with line breaks is a block under its key, its lines indented;
 *   - an object of scalars is one line: key: {a: 1, b: x} (a list item: - a: 1, b: x);
 *   - a list of scalars is one line: [a, b, c];
 *   - a list of objects shows first, once, the fields every item has with the same value
 *     ("each: key: value, ..."), then the items without them;
 *   - an object equal to an earlier sibling is "same as <key>" (operation and writer);
 *   - a next call ({tool, arguments}) is "tool {arguments as JSON}", ready to send;
 *   - a warning (code and message) already sent in this session is its code only, marked
 *     "(as before)"; the memo is the session's (server.c) and is locked.
 * Pure otherwise: the same structured value and memo state give the same text.
 */
#include "mcp/mcp_int.h"

#include "core/settings.h"

#include <math.h>

#define TEXT_MAX_DEPTH 32

static bool noise_flag(const char *key)
{
    static const char *const keys[] = {"truncated", "stale", "deleted", "live",
                                       "cancelRequested", NULL};
    for (size_t i = 0; keys[i]; i++)
        if (strcmp(key, keys[i]) == 0)
            return true;
    return false;
}

static bool is_empty(const json_t *v)
{
    return !v || json_is_null(v) || (json_is_string(v) && json_string_length(v) == 0) ||
           (json_is_array(v) && json_array_size(v) == 0) ||
           (json_is_object(v) && json_object_size(v) == 0);
}

static bool skipped(const char *key, const json_t *v)
{
    return is_empty(v) || (json_is_false(v) && noise_flag(key));
}

static void indent(lp_buf *b, int n)
{
    for (int i = 0; i < n; i++)
        lp_buf_putc(b, ' ');
}

static void put_scalar(lp_buf *b, const json_t *v)
{
    if (json_is_string(v))
        lp_buf_append(b, json_string_value(v), json_string_length(v));
    else if (json_is_integer(v))
        lp_buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v)) {
        double d = json_real_value(v);
        if (isfinite(d))
            lp_buf_printf(b, "%.4g", d);
        else
            lp_buf_puts(b, "null");
    } else if (json_is_true(v))
        lp_buf_puts(b, "true");
    else if (json_is_false(v))
        lp_buf_puts(b, "false");
    else
        lp_buf_puts(b, "null");
}

static bool is_scalar(const json_t *v) { return !json_is_object(v) && !json_is_array(v); }

static bool multiline(const json_t *v)
{
    return json_is_string(v) && memchr(json_string_value(v), '\n', json_string_length(v));
}

static void put_json(lp_buf *b, const json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    if (s) {
        lp_buf_puts(b, s);
        free(s);
    }
}

/* One line for a small value: scalars as they are, lists [a, b], objects {k: v, ...}. */
static void put_flow(lp_buf *b, const json_t *v, int depth)
{
    if (depth > TEXT_MAX_DEPTH) {
        put_json(b, v);
        return;
    }
    if (json_is_array(v)) {
        lp_buf_putc(b, '[');
        size_t i;
        const json_t *x;
        json_array_foreach(v, i, x)
        {
            if (i)
                lp_buf_puts(b, ", ");
            put_flow(b, x, depth + 1);
        }
        lp_buf_putc(b, ']');
    } else if (json_is_object(v)) {
        lp_buf_putc(b, '{');
        const char *k;
        const json_t *x;
        bool first = true;
        json_object_foreach((json_t *)v, k, x)
        {
            if (skipped(k, x))
                continue;
            if (!first)
                lp_buf_puts(b, ", ");
            first = false;
            lp_buf_printf(b, "%s: ", k);
            put_flow(b, x, depth + 1);
        }
        lp_buf_putc(b, '}');
    } else if (multiline(v)) {
        put_json(b, v);
    } else {
        put_scalar(b, v);
    }
}

/* An object of scalars only (no line breaks): said on one line. */
static bool flat_object(const json_t *v)
{
    if (!json_is_object(v))
        return false;
    const char *k;
    const json_t *x;
    json_object_foreach((json_t *)v, k, x)
    {
        if (!is_scalar(x) || multiline(x))
            return false;
    }
    return true;
}

/* "k: v, k2: v2" of a flat object, leaving out the fields in hoisted. */
static bool put_flat_fields(lp_buf *b, const json_t *v, const json_t *hoisted)
{
    const char *k;
    const json_t *x;
    bool first = true;
    json_object_foreach((json_t *)v, k, x)
    {
        if (skipped(k, x) || (hoisted && json_object_get(hoisted, k)))
            continue;
        if (!first)
            lp_buf_puts(b, ", ");
        first = false;
        lp_buf_printf(b, "%s: ", k);
        put_scalar(b, x);
    }
    return !first;
}

/* {tool, arguments[, other keys]}: a call an agent can send as it is. */
static bool is_call(const json_t *v)
{
    return json_is_object(v) && json_is_string(json_object_get(v, "tool")) &&
           json_is_object(json_object_get(v, "arguments"));
}

static void put_call(lp_buf *b, const json_t *v)
{
    lp_buf_puts(b, json_string_value(json_object_get(v, "tool")));
    lp_buf_putc(b, ' ');
    put_json(b, json_object_get(v, "arguments"));
    const char *k;
    const json_t *x;
    json_object_foreach((json_t *)v, k, x)
    {
        if (strcmp(k, "tool") == 0 || strcmp(k, "arguments") == 0 || skipped(k, x))
            continue;
        lp_buf_printf(b, " (%s: ", k);
        put_flow(b, x, 0);
        lp_buf_putc(b, ')');
    }
}

/* The memo of warnings sent in this session: 64-bit hashes, a bounded open table. */
static uint64_t warning_hash(const json_t *w)
{
    const json_t *code = json_object_get(w, "code");
    const json_t *msg = json_object_get(w, "message");
    if (!json_is_string(code) || !json_is_string(msg))
        return 0;
    uint64_t h = 1469598103934665603ULL;
    const char *parts[2] = {json_string_value(code), json_string_value(msg)};
    for (int p = 0; p < 2; p++) {
        for (const unsigned char *s = (const unsigned char *)parts[p]; *s; s++)
            h = (h ^ *s) * 1099511628211ULL;
        h = (h ^ 0xffu) * 1099511628211ULL;
    }
    return h ? h : 1;
}

/* true when h was already in the memo; otherwise adds it (when there is room). */
static bool memo_seen(lp_mcp_text_memo *m, uint64_t h)
{
    if (!m || !h)
        return false;
    bool seen = false;
    pthread_mutex_lock(&m->lock);
    size_t i = (size_t)(h % LP_MCP_TEXT_MEMO_SLOTS);
    for (size_t n = 0; n < LP_MCP_TEXT_MEMO_SLOTS; n++, i = (i + 1) % LP_MCP_TEXT_MEMO_SLOTS) {
        if (m->slots[i] == h) {
            seen = true;
            break;
        }
        if (m->slots[i] == 0) {
            if (m->used < LP_MCP_TEXT_MEMO_SLOTS / 2) { /* stays sparse; full: never "seen" */
                m->slots[i] = h;
                m->used++;
            }
            break;
        }
    }
    pthread_mutex_unlock(&m->lock);
    return seen;
}

typedef struct render {
    lp_buf *b;
    lp_mcp_text_memo *memo;
} render;

static void put_value(render *r, const char *key, const json_t *v, int ind, int depth);

static void put_object_fields(render *r, const json_t *obj, int ind, int depth,
                              const json_t *hoisted, bool first_inline)
{
    const char *k;
    const json_t *x;
    bool first = true;
    json_object_foreach((json_t *)obj, k, x)
    {
        if (skipped(k, x) || (hoisted && json_object_get(hoisted, k)))
            continue;
        /* an object equal to an earlier sibling */
        const char *same = NULL;
        if (json_is_object(x) || json_is_array(x)) {
            const char *k2;
            const json_t *y;
            json_object_foreach((json_t *)obj, k2, y)
            {
                if (y == x)
                    break;
                if (!skipped(k2, y) && json_equal((json_t *)x, (json_t *)y)) {
                    same = k2;
                    break;
                }
            }
        }
        int at = (first && first_inline) ? 0 : ind;
        first = false;
        if (same) {
            indent(r->b, at);
            lp_buf_printf(r->b, "%s: same as %s\n", k, same);
            continue;
        }
        if (at == 0 && first_inline) {
            /* the first field of a list item goes on the "- " line */
            put_value(r, k, x, -ind, depth);
        } else {
            put_value(r, k, x, ind, depth);
        }
    }
    if (first && first_inline) /* nothing to say on the item's line */
        lp_buf_puts(r->b, "{}\n");
}

/* The fields every item of a list of objects has with one value (scalars and small
 * objects), when there are at least two items: new object, or NULL. */
static json_t *common_fields(const json_t *list)
{
    size_t n = json_array_size(list);
    if (n < 2)
        return NULL;
    const json_t *first = json_array_get(list, 0);
    if (!json_is_object(first))
        return NULL;
    for (size_t i = 1; i < n; i++)
        if (!json_is_object(json_array_get(list, i)))
            return NULL;
    json_t *common = NULL;
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)first, k, x)
    {
        if (skipped(k, x) || json_is_array(x) || multiline(x) || is_call(x))
            continue;
        bool all = true;
        for (size_t i = 1; i < n && all; i++)
            all = json_equal(x, json_object_get(json_array_get(list, i), k));
        if (!all)
            continue;
        if (!common)
            common = json_object();
        json_object_set(common, k, x);
    }
    return common;
}

static void put_list(render *r, const char *key, const json_t *v, int ind, int depth)
{
    bool scalars = true;
    size_t i;
    const json_t *x;
    json_array_foreach(v, i, x) scalars = scalars && is_scalar(x) && !multiline(x);
    lp_buf *b = r->b;
    if (scalars) {
        lp_buf_printf(b, "%s: ", key);
        put_flow(b, v, depth);
        lp_buf_putc(b, '\n');
        return;
    }
    bool warnings = strcmp(key, "warnings") == 0 && ind <= 0;
    json_t *common = warnings ? NULL : common_fields(v);
    lp_buf_printf(b, "%s (%zu):\n", key, json_array_size(v));
    int in = ind < 0 ? -ind : ind;
    if (common) {
        indent(b, in + 2);
        lp_buf_puts(b, "each: ");
        put_flow(b, common, depth + 1);
        lp_buf_puts(b, "\n");
    }
    json_array_foreach(v, i, x)
    {
        indent(b, in);
        lp_buf_puts(b, "- ");
        if (warnings && json_is_object(x) && memo_seen(r->memo, warning_hash(x))) {
            put_scalar(b, json_object_get(x, "code"));
            lp_buf_puts(b, " (as before)\n");
        } else if (flat_object(x)) {
            if (!put_flat_fields(b, x, common))
                lp_buf_puts(b, "{}");
            lp_buf_putc(b, '\n');
        } else if (json_is_object(x)) {
            put_object_fields(r, x, in + 2, depth + 1, common, true);
        } else if (json_is_array(x)) {
            put_flow(b, x, depth + 1);
            lp_buf_putc(b, '\n');
        } else {
            put_value(r, NULL, x, -(in + 2), depth + 1);
        }
    }
    json_decref(common);
}

/* ind < 0: the line is already started (a "- " item); continue at -ind for more lines. */
static void put_value(render *r, const char *key, const json_t *v, int ind, int depth)
{
    lp_buf *b = r->b;
    int in = ind < 0 ? -ind : ind;
    if (ind > 0)
        indent(b, ind);
    if (depth > TEXT_MAX_DEPTH) {
        if (key)
            lp_buf_printf(b, "%s: ", key);
        put_json(b, v);
        lp_buf_putc(b, '\n');
        return;
    }
    if (json_is_object(v)) {
        if (is_call(v)) {
            if (key)
                lp_buf_printf(b, "%s: ", key);
            put_call(b, v);
            lp_buf_putc(b, '\n');
            return;
        }
        if (key && flat_object(v)) {
            lp_buf_printf(b, "%s: {", key);
            (void)put_flat_fields(b, v, NULL);
            lp_buf_puts(b, "}\n");
        } else if (key) {
            lp_buf_printf(b, "%s:\n", key);
            put_object_fields(r, v, in + 2, depth + 1, NULL, false);
        } else {
            put_object_fields(r, v, in, depth + 1, NULL, true);
        }
        return;
    }
    if (json_is_array(v)) {
        put_list(r, key ? key : "items", v, ind, depth + 1);
        return;
    }
    if (key)
        lp_buf_printf(b, "%s:", key);
    if (multiline(v)) {
        if (key)
            lp_buf_puts(b, " |");
        lp_buf_putc(b, '\n');
        const char *s = json_string_value(v), *e = s + json_string_length(v);
        while (s < e) {
            const char *nl = memchr(s, '\n', (size_t)(e - s));
            const char *end = nl ? nl : e;
            indent(b, in + 2);
            lp_buf_append(b, s, (size_t)(end - s));
            lp_buf_putc(b, '\n');
            s = nl ? nl + 1 : e;
        }
        return;
    }
    if (key)
        lp_buf_putc(b, ' ');
    put_scalar(b, v);
    lp_buf_putc(b, '\n');
}

char *lp_mcp_text_render(const json_t *structured, lp_mcp_text_memo *memo, size_t *len)
{
    lp_buf b;
    lp_buf_init(&b, 0);
    render r = {&b, memo};
    if (json_is_object(structured))
        put_object_fields(&r, structured, 0, 0, NULL, false);
    else
        put_value(&r, NULL, structured, 0, 0);
    if (b.len && b.ptr[b.len - 1] == '\n')
        b.len--;
    if (b.err) {
        lp_buf_release(&b);
        return NULL;
    }
    lp_buf_putc(&b, '\0');
    size_t n = 0;
    char *s = lp_buf_detach(&b, &n);
    *len = n ? n - 1 : 0;
    return s;
}

lp_status lp_mcp_text_memo_init(lp_mcp_text_memo *m, lp_error *err)
{
    memset(m->slots, 0, sizeof m->slots);
    m->used = 0;
    const char *mode = lp_setting_str(LP_SET_MCP_TEXT);
    if (mode && strcmp(mode, "outline") != 0 && strcmp(mode, "json") != 0)
        return lp_error_set(err, LP_EINVAL,
                            "LOUPE_MCP_TEXT is '%s'; use 'outline' (compact text for a model, "
                            "the default) or 'json' (the structuredContent again)",
                            mode);
    m->json = mode && strcmp(mode, "json") == 0;
    pthread_mutex_init(&m->lock, NULL);
    return LP_OK;
}

void lp_mcp_text_memo_destroy(lp_mcp_text_memo *m) { pthread_mutex_destroy(&m->lock); }
