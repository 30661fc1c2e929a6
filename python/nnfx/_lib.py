"""ctypes declarations of libnnfx.so (include/nnfx.h) and the error classes.

The library is found, in order: the path in $NNFX_LIB; the installed library
recorded by `cmake --install` (nnfx/_install.py); libnnfx.so in build/ of the
repository this package sits in (python/nnfx); the system's library path. No graph logic lives here, only the C types.
"""
import ctypes
import ctypes.util
import os

from ctypes import (POINTER, Structure, Union, c_bool, c_char, c_char_p, c_double, c_float, c_int, c_int64, c_long,
                    c_size_t, c_uint, c_uint32, c_uint64, c_void_p)


def _find_library():
    env = os.environ.get("NNFX_LIB")
    if env:
        return env
    try:  # written by `cmake --install`
        from ._install import LIB
        if os.path.exists(LIB):
            return LIB
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    for build in ("build", "build-asan", "build-release"):
        cand = os.path.join(here, "..", "..", build, "libnnfx.so")
        if os.path.exists(cand):
            return os.path.normpath(cand)
    found = ctypes.util.find_library("nnfx")
    return found or "libnnfx.so.0"


LIB_PATH = _find_library()
lib = ctypes.CDLL(LIB_PATH)  # CDLL: every call releases the GIL

# --- errors -----------------------------------------------------------------

OK, INVALID_ARG, NOMEM, IO, PARSE, UNSUPPORTED, SHAPE, GRAPH, TRACE, RUNTIME, NOT_FOUND = range(11)


class Error(Exception):
    """An error reported by libnnfx; .status is the C status code, .message the
    C library's message (what failed and where)."""

    def __init__(self, message, status=RUNTIME):
        super().__init__(message)
        self.message = message
        self.status = status

    def __str__(self):
        return self.message


class BadInputError(Error, ValueError):
    """Malformed input: an invalid argument, or text/binary that does not parse."""


class ParseError(BadInputError):
    """Text or binary input is malformed (NNFX_ERR_PARSE)."""


class FileError(Error, OSError):
    """A file could not be read or written (NNFX_ERR_IO)."""

    def __str__(self):
        return self.message


class UnsupportedOpError(Error):
    """An op, dtype or feature nnfx does not handle (NNFX_ERR_UNSUPPORTED)."""


class ShapeError(Error):
    """Shapes or dtypes do not fit together (NNFX_ERR_SHAPE)."""


class GraphError(Error, RuntimeError):
    """The graph structure is invalid, or a node still has users (NNFX_ERR_GRAPH).
    A RuntimeError, as torch.fx raises for erase_node of a used node."""


class TraceError(Error):
    """Tracing failed (NNFX_ERR_TRACE)."""


class RunError(Error, RuntimeError):
    """A kernel or callback failed while running (NNFX_ERR_RUNTIME)."""


class NotFoundError(Error, KeyError):
    """A name lookup found nothing (NNFX_ERR_NOT_FOUND)."""

    def __str__(self):
        return self.message


class OutOfMemoryError(Error, MemoryError):
    """An allocation failed (NNFX_ERR_NOMEM)."""


class DeadReferenceError(Error, RuntimeError):
    """A Python handle used after its C object went away (an erased node, a
    freed graph)."""


_ERR_CLASS = {INVALID_ARG: BadInputError, NOMEM: OutOfMemoryError, IO: FileError, PARSE: ParseError,
              UNSUPPORTED: UnsupportedOpError, SHAPE: ShapeError, GRAPH: GraphError, TRACE: TraceError,
              RUNTIME: RunError, NOT_FOUND: NotFoundError}


def error_from_status(status, message):
    return _ERR_CLASS.get(status, Error)(message, status)


# --- structs ----------------------------------------------------------------

MAX_RANK = 8


class CError(Structure):
    _fields_ = [("status", c_int), ("msg", c_char * 1024)]

    def raise_(self, default="nnfx call failed"):
        msg = self.msg.decode("utf-8", "replace") or default
        raise error_from_status(self.status or RUNTIME, msg)


