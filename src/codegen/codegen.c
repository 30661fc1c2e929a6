/* codegen.c — nnfx_codegen: the compiled plan written down as standalone
 * C99. The generator builds the same plan the runtime executes
 * (src/exec/fast_plan.c: constants folded, reshape-likes as views, convs
 * with fused epilogues, one activation arena with lifetime-based offsets),
 * then emits one call per step into small portable kernels whose text is
 * src/codegen/runtime/ (embedded at build time; the interpreter compiles the
 * same scalar definitions). Only the kernel sections a model uses are
 * copied, so a model without Exp/Sigmoid/... needs no libm. */
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
#include "exec/fast_int.h"
#include "exec/kernels/kernels_int.h"
#include "exec/qplan.h"
#include "ir/infer_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

/* ---- runtime sections -------------------------------------------------- */

/* The text of section `name` in the embedded runtime (between its "@rt"
 * marker and "@end"), its marker line's flags in *flags. */
static bool section_text(const char *name, const char **start, size_t *len, const char **flags, size_t *flen) {
    for (int f = 0; cg_runtime_files[f].name; f++) {
        const char *s = cg_runtime_files[f].text;
        size_t nl = strlen(name);
        for (const char *m = strstr(s, "/* @rt "); m; m = strstr(m + 1, "/* @rt ")) {
            const char *nm = m + 7;
            if (strncmp(nm, name, nl) != 0 || (nm[nl] != ' ' && nm[nl] != '*')) continue;
            const char *eol = strchr(m, '\n');
            const char *end = strstr(m, "/* @end */");
            if (!eol || !end) return false;
            *flags = nm + nl;
            *flen = (size_t)(eol - (nm + nl));
            *start = eol + 1;
            *len = (size_t)(end - *start);
            return true;
        }
    }
    return false;
}

/* Marks section `name` (and what it needs) as used. */
void cg_use_section(cg *c, const char *name) {
    if (c->int_only && strcmp(name, "q8") == 0) name = "q8fix"; /* no float: the integer-only form */
    for (int i = 0; i < c->nsections; i++)
        if (strcmp(c->sections[i], name) == 0) return;
    const char *t, *fl;
    size_t len, flen;
    if (!section_text(name, &t, &len, &fl, &flen)) return;
    char flags[128];
    snprintf(flags, sizeof flags, "%.*s", (int)(flen < 127 ? flen : 127), fl);
    const char *nd = strstr(flags, "needs:");
    if (nd) /* needs:A,B,...: each one before this section */
        for (nd += 6; *nd && *nd != ' ' && *nd != '*';) {
            char dep[64];
            int k = 0;
            for (; *nd && *nd != ' ' && *nd != '*' && *nd != ','; nd++)
                if (k < 63) dep[k++] = *nd;
            dep[k] = 0;
            if (k) cg_use_section(c, dep);
            if (*nd == ',') nd++;
        }
    if (strstr(flags, "libm")) c->libm = true;
    if (c->nsections < CG_MAX_SECTIONS) snprintf(c->sections[c->nsections++], sizeof c->sections[0], "%s", name);
}

/* ---- values --------------------------------------------------------------- */

static int node_index(const cg *c, const nnfx_node *n) {
    for (int i = 0; i < c->nnodes; i++)
        if (c->nodes[i] == n) return i;
    return -1;
}

int cg_node_value(const cg *c, const nnfx_node *n) { return node_index(c, n); }

void cg_float_lit(sbuf *b, float v) {
    if (v != v)
        sb_printf(b, "NAN");
    else if (isinf(v))
        sb_printf(b, v > 0 ? "INFINITY" : "-INFINITY");
    else
        sb_printf(b, "%af", (double)v);
}

/* Declares and defines the next weight array NAME_wID holding d[0..n)
 * (value v's data, described by `what`); returns ID. */
int cg_emit_weight_array(cg *c, const nnfx_node *user, int v, const char *what, const float *d, int64_t n) {
    int id = ++c->nweights;
    const char *src = v < c->nnodes ? c->nodes[v]->name : "literal";
    sb_printf(&c->decls, "extern const float %s_w%d[%lld]; /* %s %s */\n", c->name, id, (long long)(n ? n : 1), src,
              what);
    sb_printf(&c->weights, "/* %s %s */\nconst float %s_w%d[%lld] NNFX_ALIGNED = {", src, what, c->name, id,
              (long long)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) {
        sb_printf(&c->weights, i % 6 ? ", " : (i ? ",\n    " : "\n    "));
        cg_float_lit(&c->weights, d[i]);
    }
    sb_printf(&c->weights, n ? "\n};\n" : "0};\n");
    c->weight_bytes += n * 4;
    c->stats[user->op].weight_bytes += n * 4;
    return id;
}

/* C expression for value v's data as `const float *` / `float *`. */
nnfx_status cg_value_expr(cg *c, int v, const nnfx_node *user, char *buf, size_t len) {
    fx_value_view vv = fx_plan_value_view(c->p, v);
    switch (vv.kind) {
    case FX_VALUE_ARENA:
        if ((c->base + vv.off) % 4) break;
        snprintf(buf, len, "(A + %lld)", (long long)((c->base + vv.off) / 4));
        return NNFX_OK;
    case FX_VALUE_INPUT:
        if (!c->in_expr) {
            if (vv.input >= 0 && vv.input < c->nin_model && c->in_dtype[vv.input] != NNFX_F32)
                return nnfx_error_set(c->err, NNFX_ERR_UNSUPPORTED,
                                      "codegen: node %s (%s): it reads model input %d (%s) as float32 data", user->name,
                                      nnfx_op_name(user->op), vv.input, nnfx_dtype_name(c->in_dtype[vv.input]));
            snprintf(buf, len, c->void_io ? "((const float *)inputs[%d])" : "inputs[%d]", vv.input);
            return NNFX_OK;
        }
        if (vv.input < 0 || vv.input >= c->nin_expr || !c->in_expr[vv.input][0])
            return nnfx_error_set(c->err, NNFX_ERR_UNSUPPORTED,
                                  "codegen: node %s (%s): it reads a body input generated C does not hold (a Loop's "
                                  "iteration number or condition, or a captured value that is not float32)",
                                  user->name, nnfx_op_name(user->op));
        snprintf(buf, len, "%s", c->in_expr[vv.input]);
        return NNFX_OK;
    case FX_VALUE_CONST: {
        if (vv.t->dtype != NNFX_F32)
            return nnfx_error_set(c->err, NNFX_ERR_UNSUPPORTED,
                                  "codegen: node %s (%s): a %s constant is read as data (only float32 is generated)",
                                  user->name, nnfx_op_name(user->op), nnfx_dtype_name(vv.t->dtype));
        if (!c->weight_id[v]) {
            char shp[160];
            nnfx_shape_str(vv.t->rank, vv.t->shape, shp, sizeof shp);
            c->weight_id[v] = cg_emit_weight_array(c, user, v, shp, vv.t->data, nnfx_tensor_numel(vv.t));
        }
        snprintf(buf, len, "%s_w%d", c->name, c->weight_id[v]);
        return NNFX_OK;
    }
    default: break;
    }
    return nnfx_error_set(c->err, NNFX_ERR_UNSUPPORTED, "codegen: node %s (%s): an input has no storage in the plan",
                          user->name, nnfx_op_name(user->op));
}

const nnfx_meta *cg_arg_meta(const nnfx_node *n, int a) {
    return a >= 0 && a < n->nargs && n->args[a].kind == NNFX_ARG_NODE ? &n->args[a].u.node->meta[0] : NULL;
}

/* Elements of a static meta (the generator runs on static shapes only). */
int64_t cg_meta_numel(const nnfx_meta *m) { return nnfx_meta_numel(m); }

/* Float value of constant argument a (a literal or a CONST value), or dflt
 * when absent. false when present but not a constant scalar. */
bool cg_const_float(cg *c, const fx_step_view *s, int a, float dflt, float *out) {
    *out = dflt;
    if (a >= s->nin || s->in[a] < 0) return true;
    fx_value_view vv = fx_plan_value_view(c->p, s->in[a]);
    if (vv.kind != FX_VALUE_CONST || nnfx_tensor_numel(vv.t) != 1) return false;
    *out = (float)nnfx_tensor_get(vv.t, 0);
    return true;
}

/* The small model inputs (64 values at most) that seeds[0..nseeds) are or
 * are computed from, named in names ("a" or "a, b") and as --value options
 * in opts; returns how many. */
static int inputs_behind(const nnfx_node *const *seeds, int nseeds, char *names, size_t nlen, char *opts, size_t olen);

nnfx_status cg_unsupported(cg *c, const nnfx_node *n, const char *why) {
    if (c->want_value && c->want_value->opcode == NNFX_PLACEHOLDER) /* a parameter of the op given as a model input */
        return nnfx_error_set(c->err, NNFX_ERR_UNSUPPORTED,
                              "codegen: node %s (%s): %s: it is model input %s; where that is constant, fix it: "
                              "--value %s=V0,V1,... (or =FILE.npy)",
                              n->name, nnfx_op_name(n->op), why, c->want_value->name, c->want_value->name);
    char names[256], opts[512];
    const int k = c->want_value ? inputs_behind(&c->want_value, 1, names, sizeof names, opts, sizeof opts) : 0;
    if (k) /* computed from model inputs */
        return nnfx_error_set(c->err, NNFX_ERR_UNSUPPORTED,
                              "codegen: node %s (%s): %s: it is computed from model input%s %s; where %s constant, "
                              "fix %s: %s (or =FILE.npy)",
                              n->name, nnfx_op_name(n->op), why, k > 1 ? "s" : "", names, k > 1 ? "they are" : "it is",
                              k > 1 ? "them" : "it", opts);
    return nnfx_error_set(c->err, NNFX_ERR_UNSUPPORTED, "codegen: node %s (%s): %s", n->name, nnfx_op_name(n->op), why);
}

/* ---- emitters ---------------------------------------------------------- */

/* The scalar section name of a unary op, or NULL. */
const char *cg_unary_fn(nnfx_op op) {
    switch (op) {
    case NNFX_OP_RELU: return "relu";
    case NNFX_OP_LEAKY_RELU: return "leaky_relu";
    case NNFX_OP_SIGMOID: return "sigmoid";
    case NNFX_OP_HARD_SIGMOID: return "hard_sigmoid";
    case NNFX_OP_HARD_SWISH: return "hard_swish";
    case NNFX_OP_TANH: return "tanh";
    case NNFX_OP_ELU: return "elu";
    case NNFX_OP_ERF: return "erf";
    case NNFX_OP_EXP: return "exp";
    case NNFX_OP_LOG: return "log";
    case NNFX_OP_SQRT: return "sqrt";
    case NNFX_OP_NEG: return "neg";
    case NNFX_OP_ABS: return "abs";
    case NNFX_OP_RECIPROCAL: return "reciprocal";
    case NNFX_OP_CLIP: return "clip";
    default: return cg_float_unary_fn(op); /* emit_float_ops.c's further ones */
    }
}

