/* compare.c — placeholder */
#include "cli/cli.h"
int cli_compare(int argc, char **argv) { (void)argc; (void)argv; return CLI_EXIT_USAGE; }
