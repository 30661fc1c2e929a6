/* qplan.c — recognises int8 islands for the compiled plan and prepares
 * their kernels (see qplan.h). Every parameter is checked the way the
 * reference kernels would accept it (finite positive scales, zero points
 * of the value's type, per-channel scales along the output channels, zero
 * weight zero points); anything unusual is left to the reference path,
 * which also reports bad input. */
#include "exec/qplan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/kernels/qelem.h"
#include "exec/kernels/qgemm.h"
#include "ir/infer_int.h"
#include "ir/op_table.h"

struct fx_qop {
    fx_qconv *c;      /* conv / fc, or */
    fx_qpool *pool;   /* max / global average pooling, or */
    bool lut;         /* a 256-entry table (view.lut, view.numel), or */
    bool elem;        /* MUL, ADD, MEAN (view) */
    fx_qop_view view; /* for fx_qop_view_of */
};

static bool is_op(const nnfx_node *n, nnfx_op op) { return n && n->opcode == NNFX_CALL_FUNCTION && n->op == op; }

static const nnfx_node *arg_node(const nnfx_node *n, int i) {
    return i < n->nargs && n->args[i].kind == NNFX_ARG_NODE ? n->args[i].u.node : NULL;
}

static bool arg_absent(const nnfx_node *n, int i) { return i >= n->nargs || n->args[i].kind == NNFX_ARG_NONE; }

static bool sole_user_is(const nnfx_node *n, const nnfx_node *u) {
    return n->nusers == 1 && n->users[0] == u && n->nout == 1;
}

static bool is_q8(nnfx_dtype dt) { return dt == NNFX_U8 || dt == NNFX_I8; }

/* Scale and zero point of a per-tensor Q / DQ node: scale a finite positive
 * float32 scalar, zero point (optional) a scalar of the int8 type dt. */
static bool qparams_scalar(const fx_qenv *env, const nnfx_node *n, nnfx_dtype dt, float *scale, int32_t *zp) {
    const nnfx_node *sn = arg_node(n, 1), *zn = arg_node(n, 2);
    const nnfx_tensor *s = sn ? env->const_of(env->ctx, sn) : NULL;
    if (!s || s->dtype != NNFX_F32 || nnfx_tensor_numel(s) != 1) return false;
    *scale = *(const float *)s->data;
    if (!(*scale > 0.0f) || !isfinite(*scale)) return false;
    *zp = 0;
    if (arg_absent(n, 2)) return dt == NNFX_U8;
    const nnfx_tensor *z = zn ? env->const_of(env->ctx, zn) : NULL;
    if (!z || z->dtype != dt || nnfx_tensor_numel(z) != 1) return false;
    *zp = dt == NNFX_U8 ? *(const uint8_t *)z->data : *(const int8_t *)z->data;
    return true;
}

/* A float scalar argument: a literal or a constant node. */
static bool scalar_arg(const fx_qenv *env, const nnfx_node *n, int i, float *v) {
    if (i >= n->nargs) return false;
    const nnfx_arg *a = &n->args[i];
    if (a->kind == NNFX_ARG_FLOAT) return *v = (float)a->u.f, true;
    if (a->kind == NNFX_ARG_INT) return *v = (float)a->u.i, true;
    if (a->kind != NNFX_ARG_NODE) return false;
    const nnfx_tensor *t = env->const_of(env->ctx, a->u.node);
    if (!t || t->dtype != NNFX_F32 || nnfx_tensor_numel(t) != 1) return false;
    *v = *(const float *)t->data;
    return true;
}

/* Relu or Clip node n over its input: bounds in real units. */
static bool act_bounds(const fx_qenv *env, const nnfx_node *n, float *lo, float *hi) {
    if (is_op(n, NNFX_OP_RELU)) {
        *lo = fmaxf(*lo, 0.0f);
        return true;
    }
    if (!is_op(n, NNFX_OP_CLIP)) return false;
    float a = -INFINITY, b = INFINITY;
    if (!arg_absent(n, 1) && !scalar_arg(env, n, 1, &a)) return false;
    if (!arg_absent(n, 2) && !scalar_arg(env, n, 2, &b)) return false;
    if (isnan(a) || isnan(b) || a > b) return false;
    *lo = fmaxf(*lo, a), *hi = fminf(*hi, b);
    return true;
}

static void add_node(fx_qmatch *m, const nnfx_node *n) {
    if (m->nnodes < FX_QOP_MAX_NODES) m->nodes[m->nnodes++] = n;
}

/* The int8 tensor behind a DequantizeLinear of run-time value: x's node,
 * with per-tensor parameters. */
static const nnfx_node *dq_input(const fx_qenv *env, const nnfx_node *dq, bool *sgn, float *scale, int32_t *zp) {
    if (!is_op(dq, NNFX_OP_DEQUANTIZE_LINEAR) || dq->meta[0].dtype != NNFX_F32) return NULL;
    const nnfx_node *x = arg_node(dq, 0);
    if (!x || env->const_of(env->ctx, x) || x->nout != 1 || !is_q8(x->meta[0].dtype)) return NULL;
    if (!qparams_scalar(env, dq, x->meta[0].dtype, scale, zp)) return NULL;
    *sgn = x->meta[0].dtype == NNFX_I8;
    return x;
}

/* Weights: DequantizeLinear of an int8 constant with zero zero points and
 * per-tensor or per-axis (along `axis` of length m) float32 scales. */
