/* onnx_export.c — nnfx_graph -> ONNX ModelProto.
 *
 * Parameters read by get_attr nodes become initializers (raw_data, or an
 * external-data side file), placeholders the graph inputs, call_function
 * nodes NodeProtos with the attributes set on the node, getitem nodes the
 * k-th output of their tuple node, and the output node's arguments the
 * graph outputs. Value names are the original ONNX names kept by the
 * importer where known, else the node names (node names likewise). The
 * opset is the requested one, else the imported one (at least 13) or 17,
 * raised only as far as a node's form needs (nnfx_onnx_export_opset);
 * below 18 constant Reduce axes go back to the attribute. The producer is
 * nnfx; metadata_props are the imported ones plus the caller's. Files are
 * written under unique temporary names and renamed (the side file first,
 * the model last, once both are complete). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_int.h"
#include "io/onnx_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

#define EXT_ALIGN 4096
#define TWO_GB    ((size_t)2 << 30)

typedef struct exp_ctx {
    const nnfx_graph *g;
    const onnx_model_info *info;
    int64_t opset;
    ir_strmap orig;       /* node name -> original ONNX value name         */
    ir_strmap orig_nodes; /* node name -> original ONNX node name          */
    ir_strmap used;       /* value names taken                             */
    char **owned;         /* strings owned by the exporter                 */
    int nowned, cap_owned;
    ir_strmap params_used; /* param name -> (void *)1 when written           */
    ir_strmap params_read; /* params read by get_attr nodes not written     */
    nnfx_error *err;
    int nextra; /* counter for generated names                   */
    const nnfx_onnx_save_options *opts;
    struct ext_plan *ext; /* side file for external data (bodies too)   */
} exp_ctx;

static nnfx_status write_body(exp_ctx *x, ow_buf *b, const nnfx_attr *a, int nformal, const char *const *capnames);

static nnfx_status oom(exp_ctx *x) { return nnfx_error_set(x->err, NNFX_ERR_NOMEM, "out of memory"); }

/* Keeps s (malloc'd) alive until the end of the export; NULL on OOM. */
static char *own(exp_ctx *x, char *s) {
    if (!s) return NULL;
    if (x->nowned == x->cap_owned) {
        int nc = x->cap_owned ? x->cap_owned * 2 : 64;
        char **no = realloc(x->owned, sizeof *no * (size_t)nc);
        if (!no) {
            free(s);
            return NULL;
        }
        x->owned = no;
        x->cap_owned = nc;
    }
    x->owned[x->nowned++] = s;
    return s;
}

/* Claims a unique value name derived from want; returns it (owned). */
static const char *claim(exp_ctx *x, const char *want) {
    const char *got = want;
    char *buf = NULL;
    for (int k = 1; ir_strmap_get(&x->used, got); k++) {
        free(buf);
        size_t n = strlen(want) + 24;
        buf = malloc(n);
        if (!buf) return NULL;
        snprintf(buf, n, "%s_%d", want, k);
        got = buf;
    }
    char *s = own(x, buf ? buf : ir_strdup(want));
    if (!s || !ir_strmap_put(&x->used, s, (void *)1)) return NULL;
    return s;
}

/* The ONNX value name of each node (node->pass_data is not ours to use, so
 * names live in a map keyed by node pointer text). */
typedef struct name_map {
    const nnfx_node **k;
    const char **v;
    size_t cap, n;
} name_map;

static size_t ptr_hash(const void *p) {
    uintptr_t h = (uintptr_t)p;
    h ^= h >> 17;
    h *= 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ (h >> 29));
}

