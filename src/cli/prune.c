/* prune.c — `nnfx prune`: structured channel pruning over dependency
 * groups (or unstructured magnitude sparsity), an optional accuracy gate
 * on labelled data, a JSON report; the model is written only when every
 * step and check passed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fleet.h"
#include "cli/cli.h"
#include "cli/report_graph.h"
#include "cli/validate.h"

static const char prune_help[] =
    "usage: nnfx prune MODEL -o OUT (--ratio R | --sparsity S) [--criterion l1|l2|bn-scale|random]\n"
    "                  [--scope layer|global] [--round-to N] [--exclude NODE]... [--seed N]\n"
    "                  [--input NAME=FILE... --labels FILE.npy --max-accuracy-drop PCT]\n"
    "                  [--report FILE.json] [--groups] [-q]\n"
    "\n"
    "Structured pruning: removes the share R of the channels of every dependency\n"
    "group (the tensors that must shrink together: a Conv's output, the BN after\n"
    "it, the next layer's input, every branch of a residual Add, its slice of a\n"
    "Concat, the features it becomes after Flatten...). The result is a smaller\n"
    "model, not a masked one. Channels reaching a graph input or output, or an op\n"
    "pruning does not follow, are kept (--groups says which and why).\n"
    "\n"
    "options:\n"
    "  -o OUT             the pruned model (.onnx, or .fx for the text IR)\n"
    "  --ratio R          share of channels to remove, 0 <= R < 1\n"
    "  --sparsity S       instead: set the share S of each Conv/Gemm/MatMul weight\n"
    "                     with the smallest |w| to zero (shapes stay)\n"
    "  --criterion C      l1 (default: mean |w| of the channel's producers), l2,\n"
    "                     bn-scale (|gamma| of its BatchNormalizations: network\n"
    "                     slimming), random\n"
    "  --scope S          layer (default: R of each group) or global (the lowest\n"
    "                     scores across all groups, R of all channels)\n"
    "  --round-to N       keep a multiple of N channels per group\n"
    "  --exclude NODE     keep every channel NODE reads or writes (repeatable)\n"
    "  --seed N           seed of --criterion random (default 0)\n"
    "  --input NAME=FILE, --labels FILE.npy, --max-accuracy-drop PCT\n"
    "                     accuracy gate: top-1 of the pruned model on the labelled\n"
    "                     inputs may fall at most PCT points below the original's\n"
    "  --report FILE.json per group: channels kept/removed, MACs and parameters\n"
    "                     before/after ('-' for stdout); FILE.html: a page with\n"
    "                     the model before and after in one drawing and the\n"
    "                     channels kept per group charted\n"
    "  --groups           print the dependency groups and write nothing else\n"
    "  -q, --quiet        no summary on stdout\n"
    "  -h, --help         this text\n"
    "list mode (a fleet of models):\n"
    "  --list LIST        run on every model of LIST (one path a line, # comments)\n"
    "                     into -o DIR (DIR/NAME; --report: the summary), and write one summary of\n"
    "                     all (--report R.json: optimize --batch's shape, each model's\n"
    "                     entry with its \"command\", exit_code and error; 'nnfx report\n"
    "                     merge' reads it). Exit status: the worst model's\n"
    "  --shard K/N        with --list: only the models of shard K of N, split as\n"
    "                     'optimize --shard' splits (by path; each model in one shard),\n"
    "                     so N machines may share one -o folder\n"
    "\n"
    "exit status: 0 written; 1 the accuracy gate failed (nothing written); 2 usage\n"
    "error (also a ratio outside [0, 1), an unknown --exclude node); 3 unreadable\n"
    "model, or nothing in it can be pruned.\n"
    "\n"
    "examples:\n"
    "  nnfx prune resnet18.onnx -o r18_half.onnx --ratio 0.5 --round-to 8 --report prune.json\n"
    "  nnfx prune model.onnx -o small.onnx --ratio 0.3 --scope global --criterion bn-scale \\\n"
    "       --input x=val.npy --labels val_labels.npy --max-accuracy-drop 1\n"
    "  nnfx prune model.onnx -o sparse.onnx --sparsity 0.7\n"
    "  nnfx prune model.onnx --groups\n";

#define PRUNE_MAX 256

static const char *role_name(int r) {
    switch (r) {
    case NNFX_PRUNE_ROLE_PRODUCER: return "producer";
    case NNFX_PRUNE_ROLE_CONSUMER: return "consumer";
    case NNFX_PRUNE_ROLE_BN_SCALE: return "bn-scale";
    default: return "other";
    }
}

static int print_groups(nnfx_graph *g, const char *model, int nexclude, const char *const *exclude) {
    nnfx_error err = {0};
    nnfx_prune_analysis *a = nnfx_prune_groups(g, nexclude, exclude, &err);
    if (!a)
        return err.status == NNFX_ERR_NOT_FOUND ? cli_usage_error("prune", "%s", err.msg)
                                                : cli_fail("prune", model, &err);
    for (int i = 0; i < nnfx_prune_num_groups(a); i++) {
        nnfx_prune_group_info gi;
        nnfx_prune_group_get(a, i, &gi);
        printf("group %d %%%s: %d channels, %d prunable%s%s\n", i, gi.name, gi.channels, gi.prunable,
               gi.reason[0] ? "; kept: " : "", gi.reason);
        for (int k = 0; k < gi.nmembers; k++) {
            nnfx_prune_member_info m;
            nnfx_prune_group_member(a, i, k, &m);
            printf("    %-8s %s axis %d [%lld] of %%%s (channels of %%%s from %lld)%s\n", role_name(m.role), m.param,
                   m.axis, (long long)m.size, m.node, m.value, (long long)m.offset,
                   m.shared ? "; shared: one slice for all its readers" : "");
        }
    }
    nnfx_prune_analysis_free(a);
    return CLI_EXIT_OK;
}

static void report_json(sbuf *b, const char *model, const char *out, const nnfx_prune_result *r, bool sparsity,
                        double amount, const char *criterion, const char *scope, long round_to, const cli_accuracy *acc,
                        bool have_acc, int rc) {
    sb_printf(b, "{\n  \"model\": ");
    cli_json_str(b, model);
    sb_printf(b, ",\n  \"output\": ");
    if (rc == CLI_EXIT_OK)
        cli_json_str(b, out);
    else
        sb_printf(b, "null");
    sb_printf(b, ",\n  \"exit_code\": %d,\n  \"mode\": \"%s\"", rc, sparsity ? "sparsity" : "channels");
    sb_printf(b, ",\n  \"%s\": ", sparsity ? "sparsity" : "ratio");
    cli_json_num(b, amount);
    if (!sparsity) {
        sb_printf(b, ",\n  \"criterion\": ");
        cli_json_str(b, criterion);
        sb_printf(b, ",\n  \"scope\": ");
        cli_json_str(b, scope);
        sb_printf(b, ",\n  \"round_to\": %ld,\n  \"channels_removed\": %d", round_to, r->channels_removed);
        sb_printf(b, ",\n  \"macs_before\": %lld,\n  \"macs_after\": %lld", (long long)r->macs_before,
                  (long long)r->macs_after);
    }
    sb_printf(b, ",\n  \"params_before\": %lld,\n  \"params_after\": %lld", (long long)r->params_before,
              (long long)r->params_after);
    if (have_acc) {
        sb_printf(b, ",\n  \"accuracy\": {\"samples\": %ld, \"before\": ", acc->samples);
        cli_json_num(b, acc->acc_a);
        sb_printf(b, ", \"after\": ");
        cli_json_num(b, acc->acc_b);
        sb_printf(b, ", \"drop\": ");
        cli_json_num(b, acc->drop);
        sb_printf(b, "}");
    }
    sb_printf(b, ",\n  \"%s\": [", sparsity ? "layers" : "groups");
    for (int i = 0; i < r->ngroups; i++) {
        const nnfx_prune_group_result *gr = &r->groups[i];
        sb_printf(b, "%s\n    {\"name\": ", i ? "," : "");
        cli_json_str(b, gr->name);
        if (sparsity) {
            sb_printf(b, ", \"weights\": %lld, \"nonzero\": %lld, \"sparsity\": ", (long long)gr->params_before,
                      (long long)gr->params_after);
            cli_json_num(b, gr->params_before ? 1.0 - (double)gr->params_after / (double)gr->params_before : 0.0);
            sb_printf(b, "}");
            continue;
        }
        sb_printf(b, ", \"channels\": %d, \"kept\": %d, \"removed\": %d, \"prunable\": %d", gr->channels, gr->kept,
                  gr->channels - gr->kept, gr->prunable);
        if (gr->reason[0]) {
            sb_printf(b, ", \"kept_because\": ");
            cli_json_str(b, gr->reason);
        }
        sb_printf(b, ", \"macs_before\": %lld, \"macs_after\": %lld, \"params_before\": %lld, \"params_after\": %lld}",
                  (long long)gr->macs_before, (long long)gr->macs_after, (long long)gr->params_before,
                  (long long)gr->params_after);
    }
    sb_printf(b, "\n  ]\n}\n");
}

/* --report FILE.html: the figures, one drawing of the model before and
 * after, and the channels kept per group (or the non-zero weights per
 * layer with --sparsity). */
