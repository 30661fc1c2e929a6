"""Single-op ONNX models for `nnfx codegen`, built with onnx.helper, each
with a random input and its reference output computed with numpy
(independently of nnfx).

cases() yields (name, ModelProto, input array, reference output array);
refused() yields (name, ModelProto, words the exit-3 message must hold).
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

import op_cases_float


def _model(name, node, x, y_shape, inits=(), opset=17):
    g = helper.make_graph(node if isinstance(node, list) else [node], name,
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(y_shape))],
                          [numpy_helper.from_array(a, n) for n, a in inits])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def _model_outs(name, nodes, x, y_shapes, inits=(), opset=17):
    """A model with outputs y0, y1, ...: the harness writes them one after
    the other, so the reference is their flattened concatenation."""
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                          [helper.make_tensor_value_info("y%d" % k, TensorProto.FLOAT, list(s))
                           for k, s in enumerate(y_shapes)],
                          [numpy_helper.from_array(a, n) for n, a in inits])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def _flat(*arrays):
    return np.concatenate([a.ravel() for a in arrays])


def _layer_norm(x, axis, eps, scale, bias):
    ax = tuple(range(axis % x.ndim, x.ndim))
    mean = x.astype(np.float64).mean(axis=ax, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=ax, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps) * scale
    return (y + bias if bias is not None else y).astype(np.float32)


def _nearest(x, out_shape, src):
    """ONNX nearest Resize via per-dim source indices src(o, in, out)."""
    for d, (n_in, n_out) in enumerate(zip(x.shape, out_shape)):
        idx = np.array([min(max(src(o, n_in, n_out), 0), n_in - 1) for o in range(n_out)])
        x = np.take(x, idx, axis=d)
    return x


def _resample(x, out_shape, src, kind, a=-0.75, outside=None):
    """ONNX linear / cubic Resize, one axis at a time in float64: src(o, in, out) is the source coordinate of
    output position o; linear clamps it into the input and blends rows floor and floor + 1 (clamped), cubic
    takes Keys' weights (coefficient a) for rows floor - 1 .. floor + 2, clamped to the edge. With outside
    (tf_crop_and_resize's extrapolation_value), a coordinate outside [0, in - 1] gives that value."""
    x = x.astype(np.float64)
    for d, (n_in, n_out) in enumerate(zip(x.shape, out_shape)):
        f = src[d] if isinstance(src, (list, tuple)) else src  # one mapping per axis, or one for all
        if n_in == n_out and f(0, n_in, n_out) == 0 and f(n_out - 1, n_in, n_out) == n_in - 1:
            continue
        rows = []
        for o in range(n_out):
            s = f(o, n_in, n_out)
            if outside is not None and (s < 0 or s > n_in - 1):
                rows.append(np.full_like(np.take(x, 0, axis=d), outside))
                continue
            if kind == "linear":
                s = min(max(s, 0.0), n_in - 1.0)
                b = int(np.floor(s))
                taps = [(b, 1 - (s - b)), (min(b + 1, n_in - 1), s - b)]
            else:
                b = int(np.floor(s))
                r = s - b
                t = [r + 1, r, 1 - r, 2 - r]
                c = [((a * t[0] - 5 * a) * t[0] + 8 * a) * t[0] - 4 * a, ((a + 2) * t[1] - (a + 3)) * t[1] ** 2 + 1,
                     ((a + 2) * t[2] - (a + 3)) * t[2] ** 2 + 1, ((a * t[3] - 5 * a) * t[3] + 8 * a) * t[3] - 4 * a]
                taps = [(min(max(b - 1 + k, 0), n_in - 1), c[k]) for k in range(4)]
            rows.append(sum(w * np.take(x, i, axis=d) for i, w in taps))
        x = np.stack(rows, axis=d)
    return x.astype(np.float32)


def _sig(v):
    return 1 / (1 + np.exp(-v))


def _recurrent(kind, x, W, R, B, H, dirs=1, reverse=False, layout=0, lens=None, h0=None, c0=None, P=None,
               lbr=0, clip=0.0, f=_sig, g=np.tanh, h=np.tanh, acts=None):
    """ONNX's RNN ("rnn", activation f), GRU ("gru", f g) and LSTM ("lstm",
    f g h) equations in float64 (acts: (f, g, h) per direction instead):
    returns Y, Y_h, Y_c (Y_c None but for LSTM), in the layout asked for."""
    x = x.astype(np.float64)
    if layout:
        x = x.transpose(1, 0, 2)
        h0 = None if h0 is None else h0.transpose(1, 0, 2)
        c0 = None if c0 is None else c0.transpose(1, 0, 2)
    T, Bt = x.shape[0], x.shape[1]
    G = {"rnn": 1, "gru": 3, "lstm": 4}[kind]
    lens = np.full(Bt, T) if lens is None else lens
    B = np.zeros((dirs, 2 * G * H)) if B is None else B.astype(np.float64)
    cl = (lambda v: np.clip(v, -clip, clip)) if clip > 0 else (lambda v: v)
    Y, Yh, Yc = np.zeros((T, dirs, Bt, H)), np.zeros((dirs, Bt, H)), np.zeros((dirs, Bt, H))
    for d in range(dirs):
        Wd, Rd, wb, rb = W[d].astype(np.float64), R[d].astype(np.float64), B[d, :G * H], B[d, G * H:]
        f, g, h = acts[d] if acts else (f, g, h)
        for b in range(Bt):
            hp = np.zeros(H) if h0 is None else h0[d, b].astype(np.float64)
            cp = np.zeros(H) if c0 is None else c0[d, b].astype(np.float64)
            n = int(lens[b])
            steps = range(n - 1, -1, -1) if (reverse or d == 1) else range(n)
            for t in steps:
                xw, hr = Wd @ x[t, b] + wb, Rd @ hp + rb
                if kind == "rnn":
                    hn = f(cl(xw + hr))
                elif kind == "gru":
                    z, r = f(cl(xw[:H] + hr[:H])), f(cl(xw[H:2 * H] + hr[H:2 * H]))
                    if lbr:
                        hh = g(cl(xw[2 * H:] + r * hr[2 * H:]))
                    else:
                        hh = g(cl(xw[2 * H:] + Rd[2 * H:] @ (r * hp) + rb[2 * H:]))
                    hn = (1 - z) * hh + z * hp
                else:
                    pi, po, pf = (np.zeros(H),) * 3 if P is None else np.split(P[d].astype(np.float64), 3)
                    pre = xw + hr
                    i = f(cl(pre[:H] + pi * cp))
                    fg = f(cl(pre[2 * H:3 * H] + pf * cp))
                    cp = fg * cp + i * g(cl(pre[3 * H:]))
                    o = f(cl(pre[H:2 * H] + po * cp))
                    hn = o * h(cp)
                hp = hn
                Y[t, d, b] = hn
            Yh[d, b], Yc[d, b] = hp, cp
    if layout:
        Y, Yh, Yc = Y.transpose(2, 0, 1, 3), Yh.transpose(1, 0, 2), Yc.transpose(1, 0, 2)
    f32 = np.float32
    return Y.astype(f32), Yh.astype(f32), (Yc.astype(f32) if kind == "lstm" else None)

# The cases whose generated C must give nnfx run's bits exactly (check_codegen.py).
SAME_BITS_AS_RUNTIME = {"reduce_overflow_range"}


def cases():
    rng = np.random.default_rng(7)

    def rand(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    # LayerNormalization: last axis with scale and bias; two trailing axes, no bias
    x, sc, b = rand(2, 3, 8), rand(8), rand(8)
    yield ("layer_norm_last", _model("ln1", helper.make_node("LayerNormalization", ["x", "s", "b"], ["y"], axis=-1),
                                     x, x.shape, [("s", sc), ("b", b)]), x, _layer_norm(x, -1, 1e-5, sc, b))
    x, sc = rand(2, 3, 4) * 3 + 1, rand(3, 4)
    yield ("layer_norm_axis1", _model("ln2", helper.make_node("LayerNormalization", ["x", "s"], ["y"], axis=1,
                                                              epsilon=1e-3), x, x.shape, [("s", sc)]),
           x, _layer_norm(x, 1, 1e-3, sc, None))
    # Where over a bool constant (a causal mask) in an otherwise float model: NAME.c declares the bool weight
    x = rand(2, 4, 4)
    yield ("where_bool_const", _model("wb", helper.make_node("Where", ["m", "x", "neg"], ["y"]), x, x.shape,
                                      [("m", np.tril(np.ones((4, 4), bool))), ("neg", np.float32(-1e4))]),
           x, np.where(np.tril(np.ones((4, 4), bool)), x, np.float32(-1e4)))
    # Slice: negative starts/ends, negative and >1 steps, clamped ends, partial axes
    x = rand(3, 8, 10)
    i64 = np.int64
    yield ("slice_steps", _model("sl1", helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["y"]), x, (2, 4, 4),
                                 [("st", np.array([1, -1, 0], i64)), ("en", np.array([9, -9, 10], i64)),
                                  ("ax", np.array([0, 1, 2], i64)), ("sp", np.array([1, -2, 3], i64))]),
           x, x[1:9, -1:-9:-2, 0:10:3])
    yield ("slice_axes", _model("sl2", helper.make_node("Slice", ["x", "st", "en", "ax"], ["y"]), x, (3, 8, 8),
                                [("st", np.array([2], i64)), ("en", np.array([np.iinfo(i64).max], i64)),
                                 ("ax", np.array([-1], i64))]), x, x[:, :, 2:])
    # Gather: 2-d indices with a negative one on axis 1; a scalar index on axis 0
    x = rand(2, 5, 3)
    idx = np.array([[0, -1], [2, 2]], i64)
    yield ("gather_axis1", _model("ga1", helper.make_node("Gather", ["x", "i"], ["y"], axis=1), x, (2, 2, 2, 3),
                                  [("i", idx)]), x, np.take(x, idx % 5, axis=1))
    x = rand(5, 4)
    yield ("gather_scalar", _model("ga2", helper.make_node("Gather", ["x", "i"], ["y"], axis=0), x, (4,),
                                   [("i", np.array(3, i64))]), x, x[3])
    # Pad (constant): pads on every side of a 4-d tensor, a constant value; zero pads
    x = rand(1, 2, 3, 4)
    pads = np.array([0, 1, 2, 0, 0, 2, 1, 3], i64)
    yield ("pad_constant", _model("pa1", helper.make_node("Pad", ["x", "p", "v"], ["y"], mode="constant"), x,
                                  (1, 5, 6, 7), [("p", pads), ("v", np.array(1.5, np.float32))]),
           x, np.pad(x, [(0, 0), (1, 2), (2, 1), (0, 3)], constant_values=1.5))
    yield ("pad_zero", _model("pa2", helper.make_node("Pad", ["x", "p"], ["y"]), x, (1, 2, 5, 5),
                              [("p", np.array([0, 0, 1, 0, 0, 0, 1, 1], i64))]),
           x, np.pad(x, [(0, 0), (0, 0), (1, 1), (0, 1)]))
    # Pad reflect / edge / wrap (numpy's reflect and edge modes are ONNX's; wrap as indices modulo the dim),
    # pads past a dim's size for edge and wrap; negative pads (cropping) in constant mode and with reflect on another axis
    x = rand(2, 3, 4)
    yield ("pad_reflect", _model("pr", helper.make_node("Pad", ["x", "p"], ["y"], mode="reflect"), x, (2, 6, 7),
                                 [("p", np.array([0, 1, 2, 0, 2, 1], i64))]),
           x, np.pad(x, [(0, 0), (1, 2), (2, 1)], mode="reflect"))
    yield ("pad_edge", _model("pe", helper.make_node("Pad", ["x", "p"], ["y"], mode="edge"), x, (4, 3, 11),
                              [("p", np.array([1, 0, 5, 1, 0, 2], i64))]),
           x, np.pad(x, [(1, 1), (0, 0), (5, 2)], mode="edge"))
    yield ("pad_wrap", _model("pw", helper.make_node("Pad", ["x", "p", "", "ax"], ["y"], mode="wrap"), x, (2, 8, 4),
                              [("p", np.array([4, 1], i64)), ("ax", np.array([1], i64))], opset=19),
           x, np.take(x, np.arange(-4, 4) % 3, axis=1))  # the torus of ONNX's wrap (numpy 1's np.pad repeats
    # an edge when a pad is wider than the dim)
    yield ("pad_crop", _model("pc", helper.make_node("Pad", ["x", "p", "v"], ["y"]), x, (2, 4, 3),
                              [("p", np.array([0, 2, -1, 0, -1, 0], i64)), ("v", np.array(-2.5, np.float32))]),
           x, np.pad(x[:, :, 1:], [(0, 0), (2, 0), (0, 0)], constant_values=-2.5)[:, :4, :])
    yield ("pad_reflect_crop", _model("prc", helper.make_node("Pad", ["x", "p"], ["y"], mode="reflect"), x, (2, 2, 6),
                                      [("p", np.array([0, 0, 2, 0, -1, 0], i64))]),
           x, np.pad(x, [(0, 0), (0, 0), (2, 0)], mode="reflect")[:, :2, :])
    # Transpose (a 4-d permutation) and Concat (the input, a constant, the input again)
    x = rand(2, 3, 4, 5)
    yield ("transpose_4d", _model("tr1", helper.make_node("Transpose", ["x"], ["y"], perm=[2, 0, 3, 1]), x,
                                  (4, 2, 5, 3)), x, x.transpose(2, 0, 3, 1))
    c = rand(2, 2, 4, 5)
    yield ("concat_axis1", _model("co1", [helper.make_node("Relu", ["x"], ["r"]),
                                          helper.make_node("Concat", ["x", "c", "r"], ["y"], axis=1)], x,
                                  (2, 8, 4, 5), [("c", c)]), x, np.concatenate([x, c, np.maximum(x, 0)], axis=1))
    # Resize (nearest): 2x scales, asymmetric + floor (PyTorch's "nearest"); sizes 3x4 -> 5x3 with the
    # defaults half_pixel + round_prefer_floor (the source coordinate (o + 0.5) * in / out - 0.5)
    x = rand(1, 2, 3, 4)
    yield ("resize_2x", _model("rs1", helper.make_node("Resize", ["x", "", "s"], ["y"], mode="nearest",
                                                       coordinate_transformation_mode="asymmetric",
                                                       nearest_mode="floor"), x, (1, 2, 6, 8),
                               [("s", np.array([1, 1, 2, 2], np.float32))]),
           x, x.repeat(2, axis=2).repeat(2, axis=3))

    def half_pixel_round_prefer_floor(o, n_in, n_out):
        s = (o + 0.5) * n_in / n_out - 0.5
        return int(np.floor(s)) if s - np.floor(s) <= 0.5 else int(np.floor(s)) + 1

    yield ("resize_sizes", _model("rs2", helper.make_node("Resize", ["x", "", "", "z"], ["y"], mode="nearest"), x,
                                  (1, 2, 5, 3), [("z", np.array([1, 2, 5, 3], i64))]),
           x, _nearest(x, (1, 2, 5, 3), half_pixel_round_prefer_floor))
    # Resize (nearest) of a dim before the last two: scales 2 on dim 0 and 0.5 on dim 1 (asymmetric + floor)
    x = rand(2, 4, 3)
    yield ("resize_dim0", _model("rd", helper.make_node("Resize", ["x", "", "s"], ["y"], mode="nearest",
                                                        coordinate_transformation_mode="asymmetric",
                                                        nearest_mode="floor"), x, (4, 2, 3),
                                 [("s", np.array([2, 0.5, 1], np.float32))]),
           x, x.repeat(2, axis=0)[:, ::2, :])
    # Resize linear (half_pixel, scales: two passes; asymmetric over three dims: the middle pass through the
    # working memory; align_corners from sizes) and cubic (half_pixel, coefficient -0.5)
    x = rand(2, 3, 4)
    yield ("resize_linear", _model("rl", helper.make_node("Resize", ["x", "", "s"], ["y"], mode="linear"), x,
                                   (2, 6, 8), [("s", np.array([1, 2, 2], np.float32))]),
           x, _resample(x, (2, 6, 8), lambda o, i, n: (o + 0.5) * i / n - 0.5, "linear"))
    yield ("resize_linear_3d", _model("rl3", helper.make_node("Resize", ["x", "", "s"], ["y"], mode="linear",
                                                              coordinate_transformation_mode="asymmetric"), x,
                                      (4, 6, 2), [("s", np.array([2, 2, 0.5], np.float32))]),
           x, _resample(x, (4, 6, 2), lambda o, i, n: o * i / n, "linear"))
    yield ("resize_linear_align", _model("rla", helper.make_node("Resize", ["x", "", "", "z"], ["y"], mode="linear",
                                                                 coordinate_transformation_mode="align_corners"),
                                         x, (2, 5, 7), [("z", np.array([2, 5, 7], i64))]),
           x, _resample(x, (2, 5, 7), lambda o, i, n: o * (i - 1) / (n - 1), "linear"))
    x = rand(1, 2, 4, 5)
    yield ("resize_cubic", _model("rc", helper.make_node("Resize", ["x", "", "s"], ["y"], mode="cubic",
                                                         cubic_coeff_a=-0.5), x, (1, 2, 8, 10),
                                  [("s", np.array([1, 1, 2, 2], np.float32))]),
           x, _resample(x, (1, 2, 8, 10), lambda o, i, n: (o + 0.5) * i / n - 0.5, "cubic", a=-0.5))
    # tf_crop_and_resize (linear): a roi reaching past the input on the last dim, extrapolation_value -3
    x = rand(1, 3, 4)
    roi = np.array([0, 0.25, -0.5, 1, 0.75, 1.25], np.float32)

    def crop(lo, hi):
        return lambda o, i, n: lo * (i - 1) + o * (hi - lo) * (i - 1) / (n - 1) if n > 1 else 0.5 * (lo + hi) * (i - 1)

    ref = _resample(x, (1, 4, 6), [crop(0, 1), crop(0.25, 0.75), crop(-0.5, 1.25)], "linear", outside=-3.0)
    yield ("resize_tf_crop", _model("rt", helper.make_node("Resize", ["x", "roi", "", "z"], ["y"], mode="linear",
                                                           coordinate_transformation_mode="tf_crop_and_resize",
                                                           extrapolation_value=-3.0), x, (1, 4, 6),
                                    [("roi", roi), ("z", np.array([1, 4, 6], i64))]), x, ref)
    # a uint8 model input dequantized (NAME_run then takes void pointers, NAME_INPUT0_TYPE uint8_t)
    xq = rng.integers(0, 256, (2, 6)).astype(np.uint8)
    g = helper.make_graph([helper.make_node("DequantizeLinear", ["x", "sc", "zp"], ["y"])], "dq",
                          [helper.make_tensor_value_info("x", TensorProto.UINT8, [2, 6])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 6])],
                          [numpy_helper.from_array(np.float32(0.05), "sc"), numpy_helper.from_array(np.uint8(128), "zp")])
    yield ("dequantize_u8_input", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), xq,
           ((xq.astype(np.float32) - 128) * np.float32(0.05)))
    # STFT with a constant Hann window (a keyword spotter's front end: frames of 64 every 32,
    # one-sided) against numpy's FFT
    x = rand(1, 400, 1)
    win = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(64) / 64)).astype(np.float32)
    frames = np.stack([x[0, f * 32:f * 32 + 64, 0] * win for f in range(11)])
    spec = np.fft.rfft(frames.astype(np.float64), axis=-1)
    yield ("stft_hann", _model("stft", helper.make_node("STFT", ["x", "step", "win"], ["y"], onesided=1), x,
                               (1, 11, 33, 2), [("step", np.array(32, i64)), ("win", win)]),
           x, np.stack([spec.real, spec.imag], -1)[None].astype(np.float32))
    # the operator-form quantized ops (ONNX Runtime's QOperator format) with constant int8 weights:
    # QLinearConv (per-channel weight scales, int32 bias, padding, stride 2) -> Reshape ->
    # QLinearMatMul (per-column scales and zero points) and MatMulInteger; ConvInteger on the input;
    # against the spec's formulas in numpy (exact int32 sums, the float32 multiplier, round half to even)
    xq = rng.integers(0, 256, (1, 2, 5, 5)).astype(np.uint8)
    wq = rng.integers(-128, 128, (3, 2, 3, 3)).astype(np.int8)
    w2 = rng.integers(-128, 128, (27, 4)).astype(np.int8)
    wsc, bias = np.array([0.004, 0.006, 0.005], np.float32), np.array([300, -200, 50], np.int32)
    w2s, w2z = np.array([0.01, 0.02, 0.015, 0.012], np.float32), np.array([0, 3, -2, 1], np.int8)
    f32 = np.float32

    def conv_acc(xz, w, wz, b):
        xp = np.pad(xq[0].astype(np.int64) - xz, ((0, 0), (1, 1), (1, 1)))
        acc = np.zeros((3, 3, 3), np.int64)
        for m in range(3):
            for i in range(3):
                for j in range(3):
                    acc[m, i, j] = (xp[:, 2 * i:2 * i + 3, 2 * j:2 * j + 3] * (w[m].astype(np.int64) - wz[m])).sum() + b[m]
        return acc

    def requant(acc, mult, zp):
        return np.clip(np.rint(acc.astype(f32) * mult) + zp, 0, 255).astype(np.uint8)

    c = requant(conv_acc(128, wq, np.zeros(3, np.int64), bias), (wsc * f32(0.02) / f32(0.05))[:, None, None], 10)
    a = c.reshape(1, 27).astype(np.int64) - 10
    acc2 = a @ (w2.astype(np.int64) - w2z.astype(np.int64))
    z = requant(acc2, f32(0.05) * w2s / f32(0.1), 100)
    acc3 = conv_acc(100, wq, np.full(3, 2, np.int64), np.zeros(3, np.int64))
    g = helper.make_graph(
        [helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y0"], pads=[1, 1, 1, 1],
                          strides=[2, 2]),
         helper.make_node("Reshape", ["y0", "flat"], ["c2"]),
         helper.make_node("QLinearMatMul", ["c2", "ys", "yz", "w2", "w2s", "w2z", "zs", "zz"], ["y1"]),
         helper.make_node("MatMulInteger", ["c2", "w2", "yz", "w2z"], ["y2"]),
         helper.make_node("ConvInteger", ["x", "w", "xz2", "wz2"], ["y3"], pads=[1, 1, 1, 1], strides=[2, 2])],
        "qop", [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 2, 5, 5])],
        [helper.make_tensor_value_info("y0", TensorProto.UINT8, [1, 3, 3, 3]),
         helper.make_tensor_value_info("y1", TensorProto.UINT8, [1, 4]),
         helper.make_tensor_value_info("y2", TensorProto.INT32, [1, 4]),
         helper.make_tensor_value_info("y3", TensorProto.INT32, [1, 3, 3, 3])],
        [numpy_helper.from_array(v, k) for k, v in
         (("xs", f32(0.02)), ("xz", np.uint8(128)), ("w", wq), ("ws", wsc), ("wz", np.zeros(3, np.int8)),
          ("ys", f32(0.05)), ("yz", np.uint8(10)), ("b", bias), ("flat", np.array([1, 27], i64)), ("w2", w2),
          ("w2s", w2s), ("w2z", w2z), ("zs", f32(0.1)), ("zz", np.uint8(100)), ("xz2", np.uint8(100)),
          ("wz2", np.int8(2)))])
    yield ("qlinear_ops", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), xq,
           _flat(c, z, acc2, acc3))  # integers: compared exactly
    # Split (multi-output): uneven sizes on a middle axis (strided rows), every output returned; the
    # first axis (contiguous pieces); a GLU-like use of both halves; num_outputs of opset 18, uneven
    x = rand(2, 7, 5)
    parts = np.split(x, [2, 6], axis=1)
    yield ("split_uneven", _model_outs("sp1", [helper.make_node("Split", ["x", "s"], ["y0", "y1", "y2"], axis=1)],
                                       x, [p.shape for p in parts], [("s", np.array([2, 4, 1], i64))]),
           x, _flat(*parts))
    x = rand(6, 4)
    yield ("split_axis0", _model_outs("sp2", [helper.make_node("Split", ["x", "s"], ["y0", "y1"], axis=0)],
                                      x, [(1, 4), (5, 4)], [("s", np.array([1, 5], i64))]), x, _flat(x[:1], x[1:]))
    x = rand(3, 8)
    yield ("split_glu", _model("sp3", [helper.make_node("Split", ["x"], ["a", "b"], axis=-1),
                                       helper.make_node("Sigmoid", ["b"], ["sb"]),
                                       helper.make_node("Mul", ["a", "sb"], ["y"])], x, (3, 4)),
           x, x[:, :4] * (1 / (1 + np.exp(-x[:, 4:]))))
    x = rand(2, 3, 7)
    yield ("split_num_outputs", _model_outs("sp4", [helper.make_node("Split", ["x"], ["y0", "y1", "y2"], axis=2,
                                                                     num_outputs=3)],
                                            x, [(2, 3, 3), (2, 3, 3), (2, 3, 1)], opset=18),
           x, _flat(x[..., :3], x[..., 3:6], x[..., 6:]))

    # Recurrent layers (references: ONNX's equations in numpy, _recurrent); hidden sizes 5, 9, 4, 12 and 3 take
    # the generated kernel's blocks of 8 and 4 units and its general path. LSTM: bidirectional, bias,
    # sequence_lens (one row shorter), initial states, peepholes, a list of activations per direction (with
    # activation_alpha / activation_beta taken in order by the functions that have them); Y, Y_h and Y_c returned
    T, Bt, IN, H = 5, 2, 3, 5
    x = rand(T, Bt, IN)

    def hard_sigmoid(a, b):
        return lambda v: np.clip(a * v + b, 0, 1)

    lstm_acts = [(hard_sigmoid(0.25, 0.6), lambda v: np.where(v >= 0, v, 0.9 * np.expm1(v)),
                  lambda v: 1.2 * np.tanh(0.7 * v)),
                 (_sig, lambda v: 0.5 * v + 0.1, lambda v: v / (1 + np.abs(v)))]
    W, R, B, P = rand(2, 4 * H, IN) * 0.5, rand(2, 4 * H, H) * 0.5, rand(2, 8 * H) * 0.5, rand(2, 3 * H) * 0.5
    h0, c0, lens = rand(2, Bt, H) * 0.5, rand(2, Bt, H) * 0.5, np.array([5, 3], np.int32)
    y, yh, yc = _recurrent("lstm", x, W, R, B, H, dirs=2, lens=lens, h0=h0, c0=c0, P=P, acts=lstm_acts)
    yield ("lstm_bidir_seq", _model_outs("ls1", [helper.make_node(
        "LSTM", ["x", "W", "R", "B", "L", "h0", "c0", "P"], ["y0", "y1", "y2"], direction="bidirectional",
        hidden_size=H, activations=["HardSigmoid", "Elu", "ScaledTanh", "Sigmoid", "Affine", "Softsign"],
        activation_alpha=[0.25, 0.9, 1.2, 0.5], activation_beta=[0.6, 0.7, 0.1])], x, [y.shape, yh.shape, yc.shape],
        [("W", W), ("R", R), ("B", B), ("L", lens), ("h0", h0), ("c0", c0), ("P", P)]), x, _flat(y, yh, yc))
    # LSTM with only Y_h used (no Y_c: the cell kept in Y's slots), reverse, clip, sequence_lens, initial_c
    H = 9
    W, R, c0, lens = rand(1, 4 * H, IN), rand(1, 4 * H, H), rand(1, Bt, H), np.array([3, 5], np.int32)
    _, yh, _ = _recurrent("lstm", x, W, R, None, H, reverse=True, clip=0.5, lens=lens, c0=c0)
    yield ("lstm_reverse_clip", _model("ls2", helper.make_node("LSTM", ["x", "W", "R", "", "L", "", "c0"], ["", "y"],
                                                               direction="reverse", hidden_size=H, clip=0.5),
                                       x, yh.shape, [("W", W), ("R", R), ("L", lens), ("c0", c0)]), x, yh)
    # GRU, linear_before_reset 0 (r * h before R: working memory past the arena; bidirectional, initial_h, other
    # activations) and 1 (default activations, batch first, bidirectional, initial_h [batch, dirs, hidden])
    H = 4
    gru_acts = [(_sig, lambda v: np.where(v >= 0, v, 0.05 * v), None), (_sig, lambda v: np.log1p(np.exp(v)), None)]
    W, R, B = rand(2, 3 * H, IN) * 0.3, rand(2, 3 * H, H) * 0.3, rand(2, 6 * H) * 0.3
    h0 = rand(2, Bt, H) * 0.3
    y, yh, _ = _recurrent("gru", x, W, R, B, H, dirs=2, h0=h0, acts=gru_acts)
    yield ("gru_lbr0", _model_outs("gr0", [helper.make_node(
        "GRU", ["x", "W", "R", "B", "", "h0"], ["y0", "y1"], direction="bidirectional", hidden_size=H,
        activations=["Sigmoid", "LeakyRelu", "Sigmoid", "Softplus"], activation_alpha=[0.05])],
        x, [y.shape, yh.shape], [("W", W), ("R", R), ("B", B), ("h0", h0)]), x, _flat(y, yh))
    H = 12
    xb = rand(Bt, T, IN)
    W, R, B = rand(2, 3 * H, IN) * 0.5, rand(2, 3 * H, H) * 0.5, rand(2, 6 * H) * 0.5
    h0 = rand(Bt, 2, H) * 0.5
    y, yh, _ = _recurrent("gru", xb, W, R, B, H, dirs=2, layout=1, h0=h0, lbr=1)
    yield ("gru_lbr1_batch_first", _model_outs("gr1", [helper.make_node("GRU", ["x", "W", "R", "B", "", "h0"],
                                                                        ["y0", "y1"], hidden_size=H, layout=1,
                                                                        direction="bidirectional",
                                                                        linear_before_reset=1)],
                                               xb, [y.shape, yh.shape], [("W", W), ("R", R), ("B", B), ("h0", h0)]),
           xb, _flat(y, yh))
    # RNN: bidirectional, Relu forward and ThresholdedRelu backward, sequence_lens, Y and Y_h
    H = 3
    W, R, B = rand(2, H, IN) * 0.5, rand(2, H, H) * 0.5, rand(2, 2 * H) * 0.5
    lens = np.array([2, 5], np.int32)
    y, yh, _ = _recurrent("rnn", x, W, R, B, H, dirs=2, lens=lens,
                          acts=[(lambda v: np.maximum(v, 0), None, None), (lambda v: np.where(v > 0.2, v, 0), None, None)])
    yield ("rnn_bidir_seq", _model_outs("rn1", [helper.make_node("RNN", ["x", "W", "R", "B", "L"], ["y0", "y1"],
                                                                hidden_size=H, direction="bidirectional",
                                                                activations=["Relu", "ThresholdedRelu"],
                                                                activation_alpha=[0.2])],
                                       x, [y.shape, yh.shape], [("W", W), ("R", R), ("B", B), ("L", lens)]),
           x, _flat(y, yh))
    # TopK: the 3 largest along axis 1 with ties (the lower index first) and their indices through a Cast; the
    # 2 smallest of the last axis, values only
    x = rand(2, 6, 3)
    x[0, 4, :] = x[0, 1, :]
    big = np.argsort(-x, axis=1, kind="stable")[:, :3]
    small = np.argsort(x, axis=-1, kind="stable")[..., :2]
    yield ("topk", _model_outs("tk", [helper.make_node("TopK", ["x", "k3"], ["v", "i"], axis=1),
                                      helper.make_node("Identity", ["v"], ["y0"]),
                                      helper.make_node("Cast", ["i"], ["y1"], to=TensorProto.FLOAT),
                                      helper.make_node("TopK", ["x", "k2"], ["y2", ""], largest=0)],
                               x, [(2, 3, 3), (2, 3, 3), (2, 6, 2)],
                               [("k3", np.array([3], i64)), ("k2", np.array([2], i64))]),
           x, _flat(np.take_along_axis(x, big, axis=1), big.astype(np.float32), np.take_along_axis(x, small, axis=-1)))
    # recurrent weights computed at run time (packed in the working memory before the step): a bidirectional GRU
    # (linear_before_reset 0) whose W, R and B are scaled by 1 + mean(x) / 10; an LSTM whose W alone is computed
    T, Bt, IN, H = 4, 2, 3, 5
    x = rand(T, Bt, IN)
    W0, R0, B0 = rand(2, 3 * H, IN) * 0.4, rand(2, 3 * H, H) * 0.4, rand(2, 6 * H) * 0.4
    g = np.float32(1) + np.float32(x.astype(np.float64).mean()) * np.float32(0.1)
    y, yh, _ = _recurrent("gru", x, W0 * g, R0 * g, B0 * g, H, dirs=2)
    scale = [helper.make_node("ReduceMean", ["x"], ["m"], keepdims=0), helper.make_node("Mul", ["m", "tenth"], ["f"]),
             helper.make_node("Add", ["f", "one"], ["g"])]
    yield ("gru_computed_w", _model_outs("gw", scale + [
        helper.make_node("Mul", ["W0", "g"], ["W"]), helper.make_node("Mul", ["R0", "g"], ["R"]),
        helper.make_node("Mul", ["B0", "g"], ["B"]),
        helper.make_node("GRU", ["x", "W", "R", "B"], ["y0", "y1"], hidden_size=H, direction="bidirectional")],
        x, [y.shape, yh.shape], [("W0", W0), ("R0", R0), ("B0", B0), ("tenth", np.float32(0.1)),
                                 ("one", np.float32(1))]), x, _flat(y, yh))
    W0, R = rand(1, 4 * H, IN) * 0.4, rand(1, 4 * H, H) * 0.4
    y, _, _ = _recurrent("lstm", x, W0 * g, R, None, H)
    yield ("lstm_computed_w", _model("lw", scale + [
        helper.make_node("Mul", ["W0", "g"], ["W"]), helper.make_node("LSTM", ["x", "W", "R"], ["y"], hidden_size=H)],
        x, y.shape, [("W0", W0), ("R", R), ("tenth", np.float32(0.1)), ("one", np.float32(1))]), x, y)
    # TopK's int64 indices as a model output (NAME_run then takes void pointers, NAME_OUTPUT1_TYPE int64_t)
    x = rand(2, 5)
    x[1, 3] = x[1, 0]
    idx = np.argsort(-x, axis=-1, kind="stable")[:, :2]
    g = helper.make_graph([helper.make_node("TopK", ["x", "k"], ["v", "i"])], "tki",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5])],
                          [helper.make_tensor_value_info("v", TensorProto.FLOAT, [2, 2]),
                           helper.make_tensor_value_info("i", TensorProto.INT64, [2, 2])],
                          [numpy_helper.from_array(np.array([2], np.int64), "k")])
    yield ("topk_int64_output", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), x,
           _flat(np.take_along_axis(x, idx, axis=-1), idx.astype(np.float32)))
    # the further float32 ops (src/codegen/emit_float_ops.c)
    yield from op_cases_float.cases()

    # integer values outside the int8 islands (emit_typed_ops.c): int64 Div / Mod with negative operands,
    # out-of-range Cast to int8, Where over int64 with broadcasting, wrapping uint8 shifts and adds
    x = np.array([[7.9, -7.9, 7, -7, 100, -100], [13, -13, 0, 5, -300.5, 300.5]], np.float32)
    b = np.array([2, -2, -3, 3, 7, -7], np.int64)
    a = np.trunc(x).astype(np.int64)
    cast = helper.make_node("Cast", ["x"], ["a"], to=TensorProto.INT64)
    for op, attrs, ref in [("Div", {}, np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))),
                           ("Mod", {}, np.mod(a, b)), ("Mod", {"fmod": 1}, np.fmod(a, b))]:
        name = "%s%s_int64" % (op.lower(), "_fmod" if attrs else "")
        g = helper.make_graph([cast, helper.make_node(op, ["a", "b"], ["y"], **attrs)], name,
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info("y", TensorProto.INT64, list(x.shape))],
                              [numpy_helper.from_array(b, "b")])
        yield (name, helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), x, ref.astype(np.float32))
    # Cast to int8: truncated toward zero, saturated (ONNX's saturate for the integer types nnfx defines so)
    g = helper.make_graph([helper.make_node("Cast", ["x"], ["y"], to=TensorProto.INT8)], "c8",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                          [helper.make_tensor_value_info("y", TensorProto.INT8, list(x.shape))])
    yield ("cast_int8_saturates", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), x,
           np.clip(np.trunc(x), -128, 127).astype(np.float32))
    # Where(x > 0, int64(x), [10, -20, 30, -40, 50, -60]) broadcast over rows
    z = np.array([10, -20, 30, -40, 50, -60], np.int64)
    g = helper.make_graph([cast, helper.make_node("Greater", ["x", "zero"], ["c"]),
                           helper.make_node("Where", ["c", "a", "z"], ["y"])], "wh",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                          [helper.make_tensor_value_info("y", TensorProto.INT64, list(x.shape))],
                          [numpy_helper.from_array(np.float32(0), "zero"), numpy_helper.from_array(z, "z")])
    yield ("where_int64_bcast", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), x,
           np.where(x > 0, a, z).astype(np.float32))
    # uint8: x << [1, 2, 3] and x + 200 wrap modulo 256 (as numpy's uint8 arithmetic)
    u = np.array([[1, 100, 200], [255, 3, 64]], np.float32)
    sh = np.array([1, 2, 3], np.uint8)
    ub = u.astype(np.uint8)
    g = helper.make_graph([helper.make_node("Cast", ["x"], ["u"], to=TensorProto.UINT8),
                           helper.make_node("BitShift", ["u", "sh"], ["y0"], direction="LEFT"),
                           helper.make_node("Add", ["u", "k"], ["y1"])], "u8",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y0", TensorProto.UINT8, [2, 3]),
                           helper.make_tensor_value_info("y1", TensorProto.UINT8, [2, 3])],
                          [numpy_helper.from_array(sh, "sh"), numpy_helper.from_array(np.array([200], np.uint8), "k")])
    yield ("uint8_shift_add_wrap", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), u,
           _flat((ub << sh).astype(np.float32), (ub + np.uint8(200)).astype(np.float32)))
    # Pad of int64 values (constant mode, a negative padding value; the bytes moved as they are)
    g = helper.make_graph([cast, helper.make_node("Pad", ["a", "p", "v"], ["y"], mode="constant")], "padi64",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6])],
                          [helper.make_tensor_value_info("y", TensorProto.INT64, [3, 9])],
                          [numpy_helper.from_array(np.array([1, 1, 0, 2], np.int64), "p"),
                           numpy_helper.from_array(np.array(-7, np.int64), "v")])
    xi = np.array([[7.9, -7.9, 7, -7, 100, -100], [13, -13, 0, 5, -300.5, 300.5]], np.float32)
    yield ("pad_int64_constant", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), xi,
           np.pad(np.trunc(xi).astype(np.int64), ((1, 0), (1, 2)), constant_values=-7).astype(np.float32))
    # uint32 past 2^31: adds wrap modulo 2^32, shifts and Max are unsigned
    x = np.array([[3e9, 4e9, 1, 2147483648], [-40000, 40000, 1.9, -1.9]], np.float32)
    uu = np.clip(np.trunc(x.astype(np.float64)), 0, 4294967295).astype(np.uint32)
    g = helper.make_graph([helper.make_node("Cast", ["x"], ["u"], to=TensorProto.UINT32),
                           helper.make_node("Add", ["u", "k"], ["y0"]),
                           helper.make_node("BitShift", ["u", "s"], ["y1"], direction="RIGHT"),
                           helper.make_node("Max", ["u", "m"], ["y2"])], "u32",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                          [helper.make_tensor_value_info("y%d" % i, TensorProto.UINT32, [2, 4]) for i in range(3)],
                          [numpy_helper.from_array(np.array([1000000000], np.uint32), "k"),
                           numpy_helper.from_array(np.array([4], np.uint32), "s"),
                           numpy_helper.from_array(np.array([2147483653], np.uint32), "m")])
    yield ("uint32_wrap_unsigned", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), x,
           _flat((uu + np.uint32(1000000000)).astype(np.float32), (uu >> np.uint32(4)).astype(np.float32),
                 np.maximum(uu, np.uint32(2147483653)).astype(np.float32)))
    # casts of floats to int16 and uint16: truncated toward zero, then saturated (nnfx's meaning of an
    # out-of-range cast), and int16 arithmetic wrapping modulo 2^16
    g = helper.make_graph([helper.make_node("Cast", ["x"], ["y0"], to=TensorProto.INT16),
                           helper.make_node("Cast", ["x"], ["y1"], to=TensorProto.UINT16),
                           helper.make_node("Add", ["y0", "y0"], ["y2"])], "i16",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                          [helper.make_tensor_value_info("y0", TensorProto.INT16, [2, 4]),
                           helper.make_tensor_value_info("y1", TensorProto.UINT16, [2, 4]),
                           helper.make_tensor_value_info("y2", TensorProto.INT16, [2, 4])])
    i16 = np.clip(np.trunc(x), -32768, 32767).astype(np.int16)
    yield ("cast_int16_uint16", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), x,
           _flat(i16.astype(np.float32), np.clip(np.trunc(x), 0, 65535).astype(np.float32),
                 (i16 + i16).astype(np.float32)))

    # Reductions on overflow-range values (near float's max): the interpreter sums in double in the
    # input's order, so a sum whose partial sums leave float's range but whose result does not is
    # finite; generated C must agree (a float accumulator gives inf) bit for bit (SAME_BITS_AS_RUNTIME).
    # Contiguous and strided axes, ReduceSum, ReduceMean and GlobalAveragePool; numpy's double sums
    # as the reference. A 4-d GlobalAveragePool runs on oneDNN in nnfx run: checked against numpy only.
    big = rand(2, 3, 16) * 1e3
    big[:, :, :4] = np.array([3e38, 3e38, -3e38, -2.5e38], np.float32)
    big[1, 2, 8:12] = np.array([-3.2e38, -3e38, 3.3e38, 3e38], np.float32)
    d64 = big.astype(np.float64)
    g = helper.make_graph([helper.make_node("ReduceSum", ["x", "a2"], ["y0"], keepdims=0),
                           helper.make_node("ReduceMean", ["x"], ["y1"], axes=[2], keepdims=0),
                           helper.make_node("GlobalAveragePool", ["x"], ["y2"]),
                           helper.make_node("ReduceSum", ["x", "a02"], ["y3"], keepdims=1)],
                          "red_big", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 16])],
                          [helper.make_tensor_value_info("y%d" % k, TensorProto.FLOAT, s) for k, s in
                           enumerate([[2, 3], [2, 3], [2, 3, 1], [1, 3, 1]])],
                          [numpy_helper.from_array(np.array([2], i64), "a2"),
                           numpy_helper.from_array(np.array([0, 2], i64), "a02")])
    yield ("reduce_overflow_range", helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), big,
           _flat(d64.sum(2), d64.mean(2), d64.mean(2), d64.sum((0, 2))))
    x4 = big.reshape(2, 3, 4, 4)
    yield ("gap4_overflow_range", _model("gap4", helper.make_node("GlobalAveragePool", ["x"], ["y"]), x4,
                                         (2, 3, 1, 1)), x4, d64.mean(2))

