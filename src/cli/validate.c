/* validate.c — runs two models on the same inputs, compares outputs within
 * a tolerance, finds the first diverging node through the Interpreter's
 * run_node hook, and measures top-1 accuracy against labels. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/validate.h"

/* A compiled copy of a graph whose placeholders are pinned to the shapes of
 * one sample's inputs. */
static nnfx_gm *compile_for(const char *cmd, const nnfx_graph *g, const char *file, const cli_inputs *in) {
    nnfx_error err = {0};
    nnfx_graph *c = nnfx_graph_copy(g, NULL, &err);
    if (!c) {
        cli_fail(cmd, file, &err);
        return NULL;
    }
    cli_inputs_pin_shapes(c, in);
    nnfx_gm *gm = nnfx_gm_new(c, &err);
    if (!gm) {
        nnfx_graph_free(c);
        cli_fail(cmd, file, &err);
        return NULL;
    }
    if (nnfx_gm_recompile(gm, &err)) {
        cli_fail(cmd, file, &err);
        nnfx_gm_free(gm);
        return NULL;
    }
    return gm;
}

/* Binds the inputs of a (in a's placeholder order) to b's placeholders by
 * name; fills mapped (n = b's inputs, borrowed references). */
static int map_inputs(const char *cmd, const nnfx_graph *a, const nnfx_graph *b, const char *file_b,
                      const cli_inputs *in, cli_inputs *mapped) {
    int nb = nnfx_graph_num_inputs(b);
    mapped->n = nb;
    mapped->t = calloc((size_t)(nb ? nb : 1), sizeof *mapped->t);
    if (!mapped->t) {
        mapped->n = 0;
        cli_error(cmd, "out of memory");
        return CLI_EXIT_BAD_INPUT;
    }
    for (int i = 0; i < nb; i++) {
        const char *name = nnfx_node_name(nnfx_graph_input(b, i));
        for (int k = 0; k < nnfx_graph_num_inputs(a) && k < in->n; k++)
            if (strcmp(nnfx_node_name(nnfx_graph_input(a, k)), name) == 0) mapped->t[i] = in->t[k];
        if (!mapped->t[i]) {
            cli_error(cmd, "%s: input '%s' is not an input of the other model: the models cannot be compared", file_b,
                      name);
            free(mapped->t);
            mapped->t = NULL;
            mapped->n = 0;
            return CLI_EXIT_BAD_INPUT;
        }
    }
    return CLI_EXIT_OK;
}

/* Compares two tensors; updates the maxima; returns false (and writes why
 * into detail when empty) when some element is out of tolerance. */
static bool tensors_close(const nnfx_tensor *x, const nnfx_tensor *y, double atol, double rtol, double *max_abs,
                          double *max_rel, char *detail, size_t dlen, const char *what) {
    char sx[128], sy[128];
    if (x->rank != y->rank || memcmp(x->shape, y->shape, sizeof x->shape[0] * (size_t)x->rank) != 0) {
        if (detail && !detail[0])
            snprintf(detail, dlen, "%s: shapes differ (%s vs %s)", what,
                     nnfx_shape_str(x->rank, x->shape, sx, sizeof sx),
                     nnfx_shape_str(y->rank, y->shape, sy, sizeof sy));
        *max_abs = INFINITY;
        return false;
    }
    int64_t n = nnfx_tensor_numel(x);
    bool ok = true;
    bool f32 = x->dtype == NNFX_F32 && y->dtype == NNFX_F32;
    const float *fx = x->data, *fy = y->data;
    for (int64_t i = 0; i < n; i++) {
        double a = f32 ? fx[i] : nnfx_tensor_get(x, i), b = f32 ? fy[i] : nnfx_tensor_get(y, i);
        double d = fabs(a - b);
        if (isnan(a) != isnan(b))
            d = INFINITY;
        else if (isnan(a))
            d = 0;
        else if (isinf(a) || isinf(b))
            d = a == b ? 0 : INFINITY;
        if (d > *max_abs) *max_abs = d;
        if (fabs(a) > 0 && d / fabs(a) > *max_rel) *max_rel = d / fabs(a);
        if (!(d <= atol + rtol * fabs(a))) {
            if (ok && detail && !detail[0])
                snprintf(detail, dlen, "%s: element %lld is %.9g, expected %.9g (|diff| %.3g > %.3g)", what,
                         (long long)i, b, a, d, atol + rtol * fabs(a));
            ok = false;
        }
    }
    return ok;
}

