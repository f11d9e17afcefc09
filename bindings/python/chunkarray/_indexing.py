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


def _consumes(it):
    """How many of the array's axes an index item consumes."""
    if it is None or it is Ellipsis:
        return 0
    if isinstance(it, (Array, np.ndarray)) and it.dtype == np.bool_:
        return max(it.ndim, 1)
    return 1


def _as_index_array(it):
    """A NumPy index array (integer or boolean) from a list / tuple / ndarray item."""
    a = np.asarray(it)
    if a.dtype == object or a.dtype.kind not in "biu":
        if a.size == 0 and isinstance(it, (list, tuple)):
            return a.astype(np.int64)
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                         f"integer or boolean arrays are valid indices, not {it!r}")
    return a


def _is_array_item(it):
    return not (it is None or it is Ellipsis or isinstance(it, slice) or _is_int(it)
                or (isinstance(it, np.ndarray) and it.ndim == 0 and it.dtype.kind in "iu"))


class _Items:
    """A ca_index_t array built from a Python index, keeping its buffers alive; ``ndims``/``shapes``
    give the shapes of N-d arrays (ca_index_options_t)."""

    def __init__(self, x, index, setitem=False, allow_flip=True):
        if not isinstance(index, tuple):
            index = (index,)
        self.keep = []
        self.flip_axes = []  # output axes to reverse afterwards (see _canonical_slice)
        items = []
        ndims, shapes = [], []
        shape, chunks = x.shape, x.chunks
        n_ell = sum(1 for i in index if i is Ellipsis)
        consumed = sum(_consumes(i) for i in index)
        axis = out_axis = 0
        for it in index:
            if isinstance(it, slice) and axis < len(shape) and shape[axis] == shape[axis]:
                it, flip = _canonical_slice(it, shape[axis], chunks[axis], allow_flip and not setitem)
                if flip:
                    self.flip_axes.append(out_axis)
            item, nd, shp = self._item(x, it, setitem)
            items.append(item)
            ndims.append(nd)
            shapes.append(shp)
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
        self.ndims = (ctypes.c_int32 * max(1, self.n))(*ndims)
        self.shapes = (C.c_i64p * max(1, self.n))(*shapes)

    def options(self, mode):
        return C.IndexOptions(ctypes.sizeof(C.IndexOptions), mode, self.ndims, self.shapes)

    def _item(self, x, it, setitem):
        r = C.Index()
        r.slice.step = 1
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
                    setattr(r.slice, f, v)
                    r.slice.flags |= {"start": C.SLICE_START, "stop": C.SLICE_STOP, "step": C.SLICE_STEP}[f]
        elif isinstance(it, Array):
            if setitem:
                raise NotImplementedError("x[..., chunkarray.Array, ...] = v: only a boolean Array of x's shape "
                                          "(x[mask] = v) is supported")
            if it.dtype == np.bool_:
                r.kind = C.IDX_MASK
            elif it.dtype.kind in "iu":
                if it.ndim != 1:
                    raise NotImplementedError(f"indexing with a {it.ndim}-d integer chunkarray Array (1-d only; "
                                              "compute it to index with NumPy's rules)")
                r.kind = C.IDX_INDEX_ARRAY
            else:
                raise IndexError(f"arrays used as indices must be of integer or boolean type, not {it.dtype}")
            r.array = it.handle
            self.keep.append(it)
        else:
            a = _as_index_array(it)
            if setitem and a.ndim != 1:
                raise NotImplementedError(f"x[{a.ndim}-d array] = v: assignment takes 1-d index lists")
            if a.dtype == np.bool_:
                buf = np.ascontiguousarray(a, dtype=np.bool_).ravel()
                r.kind, r.bools, r.nindices = C.IDX_BOOL, buf.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)), a.size
            else:
                if a.dtype == np.uint64 and a.size and a.max() > np.iinfo(np.int64).max:
                    raise IndexError(f"index {int(a.max())} is out of bounds")
                buf = np.ascontiguousarray(a, dtype=np.int64).ravel()
                r.kind, r.indices, r.nindices = C.IDX_ARRAY, buf.ctypes.data_as(C.c_i64p), a.size
            self.keep.append(buf)
            shp = np.asarray(a.shape, dtype=np.int64)
            self.keep.append(shp)
            return r, a.ndim, shp.ctypes.data_as(C.c_i64p)
        return r, 1, None


def _index(x, index, mode):
    if not isinstance(index, tuple):
        index = (index,)
    arrays = [i for i in index if _is_array_item(i)]
    simple = mode == C.INDEX_NUMPY and (len(arrays) == 0 or (len(arrays) == 1 and (
        isinstance(arrays[0], Array) or np.ndim(arrays[0]) == 1)))
    it = _Items(x, index, allow_flip=simple)
    opts = it.options(mode)
    out = _new(lib().ca_array_index, x.handle, it.arr, it.n, ctypes.byref(opts))
    if it.flip_axes:
        from ._shape import flip
        out = flip(out, it.flip_axes)
    return out


def getitem(x, index):
    """NumPy/dask indexing: ints, slices (any step), None, Ellipsis, integer and boolean arrays of any
    shape with NumPy's broadcasting and axis-order rules, boolean chunkarray Arrays (unknown chunk
    sizes), 1-d integer chunkarray Arrays."""
    return _index(x, index, C.INDEX_NUMPY)


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
    """Pointwise indexing (dask's x.vindex[...]): integer arrays broadcast against each other; their
    dimensions form the leading axes of the result, the sliced axes follow."""
    if not isinstance(index, tuple):
        index = (index,)
    index = tuple(np.asarray(i.compute()) if isinstance(i, Array) else i for i in index)
    return _index(x, index, C.INDEX_VECTORIZED)


def oindex(x, index):
    """Outer (orthogonal) indexing, as zarr's and xarray's: each 1-d integer or boolean array selects
    along its own axis independently (np.ix_); integers drop their axis."""
    return _index(x, index, C.INDEX_OUTER)


class _VIndexer:
    def __init__(self, x):
        self._x = x

    def __getitem__(self, index):
        return vindex(self._x, index)


class _OIndexer:
    def __init__(self, x):
        self._x = x

    def __getitem__(self, index):
        return oindex(self._x, index)
