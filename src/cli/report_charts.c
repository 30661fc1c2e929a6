/* report_charts.c — per-layer bar charts as inline SVG for the HTML reports
 * (analyze: MACs, parameters, live activations; quantize: SQNR; prune:
 * channels kept), and the page of the commands that rewrite a model. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/analysis.h"
#include "cli/report_graph.h"
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

void cli_html_bars(sbuf *b, const cli_bar_chart *c) {
    const int row = 16, lw = 230, bw = 420;
    int vw = 150; /* room for the longest row text, 6 px a character */
    for (int i = 0; i < c->n; i++)
        if (c->text[i] && (int)strlen(c->text[i]) * 6 + 12 > vw) vw = (int)strlen(c->text[i]) * 6 + 12;
    if (vw > 700) vw = 700;
    double max = 0;
    for (int i = 0; i < c->n; i++) {
        double v = c->total ? c->total[i] : c->value[i];
        if (isfinite(v) && v > max) max = v;
    }
    if (c->max > 0) max = c->max;
    sb_printf(b, "<figure class=\"chart\" data-chart=\"%s\"><figcaption>", c->id);
    esc(b, c->title);
    sb_printf(
        b, "</figcaption><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">",
        lw + bw + vw, c->n * row + 4, lw + bw + vw, c->n * row + 4);
    for (int i = 0; i < c->n; i++) {
        int y = 2 + i * row;
        double v = c->value[i];
        bool ok = isfinite(v);
        double w = ok && max > 0 ? bw * fmax(0, v) / max : 0;
        sb_printf(b, "<g class=\"bar\" data-bar=\"");
        esc(b, c->label[i]);
        sb_printf(b, "\" data-value=\"%.6g\"", ok ? v : 0);
        if (c->total) sb_printf(b, " data-total=\"%.6g\"", c->total[i]);
        sb_printf(b, "><title>");
        esc(b, c->label[i]);
        sb_printf(b, ": ");
        esc(b, c->text[i]);
        sb_printf(b, "</title><text x=\"%d\" y=\"%d\" text-anchor=\"end\">", lw - 6, y + 11);
        const char *l = c->label[i];
        size_t len = strlen(l);
        if (len > 34) {
            sb_printf(b, "&#8230;");
            esc(b, l + len - 33);
        } else
            esc(b, l);
        sb_printf(b, "</text>");
        if (c->total && max > 0)
            sb_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#dde3ea\"/>", lw, y + 2,
                      bw * c->total[i] / max, row - 5);
        const char *fill = c->colour && c->colour[i] ? c->colour[i] : "#4a7fd6";
        sb_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>", lw, y + 2, w, row - 5, fill);
        sb_printf(b, "<text x=\"%d\" y=\"%d\">", lw + bw + 6, y + 11);
        esc(b, c->text[i]);
        sb_printf(b, "</text></g>");
    }
    sb_printf(b, "</svg>");
    if (c->note) {
        sb_printf(b, "<small>");
        esc(b, c->note);
        sb_printf(b, "</small>");
    }
    sb_printf(b, "</figure>\n");
}

/* A chart's arrays, filled row by row. */
typedef struct chart_rows {
    cli_bar_chart c;
    char **owned; /* labels and texts */
    int nowned;
} chart_rows;

static void rows_free(chart_rows *r) {
    for (int i = 0; i < r->nowned; i++)
        free(r->owned[i]);
    free(r->owned);
    free(r->c.value);
    free((void *)r->c.label);
    free((void *)r->c.text);
    memset(r, 0, sizeof *r); /* safe to free again */
}

/* Allocates room for n rows (and one more); false, with nothing kept, when
 * out of memory. */
static bool rows_alloc(chart_rows *r, int n) {
    memset(r, 0, sizeof *r);
    r->c.value = calloc((size_t)n + 1, sizeof(double));
    r->c.label = calloc((size_t)n + 1, sizeof(char *));
    r->c.text = calloc((size_t)n + 1, sizeof(char *));
    r->owned = calloc((size_t)n + 1, sizeof(char *));
    if (r->c.value && r->c.label && r->c.text && r->owned) return true;
    rows_free(r); /* a partial allocation: nothing is kept */
    return false;
}

static int by_desc(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a < b) - (a > b);
}

/* The layers to chart: nodes with MACs (params: with parameters), in graph
 * order; a graph with more than `cap` keeps the costliest `cap` (by MACs,
 * params). */
static int pick_layers(const cli_analysis *an, int *idx, int cap, bool params) {
    int n = 0;
    for (int i = 0; i < an->ncost; i++)
        if (params ? an->cost[i].params > 0 : an->cost[i].macs > 0) idx[n++] = i;
    if (n > cap) { /* keep the costliest cap, in graph order */
        int64_t *v = malloc((size_t)n * sizeof v[0]);
        if (!v) return 0;
        for (int k = 0; k < n; k++)
            v[k] = params ? an->cost[idx[k]].params : an->cost[idx[k]].macs;
        qsort(v, (size_t)n, sizeof v[0], by_desc);
        int64_t cut = v[cap - 1];
        int above = 0, m = 0;
        for (int k = 0; k < cap; k++)
            above += v[k] > cut;
        int ties = cap - above;
        for (int k = 0; k < n; k++) {
            int64_t x = params ? an->cost[idx[k]].params : an->cost[idx[k]].macs;
            if (x > cut || (x == cut && ties-- > 0)) idx[m++] = idx[k];
        }
        free(v);
        n = m;
    }
    return n;
}

#define CHART_MAX_LAYERS 120

