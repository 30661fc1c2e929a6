/* report_html.c — the analysis as one self-contained HTML page: summary,
 * the graph drawn (report_graph.c), cost per op and per node (sortable
 * tables), findings. No external resources. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/analysis.h"
#include "cli/report_graph.h"
#include "io/onnx_info.h"
#include "ir/strmap.h"

/* Appends text with HTML special characters escaped. */
static void esc(sbuf *b, const char *s) {
    for (const char *p = s ? s : ""; *p; p++) {
        switch (*p) {
        case '<': sb_printf(b, "&lt;"); break;
        case '>': sb_printf(b, "&gt;"); break;
        case '&': sb_printf(b, "&amp;"); break;
        case '"': sb_printf(b, "&quot;"); break;
        default: sb_append(b, p, 1);
        }
    }
}

static const char page_css[] =
    "body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em;color:#222;max-width:1200px}"
    "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse;margin:.5em 0;font-size:.9em;max-width:100%}"
    "th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;overflow-wrap:anywhere}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "th{background:#f0f0f0}.sortable th{cursor:pointer;user-select:none}"
    ".sortable th:after{content:' \\2195';color:#aaa}.sortable th[data-asc='1']:after{content:' \\25B2';color:#444}"
    ".sortable th[data-asc='0']:after{content:' \\25BC';color:#444}"
    ".cards{display:flex;flex-wrap:wrap;gap:12px}.card{border:1px solid #ddd;border-radius:6px;padding:8px 14px}"
    ".card b{display:block;font-size:1.3em}.kind{font-family:monospace;background:#fff3cd;padding:1px "
    "4px;white-space:nowrap}"
    "code{background:#f5f5f5;padding:1px 4px}.graph{overflow:auto;border:1px solid #ddd;max-height:900px}"
    ".bar{background:#4a90d9;height:10px;display:inline-block}"
    ".graph svg{max-width:100%;height:auto;cursor:zoom-in}.graph.full svg{max-width:none;cursor:zoom-out}"
    ".verdict{padding:8px 12px;border-radius:6px}.verdict.good{background:#e6f4e6}.verdict.bad{background:#fbe3e3}"
    ".verdict.same{background:#f0f0f0}td.good{color:#1a7f1a}td.bad{color:#b00020;font-weight:bold}"
    ".chart{margin:.8em 0;overflow-x:auto}.chart figcaption{font-weight:600;margin-bottom:4px}"
    ".chart svg text{font:11px system-ui,-apple-system,Segoe UI,sans-serif;fill:#333}.chart small{display:block;"
    "color:#555}.chart .bar:hover rect{opacity:.8}";

static const char page_js[] =
    "document.querySelectorAll('table.sortable').forEach(function(t){"
    "t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){"
    "var tb=t.tBodies[0],rows=Array.prototype.slice.call(tb.rows),asc=th.dataset.asc!=='1';"
    "t.querySelectorAll('th').forEach(function(h){delete h.dataset.asc;});th.dataset.asc=asc?'1':'0';"
    "rows.sort(function(a,b){var x=a.cells[i].dataset.v||a.cells[i].textContent,"
    "y=b.cells[i].dataset.v||b.cells[i].textContent,fx=parseFloat(x),fy=parseFloat(y);"
    "var c=(!isNaN(fx)&&!isNaN(fy))?fx-fy:x.localeCompare(y);return asc?c:-c;});"
    "rows.forEach(function(r){tb.appendChild(r);});});});});"
    "";

/* nnfx node name -> the source model's name for that value (ONNX models:
 * the importer keeps them), so the page speaks the model's own names. */
static void source_names(const nnfx_graph *g, ir_strmap *m) {
    const onnx_model_info *info = onnx_info_of(g);
    for (int i = 0; info && i < info->nnames; i++)
        ir_strmap_put(m, info->names[i].key, info->names[i].value); /* OOM: the nnfx name is shown */
}

/* Writes the source name of node `name`, with the nnfx name as a tooltip
 * when they differ. */
static void name_html(sbuf *b, const ir_strmap *m, const char *name) {
    const char *src = ir_strmap_get(m, name);
    if (!src || strcmp(src, name) == 0) {
        esc(b, name);
        return;
    }
    sb_printf(b, "<span title=\"nnfx: ");
    esc(b, name);
    sb_printf(b, "\">");
    esc(b, src);
    sb_printf(b, "</span>");
}

static void card(sbuf *b, const char *label, const char *value) {
    sb_printf(b, "<div class=\"card\"><b>");
    esc(b, value);
    sb_printf(b, "</b>");
    esc(b, label);
    sb_printf(b, "</div>");
}

/* The before/after section of `analyze A --compare B`: the verdict, the
 * figures side by side, op counts, and the findings each model has. */
static void compare_section(sbuf *b, const cli_compare_view *cv) {
    const cli_analysis *x = cv->before, *y = cv->after;
    char c1[32], c2[32];
    sb_printf(b, "<h2>Before and after</h2><p class=\"verdict %s\"><b>%s</b> ",
              cv->verdict->worse    ? "bad"
              : cv->verdict->better ? "good"
                                    : "same",
              cv->verdict->worse    ? "Regression."
              : cv->verdict->better ? "Improvement."
                                    : "No change.");
    esc(b, cv->verdict->text);
    sb_printf(b, "</p><table><thead><tr><th></th><th>before: ");
    esc(b, cli_basename(cv->model_before));
    sb_printf(b, "</th><th>after: ");
    esc(b, cli_basename(cv->model_after));
    sb_printf(b, "</th><th>change</th></tr></thead><tbody>");
    struct {
        const char *label;
        int64_t a, b;
        bool bytes;
    } rows[] = {{"ops", x->nodes, y->nodes, false},
                {"parameters", x->params, y->params, false},
                {"parameter bytes", x->param_bytes, y->param_bytes, true},
                {"MACs", x->macs, y->macs, false},
                {"FLOPs", x->flops, y->flops, false},
                {"peak activations", x->peak_activation_bytes, y->peak_activation_bytes, true},
                {"findings", x->nfindings, y->nfindings, false}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int64_t d = rows[i].b - rows[i].a;
        sb_printf(b, "<tr><td>%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n %s\">%s%lld</td></tr>",
                  rows[i].label,
                  rows[i].bytes ? cli_human_bytes(rows[i].a, c1, sizeof c1) : cli_human_count(rows[i].a, c1, sizeof c1),
                  rows[i].bytes ? cli_human_bytes(rows[i].b, c2, sizeof c2) : cli_human_count(rows[i].b, c2, sizeof c2),
                  d < 0   ? "good"
                  : d > 0 ? "bad"
                          : "",
                  d > 0 ? "+" : "", (long long)d);
    }
    if (cv->acc)
        sb_printf(b,
                  "<tr><td>top-1 accuracy (%ld labelled samples)</td><td class=\"n\">%.2f%%</td>"
                  "<td class=\"n\">%.2f%%</td><td class=\"n %s\">%+.2f points</td></tr>",
                  cv->acc->samples, cv->acc->acc_a, cv->acc->acc_b, cv->acc->drop > 0 ? "bad" : "", -cv->acc->drop);
    sb_printf(b, "</tbody></table>");
    sb_printf(b, "<table><thead><tr><th>op</th><th>before</th><th>after</th></tr></thead><tbody>");
    for (int pass = 0; pass < 2; pass++) {
        const cli_analysis *src = pass ? y : x, *other = pass ? x : y;
        for (int i = 0; i < src->nops; i++) {
            int in_other = 0;
            bool listed = false;
            for (int k = 0; k < other->nops; k++)
                if (strcmp(other->ops[k].op, src->ops[i].op) == 0) {
                    in_other = other->ops[k].count;
                    listed = pass == 1; /* already shown in the first pass */
                }
            if (listed) continue;
            int before = pass ? in_other : src->ops[i].count, after = pass ? src->ops[i].count : in_other;
            sb_printf(b, "<tr><td>");
            esc(b, src->ops[i].op);
            sb_printf(b, "</td><td class=\"n\">%d</td><td class=\"n %s\">%d</td></tr>", before,
                      after < before   ? "good"
                      : after > before ? "bad"
                                       : "",
                      after);
        }
    }
    sb_printf(b, "</tbody></table><p>Findings before: %d; after: %d (the after model's are listed below).</p>\n",
              x->nfindings, y->nfindings);
}

/* The findings table (a suggestion shared by several findings is written
 * once). */
static void findings_section(sbuf *b, const cli_analysis *an, const ir_strmap *names) {
    sb_printf(b, "<h2>Findings</h2>");
    if (an->nfindings == 0)
        sb_printf(b, "<p>No findings.</p>");
    else {
        sb_printf(b, "<table class=\"sortable\"><thead><tr><th>kind</th><th>nodes</th><th>message</th>"
                     "<th>suggestion</th></tr></thead><tbody>");
        for (int i = 0; i < an->nfindings; i++) {
            const cli_finding *f = &an->findings[i];
            sb_printf(b, "<tr><td><span class=\"kind\">");
            esc(b, f->kind);
            sb_printf(b, "</span></td><td>");
            for (int j = 0; j < f->nnodes && j < 12; j++) {
                if (j) sb_printf(b, ", ");
                name_html(b, names, f->nodes[j]);
            }
            if (f->nnodes > 12) sb_printf(b, ", &hellip; (%d in all)", f->nnodes);
            sb_printf(b, "</td><td>");
            esc(b, f->message);
            /* a suggestion shared by several findings (one per BatchNorm...) is written once */
            int first = i;
            for (int k = 0; k < i && first == i; k++)
                if (strcmp(an->findings[k].suggestion, f->suggestion) == 0) first = k;
            if (first < i) {
                sb_printf(b, "</td><td><i>the same command as above</i></td></tr>");
                continue;
            }
            int same = 0;
            for (int k = i; k < an->nfindings; k++)
                if (strcmp(an->findings[k].suggestion, f->suggestion) == 0) same++;
            sb_printf(b, "</td><td><code>");
            esc(b, f->suggestion);
            sb_printf(b, "</code>");
            if (same > 1) sb_printf(b, " <small>(one command for all %d)</small>", same);
            sb_printf(b, "</td></tr>");
        }
        sb_printf(b, "</tbody></table>");
    }
}

/* Rows of the per-node table at most (the costliest nodes of a larger graph). */
#define HTML_MAX_NODE_ROWS 1000

static const cli_analysis *by_cost_of; /* qsort's context (one report at a time) */

/* Orders node rows by MACs, then FLOPs, descending; then graph order. */
static int by_cost(const void *x, const void *y) {
    const cli_node_cost *a = &by_cost_of->cost[*(const int *)x], *b = &by_cost_of->cost[*(const int *)y];
    if (a->macs != b->macs) return a->macs > b->macs ? -1 : 1;
    if (a->flops != b->flops) return a->flops > b->flops ? -1 : 1;
    return (*(const int *)x > *(const int *)y) - (*(const int *)x < *(const int *)y);
}

static int by_index(const void *x, const void *y) {
    return (*(const int *)x > *(const int *)y) - (*(const int *)x < *(const int *)y);
}

/* The cost tables: per op type (with its share of the MACs) and per node. */
static void cost_sections(sbuf *b, const cli_analysis *an, const ir_strmap *names) {
    char c1[32], meta[256];
    sb_printf(b, "\n<h2>Cost per op type</h2><table class=\"sortable\"><thead><tr><th>op</th><th>count</th>"
                 "<th>MACs</th><th>FLOPs</th><th>share of MACs</th></tr></thead><tbody>");
    for (int i = 0; i < an->nops; i++) {
        const cli_op_count *o = &an->ops[i];
        double share = an->macs > 0 ? 100.0 * (double)o->macs / (double)an->macs : 0.0;
        sb_printf(b, "<tr><td>");
        esc(b, o->op);
        sb_printf(b, "</td><td class=\"n\">%d</td><td class=\"n\" data-v=\"%lld\">%s</td>", o->count,
                  (long long)o->macs, cli_human_count(o->macs, c1, sizeof c1));
        sb_printf(b, "<td class=\"n\" data-v=\"%lld\">%s</td>", (long long)o->flops,
                  cli_human_count(o->flops, c1, sizeof c1));
        sb_printf(b, "<td data-v=\"%.4f\"><span class=\"bar\" style=\"width:%dpx\"></span> %.1f%%</td></tr>", share,
                  (int)(share * 2), share);
    }
    sb_printf(b, "</tbody></table>\n");

    /* a large graph lists its costliest nodes only (the JSON report has all) */
    int *rows = NULL, nrows = an->ncost;
    if (an->ncost > HTML_MAX_NODE_ROWS && (rows = malloc((size_t)an->ncost * sizeof rows[0]))) {
        for (int i = 0; i < an->ncost; i++)
            rows[i] = i;
        by_cost_of = an;
        qsort(rows, (size_t)an->ncost, sizeof rows[0], by_cost);
        nrows = HTML_MAX_NODE_ROWS;
        qsort(rows, (size_t)nrows, sizeof rows[0], by_index);
    }
    sb_printf(b, "<h2>Per layer</h2>");
    cli_analysis_charts(b, an);
    sb_printf(b, "<h2>Cost per node</h2>");
    if (rows)
        sb_printf(b,
                  "<p>The %d costliest of %d nodes (by MACs, then FLOPs), in graph order; <code>--json</code> "
                  "lists every node.</p>",
                  nrows, an->ncost);
    sb_printf(b, "<table class=\"sortable\"><thead><tr><th>#</th><th>name</th><th>op</th>"
                 "<th>output</th><th>params</th><th>MACs</th><th>FLOPs</th></tr></thead><tbody>");
    for (int r = 0; r < nrows; r++) {
        int i = rows ? rows[r] : r;
        const cli_node_cost *c = &an->cost[i];
        sb_printf(b, "<tr><td class=\"n\">%d</td><td>", i);
        name_html(b, names, nnfx_node_name(c->node));
        sb_printf(b, "</td><td>");
        esc(b, cli_node_op_label(c->node));
        sb_printf(b, "</td><td>");
        esc(b, nnfx_meta_str(nnfx_node_meta_c(c->node, 0), meta, sizeof meta));
        sb_printf(b, "</td><td class=\"n\">%lld</td><td class=\"n\" data-v=\"%lld\">%s</td>", (long long)c->params,
                  (long long)c->macs, cli_human_count(c->macs, c1, sizeof c1));
        sb_printf(b, "<td class=\"n\" data-v=\"%lld\">%s</td></tr>", (long long)c->flops,
                  cli_human_count(c->flops, c1, sizeof c1));
    }
    sb_printf(b, "</tbody></table>\n");
    free(rows);
}

static char *html_page(const cli_analysis *an, const char *model, const cli_compare_view *cv) {
    sbuf b = {0};
    char c1[32];
    ir_strmap names = {0};
    source_names(an->g, &names);
    sb_printf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>nnfx analyze: ");
    esc(&b, cli_basename(model));
    sb_printf(&b, "</title><style>%s%s</style></head><body>\n<h1>nnfx analyze: ", page_css, cli_report_graph_style());
    if (cv) {
        esc(&b, cv->model_before);
        sb_printf(&b, " &rarr; ");
    }
    esc(&b, model);
    sb_printf(&b, "</h1>\n");
    if (cv) compare_section(&b, cv);
    sb_printf(&b, "<div class=\"cards\">");
    char v[64];
    snprintf(v, sizeof v, "%d", an->nodes);
    card(&b, "ops", v);
    card(&b, "parameters", cli_human_count(an->params, c1, sizeof c1));
    card(&b, "parameter bytes", cli_human_bytes(an->param_bytes, c1, sizeof c1));
    card(&b, "MACs", cli_human_count(an->macs, c1, sizeof c1));
    card(&b, "FLOPs", cli_human_count(an->flops, c1, sizeof c1));
    card(&b, "peak activations", cli_human_bytes(an->peak_activation_bytes, c1, sizeof c1));
    snprintf(v, sizeof v, "%d", an->nfindings);
    card(&b, "findings", v);
    sb_printf(&b, "</div>\n");
    sb_printf(&b, "<h2>Graph%s</h2>", cv ? ": before and after in one drawing" : "");
    cli_report_graph(&b, an, cv ? cv->before : NULL);

    char meta[256];
    sb_printf(
        &b, "<h2>Inputs and outputs</h2><table><thead><tr><th>kind</th><th>name</th><th>type</th></tr></thead><tbody>");
    for (int i = 0; i < nnfx_graph_num_inputs(an->g); i++) {
        const nnfx_node *n = nnfx_graph_input(an->g, i);
        sb_printf(&b, "<tr><td>input</td><td>");
        esc(&b, nnfx_node_name(n));
        sb_printf(&b, "</td><td>");
        esc(&b, nnfx_meta_str(nnfx_node_meta_c(n, 0), meta, sizeof meta));
        sb_printf(&b, "</td></tr>");
    }
    const nnfx_node *outn = nnfx_graph_output_node(an->g);
    for (int i = 0; outn && i < nnfx_node_num_args(outn); i++) {
        const nnfx_node *n = nnfx_node_arg_node(outn, i);
        if (!n) continue;
        sb_printf(&b, "<tr><td>output</td><td>");
        esc(&b, nnfx_node_name(n));
        sb_printf(&b, "</td><td>");
        esc(&b, nnfx_meta_str(nnfx_node_meta_c(n, 0), meta, sizeof meta));
        sb_printf(&b, "</td></tr>");
    }
    sb_printf(&b, "</tbody></table>\n");

    findings_section(&b, an, &names);
    cost_sections(&b, an, &names);
    sb_printf(&b, "\n<p><small>nnfx %s</small></p>\n<script>%s</script>\n</body></html>\n", NNFX_VERSION, page_js);
    ir_strmap_free(&names);
    return sb_finish(&b);
}

char *cli_analysis_html(const cli_analysis *an, const char *model) { return html_page(an, model, NULL); }

char *cli_analysis_html_compare(const cli_compare_view *cv) { return html_page(cv->after, cv->model_after, cv); }

void cli_analysis_verdict(const cli_analysis *x, const cli_analysis *y, const cli_accuracy *acc, double max_drop,
                          cli_verdict *v) {
    memset(v, 0, sizeof v[0]);
    sbuf t = {0};
    struct {
        const char *what;
        int64_t a, b;
    } m[] = {{"findings", x->nfindings, y->nfindings},
             {"ops", x->nodes, y->nodes},
             {"parameters", x->params, y->params},
             {"MACs", x->macs, y->macs},
             {"FLOPs", x->flops, y->flops},
             {"peak activation bytes", x->peak_activation_bytes, y->peak_activation_bytes}};
    int k = 0;
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        int64_t d = m[i].b - m[i].a;
        if (!d) continue;
        if (d < 0) v->better = true;
        if (d > 0) v->worse = true;
        sb_printf(&t, "%s%lld %s %s", k++ ? ", " : "", (long long)(d < 0 ? -d : d), m[i].what,
                  d < 0 ? "fewer" : "more");
    }
    if (!k) sb_printf(&t, "the same figures");
    if (acc) {
        bool drop_bad = max_drop >= 0 ? acc->drop > max_drop : acc->drop > 0;
        if (drop_bad) v->worse = true;
        sb_printf(&t, "; top-1 accuracy %.2f%% -> %.2f%% (%s%.2f points%s)", acc->acc_a, acc->acc_b,
                  acc->drop > 0 ? "-" : "+", fabs(acc->drop),
                  max_drop >= 0 ? (drop_bad ? ", over the allowed drop" : ", within the allowed drop") : "");
    }
    char *s = sb_finish(&t);
    snprintf(v->text, sizeof v->text, "%s", s ? s : "");
    free(s);
}

