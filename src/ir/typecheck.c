/* typecheck.c — dtype rules on top of lint (nnfx_graph_check_types): what a
 * graph must satisfy before a rewrite's result is accepted or written. */
#include <stdio.h>

#include "ir/ir_int.h"

/* Ops whose every tensor input must be a floating-point type. */
static bool float_only(nnfx_op op) {
    switch (op) {
    case NNFX_OP_CONV:
    case NNFX_OP_BATCH_NORM:
    case NNFX_OP_GEMM:
    case NNFX_OP_AVERAGE_POOL:
    case NNFX_OP_GLOBAL_AVERAGE_POOL:
    case NNFX_OP_SOFTMAX:
    case NNFX_OP_LOG_SOFTMAX:
    case NNFX_OP_LAYER_NORM:
    case NNFX_OP_SIGMOID:
    case NNFX_OP_HARD_SIGMOID:
    case NNFX_OP_HARD_SWISH:
    case NNFX_OP_TANH:
    case NNFX_OP_ELU:
    case NNFX_OP_ERF:
    case NNFX_OP_EXP:
    case NNFX_OP_LOG:
    case NNFX_OP_SQRT:
    case NNFX_OP_SOFTPLUS:
    case NNFX_OP_SOFTSIGN:
    case NNFX_OP_SELU:
    case NNFX_OP_CELU:
    case NNFX_OP_COS:
    case NNFX_OP_SIN:
    case NNFX_OP_TAN: return true;
    default: return false;
    }
}

/* Ops whose tensor inputs must all have one dtype (ONNX's single T). */
static bool same_type(nnfx_op op) {
    switch (op) {
    case NNFX_OP_ADD:
    case NNFX_OP_SUB:
    case NNFX_OP_MUL:
    case NNFX_OP_DIV:
    case NNFX_OP_MATMUL:
    case NNFX_OP_GEMM:
    case NNFX_OP_CONV:
    case NNFX_OP_EQUAL:
    case NNFX_OP_LESS:
    case NNFX_OP_GREATER:
    case NNFX_OP_GREATER_OR_EQUAL:
    case NNFX_OP_LESS_OR_EQUAL:
    case NNFX_OP_MIN:
    case NNFX_OP_MAX:
    case NNFX_OP_SUM:
    case NNFX_OP_MEAN:
    case NNFX_OP_MOD:
    case NNFX_OP_CONCAT: return true;
    default: return false;
    }
}

static bool is_float(nnfx_dtype dt) { return dt == NNFX_F32 || dt == NNFX_F16 || dt == NNFX_F64; }

/* dtype of a node argument's value (UNDEFINED when unknown). */
static nnfx_dtype arg_dtype(const nnfx_arg *a) {
    if (a->kind != NNFX_ARG_NODE || !a->u.node) return NNFX_DTYPE_UNDEFINED;
    const nnfx_meta *m = nnfx_node_meta_c(a->u.node, 0);
    return m ? m->dtype : NNFX_DTYPE_UNDEFINED;
}

nnfx_status nnfx_graph_check_types(const nnfx_graph *g, nnfx_error *err) {
    nnfx_status st = nnfx_graph_lint(g, err);
    if (st) return st;
    for (const nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n)) {
        if (nnfx_node_opcode(n) != NNFX_CALL_FUNCTION) continue;
        nnfx_op op = nnfx_node_op(n);
        int na = nnfx_node_num_args(n);
        if (op == NNFX_OP_GETITEM) {
            nnfx_arg src = nnfx_node_arg(n, 0), idx = nnfx_node_arg(n, 1);
            int nout = src.kind == NNFX_ARG_NODE ? nnfx_node_num_outputs(src.u.node) : 0;
            if (src.kind != NNFX_ARG_NODE || nout < 2)
                return nnfx_error_set(err, NNFX_ERR_GRAPH,
                                      "type check: node %s: getitem of %s%s, which has a single output (getitem "
                                      "selects one output of a multi-output node)",
                                      nnfx_node_name(n), src.kind == NNFX_ARG_NODE ? "%" : "a literal",
                                      src.kind == NNFX_ARG_NODE ? nnfx_node_name(src.u.node) : "");
            if (idx.kind != NNFX_ARG_INT || idx.u.i < 0 || idx.u.i >= nout)
                return nnfx_error_set(err, NNFX_ERR_GRAPH,
                                      "type check: node %s: getitem index is not an integer in 0..%d",
                                      nnfx_node_name(n), nout - 1);
            continue;
        }
        for (int b = 0; b < nnfx_node_num_subgraphs(n); b++) /* bodies (depth bounded by lint) */
            if ((st = nnfx_graph_check_types(nnfx_node_subgraph(n, b), err))) {
                nnfx_error_prefix(err, "in the body of %s", nnfx_node_name(n));
                return st;
            }
        nnfx_dtype first = NNFX_DTYPE_UNDEFINED;
        for (int i = 0; i < na; i++) {
            nnfx_arg a = nnfx_node_arg(n, i);
            nnfx_dtype dt = arg_dtype(&a);
            if (dt == NNFX_DTYPE_UNDEFINED) continue;
            if (float_only(op) && !is_float(dt))
                return nnfx_error_set(err, NNFX_ERR_SHAPE,
                                      "type check: node %s: %s input %d (%%%s) is %s; it takes a floating-point type",
                                      nnfx_node_name(n), nnfx_op_name(op), i, nnfx_node_name(a.u.node),
                                      nnfx_dtype_name(dt));
            if (same_type(op)) {
                if (first == NNFX_DTYPE_UNDEFINED)
                    first = dt;
                else if (dt != first)
                    return nnfx_error_set(err, NNFX_ERR_SHAPE,
                                          "type check: node %s: %s inputs mix %s and %s (input %d, %%%s)",
                                          nnfx_node_name(n), nnfx_op_name(op), nnfx_dtype_name(first),
                                          nnfx_dtype_name(dt), i, nnfx_node_name(a.u.node));
            }
        }
    }
    return NNFX_OK;
}
