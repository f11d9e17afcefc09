"""The rest of dask.array's top-level surface (issue 16) and the Array methods that go with it.

Array logic lives in the C library: insert, delete, choose, select, coarsen, ravel_multi_index,
unravel_index, histogramdd and histogram2d call include/chunkarray/routines.h (ca_array_insert,
ca_array_delete, ca_array_choose, ca_array_select, ca_array_coarsen, ca_array_ravel_multi_index,
ca_array_unravel_index, ca_array_histogramdd). The others
compose existing calls the way dask composes them (append = concatenate, compress = indexing, vdot =
dot of raveled arrays) or, where dask applies a NumPy or user function block by block
(apply_along_axis, piecewise, frompyfunc, coarsen with a Python reduction), do the same
with map_blocks, so the values are NumPy's and the chunks dask's.
"""
import ctypes
import numbers
import os

import numpy as np

from . import _codes as C
from . import core
from ._lib import lib
from .core import Array, _check, _i64arr, _scalar, asarray

c_vp = ctypes.c_void_p

__all__ = ["append", "apply_along_axis", "apply_over_axes", "array", "as_gufunc", "asanyarray", "choose", "coarsen",
           "compress", "delete", "extract", "from_npy_stack", "from_hdf5", "fromfunction", "frompyfunc", "gufunc", "histogram2d",
           "histogramdd", "insert", "ndim", "piecewise", "ravel_multi_index", "result_type", "select", "shape",
           "to_npy_stack", "to_hdf5", "to_zarr", "unravel_index", "vdot", "BlockView"]


def _handles(arrays):
    return (c_vp * max(1, len(arrays)))(*[a.handle for a in arrays])


def _axis_extent(a, axis):
    if not -a.ndim <= axis < a.ndim:
        raise np.AxisError(axis, a.ndim)
    return axis % a.ndim


# ---- creation ---------------------------------------------------------------------------------------

def array(x, dtype=None, ndmin=None, *, like=None):
    """An Array from array-like data (``dask.array.array``).

    Parameters
    ----------
    x : array_like
        The data (an Array is returned as it is, or cast).
    dtype : dtype, optional
        The result's dtype.
    ndmin : int, optional
        Leading axes of length 1 are added up to this many dimensions.
    like : object, optional
        NumPy's; only None is supported.

    Returns
    -------
    Array
        The array.
    """
    if like is not None:
        raise NotImplementedError("array(like=...): chunkarray blocks are NumPy arrays")
    x = asarray(x, dtype=dtype)
    if ndmin is not None and x.ndim < ndmin:
        x = x[(None,) * (ndmin - x.ndim)]
    return x


def asanyarray(a, dtype=None, order=None, *, like=None, inline_array=False):
    """An Array from array-like data (``dask.array.asanyarray``; blocks are NumPy arrays, so as asarray).

    Parameters
    ----------
    a : array_like
        The data.
    dtype : dtype, optional
        The result's dtype.
    order : {None, 'C'}, optional
        Only C order.
    like : object, optional
        Only None.
    inline_array : bool, default False
        dask's; ignored.

    Returns
    -------
    Array
        The array.
    """
    if like is not None:
        raise NotImplementedError("asanyarray(like=...): chunkarray blocks are NumPy arrays")
    if order not in (None, "C", "K", "A"):
        raise NotImplementedError(f"asanyarray(order={order!r}): chunkarray arrays are C ordered")
    return asarray(a, dtype=dtype)


def fromfunction(func, chunks="auto", shape=None, dtype=None, **kwargs):
    """An array whose element at each index is ``func(*index)`` (``dask.array.fromfunction``).

    As dask: each block calls ``func`` once with the coordinate arrays of the block (NumPy's
    ``fromfunction`` calls it with the whole coordinate arrays), so ``func`` must be vectorized.

    Parameters
    ----------
    func : callable
        Called with one coordinate array per axis (of ``dtype``) and ``kwargs``.
    chunks : chunks, default "auto"
        The result's chunks.
    shape : tuple of int
        The result's shape.
    dtype : dtype, default float
        The coordinates' dtype; the result's is func's.
    **kwargs
        Passed to ``func``.

    Returns
    -------
    Array
        The lazy result.
    """
    from ._routines import meshgrid
    if shape is None:
        raise TypeError("fromfunction() requires shape=")
    shape = tuple(int(s) for s in shape)
    dtype = np.dtype(dtype or float)
    ch = core.normalize_chunks(chunks, shape, dtype=dtype)
    axes = [core.arange(s, chunks=(c,), dtype=dtype) for s, c in zip(shape, ch)]
    grids = meshgrid(*axes, indexing="ij") if shape else []
    sample = func(*[np.zeros((1,) * len(shape), dtype) for _ in shape], **kwargs)
    out_dt = np.asarray(sample).dtype
    if not shape:
        return asarray(np.asarray(func(**kwargs)))
    return core.map_blocks(lambda *blocks: np.broadcast_to(func(*blocks, **kwargs), blocks[0].shape),
                           *grids, dtype=out_dt)


class _PyUfunc:
    """A NumPy ``frompyfunc`` ufunc applied block by block (see frompyfunc)."""

    def __init__(self, func, nin, nout, dtype):
        self._uf = np.frompyfunc(func, nin, nout)
        self._func, self.nin, self.nout, self._dtype = func, nin, nout, dtype
        self.__name__ = getattr(func, "__name__", "pyfunc")
        self.__doc__ = f"{self.__name__} applied elementwise (chunkarray.frompyfunc)."

    def _out_dtypes(self, arrays):
        if self._dtype is not None:
            d = self._dtype if isinstance(self._dtype, (list, tuple)) else [self._dtype] * self.nout
            return [np.dtype(x) for x in d]
        r = self._func(*[a.dtype.type(1) for a in arrays])
        r = r if self.nout > 1 else (r,)
        return [np.asarray(v).dtype for v in r]

    def __call__(self, *args):
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}: expected {self.nin} arguments, got {len(args)}")
        arrays = [asarray(a) for a in args]
        dts = self._out_dtypes(arrays)
        outs = []
        for i, dt in enumerate(dts):
            def one(*blocks, _i=i, _dt=dt):
                r = self._uf(*blocks)
                r = r[_i] if self.nout > 1 else r
                return np.asarray(r).astype(_dt)
            outs.append(core.elemwise(one, *arrays, dtype=dt))
        return tuple(outs) if self.nout > 1 else outs[0]


