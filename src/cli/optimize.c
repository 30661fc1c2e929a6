/* optimize.c — `nnfx optimize`: applies passes and rewrites in order,
 * validates the result numerically (and against labels), and writes it
 * only when every check passed. */
#include <stdlib.h>
#include <string.h>

#include "cli/analysis.h"
#include "cli/optimize.h"

static const char optimize_help[] =
    "usage: nnfx optimize MODEL -o OUT [--pass NAME]... [--rewrite 'PATTERN -> REPLACEMENT']...\n"
    "                     [--validate [--input NAME=FILE]... [--random N] [--atol A] [--rtol R]]\n"
    "                     [--labels FILE.npy --max-accuracy-drop PCT] [--report FILE.json]\n"
    "       nnfx optimize MODEL... -o DIR [--jobs N] ...     (batch)\n"
    "       nnfx optimize --batch LIST -o DIR [--jobs N] ...  (batch)\n"
    "\n"
    "Applies passes and rewrites to MODEL in the order given, checks the result and\n"
    "writes it to OUT (ONNX, or text IR for .fx/.txt names; temporary name, then\n"
    "renamed). When a check fails OUT is not written (exit 1); the input is never\n"
    "touched.\n"
    "\n"
    "steps:\n"
    "  --pass NAME[,NAME] run passes, in order (see the list below)\n"
    "  --rewrite RULE     replace every match of a pattern, e.g.\n"
    "                     'relu(x) -> leaky_relu(x, alpha=0.1)'; a rule that\n"
    "                     matches nothing is a warning\n"
    "  --expect-matches N the --rewrite just before must match at least N times,\n"
    "                     else exit 1 and nothing is written (a typo in CI fails)\n"
    "  --explain          print every candidate node of each --rewrite and why it\n"
    "                     matched or was rejected\n"
    "checks:\n"
    "  --validate         run the original and the result on the same inputs and\n"
    "                     compare every output: |a - b| <= atol + rtol * |a|; on\n"
    "                     failure names the first node whose value diverges\n"
    "  --input NAME=FILE  inputs for --validate and --labels (.npy/.pb; a batch\n"
    "                     along a dynamic first dim works)\n"
    "  --random N         N seeded random inputs instead (default for --validate: 4)\n"
    "  --atol A, --rtol R tolerances (default 1e-4 and 1e-4)\n"
    "  --labels FILE.npy  class labels, one per row of the first output: top-1\n"
    "                     accuracy of both models on --input\n"
    "  --max-accuracy-drop PCT\n"
    "                     fail when the accuracy drops by more than PCT points\n"
    "                     (without it --labels reports the accuracy, no gate)\n"
    "output:\n"
    "  -o, --output OUT   the optimised model (a folder in batch mode)\n"
    "  --report FILE      JSON report: passes applied, op counts before/after,\n"
    "                     nodes changed, validation figures, timings ('-': stdout).\n"
    "                     In batch mode: the summary of every model\n"
    "  --external-data    write ONNX weights to a side file\n"
    "  --opset N          write ONNX opset N (13 to 21; an error naming the node when\n"
    "                     a form needs a newer one). Default: the model's own opset\n"
    "                     (at least 13), raised only when a form needs it (a note says so)\n"
    "The written model records producer nnfx and metadata_props nnfx.version,\n"
    "nnfx.source_sha256, nnfx.steps and, when checked, nnfx.validation.\n"
    "  --batch LIST       read model paths from LIST (one a line, # comments)\n"
    "  --jobs N           models optimised at once in batch mode (default 1)\n"
    "  -q, --quiet        no progress bar, no summary\n"
    "  -h, --help         this text\n"
    "\n"
    "Exit status: 0 written; 1 a tolerance or the accuracy gate failed (nothing\n"
    "written); 2 usage error; 3 unreadable model or data, or a failed step.\n"
    "Batch mode: one failing model does not stop the others; the status is the\n"
    "highest of the models'.\n"
    "\n"
    "examples:\n"
    "  nnfx optimize model.onnx -o opt.onnx --pass fuse-conv-bn --pass dce --validate\n"
    "  nnfx optimize model.onnx -o opt.onnx --rewrite 'relu(x) -> leaky_relu(x, alpha=0.01)' \\\n"
    "       --validate --input x=batch.npy --labels labels.npy --max-accuracy-drop 0.5\n"
    "  nnfx optimize models/*.onnx -o out/ --pass fuse-conv-bn --validate --jobs 4 --report summary.json\n"
    "  nnfx optimize model.onnx -o opt.onnx --pass fuse-conv-bn --opset 13\n"
    "  nnfx optimize model.onnx -o opt.onnx --rewrite 'sigmoid(x) -> hard_sigmoid(x)' --expect-matches 3 --explain\n";

