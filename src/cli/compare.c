/* compare.c — `nnfx compare`: runs two models on the same inputs and says
 * whether their outputs agree. */
#include <stdlib.h>
#include <string.h>

#include "cli/validate.h"

static const char compare_help[] =
    "usage: nnfx compare A B [--input NAME=FILE]... [--random N] [--atol A] [--rtol R] [--json FILE]\n"
    "                    [--labels FILE.npy [--max-accuracy-drop PCT]]\n"
    "\n"
    "Runs models A and B (.onnx or text IR) on the same inputs (files, or N seeded\n"
    "random samples; default 4) and compares every output:\n"
    "|a - b| <= atol + rtol * |a|. When they disagree and the graphs correspond,\n"
    "names the first node of B whose value differs from A's node of that name.\n"
    "\n"
    "options:\n"
    "  --input NAME=FILE  an input (.npy/.pb) bound by name for both models\n"
    "  --random N         N seeded random samples (default 4)\n"
    "  --atol A           absolute tolerance (default 1e-4)\n"
    "  --rtol R           relative tolerance (default 1e-4)\n"
    "  --labels FILE.npy  class labels, one per row of the first output: top-1\n"
    "                     accuracy of A and B on --input (a labelled batch)\n"
    "  --max-accuracy-drop PCT\n"
    "                     fail (exit 1) when B's accuracy is more than PCT points\n"
    "                     below A's\n"
    "  --json FILE        write the result as JSON ('-': standard output)\n"
    "  -q, --quiet        no progress bar, no summary line\n"
    "  -h, --help         this text\n"
    "\n"
    "Exit status: 0 the outputs agree, 1 they do not, 2 usage error, 3 a model or\n"
    "input cannot be read or run.\n"
    "\n"
    "examples:\n"
    "  nnfx compare model.onnx optimized.onnx --random 16\n"
    "  nnfx compare a.onnx b.onnx --input x=x.npy --atol 1e-5 --json -\n"
    "  nnfx compare a.onnx b_int8.onnx --input x=x.npy --labels y.npy --max-accuracy-drop 0.5 --atol 1\n";

#define CMP_MAX_INPUTS 256

/* --json: the figures of the comparison (and the accuracies). */
static int compare_json(const char *json, const char *const files[2], const cli_compare_result *r, double atol,
                        double rtol, const cli_accuracy *acc, bool have_acc, double max_drop, nnfx_error *err) {
    sbuf b = {0};
    sb_printf(&b, "{\"a\": ");
    cli_json_str(&b, files[0]);
    sb_printf(&b, ", \"b\": ");
    cli_json_str(&b, files[1]);
    sb_printf(&b, ", \"samples\": %ld, \"runs\": %d, \"outputs\": %d, \"max_abs_error\": ", r->rows, r->samples,
              r->outputs);
    cli_json_num(&b, r->max_abs);
    sb_printf(&b, ", \"max_rel_error\": ");
    cli_json_num(&b, r->max_rel);
    sb_printf(&b, ", \"atol\": ");
    cli_json_num(&b, atol);
    sb_printf(&b, ", \"rtol\": ");
    cli_json_num(&b, rtol);
    sb_printf(&b, ", \"agree\": %s, \"detail\": ", r->passed ? "true" : "false");
    cli_json_str(&b, r->detail);
    sb_printf(&b, ", \"first_diverging_node\": ");
    if (r->diverging[0])
        cli_json_str(&b, r->diverging);
    else
        sb_printf(&b, "null");
    if (have_acc) {
        sb_printf(&b, ", \"accuracy\": {");
        cli_accuracy_json(&b, acc, max_drop);
        sb_printf(&b, "}");
    }
    sb_printf(&b, "}\n");
    char *text = sb_finish(&b);
    int rc = CLI_EXIT_OK;
    if (!text || cli_write_file(json, text, strlen(text), err)) {
        cli_fail("compare", json, err);
        rc = CLI_EXIT_BAD_INPUT;
    }
    free(text);
    return rc;
}