static const nnfx_tensor *dq_weight(const fx_qenv *env, const nnfx_node *dq, int axis, int64_t m,
                                    const nnfx_tensor **scale) {
    if (!is_op(dq, NNFX_OP_DEQUANTIZE_LINEAR)) return NULL;
    const nnfx_node *wn = arg_node(dq, 0), *sn = arg_node(dq, 1), *zn = arg_node(dq, 2);
    const nnfx_tensor *w = wn ? env->const_of(env->ctx, wn) : NULL;
    const nnfx_tensor *s = sn ? env->const_of(env->ctx, sn) : NULL;
    if (!w || w->dtype != NNFX_I8 || !s || s->dtype != NNFX_F32) return NULL;
    int64_t ns = nnfx_tensor_numel(s);
    if (ns != 1) {
        int64_t ax = ir_attr_int(dq, "axis");
        if (ax < 0) ax += w->rank;
        if (s->rank != 1 || ax != axis || ns != m) return NULL;
    }
    for (int64_t i = 0; i < ns; i++) {
        float v = ((const float *)s->data)[i];
        if (!(v > 0.0f) || !isfinite(v)) return NULL;
    }
    if (!arg_absent(dq, 2)) {
        const nnfx_tensor *z = zn ? env->const_of(env->ctx, zn) : NULL;
        if (!z || z->dtype != NNFX_I8 || nnfx_tensor_numel(z) != ns) return NULL;
        for (int64_t i = 0; i < ns; i++)
            if (((const int8_t *)z->data)[i]) return NULL;
    }
    *scale = s;
    return w;
}

/* A float32 bias of m values (shape [m] or [1, m]), or none. */
static bool bias_of(const fx_qenv *env, const nnfx_node *n, int i, int64_t m, const float **b) {
    *b = NULL;
    if (arg_absent(n, i)) return true;
    const nnfx_node *bn = arg_node(n, i);
    const nnfx_tensor *t = bn ? env->const_of(env->ctx, bn) : NULL;
    if (!t || t->dtype != NNFX_F32 || nnfx_tensor_numel(t) != m || t->shape[t->rank - 1] != m) return false;
    *b = t->data;
    return true;
}

static fx_qop *wrap(fx_qconv *c, nnfx_error *err) {
    fx_qop *op = c ? calloc(1, sizeof *op) : NULL;
    if (!op) {
        fx_qconv_free(c);
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory preparing an int8 kernel");
        return NULL;
    }
    op->c = c;
    return op;
}

/* Q(MaxPool | GlobalAveragePool(DQ(x))): pooling on the int8 values. */
static fx_qop *prepare_pool(const fx_qenv *env, const nnfx_node *f, const fx_qparams *q, fx_qmatch *m,
                            nnfx_error *err) {
    const nnfx_node *dqx = arg_node(f, 0);
    fx_qpool_geom g = {0};
    const nnfx_node *x = dqx ? dq_input(env, dqx, &g.x_signed, &g.x_scale, &g.x_zp) : NULL;
    if (!x || f->nargs != 1 || f->nout != 1 || !nnfx_meta_is_static(&x->meta[0]) || !nnfx_meta_is_static(&f->meta[0]) ||
        x->meta[0].rank != 4 || f->meta[0].rank != 4)
        return NULL;
    const nnfx_meta *xm = &x->meta[0], *ym = &f->meta[0];
    g.n = xm->dims[0].value, g.c = xm->dims[1].value, g.h = xm->dims[2].value, g.w = xm->dims[3].value;
    g.oh = ym->dims[2].value, g.ow = ym->dims[3].value;
    g.y_signed = q->y_signed, g.y_scale = q->y_scale, g.y_zp = q->y_zp;
    if (f->op == NNFX_OP_GLOBAL_AVERAGE_POOL) {
        g.global_avg = true;
        if (g.oh != 1 || g.ow != 1) return NULL;
    } else {
        const nnfx_attr *ks = nnfx_node_attr(f, "kernel_shape");
        if (!ks || ks->kind != NNFX_ATTR_INTS || ks->u.ints.n != 2 || ir_attr_int(f, "storage_order")) return NULL;
        int64_t k[2] = {ks->u.ints.v[0], ks->u.ints.v[1]}, in_sp[2] = {g.h, g.w};
        ir_window win;
        nnfx_error werr = {0};
        if (ir_window_read(f, 2, k, in_sp, &win, &werr)) return NULL;
        g.kh = win.k[0], g.kw = win.k[1], g.sh = win.s[0], g.sw = win.s[1], g.dh = win.d[0], g.dw = win.d[1];
        g.ph = win.pb[0], g.pw = win.pb[1];
        if (g.kh < 1 || g.kw < 1 || g.sh < 1 || g.sw < 1 || g.dh < 1 || g.dw < 1 || g.oh < 1 || g.ow < 1) return NULL;
    }
    if (ym->dims[0].value != g.n || ym->dims[1].value != g.c) return NULL;
    fx_qop *op = calloc(1, sizeof *op);
    if (op) op->pool = fx_qpool_new(&g);
    if (!op || !op->pool) {
        free(op);
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory preparing an int8 kernel");
        return NULL;
    }
    op->view.kind = FX_QOP_POOL, op->view.pool = g;
    m->x = x;
    m->dq[0] = dqx;
    return op;
}

/* Conv / Gemm / MatMul node f reading DequantizeLinear(x): prepares the
 * kernel with the epilogue in q. */
