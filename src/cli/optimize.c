/* optimize.c — `nnfx optimize`: applies passes and rewrites in order,
 * validates the result numerically (and against labels), and writes it
 * only when every check passed. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/analysis.h"
#include "cli/fleet.h"
#include "cli/optimize.h"
#include "cli/report_graph.h"
#include "core/files.h"

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
    "                     In batch mode: the summary of every model. One model and\n"
    "                     FILE.html: a page with the model before and after in one\n"
    "                     drawing, removed/added/changed nodes marked\n"
    "  --external-data    write ONNX weights to a side file\n"
    "  --opset N          write ONNX opset N (13 to 21; an error naming the node when\n"
    "                     a form needs a newer one). Default: the model's own opset\n"
    "                     (at least 13), raised only when a form needs it (a note says so)\n"
    "The written model records producer nnfx and metadata_props nnfx.version,\n"
    "nnfx.build, nnfx.source_sha256, nnfx.steps and, when checked, nnfx.validation.\n"
    "  --batch LIST       read model paths from LIST (one a line, # comments; a NUL\n"
    "  --list LIST        byte is an error, exit 3); --list is the same option (the\n"
    "                     name quantize, prune, analyze and push use)\n"
    "  --jobs N           models optimised at once in batch mode (default 1)\n"
    "  --shard K/N        batch mode: take only shard K of N (1 <= K <= N), the\n"
    "                     models whose path (as listed) hashes to K: each model\n"
    "                     in exactly one shard, stable when the list is\n"
    "                     reordered or grows. Shards may share -o (distinct files,\n"
    "                     atomic renames); give each its own --report, then\n"
    "                     'nnfx report merge'\n"
    "  --cache DIR        reuse an earlier result when the model's bytes (and its\n"
    "                     .data/.safetensors), the paths, every option and nnfx's\n"
    "                     version and build are the same (with --validate or\n"
    "                     --labels also the CPU features the checks ran on): the\n"
    "                     output is linked or copied from DIR and the report entry\n"
    "                     says \"cache\": \"hit\". Entries\n"
    "                     carry digests: a corrupt one is redone and replaced\n"
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

/* The state of optimising one model, shared by opt_one's phases. */
typedef struct opt_run {
    const opt_opts *o;
    const char *model, *out;
    opt_result *res;
    nnfx_error err;
    nnfx_graph *orig, *g; /* as loaded; the copy the steps change */
    sbuf steps;           /* the report's steps, with timings */
    sbuf psteps;          /* nnfx.steps: deterministic, no timings */
    cli_compare_result cmp;
    cli_accuracy acc;
    cli_provenance prov;
    char errmsg[1100];
    int rc;
    bool talk;
    bool weightless; /* a text IR loaded without its values (text to text only) */
    double t_load, t_steps, t_val, t_save;
} opt_run;

/* The output rule for one model: it (its values or external data), the
 * --input files and the labels against -o (and its side file) and, for a
 * single model, --report. g: the loaded model, or NULL before loading. */
static int check_paths(const opt_run *r, const nnfx_graph *g) {
    cli_io io;
    cli_io_init(&io, "optimize");
    cli_io_model_in(&io, "the model", r->model);
    if (g) cli_io_graph_in(&io, "the model", g);
    for (int i = 0; i < r->o->samples.nfiles; i++)
        cli_io_binding_in(&io, "--input", r->o->samples.files[i]);
    cli_io_in(&io, "--labels", r->o->labels);
    cli_io_model_out(&io, r->o->batch ? "the output" : "-o", r->out);
    if (!r->o->batch) cli_io_out(&io, "--report", r->o->report);
    int rc = cli_io_check(&io);
    cli_io_free(&io);
    return rc;
}

