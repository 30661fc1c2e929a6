/* emit_int8.c — int8 (QDQ) steps (moved whole from codegen.c, its "int8
 * (QDQ) steps" section): the plan's int8 islands as calls into
 * rt/nnfx_rt_int8.h and the integer values' reference steps. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "codegen/bounds_int.h"
#include "codegen/codegen_int.h"
#include "core/core_int.h"
#include "core/sbuf.h"
#include "exec/plan_view.h"
#include "ir/infer_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

/* ---- int8 (QDQ) steps ---------------------------------------------------------
 * The plan's int8 islands (src/exec/qplan.h) become calls into
 * rt/nnfx_rt_int8.h with the model's own int8 weights and the
 * epilogue arrays the runtime's kernels use (fx_qop_view_of); uint8 / int8 /
 * int32 values live in the arena by byte offset. QuantizeLinear,
 * DequantizeLinear, Cast to the same type and reshape-likes on integer
 * values run as the interpreter's reference kernels do. */

/* The integer types the int8 steps keep in the arena (their byte size:
 * nnfx_dtype_size / nnfx_meta_nbytes). */
bool cg_int_dtype(nnfx_dtype dt) { return dt == NNFX_U8 || dt == NNFX_I8 || dt == NNFX_I32; }

/* The types generated C keeps as bytes (in the arena, a body's inputs, the
 * model's inputs and outputs): the int8 steps' and int64 / bool (TopK's
 * indices, comparisons, casts, a Loop's trip count), float64, float16. */
bool cg_bytes_dtype(nnfx_dtype dt) {
    return cg_int_dtype(dt) || dt == NNFX_I64 || dt == NNFX_BOOL || dt == NNFX_F64 || dt == NNFX_F16 ||
           dt == NNFX_I16 || dt == NNFX_U16 || dt == NNFX_U32 || dt == NNFX_U64;
}

bool is_int8_step(const nnfx_node *n) {
    return n->op == NNFX_OP_QUANTIZE_LINEAR || n->op == NNFX_OP_DEQUANTIZE_LINEAR || n->meta[0].dtype != NNFX_F32;
}

/* C expression for value v of type dt: float values as cg_value_expr, integer
 * ones in the arena as bytes. */
nnfx_status cg_value_typed(cg *c, int v, nnfx_dtype dt, const nnfx_node *user, char *buf, size_t len) {
    fx_value_view vv = fx_plan_value_view(c->p, v);
    if (vv.kind == FX_VALUE_INPUT && !c->in_expr && dt != NNFX_F32) { /* a model input of another type: bytes */
        snprintf(buf, len, "((const unsigned char *)inputs[%d])", vv.input);
        return NNFX_OK;
    }
    if (vv.kind != FX_VALUE_ARENA || dt == NNFX_F32) return cg_value_expr(c, v, user, buf, len);
    snprintf(buf, len, "((unsigned char *)A + %lld)", (long long)(c->base + vv.off));
    return NNFX_OK;
}

/* A constant array of n values in the weights file; returns its number. */
int cg_emit_const_array(cg *c, bool i8, const void *data, int64_t n, const char *src, const char *what, nnfx_op op) {
    int id = ++c->nweights;
    const char *ty = i8 ? "int8_t" : "float";
    if (i8 && !c->weights_stdint) {
        sb_printf(&c->weights, "#include <stdint.h>\n\n");
        c->weights_stdint = true;
    }
    sb_printf(&c->decls, "extern const %s %s_w%d[%lld]; /* %s %s */\n", ty, c->name, id, (long long)(n ? n : 1), src,
              what);
    sb_printf(&c->weights, "/* %s %s */\nconst %s %s_w%d[%lld] NNFX_ALIGNED = {", src, what, ty, c->name, id,
              (long long)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) {
        sb_printf(&c->weights, i % (i8 ? 16 : 6) ? ", " : (i ? ",\n    " : "\n    "));
        if (i8)
            sb_printf(&c->weights, "%d", ((const int8_t *)data)[i]);
        else
            cg_float_lit(&c->weights, ((const float *)data)[i]);
    }
    sb_printf(&c->weights, n ? "\n};\n" : "0};\n");
    int64_t bytes = n * (i8 ? 1 : 4);
    c->weight_bytes += bytes;
    c->stats[op].weight_bytes += bytes;
    return id;
}

