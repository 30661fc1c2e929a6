/* test_rnn_fast.c — the compiled plan's recurrent step (rnn.c's fast path
 * over rnn_mv.c's matrix-vector product and fused LSTM / GRU cells)
 * against independent references: fx_matvec, fx_lstm_cell and fx_gru_cell
 * in every variant this
 * host runs (AVX-512, AVX2, portable, called directly) against double
 * precision, on sizes that are not multiples of the vector width;
 * kern_lstm_fast / kern_gru_fast against
 * the interpreter's kern_lstm / kern_gru (BLAS recurrence, scalar gates)
 * on odd hidden sizes, batch > 1, bidirectional and reverse directions,
 * sequence_lens and initial states. ctest also runs it under NNFX_ISA=avx2
 * and NNFX_ISA=portable (tests/differential.cmake), so the node cases take
 * each path too. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nnfx.h"
#include "core/core_int.h"
#include "exec/kernels/kernels_int.h"
#include "exec/kernels/rnn_mv.h"

static uint32_t g_seed = 12345u;

/* Uniform in [-1, 1) (a fixed linear congruential sequence). */
static float rnd(void) {
    g_seed = g_seed * 1664525u + 1013904223u;
    return (float)(g_seed >> 8) / (float)(1u << 23) - 1.0f;
}

static void test_matvec_each_isa(void **state) {
    (void)state;
    static const int64_t sizes[][2] = {{1, 1},   {3, 7},     {8, 8},     {16, 16}, {17, 15}, {33, 31},
                                       {76, 19}, {100, 129}, {512, 128}, {9, 40},  {24, 64}, {5, 200}};
    for (int isa = FX_MV_PORTABLE; isa <= (int)fx_mv_best(); isa++) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            int64_t rows = sizes[s][0], cols = sizes[s][1];
            float *A = malloc(sizeof(float) * (size_t)(rows * cols)), *x = malloc(sizeof(float) * (size_t)cols);
            float *y = malloc(sizeof(float) * (size_t)(rows + 16));
            assert_true(A && x && y);
            for (int64_t i = 0; i < rows * cols; i++)
                A[i] = rnd();
            for (int64_t i = 0; i < cols; i++)
                x[i] = rnd();
            for (int64_t i = 0; i < rows + 16; i++)
                y[i] = 1234.5f; /* rows beyond must stay untouched */
            fx_matvec((fx_mv_isa)isa, A, rows, cols, x, y);
            for (int64_t j = 0; j < rows; j++) {
                double ref = 0, mag = 0;
                for (int64_t k = 0; k < cols; k++)
                    ref += (double)A[j * cols + k] * x[k], mag += fabs((double)A[j * cols + k] * x[k]);
                if (fabs(y[j] - ref) > 1e-6 * mag + 1e-30)
                    fail_msg("isa %d, %lldx%lld: row %lld is %.9g, expected %.9g", isa, (long long)rows,
                             (long long)cols, (long long)j, y[j], ref);
            }
            for (int64_t i = rows; i < rows + 16; i++)
                assert_true(y[i] == 1234.5f);
            free(A), free(x), free(y);
        }
    }
}

/* fx_lstm_cell in each vector variant this host runs against the gate
 * math in double precision (sums of products, libm's exp and tanh). */
static void test_lstm_cell_each_isa(void **state) {
    (void)state;
    static const int64_t hidden[] = {1, 5, 8, 16, 19, 37, 64, 128};
    for (int isa = FX_MV_AVX2; isa <= (int)fx_mv_best(); isa++) {
        for (size_t s = 0; s < sizeof hidden / sizeof hidden[0]; s++) {
            int64_t Hd = hidden[s];
            float *R = malloc(sizeof(float) * (size_t)(4 * Hd * Hd)), *g = malloc(sizeof(float) * (size_t)(4 * Hd));
            float *h = malloc(sizeof(float) * (size_t)Hd), *c = malloc(sizeof(float) * (size_t)(Hd + 16));
            float *ho = malloc(sizeof(float) * (size_t)(Hd + 16)), *c0 = malloc(sizeof(float) * (size_t)Hd);
            assert_true(R && g && h && c && ho && c0);
            for (int64_t i = 0; i < 4 * Hd * Hd; i++)
                R[i] = 0.5f * rnd();
            for (int64_t i = 0; i < 4 * Hd; i++)
                g[i] = 2.0f * rnd();
            for (int64_t i = 0; i < Hd + 16; i++)
                c[i] = ho[i] = 1234.5f; /* beyond Hd: must stay untouched */
            for (int64_t i = 0; i < Hd; i++)
                h[i] = rnd(), c[i] = c0[i] = rnd();
            assert_true(fx_lstm_cell((fx_mv_isa)isa, R, Hd, h, g, c, ho));
            for (int64_t j = 0; j < Hd; j++) {
                double q[4];
                for (int k = 0; k < 4; k++) {
                    q[k] = g[k * Hd + j];
                    for (int64_t i = 0; i < Hd; i++)
                        q[k] += (double)R[(k * Hd + j) * Hd + i] * h[i];
                }
                double gi = 1 / (1 + exp(-q[0])), go = 1 / (1 + exp(-q[1])), gf = 1 / (1 + exp(-q[2]));
                double cr = gf * c0[j] + gi * tanh(q[3]), hr = go * tanh(cr);
                if (fabs(c[j] - cr) > 1e-5 || fabs(ho[j] - hr) > 1e-5)
                    fail_msg("isa %d, hidden %lld: unit %lld c %.9g h %.9g, expected %.9g %.9g", isa, (long long)Hd,
                             (long long)j, c[j], ho[j], cr, hr);
            }
            for (int64_t i = Hd; i < Hd + 16; i++)
                assert_true(c[i] == 1234.5f && ho[i] == 1234.5f);
            free(R), free(g), free(h), free(c), free(ho), free(c0);
        }
    }
    assert_false(fx_lstm_cell(FX_MV_PORTABLE, NULL, 1, NULL, NULL, NULL, NULL));
}

