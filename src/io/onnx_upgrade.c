/* onnx_upgrade.c — older ONNX opsets to the IR's canonical (latest) form.
 *
 * The op table follows the latest opset, where several former attributes
 * are inputs. A node from an older opset gets those attributes as int64 /
 * float parameters feeding the matching inputs:
 *   Clip min/max (<11), Squeeze/Unsqueeze axes (<13), Split split (<13),
 *   the other Reduce ops' axes (<18), ReduceSum axes (<13), Pad pads/value
 *   (<11), Slice starts/ends/axes (<10), Dropout ratio (<12), Reshape shape
 *   (<5); Upsample and Resize-10 become Resize-11+ with the old
 *   (asymmetric, floor) coordinate rules; Concat gets its old default axis;
 *   Softmax/LogSoftmax before 13 (2-D coercion) are expanded by the caller.
 * Legacy attributes without meaning today (consumed_inputs, is_test,
 * broadcast, spatial=1) are dropped. */
#include <stdlib.h>
#include <string.h>

#include "io/onnx_import_int.h"

/* Appends a string attribute to n (owned by n). */
static nnfx_status add_attr(imp *im, imp_node *n, const char *name, int type, const char *s, int64_t i) {
    imp_attr *a = realloc(n->attrs, sizeof *a * (size_t)(n->nattrs + 1));
    if (!a) return nnfx_error_set(im->err, NNFX_ERR_NOMEM, "out of memory");
    n->attrs = a;
    imp_attr *na = &a[n->nattrs];
    memset(na, 0, sizeof *na);
    na->name = ir_strdup(name);
    na->type = type;
    na->i = i;
    na->s = s ? ir_strdup(s) : NULL;
    na->off = n->off;
    n->nattrs++;
    if (!na->name || (s && !na->s)) return nnfx_error_set(im->err, NNFX_ERR_NOMEM, "out of memory");
    return NNFX_OK;
}

/* Moves int attribute list `name` to input position pos (if present). */
static nnfx_status ints_to_input(imp *im, imp_node *n, const char *name, nnfx_arg *args, int *nargs, int pos) {
    imp_attr *a = imp_find_attr(n, name);
    if (!a) return NNFX_OK;
    a->used = true;
    if (a->type != PB_AT_INTS)
        return imp_node_fail(im, n, NNFX_ERR_PARSE, "attribute '%s' should be a list of ints", name);
    nnfx_status st = imp_const_i64(im, n, name, a->ints, a->nints, &args[pos]);
    if (st) return st;
    for (int i = *nargs; i < pos; i++)
        args[i] = nnfx_arg_none();
    if (*nargs <= pos) *nargs = pos + 1;
    return NNFX_OK;
}

/* Moves float attribute `name` to input position pos (if present). */
static nnfx_status float_to_input(imp *im, imp_node *n, const char *name, nnfx_arg *args, int *nargs, int pos) {
    imp_attr *a = imp_find_attr(n, name);
    if (!a) return NNFX_OK;
    a->used = true;
    double v = a->type == PB_AT_INT ? (double)a->i : a->f;
    if (a->type != PB_AT_FLOAT && a->type != PB_AT_INT)
        return imp_node_fail(im, n, NNFX_ERR_PARSE, "attribute '%s' should be a float", name);
    nnfx_status st = imp_const_f32(im, n, name, (float)v, &args[pos]);
    if (st) return st;
    for (int i = *nargs; i < pos; i++)
        args[i] = nnfx_arg_none();
    if (*nargs <= pos) *nargs = pos + 1;
    return NNFX_OK;
}

static void drop(imp_node *n, const char *name) {
    imp_attr *a = imp_find_attr(n, name);
    if (a) a->used = true;
}

/* Upsample-7/8/9 and Resize-10 as today's Resize: scales from the
 * attribute or input 1, the old (asymmetric, floor) coordinate rules. */
static nnfx_status upgrade_resize(imp *im, imp_node *n, nnfx_op *op, nnfx_arg *args, int *nargs) {
    nnfx_status st;
    /* Upsample-7/8: scales attribute; Upsample-9 and Resize-10: scales input 1 */
    *op = NNFX_OP_RESIZE;
    nnfx_arg scales = *nargs > 1 ? args[1] : nnfx_arg_none();
    imp_attr *sa = imp_find_attr(n, "scales");
    if (sa) {
        sa->used = true;
        if (sa->type != PB_AT_FLOATS)
            return imp_node_fail(im, n, NNFX_ERR_PARSE, "attribute 'scales' should be a list of floats");
        int64_t dims[1] = {sa->nfloats};
        nnfx_tensor *ts = nnfx_tensor_from_floats(1, dims, sa->floats, im->err);
        if (!ts || (st = imp_const_arg(im, n, "scales", ts, &scales))) return ts ? st : im->err->status;
    }
    args[1] = nnfx_arg_none(); /* roi */
    args[2] = scales;
    *nargs = 3;
    imp_attr *mode = imp_find_attr(n, "mode");
    if (mode && mode->s && strcmp(mode->s, "bilinear") == 0) {
        free(mode->s);
        mode->s = ir_strdup("linear");
        if (!mode->s) return nnfx_error_set(im->err, NNFX_ERR_NOMEM, "out of memory");
    }
    /* decide before add_attr: it may move n->attrs, and mode with them */
    bool nearest = !mode || !mode->s || strcmp(mode->s, "nearest") == 0;
    if ((st = add_attr(im, n, "coordinate_transformation_mode", PB_AT_STRING, "asymmetric", 0))) return st;
    if (nearest && (st = add_attr(im, n, "nearest_mode", PB_AT_STRING, "floor", 0))) return st;
    return NNFX_OK;
}