/* alpha/beta (or min/max) of unary op node n in step s. */
bool cg_unary_params(cg *c, const fx_step_view *s, const nnfx_node *n, float *a, float *b) {
    *a = *b = 0;
    switch (n->op) {
    case NNFX_OP_LEAKY_RELU: *a = (float)nnfx_node_attr_float(n, "alpha", 0.01); return true;
    case NNFX_OP_ELU: *a = (float)nnfx_node_attr_float(n, "alpha", 1.0); return true;
    case NNFX_OP_HARD_SIGMOID:
        *a = (float)nnfx_node_attr_float(n, "alpha", 0.2);
        *b = (float)nnfx_node_attr_float(n, "beta", 0.5);
        return true;
    case NNFX_OP_CLIP: return cg_const_float(c, s, 1, -INFINITY, a) && cg_const_float(c, s, 2, INFINITY, b);
    default: cg_float_unary_params(n, a, b); return true;
    }
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
 * nnfx_rt_conv2d_packed and nnfx_rt_conv2d_same (src/codegen/runtime/nnfx_rt_kernels.h). */
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
static void emit_geo(sbuf *b, int k, const int64_t *v) {
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
    const int64_t grp = nnfx_node_attr_int(n, "group", 1);
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

static nnfx_status emit_conv(cg *c, const nnfx_node *n, const char *x, int wv, const char *w, const char *b,
                             const char *r, bool relu, const char *y, bool *fused) {
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
    int64_t grp = nnfx_node_attr_int(n, "group", 1);
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
static nnfx_status emit_conv_step(cg *c, const fx_step_view *s) {
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
    if (last->op == NNFX_OP_MUL) { /* x * sigmoid(x) */
        c->stats[NNFX_OP_SIGMOID].nodes++;
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

const char *cg_binary_fn(nnfx_op op) {
    switch (op) {
    case NNFX_OP_ADD: return "add";
    case NNFX_OP_SUB: return "sub";
    case NNFX_OP_MUL: return "mul";
    case NNFX_OP_DIV: return "div";
    case NNFX_OP_POW: return "pow";
    default: return NULL;
    }
}

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
static void split3(const nnfx_meta *m, int lo, int hi, int64_t *outer, int64_t *n, int64_t *inner) {
    *outer = infer_prod(m, 0, lo);
    *n = infer_prod(m, lo, hi);
    *inner = infer_prod(m, hi, m->rank);
}

/* The kind of a reduction op (a global pooling too) as the runtime's
 * reductions number them (0 mean, 1 sum, 2 max, 3 min, 4 prod, 5 L1, 6 L2, 7 log-sum, 8 log-sum-exp,
 * 9 sum of squares), -1 for another op. */
static int reduce_kind(nnfx_op op) {
    switch (op) {
    case NNFX_OP_GLOBAL_AVERAGE_POOL:
    case NNFX_OP_REDUCE_MEAN: return 0;
    case NNFX_OP_REDUCE_SUM: return 1;
    case NNFX_OP_GLOBAL_MAX_POOL:
    case NNFX_OP_REDUCE_MAX: return 2;
    case NNFX_OP_REDUCE_MIN: return 3;
    case NNFX_OP_REDUCE_PROD: return 4;
    case NNFX_OP_REDUCE_L1: return 5;
    case NNFX_OP_REDUCE_L2: return 6;
    case NNFX_OP_REDUCE_LOG_SUM: return 7;
    case NNFX_OP_REDUCE_LOG_SUM_EXP: return 8;
    case NNFX_OP_REDUCE_SUM_SQUARE: return 9;
    default: return -1;
    }
}

/* A reduction of x into y, kind as reduce_kind; x and y NULL for a
 * float64 or int64 one (the typed reduction reads and writes its bytes). */
static nnfx_status emit_reduce(cg *c, const fx_step_view *s, const nnfx_node *n, const char *x, const char *y,
                               int kind) {
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
        if (nnfx_node_attr_int(n, "noop_with_empty_axes", 0)) {
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
    g[19] = nnfx_node_attr_int(n, "count_include_pad", 0) != 0;
    for (int k = 0; k < 3; k++)
        g[20 + k] = win.pe[k];
    cg_use_section(c, "pool3d");
    sb_printf(&c->body, "    {   /* NC D H W OD OH OW KD KH KW strides pads dilations incl_pad pads_end */\n");
    emit_geo(&c->body, 23, g);
    sb_printf(&c->body, "        nnfx_rt_pool3d(%s, %s, geo, %d);\n    }\n", x, y, n->op == NNFX_OP_MAX_POOL);
    return NNFX_OK;
}

static nnfx_status emit_pool(cg *c, const nnfx_node *n, const char *x, const char *y) {
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
    g[13] = nnfx_node_attr_int(n, "count_include_pad", 0) != 0;
    g[14] = nsp == 2 ? win.pe[0] : 0, g[15] = win.pe[nsp - 1];
    cg_use_section(c, "pool2d");
    sb_printf(&c->body, "    {   /* NC H W OH OW KH KW sh sw ph pw dh dw incl_pad pe_h pe_w */\n");
    emit_geo(&c->body, 16, g);
    sb_printf(&c->body, "        nnfx_rt_pool2d(%s, %s, geo, %d);\n    }\n", x, y, n->op == NNFX_OP_MAX_POOL);
    return NNFX_OK;
}

static nnfx_status emit_gemm(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const nnfx_meta *am = cg_arg_meta(n, 0), *bm = cg_arg_meta(n, 1);
    if (!am || !bm || am->rank != 2 || bm->rank != 2) return cg_unsupported(c, n, "gemm operands must be matrices");
    int ta = (int)nnfx_node_attr_int(n, "transA", 0), tb = (int)nnfx_node_attr_int(n, "transB", 0);
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
    cg_float_lit(&c->body, (float)nnfx_node_attr_float(n, "alpha", 1.0));
    sb_printf(&c->body, ", ");
    cg_float_lit(&c->body, (float)nnfx_node_attr_float(n, "beta", 1.0));
    sb_printf(&c->body, ", %lld, %lld);\n", (long long)cm, (long long)cn);
    c->stats[n->op].macs += M * N * K;
    return NNFX_OK;
}

/* MatMul with numpy's broadcasting; a vector A is one row [1, K], a vector
 * B one column [K, 1] (the output's layout is the same without that dim). */
static nnfx_status emit_matmul(cg *c, const nnfx_node *n, char (*in)[64], const char *y) {
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
static const nnfx_tensor *const_input(cg *c, const fx_step_view *s, int a, bool *bad) {
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

static nnfx_status emit_layer_norm(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const nnfx_meta *xm = cg_arg_meta(n, 0), *sm = cg_arg_meta(n, 1), *bm = s->nin > 2 ? cg_arg_meta(n, 2) : NULL;
    int axis;
    if (!xm || !infer_axis(nnfx_node_attr_int(n, "axis", -1), xm->rank, false, &axis))
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
    cg_float_lit(&c->body, (float)nnfx_node_attr_float(n, "epsilon", 1e-5));
    sb_printf(&c->body, ", %s, %lld, %lld, %s, %s);\n", y, (long long)outer, (long long)inner, stat[0], stat[1]);
    return NNFX_OK;
}

/* ---- moves of data (any type generated C holds) ---------------------------
 * Transpose, Expand, Slice and Split are strided copies (emit_strided_copy),
 * Concat places its pieces' rows (emit_concat_rows). */

/* Concat of values of any type: each piece's rows after the previous
 * pieces' valid rows (nnfx_rt_concat_rows; all of them unless the axis is
 * a data-dependent dim). */
static nnfx_status emit_concat_rows(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const nnfx_meta *ym = &n->meta[0];
    const nnfx_dtype dt = ym->dtype;
    int axis;
    if (!infer_axis(nnfx_node_attr_int(n, "axis", 0), ym->rank, false, &axis))
        return cg_unsupported(c, n, "concat axis out of range");
    char y[96];
    nnfx_status st;
    if ((st = cg_value_typed(c, s->out, dt, n, y, sizeof y))) return st;
    sbuf xs = {0}, bs = {0}, vs = {0};
    bool static_rows = true; /* every piece's rows all valid: no array of valid counts */
    for (int a = 0; a < s->nin && !st; a++) {
        const nnfx_meta *am = cg_arg_meta(n, a);
        char x[96], e[64];
        if (!am || s->in[a] < 0 || am->dtype != dt) {
            st = cg_unsupported(c, n,
                                am && s->in[a] >= 0 ? "its inputs' types differ from its output's"
                                                    : "literal concat inputs are not generated");
            break;
        }
        if ((st = cg_typed_in(c, s, a, dt, x, sizeof x))) break;
        cg_dim_expr(c, n->args[a].u.node, axis, e, sizeof e);
        sb_printf(&xs, "%s%s", a ? ", " : "", x);
        sb_printf(&bs, "%s%lld", a ? ", " : "", (long long)am->dims[axis].value);
        sb_printf(&vs, "%s(long)%s", a ? ", " : "", e);
        char b[32];
        snprintf(b, sizeof b, "%lld", (long long)am->dims[axis].value);
        static_rows &= strcmp(b, e) == 0;
    }
    char *xt = sb_finish(&xs), *bt = sb_finish(&bs), *vt = sb_finish(&vs);
    if (!st && (!xt || !bt || !vt)) st = nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
    if (!st) {
        cg_use_section(c, "concat_rows");
        sb_printf(&c->body, "    {\n        const unsigned char *const pieces[%d] = {%s};\n", s->nin, xt);
        sb_printf(&c->body, "        static const long bound[%d] = {%s};\n", s->nin, bt);
        if (!static_rows) sb_printf(&c->body, "        const long valid[%d] = {%s};\n", s->nin, vt);
        sb_printf(&c->body,
                  "        nnfx_rt_concat_rows((unsigned char *)%s, %lld, %lld, %lld, %d, %d, pieces, bound, %s);\n"
                  "    }\n",
                  y, (long long)infer_prod(ym, 0, axis), (long long)ym->dims[axis].value,
                  (long long)infer_prod(ym, axis + 1, ym->rank), (int)nnfx_dtype_size(dt), s->nin,
                  static_rows ? "bound" : "valid");
    }
    free(xt), free(bt), free(vt);
    return st;
}

/* A strided copy of step s's input a (values of type dt) into value vy:
 * y's elements, row-major over shape[0..rank) (rank <= 8), read x at
 * element base + sum idx[d] * st[d]. A contiguous run is one memmove;
 * otherwise float32 goes through nnfx_rt_transpose and any other type's
 * bytes through nnfx_rt_transpose_bytes. Nothing for an empty shape. */
static nnfx_status emit_strided_copy(cg *c, const fx_step_view *s, int a, int vy, nnfx_dtype dt, int64_t base, int rank,
                                     const int64_t *shape, const int64_t *st) {
    const nnfx_node *n = s->last;
    const bool flt = dt == NNFX_F32;
    char x[96], y[96], at[48] = "";
    nnfx_status e;
    if (flt ? ((e = cg_value_expr(c, s->in[a], n, x, sizeof x)) || (e = cg_value_expr(c, vy, n, y, sizeof y)))
            : ((e = cg_typed_in(c, s, a, dt, x, sizeof x)) || (e = cg_typed_out(c, vy, dt, n, y, sizeof y))))
        return e;
    const int64_t es = (int64_t)nnfx_dtype_size(dt);
    int64_t numel = 1;
    bool contiguous = true;
    for (int d = rank - 1; d >= 0; d--) {
        if (shape[d] > 1 && st[d] != numel) contiguous = false;
        numel *= shape[d];
    }
    if (numel == 0) return NNFX_OK;
    if (base) snprintf(at, sizeof at, " + %lld", (long long)(flt ? base : base * es));
    if (contiguous) {
        sb_printf(&c->body, "    memmove(%s, %s%s, %lld);\n", y, x, at, (long long)(numel * es));
        return NNFX_OK;
    }
    cg_use_section(c, flt ? "transpose" : "transpose_bytes");
    sb_printf(&c->body, "    {\n");
    emit_longs(&c->body, "shape", rank, shape);
    emit_longs(&c->body, "st", rank, st);
    if (flt)
        sb_printf(&c->body, "        nnfx_rt_transpose(%s%s, %s, %d, shape, st);\n    }\n", x, at, y, rank);
    else
        sb_printf(&c->body, "        nnfx_rt_transpose_bytes(%s%s, %s, %lld, %d, shape, st);\n    }\n", x, at, y,
                  (long long)es, rank);
    return NNFX_OK;
}

/* Transpose (rank 1..8) of any type. */
static nnfx_status emit_transpose(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    if (!xm || xm->rank > 8 || xm->rank < 1 || xm->rank != ym->rank)
        return cg_unsupported(c, n, "transpose of a scalar or of rank > 8");
    int64_t xd[NNFX_MAX_RANK], xst[NNFX_MAX_RANK], st[NNFX_MAX_RANK], shape[NNFX_MAX_RANK];
    for (int d = 0; d < xm->rank; d++)
        xd[d] = xm->dims[d].value;
    kern_strides(xm->rank, xd, xst);
    const nnfx_attr *pa = nnfx_node_attr(n, "perm");
    for (int d = 0; d < ym->rank; d++) {
        const int64_t pd =
            pa && pa->kind == NNFX_ATTR_INTS && pa->u.ints.n == ym->rank ? pa->u.ints.v[d] : ym->rank - 1 - d;
        if (pd < 0 || pd >= xm->rank) return cg_unsupported(c, n, "transpose perm out of range");
        st[d] = xst[pd], shape[d] = ym->dims[d].value;
    }
    return emit_strided_copy(c, s, 0, s->out, ym->dtype, 0, ym->rank, shape, st);
}

/* Expand to the output's (static) shape, of any type: stride 0 along the
 * broadcast dims (the interpreter's kern_expand). */
static nnfx_status emit_expand(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    if (!xm || ym->rank > 8 || xm->rank > ym->rank) return cg_unsupported(c, n, "expand of rank > 8");
    int64_t shape[NNFX_MAX_RANK], st[NNFX_MAX_RANK], acc = 1;
    for (int d = ym->rank - 1; d >= 0; d--) {
        const int j = d - (ym->rank - xm->rank);
        shape[d] = ym->dims[d].value;
        if (j >= 0 && xm->dims[j].value != 1 && xm->dims[j].value != shape[d])
            return cg_unsupported(c, n, "the input does not expand");
        st[d] = j < 0 || xm->dims[j].value == 1 ? 0 : acc;
        if (j >= 0) acc *= xm->dims[j].value;
    }
    return emit_strided_copy(c, s, 0, s->out, ym->dtype, 0, ym->rank, shape, st);
}

/* Slice with constant starts / ends / axes / steps, of any type. */
static nnfx_status emit_slice(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    if (!xm || xm->rank < 1 || xm->rank > 8) return cg_unsupported(c, n, "slice of rank 0 or > 8");
    bool bad = false;
    const nnfx_tensor *tst = const_input(c, s, 1, &bad), *ten = const_input(c, s, 2, &bad),
                      *tax = const_input(c, s, 3, &bad), *tsp = const_input(c, s, 4, &bad);
    int64_t st[NNFX_MAX_RANK], en[NNFX_MAX_RANK], ax[NNFX_MAX_RANK], sp[NNFX_MAX_RANK];
    int ns = 0, ne = 0, na = 0, np = 0;
    if (bad || !tst || !ten || !kern_ints(tst, st, NNFX_MAX_RANK, &ns) || !kern_ints(ten, en, NNFX_MAX_RANK, &ne) ||
        !kern_ints(tax, ax, NNFX_MAX_RANK, &na) || !kern_ints(tsp, sp, NNFX_MAX_RANK, &np) || ns != ne ||
        (tax && na != ns) || (tsp && np != ns))
        return cg_unsupported(c, n, "slice starts/ends/axes/steps are not constants of matching length");
    int64_t dims[NNFX_MAX_RANK], start[NNFX_MAX_RANK], step[NNFX_MAX_RANK], cnt[NNFX_MAX_RANK], xst[NNFX_MAX_RANK],
        vst[NNFX_MAX_RANK];
    for (int d = 0; d < xm->rank; d++)
        dims[d] = xm->dims[d].value;
    char why[200];
    if (!ir_slice_plan(xm->rank, dims, ns, st, en, tax ? ax : NULL, tsp ? sp : NULL, start, step, cnt, why, sizeof why))
        return cg_unsupported(c, n, why);
    kern_strides(xm->rank, dims, xst);
    int64_t base = 0;
    for (int d = 0; d < xm->rank; d++) {
        if (cnt[d] <= 0) return NNFX_OK; /* empty result: nothing to copy */
        base += start[d] * xst[d];
        vst[d] = step[d] * xst[d];
    }
    return emit_strided_copy(c, s, 0, s->out, n->meta[0].dtype, base, xm->rank, cnt, vst);
}

/* Split, of any type: output k takes `outer` rows of its size x inner
 * values from offset start_k x inner of the input's rows (the
 * interpreter's kern_split copy, sizes from the outputs' inferred shapes). */
static nnfx_status emit_split(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    int axis;
    if (!xm || xm->rank < 1 || !infer_axis(nnfx_node_attr_int(n, "axis", 0), xm->rank, false, &axis))
        return cg_unsupported(c, n, "split axis out of range");
    const int64_t outer = infer_prod(xm, 0, axis), inner = infer_prod(xm, axis + 1, xm->rank),
                  len = xm->dims[axis].value;
    int64_t at = 0;
    for (int k = 0; k < s->nout; k++) {
        const int64_t size = n->meta[k].dims[axis].value, shape[2] = {outer, size * inner}, st[2] = {len * inner, 1};
        nnfx_status e = emit_strided_copy(c, s, 0, s->outs[k], xm->dtype, at * inner, 2, shape, st);
        if (e) return e;
        at += size;
    }
    return NNFX_OK;
}

static nnfx_status emit_gather(cg *c, const fx_step_view *s, const nnfx_node *n, const char *x, const char *y) {
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    int axis;
    if (!xm || !infer_axis(nnfx_node_attr_int(n, "axis", 0), xm->rank, false, &axis))
        return cg_unsupported(c, n, "gather axis out of range");
    bool bad = false;
    const nnfx_tensor *ti = const_input(c, s, 1, &bad);
    /* indices computed at run time, or another data type: emit_typed_ops.c took the step */
    if (bad || !ti || (ti->dtype != NNFX_I64 && ti->dtype != NNFX_I32))
        return cg_unsupported(c, n, "gather indices are not int32/int64 constants");
    int64_t len = xm->dims[axis].value, ni = nnfx_tensor_numel(ti);
    if (ni == 0) return NNFX_OK;
    sbuf ib = {0};
    for (int64_t j = 0; j < ni; j++) {
        int64_t k = core_tensor_get_i64(ti, j);
        if (k < 0) k += len;
        if (k < 0 || k >= len) {
            free(sb_finish(&ib));
            return cg_unsupported(c, n, "gather index out of range");
        }
        sb_printf(&ib, j ? ", %lld" : "%lld", (long long)k);
    }
    char *idx = sb_finish(&ib);
    cg_use_section(c, "gather");
    sb_printf(&c->body, "    {\n        static const long idx[%lld] = {%s};\n", (long long)ni, idx);
    sb_printf(&c->body, "        nnfx_rt_gather(%s, %s, %lld, %lld, %lld, idx, %lld);\n    }\n", x, y,
              (long long)infer_prod(xm, 0, axis), (long long)len, (long long)infer_prod(xm, axis + 1, xm->rank),
              (long long)ni);
    free(idx);
    return NNFX_OK;
}

/* y = x gathered through one source-index table per dim (kern_pad_src's
 * or the resize's own; a negative entry: the value v) as a call of
 * nnfx_rt_index_map; tabs holds the tables one after the other. */
static void emit_index_map(cg *c, const char *x, const char *y, const nnfx_meta *xm, const nnfx_meta *ym,
                           const int64_t *tabs, float v, const char *typed_v) {
    int64_t shp[NNFX_MAX_RANK], xdims[NNFX_MAX_RANK], xst[NNFX_MAX_RANK], total = 0;
    for (int d = 0; d < ym->rank; d++)
        shp[d] = ym->dims[d].value, xdims[d] = xm->dims[d].value, total += shp[d];
    kern_strides(xm->rank, xdims, xst);
    cg_use_section(c, "index_map");
    sb_printf(&c->body, "    {\n");
    emit_longs(&c->body, "shape", ym->rank, shp);
    emit_longs(&c->body, "xs", ym->rank, xst);
    sb_printf(&c->body, "        static const long tab[%lld] = {", (long long)(total ? total : 1));
    for (int64_t i = 0; i < total; i++)
        sb_printf(&c->body, i ? ", %lld" : "%lld", (long long)tabs[i]);
    sb_printf(&c->body, total ? "};\n" : "0};\n");
    if (typed_v) { /* values of another type than float32: typed_v declares `v`, the padding value */
        sb_printf(&c->body,
                  "        %s\n        nnfx_rt_index_map_bytes(%s, %s, (long)sizeof v, %d, shape, xs, tab, "
                  "(const unsigned char *)&v);\n    }\n",
                  typed_v, x, y, ym->rank);
        return;
    }
    sb_printf(&c->body, "        nnfx_rt_index_map(%s, %s, %d, shape, xs, tab, ", x, y, ym->rank);
    cg_float_lit(&c->body, v);
    sb_printf(&c->body, ");\n    }\n");
}

/* Pad: constant mode with pads >= 0 as a fill and a strided copy
 * (nnfx_rt_pad); reflect, edge, wrap and negative pads (cropping) through
 * per-dim source tables from the interpreter's own mapping (kern_pad_src). */
static nnfx_status emit_pad(cg *c, const fx_step_view *s, const nnfx_node *n, const char *x, const char *y) {
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    char xb[96], yb[96], typed_v[160] = "";
    const bool typed = xm && xm->dtype != NNFX_F32; /* an integer, bool, float64 or float16 pad: index map of bytes */
    if (typed) {
        nnfx_status st;
        if (cg_tcode(xm->dtype) < 0) return cg_unsupported(c, n, "a pad of a type generated C lacks");
        if ((st = cg_typed_in(c, s, 0, xm->dtype, xb, sizeof xb)) ||
            (st = cg_typed_out(c, s->out, xm->dtype, n, yb, sizeof yb)))
            return st;
        x = xb, y = yb;
    }
    const char *ms = nnfx_node_attr_string(n, "mode", "constant");
    const int mode = kern_pad_mode(ms);
    if (mode < 0) return cg_unsupported(c, n, "unknown pad mode");
    if (!xm || xm->rank < 1 || xm->rank > 6 || ym->rank != xm->rank)
        return cg_unsupported(c, n, "pad of rank 0 or > 6");
    bool bad = false;
    const nnfx_tensor *tp = const_input(c, s, 1, &bad), *tv = const_input(c, s, 2, &bad),
                      *ta = const_input(c, s, 3, &bad);
    int64_t pads[2 * NNFX_MAX_RANK], axes[NNFX_MAX_RANK], pb[NNFX_MAX_RANK], pe[NNFX_MAX_RANK];
    int np = 0, na = 0;
    char why[200];
    if (bad || !tp || !kern_ints(tp, pads, 2 * NNFX_MAX_RANK, &np) || !kern_ints(ta, axes, NNFX_MAX_RANK, &na) ||
        !ir_pad_plan(xm->rank, np, pads, na, ta ? axes : NULL, pb, pe, why, sizeof why))
        return cg_unsupported(c, n, "pads/axes are not valid constants");
    float v = tv && nnfx_tensor_numel(tv) >= 1 ? (float)nnfx_tensor_get(tv, 0) : 0.0f;
    if (typed) { /* the padding value in the data's own type */
        if (tv && tv->dtype != xm->dtype) return cg_unsupported(c, n, "a padding value of another type than the data");
        sbuf lit = {0};
        sb_printf(&lit, "const %s v = ", cg_ctype(xm->dtype));
        if (tv && nnfx_tensor_numel(tv) >= 1)
            cg_typed_lit(&lit, xm->dtype, tv->data, 0);
        else
            sb_printf(&lit, "0");
        sb_printf(&lit, ";");
        char *t = sb_finish(&lit);
        if (!t) return nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
        snprintf(typed_v, sizeof typed_v, "%s", t);
        free(t);
    }
    int64_t shp[NNFX_MAX_RANK], ydims[NNFX_MAX_RANK], yst[NNFX_MAX_RANK], base = 0, total = 0;
    bool simple = mode == 0;
    for (int d = 0; d < xm->rank; d++) {
        shp[d] = xm->dims[d].value;
        ydims[d] = ym->dims[d].value;
        if (ydims[d] != shp[d] + pb[d] + pe[d]) return cg_unsupported(c, n, "the pads do not give the output's shape");
        if (mode && shp[d] == 0 && ydims[d] > 0)
            return cg_unsupported(c, n, "a pad mode other than constant of an empty dim");
        simple &= pb[d] >= 0 && pe[d] >= 0;
        total += ydims[d];
    }
    if (cg_meta_numel(ym) == 0) return NNFX_OK;
    if (!simple || typed) {
        int64_t *tabs = malloc(sizeof *tabs * (size_t)(total ? total : 1));
        if (!tabs) return nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
        int64_t at = 0;
        for (int d = 0; d < xm->rank; d++)
            for (int64_t o = 0; o < ydims[d]; o++)
                tabs[at++] = kern_pad_src(mode, o - pb[d], shp[d]);
        emit_index_map(c, x, y, xm, ym, tabs, v, typed ? typed_v : NULL);
        free(tabs);
        return NNFX_OK;
    }
    kern_strides(ym->rank, ydims, yst);
    for (int d = 0; d < xm->rank; d++)
        base += pb[d] * yst[d];
    cg_use_section(c, "pad");
    sb_printf(&c->body, "    {\n");
    emit_longs(&c->body, "shape", xm->rank, shp);
    emit_longs(&c->body, "st", xm->rank, yst);
    sb_printf(&c->body, "        nnfx_rt_pad(%s, %s, %lld, ", x, y, (long long)cg_meta_numel(ym));
    cg_float_lit(&c->body, v);
    sb_printf(&c->body, ", %lld, %d, shape, st);\n    }\n", (long long)base, xm->rank);
    return NNFX_OK;
}

static void step_scratch(cg *c, int64_t bytes, int64_t *used, char *buf, size_t len);

/* The largest intermediate of a Resize from x to y done one dim at a time
 * in dim order (the interpreter's ping-pong buffers), in floats. */
static int64_t resize_big(const nnfx_meta *xm, const nnfx_meta *ym) {
    int64_t cur[NNFX_MAX_RANK], big = nnfx_meta_numel(xm);
    for (int d = 0; d < xm->rank; d++)
        cur[d] = xm->dims[d].value;
    for (int d = 0; d < xm->rank; d++) {
        cur[d] = ym->dims[d].value;
        int64_t t = nnfx_shape_numel(xm->rank, cur);
        if (t > big) big = t;
    }
    return big;
}

/* Whether Resize node n is generated as passes of taps (linear, cubic or
 * tf_crop_and_resize) rather than index tables. */
static bool resize_by_taps(const nnfx_node *n) {
    const char *mode = nnfx_node_attr_string(n, "mode", "nearest");
    const char *ct = nnfx_node_attr_string(n, "coordinate_transformation_mode", "half_pixel");
    return (mode && strcmp(mode, "nearest") != 0) || (ct && strcmp(ct, "tf_crop_and_resize") == 0);
}

/* Linear or cubic Resize, or any with tf_crop_and_resize: the
 * interpreter's passes, one per dim it changes in dim order, each a call of
 * nnfx_rt_resize_axis with the dim's taps (kern_resize_taps); passes
 * between the first and the last go through two buffers of the steps'
 * working memory. */
static nnfx_status emit_resize_taps(cg *c, const fx_step_view *s, const nnfx_node *n, const char *x, const char *y) {
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    bool bad = false;
    const nnfx_tensor *roi = const_input(c, s, 1, &bad), *sc = const_input(c, s, 2, &bad);
    if (bad) return cg_unsupported(c, n, "resize roi / scales are not constants");
    const int r = xm->rank;
    int64_t xs[NNFX_MAX_RANK], os[NNFX_MAX_RANK], cur[NNFX_MAX_RANK], maxn = 1;
    for (int d = 0; d < r; d++) {
        xs[d] = cur[d] = xm->dims[d].value, os[d] = ym->dims[d].value;
        if (os[d] > maxn) maxn = os[d];
    }
    int64_t *idx = malloc(sizeof *idx * (size_t)(4 * maxn));
    float *w = malloc(sizeof *w * (size_t)(4 * maxn));
    int *nt = malloc(sizeof *nt * (size_t)maxn);
    int pass[NNFX_MAX_RANK], np = 0;
    nnfx_status st = idx && w && nt ? NNFX_OK : nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
    float extra = 0;
    for (int d = 0; d < r && !st; d++) { /* which dims the interpreter resamples */
        bool skip;
        st = kern_resize_taps(n, r, xs, os, sc, roi, d, idx, w, nt, &extra, &skip, c->err);
        if (!st && !skip) pass[np++] = d;
    }
    char buf[2][64];
    int64_t used = 0;
    if (!st && np > 1) {
        const int64_t big = resize_big(xm, ym);
        step_scratch(c, big * 4, &used, buf[0], sizeof buf[0]);
        step_scratch(c, big * 4, &used, buf[1], sizeof buf[1]);
    }
    if (!st && np == 0) sb_printf(&c->body, "    memmove(%s, %s, %lld);\n", y, x, (long long)(cg_meta_numel(ym) * 4));
    for (int i = 0; i < np && !st; i++) {
        const int d = pass[i];
        bool skip;
        if ((st = kern_resize_taps(n, r, xs, os, sc, roi, d, idx, w, nt, &extra, &skip, c->err))) break;
        int64_t outer = 1, inner = 1;
        for (int k = 0; k < d; k++)
            outer *= cur[k];
        for (int k = d + 1; k < r; k++)
            inner *= cur[k];
        cg_use_section(c, "resize_axis");
        sb_printf(&c->body, "    {   /* dim %d: %lld -> %lld */\n        static const long ti[%lld] = {", d,
                  (long long)xs[d], (long long)os[d], (long long)(4 * os[d]));
        for (int64_t k = 0; k < 4 * os[d]; k++)
            sb_printf(&c->body, k ? ", %lld" : "%lld", (long long)idx[k]);
        sb_printf(&c->body, "};\n        static const float tw[%lld] = {", (long long)(4 * os[d]));
        for (int64_t k = 0; k < 4 * os[d]; k++) {
            sb_printf(&c->body, k ? ", " : "");
            cg_float_lit(&c->body, w[k]);
        }
        sb_printf(&c->body, "};\n        static const signed char tn[%lld] = {", (long long)os[d]);
        for (int64_t k = 0; k < os[d]; k++)
            sb_printf(&c->body, k ? ", %d" : "%d", nt[k]);
        sb_printf(&c->body, "};\n        nnfx_rt_resize_axis(%s, %s, %lld, %lld, %lld, %lld, ti, tw, tn, ",
                  i == 0 ? x : buf[(i - 1) & 1], i == np - 1 ? y : buf[i & 1], (long long)outer, (long long)xs[d],
                  (long long)os[d], (long long)inner);
        cg_float_lit(&c->body, extra);
        sb_printf(&c->body, ");\n    }\n");
        cur[d] = os[d];
    }
    free(idx), free(w), free(nt);
    if (st && st != NNFX_ERR_UNSUPPORTED && st != NNFX_ERR_NOMEM)
        return cg_unsupported(c, n, "resize parameters are not supported");
    return st;
}

/* Resize. Nearest: one source index table per dim, from the interpreter's
 * own mapping (kern_resize_nearest_index); a resize of the last two dims
 * only as nnfx_rt_resize_nearest, of other dims too as nnfx_rt_index_map.
 * Linear, cubic, tf_crop_and_resize: emit_resize_taps. */
static nnfx_status emit_resize(cg *c, const fx_step_view *s, const nnfx_node *n, const char *x, const char *y) {
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    if (!xm || xm->rank < 1 || xm->rank > 6 || xm->rank != ym->rank)
        return cg_unsupported(c, n, "resize of rank 0 or > 6");
    if (cg_meta_numel(ym) == 0) return NNFX_OK;
    for (int d = 0; d < xm->rank; d++)
        if (xm->dims[d].value <= 0) return cg_unsupported(c, n, "resize of an empty dim");
    if (resize_by_taps(n)) return emit_resize_taps(c, s, n, x, y);
    bool bad = false;
    const nnfx_tensor *sc = const_input(c, s, 2, &bad);
    if (bad) return cg_unsupported(c, n, "resize scales are not constants");
    int r = xm->rank;
    int64_t xs[NNFX_MAX_RANK], os[NNFX_MAX_RANK], total = 0;
    for (int d = 0; d < r; d++) {
        xs[d] = xm->dims[d].value, os[d] = ym->dims[d].value, total += os[d];
        if (xs[d] <= 0) return cg_unsupported(c, n, "resize of an empty dim");
    }
    if (cg_meta_numel(ym) == 0) return NNFX_OK;
    int64_t *tabs = malloc(sizeof *tabs * (size_t)(total + 1));
    if (!tabs) return nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
    bool leading = false; /* a dim before the last two changes */
    nnfx_status st = NNFX_OK;
    for (int d = 0, at = 0; d < r && !st; at += (int)os[d], d++) {
        st = kern_resize_nearest_index(n, r, xs, os, sc, d, tabs + at, c->err);
        for (int64_t k = 0; !st && d < r - 2 && k < os[d]; k++)
            leading |= os[d] != xs[d] || tabs[at + k] != k;
    }
    if (st) {
        free(tabs);
        return st == NNFX_ERR_UNSUPPORTED ? st : cg_unsupported(c, n, "resize parameters are not supported");
    }
    if (leading || r < 2) {
        emit_index_map(c, x, y, xm, ym, tabs, 0.0f, NULL);
        free(tabs);
        return NNFX_OK;
    }
    const int64_t *th = tabs + (total - os[r - 2] - os[r - 1]), *tw = th + os[r - 2];
    cg_use_section(c, "resize_nearest");
    sb_printf(&c->body, "    {\n        static const long th[%lld] = {", (long long)os[r - 2]);
    for (int64_t k = 0; k < os[r - 2]; k++)
        sb_printf(&c->body, k ? ", %lld" : "%lld", (long long)th[k]);
    sb_printf(&c->body, "};\n        static const long tw[%lld] = {", (long long)os[r - 1]);
    for (int64_t k = 0; k < os[r - 1]; k++)
        sb_printf(&c->body, k ? ", %lld" : "%lld", (long long)tw[k]);
    sb_printf(&c->body, "};\n        nnfx_rt_resize_nearest(%s, %s, %lld, %lld, %lld, %lld, %lld, th, tw);\n    }\n", x,
              y, (long long)infer_prod(xm, 0, r - 2), (long long)xs[r - 2], (long long)xs[r - 1], (long long)os[r - 2],
              (long long)os[r - 1]);
    free(tabs);
    return NNFX_OK;
}

/* `bytes` of a step's working memory past the plan's arena (recurrent
 * layers, resize passes)
 * (a multiple of 64, *used of them taken already): its C expression as
 * float pointer in buf; the working memory grows to hold it. */
static void step_scratch(cg *c, int64_t bytes, int64_t *used, char *buf, size_t len) {
    snprintf(buf, len, "(A + %lld)", (long long)((c->scratch_off + *used) / 4));
    *used += (bytes + 63) / 64 * 64;
    if (*used > c->scratch_bytes) c->scratch_bytes = *used;
}

void cg_step_scratch(cg *c, int64_t bytes, int64_t *used, char *buf, size_t len) {
    step_scratch(c, bytes, used, buf, len);
}

/* The constant B of recurrent node n (Wb then Rb per direction, G gates
 * of H) as the two arrays nnfx_rt_rnn reads: bsum = Wb + Rb per gate row
 * except a GRU's h rows (Wb alone) and rbh = those rows' Rb (GRU only);
 * names in bs / rb ("0" when there is no B or no rbh). */
static nnfx_status rnn_bias(cg *c, const fx_step_view *s, const nnfx_node *n, int dirs, int64_t G, int64_t H, char *bs,
                            char *rb, size_t len, int64_t *used) {
    bool bad = false, gru = n->op == NNFX_OP_GRU;
    const nnfx_tensor *tb = const_input(c, s, 3, &bad);
    snprintf(bs, len, "0"), snprintf(rb, len, "0");
    if (bad) { /* computed at run time: summed in the working memory before the step */
        const nnfx_meta *bm = cg_arg_meta(n, 3);
        char b[64];
        nnfx_status st;
        if (!bm || bm->dtype != NNFX_F32 || cg_meta_numel(bm) != dirs * 2 * G * H)
            return cg_unsupported(c, n, "the bias B is not float32 [dirs, 2 * gates * hidden]");
        if ((st = cg_value_expr(c, s->in[3], n, b, sizeof b))) return st;
        step_scratch(c, dirs * G * H * 4, used, bs, len);
        if (gru) step_scratch(c, dirs * H * 4, used, rb, len);
        cg_use_section(c, "rnn_pack");
        sb_printf(&c->body, "    nnfx_rt_rnn_pack_bias(%s, %s, %s, %d, %lld, %lld, %d); /* B, computed */\n", b, bs,
                  gru ? rb : "0", dirs, (long long)G, (long long)H, gru);
        return NNFX_OK;
    }
    if (!tb) return NNFX_OK;
    if (tb->dtype != NNFX_F32 || nnfx_tensor_numel(tb) != dirs * 2 * G * H)
        return cg_unsupported(c, n, "the bias B is not float32 [dirs, 2 * gates * hidden]");
    const float *b = tb->data;
    float *sum = malloc(sizeof *sum * (size_t)(dirs * G * H + 1)), *rh = malloc(sizeof *rh * (size_t)(dirs * H + 1));
    if (!sum || !rh) {
        free(sum), free(rh);
        return nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
    }
    for (int d = 0; d < dirs; d++)
        for (int64_t j = 0; j < G * H; j++) {
            const float wb = b[d * 2 * G * H + j], rbj = b[d * 2 * G * H + G * H + j];
            sum[d * G * H + j] = gru && j >= 2 * H ? wb : wb + rbj;
            if (gru && j >= 2 * H) rh[d * H + j - 2 * H] = rbj;
        }
    int id = cg_emit_weight_array(c, n, s->in[3], gru ? "Wb + Rb (h rows: Wb)" : "Wb + Rb", sum, dirs * G * H);
    snprintf(bs, len, "%s_w%d", c->name, id);
    if (gru) snprintf(rb, len, "%s_w%d", c->name, cg_emit_weight_array(c, n, s->in[3], "Rb of h", rh, dirs * H));
    free(sum), free(rh);
    return NNFX_OK;
}

/* C expression of optional float input a of step s ("0" when absent),
 * checked to hold `numel` values. */
static nnfx_status rnn_input(cg *c, const fx_step_view *s, const nnfx_node *n, int a, int64_t numel, const char *what,
                             char *buf, size_t len) {
    snprintf(buf, len, "0");
    if (a >= s->nin || s->in[a] < 0) return NNFX_OK;
    fx_value_view vv = fx_plan_value_view(c->p, s->in[a]);
    int64_t have = vv.kind == FX_VALUE_CONST ? nnfx_tensor_numel(vv.t)
                                             : (cg_arg_meta(n, a) ? cg_meta_numel(cg_arg_meta(n, a)) : -1);
    if (have != numel) {
        char why[96];
        snprintf(why, sizeof why, "%s holds %lld values, not %lld", what, (long long)have, (long long)numel);
        return cg_unsupported(c, n, why);
    }
    return cg_value_expr(c, s->in[a], n, buf, len);
}

/* Recurrent weights W (a = 1, K = IN) or R (a = 2, K = H), a float32
 * constant [dirs, G * H, K], as the array nnfx_rt_rnn reads: each gate's
 * matrix transposed, [dirs][G][K][H]; its name in buf. */
static nnfx_status rnn_weights(cg *c, const fx_step_view *s, const nnfx_node *n, int a, int dirs, int64_t G, int64_t H,
                               int64_t K, char *buf, size_t len, int64_t *used) {
    bool bad = false;
    const nnfx_tensor *t = const_input(c, s, a, &bad);
    if (bad) { /* computed at run time: transposed in the working memory before the step */
        const nnfx_meta *m = cg_arg_meta(n, a);
        char w[64];
        nnfx_status st;
        if (!m || m->dtype != NNFX_F32 || m->rank != 3 || m->dims[0].value != dirs || m->dims[1].value != G * H ||
            m->dims[2].value != K)
            return cg_unsupported(c, n,
                                  a == 1 ? "W is not float32 [dirs, gates * hidden, input]"
                                         : "R is not float32 [dirs, gates * hidden, hidden]");
        if ((st = cg_value_expr(c, s->in[a], n, w, sizeof w))) return st;
        step_scratch(c, dirs * G * H * K * 4, used, buf, len);
        cg_use_section(c, "rnn_pack");
        sb_printf(&c->body, "    nnfx_rt_rnn_pack(%s, %s, %lld, %lld, %lld); /* %s, computed */\n", w, buf,
                  (long long)(dirs * G), (long long)H, (long long)K, a == 1 ? "W" : "R");
        return NNFX_OK;
    }
    if (!t || t->dtype != NNFX_F32 || t->rank != 3 || t->shape[0] != dirs || t->shape[1] != G * H || t->shape[2] != K)
        return cg_unsupported(c, n,
                              a == 1 ? "W is not float32 [dirs, gates * hidden, input]"
                                     : "R is not float32 [dirs, gates * hidden, hidden]");
    const int64_t total = dirs * G * H * K;
    float *tr = malloc(sizeof *tr * (size_t)(total ? total : 1));
    if (!tr) return nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
    const float *w = t->data;
    for (int64_t dg = 0; dg < dirs * G; dg++)
        for (int64_t j = 0; j < H; j++)
            for (int64_t k = 0; k < K; k++)
                tr[(dg * K + k) * H + j] = w[(dg * H + j) * K + k];
    int id = cg_emit_weight_array(c, n, s->in[a],
                                  a == 1 ? "W, each gate transposed [dirs][gates][input][hidden]"
                                         : "R, each gate transposed [dirs][gates][hidden][hidden]",
                                  tr, total);
    free(tr);
    snprintf(buf, len, "%s_w%d", c->name, id);
    return NNFX_OK;
}

/* RNN, GRU or LSTM node n: one call of nnfx_rt_rnn (runtime/nnfx_rt_rnn.h)
 * with every attribute the interpreter's kernel reads; sequence_lens must
 * be a constant. W, R and B computed at run time are laid out as the
 * generator lays out constant ones (nnfx_rt_rnn_pack) in the steps' working
 * memory past the plan's arena, where a GRU without linear_before_reset
 * also keeps its H floats of r * h. */
static nnfx_status emit_rnn(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const int kind = n->op == NNFX_OP_LSTM ? 2 : n->op == NNFX_OP_GRU ? 1 : 0, per = kind + 1;
    const int64_t G = kind == 2 ? 4 : kind == 1 ? 3 : 1;
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    const char *dir = nnfx_node_attr_string(n, "direction", "forward");
    const int dirs = strcmp(dir, "bidirectional") == 0 ? 2 : 1, rev = strcmp(dir, "reverse") == 0;
    const int bf = nnfx_node_attr_int(n, "layout", 0) != 0;
    const int lbr = kind == 1 && nnfx_node_attr_int(n, "linear_before_reset", 0) != 0;
    const int coupled = kind == 2 && nnfx_node_attr_int(n, "input_forget", 0) != 0;
    if (!xm || xm->rank != 3 || ym->rank != 4) return cg_unsupported(c, n, "X must be a tensor of rank 3");
    const int64_t T = xm->dims[bf ? 1 : 0].value, B = xm->dims[bf ? 0 : 1].value, IN = xm->dims[2].value,
                  H = ym->dims[3].value;
    if (T * B > INT32_MAX || G * H * (IN > H ? IN : H) > INT32_MAX)
        return cg_unsupported(c, n, "too large for the generated kernel's int sizes");
    char x[64], w[64], r[64], bs[64], rb[64], h0[64] = "0", c0[64] = "0", pp[64] = "0", y[64], yh[64] = "0",
                                              yc[64] = "0", scr[64] = "0";
    nnfx_status st;
    int64_t used = 0; /* bytes of the working memory taken: a GRU's r * h first, then computed W, R, B */
    if (kind == 1 && !lbr) step_scratch(c, H * 4, &used, scr, sizeof scr);
    if ((st = cg_value_expr(c, s->in[0], n, x, sizeof x)) ||
        (st = rnn_weights(c, s, n, 1, dirs, G, H, IN, w, sizeof w, &used)) ||
        (st = rnn_weights(c, s, n, 2, dirs, G, H, H, r, sizeof r, &used)) ||
        (st = rnn_bias(c, s, n, dirs, G, H, bs, rb, sizeof bs, &used)) ||
        (st = rnn_input(c, s, n, 5, dirs * B * H, "initial_h", h0, sizeof h0)) ||
        (kind == 2 && (st = rnn_input(c, s, n, 6, dirs * B * H, "initial_c", c0, sizeof c0))) ||
        (kind == 2 && (st = rnn_input(c, s, n, 7, dirs * 3 * H, "the peepholes P", pp, sizeof pp))) ||
        (st = cg_value_expr(c, s->out, n, y, sizeof y)) ||
        (s->nout > 1 && (st = cg_value_expr(c, s->outs[1], n, yh, sizeof yh))) ||
        (kind == 2 && s->nout > 2 && (st = cg_value_expr(c, s->outs[2], n, yc, sizeof yc))))
        return st;
    kern_rnn_act acts[6];
    if ((st = kern_rnn_acts(n, per, dirs, acts, c->err))) return st;
    bool bad = false;
    const nnfx_tensor *tl = const_input(c, s, 4, &bad);
    if (bad) return cg_unsupported(c, n, "sequence_lens is not a constant (generated C has static sequence lengths)");
    if (tl && nnfx_tensor_numel(tl) != B)
        return cg_unsupported(c, n, "sequence_lens does not hold one length per batch row");
    cg_use_section(c, "rnn");
    sb_printf(&c->body,
              "    {   /* kind T B IN H dirs reverse layout linear_before_reset input_forget */\n"
              "        static const int geo[10] = {%d, %lld, %lld, %lld, %lld, %d, %d, %d, %d, %d};\n",
              kind, (long long)T, (long long)B, (long long)IN, (long long)H, dirs, rev, bf, lbr, coupled);
    sb_printf(&c->body, "        static const nnfx_rt_act acts[%d] = {", per * dirs);
    for (int i = 0; i < per * dirs; i++) {
        cg_use_section(c, acts[i].section);
        sb_printf(&c->body, "%s{nnfx_rt_%s, ", i ? ", " : "", acts[i].section);
        cg_float_lit(&c->body, acts[i].a);
        sb_printf(&c->body, ", ");
        cg_float_lit(&c->body, acts[i].b);
        sb_printf(&c->body, "}");
    }
    sb_printf(&c->body, "};\n");
    if (tl) {
        sb_printf(&c->body, "        static const int lens[%lld] = {", (long long)(B ? B : 1));
        for (int64_t b = 0; b < B; b++) {
            double v = nnfx_tensor_get(tl, b);
            sb_printf(&c->body, b ? ", %d" : "%d", v < 0 ? 0 : v > (double)T ? (int)T : (int)v);
        }
        sb_printf(&c->body, B ? "};\n" : "0};\n");
    }
    sb_printf(&c->body, "        nnfx_rt_rnn(geo, %s, %s, %s, %s, %s, %s, %s, %s, %s, ", x, w, r, bs, rb,
              tl ? "lens" : "0", h0, c0, pp);
    cg_float_lit(&c->body, (float)nnfx_node_attr_float(n, "clip", 0.0));
    sb_printf(&c->body, ", acts, %s, %s, %s, %s);\n    }\n", y, yh, yc, scr);
    c->stats[n->op].macs += T * B * dirs * G * H * (IN + H);
    return NNFX_OK;
}

/* TopK node n: the values, and the int64 indices when the node has that
 * output (stored bytewise in the arena; only a Cast to float32 reads them
 * in generated C: a model output must be float32). */
static nnfx_status emit_topk(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    int axis;
    if (!xm || cg_tcode(xm->dtype) < 0 || xm->dtype == NNFX_BOOL || ym->dtype != xm->dtype ||
        !infer_axis(nnfx_node_attr_int(n, "axis", -1), xm->rank, false, &axis))
        return cg_unsupported(c, n, "topk of a numeric tensor along a valid axis");
    char x[96], y[96], idx[64] = "0";
    nnfx_status st;
    if ((st = cg_typed_in(c, s, 0, xm->dtype, x, sizeof x)) ||
        (st = cg_typed_out(c, s->out, xm->dtype, n, y, sizeof y)))
        return st;
    if (s->nout > 1) {
        fx_value_view iv = fx_plan_value_view(c->p, s->outs[1]);
        if (iv.kind == FX_VALUE_ARENA)
            snprintf(idx, sizeof idx, "((unsigned char *)A + %lld)", (long long)(c->base + iv.off));
    }
    const int *ex = c->bnd ? cg_dyn_of(c->bnd, n->args[0].u.node) : NULL;
    if (ex && ex[axis] >= 0) {     /* along a data-dependent axis: K must not exceed its actual extent */
        const nnfx_node *vals = n; /* a getitem of it: values and indices share the extents */
        for (int u = 0; u < n->nusers; u++)
            if (n->users[u]->opcode == NNFX_CALL_FUNCTION && n->users[u]->op == NNFX_OP_GETITEM &&
                cg_dyn_of(c->bnd, n->users[u]))
                vals = n->users[u];
        const int *ey = cg_dyn_of(c->bnd, vals);
        const int ek = ey ? ey[axis] : -1;
        const cg_xp *xk = ek >= 0 ? &c->bnd->xp[ek] : NULL;
        if (!(ek == ex[axis] || (xk && xk->kind == CG_X_MIN && (xk->a == ex[axis] || xk->b == ex[axis])))) {
            char ke[64], ee[64];
            cg_dim_expr(c, vals, axis, ke, sizeof ke);
            cg_dim_expr(c, n->args[0].u.node, axis, ee, sizeof ee);
            c->may_fail = true;
            sb_printf(&c->body, "    if ((long long)%s > (long long)%s) return 2; /* K past the values there are */\n",
                      ke, ee);
        }
    }
    cg_use_section(c, "topk");
    sb_printf(&c->body,
              "    nnfx_rt_topk((const unsigned char *)%s, %d, (unsigned char *)%s, %s, %lld, %lld, %lld, %lld, %d);\n",
              x, cg_tcode(xm->dtype), y, idx, (long long)infer_prod(xm, 0, axis), (long long)xm->dims[axis].value,
              (long long)infer_prod(xm, axis + 1, xm->rank), (long long)ym->dims[axis].value,
              nnfx_node_attr_int(n, "largest", 1) != 0);
    return NNFX_OK;
}

/* Cast to float32 of a float32 value (a copy) or of an int64 one in the
 * arena (TopK's indices: nnfx_rt_cast_i64). */
static nnfx_status emit_cast_to_float(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    char x[64], y[64];
    nnfx_status st;
    if (!xm || s->nin < 1 || s->in[0] < 0) return cg_unsupported(c, n, "its input is not a tensor value");
    if ((st = cg_value_expr(c, s->out, n, y, sizeof y))) return st;
    const int64_t numel = cg_meta_numel(&n->meta[0]);
    fx_value_view xv = fx_plan_value_view(c->p, s->in[0]);
    if (xm->dtype == NNFX_F32) {
        if ((st = cg_value_expr(c, s->in[0], n, x, sizeof x))) return st;
        sb_printf(&c->body, "    memmove(%s, %s, %lld);\n", y, x, (long long)(numel * 4));
        return NNFX_OK;
    }
    /* int64 values in the arena, a body input (a Loop's trip number) or a model input are bytes */
    if (xm->dtype != NNFX_I64 || (xv.kind != FX_VALUE_ARENA && xv.kind != FX_VALUE_INPUT))
        return cg_unsupported(c, n, "only a Cast to float32 of float32 or computed int64 values is generated");
    if ((st = cg_value_typed(c, s->in[0], NNFX_I64, n, x, sizeof x))) return st;
    cg_use_section(c, "cast_i64");
    sb_printf(&c->body, "    nnfx_rt_cast_i64((const unsigned char *)%s, %s, %lld);\n", x, y, (long long)numel);
    return NNFX_OK;
}

/* Cast of a float32 value to int64 (truncated, saturated) or bool, stored
 * bytewise in the arena: what a computed trip count or condition of a
 * Loop is made of. */
static nnfx_status emit_cast_from_float(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const nnfx_dtype to = n->meta[0].dtype;
    char x[64], y[64];
    nnfx_status st;
    if (s->nin < 1 || s->in[0] < 0) return cg_unsupported(c, n, "its input is not a tensor value");
    if ((st = cg_value_expr(c, s->in[0], n, x, sizeof x)) || (st = cg_value_typed(c, s->out, to, n, y, sizeof y)))
        return st;
    const char *fn = to == NNFX_I64 ? "cast_f32_i64" : "cast_f32_bool";
    cg_use_section(c, fn);
    sb_printf(&c->body, "    nnfx_rt_%s(%s, %s, %lld);\n", fn, x, y, (long long)cg_meta_numel(&n->meta[0]));
    return NNFX_OK;
}

/* ArgMax / ArgMin of a numeric value along one axis (compared as doubles,
 * as the interpreter's): int64 indices stored bytewise in the arena. */
static nnfx_status emit_argmax(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    int axis;
    if (!xm || cg_tcode(xm->dtype) < 0 || xm->dtype == NNFX_BOOL || n->meta[0].dtype != NNFX_I64 ||
        !infer_axis(nnfx_node_attr_int(n, "axis", 0), xm->rank, false, &axis))
        return cg_unsupported(c, n, "only an arg max / min of a numeric tensor along a valid axis is generated");
    if (xm->dims[axis].value <= 0) return cg_unsupported(c, n, "an arg max / min over an empty axis");
    char x[96], y[64];
    nnfx_status st;
    if ((st = cg_typed_in(c, s, 0, xm->dtype, x, sizeof x)) ||
        (st = cg_value_typed(c, s->out, NNFX_I64, n, y, sizeof y)))
        return st;
    cg_use_section(c, "argmax");
    sb_printf(&c->body, "    nnfx_rt_argmax((const unsigned char *)%s, %d, %s, %lld, %lld, %lld, %d, %d);\n", x,
              cg_tcode(xm->dtype), y, (long long)infer_prod(xm, 0, axis), (long long)xm->dims[axis].value,
              (long long)infer_prod(xm, axis + 1, xm->rank), n->op == NNFX_OP_ARGMIN,
              nnfx_node_attr_int(n, "select_last_index", 0) != 0);
    return NNFX_OK;
}

static bool is_int8_step(const nnfx_node *n);
static nnfx_status emit_int8_kernel_step(cg *c, const fx_step_view *s);
static nnfx_status emit_qop_step(cg *c, const fx_step_view *s);

/* Einsum by the generic loop: float32 values through nnfx_rt_einsum, any
 * other type generated C holds through nnfx_rt_teinsum (in double), as
 * the interpreter's kern_einsum. */
static nnfx_status emit_einsum(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const int nin = s->nin;
    int ranks[IR_EINSUM_MAX_IN], tx[IR_EINSUM_MAX_IN];
    const int64_t *shapes[IR_EINSUM_MAX_IN];
    int64_t dims[IR_EINSUM_MAX_IN][NNFX_MAX_RANK];
    const nnfx_dtype dy = n->meta[0].dtype;
    bool f32 = dy == NNFX_F32;
    if (nin < 1 || nin > IR_EINSUM_MAX_IN || nin > 8) return cg_unsupported(c, n, "einsum of 1 to 8 inputs");
    for (int i = 0; i < nin; i++) {
        const nnfx_meta *m = cg_arg_meta(n, i);
        if (!m || s->in[i] < 0 || (tx[i] = cg_tcode(m->dtype)) < 0)
            return cg_unsupported(c, n, "einsum of inputs of a type generated C lacks");
        f32 = f32 && m->dtype == NNFX_F32;
        ranks[i] = m->rank;
        for (int d = 0; d < m->rank; d++)
            dims[i][d] = m->dims[d].value;
        shapes[i] = dims[i];
    }
    ir_einsum p;
    kern_einsum_geom g;
    char why[200], y[96], x[IR_EINSUM_MAX_IN][96];
    if (!ir_einsum_parse(nnfx_node_attr_string(n, "equation", ""), nin, ranks, &p, why, sizeof why) ||
        !kern_einsum_geometry(&p, nin, shapes, &g) || g.nall > 64)
        return cg_unsupported(c, n, "an einsum equation the generic loop does not take");
    nnfx_status st;
    for (int i = 0; i < nin; i++)
        if ((st = f32 ? cg_value_expr(c, s->in[i], n, x[i], sizeof x[i])
                      : cg_typed_in(c, s, i, cg_arg_meta(n, i)->dtype, x[i], sizeof x[i])))
            return st;
    if ((st = f32 ? cg_value_expr(c, s->out, n, y, sizeof y) : cg_typed_out(c, s->out, dy, n, y, sizeof y))) return st;
    cg_use_section(c, f32 ? "einsum" : "teinsum");
    sb_printf(&c->body, "    {\n        const %s *x[%d] = {", f32 ? "float" : "unsigned char", nin);
    for (int i = 0; i < nin; i++)
        sb_printf(&c->body, i ? ", %s" : "%s", x[i]);
    sb_printf(&c->body, "};\n");
    if (!f32) {
        sb_printf(&c->body, "        static const int tx[%d] = {", nin);
        for (int i = 0; i < nin; i++)
            sb_printf(&c->body, i ? ", %d" : "%d", tx[i]);
        sb_printf(&c->body, "};\n");
    }
    sb_printf(&c->body, "        static const long size[%d] = {", g.nall ? g.nall : 1);
    for (int a = 0; a < g.nall; a++)
        sb_printf(&c->body, a ? ", %lld" : "%lld", (long long)g.size[a]);
    sb_printf(&c->body, g.nall ? "};\n" : "0};\n");
    sb_printf(&c->body, "        static const long st[%d] = {", g.nall > 0 ? nin * g.nall : 1);
    for (int i = 0; i < nin; i++)
        for (int a = 0; a < g.nall; a++)
            sb_printf(&c->body, i || a ? ", %lld" : "%lld", (long long)g.st[i][a]);
    sb_printf(&c->body, g.nall > 0 ? "};\n" : "0};\n");
    if (f32)
        sb_printf(&c->body, "        nnfx_rt_einsum(%d, x, %s, %lld, %d, %d, size, st);\n    }\n", nin, y,
                  (long long)cg_meta_numel(&n->meta[0]), g.nall, g.nouter);
    else
        sb_printf(&c->body, "        nnfx_rt_teinsum(%d, x, tx, %s, %d, %lld, %d, %d, size, st);\n    }\n", nin, y,
                  cg_tcode(dy), (long long)cg_meta_numel(&n->meta[0]), g.nall, g.nouter);
    return NNFX_OK;
}

/* BatchNormalization (inference) over [N, C, inner]. */
static nnfx_status emit_batch_norm(cg *c, const nnfx_node *n, char (*in)[64], const char *y) {
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    if (!xm || xm->rank < 2) return cg_unsupported(c, n, "batch_normalization expects rank >= 2");
    cg_use_section(c, "batch_norm");
    sb_printf(&c->body, "    nnfx_rt_batch_norm(%s, %s, %s, %s, %s, ", in[0], in[1], in[2], in[3], in[4]);
    cg_float_lit(&c->body, (float)nnfx_node_attr_float(n, "epsilon", 1e-5));
    sb_printf(&c->body, ", %s, %lld, %lld, %lld);\n", y, (long long)xm->dims[0].value, (long long)xm->dims[1].value,
              (long long)infer_prod(xm, 2, xm->rank));
    return NNFX_OK;
}

/* Softmax / LogSoftmax along the node's axis. */
static nnfx_status emit_softmax(cg *c, const nnfx_node *n, const char *x, const char *y) {
    const nnfx_meta *xm = &n->meta[0];
    int axis;
    if (!infer_axis(nnfx_node_attr_int(n, "axis", -1), xm->rank ? xm->rank : 1, false, &axis))
        return cg_unsupported(c, n, "softmax axis out of range");
    int64_t outer, len, inner;
    split3(xm, axis, xm->rank ? axis + 1 : 0, &outer, &len, &inner);
    cg_use_section(c, "softmax");
    sb_printf(&c->body, "    nnfx_rt_softmax(%s, %s, %lld, %lld, %lld, %d);\n", x, y, (long long)outer, (long long)len,
              (long long)inner, n->op == NNFX_OP_LOG_SOFTMAX);
    return NNFX_OK;
}

/* How many of a step's inputs are data the generated code reads at run
 * time (the rest, constant parameters of the op, are read at generation). */
int cg_data_inputs(nnfx_op op, int nin) {
    if (reduce_kind(op) >= 0) return nin < 1 ? nin : 1; /* the axes: read at generation */
    switch (op) {
    case NNFX_OP_CLIP:
    case NNFX_OP_DROPOUT:
    case NNFX_OP_SLICE:
    case NNFX_OP_GATHER:
    case NNFX_OP_DFT:              /* dft_length: a constant */
    case NNFX_OP_STFT:             /* frame_step, frame_length: constants; emit_float_ops.c reads the window */
    case NNFX_OP_REVERSE_SEQUENCE: /* the lengths: emit_float_ops.c reads them as int64 / int32 */
    case NNFX_OP_EXPAND:           /* the shape: the output's */
    case NNFX_OP_TILE:             /* the repeats: the output's shape */
    case NNFX_OP_PAD:
    case NNFX_OP_RESIZE: return 1;
    case NNFX_OP_CONCAT: return 0;
    case NNFX_OP_SPLIT: return 1; /* the sizes are the outputs' shapes */
    default: return nin;
    }
}

/* ---- comparisons and control flow ----------------------------------------- */

int cg_compare_code(nnfx_op op) {
    switch (op) {
    case NNFX_OP_GREATER: return 0;
    case NNFX_OP_LESS: return 1;
    case NNFX_OP_GREATER_OR_EQUAL: return 2;
    case NNFX_OP_LESS_OR_EQUAL: return 3;
    case NNFX_OP_EQUAL: return 4;
    default: return -1;
    }
}

/* A comparison of two float32 values into a bool value (one byte per
 * element in the arena): what an If's condition is usually made of. */
static nnfx_status emit_compare(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const nnfx_meta *ma = cg_arg_meta(n, 0), *mb = cg_arg_meta(n, 1);
    char a[64], b[64], y[64];
    nnfx_status st;
    if (!ma || !mb || ma->dtype != NNFX_F32 || mb->dtype != NNFX_F32 || n->meta[0].dtype != NNFX_BOOL || s->nin < 2)
        return cg_unsupported(c, n, "only comparisons of two float32 values are generated");
    kern_bcast bp;
    if ((st = cg_plan_bcast(c, n, &bp)) || (st = cg_value_expr(c, s->in[0], n, a, sizeof a)) ||
        (st = cg_value_expr(c, s->in[1], n, b, sizeof b)) ||
        (st = cg_value_typed(c, s->out, NNFX_BOOL, n, y, sizeof y)))
        return st;
    int64_t sa[NNFX_MAX_RANK], sb_[NNFX_MAX_RANK];
    for (int d = 0; d < bp.rank; d++)
        sa[d] = bp.st[0][d], sb_[d] = bp.st[1][d];
    cg_use_section(c, "compare");
    sb_printf(&c->body, "    {\n");
    emit_longs(&c->body, "shape", bp.rank, bp.shape);
    emit_longs(&c->body, "sa", bp.rank, sa);
    emit_longs(&c->body, "sb", bp.rank, sb_);
    sb_printf(&c->body, "        nnfx_rt_compare(%s, %s, %s, %d, shape, sa, sb, %d);\n    }\n", a, b, y, bp.rank,
              cg_compare_code(n->op));
    return NNFX_OK;
}

static nnfx_status walk_plan(cg *c);

/* A new region of `bytes` past the model's arena (for a body's arena or a
 * loop buffer): its byte offset in A. */
static int64_t ctrl_region(cg *c, int64_t bytes) {
    int64_t off = c->ctrl_base + c->ctrl_bytes;
    c->ctrl_bytes += (bytes + 63) / 64 * 64;
    if (c->ctrl_bytes > c->ctrl_peak) c->ctrl_peak = c->ctrl_bytes;
    return off;
}

/* Formats a C expression for a body input or result into dst (64 bytes);
 * an error naming n when it does not fit (bodies nested too deep). */
static nnfx_status expr_fmt(cg *c, const nnfx_node *n, char *dst, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(dst, 64, fmt, ap);
    va_end(ap);
    return k >= 0 && k < 64 ? NNFX_OK
                            : cg_unsupported(c, n, "a C expression of its body is too long (nested too deep)");
}

/* A region of its own (ctrl_region) for bytes of values of type dt, its
 * C expression into dst (64 bytes): `float *` for float32, `unsigned char
 * *` for the other types generated C holds. */
static nnfx_status ctrl_region_expr(cg *c, const nnfx_node *n, char *dst, nnfx_dtype dt, int64_t bytes) {
    const int64_t off = ctrl_region(c, bytes);
    return dt == NNFX_F32 ? expr_fmt(c, n, dst, "(A + %lld)", (long long)(off / 4))
                          : expr_fmt(c, n, dst, "((unsigned char *)A + %lld)", (long long)off);
}

/* The C expression of value v as a body input: "" (nothing a body could
 * read) for a value without storage; a constant of another type than
 * float32 as its bytes. */
static nnfx_status capture_expr(cg *c, int v, const nnfx_meta *m, const nnfx_node *user, char *buf, size_t len) {
    fx_value_view vv = fx_plan_value_view(c->p, v);
    buf[0] = 0;
    if (v < 0 || vv.kind == FX_VALUE_NONE) return NNFX_OK;
    if (vv.kind == FX_VALUE_CONST && vv.t->dtype != NNFX_F32) /* a constant the plan computed: its bytes */
        return cg_tcode(vv.t->dtype) < 0 ? NNFX_OK : cg_value_bytes(c, v, vv.t->dtype, user, buf, len);
    if (vv.kind == FX_VALUE_INPUT && c->in_expr &&
        (vv.input < 0 || vv.input >= c->nin_expr || !c->in_expr[vv.input][0]))
        return NNFX_OK;
    return cg_value_typed(c, v, m ? m->dtype : NNFX_F32, user, buf, len);
}

/* Appends text to b with every line indented by four more spaces. */
static void append_indented(sbuf *b, const char *text, size_t len) {
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t e = nl ? (size_t)(nl - text) + 1 : len;
        if (e - i > 1) sb_printf(b, "    ");
        sb_append(b, text + i, e - i);
        i = e;
    }
}

/* How a Loop body's condition result is used (emit_body). */
typedef enum cg_loop_cond {
    CG_COND_IGNORED,   /* not a Loop, or a Loop without a condition operand (ONNX's for loop) */
    CG_COND_INVARIANT, /* it must stay true: the body returns its condition input or a true constant */
    CG_COND_VARIES,    /* it may stop the loop: written into the loop's variable condD after each trip */
} cg_loop_cond;

/* Writes body graph `body` of control-flow node n as C into c->body, one
 * level deeper: its own plan (the generator's view of it) with its arena in
 * a region of its own, its inputs read through in[0..nin), its results
 * copied to dst[0..ndst) (an empty string: not copied). A Loop body's
 * condition result is checked or written as `cond` says. */
static nnfx_status emit_body(cg *c, const nnfx_node *n, const nnfx_graph *body, const char *what, char (*in)[64],
                             int nin, char (*dst)[64], cg_loop_cond cond) {
    nnfx_error perr = {0};
    const cg_bounds *bb = c->bnd ? cg_body_bounds(c->bnd, body) : NULL; /* sizes it reads from data */
    fx_plan *bp = bb ? fx_plan_new_codegen_kept(body, bb->kept, bb->nkept, &perr) : fx_plan_new_codegen(body, &perr);
    if (!bp)
        return nnfx_error_set(c->err, perr.status ? perr.status : NNFX_ERR_NOMEM,
                              "codegen: node %s (%s): in its %s: %s", n->name, nnfx_op_name(n->op), what, perr.msg);
    cg sub = *c;
    sub.g = body, sub.p = bp;
    sub.nnodes = body->num_nodes;
    sub.nodes = calloc((size_t)sub.nnodes + 1, sizeof *sub.nodes);
    sub.nvalues = fx_plan_nvalues(bp) + 1;
    sub.weight_id = calloc((size_t)sub.nvalues, sizeof *sub.weight_id);
    sub.packed_id = calloc((size_t)sub.nvalues, sizeof *sub.packed_id);
    sub.in_expr = in, sub.nin_expr = nin, sub.out_dst = dst;
    sub.depth = c->depth + 1;
    sub.bnd = bb, sub.xdef = bb ? calloc((size_t)bb->nxp + 1, 1) : NULL;
    memset(&sub.body, 0, sizeof sub.body);
    nnfx_status st = NNFX_OK;
    if (!sub.nodes || !sub.weight_id || !sub.packed_id || (bb && !sub.xdef))
        st = nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
    int i = 0;
    for (const nnfx_node *b = body->head; b && !st; b = b->next)
        sub.nodes[i++] = b;
    sub.base = ctrl_region(&sub, fx_plan_arena_bytes(bp));
    const nnfx_node *out = nnfx_graph_output_node(body);
    const nnfx_node *r = out && out->nargs > 0 && out->args[0].kind == NNFX_ARG_NODE ? out->args[0].u.node : NULL;
    int ri = r ? node_index(&sub, r) : -1;
    fx_value_view cv = fx_plan_value_view(bp, ri);
    /* the body's condition: its input (always true inside the loop) or a constant */
    bool cond_input = cv.kind == FX_VALUE_INPUT && cv.input == 1;
    bool cond_const = cv.kind == FX_VALUE_CONST && nnfx_tensor_numel(cv.t) == 1;
    bool cond_true = cond_input || (cond_const && nnfx_tensor_get(cv.t, 0) != 0);
    if (!st && cond == CG_COND_INVARIANT && !cond_true)
        st = cg_unsupported(c, n,
                            "its body computes the loop condition at run time and the loop has scan outputs: their "
                            "length is known only at run time (generated C has static shapes)");
    if (!st && (st = walk_plan(&sub)) && c->err) { /* name the control-flow node first */
        char inner[sizeof c->err->msg];
        const char *m = c->err->msg;
        snprintf(inner, sizeof inner, "%s", strncmp(m, "codegen: ", 9) == 0 ? m + 9 : m);
        nnfx_error_set(c->err, st, "codegen: node %s (%s): in its %s: %s", n->name, nnfx_op_name(n->op), what, inner);
    } else if (!st && cond == CG_COND_VARIES && cond_const && !cond_true) { /* false: this trip is the last */
        sb_printf(&sub.body, "    cond%d = 0; /* the body's condition: false */\n", c->depth);
    } else if (!st && cond == CG_COND_VARIES && !cond_true) { /* computed: read after the trip */
        char ce[64];
        if (!r || nnfx_meta_numel(&r->meta[0]) != 1)
            st = cg_unsupported(c, n, "its body's condition is not one element");
        else if (!(st = cg_value_typed(&sub, ri, r->meta[0].dtype, r, ce, sizeof ce)))
            sb_printf(&sub.body, "    cond%d = %s[0] != 0; /* the body's condition */\n", c->depth, ce);
    }
    /* what the body added to the shared parts (weights, sections, regions) */
    sbuf text = sub.body;
    sub.body = c->body;
    sub.g = c->g, sub.p = c->p, sub.base = c->base, sub.depth = c->depth;
    sub.in_expr = c->in_expr, sub.nin_expr = c->nin_expr, sub.out_dst = c->out_dst;
    free(sub.nodes), free(sub.weight_id), free(sub.packed_id), free(sub.xdef);
    sub.bnd = c->bnd, sub.xdef = c->xdef;
    sub.nodes = c->nodes, sub.nnodes = c->nnodes, sub.nvalues = c->nvalues;
    sub.weight_id = c->weight_id, sub.packed_id = c->packed_id;
    *c = sub;
    if (!st) {
        sb_printf(&c->body, "        /* %s of %s */\n", what, n->name);
        if (text.s) append_indented(&c->body, text.s, text.len);
        if (text.oom) st = nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
    }
    free(sb_finish(&text));
    fx_plan_free(bp);
    return st;
}

/* The outputs of control-flow node n (step s) as destinations: their
 * arena expressions, `float *` for float32 and `unsigned char *` for the
 * other types generated C holds. */
static nnfx_status ctrl_outputs(cg *c, const fx_step_view *s, const nnfx_node *n, char (*dst)[64]) {
    for (int k = 0; k < n->nout; k++) {
        const nnfx_dtype dt = n->meta[k].dtype;
        if (dt != NNFX_F32 && !cg_bytes_dtype(dt))
            return cg_unsupported(c, n, "a result of a type generated C does not hold");
        nnfx_status st = cg_value_typed(c, s->outs[k], dt, n, dst[k], 64);
        if (st) return st;
    }
    return NNFX_OK;
}

/* If: both branches as C blocks under `if (cond)` (only the one taken when
 * the condition is a constant), each writing the node's outputs. */
static nnfx_status emit_if(cg *c, const fx_step_view *s, const nnfx_node *n) {
    ir_ctrl_shape cs;
    nnfx_status st = ir_ctrl_layout(n, &cs, c->err);
    if (st) return st;
    if (cs.ncaptures + 1 > s->nin) return cg_unsupported(c, n, "its operands do not match its branches");
    char(*in)[64] = calloc((size_t)cs.ncaptures + 1, sizeof *in);
    char(*dst)[64] = calloc((size_t)n->nout + 1, sizeof *dst);
    char cond[64];
    if (!in || !dst) st = nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
    if (!st) st = ctrl_outputs(c, s, n, dst);
    for (int k = 0; k < cs.ncaptures && !st; k++)
        st = capture_expr(c, s->in[1 + k], cg_arg_meta(n, 1 + k), n, in[k], sizeof in[k]);
    const nnfx_meta *cm = cg_arg_meta(n, 0);
    fx_value_view cv = fx_plan_value_view(c->p, s->in[0]);
    if (!st && cv.kind == FX_VALUE_CONST) { /* decided at generation */
        int b = nnfx_tensor_numel(cv.t) == 1 && nnfx_tensor_get(cv.t, 0) != 0 ? 0 : 1;
        sb_printf(&c->body, "    {   /* the condition is a constant: the %s branch */\n", b ? "else" : "then");
        st = emit_body(c, n, cs.body[b], b ? "else branch" : "then branch", in, cs.ncaptures, dst, CG_COND_IGNORED);
        if (!st) sb_printf(&c->body, "    }\n");
    } else if (!st) {
        if (!cm || nnfx_meta_numel(cm) != 1 ||
            (cm->dtype != NNFX_BOOL && cm->dtype != NNFX_U8 && cm->dtype != NNFX_I8 && cm->dtype != NNFX_F32))
            st = cg_unsupported(c, n, "the condition is not one bool, uint8, int8 or float32 element");
        if (!st) st = cg_value_typed(c, s->in[0], cm->dtype, n, cond, sizeof cond);
        int64_t mark = c->ctrl_bytes; /* one branch runs: both use the same regions */
        if (!st) sb_printf(&c->body, "    if (%s[0] != 0) {\n", cond);
        if (!st) st = emit_body(c, n, cs.body[0], "then branch", in, cs.ncaptures, dst, CG_COND_IGNORED);
        c->ctrl_bytes = mark;
        if (!st) sb_printf(&c->body, "    } else {\n");
        if (!st) st = emit_body(c, n, cs.body[1], "else branch", in, cs.ncaptures, dst, CG_COND_IGNORED);
        if (!st) sb_printf(&c->body, "    }\n");
    }
    free(in), free(dst);
    return st;
}

/* What generated C knows of a Loop's trip count M and initial condition
 * before the loop runs. */
typedef struct loop_limits {
    int64_t trips;  /* M when a constant (0 too when the initial condition is a false constant); -1: none or
                     * computed at run time */
    bool m_runtime; /* M is computed at run time (int64) */
    bool c_runtime; /* the initial condition is computed at run time */
    bool use_cond;  /* the loop has a condition operand (the body's condition counts) */
} loop_limits;

/* The limits of Loop node n (step s); an error for a loop generated C
 * cannot run (one that never ends, operands of the wrong kind). */
static nnfx_status loop_limits_of(cg *c, const fx_step_view *s, const nnfx_node *n, loop_limits *l) {
    memset(l, 0, sizeof *l);
    l->trips = -1;
    if (s->nin < 2) return cg_unsupported(c, n, "its operands do not match its body");
    if (s->in[0] >= 0) {
        fx_value_view m = fx_plan_value_view(c->p, s->in[0]);
        const nnfx_meta *mm = cg_arg_meta(n, 0);
        if (m.kind == FX_VALUE_CONST) {
            if (nnfx_tensor_numel(m.t) != 1) return cg_unsupported(c, n, "its trip count is not one element");
            int64_t t = ir_tensor_int_at0(m.t);
            l->trips = t > 0 ? t : 0;
        } else if (!mm || mm->dtype != NNFX_I64 || nnfx_meta_numel(mm) != 1) {
            return cg_unsupported(c, n, "its trip count is not one int64 element");
        } else {
            l->m_runtime = true;
        }
    }
    if (s->in[1] >= 0) {
        fx_value_view cv = fx_plan_value_view(c->p, s->in[1]);
        const nnfx_meta *cm = cg_arg_meta(n, 1);
        l->use_cond = true;
        if (cv.kind == FX_VALUE_CONST) {
            if (nnfx_tensor_numel(cv.t) != 1) return cg_unsupported(c, n, "its condition is not one element");
            if (nnfx_tensor_get(cv.t, 0) == 0) l->trips = 0, l->m_runtime = false;
        } else if (!cm || nnfx_meta_numel(cm) != 1 ||
                   (cm->dtype != NNFX_BOOL && cm->dtype != NNFX_U8 && cm->dtype != NNFX_I8 && cm->dtype != NNFX_F32)) {
            return cg_unsupported(c, n, "its condition is not one bool, uint8, int8 or float32 element");
        } else {
            l->c_runtime = true;
        }
    }
    if (s->in[0] < 0 && !l->use_cond)
        return cg_unsupported(c, n, "it has neither a trip count nor a condition: it never ends");
    return NNFX_OK;
}

/* Loop: a C for loop while the trip number is below M (a constant or read
 * at run time as int64) and the condition holds (the initial one, then the
 * body's after each trip; the body's condition input is always true
 * inside). The loop-carried values live in the node's own outputs (set
 * from the initial values first); the body writes the next values into
 * buffers of their own (results may swap or reuse carried values), copied
 * back after each trip; scan output j of trip i is written at element i *
 * size of its output, which needs a trip count known at generation. */
static nnfx_status emit_loop(cg *c, const fx_step_view *s, const nnfx_node *n) {
    ir_ctrl_shape cs;
    nnfx_status st = ir_ctrl_layout(n, &cs, c->err);
    if (st) return st;
    loop_limits l;
    if ((st = loop_limits_of(c, s, n, &l))) return st;
    const int N = cs.ncarried, S = cs.nscan_out, K = cs.ncaptures, d = c->depth;
    if (s->nin != 2 + N + K || n->nout != N + S) return cg_unsupported(c, n, "its operands do not match its body");
    if (S > 0 && l.trips != 0 && (l.trips < 0 || l.c_runtime))
        return cg_unsupported(
            c, n,
            "it has scan outputs and its trip count or condition is computed at run time (or absent): "
            "their length is known only at run time (generated C has static shapes)");
    char(*in)[64] = calloc((size_t)(2 + N + K), sizeof *in);
    char(*dst)[64] = calloc((size_t)(1 + N + S), sizeof *dst);
    char(*outs)[64] = calloc((size_t)(N + S + 1), sizeof *outs);
    if (!in || !dst || !outs) st = nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
    if (!st) st = ctrl_outputs(c, s, n, outs);
    int64_t *bytes = calloc((size_t)(N + S + 1), sizeof *bytes);
    if (!st && !bytes) st = nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
    for (int k = 0; k < N + S && !st; k++) {
        const nnfx_meta *m = &n->meta[k];
        bytes[k] = nnfx_meta_nbytes(m);
        if (k >= N) { /* [trips, ...]: one item per trip */
            if (m->rank < 1 || m->dims[0].value != l.trips)
                st = cg_unsupported(c, n, "a scan output's first dim is not the trip count");
            else
                bytes[k] = l.trips ? bytes[k] / l.trips : 0;
        }
    }
    /* the initial values into the carried outputs */
    for (int k = 0; k < N && !st; k++) {
        char init[64];
        const nnfx_meta *im = cg_arg_meta(n, 2 + k);
        if (!im || im->dtype != n->meta[k].dtype) {
            st = cg_unsupported(c, n, "a loop-carried value's initial type differs from its result's");
            break;
        }
        if ((st = im->dtype == NNFX_F32 ? cg_value_expr(c, s->in[2 + k], n, init, sizeof init)
                                        : cg_value_bytes(c, s->in[2 + k], im->dtype, n, init, sizeof init)))
            break;
        sb_printf(&c->body, "    memcpy(%s, %s, %lld);\n", outs[k], init, (long long)bytes[k]);
    }
    const nnfx_node *iter = nnfx_graph_input(cs.body[0], 0), *cin = nnfx_graph_input(cs.body[0], 1);
    /* a trip count that is a data-dependent count (bounds.c): the plan holds its bound, the loop runs
     * the count's trips */
    const cg_sym *msym = c->bnd && n->args[0].kind == NNFX_ARG_NODE ? cg_sym_of(c->bnd, n->args[0].u.node) : NULL;
    char mext[64] = "";
    if (msym && msym->n == 1 && msym->el[0] >= 0 && c->bnd->xp[msym->el[0]].kind != CG_X_CONST) {
        cg_define_extent(c, msym->el[0]);
        cg_extent_expr(c->bnd, msym->el[0], mext, sizeof mext);
    }
    if (!st && l.trips != 0) {
        char mx[64] = "", cx[64] = "";
        if (l.m_runtime) st = cg_value_typed(c, s->in[0], NNFX_I64, n, mx, sizeof mx);
        if (!st && l.c_runtime) st = cg_value_typed(c, s->in[1], cg_arg_meta(n, 1)->dtype, n, cx, sizeof cx);
        /* body inputs: the trip number (int64 bytes, when read), the condition (a byte holding 1, when
         * read), the carried values, the captures */
        if (!st && iter && iter->nusers > 0)
            st = expr_fmt(c, n, in[0], "((unsigned char *)A + %lld)", (long long)ctrl_region(c, 8));
        if (!st && cin && cin->nusers > 0)
            st = expr_fmt(c, n, in[1], "((unsigned char *)A + %lld)", (long long)ctrl_region(c, 1));
        for (int k = 0; k < N; k++)
            memcpy(in[2 + k], outs[k], sizeof in[2 + k]);
        for (int k = 0; k < K && !st; k++)
            st = capture_expr(c, s->in[2 + N + k], cg_arg_meta(n, 2 + N + k), n, in[2 + N + k], sizeof in[2 + N + k]);
        /* body results: the condition (checked or read, not copied), the next carried values, the scan items */
        for (int k = 0; k < N && !st; k++)
            st = ctrl_region_expr(c, n, dst[1 + k], n->meta[k].dtype, bytes[k]);
        for (int j = 0; j < S && !st; j++) /* float32 items in floats, others in bytes */
            st = expr_fmt(c, n, dst[1 + N + j], "(%s + it%d * %lld)", outs[N + j], d,
                          (long long)(bytes[N + j] / (n->meta[N + j].dtype == NNFX_F32 ? 4 : 1)));
        if (!st) {
            sb_printf(&c->body, "    {\n        long long it%d;\n", d);
            if (l.use_cond)
                sb_printf(&c->body, "        int cond%d = %s%s;\n", d, cx[0] ? cx : "1", cx[0] ? "[0] != 0" : "");
            if (l.m_runtime)
                sb_printf(&c->body,
                          "        long long trips%d; /* the trip count, computed */\n"
                          "        memcpy(&trips%d, %s, sizeof trips%d);\n",
                          d, d, mx, d);
            if (in[1][0]) sb_printf(&c->body, "        %s[0] = 1; /* the body's condition input */\n", in[1]);
            sb_printf(&c->body, "        for (it%d = 0; ", d);
            if (l.trips > 0) sb_printf(&c->body, "it%d < %lld", d, (long long)l.trips);
            if (l.trips > 0 && mext[0]) sb_printf(&c->body, " && it%d < (long long)(%s)", d, mext);
            if (l.m_runtime) sb_printf(&c->body, "it%d < trips%d", d, d);
            if (l.use_cond) sb_printf(&c->body, "%scond%d", l.trips > 0 || l.m_runtime ? " && " : "", d);
            sb_printf(&c->body, "; it%d++) {\n", d);
        }
        sbuf outer = c->body; /* the trip's code, one level deeper: inside the block and the for */
        memset(&c->body, 0, sizeof c->body);
        if (!st && in[0][0]) sb_printf(&c->body, "        memcpy(%s, &it%d, 8); /* the trip number */\n", in[0], d);
        /* without a condition operand the body's condition is ignored (ONNX's for loop) */
        if (!st)
            st = emit_body(c, n, cs.body[0], "body", in, 2 + N + K, dst,
                           !l.use_cond ? CG_COND_IGNORED
                           : S > 0     ? CG_COND_INVARIANT
                                       : CG_COND_VARIES);
        for (int k = 0; k < N && !st; k++)
            sb_printf(&c->body, "        memcpy(%s, %s, %lld);\n", outs[k], dst[1 + k], (long long)bytes[k]);
        sbuf trip = c->body;
        c->body = outer;
        if (trip.s) append_indented(&c->body, trip.s, trip.len);
        if (trip.oom && !st) st = nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
        free(sb_finish(&trip));
        if (!st) sb_printf(&c->body, "        }\n    }\n");
    }
    free(in), free(dst), free(outs), free(bytes);
    return st;
}

/* Whether entry j of ints attribute `name` of n is nonzero (a reversed scan
 * direction). */
static bool scan_reversed(const nnfx_node *n, const char *name, int j) {
    const nnfx_attr *a = nnfx_node_attr(n, name);
    return a && a->kind == NNFX_ATTR_INTS && j < a->u.ints.n && a->u.ints.v[j];
}

/* Where trip t's item lies along a scan axis: the position expression (t,
 * or len - 1 - t reversed) of loop counter d into buf. */
static void scan_pos(char *buf, size_t len_buf, bool reversed, int64_t len, int d) {
    if (reversed)
        snprintf(buf, len_buf, "(%lld - it%d)", (long long)(len - 1), d);
    else
        snprintf(buf, len_buf, "it%d", d);
}

/* Scan along any axis of its scanned inputs and outputs (either
 * direction): a C for loop like a Loop's. A scanned input viewed as
 * [outer, len, inner] along its axis gives trip t the rows at position t
 * (len - 1 - t reversed): read in place when outer is 1, else copied into a
 * buffer of its own before the body runs; a scan output's item is written
 * in place when outer is 1, else into a buffer copied to its rows after
 * the body (the interpreter's slice_at / stack_items). */
static nnfx_status emit_scan(cg *c, const fx_step_view *s, const nnfx_node *n) {
    ir_ctrl_shape cs;
    nnfx_status st = ir_ctrl_layout(n, &cs, c->err);
    if (st) return st;
    const int N = cs.ncarried, M = cs.nscan_in, S = cs.nscan_out, K = cs.ncaptures;
    if (s->nin != N + M + K || n->nout != N + S) return cg_unsupported(c, n, "its operands do not match its body");
    int64_t len = -1;
    /* per scanned input / scan output: outer and inner of [outer, len, inner] along its axis */
    int64_t *geo = calloc((size_t)(2 * (M + S) + 2), sizeof *geo);
    if (!geo) return nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
    for (int j = 0; j < M && !st; j++) {
        const nnfx_meta *xm = cg_arg_meta(n, N + j);
        int ax = xm ? ir_scan_axis(n, "scan_input_axes", j, xm->rank) : -1;
        if (!xm || xm->rank < 1 || (xm->dtype != NNFX_F32 && !cg_bytes_dtype(xm->dtype)))
            st = cg_unsupported(c, n, "a scanned input is not a tensor of a type generated C holds");
        else if (ax < 0)
            st = cg_unsupported(c, n, "a scan input axis is out of range");
        else if (len >= 0 && xm->dims[ax].value != len)
            st = cg_unsupported(c, n, "its scanned inputs differ in length");
        if (st) break;
        len = xm->dims[ax].value;
        geo[2 * j] = infer_prod(xm, 0, ax), geo[2 * j + 1] = infer_prod(xm, ax + 1, xm->rank);
    }
    for (int j = 0; j < S && !st; j++) {
        const nnfx_meta *om = &n->meta[N + j];
        int ax = ir_scan_axis(n, "scan_output_axes", j, om->rank);
        if (ax < 0 || om->rank < 1 || om->dims[ax].value != len)
            st = cg_unsupported(c, n, "a scan output axis is out of range or not the scan's length");
        else
            geo[2 * (M + j)] = infer_prod(om, 0, ax), geo[2 * (M + j) + 1] = infer_prod(om, ax + 1, om->rank);
    }
    if (st) {
        free(geo);
        return st;
    }
    char(*in)[64] = calloc((size_t)(N + M + K + 1), sizeof *in);
    char(*dst)[64] = calloc((size_t)(N + S + 1), sizeof *dst);
    char(*outs)[64] = calloc((size_t)(N + S + 1), sizeof *outs);
    if (!in || !dst || !outs) st = nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
    if (!st) st = ctrl_outputs(c, s, n, outs);
    const int d = c->depth;
    for (int k = 0; k < N && !st; k++) { /* the initial values into the carried outputs */
        char init[64];
        const nnfx_meta *im = cg_arg_meta(n, k);
        if (!im || im->dtype != n->meta[k].dtype) {
            st = cg_unsupported(c, n, "a scan-carried value's initial type differs from its result's");
            break;
        }
        if ((st = im->dtype == NNFX_F32 ? cg_value_expr(c, s->in[k], n, init, sizeof init)
                                        : cg_value_bytes(c, s->in[k], im->dtype, n, init, sizeof init)))
            break;
        sb_printf(&c->body, "    memcpy(%s, %s, %lld);\n", outs[k], init, (long long)nnfx_meta_nbytes(im));
    }
    if (!st && len > 0) {
        sbuf pre = {0}, post = {0}; /* per trip: the strided inputs' copies, the strided outputs' copies */
        char pos[48];
        for (int k = 0; k < N && !st; k++) {
            memcpy(in[k], outs[k], sizeof in[k]);
            st = ctrl_region_expr(c, n, dst[k], n->meta[k].dtype, nnfx_meta_nbytes(&n->meta[k]));
        }
        for (int j = 0; j < M && !st; j++) { /* float32 rows in floats, others in bytes (es each) */
            char x[96];
            const nnfx_dtype xt = cg_arg_meta(n, N + j)->dtype;
            const bool f = xt == NNFX_F32;
            const int64_t outer = geo[2 * j], inner = geo[2 * j + 1], es = f ? 1 : (int64_t)nnfx_dtype_size(xt);
            if ((st = f ? cg_value_expr(c, s->in[N + j], n, x, sizeof x)
                        : cg_value_bytes(c, s->in[N + j], xt, n, x, sizeof x)))
                break;
            scan_pos(pos, sizeof pos, scan_reversed(n, "scan_input_directions", j), len, d);
            if (outer == 1) {
                st = expr_fmt(c, n, in[N + j], "(%s + %s * %lld)", x, pos, (long long)(inner * es));
                continue;
            }
            if ((st = ctrl_region_expr(c, n, in[N + j], xt, outer * inner * (int64_t)nnfx_dtype_size(xt)))) break;
            cg_use_section(c, f ? "transpose" : "transpose_bytes");
            sb_printf(&pre,
                      "    {   /* scanned input %d: the rows at the trip's position along its axis */\n"
                      "        static const long shape[2] = {%lld, %lld};\n"
                      "        static const long st[2] = {%lld, 1};\n",
                      j, (long long)outer, (long long)inner, (long long)(len * inner));
            if (f)
                sb_printf(&pre, "        nnfx_rt_transpose(%s + %s * %lld, %s, 2, shape, st);\n    }\n", x, pos,
                          (long long)inner, in[N + j]);
            else
                sb_printf(&pre, "        nnfx_rt_transpose_bytes(%s + %s * %lld, %s, %lld, 2, shape, st);\n    }\n", x,
                          pos, (long long)(inner * es), in[N + j], (long long)es);
        }
        for (int k = 0; k < K && !st; k++)
            st = capture_expr(c, s->in[N + M + k], cg_arg_meta(n, N + M + k), n, in[N + M + k], sizeof in[N + M + k]);
        for (int j = 0; j < S && !st; j++) {
            const nnfx_dtype ot = n->meta[N + j].dtype;
            const bool f = ot == NNFX_F32;
            const int64_t outer = geo[2 * (M + j)], inner = geo[2 * (M + j) + 1],
                          es = f ? 1 : (int64_t)nnfx_dtype_size(ot);
            scan_pos(pos, sizeof pos, scan_reversed(n, "scan_output_directions", j), len, d);
            if (outer == 1) {
                st = expr_fmt(c, n, dst[N + j], "(%s + %s * %lld)", outs[N + j], pos, (long long)(inner * es));
                continue;
            }
            if ((st = ctrl_region_expr(c, n, dst[N + j], ot, outer * inner * (int64_t)nnfx_dtype_size(ot)))) break;
            if (f) {
                cg_use_section(c, "copy_rows");
                sb_printf(&post, "    nnfx_rt_copy_rows(%s, %s + %s * %lld, %lld, %lld, %lld); /* scan output %d */\n",
                          dst[N + j], outs[N + j], pos, (long long)inner, (long long)outer, (long long)inner,
                          (long long)(len * inner), j);
            } else {
                sb_printf(&post,
                          "    {   /* scan output %d: its rows at the trip's position */\n        long o;\n"
                          "        for (o = 0; o < %lld; o++)\n"
                          "            memcpy(%s + %s * %lld + o * %lld, %s + o * %lld, %lld);\n    }\n",
                          j, (long long)outer, outs[N + j], pos, (long long)(inner * es), (long long)(len * inner * es),
                          dst[N + j], (long long)(inner * es), (long long)(inner * es));
            }
        }
        if (!st) sb_printf(&c->body, "    for (long it%d = 0; it%d < %lld; it%d++) {\n", d, d, (long long)len, d);
        if (!st && pre.s) append_indented(&c->body, pre.s, pre.len);
        if (!st) st = emit_body(c, n, cs.body[0], "body", in, N + M + K, dst, CG_COND_IGNORED);
        if (!st && post.s) append_indented(&c->body, post.s, post.len);
        for (int k = 0; k < N && !st; k++)
            sb_printf(&c->body, "        memcpy(%s, %s, %lld);\n", outs[k], dst[k],
                      (long long)nnfx_meta_nbytes(&n->meta[k]));
        if (!st) sb_printf(&c->body, "    }\n");
        if (!st && (pre.oom || post.oom)) st = nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
        free(sb_finish(&pre)), free(sb_finish(&post));
    }
    free(in), free(dst), free(outs), free(geo);
    return st;
}

/* Control flow that generated C cannot run: refused (with the reason)
 * before anything is written, ahead of the other steps' errors. */
static nnfx_status check_ctrl_steps(cg *c) {
    int ns = fx_plan_nsteps(c->p);
    for (int i = 0; i < ns; i++) {
        fx_step_view v = fx_plan_step_view(c->p, i);
        loop_limits l;
        if (v.kind != FX_STEP_KERNEL || v.last->opcode != NNFX_CALL_FUNCTION) continue;
        if (v.last->op == NNFX_OP_LOOP) {
            nnfx_status st = loop_limits_of(c, &v, v.last, &l);
            if (st) return st;
        }
    }
    return NNFX_OK;
}

/* One kernel step: control flow, a data-dependent source, Einsum and the
 * moves of data of any type first, then the ops over other types than
 * float32 (emit_typed_ops.c), then the float32 ones: element-wise maps,
 * binary ops and views, then one emitter per op (a flat dispatch; fused
 * int8 steps elsewhere). */
static nnfx_status emit_kernel_step(cg *c, const fx_step_view *s) {
    const nnfx_node *n = s->last;
    char in[8][64], y[64];
    nnfx_status st;
    if (ir_op_is_ctrl(n->op)) { /* its regions are live only while it runs */
        int64_t mark = c->ctrl_bytes;
        st = n->op == NNFX_OP_IF ? emit_if(c, s, n) : n->op == NNFX_OP_LOOP ? emit_loop(c, s, n) : emit_scan(c, s, n);
        c->ctrl_bytes = mark;
        return st;
    }
    const int bounded = c->in_expr ? -1 : cg_bounded_index(c, n);
    if (bounded >= 0) return cg_emit_bounded(c, s, bounded);
    bool data_sized = false; /* sizes a loop body read from data */
    if (c->bnd && ((st = cg_emit_data_sized(c, s, n, &data_sized)) || data_sized)) return st;
    const nnfx_meta *x0 = cg_arg_meta(n, 0);
    if (reduce_kind(n->op) >= 0 && x0 && (x0->dtype == NNFX_F64 || x0->dtype == NNFX_I64) &&
        n->meta[0].dtype == x0->dtype)
        return emit_reduce(c, s, n, NULL, NULL, reduce_kind(n->op));
    if (n->op == NNFX_OP_EINSUM) return emit_einsum(c, s, n);
    if (cg_ctype(n->meta[0].dtype)) { /* moves of data, of any type */
        switch (n->op) {
        case NNFX_OP_CONCAT: return emit_concat_rows(c, s, n);
        case NNFX_OP_TRANSPOSE: return emit_transpose(c, s, n);
        case NNFX_OP_EXPAND: return emit_expand(c, s, n);
        case NNFX_OP_SLICE: return emit_slice(c, s, n);
        case NNFX_OP_SPLIT: return emit_split(c, s, n);
        default: break;
        }
    }
    bool typed = false; /* integer / bool values, or float ops reading them: emit_typed_ops.c */
    if ((st = cg_emit_typed_op(c, s, &typed)) || typed) return st;
    if (cg_compare_code(n->op) >= 0) return emit_compare(c, s, n);
    if (n->op == NNFX_OP_ARGMAX || n->op == NNFX_OP_ARGMIN) return emit_argmax(c, s, n);
    if (n->op == NNFX_OP_TOPK) return emit_topk(c, s, n); /* any numeric type */
    if (n->op == NNFX_OP_CAST && cg_arg_meta(n, 0) && cg_arg_meta(n, 0)->dtype == NNFX_F32 &&
        (n->meta[0].dtype == NNFX_I64 || n->meta[0].dtype == NNFX_BOOL))
        return emit_cast_from_float(c, s, n);
    if (n->op == NNFX_OP_PAD && n->meta[0].dtype != NNFX_F32 && cg_tcode(n->meta[0].dtype) >= 0)
        return emit_pad(c, s, n, NULL, NULL); /* the bytes moved, in any type */
    if (is_int8_step(n)) return emit_int8_kernel_step(c, s);
    if (n->meta[0].dtype != NNFX_F32) return cg_unsupported(c, n, "only float32 values are generated");
    if (n->op == NNFX_OP_RNN || n->op == NNFX_OP_GRU || n->op == NNFX_OP_LSTM) return emit_rnn(c, s, n);
    if (n->op == NNFX_OP_CAST) return emit_cast_to_float(c, s, n);
    if ((st = cg_value_expr(c, s->out, n, y, sizeof y))) return st;
    /* further multi-output ops (LayerNormalization's Mean / InvStdDev, MaxPool's Indices, Dropout's mask):
     * emit_float_ops.c */
    const bool multi = s->nout != 1 && n->op != NNFX_OP_SPLIT;
    if (multi && !cg_float_multi_output(n))
        return cg_unsupported(c, n,
                              "multi-output ops other than Split, TopK, RNN, GRU, LSTM, LayerNormalization, MaxPool "
                              "and Dropout are not generated");
    int ndata = cg_data_inputs(n->op, s->nin);
    if (ndata > 8) return cg_unsupported(c, n, "too many inputs");
    for (int a = 0; a < ndata; a++) {
        in[a][0] = 0;
        if (s->in[a] >= 0 && (st = cg_value_expr(c, s->in[a], n, in[a], sizeof in[a]))) return st;
    }
    if (multi && n->op != NNFX_OP_LAYER_NORM) return cg_emit_float_op(c, s, n, in, y);
    int64_t numel = cg_meta_numel(&n->meta[0]);
    const char *fn;
    if ((fn = cg_unary_fn(n->op))) {
        float a, b;
        if (!cg_unary_params(c, s, n, &a, &b)) return cg_emit_float_op(c, s, n, in, y); /* computed bounds */
        cg_emit_map(c, fn, in[0], y, numel, a, b);
        return NNFX_OK;
    }
    if ((fn = cg_binary_fn(n->op))) return cg_emit_binary(c, n, fn, in[0], in[1], y);
    if (ir_op_info(n->op)->flags & NNFX_F_VIEW) { /* reshape-likes: the data, unchanged */
        sb_printf(&c->body, "    memmove(%s, %s, %lld);\n", y, in[0], (long long)(numel * 4));
        return NNFX_OK;
    }
    if (reduce_kind(n->op) >= 0) return emit_reduce(c, s, n, in[0], y, reduce_kind(n->op));
    switch (n->op) {
    case NNFX_OP_CONV:
        return emit_conv(c, n, in[0], s->in[1], in[1], s->nin > 2 && s->in[2] >= 0 ? in[2] : NULL, NULL, false, y,
                         NULL);
    case NNFX_OP_BATCH_NORM: return emit_batch_norm(c, n, in, y);
    case NNFX_OP_GEMM: return emit_gemm(c, s, n, in, y);
    case NNFX_OP_MATMUL: return emit_matmul(c, n, in, y);
    case NNFX_OP_MAX_POOL: /* 3-d: emit_float_ops.c's MaxPool */
        if (cg_arg_meta(n, 0) && cg_arg_meta(n, 0)->rank == 5) return cg_emit_float_op(c, s, n, in, y);
        return emit_pool(c, n, in[0], y);
    case NNFX_OP_AVERAGE_POOL: return emit_pool(c, n, in[0], y);
    case NNFX_OP_SOFTMAX:
    case NNFX_OP_LOG_SOFTMAX: return emit_softmax(c, n, in[0], y);
    case NNFX_OP_LAYER_NORM: return emit_layer_norm(c, s, n, in, y);
    case NNFX_OP_GATHER: return emit_gather(c, s, n, in[0], y);
    case NNFX_OP_PAD: return emit_pad(c, s, n, in[0], y);
    case NNFX_OP_RESIZE: return emit_resize(c, s, n, in[0], y);
    default: return cg_emit_float_op(c, s, n, in, y);
    }
}

/* ---- int8 (QDQ) steps ---------------------------------------------------------
 * The plan's int8 islands (src/exec/qplan.h) become calls into
 * runtime/nnfx_rt_int8.h with the model's own int8 weights and the
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

static bool is_int8_step(const nnfx_node *n) {
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

static nnfx_status emit_qop_step(cg *c, const fx_step_view *s) {
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
    if (nnfx_node_attr_int(n, "block_size", 0)) return cg_unsupported(c, n, "blocked quantization is not generated");
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
        int64_t axis = nnfx_node_attr_int(n, "axis", 1);
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

static nnfx_status emit_int8_kernel_step(cg *c, const fx_step_view *s) {
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

/* ---- the files ------------------------------------------------------------- */

static const char *io_ctype(nnfx_dtype dt);

/* NAME_INPUTk_* / NAME_OUTPUTk_*: elements, rank, shape and C type. */
static void emit_dims_macros(cg *c, sbuf *h, const char *kind, int k, const nnfx_meta *m) {
    sb_printf(h, "#define %s_%s%d_SIZE %lld\n#define %s_%s%d_RANK %d\n#define %s_%s%d_SHAPE {", c->name, kind, k,
              (long long)cg_meta_numel(m), c->name, kind, k, m->rank, c->name, kind, k);
    for (int d = 0; d < m->rank; d++)
        sb_printf(h, d ? ", %lld" : "%lld", (long long)m->dims[d].value);
    const char *ty = io_ctype(m->dtype);
    sb_printf(h, "}\n#define %s_%s%d_TYPE %s%s\n", c->name, kind, k, ty ? ty : "float",
              m->dtype == NNFX_BOOL  ? " /* bool: 0 or 1 */"
              : m->dtype == NNFX_F16 ? " /* float16: the IEEE half's bits */"
                                     : "");
}

/* Lists the nodes of g and of its control-flow bodies whose op is in the
 * comma-separated list forbid: one line each in b, counted in *hits. */
static void forbidden_nodes(const nnfx_graph *g, const char *forbid, sbuf *b, int *hits, bool *sig, bool *others) {
    for (const nnfx_node *n = g->head; n; n = n->next) {
        if (n->opcode != NNFX_CALL_FUNCTION) continue;
        if (ir_op_is_ctrl(n->op)) {
            ir_ctrl_shape cs;
            nnfx_error e = {0};
            for (int k = 0; !ir_ctrl_layout(n, &cs, &e) && k < cs.nbodies; k++)
                forbidden_nodes(cs.body[k], forbid, b, hits, sig, others);
        }
        const char *ot = ir_op_info(n->op)->onnx_type, *nm = nnfx_op_name(n->op);
        for (const char *p = forbid; *p;) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            if ((strlen(ot) == len && strncasecmp(ot, p, len) == 0) ||
                (strlen(nm) == len && strncasecmp(nm, p, len) == 0)) {
                sb_printf(b, "%s  %s (%s)", *hits ? "\n" : "", n->name, ot);
                (*hits)++;
                if (n->op == NNFX_OP_SIGMOID)
                    *sig = true;
                else
                    *others = true;
                break;
            }
            p += len + (e ? 1 : 0);
        }
    }
}

static nnfx_status check_forbidden(const nnfx_graph *g, const char *forbid, nnfx_error *err) {
    if (!forbid || !*forbid) return NNFX_OK;
    sbuf b = {0};
    int hits = 0;
    bool sig = false, others = false;
    forbidden_nodes(g, forbid, &b, &hits, &sig, &others);
    if (!hits) {
        free(sb_finish(&b));
        return NNFX_OK;
    }
    char *list = sb_finish(&b);
    nnfx_error_set(err, NNFX_ERR_RUNTIME, "codegen: %d node%s use%s a forbidden op (--forbid %s):\n%s%s%s", hits,
                   hits == 1 ? "" : "s", hits == 1 ? "s" : "", forbid, list ? list : "",
                   sig ? "\nsuggested rewrite: nnfx optimize MODEL -o OUT --rewrite "
                         "'sigmoid(x) -> hard_sigmoid(x, alpha=0.2, beta=0.5)'"
                       : "",
                   others ? "\nreplace the other ops with a --rewrite into ops the target has, then check the "
                            "accuracy with optimize --validate"
                          : "");
    free(list);
    return NNFX_ERR_RUNTIME;
}

static bool valid_ident(const char *s) {
    if (!s || !*s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

static char *emit_report(cg *c, int64_t arena) {
    sbuf b = {0};
    sb_printf(&b,
              "{\"name\": \"%s\", \"arena_bytes\": %lld, \"weight_bytes\": %lld, \"weight_arrays\": %d, "
              "\"libm\": %s, \"int8_steps\": %d, \"ops\": [",
              c->name, (long long)arena, (long long)c->weight_bytes, c->nweights, c->libm ? "true" : "false",
              c->int8_steps);
    bool first = true;
    /* RAM per op: the most bytes of activations alive at one of its steps */
    int64_t *live = calloc(NNFX_OP_COUNT, sizeof *live);
    for (int st = 0; live && st < fx_plan_nsteps(c->p); st++) {
        fx_step_view v = fx_plan_step_view(c->p, st);
        const nnfx_node *n = v.kind == FX_STEP_CONV || v.kind == FX_STEP_QOP ? v.first : v.last;
        if (!n || n->opcode != NNFX_CALL_FUNCTION) continue;
        int64_t l = fx_plan_step_live(c->p, st);
        if (l > live[n->op]) live[n->op] = l;
    }
    for (int o = 0; o < NNFX_OP_COUNT; o++) {
        const cg_op_stat *s = &c->stats[o];
        if (!s->nodes) continue;
        sb_printf(&b,
                  "%s\n  {\"op\": \"%s\", \"nodes\": %d, \"weight_bytes\": %lld, \"macs\": %lld, "
                  "\"live_bytes\": %lld}",
                  first ? "" : ",", ir_op_info((nnfx_op)o)->onnx_type, s->nodes, (long long)s->weight_bytes,
                  (long long)s->macs, (long long)(live ? live[o] : 0));
        first = false;
    }
    free(live);
    int64_t pl = 0;
    int ps = fx_plan_peak_step(c->p, &pl);
    fx_step_view pv = ps >= 0 ? fx_plan_step_view(c->p, ps) : (fx_step_view){0};
    sb_printf(&b, "],\n \"peak_step\": {\"step\": %d, \"node\": \"", ps);
    for (const char *q = pv.last ? pv.last->name : ""; *q; q++) /* JSON string: quotes, backslashes, controls */
        if (*q == '"' || *q == '\\')
            sb_printf(&b, "\\%c", *q);
        else if ((unsigned char)*q < 0x20)
            sb_printf(&b, "\\u%04x", (unsigned)(unsigned char)*q);
        else
            sb_printf(&b, "%c", *q);
    sb_printf(&b, "\", \"live_bytes\": %lld}}\n", (long long)pl);
    return sb_finish(&b);
}

static nnfx_status check_static_inputs(const nnfx_graph *g, nnfx_error *err) {
    for (const nnfx_node *n = g->head; n; n = n->next) {
        if (n->opcode != NNFX_PLACEHOLDER) continue;
        const nnfx_meta *m = &n->meta[0];
        if (m->rank < 0)
            return nnfx_error_set(err, NNFX_ERR_SHAPE,
                                  "codegen: input %s has an unknown rank: fix it with --shape %s=D0xD1x...", n->name,
                                  n->name);
        for (int d = 0; d < m->rank; d++)
            if (m->dims[d].value < 0) {
                char ms[160];
                nnfx_meta_str(m, ms, sizeof ms);
                return nnfx_error_set(err, NNFX_ERR_INVALID_ARG,
                                      "codegen: input %s has a dynamic shape %s (dim %d): generated C needs static "
                                      "shapes; fix it with --shape %s=D0xD1x...",
                                      n->name, ms, d, n->name);
            }
        if (!io_ctype(m->dtype))
            return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED,
                                  "codegen: input %s is %s (generated C takes float32, float64, float16, int64, "
                                  "int32, int16, int8, uint64, uint32, uint16, uint8 and bool inputs)",
                                  n->name, nnfx_dtype_name(m->dtype));
    }
    return NNFX_OK;
}

/* The C type of a model input or output of type dt (bool: one byte, 0 or
 * 1), NULL when generated C has none. */
static const char *io_ctype(nnfx_dtype dt) {
    switch (dt) {
    case NNFX_F32: return "float";
    case NNFX_F64: return "double";
    case NNFX_F16: return "uint16_t"; /* the IEEE half's bits */
    case NNFX_I64: return "int64_t";
    case NNFX_I32: return "int32_t";
    case NNFX_I8: return "int8_t";
    case NNFX_I16: return "int16_t";
    case NNFX_U16: return "uint16_t";
    case NNFX_U32: return "uint32_t";
    case NNFX_U64: return "uint64_t";
    case NNFX_U8:
    case NNFX_BOOL: return "uint8_t";
    default: return NULL;
    }
}

/* Model output a, value o of a type other than float32: its bytes copied
 * from the arena or a model input, or a constant written out as an array
 * of its C type. */
static nnfx_status emit_bytes_output(cg *c, int a, const nnfx_node *o) {
    const nnfx_dtype dt = o->meta[0].dtype;
    const int v = node_index(c, o);
    fx_value_view vv = fx_plan_value_view(c->p, v);
    const int64_t n = cg_meta_numel(&o->meta[0]);
    if (!cg_bytes_dtype(dt))
        return nnfx_error_set(c->err, NNFX_ERR_UNSUPPORTED,
                              "codegen: output %s is %s (generated C has float32, float64, float16, int64, int32, "
                              "int16, int8, uint32, uint16, uint8 and bool outputs)",
                              o->name, nnfx_dtype_name(dt));
    if (vv.kind == FX_VALUE_CONST) {
        if (vv.t->dtype != dt || nnfx_tensor_numel(vv.t) != n || dt == NNFX_F64 || dt == NNFX_F16)
            return nnfx_error_set(c->err, NNFX_ERR_UNSUPPORTED, "codegen: output %s: a constant of another type",
                                  o->name);
        sb_printf(&c->body, "    {   /* a constant */\n        static const %s k[%lld] = {", io_ctype(dt),
                  (long long)(n ? n : 1));
        for (int64_t i = 0; i < n; i++) {
            const long long x = (long long)core_tensor_get_i64(vv.t, i);
            if (dt == NNFX_I64 && x == INT64_MIN)
                sb_printf(&c->body, i ? ", INT64_MIN" : "INT64_MIN");
            else
                sb_printf(&c->body, i ? ", %lld%s" : "%lld%s", x, dt == NNFX_I64 ? "LL" : "");
        }
        sb_printf(&c->body, n ? "};\n" : "0};\n");
        sb_printf(&c->body, "        memcpy(outputs[%d], k, %lld);\n    }\n", a,
                  (long long)nnfx_meta_nbytes(&o->meta[0]));
        return NNFX_OK;
    }
    char src[64];
    nnfx_status st = cg_value_typed(c, v, dt, o, src, sizeof src);
    if (st) return st;
    sb_printf(&c->body, "    memcpy(outputs[%d], %s, %lld);\n", a, src, (long long)nnfx_meta_nbytes(&o->meta[0]));
    return NNFX_OK;
}

static nnfx_status walk_plan(cg *c) {
    nnfx_status st = check_ctrl_steps(c);
    int ns = fx_plan_nsteps(c->p);
    for (int s = 0; s < ns && !st; s++) {
        fx_step_view v = fx_plan_step_view(c->p, s);
        if (v.kind == FX_STEP_OUTPUT) {
            for (int a = 0; a < v.last->nargs && !st; a++) {
                const nnfx_node *o = v.last->args[a].kind == NNFX_ARG_NODE ? v.last->args[a].u.node : NULL;
                char src[96];
                if (c->out_dst && !c->out_dst[a][0]) continue; /* a body result nobody copies */
                if (!o) return nnfx_error_set(c->err, NNFX_ERR_UNSUPPORTED, "codegen: output %d is not a node", a);
                const nnfx_dtype dt = o->meta[0].dtype;
                if (c->bnd) cg_define_data_extents(c, v.last), cg_define_node_extents(c, o);
                if (c->out_dst && cg_dyn_of(c->bnd, o)) cg_emit_result_check(c, o);
                if (!c->out_dst && c->dims_api) cg_emit_output_dims(c, a, o);
                if (!c->out_dst && cg_dyn_of(c->bnd, o)) { /* over its bound: compacted */
                    if ((st = cg_emit_dyn_output(c, a, o))) return st;
                    continue;
                }
                if (!c->out_dst && dt != NNFX_F32) { /* a model output of another type: its bytes */
                    if ((st = emit_bytes_output(c, a, o))) return st;
                    continue;
                }
                if (dt != NNFX_F32) { /* a body's result of another type into its place: its bytes */
                    if ((st = cg_value_bytes(c, node_index(c, o), dt, o, src, sizeof src))) return st;
                    sb_printf(&c->body, "    memmove(%s, %s, %lld);\n", c->out_dst[a], src,
                              (long long)nnfx_meta_nbytes(&o->meta[0]));
                    continue;
                }
                if ((st = cg_value_expr(c, node_index(c, o), o, src, sizeof src))) return st;
                if (c->out_dst) /* a body's result into its place in the enclosing plan */
                    sb_printf(&c->body, "    memmove(%s, %s, %lld);\n", c->out_dst[a], src,
                              (long long)(cg_meta_numel(&o->meta[0]) * 4));
                else
                    sb_printf(&c->body, "    memcpy(outputs[%d], %s, %lld);\n", a, src,
                              (long long)(cg_meta_numel(&o->meta[0]) * 4));
            }
            continue;
        }
        if (c->int_only && v.kind != FX_STEP_QOP) { /* an integer move (Reshape...) only */
            const nnfx_node *n = v.last, *why = NULL;
            bool qdq = n->opcode == NNFX_CALL_FUNCTION &&
                       (n->op == NNFX_OP_QUANTIZE_LINEAR || n->op == NNFX_OP_DEQUANTIZE_LINEAR);
            if (qdq || n->meta[0].dtype == NNFX_F32 || v.kind == FX_STEP_CONV) {
                for (int u = 0; n->op == NNFX_OP_DEQUANTIZE_LINEAR && u < n->nusers && !why; u++)
                    if (n->users[u]->opcode == NNFX_CALL_FUNCTION) why = n->users[u]; /* the float op it feeds */
                const nnfx_node *f = why ? why : n;
                return nnfx_error_set(c->err, NNFX_ERR_UNSUPPORTED,
                                      "codegen --int8-io: node %s (%s) is not integer-only: it runs in float "
                                      "between DequantizeLinear and QuantizeLinear (no int8 kernel for this op with "
                                      "these parameters; the int8 ones: Conv, Gemm, MatMul, element-wise regions of "
                                      "one input as tables, Mul / Add / Sub of two int8 values of one shape, "
                                      "ReduceMean / GlobalAveragePool over trailing axes)",
                                      f->name, f->opcode == NNFX_CALL_FUNCTION ? ir_op_info(f->op)->onnx_type : "?");
            }
        }
        bool fused = v.kind == FX_STEP_CONV || v.kind == FX_STEP_QOP;
        const nnfx_node *first = fused ? v.first : v.last;
        sb_printf(&c->body, "    /* %s", v.last->name);
        if (fused && v.first != v.last) sb_printf(&c->body, " (%s .. %s)", v.first->name, v.last->name);
        char ms[160];
        nnfx_meta_str(&v.last->meta[0], ms, sizeof ms);
        sb_printf(&c->body, ": %s -> %s */\n", ir_op_info(first->op)->onnx_type, ms);
        c->stats[first->op].nodes++;
        c->want_value = NULL;
        if (c->bnd) {
            cg_define_data_extents(c, first);
            cg_define_node_extents(c, first);
            if (first != v.last) cg_define_node_extents(c, v.last);
        }
        if (c->bnd && (st = cg_emit_fills(c, first))) return st;
        if (c->bnd && first != v.last && (st = cg_emit_fills(c, v.last))) return st;
        st = v.kind == FX_STEP_CONV  ? emit_conv_step(c, &v)
             : v.kind == FX_STEP_QOP ? emit_qop_step(c, &v)
                                     : emit_kernel_step(c, &v);
        if (!st && c->bnd) st = cg_emit_after(c, &v, v.last);
    }
    return st;
}

static char *emit_header(cg *c, int64_t arena) {
    sbuf h = {0};
    const char *N = c->name;
    sb_printf(&h,
              "/* %s.h — generated by nnfx codegen: the model as standalone C99 (no malloc, no globals but the\n"
              " * constant weights and one static arena). */\n"
              "#ifndef %s_H\n#define %s_H\n\n%s",
              N, N, N, c->void_io ? "#include <stdint.h>\n\n" : "");
    int nin = 0, nout = 0;
    for (const nnfx_node *n = c->g->head; n; n = n->next) {
        if (n->opcode == NNFX_PLACEHOLDER) {
            const bool fixed = c->fixed_in[nin] != NULL;
            sb_printf(&h, "/* input %d: %s%s */\n", nin, n->name,
                      fixed ? " (its values were fixed at generation: for others the run returns 1)" : "");
            if (fixed) sb_printf(&h, "#define %s_INPUT%d_FIXED 1\n", c->name, nin);
            emit_dims_macros(c, &h, "INPUT", nin++, &n->meta[0]);
        } else if (n->opcode == NNFX_OUTPUT) {
            for (int a = 0; a < n->nargs; a++) {
                const nnfx_node *o = n->args[a].u.node;
                const bool bounded = cg_output_bounded(c, o);
                sb_printf(&h, "/* output %d: %s%s */\n", nout, o->name,
                          bounded ? " (its size depends on the data: SIZE and SHAPE are its bound; the run writes "
                                    "its values first, zeros after them, and its actual dims through the _dims "
                                    "functions)"
                                  : "");
                if (bounded) sb_printf(&h, "#define %s_OUTPUT%d_BOUNDED 1\n", c->name, nout);
                emit_dims_macros(c, &h, "OUTPUT", nout++, &o->meta[0]);
            }
        }
    }
    if (c->int_only) {
        sb_printf(&h, "/* integer-only (--int8-io): inputs and outputs are int8; for the host side (never used by\n"
                      " * the generated code) each one's quantization, real = SCALE * (q - ZERO_POINT) */\n");
        for (int k = 0; k < c->io->nin; k++) {
            sb_printf(&h, "#define %s_INPUT%d_SCALE ", N, k);
            cg_float_lit(&h, c->io->in_scale[k]);
            sb_printf(&h, "\n#define %s_INPUT%d_ZERO_POINT %d\n", N, k, (int)c->io->in_zp[k]);
        }
        for (int k = 0; k < c->io->nout; k++) {
            sb_printf(&h, "#define %s_OUTPUT%d_SCALE ", N, k);
            cg_float_lit(&h, c->io->out_scale[k]);
            sb_printf(&h, "\n#define %s_OUTPUT%d_ZERO_POINT %d\n", N, k, (int)c->io->out_zp[k]);
        }
        sb_printf(&h,
                  "#define %s_NUM_INPUTS %d\n#define %s_NUM_OUTPUTS %d\n"
                  "/* bytes of the int8 activation arena (the lifetime-based plan of nnfx's runtime) */\n"
                  "#define %s_ARENA_BYTES %lld\n/* bytes of the constant weights */\n#define %s_WEIGHT_BYTES %lld\n\n"
                  "/* Runs the model in integer arithmetic only: inputs[i] holds %s_INPUTi_SIZE int8 values,\n"
                  " * outputs[i] room for %s_OUTPUTi_SIZE (row-major). Returns 0. Uses the static arena: not\n"
                  " * reentrant. Define %s_NO_STATIC_ARENA to leave the static arena out. */\n"
                  "int %s_run_int8(const int8_t *const inputs[], int8_t *const outputs[]);\n"
                  "/* The same with a caller-supplied arena of %s_ARENA_BYTES bytes, 4-byte aligned; reentrant\n"
                  " * with one arena per caller. */\n"
                  "int %s_run_int8_arena(const int8_t *const inputs[], int8_t *const outputs[], void *arena);\n"
                  "\n#endif\n",
                  N, nin, N, nout, N, (long long)arena, N, (long long)c->weight_bytes, N, N, N, N, N, N);
        return sb_finish(&h);
    }
    const char *io = c->void_io ? "void" : "float";
    bool any_fixed = false;
    for (int k = 0; k < c->nin_model; k++)
        any_fixed |= c->fixed_in[k] != NULL;
    /* what NAME_run returns besides 0 */
    char fixed_note[1024];
    snprintf(fixed_note, sizeof fixed_note, "%s%s%s%s%s", any_fixed || c->may_fail ? "\n * (" : "",
             any_fixed ? "1, writing nothing, when a fixed input holds other values" : "",
             any_fixed && c->may_fail ? ";\n * " : "",
             c->may_fail
                 ? "2 when an op meets values the interpreter refuses too: a DynamicQuantizeLinear of NaN\n"
                   " * or infinity, a MelWeightMatrix of a sample rate <= 0, a MaxUnpool, RoiAlign or\n"
                   " * TfIdfVectorizer index out of range, a Gather, GatherElements, GatherND, ScatterElements or\n"
                   " * ScatterND index out of range, a CumSum axis read at run time out of range, a Dropout\n"
                   " * in training mode with a ratio other than 0, a TopK's K past the values along a\n"
                   " * data-dependent dim, a size computed from the data past the bound its buffer has"
                 : "",
             any_fixed || c->may_fail ? ")" : "");
    sb_printf(&h,
              "#define %s_NUM_INPUTS %d\n#define %s_NUM_OUTPUTS %d\n"
              "/* the pointee type of %s_run's inputs[] and outputs[]: float when every input and output\n"
              " * is float32, else void (each pointer to values of its own %s_INPUTi_TYPE / _OUTPUTi_TYPE) */\n"
              "#define %s_IO_TYPE %s\n"
              "/* bytes of the activation arena (the lifetime-based plan of nnfx's runtime%s) */\n"
              "#define %s_ARENA_BYTES %lld\n"
              "/* bytes of the constant weights */\n#define %s_WEIGHT_BYTES %lld\n\n",
              N, nin, N, nout, N, N, N, io,
              c->ctrl_peak       ? ", then control-flow bodies' arenas and loop buffers"
              : c->scratch_bytes ? ", then steps' working memory (recurrent layers, resizes, NMS, Unique)"
                                 : "",
              N, (long long)arena, N, (long long)c->weight_bytes);
    if (c->void_io)
        sb_printf(&h,
                  "/* Runs the model: inputs[i] points to %s_INPUTi_SIZE values of type %s_INPUTi_TYPE,\n"
                  " * outputs[i] to room for %s_OUTPUTi_SIZE values of %s_OUTPUTi_TYPE (row-major; a bool is\n"
                  " * one byte, 0 or 1). Returns 0%s. Uses the static arena: not reentrant.\n",
                  N, N, N, N, fixed_note);
    else
        sb_printf(&h,
                  "/* Runs the model: inputs[i] holds %s_INPUTi_SIZE floats, outputs[i] room for\n"
                  " * %s_OUTPUTi_SIZE floats (row-major). Returns 0%s. Uses the static arena: not reentrant.\n",
                  N, N, fixed_note);
    sb_printf(&h,
              " * Define %s_NO_STATIC_ARENA to leave the static arena out. */\n"
              "int %s_run(const %s *const inputs[], %s *const outputs[]);\n"
              "/* The same with a caller-supplied arena of %s_ARENA_BYTES bytes, 4-byte aligned\n"
              " * (16 for SIMD-friendly loads); reentrant with one arena per caller. */\n"
              "int %s_run_arena(const %s *const inputs[], %s *const outputs[], void *arena);\n",
              N, N, io, io, N, N, io, io);
    if (c->dims_api)
        sb_printf(
            &h,
            "/* The same, also writing each output's actual dims: dims[i] (when not NULL) to room for\n"
            " * %s_OUTPUTi_RANK values (the bound's dims for all but a _BOUNDED output's data-dependent one). */\n"
            "int %s_run_dims(const %s *const inputs[], %s *const outputs[], long long *const dims[]);\n"
            "int %s_run_dims_arena(const %s *const inputs[], %s *const outputs[], long long *const dims[],\n"
            "                      void *arena);\n",
            N, N, io, io, N, io, io);
    sb_printf(&h, "\n#endif\n");
    return sb_finish(&h);
}

const char *cg_ctype(nnfx_dtype dt) { return io_ctype(dt); }

void cg_typed_lit(sbuf *b, nnfx_dtype dt, const void *data, int64_t i) {
    switch (dt) {
    case NNFX_F32: cg_float_lit(b, ((const float *)data)[i]); return;
    case NNFX_F64: {
        const double v = ((const double *)data)[i];
        if (v != v)
            sb_printf(b, "NAN");
        else if (isinf(v))
            sb_printf(b, v > 0 ? "INFINITY" : "-INFINITY");
        else
            sb_printf(b, "%a", v);
        return;
    }
    case NNFX_F16:
    case NNFX_U16: sb_printf(b, "%u", (unsigned)((const uint16_t *)data)[i]); return;
    case NNFX_I16: sb_printf(b, "%d", (int)((const int16_t *)data)[i]); return;
    case NNFX_U32: sb_printf(b, "%luUL", (unsigned long)((const uint32_t *)data)[i]); return;
    case NNFX_U64: sb_printf(b, "%lluULL", (unsigned long long)((const uint64_t *)data)[i]); return;
    case NNFX_I64: {
        const int64_t v = ((const int64_t *)data)[i];
        if (v == INT64_MIN)
            sb_printf(b, "INT64_MIN");
        else
            sb_printf(b, "%lldLL", (long long)v);
        return;
    }
    case NNFX_I32: {
        const int32_t v = ((const int32_t *)data)[i];
        if (v == INT32_MIN)
            sb_printf(b, "INT32_MIN");
        else
            sb_printf(b, "%ld", (long)v);
        return;
    }
    case NNFX_I8: sb_printf(b, "%d", (int)((const int8_t *)data)[i]); return;
    default: sb_printf(b, "%u", (unsigned)((const uint8_t *)data)[i]); return; /* uint8, bool */
    }
}

/* The start of NAME_run_arena: each input fixed at generation compared
 * with its values (a NaN never matches); 1 when one differs. */
static void emit_fixed_checks(const cg *c, sbuf *s) {
    for (int k = 0; k < c->nin_model; k++) {
        const nnfx_tensor *t = c->fixed_in[k];
        if (!t) continue;
        const nnfx_dtype dt = t->dtype;
        const int64_t n = nnfx_tensor_numel(t);
        const char *ty = io_ctype(dt);
        sb_printf(s,
                  "    {   /* input %d was fixed at generation (--value): other values are refused */\n"
                  "        static const %s k[%lld] = {",
                  k, ty, (long long)(n ? n : 1));
        for (int64_t i = 0; i < n; i++) {
            sb_printf(s, i ? ", " : "");
            cg_typed_lit(s, dt, t->data, i);
        }
        sb_printf(s,
                  "%s};\n        const %s *x = (const %s *)inputs[%d];\n        long i;\n"
                  "        for (i = 0; i < %lld; i++)\n            if (x[i] != k[i]) return 1;\n    }\n",
                  n ? "" : "0", ty, ty, k, (long long)n);
    }
}

static char *emit_source(cg *c, int64_t arena) {
    sbuf s = {0};
    const char *N = c->name;
    if (c->int_only) { /* --int8-io: no float, no libm */
        sb_printf(&s,
                  "/* %s.c — generated by nnfx codegen --int8-io: integer arithmetic only (no float, no\n"
                  " * libm); libc: memcpy/memset/memmove only.\n"
                  " * Kernels: src/codegen/runtime/ of nnfx (the same definitions its runtime runs). */\n"
                  "#include <stdint.h>\n#include <string.h>\n\n#include \"%s.h\"\n\n"
                  "#if defined(__GNUC__)\n#define NNFX_ALIGNED __attribute__((aligned(16)))\n#else\n"
                  "#define NNFX_ALIGNED\n#endif\n\n",
                  N, N);
        for (int i = 0; i < c->nsections; i++) {
            const char *t, *fl;
            size_t len, flen;
            if (section_text(c->sections[i], &t, &len, &fl, &flen)) sb_append(&s, t, len), sb_printf(&s, "\n");
        }
        sb_printf(&s, "/* weights: %s_weights.c */\n", N);
        if (c->decls.s) sb_append(&s, c->decls.s, c->decls.len);
        sb_printf(&s,
                  "\nint %s_run_int8_arena(const int8_t *const inputs[], int8_t *const outputs[], void *arena) {\n"
                  "    unsigned char *A = (unsigned char *)arena;\n    (void)A;\n    (void)inputs;\n",
                  N);
        if (c->body.s) sb_append(&s, c->body.s, c->body.len);
        sb_printf(&s,
                  "    return 0;\n}\n\n#ifndef %s_NO_STATIC_ARENA\nstatic int32_t %s_arena[%lld] NNFX_ALIGNED;\n\n"
                  "int %s_run_int8(const int8_t *const inputs[], int8_t *const outputs[]) {\n"
                  "    return %s_run_int8_arena(inputs, outputs, %s_arena);\n}\n#endif\n",
                  N, N, (long long)(arena / 4 > 0 ? (arena + 3) / 4 : 1), N, N, N);
        return sb_finish(&s);
    }
    sb_printf(&s,
              "/* %s.c — generated by nnfx codegen. C99; libc: memcpy/memset/memmove only%s.\n"
              " * Kernels: src/codegen/runtime/ of nnfx (the same scalar definitions its interpreter runs). */\n"
              "#include <stdint.h>\n#include <string.h>\n#include <math.h>\n\n#include \"%s.h\"\n\n"
              "#if defined(__GNUC__)\n#define NNFX_ALIGNED __attribute__((aligned(16)))\n#else\n#define NNFX_ALIGNED\n"
              "#endif\n\n",
              N, c->libm ? "; libm for the ops that need it" : "; no libm", N);
    const char *io = c->void_io ? "void" : "float";
    for (int i = 0; i < c->nsections; i++) {
        const char *t, *fl;
        size_t len, flen;
        if (section_text(c->sections[i], &t, &len, &fl, &flen)) sb_append(&s, t, len), sb_printf(&s, "\n");
    }
    sb_printf(&s, "/* weights: %s_weights.c */\n", N);
    if (c->decls.s) sb_append(&s, c->decls.s, c->decls.len);
    if (c->dims_api)
        sb_printf(&s,
                  "\nint %s_run_dims_arena(const %s *const inputs[], %s *const outputs[], long long *const dims[],\n"
                  "                      void *arena) {\n"
                  "    float *A = (float *)arena;\n    (void)A;\n    (void)inputs;\n",
                  N, io, io);
    else
        sb_printf(&s,
                  "\nint %s_run_arena(const %s *const inputs[], %s *const outputs[], void *arena) {\n"
                  "    float *A = (float *)arena;\n    (void)A;\n    (void)inputs;\n",
                  N, io, io);
    emit_fixed_checks(c, &s);
    if (c->body.s) sb_append(&s, c->body.s, c->body.len);
    sb_printf(&s, "    return 0;\n}\n\n");
    if (c->dims_api)
        sb_printf(&s,
                  "int %s_run_arena(const %s *const inputs[], %s *const outputs[], void *arena) {\n"
                  "    return %s_run_dims_arena(inputs, outputs, 0, arena);\n}\n\n",
                  N, io, io, N);
    sb_printf(&s,
              "#ifndef %s_NO_STATIC_ARENA\nstatic float %s_arena[%lld] NNFX_ALIGNED;\n\n"
              "int %s_run(const %s *const inputs[], %s *const outputs[]) {\n"
              "    return %s_run_arena(inputs, outputs, %s_arena);\n}\n",
              N, N, (long long)(arena / 4 > 0 ? arena / 4 : 1), N, io, io, N, N);
    if (c->dims_api)
        sb_printf(&s,
                  "\nint %s_run_dims(const %s *const inputs[], %s *const outputs[], long long *const dims[]) {\n"
                  "    return %s_run_dims_arena(inputs, outputs, dims, %s_arena);\n}\n",
                  N, io, io, N, N);
    sb_printf(&s, "#endif\n");
    return sb_finish(&s);
}

/* Bytes of working memory the steps of g and its control-flow bodies may
 * ask for (step_scratch: a GRU's r * h, recurrent weights computed at run
 * time, a Resize's passes), so the bodies' regions can start past it. */
static int64_t step_scratch_need(const nnfx_graph *g, bool body) {
    int64_t need = 0;
    for (const nnfx_node *n = g->head; n; n = n->next) {
        if (n->opcode != NNFX_CALL_FUNCTION) continue;
        if ((n->op == NNFX_OP_GRU || n->op == NNFX_OP_LSTM || n->op == NNFX_OP_RNN) && n->meta[0].rank == 4) {
            /* a GRU's r * h, then W, R and B when they are not parameters (the most they may take) */
            int64_t h = n->op == NNFX_OP_GRU && !nnfx_node_attr_int(n, "linear_before_reset", 0)
                            ? (n->meta[0].dims[3].value * 4 + 63) / 64 * 64
                            : 0;
            for (int a = 1; a <= 3 && a < n->nargs; a++) {
                const nnfx_node *w = n->args[a].kind == NNFX_ARG_NODE ? n->args[a].u.node : NULL;
                if (w && w->opcode != NNFX_GET_ATTR && nnfx_meta_is_static(&w->meta[0]))
                    h += (nnfx_meta_numel(&w->meta[0]) * 4 + 63) / 64 * 64 + (a == 3 ? 128 : 0);
            }
            if (h > need) need = h;
        }
        if (n->op == NNFX_OP_RESIZE && n->nargs > 0 && n->args[0].kind == NNFX_ARG_NODE && resize_by_taps(n) &&
            nnfx_meta_is_static(&n->meta[0]) && nnfx_meta_is_static(&n->args[0].u.node->meta[0])) {
            /* two buffers for the passes between the first and the last */
            int64_t h = 2 * ((resize_big(&n->args[0].u.node->meta[0], &n->meta[0]) * 4 + 63) / 64 * 64);
            if (body) { /* in a body it may resize to sizes read from data (cg_emit_data_sized) */
                const int64_t k = cg_resize_runtime_scratch(&n->args[0].u.node->meta[0], &n->meta[0]);
                if (k > h) h = k;
            }
            if (h > need) need = h;
        }
        if (!ir_op_is_ctrl(n->op)) continue;
        ir_ctrl_shape cs;
        nnfx_error e = {0};
        if (ir_ctrl_layout(n, &cs, &e)) continue;
        for (int b = 0; b < cs.nbodies; b++) {
            int64_t k = step_scratch_need(cs.body[b], true);
            if (k > need) need = k;
        }
    }
    return need;
}

/* The small model inputs (64 values at most) that the arguments of n
 * giving its output's size (a Reshape's shape, Resize's scales or sizes,
 * TopK's K, a window's size...: the ONNX inputs that are parameters rather
 * than data) are, or are computed from, named in names
 * ("a" or "a, b") and as --value options in opts; returns how many. Fixing them with --value makes the size static. */
static int size_inputs(const nnfx_node *n, char *names, size_t nlen, char *opts, size_t olen) {
    static const struct {
        const char *type; /* ONNX op type; "Reduce" is every Reduce* */
        unsigned args;    /* bit a: argument a gives the output's size */
    } sized[] = {
        {"Reshape", 1u << 1},
        {"Expand", 1u << 1},
        {"Tile", 1u << 1},
        {"ConstantOfShape", 1u << 0},
        {"Pad", 1u << 1 | 1u << 3},
        {"Slice", 0x1eu},
        {"Squeeze", 1u << 1},
        {"Unsqueeze", 1u << 1},
        {"Reduce", 1u << 1},
        {"Resize", 1u << 2 | 1u << 3},
        {"Upsample", 1u << 1},
        {"TopK", 1u << 1},
        {"Split", 1u << 1},
        {"OneHot", 1u << 1},
        {"Range", 0x7u},
        {"HannWindow", 1u << 0},
        {"HammingWindow", 1u << 0},
        {"BlackmanWindow", 1u << 0},
        {"MelWeightMatrix", 0x3u},
        {"STFT", 1u << 1 | 1u << 3},
        {"MaxUnpool", 1u << 2},
        {"CenterCropPad", 1u << 1},
        {"Loop", 0x3u}, /* its trip count and condition: a scan output's length */
        {"Col2Im", 1u << 1 | 1u << 2},
    };
    const char *type = ir_op_info(n->op)->onnx_type;
    unsigned args = 0;
    for (size_t i = 0; i < sizeof sized / sizeof sized[0] && !args; i++) {
        size_t len = strlen(sized[i].type);
        if (strncmp(type, sized[i].type, len) == 0 && (!type[len] || strcmp(sized[i].type, "Reduce") == 0))
            args = sized[i].args;
    }
    const nnfx_node *seeds[8];
    int nseeds = 0;
    for (int a = 0; a < n->nargs && a < 8; a++)
        if ((args >> a & 1u) && n->args[a].kind == NNFX_ARG_NODE) seeds[nseeds++] = n->args[a].u.node;
    return inputs_behind(seeds, nseeds, names, nlen, opts, olen);
}

static int inputs_behind(const nnfx_node *const *seeds, int nseeds, char *names, size_t nlen, char *opts, size_t olen) {
    /* the small model inputs the seeds are or are computed from (a size
     * computed by Cast, Sub, Div... of an input, as in ONNX's expanded
     * window functions), walking at most 256 nodes up */
    const nnfx_node *seen[256];
    int nseen = 0, count = 0;
    size_t nn = 0, no = 0;
    names[0] = opts[0] = 0;
    for (int a = 0; a < nseeds && nseen < 256; a++)
        seen[nseen++] = seeds[a];
    for (int i = 0; i < nseen; i++) {
        const nnfx_node *m = seen[i];
        if (m->opcode == NNFX_PLACEHOLDER) {
            if (!nnfx_meta_is_static(&m->meta[0]) || nnfx_meta_numel(&m->meta[0]) > 64 || nn + 1 >= nlen ||
                no + 1 >= olen)
                continue;
            count++;
            nn += (size_t)snprintf(names + nn, nlen - nn, "%s%s", nn ? ", " : "", m->name);
            no += (size_t)snprintf(opts + no, olen - no, "%s--value %s=V0,V1,...", no ? " " : "", m->name);
            continue;
        }
        for (int k = 0; k < m->nargs; k++) {
            const nnfx_node *up = m->args[k].kind == NNFX_ARG_NODE ? m->args[k].u.node : NULL;
            bool dup = !up;
            for (int j = 0; j < nseen && !dup; j++)
                dup = seen[j] == up;
            if (!dup && nseen < 256) seen[nseen++] = up;
        }
    }
    return count;
}

/* Why control-flow node n, whose outputs are not all static, cannot be
 * generated (in the model's graph, top, with the inputs --value could fix). */
static nnfx_status ctrl_not_static(const nnfx_node *n, bool top, nnfx_error *err) {
    char names[256], opts[512];
    const int k = top && n->op == NNFX_OP_LOOP ? size_inputs(n, names, sizeof names, opts, sizeof opts) : 0;
    if (k)
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED,
                              "codegen: node %s (%s): a scan output's length is its number of trips, known only at "
                              "run time (its trip count or condition depends on the value of model input%s %s); "
                              "generated C has static shapes. Where %s constant, fix %s: %s (or =FILE.npy)",
                              n->name, nnfx_op_name(n->op), k > 1 ? "s" : "", names, k > 1 ? "they are" : "it is",
                              k > 1 ? "them" : "it", opts);
    const char *why = "its outputs' shapes are known only at run time; generated C has static shapes";
    if (n->op == NNFX_OP_IF)
        why = "its branches give outputs of different shapes (or shapes known only at run time); generated C needs "
              "one static shape per output";
    else if (n->op == NNFX_OP_LOOP)
        why = "a scan output's length is its number of trips, known only at run time (its trip count or condition "
              "is computed at run time or absent), or a loop-carried value changes shape from one trip to the next; "
              "generated C has static shapes";
    return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "codegen: node %s (%s): %s", n->name, nnfx_op_name(n->op), why);
}

/* Every node of g (and of its control-flow bodies) has static output
 * shapes where its inputs have: an error naming the first that has not
 * (and, in the model's graph, top, the inputs --value could fix). */
static nnfx_status check_static_nodes(const nnfx_graph *g, bool top, nnfx_error *err) {
    for (const nnfx_node *n = g->head; n; n = n->next) {
        if (n->opcode == NNFX_CALL_MODULE)
            return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "codegen: node %s: leaf module %s has no C kernel",
                                  n->name, n->target);
        if (n->opcode != NNFX_CALL_FUNCTION || n->op == NNFX_OP_GETITEM) continue;
        bool in_static = true, out_static = true;
        for (int a = 0; a < n->nargs; a++)
            if (n->args[a].kind == NNFX_ARG_NODE && !nnfx_meta_is_static(&n->args[a].u.node->meta[0]))
                in_static = false;
        for (int k = 0; k < n->nout; k++)
            out_static &= nnfx_meta_is_static(&n->meta[k]);
        if (ir_op_is_ctrl(n->op)) {
            if (in_static && !out_static) return ctrl_not_static(n, top, err);
            ir_ctrl_shape cs;
            nnfx_status st = ir_ctrl_layout(n, &cs, err);
            for (int b = 0; b < cs.nbodies && !st; b++)
                st = check_static_nodes(cs.body[b], false, err);
            if (st) return st;
            continue;
        }
        if (in_static && !out_static) {
            char names[256], opts[512];
            const int k = top ? size_inputs(n, names, sizeof names, opts, sizeof opts) : 0;
            if (k)
                return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED,
                                      "codegen: node %s (%s): its output size is known only at run time (it depends on "
                                      "the value of model input%s %s); generated C has static shapes. Where %s "
                                      "constant, fix %s: %s (or =FILE.npy)",
                                      n->name, ir_op_info(n->op)->onnx_type, k > 1 ? "s" : "", names,
                                      k > 1 ? "they are" : "it is", k > 1 ? "them" : "it", opts);
            const bool boundable = n->op == NNFX_OP_NON_ZERO || n->op == NNFX_OP_COMPRESS || n->op == NNFX_OP_UNIQUE ||
                                   n->op == NNFX_OP_NMS;
            char before[256] = "";
            size_t blen = 0;
            for (int a = 0; a < n->nargs && top; a++) { /* the values it reads: where a static part ends */
                const nnfx_node *v = n->args[a].kind == NNFX_ARG_NODE ? n->args[a].u.node : NULL;
                if (v && v->opcode != NNFX_GET_ATTR && blen + strlen(v->name) + 2 < sizeof before)
                    blen += (size_t)snprintf(before + blen, sizeof before - blen, "%s%s", blen ? "," : "", v->name);
            }
            return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED,
                                  "codegen: node %s (%s): its output size is known only at run time (it depends on "
                                  "the input data); generated C has static shapes%s%s%s%s",
                                  n->name, ir_op_info(n->op)->onnx_type,
                                  boundable ? ", and bounds such a size only where the node's output is a model "
                                              "output read by nothing else"
                                            : "",
                                  before[0] ? ". To generate the part before it (and run the rest in your own code): "
                                              "--outputs "
                                            : "",
                                  before, "");
        }
    }
    return NNFX_OK;
}

/* Control-flow bodies read the enclosing graph's values through
 * placeholders (src/ir/ctrl.c), a constant too: then a body's shapes and
 * trip counts that depend on it are unknown. In g (a copy: nnfx_codegen
 * never edits the caller's graph) every captured operand that is a
 * parameter of the enclosing graph becomes a parameter of the bodies (the
 * placeholder replaced by a get_attr, the operand dropped), nested bodies
 * after their enclosing one; shapes are inferred again afterwards. */
nnfx_status cg_inline_capture(nnfx_node *n, int k, nnfx_tensor *t, nnfx_error *err) {
    ir_ctrl_shape cs;
    nnfx_status st = ir_ctrl_layout(n, &cs, err);
    if (st) return st;
    if (k < 0 || k >= cs.ncaptures) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "codegen: no capture %d", k);
    const int a = cs.first_capture + k;
    for (int b = 0; b < cs.nbodies; b++) {
        nnfx_graph *body = cs.body[b];
        nnfx_node *ph = nnfx_graph_input(body, cs.nformal + k);
        char name[96];
        snprintf(name, sizeof name, "captured_%d_%.60s", k, nnfx_node_name(ph));
        for (int u = 1; nnfx_graph_param(body, name); u++)
            snprintf(name, sizeof name, "captured_%d_%.60s_%d", k, nnfx_node_name(ph), u);
        if ((st = nnfx_graph_set_param(body, name, t, err))) return st;
        nnfx_inserting_after(body, ph);
        nnfx_node *ga = nnfx_graph_get_attr(body, name, err);
        nnfx_inserting_at_end(body);
        if (!ga) return err && err->status ? err->status : NNFX_ERR_NOMEM;
        ga->meta[0] = ph->meta[0];
        if (nnfx_replace_all_uses_with(ph, ga, NULL, NULL) < 0 || (st = nnfx_erase_node(body, ph, err)))
            return st ? st : nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
    }
    nnfx_arg *args = malloc(sizeof *args * (size_t)n->nargs);
    if (!args) return nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
    int m = 0;
    for (int i = 0; i < n->nargs; i++)
        if (i != a) args[m++] = n->args[i];
    st = nnfx_node_set_args(n, m, args, err);
    free(args);
    if (st || n->op == NNFX_OP_IF) return st;
    nnfx_attr cap = nnfx_attr_int("captures", cs.ncaptures - 1);
    return nnfx_node_set_attr(n, &cap, err);
}

static nnfx_status inline_const_captures(nnfx_graph *g, nnfx_error *err) {
    for (nnfx_node *n = g->head; n; n = n->next) {
        if (n->opcode != NNFX_CALL_FUNCTION || !ir_op_is_ctrl(n->op)) continue;
        ir_ctrl_shape cs;
        nnfx_status st = ir_ctrl_layout(n, &cs, err);
        if (st) return st;
        for (int k = cs.ncaptures - 1; k >= 0; k--) {
            const nnfx_arg *arg = &n->args[cs.first_capture + k];
            const nnfx_node *src = arg->kind == NNFX_ARG_NODE ? arg->u.node : NULL;
            nnfx_tensor *t = src && src->opcode == NNFX_GET_ATTR ? nnfx_graph_param(g, src->target) : NULL;
            if (t && (st = cg_inline_capture(n, k, t, err))) return st;
        }
        if ((st = ir_ctrl_layout(n, &cs, err))) return st;
        for (int b = 0; b < cs.nbodies; b++)
            if ((st = inline_const_captures(cs.body[b], err))) return st;
    }
    return NNFX_OK;
}

static nnfx_status codegen_graph(nnfx_graph *g, const nnfx_codegen_options *o, const cg_bounds *bounds,
                                 const cg_int8io *io, nnfx_codegen_files *out, nnfx_error *err);
static nnfx_status codegen_pass(nnfx_graph *g, const nnfx_codegen_options *o, const cg_bounds *bounds,
                                const cg_int8io *io, nnfx_codegen_files *out, int64_t scratch, int64_t *needed,
                                nnfx_error *err);
static void scalar_loop_conditions(nnfx_graph *g);

nnfx_status nnfx_codegen(nnfx_graph *g, const char *name, const char *forbid, nnfx_codegen_files *out,
                         nnfx_error *err) {
    return nnfx_codegen_opt(g, name, forbid, NNFX_CODEGEN_SPEED, out, err);
}

nnfx_status nnfx_codegen_opt(nnfx_graph *g, const char *name, const char *forbid, nnfx_codegen_optimize opt,
                             nnfx_codegen_files *out, nnfx_error *err) {
    nnfx_codegen_options o = {0};
    o.name = name, o.forbid = forbid, o.optimize = opt;
    return nnfx_codegen_ex(g, &o, out, err);
}

/* The placeholder fixed input i of o names in g, after checking that the
 * value fits it; NULL with the error set. */
static nnfx_node *fixed_placeholder(nnfx_graph *g, const nnfx_codegen_options *o, int i, nnfx_error *err) {
    const char *in = o->fixed_inputs ? o->fixed_inputs[i] : NULL;
    const nnfx_tensor *t = o->fixed_values ? o->fixed_values[i] : NULL;
    if (!in || !t) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "codegen: fixed input %d has no name or no value", i);
        return NULL;
    }
    nnfx_node *ph = nnfx_graph_find(g, in);
    if (!ph || ph->opcode != NNFX_PLACEHOLDER) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "codegen: --value %s: the model has no input named '%s'", in, in);
        return NULL;
    }
    for (int j = 0; j < i; j++)
        if (o->fixed_inputs[j] && strcmp(o->fixed_inputs[j], in) == 0) {
            nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "codegen: --value %s: the input is fixed twice", in);
            return NULL;
        }
    const nnfx_meta *m = &ph->meta[0];
    if (!nnfx_meta_is_static(m)) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG,
                       "codegen: --value %s: the input's shape is not static: fix it first with --shape %s=D0xD1x...",
                       in, in);
        return NULL;
    }
    if (t->dtype != m->dtype || nnfx_tensor_numel(t) != nnfx_meta_numel(m)) {
        char ms[160];
        nnfx_meta_str(m, ms, sizeof ms);
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG,
                       "codegen: --value %s: %lld %s value%s given, the input is %s (%lld value%s)", in,
                       (long long)nnfx_tensor_numel(t), nnfx_dtype_name(t->dtype), nnfx_tensor_numel(t) == 1 ? "" : "s",
                       ms, (long long)nnfx_meta_numel(m), nnfx_meta_numel(m) == 1 ? "" : "s");
        return NULL;
    }
    return ph;
}

