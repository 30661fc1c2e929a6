/* emit_float_ops.c — float32 ops the generator writes, each through its
 * emitter named in ops.def's emit column (gen_*, cg_emit_fn): the further
 * unary functions (their scalar meanings in
 * rt/nnfx_rt_math.h, shared with the interpreter), PRelu and float
 * Mod, the variadic Min / Max / Sum / Mean, Hardmax, Clip with computed
 * bounds, InstanceNormalization, LRN, LpNormalization, MeanVarianceNormalization,
 * DepthToSpace / SpaceToDepth, ConvTranspose, and the multi-output MaxPool
 * (with Indices) and Dropout (with its mask); the kernels are
 * rt/nnfx_rt_float.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen_int.h"
#include "core/core_int.h"
#include "ir/ir_int.h"

/* ---- helpers ------------------------------------------------------------------- */

static void emit_long_array(cg *c, const char *name, int k, const int64_t *v) {
    sb_printf(&c->body, "        static const long %s[%d] = {", name, k > 0 ? k : 1);
    for (int i = 0; i < k; i++)
        sb_printf(&c->body, i ? ", %lld" : "%lld", (long long)v[i]);
    sb_printf(&c->body, k > 0 ? "};\n" : "0};\n");
}

/* The C expression of optional output k of step s into buf as type dt;
 * "0" when the step has no such output or nothing stores it. */
static nnfx_status opt_output(cg *c, const fx_step_view *s, const nnfx_node *n, int k, nnfx_dtype dt, char *buf,
                              size_t len) {
    snprintf(buf, len, "0");
    if (k >= s->nout || s->outs[k] < 0 || fx_plan_value_view(c->p, s->outs[k]).kind == FX_VALUE_NONE) return NNFX_OK;
    return cg_value_typed(c, s->outs[k], dt, n, buf, len);
}

/* ---- element-wise ----------------------------------------------------------------- */

/* Min / Max / Sum / Mean of 1 to KERN_BCAST_MAX float32 operands,
 * broadcast (nnfx_rt_variadic). */
nnfx_status gen_variadic(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const int k = s->nin, op = n->op == NNFX_OP_MIN ? 0 : n->op == NNFX_OP_MAX ? 1 : n->op == NNFX_OP_SUM ? 2 : 3;
    const nnfx_meta *ym = &n->meta[0];
    if (k < 1 || k > KERN_BCAST_MAX) return cg_unsupported(c, n, "a variadic op of more than 4 operands");
    nnfx_tensor *ts[KERN_BCAST_MAX] = {0};
    float dummy = 0;
    nnfx_status st = NNFX_OK;
    for (int a = 0; a < k && !st; a++) {
        const nnfx_meta *m = cg_arg_meta(n, a);
        int64_t d[NNFX_MAX_RANK];
        if (!m || s->in[a] < 0 || m->dtype != NNFX_F32) {
            st = cg_unsupported(c, n, "its operands are not float32 tensors");
            break;
        }
        for (int i = 0; i < m->rank; i++)
            d[i] = m->dims[i].value;
        ts[a] = nnfx_tensor_borrow(NNFX_F32, m->rank, d, &dummy, c->err);
        if (!ts[a]) st = NNFX_ERR_NOMEM;
    }
    kern_bcast bp;
    int64_t oshape[NNFX_MAX_RANK];
    for (int d = 0; d < ym->rank; d++)
        oshape[d] = ym->dims[d].value;
    bool ok = !st && kern_bcast_plan(&bp, ym->rank, oshape, k, (const nnfx_tensor *const *)ts);
    for (int a = 0; a < k; a++)
        nnfx_tensor_release(ts[a]);
    if (st) return st;
    if (!ok || bp.rank > 6) return cg_unsupported(c, n, "operands do not broadcast (or rank > 6)");
    if (cg_meta_numel(ym) == 0) return NNFX_OK;
    int64_t strides[KERN_BCAST_MAX * 6];
    for (int a = 0; a < k; a++)
        for (int d = 0; d < bp.rank; d++)
            strides[a * bp.rank + d] = bp.st[a][d];
    cg_use_section(c, "variadic");
    sb_printf(&c->body, "    {\n");
    emit_long_array(c, "shape", bp.rank, bp.shape);
    emit_long_array(c, "st", k * bp.rank, strides);
    sb_printf(&c->body, "        const float *const xs[%d] = {", k);
    for (int a = 0; a < k; a++)
        sb_printf(&c->body, a ? ", %s" : "%s", in[a]);
    sb_printf(&c->body, "};\n        nnfx_rt_variadic(xs, %d, %s, %d, shape, st, %d); /* %s */\n    }\n", k, y, bp.rank,
              op, nnfx_op_name(n->op));
    return NNFX_OK;
}

