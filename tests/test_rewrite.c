/* test_rewrite.c — the subgraph rewriter and the pattern language, case by
 * case: wildcards, literals, attributes, commutativity, overlaps, outer
 * users (with explain reasons), multiple outputs, no match, a 100k-node
 * chain, every documented rule example (checked numerically), and parse
 * errors with their columns. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "nnfx.h"

/* --- helpers ------------------------------------------------------------- */

static nnfx_meta rw_meta(int rank, const int64_t *dims) {
    nnfx_meta m;
    nnfx_meta_set_shape(&m, NNFX_F32, rank, dims);
    return m;
}

static const int64_t VEC[1] = {64};

/* A graph with one placeholder x of shape [64]. */
static nnfx_graph *graph_x(nnfx_node **x) {
    nnfx_graph *g = nnfx_graph_new();
    nnfx_meta m = rw_meta(1, VEC);
    *x = nnfx_graph_placeholder(g, "x", &m, NULL);
    assert_non_null(*x);
    return g;
}

static nnfx_node *op1(nnfx_graph *g, nnfx_op op, nnfx_node *a) {
    nnfx_arg args[1] = {nnfx_arg_node(a)};
    nnfx_error err = {0};
    nnfx_node *n = nnfx_graph_call_op(g, op, 1, args, 0, NULL, &err);
    if (!n) fail_msg("%s", err.msg);
    return n;
}

static nnfx_node *op2(nnfx_graph *g, nnfx_op op, nnfx_arg a, nnfx_arg b) {
    nnfx_arg args[2] = {a, b};
    nnfx_error err = {0};
    nnfx_node *n = nnfx_graph_call_op(g, op, 2, args, 0, NULL, &err);
    if (!n) fail_msg("%s", err.msg);
    return n;
}

static void out1(nnfx_graph *g, nnfx_node *n) { assert_non_null(nnfx_graph_output(g, 1, &n, NULL)); }

static int count_op(const nnfx_graph *g, nnfx_op op) {
    int k = 0;
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n))
        k += nnfx_node_is_op(n, op);
    return k;
}

static void lint_ok(const nnfx_graph *g) {
    nnfx_error err = {0};
    if (nnfx_graph_lint(g, &err)) fail_msg("lint: %s", err.msg);
}

/* Runs a copy of g on inputs; returns output `which` (caller releases). */
static nnfx_tensor *run_copy(const nnfx_graph *g, int nin, nnfx_tensor **in, int which) {
    nnfx_error err = {0};
    nnfx_graph *c = nnfx_graph_copy(g, NULL, &err);
    if (!c) fail_msg("copy: %s", err.msg);
    nnfx_gm *gm = nnfx_gm_new(c, &err);
    assert_non_null(gm);
    nnfx_tensor *outs[8] = {0};
    int nout = 0;
    if (nnfx_gm_run(gm, nin, in, 8, outs, &nout, &err)) fail_msg("run: %s", err.msg);
    assert_true(which < nout);
    for (int i = 0; i < nout; i++)
        if (i != which) nnfx_tensor_release(outs[i]);
    nnfx_gm_free(gm);
    return outs[which];
}

static nnfx_tensor *random_vec(uint64_t seed, float lo, float hi) {
    nnfx_tensor *t = nnfx_tensor_new(NNFX_F32, 1, VEC, NULL);
    nnfx_tensor_fill_uniform(t, seed, lo, hi);
    return t;
}

/* Checks out[i] == f(in[i]) within tol. */
static void check_unary(const nnfx_tensor *in, const nnfx_tensor *out, double (*f)(double), double tol) {
    assert_int_equal(nnfx_tensor_numel(in), nnfx_tensor_numel(out));
    for (int64_t i = 0; i < nnfx_tensor_numel(in); i++) {
        double want = f(nnfx_tensor_get(in, i)), got = nnfx_tensor_get(out, i);
        if (fabs(want - got) > tol) fail_msg("element %lld: want %g, got %g", (long long)i, want, got);
    }
}

static double f_leaky01(double x) { return x >= 0 ? x : 0.1 * x; }
static double f_clip01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }
static double f_hsig(double x) { return f_clip01(0.2 * x + 0.5); }
static double f_hswish(double x) { return x * f_clip01(x / 6.0 + 0.5); }
static double f_ident(double x) { return x; }