static bool nm_put(name_map *m, const nnfx_node *k, const char *v) {
    if ((m->n + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 256;
        const nnfx_node **nk = calloc(nc, sizeof *nk);
        const char **nv = calloc(nc, sizeof *nv);
        if (!nk || !nv) {
            free(nk);
            free((void *)nv);
            return false;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->k[i]) {
                size_t j = ptr_hash(m->k[i]) & (nc - 1);
                while (nk[j])
                    j = (j + 1) & (nc - 1);
                nk[j] = m->k[i];
                nv[j] = m->v[i];
            }
        free((void *)m->k);
        free((void *)m->v);
        m->k = nk;
        m->v = nv;
        m->cap = nc;
    }
    size_t j = ptr_hash(k) & (m->cap - 1);
    while (m->k[j] && m->k[j] != k)
        j = (j + 1) & (m->cap - 1);
    if (!m->k[j]) m->n++;
    m->k[j] = k;
    m->v[j] = v;
    return true;
}

static const char *nm_get(const name_map *m, const nnfx_node *k) {
    if (!m->cap) return NULL;
    size_t j = ptr_hash(k) & (m->cap - 1);
    while (m->k[j]) {
        if (m->k[j] == k) return m->v[j];
        j = (j + 1) & (m->cap - 1);
    }
    return NULL;
}

/* --- pieces --------------------------------------------------------------- */

static void write_type(ow_buf *b, uint32_t num, const nnfx_meta *m) {
    size_t t = ow_begin_msg(b, num);
    size_t tt = ow_begin_msg(b, PB_TYPE_TENSOR);
    ow_put_int(b, PB_TENSOR_TYPE_ELEM, (int64_t)m->dtype);
    if (m->rank >= 0) {
        size_t sh = ow_begin_msg(b, PB_TENSOR_TYPE_SHAPE);
        for (int i = 0; i < m->rank; i++) {
            size_t d = ow_begin_msg(b, PB_SHAPE_DIM);
            if (m->dims[i].value >= 0)
                ow_put_int(b, PB_DIM_VALUE, m->dims[i].value);
            else if (m->dims[i].symbol && m->dims[i].symbol[0])
                ow_put_string(b, PB_DIM_PARAM, m->dims[i].symbol);
            ow_end_msg(b, d);
        }
        ow_end_msg(b, sh);
    }
    ow_end_msg(b, tt);
    ow_end_msg(b, t);
}

static void write_value_info(ow_buf *b, uint32_t num, const char *name, const nnfx_meta *m) {
    size_t v = ow_begin_msg(b, num);
    ow_put_string(b, PB_VI_NAME, name);
    if (m && m->dtype != NNFX_DTYPE_UNDEFINED) write_type(b, PB_VI_TYPE, m);
    ow_end_msg(b, v);
}

/* A list-of-strings attribute (held comma-joined) as ONNX STRINGS. */
static void write_string_list(ow_buf *b, const char *s) {
    char item[256];
    for (const char *p = s ? s : ""; *p;) {
        size_t n = strcspn(p, ",");
        if (n >= sizeof item) n = sizeof item - 1;
        memcpy(item, p, n);
        item[n] = 0;
        ow_put_string(b, PB_ATTR_STRINGS, item);
        p += strcspn(p, ",");
        if (*p) p++;
    }
    ow_put_int(b, PB_ATTR_TYPE, PB_AT_STRINGS);
}

static void write_attr(ow_buf *b, const nnfx_attr *a, bool string_list) {
    size_t m = ow_begin_msg(b, PB_NODE_ATTRIBUTE);
    ow_put_string(b, PB_ATTR_NAME, a->name);
    if (string_list && a->kind == NNFX_ATTR_STRING) {
        write_string_list(b, a->u.s);
        ow_end_msg(b, m);
        return;
    }
    switch (a->kind) {
    case NNFX_ATTR_INT:
        ow_put_int(b, PB_ATTR_I, a->u.i);
        ow_put_int(b, PB_ATTR_TYPE, PB_AT_INT);
        break;
    case NNFX_ATTR_FLOAT:
        ow_put_float(b, PB_ATTR_F, (float)a->u.f);
        ow_put_int(b, PB_ATTR_TYPE, PB_AT_FLOAT);
        break;
    case NNFX_ATTR_STRING:
        ow_put_string(b, PB_ATTR_S, a->u.s ? a->u.s : "");
        ow_put_int(b, PB_ATTR_TYPE, PB_AT_STRING);
        break;
    case NNFX_ATTR_INTS:
        ow_put_packed_int64(b, PB_ATTR_INTS, a->u.ints.v, (size_t)a->u.ints.n);
        ow_put_int(b, PB_ATTR_TYPE, PB_AT_INTS);
        break;
    case NNFX_ATTR_FLOATS:
        ow_put_packed_float(b, PB_ATTR_FLOATS, a->u.floats.v, (size_t)a->u.floats.n);
        ow_put_int(b, PB_ATTR_TYPE, PB_AT_FLOATS);
        break;
    case NNFX_ATTR_TENSOR:
        if (a->u.t) onnx_write_tensor(b, PB_ATTR_T, NULL, a->u.t, NULL, 0);
        ow_put_int(b, PB_ATTR_TYPE, PB_AT_TENSOR);
        break;
    case NNFX_ATTR_GRAPH: break; /* write_body */
    }
    ow_end_msg(b, m);
}

/* The int64 parameter a get_attr argument reads, or NULL. */
static const nnfx_tensor *const_i64_arg(const nnfx_node *n, int i) {
    const nnfx_node *a = nnfx_node_arg_node(n, i);
    if (!a || nnfx_node_opcode(a) != NNFX_GET_ATTR) return NULL;
    const nnfx_tensor *t = nnfx_graph_param(n->graph, nnfx_node_target(a));
    return t && t->dtype == NNFX_I64 && t->rank <= 1 ? t : NULL;
}

/* The oldest default-domain opset that holds node n's form (0: any nnfx
 * writes), with a short description of the form in *what. */
static int64_t node_min_opset(const nnfx_node *n, const char **what) {
    *what = "";
    /* computed axes cannot be written back as an attribute */
    int64_t axes_opset = onnx_axes_input_opset(nnfx_node_op(n));
    if (axes_opset > 0 && nnfx_node_num_args(n) > 1 && nnfx_node_arg(n, 1).kind == NNFX_ARG_NODE &&
        !const_i64_arg(n, 1)) {
        *what = axes_opset > 13 ? "a Reduce with computed axes" : "computed axes";
        return axes_opset;
    }
    if (nnfx_node_is_op(n, NNFX_OP_PAD) && nnfx_node_num_args(n) > 3) {
        *what = "Pad with an axes input";
        return 18;
    }
    if (nnfx_node_is_op(n, NNFX_OP_RESIZE) && (nnfx_node_attr(n, "antialias") || nnfx_node_attr(n, "axes") ||
                                               nnfx_node_attr(n, "keep_aspect_ratio_policy"))) {
        *what = "Resize with antialias/axes/keep_aspect_ratio_policy";
        return 18;
    }
    if (nnfx_node_is_op(n, NNFX_OP_CAST) && nnfx_node_attr(n, "saturate")) {
        *what = "Cast with saturate";
        return 19;
    }
    if (nnfx_node_is_op(n, NNFX_OP_LAYER_NORM)) {
        *what = "LayerNormalization";
        return 17;
    }
    if (nnfx_node_is_op(n, NNFX_OP_HARD_SWISH) || nnfx_node_is_op(n, NNFX_OP_TRILU)) {
        *what = nnfx_op_onnx_type(nnfx_node_op(n));
        return 14;
    }
    if (nnfx_node_is_op(n, NNFX_OP_SHAPE) && (nnfx_node_attr(n, "start") || nnfx_node_attr(n, "end"))) {
        *what = "Shape with start/end";
        return 15;
    }
    if (nnfx_node_is_op(n, NNFX_OP_BATCH_NORM) && nnfx_node_attr(n, "training_mode")) {
        *what = "BatchNormalization with training_mode";
        return 14;
    }
    if (nnfx_node_is_op(n, NNFX_OP_RESHAPE) && nnfx_node_attr(n, "allowzero")) {
        *what = "Reshape with allowzero";
        return 14;
    }
    /* Quantization (int8): QuantizeLinear's saturate (19) and output_dtype (21) */
    if (nnfx_node_is_op(n, NNFX_OP_QUANTIZE_LINEAR) && nnfx_node_attr(n, "output_dtype")) {
        *what = "QuantizeLinear with output_dtype";
        return 21;
    }
    if (nnfx_node_is_op(n, NNFX_OP_QUANTIZE_LINEAR) && nnfx_node_attr(n, "saturate")) {
        *what = "QuantizeLinear with saturate";
        return 19;
    }
    return 0;
}

/* The oldest opset above v that some node of g or of its bodies needs (v
 * when none does): *who and *what name the first such node. */
static int64_t graph_min_opset(const nnfx_graph *g, int64_t v, const nnfx_node **who, const char **what) {
    for (const nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n)) {
        int64_t need = node_min_opset(n, what);
        if (need > v) {
            *who = n;
            return need;
        }
        for (int i = 0; i < nnfx_node_num_subgraphs(n); i++)
            if ((need = graph_min_opset(nnfx_node_subgraph(n, i), v, who, what)) > v) return need;
    }
    return v;
}

