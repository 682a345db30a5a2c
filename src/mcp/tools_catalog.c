/*
 * tools_catalog.c: the `search_tools` MCP tool over the tool catalog that `loupe mcp
 * --tool-catalog FILE` loaded (src/catalog does the work: see catalog.h).
 *
 * The definition (schemas, description, annotations) comes from
 * lp_catalog_search_tools_tool(), serialized once per process into static storage, as the
 * registry borrows a tool's strings for its lifetime. The catalog is immutable while the
 * server runs, so concurrent calls only read it.
 */
#include "catalog/catalog.h"
#include "mcp/mcp.h"

#include <pthread.h>

static pthread_once_t def_once = PTHREAD_ONCE_INIT;
static char *def_title, *def_description, *def_input, *def_output;
static bool def_read_only, def_destructive, def_idempotent, def_open_world;

static char *dup_string(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return lp_xstrdup(s ? s : "");
}

static void build_def(void)
{
    json_t *t = lp_catalog_search_tools_tool();
    def_title = dup_string(t, "title");
    def_description = dup_string(t, "description");
    def_input = json_dumps(json_object_get(t, "inputSchema"), JSON_COMPACT | JSON_PRESERVE_ORDER);
    def_output = json_dumps(json_object_get(t, "outputSchema"), JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_t *ann = json_object_get(t, "annotations");
    def_read_only = json_is_true(json_object_get(ann, "readOnlyHint"));
    def_destructive = json_is_true(json_object_get(ann, "destructiveHint"));
    def_idempotent = json_is_true(json_object_get(ann, "idempotentHint"));
    def_open_world = json_is_true(json_object_get(ann, "openWorldHint"));
    json_decref(t);
}

static lp_status search_tools_fn(lp_mcp_call *call, json_t **result, lp_error *err)
{
    const lp_catalog *cat = lp_mcp_call_user(call);
    lp_error e = {0};
    lp_status st = lp_catalog_search_tools_call(cat, lp_mcp_call_args(call), result, NULL, &e);
    if (st) {
        /* The server writes "<status code>: <message>"; the catalog's message starts with its
         * own code ("invalid_argument: ..."): do not say it twice. */
        const char *msg = e.msg, *sc = lp_status_code(st);
        size_t n = strlen(sc);
        if (!strncmp(msg, sc, n) && msg[n] == ':')
            msg += n + 1 + (msg[n + 1] == ' ');
        lp_error_set(err, st, "%s", msg);
    }
    return st;
}

static const char *const truncatable[] = {"tools", NULL};

lp_status lp_mcp_register_catalog_tools(lp_mcp_registry *r, const lp_mcp_options *opt,
                                        lp_error *err)
{
    pthread_once(&def_once, build_def);
    if (!def_input || !def_output)
        return lp_error_set(err, LP_ERROR, "search_tools: could not serialize its schemas");
    lp_mcp_tool_def def = {
        .name = "search_tools",
        .title = def_title,
        .description = def_description,
        .input_schema = def_input,
        .output_schema = def_output,
        .read_only = def_read_only,
        .destructive = def_destructive,
        .idempotent = def_idempotent,
        .open_world = def_open_world,
        .truncatable = truncatable,
        .fn = search_tools_fn,
        .user = opt->tool_catalog,
    };
    return lp_mcp_registry_add(r, &def, err);
}
