/* quantize.c — `nnfx quantize`: post-training static quantization into
 * ONNX's QDQ form (src/quant/), with the accuracy gate of `optimize`
 * (validate.c) and per-layer SQNR in the report; --auto-exclude keeps the
 * most sensitive layers float until the gate passes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fleet.h"
#include "cli/report_graph.h"
#include "cli/validate.h"

static const char quantize_help[] =
    "usage: nnfx quantize MODEL -o OUT --calib NAME=FILE.npy... [--method minmax|percentile|entropy|mse]\n"
    "                     [--percentile P] [--activations uint8|int8] [--per-tensor]\n"
    "                     [--exclude OP_OR_NODE]... [--keep-first-last-float] [--reduce-range]\n"
    "                     [--no-fold-bn]\n"
    "                     [--input NAME=FILE --labels FILE.npy --max-accuracy-drop PCT [--auto-exclude]]\n"
    "                     [--report FILE.json] [--batch N] [-q]\n"
    "\n"
    "Quantizes MODEL to int8 in ONNX's QDQ form (QuantizeLinear/DequantizeLinear\n"
    "pairs, as ONNX Runtime's quantize_static writes and PyTorch's convert_fx\n"
    "exports) and writes it to OUT. BatchNormalization is folded first; the float\n"
    "model then runs on the calibration samples, observing every value, and each\n"
    "Conv, Gemm and MatMul with a constant weight gets: its activation input and\n"
    "output (after a following Relu) quantized per tensor; its weight stored as\n"
    "an int8 initializer (symmetric, per output channel) read through a\n"
    "DequantizeLinear; its bias as int32. Graph outputs stay float.\n"
    "With --activations int8 (TFLite's convention, for integer-only firmware)\n"
    "every other op gets Q/DQ too: Add, Sub, Mul of two values or of a constant,\n"
    "Concat, pooling, ReduceMean, Softmax at their inputs and output; Reshape,\n"
    "Flatten, Squeeze, Unsqueeze, Transpose and MaxPool keep their input's scale;\n"
    "an element-wise region with one input (Sigmoid, Tanh, HardSigmoid,\n"
    "HardSwish, x*sigmoid(x), an erf GELU...) at its input and output only (a\n"
    "256-entry table's worth of meaning); graph outputs become DequantizeLinear\n"
    "of int8 values under their own names.\n"
    "\n"
    "calibration:\n"
    "  --calib NAME=FILE  samples for input NAME along dim 0 (.npy/.pb; a lone FILE\n"
    "                     for a one-input model); a static batch dim takes a\n"
    "                     multiple of it\n"
    "  --method M         minmax (default), percentile, entropy (KL) or mse\n"
    "  --percentile P     for --method percentile (default 99.99)\n"
    "  --batch N          samples per calibration run for a dynamic batch (default 8)\n"
    "what to quantize:\n"
    "  --activations T    uint8 (default) or int8 activations (every op: see above)\n"
    "  --per-tensor       one weight scale per tensor instead of per channel\n"
    "  --exclude X        keep ops of type X (Conv, Gemm, MatMul) or the node named X\n"
    "                     float (repeatable); nnfx names a node after the value it\n"
    "                     computes (`nnfx inspect`), and a name matching nothing is\n"
    "                     a usage error\n"
    "  --keep-first-last-float\n"
    "                     keep the first and the last quantizable layer float\n"
    "  --reduce-range     7-bit weights ([-63, 63]) so that x86 AVX2 int8 kernels\n"
    "                     (ONNX Runtime's u8 x s8 vpmaddubsw) cannot saturate\n"
    "  --no-fold-bn       do not fold BatchNormalization first\n"
    "accuracy gate (as in optimize):\n"
    "  --input NAME=FILE  labelled inputs (.npy/.pb, a batch along dim 0)\n"
    "  --labels FILE.npy  class labels, one per row of the first output\n"
    "  --max-accuracy-drop PCT\n"
    "                     fail (exit 1, OUT not written) when top-1 accuracy drops\n"
    "                     by more than PCT points; the error names the layers with\n"
    "                     the lowest SQNR\n"
    "  --auto-exclude     on failure keep the layer with the lowest SQNR float and\n"
    "                     try again, until the gate passes (mixed precision)\n"
    "output:\n"
    "  -o, --output OUT   the quantized model (temporary name, then renamed)\n"
    "  --report FILE      JSON (FILE.html: a page with the float and int8 graphs in\n"
    "                     one drawing and the per-layer SQNR chart): layers with\n"
    "                     their SQNR (dB) and status, Q/DQ pairs,\n"
    "                     weight bytes before/after, accuracy ('-': stdout)\n"
    "  -q, --quiet        no summary\n"
    "  -h, --help         this text\n"
    "list mode (a fleet of models):\n"
    "  --list LIST        run on every model of LIST (one path a line, # comments)\n"
    "                     into -o DIR (DIR/NAME; --report: the summary), and write one summary of\n"
    "                     all (--report R.json: optimize --batch's shape, each model's\n"
    "                     entry with its \"command\", exit_code and error; 'nnfx report\n"
    "                     merge' reads it). Exit status: the worst model's\n"
    "  --shard K/N        with --list: only the models of shard K of N, split as\n"
    "                     'optimize --shard' splits (by path; each model in one shard),\n"
    "                     so N machines may share one -o folder\n"
    "\n"
    "Exit status: 0 written; 1 the accuracy gate failed or a layer's int32 bias\n"
    "saturates (a warning and a report finding name it; --exclude or\n"
    "--auto-exclude keeps it float), nothing written; 2 usage error; 3 unreadable\n"
    "model or data, calibration data that does not fit the model, a NaN or\n"
    "infinite weight or bias, or a bad quantization parameter.\n"
    "\n"
    "examples:\n"
    "  nnfx quantize model.onnx -o model_int8.onnx --calib x=calib.npy\n"
    "  nnfx quantize resnet18.onnx -o r18_int8.onnx --calib input=calib64.npy --method entropy \\\n"
    "       --input input=val.npy --labels val_labels.npy --max-accuracy-drop 1 --auto-exclude \\\n"
    "       --report quant.json\n";

#define Q_MAX 1024

typedef struct q_opts {
    const char *model, *out, *labels, *report;
    int ncalib;
    char *calib[Q_MAX];
    cli_samples samples;
    char *inputs[Q_MAX];
    int nexclude;
    const char *exclude[Q_MAX];
    nnfx_quant_options qo;
    double max_drop;
    bool auto_exclude, quiet;
} q_opts;

/* Bytes of every parameter of g (weights and constants). */
static int64_t param_bytes(const nnfx_graph *g) {
    int64_t b = 0;
    for (int i = 0; i < nnfx_graph_num_params(g); i++)
        b += (int64_t)nnfx_graph_param_at(g, i)->nbytes;
    return b;
}

