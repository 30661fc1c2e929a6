"""Graph, Node and GraphModule: torch.fx's names over libnnfx's graph IR.

Python objects hold references that are checked, never raw pointers a user
can outlive: one Python Node per live C node (cached by the Graph); erasing a
node (here or by a C pass) marks its Node dead, and any later use raises
DeadReferenceError. A Node keeps its Graph alive; a Graph owned by a
GraphModule keeps the GraphModule alive.

Speed (a Python loop pays per visited node, so the per-node work is kept in
Python and C calls are few): the Graph keeps its nodes as a doubly linked
list of Node objects, as torch.fx does, made in one library call
(nnfx_graph_nodes) at load or when first needed, and kept in step by every
edit made through this package; iterating, .next and .prev make no library
call. Node and Graph keep their attributes in slots and Node has no
__getattr__ (a class with one takes CPython's slow path on every attribute
read); a Node's target is set when it is made (at load, all of them from one
call: nnfx_graph_targets). An edit is one or two short calls that keep the
GIL (L.plib), the frequent ones with no argument at all: their arguments and
results go through the thread's words buffer that the library keeps
(nnfx_binding_*_tls; ctypes pays per argument converted), results read back
in bulk. eliminate_dead_code gets the removed nodes and the runs they formed
(nnfx_eliminate_dead_code_runs) and relinks only around each run. A C pass
that may remove or add nodes is followed by a rebuild of the list from C
(_after_c_edit).

Each Node also mirrors its args (Node._a, filled for every node with the
list, in one call: nnfx_graph_all_args), so reading node.args makes no
library call. The mirror is exact or absent: the package's edits set it
(call_function with node args) or drop it for the nodes they rewire
(replace_all_uses_with's returned users, replace_input_with, args =,
update_arg); any other edit goes through Graph._gw, which bumps the graph's
epoch (_aep) and so drops every Node's (a Node's _a holds only while its _ae
equals _aep); a dropped mirror is read again from C when next asked.
"""
import ctypes
import io
import itertools
import os
import struct
import tempfile
import threading

import numpy as np

from . import _lib as L
from . import _tensor as T

lib = L.lib
plib = L.plib  # the short per-node calls, GIL kept (see _lib.py)

_M64 = (1 << 64) - 1
_ALL_NODES = [[1] * k for k in range(9)]  # packed kinds of k node args (L.ARG_NODE == 1)
_D = struct.Struct("<d")
_Q = struct.Struct("<Q")
_tls = threading.local()


class _Bufs:
    """One thread's buffers for the short calls: packed args (nnfx_arg is
    two 64-bit words: kind, value), users, two nnfx_node_info, and the
    library's words and error for this thread (nnfx_binding_*_tls)."""
    CAP = 32

    def __init__(self):
        self.args = (ctypes.c_uint64 * (2 * self.CAP))()
        self.users = (ctypes.c_void_p * self.CAP)()
        self.users_words = memoryview(self.users).cast("B").cast("Q")
        self.info = (L.NodeInfo * 2)()
        self.info_words = memoryview(self.info).cast("B").cast("Q")
        # the nnfx_binding_*_tls calls' words (arguments in, results out) and
        # error: this thread's, kept by the library, so that the calls take no
        # argument (ctypes pays per argument converted)
        self.words = (ctypes.c_uint64 * L.BINDING_WORDS).from_address(plib.nnfx_binding_words())
        self.wv = memoryview(self.words).cast("B").cast("Q")
        self.err = L.CError.from_address(plib.nnfx_binding_error())
        self.args_addr = ctypes.addressof(self.args)
        self.big = None  # a larger args buffer, kept alive for the call
        self.dce = None  # eliminate_dead_code's list of removed nodes (dce_cap words)
        self.dce_words = None
        self.dce_cap = 0
        self.nruns = ctypes.c_int(0)  # eliminate_dead_code's number of runs
        self.nruns_addr = ctypes.addressof(self.nruns)


def _bufs():
    try:
        return _tls.b
    except AttributeError:
        _tls.b = _Bufs()
        return _tls.b

OPCODES = ("placeholder", "get_attr", "call_function", "call_module", "output")


def _op_names():
    names = [None]
    i = 1
    while True:
        n = L.dec(lib.nnfx_op_name(i))
        if n == "none":
            return tuple(names)
        names.append(n)
        i += 1


_OP_NAMES = _op_names()


_OP_IDS = {}


def _target_name(target):
    """The nnfx op id of a call_function target: a string ("relu",
    "LeakyRelu") or an nnfx.ops function."""
    op = _OP_IDS.get(target) if isinstance(target, str) else None
    if op:
        return op
    name = getattr(target, "__nnfx_op__", target)
    if not isinstance(name, str):
        raise L.BadInputError("call_function target must be an op name or an nnfx.ops function, not %r" % (target,),
                              L.INVALID_ARG)
    op = lib.nnfx_op_find(L.enc(name))
    if op == 0:
        raise L.UnsupportedOpError("unknown op %r (include/nnfx/ops.def lists the ops)" % name, L.UNSUPPORTED)
    if isinstance(target, str):
        _OP_IDS[target] = op
    return op


class _Attrs:
    """Keeps the C buffers of a list of nnfx_attr alive for one call."""

    def __init__(self, kwargs):
        kwargs = kwargs or {}
        self.keep = []
        self.arr = (L.Attr * max(len(kwargs), 1))()
        self.addr = ctypes.addressof(self.arr)
        self.n = len(kwargs)
        for i, (k, v) in enumerate(kwargs.items()):
            a = self.arr[i]
            a.name = L.enc(k)
            self.keep.append(a.name)
            if isinstance(v, (bool, np.bool_)) or isinstance(v, (int, np.integer)):
                a.kind, a.u.i = L.ATTR_INT, int(v)
            elif isinstance(v, (float, np.floating)):
                a.kind, a.u.f = L.ATTR_FLOAT, float(v)
            elif isinstance(v, str):
                s = L.enc(v)
                self.keep.append(s)
                a.kind, a.u.s = L.ATTR_STRING, s
            elif isinstance(v, np.ndarray):
                tp = T.new_tensor(v)
                self.keep.append(_Release(tp))
                a.kind, a.u.t = L.ATTR_TENSOR, tp
            elif isinstance(v, (list, tuple)):
                if all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in v):
                    buf = (ctypes.c_int64 * max(len(v), 1))(*v)
                    a.kind = L.ATTR_INTS
                    a.u.ints.v = ctypes.cast(buf, ctypes.POINTER(ctypes.c_int64))
                    a.u.ints.n = len(v)
                elif all(isinstance(x, (int, float, np.integer, np.floating)) for x in v):
                    buf = (ctypes.c_float * max(len(v), 1))(*[float(x) for x in v])
                    a.kind = L.ATTR_FLOATS
                    a.u.floats.v = ctypes.cast(buf, ctypes.POINTER(ctypes.c_float))
                    a.u.floats.n = len(v)
                else:
                    raise L.BadInputError("attribute %s: a list of ints or floats expected, got %r" % (k, v),
                                          L.INVALID_ARG)
                self.keep.append(buf)
            else:
                raise L.BadInputError("attribute %s: unsupported value %r" % (k, v), L.INVALID_ARG)


