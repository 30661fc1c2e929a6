"""torch.fx reference for bench_graph_ops.c.

Builds the same chain (N blocks, each x = sigmoid(relu(bn(conv1x1_4to4(x)))) * x)
as an nn.Module, then times with time.monotonic():
  trace_s                     torch.fx.symbolic_trace
  relu_to_leaky_incl_trace_s  trace + every relu -> leaky_relu + recompile
  dce_recompile_s             eliminate_dead_code + recompile
  fuse_conv_bn_s              fold every BatchNorm2d into its Conv2d (the pass
                              torch.fx.experimental.optimization.fuse runs,
                              applied to the already traced module) + recompile
  replace_pattern_incl_trace_s  trace + torch.fx.subgraph_rewriter.replace_pattern
                              (sigmoid(x) -> clamp(x, 0, 1)) + recompile; only up
                              to chain1600: it grows quadratically in torch.fx 1.13
                              (about 16 s at chain1600, hours at chain25000)
printing one JSON line per N with the same keys as bench_graph_ops; each
key is the best of 3 runs for N <= 1600 (1 run above), as there.
Usage: python3 torch_fx_graph_ops.py [N ...]   (default 100 400 1600 25000)
"""
import json
import sys
import time

import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.experimental.optimization import matches_module_pattern, replace_node_module
from torch.fx.subgraph_rewriter import replace_pattern
from torch.nn.utils.fusion import fuse_conv_bn_eval


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


def fuse_conv_bn(gm):
    """The conv+bn folding loop of torch.fx.experimental.optimization.fuse,
    on a traced module (fuse itself would deep-copy and trace again)."""
    modules = dict(gm.named_modules())
    for node in list(gm.graph.nodes):
        if matches_module_pattern((nn.Conv2d, nn.BatchNorm2d), node, modules):
            if len(node.args[0].users) > 1:
                continue
            conv = modules[node.args[0].target]
            bn = modules[node.target]
            fused = fuse_conv_bn_eval(conv, bn)
            replace_node_module(node.args[0], modules, fused)
            node.replace_all_uses_with(node.args[0])
            gm.graph.erase_node(node)
    gm.recompile()


def sigmoid_pattern(x):
    return torch.sigmoid(x)


def clamp_replacement(x):
    return torch.clamp(x, 0.0, 1.0)


def bench(n):
    best = None
    for _ in range(3 if n <= 1600 else 1):
        r = bench_once(n)
        best = r if best is None else {k: (min(v, r[k]) if k.endswith("_s") else v) for k, v in best.items()}
    print(json.dumps(best), flush=True)


def bench_once(n):
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
    t6 = time.monotonic()
    fuse_conv_bn(gm)
    t7 = time.monotonic()
    x = torch.randn(1, 4, 8, 8)
    if n <= 1600:  # smoke check: the rewritten graph runs
        with torch.no_grad():
            gm(x)
    del gm
    r = {"model": "chain%d" % n, "nodes": nodes, "trace_s": round(t1 - t0, 6),
         "relu_to_leaky_incl_trace_s": round(t3 - t2, 6), "dce_recompile_s": round(t5 - t4, 6),
         "fuse_conv_bn_s": round(t7 - t6, 6)}
    if n <= 1600:
        t8 = time.monotonic()
        gm = torch.fx.symbolic_trace(model)
        matches = replace_pattern(gm, sigmoid_pattern, clamp_replacement)
        gm.recompile()
        t9 = time.monotonic()
        if len(matches) != n:
            raise RuntimeError("replace_pattern replaced %d sigmoids, expected %d" % (len(matches), n))
        r["replace_pattern_incl_trace_s"] = round(t9 - t8, 6)
    return r


def main():
    ns = [int(a) for a in sys.argv[1:]] or [100, 400, 1600, 25000]
    for n in ns:
        try:
            bench(n)
        except Exception as e:  # e.g. RecursionError in codegen for huge graphs
            print(json.dumps({"model": "chain%d" % n, "error": "%s: %s" % (type(e).__name__, e)}), flush=True)


if __name__ == "__main__":
    main()
