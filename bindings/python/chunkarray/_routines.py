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
    """An uninitialized array like ``a`` (``dask.array.empty_like``).

    The C library's ca_array_empty_like with dask's defaults: a's dtype, shape and chunks unless given.
    The contents are unspecified (zeros in practice).

    Parameters
    ----------
    a : Array or array_like
        The template array.
    dtype : dtype, optional
        The result's dtype; None: a's.
    order : str, default "C"
        Accepted for NumPy's signature; ignored (blocks are C-contiguous).
    chunks : chunks, optional
        The result's chunks (explicit, or a spec such as "auto" normalized for the shape); None: a's chunks
        when the shape is a's, dask's "auto" chunks for a new shape.
    name : str, optional
        Accepted for dask's signature; ignored.
    shape : int or tuple of int, optional
        The result's shape; None: a's.

    Returns
    -------
    Array
        The lazy result.
    """
    return _like(lib().ca_array_empty_like, a, dtype, chunks, shape)


def zeros_like(a, dtype=None, order="C", chunks=None, name=None, shape=None):
    """An array of zeros like ``a`` (``dask.array.zeros_like``).

    The C library's ca_array_zeros_like with dask's defaults: a's dtype, shape and chunks unless given.

    Parameters
    ----------
    a : Array or array_like
        The template array.
    dtype : dtype, optional
        The result's dtype; None: a's.
    order : str, default "C"
        Accepted for NumPy's signature; ignored (blocks are C-contiguous).
    chunks : chunks, optional
        The result's chunks (explicit, or a spec such as "auto" normalized for the shape); None: a's chunks
        when the shape is a's, dask's "auto" chunks for a new shape.
    name : str, optional
        Accepted for dask's signature; ignored.
    shape : int or tuple of int, optional
        The result's shape; None: a's.

    Returns
    -------
    Array
        The lazy result.
    """
    return _like(lib().ca_array_zeros_like, a, dtype, chunks, shape)


def ones_like(a, dtype=None, order="C", chunks=None, name=None, shape=None):
    """An array of ones like ``a`` (``dask.array.ones_like``).

    The C library's ca_array_ones_like with dask's defaults: a's dtype, shape and chunks unless given.

    Parameters
    ----------
    a : Array or array_like
        The template array.
    dtype : dtype, optional
        The result's dtype; None: a's.
    order : str, default "C"
        Accepted for NumPy's signature; ignored (blocks are C-contiguous).
    chunks : chunks, optional
        The result's chunks (explicit, or a spec such as "auto" normalized for the shape); None: a's chunks
        when the shape is a's, dask's "auto" chunks for a new shape.
    name : str, optional
        Accepted for dask's signature; ignored.
    shape : int or tuple of int, optional
        The result's shape; None: a's.

    Returns
    -------
    Array
        The lazy result.
    """
    return _like(lib().ca_array_ones_like, a, dtype, chunks, shape)


def full_like(a, fill_value, order="C", dtype=None, chunks=None, name=None, shape=None):
    """An array like ``a`` filled with ``fill_value`` (``dask.array.full_like``).

    The C library's ca_array_full_like with dask's defaults: a's dtype, shape and chunks unless given.

    Parameters
    ----------
    a : Array or array_like
        The template array.
    fill_value : scalar
        The value, converted to the dtype as NumPy's unsafe cast (integers truncate;
        the conversion goes through a double, so integers beyond 2**53 round). A
        non-scalar raises ValueError.
    dtype : dtype, optional
        The result's dtype; None: a's.
    order : str, default "C"
        Accepted for NumPy's signature; ignored (blocks are C-contiguous).
    chunks : chunks, optional
        The result's chunks (explicit, or a spec such as "auto" normalized for the shape); None: a's chunks
        when the shape is a's, dask's "auto" chunks for a new shape.
    name : str, optional
        Accepted for dask's signature; ignored.
    shape : int or tuple of int, optional
        The result's shape; None: a's.

    Returns
    -------
    Array
        The lazy result.
    """
    if np.ndim(fill_value) != 0:
        raise ValueError(f"fill_value must be scalar. Received {type(fill_value).__name__} instead.")
    return _like(lib().ca_array_full_like, a, dtype, chunks, shape, _scalar(fill_value))