/* Loads and checks the model, starts its provenance, copies it into r->g. */
static int opt_load(opt_run *r) {
    double t0 = cli_now_ms();
    if ((r->rc = check_paths(r, NULL))) {
        snprintf(r->errmsg, sizeof r->errmsg, "an output would replace an input or another output (see stderr)");
        r->res->paths_refused = true;
        return r->rc;
    }
    r->orig = cli_load_model_shapes(r->model, &r->weightless, &r->err);
    if (!r->orig || nnfx_graph_lint(r->orig, &r->err) || nnfx_graph_infer_shapes(r->orig, &r->err)) {
        r->rc = CLI_EXIT_BAD_INPUT;
        cli_fail("optimize", r->model, &r->err);
        snprintf(r->errmsg, sizeof r->errmsg, "%s", r->err.msg);
        return r->rc;
    }
    if ((r->rc = check_paths(r, r->orig))) {
        snprintf(r->errmsg, sizeof r->errmsg, "an output would replace an input or another output (see stderr)");
        r->res->paths_refused = true;
        return r->rc;
    }
    if ((r->rc = cli_provenance_begin(&r->prov, "optimize", r->model))) {
        snprintf(r->errmsg, sizeof r->errmsg, "cannot read the model to hash it");
        return r->rc;
    }
    r->prov.opset = r->o->opset;
    if (r->weightless && (r->o->validate || r->o->labels || !cli_is_text_ir_path(r->out))) {
        char msg[sizeof r->err.msg];
        cli_weightless_message(msg, sizeof msg, r->model);
        cli_error("optimize", "%s", msg);
        snprintf(r->errmsg, sizeof r->errmsg, "the text IR has no parameter values");
        return r->rc = CLI_EXIT_BAD_INPUT;
    }
    r->g = nnfx_graph_copy(r->orig, NULL, &r->err);
    if (!r->g) {
        r->rc = CLI_EXIT_BAD_INPUT;
        cli_fail("optimize", r->model, &r->err);
        snprintf(r->errmsg, sizeof r->errmsg, "%s", r->err.msg);
        return r->rc;
    }
    r->t_load = cli_now_ms() - t0;
    r->res->nodes_before = count_ops(r->orig);
    return r->rc;
}

/* One --rewrite step; appends its JSON to the steps. */
static void opt_rewrite_step(opt_run *r, const opt_step *st, int before) {
    int m = -1;
    nnfx_graph *pat = NULL, *repl = NULL;
    nnfx_rewrite_options ro = {0};
    ro.explain = r->o->explain;
    nnfx_match_list *ml = NULL;
    if (!nnfx_pattern_parse(st->text, &pat, &repl, &r->err) &&
        (ml = nnfx_replace_pattern_ex(r->g, pat, repl, &ro, &r->err)) != NULL)
        m = nnfx_match_list_count(ml);
    if (ml && r->o->explain) {
        char *ex = nnfx_rewrite_explain(ml);
        FILE *to = r->talk ? stdout : stderr;
        fprintf(to, "  explain --rewrite '%s':\n", st->text);
        for (char *line = ex ? strtok(ex, "\n") : NULL; line; line = strtok(NULL, "\n"))
            fprintf(to, "    %s\n", line);
        if (ex && !nnfx_match_list_num_candidates(ml)) fprintf(to, "    (no node has the pattern's anchor op)\n");
        free(ex);
    }
    nnfx_match_list_free(ml);
    nnfx_graph_free(pat);
    nnfx_graph_free(repl);
    nnfx_error terr = {0}; /* the result must be a valid graph, dtypes included */
    if (m > 0 && (nnfx_graph_infer_shapes(r->g, &terr) || nnfx_graph_check_types(r->g, &terr))) {
        nnfx_error_set(&r->err, terr.status ? terr.status : NNFX_ERR_GRAPH, "the rule makes the graph invalid: %s",
                       terr.msg);
        m = -1;
    }
    if (m < 0) {
        r->rc = CLI_EXIT_BAD_INPUT;
        cli_error("optimize", "%s: --rewrite '%s': %s", r->model, st->text, r->err.msg);
        snprintf(r->errmsg, sizeof r->errmsg, "rewrite '%s': %s", st->text, r->err.msg);
    } else if (st->expect_matches > 0 && m < st->expect_matches) {
        r->rc = CLI_EXIT_CHECK;
        cli_error("optimize", "%s: --rewrite '%s' matched %d time%s, --expect-matches wants %ld%s", r->model, st->text,
                  m, m == 1 ? "" : "s", st->expect_matches,
                  r->o->explain ? "" : " (--explain shows why candidates were rejected)");
        snprintf(r->errmsg, sizeof r->errmsg, "rewrite '%s' matched %d times, expected at least %ld", st->text, m,
                 st->expect_matches);
    } else if (m == 0 && !r->o->quiet) {
        fprintf(stderr, "nnfx optimize: warning: %s: --rewrite '%s' matched nothing%s\n", r->model, st->text,
                r->o->explain ? "" : " (--explain shows why)");
    }
    sb_printf(&r->steps, "\"rewrite\": ");
    cli_json_str(&r->steps, st->text);
    sb_printf(&r->steps, ", \"matches\": %d", m < 0 ? 0 : m);
    cli_json_str(&r->psteps, st->text);
    sb_printf(&r->psteps, ", \"matches\": %d}", m < 0 ? 0 : m);
    if (r->talk && m >= 0)
        printf("  rewrite '%s': %d match%s (ops %d -> %d)\n", st->text, m, m == 1 ? "" : "es", before, count_ops(r->g));
}