/* In g (a copy), every use of each fixed input reads a parameter holding
 * its value instead; the placeholders stay, unused, so the API keeps them. */
static nnfx_status fix_inputs(nnfx_graph *g, const nnfx_codegen_options *o, nnfx_error *err) {
    for (int i = 0; i < o->nfixed; i++) {
        if (o->noutputs && o->fixed_inputs[i] && !nnfx_graph_find(g, o->fixed_inputs[i]))
            continue; /* an input the part --outputs asks for does not read */
        nnfx_node *ph = fixed_placeholder(g, o, i, err);
        if (!ph) return err && err->status ? err->status : NNFX_ERR_INVALID_ARG;
        const nnfx_meta *m = &ph->meta[0];
        int64_t dims[NNFX_MAX_RANK];
        for (int d = 0; d < m->rank; d++)
            dims[d] = m->dims[d].value;
        nnfx_tensor *t = nnfx_tensor_new(m->dtype, m->rank, dims, err);
        if (!t) return err && err->status ? err->status : NNFX_ERR_NOMEM;
        memcpy(t->data, o->fixed_values[i]->data, t->nbytes);
        char name[96];
        snprintf(name, sizeof name, "fixed_%.80s", ph->name);
        for (int u = 1; nnfx_graph_param(g, name); u++)
            snprintf(name, sizeof name, "fixed_%.70s_%d", ph->name, u);
        nnfx_status st = nnfx_graph_set_param(g, name, t, err);
        nnfx_tensor_release(t);
        if (st) return st;
        nnfx_inserting_after(g, ph);
        nnfx_node *ga = nnfx_graph_get_attr(g, name, err);
        nnfx_inserting_at_end(g);
        if (!ga) return err && err->status ? err->status : NNFX_ERR_NOMEM;
        if (nnfx_replace_all_uses_with(ph, ga, NULL, NULL) < 0)
            return nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
    }
    return NNFX_OK;
}

