/* report_merge.c — `nnfx report merge`: the JSON reports of a fleet's
 * shards (batch summaries, or one model's report) into one fleet report:
 * per model its status, op counts before/after, sizes, max error or
 * accuracy drop, findings, cache hit and time; totals; worst first. Read
 * with the publishing layer's JSON reader. */
#include <stdlib.h>
#include <string.h>

#include "cli/analysis.h"
#include "publish/publish.h"

static const char report_help[] = "usage: nnfx report merge REPORT.json... -o FLEET.json [--html FLEET.html] [-q]\n"
                                  "\n"
                                  "Merges the JSON reports of a fleet's runs (the --report of each\n"
                                  "'nnfx optimize --batch ... --shard K/N', or any one-model report with a\n"
                                  "\"model\") into one fleet report: per model its result, ops before and\n"
                                  "after, input and output bytes, max abs error, accuracy drop, findings,\n"
                                  "cache hit and time; the totals; the worst models first (errors, failed\n"
                                  "checks, then the largest error). A model listed in two reports is\n"
                                  "counted once (the later report wins) and named under \"duplicates\".\n"
                                  "Reports of '--shard K/N' runs must cover every shard 1..N: a missing one\n"
                                  "is named (\"missing_shards\") and fails the merge.\n"
                                  "The reports of other steps (quantize, prune, analyze, push --list runs, each\n"
                                  "entry naming its \"command\") join the model's row: the row shows the worst\n"
                                  "result, with the failing step (\"failed_step\") and its error; each step's\n"
                                  "shards must all be there.\n"
                                  "\n"
                                  "  -o, --output FILE  the fleet report (JSON; '-': stdout)\n"
                                  "  --html FILE        the same as one self-contained HTML page\n"
                                  "  -q, --quiet        no summary line\n"
                                  "\n"
                                  "Exit status: 0 every model ok; 1 a model failed its check or had an error,\n"
                                  "or a shard's report is missing;\n"
                                  "2 usage error; 3 a report that cannot be read or is not an nnfx report.\n"
                                  "\n"
                                  "example:\n"
                                  "  nnfx report merge out/report-*.json -o fleet.json --html fleet.html\n";

/* One model of the fleet. */
typedef struct fm_model {
    const char *model, *output, *result, *error, *cache, *report;
    const char *command;     /* the step that made the entry ("optimize" when unnamed) */
    const char *failed_step; /* of the steps merged into this row, the one whose failure it shows */
    char seen[128];          /* the steps merged into this row, "\nSTEP\n" each */
    int exit_code;
    double nodes_before, nodes_after, in_bytes, out_bytes, max_abs, drop, findings, ms; /* < 0: unknown */
} fm_model;

static double num_or(const pub_json *j, const char *key, double dflt) {
    const pub_json *v = pub_json_get(j, key);
    return v && v->kind == PUB_JNUM ? v->num : dflt;
}

/* Reads one report entry into m (cmd: the report's "command", or NULL);
 * false when it names no model. */
static bool read_entry(const pub_json *e, const char *report, const char *cmd, fm_model *m) {
    memset(m, 0, sizeof *m);
    m->model = pub_json_str(e, "model");
    if (!m->model) return false;
    m->report = report;
    m->command = pub_json_str(e, "command") ? pub_json_str(e, "command") : cmd ? cmd : "optimize";
    m->output = pub_json_str(e, "output");
    m->error = pub_json_str(e, "error");
    m->cache = pub_json_str(e, "cache");
    m->exit_code = (int)num_or(e, "exit_code", 0);
    m->result = pub_json_str(e, "result");
    if (!m->result)
        m->result = m->exit_code == 0 ? "ok" : m->exit_code == CLI_EXIT_CHECK ? "check failed" : "error";
    else if (strcmp(m->result, "ok") != 0 && m->exit_code == 0)
        m->exit_code = strcmp(m->result, "check failed") == 0 ? CLI_EXIT_CHECK : CLI_EXIT_BAD_INPUT;
    m->nodes_before = num_or(e, "nodes_before", num_or(e, "nodes", -1));
    m->nodes_after = num_or(e, "nodes_after", -1);
    m->in_bytes = num_or(e, "input_bytes", -1);
    m->out_bytes = num_or(e, "output_bytes", -1);
    m->max_abs = num_or(pub_json_get(e, "validation"), "max_abs_error", -1);
    m->drop = num_or(pub_json_get(e, "accuracy"), "drop_points", -1);
    const pub_json *f = pub_json_get(e, "findings");
    m->findings = f && f->kind == PUB_JARR ? f->n : -1;
    m->ms = num_or(pub_json_get(e, "timings_ms"), "total", num_or(e, "ms", -1));
    if (m->exit_code) m->failed_step = m->command;
    snprintf(m->seen, sizeof m->seen, "\n%s\n", m->command);
    return true;
}