static fx_qop *prepare(const fx_qenv *env, const nnfx_node *f, fx_qparams *q, fx_qmatch *m, nnfx_error *err) {
    const nnfx_node *dqx = arg_node(f, 0);
    const nnfx_node *x = dqx ? dq_input(env, dqx, &q->x_signed, &q->x_scale, &q->x_zp) : NULL;
    if (!x || !nnfx_meta_is_static(&x->meta[0]) || !nnfx_meta_is_static(&f->meta[0])) return NULL;
    /* int8 in and out (TFLite's convention): TFLite's fixed-point requantization, the meaning the
     * integer-only generated C shares */
    q->fixed = q->x_signed && q->y_signed && !q->mid && !q->res;
    const nnfx_node *dqw = arg_node(f, 1);
    const nnfx_tensor *ws = NULL, *w = NULL;
    const nnfx_meta *xm = &x->meta[0], *ym = &f->meta[0];
    if (f->op == NNFX_OP_CONV) {
        if (xm->rank != 4 || ym->rank != 4 || f->nargs > 3) return NULL;
        int64_t mo = ym->dims[1].value;
        w = dqw ? dq_weight(env, dqw, 0, mo, &ws) : NULL;
        if (!w || w->rank != 4 || w->shape[0] != mo || !bias_of(env, f, 2, mo, &q->bias)) return NULL;
        int64_t ksz[2] = {w->shape[2], w->shape[3]}, in_sp[2] = {xm->dims[2].value, xm->dims[3].value};
        ir_window win;
        nnfx_error werr = {0};
        if (ir_window_read(f, 2, ksz, in_sp, &win, &werr)) return NULL;
        fx_qconv_geom g = {0};
        g.n = xm->dims[0].value, g.c = xm->dims[1].value, g.h = in_sp[0], g.w = in_sp[1], g.m = mo;
        g.kh = win.k[0], g.kw = win.k[1], g.sh = win.s[0], g.sw = win.s[1], g.dh = win.d[0], g.dw = win.d[1];
        g.ph = win.pb[0], g.pw = win.pb[1];
        g.group = ir_attr_int(f, "group");
        g.oh = ym->dims[2].value, g.ow = ym->dims[3].value;
        if (g.group < 1 || g.c % g.group || g.m % g.group || w->shape[1] != g.c / g.group || g.oh <= 0 || g.ow <= 0 ||
            g.oh != ir_window_out(&win, 0, g.h) || g.ow != ir_window_out(&win, 1, g.w))
            return NULL;
        q->w_scale = ws->data, q->w_scale_n = nnfx_tensor_numel(ws);
        m->x = x;
        m->dq[0] = dqx;
        fx_qop *op = wrap(fx_qconv_new(&g, w->data, q), err);
        if (op) {
            fx_qop_view v = {FX_QOP_CONV, g, 0, 0, 0, w->data, false, q->x_signed, q->x_zp, fx_qconv_epi(op->c), {0}};
            op->view = v;
        }
        return op;
    }
    /* Gemm (alpha = beta = 1, A not transposed) and MatMul with 2-d weights */
    int64_t k = xm->dims[xm->rank - 1].value, mo = ym->dims[ym->rank - 1].value, rows = 1;
    for (int d = 0; d + 1 < xm->rank; d++)
        rows *= xm->dims[d].value;
    bool trans = false;
    if (f->op == NNFX_OP_GEMM) {
        if (xm->rank != 2 || ir_attr_int(f, "transA") || ir_attr_float(f, "alpha") != 1.0 ||
            ir_attr_float(f, "beta") != 1.0)
            return NULL;
        trans = ir_attr_int(f, "transB") != 0;
        if (!bias_of(env, f, 2, mo, &q->bias)) return NULL;
    } else {
        if (xm->rank < 2 || f->nargs != 2) return NULL;
    }
    w = dqw ? dq_weight(env, dqw, trans ? 0 : 1, mo, &ws) : NULL;
    if (!w || w->rank != 2 || w->shape[trans ? 1 : 0] != k || w->shape[trans ? 0 : 1] != mo) return NULL;
    int8_t *wt = malloc((size_t)(k * mo));
    if (!wt) return wrap(NULL, err);
    const int8_t *wd = w->data;
    for (int64_t i = 0; i < mo; i++)
        for (int64_t j = 0; j < k; j++)
            wt[i * k + j] = trans ? wd[i * k + j] : wd[j * mo + i];
    q->w_scale = ws->data, q->w_scale_n = nnfx_tensor_numel(ws);
    m->x = x;
    m->dq[0] = dqx;
    fx_qconv *c = fx_qfc_new(rows, k, mo, wt, q);
    free(wt);
    fx_qop *op = wrap(c, err);
    if (op) {
        fx_qop_view v = {FX_QOP_FC, {0}, rows, k, mo, w->data, !trans, q->x_signed, q->x_zp, fx_qconv_epi(c), {0}};
        op->view = v;
    }
    return op;
}

/* ---- single-input element-wise regions as 256-entry tables ---------------- */

/* Whether n may be inside a table region: an element-wise float op of one
 * output (the broadcasting arithmetic ops with scalar constants only,
 * checked by the caller). */
static bool lut_op(const nnfx_node *n) {
    if (!n || n->opcode != NNFX_CALL_FUNCTION || n->nout != 1 || n->meta[0].dtype != NNFX_F32) return false;
    if (n->op == NNFX_OP_ADD || n->op == NNFX_OP_SUB || n->op == NNFX_OP_MUL || n->op == NNFX_OP_DIV) return true;
    return (ir_op_info(n->op)->flags & NNFX_F_ELEMENTWISE) != 0;
}

typedef struct lut_eval {
    const fx_qenv *env;
    const nnfx_node *const *nodes; /* evaluated region nodes (and the DQ) */
    nnfx_tensor **vals;
    int n;
} lut_eval;

static const nnfx_tensor *lut_value_of(void *ctx, const nnfx_node *a) {
    lut_eval *e = ctx;
    for (int i = 0; i < e->n; i++)
        if (e->nodes[i] == a) return e->vals[i];
    return e->env->const_of(e->env->ctx, a);
}

static int region_index(const nnfx_node *const *r, int nr, const nnfx_node *n) {
    for (int i = 0; i < nr; i++)
        if (r[i] == n) return i;
    return -1;
}

/* Q(region(DQ(x))) where the region is element-wise float ops whose only
 * run-time input is one per-tensor DequantizeLinear: y is a function of
 * one int8 value, so the plan computes it once for each of the 256 inputs
 * with the interpreter's own kernels (DQ, each op, Q: nnfx_op_run) and runs
 * a table lookup, equal to DQ -> float ops -> Q at every input. */