/* A per-tensor int8 Q / DQ node's scale and zero point (constant
 * parameters); false when n is not one. */
static bool int8_qparams(const nnfx_graph *g, const nnfx_node *n, float *scale, int32_t *zp) {
    if (n->nargs < 2 || nnfx_node_attr_int(n, "block_size", 0)) return false;
    const nnfx_node *sn = n->args[1].kind == NNFX_ARG_NODE ? n->args[1].u.node : NULL;
    const nnfx_node *zn = n->nargs > 2 && n->args[2].kind == NNFX_ARG_NODE ? n->args[2].u.node : NULL;
    const nnfx_tensor *st = sn && sn->opcode == NNFX_GET_ATTR ? nnfx_graph_param(g, sn->target) : NULL;
    const nnfx_tensor *zt = zn && zn->opcode == NNFX_GET_ATTR ? nnfx_graph_param(g, zn->target) : NULL;
    if (!st || st->dtype != NNFX_F32 || nnfx_tensor_numel(st) != 1 || !zt || zt->dtype != NNFX_I8 ||
        nnfx_tensor_numel(zt) != 1)
        return false;
    *scale = *(const float *)st->data, *zp = *(const int8_t *)zt->data;
    return *scale > 0;
}

/* --int8-io on g (a copy): each float input read only by per-tensor int8
 * QuantizeLinear nodes becomes an int8 input read in their place, each
 * output that is a per-tensor DequantizeLinear of an int8 value returns
 * that value; their parameters go to io. Anything else: NNFX_ERR_UNSUPPORTED
 * naming the input or output. */