static int severity(int exit_code) { return exit_code == 0 ? 0 : exit_code == CLI_EXIT_CHECK ? 1 : 2; }

/* Merges the entry m of another step of the same model (say push after
 * optimize) into its row: the row shows the worse result (and that step's
 * error), keeps its own figures and takes the ones it lacks, and adds the
 * times. */
static void merge_step(fm_model *row, const fm_model *m) {
    if (severity(m->exit_code) > severity(row->exit_code)) {
        row->exit_code = m->exit_code;
        row->result = m->result;
        row->error = m->error;
        row->failed_step = m->command;
    }
    double *a[] = {&row->nodes_before, &row->nodes_after, &row->in_bytes, &row->out_bytes,
                   &row->max_abs,      &row->drop,        &row->findings};
    const double b[] = {m->nodes_before, m->nodes_after, m->in_bytes, m->out_bytes, m->max_abs, m->drop, m->findings};
    for (int i = 0; i < 7; i++)
        if (*a[i] < 0) *a[i] = b[i];
    if (m->ms >= 0) row->ms = row->ms >= 0 ? row->ms + m->ms : m->ms;
    if (!row->output) row->output = m->output;
}

/* Worst first: errors, failed checks, then the largest error and drop; by
 * name last, so the order is deterministic. */
static int worst_first(const void *pa, const void *pb) {
    const fm_model *a = pa, *b = pb;
    int ra = a->exit_code == 0 ? 0 : a->exit_code == CLI_EXIT_CHECK ? 1 : 2;
    int rb = b->exit_code == 0 ? 0 : b->exit_code == CLI_EXIT_CHECK ? 1 : 2;
    if (ra != rb) return rb - ra;
    if (a->max_abs != b->max_abs) return a->max_abs < b->max_abs ? 1 : -1;
    if (a->drop != b->drop) return a->drop < b->drop ? 1 : -1;
    return strcmp(a->model, b->model);
}

static void num_or_null(sbuf *b, double v) {
    if (v < 0)
        sb_printf(b, "null");
    else
        cli_json_num(b, v);
}

static void str_or_null(sbuf *b, const char *s) {
    if (s)
        cli_json_str(b, s);
    else
        sb_printf(b, "null");
}

typedef struct fm_totals {
    int n, ok, check, err, hits;
    double nodes_before, nodes_after, in_bytes, out_bytes, ms;
    const int *missing; /* shards of a --shard split without a report */
    int nmissing;
} fm_totals;

/* Every model ok and no shard missing. */
static bool fm_pass(const fm_totals *t) { return t->ok == t->n && t->nmissing == 0; }