static char *report_html(const char *model, const char *out, const nnfx_prune_result *r, bool sparsity,
                         const cli_accuracy *acc, bool have_acc, int rc, const nnfx_graph *before,
                         const nnfx_graph *after) {
    sbuf s = {0}, c = {0};
    char h1[32], h2[32], h3[32], h4[32];
    sb_printf(&s, "<p class=\"verdict %s\"><b>%s</b> ", rc ? "bad" : "good", rc ? "Accuracy gate failed." : "Pruned.");
    if (sparsity)
        sb_printf(&s, "%d weights, %lld of %lld elements zero.", r->ngroups,
                  (long long)(r->params_before - r->params_after), (long long)r->params_before);
    else
        sb_printf(&s, "%d groups, %d channels removed; MACs %s &rarr; %s, parameters %s &rarr; %s.", r->ngroups,
                  r->channels_removed, cli_human_count(r->macs_before, h1, sizeof h1),
                  cli_human_count(r->macs_after, h2, sizeof h2), cli_human_count(r->params_before, h3, sizeof h3),
                  cli_human_count(r->params_after, h4, sizeof h4));
    if (have_acc)
        sb_printf(&s, " Top-1 accuracy on %ld labelled samples: %.2f%% &rarr; %.2f%% (drop %.2f points).", acc->samples,
                  acc->acc_a, acc->acc_b, acc->drop);
    sb_printf(&s, "</p>");
    int n = r->ngroups;
    const char **label = calloc((size_t)n + 1, sizeof label[0]), **text = calloc((size_t)n + 1, sizeof text[0]);
    double *value = calloc((size_t)n + 1, sizeof value[0]), *total = calloc((size_t)n + 1, sizeof total[0]);
    char(*tx)[320] = calloc((size_t)n + 1, sizeof tx[0]);
    if (label && text && value && total && tx && n > 0) {
        for (int i = 0; i < n; i++) {
            const nnfx_prune_group_result *gr = &r->groups[i];
            label[i] = gr->name;
            value[i] = sparsity ? (double)gr->params_after : gr->kept;
            total[i] = sparsity ? (double)gr->params_before : gr->channels;
            if (sparsity)
                snprintf(tx[i], sizeof tx[i], "%lld of %lld non-zero", (long long)gr->params_after,
                         (long long)gr->params_before);
            else
                snprintf(tx[i], sizeof tx[i], "%d of %d kept%s%s", gr->kept, gr->channels, gr->reason[0] ? ": " : "",
                         gr->reason);
            text[i] = tx[i];
        }
        cli_bar_chart ch = {sparsity ? "nonzero" : "kept",
                            sparsity ? "Non-zero weights per layer" : "Channels kept per group",
                            sparsity ? "dark: non-zero, light: all weights" : "dark: kept, light: all channels",
                            n,
                            label,
                            text,
                            value,
                            total,
                            NULL,
                            0};
        sb_printf(&c, "<h2>Per %s</h2>", sparsity ? "layer" : "group");
        cli_html_bars(&c, &ch);
    }
    free(label);
    free(text);
    free(value);
    free(total);
    free(tx);
    char *sum = sb_finish(&s), *charts = sb_finish(&c), title[512];
    snprintf(title, sizeof title, "nnfx prune: %s", model);
    char *page = cli_rewrite_page(title, sum, before, model, after, rc ? "(not written)" : out, charts);
    free(sum);
    free(charts);
    return page;
}