_ATTRS_CACHE = {}
_CACHEABLE = frozenset((int, float, str, bool))


def _attrs_of(kwargs):
    """_Attrs for kwargs, shared between calls with the same scalar
    attributes (the library copies attributes into the node)."""
    if not kwargs:
        return _NO_ATTRS
    key = tuple(kwargs.items())
    types = tuple(map(type, kwargs.values()))
    try:
        a = _ATTRS_CACHE.get((key, types))
    except TypeError:  # an unhashable value (a list, an array)
        return _Attrs(kwargs)
    if a is None:
        a = _Attrs(kwargs)
        if not _CACHEABLE.issuperset(types):
            return a
        key = (key, types)
        if len(_ATTRS_CACHE) > 256:
            _ATTRS_CACHE.clear()
        _ATTRS_CACHE[key] = a
    return a


class _Release:
    def __init__(self, tp):
        self.tp = tp

    def __del__(self):
        if self.tp:
            lib.nnfx_tensor_release(self.tp)
            self.tp = None


def _attr_value(a):
    k = a.kind
    if k == L.ATTR_INT:
        return a.u.i
    if k == L.ATTR_FLOAT:
        return a.u.f
    if k == L.ATTR_STRING:
        return L.dec(a.u.s)
    if k == L.ATTR_INTS:
        return tuple(a.u.ints.v[i] for i in range(a.u.ints.n))
    if k == L.ATTR_FLOATS:
        return tuple(float(a.u.floats.v[i]) for i in range(a.u.floats.n))
    if k == L.ATTR_TENSOR:
        return T.to_numpy(lib.nnfx_tensor_retain(a.u.t), writable=False).copy()
    if k == L.ATTR_GRAPH:
        return Subgraph(L.take_string(lib.nnfx_graph_to_text(a.u.g)))
    return None


_NO_ATTRS = _Attrs(None)
_b_call_op = plib.nnfx_binding_call_op_tls
_node_target = plib.nnfx_node_target
_b_node_args = plib.nnfx_binding_node_args_tls
_b_rauw = plib.nnfx_binding_replace_all_uses_with_tls
_b_erase = plib.nnfx_binding_erase_node_tls
_dce_runs = plib.nnfx_eliminate_dead_code_runs


class Subgraph(str):
    """A control-flow body attribute (If branches, Loop body), as its text form."""


def _meta_shape(m):
    if m.rank < 0:
        return None
    dims = []
    for i in range(m.rank):
        d = m.dims[i]
        if d.value >= 0:
            dims.append(d.value)
        else:
            dims.append(L.dec(d.symbol) if d.symbol else None)
    return tuple(dims)


def _decode_args(g, w, k):
    """The args tuple of k packed (kind, value) word pairs w of graph g."""
    get = g._cache.get
    out = []
    for i in range(0, 2 * k, 2):
        kind = w[i]
        v = w[i + 1]
        if kind == L.ARG_NODE:
            out.append(get(v) or g._wrap(v))
        elif kind == L.ARG_INT:
            out.append(v - (1 << 64) if v >> 63 else v)
        elif kind == L.ARG_FLOAT:
            out.append(_D.unpack(_Q.pack(v))[0])
        else:
            out.append(None)
    return tuple(out)


class _Kwargs(dict):
    """A node's attributes; assigning a key sets the attribute on the node."""

    def __init__(self, node, items):
        super().__init__(items)
        self._node = node

    def __setitem__(self, key, value):
        self._node.update_kwarg(key, value)
        super().__setitem__(key, value)

    def update(self, *a, **kw):
        for k, v in dict(*a, **kw).items():
            self[k] = v


