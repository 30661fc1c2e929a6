"""Control-flow ONNX models (If, Loop) for `nnfx codegen`, built with
onnx.helper, each with a few input samples and the reference outputs
computed with numpy (independently of nnfx).

cases() yields (name, ModelProto, samples [S, ...] (or a list of them, one
per model input), references [S, flat outputs one after the other, as
float32]); refused() yields (name, ModelProto, words
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


def _loop_runtime_trips_model():
    """A trip count computed from the input: M = ArgMax(x) (int64), no condition operand; s = x, M times
    s = s + 1 (x [4]: 0 to 3 trips)."""
    body = _loop_body([helper.make_node("Identity", ["cin"], ["cout"]),
                       helper.make_node("Add", ["s", "one"], ["s1"])],
                      [_vi("cout", [], TensorProto.BOOL), _vi("s1", [4])], [_vi("s", [4])])
    m = _model("loop_rt", [helper.make_node("ArgMax", ["x"], ["M"], keepdims=0),
                           helper.make_node("Loop", ["M", "", "x"], ["y"], body=body)],
               (4,), [("y", (4,))], [("one", np.float32(1))])
    xs = np.array([[5.0, 1.0, 2.0, 0.5], [0.0, 3.0, -1.0, 2.5], [1.0, 2.0, 3.0, 4.0], [-1.0, -1.0, -2.0, -1.0]],
                  np.float32)
    refs = [x + np.float32(int(np.argmax(x))) for x in xs]
    return m, xs, np.array(refs, np.float32)


def _while_body():
    """s1 = s + 1, cout = sum(s1) < 10."""
    return _loop_body([helper.make_node("Add", ["s", "one"], ["s1"]),
                       helper.make_node("ReduceSum", ["s1"], ["sum"], keepdims=0),
                       helper.make_node("Less", ["sum", "ten"], ["cout"])],
                      [_vi("cout", [], TensorProto.BOOL), _vi("s1", [4])], [_vi("s", [4])])


def _while_ref(x, max_trips):
    s, cond, it = x.copy(), True, 0
    while it < max_trips and cond:
        s = s + np.float32(1)
        cond = bool(s.sum() < 10)
        it += 1
    return s


def _loop_while_model():
    """No trip count: runs while the condition the body computes holds (sum(s) < 10), a true initial
    condition."""
    m = _model("loop_while", [helper.make_node("Loop", ["", "T", "x"], ["y"], body=_while_body())], (4,), [("y", (4,))],
               [("one", np.float32(1)), ("ten", np.float32(10)), ("T", np.array(True))])
    xs = np.array([[1.0, -2.0, 0.5, 3.0], [4.0, 4.0, 4.0, 4.0], [0.0, 0.0, 0.0, 1.0]], np.float32)
    return m, xs, np.array([_while_ref(x, 1 << 30) for x in xs], np.float32)


def _loop_early_model():
    """A constant trip count 6 and a condition the body computes: it may stop before 6 trips."""
    m = _model("loop_early", [helper.make_node("Loop", ["M", "T", "x"], ["y"], body=_while_body())], (4,),
               [("y", (4,))], [("one", np.float32(1)), ("ten", np.float32(10)), ("M", np.array(6, np.int64)),
                               ("T", np.array(True))])
    xs = np.array([[1.0, -2.0, 0.5, 3.0], [-10.0, -4.0, 0.0, 1.0], [4.0, 4.0, 4.0, 4.0]], np.float32)
    return m, xs, np.array([_while_ref(x, 6) for x in xs], np.float32)


def _loop_cast_cond_model():
    """Trip count and initial condition computed at run time: M = Cast<int64>(sum|x|) (truncated),
    cond = max(x) > 0; the body reads the trip number and its condition input (an If on it, always
    true inside the loop): s = s * 0.5 + float(i); the body's condition is its input."""
    then_g = helper.make_graph([helper.make_node("Mul", ["s", "half"], ["t0"])], "then", [], [_vi("t0", [3])])
    else_g = helper.make_graph([helper.make_node("Mul", ["s", "hundred"], ["e0"])], "else", [], [_vi("e0", [3])])
    body = _loop_body([helper.make_node("Identity", ["cin"], ["cout"]),
                       helper.make_node("If", ["cin"], ["h"], then_branch=then_g, else_branch=else_g),
                       helper.make_node("Cast", ["i"], ["fi"], to=F),
                       helper.make_node("Add", ["h", "fi"], ["s1"])],
                      [_vi("cout", [], TensorProto.BOOL), _vi("s1", [3])], [_vi("s", [3])])
    nodes = [helper.make_node("Abs", ["x"], ["ax"]),
             helper.make_node("ReduceSum", ["ax"], ["sa"], keepdims=0),
             helper.make_node("Cast", ["sa"], ["M"], to=TensorProto.INT64),
             helper.make_node("ReduceMax", ["x"], ["mx"], keepdims=0),
             helper.make_node("Greater", ["mx", "zero"], ["c"]),
             helper.make_node("Loop", ["M", "c", "x"], ["y"], body=body)]
    m = _model("loop_cast_cond", nodes, (3,), [("y", (3,))],
               [("half", np.float32(0.5)), ("hundred", np.float32(100)), ("zero", np.float32(0))])
    xs = np.array([[1.5, -2.25, 0.5], [-1.0, -2.0, -0.5], [0.25, 0.25, 0.25], [3.0, 1.0, 0.9]], np.float32)
    refs = []
    for x in xs:
        s = x.copy()
        trips = int(np.abs(x).sum()) if x.max() > 0 else 0
        for i in range(trips):
            s = s * np.float32(0.5) + np.float32(i)
        refs.append(s)
    return m, xs, np.array(refs, np.float32)


