/*
 * cli.h: the loupe command line. The only module (with mcp/) that turns statuses into
 * exit codes and user-facing messages.
 *
 * Exit codes (documented in `loupe --help`):
 *   0 success; 1 failure (the message says why); 2 usage error; 3 not indexed;
 *   4 requires reindex; 5 busy (another writer); 6 path refused; 7 not found; 8 ambiguous.
 */
#ifndef LP_CLI_H
#define LP_CLI_H

int lp_cli_main(int argc, char **argv);

#endif
