/* export.c — `nnfx export`: writes a model (ONNX or text IR) as ONNX. */
#include <string.h>

#include "cli/cli.h"

static const char export_help[] = "usage: nnfx export MODEL -o OUT.onnx [--external-data]\n"
                                  "\n"
                                  "Reads MODEL (.onnx, or nnfx text IR .fx/.txt), checks it (lint and shape\n"
                                  "inference) and writes it as ONNX. Weights go to a side file OUT.onnx.data\n"
                                  "with --external-data, or by themselves when the model would pass 2 GB.\n"
                                  "A model whose name ends in .fx/.txt/.nnfx is written as text IR instead.\n"
                                  "The output is written to a temporary name and renamed; the input is never\n"
                                  "touched.\n"
                                  "\n"
                                  "options:\n"
                                  "  -o, --output FILE  the file to write (required)\n"
                                  "  --external-data    put weights in a side file\n"
                                  "  -h, --help         this text\n"
                                  "\n"
                                  "examples:\n"
                                  "  nnfx export model.fx -o model.onnx\n"
                                  "  nnfx export big.onnx -o big_ext.onnx --external-data\n";

int cli_export(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(export_help, stdout);
        return CLI_EXIT_OK;
    }
    const char *model = NULL, *out = NULL;
    bool external = false;
    cli_args a;
    cli_args_init(&a, "export", argc, argv);
    while (cli_args_more(&a)) {
        const char *v;
        if (cli_opt(&a, "--output", "-o", &v)) {
            out = v;
        } else if (cli_flag(&a, "--external-data", NULL)) {
            external = true;
        } else {
            const char *p = cli_positional(&a);
            if (!p) break;
            if (model) return cli_usage_error("export", "one model at a time ('%s' and '%s' given)", model, p);
            model = p;
        }
    }
    if (a.bad) return CLI_EXIT_USAGE;
    if (!model) return cli_usage_error("export", "no model given");
    if (!out) return cli_usage_error("export", "no output given (-o OUT.onnx)");
    if (strcmp(out, "-") == 0) return cli_usage_error("export", "cannot write ONNX to standard output");
    if (cli_same_file(out, model)) return cli_usage_error("export", "%s: -o would overwrite the model", out);

    nnfx_error err = {0};
    nnfx_graph *g = cli_load_model(model, &err);
    if (!g) {
        cli_fail("export", model, &err);
        return CLI_EXIT_BAD_INPUT;
    }
    if (nnfx_graph_lint(g, &err) || nnfx_graph_infer_shapes(g, &err)) {
        nnfx_graph_free(g);
        cli_fail("export", model, &err);
        return CLI_EXIT_BAD_INPUT;
    }
    nnfx_status st = cli_save_model(g, out, external, &err);
    nnfx_graph_free(g);
    if (st) {
        cli_fail("export", out, &err);
        return CLI_EXIT_BAD_INPUT;
    }
    return CLI_EXIT_OK;
}
