/*
 * graph_cli.h: what the graph commands of src/cli share (cmd_calls.c, cmd_trace.c,
 * cmd_refs.c, cmd_changes.c, cmd_arch.c): running one src/graph tool on the indexed root
 * that contains --root (default: the current folder) and printing its result.
 */
#ifndef LP_GRAPH_CLI_H
#define LP_GRAPH_CLI_H

#include "cli/cli_int.h"
#include "graph/graph.h"

#include "core/json.h"

typedef enum lp_graph_out { LP_GOUT_TEXT = 0, LP_GOUT_JSON, LP_GOUT_DOT, LP_GOUT_MERMAID } lp_graph_out;

/* Resolve the root, pin its publication, call fn with args, print the result (JSON, or
 * human via text(), or a drawing via draw()). args is borrowed. Returns the exit code. */
int lp_graph_cli_run(const char *cmd, const char *root_arg, json_t *args, lp_graph_tool_fn fn,
                     lp_graph_out fmt, void (*text)(const json_t *res),
                     void (*draw)(const json_t *res, bool mermaid));

/* Resolve root_arg (NULL: the current folder) to its indexed root, open its store and pin
 * its current publication (*pub_id): LP_ENOTINDEXED / LP_EREINDEX with the advice when it
 * cannot answer. Close with lp_graph_cli_close (also after a failure; st may be NULL). */
lp_status lp_graph_cli_open(const char *root_arg, lp_buf *root, lp_store **st, int64_t *pub_id,
                            lp_error *err);
void lp_graph_cli_close(lp_store *st);

/* A symbol argument: "sym:..." and "file:..." ids pass through; a name is looked up in the
 * root's publication and must name exactly one definition (several: they are listed on
 * stderr and the exit code is 8). On success *id is malloc'ed (caller frees). */
int lp_graph_cli_symbol(const char *cmd, const char *root_arg, const char *arg, char **id);

/* Parse "--format dot|mermaid"; false (usage printed) on anything else. */
bool lp_graph_cli_format(const char *cmd, const char *v, lp_graph_out *out);

/* Small printing helpers. */
const char *lp_graph_cli_str(const json_t *o, const char *key); /* "" when absent */
long long lp_graph_cli_int(const json_t *o, const char *key);
void lp_graph_cli_warnings(const json_t *res);
/* Printing typed results (src/graph structs) as the JSON renderer would show their text:
 * bytes that are not UTF-8 become U+FFFD. Returned strings live in a ring of 8 buffers:
 * print them before the ninth call. */
const char *lp_graph_cli_text(const char *s);
/* A symbol's id (file:<path> for a file, formatted in buf), kind ("file" for a file),
 * qualified name (the path for a file) and first line (1 for a file). */
const char *lp_graph_cli_sym_id(const lp_graph_sym *s, char *buf, size_t cap);
const char *lp_graph_cli_sym_kind(const lp_graph_sym *s);
const char *lp_graph_cli_sym_qname(const lp_graph_sym *s);
long long lp_graph_cli_sym_start(const lp_graph_sym *s);
/* "PREFIXkind qname  file:line  id" */
void lp_graph_cli_sym_line(const char *prefix, const lp_graph_sym *s);
/* "note [code]: message" lines. */
void lp_graph_cli_notes(const lp_graph_warning *w, size_t n);
/* Quote a label for DOT / mermaid into buf. */
const char *lp_graph_cli_label(const char *s, bool mermaid, char *buf, size_t cap);

#endif
