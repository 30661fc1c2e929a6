"""examples/python/seeds.py on the real keyword-spotting model (no torch
needed: PyTorch's figures are stored beside the model)."""
import os
import subprocess
import sys

import numpy as np

import nnfx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))
import seeds  # noqa: E402


def test_kws_sigmoid_to_hard_sigmoid_accuracy_matches_pytorch(data):
    """The seeds' chip-without-exp edit on the real keyword-spotting model:
    nnfx's logits before the edit equal PyTorch's stored logits, and its
    held-out top-1 after sigmoid -> hard_sigmoid(0.2, 0.5) equals the figure
    PyTorch computed for the same replacement (tests/data/kws/kws_ref.json)."""
    import json
    gm = nnfx.load(data("kws", "kws.onnx"))
    x = np.load(data("kws", "kws_test_x.npy"))
    y = np.load(data("kws", "kws_test_y.npy"))
    ref = json.load(open(data("kws", "kws_ref.json")))
    np.testing.assert_allclose(gm(x), np.load(data("kws", "kws_logits.npy")), rtol=1e-4, atol=1e-4)
    assert int((gm(x).argmax(1) == y).sum()) == ref["correct"]
    seeds.sigmoid_to_hard_sigmoid(gm, alpha=0.2, beta=0.5)
    assert not gm.graph.find_nodes(op="call_function", target="sigmoid")
    assert int((gm(x).argmax(1) == y).sum()) == ref["sigmoid_to_hard_sigmoid"]["correct"]


def test_examples_script_runs(data):
    here = os.path.dirname(os.path.abspath(__file__))
    script = os.path.join(here, "..", "..", "examples", "python", "seeds.py")
    env = dict(os.environ, PYTHONPATH=os.path.join(here, ".."))
    r = subprocess.run([sys.executable, script, data("real_models", "mini_resnet.onnx")], capture_output=True,
                       text=True, env=env, check=True)
    assert "opcode" in r.stdout and "insert_qdq" in r.stdout
