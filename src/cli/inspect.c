/* inspect.c — `nnfx inspect`: the graph as FX text, a table, JSON, DOT or
 * SVG. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/graph_json.h"
#include "cli/graphviz.h"

static const char inspect_help[] = "usage: nnfx inspect MODEL [--format text|tabular|json|dot|svg] [-o FILE]\n"
                                   "\n"
                                   "Prints MODEL's graph (.onnx, or nnfx text IR .fx/.txt):\n"
                                   "  text     FX's printed form, one node a line, with shapes (default;\n"
                                   "           parses back with the text IR reader)\n"
                                   "  tabular  FX's print_tabular table (opcode, name, target, args, kwargs)\n"
                                   "  json     nodes, arguments, attributes, shapes, users, parameters\n"
                                   "  dot      Graphviz DOT\n"
                                   "  svg      a picture, rendered by Graphviz's 'dot' (must be on PATH)\n"
                                   "\n"
                                   "options:\n"
                                   "  -f, --format F     output form (above)\n"
                                   "  -o, --output FILE  write to FILE (temporary name, then renamed) instead of\n"
                                   "                     standard output\n"
                                   "  -h, --help         this text\n"
                                   "\n"
                                   "examples:\n"
                                   "  nnfx inspect model.onnx\n"
                                   "  nnfx inspect model.onnx --format tabular\n"
                                   "  nnfx inspect model.onnx --format svg -o model.svg\n";

int cli_inspect(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(inspect_help, stdout);
        return CLI_EXIT_OK;
    }
    const char *model = NULL, *format = "text", *out = "-";
    cli_args a;
    cli_args_init(&a, "inspect", argc, argv);
    while (cli_args_more(&a)) {
        const char *v;
        if (cli_opt(&a, "--format", "-f", &v)) {
            format = v;
        } else if (cli_opt(&a, "--output", "-o", &v)) {
            out = v;
        } else {
            const char *p = cli_positional(&a);
            if (!p) break;
            if (model) return cli_usage_error("inspect", "one model at a time ('%s' and '%s' given)", model, p);
            model = p;
        }
    }
    if (a.bad) return CLI_EXIT_USAGE;
    if (!model) return cli_usage_error("inspect", "no model given");
    static const char *const formats[] = {"text", "tabular", "json", "dot", "svg"};
    int fmt = -1;
    for (int i = 0; i < 5; i++)
        if (strcmp(format, formats[i]) == 0) fmt = i;
    if (fmt < 0) return cli_usage_error("inspect", "unknown format '%s' (text, tabular, json, dot or svg)", format);
    if (strcmp(out, "-") != 0 && cli_same_file(out, model))
        return cli_usage_error("inspect", "%s: -o would overwrite the model", out);

    nnfx_error err = {0};
    nnfx_graph *g = cli_load_model_shapes(model, NULL, &err);
    if (!g) {
        cli_fail("inspect", model, &err);
        return CLI_EXIT_BAD_INPUT;
    }
    /* Shapes where they can be inferred; a failure still prints the graph. */
    nnfx_error ierr = {0};
    (void)nnfx_graph_infer_shapes(g, &ierr);
    char *text = NULL;
    switch (fmt) {
    case 0: text = nnfx_graph_to_text(g); break;
    case 1: text = nnfx_graph_tabular(g); break;
    case 2: text = cli_graph_to_json(g); break;
    case 3: text = nnfx_graph_to_dot(g); break;
    default: {
        char *dot = nnfx_graph_to_dot(g);
        if (dot) {
            text = cli_dot_to_svg(dot, &err);
            free(dot);
            if (!text) {
                nnfx_graph_free(g);
                cli_fail("inspect", NULL, &err);
                return CLI_EXIT_BAD_INPUT;
            }
        }
    }
    }
    nnfx_graph_free(g);
    if (!text) {
        cli_error("inspect", "out of memory formatting the graph");
        return CLI_EXIT_BAD_INPUT;
    }
    nnfx_status st = cli_write_file(out, text, strlen(text), &err);
    free(text);
    if (st) {
        cli_fail("inspect", out, &err);
        return CLI_EXIT_BAD_INPUT;
    }
    return CLI_EXIT_OK;
}
