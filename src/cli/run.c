/* run.c — `nnfx run`: runs a model on tensor files, writes its outputs as
 * .npy, or benchmarks it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/report_graph.h"

static const char run_help[] = "usage: nnfx run MODEL --input NAME=FILE ... [-o OUT.npy | --output-dir DIR]\n"
                               "                [--threads T] [--bench N] [--profile] [--profile-html FILE]\n"
                               "                [--json] [--quiet]\n"
                               "\n"
                               "Runs MODEL (.onnx, or nnfx text IR .fx/.txt) on the CPU. Inputs are NumPy .npy\n"
                               "or ONNX TensorProto .pb files, one per model input; a model with one input also\n"
                               "takes --input FILE. Inputs whose dtype or shape disagree with the model are an\n"
                               "error (exit 3); a missing input is a usage error (exit 2).\n"
                               "\n"
                               "options:\n"
                               "  --input NAME=FILE  bind a model input (repeat for each input)\n"
                               "  -o, --output FILE  write the first output as .npy\n"
                               "  --output-dir DIR   write every output as DIR/<output name>.npy\n"
                               "  --threads T        kernel threads (default 1)\n"
                               "  --bench N          after one warm-up run, time N runs and print one JSON line:\n"
                               "                     {\"model\", \"runs\", \"threads\", \"median_ms\", \"min_ms\",\n"
                               "                      \"peak_activation_bytes\"}\n"
                               "  --profile          print on stderr the time of each step of the compiled plan\n"
                               "                     (ms per run and share, slowest first) over the --bench runs\n"
                               "                     (or the one run); a model split at data-dependent nodes\n"
                               "                     (NonZero, NMS...) gives the time of its parts, then the\n"
                               "                     steps of its compiled prefix and rest; a model that runs\n"
                               "                     in the interpreter has no profile (a note says so)\n"
                               "  --profile-html FILE  the profile as an HTML page instead: the graph shaded by\n"
                               "                     the measured time of each step, the time per step charted\n"
                               "  --json             print a JSON summary of the outputs on stdout\n"
                               "  -q, --quiet        no progress bar\n"
                               "  -h, --help         this text\n"
                               "\n"
                               "Outputs are written to a temporary name and renamed: a failed run leaves no\n"
                               "partial file. Without -o, --output-dir or --bench, a summary of each output is\n"
                               "printed.\n"
                               "\n"
                               "examples:\n"
                               "  nnfx run resnet18.onnx --input input=image.npy -o logits.npy\n"
                               "  nnfx run model.onnx --input x=x.pb --input mask=mask.npy --output-dir out/\n"
                               "  nnfx run model.onnx --input x.npy --bench 20 --threads 4\n"
                               "  nnfx run model.onnx --input x.npy --bench 20 --profile 2> profile.txt\n";

#define RUN_MAX_INPUTS 256

typedef struct run_opts {
    const char *model;
    char *inputs[RUN_MAX_INPUTS];
    int ninputs;
    const char *out;
    const char *out_dir;
    long threads;
    long bench;
    bool json;
    bool quiet;
    bool profile;
    const char *profile_html; /* --profile-html FILE */
} run_opts;

/* Parses the command line; returns an exit code (OK to go on). */
static int run_parse(int argc, char **argv, run_opts *o) {
    cli_args a;
    cli_args_init(&a, "run", argc, argv);
    o->threads = 1;
    while (cli_args_more(&a)) {
        const char *v;
        if (cli_opt(&a, "--input", "-i", &v)) {
            if (a.bad) break;
            if (o->ninputs == RUN_MAX_INPUTS) return cli_usage_error("run", "too many --input options");
            o->inputs[o->ninputs++] = (char *)v;
        } else if (cli_opt_once(&a, "--output", "-o", &o->out) || cli_opt_once(&a, "--output-dir", NULL, &o->out_dir)) {
            if (a.bad) break;
        } else if (cli_opt(&a, "--threads", "-t", &v)) {
            if (!a.bad && !cli_parse_int(v, 1, 1024, &o->threads))
                return cli_usage_error("run", "--threads wants a number from 1 to 1024, not '%s'", v);
        } else if (cli_opt(&a, "--bench", NULL, &v)) {
            if (!a.bad && !cli_parse_int(v, 1, 1000000, &o->bench))
                return cli_usage_error("run", "--bench wants a run count from 1 to 1000000, not '%s'", v);
        } else if (cli_flag(&a, "--profile", NULL)) {
            o->profile = true;
        } else if (cli_opt_once(&a, "--profile-html", NULL, &o->profile_html)) {
            if (a.bad) break;
            o->profile = true;
        } else if (cli_flag(&a, "--json", NULL)) {
            o->json = true;
        } else if (cli_flag(&a, "--quiet", "-q")) {
            o->quiet = true;
        } else {
            const char *p = cli_positional(&a);
            if (!p) break;
            if (o->model) return cli_usage_error("run", "one model at a time ('%s' and '%s' given)", o->model, p);
            o->model = p;
        }
    }
    if (a.bad) return CLI_EXIT_USAGE;
    if (!o->model) return cli_usage_error("run", "no model given");
    if (o->out && o->out_dir) return cli_usage_error("run", "-o and --output-dir exclude each other");
    return CLI_EXIT_OK;
}

