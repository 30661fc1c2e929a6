/* onnx_import.c — ONNX ModelProto -> nnfx_graph.
 *
 * Graph inputs that are not initializers become placeholders (meta from
 * their types; dim_param -> symbolic dims); initializers and Constant nodes
 * become parameters (named by the ONNX value name) read by get_attr nodes
 * created at first use; other nodes become call_function nodes of the op
 * whose ONNX type matches, after older opsets are upgraded to the IR's
 * canonical form (onnx_upgrade.c). Multi-output nodes are tuples read by
 * getitem nodes. Node names are the ONNX output names (sanitised; the
 * originals are kept in the model info for export), value_info and graph
 * output types become node meta. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_int.h"
#include "io/onnx_import_int.h"

/* --- small helpers ------------------------------------------------------------ */

nnfx_status imp_node_fail(imp *im, const imp_node *n, nnfx_status s, const char *fmt, ...) {
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *name = n->name && *n->name ? n->name : (n->nout > 0 && n->out[0][0] ? n->out[0] : "?");
    return nnfx_error_set(im->err, s, "%s: node %s (%s) at byte %zu: %s", im->lc.what, name,
                          n->op_type ? n->op_type : "?", n->off, msg);
}

imp_attr *imp_find_attr(imp_node *n, const char *name) {
    for (int i = 0; i < n->nattrs; i++)
        if (n->attrs[i].name && strcmp(n->attrs[i].name, name) == 0) return &n->attrs[i];
    return NULL;
}

static nnfx_status oom(imp *im) { return nnfx_error_set(im->err, NNFX_ERR_NOMEM, "out of memory"); }

/* Registers ONNX value `name`; returns the entry (NULL and err set on OOM or
 * a duplicate definition). */
static imp_value *value_add(imp *im, const char *name, size_t off) {
    if (ir_strmap_get(&im->values, name)) {
        nnfx_error_set(im->err, NNFX_ERR_PARSE, "%s: value '%s' is defined twice (at byte %zu)", im->lc.what, name,
                       off);
        return NULL;
    }
    if (im->nvals == im->cap_vals) {
        int nc = im->cap_vals ? im->cap_vals * 2 : 64;
        imp_value **nv = realloc(im->vals, sizeof *nv * (size_t)nc);
        if (!nv) return oom(im), NULL;
        im->vals = nv;
        im->cap_vals = nc;
    }
    imp_value *v = calloc(1, sizeof *v);
    if (!v || !(v->name = ir_strdup(name))) {
        free(v);
        return oom(im), NULL;
    }
    im->vals[im->nvals++] = v;
    if (!ir_strmap_put(&im->values, v->name, v)) return oom(im), NULL;
    return v;
}

/* Records that node name differs from the ONNX value name. */
static nnfx_status remember_name(imp *im, const nnfx_node *node, const char *onnx_name) {
    if (strcmp(nnfx_node_name(node), onnx_name) == 0) return NNFX_OK;
    if (!onnx_kv_push(&im->info->names, &im->info->nnames, &im->info->cap_names, nnfx_node_name(node), onnx_name))
        return oom(im);
    return NNFX_OK;
}

/* Records that node's name differs from the ONNX node's own name. */
static nnfx_status remember_node_name(imp *im, const nnfx_node *node, const char *onnx_node_name) {
    if (!onnx_node_name || !onnx_node_name[0] || strcmp(nnfx_node_name(node), onnx_node_name) == 0) return NNFX_OK;
    if (!onnx_kv_push(&im->info->node_names, &im->info->nnode_names, &im->info->cap_node_names, nnfx_node_name(node),
                      onnx_node_name))
        return oom(im);
    return NNFX_OK;
}

/* A parameter name not used by a parameter or an ONNX value yet. */
static char *unique_param_name(imp *im, const char *base) {
    size_t n = strlen(base) + 24;
    char *s = malloc(n);
    if (!s) return NULL;
    snprintf(s, n, "%s", base);
    for (int k = 1; ir_graph_param_raw(im->g, s) || ir_strmap_get(&im->values, s); k++)
        snprintf(s, n, "%s_%d", base, k);
    return s;
}

nnfx_status imp_const_arg(imp *im, const imp_node *n, const char *role, nnfx_tensor *t, nnfx_arg *out) {
    const char *owner = n->nout > 0 && n->out[0][0] ? n->out[0] : (n->name ? n->name : "const");
    size_t len = strlen(owner) + strlen(role) + 2;
    char *base = malloc(len);
    char *name = NULL;
    nnfx_status st = NNFX_OK;
    if (!base) {
        st = oom(im);
        goto out;
    }
    snprintf(base, len, "%s_%s", owner, role);
    if (!(name = unique_param_name(im, base))) {
        st = oom(im);
        goto out;
    }
    if ((st = nnfx_graph_set_param(im->g, name, t, im->err))) goto out;
    nnfx_node *ga = nnfx_graph_get_attr(im->g, name, im->err);
    if (!ga) {
        st = im->err->status;
        goto out;
    }
    *out = nnfx_arg_node(ga);
out:
    nnfx_tensor_release(t);
    free(base);
    free(name);
    return st;
}

nnfx_status imp_const_i64(imp *im, const imp_node *n, const char *role, const int64_t *v, int count, nnfx_arg *out) {
    int64_t dims[1] = {count};
    nnfx_tensor *t = nnfx_tensor_new(NNFX_I64, 1, dims, im->err);
    if (!t) return im->err->status;
    if (count) memcpy(t->data, v, sizeof *v * (size_t)count);
    return imp_const_arg(im, n, role, t, out);
}

nnfx_status imp_const_f32(imp *im, const imp_node *n, const char *role, float v, nnfx_arg *out) {
    nnfx_tensor *t = nnfx_tensor_scalar_f32(v, im->err);
    if (!t) return im->err->status;
    return imp_const_arg(im, n, role, t, out);
}

/* True when a graph enclosing im's defines value name. */
static bool outer_defines(const imp *im, const char *name) {
    for (const imp *p = im->parent; p; p = p->parent)
        if (ir_strmap_get(&p->values, name)) return true;
    return false;
}

/* A placeholder of im's subgraph standing for outer value name (an
 * implicit capture made explicit); NULL on OOM. */
static imp_value *capture(imp *im, const char *name) {
    if (im->ncaps == im->cap_caps) {
        int nc = im->cap_caps ? im->cap_caps * 2 : 8;
        char **ns = realloc(im->caps, sizeof *ns * (size_t)nc);
        if (ns) im->caps = ns;
        nnfx_node **nn = ns ? realloc(im->cap_nodes, sizeof *nn * (size_t)nc) : NULL;
        if (nn) im->cap_nodes = nn;
        if (!ns || !nn) return oom(im), NULL;
        im->cap_caps = nc;
    }
    char *key = ir_strdup(name);
    nnfx_node *ph = key ? nnfx_graph_placeholder(im->g, name, NULL, im->err) : NULL;
    imp_value *v = ph ? value_add(im, name, 0) : NULL;
    if (!v) {
        free(key);
        if (!ph && !key) oom(im);
        return NULL;
    }
    v->node = ph;
    im->caps[im->ncaps] = key;
    im->cap_nodes[im->ncaps++] = ph;
    return v;
}

/* The argument for ONNX value `name` ("" -> absent); creates the get_attr
 * node of a parameter at its first use. */
