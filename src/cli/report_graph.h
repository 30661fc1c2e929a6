/* report_graph.h — the graph drawn in the HTML reports (report_graph.c and
 * the embedded script src/cli/report/graph.js). */
#ifndef NNFX_CLI_REPORT_GRAPH_H
#define NNFX_CLI_REPORT_GRAPH_H

#include "cli/analysis.h"
#include "ir/strmap.h"

/* Appends the drawing of after's graph to b: a toolbar, an SVG the page's
 * script fills, a details panel, the graph as JSON and the script. With
 * before (not NULL), one drawing of both graphs: nodes matched by name, then
 * by position; removed, added and changed nodes carry
 * data-change="removed|added|changed". The page needs
 * cli_report_graph_style() in its <style>. */
void cli_report_graph(sbuf *b, const cli_analysis *after, const cli_analysis *before);
/* As cli_report_graph for one graph, nodes shaded by measured time:
 * ms_of (node name -> a double * of milliseconds per run) names the nodes
 * a step's time is given to (a fused step: its last node). */
void cli_report_graph_timed(sbuf *b, const cli_analysis *an, const ir_strmap *ms_of);
/* The drawing's CSS (a static string). */
const char *cli_report_graph_style(void);

/* A horizontal bar chart (inline SVG): one row per label, bar length
 * value / max (max: the largest value, or total, when max is 0), an
 * optional lighter bar behind for total (channels kept of all), the row's
 * text at its end; colour per row optional. Each row is a
 * <g class="bar" data-bar="LABEL" data-value="V" [data-total="T"]>. */
typedef struct cli_bar_chart {
    const char *id, *title, *note; /* note may be NULL */
    int n;
    const char **label, **text;
    double *value;
    const double *total; /* NULL: no background bars */
    const char **colour; /* NULL: all blue */
    double max;
} cli_bar_chart;

/* Appends chart c as <figure class="chart" data-chart="ID">. */
void cli_html_bars(sbuf *b, const cli_bar_chart *c);
/* analyze's charts: MACs and parameters per layer (nodes with either; the
 * 120 costliest of a larger graph), and the live activations. */
void cli_analysis_charts(sbuf *b, const cli_analysis *an);
/* Bytes of the inputs and outputs alive at each op of g in graph order,
 * one bar per op (max over spans when there are more than 120 ops), with
 * plan_peak named peak_label in the note when plan_peak >= 0. */
void cli_live_memory_chart(sbuf *b, const nnfx_graph *g, int64_t plan_peak, const char *peak_label);

/* The HTML page of a command that rewrote a model (quantize, prune): title,
 * summary_html (trusted HTML: the figures), one drawing of before -> after
 * (shapes inferred; their analyses are made here; no drawing when either
 * is NULL), then charts_html.
 * Malloc'd; NULL on out of memory or when a graph cannot be analysed. */
char *cli_rewrite_page(const char *title, const char *summary_html, const nnfx_graph *before, const char *before_path,
                       const nnfx_graph *after, const char *after_path, const char *charts_html);
/* The page of `run --profile-html`: summary_html, g drawn shaded by the
 * time of its steps (ms_of as in cli_report_graph_timed; shapes inferred),
 * then charts_html. Malloc'd; NULL on out of memory. */
char *cli_profile_page(const char *title, const char *summary_html, const nnfx_graph *g, const char *path,
                       const ir_strmap *ms_of, const char *charts_html);
/* Whether a report path names an HTML file (.html or .htm). */
bool cli_report_is_html(const char *path);

#endif
