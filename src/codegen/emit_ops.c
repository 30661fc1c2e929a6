/* emit_ops.c — the generator's float op emitters (moved whole from
 * codegen.c, its "emitters" section): unary and binary maps, reductions,
 * Conv (packed, same-padding, depthwise, fused epilogues), Gemm, MatMul,
 * pooling and LayerNormalization, each written as a call into the
 * embedded runtime (src/rt/). */
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

/* ---- emitters ---------------------------------------------------------- */

/* The scalar section name of a map op: its row's name (the runtime's
 * nnfx_rt_NAME), for the ops whose row names gen_map or gen_clip; else NULL. */
const char *cg_unary_fn(nnfx_op op) {
    const cg_emit_fn e = cg_op_emitter(op);
    return e == gen_map || e == gen_clip ? nnfx_op_name(op) : NULL;
}

/* alpha/beta (or min/max) of unary op node n in step s: a Clip-like op's
 * (gen_clip) constant inputs 1 and 2; another's float attributes in the
 * order its ops.def row lists them (alpha; alpha, beta; alpha, gamma; bias,
 * lambd), the node's values or the row's defaults, 0 where it has none. */
bool cg_unary_params(cg *c, const fx_step_view *s, const nnfx_node *n, float *a, float *b) {
    *a = *b = 0;
    if (cg_op_emitter(n->op) == gen_clip)
        return cg_const_float(c, s, 1, -INFINITY, a) && cg_const_float(c, s, 2, INFINITY, b);
    const char *names[2];
    const int k = ir_schema_floats(n->op, names, 2);
    if (k > 0) *a = (float)ir_attr_float(n, names[0]);
    if (k > 1) *b = (float)ir_attr_float(n, names[1]);
    return true;
}

void cg_emit_map(cg *c, const char *fn, const char *x, const char *y, int64_t n, float a, float b) {
    cg_use_section(c, "map");
    cg_use_section(c, fn);
    sb_printf(&c->body, "    nnfx_rt_map(%s, %s, %lld, ", x, y, (long long)n);
    cg_float_lit(&c->body, a);
    sb_printf(&c->body, ", ");
    cg_float_lit(&c->body, b);
    sb_printf(&c->body, ", nnfx_rt_%s);\n", fn);
}

/* The window geometry of a 1-d or 2-d conv or pool from x (xm) to y (ym)
 * into g[0..12): H W OH OW KH KW stride h/w, pad top/left, dilation h/w
 * (a 1-d window is one row: H = OH = KH = 1). */
void cg_window_geo(const nnfx_meta *xm, const nnfx_meta *ym, const int64_t *in_sp, const ir_window *win, int64_t *g) {
    const int nsp = xm->rank - 2, two = nsp == 2;
    const int64_t v[12] = {
        two ? in_sp[0] : 1,   two ? in_sp[1] : in_sp[0], two ? ym->dims[2].value : 1, ym->dims[xm->rank - 1].value,
        two ? win->k[0] : 1,  win->k[nsp - 1],           two ? win->s[0] : 1,         win->s[nsp - 1],
        two ? win->pb[0] : 0, win->pb[nsp - 1],          two ? win->d[0] : 1,         win->d[nsp - 1]};
    memcpy(g, v, sizeof v);
}

/* Output channels per block of a packed conv weight: NNFX_RT_OB of
 * nnfx_rt_conv2d_packed and nnfx_rt_conv2d_same (src/rt/nnfx_rt_kernels.h). */
#define CG_OB 16

/* The copy of conv weight value v ([M, C/G, taps...], a float32 constant)
 * in the order nnfx_rt_conv2d_packed reads it, [G][M/G in blocks of
 * CG_OB][taps][C/G][CG_OB] with zeros past a group's last channel, as an
 * array named in buf; *ok false (nothing emitted) when v is no such
 * constant. Reused by later convs of v with one group (the layout depends
 * on G). */
