"""Indexing through include/chunkarray/slicing.h: x[...], x.vindex[...], x[...] = v."""
import ctypes
import numbers

import numpy as np

from . import _lib as C
from ._lib import lib
from .core import Array, InvalidArgumentError, _is_scalar, _scalar, from_array

c_vp = ctypes.c_void_p


class IndexingError(InvalidArgumentError, IndexError):
    """An invalid index (CA_EINVAL from the indexing functions): both ValueError and IndexError,
    as NumPy raises IndexError for these."""


def _new(fn, *args):
    try:
        return Array._new(fn, *args)
    except InvalidArgumentError as e:
        if "unknown" in e.message:  # unknown chunk sizes: dask's ValueError
            raise
        raise IndexingError(e.status, e.message) from None


def _is_int(v):
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, (bool, np.bool_))


def _canonical_slice(sl, n, chunks, allow_flip):
    """Python's slice.indices() applied here, so the library sees in-range bounds. Works around two
    library bugs with negative steps: a start below -n selects from the end instead of nothing, and
    a start on the boundary of an empty block selects nothing. With ``allow_flip``, a negative step
    over an axis with empty blocks is sliced with the positive step and reversed afterwards
    (returns (slice, True))."""
    start, stop, step = sl.indices(int(n))
    r = range(start, stop, step)
    if len(r) == 0:
        return slice(0, 0, 1), False
    if step > 0:
        return slice(r[0], r[-1] + 1, step), False
    if allow_flip and any(c == 0 for c in chunks):
        return slice(r[-1], r[0] + 1, -step), True
    return slice(r[0], r[-1] - 1 if r[-1] > 0 else None, step), False


class _Items:
    """A ca_index_t array built from a Python index, keeping its buffers alive."""

    def __init__(self, x, index, setitem=False):
        if not isinstance(index, tuple):
            index = (index,)
        self.keep = []
        self.flip_axes = []  # output axes to reverse afterwards (see _canonical_slice)
        items = []
        shape, chunks = x.shape, x.chunks
        n_ell = sum(1 for i in index if i is Ellipsis)
        consumed = sum(0 if (i is None or i is Ellipsis) else (i.ndim if isinstance(i, Array) and i.dtype == bool
                                                                   else 1) for i in index)
        axis = out_axis = 0
        for it in index:
            if isinstance(it, slice) and axis < len(shape) and shape[axis] == shape[axis]:
                it, flip = _canonical_slice(it, shape[axis], chunks[axis], not setitem)
                if flip:
                    self.flip_axes.append(out_axis)
            items.append(self._item(x, it, setitem))
            if it is Ellipsis and n_ell == 1:
                k = max(0, x.ndim - consumed)
                axis, out_axis = axis + k, out_axis + k
            elif it is None:
                out_axis += 1
            elif isinstance(it, Array) and it.dtype == bool:
                axis, out_axis = axis + it.ndim, out_axis + 1
            else:
                axis += 1
                out_axis += 0 if _is_int(it) or (isinstance(it, np.ndarray) and it.ndim == 0) else 1
        self.n = len(items)
        self.arr = (C.Index * max(1, self.n))(*items)

    def _item(self, x, it, setitem):
        r = C.Index()
        r.step = 1
        if it is None:
            r.kind = C.IDX_NEWAXIS
        elif it is Ellipsis:
            r.kind = C.IDX_ELLIPSIS
        elif _is_int(it) or (isinstance(it, np.ndarray) and it.ndim == 0 and it.dtype.kind in "iu"):
            r.kind, r.i = C.IDX_INT, int(it)
        elif isinstance(it, slice):
            r.kind = C.IDX_SLICE
            for f in ("start", "stop", "step"):
                v = getattr(it, f)
                if v is not None:
                    v = v.__index__() if not isinstance(v, Array) else int(v)
                    setattr(r, f, v)
                    setattr(r, "has_" + f, True)
        elif isinstance(it, Array):
            if setitem:
                raise NotImplementedError("x[..., chunkarray.Array, ...] = v: only a boolean Array of x's shape "
                                          "(x[mask] = v) is supported")
            if it.dtype == np.bool_:
                r.kind = C.IDX_MASK
            elif it.dtype.kind in "iu":
                if it.ndim != 1:
                    raise NotImplementedError(f"indexing with a {it.ndim}-d integer Array (1-d only)")
                r.kind = C.IDX_INDEX_ARRAY
            else:
                raise IndexError(f"arrays used as indices must be of integer or boolean type, not {it.dtype}")
            r.array = it.handle
            self.keep.append(it)
        else:
            a = np.asarray(it)
            if a.dtype == object or a.dtype.kind not in "biu":
                if a.size == 0 and isinstance(it, (list, tuple)):
                    a = a.astype(np.int64)
                else:
                    raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                                     f"integer or boolean arrays are valid indices, not {it!r}")
            if a.ndim != 1:
                raise NotImplementedError(f"indexing with a {a.ndim}-d {'boolean' if a.dtype == bool else 'integer'} "
                                          "array: use 1-d lists along one axis, a boolean chunkarray.Array of "
                                          "the array's shape, or x.vindex[...]")
            if a.dtype == np.bool_:
                buf = (ctypes.c_bool * max(1, a.size))(*a.tolist())
                r.kind, r.bools, r.nindices = C.IDX_BOOL, buf, a.size
            else:
                buf = (ctypes.c_int64 * max(1, a.size))(*[int(v) for v in a.tolist()])
                r.kind, r.indices, r.nindices = C.IDX_ARRAY, buf, a.size
            self.keep.append(buf)
        return r


