/* main.c — the nnfx command: dispatches to subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "nnfx.h"

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("nnfx %s\n", NNFX_VERSION);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "demo") == 0) return cli_demo(argc - 1, argv + 1);
    fprintf(stderr, "usage: nnfx <command> [options]\n");
    return 2;
}
