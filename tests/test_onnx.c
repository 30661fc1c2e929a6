/* test_onnx.c — ONNX import/export: fixtures made by
 * tests/data/gen_onnx_fixtures.py (PyTorch reference outputs), round trips,
 * external data, and hostile input (truncations, corrupt bytes, wrong
 * magic, absurd dims, deep nesting, missing side files). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "io/onnx_wire.h"
#include "ir/ir_int.h"
#include "testutil.h"

#define FIX NNFX_TEST_DATA "/onnx/"

static nnfx_graph *load_ok(const char *path) {
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_onnx_load(path, &err);
    if (!g) print_error("%s: %s\n", path, err.msg);
    assert_non_null(g);
    return g;
}

static int count_op(const nnfx_graph *g, nnfx_op op) {
    int k = 0;
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n))
        k += nnfx_node_is_op(n, op);
    return k;
}

static nnfx_node *find_op(const nnfx_graph *g, nnfx_op op) {
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n))
        if (nnfx_node_is_op(n, op)) return n;
    return NULL;
}

/* Structural equality: nodes (opcode, op, name, target, args, attrs, meta)
 * and parameters (dtype, shape, bytes). */
static void assert_same_graph(const nnfx_graph *a, const nnfx_graph *b) {
    assert_int_equal(nnfx_graph_num_nodes(a), nnfx_graph_num_nodes(b));
    const nnfx_node *x = nnfx_graph_first(a), *y = nnfx_graph_first(b);
    for (; x && y; x = nnfx_node_next(x), y = nnfx_node_next(y)) {
        assert_string_equal(nnfx_node_name(x), nnfx_node_name(y));
        assert_int_equal(nnfx_node_opcode(x), nnfx_node_opcode(y));
        assert_int_equal(nnfx_node_op(x), nnfx_node_op(y));
        assert_string_equal(nnfx_node_target(x), nnfx_node_target(y));
        assert_int_equal(nnfx_node_num_args(x), nnfx_node_num_args(y));
        for (int i = 0; i < nnfx_node_num_args(x); i++) {
            nnfx_arg p = nnfx_node_arg(x, i), q = nnfx_node_arg(y, i);
            assert_int_equal(p.kind, q.kind);
            if (p.kind == NNFX_ARG_NODE) assert_string_equal(nnfx_node_name(p.u.node), nnfx_node_name(q.u.node));
        }
        if (nnfx_node_num_attrs(x) != nnfx_node_num_attrs(y)) print_error("node %s: attrs differ\n", nnfx_node_name(x));
        assert_int_equal(nnfx_node_num_attrs(x), nnfx_node_num_attrs(y));
        for (int i = 0; i < nnfx_node_num_attrs(x); i++) {
            const nnfx_attr *p = nnfx_node_attr_at(x, i), *q = nnfx_node_attr(y, p->name);
            assert_non_null(q);
            assert_int_equal(p->kind, q->kind);
        }
        assert_int_equal(nnfx_node_num_outputs(x), nnfx_node_num_outputs(y));
        char m1[128], m2[128];
        assert_string_equal(nnfx_meta_str(nnfx_node_meta_c(x, 0), m1, sizeof m1),
                            nnfx_meta_str(nnfx_node_meta_c(y, 0), m2, sizeof m2));
    }
    assert_int_equal(nnfx_graph_num_params(a), nnfx_graph_num_params(b));
    for (int i = 0; i < nnfx_graph_num_params(a); i++) {
        const nnfx_tensor *p = nnfx_graph_param_at(a, i);
        const nnfx_tensor *q = nnfx_graph_param(b, nnfx_graph_param_name(a, i));
        assert_non_null(q);
        assert_int_equal(p->dtype, q->dtype);
        assert_int_equal(p->nbytes, q->nbytes);
        assert_memory_equal(p->data, q->data, p->nbytes);
    }
}

