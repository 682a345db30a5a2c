/*
 * cmd_calls.c: `loupe calls SYMBOL`: callers and callees of one symbol (the tool table's
 * call_graph, src/api/tools_graph.c), as text, JSON, or a DOT / mermaid drawing. Options,
 * --help and --json are generated from the table (cli_tool.c); this file renders the result
 * struct (lp_graph_cg_result) as text and drawings.
 */
#include "cli/cli_tool.h"

/* The node (or the root) with this id; NULL when none. */
static const lp_graph_sym *node_by_id(const lp_graph_cg_result *r, const char *id_arg, int *side)
{
    char idb[LP_PATH_MAX + 8], id[LP_PATH_MAX + 8];
    snprintf(id, sizeof id, "%s", id_arg); /* sym_id reuses the buffers of lp_graph_cli_text() */
    for (size_t i = 0; i < r->nnodes; i++)
        if (!strcmp(lp_graph_cli_sym_id(&r->nodes[i].sym, idb, sizeof idb), id)) {
            *side = r->nodes[i].side;
            return &r->nodes[i].sym;
        }
    if (!strcmp(lp_graph_cli_sym_id(&r->root, idb, sizeof idb), id)) {
        *side = 0;
        return &r->root;
    }
    return NULL;
}

static void text(const void *result)
{
    const lp_graph_cg_result *r = result;
    lp_graph_cli_sym_line("", &r->root);
    /* caller-side edges first (toward the root), then callee-side ones */
    for (int pass = 0; pass < 2; pass++) {
        size_t shown = 0;
        for (size_t i = 0; i < r->nedges; i++) {
            const lp_graph_cg_edge *e = &r->edges[i];
            int fside = 0, tside = 0;
            const lp_graph_sym *from = node_by_id(r, lp_graph_cli_text(e->from), &fside);
            const lp_graph_sym *to = node_by_id(r, lp_graph_cli_text(e->to), &tside);
            if (!from || !to)
                continue;
            bool caller_edge = fside == 2;
            if ((pass == 0) != caller_edge)
                continue;
            if (!shown++)
                printf("%s:\n", pass == 0 ? "callers" : "callees");
            printf("  %s -> %s  [%s] at %s:%lld\n", lp_graph_cli_sym_qname(from), lp_graph_cli_sym_qname(to), lp_graph_cli_text(e->strategy),
                   lp_cli_q(e->site.present ? lp_graph_cli_text(e->site.file) : ""),
                   e->site.present ? (long long)e->site.start_line : 0LL);
        }
    }
    if (r->has_callees)
        printf("callee evidence: %lld proved, %lld ambiguous, %lld unresolved\n",
               (long long)r->proved_calls, (long long)r->ambiguous, (long long)r->unresolved);
    if (r->has_callers)
        printf("caller evidence: %lld proved, %lld ambiguous call sites, %lld%s unresolved "
               "same-name call sites\n",
               (long long)r->proved_callers, (long long)r->ambiguous_call_sites,
               (long long)r->unresolved_same_name, r->unresolved_same_name_capped ? "+" : "");
    for (size_t i = 0; i < r->nunresolved_callees; i++) {
        const lp_graph_cg_open *o = &r->unresolved_callees[i];
        printf("  unresolved %s at line %lld: %s\n", lp_graph_cli_text(o->callee), (long long)o->start_line,
               o->reason);
    }
    for (size_t i = 0; i < r->nambiguous_callees; i++) {
        const lp_graph_cg_open *o = &r->ambiguous_callees[i];
        printf("  ambiguous %s at line %lld: %lld candidates\n", lp_graph_cli_text(o->callee),
               (long long)o->start_line, (long long)o->candidate_count);
    }
    for (size_t i = 0; i < r->ntests; i++)
        lp_graph_cli_sym_line("  tested by ", &r->tests[i].sym);
    lp_graph_cli_notes(r->warnings, r->nwarnings);
}

static void draw(const void *result, bool mermaid)
{
    const lp_graph_cg_result *r = result;
    char a[512], b[512], idb[LP_PATH_MAX + 8];
    printf(mermaid ? "graph LR\n" : "digraph calls {\n  rankdir=LR;\n  node [shape=box];\n");
    printf(mermaid ? "  n0[\"%s\"]\n" : "  \"%s\" [label=\"%s\", style=bold];\n",
           lp_graph_cli_label(lp_graph_cli_sym_id(&r->root, idb, sizeof idb), mermaid, a, sizeof a),
           lp_graph_cli_label(lp_graph_cli_sym_qname(&r->root), mermaid, b, sizeof b));
    if (!mermaid) {
        for (size_t i = 0; i < r->nnodes; i++)
            printf("  \"%s\" [label=\"%s\"];\n",
                   lp_graph_cli_label(lp_graph_cli_sym_id(&r->nodes[i].sym, idb, sizeof idb), false, a, sizeof a),
                   lp_graph_cli_label(lp_graph_cli_sym_qname(&r->nodes[i].sym), false, b, sizeof b));
        for (size_t i = 0; i < r->nedges; i++)
            printf("  \"%s\" -> \"%s\";\n", lp_graph_cli_label(lp_graph_cli_text(r->edges[i].from), false, a, sizeof a),
                   lp_graph_cli_label(lp_graph_cli_text(r->edges[i].to), false, b, sizeof b));
        printf("}\n");
        return;
    }
    /* mermaid: ids are node indexes (symbol ids contain ':') */
    for (size_t i = 0; i < r->nnodes; i++)
        printf("  n%zu[\"%s\"]\n", i + 1,
               lp_graph_cli_label(lp_graph_cli_sym_qname(&r->nodes[i].sym), true, a, sizeof a));
    for (size_t i = 0; i < r->nedges; i++) {
        char from[LP_PATH_MAX + 8], to[LP_PATH_MAX + 8];
        snprintf(from, sizeof from, "%s", lp_graph_cli_text(r->edges[i].from));
        snprintf(to, sizeof to, "%s", lp_graph_cli_text(r->edges[i].to));
        size_t fi = 0, ti = 0;
        for (size_t k = 0; k < r->nnodes; k++) {
            const char *id = lp_graph_cli_sym_id(&r->nodes[k].sym, idb, sizeof idb);
            if (!strcmp(id, from))
                fi = k + 1;
            if (!strcmp(id, to))
                ti = k + 1;
        }
        printf("  n%zu --> n%zu\n", fi, ti);
    }
}

const lp_cli_tool_view lp_cli_calls_view = {
    .tool = "call_graph",
    .command = "calls",
    .about = "Callers and callees of SYMBOL (a sym:... id, or a name that names exactly one\n"
             "definition) over proved CALLS edges, with the call sites that stayed ambiguous or\n"
             "unresolved and why. An absent edge is not proof that no call exists. --format\n"
             "draws the graph for graphviz (dot) or mermaid.\n",
    .text = text,
    .draw = draw,
};

static int run_calls(int argc, char **argv) { return lp_cli_tool_main(&lp_cli_calls_view, argc, argv); }

static void help_calls(lp_buf *out) { lp_cli_tool_help(&lp_cli_calls_view, out); }

const lp_cli_cmd lp_cmd_calls = {
    .name = "calls",
    .summary = "callers and callees of a symbol (proved calls, with evidence)",
    .help = help_calls,
    .run = run_calls,
};
