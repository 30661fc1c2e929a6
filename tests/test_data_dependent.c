/* test_data_dependent.c — ops whose output size depends on the input data
 * (NonZero, Compress, Unique, TopK with a computed k) inside a graph: they
 * split the compiled plan (nnfx_gm_plan says so), shapes are exact on every
 * run and follow the data from one run to the next, and the static ops
 * after them see the exact shapes. Expected values are worked
 * out by hand from numpy's definitions (np.nonzero, np.compress, np.unique,
 * np.argsort). */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static nnfx_gm *gm_from(const char *text) {
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_parse(text, &err);
    if (!g) fail_msg("parse: %s", err.msg);
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    if (!gm) fail_msg("gm: %s", err.msg);
    return gm;
}

static nnfx_tensor *f32(int rank, const int64_t *shape, const float *v) {
    nnfx_tensor *t = nnfx_tensor_from_floats(rank, shape, v, NULL);
    assert_non_null(t);
    return t;
}

static void expect_i64(const nnfx_tensor *t, int rank, const int64_t *shape, const int64_t *v) {
    assert_int_equal(t->dtype, NNFX_I64);
    assert_int_equal(t->rank, rank);
    for (int d = 0; d < rank; d++)
        assert_int_equal(t->shape[d], shape[d]);
    for (int64_t i = 0; i < nnfx_tensor_numel(t); i++)
        assert_int_equal(((const int64_t *)t->data)[i], v[i]);
}

static void test_non_zero_follows_the_data(void **state) {
    (void)state;
    nnfx_gm *gm = gm_from("graph():\n"
                          "    %x : [num_users=1] = placeholder[target=x]  # float32[2, 3]\n"
                          "    %nz : [num_users=2] = call_function[target=non_zero](args = (%x,), kwargs = {})\n"
                          "    %c : [num_users=1] = call_function[target=cast](args = (%nz,), kwargs = {to: 1})\n"
                          "    %s : [num_users=1] = call_function[target=reduce_sum](args = (%c,), "
                          "kwargs = {keepdims: 0})\n"
                          "    return (nz, s)\n");
    nnfx_error err = {0};
    char *plan = nnfx_gm_plan(gm, &err);
    assert_non_null(plan);
    assert_non_null(strstr(plan, "# split plan"));
    assert_non_null(strstr(plan, "nz (non_zero)"));
    assert_null(strstr(plan, "interpreted"));
    free(plan);
    /* np.nonzero([[1, 0, 2], [0, 0, 3]]) = ([0, 0, 1], [0, 2, 2]); their sum 5 */
    nnfx_tensor *x = f32(2, (int64_t[]){2, 3}, (float[]){1, 0, 2, 0, 0, 3}), *out[2] = {0};
    int nout = 0;
    assert_int_equal(nnfx_gm_run(gm, 1, &x, 2, out, &nout, &err), NNFX_OK);
    expect_i64(out[0], 2, (int64_t[]){2, 3}, (int64_t[]){0, 0, 1, 0, 2, 2});
    assert_true(nnfx_tensor_get(out[1], 0) == 5.0);
    nnfx_tensor_release(out[0]), nnfx_tensor_release(out[1]), nnfx_tensor_release(x);
    /* the same module, other data: np.nonzero([[0, 0, 0], [4, 0, 0]]) = ([1], [0]) */
    x = f32(2, (int64_t[]){2, 3}, (float[]){0, 0, 0, 4, 0, 0});
    assert_int_equal(nnfx_gm_run(gm, 1, &x, 2, out, &nout, &err), NNFX_OK);
    expect_i64(out[0], 2, (int64_t[]){2, 1}, (int64_t[]){1, 0});
    assert_true(nnfx_tensor_get(out[1], 0) == 1.0);
    nnfx_tensor_release(out[0]), nnfx_tensor_release(out[1]), nnfx_tensor_release(x);
    /* nothing nonzero: an empty [2, 0] result */
    x = f32(2, (int64_t[]){2, 3}, (float[]){0, 0, 0, 0, 0, 0});
    assert_int_equal(nnfx_gm_run(gm, 1, &x, 2, out, &nout, &err), NNFX_OK);
    expect_i64(out[0], 2, (int64_t[]){2, 0}, NULL);
    nnfx_tensor_release(out[0]), nnfx_tensor_release(out[1]), nnfx_tensor_release(x);
    nnfx_gm_free(gm);
}

