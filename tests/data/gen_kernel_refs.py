#!/usr/bin/python3
"""Writes small inputs and PyTorch- or numpy-computed outputs for tests/test_kernels.c.

Run with an interpreter that has torch and numpy:
    /usr/bin/python3 tests/data/gen_kernel_refs.py
Each case NAME writes NAME.in<i>.npy for its inputs (in ONNX input order;
parameters such as axes or pads are int64 arrays) and NAME.out<k>.npy for
its outputs. The ONNX attributes of each case live in the C test table.
"""
import os

import numpy as np
import torch
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels")
rng = np.random.default_rng(20240601)


def r(*shape, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def i64(*v):
    return np.array(v, dtype=np.int64)


def save(name, inputs, outputs):
    for i, a in enumerate(inputs):
        np.save(os.path.join(OUT, f"{name}.in{i}.npy"), np.array(a, order="C"))
    for k, a in enumerate(outputs):
        np.save(os.path.join(OUT, f"{name}.out{k}.npy"), np.array(a, order="C"))


def t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


def n(x):
    return x.detach().numpy()


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".npy"):
            os.remove(os.path.join(OUT, f))

    # ---- convolution ------------------------------------------------------
    x, w, b = r(2, 3, 8, 8), r(4, 3, 3, 3), r(4)
    save("conv_basic", [x, w, b], [n(F.conv2d(t(x), t(w), t(b), padding=1))])
    x, w = r(1, 4, 9, 9), r(6, 4, 3, 3)
    save("conv_stride_dil", [x, w], [n(F.conv2d(t(x), t(w), None, stride=2, dilation=2, padding=(1, 2)))])
    x, w, b = r(1, 4, 6, 6), r(6, 2, 3, 3), r(6)
    save("conv_group", [x, w, b], [n(F.conv2d(t(x), t(w), t(b), groups=2))])
    x, w, b = r(2, 8, 7, 7), r(8, 1, 3, 3), r(8)
    save("conv_dw", [x, w, b], [n(F.conv2d(t(x), t(w), t(b), stride=2, padding=1, groups=8))])
    x, w = r(1, 3, 5, 5), r(6, 1, 3, 3)
    save("conv_dw_mult", [x, w], [n(F.conv2d(t(x), t(w), None, padding=1, groups=3))])
    x, w, b = r(1, 8, 5, 5), r(4, 8, 1, 1), r(4)
    save("conv_1x1", [x, w, b], [n(F.conv2d(t(x), t(w), t(b)))])
    x, w, b = r(2, 3, 10), r(4, 3, 3), r(4)
    save("conv_1d", [x, w, b], [n(F.conv1d(t(x), t(w), t(b), stride=2, padding=1))])
    # ONNX pads [top, left, bottom, right] = [0, 1, 1, 2]
    x, w = r(1, 2, 6, 6), r(3, 2, 3, 3)
    save("conv_asym_pad", [x, w], [n(F.conv2d(F.pad(t(x), (1, 2, 0, 1)), t(w)))])

    # ---- normalisation ----------------------------------------------------
    x, s, bb, m, v = r(2, 3, 4, 4), r(3), r(3), r(3), r(3, lo=0.2, hi=2.0)
    save("batch_norm", [x, s, bb, m, v],
         [n(F.batch_norm(t(x), t(m), t(v), t(s), t(bb), training=False, eps=1e-5))])
    x, s, bb = r(2, 3, 8), r(8), r(8)
    save("layer_norm", [x, s, bb], [n(F.layer_norm(t(x), (8,), t(s), t(bb), eps=1e-5))])
    x, s = r(2, 3, 8), r(3, 8)
    save("layer_norm_2d", [x, s], [n(F.layer_norm(t(x), (3, 8), t(s), None, eps=1e-3))])
    x = r(2, 3, 4, lo=-5, hi=5)
    save("softmax_last", [x], [n(F.softmax(t(x), dim=-1))])
    save("softmax_axis1", [x], [n(F.softmax(t(x), dim=1))])
    save("log_softmax_last", [x], [n(F.log_softmax(t(x), dim=-1))])
    save("log_softmax_axis0", [x], [n(F.log_softmax(t(x), dim=0))])

    # ---- gemm / matmul ----------------------------------------------------
    a, bm, c = r(3, 5), r(5, 4), r(4)
    save("gemm_basic", [a, bm, c], [n(t(a) @ t(bm) + t(c))])
    a, bm, c = r(5, 3), r(4, 5), r(3, 4)
    save("gemm_trans", [a, bm, c], [n(0.5 * (t(a).T @ t(bm).T) + 2.0 * t(c))])
    a, bm = r(2, 6), r(4, 6)
    save("gemm_nobias", [a, bm], [n(F.linear(t(a), t(bm)))])
    a, bm, c = r(3, 5), r(5, 4), r(3, 1)
    save("gemm_c_col", [a, bm, c], [n(t(a) @ t(bm) + t(c))])
    for name, sa, sb in [("matmul_2d", (3, 4), (4, 5)), ("matmul_batched", (2, 3, 4), (2, 4, 5)),
                         ("matmul_bcast", (2, 1, 3, 4), (3, 4, 2)), ("matmul_shared", (2, 3, 4), (4, 5)),
                         ("matmul_shared_b", (4, 5), (2, 5, 3)), ("matmul_vec_left", (4,), (4, 5)),
                         ("matmul_vec_right", (2, 3, 4), (4,))]:
        a, bm = r(*sa), r(*sb)
        save(name, [a, bm], [n(torch.matmul(t(a), t(bm)))])

    # ---- pooling ----------------------------------------------------------
    x = r(1, 2, 8, 8)
    save("maxpool_basic", [x], [n(F.max_pool2d(t(x), 3, stride=2, padding=1))])
    save("avgpool_incl", [x], [n(F.avg_pool2d(t(x), 3, stride=2, padding=1, count_include_pad=True))])
    save("avgpool_excl", [x], [n(F.avg_pool2d(t(x), 3, stride=2, padding=1, count_include_pad=False))])
    x = r(1, 2, 7, 7)
    save("maxpool_ceil", [x], [n(F.max_pool2d(t(x), 2, stride=2, ceil_mode=True))])
    save("avgpool_ceil", [x], [n(F.avg_pool2d(t(x), 3, stride=2, padding=1, ceil_mode=True,
                                              count_include_pad=True))])
    save("avgpool_ceil_excl", [x], [n(F.avg_pool2d(t(x), 3, stride=2, padding=1, ceil_mode=True,
                                                   count_include_pad=False))])
    x = r(1, 1, 8, 8)
    save("maxpool_dil", [x], [n(F.max_pool2d(t(x), 2, stride=1, dilation=2))])
    x = r(1, 2, 9)
    save("maxpool_1d", [x], [n(F.max_pool1d(t(x), 3, stride=2))])
    x = r(2, 3, 5, 5)
    save("global_avg", [x], [n(F.adaptive_avg_pool2d(t(x), 1))])
    save("global_max", [x], [n(F.adaptive_max_pool2d(t(x), 1))])

    # ---- activations and element-wise math --------------------------------
    x = r(2, 3, 4, 5, lo=-4, hi=4)
    tx = t(x)
    for name, y in [("relu", F.relu(tx)), ("leaky_relu", F.leaky_relu(tx, 0.1)), ("sigmoid", torch.sigmoid(tx)),
                    ("hard_sigmoid", F.hardsigmoid(tx)), ("hard_swish", F.hardswish(tx)), ("tanh", torch.tanh(tx)),
                    ("elu", F.elu(tx, 0.5)), ("erf", torch.erf(tx)), ("exp", torch.exp(tx)), ("neg", -tx),
                    ("abs", torch.abs(tx)), ("identity", tx), ("dropout", F.dropout(tx, 0.5, training=False))]:
        save(name, [x], [n(y)])
    xp = r(2, 3, 4, 5, lo=0.1, hi=4)
    for name, y in [("log", torch.log(t(xp))), ("sqrt", torch.sqrt(t(xp))), ("reciprocal", torch.reciprocal(t(xp)))]:
        save(name, [xp], [n(y)])
    slope = r(3, 1, 1, lo=0, hi=0.5)
    save("prelu", [x, slope], [n(F.prelu(tx, t(slope).reshape(3)))])
    save("clip", [x, np.array(-1.0, np.float32), np.array(2.0, np.float32)], [n(torch.clamp(tx, -1.0, 2.0))])
    save("clip_min", [x, np.array(0.5, np.float32)], [n(torch.clamp(tx, min=0.5))])

    # ---- broadcasting binary ops -------------------------------------------
    a = r(2, 3, 4, 5)
    b3 = r(3, 1, 1)
    save("add_same", [a, x], [n(t(a) + tx)])
    save("add_bcast", [a, b3], [n(t(a) + t(b3))])
    b5 = r(5)
    save("sub_bcast_left", [b5, a], [n(t(b5) - t(a))])
    s = np.array(1.5, np.float32)
    save("mul_scalar", [a, s], [n(t(a) * 1.5)])
    d1, d2 = r(2, 1, 4, 1), r(3, 1, 5, lo=0.5, hi=2)
    save("div_bcast", [d1, d2], [n(t(d1) / t(d2))])
    save("pow_scalar", [xp, np.array(2.5, np.float32)], [n(torch.pow(t(xp), 2.5))])
    e = r(4, 5, lo=-1, hi=2)
    save("pow_tensor", [xp, e], [n(torch.pow(t(xp), t(e)))])
    ia, ib = i64(3, 5, -7, 8), i64(2)
    save("mul_int64", [ia, ib], [n(t(ia) * t(ib))])
    save("add_int64", [ia, i64(1, 2, 3, 4)], [ia + i64(1, 2, 3, 4)])
    save("div_int64", [i64(6, 9, 12, 3), i64(3)], [i64(2, 3, 4, 1)])
    ca, cb = np.round(r(3, 4)), np.round(r(4))
    save("equal", [ca, cb], [n(t(ca) == t(cb))])
    save("less", [ca, cb], [n(t(ca) < t(cb))])
    save("greater", [ca, cb], [n(t(ca) > t(cb))])
    save("equal_int64", [i64(1, 2, 3), i64(2)], [np.array([False, True, False])])
    cond = rng.uniform(size=(2, 1, 4)) > 0.5
    wx, wy = r(3, 1), r(2, 3, 4)
    save("where", [cond, wx, wy], [n(torch.where(t(cond), t(wx), t(wy)))])

    # ---- reductions --------------------------------------------------------
    x = r(2, 3, 4)
    tx = t(x)
    save("reduce_mean_keep", [x, i64(1)], [n(tx.mean(dim=1, keepdim=True))])
    save("reduce_sum_nokeep", [x, i64(0, 2)], [n(tx.sum(dim=(0, 2)))])
    save("reduce_max_last", [x, i64(-1)], [n(tx.amax(dim=-1, keepdim=True))])
    save("reduce_mean_all", [x], [n(tx.mean())])
    save("argmax_keep", [x], [n(tx.argmax(dim=1, keepdim=True))])
    save("argmax_last", [x], [n(tx.argmax(dim=-1))])

    # ---- shape and data movement ---------------------------------------------
    save("flatten_1", [x], [n(torch.flatten(tx, 1))])
    save("flatten_0", [x], [x.reshape(1, 24)])
    save("flatten_2", [x], [x.reshape(6, 4)])
    save("reshape", [x, i64(4, 0, -1)], [x.reshape(4, 3, 2)])
    x4 = r(2, 1, 3, 1)
    save("squeeze_axes", [x4, i64(1)], [x4.reshape(2, 3, 1)])
    save("squeeze_all", [x4], [x4.reshape(2, 3)])
    x2 = r(2, 3)
    save("unsqueeze", [x2, i64(0, -1)], [x2.reshape(1, 2, 3, 1)])
    x = r(2, 3, 4, 5)
    save("transpose_perm", [x], [np.transpose(x, (0, 2, 3, 1))])
    save("transpose_default", [x], [np.transpose(x)])
    c1, c2, c3 = r(2, 1, 3), r(2, 4, 3), r(2, 2, 3)
    save("concat", [c1, c2, c3], [n(torch.cat([t(c1), t(c2), t(c3)], dim=1))])
    save("concat_int64", [i64(1, 2), i64(3)], [i64(1, 2, 3)])
    x = r(2, 7, 3)
    parts = torch.split(t(x), [2, 4, 1], dim=1)
    save("split_sizes", [x, i64(2, 4, 1)], [n(p) for p in parts])
    save("split_equal", [x], [n(p) for p in torch.chunk(t(x), 3, dim=1)])
    x = r(5, 6, 7)
    save("slice_neg_step", [x, i64(1, -1), i64(4, -1000), i64(0, 2), i64(2, -2)], [x[1:4:2, :, -1::-2]])
    save("slice_basic", [x, i64(1, 2), i64(2**63 - 1, 5)], [x[1:, 2:5]])
    xi = np.arange(20, dtype=np.int64).reshape(5, 4)
    g_in = r(5, 4)
    save("gather_axis0", [g_in, i64(0, 4, -1, 2).reshape(2, 2)], [np.take(g_in, [[0, 4], [4, 2]], axis=0)])
    save("gather_int64", [xi, np.array(3, np.int64)], [xi[:, 3]])
    save("gather_shape_chain", [i64(2, 3, 4), np.array(0, np.int64)], [np.array(2, np.int64)])
    x = r(1, 2, 4, 5)
    tx = t(x)
    pads = i64(0, 0, 1, 2, 0, 0, 2, 1)
    save("pad_constant", [x, pads, np.array(1.5, np.float32)], [n(F.pad(tx, (2, 1, 1, 2), value=1.5))])
    save("pad_reflect", [x, pads], [n(F.pad(tx, (2, 1, 1, 2), mode="reflect"))])
    save("pad_edge", [x, pads], [n(F.pad(tx, (2, 1, 1, 2), mode="replicate"))])
    xe = r(3, 1)
    save("expand", [xe, i64(2, 3, 4)], [n(t(xe).expand(2, 3, 4))])
    xt = r(2, 3)
    save("tile", [xt, i64(2, 3)], [np.tile(xt, (2, 3))])
    x = r(1, 2, 4, 5)
    tx = t(x)
    empty = np.zeros((0,), np.float32)
    save("resize_nearest", [x, empty, np.array([1, 1, 2, 2], np.float32)],
         [n(F.interpolate(tx, scale_factor=2, mode="nearest"))])
    save("resize_nearest_sizes", [x, empty, empty, i64(1, 2, 7, 8)],
         [n(F.interpolate(tx, size=(7, 8), mode="nearest"))])
    save("resize_linear", [x, empty, np.array([1, 1, 2, 2], np.float32)],
         [n(F.interpolate(tx, scale_factor=2, mode="bilinear", align_corners=False))])
    save("resize_linear_frac", [x, empty, np.array([1, 1, 1.5, 1.5], np.float32)],
         [n(F.interpolate(tx, scale_factor=1.5, mode="bilinear", align_corners=False))])
    save("resize_align", [x, empty, empty, i64(1, 2, 7, 9)],
         [n(F.interpolate(tx, size=(7, 9), mode="bilinear", align_corners=True))])
    xc = np.array([-2.7, -0.5, 0.0, 0.4, 3.5, 1e3], np.float32)
    save("cast_f2i", [xc], [n(t(xc).to(torch.int64))])
    save("cast_i2f", [i64(-3, 0, 7)], [np.array([-3, 0, 7], np.float32)])
    save("cast_f2b", [xc], [n(t(xc).to(torch.bool))])
    save("range_float", [np.array(0.5, np.float32), np.array(3.2, np.float32), np.array(0.7, np.float32)],
         [n(torch.arange(0.5, 3.2, 0.7, dtype=torch.float32))])
    save("range_int", [np.array(10, np.int64), np.array(2, np.int64), np.array(-3, np.int64)],
         [n(torch.arange(10, 2, -3))])
    save("shape", [r(2, 3, 4)], [i64(2, 3, 4)])

    # cases added later go here, so earlier inputs keep their random draws
    x, w = r(1, 4, 9, 10), r(4, 1, 3, 3)
    save("conv_dw_dil", [x, w], [n(F.conv2d(t(x), t(w), None, stride=(3, 2), dilation=2, padding=2, groups=4))])

    # multi-output ops (the compiled plan writes every output of one step)
    x = r(2, 7, 5)
    save("split_uneven", [x], [n(p) for p in torch.chunk(t(x), 3, dim=1)])
    save("split_last", [x, i64(1, 4)], [n(p) for p in torch.split(t(x), [1, 4], dim=2)])
    x = r(3, 4, 6)
    v, ix = torch.topk(t(x), 3, dim=-1, largest=True, sorted=True)
    save("topk_largest", [x, i64(3)], [n(v), n(ix)])
    v, ix = torch.topk(t(x), 2, dim=1, largest=False, sorted=True)
    save("topk_smallest_axis1", [x, i64(2)], [n(v), n(ix)])
    x = r(2, 3, 6, 6)
    y, ix = F.max_pool2d(t(x), 2, stride=2, return_indices=True)
    # ONNX indices count over the whole tensor (N, C, H, W), PyTorch's per plane
    plane = (np.arange(2)[:, None] * 3 + np.arange(3)[None, :])[:, :, None, None] * 36
    save("maxpool_indices", [x], [n(y), n(ix) + plane])
    # LpNormalization: F.normalize (its eps only guards the zero vectors, which give 0 as ONNX Runtime's)
    x = r(2, 5, 3)
    x[1, :, 2] = 0
    save("lp_norm_p1", [x], [n(F.normalize(t(x), p=1.0, dim=1))])
    save("lp_norm_p2", [x], [n(F.normalize(t(x), p=2.0, dim=-1))])
    # opset 18: Mish and the bitwise ops (int32, broadcasting)
    x = r(2, 3, 4, lo=-8, hi=8)
    save("mish", [x], [n(F.mish(t(x)))])
    a = rng.integers(-1000, 1000, size=(2, 3, 4)).astype(np.int32)
    b = rng.integers(-1000, 1000, size=(3, 1)).astype(np.int32)
    for name, f in (("bitwise_and", torch.bitwise_and), ("bitwise_or", torch.bitwise_or),
                    ("bitwise_xor", torch.bitwise_xor)):
        save(name, [a, b], [f(torch.from_numpy(a), torch.from_numpy(b)).numpy()])
    save("bitwise_not", [a], [torch.bitwise_not(torch.from_numpy(a)).numpy()])

    # ---- recurrent layers (nn.LSTM / nn.GRU; ONNX gate order i, o, f, c and z, r, h) ----
    # hidden sizes that are not multiples of the vector width (the rows' tails)
    torch.manual_seed(7)
    T_, B_, I_, H_ = 6, 2, 5, 19
    lstm = torch.nn.LSTM(I_, H_, bidirectional=True)
    x, h0, c0 = r(T_, B_, I_), r(2, B_, H_, lo=-1, hi=1), r(2, B_, H_, lo=-1, hi=1)
    with torch.no_grad():
        y, (yh, yc) = lstm(t(x), (t(h0), t(c0)))

    def reorder(w, order):  # PyTorch's gate blocks to ONNX's order
        return np.concatenate([w[k * H_:(k + 1) * H_] for k in order], 0)

    def onnx_w(mod, name, order):
        return np.stack([reorder(n(getattr(mod, name + sfx)), order) for sfx in ("_l0", "_l0_reverse")])

    io = (0, 3, 1, 2)  # PyTorch i, f, g, o -> ONNX i, o, f, c
    W, R = onnx_w(lstm, "weight_ih", io), onnx_w(lstm, "weight_hh", io)
    B = np.concatenate([onnx_w(lstm, "bias_ih", io), onnx_w(lstm, "bias_hh", io)], 1)
    # Y [T, dirs, B, H] from PyTorch's [T, B, dirs * H]
    Y = n(y).reshape(T_, B_, 2, H_).transpose(0, 2, 1, 3)
    save("lstm_bidir", [x, W, R, B, i64(0), h0, c0], [Y, n(yh), n(yc)])
    gru = torch.nn.GRU(I_, H_)
    x, h0 = r(T_, B_, I_), r(1, B_, H_, lo=-1, hi=1)
    with torch.no_grad():
        y, yh = gru(t(x), t(h0))
    zr = (1, 0, 2)  # PyTorch r, z, n -> ONNX z, r, h
    W, R = n(gru.weight_ih_l0)[None], n(gru.weight_hh_l0)[None]
    W, R = reorder(W[0], zr)[None], reorder(R[0], zr)[None]
    B = np.concatenate([reorder(n(gru.bias_ih_l0), zr), reorder(n(gru.bias_hh_l0), zr)])[None]
    save("gru_lbr", [x, W, R, B, i64(0), h0], [n(y)[:, None], n(yh)])
    # GRU with linear_before_reset = 0 (PyTorch has no such layer): numpy,
    # h~ = tanh(x Wh + (r * h) Rh^T + Wbh + Rbh) as ONNX defines it
    def sig(v):
        return 1 / (1 + np.exp(-v))

    x64, W64, R64, B64, h = x.astype(np.float64), W[0].astype(np.float64), R[0].astype(np.float64), \
        B[0].astype(np.float64), h0[0].astype(np.float64)
    ys = []
    for step in range(T_):
        gx, gh = x64[step] @ W64.T + B64[:3 * H_], h @ R64.T + B64[3 * H_:]
        z = sig(gx[:, :H_] + gh[:, :H_])
        rr = sig(gx[:, H_:2 * H_] + gh[:, H_:2 * H_])
        hh = np.tanh(gx[:, 2 * H_:] + (rr * h) @ R64[2 * H_:].T + B64[5 * H_:])
        h = (1 - z) * hh + z * h
        ys.append(h)
    save("gru_lbr0", [x, W, R, B, i64(0), h0], [np.stack(ys)[:, None].astype(np.float32), h[None].astype(np.float32)])

    # ---- 3-d convolution (the plan runs it on oneDNN) ----
    x, w, b = r(1, 5, 6, 9, 8), r(7, 5, 3, 3, 2), r(7)
    save("conv3d_stride_pad", [x, w, b], [n(F.conv3d(F.pad(t(x), (1, 0, 1, 1, 0, 1)), t(w), t(b), stride=(1, 2, 1)))])

    # ---- ConvTranspose (2-d: the plan runs it on oneDNN) ----
    x, w, b = r(1, 6, 5, 7), r(6, 4, 2, 2), r(4)
    save("convt_2x2_s2", [x, w, b], [n(F.conv_transpose2d(t(x), t(w), t(b), stride=2))])
    x, w = r(2, 3, 4, 5), r(3, 5, 3, 3)
    save("convt_pad_outpad", [x, w], [n(F.conv_transpose2d(t(x), t(w), None, stride=2, padding=1, output_padding=1))])
    x, w, b = r(1, 4, 5, 6), r(4, 3, 3, 2), r(3)
    save("convt_dil", [x, w, b], [n(F.conv_transpose2d(t(x), t(w), t(b), stride=(1, 2), padding=(2, 0), dilation=2))])

    # ---- ops whose only cases were ONNX's node tests before ----
    # A generator of their own, so that the cases above keep their inputs.
    g = np.random.default_rng(36)

    def u(*shape, lo=-2.0, hi=2.0):
        return g.uniform(lo, hi, size=shape).astype(np.float32)

    x = u(2, 3, 4, 5, lo=-3, hi=3)
    tx = t(x)
    for name, y in [("sin", torch.sin(tx)), ("cos", torch.cos(tx)), ("atan", torch.atan(tx)),
                    ("sinh", torch.sinh(tx)), ("cosh", torch.cosh(tx)), ("asinh", torch.asinh(tx)),
                    ("ceil", torch.ceil(tx)), ("floor", torch.floor(tx)), ("round", torch.round(tx)),
                    ("sign", torch.sign(tx)), ("softplus", F.softplus(tx)), ("softsign", F.softsign(tx)),
                    ("selu", F.selu(tx)), ("celu", F.celu(tx, 0.7)), ("thresholded_relu", torch.threshold(tx, 1.0, 0.0)),
                    ("shrink", F.softshrink(tx, 0.5)), ("hardmax", F.one_hot(tx.argmax(-1), 5).to(torch.float32)),
                    ("size", torch.tensor(x.size, dtype=torch.int64))]:
        save(name, [x], [n(y)])
    xt = u(3, 4, lo=-1.2, hi=1.2)
    save("tan", [xt], [n(torch.tan(t(xt)))])
    xa = u(3, 4, lo=-0.95, hi=0.95)
    for name, y in [("asin", torch.asin(t(xa))), ("acos", torch.acos(t(xa))), ("atanh", torch.atanh(t(xa)))]:
        save(name, [xa], [n(y)])
    xh = u(3, 4, lo=1.05, hi=4)
    save("acosh", [xh], [n(torch.acosh(t(xh)))])
    xn = u(2, 6)
    xn[0, 1], xn[1, 3], xn[1, 4], xn[0, 5] = np.nan, np.inf, -np.inf, np.nan
    save("is_nan", [xn], [np.isnan(xn)])
    save("is_inf", [xn], [np.isinf(xn)])

    # variadic and comparisons (broadcasting)
    a, b, c = u(2, 3, 4), u(3, 1), u(4)
    ta, tb, tc = t(a), t(b), t(c)
    save("min3", [a, b, c], [n(torch.minimum(torch.minimum(ta, tb), tc))])
    save("max3", [a, b, c], [n(torch.maximum(torch.maximum(ta, tb), tc))])
    save("sum3", [a, b, c], [n(ta + tb + tc)])
    save("mean3", [a, b, c], [n((ta + tb + tc) / 3)])
    ca, cb = np.round(u(3, 4)), np.round(u(4))
    save("greater_or_equal", [ca, cb], [n(t(ca) >= t(cb))])
    save("less_or_equal", [ca, cb], [n(t(ca) <= t(cb))])
    save("mod_fmod", [a, np.full((4,), 0.7, np.float32)], [n(torch.fmod(ta, 0.7))])
    ia, ib = g.integers(-20, 20, size=(3, 4)).astype(np.int64), np.array([3, -4, 5, -7], np.int64)
    save("mod_int", [ia, ib], [n(torch.remainder(t(ia), t(ib)))])

    # reductions (axes an int64 input)
    x = u(2, 3, 4, lo=0.2, hi=2)
    tx = t(x)
    save("reduce_min_keep", [x, i64(1)], [n(tx.amin(dim=1, keepdim=True))])
    save("reduce_prod_nokeep", [x, i64(0, 2)], [n(tx.prod(dim=2).prod(dim=0))])
    save("reduce_l1_keep", [x, i64(-1)], [n(tx.abs().sum(dim=-1, keepdim=True))])
    save("reduce_l2_nokeep", [x, i64(1)], [n(tx.square().sum(dim=1).sqrt())])
    save("reduce_log_sum_keep", [x, i64(2)], [n(tx.sum(dim=2, keepdim=True).log())])
    save("reduce_log_sum_exp_keep", [x, i64(1)], [n(torch.logsumexp(tx, dim=1, keepdim=True))])
    save("reduce_sum_square_nokeep", [x, i64(0)], [n(tx.square().sum(dim=0))])
    x = u(3, 4, 5)
    tx = t(x)
    save("argmin_keep", [x], [n(tx.argmin(dim=1, keepdim=True))])
    save("cum_sum", [x, np.array(1, np.int64)], [n(torch.cumsum(tx, dim=1))])
    save("trilu_upper", [x, np.array(1, np.int64)], [n(torch.triu(tx, 1))])
    save("trilu_lower", [x, np.array(-1, np.int64)], [n(torch.tril(tx, -1))])
    idx = g.integers(0, 4, size=(3, 2, 5)).astype(np.int64)
    save("gather_elements", [x, idx], [n(torch.gather(tx, 1, t(idx)))])

    # layout and normalization
    x = u(2, 8, 3, 4)
    tx = t(x)
    bs = 2
    d2s = x.reshape(2, bs, bs, 2, 3, 4).transpose(0, 3, 4, 1, 5, 2).reshape(2, 2, 6, 8)  # ONNX's DCR formula
    save("depth_to_space_dcr", [x], [d2s])
    save("depth_to_space_crd", [x], [n(F.pixel_shuffle(tx, 2))])
    xs = u(2, 3, 4, 6)
    s2d = xs.reshape(2, 3, 2, bs, 3, bs).transpose(0, 3, 5, 1, 2, 4).reshape(2, 12, 2, 3)  # ONNX's formula
    save("space_to_depth", [xs], [s2d])
    sc, bi = u(8), u(8)
    save("instance_norm", [x, sc, bi], [n(F.instance_norm(tx, weight=t(sc), bias=t(bi), eps=1e-5))])
    save("lrn", [x], [n(F.local_response_norm(tx, 3, alpha=0.02, beta=0.75, k=1.0))])
    x64 = x.astype(np.float64)
    mu = x64.mean(axis=(0, 2, 3), keepdims=True)
    sd = np.sqrt(((x64 - mu) ** 2).mean(axis=(0, 2, 3), keepdims=True))
    save("mvn", [x], [((x64 - mu) / sd).astype(np.float32)])
    m = u(2, 3, 3)
    save("det", [m], [n(torch.linalg.det(t(m)))])
    save("eye_like", [u(4, 5)], [np.eye(4, 5, k=1, dtype=np.float32)])

    # logic, indexing and the rest
    ba, bb = g.random((3, 4)) < 0.5, g.random((4,)) < 0.5
    save("not", [ba], [np.logical_not(ba)])
    save("and", [ba, bb], [np.logical_and(ba, bb)])
    save("or", [ba, bb], [np.logical_or(ba, bb)])
    save("xor", [ba, bb], [np.logical_xor(ba, bb)])
    xc = u(3, 4, lo=-9, hi=9)
    save("cast_like", [xc, np.zeros((1,), np.int64)], [n(t(xc).to(torch.int64))])  # truncation toward zero
    x = u(4, 3, 2)  # [time, batch, ...]
    lens = np.array([4, 1, 3], np.int64)
    rs = x.copy()
    for b_ in range(3):
        rs[: lens[b_], b_] = x[: lens[b_], b_][::-1]
    save("reverse_sequence", [x, lens], [rs])
    ind = np.array([[0, 2], [1, -1]], np.int64)
    save("one_hot", [ind, np.array(3, np.int64), np.array([-1.0, 2.0], np.float32)],
         [np.where(F.one_hot(t(np.where(ind < 0, ind + 3, ind)), 3).numpy() == 1, 2.0, -1.0).astype(np.float32)])
    data = u(3, 4, 2)
    gi = np.array([[0, 1], [2, 3], [1, 0]], np.int64)
    save("gather_nd", [data, gi], [data[gi[:, 0], gi[:, 1]]])
    upd = u(3, 2)
    snd = data.copy()
    for k_ in range(3):
        snd[gi[k_, 0], gi[k_, 1]] = upd[k_]
    save("scatter_nd", [data, gi, upd], [snd])
    x = u(3, 5)
    si = np.array([[1, 0, 3], [4, 2, 0]], np.int64)
    su = u(2, 3)
    save("scatter_elements", [x, si, su], [n(t(x).scatter(1, t(si), t(su)))])
    save("scatter_elements_add", [x, si, su], [n(t(x).scatter_add(1, t(si), t(su)))])
    save("scatter", [x, si, su], [n(t(x).scatter(1, t(si), t(su)))])
    ea, eb = u(2, 3, 4), u(2, 4, 5)
    save("einsum_bmm", [ea, eb], [n(torch.einsum("bij,bjk->bik", t(ea), t(eb)))])
    gx, grid = u(1, 2, 4, 5), u(1, 3, 6, 2, lo=-1.1, hi=1.1)
    save("grid_sample", [gx, grid], [n(F.grid_sample(t(gx), t(grid), mode="bilinear", padding_mode="zeros",
                                                      align_corners=False))])
    save("constant_of_shape", [i64(2, 3)], [np.zeros((2, 3), np.float32)])

    for name, fn in [("hann_window", torch.hann_window), ("hamming_window", torch.hamming_window),
                     ("blackman_window", torch.blackman_window)]:
        w = fn(10, periodic=True, dtype=torch.float64)
        if name == "hamming_window":  # ONNX's alpha 25/46 (PyTorch's default 0.54 differs in the last digits)
            k = np.arange(10)
            w = torch.from_numpy(25 / 46 - (21 / 46) * np.cos(2 * np.pi * k / 10))
        save(name, [np.array(10, np.int64)], [w.numpy().astype(np.float32)])
    lg, tg = u(4, 5), np.array([1, 0, 4, 2], np.int64)
    save("nll_loss", [lg, tg], [n(F.nll_loss(t(lg), t(tg)))])
    save("sce_loss", [lg, tg], [n(F.cross_entropy(t(lg), t(tg)))])
    x = u(1, 2, 4, 4)
    pooled, pidx = F.max_pool2d(t(x), 2, stride=2, return_indices=True)
    flat = n(pidx) + (np.arange(2) * 16).reshape(1, 2, 1, 1)  # ONNX's indices run over the whole tensor
    save("max_unpool", [n(pooled), flat], [n(F.max_unpool2d(pooled, pidx, 2, stride=2))])
    xz = np.round(u(3, 4))
    save("non_zero", [xz], [np.array(np.nonzero(xz), np.int64)])
    cond = np.array([True, False, True, True])
    save("compress", [xz, cond], [np.compress(cond, xz, axis=1)])

    xu = np.array([2.0, 1.0, 1.0, 3.0, 4.0, 3.0], np.float32)
    y_, idx_, inv_, cnt_ = np.unique(xu, return_index=True, return_inverse=True, return_counts=True)
    save("unique_sorted", [xu], [y_, idx_.astype(np.int64), inv_.astype(np.int64), cnt_.astype(np.int64)])
    xd = u(2, 8, 1)
    fd = np.fft.fft(xd[..., 0].astype(np.float64), axis=1)
    save("dft", [xd], [np.stack([fd.real, fd.imag], axis=-1).astype(np.float32)])
    bx, by = np.array([16, 4, 1, 255], np.uint8), np.array([1, 2, 3, 1], np.uint8)
    save("bit_shift_right", [bx, by], [bx >> by])
    save("bit_shift_left", [bx, by], [(bx.astype(np.uint16) << by).astype(np.uint8)])
    S, B_, I_, H_ = 4, 2, 3, 5  # ONNX RNN, tanh: h = tanh(x W^T + h R^T + Wb + Rb)
    xr, wr, rr, br = u(S, B_, I_), u(1, H_, I_, lo=-0.5, hi=0.5), u(1, H_, H_, lo=-0.5, hi=0.5), u(1, 2 * H_)
    h = np.zeros((B_, H_))
    ys = []
    for st in range(S):
        h = np.tanh(xr[st].astype(np.float64) @ wr[0].T + h @ rr[0].T + br[0, :H_] + br[0, H_:])
        ys.append(h)
    save("rnn", [xr, wr, rr, br], [np.stack(ys)[:, None].astype(np.float32), h[None].astype(np.float32)])

    # int8 quantization (ONNX's formulas in float64, rounding half to even)
    xq = u(3, 4, lo=-3, hi=3)
    sc, zp = np.array(0.03, np.float32), np.array(-5, np.int8)
    q = np.clip(np.rint(xq.astype(np.float64) / np.float64(sc)) + zp, -128, 127).astype(np.int8)
    save("quantize_linear", [xq, sc, zp], [q])
    save("dequantize_linear", [q, sc, zp], [((q.astype(np.float64) - zp) * np.float64(sc)).astype(np.float32)])
    rmin, rmax = min(0.0, float(xq.min())), max(0.0, float(xq.max()))
    dsc = np.float32((rmax - rmin) / 255)
    dzp = np.uint8(np.clip(np.rint(-rmin / np.float64(dsc)), 0, 255))
    dq = np.clip(np.rint(xq.astype(np.float64) / np.float64(dsc)) + dzp, 0, 255).astype(np.uint8)
    save("dynamic_quantize_linear", [xq], [dq, np.array(dsc, np.float32), np.array(dzp, np.uint8)])
    qa = g.integers(-100, 100, size=(3, 4)).astype(np.int8)
    qb = g.integers(-100, 100, size=(4, 5)).astype(np.int8)
    azp, bzp = np.array(3, np.int8), np.array(-2, np.int8)
    acc = (qa.astype(np.int64) - azp) @ (qb.astype(np.int64) - bzp)
    save("matmul_integer", [qa, qb, azp, bzp], [acc.astype(np.int32)])
    asc, bsc, ysc, yzp = np.array(0.02, np.float32), np.array(0.01, np.float32), np.array(0.5, np.float32), np.array(
        4, np.int8)
    yq = np.clip(np.rint(acc * (np.float64(asc) * np.float64(bsc) / np.float64(ysc))) + yzp, -128, 127).astype(np.int8)
    save("qlinear_matmul", [qa, asc, azp, qb, bsc, bzp, ysc, yzp], [yq])
    qx = g.integers(-100, 100, size=(1, 2, 5, 5)).astype(np.int8)
    qw = g.integers(-100, 100, size=(3, 2, 3, 3)).astype(np.int8)
    wzp = np.array(0, np.int8)
    cacc = F.conv2d(torch.from_numpy(qx.astype(np.float64) - azp), torch.from_numpy(qw.astype(np.float64)), padding=1)
    cacc = np.rint(cacc.numpy()).astype(np.int64)
    save("conv_integer", [qx, qw, azp, wzp], [cacc.astype(np.int32)])
    cy = np.clip(np.rint(cacc * (np.float64(asc) * np.float64(bsc) / np.float64(ysc))) + yzp, -128, 127)
    save("qlinear_conv", [qx, asc, azp, qw, bsc, wzp, ysc, yzp], [cy.astype(np.int8)])

    # STFT (onesided, a window given): frames of frame_length every frame_step, each one's DFT
    sig = u(1, 16, 1)
    win = np.hanning(6).astype(np.float32)
    frames = [np.fft.rfft(sig[0, st:st + 6, 0].astype(np.float64) * win) for st in range(0, 16 - 6 + 1, 3)]
    spec = np.stack(frames)[None]
    save("stft", [sig, np.array(3, np.int64), win, np.array(6, np.int64)],
         [np.stack([spec.real, spec.imag], axis=-1).astype(np.float32)])

    # NonMaxSuppression (corner boxes): per class, by falling score, drop a box whose IoU with a kept one exceeds
    # the threshold; scores at or below score_threshold are never kept
    def iou(p_, q_):
        y1, x1, y2, x2 = min(p_[0], p_[2]), min(p_[1], p_[3]), max(p_[0], p_[2]), max(p_[1], p_[3])
        v1, w1, v2, w2 = min(q_[0], q_[2]), min(q_[1], q_[3]), max(q_[0], q_[2]), max(q_[1], q_[3])
        ih, iw = max(0.0, min(y2, v2) - max(y1, v1)), max(0.0, min(x2, w2) - max(x1, w1))
        inter = ih * iw
        return inter / ((y2 - y1) * (x2 - x1) + (v2 - v1) * (w2 - w1) - inter)

    ctr = u(1, 8, 2, lo=0, hi=3)
    half = u(1, 8, 2, lo=0.3, hi=1.0)
    boxes = np.concatenate([ctr - half, ctr + half], axis=-1).astype(np.float32)
    scores = u(1, 2, 8, lo=0, hi=1)
    sel = []
    for c_ in range(2):
        kept = []
        for i_ in np.argsort(-scores[0, c_], kind="stable"):
            if scores[0, c_, i_] <= 0.2 or len(kept) == 3:
                continue
            if all(iou(boxes[0, i_].astype(np.float64), boxes[0, k_].astype(np.float64)) <= 0.4 for k_ in kept):
                kept.append(i_)
        sel += [[0, c_, k_] for k_ in kept]
    save("nms", [boxes, scores, np.array(3, np.int64), np.array(0.4, np.float32), np.array(0.2, np.float32)],
         [np.array(sel, np.int64)])

    save("constant_float", [], [np.array(2.5, np.float32)])  # Constant value_float=2.5: a float32 scalar

    # RoiAlign (half_pixel, avg) as torchvision's roi_align with aligned=True
    import torchvision

    fx = u(2, 3, 6, 7)
    rois = np.array([[0.5, 1.0, 4.0, 5.0], [1.2, 0.3, 6.1, 3.7], [0.0, 0.0, 2.5, 2.5]], np.float32)
    bidx = np.array([0, 1, 1], np.int64)
    tb = torch.cat([t(bidx.astype(np.float32))[:, None], t(rois)], dim=1)
    save("roi_align", [fx, rois, bidx], [n(torchvision.ops.roi_align(t(fx), tb, (2, 3), 1.0, 2, aligned=True))])

    # Resize of the last two dims only (segmentation heads): 8x up, then
    # the height alone (the width kept)
    xr = u(1, 3, 5, 6)
    none = np.zeros((0,), np.float32)
    save("resize_linear_up8", [xr, none, none, i64(1, 3, 40, 48)],
         [n(F.interpolate(t(xr), size=(40, 48), mode="bilinear", align_corners=False))])
    save("resize_linear_h_only", [xr, none, none, i64(1, 3, 9, 6)],
         [n(F.interpolate(t(xr), size=(9, 6), mode="bilinear", align_corners=False))])

    # vision-transformer shapes: x^2 exactly as PyTorch's x * x (libm's powf is
    # one ulp off on some of these), a channels-last window pad, attention's
    # einsums (q k^T: B transposed; attn v)
    xs = r(64, 64, lo=-4.0, hi=4.0)
    save("pow_square", [xs, np.array(2.0, np.float32)], [n(torch.pow(t(xs), 2.0))])
    xw = r(1, 5, 6, 4)
    save("pad_window", [xw, i64(0, 0, 0, 0, 0, 2, 1, 0)], [n(F.pad(t(xw), (0, 0, 0, 1, 0, 2)))])
    q, k, v = u(1, 2, 3, 5, 4), u(1, 2, 3, 6, 4), u(1, 2, 3, 6, 4)
    qk = n(torch.einsum("bghid,bghjd->bghij", t(q), t(k)))
    save("einsum_attn_qk", [q, k], [qk])
    save("einsum_attn_av", [qk, v], [n(torch.einsum("bghij,bghjd->bghid", t(qk), t(v)))])
    xl = r(2, 7, 37)
    save("reduce_mean_last", [xl, i64(-1)], [n(t(xl).mean(-1, keepdim=True))])  # LayerNorm's mean: by rows
    xt = r(1, 2, 3, 2, 3, 5)  # window partition: [B, H/w, w, W/w, w, C] -> [B, H/w, W/w, w, w, C]
    save("transpose_window", [xt], [np.transpose(xt, (0, 1, 3, 2, 4, 5))])

    # MelWeightMatrix by ONNX's formula (its node test's reference code, in float64): num_mel_bins + 2 points
    # evenly spaced on the mel scale from lower to upper edge, each mapped to the spectrogram bin
    # floor((dft_length + 1) * hz / sample_rate), triangles between them. The edges are picked so that no point
    # lies within 1e-3 of a bin boundary (float32 and float64 give the same bins).
    bins, dft, rate, lo_hz, hi_hz = 5, 128, 16000, 100.0, 7200.0
    mel = np.arange(bins + 2) * ((2595 * np.log10(1 + hi_hz / 700) - 2595 * np.log10(1 + lo_hz / 700)) / (bins + 2))
    hz = 700 * (np.power(10, (mel + 2595 * np.log10(1 + lo_hz / 700)) / 2595) - 1)
    pos = (dft + 1) * hz / rate
    assert np.all(np.abs(pos - np.rint(pos)) > 1e-3), pos
    pt = np.floor(pos).astype(int)
    mw = np.zeros((dft // 2 + 1, bins))
    for i in range(bins):
        lo_, c_, hi_ = pt[i], pt[i + 1], pt[i + 2]
        if c_ == lo_:
            mw[c_, i] = 1
        else:
            for j in range(lo_, c_ + 1):
                mw[j, i] = (j - lo_) / (c_ - lo_)
        for j in range(c_, hi_):
            mw[j, i] = (hi_ - j) / (hi_ - c_)
    save("mel_weight_matrix", [np.array(bins, np.int64), np.array(dft, np.int64), np.array(rate, np.int64),
                               np.array(lo_hz, np.float32), np.array(hi_hz, np.float32)], [mw.astype(np.float32)])

    # TfIdfVectorizer (TFIDF, unigrams and bigrams, skips 0 and 1) counted here by ONNX's definition: an n-gram is
    # n tokens taken every skip + 1 tokens (unigrams once); each pool n-gram's count times its weight goes to
    # output column ngram_indexes[k] (k: the n-gram's place in the pool). Attributes in the C table.
    toks = i64([5, 6, 7, 8, 6, 7, 2, 3, 5], [5, 1, 6, 7, 2, 8, 4, 4, 3])  # bigrams at skip 0 and at skip 1
    pool = [(2,), (3,), (5,), (4,), (5, 6), (7, 8), (6, 7)]  # pool_int64s 2 3 5 4 | 5 6 7 8 6 7; ngram_counts 0 4
    tf_idx, tf_w = [1, 0, 3, 2, 6, 5, 4], [0.5, 1.5, 2.0, 1.0, 3.0, 0.25, 1.25]
    tf = np.zeros((2, 7), np.float32)
    for row in range(2):
        seen = {}
        for nlen in (1, 2):
            for skip in range(2 if nlen > 1 else 1):
                for st in range(9 - (nlen - 1) * (skip + 1)):
                    g_ = tuple(int(toks[row, st + q * (skip + 1)]) for q in range(nlen))
                    seen[g_] = seen.get(g_, 0) + 1
        for k_, g_ in enumerate(pool):
            tf[row, tf_idx[k_]] = seen.get(g_, 0) * tf_w[k_]
    save("tfidf_vectorizer", [toks], [tf])


if __name__ == "__main__":
    main()
