"""Core API: load/run/save, Graph and Node editing with torch.fx's names,
references that outlive their C objects, errors. Numbers are checked against
the reference outputs stored beside the models (PyTorch's) and numpy."""
import gc
import subprocess

import numpy as np
import pytest

import nnfx

MODEL = ("real_models", "mini_resnet.onnx")


@pytest.fixture
def gm(data):
    return nnfx.load(data(*MODEL))


@pytest.fixture
def x(data):
    return np.load(data("real_models", "mini_resnet.input_0.npy"))


@pytest.fixture
def ref(data):
    return np.load(data("real_models", "mini_resnet.output_0.npy"))


def test_run_matches_reference(gm, x, ref):
    y = gm(x)
    assert isinstance(y, np.ndarray) and y.shape == ref.shape and y.dtype == np.float32
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5)
    # non-contiguous and float64 inputs are converted
    xf = np.asfortranarray(x)
    np.testing.assert_allclose(gm(xf), ref, rtol=1e-4, atol=1e-5)
    # outputs are views of their own tensors: a later run does not change them
    y2 = gm(x * 2)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5)
    assert not np.allclose(y2, y)


def test_nodes_ops_targets(gm):
    g = gm.graph
    ops = {n.op for n in g.nodes}
    assert ops == {"placeholder", "get_attr", "call_function", "output"}
    targets = [n.target for n in g.nodes if n.op == "call_function"]
    assert "conv" in targets and "relu" in targets
    assert len(g.nodes) == len(list(g.nodes)) == len(g)
    first = next(iter(g.nodes))
    assert first.op == "placeholder" and first.prev is None
    assert first.next.prev is first  # one Python object per node
    assert g.output_node().op == "output" and g.output_node().next is None
    assert [n.name for n in reversed(g.nodes)] == [n.name for n in g.nodes][::-1]
    relus = g.find_nodes(op="call_function", target="relu")
    assert relus and all(n.target == "relu" for n in relus)
    assert g.find_nodes(op="call_function", target=nnfx.ops.Relu) == relus


def test_str_is_inspect_text(gm, data, exe):
    text = subprocess.run([exe, "inspect", data(*MODEL)], capture_output=True, text=True, check=True).stdout
    assert str(gm.graph).strip() == text.strip()
    tab = subprocess.run([exe, "inspect", data(*MODEL), "--format", "tabular"], capture_output=True, text=True,
                         check=True).stdout
    assert gm.graph.tabular().strip() == tab.strip()


def test_print_tabular_and_readable(gm, capsys):
    gm.graph.print_tabular()
    out = capsys.readouterr().out
    assert "opcode" in out and "call_function" in out and "relu" in out
    s = gm.print_readable(print_output=False)
    assert "forward" in s and s == gm.print_readable(print_output=False)
    assert "relu(" in gm.code


def _relu_to_leaky(g):
    for node in g.nodes:
        if node.op == "call_function" and node.target == "relu":
            with g.inserting_after(node):
                new = g.call_function("leaky_relu", (node.args[0],), {"alpha": 0.1})
            node.replace_all_uses_with(new)
            g.erase_node(node)


