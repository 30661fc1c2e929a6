/* layout.c — coverage kernels that rearrange or create tensors:
 * DepthToSpace, SpaceToDepth (strided row copies for 4-byte elements, else
 * element bytes), ReverseSequence (element bytes, any dtype),
 * MaxUnpool (element bytes), EyeLike, the window functions and Det (through
 * double). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt/nnfx_rt_indexed.h"
#include "rt/nnfx_rt_linalg.h"
#include "core/core_int.h"
#include "exec/kernels/kernels_int.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Copies element `from` of src to element `to` of dst, es bytes each. */
static inline void move_elem(char *dst, int64_t to, const char *src, int64_t from, size_t es) {
    switch (es) {
    case 4: ((uint32_t *)(void *)dst)[to] = ((const uint32_t *)(const void *)src)[from]; break;
    case 8: ((uint64_t *)(void *)dst)[to] = ((const uint64_t *)(const void *)src)[from]; break;
    case 2: ((uint16_t *)(void *)dst)[to] = ((const uint16_t *)(const void *)src)[from]; break;
    case 1: dst[to] = src[from]; break;
    default: memcpy(dst + to * (int64_t)es, src + from * (int64_t)es, es);
    }
}

/* block_move's loops for 4-byte elements (float32, int32): for each row
 * (nn, c, h*b + i) of the spatial side, its tap columns j (every b-th
 * element) to or from the depth side's row (dc, h), a strided copy each. */
static void block_move32(uint32_t *dst, const uint32_t *src, bool to_space, bool crd, int64_t N, int64_t C, int64_t H,
                         int64_t W, int64_t b) {
    for (int64_t nn = 0; nn < N; nn++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t h = 0; h < H; h++)
                for (int64_t i = 0; i < b; i++) {
                    int64_t srow = (((nn * C + c) * H + h) * b + i) * W * b;
                    for (int64_t j = 0; j < b; j++) {
                        int64_t dc = crd ? c * b * b + i * b + j : (i * b + j) * C + c;
                        int64_t drow = ((nn * C * b * b + dc) * H + h) * W;
                        if (to_space) {
                            uint32_t *o = dst + srow + j;
                            const uint32_t *r = src + drow;
                            for (int64_t w = 0; w < W; w++)
                                o[w * b] = r[w];
                        } else {
                            uint32_t *o = dst + drow;
                            const uint32_t *r = src + srow + j;
                            for (int64_t w = 0; w < W; w++)
                                o[w] = r[w * b];
                        }
                    }
                }
}

/* out[n, c, h*b+i, w*b+j] = x[n, src(c, i, j), h, w] (to_space) and the
 * inverse SpaceToDepth; DCR mode takes src = (i*b + j)*C' + c, CRD mode
 * c*b*b + i*b + j. The loops walk the spatial side in memory order (one
 * row of it from b rows of the depth side). */
static nnfx_status block_move(const nnfx_node *n, nnfx_tensor *const *in, nnfx_tensor *const *out, bool to_space,
                              nnfx_error *err) {
    const nnfx_tensor *x = in[0];
    if (x->rank != 4) return kern_fail(err, n, NNFX_ERR_SHAPE, "input must have rank 4");
    int64_t b = nnfx_node_attr_int(n, "blocksize", 0);
    bool crd = to_space && strcmp(ir_attr_string(n, "mode"), "CRD") == 0;
    const nnfx_tensor *sp = to_space ? out[0] : x; /* the spatial (large) side  */
    int64_t N = sp->shape[0], C = sp->shape[1], H = sp->shape[2] / b, W = sp->shape[3] / b;
    size_t es = nnfx_dtype_size(x->dtype);
    const char *src = x->data;
    char *dst = out[0]->data;
    if (es == 4) {
        block_move32((uint32_t *)(void *)dst, (const uint32_t *)(const void *)src, to_space, crd, N, C, H, W, b);
        return NNFX_OK;
    }
    int64_t so = 0; /* ((nn * C + c) * H * b + h * b + i) * W * b + w * b + j */
    for (int64_t nn = 0; nn < N; nn++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t h = 0; h < H; h++)
                for (int64_t i = 0; i < b; i++)
                    for (int64_t w = 0; w < W; w++)
                        for (int64_t j = 0; j < b; j++, so++) {
                            int64_t dc = crd ? c * b * b + i * b + j : (i * b + j) * C + c;
                            int64_t dpo = ((nn * C * b * b + dc) * H + h) * W + w;
                            if (to_space)
                                move_elem(dst, so, src, dpo, es);
                            else
                                move_elem(dst, dpo, src, so, es);
                        }
    return NNFX_OK;
}

