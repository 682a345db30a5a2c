/*
 * cmd_trace.c: `loupe trace FROM TO`: one shortest directed path between two symbols over
 * chosen edge kinds (the tool table's trace_path). Options, --help and --json are generated
 * from the table (cli_tool.c); this file renders the result struct as text.
 */
#include "cli/cli_tool.h"

static void text(const void *result)
{
    const lp_graph_tp_result *r = result;
    if (!r->found) {
        printf("no path found\n");
        lp_graph_cli_notes(r->warnings, r->nwarnings);
        return;
    }
    for (size_t i = 0; i < r->npath; i++) {
        if (i > 0) {
            const lp_graph_tp_edge *e = i - 1 < r->nedges ? &r->edges[i - 1] : NULL;
            printf("   | %s %s\n", e ? lp_edge_kind_name(e->kind) : "",
                   e && e->strategy ? lp_graph_cli_text(e->strategy) : "");
        }
        lp_graph_cli_sym_line("", &r->path[i]);
    }
    lp_graph_cli_notes(r->warnings, r->nwarnings);
}

const lp_cli_tool_view lp_cli_trace_view = {
    .tool = "trace_path",
    .command = "trace",
    .about = "One shortest directed path from FROM to TO (sym:... ids, file:<path>, or names\n"
             "that name exactly one definition) over proved edges of the chosen kinds (default\n"
             "calls). Budgets report truncation; no path is not proof of no connection.\n",
    .positional_error = "needs FROM and TO (ids or unique names)",
    .text = text,
};

static int run_trace(int argc, char **argv) { return lp_cli_tool_main(&lp_cli_trace_view, argc, argv); }

static void help_trace(lp_buf *out) { lp_cli_tool_help(&lp_cli_trace_view, out); }

const lp_cli_cmd lp_cmd_trace = {
    .name = "trace",
    .summary = "shortest path between two symbols over proved edges",
    .help = help_trace,
    .run = run_trace,
};