static void test_mlp(void **state) {
    (void)state;
    nnfx_graph *g = load_ok(FIX "mlp.onnx");
    assert_int_equal(nnfx_graph_num_inputs(g), 1);
    nnfx_node *in = nnfx_graph_input(g, 0);
    assert_string_equal(nnfx_node_name(in), "input");
    const nnfx_meta *m = nnfx_node_meta_c(in, 0);
    assert_int_equal(m->dtype, NNFX_F32);
    assert_int_equal(m->rank, 2);
    assert_int_equal(m->dims[0].value, 2);
    assert_int_equal(m->dims[1].value, 8);
    assert_int_equal(count_op(g, NNFX_OP_GEMM), 2);
    assert_int_equal(count_op(g, NNFX_OP_RELU), 1);
    assert_int_equal(count_op(g, NNFX_OP_SOFTMAX), 1);
    assert_int_equal(nnfx_graph_num_params(g), 4);
    assert_non_null(nnfx_graph_param(g, "fc1.weight"));
    nnfx_node *out = nnfx_graph_output_node(g);
    assert_non_null(out);
    assert_string_equal(nnfx_node_name(nnfx_node_arg_node(out, 0)), "output");
    assert_int_equal(nnfx_graph_lint(g, NULL), NNFX_OK);
    nnfx_graph_free(g);
}

static void test_convnet(void **state) {
    (void)state;
    nnfx_graph *g = load_ok(FIX "convnet.onnx");
    const nnfx_meta *m = nnfx_node_meta_c(nnfx_graph_input(g, 0), 0);
    assert_int_equal(m->rank, 4);
    assert_int_equal(m->dims[0].value, -1);
    assert_string_equal(m->dims[0].symbol, "batch");
    assert_int_equal(m->dims[1].value, 3);
    assert_int_equal(count_op(g, NNFX_OP_CONV), 1);
    assert_int_equal(count_op(g, NNFX_OP_MAX_POOL), 1);
    assert_int_equal(nnfx_graph_lint(g, NULL), NNFX_OK);
    nnfx_graph_free(g);
}

/* Runs the graph on input_0.pb and compares with PyTorch's output_0.pb. */
static void check_numerics(const char *model, const char *prefix) {
    char path[512];
    nnfx_error err = {0};
    snprintf(path, sizeof path, FIX "%s_input_0.pb", prefix);
    nnfx_tensor *x = nnfx_tensor_pb_load(path, &err);
    assert_non_null(x);
    snprintf(path, sizeof path, FIX "%s_output_0.pb", prefix);
    nnfx_tensor *want = nnfx_tensor_pb_load(path, &err);
    assert_non_null(want);
    nnfx_gm *gm = nnfx_gm_new(load_ok(model), &err);
    assert_non_null(gm);
    nnfx_tensor *out[4] = {0};
    int nout = 0;
    nnfx_status st = nnfx_gm_run(gm, 1, &x, 4, out, &nout, &err);
    if (st) print_error("%s: %s\n", model, err.msg);
    assert_int_equal(st, NNFX_OK);
    assert_int_equal(nout, 1);
    assert_true(tu_max_abs_diff(out[0], want) < 1e-4);
    nnfx_tensor_release(out[0]);
    nnfx_tensor_release(x);
    nnfx_tensor_release(want);
    nnfx_gm_free(gm);
}

static void test_numerics(void **state) {
    (void)state;
    check_numerics(FIX "mlp.onnx", "mlp");
    check_numerics(FIX "convnet.onnx", "convnet");
    check_numerics(FIX "external.onnx", "external");
}

