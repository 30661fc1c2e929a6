/* logical.c — broadcasting element-wise kernels computed through double
 * (exact for every dtype nnfx holds except int64 beyond 2^53): And, Or, Xor
 * (bool), GreaterOrEqual, LessOrEqual (-> bool), Mod (integer or float), and
 * the variadic Min, Max, Sum, Mean (1 to KERN_BCAST_MAX inputs), and BitShift
 * (exact, on unsigned integers). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "rt/nnfx_rt_math.h"
#include "rt/nnfx_rt_scalar.h"
#include "exec/kernels/kernels_int.h"

typedef enum { L_AND, L_OR, L_XOR, L_GE, L_LE, L_MOD, L_FMOD, L_MIN, L_MAX, L_SUM, L_MEAN, L_SHL, L_SHR } logic_kind;

typedef struct logic_ctx {
    logic_kind k;
    int nin;
    const nnfx_tensor *in[KERN_BCAST_MAX];
    nnfx_tensor *out;
    bool is_int;
    bool is_f32; /* float32 operands: Mod's float meaning is nnfx_rt_mod / nnfx_rt_fmod */
} logic_ctx;

/* Integer remainders (nnfx_rt_dimod / nnfx_rt_difmod, the generated C's):
 * nnfx_rt_ifmod (C's, the dividend's sign) and nnfx_rt_imod (Python's and
 * ONNX's fmod=0, the divisor's sign); a divisor of 0 (undefined in ONNX;
 * numpy gives 0) or -1 gives 0. */

static double combine(const logic_ctx *c, const double *v) {
    switch (c->k) {
    case L_AND: return (v[0] != 0) && (v[1] != 0);
    case L_OR: return (v[0] != 0) || (v[1] != 0);
    case L_XOR: return (v[0] != 0) != (v[1] != 0);
    case L_GE: return v[0] >= v[1];
    case L_LE: return v[0] <= v[1];
    case L_MOD:
        if (c->is_int) return nnfx_rt_dimod(v[0], v[1]);
        if (c->is_f32) return nnfx_rt_mod((float)v[0], (float)v[1]);
        return nnfx_rt_dmod(v[0], v[1]);
    case L_FMOD:
        if (c->is_f32) return nnfx_rt_fmod((float)v[0], (float)v[1]);
        return c->is_int ? nnfx_rt_difmod(v[0], v[1]) : nnfx_rt_dfmod(v[0], v[1]);
    case L_MIN:
    case L_MAX: {
        double r = v[0];
        for (int j = 1; j < c->nin; j++) {
            if (isnan(v[j]) || isnan(r)) return NAN;
            if (c->k == L_MIN ? v[j] < r : v[j] > r) r = v[j];
        }
        return r;
    }
    case L_SUM:
    case L_MEAN: {
        double r = 0;
        for (int j = 0; j < c->nin; j++)
            r += v[j];
        return c->k == L_MEAN ? r / c->nin : r;
    }
    case L_SHL: /* row_shift's */
    case L_SHR: break;
    }
    return 0;
}

static void row_logic(void *ctx, const int64_t *off, const int64_t *inner, int64_t out_off, int64_t n) {
    logic_ctx *c = ctx;
    double v[KERN_BCAST_MAX];
    for (int64_t i = 0; i < n; i++) {
        for (int j = 0; j < c->nin; j++)
            v[j] = nnfx_tensor_get(c->in[j], off[j] + i * inner[j]);
        kern_set(c->out, out_off + i, combine(c, v));
    }
}

static bool is_int_dtype(nnfx_dtype dt) {
    return dt == NNFX_U8 || dt == NNFX_I8 || dt == NNFX_I32 || dt == NNFX_I64 || dt == NNFX_BOOL || dt == NNFX_I16 ||
           dt == NNFX_U16 || dt == NNFX_U32 || dt == NNFX_U64;
}

static nnfx_status logic(logic_kind k, const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                         nnfx_tensor *const *out, nnfx_error *err) {
    if (nin < 1 || nin > KERN_BCAST_MAX || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "%s with %d inputs (1 to %d supported)",
                         nnfx_op_name(nnfx_node_op(n)), nin, KERN_BCAST_MAX);
    logic_ctx c = {k, nin, {0}, out[0], false, false};
    for (int j = 0; j < nin; j++) {
        if (!in[j]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "input %d is missing", j);
        if (in[j]->dtype != in[0]->dtype)
            return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "operand dtypes differ (%s, %s)",
                             nnfx_dtype_name(in[0]->dtype), nnfx_dtype_name(in[j]->dtype));
        c.in[j] = in[j];
    }
    nnfx_dtype dt = in[0]->dtype;
    c.is_int = is_int_dtype(dt);
    c.is_f32 = dt == NNFX_F32;
    if ((k == L_AND || k == L_OR || k == L_XOR) && dt != NNFX_BOOL)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "%s takes bool inputs, not %s", nnfx_op_name(nnfx_node_op(n)),
                         nnfx_dtype_name(dt));
    if (dt == NNFX_BOOL && k != L_AND && k != L_OR && k != L_XOR)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "%s does not take bool", nnfx_op_name(nnfx_node_op(n)));
    if (nnfx_dtype_size(dt) == 0 || nnfx_dtype_size(out[0]->dtype) == 0)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "unsupported dtype %s", nnfx_dtype_name(dt));
    for (int j = 0; j < nin; j++)
        if (nnfx_tensor_numel(in[j]) == 0) return NNFX_OK; /* empty broadcast: empty output */
    kern_bcast p;
    if (!kern_bcast_plan(&p, out[0]->rank, out[0]->shape, nin, (const nnfx_tensor *const *)c.in))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "inputs do not broadcast to the output shape");
    kern_bcast_run(&p, row_logic, &c);
    return NNFX_OK;
}

