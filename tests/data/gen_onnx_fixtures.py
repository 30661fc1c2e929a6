#!/usr/bin/python3
"""Generates the ONNX fixtures of tests/test_onnx.c into tests/data/onnx/.

Run with Debian's /usr/bin/python3 (python3-onnx 1.12, python3-torch 1.13):
    /usr/bin/python3 tests/data/gen_onnx_fixtures.py
Outputs are deterministic (fixed seeds); the files are committed so the C
tests need no Python. Each model that runs gets input_0.pb / output_0.pb
(TensorProto, as in ONNX's node tests) computed by PyTorch.
"""
import os

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "onnx")


def save_pb(path, arr):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.ascontiguousarray(arr)).SerializeToString())


def export_torch(name, model, x, opset, dynamic=False):
    model.eval()
    path = os.path.join(OUT, name + ".onnx")
    kw = {}
    if dynamic:
        kw["dynamic_axes"] = {"input": {0: "batch"}, "output": {0: "batch"}}
    torch.onnx.export(model, x, path, opset_version=opset, input_names=["input"],
                      output_names=["output"], do_constant_folding=True, **kw)
    with torch.no_grad():
        y = model(x).numpy()
    save_pb(os.path.join(OUT, name + "_input_0.pb"), x.numpy())
    save_pb(os.path.join(OUT, name + "_output_0.pb"), y)
    onnx.checker.check_model(onnx.load(path), full_check=True)


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.fc2 = torch.nn.Linear(16, 4)

    def forward(self, x):
        return torch.softmax(self.fc2(torch.relu(self.fc1(x))), dim=-1)


class ConvNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc = torch.nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn(self.conv(x))))
        return self.fc(torch.flatten(x, 1))


def legacy_model():
    """Opset 9 forms: attributes that are inputs today, Split and Dropout
    with several outputs, Softmax on a 3-D input (2-D coercion), Constant."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 3])
    z = helper.make_tensor_value_info("z.out", TensorProto.FLOAT, [2, 3, 2])
    w = helper.make_tensor_value_info("w", TensorProto.FLOAT, [2, 3, 1])
    c = numpy_helper.from_array(np.arange(4, dtype=np.float32), "c")
    nodes = [
        helper.make_node("Constant", [], ["k"], value=c),
        helper.make_node("Add", ["x", "k"], ["a"]),
        helper.make_node("Clip", ["a"], ["b"], min=-1.0, max=2.0),
        helper.make_node("Unsqueeze", ["b"], ["u"], axes=[0]),
        helper.make_node("Squeeze", ["u"], ["s"], axes=[0]),
        helper.make_node("ReduceMean", ["s"], ["m"], axes=[2], keepdims=1),
        helper.make_node("Split", ["s"], ["p0", "p1"], axis=2, split=[1, 3]),
        helper.make_node("Dropout", ["p1"], ["d", "mask"], ratio=0.25),
        helper.make_node("Cast", ["mask"], ["maskf"], to=TensorProto.FLOAT),
        helper.make_node("Softmax", ["d"], ["sm"], axis=1),
        helper.make_node("Mul", ["sm", "maskf"], ["y"]),
        helper.make_node("Pad", ["m"], ["z.out"], pads=[0, 0, 0, 0, 0, 1], value=0.5),
        helper.make_node("Identity", ["p0"], ["w"], name="ident"),
    ]
    g = helper.make_graph(nodes, "legacy", [x], [y, z, w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 9)], producer_name="gen_onnx_fixtures",
                          producer_version="1", doc_string="opset 9 conversions")
    m.ir_version = 4
    helper.set_model_props(m, {"author": "nnfx tests"})
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, os.path.join(OUT, "legacy_opset9.onnx"))


def typed_data_model():
    """Initializers stored in float_data / int64_data / int32_data and raw_data;
    dim_param inputs; value_info."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 6])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 2, 3])
    wf = helper.make_tensor("wf", TensorProto.FLOAT, [6], [0.5, -1.0, 2.0, 3.0, 0.25, 1.0])
    sh = helper.make_tensor("shape", TensorProto.INT64, [3], [0, 2, 3])
    i32 = helper.make_tensor("i32", TensorProto.INT32, [2], [7, -9])
    raw = numpy_helper.from_array(np.linspace(-1, 1, 6, dtype=np.float32), "raw")
    nodes = [
        helper.make_node("Mul", ["x", "wf"], ["t0"]),
        helper.make_node("Add", ["t0", "raw"], ["t1"]),
        helper.make_node("Reshape", ["t1", "shape"], ["y"]),
    ]
    vi = [helper.make_tensor_value_info("t0", TensorProto.FLOAT, ["batch", 6])]
    g = helper.make_graph(nodes, "typed", [x], [y], [wf, sh, i32, raw], value_info=vi)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, os.path.join(OUT, "typed_data.onnx"))


def external_model():
    """Weights in a side file (external data), one small tensor kept inline."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])
    rng = np.random.default_rng(3)
    w = numpy_helper.from_array(rng.standard_normal((64, 64)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(64).astype(np.float32), "b")
    g = helper.make_graph([helper.make_node("Gemm", ["x", "w", "b"], ["y"])], "ext", [x], [y], [w, b])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    path = os.path.join(OUT, "external.onnx")
    onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location="external.onnx.data", size_threshold=1024)
    onnx.checker.check_model(path, full_check=True)
    xv = rng.standard_normal((1, 64)).astype(np.float32)
    save_pb(os.path.join(OUT, "external_input_0.pb"), xv)
    save_pb(os.path.join(OUT, "external_output_0.pb"),
            xv @ numpy_helper.to_array(w) + numpy_helper.to_array(b))


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    export_torch("mlp", MLP(), torch.randn(2, 8), 13)
    torch.manual_seed(1)
    net = ConvNet()
    with torch.no_grad():  # non-trivial BN statistics
        net.bn.running_mean.uniform_(-0.5, 0.5)
        net.bn.running_var.uniform_(0.5, 1.5)
    export_torch("convnet", net, torch.randn(2, 3, 8, 8), 13, dynamic=True)
    legacy_model()
    typed_data_model()
    external_model()


if __name__ == "__main__":
    main()
