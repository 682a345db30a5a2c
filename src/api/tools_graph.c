/*
 * tools_graph.c: the code-graph tools' entries of the tool table (tools.h): call_graph,
 * trace_path, find_references and architecture_overview (typed) and detect_changes (a JSON
 * handler until it is migrated). Their arguments are declared here once (the numbers are
 * graph.h's LP_GRAPH_* limits): the MCP input schemas are generated from them and the CLI
 * commands are generated from them (or, for detect_changes, read them).
 */
#include "api/tools.h"

#include <stddef.h>

#define PATH_ARG                                                                               \
    {.name = "path",                                                                          \
     .type = LP_ARG_STRING,                                                                    \
     .required = true,                                                                         \
     .min = 1,                                                                                 \
     .max = 4096,                                                                              \
     .dflt = LP_ARG_UNSET,                                                                     \
     .description = "Absolute path of the indexed codebase (or any folder or file inside it).", \
     .offset = LP_ARG_NO_FIELD,                                                                \
     .cli = LP_ARG_CLI_ROOT,                                                                   \
     .flag = "root",                                                                           \
     .metavar = "PATH",                                                                        \
     .cli_help = "the indexed codebase, or a folder inside it (default: the current folder)"}

/* An integer argument with a default. */
#define INT_ARG(nm, lo, hi, def, off, fl, help)                                                \
    {.name = nm,                                                                               \
     .type = LP_ARG_INT,                                                                       \
     .min = lo,                                                                                \
     .max = hi,                                                                                \
     .dflt = def,                                                                              \
     .offset = off,                                                                            \
     .cli = LP_ARG_CLI_OPTION,                                                                 \
     .flag = fl,                                                                               \
     .metavar = "N",                                                                           \
     .cli_help = help}

#define SYMBOL_OUT                                                                             \
    "{\"type\":\"object\",\"properties\":{"                                                    \
    "\"id\":{\"type\":\"string\"},\"name\":{\"type\":\"string\"},"                             \
    "\"qualifiedName\":{\"type\":\"string\"},\"kind\":{\"type\":\"string\"},"                  \
    "\"file\":{\"type\":\"string\"},\"startLine\":{\"type\":\"integer\"},"                     \
    "\"endLine\":{\"type\":[\"integer\",\"null\"]},\"language\":{\"type\":\"string\"}},"       \
    "\"required\":[\"id\",\"name\",\"kind\",\"file\"]}"

#define CAPS_OUT                                                                               \
    "{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"                      \
    "\"language\":{\"type\":\"string\"},\"unsupportedEdges\":{\"type\":\"array\"},"            \
    "\"covers\":{\"type\":\"string\"},\"cannotSee\":{\"type\":\"string\"}}}}"

static const char call_graph_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"root\":" SYMBOL_OUT ","
    "\"direction\":{\"type\":\"string\"},\"depth\":{\"type\":\"integer\"},"
    "\"nodes\":{\"type\":\"array\",\"items\":" SYMBOL_OUT "},"
    "\"edges\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"from\":{\"type\":\"string\"},\"to\":{\"type\":\"string\"},\"kind\":{\"type\":\"string\"},"
    "\"strategy\":{\"type\":\"string\"},\"callSite\":{\"type\":[\"object\",\"null\"]}}}},"
    "\"tests\":{\"type\":\"array\"},"
    "\"evidenceSummary\":{\"type\":\"object\"},"
    "\"unresolvedCallees\":{\"type\":\"array\"},\"ambiguousCallees\":{\"type\":\"array\"},"
    "\"ambiguousCallers\":{\"type\":\"array\"},\"possibleCallers\":{\"type\":\"array\"},"
    "\"capabilities\":" CAPS_OUT ","
    "\"truncation\":{\"type\":\"object\"}},"
    "\"required\":[\"root\",\"nodes\",\"edges\",\"evidenceSummary\",\"capabilities\"]}";

static const char *const call_graph_cut[] = {"possibleCallers", "unresolvedCallees",
                                             "ambiguousCallers", "ambiguousCallees", "edges",
                                             "nodes", NULL};