/* Applies rule to g1(x) = op(x) and checks the result numerically. */
static void rule_numeric(const char *rule, nnfx_op op, nnfx_op want_op, double (*f)(double)) {
    nnfx_node *x;
    nnfx_graph *g = graph_x(&x);
    out1(g, op1(g, op, x));
    nnfx_error err = {0};
    int n = nnfx_rewrite_text(g, rule, &err);
    if (n < 0) fail_msg("%s: %s", rule, err.msg);
    assert_int_equal(n, 1);
    assert_int_equal(count_op(g, op), 0);
    if (want_op != NNFX_OP_NONE) assert_int_equal(count_op(g, want_op), 1);
    lint_ok(g);
    nnfx_tensor *in = random_vec(7, -8, 8);
    nnfx_tensor *o = run_copy(g, 1, &in, 0);
    check_unary(in, o, f, 1e-5);
    nnfx_tensor_release(in);
    nnfx_tensor_release(o);
    nnfx_graph_free(g);
}

/* --- the rule examples ------------------------------------------------------ */

static void test_relu_to_leaky(void **state) {
    (void)state;
    rule_numeric("relu(x) -> leaky_relu(x, alpha=0.1)", NNFX_OP_RELU, NNFX_OP_LEAKY_RELU, f_leaky01);
    rule_numeric("Relu(x) -> LeakyRelu(x, alpha=0.1)", NNFX_OP_RELU, NNFX_OP_LEAKY_RELU, f_leaky01);
}

static void test_sigmoid_to_clip(void **state) {
    (void)state;
    rule_numeric("sigmoid(x) -> clip(x, 0.0, 1.0)", NNFX_OP_SIGMOID, NNFX_OP_CLIP, f_clip01);
}

static void test_sigmoid_to_hard_sigmoid(void **state) {
    (void)state;
    rule_numeric("sigmoid(x) -> hard_sigmoid(x, alpha=0.2, beta=0.5)", NNFX_OP_SIGMOID, NNFX_OP_HARD_SIGMOID, f_hsig);
}

static void test_swish_to_hard_swish(void **state) {
    (void)state;
    /* both argument orders of the commutative mul */
    for (int order = 0; order < 2; order++) {
        nnfx_node *x;
        nnfx_graph *g = graph_x(&x);
        nnfx_node *s = op1(g, NNFX_OP_SIGMOID, x);
        nnfx_node *m = order ? op2(g, NNFX_OP_MUL, nnfx_arg_node(s), nnfx_arg_node(x))
                             : op2(g, NNFX_OP_MUL, nnfx_arg_node(x), nnfx_arg_node(s));
        out1(g, m);
        nnfx_error err = {0};
        int n = nnfx_rewrite_text(g, "mul(x, sigmoid(x)) -> hard_swish(x)", &err);
        if (n < 0) fail_msg("%s", err.msg);
        assert_int_equal(n, 1);
        assert_int_equal(count_op(g, NNFX_OP_SIGMOID), 0);
        assert_int_equal(count_op(g, NNFX_OP_MUL), 0);
        assert_int_equal(count_op(g, NNFX_OP_HARD_SWISH), 1);
        lint_ok(g);
        nnfx_tensor *in = random_vec(11, -8, 8);
        nnfx_tensor *o = run_copy(g, 1, &in, 0);
        check_unary(in, o, f_hswish, 1e-5);
        nnfx_tensor_release(in);
        nnfx_tensor_release(o);
        nnfx_graph_free(g);
    }
}

static void test_identity_removed(void **state) {
    (void)state;
    nnfx_node *x;
    nnfx_graph *g = graph_x(&x);
    nnfx_node *a = op1(g, NNFX_OP_IDENTITY, x);
    nnfx_node *b = op1(g, NNFX_OP_IDENTITY, a);
    nnfx_node *c = op1(g, NNFX_OP_RELU, b);
    nnfx_node *d = op1(g, NNFX_OP_IDENTITY, c);
    out1(g, d);
    nnfx_error err = {0};
    int n = nnfx_rewrite_text(g, "identity(x) -> x", &err);
    if (n < 0) fail_msg("%s", err.msg);
    assert_int_equal(n, 3);
    assert_int_equal(count_op(g, NNFX_OP_IDENTITY), 0);
    assert_int_equal(nnfx_graph_num_nodes(g), 3); /* x, relu, output */
    nnfx_node *relu = nnfx_node_arg_node(nnfx_graph_output_node(g), 0);
    assert_true(nnfx_node_is_op(relu, NNFX_OP_RELU));
    assert_ptr_equal(nnfx_node_arg_node(relu, 0), x);
    lint_ok(g);
    nnfx_tensor *in = random_vec(3, -1, 1);
    nnfx_tensor *o = run_copy(g, 1, &in, 0);
    nnfx_tensor_release(in);
    nnfx_tensor_release(o);
    nnfx_graph_free(g);
    (void)f_ident;
}