static nnfx_status value_arg(imp *im, const imp_node *n, const char *name, nnfx_arg *out) {
    if (!name[0]) {
        *out = nnfx_arg_none();
        return NNFX_OK;
    }
    imp_value *v = ir_strmap_get(&im->values, name);
    if (!v && outer_defines(im, name) && !(v = capture(im, name))) return im->err->status;
    if (!v) {
        if (n) return imp_node_fail(im, n, NNFX_ERR_PARSE, "input '%s' is not defined before this node", name);
        return nnfx_error_set(im->err, NNFX_ERR_PARSE, "%s: graph output '%s' is not defined", im->lc.what, name);
    }
    if (!v->node) {
        if (v->pending) {
            nnfx_status st = nnfx_graph_set_param(im->g, v->param, v->pending, im->err);
            if (!st && v->constant) st = nnfx_graph_set_param_constant(im->g, v->param, true, im->err);
            nnfx_tensor_release(v->pending);
            v->pending = NULL;
            if (st) return st;
        }
        v->node = nnfx_graph_get_attr(im->g, v->param, im->err);
        if (!v->node) return im->err->status;
    }
    *out = nnfx_arg_node(v->node);
    return NNFX_OK;
}

/* --- types -------------------------------------------------------------------- */

/* Reads a TypeProto into meta. *is_tensor is false for sequence/map/optional
 * types (meta left unknown). */
static nnfx_status read_type(imp *im, ow_reader *r, nnfx_meta *m, bool *is_tensor) {
    m->dtype = NNFX_DTYPE_UNDEFINED;
    m->rank = -1;
    *is_tensor = false;
    ow_field f;
    int rc;
    while ((rc = ow_next(r, &f)) > 0) {
        if (f.num != PB_TYPE_TENSOR) continue;
        *is_tensor = true;
        ow_reader tt;
        if (ow_sub(r, &f, &tt)) return im->err->status;
        ow_field g;
        while ((rc = ow_next(&tt, &g)) > 0) {
            if (g.num == PB_TENSOR_TYPE_ELEM && g.wire == OW_VARINT) {
                m->dtype = onnx_dtype((int64_t)g.v);
                if (m->dtype == NNFX_DTYPE_UNDEFINED && g.v != 0)
                    return ow_fail(&tt, NNFX_ERR_UNSUPPORTED, g.off, "unsupported element type %s (%llu)",
                                   onnx_dtype_name((int64_t)g.v), (unsigned long long)g.v);
            } else if (g.num == PB_TENSOR_TYPE_SHAPE) {
                ow_reader sh;
                if (ow_sub(&tt, &g, &sh)) return im->err->status;
                m->rank = 0;
                ow_field d;
                while ((rc = ow_next(&sh, &d)) > 0) {
                    if (d.num != PB_SHAPE_DIM) continue;
                    if (m->rank >= NNFX_MAX_RANK)
                        return ow_fail(&sh, NNFX_ERR_UNSUPPORTED, d.tag_off, "tensor type has more than %d dims",
                                       NNFX_MAX_RANK);
                    nnfx_dim *dim = &m->dims[m->rank++];
                    dim->value = -1;
                    dim->symbol = NULL;
                    ow_reader dr;
                    if (ow_sub(&sh, &d, &dr)) return im->err->status;
                    ow_field e;
                    while ((rc = ow_next(&dr, &e)) > 0) {
                        if (e.num == PB_DIM_VALUE && e.wire == OW_VARINT) {
                            dim->value = (int64_t)e.v < 0 ? -1 : (int64_t)e.v;
                        } else if (e.num == PB_DIM_PARAM && e.wire == OW_LEN) {
                            char sym[NNFX_SYMBOL_MAX + 1];
                            size_t k = e.len < NNFX_SYMBOL_MAX ? e.len : NNFX_SYMBOL_MAX;
                            memcpy(sym, e.data, k);
                            sym[k] = 0;
                            for (size_t i = 0; i < k; i++)
                                if (!sym[i]) sym[i] = '_';
                            dim->symbol = nnfx_symbol(sym);
                            if (!dim->symbol)
                                return ow_fail(&dr, NNFX_ERR_NOMEM, e.tag_off, "out of memory for a dim name");
                        }
                    }
                    if (rc < 0) return im->err->status;
                }
                if (rc < 0) return im->err->status;
            }
        }
        if (rc < 0) return im->err->status;
    }
    return rc < 0 ? im->err->status : NNFX_OK;
}

/* Reads a ValueInfoProto: its name (malloc'd) and meta. */
static nnfx_status read_value_info(imp *im, ow_reader *r, char **name, nnfx_meta *m, bool *is_tensor) {
    *name = NULL;
    m->dtype = NNFX_DTYPE_UNDEFINED;
    m->rank = -1;
    *is_tensor = false;
    bool typed = false;
    ow_field f;
    int rc;
    while ((rc = ow_next(r, &f)) > 0) {
        if (f.num == PB_VI_NAME) {
            free(*name);
            if (ow_string(r, &f, name)) return im->err->status;
        } else if (f.num == PB_VI_TYPE) {
            ow_reader tr;
            if (ow_sub(r, &f, &tr) || read_type(im, &tr, m, is_tensor)) return im->err->status;
            typed = true;
        }
    }
    if (rc < 0) return im->err->status;
    if (!typed) *is_tensor = true; /* no type given (subgraph inputs may omit it): a tensor of unknown meta */
    if (!*name) *name = ir_strdup("");
    return *name ? NNFX_OK : oom(im);
}

/* --- nodes -------------------------------------------------------------------- */

static void attr_free(imp_attr *a) {
    free(a->name);
    free(a->s);
    free(a->ints);
    free(a->floats);
    nnfx_tensor_release(a->t);
}

static void node_free(imp_node *n) {
    free(n->name);
    free(n->op_type);
    free(n->domain);
    for (int i = 0; i < n->nin; i++)
        free(n->in[i]);
    for (int i = 0; i < n->nout; i++)
        free(n->out[i]);
    free(n->in);
    free(n->out);
    for (int i = 0; i < n->nattrs; i++)
        attr_free(&n->attrs[i]);
    free(n->attrs);
    memset(n, 0, sizeof *n);
}

static bool push_str(char ***arr, int *n, char *s) {
    char **na = realloc(*arr, sizeof *na * (size_t)(*n + 1));
    if (!na) return false;
    *arr = na;
    na[(*n)++] = s;
    return true;
}