def frompyfunc(func, nin, nout, dtype=None):
    """A ufunc-like callable from a Python function (``dask.array.frompyfunc``).

    Each block goes through ``numpy.frompyfunc(func, nin, nout)``. chunkarray blocks cannot hold Python
    objects, so the results (NumPy gives object arrays) are converted to ``dtype``: by default the
    dtype of ``func``'s result on ones of the inputs' dtypes.

    Parameters
    ----------
    func : callable
        A function of ``nin`` scalars returning one value, or a tuple of ``nout`` values.
    nin : int
        The number of inputs.
    nout : int
        The number of outputs.
    dtype : dtype or list of dtypes, optional
        The outputs' dtypes.

    Returns
    -------
    callable
        Called with ``nin`` arrays (broadcast together), it returns an Array (a tuple for nout > 1).
    """
    return _PyUfunc(func, int(nin), int(nout), dtype)


# ---- manipulation -----------------------------------------------------------------------------------

def append(arr, values, axis=None):
    """Values appended to the end of an array (``dask.array.append``: a concatenate).

    Parameters
    ----------
    arr : Array or array_like
        The array.
    values : Array or array_like
        The values; with ``axis`` they have arr's shape except along the axis.
    axis : int, optional
        None: both are raveled.

    Returns
    -------
    Array
        The lazy result.
    """
    from ._shape import concatenate
    arr = asarray(arr)
    values = asarray(values)
    if axis is None:
        if arr.ndim != 1:
            arr = arr.ravel()
        values = values.ravel()
        axis = arr.ndim - 1
    return concatenate((arr, values), axis=axis)


def _positions(obj, extent, name):
    if isinstance(obj, slice):
        return np.arange(*obj.indices(extent), dtype=np.int64), False
    if isinstance(obj, Array):
        obj = obj.compute()
    idx = np.asarray(obj)
    if idx.dtype == bool:
        if idx.shape != (extent,):
            raise ValueError(f"boolean array argument obj to {name} must be one dimensional and match the axis "
                             f"length of {extent}")
        return np.flatnonzero(idx).astype(np.int64), False
    if idx.size == 0 and not isinstance(obj, np.ndarray):
        idx = idx.astype(np.int64)
    if not np.issubdtype(idx.dtype, np.integer):
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    if idx.ndim > 1:
        raise ValueError(f"index array argument obj to {name} must be one dimensional or scalar")
    return idx.astype(np.int64).reshape(-1), idx.ndim == 0


def insert(arr, obj, values, axis=None):
    """Values inserted before given positions (``dask.array.insert``; the C library's ca_array_insert).

    NumPy's values, dask's chunks. Unlike dask, positions need not be sorted (NumPy's order).

    Parameters
    ----------
    arr : Array or array_like
        The array.
    obj : int, slice or sequence of int
        The positions (before which the values go).
    values : Array or array_like
        The values, cast to arr's dtype and broadcast as NumPy does.
    axis : int or None, optional
        The axis; None (NumPy's default; dask requires an axis): arr is raveled.

    Returns
    -------
    Array
        The lazy result.
    """
    arr = asarray(arr)
    if axis is None:
        arr, axis = arr.ravel(), 0
    axis = _axis_extent(arr, int(axis))
    pos, scalar = _positions(obj, arr.shape[axis], "insert")
    values = values if isinstance(values, Array) else asarray(np.asarray(values, dtype=arr.dtype))
    if pos.size == 1:  # NumPy: the values as a block at one position
        if values.ndim < arr.ndim:
            values = values[(None,) * (arr.ndim - values.ndim)]
        if scalar:
            values = _moveaxis(values, 0, axis)
        pos = np.full(values.shape[axis], pos[0], dtype=np.int64)
    p = _i64arr(pos)
    return Array._new(lib().ca_array_insert, arr, p, pos.size, values, axis)


def _moveaxis(x, src, dst):
    from ._shape import moveaxis
    return moveaxis(x, src, dst)


def delete(arr, obj, axis=None):
    """Elements removed at given positions (``dask.array.delete``; the C library's ca_array_delete).

    Parameters
    ----------
    arr : Array or array_like
        The array.
    obj : int, slice, sequence of int or boolean mask
        The positions to remove.
    axis : int or None, optional
        The axis; None (NumPy's default; dask requires an axis): arr is raveled.

    Returns
    -------
    Array
        The lazy result (dask's chunks).
    """
    arr = asarray(arr)
    if axis is None:
        arr, axis = arr.ravel(), 0
    axis = _axis_extent(arr, int(axis))
    pos, _ = _positions(obj, arr.shape[axis], "delete")
    return Array._new(lib().ca_array_delete, arr, _i64arr(pos), pos.size, axis)


def compress(condition, a, axis=None):
    """The slices of ``a`` along an axis where ``condition`` is true (``dask.array.compress``).

    A condition shorter than the axis counts as false beyond its end. A NumPy condition gives known
    chunks; an Array condition unknown (nan) chunk sizes, as in dask.

    Parameters
    ----------
    condition : 1-d array_like of bool
        The selection.
    a : Array or array_like
        The array.
    axis : int, optional
        None: a is raveled.

    Returns
    -------
    Array
        The lazy result.
    """
    a = asarray(a)
    if not isinstance(condition, Array):
        condition = np.asarray(condition)
    condition = condition.astype(bool)
    if condition.ndim != 1:
        raise ValueError("Condition must be one dimensional")
    if axis is None:
        a, axis = a.ravel(), 0
    axis = _axis_extent(a, int(axis))
    n = condition.shape[0]
    if n > a.shape[axis]:
        raise IndexError(f"index {n - 1} is out of bounds for axis {axis} with size {a.shape[axis]}")
    pre = (slice(None),) * axis
    a = a[pre + (slice(None, n),)]
    return a[pre + (condition,)]


def extract(condition, arr):
    """The elements of ``arr`` where ``condition`` is true, raveled (``dask.array.extract``).

    Parameters
    ----------
    condition : array_like
        Nonzero where an element is taken; arr's size.
    arr : Array or array_like
        The array.

    Returns
    -------
    Array
        The lazy 1-d result.
    """
    if not isinstance(condition, Array):
        condition = np.asarray(condition)
    condition = condition.astype(bool)
    return compress(condition.ravel(), asarray(arr).ravel())


