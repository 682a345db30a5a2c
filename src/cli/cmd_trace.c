/*
 * cmd_trace.c: `loupe trace FROM TO`: one shortest directed path between two symbols over
 * chosen edge kinds (src/graph's trace_path).
 */
#include "cli/cli_tool.h"

#include <getopt.h>

static void text(const json_t *res)
{
    if (!json_is_true(json_object_get(res, "found"))) {
        printf("no path found\n");
        lp_graph_cli_warnings(res);
        return;
    }
    const json_t *path = json_object_get(res, "path"), *edges = json_object_get(res, "edges");
    size_t i;
    const json_t *n;
    json_array_foreach(path, i, n)
    {
        if (i > 0) {
            const json_t *e = json_array_get(edges, i - 1);
            printf("   | %s %s\n", lp_graph_cli_str(e, "kind"), lp_graph_cli_str(e, "strategy"));
        }
        printf("%s %s  %s:%lld  %s\n", lp_graph_cli_str(n, "kind"), lp_graph_cli_str(n, "qualifiedName"),
               lp_cli_q(lp_graph_cli_str(n, "file")), lp_graph_cli_int(n, "startLine"),
               lp_graph_cli_str(n, "id"));
    }
    lp_graph_cli_warnings(res);
}

static int run_trace(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},          {"kinds", required_argument, NULL, 'k'},
        {"max-depth", required_argument, NULL, 'd'}, {"max-nodes", required_argument, NULL, 'n'},
        {"root", required_argument, NULL, 'R'},    {NULL, 0, NULL, 0},
    };
    lp_graph_out fmt = LP_GOUT_TEXT;
    const char *root = NULL, *kinds = "calls";
    const lp_tool_arg *a_depth = lp_cli_tool_arg("trace_path", "maxDepth"),
                      *a_nodes = lp_cli_tool_arg("trace_path", "maxNodes");
    uint64_t depth = (uint64_t)a_depth->dflt, max_nodes = (uint64_t)a_nodes->dflt;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': fmt = LP_GOUT_JSON; break;
        case 'k': kinds = optarg; break;
        case 'd':
            if (!lp_cli_parse_count("trace", "--max-depth", optarg, (uint64_t)a_depth->max, &depth))
                return LP_EXIT_USAGE;
            break;
        case 'n':
            if (!lp_cli_parse_count("trace", "--max-nodes", optarg, (uint64_t)a_nodes->max,
                                    &max_nodes))
                return LP_EXIT_USAGE;
            break;
        case 'R': root = optarg; break;
        default: return lp_cli_unknown_option("trace", lp_cli_getopt_bad_arg(argc, argv));
        }
    }
    if (argc - optind != 2)
        return lp_cli_usage_error("trace", "needs FROM and TO (ids or unique names)");
    json_t *ek = json_array();
    lp_str k = lp_str_c(kinds);
    for (size_t pos = 0; pos <= k.len;) {
        size_t comma = lp_str_find_char(k, ',', pos);
        if (comma == SIZE_MAX)
            comma = k.len;
        lp_str one = lp_str_trim(lp_str_sub(k, pos, comma));
        if (lp_edge_kind_from_name(one) == LP_EDGE_KIND_COUNT) {
            json_decref(ek);
            return lp_cli_usage_error("trace", "--kinds takes calls, imports, exports, tests, "
                                               "contains (comma separated)");
        }
        json_array_append_new(ek, lp_json_text(one.ptr, one.len));
        pos = comma + 1;
    }
    char *from = NULL, *to = NULL;
    int code = lp_graph_cli_symbol("trace", root, argv[optind], &from);
    if (!code)
        code = lp_graph_cli_symbol("trace", root, argv[optind + 1], &to);
    if (!code) {
        json_t *args = lp_json_pack("{s:o, s:o, s:o, s:I, s:I}", "fromId", lp_json_textz(from),
                                    "toId", lp_json_textz(to),
                                 "edgeKinds", ek, "maxDepth", (json_int_t)depth, "maxNodes",
                                 (json_int_t)max_nodes);
        ek = NULL;
        code = lp_graph_cli_run("trace", root, args, lp_graph_trace_path, fmt, text, NULL);
        json_decref(args);
    }
    json_decref(ek);
    free(from);
    free(to);
    return code;
}

const lp_cli_cmd lp_cmd_trace = {
    .name = "trace",
    .summary = "shortest path between two symbols over proved edges",
    .usage = "usage: loupe trace FROM TO [--kinds calls,imports,exports,tests,contains]\n"
             "                   [--max-depth N] [--max-nodes N] [--json] [--root PATH]\n"
             "One shortest directed path from FROM to TO (sym:... ids, file:<path>, or names\n"
             "that name exactly one definition) over proved edges of the chosen kinds (default\n"
             "calls). Budgets report truncation; no path is not proof of no connection.\n",
    .run = run_trace,
};