/* fx_gru_cell (linear_before_reset 1) in each vector variant this host
 * runs against the gate math in double precision, with and without the
 * recurrence bias of h. */
static void test_gru_cell_each_isa(void **state) {
    (void)state;
    static const int64_t hidden[] = {1, 6, 8, 16, 21, 40, 64};
    for (int isa = FX_MV_AVX2; isa <= (int)fx_mv_best(); isa++) {
        for (size_t s = 0; s < 2 * sizeof hidden / sizeof hidden[0]; s++) {
            int64_t Hd = hidden[s / 2];
            bool bias = s % 2;
            float *R = malloc(sizeof(float) * (size_t)(3 * Hd * Hd)), *g = malloc(sizeof(float) * (size_t)(3 * Hd));
            float *h = malloc(sizeof(float) * (size_t)Hd), *rbh = malloc(sizeof(float) * (size_t)Hd);
            float *ho = malloc(sizeof(float) * (size_t)(Hd + 16));
            assert_true(R && g && h && rbh && ho);
            for (int64_t i = 0; i < 3 * Hd * Hd; i++)
                R[i] = 0.5f * rnd();
            for (int64_t i = 0; i < 3 * Hd; i++)
                g[i] = 2.0f * rnd();
            for (int64_t i = 0; i < Hd; i++)
                h[i] = rnd(), rbh[i] = rnd();
            for (int64_t i = 0; i < Hd + 16; i++)
                ho[i] = 1234.5f;
            assert_true(fx_gru_cell((fx_mv_isa)isa, R, Hd, h, g, bias ? rbh : NULL, ho));
            for (int64_t j = 0; j < Hd; j++) {
                double q[3];
                for (int k = 0; k < 3; k++) {
                    q[k] = 0;
                    for (int64_t i = 0; i < Hd; i++)
                        q[k] += (double)R[(k * Hd + j) * Hd + i] * h[i];
                }
                double z = 1 / (1 + exp(-(q[0] + g[j]))), r = 1 / (1 + exp(-(q[1] + g[Hd + j])));
                double hh = tanh(g[2 * Hd + j] + r * (q[2] + (bias ? rbh[j] : 0))), hr = (1 - z) * hh + z * h[j];
                if (fabs(ho[j] - hr) > 1e-5)
                    fail_msg("isa %d, hidden %lld, bias %d: unit %lld h %.9g, expected %.9g", isa, (long long)Hd,
                             (int)bias, (long long)j, ho[j], hr);
            }
            for (int64_t i = Hd; i < Hd + 16; i++)
                assert_true(ho[i] == 1234.5f);
            free(R), free(g), free(h), free(rbh), free(ho);
        }
    }
    assert_false(fx_gru_cell(FX_MV_PORTABLE, NULL, 1, NULL, NULL, NULL, NULL));
}

static nnfx_tensor *random_tensor(nnfx_dtype dt, int rank, const int64_t *shape, float scale) {
    nnfx_tensor *t = nnfx_tensor_new(dt, rank, shape, NULL);
    assert_non_null(t);
    if (dt == NNFX_F32)
        for (int64_t i = 0; i < nnfx_tensor_numel(t); i++)
            ((float *)t->data)[i] = scale * rnd();
    return t;
}

/* One recurrent node to run both ways. */
typedef struct rnn_case {
    const char *what;
    bool lstm;
    int64_t T, batch, input, hidden;
    const char *direction;
    int64_t linear_before_reset;
    bool seq_lens, initial;
} rnn_case;

/* Runs c through kern_{lstm,gru} (the interpreter) and the fast kernel and
 * compares every output. */
