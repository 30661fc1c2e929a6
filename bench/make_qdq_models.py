#!/usr/bin/python3
"""Makes QDQ (int8) versions of float benchmark models, the form ONNX
Runtime's quantize_static writes: symmetric per-channel int8 weights
(DequantizeLinear of int8 initializers, axis 0), int32 biases (scale
x_scale * w_scale), uint8 activations with a QuantizeLinear ->
DequantizeLinear pair on every activation tensor except a Conv / Gemm / Add
output read only by a Relu or Clip (the activation is quantized after it),
calibrated by min/max over a few synthetic images (uniform [0, 1), like
the benchmark input). The float graph is evaluated here with PyTorch's
functional ops, so no other engine is involved.

With --reduce-range the weights are 7-bit ([-63, 63], ONNX Runtime's
reduce_range, which its docs advise for x86 machines without VNNI): every
pair of adjacent weights then passes nnfx's vpmaddubsw exactness check, so
its AVX2 int8 GEMM takes the u8 x s8 vpmaddubsw kernel instead of the
vpmaddwd one on int16-widened activations. Written as MODEL_qdq7_b1.onnx.

Usage: make_qdq_models.py DIR [--reduce-range] MODEL ...
       reads DIR/MODEL_b1.onnx, writes DIR/MODEL_qdq_b1.onnx (or _qdq7_)
"""
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import helper, numpy_helper


def attr(n, name, d=None):
    for a in n.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return d


def evaluate(g, x):
    """Values of every tensor of graph g (Conv, Relu, Clip, Add, MaxPool,
    GlobalAveragePool, Flatten, Gemm, Identity, Constant) for input x."""
    v = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in g.initializer}
    v[g.input[0].name] = x
    for n in g.node:
        a = [v[i] if i else None for i in n.input]
        t = n.op_type
        if t == "Conv":
            p = attr(n, "pads", [0, 0, 0, 0])
            assert p[0] == p[2] and p[1] == p[3]
            y = F.conv2d(a[0], a[1], a[2] if len(a) > 2 else None, stride=attr(n, "strides", [1, 1]),
                         padding=p[:2], dilation=attr(n, "dilations", [1, 1]), groups=attr(n, "group", 1))
        elif t == "Relu":
            y = torch.relu(a[0])
        elif t == "Clip":
            y = torch.clamp(a[0], float(a[1]), float(a[2]))
        elif t == "Add":
            y = a[0] + a[1]
        elif t == "MaxPool":
            p = attr(n, "pads", [0, 0, 0, 0])
            y = F.max_pool2d(a[0], attr(n, "kernel_shape"), attr(n, "strides"), p[:2])
        elif t == "GlobalAveragePool":
            y = a[0].mean(dim=(2, 3), keepdim=True)
        elif t == "Flatten":
            y = a[0].reshape(a[0].shape[0], -1)
        elif t == "Gemm":
            assert attr(n, "transB", 0) == 1
            y = a[0] @ a[1].T + a[2]
        elif t == "Identity":
            y = a[0]
        elif t == "Constant":
            y = torch.from_numpy(numpy_helper.to_array(attr(n, "value")).copy())
        else:
            raise SystemExit("make_qdq_models: op %s not handled" % t)
        v[n.output[0]] = y
    return v


