/* emit_typed_ops.c — steps over values that are not all float32, outside
 * the int8 (QDQ) islands (cg_emit_typed_op, src/codegen/codegen_int.h):
 * integer and bool arithmetic, logic and comparisons with broadcasting,
 * Where, Cast between the types generated C holds, IsNaN / IsInf / Not,
 * Trilu, and the ops that read integer indices (GatherElements, Gather
 * with computed indices, ScatterElements / ScatterND, OneHot, EyeLike, the
 * NLL and softmax cross-entropy losses). The kernels are
 * src/rt/nnfx_rt_typed.h; their integer ops are
 * nnfx_rt_scalar.h's, which the interpreter's kernels call too. Values
 * are bytes with a type code (tcode); constants of an integer type become
 * arrays of their C type in the weights file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

/* The runtime's type code of dt (nnfx_rt_typed.h), -1 when generated C
 * holds no such values: the interpreter's kernels' own mapping. */
static int tcode(nnfx_dtype dt) { return kern_rt_tcode(dt); }

static const char *tcode_ctype(int t) {
    static const char *const names[] = {"float",  "int64_t",  "int32_t", "int8_t",   "uint8_t",  "uint8_t",
                                        "double", "uint16_t", "int16_t", "uint16_t", "uint32_t", "uint64_t"};
    return names[t];
}

/* The dtype of step s's input a (its node's meta, or the constant's). */
static nnfx_dtype in_dtype(cg *c, const fx_step_view *s, int a) {
    const nnfx_meta *m = cg_arg_meta(s->last, a);
    if (m) return m->dtype;
    if (a < s->nin && s->in[a] >= 0) {
        fx_value_view vv = fx_plan_value_view(c->p, s->in[a]);
        if (vv.kind == FX_VALUE_CONST) return vv.t->dtype;
    }
    return NNFX_DTYPE_UNDEFINED;
}

/* The constant tensor of step input a, or NULL. */
static const nnfx_tensor *in_const(cg *c, const fx_step_view *s, int a) {
    if (a >= s->nin || s->in[a] < 0) return NULL;
    fx_value_view vv = fx_plan_value_view(c->p, s->in[a]);
    return vv.kind == FX_VALUE_CONST ? vv.t : NULL;
}

/* A constant of an integer or bool type as an array of its C type in the
 * weights file (once per value); its name in buf. */
static void typed_const(cg *c, int v, const nnfx_tensor *t, const nnfx_node *user, char *buf, size_t len) {
    const int tc = tcode(t->dtype);
    if (!c->weight_id[v]) {
        const int id = ++c->nweights;
        const int64_t n = nnfx_tensor_numel(t);
        const size_t es = nnfx_dtype_size(t->dtype);
        const char *ty = tcode_ctype(tc), *src = v < c->nnodes ? c->nodes[v]->name : "literal";
        char shp[160];
        nnfx_shape_str(t->rank, t->shape, shp, sizeof shp);
        if (!c->weights_stdint) {
            sb_printf(&c->weights, "#include <stdint.h>\n\n");
            c->weights_stdint = true;
        }
        sb_printf(&c->decls, "extern const %s %s_w%d[%lld]; /* %s %s %s */\n", ty, c->name, id, (long long)(n ? n : 1),
                  src, nnfx_dtype_name(t->dtype), shp);
        sb_printf(&c->weights, "/* %s %s %s */\nconst %s %s_w%d[%lld] = {", src, nnfx_dtype_name(t->dtype), shp, ty,
                  c->name, id, (long long)(n ? n : 1));
        for (int64_t i = 0; i < n; i++) {
            int64_t x = 0;
            if (t->dtype == NNFX_F64) {
                double d;
                memcpy(&d, (const char *)t->data + i * 8, 8);
                sb_printf(&c->weights, i % 4 ? ", " : (i ? ",\n    " : "\n    "));
                if (d != d || d > 1.7976931348623157e308 || d < -1.7976931348623157e308)
                    sb_printf(&c->weights, "%s", d != d ? "0.0 / 0.0" : d > 0 ? "1.0 / 0.0" : "-1.0 / 0.0");
                else
                    sb_printf(&c->weights, "%a", d);
                continue;
            }
            if (t->dtype == NNFX_U64) {
                uint64_t u;
                memcpy(&u, (const char *)t->data + i * 8, 8);
                sb_printf(&c->weights, "%s%lluULL", i % 8 ? ", " : (i ? ",\n    " : "\n    "), (unsigned long long)u);
                continue;
            }
            if (t->dtype == NNFX_I64) {
                memcpy(&x, (const char *)t->data + i * 8, 8);
            } else if (t->dtype == NNFX_I32) {
                int32_t w;
                memcpy(&w, (const char *)t->data + i * 4, 4);
                x = w;
            } else if (t->dtype == NNFX_F16 || t->dtype == NNFX_U16) { /* a half's bits, or a uint16 */
                uint16_t h;
                memcpy(&h, (const char *)t->data + i * 2, 2);
                x = h;
            } else if (t->dtype == NNFX_I16) {
                int16_t h;
                memcpy(&h, (const char *)t->data + i * 2, 2);
                x = h;
            } else if (t->dtype == NNFX_U32) {
                uint32_t w;
                memcpy(&w, (const char *)t->data + i * 4, 4);
                x = w;
            } else if (t->dtype == NNFX_I8) {
                x = ((const int8_t *)t->data)[i];
            } else {
                x = ((const uint8_t *)t->data)[i];
            }
            sb_printf(&c->weights, i % 8 ? ", " : (i ? ",\n    " : "\n    "));
            if (x == INT64_MIN)
                sb_printf(&c->weights, "INT64_MIN");
            else
                sb_printf(&c->weights, "%lld%s", (long long)x, t->dtype == NNFX_I64 ? "LL" : "");
        }
        sb_printf(&c->weights, n ? "\n};\n" : "0};\n");
        c->weight_bytes += n * (int64_t)es;
        c->stats[user->op].weight_bytes += n * (int64_t)es;
        c->weight_id[v] = id;
    }
    snprintf(buf, len, "((const unsigned char *)%s_w%d)", c->name, c->weight_id[v]);
}

/* C expression of step s's input a as `const unsigned char *` bytes of
 * type dt. */
static nnfx_status typed_in(cg *c, const fx_step_view *s, int a, nnfx_dtype dt, char *buf, size_t len) {
    if (a >= s->nin || s->in[a] < 0) return cg_unsupported(c, s->last, "an input is not a tensor value");
    return cg_value_bytes(c, s->in[a], dt, s->last, buf, len);
}

/* C expression of value v (a step's output) as `unsigned char *`. */
static nnfx_status typed_out(cg *c, int v, nnfx_dtype dt, const nnfx_node *n, char *buf, size_t len) {
    char e[64];
    nnfx_status st = cg_value_typed(c, v, dt, n, e, sizeof e);
    if (st) return st;
    snprintf(buf, len, "((unsigned char *)%s)", e);
    return NNFX_OK;
}

/* C expression of float32 value v as `const float *` / `float *`. */
static nnfx_status float_in(cg *c, const fx_step_view *s, int a, char *buf, size_t len) {
    if (a >= s->nin || s->in[a] < 0) return cg_unsupported(c, s->last, "an input is not a tensor value");
    return cg_value_expr(c, s->in[a], s->last, buf, len);
}

static void emit_longs(sbuf *b, const char *name, int k, const int64_t *v) {
    sb_printf(b, "        static const long %s[%d] = {", name, k > 0 ? k : 1);
    for (int i = 0; i < k; i++)
        sb_printf(b, i ? ", %lld" : "%lld", (long long)v[i]);
    sb_printf(b, k > 0 ? "};\n" : "0};\n");
}

/* The broadcast of step s's first k inputs to its output, merged. */
static nnfx_status plan_bcast(cg *c, const fx_step_view *s, int k, kern_bcast *bp) {
    const nnfx_node *n = s->last;
    nnfx_tensor *ts[3] = {NULL, NULL, NULL};
    float dummy = 0;
    nnfx_status st = NNFX_OK;
    for (int a = 0; a < k && !st; a++) {
        const nnfx_meta *m = cg_arg_meta(n, a);
        int64_t dims[NNFX_MAX_RANK];
        if (!m) {
            st = cg_unsupported(c, n, "literal operands are not generated");
            break;
        }
        for (int d = 0; d < m->rank; d++)
            dims[d] = m->dims[d].value;
        if (!(ts[a] = nnfx_tensor_borrow(NNFX_F32, m->rank, dims, &dummy, c->err))) st = NNFX_ERR_NOMEM;
    }
    if (!st) {
        int64_t oshape[NNFX_MAX_RANK];
        for (int d = 0; d < n->meta[0].rank; d++)
            oshape[d] = n->meta[0].dims[d].value;
        const nnfx_tensor *ops[3] = {ts[0], ts[1], ts[2]};
        if (!kern_bcast_plan(bp, n->meta[0].rank, oshape, k, ops))
            st = cg_unsupported(c, n, "operands do not broadcast");
    }
    for (int a = 0; a < k; a++)
        nnfx_tensor_release(ts[a]);
    return st;
}