static nnfx_status packed_weight(cg *c, const nnfx_node *user, int v, int64_t G, char *buf, size_t len, bool *ok) {
    fx_value_view vv = fx_plan_value_view(c->p, v);
    *ok = false;
    if (vv.kind != FX_VALUE_CONST || vv.t->dtype != NNFX_F32 || vv.t->rank < 3 || G < 1 || vv.t->shape[0] % G ||
        nnfx_tensor_numel(vv.t) <= 0)
        return NNFX_OK;
    int id = G == 1 ? c->packed_id[v] : 0;
    if (!id) {
        const int64_t M = vv.t->shape[0], cn = vv.t->shape[1], T = nnfx_tensor_numel(vv.t) / (M * cn);
        const int64_t mg = M / G, nb = (mg + CG_OB - 1) / CG_OB, n = G * nb * T * cn * CG_OB;
        const float *w = vv.t->data;
        float *d = calloc((size_t)(n > 0 ? n : 1), sizeof *d);
        if (!d) return nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
        for (int64_t g = 0; g < G; g++)
            for (int64_t blk = 0; blk < nb; blk++)
                for (int64_t t = 0; t < T; t++)
                    for (int64_t ci = 0; ci < cn; ci++)
                        for (int64_t i = 0; i < CG_OB && blk * CG_OB + i < mg; i++)
                            d[(((g * nb + blk) * T + t) * cn + ci) * CG_OB + i] =
                                w[((g * mg + blk * CG_OB + i) * cn + ci) * T + t];
        char shp[160], what[256];
        nnfx_shape_str(vv.t->rank, vv.t->shape, shp, sizeof shp);
        snprintf(what, sizeof what, "%s packed [group][out/%d][taps][in][%d]", shp, CG_OB, CG_OB);
        id = cg_emit_weight_array(c, user, v, what, d, n);
        if (G == 1) c->packed_id[v] = id;
        free(d);
    }
    snprintf(buf, len, "%s_w%d", c->name, id);
    *ok = true;
    return NNFX_OK;
}

/* Conv node n from x into y. The weights: the expression w, or (w NULL)
 * value wv, packed at generation for the fast kernel unless optimizing for
 * size or depthwise. The packed kernel also adds the residual r (NULL:
 * none) and applies ReLU (relu) in its epilogue: then *fused is set. */
/* `static const int geo[k] = {v...};`, the geometry array the conv and
 * pooling kernels of the runtime take. */
void emit_geo(sbuf *b, int k, const int64_t *v) {
    sb_printf(b, "        static const int geo[%d] = {", k);
    for (int i = 0; i < k; i++)
        sb_printf(b, i ? ", %lld" : "%lld", (long long)v[i]);
    sb_printf(b, "};\n");
}

/* The geometry of a 3-d convolution or pooling of x into y (nnfx_rt_conv3d
 * / nnfx_rt_pool3d): D H W OD OH OW KD KH KW, strides, pads begin,
 * dilations (18 values into g); false when a value does not fit an int. */
static bool window3d_geo(const nnfx_meta *xm, const nnfx_meta *ym, const ir_window *win, int64_t *g) {
    for (int k = 0; k < 3; k++) {
        g[k] = xm->dims[2 + k].value, g[3 + k] = ym->dims[2 + k].value, g[6 + k] = win->k[k];
        g[9 + k] = win->s[k], g[12 + k] = win->pb[k], g[15 + k] = win->d[k];
    }
    for (int i = 0; i < 18; i++)
        if (g[i] < 0 || g[i] > INT32_MAX) return false;
    return true;
}

/* A 3-d convolution (bias, no fused epilogue): nnfx_rt_conv3d. */
static nnfx_status emit_conv3d(cg *c, const nnfx_node *n, const char *x, int wv, const char *w, const char *b,
                               const char *y) {
    const nnfx_meta *xm = cg_arg_meta(n, 0), *wm = cg_arg_meta(n, 1), *ym = &n->meta[0];
    int64_t k[3] = {wm->dims[2].value, wm->dims[3].value, wm->dims[4].value}, in_sp[3];
    for (int d = 0; d < 3; d++)
        in_sp[d] = xm->dims[2 + d].value;
    ir_window win;
    nnfx_status st = ir_window_read(n, 3, k, in_sp, &win, c->err);
    if (st) return st;
    const int64_t grp = ir_attr_int(n, "group");
    int64_t g[22] = {xm->dims[0].value, xm->dims[1].value, wm->dims[0].value};
    if (grp < 1 || g[1] % grp || g[2] % grp || !window3d_geo(xm, ym, &win, g + 3))
        return cg_unsupported(c, n, "a 3-d convolution whose geometry generated C does not take");
    g[21] = grp;
    char wb[64];
    if (!w) {
        if ((st = cg_value_expr(c, wv, n, wb, sizeof wb))) return st;
        w = wb;
    }
    cg_use_section(c, "conv3d");
    sb_printf(&c->body, "    {   /* N C M D H W OD OH OW KD KH KW strides pads dilations group */\n");
    emit_geo(&c->body, 22, g);
    sb_printf(&c->body, "        nnfx_rt_conv3d(%s, %s, %s, %s, geo);\n    }\n", x, w, b ? b : "0", y);
    c->stats[NNFX_OP_CONV].macs += cg_meta_numel(ym) * (g[1] / grp) * k[0] * k[1] * k[2];
    return NNFX_OK;
}