static nnfx_status int8_io_rewrite(nnfx_graph *g, cg_int8io *io, nnfx_error *err) {
    memset(io, 0, sizeof *io);
    for (nnfx_node *n = g->head; n; n = n->next) {
        if (n->opcode != NNFX_PLACEHOLDER) continue;
        if (io->nin >= 256) return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "codegen --int8-io: over 256 inputs");
        float sc = 0;
        int32_t zp = 0;
        bool first = true;
        for (int u = 0; u < n->nusers; u++) {
            const nnfx_node *q = n->users[u];
            float s2;
            int32_t z2;
            if (q->opcode != NNFX_CALL_FUNCTION || q->op != NNFX_OP_QUANTIZE_LINEAR || q->args[0].u.node != n ||
                !int8_qparams(g, q, &s2, &z2) || (!first && (s2 != sc || z2 != zp)))
                return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED,
                                      "codegen --int8-io: input %s is read by node %s (%s), not only by one int8 "
                                      "per-tensor QuantizeLinear (quantize the model with --activations int8)",
                                      n->name, q->name, ir_op_info(q->op)->onnx_type);
            sc = s2, zp = z2, first = false;
        }
        if (first || n->meta[0].dtype != NNFX_F32)
            return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED,
                                  "codegen --int8-io: input %s is %s: an int8 input stands for a float32 one read "
                                  "by QuantizeLinear",
                                  n->name, first ? "unused" : nnfx_dtype_name(n->meta[0].dtype));
        for (int u = n->nusers - 1; u >= 0; u--) {
            nnfx_node *q = n->users[u];
            if (nnfx_replace_all_uses_with(q, n, NULL, NULL) < 0)
                return nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
        }
        n->meta[0].dtype = NNFX_I8;
        io->in_scale[io->nin] = sc, io->in_zp[io->nin++] = zp;
    }
    nnfx_node *out = nnfx_graph_output_node(g);
    for (int a = 0; out && a < out->nargs; a++) {
        nnfx_node *d = out->args[a].kind == NNFX_ARG_NODE ? out->args[a].u.node : NULL;
        nnfx_node *q = d && d->nargs > 0 && d->args[0].kind == NNFX_ARG_NODE ? d->args[0].u.node : NULL;
        float sc;
        int32_t zp;
        if (!d || d->opcode != NNFX_CALL_FUNCTION || d->op != NNFX_OP_DEQUANTIZE_LINEAR || !q ||
            q->meta[0].dtype != NNFX_I8 || !int8_qparams(g, d, &sc, &zp))
            return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED,
                                  "codegen --int8-io: output %d (%s) is not a per-tensor DequantizeLinear of an int8 "
                                  "value (quantize the model with --activations int8)",
                                  a, d ? d->name : "?");
        if (io->nout >= 256) return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "codegen --int8-io: over 256 outputs");
        nnfx_status st = nnfx_node_set_arg(out, a, nnfx_arg_node(q), err);
        if (st) return st;
        io->out_scale[io->nout] = sc, io->out_zp[io->nout++] = zp;
    }
    nnfx_eliminate_dead_code(g);
    return NNFX_OK;
}