static fx_qop *prepare_lut(const fx_qenv *env, const nnfx_node *qn, fx_qmatch *m, nnfx_error *err) {
    const nnfx_node *region[FX_QOP_MAX_NODES], *dq = NULL;
    int nr = 0;
    region[nr++] = arg_node(qn, 0);
    if (!lut_op(region[0])) return NULL;
    for (int k = 0; k < nr; k++) { /* grows while scanning */
        const nnfx_node *n = region[k];
        if (env->claimed(env->ctx, n) || !nnfx_meta_is_static(&n->meta[0])) return NULL;
        for (int u = 0; u < n->nusers; u++) /* every reader inside (or the final Q) */
            if (n->users[u] != qn && region_index(region, nr, n->users[u]) < 0) return NULL;
        for (int i = 0; i < n->nargs; i++) {
            const nnfx_node *a = arg_node(n, i);
            if (!a) continue; /* a literal or absent */
            const nnfx_tensor *t = env->const_of(env->ctx, a);
            if (t) {
                if (nnfx_tensor_numel(t) != 1) return NULL; /* a tensor operand: not one function of x */
                continue;
            }
            if (is_op(a, NNFX_OP_DEQUANTIZE_LINEAR)) {
                if (dq && dq != a) return NULL;
                dq = a;
                continue;
            }
            if (!lut_op(a)) return NULL;
            if (region_index(region, nr, a) < 0) {
                if (nr == FX_QOP_MAX_NODES - 1) return NULL;
                region[nr++] = a;
            }
        }
    }
    bool xs;
    float xscale;
    int32_t xzp;
    const nnfx_node *x = dq ? dq_input(env, dq, &xs, &xscale, &xzp) : NULL;
    if (!x || !nnfx_meta_is_static(&x->meta[0])) return NULL;
    int64_t numel = nnfx_meta_numel(&x->meta[0]);
    if (nnfx_meta_numel(&qn->meta[0]) != numel || !nnfx_meta_is_static(&qn->meta[0])) return NULL;
    for (int k = 0; k < nr; k++)
        if (nnfx_meta_numel(&region[k]->meta[0]) != numel) return NULL; /* broadcast that grows: not element-wise */
    /* evaluate DQ, the region (in an order where arguments come first) and Q on the 256 inputs */
    fx_qop *op = calloc(1, sizeof *op);
    int8_t *tab = malloc(256);
    const nnfx_node *order[FX_QOP_MAX_NODES + 1];
    nnfx_tensor *vals[FX_QOP_MAX_NODES + 1] = {0};
    int64_t n256 = 256;
    nnfx_tensor *xt = nnfx_tensor_new(x->meta[0].dtype, 1, &n256, NULL);
    bool ok = op && tab && xt, oom = !ok;
    if (ok)
        for (int v = 0; v < 256; v++)
            ((uint8_t *)xt->data)[v] = (uint8_t)(xs ? v ^ 0x80 : v); /* entry v: int8 v - 128, uint8 v */
    lut_eval ev = {env, order, vals, 0};
    int done = 0;
    bool placed[FX_QOP_MAX_NODES] = {0};
    /* DQ first: its argument 0 (x) is the tensor of the 256 int8 inputs */
    order[ev.n] = x, vals[ev.n++] = xt, xt = NULL;
    const nnfx_node *todo[FX_QOP_MAX_NODES + 1];
    int nt = 0;
    todo[nt++] = dq;
    while (ok && done < nr) { /* region nodes whose node arguments are all known */
        int before = done;
        for (int k = 0; k < nr; k++) {
            if (placed[k]) continue;
            bool ready = true;
            for (int i = 0; i < region[k]->nargs && ready; i++) {
                const nnfx_node *a = arg_node(region[k], i);
                int j = a ? region_index(region, nr, a) : -1;
                if (j >= 0 && !placed[j]) ready = false;
            }
            if (ready) placed[k] = true, todo[nt++] = region[k], done++;
        }
        if (done == before) ok = false; /* a cycle cannot happen in a graph; be safe */
    }
    todo[nt++] = qn;
    for (int k = 0; ok && k < nt; k++) {
        ir_const_in ci;
        nnfx_value_set out = {0};
        nnfx_error e2 = {0};
        nnfx_status st = ir_const_in_gather(&ci, todo[k], lut_value_of, &ev, &e2);
        if (!st && !ci.known) st = NNFX_ERR_UNSUPPORTED;
        if (!st) st = nnfx_op_run(todo[k], ci.n, ci.t, &out, &e2);
        ir_const_in_release(&ci);
        if (st || out.num != 1 || !out.t[0] || nnfx_tensor_numel(out.t[0]) != 256) {
            for (int j = 0; j < out.num; j++)
                nnfx_tensor_release(out.t[j]);
            oom = st == NNFX_ERR_NOMEM;
            ok = false;
            break;
        }
        order[ev.n] = todo[k], vals[ev.n++] = out.t[0];
    }
    if (ok) {
        const nnfx_tensor *y = vals[ev.n - 1];
        if (y->dtype != qn->meta[0].dtype || !is_q8(y->dtype))
            ok = false;
        else
            memcpy(tab, y->data, 256);
    }
    for (int k = 0; k < ev.n; k++)
        nnfx_tensor_release(vals[k]);
    nnfx_tensor_release(xt);
    if (!ok) {
        free(tab), free(op);
        if (oom) nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory preparing an int8 table");
        return NULL;
    }
    op->lut = true;
    op->view.kind = FX_QOP_LUT;
    op->view.lut = tab;
    op->view.numel = numel;
    op->view.x_signed = xs;
    op->view.y_signed = qn->meta[0].dtype == NNFX_I8;
    m->x = x;
    m->dq[0] = dq;
    for (int k = 0; k < nr; k++)
        add_node(m, region[k]);
    add_node(m, qn);
    return op;
}

