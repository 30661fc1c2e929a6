/* analysis.h — what `nnfx analyze` computes about a graph: sizes, cost per
 * node and per op type, peak activation memory, and findings (waste and
 * problems, each with a suggestion). Also used by optimize's report. */
#ifndef NNFX_CLI_ANALYSIS_H
#define NNFX_CLI_ANALYSIS_H

#include "cli/cli.h"

typedef struct cli_node_cost {
    const nnfx_node *node;
    int64_t params; /* elements of the float parameters it reads directly */
    int64_t macs, flops;
} cli_node_cost;

typedef struct cli_finding {
    const char *kind; /* foldable_batch_norm, dead_node, unused_input, ... */
    int nnodes;
    char **nodes;     /* node (or parameter) names, malloc'd            */
    char *message;    /* malloc'd                                        */
    char *suggestion; /* malloc'd                                        */
} cli_finding;

typedef struct cli_op_count {
    char *op; /* ONNX op type ("Conv"), nnfx name for internal ops, or the
                 leaf name of a call_module */
    int count;
    int64_t macs, flops;
} cli_op_count;

typedef struct cli_analysis {
    const nnfx_graph *g;         /* borrowed; shapes inferred            */
    int nodes;                   /* op nodes (call_function/module)      */
    int graph_nodes;             /* every node of the graph              */
    int64_t params, param_bytes; /* float parameters: elements, bytes    */
    int64_t all_param_bytes;     /* every parameter's bytes              */
    int64_t macs, flops;
    int64_t peak_activation_bytes; /* -1 when it could not be computed     */
    int ncost;
    cli_node_cost *cost; /* per op node, in graph order          */
    int nops;
    cli_op_count *ops; /* per op type, by first appearance     */
    int nfindings;
    cli_finding *findings;
} cli_analysis;

/* Analyses g, whose shapes must already be inferred (nnfx_graph_infer_shapes).
 * model_path is used in suggestions. Returns NNFX_OK or an error (out of
 * memory). Free with cli_analysis_free. */
nnfx_status cli_analyze_graph(const nnfx_graph *g, const char *model_path, cli_analysis *an, nnfx_error *err);
void cli_analysis_free(cli_analysis *an);

/* The report as JSON (malloc'd, NULL on OOM), keys: model, nodes, params,
 * param_bytes, macs, flops, ops, inputs, outputs, per_node,
 * peak_activation_bytes, findings. */
char *cli_analysis_json(const cli_analysis *an, const char *model_path);
/* A one-page self-contained HTML report (malloc'd); svg may be NULL (the
 * page then says why the picture is missing: svg_note). */
char *cli_analysis_html(const cli_analysis *an, const char *model_path, const char *svg, const char *svg_note);
/* The terminal summary (malloc'd). */
char *cli_analysis_summary(const cli_analysis *an, const char *model_path);

/* Per-layer channel counts and weight sparsity of every Conv, Gemm and
 * MatMul with a parameter weight (analysis_layers.c): a JSON array of
 * {name, op, in_channels, out_channels, groups, weights, zero_weights,
 * sparsity}, and terminal lines. */
void cli_layers_json(sbuf *b, const nnfx_graph *g);
void cli_layers_summary(sbuf *b, const nnfx_graph *g);

/* Op type label of a node ("Conv", "getitem", a leaf's name). */
const char *cli_node_op_label(const nnfx_node *n);
/* "1.81 G", "302 M", "12.5 K", "17" */
char *cli_human_count(int64_t v, char *buf, size_t len);
/* "4.5 MiB" */
char *cli_human_bytes(int64_t v, char *buf, size_t len);

#endif