/* The options of one `nnfx prune` run. */
typedef struct prune_opts {
    const char *model, *out, *report, *labels, *criterion, *scope;
    const char *exclude[PRUNE_MAX];
    char *inputs[PRUNE_MAX];
    int nexclude, ninputs;
    double ratio, sparsity, max_drop;
    long round_to, seed;
    bool quiet, groups;
} prune_opts;

/* Reads the command line into o; CLI_EXIT_OK or a usage error's status. */
static int prune_parse(prune_opts *o, int argc, char **argv) {
    cli_args a;
    const char *v;
    cli_args_init(&a, "prune", argc, argv);
    o->criterion = "l1", o->scope = "layer";
    o->ratio = o->sparsity = o->max_drop = -1;
    while (cli_args_more(&a)) {
        if (cli_opt(&a, "--output", "-o", &v)) {
            o->out = v;
        } else if (cli_opt(&a, "--ratio", NULL, &v)) {
            if (!cli_parse_nonneg_double(v, &o->ratio) || o->ratio >= 1)
                return cli_usage_error("prune", "--ratio wants a share of channels in [0, 1), not '%s'", v);
        } else if (cli_opt(&a, "--sparsity", NULL, &v)) {
            if (!cli_parse_nonneg_double(v, &o->sparsity) || o->sparsity >= 1)
                return cli_usage_error("prune", "--sparsity wants a share of weights in [0, 1), not '%s'", v);
        } else if (cli_opt(&a, "--criterion", NULL, &v)) {
            if (strcmp(v, "l1") && strcmp(v, "l2") && strcmp(v, "bn-scale") && strcmp(v, "random"))
                return cli_usage_error("prune", "--criterion wants l1, l2, bn-scale or random, not '%s'", v);
            o->criterion = v;
        } else if (cli_opt(&a, "--scope", NULL, &v)) {
            if (strcmp(v, "layer") && strcmp(v, "global"))
                return cli_usage_error("prune", "--scope wants layer or global, not '%s'", v);
            o->scope = v;
        } else if (cli_opt(&a, "--round-to", NULL, &v)) {
            if (!cli_parse_int(v, 1, 1 << 20, &o->round_to))
                return cli_usage_error("prune", "--round-to wants a channel count >= 1, not '%s'", v);
        } else if (cli_opt(&a, "--seed", NULL, &v)) {
            if (!cli_parse_int(v, 0, 0x7fffffffL, &o->seed))
                return cli_usage_error("prune", "--seed wants a number >= 0, not '%s'", v);
        } else if (cli_opt(&a, "--exclude", NULL, &v)) {
            if (o->nexclude == PRUNE_MAX) return cli_usage_error("prune", "too many --exclude options");
            o->exclude[o->nexclude++] = v[0] == '%' ? v + 1 : v;
        } else if (cli_opt(&a, "--input", NULL, &v)) {
            if (o->ninputs == PRUNE_MAX) return cli_usage_error("prune", "too many --input options");
            o->inputs[o->ninputs++] = (char *)v;
        } else if (cli_opt(&a, "--labels", NULL, &v)) {
            o->labels = v;
        } else if (cli_opt(&a, "--max-accuracy-drop", NULL, &v)) {
            if (!cli_parse_nonneg_double(v, &o->max_drop) || o->max_drop > 100)
                return cli_usage_error("prune", "--max-accuracy-drop wants percentage points from 0 to 100, not '%s'",
                                       v);
        } else if (cli_opt(&a, "--report", NULL, &v)) {
            o->report = v;
        } else if (cli_flag(&a, "--groups", NULL)) {
            o->groups = true;
        } else if (cli_flag(&a, "--quiet", "-q")) {
            o->quiet = true;
        } else {
            const char *p = cli_positional(&a);
            if (!p) return CLI_EXIT_USAGE;
            if (o->model) return cli_usage_error("prune", "one model at a time ('%s' and '%s')", o->model, p);
            o->model = p;
        }
    }
    if (a.bad) return CLI_EXIT_USAGE;
    if (!o->model) return cli_usage_error("prune", "no model given");
    if (!o->groups) {
        if (!o->out) return cli_usage_error("prune", "no output given (-o OUT)");
        if ((o->ratio < 0) == (o->sparsity < 0))
            return cli_usage_error("prune", "give one of --ratio R or --sparsity S");
    }
    if (o->labels && o->max_drop < 0) return cli_usage_error("prune", "--labels needs --max-accuracy-drop PCT");
    if (!o->labels && o->max_drop >= 0) return cli_usage_error("prune", "--max-accuracy-drop needs --labels FILE.npy");
    if (o->labels && !o->ninputs)
        return cli_usage_error("prune", "--labels needs the labelled inputs: --input NAME=FILE");
    if (o->ninputs && !o->labels) return cli_usage_error("prune", "--input goes with --labels (the accuracy gate)");
    return CLI_EXIT_OK;
}

