/*
 * cmd_calls.c: `loupe calls SYMBOL`: callers and callees of one symbol (src/graph's
 * call_graph), as text, JSON, or a DOT / mermaid drawing.
 */
#include "cli/graph_cli.h"

#include <getopt.h>

static void sym_line(const char *prefix, const json_t *s)
{
    printf("%s%s %s  %s:%lld  %s\n", prefix, lp_graph_cli_str(s, "kind"),
           lp_graph_cli_str(s, "qualifiedName"), lp_cli_q(lp_graph_cli_str(s, "file")),
           lp_graph_cli_int(s, "startLine"), lp_graph_cli_str(s, "id"));
}

static const json_t *node_by_id(const json_t *res, const char *id)
{
    const json_t *nodes = json_object_get(res, "nodes");
    size_t i;
    const json_t *n;
    json_array_foreach(nodes, i, n) if (!strcmp(lp_graph_cli_str(n, "id"), id)) return n;
    const json_t *root = json_object_get(res, "root");
    if (!strcmp(lp_graph_cli_str(root, "id"), id))
        return root;
    return NULL;
}

static void text(const json_t *res)
{
    const json_t *root = json_object_get(res, "root");
    sym_line("", root);
    const json_t *edges = json_object_get(res, "edges");
    /* caller-side edges first (toward the root), then callee-side ones */
    for (int pass = 0; pass < 2; pass++) {
        size_t i, shown = 0;
        const json_t *e;
        json_array_foreach(edges, i, e)
        {
            const json_t *from = node_by_id(res, lp_graph_cli_str(e, "from"));
            const json_t *to = node_by_id(res, lp_graph_cli_str(e, "to"));
            if (!from || !to)
                continue;
            bool caller_edge = !strcmp(lp_graph_cli_str(from, "side"), "caller");
            if ((pass == 0) != caller_edge)
                continue;
            if (!shown++)
                printf("%s:\n", pass == 0 ? "callers" : "callees");
            const json_t *site = json_object_get(e, "callSite");
            printf("  %s -> %s  [%s] at %s:%lld\n", lp_graph_cli_str(from, "qualifiedName"),
                   lp_graph_cli_str(to, "qualifiedName"), lp_graph_cli_str(e, "strategy"),
                   lp_cli_q(lp_graph_cli_str(site, "file")), lp_graph_cli_int(site, "startLine"));
        }
    }
    const json_t *sum = json_object_get(res, "evidenceSummary");
    const json_t *ce = json_object_get(sum, "callees"), *cr = json_object_get(sum, "callers");
    if (ce)
        printf("callee evidence: %lld proved, %lld ambiguous, %lld unresolved\n",
               lp_graph_cli_int(ce, "provedCalls"), lp_graph_cli_int(ce, "ambiguous"),
               lp_graph_cli_int(ce, "unresolved"));
    if (cr)
        printf("caller evidence: %lld proved, %lld ambiguous call sites, %lld%s unresolved "
               "same-name call sites\n",
               lp_graph_cli_int(cr, "provedCallers"), lp_graph_cli_int(cr, "ambiguousCallSites"),
               lp_graph_cli_int(cr, "unresolvedSameName"),
               json_is_true(json_object_get(cr, "unresolvedSameNameCapped")) ? "+" : "");
    size_t i;
    const json_t *u;
    json_array_foreach(json_object_get(res, "unresolvedCallees"), i, u)
    {
        const json_t *site = json_object_get(u, "callSite");
        printf("  unresolved %s at line %lld: %s\n", lp_graph_cli_str(u, "callee"),
               lp_graph_cli_int(site, "startLine"), lp_graph_cli_str(u, "reason"));
    }
    json_array_foreach(json_object_get(res, "ambiguousCallees"), i, u)
    {
        const json_t *site = json_object_get(u, "callSite");
        printf("  ambiguous %s at line %lld: %lld candidates\n", lp_graph_cli_str(u, "callee"),
               lp_graph_cli_int(site, "startLine"), lp_graph_cli_int(u, "candidateCount"));
    }
    json_array_foreach(json_object_get(res, "tests"), i, u) sym_line("  tested by ", u);
    lp_graph_cli_warnings(res);
}

