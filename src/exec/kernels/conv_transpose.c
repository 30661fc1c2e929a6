/* conv_transpose.c — ConvTranspose over any number of spatial dims
 * (float32): per image and group one GEMM col = W_g^T x X_g
 * ([M/g * K, C/g] x [C/g, IN]), then col2im scatter-adds every column entry
 * into the output position o = i * stride + k * dilation - pad_begin. */
#include <cblas.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "exec/kernels/kernels_int.h"

nnfx_status kern_conv_transpose(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                                nnfx_error *err) {
    nnfx_status s;
    if (nin < 2 || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "conv_transpose needs X and W");
    const nnfx_tensor *x = in[0], *w = in[1], *bias = nin > 2 ? in[2] : NULL;
    if ((s = kern_need(n, x, NNFX_F32, "X", err)) || (s = kern_need(n, w, NNFX_F32, "W", err))) return s;
    if (bias && (s = kern_need(n, bias, NNFX_F32, "B", err))) return s;
    if (x->rank < 3 || w->rank != x->rank)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "conv_transpose needs X and W of the same rank >= 3");
    int nsp = x->rank - 2;
    int64_t group = ir_attr_int(n, "group"), N = x->shape[0], C = x->shape[1];
    if (group < 1 || C != w->shape[0] || C % group)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "conv_transpose channels do not fit the weight and group");
    int64_t cg = C / group, mg = w->shape[1], M = mg * group, K = 1, IN = 1, O = 1, k[NNFX_MAX_RANK],
            in_sp[NNFX_MAX_RANK];
    for (int i = 0; i < nsp; i++) {
        k[i] = w->shape[2 + i];
        in_sp[i] = x->shape[2 + i];
        K *= k[i];
        IN *= in_sp[i];
    }
    ir_convt g;
    if ((s = ir_convt_plan(n, nsp, k, in_sp, &g, err))) return s;
    int64_t oshape[NNFX_MAX_RANK] = {N, M};
    for (int i = 0; i < nsp; i++) {
        oshape[2 + i] = g.out[i];
        O *= g.out[i];
    }
    if ((s = kern_check_out(n, out[0], x->rank, oshape, err))) return s;
    if (bias && nnfx_tensor_numel(bias) != M) return kern_fail(err, n, NNFX_ERR_SHAPE, "conv_transpose bias size");
    if (mg * K > INT_MAX || IN > INT_MAX || cg > INT_MAX)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "conv_transpose is too large for the BLAS int range");
    float *col = malloc(sizeof *col * (size_t)(mg * K * IN > 0 ? mg * K * IN : 1));
    if (!col) return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory for the conv_transpose column buffer");
    const float *xd = x->data, *wd = w->data;
    float *yd = out[0]->data;
    for (int64_t b = 0; b < N; b++)
        for (int64_t gi = 0; gi < group; gi++) {
            float *yg = yd + (b * M + gi * mg) * O;
            for (int64_t m = 0; m < mg; m++) {
                float bv = bias ? ((const float *)bias->data)[gi * mg + m] : 0.0f;
                for (int64_t i = 0; i < O; i++)
                    yg[m * O + i] = bv;
            }
            if (IN == 0 || cg == 0) continue;
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)(mg * K), (int)IN, (int)cg, 1.0f,
                        wd + gi * cg * mg * K, (int)(mg * K), xd + (b * C + gi * cg) * IN, (int)IN, 0.0f, col, (int)IN);
            int64_t kk[NNFX_MAX_RANK] = {0};
            for (int64_t m = 0; m < mg; m++)
                for (int64_t kidx = 0; kidx < K; kidx++) {
                    /* kk: the multi-index of kidx */
                    for (int64_t r = kidx, d = nsp - 1; d >= 0; d--) {
                        kk[d] = r % k[d];
                        r /= k[d];
                    }
                    const float *cr = col + (m * K + kidx) * IN;
                    float *ym = yg + m * O;
                    int L = nsp - 1; /* innermost dim: a strided row per input row */
                    int64_t IL = in_sp[L], OLd = g.out[L], o0 = kk[L] * g.d[L] - g.pb[L], sl = g.s[L];
                    int64_t ii[NNFX_MAX_RANK] = {0}, rows = IN / (IL > 0 ? IL : 1);
                    for (int64_t r = 0; r < rows; r++, cr += IL) {
                        int64_t off = 0;
                        bool inside = true;
                        for (int d = 0; d < L && inside; d++) {
                            int64_t o = ii[d] * g.s[d] + kk[d] * g.d[d] - g.pb[d];
                            inside = o >= 0 && o < g.out[d];
                            off = off * g.out[d] + o;
                        }
                        if (inside) {
                            float *yrow = ym + off * OLd;
                            for (int64_t i = 0, o = o0; i < IL; i++, o += sl)
                                if (o >= 0 && o < OLd) yrow[o] += cr[i];
                        }
                        for (int d = L - 1; d >= 0; d--) {
                            if (++ii[d] < in_sp[d]) break;
                            ii[d] = 0;
                        }
                    }
                }
        }
    free(col);
    return NNFX_OK;
}
