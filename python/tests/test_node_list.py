"""The Graph's Node list (the Python objects an edit loop walks): it stays the
C graph's node list through every kind of edit, iteration follows torch.fx's
rules, and args/users/kwargs read back what was written (the packed calls).
The order is checked against the text form the library prints (str(graph)),
which does not go through the Python list."""
import re

import numpy as np
import pytest

import nnfx

MODEL = ("real_models", "mini_resnet.onnx")


@pytest.fixture
def gm(data):
    return nnfx.load(data(*MODEL))


def c_order(g):
    """Node names in the C list's order, from the library's text form (the
    output node is its last line, `return ...`)."""
    text = str(g)
    return re.findall(r"^    %(\S+) :", text, re.M) + (["output"] if "\n    return " in text else [])


def c_args(g):
    """name -> (node-arg names, number of args, num_users) of every node but
    the output, from the library's text form (not through the Python mirror)."""
    out = {}
    for m in re.finditer(r"^    %(\S+) : \[num_users=(\d+)\] = [^(\n]*(?:\(args = \((.*?)\), kwargs)?", str(g), re.M):
        text = m.group(3) or ""
        items = [t for t in text.split(", ") if t] if text else []
        out[m.group(1)] = ([t[1:].rstrip(",") for t in items if t.startswith("%")], len(items), int(m.group(2)))
    return out


def check_mirror(g):
    """Every Node's args (the Python mirror, filled at load and kept by the
    edits made through the package) are what the library has: the text form's
    args, and one fresh library read per node."""
    want = c_args(g)
    checked = 0
    for n in g.nodes:
        if n.op == "output":
            continue
        a = n.args
        names, count, num_users = want[n.name]
        assert [x.name for x in a if isinstance(x, nnfx.Node)] == names, n.name
        assert len(a) == count, n.name
        assert a == n._c_args(), n.name
        assert len(n.users) == num_users, n.name
        checked += 1
    assert checked == len(want)


def check_list(g):
    names = [n.name for n in g.nodes]
    assert names == c_order(g)
    check_mirror(g)
    assert [n.name for n in reversed(g.nodes)] == names[::-1]
    nodes = list(g.nodes)
    for a, b in zip(nodes, nodes[1:]):
        assert a.next is b and b.prev is a
    assert nodes[0].prev is None and nodes[-1].next is None
    assert len(nodes) == len(g)


def test_list_follows_every_kind_of_edit(gm, data):
    g = gm.graph
    check_list(g)
    relus = g.find_nodes(op="call_function", target="relu")
    with g.inserting_before(relus[0]):
        a = g.call_function("neg", (relus[0].args[0],))
    with g.inserting_after(relus[1]):
        b = g.call_function("abs", (relus[1],))
        c = g.call_function("neg", (b,))
    d = g.call_function("neg", (relus[2],))  # at the end (before the output)
    check_list(g)
    assert a.next is relus[0] and relus[1].next is b and b.next is c and d.next is g.output_node()
    relus[3].prepend(d)  # moves
    check_list(g)
    assert d.next is relus[3]
    relus[0].append(c)
    check_list(g)
    g.erase_node(c)
    check_list(g)
    assert g.eliminate_dead_code()  # a, b, d
    for n in (a, b, d):
        with pytest.raises(nnfx.DeadReferenceError):
            n.args
    check_list(g)
    nnfx.passes.fuse_conv_bn(gm)  # a C pass: the list is rebuilt from C
    check_list(g)
    p = g.placeholder("extra", shape=(1,))
    check_list(g)
    assert p.prev.op == "placeholder" and p.next.op != "placeholder"
    g.lint()


def test_dce_erasing_the_visited_node_goes_on(gm):
    # as in torch.fx, whose eliminate_dead_code erases through erase_node: the
    # loop goes on from the erased node's successor
    g = gm.graph
    n_relu = len(g.find_nodes(op="call_function", target="relu"))
    seen = 0
    for node in g.nodes:
        if node.op == "call_function" and node.target == "relu":
            seen += 1
            node.replace_all_uses_with(node.args[0])
            assert g.eliminate_dead_code()  # removes node itself: unused now
            with pytest.raises(nnfx.DeadReferenceError):
                node.args
    assert seen == n_relu > 2
    assert not g.find_nodes(op="call_function", target="relu")
    check_list(g)
    g.lint()