int cg_emit_i32_array(cg *c, const int32_t *data, int64_t n, const char *src, const char *what, nnfx_op op) {
    int id = ++c->nweights;
    if (!c->weights_stdint) {
        sb_printf(&c->weights, "#include <stdint.h>\n\n");
        c->weights_stdint = true;
    }
    sb_printf(&c->decls, "extern const int32_t %s_w%d[%lld]; /* %s %s */\n", c->name, id, (long long)(n ? n : 1), src,
              what);
    sb_printf(&c->weights, "/* %s %s */\nconst int32_t %s_w%d[%lld] NNFX_ALIGNED = {", src, what, c->name, id,
              (long long)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) {
        sb_printf(&c->weights, i % 8 ? ", " : (i ? ",\n    " : "\n    "));
        if (data[i] == INT32_MIN)
            sb_printf(&c->weights, "INT32_MIN");
        else
            sb_printf(&c->weights, "%ld", (long)data[i]);
    }
    sb_printf(&c->weights, n ? "\n};\n" : "0};\n");
    c->weight_bytes += n * 4;
    c->stats[op].weight_bytes += n * 4;
    return id;
}

static void qparam_lit(sbuf *b, float scale, float inv, int32_t zp, int32_t lo, int32_t hi) {
    sb_printf(b, "{");
    cg_float_lit(b, scale);
    sb_printf(b, ", ");
    cg_float_lit(b, inv);
    sb_printf(b, ", %d, %d, %d}", (int)zp, (int)lo, (int)hi);
}

/* The epilogue of an int8 conv / fc as `static const nnfx_rt_qop op`. */
static void emit_qop_struct(cg *c, const nnfx_node *f, const fx_qop_view *v, int64_t m) {
    const fx_qepi *e = v->e;
    if (e->fixed) { /* TFLite's fixed point: int32 bias, multiplier, shift per channel */
        int fb = cg_emit_i32_array(c, e->fb, m, f->name, "int32 bias (bias / (x_scale * w_scale))", f->op);
        int fm = cg_emit_i32_array(c, e->fm, m, f->name, "q31 multiplier of x_scale * w_scale / y_scale", f->op);
        int fs = cg_emit_i32_array(c, e->fs, m, f->name, "its shift", f->op);
        if (c->int_only)
            sb_printf(&c->body,
                      "        static const nnfx_rt_qop op = {%s_w%d, %s_w%d, %s_w%d, %d, %d, %d, %d, %d, %d};\n",
                      c->name, fb, c->name, fm, c->name, fs, v->x_signed, e->y_signed, (int)v->x_zp, (int)e->y_zp,
                      (int)e->lo, (int)e->hi);
        else
            sb_printf(&c->body,
                      "        static const nnfx_rt_qop op = {0, 0, 0, 0, {0, 0, %d, %d, %d}, %d, 0, %d, %d, %s_w%d, "
                      "%s_w%d, %s_w%d};\n",
                      (int)e->y_zp, (int)e->lo, (int)e->hi, v->x_signed, e->y_signed, (int)v->x_zp, c->name, fb,
                      c->name, fm, c->name, fs);
        return;
    }
    if (c->int_only) {
        nnfx_error_set(c->err, NNFX_ERR_UNSUPPORTED,
                       "codegen --int8-io: node %s (%s) requantizes in float (uint8 values, or an intermediate "
                       "requantization / residual add fused into it): not integer-only",
                       f->name, ir_op_info(f->op)->onnx_type);
        return;
    }
    bool direct = !e->mid && !e->res; /* the runtime's multq / biasq with inv 1 */
    int mw =
        cg_emit_const_array(c, false, direct ? e->multq : e->mult, m, f->name,
                            direct ? "requant multiplier (x_scale * w_scale / y_scale)" : "x_scale * w_scale", f->op);
    int bw = cg_emit_const_array(c, false, direct ? e->biasq : e->bias, m, f->name,
                                 direct ? "requant bias (bias / y_scale + y_zp)" : "bias", f->op);
    if (e->mid) {
        sb_printf(&c->body, "        static const nnfx_rt_qparam mid = ");
        qparam_lit(&c->body, e->mid_scale, e->mid_inv, e->mid_zp, e->mid_lo, e->mid_hi);
        sb_printf(&c->body, ";\n");
    }
    if (e->res) {
        sb_printf(&c->body, "        static const nnfx_rt_qparam res = ");
        qparam_lit(&c->body, e->res_scale, 0.0f, e->res_zp, 0, 0);
        sb_printf(&c->body, ";\n");
    }
    sb_printf(&c->body, "        static const nnfx_rt_qop op = {%s_w%d, %s_w%d, %s, %s, ", c->name, mw, c->name, bw,
              e->mid ? "&mid" : "0", e->res ? "&res" : "0");
    qparam_lit(&c->body, 0.0f, direct ? 1.0f : e->y_inv, e->y_zp, e->lo, e->hi);
    sb_printf(&c->body, ", %d, %d, %d, %d, 0, 0, 0};\n", v->x_signed, e->res_signed, e->y_signed, (int)v->x_zp);
}