def refused():
    x = np.zeros((2, 5), np.float32)
    # a data-dependent size merged with a static one: generated C computes over the bound, which a
    # flattened [2, count] cannot keep apart
    g = helper.make_graph([helper.make_node("NonZero", ["x"], ["nz"]),
                           helper.make_node("Reshape", ["nz", "flat_shape"], ["flat"]),
                           helper.make_node("Cast", ["flat"], ["y"], to=1)],
                          "nz", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(np.array([-1], np.int64), "flat_shape")])
    yield ("non_zero", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
           ["node flat", "(Reshape)", "merges or splits a data-dependent dim", "--outputs nz"])
    # no outputs: NAME_run would compute nothing (nnfx run refuses it too)
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["r"])], "none",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5])], [])
    yield ("no_outputs", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), ["has no outputs"])
    # an RNN's sequence_lens computed from a model input (torch's pack_padded_sequence casts the lengths): the
    # refusal names the input and the --value that fixes it
    rng = np.random.default_rng(5)
    g = helper.make_graph([helper.make_node("Cast", ["lens"], ["l32"], to=TensorProto.INT32),
                           helper.make_node("RNN", ["x", "W", "R", "", "l32"], ["y", "yh"], hidden_size=4)],
                          "lens", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 2, 3]),
                                   helper.make_tensor_value_info("lens", TensorProto.INT64, [2])],
                          [helper.make_tensor_value_info("yh", TensorProto.FLOAT, [1, 2, 4])],
                          [numpy_helper.from_array(rng.standard_normal((1, 4, 3)).astype(np.float32), "W"),
                           numpy_helper.from_array(rng.standard_normal((1, 4, 4)).astype(np.float32), "R")])
    yield ("rnn_lens_computed", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
           ["sequence_lens is not a constant", "computed from model input lens", "--value lens="])
