/*
 * test_tools.c: the tool table (src/api/tools.h) and the warning table (core/warn.h): every
 * tool has an MCP rendering and a CLI rendering, its generated schema is one the MCP
 * validator enforces, its typed request fills from arguments with the table's defaults and
 * limits; warning codes are unique and stable in form.
 */
#include "t.h"

#include "api/tools.h"
#include "cli/cli_tool.h"
#include "mcp/tools_int.h"

T_TEST(tool_table_every_tool_has_mcp_and_cli_rendering)
{
    lp_mcp_registry *r = lp_mcp_registry_new();
    lp_error err = {0};
    T_CHECK_OK(lp_tools_register_graph(r, NULL, &err), &err);
    T_CHECK(lp_tool_table_count > 0);
    for (size_t i = 0; i < lp_tool_table_count; i++) {
        const lp_tool *tool = &lp_tool_table[i];
        /* MCP: registered under its name, with its content renderer */
        T_CHECK_MSG(lp_mcp_registry_find(r, tool->name), "%s is not an MCP tool", tool->name);
        T_CHECK_MSG((tool->run && tool->to_json) || tool->run_json, "%s has no handler", tool->name);
        /* CLI: a command that renders the typed result, or the JSON tool's own command */
        const lp_cli_tool_view *v = lp_cli_tool_view_find(tool->name);
        T_CHECK_MSG(v && v->command, "%s has no CLI command", tool->name);
        if (tool->run)
            T_CHECK_MSG(v->text, "%s has no CLI renderer of its result", tool->name);
        else
            T_CHECK_MSG(v->legacy && v->legacy->run, "%s has no CLI command", tool->name);
    }
    /* and no view names a tool the table lacks */
    for (size_t i = 0; i < lp_cli_tool_views_count; i++)
        T_CHECK_MSG(lp_tool_find(lp_cli_tool_views[i]->tool), "view of unknown tool %s",
                    lp_cli_tool_views[i]->tool);
done:
    lp_mcp_registry_free(r);
}

T_TEST(tool_table_schemas_are_enforceable_and_defaults_in_range)
{
    json_t *s = NULL;
    for (size_t i = 0; i < lp_tool_table_count; i++) {
        const lp_tool *tool = &lp_tool_table[i];
        s = lp_tool_input_schema(tool);
        lp_error err = {0};
        T_CHECK_OK(lp_mcp_schema_check(s, &err), &err);
        json_decref(s);
        s = NULL;
        for (size_t k = 0; k < tool->nargs; k++) {
            const lp_tool_arg *a = &tool->args[k];
            if (a->type == LP_ARG_INT)
                T_CHECK_MSG(a->dflt >= a->min && a->dflt <= a->max, "%s.%s default", tool->name,
                            a->name);
            if (a->type == LP_ARG_ENUM && a->dflt != LP_ARG_UNSET)
                T_CHECK_MSG(a->values && a->values[a->dflt], "%s.%s default", tool->name, a->name);
            if (a->cli == LP_ARG_CLI_OPTION && tool->run)
                T_CHECK_MSG(a->flag && a->metavar, "%s.%s has no CLI spelling", tool->name,
                            a->name);
        }
    }
done:
    json_decref(s);
}

T_TEST(tool_table_typed_request_takes_defaults_and_checks_limits)
{
    const lp_tool *tool = lp_tool_find("call_graph");
    json_t *a = NULL;
    T_CHECK(tool && tool->req_size == sizeof(lp_graph_cg_req));
    lp_graph_cg_req req;
    lp_error err = {0};
    a = json_loads("{\"path\":\"/x\",\"symbolId\":\"sym:abcdef\"}", 0, NULL);
    T_CHECK_OK(lp_tool_req_from_json(tool, a, &req, &err), &err);
    T_CHECK(!strcmp(req.symbol_id, "sym:abcdef"));
    T_CHECK(req.direction == LP_GRAPH_BOTH && req.depth == 2 && req.max_nodes == 100 &&
            req.max_edges == 300);
    json_decref(a);
    a = json_loads("{\"path\":\"/x\",\"symbolId\":\"sym:abcdef\",\"direction\":\"callers\","
                   "\"depth\":5}",
                   0, NULL);
    T_CHECK_OK(lp_tool_req_from_json(tool, a, &req, &err), &err);
    T_CHECK(req.direction == LP_GRAPH_CALLERS && req.depth == 5);
    json_decref(a);
    a = json_loads("{\"path\":\"/x\",\"symbolId\":\"sym:abcdef\",\"depth\":6}", 0, NULL);
    T_CHECK(lp_tool_req_from_json(tool, a, &req, &err) == LP_EINVAL);
    json_decref(a);
    a = json_loads("{\"path\":\"/x\"}", 0, NULL);
    T_CHECK(lp_tool_req_from_json(tool, a, &req, &err) == LP_EINVAL);
    T_CHECK_MSG(strstr(err.msg, "symbolId"), "%s", err.msg);
done:
    json_decref(a);
}

T_TEST(warn_table_codes_are_unique_and_round_trip)
{
    for (int i = 0; i < LP_WARN_COUNT; i++) {
        const lp_warn_info *w = lp_warn_get((lp_warn)i);
        T_CHECK(w && w->code && *w->code && w->meaning && *w->meaning);
        for (const char *p = w->code; *p; p++)
            T_CHECK_MSG((*p >= 'a' && *p <= 'z') || *p == '_', "code %s", w->code);
        T_CHECK_MSG(lp_warn_from_code(w->code) == (lp_warn)i, "code %s is not unique", w->code);
    }
    T_CHECK(lp_warn_from_code("publication_partial") == LP_WARN_COUNT);
    T_CHECK(lp_warn_from_code("results_truncated") == LP_WARN_COUNT);
    T_CHECK(!strcmp(lp_warn_code(LP_WARN_INDEX_PARTIAL), "index_partial"));
    T_CHECK(!strcmp(lp_warn_code(LP_WARN_COUNT), ""));
done:;
}