/* The node value o->outputs[i] names in g; NULL with the error set. */
static nnfx_node *output_value(const nnfx_graph *g, const nnfx_codegen_options *o, int i, nnfx_error *err) {
    const char *name = o->outputs ? o->outputs[i] : NULL;
    nnfx_node *n = name ? nnfx_graph_find(g, name) : NULL;
    if (!n || n->opcode == NNFX_OUTPUT) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG,
                       "codegen: --outputs %s: the model has no value named '%s' (nnfx inspect MODEL lists them)",
                       name ? name : "(null)", name ? name : "(null)");
        return NULL;
    }
    if (n->nout != 1) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG,
                       "codegen: --outputs %s: node %s has %d outputs: name one of its getitem nodes", name, name,
                       n->nout);
        return NULL;
    }
    return n;
}

/* In g (a copy), the output node returns the values o->outputs names, and
 * what they do not need is removed (nodes and model inputs). */
static nnfx_status cut_outputs(nnfx_graph *g, const nnfx_codegen_options *o, nnfx_error *err) {
    nnfx_node *out = nnfx_graph_output_node(g);
    nnfx_node **vals = calloc((size_t)o->noutputs, sizeof *vals);
    nnfx_arg *args = calloc((size_t)o->noutputs, sizeof *args);
    nnfx_status st = vals && args ? NNFX_OK : nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
    for (int i = 0; i < o->noutputs && !st; i++) {
        if (!(vals[i] = output_value(g, o, i, err)))
            st = err && err->status ? err->status : NNFX_ERR_INVALID_ARG;
        else
            args[i] = nnfx_arg_node(vals[i]);
    }
    if (!st && out) st = nnfx_node_set_args(out, o->noutputs, args, err);
    if (!st && !out && !nnfx_graph_output(g, o->noutputs, vals, err))
        st = err && err->status ? err->status : NNFX_ERR_NOMEM;
    free(vals);
    free(args);
    if (st) return st;
    nnfx_eliminate_dead_code(g);
    for (nnfx_node *n = g->head, *next; n; n = next) { /* inputs the part does not read */
        next = n->next;
        if (n->opcode == NNFX_PLACEHOLDER && n->nusers == 0 && (st = nnfx_erase_node(g, n, err))) return st;
    }
    return NNFX_OK;
}

