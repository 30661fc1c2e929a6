/* node_cost.c — MACs and FLOPs of one node of a graph (the op table's cost
 * function applied to the node's inferred metas and constant inputs). */
#include <string.h>

#include "ir/ir_int.h"
#include "ir/op_table.h"

/* MACs and FLOPs of one call_function node from its metas. */
void nnfx_node_cost(const nnfx_node *n, int64_t *macs, int64_t *flops) {
    const nnfx_graph *g = n ? nnfx_node_graph(n) : NULL;
    *macs = *flops = 0;
    if (!g) return;
    nnfx_op op = nnfx_node_op(n);
    if (op == NNFX_OP_NONE) return;
    const nnfx_op_info *info = ir_op_info(op);
    if (!info || !info->cost) return;
    int nin = nnfx_node_num_args(n);
    if (nin > 64) nin = 64;
    const nnfx_meta *in[64];
    const nnfx_tensor *vals[64];
    nnfx_meta lit[64];
    for (int a = 0; a < nin; a++) {
        nnfx_arg arg = nnfx_node_arg(n, a);
        in[a] = NULL;
        vals[a] = NULL;
        if (arg.kind == NNFX_ARG_NODE) {
            in[a] = nnfx_node_meta_c(arg.u.node, 0);
            nnfx_meta pm;
            /* shape-like parameters only, as shape inference: a weight is not read */
            if (nnfx_node_opcode(arg.u.node) == NNFX_GET_ATTR &&
                nnfx_graph_param_meta(g, nnfx_node_target(arg.u.node), &pm) && nnfx_meta_numel(&pm) >= 0 &&
                ir_shape_value_like(pm.dtype, nnfx_meta_numel(&pm)))
                vals[a] = nnfx_graph_param(g, nnfx_node_target(arg.u.node));
        } else if (arg.kind == NNFX_ARG_INT || arg.kind == NNFX_ARG_FLOAT) {
            memset(&lit[a], 0, sizeof lit[a]);
            lit[a].dtype = arg.kind == NNFX_ARG_INT ? NNFX_I64 : NNFX_F32;
            lit[a].rank = 0;
            in[a] = &lit[a];
        }
    }
    nnfx_error err = {0};
    nnfx_infer_ctx c = {0};
    c.node = n;
    c.nin = nin;
    c.in = in;
    c.in_value = vals;
    c.nout = nnfx_node_num_outputs(n);
    c.out = (nnfx_meta *)nnfx_node_meta_c(n, 0);
    c.err = &err;
    if (!c.out || c.out->rank < 0) return;
    info->cost(&c, macs, flops);
    if (*macs < 0) *macs = 0;
    if (*flops < 0) *flops = 0;
}