nnfx_status emit_conv(cg *c, const nnfx_node *n, const char *x, int wv, const char *w, const char *b, const char *r,
                      bool relu, const char *y, bool *fused) {
    const nnfx_meta *xm = cg_arg_meta(n, 0), *wm = cg_arg_meta(n, 1), *ym = &n->meta[0];
    if (fused) *fused = false;
    if (xm && wm && xm->rank == 5 && wm->rank == 5) return emit_conv3d(c, n, x, wv, w, b, y);
    if (!xm || !wm || (xm->rank != 4 && xm->rank != 3) || wm->rank != xm->rank)
        return cg_unsupported(c, n, "only 1-d, 2-d and 3-d convolutions are generated");
    int nsp = xm->rank - 2;
    int64_t k[2] = {wm->dims[2].value, nsp == 2 ? wm->dims[3].value : 1};
    int64_t in_sp[2] = {xm->dims[2].value, nsp == 2 ? xm->dims[3].value : 1};
    ir_window win;
    nnfx_status st = ir_window_read(n, nsp, k, in_sp, &win, c->err);
    if (st) return st;
    int64_t grp = ir_attr_int(n, "group");
    bool dw = grp == xm->dims[1].value && grp == wm->dims[0].value, packed = false;
    int64_t g[17] = {xm->dims[0].value, xm->dims[1].value, wm->dims[0].value};
    cg_window_geo(xm, ym, in_sp, &win, g + 3);
    g[15] = grp, g[16] = relu;
    char wb[64];
    if (!w) {
        if (!c->size && !dw && fused && (st = packed_weight(c, n, wv, grp, wb, sizeof wb, &packed))) return st;
        if (!packed && (st = cg_value_expr(c, wv, n, wb, sizeof wb))) return st;
        w = wb;
    }
    /* stride 1 with the output plane the input's: nnfx_rt_conv2d_same reads
     * each tile's inputs as one vector per tap */
    const bool same = g[9] == 1 && g[10] == 1 && g[5] == g[3] && g[6] == g[4];
    const char *kern = packed && same   ? "conv2d_same"
                       : packed         ? "conv2d_packed"
                       : dw && !c->size ? "conv2d_dw"
                                        : "conv2d";
    cg_use_section(c, kern);
    sb_printf(&c->body, "    {   /* N C M H W OH OW KH KW sh sw ph pw dh dw group%s */\n", packed ? " relu" : "");
    emit_geo(&c->body, packed ? 17 : 16, g);
    if (packed)
        sb_printf(&c->body, "        nnfx_rt_%s(%s, %s, %s, %s, %s, geo);\n    }\n", kern, x, w, b ? b : "0",
                  r ? r : "0", y);
    else
        sb_printf(&c->body, "        nnfx_rt_%s(%s, %s, %s, %s, geo);\n    }\n", kern, x, w, b ? b : "0", y);
    if (packed) *fused = true;
    c->stats[NNFX_OP_CONV].macs += cg_meta_numel(ym) * (xm->dims[1].value / (grp ? grp : 1)) * g[7] * g[8];
    return NNFX_OK;
}

/* Fused conv chain: conv, optional residual add, optional activation. */
nnfx_status emit_conv_step(cg *c, const fx_step_view *s) {
    const nnfx_node *conv = s->first, *last = s->last;
    char x[64], b[64], y[64], r[64];
    nnfx_status st;
    int wi = node_index(c, conv->args[1].u.node);
    int bi = conv->nargs > 2 && conv->args[2].kind == NNFX_ARG_NODE ? node_index(c, conv->args[2].u.node) : -1;
    bool res = s->nin > 1 && s->in[1] >= 0, fused;
    if ((st = cg_value_expr(c, s->in[0], conv, x, sizeof x)) ||
        (bi >= 0 && (st = cg_value_expr(c, bi, conv, b, sizeof b))) ||
        (st = cg_value_expr(c, s->out, last, y, sizeof y)) ||
        (res && (st = cg_value_expr(c, s->in[1], last, r, sizeof r))))
        return st;
    if ((st = emit_conv(c, conv, x, wi, NULL, bi >= 0 ? b : NULL, res ? r : NULL, last->op == NNFX_OP_RELU, y, &fused)))
        return st;
    int64_t n = cg_meta_numel(&last->meta[0]);
    if (res) {
        if (!fused) {
            cg_use_section(c, "add_inplace");
            sb_printf(&c->body, "    nnfx_rt_add_inplace(%s, %s, %lld);\n", y, r, (long long)n);
        }
        c->stats[NNFX_OP_ADD].nodes++;
    }
    if (last == conv || last->op == NNFX_OP_ADD) return NNFX_OK;
    c->stats[last->op].nodes++;
    if (fused && last->op == NNFX_OP_RELU) return NNFX_OK;
    if (last->op == NNFX_OP_MUL) { /* x * sigmoid(x) or x * hard_sigmoid(x) */
        const nnfx_node *g = NULL;
        for (int k = 0; k < 2 && k < last->nargs; k++)
            if (last->args[k].kind == NNFX_ARG_NODE && last->args[k].u.node != conv &&
                (last->args[k].u.node->op == NNFX_OP_SIGMOID || last->args[k].u.node->op == NNFX_OP_HARD_SIGMOID))
                g = last->args[k].u.node;
        if (!g) return cg_unsupported(c, last, "unexpected fused epilogue");
        c->stats[g->op].nodes++;
        if (g->op == NNFX_OP_HARD_SIGMOID)
            cg_emit_map(c, "x_hard_sigmoid", y, y, n, (float)ir_attr_float(g, "alpha"),
                        (float)ir_attr_float(g, "beta"));
        else
            cg_emit_map(c, "silu", y, y, n, 0, 0);
        return NNFX_OK;
    }
    const char *fn = cg_unary_fn(last->op);
    float a, bb;
    if (!fn || last->nargs < 1) return cg_unsupported(c, last, "unexpected fused epilogue");
    /* the activation's own constant arguments: a step view over its args */
    int ins[3] = {-1, -1, -1};
    for (int k = 1; k < last->nargs && k < 3; k++)
        if (last->args[k].kind == NNFX_ARG_NODE) ins[k] = node_index(c, last->args[k].u.node);
    fx_step_view av = {FX_STEP_KERNEL, last, last, last->nargs < 3 ? last->nargs : 3, ins, -1};
    if (!cg_unary_params(c, &av, last, &a, &bb)) return cg_unsupported(c, last, "clip bounds are not constants");
    cg_emit_map(c, fn, y, y, n, a, bb);
    return NNFX_OK;
}