/* ---- int8 Mul / Add / Sub and means in fixed point (TFLite's) ------------- */

static fx_qop *elem_op(const fx_qop_view *v, nnfx_error *err) {
    fx_qop *op = calloc(1, sizeof *op);
    if (!op) {
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory preparing an int8 op");
        return NULL;
    }
    op->elem = true;
    op->view = *v;
    return op;
}

/* Q(f(DQ(a), DQ(b))), f Mul, Add or Sub of two int8 values of one shape
 * (no broadcast), per-tensor parameters, int8 output. */
static fx_qop *prepare_binary(const fx_qenv *env, const nnfx_node *qn, const nnfx_node *f, fx_qmatch *m,
                              nnfx_error *err) {
    if (f->nargs != 2 || qn->meta[0].dtype != NNFX_I8) return NULL;
    const nnfx_node *da = arg_node(f, 0), *db = arg_node(f, 1);
    bool sa_, sb_;
    float sa, sb, sy;
    int32_t za, zb, zy;
    const nnfx_node *a = da ? dq_input(env, da, &sa_, &sa, &za) : NULL;
    const nnfx_node *b = db ? dq_input(env, db, &sb_, &sb, &zb) : NULL;
    if (!a || !b || !sa_ || !sb_ || !qparams_scalar(env, qn, NNFX_I8, &sy, &zy)) return NULL;
    const nnfx_meta *ma = &a->meta[0], *mb = &b->meta[0], *mf = &f->meta[0];
    if (!nnfx_meta_is_static(ma) || !nnfx_meta_is_static(mb) || !nnfx_meta_is_static(mf) || ma->rank != mb->rank ||
        ma->rank != mf->rank)
        return NULL;
    for (int d = 0; d < ma->rank; d++)
        if (ma->dims[d].value != mb->dims[d].value || ma->dims[d].value != mf->dims[d].value) return NULL;
    fx_qop_view v = {0};
    v.numel = nnfx_meta_numel(ma), v.a_zp = za, v.b_zp = zb, v.y_zp = zy;
    v.x_signed = v.y_signed = true;
    if (f->op == NNFX_OP_MUL) {
        v.kind = FX_QOP_MUL;
        nnfx_rt_qf_quantize_multiplier((double)sa * (double)sb / (double)sy, &v.qm, &v.shift);
    } else {
        v.kind = FX_QOP_ADD;
        v.sub = f->op == NNFX_OP_SUB;
        nnfx_rt_qf_quantize_add(sa, za, sb, zb, sy, zy, -128, 127, &v.add);
    }
    fx_qop *op = elem_op(&v, err);
    if (!op) return NULL;
    m->x = a, m->res = b, m->dq[0] = da, m->dq[1] = db == da ? NULL : db;
    add_node(m, f);
    add_node(m, qn);
    return op;
}

/* Q(ReduceMean | GlobalAveragePool(DQ(x))) on int8 values over a trailing
 * block of x's dims: the int32 sum of x - x_zp, one fixed-point
 * requantization by x_scale / (y_scale * count). */
static fx_qop *prepare_mean(const fx_qenv *env, const nnfx_node *qn, const nnfx_node *f, fx_qmatch *m,
                            nnfx_error *err) {
    if (qn->meta[0].dtype != NNFX_I8) return NULL;
    const nnfx_node *dx = arg_node(f, 0);
    bool xs_;
    float sx, sy;
    int32_t zx, zy;
    const nnfx_node *x = dx ? dq_input(env, dx, &xs_, &sx, &zx) : NULL;
    if (!x || !xs_ || !qparams_scalar(env, qn, NNFX_I8, &sy, &zy) || !nnfx_meta_is_static(&x->meta[0])) return NULL;
    const nnfx_meta *xm = &x->meta[0];
    int r = xm->rank;
    bool red[NNFX_MAX_RANK] = {0};
    if (f->op == NNFX_OP_GLOBAL_AVERAGE_POOL || f->op == NNFX_OP_AVERAGE_POOL) {
        if (r < 3) return NULL;
        if (f->op == NNFX_OP_AVERAGE_POOL) { /* a window over the whole plane, no padding: the global mean */
            const nnfx_attr *ks = nnfx_node_attr(f, "kernel_shape"), *pads = nnfx_node_attr(f, "pads");
            const nnfx_attr *ap = nnfx_node_attr(f, "auto_pad");
            if (!ks || ks->kind != NNFX_ATTR_INTS || ks->u.ints.n != r - 2) return NULL;
            for (int d = 2; d < r; d++)
                if (ks->u.ints.v[d - 2] != xm->dims[d].value || f->meta[0].dims[d].value != 1) return NULL;
            for (int i = 0; pads && pads->kind == NNFX_ATTR_INTS && i < pads->u.ints.n; i++)
                if (pads->u.ints.v[i]) return NULL;
            if (ap && ap->kind == NNFX_ATTR_STRING && strcmp(ap->u.s, "NOTSET") != 0 && strcmp(ap->u.s, "VALID") != 0)
                return NULL;
        }
        for (int d = 2; d < r; d++)
            red[d] = true;
    } else {
        int64_t ax[NNFX_MAX_RANK];
        int nax = 0;
        const nnfx_attr *at = nnfx_node_attr(f, "axes");
        if (at && at->kind == NNFX_ATTR_INTS && at->u.ints.n <= NNFX_MAX_RANK) {
            nax = (int)at->u.ints.n;
            for (int i = 0; i < nax; i++)
                ax[i] = at->u.ints.v[i];
        } else if (!arg_absent(f, 1)) {
            const nnfx_node *an = arg_node(f, 1);
            const nnfx_tensor *t = an ? env->const_of(env->ctx, an) : NULL;
            if (!t || t->dtype != NNFX_I64 || nnfx_tensor_numel(t) > NNFX_MAX_RANK) return NULL;
            nax = (int)nnfx_tensor_numel(t);
            for (int i = 0; i < nax; i++)
                ax[i] = ((const int64_t *)t->data)[i];
        }
        if (nax == 0) {
            if (ir_attr_int(f, "noop_with_empty_axes")) return NULL;
            for (int d = 0; d < r; d++)
                red[d] = true;
        }
        for (int i = 0; i < nax; i++) {
            int64_t a = ax[i] < 0 ? ax[i] + r : ax[i];
            if (a < 0 || a >= r) return NULL;
            red[a] = true;
        }
    }
    int first = r;
    for (int d = r - 1; d >= 0 && red[d]; d--)
        first = d;
    for (int d = 0; d < first; d++)
        if (red[d]) return NULL; /* not a trailing block */
    fx_qop_view v = {0};
    v.kind = FX_QOP_MEAN;
    v.outer = 1, v.inner = 1;
    for (int d = 0; d < r; d++)
        *(d < first ? &v.outer : &v.inner) *= xm->dims[d].value;
    if (v.inner < 1 || v.inner > (1 << 23) || nnfx_meta_numel(&qn->meta[0]) != v.outer) return NULL;
    v.a_zp = zx, v.y_zp = zy, v.x_signed = v.y_signed = true;
    nnfx_rt_qf_quantize_multiplier((double)sx / ((double)sy * (double)v.inner), &v.qm, &v.shift);
    fx_qop *op = elem_op(&v, err);
    if (!op) return NULL;
    m->x = x, m->dq[0] = dx;
    add_node(m, f);
    add_node(m, qn);
    return op;
}

