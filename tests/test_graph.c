/* test_graph.c — torch.fx's graph-editing semantics, case by case. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir/ir_int.h"
#include "nnfx.h"

/* x -> relu -> add(relu, x) -> output */
typedef struct small {
    nnfx_graph *g;
    nnfx_node *x, *relu, *add, *out;
} small;

static small make_small(void) {
    small s = {0};
    nnfx_error err = {0};
    s.g = nnfx_graph_new();
    nnfx_meta m;
    int64_t dims[2] = {2, 3};
    nnfx_meta_set_shape(&m, NNFX_F32, 2, dims);
    s.x = nnfx_graph_placeholder(s.g, "x", &m, &err);
    nnfx_arg a = nnfx_arg_node(s.x);
    s.relu = nnfx_graph_call_op(s.g, NNFX_OP_RELU, 1, &a, 0, NULL, &err);
    nnfx_arg b[2] = {nnfx_arg_node(s.relu), nnfx_arg_node(s.x)};
    s.add = nnfx_graph_call_op(s.g, NNFX_OP_ADD, 2, b, 0, NULL, &err);
    s.out = nnfx_graph_output(s.g, 1, &s.add, &err);
    assert_non_null(s.out);
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_OK);
    return s;
}

/* A freed graph's large blocks stay cached for the next graph until
 * nnfx_release_cached_memory gives them back (sanitized builds cache
 * nothing); a later graph still builds. */
static void test_release_cached_memory(void **state) {
    (void)state;
    nnfx_release_cached_memory(); /* whatever earlier tests left */
    nnfx_error err = {0};
    for (int round = 0; round < 2; round++) {
        nnfx_graph *g = nnfx_graph_new();
        nnfx_meta m;
        int64_t dims[2] = {2, 3};
        nnfx_meta_set_shape(&m, NNFX_F32, 2, dims);
        nnfx_node *x = nnfx_graph_placeholder(g, "x", &m, &err);
        for (int i = 0; i < 20000; i++) { /* well past one 64 KB chunk */
            nnfx_arg a = nnfx_arg_node(x);
            x = nnfx_graph_call_op(g, NNFX_OP_RELU, 1, &a, 0, NULL, &err);
            assert_non_null(x);
        }
        assert_non_null(nnfx_graph_output(g, 1, &x, &err));
        assert_int_equal(nnfx_graph_num_nodes(g), 20002);
        nnfx_graph_free(g);
        size_t released = nnfx_release_cached_memory();
#if defined(__SANITIZE_ADDRESS__)
        assert_int_equal(released, 0);
#else
        assert_true(released >= 64 * 1024);
#endif
        assert_int_equal(nnfx_release_cached_memory(), 0); /* nothing left */
    }
}

/* nnfx_graph_nodes lists the nodes in one call (forward, backward, from a
 * node) with serials that no later node repeats, even one created in the
 * memory of an erased node: a binding's kept handle can tell them apart. */
/* Parameter lookups by name through the index: thousands of parameters
 * (indexed in bulk at the first lookup), names absent or differing in one
 * character, a replaced tensor, parameters added after the index was
 * built, and lookups after unused ones are dropped (which re-indexes). */
static void test_param_lookup_many(void **state) {
    (void)state;
    enum { N = 3000 };
    nnfx_graph *g = nnfx_graph_new();
    nnfx_tensor *t[N + 10];
    char nm[64];
    for (int i = 0; i < N + 10; i++) {
        t[i] = nnfx_tensor_scalar_f32((float)i, NULL);
        assert_non_null(t[i]);
    }
    for (int i = 0; i < N; i++) {
        snprintf(nm, sizeof nm, "layers.%d.conv.weight", i);
        assert_int_equal(nnfx_graph_set_param(g, nm, t[i], NULL), NNFX_OK);
    }
    for (int i = 0; i < N; i++) {
        snprintf(nm, sizeof nm, "layers.%d.conv.weight", i);
        assert_ptr_equal(nnfx_graph_param(g, nm), t[i]);
        snprintf(nm, sizeof nm, "layers.%d.conv.weighT", i);
        assert_null(nnfx_graph_param(g, nm));
    }
    assert_int_equal(nnfx_graph_set_param(g, "layers.6.conv.weight", t[N], NULL), NNFX_OK); /* replaced */
    assert_int_equal(nnfx_graph_num_params(g), N);
    assert_ptr_equal(nnfx_graph_param(g, "layers.6.conv.weight"), t[N]);
    for (int i = 1; i < 10; i++) { /* added after the index was built */
        snprintf(nm, sizeof nm, "extra.%d", i);
        assert_int_equal(nnfx_graph_set_param(g, nm, t[N + i], NULL), NNFX_OK);
        assert_ptr_equal(nnfx_graph_param(g, nm), t[N + i]);
    }
    /* keep every third parameter used by a get_attr node; drop the rest */
    for (int i = 0; i < N; i += 3) {
        snprintf(nm, sizeof nm, "layers.%d.conv.weight", i);
        assert_non_null(nnfx_graph_get_attr(g, nm, NULL));
    }
    assert_int_equal(nnfx_graph_drop_unused_params(g), N + 9 - (N + 2) / 3);
    for (int i = 0; i < N; i++) {
        snprintf(nm, sizeof nm, "layers.%d.conv.weight", i);
        if (i % 3)
            assert_null(nnfx_graph_param(g, nm));
        else
            assert_ptr_equal(nnfx_graph_param(g, nm), i == 6 ? t[N] : t[i]);
    }
    assert_null(nnfx_graph_param(g, "extra.1"));
    for (int i = 0; i < nnfx_graph_num_params(g); i++) /* every kept name finds its own index */
        assert_ptr_equal(nnfx_graph_param(g, nnfx_graph_param_name(g, i)), nnfx_graph_param_at(g, i));
    nnfx_graph_free(g);
    for (int i = 0; i < N + 10; i++)
        nnfx_tensor_release(t[i]);
}

/* A graph large enough that recompile, shape inference and dropping
 * parameters walk a recorded array of its nodes (ir_graph_order): after a
 * node is added mid-list and another erased, every walk sees the list as
 * it is now (the new node's shape reaches the output, the counts agree). */