/* Clip whose min or max is computed at run time: one element read before
 * the map (a constant or absent bound as a literal). */
static nnfx_status emit_clip_computed(cg *c, const fx_step_view *s, const nnfx_node *n, const char *x, const char *y) {
    char bound[2][80];
    for (int k = 0; k < 2; k++) {
        float v;
        if (cg_const_float(c, s, 1 + k, k ? INFINITY : -INFINITY, &v)) {
            sbuf b = {0};
            cg_float_lit(&b, v);
            char *t = sb_finish(&b);
            if (!t) return nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
            snprintf(bound[k], sizeof bound[k], "%s", t);
            free(t);
            continue;
        }
        const nnfx_meta *m = cg_arg_meta(n, 1 + k);
        char e[64];
        nnfx_status st;
        if (!m || m->dtype != NNFX_F32 || cg_meta_numel(m) != 1)
            return cg_unsupported(c, n, "clip bounds are not one float32 element");
        if ((st = cg_value_expr(c, s->in[1 + k], n, e, sizeof e))) return st;
        snprintf(bound[k], sizeof bound[k], "%s[0]", e);
    }
    cg_use_section(c, "map");
    cg_use_section(c, "clip");
    sb_printf(&c->body, "    nnfx_rt_map(%s, %s, %lld, %s, %s, nnfx_rt_clip); /* bounds computed */\n", x, y,
              (long long)cg_meta_numel(&n->meta[0]), bound[0], bound[1]);
    return NNFX_OK;
}

/* Clip: a map (nnfx_rt_map) when its bounds are constants, else with the
 * bounds computed at run time. */
nnfx_status gen_clip(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    float a, b;
    if (!cg_unary_params(c, s, n, &a, &b)) return emit_clip_computed(c, s, n, in[0], y);
    cg_emit_map(c, "clip", in[0], y, cg_meta_numel(&n->meta[0]), a, b);
    return NNFX_OK;
}

/* PRelu: a broadcast binary op of x and the slope. */
nnfx_status gen_prelu(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return cg_emit_binary(c, n, "prelu", in[0], in[1], y);
}

/* Mod of float32 values: fmod, or the sign of the divisor (fmod = 0). */
nnfx_status gen_mod(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return cg_emit_binary(c, n, ir_attr_int(n, "fmod") ? "fmod" : "mod", in[0], in[1], y);
}

/* ---- along an axis, normalisations ---------------------------------------------------- */

nnfx_status gen_hardmax(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const char *x = in[0];
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    int axis;
    if (!xm || xm->rank == 0 || !infer_axis(ir_attr_int(n, "axis"), xm->rank, false, &axis))
        return cg_unsupported(c, n, "hardmax axis out of range");
    cg_use_section(c, "hardmax");
    sb_printf(&c->body, "    nnfx_rt_hardmax(%s, %s, %lld, %lld, %lld);\n", x, y, (long long)infer_prod(xm, 0, axis),
              (long long)xm->dims[axis].value, (long long)infer_prod(xm, axis + 1, xm->rank));
    return NNFX_OK;
}