/* --- report pieces ------------------------------------------------------------- */

static void op_counts_json(sbuf *b, const nnfx_graph *g) {
    /* counts by op label, in first-appearance order */
    const char *labels[512];
    int counts[512], n = 0;
    for (const nnfx_node *nd = nnfx_graph_first(g); nd; nd = nnfx_node_next(nd)) {
        nnfx_opcode oc = nnfx_node_opcode(nd);
        if ((oc != NNFX_CALL_FUNCTION && oc != NNFX_CALL_MODULE) || nnfx_node_is_op(nd, NNFX_OP_GETITEM)) continue;
        const char *l = cli_node_op_label(nd);
        int k = 0;
        while (k < n && strcmp(labels[k], l) != 0)
            k++;
        if (k == n) {
            if (n == 512) continue;
            labels[n] = l;
            counts[n++] = 0;
        }
        counts[k]++;
    }
    sb_printf(b, "{");
    for (int k = 0; k < n; k++) {
        sb_printf(b, "%s", k ? ", " : "");
        cli_json_str(b, labels[k]);
        sb_printf(b, ": %d", counts[k]);
    }
    sb_printf(b, "}");
}

static int count_ops(const nnfx_graph *g) {
    int n = 0;
    for (const nnfx_node *nd = nnfx_graph_first(g); nd; nd = nnfx_node_next(nd)) {
        nnfx_opcode oc = nnfx_node_opcode(nd);
        if ((oc == NNFX_CALL_FUNCTION || oc == NNFX_CALL_MODULE) && !nnfx_node_is_op(nd, NNFX_OP_GETITEM)) n++;
    }
    return n;
}

/* Names of op nodes of x that y lacks, as a JSON array. */
static void missing_json(sbuf *b, const nnfx_graph *x, const nnfx_graph *y) {
    sb_printf(b, "[");
    int k = 0;
    for (const nnfx_node *nd = nnfx_graph_first(x); nd; nd = nnfx_node_next(nd)) {
        nnfx_opcode oc = nnfx_node_opcode(nd);
        if (oc != NNFX_CALL_FUNCTION && oc != NNFX_CALL_MODULE) continue;
        const nnfx_node *m = nnfx_graph_find(y, nnfx_node_name(nd));
        if (m && nnfx_node_op(m) == nnfx_node_op(nd)) continue;
        sb_printf(b, "%s", k++ ? ", " : "");
        cli_json_str(b, nnfx_node_name(nd));
    }
    sb_printf(b, "]");
}

/* Is name a registered pass? Accepts '_' for '-'. Writes the canonical
 * name into buf. */
static bool pass_known(const char *name, char *buf, size_t len) {
    snprintf(buf, len, "%s", name);
    for (char *p = buf; *p; p++)
        if (*p == '_') *p = '-';
    for (int i = 0; i < nnfx_pass_count(); i++)
        if (nnfx_pass_name(i) && strcmp(nnfx_pass_name(i), buf) == 0) return true;
    return false;
}

/* --- one model ----------------------------------------------------------------- */

