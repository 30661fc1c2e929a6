/* analyze.c — `nnfx analyze`: a summary on the terminal, and JSON and HTML
 * reports of a model's cost, memory and findings. */
#include <stdlib.h>
#include <string.h>

#include "cli/fleet.h"
#include "cli/analysis.h"

/* analyze reads a model with ops nnfx lacks and reports them. */
static const nnfx_onnx_load_options keep_unknown = {.keep_unknown_ops = true};

static const char analyze_help[] =
    "usage: nnfx analyze MODEL [--json FILE] [--html FILE] [--input-shape NAME=1x3x224x224]...\n"
    "                    [--fail-on KIND,...] [--compare AFTER [--input NAME=FILE --labels FILE.npy]]\n"
    "\n"
    "Reports what MODEL (.onnx, or nnfx text IR .fx/.txt) costs and where it wastes:\n"
    "ops, parameters, MACs (Conv, ConvTranspose, Gemm, MatMul, Einsum, RNN/GRU/LSTM),\n"
    "FLOPs, peak activation memory, the costliest nodes, and findings with\n"
    "suggestions: foldable_batch_norm, unfoldable_batch_norm (a BatchNormalization\n"
    "after a Conv/Gemm whose output has other users: fuse-conv-bn leaves it),\n"
    "dead_node, unused_input, unused_initializer, noop, constant_subgraph,\n"
    "unsupported_op.\n"
    "\n"
    "options:\n"
    "  --json FILE        write the report as JSON ('-': standard output, and no\n"
    "                     terminal summary). Keys: nodes, params, param_bytes, macs,\n"
    "                     flops, ops, inputs, outputs, per_node,\n"
    "                     peak_activation_bytes, findings\n"
    "                     A quantized (QDQ) model adds int8 vs float Conv/Gemm/MatMul\n"
    "                     layers and integer weight bytes (key quantization, also in\n"
    "                     the summary) and the findings foldable_qdq (a\n"
    "                     DequantizeLinear -> QuantizeLinear pair with equal\n"
    "                     parameters) and float_island (float ops between a\n"
    "                     DequantizeLinear and a QuantizeLinear); on a CPU without\n"
    "                     an int8 dot product (VNNI) also int8_no_vnni (int8 may be\n"
    "                     slower than float32 there; about the host, so --fail-on\n"
    "                     all leaves it out: name it to gate on it)\n"
    "  --html FILE        write a self-contained HTML page: the graph drawn (grouped\n"
    "                     by module, coloured by op, shaded by MACs; click for\n"
    "                     details), findings, sortable cost tables\n"
    "  --input-shape NAME=DIMS\n"
    "                     fix the shape of an input with symbolic dims (1x3x224x224)\n"
    "  --fail-on KIND,... exit 1 when findings of these kinds remain (a CI gate), e.g.\n"
    "                     --fail-on foldable_batch_norm,dead_node; 'all' for every kind.\n"
    "                     The reports are written first\n"
    "  --compare AFTER    before/after mode: MODEL is the before, AFTER the after\n"
    "                     model; prints a verdict (improvement, regression, no\n"
    "                     change: findings, ops, parameters, MACs, FLOPs, peak\n"
    "                     memory, accuracy), the HTML page leads with the comparison\n"
    "                     and shows AFTER, the JSON is {before, after, verdict}, and\n"
    "                     --fail-on looks at AFTER ('regression' fails a regression)\n"
    "  --input NAME=FILE, --labels FILE.npy [--max-accuracy-drop PCT]\n"
    "                     with --compare: top-1 accuracy of both on labelled data\n"
    "  --sparsity         also count each Conv/Gemm/MatMul layer's zero weights\n"
    "                     (reads every weight; without it analyze reads none)\n"
    "  -q, --quiet        no terminal summary\n"
    "  -h, --help         this text\n"
    "list mode (a fleet of models):\n"
    "  --list LIST        run on every model of LIST (one path a line, # comments)\n"
    "                     with its --json in -o DIR (DIR/NAME.json), and write one summary of\n"
    "                     all (--report R.json: optimize --batch's shape, each model's\n"
    "                     entry with its \"command\", exit_code and error; 'nnfx report\n"
    "                     merge' reads it). Exit status: the worst model's\n"
    "  --shard K/N        with --list: only the models of shard K of N, split as\n"
    "                     'optimize --shard' splits (by path; each model in one shard),\n"
    "                     so N machines may share one -o folder\n"
    "\n"
    "An op nnfx does not implement is an unsupported_op finding (the rest of the\n"
    "model is still analysed; costs after it may be unknown), not an error.\n"
    "\n"
    "Exit status: 0 when the model was analysed (findings do not fail it, unless\n"
    "--fail-on names their kind: then 1), 2 for a usage error, 3 when the model\n"
    "cannot be read or its shapes do not fit.\n"
    "\n"
    "examples:\n"
    "  nnfx analyze resnet18.onnx\n"
    "  nnfx analyze model_int8.onnx --json - | jq .quantization\n"
    "  nnfx analyze model.onnx --json - | jq .macs\n"
    "  nnfx analyze opt.onnx --fail-on foldable_batch_norm,dead_node,noop --json r.json\n"
    "  nnfx analyze model.onnx --compare opt.onnx --input x=x.npy --labels y.npy --html before_after.html\n"
    "  nnfx analyze model.onnx --input-shape input=8x3x224x224 --json r.json --html r.html\n";