def quantize(src, dst, wmax=127, ncalib=4):
    m = onnx.load(src)
    g = m.graph
    inits = {i.name: i for i in g.initializer}
    consts = set(inits)
    for n in g.node:
        if n.op_type == "Constant" or (n.op_type == "Identity" and n.input[0] in consts):
            consts.add(n.output[0])
    x = torch.from_numpy(np.random.RandomState(123).rand(ncalib, 3, 224, 224).astype(np.float32))
    vals = evaluate(g, x)
    users = {}
    for n in g.node:
        for i in n.input:
            users.setdefault(i, []).append(n)
    new_inits, new_nodes = [], []
    qmap = {}  # float tensor -> its dequantized name

    def const(arr, name):
        new_inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def act_q(name):
        t = vals[name]
        lo, hi = min(float(t.min()), 0.0), max(float(t.max()), 0.0)
        s = np.float32(max(hi - lo, 1e-8) / 255.0)
        zp = np.uint8(np.clip(round(-lo / float(s)), 0, 255))
        return s, zp

    def add_qdq(name):
        s, zp = act_q(name)
        sn, zn = const(s, name + "_scale"), const(zp, name + "_zp")
        q, d = name + "_q", name + "_dq"
        new_nodes.append(helper.make_node("QuantizeLinear", [name, sn, zn], [q], name=q))
        new_nodes.append(helper.make_node("DequantizeLinear", [q, sn, zn], [d], name=d))
        qmap[name] = (d, float(s))

    def fused_act(n):
        u = users.get(n.output[0], [])
        return len(u) == 1 and u[0].op_type in ("Relu", "Clip") and n.output[0] not in [o.name for o in g.output]

    # float weights and biases (initializers, or Identity of them) become
    # int8 / int32 initializers
    replaced = {i for n in g.node if n.op_type in ("Conv", "Gemm") for i in n.input[1:3] if i}
    for n in g.node:
        if n.op_type == "Identity" and n.output[0] in replaced:
            replaced.add(n.input[0])
    add_qdq(g.input[0].name)
    for n in g.node:
        if n.output[0] in consts:
            if n.output[0] not in replaced:
                new_nodes.append(n)
            continue
        ins = list(n.input)
        if n.op_type in ("Conv", "Gemm"):
            xin, xs = qmap[ins[0]]
            w = vals[ins[1]].numpy().astype(np.float32)
            red = tuple(range(1, w.ndim))
            ws = (np.maximum(np.abs(w).max(axis=red), 1e-12) / float(wmax)).astype(np.float32)
            wq = np.clip(np.round(w / ws.reshape([-1] + [1] * (w.ndim - 1))), -wmax, wmax).astype(np.int8)
            base = n.output[0]
            wn = const(wq, base + "_w")
            wsn = const(ws, base + "_wscale")
            wzn = const(np.zeros(ws.shape, np.int8), base + "_wzp")
            wd = base + "_wdq"
            new_nodes.append(helper.make_node("DequantizeLinear", [wn, wsn, wzn], [wd], name=wd, axis=0))
            ins[0], ins[1] = xin, wd
            if len(ins) > 2 and ins[2]:
                b = vals[ins[2]].numpy().astype(np.float32)
                bs = (np.float32(xs) * ws).astype(np.float32)
                bq = np.round(b / bs).astype(np.int32)
                bn, bsn = const(bq, base + "_b"), const(bs, base + "_bscale")
                bzn = const(np.zeros(bs.shape, np.int32), base + "_bzp")
                bd = base + "_bdq"
                new_nodes.append(helper.make_node("DequantizeLinear", [bn, bsn, bzn], [bd], name=bd, axis=0))
                ins[2] = bd
        else:
            ins = [qmap[i][0] if i in qmap else i for i in ins]
        nn = helper.make_node(n.op_type, ins, list(n.output), name=n.name)
        nn.attribute.extend(n.attribute)
        new_nodes.append(nn)
        if n.op_type in ("Conv", "Gemm", "Add") and fused_act(n):
            continue
        add_qdq(n.output[0])
    # the graph output is the dequantized value
    shape = [d.dim_value for d in g.output[0].type.tensor_type.shape.dim]
    ng = helper.make_graph(new_nodes, g.name + "_qdq", list(g.input),
                           [helper.make_tensor_value_info(qmap[g.output[0].name][0], onnx.TensorProto.FLOAT, shape)],
                           [i for i in g.initializer if i.name not in replaced] + new_inits)
    qm = helper.make_model(ng, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_qdq_models.py")
    qm.ir_version = m.ir_version
    onnx.checker.check_model(qm)
    onnx.save(qm, dst)
    print("wrote", dst, "(%d bytes, float %d)" % (os.path.getsize(dst), os.path.getsize(src)), flush=True)


def main():
    d = sys.argv[1]
    names = [a for a in sys.argv[2:] if a != "--reduce-range"]
    seven = "--reduce-range" in sys.argv[2:]
    for name in names:
        src, dst = os.path.join(d, name + "_b1.onnx"), os.path.join(d, name + ("_qdq7_b1.onnx" if seven else "_qdq_b1.onnx"))
        if not os.path.exists(dst):
            quantize(src, dst, wmax=63 if seven else 127)


if __name__ == "__main__":
    main()