nnfx_status gen_instance_norm(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    if (!xm || xm->rank < 2 || s->nin < 3 || s->in[1] < 0 || s->in[2] < 0)
        return cg_unsupported(c, n, "instance_normalization needs x [N, C, ...], scale and B");
    const int64_t C = xm->dims[1].value;
    for (int a = 1; a < 3; a++) {
        fx_value_view vv = fx_plan_value_view(c->p, s->in[a]);
        const nnfx_meta *m = cg_arg_meta(n, a);
        int64_t have = vv.kind == FX_VALUE_CONST ? nnfx_tensor_numel(vv.t) : m ? cg_meta_numel(m) : -1;
        if (have != C) return cg_unsupported(c, n, "scale and B do not hold one value per channel");
    }
    cg_use_section(c, "instance_norm");
    sb_printf(&c->body, "    nnfx_rt_instance_norm(%s, %s, %s, ", in[0], in[1], in[2]);
    cg_float_lit(&c->body, (float)ir_attr_float(n, "epsilon"));
    sb_printf(&c->body, ", %s, %lld, %lld, %lld);\n", y, (long long)xm->dims[0].value, (long long)C,
              (long long)infer_prod(xm, 2, xm->rank));
    return NNFX_OK;
}

nnfx_status gen_lrn(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const char *x = in[0];
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    const int64_t size = nnfx_node_attr_int(n, "size", 0);
    if (!xm || xm->rank < 2) return cg_unsupported(c, n, "lrn needs x [N, C, ...]");
    if (size <= 0) return cg_unsupported(c, n, "lrn size must be positive");
    cg_use_section(c, "lrn");
    sb_printf(&c->body, "    nnfx_rt_lrn(%s, %s, %lld, %lld, %lld, %lld, ", x, y, (long long)xm->dims[0].value,
              (long long)xm->dims[1].value, (long long)infer_prod(xm, 2, xm->rank), (long long)size);
    cg_float_lit(&c->body, (float)ir_attr_float(n, "alpha"));
    sb_printf(&c->body, ", ");
    cg_float_lit(&c->body, (float)ir_attr_float(n, "beta"));
    sb_printf(&c->body, ", ");
    cg_float_lit(&c->body, (float)ir_attr_float(n, "bias"));
    sb_printf(&c->body, ");\n");
    return NNFX_OK;
}

nnfx_status gen_lp_norm(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const char *x = in[0];
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    const int64_t p = ir_attr_int(n, "p");
    int axis;
    if (!xm || !infer_axis(ir_attr_int(n, "axis"), xm->rank ? xm->rank : 1, false, &axis))
        return cg_unsupported(c, n, "lp_normalization axis out of range");
    if (p != 1 && p != 2) return cg_unsupported(c, n, "lp_normalization p is neither 1 nor 2");
    if (cg_meta_numel(xm) == 0) return NNFX_OK;
    cg_use_section(c, "lp_norm");
    sb_printf(&c->body, "    nnfx_rt_lp_norm(%s, %s, %lld, %lld, %lld, %d);\n", x, y,
              (long long)infer_prod(xm, 0, axis), (long long)(xm->rank ? xm->dims[axis].value : 1),
              (long long)infer_prod(xm, axis + 1, xm->rank), (int)p);
    return NNFX_OK;
}

nnfx_status gen_mvn(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const char *x = in[0];
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    if (!xm || xm->rank < 1 || xm->rank > 6) return cg_unsupported(c, n, "mvn of rank 0 or > 6");
    int64_t red[6] = {0}, shape[6];
    const nnfx_attr *ax = nnfx_node_attr(n, "axes");
    if (ax && ax->kind == NNFX_ATTR_INTS) {
        for (int i = 0; i < ax->u.ints.n; i++) {
            int a;
            if (!infer_axis(ax->u.ints.v[i], xm->rank, false, &a)) return cg_unsupported(c, n, "mvn axis out of range");
            red[a] = 1;
        }
    } else {
        if (xm->rank != 4) return cg_unsupported(c, n, "mvn default axes need rank 4");
        red[0] = red[2] = red[3] = 1;
    }
    for (int d = 0; d < xm->rank; d++)
        shape[d] = xm->dims[d].value;
    if (cg_meta_numel(xm) == 0) return NNFX_OK;
    cg_use_section(c, "mvn");
    sb_printf(&c->body, "    {\n");
    emit_long_array(c, "shape", xm->rank, shape);
    sb_printf(&c->body, "        static const int red[%d] = {", xm->rank);
    for (int d = 0; d < xm->rank; d++)
        sb_printf(&c->body, d ? ", %d" : "%d", (int)red[d]);
    sb_printf(&c->body, "};\n        nnfx_rt_mvn(%s, %s, %d, shape, red);\n    }\n", x, y, xm->rank);
    return NNFX_OK;
}

