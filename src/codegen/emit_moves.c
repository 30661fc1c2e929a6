/* emit_moves.c — moves of data, any type generated C holds (moved whole
 * from codegen.c, its "moves of data" section): Concat, Transpose,
 * Expand, Slice, Split, Gather, Pad, Einsum, Resize, casts, ArgMax, TopK,
 * Softmax, BatchNormalization and the recurrent ops. */
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

/* ---- moves of data (any type generated C holds) ---------------------------
 * Transpose, Expand, Slice and Split are strided copies (emit_strided_copy),
 * Concat places its pieces' rows (emit_concat_rows). */

/* Concat of values of any type: each piece's rows after the previous
 * pieces' valid rows (nnfx_rt_concat_rows; all of them unless the axis is
 * a data-dependent dim). */
nnfx_status emit_concat_rows(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const nnfx_meta *ym = &n->meta[0];
    const nnfx_dtype dt = ym->dtype;
    int axis;
    if (!infer_axis(ir_attr_int(n, "axis"), ym->rank, false, &axis))
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
    cg_emit_longs(&c->body, "shape", rank, shape);
    cg_emit_longs(&c->body, "st", rank, st);
    if (flt)
        sb_printf(&c->body, "        nnfx_rt_transpose(%s%s, %s, %d, shape, st);\n    }\n", x, at, y, rank);
    else
        sb_printf(&c->body, "        nnfx_rt_transpose_bytes(%s%s, %s, %lld, %d, shape, st);\n    }\n", x, at, y,
                  (long long)es, rank);
    return NNFX_OK;
}