int64_t onnx_axes_input_opset(nnfx_op op) {
    switch (op) {
    case NNFX_OP_SQUEEZE:
    case NNFX_OP_UNSQUEEZE:
    case NNFX_OP_REDUCE_SUM: return 13;
    default: return nnfx_op_flags(op) & NNFX_F_REDUCE ? 18 : 0;
    }
}

/* Attributes of opset v that later opsets take as inputs become constant
 * inputs. */
static nnfx_status attrs_to_inputs(imp *im, imp_node *n, nnfx_op op, int64_t v, nnfx_arg *args, int *nargs) {
    nnfx_status st = NNFX_OK;
    int64_t axes_opset = onnx_axes_input_opset(op);
    if (v < axes_opset) return ints_to_input(im, n, "axes", args, nargs, 1);
    switch (op) {
    case NNFX_OP_CLIP:
        if (v < 11) {
            if ((st = float_to_input(im, n, "min", args, nargs, 1))) return st;
            if ((st = float_to_input(im, n, "max", args, nargs, 2))) return st;
        }
        break;
    case NNFX_OP_SPLIT:
        if (v < 13) st = ints_to_input(im, n, "split", args, nargs, 1);
        break;
    case NNFX_OP_PAD:
        if (v < 11) {
            if ((st = ints_to_input(im, n, "pads", args, nargs, 1))) return st;
            st = float_to_input(im, n, "value", args, nargs, 2);
        }
        break;
    case NNFX_OP_SLICE:
        if (v < 10) {
            if ((st = ints_to_input(im, n, "starts", args, nargs, 1))) return st;
            if ((st = ints_to_input(im, n, "ends", args, nargs, 2))) return st;
            st = ints_to_input(im, n, "axes", args, nargs, 3);
        }
        break;
    case NNFX_OP_DROPOUT:
        if (v < 12) st = float_to_input(im, n, "ratio", args, nargs, 1);
        break;
    case NNFX_OP_RESHAPE:
        if (v < 5) st = ints_to_input(im, n, "shape", args, nargs, 1);
        break;
    default: break;
    }
    return st;
}

/* Other forms of opset v: Concat's old default axis, BatchNormalization's
 * spatial, Softmax's 2-D coercion (*expand_softmax), legacy broadcasting. */
static nnfx_status legacy_forms(imp *im, imp_node *n, nnfx_op *op, int64_t v, nnfx_arg *args, bool *expand_softmax) {
    nnfx_status st = NNFX_OK;
    switch (*op) {
    case NNFX_OP_CONCAT:
        if (v < 4 && !imp_find_attr(n, "axis")) st = add_attr(im, n, "axis", PB_AT_INT, NULL, 1);
        break;
    case NNFX_OP_BATCH_NORM: {
        imp_attr *sp = imp_find_attr(n, "spatial");
        if (sp) {
            sp->used = true;
            if (sp->i != 1)
                return imp_node_fail(im, n, NNFX_ERR_UNSUPPORTED,
                                     "BatchNormalization with spatial=0 (opset %lld) is not supported", (long long)v);
        }
        break;
    }
    case NNFX_OP_SOFTMAX:
    case NNFX_OP_LOG_SOFTMAX:
        if (v < 13) {
            /* before 13 the input was coerced to 2-D at `axis` (default 1) */
            imp_attr *ax = imp_find_attr(n, "axis");
            int64_t axis = ax ? ax->i : 1;
            const nnfx_meta *m = args[0].kind == NNFX_ARG_NODE ? nnfx_node_meta_c(args[0].u.node, 0) : NULL;
            bool last = axis == -1 || (m && m->rank > 0 && (axis == m->rank - 1 || axis == -1));
            if (last) {
                if (!ax) st = add_attr(im, n, "axis", PB_AT_INT, NULL, axis);
            } else {
                *expand_softmax = true;
            }
        }
        break;
    case NNFX_OP_ADD:
    case NNFX_OP_SUB:
    case NNFX_OP_MUL:
    case NNFX_OP_DIV:
    case NNFX_OP_POW:
    case NNFX_OP_GEMM:
        if (v < 7) {
            drop(n, "broadcast");
            if (*op != NNFX_OP_GEMM && imp_find_attr(n, "axis"))
                return imp_node_fail(im, n, NNFX_ERR_UNSUPPORTED,
                                     "legacy broadcasting with an 'axis' attribute (opset %lld) is not supported",
                                     (long long)v);
        }
        break;
    default: break;
    }
    return st;
}

nnfx_status onnx_upgrade_node(imp *im, imp_node *n, nnfx_op *op, nnfx_arg *args, int *nargs, bool *expand_softmax) {
    int64_t v = im->opset;
    const char *t = n->op_type;
    nnfx_status st;
    *expand_softmax = false;
    drop(n, "consumed_inputs");
    drop(n, "is_test");
    if (strcmp(t, "Upsample") == 0 || (strcmp(t, "Resize") == 0 && v < 11))
        return upgrade_resize(im, n, op, args, nargs);
    if ((st = attrs_to_inputs(im, n, *op, v, args, nargs))) return st;
    return legacy_forms(im, n, op, v, args, expand_softmax);
}