#define OPSET_OLDEST 13 /* axes as inputs, per-axis Softmax: nnfx's forms */
#define OPSET_NEWEST 21 /* newest opset whose forms nnfx's ops keep        */

int64_t nnfx_onnx_export_opset(const nnfx_graph *g, int64_t requested, char *why, nnfx_error *err) {
    if (why) why[0] = '\0';
    if (!g) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "onnx export: NULL graph"), -1;
    if (requested > 0 && (requested < OPSET_OLDEST || requested > OPSET_NEWEST))
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED,
                              "onnx export: opset %" PRId64 " is not supported: nnfx writes opsets %d to %d "
                              "(below 13 Squeeze, Unsqueeze, ReduceSum and Split take axes as attributes and "
                              "Softmax flattens; down-conversion to those forms is not implemented)",
                              requested, OPSET_OLDEST, OPSET_NEWEST),
               -1;
    int64_t v = requested;
    if (v <= 0) {
        const onnx_model_info *info = onnx_info_of(g);
        v = 0;
        for (int i = 0; info && i < info->nopsets; i++)
            if (!info->opsets[i].key[0] || strcmp(info->opsets[i].key, "ai.onnx") == 0) {
                int64_t o = strtoll(info->opsets[i].value, NULL, 10);
                if (o > v) v = o;
            }
        if (v == 0) v = 17;
        if (v < OPSET_OLDEST) {
            if (why)
                snprintf(why, 256, "the model's opset %" PRId64 " is older than the oldest nnfx writes (%d)", v,
                         OPSET_OLDEST);
            v = OPSET_OLDEST;
        }
    }
    const nnfx_node *n;
    const char *what;
    for (int64_t need; (need = graph_min_opset(g, v, &n, &what)) > v;) {
        if (requested > 0)
            return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED,
                                  "onnx export: opset %" PRId64 " cannot hold node %s: %s needs opset %" PRId64,
                                  requested, nnfx_node_name(n), what, need),
                   -1;
        if (why) snprintf(why, 256, "node %s: %s needs opset %" PRId64, nnfx_node_name(n), what, need);
        v = need;
    }
    return v;
}

/* Value name of argument node a (marks parameters used). */
static const char *arg_name(exp_ctx *x, name_map *nm, const nnfx_node *a) {
    if (nnfx_node_opcode(a) == NNFX_GET_ATTR) {
        const char *t = nnfx_node_target(a);
        ir_strmap_put(&x->params_used, t, (void *)1);
        return t;
    }
    return nm_get(nm, a);
}

/* Writes an initializer for a literal argument; returns its name. */
static const char *literal_initializer(exp_ctx *x, ow_buf *inits, const nnfx_node *n, int i, nnfx_arg a) {
    char want[300];
    snprintf(want, sizeof want, "%s_arg%d", nnfx_node_name(n), i);
    const char *name = claim(x, want);
    if (!name) return NULL;
    nnfx_error e = {0};
    nnfx_tensor *t =
        a.kind == NNFX_ARG_INT ? nnfx_tensor_scalar_i64(a.u.i, &e) : nnfx_tensor_scalar_f32((float)a.u.f, &e);
    if (!t) return NULL;
    onnx_write_tensor(inits, PB_GRAPH_INITIALIZER, name, t, NULL, 0);
    nnfx_tensor_release(t);
    return name;
}

