/*
 * cmd_graph_dump.c: `loupe graph-dump [PATH]` (hidden debug command): every stored edge of
 * the current publication, one per line, sorted by paths (the incremental-vs-full tests
 * compare two of these).
 */
#include "cli/cli_int.h"

#include "graph/graph.h"

static int run_graph_dump(int argc, char **argv)
{
    const char *path = NULL;
    bool opts_done = false;
    for (int i = 1; i < argc; i++) {
        if (!opts_done && !strcmp(argv[i], "--")) {
            opts_done = true;
            continue;
        }
        if (!opts_done && argv[i][0] == '-')
            return lp_cli_unknown_option("graph-dump", argv[i]);
        if (path)
            return lp_cli_usage_error("graph-dump", "takes one PATH");
        path = argv[i];
    }
    lp_error err = {0};
    lp_buf root, out;
    lp_buf_init(&root, 0);
    lp_buf_init(&out, 0);
    lp_store *st = NULL;
    int code = LP_EXIT_OK;
    lp_status rc = lp_cli_root_for(path, true, false, &root, &err);
    if (!rc)
        rc = lp_store_open(root.ptr, LP_STORE_READ, &st, &err);
    if (!rc)
        rc = lp_store_pin(st, &err);
    if (!rc)
        rc = lp_graph_dump(st, &out, &err);
    if (rc)
        code = lp_cli_fail(&err, false);
    else
        fwrite(out.ptr, 1, out.len, stdout);
    if (st)
        lp_store_unpin(st);
    lp_store_close(st);
    lp_buf_release(&root);
    lp_buf_release(&out);
    return code;
}

const lp_cli_cmd lp_cmd_graph_dump = {
    .name = "graph-dump",
    .summary = "debug: every stored edge of the current publication",
    .usage = "usage: loupe graph-dump [PATH]\n"
             "Debug command: one line per stored edge of the index containing PATH (default:\n"
             "the current folder):\n"
             "  SRC_PATH:SRC_QNAME -> DST_PATH:DST_QNAME KIND RULE ref=REF_ORD\n"
             "(qname '-' is the file itself; rule 'candidate' marks an ambiguous candidate).\n",
    .run = run_graph_dump,
    .hidden = true,
};