static void test_large_graph_walk_order(void **state) {
    (void)state;
    enum { N = 40000 };
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_new();
    int64_t d[2] = {1, 16}, c = 16;
    nnfx_meta m = {0};
    nnfx_meta_set_shape(&m, NNFX_F32, 2, d);
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &m, &err);
    nnfx_tensor *w = nnfx_tensor_new(NNFX_F32, 1, &c, &err), *unused = nnfx_tensor_new(NNFX_F32, 1, &c, &err);
    assert_int_equal(nnfx_graph_set_param(g, "used.w", w, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_set_param(g, "unused.w", unused, &err), NNFX_OK);
    nnfx_arg add_args[2] = {nnfx_arg_node(x), nnfx_arg_node(nnfx_graph_get_attr(g, "used.w", &err))};
    x = nnfx_graph_call_op(g, NNFX_OP_ADD, 2, add_args, 0, NULL, &err);
    nnfx_node *mid = NULL;
    for (int i = 0; x && i < N; i++) {
        nnfx_arg a = nnfx_arg_node(x);
        x = nnfx_graph_call_op(g, NNFX_OP_RELU, 1, &a, 0, NULL, &err);
        if (i == N / 2) mid = x;
    }
    assert_non_null(x);
    assert_non_null(nnfx_graph_output(g, 1, &x, &err));
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    assert_non_null(gm);
    assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_OK); /* records the order */
    assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_OK); /* walks the recorded order */
    /* mid becomes a transpose of its input: [1, 16] -> [16, 1] downstream */
    int64_t perm[2] = {1, 0};
    nnfx_attr pa = nnfx_attr_ints("perm", 2, perm);
    nnfx_arg ma = nnfx_node_arg(mid, 0);
    nnfx_inserting_after(g, mid);
    nnfx_node *t = nnfx_graph_call_op(g, NNFX_OP_TRANSPOSE, 1, &ma, 1, &pa, &err);
    nnfx_inserting_at_end(g);
    assert_non_null(t);
    nnfx_replace_all_uses_with(mid, t, NULL, NULL);
    assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_OK); /* a node added: mid unused, not erased yet */
    assert_int_equal(nnfx_node_meta_c(x, 0)->dims[0].value, 16);
    assert_int_equal(nnfx_erase_node(g, mid, &err), NNFX_OK);
    assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_OK); /* a node erased */
    const nnfx_meta *om = nnfx_node_meta_c(x, 0);
    assert_int_equal(om->rank, 2);
    assert_int_equal(om->dims[0].value, 16);
    assert_int_equal(om->dims[1].value, 1);
    assert_int_equal(nnfx_graph_infer_shapes(g, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_drop_unused_params(g), 1);
    assert_null(nnfx_graph_param(g, "unused.w"));
    assert_ptr_equal(nnfx_graph_param(g, "used.w"), w);
    assert_int_equal(nnfx_graph_num_nodes(g), N + 4); /* x, used.w, add, N relus/transpose, output */
    assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_OK);
    nnfx_gm_free(gm);
    nnfx_tensor_release(w);
    nnfx_tensor_release(unused);
}

static void test_node_snapshot_and_serials(void **state) {
    (void)state;
    small s = make_small();
    nnfx_error err = {0};
    assert_int_equal(nnfx_graph_nodes(s.g, NULL, false, NULL, 0), 4);
    nnfx_node_info info[8];
    assert_int_equal(nnfx_graph_nodes(s.g, NULL, false, info, 8), 4);
    assert_ptr_equal(info[0].node, s.x);
    assert_ptr_equal(info[1].node, s.relu);
    assert_int_equal(info[1].opcode, NNFX_CALL_FUNCTION);
    assert_int_equal(info[1].op, NNFX_OP_RELU);
    assert_int_equal(info[0].op, NNFX_OP_NONE);
    assert_int_equal(info[3].opcode, NNFX_OUTPUT);
    assert_true(info[0].serial > 0 && info[1].serial > info[0].serial && info[2].serial > info[1].serial);
    assert_true(info[1].serial == nnfx_node_serial(s.relu));
    assert_int_equal(nnfx_graph_nodes(s.g, NULL, true, info, 2), 2); /* backward, capped */
    assert_ptr_equal(info[0].node, s.out);
    assert_ptr_equal(info[1].node, s.add);
    assert_int_equal(nnfx_graph_nodes(s.g, s.relu, false, info, 8), 3); /* from relu on */
    assert_ptr_equal(info[0].node, s.relu);
    uint64_t old = nnfx_node_serial(s.relu);
    assert_int_equal(nnfx_replace_all_uses_with(s.relu, s.x, NULL, NULL), 1);
    assert_int_equal(nnfx_erase_node(s.g, s.relu, &err), NNFX_OK);
    nnfx_arg a = nnfx_arg_node(s.x);
    nnfx_node *n = nnfx_graph_call_op(s.g, NNFX_OP_RELU, 1, &a, 0, NULL, &err);
    assert_non_null(n);
    assert_true(nnfx_node_serial(n) > old); /* a new node, wherever it lives */
    assert_int_equal(nnfx_node_serial(NULL), 0);
    assert_int_equal(nnfx_graph_nodes(NULL, NULL, false, info, 8), 0);
    nnfx_graph_free(s.g);
}

/* nnfx_graph_all_args: every node's count then (kind, value) pairs, in
 * list order; the total when out is NULL or too small (a pair that does
 * not fit whole is not written); int and float values as their bits. */