def _scan_axes_model():
    """Scan along other axes than 0: x [2, 5, 3] scanned along axis 1 forward and (as axis -2) in
    reverse; s = c0 + the rows, items s * (the reversed rows) stacked along axis 2 and |s| stacked along
    axis 0 in reverse order."""
    body = helper.make_graph([helper.make_node("Add", ["s", "xt"], ["s1"]),
                              helper.make_node("Mul", ["s1", "xr"], ["p"]),
                              helper.make_node("Abs", ["s1"], ["a"])],
                             "body", [_vi("s", [2, 3]), _vi("xt", [2, 3]), _vi("xr", [2, 3])],
                             [_vi("s1", [2, 3]), _vi("p", [2, 3]), _vi("a", [2, 3])])
    c0 = np.array([[0.5, -1.0, 0.25], [2.0, 0.0, -0.5]], np.float32)
    m = _model("scan_axes", [helper.make_node("Scan", ["c0", "x", "x"], ["y0", "y1", "y2"], body=body,
                                              num_scan_inputs=2, scan_input_axes=[1, -2],
                                              scan_input_directions=[0, 1], scan_output_axes=[2, 0],
                                              scan_output_directions=[0, 1])],
               (2, 5, 3), [("y0", (2, 3)), ("y1", (2, 3, 5)), ("y2", (5, 2, 3))], [("c0", c0)])
    rng = np.random.default_rng(3)
    xs = rng.standard_normal((2, 2, 5, 3)).astype(np.float32)
    refs = []
    for x in xs:
        s, p, a = c0.copy(), [], []
        for t in range(5):
            s = s + x[:, t, :]
            p.append(s * x[:, 4 - t, :])
            a.append(np.abs(s))
        refs.append(np.concatenate([s.ravel(), np.stack(p, axis=2).ravel(), np.stack(a[::-1], axis=0).ravel()]))
    return m, xs, np.array(refs, np.float32)


def _scan_axis_unit_model():
    """Scan along axis 1 of x [1, 4, 2] (the rows lie in place: nothing before the axis), the items
    stacked along axis 1 of the output [1, 4, 2] (in place too): a running sum."""
    body = helper.make_graph([helper.make_node("Add", ["s", "xt"], ["s1"]), helper.make_node("Identity", ["s1"], ["o"])],
                             "body", [_vi("s", [1, 2]), _vi("xt", [1, 2])], [_vi("s1", [1, 2]), _vi("o", [1, 2])])
    m = _model("scan_axis_unit", [helper.make_node("Reshape", ["x", "shp"], ["x3"]),
                                  helper.make_node("Scan", ["c0", "x3"], ["y0", "y1"], body=body, num_scan_inputs=1,
                                                   scan_input_axes=[1], scan_output_axes=[1])],
               (4, 2), [("y0", (1, 2)), ("y1", (1, 4, 2))],
               [("c0", np.zeros((1, 2), np.float32)), ("shp", np.array([1, 4, 2], np.int64))])
    xs = np.array([[[1, 2], [-3, 0.5], [0.25, -1], [2, 2]]], np.float32)
    refs = []
    for x in xs:
        cs = np.cumsum(x, axis=0)
        refs.append(np.concatenate([cs[-1], cs.ravel()]))
    return m, xs, np.array(refs, np.float32)


