"""Interpreter and Transformer (torch.fx's names) over the C interpreter and
transformer: a Python subclass overriding call_function / run_node /
placeholder / get_attr / output / call_module gets a C handler that calls it
(ctypes callbacks); what it does not override runs in C."""
import ctypes

import numpy as np

from . import _lib as L
from . import _tensor as T
from .graph import Graph, GraphModule, Node

lib = L.lib


def _overrides(obj, base, name):
    return getattr(type(obj), name) is not getattr(base, name)


def _set_err(err, e):
    if err:
        msg = "%s: %s" % (type(e).__name__, e)
        err.contents.status = getattr(e, "status", L.RUNTIME) or L.RUNTIME
        err.contents.msg = msg.encode("utf-8", "replace")[:1000]


def _fill(out, res, what):
    vals = list(res) if isinstance(res, (tuple, list)) else [res]
    if len(vals) > L.MAX_RANK:
        raise L.BadInputError("%s returned %d values (at most %d)" % (what, len(vals), L.MAX_RANK), L.INVALID_ARG)
    o = out.contents
    o.num = 0
    for v in vals:
        if v is None:
            raise L.BadInputError("%s returned None instead of an array" % what, L.INVALID_ARG)
        o.t[o.num] = T.new_tensor(np.asarray(v))
        o.num += 1


def _from_set(vs):
    """Python value of a value set (takes its references)."""
    vals = tuple(T.to_numpy(vs.t[i]) if vs.t[i] else None for i in range(vs.num))
    return vals[0] if len(vals) == 1 else vals


class Interpreter:
    """Runs a GraphModule node by node (torch.fx.Interpreter). Subclass and
    override run_node(n) or call_function(target, args, kwargs) (args: numpy
    arrays, target: the op's nnfx name, kwargs: its attributes) to observe or
    change each step; run(*arrays) returns the outputs (one array or a tuple)."""

    def __init__(self, module, garbage_collect_values=True, graph=None):
        self.module = module
        self.graph = graph if graph is not None else module.graph
        self._ip = None
        self._exc = None
        self._stack = []  # (node pointer, input tensor array, count) being run

    # --- the run -----------------------------------------------------------------
    def run(self, *args, initial_env=None, enable_io_processing=True):
        check = getattr(self.module, "_check_values", None)
        if check:
            check()  # a text form loaded without its values does not run on zeros
        g = self.graph._g()
        h = L.InterpHandlers()
        keep_cbs = []

        def install(field, proto, cb):
            f = proto(cb)
            keep_cbs.append(f)
            setattr(h, field, f)

        B = Interpreter
        if _overrides(self, B, "run_node"):
            install("run_node", L.H_RUN_NODE, self._cb_run_node)
        if _overrides(self, B, "call_function"):
            install("call_function", L.H_CALL, self._cb_call("call_function"))
        if _overrides(self, B, "call_module"):
            install("call_module", L.H_CALL, self._cb_call("call_module"))
        if _overrides(self, B, "output"):
            install("output", L.H_CALL, self._cb_call("output"))
        if _overrides(self, B, "placeholder"):
            install("placeholder", L.H_PLACEHOLDER, self._cb_leaf("placeholder"))
        if _overrides(self, B, "get_attr"):
            install("get_attr", L.H_PLACEHOLDER, self._cb_leaf("get_attr"))
        self.args_iter = iter(args)
        self._exc = None
        ip = L.call(lib.nnfx_interp_new, g, ctypes.byref(h), None)
        self._ip = ip
        self.graph._busy += 1
        keep = []
        ins = (L.TensorP * max(len(args), 1))()
        try:
            for i, a in enumerate(args):
                ins[i] = T.borrow(np.asarray(a), keep)
            o = lib.nnfx_graph_output_node(g)
            outn = max(lib.nnfx_node_num_args(o) if o else 1, 1)
            outs = (L.TensorP * outn)()
            nout = ctypes.c_int(0)
            err = L.CError()
            st = lib.nnfx_interp_run(ip, len(args), ins, outn, outs, ctypes.byref(nout), ctypes.byref(err))
            if st != L.OK:
                exc, self._exc = self._exc, None
                if exc is not None:
                    raise exc
                err.raise_()
            res = tuple(T.to_numpy(outs[i]) for i in range(nout.value))
        finally:
            self.graph._busy -= 1
            lib.nnfx_interp_free(ip)
            self._ip = None
            for i in range(len(args)):
                if ins[i]:
                    lib.nnfx_tensor_release(ins[i])
        return res[0] if len(res) == 1 else res

    # --- C -> Python --------------------------------------------------------------
    def _guard(self, err, fn):
        try:
            fn()
            return L.OK
        except BaseException as e:  # noqa: B902 -- report any failure to C, re-raised by run()
            if self._exc is None:
                self._exc = e
            _set_err(err, e)
            return getattr(e, "status", L.RUNTIME) or L.RUNTIME

    def _cb_run_node(self, ip, n, out, err):
        def go():
            node = self.graph._wrap(n)
            self._stack.append((n, None, 0))
            try:
                res = self.run_node(node)
            finally:
                self._stack.pop()
            _fill(out, res, "run_node(%s)" % node.name)
        return self._guard(err, go)

    def _cb_call(self, which):
        def cb(ip, n, nin, inp, out, err):
            def go():
                node = self.graph._wrap(n)
                args = tuple(T.to_numpy(lib.nnfx_tensor_retain(inp[i]), writable=False) if inp[i] else None
                             for i in range(nin))
                self._stack.append((n, inp, nin))
                try:
                    res = getattr(self, which)(node.target, args, dict(node.kwargs))
                finally:
                    self._stack.pop()
                _fill(out, res, "%s(%s)" % (which, node.name))
            return self._guard(err, go)
        return cb

    def _cb_leaf(self, which):
        def cb(ip, n, out, err):
            def go():
                node = self.graph._wrap(n)
                self._stack.append((n, None, 0))
                try:
                    res = getattr(self, which)(node.target, (), {})
                finally:
                    self._stack.pop()
                _fill(out, res, "%s(%s)" % (which, node.name))
            return self._guard(err, go)
        return cb

    def _current(self, what):
        if not self._stack or self._ip is None:
            raise L.BadInputError("%s: the default handler runs only inside Interpreter.run" % what, L.INVALID_ARG)
        return self._stack[-1]

    # --- the handlers (torch.fx's signatures) -------------------------------------------
    def run_node(self, n):
        """Runs node n (the C dispatch, which calls the overridden handlers)."""
        self._current("run_node")
        vs = L.ValueSet()
        L.call(lib.nnfx_interp_default_run_node, self._ip, self.graph._node_ptr(n), ctypes.byref(vs))
        return _from_set(vs)

    def call_function(self, target, args, kwargs):
        """Runs op target on arrays args with attributes kwargs."""
        if self._stack and self._ip is not None:
            n, inp, nin = self._stack[-1]
            node = self.graph._wrap(n)
            if inp is not None and target == node.target and kwargs == dict(node.kwargs):
                keep = []
                ins = (L.TensorP * max(len(args), 1))()
                try:
                    for i, a in enumerate(args):
                        ins[i] = T.borrow(np.asarray(a), keep) if a is not None else None
                    vs = L.ValueSet()
                    L.call(lib.nnfx_interp_default_call_function, self._ip, n, len(args), ins, ctypes.byref(vs))
                finally:
                    for i in range(len(args)):
                        if ins[i]:
                            lib.nnfx_tensor_release(ins[i])
                return _from_set(vs)
        from . import ops
        return ops.run_op(target, args, kwargs)

    def call_module(self, target, args, kwargs):
        raise L.UnsupportedOpError("call_module %s: leaf functions run in C only" % target, L.UNSUPPORTED)

    def placeholder(self, target, args, kwargs):
        try:
            return next(self.args_iter)
        except StopIteration:
            raise L.BadInputError("placeholder %s: not enough inputs" % target, L.INVALID_ARG) from None

    def get_attr(self, target, args, kwargs):
        return self.module.get_parameter(target)

    def output(self, target, args, kwargs):
        return tuple(args)

    def fetch_attr(self, target):
        return self.module.get_parameter(target)