def test_dce_runs_mid_iteration(gm):
    # eliminate_dead_code relinks the Python list only around each run of
    # removed nodes: runs at the list's start, in the middle and just before
    # the output, one of them holding the node being visited, and the loop
    # goes on from it over the removed ones to the next live node
    g = gm.graph
    nodes = list(g.nodes)
    param = next(n.target for n in nodes if n.op == "get_attr")
    with g.inserting_before(nodes[0]):
        head = [g.get_attr(param), g.get_attr(param)]  # unused: a run at the start
    relus = g.find_nodes(op="call_function", target="relu")
    chains = []
    for r in (relus[0], relus[-1]):
        with g.inserting_after(r):
            a = g.call_function("neg", (r,))
            b = g.call_function("abs", (a,))
            c = g.call_function("neg", (b,))
        chains.append([a, b, c])
    last = g.output_node().prev
    with g.inserting_after(last):
        tail = [g.call_function("neg", (last,))]
    dead = head + chains[0] + chains[1] + tail
    live = [n.name for n in g.nodes if n not in dead]
    visited = []
    for node in g.nodes:
        visited.append(node)
        if node is chains[0][1]:  # the middle of a run
            assert g.eliminate_dead_code()
    assert [n.name for n in visited if n not in dead] == live
    assert visited[:2] == head and chains[0][:2] == [n for n in visited if n in chains[0]]
    assert not any(n in visited for n in chains[0][2:] + chains[1] + tail)  # removed before visited
    for n in dead:
        with pytest.raises(nnfx.DeadReferenceError):
            n.args
    check_list(g)
    assert [n.name for n in g.nodes] == live
    g.lint()


def test_targets_read_in_bulk_at_load(gm):
    # the Nodes made at load take their targets from one library call
    # (nnfx_graph_targets); the others read theirs when made: both are what
    # the library says node by node
    from nnfx import _lib as L
    g = gm.graph
    nodes = list(g.nodes)
    assert {n.op for n in nodes} >= {"placeholder", "get_attr", "call_function", "output"}
    param = next(n.target for n in nodes if n.op == "get_attr")
    p = g.placeholder("extra_input", shape=(1,))
    a = g.get_attr(param)
    for n in nodes + [p, a]:
        assert n.target == L.dec(L.lib.nnfx_node_target(n._ptr)), n.name
    assert p.target == "extra_input" and a.target == param
    assert nodes[-1].target == "output"


def test_inserting_after_without_with_block(gm):
    # torch.fx sets the insert point when inserting_after() is called
    g = gm.graph
    relu = g.find_nodes(op="call_function", target="relu")[0]
    g.inserting_after(relu)
    n = g.call_function("neg", (relu,))
    assert relu.next is n
    with g.inserting_before(relu):
        m = g.call_function("abs", (relu.args[0],))
    assert m.next is relu
    k = g.call_function("neg", (n,))  # back to the point set before the block: right after relu
    assert relu.next is k and k.next is n
    check_list(g)


def test_packed_args_users_kwargs_round_trip(gm):
    g = gm.graph
    r = g.find_nodes(op="call_function", target="relu")[0]
    for extra in (2.5, -7, 3, None, 1e300, -(2 ** 62)):
        n = g.call_function("add", (r, extra))
        got = n.args
        assert got[0] is r and got[1] == extra and type(got[1]) is type(extra)
    # more users and args than one call's buffer holds
    negs = [g.call_function("neg", (r,)) for _ in range(40)]
    assert list(r.users)[-40:] == negs
    cat = g.call_function("concat", tuple(negs), {"axis": 1})
    assert cat.args == tuple(negs) and cat.all_input_nodes == negs
    # the same kwargs with an int and with a float keep their kinds
    a = g.call_function("leaky_relu", (r,), {"alpha": 1})
    b = g.call_function("leaky_relu", (r,), {"alpha": 1.0})
    c = g.call_function("leaky_relu", (r,), {"alpha": True})
    assert type(a.kwargs["alpha"]) is int and type(b.kwargs["alpha"]) is float and c.kwargs["alpha"] == 1
    t = g.call_function("transpose", (r,), {"perm": (0, 1, 3, 2)})
    u = g.call_function("transpose", (r,), {"perm": [0, 2, 1, 3]})
    assert t.kwargs["perm"] == (0, 1, 3, 2) and u.kwargs["perm"] == (0, 2, 1, 3)
    users = negs[0].replace_all_uses_with(negs[1])
    assert users == [cat] and cat.args[0] is negs[1] and cat.args[1] is negs[1]
    check_list(g)


