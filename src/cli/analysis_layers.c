/* analysis_layers.c — per-layer channel counts and weight sparsity for
 * `nnfx analyze`: every Conv, Gemm and MatMul that reads a parameter weight
 * (the layers `nnfx prune` shrinks or sparsifies). */
#include <stdlib.h>
#include <string.h>

#include "cli/analysis.h"

/* One layer: channels in/out, groups, weight elements, and (when
 * count_zeros: this reads every weight byte) its zero weights, else -1.
 * Shapes come from the parameter's meta, so without count_zeros no weight
 * is read. false when n is not a layer with a parameter weight. */
static bool layer_info(const nnfx_node *n, bool count_zeros, int64_t *cin, int64_t *cout, int64_t *groups,
                       int64_t *weights, int64_t *zeros) {
    if (!(nnfx_op_flags(nnfx_node_op(n)) & NNFX_F_CHANNEL_MIXING)) return false;
    const nnfx_node *wn = nnfx_node_arg_node(n, 1);
    if (!wn || nnfx_node_opcode(wn) != NNFX_GET_ATTR) return false;
    nnfx_meta w;
    if (!nnfx_graph_param_meta(nnfx_node_graph(n), nnfx_node_target(wn), &w) || w.rank < 2) return false;
    *groups = 1;
    if (nnfx_node_is_op(n, NNFX_OP_CONV)) {
        *groups = nnfx_node_attr_int(n, "group", 1);
        *cout = w.dims[0].value;
        *cin = w.dims[1].value * *groups;
    } else if (nnfx_node_is_op(n, NNFX_OP_GEMM) && nnfx_node_attr_int(n, "transB", 0)) {
        *cout = w.dims[0].value;
        *cin = w.dims[1].value;
    } else {
        *cin = w.dims[w.rank - 2].value;
        *cout = w.dims[w.rank - 1].value;
    }
    *weights = 1;
    for (int d = 0; d < w.rank; d++)
        *weights *= w.dims[d].value;
    *zeros = -1;
    if (!count_zeros) return true;
    const nnfx_tensor *t = nnfx_graph_param(nnfx_node_graph(n), nnfx_node_target(wn));
    if (!t) return true;
    *zeros = 0;
    for (int64_t i = 0; i < *weights; i++)
        *zeros += nnfx_tensor_get(t, i) == 0.0;
    return true;
}

void cli_layers_json(sbuf *b, const nnfx_graph *g, bool sparsity) {
    sb_printf(b, "[");
    int k = 0;
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n)) {
        int64_t cin, cout, groups, weights, zeros;
        if (!layer_info(n, sparsity, &cin, &cout, &groups, &weights, &zeros)) continue;
        sb_printf(b, "%s\n    {\"name\": ", k++ ? "," : "");
        cli_json_str(b, nnfx_node_name(n));
        sb_printf(b, ", \"op\": ");
        cli_json_str(b, cli_node_op_label(n));
        sb_printf(b, ", \"in_channels\": %lld, \"out_channels\": %lld, \"groups\": %lld, \"weights\": %lld",
                  (long long)cin, (long long)cout, (long long)groups, (long long)weights);
        if (zeros >= 0) {
            sb_printf(b, ", \"zero_weights\": %lld, \"sparsity\": ", (long long)zeros);
            cli_json_num(b, weights ? (double)zeros / (double)weights : 0.0);
        }
        sb_printf(b, "}");
    }
    sb_printf(b, "]");
}

void cli_layers_summary(sbuf *b, const nnfx_graph *g, bool sparsity) {
    int n_layers = 0;
    int64_t all = 0, zero = 0;
    sbuf rows = {0};
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n)) {
        int64_t cin, cout, groups, weights, zeros;
        if (!layer_info(n, sparsity, &cin, &cout, &groups, &weights, &zeros)) continue;
        n_layers++;
        all += weights;
        zero += zeros > 0 ? zeros : 0;
        sb_printf(&rows, "    %-40s %-7s %6lld -> %-6lld%s", nnfx_node_name(n), cli_node_op_label(n), (long long)cin,
                  (long long)cout, groups > 1 ? " (grouped)" : "           ");
        if (sparsity) sb_printf(&rows, " %5.1f%% zero", weights ? 100.0 * (double)zeros / (double)weights : 0.0);
        sb_printf(&rows, "\n");
    }
    char *r = sb_finish(&rows);
    if (n_layers) {
        if (sparsity)
            sb_printf(b, "layers (channels in -> out, weight sparsity): %d, %.1f%% of their weights zero\n", n_layers,
                      all ? 100.0 * (double)zero / (double)all : 0.0);
        else
            sb_printf(b, "layers (channels in -> out; --sparsity adds zero weights): %d\n", n_layers);
        if (n_layers <= 40 && r)
            sb_printf(b, "%s", r);
        else
            sb_printf(b, "    (the JSON report lists all %d: --json FILE, key \"layers\")\n", n_layers);
    }
    free(r);
}