/* Emits the shape and the k operands' strides of bp as static arrays
 * shape, s0, s1, s2 (inside an open block). */
static void emit_bcast_arrays(cg *c, const kern_bcast *bp, int k) {
    static const char *const names[3] = {"s0", "s1", "s2"};
    emit_longs(&c->body, "shape", bp->rank, bp->shape);
    for (int j = 0; j < k; j++)
        emit_longs(&c->body, names[j], bp->rank, bp->st[j]);
}

/* nnfx_rt_scalar.h's integer function of a binary op, or NULL. */
static const char *int_fn(const nnfx_node *n) {
    switch (n->op) {
    case NNFX_OP_ADD: return "iadd";
    case NNFX_OP_SUB: return "isub";
    case NNFX_OP_MUL: return "imul";
    case NNFX_OP_DIV: return "idiv";
    case NNFX_OP_MOD: return ir_attr_int(n, "fmod") ? "ifmod" : "imod";
    case NNFX_OP_MIN: return "imin";
    case NNFX_OP_MAX: return "imax";
    case NNFX_OP_BITWISE_AND: return "ibitand";
    case NNFX_OP_BITWISE_OR: return "ibitor";
    case NNFX_OP_BITWISE_XOR: return "ibitxor";
    case NNFX_OP_AND: return "iand";
    case NNFX_OP_OR: return "ior";
    case NNFX_OP_XOR: return "ixor";
    case NNFX_OP_BIT_SHIFT: {
        const char *d = nnfx_node_attr_string(n, "direction", "");
        return strcmp(d, "LEFT") == 0 ? "ishl" : strcmp(d, "RIGHT") == 0 ? "ishr" : NULL;
    }
    default: return NULL;
    }
}

/* Binary element-wise step (an integer op, Pow, a comparison) of operands
 * of types ta, tb into y of type ty. */
static nnfx_status emit_binary(cg *c, const fx_step_view *s, nnfx_dtype da, nnfx_dtype db, nnfx_dtype dy) {
    const nnfx_node *n = s->last;
    char a[96], b[96], y[96];
    kern_bcast bp;
    nnfx_status st;
    if (s->nin != 2) return cg_unsupported(c, n, "only two operands are generated");
    if ((st = plan_bcast(c, s, 2, &bp)) || (st = typed_in(c, s, 0, da, a, sizeof a)) ||
        (st = typed_in(c, s, 1, db, b, sizeof b)) || (st = typed_out(c, s->out, dy, n, y, sizeof y)))
        return st;
    if (cg_meta_numel(&n->meta[0]) == 0) return NNFX_OK;
    sb_printf(&c->body, "    {\n");
    emit_bcast_arrays(c, &bp, 2);
    if (cg_compare_code(n->op) >= 0) {
        cg_use_section(c, "tcompare");
        sb_printf(&c->body, "        nnfx_rt_tcompare(%s, %d, %s, %d, %s, %d, shape, s0, s1, %d);\n    }\n", a,
                  tcode(da), b, tcode(db), y, bp.rank, cg_compare_code(n->op));
    } else if (n->op == NNFX_OP_POW) {
        cg_use_section(c, "tpow");
        sb_printf(&c->body, "        nnfx_rt_tpow(%s, %d, %s, %d, %s, %d, %d, shape, s0, s1);\n    }\n", a, tcode(da),
                  b, tcode(db), y, tcode(dy), bp.rank);
    } else if (dy == NNFX_F64 || dy == NNFX_F16 || (dy == NNFX_U64 && n->op != NNFX_OP_BIT_SHIFT)) {
        /* in double, as the interpreter */
        const bool fm = ir_attr_int(n, "fmod") != 0, u = dy == NNFX_U64;
        const char *fn = n->op == NNFX_OP_MIN   ? "dmin"
                         : n->op == NNFX_OP_MAX ? "dmax"
                         : n->op == NNFX_OP_ADD ? "dadd"
                         : n->op == NNFX_OP_SUB ? "dsub"
                         : n->op == NNFX_OP_MUL ? "dmul"
                         : n->op == NNFX_OP_DIV ? "ddiv"
                         : fm                   ? (u ? "difmod" : "dfmod")
                                                : (u ? "dimod" : "dmod");
        cg_use_section(c, "fbinary");
        cg_use_section(c, fn);
        sb_printf(&c->body, "        nnfx_rt_fbinary(%s, %s, %s, %d, %d, shape, s0, s1, nnfx_rt_%s);\n    }\n", a, b, y,
                  tcode(dy), bp.rank, fn);
    } else {
        const char *fn = int_fn(n);
        cg_use_section(c, "ibinary");
        cg_use_section(c, fn);
        sb_printf(&c->body, "        nnfx_rt_ibinary(%s, %d, %s, %d, %s, %d, %d, shape, s0, s1, nnfx_rt_%s);\n    }\n",
                  a, tcode(da), b, tcode(db), y, tcode(dy), bp.rank, fn);
    }
    return NNFX_OK;
}

static nnfx_status emit_where(cg *c, const fx_step_view *s, nnfx_dtype dy) {
    const nnfx_node *n = s->last;
    char cnd[96], x[96], z[96], y[96];
    kern_bcast bp;
    nnfx_status st;
    if (in_dtype(c, s, 0) != NNFX_BOOL || in_dtype(c, s, 1) != dy || in_dtype(c, s, 2) != dy)
        return cg_unsupported(c, n, "a Where of a bool condition and two values of the output's type is generated");
    if ((st = plan_bcast(c, s, 3, &bp)) || (st = typed_in(c, s, 0, NNFX_BOOL, cnd, sizeof cnd)) ||
        (st = typed_in(c, s, 1, dy, x, sizeof x)) || (st = typed_in(c, s, 2, dy, z, sizeof z)) ||
        (st = typed_out(c, s->out, dy, n, y, sizeof y)))
        return st;
    if (cg_meta_numel(&n->meta[0]) == 0) return NNFX_OK;
    cg_use_section(c, "where");
    sb_printf(&c->body, "    {\n");
    emit_bcast_arrays(c, &bp, 3);
    sb_printf(&c->body, "        nnfx_rt_where(%s, %s, %s, %s, %d, %d, shape, s0, s1, s2);\n    }\n", cnd, x, z, y,
              (int)nnfx_dtype_size(dy), bp.rank);
    return NNFX_OK;
}

/* Cast / CastLike of input 0 (type dx) to dy. */
static nnfx_status emit_cast(cg *c, const fx_step_view *s, nnfx_dtype dx, nnfx_dtype dy) {
    const nnfx_node *n = s->last;
    char x[96], y[96];
    nnfx_status st;
    if ((st = typed_in(c, s, 0, dx, x, sizeof x)) || (st = typed_out(c, s->out, dy, n, y, sizeof y))) return st;
    const int64_t numel = cg_meta_numel(&n->meta[0]);
    if (dx == dy) {
        sb_printf(&c->body, "    memmove(%s, %s, %lld);\n", y, x, (long long)nnfx_meta_nbytes(&n->meta[0]));
        return NNFX_OK;
    }
    cg_use_section(c, "tcast");
    sb_printf(&c->body, "    nnfx_rt_tcast(%s, %d, %s, %d, %lld);\n", x, tcode(dx), y, tcode(dy), (long long)numel);
    return NNFX_OK;
}

/* Neg, Abs or Relu of integers of type dy (nnfx_rt_iunary). */
static nnfx_status emit_iunary(cg *c, const fx_step_view *s, nnfx_dtype dy) {
    const nnfx_node *n = s->last;
    const char *fn = n->op == NNFX_OP_NEG           ? "ineg"
                     : n->op == NNFX_OP_ABS         ? "iabs"
                     : n->op == NNFX_OP_SIGN        ? "isign"
                     : n->op == NNFX_OP_BITWISE_NOT ? "ibitnot"
                                                    : "irelu";
    char x[96], y[96];
    nnfx_status st;
    if ((st = typed_in(c, s, 0, dy, x, sizeof x)) || (st = typed_out(c, s->out, dy, n, y, sizeof y))) return st;
    cg_use_section(c, "iunary");
    cg_use_section(c, fn);
    sb_printf(&c->body, "    nnfx_rt_iunary(%s, %s, %d, %lld, nnfx_rt_%s);\n", x, y, tcode(dy),
              (long long)cg_meta_numel(&n->meta[0]), fn);
    return NNFX_OK;
}

