"""Conv, pooling and Gemm models for `nnfx codegen --optimize speed|size`,
built with onnx.helper, each with a random input and its reference output
from PyTorch (torch.nn.functional, independently of nnfx). The shapes
exercise what the kernels special-case: output channels not a multiple of
the packed block (16), groups, channel multipliers, strides, dilations,
asymmetric padding, 1-d convs, batches, a fused residual + ReLU, pooling
windows that overhang the input (ceil_mode, count_include_pad), Gemm with
K not a multiple of 8.

cases() yields (name, ModelProto, input array, reference output array).
"""
import numpy as np
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper


def _model(name, nodes, x, y_shape, inits=()):
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(y_shape))],
                          [numpy_helper.from_array(a, n) for n, a in inits])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a)).double()


def _conv(name, x, w, b, stride, pads, dil, group, post=None):
    """Conv (pads: ONNX begin..., end...) and its PyTorch result; post:
    "res_relu" adds x and applies ReLU after the conv; "x_hsig": c *
    HardSigmoid(c) (hard-swish as exported before opset 14); "hsig":
    HardSigmoid(c) with alpha 0.2, beta 0.3; "relu": ReLU(c)."""
    nsp = x.ndim - 2
    inputs = ["x", "w"] + (["b"] if b is not None else [])
    out = "c" if post else "y"
    nodes = [helper.make_node("Conv", inputs, [out], strides=[stride] * nsp, pads=pads, dilations=[dil] * nsp,
                              group=group)]
    # PyTorch pads symmetrically: pad the input explicitly (last dim first)
    fp = []
    for d in reversed(range(nsp)):
        fp += [pads[d], pads[nsp + d]]
    xt = F.pad(_t(x), fp)
    conv = F.conv3d if nsp == 3 else F.conv2d if nsp == 2 else F.conv1d
    ref = conv(xt, _t(w), _t(b) if b is not None else None, stride=stride, dilation=dil, groups=group)
    if post == "res_relu":
        nodes += [helper.make_node("Add", ["c", "x"], ["s"]), helper.make_node("Relu", ["s"], ["y"])]
        ref = torch.relu(ref + _t(x))
    if post == "x_hsig":
        nodes += [helper.make_node("HardSigmoid", ["c"], ["g"], alpha=1.0 / 6.0, beta=0.5),
                  helper.make_node("Mul", ["c", "g"], ["y"])]
        ref = ref * torch.clamp(ref / 6 + 0.5, 0, 1)
    if post == "relu":
        nodes += [helper.make_node("Relu", ["c"], ["y"])]
        ref = torch.relu(ref)
    if post == "hsig":
        nodes += [helper.make_node("HardSigmoid", ["c"], ["y"], alpha=0.2, beta=0.3)]
        ref = torch.clamp(0.2 * ref + 0.3, 0, 1)
    inits = [("w", w)] + ([("b", b)] if b is not None else [])
    ref = ref.float().numpy()
    return (name, _model(name, nodes, x, ref.shape, inits), x, ref)


def _pool(name, op, x, k, stride, pads, ceil, dil=1, incl=0):
    nsp = x.ndim - 2
    attrs = dict(kernel_shape=[k] * nsp, strides=[stride] * nsp, pads=pads, ceil_mode=ceil)
    if op == "MaxPool":
        attrs["dilations"] = [dil] * nsp
        ref = (F.max_pool3d if nsp == 3 else F.max_pool2d)(_t(x), k, stride, pads[0], dil, ceil_mode=bool(ceil))
    else:
        attrs["count_include_pad"] = incl
        ref = (F.avg_pool3d if nsp == 3 else F.avg_pool2d)(_t(x), k, stride, pads[0], ceil_mode=bool(ceil),
                                                          count_include_pad=bool(incl))
    ref = ref.float().numpy()
    return (name, _model(name, [helper.make_node(op, ["x"], ["y"], **attrs)], x, ref.shape), x, ref)