/* A file-system-safe version of an output name (malloc'd). */
static char *safe_name(const char *name) {
    char *s = strdup(name && *name ? name : "output");
    if (!s) return NULL;
    for (char *p = s; *p; p++)
        if (*p == '/' || *p == '\\' || (p == s && *p == '.')) *p = '_';
    return s;
}

/* The output rule: the model (its values, its external data) and the
 * --input files against -o, or the files written into --output-dir (n of
 * them, or none yet). g: the loaded model, or NULL before loading. */
static int check_paths(const run_opts *o, const nnfx_graph *g, int n, char *const *files) {
    cli_io io;
    cli_io_init(&io, "run");
    cli_io_model_in(&io, "the model", o->model);
    if (g) cli_io_graph_in(&io, "the model", g);
    for (int i = 0; i < o->ninputs; i++)
        cli_io_binding_in(&io, "--input", o->inputs[i]);
    cli_io_out(&io, "-o", o->out);
    if (o->out_dir && !*o->out_dir) cli_io_out(&io, "--output-dir", o->out_dir);
    for (int i = 0; i < n; i++)
        cli_io_out(&io, "--output-dir's file", files[i]);
    int rc = cli_io_check(&io);
    cli_io_free(&io);
    return rc;
}

/* Writes every output into dir as <name>.npy, all or none: each to a
 * temporary name first, then all renamed together. */
static int write_output_dir(const run_opts *o, const nnfx_graph *g, const nnfx_node *outn, int nout,
                            nnfx_tensor **outs) {
    char **final = calloc((size_t)nout + 1, sizeof *final);
    int rc = CLI_EXIT_OK;
    if (!final) {
        cli_error("run", "out of memory");
        return CLI_EXIT_BAD_INPUT;
    }
    for (int i = 0; i < nout && !rc; i++) {
        const nnfx_node *src = nnfx_node_arg_node(outn, i);
        char *nm = safe_name(src ? nnfx_node_name(src) : NULL);
        size_t len = strlen(o->out_dir) + (nm ? strlen(nm) : 0) + 32;
        final[i] = malloc(len);
        if (!nm || !final[i]) {
            free(nm);
            cli_error("run", "out of memory");
            rc = CLI_EXIT_BAD_INPUT;
            break;
        }
        snprintf(final[i], len, "%s/%s.npy", o->out_dir, nm);
        free(nm);
    }
    if (!rc) rc = check_paths(o, g, nout, final);
    char *made = NULL;
    if (!rc) {
        made = cli_missing_dir(o->out_dir); /* the folders made here, removed again if writing fails */
        if (!cli_make_dirs(o->out_dir)) {
            cli_error("run", "%s: cannot create the output folder: %s", o->out_dir, strerror(errno));
            rc = CLI_EXIT_BAD_INPUT;
        }
    }
    if (!rc) {
        cli_out_begin();
        for (int i = 0; i < nout && !rc; i++) {
            nnfx_error err = {0};
            if (nnfx_npy_save(final[i], outs[i], &err)) {
                cli_fail("run", final[i], &err);
                cli_out_failed();
                rc = CLI_EXIT_BAD_INPUT;
            }
        }
        rc = cli_out_end("run", rc);
    }
    if (rc) cli_remove_made_dirs(o->out_dir, made);
    free(made);
    for (int i = 0; i < nout; i++)
        free(final[i]);
    free(final);
    return rc;
}