void opt_one(const opt_opts *o, const char *model, const char *out, opt_result *res) {
    memset(res, 0, sizeof *res);
    double t_start = cli_now_ms();
    nnfx_error err = {0};
    sbuf rep = {0};
    sbuf steps = {0};
    nnfx_graph *orig = NULL, *g = NULL;
    cli_compare_result cmp = {0};
    cli_accuracy acc = {0};
    char errmsg[1100] = "";
    int rc = CLI_EXIT_OK;
    cli_provenance prov = {0};
    sbuf psteps = {0}; /* nnfx.steps: deterministic, no timings */
    double t_load = 0, t_steps = 0, t_val = 0, t_save = 0;
    bool talk = !o->quiet && !o->batch && !(o->report && strcmp(o->report, "-") == 0);

    if (cli_same_file(out, model)) {
        rc = cli_usage_error("optimize", "%s: -o would overwrite the input model", out);
        snprintf(errmsg, sizeof errmsg, "the output would overwrite the input model");
        goto report;
    }
    double t0 = cli_now_ms();
    orig = cli_load_model(model, &err);
    if (!orig || nnfx_graph_lint(orig, &err) || nnfx_graph_infer_shapes(orig, &err)) {
        rc = CLI_EXIT_BAD_INPUT;
        cli_fail("optimize", model, &err);
        snprintf(errmsg, sizeof errmsg, "%s", err.msg);
        goto report;
    }
    if ((rc = cli_provenance_begin(&prov, "optimize", model))) {
        snprintf(errmsg, sizeof errmsg, "cannot read the model to hash it");
        goto report;
    }
    prov.opset = o->opset;
    if ((o->validate || o->labels || !cli_is_text_ir_path(out)) &&
        (rc = cli_require_weights("optimize", model, orig))) {
        snprintf(errmsg, sizeof errmsg, "the text IR has no parameter values");
        goto report;
    }
    g = nnfx_graph_copy(orig, NULL, &err);
    if (!g) {
        rc = CLI_EXIT_BAD_INPUT;
        cli_fail("optimize", model, &err);
        snprintf(errmsg, sizeof errmsg, "%s", err.msg);
        goto report;
    }
    t_load = cli_now_ms() - t0;
    res->nodes_before = count_ops(orig);

    /* steps, in order */
    t0 = cli_now_ms();
    sb_printf(&steps, "[");
    sb_printf(&psteps, "[");
    for (int i = 0; i < o->nsteps && !rc; i++) {
        const opt_step *st = &o->steps[i];
        double ts = cli_now_ms();
        int before = count_ops(g);
        sb_printf(&steps, "%s\n    {", i ? "," : "");
        sb_printf(&psteps, "%s{\"%s\": ", i ? ", " : "", st->is_rewrite ? "rewrite" : "pass");
        if (st->is_rewrite) {
            int m = -1;
            nnfx_graph *pat = NULL, *repl = NULL;
            nnfx_rewrite_options ro = {0};
            ro.explain = o->explain;
            nnfx_match_list *ml = NULL;
            if (!nnfx_pattern_parse(st->text, &pat, &repl, &err) &&
                (ml = nnfx_replace_pattern_ex(g, pat, repl, &ro, &err)) != NULL)
                m = nnfx_match_list_count(ml);
            if (ml && o->explain) {
                char *ex = nnfx_rewrite_explain(ml);
                FILE *to = talk ? stdout : stderr;
                fprintf(to, "  explain --rewrite '%s':\n", st->text);
                for (char *line = ex ? strtok(ex, "\n") : NULL; line; line = strtok(NULL, "\n"))
                    fprintf(to, "    %s\n", line);
                if (ex && !nnfx_match_list_num_candidates(ml))
                    fprintf(to, "    (no node has the pattern's anchor op)\n");
                free(ex);
            }
            nnfx_match_list_free(ml);
            nnfx_graph_free(pat);
            nnfx_graph_free(repl);
            nnfx_error terr = {0}; /* the result must be a valid graph, dtypes included */
            if (m > 0 && (nnfx_graph_infer_shapes(g, &terr) || nnfx_graph_check_types(g, &terr))) {
                nnfx_error_set(&err, terr.status ? terr.status : NNFX_ERR_GRAPH, "the rule makes the graph invalid: %s",
                               terr.msg);
                m = -1;
            }
            if (m < 0) {
                rc = CLI_EXIT_BAD_INPUT;
                cli_error("optimize", "%s: --rewrite '%s': %s", model, st->text, err.msg);
                snprintf(errmsg, sizeof errmsg, "rewrite '%s': %s", st->text, err.msg);
            } else if (st->expect_matches > 0 && m < st->expect_matches) {
                rc = CLI_EXIT_CHECK;
                cli_error("optimize", "%s: --rewrite '%s' matched %d time%s, --expect-matches wants %ld%s", model,
                          st->text, m, m == 1 ? "" : "s", st->expect_matches,
                          o->explain ? "" : " (--explain shows why candidates were rejected)");
                snprintf(errmsg, sizeof errmsg, "rewrite '%s' matched %d times, expected at least %ld", st->text, m,
                         st->expect_matches);
            } else if (m == 0 && !o->quiet) {
                fprintf(stderr, "nnfx optimize: warning: %s: --rewrite '%s' matched nothing%s\n", model, st->text,
                        o->explain ? "" : " (--explain shows why)");
            }
            sb_printf(&steps, "\"rewrite\": ");
            cli_json_str(&steps, st->text);
            sb_printf(&steps, ", \"matches\": %d", m < 0 ? 0 : m);
            cli_json_str(&psteps, st->text);
            sb_printf(&psteps, ", \"matches\": %d}", m < 0 ? 0 : m);
            if (talk && m >= 0)
                printf("  rewrite '%s': %d match%s (ops %d -> %d)\n", st->text, m, m == 1 ? "" : "es", before,
                       count_ops(g));
        } else {
            char name[64];
            nnfx_pass_report pr = {0};
            pass_known(st->text, name, sizeof name);
            if (nnfx_pass_run_by_name(g, name, &pr, &err)) {
                rc = err.status == NNFX_ERR_NOT_FOUND ? CLI_EXIT_USAGE : CLI_EXIT_BAD_INPUT;
                cli_error("optimize", "%s: pass %s: %s", model, name, err.msg);
                snprintf(errmsg, sizeof errmsg, "pass %s: %s", name, err.msg);
            }
            sb_printf(&steps, "\"pass\": ");
            cli_json_str(&steps, name);
            sb_printf(&steps, ", \"changed\": %d, \"skipped\": [", pr.changed);
            cli_json_str(&psteps, name);
            sb_printf(&psteps, ", \"changed\": %d}", pr.changed);
            for (int k = 0; k < pr.nskipped; k++) {
                sb_printf(&steps, "%s{\"node\": ", k ? ", " : "");
                cli_json_str(&steps, pr.skipped[k].node);
                sb_printf(&steps, ", \"reason\": ");
                cli_json_str(&steps, pr.skipped[k].reason);
                sb_printf(&steps, "}");
            }
            sb_printf(&steps, "]");
            if (talk && !rc)
                printf("  %s: %d change%s (ops %d -> %d)%s\n", name, pr.changed, pr.changed == 1 ? "" : "s", before,
                       count_ops(g), pr.nskipped ? ", some skipped (see --report)" : "");
            nnfx_pass_report_free(&pr);
        }
        sb_printf(&steps, ", \"ops_before\": %d, \"ops_after\": %d, \"ms\": %.3f}", before, count_ops(g),
                  cli_now_ms() - ts);
    }
    sb_printf(&steps, "]");
    sb_printf(&psteps, "]");
    prov.steps = sb_finish(&psteps);
    if (!rc && (nnfx_graph_lint(g, &err) || nnfx_graph_infer_shapes(g, &err) || nnfx_graph_check_types(g, &err))) {
        rc = CLI_EXIT_BAD_INPUT;
        cli_error("optimize", "%s: the optimised graph is invalid: %s", model, err.msg);
        snprintf(errmsg, sizeof errmsg, "the optimised graph is invalid: %s", err.msg);
    }
    t_steps = cli_now_ms() - t0;
    res->nodes_after = count_ops(g);

    /* checks */
    t0 = cli_now_ms();
    bool checks_ok = true;
    if (!rc && o->validate) {
        rc = cli_compare_graphs("optimize", orig, model, g, out, &o->samples, o->atol, o->rtol, o->quiet || o->batch,
                                &cmp);
        res->validated = !rc;
        res->max_abs = cmp.max_abs;
        if (!rc && !cmp.passed) {
            checks_ok = false;
            if (cmp.diverging[0])
                cli_error("optimize", "%s: validation failed: %s; first diverging node: %s", model, cmp.detail,
                          cmp.diverging);
            else
                cli_error("optimize", "%s: validation failed: %s", model, cmp.detail);
        }
        if (talk && !rc)
            printf("  validate on %ld %ssample%s: %s, every output within atol %g + rtol %g x |a| %s (max abs error "
                   "%.3g, max rel error %.3g)\n",
                   cmp.rows, o->samples.random > 0 ? "random " : "", cmp.rows == 1 ? "" : "s",
                   cmp.passed ? "ok" : "FAILED", o->atol, o->rtol, cmp.passed ? "holds" : "fails", cmp.max_abs,
                   cmp.max_rel);
    }
    if (!rc && o->labels) {
        rc = cli_accuracy_graphs("optimize", orig, g, &o->samples, o->labels, &acc);
        res->have_acc = !rc;
        res->drop = acc.drop;
        bool gate_failed = o->max_drop >= 0 && acc.drop > o->max_drop;
        if (!rc && gate_failed) {
            checks_ok = false;
            cli_error("optimize", "%s: accuracy gate failed: top-1 %.2f%% -> %.2f%%, a drop of %.2f points (max %g)",
                      model, acc.acc_a, acc.acc_b, acc.drop, o->max_drop);
        }
        if (talk && !rc && o->max_drop >= 0)
            printf("  accuracy on %ld labelled samples: %.2f%% -> %.2f%% (drop %.2f points, max %g): %s\n", acc.samples,
                   acc.acc_a, acc.acc_b, acc.drop, o->max_drop, gate_failed ? "FAILED" : "ok");
        else if (talk && !rc)
            printf("  accuracy on %ld labelled samples: %.2f%% -> %.2f%% (drop %.2f points; no gate without "
                   "--max-accuracy-drop)\n",
                   acc.samples, acc.acc_a, acc.acc_b, acc.drop);
    }
    t_val = cli_now_ms() - t0;
    if (rc) snprintf(errmsg, sizeof errmsg, "%s", errmsg[0] ? errmsg : "the checks could not run (see stderr)");
    if (!rc && !checks_ok) rc = CLI_EXIT_CHECK;

    /* write only when everything passed */
    if (!rc && (o->validate || res->have_acc)) {
        sbuf v = {0};
        sb_printf(&v, "{");
        if (o->validate) {
            sb_printf(&v, "\"samples\": %ld, \"source\": \"%s\", \"atol\": ", cmp.rows,
                      o->samples.random > 0 ? "random" : "inputs");
            cli_json_num(&v, o->atol);
            sb_printf(&v, ", \"rtol\": ");
            cli_json_num(&v, o->rtol);
            sb_printf(&v, ", \"max_abs_error\": ");
            cli_json_num(&v, cmp.max_abs);
            sb_printf(&v, ", \"max_rel_error\": ");
            cli_json_num(&v, cmp.max_rel);
            sb_printf(&v, ", \"passed\": %s", cmp.passed ? "true" : "false");
        }
        if (res->have_acc) {
            sb_printf(&v, "%s\"accuracy\": {", o->validate ? ", " : "");
            cli_accuracy_json(&v, &acc, o->max_drop);
            sb_printf(&v, "}");
        }
        sb_printf(&v, "}");
        prov.validation = sb_finish(&v);
    }
    if (!rc) rc = cli_provenance_check_opset("optimize", g, &prov, o->quiet);
    if (rc && !errmsg[0]) snprintf(errmsg, sizeof errmsg, "the model does not fit the requested opset");
    if (!rc) {
        t0 = cli_now_ms();
        nnfx_graph_drop_unused_params(g);
        cli_provenance_use(&prov);
        if (cli_save_model(g, out, o->external_data, &err)) {
            rc = CLI_EXIT_BAD_INPUT;
            cli_fail("optimize", out, &err);
            snprintf(errmsg, sizeof errmsg, "%s", err.msg);
        }
        t_save = cli_now_ms() - t0;
        if (talk && !rc) printf("%s -> %s: ops %d -> %d\n", model, out, res->nodes_before, res->nodes_after);
    }

report:
    res->rc = rc;
    res->ms = cli_now_ms() - t_start;
    snprintf(res->status, sizeof res->status, "%s",
             rc == CLI_EXIT_OK      ? "ok"
             : rc == CLI_EXIT_CHECK ? "check failed"
                                    : "error");
    sb_printf(&rep, "{\n  \"model\": ");
    cli_json_str(&rep, model);
    sb_printf(&rep, ",\n  \"output\": ");
    if (rc == CLI_EXIT_OK)
        cli_json_str(&rep, out);
    else
        sb_printf(&rep, "null");
    sb_printf(&rep, ",\n  \"result\": \"%s\",\n  \"exit_code\": %d", res->status, rc);
    if (errmsg[0]) {
        sb_printf(&rep, ",\n  \"error\": ");
        cli_json_str(&rep, errmsg);
    }
    char *steps_s = sb_finish(&steps);
    sb_printf(&rep, ",\n  \"steps\": %s", steps_s && steps_s[0] ? steps_s : "[]");
    free(steps_s);
    if (orig) {
        sb_printf(&rep, ",\n  \"ops_before\": ");
        op_counts_json(&rep, orig);
        sb_printf(&rep, ",\n  \"nodes_before\": %d", res->nodes_before);
    }
    if (g) {
        sb_printf(&rep, ",\n  \"ops_after\": ");
        op_counts_json(&rep, g);
        sb_printf(&rep, ",\n  \"nodes_after\": %d", res->nodes_after);
        sb_printf(&rep, ",\n  \"nodes_removed\": ");
        missing_json(&rep, orig, g);
        sb_printf(&rep, ",\n  \"nodes_added\": ");
        missing_json(&rep, g, orig);
    }
    if (o->validate && res->validated) {
        sb_printf(&rep, ",\n  \"validation\": {\"samples\": %ld, \"runs\": %d, \"source\": ", cmp.rows, cmp.samples);
        cli_json_str(&rep, o->samples.random > 0 ? "random" : "inputs");
        sb_printf(&rep, ", \"outputs\": %d, \"max_abs_error\": ", cmp.outputs);
        cli_json_num(&rep, cmp.max_abs);
        sb_printf(&rep, ", \"max_rel_error\": ");
        cli_json_num(&rep, cmp.max_rel);
        sb_printf(&rep, ", \"atol\": ");
        cli_json_num(&rep, o->atol);
        sb_printf(&rep, ", \"rtol\": ");
        cli_json_num(&rep, o->rtol);
        sb_printf(&rep, ", \"passed\": %s, \"detail\": ", cmp.passed ? "true" : "false");
        cli_json_str(&rep, cmp.detail);
        sb_printf(&rep, ", \"first_diverging_node\": ");
        if (cmp.diverging[0])
            cli_json_str(&rep, cmp.diverging);
        else
            sb_printf(&rep, "null");
        sb_printf(&rep, "}");
    }
    if (res->have_acc) {
        sb_printf(&rep, ",\n  \"accuracy\": {\"labels\": ");
        cli_json_str(&rep, o->labels);
        sb_printf(&rep, ", ");
        cli_accuracy_json(&rep, &acc, o->max_drop);
        sb_printf(&rep, "}");
    }
    sb_printf(&rep,
              ",\n  \"timings_ms\": {\"load\": %.3f, \"steps\": %.3f, \"checks\": %.3f, \"save\": %.3f, "
              "\"total\": %.3f}\n}",
              t_load, t_steps, t_val, t_save, res->ms);
    res->report = sb_finish(&rep);
    free(sb_finish(&psteps));
    cli_provenance_free(&prov);
    nnfx_graph_free(orig);
    nnfx_graph_free(g);
}