static const char *method_name(nnfx_quant_method m) {
    switch (m) {
    case NNFX_QUANT_PERCENTILE: return "percentile";
    case NNFX_QUANT_ENTROPY: return "entropy";
    case NNFX_QUANT_MSE: return "mse";
    default: return "minmax";
    }
}

/* Loads the --calib bindings in placeholder order into t[0..n). */
static int load_calib(const q_opts *o, const nnfx_graph *g, nnfx_tensor **t) {
    int n = nnfx_graph_num_inputs(g);
    for (int s = 0; s < o->ncalib; s++) {
        char *name = NULL;
        const char *file = o->calib[s];
        int idx = -1;
        if (cli_split_binding(o->calib[s], &name, &file)) {
            for (int i = 0; i < n; i++)
                if (strcmp(nnfx_node_name(nnfx_graph_input(g, i)), name) == 0) idx = i;
            free(name);
            if (idx < 0) return cli_usage_error("quantize", "--calib %s: the model has no such input", o->calib[s]);
        } else if (n == 1) {
            idx = 0;
        } else {
            return cli_usage_error("quantize", "--calib %s: write NAME=FILE (the model has %d inputs)", o->calib[s], n);
        }
        if (t[idx])
            return cli_usage_error("quantize", "--calib: input '%s' is given twice",
                                   nnfx_node_name(nnfx_graph_input(g, idx)));
        nnfx_error err = {0};
        if (!(t[idx] = cli_load_tensor(file, &err))) return cli_fail("quantize", file, &err);
    }
    for (int i = 0; i < n; i++)
        if (!t[i])
            return cli_usage_error("quantize", "no calibration data for input '%s': give --calib %s=FILE.npy",
                                   nnfx_node_name(nnfx_graph_input(g, i)), nnfx_node_name(nnfx_graph_input(g, i)));
    return CLI_EXIT_OK;
}

/* True for the ops quantize turns into int8 layers. */
static bool is_qlayer(const nnfx_node *n) {
    return nnfx_node_is_op(n, NNFX_OP_CONV) || nnfx_node_is_op(n, NNFX_OP_GEMM) || nnfx_node_is_op(n, NNFX_OP_MATMUL);
}