/* The runtime function of a broadcast binary op: its row's name, for the
 * ops whose row names gen_binary; else NULL. */
const char *cg_binary_fn(nnfx_op op) { return cg_op_emitter(op) == gen_binary ? nnfx_op_name(op) : NULL; }

static void emit_longs(sbuf *b, const char *name, int k, const int64_t *v) {
    sb_printf(b, "        static const long %s[%d] = {", name, k);
    for (int i = 0; i < k; i++)
        sb_printf(b, i ? ", %lld" : "%lld", (long long)v[i]);
    sb_printf(b, "};\n");
}

void cg_emit_longs(sbuf *b, const char *name, int k, const int64_t *v) { emit_longs(b, name, k, v); }

/* The broadcast of binary node n's two operands to its output (rank <= 6
 * after merging dims), in *bp. */
nnfx_status cg_plan_bcast(cg *c, const nnfx_node *n, kern_bcast *bp) {
    const nnfx_meta *ma = cg_arg_meta(n, 0), *mb = cg_arg_meta(n, 1);
    if (!ma || !mb) return cg_unsupported(c, n, "literal operands are not generated");
    int64_t oshape[NNFX_MAX_RANK];
    float dummy = 0;
    int64_t da[NNFX_MAX_RANK], db[NNFX_MAX_RANK];
    for (int d = 0; d < ma->rank; d++)
        da[d] = ma->dims[d].value;
    for (int d = 0; d < mb->rank; d++)
        db[d] = mb->dims[d].value;
    nnfx_tensor *ta = nnfx_tensor_borrow(NNFX_F32, ma->rank, da, &dummy, c->err);
    nnfx_tensor *tb = nnfx_tensor_borrow(NNFX_F32, mb->rank, db, &dummy, c->err);
    if (!ta || !tb) {
        nnfx_tensor_release(ta), nnfx_tensor_release(tb);
        return NNFX_ERR_NOMEM;
    }
    for (int d = 0; d < n->meta[0].rank; d++)
        oshape[d] = n->meta[0].dims[d].value;
    const nnfx_tensor *ops[2] = {ta, tb};
    bool ok = kern_bcast_plan(bp, n->meta[0].rank, oshape, 2, ops);
    nnfx_tensor_release(ta), nnfx_tensor_release(tb);
    if (!ok || bp->rank > 6) return cg_unsupported(c, n, "operands do not broadcast (or rank > 6)");
    return NNFX_OK;
}

nnfx_status cg_emit_binary(cg *c, const nnfx_node *n, const char *fn, const char *a, const char *b, const char *y) {
    int64_t sa[NNFX_MAX_RANK], sb_[NNFX_MAX_RANK];
    kern_bcast bp;
    nnfx_status st = cg_plan_bcast(c, n, &bp);
    if (st) return st;
    for (int d = 0; d < bp.rank; d++)
        sa[d] = bp.st[0][d], sb_[d] = bp.st[1][d];
    cg_use_section(c, "bcast");
    cg_use_section(c, fn);
    sb_printf(&c->body, "    {\n");
    emit_longs(&c->body, "shape", bp.rank, bp.shape);
    emit_longs(&c->body, "sa", bp.rank, sa);
    emit_longs(&c->body, "sb", bp.rank, sb_);
    sb_printf(&c->body, "        nnfx_rt_bcast(%s, %s, %s, %d, shape, sa, sb, nnfx_rt_%s);\n    }\n", a, b, y, bp.rank,
              fn);
    return NNFX_OK;
}