class Node:
    """A node of a Graph (torch.fx.Node's names). Do not construct directly."""
    __slots__ = ("_graph", "_ptr", "_serial", "_name", "_dead", "op", "target", "_meta", "_prev", "_next", "_a",
                 "_ae", "__weakref__")

    def __init__(self, graph, ptr, serial=None, word=None, target=None):
        """word: opcode | op << 32, as nnfx_graph_nodes gives them (read from
        C when serial is None); target: as nnfx_graph_targets gives it (read
        from C when None)."""
        self._graph = graph
        self._ptr = ptr
        if serial is None:
            serial = lib.nnfx_node_serial(ptr)
            word = lib.nnfx_node_opcode(ptr) | lib.nnfx_node_op(ptr) << 32
        self._serial = serial
        self._name = None  # read when first asked (the node is live then)
        self._dead = False
        self._meta = None
        # the args mirror: _a, the args tuple as C has them, valid while _ae
        # equals the graph's _aep (None: not known, read from C when asked)
        self._a = None
        self._ae = -1
        # _prev, _next: the Graph's list (set when it is linked); an erased
        # node keeps _next (iteration goes on from it, as in torch.fx);
        # None when a C pass erased it
        # op: 'placeholder', 'get_attr', 'call_function', 'call_module' or 'output'
        self.op = OPCODES[word & 0xFFFFFFFF]
        # target: the op's nnfx name for call_function ('relu'); else the
        # placeholder's name, the parameter path or the leaf's name, read now
        # (set once, in a slot: a class with __getattr__ pays for it on every
        # attribute read)
        op = word >> 32
        if op:
            self.target = _OP_NAMES[op]
        else:
            self.target = target if target is not None else _node_target(ptr).decode("utf-8", "replace")

    # --- validity --------------------------------------------------------
    def _p(self):
        if self._dead:
            raise L.DeadReferenceError("use of a node erased from its graph%s" % (" (%s)" % self._name if self._name else ""),
                                       L.GRAPH)
        return self._ptr

    # --- identity --------------------------------------------------------
    @property
    def graph(self):
        self._p()
        return self._graph

    @property
    def name(self):
        p = self._p()
        if self._name is None:
            self._name = L.dec(lib.nnfx_node_name(p))
        return self._name

    @name.setter
    def name(self, value):
        p = self._p()
        self._graph._gw()
        L.call(lib.nnfx_node_set_name, p, L.enc(value))
        self._name = L.dec(lib.nnfx_node_name(p))

    # --- arguments ----------------------------------------------------------
    def _arg(self, a):
        if a.kind == L.ARG_NODE:
            return self._graph._wrap(a.u.node)
        if a.kind == L.ARG_INT:
            return a.u.i
        if a.kind == L.ARG_FLOAT:
            return a.u.f
        return None

    @property
    def args(self):
        if self._dead:
            self._p()  # raises
        a = self._a
        if a is not None and self._ae == self._graph._aep:  # the mirror (see Graph._fill_args)
            return a
        a = self._c_args()
        self._a = a
        self._ae = self._graph._aep
        return a

    def _c_args(self):
        """The args as the library has them now (one call; the mirror not used)."""
        try:
            b = _tls.b
        except AttributeError:
            b = _bufs()
        wv = b.wv
        wv[0] = self._ptr
        k = _b_node_args()  # cap: _Bufs.CAP
        if k > _Bufs.CAP:
            buf = (ctypes.c_uint64 * (2 * k))()
            plib.nnfx_node_args(self._ptr, buf, k)
            w = buf[:]
        else:
            w = wv[2:2 + 2 * k].tolist()
        g = self._graph
        get = g._cache.get
        if k < 9 and w[0::2] == _ALL_NODES[k]:  # the common case: node args only
            out = tuple(map(get, w[1::2]))
            if None not in out:
                return out
        return _decode_args(g, w, k)

    @args.setter
    def args(self, value):
        p = self._p()
        self._graph._gw()
        arr, _keep = self._graph._args(value)
        self._a = None
        L.call(lib.nnfx_node_set_args, p, len(value), arr)

    def update_arg(self, idx, arg):
        p = self._p()
        self._graph._gw()
        arr, _keep = self._graph._args((arg,))
        self._a = None
        L.call(lib.nnfx_node_set_arg, p, idx, arr[0])

    @property
    def kwargs(self):
        """The node's attributes (ONNX attributes); assigning a key sets it."""
        p = self._p()
        items = []
        for i in range(lib.nnfx_node_num_attrs(p)):
            a = lib.nnfx_node_attr_at(p, i).contents
            items.append((L.dec(a.name), _attr_value(a)))
        return _Kwargs(self, items)

    @kwargs.setter
    def kwargs(self, value):
        p = self._p()
        old = set(self.kwargs)
        missing = old - set(value)
        if missing:
            raise L.BadInputError("node %s: attributes cannot be removed (%s)" % (self.name, ", ".join(sorted(missing))),
                                  L.INVALID_ARG)
        for k, v in value.items():
            self.update_kwarg(k, v)

    def update_kwarg(self, key, value):
        p = self._p()
        self._graph._gw()
        attrs = _Attrs({key: value})
        L.call(lib.nnfx_node_set_attr, p, attrs.arr)

    @property
    def all_input_nodes(self):
        seen = []
        for a in self.args:
            if isinstance(a, Node) and a not in seen:
                seen.append(a)
        return seen

    def _users(self, p):
        try:
            b = _tls.b
        except AttributeError:
            b = _bufs()
        k = plib.nnfx_node_users(p, b.users, _Bufs.CAP)
        if k > _Bufs.CAP:
            buf = (ctypes.c_void_p * k)()
            plib.nnfx_node_users(p, buf, k)
            w = buf[:]
        else:
            w = b.users_words[:k].tolist()
        g = self._graph
        out = list(map(g._cache.get, w))
        if None in out:
            out = [u or g._wrap(w[i]) for i, u in enumerate(out)]
        return out

    @property
    def users(self):
        """Users in first-use order, as torch.fx's dict {user: None}."""
        return dict.fromkeys(self._users(self._p()))

    @property
    def meta(self):
        """'shape' (tuple; a symbolic dim is its name, an unknown one None;
        None when not inferred), 'dtype' (numpy dtype or None), 'num_outputs',
        'module_path', plus any key set by the user (kept while the node lives)."""
        p = self._p()
        if self._meta is None:
            self._meta = {}
        m = lib.nnfx_node_meta_c(p, 0)
        if m:
            m = m.contents
            self._meta["shape"] = _meta_shape(m)
            self._meta["dtype"] = np.dtype(T._NP_OF[m.dtype]) if m.dtype in T._NP_OF else None
        self._meta["num_outputs"] = lib.nnfx_node_num_outputs(p)
        self._meta["module_path"] = L.dec(lib.nnfx_node_module_path(p))
        return self._meta

    # --- walking ------------------------------------------------------------
    @property
    def next(self):
        self._p()
        g = self._graph
        if not g._linked:
            g._link()
        n = self._next
        return None if n is g._root else n

    @property
    def prev(self):
        self._p()
        g = self._graph
        if not g._linked:
            g._link()
        n = self._prev
        return None if n is g._root else n

    # --- editing --------------------------------------------------------------
    def replace_all_uses_with(self, replace_with, delete_user_cb=None, propagate_meta=False):
        """Makes every user of this node use replace_with (never rewiring
        replace_with itself); delete_user_cb(user) -> False keeps a user.
        Returns the users rewired."""
        g = self._graph
        if (type(replace_with) is Node and delete_user_cb is None and not propagate_meta and not self._dead
                and not replace_with._dead and replace_with._graph is g and g._gp and not g._busy):
            # the common case, checked inline: one call
            try:
                b = _tls.b
            except AttributeError:
                b = _bufs()
            wv = b.wv
            wv[0] = self._ptr
            wv[1] = replace_with._ptr
            k = _b_rauw()
            if k == 1:  # one user (the most frequent)
                u = g._cache.get(wv[3]) or g._wrap(wv[3])
                u._a = None  # rewired: read from C when next asked
                return [u]
            return self._rauw_listed(k, b, replace_with)
        if self._dead:
            self._p()  # raises
        p = self._ptr
        if g._busy or not g._gp:
            g._gw()
        q = g._node_ptr(replace_with)
        if delete_user_cb is None and not propagate_meta:
            try:
                b = _tls.b
            except AttributeError:
                b = _bufs()
            wv = b.wv
            wv[0] = p
            wv[1] = q
            return self._rauw_listed(_b_rauw(), b, replace_with)
        users = self._users(p)
        if delete_user_cb is not None:
            users = [u for u in users if delete_user_cb(u)]
            users = [u for u in users if u is not replace_with]
            for u in users:
                L.call(lib.nnfx_replace_input_with, u._ptr, p, q)
            g._aep += 1
            return users
        n = plib.nnfx_replace_all_uses_with(p, q, None, None)
        if n < 0:
            raise L.GraphError("replace_all_uses_with(%s, %s) failed" % (self.name, replace_with.name), L.GRAPH)
        g._aep += 1
        if propagate_meta:
            for k, v in self.meta.items():
                replace_with.meta.setdefault(k, v)
        if replace_with in users:
            users.remove(replace_with)
        return users

    def _rauw_listed(self, k, b, replace_with):
        """The users nnfx_binding_replace_all_uses_with (just called with
        b's words for self -> replace_with) returned k of; -2: too many for
        the buffer (nothing changed): done again with a buffer large enough."""
        g = self._graph
        if k == -2:
            p, q = self._ptr, replace_with._ptr
            buf = (ctypes.c_void_p * lib.nnfx_node_num_users(p))()
            k = plib.nnfx_replace_all_uses_with_list(p, q, buf, len(buf))
            w = buf[:max(k, 0)]
        else:
            w = b.wv[3:3 + max(k, 0)].tolist()
        if k < 0:
            raise L.GraphError("replace_all_uses_with(%s, %s) failed" % (self.name, replace_with.name), L.GRAPH)
        users = list(map(g._cache.get, w))
        if None in users:
            users = [u or g._wrap(w[i]) for i, u in enumerate(users)]
        for u in users:
            u._a = None  # rewired: read from C when next asked
        return users

    def replace_input_with(self, old_input, new_input):
        p = self._p()
        self._graph._gw()
        self._a = None
        L.call(lib.nnfx_replace_input_with, p, self._graph._node_ptr(old_input), self._graph._node_ptr(new_input))

    def prepend(self, x):
        """Moves node x right before this node."""
        g = self._graph
        g._gw()
        L.call(lib.nnfx_node_move_before, g._node_ptr(x), self._p())
        g._moved(x)

    def append(self, x):
        """Moves node x right after this node."""
        self._graph._gw()
        nxt = lib.nnfx_node_next(self._p())
        if not nxt:
            raise L.GraphError("cannot append after the last node %s" % self.name, L.GRAPH)
        L.call(lib.nnfx_node_move_before, self._graph._node_ptr(x), nxt)
        self._graph._moved(x)

    def format_node(self):
        return "%%%s : %s[target=%s](args = %r, kwargs = %r)" % (self.name, self.op, self.target, self.args,
                                                                  dict(self.kwargs))

    def __repr__(self):
        return self.name if not self._dead else "<erased node %s>" % (self._name or "")


