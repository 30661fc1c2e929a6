/* test_hostile.c — regression tests for hostile input: each test is one
 * input that once crashed, overflowed, hung, over-allocated or lost data,
 * and checks it now gives a clean error or the right result (references:
 * NumPy's semantics, written out by hand). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/wait.h>

#include "core/core_int.h"
#include "testutil.h"

#define X_1388     "    %x : [num_users=1] = placeholder[target=x]  # float32[1, 3, 8, 8]\n"
#define X_1388_FMT "    %%x : [num_users=1] = placeholder[target=x]  # float32[1, 3, 8, 8]\n"

static nnfx_graph *parse_ok(const char *text) {
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_parse(text, &err);
    if (!g) fail_msg("parse: %s", err.msg);
    return g;
}

/* Runs g (consumed) on inputs; returns the status; *out gets output 0. */
static nnfx_status run_graph(nnfx_graph *g, int nin, nnfx_tensor *const *in, nnfx_tensor **out, nnfx_error *err) {
    nnfx_gm *gm = nnfx_gm_new(g, err);
    assert_non_null(gm);
    nnfx_tensor *outs[4] = {0};
    int nout = 0;
    nnfx_status st = nnfx_gm_run(gm, nin, in, 4, outs, &nout, err);
    for (int i = 1; i < nout; i++)
        nnfx_tensor_release(outs[i]);
    if (out)
        *out = st ? NULL : outs[0];
    else if (!st)
        nnfx_tensor_release(outs[0]);
    nnfx_gm_free(gm);
    return st;
}

static nnfx_tensor *x_1388(void) {
    int64_t s[4] = {1, 3, 8, 8};
    nnfx_tensor *x = nnfx_tensor_new(NNFX_F32, 4, s, NULL);
    assert_non_null(x);
    for (int i = 0; i < 192; i++)
        ((float *)x->data)[i] = (float)i;
    return x;
}

/* Conv whose weight has 0 output channels: once SIGFPE in the fast conv. */
static void test_conv_zero_out_channels(void **state) {
    (void)state;
    nnfx_graph *g = parse_ok("graph():\n    # param w : float32[0, 3, 3, 3]\n" X_1388
                             "    %w : [num_users=1] = get_attr[target=w]\n"
                             "    %y : [num_users=1] = call_function[target=conv](args = (%x, %w), kwargs = {})\n"
                             "    return y\n");
    nnfx_tensor *x = x_1388(), *y = NULL;
    nnfx_error err = {0};
    nnfx_status st = run_graph(g, 1, &x, &y, &err);
    if (!st) { /* an empty [1, 0, 6, 6] result is right too */
        assert_int_equal(nnfx_tensor_numel(y), 0);
        nnfx_tensor_release(y);
    }
    nnfx_tensor_release(x);
}

/* Conv group 2^63-1: signed overflow of weight dim 1 x group. */
static void test_conv_group_overflow(void **state) {
    (void)state;
    nnfx_graph *g = parse_ok("graph():\n    # param w : float32[4, 3, 3, 3]\n" X_1388
                             "    %w : [num_users=1] = get_attr[target=w]\n"
                             "    %y : [num_users=1] = call_function[target=conv](args = (%x, %w), kwargs = {group: "
                             "9223372036854775807})\n"
                             "    return y\n");
    nnfx_error err = {0};
    assert_int_not_equal(nnfx_graph_infer_shapes(g, &err), NNFX_OK);
    nnfx_graph_free(g);
}

/* Window attributes past 2^30 (Conv pads 2^40, INT64_MAX): a shape error. */
static void test_window_too_large(void **state) {
    (void)state;
    const char *pads[] = {"1099511627776", "9223372036854775807"};
    for (int i = 0; i < 2; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "graph():\n    # param w : float32[4, 3, 3, 3]\n" X_1388_FMT
                 "    %%w : [num_users=1] = get_attr[target=w]\n"
                 "    %%y : [num_users=1] = call_function[target=conv](args = (%%x, %%w), kwargs = {pads: [%s, %s, "
                 "%s, %s]})\n    return y\n",
                 pads[i], pads[i], pads[i], pads[i]);
        nnfx_graph *g = parse_ok(text);
        nnfx_error err = {0};
        nnfx_status st = nnfx_graph_infer_shapes(g, &err);
        tu_assert_error(&err, st, NNFX_ERR_SHAPE, "bad window", NULL);
        nnfx_graph_free(g);
    }
}

