/* emit_qlinear.c — the operator-form quantized ops ONNX Runtime's quantizer
 * writes (QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger) as calls
 * into src/rt/nnfx_rt_qlinear.h, whose loops the interpreter's
 * kernels (src/exec/kernels/quant.c) run too. Scales and zero points are
 * read at run time, so they may be model inputs; the geometry is static. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

/* The 8-bit type code of the runtime (0 uint8, 1 int8), -1 for others. */
static int q8(nnfx_dtype dt) { return dt == NNFX_U8 ? 0 : dt == NNFX_I8 ? 1 : -1; }

/* C expression of step s's optional input a (bytes of type dt; "0" when
 * absent) into buf. */
static nnfx_status opt_in(cg *c, const fx_step_view *s, int a, nnfx_dtype dt, char *buf, size_t len) {
    if (a >= s->nin || s->in[a] < 0) {
        snprintf(buf, len, "0");
        return NNFX_OK;
    }
    return cg_typed_in(c, s, a, dt, buf, len);
}

/* The meta of n's argument a, and its type into *dt (NNFX_F32 when absent). */
static const nnfx_meta *in_meta(const nnfx_node *n, int a, nnfx_dtype *dt) {
    const nnfx_meta *m = cg_arg_meta(n, a);
    *dt = m ? m->dtype : NNFX_F32;
    return m;
}

/* Elements of n's argument a (1 when absent). */
static int64_t in_numel(const nnfx_node *n, int a) {
    const nnfx_meta *m = cg_arg_meta(n, a);
    return m ? cg_meta_numel(m) : 1;
}

/* An integer conv's geometry (nnfx_rt_iconv's g) into g. */
static nnfx_status conv_geometry(cg *c, const nnfx_node *n, const nnfx_meta *xm, const nnfx_meta *wm,
                                 const nnfx_meta *ym, int64_t *g) {
    const int nsp = xm->rank - 2;
    if (nsp < 1 || nsp > 3 || wm->rank != xm->rank || ym->rank != xm->rank)
        return cg_unsupported(c, n, "an integer conv of 1 to 3 spatial dims is generated");
    int64_t k[NNFX_MAX_RANK], in_sp[NNFX_MAX_RANK];
    for (int i = 0; i < nsp; i++)
        k[i] = wm->dims[2 + i].value, in_sp[i] = xm->dims[2 + i].value;
    ir_window win;
    nnfx_error e = {0};
    if (ir_window_read(n, nsp, k, in_sp, &win, &e)) return cg_unsupported(c, n, "its window attributes are invalid");
    const int64_t G = ir_attr_int(n, "group"), C = xm->dims[1].value, M = wm->dims[0].value;
    if (G < 1 || wm->dims[1].value * G != C || M % G) return cg_unsupported(c, n, "channels that do not fit group");
    const int64_t init[22] = {xm->dims[0].value, C, M, G, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0};
    memcpy(g, init, sizeof init);
    for (int i = 0; i < nsp; i++) {
        const int j = 3 - nsp + i;
        g[4 + j] = in_sp[i], g[7 + j] = k[i], g[10 + j] = ym->dims[2 + i].value;
        g[13 + j] = win.s[i], g[16 + j] = win.d[i], g[19 + j] = win.pb[i];
    }
    return NNFX_OK;
}

/* DynamicQuantizeLinear: y, its scale and zero point computed at run time;
 * NAME_run returns 2 for an input holding NaN or infinity (as the
 * interpreter refuses it). */
static nnfx_status emit_dynamic_quantize(cg *c, const fx_step_view *s) {
    const nnfx_node *n = s->last;
    nnfx_dtype dx;
    const nnfx_meta *xm = in_meta(n, 0, &dx);
    char x[96], outs[3][96];
    nnfx_status st;
    if (!xm || dx != NNFX_F32) return cg_unsupported(c, n, "its input must be float32");
    if ((st = cg_value_expr(c, s->in[0], n, x, sizeof x))) return st;
    for (int k = 0; k < 3; k++) {
        const nnfx_dtype dk = k == 1 ? NNFX_F32 : NNFX_U8;
        snprintf(outs[k], sizeof outs[k], "0");
        if (k < s->nout && s->outs[k] >= 0 && fx_plan_value_view(c->p, s->outs[k]).kind == FX_VALUE_ARENA &&
            (st = cg_typed_out(c, s->outs[k], dk, n, outs[k], sizeof outs[k])))
            return st;
    }
    if (!strcmp(outs[0], "0")) { /* y unused: written in the working memory */
        char w[64];
        int64_t used = 0;
        cg_step_scratch(c, cg_meta_numel(xm), &used, w, sizeof w);
        snprintf(outs[0], sizeof outs[0], "((unsigned char *)%s)", w);
    }
    c->may_fail = true;
    cg_use_section(c, "dynamic_quantize");
    sb_printf(&c->body, "    {\n        float sc;\n        uint8_t zp;\n");
    sb_printf(&c->body, "        if (nnfx_rt_dynamic_quantize(%s, %lld, %s, &sc, &zp)) return 2;\n", x,
              (long long)cg_meta_numel(xm), outs[0]);
    if (strcmp(outs[1], "0")) sb_printf(&c->body, "        memcpy(%s, &sc, 4);\n", outs[1]);
    if (strcmp(outs[2], "0")) sb_printf(&c->body, "        memcpy(%s, &zp, 1);\n", outs[2]);
    sb_printf(&c->body, "    }\n");
    return NNFX_OK;
}

