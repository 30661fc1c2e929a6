/* onnx2c_main.c — times onnx2c's generated entry() the way bench_main.c
 * times nnfx codegen's model_run:
 *   onnx2c_main IN.bin NIN OUT.bin NOUT RUNS
 * (entry's array parameters are passed as flat float pointers: the same
 * ABI; one warm-up run, then RUNS timed runs). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void entry(const float *in, float *out);

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 6) return 2;
    long nin = atol(argv[2]), nout = atol(argv[4]);
    int runs = atoi(argv[5]), i;
    float *in = calloc((size_t)nin, sizeof(float)), *out = calloc((size_t)nout, sizeof(float));
    double *t = malloc(sizeof(double) * (size_t)(runs > 0 ? runs : 1));
    FILE *f = fopen(argv[1], "rb");
    if (!in || !out || !t || !f || runs < 1 || fread(in, sizeof(float), (size_t)nin, f) != (size_t)nin) return 2;
    fclose(f);
    entry(in, out);
    for (i = 0; i < runs; i++) {
        double t0 = now_ms();
        entry(in, out);
        t[i] = now_ms() - t0;
    }
    qsort(t, (size_t)runs, sizeof *t, cmp);
    printf("{\"median_ms\": %.4f, \"min_ms\": %.4f}\n", t[runs / 2], t[0]);
    f = fopen(argv[3], "wb");
    if (!f || fwrite(out, sizeof(float), (size_t)nout, f) != (size_t)nout) return 2;
    fclose(f);
    return 0;
}