/* One --pass step; appends its JSON to the steps. */
static void opt_pass_step(opt_run *r, const opt_step *st, int before) {
    char name[64];
    nnfx_pass_report pr = {0};
    pass_known(st->text, name, sizeof name);
    if (nnfx_pass_run_by_name(r->g, name, &pr, &r->err)) {
        r->rc = r->err.status == NNFX_ERR_NOT_FOUND ? CLI_EXIT_USAGE : CLI_EXIT_BAD_INPUT;
        cli_error("optimize", "%s: pass %s: %s", r->model, name, r->err.msg);
        snprintf(r->errmsg, sizeof r->errmsg, "pass %s: %s", name, r->err.msg);
    }
    sb_printf(&r->steps, "\"pass\": ");
    cli_json_str(&r->steps, name);
    sb_printf(&r->steps, ", \"changed\": %d, \"skipped\": [", pr.changed);
    cli_json_str(&r->psteps, name);
    sb_printf(&r->psteps, ", \"changed\": %d}", pr.changed);
    for (int k = 0; k < pr.nskipped; k++) {
        sb_printf(&r->steps, "%s{\"node\": ", k ? ", " : "");
        cli_json_str(&r->steps, pr.skipped[k].node);
        sb_printf(&r->steps, ", \"reason\": ");
        cli_json_str(&r->steps, pr.skipped[k].reason);
        sb_printf(&r->steps, "}");
    }
    sb_printf(&r->steps, "]");
    if (r->talk && !r->rc)
        printf("  %s: %d change%s (ops %d -> %d)%s\n", name, pr.changed, pr.changed == 1 ? "" : "s", before,
               count_ops(r->g), pr.nskipped ? ", some skipped (see --report)" : "");
    nnfx_pass_report_free(&pr);
}

/* Every step in order, then the result is checked to be a valid graph. */
static void opt_steps(opt_run *r) {
    double t0 = cli_now_ms();
    sb_printf(&r->steps, "[");
    sb_printf(&r->psteps, "[");
    for (int i = 0; i < r->o->nsteps && !r->rc; i++) {
        const opt_step *st = &r->o->steps[i];
        double ts = cli_now_ms();
        int before = count_ops(r->g);
        sb_printf(&r->steps, "%s\n    {", i ? "," : "");
        sb_printf(&r->psteps, "%s{\"%s\": ", i ? ", " : "", st->is_rewrite ? "rewrite" : "pass");
        if (st->is_rewrite)
            opt_rewrite_step(r, st, before);
        else
            opt_pass_step(r, st, before);
        sb_printf(&r->steps, ", \"ops_before\": %d, \"ops_after\": %d, \"ms\": %.3f}", before, count_ops(r->g),
                  cli_now_ms() - ts);
    }
    sb_printf(&r->steps, "]");
    sb_printf(&r->psteps, "]");
    r->prov.steps = sb_finish(&r->psteps);
    if (!r->rc && (nnfx_graph_lint(r->g, &r->err) || nnfx_graph_infer_shapes(r->g, &r->err) ||
                   nnfx_graph_check_types(r->g, &r->err))) {
        r->rc = CLI_EXIT_BAD_INPUT;
        cli_error("optimize", "%s: the optimised graph is invalid: %s", r->model, r->err.msg);
        snprintf(r->errmsg, sizeof r->errmsg, "the optimised graph is invalid: %s", r->err.msg);
    }
    r->t_steps = cli_now_ms() - t0;
    r->res->nodes_after = count_ops(r->g);
}

