/*
 * cmd_refs.c: `loupe refs SYMBOL`: every textual occurrence of a symbol's name in the
 * published source (src/graph's find_references).
 */
#include "cli/cli_tool.h"

#include <getopt.h>

static void text(const json_t *res)
{
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(res, "matches"), i, m)
    {
        const json_t *o = json_object_get(m, "owner");
        if (!json_is_object(o))
            o = NULL;
        printf("%s:%lld:%lld: %s%s%s%s\n", lp_cli_q(lp_graph_cli_str(m, "file")), lp_graph_cli_int(m, "line"),
               lp_graph_cli_int(m, "column"), lp_graph_cli_str(m, "text"), o ? "  [" : "",
               o ? lp_graph_cli_str(o, "qualifiedName") : "", o ? "]" : "");
    }
    const json_t *cov = json_object_get(res, "coverage");
    printf("%lld matches in %lld files (%lld scanned), coverage %s\n",
           lp_graph_cli_int(cov, "totalMatches"), lp_graph_cli_int(cov, "filesWithMatches"),
           lp_graph_cli_int(cov, "filesScanned"), lp_graph_cli_str(cov, "state"));
    lp_graph_cli_warnings(res);
}

static int run_refs(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},      {"prefix", required_argument, NULL, 'p'},
        {"max", required_argument, NULL, 'm'}, {"root", required_argument, NULL, 'R'},
        {NULL, 0, NULL, 0},
    };
    lp_graph_out fmt = LP_GOUT_TEXT;
    const char *root = NULL, *prefix = NULL;
    const lp_tool_arg *a_max = lp_cli_tool_arg("find_references", "maxResults");
    uint64_t max = (uint64_t)a_max->dflt;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': fmt = LP_GOUT_JSON; break;
        case 'p': prefix = optarg; break;
        case 'm':
            if (!lp_cli_parse_count("refs", "--max", optarg, (uint64_t)a_max->max, &max))
                return LP_EXIT_USAGE;
            break;
        case 'R': root = optarg; break;
        default: return lp_cli_unknown_option("refs", lp_cli_getopt_bad_arg(argc, argv));
        }
    }
    if (argc - optind != 1)
        return lp_cli_usage_error("refs", "needs one SYMBOL (an id or a unique name)");
    char *id = NULL;
    int code = lp_graph_cli_symbol("refs", root, argv[optind], &id);
    if (code)
        return code;
    json_t *args = lp_json_pack("{s:s, s:I}", "symbolId", id, "maxResults", (json_int_t)max);
    if (prefix)
        json_object_set_new(args, "pathPrefix", lp_json_textz(prefix));
    code = lp_graph_cli_run("refs", root, args, lp_graph_find_references, fmt, text, NULL);
    json_decref(args);
    free(id);
    return code;
}

const lp_cli_cmd lp_cmd_refs = {
    .name = "refs",
    .summary = "every textual occurrence of a symbol's name, with owners",
    .usage = "usage: loupe refs SYMBOL [--prefix DIR] [--max N] [--json] [--root PATH]\n"
             "Every exact occurrence of SYMBOL's name (identifier boundaries) in the published\n"
             "source, in path order, with line, column, text and owning symbol; coverage says\n"
             "whether every published file was scanned (complete) or budgets cut (partial).\n",
    .run = run_refs,
};