/* ---- data movement ----------------------------------------------------------------- */

/* DepthToSpace (DCR or CRD) and SpaceToDepth of a rank-4 x: one strided
 * copy over the output viewed with six dims (nnfx_rt_transpose), the
 * interpreter's block_move read as a transpose. */
nnfx_status gen_block_move(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const char *x = in[0];
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    const bool to_space = n->op == NNFX_OP_DEPTH_TO_SPACE;
    const int64_t b = nnfx_node_attr_int(n, "blocksize", 0);
    if (!xm || xm->rank != 4 || ym->rank != 4 || b <= 0) return cg_unsupported(c, n, "input must have rank 4");
    const nnfx_meta *sp = to_space ? ym : xm; /* the spatial (large) side */
    const int64_t N = sp->dims[0].value, C = sp->dims[1].value, H = sp->dims[2].value / b, W = sp->dims[3].value / b;
    const bool crd = to_space && strcmp(ir_attr_string(n, "mode"), "CRD") == 0;
    int64_t shape[6], st[6];
    if (to_space) { /* y [N, C, H, i, W, j] from x [N, (i, j, C) or (C, i, j), H, W] */
        const int64_t shp[6] = {N, C, H, b, W, b};
        const int64_t dcr[6] = {C * b * b * H * W, H * W, W, b * C * H * W, 1, C * H * W};
        const int64_t crd_[6] = {C * b * b * H * W, b * b * H * W, W, b * H * W, 1, H * W};
        memcpy(shape, shp, sizeof shape);
        memcpy(st, crd ? crd_ : dcr, sizeof st);
    } else { /* y [N, i, j, C, H, W] from x [N, C, H, i, W, j] */
        const int64_t shp[6] = {N, b, b, C, H, W};
        const int64_t s2d[6] = {C * H * b * W * b, W * b, 1, H * b * W * b, b * W * b, b};
        memcpy(shape, shp, sizeof shape);
        memcpy(st, s2d, sizeof st);
    }
    if (cg_meta_numel(ym) == 0) return NNFX_OK;
    cg_use_section(c, "transpose");
    sb_printf(&c->body, "    {\n");
    emit_long_array(c, "shape", 6, shape);
    emit_long_array(c, "st", 6, st);
    sb_printf(&c->body, "        nnfx_rt_transpose(%s, %s, 6, shape, st);\n    }\n", x, y);
    return NNFX_OK;
}

/* ---- windows ---------------------------------------------------------------------- */

/* ConvTranspose over 1 to 3 spatial dims with the interpreter's geometry
 * (ir_convt_plan: strides, dilations, pads, auto_pad, output_padding,
 * output_shape), groups and an optional bias. */