def test_relu_to_leaky_matches_numpy_interpreter(gm, x):
    """The edit by hand vs the unedited model with relu computed as leaky
    relu in numpy (an Interpreter override): same numbers."""
    class NumpyLeaky(nnfx.Interpreter):
        def call_function(self, target, args, kwargs):
            if target == "relu":
                a = args[0]
                return np.where(a >= 0, a, np.float32(0.1) * a).astype(np.float32)
            return super().call_function(target, args, kwargs)

    want = NumpyLeaky(gm).run(x)
    n_relu = len(gm.graph.find_nodes(op="call_function", target="relu"))
    _relu_to_leaky(gm.graph)
    gm.recompile()
    assert not gm.graph.find_nodes(op="call_function", target="relu")
    assert len(gm.graph.find_nodes(op="call_function", target="leaky_relu")) == n_relu
    got = gm(x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert not np.allclose(got, gm.copy()(x) * 0)  # something computed


def test_erase_with_users_is_runtime_error(gm):
    g = gm.graph
    relu = g.find_nodes(op="call_function", target="relu")[0]
    with pytest.raises(RuntimeError, match="user"):
        g.erase_node(relu)
    with pytest.raises(nnfx.GraphError):
        g.erase_node(relu)
    assert relu.name  # still alive


def test_erased_node_raises_not_crashes(gm):
    g = gm.graph
    relu = g.find_nodes(op="call_function", target="relu")[0]
    relu.replace_all_uses_with(relu.args[0])
    g.erase_node(relu)
    for use in (lambda: relu.args, lambda: relu.users, lambda: relu.name, lambda: relu.kwargs, lambda: relu.next,
                lambda: relu.meta, lambda: g.erase_node(relu), lambda: g.call_function("relu", (relu,)),
                lambda: relu.replace_all_uses_with(relu)):
        with pytest.raises(nnfx.DeadReferenceError):
            use()
    assert "erased" in repr(relu)


def test_node_erased_by_c_pass_raises(data):
    gm = nnfx.load(data("cli", "convbn.onnx"))
    bn = gm.graph.find_nodes(op="call_function", target="batch_normalization")[0]
    keep = gm.graph.find_nodes(op="call_function", target="relu")[0]
    r = nnfx.passes.fuse_conv_bn(gm)
    assert r.changed == 1
    with pytest.raises(nnfx.DeadReferenceError):
        bn.args
    assert keep.target == "relu" and keep.args  # live nodes stay usable
    # a new node at a reused address is a different handle
    assert all(n is not bn for n in gm.graph.nodes)


def test_freed_graph_raises(data):
    gm = nnfx.load(data(*MODEL))
    g = gm.graph
    n = next(iter(g.nodes))
    del gm
    gc.collect()
    assert n.name  # the node keeps the graph (and its module) alive
    # a Transformer that fails frees the graph it was building
    kept = []

    class Fail(nnfx.Transformer):
        def call_function(self, target, args, kwargs):
            kept.append(super().call_function(target, args, kwargs))
            raise ValueError("stop here")

    with pytest.raises(ValueError, match="stop here"):
        Fail(nnfx.load(data(*MODEL))).transform()
    with pytest.raises(nnfx.DeadReferenceError):
        kept[0].args
    with pytest.raises(nnfx.DeadReferenceError):
        kept[0].graph.nodes


def test_erase_current_node_while_iterating(gm):
    g = gm.graph
    seen = []
    for n in g.nodes:
        seen.append(n.name)
        if n.op == "call_function" and n.target == "relu":
            n.replace_all_uses_with(n.args[0])
            g.erase_node(n)
    assert seen[-1] == g.output_node().name
    assert not g.find_nodes(op="call_function", target="relu")
    g.lint()


def test_inserting_order_and_restore(gm):
    g = gm.graph
    relu = g.find_nodes(op="call_function", target="relu")[0]
    with g.inserting_after(relu):
        a = g.call_function("neg", (relu,))
        b = g.call_function("neg", (a,))
    assert relu.next is a and a.next is b  # creation order kept (unlike torch.fx)
    with g.inserting_before(relu):
        c = g.call_function("abs", (relu.args[0],))
    assert c.next is relu
    d = g.call_function("abs", (b,))  # after the block: back to the end
    assert d.next is g.output_node()
    assert list(a.users) == [b] and b.all_input_nodes == [a]
    for n in (d, c, b, a):
        g.erase_node(n)
    g.lint()


def test_kwargs_args_meta(gm, x):
    g = gm.graph
    relu = g.find_nodes(op="call_function", target="relu")[0]
    with g.inserting_after(relu):
        lk = g.call_function("leaky_relu", (relu.args[0],), {"alpha": 0.5})
    assert lk.kwargs == {"alpha": 0.5}
    lk.kwargs["alpha"] = 0.25
    assert lk.kwargs["alpha"] == 0.25
    lk.kwargs = {"alpha": 0.2}
    assert lk.kwargs["alpha"] == pytest.approx(0.2)
    relu.replace_all_uses_with(lk)
    lk.meta["note"] = "from relu"
    g.erase_node(relu)
    gm.recompile()
    assert lk.meta["note"] == "from relu"
    conv = lk.args[0]
    assert lk.meta["shape"] == conv.meta["shape"] and len(lk.meta["shape"]) == 4
    assert lk.meta["dtype"] == np.float32
    # replace_input_with, args setter
    neg = g.call_function("neg", (conv,))
    neg.replace_input_with(conv, lk)
    assert neg.args == (lk,)
    neg.args = (conv,)
    assert neg.args == (conv,) and neg in conv.users
    g.erase_node(neg)
    conv_node = next(n for n in g.nodes if n.target == "conv")
    assert conv_node.kwargs["group"] == 1 and isinstance(conv_node.kwargs["kernel_shape"], tuple)
    gm(x)


def test_build_graph_from_scratch():
    g = nnfx.Graph()
    xn = g.placeholder("x", shape=(2, 3))
    g.set_parameter("w", np.arange(6, dtype=np.float32).reshape(2, 3))
    w = g.get_attr("w")
    s = g.call_function("add", (xn, w))
    r = g.call_function(nnfx.ops.relu, (s,))
    g.output(r)
    g.lint()
    gm = nnfx.GraphModule(g)
    gm.recompile()
    x = np.array([[-10, 1, -1], [0, -5, 2]], np.float32)
    np.testing.assert_array_equal(gm(x), np.maximum(x + np.arange(6).reshape(2, 3), 0))
    # literals
    g2 = nnfx.Graph()
    a = g2.placeholder("a", shape=(3,))
    g2.output(g2.call_function("mul", (a, 2.5)))
    np.testing.assert_allclose(nnfx.GraphModule(g2)(np.ones(3, np.float32)), [2.5, 2.5, 2.5])
    # a node of another graph is refused
    with pytest.raises(nnfx.BadInputError, match="another graph"):
        g2.call_function("relu", (r,))


def test_lint_reports(gm):
    g = gm.graph
    conv = g.find_nodes(op="call_function", target="conv")[0]
    g.call_function("relu", (conv,))
    g.lint()  # fine: a dead node is allowed
    assert g.eliminate_dead_code() is True
    assert g.eliminate_dead_code() is False
    with pytest.raises(nnfx.BadInputError, match="add takes 2"):
        g.call_function("add", (conv,))  # arity checked at creation
    relu = conv.next
    conv.prepend(relu)  # relu now before its input
    with pytest.raises(nnfx.GraphError, match="before it is defined"):
        g.lint()
    relu.prepend(conv)
    g.lint()


def test_save_and_load_roundtrip(gm, x, ref, tmp_path):
    _relu_to_leaky(gm.graph)
    gm.recompile()
    want = gm(x)
    p = tmp_path / "m.onnx"
    gm.save(p)
    back = nnfx.load(p)
    np.testing.assert_allclose(back(x), want, rtol=1e-6, atol=1e-7)
    assert len(back.graph.find_nodes(op="call_function", target="leaky_relu")) == 7
    # the text form with its values beside it (m.fx.safetensors): same structure, same numbers
    p = tmp_path / "m.fx"
    gm.save(p)
    assert (tmp_path / "m.fx.safetensors").exists()
    back = nnfx.load(p)

    def structure(m):
        return [(n.op, n.target, n.name) for n in m.graph.nodes]

    assert structure(back) == structure(gm)  # (attributes pass through ONNX's float32)
    np.testing.assert_allclose(back(x), want, rtol=1e-6, atol=1e-7)
    # without its values it loads for editing but does not run on zero weights
    (tmp_path / "m.fx.safetensors").unlink()
    bare = nnfx.load(p)
    assert structure(bare) == structure(gm)
    with pytest.raises(nnfx.FileError, match="safetensors"):
        bare(x)
    with pytest.raises(nnfx.FileError, match="safetensors"):
        nnfx.Interpreter(bare).run(x)


def test_named_parameters_read_only_and_cow(data, x, ref):
    gm = nnfx.load(data(*MODEL))
    params = dict(gm.named_parameters())
    assert params and all(not a.flags.writeable for a in params.values())
    name, w = next(iter(params.items()))
    before = w.copy()
    with pytest.raises(ValueError):
        w[...] = 0
    m = gm.mutable_parameter(name)
    m[...] = 0
    np.testing.assert_array_equal(w, before)  # the earlier view (the file's data) is untouched
    np.testing.assert_array_equal(gm.get_parameter(name), 0)
    assert not np.allclose(gm(x), ref)
    np.testing.assert_allclose(nnfx.load(data(*MODEL))(x), ref, rtol=1e-4, atol=1e-5)  # file unchanged


def test_errors_carry_c_message(tmp_path, data):
    with pytest.raises(nnfx.FileError) as e:
        nnfx.load(tmp_path / "missing.onnx")
    assert "missing.onnx" in str(e.value)
    bad = tmp_path / "bad.fx"
    bad.write_text("graph():\n    %x : [num_users=1] = placeholder[target=x]\n    %y = nonsense\n")
    with pytest.raises(nnfx.ParseError, match="line"):
        nnfx.load(bad)
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"\x08\x07\x12\xff\xff\xff")
    with pytest.raises(nnfx.Error):
        nnfx.load(junk)
    g = nnfx.Graph()
    with pytest.raises(nnfx.UnsupportedOpError, match="no_such_op"):
        g.call_function("no_such_op", ())
    gm = nnfx.load(data(*MODEL))
    with pytest.raises(nnfx.ShapeError):
        gm(np.zeros((1, 3, 5), np.float32))
    with pytest.raises(nnfx.NotFoundError):
        gm.graph.get_attr("no.such.param")
    assert issubclass(nnfx.GraphError, RuntimeError) and issubclass(nnfx.ShapeError, nnfx.Error)


