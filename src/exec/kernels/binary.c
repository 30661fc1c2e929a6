/* binary.c — broadcasting two-input kernels: Add, Sub, Mul, Div, Pow, PRelu
 * (float32; Add/Sub/Mul/Div/Pow also every integer type but uint64, and
 * float64 and float16 in double),
 * Equal/Less/Greater (bool out), Where (any element type). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "rt/nnfx_rt_math.h"
#include "rt/nnfx_rt_scalar.h"
#include "rt/nnfx_rt_typed.h"
#include "exec/kernels/kernels_int.h"

typedef enum { B_ADD, B_SUB, B_MUL, B_DIV, B_POW, B_PRELU, B_BAND, B_BOR, B_BXOR } bin_kind;

typedef struct bin_ctx {
    bin_kind k;
    const void *a, *b;
    void *o;
    bool div0;                  /* an integer division by zero was met */
    const nnfx_tensor *ta, *tb; /* the operands, for the narrow-integer rows */
    nnfx_tensor *to;
} bin_ctx;

/* One row with a fast path for contiguous and scalar operands. */
#define BIN_ROW(T, EXPR)                                                                                               \
    do {                                                                                                               \
        const T *pa = (const T *)c->a + off[0], *pb = (const T *)c->b + off[1];                                        \
        T *po = (T *)c->o + out_off;                                                                                   \
        int64_t sa = inner[0], sb = inner[1];                                                                          \
        if (sa == 1 && sb == 1) {                                                                                      \
            for (int64_t i = 0; i < n; i++) {                                                                          \
                T x = pa[i], y = pb[i];                                                                                \
                po[i] = (EXPR);                                                                                        \
            }                                                                                                          \
        } else if (sa == 1 && sb == 0) {                                                                               \
            T y = pb[0];                                                                                               \
            for (int64_t i = 0; i < n; i++) {                                                                          \
                T x = pa[i];                                                                                           \
                po[i] = (EXPR);                                                                                        \
            }                                                                                                          \
        } else if (sa == 0 && sb == 1) {                                                                               \
            T x = pa[0];                                                                                               \
            for (int64_t i = 0; i < n; i++) {                                                                          \
                T y = pb[i];                                                                                           \
                po[i] = (EXPR);                                                                                        \
            }                                                                                                          \
        } else {                                                                                                       \
            for (int64_t i = 0; i < n; i++) {                                                                          \
                T x = pa[i * sa], y = pb[i * sb];                                                                      \
                po[i] = (EXPR);                                                                                        \
            }                                                                                                          \
        }                                                                                                              \
    } while (0)

static void row_f32(void *ctx, const int64_t *off, const int64_t *inner, int64_t out_off, int64_t n) {
    bin_ctx *c = ctx;
    switch (c->k) {
    case B_ADD: BIN_ROW(float, nnfx_rt_add(x, y)); break;
    case B_SUB: BIN_ROW(float, nnfx_rt_sub(x, y)); break;
    case B_MUL: BIN_ROW(float, nnfx_rt_mul(x, y)); break;
    case B_DIV: BIN_ROW(float, nnfx_rt_div(x, y)); break;
    case B_POW:
        if (inner[0] == 1 && inner[1] == 0 && ((const float *)c->b)[off[1]] == 2.0f) { /* x^2: a loop that vectorises */
            const float *pa = (const float *)c->a + off[0];
            float *po = (float *)c->o + out_off;
            for (int64_t i = 0; i < n; i++)
                po[i] = pa[i] * pa[i];
            break;
        }
        BIN_ROW(float, nnfx_rt_pow(x, y));
        break;
    case B_PRELU: BIN_ROW(float, nnfx_rt_prelu(x, y)); break;
    case B_BAND:
    case B_BOR:
    case B_BXOR: break; /* integers only (binary refuses them) */
    }
}

/* Integer ops wrap on overflow (computed unsigned); x / 0 gives 0 and is
 * reported. */
static int64_t idiv(bin_ctx *c, int64_t x, int64_t y) {
    if (y == 0) {
        c->div0 = true;
        return 0;
    }
    return nnfx_rt_idiv(x, y);
}

/* x ** y truncated toward zero and saturated into int64 (defined for every
 * input, unlike a bare double-to-int64 conversion). */
static int64_t ipow(int64_t x, int64_t y) { return nnfx_rt_ipow((double)x, (double)y); }