class _NodeList:
    """graph.nodes: live, in order; erasing the node being visited is safe."""

    def __init__(self, graph, reverse=False):
        self._graph = graph
        self._reverse = reverse

    def __len__(self):
        return lib.nnfx_graph_num_nodes(self._graph._g())

    def __iter__(self):
        g = self._graph
        if not g._linked:
            g._link()
        root = g._root
        if self._reverse:
            cur = root._prev
            while cur is not root:
                if not cur._dead:
                    yield cur
                    if not g._linked:
                        g._link()
                nxt = cur._prev
                if nxt is None:
                    raise L.DeadReferenceError("node %s was erased by a pass while visited" % (cur._name or ""),
                                               L.GRAPH)
                cur = nxt
            return
        cur = root._next
        try:
            while cur is not root:  # the hot loop: as few operations per node as it allows
                if cur._dead:
                    cur = cur._next  # an erased node's next when it was erased (None: erased by C)
                    continue
                yield cur
                if not g._linked:  # nodes made by C meanwhile (an Interpreter, a Transformer)
                    g._link()
                cur = cur._next
        except AttributeError:
            if cur is not None:
                raise
            raise L.DeadReferenceError("a node was erased by a pass while visited", L.GRAPH) from None

    def __reversed__(self):
        return _NodeList(self._graph, not self._reverse)

    def __getitem__(self, i):
        return list(self)[i]


class _Root:
    """The sentinel of a Graph's Node list."""
    __slots__ = ("_prev", "_next")


class _InsertPoint:
    """graph.inserting_after/before(n): set when made (as torch.fx's); a
    with-block restores the previous insert point when it ends."""
    __slots__ = ("_g", "_prev")

    def __init__(self, g, how, node):
        self._g = g
        self._prev = g._insert
        if how == "after" and type(node) is Node and not node._dead and node._graph is g and g._gp:
            plib.nnfx_inserting_after(g._gp, node._ptr)  # the common case
        else:
            g._set_insert(how, node)
        g._insert = (how, node)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        g = self._g
        prev = self._prev
        h, n = prev
        if n is not None and n._dead:
            prev = h, n = "end", None
        g._insert = prev
        if g._gp:
            if n is None:
                plib.nnfx_inserting_at_end(g._gp)
            else:
                g._set_insert(h, n)


