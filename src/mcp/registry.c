/*
 * registry.c: the tool registry (definitions, parsed schemas, the tools/list entries) and
 * the shaping of tools/call results.
 *
 * Invariants: tools are listed in registration order (deterministic, as 2026-07-28 asks);
 * every input schema passed lp_mcp_schema_check; every output schema declares the budget
 * fields (and the envelope fields for envelope tools) so structuredContent always validates.
 */
#include "mcp/mcp_int.h"

#include "core/settings.h"

json_t *lp_mcp_budget_schema_properties(void); /* envelope.c */

lp_mcp_registry *lp_mcp_registry_new(void) { return lp_xcalloc(1, sizeof(lp_mcp_registry)); }

void lp_mcp_registry_free(lp_mcp_registry *r)
{
    if (!r)
        return;
    for (size_t i = r->cleanups.len; i-- > 0;)
        r->cleanups.items[i].fn(r->cleanups.items[i].ctx);
    lp_vec_free(&r->cleanups);
    for (size_t i = 0; i < r->tools.len; i++) {
        json_decref(r->tools.items[i].input_schema);
        json_decref(r->tools.items[i].output_schema);
        json_decref(r->tools.items[i].listing);
    }
    lp_vec_free(&r->tools);
    free(r);
}

size_t lp_mcp_registry_count(const lp_mcp_registry *r) { return r->tools.len; }

void lp_mcp_registry_on_free(lp_mcp_registry *r, void (*fn)(void *ctx), void *ctx)
{
    lp_mcp_cleanup c = {fn, ctx};
    lp_vec_push(&r->cleanups, c);
}

const lp_mcp_tool *lp_mcp_registry_find(const lp_mcp_registry *r, const char *name)
{
    for (size_t i = 0; i < r->tools.len; i++)
        if (!strcmp(r->tools.items[i].def.name, name))
            return &r->tools.items[i];
    return NULL;
}

void lp_mcp_registry_names(const lp_mcp_registry *r, lp_buf *out)
{
    for (size_t i = 0; i < r->tools.len; i++) {
        if (i)
            lp_buf_puts(out, ", ");
        lp_buf_puts(out, r->tools.items[i].def.name);
    }
}

