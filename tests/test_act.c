/* test_act.c — one meaning per activation: the compiled plan's fused
 * activations (fx_act_row, src/exec/kernels/act_fast.c) against the scalar
 * definitions the interpreter and the C generator use
 * (src/rt/nnfx_rt_scalar.h). Relu, Clip, LeakyRelu and
 * HardSwish must match bit for bit; the fast sigmoid and SiLU (portable
 * polynomial and AVX2 row) within the bounds stated in src/exec/fast_int.h,
 * over every 509th float bit pattern plus a dense grid of [-100, 100] and
 * the extremes (±0, ±inf, NaN, FLT_MAX, denormals); softmax's exp
 * (nnfx_rt_exp_nonpos) against libm's expf on the same inputs. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt/nnfx_rt_kernels.h"
#include "rt/nnfx_rt_scalar.h"
#include "rt/nnfx_rt_kernels.h"
#include "exec/fast_int.h"
#include "exec/kernels/act_x86.h"

#define MAX_ULP     8
#define STRIDE      509       /* bit patterns */
#define SIGMOID_ABS 0x1p-125f /* below this, an absolute bound */
#define SILU_ABS    0x1p-118f

/* The inputs: every 509th bit pattern, [-100, 100] in steps of 1/1024, and
 * the extremes. */
static float *inputs(int64_t *count) {
    static const float extremes[] = {0.0f,     -0.0f,   INFINITY, -INFINITY, NAN,     -NAN,   FLT_MAX,
                                     -FLT_MAX, FLT_MIN, -FLT_MIN, 1e-45f,    -1e-45f, 87.0f,  -87.0f,
                                     88.8f,    -88.8f,  103.9f,   -103.9f,   17.0f,   -17.0f, 0x1p-24f};
    int64_t nbits = (INT64_C(1) << 32) / STRIDE + 1, ngrid = 200 * 1024 + 1, ne = sizeof extremes / sizeof extremes[0];
    float *x = malloc((size_t)(nbits + ngrid + ne) * sizeof(float));
    assert_non_null(x);
    int64_t k = 0;
    for (uint64_t b = 0; b < (UINT64_C(1) << 32); b += STRIDE) {
        uint32_t u = (uint32_t)b;
        memcpy(&x[k++], &u, sizeof u);
    }
    for (int64_t i = 0; i < ngrid; i++)
        x[k++] = -100.0f + (float)i / 1024.0f;
    for (int64_t i = 0; i < ne; i++)
        x[k++] = extremes[i];
    *count = k;
    return x;
}

static int64_t ordered(float f) {
    int32_t i;
    memcpy(&i, &f, sizeof i);
    return i < 0 ? (int64_t)INT32_MIN - i : i;
}

/* Distance of got from want in units in the last place (0 when both are
 * NaN, huge when one is). */
static int64_t ulps(float got, float want) {
    if (isnan(got) || isnan(want)) return isnan(got) && isnan(want) ? 0 : INT64_MAX;
    int64_t d = ordered(got) - ordered(want);
    return d < 0 ? -d : d;
}

/* Checks y (the fast path's values) against meaning(x) within the stated
 * bound; prints the worst case. */
static void check_close(const char *what, const float *x, const float *y, int64_t n,
                        float (*meaning)(float, float, float)) {
    float tiny_abs = meaning == nnfx_rt_silu ? SILU_ABS : SIGMOID_ABS;
    int64_t worst = 0, worst_i = -1, bad = 0;
    for (int64_t i = 0; i < n; i++) {
        float want = meaning(x[i], 0, 0);
        int64_t u = ulps(y[i], want);
        bool tiny = fabsf(want) < tiny_abs && fabsf(y[i] - want) <= tiny_abs;
        if (tiny) continue;
        if (u > worst) worst = u, worst_i = i;
        if (u > MAX_ULP) {
            if (bad++ < 5)
                print_error("%s(%a) = %a, meaning %a (%lld ulp)\n", what, (double)x[i], (double)y[i], (double)want,
                            (long long)u);
        }
    }
    print_message("%s: %lld values, worst %lld ulp%s%a\n", what, (long long)n, (long long)worst,
                  worst_i >= 0 ? " at x = " : "", worst_i >= 0 ? (double)x[worst_i] : 0.0);
    assert_int_equal(bad, 0);
}

static float silu_fast(float x) { return x * fx_sigmoid_fast(x); }