static void test_graph_all_args(void **state) {
    (void)state;
    small s = make_small();
    nnfx_error err = {0};
    uint64_t w[16] = {0};
    assert_int_equal(nnfx_graph_all_args(s.g, NULL, 0), 12);
    assert_int_equal(nnfx_graph_all_args(NULL, w, 16), 0);
    assert_int_equal(nnfx_graph_all_args(s.g, w, 16), 12);
    uint64_t want[12] = {0,
                         1,
                         NNFX_ARG_NODE,
                         (uintptr_t)s.x,
                         2,
                         NNFX_ARG_NODE,
                         (uintptr_t)s.relu,
                         NNFX_ARG_NODE,
                         (uintptr_t)s.x,
                         1,
                         NNFX_ARG_NODE,
                         (uintptr_t)s.add};
    for (int i = 0; i < 12; i++)
        assert_true(w[i] == want[i]);
    memset(w, 0xff, sizeof w);
    assert_int_equal(nnfx_graph_all_args(s.g, w, 4), 12); /* capped: x's count and relu's arg */
    assert_true(w[3] == (uintptr_t)s.x);
    assert_true(w[4] == UINT64_MAX); /* not written past cap */
    memset(w, 0xff, sizeof w);
    assert_int_equal(nnfx_graph_all_args(s.g, w, 3), 12); /* relu's pair does not fit whole */
    assert_true(w[1] == 1);
    assert_true(w[2] == UINT64_MAX);
    /* literal args: add made to take (relu, -3), then (relu, 0.5) */
    nnfx_arg lit[2] = {nnfx_arg_node(s.relu), nnfx_arg_int(-3)};
    assert_int_equal(nnfx_node_set_args(s.add, 2, lit, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_all_args(s.g, w, 16), 12);
    assert_true(w[7] == NNFX_ARG_INT);
    assert_true(w[8] == (uint64_t)(int64_t)-3);
    lit[1] = nnfx_arg_float(0.5);
    assert_int_equal(nnfx_node_set_args(s.add, 2, lit, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_all_args(s.g, w, 16), 12);
    double f = 0.5;
    uint64_t bits;
    memcpy(&bits, &f, sizeof bits);
    assert_true(w[7] == NNFX_ARG_FLOAT);
    assert_true(w[8] == bits);
    nnfx_graph_free(s.g);
}

/* nnfx_node_args / nnfx_node_users give what the per-index accessors give,
 * in one call (capped); nnfx_replace_all_uses_with_list lists what it
 * rewired; nnfx_eliminate_dead_code_list names what it removed. */
static void test_packed_args_users_and_dce_list(void **state) {
    (void)state;
    small s = make_small();
    nnfx_error err = {0};
    nnfx_arg args[4];
    assert_int_equal(nnfx_node_args(s.add, args, 4), 2);
    assert_int_equal(args[0].kind, NNFX_ARG_NODE);
    assert_ptr_equal(args[0].u.node, s.relu);
    assert_ptr_equal(args[1].u.node, s.x);
    assert_int_equal(nnfx_node_args(s.add, args, 1), 2); /* capped: the count still */
    assert_int_equal(nnfx_node_args(NULL, args, 4), 0);
    nnfx_node *users[4] = {NULL};
    assert_int_equal(nnfx_node_users(s.x, users, 4), 2);
    assert_ptr_equal(users[0], s.relu);
    assert_ptr_equal(users[1], s.add);
    users[1] = NULL;
    assert_int_equal(nnfx_node_users(s.x, users, 1), 2);
    assert_null(users[1]); /* not written past cap */
    assert_int_equal(nnfx_node_users(NULL, users, 4), 0);
    /* x's users are relu and add; with room for one, nothing changes */
    nnfx_node *rewired[4] = {NULL};
    assert_int_equal(nnfx_replace_all_uses_with_list(s.x, s.relu, rewired, 0), -2);
    assert_int_equal(nnfx_node_num_users(s.x), 2);
    assert_int_equal(nnfx_replace_all_uses_with_list(s.x, NULL, rewired, 4), -1);
    /* x -> relu: add rewired, relu itself (a user of x) is not */
    assert_int_equal(nnfx_replace_all_uses_with_list(s.x, s.relu, rewired, 4), 1);
    assert_ptr_equal(rewired[0], s.add);
    assert_int_equal(nnfx_node_num_users(s.x), 1);
    assert_ptr_equal(nnfx_node_arg_node(s.add, 1), s.relu);
    /* and back, so that the graph is as make_small built it (add(relu, x)) */
    assert_int_equal(nnfx_replace_input_with(s.add, s.relu, s.x, &err), NNFX_OK);
    assert_int_equal(nnfx_node_args(s.add, args, 4), 2);
    assert_ptr_equal(args[0].u.node, s.x); /* replace_input_with rewires every use */
    nnfx_arg back[2] = {nnfx_arg_node(s.relu), nnfx_arg_node(s.x)};
    assert_int_equal(nnfx_node_set_args(s.add, 2, back, &err), NNFX_OK);
    /* two dead nodes: neg(relu) and abs(neg) */
    nnfx_arg a = nnfx_arg_node(s.relu);
    nnfx_node *neg = nnfx_graph_call_op(s.g, NNFX_OP_NEG, 1, &a, 0, NULL, &err);
    a = nnfx_arg_node(neg);
    nnfx_node *abs_ = nnfx_graph_call_op(s.g, NNFX_OP_ABS, 1, &a, 0, NULL, &err);
    assert_non_null(abs_);
    nnfx_node *gone[4] = {NULL};
    assert_int_equal(nnfx_eliminate_dead_code_list(s.g, gone, 4), 2);
    assert_ptr_equal(gone[0], abs_); /* removal order: from the end */
    assert_ptr_equal(gone[1], neg);
    assert_int_equal(nnfx_graph_num_nodes(s.g), 4);
    assert_int_equal(nnfx_eliminate_dead_code_list(s.g, gone, 4), 0);
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_OK);
    nnfx_graph_free(s.g);
}

/* make_small with dead nodes in three runs: a get_attr before x (the list's
 * start), neg(relu) and abs(neg) after relu, neg(add) before the output. */
static small make_small_with_dead(nnfx_node **dead) {
    small s = make_small();
    nnfx_error err = {0};
    int64_t one = 1;
    nnfx_tensor *t = nnfx_tensor_new(NNFX_F32, 1, &one, &err);
    assert_int_equal(nnfx_graph_set_param(s.g, "w", t, &err), NNFX_OK);
    nnfx_tensor_release(t);
    nnfx_inserting_before(s.g, s.x);
    dead[0] = nnfx_graph_get_attr(s.g, "w", &err);
    nnfx_inserting_after(s.g, s.relu);
    nnfx_arg a = nnfx_arg_node(s.relu);
    dead[1] = nnfx_graph_call_op(s.g, NNFX_OP_NEG, 1, &a, 0, NULL, &err);
    a = nnfx_arg_node(dead[1]);
    dead[2] = nnfx_graph_call_op(s.g, NNFX_OP_ABS, 1, &a, 0, NULL, &err);
    nnfx_inserting_after(s.g, s.add);
    a = nnfx_arg_node(s.add);
    dead[3] = nnfx_graph_call_op(s.g, NNFX_OP_NEG, 1, &a, 0, NULL, &err);
    assert_non_null(dead[3]);
    assert_ptr_equal(nnfx_graph_first(s.g), dead[0]);
    return s;
}

/* nnfx_eliminate_dead_code_runs: the removed nodes from the bottom, the live
 * nodes around each run of them from the top; too small a buffer still
 * removes them and counts. */
static void test_dce_runs(void **state) {
    (void)state;
    nnfx_node *dead[4];
    small s = make_small_with_dead(dead);
    nnfx_node *out[12];
    int nruns = -1;
    assert_int_equal(nnfx_eliminate_dead_code_runs(s.g, out, 12, &nruns), 4);
    assert_int_equal(nruns, 3);
    assert_ptr_equal(out[0], dead[3]); /* removal order: from the end */
    assert_ptr_equal(out[1], dead[2]);
    assert_ptr_equal(out[2], dead[1]);
    assert_ptr_equal(out[3], dead[0]);
    assert_ptr_equal(out[10], s.add); /* run 0: neg(add), between add and the output */
    assert_ptr_equal(out[11], s.out);
    assert_ptr_equal(out[8], s.relu); /* run 1: neg, abs */
    assert_ptr_equal(out[9], s.add);
    assert_null(out[6]); /* run 2: the get_attr, at the list's start */
    assert_ptr_equal(out[7], s.x);
    assert_int_equal(nnfx_graph_num_nodes(s.g), 4);
    assert_int_equal(nnfx_eliminate_dead_code_runs(s.g, out, 12, &nruns), 0);
    assert_int_equal(nruns, 0);
    nnfx_error err = {0};
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_OK);
    nnfx_graph_free(s.g);
    s = make_small_with_dead(dead);
    assert_int_equal(nnfx_eliminate_dead_code_runs(s.g, NULL, 0, &nruns), 4); /* no room: counted */
    assert_int_equal(nruns, 3);
    assert_int_equal(nnfx_graph_num_nodes(s.g), 4);
    nnfx_graph_free(s.g);
}

/* nnfx_graph_targets: every node's target in list order, a call_function's
 * empty, each with its NUL; only whole ones written when cap is short. */
static void test_graph_targets(void **state) {
    (void)state;
    small s = make_small(); /* x, relu, add, output */
    char buf[32];
    memset(buf, '#', sizeof buf);
    assert_int_equal(nnfx_graph_targets(s.g, buf, sizeof buf), 11);
    assert_memory_equal(buf, "x\0\0\0output\0", 11);
    assert_int_equal(buf[11], '#');
    memset(buf, '#', sizeof buf);
    assert_int_equal(nnfx_graph_targets(s.g, buf, 4), 11); /* "x", "", "" fit; "output" does not */
    assert_memory_equal(buf, "x\0\0\0##", 6);
    assert_int_equal(nnfx_graph_targets(s.g, NULL, 8), 11);
    assert_int_equal(nnfx_graph_targets(NULL, buf, 8), 0);
    nnfx_graph_free(s.g);
}

