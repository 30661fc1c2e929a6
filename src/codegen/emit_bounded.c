/* emit_bounded.c — nodes whose output size depends on the data (NonZero,
 * Compress, Unique, NonMaxSuppression) where their outputs are model
 * outputs only: the generator gives
 * such an output a bound (the most it can hold: a NonZero of every value, a
 * Compress keeping every slice), the plan sizes its buffer by that bound,
 * and the kernel (src/codegen/runtime/nnfx_rt_bounded.h) writes the values
 * compactly at its start and the actual extent into a local array the
 * output step copies to the caller (NAME_run_dims). */
#include <stdio.h>
#include <string.h>

#include "codegen/codegen_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

/* Whether every user of n (or, for a multi-output node, of its getitem
 * users) is the graph's output node. */
static bool only_model_outputs(const nnfx_node *n) {
    if (n->nusers == 0) return false;
    for (int u = 0; u < n->nusers; u++) {
        const nnfx_node *r = n->users[u];
        if (n->nout > 1 && r->opcode == NNFX_CALL_FUNCTION && r->op == NNFX_OP_GETITEM) {
            if (!only_model_outputs(r)) return false;
        } else if (r->opcode != NNFX_OUTPUT) {
            return false;
        }
    }
    return true;
}

/* The elements of n's argument a (a static value), -1 when absent or not
 * static. */
static int64_t arg_numel(const nnfx_node *n, int a) {
    const nnfx_meta *m = cg_arg_meta(n, a);
    return m && nnfx_meta_is_static(m) ? nnfx_meta_numel(m) : -1;
}

/* NonMaxSuppression's max_output_boxes_per_class when it is a parameter of
 * g (at most n; 0 gives 0), else n. */
static int64_t nms_per_class(const nnfx_graph *g, const nnfx_node *nms, int64_t n) {
    const nnfx_node *a = nms->nargs > 2 && nms->args[2].kind == NNFX_ARG_NODE ? nms->args[2].u.node : NULL;
    const nnfx_tensor *t = a && a->opcode == NNFX_GET_ATTR ? nnfx_graph_param(g, a->target) : NULL;
    if (!t || nnfx_tensor_numel(t) < 1) return a ? n : 0; /* absent: no box is selected */
    const int64_t mo = ir_tensor_int_at0(t);
    return mo < 0 ? 0 : mo < n ? mo : n;
}

/* The bounds of n's outputs (a data-dependent NonZero, Compress, Unique or
 * NonMaxSuppression of g whose inputs are static) into m[0..n->nout);
 * false when n is not such a node. */
static bool bound_of(const nnfx_graph *g, const nnfx_node *n, nnfx_meta *m) {
    if (n->opcode != NNFX_CALL_FUNCTION || n->nout > 4) return false;
    bool dynamic = false;
    for (int k = 0; k < n->nout; k++)
        dynamic |= !nnfx_meta_is_static(&n->meta[k]);
    if (!dynamic) return false;
    const nnfx_meta *x = cg_arg_meta(n, 0);
    if (!x || !nnfx_meta_is_static(x) || x->rank > 8) return false;
    for (int a = 1; a < n->nargs; a++)
        if (n->args[a].kind == NNFX_ARG_NODE && arg_numel(n, a) < 0) return false;
    int64_t dims[NNFX_MAX_RANK];
    const nnfx_attr *at = nnfx_node_attr(n, "axis");
    int axis = -1;
    if (at && !infer_axis(at->u.i, x->rank, false, &axis)) return false;
    switch (n->op) {
    case NNFX_OP_NON_ZERO:
        dims[0] = x->rank, dims[1] = nnfx_meta_numel(x);
        nnfx_meta_set_shape(&m[0], NNFX_I64, 2, dims);
        return true;
    case NNFX_OP_COMPRESS: {
        const int64_t clen = arg_numel(n, 1);
        if (clen < 0 || clen > (axis < 0 ? nnfx_meta_numel(x) : x->dims[axis].value)) return false;
        for (int d = 0; d < x->rank; d++)
            dims[d] = d == axis ? clen : x->dims[d].value;
        if (axis < 0) dims[0] = clen;
        nnfx_meta_set_shape(&m[0], x->dtype, axis < 0 ? 1 : x->rank, dims);
        return true;
    }
    case NNFX_OP_UNIQUE: { /* at most every slice distinct */
        const int64_t S = axis < 0 ? nnfx_meta_numel(x) : x->dims[axis].value;
        for (int d = 0; d < x->rank; d++)
            dims[d] = x->dims[d].value;
        if (axis < 0) dims[0] = S;
        nnfx_meta_set_shape(&m[0], x->dtype, axis < 0 ? 1 : x->rank, dims);
        for (int k = 1; k < n->nout && k < 4; k++)
            nnfx_meta_set_shape(&m[k], NNFX_I64, 1, &S);
        return true;
    }
    case NNFX_OP_NMS: { /* every box of every class of every batch, or max_output_boxes_per_class of them */
        const nnfx_meta *sm = cg_arg_meta(n, 1);
        if (x->rank != 3 || !sm || sm->rank != 3 || !nnfx_meta_is_static(sm)) return false;
        dims[0] = sm->dims[0].value * sm->dims[1].value * nms_per_class(g, n, sm->dims[2].value), dims[1] = 3;
        nnfx_meta_set_shape(&m[0], NNFX_I64, 2, dims);
        return true;
    }
    default: return false;
    }
}

