/*
 * tools.c: the list of tools loupe serves over MCP.
 *
 * This is where the index/search tools plug in: list_codebases, manage_index,
 * search_codebase, continue_search, file_outline, read_file, call_graph, trace_path,
 * find_references, detect_changes, architecture_overview and search_tools each add one
 * lp_mcp_tool_def (static storage) and call lp_mcp_registry_add below, in the order
 * tools/list should show them. The debug_* fixtures come last and only for tests.
 */
#include "mcp/mcp.h"

lp_status lp_mcp_register_tools(lp_mcp_registry *r, const lp_mcp_options *opt, lp_error *err)
{
    /* The real tools are registered here once src/index and src/search exist. */
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