/* --- matcher semantics ------------------------------------------------------ */

static nnfx_match_list *explain(nnfx_graph *g, const char *rule, bool replace) {
    nnfx_graph *pat = NULL, *rep = NULL;
    nnfx_error err = {0};
    if (nnfx_pattern_parse(rule, &pat, &rep, &err)) fail_msg("%s", err.msg);
    nnfx_rewrite_options o = {0};
    o.explain = true;
    nnfx_match_list *l = replace ? nnfx_replace_pattern_ex(g, pat, rep, &o, &err) : nnfx_find_matches(g, pat, &o, &err);
    if (!l) fail_msg("%s", err.msg);
    nnfx_graph_free(pat);
    nnfx_graph_free(rep);
    return l;
}

static void test_wildcard_binding(void **state) {
    (void)state;
    nnfx_meta m = rw_meta(1, VEC);
    nnfx_graph *g = nnfx_graph_new();
    nnfx_node *a = nnfx_graph_placeholder(g, "a", &m, NULL);
    nnfx_node *b = nnfx_graph_placeholder(g, "b", &m, NULL);
    nnfx_node *ab = op2(g, NNFX_OP_MUL, nnfx_arg_node(a), nnfx_arg_node(b));
    nnfx_node *aa = op2(g, NNFX_OP_MUL, nnfx_arg_node(a), nnfx_arg_node(a));
    nnfx_node *outs[2] = {ab, aa};
    assert_non_null(nnfx_graph_output(g, 2, outs, NULL));
    nnfx_match_list *l = explain(g, "mul(x, x) -> relu(x)", false);
    assert_int_equal(nnfx_match_list_count(l), 1);
    assert_ptr_equal(nnfx_match_list_at(l, 0)->anchor, aa);
    assert_int_equal(nnfx_match_list_at(l, 0)->nbindings, 1);
    assert_ptr_equal(nnfx_match_list_at(l, 0)->bindings[0].u.node, a);
    assert_int_equal(nnfx_match_list_num_candidates(l), 2);
    const nnfx_candidate *c = nnfx_match_list_candidate(l, 0);
    assert_string_equal(c->node, nnfx_node_name(ab));
    assert_int_equal(c->reason, NNFX_REJECT_WILDCARD);
    assert_non_null(strstr(c->detail, "wildcard x"));
    assert_int_equal(nnfx_match_list_candidate(l, 1)->reason, NNFX_REJECT_NONE);
    char *text = nnfx_rewrite_explain(l);
    assert_non_null(strstr(text, "wildcard bound inconsistently"));
    free(text);
    nnfx_match_list_free(l);
    nnfx_graph_free(g);
}

static void test_literals(void **state) {
    (void)state;
    nnfx_node *x;
    nnfx_graph *g = graph_x(&x);
    nnfx_node *a1 = op2(g, NNFX_OP_ADD, nnfx_arg_node(x), nnfx_arg_float(1.0));
    nnfx_node *a2 = op2(g, NNFX_OP_ADD, nnfx_arg_node(a1), nnfx_arg_float(2.0));
    out1(g, a2);
    nnfx_match_list *l = explain(g, "add(y, 1) -> sub(y, -1)", false);
    assert_int_equal(nnfx_match_list_count(l), 1); /* int 1 equals float 1.0 */
    assert_ptr_equal(nnfx_match_list_at(l, 0)->anchor, a1);
    assert_int_equal(nnfx_match_list_candidate(l, 1)->reason, NNFX_REJECT_LITERAL);
    assert_non_null(strstr(nnfx_match_list_candidate(l, 1)->detail, "is 2"));
    nnfx_match_list_free(l);
    /* a wildcard binds literals too, consistently */
    l = explain(g, "add(y, c) -> sub(y, c)", true);
    assert_int_equal(nnfx_match_list_count(l), 2);
    assert_int_equal(count_op(g, NNFX_OP_SUB), 2);
    nnfx_node *s2 = nnfx_node_arg_node(nnfx_graph_output_node(g), 0);
    assert_int_equal(nnfx_node_arg(s2, 1).kind, NNFX_ARG_FLOAT);
    assert_true(nnfx_node_arg(s2, 1).u.f == 2.0);
    lint_ok(g);
    nnfx_match_list_free(l);
    nnfx_graph_free(g);
}

