#!/usr/bin/python3
"""One model of the fleet benchmark through torch.fx, the way the seeds'
pipeline runs it: one Python process per model. Rebuilds the model of an ONNX
file written by tests/fleet/make_fleet.py (Conv, BatchNormalization, Relu,
Gemm, Add, Identity) as an nn.Module with the same weights, traces it with
torch.fx, fuses Conv+BatchNorm (torch.fx.experimental.optimization.fuse),
checks the fused module against the original on seeded random inputs and
exports it to ONNX.   Usage: fleet_torchfx_one.py MODEL.onnx OUT.onnx"""
import sys

import onnx
import torch
import torch.fx
import torch.nn as nn
from onnx import numpy_helper
from torch.fx.experimental.optimization import fuse


class Net(nn.Module):
    def __init__(self, model):
        super().__init__()
        g = model.graph
        w = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in g.initializer}
        self.layers = nn.ModuleDict()
        self.plan = []
        for k, n in enumerate(g.node):
            name = f"l{k}"
            if n.op_type == "Conv":
                W = w[n.input[1]]
                conv = nn.Conv2d(W.shape[1], W.shape[0], W.shape[2], padding=W.shape[2] // 2)
                conv.weight.data, conv.bias.data = W, w[n.input[2]]
                self.layers[name] = conv
            elif n.op_type == "BatchNormalization":
                bn = nn.BatchNorm2d(w[n.input[1]].shape[0])
                bn.weight.data, bn.bias.data = w[n.input[1]], w[n.input[2]]
                bn.running_mean.data, bn.running_var.data = w[n.input[3]], w[n.input[4]]
                self.layers[name] = bn
            elif n.op_type == "Gemm":
                W = w[n.input[1]]
                fc = nn.Linear(W.shape[1], W.shape[0])
                fc.weight.data, fc.bias.data = W, w[n.input[2]]
                self.layers[name] = fc
            self.plan.append((n.op_type, name, [i for i in n.input if i not in w], n.output[0]))
        self.out = g.output[0].name
        self.shape = [d.dim_value for d in g.input[0].type.tensor_type.shape.dim]

    def forward(self, x):
        env = {"x": x}
        for op, name, ins, out in self.plan:
            if op == "Relu":
                env[out] = torch.relu(env[ins[0]])
            elif op == "Add":
                env[out] = env[ins[0]] + env[ins[1]]
            elif op == "Identity":
                env[out] = env[ins[0]]
            else:
                env[out] = self.layers[name](env[ins[0]])
        return env[self.out]


def main():
    src, dst = sys.argv[1], sys.argv[2]
    net = Net(onnx.load(src)).eval()
    fused = fuse(torch.fx.symbolic_trace(net))
    torch.manual_seed(0)
    with torch.no_grad():
        for _ in range(2):
            x = torch.randn(net.shape)
            a, b = net(x), fused(x)
            if not torch.allclose(a, b, atol=1e-4, rtol=1e-4):
                print(f"{src}: validation failed", file=sys.stderr)
                return 1
        torch.onnx.export(fused, (torch.randn(net.shape),), dst, opset_version=13)
    return 0


if __name__ == "__main__":
    sys.exit(main())