static void test_portable_sigmoid(void **state) {
    (void)state;
    int64_t n;
    float *x = inputs(&n), *y = malloc((size_t)n * sizeof(float));
    assert_non_null(y);
    for (int64_t i = 0; i < n; i++)
        y[i] = fx_sigmoid_fast(x[i]);
    check_close("portable sigmoid", x, y, n, nnfx_rt_sigmoid);
    for (int64_t i = 0; i < n; i++)
        y[i] = silu_fast(x[i]);
    check_close("portable silu", x, y, n, nnfx_rt_silu);
    assert_true(ulps(fx_sigmoid_fast(INFINITY), 1.0f) <= 1 && fx_sigmoid_fast(-INFINITY) == 0.0f);
    assert_true(isnan(fx_sigmoid_fast(NAN)) && isnan(silu_fast(-INFINITY)));
    free(x);
    free(y);
}

/* Softmax's exp (nnfx_rt_exp_nonpos, src/rt/nnfx_rt_kernels.h) against
 * libm's expf on every input <= 0 of the set: within 2 ulp down to
 * -87.3365, 0 below (where expf is subnormal, < 2^-126) and at -inf, NaN
 * kept; and a softmax row through it sums to 1. */
static void test_exp_nonpos(void **state) {
    (void)state;
    int64_t n, worst = 0, bad = 0;
    float *x = inputs(&n), wx = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!(x[i] <= 0.0f)) continue;
        float got = nnfx_rt_exp_nonpos(x[i]), want = expf(x[i]);
        int64_t u = x[i] >= -87.3365f ? ulps(got, want) : (got == 0.0f && want < 0x1p-126f ? 0 : INT64_MAX);
        if (u > worst) worst = u, wx = x[i];
        if (u > 2 && bad++ < 5)
            print_error("exp_nonpos(%a) = %a, expf %a (%lld ulp)\n", (double)x[i], (double)got, (double)want,
                        (long long)u);
    }
    print_message("exp_nonpos: worst %lld ulp at x = %a\n", (long long)worst, (double)wx);
    assert_int_equal(bad, 0);
    assert_true(nnfx_rt_exp_nonpos(-INFINITY) == 0.0f && nnfx_rt_exp_nonpos(0.0f) == 1.0f);
    assert_true(isnan(nnfx_rt_exp_nonpos(NAN)) && isnan(nnfx_rt_exp_nonpos(-NAN)));
    float row[7] = {1.0f, -2.0f, 30.0f, -INFINITY, 0.5f, 29.0f, -100.0f}, y[7];
    nnfx_rt_softmax(row, y, 1, 7, 1, 0);
    double sum = 0;
    for (int k = 0; k < 7; k++)
        sum += y[k];
    assert_true(fabs(sum - 1.0) < 1e-6 && y[3] == 0.0f && ulps(y[2], 1.0f / (1.0f + expf(-1.0f))) <= 4);
    free(x);
}

static void test_vector_sigmoid(void **state) {
    (void)state;
    int64_t n;
    float *x = inputs(&n), *y = malloc((size_t)n * sizeof(float));
    assert_non_null(y);
    for (int silu = 0; silu <= 1; silu++) {
        memcpy(y, x, (size_t)n * sizeof(float));
        if (!fx_sigmoid_row(y, n, silu)) {
            print_message("no AVX2+FMA on this CPU (or NNFX_ISA=portable): vector row not checked\n");
            break;
        }
        check_close(silu ? "vector silu" : "vector sigmoid", x, y, n, silu ? nnfx_rt_silu : nnfx_rt_sigmoid);
    }
    /* the row's padded tail takes the same path as its body */
    float t[3] = {NAN, -INFINITY, INFINITY};
    if (fx_sigmoid_row(t, 3, false)) assert_true(isnan(t[0]) && t[1] == 0.0f && ulps(t[2], 1.0f) <= 1);
    /* every row length: the same values as a long row, nothing written past n */
    float whole[41], part[42];
    for (int i = 0; i < 41; i++)
        whole[i] = (float)(i - 20) * 0.37f;
    if (fx_sigmoid_row(whole, 41, true))
        for (int len = 1; len <= 40; len++) {
            for (int i = 0; i < 42; i++)
                part[i] = (float)(i - 20) * 0.37f;
            part[len] = 12345.0f;
            assert_true(fx_sigmoid_row(part, len, true));
            for (int i = 0; i < len; i++)
                assert_true(part[i] == whole[i]);
            assert_true(part[len] == 12345.0f);
        }
    free(x);
    free(y);
}