def getitem(x, index):
    """NumPy/dask indexing: ints, slices (any step), None, Ellipsis, one integer list/array or
    boolean list/array along an axis, boolean chunkarray Arrays (unknown chunk sizes), 1-d integer
    chunkarray Arrays."""
    if isinstance(index, np.ndarray) and index.dtype == np.bool_ and index.ndim > 1:
        # a NumPy mask over several axes: its true positions as points (known sizes)
        if index.shape != x.shape[:index.ndim]:
            raise IndexError(f"boolean index did not match indexed array: array shape {x.shape}, mask shape "
                             f"{index.shape}")
        return vindex(x, tuple(np.nonzero(index)))
    it = _Items(x, index)
    out = _new(lib().ca_array_getitem, x.handle, it.arr, it.n)
    if it.flip_axes:
        from ._shape import flip
        out = flip(out, it.flip_axes)
    return out


def setitem(x, index, value):
    """x[index] = value as a new array (x itself is not changed here)."""
    L = lib()
    if isinstance(index, np.ndarray) and index.dtype == np.bool_ and index.ndim == x.ndim and x.ndim > 1:
        index = from_array(index, chunks=x.chunks)
    if isinstance(index, Array):
        if index.dtype != np.bool_:
            raise NotImplementedError("x[Array] = v needs a boolean Array (a mask of x's shape)")
        if _is_scalar(value):
            return _new(L.ca_array_mask_set, x.handle, index.handle, _scalar(value))
        from ._api import where
        return where(index, value, x).astype(x.dtype)
    it = _Items(x, index, setitem=True)
    if _is_scalar(value):
        return _new(L.ca_array_setitem_scalar, x.handle, it.arr, it.n, _scalar(value))
    v = value if isinstance(value, Array) else from_array(np.asarray(value), chunks=-1)
    return _new(L.ca_array_setitem, x.handle, it.arr, it.n, v.handle)


def vindex(x, index):
    """Pointwise indexing (dask's x.vindex[...]): integer arrays broadcast against each other; the
    points form the leading axes of the result, whole axes (':' or missing) follow."""
    if not isinstance(index, tuple):
        index = (index,)
    if any(i is None or i is Ellipsis for i in index):
        raise IndexError("vindex does not support None or Ellipsis; use x[...] for basic indexing")
    if len(index) > x.ndim:
        raise IndexError(f"too many indices for array: array is {x.ndim}-dimensional, but {len(index)} were indexed")
    pre = []
    for it in index:  # slices other than ':' are applied first
        pre.append(it if isinstance(it, slice) else slice(None))
    if any(s != slice(None) for s in pre):
        x = getitem(x, tuple(pre))
    arrays = [None if isinstance(it, slice) else np.asarray(it.compute() if isinstance(it, Array) else it)
              for it in index]
    pts = [a for a in arrays if a is not None]
    if not pts:
        return x
    for a in pts:
        if a.dtype.kind not in "iu":
            raise IndexError(f"vindex needs integer indices, got {a.dtype}")
    bshape = np.broadcast_shapes(*[a.shape for a in pts])
    flat = [None if a is None else np.ascontiguousarray(np.broadcast_to(a, bshape).ravel(), dtype=np.int64)
            for a in arrays]
    n = int(np.prod(bshape))
    ptrs = (C.c_i64p * len(flat))(*[None if f is None else f.ctypes.data_as(C.c_i64p) for f in flat])
    out = _new(lib().ca_array_vindex, x.handle, ptrs, len(flat), n)
    del flat
    if len(bshape) != 1:
        out = out.reshape(tuple(bshape) + out.shape[1:])
    return out


class _VIndexer:
    def __init__(self, x):
        self._x = x

    def __getitem__(self, index):
        return vindex(self._x, index)