int cg_set_bounds(nnfx_graph *g, const nnfx_node **list, int max) {
    int k = 0;
    for (nnfx_node *n = g->head; n; n = n->next) {
        nnfx_meta m[4] = {{0}};
        if (!only_model_outputs(n) || !bound_of(g, n, m)) continue;
        if (list) {
            if (k >= max) break;
            for (int o = 0; o < n->nout; o++)
                n->meta[o] = m[o];
            for (int u = 0; u < n->nusers; u++) { /* a multi-output node's getitems */
                nnfx_node *r = n->users[u];
                if (r->opcode == NNFX_CALL_FUNCTION && r->op == NNFX_OP_GETITEM && r->args[1].kind == NNFX_ARG_INT &&
                    r->args[1].u.i >= 0 && r->args[1].u.i < n->nout)
                    r->meta[0] = m[r->args[1].u.i];
            }
            list[k] = n;
        }
        k++;
    }
    return k;
}

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
    const nnfx_node *src = output_source(o, &k);
    /* Unique's inverse_indices has one entry per slice: its size never depends on the data */
    return cg_bounded_index(c, src) >= 0 && !(src->op == NNFX_OP_UNIQUE && k == 2);
}

void cg_emit_output_dims(cg *c, int a, const nnfx_node *o) {
    int k;
    const int b = cg_bounded_index(c, output_source(o, &k));
    const nnfx_meta *m = &o->meta[0];
    char dn[48];
    dims_name(b, k, dn, sizeof dn);
    sb_printf(&c->body, "    if (dims && dims[%d]) {", a);
    for (int d = 0; d < m->rank; d++)
        if (b >= 0)
            sb_printf(&c->body, " dims[%d][%d] = %s[%d];", a, d, dn, d);
        else
            sb_printf(&c->body, " dims[%d][%d] = %lld;", a, d, (long long)m->dims[d].value);
    sb_printf(&c->body, " }\n");
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
    sb_printf(&c->body, "    nnfx_rt_nms(%s, %s, %lld, %lld, %lld, %s, %s, %d, %s, %d, %s, %lld, %s, &%s[0]);\n", bx,
              sc, (long long)B, (long long)C, (long long)N, mo[0] ? mo : "0", it[0] ? it : "0.0", st_[0] != 0,
              st_[0] ? st_ : "0.0", nnfx_node_attr_int(n, "center_point_box", 0) != 0, y, (long long)ym->dims[0].value,
              work, dn);
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
              nnfx_node_attr_int(n, "sorted", 1) != 0, outs[0], outs[1], outs[2], outs[3], work, dn,
              axis < 0 ? 0 : axis);
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
    if (n->op == NNFX_OP_NON_ZERO) {
        cg_use_section(c, "nonzero");
        sb_printf(&c->body, "    {\n        static const long shape[%d] = {", xm->rank > 0 ? xm->rank : 1);
        for (int d = 0; d < xm->rank; d++)
            sb_printf(&c->body, d ? ", %lld" : "%lld", (long long)xm->dims[d].value);
        sb_printf(&c->body, xm->rank ? "};\n" : "0};\n");
        sb_printf(&c->body, "        nnfx_rt_nonzero(%s, %d, %d, shape, %s, &%s[1]);\n    }\n", x, cg_tcode(xm->dtype),
                  xm->rank, y, dn);
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