nnfx_status kern_depth_to_space(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                                nnfx_error *err) {
    if (nin < 1 || !in[0] || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "needs an input");
    return block_move(n, in, out, true, err);
}

nnfx_status kern_space_to_depth(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                                nnfx_error *err) {
    if (nin < 1 || !in[0] || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "needs an input");
    return block_move(n, in, out, false, err);
}

/* EyeLike: ones on the diagonal j - i == k, zeros elsewhere. */
nnfx_status kern_eye_like(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                          nnfx_error *err) {
    if (nin < 1 || !in[0] || nout < 1 || !out[0] || out[0]->rank != 2)
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "eye_like needs a 2-d input");
    int64_t k = ir_attr_int(n, "k"), R = out[0]->shape[0], C = out[0]->shape[1];
    for (int64_t i = 0; i < R; i++)
        for (int64_t j = 0; j < C; j++)
            kern_set(out[0], i * C + j, j - i == k ? 1.0 : 0.0);
    return NNFX_OK;
}

/* Window functions over n in [0, size): periodic divides by size, else by
 * size - 1. Hann 0.5 - 0.5 cos, Hamming 25/46 - 21/46 cos, Blackman
 * 0.42 - 0.5 cos + 0.08 cos(2x). */
static nnfx_status window(const nnfx_node *n, nnfx_tensor *const *out, double a0, double a1, double a2) {
    int64_t N = out[0]->shape[0];
    double den = ir_attr_int(n, "periodic") ? (double)N : (double)(N - 1);
    for (int64_t i = 0; i < N; i++) {
        double x = den > 0 ? 2 * M_PI * (double)i / den : 0;
        kern_set(out[0], i, a0 - a1 * cos(x) + a2 * cos(2 * x));
    }
    return NNFX_OK;
}

#define WINDOW_KERNEL(fn, a0, a1, a2)                                                                                  \
    nnfx_status fn(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,             \
                   nnfx_error *err) {                                                                                  \
        (void)in;                                                                                                      \
        if (nin < 1 || nout < 1 || !out[0] || out[0]->rank != 1)                                                       \
            return kern_fail(err, n, NNFX_ERR_RUNTIME, "window needs a size and a 1-d output");                        \
        return window(n, out, a0, a1, a2);                                                                             \
    }
WINDOW_KERNEL(kern_hann_window, 0.5, 0.5, 0.0)
WINDOW_KERNEL(kern_hamming_window, 25.0 / 46.0, 21.0 / 46.0, 0.0)
WINDOW_KERNEL(kern_blackman_window, 0.42, 0.5, 0.08)
#undef WINDOW_KERNEL

/* Det: LU decomposition with partial pivoting per matrix (double). */
nnfx_status kern_det(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                     nnfx_error *err) {
    if (nin < 1 || !in[0] || nout < 1 || !out[0] || in[0]->rank < 2)
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "det needs a [..., M, M] input");
    const nnfx_tensor *x = in[0];
    int64_t M = x->shape[x->rank - 1];
    if (x->shape[x->rank - 2] != M) return kern_fail(err, n, NNFX_ERR_SHAPE, "det needs square matrices");
    const int tx = x->dtype == NNFX_F32 ? 0 : x->dtype == NNFX_F64 ? 6 : x->dtype == NNFX_F16 ? 7 : -1;
    const int ty = out[0]->dtype == NNFX_F32 ? 0 : out[0]->dtype == NNFX_F64 ? 6 : out[0]->dtype == NNFX_F16 ? 7 : -1;
    if (tx < 0 || ty < 0) return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "det of %s values", nnfx_dtype_name(x->dtype));
    double *a = malloc(sizeof *a * (size_t)(M * M > 0 ? M * M : 1));
    if (!a) return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory");
    nnfx_rt_det(x->data, tx, out[0]->data, ty, (long)nnfx_tensor_numel(out[0]), (long)M, a);
    free(a);
    return NNFX_OK;
}

