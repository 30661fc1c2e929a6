/* bench_split_plan.c — times a model's GraphModule (the compiled plan, or
 * the split plan when a node's output size is known only at run time)
 * against the interpreter on one .npy input: the minimum over N runs of
 * each, alternating, after one warm-up run (which builds the plans).
 * Usage: bench_split_plan MODEL.onnx INPUT.npy [RUNS] [THREADS]
 * Prints one JSON line: {"model", "runs", "plan_ms", "interp_ms", "speedup", "plan"}
 * ("plan": the first line of nnfx_gm_plan: what the module runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nnfx.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void release(nnfx_tensor **o, int n) {
    for (int i = 0; i < n; i++)
        nnfx_tensor_release(o[i]);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_split_plan MODEL.onnx INPUT.npy [RUNS] [THREADS]\n");
        return 2;
    }
    int runs = argc > 3 ? atoi(argv[3]) : 20;
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_onnx_load(argv[1], &err);
    nnfx_tensor *x = g ? nnfx_npy_load(argv[2], &err) : NULL;
    nnfx_gm *gm = x ? nnfx_gm_new(g, &err) : NULL;
    if (!gm) {
        fprintf(stderr, "bench_split_plan: %s\n", err.msg);
        return 1;
    }
    nnfx_gm_set_threads(gm, argc > 4 ? atoi(argv[4]) : 1);
    nnfx_tensor *o[16];
    int n = 0;
    if (nnfx_gm_run(gm, 1, &x, 16, o, &n, &err)) {
        fprintf(stderr, "bench_split_plan: %s\n", err.msg);
        return 1;
    }
    release(o, n);
    nnfx_interp *ip = nnfx_interp_new(nnfx_gm_graph(gm), NULL, NULL, &err);
    if (!ip) {
        fprintf(stderr, "bench_split_plan: %s\n", err.msg);
        return 1;
    }
    double best_p = 1e30, best_i = 1e30;
    for (int r = 0; r < runs; r++) {
        double t0 = now_ms();
        if (nnfx_gm_run(gm, 1, &x, 16, o, &n, &err)) break;
        double t1 = now_ms();
        release(o, n);
        if (nnfx_interp_run(ip, 1, &x, 16, o, &n, &err)) break;
        double t2 = now_ms();
        release(o, n);
        if (t1 - t0 < best_p) best_p = t1 - t0;
        if (t2 - t1 < best_i) best_i = t2 - t1;
    }
    if (err.status) {
        fprintf(stderr, "bench_split_plan: %s\n", err.msg);
        return 1;
    }
    char *plan = nnfx_gm_plan(gm, &err);
    char *nl = plan ? strchr(plan, '\n') : NULL;
    if (nl) *nl = 0;
    printf("{\"model\": \"%s\", \"runs\": %d, \"plan_ms\": %.3f, \"interp_ms\": %.3f, \"speedup\": %.2f, "
           "\"plan\": \"%s\"}\n",
           argv[1], runs, best_p, best_i, best_i / best_p, plan ? plan : "");
    free(plan);
    nnfx_interp_free(ip);
    nnfx_gm_free(gm);
    nnfx_tensor_release(x);
    return 0;
}