nnfx_status gen_conv_transpose(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    fx_value_view wv = fx_plan_value_view(c->p, s->in[1]);
    const nnfx_meta *wm = cg_arg_meta(n, 1);
    int64_t wshape[NNFX_MAX_RANK];
    int wrank = 0;
    if (wv.kind == FX_VALUE_CONST) {
        wrank = wv.t->rank;
        memcpy(wshape, wv.t->shape, sizeof(int64_t) * (size_t)wrank);
    } else if (wm) {
        wrank = wm->rank;
        for (int d = 0; d < wrank; d++)
            wshape[d] = wm->dims[d].value;
    }
    if (!xm || xm->rank < 3 || xm->rank > 5 || wrank != xm->rank)
        return cg_unsupported(c, n, "only 1-d, 2-d and 3-d transposed convolutions are generated");
    const int nsp = xm->rank - 2;
    const int64_t N = xm->dims[0].value, C = xm->dims[1].value, grp = ir_attr_int(n, "group");
    if (grp < 1 || C != wshape[0] || C % grp) return cg_unsupported(c, n, "channels do not fit the weight and group");
    const int64_t M = wshape[1] * grp;
    int64_t k[3], in_sp[3];
    for (int i = 0; i < nsp; i++)
        k[i] = wshape[2 + i], in_sp[i] = xm->dims[2 + i].value;
    ir_convt g;
    nnfx_status st = ir_convt_plan(n, nsp, k, in_sp, &g, c->err);
    if (st) return st;
    if (ym->rank != xm->rank || ym->dims[1].value != M) return cg_unsupported(c, n, "output shape does not fit");
    bool has_b = s->nin > 2 && s->in[2] >= 0;
    int64_t geo[22] = {N, C, M, grp};
    for (int j = 0; j < 3; j++) {
        const int i = j - (3 - nsp);
        int64_t *d = geo + 4 + 6 * j;
        if (i < 0) {
            d[0] = d[1] = d[2] = d[3] = d[4] = 1, d[5] = 0;
        } else {
            if (g.out[i] != ym->dims[2 + i].value) return cg_unsupported(c, n, "output shape does not fit");
            d[0] = in_sp[i], d[1] = g.out[i], d[2] = k[i], d[3] = g.s[i], d[4] = g.d[i], d[5] = g.pb[i];
        }
    }
    cg_use_section(c, "conv_transpose");
    sb_printf(&c->body, "    {   /* N C M group, then per dim: in out k stride dilation pad */\n");
    emit_long_array(c, "geo", 22, geo);
    sb_printf(&c->body, "        nnfx_rt_conv_transpose(%s, %s, %s, %s, geo);\n    }\n", in[0], in[1],
              has_b ? in[2] : "0", y);
    int64_t taps = 1;
    for (int i = 0; i < nsp; i++)
        taps *= k[i];
    c->stats[n->op].macs += cg_meta_numel(xm) * (M / grp) * taps;
    return NNFX_OK;
}

/* MaxPool with its Indices output when it has one (1 to 3 spatial dims). */
nnfx_status cg_emit_maxpool_idx(cg *c, const fx_step_view *s) {
    const nnfx_node *n = s->last;
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    if (!xm || xm->rank < 3 || xm->rank > 5 || ym->rank != xm->rank)
        return cg_unsupported(c, n, "only 1-d, 2-d and 3-d pooling is generated");
    const nnfx_attr *ks = nnfx_node_attr(n, "kernel_shape");
    const int nsp = xm->rank - 2;
    if (!ks || ks->kind != NNFX_ATTR_INTS || ks->u.ints.n != nsp) return cg_unsupported(c, n, "bad kernel_shape");
    int64_t in_sp[3];
    for (int i = 0; i < nsp; i++)
        in_sp[i] = xm->dims[2 + i].value;
    ir_window win;
    nnfx_status st = ir_window_read(n, nsp, ks->u.ints.v, in_sp, &win, c->err);
    if (st) return st;
    char idx[64], x[96], y[96];
    const nnfx_dtype dt = ym->dtype;
    if (xm->dtype != dt || cg_tcode(dt) < 0) return cg_unsupported(c, n, "max pooling of a type generated C lacks");
    if ((st = opt_output(c, s, n, 1, NNFX_I64, idx, sizeof idx)) || (st = cg_typed_in(c, s, 0, dt, x, sizeof x)) ||
        (st = cg_typed_out(c, s->out, dt, n, y, sizeof y)))
        return st;
    int64_t geo[19] = {xm->dims[0].value * xm->dims[1].value};
    for (int j = 0; j < 3; j++) {
        const int i = j - (3 - nsp);
        int64_t *d = geo + 1 + 6 * j;
        if (i < 0)
            d[0] = d[1] = d[2] = d[3] = d[4] = 1, d[5] = 0;
        else
            d[0] = in_sp[i], d[1] = ym->dims[2 + i].value, d[2] = win.k[i], d[3] = win.s[i], d[4] = win.d[i],
            d[5] = win.pb[i];
    }
    cg_use_section(c, "maxpool_idx");
    sb_printf(&c->body, "    {   /* NC, then per dim: in out k stride dilation pad */\n");
    emit_long_array(c, "geo", 19, geo);
    sb_printf(&c->body, "        nnfx_rt_maxpool_idx(%s, %s, %d, %s, geo, %d);\n    }\n", x, y, cg_tcode(dt),
              strcmp(idx, "0") ? idx : "NULL", ir_attr_int(n, "storage_order") != 0);
    return NNFX_OK;
}