#define AN_MAX_SHAPES 64

/* Finding kinds `analyze` reports (analysis.c), for --fail-on. */
static const char *const finding_kinds[] =
    {
        "foldable_batch_norm", "dead_node",      "unused_input", "unused_initializer", "noop",
        "constant_subgraph",   "unsupported_op", "foldable_qdq", "float_island",       "unfoldable_batch_norm",
        "int8_no_vnni" /* about the host: last, and left out of 'all' */};
#define N_KINDS (int)(sizeof finding_kinds / sizeof finding_kinds[0])

/* Parses --fail-on's comma list into want[] (per finding_kinds); usage
 * error text in msg when a kind is unknown. */
static bool parse_fail_on(const char *list, bool want[N_KINDS + 1], char *msg, size_t cap) {
    const char *p = list;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        bool found = false;
        if (n == 10 && strncmp(p, "regression", 10) == 0) {
            want[N_KINDS] = true;
            found = true;
        }
        if (n == 3 && strncmp(p, "all", 3) == 0) {
            for (int k = 0; k < N_KINDS; k++)
                want[k] = strcmp(finding_kinds[k], "int8_no_vnni") != 0;
            found = true;
        }
        for (int k = 0; k < N_KINDS && !found; k++)
            if (strlen(finding_kinds[k]) == n && strncmp(p, finding_kinds[k], n) == 0) found = want[k] = true;
        if (!found && n) {
            int w = snprintf(msg, cap, "--fail-on: unknown finding kind '%.*s' (kinds: all, regression", (int)n, p);
            for (int k = 0; k < N_KINDS && w > 0 && (size_t)w < cap; k++)
                w += snprintf(msg + w, cap - (size_t)w, ", %s", finding_kinds[k]);
            if (w > 0 && (size_t)w < cap) snprintf(msg + w, cap - (size_t)w, ")");
            return false;
        }
        p += n;
        if (*p == ',') p++;
    }
    return true;
}

/* The options of one `nnfx analyze` run. */
typedef struct an_opts {
    const char *model, *json, *html, *fail_on, *after, *labels;
    bool want_kind[N_KINDS + 1]; /* [N_KINDS]: 'regression' */
    char *inputs[AN_MAX_SHAPES];
    int ninputs;
    double max_drop;
    const char *shapes[AN_MAX_SHAPES];
    int nshapes;
    bool quiet, sparsity;
} an_opts;

/* What a run found: the model's analysis and, with --compare, the other
 * model's, the accuracy of both and the verdict. */
typedef struct an_run {
    nnfx_graph *g, *gb;
    cli_analysis an, anb;
    bool have_b, have_acc;
    cli_accuracy acc;
    cli_verdict verdict;
} an_run;