int cli_compare(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(compare_help, stdout);
        return CLI_EXIT_OK;
    }
    const char *files[2] = {NULL, NULL}, *json = NULL, *labels = NULL;
    double max_drop = -1;
    int nfiles = 0;
    char *inputs[CMP_MAX_INPUTS];
    cli_samples s = {0};
    s.files = inputs;
    double atol = 1e-4, rtol = 1e-4;
    bool quiet = false;
    cli_args a;
    cli_args_init(&a, "compare", argc, argv);
    while (cli_args_more(&a)) {
        const char *v;
        if (cli_opt(&a, "--input", "-i", &v)) {
            if (a.bad) break;
            if (s.nfiles == CMP_MAX_INPUTS) return cli_usage_error("compare", "too many --input options");
            inputs[s.nfiles++] = (char *)v;
        } else if (cli_opt(&a, "--random", NULL, &v)) {
            if (!a.bad && !cli_parse_int(v, 1, 1000000, &s.random))
                return cli_usage_error("compare", "--random wants a sample count from 1 to 1000000, not '%s'", v);
        } else if (cli_opt(&a, "--atol", NULL, &v)) {
            if (!a.bad && !cli_parse_nonneg_double(v, &atol))
                return cli_usage_error("compare", "--atol wants a number >= 0, not '%s'", v);
        } else if (cli_opt(&a, "--rtol", NULL, &v)) {
            if (!a.bad && !cli_parse_nonneg_double(v, &rtol))
                return cli_usage_error("compare", "--rtol wants a number >= 0, not '%s'", v);
        } else if (cli_opt(&a, "--json", NULL, &v)) {
            json = v;
        } else if (cli_opt(&a, "--labels", NULL, &v)) {
            labels = v;
        } else if (cli_opt(&a, "--max-accuracy-drop", NULL, &v)) {
            if (!a.bad && (!cli_parse_nonneg_double(v, &max_drop) || max_drop > 100))
                return cli_usage_error("compare", "--max-accuracy-drop wants percentage points from 0 to 100, not '%s'",
                                       v);
        } else if (cli_flag(&a, "--quiet", "-q")) {
            quiet = true;
        } else {
            const char *p = cli_positional(&a);
            if (!p) break;
            if (nfiles == 2) return cli_usage_error("compare", "two models only ('%s' is a third)", p);
            files[nfiles++] = p;
        }
    }
    if (a.bad) return CLI_EXIT_USAGE;
    if (nfiles < 2) return cli_usage_error("compare", "two models are needed");
    if (s.nfiles && s.random) return cli_usage_error("compare", "--input and --random exclude each other");
    if (!s.nfiles && !s.random) s.random = 4;
    if (labels && !s.nfiles) return cli_usage_error("compare", "--labels needs the labelled inputs: --input NAME=FILE");
    if (max_drop >= 0 && !labels) return cli_usage_error("compare", "--max-accuracy-drop needs --labels FILE.npy");

    nnfx_error err = {0};
    nnfx_graph *g[2] = {NULL, NULL};
    int rc = CLI_EXIT_OK;
    for (int i = 0; i < 2 && !rc; i++) {
        g[i] = cli_load_model(files[i], &err);
        if (!g[i] || nnfx_graph_lint(g[i], &err) || nnfx_graph_infer_shapes(g[i], &err)) {
            cli_fail("compare", files[i], &err);
            rc = CLI_EXIT_BAD_INPUT;
        }
    }
    cli_compare_result r;
    bool json_stdout = json && strcmp(json, "-") == 0;
    if (!rc) rc = cli_compare_graphs("compare", g[0], files[0], g[1], files[1], &s, atol, rtol, quiet, &r);
    if (!rc) {
        if (!r.passed) {
            if (r.diverging[0])
                cli_error("compare", "the outputs differ: %s; first diverging node: %s", r.detail, r.diverging);
            else
                cli_error("compare", "the outputs differ: %s", r.detail);
        }
        if (!quiet && !json_stdout)
            printf("%s vs %s: %s on %ld sample%s: every output within atol %g + rtol %g x |a| %s (max abs error "
                   "%.3g, max rel error %.3g)\n",
                   files[0], files[1], r.passed ? "agree" : "DIFFER", r.rows, r.rows == 1 ? "" : "s", atol, rtol,
                   r.passed ? "holds" : "fails", r.max_abs, r.max_rel);
        cli_accuracy acc = {0};
        bool have_acc = false, gate_failed = false;
        if (labels) {
            rc = cli_accuracy_graphs("compare", g[0], g[1], &s, labels, &acc);
            have_acc = !rc;
            gate_failed = have_acc && max_drop >= 0 && acc.drop > max_drop;
            if (gate_failed)
                cli_error("compare", "accuracy gate failed: top-1 %.2f%% -> %.2f%%, a drop of %.2f points (max %g)",
                          acc.acc_a, acc.acc_b, acc.drop, max_drop);
            if (have_acc && !quiet && !json_stdout)
                printf("top-1 accuracy on %ld labelled samples: %.2f%% (%s) vs %.2f%% (%s), a drop of %.2f points%s\n",
                       acc.samples, acc.acc_a, files[0], acc.acc_b, files[1], acc.drop,
                       max_drop < 0  ? ""
                       : gate_failed ? " (gate FAILED)"
                                     : " (gate ok)");
        }
        if (json && !rc) rc = compare_json(json, files, &r, atol, rtol, &acc, have_acc, max_drop, &err);
        if (!rc && (!r.passed || gate_failed)) rc = CLI_EXIT_CHECK;
    }
    nnfx_graph_free(g[0]);
    nnfx_graph_free(g[1]);
    return rc;
}
