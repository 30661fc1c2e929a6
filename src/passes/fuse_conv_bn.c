/* fuse_conv_bn.c — folds BatchNormalization into the Conv, Gemm or MatMul
 * that feeds it. With s = scale / sqrt(var + eps), per output channel m:
 *   W'[m, ...] = W[m, ...] * s[m],   b'[m] = (b[m] - mean[m]) * s[m] + beta[m]
 * computed in double precision into new parameters. Skipped (and reported)
 * when the producer has other users, a weight is not a get_attr parameter,
 * shapes do not fit, or the BN runs in training mode. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"
#include "passes/passes_int.h"

/* The parameter tensor behind argument i of n when it is a float32
 * get_attr, else NULL. */
static nnfx_tensor *const_arg(nnfx_graph *g, const nnfx_node *n, int i) {
    nnfx_node *a = nnfx_node_arg_node(n, i);
    if (!a || a->opcode != NNFX_GET_ATTR) return NULL;
    nnfx_tensor *t = a->graph == g ? ir_node_param(a) : nnfx_graph_param(g, a->target);
    return t && t->dtype == NNFX_F32 ? t : NULL;
}

/* Per-channel BN factors: s[m] and shift[m] = beta[m] - mean[m] * s[m]. */
typedef struct bn_fold {
    int64_t c;
    double *s, *mean, *beta;
} bn_fold;

static const char *bn_read(nnfx_graph *g, nnfx_node *bn, bn_fold *f) {
    memset(f, 0, sizeof *f);
    if (nnfx_node_attr_int(bn, "training_mode", 0) != 0) return "the BatchNormalization runs in training mode";
    nnfx_tensor *t[4];
    for (int i = 0; i < 4; i++) {
        t[i] = const_arg(g, bn, i + 1);
        if (!t[i]) return "a BatchNormalization parameter is not a constant (get_attr) float32 tensor";
    }
    int64_t c = nnfx_tensor_numel(t[0]);
    for (int i = 1; i < 4; i++)
        if (nnfx_tensor_numel(t[i]) != c) return "BatchNormalization parameters differ in size";
    double eps = nnfx_node_attr_float(bn, "epsilon", 1e-5);
    f->c = c;
    f->s = malloc(sizeof(double) * (size_t)(c ? c : 1));
    f->mean = malloc(sizeof(double) * (size_t)(c ? c : 1));
    f->beta = malloc(sizeof(double) * (size_t)(c ? c : 1));
    if (!f->s || !f->mean || !f->beta) return "out of memory";
    for (int64_t m = 0; m < c; m++) {
        double var = nnfx_tensor_get(t[3], m);
        if (!(var + eps > 0)) return "BatchNormalization variance + epsilon is not positive";
        f->s[m] = nnfx_tensor_get(t[0], m) / sqrt(var + eps);
        f->mean[m] = nnfx_tensor_get(t[2], m);
        f->beta[m] = nnfx_tensor_get(t[1], m);
    }
    return NULL;
}

static void bn_free(bn_fold *f) {
    free(f->s);
    free(f->mean);
    free(f->beta);
}

/* W scaled along axis `axis` (0: rows = output channels; 1: columns). */
static nnfx_tensor *scaled_weight(const nnfx_tensor *w, const bn_fold *f, int axis, nnfx_error *err) {
    nnfx_tensor *o = nnfx_tensor_new(NNFX_F32, w->rank, w->shape, err);
    if (!o) return NULL;
    int64_t n = nnfx_tensor_numel(w);
    int64_t rows = w->shape[0], inner = rows ? n / rows : 0;
    float *d = o->data;
    for (int64_t i = 0; i < n; i++) {
        int64_t m = axis == 0 ? i / (inner ? inner : 1) : i % (inner ? inner : 1);
        d[i] = (float)(nnfx_tensor_get(w, i) * f->s[m]);
    }
    return o;
}

/* New bias: s * (b0 * bscale - mean) + beta, b0 NULL meaning zeros. */
static nnfx_tensor *folded_bias(const nnfx_tensor *b0, double bscale, const bn_fold *f, nnfx_error *err) {
    int64_t shape[1] = {f->c};
    nnfx_tensor *o = nnfx_tensor_new(NNFX_F32, 1, shape, err);
    if (!o) return NULL;
    float *d = o->data;
    int64_t nb = b0 ? nnfx_tensor_numel(b0) : 0;
    for (int64_t m = 0; m < f->c; m++) {
        double b = b0 ? nnfx_tensor_get(b0, nb == 1 ? 0 : m) * bscale : 0.0;
        d[m] = (float)((b - f->mean[m]) * f->s[m] + f->beta[m]);
    }
    return o;
}

static const char *param_name(const nnfx_node *n, int i) {
    nnfx_node *a = nnfx_node_arg_node(n, i);
    return a ? a->target : n->name;
}

