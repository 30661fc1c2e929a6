#!/usr/bin/python3
"""make_load_models.py — writes the ONNX models that bench/run_load_bench.sh
loads, into bench/models/ (ignored by git) or the directory given.

  resnet18.onnx        torchvision resnet18, random init (~45 MB); when
                       torchvision is missing, a conv net of the same layer
                       shapes built with onnx.helper
  mlp_big.onnx         an MLP of 4096x4096 Gemm layers with random float32
                       weights (> 300 MB), weights inline as raw_data
  mlp_big_ext.onnx     the same graph, weights in mlp_big_ext.onnx.data
                       (ONNX external data)
  mlp_1g_ext.onnx      4 Gemm layers of 8192x8192 (1.07 GB of float32
                       weights) in mlp_1g_ext.onnx.data, written a layer at a
                       time (never the whole model in memory)

Run with an interpreter that has onnx and numpy (Debian: /usr/bin/python3
with python3-onnx); torch/torchvision are optional.
Usage: make_load_models.py [out-dir] [--force]
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13


def resnet18_torchvision(path):
    import torch
    import torchvision

    torch.manual_seed(0)
    m = torchvision.models.resnet18(weights=None) if hasattr(torchvision.models, "ResNet18_Weights") \
        else torchvision.models.resnet18(pretrained=False)
    m.eval()
    x = torch.randn(1, 3, 224, 224)
    torch.onnx.export(m, x, path, opset_version=OPSET, input_names=["input"], output_names=["logits"],
                      do_constant_folding=True)


def resnet18_helper(path):
    """resnet18's layer shapes (BN folded into conv bias), built by hand."""
    rng = np.random.default_rng(0)
    inits, nodes = [], []
    count = [0]

    def w(shape):
        count[0] += 1
        name = "w%d" % count[0]
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        a = (rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)
        inits.append(numpy_helper.from_array(a, name))
        return name

    def conv(x, cin, cout, k, stride, relu=True):
        count[0] += 1
        y = "c%d" % count[0]
        nodes.append(helper.make_node("Conv", [x, w((cout, cin, k, k)), w((cout,))], [y],
                                      kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4))
        if not relu:
            return y
        nodes.append(helper.make_node("Relu", [y], [y + "r"]))
        return y + "r"

    x = conv("input", 3, 64, 7, 2)
    nodes.append(helper.make_node("MaxPool", [x], ["pool"], kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4))
    x, cin = "pool", 64
    for cout, stride in [(64, 1), (64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1)]:
        h = conv(x, cin, cout, 3, stride)
        h = conv(h, cout, cout, 3, 1, relu=False)
        sc = x if (stride == 1 and cin == cout) else conv(x, cin, cout, 1, stride, relu=False)
        count[0] += 1
        s = "add%d" % count[0]
        nodes.append(helper.make_node("Add", [h, sc], [s]))
        nodes.append(helper.make_node("Relu", [s], [s + "r"]))
        x, cin = s + "r", cout
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["gap"]))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], axis=1))
    fc_w = w((1000, 512))
    nodes.append(helper.make_node("Gemm", ["flat", fc_w, w((1000,))], ["logits"], transB=1))
    g = helper.make_graph(nodes, "resnet18_like",
                          [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])],
                          [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 1000])], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)]), path)


def mlp_big(layers=5, width=4096):
    """layers x (Gemm width->width + Relu); 4 * width^2 bytes per layer."""
    rng = np.random.default_rng(1)
    inits, nodes = [], []
    x = "input"
    for i in range(layers):
        wt = (rng.standard_normal((width, width), dtype=np.float32) / np.float32(np.sqrt(width)))
        inits.append(numpy_helper.from_array(wt, "fc%d.weight" % i))
        inits.append(numpy_helper.from_array(np.zeros(width, np.float32), "fc%d.bias" % i))
        y = "fc%d" % i
        nodes.append(helper.make_node("Gemm", [x, "fc%d.weight" % i, "fc%d.bias" % i], [y], transB=1))
        if i + 1 < layers:
            nodes.append(helper.make_node("Relu", [y], [y + "r"]))
            y += "r"
        x = y
    nodes.append(helper.make_node("Identity", [x], ["output"]))
    g = helper.make_graph(nodes, "mlp_big",
                          [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, width])],
                          [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, width])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)])


def mlp_1g_ext(path, layers=4, width=8192):
    """layers x (Gemm width->width + Relu), weights as ONNX external data in
    path + ".data", each written straight to the file."""
    rng = np.random.default_rng(2)
    data = os.path.basename(path) + ".data"
    inits, nodes = [], []
    x = "input"
    with open(os.path.join(os.path.dirname(path), data), "wb") as f:
        for i in range(layers):
            for name, shape in (("fc%d.weight" % i, (width, width)), ("fc%d.bias" % i, (width,))):
                a = rng.standard_normal(shape, dtype=np.float32) / np.float32(np.sqrt(width))
                t = TensorProto()
                t.name, t.data_type = name, TensorProto.FLOAT
                t.dims.extend(shape)
                t.data_location = TensorProto.EXTERNAL
                for k, v in (("location", data), ("offset", str(f.tell())), ("length", str(a.nbytes))):
                    e = t.external_data.add()
                    e.key, e.value = k, v
                f.write(a.tobytes())
                inits.append(t)
            y = "fc%d" % i
            nodes.append(helper.make_node("Gemm", [x, "fc%d.weight" % i, "fc%d.bias" % i], [y], transB=1))
            if i + 1 < layers:
                nodes.append(helper.make_node("Relu", [y], [y + "r"]))
                y += "r"
            x = y
    nodes.append(helper.make_node("Identity", [x], ["output"]))
    g = helper.make_graph(nodes, "mlp_1g",
                          [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, width])],
                          [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, width])], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)]), path)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    force = "--force" in sys.argv[1:]
    out = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
    os.makedirs(out, exist_ok=True)

    p = os.path.join(out, "resnet18.onnx")
    if force or not os.path.exists(p):
        try:
            resnet18_torchvision(p)
            how = "torchvision"
        except ImportError:
            resnet18_helper(p)
            how = "onnx.helper (torchvision not installed)"
        print("wrote %s (%.1f MB, %s)" % (p, os.path.getsize(p) / 1e6, how))

    p = os.path.join(out, "mlp_big.onnx")
    pe = os.path.join(out, "mlp_big_ext.onnx")
    if force or not os.path.exists(p) or not os.path.exists(pe):
        m = mlp_big()
        onnx.save(m, p)
        print("wrote %s (%.1f MB)" % (p, os.path.getsize(p) / 1e6))
        data = os.path.basename(pe) + ".data"
        if os.path.exists(os.path.join(out, data)):
            os.remove(os.path.join(out, data))  # save_model appends to an existing file
        onnx.save_model(m, pe, save_as_external_data=True, all_tensors_to_one_file=True, location=data,
                        size_threshold=1024)
        print("wrote %s + %s (%.1f MB)" % (pe, data, os.path.getsize(os.path.join(out, data)) / 1e6))

    p = os.path.join(out, "mlp_1g_ext.onnx")
    if force or not os.path.exists(p) or not os.path.exists(p + ".data"):
        mlp_1g_ext(p)
        print("wrote %s + %s.data (%.1f MB)" % (p, os.path.basename(p), os.path.getsize(p + ".data") / 1e6))


if __name__ == "__main__":
    main()