/* The output rule: the model (its values or external data), the --input
 * files and the labels against -o (and its side file) and --report. g: the
 * loaded model, or NULL before loading. */
static int check_paths(const prune_opts *o, const nnfx_graph *g) {
    cli_io io;
    cli_io_init(&io, "prune");
    cli_io_model_in(&io, "the model", o->model);
    if (g) cli_io_graph_in(&io, "the model", g);
    for (int i = 0; i < o->ninputs; i++)
        cli_io_binding_in(&io, "--input", o->inputs[i]);
    cli_io_in(&io, "--labels", o->labels);
    cli_io_model_out(&io, "-o", o->out);
    cli_io_out(&io, "--report", o->report);
    int rc = cli_io_check(&io);
    cli_io_free(&io);
    return rc;
}

/* Prunes g: unstructured (--sparsity) or by dependency groups (--ratio). */
static nnfx_status prune_apply(const prune_opts *o, nnfx_graph *g, nnfx_prune_result *r, nnfx_error *err) {
    nnfx_status st;
    if (o->sparsity >= 0) {
        st = nnfx_prune_sparsity(g, o->sparsity, o->nexclude, o->exclude, r, err);
    } else {
        nnfx_prune_options po = {0};
        po.ratio = o->ratio;
        po.criterion = strcmp(o->criterion, "l2") == 0         ? NNFX_PRUNE_L2
                       : strcmp(o->criterion, "bn-scale") == 0 ? NNFX_PRUNE_BN_SCALE
                       : strcmp(o->criterion, "random") == 0   ? NNFX_PRUNE_RANDOM
                                                               : NNFX_PRUNE_L1;
        po.global = strcmp(o->scope, "global") == 0;
        po.round_to = (int)o->round_to;
        po.nexclude = o->nexclude;
        po.exclude = o->exclude;
        po.seed = (uint64_t)o->seed;
        st = nnfx_prune(g, &po, r, err);
    }
    return st;
}

