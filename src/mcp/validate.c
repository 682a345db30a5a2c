/*
 * validate.c: tool-argument validation against the JSON Schema 2020-12 subset listed in
 * mcp.h, with messages written for the agent that made the call.
 *
 * lp_mcp_schema_check runs when a tool is registered, so a schema can only use keywords
 * that lp_mcp_validate_args enforces. Messages name the argument by its path
 * ("query", "filters.language", "paths[2]"), say what was expected and what was given,
 * and end with the schema's first example.
 */
#include "mcp/mcp_int.h"

#include <math.h>

#define MAX_PROBLEMS 5

static const char *const known_keywords[] = {
    "$schema",  "$id",       "title",     "description",      "default",          "examples",
    "format",   "type",      "properties", "required",        "additionalProperties", "enum",
    "const",    "minimum",   "maximum",   "exclusiveMinimum", "exclusiveMaximum", "minLength",
    "maxLength", "items",    "minItems",  "maxItems",
};

static const char *const type_names[] = {"object", "array",   "string", "integer",
                                         "number", "boolean", "null"};

static bool known_type(const char *t)
{
    for (size_t i = 0; i < LP_ARRAY_LEN(type_names); i++)
        if (!strcmp(t, type_names[i]))
            return true;
    return false;
}

static lp_status check_at(const json_t *s, lp_buf *path, lp_error *err)
{
    if (!json_is_object(s))
        return lp_error_set(err, LP_EINVAL, "schema at '%s' is not an object",
                            path->len ? path->ptr : "(root)");
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)s, key, v)
    {
        bool known = false;
        for (size_t i = 0; i < LP_ARRAY_LEN(known_keywords) && !known; i++)
            known = !strcmp(key, known_keywords[i]);
        if (!known)
            return lp_error_set(err, LP_EINVAL,
                                "schema at '%s' uses keyword '%s', which loupe's argument "
                                "validator does not enforce; use only the subset listed in "
                                "src/mcp/mcp.h",
                                path->len ? path->ptr : "(root)", key);
    }
    json_t *type = json_object_get(s, "type");
    if (type) {
        if (json_is_string(type)) {
            if (!known_type(json_string_value(type)))
                return lp_error_set(err, LP_EINVAL, "schema at '%s' has unknown type '%s'",
                                    path->len ? path->ptr : "(root)", json_string_value(type));
        } else if (json_is_array(type)) {
            size_t i;
            json_t *t;
            json_array_foreach(type, i, t)
            {
                if (!json_is_string(t) || !known_type(json_string_value(t)))
                    return lp_error_set(err, LP_EINVAL, "schema at '%s' has a bad type list",
                                        path->len ? path->ptr : "(root)");
            }
        } else {
            return lp_error_set(err, LP_EINVAL, "schema at '%s' has a bad type",
                                path->len ? path->ptr : "(root)");
        }
    }
    json_t *ap = json_object_get(s, "additionalProperties");
    if (ap && !json_is_boolean(ap))
        return lp_error_set(err, LP_EINVAL,
                            "schema at '%s': additionalProperties must be true or false",
                            path->len ? path->ptr : "(root)");
    json_t *req = json_object_get(s, "required");
    if (req) {
        size_t i;
        json_t *r;
        if (!json_is_array(req))
            return lp_error_set(err, LP_EINVAL, "schema at '%s': required must be an array",
                                path->len ? path->ptr : "(root)");
        json_array_foreach(req, i, r)
        {
            if (!json_is_string(r))
                return lp_error_set(err, LP_EINVAL,
                                    "schema at '%s': required must list strings",
                                    path->len ? path->ptr : "(root)");
        }
    }
    json_t *en = json_object_get(s, "enum");
    if (en && (!json_is_array(en) || json_array_size(en) == 0))
        return lp_error_set(err, LP_EINVAL, "schema at '%s': enum must be a non-empty array",
                            path->len ? path->ptr : "(root)");
    static const char *const numeric[] = {"minimum",   "maximum",  "exclusiveMinimum",
                                          "exclusiveMaximum", "minLength", "maxLength",
                                          "minItems", "maxItems"};
    for (size_t i = 0; i < LP_ARRAY_LEN(numeric); i++) {
        json_t *n = json_object_get(s, numeric[i]);
        if (n && !json_is_number(n))
            return lp_error_set(err, LP_EINVAL, "schema at '%s': %s must be a number",
                                path->len ? path->ptr : "(root)", numeric[i]);
    }
    json_t *props = json_object_get(s, "properties");
    if (props) {
        if (!json_is_object(props))
            return lp_error_set(err, LP_EINVAL, "schema at '%s': properties must be an object",
                                path->len ? path->ptr : "(root)");
        json_object_foreach(props, key, v)
        {
            size_t mark = path->len;
            if (path->len)
                lp_buf_putc(path, '.');
            lp_buf_puts(path, key);
            lp_status rc = check_at(v, path, err);
            lp_buf_truncate(path, mark);
            if (rc)
                return rc;
        }
    }
    json_t *items = json_object_get(s, "items");
    if (items) {
        size_t mark = path->len;
        lp_buf_puts(path, "[]");
        lp_status rc = check_at(items, path, err);
        lp_buf_truncate(path, mark);
        if (rc)
            return rc;
    }
    return LP_OK;
}