static void run_rnn_case(const rnn_case *c) {
    nnfx_error err = {0};
    int dirs = strcmp(c->direction, "bidirectional") == 0 ? 2 : 1, G = c->lstm ? 4 : 3;
    int64_t xs[3] = {c->T, c->batch, c->input}, ws[3] = {dirs, G * c->hidden, c->input};
    int64_t rs[3] = {dirs, G * c->hidden, c->hidden}, bs[2] = {dirs, 2 * G * c->hidden}, sl[1] = {c->batch};
    int64_t hs[3] = {dirs, c->batch, c->hidden};
    nnfx_tensor *in[7] = {random_tensor(NNFX_F32, 3, xs, 1.0f),
                          random_tensor(NNFX_F32, 3, ws, 0.5f),
                          random_tensor(NNFX_F32, 3, rs, 0.5f),
                          random_tensor(NNFX_F32, 2, bs, 0.5f),
                          NULL,
                          NULL,
                          NULL};
    if (c->seq_lens) {
        in[4] = random_tensor(NNFX_I64, 1, sl, 0);
        for (int64_t b = 0; b < c->batch; b++)
            ((int64_t *)in[4]->data)[b] = b == 0 ? c->T : 1 + (b * 5) % c->T;
    }
    if (c->initial) {
        in[5] = random_tensor(NNFX_F32, 3, hs, 1.0f);
        if (c->lstm) in[6] = random_tensor(NNFX_F32, 3, hs, 1.0f);
    }
    int nin = c->lstm ? 7 : 6;
    nnfx_graph *g = nnfx_graph_new();
    assert_non_null(g);
    nnfx_arg a[7];
    for (int i = 0; i < nin; i++) {
        if (!in[i]) {
            a[i] = nnfx_arg_none();
            continue;
        }
        char nm[16];
        snprintf(nm, sizeof nm, "in%d", i);
        nnfx_meta m;
        nnfx_meta_set_shape(&m, in[i]->dtype, in[i]->rank, in[i]->shape);
        nnfx_node *p = nnfx_graph_placeholder(g, nm, &m, &err);
        assert_non_null(p);
        a[i] = nnfx_arg_node(p);
    }
    nnfx_attr at[3] = {{.name = "hidden_size", .kind = NNFX_ATTR_INT, .u.i = c->hidden},
                       {.name = "direction", .kind = NNFX_ATTR_STRING, .u.s = c->direction},
                       {.name = "linear_before_reset", .kind = NNFX_ATTR_INT, .u.i = c->linear_before_reset}};
    nnfx_node *n = nnfx_graph_call_op(g, c->lstm ? NNFX_OP_LSTM : NNFX_OP_GRU, nin, a, c->lstm ? 2 : 3, at, &err);
    assert_non_null(n);
    int64_t ys[4] = {c->T, dirs, c->batch, c->hidden};
    nnfx_tensor *slow[3], *fast[3];
    int nout = c->lstm ? 3 : 2;
    for (int o = 0; o < nout; o++) {
        slow[o] = nnfx_tensor_new(NNFX_F32, o == 0 ? 4 : 3, o == 0 ? ys : hs, NULL);
        fast[o] = nnfx_tensor_new(NNFX_F32, o == 0 ? 4 : 3, o == 0 ? ys : hs, NULL);
        assert_true(slow[o] && fast[o]);
    }
    assert_int_equal(c->lstm ? kern_lstm(n, nin, in, nout, slow, &err) : kern_gru(n, nin, in, nout, slow, &err),
                     NNFX_OK);
    assert_int_equal(
        c->lstm ? kern_lstm_fast(n, nin, in, nout, fast, &err) : kern_gru_fast(n, nin, in, nout, fast, &err), NNFX_OK);
    for (int o = 0; o < nout; o++) {
        const float *s = slow[o]->data, *f = fast[o]->data;
        for (int64_t i = 0; i < nnfx_tensor_numel(slow[o]); i++)
            if (!(fabsf(s[i] - f[i]) <= 2e-5f))
                fail_msg("%s: output %d element %lld is %.9g, the interpreter's %.9g", c->what, o, (long long)i, f[i],
                         s[i]);
        nnfx_tensor_release(slow[o]), nnfx_tensor_release(fast[o]);
    }
    nnfx_graph_free(g);
    for (int i = 0; i < 7; i++)
        if (in[i]) nnfx_tensor_release(in[i]);
}

static void test_rnn_fast_vs_interpreter(void **state) {
    (void)state;
    static const rnn_case cases[] = {
        {"lstm forward, hidden 19", true, 7, 1, 5, 19, "forward", 0, false, false},
        {"lstm bidirectional, batch 3, sequence_lens", true, 6, 3, 9, 37, "bidirectional", 0, true, true},
        {"lstm reverse, hidden 128, batch 2", true, 5, 2, 40, 128, "reverse", 0, false, true},
        {"lstm batch 5 (one GEMM per step), hidden 21", true, 4, 5, 3, 21, "forward", 0, true, true},
        {"lstm hidden 1", true, 3, 2, 2, 1, "bidirectional", 0, false, true},
        {"gru linear_before_reset 1, hidden 19, batch 2", false, 6, 2, 7, 19, "forward", 1, false, true},
        {"gru linear_before_reset 0, hidden 33, batch 3", false, 5, 3, 4, 33, "bidirectional", 0, true, true},
        {"gru linear_before_reset 0, hidden 64", false, 8, 1, 16, 64, "reverse", 0, false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_rnn_case(&cases[i]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matvec_each_isa),
        cmocka_unit_test(test_lstm_cell_each_isa),
        cmocka_unit_test(test_gru_cell_each_isa),
        cmocka_unit_test(test_rnn_fast_vs_interpreter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
