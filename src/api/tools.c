/*
 * tools.c: what every route does with a tool table entry (tools.h): the input JSON Schema,
 * the typed request from an arguments object, and the typed call rendered to JSON.
 */
#include "api/tools.h"

const lp_tool *lp_tool_find(const char *name)
{
    for (size_t i = 0; name && i < lp_tool_table_count; i++)
        if (!strcmp(lp_tool_table[i].name, name))
            return &lp_tool_table[i];
    return NULL;
}

const lp_tool_arg *lp_tool_arg_find(const lp_tool *t, const char *name)
{
    for (size_t i = 0; name && i < t->nargs; i++)
        if (!strcmp(t->args[i].name, name))
            return &t->args[i];
    return NULL;
}

static json_t *values_json(const char *const *values)
{
    json_t *a = json_array();
    for (size_t i = 0; values && values[i]; i++)
        json_array_append_new(a, lp_json_textz(values[i]));
    return a;
}

static void set_int(json_t *o, const char *key, int64_t v)
{
    if (v != LP_ARG_UNSET)
        json_object_set_new(o, key, json_integer((json_int_t)v));
}

static json_t *arg_schema(const lp_tool_arg *a)
{
    json_t *p = json_object();
    switch (a->type) {
    case LP_ARG_STRING:
        json_object_set_new(p, "type", json_string("string"));
        set_int(p, "minLength", a->min);
        set_int(p, "maxLength", a->max);
        if (a->dflt_str)
            json_object_set_new(p, "default", lp_json_textz(a->dflt_str));
        break;
    case LP_ARG_INT:
        json_object_set_new(p, "type", json_string("integer"));
        set_int(p, "minimum", a->min);
        set_int(p, "maximum", a->max);
        set_int(p, "default", a->dflt);
        break;
    case LP_ARG_ENUM:
        json_object_set_new(p, "type", json_string("string"));
        json_object_set_new(p, "enum", values_json(a->values));
        if (a->dflt != LP_ARG_UNSET)
            json_object_set_new(p, "default", lp_json_textz(a->values[a->dflt]));
        break;
    case LP_ARG_ENUM_SET:
        json_object_set_new(p, "type", json_string("array"));
        set_int(p, "minItems", a->min);
        set_int(p, "maxItems", a->max);
        json_object_set_new(p, "items", lp_json_pack("{s:s, s:o}", "type", "string", "enum",
                                                     values_json(a->values)));
        break;
    }
    if (a->description)
        json_object_set_new(p, "description", lp_json_textz(a->description));
    return p;
}

json_t *lp_tool_input_schema(const lp_tool *t)
{
    json_t *props = json_object(), *required = json_array();
    for (size_t i = 0; i < t->nargs; i++) {
        json_object_set_new(props, t->args[i].name, arg_schema(&t->args[i]));
        if (t->args[i].required)
            json_array_append_new(required, lp_json_textz(t->args[i].name));
    }
    json_t *s = json_object();
    json_object_set_new(s, "type", json_string("object"));
    json_object_set_new(s, "properties", props);
    json_object_set_new(s, "required", required);
    json_object_set_new(s, "additionalProperties", json_false());
    if (t->examples) {
        json_t *ex = json_loads(t->examples, 0, NULL);
        if (ex)
            json_object_set_new(s, "examples", ex);
    }
    return s;
}

static int enum_index(const char *const *values, const char *v)
{
    for (int i = 0; v && values && values[i]; i++)
        if (!strcmp(values[i], v))
            return i;
    return -1;
}

void lp_tool_req_defaults(const lp_tool *t, void *req)
{
    memset(req, 0, t->req_size);
    for (size_t i = 0; i < t->nargs; i++) {
        const lp_tool_arg *a = &t->args[i];
        if (a->offset == LP_ARG_NO_FIELD)
            continue;
        char *f = (char *)req + a->offset;
        if (a->type == LP_ARG_STRING) {
            const char *d = a->dflt_str;
            memcpy(f, &d, sizeof d);
        } else if (a->type == LP_ARG_INT || a->type == LP_ARG_ENUM) {
            int64_t d = a->dflt == LP_ARG_UNSET ? 0 : a->dflt;
            memcpy(f, &d, sizeof d);
        }
    }
}