static void test_unique_and_compress(void **state) {
    (void)state;
    nnfx_gm *gm = gm_from("graph():\n"
                          "    %x : [num_users=2] = placeholder[target=x]  # float32[6]\n"
                          "    %m : [num_users=1] = placeholder[target=m]  # bool[6]\n"
                          "    %u : [num_users=2] = call_function[target=unique](args = (%x,), kwargs = {})\n"
                          "    %y : [num_users=1] = call_function[target=getitem](args = (%u, 0), kwargs = {})\n"
                          "    %cnt : [num_users=1] = call_function[target=getitem](args = (%u, 3), kwargs = {})\n"
                          "    %k : [num_users=1] = call_function[target=compress](args = (%x, %m), kwargs = {})\n"
                          "    return (y, cnt, k)\n");
    nnfx_error err = {0};
    /* np.unique([2, 1, 2, 3, 1, 2], return_counts) = [1, 2, 3], [2, 3, 1];
     * np.compress([1, 0, 0, 1, 1, 0], x) = [2, 3, 1] */
    nnfx_tensor *in[2] = {f32(1, (int64_t[]){6}, (float[]){2, 1, 2, 3, 1, 2}),
                          nnfx_tensor_new(NNFX_BOOL, 1, (int64_t[]){6}, NULL)};
    memcpy(in[1]->data, (unsigned char[]){1, 0, 0, 1, 1, 0}, 6);
    nnfx_tensor *out[3] = {0};
    int nout = 0;
    assert_int_equal(nnfx_gm_run(gm, 2, in, 3, out, &nout, &err), NNFX_OK);
    assert_int_equal(nout, 3);
    assert_int_equal(out[0]->shape[0], 3);
    const double uy[3] = {1, 2, 3}, ky[3] = {2, 3, 1};
    for (int i = 0; i < 3; i++)
        assert_true(nnfx_tensor_get(out[0], i) == uy[i]);
    expect_i64(out[1], 1, (int64_t[]){3}, (int64_t[]){2, 3, 1});
    assert_int_equal(out[2]->shape[0], 3);
    for (int i = 0; i < 3; i++)
        assert_true(nnfx_tensor_get(out[2], i) == ky[i]);
    for (int i = 0; i < 3; i++)
        nnfx_tensor_release(out[i]);
    nnfx_tensor_release(in[0]), nnfx_tensor_release(in[1]);
    nnfx_gm_free(gm);
}

static void test_topk_with_computed_k(void **state) {
    (void)state;
    /* k = Size(m): known only when the graph runs */
    nnfx_gm *gm = gm_from("graph():\n"
                          "    %x : [num_users=1] = placeholder[target=x]  # float32[5]\n"
                          "    %m : [num_users=1] = placeholder[target=m]  # float32[n]\n"
                          "    %k : [num_users=1] = call_function[target=shape](args = (%m,), kwargs = {})\n"
                          "    %t : [num_users=2] = call_function[target=topk](args = (%x, %k), kwargs = {})\n"
                          "    %v : [num_users=1] = call_function[target=getitem](args = (%t, 0), kwargs = {})\n"
                          "    %i : [num_users=1] = call_function[target=getitem](args = (%t, 1), kwargs = {})\n"
                          "    return (v, i)\n");
    nnfx_error err = {0};
    nnfx_tensor *in[2] = {f32(1, (int64_t[]){5}, (float[]){0.5f, 3, -1, 3, 2}),
                          f32(1, (int64_t[]){2}, (float[]){0, 0})};
    nnfx_tensor *out[2] = {0};
    int nout = 0;
    /* the two largest, ties by the lower index: [3, 3] at [1, 3] */
    assert_int_equal(nnfx_gm_run(gm, 2, in, 2, out, &nout, &err), NNFX_OK);
    expect_i64(out[1], 1, (int64_t[]){2}, (int64_t[]){1, 3});
    nnfx_tensor_release(out[0]), nnfx_tensor_release(out[1]), nnfx_tensor_release(in[1]);
    in[1] = f32(1, (int64_t[]){4}, (float[]){0, 0, 0, 0});
    assert_int_equal(nnfx_gm_run(gm, 2, in, 2, out, &nout, &err), NNFX_OK);
    expect_i64(out[1], 1, (int64_t[]){4}, (int64_t[]){1, 3, 4, 0});
    nnfx_tensor_release(out[0]), nnfx_tensor_release(out[1]);
    nnfx_tensor_release(in[0]), nnfx_tensor_release(in[1]);
    nnfx_gm_free(gm);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_non_zero_follows_the_data),
        cmocka_unit_test(test_unique_and_compress),
        cmocka_unit_test(test_topk_with_computed_k),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
