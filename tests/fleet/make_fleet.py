#!/usr/bin/python3
"""Writes a fleet of small, varied ONNX models for the fleet tests and the
fleet benchmark: python3 make_fleet.py OUT_DIR COUNT [--broken]

Model i is one of three seeded architectures (Conv->BatchNorm->ReLU chains,
an MLP, a residual Conv->BatchNorm block) with sizes drawn from i, so the
same i always gives the same bytes. Writes OUT_DIR/list.txt (one path a line).
With --broken, one extra entry is a file that is not a model. With
--uniform, every model is a Conv model taking x of [1, 3, 8, 8] (so one
calibration or input file fits the whole fleet)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32) * 0.5


def conv_bn(rng, nodes, inits, x, cin, cout, tag):
    w, b = f"{tag}.w", f"{tag}.b"
    inits += [numpy_helper.from_array(f32(rng, cout, cin, 3, 3), w), numpy_helper.from_array(f32(rng, cout), b)]
    names = [f"{tag}.{k}" for k in ("g", "beta", "mean", "var")]
    vals = [f32(rng, cout) + 1, f32(rng, cout), f32(rng, cout), np.abs(f32(rng, cout)) + 0.5]
    inits += [numpy_helper.from_array(v.astype(np.float32), n) for n, v in zip(names, vals)]
    nodes.append(helper.make_node("Conv", [x, w, b], [f"{tag}.c"], name=f"{tag}.conv", kernel_shape=[3, 3],
                                  pads=[1, 1, 1, 1]))
    nodes.append(helper.make_node("BatchNormalization", [f"{tag}.c"] + names, [f"{tag}.bn"], name=f"{tag}.bn"))
    return f"{tag}.bn"


def model(i, uniform=False):
    rng = np.random.default_rng(1000 + i)
    kind = (0, 2)[i % 2] if uniform else i % 3
    nodes, inits = [], []
    if kind == 1:  # MLP
        dims = [int(d) for d in rng.integers(4, 48, size=2 + i % 3)]
        x = "x"
        for k in range(len(dims) - 1):
            w, b = f"fc{k}.w", f"fc{k}.b"
            inits += [numpy_helper.from_array(f32(rng, dims[k + 1], dims[k]), w),
                      numpy_helper.from_array(f32(rng, dims[k + 1]), b)]
            nodes.append(helper.make_node("Gemm", [x, w, b], [f"fc{k}"], name=f"fc{k}", transB=1))
            nodes.append(helper.make_node("Relu", [f"fc{k}"], [f"r{k}"], name=f"relu{k}"))
            x = f"r{k}"
        nodes.append(helper.make_node("Identity", [x], ["y"], name="out"))
        inp = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, dims[0]])
        out = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, dims[-1]])
    else:
        c, hw = int(rng.integers(2, 9)), int(rng.integers(4, 9))
        if uniform:
            hw = 8
        x, cin = "x", 3
        for k in range(1 + i % 3):
            x = conv_bn(rng, nodes, inits, x, cin, c, f"b{k}")
            nodes.append(helper.make_node("Relu", [x], [f"b{k}.r"], name=f"b{k}.relu"))
            x, cin = f"b{k}.r", c
        if kind == 2:  # residual
            y = conv_bn(rng, nodes, inits, x, c, c, "res")
            nodes.append(helper.make_node("Add", [x, y], ["sum"], name="add"))
            x = "sum"
        nodes.append(helper.make_node("Relu", [x], ["y"], name="out"))
        inp = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, hw, hw])
        out = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, c, hw, hw])
    g = helper.make_graph(nodes, f"fleet{i}", [inp], [out], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_fleet.py")
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m


def main():
    out, count = sys.argv[1], int(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    paths = []
    for i in range(count):
        sub = os.path.join(out, f"team{i % 4}")
        os.makedirs(sub, exist_ok=True)
        p = os.path.join(sub, f"m{i:03d}.onnx")
        onnx.save(model(i, "--uniform" in sys.argv), p)
        paths.append(p)
    if "--broken" in sys.argv:
        p = os.path.join(out, "broken.onnx")
        with open(p, "wb") as f:
            f.write(b"this is not an ONNX model\n")
        paths.insert(len(paths) // 2, p)
    with open(os.path.join(out, "list.txt"), "w") as f:
        f.write("# the fleet\n" + "".join(p + "\n" for p in paths))


if __name__ == "__main__":
    main()
