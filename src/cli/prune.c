/* prune.c — `nnfx prune`: structured channel pruning over dependency
 * groups (or unstructured magnitude sparsity), an optional accuracy gate
 * on labelled data, a JSON report; the model is written only when every
 * step and check passed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
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
    "                     before/after ('-' for stdout)\n"
    "  --groups           print the dependency groups and write nothing else\n"
    "  -q, --quiet        no summary on stdout\n"
    "  -h, --help         this text\n"
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
            printf("    %-8s %s axis %d [%lld] of %%%s (channels of %%%s from %lld)\n", role_name(m.role), m.param,
                   m.axis, (long long)m.size, m.node, m.value, (long long)m.offset);
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

int cli_prune(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(prune_help, stdout);
        return CLI_EXIT_OK;
    }
    cli_args a;
    cli_args_init(&a, "prune", argc, argv);
    const char *model = NULL, *out = NULL, *report = NULL, *labels = NULL, *v;
    const char *criterion = "l1", *scope = "layer";
    const char *exclude[PRUNE_MAX];
    char *inputs[PRUNE_MAX];
    int nexclude = 0, ninputs = 0;
    double ratio = -1, sparsity = -1, max_drop = -1;
    long round_to = 0, seed = 0;
    bool quiet = false, groups = false;
    while (cli_args_more(&a)) {
        if (cli_opt(&a, "--output", "-o", &v)) {
            out = v;
        } else if (cli_opt(&a, "--ratio", NULL, &v)) {
            if (!cli_parse_nonneg_double(v, &ratio) || ratio >= 1)
                return cli_usage_error("prune", "--ratio wants a share of channels in [0, 1), not '%s'", v);
        } else if (cli_opt(&a, "--sparsity", NULL, &v)) {
            if (!cli_parse_nonneg_double(v, &sparsity) || sparsity >= 1)
                return cli_usage_error("prune", "--sparsity wants a share of weights in [0, 1), not '%s'", v);
        } else if (cli_opt(&a, "--criterion", NULL, &v)) {
            if (strcmp(v, "l1") && strcmp(v, "l2") && strcmp(v, "bn-scale") && strcmp(v, "random"))
                return cli_usage_error("prune", "--criterion wants l1, l2, bn-scale or random, not '%s'", v);
            criterion = v;
        } else if (cli_opt(&a, "--scope", NULL, &v)) {
            if (strcmp(v, "layer") && strcmp(v, "global"))
                return cli_usage_error("prune", "--scope wants layer or global, not '%s'", v);
            scope = v;
        } else if (cli_opt(&a, "--round-to", NULL, &v)) {
            if (!cli_parse_int(v, 1, 1 << 20, &round_to))
                return cli_usage_error("prune", "--round-to wants a channel count >= 1, not '%s'", v);
        } else if (cli_opt(&a, "--seed", NULL, &v)) {
            if (!cli_parse_int(v, 0, 0x7fffffffL, &seed))
                return cli_usage_error("prune", "--seed wants a number >= 0, not '%s'", v);
        } else if (cli_opt(&a, "--exclude", NULL, &v)) {
            if (nexclude == PRUNE_MAX) return cli_usage_error("prune", "too many --exclude options");
            exclude[nexclude++] = v[0] == '%' ? v + 1 : v;
        } else if (cli_opt(&a, "--input", NULL, &v)) {
            if (ninputs == PRUNE_MAX) return cli_usage_error("prune", "too many --input options");
            inputs[ninputs++] = (char *)v;
        } else if (cli_opt(&a, "--labels", NULL, &v)) {
            labels = v;
        } else if (cli_opt(&a, "--max-accuracy-drop", NULL, &v)) {
            if (!cli_parse_nonneg_double(v, &max_drop) || max_drop > 100)
                return cli_usage_error("prune", "--max-accuracy-drop wants percentage points from 0 to 100, not '%s'",
                                       v);
        } else if (cli_opt(&a, "--report", NULL, &v)) {
            report = v;
        } else if (cli_flag(&a, "--groups", NULL)) {
            groups = true;
        } else if (cli_flag(&a, "--quiet", "-q")) {
            quiet = true;
        } else {
            const char *p = cli_positional(&a);
            if (!p) return CLI_EXIT_USAGE;
            if (model) return cli_usage_error("prune", "one model at a time ('%s' and '%s')", model, p);
            model = p;
        }
    }
    if (a.bad) return CLI_EXIT_USAGE;
    if (!model) return cli_usage_error("prune", "no model given");
    if (!groups) {
        if (!out) return cli_usage_error("prune", "no output given (-o OUT)");
        if ((ratio < 0) == (sparsity < 0)) return cli_usage_error("prune", "give one of --ratio R or --sparsity S");
        if (cli_same_file(out, model)) return cli_usage_error("prune", "%s: -o would overwrite the input model", out);
    }
    if (labels && max_drop < 0) return cli_usage_error("prune", "--labels needs --max-accuracy-drop PCT");
    if (!labels && max_drop >= 0) return cli_usage_error("prune", "--max-accuracy-drop needs --labels FILE.npy");
    if (labels && !ninputs) return cli_usage_error("prune", "--labels needs the labelled inputs: --input NAME=FILE");
    if (ninputs && !labels) return cli_usage_error("prune", "--input goes with --labels (the accuracy gate)");

    nnfx_error err = {0};
    nnfx_graph *orig = cli_load_model(model, &err);
    if (!orig || nnfx_graph_lint(orig, &err) || nnfx_graph_infer_shapes(orig, &err)) {
        nnfx_graph_free(orig);
        return cli_fail("prune", model, &err);
    }
    if (groups) {
        int rc = print_groups(orig, model, nexclude, exclude);
        nnfx_graph_free(orig);
        return rc;
    }
    nnfx_graph *g = nnfx_graph_copy(orig, NULL, &err);
    if (!g) {
        nnfx_graph_free(orig);
        return cli_fail("prune", model, &err);
    }
    nnfx_prune_result r = {0};
    nnfx_status st;
    if (sparsity >= 0) {
        st = nnfx_prune_sparsity(g, sparsity, nexclude, exclude, &r, &err);
    } else {
        nnfx_prune_options o = {0};
        o.ratio = ratio;
        o.criterion = strcmp(criterion, "l2") == 0         ? NNFX_PRUNE_L2
                      : strcmp(criterion, "bn-scale") == 0 ? NNFX_PRUNE_BN_SCALE
                      : strcmp(criterion, "random") == 0   ? NNFX_PRUNE_RANDOM
                                                           : NNFX_PRUNE_L1;
        o.global = strcmp(scope, "global") == 0;
        o.round_to = (int)round_to;
        o.nexclude = nexclude;
        o.exclude = exclude;
        o.seed = (uint64_t)seed;
        st = nnfx_prune(g, &o, &r, &err);
    }
    int rc = CLI_EXIT_OK;
    if (st && strncmp(err.msg, "prune: ", 7) == 0) /* the command already says it */
        memmove(err.msg, err.msg + 7, strlen(err.msg + 7) + 1);
    if (st) rc = st == NNFX_ERR_NOT_FOUND ? cli_usage_error("prune", "%s", err.msg) : cli_fail("prune", model, &err);
    cli_accuracy acc = {0};
    bool have_acc = false;
    if (!rc && labels) {
        cli_samples s = {ninputs, inputs, 0};
        rc = cli_accuracy_graphs("prune", orig, g, &s, labels, &acc);
        have_acc = !rc;
        if (!rc && acc.drop > max_drop) {
            cli_error("prune", "%s: accuracy gate failed: top-1 %.2f%% -> %.2f%%, a drop of %.2f points (max %g)",
                      model, acc.acc_a, acc.acc_b, acc.drop, max_drop);
            rc = CLI_EXIT_CHECK;
        }
    }
    if (!rc && cli_save_model(g, out, false, &err)) rc = cli_fail("prune", out, &err);
    if (!rc && !quiet && !(report && strcmp(report, "-") == 0)) {
        if (sparsity >= 0)
            printf("%s -> %s: %d weights, %lld of %lld elements zero (%.1f%%)\n", model, out, r.ngroups,
                   (long long)(r.params_before - r.params_after), (long long)r.params_before,
                   r.params_before ? 100.0 * (double)(r.params_before - r.params_after) / (double)r.params_before : 0);
        else {
            int np = 0;
            for (int i = 0; i < r.ngroups; i++)
                np += r.groups[i].prunable > 0;
            printf("%s -> %s: %d groups (%d prunable), %d channels removed; MACs %lld -> %lld (%.3fx), parameters "
                   "%lld -> %lld (%.3fx)\n",
                   model, out, r.ngroups, np, r.channels_removed, (long long)r.macs_before, (long long)r.macs_after,
                   r.macs_before ? (double)r.macs_after / (double)r.macs_before : 1.0, (long long)r.params_before,
                   (long long)r.params_after, r.params_before ? (double)r.params_after / (double)r.params_before : 1.0);
        }
        if (have_acc)
            printf("  accuracy on %ld labelled samples: %.2f%% -> %.2f%% (drop %.2f points, max %g)\n", acc.samples,
                   acc.acc_a, acc.acc_b, acc.drop, max_drop);
    }
    if (report && (rc == CLI_EXIT_OK || rc == CLI_EXIT_CHECK)) {
        sbuf b = {0};
        report_json(&b, model, out, &r, sparsity >= 0, sparsity >= 0 ? sparsity : ratio, criterion, scope, round_to,
                    &acc, have_acc, rc);
        char *s = sb_finish(&b);
        if (!s || cli_write_file(report, s, strlen(s), &err)) {
            if (!s) nnfx_error_set(&err, NNFX_ERR_NOMEM, "out of memory");
            int frc = cli_fail("prune", report, &err);
            if (!rc) rc = frc;
        }
        free(s);
    }
    nnfx_prune_result_free(&r);
    nnfx_graph_free(g);
    nnfx_graph_free(orig);
    return rc;
}