class Transformer(Interpreter):
    """Builds a new GraphModule by running handlers over the graph
    (torch.fx.Transformer). Override call_function(target, args, kwargs):
    args are the node's arguments already in the new graph (Nodes of
    self.new_graph, or literals); return the Node standing for the node
    (super().call_function copies it). run_node(n) may be overridden for
    call_function / call_module nodes; placeholder and get_attr overrides
    receive (target, (), {}) and return a Node of self.new_graph."""

    def __init__(self, module):
        super().__init__(module)
        self.new_graph = None
        self._t = None

    def transform(self):
        src = self.graph._g()
        h = L.TransformerHandlers()
        keep_cbs = []
        B = Transformer
        run_node = _overrides(self, B, "run_node")

        def install(field, proto, cb):
            f = proto(cb)
            keep_cbs.append(f)
            setattr(h, field, f)

        if run_node or _overrides(self, B, "call_function"):
            install("call_function", L.T_CALL, self._tcb_call("call_function", run_node))
        if run_node or _overrides(self, B, "call_module"):
            install("call_module", L.T_CALL, self._tcb_call("call_module", run_node))
        if _overrides(self, B, "placeholder"):
            install("placeholder", L.T_NODE, self._tcb_leaf("placeholder"))
        if _overrides(self, B, "get_attr"):
            install("get_attr", L.T_NODE, self._tcb_leaf("get_attr"))
        self._exc = None
        self.new_graph = None
        err = L.CError()
        self.graph._busy += 1
        try:
            gp = lib.nnfx_transform(src, ctypes.byref(h), None, ctypes.byref(err))
        finally:
            self.graph._busy -= 1
        ng, self.new_graph, self._t = self.new_graph, None, None
        if not gp:
            if ng is not None:
                ng._kill()  # the C side freed it
            exc, self._exc = self._exc, None
            if exc is not None:
                raise exc
            err.raise_()
        if ng is None or ng._gp != gp:
            ng = Graph(gp)
        ng._borrowed = False
        gm = GraphModule(ng, getattr(self.module, "_name", "GraphModule"))
        self.new_graph = ng
        self._carry_meta(ng)
        gm.recompile()
        return gm

    _C_META = ("shape", "dtype", "num_outputs", "module_path")

    def _carry_meta(self, ng):
        """Keys users set in node.meta follow a node to the new graph's node of
        the same name (the transformer keeps names of the nodes it copies)."""
        for n in list(self.graph._cache.values()):
            user = {k: v for k, v in (n._meta or {}).items() if k not in self._C_META}
            if not user or n._dead:
                continue
            p = lib.nnfx_graph_find(ng._g(), L.enc(n.name))
            if p:
                m = ng._wrap(p)
                if m._meta is None:
                    m._meta = {}
                for k, v in user.items():
                    m._meta.setdefault(k, v)

    def _ng(self, t):
        self._t = t
        if self.new_graph is None:
            self.new_graph = Graph(lib.nnfx_transformer_graph(t), _borrowed=True)
        return self.new_graph

    def _tguard(self, err, fn):
        try:
            r = fn()
            if not isinstance(r, Node) or r._graph is not self.new_graph:
                raise L.BadInputError("a Transformer handler must return a Node of self.new_graph, not %r" % (r,),
                                      L.INVALID_ARG)
            return r._p()
        except BaseException as e:  # noqa: B902 -- reported to C, re-raised by transform()
            if self._exc is None:
                self._exc = e
            _set_err(err, e)
            return None

    def _tcb_call(self, which, run_node):
        def cb(t, n, nargs, args, err):
            def go():
                ng = self._ng(t)
                node = self.graph._wrap(n)
                pargs = []
                for i in range(nargs):
                    a = args[i]
                    if a.kind == L.ARG_NODE:
                        pargs.append(ng._wrap(a.u.node))
                    elif a.kind == L.ARG_INT:
                        pargs.append(a.u.i)
                    elif a.kind == L.ARG_FLOAT:
                        pargs.append(a.u.f)
                    else:
                        pargs.append(None)
                self._stack.append((n, tuple(pargs), nargs))
                try:
                    if run_node:
                        return self.run_node(node)
                    return getattr(self, which)(node.target, tuple(pargs), dict(node.kwargs))
                finally:
                    self._stack.pop()
            return self._tguard(err, go)
        return cb

    def _tcb_leaf(self, which):
        def cb(t, n, err):
            def go():
                self._ng(t)
                node = self.graph._wrap(n)
                self._stack.append((n, (), 0))
                try:
                    return getattr(self, which)(node.target, (), {})
                finally:
                    self._stack.pop()
            return self._tguard(err, go)
        return cb

    def run_node(self, n):
        if not self._stack:
            raise L.BadInputError("run_node: runs only inside Transformer.transform", L.INVALID_ARG)
        _, args, _ = self._stack[-1]
        return getattr(self, n.op)(n.target, args, dict(n.kwargs))

    def call_function(self, target, args, kwargs):
        """The node in the new graph: a copy of the current node (keeping its
        name and meta) when target and kwargs are its own, else a new call."""
        ng = self.new_graph
        if ng is None or not self._stack:
            raise L.BadInputError("call_function: runs only inside Transformer.transform", L.INVALID_ARG)
        n = self._stack[-1][0]
        node = self.graph._wrap(n)
        if target == node.target and dict(kwargs) == dict(node.kwargs):
            arr, _ = ng._args(tuple(args))
            ng._version += 1
            return ng._wrap(L.call(lib.nnfx_transformer_default_call_function, self._t, n, len(args), arr))
        return ng.call_function(target, tuple(args), kwargs)

    def call_module(self, target, args, kwargs):
        ng = self.new_graph
        arr, _ = ng._args(tuple(args))
        ng._version += 1
        return ng._wrap(L.call(lib.nnfx_graph_call_module, ng._g(), L.enc(target), len(args), arr))

    def placeholder(self, target, args, kwargs):
        n = self.graph._wrap(self._stack[-1][0])
        m = n.meta
        shape = m.get("shape")
        dt = m.get("dtype")
        return self.new_graph.placeholder(target, shape=shape, dtype=dt if dt is not None else "float32")

    def get_attr(self, target, args, kwargs):
        return self.new_graph.get_attr(target)

    def output(self, target, args, kwargs):
        raise L.UnsupportedOpError("Transformer: the output node is copied by the C transformer", L.UNSUPPORTED)