/* Fuses bn into conv; returns NULL or the reason it was skipped. */
static const char *fuse_conv(nnfx_graph *g, nnfx_node *conv, nnfx_node *bn, const bn_fold *f, nnfx_status *st,
                             nnfx_error *err) {
    nnfx_tensor *w = const_arg(g, conv, 1);
    if (!w || w->rank < 3) return "the conv weight is not a constant (get_attr) float32 tensor";
    if (w->shape[0] != f->c) return "BatchNormalization channels differ from the conv's output channels";
    nnfx_tensor *b = NULL;
    if (conv->nargs > 2 && conv->args[2].kind == NNFX_ARG_NODE) {
        b = const_arg(g, conv, 2);
        if (!b || nnfx_tensor_numel(b) != f->c) return "the conv bias is not a constant float32 tensor of C values";
    }
    char bbase[256];
    snprintf(bbase, sizeof bbase, "%s", b ? param_name(conv, 2) : param_name(conv, 1));
    if (!b) {
        char *dot = strrchr(bbase, '.');
        snprintf(dot ? dot + 1 : bbase, sizeof bbase - (size_t)(dot ? dot + 1 - bbase : 0), "%s", "bias");
    }
    /* the new names' table slots load while the new tensors are computed */
    ir_graph_prefetch_new_param(g, param_name(conv, 1), "_fused");
    ir_graph_prefetch_new_param(g, bbase, "_fused");
    nnfx_tensor *nw = scaled_weight(w, f, 0, err), *nb = folded_bias(b, 1.0, f, err);
    nnfx_node *wn = NULL, *bnode = NULL;
    if (nw && nb) {
        nnfx_inserting_before(g, conv);
        wn = ir_graph_new_param(g, param_name(conv, 1), "_fused", nw, err);
        if (wn) bnode = ir_graph_new_param(g, bbase, "_fused", nb, err);
    }
    nnfx_tensor_release(nw);
    nnfx_tensor_release(nb);
    if (!bnode) {
        *st = err && err->status ? err->status : NNFX_ERR_NOMEM;
        return NULL;
    }
    nnfx_arg args[3] = {conv->args[0], nnfx_arg_node(wn), nnfx_arg_node(bnode)};
    if ((*st = nnfx_node_set_args(conv, 3, args, err))) return NULL;
    if (nnfx_replace_all_uses_with(bn, conv, NULL, NULL) < 0) {
        *st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    *st = nnfx_erase_node(g, bn, err);
    return NULL;
}

/* Fuses bn into a Gemm (or a rank-2 MatMul, which becomes a Gemm). */
static const char *fuse_gemm(nnfx_graph *g, nnfx_node *mm, nnfx_node *bn, const bn_fold *f, nnfx_status *st,
                             nnfx_error *err) {
    bool is_gemm = mm->op == NNFX_OP_GEMM;
    nnfx_node *a = nnfx_node_arg_node(mm, 0);
    if (!a) return "the first input is not a node";
    const nnfx_meta *am = &a->meta[0];
    if (!is_gemm && am->rank != 2)
        return "the matmul output is not rank 2, so BatchNormalization's channel axis is not its last dimension";
    nnfx_tensor *w = const_arg(g, mm, 1);
    if (!w || w->rank != 2) return "the weight is not a constant (get_attr) float32 matrix";
    bool transb = is_gemm && nnfx_node_attr_int(mm, "transB", 0) != 0;
    int64_t m_out = transb ? w->shape[0] : w->shape[1];
    if (m_out != f->c) return "BatchNormalization channels differ from the output features";
    nnfx_tensor *c = NULL;
    double beta = is_gemm ? nnfx_node_attr_float(mm, "beta", 1.0) : 1.0;
    if (is_gemm && mm->nargs > 2 && mm->args[2].kind == NNFX_ARG_NODE) {
        c = const_arg(g, mm, 2);
        if (!c) return "the gemm bias is not a constant (get_attr) float32 tensor";
        int64_t nc = nnfx_tensor_numel(c);
        bool row = c->rank <= 1 || (c->rank == 2 && c->shape[0] == 1);
        if (!(nc == 1 || (nc == f->c && row))) return "the gemm bias is not per output feature";
    }
    ir_graph_prefetch_new_param(g, param_name(mm, 1), "_fused");
    ir_graph_prefetch_new_param(g, c ? param_name(mm, 2) : param_name(mm, 1), c ? "_fused" : "_bias_fused");
    nnfx_tensor *nw = scaled_weight(w, f, transb ? 0 : 1, err), *nb = folded_bias(c, beta, f, err);
    nnfx_node *wn = NULL, *bnode = NULL;
    if (nw && nb) {
        nnfx_inserting_before(g, mm);
        wn = ir_graph_new_param(g, param_name(mm, 1), "_fused", nw, err);
        if (wn)
            bnode =
                ir_graph_new_param(g, c ? param_name(mm, 2) : param_name(mm, 1), c ? "_fused" : "_bias_fused", nb, err);
    }
    nnfx_tensor_release(nw);
    nnfx_tensor_release(nb);
    if (!bnode) {
        *st = err && err->status ? err->status : NNFX_ERR_NOMEM;
        return NULL;
    }
    nnfx_arg args[3] = {mm->args[0], nnfx_arg_node(wn), nnfx_arg_node(bnode)};
    nnfx_node *out = mm;
    if (is_gemm) {
        nnfx_attr one = nnfx_attr_float("beta", 1.0);
        if ((*st = nnfx_node_set_args(mm, 3, args, err)) || (*st = nnfx_node_set_attr(mm, &one, err))) return NULL;
    } else {
        nnfx_inserting_before(g, mm);
        out = nnfx_graph_call_op(g, NNFX_OP_GEMM, 3, args, 0, NULL, err);
        if (!out) {
            *st = err && err->status ? err->status : NNFX_ERR_NOMEM;
            return NULL;
        }
        if (mm->module_path) nnfx_node_set_module_path(out, mm->module_path, NULL);
    }
    if (nnfx_replace_all_uses_with(bn, out, NULL, NULL) < 0) {
        *st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if ((*st = nnfx_erase_node(g, bn, err))) return NULL;
    if (out != mm) *st = nnfx_erase_node(g, mm, err);
    return NULL;
}

/* The get_attr inputs of a fusion (the producer's and the BN's parameter
 * nodes): up to two of the producer's and four of the BN's. */
typedef struct fused_inputs {
    int n;
    nnfx_node *node[6];
} fused_inputs;

/* Collects the get_attr nodes among args [from, to) of n into *in and
 * prefetches their name-table slots, which erasing them will write. */
static void collect_inputs(const nnfx_graph *g, const nnfx_node *n, int from, int to, fused_inputs *in) {
    for (int i = from; i < to && i < n->nargs && in->n < 6; i++) {
        nnfx_node *a = nnfx_node_arg_node(n, i);
        if (!a || a->opcode != NNFX_GET_ATTR) continue;
        ir_names_prefetch(&g->names, a->name_hash);
        __builtin_prefetch(a->name);
        __builtin_prefetch(a->target);
        in->node[in->n++] = a;
    }
}

/* Erases each node of *in (once) that the fusion left without users. The
 * final sweep (ir_graph_drop_dead_params) would erase them too; erasing
 * them here frees their slots for the next fusion's two new parameter
 * nodes, which then sit in memory beside the nodes they are listed with,
 * instead of in a fresh chunk: later walks over a large fused graph keep
 * to memory order. `next` (the loop's next node) is never erased. */
static void erase_dead_inputs(nnfx_graph *g, const fused_inputs *in, const nnfx_node *next) {
    for (int i = 0; i < in->n; i++) {
        nnfx_node *a = in->node[i];
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = in->node[j] == a;
        if (!seen && a != next && a->nusers == 0) nnfx_erase_node(g, a, NULL);
    }
}

nnfx_status nnfx_pass_fuse_conv_bn(nnfx_graph *g, nnfx_pass_report *report, nnfx_error *err) {
    if (!g) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "fuse-conv-bn: NULL graph");
    ps_begin(report, "fuse-conv-bn", g);
    nnfx_graph_infer_shapes(g, NULL); /* ranks for the MatMul case; unknown is fine */
    nnfx_status st = NNFX_OK;
    for (nnfx_node *bn = nnfx_graph_first(g), *next; bn && !st; bn = next) {
        next = bn->next;
        ir_node_prefetch(bn, 16);
        if (!nnfx_node_is_op(bn, NNFX_OP_BATCH_NORM)) continue;
        ir_names_prefetch(&g->names, bn->name_hash); /* the slot erasing a fused BN writes */
        nnfx_node *src = nnfx_node_arg_node(bn, 0);
        if (!src || src->opcode != NNFX_CALL_FUNCTION ||
            (src->op != NNFX_OP_CONV && src->op != NNFX_OP_GEMM && src->op != NNFX_OP_MATMUL))
            continue;
        if (src->nusers != 1) {
            ps_skip(report, bn->name, "%s output %%%s has %d users; folding would change the others",
                    nnfx_op_name(src->op), src->name, src->nusers);
            continue;
        }
        if (src->nout != 1) continue;
        bn_fold f;
        const char *why = bn_read(g, bn, &f);
        fused_inputs in = {0};
        if (!why) {
            collect_inputs(g, src, 1, 3, &in);
            collect_inputs(g, bn, 1, 5, &in);
            why = src->op == NNFX_OP_CONV ? fuse_conv(g, src, bn, &f, &st, err) : fuse_gemm(g, src, bn, &f, &st, err);
        }
        bn_free(&f);
        if (!why && !st) erase_dead_inputs(g, &in, next);
        if (why && strcmp(why, "out of memory") == 0)
            st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        else if (why)
            ps_skip(report, bn->name, "%s", why);
        else if (!st && report)
            report->changed++;
    }
    nnfx_inserting_at_end(g);
    ir_graph_drop_dead_params(g);
    nnfx_graph_infer_shapes(g, NULL);
    ps_end(report, g);
    return st;
}