/* A one-input float op of float64 or float16 values, in double
 * (nnfx_rt_funary over kern_double_unary's function, as the interpreter). */
static nnfx_status emit_funary(cg *c, const fx_step_view *s, nnfx_dtype dy) {
    const nnfx_node *n = s->last;
    const kern_dunary *fn = kern_double_unary(n->op);
    char x[96], y[96];
    nnfx_status st;
    if ((st = typed_in(c, s, 0, dy, x, sizeof x)) || (st = typed_out(c, s->out, dy, n, y, sizeof y))) return st;
    cg_use_section(c, "funary");
    cg_use_section(c, fn->section);
    sb_printf(&c->body, "    nnfx_rt_funary(%s, %s, %d, %lld, nnfx_rt_%s);\n", x, y, tcode(dy),
              (long long)cg_meta_numel(&n->meta[0]), fn->section);
    return NNFX_OK;
}

/* Not (bool), IsNaN, IsInf (float32, float64, float16) into bool. */
static nnfx_status emit_predicate(cg *c, const fx_step_view *s, nnfx_dtype dx) {
    const nnfx_node *n = s->last;
    const int op = n->op == NNFX_OP_NOT ? 0 : n->op == NNFX_OP_IS_NAN ? 1 : 2;
    char x[96], y[96];
    nnfx_status st;
    if ((op == 0 ? dx != NNFX_BOOL : kern_rt_float_tcode(dx) < 0) || n->meta[0].dtype != NNFX_BOOL)
        return cg_unsupported(c, n, op == 0 ? "Not takes bool values" : "IsNaN / IsInf take float values");
    if ((st = typed_in(c, s, 0, dx, x, sizeof x)) || (st = typed_out(c, s->out, NNFX_BOOL, n, y, sizeof y))) return st;
    cg_use_section(c, "tpredicate");
    sb_printf(&c->body, "    nnfx_rt_tpredicate(%s, %d, %s, %lld, %d, %d, %d);\n", x, tcode(dx), y,
              (long long)cg_meta_numel(&n->meta[0]), op, ir_attr_int(n, "detect_negative") != 0,
              ir_attr_int(n, "detect_positive") != 0);
    return NNFX_OK;
}

static bool index_dtype(nnfx_dtype dt) { return dt == NNFX_I64 || dt == NNFX_I32; }

/* The single integer of constant input a (dflt when absent); false when
 * present but not a constant holding one value. */
static bool const_int(cg *c, const fx_step_view *s, int a, int64_t dflt, int64_t *out) {
    *out = dflt;
    if (a >= s->nin || s->in[a] < 0) return true;
    const nnfx_tensor *t = in_const(c, s, a);
    int64_t v[1];
    int k = 0;
    if (!t || !kern_ints(t, v, 1, &k) || k != 1) return false;
    *out = v[0];
    return true;
}

static nnfx_status emit_trilu(cg *c, const fx_step_view *s, nnfx_dtype dx) {
    const nnfx_node *n = s->last;
    const nnfx_meta *m = &n->meta[0];
    char x[96], y[96], k[160], kp[96];
    int64_t kc;
    nnfx_status st;
    if (m->rank < 2) return cg_unsupported(c, n, "trilu needs rank >= 2");
    if ((st = typed_in(c, s, 0, dx, x, sizeof x)) || (st = typed_out(c, s->out, dx, n, y, sizeof y))) return st;
    if (const_int(c, s, 1, 0, &kc)) {
        snprintf(k, sizeof k, "%lld", (long long)kc);
    } else { /* computed (or a model input): its one value, read at run time */
        const nnfx_dtype dk = in_dtype(c, s, 1);
        if (!index_dtype(dk) || !cg_arg_meta(n, 1) || cg_meta_numel(cg_arg_meta(n, 1)) != 1)
            return cg_unsupported(c, n, "trilu's k is not one int32/int64 value");
        if ((st = typed_in(c, s, 1, dk, kp, sizeof kp))) return st;
        cg_use_section(c, "tval");
        snprintf(k, sizeof k, "(long)nnfx_rt_ld_i(%s, 0, %d)", kp, tcode(dk));
    }
    const int64_t rows = m->dims[m->rank - 2].value, cols = m->dims[m->rank - 1].value;
    if (rows <= 0 || cols <= 0) return NNFX_OK;
    cg_use_section(c, "trilu");
    sb_printf(&c->body, "    nnfx_rt_trilu(%s, %s, %d, %lld, %lld, %lld, %s, %d);\n", x, y, (int)nnfx_dtype_size(dx),
              (long long)(cg_meta_numel(m) / (rows * cols)), (long long)rows, (long long)cols, k,
              ir_attr_int(n, "upper") != 0);
    return NNFX_OK;
}

/* Before a step reading the indices of argument 1 of n (expression ix,
 * type di; their first n_idx, as tuples of k whose component j indexes a
 * dim of size dims[j]: a C expression each): NAME_run returns 2 for one out
 * of range, as the interpreter refuses it. Indices whose size depends on
 * the data are not checked (their padding holds no index). */
static void emit_index_check(cg *c, const nnfx_node *n, const char *ix, nnfx_dtype di, const char *n_idx, int k,
                             char (*dims)[64]) {
    if (c->bnd && n->args[1].kind == NNFX_ARG_NODE && cg_dyn_of(c->bnd, n->args[1].u.node)) return;
    c->may_fail = true;
    cg_use_section(c, "index_ok");
    sb_printf(&c->body, "    {\n        const long dims[%d] = {", k);
    for (int j = 0; j < k; j++)
        sb_printf(&c->body, "%s(long)%s", j ? ", " : "", dims[j]);
    sb_printf(&c->body,
              "};\n        if (!nnfx_rt_index_ok(%s, %d, %s, %d, dims)) return 2; /* an index out of range */\n    }\n",
              ix, tcode(di), n_idx, k);
}

/* The dims of meta m as int64 into d. */
static void meta_dims(const nnfx_meta *m, int64_t *d) {
    for (int i = 0; i < m->rank; i++)
        d[i] = m->dims[i].value;
}

static nnfx_status emit_gather_elements(cg *c, const fx_step_view *s, nnfx_dtype dx) {
    const nnfx_node *n = s->last;
    const nnfx_meta *xm = cg_arg_meta(n, 0), *im = cg_arg_meta(n, 1);
    const nnfx_dtype di = in_dtype(c, s, 1);
    char x[96], ix[96], y[96];
    int axis;
    nnfx_status st;
    if (!xm || !im || !index_dtype(di) || im->rank != xm->rank || xm->rank < 1 ||
        !infer_axis(ir_attr_int(n, "axis"), xm->rank, false, &axis))
        return cg_unsupported(c, n, "gather_elements needs int32/int64 indices of the data's rank and a valid axis");
    if ((st = typed_in(c, s, 0, dx, x, sizeof x)) || (st = typed_in(c, s, 1, di, ix, sizeof ix)) ||
        (st = typed_out(c, s->out, dx, n, y, sizeof y)))
        return st;
    if (cg_meta_numel(im) == 0) return NNFX_OK;
    int64_t xd[NNFX_MAX_RANK], id[NNFX_MAX_RANK];
    meta_dims(xm, xd), meta_dims(im, id);
    char cnt[32], dl[1][64];
    snprintf(cnt, sizeof cnt, "%lld", (long long)cg_meta_numel(im));
    snprintf(dl[0], sizeof dl[0], "%lld", (long long)xd[axis]);
    emit_index_check(c, n, ix, di, cnt, 1, dl);
    cg_use_section(c, "gather_elements");
    sb_printf(&c->body, "    {\n");
    emit_longs(&c->body, "xshape", xm->rank, xd);
    emit_longs(&c->body, "ishape", im->rank, id);
    sb_printf(&c->body, "        nnfx_rt_gather_elements(%s, %s, %d, %s, %d, %d, xshape, ishape, %d);\n    }\n", x, ix,
              tcode(di), y, (int)nnfx_dtype_size(dx), xm->rank, axis);
    return NNFX_OK;
}

