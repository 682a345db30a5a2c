/*
 * cmd_changes.c: `loupe changes`: the working tree's diff against a base ref mapped to
 * symbols and their callers (src/graph's detect_changes).
 */
#include "cli/cli_tool.h"

#include <getopt.h>

static void text(const json_t *res)
{
    printf("changes against %s (%.12s)\n", lp_graph_cli_str(res, "baseRef"),
           lp_graph_cli_str(res, "baseCommit"));
    size_t i;
    const json_t *x;
    json_array_foreach(json_object_get(res, "changedFiles"), i, x)
        printf("  %-9s %s%s%s\n", lp_graph_cli_str(x, "status"), lp_cli_q(lp_graph_cli_str(x, "file")),
               json_is_true(json_object_get(x, "stale")) ? "  (stale: sync for exact spans)" : "",
               json_is_true(json_object_get(x, "inPublication")) ? "" : "  (not indexed)");
    json_array_foreach(json_object_get(res, "changedSymbols"), i, x)
        printf("changed %s %s  %s:%lld  %s\n", lp_graph_cli_str(x, "kind"),
               lp_graph_cli_str(x, "qualifiedName"), lp_cli_q(lp_graph_cli_str(x, "file")),
               lp_graph_cli_int(x, "startLine"), lp_graph_cli_str(x, "id"));
    json_array_foreach(json_object_get(res, "deletedSymbols"), i, x)
        printf("deleted %s %s  %s:%lld (base)\n", lp_graph_cli_str(x, "kind"),
               lp_graph_cli_str(x, "qualifiedName"), lp_cli_q(lp_graph_cli_str(x, "file")),
               lp_graph_cli_int(x, "baseStartLine"));
    json_array_foreach(json_object_get(res, "callers"), i, x)
        printf("caller (%s, depth %lld) %s  %s:%lld\n", lp_graph_cli_str(x, "relation"),
               lp_graph_cli_int(x, "depth"), lp_graph_cli_str(x, "qualifiedName"),
               lp_cli_q(lp_graph_cli_str(x, "file")), lp_graph_cli_int(x, "startLine"));
    lp_graph_cli_warnings(res);
}

static int run_changes(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},          {"base", required_argument, NULL, 'b'},
        {"depth", required_argument, NULL, 'd'},   {"max-callers", required_argument, NULL, 'm'},
        {"max-files", required_argument, NULL, 'f'}, {"root", required_argument, NULL, 'R'},
        {NULL, 0, NULL, 0},
    };
    lp_graph_out fmt = LP_GOUT_TEXT;
    const lp_tool_arg *a_base = lp_cli_tool_arg("detect_changes", "baseRef"),
                      *a_depth = lp_cli_tool_arg("detect_changes", "maxDepth"),
                      *a_callers = lp_cli_tool_arg("detect_changes", "maxCallers"),
                      *a_files = lp_cli_tool_arg("detect_changes", "maxFiles");
    const char *root = NULL, *base = a_base->dflt_str;
    uint64_t depth = (uint64_t)a_depth->dflt, max_callers = (uint64_t)a_callers->dflt,
             max_files = (uint64_t)a_files->dflt;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': fmt = LP_GOUT_JSON; break;
        case 'b': base = optarg; break;
        case 'd':
            if (!lp_cli_parse_count("changes", "--depth", optarg, (uint64_t)a_depth->max, &depth))
                return LP_EXIT_USAGE;
            break;
        case 'm':
            if (!lp_cli_parse_count("changes", "--max-callers", optarg,
                                    (uint64_t)a_callers->max, &max_callers))
                return LP_EXIT_USAGE;
            break;
        case 'f':
            if (!lp_cli_parse_count("changes", "--max-files", optarg, (uint64_t)a_files->max,
                                    &max_files))
                return LP_EXIT_USAGE;
            break;
        case 'R': root = optarg; break;
        default: return lp_cli_unknown_option("changes", lp_cli_getopt_bad_arg(argc, argv));
        }
    }
    if (argc != optind)
        return lp_cli_usage_error("changes", "takes no arguments (use --root PATH, --base REF)");
    json_t *args = lp_json_pack("{s:o, s:I, s:I, s:I}", "baseRef", lp_json_textz(base),
                                "maxDepth", (json_int_t)depth,
                             "maxCallers", (json_int_t)max_callers, "maxFiles",
                             (json_int_t)max_files);
    int code = lp_graph_cli_run("changes", root, args, lp_graph_detect_changes, fmt, text, NULL);
    json_decref(args);
    return code;
}

const lp_cli_cmd lp_cmd_changes = {
    .name = "changes",
    .summary = "symbols a git diff touches, and their callers",
    .usage = "usage: loupe changes [--base REF] [--depth N] [--max-callers N] [--max-files N]\n"
             "                     [--json] [--root PATH]\n"
             "The diff between REF (default HEAD) and the working tree (tracked files, staged\n"
             "and unstaged): changed files, the published symbols the hunks touch, deleted\n"
             "symbols, and callers over proved CALLS edges up to depth 3 (direct or\n"
             "transitive, with paths). Sync first for exact spans of edited files.\n",
    .run = run_changes,
};
