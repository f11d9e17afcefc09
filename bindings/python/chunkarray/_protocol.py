"""NumPy functions on chunkarray arrays without computing them (the __array_function__ table).

Three kinds, added to core._NUMPY_FUNCTIONS next to the lazy implementations of _api.py:
- metadata functions answered from shape and dtype alone: np.result_type, np.shape, np.ndim, np.size,
  np.iscomplexobj, np.isrealobj, np.can_cast, np.min_scalar_type (arrays of one or more dimensions),
  np.common_type. As in dask, an array counts by its dtype (NumPy 1.x's value-based casting of 0-d
  arrays would need the value);
- the *_like constructors, built lazily with the array's chunks;
- further functions chunkarray implements (np.copy, np.real, np.imag, np.take, np.diag, np.ptp,
  np.count_nonzero, np.iscomplex, np.isreal, np.shares_memory, np.may_share_memory,
  np.lib.stride_tricks.sliding_window_view, np.einsum).
Anything else computes the arrays with a ComputeWarning naming the function (core.Array.__array_function__).
"""
import numbers

import numpy as np

from . import core
from .core import Array


def _dt(x):
    return x.dtype if isinstance(x, Array) else x


def result_type(*arrays_and_dtypes):
    return np.result_type(*[_dt(a) for a in arrays_and_dtypes])


def can_cast(from_, to, casting="safe"):
    return np.can_cast(_dt(from_), _dt(to), casting=casting)


def min_scalar_type(a):
    if a.ndim == 0:  # depends on the value: computed (one element)
        return np.min_scalar_type(a.compute())
    return a.dtype  # NumPy: "for non-scalar array a, returns the vector's dtype unmodified"


def common_type(*arrays):
    return np.common_type(*[np.empty((0,), a.dtype) if isinstance(a, Array) else a for a in arrays])


def shape(a):
    return a.shape


def ndim(a):
    return a.ndim


def size(a, axis=None):
    return a.size if axis is None else a.shape[axis]


def iscomplexobj(x):
    return issubclass(x.dtype.type, np.complexfloating)


def isrealobj(x):
    return not iscomplexobj(x)


def _like_shape_chunks(a, dtype, shape):
    dt = np.dtype(dtype) if dtype is not None else a.dtype
    if shape is not None:
        shape = (int(shape),) if isinstance(shape, (numbers.Integral, np.integer)) else tuple(int(s) for s in shape)
    if shape is None or shape == a.shape:
        if not a.chunks_known:
            raise core.InvalidArgumentError(-1, "*_like of an array with unknown chunk sizes: call "
                                            "x.compute_chunk_sizes() first")
        return a.shape, a.chunks, dt
    return shape, "auto", dt


def _check_like_args(name, order, subok):
    if order not in ("K", "A", "C", "F", None):
        raise ValueError(f"{name}: order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")


def zeros_like(a, dtype=None, order="K", subok=True, shape=None):
    _check_like_args("zeros_like", order, subok)
    shp, ch, dt = _like_shape_chunks(a, dtype, shape)
    return core.zeros(shp, chunks=ch, dtype=dt)


def ones_like(a, dtype=None, order="K", subok=True, shape=None):
    _check_like_args("ones_like", order, subok)
    shp, ch, dt = _like_shape_chunks(a, dtype, shape)
    return core.ones(shp, chunks=ch, dtype=dt)


def empty_like(prototype, dtype=None, order="K", subok=True, shape=None):
    _check_like_args("empty_like", order, subok)
    shp, ch, dt = _like_shape_chunks(prototype, dtype, shape)
    return core.empty(shp, chunks=ch, dtype=dt)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    _check_like_args("full_like", order, subok)
    shp, ch, dt = _like_shape_chunks(a, dtype, shape)
    if isinstance(fill_value, Array) or np.ndim(fill_value) != 0:
        # a fill array broadcasts (NumPy's copyto): lazily, as fill + zeros
        return (core.zeros(shp, chunks=ch, dtype=dt) + core.asarray(fill_value)).astype(dt, copy=False)
    # NumPy casts the fill value to the dtype (unsafe), so 2.7 fills an int array with 2
    v = np.array(fill_value).astype(dt, casting="unsafe")
    return core.full(shp, v.item(), chunks=ch, dtype=dt)


def copy(a, order="K", subok=False):
    return a.astype(a.dtype, copy=True)


def real(val):
    return val.real


def imag(val):
    return val.imag


def iscomplex(x):
    if not iscomplexobj(x):
        return zeros_like(x, dtype=bool)
    return x.imag != 0


def isreal(x):
    if not iscomplexobj(x):
        return ones_like(x, dtype=bool)
    return x.imag == 0


def take(a, indices, axis=None, out=None, mode="raise"):
    if out is not None or mode != "raise":
        raise NotImplementedError("take(out=..., mode=...) on chunkarray arrays")
    if axis is None:
        a, axis = a.ravel(), 0
    axis = core._axes(axis, a.ndim)[0]
    return a[(slice(None),) * axis + (indices,)]


