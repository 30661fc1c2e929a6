/* dce.c — the "dce" pass: nnfx_eliminate_dead_code (the one dead-code
 * elimination, ir/graph.c) plus removal of unused parameters. */
#include "ir/ir_int.h"
#include "passes/passes_int.h"

nnfx_status ps_dce(nnfx_graph *g, nnfx_pass_report *report, nnfx_error *err) {
    if (!g) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "dce: NULL graph");
    ps_begin(report, "dce", g);
    int removed = nnfx_eliminate_dead_code(g);
    removed += nnfx_graph_drop_unused_params(g);
    if (report) report->changed += removed;
    ps_end(report, g);
    return NNFX_OK;
}