def test_eager_ops():
    a = np.array([-2.0, 0.5, 3.0], np.float32)
    np.testing.assert_allclose(nnfx.ops.leaky_relu(a, alpha=0.1), np.where(a > 0, a, 0.1 * a), rtol=1e-6)
    np.testing.assert_allclose(nnfx.ops.hard_sigmoid(a, alpha=1 / 6, beta=0.5), np.clip(a / 6 + 0.5, 0, 1),
                               rtol=1e-6)
    np.testing.assert_allclose(nnfx.ops.add(a, a), 2 * a)
    with pytest.raises(AttributeError):
        nnfx.ops.no_such_op


def test_no_tensor_leak_across_runs(data, x):
    """Owned tensor storage the binding creates (inputs, outputs, parameters
    made writable, interpreter values) is all given back once the Python
    objects go: nnfx_memory_in_use returns to where it started."""
    from nnfx._lib import lib
    lib.nnfx_memory_in_use.restype = __import__("ctypes").c_size_t
    gc.collect()
    start = lib.nnfx_memory_in_use()
    for _ in range(3):
        gm = nnfx.load(data(*MODEL))
        y = gm(x)
        name = next(gm.named_parameters())[0]
        gm.mutable_parameter(name)[...] = 1
        nnfx.Interpreter(gm).run(x)
        _relu_to_leaky(gm.graph)
        gm.recompile()
        gm(x)
        del gm, y
    gc.collect()
    assert lib.nnfx_memory_in_use() == start


