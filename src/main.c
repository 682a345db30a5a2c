/*
 * main.c: the loupe binary. Everything happens in src/cli.
 */
#include "cli/cli.h"
#include "core/core.h"
#include "core/json.h"

int main(int argc, char **argv)
{
    /* Before any allocation that lives long, and before any thread. Not for the MCP server,
     * which lives for hours: its RSS would only grow (src/core/mem.c). */
    if (!(argc > 1 && strcmp(argv[1], "mcp") == 0))
        lp_mem_tune(LP_MEM_RESERVE_DEFAULT);
    lp_json_init();
    /* Descriptor needs are bounded (a walk holds at most 17 folders open, a parse worker 3
     * files, SQLite 3 per connection), but a default soft limit of 1024 under a higher hard
     * one is no reason to fail. */
    lp_fd_limit_raise(4096);
    return lp_cli_main(argc, argv);
}
