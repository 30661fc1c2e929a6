/* util.c — kernel helpers: errors, dtype checks, integer inputs and the
 * broadcast iteration plan. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rt/nnfx_rt_scalar.h"
#include "core/core_int.h"
#include "exec/kernels/kernels_int.h"

nnfx_status kern_fail(nnfx_error *err, const nnfx_node *n, nnfx_status s, const char *fmt, ...) {
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *name = n ? nnfx_node_name(n) : NULL;
    return nnfx_error_set(err, s, "node %s: %s", name ? name : "?", msg);
}

nnfx_status kern_need(const nnfx_node *n, const nnfx_tensor *t, nnfx_dtype dt, const char *what, nnfx_error *err) {
    if (!t) return kern_fail(err, n, NNFX_ERR_RUNTIME, "input %s is missing", what);
    if (t->dtype != dt)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "input %s has dtype %s; this kernel takes %s", what,
                         nnfx_dtype_name(t->dtype), nnfx_dtype_name(dt));
    return NNFX_OK;
}

bool kern_ints(const nnfx_tensor *t, int64_t *v, int max, int *cnt) {
    *cnt = 0;
    if (!t) return true;
    int64_t n = nnfx_tensor_numel(t);
    if (n < 0 || n > max) return false;
    for (int64_t i = 0; i < n; i++)
        v[i] = t->dtype == NNFX_I64 ? ((const int64_t *)t->data)[i] : core_tensor_get_i64(t, i);
    *cnt = (int)n;
    return true;
}

nnfx_status kern_check_out(const nnfx_node *n, const nnfx_tensor *out, int rank, const int64_t *shape,
                           nnfx_error *err) {
    bool ok = out && out->rank == rank;
    for (int i = 0; ok && i < rank; i++)
        ok = out->shape[i] == shape[i];
    if (ok) return NNFX_OK;
    char b1[160], b2[160];
    return kern_fail(err, n, NNFX_ERR_RUNTIME, "output buffer %s does not match the computed shape %s",
                     out ? nnfx_shape_str(out->rank, out->shape, b1, sizeof b1) : "(none)",
                     nnfx_shape_str(rank, shape, b2, sizeof b2));
}

void kern_strides(int rank, const int64_t *shape, int64_t *st) {
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; i--) {
        st[i] = s;
        s *= shape[i];
    }
}

bool kern_bcast_plan(kern_bcast *p, int orank, const int64_t *oshape, int k, const nnfx_tensor *const *ops) {
    int64_t shape[NNFX_MAX_RANK], st[KERN_BCAST_MAX + 1][NNFX_MAX_RANK];
    memset(p, 0, sizeof *p);
    p->k = k;
    for (int i = 0; i < orank; i++)
        shape[i] = oshape[i];
    kern_strides(orank, oshape, st[k]); /* the output */
    for (int j = 0; j < k; j++) {
        const nnfx_tensor *t = ops[j];
        int64_t ts[NNFX_MAX_RANK];
        if (t->rank > orank) return false;
        kern_strides(t->rank, t->shape, ts);
        int off = orank - t->rank;
        for (int i = 0; i < orank; i++) {
            int ti = i - off;
            if (ti >= 0 && t->shape[ti] != 1 && t->shape[ti] != oshape[i]) return false;
            st[j][i] = (ti < 0 || t->shape[ti] == 1) ? 0 : ts[ti];
        }
    }
    /* drop size-1 dims, then merge contiguous neighbours */
    int r = 0;
    for (int i = 0; i < orank; i++) {
        if (shape[i] == 1) continue;
        p->shape[r] = shape[i];
        for (int j = 0; j < k; j++)
            p->st[j][r] = st[j][i];
        if (r > 0) {
            bool merge = true;
            for (int j = 0; j < k && merge; j++)
                merge = p->st[j][r - 1] == p->st[j][r] * p->shape[r];
            if (merge) {
                p->shape[r - 1] *= p->shape[r];
                for (int j = 0; j < k; j++)
                    p->st[j][r - 1] = p->st[j][r];
                continue;
            }
        }
        r++;
    }
    if (r == 0) {
        p->shape[0] = 1;
        for (int j = 0; j < k; j++)
            p->st[j][0] = 0;
        r = 1;
    }
    p->rank = r;
    return true;
}

