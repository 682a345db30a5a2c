/*
 * cli_tool.h: the commands generated from the tool table (src/api/tools.h). A view names
 * the table's tool, the command that serves it and the renderers of its result; the
 * command's options, its --help and its --json come from the table entry (cli_tool.c), so
 * the CLI and the MCP server take the same arguments with the same defaults and limits.
 *
 * A tool not migrated yet (a JSON tool of the table) still has its hand-written command:
 * its view names it (legacy) and has no renderers.
 */
#ifndef LP_CLI_TOOL_H
#define LP_CLI_TOOL_H

#include "cli/graph_cli.h"

#include "api/tools.h"

typedef struct lp_cli_tool_view {
    const char *tool;    /* the table's name ("call_graph") */
    const char *command; /* "calls" */
    const char *about;   /* what the command does, for --help (after the usage lines) */
    /* the usage error when the positional arguments are missing (NULL: "needs one SYMBOL
     * (its cli_help)") */
    const char *positional_error;
    /* typed tools: the result struct as text, and as a drawing (NULL: no dot / mermaid) */
    void (*text)(const void *result);
    void (*draw)(const void *result, bool mermaid);
    /* JSON tools: their hand-written command */
    const lp_cli_cmd *legacy;
} lp_cli_tool_view;

extern const lp_cli_tool_view *const lp_cli_tool_views[];
extern const size_t lp_cli_tool_views_count;
/* The view of a table tool (NULL: none; a test fails then). */
const lp_cli_tool_view *lp_cli_tool_view_find(const char *tool);

/* The argument `arg` of table tool `tool` (a commands' own parser reads its default and
 * limits there); aborts when the table lacks it (a programming error the tests catch). */
const lp_tool_arg *lp_cli_tool_arg(const char *tool, const char *arg);

/* Run the command of view v (argv[0] is the command): options from the table, the one
 * positional argument (a symbol name is resolved in the root), the typed call on the pinned
 * publication, then text / --json / --format. Returns the exit code. */
int lp_cli_tool_main(const lp_cli_tool_view *v, int argc, char **argv);
/* The --help text of v's command into out. */
void lp_cli_tool_help(const lp_cli_tool_view *v, lp_buf *out);

#endif
