/* infer_convt.c — ConvTranspose geometry (shared by inference, the kernel
 * and the cost) and its shape inference. Per spatial dim i:
 *   full = stride * (in - 1) + output_padding + (k - 1) * dilation + 1
 * and the output is full minus the pads, or output_shape (auto_pad or an
 * explicit output_shape set the pads from total = full - out, split as
 * ONNX specifies with floor division). */
#include <string.h>

#include "ir/infer_int.h"

static int64_t floordiv2(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

static nnfx_status ints_attr(const nnfx_node *n, const char *name, int want, int64_t *dst, int64_t dflt,
                             nnfx_error *err) {
    const nnfx_attr *a = nnfx_node_attr(n, name);
    for (int i = 0; i < want; i++)
        dst[i] = dflt;
    if (!a || a->kind != NNFX_ATTR_INTS || a->u.ints.n == 0) return NNFX_OK;
    if (a->u.ints.n != want)
        return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: %s has %d values, expected %d", nnfx_node_name(n), name,
                              a->u.ints.n, want);
    for (int i = 0; i < want; i++)
        dst[i] = a->u.ints.v[i];
    return NNFX_OK;
}

nnfx_status ir_convt_plan(const nnfx_node *n, int nsp, const int64_t *k, const int64_t *in_sp, ir_convt *g,
                          nnfx_error *err) {
    memset(g, 0, sizeof *g);
    if (nsp < 1 || nsp > NNFX_MAX_RANK - 2)
        return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: %d spatial dims (expected 1 to %d)", nnfx_node_name(n),
                              nsp, NNFX_MAX_RANK - 2);
    g->nsp = nsp;
    int64_t op[NNFX_MAX_RANK], pads[2 * NNFX_MAX_RANK], os[NNFX_MAX_RANK + 2];
    nnfx_status s;
    if ((s = ints_attr(n, "strides", nsp, g->s, 1, err)) || (s = ints_attr(n, "dilations", nsp, g->d, 1, err)) ||
        (s = ints_attr(n, "output_padding", nsp, op, 0, err)) || (s = ints_attr(n, "pads", 2 * nsp, pads, 0, err)))
        return s;
    const nnfx_attr *osa = nnfx_node_attr(n, "output_shape");
    bool has_os = osa && osa->kind == NNFX_ATTR_INTS && osa->u.ints.n > 0;
    if (has_os) {
        int m = osa->u.ints.n;
        if (m != nsp && m != nsp + 2)
            return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: output_shape has %d values for %d spatial dims",
                                  nnfx_node_name(n), m, nsp);
        for (int i = 0; i < nsp; i++)
            os[i] = osa->u.ints.v[m - nsp + i];
    }
    const char *ap = nnfx_node_attr_string(n, "auto_pad", "NOTSET");
    bool same = strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0, upper = strcmp(ap, "SAME_UPPER") == 0;
    if (!same && strcmp(ap, "NOTSET") != 0 && strcmp(ap, "VALID") != 0 && ap[0])
        return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: unknown auto_pad '%s'", nnfx_node_name(n), ap);
    bool valid = strcmp(ap, "VALID") == 0;
    for (int i = 0; i < nsp; i++) {
        g->k[i] = k[i];
        if (g->s[i] < 1 || g->d[i] < 1 || k[i] < 1 || op[i] < 0)
            return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: bad conv_transpose window for spatial dim %d",
                                  nnfx_node_name(n), i);
        if (in_sp[i] < 0) {
            g->out[i] = -1;
            g->pb[i] = valid || has_os || same ? 0 : pads[i];
            continue;
        }
        int64_t full = g->s[i] * (in_sp[i] - 1) + op[i] + (k[i] - 1) * g->d[i] + 1;
        if (has_os || same) {
            g->out[i] = has_os ? os[i] : in_sp[i] * g->s[i];
            int64_t total = full - g->out[i];
            g->pb[i] = upper ? floordiv2(total) : total - floordiv2(total);
        } else if (valid) {
            g->out[i] = full;
        } else {
            g->pb[i] = pads[i];
            g->out[i] = full - pads[i] - pads[i + nsp];
        }
        if (g->out[i] < 0)
            return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: conv_transpose output dim %d is negative",
                                  nnfx_node_name(n), i);
    }
    return NNFX_OK;
}

/* ConvTranspose(X [N, C, ...], W [C, M/group, k...], B? [M]) -> [N, M, ...]. */
nnfx_status infer_conv_transpose(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "X");
    if (!s) s = infer_need(c, 1, "W");
    if (s) return s;
    const nnfx_meta *x = c->in[0], *w = c->in[1];
    if (x->rank < 0 || w->rank < 0) {
        infer_set_unknown(&c->out[0], x->dtype);
        return NNFX_OK;
    }
    if (x->rank < 3 || w->rank != x->rank)
        return infer_fail(c, "conv_transpose needs X and W of the same rank >= 3, got %d and %d", x->rank, w->rank);
    int nsp = x->rank - 2;
    int64_t group = nnfx_node_attr_int(c->node, "group", 1), k[NNFX_MAX_RANK], in_sp[NNFX_MAX_RANK];
    if (group < 1) return infer_fail(c, "conv_transpose group must be >= 1");
    if (x->dims[1].value >= 0 && w->dims[0].value >= 0 && x->dims[1].value != w->dims[0].value)
        return infer_fail(c, "conv_transpose input channels %lld differ from weight dim 0 %lld",
                          (long long)x->dims[1].value, (long long)w->dims[0].value);
    for (int i = 0; i < nsp; i++) {
        k[i] = w->dims[2 + i].value >= 0 ? w->dims[2 + i].value : 1;
        in_sp[i] = w->dims[2 + i].value >= 0 ? x->dims[2 + i].value : -1;
    }
    ir_convt g;
    if ((s = ir_convt_plan(c->node, nsp, k, in_sp, &g, c->err))) return s;
    nnfx_meta *o = &c->out[0];
    *o = *x;
    o->dims[1] = infer_dim(w->dims[1].value >= 0 ? w->dims[1].value * group : -1);
    for (int i = 0; i < nsp; i++)
        o->dims[2 + i] = infer_dim(g.out[i]);
    return NNFX_OK;
}
