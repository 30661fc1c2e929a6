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

/* Quantization (int8): what a QDQ model runs in int8 (src/cli/analysis_quant.c). */
typedef struct cli_quant_stats {
    int int8_layers;           /* Conv/Gemm/MatMul with DQ input and DQ weight  */
    int float_layers;          /* Conv/Gemm/MatMul otherwise                    */
    int q_nodes, dq_nodes;     /* QuantizeLinear / DequantizeLinear nodes       */
    int float_island_ops;      /* float ops between a DQ and a Q                */
    int64_t int8_weight_bytes; /* integer tensors read by DequantizeLinear     */
} cli_quant_stats;

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
    cli_quant_stats quant; /* zero for a model without Q/DQ nodes */
    bool sparsity;         /* count zero weights per layer (reads every weight) */
} cli_analysis;

/* Analyses g, whose shapes must already be inferred (nnfx_graph_infer_shapes).
 * model_path is used in suggestions. Returns NNFX_OK or an error (out of
 * memory). Free with cli_analysis_free. */
nnfx_status cli_analyze_graph(const nnfx_graph *g, const char *model_path, cli_analysis *an, nnfx_error *err);
void cli_analysis_free(cli_analysis *an);

/* Adds a finding (names copied; message and suggestion malloc'd, taken
 * over); false on out of memory. */
bool cli_analysis_add_finding(cli_analysis *an, const char *kind, int nnames, const char *const *names, char *message,
                              char *suggestion);
/* Quantization (int8): fills an->quant and adds the findings
 * foldable_qdq (a DQ -> Q pair with equal parameters) and float_island
 * (float ops between a DQ and a Q), and int8_no_vnni on a CPU without an
 * int8 dot product (nnfx_cpu_features); false on out of memory. */
bool cli_analysis_quant(cli_analysis *an);

/* The report as JSON (malloc'd, NULL on OOM), keys: model, nodes, params,
 * param_bytes, macs, flops, ops, inputs, outputs, per_node,
 * peak_activation_bytes, findings. */
char *cli_analysis_json(const cli_analysis *an, const char *model_path);
/* A one-page self-contained HTML report (malloc'd, NULL on OOM): summary,
 * the graph drawn (report_graph.h), findings, cost tables. */
char *cli_analysis_html(const cli_analysis *an, const char *model_path);
/* The terminal summary (malloc'd). */
char *cli_analysis_summary(const cli_analysis *an, const char *model_path);

/* Per-layer channel counts and weight sparsity of every Conv, Gemm and
 * MatMul with a parameter weight (analysis_layers.c): a JSON array of
 * {name, op, in_channels, out_channels, groups, weights, zero_weights,
 * sparsity}, and terminal lines. */
void cli_layers_json(sbuf *b, const nnfx_graph *g, bool sparsity);
void cli_layers_summary(sbuf *b, const nnfx_graph *g, bool sparsity);

/* Op type label of a node ("Conv", "getitem", a leaf's name). */
const char *cli_node_op_label(const nnfx_node *n);
/* "1.81 G", "302 M", "12.5 K", "17" */
char *cli_human_count(int64_t v, char *buf, size_t len);
/* "4.5 MiB" */
char *cli_human_bytes(int64_t v, char *buf, size_t len);

/* --- before/after (analyze A --compare B) ------------------------------------- */

#include "cli/validate.h"

/* How B compares with A: better when some figure (findings, ops, params,
 * MACs, FLOPs, peak activations) went down and none up and accuracy did not
 * drop past max_drop (any drop when max_drop < 0); worse when any went up
 * or accuracy dropped too far. text says what changed. */
typedef struct cli_verdict {
    bool better, worse;
    char text[1024];
} cli_verdict;

void cli_analysis_verdict(const cli_analysis *before, const cli_analysis *after, const cli_accuracy *acc,
                          double max_drop, cli_verdict *v);

typedef struct cli_compare_view {
    const cli_analysis *before, *after;
    const char *model_before, *model_after;
    const cli_verdict *verdict;
    const cli_accuracy *acc; /* NULL without labels */
} cli_compare_view;

/* The after model's page with a before/after section (verdict, figures side
 * by side, op counts) at the top and one drawing of both graphs, the
 * removed, added and changed nodes marked. */
char *cli_analysis_html_compare(const cli_compare_view *cv);

/* The report pages' shared style sheet and script (sortable tables), for
 * other self-contained pages (nnfx report merge). */
const char *cli_report_css(void);
const char *cli_report_js(void);
/* Appends s with <, >, & and " escaped for HTML. */
void cli_html_escape(sbuf *b, const char *s);

#endif