lp_status lp_mcp_schema_check(const json_t *schema, lp_error *err)
{
    if (!json_is_object(schema))
        return lp_error_set(err, LP_EINVAL, "an input schema must be a JSON object");
    json_t *type = json_object_get(schema, "type");
    if (!json_is_string(type) || strcmp(json_string_value(type), "object") != 0)
        return lp_error_set(err, LP_EINVAL, "an input schema must have \"type\": \"object\"");
    lp_buf path;
    lp_buf_init(&path, 0);
    lp_status rc = check_at(schema, &path, err);
    lp_buf_release(&path);
    return rc;
}

/* ------------------------------------------------------------------------------------------
 * Validation. */

typedef struct vstate {
    lp_buf *msg;
    const char *tool;
    int problems;
    lp_buf path;
} vstate;

static void problem(vstate *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(vstate *st, const char *fmt, ...)
{
    st->problems++;
    if (st->problems > MAX_PROBLEMS)
        return;
    if (st->msg->len)
        lp_buf_putc(st->msg, ' ');
    va_list ap;
    va_start(ap, fmt);
    lp_buf_vprintf(st->msg, fmt, ap);
    va_end(ap);
}

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    default:
        return "null";
    }
}

/* A short rendering of v for messages (strings quoted, long values cut). */
static void show_value(lp_buf *b, const json_t *v)
{
    char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!text) {
        lp_buf_puts(b, "(unprintable)");
        return;
    }
    size_t n = strlen(text);
    if (n > 60) {
        lp_buf_append(b, text, lp_utf8_cut(text, n, 57));
        lp_buf_puts(b, "...");
    } else {
        lp_buf_append(b, text, n);
    }
    free(text);
}

static bool is_type(const json_t *v, const char *t)
{
    if (!strcmp(t, "object"))
        return json_is_object(v);
    if (!strcmp(t, "array"))
        return json_is_array(v);
    if (!strcmp(t, "string"))
        return json_is_string(v);
    if (!strcmp(t, "boolean"))
        return json_is_boolean(v);
    if (!strcmp(t, "null"))
        return json_is_null(v);
    if (!strcmp(t, "number"))
        return json_is_number(v);
    if (!strcmp(t, "integer")) {
        if (json_is_integer(v))
            return true;
        if (json_is_real(v)) {
            double d = json_real_value(v);
            return isfinite(d) && floor(d) == d;
        }
    }
    return false;
}

static const char *article(const char *t)
{
    return (t[0] == 'a' || t[0] == 'i' || t[0] == 'o') ? "an" : "a";
}