/* The one-line summary (and the accuracy line) on standard output. */
static void prune_summary(const prune_opts *o, const nnfx_prune_result *r, const cli_accuracy *acc, bool have_acc) {
    if (o->sparsity >= 0)
        printf("%s -> %s: %d weights, %lld of %lld elements zero (%.1f%%)\n", o->model, o->out, r->ngroups,
               (long long)(r->params_before - r->params_after), (long long)r->params_before,
               r->params_before ? 100.0 * (double)(r->params_before - r->params_after) / (double)r->params_before : 0);
    else {
        int np = 0;
        for (int i = 0; i < r->ngroups; i++)
            np += r->groups[i].prunable > 0;
        printf("%s -> %s: %d groups (%d prunable), %d channels removed; MACs %lld -> %lld (%.3fx), parameters "
               "%lld -> %lld (%.3fx)\n",
               o->model, o->out, r->ngroups, np, r->channels_removed, (long long)r->macs_before,
               (long long)r->macs_after, r->macs_before ? (double)r->macs_after / (double)r->macs_before : 1.0,
               (long long)r->params_before, (long long)r->params_after,
               r->params_before ? (double)r->params_after / (double)r->params_before : 1.0);
    }
    if (have_acc)
        printf("  accuracy on %ld labelled samples: %.2f%% -> %.2f%% (drop %.2f points, max %g)\n", acc->samples,
               acc->acc_a, acc->acc_b, acc->drop, o->max_drop);
}

