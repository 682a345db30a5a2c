/*
 * cmd_arch.c: `loupe arch`: packages, cross-package dependencies, fan-in/out and cycles
 * (src/graph's architecture_overview), as text, JSON, or a DOT / mermaid drawing.
 */
#include "cli/cli_tool.h"

#include <getopt.h>

static void text(const json_t *res)
{
    size_t i;
    const json_t *x;
    printf("%-40s %6s %8s %6s %7s\n", "package", "files", "symbols", "fanIn", "fanOut");
    json_array_foreach(json_object_get(res, "packages"), i, x)
        printf("%-40s %6lld %8lld %6lld %7lld\n", lp_graph_cli_str(x, "name"),
               lp_graph_cli_int(x, "files"), lp_graph_cli_int(x, "symbols"),
               lp_graph_cli_int(x, "fanIn"), lp_graph_cli_int(x, "fanOut"));
    json_array_foreach(json_object_get(res, "dependencies"), i, x)
        printf("%s -> %s  (%lld calls, %lld imports)\n", lp_graph_cli_str(x, "from"),
               lp_graph_cli_str(x, "to"), lp_graph_cli_int(x, "calls"), lp_graph_cli_int(x, "imports"));
    json_array_foreach(json_object_get(res, "cycles"), i, x)
    {
        printf("cycle:");
        size_t k;
        const json_t *m;
        json_array_foreach(x, k, m) printf(" %s", json_string_value(m));
        printf("\n");
    }
    lp_graph_cli_warnings(res);
}

static void draw(const json_t *res, bool mermaid)
{
    char a[512], b[512];
    const json_t *pkgs = json_object_get(res, "packages");
    size_t i, k;
    const json_t *x, *p;
    if (!mermaid) {
        printf("digraph architecture {\n  rankdir=LR;\n  node [shape=folder];\n");
        json_array_foreach(pkgs, i, x)
            printf("  \"%s\" [label=\"%s\\n%lld files\"];\n",
                   lp_graph_cli_label(lp_graph_cli_str(x, "name"), false, a, sizeof a),
                   lp_graph_cli_label(lp_graph_cli_str(x, "name"), false, b, sizeof b),
                   lp_graph_cli_int(x, "files"));
        json_array_foreach(json_object_get(res, "dependencies"), i, x)
            printf("  \"%s\" -> \"%s\" [label=\"%lld/%lld\"];\n",
                   lp_graph_cli_label(lp_graph_cli_str(x, "from"), false, a, sizeof a),
                   lp_graph_cli_label(lp_graph_cli_str(x, "to"), false, b, sizeof b),
                   lp_graph_cli_int(x, "calls"), lp_graph_cli_int(x, "imports"));
        printf("}\n");
        return;
    }
    printf("graph LR\n");
    json_array_foreach(pkgs, i, x)
        printf("  p%zu[\"%s\"]\n", i, lp_graph_cli_label(lp_graph_cli_str(x, "name"), true, a, sizeof a));
    json_array_foreach(json_object_get(res, "dependencies"), i, x)
    {
        long fi = -1, ti = -1;
        json_array_foreach(pkgs, k, p)
        {
            if (!strcmp(lp_graph_cli_str(p, "name"), lp_graph_cli_str(x, "from")))
                fi = (long)k;
            if (!strcmp(lp_graph_cli_str(p, "name"), lp_graph_cli_str(x, "to")))
                ti = (long)k;
        }
        if (fi >= 0 && ti >= 0)
            printf("  p%ld -->|%lld/%lld| p%ld\n", fi, lp_graph_cli_int(x, "calls"),
                   lp_graph_cli_int(x, "imports"), ti);
    }
}

static int run_arch(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},          {"subtree", required_argument, NULL, 's'},
        {"scope", required_argument, NULL, 'c'},   {"max", required_argument, NULL, 'm'},
        {"format", required_argument, NULL, 'f'},  {"root", required_argument, NULL, 'R'},
        {NULL, 0, NULL, 0},
    };
    lp_graph_out fmt = LP_GOUT_TEXT;
    const lp_tool_arg *a_scope = lp_cli_tool_arg("architecture_overview", "scope");
    const char *root = NULL, *subtree = NULL, *scope = a_scope->values[a_scope->dflt];
    const lp_tool_arg *a_max = lp_cli_tool_arg("architecture_overview", "maxPackages");
    uint64_t max = (uint64_t)a_max->dflt;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': fmt = LP_GOUT_JSON; break;
        case 's': subtree = optarg; break;
        case 'c':
            if (strcmp(optarg, "runtime") && strcmp(optarg, "tests") && strcmp(optarg, "all"))
                return lp_cli_usage_error("arch", "--scope takes runtime, tests or all");
            scope = optarg;
            break;
        case 'm':
            if (!lp_cli_parse_count("arch", "--max", optarg, (uint64_t)a_max->max, &max))
                return LP_EXIT_USAGE;
            break;
        case 'f':
            if (!lp_graph_cli_format("arch", optarg, &fmt))
                return LP_EXIT_USAGE;
            break;
        case 'R': root = optarg; break;
        default: return lp_cli_unknown_option("arch", lp_cli_getopt_bad_arg(argc, argv));
        }
    }
    if (argc != optind)
        return lp_cli_usage_error("arch", "takes no arguments (use --root PATH, --subtree DIR)");
    json_t *args = lp_json_pack("{s:o, s:I}", "scope", lp_json_textz(scope), "maxPackages",
                                (json_int_t)max);
    if (subtree)
        json_object_set_new(args, "subtree", lp_json_textz(subtree));
    int code = lp_graph_cli_run("arch", root, args, lp_graph_architecture, fmt, text, draw);
    json_decref(args);
    return code;
}

const lp_cli_cmd lp_cmd_arch = {
    .name = "arch",
    .summary = "packages, their dependencies, fan-in/out and cycles",
    .usage = "usage: loupe arch [--subtree DIR] [--scope runtime|tests|all] [--max N] [--json]\n"
             "                  [--format dot|mermaid] [--root PATH]\n"
             "Packages (Java/Scala packages, C# namespaces, folders elsewhere) with file and\n"
             "symbol counts, proved CALLS and IMPORTS edges between them, fan-in/out, and\n"
             "cycles. --format draws the package graph for graphviz (dot) or mermaid.\n",
    .run = run_arch,
};
