/* infer_util.c — helpers for shape inference: error text, meta building,
 * reading known input values, window geometry (conv and pooling). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ir/infer_int.h"

static nnfx_status infer_vfail(const nnfx_infer_ctx *c, nnfx_status s, const char *fmt, va_list ap) {
    char msg[900];
    vsnprintf(msg, sizeof msg, fmt, ap);
    const char *name = c->node ? nnfx_node_name(c->node) : NULL;
    return nnfx_error_set(c->err, s, "node %s: %s", name ? name : "?", msg);
}

nnfx_status infer_fail(const nnfx_infer_ctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    nnfx_status s = infer_vfail(c, NNFX_ERR_SHAPE, fmt, ap);
    va_end(ap);
    return s;
}

nnfx_status infer_fail_status(const nnfx_infer_ctx *c, nnfx_status s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    infer_vfail(c, s, fmt, ap);
    va_end(ap);
    return s;
}

const char *infer_meta_str(const nnfx_meta *m, char *buf, size_t len) {
    if (!len) return buf;
    if (!m) {
        snprintf(buf, len, "(absent)");
        return buf;
    }
    size_t off = (size_t)snprintf(buf, len, "%s", nnfx_dtype_name(m->dtype));
    if (m->rank < 0) {
        if (off < len) snprintf(buf + off, len - off, "[?]");
        return buf;
    }
    if (off < len) off += (size_t)snprintf(buf + off, len - off, "[");
    for (int i = 0; i < m->rank && off < len; i++) {
        const char *sep = i ? ", " : "";
        if (m->dims[i].value >= 0)
            off += (size_t)snprintf(buf + off, len - off, "%s%lld", sep, (long long)m->dims[i].value);
        else if (*ir_sym(&m->dims[i]))
            off += (size_t)snprintf(buf + off, len - off, "%s%s", sep, m->dims[i].symbol);
        else
            off += (size_t)snprintf(buf + off, len - off, "%s?", sep);
    }
    if (off < len) snprintf(buf + off, len - off, "]");
    return buf;
}

nnfx_dim infer_dim(int64_t v) {
    nnfx_dim d;
    memset(&d, 0, sizeof d);
    d.value = v < 0 ? -1 : v;
    return d;
}

void infer_set_unknown(nnfx_meta *m, nnfx_dtype dt) {
    memset(m, 0, sizeof *m);
    m->dtype = dt;
    m->rank = -1;
}

void infer_set_rank(nnfx_meta *m, nnfx_dtype dt, int rank) {
    memset(m, 0, sizeof *m);
    m->dtype = dt;
    m->rank = rank;
    for (int i = 0; i < rank && i < NNFX_MAX_RANK; i++)
        m->dims[i] = infer_dim(-1);
}

void infer_set_dims(nnfx_meta *m, nnfx_dtype dt, int rank, const int64_t *dims) {
    memset(m, 0, sizeof *m);
    m->dtype = dt;
    m->rank = rank;
    for (int i = 0; i < rank && i < NNFX_MAX_RANK; i++)
        m->dims[i] = infer_dim(dims[i]);
}

bool infer_has_rank(const nnfx_infer_ctx *c, int i) { return i < c->nin && c->in[i] && c->in[i]->rank >= 0; }

nnfx_status infer_need(const nnfx_infer_ctx *c, int i, const char *what) {
    if (i >= c->nin || !c->in[i]) return infer_fail(c, "input %d (%s) is required but absent", i, what);
    return NNFX_OK;
}

bool infer_is_int_dtype(nnfx_dtype dt) {
    return dt == NNFX_I64 || dt == NNFX_I32 || dt == NNFX_I8 || dt == NNFX_U8 || dt == NNFX_BOOL || dt == NNFX_I16 ||
           dt == NNFX_U16 || dt == NNFX_U32 || dt == NNFX_U64;
}

bool infer_value_ints(const nnfx_infer_ctx *c, int i, int64_t *v, int max, int *n, bool *too_many) {
    *n = 0;
    if (too_many) *too_many = false;
    if (i >= c->nin || !c->in_value || !c->in_value[i]) return false;
    const nnfx_tensor *t = c->in_value[i];
    int64_t cnt = nnfx_tensor_numel(t);
    if (cnt < 0) return false;
    if (cnt > max) {
        if (too_many) *too_many = true;
        cnt = max;
    }
    /* exact for int64 values beyond 2^53 (INT64_MAX is "to the end" in Slice) */
    for (int64_t k = 0; k < cnt; k++)
        v[k] = core_tensor_get_i64(t, k);
    *n = (int)cnt;
    return true;
}

bool infer_axis(int64_t axis, int rank, bool allow_end, int *out) {
    int64_t r = rank + (allow_end ? 1 : 0);
    if (axis < -r || axis >= r) return false;
    *out = (int)(axis < 0 ? axis + r : axis);
    return true;
}

