/* export.c — `nnfx export`: writes a model (ONNX or text IR) as ONNX. */
#include <string.h>

#include "cli/cli.h"

static const char export_help[] = "usage: nnfx export MODEL -o OUT.onnx [--external-data] [--opset N]\n"
                                  "\n"
                                  "Reads MODEL (.onnx, or nnfx text IR .fx/.txt), checks it (lint and shape\n"
                                  "inference) and writes it as ONNX. Weights go to a side file OUT.onnx.data\n"
                                  "with --external-data, or by themselves when the model would pass 2 GB.\n"
                                  "A model whose name ends in .fx/.txt/.nnfx is written as text IR instead.\n"
                                  "The output is written to a temporary name and renamed; the input is never\n"
                                  "touched. The model records producer nnfx and metadata_props nnfx.version,\n"
                                  "nnfx.source_sha256 (of MODEL) and nnfx.steps.\n"
                                  "\n"
                                  "options:\n"
                                  "  -o, --output FILE  the file to write (required)\n"
                                  "  --external-data    put weights in a side file\n"
                                  "  --opset N          write ONNX opset N (13 to 21); an error names the node\n"
                                  "                     when a form needs a newer one. Default: the model's\n"
                                  "                     own (at least 13), raised only when a form needs it\n"
                                  "                     (a note on stderr says so)\n"
                                  "  -h, --help         this text\n"
                                  "\n"
                                  "examples:\n"
                                  "  nnfx export model.fx -o model.onnx\n"
                                  "  nnfx export big.onnx -o big_ext.onnx --external-data\n"
                                  "  nnfx export model.onnx -o model13.onnx --opset 13\n";

int cli_export(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(export_help, stdout);
        return CLI_EXIT_OK;
    }
    const char *model = NULL, *out = NULL;
    bool external = false;
    long opset = 0;
    cli_args a;
    cli_args_init(&a, "export", argc, argv);
    while (cli_args_more(&a)) {
        const char *v;
        if (cli_opt(&a, "--output", "-o", &v)) {
            out = v;
        } else if (cli_flag(&a, "--external-data", NULL)) {
            external = true;
        } else if (cli_opt(&a, "--opset", NULL, &v)) {
            if (!a.bad && !cli_parse_int(v, 1, 1000, &opset))
                return cli_usage_error("export", "--opset wants an ONNX opset number, not '%s'", v);
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
    bool weightless = false; /* a text IR without values may still be written as text IR */
    nnfx_graph *g = cli_load_model_shapes(model, &weightless, &err);
    if (!g) {
        cli_fail("export", model, &err);
        return CLI_EXIT_BAD_INPUT;
    }
    if (nnfx_graph_lint(g, &err) || nnfx_graph_infer_shapes(g, &err)) {
        nnfx_graph_free(g);
        cli_fail("export", model, &err);
        return CLI_EXIT_BAD_INPUT;
    }
    if (weightless && !cli_is_text_ir_path(out)) {
        char msg[sizeof err.msg];
        cli_weightless_message(msg, sizeof msg, model);
        cli_error("export", "%s", msg);
        nnfx_graph_free(g);
        return CLI_EXIT_BAD_INPUT;
    }
    cli_provenance prov;
    int rc = cli_provenance_begin(&prov, "export", model);
    prov.opset = opset;
    if (!rc) rc = cli_provenance_check_opset("export", g, &prov, false);
    if (rc) {
        nnfx_graph_free(g);
        return rc;
    }
    cli_provenance_use(&prov);
    nnfx_status st = weightless ? cli_save_model_weightless(g, out, &err) : cli_save_model(g, out, external, &err);
    cli_provenance_free(&prov);
    nnfx_graph_free(g);
    if (st) {
        cli_fail("export", out, &err);
        return CLI_EXIT_BAD_INPUT;
    }
    return CLI_EXIT_OK;
}
