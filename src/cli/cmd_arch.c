/*
 * cmd_arch.c: `loupe arch`: packages, cross-package dependencies, fan-in/out and cycles
 * (the tool table's architecture_overview), as text, JSON, or a DOT / mermaid drawing.
 * Options, --help and --json are generated from the table (cli_tool.c); this file renders
 * the result struct.
 */
#include "cli/cli_tool.h"

static void text(const void *result)
{
    const lp_graph_arch_result *r = result;
    printf("%-40s %6s %8s %6s %7s\n", "package", "files", "symbols", "fanIn", "fanOut");
    for (size_t i = 0; i < r->npackages; i++) {
        const lp_graph_package *p = &r->packages[i];
        printf("%-40s %6lld %8lld %6lld %7lld\n", lp_graph_cli_text(p->name), (long long)p->files,
               (long long)p->symbols, (long long)p->fan_in, (long long)p->fan_out);
    }
    for (size_t i = 0; i < r->ndependencies; i++) {
        const lp_graph_dependency *d = &r->dependencies[i];
        printf("%s -> %s  (%lld calls, %lld imports)\n", lp_graph_cli_text(d->from),
               lp_graph_cli_text(d->to), (long long)d->calls, (long long)d->imports);
    }
    for (size_t i = 0; i < r->ncycles; i++) {
        printf("cycle:");
        for (size_t k = 0; k < r->cycles[i].nmembers; k++)
            printf(" %s", lp_graph_cli_text(r->cycles[i].members[k]));
        printf("\n");
    }
    lp_graph_cli_notes(r->warnings, r->nwarnings);
}

static void draw(const void *result, bool mermaid)
{
    const lp_graph_arch_result *r = result;
    char a[512], b[512];
    if (!mermaid) {
        printf("digraph architecture {\n  rankdir=LR;\n  node [shape=folder];\n");
        for (size_t i = 0; i < r->npackages; i++)
            printf("  \"%s\" [label=\"%s\\n%lld files\"];\n",
                   lp_graph_cli_label(lp_graph_cli_text(r->packages[i].name), false, a, sizeof a),
                   lp_graph_cli_label(lp_graph_cli_text(r->packages[i].name), false, b, sizeof b),
                   (long long)r->packages[i].files);
        for (size_t i = 0; i < r->ndependencies; i++)
            printf("  \"%s\" -> \"%s\" [label=\"%lld/%lld\"];\n",
                   lp_graph_cli_label(lp_graph_cli_text(r->dependencies[i].from), false, a, sizeof a),
                   lp_graph_cli_label(lp_graph_cli_text(r->dependencies[i].to), false, b, sizeof b),
                   (long long)r->dependencies[i].calls, (long long)r->dependencies[i].imports);
        printf("}\n");
        return;
    }
    printf("graph LR\n");
    for (size_t i = 0; i < r->npackages; i++)
        printf("  p%zu[\"%s\"]\n", i,
               lp_graph_cli_label(lp_graph_cli_text(r->packages[i].name), true, a, sizeof a));
    for (size_t i = 0; i < r->ndependencies; i++) {
        const lp_graph_dependency *d = &r->dependencies[i];
        long fi = -1, ti = -1;
        for (size_t k = 0; k < r->npackages; k++) {
            if (!strcmp(r->packages[k].name, d->from))
                fi = (long)k;
            if (!strcmp(r->packages[k].name, d->to))
                ti = (long)k;
        }
        if (fi >= 0 && ti >= 0)
            printf("  p%ld -->|%lld/%lld| p%ld\n", fi, (long long)d->calls, (long long)d->imports,
                   ti);
    }
}

const lp_cli_tool_view lp_cli_arch_view = {
    .tool = "architecture_overview",
    .command = "arch",
    .about = "Packages (Java/Scala packages, C# namespaces, folders elsewhere) with file and\n"
             "symbol counts, proved CALLS and IMPORTS edges between them, fan-in/out, and\n"
             "cycles. --format draws the package graph for graphviz (dot) or mermaid.\n",
    .positional_error = "takes no arguments (use --root PATH, --subtree DIR)",
    .text = text,
    .draw = draw,
};

static int run_arch(int argc, char **argv) { return lp_cli_tool_main(&lp_cli_arch_view, argc, argv); }

static void help_arch(lp_buf *out) { lp_cli_tool_help(&lp_cli_arch_view, out); }

const lp_cli_cmd lp_cmd_arch = {
    .name = "arch",
    .summary = "packages, their dependencies, fan-in/out and cycles",
    .help = help_arch,
    .run = run_arch,
};
