/*
 * tool_graph.c: the tools of the tool table (src/api/tools.h: call_graph, trace_path,
 * find_references, detect_changes, architecture_overview) as MCP tools. The table declares
 * them; this file registers each one with the input schema generated from its arguments,
 * resolves `path` to its indexed root, pins one publication for the call, runs the tool
 * (typed: the request struct filled from the validated arguments, the result struct rendered
 * by the table's JSON renderer; or the JSON handler of a tool not migrated yet) and merges
 * its answer into the agent envelope.
 */
#include "mcp/tools_int.h"

#include "api/tools.h"

static bool call_is_cancelled(void *ctx) { return lp_mcp_call_cancelled(ctx); }

/* The content object of tool t for this call. */
static lp_status run_tool(const lp_tool *t, const lp_graph_call *gc, json_t **content,
                          lp_error *err)
{
    if (!t->run)
        return t->run_json(gc, content, err);
    void *req = lp_xcalloc(1, t->req_size);
    lp_status rc = lp_tool_req_from_json(t, gc->args, req, err);
    if (!rc)
        rc = lp_tool_call(t, gc, req, content, err);
    free(req);
    return rc;
}

static lp_status graph_fn(lp_mcp_call *call, json_t **result, lp_error *err)
{
    lp_tools *t = lp_tools_of(call);
    const lp_tool *g = lp_tool_find(lp_mcp_call_tool_name(call));
    lp_buf root, rel;
    lp_buf_init(&root, 0);
    lp_buf_init(&rel, 0);
    json_t *content = NULL;
    lp_store *st = NULL;
    lp_publication pub;
    lp_status rc = g ? LP_OK : lp_error_set(err, LP_ERROR, "unknown graph tool");
    if (!rc)
        rc = lp_tools_root_of(call, lp_tools_arg_str(call, "path"), &root, &rel, err);
    if (!rc)
        rc = lp_tools_open(call, root.ptr, &st, &pub, err);
    if (rc)
        goto done;
    lp_graph_call gc = {.st = st,
                        .args = lp_mcp_call_args(call),
                        .is_cancelled = call_is_cancelled,
                        .cancel_ctx = call};
    if ((rc = run_tool(g, &gc, &content, err)))
        goto done;
    json_t *out = lp_tools_envelope(root.ptr, &pub, LP_MCP_STATE_READY);
    const char *key;
    json_t *val;
    json_object_foreach(content, key, val) {
        if (strcmp(key, "warnings") == 0) {
            size_t i;
            json_t *w;
            json_t *warnings = json_object_get(out, "warnings");
            json_array_foreach(val, i, w) json_array_append(warnings, w);
        } else {
            json_object_set(out, key, val);
        }
    }
    if (!json_object_get(out, "publicationId"))
        json_object_set_new(out, "publicationId", json_integer(pub.id));
    lp_tools_warn_writer(t, out, root.ptr);
    lp_fresh f;
    if (lp_tools_freshness(t, root.ptr, pub.id, false, &f, NULL) == LP_OK)
        lp_tools_envelope_freshness(out, root.ptr, pub.id, &f);
    *result = out;
done:
    json_decref(content);
    lp_buf_release(&root);
    lp_buf_release(&rel);
    return rc;
}

lp_status lp_tools_register_graph(lp_mcp_registry *r, lp_tools *t, lp_error *err)
{
    for (size_t i = 0; i < lp_tool_table_count; i++) {
        const lp_tool *g = &lp_tool_table[i];
        json_t *schema = lp_tool_input_schema(g);
        char *in = json_dumps(schema, JSON_COMPACT | JSON_PRESERVE_ORDER);
        json_decref(schema);
        if (!in)
            abort(); /* jansson fails only when memory is exhausted */
        lp_mcp_registry_on_free(r, free, in); /* the registry borrows it for its lifetime */
        lp_mcp_tool_def def = {
            .name = g->name,
            .title = g->title,
            .description = g->description,
            .input_schema = in,
            .output_schema = g->output_schema,
            .envelope = true,
            .read_only = true,
            .idempotent = true,
            .truncatable = g->truncatable,
            .fn = graph_fn,
            .user = t,
        };
        lp_status rc = lp_mcp_registry_add(r, &def, err);
        if (rc)
            return rc;
    }
    return LP_OK;
}