/* Q(Reshape | Flatten | Squeeze | Unsqueeze(DQ(x))) with the same type,
 * scale and zero point on both sides: the int8 bytes, moved. */
static fx_qop *prepare_move(const fx_qenv *env, const nnfx_node *qn, const nnfx_node *f, fx_qmatch *m,
                            nnfx_error *err) {
    const nnfx_node *dx = arg_node(f, 0);
    bool xs, ys = qn->meta[0].dtype == NNFX_I8;
    float sx, sy;
    int32_t zx, zy;
    const nnfx_node *x = dx ? dq_input(env, dx, &xs, &sx, &zx) : NULL;
    if (!x || !qparams_scalar(env, qn, qn->meta[0].dtype, &sy, &zy) || xs != ys || sx != sy || zx != zy ||
        !nnfx_meta_is_static(&x->meta[0]) || !nnfx_meta_is_static(&qn->meta[0]) ||
        nnfx_meta_numel(&x->meta[0]) != nnfx_meta_numel(&qn->meta[0]))
        return NULL;
    for (int i = 1; i < f->nargs; i++) /* a shape or axes: constants only */
        if (!arg_absent(f, i) && f->args[i].kind == NNFX_ARG_NODE && !env->const_of(env->ctx, f->args[i].u.node))
            return NULL;
    fx_qop_view v = {0};
    v.kind = FX_QOP_MOVE;
    v.numel = nnfx_meta_numel(&x->meta[0]);
    v.x_signed = v.y_signed = xs;
    fx_qop *op = elem_op(&v, err);
    if (!op) return NULL;
    m->x = x, m->dq[0] = dx;
    add_node(m, f);
    add_node(m, qn);
    return op;
}

/* dq = DequantizeLinear(Q1(g)), optionally with PyTorch's Cast to the same
 * type between Q1 and dq, and with a Relu / Clip between g and Q1: q's
 * intermediate requantization (mid) from Q1's parameters and the
 * activation's bounds. Appends dq, Q1, the Cast and the activation to
 * chain (room for 4) and returns g (not checked further), or NULL with
 * q's mid fields unchanged when the chain is not of that form or some node
 * in it has another reader or is claimed. */
static const nnfx_node *mid_chain(const fx_qenv *env, const nnfx_node *dq, fx_qparams *q, const nnfx_node **chain,
                                  int *nc) {
    const nnfx_node *q1 = arg_node(dq, 0), *cast = NULL;
    float s1, sd;
    int32_t z1, zd;
    if (is_op(q1, NNFX_OP_CAST) && q1->nout == 1 && sole_user_is(q1, dq) && !env->claimed(env->ctx, q1)) {
        cast = q1;
        q1 = arg_node(cast, 0);
        if (!q1 || q1->meta[0].dtype != cast->meta[0].dtype) return NULL;
    }
    if (!is_op(q1, NNFX_OP_QUANTIZE_LINEAR) || !sole_user_is(q1, cast ? cast : dq) || !is_q8(q1->meta[0].dtype) ||
        env->claimed(env->ctx, q1))
        return NULL;
    if (!qparams_scalar(env, q1, q1->meta[0].dtype, &s1, &z1) ||
        !qparams_scalar(env, dq, q1->meta[0].dtype, &sd, &zd) || s1 != sd || z1 != zd)
        return NULL;
    const nnfx_node *g = arg_node(q1, 0);
    if (!g || !sole_user_is(g, q1) || env->claimed(env->ctx, g)) return NULL;
    float lo = -INFINITY, hi = INFINITY;
    int n0 = *nc;
    chain[(*nc)++] = dq, chain[(*nc)++] = q1;
    if (cast) chain[(*nc)++] = cast;
    if (act_bounds(env, g, &lo, &hi)) {
        const nnfx_node *h = arg_node(g, 0);
        if (!h || !sole_user_is(h, g) || env->claimed(env->ctx, h)) {
            *nc = n0;
            return NULL;
        }
        chain[(*nc)++] = g;
        g = h;
    }
    q->mid = true, q->mid_scale = s1, q->mid_zp = z1, q->mid_signed = q1->meta[0].dtype == NNFX_I8;
    q->mid_lo = lo, q->mid_hi = hi;
    return g;
}

