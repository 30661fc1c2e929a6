"""torch.fx reference for bench_graph_ops.c.

Builds the same chain (N blocks, each x = sigmoid(relu(bn(conv1x1_4to4(x)))) * x)
as an nn.Module, then times with time.monotonic():
  trace_s                     torch.fx.symbolic_trace
  relu_to_leaky_incl_trace_s  trace + every relu -> leaky_relu + recompile
  dce_recompile_s             eliminate_dead_code + recompile
printing one JSON line per N with the same keys as bench_graph_ops.
Usage: python3 torch_fx_graph_ops.py [N ...]   (default 100 400 1600 25000)
"""
import json
import sys
import time

import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 1)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        return torch.sigmoid(torch.relu(self.bn(self.conv(x)))) * x


class Chain(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.layers = nn.Sequential(*[Block() for _ in range(n)])

    def forward(self, x):
        return self.layers(x)


def relu_to_leaky(gm):
    g = gm.graph
    for node in list(g.nodes):
        if node.op == "call_function" and node.target is torch.relu:
            with g.inserting_after(node):
                new = g.call_function(F.leaky_relu, args=(node.args[0],), kwargs={"negative_slope": 0.01})
            node.replace_all_uses_with(new)
            g.erase_node(node)
    gm.recompile()


def bench(n):
    sys.setrecursionlimit(max(10000, 20 * n))
    model = Chain(n).eval()
    t0 = time.monotonic()
    gm = torch.fx.symbolic_trace(model)
    t1 = time.monotonic()
    nodes = len(gm.graph.nodes)
    del gm
    t2 = time.monotonic()
    gm = torch.fx.symbolic_trace(model)
    relu_to_leaky(gm)
    t3 = time.monotonic()
    t4 = time.monotonic()
    gm.graph.eliminate_dead_code()
    gm.recompile()
    t5 = time.monotonic()
    x = torch.randn(1, 4, 8, 8)
    if n <= 1600:  # smoke check: the rewritten graph runs
        with torch.no_grad():
            gm(x)
    print(json.dumps({"model": "chain%d" % n, "nodes": nodes, "trace_s": round(t1 - t0, 6),
                      "relu_to_leaky_incl_trace_s": round(t3 - t2, 6),
                      "dce_recompile_s": round(t5 - t4, 6)}), flush=True)


def main():
    ns = [int(a) for a in sys.argv[1:]] or [100, 400, 1600, 25000]
    for n in ns:
        try:
            bench(n)
        except Exception as e:  # e.g. RecursionError in codegen for huge graphs
            print(json.dumps({"model": "chain%d" % n, "error": "%s: %s" % (type(e).__name__, e)}), flush=True)


if __name__ == "__main__":
    main()