static void draw(const json_t *res, bool mermaid)
{
    char a[512], b[512];
    printf(mermaid ? "graph LR\n" : "digraph calls {\n  rankdir=LR;\n  node [shape=box];\n");
    const json_t *root = json_object_get(res, "root");
    const json_t *all[2] = {root, NULL};
    (void)all;
    printf(mermaid ? "  n0[\"%s\"]\n" : "  \"%s\" [label=\"%s\", style=bold];\n",
           lp_graph_cli_label(lp_graph_cli_str(root, "id"), mermaid, a, sizeof a),
           lp_graph_cli_label(lp_graph_cli_str(root, "qualifiedName"), mermaid, b, sizeof b));
    size_t i;
    const json_t *n;
    if (!mermaid) {
        json_array_foreach(json_object_get(res, "nodes"), i, n)
            printf("  \"%s\" [label=\"%s\"];\n",
                   lp_graph_cli_label(lp_graph_cli_str(n, "id"), false, a, sizeof a),
                   lp_graph_cli_label(lp_graph_cli_str(n, "qualifiedName"), false, b, sizeof b));
        json_array_foreach(json_object_get(res, "edges"), i, n)
            printf("  \"%s\" -> \"%s\";\n",
                   lp_graph_cli_label(lp_graph_cli_str(n, "from"), false, a, sizeof a),
                   lp_graph_cli_label(lp_graph_cli_str(n, "to"), false, b, sizeof b));
        printf("}\n");
        return;
    }
    /* mermaid: ids are node indexes (symbol ids contain ':') */
    const json_t *nodes = json_object_get(res, "nodes");
    json_array_foreach(nodes, i, n)
        printf("  n%zu[\"%s\"]\n", i + 1,
               lp_graph_cli_label(lp_graph_cli_str(n, "qualifiedName"), true, a, sizeof a));
    json_array_foreach(json_object_get(res, "edges"), i, n)
    {
        const char *from = lp_graph_cli_str(n, "from"), *to = lp_graph_cli_str(n, "to");
        size_t fi = 0, ti = 0, k;
        const json_t *m;
        json_array_foreach(nodes, k, m)
        {
            if (!strcmp(lp_graph_cli_str(m, "id"), from))
                fi = k + 1;
            if (!strcmp(lp_graph_cli_str(m, "id"), to))
                ti = k + 1;
        }
        printf("  n%zu --> n%zu\n", fi, ti);
    }
}

static int run_calls(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},       {"callers", no_argument, NULL, 'r'},
        {"callees", no_argument, NULL, 'e'},    {"depth", required_argument, NULL, 'd'},
        {"max-nodes", required_argument, NULL, 'n'}, {"max-edges", required_argument, NULL, 'm'},
        {"format", required_argument, NULL, 'f'}, {"root", required_argument, NULL, 'R'},
        {NULL, 0, NULL, 0},
    };
    lp_graph_out fmt = LP_GOUT_TEXT;
    const char *root = NULL, *dir = "both";
    uint64_t depth = 2, max_nodes = 100, max_edges = 300;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': fmt = LP_GOUT_JSON; break;
        case 'r': dir = "callers"; break;
        case 'e': dir = "callees"; break;
        case 'd':
            if (!lp_cli_parse_count("calls", "--depth", optarg, 5, &depth))
                return LP_EXIT_USAGE;
            break;
        case 'n':
            if (!lp_cli_parse_count("calls", "--max-nodes", optarg, 1000, &max_nodes))
                return LP_EXIT_USAGE;
            break;
        case 'm':
            if (!lp_cli_parse_count("calls", "--max-edges", optarg, 5000, &max_edges))
                return LP_EXIT_USAGE;
            break;
        case 'f':
            if (!lp_graph_cli_format("calls", optarg, &fmt))
                return LP_EXIT_USAGE;
            break;
        case 'R': root = optarg; break;
        default: return lp_cli_unknown_option("calls", lp_cli_getopt_bad_arg(argc, argv));
        }
    }
    if (argc - optind != 1)
        return lp_cli_usage_error("calls", "needs one SYMBOL (an id or a unique name)");
    char *id = NULL;
    int code = lp_graph_cli_symbol("calls", root, argv[optind], &id);
    if (code)
        return code;
    json_t *args = lp_json_pack("{s:o, s:o, s:I, s:I, s:I}", "symbolId", lp_json_textz(id),
                                "direction", lp_json_textz(dir),
                             "depth", (json_int_t)depth, "maxNodes", (json_int_t)max_nodes,
                             "maxEdges", (json_int_t)max_edges);
    code = lp_graph_cli_run("calls", root, args, lp_graph_call_graph, fmt, text, draw);
    json_decref(args);
    free(id);
    return code;
}

const lp_cli_cmd lp_cmd_calls = {
    .name = "calls",
    .summary = "callers and callees of a symbol (proved calls, with evidence)",
    .usage = "usage: loupe calls SYMBOL [--callers|--callees] [--depth N] [--max-nodes N]\n"
             "                   [--max-edges N] [--json] [--format dot|mermaid] [--root PATH]\n"
             "Callers and callees of SYMBOL (a sym:... id, or a name that names exactly one\n"
             "definition) over proved CALLS edges, depth 1-5 (default 2), with the call sites\n"
             "that stayed ambiguous or unresolved and why. An absent edge is not proof that no\n"
             "call exists. --format draws the graph for graphviz (dot) or mermaid.\n",
    .run = run_calls,
};