static const char trace_path_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"from\":" SYMBOL_OUT ",\"to\":" SYMBOL_OUT ","
    "\"found\":{\"type\":\"boolean\"},\"length\":{\"type\":\"integer\"},"
    "\"path\":{\"type\":\"array\",\"items\":" SYMBOL_OUT "},"
    "\"edges\":{\"type\":\"array\"},\"explored\":{\"type\":\"integer\"},"
    "\"edgeKinds\":{\"type\":\"array\"},\"capabilities\":" CAPS_OUT ","
    "\"truncation\":{\"type\":\"object\"}},"
    "\"required\":[\"from\",\"to\",\"found\",\"path\",\"edges\"]}";

static const char find_refs_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"symbol\":" SYMBOL_OUT ",\"name\":{\"type\":\"string\"},"
    "\"identifierBoundary\":{\"type\":\"boolean\"},"
    "\"matches\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"file\":{\"type\":\"string\"},\"line\":{\"type\":\"integer\"},"
    "\"column\":{\"type\":\"integer\"},\"text\":{\"type\":\"string\"},"
    "\"owner\":{\"type\":[\"object\",\"null\"]},\"isDefinition\":{\"type\":\"boolean\"}}}},"
    "\"coverage\":{\"type\":\"object\",\"properties\":{\"state\":{\"type\":\"string\","
    "\"enum\":[\"complete\",\"partial\"]}}},"
    "\"pathPrefix\":{\"type\":[\"string\",\"null\"]}},"
    "\"required\":[\"symbol\",\"matches\",\"coverage\"]}";

static const char *const find_refs_cut[] = {"matches", NULL};

static const char changes_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"baseRef\":{\"type\":\"string\"},\"baseCommit\":{\"type\":\"string\"},"
    "\"changedFiles\":{\"type\":\"array\"},"
    "\"changedSymbols\":{\"type\":\"array\",\"items\":" SYMBOL_OUT "},"
    "\"deletedSymbols\":{\"type\":\"array\"},"
    "\"callers\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"id\":{\"type\":\"string\"},\"depth\":{\"type\":\"integer\"},"
    "\"relation\":{\"type\":\"string\",\"enum\":[\"direct\",\"transitive\"]},"
    "\"path\":{\"type\":\"array\"}}}},"
    "\"summary\":{\"type\":\"object\"},\"truncation\":{\"type\":\"object\"}},"
    "\"required\":[\"baseRef\",\"changedFiles\",\"changedSymbols\",\"deletedSymbols\","
    "\"callers\",\"summary\"]}";

static const char *const changes_cut[] = {"callers", "deletedSymbols", "changedSymbols",
                                          "changedFiles", NULL};

static const char arch_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"scope\":{\"type\":\"string\"},\"subtree\":{\"type\":[\"string\",\"null\"]},"
    "\"packages\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"name\":{\"type\":\"string\"},\"files\":{\"type\":\"integer\"},"
    "\"symbols\":{\"type\":\"integer\"},\"fanIn\":{\"type\":\"integer\"},"
    "\"fanOut\":{\"type\":\"integer\"}}}},"
    "\"dependencies\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"from\":{\"type\":\"string\"},\"to\":{\"type\":\"string\"},"
    "\"calls\":{\"type\":\"integer\"},\"imports\":{\"type\":\"integer\"}}}},"
    "\"cycles\":{\"type\":\"array\",\"items\":{\"type\":\"array\"}},"
    "\"totals\":{\"type\":\"object\"},\"truncation\":{\"type\":\"object\"}},"
    "\"required\":[\"packages\",\"dependencies\",\"cycles\",\"totals\"]}";

static const char *const arch_cut[] = {"dependencies", "packages", NULL};


/* ------------------------------------------------------------------------------------------
 * call_graph (typed). */

static const char *const directions[] = {"callers", "callees", "both", NULL};

