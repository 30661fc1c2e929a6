/* rnn.c — the recurrent layers RNN, GRU and LSTM (float32; every activation
 * ONNX names, default Sigmoid for gates and Tanh otherwise), forward, reverse or
 * bidirectional, with sequence_lens, initial states, clip, LSTM peepholes
 * and input_forget, GRU linear_before_reset, batch-first layout.
 *
 * Per direction the input projections of every step are one GEMM
 * (XW [seq * batch, G * H] = X W^T + Wb); each step then runs one GEMM for
 * the recurrence (H_{t-1} R^T) and a fused loop for the gate math, whose
 * definitions (nnfx_rt_gate, nnfx_rt_lstm_unit, nnfx_rt_gru_mix) are the
 * ones the C generator copies (src/rt/nnfx_rt_rnn.h). Gate
 * order in W, R, B as ONNX: LSTM i, o, f, c; GRU z, r, h; RNN one gate.
 *
 * The compiled plan runs kern_lstm_fast / kern_gru_fast: the same input
 * GEMM, and where the node has the default activations (Sigmoid, Tanh), no
 * clip, no peepholes and no input_forget, the gate math of a step as vector
 * rows (fx_act_row's sigmoid and tanh, act_fast.c, within 8 ulp of the
 * scalar meaning) instead of a scalar call per element, the recurrence of
 * up to 4 batch rows as our own matrix-vector products over R as stored
 * (fx_matvec, rnn_mv.c) and, with AVX2 or AVX-512, an LSTM's or a
 * linear_before_reset GRU's recurrence and gates fused per row
 * (fx_lstm_cell, fx_gru_cell: the same sums and gate functions in one
 * pass); GRU's reset-gated recurrence (linear_before_reset 0) one
 * matrix-vector product per row. */
#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt/nnfx_rt_rnn.h"
#include "core/core_int.h"
#include "exec/fast_int.h"
#include "exec/kernels/kernels_int.h"
#include "exec/kernels/rnn_mv.h"

typedef enum { K_RNN, K_GRU, K_LSTM } rnn_kind;

/* The activation functions ONNX's recurrent ops name in `activations`:
 * the scalar meaning each element-wise op has (nnfx_rt_scalar.h; Affine
 * and ScaledTanh exist only for these ops). */
static const struct {
    const char *onnx, *section;
    float (*f)(float, float, float);
    int np; /* parameters taken */
    float a, b;
} rnn_known[] = {{"Sigmoid", "sigmoid", nnfx_rt_sigmoid, 0, 0, 0},
                 {"Tanh", "tanh", nnfx_rt_tanh, 0, 0, 0},
                 {"Relu", "relu", nnfx_rt_relu, 0, 0, 0},
                 {"Affine", "affine", nnfx_rt_affine, 2, 1.0f, 0.0f},
                 {"LeakyRelu", "leaky_relu", nnfx_rt_leaky_relu, 1, 0.01f, 0},
                 {"ThresholdedRelu", "thresholded_relu", nnfx_rt_thresholded_relu, 1, 1.0f, 0},
                 {"ScaledTanh", "scaled_tanh", nnfx_rt_scaled_tanh, 2, 1.0f, 1.0f},
                 {"HardSigmoid", "hard_sigmoid", nnfx_rt_hard_sigmoid, 2, 0.2f, 0.5f},
                 {"Elu", "elu", nnfx_rt_elu, 1, 1.0f, 0},
                 {"Softsign", "softsign", nnfx_rt_softsign, 0, 0, 0},
                 {"Softplus", "softplus", nnfx_rt_softplus, 0, 0, 0}};

static kern_rnn_act known_act(size_t k, float a, float b) {
    return (kern_rnn_act){rnn_known[k].section, rnn_known[k].f, a, b};
}

