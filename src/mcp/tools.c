/*
 * tools.c: the list of tools loupe serves over MCP, in the order tools/list shows them.
 *
 * The index tools share one lp_tools (background index operations, the freshness cache):
 * it is created here, handed to each tool as its `user` pointer, and freed with the
 * registry (which cancels builds still running; their previous publication stays current).
 * The debug_* fixtures come last and only for tests.
 */
#include "mcp/tools_int.h"

static const lp_mcp_tool_def *const index_tools[] = {
    &lp_tool_list_codebases,  &lp_tool_manage_index, &lp_tool_search_codebase,
    &lp_tool_continue_search, &lp_tool_file_outline, &lp_tool_read_file,
};

lp_status lp_mcp_register_tools(lp_mcp_registry *r, const lp_mcp_options *opt, lp_error *err)
{
    lp_tools *t = lp_tools_new();
    lp_mcp_registry_on_free(r, lp_tools_free, t);
    for (size_t i = 0; i < LP_ARRAY_LEN(index_tools); i++) {
        lp_mcp_tool_def def = *index_tools[i];
        def.user = t;
        lp_status rc = lp_mcp_registry_add(r, &def, err);
        if (rc)
            return rc;
    }
    /* The code-graph tools (call_graph, trace_path, find_references, detect_changes,
     * architecture_overview). */
    lp_status grc = lp_tools_register_graph(r, t, err);
    if (grc)
        return grc;
    /* search_tools, when `loupe mcp --tool-catalog FILE` loaded a catalog. */
    if (opt->tool_catalog) {
        lp_status rc = lp_mcp_register_catalog_tools(r, opt, err);
        if (rc)
            return rc;
    }
    if (opt->test_tools) {
        lp_status rc = lp_mcp_register_debug_tools(r, err);
        if (rc)
            return rc;
    }
    return LP_OK;
}