/* Sets the int64 values of parameter name (declared in the text). */
static void set_i64(nnfx_graph *g, const char *name, int n, const int64_t *v) {
    nnfx_tensor *t = nnfx_graph_param(g, name);
    assert_non_null(t);
    assert_int_equal(nnfx_tensor_numel(t), n);
    memcpy(t->data, v, sizeof *v * (size_t)n);
}

/* int64 Mod and fmod with INT64_MIN % -1: once SIGFPE. NumPy: 0. */
static void test_mod_int64_min(void **state) {
    (void)state;
    for (int fmod = 0; fmod < 2; fmod++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "graph():\n    # param a : int64[3]\n    # param b : int64[3]\n"
                 "    %%a : [num_users=1] = get_attr[target=a]\n    %%b : [num_users=1] = get_attr[target=b]\n"
                 "    %%y : [num_users=1] = call_function[target=mod](args = (%%a, %%b), kwargs = {fmod: %d})\n"
                 "    return y\n",
                 fmod);
        nnfx_graph *g = parse_ok(text);
        set_i64(g, "a", 3, (const int64_t[]){INT64_MIN, -7, 7});
        set_i64(g, "b", 3, (const int64_t[]){-1, -1, -2});
        nnfx_tensor *y = NULL;
        nnfx_error err = {0};
        assert_int_equal(run_graph(g, 0, NULL, &y, &err), NNFX_OK);
        const int64_t *v = y->data;
        assert_int_equal(v[0], 0);
        assert_int_equal(v[1], 0);
        assert_int_equal(v[2], fmod ? 1 : -1); /* C fmod keeps the dividend's sign, Mod the divisor's */
        nnfx_tensor_release(y);
    }
}

/* Reshape to [2^62, 4, -1]: overflow multiplying the known dims. */
static void test_reshape_overflow(void **state) {
    (void)state;
    nnfx_graph *g =
        parse_ok("graph():\n    # param s : int64[3]\n" X_1388 "    %s : [num_users=1] = get_attr[target=s]\n"
                 "    %y : [num_users=1] = call_function[target=reshape](args = (%x, %s), kwargs = {})\n"
                 "    return y\n");
    set_i64(g, "s", 3, (const int64_t[]){(int64_t)1 << 62, 4, -1});
    nnfx_error err = {0};
    nnfx_status st = nnfx_graph_infer_shapes(g, &err);
    tu_assert_error(&err, st, NNFX_ERR_SHAPE, "reshape", NULL);
    nnfx_graph_free(g);
}

/* A float shape input of 1e19 read as integers: once an out-of-range
 * double -> int64 conversion (found by fuzz_onnx_run). */
static void test_float_shape_values_saturate(void **state) {
    (void)state;
    nnfx_graph *g =
        parse_ok("graph():\n    # param s : float32[2]\n" X_1388 "    %s : [num_users=1] = get_attr[target=s]\n"
                 "    %y : [num_users=1] = call_function[target=reshape](args = (%x, %s), kwargs = {})\n"
                 "    return y\n");
    float *v = nnfx_graph_param(g, "s")->data;
    v[0] = 1e19f;
    v[1] = -1e19f;
    nnfx_error err = {0};
    assert_int_not_equal(nnfx_graph_infer_shapes(g, &err), NNFX_OK); /* a clean error, no UB */
    nnfx_graph_free(g);
    assert_true(core_double_to_i64(1e19) == INT64_MAX && core_double_to_i64(-1e19) == INT64_MIN);
    assert_true(core_double_to_i64(0.0 / 0.0) == 0 && core_double_to_i64(-3.7) == -3);
}

/* Range(INT64_MIN, INT64_MAX, 2^62): i * delta passes int64 in the kernel;
 * NumPy's arange gives [-2^62 * 2, -2^62, 0, 2^62]. */
static void test_range_int64_wrap(void **state) {
    (void)state;
    nnfx_graph *g =
        parse_ok("graph():\n    # param a : int64[]\n    # param b : int64[]\n    # param c : int64[]\n"
                 "    %a : [num_users=1] = get_attr[target=a]\n    %b : [num_users=1] = get_attr[target=b]\n"
                 "    %c : [num_users=1] = get_attr[target=c]\n"
                 "    %y : [num_users=1] = call_function[target=range](args = (%a, %b, %c), kwargs = {})\n"
                 "    return y\n");
    set_i64(g, "a", 1, (const int64_t[]){INT64_MIN});
    set_i64(g, "b", 1, (const int64_t[]){INT64_MAX});
    set_i64(g, "c", 1, (const int64_t[]){(int64_t)1 << 62});
    nnfx_tensor *y = NULL;
    nnfx_error err = {0};
    assert_int_equal(run_graph(g, 0, NULL, &y, &err), NNFX_OK);
    assert_int_equal(nnfx_tensor_numel(y), 4);
    const int64_t *v = y->data;
    assert_true(v[0] == INT64_MIN && v[1] == -((int64_t)1 << 62) && v[2] == 0 && v[3] == ((int64_t)1 << 62));
    nnfx_tensor_release(y);
}