/* Gather whose indices are computed (or whose data is not float32). */
static nnfx_status emit_gather(cg *c, const fx_step_view *s, nnfx_dtype dx) {
    const nnfx_node *n = s->last;
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    const nnfx_dtype di = in_dtype(c, s, 1);
    char x[96], ix[96], y[96];
    int axis;
    nnfx_status st;
    if (!xm || !index_dtype(di) || !infer_axis(ir_attr_int(n, "axis"), xm->rank, false, &axis))
        return cg_unsupported(c, n, "gather needs int32/int64 indices and a valid axis");
    if ((st = typed_in(c, s, 0, dx, x, sizeof x)) || (st = typed_in(c, s, 1, di, ix, sizeof ix)) ||
        (st = typed_out(c, s->out, dx, n, y, sizeof y)))
        return st;
    const int64_t outer = infer_prod(xm, 0, axis), len = xm->dims[axis].value,
                  inner = infer_prod(xm, axis + 1, xm->rank);
    const int64_t ni = outer * inner != 0 ? cg_meta_numel(&n->meta[0]) / (outer * inner) : 0;
    if (cg_meta_numel(&n->meta[0]) == 0) return NNFX_OK;
    char lim[64]; /* the actual extent of a data-dependent axis */
    cg_dim_expr(c, n->args[0].u.node, axis, lim, sizeof lim);
    char cnt[32], dl[1][64];
    snprintf(cnt, sizeof cnt, "%lld", (long long)cg_meta_numel(cg_arg_meta(n, 1)));
    snprintf(dl[0], sizeof dl[0], "%s", lim);
    emit_index_check(c, n, ix, di, cnt, 1, dl);
    cg_use_section(c, "gather_typed");
    sb_printf(&c->body, "    nnfx_rt_gather_typed(%s, %s, %d, %s, %d, %lld, %lld, %s, %lld, %lld);\n", x, ix, tcode(di),
              y, (int)nnfx_dtype_size(dx), (long long)outer, (long long)len, lim, (long long)inner, (long long)ni);
    return NNFX_OK;
}

/* MelWeightMatrix (nnfx_rt_mel_weight_matrix: the interpreter's loop), its
 * five scalars read at run time as doubles; NAME_run returns 2 for a sample
 * rate that is not positive, as the interpreter refuses it. */
static nnfx_status emit_mel_weight_matrix(cg *c, const fx_step_view *s, nnfx_dtype dy) {
    const nnfx_node *n = s->last;
    const nnfx_meta *ym = &n->meta[0];
    char in[5][128], y[96], pt[64];
    nnfx_status st;
    if (ym->rank != 2 || (dy != NNFX_F32 && dy != NNFX_F64 && dy != NNFX_F16))
        return cg_unsupported(c, n, "a float output [spec, bins] is generated");
    for (int a = 0; a < 5; a++) {
        const nnfx_meta *m = cg_arg_meta(n, a);
        if (!m || cg_meta_numel(m) != 1 || tcode(m->dtype) < 0)
            return cg_unsupported(c, n, "its inputs must be scalars");
        char e[96];
        if ((st = typed_in(c, s, a, m->dtype, e, sizeof e))) return st;
        snprintf(in[a], sizeof in[a], "nnfx_rt_ld_f(%s, 0, %d)", e, tcode(m->dtype));
    }
    if ((st = typed_out(c, s->out, dy, n, y, sizeof y))) return st;
    int64_t used = 0;
    cg_step_scratch(c, (ym->dims[1].value + 2) * 8 + 8, &used, pt, sizeof pt);
    cg_use_section(c, "mel_weight_matrix");
    cg_use_section(c, "align8");
    c->may_fail = true;
    sb_printf(&c->body,
              "    if (nnfx_rt_mel_weight_matrix(%s, %s, %s, %s, %lld, %lld, %s, %d, (long *)nnfx_rt_align8(%s))) "
              "return 2;\n",
              in[1], in[2], in[3], in[4], (long long)ym->dims[0].value, (long long)ym->dims[1].value, y, tcode(dy), pt);
    return NNFX_OK;
}

/* MaxUnpool (nnfx_rt_max_unpool: the interpreter's loop); NAME_run returns
 * 2 for an index out of range, as the interpreter refuses it. */
static nnfx_status emit_max_unpool(cg *c, const fx_step_view *s, nnfx_dtype dx) {
    const nnfx_node *n = s->last;
    const nnfx_meta *xm = cg_arg_meta(n, 0), *im = cg_arg_meta(n, 1), *ym = &n->meta[0];
    const nnfx_attr *ks = nnfx_node_attr(n, "kernel_shape"), *st_ = nnfx_node_attr(n, "strides"),
                    *pd = nnfx_node_attr(n, "pads");
    const int nsp = xm ? xm->rank - 2 : 0;
    char x[96], ix[96], y[96];
    nnfx_status st;
    if (!xm || !im || im->dtype != NNFX_I64 || cg_meta_numel(im) != cg_meta_numel(xm) || nsp < 1 || !ks ||
        ks->u.ints.n != nsp || ym->rank != xm->rank || ym->dtype != dx)
        return cg_unsupported(c, n, "max_unpool needs int64 indices of X's shape and kernel_shape");
    int64_t def[NNFX_MAX_RANK], yd[NNFX_MAX_RANK];
    def[0] = xm->dims[0].value, def[1] = xm->dims[1].value;
    for (int i = 0; i < nsp; i++) {
        const int64_t sv = st_ && st_->u.ints.n == nsp ? st_->u.ints.v[i] : 1;
        const int64_t pads = pd && pd->u.ints.n == 2 * nsp ? pd->u.ints.v[i] + pd->u.ints.v[i + nsp] : 0;
        def[2 + i] = (xm->dims[2 + i].value - 1) * sv + ks->u.ints.v[i] - pads;
    }
    meta_dims(ym, yd);
    if ((st = typed_in(c, s, 0, dx, x, sizeof x)) || (st = typed_in(c, s, 1, NNFX_I64, ix, sizeof ix)) ||
        (st = typed_out(c, s->out, dx, n, y, sizeof y)))
        return st;
    c->may_fail = true;
    cg_use_section(c, "max_unpool");
    sb_printf(&c->body, "    {\n");
    emit_longs(&c->body, "def", xm->rank, def);
    emit_longs(&c->body, "ys", ym->rank, yd);
    sb_printf(&c->body, "        if (nnfx_rt_max_unpool(%s, %d, %s, %lld, %d, def, ys, %s)) return 2;\n    }\n", x,
              (int)nnfx_dtype_size(dx), ix, (long long)cg_meta_numel(xm), xm->rank, y);
    return NNFX_OK;
}

/* RoiAlign (nnfx_rt_roi_align: the interpreter's loop); NAME_run returns 2
 * for a batch index out of range, as the interpreter refuses it. */
static nnfx_status emit_roi_align(cg *c, const fx_step_view *s, nnfx_dtype dx) {
    const nnfx_node *n = s->last;
    const nnfx_meta *xm = cg_arg_meta(n, 0), *rm = cg_arg_meta(n, 1), *bm = cg_arg_meta(n, 2), *ym = &n->meta[0];
    char x[96], r[96], b[96], y[96];
    nnfx_status st;
    if (!xm || !rm || !bm || xm->rank != 4 || rm->rank != 2 || rm->dims[1].value != 4 || bm->dtype != NNFX_I64 ||
        cg_meta_numel(bm) != rm->dims[0].value || tcode(rm->dtype) < 0 || ym->rank != 4)
        return cg_unsupported(c, n, "roi_align needs X [N, C, H, W], rois [R, 4] and int64 batch_indices [R]");
    if ((st = typed_in(c, s, 0, dx, x, sizeof x)) || (st = typed_in(c, s, 1, rm->dtype, r, sizeof r)) ||
        (st = typed_in(c, s, 2, NNFX_I64, b, sizeof b)) || (st = typed_out(c, s->out, ym->dtype, n, y, sizeof y)))
        return st;
    const bool half = strcmp(ir_attr_string(n, "coordinate_transformation_mode"), "half_pixel") == 0;
    const bool mx = strcmp(ir_attr_string(n, "mode"), "max") == 0;
    char nr[64]; /* the regions: their actual count after a node whose size depends on the data */
    cg_dim_expr(c, n->args[1].u.node, 0, nr, sizeof nr);
    c->may_fail = true;
    cg_use_section(c, "roi_align");
    sb_printf(
        &c->body,
        "    if (nnfx_rt_roi_align(%s, %d, %s, %d, %s, %s, %d, %lld, %lld, %lld, %lld, (long)%s, %lld, %lld, %lld, ", x,
        tcode(dx), r, tcode(rm->dtype), b, y, tcode(ym->dtype), (long long)xm->dims[0].value,
        (long long)xm->dims[1].value, (long long)xm->dims[2].value, (long long)xm->dims[3].value, nr,
        (long long)ym->dims[2].value, (long long)ym->dims[3].value, (long long)ir_attr_int(n, "sampling_ratio"));
    sb_printf(&c->body, "%a, %d, %d)) return 2;\n", ir_attr_float(n, "spatial_scale"), half, mx);
    return NNFX_OK;
}