/* --- the first diverging node ------------------------------------------------ */

typedef struct divergence {
    nnfx_gm *gm_a; /* the reference graph being run               */
    const nnfx_graph *ga;
    nnfx_value_map *pos;  /* node of ga -> index + 1                     */
    nnfx_value_set *vals; /* recorded values of ga's nodes               */
    int n;
    double atol, rtol;
    char found[256];
} divergence;

static bool is_op_node(const nnfx_node *n) {
    nnfx_opcode oc = nnfx_node_opcode(n);
    return oc == NNFX_CALL_FUNCTION || oc == NNFX_CALL_MODULE;
}

static nnfx_status record_node(nnfx_interp *ip, const nnfx_node *n, nnfx_value_set *out, nnfx_error *err) {
    nnfx_status st = nnfx_interp_default_run_node(ip, n, out, err);
    divergence *dv = nnfx_interp_user(ip);
    if (st || !is_op_node(n)) return st;
    int k = (int)(intptr_t)nnfx_value_map_get(dv->pos, n) - 1;
    if (k < 0) return st;
    dv->vals[k].num = out->num;
    for (int i = 0; i < out->num; i++)
        dv->vals[k].t[i] = nnfx_tensor_retain(out->t[i]);
    return st;
}

/* True when b's node n computes what a's node of the same name computes:
 * same op, same literal arguments, the same parameters (data inputs may
 * have been rewired). */
static const nnfx_node *corresponding(const divergence *dv, const nnfx_node *n) {
    const nnfx_node *m = nnfx_graph_find(dv->ga, nnfx_node_name(n));
    if (!m || nnfx_node_opcode(m) != nnfx_node_opcode(n) || nnfx_node_op(m) != nnfx_node_op(n)) return NULL;
    if (strcmp(nnfx_node_target(m), nnfx_node_target(n)) != 0) return NULL;
    if (nnfx_node_num_args(m) != nnfx_node_num_args(n)) return NULL;
    for (int i = 0; i < nnfx_node_num_args(n); i++) {
        nnfx_arg x = nnfx_node_arg(m, i), y = nnfx_node_arg(n, i);
        if (x.kind != y.kind) return NULL;
        /* parameters must be the same ones (a pass that rewrites weights, such as
         * fuse-conv-bn, makes a different computation); a data input may have
         * been rewired (relu -> sigmoid before a conv) and still corresponds */
        if (x.kind == NNFX_ARG_NODE && nnfx_node_opcode(x.u.node) == NNFX_GET_ATTR &&
            (nnfx_node_opcode(y.u.node) != NNFX_GET_ATTR ||
             strcmp(nnfx_node_target(x.u.node), nnfx_node_target(y.u.node)) != 0))
            return NULL;
        if (x.kind == NNFX_ARG_INT && x.u.i != y.u.i) return NULL;
        if (x.kind == NNFX_ARG_FLOAT && x.u.f != y.u.f) return NULL;
    }
    return m;
}

static nnfx_status check_node(nnfx_interp *ip, const nnfx_node *n, nnfx_value_set *out, nnfx_error *err) {
    nnfx_status st = nnfx_interp_default_run_node(ip, n, out, err);
    divergence *dv = nnfx_interp_user(ip);
    if (st || dv->found[0] || !is_op_node(n)) return st;
    const nnfx_node *m = corresponding(dv, n);
    int k = m ? (int)(intptr_t)nnfx_value_map_get(dv->pos, m) - 1 : -1;
    if (k < 0 || dv->vals[k].num != out->num) return st;
    for (int i = 0; i < out->num; i++) {
        double ma = 0, mr = 0;
        if (!dv->vals[k].t[i] || !out->t[i]) continue;
        if (!tensors_close(dv->vals[k].t[i], out->t[i], dv->atol, dv->rtol, &ma, &mr, NULL, 0, "")) {
            snprintf(dv->found, sizeof dv->found, "%s", nnfx_node_name(n));
            break;
        }
    }
    return st;
}

