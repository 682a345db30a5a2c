/*
 * cli.c: command dispatch, shared option parsing and error reporting.
 */
#include "cli/cli.h"

#include "core/core.h"

#define LOUPE_VERSION "0.1.0"

static int usage(FILE *out)
{
    fprintf(out, "usage: loupe <command> [options]\n"
                 "  version       print the version\n");
    return out == stdout ? 0 : 2;
}

int lp_cli_main(int argc, char **argv)
{
    lp_log_init_from_env();
    if (argc < 2)
        return usage(stderr);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))
        return usage(stdout);
    if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
        printf("loupe %s\n", LOUPE_VERSION);
        return 0;
    }
    fprintf(stderr, "loupe: unknown command '%s'; run 'loupe --help' for the list\n", argv[1]);
    return 2;
}