static nnfx_status read_attr(imp *im, ow_reader *r, imp_attr *a) {
    ow_field f;
    int rc;
    bool has_f = false, has_i = false;
    while ((rc = ow_next(r, &f)) > 0) {
        switch (f.num) {
        case PB_ATTR_NAME:
            free(a->name);
            if (ow_string(r, &f, &a->name)) return im->err->status;
            break;
        case PB_ATTR_TYPE: a->type = (int)f.v; break;
        case PB_ATTR_F: {
            if (ow_expect(r, &f, OW_I32, "f")) return im->err->status;
            uint32_t u = (uint32_t)f.v;
            float x;
            memcpy(&x, &u, 4);
            a->f = x;
            has_f = true;
            break;
        }
        case PB_ATTR_I:
            if (ow_expect(r, &f, OW_VARINT, "i")) return im->err->status;
            a->i = (int64_t)f.v;
            has_i = true;
            break;
        case PB_ATTR_S:
            free(a->s);
            if (ow_string(r, &f, &a->s)) {
                /* binary strings are not meaningful for the ops nnfx knows */
                return im->err->status;
            }
            break;
        case PB_ATTR_T: {
            ow_reader tr;
            if (ow_sub(r, &f, &tr)) return im->err->status;
            nnfx_tensor_release(a->t);
            a->t = NULL;
            if (onnx_read_tensor(&im->lc, &tr, NULL, &a->t)) return im->err->status;
            break;
        }
        case PB_ATTR_INTS: {
            int64_t n = ow_count_varints(r, &f);
            if (n < 0) return im->err->status;
            if (n > INT32_MAX - a->nints) return ow_fail(r, NNFX_ERR_PARSE, f.off, "too many ints");
            int64_t *nv = realloc(a->ints, sizeof *nv * (size_t)(a->nints + n + 1));
            if (!nv) return oom(im);
            a->ints = nv;
            if (ow_get_varints(r, &f, nv + a->nints)) return im->err->status;
            a->nints += (int)n;
            break;
        }
        case PB_ATTR_FLOATS: {
            int64_t n = ow_count_fixed(r, &f, 4);
            if (n < 0) return im->err->status;
            if (n > INT32_MAX - a->nfloats) return ow_fail(r, NNFX_ERR_PARSE, f.off, "too many floats");
            float *nv = realloc(a->floats, sizeof *nv * (size_t)(a->nfloats + n + 1));
            if (!nv) return oom(im);
            a->floats = nv;
            if (ow_get_fixed32(r, &f, (uint32_t *)(void *)(nv + a->nfloats))) return im->err->status;
            a->nfloats += (int)n;
            break;
        }
        case PB_ATTR_STRINGS: { /* joined by commas (schema kind "strs") */
            char *item = NULL;
            if (ow_string(r, &f, &item)) return im->err->status;
            size_t old = a->s ? strlen(a->s) : 0, add = strlen(item);
            char *ns = realloc(a->s, old + add + 2);
            if (!ns) {
                free(item);
                return oom(im);
            }
            if (old) ns[old++] = ',';
            memcpy(ns + old, item, add + 1);
            a->s = ns;
            free(item);
            break;
        }
        case PB_ATTR_G:
            if (ow_sub(r, &f, &a->g)) return im->err->status;
            a->has_g = true;
            if (!a->type) a->type = PB_AT_GRAPH;
            break;
        default: break;
        }
    }
    if (rc < 0) return im->err->status;
    if (!a->name) return ow_fail(r, NNFX_ERR_PARSE, a->off, "attribute without a name");
    if (!a->type) { /* very old models omit the type */
        a->type = a->t         ? PB_AT_TENSOR
                  : a->s       ? PB_AT_STRING
                  : a->nfloats ? PB_AT_FLOATS
                  : a->nints   ? PB_AT_INTS
                  : has_f      ? PB_AT_FLOAT
                  : has_i      ? PB_AT_INT
                               : PB_AT_INTS;
    }
    return NNFX_OK;
}

static nnfx_status read_node(imp *im, ow_reader *r, imp_node *n) {
    ow_field f;
    int rc;
    while ((rc = ow_next(r, &f)) > 0) {
        char *s = NULL;
        switch (f.num) {
        case PB_NODE_INPUT:
        case PB_NODE_OUTPUT:
            if (ow_string(r, &f, &s)) return im->err->status;
            if (!(f.num == PB_NODE_INPUT ? push_str(&n->in, &n->nin, s) : push_str(&n->out, &n->nout, s))) {
                free(s);
                return oom(im);
            }
            break;
        case PB_NODE_NAME:
            free(n->name);
            if (ow_string(r, &f, &n->name)) return im->err->status;
            break;
        case PB_NODE_OP_TYPE:
            free(n->op_type);
            if (ow_string(r, &f, &n->op_type)) return im->err->status;
            break;
        case PB_NODE_DOMAIN:
            free(n->domain);
            if (ow_string(r, &f, &n->domain)) return im->err->status;
            break;
        case PB_NODE_ATTRIBUTE: {
            ow_reader ar;
            if (ow_sub(r, &f, &ar)) return im->err->status;
            imp_attr *na = realloc(n->attrs, sizeof *na * (size_t)(n->nattrs + 1));
            if (!na) return oom(im);
            n->attrs = na;
            memset(&na[n->nattrs], 0, sizeof *na);
            na[n->nattrs].off = f.tag_off;
            n->nattrs++;
            if (read_attr(im, &ar, &na[n->nattrs - 1])) return im->err->status;
            break;
        }
        default: break;
        }
    }
    if (rc < 0) return im->err->status;
    if (!n->op_type) return ow_fail(r, NNFX_ERR_PARSE, n->off, "node without an op_type");
    return NNFX_OK;
}

/* Converts the node's remaining attributes to nnfx_attrs per the op's
 * schema (*out malloc'd; the arrays point into n). */
static nnfx_status convert_attrs(imp *im, imp_node *n, nnfx_op op, nnfx_attr **out, int *nout) {
    *out = calloc((size_t)n->nattrs + 1, sizeof **out);
    *nout = 0;
    if (!*out) return oom(im);
    for (int i = 0; i < n->nattrs; i++) {
        imp_attr *a = &n->attrs[i];
        if (a->used) continue;
        nnfx_attr_kind kind;
        const char *dflt;
        if (!ir_schema_lookup(op, a->name, &kind, &dflt))
            return imp_node_fail(im, n, NNFX_ERR_UNSUPPORTED, "attribute '%s' is not supported (opset %" PRId64 ")",
                                 a->name, im->opset);
        nnfx_attr *d = &(*out)[(*nout)++];
        d->name = a->name;
        d->kind = kind;
        bool ok = true;
        switch (kind) {
        case NNFX_ATTR_INT:
            ok = a->type == PB_AT_INT;
            d->u.i = a->i;
            break;
        case NNFX_ATTR_FLOAT:
            ok = a->type == PB_AT_FLOAT || a->type == PB_AT_INT;
            d->u.f = a->type == PB_AT_INT ? (double)a->i : a->f;
            break;
        case NNFX_ATTR_STRING:
            ok = (a->type == PB_AT_STRING || (a->type == PB_AT_STRINGS && ir_schema_string_list(op, a->name))) && a->s;
            d->u.s = a->s;
            break;
        case NNFX_ATTR_INTS:
            ok = a->type == PB_AT_INTS;
            d->u.ints.v = a->ints;
            d->u.ints.n = a->nints;
            break;
        case NNFX_ATTR_FLOATS:
            ok = a->type == PB_AT_FLOATS;
            d->u.floats.v = a->floats;
            d->u.floats.n = a->nfloats;
            break;
        case NNFX_ATTR_TENSOR:
            ok = a->type == PB_AT_TENSOR && a->t;
            d->u.t = a->t;
            break;
        case NNFX_ATTR_GRAPH: ok = false; break; /* control-flow bodies: import_ctrl */
        }
        if (!ok)
            return imp_node_fail(im, n, NNFX_ERR_PARSE, "attribute '%s' has ONNX type %d, which does not fit the op",
                                 a->name, a->type);
    }
    return NNFX_OK;
}

/* Constant node -> parameter named by its output. */
static nnfx_status import_constant(imp *im, imp_node *n) {
    if (n->nout < 1 || !n->out[0][0]) return imp_node_fail(im, n, NNFX_ERR_PARSE, "Constant without an output");
    if (n->nattrs != 1) return imp_node_fail(im, n, NNFX_ERR_PARSE, "Constant needs exactly one value attribute");
    imp_attr *a = &n->attrs[0];
    nnfx_tensor *t = NULL;
    int64_t dims[1];
    if (strcmp(a->name, "value") == 0 && a->type == PB_AT_TENSOR && a->t) {
        t = nnfx_tensor_retain(a->t);
    } else if (strcmp(a->name, "value_float") == 0) {
        t = nnfx_tensor_scalar_f32((float)a->f, im->err);
    } else if (strcmp(a->name, "value_int") == 0) {
        t = nnfx_tensor_scalar_i64(a->i, im->err);
    } else if (strcmp(a->name, "value_floats") == 0) {
        dims[0] = a->nfloats;
        t = nnfx_tensor_from_floats(1, dims, a->floats, im->err);
    } else if (strcmp(a->name, "value_ints") == 0) {
        dims[0] = a->nints;
        t = nnfx_tensor_new(NNFX_I64, 1, dims, im->err);
        if (t && a->nints) memcpy(t->data, a->ints, sizeof(int64_t) * (size_t)a->nints);
    } else {
        return imp_node_fail(im, n, NNFX_ERR_UNSUPPORTED, "Constant attribute '%s' is not supported", a->name);
    }
    if (!t) return im->err->status;
    char *pname = unique_param_name(im, n->out[0]);
    imp_value *v = pname ? value_add(im, n->out[0], n->off) : NULL;
    if (!v) {
        free(pname);
        nnfx_tensor_release(t);
        return pname ? im->err->status : oom(im);
    }
    v->param = pname;
    v->pending = t;
    v->constant = true;
    return NNFX_OK;
}

