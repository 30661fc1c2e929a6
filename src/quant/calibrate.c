/* calibrate.c — runs the BN-folded float model on calibration data through
 * an Interpreter whose run_node handler observes every float32 value
 * (FX's observers): a min/max pass, then a histogram pass for the methods
 * that need one. Samples go in chunks along dim 0. */
#include <stdlib.h>
#include <string.h>

#include "quant/quant_lib.h"

typedef struct calib_run {
    nnfx_quant_calib *c;
    bool hist;
    bool oom;
} calib_run;

static quant_obs *obs_for(nnfx_quant_calib *c, const nnfx_node *n) {
    return ir_strmap_get(&c->by_name, nnfx_node_name(n));
}

static nnfx_status observe_node(nnfx_interp *ip, const nnfx_node *n, nnfx_value_set *out, nnfx_error *err) {
    nnfx_status s = nnfx_interp_default_run_node(ip, n, out, err);
    calib_run *r = nnfx_interp_user(ip);
    if (s || out->num != 1 || !out->t[0] || out->t[0]->dtype != NNFX_F32) return s;
    quant_obs *o = obs_for(r->c, n);
    if (!o) return s;
    if (!r->hist)
        quant_obs_minmax(o, out->t[0]);
    else if (o->count && !quant_obs_hist(o, out->t[0]))
        r->oom = true;
    return s;
}

const quant_obs *quant_calib_obs(const nnfx_quant_calib *c, const char *name) {
    return c ? ir_strmap_get(&c->by_name, name) : NULL;
}

void nnfx_quant_calib_free(nnfx_quant_calib *c) {
    if (!c) return;
    for (int i = 0; i < c->nobs; i++) {
        free(c->obs[i].hist);
        free(c->obs[i].ahist);
    }
    free(c->obs);
    ir_strmap_free(&c->by_name);
    for (int i = 0; i < c->nkeep * c->ninputs; i++)
        nnfx_tensor_release(c->keep[i]);
    free(c->keep);
    nnfx_graph_free(c->g);
    free(c);
}

/* Checks calib[i] against placeholder ph; sets *chunk (samples per run). */
static nnfx_status check_input(const nnfx_node *ph, const nnfx_tensor *t, int batch, int64_t *chunk, nnfx_error *err) {
    const nnfx_meta *m = nnfx_node_meta_c(ph, 0);
    char b1[160];
    if (t->dtype != NNFX_F32)
        return nnfx_error_set(err, NNFX_ERR_SHAPE, "calibration data for input %s has dtype %s (float32 expected)",
                              nnfx_node_name(ph), nnfx_dtype_name(t->dtype));
    if (m->dtype != NNFX_DTYPE_UNDEFINED && m->dtype != NNFX_F32)
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "input %s has dtype %s; calibration feeds float32 inputs",
                              nnfx_node_name(ph), nnfx_dtype_name(m->dtype));
    bool fits = t->rank >= 1 && (m->rank < 0 || m->rank == t->rank);
    for (int d = 1; fits && m->rank > 0 && d < t->rank; d++)
        fits = m->dims[d].value < 0 || m->dims[d].value == t->shape[d];
    int64_t b = m->rank > 0 && m->dims[0].value > 0 ? m->dims[0].value : (batch > 0 ? batch : 8);
    bool static_batch = m->rank > 0 && m->dims[0].value > 0;
    if (fits && static_batch) fits = t->shape[0] % b == 0;
    if (!fits || t->shape[0] < 1) {
        char b2[200];
        return nnfx_error_set(err, NNFX_ERR_SHAPE,
                              "calibration data for input %s has shape %s, which does not fit the model's %s "
                              "(samples along dim 0%s)",
                              nnfx_node_name(ph), nnfx_shape_str(t->rank, t->shape, b1, sizeof b1),
                              nnfx_meta_str(m, b2, sizeof b2), static_batch ? ", a multiple of the batch" : "");
    }
    if (b > t->shape[0]) b = t->shape[0];
    *chunk = b;
    return NNFX_OK;
}

/* Borrowed view of samples [s, s + k) of t. */
static nnfx_tensor *slice0(const nnfx_tensor *t, int64_t s, int64_t k, nnfx_error *err) {
    int64_t shape[NNFX_MAX_RANK];
    memcpy(shape, t->shape, sizeof shape);
    shape[0] = k;
    size_t row = t->shape[0] ? t->nbytes / (size_t)t->shape[0] : 0;
    return nnfx_tensor_borrow(t->dtype, t->rank, shape, (char *)t->data + row * (size_t)s, err);
}

