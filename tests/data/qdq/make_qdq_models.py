#!/usr/bin/env python3
"""make_qdq_models.py — small QDQ (QuantizeLinear / DequantizeLinear) ONNX
models for the int8 plan tests, with their inputs and the outputs of the
reference semantics (every DequantizeLinear -> float op -> QuantizeLinear
evaluated in float32 by PyTorch, independent of nnfx).

qdq_cnn: conv 3x3 + Relu, conv 3x3 stride 2 (zero point != 0), a residual
block (conv + Relu -> Q -> DQ -> conv -> Q -> DQ -> Add(DQ(skip)) -> Relu),
a depthwise 3x3 stride 2 + Clip(0, 6), a dilated conv with int8 (s8)
activations, global average pooling (a float island), Flatten on the uint8
tensor and Gemm. Weights are symmetric per-channel int8, biases int32
(DequantizeLinear with scale x_scale * w_scale), activations calibrated by
min/max on the input batch.
qdq_matmul: a MatMul over [2, 5, 12] with per-column int8 weights.
qdq_fx_small: PyTorch FX's QDQ export (tests/data/quant/small_qdq.onnx, with
its Q -> Cast -> DQ pairs and a residual add) with the batch dim fixed to 4,
so the compiled plan takes it; no _ref file (ONNX Runtime is its reference).

Usage: make_qdq_models.py OUT_DIR   (writes *.onnx, *_x.npy, *_ref.npy)
"""
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)


class Builder:
    def __init__(self):
        self.nodes, self.inits, self.k = [], [], 0

    def name(self, p):
        self.k += 1
        return f"{p}{self.k}"

    def const(self, arr, p="c"):
        n = self.name(p)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), n))
        return n

    def node(self, op, ins, p, **attrs):
        out = self.name(p)
        self.nodes.append(helper.make_node(op, ins, [out], name=out, **attrs))
        return out


def act_qparams(t, signed=False):
    lo, hi = min(float(t.min()), 0.0), max(float(t.max()), 0.0)
    if signed:
        s = max(hi - lo, 1e-6) / 255.0
        zp = int(np.clip(round(-128 - lo / s), -128, 127))
    else:
        s = max(hi - lo, 1e-6) / 255.0
        zp = int(np.clip(round(-lo / s), 0, 255))
    return np.float32(s), zp


def fq(t, s, zp, signed):
    lo, hi = (-128, 127) if signed else (0, 255)
    return ((torch.clamp(torch.round(t / s) + zp, lo, hi) - zp) * s).float()


