/* main.c — the nnfx command: dispatches to subcommands (one file each). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#if defined(NNFX_HAVE_DNNL) && defined(__linux__)
#include <unistd.h>
/* oneDNN threads through libgomp, whose idle threads spin for about 300,000
 * rounds before they sleep. On a machine shared with other work (a CI
 * runner, a virtual machine) that spinning takes the cores the next step
 * needs: on a 2-core VM at load 7, resnet18 with --threads 2 took 210 ms per
 * run against 24 ms with passive waiting. libgomp reads GOMP_SPINCOUNT once,
 * before main, so when `run` is asked for more than one thread and the user
 * set neither GOMP_SPINCOUNT nor OMP_WAIT_POLICY, the command starts itself
 * again with GOMP_SPINCOUNT=20000 (same pid, arguments and files; if that
 * fails it goes on as it is). One thread needs no OpenMP workers. */
static void bound_omp_spin(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "run") != 0 || getenv("GOMP_SPINCOUNT") || getenv("OMP_WAIT_POLICY")) return;
    bool threads = false;
    for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *v = NULL;
        if ((!strcmp(argv[i], "--threads") || !strcmp(argv[i], "-t")) && i + 1 < argc)
            v = argv[i + 1];
        else if (!strncmp(argv[i], "--threads=", 10))
            v = argv[i] + 10;
        if (v && atoi(v) > 1) threads = true;
    }
    if (!threads || setenv("GOMP_SPINCOUNT", "20000", 0) != 0) return;
    execv("/proc/self/exe", argv);
}
#else
static void bound_omp_spin(int argc, char **argv) { (void)argc, (void)argv; }
#endif

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
    {"prune", cli_prune, "remove channels by dependency groups (or zero weights); a smaller model"},
    {"compare", cli_compare, "run two models on the same inputs and compare their outputs"},
    {"export", cli_export, "write a model (ONNX or text IR) as ONNX"},
    {"codegen", cli_codegen, "write the model as standalone C99 for embedded targets"},
    {"demo", cli_demo, "trace a small C model and show the FX workflow on it"},
    {"push", cli_push, "publish a model to an OCI registry (layers, config, annotations)"},
    {"pull", cli_pull, "download a model from an OCI registry, checking digests"},
    {"report", cli_report, "merge the JSON reports of a fleet's shards into one (JSON, HTML)"},
    {"shard", cli_shard, "print the models of a list that shard K of N takes (as --shard K/N)"},
};

/* Prints the top-level help to f. */
static void usage(FILE *f) {
    fprintf(f, "usage: nnfx <command> [options]\n"
               "       nnfx <command> --help\n"
               "       nnfx --version\n\n"
               "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nglobal options (any command):\n"
               "  --max-memory SIZE  refuse a model, text file or run needing more than SIZE\n"
               "                     bytes of tensors (512M, 4G, none; default: half the\n"
               "                     physical memory; env NNFX_MAX_MEMORY), exit 3\n"
               "\nexit codes: 0 ok, 1 a check failed, 2 usage error, 3 bad input\n"
               "(unreadable or corrupt model or data, unsupported op).\n\n"
               "examples:\n"
               "  nnfx inspect model.onnx --format tabular\n"
               "  nnfx analyze model.onnx --json report.json --html report.html\n"
               "  nnfx optimize model.onnx -o opt.onnx --pass fuse-conv-bn --validate --random 8\n"
               "  nnfx run model.onnx --input x=x.npy -o y.npy\n"
               "  nnfx run big.onnx --input x=x.npy --max-memory 4G\n");
}

int main(int argc, char **argv) {
    bound_omp_spin(argc, argv);
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    int rc = cli_guard_setup(&argc, argv);
    if (rc) return rc;
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("nnfx %s (build %s)\n", NNFX_VERSION, cli_build_id());
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