/* Each --exclude must name a node of g or an op type g has: one that
 * matches nothing is a usage error saying how nnfx names the nodes. */
static int check_excludes(const q_opts *o, const nnfx_graph *g) {
    for (int i = 0; i < o->nexclude; i++) {
        const char *e = o->exclude[i];
        if (nnfx_graph_find(g, e)) continue;
        nnfx_op op = nnfx_op_find(e);
        bool found = false;
        for (const nnfx_node *n = nnfx_graph_first(g); n && op != NNFX_OP_NONE && !found; n = nnfx_node_next(n))
            found = nnfx_node_is_op(n, op);
        if (found) continue;
        if (op != NNFX_OP_NONE)
            return cli_usage_error("quantize", "--exclude %s: %s has no %s node", e, o->model, nnfx_op_onnx_type(op));
        char hint[1024];
        cli_node_name_hint(g, e, is_qlayer, hint, sizeof hint);
        return cli_usage_error("quantize", "--exclude %s: %s has no node or op type of that name; %s", e, o->model,
                               hint);
    }
    return CLI_EXIT_OK;
}

/* Warns (stderr) about each quantized layer of r whose int32 bias
 * saturated; returns how many there are. */
static int warn_saturated(const q_opts *o, const nnfx_quant_report *r) {
    int n = 0;
    for (int i = 0; i < r->nlayers; i++) {
        const nnfx_quant_layer *L = &r->layers[i];
        if (!L->quantized || !L->bias_saturated) continue;
        n++;
        cli_error("quantize",
                  "warning: %s: the int32 bias of %s saturates in %d channel%s (bias / (input scale x weight scale) "
                  "is beyond int32): quantized, the layer would add a clamped bias",
                  o->model, L->node, L->bias_saturated, L->bias_saturated == 1 ? "" : "s");
    }
    return n;
}

/* Index of the quantized layer with the lowest SQNR not yet excluded; -1. */
static int worst_layer(const nnfx_quant_report *r) {
    int w = -1;
    for (int i = 0; i < r->nlayers; i++) {
        const nnfx_quant_layer *L = &r->layers[i];
        if (!L->quantized) continue;
        double v = isnan(L->sqnr_db) ? INFINITY : L->sqnr_db;
        double wv = w < 0 ? 0 : (isnan(r->layers[w].sqnr_db) ? INFINITY : r->layers[w].sqnr_db);
        if (w < 0 || v < wv) w = i;
    }
    return w;
}

/* "conv2 (12.3 dB), fc (20.1 dB)": the k quantized layers with the lowest SQNR. */
static void worst_list(const nnfx_quant_report *r, int k, char *buf, size_t len) {
    bool *used = calloc((size_t)r->nlayers + 1, 1);
    size_t off = 0;
    buf[0] = 0;
    for (int j = 0; used && j < k; j++) {
        int w = -1;
        for (int i = 0; i < r->nlayers; i++)
            if (r->layers[i].quantized && !used[i] && (w < 0 || r->layers[i].sqnr_db < r->layers[w].sqnr_db)) w = i;
        if (w < 0) break;
        used[w] = true;
        int m =
            snprintf(buf + off, len - off, "%s%s (%.1f dB)", j ? ", " : "", r->layers[w].node, r->layers[w].sqnr_db);
        if (m < 0 || (size_t)m >= len - off) break;
        off += (size_t)m;
    }
    free(used);
}