static nnfx_status write_node(exp_ctx *x, name_map *nm, ow_buf *nodes, ow_buf *inits, const nnfx_node *n) {
    nnfx_op op = nnfx_node_op(n);
    const char *type = nnfx_op_onnx_type(op);
    if (!type[0])
        return nnfx_error_set(x->err, NNFX_ERR_UNSUPPORTED, "onnx export: node %s: op %s has no ONNX form",
                              nnfx_node_name(n), nnfx_op_name(op));
    size_t m = ow_begin_msg(nodes, PB_GRAPH_NODE);
    int nargs = nnfx_node_num_args(n);
    /* control flow: captured operands are outer-scope names inside the bodies */
    ir_ctrl_shape cs = {0};
    const char **capnames = NULL;
    if (ir_op_is_ctrl(op)) {
        if (ir_ctrl_layout(n, &cs, x->err)) return x->err->status;
        capnames = calloc((size_t)cs.ncaptures + 1, sizeof *capnames);
        if (!capnames) return oom(x);
        for (int k = 0; k < cs.ncaptures; k++) {
            nnfx_arg a = nnfx_node_arg(n, cs.first_capture + k);
            capnames[k] = a.kind == NNFX_ARG_NODE ? arg_name(x, nm, a.u.node)
                                                  : literal_initializer(x, inits, n, cs.first_capture + k, a);
            if (!capnames[k]) {
                free((void *)capnames);
                return oom(x);
            }
        }
        nargs = cs.first_capture;
    }
    bool axes_attr = x->opset < onnx_axes_input_opset(op) && nargs > 1 && const_i64_arg(n, 1);
    if (axes_attr) nargs = 1;
    while (nargs > 0 && nnfx_node_arg(n, nargs - 1).kind == NNFX_ARG_NONE)
        nargs--;
    for (int i = 0; i < nargs; i++) {
        nnfx_arg a = nnfx_node_arg(n, i);
        const char *name = "";
        if (a.kind == NNFX_ARG_NODE)
            name = arg_name(x, nm, a.u.node);
        else if (a.kind == NNFX_ARG_INT || a.kind == NNFX_ARG_FLOAT)
            name = literal_initializer(x, inits, n, i, a);
        if (!name) return oom(x);
        ow_put_string(nodes, PB_NODE_INPUT, name);
    }
    /* outputs: the node's own name, or its getitem users' names per index */
    int nout = nnfx_node_num_outputs(n);
    if (nout == 1) {
        ow_put_string(nodes, PB_NODE_OUTPUT, nm_get(nm, n));
    } else {
        const char **names = calloc((size_t)nout, sizeof *names);
        if (!names) return oom(x);
        int last = 0;
        for (int u = 0; u < nnfx_node_num_users(n); u++) {
            const nnfx_node *gi = nnfx_node_user(n, u);
            nnfx_arg idx = nnfx_node_arg(gi, 1);
            if (!nnfx_node_is_op(gi, NNFX_OP_GETITEM) || idx.kind != NNFX_ARG_INT || idx.u.i < 0 || idx.u.i >= nout)
                continue;
            if (!names[idx.u.i]) names[idx.u.i] = nm_get(nm, gi);
            if ((int)idx.u.i + 1 > last) last = (int)idx.u.i + 1;
        }
        if (op == NNFX_OP_SPLIT) last = nout;
        if (last == 0) last = 1;
        for (int i = 0; i < last; i++) {
            if (!names[i] && (op == NNFX_OP_SPLIT || i == 0)) {
                char want[300];
                snprintf(want, sizeof want, "%s_out%d", nnfx_node_name(n), i);
                names[i] = claim(x, want);
            }
            ow_put_string(nodes, PB_NODE_OUTPUT, names[i] ? names[i] : "");
        }
        free((void *)names);
    }
    const char *orig_node = ir_strmap_get(&x->orig_nodes, nnfx_node_name(n));
    ow_put_string(nodes, PB_NODE_NAME, orig_node ? orig_node : nnfx_node_name(n));
    ow_put_string(nodes, PB_NODE_OP_TYPE, type);
    for (int i = 0; i < nnfx_node_num_attrs(n); i++) {
        const nnfx_attr *a = nnfx_node_attr_at(n, i);
        if (op == NNFX_OP_SPLIT && x->opset < 18 && strcmp(a->name, "num_outputs") == 0) continue;
        if (capnames && strcmp(a->name, "captures") == 0) continue; /* nnfx's own bookkeeping */
        if (a->kind == NNFX_ATTR_GRAPH) {
            nnfx_status st = write_body(x, nodes, a, cs.nformal, capnames);
            if (st) {
                free((void *)capnames);
                return st;
            }
            continue;
        }
        write_attr(nodes, a, ir_schema_string_list(op, a->name));
    }
    free((void *)capnames);
    if (axes_attr) {
        const nnfx_tensor *t = const_i64_arg(n, 1);
        nnfx_attr a = nnfx_attr_ints("axes", (int)nnfx_tensor_numel(t), t->data);
        write_attr(nodes, &a, false);
    }
    ow_end_msg(nodes, m);
    return NNFX_OK;
}

/* Writes the side file (tmp name) with every external tensor, in order. */
typedef struct ext_plan {
    const char *loc; /* location written in the model              */
    char *path;      /* side file                                  */
    core_file f;     /* its temporary, while open                  */
    bool open;
    uint64_t off;
} ext_plan;

static nnfx_status ext_write(exp_ctx *x, ext_plan *e, const nnfx_tensor *t, uint64_t *off) {
    static const uint8_t zeros[64];
    while (e->off % EXT_ALIGN) {
        size_t pad = EXT_ALIGN - (size_t)(e->off % EXT_ALIGN);
        if (pad > sizeof zeros) pad = sizeof zeros;
        nnfx_status st = core_file_write(&e->f, zeros, pad, x->err);
        if (st) return st;
        e->off += pad;
    }
    *off = e->off;
    nnfx_status st = t->nbytes ? core_file_write(&e->f, t->data, t->nbytes, x->err) : NNFX_OK;
    e->off += t->nbytes;
    return st;
}

/* Phase 1 of build_graph: parameter names are reserved (initializer names
 * are fixed), a body's captured placeholders take the outer names
 * (capnames), and every placeholder and call node gets its value name. */