/* GridSample (2-d; bilinear, nearest, bicubic; zeros, border, reflection;
 * align_corners) as the interpreter's kernel. */
nnfx_status gen_grid_sample(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const nnfx_meta *xm = cg_arg_meta(n, 0), *gm = cg_arg_meta(n, 1), *ym = &n->meta[0];
    if (!xm || !gm || xm->rank != 4 || gm->rank != 4 || gm->dims[3].value != 2 || ym->rank != 4)
        return cg_unsupported(c, n, "grid_sample supports X [N, C, H, W] and grid [N, Ho, Wo, 2]");
    const char *mode = ir_attr_string(n, "mode");
    const char *pms = ir_attr_string(n, "padding_mode");
    const int m = !strcmp(mode, "bilinear") ? 0 : !strcmp(mode, "nearest") ? 1 : !strcmp(mode, "bicubic") ? 2 : -1;
    const int pm = !strcmp(pms, "zeros") ? 0 : !strcmp(pms, "border") ? 1 : !strcmp(pms, "reflection") ? 2 : -1;
    if (m < 0 || pm < 0) return cg_unsupported(c, n, "grid_sample mode or padding_mode not supported");
    cg_use_section(c, "grid_sample");
    sb_printf(&c->body, "    nnfx_rt_grid_sample(%s, %s, %s, %lld, %lld, %lld, %lld, %lld, %lld, %d, %d, %d);\n", in[0],
              in[1], y, (long long)xm->dims[0].value, (long long)xm->dims[1].value, (long long)xm->dims[2].value,
              (long long)xm->dims[3].value, (long long)gm->dims[1].value, (long long)gm->dims[2].value, m, pm,
              ir_attr_int(n, "align_corners") != 0);
    return NNFX_OK;
}

/* ---- indexing by indices computed at run time --------------------------------------- */

/* Opens a block for the step and gives the C expression of its indices
 * (step input a, int64 or int32) as bytes in buf, *is64 their width: a
 * value generated C holds (a model input, the arena), or a constant written
 * out as a `long long` array in the block. */
static nnfx_status open_indices(cg *c, const fx_step_view *s, const nnfx_node *n, int a, char *buf, size_t len,
                                int *is64) {
    const nnfx_meta *im = cg_arg_meta(n, a);
    fx_value_view vv = fx_plan_value_view(c->p, a < s->nin ? s->in[a] : -1);
    if (vv.kind == FX_VALUE_CONST) {
        if (vv.t->dtype != NNFX_I64 && vv.t->dtype != NNFX_I32)
            return cg_unsupported(c, n, "its indices are not int32/int64");
        const int64_t k = nnfx_tensor_numel(vv.t);
        sb_printf(&c->body, "    {\n        static const long long ix[%lld] = {", (long long)(k ? k : 1));
        for (int64_t i = 0; i < k; i++)
            sb_printf(&c->body, i ? ", %lld" : "%lld", (long long)core_tensor_get_i64(vv.t, i));
        sb_printf(&c->body, k ? "};\n" : "0};\n");
        snprintf(buf, len, "(const unsigned char *)ix");
        *is64 = 1;
        return NNFX_OK;
    }
    if (!im || (im->dtype != NNFX_I64 && im->dtype != NNFX_I32))
        return cg_unsupported(c, n, "its indices are not int32/int64");
    nnfx_status st = cg_value_typed(c, s->in[a], im->dtype, n, buf, len);
    if (st) return st;
    *is64 = im->dtype == NNFX_I64;
    sb_printf(&c->body, "    {\n");
    return NNFX_OK;
}