#define LOGIC_KERNEL(fn, kind)                                                                                         \
    nnfx_status fn(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,             \
                   nnfx_error *err) {                                                                                  \
        return logic(kind, n, nin, in, nout, out, err);                                                                \
    }
LOGIC_KERNEL(kern_and, L_AND)
LOGIC_KERNEL(kern_or, L_OR)
LOGIC_KERNEL(kern_xor, L_XOR)
LOGIC_KERNEL(kern_greater_or_equal, L_GE)
LOGIC_KERNEL(kern_less_or_equal, L_LE)
LOGIC_KERNEL(kern_min, L_MIN)
LOGIC_KERNEL(kern_max, L_MAX)
LOGIC_KERNEL(kern_sum, L_SUM)
LOGIC_KERNEL(kern_mean, L_MEAN)
#undef LOGIC_KERNEL

/* Element i of an unsigned integer tensor, exactly. */
static uint64_t get_unsigned(const nnfx_tensor *t, int64_t i) {
    return t->dtype == NNFX_U64 ? ((const uint64_t *)t->data)[i] : (uint64_t)core_tensor_get_i64(t, i);
}

/* One row of a shift: nnfx_rt_ishl / nnfx_rt_ishr (the generated C's
 * too), stored modulo the type's width as numpy's shifts wrap. */
static void row_shift(void *ctx, const int64_t *off, const int64_t *inner, int64_t out_off, int64_t n) {
    logic_ctx *c = ctx;
    for (int64_t i = 0; i < n; i++) {
        const uint64_t x = get_unsigned(c->in[0], off[0] + i * inner[0]),
                       y = get_unsigned(c->in[1], off[1] + i * inner[1]);
        const uint64_t r = (uint64_t)(c->k == L_SHL ? nnfx_rt_ishl((long long)x, (long long)y)
                                                    : nnfx_rt_ishr((long long)x, (long long)y));
        void *o = c->out->data;
        switch (c->out->dtype) {
        case NNFX_U8: ((uint8_t *)o)[out_off + i] = (uint8_t)r; break;
        case NNFX_U16: ((uint16_t *)o)[out_off + i] = (uint16_t)r; break;
        case NNFX_U32: ((uint32_t *)o)[out_off + i] = (uint32_t)r; break;
        default: ((uint64_t *)o)[out_off + i] = r; break;
        }
    }
}

/* BitShift(X, Y) of unsigned integers: X << Y (direction LEFT) or X >> Y,
 * exact and wrapping. */
nnfx_status kern_bit_shift(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                           nnfx_error *err) {
    const char *dir = nnfx_node_attr_string(n, "direction", "");
    bool left = strcmp(dir, "LEFT") == 0;
    if (!left && strcmp(dir, "RIGHT") != 0)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "bit_shift direction must be LEFT or RIGHT, got '%s'", dir);
    if (nin != 2 || !in[0] || !in[1] || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "bit_shift needs 2 inputs and 1 output");
    for (int i = 0; i < 2; i++)
        if (in[i]->dtype != NNFX_U8 && in[i]->dtype != NNFX_U16 && in[i]->dtype != NNFX_U32 && in[i]->dtype != NNFX_U64)
            return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "bit_shift takes unsigned integers, not %s",
                             nnfx_dtype_name(in[i]->dtype));
    if (in[1]->dtype != in[0]->dtype || out[0]->dtype != in[0]->dtype)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "operand dtypes differ (%s, %s)", nnfx_dtype_name(in[0]->dtype),
                         nnfx_dtype_name(in[1]->dtype));
    logic_ctx c = {left ? L_SHL : L_SHR, 2, {in[0], in[1]}, out[0], true};
    if (nnfx_tensor_numel(in[0]) == 0 || nnfx_tensor_numel(in[1]) == 0) return NNFX_OK;
    kern_bcast p;
    if (!kern_bcast_plan(&p, out[0]->rank, out[0]->shape, 2, (const nnfx_tensor *const *)c.in))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "inputs do not broadcast to the output shape");
    kern_bcast_run(&p, row_shift, &c);
    return NNFX_OK;
}

/* Mod(A, B): remainder with the divisor's sign (fmod=0, integers) or C's
 * fmod with the dividend's sign (fmod=1). */
nnfx_status kern_mod(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                     nnfx_error *err) {
    return logic(ir_attr_int(n, "fmod") ? L_FMOD : L_MOD, n, nin, in, nout, out, err);
}
