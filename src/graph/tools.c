/*
 * tools.c: the graph tools' definitions for the MCP registry: names, descriptions for
 * agents, input schemas (the JSON Schema subset src/mcp validates: type, properties,
 * required, additionalProperties, enum, minimum/maximum, minLength/maxLength, items,
 * minItems/maxItems) and output schemas (content properties; the envelope's are added by
 * the registry).
 *
 * Registering one (src/mcp): for each lp_graph_tools[i], an lp_mcp_tool_def with the same
 * name/title/description/schemas/truncatable, envelope = true, read_only = idempotent =
 * true, and a handler that resolves args.path to its indexed root, pins the publication
 * (lp_tools_open), calls fn with {st, args, cancel flag}, then merges the returned object
 * into the envelope (its "warnings" entries into the envelope's warnings).
 */
#include "graph/graph_int.h"

#define PATH_PROP                                                                              \
    "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"                        \
    "\"description\":\"Absolute path of the indexed codebase (or any folder or file inside "   \
    "it).\"}"

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

static const char call_graph_in[] =
    "{\"type\":\"object\",\"properties\":{" PATH_PROP ","
    "\"symbolId\":{\"type\":\"string\",\"minLength\":5,\"maxLength\":64,"
    "\"description\":\"Exact symbol id (sym:...) from search_codebase, file_outline or a "
    "previous graph result.\"},"
    "\"direction\":{\"type\":\"string\",\"enum\":[\"callers\",\"callees\",\"both\"],"
    "\"default\":\"both\"},"
    "\"depth\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":5,\"default\":2},"
    "\"maxNodes\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,\"default\":100},"
    "\"maxEdges\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":5000,\"default\":300}},"
    "\"required\":[\"path\",\"symbolId\"],\"additionalProperties\":false,"
    "\"examples\":[{\"path\":\"/home/me/src/app\",\"symbolId\":\"sym:3f9a0c1d2e4b5a6978c0d1e2\","
    "\"direction\":\"callers\",\"depth\":2}]}";

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

static const char trace_path_in[] =
    "{\"type\":\"object\",\"properties\":{" PATH_PROP ","
    "\"fromId\":{\"type\":\"string\",\"minLength\":5,\"maxLength\":4200,"
    "\"description\":\"Start: a symbol id (sym:...) or file:<path relative to the root>.\"},"
    "\"toId\":{\"type\":\"string\",\"minLength\":5,\"maxLength\":4200,"
    "\"description\":\"Goal: a symbol id or file:<path>.\"},"
    "\"edgeKinds\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":5,\"items\":{\"type\":"
    "\"string\",\"enum\":[\"calls\",\"imports\",\"exports\",\"tests\",\"contains\"]},"
    "\"description\":\"Edge kinds to follow (default [\\\"calls\\\"]).\"},"
    "\"maxDepth\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":16,\"default\":8},"
    "\"maxNodes\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100000,\"default\":5000}},"
    "\"required\":[\"path\",\"fromId\",\"toId\"],\"additionalProperties\":false,"
    "\"examples\":[{\"path\":\"/home/me/src/app\",\"fromId\":\"sym:3f9a0c1d2e4b5a6978c0d1e2\","
    "\"toId\":\"sym:9b1e22aa33bb44cc55dd66ee\",\"edgeKinds\":[\"calls\"]}]}";

