/* remove_bn.c — replaces every BatchNormalization by its input (for
 * targets without BN, or BNs known to be identities). */
#include "ir/ir_int.h"
#include "passes/passes_int.h"

nnfx_status nnfx_pass_remove_bn(nnfx_graph *g, nnfx_pass_report *report, nnfx_error *err) {
    if (!g) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "remove-bn: NULL graph");
    ps_begin(report, "remove-bn", g);
    nnfx_status st = NNFX_OK;
    for (nnfx_node *n = nnfx_graph_first(g), *next; n && !st; n = next) {
        next = n->next;
        if (!nnfx_node_is_op(n, NNFX_OP_BATCH_NORM)) continue;
        if (!(st = ps_bypass(g, n, err)) && report) report->changed++;
    }
    ir_graph_drop_dead_params(g);
    ps_end(report, g);
    return st;
}