int64_t infer_prod(const nnfx_meta *m, int lo, int hi) {
    int64_t p = 1;
    for (int i = lo; i < hi; i++) {
        if (m->dims[i].value < 0 || __builtin_mul_overflow(p, m->dims[i].value, &p)) return -1;
    }
    return p;
}

static nnfx_status window_ints(const nnfx_node *n, const char *name, int want, int64_t *dst, int64_t dflt,
                               nnfx_error *err) {
    const nnfx_attr *a = nnfx_node_attr(n, name);
    if (!a || a->kind != NNFX_ATTR_INTS || a->u.ints.n == 0) {
        for (int i = 0; i < want; i++)
            dst[i] = dflt;
        return NNFX_OK;
    }
    if (a->u.ints.n != want)
        return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: attribute %s has %d values, expected %d",
                              nnfx_node_name(n), name, a->u.ints.n, want);
    for (int i = 0; i < want; i++)
        dst[i] = a->u.ints.v[i];
    return NNFX_OK;
}

nnfx_status ir_window_read(const nnfx_node *n, int nsp, const int64_t *k, const int64_t *in_sp, ir_window *w,
                           nnfx_error *err) {
    memset(w, 0, sizeof *w);
    if (nsp < 1 || nsp > NNFX_MAX_RANK - 2)
        return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: %d spatial dims (expected 1 to %d)", nnfx_node_name(n),
                              nsp, NNFX_MAX_RANK - 2);
    w->nsp = nsp;
    for (int i = 0; i < nsp; i++)
        w->k[i] = k[i];
    nnfx_status s;
    if ((s = window_ints(n, "strides", nsp, w->s, 1, err))) return s;
    if ((s = window_ints(n, "dilations", nsp, w->d, 1, err))) return s;
    int64_t pads[2 * NNFX_MAX_RANK];
    if ((s = window_ints(n, "pads", 2 * nsp, pads, 0, err))) return s;
    for (int i = 0; i < nsp; i++) {
        w->pb[i] = pads[i];
        w->pe[i] = pads[i + nsp];
        if (w->s[i] < 1 || w->d[i] < 1 || w->k[i] < 1 || w->pb[i] < 0 || w->pe[i] < 0 || w->s[i] > IR_WINDOW_MAX ||
            w->d[i] > IR_WINDOW_MAX || w->k[i] > IR_WINDOW_MAX || w->pb[i] > IR_WINDOW_MAX || w->pe[i] > IR_WINDOW_MAX)
            return nnfx_error_set(err, NNFX_ERR_SHAPE,
                                  "node %s: bad window for spatial dim %d (kernel %lld, stride %lld, "
                                  "dilation %lld, pads %lld/%lld)",
                                  nnfx_node_name(n), i, (long long)w->k[i], (long long)w->s[i], (long long)w->d[i],
                                  (long long)w->pb[i], (long long)w->pe[i]);
    }
    w->ceil_mode = nnfx_node_attr_int(n, "ceil_mode", 0) != 0;
    const char *ap = nnfx_node_attr_string(n, "auto_pad", "NOTSET");
    if (!ap || !*ap || strcmp(ap, "NOTSET") == 0) return NNFX_OK;
    if (strcmp(ap, "VALID") == 0) {
        for (int i = 0; i < nsp; i++)
            w->pb[i] = w->pe[i] = 0;
        return NNFX_OK;
    }
    bool upper = strcmp(ap, "SAME_UPPER") == 0;
    if (!upper && strcmp(ap, "SAME_LOWER") != 0)
        return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: unknown auto_pad '%s'", nnfx_node_name(n), ap);
    for (int i = 0; i < nsp; i++) {
        w->pb[i] = w->pe[i] = 0;
        if (!in_sp || in_sp[i] < 0 || in_sp[i] > IR_WINDOW_MAX) continue;
        int64_t out = (in_sp[i] + w->s[i] - 1) / w->s[i];
        int64_t total = (out - 1) * w->s[i] + (w->k[i] - 1) * w->d[i] + 1 - in_sp[i];
        if (total < 0) total = 0;
        w->pb[i] = upper ? total / 2 : total - total / 2;
        w->pe[i] = total - w->pb[i];
    }
    return NNFX_OK;
}

int64_t ir_window_out(const ir_window *w, int i, int64_t in) {
    if (in < 0) return -1;
    /* ir_window_read bounds every window value by IR_WINDOW_MAX, so only
     * a huge input extent can overflow here: checked */
    int64_t span, reach;
    if (__builtin_mul_overflow(w->d[i], w->k[i] - 1, &reach) || __builtin_add_overflow(in, w->pb[i] + w->pe[i], &span))
        return -1;
    span = span - reach - 1;
    if (span < 0) return 0;
    int64_t out;
    if (w->ceil_mode) {
        if (span > INT64_MAX - w->s[i]) return -1;
        out = (span + w->s[i] - 1) / w->s[i] + 1;
        /* the last window must start inside the input or the begin padding */
        if ((out - 1) * w->s[i] >= in + w->pb[i]) out--;
    } else {
        out = span / w->s[i] + 1;
    }
    return out;
}