static const char trace_path_out[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"from\":" SYMBOL_OUT ",\"to\":" SYMBOL_OUT ","
    "\"found\":{\"type\":\"boolean\"},\"length\":{\"type\":\"integer\"},"
    "\"path\":{\"type\":\"array\",\"items\":" SYMBOL_OUT "},"
    "\"edges\":{\"type\":\"array\"},\"explored\":{\"type\":\"integer\"},"
    "\"edgeKinds\":{\"type\":\"array\"},\"capabilities\":" CAPS_OUT ","
    "\"truncation\":{\"type\":\"object\"}},"
    "\"required\":[\"from\",\"to\",\"found\",\"path\",\"edges\"]}";

static const char find_refs_in[] =
    "{\"type\":\"object\",\"properties\":{" PATH_PROP ","
    "\"symbolId\":{\"type\":\"string\",\"minLength\":5,\"maxLength\":64,"
    "\"description\":\"Exact symbol id (sym:...); its name is searched.\"},"
    "\"pathPrefix\":{\"type\":\"string\",\"maxLength\":4096,"
    "\"description\":\"Only files under this folder (relative to the root).\"},"
    "\"maxResults\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":5000,\"default\":200}},"
    "\"required\":[\"path\",\"symbolId\"],\"additionalProperties\":false,"
    "\"examples\":[{\"path\":\"/home/me/src/app\",\"symbolId\":\"sym:3f9a0c1d2e4b5a6978c0d1e2\"}]}";

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

static const char changes_in[] =
    "{\"type\":\"object\",\"properties\":{" PATH_PROP ","
    "\"baseRef\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":256,\"default\":\"HEAD\","
    "\"description\":\"Commit, branch or tag to compare the working tree with.\"},"
    "\"maxDepth\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":3,\"default\":3},"
    "\"maxCallers\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":5000,\"default\":200},"
    "\"maxFiles\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10000,\"default\":500}},"
    "\"required\":[\"path\"],\"additionalProperties\":false,"
    "\"examples\":[{\"path\":\"/home/me/src/app\",\"baseRef\":\"main\"}]}";

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

static const char arch_in[] =
    "{\"type\":\"object\",\"properties\":{" PATH_PROP ","
    "\"subtree\":{\"type\":\"string\",\"maxLength\":4096,"
    "\"description\":\"Only files under this folder (relative to the root).\"},"
    "\"scope\":{\"type\":\"string\",\"enum\":[\"runtime\",\"tests\",\"all\"],"
    "\"default\":\"runtime\",\"description\":\"runtime excludes test files, tests keeps only "
    "them.\"},"
    "\"maxPackages\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":5000,\"default\":200}},"
    "\"required\":[\"path\"],\"additionalProperties\":false,"
    "\"examples\":[{\"path\":\"/home/me/src/app\",\"subtree\":\"src\"}]}";

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

const lp_graph_tool lp_graph_tools[] = {
    {"call_graph", "Callers and callees of a symbol",
     "Traverse proved CALLS edges from one exact symbol (callers, callees or both, depth 1-5) "
     "and see the evidence that is not an edge: call sites left ambiguous (with their "
     "candidates) or unresolved (with a reason), same-name call sites elsewhere, and the tests "
     "that exercise the symbol. Each edge names the rule that proved it and its call site. An "
     "absent edge is not proof that no call exists: read capabilities for what the language's "
     "rules cannot see. Next: read_file {path, open_symbol: {symbolId}} on a caller or callee, "
     "or trace_path between two symbols.",
     call_graph_in, call_graph_out, call_graph_cut, lp_graph_call_graph},
    {"trace_path", "Shortest path between two symbols",
     "Find one shortest directed path from one exact symbol (or file:<path>) to another over "
     "the chosen proved edge kinds (calls by default; imports, exports, tests, contains). "
     "Depth and node budgets report truncation; not finding a path proves nothing about "
     "dynamic or unresolved calls. Next: call_graph on a node of the path.",
     trace_path_in, trace_path_out, NULL, lp_graph_trace_path},
    {"find_references", "Every textual occurrence of a symbol's name",
     "List every exact occurrence of a symbol's name (identifier boundaries) in the published "
     "source, in path order, independent of any ranking, with line, column, line text and the "
     "owning symbol. coverage says complete or partial (result budget, partial publication). "
     "Matches are textual evidence (comments, strings and same-name symbols too); for proved "
     "calls use call_graph.",
     find_refs_in, find_refs_out, find_refs_cut, lp_graph_find_references},
    {"detect_changes", "What a diff touches and who calls it",
     "Compare the working tree (tracked files, staged and unstaged) with baseRef (default "
     "HEAD): changed files with hunks, the published symbols the hunks touch, symbols the "
     "change deleted, and their callers over proved CALLS edges up to depth 3, each marked "
     "direct or transitive with the path that reaches it. Stale files (edited since the last "
     "sync) are reported with approximate spans: sync first for exact ones. Advisory: callers "
     "the rules cannot resolve are not listed.",
     changes_in, changes_out, changes_cut, lp_graph_detect_changes},
    {"architecture_overview", "Packages and their dependencies",
     "Summarize the codebase's packages (Java/Scala packages, C# namespaces, folders "
     "elsewhere) with file and symbol counts, the proved CALLS and IMPORTS edges that cross "
     "packages, fan-in and fan-out, and dependency cycles. Filter by subtree and by scope "
     "(runtime excludes tests). Next: call_graph or file_outline inside a package.",
     arch_in, arch_out, arch_cut, lp_graph_architecture},
};

const size_t lp_graph_tools_count = LP_ARRAY_LEN(lp_graph_tools);

const lp_graph_tool *lp_graph_tool_find(const char *name)
{
    for (size_t i = 0; i < lp_graph_tools_count; i++)
        if (!strcmp(lp_graph_tools[i].name, name))
            return &lp_graph_tools[i];
    return NULL;
}