/* Slice with steps INT64_MIN / INT64_MAX and extreme starts: NumPy's
 * x[..., 2**63-1:-2**63:-2**63] is the last column, x[..., ::2**63-1] the
 * first. */
static void test_slice_extreme_steps(void **state) {
    (void)state;
    for (int k = 0; k < 2; k++) {
        nnfx_graph *g = parse_ok("graph():\n    # param st : int64[1]\n    # param en : int64[1]\n"
                                 "    # param ax : int64[1]\n    # param sp : int64[1]\n" X_1388
                                 "    %st : [num_users=1] = get_attr[target=st]\n"
                                 "    %en : [num_users=1] = get_attr[target=en]\n"
                                 "    %ax : [num_users=1] = get_attr[target=ax]\n"
                                 "    %sp : [num_users=1] = get_attr[target=sp]\n"
                                 "    %y : [num_users=1] = call_function[target=slice](args = (%x, %st, %en, %ax, "
                                 "%sp), kwargs = {})\n"
                                 "    return y\n");
        set_i64(g, "st", 1, (const int64_t[]){k ? INT64_MIN : INT64_MAX});
        set_i64(g, "en", 1, (const int64_t[]){k ? INT64_MAX : INT64_MIN});
        set_i64(g, "ax", 1, (const int64_t[]){3});
        set_i64(g, "sp", 1, (const int64_t[]){k ? INT64_MAX : INT64_MIN});
        nnfx_tensor *x = x_1388(), *y = NULL;
        nnfx_error err = {0};
        assert_int_equal(run_graph(g, 1, &x, &y, &err), NNFX_OK);
        assert_int_equal(nnfx_tensor_numel(y), 24);
        for (int r = 0; r < 24; r++)
            assert_true(((const float *)y->data)[r] == (float)(r * 8 + (k ? 0 : 7)));
        nnfx_tensor_release(y);
        nnfx_tensor_release(x);
    }
}

/* An activation of 2^62 bytes: refused by the compiled planner (which once
 * leaked its work arrays doing so; found by fuzz_onnx_run). */
static void test_huge_activation_refused(void **state) {
    (void)state;
    nnfx_graph *g = parse_ok("graph():\n"
                             "    %x : [num_users=1] = placeholder[target=x]  # float32[1073741824, 1073741824]\n"
                             "    %y : [num_users=1] = call_function[target=relu](args = (%x,), kwargs = {})\n"
                             "    %z : [num_users=1] = call_function[target=sigmoid](args = (%y,), kwargs = {})\n"
                             "    return z\n");
    nnfx_error err = {0};
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    assert_non_null(gm);
    /* the compiled plan refuses it; the interpreter may take over (it
     * allocates only when run): either way no leak (ASan) */
    nnfx_status st = nnfx_gm_recompile(gm, &err);
    nnfx_gm_free(gm);
    assert_true(st == NNFX_OK || err.msg[0] != '\0');
}

/* `return 5`: a literal as the graph's output; once SIGSEGV in graph_copy. */
static void test_return_literal(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_parse("graph():\n    %x : [num_users=0] = placeholder[target=x]  # float32[4]\n"
                                     "    return 5\n",
                                     &err);
    assert_null(g);
    assert_int_equal(err.status, NNFX_ERR_GRAPH);
    /* through the API too */
    g = nnfx_graph_new();
    nnfx_node *x = nnfx_graph_placeholder(g, "x", NULL, &err);
    nnfx_node *out = nnfx_graph_output(g, 1, &x, &err);
    nnfx_arg lit = nnfx_arg_int(5);
    assert_int_equal(nnfx_node_set_args(out, 1, &lit, &err), NNFX_ERR_GRAPH);
    nnfx_graph *c = nnfx_graph_copy(g, NULL, &err);
    assert_non_null(c);
    nnfx_graph_free(c);
    nnfx_graph_free(g);
}

