/* check_fast.c — runs an ONNX model through the compiled executor and the
 * interpreter on one .npy input and prints the largest relative
 * difference (a development check; the tests cover small graphs).
 * Usage: check_fast MODEL.onnx INPUT.npy [THREADS] [--plan] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nnfx.h"

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: check_fast MODEL.onnx INPUT.npy [THREADS] [--plan]\n");
        return 2;
    }
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_onnx_load(argv[1], &err);
    nnfx_tensor *x = g ? nnfx_npy_load(argv[2], &err) : NULL;
    if (!g || !x) {
        fprintf(stderr, "check_fast: %s\n", err.msg);
        return 1;
    }
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    nnfx_gm_set_threads(gm, argc > 3 ? atoi(argv[3]) : 1);
    nnfx_tensor *a = NULL, *b = NULL;
    int na = 0, nb = 0;
    if (nnfx_gm_run(gm, 1, &x, 1, &a, &na, &err)) {
        fprintf(stderr, "check_fast: %s\n", err.msg);
        return 1;
    }
    if (argc > 4 && !strcmp(argv[4], "--plan")) {
        char *s = nnfx_gm_plan(gm, &err);
        if (s) fputs(s, stdout);
        free(s);
    }
    nnfx_interp *ip = nnfx_interp_new(nnfx_gm_graph(gm), NULL, NULL, &err);
    if (!ip || nnfx_interp_run(ip, 1, &x, 1, &b, &nb, &err)) {
        fprintf(stderr, "check_fast: %s\n", err.msg);
        return 1;
    }
    const float *pa = a->data, *pb = b->data;
    double maxd = 0, maxv = 0;
    for (int64_t i = 0; i < nnfx_tensor_numel(a); i++) {
        double d = fabs((double)pa[i] - pb[i]);
        if (d > maxd) maxd = d;
        if (fabs(pb[i]) > maxv) maxv = fabs(pb[i]);
    }
    printf("%s: max |fast - interp| = %.3g, max |interp| = %.3g, relative %.3g\n", argv[1], maxd, maxv,
           maxv > 0 ? maxd / maxv : maxd);
    nnfx_tensor_release(a);
    nnfx_tensor_release(b);
    nnfx_tensor_release(x);
    nnfx_interp_free(ip);
    nnfx_gm_free(gm);
    return 0;
}