/* The fast tanh (portable, vector row, and through fx_act_row) against
 * nnfx_rt_tanh (libm's tanhf): within MAX_ULP over the inputs, +-1 at
 * +-inf (within MAX_ULP), NaN for NaN, tiny values exact; the row's tail as its body. */
static void test_tanh(void **state) {
    (void)state;
    int64_t n;
    float *x = inputs(&n), *y = malloc((size_t)n * sizeof(float));
    assert_non_null(y);
    for (int64_t i = 0; i < n; i++)
        y[i] = fx_tanh_fast(x[i]);
    check_close("portable tanh", x, y, n, nnfx_rt_tanh);
    assert_true(ulps(fx_tanh_fast(INFINITY), 1.0f) <= MAX_ULP && ulps(fx_tanh_fast(-INFINITY), -1.0f) <= MAX_ULP);
    assert_true(isnan(fx_tanh_fast(NAN)) && fx_tanh_fast(1e-30f) == 1e-30f);
    memcpy(y, x, (size_t)n * sizeof(float));
    if (fx_tanh_row(y, n))
        check_close("vector tanh", x, y, n, nnfx_rt_tanh);
    else
        print_message("no AVX2+FMA on this CPU (or NNFX_ISA=portable): vector tanh not checked\n");
    memcpy(y, x, (size_t)n * sizeof(float));
    fx_act_row(y, n, FX_ACT_TANH, 0, 0);
    check_close("fx_act_row tanh", x, y, n, nnfx_rt_tanh);
    float whole[41], part[42];
    for (int i = 0; i < 41; i++)
        whole[i] = (float)(i - 20) * 0.37f;
    if (fx_tanh_row(whole, 41))
        for (int len = 1; len <= 40; len++) {
            for (int i = 0; i < 42; i++)
                part[i] = (float)(i - 20) * 0.37f;
            part[len] = 12345.0f;
            assert_true(fx_tanh_row(part, len));
            for (int i = 0; i < len; i++)
                assert_true(part[i] == whole[i]);
            assert_true(part[len] == 12345.0f);
        }
    free(x);
    free(y);
}

/* The dispatching row (whatever path this CPU takes) and the exact ones. */
static void test_act_row(void **state) {
    (void)state;
    int64_t n;
    float *x = inputs(&n), *y = malloc((size_t)n * sizeof(float));
    assert_non_null(y);
    static const struct {
        fx_act act;
        float p0, p1;
        float (*meaning)(float, float, float);
    } exact[] = {{FX_ACT_RELU, 0, 0, nnfx_rt_relu},
                 {FX_ACT_CLIP, -1.5f, 6.0f, nnfx_rt_clip},
                 {FX_ACT_CLIP, 2.0f, 1.0f, nnfx_rt_clip},
                 {FX_ACT_LEAKY, 0.1f, 0, nnfx_rt_leaky_relu},
                 {FX_ACT_HARDSWISH, 0, 0, nnfx_rt_hard_swish}};
    for (size_t a = 0; a < sizeof exact / sizeof exact[0]; a++) {
        memcpy(y, x, (size_t)n * sizeof(float));
        fx_act_row(y, n, exact[a].act, exact[a].p0, exact[a].p1);
        int64_t bad = 0;
        for (int64_t i = 0; i < n; i++) {
            float want = exact[a].meaning(x[i], exact[a].p0, exact[a].p1);
            if (memcmp(&want, &y[i], sizeof want) != 0 && !(isnan(want) && isnan(y[i])) && bad++ < 5)
                print_error("%s(%a) = %a, meaning %a\n", fx_act_name(exact[a].act), (double)x[i], (double)y[i],
                            (double)want);
        }
        assert_int_equal(bad, 0);
    }
    memcpy(y, x, (size_t)n * sizeof(float));
    fx_act_row(y, n, FX_ACT_SIGMOID, 0, 0);
    check_close("fx_act_row sigmoid", x, y, n, nnfx_rt_sigmoid);
    memcpy(y, x, (size_t)n * sizeof(float));
    fx_act_row(y, n, FX_ACT_SILU, 0, 0);
    check_close("fx_act_row silu", x, y, n, nnfx_rt_silu);
    free(x);
    free(y);
}

/* a == b, or both NaN. */
static bool same_float(float a, float b) { return a == b || (isnan(a) && isnan(b)); }

