/* codegen.c — nnfx_codegen: the compiled plan written down as standalone
 * C99. The generator builds the same plan the runtime executes
 * (src/exec/fast_plan.c: constants folded, reshape-likes as views, convs
 * with fused epilogues, one activation arena with lifetime-based offsets),
 * then emits one call per step into small portable kernels whose text is
 * src/rt/ (embedded at build time; the interpreter compiles the
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
#include "exec/plan_view.h"
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
bool cg_has_section(const char *name) {
    const char *t, *fl;
    size_t len, flen;
    return section_text(name, &t, &len, &fl, &flen);
}

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
    if (strlen(name) >= CG_SECTION_NAME) { /* would be cut and then not found */
        c->sections_oom = true;
        return;
    }
    if (c->nsections == c->sections_cap) {
        int cap = c->sections_cap ? 2 * c->sections_cap : 64;
        char(*grown)[CG_SECTION_NAME] = realloc(c->sections, (size_t)cap * sizeof *grown);
        if (!grown) {
            c->sections_oom = true;
            return;
        }
        c->sections = grown, c->sections_cap = cap;
    }
    snprintf(c->sections[c->nsections++], sizeof c->sections[0], "%s", name);
}

void cg_sections_free(cg *c) {
    free(c->sections);
    c->sections = NULL, c->nsections = c->sections_cap = 0;
}

/* ---- values --------------------------------------------------------------- */

int node_index(const cg *c, const nnfx_node *n) {
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

nnfx_status walk_plan(cg *c) {
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
                  " * Kernels: src/rt/ of nnfx (the same definitions its runtime runs). */\n"
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
              " * Kernels: src/rt/ of nnfx (the same scalar definitions its interpreter runs). */\n"
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
            int64_t h = n->op == NNFX_OP_GRU && !ir_attr_int(n, "linear_before_reset")
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
    if (n->nargs < 2 || ir_attr_int(n, "block_size")) return false;
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

nnfx_status nnfx_codegen(nnfx_graph *g, const nnfx_codegen_options *opts, nnfx_codegen_files *out, nnfx_error *err) {
    if (!g || !out) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "codegen: NULL graph or output");
    memset(out, 0, sizeof *out);
    static const nnfx_codegen_options defaults = {0};
    nnfx_codegen_options o = opts ? *opts : defaults;
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

/* nnfx_codegen on a linted graph with inferred shapes: a pass with the
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
    if (c.sections_oom) {
        st = nnfx_error_set(
            err, NNFX_ERR_NOMEM,
            "codegen: %s: a runtime section could not be recorded (out of memory, or a name of %d characters or more)",
            name, CG_SECTION_NAME);
        goto done;
    }
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
    cg_sections_free(&c);
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