static char *fleet_json(const fm_model *ms, const fm_totals *t, int nrep, char **reps, int ndup,
                        const char *const *dups) {
    sbuf b = {0};
    sb_printf(&b,
              "{\n\"models\": %d, \"ok\": %d, \"check_failed\": %d, \"errors\": %d, \"cache_hits\": %d,\n"
              "\"exit_code\": %d, \"verdict\": \"%s\",\n\"totals\": {\"nodes_before\": %.0f, \"nodes_after\": %.0f, "
              "\"input_bytes\": %.0f, \"output_bytes\": %.0f, \"ms\": ",
              t->n, t->ok, t->check, t->err, t->hits, fm_pass(t) ? 0 : 1, fm_pass(t) ? "pass" : "fail", t->nodes_before,
              t->nodes_after, t->in_bytes, t->out_bytes);
    cli_json_num(&b, t->ms);
    sb_printf(&b, "},\n\"reports\": [");
    for (int i = 0; i < nrep; i++) {
        sb_printf(&b, "%s", i ? ", " : "");
        cli_json_str(&b, reps[i]);
    }
    sb_printf(&b, "],\n\"missing_shards\": [");
    for (int i = 0; i < t->nmissing; i++)
        sb_printf(&b, "%s%d", i ? ", " : "", t->missing[i]);
    sb_printf(&b, "],\n\"duplicates\": [");
    for (int i = 0; i < ndup; i++) {
        sb_printf(&b, "%s", i ? ", " : "");
        cli_json_str(&b, dups[i]);
    }
    sb_printf(&b, "],\n\"results\": [\n");
    for (int i = 0; i < t->n; i++) {
        const fm_model *m = &ms[i];
        sb_printf(&b, "%s  {\"model\": ", i ? ",\n" : "");
        cli_json_str(&b, m->model);
        sb_printf(&b, ", \"output\": ");
        str_or_null(&b, m->output);
        sb_printf(&b, ", \"result\": ");
        cli_json_str(&b, m->result);
        sb_printf(&b, ", \"exit_code\": %d, \"nodes_before\": ", m->exit_code);
        num_or_null(&b, m->nodes_before);
        sb_printf(&b, ", \"nodes_after\": ");
        num_or_null(&b, m->nodes_after);
        sb_printf(&b, ", \"input_bytes\": ");
        num_or_null(&b, m->in_bytes);
        sb_printf(&b, ", \"output_bytes\": ");
        num_or_null(&b, m->out_bytes);
        sb_printf(&b, ", \"max_abs_error\": ");
        num_or_null(&b, m->max_abs);
        sb_printf(&b, ", \"accuracy_drop_points\": ");
        num_or_null(&b, m->drop);
        sb_printf(&b, ", \"findings\": ");
        num_or_null(&b, m->findings);
        sb_printf(&b, ", \"cache_hit\": %s, \"ms\": ", m->cache && strcmp(m->cache, "hit") == 0 ? "true" : "false");
        num_or_null(&b, m->ms);
        sb_printf(&b, ", \"error\": ");
        str_or_null(&b, m->error);
        sb_printf(&b, ", \"failed_step\": ");
        str_or_null(&b, m->failed_step);
        sb_printf(&b, ", \"report\": ");
        cli_json_str(&b, m->report);
        sb_printf(&b, "}");
    }
    sb_printf(&b, "\n]\n}\n");
    return sb_finish(&b);
}

static void html_num(sbuf *b, double v, const char *fmt) {
    if (v < 0) {
        sb_printf(b, "<td class=\"n\" data-v=\"-1\">-</td>");
        return;
    }
    sb_printf(b, "<td class=\"n\" data-v=\"%.17g\">", v);
    sb_printf(b, fmt, v);
    sb_printf(b, "</td>");
}

static void html_card(sbuf *b, const char *label, int v) {
    sb_printf(b, "<div class=\"card\">%s<b>%d</b></div>", label, v);
}