static const lp_tool_arg call_graph_args[] = {
    PATH_ARG,
    {.name = "symbolId",
     .type = LP_ARG_STRING,
     .required = true,
     .min = 5,
     .max = 64,
     .dflt = LP_ARG_UNSET,
     .description = "Exact symbol id (sym:...) from search_codebase, file_outline or a previous "
                    "graph result.",
     .offset = offsetof(lp_graph_cg_req, symbol_id),
     .cli = LP_ARG_CLI_POSITIONAL,
     .metavar = "SYMBOL",
     .cli_help = "an id or a unique name"},
    {.name = "direction",
     .type = LP_ARG_ENUM,
     .min = LP_ARG_UNSET,
     .max = LP_ARG_UNSET,
     .dflt = LP_GRAPH_BOTH,
     .values = directions,
     .offset = offsetof(lp_graph_cg_req, direction),
     .cli = LP_ARG_CLI_SWITCHES,
     .cli_help = "only callers, or only callees (default: both)"},
    INT_ARG("depth", 1, LP_GRAPH_CG_DEPTH_MAX, LP_GRAPH_CG_DEPTH_DEFAULT,
            offsetof(lp_graph_cg_req, depth), "depth", "levels of calls"),
    INT_ARG("maxNodes", 1, LP_GRAPH_CG_NODES_MAX, LP_GRAPH_CG_NODES_DEFAULT,
            offsetof(lp_graph_cg_req, max_nodes), "max-nodes",
            "symbols shown at most"),
    INT_ARG("maxEdges", 1, LP_GRAPH_CG_EDGES_MAX, LP_GRAPH_CG_EDGES_DEFAULT,
            offsetof(lp_graph_cg_req, max_edges), "max-edges",
            "calls shown at most"),
};

static lp_status call_graph_run(const lp_graph_call *call, const void *req, lp_arena *arena,
                                void *result, lp_error *err)
{
    return lp_graph_call_graph_run(call, req, arena, result, err);
}

static json_t *call_graph_json(const void *result) { return lp_graph_call_graph_json(result); }

/* ------------------------------------------------------------------------------------------
 * trace_path (typed). */

static const char *const edge_kinds[] = {"calls", "imports", "exports", "tests", "contains", NULL};

static const lp_tool_arg trace_path_args[] = {
    PATH_ARG,
    {.name = "fromId",
     .type = LP_ARG_STRING,
     .required = true,
     .min = 5,
     .max = 4200,
     .dflt = LP_ARG_UNSET,
     .description = "Start: a symbol id (sym:...) or file:<path relative to the root>.",
     .offset = offsetof(lp_graph_tp_req, from_id),
     .cli = LP_ARG_CLI_POSITIONAL,
     .metavar = "FROM"},
    {.name = "toId",
     .type = LP_ARG_STRING,
     .required = true,
     .min = 5,
     .max = 4200,
     .dflt = LP_ARG_UNSET,
     .description = "Goal: a symbol id or file:<path>.",
     .offset = offsetof(lp_graph_tp_req, to_id),
     .cli = LP_ARG_CLI_POSITIONAL,
     .metavar = "TO"},
    {.name = "edgeKinds",
     .type = LP_ARG_ENUM_SET,
     .min = 1,
     .max = 5,
     .dflt = LP_ARG_UNSET,
     .values = edge_kinds,
     .description = "Edge kinds to follow (default [\"calls\"]).",
     .offset = offsetof(lp_graph_tp_req, edge_kinds),
     .flag = "kinds",
     .metavar = "K,K"},
    INT_ARG("maxDepth", 1, LP_GRAPH_TRACE_DEPTH_MAX, LP_GRAPH_TRACE_DEPTH_DEFAULT,
            offsetof(lp_graph_tp_req, max_depth),
             "max-depth", "steps at most"),
    INT_ARG("maxNodes", 1, LP_GRAPH_TRACE_NODES_MAX, LP_GRAPH_TRACE_NODES_DEFAULT,
            offsetof(lp_graph_tp_req, max_nodes),
             "max-nodes", "symbols explored at most"),
};

static lp_status trace_path_run(const lp_graph_call *call, const void *req, lp_arena *arena,
                                void *result, lp_error *err)
{
    return lp_graph_trace_path_run(call, req, arena, result, err);
}

static json_t *trace_path_json(const void *result) { return lp_graph_trace_path_json(result); }

/* ------------------------------------------------------------------------------------------
 * find_references (typed). */

static const lp_tool_arg find_refs_args[] = {
    PATH_ARG,
    {.name = "symbolId",
     .type = LP_ARG_STRING,
     .required = true,
     .min = 5,
     .max = 64,
     .dflt = LP_ARG_UNSET,
     .description = "Exact symbol id (sym:...); its name is searched.",
     .offset = offsetof(lp_graph_fr_req, symbol_id),
     .cli = LP_ARG_CLI_POSITIONAL,
     .metavar = "SYMBOL",
     .cli_help = "an id or a unique name"},
    {.name = "pathPrefix",
     .type = LP_ARG_STRING,
     .min = LP_ARG_UNSET,
     .max = 4096,
     .dflt = LP_ARG_UNSET,
     .description = "Only files under this folder (relative to the root).",
     .offset = offsetof(lp_graph_fr_req, path_prefix),
     .flag = "prefix",
     .metavar = "DIR"},
    INT_ARG("maxResults", 1, LP_GRAPH_REFS_MAX, LP_GRAPH_REFS_DEFAULT,
            offsetof(lp_graph_fr_req, max_results), "max", "matches at most"),
};

