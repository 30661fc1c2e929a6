"""replace_pattern (torch.fx.subgraph_rewriter's name) over the C matcher.

A pattern and its replacement are either rule strings of the rule language
(docs/patterns.md) or Python functions written with nnfx.ops, traced
symbolically: each parameter is a wildcard, each nnfx.ops call a node.

    nnfx.replace_pattern(gm, "relu(x)", "leaky_relu(x, alpha=0.1)")
    nnfx.replace_pattern(gm, "mul(x, sigmoid(x)) -> hard_swish(x)")

    def pattern(x):
        return nnfx.ops.sigmoid(x)
    def replacement(x):
        return nnfx.ops.hard_sigmoid(x, alpha=1 / 6, beta=0.5)
    nnfx.replace_pattern(gm, pattern, replacement)
"""
import ctypes
import inspect
from collections import namedtuple

from . import _lib as L
from .graph import Graph
from .ops import Proxy

lib = L.lib

Match = namedtuple("Match", "anchor_name anchor nodes replacements")
Match.__doc__ = """One replaced match: anchor_name (the matched node the pattern
returns; erased after the replacement), anchor (that Node, or None once erased),
nodes (names of the matched nodes), replacements (the Nodes the replacement created)."""


class _Tracer:
    def __init__(self):
        self.graph = Graph()

    def call_function(self, target, args, kwargs):
        return self.graph.call_function(target, args, kwargs)

    def getitem(self, node, i):
        return self.graph.getitem(node, i)


def symbolic_trace(fn):
    """A pattern graph of fn: one placeholder per parameter, the nnfx.ops it
    calls, an output node with what it returns."""
    tr = _Tracer()
    params = list(inspect.signature(fn).parameters)
    proxies = [Proxy(tr.graph.placeholder(p), tr) for p in params]
    res = fn(*proxies)
    vals = list(res) if isinstance(res, (tuple, list)) else [res]
    nodes = []
    for v in vals:
        if not isinstance(v, Proxy):
            raise L.TraceError("pattern function %s returned %r, not a traced value" % (fn.__name__, v), L.TRACE)
        nodes.append(v.node)
    tr.graph.output(nodes)
    return tr.graph


def _graphs(pattern, replacement):
    """(pattern Graph, replacement Graph or None)."""
    if isinstance(pattern, str):
        rule = pattern if replacement is None else "%s -> %s" % (pattern, replacement) \
            if isinstance(replacement, str) else pattern
        pp, rp = ctypes.c_void_p(), ctypes.c_void_p()
        L.call(lib.nnfx_pattern_parse, L.enc(rule), ctypes.byref(pp), ctypes.byref(rp))
        pg = Graph(pp.value)
        rg = Graph(rp.value) if rp.value else None
        if replacement is not None and not isinstance(replacement, str):
            rg = _as_graph(replacement)
        return pg, rg
    return _as_graph(pattern), (_as_graph(replacement) if replacement is not None else None)


def _as_graph(x):
    if isinstance(x, Graph):
        return x
    if hasattr(x, "graph") and isinstance(x.graph, Graph):
        return x.graph
    if isinstance(x, str):
        pp = ctypes.c_void_p()
        L.call(lib.nnfx_pattern_parse, L.enc(x), ctypes.byref(pp), None)
        return Graph(pp.value)
    if callable(x):
        return symbolic_trace(x)
    raise L.BadInputError("a pattern is a rule string, a function of nnfx.ops or a Graph, not %r" % (x,),
                          L.INVALID_ARG)


def replace_pattern(gm, pattern, replacement=None):
    """Replaces every non-overlapping match of pattern in gm (a GraphModule or
    Graph) by replacement; returns the list of Match. pattern may be a whole
    rule "pattern -> replacement" with replacement None. Meta is re-inferred."""
    graph = getattr(gm, "graph", gm)
    pg, rg = _graphs(pattern, replacement)
    if rg is None:
        raise L.BadInputError("replace_pattern: no replacement (give one, or a rule with '->')", L.INVALID_ARG)
    err = L.CError()
    ml = lib.nnfx_replace_pattern(graph._gw(), pg._g(), rg._g(), None, None, ctypes.byref(err))
    graph._after_c_edit()
    if not ml:
        err.raise_()
    try:
        out = []
        for i in range(lib.nnfx_match_list_count(ml)):
            m = lib.nnfx_match_list_at(ml, i).contents
            reps = [graph._wrap(m.replacements[k]) for k in range(m.nreplacements) if m.replacements[k]]
            nodes = []
            for k in range(m.n):
                p = m.graph_nodes[k]
                nodes.append(L.dec(lib.nnfx_node_name(p)) if p else None)
            anchor = graph._wrap(m.anchor) if m.anchor else None
            out.append(Match(L.dec(m.anchor_name), anchor, nodes, reps))
        return out
    finally:
        lib.nnfx_match_list_free(ml)


def find_matches(gm, pattern):
    """The matches of pattern in gm without changing it: a list of Match
    (anchor the anchor Node, nodes the matched Nodes, replacements [])."""
    graph = getattr(gm, "graph", gm)
    pg = _as_graph(pattern)
    ml = L.call(lib.nnfx_find_matches, graph._g(), pg._g(), None)
    try:
        out = []
        for i in range(lib.nnfx_match_list_count(ml)):
            m = lib.nnfx_match_list_at(ml, i).contents
            nodes = [graph._wrap(m.graph_nodes[k]) for k in range(m.n)]
            out.append(Match(L.dec(m.anchor_name), graph._wrap(m.anchor), nodes, []))
        return out
    finally:
        lib.nnfx_match_list_free(ml)


def rewrite(gm, rule):
    """Applies a rule string ("relu(x) -> leaky_relu(x, alpha=0.1)") as
    `nnfx optimize --rewrite` does (the result is shape- and type-checked);
    returns the number of matches replaced."""
    graph = getattr(gm, "graph", gm)
    err = L.CError()
    n = lib.nnfx_rewrite_text(graph._gw(), L.enc(rule), ctypes.byref(err))
    graph._after_c_edit()
    if n < 0:
        err.raise_()
    return n