/* "an integer between 1 and 100", "a string of 1 to 500 characters", ... */
static void describe(lp_buf *b, const json_t *s)
{
    json_t *type = json_object_get(s, "type");
    json_t *en = json_object_get(s, "enum");
    if (en) {
        lp_buf_puts(b, "one of ");
        size_t i;
        json_t *e;
        json_array_foreach(en, i, e)
        {
            if (i)
                lp_buf_puts(b, ", ");
            show_value(b, e);
        }
        return;
    }
    if (json_is_array(type)) {
        size_t i;
        json_t *t;
        json_array_foreach(type, i, t)
        {
            if (i)
                lp_buf_puts(b, " or ");
            lp_buf_printf(b, "%s %s", article(json_string_value(t)), json_string_value(t));
        }
        return;
    }
    const char *t = json_is_string(type) ? json_string_value(type) : NULL;
    if (!t) {
        lp_buf_puts(b, "a value");
        return;
    }
    lp_buf_printf(b, "%s %s", article(t), t);
    if (!strcmp(t, "integer") || !strcmp(t, "number")) {
        json_t *mn = json_object_get(s, "minimum"), *mx = json_object_get(s, "maximum");
        json_t *emn = json_object_get(s, "exclusiveMinimum");
        json_t *emx = json_object_get(s, "exclusiveMaximum");
        if (mn && mx)
            lp_buf_printf(b, " between %.15g and %.15g", json_number_value(mn), json_number_value(mx));
        else if (mn)
            lp_buf_printf(b, " of at least %.15g", json_number_value(mn));
        else if (mx)
            lp_buf_printf(b, " of at most %.15g", json_number_value(mx));
        if (emn)
            lp_buf_printf(b, " greater than %.15g", json_number_value(emn));
        if (emx)
            lp_buf_printf(b, " less than %.15g", json_number_value(emx));
    } else if (!strcmp(t, "string")) {
        json_t *mn = json_object_get(s, "minLength"), *mx = json_object_get(s, "maxLength");
        if (mn && mx)
            lp_buf_printf(b, " of %.15g to %.15g characters", json_number_value(mn),
                          json_number_value(mx));
        else if (mn)
            lp_buf_printf(b, " of at least %.15g characters", json_number_value(mn));
        else if (mx)
            lp_buf_printf(b, " of at most %.15g characters", json_number_value(mx));
    } else if (!strcmp(t, "array")) {
        json_t *mn = json_object_get(s, "minItems"), *mx = json_object_get(s, "maxItems");
        if (mn && mx)
            lp_buf_printf(b, " of %.15g to %.15g items", json_number_value(mn), json_number_value(mx));
        else if (mn)
            lp_buf_printf(b, " of at least %.15g items", json_number_value(mn));
        else if (mx)
            lp_buf_printf(b, " of at most %.15g items", json_number_value(mx));
    }
}

static void mismatch(vstate *st, const json_t *s, const json_t *v)
{
    lp_buf d;
    lp_buf_init(&d, 0);
    describe(&d, s);
    lp_buf g;
    lp_buf_init(&g, 0);
    show_value(&g, v);
    problem(st, "Argument '%s' must be %s (got %s %s).", st->path.ptr, d.ptr, json_kind(v),
            g.ptr);
    lp_buf_release(&d);
    lp_buf_release(&g);
}

static void validate_at(vstate *st, const json_t *s, const json_t *v);

static void validate_object(vstate *st, const json_t *s, const json_t *v)
{
    json_t *props = json_object_get(s, "properties");
    json_t *req = json_object_get(s, "required");
    size_t i;
    json_t *r;
    json_array_foreach(req, i, r)
    {
        const char *name = json_string_value(r);
        if (json_object_get(v, name))
            continue;
        lp_buf d;
        lp_buf_init(&d, 0);
        json_t *ps = props ? json_object_get(props, name) : NULL;
        if (ps)
            describe(&d, ps);
        else
            lp_buf_puts(&d, "a value");
        if (st->path.len)
            problem(st, "Missing required argument '%s.%s' (%s).", st->path.ptr, name, d.ptr);
        else
            problem(st, "Missing required argument '%s' (%s).", name, d.ptr);
        lp_buf_release(&d);
    }
    json_t *ap = json_object_get(s, "additionalProperties");
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)v, key, val)
    {
        json_t *ps = props ? json_object_get(props, key) : NULL;
        size_t mark = st->path.len;
        if (st->path.len)
            lp_buf_putc(&st->path, '.');
        lp_buf_puts(&st->path, key);
        if (ps) {
            validate_at(st, ps, val);
        } else if (json_is_false(ap)) {
            lp_buf names;
            lp_buf_init(&names, 0);
            const char *pk;
            json_t *pv;
            json_object_foreach(props, pk, pv)
            {
                if (names.len)
                    lp_buf_puts(&names, ", ");
                lp_buf_puts(&names, pk);
            }
            if (names.len)
                problem(st, "Unknown argument '%s'; the accepted %s: %s.", st->path.ptr,
                        mark ? "keys at this level are" : "arguments are", names.ptr);
            else if (mark)
                problem(st, "Unknown argument '%s'; this object takes no keys.", st->path.ptr);
            else
                problem(st, "Unknown argument '%s'; %s takes no arguments (call it with {}).",
                        st->path.ptr, st->tool);
            lp_buf_release(&names);
        }
        lp_buf_truncate(&st->path, mark);
    }
}