/* --- command line ----------------------------------------------------------------- */

#define OPT_MAX 1024

int cli_optimize(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(optimize_help, stdout);
        printf("\npasses:\n");
        for (int i = 0; i < nnfx_pass_count(); i++)
            printf("  %-16s %s\n", nnfx_pass_name(i), nnfx_pass_description(i) ? nnfx_pass_description(i) : "");
        return CLI_EXIT_OK;
    }
    static opt_step steps[OPT_MAX];
    static char *inputs[OPT_MAX];
    static char *models[OPT_MAX];
    int nmodels = 0;
    opt_opts o = {0};
    o.steps = steps;
    o.samples.files = inputs;
    o.atol = 1e-4;
    o.rtol = 1e-4;
    o.max_drop = -1;
    const char *out = NULL, *batch = NULL;
    long jobs = 1;
    bool have_atol_rtol = false;
    cli_args a;
    cli_args_init(&a, "optimize", argc, argv);
    while (cli_args_more(&a)) {
        const char *v = NULL;
        bool is_pass = cli_opt(&a, "--pass", "-p", &v);
        bool is_rewrite = !is_pass && cli_opt(&a, "--rewrite", "-r", &v);
        if (is_pass || is_rewrite) {
            if (a.bad) break;
            /* --pass a,b is --pass a --pass b (argv strings are writable: split in place) */
            char *piece = (char *)v, *comma = is_pass ? strchr(piece, ',') : NULL;
            for (;;) {
                if (comma) *comma = '\0';
                if (o.nsteps == OPT_MAX) return cli_usage_error("optimize", "too many steps");
                if (is_pass && !*piece) return cli_usage_error("optimize", "--pass: an empty pass name in a list");
                steps[o.nsteps].is_rewrite = is_rewrite;
                steps[o.nsteps].expect_matches = 0;
                steps[o.nsteps++].text = piece;
                if (!comma) break;
                piece = comma + 1;
                comma = strchr(piece, ',');
            }
        } else if (cli_opt(&a, "--output", "-o", &v)) {
            out = v;
        } else if (cli_opt(&a, "--expect-matches", NULL, &v)) {
            if (a.bad) break;
            if (!o.nsteps || !steps[o.nsteps - 1].is_rewrite)
                return cli_usage_error("optimize", "--expect-matches goes after the --rewrite it checks");
            if (!cli_parse_int(v, 1, 1000000000, &steps[o.nsteps - 1].expect_matches))
                return cli_usage_error("optimize", "--expect-matches wants a count from 1, not '%s'", v);
        } else if (cli_flag(&a, "--explain", NULL)) {
            o.explain = true;
        } else if (cli_flag(&a, "--validate", NULL)) {
            o.validate = true;
        } else if (cli_opt(&a, "--input", "-i", &v)) {
            if (a.bad) break;
            if (o.samples.nfiles == OPT_MAX) return cli_usage_error("optimize", "too many --input options");
            inputs[o.samples.nfiles++] = (char *)v;
        } else if (cli_opt(&a, "--random", NULL, &v)) {
            if (!a.bad && !cli_parse_int(v, 1, 1000000, &o.samples.random))
                return cli_usage_error("optimize", "--random wants a sample count from 1 to 1000000, not '%s'", v);
        } else if (cli_opt(&a, "--atol", NULL, &v)) {
            have_atol_rtol = true;
            if (!a.bad && !cli_parse_nonneg_double(v, &o.atol))
                return cli_usage_error("optimize", "--atol wants a number >= 0, not '%s'", v);
        } else if (cli_opt(&a, "--rtol", NULL, &v)) {
            have_atol_rtol = true;
            if (!a.bad && !cli_parse_nonneg_double(v, &o.rtol))
                return cli_usage_error("optimize", "--rtol wants a number >= 0, not '%s'", v);
        } else if (cli_opt(&a, "--labels", NULL, &v)) {
            o.labels = v;
        } else if (cli_opt(&a, "--max-accuracy-drop", NULL, &v)) {
            if (!a.bad && (!cli_parse_nonneg_double(v, &o.max_drop) || o.max_drop > 100))
                return cli_usage_error("optimize",
                                       "--max-accuracy-drop wants percentage points from 0 to 100, not '%s'", v);
        } else if (cli_opt(&a, "--report", NULL, &v)) {
            o.report = v;
        } else if (cli_opt(&a, "--batch", NULL, &v)) {
            batch = v;
        } else if (cli_opt(&a, "--jobs", "-j", &v)) {
            if (!a.bad && !cli_parse_int(v, 1, 256, &jobs))
                return cli_usage_error("optimize", "--jobs wants a number from 1 to 256, not '%s'", v);
        } else if (cli_flag(&a, "--external-data", NULL)) {
            o.external_data = true;
        } else if (cli_opt(&a, "--opset", NULL, &v)) {
            if (!a.bad && !cli_parse_int(v, 1, 1000, &o.opset))
                return cli_usage_error("optimize", "--opset wants an ONNX opset number, not '%s'", v);
        } else if (cli_flag(&a, "--quiet", "-q")) {
            o.quiet = true;
        } else {
            const char *p = cli_positional(&a);
            if (!p) break;
            if (nmodels == OPT_MAX) return cli_usage_error("optimize", "too many models");
            models[nmodels++] = (char *)p;
        }
    }
    if (a.bad) return CLI_EXIT_USAGE;

    /* consistency of the options */
    if (batch && nmodels) return cli_usage_error("optimize", "give models either on the command line or with --batch");
    if (!batch && !nmodels) return cli_usage_error("optimize", "no model given");
    if (!out) return cli_usage_error("optimize", "no output given (-o OUT)");
    if (o.samples.nfiles && o.samples.random)
        return cli_usage_error("optimize", "--input and --random exclude each other");
    if ((o.samples.nfiles || o.samples.random || have_atol_rtol) && !o.validate && !o.labels)
        return cli_usage_error("optimize", "--input, --random, --atol and --rtol go with --validate or --labels");
    if (!o.labels && o.max_drop >= 0) return cli_usage_error("optimize", "--max-accuracy-drop needs --labels FILE.npy");
    if (o.labels && !o.samples.nfiles)
        return cli_usage_error("optimize", "--labels needs the labelled inputs: --input NAME=FILE");
    if (o.validate && !o.samples.nfiles && !o.samples.random) o.samples.random = 4;
    for (int i = 0; i < o.nsteps; i++) {
        if (steps[i].is_rewrite) {
            nnfx_graph *pat = NULL, *rep = NULL;
            nnfx_error err = {0};
            if (nnfx_pattern_parse(steps[i].text, &pat, &rep, &err))
                return cli_usage_error("optimize", "--rewrite '%s': %s", steps[i].text, err.msg);
            bool has_rep = rep != NULL;
            nnfx_graph_free(pat);
            nnfx_graph_free(rep);
            if (!has_rep) return cli_usage_error("optimize", "--rewrite '%s': no '-> REPLACEMENT'", steps[i].text);
        } else {
            char name[64];
            if (!pass_known(steps[i].text, name, sizeof name)) {
                sbuf names = {0};
                for (int k = 0; k < nnfx_pass_count(); k++)
                    sb_printf(&names, "%s%s", k ? ", " : "", nnfx_pass_name(k));
                char *list = sb_finish(&names);
                int rc = cli_usage_error("optimize", "unknown pass '%s' (passes: %s)", steps[i].text, list ? list : "");
                free(list);
                return rc;
            }
        }
    }

    if (batch || nmodels > 1 || cli_is_dir(out) || out[strlen(out) - 1] == '/') {
        o.batch = true;
        char *buf = NULL;
        if (batch) {
            nnfx_error err = {0};
            buf = cli_read_file(batch, NULL, &err);
            if (!buf) {
                cli_fail("optimize", batch, &err);
                return CLI_EXIT_BAD_INPUT;
            }
            for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
                while (*line == ' ' || *line == '\t')
                    line++;
                size_t n = strlen(line);
                while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
                    line[--n] = '\0';
                if (!*line || *line == '#') continue;
                if (nmodels == OPT_MAX) {
                    free(buf);
                    return cli_usage_error("optimize", "%s: more than %d models", batch, OPT_MAX);
                }
                models[nmodels++] = line;
            }
            if (!nmodels) {
                free(buf);
                cli_error("optimize", "%s: the list names no models", batch);
                return CLI_EXIT_BAD_INPUT;
            }
        }
        int rc = opt_batch(&o, nmodels, models, out, jobs);
        free(buf);
        return rc;
    }

    opt_result res;
    opt_one(&o, models[0], out, &res);
    int rc = res.rc;
    if (o.report && res.report) {
        nnfx_error err = {0};
        sbuf b = {0};
        sb_printf(&b, "%s\n", res.report);
        char *s = sb_finish(&b);
        if (!s || cli_write_file(o.report, s, strlen(s), &err)) {
            cli_fail("optimize", o.report, &err);
            if (!rc) rc = CLI_EXIT_BAD_INPUT;
        }
        free(s);
    }
    free(res.report);
    return rc;
}
