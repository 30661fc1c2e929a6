#!/usr/bin/python3
"""Writes the small ONNX models and PyTorch reference data used by the
command-line tests (tests/data/cli/). Run with Debian's python3 (python3-torch,
python3-onnx):  /usr/bin/python3 tests/cli/make_models.py

Everything is seeded, so the files come out the same on every run."""
import os
import sys

import numpy as np
import torch
import torch.nn as nn

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "cli")


class ConvBnNet(nn.Module):
    """Conv -> BatchNorm -> ReLU -> Flatten -> Linear: a foldable BatchNorm."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.fc = nn.Linear(4 * 8 * 8, 5)

    def forward(self, x):
        return self.fc(torch.flatten(self.relu(self.bn(self.conv(x))), 1))


def save_convbn_onnx(net, path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    def init(name, t):
        return numpy_helper.from_array(t.detach().numpy().astype(np.float32), name)

    inits = [init("conv.weight", net.conv.weight), init("conv.bias", net.conv.bias),
             init("bn.weight", net.bn.weight), init("bn.bias", net.bn.bias),
             init("bn.running_mean", net.bn.running_mean), init("bn.running_var", net.bn.running_var),
             init("fc.weight", net.fc.weight), init("fc.bias", net.fc.bias)]
    nodes = [
        helper.make_node("Conv", ["x", "conv.weight", "conv.bias"], ["conv_out"], name="conv",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["conv_out", "bn.weight", "bn.bias", "bn.running_mean",
                                                "bn.running_var"], ["bn_out"], name="bn", epsilon=net.bn.eps),
        helper.make_node("Relu", ["bn_out"], ["relu_out"], name="relu"),
        helper.make_node("Flatten", ["relu_out"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc.weight", "fc.bias"], ["y"], name="fc", transB=1),
    ]
    graph = helper.make_graph(
        nodes, "convbn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 5])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_models.py")
    model.ir_version = 7
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, path)


def save_dotted_names(path):
    """Relu of input "in.x" into output "out.y": ONNX names that are not
    identifiers (nnfx renames them in_x, out_y; --input takes either)."""
    import onnx
    from onnx import TensorProto, helper
    graph = helper.make_graph([helper.make_node("Relu", ["in.x"], ["out.y"], name="relu")], "dotted",
                              [helper.make_tensor_value_info("in.x", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("out.y", TensorProto.FLOAT, [1, 3, 8, 8])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_models.py")
    model.ir_version = 7
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, path)


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    os.makedirs(OUT, exist_ok=True)
    net = ConvBnNet()
    with torch.no_grad():
        # running statistics far from the identity, so removing the
        # BatchNorm changes the answers and folding it must be exact
        net.bn.running_mean.copy_(torch.randn(4) * 0.5)
        net.bn.running_var.copy_(torch.rand(4) * 2 + 0.5)
        net.bn.weight.copy_(torch.randn(4) * 2)
        net.bn.bias.copy_(torch.randn(4))
    net.eval()
    x = torch.randn(1, 3, 8, 8)
    # torch.onnx.export folds BatchNorm into Conv in eval mode, so the graph
    # is written with onnx.helper from the module's weights instead
    save_convbn_onnx(net, os.path.join(OUT, "convbn.onnx"))
    save_dotted_names(os.path.join(OUT, "dotted.onnx"))
    with torch.no_grad():
        y = net(x)
        np.save(os.path.join(OUT, "x.npy"), x.numpy())
        np.save(os.path.join(OUT, "y_ref.npy"), y.numpy())
        # a labelled batch: labels are PyTorch's own top-1 answers, so the
        # original model scores 100 % and any harmful rewrite shows
        xb = torch.randn(64, 3, 8, 8)
        yb = net(xb)
        np.save(os.path.join(OUT, "batch.npy"), xb.numpy())
        np.save(os.path.join(OUT, "batch_labels.npy"), yb.argmax(1).numpy().astype(np.int64))
        np.save(os.path.join(OUT, "batch_ref.npy"), yb.numpy())
        np.save(os.path.join(OUT, "x_wrong_shape.npy"), torch.randn(1, 3, 9, 9).numpy())
        # the second input of waste.fx (a text IR model), unused by its graph
        np.save(os.path.join(OUT, "u.npy"), np.ones((1, 5), np.float32))
    print("wrote", OUT, file=sys.stderr)


if __name__ == "__main__":
    main()
