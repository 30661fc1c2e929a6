"""The command-line tools as functions (nnfx.analyze, compare, prune,
quantize, codegen run the nnfx command with JSON output)."""
import os

import numpy as np
import pytest

import nnfx


def test_analyze_counts_match_graph(data):
    path = data("real_models", "mini_resnet.onnx")
    rep = nnfx.analyze(path)
    gm = nnfx.load(path)
    assert rep["graph_nodes"] == len(gm.graph)
    assert rep["nodes"] == len(gm.graph.find_nodes(op="call_function"))
    assert rep["params"] == sum(a.size for _, a in gm.named_parameters())
    assert rep["macs"] > 0 and isinstance(rep["findings"], list)


def test_compare_detects_an_edit(data, tmp_path):
    path = data("real_models", "mini_resnet.onnx")
    gm = nnfx.load(path)
    same = nnfx.compare(path, gm)
    assert same["agree"] is True and same["max_abs_error"] == 0
    nnfx.replace_pattern(gm, "relu(x) -> leaky_relu(x, alpha=0.5)")
    diff = nnfx.compare(path, gm)
    assert diff["agree"] is False and diff["max_abs_error"] > 1e-3


def test_prune_and_codegen(data, tmp_path):
    path = data("real_models", "mini_resnet.onnx")
    out = tmp_path / "small.onnx"
    rep = nnfx.prune(path, out, ratio=0.5)
    assert os.path.exists(out) and rep
    small = nnfx.load(out)
    assert sum(a.size for _, a in small.named_parameters()) < sum(a.size for _, a in nnfx.load(path).named_parameters())
    cg = nnfx.codegen(path, tmp_path / "c", name="net")
    assert os.path.exists(tmp_path / "c" / "net.c") and cg


def test_quantize(data, tmp_path):
    path = data("real_models", "mini_resnet.onnx")
    x = np.load(data("real_models", "mini_resnet.input_0.npy"))
    calib = np.concatenate([x, x * 0.5, -x, x * 1.5])
    out = tmp_path / "q.onnx"
    gm = nnfx.load(path)
    name = next(iter(gm.graph.nodes)).name
    rep = nnfx.quantize(path, out, {name: calib})
    q = nnfx.load(out)
    assert q.graph.find_nodes(op="call_function", target="quantize_linear") and rep
    np.testing.assert_allclose(q(x), gm(x), atol=0.2)


def test_tool_errors_raise(tmp_path):
    with pytest.raises(nnfx.Error):
        nnfx.analyze(tmp_path / "missing.onnx")