static void test_attributes(void **state) {
    (void)state;
    nnfx_node *x;
    nnfx_graph *g = graph_x(&x);
    nnfx_arg ax = nnfx_arg_node(x);
    nnfx_attr al = nnfx_attr_float("alpha", 0.1);
    nnfx_node *l1 = nnfx_graph_call_op(g, NNFX_OP_LEAKY_RELU, 1, &ax, 1, &al, NULL);
    nnfx_arg a1 = nnfx_arg_node(l1);
    nnfx_node *l2 = nnfx_graph_call_op(g, NNFX_OP_LEAKY_RELU, 1, &a1, 0, NULL, NULL); /* default 0.01 */
    out1(g, l2);
    nnfx_match_list *l = explain(g, "leaky_relu(x, alpha=0.2) -> relu(x)", false);
    assert_int_equal(nnfx_match_list_count(l), 0);
    assert_int_equal(nnfx_match_list_candidate(l, 0)->reason, NNFX_REJECT_ATTR);
    assert_non_null(strstr(nnfx_match_list_candidate(l, 0)->detail, "alpha"));
    nnfx_match_list_free(l);
    l = explain(g, "leaky_relu(x, alpha=0.01) -> relu(x)", false); /* matches the schema default */
    assert_int_equal(nnfx_match_list_count(l), 1);
    assert_ptr_equal(nnfx_match_list_at(l, 0)->anchor, l2);
    nnfx_match_list_free(l);
    l = explain(g, "leaky_relu(x) -> relu(x)", false); /* unset: any alpha */
    assert_int_equal(nnfx_match_list_count(l), 2);
    nnfx_match_list_free(l);
    nnfx_graph_free(g);
}

static void test_commutative(void **state) {
    (void)state;
    nnfx_meta m = rw_meta(1, VEC);
    nnfx_graph *g = nnfx_graph_new();
    nnfx_node *a = nnfx_graph_placeholder(g, "a", &m, NULL);
    nnfx_node *b = nnfx_graph_placeholder(g, "b", &m, NULL);
    nnfx_node *r = op1(g, NNFX_OP_RELU, a);
    nnfx_node *add = op2(g, NNFX_OP_ADD, nnfx_arg_node(b), nnfx_arg_node(r)); /* relu second */
    nnfx_node *sub = op2(g, NNFX_OP_SUB, nnfx_arg_node(b), nnfx_arg_node(add));
    out1(g, sub);
    nnfx_match_list *l = explain(g, "add(relu(x), y) -> sub(x, y)", false);
    assert_int_equal(nnfx_match_list_count(l), 1);
    const nnfx_match *mm = nnfx_match_list_at(l, 0);
    assert_ptr_equal(mm->bindings[0].u.node, a);
    assert_ptr_equal(mm->bindings[1].u.node, b);
    nnfx_match_list_free(l);
    /* sub is not commutative: sub(relu(x), y) does not match sub(b, add) */
    l = explain(g, "sub(relu(x), y) -> add(x, y)", false);
    assert_int_equal(nnfx_match_list_count(l), 0);
    assert_int_equal(nnfx_match_list_candidate(l, 0)->reason, NNFX_REJECT_OP);
    nnfx_match_list_free(l);
    nnfx_graph_free(g);
}

static void test_overlap(void **state) {
    (void)state;
    nnfx_node *x;
    nnfx_graph *g = graph_x(&x);
    nnfx_node *r1 = op1(g, NNFX_OP_RELU, x);
    nnfx_node *r2 = op1(g, NNFX_OP_RELU, r1);
    nnfx_node *r3 = op1(g, NNFX_OP_RELU, r2);
    out1(g, r3);
    nnfx_match_list *l = explain(g, "relu(relu(x)) -> relu(x)", true);
    assert_int_equal(nnfx_match_list_count(l), 1);
    assert_string_equal(nnfx_match_list_at(l, 0)->anchor_name, "relu_1");
    assert_int_equal(nnfx_match_list_num_candidates(l), 3);
    assert_int_equal(nnfx_match_list_candidate(l, 0)->reason, NNFX_REJECT_OP); /* relu(x): x is a placeholder */
    assert_int_equal(nnfx_match_list_candidate(l, 1)->reason, NNFX_REJECT_NONE);
    assert_int_equal(nnfx_match_list_candidate(l, 2)->reason, NNFX_REJECT_OVERLAP);
    assert_non_null(strstr(nnfx_match_list_candidate(l, 2)->detail, "already part of the match at %relu_1"));
    assert_int_equal(count_op(g, NNFX_OP_RELU), 2);
    lint_ok(g);
    nnfx_match_list_free(l);
    nnfx_graph_free(g);
}