/* --validate and --labels; false when a check failed (r->rc: could not run). */
static bool opt_checks(opt_run *r) {
    bool checks_ok = true;
    if (!r->rc && r->o->validate) {
        r->rc = cli_compare_graphs("optimize", r->orig, r->model, r->g, r->out, &r->o->samples, r->o->atol, r->o->rtol,
                                   r->o->quiet || r->o->batch, &r->cmp);
        r->res->validated = !r->rc;
        r->res->max_abs = r->cmp.max_abs;
        if (!r->rc && !r->cmp.passed) {
            checks_ok = false;
            if (r->cmp.diverging[0])
                cli_error("optimize", "%s: validation failed: %s; first diverging node: %s", r->model, r->cmp.detail,
                          r->cmp.diverging);
            else
                cli_error("optimize", "%s: validation failed: %s", r->model, r->cmp.detail);
        }
        if (r->talk && !r->rc)
            printf("  validate on %ld %ssample%s: %s, every output within atol %g + rtol %g x |a| %s (max abs error "
                   "%.3g, max rel error %.3g)\n",
                   r->cmp.rows, r->o->samples.random > 0 ? "random " : "", r->cmp.rows == 1 ? "" : "s",
                   r->cmp.passed ? "ok" : "FAILED", r->o->atol, r->o->rtol, r->cmp.passed ? "holds" : "fails",
                   r->cmp.max_abs, r->cmp.max_rel);
    }
    if (!r->rc && r->o->labels) {
        r->rc = cli_accuracy_graphs("optimize", r->orig, r->g, &r->o->samples, r->o->labels, &r->acc);
        r->res->have_acc = !r->rc;
        r->res->drop = r->acc.drop;
        bool gate_failed = r->o->max_drop >= 0 && r->acc.drop > r->o->max_drop;
        if (!r->rc && gate_failed) {
            checks_ok = false;
            cli_error("optimize", "%s: accuracy gate failed: top-1 %.2f%% -> %.2f%%, a drop of %.2f points (max %g)",
                      r->model, r->acc.acc_a, r->acc.acc_b, r->acc.drop, r->o->max_drop);
        }
        if (r->talk && !r->rc && r->o->max_drop >= 0)
            printf("  accuracy on %ld labelled samples: %.2f%% -> %.2f%% (drop %.2f points, max %g): %s\n",
                   r->acc.samples, r->acc.acc_a, r->acc.acc_b, r->acc.drop, r->o->max_drop,
                   gate_failed ? "FAILED" : "ok");
        else if (r->talk && !r->rc)
            printf("  accuracy on %ld labelled samples: %.2f%% -> %.2f%% (drop %.2f points; no gate without "
                   "--max-accuracy-drop)\n",
                   r->acc.samples, r->acc.acc_a, r->acc.acc_b, r->acc.drop);
    }
    return checks_ok;
}

/* The checks' figures for the written model's nnfx.validation. */
static void opt_validation_json(opt_run *r) {
    if (r->rc || !(r->o->validate || r->res->have_acc)) return;
    sbuf v = {0};
    sb_printf(&v, "{");
    if (r->o->validate) {
        sb_printf(&v, "\"samples\": %ld, \"source\": \"%s\", \"atol\": ", r->cmp.rows,
                  r->o->samples.random > 0 ? "random" : "inputs");
        cli_json_num(&v, r->o->atol);
        sb_printf(&v, ", \"rtol\": ");
        cli_json_num(&v, r->o->rtol);
        sb_printf(&v, ", \"max_abs_error\": ");
        cli_json_num(&v, r->cmp.max_abs);
        sb_printf(&v, ", \"max_rel_error\": ");
        cli_json_num(&v, r->cmp.max_rel);
        sb_printf(&v, ", \"passed\": %s", r->cmp.passed ? "true" : "false");
    }
    if (r->res->have_acc) {
        sb_printf(&v, "%s\"accuracy\": {", r->o->validate ? ", " : "");
        cli_accuracy_json(&v, &r->acc, r->o->max_drop);
        sb_printf(&v, "}");
    }
    sb_printf(&v, "}");
    r->prov.validation = sb_finish(&v);
}

/* Writes r->g to r->out (only when every check passed). */
static void opt_save(opt_run *r) {
    if (r->rc) return;
    double t0 = cli_now_ms();
    nnfx_graph_drop_unused_params(r->g);
    cli_provenance_use(&r->prov);
    if (r->weightless ? cli_save_model_weightless(r->g, r->out, &r->err)
                      : cli_save_model(r->g, r->out, r->o->external_data, &r->err)) {
        r->rc = CLI_EXIT_BAD_INPUT;
        cli_fail("optimize", r->out, &r->err);
        snprintf(r->errmsg, sizeof r->errmsg, "%s", r->err.msg);
    }
    r->t_save = cli_now_ms() - t0;
    if (r->talk && !r->rc)
        printf("%s -> %s: ops %d -> %d\n", r->model, r->out, r->res->nodes_before, r->res->nodes_after);
}