/* `static const long NAME[]` of integer attribute a of n (none: one 0). */
static void emit_attr_longs(sbuf *b, const char *name, const nnfx_attr *a) {
    sb_printf(b, "        static const long %s[%d] = {", name, a && a->u.ints.n > 0 ? a->u.ints.n : 1);
    for (int i = 0; a && i < a->u.ints.n; i++)
        sb_printf(b, i ? ", %lld" : "%lld", (long long)a->u.ints.v[i]);
    sb_printf(b, a && a->u.ints.n > 0 ? "};\n" : "0};\n");
}

/* TfIdfVectorizer over int32 / int64 tokens (nnfx_rt_tfidf: the
 * interpreter's loop, the pool and indexes as constant arrays); NAME_run
 * returns 2 where the interpreter refuses the attributes (ngram_counts that
 * do not fit the pool, an n-gram without a valid output index). */
static nnfx_status emit_tfidf(cg *c, const fx_step_view *s, nnfx_dtype dx) {
    const nnfx_node *n = s->last;
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    const nnfx_attr *cnts = nnfx_node_attr(n, "ngram_counts"), *idx = nnfx_node_attr(n, "ngram_indexes"),
                    *pool = nnfx_node_attr(n, "pool_int64s"), *wts = nnfx_node_attr(n, "weights");
    const char *mode = nnfx_node_attr_string(n, "mode", "TF");
    const int m = strcmp(mode, "TF") == 0 ? 0 : strcmp(mode, "IDF") == 0 ? 1 : strcmp(mode, "TFIDF") == 0 ? 2 : -1;
    char x[96], y[96];
    nnfx_status st;
    if (!xm || (dx != NNFX_I32 && dx != NNFX_I64) || ym->dtype != NNFX_F32 || xm->rank < 1 || xm->rank > 2 || m < 0 ||
        !cnts || !idx || !pool || cnts->kind != NNFX_ATTR_INTS || idx->kind != NNFX_ATTR_INTS ||
        pool->kind != NNFX_ATTR_INTS)
        return cg_unsupported(c, n, "tfidf needs int32 / int64 tokens [C] or [rows, C], pool_int64s and a valid mode");
    if ((st = typed_in(c, s, 0, dx, x, sizeof x)) || (st = typed_out(c, s->out, NNFX_F32, n, y, sizeof y))) return st;
    const bool w = wts && wts->kind == NNFX_ATTR_FLOATS && wts->u.floats.n > 0;
    c->may_fail = true;
    cg_use_section(c, "tfidf");
    sb_printf(&c->body, "    {\n");
    emit_attr_longs(&c->body, "cnts", cnts);
    emit_attr_longs(&c->body, "idx", idx);
    emit_attr_longs(&c->body, "pool", pool);
    if (w) {
        sb_printf(&c->body, "        static const float wts[%d] = {", wts->u.floats.n);
        for (int i = 0; i < wts->u.floats.n; i++) {
            sb_printf(&c->body, i ? ", " : "");
            cg_float_lit(&c->body, wts->u.floats.v[i]);
        }
        sb_printf(&c->body, "};\n");
    }
    sb_printf(
        &c->body,
        "        if (nnfx_rt_tfidf(%s, %d, %lld, %lld, (float *)(void *)%s, %lld, cnts, %d, idx, %d, pool, %d, %s, "
        "%d, %lld, %lld, %lld, %d)) return 2;\n    }\n",
        x, tcode(dx), (long long)(xm->rank == 2 ? xm->dims[0].value : 1), (long long)xm->dims[xm->rank - 1].value, y,
        (long long)ym->dims[ym->rank - 1].value, cnts->u.ints.n, idx->u.ints.n, pool->u.ints.n, w ? "wts" : "0",
        w ? wts->u.floats.n : 0, (long long)nnfx_node_attr_int(n, "min_gram_length", 1),
        (long long)nnfx_node_attr_int(n, "max_gram_length", 1), (long long)nnfx_node_attr_int(n, "max_skip_count", 0),
        m);
    return NNFX_OK;
}

static nnfx_status emit_gather_nd(cg *c, const fx_step_view *s, nnfx_dtype dx) {
    const nnfx_node *n = s->last;
    const nnfx_meta *xm = cg_arg_meta(n, 0), *im = cg_arg_meta(n, 1);
    const nnfx_dtype di = in_dtype(c, s, 1);
    const int b = (int)ir_attr_int(n, "batch_dims");
    char x[96], ix[96], y[96];
    nnfx_status st;
    if (!xm || !im || !index_dtype(di) || im->rank < 1)
        return cg_unsupported(c, n, "gather_nd needs int32/int64 indices of rank >= 1");
    const int k = (int)im->dims[im->rank - 1].value;
    if (b < 0 || k < 1 || b + k > xm->rank || b >= im->rank)
        return cg_unsupported(c, n, "gather_nd indices do not fit the data rank");
    if ((st = typed_in(c, s, 0, dx, x, sizeof x)) || (st = typed_in(c, s, 1, di, ix, sizeof ix)) ||
        (st = typed_out(c, s->out, dx, n, y, sizeof y)))
        return st;
    if (cg_meta_numel(&n->meta[0]) == 0) return NNFX_OK;
    int64_t xd[NNFX_MAX_RANK], xst[NNFX_MAX_RANK];
    meta_dims(xm, xd);
    kern_strides(xm->rank, xd, xst);
    char cnt[32], dl[NNFX_MAX_RANK][64];
    snprintf(cnt, sizeof cnt, "%lld", (long long)cg_meta_numel(im));
    for (int j = 0; j < k; j++)
        snprintf(dl[j], sizeof dl[j], "%lld", (long long)xd[b + j]);
    emit_index_check(c, n, ix, di, cnt, k, dl);
    cg_use_section(c, "gather_nd");
    sb_printf(&c->body, "    {\n");
    emit_longs(&c->body, "dims", k, xd + b);
    emit_longs(&c->body, "st", k, xst + b);
    sb_printf(&c->body, "        nnfx_rt_gather_nd(%s, %s, %d, %s, %d, %lld, %lld, %d, dims, st, %lld, %lld);\n    }\n",
              x, ix, tcode(di), y, (int)nnfx_dtype_size(dx), (long long)infer_prod(xm, 0, b),
              (long long)infer_prod(im, b, im->rank - 1), k, (long long)infer_prod(xm, b + k, xm->rank),
              (long long)(b > 0 ? xst[b - 1] : cg_meta_numel(xm)));
    return NNFX_OK;
}

/* Clip of an integer value: bounds absent, constants or computed. */
static nnfx_status emit_iclip(cg *c, const fx_step_view *s, nnfx_dtype dx) {
    const nnfx_node *n = s->last;
    char x[96], y[96], b[2][96] = {"0", "0"};
    nnfx_status st;
    if ((st = typed_in(c, s, 0, dx, x, sizeof x)) || (st = typed_out(c, s->out, dx, n, y, sizeof y))) return st;
    for (int a = 1; a < 3; a++)
        if (a < s->nin && s->in[a] >= 0) {
            if (in_dtype(c, s, a) != dx) return cg_unsupported(c, n, "clip bounds of another type than the input");
            if ((st = typed_in(c, s, a, dx, b[a - 1], sizeof b[0]))) return st;
        }
    cg_use_section(c, "iclip");
    sb_printf(&c->body, "    nnfx_rt_iclip(%s, %s, %d, %lld, %s, %s);\n", x, y, tcode(dx),
              (long long)cg_meta_numel(&n->meta[0]), b[0], b[1]);
    return NNFX_OK;
}

/* CumSum of any type (sums in double, as the interpreter's); the axis a
 * constant, or read at run time: NAME_run returns 2 for one out of range,
 * as the interpreter refuses it. */