/* Softmax/LogSoftmax before opset 13: reshape(op(flatten(x, axis), axis=-1), shape(x)). */
static nnfx_node *expand_softmax(imp *im, imp_node *n, nnfx_op op, nnfx_arg x) {
    imp_attr *ax = imp_find_attr(n, "axis");
    int64_t axis = ax ? ax->i : 1;
    nnfx_attr fa = nnfx_attr_int("axis", axis), sa = nnfx_attr_int("axis", -1);
    nnfx_node *shape = nnfx_graph_call_op(im->g, NNFX_OP_SHAPE, 1, &x, 0, NULL, im->err);
    if (!shape) return NULL;
    nnfx_node *flat = nnfx_graph_call_op(im->g, NNFX_OP_FLATTEN, 1, &x, 1, &fa, im->err);
    if (!flat) return NULL;
    nnfx_arg fx = nnfx_arg_node(flat);
    nnfx_node *sm = nnfx_graph_call_op(im->g, op, 1, &fx, 1, &sa, im->err);
    if (!sm) return NULL;
    nnfx_arg ra[2] = {nnfx_arg_node(sm), nnfx_arg_node(shape)};
    return nnfx_graph_call_op(im->g, NNFX_OP_RESHAPE, 2, ra, 0, NULL, im->err);
}

/* Gives node the ONNX value name (sanitised by the IR) and registers it. */
static nnfx_status bind_output(imp *im, imp_node *n, nnfx_node *node, const char *name) {
    if (nnfx_node_set_name(node, name, im->err)) return im->err->status;
    imp_value *v = value_add(im, name, n->off);
    if (!v) return im->err->status;
    v->node = node;
    return remember_name(im, node, name);
}

/* Names the first k outputs of node: one output is the node itself, more
 * are getitem nodes (the tuple node takes the ONNX node's name). */
static nnfx_status bind_outputs(imp *im, imp_node *n, nnfx_node *node, int k) {
    nnfx_status st;
    if (k == 1 && nnfx_node_num_outputs(node) == 1) {
        if (!(st = bind_output(im, n, node, n->out[0]))) st = remember_node_name(im, node, n->name);
        return st;
    }
    if (n->name && n->name[0] && (st = nnfx_node_set_name(node, n->name, im->err))) return st;
    if ((st = remember_node_name(im, node, n->name))) return st;
    for (int i = 0; i < k; i++) {
        if (!n->out[i][0]) continue;
        nnfx_node *gi = nnfx_graph_getitem(im->g, node, i, im->err);
        if (!gi) return im->err->status;
        if ((st = bind_output(im, n, gi, n->out[i]))) return st;
    }
    return NNFX_OK;
}

static nnfx_status opaque_run(void *user, int nin, nnfx_tensor *const *in, nnfx_tensor **out, nnfx_error *err) {
    return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "this op is not supported by nnfx (no kernel)");
}

static nnfx_status opaque_infer(void *user, int nin, const nnfx_meta *const *in, nnfx_meta *out, nnfx_error *err) {
    memset(out, 0, sizeof *out);
    out->dtype = NNFX_DTYPE_UNDEFINED;
    out->rank = -1;
    return NNFX_OK;
}

/* An op nnfx lacks, as an opaque call_module node (keep_unknown_ops of
 * nnfx_onnx_load_options). */
static nnfx_status import_opaque_node(imp *im, imp_node *n) {
    char target[300];
    bool other = n->domain && n->domain[0] && strcmp(n->domain, "ai.onnx") != 0;
    snprintf(target, sizeof target, NNFX_ONNX_OPAQUE_PREFIX "%s%s%s", other ? n->domain : "", other ? ":" : "",
             n->op_type ? n->op_type : "?");
    if (!ir_graph_leaf(im->g, target) &&
        nnfx_graph_register_leaf(im->g, target, opaque_run, opaque_infer, NULL, im->err))
        return im->err->status;
    nnfx_arg *args = calloc((size_t)n->nin + 1, sizeof *args);
    if (!args) return oom(im);
    nnfx_status st = NNFX_OK;
    for (int i = 0; i < n->nin && !st; i++)
        st = value_arg(im, n, n->in[i], &args[i]);
    nnfx_node *node = st ? NULL : nnfx_graph_call_module(im->g, target, n->nin, args, im->err);
    free(args);
    if (st) return st;
    if (!node) return im->err->status;
    if (n->nout > 0 && n->out[0][0]) st = bind_output(im, n, node, n->out[0]);
    for (int i = 1; i < n->nout && !st; i++) { /* extra outputs alias the first (analysis only) */
        if (!n->out[i][0]) continue;
        imp_value *v = value_add(im, n->out[i], n->off);
        if (!v) return im->err->status;
        v->node = node;
    }
    return st;
}

static nnfx_status import_graph(imp *im, ow_reader *r);
static void imp_release(imp *im);

/* Imports the GraphProto of attribute a into child, a new importer for a
 * subgraph of im (the caller releases child and frees child->g). */
static nnfx_status import_body(imp *im, imp_node *n, imp_attr *a, imp *child) {
    memset(child, 0, sizeof *child);
    if (im->depth + 1 > IR_MAX_GRAPH_DEPTH)
        return imp_node_fail(im, n, NNFX_ERR_UNSUPPORTED, "subgraphs nested deeper than %d levels", IR_MAX_GRAPH_DEPTH);
    child->lc = im->lc;
    child->err = im->err;
    child->opset = im->opset;
    child->opaque = im->opaque;
    child->parent = im;
    child->depth = im->depth + 1;
    child->g = nnfx_graph_new();
    child->info = calloc(1, sizeof *child->info);
    if (!child->g || !child->info) {
        free(child->info);
        child->info = NULL;
        return oom(im);
    }
    child->g->model_info = child->info;
    child->g->model_info_copy = onnx_info_copy;
    child->g->model_info_free = onnx_info_free;
    ow_reader gr = a->g;
    nnfx_status st = import_graph(child, &gr);
    im->lc = child->lc; /* external-data mappings opened by the body */
    if (st && !strstr(im->err->msg, "in attribute"))
        nnfx_error_prefix(im->err, "in attribute %s of node %s (%s)", a->name, n->name && *n->name ? n->name : "?",
                          n->op_type);
    return st;
}

/* Moves the placeholders of g into the given order, at the front. */
static void order_inputs(nnfx_graph *g, nnfx_node *const *order, int n) {
    nnfx_node *anchor = nnfx_graph_first(g);
    for (int i = 0; i < n && anchor; i++) {
        if (order[i] == anchor)
            anchor = nnfx_node_next(anchor);
        else
            nnfx_node_move_before(order[i], anchor, NULL);
    }
}

/* If, Loop, Scan: the bodies become graph attributes; the outer values
 * they read become extra operands (after the ONNX inputs) and placeholders
 * of every body (after its formal inputs), in one order. */
