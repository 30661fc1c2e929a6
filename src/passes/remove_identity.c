/* remove_identity.c — replaces every no-op node (ops flagged NNFX_F_NOOP:
 * Identity, Dropout at inference) by its input. */
#include "ir/ir_int.h"
#include "passes/passes_int.h"

nnfx_status nnfx_pass_remove_identity(nnfx_graph *g, nnfx_pass_report *report, nnfx_error *err) {
    if (!g) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "remove-identity: NULL graph");
    ps_begin(report, "remove-identity", g);
    nnfx_status st = NNFX_OK;
    for (nnfx_node *n = nnfx_graph_first(g), *next; n && !st; n = next) {
        next = n->next;
        if (n->opcode != NNFX_CALL_FUNCTION || !(nnfx_op_flags(n->op) & NNFX_F_NOOP)) continue;
        if (n->nout != 1 || !nnfx_node_arg_node(n, 0)) {
            ps_skip(report, n->name, "no-op %s whose value is not just its first input", nnfx_op_name(n->op));
            continue;
        }
        if (!(st = ps_bypass(g, n, err)) && report) report->changed++;
    }
    ir_graph_drop_dead_params(g);
    ps_end(report, g);
    return st;
}
