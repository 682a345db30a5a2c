/*
 * cmd_version.c: `loupe version`.
 */
#include "cli/cli_int.h"

static int run(int argc, char **argv)
{
    bool json = argc > 1 && !strcmp(argv[1], "--json");
    if (json)
        printf("{\"version\":\"%s\"}\n", LOUPE_VERSION);
    else
        printf("loupe %s\n", LOUPE_VERSION);
    return LP_EXIT_OK;
}

const lp_cli_cmd lp_cmd_version = {
    .name = "version",
    .summary = "print the version",
    .usage = "usage: loupe version [--json]\n",
    .run = run,
};