static void validate_at(vstate *st, const json_t *s, const json_t *v)
{
    json_t *type = json_object_get(s, "type");
    if (type) {
        bool ok = false;
        if (json_is_string(type)) {
            ok = is_type(v, json_string_value(type));
        } else {
            size_t i;
            json_t *t;
            json_array_foreach(type, i, t) ok = ok || is_type(v, json_string_value(t));
        }
        if (!ok) {
            mismatch(st, s, v);
            return;
        }
    }
    json_t *cst = json_object_get(s, "const");
    if (cst && !json_equal(cst, (json_t *)v)) {
        lp_buf g;
        lp_buf_init(&g, 0);
        show_value(&g, cst);
        problem(st, "Argument '%s' must be %s.", st->path.ptr, g.ptr);
        lp_buf_release(&g);
        return;
    }
    json_t *en = json_object_get(s, "enum");
    if (en) {
        bool found = false;
        size_t i;
        json_t *e;
        json_array_foreach(en, i, e) found = found || json_equal(e, (json_t *)v);
        if (!found) {
            mismatch(st, s, v);
            return;
        }
    }
    if (json_is_number(v)) {
        double d = json_number_value(v);
        json_t *mn = json_object_get(s, "minimum"), *mx = json_object_get(s, "maximum");
        json_t *emn = json_object_get(s, "exclusiveMinimum");
        json_t *emx = json_object_get(s, "exclusiveMaximum");
        if ((mn && d < json_number_value(mn)) || (mx && d > json_number_value(mx)) ||
            (emn && d <= json_number_value(emn)) || (emx && d >= json_number_value(emx)))
            mismatch(st, s, v);
    } else if (json_is_string(v)) {
        size_t n = lp_mcp_utf8_length(json_string_value(v), json_string_length(v));
        json_t *mn = json_object_get(s, "minLength"), *mx = json_object_get(s, "maxLength");
        if ((mn && (double)n < json_number_value(mn)) || (mx && (double)n > json_number_value(mx))) {
            lp_buf d;
            lp_buf_init(&d, 0);
            describe(&d, s);
            if (n == 0)
                problem(st, "Argument '%s' must be %s (got an empty string).", st->path.ptr,
                        d.ptr);
            else
                problem(st, "Argument '%s' must be %s (got %zu characters).", st->path.ptr,
                        d.ptr, n);
            lp_buf_release(&d);
        }
    } else if (json_is_array(v)) {
        size_t n = json_array_size(v);
        json_t *mn = json_object_get(s, "minItems"), *mx = json_object_get(s, "maxItems");
        if ((mn && (double)n < json_number_value(mn)) || (mx && (double)n > json_number_value(mx))) {
            lp_buf d;
            lp_buf_init(&d, 0);
            describe(&d, s);
            problem(st, "Argument '%s' must be %s (got %zu items).", st->path.ptr, d.ptr, n);
            lp_buf_release(&d);
        }
        json_t *items = json_object_get(s, "items");
        if (items) {
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e)
            {
                size_t mark = st->path.len;
                lp_buf_printf(&st->path, "[%zu]", i);
                validate_at(st, items, e);
                lp_buf_truncate(&st->path, mark);
            }
        }
    } else if (json_is_object(v)) {
        validate_object(st, s, v);
    }
}

bool lp_mcp_validate_args(const json_t *schema, const json_t *args, const char *tool,
                          lp_buf *msg)
{
    vstate st = {.msg = msg, .tool = tool};
    lp_buf_init(&st.path, 0);
    lp_buf_reset(msg);
    if (!json_is_object(args)) {
        problem(&st, "The arguments must be a JSON object (got %s).", json_kind(args));
    } else {
        validate_object(&st, schema, args);
    }
    bool ok = st.problems == 0;
    if (!ok) {
        lp_buf body;
        lp_buf_init(&body, 0);
        lp_buf_append(&body, msg->ptr, msg->len);
        lp_buf_reset(msg);
        lp_buf_printf(msg, "Invalid arguments for %s: %s", tool, body.ptr);
        if (st.problems > MAX_PROBLEMS)
            lp_buf_printf(msg, " (%d more problems not shown.)", st.problems - MAX_PROBLEMS);
        json_t *ex = json_object_get(schema, "examples");
        if (json_is_array(ex) && json_array_size(ex)) {
            char *text = json_dumps(json_array_get(ex, 0), JSON_COMPACT);
            if (text) {
                lp_buf_printf(msg, " Example: %s", text);
                free(text);
            }
        }
        lp_buf_release(&body);
    }
    lp_buf_release(&st.path);
    return ok;
}