class Tensor(Structure):
    _fields_ = [("dtype", c_int), ("rank", c_int), ("shape", c_int64 * MAX_RANK), ("data", c_void_p),
                ("nbytes", c_size_t), ("storage", c_int), ("refcount", c_int), ("mapping", c_void_p)]


STORAGE_OWNED, STORAGE_BORROWED, STORAGE_MAPPED = 0, 1, 2
TensorP = POINTER(Tensor)

ARG_NONE, ARG_NODE, ARG_INT, ARG_FLOAT = range(4)


class _ArgU(Union):
    _fields_ = [("node", c_void_p), ("i", c_int64), ("f", c_double)]


class Arg(Structure):
    _fields_ = [("kind", c_int), ("u", _ArgU)]


ATTR_INT, ATTR_FLOAT, ATTR_STRING, ATTR_INTS, ATTR_FLOATS, ATTR_TENSOR, ATTR_GRAPH = range(7)


class _Ints(Structure):
    _fields_ = [("v", POINTER(c_int64)), ("n", c_int)]


class _Floats(Structure):
    _fields_ = [("v", POINTER(c_float)), ("n", c_int)]


class _AttrU(Union):
    _fields_ = [("i", c_int64), ("f", c_double), ("s", c_char_p), ("ints", _Ints), ("floats", _Floats),
                ("t", TensorP), ("g", c_void_p)]


class Attr(Structure):
    _fields_ = [("name", c_char_p), ("kind", c_int), ("u", _AttrU)]


class Dim(Structure):
    _fields_ = [("value", c_int64), ("symbol", c_char_p)]


class Meta(Structure):
    _fields_ = [("dtype", c_int), ("rank", c_int), ("dims", Dim * MAX_RANK)]


class ValueSet(Structure):
    _fields_ = [("num", c_int), ("t", TensorP * MAX_RANK)]


class PassSkip(Structure):
    _fields_ = [("node", c_char * 64), ("reason", c_char * 192)]


class PassReport(Structure):
    _fields_ = [("pass_", c_char * 32), ("changed", c_int), ("nodes_before", c_int), ("nodes_after", c_int),
                ("nskipped", c_int), ("skipped", POINTER(PassSkip))]


class Match(Structure):
    _fields_ = [("anchor", c_void_p), ("anchor_name", c_char_p), ("n", c_int), ("pattern_nodes", POINTER(c_void_p)),
                ("graph_nodes", POINTER(c_void_p)), ("nbindings", c_int), ("bindings", POINTER(Arg)),
                ("nreplacements", c_int), ("replacements", POINTER(c_void_p))]


class NodeInfo(Structure):
    _fields_ = [("node", c_void_p), ("serial", c_uint64), ("opcode", c_int), ("op", c_int)]


ErrP = POINTER(CError)
NodeP = c_void_p
GraphP = c_void_p

# interpreter handlers
H_PLACEHOLDER = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, POINTER(ValueSet), ErrP)
H_CALL = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, c_int, POINTER(TensorP), POINTER(ValueSet), ErrP)
H_RUN_NODE = H_PLACEHOLDER


class InterpHandlers(Structure):
    _fields_ = [("placeholder", H_PLACEHOLDER), ("get_attr", H_PLACEHOLDER), ("call_function", H_CALL),
                ("call_module", H_CALL), ("output", H_CALL), ("run_node", H_RUN_NODE)]


# transformer handlers (return a node pointer; c_void_p results from callbacks
# are returned as plain ints)
T_NODE = ctypes.CFUNCTYPE(c_void_p, c_void_p, c_void_p, ErrP)
T_CALL = ctypes.CFUNCTYPE(c_void_p, c_void_p, c_void_p, c_int, POINTER(Arg), ErrP)


class TransformerHandlers(Structure):
    _fields_ = [("placeholder", T_NODE), ("get_attr", T_NODE), ("call_function", T_CALL), ("call_module", T_CALL)]


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