static nnfx_status export_names(exp_ctx *x, const nnfx_graph *g, name_map *nm, int nformal,
                                const char *const *capnames) {
    for (int i = 0; i < nnfx_graph_num_params(g); i++)
        if (!ir_strmap_put(&x->used, nnfx_graph_param_name(g, i), (void *)1)) return oom(x);
    for (int i = nformal; capnames && i < nnfx_graph_num_inputs(g); i++)
        if (!nm_put(nm, nnfx_graph_input(g, i), capnames[i - nformal])) return oom(x);
    for (const nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n)) {
        nnfx_opcode oc = nnfx_node_opcode(n);
        if (oc == NNFX_GET_ATTR || oc == NNFX_OUTPUT) continue;
        if (oc == NNFX_CALL_MODULE)
            return nnfx_error_set(x->err, NNFX_ERR_UNSUPPORTED,
                                  "onnx export: node %s calls the user function '%s', which has no ONNX form",
                                  nnfx_node_name(n), nnfx_node_target(n));
        if (oc == NNFX_CALL_FUNCTION && nnfx_node_num_outputs(n) > 1) continue; /* named by its getitems */
        if (nm_get(nm, n)) continue;                                            /* a captured value */
        const char *want = ir_strmap_get(&x->orig, nnfx_node_name(n));
        if (!want) want = oc == NNFX_PLACEHOLDER ? nnfx_node_target(n) : nnfx_node_name(n);
        const char *name = claim(x, want);
        if (!name || !nm_put(nm, n, name)) return oom(x);
    }
    return NNFX_OK;
}

/* Phase 2: the graph inputs (a body: its formal inputs only, which may
 * stay untyped). */
static nnfx_status export_inputs(exp_ctx *x, const nnfx_graph *g, const name_map *nm, ow_buf *io, int nformal,
                                 const char *const *capnames) {
    for (int i = 0; i < (capnames ? nformal : nnfx_graph_num_inputs(g)); i++) {
        const nnfx_node *p = nnfx_graph_input(g, i);
        const nnfx_meta *m = nnfx_node_meta_c(p, 0);
        if (!capnames && (!m || m->dtype == NNFX_DTYPE_UNDEFINED))
            return nnfx_error_set(x->err, NNFX_ERR_SHAPE, "onnx export: input %s has no known dtype",
                                  nnfx_node_name(p));
        write_value_info(io, PB_GRAPH_INPUT, nm_get(nm, p), m);
    }
    return NNFX_OK;
}

/* Phase 3: the nodes, then an Identity for each getitem that repeats an
 * index already named. */
static nnfx_status export_nodes(exp_ctx *x, const nnfx_graph *g, name_map *nm, ow_buf *nodes, ow_buf *inits) {
    nnfx_status st;
    for (const nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n)) {
        if (nnfx_node_opcode(n) != NNFX_CALL_FUNCTION || nnfx_node_is_op(n, NNFX_OP_GETITEM)) continue;
        if ((st = write_node(x, nm, nodes, inits, n))) return st;
    }
    for (const nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n)) {
        if (!nnfx_node_is_op(n, NNFX_OP_GETITEM)) continue;
        const nnfx_node *tup = nnfx_node_arg_node(n, 0);
        nnfx_arg idx = nnfx_node_arg(n, 1);
        if (!tup || idx.kind != NNFX_ARG_INT) continue;
        const nnfx_node *first = NULL;
        for (int u = 0; u < nnfx_node_num_users(tup) && !first; u++) {
            const nnfx_node *o = nnfx_node_user(tup, u);
            nnfx_arg k = nnfx_node_arg(o, 1);
            if (nnfx_node_is_op(o, NNFX_OP_GETITEM) && k.kind == NNFX_ARG_INT && k.u.i == idx.u.i) first = o;
        }
        if (first && first != n) {
            size_t m = ow_begin_msg(nodes, PB_GRAPH_NODE);
            ow_put_string(nodes, PB_NODE_INPUT, nm_get(nm, first));
            ow_put_string(nodes, PB_NODE_OUTPUT, nm_get(nm, n));
            ow_put_string(nodes, PB_NODE_NAME, nnfx_node_name(n));
            ow_put_string(nodes, PB_NODE_OP_TYPE, "Identity");
            ow_end_msg(nodes, m);
        }
    }
    return NNFX_OK;
}

/* Phase 4: the graph outputs; a value returned twice, and a body returning
 * an input or an outer value, go through an Identity. */
static nnfx_status export_outputs(exp_ctx *x, const nnfx_node *outn, name_map *nm, ow_buf *nodes, ow_buf *io,
                                  const char *const *capnames) {
    ir_strmap seen = {0};
    nnfx_status st = NNFX_OK;
    for (int i = 0; i < nnfx_node_num_args(outn) && !st; i++) {
        const nnfx_node *v = nnfx_node_arg_node(outn, i);
        if (!v) {
            st = nnfx_error_set(x->err, NNFX_ERR_UNSUPPORTED, "onnx export: output %d is not a node", i);
            break;
        }
        const char *name = arg_name(x, nm, v);
        if (ir_strmap_get(&seen, name) || (capnames && nnfx_node_opcode(v) == NNFX_PLACEHOLDER)) {
            char want[300];
            snprintf(want, sizeof want, "%s_output%d", name, i);
            const char *alias = claim(x, want);
            if (!alias) {
                st = oom(x);
                break;
            }
            size_t m = ow_begin_msg(nodes, PB_GRAPH_NODE);
            ow_put_string(nodes, PB_NODE_INPUT, name);
            ow_put_string(nodes, PB_NODE_OUTPUT, alias);
            ow_put_string(nodes, PB_NODE_OP_TYPE, "Identity");
            ow_end_msg(nodes, m);
            name = alias;
        }
        ir_strmap_put(&seen, name, (void *)1);
        const nnfx_meta *m = nnfx_node_meta_c(v, 0);
        if (!capnames && (!m || m->dtype == NNFX_DTYPE_UNDEFINED))
            st = nnfx_error_set(x->err, NNFX_ERR_SHAPE,
                                "onnx export: output %s has no known dtype (run shape inference first)",
                                nnfx_node_name(v));
        else
            write_value_info(io, PB_GRAPH_OUTPUT, name, m);
    }
    ir_strmap_free(&seen);
    return st;
}

