/* analyze.c — `nnfx analyze`: a summary on the terminal, and JSON and HTML
 * reports of a model's cost, memory and findings. */
#include <stdlib.h>
#include <string.h>

#include "cli/analysis.h"
#include "cli/graphviz.h"

static const char analyze_help[] =
    "usage: nnfx analyze MODEL [--json FILE] [--html FILE] [--input-shape NAME=1x3x224x224]...\n"
    "\n"
    "Reports what MODEL (.onnx, or nnfx text IR .fx/.txt) costs and where it wastes:\n"
    "ops, parameters, MACs (Conv, ConvTranspose, Gemm, MatMul, Einsum, RNN/GRU/LSTM),\n"
    "FLOPs, peak activation memory, the costliest nodes, and findings with\n"
    "suggestions: foldable_batch_norm, dead_node, unused_input, unused_initializer,\n"
    "noop, constant_subgraph, unsupported_op.\n"
    "\n"
    "options:\n"
    "  --json FILE        write the report as JSON ('-': standard output, and no\n"
    "                     terminal summary). Keys: nodes, params, param_bytes, macs,\n"
    "                     flops, ops, inputs, outputs, per_node,\n"
    "                     peak_activation_bytes, findings\n"
    "  --html FILE        write a self-contained HTML page (sortable tables, findings,\n"
    "                     the graph as SVG drawn by Graphviz's 'dot' when installed)\n"
    "  --input-shape NAME=DIMS\n"
    "                     fix the shape of an input with symbolic dims (1x3x224x224)\n"
    "  -q, --quiet        no terminal summary\n"
    "  -h, --help         this text\n"
    "\n"
    "Exit status: 0 when the model was analysed (findings do not fail it),\n"
    "2 for a usage error, 3 when the model cannot be read or its shapes do not fit.\n"
    "\n"
    "examples:\n"
    "  nnfx analyze resnet18.onnx\n"
    "  nnfx analyze model.onnx --json - | jq .macs\n"
    "  nnfx analyze model.onnx --input-shape input=8x3x224x224 --json r.json --html r.html\n";

#define AN_MAX_SHAPES 64