/* Contiguous [outer, n, inner] view of reducing dims [lo, hi) of m. */
void split3(const nnfx_meta *m, int lo, int hi, int64_t *outer, int64_t *n, int64_t *inner) {
    *outer = infer_prod(m, 0, lo);
    *n = infer_prod(m, lo, hi);
    *inner = infer_prod(m, hi, m->rank);
}

/* The kind of a reduction op (a global pooling too) as the runtime's
 * reductions number them (0 mean, 1 sum, 2 max, 3 min, 4 prod, 5 L1, 6 L2, 7 log-sum, 8 log-sum-exp,
 * 9 sum of squares), -1 for another op: from the name of a row whose emitter
 * is gen_reduce, reduce_KIND or global_KIND_pool (average: mean). */
int reduce_kind(nnfx_op op) {
    static const char *const kinds[] = {"mean", "sum", "max",     "min",         "prod",
                                        "l1",   "l2",  "log_sum", "log_sum_exp", "sum_square"};
    if (cg_op_emitter(op) != gen_reduce) return -1;
    const char *name = nnfx_op_name(op);
    char kind[32] = "";
    if (strncmp(name, "reduce_", 7) == 0) {
        snprintf(kind, sizeof kind, "%s", name + 7);
    } else if (strncmp(name, "global_", 7) == 0) {
        const size_t len = strlen(name + 7);
        if (len > 5 && len < sizeof kind && strcmp(name + 7 + len - 5, "_pool") == 0)
            snprintf(kind, sizeof kind, "%.*s", (int)(len - 5), name + 7);
    }
    if (strcmp(kind, "average") == 0) return 0;
    for (int k = 0; k < (int)(sizeof kinds / sizeof kinds[0]); k++)
        if (strcmp(kind, kinds[k]) == 0) return k;
    return -1;
}

/* A reduction of x into y, kind as reduce_kind; x and y NULL for a
 * float64 or int64 one (the typed reduction reads and writes its bytes). */
nnfx_status emit_reduce(cg *c, const fx_step_view *s, const nnfx_node *n, const char *x, const char *y, int kind) {
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    char xb[96], yb[96];
    const bool typed = xm && xm->dtype != NNFX_F32; /* float64 or int64: the typed reduction */
    if (typed) {
        nnfx_status st;
        if (xm->dtype != NNFX_F64 && (xm->dtype != NNFX_I64 || kind == 0 || (kind >= 6 && kind <= 8)))
            return cg_unsupported(c, n,
                                  "a reduction of this type (the interpreter's take float32, float64 and, "
                                  "but for Mean, L2 and the logs, int64)");
        if ((st = cg_typed_in(c, s, 0, xm->dtype, xb, sizeof xb)) ||
            (st = cg_typed_out(c, s->out, n->meta[0].dtype, n, yb, sizeof yb)))
            return st;
        x = xb, y = yb;
    }
    bool axis[NNFX_MAX_RANK] = {0};
    int64_t ax[NNFX_MAX_RANK];
    int nax = 0;
    if (n->op == NNFX_OP_GLOBAL_AVERAGE_POOL || n->op == NNFX_OP_GLOBAL_MAX_POOL) {
        for (int d = 2; d < xm->rank; d++)
            ax[nax++] = d;
    } else if (s->nin > 1 && s->in[1] >= 0) {
        fx_value_view vv = fx_plan_value_view(c->p, s->in[1]);
        if (vv.kind != FX_VALUE_CONST || !kern_ints(vv.t, ax, NNFX_MAX_RANK, &nax))
            return cg_unsupported(c, n, "reduction axes are not constants");
    } else {
        const nnfx_attr *at = nnfx_node_attr(n, "axes");
        if (at && at->kind == NNFX_ATTR_INTS)
            for (int i = 0; i < at->u.ints.n && nax < NNFX_MAX_RANK; i++)
                ax[nax++] = at->u.ints.v[i];
    }
    if (nax == 0) {
        if (ir_attr_int(n, "noop_with_empty_axes")) {
            sb_printf(&c->body, "    memcpy(%s, %s, %lld);\n", y, x, (long long)nnfx_meta_nbytes(xm));
            return NNFX_OK;
        }
        for (int d = 0; d < xm->rank; d++)
            ax[nax++] = d;
    }
    for (int i = 0; i < nax; i++) {
        int a;
        if (!infer_axis(ax[i], xm->rank, false, &a)) return cg_unsupported(c, n, "reduction axis out of range");
        axis[a] = true;
    }
    /* size-1 dims do not break contiguity */
    int lo = -1, hi = -1;
    for (int d = 0; d < xm->rank; d++)
        if (axis[d] && xm->dims[d].value != 1) {
            if (lo < 0) lo = d;
            hi = d + 1;
        }
    if (lo < 0) lo = hi = 0;
    if (typed) return cg_emit_reduce_axes(c, n, x, y, axis, kind);
    for (int d = lo; d < hi; d++)
        if (!axis[d] && xm->dims[d].value != 1) return cg_emit_reduce_axes(c, n, x, y, axis, kind);
    int64_t outer, len, inner;
    split3(xm, lo, hi, &outer, &len, &inner);
    const char *kern = kind >= 4 ? "reduce_ext" : "reduce"; /* 4..9: nnfx_rt_reduce_ext's kinds */
    cg_use_section(c, kern);
    sb_printf(&c->body, "    nnfx_rt_%s(%s, %s, %lld, %lld, %lld, %d);\n", kern, x, y, (long long)outer, (long long)len,
              (long long)inner, kind);
    return NNFX_OK;
}