/* Checked size arithmetic: the one helper. */
static void test_shape_nbytes(void **state) {
    (void)state;
    size_t n = 0;
    nnfx_error err = {0};
    assert_int_equal(nnfx_shape_nbytes(NNFX_F32, 2, (const int64_t[]){3, 5}, &n, &err), NNFX_OK);
    assert_int_equal(n, 60);
    assert_int_equal(nnfx_shape_nbytes(NNFX_F32, 2, (const int64_t[]){(int64_t)1 << 31, (int64_t)1 << 31}, &n, &err),
                     NNFX_ERR_SHAPE);
    assert_int_equal(nnfx_shape_nbytes(NNFX_I64, 1, (const int64_t[]){-3}, &n, &err), NNFX_ERR_SHAPE);
    assert_int_equal(nnfx_shape_nbytes(NNFX_I64, 3, (const int64_t[]){INT64_MAX, INT64_MAX, 0}, &n, &err),
                     NNFX_OK); /* a zero dim makes the product 0 */
    assert_int_equal(n, 0);
    assert_int_equal(nnfx_shape_nbytes((nnfx_dtype)99, 1, (const int64_t[]){1}, &n, &err), NNFX_ERR_UNSUPPORTED);
}

/* A 120-byte text file asking for 16 GiB: refused by the budget before
 * anything is allocated. */
static void test_budget_text_param(void **state) {
    (void)state;
    nnfx_set_memory_limit((size_t)1 << 30);
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_parse("graph():\n    # param w : float32[4294967296]\n"
                                     "    %x : [num_users=1] = placeholder[target=x]  # float32[4]\n    return x\n",
                                     &err);
    assert_null(g);
    assert_int_not_equal(err.status, NNFX_OK);
    assert_non_null(strstr(err.msg, "16.0 GiB"));
    assert_non_null(strstr(err.msg, "memory budget"));
    /* the budget counts what is alive: two 600 MiB tensors do not fit */
    int64_t s[1] = {150 << 20};
    nnfx_tensor *a = nnfx_tensor_new(NNFX_F32, 1, s, &err);
    assert_non_null(a);
    assert_true(nnfx_memory_in_use() >= (size_t)600 << 20);
    assert_null(nnfx_tensor_new(NNFX_F32, 1, s, &err));
    assert_int_equal(err.status, NNFX_ERR_NOMEM);
    nnfx_tensor_release(a);
    nnfx_tensor *b = nnfx_tensor_new(NNFX_F32, 1, s, &err);
    assert_non_null(b);
    nnfx_tensor_release(b);
    nnfx_set_memory_limit(0);
}

/* Peak resident memory of this process, bytes. */
static size_t peak_rss(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (size_t)ru.ru_maxrss * 1024;
}

/* A 1 GiB parameter declared in a text IR (zeros: its values are not in
 * the text) costs no memory until something reads or writes it: parsing
 * and inferring shapes, what inspect and analyze do, stay far below it. */
static void test_declared_param_costs_no_memory(void **state) {
    (void)state;
    size_t before = peak_rss();
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_parse("graph():\n    # param w : float32[268435456]\n"
                                     "    %x : [num_users=1] = placeholder[target=x]  # float32[268435456]\n"
                                     "    %w : [num_users=1] = get_attr[target=w]\n"
                                     "    %add : [num_users=1] = call_function[target=add](args = (%x, %w), kwargs = "
                                     "{})\n    return add\n",
                                     &err);
    assert_non_null(g);
    assert_int_equal(nnfx_graph_infer_shapes(g, &err), NNFX_OK);
    const nnfx_tensor *w = nnfx_graph_param(g, "w");
    assert_non_null(w);
    assert_int_equal(w->nbytes, (size_t)1 << 30);
    assert_true(peak_rss() - before < ((size_t)64 << 20));
    /* still zeros where read, and writable */
    assert_true(((const float *)w->data)[12345678] == 0.0f);
    nnfx_graph_free(g);
}

/* Readers on a FIFO: refused at once instead of waiting for a writer. */
static void test_fifo_not_opened(void **state) {
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/fifo.npy", tu_tmpdir("hostile_fifo"));
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(20); /* a hang fails the test */
    nnfx_error err = {0};
    assert_null(nnfx_npy_load(path, &err));
    assert_int_equal(err.status, NNFX_ERR_IO);
    assert_null(nnfx_tensor_pb_load(path, &err));
    assert_null(nnfx_onnx_load(path, &err));
    alarm(0);
    unlink(path);
}

