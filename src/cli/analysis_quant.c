/* analysis_quant.c — the quantization part of `nnfx analyze`: which matrix
 * layers of a QDQ model run in int8 (DequantizeLinear on both the input
 * and the weight) and which stay float, the bytes of the integer weights,
 * and two findings:
 *   foldable_qdq  a DequantizeLinear whose users are QuantizeLinear nodes
 *                 with the same scale and zero point: the pair is an
 *                 identity on the integers and can be removed;
 *   float_island  float ops between a DequantizeLinear and a
 *                 QuantizeLinear (MaxPool, Flatten, Add...): the values
 *                 leave int8 for them;
 *   int8_no_vnni  (about the host, not the file) int8 layers on a CPU
 *                 without an int8 dot product (VNNI): they use 16-bit
 *                 multiply-adds there, and depthwise / squeeze-excitation
 *                 nets ran slower than float32 on such a host. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/analysis.h"

static bool is_q(const nnfx_node *n) { return n && nnfx_node_is_op(n, NNFX_OP_QUANTIZE_LINEAR); }
static bool is_dq(const nnfx_node *n) { return n && nnfx_node_is_op(n, NNFX_OP_DEQUANTIZE_LINEAR); }
static bool is_layer(const nnfx_node *n) {
    return nnfx_node_is_op(n, NNFX_OP_CONV) || nnfx_node_is_op(n, NNFX_OP_GEMM) || nnfx_node_is_op(n, NNFX_OP_MATMUL);
}

/* The value of argument i when it is a parameter, else NULL. */
static const nnfx_tensor *param_arg(const nnfx_graph *g, const nnfx_node *n, int i) {
    const nnfx_node *a = i < nnfx_node_num_args(n) ? nnfx_node_arg_node(n, i) : NULL;
    return a && nnfx_node_opcode(a) == NNFX_GET_ATTR ? nnfx_graph_param(g, nnfx_node_target(a)) : NULL;
}

static bool same_tensor(const nnfx_tensor *a, const nnfx_tensor *b) {
    if (!a || !b) return a == b;
    return a->dtype == b->dtype && a->nbytes == b->nbytes && memcmp(a->data, b->data, a->nbytes) == 0;
}

/* True when DQ d and Q q use the same scale and zero point (and axis). */
static bool same_params(const nnfx_graph *g, const nnfx_node *d, const nnfx_node *q) {
    if (nnfx_node_attr_int(d, "axis", 1) != nnfx_node_attr_int(q, "axis", 1)) return false;
    const nnfx_node *ds = nnfx_node_arg_node(d, 1), *qs = nnfx_node_arg_node(q, 1);
    const nnfx_tensor *dz = param_arg(g, d, 2), *qz = param_arg(g, q, 2);
    bool scale_same = (ds && ds == qs) || same_tensor(param_arg(g, d, 1), param_arg(g, q, 1));
    return scale_same && param_arg(g, d, 1) && same_tensor(dz, qz);
}

/* "N <what>" as a malloc'd string. */
static char *count_msg(int k, const char *what) {
    char buf[512];
    snprintf(buf, sizeof buf, "%d %s", k, what);
    return strdup(buf);
}

/* int8_no_vnni: the model has int8 layers and this CPU (as NNFX_ISA leaves
 * it) has no int8 dot product; names the depthwise ones (else all). */
static bool host_finding(cli_analysis *an) {
    if (!an->quant.int8_layers || (nnfx_cpu_features() & NNFX_CPU_INT8_DOT)) return true;
    const nnfx_graph *g = an->g;
    const char **names = calloc((size_t)an->quant.int8_layers + 1, sizeof *names);
    if (!names) return false;
    int ndw = 0, nall = 0;
    for (int pass = 0; pass < 2 && !ndw; pass++) /* depthwise first; all int8 layers when there are none */
        for (const nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n)) {
            if (!is_layer(n) || !is_dq(nnfx_node_arg_node(n, 0)) || !is_dq(nnfx_node_arg_node(n, 1))) continue;
            bool dw = nnfx_node_is_op(n, NNFX_OP_CONV) && nnfx_node_attr_int(n, "group", 1) > 1;
            if (pass == 0 && dw && ndw < an->quant.int8_layers) names[ndw++] = nnfx_node_name(n);
            if (pass == 1 && nall < an->quant.int8_layers) names[nall++] = nnfx_node_name(n);
        }
    char msg[512];
    snprintf(msg, sizeof msg,
             "this CPU has no int8 dot-product instruction (VNNI): the model's %d int8 layer(s) use 16-bit "
             "multiply-adds here%s%d of them depthwise",
             an->quant.int8_layers, ndw ? "; " : ", ", ndw);
    bool ok = cli_analysis_add_finding(
        an, "int8_no_vnni", ndw ? ndw : nall, names, strdup(msg),
        strdup("time it against the float model on this host (nnfx run --profile on both files): on an AVX2 host "
               "without VNNI int8 ran faster than float32 on plain conv nets (resnet18/50) but slower on depthwise "
               "and squeeze-excitation nets (mobilenet_v2, efficientnet_b0); for ONNX Runtime on such a CPU quantize "
               "with --reduce-range (its fused int8 kernels saturate on full-range weights)"));
    free(names);
    return ok;
}

