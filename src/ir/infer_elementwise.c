/* infer_elementwise.c — shape inference of element-wise and broadcasting
 * ops: same-shape ops, numpy broadcasting, comparisons, Where, Cast. */
#include <string.h>

#include "ir/infer_int.h"

/* Output meta = meta of input 0 (dtype and shape, symbols kept). For
 * Softmax, LogSoftmax and LayerNormalization the axis is checked, and
 * LayerNormalization's scale/bias must cover the normalised dims. */
nnfx_status infer_same(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "X");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    nnfx_op op = nnfx_node_op(c->node);
    if (op == NNFX_OP_LP_NORM) {
        const int64_t p = nnfx_node_attr_int(c->node, "p", 2);
        if (p != 1 && p != 2) return infer_fail(c, "lp_normalization p is %lld (ONNX takes 1 or 2)", (long long)p);
        if (x->dtype != NNFX_F32 && x->dtype != NNFX_DTYPE_UNDEFINED)
            return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "lp_normalization of %s values (float32 is taken)",
                                     nnfx_dtype_name(x->dtype));
    }
    if ((op == NNFX_OP_SOFTMAX || op == NNFX_OP_LOG_SOFTMAX || op == NNFX_OP_LAYER_NORM || op == NNFX_OP_LP_NORM) &&
        x->rank >= 0) {
        char b1[200], b2[200];
        int axis;
        int64_t a = nnfx_node_attr_int(c->node, "axis", -1);
        if (!infer_axis(a, x->rank ? x->rank : 1, false, &axis))
            return infer_fail(c, "%s axis %lld out of range for input %s", nnfx_op_name(op), (long long)a,
                              infer_meta_str(x, b1, sizeof b1));
        if (op == NNFX_OP_LAYER_NORM) {
            int64_t norm = infer_prod(x, axis, x->rank);
            for (int i = 1; i < c->nin && i < 3; i++) {
                const nnfx_meta *p = c->in[i];
                if (!p || p->rank < 0) continue;
                int64_t pn = infer_prod(p, 0, p->rank);
                if (norm >= 0 && pn >= 0 && pn != norm && pn != 1)
                    return infer_fail(c,
                                      "layer_normalization %s %s does not match the normalised dims of %s from axis %d",
                                      i == 1 ? "scale" : "bias", infer_meta_str(p, b2, sizeof b2),
                                      infer_meta_str(x, b1, sizeof b1), axis);
            }
        }
    }
    c->out[0] = *x;
    return NNFX_OK;
}

/* Merges one dim pair under numpy broadcasting into *o; false on conflict. */
static bool bcast_dim(const nnfx_dim *a, const nnfx_dim *b, nnfx_dim *o) {
    if (a->value == 1) {
        *o = *b;
        return true;
    }
    if (b->value == 1) {
        *o = *a;
        return true;
    }
    if (a->value >= 0 && b->value >= 0) {
        if (a->value != b->value) return false;
        *o = *ir_sym(a) ? *a : *b;
        return true;
    }
    if (a->value >= 0) { /* b unknown: it must be 1 or equal; assume equal */
        *o = *a;
        return true;
    }
    if (b->value >= 0) {
        *o = *b;
        return true;
    }
    /* both unknown: keep a shared symbol, else unknown */
    if (*ir_sym(a) && ir_sym_eq(a->symbol, b->symbol))
        *o = *a;
    else
        *o = infer_dim(-1);
    return true;
}

/* Broadcasts inputs idx[0..k) into out (dtype dt). */
static nnfx_status bcast_inputs(nnfx_infer_ctx *c, int k, const int *idx, nnfx_dtype dt, nnfx_meta *out) {
    int rank = 0;
    for (int j = 0; j < k; j++) {
        nnfx_status s = infer_need(c, idx[j], "operand");
        if (s) return s;
        if (c->in[idx[j]]->rank < 0) {
            infer_set_unknown(out, dt);
            return NNFX_OK;
        }
        if (c->in[idx[j]]->rank > rank) rank = c->in[idx[j]]->rank;
    }
    infer_set_rank(out, dt, rank);
    for (int i = 0; i < rank; i++)
        out->dims[i] = infer_dim(1);
    for (int j = 0; j < k; j++) {
        const nnfx_meta *m = c->in[idx[j]];
        int off = rank - m->rank;
        for (int i = 0; i < m->rank; i++) {
            nnfx_dim merged;
            if (!bcast_dim(&out->dims[off + i], &m->dims[i], &merged)) {
                char b1[200], b2[200];
                nnfx_meta sofar = *out;
                return infer_fail(c, "cannot broadcast %s with %s (dim %d: %lld vs %lld)",
                                  infer_meta_str(&sofar, b1, sizeof b1), infer_meta_str(m, b2, sizeof b2), off + i,
                                  (long long)out->dims[off + i].value, (long long)m->dims[i].value);
            }
            out->dims[off + i] = merged;
        }
    }
    return NNFX_OK;
}