void kern_bcast_run(const kern_bcast *p, kern_row_fn row, void *ctx) {
    int r = p->rank;
    int64_t n = p->shape[r - 1];
    if (n == 0) return;
    for (int i = 0; i < r - 1; i++)
        if (p->shape[i] == 0) return;
    int64_t idx[NNFX_MAX_RANK] = {0}, off[KERN_BCAST_MAX] = {0}, inner[KERN_BCAST_MAX];
    for (int j = 0; j < p->k; j++)
        inner[j] = p->st[j][r - 1];
    int64_t out_off = 0;
    for (;;) {
        row(ctx, off, inner, out_off, n);
        out_off += n;
        int d = r - 2;
        for (; d >= 0; d--) {
            idx[d]++;
            for (int j = 0; j < p->k; j++)
                off[j] += p->st[j][d];
            if (idx[d] < p->shape[d]) break;
            for (int j = 0; j < p->k; j++)
                off[j] -= p->st[j][d] * p->shape[d];
            idx[d] = 0;
        }
        if (d < 0) return;
    }
}

int kern_rt_tcode(nnfx_dtype dt) {
    switch (dt) {
    case NNFX_F32: return 0;
    case NNFX_I64: return 1;
    case NNFX_I32: return 2;
    case NNFX_I8: return 3;
    case NNFX_U8: return 4;
    case NNFX_BOOL: return 5;
    case NNFX_F64: return 6;
    case NNFX_F16: return 7;
    case NNFX_I16: return 8;
    case NNFX_U16: return 9;
    case NNFX_U32: return 10;
    case NNFX_U64: return 11;
    default: return -1;
    }
}

int kern_rt_float_tcode(nnfx_dtype dt) {
    return dt == NNFX_F32 || dt == NNFX_F64 || dt == NNFX_F16 ? kern_rt_tcode(dt) : -1;
}

bool kern_rt_unary_int(nnfx_dtype dt) {
    return dt == NNFX_I64 || dt == NNFX_I32 || dt == NNFX_I16 || dt == NNFX_I8 || dt == NNFX_U32 || dt == NNFX_U16 ||
           dt == NNFX_U8;
}

/* Float-to-integer conversions clamp with nnfx_rt_sat (NaN gives 0) and
 * truncate toward zero, as the generated C's (nnfx_rt_st_f). */
void kern_set(nnfx_tensor *t, int64_t i, double v) {
    switch (t->dtype) {
    case NNFX_F32: ((float *)t->data)[i] = (float)v; break;
    case NNFX_F64: ((double *)t->data)[i] = v; break;
    case NNFX_I64:
        ((int64_t *)t->data)[i] = (int64_t)nnfx_rt_sat(v, -9223372036854775808.0, 9223372036854774784.0);
        break;
    case NNFX_I32: ((int32_t *)t->data)[i] = (int32_t)nnfx_rt_sat(v, -2147483648.0, 2147483647.0); break;
    case NNFX_I8: ((int8_t *)t->data)[i] = (int8_t)nnfx_rt_sat(v, -128, 127); break;
    case NNFX_U8: ((uint8_t *)t->data)[i] = (uint8_t)nnfx_rt_sat(v, 0, 255); break;
    case NNFX_BOOL: ((uint8_t *)t->data)[i] = v != 0; break;
    case NNFX_F16: ((uint16_t *)t->data)[i] = core_double_to_half(v); break;
    case NNFX_U16: ((uint16_t *)t->data)[i] = (uint16_t)nnfx_rt_sat(v, 0, 65535.0); break;
    case NNFX_I16: ((int16_t *)t->data)[i] = (int16_t)nnfx_rt_sat(v, -32768.0, 32767.0); break;
    case NNFX_U32: ((uint32_t *)t->data)[i] = (uint32_t)nnfx_rt_sat(v, 0, 4294967295.0); break;
    case NNFX_U64: ((uint64_t *)t->data)[i] = (uint64_t)nnfx_rt_sat(v, 0, 18446744073709549568.0); break;
    default: break;
    }
}