class Net:
    """Tracks the float32 reference value next to the ONNX value name."""

    def __init__(self, b):
        self.b = b

    def quant(self, name, t, signed=False):
        s, zp = act_qparams(t, signed)
        dt = np.int8 if signed else np.uint8
        sn, zn = self.b.const(np.float32(s), "s"), self.b.const(np.array(zp, dtype=dt), "zp")
        q = self.b.node("QuantizeLinear", [name, sn, zn], "q")
        return q, fq(t, float(s), zp, signed), (sn, zn)

    def dq(self, qname, qp):
        return self.b.node("DequantizeLinear", [qname, qp[0], qp[1]], "dq")

    def qweight(self, w, axis=0):
        red = tuple(i for i in range(w.ndim) if i != axis)
        s = np.maximum(np.abs(w).max(axis=red), 1e-8) / 127.0
        shp = [1] * w.ndim
        shp[axis] = -1
        wq = np.clip(np.round(w / s.reshape(shp)), -127, 127).astype(np.int8)
        wn = self.b.const(wq, "w")
        sn = self.b.const(s.astype(np.float32), "ws")
        zn = self.b.const(np.zeros(s.shape, np.int8), "wz")
        d = self.b.node("DequantizeLinear", [wn, sn, zn], "dqw", axis=axis)
        wf = torch.from_numpy(wq.astype(np.float32) * s.reshape(shp).astype(np.float32))
        return d, wf, s.astype(np.float32)

    def qbias(self, bias, x_scale, w_scale):
        bs = (np.float32(x_scale) * w_scale).astype(np.float32)
        bq = np.round(bias / bs).astype(np.int32)
        bn, sn = self.b.const(bq, "b"), self.b.const(bs, "bs")
        zn = self.b.const(np.zeros(bs.shape, np.int32), "bz")
        d = self.b.node("DequantizeLinear", [bn, sn, zn], "dqb", axis=0)
        return d, torch.from_numpy(bq.astype(np.float32) * bs)

    def conv(self, x, xf, xs, cin, cout, k, stride=1, pad=0, dil=1, group=1):
        w = rng.normal(0, 1.0 / np.sqrt(cin // group * k * k), (cout, cin // group, k, k)).astype(np.float32)
        bias = rng.normal(0, 0.1, cout).astype(np.float32)
        wd, wf, ws = self.qweight(w)
        bd, bf = self.qbias(bias, xs, ws)
        y = self.b.node("Conv", [x, wd, bd], "conv", kernel_shape=[k, k], strides=[stride, stride],
                        pads=[pad] * 4, dilations=[dil, dil], group=group)
        yf = F.conv2d(xf, wf, bf, stride=stride, padding=pad, dilation=dil, groups=group)
        return y, yf


def cnn():
    b = Builder()
    n = Net(b)
    x = rng.normal(0, 1, (2, 3, 20, 20)).astype(np.float32)
    xf = torch.from_numpy(x)
    q, t, qp = n.quant("x", xf)
    # L1 conv + relu
    y, yf = n.conv(n.dq(q, qp), t, qp_scale(b, qp), 3, 8, 3, 1, 1)
    y, yf = b.node("Relu", [y], "relu"), torch.relu(yf)
    q, t, qp = n.quant(y, yf)
    # L2 conv stride 2 (no activation: zero point inside the range)
    y, yf = n.conv(n.dq(q, qp), t, qp_scale(b, qp), 8, 16, 3, 2, 1)
    q2, t2, qp2 = n.quant(y, yf)
    # L3 residual block
    y, yf = n.conv(n.dq(q2, qp2), t2, qp_scale(b, qp2), 16, 16, 3, 1, 1)
    y, yf = b.node("Relu", [y], "relu"), torch.relu(yf)
    q, t, qp = n.quant(y, yf)
    y, yf = n.conv(n.dq(q, qp), t, qp_scale(b, qp), 16, 16, 3, 1, 1)
    q, t, qp = n.quant(y, yf)
    y = b.node("Add", [n.dq(q, qp), n.dq(q2, qp2)], "add")
    yf = t + t2
    y, yf = b.node("Relu", [y], "relu"), torch.relu(yf)
    q, t, qp = n.quant(y, yf)
    # L4 depthwise stride 2 + clip(0, 6)
    y, yf = n.conv(n.dq(q, qp), t, qp_scale(b, qp), 16, 16, 3, 2, 1, group=16)
    lo, hi = b.const(np.float32(0), "lo"), b.const(np.float32(6), "hi")
    y, yf = b.node("Clip", [y, lo, hi], "clip"), torch.clamp(yf, 0, 6)
    q, t, qp = n.quant(y, yf)
    # L5 dilated conv, int8 (s8) output
    y, yf = n.conv(n.dq(q, qp), t, qp_scale(b, qp), 16, 24, 3, 1, 2, dil=2)
    q, t, qp = n.quant(y, yf, signed=True)
    # L6 global average pool (float island)
    y = b.node("GlobalAveragePool", [n.dq(q, qp)], "gap")
    yf = t.mean(dim=(2, 3), keepdim=True)
    q, t, qp = n.quant(y, yf)
    # L7 flatten the uint8 tensor, Gemm
    fl = b.node("Flatten", [q], "flat", axis=1)
    t = t.reshape(2, 24)
    w = rng.normal(0, 1.0 / np.sqrt(24), (10, 24)).astype(np.float32)
    wd, wf, ws = n.qweight(w, axis=0)
    bd, bf = n.qbias(rng.normal(0, 0.1, 10).astype(np.float32), qp_scale(b, qp), ws)
    y = b.node("Gemm", [n.dq(fl, qp), wd, bd], "gemm", transB=1)
    yf = t @ wf.T + bf
    q, t, qp = n.quant(y, yf)
    out = n.dq(q, qp)
    return b, out, x, t, [2, 10]


def matmul():
    b = Builder()
    n = Net(b)
    x = rng.normal(0, 1, (2, 5, 12)).astype(np.float32)
    q, t, qp = n.quant("x", torch.from_numpy(x))
    w = rng.normal(0, 0.3, (12, 7)).astype(np.float32)
    wd, wf, ws = n.qweight(w, axis=1)
    y = b.node("MatMul", [n.dq(q, qp), wd], "matmul")
    yf = t @ wf
    q, t, qp = n.quant(y, yf, signed=True)
    out = n.dq(q, qp)
    return b, out, x, t, [2, 5, 7]


def qp_scale(b, qp):
    for i in b.inits:
        if i.name == qp[0]:
            return float(numpy_helper.to_array(i))
    raise KeyError(qp[0])


def save(outdir, name, made):
    b, out, x, ref, oshape = made
    g = helper.make_graph(b.nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                          [helper.make_tensor_value_info(out, TensorProto.FLOAT, oshape)], b.inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_qdq_models.py")
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, os.path.join(outdir, name + ".onnx"))
    np.save(os.path.join(outdir, name + "_x.npy"), x)
    np.save(os.path.join(outdir, name + "_ref.npy"), ref.numpy().astype(np.float32))


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    torch.manual_seed(0)
    save(outdir, "qdq_cnn", cnn())
    save(outdir, "qdq_matmul", matmul())
    here = os.path.dirname(os.path.abspath(__file__))
    fx = os.path.join(here, "..", "quant", "small_qdq.onnx")
    if os.path.exists(fx):
        m = onnx.load(fx)
        x = np.load(os.path.join(here, "..", "quant", "small_x.npy"))
        for io in list(m.graph.input) + list(m.graph.output):
            d = io.type.tensor_type.shape.dim[0]
            d.ClearField("dim_param")
            d.dim_value = x.shape[0]
        onnx.checker.check_model(m)
        onnx.save(m, os.path.join(outdir, "qdq_fx_small.onnx"))
        np.save(os.path.join(outdir, "qdq_fx_small_x.npy"), x)


if __name__ == "__main__":
    main()
