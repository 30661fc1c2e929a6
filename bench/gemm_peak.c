/* gemm_peak.c — the machine's practical fp32 peak: GFLOP/s of a large
 * square cblas_sgemm (best of several runs) on T threads.
 * Usage: gemm_peak [N] [THREADS]; prints {"n": N, "threads": T, "gflops": G}. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1536, t = argc > 2 ? atoi(argv[2]) : 1;
    if (n < 64 || n > 8192 || t < 1 || t > 1024) {
        fprintf(stderr, "usage: gemm_peak [N 64..8192] [THREADS]\n");
        return 2;
    }
    openblas_set_num_threads(t);
    float *a = malloc(sizeof(float) * (size_t)n * n), *b = malloc(sizeof(float) * (size_t)n * n),
          *c = malloc(sizeof(float) * (size_t)n * n);
    if (!a || !b || !c) return 1;
    for (size_t i = 0; i < (size_t)n * n; i++)
        a[i] = b[i] = (float)(i % 7) * 0.1f, c[i] = 0;
    double best = 1e30;
    for (int r = 0; r < 6; r++) {
        double t0 = now_s();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
        double dt = now_s() - t0;
        if (dt < best) best = dt;
    }
    printf("{\"n\": %d, \"threads\": %d, \"gflops\": %.1f}\n", n, t, 2.0 * n * n * (double)n / best / 1e9);
    free(a), free(b), free(c);
    return 0;
}
