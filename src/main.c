/*
 * main.c: the loupe binary. Everything happens in src/cli.
 */
#include "cli/cli.h"
#include "core/core.h"

int main(int argc, char **argv)
{
    lp_mem_tune(); /* before any allocation that lives long, and before any thread */
    return lp_cli_main(argc, argv);
}