nnfx_status kern_rnn_acts(const nnfx_node *n, int per, int dirs, kern_rnn_act *fn, nnfx_error *err) {
    for (int i = 0; i < per * dirs; i++)
        fn[i] = known_act(i % per == 0 && per > 1 ? 0 : 1, 0, 0);
    const char *list = nnfx_node_attr_string(n, "activations", NULL);
    if (!list) return NNFX_OK;
    const nnfx_attr *al = nnfx_node_attr(n, "activation_alpha"), *be = nnfx_node_attr(n, "activation_beta");
    int na = al && al->kind == NNFX_ATTR_FLOATS ? al->u.floats.n : 0;
    int nb = be && be->kind == NNFX_ATTR_FLOATS ? be->u.floats.n : 0;
    int cnt = 0, ia = 0, ib = 0;
    size_t nknown = sizeof rnn_known / sizeof rnn_known[0];
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ","), k = 0;
        while (k < nknown && (strlen(rnn_known[k].onnx) != len || strncmp(rnn_known[k].onnx, p, len) != 0))
            k++;
        if (k == nknown)
            return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "activation '%.*s' is not supported", (int)len, p);
        if (cnt == per * dirs) return kern_fail(err, n, NNFX_ERR_SHAPE, "activations names too many functions");
        kern_rnn_act f = known_act(k, rnn_known[k].a, rnn_known[k].b);
        if (rnn_known[k].np >= 1 && ia < na) f.a = al->u.floats.v[ia++];
        if (rnn_known[k].np >= 2 && ib < nb) f.b = be->u.floats.v[ib++];
        fn[cnt++] = f;
        p += len;
        if (*p) p++;
    }
    if (cnt == per && dirs == 2)
        for (int i = 0; i < per; i++)
            fn[per + i] = fn[i];
    else if (cnt != per * dirs)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "activations names %d functions, expected %d", cnt, per * dirs);
    return NNFX_OK;
}

/* One LSTM step of one batch row: g the input projections, q = h R^T,
 * Pd the peepholes (or NULL); updates the row's hidden state hb and cell
 * cb. Gate order i, o, f, c; the unit's math is nnfx_rt_lstm_unit. */
static void lstm_row(const float *g, const float *q, const float *Pd, int64_t Hd, float clip, bool coupled,
                     const nnfx_rt_act *acts, float *hb, float *cb) {
    for (int64_t j = 0; j < Hd; j++)
        hb[j] = nnfx_rt_lstm_unit(g[j] + q[j], g[Hd + j] + q[Hd + j], g[2 * Hd + j] + q[2 * Hd + j],
                                  g[3 * Hd + j] + q[3 * Hd + j], Pd ? Pd[j] : 0.0f, Pd ? Pd[Hd + j] : 0.0f,
                                  Pd ? Pd[2 * Hd + j] : 0.0f, coupled, clip, acts, &cb[j]);
}

/* One GRU step of one batch row: g the input projections, q = h R^T (its
 * h slot is reused as scratch), rbh the recurrence bias of h (or NULL), Rh
 * the recurrence weights of h; updates hb. cb (unused by a GRU) holds z,
 * rb the row's r * h. Gate order z, r, h; gates nnfx_rt_gate, the update
 * nnfx_rt_gru_mix. */
static void gru_row(const float *g, float *q, const float *rbh, const float *Rh, int64_t Hd, float clip, bool lbr,
                    const nnfx_rt_act *acts, float *hb, float *cb, float *rb) {
    for (int64_t j = 0; j < Hd; j++) {
        float z = nnfx_rt_gate(g[j] + q[j], clip, &acts[0]), r = nnfx_rt_gate(g[Hd + j] + q[Hd + j], clip, &acts[0]);
        if (lbr) {
            float hh = nnfx_rt_gate(g[2 * Hd + j] + r * (q[2 * Hd + j] + (rbh ? rbh[j] : 0)), clip, &acts[1]);
            hb[j] = nnfx_rt_gru_mix(z, hh, hb[j]);
        } else {
            /* (r * h_{t-1}) R_h^T: computed below per row; keep z and r */
            rb[j] = r * hb[j];
            cb[j] = z; /* z stashed in cc (GRU has no cell) */
        }
    }
    if (!lbr) {
        for (int64_t j = 0; j < Hd; j++) {
            float acc = g[2 * Hd + j] + (rbh ? rbh[j] : 0);
            for (int64_t k = 0; k < Hd; k++)
                acc += rb[k] * Rh[j * Hd + k];
            q[2 * Hd + j] = nnfx_rt_gate(acc, clip, &acts[1]); /* slot unused here */
        }
        for (int64_t j = 0; j < Hd; j++)
            hb[j] = nnfx_rt_gru_mix(cb[j], q[2 * Hd + j], hb[j]);
    }
}

/* lstm_row for the default activations without clip, peepholes or
 * input_forget, on vector rows: q (this row's h R^T) becomes the gate
 * values; tc is scratch [Hd]. */