/* --- data safety of writes ---------------------------------------------------- */

/* A graph y = x * w with a parameter of n floats (value i at i). */
static nnfx_graph *mul_graph(int64_t n) {
    char text[512];
    snprintf(text, sizeof text,
             "graph():\n    # param w : float32[%lld]\n"
             "    %%x : [num_users=1] = placeholder[target=x]  # float32[%lld]\n"
             "    %%w : [num_users=1] = get_attr[target=w]\n"
             "    %%y : [num_users=1] = call_function[target=mul](args = (%%x, %%w), kwargs = {})\n"
             "    return y\n",
             (long long)n, (long long)n);
    nnfx_graph *g = parse_ok(text);
    nnfx_tensor *w = nnfx_graph_param(g, "w");
    for (int64_t i = 0; i < n; i++)
        ((float *)w->data)[i] = (float)i;
    return g;
}

/* Number of entries in dir other than "." and "..". */
static int count_entries(const char *dir) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static void rm_dir_files(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    char p[1024];
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    closedir(d);
}

/* A symbolic link planted at the old fixed temporary name "<out>.tmp" must
 * not redirect the write onto the file it points at. */
static void test_save_ignores_planted_tmp_link(void **state) {
    (void)state;
    const char *dir = tu_tmpdir("hostile_link");
    rm_dir_files(dir);
    char victim[512], out[512], link[600], data_link[600];
    snprintf(victim, sizeof victim, "%s/victim.bin", dir);
    snprintf(out, sizeof out, "%s/out.onnx", dir);
    snprintf(link, sizeof link, "%s.tmp", out);
    snprintf(data_link, sizeof data_link, "%s.data.tmp", out);
    assert_int_equal(tu_write_file(victim, "precious", 8), 0);
    assert_int_equal(symlink(victim, link), 0);
    assert_int_equal(symlink(victim, data_link), 0);
    nnfx_graph *g = mul_graph(1024);
    nnfx_error err = {0};
    nnfx_onnx_save_options o = {.external_data = true};
    assert_int_equal(nnfx_onnx_save(g, out, &o, &err), NNFX_OK);
    assert_int_equal(nnfx_npy_save(link, nnfx_graph_param(g, "w"), &err), NNFX_OK); /* replaces the link itself */
    size_t n = 0;
    char *v = tu_read_file(victim, &n);
    assert_true(v && n == 8 && memcmp(v, "precious", 8) == 0);
    free(v);
    nnfx_graph *back = nnfx_onnx_load(out, &err);
    assert_non_null(back);
    assert_true(((const float *)nnfx_graph_param(back, "w")->data)[5] == 5.0f);
    nnfx_graph_free(back);
    nnfx_graph_free(g);
}

/* A write that fails half-way (file size limit, EFBIG) leaves the previous
 * model and side file as they were, paired, and no temporary behind. */