class Graph:
    """A graph (torch.fx.Graph's names). Graph() makes an empty one; a
    GraphModule's graph is gm.graph."""
    # slots: read on every node an edit loop visits (cheaper than the
    # instance dict); __dict__ kept for attributes a user adds
    __slots__ = ("_gp", "_owner", "_borrowed", "_cache", "_root", "_linked", "_insert", "_version", "_aep", "_busy",
                 "__dict__", "__weakref__")

    def __init__(self, _ptr=None, _owner=None, _borrowed=False):
        self._gp = _ptr if _ptr is not None else lib.nnfx_graph_new()
        if not self._gp:
            raise L.OutOfMemoryError("out of memory", L.NOMEM)
        self._owner = _owner  # a GraphModule owning the C graph, or None
        self._borrowed = _borrowed  # someone else frees it (a transformer's)
        self._cache = {}  # node address -> Node; every live node while _linked
        self._root = _Root()  # the list's sentinel: _next the first node, _prev the last
        self._linked = False  # the Node list and _cache mirror the C list
        self._insert = ("end", None)
        self._version = 0  # bumped by every edit made through this object
        # the args mirror's epoch: a Node's _a holds while its _ae equals it;
        # bumped by any edit the mirror does not follow (see _gw)
        self._aep = 0
        self._busy = 0  # > 0 while an Interpreter or Transformer runs over it

    def __del__(self):
        if getattr(self, "_gp", None) and self._owner is None and not self._borrowed and lib is not None:
            lib.nnfx_graph_free(self._gp)
        self._gp = None

    def _g(self):
        if not self._gp:
            raise L.DeadReferenceError("the graph was freed", L.GRAPH)
        return self._gp

    def _gw(self):
        """The C graph, for an edit: refused while an Interpreter or
        Transformer is running over it (its nodes must stay as they are)."""
        g = self._g()
        if self._busy:
            raise L.GraphError("the graph is being run by an Interpreter or Transformer: edit it after run() / "
                               "transform() returns", L.GRAPH)
        self._aep += 1  # an edit the args mirror does not follow: every Node's _a is stale
        return g

    def _kill(self):
        """The C graph went away: every handle on it becomes dead."""
        self._gp = None
        self._linked = False
        for n in self._cache.values():
            n._dead = True
        self._cache.clear()

    def _wrap(self, p):
        if not p:
            return None
        n = self._cache.get(p)
        if n is None:
            n = Node(self, p)
            self._cache[p] = n
            self._linked = False  # a node made by C: the list is rebuilt when next needed
        return n

    def _link(self):
        """Rebuilds the Node list from C's (one library call): reuses the
        Node of every live node, makes the missing ones, marks the others
        dead (erased by C)."""
        gp = self._g()
        k = plib.nnfx_graph_nodes(gp, None, False, None, 0)
        buf = (L.NodeInfo * max(k, 1))()
        k = plib.nnfx_graph_nodes(gp, None, False, buf, k)
        w = memoryview(buf).cast("B").cast("Q")[:3 * k].tolist()
        ptrs, serials, words = w[0::3], w[1::3], w[2::3]
        old = self._cache
        if old:
            get = old.get
            nodes = []
            for p, sr, x in zip(ptrs, serials, words):
                n = get(p)
                if n is None or n._serial != sr:
                    n = Node(self, p, sr, x)
                nodes.append(n)
        else:
            nodes = list(map(Node, itertools.repeat(self, k), ptrs, serials, words, self._targets(k)))
        cache = dict(zip(ptrs, nodes))
        for p, n in old.items():
            if cache.get(p) is not n:
                n._dead = True
                n._next = n._prev = None  # erased by C: an iteration visiting it stops with an error
        self._cache = cache
        root = self._root
        prev = root
        for n in nodes:
            n._prev = prev
            prev._next = n
            prev = n
        prev._next = root
        root._prev = prev
        self._linked = True
        self._fill_args(nodes)

    def _targets(self, k):
        """Every node's target but a call_function's ('' for those), in list
        order, in one call (nnfx_graph_targets); k: the number of nodes."""
        gp = self._gp
        size = plib.nnfx_graph_targets(gp, None, 0)
        buf = ctypes.create_string_buffer(size)
        if plib.nnfx_graph_targets(gp, buf, size) != size:  # changed meanwhile: read per node
            return itertools.repeat(None, k)
        t = buf.raw[:size].decode("utf-8", "replace").split("\0")
        return t if len(t) == k + 1 else itertools.repeat(None, k)  # the last: after the last NUL

    def _fill_args(self, nodes):
        """Sets every Node's args mirror (nodes: all of them, in list order)
        from the library in one call (nnfx_graph_all_args)."""
        gp = self._gp
        k = plib.nnfx_graph_all_args(gp, None, 0)
        while True:  # again if another thread edited the graph between the two calls
            buf = (ctypes.c_uint64 * max(k, 1))()
            got = plib.nnfx_graph_all_args(gp, buf, k)
            if got == k:
                break
            k = got
        w = memoryview(buf).cast("B").cast("Q")[:k].tolist()
        self._aep += 1
        ep = self._aep
        get = self._cache.get
        all_nodes = _ALL_NODES
        i = 0
        for n in nodes:
            c = w[i]
            if c == 1 and w[i + 1] == 1:  # one node arg (L.ARG_NODE == 1), the most frequent
                n._a = (get(w[i + 2]),)
                i += 3
            elif not c:
                n._a = ()
                i += 1
            else:
                seg = w[i + 1:i + 1 + 2 * c]
                i += 1 + 2 * c
                if c < 9 and seg[0::2] == all_nodes[c]:
                    n._a = tuple(map(get, seg[1::2]))
                else:
                    n._a = _decode_args(self, seg, c)
            n._ae = ep

    def _adopt(self, p):
        """The Node for p, a node just made through this object, placed in
        the list after its C predecessor."""
        b = _bufs()
        k = plib.nnfx_graph_nodes(self._gp, p, True, b.info, 2)  # p, then its predecessor
        w = b.info_words.tolist()
        n = Node(self, p, w[1], w[2])
        cache = self._cache
        cache[p] = n
        if self._linked:
            prv = cache.get(w[3]) if k == 2 else self._root
            if prv is None:
                self._linked = False
            else:
                nxt = prv._next
                n._prev = prv
                n._next = nxt
                prv._next = n
                nxt._prev = n
        self._version += 1
        return n

    def _moved(self, x):
        """Node x was moved in C: relinked after its new predecessor."""
        self._version += 1
        if not self._linked:
            return
        pv, nx = x._prev, x._next
        pv._next = nx
        nx._prev = pv
        q = lib.nnfx_node_prev(x._ptr)
        prv = self._cache.get(q) if q else self._root
        if prv is None:
            self._linked = False
            return
        nxt = prv._next
        x._prev = prv
        x._next = nxt
        prv._next = x
        nxt._prev = x

    def _node_ptr(self, n):
        if type(n) is not Node and not isinstance(n, Node):
            raise L.BadInputError("a Node expected, got %r" % (n,), L.INVALID_ARG)
        if n._dead:
            n._p()  # raises
        if n._graph is not self:
            raise L.BadInputError("node %s belongs to another graph" % n._name, L.INVALID_ARG)
        return n._ptr

    def _pack(self, values, b):
        """values (Nodes, ints, floats, None) as packed nnfx_args in b.args
        (or a new buffer, b.big, when they do not fit): their address."""
        n = len(values)
        if n <= b.CAP:
            buf = b.args
            addr = b.args_addr
        else:
            buf = b.big = (ctypes.c_uint64 * (2 * n))()
            addr = ctypes.addressof(buf)
        if n == 1:
            v = values[0]
            if type(v) is Node and not v._dead and v._graph is self:  # the common case
                buf[0] = L.ARG_NODE
                buf[1] = v._ptr
                return addr
        w = []
        for i, v in enumerate(values):
            if isinstance(v, Node):
                w += (L.ARG_NODE, self._node_ptr(v))
            elif v is None:
                w += (L.ARG_NONE, 0)
            elif isinstance(v, (bool, np.bool_, int, np.integer)):
                w += (L.ARG_INT, int(v) & _M64)
            elif isinstance(v, (float, np.floating)):
                w += (L.ARG_FLOAT, _Q.unpack(_D.pack(float(v)))[0])
            else:
                raise L.BadInputError("argument %d: a Node, int, float or None expected, got %r" % (i, v),
                                      L.INVALID_ARG)
        buf[:2 * n] = w
        return addr

    def _args(self, values):
        arr = (L.Arg * max(len(values), 1))()
        for i, v in enumerate(values):
            a = arr[i]
            if isinstance(v, Node):
                a.kind, a.u.node = L.ARG_NODE, self._node_ptr(v)
            elif v is None:
                a.kind = L.ARG_NONE
            elif isinstance(v, (bool, np.bool_, int, np.integer)):
                a.kind, a.u.i = L.ARG_INT, int(v)
            elif isinstance(v, (float, np.floating)):
                a.kind, a.u.f = L.ARG_FLOAT, float(v)
            else:
                raise L.BadInputError("argument %d: a Node, int, float or None expected, got %r" % (i, v),
                                      L.INVALID_ARG)
        return arr, None

    def _after_c_edit(self):
        """A C call may have erased nodes (and made new ones at their
        addresses) or added some: the list is rebuilt, the handles whose node
        is gone marked dead."""
        self._version += 1
        if self._gp and (self._cache or self._linked):
            self._link()

    # --- iteration ----------------------------------------------------------
    @property
    def nodes(self):
        self._g()
        return _NodeList(self)

    def find_nodes(self, *, op, target=None, sort=True):
        """Nodes with opcode op (and target, an op name or nnfx.ops function)."""
        if target is not None and op == "call_function":
            target = L.dec(lib.nnfx_op_name(_target_name(target)))
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    def __len__(self):
        return lib.nnfx_graph_num_nodes(self._g())

    # --- insert point ---------------------------------------------------------
    def _set_insert(self, how, node):
        g = self._g()
        if how == "after":
            plib.nnfx_inserting_after(g, self._node_ptr(node))
        elif how == "before":
            plib.nnfx_inserting_before(g, self._node_ptr(node))
        else:
            plib.nnfx_inserting_at_end(g)

    def inserting_after(self, n=None):
        """New nodes go right after n, in creation order (a with-block restores
        the previous insert point). Unlike torch.fx, a then b after n gives n, a, b."""
        return _InsertPoint(self, "after", n) if n is not None else _InsertPoint(self, "end", None)

    def inserting_before(self, n=None):
        return _InsertPoint(self, "before", n) if n is not None else _InsertPoint(self, "end", None)

    # --- creating nodes ---------------------------------------------------------
    def call_function(self, the_function, args=(), kwargs=None, type_expr=None):
        """A call of op the_function (an op name such as 'leaky_relu' or
        'LeakyRelu', or nnfx.ops.leaky_relu); kwargs are its attributes."""
        op = _OP_IDS.get(the_function) if type(the_function) is str else None
        if op is None:
            op = _target_name(the_function)
        gp = self._gp
        if not gp or self._busy:
            gp = self._gw()
        try:
            b = _tls.b
        except AttributeError:
            b = _bufs()
        attrs = _attrs_of(kwargs) if kwargs else _NO_ATTRS
        addr = self._pack(args, b)
        wv = b.wv
        wv[0] = gp
        wv[1] = op
        wv[2] = len(args)
        wv[3] = addr
        wv[4] = attrs.n
        wv[5] = attrs.addr
        p = _b_call_op()
        b.big = None
        if not p:
            b.err.raise_()
        # as _adopt, with the node and its predecessor read by the same call
        w = wv[8:14].tolist()
        n = Node(self, p, w[1], w[2])
        if len(args) == 1 and type(args[0]) is Node:  # as packed (other args: read from C when asked)
            n._a = (args[0],)
            n._ae = self._aep
        cache = self._cache
        cache[p] = n
        self._version += 1
        if self._linked:
            prv = cache.get(w[3]) if w[3] else self._root
            if prv is None:
                self._linked = False
            else:
                nxt = prv._next
                n._prev = prv
                n._next = nxt
                prv._next = n
                nxt._prev = n
        return n

    def create_node(self, op, target, args=(), kwargs=None, name=None, type_expr=None):
        if op == "call_function":
            n = self.call_function(target, args, kwargs)
        elif op == "placeholder":
            n = self.placeholder(target)
        elif op == "get_attr":
            n = self.get_attr(target)
        elif op == "output":
            n = self.output(args[0] if len(args) == 1 else args)
        else:
            raise L.UnsupportedOpError("create_node: op %r" % op, L.UNSUPPORTED)
        if name:
            n.name = name
        return n

    def placeholder(self, name, type_expr=None, default_value=None, *, shape=None, dtype="float32"):
        """A graph input; shape (ints, names for symbolic dims, None for unknown)
        and dtype give its meta."""
        meta = None
        if shape is not None:
            meta = L.Meta()
            meta.dtype = T.dtype_code(dtype)
            meta.rank = len(shape)
            for i, d in enumerate(shape):
                if isinstance(d, str):
                    meta.dims[i].value = -1
                    meta.dims[i].symbol = lib.nnfx_symbol(L.enc(d))
                else:
                    meta.dims[i].value = -1 if d is None else int(d)
            meta = ctypes.byref(meta)
        return self._adopt(L.call(lib.nnfx_graph_placeholder, self._gw(), L.enc(name), meta))

    def get_attr(self, qualified_name, type_expr=None):
        """A read of parameter qualified_name (see set_parameter)."""
        return self._adopt(L.call(lib.nnfx_graph_get_attr, self._gw(), L.enc(qualified_name)))

    def getitem(self, node, index):
        """Output `index` of a multi-output node (torch.fx's operator.getitem)."""
        return self._adopt(L.call(lib.nnfx_graph_getitem, self._gw(), self._node_ptr(node), int(index)))

    def output(self, result, type_expr=None):
        vals = list(result) if isinstance(result, (tuple, list)) else [result]
        arr = (ctypes.c_void_p * max(len(vals), 1))(*[self._node_ptr(v) for v in vals])
        p = L.call(lib.nnfx_graph_output, self._gw(), len(vals), arr)
        self._after_c_edit()  # an output node it replaced is gone
        return self._wrap(p)

    def output_node(self):
        return self._wrap(lib.nnfx_graph_output_node(self._g()))

    def set_parameter(self, name, array):
        """Adds or replaces parameter name with a copy of array."""
        tp = T.new_tensor(np.asarray(array))
        try:
            L.call(lib.nnfx_graph_set_param, self._gw(), L.enc(name), tp)
        finally:
            lib.nnfx_tensor_release(tp)

    # --- editing ------------------------------------------------------------------
    def erase_node(self, to_erase):
        """Removes the node; RuntimeError (GraphError) naming its users if any remain."""
        if (type(to_erase) is Node and not to_erase._dead and to_erase._graph is self and self._linked
                and not self._busy):
            p = to_erase._ptr  # the common case, checked inline
        else:
            p = self._node_ptr(to_erase)
            if self._busy:
                self._gw()  # raises
            if not self._linked:
                self._link()  # the erased node keeps its place in the list for an iteration visiting it
        try:
            b = _tls.b
        except AttributeError:
            b = _bufs()
        wv = b.wv
        wv[0] = self._gp
        wv[1] = p
        if _b_erase():
            b.err.raise_()
        del self._cache[p]
        to_erase._dead = True
        pv = to_erase._prev  # to_erase keeps _next, as in torch.fx
        nx = to_erase._next
        pv._next = nx
        nx._prev = pv
        self._version += 1

    def eliminate_dead_code(self):
        """Removes unused pure nodes; True when the graph changed (as torch.fx)."""
        gp = self._gw()
        cache = self._cache
        if not cache:
            return lib.nnfx_eliminate_dead_code(gp) > 0
        linked = self._linked
        n = len(cache) if linked else lib.nnfx_graph_num_nodes(gp)  # linked: one Node per C node
        cap = 3 * n  # the removed nodes (n at most) and two words per run of them (as many runs at most)
        b = _bufs()
        if b.dce_cap < cap:  # grown, not made per call (a ctypes array type per size is costly)
            b.dce_cap = max(cap, 2 * b.dce_cap)
            b.dce = (ctypes.c_uint64 * b.dce_cap)()
            b.dce_words = memoryview(b.dce).cast("B").cast("Q")
        k = _dce_runs(gp, b.dce, cap, b.nruns_addr)
        if not k:
            return False
        self._version += 1
        r = b.nruns.value
        if k + 2 * r > cap:  # not all listed (not expected): the list is rebuilt from C
            self._after_c_edit()
            return True
        words = b.dce_words
        if linked:
            # the removed nodes keep their _prev and _next (an iteration visiting
            # one goes on from it over the others, skipped, as in torch.fx);
            # only the live nodes around each run of them are relinked
            pop = cache.pop
            for n in map(pop, words[:k].tolist()):
                n._dead = True
            get = cache.get
            root = self._root
            w = words[cap - 2 * r:cap].tolist()
            for pv, nx in zip(map(get, w[0::2], itertools.repeat(root)), map(get, w[1::2], itertools.repeat(root))):
                pv._next = nx
                nx._prev = pv
        else:
            pop = cache.pop
            for p in words[:k].tolist():
                n = pop(p, None)
                if n is not None:
                    n._dead = True
        return True

    def lint(self):
        """Checks the graph (ownership, order, names, arity, types); raises GraphError."""
        L.call(lib.nnfx_graph_lint, self._g())
        L.call(lib.nnfx_graph_check_types, self._g())

    def infer_shapes(self):
        L.call(lib.nnfx_graph_infer_shapes, self._gw())

    def python_code(self, root_module="self"):
        return str(self)

    def print_tabular(self):
        print(L.take_string(lib.nnfx_graph_tabular(self._g())), end="")

    def tabular(self):
        return L.take_string(lib.nnfx_graph_tabular(self._g()))

    def to_dot(self):
        return L.take_string(lib.nnfx_graph_to_dot(self._g()))

    def __str__(self):
        return L.take_string(lib.nnfx_graph_to_text(self._g())) or ""

    def copy(self):
        """A deep copy (parameters shared copy-on-write)."""
        return Graph(L.call(lib.nnfx_graph_copy, self._g(), None))

    @classmethod
    def parse(cls, text):
        """A graph from its text form (as str(graph) prints it)."""
        return cls(L.call(lib.nnfx_graph_parse, L.enc(text)))


