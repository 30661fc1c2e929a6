"""The seeds' torch.fx snippets, written with nnfx's Python package.

Each function edits a GraphModule in place the way the seed articles edit a
torch.fx GraphModule; only the import, the model loading and the op names
change (targets are nnfx's op names, as `nnfx inspect` prints them). The seeds'
bugs are absent: every relu is one query whatever way the model wrote it, and
replace_all_uses_with never rewires the new node onto itself.

Run: PYTHONPATH=python python3 examples/python/seeds.py [model.onnx]
(default: the keyword-spotting model in tests/data/kws, sigmoid-gated).
python/tests/test_examples.py checks each against torch.fx and PyTorch.
"""
import os
import sys

import numpy as np

import nnfx


def remove_bn(gm):
    """BatchNorm removal: every BN's users read its input instead."""
    g = gm.graph
    for node in g.nodes:
        if node.op == "call_function" and node.target == "batch_normalization":
            node.replace_all_uses_with(node.args[0])
            g.erase_node(node)
    g.eliminate_dead_code()  # the BN's parameters
    gm.recompile()
    return gm


def relu_to_leaky_relu(gm, alpha=0.1):
    """Every relu becomes leaky_relu(alpha), inserted right after it."""
    g = gm.graph
    for node in g.nodes:
        if node.op == "call_function" and node.target == "relu":
            with g.inserting_after(node):
                new = g.call_function("leaky_relu", args=(node.args[0],), kwargs={"alpha": alpha})
            node.replace_all_uses_with(new)
            g.erase_node(node)
    gm.recompile()
    return gm


def sigmoid_to_hard_sigmoid(gm, alpha=0.2, beta=0.5):
    """For a chip without exp(): sigmoid(x) -> hard_sigmoid(x) = clip(alpha*x + beta, 0, 1)
    of the sigmoid's *input* (the seed's clamp-of-the-sigmoid self-loop cannot happen)."""
    g = gm.graph
    for node in g.nodes:
        if node.op == "call_function" and node.target == "sigmoid":
            with g.inserting_after(node):
                new = g.call_function("hard_sigmoid", args=(node.args[0],), kwargs={"alpha": alpha, "beta": beta})
            node.replace_all_uses_with(new)
            g.erase_node(node)
    gm.recompile()
    return gm


class InsertQDQ(nnfx.Transformer):
    """A Transformer putting a QuantizeLinear/DequantizeLinear pair (one
    per-tensor scale and zero point) on the activation input of every conv:
    the model then computes with its inputs rounded to the uint8 grid."""

    def __init__(self, gm, scale=0.05, zero_point=128):
        super().__init__(gm)
        self.scale, self.zero_point = np.float32(scale), np.uint8(zero_point)

    def call_function(self, target, args, kwargs):
        if target == "conv":
            g = self.new_graph
            g.set_parameter("qdq.scale", self.scale)
            g.set_parameter("qdq.zero_point", self.zero_point)
            s, z = g.get_attr("qdq.scale"), g.get_attr("qdq.zero_point")
            q = g.call_function("quantize_linear", (args[0], s, z))
            args = (g.call_function("dequantize_linear", (q, s, z)),) + tuple(args[1:])
        return super().call_function(target, args, kwargs)


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    path = argv[1] if len(argv) > 1 else os.path.join(here, "..", "..", "tests", "data", "kws", "kws.onnx")
    gm = nnfx.load(path)
    gm.graph.print_tabular()
    shape = [d if isinstance(d, int) else 1 for d in next(iter(gm.graph.nodes)).meta["shape"]]
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    y = gm(x)
    y = y[0] if isinstance(y, tuple) else y
    for name, edit in (("remove_bn", remove_bn), ("relu_to_leaky_relu", relu_to_leaky_relu),
                       ("sigmoid_to_hard_sigmoid", sigmoid_to_hard_sigmoid),
                       ("insert_qdq", lambda m: InsertQDQ(m).transform())):
        m = edit(nnfx.load(path))
        z = m(x)
        z = z[0] if isinstance(z, tuple) else z
        print("%-24s nodes %4d -> %4d   max |change| of output 0: %.6f" % (name, len(gm.graph), len(m.graph),
                                                                           float(np.abs(z - y).max())))


if __name__ == "__main__":
    main(sys.argv)
