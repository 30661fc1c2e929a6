"""nnfx.passes.<pass>(gm): every pass of the C library (nnfx_pass_run_by_name),
named with underscores: fuse_conv_bn, remove_bn, remove_dropout,
remove_identity, dce, cse, fold_constants, shape_prop. Each edits gm's graph in
place and returns a PassResult (changed, nodes_before, nodes_after, skipped:
list of (node, reason))."""
import ctypes
from collections import namedtuple

from . import _lib as L

lib = L.lib

PassResult = namedtuple("PassResult", "name changed nodes_before nodes_after skipped")


def names():
    """The C library's pass names ('fuse-conv-bn', ...)."""
    return [L.dec(lib.nnfx_pass_name(i)) for i in range(lib.nnfx_pass_count())]


def run(gm, name):
    """Runs the pass called name ('fuse-conv-bn' or 'fuse_conv_bn') on gm
    (a GraphModule or a Graph) in place."""
    graph = getattr(gm, "graph", gm)
    rep = L.PassReport()
    try:
        err = L.CError()
        st = lib.nnfx_pass_run_by_name(graph._gw(), L.enc(name.replace("_", "-")), ctypes.byref(rep),
                                       ctypes.byref(err))
        graph._after_c_edit()
        if st != L.OK:
            err.raise_()
        skipped = [(L.dec(rep.skipped[i].node), L.dec(rep.skipped[i].reason)) for i in range(rep.nskipped)]
        return PassResult(name, rep.changed, rep.nodes_before, rep.nodes_after, skipped)
    finally:
        lib.nnfx_pass_report_free(ctypes.byref(rep))


def _make(cname):
    def p(gm):
        return run(gm, cname)
    p.__name__ = cname.replace("-", "_")
    p.__doc__ = L.dec(lib.nnfx_pass_description(names().index(cname)))
    return p


for _n in names():
    globals()[_n.replace("-", "_")] = _make(_n)
__all__ = [n.replace("-", "_") for n in names()] + ["run", "names", "PassResult"]