def test_handles_of_a_freed_graph_in_a_loop(data):
    gm = nnfx.load(data(*MODEL))
    g = gm.graph
    it = iter(g.nodes)
    first = next(it)
    g._kill()  # as when the owner frees the C graph
    with pytest.raises(nnfx.DeadReferenceError):
        first.args
    with pytest.raises(nnfx.DeadReferenceError):
        next(it)  # the loop stops with an error, nothing freed is read
    del gm


def test_edit_loop_result_matches_reference(gm, data):
    # leaky_relu with alpha 0 is relu: the edited model still gives the
    # reference output stored beside it (PyTorch's)
    x = np.load(data("real_models", "mini_resnet.input_0.npy"))
    ref = np.load(data("real_models", "mini_resnet.output_0.npy"))
    g = gm.graph
    count = 0
    for node in g.nodes:
        if node.op == "call_function" and node.target == "relu":
            with g.inserting_after(node):
                new = g.call_function("leaky_relu", (node.args[0],), {"alpha": 0.0})
            node.replace_all_uses_with(new)
            g.erase_node(node)
            count += 1
    assert count > 2 and len(g.find_nodes(op="call_function", target="leaky_relu")) == count
    gm.recompile()
    check_list(g)
    np.testing.assert_allclose(gm(x), ref, rtol=1e-4, atol=1e-5)


def test_args_mirror_follows_every_kind_of_edit(gm):
    # each edit kind that changes a node's args, then the mirror against the library
    g = gm.graph
    check_mirror(g)
    relus = g.find_nodes(op="call_function", target="relu")
    r0, r1 = relus[0], relus[1]
    x1 = r1.args[0]
    x0 = r0.args[0]
    users = r0.replace_all_uses_with(x0)  # one user, the fast path
    assert users and all(x0 in u.args and r0 not in u.args for u in users)
    check_mirror(g)
    negs = [g.call_function("neg", (r1,)) for _ in range(3)]
    both = g.call_function("add", (r1, negs[0]))
    lit = g.call_function("add", (r1, 2.5))
    check_mirror(g)
    assert r1.replace_all_uses_with(x1)[-5:] == [*negs, both, lit]  # several users
    assert both.args == (x1, negs[0]) and lit.args == (x1, 2.5)
    check_mirror(g)
    negs[0].replace_all_uses_with(negs[1], delete_user_cb=lambda u: u is both)
    assert both.args == (x1, negs[1])
    check_mirror(g)
    negs[1].replace_all_uses_with(negs[2], propagate_meta=True)
    assert both.args == (x1, negs[2])
    check_mirror(g)
    both.replace_input_with(x1, negs[0])
    assert both.args == (negs[0], negs[2])
    check_mirror(g)
    both.args = (negs[1], negs[1])
    assert both.args == (negs[1], negs[1])
    check_mirror(g)
    both.update_arg(0, negs[2])
    assert both.args == (negs[2], negs[1])
    check_mirror(g)
    g.erase_node(lit)
    g.eliminate_dead_code()
    check_mirror(g)
    nnfx.passes.fuse_conv_bn(gm)  # a C pass: the mirror is filled again from C
    check_list(g)
    assert nnfx.replace_pattern(gm, "relu(x) -> leaky_relu(x, alpha=0.0)")  # a C rewrite
    check_list(g)
    gm.recompile()
    check_list(g)
    g.lint()
