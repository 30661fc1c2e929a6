/* emit_bounded.c — nodes whose output size depends on the data (NonZero,
 * Compress, Unique, NonMaxSuppression) and the values after them: bounds.c
 * gives such an output a bound (the most it can hold: a NonZero of every
 * value, a Compress keeping every slice), the plan sizes its buffer by that
 * bound, and the kernel (src/rt/nnfx_rt_bounded.h) writes the
 * values where the bound's layout has them and the actual extent into a
 * local array. The steps after it compute over the bound; the padding fills
 * here come before the ones that read along a data-dependent dim, and a
 * model output of such a value is compacted for the caller, its actual dims
 * reported through NAME_run_dims. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen_int.h"
#include "exec/plan_view.h"
#include "ir/infer_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

int cg_bounded_index(const cg *c, const nnfx_node *n) {
    for (int i = 0; i < c->nbounded; i++)
        if (c->bounded[i] == n) return i;
    return -1;
}

/* The local array (in NAME_run_dims_arena) holding the actual dims of
 * output k of bounded node b. */
static void dims_name(int b, int k, char *buf, size_t len) { snprintf(buf, len, "bounded%d_dims%d", b, k); }

/* The node whose output o is (o itself, or a getitem's source) and which
 * output of it (*k). */
static const nnfx_node *output_source(const nnfx_node *o, int *k) {
    *k = 0;
    if (o->opcode == NNFX_CALL_FUNCTION && o->op == NNFX_OP_GETITEM && o->args[0].kind == NNFX_ARG_NODE &&
        o->args[1].kind == NNFX_ARG_INT) {
        *k = (int)o->args[1].u.i;
        return o->args[0].u.node;
    }
    return o;
}

bool cg_output_bounded(const cg *c, const nnfx_node *o) {
    int k;
    if (cg_dyn_of(c->bnd, o)) return true;
    const nnfx_node *src = output_source(o, &k);
    /* Unique's inverse_indices has one entry per slice: its size never depends on the data */
    return cg_bounded_index(c, src) >= 0 && !(src->op == NNFX_OP_UNIQUE && k == 2);
}

void cg_emit_output_dims(cg *c, int a, const nnfx_node *o) {
    int k = 0;
    const int b = cg_dyn_of(c->bnd, o) ? -1 : cg_bounded_index(c, output_source(o, &k));
    const nnfx_meta *m = &o->meta[0];
    char dn[48];
    dims_name(b, k, dn, sizeof dn);
    sb_printf(&c->body, "    if (dims && dims[%d]) {", a);
    for (int d = 0; d < m->rank; d++)
        if (b >= 0) {
            sb_printf(&c->body, " dims[%d][%d] = %s[%d];", a, d, dn, d);
        } else { /* a value after a bounded node, or a static one */
            char e[64];
            cg_dim_expr(c, o, d, e, sizeof e);
            sb_printf(&c->body, " dims[%d][%d] = %s;", a, d, e);
        }
    sb_printf(&c->body, " }\n");
}

void cg_dim_expr(const cg *c, const nnfx_node *v, int d, char *buf, size_t len) {
    const int *ext = cg_dyn_of(c->bnd, v);
    if (ext && d < NNFX_MAX_RANK && ext[d] >= 0)
        cg_extent_expr(c->bnd, ext[d], buf, len);
    else
        snprintf(buf, len, "%lld", (long long)v->meta[0].dims[d].value);
}

/* Declares `const long NAME[rank]` in a block: value v's bound (bound) or
 * its actual dims, extents read at run time (!bound). */
static void emit_dims_array(cg *c, const char *name, const nnfx_node *v, bool bound) {
    const nnfx_meta *m = &v->meta[0];
    sb_printf(&c->body, "        %sconst long %s[%d] = {", bound ? "static " : "", name, m->rank > 0 ? m->rank : 1);
    const int *ext = bound ? NULL : cg_dyn_of(c->bnd, v);
    for (int d = 0; d < m->rank; d++) {
        char e[64];
        cg_dim_expr(c, v, d, e, sizeof e);
        if (ext && ext[d] >= 0)
            sb_printf(&c->body, d ? ", (long)%s" : "(long)%s", e);
        else
            sb_printf(&c->body, d ? ", %lld" : "%lld", (long long)m->dims[d].value);
    }
    sb_printf(&c->body, m->rank ? "};\n" : "0};\n");
}

