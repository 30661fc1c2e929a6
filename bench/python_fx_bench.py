"""The seeds' edit loops written in Python: nnfx's Python package vs torch.fx,
in one run (a benchmark, not a test).

  resnet50 (torchvision, random weights, BatchNorm kept in the ONNX export):
      the BN-removal loop (every BatchNorm's users sent to its input, the
      node erased) + dead-code elimination + recompile
  chain1600 (bench/torch_fx_graph_ops.py's chain: 1600 blocks of
      sigmoid(relu(bn(conv1x1(x)))) * x, 17.6k nodes in nnfx; the ONNX file
      is written with python3-onnx, the same blocks):
      every relu -> leaky_relu (inserting_after, replace_all_uses_with,
      erase_node) + recompile

Each key is the best of 3 runs on a fresh graph (nnfx: loaded from the ONNX
file, which also makes the Python Node objects; torch.fx: symbolic_trace of
the module, which makes its nodes), timed around the edit loop and recompile
only, as wall time (time.perf_counter, *_edit_s) and as the thread's CPU time
(time.thread_time, *_edit_cpu_s: on a loaded machine a short run's wall time
depends on whether it was descheduled; the CPU time does much less); the
load / trace times are printed beside. Prints one JSON line per model, then
the ratios torch.fx / nnfx (wall and CPU).
Usage: PYTHONPATH=python python3 bench/python_fx_bench.py [build-dir]
"""
import json
import os
import sys
import tempfile
import time

import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "python"))
if len(sys.argv) > 1:
    os.environ["NNFX_LIB"] = os.path.join(os.path.abspath(sys.argv[1]), "libnnfx.so")
import nnfx  # noqa: E402

sys.path.insert(0, here)
from torch_fx_graph_ops import Chain  # noqa: E402


def export(m, x, path):
    m.eval()
    torch.onnx.export(m, (x,), path, opset_version=13, training=torch.onnx.TrainingMode.PRESERVE,
                      do_constant_folding=False)


def chain_onnx(n, path):
    """bench/torch_fx_graph_ops.py's Chain(n) written directly as ONNX (with
    python3-onnx; torch.onnx.export takes minutes on 1600 blocks): per block
    Conv 1x1 4->4, BatchNormalization, Relu, Sigmoid, Mul by the block input."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    x = "x"
    for i in range(n):
        p = "l%d." % i
        for name, shape in (("w", (4, 4, 1, 1)), ("b", (4,)), ("g", (4,)), ("beta", (4,)), ("m", (4,)),
                            ("v", (4,))):
            a = rng.uniform(0.5, 1.5, shape).astype(np.float32)
            inits.append(numpy_helper.from_array(a, p + name))
        nodes += [helper.make_node("Conv", [x, p + "w", p + "b"], [p + "c"]),
                  helper.make_node("BatchNormalization", [p + "c", p + "g", p + "beta", p + "m", p + "v"], [p + "n"]),
                  helper.make_node("Relu", [p + "n"], [p + "r"]),
                  helper.make_node("Sigmoid", [p + "r"], [p + "s"]),
                  helper.make_node("Mul", [p + "s", x], [p + "y"])]
        x = p + "y"
    g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
                          [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 4, 8, 8])], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)


def best(fn, setup, runs=3):
    """(best wall time, best CPU time) of fn(setup()) over runs."""
    walls, cpus = [], []
    for _ in range(runs):
        obj = setup()
        c = time.thread_time()
        t = time.perf_counter()
        fn(obj)
        walls.append(time.perf_counter() - t)
        cpus.append(time.thread_time() - c)
    return min(walls), min(cpus)


# --- torch.fx ---------------------------------------------------------------

def fx_bn_removal(gm):
    modules = dict(gm.named_modules())
    for node in gm.graph.nodes:
        if node.op == "call_module" and isinstance(modules[node.target], nn.BatchNorm2d):
            node.replace_all_uses_with(node.args[0])
            gm.graph.erase_node(node)
    gm.graph.eliminate_dead_code()
    gm.recompile()


def fx_relu_to_leaky(gm):
    g = gm.graph
    for node in g.nodes:
        if node.op == "call_function" and node.target is torch.relu:
            with g.inserting_after(node):
                new = g.call_function(F.leaky_relu, args=(node.args[0],), kwargs={"negative_slope": 0.01})
            node.replace_all_uses_with(new)
            g.erase_node(node)
    gm.recompile()


# --- nnfx (the same loops, nnfx's names) -----------------------------------------

def nnfx_bn_removal(gm):
    g = gm.graph
    for node in g.nodes:
        if node.op == "call_function" and node.target == "batch_normalization":
            node.replace_all_uses_with(node.args[0])
            g.erase_node(node)
    g.eliminate_dead_code()
    gm.recompile()


def nnfx_relu_to_leaky(gm):
    g = gm.graph
    for node in g.nodes:
        if node.op == "call_function" and node.target == "relu":
            with g.inserting_after(node):
                new = g.call_function("leaky_relu", (node.args[0],), {"alpha": 0.01})
            node.replace_all_uses_with(new)
            g.erase_node(node)
    gm.recompile()


def main():
    import torchvision
    torch.manual_seed(0)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        cases = [("resnet50", torchvision.models.resnet50(), torch.randn(1, 3, 224, 224), fx_bn_removal,
                  nnfx_bn_removal),
                 ("chain1600", Chain(1600), torch.randn(1, 4, 8, 8), fx_relu_to_leaky, nnfx_relu_to_leaky)]
        for name, m, x, fx_edit, nnfx_edit in cases:
            m.eval()
            path = os.path.join(tmp, name + ".onnx")
            if name.startswith("chain"):
                chain_onnx(1600, path)
            else:
                export(m, x, path)
            t = time.perf_counter()
            gm = nnfx.load(path)
            nnfx_load = time.perf_counter() - t
            nodes = len(gm.graph)
            t = time.perf_counter()
            fgm = torch.fx.symbolic_trace(m)
            fx_trace = time.perf_counter() - t
            fx_nodes = len(fgm.graph.nodes)
            del gm, fgm
            nnfx_s = best(nnfx_edit, lambda: nnfx.load(path))
            fx_s = best(fx_edit, lambda: torch.fx.symbolic_trace(m))
            (nnfx_s, nnfx_cpu), (fx_s, fx_cpu) = nnfx_s, fx_s
            row = {"model": name, "nodes": nodes, "fx_nodes": fx_nodes, "nnfx_edit_s": round(nnfx_s, 6),
                   "torch_fx_edit_s": round(fx_s, 6), "nnfx_edit_cpu_s": round(nnfx_cpu, 6),
                   "torch_fx_edit_cpu_s": round(fx_cpu, 6), "nnfx_load_s": round(nnfx_load, 6),
                   "torch_fx_trace_s": round(fx_trace, 6)}
            print(json.dumps(row), flush=True)
            rows.append(row)
    print("%-10s %7s %8s %12s %12s %7s %9s" % ("model", "nodes", "fx_nodes", "torch.fx_s", "nnfx_s", "ratio",
                                              "cpu_ratio"))
    for r in rows:
        print("%-10s %7d %8d %12.4f %12.4f %6.1fx %8.1fx" % (
            r["model"], r["nodes"], r["fx_nodes"], r["torch_fx_edit_s"], r["nnfx_edit_s"],
            r["torch_fx_edit_s"] / r["nnfx_edit_s"], r["torch_fx_edit_cpu_s"] / r["nnfx_edit_cpu_s"]))


if __name__ == "__main__":
    main()