/* Whether conv v's epilogue suits the fast kernels: int8 in and out by
 * TFLite's fixed point with no residual, biases below 2^30 in magnitude
 * (sums with the input zero point folded out stay exact in int32). */
static bool fixed_int8(const fx_qconv_geom *g, const fx_qop_view *v) {
    const fx_qepi *e = v->e;
    if (!e->fixed || e->mid || e->res || !v->x_signed || !e->y_signed) return false;
    for (int64_t m = 0; m < g->m; m++)
        if (e->fb[m] > (1 << 30) || e->fb[m] < -(1 << 30)) return false;
    return true;
}

/* Whether conv v runs as nnfx_rt_qpw: 1x1, stride 1, no padding, group 1,
 * C <= 4096 (exact int32 sums), and fixed_int8. */
static bool pointwise_fast(const fx_qconv_geom *g, const fx_qop_view *v) {
    return g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 && g->ph == 0 && g->pw == 0 && g->oh == g->h &&
           g->ow == g->w && g->group == 1 && g->c <= 4096 && fixed_int8(g, v);
}

/* Whether conv v runs as nnfx_rt_qconv1: one input channel per output
 * channel (C / group == 1), dilation 1, a padded plane of at most 768 values
 * and at most 64 pairs of taps (NNFX_RT_QC1_BUF, NNFX_RT_QC1_TAPS in
 * nnfx_rt_int8.h), and fixed_int8. */
static bool conv1_fast(const fx_qconv_geom *g, const fx_qop_view *v) {
    const int64_t hb = (g->oh - 1) * g->sh + g->kh, wb = (g->ow - 1) * g->sw + g->kw;
    return g->c == g->group && g->dh == 1 && g->dw == 1 && g->ph < g->kh && g->pw < g->kw && hb * wb <= 768 &&
           g->kh * ((g->kw + 1) / 2) <= 64 && fixed_int8(g, v);
}

/* Whether conv v runs as nnfx_rt_qdw3: 3x3 depthwise (group = C = M),
 * dilation 1, padding below 3, and fixed_int8. */
static bool depthwise3_fast(const fx_qconv_geom *g, const fx_qop_view *v) {
    return g->kh == 3 && g->kw == 3 && g->dh == 1 && g->dw == 1 && g->group == g->c && g->m == g->c && g->ph < 3 &&
           g->pw < 3 && fixed_int8(g, v);
}

/* Whether conv v runs as nnfx_rt_qconvg: group 1 with 4 <= C*KH*KW <= 640
 * (NNFX_RT_QCG_KMAX in nnfx_rt_int8.h), and fixed_int8. */
static bool general_fast(const fx_qconv_geom *g, const fx_qop_view *v) {
    const int64_t k = g->c * g->kh * g->kw;
    return g->group == 1 && k >= 4 && k <= 640 && fixed_int8(g, v);
}