/* Reads the command line into o; CLI_EXIT_OK or a usage error's status. */
static int an_parse(an_opts *o, int argc, char **argv) {
    o->max_drop = -1;
    cli_args a;
    cli_args_init(&a, "analyze", argc, argv);
    while (cli_args_more(&a)) {
        const char *v;
        if (cli_opt(&a, "--json", NULL, &v)) {
            o->json = v;
        } else if (cli_opt(&a, "--html", NULL, &v)) {
            o->html = v;
        } else if (cli_opt(&a, "--input-shape", NULL, &v)) {
            if (o->nshapes == AN_MAX_SHAPES) return cli_usage_error("analyze", "too many --input-shape options");
            o->shapes[o->nshapes++] = v;
        } else if (cli_opt(&a, "--fail-on", NULL, &v)) {
            char msg[512];
            if (!a.bad && !parse_fail_on(v, o->want_kind, msg, sizeof msg))
                return cli_usage_error("analyze", "%s", msg);
            o->fail_on = v;
        } else if (cli_opt(&a, "--compare", NULL, &v)) {
            o->after = v;
        } else if (cli_opt(&a, "--labels", NULL, &v)) {
            o->labels = v;
        } else if (cli_opt(&a, "--input", "-i", &v)) {
            if (a.bad) break;
            if (o->ninputs == AN_MAX_SHAPES) return cli_usage_error("analyze", "too many --input options");
            o->inputs[o->ninputs++] = (char *)v;
        } else if (cli_opt(&a, "--max-accuracy-drop", NULL, &v)) {
            if (!a.bad && (!cli_parse_nonneg_double(v, &o->max_drop) || o->max_drop > 100))
                return cli_usage_error("analyze", "--max-accuracy-drop wants percentage points from 0 to 100, not '%s'",
                                       v);
        } else if (cli_flag(&a, "--quiet", "-q")) {
            o->quiet = true;
        } else if (cli_flag(&a, "--sparsity", NULL)) {
            o->sparsity = true;
        } else {
            const char *p = cli_positional(&a);
            if (!p) break;
            if (o->model) return cli_usage_error("analyze", "one model at a time ('%s' and '%s' given)", o->model, p);
            o->model = p;
        }
    }
    if (a.bad) return CLI_EXIT_USAGE;
    if (!o->model) return cli_usage_error("analyze", "no model given");
    if ((o->labels || o->ninputs || o->max_drop >= 0) && !o->after)
        return cli_usage_error("analyze", "--input, --labels and --max-accuracy-drop go with --compare AFTER");
    if (o->labels && !o->ninputs)
        return cli_usage_error("analyze", "--labels needs the labelled inputs: --input NAME=FILE");
    if (o->max_drop >= 0 && !o->labels)
        return cli_usage_error("analyze", "--max-accuracy-drop needs --labels FILE.npy");
    if (o->want_kind[N_KINDS] && !o->after)
        return cli_usage_error("analyze", "--fail-on regression needs --compare AFTER");
    return CLI_EXIT_OK;
}

/* The output rule: the model, the --compare model (their values or
 * external data), the --input files and the labels against --json and
 * --html. g, gb: the loaded models, or NULL before loading. */
static int an_check_paths(const an_opts *o, const nnfx_graph *g, const nnfx_graph *gb) {
    cli_io io;
    cli_io_init(&io, "analyze");
    cli_io_model_in(&io, "the model", o->model);
    if (g) cli_io_graph_in(&io, "the model", g);
    cli_io_model_in(&io, "--compare", o->after);
    if (gb) cli_io_graph_in(&io, "--compare", gb);
    for (int i = 0; i < o->ninputs; i++)
        cli_io_binding_in(&io, "--input", o->inputs[i]);
    cli_io_in(&io, "--labels", o->labels);
    cli_io_out(&io, "--json", o->json);
    cli_io_out(&io, "--html", o->html);
    int rc = cli_io_check(&io);
    cli_io_free(&io);
    return rc;
}

/* --input-shape: pins the named inputs of g to the given shapes. */
static int an_apply_shapes(const an_opts *o, nnfx_graph *g) {
    int rc = CLI_EXIT_OK;
    for (int i = 0; i < o->nshapes; i++) {
        char *name = NULL;
        const char *dims = NULL;
        nnfx_shape shp;
        if (!cli_split_binding(o->shapes[i], &name, &dims) || !cli_parse_shape(dims, &shp)) {
            free(name);
            rc = cli_usage_error("analyze", "--input-shape '%s': write NAME=1x3x224x224", o->shapes[i]);
            return rc;
        }
        nnfx_node *p = NULL;
        for (int k = 0; k < nnfx_graph_num_inputs(g); k++)
            if (strcmp(nnfx_node_name(nnfx_graph_input(g, k)), name) == 0) p = nnfx_graph_input(g, k);
        if (!p) {
            rc = cli_usage_error("analyze", "--input-shape: the model has no input '%s'", name);
            free(name);
            return rc;
        }
        free(name);
        nnfx_meta *m = nnfx_node_meta(p, 0);
        nnfx_dtype dt = m->dtype == NNFX_DTYPE_UNDEFINED ? NNFX_F32 : m->dtype;
        if (m->rank >= 0 && m->rank != shp.rank) {
            char want[256];
            rc = CLI_EXIT_BAD_INPUT;
            cli_error("analyze", "%s: --input-shape %s has rank %d, input '%s' is %s", o->model, o->shapes[i], shp.rank,
                      nnfx_node_name(p), nnfx_meta_str(m, want, sizeof want));
            return rc;
        }
        for (int d = 0; m->rank >= 0 && d < m->rank; d++)
            if (m->dims[d].value >= 0 && m->dims[d].value != shp.dims[d]) {
                char want[256];
                cli_error("analyze", "%s: --input-shape %s disagrees with input '%s' (%s)", o->model, o->shapes[i],
                          nnfx_node_name(p), nnfx_meta_str(m, want, sizeof want));
                rc = CLI_EXIT_BAD_INPUT;
                return rc;
            }
        nnfx_meta_set_shape(m, dt, shp.rank, shp.dims);
    }
    return rc;
}