class GraphModule:
    """A graph with its parameters, runnable (torch.fx.GraphModule's names).
    GraphModule(graph) takes the graph over; nnfx.load(path) reads a file."""

    def __init__(self, graph, _name="GraphModule"):
        if not isinstance(graph, Graph):
            raise L.BadInputError("GraphModule(graph): a Graph expected", L.INVALID_ARG)
        if graph._owner is not None or graph._borrowed:
            graph = graph.copy()
        self._gm = L.call(lib.nnfx_gm_new, graph._g())
        self._lock = threading.Lock()  # one run at a time (the GIL is released while it runs)
        graph._owner = self
        self._graph = graph
        self._name = _name

    def __del__(self):
        gm = getattr(self, "_gm", None)
        if gm and lib is not None:
            self._graph._kill()
            lib.nnfx_gm_free(gm)
        self._gm = None

    def _m(self):
        if not self._gm:
            raise L.DeadReferenceError("the GraphModule was freed", L.GRAPH)
        return self._gm

    @property
    def graph(self):
        return self._graph

    def recompile(self):
        """Lint + shape inference after edits (the plan is rebuilt on the next run)."""
        self._graph._gw()
        L.call(lib.nnfx_gm_recompile, self._m())
        return self

    @property
    def code(self):
        self._graph._gw()
        return L.take_string(L.call(lib.nnfx_gm_code, self._m()))

    def print_readable(self, print_output=True):
        s = "class %s:\n%s" % (self._name, "\n".join("    " + l for l in self.code.splitlines()))
        if print_output:
            print(s)
        return s

    def plan(self):
        self._graph._gw()
        return L.take_string(L.call(lib.nnfx_gm_plan, self._m()))

    def set_threads(self, n):
        lib.nnfx_gm_set_threads(self._m(), int(n))

    def __call__(self, *args):
        """Runs the model on numpy arrays (inputs in placeholder order);
        returns one array or a tuple. The GIL is released while it runs; runs
        of one GraphModule from several threads take turns, and edits from
        other threads meanwhile raise GraphError."""
        self._check_values()
        gm = self._m()
        keep = []
        ins = (L.TensorP * max(len(args), 1))()
        with self._lock:
            self._graph._gw()
            self._graph._busy += 1  # edits from other threads are refused while it runs
            try:
                for i, a in enumerate(args):
                    ins[i] = T.borrow(np.asarray(a), keep)
                outn = self._max_outputs()
                outs = (L.TensorP * outn)()
                nout = ctypes.c_int(0)
                L.call(lib.nnfx_gm_run, gm, len(args), ins, outn, outs, ctypes.byref(nout))
            finally:
                self._graph._busy -= 1
                for i in range(len(args)):
                    if ins[i]:
                        lib.nnfx_tensor_release(ins[i])
        res = tuple(T.to_numpy(outs[i]) for i in range(nout.value))
        return res[0] if len(res) == 1 else res

    forward = __call__

    def _max_outputs(self):
        o = lib.nnfx_graph_output_node(self._graph._g())
        return max(lib.nnfx_node_num_args(o) if o else 1, 1)

    def named_parameters(self):
        """(name, array) for every parameter: read-only numpy views of the
        weights (mapped from the model file where it allows); write through
        set_parameter or mutable_parameter (copy on write)."""
        g = self._graph._g()
        for i in range(lib.nnfx_graph_num_params(g)):
            name = L.dec(lib.nnfx_graph_param_name(g, i))
            tp = lib.nnfx_graph_param_at(g, i)
            if tp:
                yield name, T.to_numpy(lib.nnfx_tensor_retain(tp), writable=False)

    def parameters(self):
        for _, a in self.named_parameters():
            yield a

    def get_parameter(self, name):
        tp = lib.nnfx_graph_param(self._graph._g(), L.enc(name))
        if not tp:
            raise L.NotFoundError("no parameter %r" % name, L.NOT_FOUND)
        return T.to_numpy(lib.nnfx_tensor_retain(tp), writable=False)

    def mutable_parameter(self, name):
        """A writable array over parameter name: a mapped or shared weight is
        first copied (copy on write), so the model file and copies never change."""
        tp = L.call(lib.nnfx_graph_param_mut, self._graph._gw(), L.enc(name))
        return T.to_numpy(lib.nnfx_tensor_retain(tp), writable=True)

    def set_parameter(self, name, array):
        self._graph.set_parameter(name, array)

    register_parameter = set_parameter

    def save(self, path, external_data=False):
        """Writes the model: .onnx as ONNX (weights included); any other
        extension (.fx, .txt) as the text form with its values beside it in
        PATH.safetensors, as `nnfx export` writes them (the text form is
        converted by the nnfx executable, see nnfx.tools.executable).
        Written to temporary names, then renamed."""
        path = os.fspath(path)
        g = self._graph._g()
        if path.endswith(".onnx"):
            L.call(lib.nnfx_onnx_save, g, L.enc(path), None)
            return
        from . import tools
        with tempfile.TemporaryDirectory(prefix="nnfx-save-") as tmp:
            onnx_path = os.path.join(tmp, "model.onnx")
            L.call(lib.nnfx_onnx_save, g, L.enc(onnx_path), None)
            tools.convert(onnx_path, path)

    def _check_values(self):
        """Raises FileError when the model was loaded from a text form whose
        values file is missing (its weights would all be zero)."""
        missing = getattr(self, "_missing_values", None)
        if missing:
            raise L.FileError("%s is missing: this text form has its parameters' shapes but not their values, "
                              "so it cannot run (load the ONNX model, or export the text form with its values)"
                              % missing, L.IO)

    def __str__(self):
        return self.code

    def copy(self):
        return GraphModule(self._graph.copy(), self._name)