/* Runs both compiled models once more, recording a's node values, and
 * names the first corresponding node of b whose value differs. */
static void find_divergence(nnfx_gm *ga, nnfx_gm *gb, const cli_inputs *in_a, const cli_inputs *in_b, double atol,
                            double rtol, char *found, size_t len) {
    divergence dv = {0};
    dv.ga = nnfx_gm_graph(ga);
    dv.atol = atol;
    dv.rtol = rtol;
    dv.n = nnfx_graph_num_nodes(dv.ga);
    dv.pos = nnfx_value_map_new();
    dv.vals = calloc((size_t)(dv.n ? dv.n : 1), sizeof *dv.vals);
    nnfx_interp *ia = NULL, *ib = NULL;
    nnfx_tensor *outs[64];
    int nout = 0;
    if (!dv.pos || !dv.vals) goto done;
    int i = 0;
    for (const nnfx_node *n = nnfx_graph_first(dv.ga); n; n = nnfx_node_next(n), i++)
        if (!nnfx_value_map_put(dv.pos, n, (nnfx_node *)(intptr_t)(i + 1))) goto done;
    nnfx_error err = {0};
    nnfx_interp_handlers ha = {0}, hb = {0};
    ha.run_node = record_node;
    hb.run_node = check_node;
    ia = nnfx_interp_new(dv.ga, &ha, &dv, &err);
    ib = nnfx_interp_new(nnfx_gm_graph(gb), &hb, &dv, &err);
    if (!ia || !ib) goto done;
    if (nnfx_interp_run(ia, in_a->n, in_a->t, 64, outs, &nout, &err) == NNFX_OK)
        for (int k = 0; k < nout; k++)
            nnfx_tensor_release(outs[k]);
    nout = 0;
    if (nnfx_interp_run(ib, in_b->n, in_b->t, 64, outs, &nout, &err) == NNFX_OK)
        for (int k = 0; k < nout; k++)
            nnfx_tensor_release(outs[k]);
    snprintf(found, len, "%s", dv.found);
done:
    nnfx_interp_free(ia);
    nnfx_interp_free(ib);
    if (dv.vals)
        for (int k = 0; k < dv.n; k++)
            for (int j = 0; j < dv.vals[k].num; j++)
                nnfx_tensor_release(dv.vals[k].t[j]);
    free(dv.vals);
    nnfx_value_map_free(dv.pos);
}

/* --- sample loop -------------------------------------------------------------- */

static int load_sample(const char *cmd, const nnfx_graph *a, const cli_samples *s, long k, cli_inputs *in) {
    if (s->random > 0) return cli_inputs_random(cmd, a, (uint64_t)k + 1, in);
    return cli_inputs_load(cmd, a, s->nfiles, s->files, in);
}

/* Runs gm on in; outs gets up to max references. */
static int run_gm(const char *cmd, nnfx_gm *gm, const char *file, const cli_inputs *in, nnfx_tensor **outs, int max,
                  int *nout) {
    nnfx_error err = {0};
    *nout = 0;
    if (nnfx_gm_run(gm, in->n, in->t, max, outs, nout, &err)) {
        cli_fail(cmd, file, &err);
        return CLI_EXIT_BAD_INPUT;
    }
    return CLI_EXIT_OK;
}