static void test_legacy_opset(void **state) {
    (void)state;
    nnfx_graph *g = load_ok(FIX "legacy_opset9.onnx");
    nnfx_node *n = find_op(g, NNFX_OP_CLIP);
    assert_non_null(n);
    assert_int_equal(nnfx_node_num_args(n), 3);
    nnfx_node *mn = nnfx_node_arg_node(n, 1);
    assert_int_equal(nnfx_node_opcode(mn), NNFX_GET_ATTR);
    assert_true(nnfx_tensor_get(nnfx_graph_param(g, nnfx_node_target(mn)), 0) == -1.0);
    assert_int_equal(nnfx_node_num_args(find_op(g, NNFX_OP_UNSQUEEZE)), 2);
    assert_int_equal(nnfx_node_num_args(find_op(g, NNFX_OP_SQUEEZE)), 2);
    nnfx_node *rm = find_op(g, NNFX_OP_REDUCE_MEAN);
    assert_int_equal(nnfx_node_num_args(rm), 2);
    assert_int_equal(nnfx_node_attr_int(rm, "keepdims", 0), 1);
    nnfx_node *sp = find_op(g, NNFX_OP_SPLIT);
    assert_int_equal(nnfx_node_num_args(sp), 2);
    assert_int_equal(nnfx_node_num_outputs(sp), 2);
    nnfx_node *dr = find_op(g, NNFX_OP_DROPOUT);
    assert_int_equal(nnfx_node_num_outputs(dr), 2); /* the mask is used */
    assert_int_equal(nnfx_node_num_args(dr), 2);
    assert_int_equal(count_op(g, NNFX_OP_GETITEM), 4);
    /* Softmax-9 axis=1 on a 3-D input: flatten + softmax + reshape */
    assert_int_equal(count_op(g, NNFX_OP_FLATTEN), 1);
    assert_int_equal(count_op(g, NNFX_OP_RESHAPE), 1);
    nnfx_node *pad = find_op(g, NNFX_OP_PAD);
    assert_int_equal(nnfx_node_num_args(pad), 3);
    /* Constant -> parameter "k"; "z.out" -> node z_out */
    assert_non_null(nnfx_graph_param(g, "k"));
    assert_non_null(nnfx_graph_find(g, "z_out"));
    assert_int_equal(nnfx_graph_lint(g, NULL), NNFX_OK);
    const struct onnx_model_info *info = g->model_info;
    assert_non_null(info);
    nnfx_graph_free(g);
}

static void test_typed_data(void **state) {
    (void)state;
    nnfx_graph *g = load_ok(FIX "typed_data.onnx");
    const nnfx_tensor *wf = nnfx_graph_param(g, "wf");
    assert_non_null(wf);
    assert_int_equal(wf->dtype, NNFX_F32);
    assert_true(nnfx_tensor_get(wf, 2) == 2.0);
    const nnfx_tensor *sh = nnfx_graph_param(g, "shape");
    assert_int_equal(sh->dtype, NNFX_I64);
    assert_true(nnfx_tensor_get(sh, 2) == 3.0);
    const nnfx_tensor *i32 = nnfx_graph_param(g, "i32");
    assert_int_equal(i32->dtype, NNFX_I32);
    assert_true(nnfx_tensor_get(i32, 1) == -9.0);
    const nnfx_tensor *raw = nnfx_graph_param(g, "raw");
    assert_true(nnfx_tensor_get(raw, 0) == -1.0 && nnfx_tensor_get(raw, 5) == 1.0);
    /* value_info gives t0 a symbolic shape */
    const nnfx_meta *m = nnfx_node_meta_c(nnfx_graph_find(g, "t0"), 0);
    assert_int_equal(m->rank, 2);
    assert_string_equal(m->dims[0].symbol, "batch");
    nnfx_graph_free(g);
}

/* y = x @ w + b computed from the loaded parameters, against numpy's. */
static void test_external(void **state) {
    (void)state;
    nnfx_graph *g = load_ok(FIX "external.onnx");
    const nnfx_tensor *w = nnfx_graph_param(g, "w"), *b = nnfx_graph_param(g, "b");
    assert_non_null(w);
    assert_non_null(b);
    nnfx_error err = {0};
    nnfx_tensor *x = nnfx_tensor_pb_load(FIX "external_input_0.pb", &err);
    nnfx_tensor *y = nnfx_tensor_pb_load(FIX "external_output_0.pb", &err);
    assert_non_null(x);
    assert_non_null(y);
    const float *W = w->data, *B = b->data, *X = x->data, *Y = y->data;
    for (int j = 0; j < 64; j++) {
        double s = B[j];
        for (int i = 0; i < 64; i++)
            s += (double)X[i] * W[i * 64 + j];
        assert_true(s - Y[j] < 1e-3 && Y[j] - s < 1e-3);
    }
    nnfx_tensor_release(x);
    nnfx_tensor_release(y);
    nnfx_graph_free(g);
}