static lp_status find_refs_run(const lp_graph_call *call, const void *req, lp_arena *arena,
                               void *result, lp_error *err)
{
    return lp_graph_find_references_run(call, req, arena, result, err);
}

static json_t *find_refs_json(const void *result) { return lp_graph_find_references_json(result); }

/* ------------------------------------------------------------------------------------------
 * The JSON tools (not migrated yet: no request struct, offsets unused). */

static const lp_tool_arg changes_args[] = {
    PATH_ARG,
    {.name = "baseRef",
     .type = LP_ARG_STRING,
     .min = 1,
     .max = 256,
     .dflt = LP_ARG_UNSET,
     .dflt_str = "HEAD",
     .description = "Commit, branch or tag to compare the working tree with.",
     .offset = LP_ARG_NO_FIELD,
     .flag = "base",
     .metavar = "REF"},
    INT_ARG("maxDepth", 1, LP_GRAPH_CHANGES_DEPTH_MAX, LP_GRAPH_CHANGES_DEPTH_MAX, LP_ARG_NO_FIELD,
             "depth", "caller levels"),
    INT_ARG("maxCallers", 1, LP_GRAPH_CHANGES_CALLERS_MAX, LP_GRAPH_CHANGES_CALLERS_DEFAULT,
            LP_ARG_NO_FIELD, "max-callers", "callers at most"),
    INT_ARG("maxFiles", 1, LP_GRAPH_CHANGES_FILES_MAX, LP_GRAPH_CHANGES_FILES_DEFAULT,
            LP_ARG_NO_FIELD, "max-files", "changed files at most"),
};

/* ------------------------------------------------------------------------------------------
 * architecture_overview (typed). */

static const char *const scopes[] = {"runtime", "tests", "all", NULL};

static const lp_tool_arg arch_args[] = {
    PATH_ARG,
    {.name = "subtree",
     .type = LP_ARG_STRING,
     .min = LP_ARG_UNSET,
     .max = 4096,
     .dflt = LP_ARG_UNSET,
     .description = "Only files under this folder (relative to the root).",
     .offset = offsetof(lp_graph_arch_req, subtree),
     .flag = "subtree",
     .metavar = "DIR"},
    {.name = "scope",
     .type = LP_ARG_ENUM,
     .min = LP_ARG_UNSET,
     .max = LP_ARG_UNSET,
     .dflt = 0,
     .values = scopes,
     .description = "runtime excludes test files, tests keeps only them.",
     .offset = offsetof(lp_graph_arch_req, scope),
     .flag = "scope",
     .metavar = "S"},
    INT_ARG("maxPackages", 1, LP_GRAPH_ARCH_PACKAGES_MAX, LP_GRAPH_ARCH_PACKAGES_DEFAULT,
            offsetof(lp_graph_arch_req, max_packages), "max", "packages at most"),
};

static lp_status arch_run(const lp_graph_call *call, const void *req, lp_arena *arena,
                          void *result, lp_error *err)
{
    return lp_graph_architecture_run(call, req, arena, result, err);
}

static json_t *arch_json(const void *result) { return lp_graph_architecture_json(result); }

