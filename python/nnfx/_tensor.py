"""numpy <-> nnfx_tensor conversion (zero-copy where the layout allows)."""
import ctypes

import numpy as np

from . import _lib as L

_NP_OF = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32, 7: np.int64, 9: np.bool_,
          10: np.float16, 11: np.float64, 12: np.uint32, 13: np.uint64}
_DT_OF = {np.dtype(v): k for k, v in _NP_OF.items()}


def dtype_code(dt):
    """nnfx dtype code of a numpy dtype (BadInputError when nnfx has none)."""
    try:
        return _DT_OF[np.dtype(dt)]
    except KeyError:
        raise L.BadInputError("dtype %s has no nnfx type" % np.dtype(dt), L.INVALID_ARG) from None


def np_dtype(code):
    try:
        return _NP_OF[code]
    except KeyError:
        raise L.UnsupportedOpError("nnfx dtype %d has no numpy type" % code, L.UNSUPPORTED) from None


class _Keeper:
    """Owns one reference to an nnfx_tensor; releases it when the last numpy
    view over its data is gone. Exposes the data through the buffer protocol
    (via a ctypes array)."""
    __slots__ = ("ptr", "__weakref__")

    def __init__(self, ptr):
        self.ptr = ptr

    def __del__(self):
        p, self.ptr = self.ptr, None
        if p and L is not None and L.lib is not None:
            L.lib.nnfx_tensor_release(p)


def to_numpy(tp, writable=None):
    """A numpy array over tensor tp (an nnfx_tensor* of which this call takes
    one reference). Zero-copy for owned and mapped data: the array keeps the
    tensor alive. Borrowed data (someone else's memory) is copied. writable:
    None = writable only when nnfx is the sole holder of owned data."""
    t = tp.contents
    dt = np_dtype(t.dtype)
    shape = tuple(t.shape[i] for i in range(t.rank))
    if not t.data or t.nbytes == 0 or t.storage == L.STORAGE_BORROWED:
        if t.data and t.nbytes:
            raw = ctypes.string_at(t.data, t.nbytes)
            arr = np.frombuffer(raw, dtype=dt).reshape(shape).copy()
        else:
            arr = np.zeros(shape, dtype=dt)
        L.lib.nnfx_tensor_release(tp)
        return arr
    if writable is None:
        writable = t.storage == L.STORAGE_OWNED and t.refcount == 1
    buf = (ctypes.c_char * t.nbytes).from_address(t.data)
    keeper = _Keeper(tp)
    buf._nnfx_keeper = keeper  # the ctypes buffer (numpy's base) holds the reference
    arr = np.frombuffer(buf, dtype=dt).reshape(shape)
    if not writable:
        arr.flags.writeable = False
    return arr


def tensor_of_array(arr):
    """The nnfx_tensor* (a new reference) behind an array made by to_numpy
    when arr is a whole, unchanged view of it; else None."""
    if not isinstance(arr, np.ndarray):
        return None
    base = arr
    while isinstance(base, np.ndarray):
        base = base.base
    keeper = getattr(base, "_nnfx_keeper", None)
    if keeper is None or not keeper.ptr:
        return None
    t = keeper.ptr.contents
    if (arr.ctypes.data != t.data or arr.nbytes != t.nbytes or not arr.flags.c_contiguous
            or arr.dtype != np.dtype(np_dtype(t.dtype)) or arr.shape != tuple(t.shape[i] for i in range(t.rank))):
        return None
    return L.lib.nnfx_tensor_retain(keeper.ptr)


def shape_array(shape):
    n = len(shape)
    if n > L.MAX_RANK:
        raise L.BadInputError("rank %d is more than nnfx's %d" % (n, L.MAX_RANK), L.INVALID_ARG)
    return (ctypes.c_int64 * max(n, 1))(*shape)


def new_tensor(arr):
    """A new owned nnfx_tensor* (refcount 1) holding a copy of arr."""
    t = tensor_of_array(arr)
    if t:
        return t
    a = np.ascontiguousarray(arr)
    code = dtype_code(a.dtype)
    tp = L.call(L.lib.nnfx_tensor_new, code, a.ndim, shape_array(a.shape))
    if a.nbytes:
        ctypes.memmove(tp.contents.data, a.ctypes.data, a.nbytes)
    return tp


def borrow(arr, keep):
    """An nnfx_tensor* over arr's memory (not copied) for the length of one
    call; keep collects what must stay alive until the tensor is released."""
    t = tensor_of_array(arr)
    if t:
        return t
    a = np.ascontiguousarray(arr)
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    keep.append(a)
    code = dtype_code(a.dtype)
    return L.call(L.lib.nnfx_tensor_borrow, code, a.ndim, shape_array(a.shape), ctypes.c_void_p(a.ctypes.data))