nnfx_quant_calib *nnfx_quant_calibrate(const nnfx_graph *g, int ncalib, nnfx_tensor *const *calib,
                                       const nnfx_quant_options *o, nnfx_error *err) {
    nnfx_quant_options dflt = {0};
    if (!o) o = &dflt;
    if (!g || (ncalib > 0 && !calib)) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "quantize: NULL graph or calibration data");
        return NULL;
    }
    nnfx_quant_calib *c = calloc(1, sizeof *c);
    if (!c) goto oom;
    c->g = nnfx_graph_copy(g, NULL, err);
    if (!c->g || nnfx_graph_lint(c->g, err) || nnfx_graph_infer_shapes(c->g, err)) goto fail;
    if (!o->no_fold_bn) {
        nnfx_pass_report pr = {0};
        nnfx_status s = nnfx_pass_fuse_conv_bn(c->g, &pr, err);
        c->bn_folded = pr.changed;
        nnfx_pass_report_free(&pr);
        if (!s) {
            nnfx_eliminate_dead_code(c->g);
            nnfx_graph_drop_unused_params(c->g);
        }
        if (s || nnfx_graph_infer_shapes(c->g, err)) goto fail;
    }
    int nin = nnfx_graph_num_inputs(c->g);
    if (ncalib != nin) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG,
                       "quantize: the model has %d inputs, calibration data was given for %d", nin, ncalib);
        goto fail;
    }
    c->ninputs = nin;
    int64_t chunk = 0, total = -1;
    for (int i = 0; i < nin; i++) {
        if (!calib[i]) {
            nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "quantize: no calibration data for input %s",
                           nnfx_node_name(nnfx_graph_input(c->g, i)));
            goto fail;
        }
        int64_t k = 1;
        if (check_input(nnfx_graph_input(c->g, i), calib[i], o->batch, &k, err)) goto fail;
        if (total >= 0 && calib[i]->shape[0] != total) {
            nnfx_error_set(err, NNFX_ERR_SHAPE, "calibration data for input %s has %lld samples, input %s %lld",
                           nnfx_node_name(nnfx_graph_input(c->g, i)), (long long)calib[i]->shape[0],
                           nnfx_node_name(nnfx_graph_input(c->g, 0)), (long long)total);
            goto fail;
        }
        total = calib[i]->shape[0];
        if (i == 0 || k < chunk) chunk = k;
    }
    /* one observer per float value */
    c->obs = calloc((size_t)nnfx_graph_num_nodes(c->g) + 1, sizeof *c->obs);
    if (!c->obs) goto oom;
    for (nnfx_node *n = nnfx_graph_first(c->g); n; n = nnfx_node_next(n)) {
        nnfx_opcode oc = nnfx_node_opcode(n);
        if (oc != NNFX_PLACEHOLDER && oc != NNFX_CALL_FUNCTION) continue;
        if (nnfx_node_num_outputs(n) != 1 || nnfx_node_meta_c(n, 0)->dtype != NNFX_F32) continue;
        quant_obs *ob = &c->obs[c->nobs++];
        ob->name = nnfx_node_name(n);
        if (!ir_strmap_put(&c->by_name, ob->name, ob)) goto oom;
    }
    c->have_hist = o->method != NNFX_QUANT_MINMAX;
    int nkeep_max = (int)((QUANT_KEEP + chunk - 1) / chunk);
    c->keep = calloc((size_t)(nkeep_max * nin + 1), sizeof *c->keep);
    if (!c->keep) goto oom;
    calib_run r = {c, false, false};
    nnfx_interp_handlers h = {0};
    h.run_node = observe_node;
    nnfx_interp *ip = nnfx_interp_new(c->g, &h, &r, err);
    if (!ip) goto fail;
    nnfx_tensor *in[64];
    if (nin > 64) {
        nnfx_interp_free(ip);
        nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "quantize: more than 64 model inputs");
        goto fail;
    }
    for (int pass = 0; pass < (c->have_hist ? 2 : 1); pass++) {
        r.hist = pass == 1;
        for (int64_t s0 = 0; s0 < total; s0 += chunk) {
            int64_t k = total - s0 < chunk ? total - s0 : chunk;
            nnfx_status st = NNFX_OK;
            for (int i = 0; i < nin; i++)
                if (!(in[i] = slice0(calib[i], s0, k, err))) st = err ? err->status : NNFX_ERR_NOMEM;
            nnfx_tensor *outs[64];
            int nout = 0;
            if (!st) st = nnfx_interp_run(ip, nin, in, 64, outs, &nout, err);
            for (int i = 0; i < nout; i++)
                nnfx_tensor_release(outs[i]);
            if (!st && pass == 0 && c->nkeep < nkeep_max) {
                for (int i = 0; i < nin && !st; i++)
                    if (!(c->keep[c->nkeep * nin + i] = nnfx_tensor_clone(in[i], err))) st = NNFX_ERR_NOMEM;
                c->nkeep++;
            }
            for (int i = 0; i < nin; i++)
                nnfx_tensor_release(in[i]);
            if (st || r.oom) {
                nnfx_interp_free(ip);
                if (r.oom) goto oom;
                goto fail;
            }
        }
    }
    nnfx_interp_free(ip);
    c->samples = (long)total;
    return c;
oom:
    nnfx_error_set(err, NNFX_ERR_NOMEM, "quantize: out of memory");
fail:
    nnfx_quant_calib_free(c);
    return NULL;
}