static void row_i64(void *ctx, const int64_t *off, const int64_t *inner, int64_t out_off, int64_t n) {
    bin_ctx *c = ctx;
    switch (c->k) {
    case B_ADD: BIN_ROW(int64_t, nnfx_rt_iadd(x, y)); break;
    case B_SUB: BIN_ROW(int64_t, nnfx_rt_isub(x, y)); break;
    case B_MUL: BIN_ROW(int64_t, nnfx_rt_imul(x, y)); break;
    case B_DIV: BIN_ROW(int64_t, idiv(c, x, y)); break;
    case B_POW: BIN_ROW(int64_t, ipow(x, y)); break;
    case B_PRELU: BIN_ROW(int64_t, x < 0 ? (int64_t)((uint64_t)x * (uint64_t)y) : x); break;
    case B_BAND: BIN_ROW(int64_t, nnfx_rt_ibitand(x, y)); break;
    case B_BOR: BIN_ROW(int64_t, nnfx_rt_ibitor(x, y)); break;
    case B_BXOR: BIN_ROW(int64_t, nnfx_rt_ibitxor(x, y)); break;
    }
}

/* Narrow integers (int32, uint32, int16, uint16, int8, uint8): computed in int64 and stored
 * modulo 2^bits, as the fixed-width types wrap; Pow goes through double
 * (the exponent may be float) and truncates and saturates into the output
 * type. */
static void store_wrapped(nnfx_tensor *t, int64_t i, int64_t v) {
    switch (t->dtype) {
    case NNFX_U8:
    case NNFX_I8: ((uint8_t *)t->data)[i] = (uint8_t)(uint64_t)v; break;
    case NNFX_I32:
    case NNFX_U32: ((uint32_t *)t->data)[i] = (uint32_t)(uint64_t)v; break;
    case NNFX_I16:
    case NNFX_U16: ((uint16_t *)t->data)[i] = (uint16_t)(uint64_t)v; break;
    default: kern_set(t, i, (double)v); break;
    }
}

static void row_narrow(void *ctx, const int64_t *off, const int64_t *inner, int64_t out_off, int64_t n) {
    bin_ctx *c = ctx;
    for (int64_t i = 0; i < n; i++) {
        int64_t ia = off[0] + i * inner[0], ib = off[1] + i * inner[1];
        if (c->k == B_POW) {
            kern_set(c->to, out_off + i, pow(nnfx_tensor_get(c->ta, ia), nnfx_tensor_get(c->tb, ib)));
            continue;
        }
        int64_t x = core_tensor_get_i64(c->ta, ia), y = core_tensor_get_i64(c->tb, ib), r = 0;
        switch (c->k) {
        /* wrapping (unsigned) arithmetic: uint32 x uint32 passes INT64_MAX */
        case B_ADD: r = nnfx_rt_iadd(x, y); break;
        case B_SUB: r = nnfx_rt_isub(x, y); break;
        case B_MUL: r = nnfx_rt_imul(x, y); break;
        case B_DIV: r = idiv(c, x, y); break;
        case B_PRELU: r = x < 0 ? (int64_t)((uint64_t)x * (uint64_t)y) : x; break;
        case B_BAND: r = nnfx_rt_ibitand(x, y); break;
        case B_BOR: r = nnfx_rt_ibitor(x, y); break;
        case B_BXOR: r = nnfx_rt_ibitxor(x, y); break;
        case B_POW: break;
        }
        store_wrapped(c->to, out_off + i, r);
    }
}

/* float64 / float16: in double, one rounding into the type (the generated
 * C's nnfx_rt_fbinary and nnfx_rt_tpow over the same scalar functions). */
static void row_double(void *ctx, const int64_t *off, const int64_t *inner, int64_t out_off, int64_t n) {
    bin_ctx *c = ctx;
    const int ta = kern_rt_tcode(c->ta->dtype), tb = kern_rt_tcode(c->tb->dtype), to = kern_rt_tcode(c->to->dtype);
    double (*f)(double, double) = c->k == B_ADD   ? nnfx_rt_dadd
                                  : c->k == B_SUB ? nnfx_rt_dsub
                                  : c->k == B_MUL ? nnfx_rt_dmul
                                  : c->k == B_DIV ? nnfx_rt_ddiv
                                                  : pow;
    for (int64_t i = 0; i < n; i++)
        nnfx_rt_st_f(c->o, (long)(out_off + i), to,
                     f(nnfx_rt_ld_f(c->a, (long)(off[0] + i * inner[0]), ta),
                       nnfx_rt_ld_f(c->b, (long)(off[1] + i * inner[1]), tb)));
}

static bool is_narrow_int(nnfx_dtype dt) {
    return dt == NNFX_I32 || dt == NNFX_U32 || dt == NNFX_I16 || dt == NNFX_U16 || dt == NNFX_I8 || dt == NNFX_U8;
}

