#!/usr/bin/python3
"""Writes a small float CNN with efficientnet's op mix (seeded, random
weights): a stride-2 stem Conv with SiLU (x * Sigmoid(x)), a depthwise Conv
with SiLU, a squeeze-excitation block (GlobalAveragePool -> Conv -> SiLU ->
Conv -> Sigmoid -> Mul), a 1x1 projection Conv with a residual Add, then
GlobalAveragePool -> Flatten -> Gemm. Batch 2, 3x32x32 inputs.

Usage: make_se_block.py DIR   -> DIR/se_float.onnx, DIR/se_calib.npy (8
images), DIR/se_x.npy (2 images)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.RandomState(3)
    inits, nodes = [], []

    def w(name, shape):
        fan_in = int(np.prod(shape[1:]))
        inits.append(numpy_helper.from_array((rng.randn(*shape) * np.sqrt(2.0 / fan_in)).astype(np.float32), name))
        return name

    def b(name, n):
        inits.append(numpy_helper.from_array((rng.randn(n) * 0.1).astype(np.float32), name))
        return name

    def conv(x, y, cin, cout, k, s=1, group=1):
        nodes.append(helper.make_node("Conv", [x, w(y + "_w", [cout, cin // group, k, k]), b(y + "_b", cout)], [y],
                                      kernel_shape=[k, k], strides=[s, s], pads=[k // 2] * 4, group=group))
        return y

    def silu(x, y):
        nodes.append(helper.make_node("Sigmoid", [x], [y + "_sig"]))
        nodes.append(helper.make_node("Mul", [x, y + "_sig"], [y]))
        return y

    stem = silu(conv("x", "stem", 3, 16, 3, 2), "stem_act")
    dw = silu(conv(stem, "dw", 16, 16, 3, 1, 16), "dw_act")
    nodes.append(helper.make_node("GlobalAveragePool", [dw], ["se_pool"]))
    se = silu(conv("se_pool", "se_red", 16, 4, 1), "se_act")
    conv(se, "se_exp", 4, 16, 1)
    nodes.append(helper.make_node("Sigmoid", ["se_exp"], ["se_gate"]))
    nodes.append(helper.make_node("Mul", [dw, "se_gate"], ["se_out"]))
    conv("se_out", "proj", 16, 16, 1)
    nodes.append(helper.make_node("Add", ["proj", stem], ["block"]))
    nodes.append(helper.make_node("GlobalAveragePool", ["block"], ["pool"]))
    nodes.append(helper.make_node("Flatten", ["pool"], ["flat"]))
    nodes.append(helper.make_node("Gemm", ["flat", w("fc_w", [10, 16]), b("fc_b", 10)], ["y"], transB=1))
    graph = helper.make_graph(nodes, "se_block", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 32, 32])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "se_float.onnx"))
    np.save(os.path.join(out, "se_calib.npy"), rng.rand(8, 3, 32, 32).astype(np.float32))
    np.save(os.path.join(out, "se_x.npy"), rng.rand(2, 3, 32, 32).astype(np.float32))
    return 0


if __name__ == "__main__":
    sys.exit(main())
