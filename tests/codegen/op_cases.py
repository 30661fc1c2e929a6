"""Single-op ONNX models for `nnfx codegen`, built with onnx.helper, each
with a random input and its reference output computed with numpy
(independently of nnfx).

cases() yields (name, ModelProto, input array, reference output array);
refused() yields (name, ModelProto, words the exit-3 message must hold).
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper


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


def refused():
    x = np.zeros((2, 5), np.float32)
    # data-dependent output size: generated C has static shapes
    g = helper.make_graph([helper.make_node("NonZero", ["x"], ["nz"]), helper.make_node("Cast", ["nz"], ["y"], to=1)],
                          "nz", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    yield ("non_zero", helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
           ["node nz", "(NonZero)", "known only at run time"])
    yield ("pad_reflect", _model("pr", helper.make_node("Pad", ["x", "p"], ["y"], mode="reflect"), x, (2, 7),
                                 [("p", np.array([0, 1, 0, 1], np.int64))]), ["(pad)", "constant-mode"])
    yield ("pad_crop", _model("pc", helper.make_node("Pad", ["x", "p"], ["y"]), x, (2, 3),
                              [("p", np.array([0, -1, 0, -1], np.int64))]), ["(pad)", "negative pads"])
    x = np.zeros((2, 3, 4), np.float32)
    yield ("resize_dim0", _model("rd", helper.make_node("Resize", ["x", "", "s"], ["y"]), x, (4, 3, 4),
                                 [("s", np.array([2, 1, 1], np.float32))]), ["(resize)", "last two"])
    yield ("resize_linear", _model("rl", helper.make_node("Resize", ["x", "", "s"], ["y"], mode="linear"), x,
                                   (2, 6, 8), [("s", np.array([1, 2, 2], np.float32))]), ["(resize)", "only nearest"])