static void test_outer_user(void **state) {
    (void)state;
    nnfx_node *x;
    nnfx_graph *g = graph_x(&x);
    nnfx_node *s = op1(g, NNFX_OP_SIGMOID, x);
    nnfx_node *m = op2(g, NNFX_OP_MUL, nnfx_arg_node(x), nnfx_arg_node(s));
    nnfx_node *r = op1(g, NNFX_OP_RELU, s); /* outer user of the inner sigmoid */
    nnfx_node *outs[2] = {m, r};
    assert_non_null(nnfx_graph_output(g, 2, outs, NULL));
    int before = nnfx_graph_num_nodes(g);
    nnfx_match_list *l = explain(g, "mul(x, sigmoid(x)) -> hard_swish(x)", true);
    assert_int_equal(nnfx_match_list_count(l), 0);
    const nnfx_candidate *c = nnfx_match_list_candidate(l, 0);
    assert_int_equal(c->reason, NNFX_REJECT_OUTER_USER);
    assert_non_null(strstr(c->detail, "%sigmoid"));
    assert_non_null(strstr(c->detail, "%relu"));
    assert_int_equal(nnfx_graph_num_nodes(g), before);
    char *text = nnfx_rewrite_explain(l);
    assert_non_null(strstr(text, "%mul: rejected (outer user of an inner node)"));
    free(text);
    nnfx_match_list_free(l);
    nnfx_graph_free(g);
}

static void test_multi_output(void **state) {
    (void)state;
    nnfx_node *x;
    nnfx_graph *g = graph_x(&x);
    nnfx_node *r = op1(g, NNFX_OP_RELU, x);
    nnfx_node *n = op1(g, NNFX_OP_NEG, x);
    nnfx_node *add = op2(g, NNFX_OP_ADD, nnfx_arg_node(r), nnfx_arg_node(n));
    nnfx_node *outs[2] = {add, r};
    assert_non_null(nnfx_graph_output(g, 2, outs, NULL));
    nnfx_graph *ref = nnfx_graph_copy(g, NULL, NULL);
    nnfx_error err = {0};
    int k = nnfx_rewrite_text(g, "relu(x), neg(x) -> leaky_relu(x, alpha=0.0), mul(x, -1.0)", &err);
    if (k < 0) fail_msg("%s", err.msg);
    assert_int_equal(k, 1);
    assert_int_equal(count_op(g, NNFX_OP_RELU), 0);
    assert_int_equal(count_op(g, NNFX_OP_NEG), 0);
    assert_int_equal(count_op(g, NNFX_OP_LEAKY_RELU), 1);
    lint_ok(g);
    nnfx_tensor *in = random_vec(5, -3, 3);
    for (int o = 0; o < 2; o++) {
        nnfx_tensor *want = run_copy(ref, 1, &in, o), *got = run_copy(g, 1, &in, o);
        for (int64_t i = 0; i < nnfx_tensor_numel(want); i++)
            assert_true(fabs(nnfx_tensor_get(want, i) - nnfx_tensor_get(got, i)) < 1e-6);
        nnfx_tensor_release(want);
        nnfx_tensor_release(got);
    }
    nnfx_tensor_release(in);
    nnfx_graph_free(ref);
    nnfx_graph_free(g);
}

static void test_no_match(void **state) {
    (void)state;
    nnfx_node *x;
    nnfx_graph *g = graph_x(&x);
    out1(g, op1(g, NNFX_OP_TANH, x));
    nnfx_error err = {0};
    assert_int_equal(nnfx_rewrite_text(g, "relu(x) -> sigmoid(x)", &err), 0);
    assert_int_equal(nnfx_rewrite_text(g, "conv(x, w) -> relu(x)", &err), 0);
    nnfx_match_list *l = explain(g, "mul(x, sigmoid(x)) -> x", false);
    assert_int_equal(nnfx_match_list_count(l), 0);
    assert_int_equal(nnfx_match_list_num_candidates(l), 0);
    char *text = nnfx_rewrite_explain(l);
    assert_non_null(text);
    free(text);
    nnfx_match_list_free(l);
    /* an empty graph */
    nnfx_graph *e = nnfx_graph_new();
    assert_int_equal(nnfx_rewrite_text(e, "relu(x) -> sigmoid(x)", &err), 0);
    nnfx_graph_free(e);
    /* NULL arguments are errors, not crashes */
    assert_int_equal(nnfx_rewrite_text(NULL, "relu(x) -> x", &err), -1);
    assert_null(nnfx_find_matches(g, NULL, NULL, &err));
    assert_int_equal(err.status, NNFX_ERR_INVALID_ARG);
    nnfx_graph_free(g);
}