/* Q2(act(DQ1(Q1([act1](g))))), act a Relu or Clip and g a Conv, Gemm or
 * MatMul reading uint8 values or requantizing to uint8 (the float
 * epilogue): one kernel whose epilogue requantizes to Q1 (mid) and then to
 * Q2 with act's bounds (the int8 -> float -> int8 step between them, which
 * would otherwise be a table pass of its own, folded in). q holds Q2's
 * parameters. */
static fx_qop *prepare_act_mid(const fx_qenv *env, const nnfx_node *qn, const nnfx_node *act, fx_qparams *q,
                               fx_qmatch *m, nnfx_error *err) {
    const nnfx_node *dq = arg_node(act, 0), *chain[4];
    int nc = 0;
    if (!is_op(dq, NNFX_OP_DEQUANTIZE_LINEAR) || !sole_user_is(dq, act) || env->claimed(env->ctx, dq) ||
        dq->meta[0].dtype != NNFX_F32)
        return NULL;
    fx_qparams qa = *q;
    if (!act_bounds(env, act, &qa.act_lo, &qa.act_hi)) return NULL;
    const nnfx_node *g = mid_chain(env, dq, &qa, chain, &nc);
    if (!g || (!is_op(g, NNFX_OP_CONV) && !is_op(g, NNFX_OP_GEMM) && !is_op(g, NNFX_OP_MATMUL)) ||
        g->meta[0].dtype != NNFX_F32)
        return NULL;
    /* int8 in and int8 Q1: the op keeps TFLite's fixed-point requantization
     * and the activation its integer table (what integer-only C needs) */
    bool xs;
    float xsc;
    int32_t xz;
    const nnfx_node *dqx = arg_node(g, 0);
    if (!dqx || !dq_input(env, dqx, &xs, &xsc, &xz) || (xs && qa.mid_signed)) return NULL;
    fx_qop *op = prepare(env, g, &qa, m, err);
    if (!op) return NULL;
    add_node(m, g);
    for (int i = 0; i < nc; i++)
        add_node(m, chain[i]);
    add_node(m, act);
    add_node(m, qn);
    return op;
}

fx_qop *fx_qop_match(const nnfx_node *qn, const fx_qenv *env, fx_qmatch *m, nnfx_error *err) {
    memset(m, 0, sizeof *m);
    if (!is_op(qn, NNFX_OP_QUANTIZE_LINEAR) || env->claimed(env->ctx, qn) || !is_q8(qn->meta[0].dtype)) return NULL;
    fx_qparams q = {0};
    q.threads = env->threads;
    q.act_lo = q.mid_lo = -INFINITY, q.act_hi = q.mid_hi = INFINITY;
    q.y_signed = qn->meta[0].dtype == NNFX_I8;
    if (!qparams_scalar(env, qn, qn->meta[0].dtype, &q.y_scale, &q.y_zp)) return NULL;
    const nnfx_node *cur = arg_node(qn, 0);
    if (!cur || !sole_user_is(cur, qn) || env->claimed(env->ctx, cur) || cur->meta[0].dtype != NNFX_F32) return NULL;
    if (is_op(cur, NNFX_OP_RESHAPE) || is_op(cur, NNFX_OP_FLATTEN) || is_op(cur, NNFX_OP_SQUEEZE) ||
        is_op(cur, NNFX_OP_UNSQUEEZE)) {
        fx_qop *op = prepare_move(env, qn, cur, m, err);
        if (op || (err && err->status)) return op;
        memset(m, 0, sizeof *m);
    }
    if (is_op(cur, NNFX_OP_GLOBAL_AVERAGE_POOL) && qn->meta[0].dtype == NNFX_I8) { /* s8: the fixed-point mean */
        fx_qop *op = prepare_mean(env, qn, cur, m, err);
        if (op || (err && err->status)) return op;
        memset(m, 0, sizeof *m);
    }
    if ((is_op(cur, NNFX_OP_MAX_POOL) || is_op(cur, NNFX_OP_GLOBAL_AVERAGE_POOL))) {
        fx_qop *op = prepare_pool(env, cur, &q, m, err);
        if (!op) {
            memset(m, 0, sizeof *m);
            return NULL;
        }
        add_node(m, cur);
        add_node(m, qn);
        return op;
    }
    if (is_op(cur, NNFX_OP_MUL) || is_op(cur, NNFX_OP_ADD) || is_op(cur, NNFX_OP_SUB)) {
        fx_qop *op = prepare_binary(env, qn, cur, m, err);
        if (op || (err && err->status)) return op;
        memset(m, 0, sizeof *m);
    }
    if (is_op(cur, NNFX_OP_REDUCE_MEAN) || is_op(cur, NNFX_OP_GLOBAL_AVERAGE_POOL) ||
        is_op(cur, NNFX_OP_AVERAGE_POOL)) {
        fx_qop *op = prepare_mean(env, qn, cur, m, err);
        if (op || (err && err->status)) return op;
        memset(m, 0, sizeof *m);
    }
    if (is_op(cur, NNFX_OP_RELU) || is_op(cur, NNFX_OP_CLIP)) { /* after a requantized conv: one kernel */
        fx_qop *op = prepare_act_mid(env, qn, cur, &q, m, err);
        if (op || (err && err->status)) return op;
        memset(m, 0, sizeof *m);
    }
    if (lut_op(cur) && !is_op(cur, NNFX_OP_ADD)) { /* an Add may be a residual island (below) */
        fx_qop *op = prepare_lut(env, qn, m, err);
        if (op || (err && err->status)) return op;
        memset(m, 0, sizeof *m);
    }
    /* [Relu | Clip] before the final Q */
    const nnfx_node *tail[FX_QOP_MAX_NODES];
    int nt = 0;
    if (act_bounds(env, cur, &q.act_lo, &q.act_hi)) {
        tail[nt++] = cur;
        cur = arg_node(cur, 0);
        if (!cur || !sole_user_is(cur, tail[nt - 1]) || env->claimed(env->ctx, cur)) return NULL;
    }
    const nnfx_node *f = cur;
    if (is_op(cur, NNFX_OP_ADD)) {
        /* one side the op (directly or through Q -> DQ), the other DQ(r) */
        const nnfx_node *add = cur;
        for (int side = 0; side < 2; side++) {
            const nnfx_node *a = arg_node(add, side), *b = arg_node(add, 1 - side);
            if (!a || !b || a == b || add->nargs != 2) return NULL;
            const nnfx_node *r = dq_input(env, b, &q.res_signed, &q.res_scale, &q.res_zp);
            if (!r) continue;
            if (!nnfx_meta_is_static(&r->meta[0]) || r->meta[0].rank != add->meta[0].rank) continue;
            bool same = true;
            for (int d = 0; d < r->meta[0].rank; d++)
                same = same && r->meta[0].dims[d].value == add->meta[0].dims[d].value;
            if (!same || !sole_user_is(a, add) || env->claimed(env->ctx, a)) continue;
            const nnfx_node *chain[5];
            int nc = 0;
            const nnfx_node *g = a;
            if (is_op(a, NNFX_OP_DEQUANTIZE_LINEAR)) {
                /* op -> [act] -> Q1 -> DQ1 -> Add: the intermediate requantization */
                g = mid_chain(env, a, &q, chain, &nc);
                if (!g) continue;
            }
            if (!is_op(g, NNFX_OP_CONV) && !is_op(g, NNFX_OP_GEMM) && !is_op(g, NNFX_OP_MATMUL)) {
                q.mid = false, q.mid_lo = -INFINITY, q.mid_hi = INFINITY;
                continue;
            }
            q.res = true;
            m->res = r;
            m->dq[1] = b;
            f = g;
            for (int i = nc - 1; i >= 0; i--)
                tail[nt++] = chain[i];
            tail[nt++] = add;
            break;
        }
        if (!q.res) return NULL;
    }
    if (!is_op(f, NNFX_OP_CONV) && !is_op(f, NNFX_OP_GEMM) && !is_op(f, NNFX_OP_MATMUL)) return NULL;
    if (env->claimed(env->ctx, f) || f->meta[0].dtype != NNFX_F32) return NULL;
    fx_qop *op = prepare(env, f, &q, m, err);
    if (!op) {
        memset(m, 0, sizeof *m);
        return NULL;
    }
    /* the fused nodes (order does not matter to the plan), the final Q last */
    add_node(m, f);
    for (int i = 0; i < nt; i++)
        add_node(m, tail[i]);
    add_node(m, qn);
    return op;
}

