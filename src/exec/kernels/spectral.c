/* spectral.c — DFT and STFT by direct summation in double (O(n^2) per
 * signal: for the node tests and short frames; no FFT: the loops of
 * src/rt/nnfx_rt_spectral.h, which generated C runs too), and
 * MelWeightMatrix. Signals carry a last dim of 1 (real) or 2 (complex);
 * outputs are complex (last dim 2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt/nnfx_rt_linalg.h"
#include "rt/nnfx_rt_spectral.h"
#include "core/core_int.h"
#include "exec/kernels/kernels_int.h"

/* DFT(input [..., n, ..., 1|2], dft_length?) along axis. */
nnfx_status kern_dft(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                     nnfx_error *err) {
    if (nin < 1 || !in[0] || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "dft needs an input");
    const nnfx_tensor *x = in[0];
    nnfx_tensor *y = out[0];
    int axis;
    if (x->rank < 2 || !infer_axis(ir_attr_int(n, "axis"), x->rank - 1, false, &axis))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "dft axis out of range");
    bool inverse = ir_attr_int(n, "inverse") != 0;
    int64_t cx = x->shape[x->rank - 1], N = x->shape[axis], L = y->shape[axis], outer = 1, inner = 1;
    int64_t len = nin > 1 && in[1] ? core_tensor_get_i64(in[1], 0) : N;
    for (int d = 0; d < axis; d++)
        outer *= x->shape[d];
    for (int d = axis + 1; d < x->rank - 1; d++)
        inner *= x->shape[d];
    if (kern_rt_float_tcode(x->dtype) < 0 || kern_rt_float_tcode(y->dtype) < 0)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "dft of %s values", nnfx_dtype_name(x->dtype));
    double *buf = malloc(sizeof *buf * (size_t)(2 * (N + L) + 4));
    if (!buf) return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory");
    nnfx_rt_dft(x->data, kern_rt_float_tcode(x->dtype), y->data, kern_rt_float_tcode(y->dtype), (long)outer, (long)N,
                (long)inner, (long)cx, (long)len, (long)L, inverse, buf);
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
    int64_t step = core_tensor_get_i64(in[1], 0), cx = x->shape[2], B = x->shape[0], T = x->shape[1];
    int64_t fl = nin > 3 && in[3] ? core_tensor_get_i64(in[3], 0) : win ? nnfx_tensor_numel(win) : 0;
    int64_t F = y->shape[1], bins = y->shape[2];
    if (fl <= 0 || (win && nnfx_tensor_numel(win) != fl))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "stft frame_length and window do not fit");
    if (kern_rt_float_tcode(x->dtype) < 0 || kern_rt_float_tcode(y->dtype) < 0 ||
        (win && kern_rt_float_tcode(win->dtype) < 0))
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "stft of %s values", nnfx_dtype_name(x->dtype));
    double *buf = malloc(sizeof *buf * (size_t)(2 * fl + 2 * bins + 4));
    if (!buf) return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory");
    nnfx_rt_stft(x->data, kern_rt_float_tcode(x->dtype), win ? win->data : NULL,
                 win ? kern_rt_float_tcode(win->dtype) : 0, y->data, kern_rt_float_tcode(y->dtype), (long)B, (long)T,
                 (long)cx, (long)step, (long)fl, (long)F, (long)bins, buf);
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
    const int ty = kern_rt_float_tcode(y->dtype);
    if (ty < 0) return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "mel_weight_matrix of %s", nnfx_dtype_name(y->dtype));
    long *pt = malloc(sizeof *pt * (size_t)(y->shape[1] + 2));
    if (!pt) return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory");
    const int bad =
        nnfx_rt_mel_weight_matrix(nnfx_tensor_get(in[1], 0), nnfx_tensor_get(in[2], 0), nnfx_tensor_get(in[3], 0),
                                  nnfx_tensor_get(in[4], 0), (long)y->shape[0], (long)y->shape[1], y->data, ty, pt);
    free(pt);
    if (bad) return kern_fail(err, n, NNFX_ERR_SHAPE, "sample_rate must be positive");
    return NNFX_OK;
}