/* The command on one model (argv as given). */
static int prune_one(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(prune_help, stdout);
        return CLI_EXIT_OK;
    }
    prune_opts opts = {0}, *o = &opts;
    int rc = prune_parse(o, argc, argv);
    if (rc || (rc = check_paths(o, NULL))) return rc;
    nnfx_error err = {0};
    nnfx_graph *orig = cli_load_model(o->model, &err);
    if (!orig || nnfx_graph_lint(orig, &err) || nnfx_graph_infer_shapes(orig, &err)) {
        nnfx_graph_free(orig);
        return cli_fail("prune", o->model, &err);
    }
    if ((rc = check_paths(o, orig))) {
        nnfx_graph_free(orig);
        return rc;
    }
    if (o->groups) {
        rc = print_groups(orig, o->model, o->nexclude, o->exclude);
        nnfx_graph_free(orig);
        return rc;
    }
    nnfx_graph *g = nnfx_graph_copy(orig, NULL, &err);
    if (!g) {
        nnfx_graph_free(orig);
        return cli_fail("prune", o->model, &err);
    }
    nnfx_prune_result r = {0};
    nnfx_status st = prune_apply(o, g, &r, &err);
    if (st && strncmp(err.msg, "prune: ", 7) == 0) /* the command already says it */
        memmove(err.msg, err.msg + 7, strlen(err.msg + 7) + 1);
    if (st) rc = st == NNFX_ERR_NOT_FOUND ? cli_usage_error("prune", "%s", err.msg) : cli_fail("prune", o->model, &err);
    cli_accuracy acc = {0};
    bool have_acc = false;
    if (!rc && o->labels) {
        cli_samples s = {o->ninputs, o->inputs, 0};
        rc = cli_accuracy_graphs("prune", orig, g, &s, o->labels, &acc);
        have_acc = !rc;
        if (!rc && acc.drop > o->max_drop) {
            cli_error("prune", "%s: accuracy gate failed: top-1 %.2f%% -> %.2f%%, a drop of %.2f points (max %g)",
                      o->model, acc.acc_a, acc.acc_b, acc.drop, o->max_drop);
            rc = CLI_EXIT_CHECK;
        }
    }
    cli_out_begin(); /* the model and the report are renamed into place together */
    if (!rc && cli_save_model(g, o->out, false, &err)) rc = cli_fail("prune", o->out, &err);
    if (!rc && !o->quiet && !(o->report && strcmp(o->report, "-") == 0)) {
        prune_summary(o, &r, &acc, have_acc);
    }
    if (o->report && (rc == CLI_EXIT_OK || rc == CLI_EXIT_CHECK)) {
        sbuf b = {0};
        bool html = cli_report_is_html(o->report);
        if (!html)
            report_json(&b, o->model, o->out, &r, o->sparsity >= 0, o->sparsity >= 0 ? o->sparsity : o->ratio,
                        o->criterion, o->scope, o->round_to, &acc, have_acc, rc);
        char *s =
            html ? report_html(o->model, o->out, &r, o->sparsity >= 0, &acc, have_acc, rc, orig, g) : sb_finish(&b);
        if (cli_write_text(o->report, s, &err)) {
            int frc = cli_fail("prune", o->report, &err);
            if (!rc) rc = frc;
        }
        free(s);
    }
    rc = cli_out_end("prune", rc);
    nnfx_prune_result_free(&r);
    nnfx_graph_free(g);
    nnfx_graph_free(orig);
    return rc;
}

static const cli_fleet_cmd prune_list = {"prune", prune_one, "-o", "", "--report", "-q", false};

int cli_prune(int argc, char **argv) {
    if (!cli_wants_help(argc, argv) && cli_fleet_wanted(argc, argv)) return cli_fleet_run(&prune_list, argc, argv);
    return prune_one(argc, argv);
}