def choose(a, choices, out=None, mode="raise"):
    """Elements taken from a list of arrays by index (``numpy.choose``; the C library's ca_array_choose).

    Parameters
    ----------
    a : Array or array_like of int
        Which choice each element comes from.
    choices : sequence of array_like
        The arrays, broadcast together with ``a``.
    out : None
        Only None.
    mode : {'raise', 'wrap', 'clip'}, default 'raise'
        Indices outside [0, n): fail the compute, taken modulo n, or clipped.

    Returns
    -------
    Array
        The lazy result in the choices' common dtype.
    """
    if out is not None:
        raise NotImplementedError("choose(out=...): chunkarray arrays are immutable")
    modes = {"raise": 0, "wrap": 1, "clip": 2}
    if mode not in modes:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    a = asarray(a)
    if isinstance(choices, Array):
        choices = [choices[i] for i in range(choices.shape[0])]
    cs = [asarray(c) for c in choices]
    return Array._new(lib().ca_array_choose, a, _handles(cs), len(cs), modes[mode])


def select(condlist, choicelist, default=0):
    """Elements from the choice of the first true condition (``dask.array.select``; ca_array_select).

    One fused elementwise expression. The conditions must be boolean.

    Parameters
    ----------
    condlist : sequence of array_like of bool
        The conditions.
    choicelist : sequence of array_like
        The choices, one per condition.
    default : scalar or array_like, default 0
        Where no condition is true.

    Returns
    -------
    Array
        The lazy result (NumPy's result_type of the choices and the default).
    """
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    conds = [asarray(c) for c in condlist]
    choices = [asarray(c) for c in choicelist]
    if np.ndim(default) != 0 or isinstance(default, Array):
        default = asarray(default)
        conds.append(asarray(np.ones((), bool)))
        choices.append(default)
        default = np.zeros((), default.dtype)[()]
    return Array._new(lib().ca_array_select, _handles(conds), _handles(choices), len(conds), _scalar(default))


_COARSEN_CODES = {}


def _coarsen_code(reduction):
    if not _COARSEN_CODES:
        from . import _api
        for name, code in (("sum", C.CA_RED_SUM), ("prod", C.CA_RED_PROD), ("mean", C.CA_RED_MEAN),
                           ("var", C.CA_RED_VAR), ("std", C.CA_RED_STD), ("min", C.CA_RED_MIN),
                           ("max", C.CA_RED_MAX), ("amin", C.CA_RED_MIN), ("amax", C.CA_RED_MAX),
                           ("any", C.CA_RED_ANY), ("all", C.CA_RED_ALL), ("nansum", C.CA_RED_NANSUM),
                           ("nanprod", C.CA_RED_NANPROD), ("nanmean", C.CA_RED_NANMEAN),
                           ("nanvar", C.CA_RED_NANVAR), ("nanstd", C.CA_RED_NANSTD),
                           ("nanmin", C.CA_RED_NANMIN), ("nanmax", C.CA_RED_NANMAX)):
            for mod in (np, _api):
                f = getattr(mod, name, None)
                if f is not None:
                    _COARSEN_CODES[f] = code
    try:
        return _COARSEN_CODES.get(reduction)
    except TypeError:
        return None