/* The C literal of fill f for values of type dt into buf. */
static void fill_literal(cg_fill_kind f, nnfx_dtype dt, char *buf, size_t len) {
    const bool flt = dt == NNFX_F32 || dt == NNFX_F64;
    const char *lo = flt ? "-INFINITY" : dt == NNFX_I64 ? "(-9223372036854775807LL - 1)" : "(-2147483647 - 1)";
    const char *hi = flt ? "INFINITY" : dt == NNFX_I64 ? "9223372036854775807LL" : "2147483647";
    snprintf(buf, len, "%s", f == CG_FILL_ZERO ? "0" : f == CG_FILL_ONE ? "1" : f == CG_FILL_LOWEST ? lo : hi);
}

nnfx_status cg_emit_fills(cg *c, const nnfx_node *n) {
    for (int i = 0; c->bnd && i < c->bnd->nfill; i++) {
        const cg_fill *f = &c->bnd->fill[i];
        if (f->node != n) continue;
        const nnfx_node *v = n->args[f->arg].u.node;
        const nnfx_dtype dt = v->meta[0].dtype;
        const char *ct = cg_ctype(dt);
        char x[96], lit[48];
        nnfx_status st = cg_value_typed(c, cg_node_value(c, v), dt, n, x, sizeof x);
        if (st) return st;
        if (!ct) return cg_unsupported(c, n, "padding of a type generated C lacks");
        if (fx_plan_value_view(c->p, cg_node_value(c, v)).kind != FX_VALUE_ARENA)
            return cg_unsupported(c, n,
                                  "it reads along a data-dependent dim of a constant (its padding cannot be "
                                  "filled)");
        fill_literal(f->fill, dt, lit, sizeof lit);
        cg_use_section(c, "fill_pad");
        sb_printf(&c->body, "    {   /* %s's padding past the data-dependent extent of %s: %s */\n", n->name, v->name,
                  lit);
        sb_printf(&c->body, "        static const %s fv = %s;\n", ct, lit);
        emit_dims_array(c, "bound", v, true);
        emit_dims_array(c, "valid", v, false);
        sb_printf(&c->body, "        nnfx_rt_fill_pad((unsigned char *)%s, %d, %d, bound, valid, &fv);\n    }\n", x,
                  (int)nnfx_dtype_size(dt), v->meta[0].rank);
    }
    return NNFX_OK;
}

nnfx_status cg_emit_after(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const cg_fill *f = NULL;
    for (int i = 0; c->bnd && i < c->bnd->nfill; i++)
        if (c->bnd->fill[i].node == n && c->bnd->fill[i].mean_dims) f = &c->bnd->fill[i];
    if (!f) return NNFX_OK;
    /* the mean divided by the bound's count of the data-dependent dims it averages over */
    const nnfx_node *x = n->args[0].u.node;
    const int *dx = cg_dyn_of(c->bnd, x);
    const nnfx_meta *xm = &x->meta[0];
    sbuf bound = {0}, actual = {0};
    sb_printf(&bound, "1.0");
    sb_printf(&actual, "1.0");
    for (int d = 0; dx && d < xm->rank; d++) {
        if (!(f->mean_dims & (1u << d))) continue;
        char e[64];
        cg_extent_expr(c->bnd, dx[d], e, sizeof e);
        sb_printf(&bound, " * %lld", (long long)xm->dims[d].value);
        sb_printf(&actual, " * (double)%s", e);
    }
    char y[96];
    nnfx_status st = cg_value_expr(c, s->out, n, y, sizeof y);
    char *bs = sb_finish(&bound), *as = sb_finish(&actual);
    if (!st && bs && as) {
        cg_use_section(c, "rescale");
        sb_printf(&c->body, "    nnfx_rt_rescale(%s, %lld, %s, %s); /* the mean over the actual extent */\n", y,
                  (long long)cg_meta_numel(&n->meta[0]), bs, as);
    } else if (!st) {
        st = nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
    }
    free(bs);
    free(as);
    return st;
}

