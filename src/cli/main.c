/* main.c — the nnfx command: dispatches to subcommands (one file each). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

typedef struct cli_command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} cli_command;

static const cli_command commands[] = {
    {"run", cli_run, "run a model on .npy/.pb inputs; write outputs or benchmark"},
    {"inspect", cli_inspect, "print the graph as text, a table, JSON, DOT or SVG"},
    {"analyze", cli_analyze, "cost, parameters, memory and findings; JSON and HTML reports"},
    {"quantize", cli_quantize, "int8 post-training quantization into QDQ form, with an accuracy gate"},
    {"optimize", cli_optimize, "apply passes and rewrites, validate numerically, write the result"},
    {"compare", cli_compare, "run two models on the same inputs and compare their outputs"},
    {"export", cli_export, "write a model (ONNX or text IR) as ONNX"},
    {"demo", cli_demo, "trace a small C model and show the FX workflow on it"},
};

/* Prints the top-level help to f. */
static void usage(FILE *f) {
    fprintf(f, "usage: nnfx <command> [options]\n"
               "       nnfx <command> --help\n"
               "       nnfx --version\n\n"
               "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nexit codes: 0 ok, 1 a check failed, 2 usage error, 3 bad input\n"
               "(unreadable or corrupt model or data, unsupported op).\n\n"
               "examples:\n"
               "  nnfx inspect model.onnx --format tabular\n"
               "  nnfx analyze model.onnx --json report.json --html report.html\n"
               "  nnfx optimize model.onnx -o opt.onnx --pass fuse-conv-bn --validate --random 8\n"
               "  nnfx run model.onnx --input x=x.npy -o y.npy\n");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("nnfx %s\n", NNFX_VERSION);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "help") == 0) {
        if (argc < 3) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (strcmp(argv[2], commands[i].name) == 0) {
                char *hargv[] = {argv[2], "--help", NULL};
                return commands[i].fn(2, hargv);
            }
        fprintf(stderr, "nnfx: unknown command '%s' (try 'nnfx --help')\n", argv[2]);
        return CLI_EXIT_USAGE;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(cmd, commands[i].name) == 0) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "nnfx: unknown command '%s' (try 'nnfx --help')\n", cmd);
    return CLI_EXIT_USAGE;
}