static nnfx_status import_ctrl(imp *im, imp_node *n, nnfx_op op) {
    const char *bname[2] = {"then_branch", "else_branch"};
    int nb = op == NNFX_OP_IF ? 2 : 1;
    if (nb == 1) bname[0] = "body";
    if (op == NNFX_OP_SCAN && im->opset < 9)
        return imp_node_fail(im, n, NNFX_ERR_UNSUPPORTED,
                             "Scan of opset %" PRId64 " (batched, with sequence_lens) is not supported; opset 9 "
                             "and later are",
                             im->opset);
    int nformal = op == NNFX_OP_IF ? 0 : n->nin;
    if (op == NNFX_OP_IF && n->nin != 1)
        return imp_node_fail(im, n, NNFX_ERR_PARSE, "If takes one input (the condition), the node has %d", n->nin);
    if (op == NNFX_OP_LOOP && n->nin < 2)
        return imp_node_fail(im, n, NNFX_ERR_PARSE, "Loop takes at least 2 inputs (M, cond), the node has %d", n->nin);
    if (n->nout < 1) return imp_node_fail(im, n, NNFX_ERR_PARSE, "node has no outputs");
    imp child[2];
    memset(child, 0, sizeof child);
    char **uni = NULL;
    nnfx_node **order = NULL;
    nnfx_arg *args = NULL;
    nnfx_attr *attrs = NULL;
    int nuni = 0, nattrs = 0;
    nnfx_status st = NNFX_OK;
    for (int b = 0; b < nb && !st; b++) {
        imp_attr *a = imp_find_attr(n, bname[b]);
        if (!a || !a->has_g) {
            st = imp_node_fail(im, n, NNFX_ERR_PARSE, "%s needs the graph attribute %s", n->op_type, bname[b]);
            break;
        }
        a->used = true;
        st = import_body(im, n, a, &child[b]);
        if (st) break;
        int formal = nnfx_graph_num_inputs(child[b].g) - child[b].ncaps;
        if (formal != nformal)
            st = imp_node_fail(im, n, NNFX_ERR_PARSE, "its %s has %d inputs, the node gives it %d", bname[b], formal,
                               nformal);
    }
    if (st) goto out;
    /* the captures of every body, in first-use order (then-branch first) */
    int most = child[0].ncaps + child[1].ncaps;
    uni = calloc((size_t)most + 1, sizeof *uni);
    if (!uni) goto nomem;
    for (int b = 0; b < nb; b++)
        for (int k = 0; k < child[b].ncaps; k++) {
            bool seen = false;
            for (int u = 0; u < nuni && !seen; u++)
                seen = strcmp(uni[u], child[b].caps[k]) == 0;
            if (!seen) uni[nuni++] = child[b].caps[k];
        }
    order = calloc((size_t)(nformal + nuni) + 1, sizeof *order);
    if (!order) goto nomem;
    for (int b = 0; b < nb; b++) {
        for (int i = 0; i < nformal; i++)
            order[i] = nnfx_graph_input(child[b].g, i);
        for (int u = 0; u < nuni; u++) {
            nnfx_node *ph = NULL;
            for (int k = 0; k < child[b].ncaps && !ph; k++)
                if (strcmp(child[b].caps[k], uni[u]) == 0) ph = child[b].cap_nodes[k];
            if (!ph) { /* a value only the other branch reads */
                nnfx_inserting_at_end(child[b].g);
                if (nnfx_graph_output_node(child[b].g))
                    nnfx_inserting_before(child[b].g, nnfx_graph_output_node(child[b].g));
                ph = nnfx_graph_placeholder(child[b].g, uni[u], NULL, im->err);
                if (!ph) {
                    st = im->err->status;
                    goto out;
                }
            }
            order[nformal + u] = ph;
        }
        order_inputs(child[b].g, order, nformal + nuni);
    }
    /* operands: the ONNX inputs, then the captured values */
    int nargs = n->nin + nuni;
    args = calloc((size_t)nargs + 1, sizeof *args);
    if (!args) goto nomem;
    for (int i = 0; i < n->nin; i++)
        if ((st = value_arg(im, n, n->in[i], &args[i]))) goto out;
    for (int u = 0; u < nuni; u++)
        if ((st = value_arg(im, n, uni[u], &args[n->nin + u]))) goto out;
    if ((st = convert_attrs(im, n, op, &attrs, &nattrs))) goto out;
    nnfx_attr *na = realloc(attrs, sizeof *na * (size_t)(nattrs + 3));
    if (!na) goto nomem;
    attrs = na;
    for (int b = 0; b < nb; b++)
        attrs[nattrs++] = nnfx_attr_graph(bname[b], child[b].g);
    if (op != NNFX_OP_IF) attrs[nattrs++] = nnfx_attr_int("captures", nuni);
    nnfx_node *node = nnfx_graph_call_op(im->g, op, nargs, args, nattrs, attrs, im->err);
    if (!node) {
        char msg[sizeof im->err->msg];
        snprintf(msg, sizeof msg, "%s", im->err->msg);
        st = imp_node_fail(im, n, im->err->status ? im->err->status : NNFX_ERR_GRAPH, "%s", msg);
        goto out;
    }
    if (n->nout > nnfx_node_num_outputs(node))
        st = imp_node_fail(im, n, NNFX_ERR_PARSE, "the node has %d outputs, its body returns %d results", n->nout,
                           nnfx_node_num_outputs(node));
    else
        st = bind_outputs(im, n, node, n->nout);
    goto out;
nomem:
    st = oom(im);
out:
    for (int b = 0; b < nb; b++) {
        imp_release(&child[b]);
        nnfx_graph_free(child[b].g);
    }
    free(uni);
    free(order);
    free(args);
    free(attrs);
    return st;
}

static nnfx_status import_node(imp *im, imp_node *n) {
    if (n->domain && n->domain[0] && strcmp(n->domain, "ai.onnx") != 0) {
        if (im->opaque) return import_opaque_node(im, n);
        return imp_node_fail(im, n, NNFX_ERR_UNSUPPORTED, "unsupported op %s of domain '%s'", n->op_type, n->domain);
    }
    if (strcmp(n->op_type, "Constant") == 0) return import_constant(im, n);
    nnfx_op op = nnfx_op_find(n->op_type);
    if (strcmp(n->op_type, "Upsample") == 0)
        op = NNFX_OP_RESIZE;
    else if (op != NNFX_OP_NONE && strcmp(nnfx_op_onnx_type(op), n->op_type) != 0)
        op = NNFX_OP_NONE;
    if (op == NNFX_OP_NONE && im->opaque) return import_opaque_node(im, n);
    if (ir_op_is_ctrl(op)) return import_ctrl(im, n, op);
    if (op == NNFX_OP_NONE)
        return imp_node_fail(im, n, NNFX_ERR_UNSUPPORTED, "unsupported op %s (opset %" PRId64 ")", n->op_type,
                             im->opset);
    nnfx_arg *args = calloc((size_t)n->nin + 8, sizeof *args);
    nnfx_attr *attrs = NULL;
    int nattrs = 0, nargs = n->nin;
    nnfx_status st = NNFX_OK;
    if (!args) return oom(im);
    for (int i = 0; i < n->nin; i++)
        if ((st = value_arg(im, n, n->in[i], &args[i]))) goto out;
    bool expand = false;
    if ((st = onnx_upgrade_node(im, n, &op, args, &nargs, &expand))) goto out;
    while (nargs > 0 && args[nargs - 1].kind == NNFX_ARG_NONE)
        nargs--; /* absent trailing inputs */
    int mi, ma, no;
    nnfx_op_arity(op, &mi, &ma, &no);
    if (nargs < mi || nargs > ma) {
        st = imp_node_fail(im, n, NNFX_ERR_PARSE, "%s takes %d to %d inputs, the node has %d", n->op_type, mi, ma,
                           nargs);
        goto out;
    }
    /* outputs that matter: Split needs all; others up to the last one used */
    int k = 0;
    for (int i = 0; i < n->nout; i++)
        if (n->out[i][0] && (op == NNFX_OP_SPLIT || ir_strmap_get(&im->used, n->out[i]))) k = i + 1;
    if (k == 0) k = 1;
    if (n->nout == 0) {
        st = imp_node_fail(im, n, NNFX_ERR_PARSE, "node has no outputs");
        goto out;
    }
    if (no >= 1 && k > no) { /* an optional output the op does not compute (MaxPool Indices...) */
        st = imp_node_fail(im, n, NNFX_ERR_UNSUPPORTED, "output %d ('%s') of %s is not supported", no, n->out[no],
                           n->op_type);
        goto out;
    }
    nnfx_node *node;
    if (expand) {
        node = expand_softmax(im, n, op, args[0]);
    } else {
        if ((st = convert_attrs(im, n, op, &attrs, &nattrs))) goto out;
        if (op == NNFX_OP_SPLIT && nargs < 2 && !imp_find_attr(n, "num_outputs")) {
            /* the outputs say how many equal parts */
            nnfx_attr *na = realloc(attrs, sizeof *na * (size_t)(nattrs + 1));
            if (!na) {
                st = oom(im);
                goto out;
            }
            attrs = na;
            attrs[nattrs++] = nnfx_attr_int("num_outputs", n->nout);
        }
        node = nnfx_graph_call_op(im->g, op, nargs, args, nattrs, attrs, im->err);
    }
    if (!node) {
        char msg[sizeof im->err->msg];
        snprintf(msg, sizeof msg, "%s", im->err->msg);
        st = imp_node_fail(im, n, im->err->status ? im->err->status : NNFX_ERR_GRAPH, "%s", msg);
        goto out;
    }
    if (!(k == 1 && nnfx_node_num_outputs(node) == 1) && nnfx_node_num_outputs(node) != k &&
        (st = ir_node_set_num_outputs(node, k, im->err)))
        goto out;
    st = bind_outputs(im, n, node, k);
out:
    free(args);
    free(attrs);
    return st;
}