static void copy_file(const char *from, const char *to, long max_bytes) {
    size_t n;
    char *d = tu_read_file(from, &n);
    assert_non_null(d);
    if (max_bytes >= 0 && (size_t)max_bytes < n) n = (size_t)max_bytes;
    assert_int_equal(tu_write_file(to, d, n), 0);
    free(d);
}

static void test_external_missing_or_short(void **state) {
    (void)state;
    const char *dir = tu_tmpdir("onnx_ext");
    char model[600], data[600];
    snprintf(model, sizeof model, "%s/external.onnx", dir);
    snprintf(data, sizeof data, "%s/external.onnx.data", dir);
    copy_file(FIX "external.onnx", model, -1);
    remove(data);
    nnfx_error err = {0};
    assert_null(nnfx_onnx_load(model, &err));
    assert_int_equal(err.status, NNFX_ERR_IO);
    assert_non_null(strstr(err.msg, "external data file"));
    copy_file(FIX "external.onnx.data", data, 100);
    assert_null(nnfx_onnx_load(model, &err));
    assert_non_null(strstr(err.msg, "too short"));
    /* buffers cannot resolve external data */
    size_t n;
    void *buf = tu_read_file(FIX "external.onnx", &n);
    assert_null(nnfx_onnx_load_buffer(buf, n, &err));
    assert_int_equal(err.status, NNFX_ERR_UNSUPPORTED);
    free(buf);
}

static void round_trip(const char *name, const nnfx_onnx_save_options *opts) {
    char src[512], dst[700];
    snprintf(src, sizeof src, FIX "%s", name);
    snprintf(dst, sizeof dst, "%s/%s%s", tu_tmpdir("onnx_rt"), opts ? "ext_" : "", name);
    nnfx_graph *a = load_ok(src);
    nnfx_error err = {0};
    nnfx_status st = nnfx_onnx_save(a, dst, opts, &err);
    if (st) print_error("save %s: %s\n", dst, err.msg);
    assert_int_equal(st, NNFX_OK);
    nnfx_graph *b = load_ok(dst);
    assert_same_graph(a, b);
    char *ta = nnfx_graph_to_text(a), *tb = nnfx_graph_to_text(b);
    assert_non_null(ta);
    assert_non_null(tb);
    if (strcmp(ta, tb) != 0) { /* keep both for a diff */
        char p1[800], p2[800];
        snprintf(p1, sizeof p1, "%s.first.txt", dst);
        snprintf(p2, sizeof p2, "%s.second.txt", dst);
        tu_write_file(p1, ta, strlen(ta));
        tu_write_file(p2, tb, strlen(tb));
        print_error("text forms differ: diff %s %s\n", p1, p2);
    }
    assert_true(strcmp(ta, tb) == 0);
    free(ta);
    free(tb);
    /* a second trip is byte-identical */
    char dst2[720];
    snprintf(dst2, sizeof dst2, "%s.2.onnx", dst);
    assert_int_equal(nnfx_onnx_save(b, dst2, opts, &err), NNFX_OK);
    size_t n1, n2;
    char *d1 = tu_read_file(dst, &n1), *d2 = tu_read_file(dst2, &n2);
    assert_non_null(d1);
    assert_non_null(d2);
    if (!opts) {
        assert_int_equal(n1, n2);
        assert_memory_equal(d1, d2, n1);
    }
    free(d1);
    free(d2);
    nnfx_graph_free(a);
    nnfx_graph_free(b);
}