/* The JSON report of the run (res->report). */
static void opt_report(opt_run *r, double t_start) {
    sbuf rep = {0};
    r->res->rc = r->rc;
    r->res->ms = cli_now_ms() - t_start;
    snprintf(r->res->status, sizeof r->res->status, "%s",
             r->rc == CLI_EXIT_OK      ? "ok"
             : r->rc == CLI_EXIT_CHECK ? "check failed"
                                       : "error");
    sb_printf(&rep, "{\n  \"model\": ");
    cli_json_str(&rep, r->model);
    sb_printf(&rep, ",\n  \"output\": ");
    if (r->rc == CLI_EXIT_OK)
        cli_json_str(&rep, r->out);
    else
        sb_printf(&rep, "null");
    struct stat st;
    if (stat(r->model, &st) == 0) sb_printf(&rep, ",\n  \"input_bytes\": %lld", (long long)st.st_size);
    uint64_t out_bytes = 0;
    if (r->rc == CLI_EXIT_OK && core_file_size_staged(r->out, &out_bytes)) /* written, not yet renamed */
        sb_printf(&rep, ",\n  \"output_bytes\": %llu", (unsigned long long)out_bytes);
    sb_printf(&rep, ",\n  \"result\": \"%s\",\n  \"exit_code\": %d", r->res->status, r->rc);
    if (r->o->cache) sb_printf(&rep, ",\n  \"cache\": \"miss\"");
    if (r->errmsg[0]) {
        sb_printf(&rep, ",\n  \"error\": ");
        cli_json_str(&rep, r->errmsg);
    }
    char *steps_s = sb_finish(&r->steps);
    sb_printf(&rep, ",\n  \"steps\": %s", steps_s && steps_s[0] ? steps_s : "[]");
    free(steps_s);
    if (r->orig) {
        sb_printf(&rep, ",\n  \"ops_before\": ");
        op_counts_json(&rep, r->orig);
        sb_printf(&rep, ",\n  \"nodes_before\": %d", r->res->nodes_before);
    }
    if (r->g) {
        sb_printf(&rep, ",\n  \"ops_after\": ");
        op_counts_json(&rep, r->g);
        sb_printf(&rep, ",\n  \"nodes_after\": %d", r->res->nodes_after);
        sb_printf(&rep, ",\n  \"nodes_removed\": ");
        missing_json(&rep, r->orig, r->g);
        sb_printf(&rep, ",\n  \"nodes_added\": ");
        missing_json(&rep, r->g, r->orig);
    }
    if (r->o->validate && r->res->validated) {
        sb_printf(&rep, ",\n  \"validation\": {\"samples\": %ld, \"runs\": %d, \"source\": ", r->cmp.rows,
                  r->cmp.samples);
        cli_json_str(&rep, r->o->samples.random > 0 ? "random" : "inputs");
        sb_printf(&rep, ", \"outputs\": %d, \"max_abs_error\": ", r->cmp.outputs);
        cli_json_num(&rep, r->cmp.max_abs);
        sb_printf(&rep, ", \"max_rel_error\": ");
        cli_json_num(&rep, r->cmp.max_rel);
        sb_printf(&rep, ", \"atol\": ");
        cli_json_num(&rep, r->o->atol);
        sb_printf(&rep, ", \"rtol\": ");
        cli_json_num(&rep, r->o->rtol);
        sb_printf(&rep, ", \"passed\": %s, \"detail\": ", r->cmp.passed ? "true" : "false");
        cli_json_str(&rep, r->cmp.detail);
        sb_printf(&rep, ", \"first_diverging_node\": ");
        if (r->cmp.diverging[0])
            cli_json_str(&rep, r->cmp.diverging);
        else
            sb_printf(&rep, "null");
        sb_printf(&rep, "}");
    }
    if (r->res->have_acc) {
        sb_printf(&rep, ",\n  \"accuracy\": {\"labels\": ");
        cli_json_str(&rep, r->o->labels);
        sb_printf(&rep, ", ");
        cli_accuracy_json(&rep, &r->acc, r->o->max_drop);
        sb_printf(&rep, "}");
    }
    sb_printf(&rep,
              ",\n  \"timings_ms\": {\"load\": %.3f, \"steps\": %.3f, \"checks\": %.3f, \"save\": %.3f, "
              "\"total\": %.3f}\n}",
              r->t_load, r->t_steps, r->t_val, r->t_save, r->res->ms);
    r->res->report = sb_finish(&rep);
}

/* --report FILE.html (one model): the outcome, and the model before and
 * after in one drawing (res->html). */