def indices(dimensions, dtype=int, chunks="auto"):
    """An array of grid indices (``numpy.indices``) with dask's chunks.

    The shape is ``(len(dimensions), *dimensions)`` and element ``[c, i0, i1, ...]`` is ``i_c``; the chunks
    are ``((1,) * len(dimensions), *chunks)``. Every block is generated from its position (nothing is
    stored).

    Parameters
    ----------
    dimensions : int or sequence of int
        The shape of the grid.
    dtype : dtype, default int
        bool, integer, floating or complex.
    chunks : chunks, default "auto"
        The chunks of the grid (``dimensions``), explicit or a spec for ``normalize_chunks``.

    Returns
    -------
    Array
        The lazy result.
    """
    dims = _shape_tuple(dimensions)
    dt = np.dtype(dtype)
    st, keep = _chunks_for(chunks, dims, dt)
    return Array._new(lib().ca_array_indices, len(dims), _i64arr(dims) if dims else None, ctypes.byref(st),
                      _ca_dtype(dt))


def meshgrid(*xi, sparse=False, indexing="xy", **kwargs):
    """Coordinate arrays from 1-d coordinate vectors (``numpy.meshgrid``) with dask's chunks.

    Each input is raveled and keeps its chunks along its own output axis; the other axes are one block of
    extent 1 (sparse) or the other inputs' chunks (dense, broadcast).

    Parameters
    ----------
    *xi : Array or array_like
        The coordinate vectors (raveled if not 1-d).
    sparse : bool, default False
        Return arrays of extent 1 along the other axes instead of broadcast ones.
    indexing : {"xy", "ij"}, default "xy"
        Cartesian ("xy": the first two output axes swapped) or matrix ("ij") indexing.
    **kwargs
        ``copy`` raises NotImplementedError; any other keyword raises TypeError.

    Returns
    -------
    list of Array
        One array per input.
    """
    if "copy" in kwargs:
        raise NotImplementedError("`copy` not supported")
    if kwargs:
        raise TypeError("unsupported keyword argument(s) provided")
    if indexing not in ("ij", "xy"):
        raise ValueError("`indexing` must be `'ij'` or `'xy'`")
    arrs, hs = _handles(xi)
    return _many(lib().ca_array_meshgrid, len(arrs), hs, len(arrs), 0 if indexing == "xy" else 1, int(bool(sparse)))


def broadcast_arrays(*args, subok=False):
    """Broadcast arrays against each other (``numpy.broadcast_arrays``) with dask's chunks.

    The inputs' chunks are unified along their trailing axes (rechunked to the common refinement where
    they differ), then each is broadcast to the common shape.

    Parameters
    ----------
    *args : Array or array_like
        The arrays.
    subok : bool, default False
        Accepted for NumPy's signature; ignored.

    Returns
    -------
    list of Array
        One array per input, all of the broadcast shape. Shapes that do not broadcast raise ValueError.
    """
    arrs, hs = _handles(args)
    return _many(lib().ca_array_broadcast_arrays, len(arrs), hs, len(arrs))


def tril(m, k=0):
    """The lower triangle of the last two axes (``numpy.tril``); the other elements set to zero.

    dask's method: ``where`` with a triangular mask chunked like m, so the result keeps m's shape, chunks
    and dtype.

    Parameters
    ----------
    m : Array or array_like
        At least 2-d, with known chunk sizes along the last two axes.
    k : int, default 0
        The diagonal bounding the triangle: 0 the main one, k > 0 above it, k < 0 below it.

    Returns
    -------
    Array
        The lazy result.
    """
    return Array._new(lib().ca_array_tril, asarray(m), int(k))