static char *fleet_html(const fm_model *ms, const fm_totals *t, int ndup) {
    sbuf b = {0};
    bool pass = fm_pass(t);
    sb_printf(&b,
              "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>nnfx fleet report</title>"
              "<style>%s</style></head><body>\n<h1>nnfx fleet report</h1>\n<p class=\"verdict %s\"><b>%s</b>: "
              "%d of %d models ok",
              cli_report_css(), pass ? "good" : "bad", pass ? "PASS" : "FAIL", t->ok, t->n);
    if (!pass) sb_printf(&b, "; %d failed a check, %d had an error", t->check, t->err);
    if (t->nmissing) sb_printf(&b, "; %d shard%s without a report", t->nmissing, t->nmissing == 1 ? "" : "s");
    sb_printf(&b, ".</p>\n<div class=\"cards\">");
    html_card(&b, "models", t->n);
    html_card(&b, "ok", t->ok);
    html_card(&b, "failed a check", t->check);
    html_card(&b, "errors", t->err);
    html_card(&b, "cache hits", t->hits);
    html_card(&b, "listed twice", ndup);
    sb_printf(&b, "<div class=\"card\">ops before &rarr; after<b>%.0f &rarr; %.0f</b></div>", t->nodes_before,
              t->nodes_after);
    sb_printf(&b, "<div class=\"card\">time<b>%.1f s</b></div></div>\n", t->ms / 1000);
    sb_printf(&b, "<h2>Models (worst first; click a heading to sort)</h2>\n<table class=\"sortable\"><thead><tr>"
                  "<th>model</th><th>result</th><th>ops before</th><th>ops after</th><th>input bytes</th>"
                  "<th>output bytes</th><th>max abs error</th><th>accuracy drop</th><th>findings</th>"
                  "<th>cached</th><th>ms</th><th>error</th></tr></thead><tbody>\n");
    for (int i = 0; i < t->n; i++) {
        const fm_model *m = &ms[i];
        sb_printf(&b, "<tr><td>");
        cli_html_escape(&b, m->model);
        sb_printf(&b, "</td><td class=\"%s\">", m->exit_code ? "bad" : "good");
        cli_html_escape(&b, m->result);
        sb_printf(&b, "</td>");
        html_num(&b, m->nodes_before, "%.0f");
        html_num(&b, m->nodes_after, "%.0f");
        html_num(&b, m->in_bytes, "%.0f");
        html_num(&b, m->out_bytes, "%.0f");
        html_num(&b, m->max_abs, "%.3g");
        html_num(&b, m->drop, "%.2f");
        html_num(&b, m->findings, "%.0f");
        sb_printf(&b, "<td>%s</td>", m->cache && strcmp(m->cache, "hit") == 0 ? "yes" : "no");
        html_num(&b, m->ms, "%.1f");
        sb_printf(&b, "<td>");
        if (m->failed_step && m->error) {
            cli_html_escape(&b, m->failed_step);
            sb_printf(&b, ": ");
        }
        cli_html_escape(&b, m->error ? m->error : "");
        sb_printf(&b, "</td></tr>\n");
    }
    sb_printf(&b, "</tbody></table>\n<p><small>nnfx %s</small></p>\n<script>%s</script>\n</body></html>\n",
              NNFX_VERSION, cli_report_js());
    return sb_finish(&b);
}

/* Reads every report; fills models (deduplicated by model path, the later
 * report wins) and dups. Returns an exit code. */
static int read_reports(int nrep, char **reps, pub_json **trees, fm_model **out, int *nout, const char ***dups,
                        int *ndup) {
    int cap = 0, dcap = 0, n = 0;
    fm_model *ms = NULL;
    for (int r = 0; r < nrep; r++) {
        nnfx_error err = {0};
        size_t len = 0;
        char *text = cli_read_file(reps[r], &len, &err);
        if (!text) {
            free(ms);
            return cli_fail("report", reps[r], &err);
        }
        trees[r] = pub_json_parse(text, len, &err);
        free(text);
        if (!trees[r]) {
            free(ms);
            cli_error("report", "%s: not JSON: %s", reps[r], err.msg);
            return CLI_EXIT_BAD_INPUT;
        }
        const pub_json *results = pub_json_get(trees[r], "results");
        bool single = !results && pub_json_str(trees[r], "model");
        if (!single && (!results || results->kind != PUB_JARR)) {
            free(ms);
            cli_error("report", "%s: not an nnfx report (no \"results\" list and no \"model\")", reps[r]);
            return CLI_EXIT_BAD_INPUT;
        }
        int k = single ? 1 : results->n;
        for (int i = 0; i < k; i++) {
            const pub_json *e = single ? trees[r] : results->items[i];
            if (e->kind == PUB_JNULL) continue;
            if (n == cap || *ndup == dcap) { /* room for one more of each */
                cap = n == cap ? (cap ? 2 * cap : 64) : cap;
                dcap = *ndup == dcap ? (dcap ? 2 * dcap : 16) : dcap;
                fm_model *g = realloc(ms, (size_t)cap * sizeof *ms);
                if (g) ms = g;
                const char **d = realloc(*dups, (size_t)dcap * sizeof **dups);
                if (d) *dups = d;
                if (!g || !d) {
                    free(ms);
                    cli_error("report", "out of memory");
                    return CLI_EXIT_BAD_INPUT;
                }
            }
            fm_model m;
            if (!read_entry(e, reps[r], pub_json_str(trees[r], "command"), &m)) {
                free(ms);
                cli_error("report", "%s: result %d names no \"model\"", reps[r], i + 1);
                return CLI_EXIT_BAD_INPUT;
            }
            int j = 0;
            while (j < n && strcmp(ms[j].model, m.model) != 0)
                j++;
            if (j < n && !strstr(ms[j].seen, m.seen)) { /* another step of the model: one row */
                merge_step(&ms[j], &m);
                size_t l = strlen(ms[j].seen);
                snprintf(ms[j].seen + l, sizeof ms[j].seen - l, "%s\n", m.command);
                continue;
            }
            if (j < n) (*dups)[(*ndup)++] = m.model;
            ms[j] = m;
            if (j == n) n++;
        }
    }
    *out = ms;
    *nout = n;
    return CLI_EXIT_OK;
}