static void opt_report_html(opt_run *r) {
    nnfx_error e = {0};
    if (!r->orig || !r->g || nnfx_graph_infer_shapes(r->orig, &e) || nnfx_graph_infer_shapes(r->g, &e)) return;
    sbuf s = {0};
    sb_printf(&s, "<p class=\"verdict %s\"><b>%s</b> ops %d &rarr; %d.", r->rc ? "bad" : "good",
              r->rc == CLI_EXIT_OK      ? "Optimized."
              : r->rc == CLI_EXIT_CHECK ? "Check failed."
                                        : "Error.",
              r->res->nodes_before, r->res->nodes_after);
    if (r->o->validate && r->res->validated)
        sb_printf(&s, " Outputs on %ld samples: largest difference %.3g (relative %.3g), %s.", r->cmp.rows,
                  r->cmp.max_abs, r->cmp.max_rel, r->cmp.passed ? "within the tolerance" : "over the tolerance");
    if (r->res->have_acc)
        sb_printf(&s, " Top-1 accuracy on %ld labelled samples: %.2f%% &rarr; %.2f%% (drop %.2f points).",
                  r->acc.samples, r->acc.acc_a, r->acc.acc_b, r->acc.drop);
    sb_printf(&s, "</p>");
    char *sum = sb_finish(&s), title[512];
    snprintf(title, sizeof title, "nnfx optimize: %s", r->model);
    r->res->html = cli_rewrite_page(title, sum, r->orig, r->model, r->g, r->rc ? "(not written)" : r->out, NULL);
    free(sum);
}

static void opt_work(const opt_opts *o, const char *model, const char *out, opt_result *res) {
    memset(res, 0, sizeof *res);
    double t_start = cli_now_ms();
    opt_run run = {0}, *r = &run;
    r->o = o, r->model = model, r->out = out, r->res = res;
    r->talk = !o->quiet && !o->batch && !(o->report && strcmp(o->report, "-") == 0);
    if (!opt_load(r)) {
        opt_steps(r);
        double t0 = cli_now_ms();
        bool checks_ok = !r->rc && opt_checks(r);
        r->t_val = cli_now_ms() - t0;
        if (r->rc && !r->errmsg[0]) snprintf(r->errmsg, sizeof r->errmsg, "the checks could not run (see stderr)");
        if (!r->rc && !checks_ok) r->rc = CLI_EXIT_CHECK;
        opt_validation_json(r);
        if (!r->rc) r->rc = cli_provenance_check_opset("optimize", r->g, &r->prov, o->quiet);
        if (r->rc && !r->errmsg[0]) snprintf(r->errmsg, sizeof r->errmsg, "the model does not fit the requested opset");
        opt_save(r);
    }
    opt_report(r, t_start);
    if (o->report && !o->batch && cli_report_is_html(o->report)) opt_report_html(r);
    free(sb_finish(&r->steps));
    free(sb_finish(&r->psteps));
    cli_provenance_free(&r->prov);
    nnfx_graph_free(r->orig);
    nnfx_graph_free(r->g);
}

/* Everything besides the model's bytes that changes the result or its
 * report: the paths (they are in the report), the steps in order, the
 * checks and their data (by digest), the output form, and with checks the
 * host's CPU features. */
static char *opt_recipe(const opt_opts *o, const char *model, const char *out) {
    sbuf b = {0};
    sb_printf(&b, "command optimize\nmodel ");
    cli_json_str(&b, model);
    sb_printf(&b, "\noutput ");
    cli_json_str(&b, out);
    sb_printf(&b, "\n");
    for (int i = 0; i < o->nsteps; i++) {
        sb_printf(&b, "%s ", o->steps[i].is_rewrite ? "rewrite" : "pass");
        cli_json_str(&b, o->steps[i].text);
        sb_printf(&b, " expect %ld\n", o->steps[i].expect_matches);
    }
    sb_printf(&b, "validate %d random %ld atol %.17g rtol %.17g max_drop %.17g external_data %d opset %ld explain %d\n",
              o->validate, o->samples.random, o->atol, o->rtol, o->max_drop, o->external_data, o->opset, o->explain);
    for (int i = 0; i < o->samples.nfiles; i++) {
        const char *eq = strchr(o->samples.files[i], '=');
        sb_printf(&b, "input-name ");
        cli_json_str(&b, o->samples.files[i]);
        sb_printf(&b, "\n");
        cli_cache_recipe_file(&b, "input", eq ? eq + 1 : o->samples.files[i]);
    }
    if (o->labels) cli_cache_recipe_file(&b, "labels", o->labels);
    /* checks run the model on this host's kernels: their figures (and a
     * borderline verdict) may differ on a host with other CPU features */
    if (o->validate || o->labels) cli_cache_recipe_host(&b);
    return sb_finish(&b);
}

/* The files one output consists of: the model, its external data (ONNX) or
 * its parameter values (text IR). */
static int opt_out_files(const opt_opts *o, const char *out, char **files) {
    sbuf b = {0};
    files[0] = (char *)out;
    if (cli_is_text_ir_path(out))
        sb_printf(&b, "%s.safetensors", out);
    else if (o->external_data)
        sb_printf(&b, "%s.data", out);
    else
        return 1;
    files[1] = sb_finish(&b);
    return files[1] ? 2 : 1;
}