/* --- graph and model ---------------------------------------------------------- */

typedef struct field_list {
    ow_field *f;
    int n, cap;
} field_list;

static bool fl_push(field_list *l, const ow_field *f) {
    if (l->n == l->cap) {
        int nc = l->cap ? l->cap * 2 : 16;
        ow_field *nf = realloc(l->f, sizeof *nf * (size_t)nc);
        if (!nf) return false;
        l->f = nf;
        l->cap = nc;
    }
    l->f[l->n++] = *f;
    return true;
}

static nnfx_status mark_used(imp *im, const char *name) {
    if (!name[0] || ir_strmap_get(&im->used, name)) return NNFX_OK;
    char *k = ir_strdup(name);
    if (!k || !push_str(&im->used_keys, &im->nused, k)) {
        free(k);
        return oom(im);
    }
    return ir_strmap_put(&im->used, k, (void *)1) ? NNFX_OK : oom(im);
}

static nnfx_status mark_used_node(imp *im, ow_reader *nr);

/* Marks the values the nodes and outputs of subgraph gr read (an outer
 * value read only inside a body counts as consumed). */
static nnfx_status mark_used_graph(imp *im, ow_reader *gr) {
    ow_field f;
    int rc;
    while ((rc = ow_next(gr, &f)) > 0) {
        if (f.num != PB_GRAPH_NODE && f.num != PB_GRAPH_OUTPUT) continue;
        ow_reader sub;
        if (ow_sub(gr, &f, &sub)) return im->err->status;
        nnfx_status st = NNFX_OK;
        if (f.num == PB_GRAPH_NODE) {
            st = mark_used_node(im, &sub);
        } else {
            ow_field g;
            while (!st && (rc = ow_next(&sub, &g)) > 0) {
                if (g.num != PB_VI_NAME) continue;
                char *s;
                if (ow_string(&sub, &g, &s)) return im->err->status;
                st = mark_used(im, s);
                free(s);
            }
            if (rc < 0) return im->err->status;
        }
        if (st) return st;
    }
    return rc < 0 ? im->err->status : NNFX_OK;
}

/* Marks a node's inputs, and those its graph attributes read. */
static nnfx_status mark_used_node(imp *im, ow_reader *nr) {
    ow_field g;
    int rc;
    while ((rc = ow_next(nr, &g)) > 0) {
        nnfx_status st = NNFX_OK;
        if (g.num == PB_NODE_INPUT) {
            char *s;
            if (ow_string(nr, &g, &s)) return im->err->status;
            st = mark_used(im, s);
            free(s);
        } else if (g.num == PB_NODE_ATTRIBUTE) {
            ow_reader ar, gr;
            if (ow_sub(nr, &g, &ar)) return im->err->status;
            ow_field h;
            while (!st && (rc = ow_next(&ar, &h)) > 0)
                if (h.num == PB_ATTR_G && h.wire == OW_LEN)
                    st = ow_sub(&ar, &h, &gr) ? NNFX_ERR_PARSE : mark_used_graph(im, &gr);
            if (rc < 0) return im->err->status;
        }
        if (st) return im->err->status ? im->err->status : st;
    }
    return rc < 0 ? im->err->status : NNFX_OK;
}

/* Sets the meta of the node holding ONNX value `name` (and of its tuple). */
static void apply_meta(imp *im, const char *name, const nnfx_meta *m) {
    imp_value *v = ir_strmap_get(&im->values, name);
    if (!v || !v->node || m->dtype == NNFX_DTYPE_UNDEFINED) return;
    nnfx_node *node = v->node;
    if (nnfx_node_opcode(node) == NNFX_GET_ATTR) return; /* the parameter knows best */
    *nnfx_node_meta(node, 0) = *m;
    if (nnfx_node_is_op(node, NNFX_OP_GETITEM)) {
        nnfx_node *tup = nnfx_node_arg_node(node, 0);
        nnfx_arg idx = nnfx_node_arg(node, 1);
        nnfx_meta *tm = tup && idx.kind == NNFX_ARG_INT ? nnfx_node_meta(tup, (int)idx.u.i) : NULL;
        if (tm) *tm = *m;
    }
}

/* The fields of one GraphProto, by kind, in file order. */
typedef struct graph_fields {
    field_list nodes, inits, inputs, outputs, vinfo;
} graph_fields;

/* The status of a failure already reported in im->err (a parse error when
 * none is). */
static nnfx_status import_failed(imp *im) { return im->err->status ? im->err->status : NNFX_ERR_PARSE; }

/* The ValueInfoProto in field f: its name (caller frees), meta and whether
 * it is a tensor; false on error (reported, nothing to free). */
static bool read_vi_field(imp *im, ow_reader *r, const ow_field *f, char **name, nnfx_meta *m, bool *is_tensor) {
    ow_reader vr;
    *name = NULL;
    if (!ow_sub(r, f, &vr) && !read_value_info(im, &vr, name, m, is_tensor)) return true;
    free(*name);
    *name = NULL;
    return false;
}

/* Phase 1: sorts the graph's fields by kind (gf) and reads its name and
 * doc string. */
static nnfx_status graph_collect(imp *im, ow_reader *r, graph_fields *gf) {
    ow_field f;
    int rc;
    while ((rc = ow_next(r, &f)) > 0) {
        field_list *l = NULL;
        switch (f.num) {
        case PB_GRAPH_NODE: l = &gf->nodes; break;
        case PB_GRAPH_INITIALIZER: l = &gf->inits; break;
        case PB_GRAPH_INPUT: l = &gf->inputs; break;
        case PB_GRAPH_OUTPUT: l = &gf->outputs; break;
        case PB_GRAPH_VALUE_INFO: l = &gf->vinfo; break;
        case PB_GRAPH_NAME:
            free(im->info->graph_name);
            if (ow_string(r, &f, &im->info->graph_name)) return import_failed(im);
            break;
        case PB_GRAPH_DOC_STRING:
            free(im->info->graph_doc);
            if (ow_string(r, &f, &im->info->graph_doc)) return import_failed(im);
            break;
        case PB_GRAPH_SPARSE_INITIALIZER:
            return ow_fail(r, NNFX_ERR_UNSUPPORTED, f.tag_off, "sparse initializers are not supported");
        default: break;
        }
        if (!l) continue;
        if (f.wire != OW_LEN) return ow_fail(r, NNFX_ERR_PARSE, f.tag_off, "graph field %u should be a message", f.num);
        if (!fl_push(l, &f)) return oom(im);
        /* reading this tag faulted in pages of the weights around it */
        if (l == &gf->inits && f.len >= ONNX_DROP_MAPPED_BYTES) core_mapping_drop(im->lc.map, f.data, f.len);
    }
    return rc < 0 ? import_failed(im) : NNFX_OK;
}