nnfx_status emit_qop_step(cg *c, const fx_step_view *s) {
    const nnfx_node *f = s->first, *q = s->last;
    fx_qop_view v;
    fx_qop_view_of(s->qop, &v);
    char x[64], r[64] = "0", y[64];
    nnfx_status st;
    if ((st = cg_value_typed(c, s->in[0], NNFX_U8, f, x, sizeof x)) ||
        (st = cg_value_typed(c, s->out, NNFX_U8, q, y, sizeof y)) ||
        (s->nin > 1 && s->in[1] >= 0 && (st = cg_value_typed(c, s->in[1], NNFX_U8, q, r, sizeof r))))
        return st;
    c->int8_steps++;
    if (v.kind == FX_QOP_LUT) { /* an element-wise region on one int8 value: the plan's table */
        int tid = cg_emit_const_array(c, true, v.lut, 256, q->name,
                                      v.x_signed ? "table: y bytes at x + 128" : "table: y bytes at x", q->op);
        sb_printf(&c->body,
                  "    {\n        const unsigned char *xi = %s;\n        unsigned char *yo = %s;\n        long i;\n"
                  "        for (i = 0; i < %lldL; i++)\n"
                  "            yo[i] = (unsigned char)%s_w%d[xi[i] ^ %du];\n    }\n",
                  x, y, (long long)v.numel, c->name, tid, v.x_signed ? 0x80 : 0);
        return NNFX_OK;
    }
    if (v.kind == FX_QOP_MOVE) {
        sb_printf(&c->body, "    memmove(%s, %s, %lld);\n", y, x, (long long)v.numel);
        return NNFX_OK;
    }
    if (v.kind == FX_QOP_MUL || v.kind == FX_QOP_ADD || v.kind == FX_QOP_MEAN) { /* fixed point (qplan.h) */
        cg_use_section(c, "qfixed");
        sb_printf(&c->body, "    {\n        const int8_t *a = (const int8_t *)%s;\n        int8_t *o = (int8_t *)%s;\n",
                  x, y);
        if (v.kind == FX_QOP_MUL)
            sb_printf(&c->body,
                      "        const int8_t *b = (const int8_t *)%s;\n        long i;\n"
                      "        for (i = 0; i < %lldL; i++)\n"
                      "            o[i] = nnfx_rt_qf_mul_q8(a[i], %d, b[i], %d, %ld, %d, %d, -128, 127);\n    }\n",
                      r, (long long)v.numel, (int)v.a_zp, (int)v.b_zp, (long)v.qm, v.shift, (int)v.y_zp);
        else if (v.kind == FX_QOP_ADD) {
            const nnfx_rt_qf_addp *ap = &v.add;
            sb_printf(
                &c->body,
                "        static const nnfx_rt_qf_addp p = {%d, %d, %d, %d, %d, %ld, %ld, %ld, %d, %d, %d};\n"
                "        const int8_t *b = (const int8_t *)%s;\n        long i;\n"
                "        for (i = 0; i < %lldL; i++)\n            o[i] = nnfx_rt_qf_add(&p, a[i], b[i], %d);\n    }\n",
                (int)ap->a_zp, (int)ap->b_zp, (int)ap->y_zp, (int)ap->lo, (int)ap->hi, (long)ap->a_qm, (long)ap->b_qm,
                (long)ap->y_qm, ap->a_shift, ap->b_shift, ap->y_shift, r, (long long)v.numel, v.sub);
        } else
            sb_printf(&c->body,
                      "        long r, i;\n        for (r = 0; r < %lldL; r++) {\n            int32_t s = 0;\n"
                      "            for (i = 0; i < %lldL; i++)\n                s += a[r * %lldL + i] - %d;\n"
                      "            o[r] = nnfx_rt_qf_requant(s, %ld, %d, %d, -128, 127);\n        }\n    }\n",
                      (long long)v.outer, (long long)v.inner, (long long)v.inner, (int)v.a_zp, (long)v.qm, v.shift,
                      (int)v.y_zp);
        return NNFX_OK;
    }
    if (v.kind == FX_QOP_POOL) {
        const fx_qpool_geom *g = &v.pool;
        bool same = !g->global_avg && g->x_signed == g->y_signed && g->x_scale == g->y_scale && g->x_zp == g->y_zp;
        if (c->int_only && same) { /* max pooling that keeps its input's parameters: integers only */
            int64_t geo[13] = {g->n * g->c, g->h,  g->w,  g->oh, g->ow, g->kh, g->kw,
                               g->sh,       g->sw, g->ph, g->pw, g->dh, g->dw};
            cg_use_section(c, "qmaxpool");
            sb_printf(&c->body, "    {   /* NC H W OH OW KH KW sh sw ph pw dh dw */\n");
            emit_geo(&c->body, 13, geo);
            sb_printf(&c->body, "        nnfx_rt_qmaxpool(%s, %s, geo, %d);\n    }\n", x, y, g->x_signed);
            return NNFX_OK;
        }
        if (c->int_only)
            return nnfx_error_set(c->err, NNFX_ERR_UNSUPPORTED,
                                  "codegen --int8-io: node %s (%s) is not integer-only: int8 pooling that "
                                  "requantizes (an average, or other output parameters) runs in float",
                                  f->name, ir_op_info(f->op)->onnx_type);
        int64_t geo[14] = {g->n * g->c, g->h,  g->w,  g->oh, g->ow, g->kh, g->kw,
                           g->sh,       g->sw, g->ph, g->pw, g->dh, g->dw, g->global_avg};
        cg_use_section(c, "qpool");
        sb_printf(&c->body, "    {   /* NC H W OH OW KH KW sh sw ph pw dh dw global_avg */\n");
        emit_geo(&c->body, 14, geo);
        sb_printf(&c->body, "        nnfx_rt_qpool(%s, %s, geo, %d, ", x, y, g->x_signed);
        cg_float_lit(&c->body, g->x_scale);
        sb_printf(&c->body, ", %d, %d, ", (int)g->x_zp, g->y_signed);
        cg_float_lit(&c->body, g->y_scale);
        sb_printf(&c->body, ", %d);\n    }\n", (int)g->y_zp);
        return NNFX_OK;
    }
    if (v.kind == FX_QOP_FC) {
        int wid = cg_emit_const_array(c, true, v.w, v.k * v.m, f->name,
                                      v.w_km ? "int8 weights [K][M]" : "int8 weights [M][K]", f->op);
        sb_printf(&c->body, "    {\n");
        emit_qop_struct(c, f, &v, v.m);
        if (c->err && c->err->status) return c->err->status;
        cg_use_section(c, "qfc");
        sb_printf(&c->body, "        nnfx_rt_qfc(%s, %s_w%d, %d, &op, %s, %s, %lld, %lld, %lld);\n    }\n", x, c->name,
                  wid, v.w_km, r, y, (long long)v.rows, (long long)v.k, (long long)v.m);
        c->stats[f->op].macs += v.rows * v.k * v.m;
        return NNFX_OK;
    }
    const fx_qconv_geom *g = &v.g;
    int64_t kk = g->c / g->group * g->kh * g->kw;
    int wid = cg_emit_const_array(c, true, v.w, g->m * kk, f->name, "int8 weights [M][C/group][KH][KW]", f->op);
    sb_printf(&c->body, "    {\n");
    emit_qop_struct(c, f, &v, g->m);
    if (c->err && c->err->status) return c->err->status;
    if (pointwise_fast(g, &v)) { /* nnfx_rt_qpw: the same bytes as nnfx_rt_qconv */
        cg_use_section(c, "qpw");
        sb_printf(&c->body, "        nnfx_rt_qpw(%s, %s_w%d, &op, %s, %lld, %lld, %lld, %lld);\n    }\n", x, c->name,
                  wid, y, (long long)g->n, (long long)g->c, (long long)g->m, (long long)(g->h * g->w));
        c->stats[f->op].macs += g->n * g->m * g->oh * g->ow * kk;
        return NNFX_OK;
    }
    int64_t geo[16] = {g->n,  g->c,  g->h,  g->w,  g->m,  g->kh, g->kw, g->oh,
                       g->ow, g->sh, g->sw, g->ph, g->pw, g->dh, g->dw, g->group};
    if (g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 && g->ph == 0 && g->pw == 0 && g->oh == g->h &&
        g->ow == g->w) /* pointwise: each plane as one row */
        geo[2] = geo[7] = 1, geo[3] = geo[8] = g->h * g->w;
    /* the fast kernels give the same bytes as nnfx_rt_qconv */
    const char *fast = depthwise3_fast(g, &v) ? "qdw3"
                       : conv1_fast(g, &v)    ? "qconv1"
                       : general_fast(g, &v)  ? "qconvg"
                                              : NULL;
    cg_use_section(c, fast ? fast : "qconv");
    sb_printf(&c->body, "        /* N C H W M KH KW OH OW sh sw ph pw dh dw group */\n");
    emit_geo(&c->body, 16, geo);
    if (fast)
        sb_printf(&c->body, "        nnfx_rt_%s(%s, %s_w%d, &op, %s, geo);\n    }\n", fast, x, c->name, wid, y);
    else
        sb_printf(&c->body, "        nnfx_rt_qconv(%s, %s_w%d, &op, %s, %s, geo);\n    }\n", x, c->name, wid, r, y);
    c->stats[f->op].macs += g->n * g->m * g->oh * g->ow * kk;
    return NNFX_OK;
}

