/* report_graph.h — the graph drawn in the HTML reports (report_graph.c and
 * the embedded script src/cli/report/graph.js). */
#ifndef NNFX_CLI_REPORT_GRAPH_H
#define NNFX_CLI_REPORT_GRAPH_H

#include "cli/analysis.h"

/* Appends the drawing of after's graph to b: a toolbar, an SVG the page's
 * script fills, a details panel, the graph as JSON and the script. With
 * before (not NULL), one drawing of both graphs: nodes matched by name, then
 * by position; removed, added and changed nodes carry
 * data-change="removed|added|changed". The page needs
 * cli_report_graph_style() in its <style>. */
void cli_report_graph(sbuf *b, const cli_analysis *after, const cli_analysis *before);
/* The drawing's CSS (a static string). */
const char *cli_report_graph_style(void);

#endif