def test_editing_the_graph_from_a_handler_is_refused(gm, x, ref):
    """An Interpreter handler that edits the graph being run (which would
    free nodes the C interpreter still walks) gets a GraphError; the run
    stops with it and the model is intact afterwards."""
    class Editor(nnfx.Interpreter):
        def call_function(self, target, args, kwargs):
            if target == "relu":
                for n in self.graph.nodes:
                    if n.target == "relu" and n.users:
                        n.replace_all_uses_with(n.args[0])
            return super().call_function(target, args, kwargs)

    with pytest.raises(nnfx.GraphError, match="being run"):
        Editor(gm).run(x)

    class Runner(nnfx.Interpreter):
        def run_node(self, n):
            if n.op == "output":
                self.module(x)  # running the module itself from a handler
            return super().run_node(n)

    with pytest.raises(nnfx.GraphError, match="being run"):
        Runner(gm).run(x)

    class Eraser(nnfx.Transformer):
        def call_function(self, target, args, kwargs):
            nnfx.passes.dce(self.module)
            return super().call_function(target, args, kwargs)

    with pytest.raises(nnfx.GraphError, match="being run"):
        Eraser(gm).transform()
    np.testing.assert_allclose(gm(x), ref, rtol=1e-4, atol=1e-5)
    gm.graph.lint()


def test_threads_share_a_module_safely(gm, x, ref):
    """Runs release the GIL: two threads running one GraphModule take turns
    (right answers), and an edit tried while a run is under way is refused
    or happens between runs, never inside one."""
    import threading
    errors, results = [], []

    def worker():
        try:
            for _ in range(10):
                results.append(gm(x))
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    ts = [threading.Thread(target=worker) for _ in range(2)]
    for t in ts:
        t.start()
    refused = 0
    for _ in range(50):
        try:
            gm.graph.eliminate_dead_code()
        except nnfx.GraphError:
            refused += 1
    for t in ts:
        t.join()
    assert not errors and len(results) == 20
    for r in results:
        np.testing.assert_allclose(r, ref, rtol=1e-4, atol=1e-5)