S = c_int  # nnfx_status
_decls = [
    ("nnfx_status_name", c_char_p, c_int),
    ("nnfx_dtype_name", c_char_p, c_int),
    ("nnfx_dtype_from_name", c_int, c_char_p),
    ("nnfx_tensor_new", TensorP, c_int, c_int, POINTER(c_int64), ErrP),
    ("nnfx_tensor_borrow", TensorP, c_int, c_int, POINTER(c_int64), c_void_p, ErrP),
    ("nnfx_tensor_retain", TensorP, TensorP),
    ("nnfx_tensor_release", None, TensorP),
    ("nnfx_symbol", c_char_p, c_char_p),
    ("nnfx_op_name", c_char_p, c_int),
    ("nnfx_op_find", c_int, c_char_p),
    ("nnfx_op_onnx_type", c_char_p, c_int),
    ("nnfx_opcode_name", c_char_p, c_int),
    ("nnfx_graph_new", GraphP),
    ("nnfx_graph_free", None, GraphP),
    ("nnfx_graph_set_param", S, GraphP, c_char_p, TensorP, ErrP),
    ("nnfx_graph_param", TensorP, GraphP, c_char_p),
    ("nnfx_graph_param_mut", TensorP, GraphP, c_char_p, ErrP),
    ("nnfx_graph_num_params", c_int, GraphP),
    ("nnfx_graph_param_name", c_char_p, GraphP, c_int),
    ("nnfx_graph_param_at", TensorP, GraphP, c_int),
    ("nnfx_inserting_before", None, GraphP, NodeP),
    ("nnfx_inserting_after", None, GraphP, NodeP),
    ("nnfx_inserting_at_end", None, GraphP),
    ("nnfx_graph_placeholder", NodeP, GraphP, c_char_p, POINTER(Meta), ErrP),
    ("nnfx_graph_get_attr", NodeP, GraphP, c_char_p, ErrP),
    ("nnfx_graph_call_op", NodeP, GraphP, c_int, c_int, POINTER(Arg), c_int, POINTER(Attr), ErrP),
    ("nnfx_graph_getitem", NodeP, GraphP, NodeP, c_int, ErrP),
    ("nnfx_graph_output", NodeP, GraphP, c_int, POINTER(c_void_p), ErrP),
    ("nnfx_graph_first", NodeP, GraphP),
    ("nnfx_graph_last", NodeP, GraphP),
    ("nnfx_node_next", NodeP, NodeP),
    ("nnfx_node_prev", NodeP, NodeP),
    ("nnfx_graph_num_nodes", c_int, GraphP),
    ("nnfx_graph_nodes", c_int, GraphP, NodeP, c_bool, POINTER(NodeInfo), c_int),
    ("nnfx_node_args", c_int, NodeP, POINTER(Arg), c_int),
    ("nnfx_node_users", c_int, NodeP, POINTER(c_void_p), c_int),
    ("nnfx_eliminate_dead_code_list", c_int, GraphP, POINTER(c_void_p), c_int),
    ("nnfx_replace_all_uses_with_list", c_int, NodeP, NodeP, POINTER(c_void_p), c_int),
    ("nnfx_graph_find", NodeP, GraphP, c_char_p),
    ("nnfx_graph_output_node", NodeP, GraphP),
    ("nnfx_graph_num_inputs", c_int, GraphP),
    ("nnfx_node_graph", GraphP, NodeP),
    ("nnfx_node_name", c_char_p, NodeP),
    ("nnfx_node_serial", c_uint64, NodeP),
    ("nnfx_node_set_name", S, NodeP, c_char_p, ErrP),
    ("nnfx_node_opcode", c_int, NodeP),
    ("nnfx_node_op", c_int, NodeP),
    ("nnfx_node_target", c_char_p, NodeP),
    ("nnfx_node_num_args", c_int, NodeP),
    ("nnfx_node_arg", Arg, NodeP, c_int),
    ("nnfx_node_set_arg", S, NodeP, c_int, Arg, ErrP),
    ("nnfx_node_set_args", S, NodeP, c_int, POINTER(Arg), ErrP),
    ("nnfx_node_num_attrs", c_int, NodeP),
    ("nnfx_node_attr_at", POINTER(Attr), NodeP, c_int),
    ("nnfx_node_set_attr", S, NodeP, POINTER(Attr), ErrP),
    ("nnfx_node_num_users", c_int, NodeP),
    ("nnfx_node_user", NodeP, NodeP, c_int),
    ("nnfx_node_num_outputs", c_int, NodeP),
    ("nnfx_node_meta_c", POINTER(Meta), NodeP, c_int),
    ("nnfx_node_module_path", c_char_p, NodeP),
    ("nnfx_replace_all_uses_with", c_int, NodeP, NodeP, c_void_p, c_void_p),
    ("nnfx_replace_input_with", S, NodeP, NodeP, NodeP, ErrP),
    ("nnfx_erase_node", S, GraphP, NodeP, ErrP),
    ("nnfx_eliminate_dead_code", c_int, GraphP),
    ("nnfx_node_move_before", S, NodeP, NodeP, ErrP),
    ("nnfx_graph_lint", S, GraphP, ErrP),
    ("nnfx_graph_check_types", S, GraphP, ErrP),
    ("nnfx_graph_copy", GraphP, GraphP, c_void_p, ErrP),
    ("nnfx_graph_infer_shapes", S, GraphP, ErrP),
    ("nnfx_graph_to_text", c_void_p, GraphP),
    ("nnfx_graph_parse", GraphP, c_char_p, ErrP),
    ("nnfx_graph_tabular", c_void_p, GraphP),
    ("nnfx_graph_to_dot", c_void_p, GraphP),
    ("nnfx_gm_new", c_void_p, GraphP, ErrP),
    ("nnfx_gm_free", None, c_void_p),
    ("nnfx_gm_graph", GraphP, c_void_p),
    ("nnfx_gm_recompile", S, c_void_p, ErrP),
    ("nnfx_gm_code", c_void_p, c_void_p, ErrP),
    ("nnfx_gm_plan", c_void_p, c_void_p, ErrP),
    ("nnfx_gm_run", S, c_void_p, c_int, POINTER(TensorP), c_int, POINTER(TensorP), POINTER(c_int), ErrP),
    ("nnfx_gm_set_threads", None, c_void_p, c_int),
    ("nnfx_interp_new", c_void_p, GraphP, POINTER(InterpHandlers), c_void_p, ErrP),
    ("nnfx_interp_free", None, c_void_p),
    ("nnfx_interp_run", S, c_void_p, c_int, POINTER(TensorP), c_int, POINTER(TensorP), POINTER(c_int), ErrP),
    ("nnfx_interp_default_run_node", S, c_void_p, NodeP, POINTER(ValueSet), ErrP),
    ("nnfx_interp_default_call_function", S, c_void_p, NodeP, c_int, POINTER(TensorP), POINTER(ValueSet), ErrP),
    ("nnfx_op_run", S, NodeP, c_int, POINTER(TensorP), POINTER(ValueSet), ErrP),
    ("nnfx_transform", GraphP, GraphP, POINTER(TransformerHandlers), c_void_p, ErrP),
    ("nnfx_transformer_graph", GraphP, c_void_p),
    ("nnfx_transformer_default_call_function", NodeP, c_void_p, NodeP, c_int, POINTER(Arg), ErrP),
    ("nnfx_graph_call_module", NodeP, GraphP, c_char_p, c_int, POINTER(Arg), ErrP),
    ("nnfx_find_matches", c_void_p, GraphP, GraphP, c_void_p, ErrP),
    ("nnfx_replace_pattern", c_void_p, GraphP, GraphP, GraphP, c_void_p, c_void_p, ErrP),
    ("nnfx_match_list_free", None, c_void_p),
    ("nnfx_match_list_count", c_int, c_void_p),
    ("nnfx_match_list_at", POINTER(Match), c_void_p, c_int),
    ("nnfx_match_list_warning", c_char_p, c_void_p),
    ("nnfx_pattern_parse", S, c_char_p, POINTER(GraphP), POINTER(GraphP), ErrP),
    ("nnfx_rewrite_text", c_int, GraphP, c_char_p, ErrP),
    ("nnfx_pass_report_free", None, POINTER(PassReport)),
    ("nnfx_pass_run_by_name", S, GraphP, c_char_p, POINTER(PassReport), ErrP),
    ("nnfx_pass_count", c_int),
    ("nnfx_pass_name", c_char_p, c_int),
    ("nnfx_pass_description", c_char_p, c_int),
    ("nnfx_onnx_load", GraphP, c_char_p, ErrP),
    ("nnfx_onnx_load_buffer", GraphP, c_void_p, c_size_t, ErrP),
    ("nnfx_onnx_save", S, GraphP, c_char_p, c_void_p, ErrP),
]
for _d in _decls:
    _fn(*_d)