nnfx_status cg_emit_dyn_output(cg *c, int a, const nnfx_node *o) {
    const nnfx_dtype dt = o->meta[0].dtype;
    char x[96];
    nnfx_status st = cg_value_typed(c, cg_node_value(c, o), dt, o, x, sizeof x);
    if (st) return st;
    cg_use_section(c, "compact");
    sb_printf(&c->body, "    {   /* %s: its values compactly, zeros after them */\n", o->name);
    emit_dims_array(c, "bound", o, true);
    emit_dims_array(c, "valid", o, false);
    sb_printf(&c->body,
              "        nnfx_rt_compact((const unsigned char *)%s, (unsigned char *)outputs[%d], %d, %d, bound, "
              "valid);\n    }\n",
              x, a, (int)nnfx_dtype_size(dt), o->meta[0].rank);
    return NNFX_OK;
}

/* Declares the dims array of output k (meta m) of bounded node b: the
 * bound's dims, the data-dependent one set by the kernel. */
static void declare_dims(cg *c, int b, int k, const nnfx_meta *m) {
    char dn[48];
    dims_name(b, k, dn, sizeof dn);
    sb_printf(&c->body, "    long long %s[%d] = {", dn, m->rank > 0 ? m->rank : 1);
    for (int d = 0; d < m->rank; d++)
        sb_printf(&c->body, d ? ", %lld" : "%lld", (long long)m->dims[d].value);
    sb_printf(&c->body, m->rank ? "};\n" : "0};\n");
}

/* C expression for optional scalar input a of step s read at run time as
 * an integer (as_int) or a double into buf; "" when absent. */
static nnfx_status scalar_arg(cg *c, const fx_step_view *s, int a, bool as_int, char *buf, size_t len) {
    buf[0] = 0;
    if (a >= s->nin || s->in[a] < 0) return NNFX_OK;
    const nnfx_node *n = s->last;
    const nnfx_meta *m = cg_arg_meta(n, a);
    char e[96];
    if (!m || nnfx_meta_numel(m) < 1 || cg_tcode(m->dtype) < 0)
        return cg_unsupported(c, n, "a threshold or count that is not one value of a type generated C holds");
    nnfx_status st = cg_typed_in(c, s, a, m->dtype, e, sizeof e);
    if (!st) snprintf(buf, len, "nnfx_rt_ld_%s(%s, 0, %d)", as_int ? "i" : "f", e, cg_tcode(m->dtype));
    return st;
}

/* NonMaxSuppression (boxes and scores float32; the count and thresholds
 * read at run time). */
static nnfx_status emit_nms(cg *c, const fx_step_view *s, int b) {
    const nnfx_node *n = s->last;
    const nnfx_meta *bm = cg_arg_meta(n, 0), *sm = cg_arg_meta(n, 1), *ym = &n->meta[0];
    char bx[96], sc[96], y[96], mo[160], it[160], st_[160], work[64], dn[48];
    nnfx_status st;
    if (bm->dtype != NNFX_F32 || sm->dtype != NNFX_F32 || bm->dims[2].value != 4 ||
        bm->dims[0].value != sm->dims[0].value || bm->dims[1].value != sm->dims[2].value)
        return cg_unsupported(c, n, "boxes float32 [B, N, 4] and scores float32 [B, C, N] are needed");
    if ((st = cg_value_expr(c, s->in[0], n, bx, sizeof bx)) || (st = cg_value_expr(c, s->in[1], n, sc, sizeof sc)) ||
        (st = cg_typed_out(c, s->out, NNFX_I64, n, y, sizeof y)) || (st = scalar_arg(c, s, 2, true, mo, sizeof mo)) ||
        (st = scalar_arg(c, s, 3, false, it, sizeof it)) || (st = scalar_arg(c, s, 4, false, st_, sizeof st_)))
        return st;
    const int64_t B = sm->dims[0].value, C = sm->dims[1].value, N = sm->dims[2].value;
    int64_t used = 0;
    cg_step_scratch(c, N * 3 * 8 + N * 4 * 8 + 8, &used, work, sizeof work); /* + 8: aligned in the kernel */
    cg_use_section(c, "nms");
    declare_dims(c, b, 0, ym);
    dims_name(b, 0, dn, sizeof dn);
    char na[64]; /* the actual box count: less than N after a node whose size depends on the data */
    cg_dim_expr(c, n->args[0].u.node, 1, na, sizeof na);
    sb_printf(&c->body,
              "    nnfx_rt_nms(%s, %s, %lld, %lld, (long)%s, %lld, %s, %s, %d, %s, %d, %s, %lld, %s, &%s[0]);\n", bx,
              sc, (long long)B, (long long)C, na, (long long)N, mo[0] ? mo : "0", it[0] ? it : "0.0", st_[0] != 0,
              st_[0] ? st_ : "0.0", ir_attr_int(n, "center_point_box") != 0, y, (long long)ym->dims[0].value, work, dn);
    return NNFX_OK;
}