/* ReverseSequence(input, sequence_lens): for batch b, reverses the first
 * sequence_lens[b] steps along time_axis; the rest is copied. */
nnfx_status kern_reverse_sequence(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                                  nnfx_tensor *const *out, nnfx_error *err) {
    if (nin < 2 || !in[0] || !in[1] || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "reverse_sequence needs input and sequence_lens");
    const nnfx_tensor *x = in[0];
    int ta = (int)ir_attr_int(n, "time_axis"), ba = (int)ir_attr_int(n, "batch_axis");
    if (x->rank < 2 || ta < 0 || ba < 0 || ta > 1 || ba > 1 || ta == ba)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "reverse_sequence needs time_axis and batch_axis in {0, 1}");
    if (nnfx_tensor_numel(in[1]) != x->shape[ba])
        return kern_fail(err, n, NNFX_ERR_SHAPE, "sequence_lens needs one length per batch");
    int64_t T = x->shape[ta], B = x->shape[ba], inner = 1;
    for (int i = 2; i < x->rank; i++)
        inner *= x->shape[i];
    size_t es = nnfx_dtype_size(x->dtype), row = (size_t)inner * es;
    for (int64_t b = 0; b < B; b++) {
        int64_t len = core_tensor_get_i64(in[1], b);
        if (len < 0 || len > T)
            return kern_fail(err, n, NNFX_ERR_RUNTIME, "sequence length %lld out of range", (long long)len);
        for (int64_t t = 0; t < T; t++) {
            int64_t st = t < len ? len - 1 - t : t;
            int64_t so = ta == 0 ? st * B + b : b * T + st, dof = ta == 0 ? t * B + b : b * T + t;
            memcpy((char *)out[0]->data + (size_t)dof * row, (const char *)x->data + (size_t)so * row, row);
        }
    }
    return NNFX_OK;
}

/* MaxUnpool(X, I, output_shape?): zeros, then X[k] goes to the position
 * I[k] names. I holds offsets into the default output ((in - 1) * stride
 * + kernel - pads per spatial dim), as MaxPool's Indices; a larger
 * output_shape keeps those coordinates (the extra rows and columns stay
 * zero), as ONNX's reference does. */
nnfx_status kern_max_unpool(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                            nnfx_error *err) {
    if (nin < 2 || !in[0] || !in[1] || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "max_unpool needs X and I");
    const nnfx_tensor *x = in[0], *ix = in[1];
    nnfx_tensor *y = out[0];
    int64_t cnt = nnfx_tensor_numel(x), def[NNFX_MAX_RANK];
    int nsp = x->rank - 2;
    const nnfx_attr *ks = nnfx_node_attr(n, "kernel_shape"), *st = nnfx_node_attr(n, "strides"),
                    *pd = nnfx_node_attr(n, "pads");
    if (nnfx_tensor_numel(ix) != cnt || ix->dtype != NNFX_I64 || y->dtype != x->dtype || y->rank != x->rank ||
        nsp < 1 || !ks || ks->u.ints.n != nsp)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "max_unpool needs indices of X's shape and kernel_shape");
    def[0] = x->shape[0], def[1] = x->shape[1];
    for (int i = 0; i < nsp; i++) {
        int64_t sv = st && st->u.ints.n == nsp ? st->u.ints.v[i] : 1;
        int64_t pads = pd && pd->u.ints.n == 2 * nsp ? pd->u.ints.v[i] + pd->u.ints.v[i + nsp] : 0;
        def[2 + i] = (x->shape[2 + i] - 1) * sv + ks->u.ints.v[i] - pads;
    }
    long defl[NNFX_MAX_RANK], ys[NNFX_MAX_RANK];
    for (int d = 0; d < x->rank; d++)
        defl[d] = (long)def[d], ys[d] = (long)y->shape[d];
    const long bad =
        nnfx_rt_max_unpool(x->data, (long)nnfx_dtype_size(x->dtype), ix->data, (long)cnt, x->rank, defl, ys, y->data);
    if (bad)
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "max_unpool index %lld out of range of output_shape",
                         (long long)((const int64_t *)ix->data)[bad - 1]);
    return NNFX_OK;
}