static nnfx_status binary(bin_kind k, const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                          nnfx_tensor *const *out, nnfx_error *err) {
    if (nin < 2 || nout < 1 || !in[0] || !in[1] || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "binary op needs 2 inputs and 1 output");
    const nnfx_tensor *a = in[0], *b = in[1];
    nnfx_tensor *o = out[0];
    /* Pow alone takes an exponent of another type (integer base only here;
     * kern_pow converts one for a float32 base). */
    bool mixed_pow = k == B_POW && a->dtype == o->dtype && (is_narrow_int(a->dtype) || a->dtype == NNFX_I64) &&
                     (b->dtype == NNFX_F32 || b->dtype == NNFX_F64 || is_narrow_int(b->dtype) || b->dtype == NNFX_I64);
    /* float64 / float16: Pow's exponent may be of any type but uint64 */
    const bool dbl = (a->dtype == NNFX_F64 || a->dtype == NNFX_F16) && k != B_PRELU && o->dtype == a->dtype &&
                     (b->dtype == a->dtype ||
                      (k == B_POW && kern_rt_tcode(b->dtype) >= 0 && b->dtype != NNFX_U64 && b->dtype != NNFX_BOOL));
    if ((a->dtype != b->dtype || a->dtype != o->dtype) && !mixed_pow && !dbl)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "operand dtypes differ (%s, %s -> %s)",
                         nnfx_dtype_name(a->dtype), nnfx_dtype_name(b->dtype), nnfx_dtype_name(o->dtype));
    if (k >= B_BAND && !is_narrow_int(a->dtype) && a->dtype != NNFX_I64)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "%s takes integers (every type but uint64), not %s",
                         nnfx_op_name(nnfx_node_op(n)), nnfx_dtype_name(a->dtype));
    bool narrow = is_narrow_int(a->dtype) || mixed_pow;
    if (a->dtype != NNFX_F32 && !(a->dtype == NNFX_I64 && k != B_PRELU) && !narrow && !dbl)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "%s is not supported for %s", nnfx_op_name(nnfx_node_op(n)),
                         nnfx_dtype_name(a->dtype));
    bin_ctx c = {k, a->data, b->data, o->data, false, a, b, o};
    const nnfx_tensor *ops[2] = {a, b};
    kern_bcast p;
    if (!kern_bcast_plan(&p, o->rank, o->shape, 2, ops))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "inputs do not broadcast to the output shape");
    kern_bcast_run(&p, dbl ? row_double : narrow ? row_narrow : a->dtype == NNFX_F32 ? row_f32 : row_i64, &c);
    if (c.div0) return kern_fail(err, n, NNFX_ERR_RUNTIME, "integer division by zero");
    return NNFX_OK;
}

#define BINARY_KERNEL(fn, kind)                                                                                        \
    nnfx_status fn(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,             \
                   nnfx_error *err) {                                                                                  \
        return binary(kind, n, nin, in, nout, out, err);                                                               \
    }

/* Each: out = a (op) b with numpy broadcasting. */
BINARY_KERNEL(kern_add, B_ADD)
BINARY_KERNEL(kern_sub, B_SUB)
BINARY_KERNEL(kern_mul, B_MUL)
BINARY_KERNEL(kern_div, B_DIV)
BINARY_KERNEL(kern_prelu, B_PRELU)
BINARY_KERNEL(kern_bitwise_and, B_BAND)
BINARY_KERNEL(kern_bitwise_or, B_BOR)
BINARY_KERNEL(kern_bitwise_xor, B_BXOR)

/* BitwiseNot of integers (every type but uint64; the generated C's loop). */
nnfx_status kern_bitwise_not(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                             nnfx_error *err) {
    if (nin < 1 || nout < 1 || !in[0] || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "bitwise_not needs x");
    bool done;
    nnfx_status s = kern_iunary(n, in, out, nnfx_rt_ibitnot, &done, err);
    if (done) return s;
    return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "bitwise_not takes integers (every type but uint64), not %s",
                     nnfx_dtype_name(in[0]->dtype));
}

/* Pow(x, y): float32 base; an exponent of another dtype is converted. */
nnfx_status kern_pow(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                     nnfx_error *err) {
    if (nin >= 2 && in[0] && in[1] && in[0]->dtype == NNFX_F32 && in[1]->dtype != NNFX_F32) {
        nnfx_tensor *y = nnfx_tensor_new(NNFX_F32, in[1]->rank, in[1]->shape, err);
        if (!y) return err ? err->status : NNFX_ERR_NOMEM;
        int64_t cnt = nnfx_tensor_numel(y);
        for (int64_t i = 0; i < cnt; i++)
            ((float *)y->data)[i] = (float)nnfx_tensor_get(in[1], i);
        nnfx_tensor *args[2] = {in[0], y};
        nnfx_status s = binary(B_POW, n, 2, args, nout, out, err);
        nnfx_tensor_release(y);
        return s;
    }
    return binary(B_POW, n, nin, in, nout, out, err);
}

/* ---- comparisons -------------------------------------------------------- */

typedef enum { C_EQ, C_LT, C_GT } cmp_kind;
typedef struct cmp_ctx {
    cmp_kind k;
    const nnfx_tensor *a, *b;
    uint8_t *o;
} cmp_ctx;