static void report_json(sbuf *b, const q_opts *o, const nnfx_quant_report *r, int rc, const char *errmsg, int64_t wb0,
                        int64_t wb1, const cli_accuracy *acc, bool have_acc, int rounds) {
    sb_printf(b, "{\n  \"model\": ");
    cli_json_str(b, o->model);
    sb_printf(b, ",\n  \"output\": ");
    if (rc == CLI_EXIT_OK)
        cli_json_str(b, o->out);
    else
        sb_printf(b, "null");
    sb_printf(b, ",\n  \"result\": \"%s\",\n  \"exit_code\": %d",
              rc == CLI_EXIT_OK      ? "ok"
              : rc == CLI_EXIT_CHECK ? "check failed"
                                     : "error",
              rc);
    if (errmsg && errmsg[0]) {
        sb_printf(b, ",\n  \"error\": ");
        cli_json_str(b, errmsg);
    }
    sb_printf(b, ",\n  \"method\": \"%s\", \"activations\": \"%s\", \"weights\": \"%s\", \"reduce_range\": %s",
              method_name(o->qo.method), o->qo.activations == NNFX_I8 ? "int8" : "uint8",
              o->qo.per_tensor ? "per-tensor" : "per-channel", o->qo.reduce_range ? "true" : "false");
    sb_printf(b,
              ",\n  \"calibration_samples\": %ld, \"bn_folded\": %d, \"layers_quantized\": %d, \"qdq_pairs\": %d, "
              "\"other_ops_quantized\": %d",
              r->samples, r->bn_folded, r->quantized, r->qdq_pairs, r->ops);
    sb_printf(b, ",\n  \"weight_bytes_before\": %lld, \"weight_bytes_after\": %lld", (long long)wb0, (long long)wb1);
    sb_printf(b, ",\n  \"layers\": [");
    for (int i = 0; i < r->nlayers; i++) {
        const nnfx_quant_layer *L = &r->layers[i];
        sb_printf(b, "%s\n    {\"node\": ", i ? "," : "");
        cli_json_str(b, L->node);
        sb_printf(b, ", \"op\": ");
        cli_json_str(b, L->op);
        sb_printf(b, ", \"quantized\": %s, \"sqnr_db\": ", L->quantized ? "true" : "false");
        cli_json_num(b, L->sqnr_db);
        if (L->bias_saturated) sb_printf(b, ", \"bias_saturated_channels\": %d", L->bias_saturated);
        if (L->why[0]) {
            sb_printf(b, ", \"float_because\": ");
            cli_json_str(b, L->why);
        }
        sb_printf(b, "}");
    }
    sb_printf(b, "]");
    /* findings: what makes the result wrong or worth a look */
    sb_printf(b, ",\n  \"findings\": [");
    int nf = 0;
    for (int i = 0; i < r->nlayers; i++) {
        const nnfx_quant_layer *L = &r->layers[i];
        if (!L->quantized || !L->bias_saturated) continue;
        sb_printf(b, "%s\n    {\"kind\": \"bias_saturated\", \"node\": ", nf++ ? "," : "");
        cli_json_str(b, L->node);
        sb_printf(b, ", \"channels\": %d, \"message\": ", L->bias_saturated);
        char msg[256];
        snprintf(msg, sizeof msg, "the int32 bias saturates in %d channel%s: the quantized layer adds a clamped bias",
                 L->bias_saturated, L->bias_saturated == 1 ? "" : "s");
        cli_json_str(b, msg);
        sb_printf(b, "}");
    }
    sb_printf(b, "]");
    if (have_acc) {
        sb_printf(b, ",\n  \"accuracy\": {\"labels\": ");
        cli_json_str(b, o->labels);
        sb_printf(b, ", \"samples\": %ld, \"top1_float\": ", acc->samples);
        cli_json_num(b, acc->acc_a);
        sb_printf(b, ", \"top1_quantized\": ");
        cli_json_num(b, acc->acc_b);
        sb_printf(b, ", \"drop_points\": ");
        cli_json_num(b, acc->drop);
        sb_printf(b, ", \"max_drop_points\": ");
        cli_json_num(b, o->max_drop);
        sb_printf(b, ", \"passed\": %s, \"auto_exclude_rounds\": %d}", acc->drop > o->max_drop ? "false" : "true",
                  rounds);
    }
    sb_printf(b, "\n}\n");
}

/* The output rule: the model (its values or external data), the --calib
 * and --input files and the labels against -o (and its side file) and
 * --report. g: the loaded model, or NULL before loading. */
static int check_paths(const q_opts *o, const nnfx_graph *g) {
    cli_io io;
    cli_io_init(&io, "quantize");
    cli_io_model_in(&io, "the model", o->model);
    if (g) cli_io_graph_in(&io, "the model", g);
    for (int i = 0; i < o->ncalib; i++)
        cli_io_binding_in(&io, "--calib", o->calib[i]);
    for (int i = 0; i < o->samples.nfiles; i++)
        cli_io_binding_in(&io, "--input", o->inputs[i]);
    cli_io_in(&io, "--labels", o->labels);
    cli_io_model_out(&io, "-o", o->out);
    cli_io_out(&io, "--report", o->report);
    int rc = cli_io_check(&io);
    cli_io_free(&io);
    return rc;
}

/* --report FILE.html: the figures, one drawing of the float and the int8
 * graph (qg, NULL when the run failed before it), and the per-layer SQNR
 * chart. */
