"""Single-op ONNX models of the further float32 ops `nnfx codegen` writes
(src/codegen/emit_float_ops.c), with numpy references computed
independently of nnfx, for shapes and attributes the ONNX node tests miss:
cases() yields (name, ModelProto, input array, reference output array) as
op_cases.cases() does (which yields these too).
"""
import itertools
import math

import numpy as np
from onnx import TensorProto, helper, numpy_helper

F32 = np.float32


def _graph_model(name, nodes, x, outs, inits=(), opset=17, types=None):
    """A model of input x and outputs y0, y1, ... (outs: their shapes;
    float32 unless types gives output k's ONNX type); the harness writes
    them one after the other."""
    types = types or {}
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                          [helper.make_tensor_value_info("y%d" % k, types.get(k, TensorProto.FLOAT), list(s))
                           for k, s in enumerate(outs)],
                          [numpy_helper.from_array(a, n) for n, a in inits])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def _flat(*arrays):
    return np.concatenate([np.asarray(a, F32).ravel() for a in arrays])


def _conv_transpose(x, w, b, group, strides, dilations, pads, out_pad):
    """ConvTranspose by its definition: every input value scattered into the
    full (unpadded) output, then the begin pads cropped and the output
    padding (rows receiving no input, only the bias) kept, in float64."""
    N, C = x.shape[:2]
    nsp = x.ndim - 2
    k = w.shape[2:]
    cg, mg = C // group, w.shape[1]
    full = [(x.shape[2 + i] - 1) * strides[i] + (k[i] - 1) * dilations[i] + 1 + out_pad[i] for i in range(nsp)]
    y = np.zeros((N, mg * group) + tuple(full))
    for n, c in itertools.product(range(N), range(C)):
        g = c // cg
        for pos in itertools.product(*[range(s) for s in x.shape[2:]]):
            v = float(x[(n, c) + pos])
            for kk in itertools.product(*[range(s) for s in k]):
                o = tuple(pos[i] * strides[i] + kk[i] * dilations[i] for i in range(nsp))
                y[(n, slice(g * mg, (g + 1) * mg)) + o] += v * w[(c, slice(None)) + kk]
    out = [full[i] - pads[i] - pads[nsp + i] for i in range(nsp)]
    y = y[(slice(None), slice(None)) + tuple(slice(pads[i], pads[i] + out[i]) for i in range(nsp))]
    return (y + b.reshape((1, -1) + (1,) * nsp)).astype(F32)


