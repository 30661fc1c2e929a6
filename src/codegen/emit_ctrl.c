/* emit_ctrl.c — comparisons and control flow (moved whole from codegen.c,
 * its "comparisons and control flow" section): If, Loop and Scan bodies
 * written inline, and emit_kernel_step, which sends each kernel step of the
 * plan to its op's emitter (ops.def's emit column, emit_table.c). */
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

/* ---- comparisons and control flow ----------------------------------------- */

int cg_compare_code(nnfx_op op) {
    /* the runtime's comparison codes, by the row's name */
    static const char *const names[] = {"greater", "less", "greater_or_equal", "less_or_equal", "equal"};
    const char *name = nnfx_op_name(op);
    for (int k = 0; k < (int)(sizeof names / sizeof names[0]); k++)
        if (strcmp(name, names[k]) == 0) return k;
    return -1;
}

/* A comparison of two float32 values into a bool value (one byte per
 * element in the arena): what an If's condition is usually made of (in and y
 * unused: the operands are read as float32, the output as bool). */
nnfx_status gen_compare(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y_unused) {
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
    cg_emit_longs(&c->body, "shape", bp.rank, bp.shape);
    cg_emit_longs(&c->body, "sa", bp.rank, sa);
    cg_emit_longs(&c->body, "sb", bp.rank, sb_);
    sb_printf(&c->body, "        nnfx_rt_compare(%s, %s, %s, %d, shape, sa, sb, %d);\n    }\n", a, b, y, bp.rank,
              cg_compare_code(n->op));
    return NNFX_OK;
}

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
nnfx_status check_ctrl_steps(cg *c) {
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

/* If, Loop, Scan: the body inline; its regions are live only while it runs. */
nnfx_status gen_ctrl(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    int64_t mark = c->ctrl_bytes;
    nnfx_status st = n->op == NNFX_OP_IF     ? emit_if(c, s, n)
                     : n->op == NNFX_OP_LOOP ? emit_loop(c, s, n)
                                             : emit_scan(c, s, n);
    c->ctrl_bytes = mark;
    return st;
}

/* One kernel step: first the steps the emitters of ops.def's emit column
 * (cg_op_emitter) take ahead of the type checks, with in and y NULL, each
 * where its family's CG_EMIT_* bits (cg_op_emit_props, emit_table.c) say:
 * control flow, Einsum, the moves of data of any type, comparisons, ArgMax
 * / ArgMin, TopK, casts from float32 and Pad of other types; a bounded or
 * data-sized step and the int64 / float64 reductions too; then the ops over
 * other types than float32 (emit_typed_ops.c) and the int8 steps
 * (emit_int8.c); then a float32 step through its op's emitter, with its
 * inputs and output as C expressions. */
nnfx_status emit_kernel_step(cg *c, const fx_step_view *s) {
    const nnfx_node *n = s->last;
    const cg_emit_fn emit = cg_op_emitter(n->op);
    const unsigned props = cg_op_emit_props(n->op);
    char in[8][64], y[64];
    nnfx_status st;
    if (props & CG_EMIT_FIRST) return emit(c, s, n, NULL, NULL);
    const int bounded = c->in_expr ? -1 : cg_bounded_index(c, n);
    if (bounded >= 0) return cg_emit_bounded(c, s, bounded);
    bool data_sized = false; /* sizes a loop body read from data */
    if (c->bnd && ((st = cg_emit_data_sized(c, s, n, &data_sized)) || data_sized)) return st;
    const nnfx_meta *x0 = cg_arg_meta(n, 0);
    const nnfx_dtype yt = n->meta[0].dtype;
    if ((props & CG_EMIT_WIDE_REDUCE) && x0 && (x0->dtype == NNFX_F64 || x0->dtype == NNFX_I64) && yt == x0->dtype)
        return emit(c, s, n, NULL, NULL);
    if (props & CG_EMIT_ANY_STEP) return emit(c, s, n, NULL, NULL);
    if ((props & CG_EMIT_HELD_TYPE) && cg_ctype(yt)) return emit(c, s, n, NULL, NULL);
    /* integer / bool values, or float ops reading them: emit_typed_ops.c */
    bool typed = false;
    if ((st = cg_emit_typed_op(c, s, &typed)) || typed) return st;
    if (props & CG_EMIT_NUMERIC) return emit(c, s, n, NULL, NULL); /* of float32 or any numeric type */
    if ((props & CG_EMIT_FROM_F32) && x0 && x0->dtype == NNFX_F32 && (yt == NNFX_I64 || yt == NNFX_BOOL))
        return emit(c, s, n, NULL, NULL);
    if ((props & CG_EMIT_BYTES) && yt != NNFX_F32 && cg_tcode(yt) >= 0)
        return emit(c, s, n, NULL, NULL); /* the bytes moved, in any type */
    if (is_int8_step(n)) return emit_int8_kernel_step(c, s);
    if (yt != NNFX_F32) return cg_unsupported(c, n, "only float32 values are generated");
    if (props & CG_EMIT_OWN_VALUES) return emit(c, s, n, NULL, NULL);
    if ((st = cg_value_expr(c, s->out, n, y, sizeof y))) return st;
    /* further multi-output ops (LayerNormalization's Mean / InvStdDev, MaxPool's Indices) */
    if (s->nout != 1 && !(props & CG_EMIT_MULTI_OUT))
        return cg_unsupported(c, n,
                              "multi-output ops other than Split, TopK, RNN, GRU, LSTM, LayerNormalization, MaxPool "
                              "and Dropout are not generated");
    int ndata = cg_data_inputs(n->op, s->nin);
    if (ndata > 8) return cg_unsupported(c, n, "too many inputs");
    for (int a = 0; a < ndata; a++) {
        in[a][0] = 0;
        if (s->in[a] >= 0 && (st = cg_value_expr(c, s->in[a], n, in[a], sizeof in[a]))) return st;
    }
    return emit(c, s, n, in, y);
}