/* Marks the parameters written as initializers (x->params_used): those in
 * use, and those no get_attr reads (kept as they are); parameters only read
 * as Reduce axes folded back into attributes are left out. */
static nnfx_status mark_initializers(exp_ctx *x, const nnfx_graph *g) {
    for (const nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n))
        if (nnfx_node_opcode(n) == NNFX_GET_ATTR && !ir_strmap_get(&x->params_used, nnfx_node_target(n)) &&
            !ir_strmap_put(&x->params_read, nnfx_node_target(n), (void *)1))
            return oom(x);
    for (int i = 0; i < nnfx_graph_num_params(g); i++) {
        const char *pn = nnfx_graph_param_name(g, i);
        if (!ir_strmap_get(&x->params_read, pn) && !ir_strmap_put(&x->params_used, pn, (void *)1)) return oom(x);
    }
    return NNFX_OK;
}

/* Opens the side file of external data, refusing one the graph's own
 * weights are mapped from (it is about to be replaced). */
static nnfx_status ext_open(exp_ctx *x, const nnfx_graph *g, ext_plan *ext) {
    for (int k = 0; k < nnfx_graph_num_params(g); k++) {
        const nnfx_tensor *pt = nnfx_graph_param_at(g, k);
        if (pt->storage == NNFX_STORAGE_MAPPED && core_mapping_is_file(pt->mapping, ext->path))
            return nnfx_error_set(x->err, NNFX_ERR_INVALID_ARG,
                                  "%s: the external data file would replace the one the model's weights "
                                  "are read from (parameter '%s'); write to another name",
                                  ext->path, nnfx_graph_param_name(g, k));
    }
    nnfx_status st = core_file_begin(&ext->f, ext->path, x->err);
    if (!st) ext->open = true;
    return st;
}

/* Phase 5: the initializers, in the model or (external data, or a model
 * near the 2 GB protobuf limit) large ones in the side file. */
static nnfx_status export_initializers(exp_ctx *x, const nnfx_graph *g, const nnfx_onnx_save_options *opts,
                                       ext_plan *ext, ow_buf *inits) {
    nnfx_status st = mark_initializers(x, g);
    if (st) return st;
    size_t total = 0;
    for (int i = 0; i < nnfx_graph_num_params(g); i++)
        if (ir_strmap_get(&x->params_used, nnfx_graph_param_name(g, i))) total += nnfx_graph_param_at(g, i)->nbytes;
    bool external = (opts && opts->external_data) || total > TWO_GB - ((size_t)64 << 20);
    size_t threshold = opts && opts->external_threshold ? opts->external_threshold : 1024;
    for (int i = 0; i < nnfx_graph_num_params(g); i++) {
        const char *pn = nnfx_graph_param_name(g, i);
        const nnfx_tensor *t = nnfx_graph_param_at(g, i);
        if (!ir_strmap_get(&x->params_used, pn)) continue;
        if (!external || t->nbytes < threshold) {
            onnx_write_tensor(inits, PB_GRAPH_INITIALIZER, pn, t, NULL, 0);
            continue;
        }
        uint64_t off = 0;
        if ((!ext->open && (st = ext_open(x, g, ext))) || (st = ext_write(x, ext, t, &off))) return st;
        onnx_write_tensor(inits, PB_GRAPH_INITIALIZER, pn, t, ext->loc, off);
    }
    return NNFX_OK;
}

/* Builds the GraphProto into g_out, phase by phase (export_names ..
 * export_initializers). capnames: a body's (control flow) placeholders
 * from nformal on stand for these outer values (not inputs). */
static nnfx_status build_graph(exp_ctx *x, const nnfx_graph *g, ow_buf *gb, const nnfx_onnx_save_options *opts,
                               ext_plan *ext, int nformal, const char *const *capnames) {
    name_map nm = {0};
    ow_buf nodes = {0}, inits = {0}, io = {0};
    const nnfx_node *outn = nnfx_graph_output_node(g);
    nnfx_status st =
        outn ? NNFX_OK : nnfx_error_set(x->err, NNFX_ERR_GRAPH, "onnx export: the graph has no output node");
    if (!st) st = export_names(x, g, &nm, nformal, capnames);
    if (!st) st = export_inputs(x, g, &nm, &io, nformal, capnames);
    if (!st) st = export_nodes(x, g, &nm, &nodes, &inits);
    if (!st) st = export_outputs(x, outn, &nm, &nodes, &io, capnames);
    /* value_info for intermediate values with a known dtype */
    for (const nnfx_node *n = nnfx_graph_first(g); n && !st; n = nnfx_node_next(n)) {
        if (nnfx_node_opcode(n) != NNFX_CALL_FUNCTION || nnfx_node_num_outputs(n) != 1) continue;
        const nnfx_meta *m = nnfx_node_meta_c(n, 0);
        if (m && m->dtype != NNFX_DTYPE_UNDEFINED) write_value_info(&io, PB_GRAPH_VALUE_INFO, nm_get(&nm, n), m);
    }
    if (!st) st = export_initializers(x, g, opts, ext, &inits);
    if (!st) { /* GraphProto: nodes, name, initializers, doc, inputs/outputs/value_info */
        ow_put_raw(gb, nodes.p, nodes.len);
        ow_put_string(gb, PB_GRAPH_NAME,
                      x->info && x->info->graph_name ? x->info->graph_name
                      : capnames                     ? "body"
                                                     : "nnfx");
        ow_put_raw(gb, inits.p, inits.len);
        if (x->info && x->info->graph_doc) ow_put_string(gb, PB_GRAPH_DOC_STRING, x->info->graph_doc);
        ow_put_raw(gb, io.p, io.len);
        if (nodes.oom || inits.oom || io.oom) st = oom(x);
    }
    free((void *)nm.k);
    free((void *)nm.v);
    ow_buf_free(&nodes);
    ow_buf_free(&inits);
    ow_buf_free(&io);
    return st;
}

