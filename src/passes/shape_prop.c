/* shape_prop.c — re-infers the meta of every node (FX's ShapeProp). */
#include "ir/ir_int.h"
#include "passes/passes_int.h"

nnfx_status nnfx_pass_shape_prop(nnfx_graph *g, nnfx_pass_report *report, nnfx_error *err) {
    if (!g) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "shape-prop: NULL graph");
    ps_begin(report, "shape-prop", g);
    nnfx_status st = nnfx_graph_infer_shapes(g, err);
    if (!st && report) {
        for (nnfx_node *n = nnfx_graph_first(g); n; n = n->next)
            report->changed += n->opcode != NNFX_OUTPUT && nnfx_meta_is_static(&n->meta[0]);
    }
    ps_end(report, g);
    return st;
}