static char *report_html(const q_opts *o, const nnfx_quant_report *r, int rc, const char *errmsg, int64_t wb0,
                         int64_t wb1, const cli_accuracy *acc, bool have_acc, const nnfx_graph *g, nnfx_graph *qg) {
    sbuf s = {0}, c = {0};
    char h1[32], h2[32];
    sb_printf(&s,
              "<p class=\"verdict %s\"><b>%s</b> %d of %d layers int8, %d Q/DQ pairs, %d BN folded, %ld "
              "calibration samples; parameters %s &rarr; %s.",
              rc ? "bad" : "good", rc ? "Failed." : "Quantized.", r->quantized, r->nlayers, r->qdq_pairs, r->bn_folded,
              r->samples, cli_human_bytes(wb0, h1, sizeof h1), cli_human_bytes(wb1, h2, sizeof h2));
    if (have_acc)
        sb_printf(&s, " Top-1 accuracy on %ld labelled samples: %.2f%% &rarr; %.2f%% (drop %.2f points, max %g).",
                  acc->samples, acc->acc_a, acc->acc_b, acc->drop, o->max_drop);
    if (errmsg && *errmsg) {
        sb_printf(&s, " ");
        for (const char *p = errmsg; *p; p++)
            if (*p == '<' || *p == '&')
                sb_printf(&s, "%s", *p == '<' ? "&lt;" : "&amp;");
            else
                sb_append(&s, p, 1);
    }
    sb_printf(&s, "</p>");
    int n = r->nlayers;
    const char **label = calloc((size_t)n + 1, sizeof label[0]), **text = calloc((size_t)n + 1, sizeof text[0]);
    const char **colour = calloc((size_t)n + 1, sizeof colour[0]);
    double *value = calloc((size_t)n + 1, sizeof value[0]);
    char(*tx)[320] = calloc((size_t)n + 1, sizeof tx[0]);
    if (label && text && colour && value && tx && n > 0) {
        double max = 0;
        for (int i = 0; i < n; i++) {
            const nnfx_quant_layer *L = &r->layers[i];
            label[i] = L->node;
            bool q = L->quantized && isfinite(L->sqnr_db);
            value[i] = q ? L->sqnr_db : 0;
            if (value[i] > max) max = value[i];
            colour[i] = !q ? "#9a9a9a" : L->sqnr_db < 20 ? "#d0453a" : L->sqnr_db < 30 ? "#e0a030" : "#2b9552";
            if (L->quantized)
                snprintf(tx[i], sizeof tx[i], "%.1f dB %s", L->sqnr_db, L->op);
            else
                snprintf(tx[i], sizeof tx[i], "float %s%s%s", L->op, L->why[0] ? ": " : "", L->why);
            text[i] = tx[i];
        }
        cli_bar_chart ch = {"sqnr",
                            "SQNR per layer (dB; higher is closer to float)",
                            "red under 20 dB, orange under 30 dB, grey: kept float",
                            n,
                            label,
                            text,
                            value,
                            NULL,
                            colour,
                            max < 40 ? 40 : max};
        sb_printf(&c, "<h2>Per layer</h2>");
        cli_html_bars(&c, &ch);
    }
    free(label);
    free(text);
    free(colour);
    free(value);
    free(tx);
    char *sum = sb_finish(&s), *charts = sb_finish(&c), *page = NULL;
    nnfx_error e = {0};
    char title[512];
    snprintf(title, sizeof title, "nnfx quantize: %s", o->model);
    if (qg && nnfx_graph_infer_shapes(qg, &e) == NNFX_OK)
        page = cli_rewrite_page(title, sum, g, o->model, qg, rc ? "(not written)" : o->out, charts);
    if (!page) { /* no int8 graph: the figures alone */
        sbuf p = {0};
        sb_printf(&p,
                  "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>nnfx quantize</title>"
                  "</head><body><h1>nnfx quantize</h1>%s%s</body></html>\n",
                  sum ? sum : "", charts ? charts : "");
        page = sb_finish(&p);
    }
    free(sum);
    free(charts);
    return page;
}

/* Prints what quantize_model did: the layers made int8, the parameter bytes
 * before (wb0) and after (wb1), the lowest per-layer SQNR and, when measured,
 * the accuracy. */
