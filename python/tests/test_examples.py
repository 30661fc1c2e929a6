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


def test_pattern_functions_equal_rule_strings_on_kws(data):
    """A two-node pattern traced from Python (x * sigmoid(x), the kws model's
    swish blocks) replaces the same nodes as the equivalent rule string, and
    the results equal hard_swish computed by numpy through an Interpreter."""
    path = data("kws", "kws.onnx")
    x = np.load(data("kws", "kws_test_x.npy"))[:16]
    a, b = nnfx.load(path), nnfx.load(path)
    ma = nnfx.replace_pattern(a, lambda v: v * nnfx.ops.sigmoid(v), lambda v: nnfx.ops.hard_swish(v))
    mb = nnfx.replace_pattern(b, "mul(x, sigmoid(x))", "hard_swish(x)")
    assert len(ma) == len(mb) > 0
    assert str(a.graph) == str(b.graph)

    ref = nnfx.load(path)
    swish = {n.name for n in ref.graph.find_nodes(op="call_function", target="sigmoid")
             if any(u.target == "mul" and n.args[0] in u.args for u in n.users)}
    assert len(swish) == len(ma)

    class NumpyHardSwish(nnfx.Interpreter):  # the unedited model, swish's sigmoid as hard_sigmoid(1/6, 1/2)
        def run_node(self, n):
            self.swish = n.name in swish
            return super().run_node(n)

        def call_function(self, target, args, kwargs):
            if self.swish:
                return np.clip(args[0] / 6 + 0.5, 0, 1).astype(np.float32)
            return super().call_function(target, args, kwargs)

    want = NumpyHardSwish(ref).run(x)
    np.testing.assert_allclose(a(x), want, rtol=1e-4, atol=1e-4)