/* The _tls binding calls: the same on the thread's own words and error, caps
 * set by the library. */
static void test_binding_calls_tls(void **state) {
    (void)state;
    small s = make_small();
    nnfx_error err = {0};
    uint64_t *w = nnfx_binding_words();
    assert_non_null(w);
    assert_ptr_equal(nnfx_binding_words(), w); /* the same for the thread's life */
    nnfx_arg a = nnfx_arg_node(s.relu);
    w[0] = (uint64_t)(uintptr_t)s.g;
    w[1] = NNFX_OP_NEG;
    w[2] = 1;
    w[3] = (uint64_t)(uintptr_t)&a;
    w[4] = 0;
    w[5] = 0;
    w[6] = 0; /* not read: the thread's error is used */
    nnfx_inserting_after(s.g, s.relu);
    nnfx_node *neg = nnfx_binding_call_op_tls();
    assert_non_null(neg);
    assert_ptr_equal(nnfx_node_prev(neg), s.relu);
    assert_true(w[8] == (uint64_t)(uintptr_t)neg && w[11] == (uint64_t)(uintptr_t)s.relu);
    w[1] = NNFX_OP_ADD; /* arity error: NULL, the message in the thread's error */
    assert_null(nnfx_binding_call_op_tls());
    assert_int_equal(nnfx_binding_error()->status, NNFX_ERR_INVALID_ARG);
    w[0] = (uint64_t)(uintptr_t)s.add;
    w[1] = 0; /* not read: the cap is the library's */
    assert_int_equal(nnfx_binding_node_args_tls(), 2);
    assert_int_equal(w[1], (NNFX_BINDING_WORDS - 2) / 2);
    nnfx_arg got[2];
    memcpy(got, w + 2, sizeof got);
    assert_ptr_equal(got[0].u.node, s.relu);
    assert_ptr_equal(got[1].u.node, s.x);
    w[0] = (uint64_t)(uintptr_t)s.relu; /* relu -> neg: add rewired, neg itself not */
    w[1] = (uint64_t)(uintptr_t)neg;
    assert_int_equal(nnfx_binding_replace_all_uses_with_tls(), 1);
    assert_true(w[3] == (uint64_t)(uintptr_t)s.add);
    assert_ptr_equal(nnfx_node_arg_node(s.add, 0), neg);
    w[0] = (uint64_t)(uintptr_t)s.g;
    w[1] = (uint64_t)(uintptr_t)s.relu;
    assert_int_equal(nnfx_binding_erase_node_tls(), NNFX_ERR_GRAPH); /* neg still uses relu */
    assert_non_null(strstr(nnfx_binding_error()->msg, "user"));
    w[1] = (uint64_t)(uintptr_t)s.x; /* relu's input: x has users, also refused */
    assert_int_equal(nnfx_binding_erase_node_tls(), NNFX_ERR_GRAPH);
    nnfx_arg back = nnfx_arg_node(s.relu);
    assert_int_equal(nnfx_node_set_arg(s.add, 0, back, &err), NNFX_OK);
    w[0] = (uint64_t)(uintptr_t)s.g;
    w[1] = (uint64_t)(uintptr_t)neg; /* unused now: erased */
    assert_int_equal(nnfx_binding_erase_node_tls(), NNFX_OK);
    assert_int_equal(nnfx_graph_num_nodes(s.g), 4);
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_OK);
    nnfx_graph_free(s.g);
}

/* The nnfx_binding_* calls are the functions they name, arguments and results
 * in a words buffer. */
static void test_binding_calls(void **state) {
    (void)state;
    small s = make_small();
    nnfx_error err = {0};
    uint64_t w[40] = {0};
    nnfx_arg a = nnfx_arg_node(s.relu);
    nnfx_attr alpha = {.name = "alpha", .kind = NNFX_ATTR_FLOAT, .u.f = 0.25};
    w[0] = (uint64_t)(uintptr_t)s.g;
    w[1] = NNFX_OP_LEAKY_RELU;
    w[2] = 1;
    w[3] = (uint64_t)(uintptr_t)&a;
    w[4] = 1;
    w[5] = (uint64_t)(uintptr_t)&alpha;
    w[6] = (uint64_t)(uintptr_t)&err;
    nnfx_inserting_after(s.g, s.relu);
    nnfx_node *leaky = nnfx_binding_call_op(w);
    assert_non_null(leaky);
    assert_ptr_equal(nnfx_node_prev(leaky), s.relu);
    assert_true(w[8] == (uint64_t)(uintptr_t)leaky && w[9] == nnfx_node_serial(leaky));
    assert_true(w[10] == ((uint64_t)NNFX_CALL_FUNCTION | (uint64_t)NNFX_OP_LEAKY_RELU << 32));
    assert_true(w[11] == (uint64_t)(uintptr_t)s.relu && w[12] == nnfx_node_serial(s.relu));
    assert_true(nnfx_node_attr_float(leaky, "alpha", 0) == 0.25);
    w[1] = NNFX_OP_ADD; /* arity error: NULL and the message */
    assert_null(nnfx_binding_call_op(w));
    assert_int_equal(err.status, NNFX_ERR_INVALID_ARG);
    memset(w, 0, sizeof w);
    w[0] = (uint64_t)(uintptr_t)s.add;
    w[1] = 4;
    assert_int_equal(nnfx_binding_node_args(w), 2);
    nnfx_arg got[2];
    memcpy(got, w + 2, sizeof got);
    assert_int_equal(got[0].kind, NNFX_ARG_NODE);
    assert_ptr_equal(got[0].u.node, s.relu);
    assert_ptr_equal(got[1].u.node, s.x);
    w[0] = (uint64_t)(uintptr_t)s.relu; /* relu -> leaky: add is rewired, leaky (a user of relu) is not */
    w[1] = (uint64_t)(uintptr_t)leaky;
    w[2] = 4;
    assert_int_equal(nnfx_binding_replace_all_uses_with(w), 1);
    assert_true(w[3] == (uint64_t)(uintptr_t)s.add);
    assert_ptr_equal(nnfx_node_arg_node(s.add, 0), leaky);
    w[0] = (uint64_t)(uintptr_t)s.g;
    w[1] = (uint64_t)(uintptr_t)s.relu;
    w[2] = (uint64_t)(uintptr_t)&err;
    assert_int_equal(nnfx_binding_erase_node(w), NNFX_ERR_GRAPH); /* leaky still uses relu */
    assert_non_null(strstr(err.msg, "user"));
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_OK);
    nnfx_graph_free(s.g);
}