void opt_one(const opt_opts *o, const char *model, const char *out, opt_result *res) {
    if (!o->cache) {
        opt_work(o, model, out, res);
        return;
    }
    double t0 = cli_now_ms();
    char key[65], *files[2] = {NULL, NULL}, *report = NULL, *meta = NULL;
    nnfx_error err = {0};
    char *recipe = opt_recipe(o, model, out);
    int nfiles = opt_out_files(o, out, files);
    bool keyed = recipe && cli_cache_key(recipe, model, key, &err) == NNFX_OK;
    free(recipe);
    memset(res, 0, sizeof *res);
    if (keyed && cli_cache_get("optimize", o->cache, key, nfiles, (const char *const *)files, &report, &meta)) {
        int validated = 0, have_acc = 0;
        char *hit = strstr(report, "\"cache\": \"miss\"");
        if (sscanf(meta, "%d %d %d %d %lg %d %lg", &res->rc, &res->nodes_before, &res->nodes_after, &validated,
                   &res->max_abs, &have_acc, &res->drop) == 7 &&
            hit) {
            memcpy(hit, "\"cache\": \"hit\" ", 15); /* same length: "hit" and a space */
            res->validated = validated, res->have_acc = have_acc, res->cached = true;
            res->report = report;
            res->ms = cli_now_ms() - t0;
            snprintf(res->status, sizeof res->status, "%s", res->rc == CLI_EXIT_OK ? "ok" : "check failed");
            if (!o->quiet && !o->batch) printf("%s -> %s: cached\n", model, out);
            free(meta);
            if (files[1]) free(files[1]);
            return;
        }
        free(report);
    }
    free(meta);
    opt_work(o, model, out, res);
    if (keyed && res->report && (res->rc == CLI_EXIT_OK || res->rc == CLI_EXIT_CHECK)) {
        /* stored by opt_cache_store once the staged outputs are in place */
        snprintf(res->cache_line, sizeof res->cache_line, "%d %d %d %d %.17g %d %.17g\n", res->rc, res->nodes_before,
                 res->nodes_after, res->validated, res->max_abs, res->have_acc, res->drop);
        memcpy(res->cache_key, key, sizeof res->cache_key);
        res->cache_store = true;
    }
    if (files[1]) free(files[1]);
}

void opt_cache_store(const opt_opts *o, const char *out, const opt_result *res) {
    if (!o->cache || !res->cache_store || !res->report) return;
    char *files[2] = {NULL, NULL};
    int nfiles = opt_out_files(o, out, files);
    cli_cache_put("optimize", o->cache, res->cache_key, nfiles, (const char *const *)files, res->rc == CLI_EXIT_OK,
                  res->report, res->cache_line);
    if (files[1]) free(files[1]);
}

/* --- command line ----------------------------------------------------------------- */

#define OPT_MAX 1024

/* Appends the steps of one --pass (a comma list, split in place: argv
 * strings are writable) or --rewrite option. */
static int add_steps(opt_opts *o, opt_step *steps, char *piece, bool is_rewrite) {
    char *comma = is_rewrite ? NULL : strchr(piece, ',');
    for (;;) {
        if (comma) *comma = '\0';
        if (o->nsteps == OPT_MAX) return cli_usage_error("optimize", "too many steps");
        if (!is_rewrite && !*piece) return cli_usage_error("optimize", "--pass: an empty pass name in a list");
        steps[o->nsteps].is_rewrite = is_rewrite;
        steps[o->nsteps].expect_matches = 0;
        steps[o->nsteps++].text = piece;
        if (!comma) return CLI_EXIT_OK;
        piece = comma + 1;
        comma = strchr(piece, ',');
    }
}