/* Phase 2: initializers become pending parameters (set when first read,
 * or at the end). */
static nnfx_status graph_initializers(imp *im, ow_reader *r, const field_list *inits) {
    for (int i = 0; i < inits->n; i++) {
        ow_reader tr;
        char *name = NULL;
        nnfx_tensor *t = NULL;
        im->lc.defer_unaligned = true;
        nnfx_status rst = ow_sub(r, &inits->f[i], &tr) ? NNFX_ERR_PARSE : onnx_read_tensor(&im->lc, &tr, &name, &t);
        im->lc.defer_unaligned = false;
        if (rst) return import_failed(im);
        imp_value *v = name && name[0] ? value_add(im, name, inits->f[i].off) : NULL;
        if (!v) {
            bool unnamed = !name || !name[0];
            free(name);
            nnfx_tensor_release(t);
            return unnamed ? ow_fail(r, NNFX_ERR_PARSE, inits->f[i].off, "initializer without a name")
                           : import_failed(im);
        }
        v->param = name;
        v->pending = t;
    }
    return NNFX_OK;
}

/* Phase 3: graph inputs that are not initializers become placeholders. */
static nnfx_status graph_inputs(imp *im, ow_reader *r, const field_list *inputs) {
    for (int i = 0; i < inputs->n; i++) {
        char *name;
        nnfx_meta m;
        bool is_tensor;
        if (!read_vi_field(im, r, &inputs->f[i], &name, &m, &is_tensor)) return import_failed(im);
        if (ir_strmap_get(&im->values, name)) { /* an initializer listed as input (IR < 4) */
            free(name);
            continue;
        }
        nnfx_status st;
        if (!is_tensor || !name[0]) {
            st = ow_fail(r, NNFX_ERR_UNSUPPORTED, inputs->f[i].off, "graph input '%s' is not a tensor", name);
            free(name);
            return st;
        }
        nnfx_node *ph = nnfx_graph_placeholder(im->g, name, &m, im->err);
        imp_value *v = ph ? value_add(im, name, inputs->f[i].off) : NULL;
        if (v) v->node = ph;
        st = v ? remember_name(im, ph, name) : im->err->status;
        free(name);
        if (st) return st;
    }
    return NNFX_OK;
}

/* Phase 4: marks the values nodes and graph outputs read (decides how many
 * outputs a node keeps). */
static nnfx_status graph_mark_used(imp *im, ow_reader *r, const graph_fields *gf) {
    nnfx_status st;
    for (int i = 0; i < gf->nodes.n; i++) {
        ow_reader nr;
        if (ow_sub(r, &gf->nodes.f[i], &nr)) return import_failed(im);
        if ((st = mark_used_node(im, &nr))) return st;
    }
    for (int i = 0; i < gf->outputs.n; i++) {
        char *name;
        nnfx_meta m;
        bool is_tensor;
        if (!read_vi_field(im, r, &gf->outputs.f[i], &name, &m, &is_tensor)) return import_failed(im);
        st = mark_used(im, name);
        free(name);
        if (st) return st;
    }
    return NNFX_OK;
}

/* Phase 5: the nodes, in file order. */
static nnfx_status graph_nodes(imp *im, ow_reader *r, const field_list *nodes) {
    imp_node node = {0};
    nnfx_status st = NNFX_OK;
    for (int i = 0; i < nodes->n && !st; i++) {
        ow_reader nr;
        if (ow_sub(r, &nodes->f[i], &nr)) {
            st = import_failed(im);
            break;
        }
        node.off = nodes->f[i].tag_off;
        if (!(st = read_node(im, &nr, &node))) st = import_node(im, &node);
        node_free(&node);
    }
    node_free(&node);
    return st;
}

/* Phase 6: the node of each graph output (outs[i]), its declared meta
 * applied; then the metas of value_info entries. */
static nnfx_status graph_outputs(imp *im, ow_reader *r, const graph_fields *gf, nnfx_node **outs) {
    for (int i = 0; i < gf->outputs.n; i++) {
        char *name;
        nnfx_meta m;
        bool is_tensor;
        nnfx_arg a;
        if (!read_vi_field(im, r, &gf->outputs.f[i], &name, &m, &is_tensor)) return import_failed(im);
        nnfx_status st = value_arg(im, NULL, name, &a);
        if (!st && a.kind != NNFX_ARG_NODE)
            st = ow_fail(r, NNFX_ERR_PARSE, gf->outputs.f[i].off, "graph output without a name");
        if (!st) {
            outs[i] = a.u.node;
            apply_meta(im, name, &m);
        }
        free(name);
        if (st) return st;
    }
    for (int i = 0; i < gf->vinfo.n; i++) {
        char *name;
        nnfx_meta m;
        bool is_tensor;
        if (!read_vi_field(im, r, &gf->vinfo.f[i], &name, &m, &is_tensor)) return import_failed(im);
        if (is_tensor) apply_meta(im, name, &m);
        free(name);
    }
    return NNFX_OK;
}

/* Phase 7: parameters nothing reads, set in file order. */
static nnfx_status graph_unread_params(imp *im) {
    for (int i = 0; i < im->nvals; i++) {
        imp_value *v = im->vals[i];
        if (!v->pending) continue;
        nnfx_status st = nnfx_graph_set_param(im->g, v->param, v->pending, im->err);
        if (!st && v->constant) st = nnfx_graph_set_param_constant(im->g, v->param, true, im->err);
        nnfx_tensor_release(v->pending);
        v->pending = NULL;
        if (st) return st;
    }
    return NNFX_OK;
}

/* Imports one GraphProto into im->g, phase by phase (graph_collect ..
 * graph_unread_params), then sets the graph's outputs. */
static nnfx_status import_graph(imp *im, ow_reader *r) {
    graph_fields gf = {{0}};
    nnfx_node **outs = NULL;
    nnfx_status st = graph_collect(im, r, &gf);
    if (!st) st = graph_initializers(im, r, &gf.inits);
    if (!st) st = graph_inputs(im, r, &gf.inputs);
    if (!st) st = graph_mark_used(im, r, &gf);
    if (!st) st = graph_nodes(im, r, &gf.nodes);
    if (!st && !(outs = calloc((size_t)gf.outputs.n + 1, sizeof *outs))) st = oom(im);
    if (!st) st = graph_outputs(im, r, &gf, outs);
    if (!st) st = graph_unread_params(im);
    if (!st && !nnfx_graph_output(im->g, gf.outputs.n, outs, im->err)) st = import_failed(im);
    free(outs);
    free(gf.nodes.f);
    free(gf.inits.f);
    free(gf.inputs.f);
    free(gf.outputs.f);
    free(gf.vinfo.f);
    return st;
}

static nnfx_status read_kv(imp *im, ow_reader *r, const ow_field *f, char **key, char **value) {
    ow_reader kr;
    *key = *value = NULL;
    if (ow_sub(r, f, &kr)) return im->err->status;
    ow_field g;
    int rc;
    while ((rc = ow_next(&kr, &g)) > 0) {
        if (g.num == PB_KV_KEY) {
            free(*key);
            if (ow_string(&kr, &g, key)) return im->err->status;
        } else if (g.num == PB_KV_VALUE) {
            free(*value);
            if (ow_string(&kr, &g, value)) return im->err->status;
        }
    }
    return rc < 0 ? im->err->status : NNFX_OK;
}

