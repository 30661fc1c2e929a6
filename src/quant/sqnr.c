/* sqnr.c — per-layer quantization error, as a sensitivity analysis: the
 * float model runs on the kept calibration samples and, at each quantized
 * layer, the layer is run a second time from its quantized-dequantized
 * input, weight and bias (the Q/DQ nodes of the quantized graph, on the
 * float model's own activations), so each figure is that layer's own
 * error, not the error accumulated upstream:
 *   SQNR = 10 log10(sum y^2 / sum (y - y_q)^2)  dB. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quant/quant_lib.h"

typedef struct sqnr_run {
    const nnfx_graph *qg;
    nnfx_quant_report *r;
    ir_strmap layer; /* node name -> layer index + 1 */
    double *sig, *noise;
} sqnr_run;

/* The value of argument i of n (a get_attr) in graph g, or NULL. */
static nnfx_tensor *param_of(const nnfx_graph *g, const nnfx_node *n, int i) {
    const nnfx_node *a = i < nnfx_node_num_args(n) ? nnfx_node_arg_node(n, i) : NULL;
    return a && nnfx_node_opcode(a) == NNFX_GET_ATTR ? nnfx_graph_param(g, nnfx_node_target(a)) : NULL;
}

/* Runs one node of qg on the given inputs; returns output 0 (new ref). */
static nnfx_tensor *run1(const nnfx_node *n, int nin, nnfx_tensor *const *in, nnfx_error *err) {
    nnfx_value_set out = {0};
    if (nnfx_op_run(n, nin, in, &out, err)) return NULL;
    for (int i = 1; i < out.num; i++)
        nnfx_tensor_release(out.t[i]);
    return out.num ? out.t[0] : NULL;
}

/* What the quantized graph feeds a layer through DequantizeLinear dq: from
 * the float activation x (dq <- Q <- x) or from its parameters. */
static nnfx_tensor *through_dq(const nnfx_graph *qg, const nnfx_node *dq, nnfx_tensor *x, nnfx_error *err) {
    if (!nnfx_node_is_op(dq, NNFX_OP_DEQUANTIZE_LINEAR)) return NULL;
    nnfx_tensor *s = param_of(qg, dq, 1), *z = param_of(qg, dq, 2);
    const nnfx_node *src = nnfx_node_arg_node(dq, 0);
    nnfx_tensor *qv = NULL;
    if (src && nnfx_node_is_op(src, NNFX_OP_QUANTIZE_LINEAR)) {
        if (!x) return NULL;
        nnfx_tensor *qin[3] = {x, param_of(qg, src, 1), param_of(qg, src, 2)};
        qv = run1(src, 3, qin, err);
    } else {
        qv = nnfx_tensor_retain(param_of(qg, dq, 0));
    }
    if (!qv || !s) {
        nnfx_tensor_release(qv);
        return NULL;
    }
    nnfx_tensor *din[3] = {qv, s, z};
    nnfx_tensor *y = run1(dq, z ? 3 : 2, din, err);
    nnfx_tensor_release(qv);
    return y;
}

static nnfx_status sqnr_node(nnfx_interp *ip, const nnfx_node *n, nnfx_value_set *out, nnfx_error *err) {
    nnfx_status s = nnfx_interp_default_run_node(ip, n, out, err);
    sqnr_run *r = nnfx_interp_user(ip);
    int li = s ? 0 : (int)(intptr_t)ir_strmap_get(&r->layer, nnfx_node_name(n));
    if (!li || out->num != 1 || !out->t[0] || out->t[0]->dtype != NNFX_F32) return s;
    const nnfx_node *qn = nnfx_graph_find(r->qg, nnfx_node_name(n));
    if (qn && nnfx_node_op(qn) != nnfx_node_op(n)) { /* a graph output: NAME is its DequantizeLinear now */
        char fl[300];
        snprintf(fl, sizeof fl, "%s_float", nnfx_node_name(n));
        qn = nnfx_graph_find(r->qg, fl);
    }
    if (!qn) return s;
    int nargs = nnfx_node_num_args(n);
    nnfx_tensor *in[3] = {NULL, NULL, NULL};
    bool ok = nargs <= 3 && nargs == nnfx_node_num_args(qn);
    nnfx_error e = {0};
    for (int i = 0; ok && i < nargs; i++) {
        const nnfx_node *fa = nnfx_node_arg_node(n, i), *qa = nnfx_node_arg_node(qn, i);
        const nnfx_value_set *fv = fa ? nnfx_interp_value(ip, fa) : NULL;
        nnfx_tensor *x = fv && fv->num ? fv->t[0] : NULL;
        if (qa && nnfx_node_is_op(qa, NNFX_OP_DEQUANTIZE_LINEAR))
            in[i] = through_dq(r->qg, qa, x, &e);
        else
            in[i] = nnfx_tensor_retain(x);
        ok = in[i] != NULL;
    }
    nnfx_tensor *yq = ok ? run1(n, nargs, in, &e) : NULL;
    const nnfx_tensor *y = out->t[0];
    if (yq && yq->dtype == NNFX_F32 && nnfx_tensor_numel(yq) == nnfx_tensor_numel(y)) {
        const float *a = y->data, *b = yq->data;
        for (int64_t k = 0; k < nnfx_tensor_numel(y); k++) {
            double d = (double)a[k] - b[k];
            r->sig[li - 1] += (double)a[k] * a[k];
            r->noise[li - 1] += d * d;
        }
    }
    nnfx_tensor_release(yq);
    for (int i = 0; i < 3; i++)
        nnfx_tensor_release(in[i]);
    return s;
}

nnfx_status quant_layer_sqnr(const nnfx_quant_calib *c, const nnfx_graph *qg, nnfx_quant_report *report,
                             nnfx_error *err) {
    sqnr_run r = {qg, report, {0}, NULL, NULL};
    r.sig = calloc((size_t)report->nlayers + 1, sizeof *r.sig);
    r.noise = calloc((size_t)report->nlayers + 1, sizeof *r.noise);
    nnfx_status s = NNFX_OK;
    if (!r.sig || !r.noise) s = nnfx_error_set(err, NNFX_ERR_NOMEM, "quantize: out of memory");
    for (int i = 0; !s && i < report->nlayers; i++)
        if (report->layers[i].quantized && !ir_strmap_put(&r.layer, report->layers[i].node, (void *)(intptr_t)(i + 1)))
            s = nnfx_error_set(err, NNFX_ERR_NOMEM, "quantize: out of memory");
    nnfx_interp_handlers h = {0};
    h.run_node = sqnr_node;
    nnfx_interp *ip = s ? NULL : nnfx_interp_new(c->g, &h, &r, err);
    if (!s && !ip) s = err ? err->status : NNFX_ERR_NOMEM;
    for (int k = 0; !s && k < c->nkeep; k++) {
        nnfx_tensor *outs[64];
        int nout = 0;
        s = nnfx_interp_run(ip, c->ninputs, c->keep + k * c->ninputs, 64, outs, &nout, err);
        for (int i = 0; i < nout; i++)
            nnfx_tensor_release(outs[i]);
    }
    for (int i = 0; !s && i < report->nlayers; i++) {
        nnfx_quant_layer *L = &report->layers[i];
        if (!L->quantized) continue;
        L->sqnr_db = r.noise[i] > 0 ? 10.0 * log10(r.sig[i] / r.noise[i]) : (r.sig[i] > 0 ? INFINITY : NAN);
    }
    nnfx_interp_free(ip);
    ir_strmap_free(&r.layer);
    free(r.sig);
    free(r.noise);
    return s;
}