/* Transpose (rank 1..8) of any type. */
nnfx_status emit_transpose(cg *c, const fx_step_view *s, const nnfx_node *n) {
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
nnfx_status emit_expand(cg *c, const fx_step_view *s, const nnfx_node *n) {
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
nnfx_status emit_slice(cg *c, const fx_step_view *s, const nnfx_node *n) {
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
nnfx_status emit_split(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    int axis;
    if (!xm || xm->rank < 1 || !infer_axis(ir_attr_int(n, "axis"), xm->rank, false, &axis))
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

nnfx_status cg_emit_gather(cg *c, const fx_step_view *s, const nnfx_node *n, const char *x, const char *y) {
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    int axis;
    if (!xm || !infer_axis(ir_attr_int(n, "axis"), xm->rank, false, &axis))
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
    int64_t shp[NNFX_MAX_RANK], xdims[NNFX_MAX_RANK] = {0}, xst[NNFX_MAX_RANK], total = 0;
    for (int d = 0; d < ym->rank; d++)
        shp[d] = ym->dims[d].value, xdims[d] = xm->dims[d].value, total += shp[d];
    kern_strides(xm->rank, xdims, xst);
    cg_use_section(c, "index_map");
    sb_printf(&c->body, "    {\n");
    cg_emit_longs(&c->body, "shape", ym->rank, shp);
    cg_emit_longs(&c->body, "xs", ym->rank, xst);
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
nnfx_status emit_pad(cg *c, const fx_step_view *s, const nnfx_node *n, const char *x, const char *y) {
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
    const char *ms = ir_attr_string(n, "mode");
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
    cg_emit_longs(&c->body, "shape", xm->rank, shp);
    cg_emit_longs(&c->body, "st", xm->rank, yst);
    sb_printf(&c->body, "        nnfx_rt_pad(%s, %s, %lld, ", x, y, (long long)cg_meta_numel(ym));
    cg_float_lit(&c->body, v);
    sb_printf(&c->body, ", %lld, %d, shape, st);\n    }\n", (long long)base, xm->rank);
    return NNFX_OK;
}

/* The largest intermediate of a Resize from x to y done one dim at a time
 * in dim order (the interpreter's ping-pong buffers), in floats. */
int64_t resize_big(const nnfx_meta *xm, const nnfx_meta *ym) {
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
bool resize_by_taps(const nnfx_node *n) {
    const char *mode = ir_attr_string(n, "mode");
    const char *ct = ir_attr_string(n, "coordinate_transformation_mode");
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
nnfx_status emit_resize(cg *c, const fx_step_view *s, const nnfx_node *n, const char *x, const char *y) {
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
void step_scratch(cg *c, int64_t bytes, int64_t *used, char *buf, size_t len) {
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

/* RNN, GRU or LSTM node n: one call of nnfx_rt_rnn (rt/nnfx_rt_rnn.h)
 * with every attribute the interpreter's kernel reads; sequence_lens must
 * be a constant. W, R and B computed at run time are laid out as the
 * generator lays out constant ones (nnfx_rt_rnn_pack) in the steps' working
 * memory past the plan's arena, where a GRU without linear_before_reset
 * also keeps its H floats of r * h. */
nnfx_status emit_rnn(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const int kind = n->op == NNFX_OP_LSTM ? 2 : n->op == NNFX_OP_GRU ? 1 : 0, per = kind + 1;
    const int64_t G = kind == 2 ? 4 : kind == 1 ? 3 : 1;
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    const char *dir = ir_attr_string(n, "direction");
    const int dirs = strcmp(dir, "bidirectional") == 0 ? 2 : 1, rev = strcmp(dir, "reverse") == 0;
    const int bf = ir_attr_int(n, "layout") != 0;
    const int lbr = kind == 1 && ir_attr_int(n, "linear_before_reset") != 0;
    const int coupled = kind == 2 && ir_attr_int(n, "input_forget") != 0;
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
nnfx_status emit_topk(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    int axis;
    if (!xm || cg_tcode(xm->dtype) < 0 || xm->dtype == NNFX_BOOL || ym->dtype != xm->dtype ||
        !infer_axis(ir_attr_int(n, "axis"), xm->rank, false, &axis))
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
              ir_attr_int(n, "largest") != 0);
    return NNFX_OK;
}

/* Cast to float32 of a float32 value (a copy) or of an int64 one in the
 * arena (TopK's indices: nnfx_rt_cast_i64). */
nnfx_status emit_cast_to_float(cg *c, const fx_step_view *s, const nnfx_node *n) {
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
nnfx_status emit_cast_from_float(cg *c, const fx_step_view *s, const nnfx_node *n) {
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
nnfx_status emit_argmax(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    int axis;
    if (!xm || cg_tcode(xm->dtype) < 0 || xm->dtype == NNFX_BOOL || n->meta[0].dtype != NNFX_I64 ||
        !infer_axis(ir_attr_int(n, "axis"), xm->rank, false, &axis))
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
              ir_attr_int(n, "select_last_index") != 0);
    return NNFX_OK;
}

/* Einsum by the generic loop: float32 values through nnfx_rt_einsum, any
 * other type generated C holds through nnfx_rt_teinsum (in double), as
 * the interpreter's kern_einsum. */
nnfx_status emit_einsum(cg *c, const fx_step_view *s, const nnfx_node *n) {
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
nnfx_status emit_batch_norm(cg *c, const nnfx_node *n, char (*in)[64], const char *y) {
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    if (!xm || xm->rank < 2) return cg_unsupported(c, n, "batch_normalization expects rank >= 2");
    cg_use_section(c, "batch_norm");
    sb_printf(&c->body, "    nnfx_rt_batch_norm(%s, %s, %s, %s, %s, ", in[0], in[1], in[2], in[3], in[4]);
    cg_float_lit(&c->body, (float)ir_attr_float(n, "epsilon"));
    sb_printf(&c->body, ", %s, %lld, %lld, %lld);\n", y, (long long)xm->dims[0].value, (long long)xm->dims[1].value,
              (long long)infer_prod(xm, 2, xm->rank));
    return NNFX_OK;
}

/* Softmax / LogSoftmax along the node's axis. */
nnfx_status emit_softmax(cg *c, const nnfx_node *n, const char *x, const char *y) {
    const nnfx_meta *xm = &n->meta[0];
    int axis;
    if (!infer_axis(ir_attr_int(n, "axis"), xm->rank ? xm->rank : 1, false, &axis))
        return cg_unsupported(c, n, "softmax axis out of range");
    int64_t outer, len, inner;
    split3(xm, axis, xm->rank ? axis + 1 : 0, &outer, &len, &inner);
    cg_use_section(c, "softmax");
    sb_printf(&c->body, "    nnfx_rt_softmax(%s, %s, %lld, %lld, %lld, %d);\n", x, y, (long long)outer, (long long)len,
              (long long)inner, n->op == NNFX_OP_LOG_SOFTMAX);
    return NNFX_OK;
}

/* How many of a step's inputs are data the generated code reads at run
 * time (the rest, constant parameters of the op, are read at generation):
 * the CG_EMIT_DATA_* bits of the op's emitter (emit_table.c). */
int cg_data_inputs(nnfx_op op, int nin) {
    const unsigned props = cg_op_emit_props(op);
    if (props & CG_EMIT_DATA_NONE) return 0;
    if (props & CG_EMIT_DATA_FIRST) return nin < 1 ? nin : 1;
    return nin;
}

/* ---- the emit column's emitters of this file (ops.def, cg_emit_fn) ----- */

/* Concat of any type: emit_concat_rows. */
nnfx_status gen_concat(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return emit_concat_rows(c, s, n);
}

/* Transpose of any type: emit_transpose. */
nnfx_status gen_transpose(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return emit_transpose(c, s, n);
}

/* Expand of any type: emit_expand. */
nnfx_status gen_expand(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return emit_expand(c, s, n);
}

/* Slice of any type: emit_slice. */
nnfx_status gen_slice(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return emit_slice(c, s, n);
}

/* Split of any type: emit_split. */
nnfx_status gen_split(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return emit_split(c, s, n);
}

/* Gather of float32 values with constant indices: cg_emit_gather. */
nnfx_status gen_gather(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return cg_emit_gather(c, s, n, in[0], y);
}

/* Pad: emit_pad; in and y NULL for a Pad of another type than float32
 * (the bytes moved). */
nnfx_status gen_pad(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return emit_pad(c, s, n, in ? in[0] : NULL, y);
}

/* Resize: emit_resize. */
nnfx_status gen_resize(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return emit_resize(c, s, n, in[0], y);
}

/* RNN, GRU, LSTM: emit_rnn. */
nnfx_status gen_rnn(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return emit_rnn(c, s, n);
}

/* TopK of any numeric type: emit_topk. */
nnfx_status gen_topk(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return emit_topk(c, s, n);
}

/* Cast: of float32 to int64 or bool, emit_cast_from_float; to float32,
 * emit_cast_to_float. */
nnfx_status gen_cast(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    if (xm && xm->dtype == NNFX_F32 && (n->meta[0].dtype == NNFX_I64 || n->meta[0].dtype == NNFX_BOOL))
        return emit_cast_from_float(c, s, n);
    return emit_cast_to_float(c, s, n);
}

/* ArgMax / ArgMin of any numeric type: emit_argmax. */
nnfx_status gen_argmax(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return emit_argmax(c, s, n);
}

/* Einsum of any type: emit_einsum. */
nnfx_status gen_einsum(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return emit_einsum(c, s, n);
}

/* BatchNormalization: emit_batch_norm. */
nnfx_status gen_batch_norm(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return emit_batch_norm(c, n, in, y);
}

/* Softmax / LogSoftmax: emit_softmax. */
nnfx_status gen_softmax(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return emit_softmax(c, n, in[0], y);
}