const lp_tool lp_tool_table[] = {
    {.name = "call_graph",
     .title = "Callers and callees of a symbol",
     .description = "Traverse proved CALLS edges from one exact symbol (callers, callees or both, depth 1-5) "
                    "and see the evidence that is not an edge: call sites left ambiguous (with their "
                    "candidates) or unresolved (with a reason), same-name call sites elsewhere, and the tests "
                    "that exercise the symbol. Each edge names the rule that proved it and its call site. An "
                    "absent edge is not proof that no call exists: read capabilities for what the language's "
                    "rules cannot see. Next: read_file {path, open_symbol: {symbolId}} on a caller or callee, "
                    "or trace_path between two symbols.",
     .args = call_graph_args,
     .nargs = LP_ARRAY_LEN(call_graph_args),
     .examples = "[{\"path\":\"/home/me/src/app\",\"symbolId\":\"sym:3f9a0c1d2e4b5a6978c0d1e2\","
                 "\"direction\":\"callers\",\"depth\":2}]",
     .output_schema = call_graph_out,
     .truncatable = call_graph_cut,
     .req_size = sizeof(lp_graph_cg_req),
     .result_size = sizeof(lp_graph_cg_result),
     .run = call_graph_run,
     .to_json = call_graph_json},
    {.name = "trace_path",
     .title = "Shortest path between two symbols",
     .description = "Find one shortest directed path from one exact symbol (or file:<path>) to another over "
                    "the chosen proved edge kinds (calls by default; imports, exports, tests, contains). "
                    "Depth and node budgets report truncation; not finding a path proves nothing about "
                    "dynamic or unresolved calls. Next: call_graph on a node of the path.",
     .args = trace_path_args,
     .nargs = LP_ARRAY_LEN(trace_path_args),
     .examples = "[{\"path\":\"/home/me/src/app\",\"fromId\":\"sym:3f9a0c1d2e4b5a6978c0d1e2\","
                 "\"toId\":\"sym:9b1e22aa33bb44cc55dd66ee\",\"edgeKinds\":[\"calls\"]}]",
     .output_schema = trace_path_out,
     .req_size = sizeof(lp_graph_tp_req),
     .result_size = sizeof(lp_graph_tp_result),
     .run = trace_path_run,
     .to_json = trace_path_json},
    {.name = "find_references",
     .title = "Every textual occurrence of a symbol's name",
     .description = "List every exact occurrence of a symbol's name (identifier boundaries) in the published "
                    "source, in path order, independent of any ranking, with line, column, line text and the "
                    "owning symbol. coverage says complete or partial (result budget, partial publication). "
                    "Matches are textual evidence (comments, strings and same-name symbols too); for proved "
                    "calls use call_graph.",
     .args = find_refs_args,
     .nargs = LP_ARRAY_LEN(find_refs_args),
     .examples = "[{\"path\":\"/home/me/src/app\",\"symbolId\":\"sym:3f9a0c1d2e4b5a6978c0d1e2\"}]",
     .output_schema = find_refs_out,
     .truncatable = find_refs_cut,
     .req_size = sizeof(lp_graph_fr_req),
     .result_size = sizeof(lp_graph_fr_result),
     .run = find_refs_run,
     .to_json = find_refs_json},
    {.name = "detect_changes",
     .title = "What a diff touches and who calls it",
     .description = "Compare the working tree (tracked files, staged and unstaged) with baseRef (default "
                    "HEAD): changed files with hunks, the published symbols the hunks touch, symbols the "
                    "change deleted, and their callers over proved CALLS edges up to depth 3, each marked "
                    "direct or transitive with the path that reaches it. Stale files (edited since the last "
                    "sync) are reported with approximate spans: sync first for exact ones. Advisory: callers "
                    "the rules cannot resolve are not listed.",
     .args = changes_args,
     .nargs = LP_ARRAY_LEN(changes_args),
     .examples = "[{\"path\":\"/home/me/src/app\",\"baseRef\":\"main\"}]",
     .output_schema = changes_out,
     .truncatable = changes_cut,
     .run_json = lp_graph_detect_changes},
    {.name = "architecture_overview",
     .title = "Packages and their dependencies",
     .description = "Summarize the codebase's packages (Java/Scala packages, C# namespaces, folders "
                    "elsewhere) with file and symbol counts, the proved CALLS and IMPORTS edges that cross "
                    "packages, fan-in and fan-out, and dependency cycles. Filter by subtree and by scope "
                    "(runtime excludes tests). Next: call_graph or file_outline inside a package.",
     .args = arch_args,
     .nargs = LP_ARRAY_LEN(arch_args),
     .examples = "[{\"path\":\"/home/me/src/app\",\"subtree\":\"src\"}]",
     .output_schema = arch_out,
     .truncatable = arch_cut,
     .req_size = sizeof(lp_graph_arch_req),
     .result_size = sizeof(lp_graph_arch_result),
     .run = arch_run,
     .to_json = arch_json},
};

const size_t lp_tool_table_count = LP_ARRAY_LEN(lp_tool_table);