def ptp(a, axis=None, out=None, keepdims=False):
    if out is not None:
        raise NotImplementedError("ptp(out=...) on chunkarray arrays")
    return a.max(axis=axis, keepdims=keepdims) - a.min(axis=axis, keepdims=keepdims)


def count_nonzero(a, axis=None, *, keepdims=False):
    return (a != 0).astype(np.intp).sum(axis=axis, keepdims=keepdims)


def diag(v, k=0):
    return core.diag(v, k)


def shares_memory(a, b, max_work=None):
    """A chunkarray array has no memory of its own to share (computing gives a new ndarray)."""
    return False


def may_share_memory(a, b, max_work=None):
    return False


_TABLE = {
    np.result_type: result_type, np.can_cast: can_cast, np.min_scalar_type: min_scalar_type,
    np.common_type: common_type, np.shape: shape, np.ndim: ndim, np.size: size,
    np.iscomplexobj: iscomplexobj, np.isrealobj: isrealobj,
    np.zeros_like: zeros_like, np.ones_like: ones_like, np.empty_like: empty_like, np.full_like: full_like,
    np.copy: copy, np.real: real, np.imag: imag, np.iscomplex: iscomplex, np.isreal: isreal, np.take: take,
    np.ptp: ptp, np.count_nonzero: count_nonzero, np.diag: diag, np.shares_memory: shares_memory,
    np.may_share_memory: may_share_memory,
}

from ._window import sliding_window_view  # noqa: E402

from ._einsum import einsum  # noqa: E402


# NEP 35: np.ones(..., like=x) with a chunkarray x reaches x.__array_function__ (without `like`):
# dispatched to chunkarray's namespace, as dask does for its arrays. Lazy constructors where chunkarray
# has them; the others (np.frombuffer, np.loadtxt, ...) build NumPy's value (no chunkarray argument is
# computed: `like` was the only one) and wrap it with from_array.
def _order_ok(order, name):
    if order not in (None, "C", "K", "A", "F"):
        raise ValueError(f"{name}: order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")


def _like_ones(shape, dtype=None, order="C"):
    _order_ok(order, "ones")
    return core.ones(shape, dtype=float if dtype is None else dtype)


def _like_zeros(shape, dtype=float, order="C"):
    _order_ok(order, "zeros")
    return core.zeros(shape, dtype=float if dtype is None else dtype)


def _like_empty(shape, dtype=float, order="C"):
    _order_ok(order, "empty")
    return core.empty(shape, dtype=float if dtype is None else dtype)


def _like_full(shape, fill_value, dtype=None, order="C"):
    _order_ok(order, "full")
    if isinstance(fill_value, Array):
        fill_value = fill_value.compute()
    return core.full(shape, fill_value, dtype=dtype)


def _like_arange(*args, dtype=None, **kwargs):
    start, stop, step = (list(args) + [None, None, None])[:3]
    start = kwargs.pop("start", start)
    stop = kwargs.pop("stop", stop)
    step = kwargs.pop("step", step)
    if kwargs:
        raise TypeError(f"arange() got unexpected keyword arguments {sorted(kwargs)}")
    return core.arange(start, stop, 1 if step is None else step, dtype=dtype)


def _like_eye(N, M=None, k=0, dtype=float, order="C"):
    _order_ok(order, "eye")
    return core.eye(N, M, k, dtype=dtype)


def _like_identity(n, dtype=None):
    return core.eye(n, dtype=float if dtype is None else dtype)


def _like_tri(N, M=None, k=0, dtype=float):
    return core.tri(N, M, k, dtype=dtype)


def _like_array(obj, dtype=None, *args, **kwargs):
    if isinstance(obj, Array) and not args and not kwargs.get("ndmin"):
        return core.asarray(obj, dtype=dtype)
    return core.from_array(np.array(obj, dtype, *args, **kwargs))


def _like_asarray(a, dtype=None, order=None):
    if isinstance(a, Array):
        return core.asarray(a, dtype=dtype)
    return core.from_array(np.asarray(a, dtype=dtype, order=order))


def _like_generic(func):
    def build(*args, **kwargs):
        return core.from_array(func(*args, **kwargs))
    build.__name__ = func.__name__
    return build


_TABLE.update({
    np.ones: _like_ones, np.zeros: _like_zeros, np.empty: _like_empty, np.full: _like_full, np.arange: _like_arange,
    np.eye: _like_eye, np.identity: _like_identity, np.tri: _like_tri, np.array: _like_array,
    np.asarray: _like_asarray, np.asanyarray: _like_asarray, np.ascontiguousarray: _like_asarray,
})
for _f in (np.frombuffer, np.fromfunction, np.fromiter, np.fromstring, np.fromfile, np.loadtxt, np.genfromtxt,
           np.require, np.asfortranarray):
    _TABLE.setdefault(_f, _like_generic(_f))

_TABLE[np.lib.stride_tricks.sliding_window_view] = sliding_window_view
_TABLE[np.einsum] = einsum

core._NUMPY_FUNCTIONS.update(_TABLE)