/* Large initializers whose raw_data is not aligned for their dtype stay in
 * the file at load time and are copied into aligned memory on first access
 * through the graph; values and inference are unchanged. Names of lengths
 * 1..4 shift the raw_data offsets so some of the tensors land unaligned. */
static void test_unaligned_deferred(void **state) {
    (void)state;
    enum { N = 2048, P = 4 };
    const char *names[P] = {"a", "bb", "ccc", "dddd"};
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_new();
    assert_non_null(g);
    nnfx_meta m;
    int64_t dims[1] = {N};
    nnfx_meta_set_shape(&m, NNFX_F32, 1, dims);
    nnfx_node *y = nnfx_graph_placeholder(g, "x", &m, &err);
    assert_non_null(y);
    for (int k = 0; k < P; k++) {
        nnfx_tensor *t = nnfx_tensor_new(NNFX_F32, 1, dims, &err);
        assert_non_null(t);
        for (int i = 0; i < N; i++)
            ((float *)t->data)[i] = (float)(k * N + i);
        assert_int_equal(nnfx_graph_set_param(g, names[k], t, &err), NNFX_OK);
        nnfx_tensor_release(t);
        nnfx_node *w = nnfx_graph_get_attr(g, names[k], &err);
        assert_non_null(w);
        nnfx_arg args[2] = {nnfx_arg_node(y), nnfx_arg_node(w)};
        y = nnfx_graph_call_op(g, NNFX_OP_ADD, 2, args, 0, NULL, &err);
        assert_non_null(y);
    }
    assert_non_null(nnfx_graph_output(g, 1, &y, &err));
    char path[600];
    snprintf(path, sizeof path, "%s/unaligned.onnx", tu_tmpdir("onnx_unaligned"));
    assert_int_equal(nnfx_onnx_save(g, path, NULL, &err), NNFX_OK);
    nnfx_graph_free(g);

    g = load_ok(path);
    int deferred = 0;
    for (int k = 0; k < P; k++) {
        const nnfx_tensor *t = ir_graph_param_raw(g, names[k]);
        assert_non_null(t);
        assert_int_equal(t->storage, NNFX_STORAGE_MAPPED); /* none copied at load */
        deferred += ((uintptr_t)t->data % 4) != 0;
    }
    assert_true(deferred > 0);
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    assert_non_null(gm);
    assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_OK);
    for (int k = 0; k < P; k++) {
        const nnfx_tensor *t = nnfx_graph_param(nnfx_gm_graph(gm), names[k]);
        assert_non_null(t);
        assert_int_equal((uintptr_t)t->data % 4, 0);
        for (int i = 0; i < N; i++)
            assert_true(((const float *)t->data)[i] == (float)(k * N + i));
    }
    nnfx_tensor *x = nnfx_tensor_new(NNFX_F32, 1, dims, &err), *out = NULL;
    int nout = 0;
    assert_int_equal(nnfx_gm_run(gm, 1, &x, 1, &out, &nout, &err), NNFX_OK);
    assert_int_equal(nout, 1);
    for (int i = 0; i < N; i++)
        assert_true(((const float *)out->data)[i] == (float)(P * i + N * (0 + 1 + 2 + 3)));
    nnfx_tensor_release(x);
    nnfx_tensor_release(out);
    nnfx_gm_free(gm);
}