/* Numpy broadcasting of inputs 0 and 1; dtype of input 0 (the two must
 * agree when both are known). */
nnfx_status infer_broadcast(nnfx_infer_ctx *c) {
    static const int idx[2] = {0, 1};
    nnfx_status s = infer_need(c, 0, "A");
    if (!s) s = infer_need(c, 1, "B");
    if (s) return s;
    nnfx_dtype a = c->in[0]->dtype, b = c->in[1]->dtype;
    if (a != NNFX_DTYPE_UNDEFINED && b != NNFX_DTYPE_UNDEFINED && a != b && nnfx_node_op(c->node) != NNFX_OP_POW)
        return infer_fail(c, "operand dtypes differ (%s vs %s)", nnfx_dtype_name(a), nnfx_dtype_name(b));
    return bcast_inputs(c, 2, idx, a != NNFX_DTYPE_UNDEFINED ? a : b, &c->out[0]);
}

/* Equal / Less / Greater: broadcast, bool output. */
nnfx_status infer_compare(nnfx_infer_ctx *c) {
    static const int idx[2] = {0, 1};
    return bcast_inputs(c, 2, idx, NNFX_BOOL, &c->out[0]);
}

/* Where(cond, X, Y): broadcast of the three, dtype of X. */
nnfx_status infer_where(nnfx_infer_ctx *c) {
    static const int idx[3] = {0, 1, 2};
    nnfx_status s = infer_need(c, 1, "X");
    if (!s) s = infer_need(c, 2, "Y");
    if (s) return s;
    nnfx_dtype x = c->in[1]->dtype, y = c->in[2]->dtype;
    if (x != NNFX_DTYPE_UNDEFINED && y != NNFX_DTYPE_UNDEFINED && x != y)
        return infer_fail(c, "where expects X and Y of one dtype (%s vs %s)", nnfx_dtype_name(x), nnfx_dtype_name(y));
    return bcast_inputs(c, 3, idx, x, &c->out[0]);
}

/* Cast: shape of input 0, dtype from attribute `to` (ONNX codes). */
nnfx_status infer_cast(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "input");
    if (s) return s;
    int64_t to = nnfx_node_attr_int(c->node, "to", 0);
    if (to <= 0 || to > 0x7fffffff || nnfx_dtype_size((nnfx_dtype)to) == 0)
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "cast to unsupported dtype code %lld", (long long)to);
    c->out[0] = *c->in[0];
    c->out[0].dtype = (nnfx_dtype)to;
    return NNFX_OK;
}

/* Min / Max / Sum / Mean: broadcast of every input, which share a dtype. */
nnfx_status infer_variadic(nnfx_infer_ctx *c) {
    int idx[NNFX_MAX_RANK];
    if (c->nin < 1 || c->nin > NNFX_MAX_RANK)
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "%d inputs (1 to %d supported)", c->nin, NNFX_MAX_RANK);
    nnfx_dtype dt = NNFX_DTYPE_UNDEFINED;
    for (int i = 0; i < c->nin; i++) {
        nnfx_status s = infer_need(c, i, "operand");
        if (s) return s;
        idx[i] = i;
        nnfx_dtype d = c->in[i]->dtype;
        if (dt != NNFX_DTYPE_UNDEFINED && d != NNFX_DTYPE_UNDEFINED && d != dt)
            return infer_fail(c, "operand dtypes differ (%s vs %s)", nnfx_dtype_name(dt), nnfx_dtype_name(d));
        if (d != NNFX_DTYPE_UNDEFINED) dt = d;
    }
    return bcast_inputs(c, c->nin, idx, dt, &c->out[0]);
}

/* IsNaN / IsInf: shape of input 0, bool. */
nnfx_status infer_same_bool(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "X");
    if (s) return s;
    c->out[0] = *c->in[0];
    c->out[0].dtype = NNFX_BOOL;
    return NNFX_OK;
}