/* Writes graph attribute a (a control-flow body) with its own names and
 * initializers; value names stay unique across the whole model. */
static nnfx_status write_body(exp_ctx *x, ow_buf *b, const nnfx_attr *a, int nformal, const char *const *capnames) {
    const nnfx_graph *body = a->u.g;
    if (!body) return nnfx_error_set(x->err, NNFX_ERR_GRAPH, "onnx export: graph attribute %s is empty", a->name);
    exp_ctx s = *x;
    s.g = body;
    s.info = onnx_info_of(body);
    memset(&s.orig, 0, sizeof s.orig);
    memset(&s.orig_nodes, 0, sizeof s.orig_nodes);
    memset(&s.params_used, 0, sizeof s.params_used);
    memset(&s.params_read, 0, sizeof s.params_read);
    nnfx_status st = NNFX_OK;
    for (int i = 0; s.info && i < s.info->nnames && !st; i++)
        if (!ir_strmap_put(&s.orig, s.info->names[i].key, s.info->names[i].value)) st = oom(x);
    for (int i = 0; s.info && i < s.info->nnode_names && !st; i++)
        if (!ir_strmap_put(&s.orig_nodes, s.info->node_names[i].key, s.info->node_names[i].value)) st = oom(x);
    ow_buf gb = {0};
    if (!st) st = build_graph(&s, body, &gb, x->opts, x->ext, nformal, capnames ? capnames : (const char *const *)"");
    /* names and owned strings are shared with the enclosing graph */
    x->used = s.used;
    x->owned = s.owned;
    x->nowned = s.nowned;
    x->cap_owned = s.cap_owned;
    x->nextra = s.nextra;
    if (!st) {
        size_t m = ow_begin_msg(b, PB_NODE_ATTRIBUTE);
        ow_put_string(b, PB_ATTR_NAME, a->name);
        ow_put_bytes(b, PB_ATTR_G, gb.p, gb.len);
        ow_put_int(b, PB_ATTR_TYPE, PB_AT_GRAPH);
        ow_end_msg(b, m);
        if (gb.oom) st = oom(x);
    }
    ow_buf_free(&gb);
    ir_strmap_free(&s.orig);
    ir_strmap_free(&s.orig_nodes);
    ir_strmap_free(&s.params_used);
    ir_strmap_free(&s.params_read);
    return st;
}

/* The graph to write: g itself, or (when an output's dtype is unknown) a
 * copy with shapes inferred, in *copy (caller frees). */
static const nnfx_graph *graph_to_save(const nnfx_graph *g, nnfx_graph **copy) {
    bool unknown = false;
    const nnfx_node *outn = nnfx_graph_output_node(g);
    for (int i = 0; outn && i < nnfx_node_num_args(outn); i++) {
        const nnfx_node *v = nnfx_node_arg_node(outn, i);
        if (v && nnfx_node_meta_c(v, 0)->dtype == NNFX_DTYPE_UNDEFINED) unknown = true;
    }
    *copy = NULL;
    if (!unknown) return g;
    nnfx_error ie = {0};
    *copy = nnfx_graph_copy(g, NULL, &ie);
    return *copy && nnfx_graph_infer_shapes(*copy, &ie) == NNFX_OK ? *copy : g;
}

/* The side file of external data beside path: its name as the model
 * refers to it (ext->loc: opts->external_name, or the model's file name +
 * ".data") and its path (ext->path). Caller frees both. */
static nnfx_status ext_plan_init(exp_ctx *x, const char *path, const nnfx_onnx_save_options *opts, ext_plan *ext) {
    const char *slash = strrchr(path, '/');
    char *loc = NULL;
    if (opts && opts->external_name) {
        loc = ir_strdup(opts->external_name);
    } else {
        const char *base_name = slash ? slash + 1 : path;
        size_t n = strlen(base_name) + 6;
        loc = malloc(n);
        if (loc) snprintf(loc, n, "%s.data", base_name);
    }
    if (loc) {
        size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
        size_t n = dl + strlen(loc) + 1;
        ext->path = malloc(n);
        if (ext->path) {
            memcpy(ext->path, path, dl);
            strcpy(ext->path + dl, loc);
        }
    }
    ext->loc = loc;
    return loc && ext->path ? NNFX_OK : oom(x);
}

/* The ModelProto around GraphProto gb: versions, producer, opset imports
 * (other domains kept from the loaded model) and metadata (opts' entries
 * replace the model's of the same key). */
