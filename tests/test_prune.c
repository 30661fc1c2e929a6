/* test_prune.c — the pruning C API: dependency groups of a residual model,
 * a user criterion (callback) that reproduces PyTorch's output exactly on a
 * fixture with dead channels (tests/data/prune/make_models.py), bad input
 * leaving the graph unchanged, and magnitude sparsity written copy-on-write
 * (a copy's pruning never reaches the original's mapped weights). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"

#define FIX NNFX_TEST_DATA "/prune/"

static nnfx_graph *load(const char *name) {
    char path[512];
    snprintf(path, sizeof path, FIX "%s.onnx", name);
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_onnx_load(path, &err);
    if (!g) print_error("%s: %s\n", path, err.msg);
    assert_non_null(g);
    return g;
}

static nnfx_tensor *run(const nnfx_graph *g, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "prune/%s.input.npy", name);
    nnfx_tensor *x = tu_load_npy(path);
    nnfx_error err = {0};
    nnfx_gm *gm = nnfx_gm_new(nnfx_graph_copy(g, NULL, &err), &err);
    assert_non_null(gm);
    nnfx_tensor *out[2] = {0};
    int nout = 0;
    nnfx_status st = nnfx_gm_run(gm, 1, &x, 2, out, &nout, &err);
    if (st) print_error("%s\n", err.msg);
    assert_int_equal(st, NNFX_OK);
    nnfx_gm_free(gm);
    nnfx_tensor_release(x);
    return out[0];
}

/* The stem conv, the second conv of the block and their BNs are one group
 * (the residual Add joins them); the classifier's outputs are kept. */
static void test_groups_residual(void **state) {
    (void)state;
    nnfx_graph *g = load("residual");
    nnfx_error err = {0};
    nnfx_prune_analysis *a = nnfx_prune_groups(g, 0, NULL, &err);
    assert_non_null(a);
    bool residual = false, output_kept = false;
    for (int i = 0; i < nnfx_prune_num_groups(a); i++) {
        nnfx_prune_group_info gi;
        assert_true(nnfx_prune_group_get(a, i, &gi));
        bool stem = false, c2 = false, fc_in = false;
        for (int k = 0; k < gi.nmembers; k++) {
            nnfx_prune_member_info m;
            assert_true(nnfx_prune_group_member(a, i, k, &m));
            stem |= strcmp(m.param, "stem.weight") == 0 && m.axis == 0 && m.role == NNFX_PRUNE_ROLE_PRODUCER;
            c2 |= strcmp(m.param, "c2.weight") == 0 && m.axis == 0;
            fc_in |= strcmp(m.param, "fc.weight") == 0 && m.axis == 1 && m.role == NNFX_PRUNE_ROLE_CONSUMER;
            assert_false(m.shared); /* every parameter has one reader */
        }
        if (stem && c2 && fc_in && gi.channels == 8 && gi.prunable == 8) residual = true;
        if (gi.prunable == 0 && strstr(gi.reason, "graph output")) output_kept = true;
    }
    assert_true(residual);
    assert_true(output_kept);
    assert_false(nnfx_prune_group_get(a, nnfx_prune_num_groups(a), &(nnfx_prune_group_info){0}));
    nnfx_prune_analysis_free(a);
    nnfx_graph_free(g);
}

/* A conv called twice (tests/data/prune shared_conv): c.weight is one
 * initializer read by two Conv nodes, so the stem's channels and both
 * calls' are one group, in which c.weight is sliced along axis 0 for both
 * readers; pruning slices it once per axis. */
static void test_groups_shared_conv(void **state) {
    (void)state;
    nnfx_graph *g = load("shared_conv");
    nnfx_error err = {0};
    nnfx_prune_analysis *a = nnfx_prune_groups(g, 0, NULL, &err);
    assert_non_null(a);
    int found = 0;
    for (int i = 0; i < nnfx_prune_num_groups(a); i++) {
        nnfx_prune_group_info gi;
        assert_true(nnfx_prune_group_get(a, i, &gi));
        const char *readers[2] = {NULL, NULL};
        int nreaders = 0, cols = 0;
        bool stem = false;
        for (int k = 0; k < gi.nmembers; k++) {
            nnfx_prune_member_info m;
            assert_true(nnfx_prune_group_member(a, i, k, &m));
            stem |= strcmp(m.param, "stem.weight") == 0 && m.axis == 0 && !m.shared;
            cols += strcmp(m.param, "c.weight") == 0 && m.axis == 1 && m.shared;
            if (strcmp(m.param, "c.weight") == 0 && m.axis == 0 && m.shared && nreaders < 2)
                readers[nreaders++] = m.node;
        }
        if (stem && nreaders == 2 && strcmp(readers[0], readers[1]) != 0 && cols == 2) {
            found++;
            assert_int_equal(gi.channels, 8);
            assert_int_equal(gi.prunable, 8);
        }
    }
    assert_int_equal(found, 1);
    nnfx_prune_analysis_free(a);
    nnfx_prune_options o = {0};
    o.ratio = 0.5;
    nnfx_prune_result r;
    nnfx_status st = nnfx_prune(g, &o, &r, &err);
    if (st) print_error("%s\n", err.msg);
    assert_int_equal(st, NNFX_OK);
    const nnfx_tensor *w = nnfx_graph_param(g, "c.weight");
    assert_non_null(w);
    assert_int_equal(w->shape[0], 4);
    assert_int_equal(w->shape[1], 4);
    assert_int_equal(r.channels_removed, 4);
    nnfx_prune_result_free(&r);
    nnfx_graph_free(g);
}