static bool reject_all(const nnfx_match *m, void *ctx) {
    (*(int *)ctx)++;
    return m == NULL;
}

static void test_filter_and_module_path(void **state) {
    (void)state;
    nnfx_node *x;
    nnfx_graph *g = graph_x(&x);
    nnfx_node *r = op1(g, NNFX_OP_RELU, x);
    nnfx_node_set_module_path(r, "layer1.act", NULL);
    nnfx_node_set_src(r, "model.c", 42);
    out1(g, r);
    nnfx_graph *pat, *rep;
    nnfx_error err = {0};
    assert_int_equal(nnfx_pattern_parse("relu(x) -> leaky_relu(x, alpha=0.1)", &pat, &rep, &err), NNFX_OK);
    int calls = 0;
    nnfx_match_list *l = nnfx_replace_pattern(g, pat, rep, reject_all, &calls, &err);
    assert_non_null(l);
    assert_int_equal(calls, 1);
    assert_int_equal(nnfx_match_list_count(l), 0);
    nnfx_match_list_free(l);
    l = nnfx_replace_pattern(g, pat, rep, NULL, NULL, &err);
    assert_int_equal(nnfx_match_list_count(l), 1);
    const nnfx_match *m = nnfx_match_list_at(l, 0);
    assert_null(m->anchor);
    assert_string_equal(m->anchor_name, "relu");
    assert_int_equal(m->nreplacements, 1);
    nnfx_node *lr = m->replacements[0];
    assert_true(nnfx_node_is_op(lr, NNFX_OP_LEAKY_RELU));
    assert_string_equal(nnfx_node_module_path(lr), "layer1.act");
    assert_int_equal(nnfx_node_src_line(lr), 42);
    assert_int_equal(nnfx_node_meta(lr, 0)->rank, 1); /* meta re-inferred */
    assert_int_equal(nnfx_node_meta(lr, 0)->dims[0].value, 64);
    assert_string_equal(nnfx_match_list_warning(l), "");
    nnfx_match_list_free(l);
    /* a replacement returning the wrong number of values is an error; g unchanged */
    nnfx_graph *rep2;
    nnfx_graph_free(pat);
    nnfx_graph_free(rep);
    assert_int_equal(nnfx_pattern_parse("leaky_relu(x) -> relu(x), relu(x)", &pat, &rep2, &err), NNFX_OK);
    int before = nnfx_graph_num_nodes(g);
    assert_null(nnfx_replace_pattern(g, pat, rep2, NULL, NULL, &err));
    assert_int_equal(err.status, NNFX_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "returns 1 value"));
    assert_int_equal(nnfx_graph_num_nodes(g), before);
    nnfx_graph_free(pat);
    nnfx_graph_free(rep2);
    nnfx_graph_free(g);
}

/* Patterns built with the C API: a get_attr pattern node and a multi-input op. */
static void test_c_api_pattern(void **state) {
    (void)state;
    nnfx_node *x;
    nnfx_graph *g = graph_x(&x);
    nnfx_tensor *w = random_vec(9, -1, 1);
    nnfx_graph_set_param(g, "w", w, NULL);
    nnfx_node *wn = nnfx_graph_get_attr(g, "w", NULL);
    nnfx_node *m = op2(g, NNFX_OP_MUL, nnfx_arg_node(wn), nnfx_arg_node(x));
    out1(g, m);
    nnfx_graph *pat = nnfx_graph_new();
    nnfx_node *px = nnfx_graph_placeholder(pat, "x", NULL, NULL);
    nnfx_graph_set_param(pat, "w", w, NULL);
    nnfx_node *pw = nnfx_graph_get_attr(pat, "w", NULL);
    out1(pat, op2(pat, NNFX_OP_MUL, nnfx_arg_node(px), nnfx_arg_node(pw)));
    nnfx_graph *rep = nnfx_graph_new();
    nnfx_node *rx = nnfx_graph_placeholder(rep, "x", NULL, NULL);
    nnfx_graph_set_param(rep, "w", w, NULL);
    nnfx_node *rw = nnfx_graph_get_attr(rep, "w", NULL);
    out1(rep, op2(rep, NNFX_OP_DIV, nnfx_arg_node(rx), nnfx_arg_node(rw)));
    nnfx_error err = {0};
    nnfx_match_list *l = nnfx_replace_pattern(g, pat, rep, NULL, NULL, &err);
    if (!l) fail_msg("%s", err.msg);
    assert_int_equal(nnfx_match_list_count(l), 1);
    assert_int_equal(count_op(g, NNFX_OP_DIV), 1);
    assert_int_equal(nnfx_graph_num_params(g), 1); /* same tensor, same name: shared */
    lint_ok(g);
    nnfx_match_list_free(l);
    nnfx_graph_free(pat);
    nnfx_graph_free(rep);
    nnfx_tensor_release(w);
    nnfx_graph_free(g);
}

