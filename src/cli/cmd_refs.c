/*
 * cmd_refs.c: `loupe refs SYMBOL`: every textual occurrence of a symbol's name in the
 * published source (the tool table's find_references). Options, --help and --json are
 * generated from the table (cli_tool.c); this file renders the result struct as text.
 */
#include "cli/cli_tool.h"

static void text(const void *result)
{
    const lp_graph_fr_result *r = result;
    for (size_t i = 0; i < r->nmatches; i++) {
        const lp_graph_ref *m = &r->matches[i];
        printf("%s:%lld:%lld: %s%s%s%s\n", lp_cli_q(lp_graph_cli_text(m->file)), (long long)m->line,
               (long long)m->column, lp_graph_cli_text(m->text), m->owner ? "  [" : "",
               m->owner ? lp_graph_cli_sym_qname(m->owner) : "", m->owner ? "]" : "");
    }
    printf("%lld matches in %lld files (%lld scanned), coverage %s\n", (long long)r->total_matches,
           (long long)r->files_with_matches, (long long)r->files_scanned,
           lp_graph_fr_complete(r) ? "complete" : "partial");
    lp_graph_cli_notes(r->warnings, r->nwarnings);
}

const lp_cli_tool_view lp_cli_refs_view = {
    .tool = "find_references",
    .command = "refs",
    .about = "Every exact occurrence of SYMBOL's name (identifier boundaries) in the published\n"
             "source, in path order, with line, column, text and owning symbol; coverage says\n"
             "whether every published file was scanned (complete) or budgets cut (partial).\n",
    .text = text,
};

static int run_refs(int argc, char **argv) { return lp_cli_tool_main(&lp_cli_refs_view, argc, argv); }

static void help_refs(lp_buf *out) { lp_cli_tool_help(&lp_cli_refs_view, out); }

const lp_cli_cmd lp_cmd_refs = {
    .name = "refs",
    .summary = "every textual occurrence of a symbol's name, with owners",
    .help = help_refs,
    .run = run_refs,
};