bool cli_analysis_quant(cli_analysis *an) {
    const nnfx_graph *g = an->g;
    cli_quant_stats *st = &an->quant;
    memset(st, 0, sizeof *st);
    for (const nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n)) {
        if (is_q(n)) st->q_nodes++;
        if (is_dq(n)) {
            st->dq_nodes++;
            const nnfx_tensor *t = param_arg(g, n, 0);
            if (t && t->dtype != NNFX_F32) st->int8_weight_bytes += (int64_t)t->nbytes;
        }
    }
    if (!st->q_nodes && !st->dq_nodes) return true;
    int nn = nnfx_graph_num_nodes(g);
    const char **fold = calloc((size_t)nn + 1, sizeof *fold), **island = calloc((size_t)nn + 1, sizeof *island);
    int nfold = 0, nisland = 0;
    bool ok = fold && island;
    for (const nnfx_node *n = nnfx_graph_first(g); ok && n; n = nnfx_node_next(n)) {
        if (is_layer(n)) {
            if (is_dq(nnfx_node_arg_node(n, 0)) && is_dq(nnfx_node_arg_node(n, 1)))
                st->int8_layers++;
            else
                st->float_layers++;
            continue;
        }
        if (is_dq(n)) {
            int users = nnfx_node_num_users(n), qs = 0;
            for (int u = 0; u < users; u++)
                if (is_q(nnfx_node_user(n, u)) && same_params(g, n, nnfx_node_user(n, u))) qs++;
            if (users > 0 && qs == users) fold[nfold++] = nnfx_node_name(n);
            continue;
        }
    }
    /* islands: float ops (not Q/DQ, not matrix layers) whose inputs all come
     * from DQ or other island ops, and whose users are all Q or island ops */
    nnfx_value_map *pos = nnfx_value_map_new();
    const nnfx_node **nodes = calloc((size_t)nn + 1, sizeof *nodes);
    char *fed = calloc((size_t)nn + 1, 1), *drains = calloc((size_t)nn + 1, 1);
    ok = ok && pos && nodes && fed && drains;
    int k = 0;
    for (const nnfx_node *n = nnfx_graph_first(g); ok && n; n = nnfx_node_next(n)) {
        nodes[k] = n;
        ok = nnfx_value_map_put(pos, n, (nnfx_node *)(intptr_t)(k + 1));
        k++;
    }
    for (int i = 0; ok && i < k; i++) {
        const nnfx_node *n = nodes[i];
        if (is_q(n) || is_dq(n) || is_layer(n) || nnfx_node_opcode(n) != NNFX_CALL_FUNCTION) continue;
        bool any = false, all = true;
        for (int a = 0; a < nnfx_node_num_args(n); a++) {
            const nnfx_node *src = nnfx_node_arg_node(n, a);
            if (!src || nnfx_node_opcode(src) == NNFX_GET_ATTR) continue;
            int j = (int)(intptr_t)nnfx_value_map_get(pos, src) - 1;
            if (is_dq(src) || (j >= 0 && fed[j]))
                any = true;
            else
                all = false;
        }
        fed[i] = any && all;
    }
    for (int i = k - 1; ok && i >= 0; i--) {
        const nnfx_node *n = nodes[i];
        if (!fed[i] || nnfx_node_num_users(n) == 0) continue;
        bool all = true;
        for (int u = 0; u < nnfx_node_num_users(n) && all; u++) {
            const nnfx_node *us = nnfx_node_user(n, u);
            int j = (int)(intptr_t)nnfx_value_map_get(pos, us) - 1;
            all = is_q(us) || (j >= 0 && drains[j]);
        }
        drains[i] = all;
    }
    for (int i = 0; ok && i < k; i++)
        if (drains[i]) island[nisland++] = nnfx_node_name(nodes[i]);
    nnfx_value_map_free(pos);
    free(nodes), free(fed), free(drains);
    st->float_island_ops = nisland;
    if (ok && nfold)
        ok = cli_analysis_add_finding(
            an, "foldable_qdq", nfold, fold,
            count_msg(nfold, "DequantizeLinear -> QuantizeLinear pair(s) with the same scale and zero point: an "
                             "identity on the integers"),
            strdup("remove each pair and feed the QuantizeLinear's users the DequantizeLinear's input"));
    if (ok && nisland)
        ok = cli_analysis_add_finding(
            an, "float_island", nisland, island,
            count_msg(nisland, "float op(s) run between int8 layers (DequantizeLinear -> op -> QuantizeLinear): the "
                               "values leave int8 for them"),
            strdup("run them on the integers (int8 pooling, reshapes and Add where the scales allow) or quantize "
                   "fewer layers around them"));
    free(fold);
    free(island);
    return ok && host_finding(an);
}
