/* quantize.c — the public quantization API: nnfx_quant_apply (copy of the
 * calibrated graph, Q/DQ insertion, per-layer SQNR) and nnfx_quantize
 * (calibrate + apply). */
#include <stdlib.h>
#include <string.h>

#include "quant/quant_lib.h"

void nnfx_quant_report_free(nnfx_quant_report *r) {
    if (!r) return;
    free(r->layers);
    memset(r, 0, sizeof *r);
}

nnfx_graph *nnfx_quant_apply(const nnfx_quant_calib *c, const nnfx_quant_options *o, nnfx_quant_report *report,
                             nnfx_error *err) {
    nnfx_quant_options dflt = {0};
    if (!o) o = &dflt;
    if (!c) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "quantize: NULL calibration");
        return NULL;
    }
    if (o->activations != NNFX_DTYPE_UNDEFINED && o->activations != NNFX_U8 && o->activations != NNFX_I8) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "quantize: activations must be uint8 or int8, not %s",
                       nnfx_dtype_name(o->activations));
        return NULL;
    }
    if (report) {
        nnfx_quant_report_free(report);
        report->bn_folded = c->bn_folded;
        report->samples = c->samples;
    }
    nnfx_graph *g = nnfx_graph_copy(c->g, NULL, err);
    if (!g) return NULL;
    nnfx_status s = quant_insert_qdq(g, c, o, report, err);
    if (!s && report) s = quant_layer_sqnr(c, g, report, err);
    if (s) {
        nnfx_graph_free(g);
        return NULL;
    }
    return g;
}

nnfx_graph *nnfx_quantize(const nnfx_graph *g, int ncalib, nnfx_tensor *const *calib, const nnfx_quant_options *o,
                          nnfx_quant_report *report, nnfx_error *err) {
    nnfx_quant_calib *c = nnfx_quant_calibrate(g, ncalib, calib, o, err);
    if (!c) return NULL;
    nnfx_graph *q = nnfx_quant_apply(c, o, report, err);
    nnfx_quant_calib_free(c);
    return q;
}