/* ReverseSequence by sequence lengths computed at run time (or constant). */
nnfx_status gen_reverse_sequence(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const char *x = in[0];
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    const int ta = (int)ir_attr_int(n, "time_axis"), ba = (int)ir_attr_int(n, "batch_axis");
    if (!xm || xm->rank < 2 || ta < 0 || ba < 0 || ta > 1 || ba > 1 || ta == ba)
        return cg_unsupported(c, n, "reverse_sequence needs time_axis and batch_axis in {0, 1}");
    int is64 = 1;
    char ix[64];
    nnfx_status st = open_indices(c, s, n, 1, ix, sizeof ix, &is64);
    if (st) return st;
    cg_use_section(c, "reverse_sequence");
    sb_printf(&c->body, "        nnfx_rt_reverse_sequence(%s, %s, %s, %d, %lld, %lld, %lld, %d);\n    }\n", x, y, ix,
              is64, (long long)xm->dims[ta].value, (long long)xm->dims[ba].value,
              (long long)infer_prod(xm, 2, xm->rank), ta == 0);
    return NNFX_OK;
}

/* The working memory of a spectral or Det step (doubles past an 8-byte
 * boundary) as a `double *` expression into buf. */
static void spectral_work(cg *c, int64_t doubles, char *buf, size_t len) {
    char w[64];
    int64_t used = 0;
    cg_step_scratch(c, doubles * 8 + 8, &used, w, sizeof w);
    cg_use_section(c, "align8");
    snprintf(buf, len, "(double *)nnfx_rt_align8(%s)", w);
}

/* DFT along `axis` of float32 x [..., N, ..., 1|2] (nnfx_rt_dft: the
 * interpreter's loop); dft_length a constant. */
nnfx_status gen_dft(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const char *x = in[0];
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    int axis;
    if (!xm || xm->rank < 2 || !infer_axis(ir_attr_int(n, "axis"), xm->rank - 1, false, &axis))
        return cg_unsupported(c, n, "dft axis out of range");
    const int64_t N = xm->dims[axis].value, L = ym->dims[axis].value, cx = xm->dims[xm->rank - 1].value;
    float len;
    if (!cg_const_float(c, s, 1, (float)N, &len) || len < 1)
        return cg_unsupported(c, n, "dft_length is not a positive constant");
    char work[96];
    spectral_work(c, 2 * (N + L), work, sizeof work);
    cg_use_section(c, "dft");
    sb_printf(
        &c->body,
        "    nnfx_rt_dft((const unsigned char *)%s, 0, (unsigned char *)%s, 0, %lld, %lld, %lld, %lld, %lld, %lld, %d, "
        "%s);\n",
        x, y, (long long)infer_prod(xm, 0, axis), (long long)N, (long long)infer_prod(xm, axis + 1, xm->rank - 1),
        (long long)cx, (long long)len, (long long)L, ir_attr_int(n, "inverse") != 0, work);
    return NNFX_OK;
}

/* STFT of float32 signal x [B, T, 1|2] (nnfx_rt_stft): frame_step and
 * frame_length constants, the window float32 (a weight or computed). */
nnfx_status gen_stft(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const char *x = in[0];
    const nnfx_meta *xm = cg_arg_meta(n, 0), *wm = cg_arg_meta(n, 2), *ym = &n->meta[0];
    float step, flen;
    if (!xm || xm->rank != 3 || ym->rank != 4) return cg_unsupported(c, n, "stft needs signal [B, len, 1|2]");
    if (!cg_const_float(c, s, 1, 0, &step) || step < 1)
        return cg_unsupported(c, n, "frame_step is not a positive constant");
    if (!cg_const_float(c, s, 3, wm ? (float)cg_meta_numel(wm) : 0, &flen) || flen < 1 ||
        (wm && cg_meta_numel(wm) != (int64_t)flen))
        return cg_unsupported(c, n, "frame_length is not a constant that fits the window");
    char win[64] = "0";
    if (wm && s->nin > 2 && s->in[2] >= 0) {
        nnfx_status st;
        if (wm->dtype != NNFX_F32) return cg_unsupported(c, n, "a window of another type than float32");
        if ((st = cg_value_expr(c, s->in[2], n, win, sizeof win))) return st;
    }
    const int64_t fl = (int64_t)flen, bins = ym->dims[2].value;
    char work[96];
    spectral_work(c, 2 * (fl + bins), work, sizeof work);
    cg_use_section(c, "stft");
    sb_printf(
        &c->body,
        "    nnfx_rt_stft((const unsigned char *)%s, 0, (const unsigned char *)%s, 0, (unsigned char *)%s, 0, %lld, "
        "%lld, %lld, %lld, %lld, %lld, %lld, %s);\n",
        x, win, y, (long long)xm->dims[0].value, (long long)xm->dims[1].value, (long long)xm->dims[2].value,
        (long long)step, (long long)fl, (long long)ym->dims[1].value, (long long)bins, work);
    return NNFX_OK;
}