/* A 3-d max or average pooling: nnfx_rt_pool3d. */
static nnfx_status emit_pool3d(cg *c, const nnfx_node *n, const char *x, const char *y) {
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    const nnfx_attr *ks = nnfx_node_attr(n, "kernel_shape");
    if (!ks || ks->kind != NNFX_ATTR_INTS || ks->u.ints.n != 3) return cg_unsupported(c, n, "bad kernel_shape");
    int64_t in_sp[3] = {xm->dims[2].value, xm->dims[3].value, xm->dims[4].value};
    ir_window win;
    nnfx_status st = ir_window_read(n, 3, ks->u.ints.v, in_sp, &win, c->err);
    if (st) return st;
    int64_t g[23] = {xm->dims[0].value * xm->dims[1].value};
    if (!window3d_geo(xm, ym, &win, g + 1) || g[0] > INT32_MAX)
        return cg_unsupported(c, n, "a 3-d pooling whose geometry generated C does not take");
    g[19] = ir_attr_int(n, "count_include_pad") != 0;
    for (int k = 0; k < 3; k++)
        g[20 + k] = win.pe[k];
    cg_use_section(c, "pool3d");
    sb_printf(&c->body, "    {   /* NC D H W OD OH OW KD KH KW strides pads dilations incl_pad pads_end */\n");
    emit_geo(&c->body, 23, g);
    sb_printf(&c->body, "        nnfx_rt_pool3d(%s, %s, geo, %d);\n    }\n", x, y, n->op == NNFX_OP_MAX_POOL);
    return NNFX_OK;
}

nnfx_status emit_pool(cg *c, const nnfx_node *n, const char *x, const char *y) {
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    if (xm && xm->rank == 5) return emit_pool3d(c, n, x, y);
    if (!xm || (xm->rank != 4 && xm->rank != 3))
        return cg_unsupported(c, n, "only 1-d, 2-d and 3-d pooling is generated");
    const nnfx_attr *ks = nnfx_node_attr(n, "kernel_shape");
    int nsp = xm->rank - 2;
    if (!ks || ks->kind != NNFX_ATTR_INTS || ks->u.ints.n != nsp) return cg_unsupported(c, n, "bad kernel_shape");
    int64_t in_sp[2] = {xm->dims[2].value, nsp == 2 ? xm->dims[3].value : 1};
    ir_window win;
    nnfx_status st = ir_window_read(n, nsp, ks->u.ints.v, in_sp, &win, c->err);
    if (st) return st;
    int64_t g[16] = {xm->dims[0].value * xm->dims[1].value};
    cg_window_geo(xm, ym, in_sp, &win, g + 1);
    g[13] = ir_attr_int(n, "count_include_pad") != 0;
    g[14] = nsp == 2 ? win.pe[0] : 0, g[15] = win.pe[nsp - 1];
    cg_use_section(c, "pool2d");
    sb_printf(&c->body, "    {   /* NC H W OH OW KH KW sh sw ph pw dh dw incl_pad pe_h pe_w */\n");
    emit_geo(&c->body, 16, g);
    sb_printf(&c->body, "        nnfx_rt_pool2d(%s, %s, geo, %d);\n    }\n", x, y, n->op == NNFX_OP_MAX_POOL);
    return NNFX_OK;
}

/* Gemm node n (transA / transB, alpha, beta, a broadcast C) of inputs in[]
 * into y (ops.def's emit for Gemm). */
