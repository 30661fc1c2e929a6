"""The seeds' edits written as a torch.fx user writes them, on a small torch
model exported to ONNX in the test: nnfx's result is checked against torch.fx
doing the same edit on the same torch model, and against `nnfx optimize` with
the equivalent pass or rule. Skipped when torch is not installed."""
import copy
import os
import subprocess
import sys

import numpy as np
import pytest

import nnfx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))
import seeds  # noqa: E402  (examples/python/seeds.py: the snippets under test)

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional
fx = pytest.importorskip("torch.fx")


class KwsNet(nn.Module):
    """Conv-BN-ReLU blocks, a sigmoid gate (a keyword-spotting style block) and
    a linear head: nn.ReLU modules, as torchvision writes them."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(8)
        self.relu2 = nn.ReLU()
        self.gate = nn.Conv2d(8, 8, 1)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        x = self.relu1(self.bn1(self.conv1(x)))
        y = self.relu2(self.bn2(self.conv2(x)))
        y = y * torch.sigmoid(self.gate(y))
        y = y.mean(dim=(2, 3))
        return self.fc(y)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    torch.manual_seed(0)
    m = KwsNet().eval()
    with torch.no_grad():
        for bn in (m.bn1, m.bn2):  # BN that is not an identity, so removing it shows
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-0.3, 0.3)
    x = torch.randn(2, 1, 12, 10)
    path = str(tmp_path_factory.mktemp("kws") / "kws.onnx")
    torch.onnx.export(m, (x,), path, opset_version=13, input_names=["x"], output_names=["logits"],
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    return m, x, path


# --- the edits, torch.fx side (as the seeds write them, with their bugs fixed) ---

def fx_remove_bn(m):
    gm = fx.symbolic_trace(copy.deepcopy(m))
    modules = dict(gm.named_modules())
    for node in gm.graph.nodes:
        if node.op == "call_module" and isinstance(modules[node.target], nn.BatchNorm2d):
            node.replace_all_uses_with(node.args[0])
            gm.graph.erase_node(node)
    gm.recompile()
    return gm


def fx_relu_to_leaky(m):
    gm = fx.symbolic_trace(copy.deepcopy(m))
    modules = dict(gm.named_modules())
    for node in gm.graph.nodes:
        if node.op == "call_module" and isinstance(modules[node.target], nn.ReLU):
            with gm.graph.inserting_after(node):
                new = gm.graph.call_function(F.leaky_relu, args=(node.args[0],), kwargs={"negative_slope": 0.1})
            node.replace_all_uses_with(new)
            gm.graph.erase_node(node)
    gm.recompile()
    return gm


def fx_sigmoid_to_hard(m):
    gm = fx.symbolic_trace(copy.deepcopy(m))
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target is torch.sigmoid:
            with gm.graph.inserting_after(node):
                new = gm.graph.call_function(F.hardsigmoid, args=(node.args[0],))
            node.replace_all_uses_with(new)
            gm.graph.erase_node(node)
    gm.recompile()
    return gm


# --- the same edits with nnfx: examples/python/seeds.py ---

def optimize(exe, path, tmp_path, *args):
    out = str(tmp_path / ("opt%d.onnx" % len(os.listdir(tmp_path))))
    subprocess.run([exe, "optimize", path, "-o", out, "-q"] + list(args), check=True, capture_output=True)
    return nnfx.load(out)


CASES = {
    "remove_bn": (fx_remove_bn, seeds.remove_bn, ["--pass", "remove-bn", "--pass", "dce"]),
    "relu_to_leaky": (fx_relu_to_leaky, lambda gm: seeds.relu_to_leaky_relu(gm, alpha=0.1),
                      ["--rewrite", "relu(x) -> leaky_relu(x, alpha=0.1)"]),
    # torch's hardsigmoid is hard_sigmoid with alpha 1/6, beta 0.5
    "sigmoid_to_hard": (fx_sigmoid_to_hard, lambda gm: seeds.sigmoid_to_hard_sigmoid(gm, alpha=1.0 / 6.0, beta=0.5),
                        ["--rewrite", "sigmoid(x) -> hard_sigmoid(x, alpha=0.16666667, beta=0.5)"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_seed_edit_matches_torch_fx_and_optimize(model, case, exe, tmp_path):
    m, x, path = model
    fx_edit, nnfx_edit, opt_args = CASES[case]
    with torch.no_grad():
        before = m(x).numpy()
        want = fx_edit(m)(x).numpy()
    assert not np.allclose(want, before, atol=1e-3)  # the edit changes the answer
    gm = nnfx.load(path)
    np.testing.assert_allclose(gm(x.numpy()), before, rtol=1e-4, atol=1e-5)
    nnfx_edit(gm)
    got = gm(x.numpy())
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    opt = optimize(exe, path, tmp_path, *opt_args)
    np.testing.assert_allclose(opt(x.numpy()), got, rtol=1e-5, atol=1e-6)
    assert str(opt.graph).count("call_function") == str(gm.graph).count("call_function")


class _Block(nn.Module):
    """One block of bench/python_fx_bench.py's chain: sigmoid(relu(bn(conv1x1(x)))) * x."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 1)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        return torch.sigmoid(torch.relu(self.bn(self.conv(x)))) * x