nnfx_status nnfx_codegen_ex(nnfx_graph *g, const nnfx_codegen_options *opts, nnfx_codegen_files *out, nnfx_error *err) {
    if (!g || !out || !opts) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "codegen: NULL graph, options or output");
    memset(out, 0, sizeof *out);
    nnfx_codegen_options o = *opts;
    if (o.optimize != NNFX_CODEGEN_SPEED && o.optimize != NNFX_CODEGEN_SIZE)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "codegen: optimize mode %d is neither speed nor size",
                              (int)o.optimize);
    if (!o.name) o.name = "model";
    if (!valid_ident(o.name))
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "codegen: name '%s' is not a C identifier", o.name);
    if (o.nfixed < 0 || o.nfixed > 256)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "codegen: %d fixed inputs (0 to 256)", o.nfixed);
    nnfx_status st;
    if ((st = nnfx_graph_lint(g, err)) || (st = nnfx_graph_infer_shapes(g, err))) return st;
    if (o.noutputs < 0 || o.noutputs > 256)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "codegen: %d outputs asked for (0 to 256)", o.noutputs);
    for (int i = 0; i < o.noutputs; i++)
        if (!output_value(g, &o, i, err)) return err && err->status ? err->status : NNFX_ERR_INVALID_ARG;
    for (int i = 0; i < o.nfixed; i++)
        if (!fixed_placeholder(g, &o, i, err)) return err && err->status ? err->status : NNFX_ERR_INVALID_ARG;
    bool ctrl = false;
    for (const nnfx_node *n = g->head; n; n = n->next)
        ctrl |= n->opcode == NNFX_CALL_FUNCTION && ir_op_is_ctrl(n->op);
    /* a copy: fixed inputs read as parameters, and under control flow the
     * constants captured by bodies made the bodies' own */
    nnfx_graph *copy = NULL;
    cg_bounds bounds = {0};
    cg_int8io io = {0};
    if (ctrl || o.nfixed || o.noutputs || o.int8_io || cg_has_bounds(g) || cg_first_unsized(g)) {
        if (!(copy = nnfx_graph_copy(g, NULL, err))) return err && err->status ? err->status : NNFX_ERR_NOMEM;
        if ((o.noutputs && (st = cut_outputs(copy, &o, err))) || (st = fix_inputs(copy, &o, err)) ||
            (o.int8_io && (st = int8_io_rewrite(copy, &io, err))) ||
            (ctrl && (st = inline_const_captures(copy, err))) ||
            (ctrl && cg_has_bounds(copy) && (st = cg_inline_empty_ifs(copy, err))) ||
            (st = nnfx_graph_lint(copy, err)) || (st = nnfx_graph_infer_shapes(copy, err)) ||
            (ctrl && ((st = cg_loop_appends_to_scans(copy, err)) || (st = nnfx_graph_lint(copy, err)) ||
                      (st = nnfx_graph_infer_shapes(copy, err)) || (st = cg_unroll_loops(copy, err))))) {
            nnfx_graph_free(copy);
            return st;
        }
        /* values whose size depends on the data: their bounds, set last (inference would undo them) */
        if ((st = cg_set_bounds(copy, &bounds, err))) {
            nnfx_graph_free(copy);
            return st;
        }
        if (ctrl) scalar_loop_conditions(copy);
        g = copy;
    }
    st = codegen_graph(g, &o, bounds.nsrc || bounds.nroot ? &bounds : NULL, o.int8_io ? &io : NULL, out, err);
    cg_bounds_free(&bounds);
    nnfx_graph_free(copy);
    return st;
}

