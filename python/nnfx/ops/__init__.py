"""nnfx.ops.<op>: the op table as Python functions.

    nnfx.ops.relu(x)                      # x a numpy array: runs the op now
    nnfx.ops.leaky_relu(x, alpha=0.1)     # attributes as keywords
    nnfx.ops.add(a, b)

Called on the proxies of a pattern function (nnfx.replace_pattern), they
record nodes instead (torch.fx's symbolic tracing). Names are nnfx's
snake_case op names or ONNX types (nnfx.ops.LeakyRelu).
"""
import ctypes

import numpy as np

from .. import _lib as L
from .. import _tensor as T

lib = L.lib


class Proxy:
    """A value being traced into a pattern graph (see nnfx.replace_pattern)."""
    __slots__ = ("node", "tracer")

    def __init__(self, node, tracer):
        self.node = node
        self.tracer = tracer

    def __add__(self, o):
        return OpFn("add")(self, o)

    def __radd__(self, o):
        return OpFn("add")(o, self)

    def __sub__(self, o):
        return OpFn("sub")(self, o)

    def __rsub__(self, o):
        return OpFn("sub")(o, self)

    def __mul__(self, o):
        return OpFn("mul")(self, o)

    def __rmul__(self, o):
        return OpFn("mul")(o, self)

    def __truediv__(self, o):
        return OpFn("div")(self, o)

    def __neg__(self):
        return OpFn("neg")(self)

    def __matmul__(self, o):
        return OpFn("matmul")(self, o)

    def __getitem__(self, i):
        return Proxy(self.tracer.getitem(self.node, i), self.tracer)

    def __bool__(self):
        raise L.TraceError("symbolically traced variables cannot be used as inputs to control flow", L.TRACE)


class OpFn:
    """One op of the table, callable eagerly on arrays or on Proxies."""

    def __init__(self, name):
        op = lib.nnfx_op_find(L.enc(name))
        if op == 0:
            raise AttributeError("nnfx has no op %r (include/nnfx/ops.def lists the ops)" % name)
        self.op = op
        self.__nnfx_op__ = L.dec(lib.nnfx_op_name(op))
        self.__name__ = self.__nnfx_op__

    def __repr__(self):
        return "nnfx.ops.%s" % self.__nnfx_op__

    def __call__(self, *args, **kwargs):
        tracer = next((a.tracer for a in args if isinstance(a, Proxy)), None)
        if tracer is not None:
            nargs = tuple(a.node if isinstance(a, Proxy) else a for a in args)
            return Proxy(tracer.call_function(self.__nnfx_op__, nargs, kwargs), tracer)
        return run_op(self.__nnfx_op__, args, kwargs)


_cache = {}


def run_op(target, args, kwargs=None):
    """Runs op target on arrays (scalars become 0-d arrays; None is an absent
    input) with attributes kwargs; returns an array or a tuple of arrays."""
    from ..graph import Graph
    kwargs = kwargs or {}
    args = tuple(args)
    key = (target, tuple(a is None for a in args), tuple(sorted((k, repr(v)) for k, v in kwargs.items())))
    ent = _cache.get(key)
    if ent is None:
        g = Graph()
        nodes = tuple(None if a is None else g.placeholder("x%d" % i) for i, a in enumerate(args))
        n = g.call_function(target, nodes, kwargs)
        ent = (g, n)
        if len(_cache) > 256:
            _cache.clear()
        _cache[key] = ent
    g, n = ent
    keep = []
    ins = (L.TensorP * max(len(args), 1))()
    try:
        for i, a in enumerate(args):
            if a is None:
                continue
            if isinstance(a, float):
                a = np.float32(a)
            ins[i] = T.borrow(np.asarray(a), keep)
        vs = L.ValueSet()
        L.call(lib.nnfx_op_run, n._p(), len(args), ins, ctypes.byref(vs))
    finally:
        for i in range(len(args)):
            if ins[i]:
                lib.nnfx_tensor_release(ins[i])
    vals = tuple(T.to_numpy(vs.t[i]) if vs.t[i] else None for i in range(vs.num))
    return vals[0] if len(vals) == 1 else vals


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return OpFn(name)