const char *cli_report_css(void) { return page_css; }

const char *cli_report_js(void) { return page_js; }

void cli_html_escape(sbuf *b, const char *s) { esc(b, s); }

bool cli_report_is_html(const char *path) {
    size_t n = path ? strlen(path) : 0;
    return (n > 5 && strcmp(path + n - 5, ".html") == 0) || (n > 4 && strcmp(path + n - 4, ".htm") == 0);
}

char *cli_rewrite_page(const char *title, const char *summary_html, const nnfx_graph *before, const char *before_path,
                       const nnfx_graph *after, const char *after_path, const char *charts_html) {
    cli_analysis a = {0}, z = {0};
    nnfx_error err = {0};
    bool draw = before && after;
    bool ok = !draw || cli_analyze_graph(before, before_path, &a, &err) == NNFX_OK;
    ok = ok && (!draw || cli_analyze_graph(after, after_path, &z, &err) == NNFX_OK);
    sbuf b = {0};
    if (ok) {
        sb_printf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
        esc(&b, title);
        sb_printf(&b, "</title><style>%s%s</style></head><body>\n<h1>", page_css, cli_report_graph_style());
        esc(&b, title);
        sb_printf(&b, "</h1>\n%s\n", summary_html ? summary_html : "");
        if (draw) {
            sb_printf(&b, "<h2>Graph: ");
            esc(&b, cli_basename(before_path));
            sb_printf(&b, " &rarr; ");
            esc(&b, cli_basename(after_path));
            sb_printf(&b, " in one drawing</h2>");
            cli_report_graph(&b, &z, &a);
        }
        sb_printf(&b, "%s\n<p><small>nnfx %s</small></p>\n<script>%s</script>\n</body></html>\n",
                  charts_html ? charts_html : "", NNFX_VERSION, page_js);
    }
    cli_analysis_free(&a);
    cli_analysis_free(&z);
    char *s = sb_finish(&b);
    if (!ok) {
        free(s);
        s = NULL;
    }
    return s;
}

char *cli_profile_page(const char *title, const char *summary_html, const nnfx_graph *g, const char *path,
                       const ir_strmap *ms_of, const char *charts_html) {
    cli_analysis an = {0};
    nnfx_error err = {0};
    if (cli_analyze_graph(g, path, &an, &err)) {
        cli_analysis_free(&an);
        return NULL;
    }
    sbuf b = {0};
    sb_printf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
    esc(&b, title);
    sb_printf(&b, "</title><style>%s%s</style></head><body>\n<h1>", page_css, cli_report_graph_style());
    esc(&b, title);
    sb_printf(&b, "</h1>\n%s\n<h2>Graph, shaded by measured time</h2>", summary_html ? summary_html : "");
    cli_report_graph_timed(&b, &an, ms_of);
    sb_printf(&b, "%s\n<p><small>nnfx %s</small></p>\n<script>%s</script>\n</body></html>\n",
              charts_html ? charts_html : "", NNFX_VERSION, page_js);
    cli_analysis_free(&an);
    return sb_finish(&b);
}