/* Unique: Y and the optional indices, inverse_indices and counts. */
static nnfx_status emit_unique(cg *c, const fx_step_view *s, int b, const char *x, int axis) {
    const nnfx_node *n = s->last;
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    char outs[4][96], work[64], dn[48];
    nnfx_status st;
    for (int k = 0; k < 4; k++) {
        snprintf(outs[k], sizeof outs[k], "0");
        if (k < s->nout && s->outs[k] >= 0 && fx_plan_value_view(c->p, s->outs[k]).kind == FX_VALUE_ARENA &&
            (st = cg_typed_out(c, s->outs[k], k ? NNFX_I64 : xm->dtype, n, outs[k], sizeof outs[k])))
            return st;
        if (k < n->nout) declare_dims(c, b, k, &n->meta[k]);
    }
    const int64_t A = axis < 0 ? nnfx_meta_numel(xm) : xm->dims[axis].value;
    const int64_t outer = axis < 0 ? 1 : infer_prod(xm, 0, axis);
    const int64_t inner = axis < 0 ? 1 : infer_prod(xm, axis + 1, xm->rank);
    int64_t used = 0;
    cg_step_scratch(c, 4 * A * 8 + 8, &used, work, sizeof work); /* + 8: aligned in the kernel */
    cg_use_section(c, "unique");
    dims_name(b, 0, dn, sizeof dn);
    sb_printf(&c->body, "    nnfx_rt_unique(%s, %d, %d, %lld, %lld, %lld, %d, %s, %s, %s, %s, (void *)%s, &%s[%d]);\n",
              x, cg_tcode(xm->dtype), (int)nnfx_dtype_size(xm->dtype), (long long)outer, (long long)A, (long long)inner,
              ir_attr_int(n, "sorted") != 0, outs[0], outs[1], outs[2], outs[3], work, dn, axis < 0 ? 0 : axis);
    for (int k = 1; k < n->nout; k += 2) { /* indices and counts: U values */
        char dk[48];
        dims_name(b, k, dk, sizeof dk);
        sb_printf(&c->body, "    %s[0] = %s[%d];\n", dk, dn, axis < 0 ? 0 : axis);
    }
    return NNFX_OK;
}

