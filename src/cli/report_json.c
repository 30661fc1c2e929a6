/* report_json.c — the analysis as JSON and as a terminal summary. */
#include <stdlib.h>
#include <string.h>

#include "cli/analysis.h"
#include "cli/graph_json.h"

char *cli_analysis_json(const cli_analysis *an, const char *model) {
    sbuf b = {0};
    const nnfx_graph *g = an->g;
    sb_printf(&b, "{\n  \"model\": ");
    cli_json_str(&b, model);
    if (an->quant.q_nodes || an->quant.dq_nodes) /* Quantization (int8) */
        sb_printf(&b,
                  ",\n  \"quantization\": {\"int8_layers\": %d, \"float_layers\": %d, \"quantize_nodes\": %d, "
                  "\"dequantize_nodes\": %d, \"float_island_ops\": %d, \"int8_weight_bytes\": %lld}",
                  an->quant.int8_layers, an->quant.float_layers, an->quant.q_nodes, an->quant.dq_nodes,
                  an->quant.float_island_ops, (long long)an->quant.int8_weight_bytes);
    sb_printf(&b,
              ",\n  \"nodes\": %d,\n  \"graph_nodes\": %d,\n  \"params\": %lld,\n  \"param_bytes\": %lld,\n"
              "  \"macs\": %lld,\n  \"flops\": %lld,\n  \"peak_activation_bytes\": ",
              an->nodes, an->graph_nodes, (long long)an->params, (long long)an->param_bytes, (long long)an->macs,
              (long long)an->flops);
    if (an->peak_activation_bytes >= 0)
        sb_printf(&b, "%lld", (long long)an->peak_activation_bytes);
    else
        sb_printf(&b, "null");
    sb_printf(&b, ",\n  \"ops\": {");
    for (int i = 0; i < an->nops; i++) {
        sb_printf(&b, "%s", i ? ", " : "");
        cli_json_str(&b, an->ops[i].op);
        sb_printf(&b, ": %d", an->ops[i].count);
    }
    sb_printf(&b, "},\n  \"op_costs\": [");
    for (int i = 0; i < an->nops; i++) {
        sb_printf(&b, "%s\n    {\"op\": ", i ? "," : "");
        cli_json_str(&b, an->ops[i].op);
        sb_printf(&b, ", \"count\": %d, \"macs\": %lld, \"flops\": %lld}", an->ops[i].count, (long long)an->ops[i].macs,
                  (long long)an->ops[i].flops);
    }
    sb_printf(&b, "],\n  \"inputs\": [");
    for (int i = 0; i < nnfx_graph_num_inputs(g); i++) {
        if (i) sb_printf(&b, ", ");
        cli_json_value_entry(&b, nnfx_graph_input(g, i));
    }
    sb_printf(&b, "],\n  \"outputs\": [");
    const nnfx_node *outn = nnfx_graph_output_node(g);
    int k = 0;
    for (int i = 0; outn && i < nnfx_node_num_args(outn); i++) {
        const nnfx_node *src = nnfx_node_arg_node(outn, i);
        if (!src) continue;
        if (k++) sb_printf(&b, ", ");
        cli_json_value_entry(&b, src);
    }
    sb_printf(&b, "],\n  \"per_node\": [");
    for (int i = 0; i < an->ncost; i++) {
        const cli_node_cost *c = &an->cost[i];
        sb_printf(&b, "%s\n    {\"name\": ", i ? "," : "");
        cli_json_str(&b, nnfx_node_name(c->node));
        sb_printf(&b, ", \"op\": ");
        cli_json_str(&b, cli_node_op_label(c->node));
        sb_printf(&b, ", \"shape\": ");
        cli_json_shape(&b, nnfx_node_meta_c(c->node, 0));
        sb_printf(&b, ", \"params\": %lld, \"macs\": %lld, \"flops\": %lld}", (long long)c->params, (long long)c->macs,
                  (long long)c->flops);
    }
    sb_printf(&b, "],\n  \"findings\": [");
    for (int i = 0; i < an->nfindings; i++) {
        const cli_finding *f = &an->findings[i];
        sb_printf(&b, "%s\n    {\"kind\": ", i ? "," : "");
        cli_json_str(&b, f->kind);
        sb_printf(&b, ", \"nodes\": [");
        for (int j = 0; j < f->nnodes; j++) {
            if (j) sb_printf(&b, ", ");
            cli_json_str(&b, f->nodes[j]);
        }
        sb_printf(&b, "], \"message\": ");
        cli_json_str(&b, f->message);
        sb_printf(&b, ", \"suggestion\": ");
        cli_json_str(&b, f->suggestion);
        sb_printf(&b, "}");
    }
    sb_printf(&b, "%s]\n}\n", an->nfindings ? "\n  " : "");
    return sb_finish(&b);
}