static nnfx_status emit_cumsum(cg *c, const fx_step_view *s, nnfx_dtype dx) {
    const nnfx_node *n = s->last;
    const nnfx_meta *ym = &n->meta[0];
    char x[96], y[96], ap[96];
    int64_t av;
    nnfx_status st;
    if (ym->rank < 1) return cg_unsupported(c, n, "cum_sum of a scalar");
    if ((st = typed_in(c, s, 0, dx, x, sizeof x)) || (st = typed_out(c, s->out, dx, n, y, sizeof y))) return st;
    const bool fixed = const_int(c, s, 1, 0, &av);
    if (fixed && (av < -ym->rank || av >= ym->rank)) return cg_unsupported(c, n, "cum_sum's axis is out of range");
    if (!fixed) {
        const nnfx_dtype da = in_dtype(c, s, 1);
        if (!index_dtype(da)) return cg_unsupported(c, n, "cum_sum's axis is not one int32/int64 value");
        if ((st = typed_in(c, s, 1, da, ap, sizeof ap))) return st;
    }
    if (cg_meta_numel(ym) == 0) return NNFX_OK;
    int64_t d[NNFX_MAX_RANK];
    meta_dims(ym, d);
    cg_use_section(c, "cumsum");
    sb_printf(&c->body, "    {\n");
    if (fixed) {
        sb_printf(&c->body, "        const long long axis = %lld;\n", (long long)av);
    } else {
        c->may_fail = true;
        sb_printf(&c->body, "        const long long axis = nnfx_rt_ld_i(%s, 0, %d);\n", ap, tcode(in_dtype(c, s, 1)));
        sb_printf(&c->body, "        if (axis < -%d || axis >= %d) return 2; /* as the interpreter refuses it */\n",
                  ym->rank, ym->rank);
    }
    emit_longs(&c->body, "shape", ym->rank, d);
    sb_printf(&c->body, "        nnfx_rt_cumsum(%s, %d, %s, %d, %d, shape, axis, %d, %d);\n    }\n", x, tcode(dx), y,
              tcode(dx), ym->rank, ir_attr_int(n, "exclusive") != 0, ir_attr_int(n, "reverse") != 0);
    return NNFX_OK;
}

/* Dropout (inference) of any type: the data unchanged and, when wanted, a
 * mask of ones. A ratio or training_mode read at run time is checked:
 * NAME_run returns 2 in training mode with a ratio other than 0 (0.5 when
 * absent), as the interpreter refuses it. */
static nnfx_status emit_dropout(cg *c, const fx_step_view *s) {
    const nnfx_node *n = s->last;
    const nnfx_dtype dt = n->meta[0].dtype;
    char x[96], y[96], m[96], r[96] = "", t[96];
    nnfx_status st;
    if ((st = typed_in(c, s, 0, dt, x, sizeof x)) || (st = typed_out(c, s->out, dt, n, y, sizeof y))) return st;
    if (s->nin > 2 && s->in[2] >= 0 && !in_const(c, s, 2)) { /* training_mode (and ratio) at run time */
        const nnfx_dtype dr = in_dtype(c, s, 1), dm = in_dtype(c, s, 2);
        if (tcode(dm) < 0 || (s->in[1] >= 0 && tcode(dr) < 0))
            return cg_unsupported(c, n, "a ratio or training_mode of a type generated C lacks");
        if ((st = typed_in(c, s, 2, dm, t, sizeof t)) || (s->in[1] >= 0 && (st = typed_in(c, s, 1, dr, r, sizeof r))))
            return st;
        c->may_fail = true;
        cg_use_section(c, "tval");
        sb_printf(&c->body, "    if (nnfx_rt_ld_i(%s, 0, %d) != 0 && ", t, tcode(dm));
        if (r[0])
            sb_printf(&c->body, "nnfx_rt_ld_f(%s, 0, %d) != 0", r, tcode(dr));
        else
            sb_printf(&c->body, "1");
        sb_printf(&c->body, ") return 2; /* training mode: random masks, refused as the interpreter does */\n");
    } /* a ratio read at run time with training_mode absent or false: the identity (inference refused true) */
    const int64_t numel = cg_meta_numel(&n->meta[0]);
    sb_printf(&c->body, "    memmove(%s, %s, %lld);\n", y, x, (long long)nnfx_meta_nbytes(&n->meta[0]));
    if (s->nout < 2 || s->outs[1] < 0 || fx_plan_value_view(c->p, s->outs[1]).kind == FX_VALUE_NONE) return NNFX_OK;
    if ((st = typed_out(c, s->outs[1], NNFX_BOOL, n, m, sizeof m))) return st;
    sb_printf(&c->body, "    memset(%s, 1, %lld); /* the mask: every value kept */\n", m, (long long)numel);
    return NNFX_OK;
}

/* ScatterElements / Scatter / ScatterND: the data copied, then the updates. */
static nnfx_status emit_scatter(cg *c, const fx_step_view *s, nnfx_dtype dx) {
    const nnfx_node *n = s->last;
    const nnfx_meta *xm = cg_arg_meta(n, 0), *im = cg_arg_meta(n, 1), *um = cg_arg_meta(n, 2);
    const nnfx_dtype di = in_dtype(c, s, 1);
    /* Scatter (the older form) has no reduction in ops.def: it never reduces */
    const char *r =
        n->op == NNFX_OP_SCATTER && !nnfx_node_attr(n, "reduction") ? "none" : ir_attr_string(n, "reduction");
    const int red = strcmp(r, "none") == 0  ? 0
                    : strcmp(r, "add") == 0 ? 1
                    : strcmp(r, "mul") == 0 ? 2
                    : strcmp(r, "max") == 0 ? 3
                    : strcmp(r, "min") == 0 ? 4
                                            : -1;
    char x[96], ix[96], u[96], y[96];
    nnfx_status st;
    if (!xm || !im || !um || !index_dtype(di) || red < 0 || in_dtype(c, s, 2) != dx || xm->rank < 1)
        return cg_unsupported(c, n, "scatter needs int32/int64 indices, updates of the data's type, a known reduction");
    if ((st = typed_in(c, s, 0, dx, x, sizeof x)) || (st = typed_in(c, s, 1, di, ix, sizeof ix)) ||
        (st = typed_in(c, s, 2, dx, u, sizeof u)) || (st = typed_out(c, s->out, dx, n, y, sizeof y)))
        return st;
    int64_t xd[NNFX_MAX_RANK], id[NNFX_MAX_RANK];
    meta_dims(xm, xd), meta_dims(im, id);
    cg_use_section(c, "scatter");
    sb_printf(&c->body, "    memmove(%s, %s, %lld);\n", y, x, (long long)nnfx_meta_nbytes(xm));
    if (cg_meta_numel(im) == 0) return NNFX_OK;
    /* the index tuples' length (ScatterND) or the axis (ScatterElements), then their range checked */
    const bool nd = n->op == NNFX_OP_SCATTER_ND;
    const int k = nd && im->rank > 0 ? (int)id[im->rank - 1] : 1;
    int axis = 0;
    if (nd && (k < 1 || k > xm->rank)) return cg_unsupported(c, n, "scatter_nd index tuples do not fit the data");
    if (!nd && (im->rank != xm->rank || !infer_axis(ir_attr_int(n, "axis"), xm->rank, false, &axis)))
        return cg_unsupported(c, n, "scatter_elements indices must have the data's rank, the axis be valid");
    char cnt[32], dl[NNFX_MAX_RANK][64];
    snprintf(cnt, sizeof cnt, "%lld", (long long)cg_meta_numel(im));
    for (int j = 0; j < k; j++)
        snprintf(dl[j], sizeof dl[j], "%lld", (long long)xd[nd ? j : axis]);
    if (!nd) cg_dim_expr(c, n->args[0].u.node, axis, dl[0], sizeof dl[0]); /* its actual length */
    emit_index_check(c, n, ix, di, cnt, k, dl);
    sb_printf(&c->body, "    {\n");
    const int *ex = c->bnd && !nd ? cg_dyn_of(c->bnd, n->args[0].u.node) : NULL;
    if (ex && axis == 0 && ex[0] >= 0) { /* along a data-dependent first dim: indices checked against its extent */
        sb_printf(&c->body, "        const long xshape[%d] = {(long)%s", xm->rank, dl[0]);
        for (int d = 1; d < xm->rank; d++)
            sb_printf(&c->body, ", %lld", (long long)xd[d]);
        sb_printf(&c->body, "};\n");
    } else {
        emit_longs(&c->body, "xshape", xm->rank, xd);
    }
    if (nd) {
        const int64_t q = cg_meta_numel(im) / k, slice = infer_prod(xm, k, xm->rank);
        sb_printf(&c->body, "        nnfx_rt_scatter_nd(%s, %s, %d, %s, %d, %d, xshape, %lld, %d, %lld, %d);\n    }\n",
                  y, ix, tcode(di), u, tcode(dx), xm->rank, (long long)q, k, (long long)slice, red);
        return NNFX_OK;
    }
    const int *ei = c->bnd ? cg_dyn_of(c->bnd, n->args[1].u.node) : NULL;
    if (ei && ei[0] >= 0) { /* indices and updates valid along their first dim up to an extent: those rows */
        char e0[64];
        cg_dim_expr(c, n->args[1].u.node, 0, e0, sizeof e0);
        sb_printf(&c->body, "        const long ishape[%d] = {(long)%s", im->rank, e0);
        for (int d = 1; d < im->rank; d++)
            sb_printf(&c->body, ", %lld", (long long)id[d]);
        sb_printf(&c->body, "};\n");
    } else {
        emit_longs(&c->body, "ishape", im->rank, id);
    }
    sb_printf(&c->body, "        nnfx_rt_scatter_elements(%s, %s, %d, %s, %d, %d, xshape, ishape, %d, %d);\n    }\n", y,
              ix, tcode(di), u, tcode(dx), xm->rank, axis, red);
    return NNFX_OK;
}