nnfx_status cg_emit_bounded(cg *c, const fx_step_view *s, int b) {
    const nnfx_node *n = s->last;
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    char x[96], y[96], dn[48];
    nnfx_status st;
    if (n->op == NNFX_OP_NMS) return emit_nms(c, s, b);
    if (cg_tcode(xm->dtype) < 0) return cg_unsupported(c, n, "an input of a type generated C lacks");
    if ((st = cg_typed_in(c, s, 0, xm->dtype, x, sizeof x))) return st;
    const nnfx_attr *a = nnfx_node_attr(n, "axis");
    int axis = -1;
    if (a && !infer_axis(a->u.i, xm->rank, false, &axis)) return cg_unsupported(c, n, "axis out of range");
    if (n->op == NNFX_OP_UNIQUE) return emit_unique(c, s, b, x, axis);
    if ((st = cg_typed_out(c, s->out, ym->dtype, n, y, sizeof y))) return st;
    declare_dims(c, b, 0, ym);
    dims_name(b, 0, dn, sizeof dn);
    if (n->op == NNFX_OP_NON_ZERO) { /* y [rank, numel(x)]: row d holds the coordinates along dim d */
        cg_use_section(c, "nonzero");
        sb_printf(&c->body, "    {\n");
        const nnfx_node *xv = n->args[0].u.node;
        emit_dims_array(c, "shape", xv, true);
        emit_dims_array(c, "valid", xv, false);
        sb_printf(&c->body, "        nnfx_rt_nonzero(%s, %d, %d, shape, valid, %s, &%s[1]);\n    }\n", x,
                  cg_tcode(xm->dtype), xm->rank, y, dn);
        return NNFX_OK;
    }
    /* Compress */
    const nnfx_meta *cm = cg_arg_meta(n, 1);
    char cb[96];
    if (!cm || cg_tcode(cm->dtype) < 0) return cg_unsupported(c, n, "a condition of a type generated C lacks");
    if ((st = cg_typed_in(c, s, 1, cm->dtype, cb, sizeof cb))) return st;
    const int64_t A = axis < 0 ? nnfx_meta_numel(xm) : xm->dims[axis].value;
    const int64_t outer = axis < 0 ? 1 : infer_prod(xm, 0, axis);
    const int64_t inner = axis < 0 ? 1 : infer_prod(xm, axis + 1, xm->rank);
    cg_use_section(c, "compress");
    sb_printf(&c->body, "    nnfx_rt_compress(%s, %s, %d, %lld, %s, %lld, %lld, %lld, &%s[%d]);\n", x, cb,
              cg_tcode(cm->dtype), (long long)nnfx_meta_numel(cm), y, (long long)outer, (long long)A,
              (long long)(inner * (int64_t)nnfx_dtype_size(xm->dtype)), dn, axis < 0 ? 0 : axis);
    return NNFX_OK;
}

/* ---- sizes a loop body reads from data (bounds.c's CG_X_DATA extents) ------ */

void cg_emit_result_check(cg *c, const nnfx_node *o) {
    const int *ext = cg_dyn_of(c->bnd, o);
    for (int d = 0; ext && d < o->meta[0].rank; d++) {
        if (ext[d] < 0) continue;
        char e[64];
        cg_define_extent(c, ext[d]);
        cg_extent_expr(c->bnd, ext[d], e, sizeof e);
        c->may_fail = true;
        sb_printf(&c->body, "    if (%s != %lld) return 2; /* %s: the body's result must be %lld along dim %d */\n", e,
                  (long long)o->meta[0].dims[d].value, o->name, (long long)o->meta[0].dims[d].value, d);
    }
}

/* The runtime's codes (nnfx_rt_resize_taps) of Resize node n's mode,
 * coordinate mode and nearest mode; false for one it has not. */