nnfx_status gen_gemm(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const nnfx_meta *am = cg_arg_meta(n, 0), *bm = cg_arg_meta(n, 1);
    if (!am || !bm || am->rank != 2 || bm->rank != 2) return cg_unsupported(c, n, "gemm operands must be matrices");
    int ta = (int)ir_attr_int(n, "transA"), tb = (int)ir_attr_int(n, "transB");
    int64_t M = ta ? am->dims[1].value : am->dims[0].value, K = ta ? am->dims[0].value : am->dims[1].value;
    int64_t N = tb ? bm->dims[0].value : bm->dims[1].value;
    int64_t cm = 1, cn = 1;
    bool hasc = s->nin > 2 && s->in[2] >= 0;
    if (hasc) {
        const nnfx_meta *cmeta = cg_arg_meta(n, 2);
        if (!cmeta) return cg_unsupported(c, n, "gemm C must be a tensor");
        if (cmeta->rank == 2) cm = cmeta->dims[0].value, cn = cmeta->dims[1].value;
        if (cmeta->rank == 1) cn = cmeta->dims[0].value;
        if ((cm != 1 && cm != M) || (cn != 1 && cn != N)) return cg_unsupported(c, n, "gemm C does not broadcast");
    }
    cg_use_section(c, "gemm");
    sb_printf(&c->body, "    nnfx_rt_gemm(%s, %s, %s, %s, %lld, %lld, %lld, %d, %d, ", in[0], in[1], hasc ? in[2] : "0",
              y, (long long)M, (long long)N, (long long)K, ta, tb);
    cg_float_lit(&c->body, (float)ir_attr_float(n, "alpha"));
    sb_printf(&c->body, ", ");
    cg_float_lit(&c->body, (float)ir_attr_float(n, "beta"));
    sb_printf(&c->body, ", %lld, %lld);\n", (long long)cm, (long long)cn);
    c->stats[n->op].macs += M * N * K;
    return NNFX_OK;
}

/* MatMul with numpy's broadcasting; a vector A is one row [1, K], a vector
 * B one column [K, 1] (the output's layout is the same without that dim). */
nnfx_status emit_matmul(cg *c, const nnfx_node *n, char (*in)[64], const char *y) {
    const nnfx_meta *am = cg_arg_meta(n, 0), *bm = cg_arg_meta(n, 1), *ym = &n->meta[0];
    if (!am || !bm || am->rank < 1 || bm->rank < 1) return cg_unsupported(c, n, "matmul of scalars");
    const int64_t M = am->rank >= 2 ? am->dims[am->rank - 2].value : 1, K = am->dims[am->rank - 1].value,
                  N = bm->rank >= 2 ? bm->dims[bm->rank - 1].value : 1;
    const int64_t batch = M * N > 0 ? cg_meta_numel(ym) / (M * N) : infer_prod(ym, 0, ym->rank >= 2 ? ym->rank - 2 : 0);
    const int64_t ab = am->rank >= 2 ? infer_prod(am, 0, am->rank - 2) : 1,
                  bb = bm->rank >= 2 ? infer_prod(bm, 0, bm->rank - 2) : 1;
    if ((ab != batch && ab != 1) || (bb != batch && bb != 1))
        return cg_unsupported(c, n, "matmul batch broadcasting other than all-or-one");
    cg_use_section(c, "matmul");
    sb_printf(&c->body, "    nnfx_rt_matmul(%s, %s, %s, %lld, %lld, %lld, %lld, %lld, %lld);\n", in[0], in[1], y,
              (long long)batch, (long long)M, (long long)K, (long long)N, (long long)(ab == 1 ? 0 : M * K),
              (long long)(bb == 1 ? 0 : K * N));
    c->stats[n->op].macs += batch * M * N * K;
    return NNFX_OK;
}

/* The constant tensor of step input a (NULL when absent); *bad is set when
 * the input is present but not a constant. */
const nnfx_tensor *const_input(cg *c, const fx_step_view *s, int a, bool *bad) {
    if (a >= s->nin || s->in[a] < 0) return NULL;
    fx_value_view vv = fx_plan_value_view(c->p, s->in[a]);
    if (vv.kind != FX_VALUE_CONST) {
        *bad = true;
        if (s->in[a] < c->nnodes && !c->in_expr) /* a model input, or a value computed from model inputs */
            c->want_value = c->nodes[s->in[a]];
        return NULL;
    }
    return vv.t;
}

/* LayerNormalization node n (scale, optional bias; Mean / InvStdDev when the
 * step has them) of inputs in[] into y (ops.def's emit). */