/* --compare AFTER: analyses the other model, compares accuracies on
 * --labels, and gives the verdict. */
static int an_compare(an_opts *o, an_run *r, nnfx_error *err) {
    int rc = CLI_EXIT_OK;
    r->gb = cli_load_model_opts(o->after, !(o->sparsity || o->labels), &keep_unknown, err);
    if (!r->gb || nnfx_graph_lint(r->gb, err) || nnfx_graph_infer_shapes(r->gb, err) ||
        cli_analyze_graph(r->gb, o->after, &r->anb, err)) {
        rc = cli_fail("analyze", o->after, err);
        if (rc != CLI_EXIT_USAGE) rc = CLI_EXIT_BAD_INPUT;
        nnfx_graph_free(r->gb);
        r->gb = NULL;
        return rc;
    }
    r->have_b = true;
    r->anb.sparsity = o->sparsity;
    if (o->labels) {
        cli_samples s = {0};
        s.nfiles = o->ninputs;
        s.files = o->inputs;
        rc = cli_accuracy_graphs("analyze", r->g, r->gb, &s, o->labels, &r->acc);
        r->have_acc = !rc;
    }
    cli_analysis_verdict(&r->an, &r->anb, r->have_acc ? &r->acc : NULL, o->max_drop, &r->verdict);
    return rc;
}

/* The text summary on standard output (unless a report goes there). */
static void an_summary(const an_opts *o, const an_run *r) {
    bool json_stdout = o->json && strcmp(o->json, "-") == 0;
    bool html_stdout = o->html && strcmp(o->html, "-") == 0;
    if (!o->quiet && !json_stdout && !html_stdout) {
        char *s = cli_analysis_summary(r->have_b ? &r->anb : &r->an, r->have_b ? o->after : o->model);
        if (s) fputs(s, stdout);
        free(s);
        if (r->have_b)
            printf("\n%s -> %s: %s %s\n", o->model, o->after,
                   r->verdict.worse    ? "REGRESSION:"
                   : r->verdict.better ? "improvement:"
                                       : "no change:",
                   r->verdict.text);
    }
}

/* Writes report s (NULL: out of memory) to path and frees it. */
static int write_report(const char *path, char *s, nnfx_error *err) {
    int rc = CLI_EXIT_OK;
    if (cli_write_text(path, s, err)) {
        rc = CLI_EXIT_BAD_INPUT;
        cli_fail("analyze", path, err);
    }
    free(s);
    return rc;
}

/* --json: the analysis, or before/after/verdict with --compare. */
static int an_write_json(const an_opts *o, const an_run *r, nnfx_error *err) {
    char *s = cli_analysis_json(&r->an, o->model);
    if (s && r->have_b) {
        char *sb = cli_analysis_json(&r->anb, o->after);
        sbuf j = {0};
        sb_printf(&j, "{\"before\": %s, \"after\": %s, \"verdict\": {\"result\": \"%s\", \"detail\": ", s,
                  sb ? sb : "null",
                  r->verdict.worse    ? "regression"
                  : r->verdict.better ? "improvement"
                                      : "no change");
        cli_json_str(&j, r->verdict.text);
        if (r->have_acc) {
            sb_printf(&j, ", \"accuracy\": {");
            cli_accuracy_json(&j, &r->acc, o->max_drop);
            sb_printf(&j, "}");
        }
        sb_printf(&j, "}}\n");
        free(s);
        free(sb);
        s = sb_finish(&j);
    }
    return write_report(o->json, s, err);
}