def test_many_edits_in_one_loop_match_torch_fx_and_optimize(exe, tmp_path):
    """The benchmark's chain (12 blocks): one loop removes every BN and turns
    every relu into leaky_relu (24 edits, nodes inserted after and erased
    while visited), then DCE; checked against torch.fx doing the same loop on
    the same module and against `nnfx optimize` with the equivalent pass and
    rule."""
    torch.manual_seed(1)
    m = nn.Sequential(*[_Block() for _ in range(12)]).eval()
    with torch.no_grad():
        for b in m:
            b.bn.running_mean.uniform_(-0.5, 0.5)
            b.bn.running_var.uniform_(0.5, 2.0)
            b.bn.bias.uniform_(-1.0, 0.2)  # negative pre-activations: leaky_relu differs from relu
    x = torch.randn(2, 4, 6, 5)
    path = str(tmp_path / "chain.onnx")
    torch.onnx.export(m, (x,), path, opset_version=13, training=torch.onnx.TrainingMode.PRESERVE,
                      do_constant_folding=False)

    gm_fx = fx.symbolic_trace(copy.deepcopy(m))
    modules = dict(gm_fx.named_modules())
    g = gm_fx.graph
    for node in g.nodes:
        if node.op == "call_module" and isinstance(modules[node.target], nn.BatchNorm2d):
            node.replace_all_uses_with(node.args[0])
            g.erase_node(node)
        elif node.op == "call_function" and node.target is torch.relu:
            with g.inserting_after(node):
                new = g.call_function(F.leaky_relu, args=(node.args[0],), kwargs={"negative_slope": 0.01})
            node.replace_all_uses_with(new)
            g.erase_node(node)
    g.eliminate_dead_code()
    gm_fx.recompile()
    with torch.no_grad():
        want = gm_fx(x).numpy()
        before = m(x).numpy()
    scale = np.abs(want).max()  # sigmoid(.) * x shrinks the values block by block
    assert scale > 0 and np.abs(want - before).max() > 1e-2 * scale  # the edits change the answer

    gm = nnfx.load(path)
    g = gm.graph
    edits = 0
    for node in g.nodes:
        if node.op == "call_function" and node.target == "batch_normalization":
            node.replace_all_uses_with(node.args[0])
            g.erase_node(node)
            edits += 1
        elif node.op == "call_function" and node.target == "relu":
            with g.inserting_after(node):
                new = g.call_function("leaky_relu", (node.args[0],), {"alpha": 0.01})
            node.replace_all_uses_with(new)
            g.erase_node(node)
            edits += 1
    assert edits == 24
    assert g.eliminate_dead_code()
    gm.recompile()
    got = gm(x.numpy())
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * scale)
    opt = optimize(exe, path, tmp_path, "--pass", "remove-bn", "--pass", "dce", "--rewrite",
                   "relu(x) -> leaky_relu(x, alpha=0.01)")
    np.testing.assert_allclose(opt(x.numpy()), got, rtol=1e-5, atol=1e-6 * scale)
    assert len(opt.graph) == len(g)
    assert len(g.find_nodes(op="call_function", target="leaky_relu")) == 12


def test_replace_pattern_functions_match_torch_fx(model):
    m, x, path = model
    with torch.no_grad():
        want = fx_sigmoid_to_hard(m)(x).numpy()
    gm = nnfx.load(path)

    def pattern(v):
        return nnfx.ops.sigmoid(v)

    def replacement(v):
        return nnfx.ops.hard_sigmoid(v, alpha=1.0 / 6.0, beta=0.5)

    matches = nnfx.replace_pattern(gm, pattern, replacement)
    assert len(matches) == 1 and matches[0].replacements[0].target == "hard_sigmoid"
    gm.recompile()
    np.testing.assert_allclose(gm(x.numpy()), want, rtol=1e-4, atol=1e-5)
    # rule strings, as pattern + replacement or one rule
    gm2 = nnfx.load(path)
    assert len(nnfx.replace_pattern(gm2, "relu(x)", "leaky_relu(x, alpha=0.1)")) == 2
    with torch.no_grad():
        np.testing.assert_allclose(gm2(x.numpy()), fx_relu_to_leaky(m)(x).numpy(), rtol=1e-4, atol=1e-5)
    gm3 = nnfx.load(path)
    assert nnfx.rewrite(gm3, "relu(x) -> leaky_relu(x, alpha=0.1)") == 2
    assert str(gm3.graph) == str(gm2.graph)


