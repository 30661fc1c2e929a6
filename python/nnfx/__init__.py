"""nnfx: torch.fx's graph workflow over ONNX models, backed by libnnfx (C).

    import nnfx
    gm = nnfx.load("model.onnx")
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target == "relu":
            with gm.graph.inserting_after(node):
                new = gm.graph.call_function("leaky_relu", (node.args[0],), {"alpha": 0.1})
            node.replace_all_uses_with(new)
            gm.graph.erase_node(node)
    gm.recompile()
    y = gm(x)            # numpy in, numpy out

A thin ctypes binding: the graph logic is the C library's (include/nnfx.h).
"""
from ._lib import (BadInputError, DeadReferenceError, Error, FileError, GraphError, NotFoundError, OutOfMemoryError,
                   ParseError, RunError, ShapeError, TraceError, UnsupportedOpError, LIB_PATH)
from .graph import Graph, GraphModule, Node, load, load_onnx_bytes, from_torch
from .interpreter import Interpreter, Transformer
from . import passes
from . import ops
from .rewrite import replace_pattern, find_matches, rewrite
from .tools import analyze, compare, quantize, prune, codegen

__version__ = "0.1.0"
__all__ = ["Graph", "GraphModule", "Node", "load", "load_onnx_bytes", "Interpreter", "Transformer", "passes", "ops",
           "replace_pattern", "find_matches", "rewrite", "analyze", "compare", "quantize", "prune", "codegen",
           "from_torch", "Error", "BadInputError", "ParseError", "FileError", "UnsupportedOpError", "ShapeError",
           "GraphError", "TraceError", "RunError", "NotFoundError", "OutOfMemoryError", "DeadReferenceError"]