int cli_compare_graphs(const char *cmd, const nnfx_graph *a, const char *file_a, const nnfx_graph *b,
                       const char *file_b, const cli_samples *s, double atol, double rtol, bool quiet,
                       cli_compare_result *r) {
    memset(r, 0, sizeof *r);
    r->passed = true;
    double t0 = cli_now_ms();
    long total = s->random > 0 ? s->random : 1;
    cli_progress bar;
    cli_progress_start(&bar, "validate", total, quiet);
    int rc = CLI_EXIT_OK;
    nnfx_gm *ga = NULL, *gb = NULL; /* compiled for the first sample's shapes (all samples share them) */
    for (long k = 0; k < total && !rc; k++) {
        cli_inputs in = {0}, in_b = {0};
        nnfx_tensor *oa[64] = {0}, *ob[64] = {0};
        int na = 0, nb = 0;
        rc = load_sample(cmd, a, s, k, &in);
        if (rc) break;
        rc = map_inputs(cmd, a, b, file_b, &in, &in_b);
        if (!rc && !ga && !(ga = compile_for(cmd, a, file_a, &in))) rc = CLI_EXIT_BAD_INPUT;
        if (!rc && !gb && !(gb = compile_for(cmd, b, file_b, &in_b))) rc = CLI_EXIT_BAD_INPUT;
        if (!rc) rc = run_gm(cmd, ga, file_a, &in, oa, 64, &na);
        if (!rc) rc = run_gm(cmd, gb, file_b, &in_b, ob, 64, &nb);
        if (!rc) {
            r->samples++;
            r->rows += in.n > 0 && in.t[0] && in.t[0]->rank >= 1 ? (long)in.t[0]->shape[0] : 1;
            r->outputs = na;
            bool ok = true;
            if (na != nb) {
                if (!r->detail[0])
                    snprintf(r->detail, sizeof r->detail, "%s returns %d output%s, %s returns %d", file_a, na,
                             na == 1 ? "" : "s", file_b, nb);
                ok = false;
            }
            for (int i = 0; i < na && i < nb; i++) {
                char what[160];
                const nnfx_node *on = nnfx_graph_output_node(nnfx_gm_graph(ga));
                const nnfx_node *src = on ? nnfx_node_arg_node(on, i) : NULL;
                if (s->random > 0)
                    snprintf(what, sizeof what, "output %d (%s), random sample %ld", i, src ? nnfx_node_name(src) : "?",
                             k + 1);
                else
                    snprintf(what, sizeof what, "output %d (%s)", i, src ? nnfx_node_name(src) : "?");
                if (!tensors_close(oa[i], ob[i], atol, rtol, &r->max_abs, &r->max_rel, r->detail, sizeof r->detail,
                                   what))
                    ok = false;
            }
            if (!ok && r->passed) {
                r->passed = false;
                find_divergence(ga, gb, &in, &in_b, atol, rtol, r->diverging, sizeof r->diverging);
            }
        }
        for (int i = 0; i < na; i++)
            nnfx_tensor_release(oa[i]);
        for (int i = 0; i < nb; i++)
            nnfx_tensor_release(ob[i]);
        free(in_b.t); /* borrowed references */
        cli_inputs_free(&in);
        cli_progress_step(&bar, k + 1);
    }
    cli_progress_end(&bar);
    nnfx_gm_free(ga);
    nnfx_gm_free(gb);
    r->ms = cli_now_ms() - t0;
    return rc;
}

/* Index of the largest of n values at p (stride 1). */
static int64_t argmax_row(const nnfx_tensor *t, int64_t off, int64_t n) {
    int64_t best = 0;
    double bv = nnfx_tensor_get(t, off);
    for (int64_t j = 1; j < n; j++) {
        double v = nnfx_tensor_get(t, off + j);
        if (v > bv) {
            bv = v;
            best = j;
        }
    }
    return best;
}