static bool resize_codes(const nnfx_node *n, int *mode, int *ct, int *nm) {
    static const char *const modes[] = {"nearest", "linear", "cubic"};
    static const char *const cts[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                      "tf_half_pixel_for_nn"};
    static const char *const nms[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    const char *m = ir_attr_string(n, "mode");
    const char *t = ir_attr_string(n, "coordinate_transformation_mode");
    const char *r = ir_attr_string(n, "nearest_mode");
    *mode = *ct = *nm = -1;
    for (int i = 0; i < 3; i++)
        if (m && !strcmp(m, modes[i])) *mode = i;
    for (int i = 0; i < 5; i++)
        if (t && !strcmp(t, cts[i])) *ct = i;
    for (int i = 0; i < 4; i++)
        if (r && !strcmp(r, nms[i])) *nm = i;
    return *mode >= 0 && *ct >= 0 && *nm >= 0;
}

int64_t cg_resize_runtime_scratch(const nnfx_meta *xm, const nnfx_meta *ym) {
    const int r = xm->rank;
    if (r < 2 || ym->rank != r) return 0;
    const int64_t outer = infer_prod(ym, 0, r - 2), yh = ym->dims[r - 2].value, yw = ym->dims[r - 1].value,
                  iw = xm->dims[r - 1].value, m = yh > yw ? yh : yw;
    const int64_t part[5] = {4 * m * (int64_t)sizeof(long), 4 * m * 4, m, outer * yh * iw * 4, outer * yh * yw * 4};
    int64_t total = 0;
    for (int i = 0; i < 5; i++)
        total += (part[i] + 63) / 64 * 64;
    return total;
}

/* Resize of the last two dims to sizes read at run time (its output at
 * its bound): nnfx_rt_resize_sized. */
static nnfx_status emit_resize_sized(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    int mode, ct, nm;
    if (!xm || xm->rank < 2 || ym->rank != xm->rank || xm->dtype != NNFX_F32 || !resize_codes(n, &mode, &ct, &nm))
        return cg_unsupported(c, n, "a resize to sizes read at run time of this kind is not generated");
    const int r = xm->rank;
    for (int d = 0; d < r; d++)
        if (xm->dims[d].value <= 0) return cg_unsupported(c, n, "resize of an empty dim");
    char x[96], y[96], oh[64], ow[64], buf[5][64];
    nnfx_status st;
    if ((st = cg_value_expr(c, s->in[0], n, x, sizeof x)) || (st = cg_value_expr(c, s->out, n, y, sizeof y))) return st;
    cg_dim_expr(c, n, r - 2, oh, sizeof oh);
    cg_dim_expr(c, n, r - 1, ow, sizeof ow);
    const int64_t outer = infer_prod(ym, 0, r - 2), yh = ym->dims[r - 2].value, yw = ym->dims[r - 1].value,
                  iw = xm->dims[r - 1].value, m = yh > yw ? yh : yw;
    const int64_t part[5] = {4 * m * (int64_t)sizeof(long), 4 * m * 4, m, outer * yh * iw * 4, outer * yh * yw * 4};
    int64_t used = 0;
    for (int i = 0; i < 5; i++)
        cg_step_scratch(c, part[i], &used, buf[i], sizeof buf[i]);
    cg_use_section(c, "resize_sized");
    sb_printf(&c->body,
              "    nnfx_rt_resize_sized(%s, %s, %lld, %lld, %lld, (long)%s, (long)%s, %lld, %lld, %d, %d, %d, %.17g, "
              "%d, (long *)%s, %s, (signed char *)%s, %s, %s);\n",
              x, y, (long long)outer, (long long)xm->dims[r - 2].value, (long long)iw, oh, ow, (long long)yh,
              (long long)yw, mode, ct, nm, (double)ir_attr_float(n, "cubic_coeff_a"),
              (int)ir_attr_int(n, "exclude_outside"), buf[0], buf[1], buf[2], buf[3], buf[4]);
    return NNFX_OK;
}

/* Step s (node n, input x of rank <= 8) as nnfx_rt_copy_window: cnt[d] the
 * actual dim d of value cv (n or x), from element `at` of x (its strides at
 * its bound: xst) into n's output at element strides yst (C expressions,
 * one per dim of x; they may read cnt). */
static nnfx_status emit_window(cg *c, const fx_step_view *s, const nnfx_node *n, const nnfx_node *cv, const char *at,
                               const char *yst, const char *what) {
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    const nnfx_dtype dt = n->meta[0].dtype;
    char x[96], y[96];
    nnfx_status st;
    if ((st = cg_typed_in(c, s, 0, dt, x, sizeof x)) || (st = cg_typed_out(c, s->out, dt, n, y, sizeof y))) return st;
    int64_t xd[NNFX_MAX_RANK], xst[NNFX_MAX_RANK];
    for (int d = 0; d < xm->rank; d++)
        xd[d] = xm->dims[d].value;
    kern_strides(xm->rank, xd, xst);
    cg_use_section(c, "copy_window");
    sb_printf(&c->body, "    {   /* %s */\n        const long cnt[%d] = {", what, xm->rank);
    for (int d = 0; d < xm->rank; d++) {
        char e[64];
        cg_dim_expr(c, cv, d, e, sizeof e);
        sb_printf(&c->body, d ? ", (long)%s" : "(long)%s", e);
    }
    sb_printf(&c->body, "};\n");
    cg_emit_longs(&c->body, "xst", xm->rank, xst);
    sb_printf(&c->body, "        const long yst[%d] = {%s};\n", xm->rank, yst);
    sb_printf(&c->body,
              "        nnfx_rt_copy_window((const unsigned char *)%s + (%s) * %d, (unsigned char *)%s, %d, %d, cnt, "
              "xst, yst);\n    }\n",
              x, at, (int)nnfx_dtype_size(dt), y, (int)nnfx_dtype_size(dt), xm->rank);
    return NNFX_OK;
}

/* Whether window copies (emit_window) take values of x's meta into n's:
 * rank 1 to 8, a type generated C holds. */
static bool window_ok(const nnfx_meta *xm, const nnfx_node *n) {
    return xm && xm->rank >= 1 && xm->rank <= 8 && cg_ctype(n->meta[0].dtype);
}

/* A Slice from starts read at run time (bounds.c's starts): the window of
 * its output's actual dims from those starts, at both values' bounds. */
static nnfx_status emit_slice_window(cg *c, const fx_step_view *s, const nnfx_node *n, const int *start) {
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    if (!window_ok(xm, n) || xm->rank != ym->rank)
        return cg_unsupported(c, n, "a slice from starts read at run time of this kind is not generated");
    int64_t xd[NNFX_MAX_RANK], yd[NNFX_MAX_RANK], xst[NNFX_MAX_RANK], yst[NNFX_MAX_RANK];
    for (int d = 0; d < xm->rank; d++)
        xd[d] = xm->dims[d].value, yd[d] = ym->dims[d].value;
    kern_strides(xm->rank, xd, xst);
    kern_strides(ym->rank, yd, yst);
    sbuf at = {0}, ys = {0};
    sb_printf(&at, "0");
    for (int d = 0; d < xm->rank; d++) {
        sb_printf(&ys, d ? ", %lld" : "%lld", (long long)yst[d]);
        if (start[d] < 0) continue;
        char e[64];
        cg_define_extent(c, start[d]);
        cg_extent_expr(c->bnd, start[d], e, sizeof e);
        sb_printf(&at, " + (long)%s * %lld", e, (long long)xst[d]);
    }
    char *ats = sb_finish(&at), *yss = sb_finish(&ys);
    nnfx_status st = ats && yss ? emit_window(c, s, n, n, ats, yss, "a window from starts read at run time")
                                : nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
    free(ats), free(yss);
    return st;
}

/* ConstantOfShape of a shape computed at run time: its value over the
 * output's bound. */
static nnfx_status emit_fill_value(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const nnfx_meta *ym = &n->meta[0];
    const nnfx_attr *a = nnfx_node_attr(n, "value");
    const nnfx_tensor *t = a && a->kind == NNFX_ATTR_TENSOR ? a->u.t : NULL;
    const nnfx_dtype dt = ym->dtype;
    const char *ct = cg_ctype(dt);
    char y[96];
    nnfx_status st;
    if (!ct || (t && (t->dtype != dt || nnfx_tensor_numel(t) != 1)))
        return cg_unsupported(c, n, "its value is not one element of a type generated C holds");
    if ((st = cg_typed_out(c, s->out, dt, n, y, sizeof y))) return st;
    const int64_t numel = cg_meta_numel(ym), es = (int64_t)nnfx_dtype_size(dt);
    bool zero = true;
    for (int64_t i = 0; t && i < es; i++)
        zero &= ((const unsigned char *)t->data)[i] == 0;
    if (zero) {
        if (numel) sb_printf(&c->body, "    memset(%s, 0, %lld);\n", y, (long long)(numel * es));
        return NNFX_OK;
    }
    sb_printf(&c->body, "    {\n        static const %s v = ", ct);
    cg_typed_lit(&c->body, dt, t->data, 0);
    sb_printf(
        &c->body,
        ";\n        long i;\n        for (i = 0; i < %lld; i++)\n            memcpy(%s + i * %lld, &v, %lld);\n    }\n",
        (long long)numel, y, (long long)es, (long long)es);
    return NNFX_OK;
}

/* Whether n is in the nodes the plan keeps as steps of their own. */
static bool kept_node(const cg_bounds *b, const nnfx_node *n) {
    for (int i = 0; i < b->nkept; i++)
        if (b->kept[i] == n) return true;
    return false;
}

/* A loop body's Shape or Size of a value sized by data: the actual dims,
 * written at run time (int64). */
static nnfx_status emit_shape_of(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const nnfx_node *x = n->args[0].u.node;
    const nnfx_meta *xm = &x->meta[0];
    const bool size = n->op == NNFX_OP_SIZE;
    int64_t lo = 0, hi = xm->rank;
    if (!size) ir_shape_op_range(n, xm->rank, &lo, &hi);
    char y[96];
    nnfx_status st = cg_typed_out(c, s->out, NNFX_I64, n, y, sizeof y);
    if (st) return st;
    if (hi <= lo) return size ? cg_unsupported(c, n, "the size of a scalar") : NNFX_OK;
    sb_printf(&c->body, "    {   /* the actual dims */\n        const int64_t v[%lld] = {",
              (long long)(size ? 1 : hi - lo));
    for (int64_t d = lo; d < hi; d++) {
        char e[64];
        cg_dim_expr(c, x, (int)d, e, sizeof e);
        sb_printf(&c->body, "%s(int64_t)%s", d == lo ? "" : size ? " * " : ", ", e);
    }
    sb_printf(&c->body, "};\n        memcpy(%s, v, sizeof v);\n    }\n", y);
    return NNFX_OK;
}

/* A loop body's Reshape merging its input's last dims, sized by data, into
 * one (bounds.c's rule_merge_tail): the valid values moved to the front of
 * each row of the output's bound. */
static nnfx_status emit_merge_tail(cg *c, const fx_step_view *s, const nnfx_node *n) {
    const nnfx_node *x = n->args[0].u.node;
    const nnfx_meta *xm = &x->meta[0], *ym = &n->meta[0];
    if (!window_ok(xm, n) || ym->rank < 1 || ym->rank > xm->rank)
        return cg_unsupported(c, n, "a compacting reshape of this kind is not generated");
    int64_t yd[NNFX_MAX_RANK], yst[NNFX_MAX_RANK];
    for (int d = 0; d < ym->rank; d++)
        yd[d] = ym->dims[d].value;
    kern_strides(ym->rank, yd, yst);
    sbuf ys = {0};
    for (int d = 0; d < xm->rank; d++) { /* the merged dims: strides of the actual dims after them */
        if (d < ym->rank - 1) {
            sb_printf(&ys, d ? ", %lld" : "%lld", (long long)yst[d]);
            continue;
        }
        sb_printf(&ys, d ? ", 1L" : "1L");
        for (int k = d + 1; k < xm->rank; k++)
            sb_printf(&ys, " * cnt[%d]", k);
    }
    char *yss = sb_finish(&ys);
    nnfx_status st = yss ? emit_window(c, s, n, x, "0", yss, "the valid values compacted")
                         : nnfx_error_set(c->err, NNFX_ERR_NOMEM, "codegen: out of memory");
    free(yss);
    return st;
}

nnfx_status cg_emit_data_sized(cg *c, const fx_step_view *s, const nnfx_node *n, bool *taken) {
    *taken = false;
    const nnfx_node *x0 = n->nargs > 0 && n->args[0].kind == NNFX_ARG_NODE ? n->args[0].u.node : NULL;
    if ((n->op == NNFX_OP_SHAPE || n->op == NNFX_OP_SIZE) && x0 && cg_dyn_of(c->bnd, x0) && kept_node(c->bnd, n)) {
        *taken = true;
        return emit_shape_of(c, s, n);
    }
    if ((ir_op_info(n->op)->flags & NNFX_F_VIEW) && x0 && cg_dyn_of(c->bnd, x0) && kept_node(c->bnd, n)) {
        *taken = true;
        return emit_merge_tail(c, s, n);
    }
    for (int i = 0; i < c->bnd->nstarts; i++)
        if (c->bnd->starts[i].node == n) {
            *taken = true;
            return emit_slice_window(c, s, n, c->bnd->starts[i].ext);
        }
    if (n->op == NNFX_OP_RESIZE && cg_dyn_of(c->bnd, n)) {
        *taken = true;
        return emit_resize_sized(c, s, n);
    }
    if (n->op == NNFX_OP_CONSTANT_OF_SHAPE && s->nin > 0 && fx_plan_value_view(c->p, s->in[0]).kind != FX_VALUE_CONST) {
        *taken = true;
        return emit_fill_value(c, s, n);
    }
    return NNFX_OK;
}