static void lstm_row_fast(const float *g, float *q, int64_t Hd, float *hb, float *cb, float *tc) {
    for (int64_t j = 0; j < 4 * Hd; j++)
        q[j] += g[j];
    fx_act_row(q, 3 * Hd, FX_ACT_SIGMOID, 0, 0);
    fx_act_row(q + 3 * Hd, Hd, FX_ACT_TANH, 0, 0);
    for (int64_t j = 0; j < Hd; j++)
        tc[j] = cb[j] = q[2 * Hd + j] * cb[j] + q[j] * q[3 * Hd + j];
    fx_act_row(tc, Hd, FX_ACT_TANH, 0, 0);
    for (int64_t j = 0; j < Hd; j++)
        hb[j] = q[Hd + j] * tc[j];
}

/* gru_row for the default activations without clip, on vector rows (the
 * reset-gated recurrence of linear_before_reset 0 as one sgemv); q becomes
 * the gate values, rb is scratch [Hd]. */
static void gru_row_fast(const float *g, float *q, const float *rbh, const float *Rh, int64_t Hd, bool lbr, float *hb,
                         float *rb, fx_mv_isa isa) {
    for (int64_t j = 0; j < 2 * Hd; j++)
        q[j] += g[j];
    fx_act_row(q, 2 * Hd, FX_ACT_SIGMOID, 0, 0);
    float *z = q, *r = q + Hd, *hh = q + 2 * Hd;
    if (lbr) {
        for (int64_t j = 0; j < Hd; j++)
            hh[j] = g[2 * Hd + j] + r[j] * (hh[j] + (rbh ? rbh[j] : 0));
    } else {
        for (int64_t j = 0; j < Hd; j++)
            rb[j] = r[j] * hb[j];
        fx_matvec(isa, Rh, Hd, Hd, rb, hh);
        for (int64_t j = 0; j < Hd; j++)
            hh[j] += g[2 * Hd + j] + (rbh ? rbh[j] : 0);
    }
    fx_act_row(hh, Hd, FX_ACT_TANH, 0, 0);
    for (int64_t j = 0; j < Hd; j++)
        hb[j] = nnfx_rt_gru_mix(z[j], hh[j], hb[j]);
}

