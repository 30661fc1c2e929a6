"""Control-flow ONNX models (If, Loop) for `nnfx codegen`, built with
onnx.helper, each with a few input samples and the reference outputs
computed with numpy (independently of nnfx).

cases() yields (name, ModelProto, samples [S, ...], references [S, flat
outputs one after the other]); refused() yields (name, ModelProto, words
the exit-3 message must hold).
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def _vi(name, shape, dt=F):
    return helper.make_tensor_value_info(name, dt, shape)


def _model(name, nodes, x_shape, outs, inits=(), opset=17):
    g = helper.make_graph(nodes, name, [_vi("x", list(x_shape))], [_vi(n, list(s) if s is not None else None) for n, s in outs],
                          [numpy_helper.from_array(a, n) for n, a in inits])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def _const(name, value):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(value), name + "_v"))


def _if_model():
    """cond = ReduceSum(x) > 0; then: (Relu(x) * 2 + w, -x), else: (|x - 1|, x * 3); w is an outer
    initializer the then branch reads."""
    then_g = helper.make_graph([helper.make_node("Relu", ["x"], ["t0"]),
                                helper.make_node("Mul", ["t0", "two"], ["t1"]),
                                helper.make_node("Add", ["t1", "w"], ["a"]),
                                helper.make_node("Neg", ["x"], ["b"])],
                               "then", [], [_vi("a", [2, 3]), _vi("b", [2, 3])])
    else_g = helper.make_graph([helper.make_node("Sub", ["x", "one"], ["e0"]),
                                helper.make_node("Abs", ["e0"], ["a2"]),
                                helper.make_node("Mul", ["x", "three"], ["b2"])],
                               "else", [], [_vi("a2", [2, 3]), _vi("b2", [2, 3])])
    w = np.array([[0.5, -0.25, 1.0], [2.0, 0.0, -1.5]], np.float32)
    nodes = [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
             helper.make_node("Greater", ["s", "zero"], ["c"]),
             helper.make_node("If", ["c"], ["y0", "y1"], then_branch=then_g, else_branch=else_g)]
    inits = [("w", w), ("two", np.float32(2)), ("one", np.float32(1)), ("three", np.float32(3)),
             ("zero", np.float32(0))]
    m = _model("if_select", nodes, (2, 3), [("y0", (2, 3)), ("y1", (2, 3))], inits)
    rng = np.random.default_rng(7)
    xs = rng.standard_normal((4, 2, 3)).astype(np.float32)
    xs[0] = np.abs(xs[0]) + 0.1  # sum > 0: then
    xs[1] = -np.abs(xs[1]) - 0.1  # sum < 0: else
    xs[2, 0] = 5.0  # a mixed one of each
    xs[3, 0] = -5.0
    refs = []
    for x in xs:
        if x.sum() > 0:
            refs.append(np.concatenate([(np.maximum(x, 0) * 2 + w).ravel(), (-x).ravel()]))
        else:
            refs.append(np.concatenate([np.abs(x - 1).ravel(), (x * 3).ravel()]))
    assert xs[0].sum() > 0 and xs[1].sum() < 0 and xs[2].sum() > 0 and xs[3].sum() < 0
    return m, xs, np.array(refs, np.float32)


def _loop_body(nodes, outs, carried):
    ins = [_vi("i", [], TensorProto.INT64), _vi("cin", [], TensorProto.BOOL)] + carried
    return helper.make_graph(nodes, "body", ins, outs)


def _loop_model():
    """s = x; 5 times: s = s * 0.5 + 1, scan item s * x (x read from the outer scope); outputs the last s
    and the 5 items [5, 4]. The condition input is "", the body passes its condition on."""
    body = _loop_body([helper.make_node("Identity", ["cin"], ["cout"]),
                       helper.make_node("Mul", ["s", "half"], ["s1"]),
                       helper.make_node("Add", ["s1", "one"], ["s2"]),
                       helper.make_node("Mul", ["s2", "x"], ["item"])],
                      [_vi("cout", [], TensorProto.BOOL), _vi("s2", [4]), _vi("item", [4])], [_vi("s", [4])])
    nodes = [helper.make_node("Loop", ["M", "", "x"], ["y0", "y1"], body=body)]
    inits = [("M", np.array(5, np.int64)), ("half", np.float32(0.5)), ("one", np.float32(1))]
    m = _model("loop_state", nodes, (4,), [("y0", (4,)), ("y1", (5, 4))], inits)
    xs = np.array([[1.0, -2.0, 0.5, 8.0], [0.0, 3.0, -1.0, 2.5]], np.float32)
    refs = []
    for x in xs:
        s, items = x.copy(), []
        for _ in range(5):
            s = s * np.float32(0.5) + np.float32(1)
            items.append(s * x)
        refs.append(np.concatenate([s.ravel(), np.array(items).ravel()]))
    return m, xs, np.array(refs, np.float32)


def _loop_swap_model():
    """Two carried values swapped each trip with a condition that is a true constant input and a body
    that returns a constant true: (a, b) -> (b + 1, a * 2), 3 trips; a = x, b = 2 - x."""
    body = _loop_body([_const("t", np.array(True)),
                       helper.make_node("Add", ["b", "one"], ["a1"]),
                       helper.make_node("Mul", ["a", "two"], ["b1"])],
                      [_vi("t", [], TensorProto.BOOL), _vi("a1", [3]), _vi("b1", [3])],
                      [_vi("a", [3]), _vi("b", [3])])
    nodes = [helper.make_node("Sub", ["two", "x"], ["b0"]),
             helper.make_node("Loop", ["M", "T", "x", "b0"], ["y0", "y1"], body=body)]
    inits = [("M", np.array(3, np.int64)), ("T", np.array(True)), ("one", np.float32(1)), ("two", np.float32(2))]
    m = _model("loop_swap", nodes, (3,), [("y0", (3,)), ("y1", (3,))], inits)
    xs = np.array([[1.0, -2.0, 0.25]], np.float32)
    refs = []
    for x in xs:
        a, b = x.copy(), 2 - x
        for _ in range(3):
            a, b = b + 1, a * 2
        refs.append(np.concatenate([a, b]))
    return m, xs, np.array(refs, np.float32)


def _loop_if_model():
    """An If inside a Loop: s = x; 4 times: s = s * 0.5 if sum(s) > 2 else s + 1.5 (the condition is
    recomputed every trip from the carried value), the scan item the sum of s; outputs s [3] and the
    items [4, 1]."""
    then_g = helper.make_graph([helper.make_node("Mul", ["s", "half"], ["t0"])], "then", [], [_vi("t0", [3])])
    else_g = helper.make_graph([helper.make_node("Add", ["s", "onehalf"], ["e0"])], "else", [], [_vi("e0", [3])])
    body = _loop_body([helper.make_node("Identity", ["cin"], ["cout"]),
                       helper.make_node("ReduceSum", ["s"], ["sum"], keepdims=0),
                       helper.make_node("Greater", ["sum", "two"], ["c"]),
                       helper.make_node("If", ["c"], ["s1"], then_branch=then_g, else_branch=else_g),
                       helper.make_node("ReduceSum", ["s1"], ["item"], keepdims=1)],
                      [_vi("cout", [], TensorProto.BOOL), _vi("s1", [3]), _vi("item", [1])], [_vi("s", [3])])
    nodes = [helper.make_node("Loop", ["M", "", "x"], ["y0", "y1"], body=body)]
    inits = [("M", np.array(4, np.int64)), ("half", np.float32(0.5)), ("onehalf", np.float32(1.5)),
             ("two", np.float32(2))]
    m = _model("loop_if", nodes, (3,), [("y0", (3,)), ("y1", (4, 1))], inits)
    xs = np.array([[4.0, 3.0, 1.0], [-3.0, 0.5, -1.0]], np.float32)
    refs = []
    for x in xs:
        s, items = x.copy(), []
        for _ in range(4):
            s = s * np.float32(0.5) if s.sum() > 2 else s + np.float32(1.5)
            items.append(s.sum(keepdims=True))
        refs.append(np.concatenate([s, np.array(items).ravel()]))
    return m, xs, np.array(refs, np.float32)


def _scan_model():
    """Two Scans over x [5, 2] (axis 0). The first: s = c0, per row s = s + x_t, items s * x_t written
    forward and |s| written in reverse order (scan_output_directions); the second reads the rows in
    reverse (scan_input_directions) with w from the outer scope: s = s * w + x_t, item s."""
    body1 = helper.make_graph([helper.make_node("Add", ["s", "xt"], ["s1"]),
                               helper.make_node("Mul", ["s1", "xt"], ["p"]),
                               helper.make_node("Abs", ["s1"], ["a"])],
                              "body1", [_vi("s", [2]), _vi("xt", [2])],
                              [_vi("s1", [2]), _vi("p", [2]), _vi("a", [2])])
    body2 = helper.make_graph([helper.make_node("Mul", ["s", "w"], ["m"]),
                               helper.make_node("Add", ["m", "xt"], ["s1"]),
                               helper.make_node("Identity", ["s1"], ["item"])],
                              "body2", [_vi("s", [2]), _vi("xt", [2])], [_vi("s1", [2]), _vi("item", [2])])
    c0 = np.array([0.5, -1.0], np.float32)
    w = np.array([0.5, -0.75], np.float32)
    nodes = [helper.make_node("Scan", ["c0", "x"], ["y0", "y1", "y2"], body=body1, num_scan_inputs=1,
                              scan_output_directions=[0, 1]),
             helper.make_node("Scan", ["c0", "x"], ["y3", "y4"], body=body2, num_scan_inputs=1,
                              scan_input_directions=[1])]
    m = _model("scan", nodes, (5, 2), [("y0", (2,)), ("y1", (5, 2)), ("y2", (5, 2)), ("y3", (2,)), ("y4", (5, 2))],
               [("c0", c0), ("w", w)])
    xs = np.array([[[1, 2], [-3, 0.5], [0.25, -1], [2, 2], [-0.5, 4]]], np.float32)
    refs = []
    for x in xs:
        s, p, a = c0.copy(), [], []
        for t in range(5):
            s = s + x[t]
            p.append(s * x[t])
            a.append(np.abs(s))
        s2, items = c0.copy(), [None] * 5
        for t in range(4, -1, -1):
            s2 = s2 * w + x[t]
            items[4 - t] = s2  # items in the order of the trips
        refs.append(np.concatenate([s, np.ravel(p), np.ravel(a[::-1]), s2, np.ravel(items)]))
    return m, xs, np.array(refs, np.float32)


def _loop_iter_model():
    """A body that reads the trip number: s = x; 3 times: s = s * 0.5 + float(i) * x, the scan item
    float(i) (rank 0: the scan output is [3])."""
    body = _loop_body([helper.make_node("Identity", ["cin"], ["cout"]),
                       helper.make_node("Cast", ["i"], ["fi"], to=F),
                       helper.make_node("Mul", ["s", "half"], ["h"]),
                       helper.make_node("Mul", ["fi", "x"], ["ix"]),
                       helper.make_node("Add", ["h", "ix"], ["s1"]),
                       helper.make_node("Identity", ["fi"], ["item"])],
                      [_vi("cout", [], TensorProto.BOOL), _vi("s1", [4]), _vi("item", [])], [_vi("s", [4])])
    m = _model("loop_iter", [helper.make_node("Loop", ["M", "", "x"], ["y0", "y1"], body=body)], (4,),
               [("y0", (4,)), ("y1", (3,))], [("M", np.array(3, np.int64)), ("half", np.float32(0.5))])
    xs = np.array([[1.0, -2.0, 0.5, 3.0]], np.float32)
    refs = []
    for x in xs:
        s = x.copy()
        for i in range(3):
            s = s * np.float32(0.5) + np.float32(i) * x
        refs.append(np.concatenate([s, np.arange(3, dtype=np.float32)]))
    return m, xs, np.array(refs, np.float32)


def _nested_loop_model():
    """A Loop inside a Loop whose inner body reads the outer carried value and the outer trip number:
    s = x; 3 times (i): t = s; 2 times (j): t = t * 0.5 + float(i); s = t + s, scan item t [4];
    outputs s [4] and the items [3, 4]; the inner loop's items (float(j) + t) go to an inner scan
    output [2, 4] summed over its first axis into the outer state."""
    inner = helper.make_graph([helper.make_node("Identity", ["cin2"], ["cout2"]),
                               helper.make_node("Mul", ["t", "half"], ["th"]),
                               helper.make_node("Cast", ["i"], ["fi"], to=F),
                               helper.make_node("Add", ["th", "fi"], ["t1"]),
                               helper.make_node("Cast", ["j"], ["fj"], to=F),
                               helper.make_node("Add", ["t1", "fj"], ["it"])],
                              "inner", [_vi("j", [], TensorProto.INT64), _vi("cin2", [], TensorProto.BOOL),
                                        _vi("t", [4])],
                              [_vi("cout2", [], TensorProto.BOOL), _vi("t1", [4]), _vi("it", [4])])
    body = _loop_body([helper.make_node("Identity", ["cin"], ["cout"]),
                       helper.make_node("Loop", ["M2", "", "s"], ["tt", "items"], body=inner),
                       helper.make_node("ReduceSum", ["items"], ["isum"], axes=[0], keepdims=0),
                       helper.make_node("Add", ["tt", "s"], ["s0"]),
                       helper.make_node("Add", ["s0", "isum"], ["s1"])],
                      [_vi("cout", [], TensorProto.BOOL), _vi("s1", [4]), _vi("tt", [4])], [_vi("s", [4])])
    m = _model("nested_loop", [helper.make_node("Loop", ["M", "", "x"], ["y0", "y1"], body=body)], (4,),
               [("y0", (4,)), ("y1", (3, 4))],
               [("M", np.array(3, np.int64)), ("M2", np.array(2, np.int64)), ("half", np.float32(0.5))], opset=11)
    xs = np.array([[1.0, -2.0, 0.5, 3.0]], np.float32)
    refs = []
    for x in xs:
        s, outer_items = x.copy(), []
        for i in range(3):
            t, isum = s.copy(), np.zeros(4, np.float32)
            for j in range(2):
                t = t * np.float32(0.5) + np.float32(i)
                isum = isum + (t + np.float32(j))
            s = t + s + isum
            outer_items.append(t)
        refs.append(np.concatenate([s, np.ravel(outer_items)]))
    return m, xs, np.array(refs, np.float32)


def _if_reshape_model():
    """A branch that reads an int64 constant of the outer graph (Reshape's shape): then x.reshape(3, 2),
    else x.T, on sum(x) > 0."""
    then_g = helper.make_graph([helper.make_node("Reshape", ["x", "shp"], ["a"])], "then", [], [_vi("a", [3, 2])])
    else_g = helper.make_graph([helper.make_node("Transpose", ["x"], ["b"])], "else", [], [_vi("b", [3, 2])])
    m = _model("if_reshape", [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
                              helper.make_node("Greater", ["s", "zero"], ["c"]),
                              helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
               (2, 3), [("y", (3, 2))], [("shp", np.array([3, 2], np.int64)), ("zero", np.float32(0))])
    xs = np.array([[[1, 2, 3], [4, 5, 6]], [[-1, -2, -3], [4, -5, 0.5]]], np.float32)
    refs = [(x.reshape(3, 2) if x.sum() > 0 else x.T).ravel() for x in xs]
    return m, xs, np.array(refs, np.float32)


def _loop_cond_ignored_model():
    """M = 4 and no condition operand: the body's computed condition (sum < 3) is ignored (ONNX's for
    loop), s = s + 1 four times."""
    body = _loop_body([helper.make_node("Add", ["s", "one"], ["s1"]),
                       helper.make_node("ReduceSum", ["s1"], ["sum"], keepdims=0),
                       helper.make_node("Less", ["sum", "three"], ["cout"])],
                      [_vi("cout", [], TensorProto.BOOL), _vi("s1", [4])], [_vi("s", [4])])
    m = _model("loop_cond_ignored", [helper.make_node("Loop", ["M", "", "x"], ["y"], body=body)], (4,),
               [("y", (4,))], [("one", np.float32(1)), ("three", np.float32(3)), ("M", np.array(4, np.int64))])
    xs = np.array([[1.0, -2.0, 0.5, 3.0]], np.float32)
    return m, xs, xs + np.float32(4)


def cases():
    for name, make in (("if_select", _if_model), ("loop_state", _loop_model), ("loop_swap", _loop_swap_model),
                       ("loop_if", _loop_if_model), ("scan", _scan_model), ("loop_iter", _loop_iter_model),
                       ("nested_loop", _nested_loop_model), ("if_reshape", _if_reshape_model),
                       ("loop_cond_ignored", _loop_cond_ignored_model)):
        m, xs, refs = make()
        yield name, m, xs, refs


def refused():
    # a trip count computed from the input (ArgMax): the loop's length is known only at run time
    body = _loop_body([helper.make_node("Identity", ["cin"], ["cout"]),
                       helper.make_node("Add", ["s", "one"], ["s1"])],
                      [_vi("cout", [], TensorProto.BOOL), _vi("s1", [4])], [_vi("s", [4])])
    m = _model("loop_rt", [helper.make_node("ArgMax", ["x"], ["M"], keepdims=0),
                           helper.make_node("Loop", ["M", "", "x"], ["y"], body=body)],
               (4,), [("y", (4,))], [("one", np.float32(1))])
    yield "loop_runtime_trips", m, ["(loop)", "trip count is computed at run time"]
    # no trip count: runs while a condition computed in the body holds
    body = _loop_body([helper.make_node("Add", ["s", "one"], ["s1"]),
                       helper.make_node("ReduceSum", ["s1"], ["sum"], keepdims=0),
                       helper.make_node("Less", ["sum", "ten"], ["cout"])],
                      [_vi("cout", [], TensorProto.BOOL), _vi("s1", [4])], [_vi("s", [4])])
    m = _model("loop_while", [helper.make_node("Loop", ["", "T", "x"], ["y"], body=body)], (4,), [("y", (4,))],
               [("one", np.float32(1)), ("ten", np.float32(10)), ("T", np.array(True))])
    yield "loop_no_trip_count", m, ["(loop)", "no trip count"]
    # a constant trip count and a condition, but the body may stop the loop early
    body = _loop_body([helper.make_node("Add", ["s", "one"], ["s1"]),
                       helper.make_node("ReduceSum", ["s1"], ["sum"], keepdims=0),
                       helper.make_node("Less", ["sum", "ten"], ["cout"])],
                      [_vi("cout", [], TensorProto.BOOL), _vi("s1", [4])], [_vi("s", [4])])
    m = _model("loop_early", [helper.make_node("Loop", ["M", "T", "x"], ["y"], body=body)], (4,), [("y", (4,))],
               [("one", np.float32(1)), ("ten", np.float32(10)), ("M", np.array(6, np.int64)),
                ("T", np.array(True))])
    yield "loop_early_exit", m, ["(loop)", "loop condition at run time"]
    # branches of different shapes: the output's shape is known only at run time
    then_g = helper.make_graph([helper.make_node("Identity", ["x"], ["a"])], "then", [], [_vi("a", [2, 3])])
    else_g = helper.make_graph([helper.make_node("ReduceSum", ["x"], ["b"], keepdims=0, axes=[1])], "else", [],
                               [_vi("b", [2])])
    m = _model("if_shapes", [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
                             helper.make_node("Greater", ["s", "zero"], ["c"]),
                             helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
               (2, 3), [("y", None)], [("zero", np.float32(0))], opset=11)
    yield "if_branch_shapes", m, ["(if)", "different shapes"]
    # a Scan over axis 1: only axis 0 is generated
    body = helper.make_graph([helper.make_node("Add", ["s", "xt"], ["s1"]), helper.make_node("Identity", ["s1"], ["o"])],
                             "body", [_vi("s", [2]), _vi("xt", [2])], [_vi("s1", [2]), _vi("o", [2])])
    m = _model("scan_ax1", [helper.make_node("Scan", ["c0", "x"], ["y0", "y1"], body=body, num_scan_inputs=1,
                                             scan_input_axes=[1])],
               (2, 3), [("y0", (2,)), ("y1", (3, 2))], [("c0", np.zeros(2, np.float32))])
    yield "scan_axis1", m, ["(scan)", "scan axes other than 0"]