/* --html: the page, with the graph drawn by its own script. */
static int an_write_html(const an_opts *o, const an_run *r, nnfx_error *err) {
    cli_compare_view cv = {&r->an, &r->anb, o->model, o->after, &r->verdict, r->have_acc ? &r->acc : NULL};
    char *s = r->have_b ? cli_analysis_html_compare(&cv) : cli_analysis_html(&r->an, o->model);
    return write_report(o->html, s, err);
}

/* --fail-on: CLI_EXIT_CHECK when a finding of the named kinds (or, with
 * 'regression', a regression) remains. */
static int an_gate(const an_opts *o, const an_run *r) {
    int rc = CLI_EXIT_OK;
    sbuf b = {0};
    int hits = 0;
    const cli_analysis *gated = r->have_b ? &r->anb : &r->an;
    for (int i = 0; i < gated->nfindings; i++) {
        const cli_finding *f = &gated->findings[i];
        bool want = false;
        for (int k = 0; k < N_KINDS && !want; k++)
            want = o->want_kind[k] && strcmp(f->kind, finding_kinds[k]) == 0;
        if (!want) continue;
        sb_printf(&b, "%s%s (%s)", hits++ ? ", " : "", f->kind, f->nnodes ? f->nodes[0] : "");
    }
    char *list = sb_finish(&b);
    if (hits) {
        cli_error("analyze", "%s: %d finding%s of the kinds in --fail-on remain: %s", r->have_b ? o->after : o->model,
                  hits, hits == 1 ? "" : "s", list ? list : "");
        rc = CLI_EXIT_CHECK;
    }
    free(list);
    if (r->have_b && o->want_kind[N_KINDS] && r->verdict.worse) {
        cli_error("analyze", "%s -> %s: a regression (--fail-on regression): %s", o->model, o->after, r->verdict.text);
        rc = CLI_EXIT_CHECK;
    }
    return rc;
}

/* The command on one model (argv as given). */
static int analyze_one(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(analyze_help, stdout);
        return CLI_EXIT_OK;
    }
    an_opts opts = {0}, *o = &opts;
    int rc = an_parse(o, argc, argv);
    if (rc || (rc = an_check_paths(o, NULL, NULL))) return rc;
    nnfx_error err = {0};
    an_run run = {0}, *r = &run;
    /* ops nnfx lacks become unsupported_op findings; --sparsity and --labels
     * read the weights, the rest only shapes */
    r->g = cli_load_model_opts(o->model, !(o->sparsity || o->labels), &keep_unknown, &err);
    if (!r->g) {
        cli_fail("analyze", o->model, &err);
        return CLI_EXIT_BAD_INPUT;
    }
    if ((rc = an_apply_shapes(o, r->g))) goto done;
    if (nnfx_graph_lint(r->g, &err) || nnfx_graph_infer_shapes(r->g, &err)) {
        rc = cli_fail("analyze", o->model, &err);
        if (rc != CLI_EXIT_USAGE) rc = CLI_EXIT_BAD_INPUT;
        goto done;
    }
    if (cli_analyze_graph(r->g, o->model, &r->an, &err)) {
        rc = cli_fail("analyze", o->model, &err);
        goto done;
    }
    r->an.sparsity = o->sparsity;
    if (o->after && (rc = an_compare(o, r, &err)) && !r->have_b) {
        cli_analysis_free(&r->an);
        goto done;
    }
    an_summary(o, r);
    int prc = an_check_paths(o, r->g, r->have_b ? r->gb : NULL); /* and the files their weights came from */
    if (prc) rc = prc;
    cli_out_begin(); /* --json and --html are renamed into place together */
    if (o->json && !prc) {
        int jrc = an_write_json(o, r, &err);
        if (jrc) rc = jrc;
    }
    if (o->html && !rc) rc = an_write_html(o, r, &err);
    rc = cli_out_end("analyze", rc);
    if (o->fail_on && !rc) rc = an_gate(o, r);
    cli_analysis_free(&r->an);
    if (r->have_b) {
        cli_analysis_free(&r->anb);
        nnfx_graph_free(r->gb);
    }
done:
    nnfx_graph_free(r->g);
    return rc;
}

static const cli_fleet_cmd analyze_list = {"analyze", analyze_one, "--json", ".json", NULL, "-q", true};

int cli_analyze(int argc, char **argv) {
    if (!cli_wants_help(argc, argv) && cli_fleet_wanted(argc, argv)) return cli_fleet_run(&analyze_list, argc, argv);
    return analyze_one(argc, argv);
}