def triu(m, k=0):
    """The upper triangle of the last two axes (``numpy.triu``); the other elements set to zero.

    dask's method: ``where`` with a triangular mask chunked like m, so the result keeps m's shape, chunks
    and dtype.

    Parameters
    ----------
    m : Array or array_like
        At least 2-d, with known chunk sizes along the last two axes.
    k : int, default 0
        The diagonal bounding the triangle: 0 the main one, k > 0 above it, k < 0 below it.

    Returns
    -------
    Array
        The lazy result.
    """
    return Array._new(lib().ca_array_triu, asarray(m), int(k))


def _tri_indices(fn, n, k, m, chunks):
    m = n if m is None else m
    st, keep = _chunks_for(chunks, (int(n), int(m)), np.dtype(bool))
    rows, cols = c_vp(), c_vp()
    _check(fn(ctypes.byref(rows), ctypes.byref(cols), int(n), int(k), int(m), ctypes.byref(st)))
    return Array(rows.value), Array(cols.value)


def tril_indices(n, k=0, m=None, chunks="auto"):
    """The row and column indices of the lower triangle of an (n, m) array (``numpy.tril_indices``).

    dask's method (nonzero of a triangular mask with ``chunks``): both results are int64, in C order, and
    have blocks of unknown size (compute them, or call ``compute_chunk_sizes()``, before operations that
    need sizes).

    Parameters
    ----------
    n : int
        The number of rows.
    k : int, default 0
        The diagonal offset, as in tril.
    m : int, optional
        The number of columns; None: n.
    chunks : chunks, default "auto"
        The chunks of the (n, m) mask, which determine the blocks of the results.

    Returns
    -------
    rows, cols : tuple of Array
        The row indices and the column indices.
    """
    return _tri_indices(lib().ca_array_tril_indices, n, k, m, chunks)


def triu_indices(n, k=0, m=None, chunks="auto"):
    """The row and column indices of the upper triangle of an (n, m) array (``numpy.triu_indices``).

    dask's method (nonzero of a triangular mask with ``chunks``): both results are int64, in C order, and
    have blocks of unknown size (compute them, or call ``compute_chunk_sizes()``, before operations that
    need sizes).

    Parameters
    ----------
    n : int
        The number of rows.
    k : int, default 0
        The diagonal offset, as in triu.
    m : int, optional
        The number of columns; None: n.
    chunks : chunks, default "auto"
        The chunks of the (n, m) mask, which determine the blocks of the results.

    Returns
    -------
    rows, cols : tuple of Array
        The row indices and the column indices.
    """
    return _tri_indices(lib().ca_array_triu_indices, n, k, m, chunks)


def tril_indices_from(arr, k=0):
    """The indices of the lower triangle of a 2-d array (``numpy.tril_indices_from``).

    The same as ``tril_indices(arr.shape[0], k, arr.shape[1], chunks=arr.chunks)``.

    Parameters
    ----------
    arr : Array or array_like
        A 2-d array (only its shape and chunks are used).
    k : int, default 0
        The diagonal offset.

    Returns
    -------
    rows, cols : tuple of Array
        int64 row and column indices, blocks of unknown size.
    """
    arr = asarray(arr)
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return tril_indices(arr.shape[-2], k=k, m=arr.shape[-1], chunks=arr.chunks)