/* Every --rewrite parses and has a replacement; every --pass exists. */
static int check_steps(const opt_opts *o) {
    const opt_step *steps = o->steps;
    for (int i = 0; i < o->nsteps; i++) {
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
    return CLI_EXIT_OK;
}

/* Reads the model paths of a --batch LIST (one a line, # comments) into
 * models; *buf holds the strings (the caller frees it). A NUL byte, which
 * no path can hold and which would end the list early, is an error (exit
 * 3) naming its line. */
static int read_model_list(const char *batch, char **models, int *nmodels, char **buf) {
    nnfx_error err = {0};
    size_t len = 0;
    *buf = cli_read_file(batch, &len, &err);
    if (!*buf) {
        cli_fail("optimize", batch, &err);
        return CLI_EXIT_BAD_INPUT;
    }
    const char *nul = memchr(*buf, '\0', len);
    if (nul) {
        long line = 1;
        for (const char *p = *buf; p < nul; p++)
            line += *p == '\n';
        free(*buf);
        *buf = NULL;
        cli_error("optimize", "%s:%ld: a NUL byte in the list (a model path cannot hold one; is this a text file?)",
                  batch, line);
        return CLI_EXIT_BAD_INPUT;
    }
    for (char *line = strtok(*buf, "\n"); line; line = strtok(NULL, "\n")) {
        while (*line == ' ' || *line == '\t')
            line++;
        size_t n = strlen(line);
        while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (!*line || *line == '#') continue;
        if (*nmodels == OPT_MAX) {
            free(*buf);
            *buf = NULL;
            return cli_usage_error("optimize", "%s: more than %d models", batch, OPT_MAX);
        }
        models[(*nmodels)++] = line;
    }
    if (!*nmodels) {
        free(*buf);
        *buf = NULL;
        cli_error("optimize", "%s: the list names no models", batch);
        return CLI_EXIT_BAD_INPUT;
    }
    return CLI_EXIT_OK;
}

/* One model: optimise it and write the --report. */
static int optimize_one(const opt_opts *o, const char *model, const char *out) {
    opt_result res;
    cli_out_begin(); /* the model and the report are renamed into place together */
    opt_one(o, model, out, &res);
    int rc = res.rc;
    if (o->report && !res.paths_refused) { /* res.report NULL: out of memory making it */
        nnfx_error err = {0};
        char *s = NULL;
        const char *text = cli_report_is_html(o->report) && res.html ? res.html : res.report;
        if (text) { /* NULL: out of memory making it */
            sbuf b = {0};
            sb_printf(&b, "%s\n", text);
            s = sb_finish(&b);
        }
        if (cli_write_text(o->report, s, &err)) {
            cli_fail("optimize", o->report, &err);
            if (!rc) rc = CLI_EXIT_BAD_INPUT;
        }
        free(s);
    }
    int end = cli_out_end("optimize", rc);
    if (end == rc) opt_cache_store(o, out, &res); /* its files are in place */
    free(res.report);
    free(res.html);
    return end;
}

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
            int rc = add_steps(&o, steps, (char *)v, is_rewrite);
            if (rc) return rc;
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
        } else if (cli_opt(&a, "--batch", NULL, &v) || cli_opt(&a, "--list", NULL, &v)) {
            if (batch && v && !a.bad)
                return cli_usage_error("optimize", "--batch/--list given twice ('%s' and '%s')", batch, v);
            batch = v;
        } else if (cli_opt(&a, "--shard", NULL, &v)) {
            if (!a.bad && !cli_shard_parse(v, &o.shard_k, &o.shard_n))
                return cli_usage_error("optimize", "--shard wants K/N with 1 <= K <= N <= %d, not '%s'", CLI_SHARD_MAX,
                                       v);
        } else if (cli_opt(&a, "--cache", NULL, &v)) {
            o.cache = v;
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
    if (!*out) return cli_usage_error("optimize", "-o: an empty path (name a file or folder)");
    if (batch && !*batch) return cli_usage_error("optimize", "--batch: an empty path (name a list file)");
    if (o.samples.nfiles && o.samples.random)
        return cli_usage_error("optimize", "--input and --random exclude each other");
    if ((o.samples.nfiles || o.samples.random || have_atol_rtol) && !o.validate && !o.labels)
        return cli_usage_error("optimize", "--input, --random, --atol and --rtol go with --validate or --labels");
    if (!o.labels && o.max_drop >= 0) return cli_usage_error("optimize", "--max-accuracy-drop needs --labels FILE.npy");
    if (o.labels && !o.samples.nfiles)
        return cli_usage_error("optimize", "--labels needs the labelled inputs: --input NAME=FILE");
    if (o.validate && !o.samples.nfiles && !o.samples.random) o.samples.random = 4;
    int rc = check_steps(&o);
    if (rc) return rc;
    bool batch_mode = batch || nmodels > 1 || cli_is_dir(out) || out[strlen(out) - 1] == '/';
    if (o.shard_n && !batch_mode) return cli_usage_error("optimize", "--shard goes with batch mode (-o DIR)");

    if (batch_mode) {
        o.batch = true;
        o.batch_list = batch;
        char *buf = NULL;
        if (batch && (rc = read_model_list(batch, models, &nmodels, &buf))) return rc;
        rc = opt_batch(&o, nmodels, models, out, jobs);
        free(buf);
        return rc;
    }

    return optimize_one(&o, models[0], out);
}
