/* optimize.c — placeholder */
#include "cli/cli.h"
int cli_optimize(int argc, char **argv) { (void)argc; (void)argv; return CLI_EXIT_USAGE; }