/* Percent of rows of out whose argmax equals the label. */
static int top1(const char *cmd, const char *file, const nnfx_tensor *out, const nnfx_tensor *labels, double *acc) {
    if (out->rank < 1) {
        cli_error(cmd, "%s: the first output is a scalar: no classes to score", file);
        return CLI_EXIT_BAD_INPUT;
    }
    int64_t classes = out->shape[out->rank - 1];
    int64_t rows = classes > 0 ? nnfx_tensor_numel(out) / classes : 0;
    if (rows != nnfx_tensor_numel(labels) || rows == 0) {
        cli_error(cmd, "%s: %lld labels for %lld rows of the first output", file, (long long)nnfx_tensor_numel(labels),
                  (long long)rows);
        return CLI_EXIT_BAD_INPUT;
    }
    for (int64_t r = 0; r < rows; r++) {
        double y = nnfx_tensor_get(labels, r);
        if (!(y >= 0 && y < (double)classes && y == floor(y))) {
            cli_error(cmd, "%s: label %g at row %lld is not a class index 0..%lld of the first output", file, y,
                      (long long)r, (long long)classes - 1);
            return CLI_EXIT_BAD_INPUT;
        }
    }
    int64_t hit = 0;
    for (int64_t r = 0; r < rows; r++)
        if ((double)argmax_row(out, r * classes, classes) == nnfx_tensor_get(labels, r)) hit++;
    *acc = 100.0 * (double)hit / (double)rows;
    return CLI_EXIT_OK;
}

int cli_accuracy_graphs(const char *cmd, const nnfx_graph *a, const nnfx_graph *b, const cli_samples *s,
                        const char *labels_file, cli_accuracy *acc) {
    memset(acc, 0, sizeof *acc);
    nnfx_error err = {0};
    nnfx_tensor *labels = cli_load_tensor(labels_file, &err);
    if (!labels) {
        cli_fail(cmd, labels_file, &err);
        return CLI_EXIT_BAD_INPUT;
    }
    cli_inputs in = {0}, in_b = {0};
    nnfx_gm *ga = NULL, *gb = NULL;
    nnfx_tensor *oa[64] = {0}, *ob[64] = {0};
    int na = 0, nb = 0;
    int rc = cli_inputs_load(cmd, a, s->nfiles, s->files, &in);
    if (!rc) rc = map_inputs(cmd, a, b, "the optimised model", &in, &in_b);
    if (!rc && !(ga = compile_for(cmd, a, "the original model", &in))) rc = CLI_EXIT_BAD_INPUT;
    if (!rc && !(gb = compile_for(cmd, b, "the optimised model", &in_b))) rc = CLI_EXIT_BAD_INPUT;
    if (!rc) rc = run_gm(cmd, ga, "the original model", &in, oa, 64, &na);
    if (!rc) rc = run_gm(cmd, gb, "the optimised model", &in_b, ob, 64, &nb);
    if (!rc && (na < 1 || nb < 1)) {
        cli_error(cmd, "a model returned no outputs");
        rc = CLI_EXIT_BAD_INPUT;
    }
    if (!rc) rc = top1(cmd, labels_file, oa[0], labels, &acc->acc_a);
    if (!rc) rc = top1(cmd, labels_file, ob[0], labels, &acc->acc_b);
    if (!rc) {
        acc->samples = (long)nnfx_tensor_numel(labels);
        acc->drop = acc->acc_a - acc->acc_b;
    }
    for (int i = 0; i < na; i++)
        nnfx_tensor_release(oa[i]);
    for (int i = 0; i < nb; i++)
        nnfx_tensor_release(ob[i]);
    nnfx_gm_free(ga);
    nnfx_gm_free(gb);
    free(in_b.t);
    cli_inputs_free(&in);
    nnfx_tensor_release(labels);
    return rc;
}

void cli_accuracy_json(sbuf *b, const cli_accuracy *acc, double max_drop) {
    sb_printf(b, "\"samples\": %ld, \"top1_before\": ", acc->samples);
    cli_json_num(b, acc->acc_a);
    sb_printf(b, ", \"top1_after\": ");
    cli_json_num(b, acc->acc_b);
    sb_printf(b, ", \"drop_points\": ");
    cli_json_num(b, acc->drop);
    sb_printf(b, ", \"max_drop_points\": ");
    if (max_drop >= 0)
        cli_json_num(b, max_drop);
    else
        sb_printf(b, "null");
    sb_printf(b, ", \"passed\": %s", max_drop >= 0 && acc->drop > max_drop ? "false" : "true");
}