static void test_round_trips(void **state) {
    (void)state;
    const char *names[] = {"mlp.onnx", "convnet.onnx", "legacy_opset9.onnx", "typed_data.onnx", "external.onnx"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        round_trip(names[i], NULL);
    nnfx_onnx_save_options o = {.external_data = true, .external_threshold = 256};
    round_trip("convnet.onnx", &o);
    round_trip("external.onnx", &o);
}

/* Loading must fail cleanly (status + message naming the file), never crash. */
static void expect_clean_failure_or_graph(const void *buf, size_t n) {
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_onnx_load_buffer(buf, n, &err);
    if (g) {
        nnfx_graph_free(g);
        return;
    }
    assert_int_not_equal(err.status, NNFX_OK);
    assert_true(strncmp(err.msg, "<buffer>", 8) == 0);
}

static void test_truncations(void **state) {
    (void)state;
    const char *names[] = {"mlp.onnx", "convnet.onnx", "legacy_opset9.onnx", "typed_data.onnx"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char path[512];
        snprintf(path, sizeof path, FIX "%s", names[k]);
        size_t n;
        uint8_t *d = tu_read_file(path, &n);
        assert_non_null(d);
        int failed = 0;
        for (size_t cut = 0; cut < n; cut += (n > 4000 ? 7 : 1)) {
            nnfx_error err = {0};
            /* a fresh copy of exactly `cut` bytes so ASan sees overreads */
            uint8_t *c = malloc(cut ? cut : 1);
            memcpy(c, d, cut);
            nnfx_graph *g = nnfx_onnx_load_buffer(c, cut, &err);
            if (!g) {
                failed++;
                assert_int_not_equal(err.status, NNFX_OK);
                assert_true(strncmp(err.msg, "<buffer>", 8) == 0);
            }
            nnfx_graph_free(g);
            free(c);
        }
        assert_true(failed > 0);
        free(d);
    }
}

static void test_corruptions(void **state) {
    (void)state;
    size_t n;
    uint8_t *d = tu_read_file(FIX "legacy_opset9.onnx", &n);
    assert_non_null(d);
    uint8_t *c = malloc(n);
    uint64_t s = 0x1234567;
    for (int iter = 0; iter < 3000; iter++) {
        memcpy(c, d, n);
        int flips = 1 + iter % 4;
        for (int k = 0; k < flips; k++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            c[(s >> 8) % n] = (uint8_t)(s >> 40);
        }
        expect_clean_failure_or_graph(c, n);
    }
    free(c);
    free(d);
}

static void test_hostile_inputs(void **state) {
    (void)state;
    nnfx_error err = {0};
    /* a PNG header */
    const uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    assert_null(nnfx_onnx_load_buffer(png, sizeof png, &err));
    assert_int_equal(err.status, NNFX_ERR_PARSE);
    assert_non_null(strstr(err.msg, "byte"));

    /* a corrupt varint (11 continuation bytes) as the first tag */
    uint8_t bad[16];
    memset(bad, 0xff, sizeof bad);
    assert_null(nnfx_onnx_load_buffer(bad, sizeof bad, &err));
    assert_non_null(strstr(err.msg, "varint"));
    assert_non_null(strstr(err.msg, "at byte 0"));

    /* empty input */
    assert_null(nnfx_onnx_load_buffer("", 0, &err));
    assert_non_null(strstr(err.msg, "not an ONNX model"));

    /* an initializer with absurd dims and no data */
    ow_buf b = {0};
    ow_put_int(&b, 1, 8);
    size_t gm = ow_begin_msg(&b, 7);
    size_t tm = ow_begin_msg(&b, 5);
    int64_t dims[3] = {INT64_C(1) << 40, INT64_C(1) << 40, 1000};
    ow_put_packed_int64(&b, 1, dims, 3);
    ow_put_int(&b, 2, 1);
    ow_put_string(&b, 8, "huge");
    ow_end_msg(&b, tm);
    ow_end_msg(&b, gm);
    assert_null(nnfx_onnx_load_buffer(b.p, b.len, &err));
    assert_int_equal(err.status, NNFX_ERR_PARSE);
    assert_non_null(strstr(err.msg, "huge"));
    ow_buf_free(&b);

    /* deeply nested messages in the graph's place */
    size_t marks[200];
    for (int i = 0; i < 200; i++)
        marks[i] = ow_begin_msg(&b, 7);
    for (int i = 199; i >= 0; i--)
        ow_end_msg(&b, marks[i]);
    expect_clean_failure_or_graph(b.p, b.len);
    ow_buf_free(&b);

    /* a length that runs past the end */
    const uint8_t past[] = {0x3a, 0xff, 0xff, 0x03, 0x0a};
    assert_null(nnfx_onnx_load_buffer(past, sizeof past, &err));
    assert_non_null(strstr(err.msg, "runs past the end"));

    /* an unknown op names the op, the opset and the node */
    gm = 0;
    ow_put_int(&b, 1, 8);
    gm = ow_begin_msg(&b, 7);
    size_t nm = ow_begin_msg(&b, 1);
    ow_put_string(&b, 1, "x");
    ow_put_string(&b, 2, "y");
    ow_put_string(&b, 3, "mystery");
    ow_put_string(&b, 4, "FooBar");
    ow_end_msg(&b, nm);
    size_t im = ow_begin_msg(&b, 11);
    ow_put_string(&b, 1, "x");
    size_t ty = ow_begin_msg(&b, 2);
    size_t tt = ow_begin_msg(&b, 1);
    ow_put_int(&b, 1, 1);
    ow_end_msg(&b, tt);
    ow_end_msg(&b, ty);
    ow_end_msg(&b, im);
    ow_end_msg(&b, gm);
    size_t om = ow_begin_msg(&b, 8);
    ow_put_int(&b, 2, 13);
    ow_end_msg(&b, om);
    assert_null(nnfx_onnx_load_buffer(b.p, b.len, &err));
    assert_int_equal(err.status, NNFX_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "unsupported op FooBar (opset 13)"));
    assert_non_null(strstr(err.msg, "mystery"));
    /* kept as an opaque leaf when the load options ask for it, for that
     * load only: the next default load refuses it again */
    nnfx_onnx_load_options keep = {.keep_unknown_ops = true};
    nnfx_graph *opaque = nnfx_onnx_load_buffer_opts(b.p, b.len, &keep, &err);
    assert_non_null(opaque);
    int leaves = 0;
    for (nnfx_node *n = nnfx_graph_first(opaque); n; n = nnfx_node_next(n))
        if (nnfx_node_opcode(n) == NNFX_CALL_MODULE) {
            assert_string_equal(nnfx_node_target(n), NNFX_ONNX_OPAQUE_PREFIX "FooBar");
            leaves++;
        }
    assert_int_equal(leaves, 1);
    nnfx_graph_free(opaque);
    assert_null(nnfx_onnx_load_buffer_opts(b.p, b.len, NULL, &err));
    assert_int_equal(err.status, NNFX_ERR_UNSUPPORTED);
    assert_null(nnfx_onnx_load_buffer(b.p, b.len, &err));
    assert_non_null(strstr(err.msg, "unsupported op FooBar (opset 13)"));
    ow_buf_free(&b);

    /* not a file */
    assert_null(nnfx_onnx_load(NNFX_TEST_DATA "/onnx/does-not-exist.onnx", &err));
    assert_int_equal(err.status, NNFX_ERR_IO);
}

static void test_tensor_pb(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_tensor *t = nnfx_tensor_pb_load(FIX "convnet_input_0.pb", &err);
    assert_non_null(t);
    assert_int_equal(t->rank, 4);
    assert_int_equal(t->shape[1], 3);
    nnfx_tensor_release(t);
    assert_null(nnfx_tensor_pb_load(FIX "mlp.onnx", &err)); /* a model is not a tensor */
    assert_int_not_equal(err.status, NNFX_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mlp),
        cmocka_unit_test(test_convnet),
        cmocka_unit_test(test_legacy_opset),
        cmocka_unit_test(test_typed_data),
        cmocka_unit_test(test_external),
        cmocka_unit_test(test_external_missing_or_short),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_corruptions),
        cmocka_unit_test(test_hostile_inputs),
        cmocka_unit_test(test_tensor_pb),
        cmocka_unit_test(test_numerics),
        cmocka_unit_test(test_unaligned_deferred),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