/* The compiled plan's erf and GELU rows (fx_erf_row, whatever ISA variant
 * this CPU runs) against libm: erf within 5e-7 of erff (its error bound in
 * fast_int.h) over the inputs, +-1 at +-inf, NaN for NaN; the GELU row
 * (x * (erf(x / sqrt 2) + 1)) * 0.5 against the same steps in double
 * with libm's erf, within 5e-7 |x| plus 2 ulp (beyond 1e30, where erf is
 * +-1 and 2x may overflow, the float steps exactly); an in-place row as a
 * copied one. */
static void test_erf(void **state) {
    (void)state;
    int64_t n;
    float *x = inputs(&n), *y = malloc((size_t)n * sizeof(float));
    assert_non_null(y);
    fx_erf_row(x, y, n, NULL, false);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        float want = erff(x[i]);
        bool ok = isnan(want) ? isnan(y[i]) : fabsf(y[i] - want) <= 5e-7f && fx_erf_fast(x[i]) == y[i];
        if (!ok && bad++ < 5) print_error("erf(%a) = %a, libm %a\n", (double)x[i], (double)y[i], (double)want);
    }
    assert_int_equal(bad, 0);
    assert_true(fx_erf_fast(INFINITY) == 1.0f && fx_erf_fast(-INFINITY) == -1.0f && isnan(fx_erf_fast(NAN)));
    const float c[3] = {1.41421353816986084f, 1.0f, 0.5f};
    fx_erf_row(x, y, n, c, true);
    for (int64_t i = 0; i < n; i++) {
        double xi = x[i], want = xi * (erf(xi / c[0]) + 1.0) * 0.5;
        bool ok = isnan(xi) ? isnan(y[i])
                  : fabsf(x[i]) > 1e30f
                      ? same_float(y[i], (x[i] * (erff(x[i] / c[0]) + 1.0f)) * 0.5f) /* the graph's float steps */
                      : fabs(y[i] - want) <= 5e-7 * fabs(xi) + 2.4e-7 * fabs(want) + 1e-37;
        if (!ok && bad++ < 5) print_error("gelu(%a) = %a, libm %a\n", xi, (double)y[i], want);
    }
    assert_int_equal(bad, 0);
    memcpy(y, x, (size_t)n * sizeof(float));
    fx_erf_row(y, y, n, c, true);
    float *z = malloc((size_t)n * sizeof(float));
    assert_non_null(z);
    fx_erf_row(x, z, n, c, true);
    assert_memory_equal(y, z, (size_t)n * sizeof(float));
    free(z);
    free(x);
    free(y);
}

/* The compiled plan's softmax rows against nnfx_rt_softmax (expf, in
 * order): within 8 ulp above 2^-100, absolutely within 2^-100 below, over
 * rows of 1 to 70 values spread over [-60, 60] (and a row with -inf, one
 * with NaN: the meaning's NaNs, one with +inf); in place as out of place. */
static void test_softmax(void **state) {
    (void)state;
    float x[4 * 70], y[4 * 70], z[4 * 70], w[4 * 70];
    int64_t bad = 0;
    for (int n = 1; n <= 70; n++) {
        for (int i = 0; i < 4 * n; i++)
            x[i] = (float)((i * 37 + n * 11) % 97) * 1.25f - 60.0f;
        if (n > 3) x[n + 2] = -INFINITY, x[2 * n + 1] = NAN, x[3 * n] = INFINITY;
        fx_softmax_rows(x, y, 4, n);
        nnfx_rt_softmax(x, z, 4, n, 1, 0);
        memcpy(w, x, sizeof(float) * (size_t)(4 * n));
        fx_softmax_rows(w, w, 4, n);
        for (int i = 0; i < 4 * n; i++) {
            bool ok = fabsf(z[i]) < 0x1p-100f ? fabsf(y[i] - z[i]) <= 0x1p-100f : ulps(y[i], z[i]) <= MAX_ULP;
            ok = ok && (memcmp(&y[i], &w[i], sizeof(float)) == 0 || (isnan(y[i]) && isnan(w[i])));
            if (!ok && bad++ < 5)
                print_error("softmax row of %d, [%d]: %a (in place %a), meaning %a\n", n, i, (double)y[i], (double)w[i],
                            (double)z[i]);
        }
    }
    assert_int_equal(bad, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_portable_sigmoid),
        cmocka_unit_test(test_exp_nonpos),
        cmocka_unit_test(test_vector_sigmoid),
        cmocka_unit_test(test_act_row),
        cmocka_unit_test(test_tanh),
        cmocka_unit_test(test_erf),
        cmocka_unit_test(test_softmax),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