static void test_users_are_ordered_and_deduplicated(void **state) {
    (void)state;
    small s = make_small();
    assert_int_equal(nnfx_node_num_users(s.x), 2);
    assert_ptr_equal(nnfx_node_user(s.x, 0), s.relu);
    assert_ptr_equal(nnfx_node_user(s.x, 1), s.add);
    nnfx_error err = {0};
    nnfx_arg b[2] = {nnfx_arg_node(s.x), nnfx_arg_node(s.x)};
    nnfx_inserting_before(s.g, s.out);
    nnfx_node *sq = nnfx_graph_call_op(s.g, NNFX_OP_MUL, 2, b, 0, NULL, &err);
    assert_non_null(sq);
    assert_int_equal(nnfx_node_num_users(s.x), 3); /* mul(x, x) counts once */
    nnfx_graph_free(s.g);
}

static void test_erase_with_users_names_them(void **state) {
    (void)state;
    small s = make_small();
    nnfx_error err = {0};
    assert_int_equal(nnfx_erase_node(s.g, s.x, &err), NNFX_ERR_GRAPH);
    assert_non_null(strstr(err.msg, "cannot erase node x"));
    assert_non_null(strstr(err.msg, "%relu"));
    assert_non_null(strstr(err.msg, "%add"));
    assert_int_equal(nnfx_graph_num_nodes(s.g), 4); /* nothing changed */
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_OK);
    nnfx_graph_free(s.g);
}

static void test_replace_all_uses_never_rewires_the_replacement(void **state) {
    (void)state;
    /* The seed's bug: new = f(node); node.replace_all_uses_with(new) made new use itself in FX. */
    small s = make_small();
    nnfx_error err = {0};
    nnfx_inserting_after(s.g, s.relu);
    nnfx_attr alpha = nnfx_attr_float("alpha", 0.1);
    nnfx_arg a = nnfx_arg_node(s.relu);
    nnfx_node *leaky = nnfx_graph_call_op(s.g, NNFX_OP_LEAKY_RELU, 1, &a, 1, &alpha, &err);
    assert_non_null(leaky);
    assert_int_equal(nnfx_replace_all_uses_with(s.relu, leaky, NULL, NULL), 1);
    assert_ptr_equal(nnfx_node_arg_node(leaky, 0), s.relu); /* its input stays relu */
    assert_ptr_equal(nnfx_node_arg_node(s.add, 0), leaky);
    assert_int_equal(nnfx_node_num_users(s.relu), 1);
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_OK);
    nnfx_graph_free(s.g);
}

static bool only_output(const nnfx_node *u, void *ctx) {
    (void)ctx;
    return nnfx_node_opcode(u) == NNFX_OUTPUT;
}

static void test_replace_all_uses_with_filter(void **state) {
    (void)state;
    small s = make_small();
    nnfx_error err = {0};
    /* add a second user of relu: the output also returns relu */
    nnfx_node *vals[2] = {s.add, s.relu};
    nnfx_arg args[2] = {nnfx_arg_node(vals[0]), nnfx_arg_node(vals[1])};
    assert_int_equal(nnfx_node_set_args(s.out, 2, args, &err), NNFX_OK);
    nnfx_inserting_after(s.g, s.relu);
    nnfx_arg a = nnfx_arg_node(s.relu);
    nnfx_node *sig = nnfx_graph_call_op(s.g, NNFX_OP_SIGMOID, 1, &a, 0, NULL, &err);
    assert_int_equal(nnfx_replace_all_uses_with(s.relu, sig, only_output, NULL), 1);
    assert_ptr_equal(nnfx_node_arg_node(s.add, 0), s.relu); /* filtered out */
    assert_ptr_equal(nnfx_node_arg_node(s.out, 1), sig);
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_OK);
    nnfx_graph_free(s.g);
}

static void test_inserting_after_keeps_creation_order(void **state) {
    (void)state;
    small s = make_small();
    nnfx_error err = {0};
    nnfx_arg a = nnfx_arg_node(s.x);
    nnfx_inserting_after(s.g, s.x);
    nnfx_node *n1 = nnfx_graph_call_op(s.g, NNFX_OP_SIGMOID, 1, &a, 0, NULL, &err);
    nnfx_node *n2 = nnfx_graph_call_op(s.g, NNFX_OP_TANH, 1, &a, 0, NULL, &err);
    assert_ptr_equal(nnfx_node_next(s.x), n1);
    assert_ptr_equal(nnfx_node_next(n1), n2);
    assert_ptr_equal(nnfx_node_next(n2), s.relu);
    nnfx_inserting_before(s.g, s.add);
    nnfx_node *n3 = nnfx_graph_call_op(s.g, NNFX_OP_NEG, 1, &a, 0, NULL, &err);
    nnfx_node *n4 = nnfx_graph_call_op(s.g, NNFX_OP_ABS, 1, &a, 0, NULL, &err);
    assert_ptr_equal(nnfx_node_next(s.relu), n3);
    assert_ptr_equal(nnfx_node_next(n3), n4);
    assert_ptr_equal(nnfx_node_next(n4), s.add);
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_OK);
    nnfx_graph_free(s.g);
}

static void test_unique_names(void **state) {
    (void)state;
    nnfx_graph *g = nnfx_graph_new();
    nnfx_error err = {0};
    nnfx_node *x = nnfx_graph_placeholder(g, "x", NULL, &err);
    nnfx_arg a = nnfx_arg_node(x);
    nnfx_node *r0 = nnfx_graph_call_op(g, NNFX_OP_RELU, 1, &a, 0, NULL, &err);
    nnfx_node *r1 = nnfx_graph_call_op(g, NNFX_OP_RELU, 1, &a, 0, NULL, &err);
    nnfx_node *r2 = nnfx_graph_call_op(g, NNFX_OP_RELU, 1, &a, 0, NULL, &err);
    assert_string_equal(nnfx_node_name(r0), "relu");
    assert_string_equal(nnfx_node_name(r1), "relu_1");
    assert_string_equal(nnfx_node_name(r2), "relu_2");
    assert_int_equal(nnfx_node_set_name(r2, "relu", &err), NNFX_OK);
    assert_string_equal(nnfx_node_name(r2), "relu_3"); /* taken names get a suffix */
    assert_int_equal(nnfx_node_set_name(r2, "my act!", &err), NNFX_OK);
    assert_string_equal(nnfx_node_name(r2), "my_act_"); /* made an identifier */
    assert_ptr_equal(nnfx_graph_find(g, "my_act_"), r2);
    assert_null(nnfx_graph_find(g, "relu_2"));
    nnfx_node *x2 = nnfx_graph_placeholder(g, "x", NULL, &err);
    assert_string_equal(nnfx_node_name(x2), "x_1");
    nnfx_graph_free(g);
}

static void test_dce_keeps_impure_nodes(void **state) {
    (void)state;
    small s = make_small();
    nnfx_error err = {0};
    nnfx_arg a = nnfx_arg_node(s.x);
    nnfx_node *dead1 = nnfx_graph_call_op(s.g, NNFX_OP_SIGMOID, 1, &a, 0, NULL, &err);
    nnfx_arg b = nnfx_arg_node(dead1);
    nnfx_node *dead2 = nnfx_graph_call_op(s.g, NNFX_OP_TANH, 1, &b, 0, NULL, &err);
    assert_non_null(dead2);
    nnfx_node *unused_input = nnfx_graph_placeholder(s.g, "unused", NULL, &err);
    assert_non_null(unused_input);
    assert_int_equal(nnfx_graph_num_nodes(s.g), 7);
    assert_int_equal(nnfx_eliminate_dead_code(s.g), 2); /* the chain goes, in one call */
    assert_non_null(nnfx_graph_find(s.g, "unused"));    /* placeholders stay */
    assert_null(nnfx_graph_find(s.g, "sigmoid"));
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_OK);
    nnfx_graph_free(s.g);
}