def test_long_graph_iteration_with_edits():
    """graph.nodes over a 2,000-node chain (past the chunks the iteration
    reads at once): every node visited once, in order, forward and reversed,
    with edits every few nodes (erasing the visited node, inserting after it)."""
    g = nnfx.Graph()
    x = g.placeholder("x", shape=(4,))
    v = x
    for _ in range(2000):
        v = g.call_function("neg", (v,))
    g.output(v)
    names = [n.name for n in g.nodes]
    assert len(names) == 2002 == len(set(names))
    assert [n.name for n in reversed(g.nodes)] == names[::-1]
    seen, k = [], 0
    for n in g.nodes:
        seen.append(n.name)
        if n.target == "neg":
            k += 1
            if k % 3 == 0:  # erase the visited node
                n.replace_all_uses_with(n.args[0])
                g.erase_node(n)
            elif k % 7 == 0:  # insert after it: the new node is visited next
                with g.inserting_after(n):
                    a = g.call_function("abs", (n,))
                n.replace_all_uses_with(a)
    assert seen[:2] == names[:2] and seen[-1] == names[-1]
    n_abs = len(g.find_nodes(op="call_function", target="abs"))
    assert len(seen) == 2002 + n_abs and n_abs == 2000 // 7 - 2000 // 21
    assert len(g.find_nodes(op="call_function", target="neg")) == 2000 - 2000 // 3
    g.lint()
    gm = nnfx.GraphModule(g)
    xs = np.array([1, -2, 3, -4], np.float32)
    np.testing.assert_array_equal(np.abs(gm(xs)), np.abs(xs))


def test_edit_loops_in_threads_at_once():
    """The short edit calls pass their arguments and results through a words
    buffer that is each thread's own: edit loops in several threads, switching
    as often as the interpreter allows, each on its own graph, get their own
    nodes back (relu -> leaky_relu with the node's args checked, erases, a
    refused erase's message naming its own node)."""
    import sys
    import threading
    errors = []

    def worker(t):
        try:
            g = nnfx.Graph()
            v = g.placeholder("x%d" % t, shape=(4,))
            for _ in range(300):
                v = g.call_function("relu", (v,))
            g.output(v)
            for node in g.nodes:
                if node.op == "call_function" and node.target == "relu":
                    src = node.args[0]
                    with g.inserting_after(node):
                        new = g.call_function("leaky_relu", (src,), {"alpha": 0.01})
                    assert new.args == (src,) and new.graph is g
                    users = node.replace_all_uses_with(new)
                    assert all(u.graph is g and new in u.args for u in users)
                    g.erase_node(node)
            try:
                g.erase_node(g.find_nodes(op="placeholder")[0])
                errors.append("erase of a used node not refused")
            except RuntimeError as e:
                assert "x%d" % t in str(e), str(e)
            assert len(g.find_nodes(op="call_function", target="leaky_relu")) == 300
            assert not g.find_nodes(op="call_function", target="relu")
            g.lint()
            xs = np.array([1, -2, 3, -4], np.float32)
            np.testing.assert_allclose(nnfx.GraphModule(g)(xs), np.where(xs > 0, xs, xs * 0.01 ** 300), rtol=1e-5)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        ts = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors


def test_reversed_iteration_erasing_visited_nodes():
    g = nnfx.Graph()
    v = g.placeholder("x", shape=(3,))
    for _ in range(600):
        v = g.call_function("neg", (v,))
    g.output(v)
    visited = 0
    for n in reversed(g.nodes):
        visited += 1
        if n.target == "neg":
            n.replace_all_uses_with(n.args[0])
            g.erase_node(n)
    assert visited == 602 and len(g) == 2
    g.lint()


@pytest.mark.parametrize("shape,dtype", [((2, 2), np.float32), ((1, 16, 16, 16), np.float64),
                                         ((1, 16, 3, 3), np.int64), ((), np.float32)])
def test_handler_returning_a_wrong_value_is_an_error(gm, x, shape, dtype):
    """A call_function override returning an array of the wrong shape or type
    makes the next op fail with the C message, never read out of bounds
    (the ASan build runs this too)."""
    class Wrong(nnfx.Interpreter):
        def call_function(self, target, args, kwargs):
            if target == "relu":
                return np.ones(shape, dtype)
            return super().call_function(target, args, kwargs)

    with pytest.raises((nnfx.ShapeError, nnfx.UnsupportedOpError), match="node "):
        Wrong(gm).run(x)


def test_user_meta_follows_nodes_through_a_transformer(gm, x):
    conv = gm.graph.find_nodes(op="call_function", target="conv")[0]
    conv.meta["tag"] = "first conv"
    inp = next(iter(gm.graph.nodes))
    inp.meta["tag"] = "input"

    class Leaky(nnfx.Transformer):
        def call_function(self, target, args, kwargs):
            if target == "relu":
                return self.new_graph.call_function("leaky_relu", args, {"alpha": 0.1})
            return super().call_function(target, args, kwargs)

    new = Leaky(gm).transform()
    by_name = {n.name: n for n in new.graph.nodes}
    assert by_name[conv.name].meta["tag"] == "first conv"
    assert by_name[inp.name].meta["tag"] == "input"
    assert by_name[conv.name].meta["shape"] == conv.meta["shape"]
    assert "tag" not in by_name[conv.name].next.meta