int cli_analyze(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(analyze_help, stdout);
        return CLI_EXIT_OK;
    }
    const char *model = NULL, *json = NULL, *html = NULL;
    const char *shapes[AN_MAX_SHAPES];
    int nshapes = 0;
    bool quiet = false;
    cli_args a;
    cli_args_init(&a, "analyze", argc, argv);
    while (cli_args_more(&a)) {
        const char *v;
        if (cli_opt(&a, "--json", NULL, &v)) {
            json = v;
        } else if (cli_opt(&a, "--html", NULL, &v)) {
            html = v;
        } else if (cli_opt(&a, "--input-shape", NULL, &v)) {
            if (nshapes == AN_MAX_SHAPES) return cli_usage_error("analyze", "too many --input-shape options");
            shapes[nshapes++] = v;
        } else if (cli_flag(&a, "--quiet", "-q")) {
            quiet = true;
        } else {
            const char *p = cli_positional(&a);
            if (!p) break;
            if (model) return cli_usage_error("analyze", "one model at a time ('%s' and '%s' given)", model, p);
            model = p;
        }
    }
    if (a.bad) return CLI_EXIT_USAGE;
    if (!model) return cli_usage_error("analyze", "no model given");
    if (html && strcmp(html, "-") == 0 && json && strcmp(json, "-") == 0)
        return cli_usage_error("analyze", "--json - and --html - cannot share standard output");
    if ((json && cli_same_file(json, model)) || (html && cli_same_file(html, model)))
        return cli_usage_error("analyze", "a report would overwrite the model");

    nnfx_error err = {0};
    nnfx_graph *g = cli_load_model(model, &err);
    if (!g) {
        cli_fail("analyze", model, &err);
        return CLI_EXIT_BAD_INPUT;
    }
    int rc = CLI_EXIT_OK;
    for (int i = 0; i < nshapes; i++) {
        char *name = NULL;
        const char *dims = NULL;
        nnfx_shape shp;
        if (!cli_split_binding(shapes[i], &name, &dims) || !cli_parse_shape(dims, &shp)) {
            free(name);
            rc = cli_usage_error("analyze", "--input-shape '%s': write NAME=1x3x224x224", shapes[i]);
            goto done;
        }
        nnfx_node *p = NULL;
        for (int k = 0; k < nnfx_graph_num_inputs(g); k++)
            if (strcmp(nnfx_node_name(nnfx_graph_input(g, k)), name) == 0) p = nnfx_graph_input(g, k);
        if (!p) {
            rc = cli_usage_error("analyze", "--input-shape: the model has no input '%s'", name);
            free(name);
            goto done;
        }
        free(name);
        nnfx_meta *m = nnfx_node_meta(p, 0);
        nnfx_dtype dt = m->dtype == NNFX_DTYPE_UNDEFINED ? NNFX_F32 : m->dtype;
        if (m->rank >= 0 && m->rank != shp.rank) {
            char want[256];
            rc = CLI_EXIT_BAD_INPUT;
            cli_error("analyze", "%s: --input-shape %s has rank %d, input '%s' is %s", model, shapes[i], shp.rank,
                      nnfx_node_name(p), nnfx_meta_str(m, want, sizeof want));
            goto done;
        }
        for (int d = 0; m->rank >= 0 && d < m->rank; d++)
            if (m->dims[d].value >= 0 && m->dims[d].value != shp.dims[d]) {
                char want[256];
                cli_error("analyze", "%s: --input-shape %s disagrees with input '%s' (%s)", model, shapes[i],
                          nnfx_node_name(p), nnfx_meta_str(m, want, sizeof want));
                rc = CLI_EXIT_BAD_INPUT;
                goto done;
            }
        nnfx_meta_set_shape(m, dt, shp.rank, shp.dims);
    }
    if (nnfx_graph_lint(g, &err) || nnfx_graph_infer_shapes(g, &err)) {
        rc = cli_fail("analyze", model, &err);
        if (rc != CLI_EXIT_USAGE) rc = CLI_EXIT_BAD_INPUT;
        goto done;
    }
    cli_analysis an;
    if (cli_analyze_graph(g, model, &an, &err)) {
        rc = cli_fail("analyze", model, &err);
        goto done;
    }
    bool json_stdout = json && strcmp(json, "-") == 0;
    bool html_stdout = html && strcmp(html, "-") == 0;
    if (!quiet && !json_stdout && !html_stdout) {
        char *s = cli_analysis_summary(&an, model);
        if (s) fputs(s, stdout);
        free(s);
    }
    if (json) {
        char *s = cli_analysis_json(&an, model);
        if (!s || cli_write_file(json, s, strlen(s), &err)) {
            if (!s) nnfx_error_set(&err, NNFX_ERR_NOMEM, "out of memory");
            rc = CLI_EXIT_BAD_INPUT;
            cli_fail("analyze", json, &err);
        }
        free(s);
    }
    if (html && !rc) {
        char *dot = nnfx_graph_to_dot(g), *svg = NULL;
        nnfx_error derr = {0};
        if (dot) svg = cli_dot_to_svg(dot, &derr);
        free(dot);
        if (!svg && !quiet) cli_error("analyze", "warning: the HTML page has no graph picture: %s", derr.msg);
        char *s = cli_analysis_html(&an, model, svg, svg ? NULL : derr.msg);
        free(svg);
        if (!s || cli_write_file(html, s, strlen(s), &err)) {
            if (!s) nnfx_error_set(&err, NNFX_ERR_NOMEM, "out of memory");
            rc = CLI_EXIT_BAD_INPUT;
            cli_fail("analyze", html, &err);
        }
        free(s);
    }
    cli_analysis_free(&an);
done:
    nnfx_graph_free(g);
    return rc;
}