/* Dead-code elimination keeps a count of unused removable nodes: nodes made
 * unused by replace_all_uses_with and set_args go in one call, a second
 * call finds nothing, and lint agrees with the count after each edit. */
static void test_dce_after_edits(void **state) {
    (void)state;
    small s = make_small();
    nnfx_error err = {0};
    assert_int_equal(nnfx_eliminate_dead_code(s.g), 0);
    nnfx_arg a = nnfx_arg_node(s.x);
    nnfx_inserting_before(s.g, s.add);
    nnfx_node *sig = nnfx_graph_call_op(s.g, NNFX_OP_SIGMOID, 1, &a, 0, NULL, &err);
    assert_non_null(sig);
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_OK); /* sig is unused: counted */
    /* relu's users move to sig: relu is dead */
    assert_int_equal(nnfx_replace_all_uses_with(s.relu, sig, NULL, NULL), 1);
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_OK);
    /* add reads x twice now: sig is unused again */
    nnfx_arg xx[2] = {nnfx_arg_node(s.x), nnfx_arg_node(s.x)};
    assert_int_equal(nnfx_node_set_args(s.add, 2, xx, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_OK);
    assert_int_equal(nnfx_eliminate_dead_code(s.g), 2); /* relu and sig */
    assert_null(nnfx_graph_find(s.g, "relu"));
    assert_null(nnfx_graph_find(s.g, "sigmoid"));
    assert_int_equal(nnfx_eliminate_dead_code(s.g), 0);
    assert_int_equal(nnfx_graph_num_nodes(s.g), 3); /* x, add, output */
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_OK);
    nnfx_graph_free(s.g);
}

/* recompile lints and infers in one walk: a lint error anywhere wins over
 * an inference error before it (as lint-then-infer would report), an
 * inference error alone is reported, and a fixed graph recompiles. */
static void test_recompile_lint_wins(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_new();
    nnfx_meta m;
    int64_t d23[2] = {2, 3}, d45[2] = {4, 5};
    nnfx_meta_set_shape(&m, NNFX_F32, 2, d23);
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &m, &err);
    nnfx_meta_set_shape(&m, NNFX_F32, 2, d45);
    nnfx_node *y = nnfx_graph_placeholder(g, "y", &m, &err);
    nnfx_arg xy[2] = {nnfx_arg_node(x), nnfx_arg_node(y)};
    nnfx_node *add = nnfx_graph_call_op(g, NNFX_OP_ADD, 2, xy, 0, NULL, &err); /* [2,3] + [4,5]: no broadcast */
    nnfx_arg a = nnfx_arg_node(add);
    nnfx_node *relu = nnfx_graph_call_op(g, NNFX_OP_RELU, 1, &a, 0, NULL, &err);
    assert_non_null(nnfx_graph_output(g, 1, &relu, &err));
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    assert_non_null(gm);
    assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_ERR_SHAPE); /* the shape error */
    assert_null(strstr(err.msg, "lint"));
    assert_non_null(strstr(err.msg, "add"));
    /* a lint error after the inference error: lint's message */
    nnfx_attr bogus = nnfx_attr_float("beta", 2.0);
    assert_int_equal(nnfx_node_set_attr(relu, &bogus, &err), NNFX_OK);
    memset(&err, 0, sizeof err);
    assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_ERR_GRAPH);
    assert_non_null(strstr(err.msg, "relu has no attribute 'beta'"));
    /* both fixed (y made [2, 3], relu replaced by one without the attribute): it recompiles */
    nnfx_meta_set_shape(nnfx_node_meta(y, 0), NNFX_F32, 2, d23);
    nnfx_inserting_before(g, relu);
    nnfx_node *relu2 = nnfx_graph_call_op(g, NNFX_OP_RELU, 1, &a, 0, NULL, &err);
    assert_int_equal(nnfx_replace_all_uses_with(relu, relu2, NULL, NULL), 1);
    assert_int_equal(nnfx_erase_node(g, relu, &err), NNFX_OK);
    assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_OK);
    assert_int_equal(nnfx_node_meta_c(relu2, 0)->dims[1].value, 3);
    nnfx_gm_free(gm);
}

static nnfx_status leaf_double(void *user, int nin, nnfx_tensor *const *in, nnfx_tensor **out, nnfx_error *err) {
    (void)user;
    if (nin != 1) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "leaf_double takes 1 input");
    *out = nnfx_tensor_clone(in[0], err);
    if (!*out) return NNFX_ERR_NOMEM;
    float *p = (*out)->data;
    for (int64_t i = 0; i < nnfx_tensor_numel(*out); i++)
        p[i] *= 2;
    return NNFX_OK;
}

static void test_dce_keeps_call_module(void **state) {
    (void)state;
    small s = make_small();
    nnfx_error err = {0};
    assert_int_equal(nnfx_graph_register_leaf(s.g, "double_it", leaf_double, NULL, NULL, &err), NNFX_OK);
    nnfx_arg a = nnfx_arg_node(s.x);
    nnfx_node *leaf = nnfx_graph_call_module(s.g, "double_it", 1, &a, &err);
    assert_non_null(leaf);
    assert_int_equal(nnfx_eliminate_dead_code(s.g), 0);
    assert_true(nnfx_node_is_impure(leaf));
    nnfx_node *bad = nnfx_graph_call_module(s.g, "missing_leaf", 1, &a, &err);
    assert_null(bad);
    assert_non_null(strstr(err.msg, "missing_leaf"));
    nnfx_graph_free(s.g);
}