static void row_cmp(void *ctx, const int64_t *off, const int64_t *inner, int64_t out_off, int64_t n) {
    cmp_ctx *c = ctx;
    uint8_t *po = c->o + out_off;
    if (c->a->dtype == NNFX_F32) {
        const float *pa = (const float *)c->a->data + off[0], *pb = (const float *)c->b->data + off[1];
        for (int64_t i = 0; i < n; i++) {
            float x = pa[i * inner[0]], y = pb[i * inner[1]];
            po[i] = c->k == C_EQ ? x == y : (c->k == C_LT ? x < y : x > y);
        }
    } else if (c->a->dtype == NNFX_I64) {
        const int64_t *pa = (const int64_t *)c->a->data + off[0], *pb = (const int64_t *)c->b->data + off[1];
        for (int64_t i = 0; i < n; i++) {
            int64_t x = pa[i * inner[0]], y = pb[i * inner[1]];
            po[i] = c->k == C_EQ ? x == y : (c->k == C_LT ? x < y : x > y);
        }
    } else {
        for (int64_t i = 0; i < n; i++) {
            double x = nnfx_tensor_get(c->a, off[0] + i * inner[0]), y = nnfx_tensor_get(c->b, off[1] + i * inner[1]);
            po[i] = c->k == C_EQ ? x == y : (c->k == C_LT ? x < y : x > y);
        }
    }
}

static nnfx_status compare(cmp_kind k, const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                           nnfx_tensor *const *out, nnfx_error *err) {
    if (nin < 2 || nout < 1 || !in[0] || !in[1] || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "comparison needs 2 inputs and 1 output");
    if (in[0]->dtype != in[1]->dtype)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "comparison of %s with %s", nnfx_dtype_name(in[0]->dtype),
                         nnfx_dtype_name(in[1]->dtype));
    if (out[0]->dtype != NNFX_BOOL) return kern_fail(err, n, NNFX_ERR_RUNTIME, "comparison output must be bool");
    cmp_ctx c = {k, in[0], in[1], out[0]->data};
    const nnfx_tensor *ops[2] = {in[0], in[1]};
    kern_bcast p;
    if (!kern_bcast_plan(&p, out[0]->rank, out[0]->shape, 2, ops))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "inputs do not broadcast to the output shape");
    kern_bcast_run(&p, row_cmp, &c);
    return NNFX_OK;
}

/* Each: bool out = a (cmp) b with numpy broadcasting. */
nnfx_status kern_equal(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                       nnfx_error *err) {
    return compare(C_EQ, n, nin, in, nout, out, err);
}
nnfx_status kern_less(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                      nnfx_error *err) {
    return compare(C_LT, n, nin, in, nout, out, err);
}
nnfx_status kern_greater(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                         nnfx_error *err) {
    return compare(C_GT, n, nin, in, nout, out, err);
}

/* ---- where -------------------------------------------------------------- */

typedef struct where_ctx {
    const uint8_t *cond;
    const char *x, *y;
    char *o;
    size_t es;
} where_ctx;

static void row_where(void *ctx, const int64_t *off, const int64_t *inner, int64_t out_off, int64_t n) {
    where_ctx *c = ctx;
    size_t es = c->es;
    for (int64_t i = 0; i < n; i++) {
        bool t = c->cond[off[0] + i * inner[0]] != 0;
        const char *src = t ? c->x + (size_t)(off[1] + i * inner[1]) * es : c->y + (size_t)(off[2] + i * inner[2]) * es;
        memcpy(c->o + (size_t)(out_off + i) * es, src, es);
    }
}

/* Where(cond, X, Y): X where cond else Y, broadcast; any element type. */
nnfx_status kern_where(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                       nnfx_error *err) {
    if (nin < 3 || nout < 1 || !in[0] || !in[1] || !in[2] || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "where needs 3 inputs and 1 output");
    if (in[0]->dtype != NNFX_BOOL && in[0]->dtype != NNFX_U8)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "where condition must be bool, got %s",
                         nnfx_dtype_name(in[0]->dtype));
    if (in[1]->dtype != in[2]->dtype || in[1]->dtype != out[0]->dtype)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "where X and Y dtypes differ (%s, %s)",
                         nnfx_dtype_name(in[1]->dtype), nnfx_dtype_name(in[2]->dtype));
    where_ctx c = {in[0]->data, in[1]->data, in[2]->data, out[0]->data, nnfx_dtype_size(out[0]->dtype)};
    const nnfx_tensor *ops[3] = {in[0], in[1], in[2]};
    kern_bcast p;
    if (!kern_bcast_plan(&p, out[0]->rank, out[0]->shape, 3, ops))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "inputs do not broadcast to the output shape");
    kern_bcast_run(&p, row_where, &c);
    return NNFX_OK;
}