def coarsen(reduction, x, axes, trim_excess=False, **kwargs):
    """A reduction over non-overlapping windows (``dask.array.coarsen``).

    NumPy's builtin reductions (np.sum, np.mean, np.min, np.max, np.prod, np.any, np.all, np.var,
    np.std and their nan-versions, or chunkarray's) run in the C library (ca_array_coarsen: the chunks
    aligned to the factors as dask aligns them, then a reshape and a builtin reduction); any other
    callable runs on each block as dask's ``chunk.coarsen`` does.

    Parameters
    ----------
    reduction : callable
        ``reduction(block, axis=tuple)``.
    x : Array or array_like
        The array.
    axes : dict
        ``{axis: factor}``.
    trim_excess : bool, default False
        Drop the excess at the end of an axis that is not a multiple of its factor (else ValueError).
    **kwargs
        Passed to a Python reduction.

    Returns
    -------
    Array
        The lazy result with dask's chunks.
    """
    x = asarray(x)
    factors = [1] * x.ndim
    for ax, f in dict(axes).items():
        factors[_axis_extent(x, int(ax))] = int(f)
    code = None if kwargs else _coarsen_code(reduction)
    if code is not None:
        return Array._new(lib().ca_array_coarsen, code, x, _i64arr(factors), int(bool(trim_excess)))
    if not trim_excess and not all(x.shape[i] % f == 0 for i, f in enumerate(factors)):
        raise ValueError(f"Coarsening factors {dict(axes)} do not align with array shape {x.shape}.")
    new = tuple(_aligned(c, f) if f > 1 else c for c, f in zip(x.chunks, factors))
    if new != x.chunks:
        x = x.rechunk(new)
    out_chunks = tuple(tuple(int(b // f) for b in bd) for bd, f in zip(x.chunks, factors))

    def block(b):
        if not all(d // f for d, f in zip(b.shape, factors)):  # an empty result: the reduction is not called
            return np.zeros(tuple(d // f for d, f in zip(b.shape, factors)), dt)
        if trim_excess:
            b = b[tuple(slice(0, d - d % f) for d, f in zip(b.shape, factors))]
        shp = sum(((d // f, f) for d, f in zip(b.shape, factors)), ())
        return reduction(b.reshape(shp), axis=tuple(range(1, 2 * b.ndim, 2)), **kwargs)
    dt = np.asarray(reduction(np.ones((1,) * (2 * x.ndim), x.dtype), axis=tuple(range(1, 2 * x.ndim, 2)),
                              **kwargs)).dtype
    return core.map_blocks(block, x, dtype=dt, chunks=out_chunks)


def _aligned(chunks, multiple):
    """dask's aligned_coarsen_chunks (the C library's rule, for Python reductions)."""
    c = np.asarray(chunks, dtype=np.int64)
    over = c % multiple
    new = c - over
    excess = int(over.sum())
    valid = np.flatnonzero(new == c)
    invalid = np.flatnonzero(new != c)
    order = [*invalid[np.argsort(new[invalid], kind="stable")], *valid[np.argsort(new[valid], kind="stable")]]
    for i in range(excess // multiple):
        new[order[i]] += multiple
    out = [*new.tolist(), *([excess % multiple] if excess % multiple else [])]
    return tuple(int(v) for v in out if v > 0)


def apply_along_axis(func1d, axis, arr, *args, dtype=None, shape=None, **kwargs):
    """``func1d`` applied to 1-d slices along an axis (``dask.array.apply_along_axis``).

    As dask: the axis is rechunked into one block and each block runs ``numpy.apply_along_axis``;
    the axis is replaced by ``shape`` (func1d's result shape).

    Parameters
    ----------
    func1d : callable
        ``func1d(1-d ndarray, *args, **kwargs)``.
    axis : int
        The axis.
    arr : Array or array_like
        The array.
    *args
        Passed to func1d.
    dtype : dtype, optional
        The result's dtype; default: func1d's on a test array of one element.
    shape : tuple, optional
        func1d's result shape; default: from the same test (on ones of the axis' length, where dask
        uses one element).
    **kwargs
        Passed to func1d.

    Returns
    -------
    Array
        The lazy result.
    """
    arr = asarray(arr)
    axis = _axis_extent(arr, int(axis))
    if shape is None or dtype is None:
        # dask tries a slice of length 1, which gets the shape wrong for length-dependent functions
        # (cumsum, sort, ...); a slice of the axis' real length gets it right
        test = np.array(func1d(np.ones((max(1, arr.shape[axis]),), dtype=arr.dtype), *args, **kwargs))
        shape = test.shape if shape is None else shape
        dtype = test.dtype if dtype is None else dtype
    shape = tuple(shape)
    arr = arr.rechunk(arr.chunks[:axis] + ((arr.shape[axis],),) + arr.chunks[axis + 1:])
    chunks = arr.chunks[:axis] + tuple((s,) for s in shape) + arr.chunks[axis + 1:]

    def block(b):
        return np.apply_along_axis(func1d, axis, b, *args, **kwargs).astype(dtype, copy=False)
    if len(shape) == 1:
        return core.map_blocks(block, arr, dtype=dtype, chunks=chunks)
    if len(shape) == 0:
        return core.map_blocks(block, arr, dtype=dtype, chunks=chunks, drop_axis=axis)
    # the axis (one block) becomes the first of func1d's axes, the others are new
    return core.map_blocks(block, arr, dtype=dtype, chunks=chunks, new_axis=list(range(axis + 1, axis + len(shape))))


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` applied over several axes in turn, keeping the dimensions (``apply_over_axes``).

    Parameters
    ----------
    func : callable
        ``func(array, axis)`` returning an array of the same or one fewer dimension.
    a : Array or array_like
        The array.
    axes : int or sequence of int
        The axes, in order.

    Returns
    -------
    Array
        The result, with a's number of dimensions.
    """
    a = asarray(a)
    try:
        axes = tuple(axes)
    except TypeError:
        axes = (axes,)
    sl = a.ndim * (slice(None),)
    result = a
    for i in axes:
        result = func(result, i)
        if result.ndim == a.ndim - 1:
            result = result[sl[:i] + (None,)]
        elif result.ndim != a.ndim:
            raise ValueError("func must either preserve dimensionality of the input or reduce it by one.")
    return result


def piecewise(x, condlist, funclist, *args, **kw):
    """A piecewise-defined function (``dask.array.piecewise``: ``numpy.piecewise`` on each block).

    Parameters
    ----------
    x : Array or array_like
        The domain.
    condlist : list of array_like of bool
        The conditions, x's shape (aligned block by block).
    funclist : list of callables or scalars
        One per condition (and optionally one more for where none holds).
    *args
        Passed to the functions.
    **kw
        Passed to the functions.

    Returns
    -------
    Array
        The lazy result in x's dtype.
    """
    x = asarray(x)
    conds = [asarray(c) for c in condlist]
    n = len(conds)

    def block(xb, *cb):
        return np.piecewise(xb, list(cb), funclist, *args, **kw)
    return core.map_blocks(block, x, *conds, dtype=x.dtype) if n else core.map_blocks(
        lambda xb: np.piecewise(xb, [], funclist, *args, **kw), x, dtype=x.dtype)


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """Flat indices from arrays of coordinates (``dask.array.ravel_multi_index``; ca_array_ravel_multi_index).

    Parameters
    ----------
    multi_index : Array or sequence of array_like
        An (ndim, ...) integer array, or one integer array per dimension (broadcast together).
    dims : int or tuple of int
        The shape the indices refer to (not an Array).
    mode : str or tuple of str, default 'raise'
        NumPy's, per dimension or for all: 'raise' (fails the compute), 'wrap' or 'clip'.
    order : {'C', 'F'}, default 'C'
        Row- or column-major.

    Returns
    -------
    Array
        The lazy int64 flat indices (the coordinates' broadcast shape and chunks).
    """
    if np.isscalar(dims):
        dims = (dims,)
    if isinstance(dims, Array) or any(isinstance(d, Array) for d in dims):
        raise NotImplementedError(f"Array types are not supported in the `dims` argument: {dims!r}")
    dims = tuple(int(d) for d in dims)
    if isinstance(multi_index, (Array, np.ndarray)):
        stackd = asarray(multi_index)
        coords = [stackd[i] for i in builtins_range(stackd.shape[0])] if stackd.ndim else [stackd]
    else:
        coords = [asarray(m) for m in multi_index]
    if len(coords) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    if any(not np.issubdtype(c.dtype, np.integer) for c in coords):
        raise TypeError("only int indices permitted")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    codes = {"raise": 0, "wrap": 1, "clip": 2}
    if len(modes) != len(dims) or any(m not in codes for m in modes):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' for each dimension (got {mode!r})")
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    m = (ctypes.c_int32 * len(dims))(*[codes[x] for x in modes])
    return Array._new(lib().ca_array_ravel_multi_index, _handles(coords), len(coords), _i64arr(dims), m,
                      int(order == "F"))


def unravel_index(indices, shape, order="C"):
    """Coordinate arrays from flat indices (``dask.array.unravel_index``; ca_array_unravel_index).

    Parameters
    ----------
    indices : Array or array_like of int
        Flat indices into an array of ``shape``.
    shape : tuple of int
        The shape.
    order : {'C', 'F'}, default 'C'
        Row- or column-major.

    Returns
    -------
    tuple of Array
        One lazy int64 array per dimension of ``shape``, each with the indices' shape and chunks
        (an index out of bounds fails the compute).
    """
    indices = asarray(indices)
    shape = tuple(int(s) for s in (shape if np.ndim(shape) else (shape,)))
    if not np.issubdtype(indices.dtype, np.integer):
        raise TypeError("only int indices permitted")
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    if not shape:
        if indices.size:
            np.unravel_index(np.zeros((), np.int64), shape)  # NumPy's error for () with indices
        return ()
    outs = (c_vp * len(shape))()
    _check(lib().ca_array_unravel_index(outs, indices.handle, _i64arr(shape), len(shape), int(order == "F")))
    return tuple(Array(outs[i]) for i in builtins_range(len(shape)))


def vdot(a, b):
    """The dot product of two arrays, flattened, the first conjugated (``dask.array.vdot``).

    Parameters
    ----------
    a, b : Array or array_like
        Arrays of the same size.

    Returns
    -------
    Array
        The lazy 0-d result.
    """
    from .linalg import dot
    return dot(asarray(a).conj().ravel(), asarray(b).ravel())


def shape(array):
    """The shape of an array (``numpy.shape``).

    Parameters
    ----------
    array : array_like
        An Array, a NumPy array or nested sequences.

    Returns
    -------
    tuple
        The shape (nan for unknown chunk sizes).
    """
    return array.shape if isinstance(array, Array) else np.shape(array)


def ndim(array):
    """The number of dimensions of an array (``numpy.ndim``).

    Parameters
    ----------
    array : array_like
        An Array, a NumPy array or nested sequences.

    Returns
    -------
    int
        The number of dimensions.
    """
    return array.ndim if isinstance(array, Array) else np.ndim(array)


def result_type(*args):
    """NumPy's result_type with Arrays counting by their dtype (``dask.array.result_type``).

    Parameters
    ----------
    *args
        Arrays, dtypes and scalars (scalars by value, as NumPy 1.x).

    Returns
    -------
    numpy.dtype
        The promoted dtype.
    """
    return np.result_type(*[a.dtype if isinstance(a, Array) else a for a in args])


# ---- statistics -------------------------------------------------------------------------------------

def _dd_specs(bins, rng, d):
    """Per dimension: the ca_array_histogramdd bins spec and the edges to return (None: the C library's)."""
    if isinstance(bins, (numbers.Integral, np.integer)):
        bins = [bins] * d
    if len(bins) != d:
        raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    if rng is None:
        rng = [None] * d
    if len(rng) != d:
        raise ValueError("range argument requires one entry, a min max pair, per dimension.")
    specs, given = [], []
    for i, b in enumerate(bins):
        if isinstance(b, (numbers.Integral, np.integer)):
            if rng[i] is None:
                raise _RangeRequired("Histogram with an integer number of bins requires a range (the edges are not "
                                     "computed from the data)")
            if b < 1:
                raise ValueError(f"`bins[{i}]` must be positive, when an integer")
            specs.append(("n", int(b), rng[i][0], rng[i][1]))
            given.append(None)
        else:
            e = b if isinstance(b, Array) else np.asarray(b)
            if e.ndim != 1:
                raise ValueError(f"`bins[{i}]` must be a scalar or 1d array")
            if not isinstance(e, Array) and np.any(e[:-1] > e[1:]):
                raise ValueError(f"`bins[{i}]` must be monotonically increasing, when an array")
            specs.append(("e", e if isinstance(e, Array) else asarray(e)))
            given.append(e)
    return specs, given


class _RangeRequired(ValueError):
    pass


def histogramdd(sample, bins, range=None, normed=None, weights=None, density=None):
    """A multidimensional histogram (``dask.array.histogramdd``).

    The C library counts (ca_array_histogramdd): one task per block of points places each point with
    ``numpy.histogramdd``'s rule (the expressions producing the coordinates evaluated inside the task),
    a tree reduction sums the partial histograms; the result is one block, as dask's.

    Parameters
    ----------
    sample : Array of shape (N, D), or sequence of D 1-d arrays
        The points.
    bins : int, sequence of int, or sequence of edge arrays
        Per dimension: a number of bins (with ``range``) or the edges.
    range : sequence of (float, float), optional
        Per dimension, the outer edges (required for a number of bins).
    normed : None
        Deprecated by NumPy; use density.
    weights : Array or array_like, optional
        One weight per point (N,).
    density : bool, optional
        The density instead of the counts.

    Returns
    -------
    hist : Array
        The lazy D-dimensional counts.
    edges : list of numpy.ndarray
        The edges per dimension.
    """
    from ._stats import _histogram_c
    if normed is not None:
        raise ValueError("The normed= keyword argument has been deprecated. Please use density instead.")
    if isinstance(sample, (list, tuple)):
        cols = [asarray(s) for s in sample]
        if len({c.shape for c in cols}) > 1:
            raise ValueError("All coordinate arrays must have the same shape")
        n = cols[0].size if cols else 0
    else:
        pts = asarray(sample)
        if pts.ndim != 2:
            raise ValueError("sample must be an (N, D) array or a sequence of D 1-d arrays")
        n = pts.shape[0]
        cols = [pts[:, i] for i in builtins_range(pts.shape[1])]
    specs, given = _dd_specs(bins, range, len(cols))
    if weights is not None:
        weights = asarray(weights)
        if weights.shape != (n,) or (cols and weights.shape != cols[0].shape):
            raise ValueError("weights must have the sample's length")
    hist, edges = _histogram_c(cols, specs, weights, density, dd=True)
    return hist, [e.compute() if g is None else g for e, g in zip(edges, given)]


builtins_range = range


def histogram2d(x, y, bins=10, range=None, normed=None, weights=None, density=None):
    """The two-dimensional histogram of two arrays of points (``dask.array.histogram2d``).

    Parameters
    ----------
    x, y : Array or array_like
        The points' coordinates (1-d, the same length).
    bins : int, (int, int), array_like or (array_like, array_like), default 10
        Numbers of bins (with ``range``) or edges.
    range : ((float, float), (float, float)), optional
        The outer edges (required for numbers of bins).
    normed : None
        Deprecated by NumPy; use density.
    weights : Array or array_like, optional
        One weight per point.
    density : bool, optional
        The density instead of the counts.

    Returns
    -------
    hist : Array
        The lazy 2-d counts.
    xedges : numpy.ndarray
        The edges along x.
    yedges : numpy.ndarray
        The edges along y.
    """
    try:
        nb = len(bins)
    except TypeError:
        nb = 1
    if nb not in (1, 2):  # NumPy: one sequence of edges for both
        bins = [np.asarray(bins), np.asarray(bins)]
    hist, edges = histogramdd((x, y), bins=bins, range=range, normed=normed, weights=weights, density=density)
    return hist, edges[0], edges[1]


# ---- gufuncs and storage ----------------------------------------------------------------------------

class gufunc:  # noqa: N801 - dask's name
    """A Python function bound to a gufunc signature (``dask.array.gufunc``): calls go to apply_gufunc.

    Parameters
    ----------
    pyfunc : callable
        Called on blocks holding whole core dimensions.
    signature : str
        The gufunc signature, such as ``"(i)->()"``.
    vectorize : bool, optional
        Wrap pyfunc in numpy.vectorize.
    axes : list of tuples, optional
        Core axes per argument.
    axis : int, optional
        The core axis when every argument has one.
    keepdims : bool, default False
        Keep reduced core dimensions.
    output_sizes : dict, optional
        Sizes of core dimensions only outputs have.
    output_dtypes : dtype or list of dtypes, optional
        The outputs' dtypes.
    allow_rechunk : bool, default False
        Rechunk core dimensions into one block.
    meta : numpy.ndarray, optional
        Only NumPy's.
    """

    def __init__(self, pyfunc, *, signature=None, vectorize=False, axes=None, axis=None, keepdims=False,
                 output_sizes=None, output_dtypes=None, allow_rechunk=False, meta=None):
        if signature is None:
            raise ValueError("gufunc needs a signature")
        self.pyfunc, self.signature, self.vectorize = pyfunc, signature, vectorize
        self.axes, self.axis, self.keepdims = axes, axis, keepdims
        self.output_sizes, self.output_dtypes = output_sizes, output_dtypes
        self.allow_rechunk, self.meta = allow_rechunk, meta
        self.__doc__ = getattr(pyfunc, "__doc__", None) or self.__doc__
        self.__name__ = getattr(pyfunc, "__name__", "gufunc")

    def __call__(self, *args, allow_rechunk=False, **kwargs):
        """Apply the function through apply_gufunc.

        Parameters
        ----------
        *args
            The inputs.
        allow_rechunk : bool, default False
            Or the gufunc's own setting.
        **kwargs
            Passed to the function.

        Returns
        -------
        Array or tuple of Array
            The outputs.
        """
        return core.apply_gufunc(self.pyfunc, self.signature, *args, vectorize=self.vectorize, axes=self.axes,
                                 axis=self.axis, keepdims=self.keepdims, output_sizes=self.output_sizes,
                                 output_dtypes=self.output_dtypes, allow_rechunk=self.allow_rechunk or allow_rechunk,
                                 meta=self.meta, **kwargs)


def as_gufunc(signature=None, **kwargs):
    """A decorator making a function a gufunc (``dask.array.as_gufunc``).

    Parameters
    ----------
    signature : str
        The gufunc signature.
    **kwargs
        gufunc's other options (vectorize, axes, axis, keepdims, output_sizes, output_dtypes, ...).

    Returns
    -------
    callable
        A decorator: ``@as_gufunc("(i)->()")`` over a function gives a gufunc.
    """
    def decorator(pyfunc):
        return gufunc(pyfunc, signature=signature, **kwargs)
    return decorator


def to_zarr(arr, url, component=None, storage_options=None, overwrite=False, **kwargs):
    """Store an array in a Zarr (v2) store (``dask.array.to_zarr``; see Array.to_zarr).

    Parameters
    ----------
    arr : Array
        The array.
    url : str or os.PathLike
        A local directory.
    component : str, optional
        A group path inside the store.
    storage_options : dict, optional
        Only local paths: must be empty.
    overwrite : bool, default False
        Replace an existing array.
    **kwargs
        Passed to Array.to_zarr (compressor, level, chunks, attrs, ...).

    Returns
    -------
    None
        The data is written.
    """
    if storage_options:
        raise NotImplementedError("to_zarr(storage_options=...): only local directories")
    path = os.fspath(url)
    if component:
        path = os.path.join(path, component)
    return asarray(arr).to_zarr(path, overwrite=overwrite, **kwargs)


def to_npy_stack(dirname, x, axis=0):
    """Write an array as one .npy file per block along an axis (``dask.array.to_npy_stack``).

    The array is rechunked to whole blocks along the other axes; block i goes to ``dirname/i.npy`` and
    the chunks, dtype and axis to ``dirname/info`` (dask's layout and pickle, readable by
    dask.array.from_npy_stack). Written by the library (``ca_array_to_npy_stack``), block by block.

    Parameters
    ----------
    dirname : str or os.PathLike
        The directory (created).
    x : Array
        The array.
    axis : int, default 0
        The axis the files follow.

    Returns
    -------
    None
        The files are written.
    """
    x = asarray(x)
    ctx = core.default_context()
    ctx._sync_kernels()
    _check(lib().ca_array_to_npy_stack(ctx.handle, x._h, os.fspath(dirname).encode(), int(axis), None))


def from_npy_stack(dirname, mmap_mode="r"):
    """Read an array written by to_npy_stack (``dask.array.from_npy_stack``), one block per file.

    The ``info`` pickle is read by the library's strict reader (only the dict dask writes is accepted;
    nothing is imported or called), the files lazily (as ``from_npy``).

    Parameters
    ----------
    dirname : str or os.PathLike
        The directory with ``info`` and ``<i>.npy``.
    mmap_mode : str, optional
        dask's; the files are read by the library, lazily.

    Returns
    -------
    Array
        The lazy array.
    """
    return Array._new(lib().ca_array_from_npy_stack, os.fspath(dirname).encode())


def from_hdf5(path, dataset, chunks=None):
    """A lazy array over an HDF5 dataset (dask's ``from_array(h5py.File(path)[dataset], chunks)``).

    Each block is read at compute time by the library (one hyperslab, or direct chunk reads decoded
    on the workers); HDF5 calls are serialized by one process-wide lock (docs/hdf5.md).

    Parameters
    ----------
    path : str or os.PathLike
        The HDF5 file.
    dataset : str
        The dataset's name, e.g. ``"/group/x"``.
    chunks : str, int, tuple or dict, optional
        A chunk request as dask's (``"auto"``, ``(1000, -1)``, ``"64MiB"``), resolved with the
        dataset's HDF5 chunks as previous chunks. Default: the dataset's HDF5 chunks.

    Returns
    -------
    Array
        The lazy array.
    """
    spec = None if chunks is None else (chunks if isinstance(chunks, str) else repr(chunks)).encode()
    return Array._new(lib().ca_array_from_hdf5, os.fspath(path).encode(), str(dataset).encode(), spec)


def to_hdf5(filename, *args, chunks=True, compression=None, compression_opts=None, shuffle=False,
            overwrite=False, ctx=None, **kwargs):
    """Store arrays in an HDF5 file (``dask.array.to_hdf5``), block by block with bounded memory.

    ``to_hdf5(f, "/x", x)`` or ``to_hdf5(f, {"/x": x, "/y": y})``.

    Parameters
    ----------
    filename : str or os.PathLike
        The HDF5 file (created if missing; other objects in it are kept).
    *args : str and Array, or dict
        The dataset name and the array, or a dict of them.
    chunks : bool or tuple of int, default True
        True: HDF5 chunks of the array's chunk size; a tuple: that chunk shape; None or False:
        contiguous layout.
    compression : {None, "gzip"}, optional
        HDF5's deflate filter ("lzf" is h5py's own and not available).
    compression_opts : int, optional
        The gzip level (default 4, as h5py).
    shuffle : bool, default False
        HDF5's shuffle filter.
    overwrite : bool, default False
        Replace an existing dataset of that name.
    ctx : Context, optional
        Where to run.
    **kwargs
        Other h5py ``create_dataset`` options are not supported (NotImplementedError).

    Returns
    -------
    None
        The data is written.
    """
    if kwargs:
        raise NotImplementedError("to_hdf5: unsupported options " + ", ".join(sorted(kwargs)))
    if len(args) == 1 and isinstance(args[0], dict):
        items = list(args[0].items())
    elif len(args) == 2:
        items = [(args[0], args[1])]
    else:
        raise ValueError("to_hdf5: pass a dataset name and an array, or a dict of them")
    for name, x in items:
        asarray(x).to_hdf5(filename, name, chunks=chunks, compression=compression,
                           compression_opts=compression_opts, shuffle=shuffle, overwrite=overwrite, ctx=ctx)


# ---- Array methods ----------------------------------------------------------------------------------

class BlockView:
    """Block indexing of an Array (dask's ``x.blocks`` / ``x.partitions``): ``x.blocks[i, j]`` is the
    Array of block (i, j); slices and lists of block indices select several blocks.

    This is also chunkarray's per-block access in place of dask's ``to_delayed``: each selected block
    is a lazy Array, computed with ``.compute()``.

    Parameters
    ----------
    array : Array
        The array (its chunk sizes must be known).
    """

    def __init__(self, array):
        self._array = array

    @property
    def shape(self):
        """The number of blocks along each axis.

        Returns
        -------
        tuple of int
            The array's numblocks.
        """
        return tuple(self._array.numblocks)

    @property
    def size(self):
        """The number of blocks.

        Returns
        -------
        int
            The product of the numblocks.
        """
        return int(np.prod(self.shape))

    def __getitem__(self, index):
        x = self._array
        if not isinstance(index, tuple):
            index = (index,)
        if any(i is None for i in index):
            raise IndexError("blocks: None (newaxis) is not allowed")
        if sum(1 for i in index if i is Ellipsis) > 1:
            raise IndexError("blocks: an index can only have a single ellipsis ('...')")
        if Ellipsis in index:
            k = index.index(Ellipsis)
            index = index[:k] + (slice(None),) * (x.ndim - len(index) + 1) + index[k + 1:]
        if len(index) > x.ndim:
            raise IndexError(f"too many indices for blocks: {x.ndim} dimensions, {len(index)} indices")
        index = index + (slice(None),) * (x.ndim - len(index))
        if not x.chunks_known:
            raise ValueError("blocks: the array's chunk sizes are unknown (compute_chunk_sizes() first)")
        out = x
        for ax, (ix, ch) in enumerate(zip(index, x.chunks)):
            n = len(ch)
            if isinstance(ix, slice):
                sel = list(builtins_range(n))[ix]
            elif isinstance(ix, (numbers.Integral, np.integer)):
                if not -n <= ix < n:
                    raise IndexError(f"index {ix} is out of bounds for axis {ax} with size {n}")
                sel = [int(ix) % n]
            else:
                arr = np.asarray(ix)
                if arr.size == 0:
                    arr = arr.astype(np.int64)
                if arr.dtype == bool or arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
                    raise IndexError("blocks: only integers, slices and 1-d integer lists index blocks")
                if ((arr < -n) | (arr >= n)).any():
                    raise IndexError(f"block index out of bounds for axis {ax} with {n} blocks")
                sel = [int(v) % n for v in arr]
            starts = np.concatenate([[0], np.cumsum(ch)]).astype(int)
            pre = (slice(None),) * ax
            if sel == list(builtins_range(sel[0], sel[-1] + 1)) if sel else False:
                out = out[pre + (slice(int(starts[sel[0]]), int(starts[sel[-1] + 1])),)]
            elif not sel:
                out = out[pre + (slice(0, 0),)]
            else:
                from ._shape import concatenate
                out = concatenate([out[pre + (slice(int(starts[b]), int(starts[b + 1])),)] for b in sel], axis=ax)
        return out

    def ravel(self):
        """Every block as an Array, in C order of the blocks.

        Returns
        -------
        list of Array
            One lazy Array per block.
        """
        return [self[idx] for idx in np.ndindex(*self.shape)]


def _blocks(self):
    """Block indexing (dask's ``Array.blocks``): ``x.blocks[i, j]`` is the Array of one block.

    Returns
    -------
    BlockView
        Index it with integers, slices or lists of block indices.
    """
    return BlockView(self)


def _partitions(self):
    """Block indexing (dask's ``Array.partitions``, an alias of ``blocks``).

    Returns
    -------
    BlockView
        Index it with integers, slices or lists of block indices.
    """
    return BlockView(self)


def _to_delayed(self, optimize_graph=True):
    """The blocks as an object array of one-block Arrays (chunkarray's equivalent of dask's to_delayed).

    chunkarray has no Delayed objects: each element is a lazy Array holding one block (the same as
    ``x.blocks[idx]``); compute it with ``.compute()``.

    Parameters
    ----------
    optimize_graph : bool, default True
        dask's; ignored (the library optimizes at compute).

    Returns
    -------
    numpy.ndarray
        Of object dtype and shape ``x.numblocks``.
    """
    view = BlockView(self)
    out = np.empty(view.shape, dtype=object)
    for idx in np.ndindex(*view.shape):
        out[idx] = view[idx]
    return out


def _A(self):
    """The array itself (dask's ``Array.A``; NumPy matrices' ``.A``).

    Returns
    -------
    Array
        self.
    """
    return self


def _itemsize(self):
    """Bytes per element.

    Returns
    -------
    int
        ``dtype.itemsize``.
    """
    return self.dtype.itemsize


def _copy(self):
    """A copy (dask's ``Array.copy``): arrays are immutable, so a new Array sharing the same graph.

    Returns
    -------
    Array
        Equal to self.
    """
    return self._another()


def _view(self, dtype=None, order="C"):
    """The same bytes read as another dtype (dask's ``Array.view``).

    With a different itemsize the last axis' chunks scale by the ratio (each block's last axis must
    hold a whole number of new elements), as dask.

    Parameters
    ----------
    dtype : dtype, optional
        The new dtype; None: the same.
    order : {'C'}, default 'C'
        Only C order.

    Returns
    -------
    Array
        The lazy view (computed per block with ``ndarray.view``).
    """
    if order != "C":
        raise NotImplementedError("view(order=...): chunkarray arrays are C ordered")
    if dtype is None:
        return self._another()
    dtype = np.dtype(dtype)
    old = self.dtype.itemsize
    if dtype.itemsize == old:
        chunks = self.chunks
    else:
        if self.ndim == 0:
            raise ValueError("Changing the dtype of a 0d array is only supported if the itemsize is unchanged")
        last = self.chunks[-1]
        if any((c * old) % dtype.itemsize for c in last):
            raise ValueError(f"{self.dtype} -> {dtype} is not a whole number of elements in each block of the last "
                             f"axis (chunks {last})")
        chunks = self.chunks[:-1] + (tuple(c * old // dtype.itemsize for c in last),)
    return core.map_blocks(lambda b: np.ascontiguousarray(b).view(dtype), self, dtype=dtype, chunks=chunks)


def _choose(self, choices):
    """Elements taken from ``choices`` by this array's values (``Array.choose``; see choose).

    Parameters
    ----------
    choices : sequence of array_like
        The arrays to choose from.

    Returns
    -------
    Array
        The lazy result.
    """
    return choose(self, choices)


def _nonzero(self):
    """The indices of the nonzero elements, one array per axis (``Array.nonzero``).

    Returns
    -------
    tuple of Array
        int64 arrays of unknown block sizes.
    """
    from ._routines import nonzero
    return nonzero(self)


def _trace(self, offset=0, axis1=0, axis2=1, dtype=None):
    """The sum along a diagonal (``Array.trace``).

    Parameters
    ----------
    offset : int, default 0
        The diagonal's offset.
    axis1, axis2 : int, default 0 and 1
        The axes of the 2-d sub-arrays.
    dtype : dtype, optional
        The accumulator's dtype.

    Returns
    -------
    Array
        The lazy sums.
    """
    from ._stats import trace
    return trace(self, offset=offset, axis1=axis1, axis2=axis2, dtype=dtype)


def _moment(self, order, axis=None, dtype=None, keepdims=False, ddof=0, split_every=None):
    """The central moment of an order (``Array.moment``).

    Parameters
    ----------
    order : int
        The moment's order.
    axis : int or tuple of int, optional
        The reduced axes; None: all.
    dtype : dtype, optional
        The result's dtype.
    keepdims : bool, default False
        Keep the reduced axes with length 1.
    ddof : int, default 0
        Delta degrees of freedom.
    split_every : int, optional
        Blocks combined per tree node.

    Returns
    -------
    Array
        The lazy moment.
    """
    from ._stats import moment
    return moment(self, order, axis=axis, dtype=dtype, keepdims=keepdims, ddof=ddof, split_every=split_every)


def _topk(self, k, axis=-1, split_every=None):
    """The k largest elements along an axis, sorted (negative k: the smallest) (``Array.topk``).

    Parameters
    ----------
    k : int
        How many.
    axis : int, default -1
        The axis.
    split_every : int, optional
        Blocks combined per tree node.

    Returns
    -------
    Array
        The lazy result.
    """
    from ._stats import topk
    return topk(self, k, axis=axis, split_every=split_every)


def _argtopk(self, k, axis=-1, split_every=None):
    """The indices of the k largest elements along an axis (``Array.argtopk``).

    Parameters
    ----------
    k : int
        How many (negative: the smallest).
    axis : int, default -1
        The axis.
    split_every : int, optional
        Blocks combined per tree node.

    Returns
    -------
    Array
        The lazy int64 indices.
    """
    from ._stats import argtopk
    return argtopk(self, k, axis=axis, split_every=split_every)


def _store(self, target, **kwargs):
    """Write this array into an array-like target (``Array.store``; see chunkarray.store).

    Parameters
    ----------
    target : array-like
        Supports ``target[region] = block``.
    **kwargs
        Passed to chunkarray.store (lock, regions, compute, ...).

    Returns
    -------
    object
        What chunkarray.store returns.
    """
    return core.store([self], [target], **kwargs)


for _name, _f in (("blocks", _blocks), ("partitions", _partitions), ("A", _A), ("itemsize", _itemsize)):
    _f.__name__ = _name
    setattr(Array, _name, property(_f))
for _name, _f in (("to_delayed", _to_delayed), ("copy", _copy), ("view", _view), ("choose", _choose),
                  ("nonzero", _nonzero), ("trace", _trace), ("moment", _moment), ("topk", _topk),
                  ("argtopk", _argtopk), ("store", _store)):
    _f.__name__ = _name
    _f.__qualname__ = f"Array.{_name}"
    setattr(Array, _name, _f)
del _name, _f


def _np_histogram_fallback(ours, func):
    """NumPy's histogram2d/dd through __array_function__: ours, or NumPy's on computed arguments where
    ours needs a range NumPy computes from the data (with the ComputeWarning naming the function)."""
    def call(*args, **kwargs):
        try:
            return ours(*args, **kwargs)
        except _RangeRequired:
            import warnings
            warnings.warn(f"numpy.{func.__name__} is not implemented lazily by chunkarray without a range: its "
                          "chunkarray arguments are computed and NumPy's function is called", core.ComputeWarning,
                          stacklevel=3)
            return func(*core._computed(args), **core._computed(kwargs))
    call.__name__ = func.__name__
    return call


def _np_table():
    return {np.insert: insert, np.delete: delete, np.append: append, np.compress: compress, np.extract: extract,
            np.choose: choose, np.select: select, np.piecewise: piecewise, np.vdot: vdot,
            np.ravel_multi_index: ravel_multi_index, np.unravel_index: unravel_index,
            np.apply_along_axis: apply_along_axis, np.apply_over_axes: apply_over_axes,
            np.histogram2d: _np_histogram_fallback(histogram2d, np.histogram2d),
            np.histogramdd: _np_histogram_fallback(histogramdd, np.histogramdd)}