static nnfx_status emit_one_hot(cg *c, const fx_step_view *s, nnfx_dtype dy) {
    const nnfx_node *n = s->last;
    const nnfx_meta *ym = &n->meta[0];
    const nnfx_dtype di = in_dtype(c, s, 0), dv = in_dtype(c, s, 2);
    char ix[96], v[96], y[96];
    int axis;
    nnfx_status st;
    if (tcode(di) < 0 || tcode(dv) < 0 || !infer_axis(ir_attr_int(n, "axis"), ym->rank, false, &axis))
        return cg_unsupported(c, n, "one_hot of indices and values of types generated C holds along a valid axis");
    if ((st = typed_in(c, s, 0, di, ix, sizeof ix)) || (st = typed_in(c, s, 2, dv, v, sizeof v)) ||
        (st = typed_out(c, s->out, dy, n, y, sizeof y)))
        return st;
    if (cg_meta_numel(ym) == 0) return NNFX_OK;
    cg_use_section(c, "one_hot");
    sb_printf(&c->body, "    nnfx_rt_one_hot(%s, %d, %s, %d, %s, %d, %lld, %lld, %lld);\n", ix, tcode(di), v, tcode(dv),
              y, tcode(dy), (long long)infer_prod(ym, 0, axis), (long long)ym->dims[axis].value,
              (long long)infer_prod(ym, axis + 1, ym->rank));
    return NNFX_OK;
}

static nnfx_status emit_eye_like(cg *c, const fx_step_view *s, nnfx_dtype dy) {
    const nnfx_node *n = s->last;
    const nnfx_meta *ym = &n->meta[0];
    char y[96];
    nnfx_status st;
    if (ym->rank != 2) return cg_unsupported(c, n, "eye_like needs a 2-d input");
    if ((st = typed_out(c, s->out, dy, n, y, sizeof y))) return st;
    cg_use_section(c, "eye_like");
    sb_printf(&c->body, "    nnfx_rt_eye_like(%s, %d, %lld, %lld, %lld);\n", y, tcode(dy), (long long)ym->dims[0].value,
              (long long)ym->dims[1].value, (long long)ir_attr_int(n, "k"));
    return NNFX_OK;
}

/* NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss of a float32 input. */
static nnfx_status emit_loss(cg *c, const fx_step_view *s) {
    const nnfx_node *n = s->last;
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    const nnfx_dtype dt = in_dtype(c, s, 1);
    const bool sce = n->op == NNFX_OP_SCE_LOSS, has_w = s->nin > 2 && s->in[2] >= 0;
    const char *r = ir_attr_string(n, "reduction");
    const int red = strcmp(r, "none") == 0 ? 0 : strcmp(r, "sum") == 0 ? 1 : strcmp(r, "mean") == 0 ? 2 : -1;
    char x[64], tg[96], w[64] = "0", y[64], lp[64] = "0";
    nnfx_status st;
    if (!xm || xm->dtype != NNFX_F32 || xm->rank < 2 || !index_dtype(dt) || red < 0 ||
        (has_w && in_dtype(c, s, 2) != NNFX_F32) || n->meta[0].dtype != NNFX_F32 ||
        (s->nout > 1 && n->meta[1].dtype != NNFX_F32))
        return cg_unsupported(c, n, "a loss of float32 scores, int32/int64 targets and float32 weights is generated");
    if ((st = float_in(c, s, 0, x, sizeof x)) || (st = typed_in(c, s, 1, dt, tg, sizeof tg)) ||
        (has_w && (st = float_in(c, s, 2, w, sizeof w))) || (st = cg_value_expr(c, s->out, n, y, sizeof y)) ||
        (sce && s->nout > 1 && s->outs[1] >= 0 && (st = cg_value_expr(c, s->outs[1], n, lp, sizeof lp))))
        return st;
    const int64_t N = xm->dims[0].value, C = xm->dims[1].value, D = infer_prod(xm, 2, xm->rank);
    const nnfx_attr *ii = nnfx_node_attr(n, "ignore_index");
    cg_use_section(c, sce ? "sce_loss" : "nll_loss");
    if (sce)
        sb_printf(&c->body, "    nnfx_rt_sce_loss(%s, %s, %s, %d, %s, %s, %lld, %lld, %lld, %d, %lldLL, %d);\n", x, lp,
                  tg, tcode(dt), w, y, (long long)N, (long long)C, (long long)D, ii != NULL,
                  (long long)nnfx_node_attr_int(n, "ignore_index", 0), red);
    else
        sb_printf(&c->body, "    nnfx_rt_nll_loss(%s, %s, %d, %s, %s, %lld, %lld, %lld, %d, %lldLL, %d);\n", x, tg,
                  tcode(dt), w, y, (long long)N, (long long)C, (long long)D, ii != NULL,
                  (long long)nnfx_node_attr_int(n, "ignore_index", 0), red);
    return NNFX_OK;
}

/* Whether every one of step s's first k inputs has a type generated C
 * holds. */
static bool inputs_typed(cg *c, const fx_step_view *s, int k) {
    for (int a = 0; a < k; a++)
        if (a >= s->nin || s->in[a] < 0 || tcode(in_dtype(c, s, a)) < 0) return false;
    return true;
}

/* Emits step s, an op cg_emit_typed_op has taken, by its emitter (d0, d1:
 * the types of its first two inputs; dy: of its output). */
static nnfx_status emit_typed_chosen(cg *c, const fx_step_view *s, nnfx_dtype d0, nnfx_dtype d1, nnfx_dtype dy) {
    const nnfx_node *n = s->last;
    switch (n->op) {
    case NNFX_OP_CAST:
    case NNFX_OP_CAST_LIKE: return emit_cast(c, s, d0, dy);
    case NNFX_OP_WHERE: return emit_where(c, s, dy);
    case NNFX_OP_NOT:
    case NNFX_OP_IS_NAN:
    case NNFX_OP_IS_INF: return emit_predicate(c, s, d0);
    case NNFX_OP_TRILU: return emit_trilu(c, s, d0);
    case NNFX_OP_GATHER_ELEMENTS: return emit_gather_elements(c, s, d0);
    case NNFX_OP_GATHER: return emit_gather(c, s, d0);
    case NNFX_OP_GATHER_ND: return emit_gather_nd(c, s, d0);
    case NNFX_OP_MAX_UNPOOL: return emit_max_unpool(c, s, d0);
    case NNFX_OP_ROI_ALIGN: return emit_roi_align(c, s, d0);
    case NNFX_OP_TFIDF: return emit_tfidf(c, s, d0);
    case NNFX_OP_CLIP: return emit_iclip(c, s, d0);
    case NNFX_OP_DROPOUT: return emit_dropout(c, s);
    case NNFX_OP_CUM_SUM: return emit_cumsum(c, s, d0);
    case NNFX_OP_SCATTER:
    case NNFX_OP_SCATTER_ELEMENTS:
    case NNFX_OP_SCATTER_ND: return emit_scatter(c, s, d0);
    case NNFX_OP_ONE_HOT: return emit_one_hot(c, s, dy);
    case NNFX_OP_EYE_LIKE: return emit_eye_like(c, s, dy);
    case NNFX_OP_NLL_LOSS:
    case NNFX_OP_SCE_LOSS: return emit_loss(c, s);
    default: return emit_binary(c, s, d0, d1, dy);
    }
}