/* Per-axis layout of a Q / DQ node n over x (meta xm): outer, len, inner,
 * and the scales and zero points (len values, zero points as int32). */
static nnfx_status qdq_params(cg *c, const fx_step_view *s, const nnfx_node *n, const nnfx_meta *xm, int64_t *outer,
                              int64_t *len, int64_t *inner, sbuf *lits) {
    bool bad = false;
    const nnfx_tensor *sc = const_input(c, s, 1, &bad), *zp = const_input(c, s, 2, &bad);
    if (ir_attr_int(n, "block_size")) return cg_unsupported(c, n, "blocked quantization is not generated");
    if (bad) { /* a scale or zero point computed at run time (one of each: per tensor), read then */
        const nnfx_meta *sm = cg_arg_meta(n, 1), *zm = cg_arg_meta(n, 2);
        char se[64], ze[64] = "";
        nnfx_status st;
        if (!sm || sm->dtype != NNFX_F32 || cg_meta_numel(sm) != 1 || (zm && cg_meta_numel(zm) != 1))
            return cg_unsupported(c, n, "a scale computed at run time must be one float32 (per tensor)");
        if ((st = cg_value_expr(c, s->in[1], n, se, sizeof se)) ||
            (zm && s->nin > 2 && s->in[2] >= 0 && (st = cg_value_typed(c, s->in[2], zm->dtype, n, ze, sizeof ze))))
            return st;
        *outer = 1, *len = 1, *inner = cg_meta_numel(xm);
        char zv[96] = "0";
        if (ze[0])
            snprintf(zv, sizeof zv,
                     zm->dtype == NNFX_I32  ? "((const int32_t *)(const void *)%s)[0]"
                     : zm->dtype == NNFX_I8 ? "((const signed char *)%s)[0]"
                                            : "((const unsigned char *)%s)[0]",
                     ze);
        sb_printf(lits, "        const float sc[1] = {%s[0]};\n        const int32_t zp[1] = {%s};\n", se, zv);
        return NNFX_OK;
    }
    if (!sc || sc->dtype != NNFX_F32)
        return cg_unsupported(c, n, "the scale is not a float32 constant (an int8 island needs constant quantization)");
    int64_t k = nnfx_tensor_numel(sc);
    *outer = 1, *len = 1, *inner = cg_meta_numel(xm);
    if (sc->rank != 0 && k != 1) {
        int64_t axis = ir_attr_int(n, "axis");
        if (axis < 0) axis += xm->rank;
        if (axis < 0 || axis >= xm->rank || xm->dims[axis].value != k)
            return cg_unsupported(c, n, "the per-axis scales do not match the axis");
        *len = k;
        *outer = infer_prod(xm, 0, (int)axis);
        *inner = infer_prod(xm, (int)axis + 1, xm->rank);
    }
    if (zp && nnfx_tensor_numel(zp) != k) return cg_unsupported(c, n, "zero point and scale differ in length");
    sb_printf(lits, "        static const float sc[%lld] = {", (long long)k);
    for (int64_t i = 0; i < k; i++) {
        sb_printf(lits, i ? ", " : "");
        cg_float_lit(lits, ((const float *)sc->data)[i]);
    }
    sb_printf(lits, "};\n        static const int32_t zp[%lld] = {", (long long)k);
    for (int64_t i = 0; i < k; i++)
        sb_printf(lits, i ? ", %lld" : "%lld", zp ? (long long)core_tensor_get_i64(zp, i) : 0LL);
    sb_printf(lits, "};\n");
    return NNFX_OK;
}