static void test_failed_save_keeps_old_pair(void **state) {
    (void)state;
    const char *dir = tu_tmpdir("hostile_efbig");
    rm_dir_files(dir);
    char out[512];
    snprintf(out, sizeof out, "%s/m.onnx", dir);
    nnfx_graph *g1 = mul_graph(1024);
    nnfx_error err = {0};
    nnfx_onnx_save_options o = {.external_data = true};
    assert_int_equal(nnfx_onnx_save(g1, out, &o, &err), NNFX_OK);
    assert_int_equal(count_entries(dir), 2);
    /* the new model's side file (256 KiB) passes the limit; the model is small */
    nnfx_graph *g2 = mul_graph(65536);
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 64 << 10;
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    nnfx_status st = nnfx_onnx_save(g2, out, &o, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    assert_int_equal(st, NNFX_ERR_IO);
    assert_int_equal(count_entries(dir), 2); /* no temporary left */
    nnfx_graph *back = nnfx_onnx_load(out, &err);
    assert_non_null(back);
    const nnfx_tensor *w = nnfx_graph_param(back, "w");
    assert_int_equal(nnfx_tensor_numel(w), 1024);
    assert_true(((const float *)w->data)[1023] == 1023.0f);
    nnfx_graph_free(back);
    nnfx_graph_free(g1);
    nnfx_graph_free(g2);
}

/* Saving with a side file that is the one the weights are read from is
 * refused: it would replace the input's weights. */
static void test_save_refuses_input_data_file(void **state) {
    (void)state;
    const char *dir = tu_tmpdir("hostile_same_data");
    rm_dir_files(dir);
    char src[512], dst[512], data[600];
    snprintf(src, sizeof src, "%s/src.onnx", dir);
    snprintf(dst, sizeof dst, "%s/dst.onnx", dir);
    snprintf(data, sizeof data, "%s.data", src);
    nnfx_graph *g = mul_graph(1024);
    nnfx_error err = {0};
    nnfx_onnx_save_options o = {.external_data = true};
    assert_int_equal(nnfx_onnx_save(g, src, &o, &err), NNFX_OK);
    nnfx_graph_free(g);
    g = nnfx_onnx_load(src, &err);
    assert_non_null(g);
    nnfx_onnx_save_options o2 = {.external_data = true, .external_name = "src.onnx.data"};
    nnfx_status st = nnfx_onnx_save(g, dst, &o2, &err);
    tu_assert_error(&err, st, NNFX_ERR_INVALID_ARG, "src.onnx.data", NULL);
    assert_int_equal(count_entries(dir), 2);
    nnfx_graph_free(g);
}

static void on_term(int sig) {
    nnfx_remove_temporaries();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A process killed by SIGTERM in the middle of a write leaves no temporary
 * behind (the handler the CLI installs calls nnfx_remove_temporaries). */
static void test_signal_removes_temporaries(void **state) {
    (void)state;
    const char *dir = tu_tmpdir("hostile_signal");
    rm_dir_files(dir);
    char out[512];
    snprintf(out, sizeof out, "%s/big.onnx", dir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGTERM, on_term);
        core_file f, d;
        if (core_file_begin(&f, out, NULL) || core_file_begin(&d, "side.data", NULL)) _exit(2);
        core_file_write(&f, "partial", 7, NULL);
        raise(SIGTERM); /* killed half-way */
        _exit(3);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    assert_int_equal(count_entries(dir), 0);
    assert_int_equal(access("side.data", F_OK), -1);
}

/* Rewrites whose result is type-invalid are refused naming rule and node. */
static void test_rewrite_type_invalid(void **state) {
    (void)state;
    const char *text = "graph():\n    # param w : float32[4, 3, 3, 3]\n" X_1388
                       "    %r : [num_users=1] = call_function[target=relu](args = (%x,), kwargs = {})\n"
                       "    %w : [num_users=1] = get_attr[target=w]\n"
                       "    %y : [num_users=1] = call_function[target=conv](args = (%r, %w), kwargs = {})\n"
                       "    return y\n";
    const char *rules[] = {"relu(x) -> cast(x, to=7)", "relu(x) -> getitem(x, 0)"};
    const char *want[] = {"conv input 0", "getitem"};
    for (int i = 0; i < 2; i++) {
        nnfx_graph *g = parse_ok(text);
        nnfx_error err = {0};
        assert_int_equal(nnfx_rewrite_text(g, rules[i], &err), -1);
        if (!strstr(err.msg, rules[i]) || !strstr(err.msg, want[i])) fail_msg("%s: %s", rules[i], err.msg);
        nnfx_graph_free(g);
    }
    /* a valid rewrite still passes */
    nnfx_graph *g = parse_ok(text);
    nnfx_error err = {0};
    assert_int_equal(nnfx_rewrite_text(g, "relu(x) -> leaky_relu(x, alpha=0.1)", &err), 1);
    nnfx_graph_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_zero_out_channels),
        cmocka_unit_test(test_conv_group_overflow),
        cmocka_unit_test(test_window_too_large),
        cmocka_unit_test(test_mod_int64_min),
        cmocka_unit_test(test_reshape_overflow),
        cmocka_unit_test(test_range_int64_wrap),
        cmocka_unit_test(test_float_shape_values_saturate),
        cmocka_unit_test(test_slice_extreme_steps),
        cmocka_unit_test(test_huge_activation_refused),
        cmocka_unit_test(test_return_literal),
        cmocka_unit_test(test_shape_nbytes),
        cmocka_unit_test(test_budget_text_param),
        cmocka_unit_test(test_declared_param_costs_no_memory),
        cmocka_unit_test(test_fifo_not_opened),
        cmocka_unit_test(test_save_ignores_planted_tmp_link),
        cmocka_unit_test(test_failed_save_keeps_old_pair),
        cmocka_unit_test(test_save_refuses_input_data_file),
        cmocka_unit_test(test_rewrite_type_invalid),
        cmocka_unit_test(test_signal_removes_temporaries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