def cases():
    rng = np.random.default_rng(11)
    i64 = np.int64

    def rand(*shape):
        return rng.standard_normal(shape).astype(F32)

    # ConvTranspose 2-d: two groups, odd sizes, unequal strides, dilation, asymmetric pads, output_padding, bias
    x, w, b = rand(1, 4, 5, 3), rand(4, 3, 3, 2), rand(6)
    ref = _conv_transpose(x, w, b, 2, [2, 3], [1, 2], [1, 0, 0, 1], [1, 2])
    yield ("conv_transpose_groups", _graph_model("ct2", [helper.make_node(
        "ConvTranspose", ["x", "w", "b"], ["y0"], group=2, strides=[2, 3], dilations=[1, 2], pads=[1, 0, 0, 1],
        output_padding=[1, 2])], x, [ref.shape], [("w", w), ("b", b)]), x, ref)
    # ConvTranspose 3-d, depthwise (group = channels), stride 2, no bias
    x, w = rand(2, 2, 3, 2, 3), rand(2, 1, 2, 2, 3)
    ref = _conv_transpose(x, w, np.zeros(2, F32), 2, [2, 1, 2], [1, 1, 1], [0, 0, 1, 0, 0, 1], [0, 0, 0])
    yield ("conv_transpose_3d", _graph_model("ct3", [helper.make_node(
        "ConvTranspose", ["x", "w"], ["y0"], group=2, strides=[2, 1, 2], pads=[0, 0, 1, 0, 0, 1])],
        x, [ref.shape], [("w", w)]), x, ref)
    # InstanceNormalization of a 5-d tensor
    x, sc, bi = rand(2, 3, 2, 3, 4) * 2 + 1, rand(3), rand(3)
    xd = x.astype(np.float64)
    mu, var = xd.mean(axis=(2, 3, 4), keepdims=True), xd.var(axis=(2, 3, 4), keepdims=True)
    ref = ((xd - mu) / np.sqrt(var + 1e-3) * sc.reshape(1, 3, 1, 1, 1) + bi.reshape(1, 3, 1, 1, 1)).astype(F32)
    yield ("instance_norm_5d", _graph_model("in5", [helper.make_node(
        "InstanceNormalization", ["x", "s", "b"], ["y0"], epsilon=1e-3)], x, [x.shape], [("s", sc), ("b", bi)]),
        x, ref)
    # LRN over 5 channels, size 3 (an even size too), and MeanVarianceNormalization over non-adjacent axes
    x = rand(2, 5, 3, 2)
    sq = x.astype(np.float64) ** 2

    def lrn(size, alpha, beta, bias):
        lo, hi = (size - 1) // 2, size // 2
        s = np.stack([sq[:, max(0, c - lo):min(5, c + hi + 1)].sum(axis=1) for c in range(5)], axis=1)
        return (x / (bias + alpha / size * s) ** beta).astype(F32)

    mu = x.astype(np.float64).mean(axis=(0, 2), keepdims=True)
    sd = np.sqrt((x.astype(np.float64) ** 2).mean(axis=(0, 2), keepdims=True) - mu ** 2)
    yield ("lrn_mvn", _graph_model("lrn", [
        helper.make_node("LRN", ["x"], ["y0"], size=3, alpha=0.5, beta=0.6, bias=1.5),
        helper.make_node("LRN", ["x"], ["y1"], size=4),
        helper.make_node("MeanVarianceNormalization", ["x"], ["y2"], axes=[0, 2])], x, [x.shape] * 3),
        x, _flat(lrn(3, 0.5, 0.6, 1.5), lrn(4, 1e-4, 0.75, 1.0), (x - mu) / (sd + 1e-9)))
    # DepthToSpace in both modes and SpaceToDepth, blocksize 2 and 3
    x = rand(1, 8, 6, 6)
    dcr = x.reshape(1, 2, 2, 2, 6, 6).transpose(0, 3, 4, 1, 5, 2).reshape(1, 2, 12, 12)
    crd = x.reshape(1, 2, 2, 2, 6, 6).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 12, 12)
    s2d = x.reshape(1, 8, 2, 3, 2, 3).transpose(0, 3, 5, 1, 2, 4).reshape(1, 72, 2, 2)
    yield ("depth_space", _graph_model("d2s", [
        helper.make_node("DepthToSpace", ["x"], ["y0"], blocksize=2),
        helper.make_node("DepthToSpace", ["x"], ["y1"], blocksize=2, mode="CRD"),
        helper.make_node("SpaceToDepth", ["x"], ["y2"], blocksize=3)], x, [dcr.shape, crd.shape, s2d.shape]),
        x, _flat(dcr, crd, s2d))
    # variadic Max (with a NaN), Min, Sum, Mean of broadcast operands
    x = rand(2, 3, 4)
    x[1, 2, 3] = np.nan
    a, b, c = rand(3, 1), rand(4), rand(1, 3, 1)
    xd = x.astype(np.float64)
    yield ("variadic", _graph_model("var", [
        helper.make_node("Max", ["x", "a", "b"], ["y0"]), helper.make_node("Min", ["a", "x"], ["y1"]),
        helper.make_node("Sum", ["x", "a", "b", "c"], ["y2"]), helper.make_node("Mean", ["b", "x", "c"], ["y3"]),
        helper.make_node("Max", ["x"], ["y4"])], x, [x.shape] * 5, [("a", a), ("b", b), ("c", c)]),
        x, _flat(np.maximum(np.maximum(xd, a), b), np.minimum(a, xd), xd + a + b + c, (b + xd + c) / 3, x))
    # unary functions with their attributes (Round at halves, Sign of 0)
    x = rand(3, 7) * 2
    x[0, :6] = [0.5, 1.5, 2.5, -0.5, -2.5, 0.0]
    xd = x.astype(np.float64)
    unary = [("Sin", {}, np.sin(xd)), ("Cos", {}, np.cos(xd)), ("Atan", {}, np.arctan(xd)),
             ("Sinh", {}, np.sinh(xd)), ("Cosh", {}, np.cosh(xd)), ("Asinh", {}, np.arcsinh(xd)),
             ("Floor", {}, np.floor(xd)), ("Ceil", {}, np.ceil(xd)), ("Round", {}, np.round(xd)),
             ("Sign", {}, np.sign(xd)), ("Softplus", {}, np.log1p(np.exp(xd))),
             ("Softsign", {}, xd / (1 + np.abs(xd))),
             ("Selu", {"alpha": 1.5, "gamma": 0.8}, np.where(xd > 0, 0.8 * xd, 0.8 * 1.5 * np.expm1(xd))),
             ("Celu", {"alpha": 2.0}, np.maximum(0, xd) + np.minimum(0, 2 * np.expm1(xd / 2))),
             ("ThresholdedRelu", {"alpha": 0.5}, np.where(xd > 0.5, xd, 0)),
             ("Shrink", {"bias": 0.5, "lambd": 1.0}, np.where(xd < -1, xd + 0.5, np.where(xd > 1, xd - 0.5, 0)))]
    yield ("unary_math", _graph_model("um", [helper.make_node(op, ["x"], ["y%d" % k], **at)
                                             for k, (op, at, _) in enumerate(unary)], x, [x.shape] * len(unary)),
           x, _flat(*[r for _, _, r in unary]))
    # the inverse functions inside their domains: tanh(x) in (-1, 1), 1 + |x| >= 1
    xd = x.astype(np.float64)
    t, one = np.tanh(x).astype(np.float64), 1 + np.abs(xd)
    yield ("unary_inverse", _graph_model("ui", [
        helper.make_node("Tanh", ["x"], ["t"]), helper.make_node("Abs", ["x"], ["ab"]),
        helper.make_node("Add", ["ab", "one"], ["p"]),
        helper.make_node("Asin", ["t"], ["y0"]), helper.make_node("Acos", ["t"], ["y1"]),
        helper.make_node("Atanh", ["t"], ["y2"]), helper.make_node("Acosh", ["p"], ["y3"]),
        helper.make_node("Tan", ["t"], ["y4"])], x, [x.shape] * 5, [("one", np.float32(1))]),
        x, _flat(np.arcsin(t), np.arccos(t), np.arctanh(t), np.arccosh(one), np.tan(t)))
    # PRelu with a per-channel slope, float Mod both ways, Hardmax with ties, Clip with computed bounds
    x = rand(2, 3, 4) * 3
    slope = rand(3, 1)
    xd = x.astype(np.float64)
    hx = np.round(x)  # ties
    first = np.argmax(hx, axis=1)
    hard = np.zeros_like(x)
    np.put_along_axis(hard, first[:, None], 1, axis=1)
    lo, hi = x.min() * np.float32(0.5), x.max() * np.float32(0.5)
    yield ("prelu_mod_hardmax_clip", _graph_model("pm", [
        helper.make_node("PRelu", ["x", "s"], ["y0"]),
        helper.make_node("Mod", ["x", "d"], ["y1"], fmod=1), helper.make_node("Mod", ["x", "d"], ["y2"]),
        helper.make_node("Round", ["x"], ["r"]), helper.make_node("Hardmax", ["r"], ["y3"], axis=1),
        helper.make_node("ReduceMin", ["x"], ["mn"], keepdims=0), helper.make_node("Mul", ["mn", "half"], ["lo"]),
        helper.make_node("ReduceMax", ["x"], ["mx"], keepdims=0), helper.make_node("Mul", ["mx", "half"], ["hi"]),
        helper.make_node("Clip", ["x", "lo", "hi"], ["y4"]), helper.make_node("Clip", ["x", "", "hi"], ["y5"])],
        x, [x.shape] * 6, [("s", slope), ("d", np.array([1.5, -0.7, 2.0, -1.25], F32)), ("half", np.float32(0.5))]),
        x, _flat(np.where(xd < 0, xd * slope, xd), np.fmod(xd, [1.5, -0.7, 2.0, -1.25]),
                 np.mod(xd, [1.5, -0.7, 2.0, -1.25]), hard, np.clip(xd, lo, hi), np.minimum(xd, hi)))
    # reductions beyond Mean/Sum/Max/Min (axes as the attribute of opset 17)
    x = rand(2, 3, 4, 5)
    xd = x.astype(np.float64)
    yield ("reduce_more", _graph_model("rm", [
        helper.make_node("ReduceL1", ["x"], ["y0"], axes=[1, 2], keepdims=0),
        helper.make_node("ReduceL2", ["x"], ["y1"], axes=[-1]),
        helper.make_node("ReduceProd", ["x"], ["y2"], axes=[0]),
        helper.make_node("ReduceSumSquare", ["x"], ["y3"], axes=[2, 3], keepdims=0),
        helper.make_node("ReduceLogSumExp", ["x"], ["y4"], axes=[1]),
        helper.make_node("Abs", ["x"], ["ax"]), helper.make_node("ReduceLogSum", ["ax"], ["y5"])],
        x, [(2, 5), (2, 3, 4, 1), (1, 3, 4, 5), (2, 3), (2, 1, 4, 5), (1, 1, 1, 1)]),
        x, _flat(np.abs(xd).sum(axis=(1, 2)), np.sqrt((xd ** 2).sum(axis=-1)), xd.prod(axis=0),
                 (xd ** 2).sum(axis=(2, 3)), np.log(np.exp(xd).sum(axis=1)), np.log(np.abs(xd).sum())))
    # multi-output: LayerNormalization with Mean and InvStdDev, MaxPool with its Indices (row-major and
    # storage_order 1; int64 outputs), Dropout with its mask (a bool output)
    x = rand(2, 3, 5, 4)
    xd = x.astype(np.float64)
    mu, var = xd.mean(axis=(2, 3), keepdims=True), xd.var(axis=(2, 3), keepdims=True)
    sc = rand(5, 4)
    ln = (xd - mu) / np.sqrt(var + 1e-5) * sc
    pooled = np.zeros((2, 3, 2, 2))
    idx, idx_col = np.zeros((2, 3, 2, 2)), np.zeros((2, 3, 2, 2))
    for n, c, oh, ow in itertools.product(range(2), range(3), range(2), range(2)):
        best, at, at_col = -np.inf, -1, -1
        for kh, kw in itertools.product(range(3), range(3)):  # kernel 3, stride 2, pads 1 (top, left) 0
            ih, iw = oh * 2 - 1 + kh, ow * 2 - 1 + kw
            if 0 <= ih < 5 and 0 <= iw < 4 and xd[n, c, ih, iw] > best:
                best, at, at_col = xd[n, c, ih, iw], ((n * 3 + c) * 5 + ih) * 4 + iw, (n * 3 + c) * 20 + ih + 5 * iw
        pooled[n, c, oh, ow], idx[n, c, oh, ow], idx_col[n, c, oh, ow] = best, at, at_col
    pool = dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 0, 0])
    q = (2, 3, 2, 2)
    yield ("multi_output", _graph_model("mo", [
        helper.make_node("LayerNormalization", ["x", "s"], ["y0", "y1", "y2"], axis=2),
        helper.make_node("MaxPool", ["x"], ["y3", "y4"], **pool),
        helper.make_node("MaxPool", ["x"], ["y5", "y6"], storage_order=1, **pool),
        helper.make_node("Dropout", ["x"], ["y7", "y8"])],
        x, [x.shape, (2, 3, 1, 1), (2, 3, 1, 1), q, q, q, q, x.shape, x.shape], [("s", sc)],
        types={4: TensorProto.INT64, 6: TensorProto.INT64, 8: TensorProto.BOOL}),
        x, _flat(ln, mu, 1 / np.sqrt(var + 1e-5), pooled, idx, pooled, idx_col, x, np.ones_like(x)))
    # Neg, Abs, Relu and Sign of integers (int64, int32, int8; Neg of int8's -128 wraps to itself), as torch.where(i >
    # 2, i, -i) exports: x cast to each type (truncated toward zero), the op, cast back
    x = np.array([[-7.9, -128.0, -1.5, 0.0], [0.4, 3.7, 100.2, 127.0]], F32)
    nodes, refs = [], []
    for k, (name, onnx_t, np_t) in enumerate((("i64", TensorProto.INT64, np.int64), ("i32", TensorProto.INT32,
                                                                                      np.int32),
                                              ("i8", TensorProto.INT8, np.int8))):
        xi = np.trunc(x).astype(np_t)
        nodes.append(helper.make_node("Cast", ["x"], [name], to=onnx_t))
        for j, (op, f) in enumerate((("Neg", np.negative), ("Abs", np.abs), ("Relu", lambda v: np.maximum(v, 0)),
                                     ("Sign", np.sign))):
            nodes += [helper.make_node(op, [name], ["%s_%s" % (name, op)]),
                      helper.make_node("Cast", ["%s_%s" % (name, op)], ["y%d" % (4 * k + j)], to=TensorProto.FLOAT)]
            refs.append(f(xi).astype(F32))
    yield ("int_unary", _graph_model("iu", nodes, x, [x.shape] * 12), x, _flat(*refs))
    # float64 and float16 arithmetic (torch.where with Python scalars and nan_to_num export float64 Mul and
    # IsInf): x cast to each type, Add/Sub/Mul/Div/Pow with a constant of that type (Pow also with an int64
    # exponent), the one-input math ops, IsInf/IsNaN of x / 0, each cast back to float32; the reference computes
    # each in float64 and rounds once into the type, as numpy's float16 conversion does
    x = np.array([[-2.5, -1.5, -0.4, 0.0], [0.5, 1.5, 2.5, 3.7]], F32)
    erf = np.vectorize(math.erf)
    unary = (("Abs", np.abs), ("Neg", np.negative), ("Relu", lambda v: np.maximum(v, 0)),
             ("Reciprocal", lambda v: 1 / (v + 5)), ("Sign", np.sign), ("Sigmoid", lambda v: 1 / (1 + np.exp(-v))),
             ("Sqrt", lambda v: np.sqrt(np.abs(v))), ("Exp", np.exp), ("Log", lambda v: np.log(np.abs(v) + 0.25)),
             ("Tanh", np.tanh), ("Erf", erf), ("Floor", np.floor), ("Ceil", np.ceil), ("Round", np.round),
             ("Sin", np.sin), ("Cos", np.cos), ("Tan", lambda v: np.tan(v / 2)), ("Atan", np.arctan))
    nodes, refs, inits, k = [], [], [], 0
    for tname, onnx_t, np_t in (("f64", TensorProto.DOUBLE, np.float64), ("f16", TensorProto.FLOAT16, np.float16)):
        xt = x.astype(np_t)
        xd = xt.astype(np.float64)
        nodes.append(helper.make_node("Cast", ["x"], [tname], to=onnx_t))
        c = np.array([[0.75], [-2.0]], np_t)
        inits += [(tname + "_c", c), (tname + "_two", np.array(2, np_t)), (tname + "_zero", np.array(0, np_t)),
                  (tname + "_five", np.array(5, np_t)), (tname + "_q", np.array(0.25, np_t))]
        cd = c.astype(np.float64)
        ops = [("Add", [tname, tname + "_c"], xd + cd), ("Sub", [tname + "_c", tname], cd - xd),
               ("Mul", [tname, tname + "_c"], xd * cd), ("Div", [tname, tname + "_c"], xd / cd),
               ("Pow", [tname + "_abs", tname + "_c"], np.abs(xd) ** cd),
               ("Pow", [tname, "i64_two"], xd ** 2)]
        nodes.append(helper.make_node("Abs", [tname], [tname + "_abs"]))
        for j, (op, args, ref) in enumerate(ops):
            nodes += [helper.make_node(op, args, ["%s_b%d" % (tname, j)]),
                      helper.make_node("Cast", ["%s_b%d" % (tname, j)], ["y%d" % k], to=TensorProto.FLOAT)]
            refs.append(ref.astype(np_t))
            k += 1
        for op, f in unary:
            src = tname
            if op == "Reciprocal":  # 1 / (x + 5)
                nodes.append(helper.make_node("Add", [tname, tname + "_five"], [tname + "_p5"]))
                src = tname + "_p5"
            elif op == "Sqrt":
                src = tname + "_abs"
            elif op == "Log":
                nodes.append(helper.make_node("Add", [tname + "_abs", tname + "_q"], [tname + "_aq"]))
                src = tname + "_aq"
            elif op == "Tan":
                nodes.append(helper.make_node("Div", [tname, tname + "_two"], [tname + "_h"]))
                src = tname + "_h"
            nodes += [helper.make_node(op, [src], ["%s_%s" % (tname, op)]),
                      helper.make_node("Cast", ["%s_%s" % (tname, op)], ["y%d" % k], to=TensorProto.FLOAT)]
            # the op's input as the model computes it (rounded into the type), then the op in float64
            arg = {"Reciprocal": (xd + 5).astype(np_t), "Sqrt": np.abs(xd).astype(np_t),
                   "Log": (np.abs(xd) + 0.25).astype(np_t), "Tan": (xd / 2).astype(np_t)}.get(op, xt)
            fd = {"Reciprocal": lambda v: 1 / v, "Sqrt": np.sqrt, "Log": np.log, "Tan": np.tan}.get(op, f)
            refs.append(fd(arg.astype(np.float64)).astype(np_t))
            k += 1
        nodes += [helper.make_node("Div", [tname, tname + "_zero"], [tname + "_inf"]),
                  helper.make_node("IsInf", [tname + "_inf"], [tname + "_isinf"], detect_negative=0),
                  helper.make_node("IsNaN", [tname + "_inf"], [tname + "_isnan"]),
                  helper.make_node("Cast", [tname + "_isinf"], ["y%d" % k], to=TensorProto.FLOAT),
                  helper.make_node("Cast", [tname + "_isnan"], ["y%d" % (k + 1)], to=TensorProto.FLOAT)]
        with np.errstate(divide="ignore", invalid="ignore"):
            q = xd / 0
        refs += [np.isposinf(q), np.isnan(q)]
        k += 2
    inits.append(("i64_two", np.array(2, np.int64)))
    yield ("double_math", _graph_model("dm", nodes, x, [x.shape] * k, inits), x, _flat(*refs))
    # LpNormalization (p 1 along axis 1, p 2 along the last axis and along axis 0), with a vector of zeros along
    # each axis: 0 there, as ONNX Runtime gives (ONNX's reference divides 0 by 0)
    x = rng.standard_normal((2, 3, 4)).astype(F32)
    x[0, :, 1], x[1, 2, :], x[:, 1, 3] = 0, 0, 0
    xd, refs = x.astype(np.float64), []
    nodes = [helper.make_node("LpNormalization", ["x"], ["y0"], axis=1, p=1),
             helper.make_node("LpNormalization", ["x"], ["y1"]),
             helper.make_node("LpNormalization", ["x"], ["y2"], axis=0, p=2)]
    for axis, p in ((1, 1), (-1, 2), (0, 2)):
        norm = (np.abs(xd) ** p).sum(axis=axis, keepdims=True) ** (1.0 / p)
        refs.append(np.where(norm == 0, 0, xd / np.where(norm == 0, 1, norm)))
    yield ("lp_normalization", _graph_model("lpn", nodes, x, [x.shape] * 3), x, _flat(*refs))
    # Relu keeps NaN (as PyTorch and ONNX Runtime), alone, before a Clip (relu6) and fused after a Conv (the
    # plan's and the generated C's conv epilogues), where a NaN input spreads through the Conv's window
    x = rng.standard_normal((1, 2, 4, 4)).astype(F32)
    x[0, 0, 1, 2], x[0, 1, 3, 3] = np.nan, np.nan
    w, b = rand(3, 2, 3, 3), rand(3)
    conv = np.zeros((1, 3, 4, 4))
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    for o, i, j in itertools.product(range(3), range(4), range(4)):
        conv[0, o, i, j] = (xp[0, :, i:i + 3, j:j + 3] * w[o]).sum() + b[o]
    nodes = [helper.make_node("Relu", ["x"], ["y0"]), helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("Clip", ["r", "lo", "hi"], ["y1"]),
             helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["y2"])]
    with np.errstate(invalid="ignore"):
        refs = [np.maximum(x, 0), np.minimum(np.maximum(x, 0), 6), np.maximum(conv, 0)]
    yield ("relu_nan", _graph_model("rn", nodes, x, [x.shape, x.shape, conv.shape],
                                    [("lo", np.array(0, F32)), ("hi", np.array(6, F32)), ("w", w), ("b", b)]),
           x, _flat(*refs))
    # opset 18's BitwiseAnd/Or/Xor/Not on int32 and uint8 (x cast to each, with a constant of that type; uint8's
    # Not wraps modulo 256), and Mish, against numpy
    x = np.array([[-7.0, -1.0, 0.0, 3.0], [5.0, 12.0, 100.0, 127.0]], F32)
    nodes, refs, inits, k = [], [], [], 0
    for tname, onnx_t, np_t in (("i32", TensorProto.INT32, np.int32), ("u8", TensorProto.UINT8, np.uint8)):
        xi = x.astype(np.int64).astype(np_t) if np_t is np.int32 else np.abs(x).astype(np_t)
        src = tname
        if np_t is np.uint8:
            nodes.append(helper.make_node("Abs", ["x"], ["xabs"]))
        nodes.append(helper.make_node("Cast", ["xabs" if np_t is np.uint8 else "x"], [tname], to=onnx_t))
        c = np.array([[6], [-3 if np_t is np.int32 else 253]]).astype(np_t)
        inits.append((tname + "_c", c))
        for op, f in (("BitwiseAnd", np.bitwise_and), ("BitwiseOr", np.bitwise_or), ("BitwiseXor", np.bitwise_xor)):
            nodes += [helper.make_node(op, [src, tname + "_c"], ["%s_%s" % (tname, op)]),
                      helper.make_node("Cast", ["%s_%s" % (tname, op)], ["y%d" % k], to=TensorProto.FLOAT)]
            refs.append(f(xi, c))
            k += 1
        nodes += [helper.make_node("BitwiseNot", [src], [tname + "_not"]),
                  helper.make_node("Cast", [tname + "_not"], ["y%d" % k], to=TensorProto.FLOAT)]
        refs.append(np.invert(xi))
        k += 1
    nodes += [helper.make_node("Mul", ["x", "scale"], ["xs"]), helper.make_node("Mish", ["xs"], ["y%d" % k])]
    xd = (x * np.float32(0.25)).astype(np.float64)
    refs.append(xd * np.tanh(np.log1p(np.exp(xd))))
    inits.append(("scale", np.array(0.25, F32)))
    k += 1
    yield ("opset18_ops", _graph_model("o18", nodes, x, [x.shape] * k, inits, opset=18), x, _flat(*refs))
    # MatMul with a vector operand (numpy's rules: a vector A is a row, a vector B a column, that dim then
    # dropped), as `h @ self.w` with a 1-D weight exports: 2d.1d, 1d.2d, 1d.1d, 1d.3d, 3d.1d
    x = np.linspace(-1.5, 2.0, 12, dtype=F32).reshape(3, 4)
    v3, v4 = np.array([0.5, -1.0, 2.0], F32), np.array([1.0, 0.25, -0.5, 3.0], F32)
    b3 = np.arange(40, dtype=F32).reshape(2, 4, 5) / 10 - 1
    nodes = [helper.make_node("MatMul", ["x", "v4"], ["y0"]), helper.make_node("MatMul", ["v3", "x"], ["y1"]),
             helper.make_node("Gather", ["x", "row"], ["xr"], axis=0), helper.make_node("MatMul", ["xr", "v4"], ["y2"]),
             helper.make_node("MatMul", ["xr", "b3"], ["y3"]), helper.make_node("Reshape", ["x", "s314"], ["x3"]),
             helper.make_node("MatMul", ["x3", "v4"], ["y4"])]
    yield ("matmul_vectors", _graph_model("mv", nodes, x, [(3,), (4,), (), (2, 5), (3, 1)],
                                          [("v3", v3), ("v4", v4), ("b3", b3), ("row", np.array(1, np.int64)),
                                           ("s314", np.array([3, 1, 4], np.int64))]),
           x, _flat(x @ v4, v3 @ x, x[1] @ v4, x[1] @ b3, x.reshape(3, 1, 4) @ v4))
    # shapes taken from a Split of a constant (what torch exports for repeat_interleave): Expand, Reshape, Tile
    x = np.arange(4, dtype=F32).reshape(1, 4) - 1.5
    nodes = [helper.make_node("Split", ["c", "sz"], ["shp", "rest"], axis=0),
             helper.make_node("Split", ["c2", "sz2"], ["rs", "tl"], axis=0),
             helper.make_node("Expand", ["x", "shp"], ["y0"]), helper.make_node("Reshape", ["y0", "rs"], ["y1"]),
             helper.make_node("Tile", ["x", "tl"], ["y2"])]
    ex = np.broadcast_to(x, (2, 3, 4))
    yield ("split_const_shape", _graph_model("scs", nodes, x, [(2, 3, 4), (6, 4), (3, 8)],
                                             [("c", np.array([2, 3, 4, 9], np.int64)),
                                              ("sz", np.array([3, 1], np.int64)),
                                              ("c2", np.array([6, 4, 3, 2], np.int64)),
                                              ("sz2", np.array([2, 2], np.int64))]),
           x, _flat(ex, ex.reshape(6, 4), np.tile(x, (3, 2))))
    # TopK, ArgMax and ArgMin of integers (torch.argsort / argmin of int64): values compared as the interpreter
    # compares them, ties by the lower index (TopK) or the first / last (Arg*); the values keep their type
    x = np.array([[3.0, -1.0, 3.0, 7.0, -1.0], [0.0, 2.0, 2.0, -5.0, 9.0]], F32)
    xi = x.astype(np.int64)
    I64, I32 = TensorProto.INT64, TensorProto.INT32
    nodes = [helper.make_node("Cast", ["x"], ["i64"], to=I64), helper.make_node("Cast", ["x"], ["i32"], to=I32),
             helper.make_node("Abs", ["x"], ["ax"]), helper.make_node("Cast", ["ax"], ["u8"], to=TensorProto.UINT8),
             helper.make_node("TopK", ["i64", "k3"], ["y0", "y1"], axis=1),
             helper.make_node("TopK", ["i32", "k2"], ["y2", "y3"], axis=1, largest=0),
             helper.make_node("ArgMax", ["i64"], ["y4"], axis=1, keepdims=0),
             helper.make_node("ArgMin", ["i32"], ["y5"], axis=1, select_last_index=1),
             helper.make_node("ArgMax", ["u8"], ["y6"], axis=0, keepdims=0)]
    big = np.argsort(-xi, axis=1, kind="stable")[:, :3]
    small = np.argsort(xi, axis=1, kind="stable")[:, :2]
    last_min = xi.shape[1] - 1 - np.argmin(xi[:, ::-1], axis=1)
    yield ("int_select", _graph_model("isel", nodes, x, [(2, 3), (2, 3), (2, 2), (2, 2), (2,), (2, 1), (5,)],
                                      [("k3", np.array([3], np.int64)), ("k2", np.array([2], np.int64))],
                                      types={0: I64, 1: I64, 2: I32, 3: I64, 4: I64, 5: I64, 6: I64}),
           x, _flat(np.take_along_axis(xi, big, 1), big, np.take_along_axis(xi, small, 1), small,
                    np.argmax(xi, axis=1), last_min[:, None], np.argmax(np.abs(xi).astype(np.uint8), axis=0)))
    # as PyTorch exports F.dropout(x, p=0.0) left at its default training=True (torchvision's swin_t):
    # Dropout with constant ratio 0 and training_mode true, the identity with a mask of ones; CumSum of float32
    # values along an int32 axis constant (as torch.cumsum exports), plain, exclusive and reversed
    x = rand(2, 3, 4)
    xd = x.astype(np.float64)
    excl = np.concatenate([np.zeros((2, 1, 4)), np.cumsum(xd, axis=1)[:, :-1]], axis=1)
    yield ("train_dropout_cumsum", _graph_model("tdc", [
        helper.make_node("Dropout", ["x", "r", "t"], ["y0", "y1"]),
        helper.make_node("CumSum", ["x", "a"], ["y2"]),
        helper.make_node("CumSum", ["x", "a"], ["y3"], exclusive=1),
        helper.make_node("CumSum", ["x", "m"], ["y4"], reverse=1)],
        x, [x.shape, x.shape, x.shape, x.shape, x.shape],
        [("r", np.array(0.0, F32)), ("t", np.array(True)), ("a", np.array(1, np.int32)),
         ("m", np.array(-1, np.int64))], types={1: TensorProto.BOOL}),
        x, _flat(x, np.ones_like(x), np.cumsum(xd, axis=1), excl, np.cumsum(xd[..., ::-1], axis=2)[..., ::-1]))
    # indexing: Gather of a constant table by indices computed at run time (ArgMax: int64 in the arena),
    # GatherElements / ScatterElements (reduction add, duplicates) / GatherND (batch_dims 1) / ScatterND (mul)
    # with constant indices (negative ones too), Expand and Tile to constant shapes
    x = rand(3, 5)
    table = rand(5, 4)
    am = np.argmax(x, axis=1)
    ge_idx = np.array([[0, -1, 2], [4, 4, 0], [1, 2, 3]], i64)
    se_idx = np.array([[1, 1], [0, -1], [2, 0]], i64)
    se_upd = rand(3, 2)
    scat = x.astype(np.float64).copy()
    for r, cc in itertools.product(range(3), range(2)):
        scat[r, se_idx[r, cc] % 5] += se_upd[r, cc]
    gnd_idx = np.array([[[1], [4]], [[0], [-2]], [[2], [2]]], i64)  # batch_dims 1: x[b, idx]
    snd_idx = np.array([[2, 1], [0, -1], [2, 1]], i64)
    snd_upd = rand(3)
    snd = x.astype(np.float64).copy()
    for q in range(3):
        snd[tuple(snd_idx[q] % [3, 5])] *= snd_upd[q]
    xe = x[:, :1]
    yield ("index_ops", _graph_model("ix", [
        helper.make_node("ArgMax", ["x"], ["am"], axis=1, keepdims=0),
        helper.make_node("Gather", ["t", "am"], ["y0"]),
        helper.make_node("GatherElements", ["x", "gi"], ["y1"], axis=1),
        helper.make_node("ScatterElements", ["x", "si", "su"], ["y2"], axis=1, reduction="add"),
        helper.make_node("GatherND", ["x", "gn"], ["y3"], batch_dims=1),
        helper.make_node("ScatterND", ["x", "sn", "sv"], ["y4"], reduction="mul"),
        helper.make_node("Slice", ["x", "z", "o", "o"], ["xe"]),
        helper.make_node("Expand", ["xe", "es"], ["y5"]),
        helper.make_node("Tile", ["x", "tr"], ["y6"])],
        x, [(3, 4), (3, 3), (3, 5), (3, 2), (3, 5), (2, 3, 4), (6, 10)],
        [("t", table), ("gi", ge_idx), ("si", se_idx), ("su", se_upd), ("gn", gnd_idx), ("sn", snd_idx),
         ("sv", snd_upd), ("z", np.array([0], i64)), ("o", np.array([1], i64)), ("es", np.array([2, 3, 4], i64)),
         ("tr", np.array([2, 2], i64))], opset=18),
        x, _flat(table[am], np.take_along_axis(x, ge_idx % 5, axis=1), scat,
                 np.stack([x[b, gnd_idx[b, :, 0] % 5] for b in range(3)]), snd,
                 np.broadcast_to(xe, (2, 3, 4)), np.tile(x, (2, 2))))
    # GridSample: bilinear with zeros padding (align_corners 1) and nearest with border padding, the grid
    # reaching past [-1, 1], on a 5 x 3 image, written out from PyTorch's grid_sampler_2d definition
    x = rand(2, 2, 5, 3)
    grid = (rng.uniform(-1.3, 1.3, (2, 4, 3, 2))).astype(F32)

    def sample(mode, align, border):
        H, W = 5, 3
        out = np.zeros((2, 2, 4, 3))
        for b, oy, ox in itertools.product(range(2), range(4), range(3)):
            gx, gy = float(grid[b, oy, ox, 0]), float(grid[b, oy, ox, 1])
            ix = (gx + 1) / 2 * (W - 1) if align else ((gx + 1) * W - 1) / 2
            iy = (gy + 1) / 2 * (H - 1) if align else ((gy + 1) * H - 1) / 2
            if border:
                ix, iy = min(max(ix, 0), W - 1), min(max(iy, 0), H - 1)

            def at(yy, xx):
                return x[b, :, yy, xx].astype(np.float64) if 0 <= yy < H and 0 <= xx < W else np.zeros(2)
            if mode == "nearest":
                out[b, :, oy, ox] = at(int(np.round(iy)), int(np.round(ix)))
            else:
                x0, y0 = int(np.floor(ix)), int(np.floor(iy))
                tx, ty = ix - x0, iy - y0
                out[b, :, oy, ox] = (at(y0, x0) * (1 - tx) * (1 - ty) + at(y0, x0 + 1) * tx * (1 - ty) +
                                     at(y0 + 1, x0) * (1 - tx) * ty + at(y0 + 1, x0 + 1) * tx * ty)
        return out

    g = helper.make_graph(
        [helper.make_node("GridSample", ["x", "g"], ["y0"], mode="bilinear", padding_mode="zeros", align_corners=1),
         helper.make_node("GridSample", ["x", "g"], ["y1"], mode="nearest", padding_mode="border")], "gs",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info("y%d" % k, TensorProto.FLOAT, [2, 2, 4, 3]) for k in range(2)],
        [numpy_helper.from_array(grid, "g")])
    yield ("grid_sample", helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)]), x,
           _flat(sample("bilinear", True, False), sample("nearest", False, True)))
    # reductions over axes that are not adjacent (a NaN in the max)
    x = rand(2, 3, 4, 5)
    x[1, 2, 0, 4] = np.nan
    xd = x.astype(np.float64)
    yield ("reduce_non_adjacent", _graph_model("rn", [
        helper.make_node("ReduceMean", ["x"], ["y0"], axes=[0, 2]),
        helper.make_node("ReduceMax", ["x"], ["y1"], axes=[1, 3], keepdims=0),
        helper.make_node("ReduceL2", ["x"], ["y2"], axes=[0, 3], keepdims=0)],
        x, [(1, 3, 1, 5), (2, 4), (3, 4)]),
        x, _flat(xd.mean(axis=(0, 2), keepdims=True), np.max(xd, axis=(1, 3)), np.sqrt((xd ** 2).sum(axis=(0, 3)))))
    # ReverseSequence, batch-major, by lengths computed at run time (an ArgMax over the time axis: 3, 0, 2)
    x = rand(3, 4, 2)
    x[:, :, 0] = [[0, 0, 0, 5], [5, 0, 0, 0], [0, 0, 5, 0]]
    lens = np.argmax(x[:, :, 0], axis=1)
    rev = x.copy()
    for b in range(3):
        rev[b, :lens[b]] = x[b, :lens[b]][::-1]
    yield ("reverse_sequence", _graph_model("rs", [
        helper.make_node("Slice", ["x", "z", "o", "t"], ["x0"]),
        helper.make_node("ArgMax", ["x0"], ["a"], axis=1, keepdims=0),
        helper.make_node("Reshape", ["a", "b3"], ["l"]),
        helper.make_node("ReverseSequence", ["x", "l"], ["y0"], batch_axis=0, time_axis=1)],
        x, [x.shape], [("z", np.array([0], i64)), ("o", np.array([1], i64)), ("t", np.array([2], i64)),
                       ("b3", np.array([3], i64))]), x, rev)