static void print_quant_summary(const q_opts *o, const nnfx_quant_report *rep, int64_t wb0, int64_t wb1,
                                const cli_accuracy *acc, bool have_acc) {
    char worst[600];
    worst_list(rep, 3, worst, sizeof worst);
    char others[48] = "";
    if (o->qo.activations == NNFX_I8) snprintf(others, sizeof others, ", %d other ops", rep->ops);
    printf("%s -> %s: %d of %d layers int8%s (%s, %s activations), %d Q/DQ pairs, %d BN folded, %ld calibration "
           "samples\n",
           o->model, o->out, rep->quantized, rep->nlayers, others, method_name(o->qo.method),
           o->qo.activations == NNFX_I8 ? "int8" : "uint8", rep->qdq_pairs, rep->bn_folded, rep->samples);
    if (wb0 > 0 && wb1 > 0)
        printf("  parameters %lld -> %lld bytes (%.2fx smaller)\n", (long long)wb0, (long long)wb1,
               (double)wb0 / (double)wb1);
    else
        printf("  parameters %lld -> %lld bytes\n", (long long)wb0, (long long)wb1);
    if (worst[0]) printf("  lowest per-layer SQNR: %s\n", worst);
    if (have_acc)
        printf("  accuracy on %ld labelled samples: %.2f%% -> %.2f%% (drop %.2f points, max %g): ok\n", acc->samples,
               acc->acc_a, acc->acc_b, acc->drop, o->max_drop);
}

static int quantize_model(q_opts *o) {
    nnfx_error err = {0};
    int rc = CLI_EXIT_OK, rounds = 0;
    char errmsg[1200] = "";
    nnfx_tensor *calib[Q_MAX] = {0};
    nnfx_quant_calib *c = NULL;
    nnfx_graph *qg = NULL;
    nnfx_quant_report rep = {0};
    cli_accuracy acc = {0};
    bool have_acc = false;
    int64_t wb0 = 0, wb1 = 0;
    if ((rc = check_paths(o, NULL))) return rc;
    nnfx_graph *g = cli_load_model(o->model, &err);
    if (!g || nnfx_graph_lint(g, &err) || nnfx_graph_infer_shapes(g, &err)) {
        nnfx_graph_free(g);
        return cli_fail("quantize", o->model, &err);
    }
    if ((rc = check_paths(o, g))) {
        nnfx_graph_free(g);
        return rc;
    }
    if (nnfx_graph_num_inputs(g) > Q_MAX) {
        nnfx_graph_free(g);
        cli_error("quantize", "%s: too many inputs", o->model);
        return CLI_EXIT_BAD_INPUT;
    }
    cli_out_begin(); /* the model and the report are renamed into place together */
    if ((rc = check_excludes(o, g))) goto done;
    wb0 = param_bytes(g);
    if ((rc = load_calib(o, g, calib))) goto done;
    c = nnfx_quant_calibrate(g, nnfx_graph_num_inputs(g), calib, &o->qo, &err);
    if (!c) {
        rc = cli_fail("quantize", o->model, &err);
        snprintf(errmsg, sizeof errmsg, "%s", err.msg);
        goto done;
    }
    for (;;) {
        o->qo.nexclude = o->nexclude;
        o->qo.exclude = o->exclude;
        nnfx_graph_free(qg);
        if (!(qg = nnfx_quant_apply(c, &o->qo, &rep, &err))) {
            rc = cli_fail("quantize", o->model, &err);
            snprintf(errmsg, sizeof errmsg, "%s", err.msg);
            goto done;
        }
        /* a clamped int32 bias is a wrong result, whatever the accuracy says:
         * --auto-exclude keeps those layers float, otherwise the check fails */
        int nsat = warn_saturated(o, &rep);
        if (nsat && o->auto_exclude && o->nexclude + nsat <= Q_MAX) {
            for (int i = 0; i < rep.nlayers; i++) {
                if (!rep.layers[i].quantized || !rep.layers[i].bias_saturated) continue;
                if (!o->quiet) printf("  keeping %s float (its int32 bias saturates)\n", rep.layers[i].node);
                char *name = strdup(rep.layers[i].node);
                if (!name) {
                    rc = CLI_EXIT_BAD_INPUT;
                    cli_error("quantize", "out of memory");
                    goto done;
                }
                o->exclude[o->nexclude++] = name;
            }
            rounds++;
            continue;
        }
        if (nsat) {
            int f = 0;
            while (!rep.layers[f].quantized || !rep.layers[f].bias_saturated)
                f++;
            snprintf(errmsg, sizeof errmsg,
                     "the int32 bias of %d layer%s saturates (first: %s): keep %s float with --exclude %s, or let "
                     "--auto-exclude do it",
                     nsat, nsat == 1 ? "" : "s", rep.layers[f].node, nsat == 1 ? "it" : "them", rep.layers[f].node);
            cli_error("quantize", "%s: %s", o->model, errmsg);
            rc = CLI_EXIT_CHECK;
            goto done;
        }
        if (!o->labels) break;
        int arc = cli_accuracy_graphs("quantize", g, qg, &o->samples, o->labels, &acc);
        if (arc) {
            rc = arc;
            snprintf(errmsg, sizeof errmsg, "the accuracy check could not run (see stderr)");
            goto done;
        }
        have_acc = true;
        if (acc.drop <= o->max_drop || !o->auto_exclude) break;
        int w = worst_layer(&rep);
        if (w < 0 || o->nexclude == Q_MAX) break;
        if (!o->quiet)
            printf("  accuracy %.2f%% -> %.2f%% (drop %.2f > %g): keeping %s (%.1f dB) float\n", acc.acc_a, acc.acc_b,
                   acc.drop, o->max_drop, rep.layers[w].node, rep.layers[w].sqnr_db);
        char *name = strdup(rep.layers[w].node);
        if (!name) {
            rc = CLI_EXIT_BAD_INPUT;
            cli_error("quantize", "out of memory");
            goto done;
        }
        o->exclude[o->nexclude++] = name;
        rounds++;
    }
    wb1 = param_bytes(qg);
    if (have_acc && acc.drop > o->max_drop) {
        char worst[600];
        worst_list(&rep, 5, worst, sizeof worst);
        snprintf(errmsg, sizeof errmsg,
                 "accuracy gate failed: top-1 %.2f%% -> %.2f%%, a drop of %.2f points (max %g); lowest SQNR: %s",
                 acc.acc_a, acc.acc_b, acc.drop, o->max_drop, worst[0] ? worst : "(none)");
        cli_error("quantize", "%s: %s", o->model, errmsg);
        rc = CLI_EXIT_CHECK;
        goto done;
    }
    if (cli_save_model(qg, o->out, false, &err)) {
        rc = cli_fail("quantize", o->out, &err);
        snprintf(errmsg, sizeof errmsg, "%s", err.msg);
        goto done;
    }
    if (!o->quiet) print_quant_summary(o, &rep, wb0, wb1, &acc, have_acc);
done:
    if (o->report && (c || rc)) {
        sbuf b = {0};
        if (!cli_report_is_html(o->report)) report_json(&b, o, &rep, rc, errmsg, wb0, wb1, &acc, have_acc, rounds);
        char *s = cli_report_is_html(o->report) ? report_html(o, &rep, rc, errmsg, wb0, wb1, &acc, have_acc, g, qg)
                                                : sb_finish(&b);
        nnfx_error e2 = {0};
        if (cli_write_text(o->report, s, &e2)) {
            cli_fail("quantize", o->report, &e2);
            if (!rc) rc = CLI_EXIT_BAD_INPUT;
        }
        free(s);
    }
    rc = cli_out_end("quantize", rc);
    nnfx_quant_report_free(&rep);
    nnfx_graph_free(qg);
    nnfx_quant_calib_free(c);
    for (int i = 0; i < Q_MAX; i++)
        nnfx_tensor_release(calib[i]);
    nnfx_graph_free(g);
    return rc;
}