/* A parameter one of whose reads does not slice it by channel keeps that
 * axis: a BN scale also multiplied along the width (shared_kept), and a
 * weight that is also a graph output (text IR). The group says why, and
 * pruning leaves those parameters whole. */
static void test_shared_kept(void **state) {
    (void)state;
    nnfx_graph *g = load("shared_kept");
    nnfx_error err = {0};
    nnfx_prune_analysis *a = nnfx_prune_groups(g, 0, NULL, &err);
    assert_non_null(a);
    int kept = 0;
    for (int i = 0; i < nnfx_prune_num_groups(a); i++) {
        nnfx_prune_group_info gi;
        assert_true(nnfx_prune_group_get(a, i, &gi));
        if (strstr(gi.reason, "parameter b.weight is shared with %_Mul_output_0 (Mul, input 1)")) {
            kept++;
            assert_int_equal(gi.prunable, 0);
        }
    }
    assert_int_equal(kept, 1);
    nnfx_prune_analysis_free(a);
    nnfx_prune_options o = {0};
    o.ratio = 0.5;
    assert_int_equal(nnfx_prune(g, &o, NULL, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_param(g, "b.weight")->shape[0], 8);
    assert_int_equal(nnfx_graph_param(g, "c.weight")->shape[0], 8);
    assert_int_equal(nnfx_graph_param(g, "stem.weight")->shape[0], 4);
    nnfx_graph_free(g);

    nnfx_graph *t =
        nnfx_graph_parse("graph():\n"
                         "    %x : [num_users=1] = placeholder[target=x]  # float32[1, 4]\n"
                         "    %w : [num_users=2] = get_attr[target=w]  # float32[4, 4]\n"
                         "    %g : [num_users=1] = call_function[target=gemm](args = (%x, %w), kwargs = {transB: 1})\n"
                         "    %r : [num_users=1] = call_function[target=relu](args = (%g,), kwargs = {})\n"
                         "    %v : [num_users=1] = get_attr[target=v]  # float32[2, 4]\n"
                         "    %h : [num_users=1] = call_function[target=gemm](args = (%r, %v), kwargs = {transB: 1})\n"
                         "    return (h, w)\n",
                         &err);
    if (!t) print_error("%s\n", err.msg);
    assert_non_null(t);
    int64_t ws[2] = {4, 4}, vs[2] = {2, 4};
    nnfx_tensor *wt = nnfx_tensor_new(NNFX_F32, 2, ws, &err), *vt = nnfx_tensor_new(NNFX_F32, 2, vs, &err);
    for (int i = 0; i < 16; i++)
        ((float *)wt->data)[i] = (float)(i % 5) - 2.0f;
    for (int i = 0; i < 8; i++)
        ((float *)vt->data)[i] = 1.0f;
    assert_int_equal(nnfx_graph_set_param(t, "w", wt, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_set_param(t, "v", vt, &err), NNFX_OK);
    nnfx_tensor_release(wt);
    nnfx_tensor_release(vt);
    assert_int_equal(nnfx_prune(t, &o, NULL, &err), NNFX_ERR_UNSUPPORTED);
    tu_assert_error(&err, err.status, NNFX_ERR_UNSUPPORTED, "nothing can be pruned", NULL);
    assert_int_equal(nnfx_graph_param(t, "w")->shape[0], 4);
    a = nnfx_prune_groups(t, 0, NULL, &err);
    assert_non_null(a);
    kept = 0;
    for (int i = 0; i < nnfx_prune_num_groups(a); i++) {
        nnfx_prune_group_info gi;
        assert_true(nnfx_prune_group_get(a, i, &gi));
        kept += gi.channels == 4 && gi.prunable == 0 && strstr(gi.reason, "parameter w is shared with a graph output");
    }
    assert_int_equal(kept, 1); /* %g's channels (w's axis 0) */
    nnfx_prune_analysis_free(a);
    nnfx_graph_free(t);
}

/* A user criterion: the largest |w| of the channel's producer slices. */
static double max_abs(const nnfx_prune_channel *ch, void *user) {
    int *calls = user;
    (*calls)++;
    double m = 0;
    for (int i = 0; i < ch->nslices; i++) {
        const nnfx_prune_slice *s = &ch->slices[i];
        if (s->role != NNFX_PRUNE_ROLE_PRODUCER) continue;
        int64_t outer = 1, inner = 1, d = s->t->shape[s->axis];
        for (int k = 0; k < s->axis; k++)
            outer *= s->t->shape[k];
        for (int k = s->axis + 1; k < s->t->rank; k++)
            inner *= s->t->shape[k];
        for (int64_t o = 0; o < outer; o++)
            for (int64_t j = 0; j < inner; j++)
                m = fmax(m, fabs(((const float *)s->t->data)[(o * d + s->index) * inner + j]));
    }
    return m;
}

static void test_user_criterion_exact(void **state) {
    (void)state;
    const char *models[] = {"residual",    "shuffle",    "squeeze_excite", "shared_conv",
                            "shared_bias", "shared_add", "shared_cat",     "shared_kept"};
    for (int i = 0; i < (int)(sizeof models / sizeof *models); i++) {
        nnfx_graph *g = load(models[i]);
        nnfx_error err = {0};
        int calls = 0;
        nnfx_prune_options o = {0};
        o.ratio = 0.5;
        o.score = max_abs;
        o.score_user = &calls;
        nnfx_prune_result r;
        nnfx_status st = nnfx_prune(g, &o, &r, &err);
        if (st) print_error("%s: %s\n", models[i], err.msg);
        assert_int_equal(st, NNFX_OK);
        assert_true(calls > 0);
        assert_true(r.channels_removed > 0);
        assert_true(r.macs_after < r.macs_before);
        char ref[256];
        snprintf(ref, sizeof ref, "prune/%s.output.npy", models[i]);
        nnfx_tensor *want = tu_load_npy(ref), *got = run(g, models[i]);
        tu_assert_close(got, want, 1e-5, 1e-5, models[i]); /* PyTorch's output of the unpruned model */
        nnfx_tensor_release(got);
        nnfx_tensor_release(want);
        nnfx_prune_result_free(&r);
        nnfx_graph_free(g);
    }
}

static void test_bad_input(void **state) {
    (void)state;
    nnfx_graph *g = load("concat");
    nnfx_error err = {0};
    int64_t before = nnfx_tensor_numel(nnfx_graph_param(g, "a.weight"));
    nnfx_prune_options o = {0};
    o.ratio = 1.0;
    assert_int_equal(nnfx_prune(g, &o, NULL, &err), NNFX_ERR_INVALID_ARG);
    tu_assert_error(&err, err.status, NNFX_ERR_INVALID_ARG, "ratio 1", "[0, 1)", NULL);
    o.ratio = -0.5;
    assert_int_equal(nnfx_prune(g, &o, NULL, &err), NNFX_ERR_INVALID_ARG);
    o.ratio = 0.5;
    const char *ex[] = {"no_such_node"};
    o.nexclude = 1;
    o.exclude = ex;
    assert_int_equal(nnfx_prune(g, &o, NULL, &err), NNFX_ERR_NOT_FOUND);
    tu_assert_error(&err, err.status, NNFX_ERR_NOT_FOUND, "no_such_node", NULL);
    assert_int_equal(nnfx_tensor_numel(nnfx_graph_param(g, "a.weight")), before);
    nnfx_graph_free(g);

    nnfx_graph *t = nnfx_graph_parse("graph():\n"
                                     "    %x : [num_users=1] = placeholder[target=x]  # float32[1, 4, 2, 2]\n"
                                     "    %r : [num_users=1] = call_function[target=relu](args = (%x,), kwargs = {})\n"
                                     "    return r\n",
                                     &err);
    assert_non_null(t);
    o.nexclude = 0;
    assert_int_equal(nnfx_prune(t, &o, NULL, &err), NNFX_ERR_UNSUPPORTED);
    tu_assert_error(&err, err.status, NNFX_ERR_UNSUPPORTED, "nothing can be pruned", NULL);
    nnfx_graph_free(t);
}

/* Sparsity on a copy of a loaded model: the copy's weights are zeroed
 * (copy-on-write), the original's mapped weights are untouched. */
static void test_sparsity_copy_on_write(void **state) {
    (void)state;
    nnfx_graph *g = load("flatten_linear");
    nnfx_error err = {0};
    nnfx_graph *c = nnfx_graph_copy(g, NULL, &err);
    assert_non_null(c);
    nnfx_prune_result r;
    assert_int_equal(nnfx_prune_sparsity(c, 0.75, 0, NULL, &r, &err), NNFX_OK);
    assert_int_equal(r.ngroups, 3);
    const nnfx_tensor *w0 = nnfx_graph_param(g, "fc1.weight"), *w1 = nnfx_graph_param(c, "fc1.weight");
    int64_t n = nnfx_tensor_numel(w0), z0 = 0, z1 = 0;
    for (int64_t i = 0; i < n; i++) {
        z0 += ((const float *)w0->data)[i] == 0.0f;
        z1 += ((const float *)w1->data)[i] == 0.0f;
    }
    assert_int_equal(z1, (int64_t)(0.75 * (double)n));
    assert_int_equal(z0, n / 2); /* only the fixture's 5 dead rows of 10 */
    assert_true(r.params_after < r.params_before);
    nnfx_prune_result_free(&r);
    nnfx_graph_free(c);
    nnfx_graph_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups_residual), cmocka_unit_test(test_groups_shared_conv),
        cmocka_unit_test(test_shared_kept),     cmocka_unit_test(test_user_criterion_exact),
        cmocka_unit_test(test_bad_input),       cmocka_unit_test(test_sparsity_copy_on_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
