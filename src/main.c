/*
 * main.c: the loupe binary. Everything happens in src/cli.
 */
#include "cli/cli.h"
#include "core/core.h"

int main(int argc, char **argv)
{
    /* Before any allocation that lives long, and before any thread. The MCP server lives for
     * hours: a small reserve, so the memory it frees goes back to the system. */
    bool server = argc > 1 && strcmp(argv[1], "mcp") == 0;
    lp_mem_tune(server ? LP_MEM_RESERVE_SERVER : LP_MEM_RESERVE_DEFAULT);
    return lp_cli_main(argc, argv);
}
