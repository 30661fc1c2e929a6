#!/usr/bin/python3
"""Writes the small ONNX models of test_refusals.sh to FOLDER (python3-onnx,
numpy): zero.onnx (every parameter zero), reserved.onnx (parameters named
__metadata__, __metadata__~ and one with a quote and a backslash); gemm_big_bias.onnx (a
Gemm whose bias, over input scale x weight scale, is beyond int32: 100 /
((1/255) x (1e-3/127)) ~ 3.2e9), gemm_nan_bias.onnx, gemm_inf_weight.onnx, and
calib.npy (their calibration inputs, uniform in [0, 1)) with labels.npy
(any class labels: the gate tests need some).
usage: make_models.py FOLDER"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def adds(path, inits):
    """x[2, 3] + each initializer in turn -> y."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    nodes, prev = [], "x"
    for i, (name, _) in enumerate(inits):
        out = "y" if i == len(inits) - 1 else f"t{i}"
        nodes.append(helper.make_node("Add", [prev, name], [out], name=f"add{i}"))
        prev = out
    g = helper.make_graph(nodes, "g", [x], [y], [numpy_helper.from_array(a, n) for n, a in inits])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


d = sys.argv[1]
rng = np.random.default_rng(34)
adds(d + "/zero.onnx", [("w", np.zeros((2, 3), np.float32)), ("b", np.zeros((3,), np.float32))])
adds(d + "/reserved.onnx", [("__metadata__", rng.normal(size=(2, 3)).astype(np.float32)),
                            ("__metadata__~", rng.normal(size=(3,)).astype(np.float32)),
                            ('we"ird\\name', rng.normal(size=(3,)).astype(np.float32))])


def gemm(path, w, b):
    """y = x[N, 4] @ w[4, 3] + b[3]."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])
    n = helper.make_node("Gemm", ["x", "w", "b"], ["y"], name="fc")
    g = helper.make_graph([n], "g", [x], [y], [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


w = np.full((4, 3), 1e-3, np.float32)
w[0, 0] = -1e-3
gemm(d + "/gemm_big_bias.onnx", w, np.array([100.0, 0.5, -100.0], np.float32))
gemm(d + "/gemm_nan_bias.onnx", w, np.array([0.5, np.nan, 0.5], np.float32))
winf = w.copy()
winf[2, 1] = np.inf
gemm(d + "/gemm_inf_weight.onnx", winf, np.array([0.5, 0.5, 0.5], np.float32))
np.save(d + "/calib.npy", rng.uniform(0.0, 1.0, size=(16, 4)).astype(np.float32))
np.save(d + "/labels.npy", np.arange(16, dtype=np.int64) % 3)