static void test_lint_messages(void **state) {
    (void)state;
    nnfx_error err = {0};
    /* use before definition */
    small s = make_small();
    assert_int_equal(nnfx_node_move_before(s.add, s.relu, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_ERR_GRAPH);
    assert_non_null(strstr(err.msg, "uses relu before it is defined"));
    nnfx_graph_free(s.g);

    /* node of another graph */
    s = make_small();
    small t = make_small();
    nnfx_arg foreign = nnfx_arg_node(t.x);
    assert_int_equal(nnfx_node_set_args(s.relu, 1, &foreign, &err), NNFX_ERR_GRAPH);
    assert_non_null(strstr(err.msg, "another graph"));
    s.relu->args[0].u.node = t.x; /* force it past the API to see lint catch it */
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_ERR_GRAPH);
    assert_non_null(strstr(err.msg, "another graph"));
    s.relu->args[0].u.node = s.x;
    nnfx_graph_free(t.g);

    /* wrong arity */
    nnfx_arg three[3] = {nnfx_arg_node(s.x), nnfx_arg_node(s.x), nnfx_arg_node(s.x)};
    assert_int_equal(nnfx_node_set_args(s.add, 3, three, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_ERR_GRAPH);
    assert_non_null(strstr(err.msg, "add takes 2 to 2 arguments, has 3"));
    nnfx_arg two[2] = {nnfx_arg_node(s.relu), nnfx_arg_node(s.x)};
    assert_int_equal(nnfx_node_set_args(s.add, 2, two, &err), NNFX_OK);

    /* unknown attribute */
    nnfx_attr bogus = nnfx_attr_float("beta", 2.0);
    assert_int_equal(nnfx_node_set_attr(s.relu, &bogus, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_ERR_GRAPH);
    assert_non_null(strstr(err.msg, "relu has no attribute 'beta'"));
    nnfx_graph_free(s.g);

    /* duplicate names (forced past the API) */
    s = make_small();
    ir_names_del(&s.g->names, s.add);
    ir_graph_free_str(s.g, s.add->name);
    s.add->name = ir_arena_strdup(&s.g->arena, "relu");
    s.add->name_hash = ir_strmap_hash("relu");
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_ERR_GRAPH);
    assert_non_null(strstr(err.msg, "relu"));
    nnfx_graph_free(s.g);

    /* a users entry naming a node that does not use it (forced past the
     * API); lint finds it from the count of entries against the uses */
    s = make_small();
    assert_true(ir_add_user(s.x, s.out)); /* x: relu, add, output */
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_ERR_GRAPH);
    assert_non_null(strstr(err.msg, "node x lists output as a user, which does not use it"));
    /* the same count with a repeated entry instead: not an error */
    s.x->users[2] = s.relu; /* x: relu, add, relu */
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_OK);
    nnfx_graph_free(s.g);
    /* a node used twice by one node is one use: add(x, x) and the same
     * forced entry must still be found */
    s = make_small();
    nnfx_arg xx[2] = {nnfx_arg_node(s.x), nnfx_arg_node(s.x)};
    assert_int_equal(nnfx_node_set_args(s.add, 2, xx, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_OK);
    assert_true(ir_add_user(s.x, s.out));
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_ERR_GRAPH);
    assert_non_null(strstr(err.msg, "node x lists output as a user, which does not use it"));
    nnfx_graph_free(s.g);

    /* self-use is refused by the API */
    s = make_small();
    nnfx_arg self = nnfx_arg_node(s.relu);
    assert_int_equal(nnfx_node_set_args(s.relu, 1, &self, &err), NNFX_ERR_GRAPH);
    assert_int_equal(nnfx_replace_input_with(s.relu, s.x, s.relu, &err), NNFX_ERR_GRAPH);
    assert_int_equal(nnfx_graph_lint(s.g, &err), NNFX_OK);
    nnfx_graph_free(s.g);
}

static void test_graph_copy_with_value_map(void **state) {
    (void)state;
    small s = make_small();
    nnfx_error err = {0};
    nnfx_node_set_module_path(s.relu, "block.act", &err);
    nnfx_value_map *map = nnfx_value_map_new();
    nnfx_graph *c = nnfx_graph_copy(s.g, map, &err);
    assert_non_null(c);
    assert_int_equal(nnfx_graph_num_nodes(c), 4);
    nnfx_node *crelu = nnfx_value_map_get(map, s.relu);
    assert_non_null(crelu);
    assert_ptr_not_equal(crelu, s.relu);
    assert_ptr_equal(nnfx_node_graph(crelu), c);
    assert_string_equal(nnfx_node_name(crelu), "relu");
    assert_string_equal(nnfx_node_module_path(crelu), "block.act");
    assert_ptr_equal(nnfx_node_arg_node(crelu, 0), nnfx_value_map_get(map, s.x));
    assert_int_equal(nnfx_graph_lint(c, &err), NNFX_OK);
    /* editing the copy leaves the original alone */
    nnfx_node *cadd = nnfx_value_map_get(map, s.add);
    assert_int_equal(nnfx_replace_all_uses_with(cadd, crelu, NULL, NULL), 1);
    assert_int_equal(nnfx_eliminate_dead_code(c), 1);
    assert_int_equal(nnfx_graph_num_nodes(c), 3);
    assert_int_equal(nnfx_graph_num_nodes(s.g), 4);
    nnfx_value_map_free(map);
    nnfx_graph_free(c);
    nnfx_graph_free(s.g);
}

static void test_multi_output_getitem(void **state) {
    (void)state;
    nnfx_graph *g = nnfx_graph_new();
    nnfx_error err = {0};
    nnfx_meta m;
    int64_t dims[2] = {4, 6};
    nnfx_meta_set_shape(&m, NNFX_F32, 2, dims);
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &m, &err);
    nnfx_arg a = nnfx_arg_node(x);
    nnfx_attr attrs[2] = {nnfx_attr_int("axis", 1), nnfx_attr_int("num_outputs", 2)};
    nnfx_node *sp = nnfx_graph_call_op(g, NNFX_OP_SPLIT, 1, &a, 2, attrs, &err);
    assert_non_null(sp);
    assert_int_equal(nnfx_node_num_outputs(sp), 2);
    nnfx_node *g0 = nnfx_graph_getitem(g, sp, 0, &err);
    nnfx_node *g1 = nnfx_graph_getitem(g, sp, 1, &err);
    assert_non_null(g0);
    assert_non_null(g1);
    assert_string_equal(nnfx_node_name(g0), "getitem");
    assert_string_equal(nnfx_node_name(g1), "getitem_1");
    assert_null(nnfx_graph_getitem(g, sp, 2, &err));
    assert_non_null(strstr(err.msg, "index 2 is out of range"));
    nnfx_node *outs[2] = {g1, g0};
    assert_non_null(nnfx_graph_output(g, 2, outs, &err));
    assert_null(nnfx_graph_output(g, 2, outs, &err)); /* one output node */
    assert_int_equal(nnfx_graph_lint(g, &err), NNFX_OK);
    nnfx_graph_free(g);
}

static void test_bad_input_to_public_functions(void **state) {
    (void)state;
    nnfx_error err = {0};
    assert_null(nnfx_graph_placeholder(NULL, "x", NULL, &err));
    assert_int_equal(err.status, NNFX_ERR_INVALID_ARG);
    nnfx_graph *g = nnfx_graph_new();
    assert_null(nnfx_graph_placeholder(g, "", NULL, &err));
    assert_null(nnfx_graph_call_op(g, (nnfx_op)9999, 0, NULL, 0, NULL, &err));
    assert_null(nnfx_graph_call_op(g, NNFX_OP_RELU, 0, NULL, 0, NULL, &err));
    assert_non_null(strstr(err.msg, "relu takes 1 to 1 arguments, got 0"));
    assert_null(nnfx_graph_get_attr(g, "nope", &err));
    assert_int_equal(err.status, NNFX_ERR_NOT_FOUND);
    assert_int_equal(nnfx_erase_node(g, NULL, &err), NNFX_ERR_INVALID_ARG);
    assert_int_equal(nnfx_graph_lint(g, &err), NNFX_ERR_GRAPH); /* no output node */
    assert_int_equal(nnfx_graph_lint(NULL, &err), NNFX_ERR_INVALID_ARG);
    assert_null(nnfx_graph_copy(NULL, NULL, &err));
    assert_int_equal(nnfx_replace_all_uses_with(NULL, NULL, NULL, NULL), -1);
    assert_null(nnfx_gm_new(NULL, &err));
    assert_int_equal(nnfx_gm_recompile(NULL, &err), NNFX_ERR_INVALID_ARG);
    assert_null(nnfx_tensor_new(NNFX_F32, 9, NULL, &err));
    int64_t huge[2] = {INT64_MAX / 2, 8};
    assert_null(nnfx_tensor_new(NNFX_F32, 2, huge, &err));
    int64_t neg[1] = {-3};
    assert_null(nnfx_tensor_new(NNFX_F32, 1, neg, &err));
    assert_null(nnfx_mapping_open("/nonexistent/model.onnx", &err));
    assert_int_equal(err.status, NNFX_ERR_IO);
    assert_int_equal(nnfx_graph_set_param(g, "w", NULL, &err), NNFX_ERR_INVALID_ARG);
    nnfx_graph_free(g);
    nnfx_graph_free(NULL);
    nnfx_tensor_release(NULL);
}