nnfx_status gen_layer_norm(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const nnfx_meta *xm = cg_arg_meta(n, 0), *sm = cg_arg_meta(n, 1), *bm = s->nin > 2 ? cg_arg_meta(n, 2) : NULL;
    int axis;
    if (!xm || !infer_axis(ir_attr_int(n, "axis"), xm->rank, false, &axis))
        return cg_unsupported(c, n, "layer_normalization axis out of range");
    int64_t inner = infer_prod(xm, axis, xm->rank), outer = inner ? cg_meta_numel(xm) / inner : 0;
    bool has_b = s->nin > 2 && s->in[2] >= 0;
    int64_t ns = sm ? cg_meta_numel(sm) : -1, nb = has_b ? (bm ? cg_meta_numel(bm) : -1) : 0;
    if (!sm) {
        fx_value_view vv = fx_plan_value_view(c->p, s->in[1]);
        if (vv.kind == FX_VALUE_CONST) ns = nnfx_tensor_numel(vv.t);
    }
    if (has_b && !bm) {
        fx_value_view vv = fx_plan_value_view(c->p, s->in[2]);
        if (vv.kind == FX_VALUE_CONST) nb = nnfx_tensor_numel(vv.t);
    }
    if ((ns != inner && ns != 1) || (has_b && nb != inner && nb != 1))
        return cg_unsupported(c, n, "layer_normalization scale/B do not hold one value per normalised element");
    /* the optional outputs Mean and InvStdDev: one value per row */
    char stat[2][64] = {"NULL", "NULL"};
    for (int k = 1; k < s->nout && k < 3; k++) {
        nnfx_status st;
        if (s->outs[k] >= 0 && fx_plan_value_view(c->p, s->outs[k]).kind != FX_VALUE_NONE &&
            (st = cg_value_expr(c, s->outs[k], n, stat[k - 1], sizeof stat[k - 1])))
            return st;
    }
    cg_use_section(c, "layer_norm");
    sb_printf(&c->body, "    nnfx_rt_layer_norm(%s, %s, %lld, %s, %lld, ", in[0], in[1], (long long)ns,
              has_b ? in[2] : "NULL", (long long)nb);
    cg_float_lit(&c->body, (float)ir_attr_float(n, "epsilon"));
    sb_printf(&c->body, ", %s, %lld, %lld, %s, %s);\n", y, (long long)outer, (long long)inner, stat[0], stat[1]);
    return NNFX_OK;
}

/* ---- the emit column's emitters of this file (ops.def, cg_emit_fn) ----- */

/* An element-wise map (Relu, Sigmoid, Sin...): nnfx_rt_map of the op's scalar
 * function (cg_unary_fn) with its float attributes. */
nnfx_status gen_map(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    float a, b;
    const char *fn = cg_unary_fn(n->op);
    if (!fn || !cg_unary_params(c, s, n, &a, &b)) return cg_unsupported(c, n, "not an element-wise map");
    cg_emit_map(c, fn, in[0], y, cg_meta_numel(&n->meta[0]), a, b);
    return NNFX_OK;
}

/* A broadcast binary op (Add, Sub, Mul, Div, Pow): nnfx_rt_bcast. */
nnfx_status gen_binary(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const char *fn = cg_binary_fn(n->op);
    if (!fn) return cg_unsupported(c, n, "not a broadcast binary op");
    return cg_emit_binary(c, n, fn, in[0], in[1], y);
}

/* A reshape-like view (Reshape, Flatten, Squeeze, Identity...): the data,
 * unchanged. */
nnfx_status gen_view(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    sb_printf(&c->body, "    memmove(%s, %s, %lld);\n", y, in[0], (long long)(cg_meta_numel(&n->meta[0]) * 4));
    return NNFX_OK;
}

/* A reduction or global pooling (reduce_kind); in and y NULL for a float64
 * or int64 one. */
nnfx_status gen_reduce(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return emit_reduce(c, s, n, in ? in[0] : NULL, y, reduce_kind(n->op));
}

/* Conv: x, weights, optional bias (no fusion: emit_conv_step fuses). */
nnfx_status gen_conv(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return emit_conv(c, n, in[0], s->in[1], in[1], s->nin > 2 && s->in[2] >= 0 ? in[2] : NULL, NULL, false, y, NULL);
}

/* MaxPool: 1-d and 2-d without Indices by emit_pool; with Indices or 3-d
 * by nnfx_rt_maxpool_idx (emit_float_ops.c). */
nnfx_status gen_max_pool(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    if (s->nout != 1 || (cg_arg_meta(n, 0) && cg_arg_meta(n, 0)->rank == 5)) return cg_emit_maxpool_idx(c, s);
    return emit_pool(c, n, in[0], y);
}

/* AveragePool: emit_pool. */
nnfx_status gen_average_pool(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return emit_pool(c, n, in[0], y);
}

/* MatMul: emit_matmul. */
nnfx_status gen_matmul(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return emit_matmul(c, n, in, y);
}