def triu_indices_from(arr, k=0):
    """The indices of the upper triangle of a 2-d array (``numpy.triu_indices_from``).

    The same as ``triu_indices(arr.shape[0], k, arr.shape[1], chunks=arr.chunks)``.

    Parameters
    ----------
    arr : Array or array_like
        A 2-d array (only its shape and chunks are used).
    k : int, default 0
        The diagonal offset.

    Returns
    -------
    rows, cols : tuple of Array
        int64 row and column indices, blocks of unknown size.
    """
    arr = asarray(arr)
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return triu_indices(arr.shape[-2], k=k, m=arr.shape[-1], chunks=arr.chunks)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal of two axes (``numpy.diagonal``) with dask's chunks.

    The other axes keep their order and chunks; the diagonal becomes the last axis, with one block per
    input block it crosses.

    Parameters
    ----------
    a : Array or array_like
        At least 2-d, with known chunk sizes along axis1 and axis2.
    offset : int, default 0
        The diagonal's offset from the main one (positive: above it).
    axis1, axis2 : int, default 0 and 1
        The two axes (distinct) that the diagonal runs along.

    Returns
    -------
    Array
        The lazy result.
    """
    return Array._new(lib().ca_array_diagonal, asarray(a), int(offset), int(axis1), int(axis2))


# ---- sorting, sets, searching ---------------------------------------------------------------------

def _sort_args(a, axis):
    a = asarray(a)
    if axis is None:
        from ._shape import ravel
        a, axis = ravel(a), 0
    return a, int(axis)


def sort(a, axis=-1, kind=None, order=None, *, descending=False):
    """Sort along an axis (``numpy.sort``).

    dask has no general sort: here the sorted axis is rechunked into one block and the other axes keep
    their chunks (each task holds a whole line along the axis). The order is stable, NaNs last (NumPy's).

    Parameters
    ----------
    a : Array or array_like
        The input: bool, integer, floating or complex dtype.
    axis : int or None, default -1
        The axis to sort along; None sorts the flattened array.
    kind : str, optional
        Accepted for NumPy's signature; the sort is always stable.
    order : None
        Structured dtypes are not supported: anything but None raises NotImplementedError.
    descending : bool, default False
        Keyword only: the stable descending order, NaNs first (the array API's ``sort(descending=True)``).

    Returns
    -------
    Array
        The sorted values, a's dtype.
    """
    if order is not None:
        raise NotImplementedError("sort(order=...): structured dtypes are not supported")
    a, axis = _sort_args(a, axis)
    return Array._new(lib().ca_array_sort, a, axis, int(bool(descending)))


def argsort(a, axis=-1, kind=None, order=None, *, descending=False):
    """The indices that sort along an axis (``numpy.argsort(kind='stable')``).

    dask has no general sort: here the sorted axis is rechunked into one block and the other axes keep
    their chunks (each task holds a whole line along the axis). The order is stable, NaNs last (NumPy's).

    Parameters
    ----------
    a : Array or array_like
        The input: bool, integer, floating or complex dtype.
    axis : int or None, default -1
        The axis to sort along; None sorts the flattened array.
    kind : str, optional
        Accepted for NumPy's signature; the sort is always stable.
    order : None
        Structured dtypes are not supported: anything but None raises NotImplementedError.
    descending : bool, default False
        Keyword only: the stable descending order, NaNs first (the array API's ``sort(descending=True)``).

    Returns
    -------
    Array
        int64 indices along the axis.
    """
    if order is not None:
        raise NotImplementedError("argsort(order=...): structured dtypes are not supported")
    a, axis = _sort_args(a, axis)
    return Array._new(lib().ca_array_argsort, a, axis, int(bool(descending)))


def unique(ar, return_index=False, return_inverse=False, return_counts=False, *, equal_nan=True):
    """The sorted unique values of the flattened array (``numpy.unique``).

    The values, the first-occurrence indices and the counts are one block of unknown size each, computed
    by one task over all of ar's blocks (the flattened array is held in memory once); the inverse has the
    raveled array's chunks and is computed block by block.

    Parameters
    ----------
    ar : Array or array_like
        The input (flattened): bool, integer, floating or complex dtype.
    return_index : bool, default False
        Also return the index (int64) of each value's first occurrence in the flattened array.
    return_inverse : bool, default False
        Also return, for each element of the flattened array, the position (int64) of its value among
        the unique values (flattened, as NumPy 1.x returns it).
    return_counts : bool, default False
        Also return how often each value occurs (int64).
    equal_nan : bool, default True
        Keyword only: NaNs collapse into one value; False keeps each NaN as a value of its own (the
        array API's rule).

    Returns
    -------
    Array or tuple of Array
        The unique values alone, or (values, [index], [inverse], [counts]) in that order for the
        requested extras.
    """
    a = asarray(ar)
    outs = [c_vp() for _ in range(4)]
    want = [True, return_index, return_inverse, return_counts]
    ptrs = [ctypes.byref(o) if w else None for o, w in zip(outs, want)]
    _check(lib().ca_array_unique(*ptrs, a.handle, 0 if equal_nan else 1))
    res = [Array(o.value) for o, w in zip(outs, want) if w]
    return res[0] if len(res) == 1 else tuple(res)


def isin(element, test_elements, assume_unique=False, invert=False):
    """Whether each element is in ``test_elements`` (``numpy.isin``).

    ``test_elements`` is flattened into one block and sorted in each task; each element is a binary
    search. NaN is never found.

    Parameters
    ----------
    element : Array or array_like
        The values to look up; the result has their shape and chunks.
    test_elements : Array or array_like
        The values to look for (any shape, flattened).
    assume_unique : bool, default False
        Accepted for NumPy's signature; ignored (the result is the same either way).
    invert : bool, default False
        Return whether each element is *not* in test_elements.

    Returns
    -------
    Array
        A lazy bool array.
    """
    return Array._new(lib().ca_array_isin, asarray(element), asarray(test_elements), int(bool(invert)))


def union1d(ar1, ar2):
    """The sorted unique values of two arrays together (``numpy.union1d``).

    Parameters
    ----------
    ar1, ar2 : Array or array_like
        The inputs (flattened).

    Returns
    -------
    Array
        A 1-d array of one block of unknown size.
    """
    return Array._new(lib().ca_array_union1d, asarray(ar1), asarray(ar2))


def searchsorted(a, v, side="left", sorter=None):
    """Insertion positions that keep a sorted array sorted (``numpy.searchsorted``).

    ``a`` is made one block and read whole by each task; the result has v's chunks.

    Parameters
    ----------
    a : Array or array_like
        1-d, sorted ascending as NumPy sorts (NaNs last), or put in order by ``sorter``.
    v : Array, array_like or scalar
        The values to insert; any shape, also 0-d.
    side : {"left", "right"}, default "left"
        For values equal to elements of a: the position of the first ("left") or after the last ("right").
    sorter : Array or array_like, optional
        A 1-d integer array of a's length: the indices that sort a (an index out of bounds fails the
        compute).

    Returns
    -------
    Array
        int64 positions, v's shape and chunks.
    """
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    s = asarray(sorter) if sorter is not None else None
    return Array._new(lib().ca_array_searchsorted, asarray(a), asarray(v), 0 if side == "left" else 1,
                      s.handle if s is not None else None)


def digitize(a, bins, right=False):
    """The bin index of each value (``numpy.digitize``).

    dask's method (map_blocks over a): the result has a's chunks. The bins are checked when computed (a
    compute with non-monotonic bins fails).

    Parameters
    ----------
    a : Array or array_like
        The values; bool, integer or floating (not complex).
    bins : Array or array_like
        1-d, monotonically increasing or decreasing.
    right : bool, default False
        Whether a bin includes its right edge instead of its left one.

    Returns
    -------
    Array
        int64 indices, a's shape and chunks.
    """
    return Array._new(lib().ca_array_digitize, asarray(a), asarray(bins), int(bool(right)))


def argwhere(a):
    """The indices of the nonzero elements, grouped by element (``numpy.argwhere``).

    dask's chunks: shape (unknown, a.ndim), the indices in C order, one block (of unknown size) per
    block of the raveled a.

    Parameters
    ----------
    a : Array or array_like
        The input, with known chunk sizes.

    Returns
    -------
    Array
        int64, one row per nonzero element.
    """
    return Array._new(lib().ca_array_argwhere, asarray(a))


def nonzero(a):
    """The indices of the nonzero elements, one array per axis (``numpy.nonzero``).

    The columns of argwhere: int64 arrays whose blocks have unknown sizes.

    Parameters
    ----------
    a : Array or array_like
        The input, at least 1-d (a 0-d array raises ValueError, as NumPy's deprecation does).

    Returns
    -------
    tuple of Array
        a.ndim arrays of int64 indices.
    """
    a = asarray(a)
    if a.ndim == 0:
        raise ValueError("nonzero of a 0-d array: use atleast_1d(a).nonzero()")
    return tuple(_many(lib().ca_array_nonzero, a.ndim, a.handle))


def flatnonzero(a):
    """The positions of the nonzero elements in the raveled array (``numpy.flatnonzero``).

    Parameters
    ----------
    a : Array or array_like
        The input, with known chunk sizes.

    Returns
    -------
    Array
        1-d int64, blocks of unknown size.
    """
    return Array._new(lib().ca_array_flatnonzero, asarray(a))


# ---- manipulation ---------------------------------------------------------------------------------

def take(a, indices, axis=0):
    """Take elements along an axis (``dask.array.take``): ``a[(slice(None),) * axis + (indices,)]``.

    Parameters
    ----------
    a : Array or array_like
        The input.
    indices : int, array_like or Array
        The indices along ``axis``, anything that indexing accepts there (negative counts from the end).
    axis : int or None, default 0
        The axis; None takes from the flattened array.

    Returns
    -------
    Array
        The lazy result (the chunks are the indexing's).
    """
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
    """Roll elements along axes (``numpy.roll``), as dask: per axis, two slices concatenated.

    Parameters
    ----------
    array : Array or array_like
        The input.
    shift : int or sequence of int
        The shifts (any sign and size), one per axis; a single shift applies to every axis given, and a
        single axis takes every shift in turn.
    axis : int, sequence of int or None, default None
        The axes; None rolls the flattened array by ``shift`` (then an int) and restores the shape.

    Returns
    -------
    Array
        The lazy result, array's shape.
    """
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
    """Rotate by 90 degrees in the plane of two axes (``numpy.rot90``), as dask: flips and a transpose.

    Parameters
    ----------
    m : Array or array_like
        At least 2-d.
    k : int, default 1
        The number of quarter turns (negative: clockwise), taken modulo 4.
    axes : pair of int, default (0, 1)
        The plane: the rotation goes from the first axis toward the second.

    Returns
    -------
    Array
        The lazy result.
    """
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    return Array._new(lib().ca_array_rot90, asarray(m), int(k), int(axes[0]), int(axes[1]))


def rollaxis(a, axis, start=0):
    """Move an axis to a position (``numpy.rollaxis``; prefer ``moveaxis``).

    Parameters
    ----------
    a : Array or array_like
        The input.
    axis : int
        The axis to move.
    start : int, default 0
        The axis is moved to lie before the axis that is now at ``start``.

    Returns
    -------
    Array
        The lazy result (a view-like reordering; the chunks move with their axes).
    """
    return Array._new(lib().ca_array_rollaxis, asarray(a), int(axis), int(start))


def atleast_3d(*arys):
    """Arrays with at least three dimensions (``numpy.atleast_3d``).

    0-d becomes (1, 1, 1), 1-d (N,) becomes (1, N, 1), 2-d (M, N) becomes (M, N, 1); arrays of three
    or more dimensions are returned as they are.

    Parameters
    ----------
    *arys : Array or array_like
        The inputs.

    Returns
    -------
    Array or list of Array
        One array for one input, otherwise a list.
    """
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
    """Stack arrays depthwise, along the third axis (``numpy.dstack``).

    Each input goes through atleast_3d, then the results are concatenated along axis 2.

    Parameters
    ----------
    tup : sequence of Array or array_like
        The arrays (a single Array raises NotImplementedError, as dask's).
    allow_unknown_chunksizes : bool, default False
        Accepted for dask's signature; ignored.

    Returns
    -------
    Array
        The lazy result.
    """
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
