/* compare.c — `nnfx compare`: runs two models on the same inputs and says
 * whether their outputs agree. */
#include <stdlib.h>
#include <string.h>

#include "cli/validate.h"

static const char compare_help[] =
    "usage: nnfx compare A B [--input NAME=FILE]... [--random N] [--atol A] [--rtol R] [--json FILE]\n"
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
    "  --json FILE        write the result as JSON ('-': standard output)\n"
    "  -q, --quiet        no progress bar, no summary line\n"
    "  -h, --help         this text\n"
    "\n"
    "Exit status: 0 the outputs agree, 1 they do not, 2 usage error, 3 a model or\n"
    "input cannot be read or run.\n"
    "\n"
    "examples:\n"
    "  nnfx compare model.onnx optimized.onnx --random 16\n"
    "  nnfx compare a.onnx b.onnx --input x=x.npy --atol 1e-5 --json -\n";

#define CMP_MAX_INPUTS 256

int cli_compare(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(compare_help, stdout);
        return CLI_EXIT_OK;
    }
    const char *files[2] = {NULL, NULL}, *json = NULL;
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

    nnfx_error err = {0};
    nnfx_graph *g[2] = {NULL, NULL};
    int rc = CLI_EXIT_OK;
    for (int i = 0; i < 2 && !rc; i++) {
        g[i] = cli_load_model(files[i], &err);
        if (!g[i] || nnfx_graph_lint(g[i], &err) || nnfx_graph_infer_shapes(g[i], &err)) {
            cli_fail("compare", files[i], &err);
            rc = CLI_EXIT_BAD_INPUT;
        }
        if (!rc) rc = cli_require_weights("compare", files[i], g[i]);
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
            printf("%s vs %s: %d sample%s, max abs error %.3g, max rel error %.3g (atol %g, rtol %g): %s\n", files[0],
                   files[1], r.samples, r.samples == 1 ? "" : "s", r.max_abs, r.max_rel, atol, rtol,
                   r.passed ? "agree" : "DIFFER");
        if (json) {
            sbuf b = {0};
            sb_printf(&b, "{\"a\": ");
            cli_json_str(&b, files[0]);
            sb_printf(&b, ", \"b\": ");
            cli_json_str(&b, files[1]);
            sb_printf(&b, ", \"samples\": %d, \"outputs\": %d, \"max_abs_error\": ", r.samples, r.outputs);
            cli_json_num(&b, r.max_abs);
            sb_printf(&b, ", \"max_rel_error\": ");
            cli_json_num(&b, r.max_rel);
            sb_printf(&b, ", \"atol\": ");
            cli_json_num(&b, atol);
            sb_printf(&b, ", \"rtol\": ");
            cli_json_num(&b, rtol);
            sb_printf(&b, ", \"agree\": %s, \"detail\": ", r.passed ? "true" : "false");
            cli_json_str(&b, r.detail);
            sb_printf(&b, ", \"first_diverging_node\": ");
            if (r.diverging[0])
                cli_json_str(&b, r.diverging);
            else
                sb_printf(&b, "null");
            sb_printf(&b, "}\n");
            char *text = sb_finish(&b);
            if (!text || cli_write_file(json, text, strlen(text), &err)) {
                cli_fail("compare", json, &err);
                rc = CLI_EXIT_BAD_INPUT;
            }
            free(text);
        }
        if (!rc && !r.passed) rc = CLI_EXIT_CHECK;
    }
    nnfx_graph_free(g[0]);
    nnfx_graph_free(g[1]);
    return rc;
}
