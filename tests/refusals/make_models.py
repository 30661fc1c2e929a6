#!/usr/bin/python3
"""Writes the small ONNX models of test_refusals.sh to FOLDER (python3-onnx,
numpy): zero.onnx (every parameter zero), reserved.onnx (parameters named
__metadata__, __metadata__~ and one with a quote and a backslash).
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