static int report_merge(int argc, char **argv) {
    const char *out = NULL, *html = NULL;
    bool quiet = false;
    char **reps = calloc((size_t)argc, sizeof *reps);
    pub_json **trees = calloc((size_t)argc, sizeof *trees);
    int nrep = 0, rc = CLI_EXIT_OK;
    if (!reps || !trees) {
        free(reps);
        free(trees);
        cli_error("report", "out of memory");
        return CLI_EXIT_BAD_INPUT;
    }
    cli_args a;
    cli_args_init(&a, "report", argc, argv);
    while (cli_args_more(&a)) {
        const char *v = NULL;
        if (cli_opt(&a, "--output", "-o", &v))
            out = v;
        else if (cli_opt(&a, "--html", NULL, &v))
            html = v;
        else if (cli_flag(&a, "--quiet", "-q"))
            quiet = true;
        else {
            const char *p = cli_positional(&a);
            if (!p) break;
            reps[nrep++] = (char *)p;
        }
    }
    if (a.bad)
        rc = CLI_EXIT_USAGE;
    else if (!nrep)
        rc = cli_usage_error("report", "merge: no report given");
    else if (!out)
        rc = cli_usage_error("report", "merge: no output given (-o FLEET.json)");
    else if (html && strcmp(html, "-") == 0 && strcmp(out, "-") == 0)
        rc = cli_usage_error("report", "merge: -o and --html cannot both be standard output");
    fm_model *ms = NULL;
    const char **dups = NULL;
    int n = 0, ndup = 0;
    if (!rc) rc = read_reports(nrep, reps, trees, &ms, &n, &dups, &ndup);
    /* reports of --shard runs: every shard of the split must be there */
    int shard_n = 0, nmissing = 0;
    int *missing = NULL;
    for (int r = 0; !rc && r < nrep; r++) {
        const pub_json *sh = pub_json_get(trees[r], "shard");
        int c = (int)num_or(sh, "count", 0);
        if (!c) continue;
        if (shard_n && c != shard_n)
            rc = cli_usage_error("report", "merge: %s is a shard of %d, the others of %d", reps[r], c, shard_n);
        shard_n = c;
    }
    if (!rc && shard_n) { /* each step's (command's) shards: optimize's and push's reports both cover 1..N */
        missing = calloc((size_t)shard_n, sizeof *missing);
        for (int r0 = 0; missing && r0 < nrep; r0++) {
            const char *cmd = pub_json_str(trees[r0], "command");
            cmd = cmd ? cmd : "optimize";
            bool first = (int)num_or(pub_json_get(trees[r0], "shard"), "count", 0) > 0;
            for (int r = 0; first && r < r0; r++) { /* this step's shards are checked once */
                const char *c2 = pub_json_str(trees[r], "command");
                first = !((int)num_or(pub_json_get(trees[r], "shard"), "count", 0) > 0 &&
                          strcmp(c2 ? c2 : "optimize", cmd) == 0);
            }
            if (!first) continue;
            for (int k = 1; k <= shard_n; k++) {
                bool found = false;
                for (int r = 0; r < nrep && !found; r++) {
                    const char *c2 = pub_json_str(trees[r], "command");
                    found = (int)num_or(pub_json_get(trees[r], "shard"), "index", 0) == k &&
                            strcmp(c2 ? c2 : "optimize", cmd) == 0;
                }
                if (found) continue;
                bool listed = false;
                for (int i = 0; i < nmissing; i++)
                    listed |= missing[i] == k;
                if (!listed) missing[nmissing++] = k;
                cli_error("report", "merge: no report of shard %d of %d%s%s: its models are missing", k, shard_n,
                          strcmp(cmd, "optimize") ? " from " : "", strcmp(cmd, "optimize") ? cmd : "");
            }
        }
    }
    if (!rc) {
        fm_totals t = {0};
        t.n = n;
        t.missing = missing;
        t.nmissing = nmissing;
        for (int i = 0; i < n; i++) {
            const fm_model *m = &ms[i];
            t.ok += m->exit_code == 0;
            t.check += m->exit_code == CLI_EXIT_CHECK;
            t.err += m->exit_code != 0 && m->exit_code != CLI_EXIT_CHECK;
            t.hits += m->cache && strcmp(m->cache, "hit") == 0;
            t.nodes_before += m->nodes_before > 0 ? m->nodes_before : 0;
            t.nodes_after += m->nodes_after > 0 ? m->nodes_after : 0;
            t.in_bytes += m->in_bytes > 0 ? m->in_bytes : 0;
            t.out_bytes += m->out_bytes > 0 ? m->out_bytes : 0;
            t.ms += m->ms > 0 ? m->ms : 0;
        }
        qsort(ms, (size_t)n, sizeof *ms, worst_first);
        for (int i = 0; i < ndup; i++)
            fprintf(stderr, "nnfx report: warning: %s is in more than one report: counted once (the later)\n", dups[i]);
        char *js = fleet_json(ms, &t, nrep, reps, ndup, dups);
        char *page = html ? fleet_html(ms, &t, ndup) : NULL;
        const char *paths[2] = {out, html};
        const char *data[2] = {js, page};
        nnfx_error err = {0};
        int nfiles = html ? 2 : 1;
        bool to_stdout = strcmp(out, "-") == 0 || (html && strcmp(html, "-") == 0);
        if (!js || (html && !page)) {
            cli_error("report", "out of memory");
            rc = CLI_EXIT_BAD_INPUT;
        } else if (to_stdout) {
            for (int i = 0; i < nfiles && !rc; i++)
                if (cli_write_file(paths[i], data[i], strlen(data[i]), &err)) rc = cli_fail("report", paths[i], &err);
        } else if (cli_write_files(nfiles, paths, data, &err)) {
            rc = cli_fail("report", out, &err);
        }
        if (!rc) {
            rc = fm_pass(&t) ? CLI_EXIT_OK : CLI_EXIT_CHECK;
            if (!quiet && strcmp(out, "-") != 0)
                printf("%d model%s from %d report%s: %d ok, %d failed a check, %d error%s, %d cached: %s\n", t.n,
                       t.n == 1 ? "" : "s", nrep, nrep == 1 ? "" : "s", t.ok, t.check, t.err, t.err == 1 ? "" : "s",
                       t.hits, rc ? "FAIL" : "pass");
        }
        free(js);
        free(page);
    }
    free(ms);
    free(dups);
    free(missing);
    for (int i = 0; i < nrep; i++)
        pub_json_free(trees[i]);
    free(trees);
    free(reps);
    return rc;
}

int cli_report(int argc, char **argv) {
    if (argc < 2 || cli_wants_help(argc, argv)) {
        fputs(report_help, argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "merge") != 0)
        return cli_usage_error("report", "unknown verb '%s' (the one verb is merge)", argv[1]);
    return report_merge(argc - 1, argv + 1);
}