# The short calls an edit loop makes per node, through a second handle that
# keeps the GIL (ctypes.PyDLL): cheaper per call than releasing and taking it
# back, and Python threads editing one graph cannot run them at once. Buffers
# are passed as c_void_p (packed nnfx_arg pairs of 64-bit words, see
# graph.py). Long-running calls (load, run, passes) stay on `lib`.
plib = ctypes.PyDLL(LIB_PATH)
_pdecls = [
    ("nnfx_graph_nodes", c_int, GraphP, NodeP, c_bool, c_void_p, c_int),
    ("nnfx_node_args", c_int, NodeP, c_void_p, c_int),
    ("nnfx_graph_all_args", c_int, GraphP, c_void_p, c_int),
    ("nnfx_graph_targets", c_size_t, GraphP, c_void_p, c_size_t),
    ("nnfx_node_users", c_int, NodeP, c_void_p, c_int),
    ("nnfx_eliminate_dead_code_list", c_int, GraphP, c_void_p, c_int),
    ("nnfx_eliminate_dead_code_runs", c_int, GraphP, c_void_p, c_int, c_void_p),
    ("nnfx_replace_all_uses_with", c_int, NodeP, NodeP, c_void_p, c_void_p),
    ("nnfx_replace_all_uses_with_list", c_int, NodeP, NodeP, c_void_p, c_int),
    ("nnfx_erase_node", S, GraphP, NodeP, c_void_p),
    ("nnfx_graph_call_op", NodeP, GraphP, c_int, c_int, c_void_p, c_int, POINTER(Attr), c_void_p),
    ("nnfx_inserting_before", None, GraphP, NodeP),
    ("nnfx_inserting_after", None, GraphP, NodeP),
    ("nnfx_inserting_at_end", None, GraphP),
    # one argument each (the address of a words buffer): see include/nnfx.h
    ("nnfx_binding_call_op", NodeP, c_void_p),
    ("nnfx_binding_node_args", c_int, c_void_p),
    ("nnfx_binding_replace_all_uses_with", c_int, c_void_p),
    ("nnfx_binding_erase_node", S, c_void_p),
    ("nnfx_node_target", c_char_p, NodeP),
    ("nnfx_binding_words", c_void_p),
    ("nnfx_binding_error", c_void_p),
    ("nnfx_binding_call_op_tls", NodeP),
    ("nnfx_binding_node_args_tls", c_int),
    ("nnfx_binding_replace_all_uses_with_tls", c_int),
    ("nnfx_binding_erase_node_tls", S),
]
BINDING_WORDS = 66  # NNFX_BINDING_WORDS (include/nnfx.h)
for _name, _res, *_args in _pdecls:
    _f = getattr(plib, _name)
    _f.restype = _res
    _f.argtypes = _args

libc = ctypes.CDLL(None)
libc.free.argtypes = [c_void_p]
libc.free.restype = None


def take_string(ptr):
    """Python str of a malloc'd C string, which is freed; None for NULL."""
    if not ptr:
        return None
    try:
        return ctypes.string_at(ptr).decode("utf-8", "replace")
    finally:
        libc.free(ptr)


def call(fn, *args):
    """Calls fn(*args, err) and raises the C error when it fails (status != 0
    or a NULL result for pointer-returning functions)."""
    err = CError()
    r = fn(*args, ctypes.byref(err))
    if fn.restype is S:
        if r != OK:
            err.raise_()
    elif not r:
        err.raise_()
    return r


def enc(s):
    return s.encode("utf-8") if isinstance(s, str) else s


def dec(b):
    return b.decode("utf-8", "replace") if b is not None else None