nnfx_status cg_emit_qlinear(cg *c, const fx_step_view *s) {
    const nnfx_node *n = s->last;
    if (n->op == NNFX_OP_DYNAMIC_QUANTIZE_LINEAR) return emit_dynamic_quantize(c, s);
    const bool qlinear = n->op == NNFX_OP_QLINEAR_CONV || n->op == NNFX_OP_QLINEAR_MATMUL;
    const bool conv = n->op == NNFX_OP_QLINEAR_CONV || n->op == NNFX_OP_CONV_INTEGER;
    const int ia = 0, ib = qlinear ? 3 : 1, iaz = 2, ibz = qlinear ? 5 : 3;
    nnfx_dtype da, db, dy = n->meta[0].dtype, dt;
    const nnfx_meta *am = in_meta(n, ia, &da), *bm = in_meta(n, ib, &db), *ym = &n->meta[0];
    if (!am || !bm || q8(da) < 0 || q8(db) < 0) return cg_unsupported(c, n, "its data inputs must be uint8 or int8");
    if (qlinear ? q8(dy) < 0 : dy != NNFX_I32) return cg_unsupported(c, n, "an output of another type than the spec's");
    char a[96], b[96], az[96], bz[96], y[96], as[96] = "0", bs[96] = "0", ys[96] = "0", yz[96] = "0", bias[96] = "0";
    nnfx_status st;
    if ((st = cg_typed_in(c, s, ia, da, a, sizeof a)) || (st = cg_typed_in(c, s, ib, db, b, sizeof b)) ||
        (st = opt_in(c, s, iaz, da, az, sizeof az)) || (st = opt_in(c, s, ibz, db, bz, sizeof bz)) ||
        (st = cg_typed_out(c, s->out, dy, n, y, sizeof y)))
        return st;
    if (qlinear) {
        if (!in_meta(n, 1, &dt) || dt != NNFX_F32 || !in_meta(n, 4, &dt) || dt != NNFX_F32 || !in_meta(n, 6, &dt) ||
            dt != NNFX_F32 || (in_meta(n, 7, &dt) && dt != dy))
            return cg_unsupported(c, n, "scales must be float32 and y's zero point of y's type");
        if ((st = cg_typed_in(c, s, 1, NNFX_F32, as, sizeof as)) ||
            (st = cg_typed_in(c, s, 4, NNFX_F32, bs, sizeof bs)) ||
            (st = cg_typed_in(c, s, 6, NNFX_F32, ys, sizeof ys)) || (st = opt_in(c, s, 7, dy, yz, sizeof yz)))
            return st;
        if (n->op == NNFX_OP_QLINEAR_CONV && n->nargs > 8) {
            if (!in_meta(n, 8, &dt) || dt != NNFX_I32) return cg_unsupported(c, n, "a bias of another type than int32");
            if ((st = opt_in(c, s, 8, NNFX_I32, bias, sizeof bias))) return st;
        }
    }
    if (cg_meta_numel(ym) == 0) return NNFX_OK;
    char acc[160];
    int64_t used = 0;
    if (qlinear) { /* the int32 accumulators in the working memory */
        char w[64];
        cg_step_scratch(c, cg_meta_numel(ym) * 4, &used, w, sizeof w);
        snprintf(acc, sizeof acc, "((int32_t *)(void *)%s)", w);
    } else {
        snprintf(acc, sizeof acc, "((int32_t *)(void *)%s)", y);
    }
    const int ta = q8(da), tb = q8(db), ty = qlinear ? q8(dy) : 2;
    char yzp[160];
    snprintf(yzp, sizeof yzp, "nnfx_rt_qld(%s, %d, 0)", yz, ty < 2 ? ty : 0);
    sb_printf(&c->body, "    {\n");
    if (conv) {
        int64_t g[22];
        if ((st = conv_geometry(c, n, am, bm, ym, g))) return st;
        const int64_t M = g[2];
        const bool per_m = qlinear ? in_numel(n, 4) != 1 : in_numel(n, 3) != 1;
        cg_use_section(c, "iconv");
        cg_emit_longs(&c->body, "g", 22, g);
        sb_printf(&c->body,
                  "        nnfx_rt_iconv(%s, %d, %s, %s, %d, %s, %d, (const int32_t *)(const void *)%s, %s, g);\n", a,
                  ta, az, b, tb, bz, per_m ? (int)M : 1, bias, acc);
        if (qlinear)
            sb_printf(&c->body,
                      "        nnfx_rt_requantize(%s, %lld, %lld, %lld, (const float *)(const void *)%s, %d, "
                      "(const float *)(const void *)%s, 0, ((const float *)(const void *)%s)[0], %s, %s, %d);\n",
                      acc, (long long)g[0], (long long)M, (long long)(cg_meta_numel(ym) / (g[0] * M)), bs, per_m, as,
                      ys, yzp, y, ty);
        sb_printf(&c->body, "    }\n");
        return NNFX_OK;
    }
    /* matmul: numpy broadcasting of the batch dims, offsets at generation */
    const int64_t M = am->rank >= 2 ? am->dims[am->rank - 2].value : 1, K = am->dims[am->rank - 1].value;
    const int64_t N = bm->rank >= 2 ? bm->dims[bm->rank - 1].value : 1;
    const int ob = ym->rank - (am->rank >= 2) - (bm->rank >= 2), ab = am->rank >= 2 ? am->rank - 2 : 0,
              bb = bm->rank >= 2 ? bm->rank - 2 : 0;
    const int64_t nbatch = infer_prod(ym, 0, ob);
    const int64_t naz = qlinear ? in_numel(n, 1) : in_numel(n, 2), nbz = qlinear ? in_numel(n, 4) : in_numel(n, 3);
    if ((naz != 1 && naz != M) || (nbz != 1 && nbz != N) || nbatch < 1)
        return cg_unsupported(c, n, "zero points or scales fit neither per tensor nor per row / column");
    sbuf offs = {0};
    for (int which = 0; which < 2; which++) {
        sb_printf(&offs, "        static const long %s[%lld] = {", which ? "boff" : "aoff", (long long)nbatch);
        for (int64_t t = 0; t < nbatch; t++) {
            int64_t rem = t, aoff = 0, boff = 0, ast = M * K, bst = K * N;
            for (int d = ob - 1; d >= 0; d--) {
                const int64_t idx = rem % ym->dims[d].value;
                rem /= ym->dims[d].value;
                const int da_ = d - (ob - ab), db_ = d - (ob - bb);
                if (da_ >= 0) {
                    if (am->dims[da_].value != 1) aoff += idx * ast;
                    ast *= am->dims[da_].value;
                }
                if (db_ >= 0) {
                    if (bm->dims[db_].value != 1) boff += idx * bst;
                    bst *= bm->dims[db_].value;
                }
            }
            sb_printf(&offs, t ? ", %lld" : "%lld", (long long)(which ? boff : aoff));
        }
        sb_printf(&offs, "};\n");
    }
    char *o = sb_finish(&offs);
    if (!o) return nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
    cg_use_section(c, "imatmul");
    sb_printf(&c->body, "%s        long t;\n        for (t = 0; t < %lld; t++)\n", o, (long long)nbatch);
    free(o);
    sb_printf(&c->body,
              "            nnfx_rt_imatmul(%s, %d, aoff[t], %s, %lld, %s, %d, boff[t], %s, %lld, %s + t * %lld, %lld, "
              "%lld, %lld);\n",
              a, ta, az, (long long)naz, b, tb, bz, (long long)nbz, acc, (long long)(M * N), (long long)M, (long long)K,
              (long long)N);
    if (qlinear)
        sb_printf(&c->body,
                  "        nnfx_rt_requantize(%s, %lld, %lld, %lld, (const float *)(const void *)%s, %d, "
                  "(const float *)(const void *)%s, %d, ((const float *)(const void *)%s)[0], %s, %s, %d);\n",
                  acc, (long long)nbatch, (long long)M, (long long)N, as, naz != 1, bs, nbz != 1, ys, yzp, y, ty);
    sb_printf(&c->body, "    }\n");
    return NNFX_OK;
}