static nnfx_status import_model(imp *im, const uint8_t *buf, size_t size) {
    ow_reader r = ow_reader_init(buf, size, im->lc.what, im->err);
    ow_field f, graph = {0};
    bool has_graph = false;
    int rc, cap_opsets = 0, cap_meta = 0;
    onnx_model_info *info = im->info;
    while ((rc = ow_next(&r, &f)) > 0) {
        char **dst = NULL;
        switch (f.num) {
        case PB_MODEL_IR_VERSION:
            if (ow_expect(&r, &f, OW_VARINT, "ir_version")) return im->err->status;
            info->ir_version = (int64_t)f.v;
            break;
        case PB_MODEL_MODEL_VERSION:
            if (ow_expect(&r, &f, OW_VARINT, "model_version")) return im->err->status;
            info->model_version = (int64_t)f.v;
            break;
        case PB_MODEL_PRODUCER_NAME: dst = &info->producer_name; break;
        case PB_MODEL_PRODUCER_VERSION: dst = &info->producer_version; break;
        case PB_MODEL_DOMAIN: dst = &info->domain; break;
        case PB_MODEL_DOC_STRING: dst = &info->doc_string; break;
        case PB_MODEL_GRAPH:
            if (ow_expect(&r, &f, OW_LEN, "graph")) return im->err->status;
            graph = f;
            has_graph = true;
            break;
        case PB_MODEL_OPSET_IMPORT: {
            ow_reader orr;
            if (ow_sub(&r, &f, &orr)) return im->err->status;
            char *domain = NULL;
            int64_t version = 0;
            ow_field g;
            while ((rc = ow_next(&orr, &g)) > 0) {
                if (g.num == PB_OPSET_DOMAIN) {
                    free(domain);
                    if (ow_string(&orr, &g, &domain)) return im->err->status;
                } else if (g.num == PB_OPSET_VERSION && g.wire == OW_VARINT) {
                    version = (int64_t)g.v;
                }
            }
            char vtext[32];
            snprintf(vtext, sizeof vtext, "%" PRId64, version);
            bool ok = rc >= 0 && onnx_kv_push(&info->opsets, &info->nopsets, &cap_opsets, domain ? domain : "", vtext);
            if (ok && (!domain || !domain[0] || strcmp(domain, "ai.onnx") == 0)) im->opset = version;
            free(domain);
            if (rc < 0) return im->err->status;
            if (!ok) return oom(im);
            break;
        }
        case PB_MODEL_METADATA_PROPS: {
            char *k, *v;
            nnfx_status st = read_kv(im, &r, &f, &k, &v);
            if (!st && !onnx_kv_push(&info->meta, &info->nmeta, &cap_meta, k, v)) st = oom(im);
            free(k);
            free(v);
            if (st) return st;
            break;
        }
        default: break;
        }
        if (dst) {
            free(*dst);
            if (ow_string(&r, &f, dst)) return im->err->status;
        }
    }
    if (rc < 0) return im->err->status;
    if (!has_graph) {
        if (size >= 8 && memcmp(buf, "\x89PNG", 4) == 0)
            return nnfx_error_set(im->err, NNFX_ERR_PARSE, "%s: not an ONNX model (a PNG image)", im->lc.what);
        return nnfx_error_set(im->err, NNFX_ERR_PARSE, "%s: not an ONNX model (no graph in %zu bytes)", im->lc.what,
                              size);
    }
    if (im->opset <= 0) im->opset = 1;
    ow_reader gr;
    if (ow_sub(&r, &graph, &gr)) return im->err->status;
    return import_graph(im, &gr);
}

/* Frees an importer's tables (not its graph nor the load context). */
static void imp_release(imp *im) {
    for (int i = 0; i < im->nvals; i++) {
        free(im->vals[i]->name);
        free(im->vals[i]->param);
        nnfx_tensor_release(im->vals[i]->pending);
        free(im->vals[i]);
    }
    free(im->vals);
    ir_strmap_free(&im->values);
    for (int i = 0; i < im->nused; i++)
        free(im->used_keys[i]);
    free(im->used_keys);
    ir_strmap_free(&im->used);
    for (int i = 0; i < im->ncaps; i++)
        free(im->caps[i]);
    free(im->caps);
    free(im->cap_nodes);
}

/* Shared by both entry points: parses buf into a new graph. */
static nnfx_graph *load(const uint8_t *buf, size_t size, const char *what, const char *dir, nnfx_mapping *map,
                        const nnfx_onnx_load_options *opts, nnfx_error *err) {
    nnfx_error local = {0};
    if (!err) err = &local;
    err->status = NNFX_OK;
    err->msg[0] = 0;
    imp im;
    memset(&im, 0, sizeof im);
    im.err = err;
    im.opaque = opts && opts->keep_unknown_ops;
    im.lc.what = what;
    im.lc.dir = dir;
    im.lc.map = map;
    im.lc.err = err;
    im.g = nnfx_graph_new();
    im.info = calloc(1, sizeof *im.info);
    nnfx_status st;
    if (!im.g || !im.info) {
        st = oom(&im);
    } else {
        im.g->model_info = im.info;
        im.g->model_info_copy = onnx_info_copy;
        im.g->model_info_free = onnx_info_free;
        st = import_model(&im, buf, size);
    }
    if (!st && im.lc.next) { /* the external data files read, for callers that must not overwrite them */
        if (!(im.info->ext_files = calloc((size_t)im.lc.next, sizeof *im.info->ext_files))) st = oom(&im);
        for (int i = 0; !st && i < im.lc.next; i++, im.info->next_files++)
            if (!(im.info->ext_files[i] = ir_strdup(im.lc.ext[i].path))) st = oom(&im);
    }
    if (!im.g) onnx_info_free(im.info);
    onnx_load_ctx_done(&im.lc);
    imp_release(&im);
    if (st) {
        if (!err->status) nnfx_error_set(err, st, "%s: load failed", what);
        nnfx_graph_free(im.g);
        return NULL;
    }
    return im.g;
}

nnfx_graph *nnfx_onnx_load(const char *path, nnfx_error *err) { return nnfx_onnx_load_opts(path, NULL, err); }

nnfx_graph *nnfx_onnx_load_opts(const char *path, const nnfx_onnx_load_options *opts, nnfx_error *err) {
    if (!path) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "onnx_load: path is NULL");
        return NULL;
    }
    nnfx_mapping *m = nnfx_mapping_open(path, err);
    if (!m) return NULL;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dlen = slash ? (size_t)(slash - path) : 1;
    char *dir = malloc(dlen + 1);
    if (!dir) {
        nnfx_mapping_release(m);
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (slash) {
        memcpy(dir, path, dlen);
        if (dlen == 0) dir[dlen++] = '/';
    } else {
        dir[0] = '.';
    }
    dir[dlen] = 0;
    nnfx_graph *g = load(nnfx_mapping_data(m), nnfx_mapping_size(m), base, dir, m, opts, err);
    free(dir);
    nnfx_mapping_release(m); /* mapped tensors keep their own reference */
    return g;
}

nnfx_graph *nnfx_onnx_load_buffer(const void *data, size_t size, nnfx_error *err) {
    return nnfx_onnx_load_buffer_opts(data, size, NULL, err);
}

nnfx_graph *nnfx_onnx_load_buffer_opts(const void *data, size_t size, const nnfx_onnx_load_options *opts,
                                       nnfx_error *err) {
    if (!data && size) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "onnx_load_buffer: data is NULL");
        return NULL;
    }
    return load(data, size, "<buffer>", NULL, NULL, opts, err);
}