def cases():
    rng = np.random.default_rng(11)

    def rand(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    yield _conv("conv_stride2_asym", rand(1, 5, 9, 11), rand(20, 5, 3, 3), rand(20), 2, [1, 0, 2, 1], 1, 1)
    yield _conv("conv_group2_dil2", rand(1, 8, 7, 7), rand(12, 4, 3, 3), None, 1, [2, 2, 2, 2], 2, 2)
    yield _conv("conv_multiplier", rand(1, 3, 6, 6), rand(6, 1, 3, 3), rand(6), 1, [1, 1, 1, 1], 1, 3)
    yield _conv("conv_depthwise", rand(1, 4, 6, 7), rand(4, 1, 3, 3), rand(4), 2, [1, 1, 1, 1], 1, 4)
    yield _conv("conv1d_stride3", rand(1, 4, 17), rand(18, 4, 5), rand(18), 3, [2, 2], 1, 1)
    yield _conv("conv_res_relu", rand(1, 16, 6, 5), rand(16, 16, 3, 3), rand(16), 1, [1, 1, 1, 1], 1, 1, "res_relu")
    yield _conv("conv_x_hard_sigmoid", rand(1, 6, 7, 5), rand(10, 6, 3, 3), rand(10), 1, [1, 1, 1, 1], 1, 1,
                "x_hsig")
    yield _conv("conv_hard_sigmoid", rand(1, 6, 5, 4), rand(8, 6, 1, 1), rand(8), 1, [0, 0, 0, 0], 1, 1, "hsig")
    yield _conv("conv1x1_batch2", rand(2, 24, 5, 7), rand(40, 24, 1, 1), rand(40), 1, [0, 0, 0, 0], 1, 1)
    # a 1x1 map: every tile is one pixel repeated
    yield _conv("conv_1x1_map", rand(1, 7, 1, 1), rand(33, 7, 1, 1), rand(33), 1, [0, 0, 0, 0], 1, 1)
    # the host kernel's matrix-product tiles (NNFX_RT_VT): a strided conv whose
    # sum (60 channels x 9 taps = 540) spans two chunks of 512, with 70 output
    # channels (a block of 6) and 42 pixels (a run of 24 through the 6 x 16
    # tiles, then a short run); a short sum (2 x 9 = 18) through the
    # 4-channel tiles with 66 outputs (a tile of 2); a 1x1 conv read in place
    # (48 pixels: two whole runs, 70 channels: the 6 x 16 tiles) and one with
    # a residual whose sum (520 channels) spans two chunks
    yield _conv("conv_vt_chunks", rand(1, 60, 13, 11), rand(70, 60, 3, 3), rand(70), 2, [1, 0, 2, 1], 1, 1)
    # a 3-channel stem at stride 2 with rows of 30 outputs: runs on one input
    # row read by stride, runs across rows and taps in the padding lane by lane
    yield _conv("conv_vt_stem", rand(1, 3, 9, 60), rand(64, 3, 3, 3), rand(64), 2, [1, 1, 1, 1], 1, 1)
    yield _conv("conv_vt_short", rand(1, 2, 9, 13), rand(66, 2, 3, 3), rand(66), 2, [0, 1, 1, 1], 1, 1)
    # AVX-512 hosts run only the short sums (< 32) on these tiles, 8 channels
    # x 48 pixels: a stem with ReLU, 70 channels (a last block of 6: a part
    # tile) and 3 runs of 48 then one of 12 pixels
    yield _conv("conv_vt_stem_relu", rand(1, 3, 23, 26), rand(70, 3, 3, 3), rand(70), 2, [1, 1, 1, 1], 1, 1, "relu")
    yield _conv("conv_vt_direct", rand(1, 70, 6, 8), rand(33, 70, 1, 1), None, 1, [0, 0, 0, 0], 1, 1)
    # a 1x1 conv summing 32 channels into 75 (AVX-512 hosts: the 8 x 48
    # tiles, a last block of 11) with ReLU, batch 2 of 63 pixels: a run of
    # 48 read in place, then 15 gathered
    yield _conv("conv_vt_1x1_k32", rand(2, 32, 7, 9), rand(75, 32, 1, 1), rand(75), 1, [0, 0, 0, 0], 1, 1, "relu")
    # a plane kept (stride 1) with dilation 2 into 68 channels: each tap's
    # shifted rows read as masked vectors, the edge runs lane by lane
    yield _conv("conv_vt_same_dil2", rand(1, 12, 9, 10), rand(68, 12, 3, 3), rand(68), 1, [2, 2, 2, 2], 2, 1)
    yield _conv("conv_vt_res_chunks", rand(1, 520, 5, 7), 0.05 * rand(520, 520, 1, 1), rand(520), 1, [0, 0, 0, 0],
                1, 1, "res_relu")
    # pooling rows short enough for the explicit vectors: stride 2 with a
    # whole vector read as two (13 columns: 8 + a tail of 5) and NaNs, stride
    # 1 with padding (an average, 14 columns)
    x = rand(2, 3, 27, 27)
    x[1, 2, 5, 9] = np.nan
    x[0, 0, 20, 3] = np.nan
    yield _pool("maxpool_vec_s2", "MaxPool", x, 3, 2, [0, 0, 0, 0], 0)
    yield _pool("avgpool_vec_s1", "AveragePool", rand(1, 2, 12, 14), 3, 1, [1, 1, 1, 1], 0, incl=0)
    # rows of 16 inner columns or more (AVX-512 hosts: 16-float vectors, the
    # last 16 of a row again): stride 2 (37 columns, NaNs and signed zeros),
    # stride 1 with padding (an average, 38 inner columns), stride 3 (lane
    # by lane, 23 columns)
    x = rand(2, 3, 9, 75)
    x[0, 1, 3, 70] = np.nan
    x[1, 0, 6, 33] = np.nan
    x[1, 2, 2:5, 10:20] = -0.0
    x[1, 2, 3, 12] = 0.0
    yield _pool("maxpool_wide_s2", "MaxPool", x, 3, 2, [0, 0, 0, 0], 0)
    yield _pool("avgpool_wide_s1", "AveragePool", rand(1, 2, 6, 40), 3, 1, [1, 1, 1, 1], 0, incl=0)
    x = rand(1, 2, 7, 70)
    x[0, 1, 4, 40] = np.nan
    yield _pool("maxpool_wide_s3", "MaxPool", x, 3, 3, [0, 0, 0, 0], 0)
    x = rand(2, 3, 11, 10)
    x[0, 1, 4, 4] = np.nan  # NaN wins a max
    yield _pool("maxpool_ceil_pad", "MaxPool", x, 3, 2, [1, 1, 1, 1], 1)
    yield _pool("maxpool_dil2", "MaxPool", rand(1, 2, 9, 9), 2, 1, [0, 0, 0, 0], 0, dil=2)
    yield _pool("avgpool_incl_ceil", "AveragePool", rand(1, 3, 10, 9), 3, 2, [1, 1, 1, 1], 1, incl=1)
    yield _pool("avgpool_excl", "AveragePool", rand(1, 3, 7, 8), 3, 2, [1, 1, 1, 1], 0, incl=0)
    # GlobalAveragePool over 13 channels of 35 values (AVX-512 hosts: 8
    # channels' sums side by side, then the last 5 one by one)
    x = rand(1, 13, 5, 7)
    ref = _t(x).mean(dim=(2, 3), keepdim=True).float().numpy()
    yield ("gap_rows", _model("gap", [helper.make_node("GlobalAveragePool", ["x"], ["y"])], x, ref.shape), x, ref)
    # 3-d: a grouped, strided, dilated conv with asymmetric pads; average pooling with pads, both divisors
    # and a ceil_mode overhang; max pooling with dilation
    yield _conv("conv3d_group2", rand(1, 4, 6, 7, 5), rand(6, 2, 3, 2, 3), rand(6), 2, [1, 0, 2, 1, 1, 0], 1, 2)
    yield _conv("conv3d_dil2", rand(2, 3, 7, 6, 6), rand(5, 3, 2, 3, 2), None, 1, [1, 1, 1, 1, 1, 1], 2, 1)
    yield _pool("avgpool3d_incl_ceil", "AveragePool", rand(1, 2, 7, 6, 9), 3, 2, [1, 1, 1, 1, 1, 1], 1, incl=1)
    yield _pool("avgpool3d_excl", "AveragePool", rand(1, 2, 5, 8, 7), 3, 2, [1, 1, 1, 1, 1, 1], 0, incl=0)
    # Gemm, transB (a Linear): K = 37 is not a multiple of the 8 partial sums
    x, w, b = rand(3, 37), rand(10, 37), rand(10)
    ref = (0.5 * _t(x) @ _t(w).T + 2.0 * _t(b)).float().numpy()
    yield ("gemm_transb", _model("gm", [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1, alpha=0.5,
                                                         beta=2.0)], x, ref.shape, [("w", w), ("b", b)]), x, ref)