nnfx_status cg_emit_typed_op(cg *c, const fx_step_view *s, bool *handled) {
    const nnfx_node *n = s->last;
    const nnfx_dtype dy = n->meta[0].dtype, d0 = in_dtype(c, s, 0), d1 = in_dtype(c, s, 1);
    *handled = false;
    if (tcode(dy) < 0) return NNFX_OK;
    if (dy == NNFX_U64 || d0 == NNFX_U64 || d1 == NNFX_U64) { /* the ops the interpreter takes uint64 for */
        switch (n->op) {
        case NNFX_OP_MIN:
        case NNFX_OP_MAX:
        case NNFX_OP_MOD:
        case NNFX_OP_BIT_SHIFT:
        case NNFX_OP_POW:
        case NNFX_OP_WHERE: break;
        default:
            *handled = true;
            return cg_unsupported(c, n,
                                  "on uint64 values only Min, Max, Mod (in double, as the interpreter), BitShift, "
                                  "Pow's exponent, Where and moves of data are generated");
        }
    }
    if ((dy == NNFX_F64 || dy == NNFX_F16) && d0 == dy && s->nin == 1 && kern_double_unary(n->op)) {
        *handled = true;
        return emit_funary(c, s, dy);
    }
    switch (n->op) {
    case NNFX_OP_QLINEAR_CONV:
    case NNFX_OP_QLINEAR_MATMUL:
    case NNFX_OP_CONV_INTEGER:
    case NNFX_OP_MATMUL_INTEGER:
    case NNFX_OP_DYNAMIC_QUANTIZE_LINEAR: *handled = true; return cg_emit_qlinear(c, s);
    case NNFX_OP_MEL_WEIGHT_MATRIX: *handled = true; return emit_mel_weight_matrix(c, s, dy);
    case NNFX_OP_ADD:
    case NNFX_OP_SUB:
    case NNFX_OP_MUL:
    case NNFX_OP_DIV:
    case NNFX_OP_MOD:
    case NNFX_OP_MIN:
    case NNFX_OP_MAX:
    case NNFX_OP_AND:
    case NNFX_OP_OR:
    case NNFX_OP_XOR:
    case NNFX_OP_BITWISE_AND:
    case NNFX_OP_BITWISE_OR:
    case NNFX_OP_BITWISE_XOR:
    case NNFX_OP_BIT_SHIFT:
        if (s->nin != 2 || !inputs_typed(c, s, 2) || d0 != dy || d1 != dy) return NNFX_OK;
        if (dy == NNFX_F64 || dy == NNFX_F16 || (dy == NNFX_U64 && n->op != NNFX_OP_BIT_SHIFT)) {
            /* the interpreter's float64 / float16 / uint64 Min, Max, Mod (and float64 / float16 arithmetic), in
             * double */
            const bool arith = dy != NNFX_U64 && (n->op == NNFX_OP_ADD || n->op == NNFX_OP_SUB ||
                                                  n->op == NNFX_OP_MUL || n->op == NNFX_OP_DIV);
            if (n->op != NNFX_OP_MIN && n->op != NNFX_OP_MAX && n->op != NNFX_OP_MOD && !arith) return NNFX_OK;
        } else if (dy == NNFX_F32 || !int_fn(n)) {
            return NNFX_OK;
        }
        break;
    case NNFX_OP_POW:
        if ((dy == NNFX_F32 && d0 == NNFX_F32 && d1 == NNFX_F32) || s->nin != 2 || !inputs_typed(c, s, 2) || d0 != dy)
            return NNFX_OK;
        break;
    case NNFX_OP_GREATER:
    case NNFX_OP_LESS:
    case NNFX_OP_GREATER_OR_EQUAL:
    case NNFX_OP_LESS_OR_EQUAL:
    case NNFX_OP_EQUAL:
        /* two float32 operands: emit_ctrl.c's gen_compare */
        if (dy != NNFX_BOOL || s->nin != 2 || !inputs_typed(c, s, 2) || d0 != d1 || d0 == NNFX_F32) return NNFX_OK;
        break;
    case NNFX_OP_CAST:
    case NNFX_OP_CAST_LIKE:
        if (!inputs_typed(c, s, 1)) return NNFX_OK;
        /* emit_moves.c's own: float32 to int64 / bool, int64 to float32, a type to itself */
        if (n->op == NNFX_OP_CAST && ((d0 == NNFX_F32 && (dy == NNFX_I64 || dy == NNFX_BOOL || dy == NNFX_F32)) ||
                                      (d0 == NNFX_I64 && dy == NNFX_F32) || d0 == dy))
            return NNFX_OK;
        break;
    case NNFX_OP_WHERE:
    case NNFX_OP_NOT:
    case NNFX_OP_IS_NAN:
    case NNFX_OP_IS_INF:
    case NNFX_OP_TRILU:
    case NNFX_OP_GATHER_ELEMENTS:
    case NNFX_OP_SCATTER:
    case NNFX_OP_SCATTER_ELEMENTS:
    case NNFX_OP_SCATTER_ND:
    case NNFX_OP_ONE_HOT:
    case NNFX_OP_EYE_LIKE:
    case NNFX_OP_NLL_LOSS:
    case NNFX_OP_SCE_LOSS: break;
    case NNFX_OP_GATHER:
        if (dy == NNFX_F32 && in_const(c, s, 1)) return NNFX_OK; /* emit_moves.c's constant-index gather */
        break;
    case NNFX_OP_GATHER_ND:
    case NNFX_OP_MAX_UNPOOL:
    case NNFX_OP_ROI_ALIGN:
    case NNFX_OP_TFIDF: break;
    case NNFX_OP_CUM_SUM:
        if (d0 != dy) return NNFX_OK; /* every type, float32 too: sums in double, as the interpreter's */
        break;
    case NNFX_OP_CLIP:
        if (dy == NNFX_F32 || dy == NNFX_BOOL || d0 != dy) return NNFX_OK;
        break;
    case NNFX_OP_NEG:
    case NNFX_OP_ABS:
    case NNFX_OP_SIGN:
    case NNFX_OP_BITWISE_NOT:
    case NNFX_OP_RELU: /* of integers: wrapping, as the interpreter's */
        if (!kern_rt_unary_int(dy) || d0 != dy) return NNFX_OK;
        *handled = true;
        return emit_iunary(c, s, dy);
    case NNFX_OP_MAX_POOL: /* float32: emit_ops.c's pools; other types as the interpreter, through double */
        if (dy == NNFX_F32 || d0 != dy) return NNFX_OK;
        *handled = true;
        return cg_emit_maxpool_idx(c, s);
    case NNFX_OP_DROPOUT: break; /* a step only with its mask or a training_mode read at run time */
    default:
        if ((dy == NNFX_F64 || d0 == NNFX_F64 || dy == NNFX_F16 || d0 == NNFX_F16) &&
            !(ir_op_info(n->op)->flags & NNFX_F_VIEW)) {
            *handled = true;
            return cg_unsupported(c, n,
                                  "on float64 and float16 values only Cast, CastLike, Add, Sub, Mul, Div, Pow, Min, "
                                  "Max, Mod, CumSum, Where, IsNaN, IsInf, the one-input math ops (Abs, Neg, Sqrt, "
                                  "Exp, Log, Sigmoid, Tanh, Erf, Floor, Ceil, Round, Sign, Sin, Cos, Tan, Atan, Relu, "
                                  "Reciprocal) and moves of data are generated");
        }
        return NNFX_OK;
    }
    *handled = true;
    return emit_typed_chosen(c, s, d0, d1, dy);
}

int cg_tcode(nnfx_dtype dt) { return tcode(dt); }

nnfx_status cg_typed_in(cg *c, const fx_step_view *s, int a, nnfx_dtype dt, char *buf, size_t len) {
    return typed_in(c, s, a, dt, buf, len);
}

nnfx_status cg_value_bytes(cg *c, int v, nnfx_dtype dt, const nnfx_node *user, char *buf, size_t len) {
    fx_value_view vv = fx_plan_value_view(c->p, v);
    if (vv.kind == FX_VALUE_CONST && vv.t->dtype != NNFX_F32) {
        if (tcode(vv.t->dtype) < 0 || vv.t->dtype != dt)
            return cg_unsupported(c, user, "a constant of a type generated C lacks");
        typed_const(c, v, vv.t, user, buf, len);
        return NNFX_OK;
    }
    char e[64];
    nnfx_status st = cg_value_typed(c, v, dt, user, e, sizeof e);
    if (st) return st;
    snprintf(buf, len, "((const unsigned char *)%s)", e);
    return NNFX_OK;
}

nnfx_status cg_typed_out(cg *c, int v, nnfx_dtype dt, const nnfx_node *n, char *buf, size_t len) {
    return typed_out(c, v, dt, n, buf, len);
}