static nnfx_status rnn_run(rnn_kind kind, bool fast, const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                           nnfx_tensor *const *out, nnfx_error *err) {
    static const char *names[8] = {"X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"};
    nnfx_status s;
    if (nin < 3) return kern_fail(err, n, NNFX_ERR_RUNTIME, "needs X, W and R");
    for (int i = 0; i < nin && i < 8; i++)
        if (i != 4 && in[i] && (s = kern_need(n, in[i], NNFX_F32, names[i], err))) return s;
    const nnfx_tensor *x = in[0], *W = in[1], *R = in[2];
    const nnfx_tensor *B = nin > 3 ? in[3] : NULL, *SL = nin > 4 ? in[4] : NULL, *H0 = nin > 5 ? in[5] : NULL;
    const nnfx_tensor *C0 = kind == K_LSTM && nin > 6 ? in[6] : NULL, *P = kind == K_LSTM && nin > 7 ? in[7] : NULL;
    int G = kind == K_LSTM ? 4 : kind == K_GRU ? 3 : 1;
    bool bw = ir_attr_int(n, "layout") != 0;
    const char *dir = ir_attr_string(n, "direction");
    int dirs = strcmp(dir, "bidirectional") == 0 ? 2 : 1;
    bool rev = strcmp(dir, "reverse") == 0;
    if (x->rank != 3 || W->rank != 3 || R->rank != 3)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "X, W and R must have rank 3");
    int64_t T = x->shape[bw ? 1 : 0], Bt = x->shape[bw ? 0 : 1], IN = x->shape[2], Hd = R->shape[2];
    if (W->shape[0] != dirs || R->shape[0] != dirs || W->shape[1] != G * Hd || W->shape[2] != IN ||
        R->shape[1] != G * Hd)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "W [%d, %lld, %lld] and R shapes do not fit", dirs,
                         (long long)(G * Hd), (long long)IN);
    if (B && nnfx_tensor_numel(B) != dirs * 2 * G * Hd) return kern_fail(err, n, NNFX_ERR_SHAPE, "B size");
    if (P && nnfx_tensor_numel(P) != dirs * 3 * Hd) return kern_fail(err, n, NNFX_ERR_SHAPE, "P size");
    if ((H0 && nnfx_tensor_numel(H0) != dirs * Bt * Hd) || (C0 && nnfx_tensor_numel(C0) != dirs * Bt * Hd))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "initial state size");
    if (SL && nnfx_tensor_numel(SL) != Bt) return kern_fail(err, n, NNFX_ERR_SHAPE, "sequence_lens size");
    if (T * Bt > INT_MAX || G * Hd > INT_MAX || IN > INT_MAX)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "too large for the BLAS int range");
    kern_rnn_act ka[6];
    nnfx_rt_act fns[6];
    int per = kind == K_LSTM ? 3 : kind == K_GRU ? 2 : 1;
    if ((s = kern_rnn_acts(n, per, dirs, ka, err))) return s;
    for (int i = 0; i < per * dirs; i++)
        fns[i] = (nnfx_rt_act){ka[i].f, ka[i].a, ka[i].b};
    float clip = (float)nnfx_node_attr_float(n, "clip", 0.0);
    bool lbr = ir_attr_int(n, "linear_before_reset") != 0;
    bool coupled = ir_attr_int(n, "input_forget") != 0;
    bool vec = fast && kind != K_RNN && clip <= 0 && !coupled && !P;
    for (int i = 0; vec && i < per * dirs; i++)
        vec = fns[i].f == (i % per == 0 ? nnfx_rt_sigmoid : nnfx_rt_tanh);
    int64_t GH = G * Hd;
    const fx_mv_isa isa = fx_mv_best();
    /* a few rows of an LSTM, or of a GRU with linear_before_reset: recurrence
     * and gates in one pass per row (fx_lstm_cell, fx_gru_cell) */
    const bool fused = vec && (kind == K_LSTM || lbr) && Bt <= 4 && isa != FX_MV_PORTABLE;
    /* the input rows as [T, Bt, IN]: X itself unless batch first with several rows */
    const bool copy_x = bw && Bt > 1;
    float *xs = copy_x ? malloc(sizeof *xs * (size_t)(T * Bt * IN + 1)) : NULL;
    float *xw = malloc(sizeof *xw * (size_t)(T * Bt * GH + 1));
    float *hr = malloc(sizeof *hr * (size_t)(Bt * GH + 1)), *h = malloc(sizeof *h * (size_t)(Bt * Hd + 1));
    float *cc = malloc(sizeof *cc * (size_t)(Bt * Hd + 1)), *rh = malloc(sizeof *rh * (size_t)(Bt * Hd + 1));
    if ((copy_x && !xs) || !xw || !hr || !h || !cc || !rh) {
        free(xs), free(xw), free(hr), free(h), free(cc), free(rh);
        return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory");
    }
    const float *xd = x->data, *xrows = copy_x ? xs : xd;
    for (int64_t t = 0; copy_x && t < T; t++) /* xs: [T, Bt, IN] */
        for (int64_t b = 0; b < Bt; b++)
            memcpy(xs + (t * Bt + b) * IN, xd + (b * T + t) * IN, sizeof(float) * (size_t)IN);
    for (int o = 0; SL && o < nout; o++) /* padded steps stay 0 (without sequence_lens every value is written) */
        if (out[o]) memset(out[o]->data, 0, out[o]->nbytes);
    for (int d = 0; d < dirs; d++) {
        bool back = rev || d == 1;
        const float *Wd = (const float *)W->data + d * GH * IN, *Rd = (const float *)R->data + d * GH * Hd;
        const float *Wb = B ? (const float *)B->data + d * 2 * GH : NULL, *Rb = Wb ? Wb + GH : NULL;
        const float *Pd = P ? (const float *)P->data + d * 3 * Hd : NULL;
        const nnfx_rt_act *acts = &fns[d * per];
        /* all input projections at once: xw = xs W^T + (Wb + Rb where it adds
         * up), the biases first (the GEMM adds its sums to them) */
        if (Wb)
            for (int64_t r = 0; r < T * Bt; r++)
                for (int64_t j = 0; j < GH; j++)
                    xw[r * GH + j] = Wb[j] + ((kind == K_GRU && j >= 2 * Hd) ? 0.0f : Rb[j]);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)(T * Bt), (int)GH, (int)IN, 1.0f, xrows, (int)IN, Wd,
                    (int)IN, Wb ? 1.0f : 0.0f, xw, (int)GH);
        for (int64_t i = 0; i < Bt * Hd; i++) { /* initial states [dirs, Bt, Hd] ([Bt, dirs, Hd] batch first) */
            int64_t at = bw ? (i / Hd * dirs + d) * Hd + i % Hd : d * Bt * Hd + i;
            h[i] = H0 ? ((const float *)H0->data)[at] : 0.0f;
            cc[i] = C0 ? ((const float *)C0->data)[at] : 0.0f;
        }
        for (int64_t step = 0; step < T; step++) {
            int64_t t = back ? T - 1 - step : step;
            /* hr = h R^T: [Bt, GH]; a few rows as matrix-vector products (an
             * sgemm call may pack all of R at every step) */
            if (fused) {
                /* each row's recurrence runs in its fused cell below */
            } else if (Bt <= 4 && vec)
                for (int64_t b = 0; b < Bt; b++)
                    fx_matvec(isa, Rd, GH, Hd, h + b * Hd, hr + b * GH);
            else if (Bt <= 4)
                for (int64_t b = 0; b < Bt; b++)
                    cblas_sgemv(CblasRowMajor, CblasNoTrans, (int)GH, (int)Hd, 1.0f, Rd, (int)Hd, h + b * Hd, 1, 0.0f,
                                hr + b * GH, 1);
            else
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)Bt, (int)GH, (int)Hd, 1.0f, h, (int)Hd, Rd,
                            (int)Hd, 0.0f, hr, (int)GH);
            for (int64_t b = 0; b < Bt; b++) {
                int64_t len = SL ? core_tensor_get_i64(SL, b) : T;
                if (back ? t >= len : t >= len) continue; /* padded step: state and output untouched */
                const float *g = xw + (t * Bt + b) * GH, *q = hr + b * GH;
                float *hb = h + b * Hd, *cb = cc + b * Hd;
                if (kind == K_RNN) {
                    for (int64_t j = 0; j < Hd; j++)
                        hb[j] = nnfx_rt_gate(g[j] + q[j], clip, &acts[0]);
                } else if (fused) {
                    if (kind == K_LSTM)
                        fx_lstm_cell(isa, Rd, Hd, hb, g, cb, rh + b * Hd);
                    else
                        fx_gru_cell(isa, Rd, Hd, hb, g, Rb ? Rb + 2 * Hd : NULL, rh + b * Hd);
                    memcpy(hb, rh + b * Hd, sizeof(float) * (size_t)Hd);
                } else if (vec && kind == K_LSTM) {
                    lstm_row_fast(g, hr + b * GH, Hd, hb, cb, rh + b * Hd);
                } else if (vec) {
                    gru_row_fast(g, hr + b * GH, Rb ? Rb + 2 * Hd : NULL, Rd + 2 * Hd * Hd, Hd, lbr, hb, rh + b * Hd,
                                 isa);
                } else if (kind == K_LSTM) {
                    lstm_row(g, q, Pd, Hd, clip, coupled, acts, hb, cb);
                } else {
                    gru_row(g, hr + b * GH, Rb ? Rb + 2 * Hd : NULL, Rd + 2 * Hd * Hd, Hd, clip, lbr, acts, hb, cb,
                            rh + b * Hd);
                }
                if (nout > 0 && out[0]) {
                    float *y = out[0]->data;
                    int64_t o = bw ? ((b * T + t) * dirs + d) * Hd : ((t * dirs + d) * Bt + b) * Hd;
                    memcpy(y + o, hb, sizeof(float) * (size_t)Hd);
                }
            }
        }
        for (int64_t b = 0; b < Bt; b++) {
            int64_t o = bw ? (b * dirs + d) * Hd : (d * Bt + b) * Hd;
            if (nout > 1 && out[1]) memcpy((float *)out[1]->data + o, h + b * Hd, sizeof(float) * (size_t)Hd);
            if (kind == K_LSTM && nout > 2 && out[2])
                memcpy((float *)out[2]->data + o, cc + b * Hd, sizeof(float) * (size_t)Hd);
        }
    }
    free(xs), free(xw), free(hr), free(h), free(cc), free(rh);
    return NNFX_OK;
}

nnfx_status kern_rnn(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                     nnfx_error *err) {
    return rnn_run(K_RNN, false, n, nin, in, nout, out, err);
}

nnfx_status kern_gru(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                     nnfx_error *err) {
    return rnn_run(K_GRU, false, n, nin, in, nout, out, err);
}

nnfx_status kern_gru_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                          nnfx_error *err) {
    return rnn_run(K_GRU, true, n, nin, in, nout, out, err);
}

nnfx_status kern_lstm(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                      nnfx_error *err) {
    return rnn_run(K_LSTM, false, n, nin, in, nout, out, err);
}

nnfx_status kern_lstm_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                           nnfx_error *err) {
    return rnn_run(K_LSTM, true, n, nin, in, nout, out, err);
}