static int cmp_cost_desc(const void *a, const void *b) {
    const cli_node_cost *x = *(const cli_node_cost *const *)a, *y = *(const cli_node_cost *const *)b;
    if (x->macs != y->macs) return x->macs < y->macs ? 1 : -1;
    return x->flops < y->flops ? 1 : x->flops > y->flops ? -1 : 0;
}

char *cli_analysis_summary(const cli_analysis *an, const char *model) {
    sbuf b = {0};
    char c1[32], c2[32], c3[32], c4[32], c5[32];
    const nnfx_graph *g = an->g;
    sb_printf(&b, "%s\n", model);
    sb_printf(&b, "  ops %d   params %s (%s)   MACs %s   FLOPs %s   peak activations %s\n", an->nodes,
              cli_human_count(an->params, c1, sizeof c1), cli_human_bytes(an->param_bytes, c2, sizeof c2),
              cli_human_count(an->macs, c3, sizeof c3), cli_human_count(an->flops, c4, sizeof c4),
              cli_human_bytes(an->peak_activation_bytes, c5, sizeof c5));
    if (an->quant.q_nodes || an->quant.dq_nodes) /* Quantization (int8) */
        sb_printf(&b,
                  "  int8: %d layer%s int8, %d float; %d QuantizeLinear, %d DequantizeLinear; integer weights %s; "
                  "%d float op%s between int8 layers\n",
                  an->quant.int8_layers, an->quant.int8_layers == 1 ? "" : "s", an->quant.float_layers,
                  an->quant.q_nodes, an->quant.dq_nodes, cli_human_bytes(an->quant.int8_weight_bytes, c1, sizeof c1),
                  an->quant.float_island_ops, an->quant.float_island_ops == 1 ? "" : "s");
    char meta[256];
    for (int i = 0; i < nnfx_graph_num_inputs(g); i++) {
        const nnfx_node *n = nnfx_graph_input(g, i);
        sb_printf(&b, "  input  %s: %s\n", nnfx_node_name(n), nnfx_meta_str(nnfx_node_meta_c(n, 0), meta, sizeof meta));
    }
    const nnfx_node *outn = nnfx_graph_output_node(g);
    for (int i = 0; outn && i < nnfx_node_num_args(outn); i++) {
        const nnfx_node *n = nnfx_node_arg_node(outn, i);
        if (n)
            sb_printf(&b, "  output %s: %s\n", nnfx_node_name(n),
                      nnfx_meta_str(nnfx_node_meta_c(n, 0), meta, sizeof meta));
    }
    sb_printf(&b, "\n  %-24s %6s %12s %12s\n", "op", "count", "MACs", "FLOPs");
    for (int i = 0; i < an->nops; i++)
        sb_printf(&b, "  %-24s %6d %12s %12s\n", an->ops[i].op, an->ops[i].count,
                  cli_human_count(an->ops[i].macs, c1, sizeof c1), cli_human_count(an->ops[i].flops, c2, sizeof c2));
    if (an->ncost > 0) {
        const cli_node_cost **sorted = malloc(sizeof *sorted * (size_t)an->ncost);
        if (sorted) {
            for (int i = 0; i < an->ncost; i++)
                sorted[i] = &an->cost[i];
            qsort(sorted, (size_t)an->ncost, sizeof *sorted, cmp_cost_desc);
            int top = an->ncost < 5 ? an->ncost : 5;
            sb_printf(&b, "\n  costliest nodes:\n");
            for (int i = 0; i < top; i++) {
                double share = an->macs > 0 ? 100.0 * (double)sorted[i]->macs / (double)an->macs : 0.0;
                sb_printf(&b, "  %-32s %-20s MACs %-10s %5.1f%%\n", nnfx_node_name(sorted[i]->node),
                          cli_node_op_label(sorted[i]->node), cli_human_count(sorted[i]->macs, c1, sizeof c1), share);
            }
            free(sorted);
        }
    }
    if (an->nfindings == 0) {
        sb_printf(&b, "\n  no findings\n");
    } else {
        sb_printf(&b, "\n  %d finding%s:\n", an->nfindings, an->nfindings == 1 ? "" : "s");
        for (int i = 0; i < an->nfindings; i++)
            sb_printf(&b, "  [%s] %s\n      try: %s\n", an->findings[i].kind, an->findings[i].message,
                      an->findings[i].suggestion);
    }
    return sb_finish(&b);
}