def _loop_io_model():
    """Model inputs and outputs that are not float32: the trip count M (int64) and the initial
    condition (bool) are model inputs; s = x, up to M times while the condition holds: s = s * 0.5 + 1,
    the body's condition sum(s) > 2; outputs s (float32), ArgMax(s) (int64), s > 1.25 (bool) and M as
    float32 (a Cast of the int64 model input).
    xs is one array per input, in the model's order (M, cond, x)."""
    body = _loop_body([helper.make_node("Mul", ["s", "half"], ["h"]),
                       helper.make_node("Add", ["h", "one"], ["s1"]),
                       helper.make_node("ReduceSum", ["s1"], ["sum"], keepdims=0),
                       helper.make_node("Greater", ["sum", "two"], ["cout"])],
                      [_vi("cout", [], TensorProto.BOOL), _vi("s1", [3])], [_vi("s", [3])])
    nodes = [helper.make_node("Loop", ["M", "cond", "x"], ["y"], body=body),
             helper.make_node("ArgMax", ["y"], ["am"], keepdims=0),
             helper.make_node("Greater", ["y", "thr"], ["big"]),
             helper.make_node("Cast", ["M"], ["mf"], to=F)]
    g = helper.make_graph(nodes, "loop_io", [_vi("M", [], TensorProto.INT64), _vi("cond", [], TensorProto.BOOL),
                                             _vi("x", [3])],
                          [_vi("y", [3]), _vi("am", [], TensorProto.INT64), _vi("big", [3], TensorProto.BOOL),
                           _vi("mf", [])],
                          [numpy_helper.from_array(np.float32(v), n) for n, v in
                           (("half", 0.5), ("one", 1), ("two", 2), ("thr", 1.25))])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    ms = np.array([5, 0, 3, 7], np.int64)
    cs = np.array([True, True, False, True])
    xs = np.array([[8.0, -2.0, 4.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [0.5, 9.0, -1.0]], np.float32)
    refs = []
    for mt, c, x in zip(ms, cs, xs):
        s, it = x.copy(), 0
        while it < mt and c:
            s = s * np.float32(0.5) + np.float32(1)
            c = bool(s.sum() > 2)
            it += 1
        refs.append(np.concatenate([s, [np.float32(np.argmax(s))], (s > 1.25).astype(np.float32), [np.float32(mt)]]))
    return m, [ms, cs, xs], np.array(refs, np.float32)


def _loop_resize_model():
    """Working memory past the arena inside a body: 2 trips of s = AveragePool2x2(linear Resize 2x(s)) * 0.9
    on [1, 1, 2, 3] (the resize's two passes go through two buffers); the numpy reference resamples with
    op_cases._resample."""
    import op_cases
    body = _loop_body([helper.make_node("Identity", ["cin"], ["cout"]),
                       helper.make_node("Resize", ["s", "", "sc"], ["u"], mode="linear"),
                       helper.make_node("AveragePool", ["u"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
                       helper.make_node("Mul", ["p", "k"], ["s1"])],
                      [_vi("cout", [], TensorProto.BOOL), _vi("s1", [1, 1, 2, 3])], [_vi("s", [1, 1, 2, 3])])
    m = _model("loop_resize", [helper.make_node("Loop", ["M", "", "x"], ["y"], body=body)], (1, 1, 2, 3),
               [("y", (1, 1, 2, 3))], [("M", np.array(2, np.int64)), ("sc", np.array([1, 1, 2, 2], np.float32)),
                                       ("k", np.float32(0.9))])
    xs = np.array([[[[[1.0, -2.0, 0.5], [3.0, 4.0, -1.0]]]], [[[[0.5, 0.25, -3.0], [2.0, -1.0, 1.5]]]]], np.float32)
    refs = []
    for x in xs:
        s = x.copy()
        for _ in range(2):
            u = op_cases._resample(s, (1, 1, 4, 6), lambda o, i, n: (o + 0.5) * i / n - 0.5, "linear")
            s = u.reshape(1, 1, 2, 2, 3, 2).mean(axis=(3, 5)) * np.float32(0.9)
        refs.append(s.ravel())
    return m, xs, np.array(refs, np.float32)


def _loop_unrolled_model():
    """Shapes that change from trip to trip (generated C unrolls the loops): an outer Loop (3 trips, a
    constant true condition its body passes on) grows a carried value by a row per trip (Concat), and an
    inner Loop (2 trips) slices x at the sum of both trip numbers, x[i+j : i+j+1]:
    acc = x[0:1], s = x[0:1]; for i: t = s; for j: t = t * 0.5 + x[i+j : i+j+1]; acc = [acc, t]; s = t,
    scan item t. Outputs acc [4], s [1], the items [3, 1]."""
    I64 = TensorProto.INT64
    inner = helper.make_graph([helper.make_node("Identity", ["cin2"], ["cout2"]),
                               helper.make_node("Add", ["i", "j"], ["st"]),
                               helper.make_node("Add", ["st", "one_i"], ["en"]),
                               helper.make_node("Unsqueeze", ["st", "ax0"], ["st1"]),
                               helper.make_node("Unsqueeze", ["en", "ax0"], ["en1"]),
                               helper.make_node("Slice", ["x", "st1", "en1"], ["sl"]),
                               helper.make_node("Mul", ["t", "half"], ["th"]),
                               helper.make_node("Add", ["th", "sl"], ["t1"])],
                              "inner", [_vi("j", [], I64), _vi("cin2", [], TensorProto.BOOL), _vi("t", [1])],
                              [_vi("cout2", [], TensorProto.BOOL), _vi("t1", [1])])
    body = _loop_body([helper.make_node("Identity", ["cin"], ["cout"]),
                       helper.make_node("Loop", ["M2", "", "s"], ["tt"], body=inner),
                       helper.make_node("Concat", ["acc", "tt"], ["acc1"], axis=0),
                       helper.make_node("Identity", ["tt"], ["item"])],
                      [_vi("cout", [], TensorProto.BOOL), _vi("acc1", None), _vi("tt", [1]), _vi("item", [1])],
                      [_vi("acc", None), _vi("s", [1])])
    nodes = [helper.make_node("Slice", ["x", "zero_i", "one_i"], ["x0"]),
             helper.make_node("Loop", ["M", "T", "x0", "x0"], ["y0", "y1", "y2"], body=body)]
    inits = [("M", np.array(3, np.int64)), ("M2", np.array(2, np.int64)), ("T", np.array(True)),
             ("half", np.float32(0.5)), ("zero_i", np.array([0], np.int64)), ("one_i", np.array([1], np.int64)),
             ("ax0", np.array([0], np.int64))]
    m = _model("loop_unrolled", nodes, (4,), [("y0", None), ("y1", (1,)), ("y2", None)], inits)
    xs = np.array([[1.0, -2.0, 0.5, 3.0], [0.25, 4.0, -1.5, 2.0]], np.float32)
    refs = []
    for x in xs:
        acc, s, items = x[0:1].copy(), x[0:1].copy(), []
        for i in range(3):
            t = s.copy()
            for j in range(2):
                t = t * np.float32(0.5) + x[i + j:i + j + 1]
            acc, s = np.concatenate([acc, t]), t
            items.append(t)
        refs.append(np.concatenate([acc, s, np.ravel(items)]))
    return m, xs, np.array(refs, np.float32)


def _typed_results_model():
    """Results of other types than float32: a Loop (4 trips) carrying an int64 count, a bool flag and a
    float32 state, with an int64 scan output; an If returning an int64 ArgMax or ArgMin. Per trip:
    s = s * 0.5 + 1; pos = sum(s) > 3; done = done or pos; count += pos; item = argmax(s). Outputs count
    [1] int64, done bool, s [4], the items [4, 1] int64, and (sum(x) > 0 ? argmax(x) : argmin(x)) int64."""
    I64, B = TensorProto.INT64, TensorProto.BOOL
    body = helper.make_graph([helper.make_node("Identity", ["cin"], ["cout"]),
                              helper.make_node("Mul", ["s", "half"], ["sh"]),
                              helper.make_node("Add", ["sh", "one"], ["s1"]),
                              helper.make_node("ReduceSum", ["s1"], ["sum"], keepdims=0),
                              helper.make_node("Greater", ["sum", "three"], ["pos"]),
                              helper.make_node("Or", ["done", "pos"], ["done1"]),
                              helper.make_node("Cast", ["pos"], ["posi"], to=I64),
                              helper.make_node("Add", ["cnt", "posi"], ["cnt1"]),
                              helper.make_node("ArgMax", ["s1"], ["item"], axis=0, keepdims=1)],
                             "body", [_vi("i", [], I64), _vi("cin", [], B), _vi("cnt", [1], I64), _vi("done", [], B),
                                      _vi("s", [4])],
                             [_vi("cout", [], B), _vi("cnt1", [1], I64), _vi("done1", [], B), _vi("s1", [4]),
                              _vi("item", [1], I64)])
    then_g = helper.make_graph([helper.make_node("ArgMax", ["x"], ["t"], axis=0, keepdims=0)], "then", [],
                               [_vi("t", [], I64)])
    else_g = helper.make_graph([helper.make_node("ArgMin", ["x"], ["e"], axis=0, keepdims=0)], "else", [],
                               [_vi("e", [], I64)])
    nodes = [helper.make_node("Loop", ["M", "", "c0", "d0", "x"], ["y0", "y1", "y2", "y3"], body=body),
             helper.make_node("ReduceSum", ["x"], ["xs"], keepdims=0),
             helper.make_node("Greater", ["xs", "zero"], ["g"]),
             helper.make_node("If", ["g"], ["y4"], then_branch=then_g, else_branch=else_g)]
    inits = [("M", np.array(4, np.int64)), ("c0", np.array([0], np.int64)), ("d0", np.array(False)),
             ("half", np.float32(0.5)), ("one", np.float32(1)), ("three", np.float32(3)), ("zero", np.float32(0))]
    g = helper.make_graph(nodes, "typed_results", [_vi("x", [4])],
                          [_vi("y0", [1], I64), _vi("y1", [], B), _vi("y2", [4]), _vi("y3", [4, 1], I64),
                           _vi("y4", [], I64)],
                          [numpy_helper.from_array(a, n) for n, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    xs = np.array([[-6.0, -9.0, 0.5, -4.0], [1.0, -2.0, 0.5, 3.0]], np.float32)
    refs = []
    for x in xs:
        s, cnt, done, items = x.copy(), 0, False, []
        for _ in range(4):
            s = s * np.float32(0.5) + np.float32(1)
            pos = bool(s.sum() > 3)
            done, cnt = done or pos, cnt + int(pos)
            items.append(int(np.argmax(s)))
        pick = np.argmax(x) if x.sum() > 0 else np.argmin(x)
        refs.append(np.concatenate([[cnt], [float(done)], s, items, [pick]]))
    return m, xs, np.array(refs, np.float32)


def _loop_no_trips_model():
    """A Loop of 0 trips whose carried value would grow by a row per trip (torch.cat in a loop over
    range(1, 1)) and whose scan items are [4]: the outputs are x[0:1] and no items ([0, 4])."""
    body = _loop_body([helper.make_node("Identity", ["cin"], ["cout"]),
                       helper.make_node("Concat", ["acc", "acc"], ["acc1"], axis=0),
                       helper.make_node("Identity", ["x"], ["item"])],
                      [_vi("cout", [], TensorProto.BOOL), _vi("acc1", None), _vi("item", [4])], [_vi("acc", None)])
    nodes = [helper.make_node("Slice", ["x", "zero_i", "one_i"], ["x0"]),
             helper.make_node("Loop", ["M", "", "x0"], ["y0", "y1"], body=body)]
    m = _model("loop_no_trips", nodes, (4,), [("y0", None), ("y1", None)],
               [("M", np.array(0, np.int64)), ("zero_i", np.array([0], np.int64)),
                ("one_i", np.array([1], np.int64))])
    xs = np.array([[1.0, -2.0, 0.5, 3.0], [0.25, 4.0, -1.5, 2.0]], np.float32)
    return m, xs, np.array([x[0:1] for x in xs], np.float32)


def _loop_append_model():
    """torch.cat in a loop of 1100 trips (more than generated C unrolls), a true condition operand the
    body returns: acc grows from [0, 4] by the row x * i, bcc from x by the two rows x * i and x + i. The
    outputs are acc [1100, 4] and bcc [2201, 4]."""
    I64 = TensorProto.INT64
    body = helper.make_graph([helper.make_node("Identity", ["cin"], ["cout"]),
                              helper.make_node("Cast", ["i"], ["fi"], to=F),
                              helper.make_node("Mul", ["x", "fi"], ["xi"]),
                              helper.make_node("Unsqueeze", ["xi", "ax0"], ["u"]),
                              helper.make_node("Concat", ["acc", "u"], ["acc1"], axis=0),
                              helper.make_node("Add", ["x", "fi"], ["x1"]),
                              helper.make_node("Unsqueeze", ["x1", "ax0"], ["u2"]),
                              helper.make_node("Concat", ["u", "u2"], ["pair"], axis=0),
                              helper.make_node("Concat", ["bcc", "pair"], ["bcc1"], axis=0)],
                             "body", [_vi("i", [], I64), _vi("cin", [], TensorProto.BOOL), _vi("acc", None),
                                      _vi("bcc", None)],
                             [_vi("cout", [], TensorProto.BOOL), _vi("acc1", None), _vi("bcc1", None)])
    nodes = [helper.make_node("Unsqueeze", ["x", "ax0"], ["x0"]),
             helper.make_node("Loop", ["M", "yes", "empty", "x0"], ["y0", "y1"], body=body)]
    m = _model("loop_append", nodes, (4,), [("y0", None), ("y1", None)],
               [("M", np.array(1100, np.int64)), ("yes", np.array(True)), ("ax0", np.array([0], np.int64)),
                ("empty", np.zeros((0, 4), np.float32))])
    xs = np.array([[1.0, -2.0, 0.5, 3.0], [0.25, 4.0, -1.5, 2.0]], np.float32)
    refs = []
    for x in xs:
        acc, bcc = np.zeros((0, 4), np.float32), x[None]
        for i in range(1100):
            u = (x * np.float32(i))[None]
            acc = np.concatenate([acc, u])
            bcc = np.concatenate([bcc, u, (x + np.float32(i))[None]])
        refs.append(np.concatenate([acc.ravel(), bcc.ravel()]))
    return m, xs, np.array(refs, np.float32)


def _loop_append_edges_model():
    """Three loops growing a carried value by torch.cat, each a corner of the rewrite to a scan output:
    3 trips appending the captured outer value x (unsqueezed) after two rows of ones, 0 trips of
    appending a row (the result is the empty initial value [0, 4]), and 1200 trips under a false
    constant condition (no trip: the result is the initial value x [1, 4]). Outputs [5, 4], [0, 4] and
    [1, 4]."""
    I64, B = TensorProto.INT64, TensorProto.BOOL

    def body(nodes, piece):
        return helper.make_graph([helper.make_node("Identity", ["cin"], ["cout"])] + nodes +
                                 [helper.make_node("Concat", ["acc", piece], ["acc1"], axis=0)], "body",
                                 [_vi("i", [], I64), _vi("cin", [], B), _vi("acc", None)],
                                 [_vi("cout", [], B), _vi("acc1", None)])
    nodes = [helper.make_node("Unsqueeze", ["x", "ax0"], ["xu"]),
             helper.make_node("Loop", ["three", "", "ones"], ["y0"], body=body([], "xu")),
             helper.make_node("Loop", ["zero", "", "empty"], ["y1"],
                              body=body([helper.make_node("Neg", ["xu"], ["p"])], "p")),
             helper.make_node("Loop", ["many", "no", "xu"], ["y2"],
                              body=body([helper.make_node("Neg", ["xu"], ["q"])], "q"))]
    m = _model("loop_append_edges", nodes, (4,), [("y0", None), ("y1", None), ("y2", None)],
               [("three", np.array(3, np.int64)), ("zero", np.array(0, np.int64)), ("ax0", np.array([0], np.int64)),
                ("ones", np.ones((2, 4), np.float32)), ("empty", np.zeros((0, 4), np.float32)),
                ("many", np.array(1200, np.int64)), ("no", np.array(False))])
    xs = np.array([[1.0, -2.0, 0.5, 3.0], [0.25, 4.0, -1.5, 2.0]], np.float32)
    return m, xs, np.array([np.concatenate([np.ones(8, np.float32)] + [x] * 4) for x in xs], np.float32)


def _while_and_model():
    """torch.jit.script's `while bool(x.abs().sum() > 1) and bool(i < 20): x = x * 0.5; i += 1`: a Loop
    without trip count whose body condition is an If giving Less(i, 20) as bool [1] in one branch and a
    false constant bool [] in the other. Outputs x [3] and i [1] int64; samples stopping on the sum, on the
    count (20 trips) and before the first trip."""
    I64, B = TensorProto.INT64, TensorProto.BOOL
    then_g = helper.make_graph([helper.make_node("Less", ["i2", "twenty"], ["lt"])], "then", [], [_vi("lt", [1], B)])
    else_g = helper.make_graph([helper.make_node("Identity", ["no"], ["ff"])], "else", [], [_vi("ff", [], B)])
    body = helper.make_graph([helper.make_node("Mul", ["xb", "half"], ["x2"]),
                              helper.make_node("Add", ["ib", "one"], ["i2"]),
                              helper.make_node("Abs", ["x2"], ["a"]),
                              helper.make_node("ReduceSum", ["a"], ["s"], keepdims=0),
                              helper.make_node("Greater", ["s", "onef"], ["g"]),
                              helper.make_node("If", ["g"], ["c2"], then_branch=then_g, else_branch=else_g)],
                             "body", [_vi("it", [], I64), _vi("cond", [], B), _vi("xb", [3]), _vi("ib", [1], I64)],
                             [_vi("c2", None, B), _vi("x2", [3]), _vi("i2", [1], I64)])
    nodes = [helper.make_node("Abs", ["x"], ["a0"]), helper.make_node("ReduceSum", ["a0"], ["s0"], keepdims=0),
             helper.make_node("Greater", ["s0", "onef"], ["c0"]),
             helper.make_node("Loop", ["", "c0", "x", "i0"], ["y0", "y1"], body=body)]
    inits = [("half", np.float32(0.5)), ("one", np.array(1, np.int64)), ("onef", np.float32(1)),
             ("twenty", np.array(20, np.int64)), ("no", np.array(False)), ("i0", np.array([0], np.int64))]
    g = helper.make_graph(nodes, "while_and", [_vi("x", [3])], [_vi("y0", [3]), _vi("y1", [1], I64)],
                          [numpy_helper.from_array(a, n) for n, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    xs = np.array([[3.0, -4.0, 5.0], [1e7, -2e7, 3e6], [0.1, 0.2, -0.3]], np.float32)
    refs = []
    for x in xs:
        i, go = 0, np.abs(x).sum() > 1
        while go:
            x, i = x * np.float32(0.5), i + 1
            go = np.abs(x).sum() > 1 and i < 20
        refs.append(np.concatenate([x, [i]]))
    return m, xs, np.array(refs, np.float32)


def _scan_typed_model():
    """Scan over int64 values: x cast to int64 [2, 3] scanned along axis 1 (rows copied per trip) and its
    transpose [3, 2] along axis 0 (read in place), an int64 state adding both columns, and int64 scan
    outputs: twice the running sum along axis 1 (rows copied) and the running sum along axis 0 (in place).
    Outputs the final state [2], [2, 3] and [3, 2], int64."""
    I64 = TensorProto.INT64
    body = helper.make_graph([helper.make_node("Add", ["st", "col"], ["st0"]),
                              helper.make_node("Add", ["st0", "colt"], ["st1"]),
                              helper.make_node("Mul", ["st1", "two"], ["out"]),
                              helper.make_node("Identity", ["st1"], ["out2"])],
                             "body", [_vi("st", [2], I64), _vi("col", [2], I64), _vi("colt", [2], I64)],
                             [_vi("st1", [2], I64), _vi("out", [2], I64), _vi("out2", [2], I64)])
    nodes = [helper.make_node("Cast", ["x"], ["xi"], to=I64),
             helper.make_node("Transpose", ["xi"], ["xt"], perm=[1, 0]),
             helper.make_node("Scan", ["s0", "xi", "xt"], ["y0", "y1", "y2"], body=body, num_scan_inputs=2,
                              scan_input_axes=[1, 0], scan_output_axes=[1, 0])]
    inits = [("s0", np.array([0, 100], np.int64)), ("two", np.array(2, np.int64))]
    g = helper.make_graph(nodes, "scan_typed", [_vi("x", [2, 3])],
                          [_vi("y0", [2], I64), _vi("y1", [2, 3], I64), _vi("y2", [3, 2], I64)],
                          [numpy_helper.from_array(a, n) for n, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    xs = np.array([[[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], [[7.9, 0.0, -1.5], [2.0, 2.0, 2.0]]], np.float32)
    refs = []
    for x in xs:
        run = np.cumsum(2 * np.trunc(x).astype(np.int64), axis=1) + np.array([[0], [100]])
        refs.append(np.concatenate([run[:, -1], (2 * run).ravel(), run.T.ravel()]))
    return m, xs, np.array(refs, np.float32)


def cases():
    for name, make in (("if_select", _if_model), ("loop_state", _loop_model), ("loop_swap", _loop_swap_model),
                       ("loop_if", _loop_if_model), ("scan", _scan_model), ("loop_iter", _loop_iter_model),
                       ("nested_loop", _nested_loop_model), ("if_reshape", _if_reshape_model),
                       ("loop_cond_ignored", _loop_cond_ignored_model), ("loop_runtime_trips", _loop_runtime_trips_model),
                       ("loop_while", _loop_while_model), ("loop_early_exit", _loop_early_model),
                       ("loop_cast_cond", _loop_cast_cond_model), ("scan_axes", _scan_axes_model),
                       ("scan_axis_unit", _scan_axis_unit_model), ("loop_io", _loop_io_model),
                       ("loop_resize", _loop_resize_model), ("loop_unrolled", _loop_unrolled_model),
                       ("typed_results", _typed_results_model), ("loop_no_trips", _loop_no_trips_model),
                       ("while_and", _while_and_model), ("scan_typed", _scan_typed_model),
                       ("loop_append", _loop_append_model), ("loop_append_edges", _loop_append_edges_model)):
        m, xs, refs = make()
        yield name, m, xs, refs


def refused():
    # scan outputs of a loop whose trip count is computed at run time: their length is known only then
    body = _loop_body([helper.make_node("Identity", ["cin"], ["cout"]),
                       helper.make_node("Add", ["s", "one"], ["s1"]),
                       helper.make_node("Identity", ["s1"], ["item"])],
                      [_vi("cout", [], TensorProto.BOOL), _vi("s1", [4]), _vi("item", [4])], [_vi("s", [4])])
    m = _model("loop_rt_scan", [helper.make_node("ArgMax", ["x"], ["M"], keepdims=0),
                                helper.make_node("Loop", ["M", "", "x"], ["y", "items"], body=body)],
               (4,), [("y", (4,)), ("items", None)], [("one", np.float32(1))])
    yield "loop_runtime_scan", m, ["(loop)", "scan output", "known only at run time"]
    # branches of different shapes: the output's shape is known only at run time
    then_g = helper.make_graph([helper.make_node("Identity", ["x"], ["a"])], "then", [], [_vi("a", [2, 3])])
    else_g = helper.make_graph([helper.make_node("ReduceSum", ["x"], ["b"], keepdims=0, axes=[1])], "else", [],
                               [_vi("b", [2])])
    m = _model("if_shapes", [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
                             helper.make_node("Greater", ["s", "zero"], ["c"]),
                             helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
               (2, 3), [("y", None)], [("zero", np.float32(0))], opset=11)
    yield "if_branch_shapes", m, ["(if)", "different shapes"]
    # a slice at the trip number: shapes that change from trip to trip, over more trips than are unrolled
    body = _loop_body([helper.make_node("Identity", ["cin"], ["cout"]),
                       helper.make_node("Unsqueeze", ["i", "ax0"], ["st"]),
                       helper.make_node("Slice", ["x", "st", "big"], ["sl"]),
                       helper.make_node("ReduceSum", ["sl"], ["r"], keepdims=1),
                       helper.make_node("Add", ["s", "r"], ["s1"])],
                      [_vi("cout", [], TensorProto.BOOL), _vi("s1", [1])], [_vi("s", [1])])
    m = _model("loop_many_trips", [helper.make_node("Loop", ["M", "", "one"], ["y"], body=body)], (4,), [("y", (1,))],
               [("M", np.array(5000, np.int64)), ("one", np.array([1], np.float32)),
                ("ax0", np.array([0], np.int64)), ("big", np.array([100], np.int64))])
    yield "loop_too_many_trips", m, ["(loop)", "unrolls it", "5000 trips"]
    # unrolled, a scan output whose items grow from trip to trip (x[0:i+1]): they cannot be stacked
    body = _loop_body([helper.make_node("Identity", ["cin"], ["cout"]),
                       helper.make_node("Add", ["i", "one_i"], ["e"]),
                       helper.make_node("Unsqueeze", ["e", "ax0"], ["e1"]),
                       helper.make_node("Slice", ["x", "ax0", "e1"], ["item"]),
                       helper.make_node("Identity", ["s"], ["s1"])],
                      [_vi("cout", [], TensorProto.BOOL), _vi("s1", [1]), _vi("item", None)], [_vi("s", [1])])
    m = _model("loop_items_differ", [helper.make_node("Loop", ["M", "", "one"], ["y", "items"], body=body)], (4,),
               [("y", (1,)), ("items", None)],
               [("M", np.array(3, np.int64)), ("one", np.array([1], np.float32)), ("one_i", np.array(1, np.int64)),
                ("ax0", np.array([0], np.int64))])
    yield "loop_items_differ", m, ["(loop), unrolled", "scan_output_0", "differs"]