/* Prints a summary of each output (text or JSON) on stdout. */
static void print_outputs(const nnfx_node *outn, int nout, nnfx_tensor **outs, bool json) {
    sbuf b = {0};
    if (json) sb_printf(&b, "{\"outputs\": [");
    for (int i = 0; i < nout; i++) {
        const nnfx_node *src = nnfx_node_arg_node(outn, i);
        const char *name = src ? nnfx_node_name(src) : "output";
        nnfx_tensor *t = outs[i];
        int64_t n = nnfx_tensor_numel(t);
        double mn = 0, mx = 0, sum = 0;
        for (int64_t k = 0; k < n; k++) {
            double v = nnfx_tensor_get(t, k);
            if (k == 0 || v < mn) mn = v;
            if (k == 0 || v > mx) mx = v;
            sum += v;
        }
        char shape[128];
        nnfx_shape_str(t->rank, t->shape, shape, sizeof shape);
        if (json) {
            sb_printf(&b, "%s{\"name\": ", i ? ", " : "");
            cli_json_str(&b, name);
            sb_printf(&b, ", \"dtype\": \"%s\", \"shape\": [", nnfx_dtype_name(t->dtype));
            for (int d = 0; d < t->rank; d++)
                sb_printf(&b, "%s%lld", d ? ", " : "", (long long)t->shape[d]);
            sb_printf(&b, "], \"min\": ");
            cli_json_num(&b, mn);
            sb_printf(&b, ", \"max\": ");
            cli_json_num(&b, mx);
            sb_printf(&b, ", \"mean\": ");
            cli_json_num(&b, n ? sum / (double)n : 0);
            sb_printf(&b, "}");
        } else {
            sb_printf(&b, "%s: %s%s  min %.6g  max %.6g  mean %.6g\n", name, nnfx_dtype_name(t->dtype), shape, mn, mx,
                      n ? sum / (double)n : 0.0);
            int64_t show = n < 8 ? n : 8;
            sb_printf(&b, "  [");
            for (int64_t k = 0; k < show; k++)
                sb_printf(&b, "%s%.6g", k ? ", " : "", nnfx_tensor_get(t, k));
            sb_printf(&b, "%s]\n", n > show ? ", ..." : "");
        }
    }
    if (json) sb_printf(&b, "]}\n");
    char *s = sb_finish(&b);
    if (s) fputs(s, stdout);
    free(s);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Runs gm once; outs receives nout new references. */
static int run_once(nnfx_gm *gm, const char *model, const cli_inputs *in, int max_out, nnfx_tensor **outs, int *nout) {
    nnfx_error err = {0};
    for (int i = 0; i < max_out; i++)
        outs[i] = NULL;
    if (nnfx_gm_run(gm, in->n, in->t, max_out, outs, nout, &err)) return cli_fail("run", model, &err);
    return CLI_EXIT_OK;
}

static void release_outs(nnfx_tensor **outs, int n) {
    for (int i = 0; i < n; i++) {
        nnfx_tensor_release(outs[i]);
        outs[i] = NULL;
    }
}

/* Turns step timing on (counts from zero). */
static int set_profile(const run_opts *o, nnfx_gm *gm) {
    nnfx_error err = {0};
    if (nnfx_gm_set_profile(gm, true, &err)) return cli_fail("run", o->model, &err);
    return CLI_EXIT_OK;
}

/* --profile-html: the profile text t (nnfx_gm_profile's) as a page: the
 * graph shaded by the time of each step (given to the step's node), and
 * the time per step charted, slowest first. */
static int profile_page(const run_opts *o, nnfx_gm *gm, const char *t) {
    enum { MAXSTEPS = 4096 };
    typedef struct step {
        double ms, share;
        char name[256], line[512];
    } step;
    step *st = calloc(MAXSTEPS, sizeof st[0]);
    const char **label = calloc(MAXSTEPS, sizeof label[0]), **text = calloc(MAXSTEPS, sizeof text[0]);
    double *value = calloc(MAXSTEPS, sizeof value[0]);
    ir_strmap ms_of = {0};
    int n = 0, rc = CLI_EXIT_OK;
    if (!st || !label || !text || !value) rc = CLI_EXIT_BAD_INPUT;
    for (const char *p = t; p && *p && !rc && n < MAXSTEPS; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        int num = 0, used = 0;
        step *s = &st[n];
        if (*p == '#' || sscanf(p, "%lf %lf%% %d %255s%n", &s->ms, &s->share, &num, s->name, &used) != 4) continue;
        const char *e = strchr(p + used, '\n');
        int len = e ? (int)(e - (p + used)) : (int)strlen(p + used);
        snprintf(s->line, sizeof s->line, "%.3f ms, %.1f%%:%.*s", s->ms, s->share, len > 400 ? 400 : len, p + used);
        label[n] = s->name;
        text[n] = s->line;
        value[n] = s->ms;
        if (!ir_strmap_put(&ms_of, s->name, &s->ms)) rc = CLI_EXIT_BAD_INPUT;
        n++;
    }
    char *page = NULL;
    if (!rc) {
        sbuf sum = {0}, c = {0};
        const char *nl = strchr(t, '\n');
        sb_printf(&sum, "<p class=\"verdict same\">");
        for (const char *p = t + (*t == '#' ? 2 : 0); p < (nl ? nl : t + strlen(t)); p++)
            if (*p == '<' || *p == '&')
                sb_printf(&sum, "%s", *p == '<' ? "&lt;" : "&amp;");
            else
                sb_append(&sum, p, 1);
        sb_printf(&sum, "</p>");
        cli_bar_chart ch = {"time",
                            "Time per step of the compiled plan (ms per run, slowest first)",
                            "a step runs one node or a fused chain (conv + bias + add + relu): named by its last node",
                            n,
                            label,
                            text,
                            value,
                            NULL,
                            NULL,
                            0};
        sb_printf(&c, "<h2>Per layer</h2>");
        cli_html_bars(&c, &ch);
        char *s1 = sb_finish(&sum), *s2 = sb_finish(&c), title[512];
        snprintf(title, sizeof title, "nnfx run --profile: %s", o->model);
        page = cli_profile_page(title, s1, nnfx_gm_graph(gm), o->model, &ms_of, s2);
        free(s1);
        free(s2);
    }
    nnfx_error err = {0};
    if (!page || cli_write_file(o->profile_html, page, strlen(page), &err)) {
        if (!page) nnfx_error_set(&err, NNFX_ERR_NOMEM, "out of memory");
        rc = cli_fail("run", o->profile_html, &err);
        if (rc != CLI_EXIT_USAGE) rc = CLI_EXIT_BAD_INPUT;
    }
    free(page);
    ir_strmap_free(&ms_of);
    free(st);
    free(label);
    free(text);
    free(value);
    return rc;
}

/* The profile on stderr (--profile) and as a page (--profile-html), or a
 * note why there is none. */
static int print_profile(const run_opts *o, nnfx_gm *gm) {
    nnfx_error err = {0};
    int rc = CLI_EXIT_OK;
    char *t = nnfx_gm_profile(gm, &err);
    if (t && o->profile_html)
        rc = profile_page(o, gm, t);
    else if (t)
        fputs(t, stderr);
    else
        fprintf(stderr, "nnfx run: %s: no profile: %s\n", o->model, err.msg);
    free(t);
    return rc;
}

/* --bench N: N more runs, then the median and minimum times and the peak
 * activation memory as one JSON line. */
static int run_bench(const run_opts *o, nnfx_gm *gm, const cli_inputs *in, int max_out) {
    int rc = CLI_EXIT_OK;
    nnfx_error err = {0};
    double *ms = malloc(sizeof *ms * (size_t)o->bench);
    if (!ms) {
        cli_error("run", "out of memory");
        return CLI_EXIT_BAD_INPUT;
    }
    cli_progress bar;
    cli_progress_start(&bar, "bench", o->bench, o->quiet);
    nnfx_tensor **tmp = calloc((size_t)max_out, sizeof *tmp);
    for (long r = 0; r < o->bench && !rc && tmp; r++) {
        int tn = 0;
        double t0 = cli_now_ms();
        rc = run_once(gm, o->model, in, max_out, tmp, &tn);
        ms[r] = cli_now_ms() - t0;
        release_outs(tmp, tn);
        cli_progress_step(&bar, r + 1);
    }
    cli_progress_end(&bar);
    free(tmp);
    if (!rc) {
        double mn = ms[0];
        for (long r = 1; r < o->bench; r++)
            if (ms[r] < mn) mn = ms[r];
        qsort(ms, (size_t)o->bench, sizeof *ms, cmp_double);
        double med = o->bench % 2 ? ms[o->bench / 2] : (ms[o->bench / 2 - 1] + ms[o->bench / 2]) / 2;
        if (o->profile) rc = print_profile(o, gm); /* before the peak query, which recompiles */
        int64_t peak = nnfx_gm_peak_activation_bytes(gm, &err);
        sbuf b = {0};
        sb_printf(&b, "{\"model\": ");
        cli_json_str(&b, o->model);
        sb_printf(&b,
                  ", \"runs\": %ld, \"threads\": %ld, \"median_ms\": %.4f, \"min_ms\": %.4f, "
                  "\"peak_activation_bytes\": ",
                  o->bench, o->threads, med, mn);
        if (peak >= 0)
            sb_printf(&b, "%lld}\n", (long long)peak);
        else
            sb_printf(&b, "null}\n");
        char *s = sb_finish(&b);
        if (s) fputs(s, stdout);
        free(s);
    }
    free(ms);
    return rc;
}

int cli_run(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(run_help, stdout);
        return CLI_EXIT_OK;
    }
    run_opts o = {0};
    int rc = run_parse(argc, argv, &o);
    if (rc || (rc = check_paths(&o, NULL, 0, NULL))) return rc;

    nnfx_error err = {0};
    nnfx_graph *g = cli_load_model(o.model, &err);
    if (!g) {
        cli_fail("run", o.model, &err);
        return CLI_EXIT_BAD_INPUT;
    }
    if ((rc = check_paths(&o, g, 0, NULL))) {
        nnfx_graph_free(g);
        return rc;
    }
    cli_inputs in = {0};
    rc = cli_inputs_load("run", g, o.ninputs, o.inputs, &in);
    if (rc) {
        nnfx_graph_free(g);
        return rc;
    }
    cli_inputs_pin_shapes(g, &in);
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    if (!gm) {
        nnfx_graph_free(g);
        cli_inputs_free(&in);
        cli_fail("run", o.model, &err);
        return CLI_EXIT_BAD_INPUT;
    }
    nnfx_gm_set_threads(gm, (int)o.threads);
    nnfx_tensor **outs = NULL;
    int nout = 0;
    if (nnfx_gm_recompile(gm, &err)) {
        cli_fail("run", o.model, &err);
        rc = CLI_EXIT_BAD_INPUT;
        goto done;
    }
    const nnfx_node *outn = nnfx_graph_output_node(nnfx_gm_graph(gm));
    int max_out = outn ? nnfx_node_num_args(outn) : 0;
    if (max_out < 1) {
        cli_error("run", "%s: the model has no outputs", o.model);
        rc = CLI_EXIT_BAD_INPUT;
        goto done;
    }
    outs = calloc((size_t)max_out, sizeof *outs);
    if (!outs) {
        cli_error("run", "out of memory");
        rc = CLI_EXIT_BAD_INPUT;
        goto done;
    }
    /* --profile: over the one run, or over the bench runs after the warm-up */
    if (o.profile && !o.bench && (rc = set_profile(&o, gm))) goto done;
    rc = run_once(gm, o.model, &in, max_out, outs, &nout);
    if (rc) goto done;
    if (o.profile && o.bench && (rc = set_profile(&o, gm))) goto done;

    if (o.bench > 0) {
        rc = run_bench(&o, gm, &in, max_out);
        if (rc) goto done;
    }
    if (o.profile && !o.bench && (rc = print_profile(&o, gm))) goto done;

    if (o.out) {
        if (nnfx_npy_save(o.out, outs[0], &err)) {
            rc = cli_fail("run", o.out, &err);
            if (rc != CLI_EXIT_USAGE) rc = CLI_EXIT_BAD_INPUT;
            goto done;
        }
    } else if (o.out_dir) {
        rc = write_output_dir(&o, nnfx_gm_graph(gm), outn, nout, outs);
        if (rc) goto done;
    }
    if (!o.bench && (o.json || (!o.out && !o.out_dir))) print_outputs(outn, nout, outs, o.json);
done:
    if (outs) release_outs(outs, nout);
    free(outs);
    cli_inputs_free(&in);
    nnfx_gm_free(gm);
    return rc;
}