static void write_model(const exp_ctx *x, const nnfx_onnx_save_options *opts, const ow_buf *gb, ow_buf *model) {
    const onnx_model_info *info = x->info;
    int64_t irv = info && info->ir_version > 8 ? info->ir_version : 8;
    ow_put_int(model, PB_MODEL_IR_VERSION, irv);
    ow_put_string(model, PB_MODEL_PRODUCER_NAME, "nnfx");
    ow_put_string(model, PB_MODEL_PRODUCER_VERSION, NNFX_VERSION);
    if (info && info->domain) ow_put_string(model, PB_MODEL_DOMAIN, info->domain);
    if (info && info->model_version) ow_put_int(model, PB_MODEL_MODEL_VERSION, info->model_version);
    if (info && info->doc_string) ow_put_string(model, PB_MODEL_DOC_STRING, info->doc_string);
    ow_put_bytes(model, PB_MODEL_GRAPH, gb->p, gb->len);
    size_t m = ow_begin_msg(model, PB_MODEL_OPSET_IMPORT);
    ow_put_string(model, PB_OPSET_DOMAIN, "");
    ow_put_int(model, PB_OPSET_VERSION, x->opset);
    ow_end_msg(model, m);
    for (int i = 0; info && i < info->nopsets; i++) {
        const char *d = info->opsets[i].key;
        if (!d[0] || strcmp(d, "ai.onnx") == 0) continue;
        m = ow_begin_msg(model, PB_MODEL_OPSET_IMPORT);
        ow_put_string(model, PB_OPSET_DOMAIN, d);
        ow_put_int(model, PB_OPSET_VERSION, strtoll(info->opsets[i].value, NULL, 10));
        ow_end_msg(model, m);
    }
    int nextra = opts && opts->metadata_keys && opts->metadata_values ? opts->nmetadata : 0;
    for (int i = 0; info && i < info->nmeta; i++) {
        bool replaced = false;
        for (int k = 0; k < nextra && !replaced; k++)
            replaced = opts->metadata_keys[k] && strcmp(opts->metadata_keys[k], info->meta[i].key) == 0;
        if (replaced) continue;
        m = ow_begin_msg(model, PB_MODEL_METADATA_PROPS);
        ow_put_string(model, PB_KV_KEY, info->meta[i].key);
        ow_put_string(model, PB_KV_VALUE, info->meta[i].value);
        ow_end_msg(model, m);
    }
    for (int k = 0; k < nextra; k++) {
        if (!opts->metadata_keys[k]) continue;
        m = ow_begin_msg(model, PB_MODEL_METADATA_PROPS);
        ow_put_string(model, PB_KV_KEY, opts->metadata_keys[k]);
        ow_put_string(model, PB_KV_VALUE, opts->metadata_values[k] ? opts->metadata_values[k] : "");
        ow_end_msg(model, m);
    }
}

/* Writes the model and its side file as one unit: both in full under
 * temporary names first; then the side file is renamed, then the model. A
 * failure before the renames leaves both old files as they were. */
static nnfx_status write_files(const char *path, const ow_buf *model, ext_plan *ext, nnfx_error *err) {
    core_file mf;
    bool mopen = false;
    nnfx_status st = core_file_begin(&mf, path, err);
    if (!st) mopen = true;
    if (!st) st = core_file_write(&mf, model->p, model->len, err);
    if (!st) st = core_file_finish(&mf, err);
    if (!st && ext->open) st = core_file_finish(&ext->f, err);
    if (!st && ext->open) st = core_file_commit(&ext->f, err);
    if (!st) st = core_file_commit(&mf, err);
    if (mopen) core_file_abort(&mf); /* no-op after a commit */
    return st;
}

nnfx_status nnfx_onnx_save(const nnfx_graph *g_in, const char *path, const nnfx_onnx_save_options *opts,
                           nnfx_error *err) {
    if (!g_in || !path) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "onnx_save: NULL graph or path");
    nnfx_error local = {0};
    if (!err) err = &local;
    /* inputs/outputs need dtypes: infer them on a copy when some are unknown */
    nnfx_graph *copy;
    const nnfx_graph *g = graph_to_save(g_in, &copy);
    exp_ctx x;
    memset(&x, 0, sizeof x);
    x.g = g;
    x.err = err;
    x.info = onnx_info_of(g);
    nnfx_status st = NNFX_OK;
    x.opset = nnfx_onnx_export_opset(g, opts ? opts->opset : 0, NULL, err);
    if (x.opset < 0) st = err->status;
    if (x.info) {
        for (int i = 0; i < x.info->nnames; i++)
            if (!ir_strmap_put(&x.orig, x.info->names[i].key, x.info->names[i].value)) st = oom(&x);
        for (int i = 0; i < x.info->nnode_names; i++)
            if (!ir_strmap_put(&x.orig_nodes, x.info->node_names[i].key, x.info->node_names[i].value)) st = oom(&x);
    }
    ext_plan ext = {0};
    nnfx_status est = ext_plan_init(&x, path, opts, &ext);
    if (!st) st = est;
    ow_buf model = {0}, gb = {0};
    x.opts = opts;
    x.ext = &ext;
    if (!st) st = build_graph(&x, g, &gb, opts, &ext, 0, NULL);
    if (!st) write_model(&x, opts, &gb, &model);
    if (!st && (model.oom || gb.oom)) st = oom(&x);
    if (!st) st = write_files(path, &model, &ext, err);
    if (ext.open) core_file_abort(&ext.f); /* no-op after a commit */
    ow_buf_free(&model);
    ow_buf_free(&gb);
    free((void *)ext.loc);
    free(ext.path);
    for (int i = 0; i < x.nowned; i++)
        free(x.owned[i]);
    free(x.owned);
    ir_strmap_free(&x.orig);
    ir_strmap_free(&x.orig_nodes);
    ir_strmap_free(&x.used);
    ir_strmap_free(&x.params_used);
    ir_strmap_free(&x.params_read);
    nnfx_graph_free(copy);
    return st;
}