def test_passes_every_pass_keeps_results(model):
    m, x, path = model
    with torch.no_grad():
        want = m(x).numpy()
    for name in nnfx.passes.names():
        if name == "remove-bn":
            continue  # changes results by design (test above)
        gm = nnfx.load(path)
        r = getattr(nnfx.passes, name.replace("-", "_"))(gm)
        assert r.name == name
        np.testing.assert_allclose(gm(x.numpy()), want, rtol=1e-4, atol=1e-5, err_msg=name)
    gm = nnfx.load(path)
    assert nnfx.passes.fuse_conv_bn(gm).changed == 2
    assert not gm.graph.find_nodes(op="call_function", target="batch_normalization")


def test_transformer_inserting_qdq_matches_numpy_fake_quant(model):
    """examples' InsertQDQ Transformer (QuantizeLinear/DequantizeLinear before
    every conv input): the result equals the torch model run with the same fake
    quantization applied in numpy/torch (round half to even, saturate)."""
    m, x, path = model
    scale, zp = 0.02, 128
    gm = nnfx.load(path)

    qgm = seeds.InsertQDQ(gm, scale, zp).transform()
    nq = len(qgm.graph.find_nodes(op="call_function", target="quantize_linear"))
    assert nq == 3

    def fake(t):
        return (torch.clamp(torch.round(t / scale) + zp, 0, 255) - zp) * scale

    class Ref(nn.Module):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def forward(self, x):
            n = self.net
            x = n.relu1(n.bn1(n.conv1(fake(x))))
            y = n.relu2(n.bn2(n.conv2(fake(x))))
            y = y * torch.sigmoid(n.gate(fake(y)))
            return n.fc(y.mean(dim=(2, 3)))

    with torch.no_grad():
        want = Ref(m)(x).numpy()
        plain = m(x).numpy()
    got = qgm(x.numpy())
    assert not np.allclose(got, plain, atol=1e-4)
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)


def test_interpreter_run_node_records_every_node(model):
    m, x, path = model
    gm = nnfx.load(path)

    class Record(nnfx.Interpreter):
        def __init__(self, gm):
            super().__init__(gm)
            self.values = {}

        def run_node(self, n):
            v = super().run_node(n)
            self.values[n.name] = v
            return v

    rec = Record(gm)
    out = rec.run(x.numpy())
    with torch.no_grad():
        np.testing.assert_allclose(out, m(x).numpy(), rtol=1e-4, atol=1e-5)
        conv1 = m.conv1(x).numpy()
    first_conv = gm.graph.find_nodes(op="call_function", target="conv")[0]
    np.testing.assert_allclose(rec.values[first_conv.name], conv1, rtol=1e-4, atol=1e-5)
    assert len(rec.values) == len(gm.graph)


def test_from_torch(model):
    m, x, _ = model
    gm = nnfx.from_torch(m, (x,))
    with torch.no_grad():
        np.testing.assert_allclose(gm(x.numpy()), m(x).numpy(), rtol=1e-4, atol=1e-5)



@pytest.mark.skipif(not os.environ.get("NNFX_PY_SLOW"), reason="slow (resnet18 export): ctest -L slow sets NNFX_PY_SLOW")
@pytest.mark.parametrize("case", ["remove_bn", "relu_to_leaky"])
def test_resnet18_seed_edits(case, exe, tmp_path):
    """The seeds' loops on torchvision's resnet18 (random weights, BN kept):
    the same outputs as torch.fx doing the same edit and as `nnfx optimize`
    with the equivalent pass or rule."""
    torchvision = pytest.importorskip("torchvision")
    torch.manual_seed(0)
    m = torchvision.models.resnet18().eval()
    x = torch.randn(1, 3, 224, 224)
    path = str(tmp_path / "r18.onnx")
    torch.onnx.export(m, (x,), path, opset_version=13, training=torch.onnx.TrainingMode.PRESERVE,
                      do_constant_folding=False)
    fx_edit, nnfx_edit, opt_args = CASES[case]
    with torch.no_grad():
        want = fx_edit(m)(x).numpy()
    gm = nnfx_edit(nnfx.load(path))
    got = gm(x.numpy())
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * float(np.abs(want).max()))
    np.testing.assert_allclose(optimize(exe, path, tmp_path, *opt_args)(x.numpy()), got, rtol=1e-5,
                               atol=1e-6 * float(np.abs(got).max()))
