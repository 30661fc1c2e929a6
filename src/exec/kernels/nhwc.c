/* nhwc.c — the two kernel steps of the compiled plan that read
 * channels-last (NHWC) values differently from NCHW ones (plan_layouts in
 * plan_layout.c): a per-channel broadcast of Add/Sub/Mul/Div (the
 * squeeze-excitation scale) and Concat over channels. Their meaning is the
 * generic kernels' (binary.c, movement.c) on the same values held NCHW:
 * the scalar definitions of nnfx_rt_scalar.h; tests/test_fast_exec.c
 * compares the plans with the interpreter. */
#include <string.h>

#include "exec/fast_int.h"
#include "exec/kernels/kernels_int.h"

static inline float apply(nnfx_op op, float a, float b) {
    switch (op) {
    case NNFX_OP_ADD: return nnfx_rt_add(a, b);
    case NNFX_OP_SUB: return nnfx_rt_sub(a, b);
    case NNFX_OP_MUL: return nnfx_rt_mul(a, b);
    default: return nnfx_rt_div(a, b);
    }
}

/* One row of c channels: y = x op v (full_first) or v op x. */
static void channel_row(nnfx_op op, bool full_first, const float *restrict x, const float *restrict v,
                        float *restrict y, int64_t c) {
    if (op == NNFX_OP_MUL)
        for (int64_t k = 0; k < c; k++)
            y[k] = nnfx_rt_mul(x[k], v[k]);
    else if (op == NNFX_OP_ADD)
        for (int64_t k = 0; k < c; k++)
            y[k] = nnfx_rt_add(x[k], v[k]);
    else if (full_first)
        for (int64_t k = 0; k < c; k++)
            y[k] = apply(op, x[k], v[k]);
    else
        for (int64_t k = 0; k < c; k++)
            y[k] = apply(op, v[k], x[k]);
}

void fx_nhwc_channel_op(nnfx_op op, bool full_first, const float *x, const float *v, bool v_shared, int64_t n,
                        int64_t c, int64_t hw, float *y) {
    for (int64_t i = 0; i < n; i++) {
        const float *vi = v + (v_shared ? 0 : i * c);
        for (int64_t q = 0; q < hw; q++) {
            int64_t o = (i * hw + q) * c;
            channel_row(op, full_first, x + o, vi, y + o, c);
        }
    }
}

void fx_nhwc_concat(int nin, const nnfx_tensor *const *in, nnfx_tensor *y) {
    int64_t n = y->shape[0], ct = y->shape[1], hw = y->shape[2] * y->shape[3];
    float *out = y->data;
    for (int64_t i = 0; i < n; i++)
        for (int64_t q = 0; q < hw; q++) {
            float *row = out + (i * hw + q) * ct;
            for (int a = 0; a < nin; a++) {
                int64_t c = in[a]->shape[1];
                memcpy(row, (const float *)in[a]->data + (i * hw + q) * c, (size_t)c * sizeof(float));
                row += c;
            }
        }
}

void fx_blocked_concat(int nin, const nnfx_tensor *const *in, nnfx_tensor *y) {
    int64_t n = y->shape[0], ct = y->shape[1], hw = y->shape[2] * y->shape[3];
    float *out = y->data;
    for (int64_t i = 0; i < n; i++)
        for (int a = 0; a < nin; a++) {
            int64_t c = in[a]->shape[1];
            memcpy(out, (const float *)in[a]->data + i * c * hw, (size_t)(c * hw) * sizeof(float));
            out += c * hw;
        }
    (void)ct;
}