/* Det of float32 x [..., M, M] (nnfx_rt_det: the interpreter's loop). */
nnfx_status gen_det(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const char *x = in[0];
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    if (!xm || xm->rank < 2 || xm->dims[xm->rank - 1].value != xm->dims[xm->rank - 2].value)
        return cg_unsupported(c, n, "det needs square matrices [..., M, M]");
    const int64_t M = xm->dims[xm->rank - 1].value;
    char work[96];
    spectral_work(c, M * M, work, sizeof work);
    cg_use_section(c, "det");
    sb_printf(&c->body, "    nnfx_rt_det((const unsigned char *)%s, 0, (unsigned char *)%s, 0, %lld, %lld, %s);\n", x,
              y, (long long)cg_meta_numel(&n->meta[0]), (long long)M, work);
    return NNFX_OK;
}

/* The dims of meta m (rank <= 6) as int64 into d. */
static bool dims6(const nnfx_meta *m, int64_t *d) {
    if (!m || m->rank < 1 || m->rank > 6) return false;
    for (int i = 0; i < m->rank; i++)
        d[i] = m->dims[i].value;
    return true;
}

/* Tile to the output's (static) shape. */
nnfx_status gen_tile(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const char *x = in[0];
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    int64_t xs[6], ys[6];
    if (!dims6(xm, xs) || !dims6(ym, ys) || xm->rank != ym->rank) return cg_unsupported(c, n, "tile of rank 0 or > 6");
    if (cg_meta_numel(ym) == 0) return NNFX_OK;
    cg_use_section(c, "tile");
    sb_printf(&c->body, "    {\n");
    emit_long_array(c, "xshape", xm->rank, xs);
    emit_long_array(c, "yshape", ym->rank, ys);
    sb_printf(&c->body, "        nnfx_rt_tile(%s, %s, %d, xshape, yshape);\n    }\n", x, y, xm->rank);
    return NNFX_OK;
}

nnfx_status cg_emit_reduce_axes(cg *c, const nnfx_node *n, const char *x, const char *y, const bool *axis, int kind) {
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    int64_t shape[6];
    if (!dims6(xm, shape)) return cg_unsupported(c, n, "reduction over non-adjacent axes of a tensor of rank > 6");
    const bool typed = xm->dtype != NNFX_F32; /* x and y are bytes: nnfx_rt_treduce */
    cg_use_section(c, typed ? "treduce" : "reduce_axes");
    sb_printf(&c->body, "    {\n");
    emit_long_array(c, "shape", xm->rank, shape);
    sb_printf(&c->body, "        static const int red[%d] = {", xm->rank > 0 ? xm->rank : 1);
    for (int d = 0; d < xm->rank; d++)
        sb_printf(&c->body, d ? ", %d" : "%d", axis[d] ? 1 : 0);
    if (typed)
        sb_printf(&c->body, "%s};\n        nnfx_rt_treduce(%s, %d, %s, %d, %d, shape, red, %d);\n    }\n",
                  xm->rank ? "" : "0", x, cg_tcode(xm->dtype), y, cg_tcode(n->meta[0].dtype), xm->rank, kind);
    else
        sb_printf(&c->body, "%s};\n        nnfx_rt_reduce_axes(%s, %s, %d, shape, red, %d);\n    }\n",
                  xm->rank ? "" : "0", x, y, xm->rank, kind);
    return NNFX_OK;
}
