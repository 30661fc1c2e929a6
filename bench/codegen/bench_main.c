/* bench_main.c — times a generated model (nnfx codegen --name model):
 *   bench_main IN.bin OUT.bin RUNS
 * reads input 0 (raw float32), one warm-up run, RUNS timed runs; prints
 * {"median_ms": ..., "min_ms": ...} and writes output 0 (raw float32);
 * models with up to four outputs. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model.h"

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
    static float in[model_INPUT0_SIZE], out[model_OUTPUT0_SIZE];
#if model_NUM_OUTPUTS > 1 /* room for the other outputs (up to four; not written out) */
    static float out1[model_OUTPUT1_SIZE];
#if model_NUM_OUTPUTS > 2
    static float out2[model_OUTPUT2_SIZE];
#if model_NUM_OUTPUTS > 3
    static float out3[model_OUTPUT3_SIZE];
#endif
#endif
#endif
    const float *ins[1] = {in};
    float *outs[model_NUM_OUTPUTS > 4 ? model_NUM_OUTPUTS : 4] = {
        out,
#if model_NUM_OUTPUTS > 1
        out1,
#if model_NUM_OUTPUTS > 2
        out2,
#if model_NUM_OUTPUTS > 3
        out3
#endif
#endif
#endif
    };
    if (model_NUM_OUTPUTS > 4) return 2;
    int runs = argc > 3 ? atoi(argv[3]) : 10, i;
    FILE *f = argc > 2 ? fopen(argv[1], "rb") : NULL;
    if (!f || fread(in, sizeof(float), model_INPUT0_SIZE, f) != model_INPUT0_SIZE) return 2;
    fclose(f);
    double *t = malloc(sizeof(double) * (size_t)(runs > 0 ? runs : 1));
    if (!t || runs < 1) return 2;
    model_run(ins, outs);
    for (i = 0; i < runs; i++) {
        double t0 = now_ms();
        model_run(ins, outs);
        t[i] = now_ms() - t0;
    }
    qsort(t, (size_t)runs, sizeof *t, cmp);
    printf("{\"median_ms\": %.4f, \"min_ms\": %.4f}\n", t[runs / 2], t[0]);
    f = fopen(argv[2], "wb");
    if (!f || fwrite(out, sizeof(float), model_OUTPUT0_SIZE, f) != model_OUTPUT0_SIZE) return 2;
    fclose(f);
    free(t);
    return 0;
}
