/* test_fault_inject.c — fails the k-th heap allocation of the library, for
 * every k, in a real workflow (ONNX load -> optimize passes and a rewrite ->
 * text IR print and parse -> ONNX export -> compile and run): each run must either fail with an error that says
 * why, or succeed with the same result as the run without failures. Under
 * the sanitizer build, LeakSanitizer then checks that no failure path
 * leaks. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core_int.h"
#include "testutil.h"

static char model_path[600], out_path[600];

/* conv -> batchnorm -> relu -> add(identity) on [1, 3, 6, 6]. */
static const char *model_text =
    "graph():\n"
    "    # param w : float32[4, 3, 3, 3]\n"
    "    # param bn.weight : float32[4]\n"
    "    # param bn.bias : float32[4]\n"
    "    # param bn.mean : float32[4]\n"
    "    # param bn.var : float32[4]\n"
    "    %x : [num_users=1] = placeholder[target=x]  # float32[1, 3, 6, 6]\n"
    "    %w : [num_users=1] = get_attr[target=w]\n"
    "    %conv : [num_users=1] = call_function[target=conv](args = (%x, %w), kwargs = {pads: [1, 1, 1, 1]})\n"
    "    %g : [num_users=1] = get_attr[target=bn.weight]\n"
    "    %b : [num_users=1] = get_attr[target=bn.bias]\n"
    "    %m : [num_users=1] = get_attr[target=bn.mean]\n"
    "    %v : [num_users=1] = get_attr[target=bn.var]\n"
    "    %bn : [num_users=1] = call_function[target=batch_normalization](args = (%conv, %g, %b, %m, %v), "
    "kwargs = {})\n"
    "    %relu : [num_users=2] = call_function[target=relu](args = (%bn,), kwargs = {})\n"
    "    %id : [num_users=1] = call_function[target=identity](args = (%relu,), kwargs = {})\n"
    "    %out : [num_users=1] = call_function[target=add](args = (%id, %relu), kwargs = {})\n"
    "    return out\n";

static int setup(void **state) {
    (void)state;
    const char *dir = tu_tmpdir("fault_inject");
    snprintf(model_path, sizeof model_path, "%s/model.onnx", dir);
    snprintf(out_path, sizeof out_path, "%s/out.onnx", dir);
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_parse(model_text, &err);
    if (!g) return -1;
    for (int i = 0; i < nnfx_graph_num_params(g); i++) {
        nnfx_tensor *t = nnfx_graph_param_at(g, i);
        nnfx_tensor_fill_uniform(t, (uint64_t)i + 7, 0.25f, 1.0f);
    }
    nnfx_status st = nnfx_onnx_save(g, model_path, NULL, &err);
    nnfx_graph_free(g);
    return st ? -1 : 0;
}

/* The workflow; *y gets the output (caller releases) on success. */
static nnfx_status workflow(nnfx_tensor *x, nnfx_tensor **y, nnfx_error *err) {
    *y = NULL;
    nnfx_graph *g = nnfx_onnx_load(model_path, err);
    if (!g) return err->status;
    nnfx_status st = NNFX_OK;
    const char *passes[] = {"fuse-conv-bn", "remove-identity", "cse", "dce", "shape-prop"};
    for (size_t i = 0; i < sizeof passes / sizeof passes[0] && !st; i++) {
        nnfx_pass_report r = {0};
        st = nnfx_pass_run_by_name(g, passes[i], &r, err);
        nnfx_pass_report_free(&r);
    }
    /* a rewrite that keeps the numbers: leaky_relu with alpha 0 is relu */
    if (!st && nnfx_rewrite_text(g, "relu(x) -> leaky_relu(x, alpha=0.0)", err) < 0) st = err->status;
    /* and the text form, printed and parsed (shapes only: not used further) */
    if (!st) {
        char *text = nnfx_graph_to_text(g);
        nnfx_graph *back = text ? nnfx_graph_parse(text, err) : NULL;
        if (!back) st = text ? err->status : nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory printing");
        nnfx_graph_free(back);
        free(text);
    }
    if (!st) st = nnfx_onnx_save(g, out_path, NULL, err);
    if (st) {
        nnfx_graph_free(g);
        return st;
    }
    nnfx_gm *gm = nnfx_gm_new(g, err);
    if (!gm) {
        nnfx_graph_free(g);
        return err->status;
    }
    int nout = 0;
    nnfx_tensor *outs[2] = {0};
    st = nnfx_gm_recompile(gm, err);
    if (!st) st = nnfx_gm_run(gm, 1, &x, 2, outs, &nout, err);
    if (!st) *y = outs[0];
    for (int i = st ? 0 : 1; i < nout; i++)
        nnfx_tensor_release(outs[i]);
    nnfx_gm_free(gm);
    return st;
}

static void test_fail_every_allocation(void **state) {
    (void)state;
    int64_t xs[4] = {1, 3, 6, 6};
    nnfx_tensor *x = nnfx_tensor_new(NNFX_F32, 4, xs, NULL);
    assert_non_null(x);
    nnfx_tensor_fill_uniform(x, 3, -1.0f, 1.0f);
    nnfx_error err = {0};
    nnfx_tensor *ref = NULL;
    nnfx_alloc_fail_at(0);
    assert_int_equal(workflow(x, &ref, &err), NNFX_OK);
    long total = nnfx_alloc_count();
    assert_true(total > 10);
    int failed = 0, recovered = 0;
    for (long k = 1; k <= total; k++) {
        nnfx_tensor *y = NULL;
        memset(&err, 0, sizeof err);
        nnfx_alloc_fail_at(k);
        nnfx_status st = workflow(x, &y, &err);
        nnfx_alloc_fail_at(0);
        if (st) {
            if (!err.msg[0]) fail_msg("allocation %ld of %ld: status %d without a message", k, total, (int)st);
            failed++;
        } else {
            /* the failure was absorbed (e.g. the compiled plan fell back to the
             * interpreter, whose conv rounds differently): still right */
            char msg[256];
            if (!tu_tensor_close(y, ref, 1e-5, 1e-5, msg, sizeof msg))
                fail_msg("allocation %ld of %ld failed silently and changed the result: %s", k, total, msg);
            nnfx_tensor_release(y);
            recovered++;
        }
    }
    print_message("fault injection: %ld allocations, %d gave an error, %d were absorbed\n", total, failed, recovered);
    nnfx_tensor_release(ref);
    nnfx_tensor_release(x);
    unlink(model_path);
    unlink(out_path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fail_every_allocation),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