static lp_status fill_one(const lp_tool *t, const lp_tool_arg *a, const json_t *v, char *f,
                          lp_error *err)
{
    switch (a->type) {
    case LP_ARG_STRING: {
        if (!json_is_string(v))
            return lp_error_set(err, LP_EINVAL, "%s: %s must be a string", t->name, a->name);
        size_t n = json_string_length(v);
        if ((a->min != LP_ARG_UNSET && (int64_t)n < a->min) ||
            (a->max != LP_ARG_UNSET && (int64_t)n > a->max))
            return lp_error_set(err, LP_EINVAL, "%s: %s must be %lld to %lld bytes long", t->name,
                                a->name, (long long)(a->min == LP_ARG_UNSET ? 0 : a->min),
                                (long long)a->max);
        const char *s = json_string_value(v);
        memcpy(f, &s, sizeof s);
        return LP_OK;
    }
    case LP_ARG_INT: {
        if (!json_is_integer(v))
            return lp_error_set(err, LP_EINVAL, "%s: %s must be an integer", t->name, a->name);
        int64_t n = (int64_t)json_integer_value(v);
        if ((a->min != LP_ARG_UNSET && n < a->min) || (a->max != LP_ARG_UNSET && n > a->max))
            return lp_error_set(err, LP_EINVAL, "%s: %s must be from %lld to %lld", t->name,
                                a->name, (long long)a->min, (long long)a->max);
        memcpy(f, &n, sizeof n);
        return LP_OK;
    }
    case LP_ARG_ENUM: {
        int64_t k = json_is_string(v) ? enum_index(a->values, json_string_value(v)) : -1;
        if (k < 0)
            return lp_error_set(err, LP_EINVAL, "%s: %s is not one of its values", t->name,
                                a->name);
        memcpy(f, &k, sizeof k);
        return LP_OK;
    }
    case LP_ARG_ENUM_SET: {
        uint32_t bits = 0;
        size_t i;
        const json_t *x;
        if (!json_is_array(v))
            return lp_error_set(err, LP_EINVAL, "%s: %s must be an array", t->name, a->name);
        json_array_foreach(v, i, x)
        {
            int k = json_is_string(x) ? enum_index(a->values, json_string_value(x)) : -1;
            if (k < 0)
                return lp_error_set(err, LP_EINVAL, "%s: %s holds a value not among its own",
                                    t->name, a->name);
            bits |= 1u << k;
        }
        memcpy(f, &bits, sizeof bits);
        return LP_OK;
    }
    }
    return LP_OK;
}

lp_status lp_tool_req_from_json(const lp_tool *t, const json_t *args, void *req, lp_error *err)
{
    lp_tool_req_defaults(t, req);
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)args, key, v)
    {
        const lp_tool_arg *a = lp_tool_arg_find(t, key);
        if (!a) {
            if (!strcmp(key, "pathBytes")) /* the escaped form of path (src/mcp) */
                continue;
            return lp_error_set(err, LP_EINVAL, "%s takes no argument named %s", t->name, key);
        }
        if (a->offset == LP_ARG_NO_FIELD)
            continue;
        lp_status rc = fill_one(t, a, v, (char *)req + a->offset, err);
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < t->nargs; i++)
        if (t->args[i].required && !json_object_get(args, t->args[i].name))
            return lp_error_set(err, LP_EINVAL, "%s needs %s", t->name, t->args[i].name);
    return LP_OK;
}

lp_status lp_tool_call(const lp_tool *t, const lp_graph_call *call, const void *req,
                       json_t **out, lp_error *err)
{
    *out = NULL;
    if (!t->run || !t->to_json)
        return lp_error_set(err, LP_EINVAL, "%s is not a typed tool", t->name);
    lp_arena arena;
    lp_arena_init(&arena, 0);
    void *result = lp_arena_zalloc(&arena, t->result_size);
    lp_status rc = t->run(call, req, &arena, result, err);
    if (!rc)
        *out = t->to_json(result);
    lp_arena_release(&arena);
    return rc;
}
