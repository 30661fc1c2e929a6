/* report_html.c — the analysis as one self-contained HTML page: summary,
 * cost per op and per node (sortable tables), findings, and the graph as
 * inline SVG. No external resources. */
#include <stdlib.h>
#include <string.h>

#include "cli/analysis.h"

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
    ".graph svg{max-width:100%;height:auto;cursor:zoom-in}.graph.full svg{max-width:none;cursor:zoom-out}";

static const char page_js[] =
    "document.querySelectorAll('table.sortable').forEach(function(t){"
    "t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){"
    "var tb=t.tBodies[0],rows=Array.prototype.slice.call(tb.rows),asc=th.dataset.asc!=='1';"
    "t.querySelectorAll('th').forEach(function(h){delete h.dataset.asc;});th.dataset.asc=asc?'1':'0';"
    "rows.sort(function(a,b){var x=a.cells[i].dataset.v||a.cells[i].textContent,"
    "y=b.cells[i].dataset.v||b.cells[i].textContent,fx=parseFloat(x),fy=parseFloat(y);"
    "var c=(!isNaN(fx)&&!isNaN(fy))?fx-fy:x.localeCompare(y);return asc?c:-c;});"
    "rows.forEach(function(r){tb.appendChild(r);});});});});"
    "document.querySelectorAll('.graph').forEach(function(g){g.addEventListener('click',function(){"
    "g.classList.toggle('full');});});";

static void card(sbuf *b, const char *label, const char *value) {
    sb_printf(b, "<div class=\"card\"><b>");
    esc(b, value);
    sb_printf(b, "</b>");
    esc(b, label);
    sb_printf(b, "</div>");
}

/* Strips an XML prolog/doctype so the SVG can be inlined. */
static const char *svg_body(const char *svg) {
    const char *p = strstr(svg, "<svg");
    return p ? p : svg;
}

char *cli_analysis_html(const cli_analysis *an, const char *model, const char *svg, const char *svg_note) {
    sbuf b = {0};
    char c1[32];
    sb_printf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>nnfx analyze: ");
    esc(&b, cli_basename(model));
    sb_printf(&b, "</title><style>%s</style></head><body>\n<h1>nnfx analyze: ", page_css);
    esc(&b, model);
    sb_printf(&b, "</h1>\n<div class=\"cards\">");
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

    sb_printf(&b, "<h2>Findings</h2>");
    if (an->nfindings == 0)
        sb_printf(&b, "<p>No findings.</p>");
    else {
        sb_printf(&b, "<table class=\"sortable\"><thead><tr><th>kind</th><th>nodes</th><th>message</th>"
                      "<th>suggestion</th></tr></thead><tbody>");
        for (int i = 0; i < an->nfindings; i++) {
            const cli_finding *f = &an->findings[i];
            sb_printf(&b, "<tr><td><span class=\"kind\">");
            esc(&b, f->kind);
            sb_printf(&b, "</span></td><td>");
            for (int j = 0; j < f->nnodes && j < 12; j++) {
                if (j) sb_printf(&b, ", ");
                esc(&b, f->nodes[j]);
            }
            if (f->nnodes > 12) sb_printf(&b, ", &hellip; (%d in all)", f->nnodes);
            sb_printf(&b, "</td><td>");
            esc(&b, f->message);
            sb_printf(&b, "</td><td><code>");
            esc(&b, f->suggestion);
            sb_printf(&b, "</code></td></tr>");
        }
        sb_printf(&b, "</tbody></table>");
    }

    sb_printf(&b, "\n<h2>Cost per op type</h2><table class=\"sortable\"><thead><tr><th>op</th><th>count</th>"
                  "<th>MACs</th><th>FLOPs</th><th>share of MACs</th></tr></thead><tbody>");
    for (int i = 0; i < an->nops; i++) {
        const cli_op_count *o = &an->ops[i];
        double share = an->macs > 0 ? 100.0 * (double)o->macs / (double)an->macs : 0.0;
        sb_printf(&b, "<tr><td>");
        esc(&b, o->op);
        sb_printf(&b, "</td><td class=\"n\">%d</td><td class=\"n\" data-v=\"%lld\">%s</td>", o->count,
                  (long long)o->macs, cli_human_count(o->macs, c1, sizeof c1));
        sb_printf(&b, "<td class=\"n\" data-v=\"%lld\">%s</td>", (long long)o->flops,
                  cli_human_count(o->flops, c1, sizeof c1));
        sb_printf(&b, "<td data-v=\"%.4f\"><span class=\"bar\" style=\"width:%dpx\"></span> %.1f%%</td></tr>", share,
                  (int)(share * 2), share);
    }
    sb_printf(&b, "</tbody></table>\n");

    sb_printf(&b, "<h2>Cost per node</h2><table class=\"sortable\"><thead><tr><th>#</th><th>name</th><th>op</th>"
                  "<th>output</th><th>params</th><th>MACs</th><th>FLOPs</th></tr></thead><tbody>");
    for (int i = 0; i < an->ncost; i++) {
        const cli_node_cost *c = &an->cost[i];
        sb_printf(&b, "<tr><td class=\"n\">%d</td><td>", i);
        esc(&b, nnfx_node_name(c->node));
        sb_printf(&b, "</td><td>");
        esc(&b, cli_node_op_label(c->node));
        sb_printf(&b, "</td><td>");
        esc(&b, nnfx_meta_str(nnfx_node_meta_c(c->node, 0), meta, sizeof meta));
        sb_printf(&b, "</td><td class=\"n\">%lld</td><td class=\"n\" data-v=\"%lld\">%s</td>", (long long)c->params,
                  (long long)c->macs, cli_human_count(c->macs, c1, sizeof c1));
        sb_printf(&b, "<td class=\"n\" data-v=\"%lld\">%s</td></tr>", (long long)c->flops,
                  cli_human_count(c->flops, c1, sizeof c1));
    }
    sb_printf(&b, "</tbody></table>\n<h2>Graph</h2>");
    if (svg) {
        sb_printf(&b,
                  "<p><small>Scaled to the page width; click the picture for its actual size.</small></p>"
                  "<div class=\"graph\">%s</div>",
                  svg_body(svg));
    } else {
        sb_printf(&b, "<p>No picture: ");
        esc(&b, svg_note ? svg_note : "Graphviz was not available");
        sb_printf(&b, "</p>");
    }
    sb_printf(&b, "\n<p><small>nnfx %s</small></p>\n<script>%s</script>\n</body></html>\n", NNFX_VERSION, page_js);
    return sb_finish(&b);
}