/* In g (a codegen copy, shapes inferred) and its bodies: a Loop body whose
 * condition result is an If read by nothing else, whose branches give one
 * element of one type in shapes of different ranks ([1] and [], as
 * torch.jit.script writes `while a and b`), has that If's output made a
 * scalar: a loop condition is one element whatever its rank, and both
 * branches write the same bytes. */
static void scalar_loop_conditions(nnfx_graph *g) {
    for (nnfx_node *n = g->head; n; n = n->next) {
        if (n->opcode != NNFX_CALL_FUNCTION || !ir_op_is_ctrl(n->op)) continue;
        ir_ctrl_shape cs;
        nnfx_error e = {0};
        if (ir_ctrl_layout(n, &cs, &e)) continue;
        for (int b = 0; b < cs.nbodies; b++)
            scalar_loop_conditions(cs.body[b]);
        if (n->op != NNFX_OP_LOOP) continue;
        const nnfx_node *o = nnfx_graph_output_node(cs.body[0]);
        nnfx_node *r = o && o->nargs > 0 && o->args[0].kind == NNFX_ARG_NODE ? o->args[0].u.node : NULL;
        if (!r || r->opcode != NNFX_CALL_FUNCTION || r->op != NNFX_OP_IF || r->nout != 1 || r->nusers != 1 ||
            nnfx_meta_is_static(&r->meta[0]))
            continue;
        ir_ctrl_shape is;
        if (ir_ctrl_layout(r, &is, &e) || is.nbodies != 2) continue;
        bool one = true;
        nnfx_dtype dt = NNFX_DTYPE_UNDEFINED;
        for (int b = 0; b < 2 && one; b++) {
            const nnfx_node *bo = nnfx_graph_output_node(is.body[b]);
            const nnfx_node *br = bo && bo->nargs == 1 && bo->args[0].kind == NNFX_ARG_NODE ? bo->args[0].u.node : NULL;
            one = br && nnfx_meta_is_static(&br->meta[0]) && nnfx_meta_numel(&br->meta[0]) == 1 &&
                  (b == 0 || br->meta[0].dtype == dt);
            if (br) dt = br->meta[0].dtype;
        }
        if (one) nnfx_meta_set_shape(&r->meta[0], dt, 0, NULL);
    }
}

/* nnfx_codegen_opt on a linted graph with inferred shapes: a pass with the
 * steps' working memory step_scratch_need finds, then, where the steps took
 * more (NonMaxSuppression's, Unique's) and control-flow regions lie after
 * it, a pass with that much. */
static nnfx_status codegen_graph(nnfx_graph *g, const nnfx_codegen_options *o, const cg_bounds *bounds,
                                 const cg_int8io *io, nnfx_codegen_files *out, nnfx_error *err) {
    int64_t needed = 0;
    nnfx_status st = codegen_pass(g, o, bounds, io, out, 0, &needed, err);
    if (st != NNFX_ERR_RUNTIME || !needed) return st;
    if (err) memset(err, 0, sizeof *err);
    return codegen_pass(g, o, bounds, io, out, needed, &needed, err);
}

/* One pass of codegen_graph: control-flow regions after `scratch` bytes of
 * the steps' working memory at least; *needed set (NNFX_ERR_RUNTIME) when
 * the steps took more. */
static nnfx_status codegen_pass(nnfx_graph *g, const nnfx_codegen_options *o, const cg_bounds *bounds,
                                const cg_int8io *io, nnfx_codegen_files *out, int64_t scratch, int64_t *needed,
                                nnfx_error *err) {
    nnfx_status st;
    const char *name = o->name;
    if ((st = check_static_inputs(g, err))) return st;
    const nnfx_node *outs = nnfx_graph_output_node(g);
    if (!outs || outs->nargs == 0) /* NAME_run would compute nothing (and the interpreter refuses it) */
        return nnfx_error_set(err, NNFX_ERR_GRAPH, "codegen: the model has no outputs");
    if ((st = check_forbidden(g, o->forbid, err))) return st;
    if ((st = check_static_nodes(g, true, err))) return st;
    fx_plan *p = bounds ? fx_plan_new_codegen_kept(g, bounds->kept, bounds->nkept, err) : fx_plan_new_codegen(g, err);
    if (!p) {
        if (err && err->status == NNFX_ERR_UNSUPPORTED) nnfx_error_prefix(err, "codegen");
        return err ? err->status : NNFX_ERR_UNSUPPORTED;
    }
    cg c = {0};
    c.g = g, c.p = p, c.name = name, c.err = err, c.size = o->optimize == NNFX_CODEGEN_SIZE;
    c.int_only = io != NULL, c.io = io;
    nnfx_dtype in_dtype[256];
    const nnfx_tensor *fixed_in[256] = {0};
    c.in_dtype = in_dtype, c.fixed_in = fixed_in, c.bnd = bounds;
    if (bounds) c.bounded = bounds->src, c.nbounded = bounds->nsrc, c.dims_api = true;
    for (const nnfx_node *n = g->head; n; n = n->next) {
        if (n->opcode == NNFX_PLACEHOLDER) {
            if (c.nin_model >= 256) {
                fx_plan_free(p);
                return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "codegen: more than 256 inputs");
            }
            for (int i = 0; i < o->nfixed; i++)
                if (strcmp(o->fixed_inputs[i], n->name) == 0) fixed_in[c.nin_model] = o->fixed_values[i];
            in_dtype[c.nin_model++] = n->meta[0].dtype;
            c.void_io |= n->meta[0].dtype != NNFX_F32;
        } else if (n->opcode == NNFX_OUTPUT) {
            for (int a = 0; a < n->nargs; a++)
                c.void_io |= n->args[a].kind == NNFX_ARG_NODE && n->args[a].u.node->meta[0].dtype != NNFX_F32;
        }
    }
    c.nnodes = g->num_nodes;
    c.nodes = calloc((size_t)c.nnodes + 1, sizeof *c.nodes);
    c.nvalues = fx_plan_nvalues(p) + 1;
    c.scratch_off = fx_plan_arena_bytes(p);
    const int64_t need = step_scratch_need(g, false);
    c.ctrl_base = c.scratch_off + (need > scratch ? need : scratch);
    c.weight_id = calloc((size_t)c.nvalues, sizeof *c.weight_id);
    c.packed_id = calloc((size_t)c.nvalues, sizeof *c.packed_id);
    c.xdef = bounds ? calloc((size_t)bounds->nxp + 1, 1) : NULL;
    if (!c.nodes || !c.weight_id || !c.packed_id || (bounds && !c.xdef)) {
        st = nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
        goto done;
    }
    int i = 0;
    for (const nnfx_node *n = g->head; n; n = n->next)
        c.nodes[i++] = n;
    if (c.int_only)
        sb_printf(&c.weights,
                  "/* %s_weights.c — generated by nnfx codegen --int8-io: the constant weights and "
                  "requantization parameters (integers only). */\n"
                  "#if defined(__GNUC__)\n#define NNFX_ALIGNED __attribute__((aligned(16)))\n#else\n"
                  "#define NNFX_ALIGNED\n#endif\n\n",
                  name);
    else
        sb_printf(&c.weights,
                  "/* %s_weights.c — generated by nnfx codegen: the constant weights, exact float32 values\n"
                  " * as hexadecimal floating literals. */\n#include <math.h>\n\n"
                  "#if defined(__GNUC__)\n#define NNFX_ALIGNED __attribute__((aligned(16)))\n#else\n"
                  "#define NNFX_ALIGNED\n#endif\n\n",
                  name);
    if ((st = walk_plan(&c))) goto done;
    if (c.ctrl_peak && c.scratch_off + c.scratch_bytes > c.ctrl_base) {
        *needed = c.scratch_bytes;
        st = nnfx_error_set(err, NNFX_ERR_RUNTIME, "codegen: the steps' working memory overlaps control-flow regions");
        goto done;
    }
    /* the plan's arena, the steps' working memory, the bodies' regions */
    int64_t arena = c.ctrl_peak ? c.ctrl_base + c.ctrl_peak : fx_plan_arena_bytes(p) + c.scratch_bytes;
    /* every declared weight is defined in the weights file */
    out->header = emit_header(&c, arena);
    out->source = emit_source(&c, arena);
    out->weights = sb_finish(&c.weights);
    out->report = emit_report(&c, arena);
    out->arena_bytes = arena;
    out->weight_bytes = c.weight_bytes;
    out->libm = c.libm;
    out->int8_steps = c.int8_steps;
    {
        int ps = fx_plan_peak_step(p, &out->peak_live_bytes);
        if (ps >= 0) {
            fx_step_view pv = fx_plan_step_view(p, ps);
            const nnfx_node *pn = pv.last, *po = pv.kind == FX_STEP_CONV || pv.kind == FX_STEP_QOP ? pv.first : pv.last;
            snprintf(out->peak_node, sizeof out->peak_node, "%d, %s", ps, pn ? pn->name : "?");
            snprintf(out->peak_op, sizeof out->peak_op, "%s",
                     po && po->opcode == NNFX_CALL_FUNCTION ? ir_op_info(po->op)->onnx_type : "output");
        }
    }
    if (!out->header || !out->source || !out->weights || !out->report || c.body.oom || c.decls.oom) {
        nnfx_codegen_files_free(out);
        st = nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
    }
done:
    free(sb_finish(&c.body));
    free(sb_finish(&c.decls));
    if (st) free(sb_finish(&c.weights));
    free(c.nodes);
    free(c.weight_id);
    free(c.packed_id);
    free(c.xdef);
    fx_plan_free(p);
    return st;
}

void nnfx_codegen_files_free(nnfx_codegen_files *f) {
    if (!f) return;
    free(f->header);
    free(f->source);
    free(f->weights);
    free(f->report);
    memset(f, 0, sizeof *f);
}
