/* sparsity.c — unstructured magnitude pruning: the smallest weights of
 * every Conv, Gemm and MatMul become zero (copy-on-write), shapes stay. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nnfx.h"

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static bool excluded(const nnfx_node *n, int nexclude, const char *const *exclude) {
    for (int i = 0; i < nexclude; i++)
        if (strcmp(nnfx_node_name(n), exclude[i]) == 0) return true;
    return false;
}

/* True when an excluded node reads parameter `name` (a weight shared with
 * it keeps its values for every reader). */
static bool read_by_excluded(nnfx_graph *g, const char *name, int nexclude, const char *const *exclude) {
    for (int i = 0; i < nexclude; i++) {
        nnfx_node *n = nnfx_graph_find(g, exclude[i]);
        for (int a = 0; n && a < nnfx_node_num_args(n); a++) {
            nnfx_node *p = nnfx_node_arg_node(n, a);
            if (p && nnfx_node_opcode(p) == NNFX_GET_ATTR && strcmp(nnfx_node_target(p), name) == 0) return true;
        }
    }
    return false;
}

/* Zeroes the k smallest |w| of t (ties at the threshold: the first ones). */
static int64_t zero_smallest(float *w, int64_t n, int64_t k, float *scratch) {
    if (k <= 0) return 0;
    for (int64_t i = 0; i < n; i++)
        scratch[i] = fabsf(w[i]);
    qsort(scratch, (size_t)n, sizeof *scratch, cmp_float);
    float thr = scratch[k - 1];
    int64_t below = 0, done = 0;
    for (int64_t i = 0; i < n; i++)
        below += fabsf(w[i]) < thr;
    int64_t at_thr = k - below; /* how many equal to thr may go */
    for (int64_t i = 0; i < n; i++) {
        float a = fabsf(w[i]);
        if (a < thr || (a == thr && at_thr-- > 0)) {
            w[i] = 0.0f;
            done++;
        }
    }
    return done;
}

nnfx_status nnfx_prune_sparsity(nnfx_graph *g, double sparsity, int nexclude, const char *const *exclude,
                                nnfx_prune_result *res, nnfx_error *err) {
    if (res) memset(res, 0, sizeof *res);
    if (!g) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "prune: NULL graph");
    if (!(sparsity >= 0 && sparsity < 1))
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "prune: sparsity %g is outside [0, 1)", sparsity);
    for (int i = 0; i < nexclude; i++)
        if (!exclude || !exclude[i] || !nnfx_graph_find(g, exclude[i]))
            return nnfx_error_set(err, NNFX_ERR_NOT_FOUND,
                                  "prune: --exclude names node '%s', which the graph does not have",
                                  exclude && exclude[i] ? exclude[i] : "(null)");
    int nlayers = 0;
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n))
        if (nnfx_op_flags(nnfx_node_op(n)) & NNFX_F_CHANNEL_MIXING) nlayers++;
    nnfx_prune_group_result *gr = calloc((size_t)nlayers + 1, sizeof *gr);
    const char **done = calloc((size_t)nlayers + 1, sizeof *done);
    int ndone = 0;
    float *scratch = NULL;
    nnfx_status s = NNFX_OK;
    if (!gr || !done) goto oom;
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n)) {
        if (!(nnfx_op_flags(nnfx_node_op(n)) & NNFX_F_CHANNEL_MIXING) || excluded(n, nexclude, exclude)) continue;
        nnfx_node *wn = nnfx_node_arg_node(n, 1);
        if (!wn || nnfx_node_opcode(wn) != NNFX_GET_ATTR) continue;
        const char *name = nnfx_node_target(wn);
        nnfx_tensor *w = nnfx_graph_param(g, name);
        bool seen = false;
        for (int i = 0; i < ndone; i++)
            seen |= strcmp(done[i], name) == 0;
        if (!w || w->dtype != NNFX_F32 || seen || read_by_excluded(g, name, nexclude, exclude)) continue;
        done[ndone] = name;
        int64_t numel = nnfx_tensor_numel(w);
        w = nnfx_graph_param_mut(g, name, err);
        free(scratch);
        scratch = malloc(sizeof *scratch * (size_t)(numel + 1));
        if (!w || !scratch) goto oom;
        float *d = nnfx_tensor_data_mut(w, err);
        zero_smallest(d, numel, (int64_t)floor(sparsity * (double)numel), scratch);
        nnfx_prune_group_result *r = &gr[ndone++];
        snprintf(r->name, sizeof r->name, "%s", nnfx_node_name(n));
        int64_t nz = 0;
        for (int64_t i = 0; i < numel; i++)
            nz += d[i] != 0.0f;
        r->channels = r->prunable = (int)(w->rank > 0 ? w->shape[0] : 1);
        r->kept = r->channels;
        r->params_before = numel;
        r->params_after = nz;
        if (res) {
            res->params_before += numel;
            res->params_after += nz;
        }
    }
    if (ndone == 0) {
        s = nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "prune: no Conv, Gemm or MatMul with a float parameter weight");
        goto out;
    }
    if (res) {
        res->groups = gr;
        res->ngroups = ndone;
        gr = NULL;
    }
    goto out;
oom:
    s = nnfx_error_set(err, NNFX_ERR_NOMEM, "prune: out of memory");
out:
    free(scratch);
    free(gr);
    free(done);
    return s;
}
