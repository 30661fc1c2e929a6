/* test_cow.c — copy-on-write parameters: weights mapped from an ONNX file
 * are read-only and refused with a message, nnfx_graph_param_mut copies them
 * before writing, and editing a graph copy never changes the original. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"

#define FIX NNFX_TEST_DATA "/onnx/"

/* Runs g (copied into a GraphModule) on x; returns output 0. */
static nnfx_tensor *run_copy(const nnfx_graph *g, nnfx_tensor *x) {
    nnfx_error err = {0};
    nnfx_graph *c = nnfx_graph_copy(g, NULL, &err);
    assert_non_null(c);
    nnfx_gm *gm = nnfx_gm_new(c, &err);
    assert_non_null(gm);
    nnfx_tensor *out[4] = {0};
    int nout = 0;
    nnfx_status st = nnfx_gm_run(gm, 1, &x, 4, out, &nout, &err);
    if (st) print_error("%s\n", err.msg);
    assert_int_equal(st, NNFX_OK);
    nnfx_gm_free(gm);
    return out[0];
}

/* Zeroes every float parameter of g through the public API. */
static int zero_all_params(nnfx_graph *g) {
    int mapped = 0;
    nnfx_error err = {0};
    for (int i = 0; i < nnfx_graph_num_params(g); i++) {
        const char *name = nnfx_graph_param_name(g, i);
        nnfx_tensor *t = nnfx_graph_param(g, name);
        assert_non_null(t);
        if (t->storage == NNFX_STORAGE_MAPPED) {
            /* the write that used to segfault is refused with a message */
            mapped++;
            assert_null(nnfx_tensor_data_mut(t, &err));
            tu_assert_error(&err, err.status, NNFX_ERR_INVALID_ARG, "mapped read-only", "nnfx_graph_param_mut", NULL);
        }
        nnfx_tensor *w = nnfx_graph_param_mut(g, name, &err);
        assert_non_null(w);
        assert_int_equal(w->storage, NNFX_STORAGE_OWNED);
        float *d = nnfx_tensor_data_mut(w, &err);
        assert_non_null(d);
        if (w->dtype == NNFX_F32) memset(d, 0, w->nbytes);
    }
    return mapped;
}

/* The scenario: load ONNX, zero the weights in place through the
 * C API, run. An MLP with every weight and bias zero gives logits 0, so its
 * softmax output is 1/4 for each of its 4 classes. */
static void test_zero_loaded_weights(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_onnx_load(FIX "mlp.onnx", &err);
    assert_non_null(g);
    nnfx_tensor *x = nnfx_tensor_pb_load(FIX "mlp_input_0.pb", &err);
    nnfx_tensor *want = nnfx_tensor_pb_load(FIX "mlp_output_0.pb", &err);
    assert_non_null(x);
    assert_non_null(want);
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    assert_non_null(gm);
    nnfx_tensor *out[2] = {0};
    int nout = 0;
    assert_int_equal(nnfx_gm_run(gm, 1, &x, 2, out, &nout, &err), NNFX_OK);
    assert_true(tu_max_abs_diff(out[0], want) < 1e-4); /* PyTorch's output */
    nnfx_tensor_release(out[0]);
    assert_true(zero_all_params(g) > 0);                                    /* the fixture's weights are mapped */
    assert_int_equal(nnfx_gm_run(gm, 1, &x, 2, out, &nout, &err), NNFX_OK); /* recompiles */
    int64_t n = nnfx_tensor_numel(out[0]);
    for (int64_t i = 0; i < n; i++)
        assert_true(((const float *)out[0]->data)[i] == 0.25f);
    nnfx_tensor_release(out[0]);
    /* a second write to the now owned parameter reaches the next run too */
    nnfx_tensor *b = nnfx_graph_param_mut(g, "fc2.bias", &err);
    assert_non_null(b);
    ((float *)nnfx_tensor_data_mut(b, &err))[0] = 100.0f;
    assert_int_equal(nnfx_gm_run(gm, 1, &x, 2, out, &nout, &err), NNFX_OK);
    assert_true(((const float *)out[0]->data)[0] > 0.99f); /* softmax of (100, 0, 0, 0) */
    nnfx_tensor_release(out[0]);
    nnfx_gm_free(gm);
    /* the file itself is untouched: a fresh load still gives PyTorch's output */
    nnfx_graph *g2 = nnfx_onnx_load(FIX "mlp.onnx", &err);
    assert_non_null(g2);
    nnfx_tensor *y = run_copy(g2, x);
    assert_true(tu_max_abs_diff(y, want) < 1e-4);
    nnfx_tensor_release(y);
    nnfx_graph_free(g2);
    nnfx_tensor_release(x);
    nnfx_tensor_release(want);
}

/* Editing a copy leaves the original alone, and the other way round. */
static void test_copy_isolation(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_onnx_load(FIX "convnet.onnx", &err);
    assert_non_null(g);
    nnfx_tensor *x = nnfx_tensor_pb_load(FIX "convnet_input_0.pb", &err);
    nnfx_tensor *want = nnfx_tensor_pb_load(FIX "convnet_output_0.pb", &err);
    assert_non_null(x);
    assert_non_null(want);
    nnfx_graph *c = nnfx_graph_copy(g, NULL, &err);
    assert_non_null(c);
    /* an owned, shared parameter: the copy's write must not reach g */
    nnfx_tensor *owned = nnfx_tensor_new(NNFX_F32, 1, (int64_t[]){1}, &err);
    assert_int_equal(nnfx_graph_set_param(g, "extra", owned, &err), NNFX_OK);
    nnfx_graph *c2 = nnfx_graph_copy(g, NULL, &err);
    assert_non_null(c2);
    nnfx_tensor *w = nnfx_graph_param_mut(c2, "extra", &err);
    assert_non_null(w);
    assert_ptr_not_equal(w, owned);
    ((float *)w->data)[0] = 5.0f;
    assert_true(((const float *)owned->data)[0] == 0.0f);
    nnfx_tensor_release(owned);
    nnfx_graph_free(c2);

    zero_all_params(c);
    nnfx_tensor *y = run_copy(g, x);
    assert_true(tu_max_abs_diff(y, want) < 1e-4); /* original unchanged */
    nnfx_tensor_release(y);
    y = run_copy(c, x);
    assert_true(tu_max_abs_diff(y, want) > 1e-3); /* the copy did change */
    nnfx_tensor_release(y);
    /* and editing the original leaves an earlier copy alone */
    nnfx_graph *c3 = nnfx_graph_copy(g, NULL, &err);
    zero_all_params(g);
    y = run_copy(c3, x);
    assert_true(tu_max_abs_diff(y, want) < 1e-4);
    nnfx_tensor_release(y);
    assert_null(nnfx_graph_param_mut(g, "no_such_weight", &err));
    tu_assert_error(&err, err.status, NNFX_ERR_NOT_FOUND, "no_such_weight", NULL);
    nnfx_graph_free(c3);
    nnfx_graph_free(c);
    nnfx_graph_free(g);
    nnfx_tensor_release(x);
    nnfx_tensor_release(want);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_loaded_weights),
        cmocka_unit_test(test_copy_isolation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
