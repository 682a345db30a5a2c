/*
 * main.c: the loupe binary. Everything happens in src/cli.
 */
#include "cli/cli.h"

int main(int argc, char **argv) { return lp_cli_main(argc, argv); }
