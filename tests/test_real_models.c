/* test_real_models.c — real network architectures exported from PyTorch
 * (tests/data/gen_real_models.py) run through nnfx and compared with
 * PyTorch's own outputs.
 *
 * Each model M in a directory is M.onnx with inputs M.input_<i>.npy and
 * reference outputs M.output_<i>.npy. An output passes when
 *     max |nnfx - torch| <= 1e-4 * max |torch|
 * (the error relative to the output's scale) and dtype and shape agree.
 *
 * Without arguments the committed fixtures in tests/data/real_models are
 * checked (no Python needed). With NNFX_REAL_MODELS_DIR set, every model in
 * that directory is checked instead (the on-demand torchvision set: see
 * tests/real_models.cmake); when that directory holds no model the program
 * exits 77 (a CTest skip). Each model's worst relative error is printed. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"

#define REL_TOL 1e-4
#define MAX_IO  16

/* Loads DIR/M.<kind>_<i>.npy for i = 0.. into t; returns how many. */
static int load_npys(const char *dir, const char *model, const char *kind, nnfx_tensor **t) {
    int k = 0;
    for (; k < MAX_IO; k++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s.%s_%d.npy", dir, model, kind, k);
        if (!tu_file_exists(path)) break;
        nnfx_error err = {0};
        t[k] = nnfx_npy_load(path, &err);
        if (!t[k]) fail_msg("%s: %s", path, err.msg);
    }
    return k;
}

/* max |a - b| / max |b| over two tensors of the same shape. */
static double rel_error(const nnfx_tensor *got, const nnfx_tensor *want) {
    int64_t n = nnfx_tensor_numel(want);
    double scale = 0, diff = 0;
    for (int64_t i = 0; i < n; i++) {
        double w = nnfx_tensor_get(want, i), g = nnfx_tensor_get(got, i);
        if (fabs(w) > scale) scale = fabs(w);
        double d = fabs(g - w);
        if (!(d <= diff)) diff = d; /* NaN propagates */
    }
    return scale > 0 ? diff / scale : diff;
}

/* Runs DIR/M.onnx on its inputs and checks every output. */
static void check_model(const char *dir, const char *model) {
    char path[2048];
    nnfx_error err = {0};
    nnfx_tensor *in[MAX_IO] = {0}, *want[MAX_IO] = {0}, *got[MAX_IO] = {0};
    snprintf(path, sizeof path, "%s/%s.onnx", dir, model);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    nnfx_graph *g = nnfx_onnx_load(path, &err);
    if (!g) fail_msg("%s: load: %s", model, err.msg);
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    if (!gm) fail_msg("%s: %s", model, err.msg);
    int nin = load_npys(dir, model, "input", in);
    int nwant = load_npys(dir, model, "output", want);
    assert_true(nwant > 0);
    int ngot = 0;
    if (nnfx_gm_run(gm, nin, in, MAX_IO, got, &ngot, &err) != NNFX_OK) fail_msg("%s: run: %s", model, err.msg);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_int_equal(ngot, nwant);
    for (int i = 0; i < nwant; i++) {
        char a[96], b[96];
        assert_non_null(got[i]);
        if (got[i]->dtype != want[i]->dtype)
            fail_msg("%s: output %d has dtype %s, torch %s", model, i, nnfx_dtype_name(got[i]->dtype),
                     nnfx_dtype_name(want[i]->dtype));
        bool same = got[i]->rank == want[i]->rank;
        for (int d = 0; same && d < got[i]->rank; d++)
            same = got[i]->shape[d] == want[i]->shape[d];
        if (!same)
            fail_msg("%s: output %d has shape %s, torch %s", model, i,
                     nnfx_shape_str(got[i]->rank, got[i]->shape, a, sizeof a),
                     nnfx_shape_str(want[i]->rank, want[i]->shape, b, sizeof b));
        double e = rel_error(got[i], want[i]);
        printf("  %-24s output %d: max|diff|/max|ref| = %.3g (load+run %.0f ms)\n", model, i, e,
               (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
        if (!(e <= REL_TOL))
            fail_msg("%s: output %d differs from torch: relative error %.3g > %g", model, i, e, REL_TOL);
    }
    for (int i = 0; i < MAX_IO; i++) {
        nnfx_tensor_release(in[i]);
        nnfx_tensor_release(want[i]);
        nnfx_tensor_release(got[i]);
    }
    nnfx_gm_free(gm);
}

static const char *g_dir;

static void run_one(void **state) { check_model(g_dir, (const char *)*state); }

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(void) {
    static char data_dir[1024];
    const char *env = getenv("NNFX_REAL_MODELS_DIR");
    g_dir = env && *env ? env : tu_data_path(data_dir, sizeof data_dir, "real_models");

    char *names[256];
    int n = 0;
    DIR *d = opendir(g_dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) && n < 256) {
            size_t l = strlen(e->d_name);
            if (l > 5 && strcmp(e->d_name + l - 5, ".onnx") == 0) names[n++] = strndup(e->d_name, l - 5);
        }
        closedir(d);
    }
    if (n == 0) {
        printf("SKIP: no models in %s\n", g_dir);
        return env && *env ? 77 : 1; /* the committed fixtures must be there */
    }
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    struct CMUnitTest *tests = calloc((size_t)n, sizeof *tests);
    if (!tests) return 1;
    for (int i = 0; i < n; i++) {
        tests[i].name = names[i];
        tests[i].test_func = run_one;
        tests[i].initial_state = names[i];
    }
    int rc = _cmocka_run_group_tests("real_models", tests, (size_t)n, NULL, NULL);
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(tests);
    return rc;
}