/* 100,000 relus in a chain: relu(relu(x)) -> relu(x) halves it. Must be
 * fast and use no recursion. */
static void test_long_chain(void **state) {
    (void)state;
    nnfx_node *x;
    nnfx_graph *g = graph_x(&x);
    nnfx_node *cur = x;
    const int N = 100000;
    for (int i = 0; i < N; i++)
        cur = op1(g, NNFX_OP_RELU, cur);
    out1(g, cur);
    clock_t t0 = clock();
    nnfx_error err = {0};
    int k = nnfx_rewrite_text(g, "relu(relu(x)) -> relu(x)", &err);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    if (k < 0) fail_msg("%s", err.msg);
    assert_int_equal(k, N / 2);
    assert_int_equal(count_op(g, NNFX_OP_RELU), N / 2);
    print_message("100k-node chain: %d replacements in %.3f s\n", k, secs);
    assert_true(secs < 10.0);
    lint_ok(g);
    nnfx_graph_free(g);
}

/* --- parse errors ------------------------------------------------------------ */

static void expect_parse_error(const char *rule, const char *msg) {
    nnfx_graph *p = NULL, *r = NULL;
    nnfx_error err = {0};
    assert_int_equal(nnfx_pattern_parse(rule, &p, &r, &err), NNFX_ERR_PARSE);
    assert_null(p);
    assert_null(r);
    if (!strstr(err.msg, msg)) fail_msg("rule \"%s\": message \"%s\" lacks \"%s\"", rule, err.msg, msg);
}

static void test_parse_errors(void **state) {
    (void)state;
    expect_parse_error("mul(x,relu(x y)", "column 14: expected ')'");
    expect_parse_error("relu(x) -> leaky_relu(x, alpha=0.1", "column 35: expected ')'");
    expect_parse_error("frobnicate(x) -> x", "column 1: unknown op 'frobnicate'");
    expect_parse_error("relu(x) -> leaky_relu(x, beta=0.1)", "column 26: leaky_relu has no attribute 'beta'");
    expect_parse_error("relu(x, y) -> x", "column 1: relu takes 1 argument, got 2");
    expect_parse_error("relu(x) -> relu(z)", "column 17: 'z' is not a wildcard of the pattern");
    expect_parse_error("x -> relu(x)", "column 1: a pattern must return op calls");
    expect_parse_error("relu(x) ->", "column 11: unexpected end of the rule");
    expect_parse_error("relu(x) -> relu(x) -> relu(x)", "column 20: a rule has one '->'");
    expect_parse_error("relu(x) $", "column 9: expected '->' or the end");
    expect_parse_error("leaky_relu(x, alpha=[1)", "column 21");
    expect_parse_error("", "column 1: unexpected end");
    expect_parse_error("relu(x) -> leaky_relu(None)", "column 23: argument 0 of leaky_relu is required");
    nnfx_error err = {0};
    nnfx_node *x;
    nnfx_graph *g = graph_x(&x);
    out1(g, op1(g, NNFX_OP_RELU, x));
    assert_int_equal(nnfx_rewrite_text(g, "relu(x)", &err), -1);
    assert_int_equal(err.status, NNFX_ERR_PARSE);
    assert_non_null(strstr(err.msg, "expected '->'"));
    nnfx_graph_free(g);
    /* ONNX-style names, ints attributes, None, strings */
    nnfx_graph *p, *r;
    assert_int_equal(nnfx_pattern_parse("BatchNormalization(x, s, b, m, v, epsilon=0.001) -> x", &p, &r, &err),
                     NNFX_OK);
    assert_int_equal(nnfx_graph_num_inputs(p), 5);
    assert_int_equal(nnfx_graph_num_inputs(r), 5);
    nnfx_graph_free(p);
    nnfx_graph_free(r);
    assert_int_equal(nnfx_pattern_parse("transpose(x, perm=[1, 0]) -> pad(x, p, mode='reflect')", &p, &r, &err),
                     NNFX_ERR_PARSE); /* p is not a pattern wildcard */
    assert_int_equal(nnfx_pattern_parse("clip(x, None, 6)", &p, &r, &err), NNFX_OK);
    assert_null(r);
    nnfx_graph_free(p);
}

