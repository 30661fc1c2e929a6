#!/usr/bin/python3
"""Writes unsupported_op.onnx: Conv -> FooBar (an op no runtime knows) ->
Relu -> com.example.Scale (a custom domain) -> output, plus a Gemm branch,
for `nnfx analyze`, which must report the two unknown ops as findings.
usage: make_unsupported.py OUT.onnx"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

w = numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "w")
g = helper.make_graph(
    [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
     helper.make_node("FooBar", ["c"], ["f"], name="foo"),
     helper.make_node("Relu", ["f"], ["r"], name="relu"),
     helper.make_node("Scale", ["r"], ["y"], name="scale", domain="com.example")],
    "unsupported", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)])
open(sys.argv[1], "wb").write(m.SerializeToString())