void fx_qop_free(fx_qop *op) {
    if (!op) return;
    fx_qconv_free(op->c);
    fx_qpool_free(op->pool);
    if (op->lut) free((void *)op->view.lut);
    free(op);
}

int64_t fx_qop_scratch_bytes(const fx_qop *op) { return op->c ? fx_qconv_scratch_bytes(op->c) : 0; }

void fx_qop_describe(const fx_qop *op, char *buf, size_t len) {
    const fx_qop_view *v = &op->view;
    if (op->elem && v->kind == FX_QOP_MOVE)
        snprintf(buf, len, "int8 move (same quantization), %lld values", (long long)v->numel);
    else if (op->elem && v->kind == FX_QOP_MEAN)
        snprintf(buf, len, "int8 mean fixed point, %lld x %lld values", (long long)v->outer, (long long)v->inner);
    else if (op->elem)
        snprintf(buf, len, "int8 %s fixed point, %lld values",
                 v->kind == FX_QOP_MUL ? "mul"
                 : v->sub              ? "sub"
                                       : "add",
                 (long long)v->numel);
    else if (op->lut)
        snprintf(buf, len, "int8 table (256 entries) %s -> %s, %lld values", op->view.x_signed ? "s8" : "u8",
                 op->view.y_signed ? "s8" : "u8", (long long)op->view.numel);
    else if (op->c)
        fx_qconv_describe(op->c, buf, len);
    else
        fx_qpool_describe(op->pool, buf, len);
}

void fx_qop_run(const fx_qop *op, fx_pool *pool, const void *x, const void *res, void *y, void *scratch) {
    if (op->elem) {
        const fx_qop_view *v = &op->view;
        const int8_t *a = x, *b = res;
        int8_t *o = y;
        if (v->kind == FX_QOP_MOVE)
            memmove(o, a, (size_t)v->numel);
        else if (v->kind == FX_QOP_MUL)
            fx_qmul_row(a, v->a_zp, b, v->b_zp, v->qm, v->shift, v->y_zp, o, v->numel);
        else if (v->kind == FX_QOP_ADD)
            fx_qadd_row(&v->add, a, b, o, v->numel, v->sub);
        else
            for (int64_t r = 0; r < v->outer; r++) {
                int32_t sum = 0;
                for (int64_t i = 0; i < v->inner; i++)
                    sum += a[r * v->inner + i] - v->a_zp;
                o[r] = nnfx_rt_qf_requant(sum, v->qm, v->shift, v->y_zp, -128, 127);
            }
    } else if (op->lut) {
        fx_qlut_row((const uint8_t *)op->view.lut, op->view.x_signed ? 0x80 : 0, x, y, op->view.numel);
    } else if (op->c)
        fx_qconv_run(op->c, pool, x, res, y, scratch);
    else
        fx_qpool_run(op->pool, pool, x, y);
}

void fx_qop_view_of(const fx_qop *op, fx_qop_view *v) { *v = op->view; }

bool fx_qop_inplace(const fx_qop *op) { return op->lut || (op->elem && op->view.kind != FX_QOP_MEAN); }