/* Random rules built from the language's tokens: parsing and applying
 * them must give a status, never a crash (run under ASan by tools/test.sh). */
static void test_fuzz_rules(void **state) {
    (void)state;
    static const char *toks[] = {"relu", "mul",  "add",  "sigmoid",  "x",          "y",   "(",  ")",
                                 ",",    "->",   "=",    "alpha",    "0.1",        "1",   "-2", "[",
                                 "]",    "None", "clip", "identity", "leaky_relu", "'s'", " "};
    const int ntok = (int)(sizeof toks / sizeof toks[0]);
    uint64_t s = 99;
    nnfx_node *x;
    nnfx_graph *g = graph_x(&x);
    nnfx_node *sg = op1(g, NNFX_OP_SIGMOID, x);
    nnfx_node *m = op2(g, NNFX_OP_MUL, nnfx_arg_node(x), nnfx_arg_node(sg));
    out1(g, op1(g, NNFX_OP_RELU, m));
    int parsed = 0;
    for (int it = 0; it < 3000; it++) {
        char rule[256];
        size_t off = 0;
        int n = 1 + (int)((s >> 40) % 14);
        static const char *valid[] = {"mul(x, sigmoid(x)) -> hard_swish(x)", "relu(x) -> leaky_relu(x, alpha=0.1)",
                                      "sigmoid(x) -> clip(x, 0.0, 1.0)", "identity(x) -> x",
                                      "relu(mul(x, y)), sigmoid(x) -> add(x, y), relu(y)"};
        if (it % 2) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            off = (size_t)snprintf(rule, sizeof rule, "%s", valid[(s >> 33) % 5]);
            for (int k = 0; k < 1 + it % 3; k++) { /* mutate: replace one character by a token */
                s = s * 6364136223846793005ull + 1442695040888963407ull;
                size_t at = (size_t)((s >> 20) % off);
                char tail[256];
                snprintf(tail, sizeof tail, "%s", rule + at + 1);
                off =
                    at + (size_t)snprintf(rule + at, sizeof rule - at, "%s%s", toks[(s >> 33) % (uint64_t)ntok], tail);
                if (off >= sizeof rule) off = sizeof rule - 1;
            }
        }
        for (int k = 0; !(it % 2) && k < n; k++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            off += (size_t)snprintf(rule + off, sizeof rule - off, "%s", toks[(s >> 33) % (uint64_t)ntok]);
        }
        nnfx_graph *p = NULL, *r = NULL;
        nnfx_error err = {0};
        nnfx_status st = nnfx_pattern_parse(rule, &p, &r, &err);
        if (st == NNFX_OK) {
            parsed++;
            if (r) {
                nnfx_graph *c = nnfx_graph_copy(g, NULL, NULL);
                nnfx_match_list *l = nnfx_replace_pattern(c, p, r, NULL, NULL, &err);
                if (l) lint_ok(c);
                nnfx_match_list_free(l);
                nnfx_graph_free(c);
            }
        } else {
            assert_true(err.msg[0] != 0);
        }
        nnfx_graph_free(p);
        nnfx_graph_free(r);
    }
    print_message("fuzz: %d of 3000 random rules parsed\n", parsed);
    nnfx_graph_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relu_to_leaky),
        cmocka_unit_test(test_sigmoid_to_clip),
        cmocka_unit_test(test_sigmoid_to_hard_sigmoid),
        cmocka_unit_test(test_swish_to_hard_swish),
        cmocka_unit_test(test_identity_removed),
        cmocka_unit_test(test_wildcard_binding),
        cmocka_unit_test(test_literals),
        cmocka_unit_test(test_attributes),
        cmocka_unit_test(test_commutative),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_outer_user),
        cmocka_unit_test(test_multi_output),
        cmocka_unit_test(test_no_match),
        cmocka_unit_test(test_filter_and_module_path),
        cmocka_unit_test(test_c_api_pattern),
        cmocka_unit_test(test_long_chain),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_fuzz_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
