"""NumPy routines through include/chunkarray/routines.h (NumPy's values, dask's chunks).

Every function here checks and converts its Python arguments and calls one C function; the semantics
(chunks, orders, NaN rules, promotion) live in the library, so the other bindings and a later
``chunkarray.array_api`` get the same results from the same calls.
"""
import ctypes
import numbers

import numpy as np

from . import _lib as C
from ._lib import lib
from .core import (Array, _ca_dtype, _check, _chunks_struct, _i32arr, _i64arr, _is_explicit, _scalar, asarray,
                   normalize_chunks)
from ._shape import concatenate, expand_dims

c_vp = ctypes.c_void_p

_ROUTINES = ["empty_like", "zeros_like", "ones_like", "full_like", "indices", "meshgrid", "broadcast_arrays",
             "tril", "triu", "tril_indices", "tril_indices_from", "triu_indices", "triu_indices_from", "diagonal",
             "sort", "argsort", "unique", "isin", "union1d", "searchsorted", "digitize", "nonzero", "flatnonzero",
             "argwhere", "take", "roll", "rot90", "rollaxis", "dstack", "atleast_3d"]


def _shape_tuple(shape):
    if isinstance(shape, (numbers.Integral, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def _chunks_for(chunks, shape, dtype):
    ch = tuple(tuple(int(x) for x in c) for c in chunks) if _is_explicit(chunks) else normalize_chunks(
        chunks, shape, dtype=dtype)
    return _chunks_struct(ch)


def _many(fn, n, *args):
    """Call fn(out[n], *args) and wrap the n outputs."""
    outs = (c_vp * max(1, n))()
    _check(fn(outs, *args))
    return [Array(outs[i]) for i in range(n)]


def _handles(arrays):
    arrs = [asarray(a) for a in arrays]
    return arrs, (c_vp * max(1, len(arrs)))(*[a.handle for a in arrs])


# ---- creation --------------------------------------------------------------------------------------

def _like(fn, a, dtype, chunks, shape, *value):
    a = asarray(a)
    dt = np.dtype(dtype) if dtype is not None else a.dtype
    opts = C.LikeOptions(ctypes.sizeof(C.LikeOptions), _ca_dtype(dt) if dtype is not None else 0, -1, None, None, 0)
    keep = []
    if shape is not None:
        shape = _shape_tuple(shape)
        sh = _i64arr(shape)
        keep.append(sh)
        opts.ndim, opts.shape = len(shape), ctypes.cast(sh, C.c_i64p)
    if chunks is not None:
        st, k = _chunks_for(chunks, shape if shape is not None else a.shape, dt)
        keep += [st, k]
        opts.chunks = ctypes.pointer(st)
    return Array._new(fn, a, *value, ctypes.byref(opts))


def empty_like(a, dtype=None, order="C", chunks=None, name=None, shape=None):
    """dask.array.empty_like: a's shape, chunks and dtype unless given (contents unspecified)."""
    return _like(lib().ca_array_empty_like, a, dtype, chunks, shape)


def zeros_like(a, dtype=None, order="C", chunks=None, name=None, shape=None):
    """dask.array.zeros_like."""
    return _like(lib().ca_array_zeros_like, a, dtype, chunks, shape)


def ones_like(a, dtype=None, order="C", chunks=None, name=None, shape=None):
    """dask.array.ones_like."""
    return _like(lib().ca_array_ones_like, a, dtype, chunks, shape)


def full_like(a, fill_value, order="C", dtype=None, chunks=None, name=None, shape=None):
    """dask.array.full_like: fill_value (a scalar) cast to the dtype as NumPy does."""
    if np.ndim(fill_value) != 0:
        raise ValueError(f"fill_value must be scalar. Received {type(fill_value).__name__} instead.")
    return _like(lib().ca_array_full_like, a, dtype, chunks, shape, _scalar(fill_value))


def indices(dimensions, dtype=int, chunks="auto"):
    """np.indices with dask's chunks: ((1,) * n, *chunks)."""
    dims = _shape_tuple(dimensions)
    dt = np.dtype(dtype)
    st, keep = _chunks_for(chunks, dims, dt)
    return Array._new(lib().ca_array_indices, len(dims), _i64arr(dims) if dims else None, ctypes.byref(st),
                      _ca_dtype(dt))


def meshgrid(*xi, sparse=False, indexing="xy", **kwargs):
    """np.meshgrid with dask's chunks (a list of arrays)."""
    if "copy" in kwargs:
        raise NotImplementedError("`copy` not supported")
    if kwargs:
        raise TypeError("unsupported keyword argument(s) provided")
    if indexing not in ("ij", "xy"):
        raise ValueError("`indexing` must be `'ij'` or `'xy'`")
    arrs, hs = _handles(xi)
    return _many(lib().ca_array_meshgrid, len(arrs), hs, len(arrs), 0 if indexing == "xy" else 1, int(bool(sparse)))


def broadcast_arrays(*args, subok=False):
    """np.broadcast_arrays with dask's chunks (a list of arrays)."""
    arrs, hs = _handles(args)
    return _many(lib().ca_array_broadcast_arrays, len(arrs), hs, len(arrs))


def tril(m, k=0):
    return Array._new(lib().ca_array_tril, asarray(m), int(k))


def triu(m, k=0):
    return Array._new(lib().ca_array_triu, asarray(m), int(k))


def _tri_indices(fn, n, k, m, chunks):
    m = n if m is None else m
    st, keep = _chunks_for(chunks, (int(n), int(m)), np.dtype(bool))
    rows, cols = c_vp(), c_vp()
    _check(fn(ctypes.byref(rows), ctypes.byref(cols), int(n), int(k), int(m), ctypes.byref(st)))
    return Array(rows.value), Array(cols.value)


def tril_indices(n, k=0, m=None, chunks="auto"):
    """np.tril_indices: (rows, cols), blocks of unknown size (dask: nonzero of a tri mask)."""
    return _tri_indices(lib().ca_array_tril_indices, n, k, m, chunks)


def triu_indices(n, k=0, m=None, chunks="auto"):
    return _tri_indices(lib().ca_array_triu_indices, n, k, m, chunks)


def tril_indices_from(arr, k=0):
    arr = asarray(arr)
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return tril_indices(arr.shape[-2], k=k, m=arr.shape[-1], chunks=arr.chunks)


def triu_indices_from(arr, k=0):
    arr = asarray(arr)
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return triu_indices(arr.shape[-2], k=k, m=arr.shape[-1], chunks=arr.chunks)


def diagonal(a, offset=0, axis1=0, axis2=1):
    return Array._new(lib().ca_array_diagonal, asarray(a), int(offset), int(axis1), int(axis2))


# ---- sorting, sets, searching ---------------------------------------------------------------------

def _sort_args(a, axis):
    a = asarray(a)
    if axis is None:
        from ._shape import ravel
        a, axis = ravel(a), 0
    return a, int(axis)


def sort(a, axis=-1, kind=None, order=None, *, descending=False):
    """np.sort (stable, NaNs last): the axis is made one block, the other axes keep their chunks.
    ``descending``: the stable descending order, NaNs first (the array API's sort)."""
    if order is not None:
        raise NotImplementedError("sort(order=...): structured dtypes are not supported")
    a, axis = _sort_args(a, axis)
    return Array._new(lib().ca_array_sort, a, axis, int(bool(descending)))


def argsort(a, axis=-1, kind=None, order=None, *, descending=False):
    """np.argsort(kind='stable'): int64 indices; see sort."""
    if order is not None:
        raise NotImplementedError("argsort(order=...): structured dtypes are not supported")
    a, axis = _sort_args(a, axis)
    return Array._new(lib().ca_array_argsort, a, axis, int(bool(descending)))


def unique(ar, return_index=False, return_inverse=False, return_counts=False, *, equal_nan=True):
    """np.unique over the flattened array: values (and index, counts) have one block of unknown size;
    the inverse has the raveled array's chunks."""
    a = asarray(ar)
    outs = [c_vp() for _ in range(4)]
    want = [True, return_index, return_inverse, return_counts]
    ptrs = [ctypes.byref(o) if w else None for o, w in zip(outs, want)]
    _check(lib().ca_array_unique(*ptrs, a.handle, 0 if equal_nan else 1))
    res = [Array(o.value) for o, w in zip(outs, want) if w]
    return res[0] if len(res) == 1 else tuple(res)


def isin(element, test_elements, assume_unique=False, invert=False):
    return Array._new(lib().ca_array_isin, asarray(element), asarray(test_elements), int(bool(invert)))


def union1d(ar1, ar2):
    return Array._new(lib().ca_array_union1d, asarray(ar1), asarray(ar2))


def searchsorted(a, v, side="left", sorter=None):
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    s = asarray(sorter) if sorter is not None else None
    return Array._new(lib().ca_array_searchsorted, asarray(a), asarray(v), 0 if side == "left" else 1,
                      s.handle if s is not None else None)


def digitize(a, bins, right=False):
    return Array._new(lib().ca_array_digitize, asarray(a), asarray(bins), int(bool(right)))


def argwhere(a):
    return Array._new(lib().ca_array_argwhere, asarray(a))


def nonzero(a):
    a = asarray(a)
    if a.ndim == 0:
        raise ValueError("nonzero of a 0-d array: use atleast_1d(a).nonzero()")
    return tuple(_many(lib().ca_array_nonzero, a.ndim, a.handle))


def flatnonzero(a):
    return Array._new(lib().ca_array_flatnonzero, asarray(a))


# ---- manipulation ---------------------------------------------------------------------------------

def take(a, indices, axis=0):
    """dask.array.take: a[(slice(None),) * axis + (indices,)]."""
    a = asarray(a)
    if axis is None:
        from ._shape import ravel
        a, axis = ravel(a), 0
    axis = int(axis)
    if axis < -a.ndim or axis >= a.ndim:
        raise np.AxisError(axis, a.ndim)
    axis %= a.ndim
    return a[(slice(None),) * axis + (indices,)]


def roll(array, shift, axis=None):
    a = asarray(array)
    if axis is None:
        if not isinstance(shift, (numbers.Integral, np.integer)):
            raise TypeError("Expect `shift` to be an instance of Integral when `axis` is None.")
        return Array._new(lib().ca_array_roll, a, _i64arr([shift]), None, 1)
    shifts = [int(shift)] if isinstance(shift, (numbers.Integral, np.integer)) else [int(s) for s in shift]
    axes = [int(axis)] if isinstance(axis, (numbers.Integral, np.integer)) else [int(x) for x in axis]
    if len(shifts) != len(axes):
        if len(shifts) == 1:
            shifts = shifts * len(axes)
        elif len(axes) == 1:
            axes = axes * len(shifts)
        else:
            raise ValueError("Must have the same number of shifts as axes.")
    return Array._new(lib().ca_array_roll, a, _i64arr(shifts), _i32arr(axes), len(axes))


def rot90(m, k=1, axes=(0, 1)):
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    return Array._new(lib().ca_array_rot90, asarray(m), int(k), int(axes[0]), int(axes[1]))


def rollaxis(a, axis, start=0):
    return Array._new(lib().ca_array_rollaxis, asarray(a), int(axis), int(start))


def atleast_3d(*arys):
    out = []
    for x in arys:
        x = asarray(x)
        if x.ndim == 0:
            x = expand_dims(x, (0, 1, 2))
        elif x.ndim == 1:
            x = expand_dims(x, (0, 2))
        elif x.ndim == 2:
            x = expand_dims(x, 2)
        out.append(x)
    return out[0] if len(out) == 1 else out


def dstack(tup, allow_unknown_chunksizes=False):
    if isinstance(tup, Array):
        raise NotImplementedError("``dstack`` expects a sequence of arrays as the first argument")
    return concatenate([atleast_3d(x) for x in tup], axis=2)


__all__ = list(_ROUTINES)


def _np_table():
    t = {}
    for n in _ROUTINES:
        f = getattr(np, n, None)
        if f is not None and not n.endswith("_like") and n != "take":  # those: NumPy's signatures (_protocol.py)
            t[f] = globals()[n]
    return t