static void test_params_and_get_attr(void **state) {
    (void)state;
    nnfx_graph *g = nnfx_graph_new();
    nnfx_error err = {0};
    int64_t shape[2] = {3, 2};
    nnfx_tensor *w = nnfx_tensor_new(NNFX_F32, 2, shape, &err);
    assert_int_equal(nnfx_graph_set_param(g, "fc.weight", w, &err), NNFX_OK);
    nnfx_tensor_release(w);
    nnfx_node *ga = nnfx_graph_get_attr(g, "fc.weight", &err);
    assert_non_null(ga);
    assert_string_equal(nnfx_node_target(ga), "fc.weight");
    assert_string_equal(nnfx_node_name(ga), "fc_weight");
    assert_int_equal(nnfx_node_meta(ga, 0)->rank, 2);
    int64_t one[1] = {1};
    nnfx_tensor *unused = nnfx_tensor_new(NNFX_F32, 1, one, &err);
    nnfx_graph_set_param(g, "unused", unused, &err);
    nnfx_tensor_release(unused);
    assert_int_equal(nnfx_graph_num_params(g), 2);
    assert_int_equal(nnfx_graph_drop_unused_params(g), 1);
    assert_int_equal(nnfx_graph_num_params(g), 1);
    assert_non_null(nnfx_graph_param(g, "fc.weight"));
    nnfx_graph_free(g);
}

/* A scalar f32 tensor of value v (rank 1, one element). */
static nnfx_tensor *scalar1(float v) {
    int64_t one[1] = {1};
    nnfx_tensor *t = nnfx_tensor_new(NNFX_F32, 1, one, NULL);
    assert_non_null(t);
    float *d = nnfx_tensor_data_mut(t, NULL);
    assert_non_null(d);
    d[0] = v;
    return t;
}

/* Dropping unused parameters moves the others to lower indices; each
 * get_attr node must still read its own parameter afterwards. The graph is
 * x + b * c with "a" dropped before b and c; folding constants reads b and
 * c through their nodes (a stale index would read c for b: 1.5 + 9).
 * Expected output computed by hand: 1.5 + 2 * 3 = 7.5. */
static void test_drop_unused_params_keeps_get_attr_bindings(void **state) {
    (void)state;
    nnfx_graph *g = nnfx_graph_new();
    nnfx_error err = {0};
    const char *names[3] = {"a", "b", "c"};
    const float vals[3] = {100.0f, 2.0f, 3.0f};
    for (int i = 0; i < 3; i++) {
        nnfx_tensor *t = scalar1(vals[i]);
        assert_int_equal(nnfx_graph_set_param(g, names[i], t, &err), NNFX_OK);
        nnfx_tensor_release(t);
    }
    nnfx_meta m;
    int64_t one[1] = {1};
    nnfx_meta_set_shape(&m, NNFX_F32, 1, one);
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &m, &err);
    nnfx_node *dead = nnfx_graph_get_attr(g, "a", &err);
    nnfx_node *b = nnfx_graph_get_attr(g, "b", &err);
    nnfx_node *c = nnfx_graph_get_attr(g, "c", &err);
    assert_true(x && dead && b && c);
    nnfx_arg mul_args[2] = {nnfx_arg_node(b), nnfx_arg_node(c)};
    nnfx_node *mul = nnfx_graph_call_op(g, NNFX_OP_MUL, 2, mul_args, 0, NULL, &err);
    assert_non_null(mul);
    nnfx_arg add_args[2] = {nnfx_arg_node(x), nnfx_arg_node(mul)};
    nnfx_node *add = nnfx_graph_call_op(g, NNFX_OP_ADD, 2, add_args, 0, NULL, &err);
    assert_non_null(add);
    assert_non_null(nnfx_graph_output(g, 1, &add, &err));
    assert_int_equal(nnfx_erase_node(g, dead, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_drop_unused_params(g), 1);
    assert_int_equal(nnfx_graph_num_params(g), 2);
    assert_string_equal(nnfx_graph_param_name(g, 0), "b");
    nnfx_pass_report rep = {0};
    assert_int_equal(nnfx_pass_fold_constants(g, &rep, &err), NNFX_OK);
    nnfx_pass_report_free(&rep);
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    assert_non_null(gm);
    assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_OK);
    nnfx_tensor *in = scalar1(1.5f), *out = NULL;
    int nout = 0;
    assert_int_equal(nnfx_gm_run(gm, 1, &in, 1, &out, &nout, &err), NNFX_OK);
    assert_int_equal(nout, 1);
    assert_float_equal(nnfx_tensor_get(out, 0), 7.5, 1e-6);
    nnfx_tensor_release(out);
    nnfx_tensor_release(in);
    nnfx_gm_free(gm);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_users_are_ordered_and_deduplicated),
        cmocka_unit_test(test_erase_with_users_names_them),
        cmocka_unit_test(test_replace_all_uses_never_rewires_the_replacement),
        cmocka_unit_test(test_replace_all_uses_with_filter),
        cmocka_unit_test(test_inserting_after_keeps_creation_order),
        cmocka_unit_test(test_unique_names),
        cmocka_unit_test(test_dce_keeps_impure_nodes),
        cmocka_unit_test(test_dce_after_edits),
        cmocka_unit_test(test_recompile_lint_wins),
        cmocka_unit_test(test_dce_keeps_call_module),
        cmocka_unit_test(test_lint_messages),
        cmocka_unit_test(test_graph_copy_with_value_map),
        cmocka_unit_test(test_multi_output_getitem),
        cmocka_unit_test(test_bad_input_to_public_functions),
        cmocka_unit_test(test_params_and_get_attr),
        cmocka_unit_test(test_drop_unused_params_keeps_get_attr_bindings),
        cmocka_unit_test(test_release_cached_memory),
        cmocka_unit_test(test_node_snapshot_and_serials),
        cmocka_unit_test(test_packed_args_users_and_dce_list),
        cmocka_unit_test(test_dce_runs),
        cmocka_unit_test(test_binding_calls_tls),
        cmocka_unit_test(test_graph_targets),
        cmocka_unit_test(test_graph_all_args),
        cmocka_unit_test(test_binding_calls),
        cmocka_unit_test(test_param_lookup_many),
        cmocka_unit_test(test_large_graph_walk_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