/* The command on one model (argv as given). */
static int quantize_one(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(quantize_help, stdout);
        return CLI_EXIT_OK;
    }
    static q_opts o;
    memset(&o, 0, sizeof o);
    o.samples.files = o.inputs;
    o.max_drop = -1;
    o.qo.activations = NNFX_U8;
    int nuser_excl = 0;
    cli_args a;
    cli_args_init(&a, "quantize", argc, argv);
    while (cli_args_more(&a) && !a.bad) {
        const char *v = NULL;
        if (cli_opt(&a, "--output", "-o", &v)) {
            o.out = v;
        } else if (cli_opt(&a, "--calib", NULL, &v)) {
            if (a.bad) break;
            if (o.ncalib == Q_MAX) return cli_usage_error("quantize", "too many --calib options");
            o.calib[o.ncalib++] = (char *)v;
        } else if (cli_opt(&a, "--method", NULL, &v)) {
            if (a.bad) break;
            if (strcmp(v, "minmax") == 0)
                o.qo.method = NNFX_QUANT_MINMAX;
            else if (strcmp(v, "percentile") == 0)
                o.qo.method = NNFX_QUANT_PERCENTILE;
            else if (strcmp(v, "entropy") == 0 || strcmp(v, "kl") == 0)
                o.qo.method = NNFX_QUANT_ENTROPY;
            else if (strcmp(v, "mse") == 0)
                o.qo.method = NNFX_QUANT_MSE;
            else
                return cli_usage_error("quantize", "--method wants minmax, percentile, entropy or mse, not '%s'", v);
        } else if (cli_opt(&a, "--percentile", NULL, &v)) {
            if (!a.bad &&
                (!cli_parse_nonneg_double(v, &o.qo.percentile) || o.qo.percentile <= 50 || o.qo.percentile > 100))
                return cli_usage_error("quantize", "--percentile wants a number in (50, 100], not '%s'", v);
        } else if (cli_opt(&a, "--activations", NULL, &v)) {
            if (a.bad) break;
            if (strcmp(v, "uint8") == 0 || strcmp(v, "u8") == 0)
                o.qo.activations = NNFX_U8;
            else if (strcmp(v, "int8") == 0 || strcmp(v, "i8") == 0)
                o.qo.activations = NNFX_I8;
            else
                return cli_usage_error("quantize", "--activations wants uint8 or int8, not '%s'", v);
        } else if (cli_flag(&a, "--per-tensor", NULL)) {
            o.qo.per_tensor = true;
        } else if (cli_opt(&a, "--exclude", NULL, &v)) {
            if (a.bad) break;
            if (o.nexclude == Q_MAX) return cli_usage_error("quantize", "too many --exclude options");
            o.exclude[o.nexclude++] = v[0] == '%' ? v + 1 : v; /* %NODE as in the text IR */
            nuser_excl++;
        } else if (cli_flag(&a, "--keep-first-last-float", NULL)) {
            o.qo.keep_first_last_float = true;
        } else if (cli_flag(&a, "--reduce-range", NULL)) {
            o.qo.reduce_range = true;
        } else if (cli_flag(&a, "--no-fold-bn", NULL)) {
            o.qo.no_fold_bn = true;
        } else if (cli_opt(&a, "--batch", NULL, &v)) {
            long n = 0;
            if (a.bad) break;
            if (!cli_parse_int(v, 1, 4096, &n))
                return cli_usage_error("quantize", "--batch wants a number from 1 to 4096, not '%s'", v);
            o.qo.batch = (int)n;
        } else if (cli_opt(&a, "--input", "-i", &v)) {
            if (a.bad) break;
            if (o.samples.nfiles == Q_MAX) return cli_usage_error("quantize", "too many --input options");
            o.inputs[o.samples.nfiles++] = (char *)v;
        } else if (cli_opt(&a, "--labels", NULL, &v)) {
            o.labels = v;
        } else if (cli_opt(&a, "--max-accuracy-drop", NULL, &v)) {
            if (!a.bad && (!cli_parse_nonneg_double(v, &o.max_drop) || o.max_drop > 100))
                return cli_usage_error("quantize",
                                       "--max-accuracy-drop wants percentage points from 0 to 100, not '%s'", v);
        } else if (cli_flag(&a, "--auto-exclude", NULL)) {
            o.auto_exclude = true;
        } else if (cli_opt(&a, "--report", NULL, &v)) {
            o.report = v;
        } else if (cli_flag(&a, "--quiet", "-q")) {
            o.quiet = true;
        } else {
            const char *p = cli_positional(&a);
            if (!p) break;
            if (o.model) return cli_usage_error("quantize", "one model at a time (got '%s' and '%s')", o.model, p);
            o.model = p;
        }
    }
    if (a.bad) return CLI_EXIT_USAGE;
    if (!o.model) return cli_usage_error("quantize", "no model given");
    if (!o.out) return cli_usage_error("quantize", "no output given (-o OUT)");
    if (!o.ncalib) return cli_usage_error("quantize", "no calibration data (--calib NAME=FILE.npy)");
    if (o.labels && o.max_drop < 0) return cli_usage_error("quantize", "--labels needs --max-accuracy-drop PCT");
    if (!o.labels && o.max_drop >= 0) return cli_usage_error("quantize", "--max-accuracy-drop needs --labels FILE.npy");
    if (o.labels && !o.samples.nfiles)
        return cli_usage_error("quantize", "--labels needs the labelled inputs: --input NAME=FILE");
    if (o.samples.nfiles && !o.labels) return cli_usage_error("quantize", "--input goes with --labels");
    if (o.auto_exclude && !o.labels)
        return cli_usage_error("quantize", "--auto-exclude needs the accuracy gate (--labels)");
    if (o.report && strcmp(o.report, "-") == 0) o.quiet = true;
    int rc = quantize_model(&o);
    for (int i = nuser_excl; i < o.nexclude; i++)
        free((void *)o.exclude[i]);
    return rc;
}

static const cli_fleet_cmd quantize_list = {"quantize", quantize_one, "-o", "", "--report", "-q", false};

int cli_quantize(int argc, char **argv) {
    if (!cli_wants_help(argc, argv) && cli_fleet_wanted(argc, argv)) return cli_fleet_run(&quantize_list, argc, argv);
    return quantize_one(argc, argv);
}