static bool good_name(const char *n)
{
    if (!n || !*n || strlen(n) > 64)
        return false;
    for (const char *p = n; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return false;
    return true;
}

static json_t *parse_schema(const char *text, const char *tool, const char *which, lp_error *err)
{
    json_error_t jerr;
    json_t *s = json_loads(text ? text : "{\"type\":\"object\"}", 0, &jerr);
    if (!s) {
        lp_error_set(err, LP_EINVAL, "tool %s: %s schema is not valid JSON (line %d: %s)", tool,
                     which, jerr.line, jerr.text);
        return NULL;
    }
    if (!json_is_object(s)) {
        json_decref(s);
        lp_error_set(err, LP_EINVAL, "tool %s: %s schema must be an object", tool, which);
        return NULL;
    }
    /* "$schema" first, so it is what a reader (and a validator) sees first. */
    if (!json_object_get(s, "$schema")) {
        json_t *t = json_object();
        json_object_set_new(t, "$schema", lp_json_textz(LP_MCP_SCHEMA_2020_12));
        json_object_update(t, s);
        json_decref(s);
        s = t;
    }
    return s;
}

/* Add the fields every result may carry to the output schema's properties. */
static lp_status extend_output(json_t *out, bool envelope, const char *tool, lp_error *err)
{
    json_t *type = json_object_get(out, "type");
    if (!json_is_string(type) || strcmp(json_string_value(type), "object") != 0)
        return lp_error_set(err, LP_EINVAL, "tool %s: output schema must have type object",
                            tool);
    json_t *props = json_object_get(out, "properties");
    bool fresh = !props;
    if (fresh)
        props = json_object();
    json_t *extra = envelope ? lp_mcp_envelope_schema_properties()
                             : lp_mcp_budget_schema_properties();
    const char *k;
    json_t *v;
    json_object_foreach(extra, k, v)
    {
        if (!json_object_get(props, k))
            json_object_set(props, k, v);
    }
    json_decref(extra);
    if (fresh) /* handed over once filled: never used after jansson took it */
        json_object_set_new(out, "properties", props);
    return LP_OK;
}

/* A tool with a "path" argument also takes "pathBytes", the escaped form of a path that is
 * not UTF-8 (as answers give it, core.h lp_bytes_escape), which then stands for path (path
 * stays required: answers give both, path with U+FFFD for display). */
static void add_path_bytes(json_t *in)
{
    json_t *props = json_object_get(in, "properties");
    if (!json_is_object(json_object_get(props, "path")) || json_object_get(props, "pathBytes"))
        return;
    json_t *pb = json_object();
    json_object_set_new(pb, "type", json_string("string"));
    json_object_set_new(pb, "minLength", json_integer(1));
    json_object_set_new(pb, "maxLength", json_integer(16384));
    json_object_set_new(pb, "description",
                        json_string("The path in its escaped form, for a path that is not "
                                    "UTF-8: the pathBytes (or fileBytes) value of an earlier "
                                    "answer, %HH for each byte that is not UTF-8 and for '%'. "
                                    "When given, it is the path (path is then only shown)."));
    json_object_set_new(props, "pathBytes", pb);
}

/* Every tool takes "maxBytes": this answer's byte budget, at most the server's cap (the
 * server takes it out of the arguments before the handler sees them: server.c). */
static void add_max_bytes(json_t *in)
{
    json_t *props = json_object_get(in, "properties");
    if (!json_is_object(props) || json_object_get(props, "maxBytes"))
        return;
    json_t *mb = json_object();
    json_object_set_new(mb, "type", json_string("integer"));
    json_object_set_new(mb, "minimum", json_integer((json_int_t)LP_MCP_MIN_RESULT_BYTES));
    json_object_set_new(mb, "maximum", json_integer(64 * 1024 * 1024));
    json_object_set_new(mb, "description",
                        json_string("Byte budget of this answer (the server's cap, 24 KiB by "
                                    "default, bounds it); a longer answer is paged or cut and "
                                    "says how to go on."));
    json_object_set_new(props, "maxBytes", mb);
}

lp_status lp_mcp_registry_add(lp_mcp_registry *r, const lp_mcp_tool_def *def, lp_error *err)
{
    if (!good_name(def->name))
        return lp_error_set(err, LP_EINVAL,
                            "tool name '%s' must be 1-64 characters of a-z, 0-9 and _",
                            def->name ? def->name : "(null)");
    if (lp_mcp_registry_find(r, def->name))
        return lp_error_set(err, LP_EINVAL, "tool %s is registered twice", def->name);
    if (!def->fn || !def->description || !def->title)
        return lp_error_set(err, LP_EINVAL, "tool %s needs a title, a description and a handler",
                            def->name);
    json_t *in = parse_schema(def->input_schema, def->name, "input", err);
    if (!in)
        return err ? err->code : LP_EINVAL;
    lp_status rc = lp_mcp_schema_check(in, err);
    if (rc) {
        lp_error_prefix(err, "tool %s input schema", def->name);
        json_decref(in);
        return rc;
    }
    json_t *out = parse_schema(def->output_schema, def->name, "output", err);
    if (!out) {
        json_decref(in);
        return err ? err->code : LP_EINVAL;
    }
    rc = extend_output(out, def->envelope, def->name, err);
    if (rc) {
        json_decref(in);
        json_decref(out);
        return rc;
    }
    add_path_bytes(in);
    add_max_bytes(in);
    json_t *listing = json_object();
    json_object_set_new(listing, "name", lp_json_textz(def->name));
    json_object_set_new(listing, "title", lp_json_textz(def->title));
    json_object_set_new(listing, "description", lp_json_textz(def->description));
    json_object_set(listing, "inputSchema", in);
    /* Output schemas are a third of tools/list and no client we know of needs them to use
     * structuredContent: listed only when asked for (LOUPE_MCP_OUTPUT_SCHEMAS=1). */
    if (lp_setting_bool(LP_SET_MCP_OUTPUT_SCHEMAS))
        json_object_set(listing, "outputSchema", out);
    json_t *ann = json_object();
    json_object_set_new(ann, "title", lp_json_textz(def->title));
    json_object_set_new(ann, "readOnlyHint", json_boolean(def->read_only));
    json_object_set_new(ann, "destructiveHint", json_boolean(def->destructive));
    json_object_set_new(ann, "idempotentHint", json_boolean(def->idempotent));
    json_object_set_new(ann, "openWorldHint", json_boolean(def->open_world));
    json_object_set_new(listing, "annotations", ann);

    lp_mcp_tool *t = lp_vec_push_zero(&r->tools);
    t->def = *def;
    t->input_schema = in;
    t->output_schema = out;
    t->listing = listing;
    return LP_OK;
}

json_t *lp_mcp_registry_tools_json(const lp_mcp_registry *r)
{
    json_t *a = json_array();
    for (size_t i = 0; i < r->tools.len; i++)
        json_array_append(a, r->tools.items[i].listing);
    return a;
}

/* ------------------------------------------------------------------------------------------
 * tools/call results. */

json_t *lp_mcp_tool_result_ok(const lp_mcp_tool *t, json_t *structured, size_t max_bytes,
                              lp_mcp_text_memo *memo, lp_error *err)
{
    char *text = NULL;
    size_t len = 0;
    lp_status rc = lp_mcp_budget_fit(structured, max_bytes, t->def.truncatable, &text, &len, err);
    if (rc) {
        json_decref(structured);
        return NULL;
    }
    if (memo && !memo->json) {
        size_t clen = 0;
        char *compact = lp_mcp_text_render(structured, memo, &clen);
        if (compact && clen <= len) {
            free(text);
            text = compact;
            len = clen;
        } else {
            free(compact);
        }
    }
    json_t *res = json_object();
    json_t *content = json_array();
    json_t *block = json_object();
    json_object_set_new(block, "type", json_string("text"));
    json_object_set_new(block, "text", lp_json_text(text, len));
    json_array_append_new(content, block);
    json_object_set_new(res, "content", content);
    json_object_set_new(res, "structuredContent", structured);
    free(text);
    return res;
}

json_t *lp_mcp_tool_result_error(const char *msg)
{
    json_t *res = json_object();
    json_t *content = json_array();
    json_t *block = json_object();
    json_object_set_new(block, "type", json_string("text"));
    json_object_set_new(block, "text", lp_json_text(msg, strlen(msg)));
    json_array_append_new(content, block);
    json_object_set_new(res, "content", content);
    json_object_set_new(res, "isError", json_true());
    return res;
}
