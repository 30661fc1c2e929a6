/* spectral.c — DFT and STFT by direct summation in double (O(n^2) per
 * signal: for the node tests and short frames; no FFT), and
 * MelWeightMatrix. Signals carry a last dim of 1 (real) or 2 (complex);
 * outputs are complex (last dim 2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/kernels/kernels_int.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* out[k] = sum_j in[j] e^{-+2 pi i j k / len} for k < nbins (scaled by
 * 1/len when inverse); in holds n complex values (zero beyond). */
static void dft1(const double *re, const double *im, int64_t n, int64_t len, int64_t nbins, bool inverse, double *ore,
                 double *oim) {
    double sg = inverse ? 1.0 : -1.0;
    for (int64_t k = 0; k < nbins; k++) {
        double sr = 0, si = 0;
        for (int64_t j = 0; j < n && j < len; j++) {
            double a = sg * 2 * M_PI * (double)((j * k) % len) / (double)len, c = cos(a), s = sin(a);
            sr += re[j] * c - im[j] * s;
            si += re[j] * s + im[j] * c;
        }
        ore[k] = inverse ? sr / (double)len : sr;
        oim[k] = inverse ? si / (double)len : si;
    }
}

/* DFT(input [..., n, ..., 1|2], dft_length?) along axis. */
nnfx_status kern_dft(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                     nnfx_error *err) {
    if (nin < 1 || !in[0] || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "dft needs an input");
    const nnfx_tensor *x = in[0];
    nnfx_tensor *y = out[0];
    int axis;
    if (x->rank < 2 || !infer_axis(nnfx_node_attr_int(n, "axis", 1), x->rank - 1, false, &axis))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "dft axis out of range");
    bool inverse = nnfx_node_attr_int(n, "inverse", 0) != 0;
    int64_t cx = x->shape[x->rank - 1], N = x->shape[axis], L = y->shape[axis], outer = 1, inner = 1;
    int64_t len = nin > 1 && in[1] ? (int64_t)nnfx_tensor_get(in[1], 0) : N;
    for (int d = 0; d < axis; d++)
        outer *= x->shape[d];
    for (int d = axis + 1; d < x->rank - 1; d++)
        inner *= x->shape[d];
    double *buf = malloc(sizeof *buf * (size_t)(2 * (N + L) + 4));
    if (!buf) return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory");
    double *re = buf, *im = buf + N, *ore = buf + 2 * N, *oim = buf + 2 * N + L;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            for (int64_t j = 0; j < N; j++) {
                int64_t at = ((o * N + j) * inner + i) * cx;
                re[j] = nnfx_tensor_get(x, at);
                im[j] = cx == 2 ? nnfx_tensor_get(x, at + 1) : 0;
            }
            dft1(re, im, N, len, L, inverse, ore, oim);
            for (int64_t k = 0; k < L; k++) {
                int64_t at = ((o * L + k) * inner + i) * 2;
                kern_set(y, at, ore[k]);
                kern_set(y, at + 1, oim[k]);
            }
        }
    free(buf);
    return NNFX_OK;
}

/* STFT(signal [B, len, 1|2], frame_step, window? [fl], frame_length?) ->
 * [B, frames, bins, 2]. */
nnfx_status kern_stft(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                      nnfx_error *err) {
    if (nin < 2 || !in[0] || !in[1] || nout < 1 || !out[0] || in[0]->rank != 3)
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "stft needs signal [B, len, 1|2] and frame_step");
    const nnfx_tensor *x = in[0], *win = nin > 2 ? in[2] : NULL;
    nnfx_tensor *y = out[0];
    int64_t step = (int64_t)nnfx_tensor_get(in[1], 0), cx = x->shape[2], B = x->shape[0], T = x->shape[1];
    int64_t fl = nin > 3 && in[3] ? (int64_t)nnfx_tensor_get(in[3], 0) : win ? nnfx_tensor_numel(win) : 0;
    int64_t F = y->shape[1], bins = y->shape[2];
    if (fl <= 0 || (win && nnfx_tensor_numel(win) != fl))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "stft frame_length and window do not fit");
    double *buf = malloc(sizeof *buf * (size_t)(2 * fl + 2 * bins + 4));
    if (!buf) return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory");
    double *re = buf, *im = buf + fl, *ore = buf + 2 * fl, *oim = buf + 2 * fl + bins;
    for (int64_t b = 0; b < B; b++)
        for (int64_t f = 0; f < F; f++) {
            for (int64_t j = 0; j < fl; j++) {
                int64_t t = f * step + j;
                double w = win ? nnfx_tensor_get(win, j) : 1.0;
                re[j] = t < T ? w * nnfx_tensor_get(x, (b * T + t) * cx) : 0;
                im[j] = t < T && cx == 2 ? w * nnfx_tensor_get(x, (b * T + t) * cx + 1) : 0;
            }
            dft1(re, im, fl, fl, bins, false, ore, oim);
            for (int64_t k = 0; k < bins; k++) {
                int64_t at = ((b * F + f) * bins + k) * 2;
                kern_set(y, at, ore[k]);
                kern_set(y, at + 1, oim[k]);
            }
        }
    free(buf);
    return NNFX_OK;
}

/* MelWeightMatrix: triangular filters between num_mel_bins + 2 points
 * evenly spaced on the mel scale (mel = 2595 log10(1 + hz / 700)) from
 * lower_edge_hertz to upper_edge_hertz, mapped to spectrogram bins
 * floor((dft_length + 1) * hz / sample_rate), as ONNX's reference. */
nnfx_status kern_mel_weight_matrix(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                                   nnfx_tensor *const *out, nnfx_error *err) {
    if (nin < 5 || nout < 1 || !out[0] || out[0]->rank != 2)
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "mel_weight_matrix needs 5 inputs");
    for (int i = 0; i < 5; i++)
        if (!in[i] || nnfx_tensor_numel(in[i]) != 1)
            return kern_fail(err, n, NNFX_ERR_SHAPE, "mel_weight_matrix input %d must be a scalar", i);
    nnfx_tensor *y = out[0];
    int64_t bins = y->shape[1], nspec = y->shape[0];
    double len = nnfx_tensor_get(in[1], 0), rate = nnfx_tensor_get(in[2], 0);
    double lo = 2595 * log10(1 + nnfx_tensor_get(in[3], 0) / 700),
           hi = 2595 * log10(1 + nnfx_tensor_get(in[4], 0) / 700);
    if (!(rate > 0)) return kern_fail(err, n, NNFX_ERR_SHAPE, "sample_rate must be positive");
    int64_t *pt = malloc(sizeof *pt * (size_t)(bins + 2));
    if (!pt) return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory");
    double step = (hi - lo) / (double)(bins + 2);
    for (int64_t i = 0; i < bins + 2; i++) {
        double hz = 700 * (pow(10, ((double)i * step + lo) / 2595) - 1);
        pt[i] = (int64_t)floor((len + 1) * hz / rate);
    }
    memset(y->data, 0, y->nbytes);
    for (int64_t i = 0; i < bins; i++) {
        int64_t l = pt[i], c = pt[i + 1], h = pt[i + 2];
        for (int64_t j = l; j <= c; j++) /* rising edge (a single 1 when l == c) */
            if (j >= 0 && j < nspec) kern_set(y, j * bins + i, c == l ? 1.0 : (double)(j - l) / (double)(c - l));
        for (int64_t j = c; j < h; j++)
            if (j >= 0 && j < nspec) kern_set(y, j * bins + i, (double)(h - j) / (double)(h - c));
    }
    free(pt);
    return NNFX_OK;
}