def load(path):
    """Loads a model: ONNX (.onnx, weights mapped from the file) or the text
    form (any other extension, as str(graph) / `nnfx export` writes it).
    Shapes are inferred into node.meta; a model whose shapes nnfx cannot
    infer still loads (the error comes at gm.recompile() or the first run)."""
    path = os.fspath(path)
    if path.endswith(".onnx"):
        g = L.call(lib.nnfx_onnx_load, L.enc(path))
    else:
        try:
            with open(path, "r") as f:
                text = f.read()
        except OSError as e:
            raise L.FileError("%s: %s" % (path, e.strerror), L.IO) from None
        if os.path.exists(path + ".safetensors"):
            # the values: the nnfx executable reads text form and values as
            # one ONNX model, loaded (mapped) from a temporary file
            from . import tools
            with tempfile.TemporaryDirectory(prefix="nnfx-load-") as tmp:
                onnx_path = os.path.join(tmp, "model.onnx")
                tools.convert(path, onnx_path)
                g = L.call(lib.nnfx_onnx_load, L.enc(onnx_path))
            return _loaded(g)
        g = L.call(lib.nnfx_graph_parse, L.enc(text))
        gm = _loaded(g)
        gm._missing_values = path + ".safetensors"  # structure only: running it is refused
        return gm
    return _loaded(g)


def _loaded(g):
    gm = GraphModule(Graph(g))
    try:
        gm.recompile()  # shapes into meta; a model nnfx cannot infer still loads for inspection
    except (L.ShapeError, L.UnsupportedOpError, L.GraphError):
        pass
    gm._graph._link()  # the Node objects, made here as torch.fx makes its nodes when it traces
    return gm


def load_onnx_bytes(data):
    """Loads an ONNX model from bytes in memory."""
    buf = ctypes.create_string_buffer(bytes(data), len(data))
    g = L.call(lib.nnfx_onnx_load_buffer, buf, len(data))
    return _loaded(g)


def from_torch(module, example_inputs, opset_version=17, **export_kwargs):
    """A GraphModule of a torch.nn.Module, exported with torch.onnx.export to
    memory (torch must be installed)."""
    import torch
    if not isinstance(example_inputs, (tuple, list)):
        example_inputs = (example_inputs,)
    buf = io.BytesIO()
    module.eval()
    torch.onnx.export(module, tuple(example_inputs), buf, opset_version=opset_version, **export_kwargs)
    return load_onnx_bytes(buf.getvalue())