nnfx_status emit_int8_kernel_step(cg *c, const fx_step_view *s) {
    const nnfx_node *n = s->last;
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    char x[64], y[64];
    nnfx_status st;
    if (!xm || s->nin < 1 || s->in[0] < 0) return cg_unsupported(c, n, "its input is not a tensor value");
    if ((st = cg_value_typed(c, s->in[0], xm->dtype, n, x, sizeof x)) ||
        (st = cg_value_typed(c, s->out, ym->dtype, n, y, sizeof y)))
        return st;
    if (n->op == NNFX_OP_CAST && (xm->dtype != ym->dtype || !cg_bytes_dtype(ym->dtype)))
        return cg_unsupported(c, n, "only a Cast of an integer value to its own type is generated");
    if (n->op == NNFX_OP_CAST || (ir_op_info(n->op)->flags & NNFX_F_VIEW)) { /* the bytes, unchanged */
        if (!cg_bytes_dtype(ym->dtype) || xm->dtype != ym->dtype)
            return cg_unsupported(c, n,
                                  "only uint8 / int8 / int32 / int64 / bool values are generated besides float32");
        sb_printf(&c->body, "    memmove(%s, %s, %lld);\n", y, x, (long long)nnfx_meta_nbytes(ym));
        return NNFX_OK;
    }
    int64_t outer = 1, len = 1, inner = 1;
    sbuf lits = {0};
    switch (n->op) {
    case NNFX_OP_QUANTIZE_LINEAR:
    case NNFX_OP_DEQUANTIZE_LINEAR: {
        bool q = n->op == NNFX_OP_QUANTIZE_LINEAR;
        nnfx_dtype it = q ? ym->dtype : xm->dtype;
        if ((q && (xm->dtype != NNFX_F32 || (it != NNFX_U8 && it != NNFX_I8))) ||
            (!q && (ym->dtype != NNFX_F32 || !cg_int_dtype(it))))
            return cg_unsupported(c, n,
                                  q ? "only float32 -> int8 / uint8 quantization is generated"
                                    : "only int8 / uint8 / int32 -> float32 dequantization is generated");
        if ((st = qdq_params(c, s, n, xm, &outer, &len, &inner, &lits))) {
            free(sb_finish(&lits));
            return st;
        }
        char *l = sb_finish(&lits);
        if (!l) return nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
        cg_use_section(c, q ? "quantize_linear" : "dequantize_linear");
        int t = it == NNFX_I8 ? 1 : it == NNFX_I32 ? 2 : 0;
        sb_printf(&c->body, "    {\n%s", l);
        if (q)
            sb_printf(&c->body, "        nnfx_rt_quantize_linear(%s, %s, %d", x, y, t);
        else
            sb_printf(&c->body, "        nnfx_rt_dequantize_linear(%s, %d, %s", x, t, y);
        sb_printf(&c->body, ", %lld, %lld, %lld, sc, zp);\n    }\n", (long long)outer, (long long)len,
                  (long long)inner);
        free(l);
        return NNFX_OK;
    }
    default: /* emit_kernel_step offered the step to cg_emit_typed_op first */
        return cg_unsupported(c, n,
                              "an integer value outside an int8 island: only QuantizeLinear, DequantizeLinear, Cast to "
                              "the same type and reshape-likes are generated on int8 values");
    }
}
