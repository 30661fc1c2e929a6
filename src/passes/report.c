/* report.c — pass reports and helpers shared by the passes. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"
#include "passes/passes_int.h"

void nnfx_pass_report_free(nnfx_pass_report *r) {
    if (!r) return;
    free(r->skipped);
    memset(r, 0, sizeof *r);
}

void ps_begin(nnfx_pass_report *r, const char *name, const nnfx_graph *g) {
    if (!r) return;
    snprintf(r->pass, sizeof r->pass, "%s", name);
    r->nodes_before = nnfx_graph_num_nodes(g);
    r->nodes_after = r->nodes_before;
}

void ps_end(nnfx_pass_report *r, const nnfx_graph *g) {
    if (r) r->nodes_after = nnfx_graph_num_nodes(g);
}

void ps_skip(nnfx_pass_report *r, const char *node, const char *fmt, ...) {
    if (!r) return;
    nnfx_pass_skip *s = realloc(r->skipped, sizeof *s * (size_t)(r->nskipped + 1));
    if (!s) return; /* a report entry is not worth failing the pass for */
    r->skipped = s;
    s = &r->skipped[r->nskipped++];
    snprintf(s->node, sizeof s->node, "%s", node ? node : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->reason, sizeof s->reason, fmt, ap);
    va_end(ap);
}

nnfx_status ps_bypass(nnfx_graph *g, nnfx_node *n, nnfx_error *err) {
    nnfx_node *in = nnfx_node_arg_node(n, 0);
    if (!in) return nnfx_error_set(err, NNFX_ERR_GRAPH, "node %s: its first input is not a node", n->name);
    if (nnfx_replace_all_uses_with(n, in, NULL, NULL) < 0)
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory rewiring %s", n->name);
    return nnfx_erase_node(g, n, err);
}