void cli_analysis_charts(sbuf *b, const cli_analysis *an) {
    int *idx = malloc(((size_t)an->ncost + 1) * sizeof idx[0]);
    if (!idx) return;
    char h[32];
    for (int pass = 0; pass < 2; pass++) {
        int n = an->ncost > 20000 ? 0 : pick_layers(an, idx, CHART_MAX_LAYERS, pass);
        if (n == 0) continue;
        chart_rows r;
        if (!rows_alloc(&r, n)) {
            rows_free(&r);
            break;
        }
        for (int i = 0; i < n; i++) {
            const cli_node_cost *c = &an->cost[idx[i]];
            r.c.label[i] = nnfx_node_name(c->node);
            r.c.value[i] = (double)(pass ? c->params : c->macs);
            sbuf t = {0};
            sb_printf(&t, "%s %s", cli_human_count(pass ? c->params : c->macs, h, sizeof h),
                      cli_node_op_label(c->node));
            r.c.text[i] = r.owned[r.nowned++] = sb_finish(&t);
            if (!r.c.text[i]) r.c.text[i] = "";
        }
        r.c.n = n;
        r.c.id = pass ? "params" : "macs";
        r.c.title = pass ? "Parameters per layer" : "MACs per layer";
        r.c.note = an->ncost > n && n == CHART_MAX_LAYERS ? "the costliest layers only" : NULL;
        cli_html_bars(b, &r.c);
        rows_free(&r);
    }
    free(idx);
    cli_live_memory_chart(b, an->g, an->peak_activation_bytes,
                          "the compiled plan's peak (with its workspaces and alignment)");
}

void cli_live_memory_chart(sbuf *b, const nnfx_graph *g, int64_t plan_peak, const char *peak_label) {
    /* live bytes after each node in graph order: outputs of inputs and ops
     * (not parameters) from their node to their last user */
    int n = 0;
    for (const nnfx_node *x = nnfx_graph_first(g); x; x = nnfx_node_next(x))
        n++;
    if (n < 2 || n > 200000) return;
    const nnfx_node **order = malloc((size_t)n * sizeof order[0]);
    int64_t *delta = calloc((size_t)n + 1, sizeof delta[0]);
    ir_strmap pos = {0};
    bool ok = order && delta;
    int i = 0;
    for (const nnfx_node *x = nnfx_graph_first(g); x && ok; x = nnfx_node_next(x), i++) {
        order[i] = x;
        ok = ir_strmap_put(&pos, nnfx_node_name(x), (void *)(intptr_t)(i + 1));
    }
    for (i = 0; ok && i < n; i++) {
        const nnfx_node *x = order[i];
        nnfx_opcode oc = nnfx_node_opcode(x);
        if (oc == NNFX_GET_ATTR || oc == NNFX_OUTPUT) continue;
        int64_t bytes = 0;
        for (int k = 0; k < nnfx_node_num_outputs(x); k++) {
            int64_t nb = nnfx_meta_nbytes(nnfx_node_meta_c(x, k));
            if (nb > 0) bytes += nb;
        }
        int last = i;
        for (int u = 0; u < nnfx_node_num_users(x); u++) {
            int p = (int)(intptr_t)ir_strmap_get(&pos, nnfx_node_name(nnfx_node_user(x, u))) - 1;
            if (p > last) last = p;
        }
        delta[i] += bytes;
        delta[last + 1] -= bytes;
    }
    /* one bar per op node (the live bytes while it runs) */
    chart_rows r;
    int nops = 0;
    for (i = 0; ok && i < n; i++)
        nops += nnfx_node_opcode(order[i]) == NNFX_CALL_FUNCTION || nnfx_node_opcode(order[i]) == NNFX_CALL_MODULE;
    int step = nops > CHART_MAX_LAYERS ? (nops + CHART_MAX_LAYERS - 1) / CHART_MAX_LAYERS : 1;
    if (ok && nops > 0 && rows_alloc(&r, nops)) {
        int64_t live = 0, peak = 0, window = 0;
        int k = 0, seen = 0;
        const char *peak_at = "";
        char h[32];
        for (i = 0; i < n; i++) {
            live += delta[i];
            nnfx_opcode oc = nnfx_node_opcode(order[i]);
            if (oc != NNFX_CALL_FUNCTION && oc != NNFX_CALL_MODULE) continue;
            if (live > peak) {
                peak = live;
                peak_at = nnfx_node_name(order[i]);
            }
            if (live > window) window = live;
            if (++seen % step && seen != nops) continue;
            r.c.label[k] = nnfx_node_name(order[i]);
            r.c.value[k] = (double)window;
            sbuf t = {0};
            sb_printf(&t, "%s%s", cli_human_bytes(window, h, sizeof h), step > 1 ? " (max of the span)" : "");
            r.c.text[k] = r.owned[r.nowned++] = sb_finish(&t);
            if (!r.c.text[k]) r.c.text[k] = "";
            k++;
            window = 0;
        }
        sbuf t = {0};
        sb_printf(&t, "The inputs and outputs alive at each op in graph order (no workspaces): most %s at %s",
                  cli_human_bytes(peak, h, sizeof h), peak_at);
        if (plan_peak >= 0)
            sb_printf(&t, "; the compiled plan's peak (with its workspaces and alignment): %s",
                      cli_human_bytes(plan_peak, h, sizeof h));
        char *note = sb_finish(&t);
        r.c.n = k;
        r.c.id = "memory";
        r.c.title = "Live activations per layer";
        r.c.note = note;
        cli_html_bars(b, &r.c);
        free(note);
        rows_free(&r);
    }
    ir_strmap_free(&pos);
    free(order);
    free(delta);
}
