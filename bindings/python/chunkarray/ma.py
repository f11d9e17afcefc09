"""Masked arrays (include/chunkarray/masked.h): ``dask.array.ma``'s functions with ``numpy.ma``'s values.

A :class:`MaskedArray` is a lazy chunked data array, a boolean mask of the same shape and chunks
(True = masked) and a fill value. Elementwise operations (operators and NumPy ufuncs such as
``np.log(m)``) follow numpy.ma: the result's mask is the OR of the operands' masks plus numpy.ma's
domains (log of x <= 0, division by zero, sqrt of negatives, ...). Data and mask are each one fused
expression, and :meth:`MaskedArray.compute` computes both in one pass, giving a
``numpy.ma.MaskedArray``. Reductions skip masked elements, and a result over masked elements only
is masked; their chunks are dask's.
"""
import ctypes as _ctypes
import numbers as _numbers

import numpy as _np

from . import _codes
from . import _lib as _C
from ._lib import lib as _lib
from .core import (Array as _Array, _block_to_numpy, _check, _chunks_struct, _compute_options, _i32arr, _i64arr,
                   _is_scalar, _np_dtype, _scalar, asarray as _asarray, default_context as _default_context)

__all__ = ["MaskedArray", "average", "count", "empty_like", "filled", "fix_invalid", "from_zarr", "getdata",
           "getmaskarray", "load", "masked_array", "masked_equal", "masked_greater", "masked_greater_equal",
           "masked_inside", "masked_invalid", "masked_less", "masked_less_equal", "masked_not_equal",
           "masked_outside", "masked_values", "masked_where", "ones_like", "save", "set_fill_value", "to_zarr",
           "zeros_like"]

_EQ, _NE, _GT, _GE, _LT, _LE, _INSIDE, _OUTSIDE = range(8)
_UFUNC_UNARY = dict(_codes.UNARY)
_UFUNC_BINARY = dict(_codes.BINARY)
_UFUNC_BINARY["divide"] = _codes.CA_OP_DIV


def _fill_arg(fill_value):
    """A fill value as a ``ca_scalar_t *`` argument (None: the default) and its keepalive."""
    if fill_value is None:
        return None, None
    s = _scalar(fill_value)
    return _ctypes.byref(s), s


def _scalar_value(s):
    """A ca_scalar_t as a Python/NumPy value."""
    if s.flags & _C.CA_SCALAR_TYPED:
        dt = _np_dtype(s.kind)
        if dt.kind in "bi":
            return dt.type(s.i64)
        if dt.kind == "u":
            return dt.type(s.i64 % (1 << 64))
        if dt.kind == "c":
            return dt.type(complex(s.re, s.im))
        return dt.type(s.re)
    if s.kind == _C.CA_BOOL:
        return bool(s.i64)
    if s.kind == _C.CA_INT64:
        return int(s.i64)
    if s.kind == _C.CA_UINT64:
        return int(s.i64) % (1 << 64)
    if s.kind == _C.CA_COMPLEX128:
        return complex(s.re, s.im)
    return float(s.re)


def _axes(axis, ndim):
    if axis is None:
        return None, 0
    if isinstance(axis, (_numbers.Integral, _np.integer)):
        axis = (int(axis),)
    axis = [int(a) for a in axis]
    return _i32arr(axis), len(axis)


class MaskedArray:
    """A lazy masked array: data, a boolean mask (True = masked) and a fill value (numpy.ma's MaskedArray
    over chunked arrays).

    Made by :func:`masked_array` and the ``masked_*`` functions; immutable (operations return new
    masked arrays), except :func:`set_fill_value`, which replaces the fill value in place as dask's does.

    Parameters
    ----------
    handle : int
        An owned native ``ca_masked_t*`` (for code that calls the C library directly).

    See Also
    --------
    masked_array : the constructor.
    """

    __array_priority__ = 30

    def __init__(self, handle):
        if not handle:
            raise ValueError("NULL masked array handle")
        self._h = handle

    @classmethod
    def _new(cls, fn, *args):
        h = _C.c_vp()
        _check(fn(_ctypes.byref(h), *[a._h if isinstance(a, (MaskedArray, _Array)) else a for a in args]))
        return cls(h.value)

    def __del__(self):
        h = getattr(self, "_h", None)
        if h:
            try:
                _lib().ca_masked_free(h)
            except Exception:
                pass
            self._h = None

    @property
    def handle(self):
        """The native ``ca_masked_t*`` (borrowed)."""
        return self._h

    # -- parts ---------------------------------------------------------------------------------------
    @property
    def data(self):
        """The data (:func:`getdata`), values under the mask included."""
        return _arr_new(_lib().ca_masked_data, self._h)

    @property
    def mask(self):
        """The mask (:func:`getmaskarray`): a bool Array of the data's shape and chunks."""
        return _arr_new(_lib().ca_masked_mask, self._h)

    @property
    def fill_value(self):
        """The fill value in effect: set, or numpy.ma's default for the dtype."""
        s = _C.Scalar()
        _check(_lib().ca_masked_fill_value(_ctypes.byref(s), self._h))
        v = _scalar_value(s)
        dt = self.dtype
        default = {"b": True, "c": 1e20 + 0j, "f": 1e20}.get(dt.kind, 999999)
        if not isinstance(v, _np.generic) and v == default and type(v) is type(default):
            return _np.array(default)[()]  # numpy.ma's default, in its own type (np.float64(1e20), ...)
        return _np.array(v).astype(dt, casting="unsafe")[()]

    @property
    def shape(self):
        """The shape."""
        return self.data.shape

    @property
    def ndim(self):
        """The number of dimensions."""
        return self.data.ndim

    @property
    def dtype(self):
        """The data's dtype."""
        return self.data.dtype

    @property
    def chunks(self):
        """The chunks (data and mask share them)."""
        return self.data.chunks

    @property
    def size(self):
        """The number of elements."""
        return self.data.size

    def __len__(self):
        return len(self.data)

    def __repr__(self):
        return (f"chunkarray.ma.MaskedArray<shape={self.shape}, dtype={self.dtype}, chunks={self.chunks}, "
                f"fill_value={self.fill_value!r}>")

    # -- compute -------------------------------------------------------------------------------------
    def compute(self, ctx=None, progress=None):
        """Compute data and mask in one pass.

        Parameters
        ----------
        ctx : Context, optional
            Where to run; default :func:`chunkarray.default_context`.
        progress : bool or callable, optional
            As :meth:`chunkarray.Array.compute`.

        Returns
        -------
        numpy.ma.MaskedArray
            The value, with the fill value.
        """
        ctx = ctx or _default_context()
        ctx._sync_kernels()
        opts, keep = _compute_options(progress)
        d, m = _C.c_vp(), _C.c_vp()
        _check(_lib().ca_masked_compute(_ctypes.byref(d), _ctypes.byref(m), ctx.handle, self._h, opts))
        del keep
        data = _block_to_numpy(d.value)
        mask = _block_to_numpy(m.value)
        return _np.ma.masked_array(data, mask=mask, fill_value=self.fill_value)

    def __array__(self, dtype=None):
        x = self.compute().filled()
        return x if dtype is None else x.astype(dtype)

    def filled(self, fill_value=None):
        """The data with masked elements replaced (:func:`filled`).

        Parameters
        ----------
        fill_value : scalar, optional
            Default: the fill value.

        Returns
        -------
        Array
            The filled data.
        """
        return filled(self, fill_value)

    def count(self, axis=None, keepdims=False, split_every=None):
        """The unmasked elements (:func:`count`).

        Parameters
        ----------
        axis : int or tuple of int, optional
            The axes counted over (default all).
        keepdims : bool, default False
            Keep the reduced axes with extent 1.
        split_every : int, optional
            Blocks combined per tree node.

        Returns
        -------
        Array
            int64 counts.
        """
        return count(self, axis, keepdims, split_every)

    # -- shape-preserving helpers --------------------------------------------------------------------
    def _both(self, f):
        """Apply an Array operation to data and mask alike (indexing, reshaping, rechunking)."""
        return _from_parts(f(self.data), f(self.mask), self)

    def __getitem__(self, index):
        return self._both(lambda x: x[index])

    def rechunk(self, chunks):
        """Rechunk data and mask alike.

        Parameters
        ----------
        chunks : int, tuple or dict
            As :meth:`chunkarray.Array.rechunk`.

        Returns
        -------
        MaskedArray
            The same values in new chunks.
        """
        return self._both(lambda x: x.rechunk(chunks))

    def reshape(self, *shape):
        """Reshape data and mask alike.

        Parameters
        ----------
        *shape : int or tuple of int
            The new shape.

        Returns
        -------
        MaskedArray
            The reshaped array.
        """
        return self._both(lambda x: x.reshape(*shape))

    @property
    def T(self):
        """The transpose."""
        return self._both(lambda x: x.T)

    def astype(self, dtype):
        """Cast the data (the mask is kept).

        Parameters
        ----------
        dtype : numpy.dtype
            The new dtype.

        Returns
        -------
        MaskedArray
            The cast array (default fill value).
        """
        return masked_array(self.data.astype(dtype), self.mask)

    # -- arithmetic ----------------------------------------------------------------------------------
    def _binary(self, op, other, reflected=False):
        if _is_scalar(other):
            return MaskedArray._new(_lib().ca_masked_binary_scalar, op, self, _scalar(other), 1 if reflected else 0)
        o = _asmasked(other)
        a, b = (o, self) if reflected else (self, o)
        return MaskedArray._new(_lib().ca_masked_binary, op, a, b)

    def _unary(self, op):
        return MaskedArray._new(_lib().ca_masked_unary, op, self)

    def __add__(self, o): return self._binary(_codes.CA_OP_ADD, o)
    def __radd__(self, o): return self._binary(_codes.CA_OP_ADD, o, True)
    def __sub__(self, o): return self._binary(_codes.CA_OP_SUB, o)
    def __rsub__(self, o): return self._binary(_codes.CA_OP_SUB, o, True)
    def __mul__(self, o): return self._binary(_codes.CA_OP_MUL, o)
    def __rmul__(self, o): return self._binary(_codes.CA_OP_MUL, o, True)
    def __truediv__(self, o): return self._binary(_codes.CA_OP_DIV, o)
    def __rtruediv__(self, o): return self._binary(_codes.CA_OP_DIV, o, True)
    def __floordiv__(self, o): return self._binary(_codes.CA_OP_FLOORDIV, o)
    def __rfloordiv__(self, o): return self._binary(_codes.CA_OP_FLOORDIV, o, True)
    def __mod__(self, o): return self._binary(_codes.CA_OP_MOD, o)
    def __rmod__(self, o): return self._binary(_codes.CA_OP_MOD, o, True)
    def __pow__(self, o): return self._binary(_codes.CA_OP_POW, o)
    def __rpow__(self, o): return self._binary(_codes.CA_OP_POW, o, True)
    def __lt__(self, o): return self._binary(_codes.CA_OP_LT, o)
    def __le__(self, o): return self._binary(_codes.CA_OP_LE, o)
    def __gt__(self, o): return self._binary(_codes.CA_OP_GT, o)
    def __ge__(self, o): return self._binary(_codes.CA_OP_GE, o)
    def __eq__(self, o): return self._binary(_codes.CA_OP_EQ, o)  # noqa: E704
    def __ne__(self, o): return self._binary(_codes.CA_OP_NE, o)  # noqa: E704
    def __and__(self, o): return self._binary(_codes.CA_OP_BITAND, o)
    def __or__(self, o): return self._binary(_codes.CA_OP_BITOR, o)
    def __neg__(self): return self._unary(_codes.CA_OP_NEG)
    def __abs__(self): return self._unary(_codes.CA_OP_ABS)
    def __invert__(self): return self._unary(_codes.CA_OP_INVERT)
    __hash__ = None

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__" or kwargs:
            return NotImplemented
        if len(inputs) == 1 and ufunc.__name__ in _UFUNC_UNARY:
            return _asmasked(inputs[0])._unary(_UFUNC_UNARY[ufunc.__name__])
        if len(inputs) == 2 and ufunc.__name__ in _UFUNC_BINARY:
            op = _UFUNC_BINARY[ufunc.__name__]
            a, b = inputs
            if isinstance(a, MaskedArray):
                return a._binary(op, b)
            return _asmasked(b)._binary(op, a, reflected=True)
        return NotImplemented

    # -- reductions ----------------------------------------------------------------------------------
    def _reduce(self, op, axis=None, keepdims=False, split_every=None, ddof=0, dtype=None):
        ax, n = _axes(axis, self.ndim)
        from .core import _ca_dtype
        o = _C.ReduceOptions(_ctypes.sizeof(_C.ReduceOptions), int(split_every or 0), int(ddof),
                             _ca_dtype(dtype) if dtype is not None else 0)
        return MaskedArray._new(_lib().ca_masked_reduce, op, self, ax, n, 1 if keepdims else 0, _ctypes.byref(o))

    def sum(self, axis=None, dtype=None, keepdims=False, split_every=None):
        """Sum of the unmasked elements (``numpy.ma.MaskedArray.sum``).

        Parameters
        ----------
        axis : int or tuple of int, optional
            Axes to reduce (default all).
        dtype : numpy.dtype, optional
            Accumulator and result dtype.
        keepdims : bool, default False
            Keep reduced axes with extent 1.
        split_every : int, optional
            Blocks combined per tree node.

        Returns
        -------
        MaskedArray
            Masked where every element reduced was masked.
        """
        return self._reduce(_codes.CA_RED_SUM, axis, keepdims, split_every, dtype=dtype)

    def prod(self, axis=None, dtype=None, keepdims=False, split_every=None):
        """Product of the unmasked elements; parameters as :meth:`sum`.

        Parameters
        ----------
        axis, dtype, keepdims, split_every
            As :meth:`sum`.

        Returns
        -------
        MaskedArray
            The product.
        """
        return self._reduce(_codes.CA_RED_PROD, axis, keepdims, split_every, dtype=dtype)

    def mean(self, axis=None, dtype=None, keepdims=False, split_every=None):
        """Mean of the unmasked elements (float64 for integers, as numpy.ma).

        Parameters
        ----------
        axis, dtype, keepdims, split_every
            As :meth:`sum`.

        Returns
        -------
        MaskedArray
            The mean.
        """
        return self._reduce(_codes.CA_RED_MEAN, axis, keepdims, split_every, dtype=dtype)

    def var(self, axis=None, dtype=None, keepdims=False, ddof=0, split_every=None):
        """Variance of the unmasked elements.

        Parameters
        ----------
        axis, dtype, keepdims, split_every
            As :meth:`sum`.
        ddof : int, default 0
            Delta degrees of freedom.

        Returns
        -------
        MaskedArray
            The variance.
        """
        return self._reduce(_codes.CA_RED_VAR, axis, keepdims, split_every, ddof, dtype)

    def std(self, axis=None, dtype=None, keepdims=False, ddof=0, split_every=None):
        """Standard deviation of the unmasked elements.

        Parameters
        ----------
        axis, dtype, keepdims, ddof, split_every
            As :meth:`var`.

        Returns
        -------
        MaskedArray
            The standard deviation.
        """
        return self._reduce(_codes.CA_RED_STD, axis, keepdims, split_every, ddof, dtype)

    def min(self, axis=None, keepdims=False, split_every=None):
        """Minimum of the unmasked elements.

        Parameters
        ----------
        axis, keepdims, split_every
            As :meth:`sum`.

        Returns
        -------
        MaskedArray
            The minimum.
        """
        return self._reduce(_codes.CA_RED_MIN, axis, keepdims, split_every)

    def max(self, axis=None, keepdims=False, split_every=None):
        """Maximum of the unmasked elements.

        Parameters
        ----------
        axis, keepdims, split_every
            As :meth:`sum`.

        Returns
        -------
        MaskedArray
            The maximum.
        """
        return self._reduce(_codes.CA_RED_MAX, axis, keepdims, split_every)

    def any(self, axis=None, keepdims=False, split_every=None):
        """Whether any unmasked element is true.

        Parameters
        ----------
        axis, keepdims, split_every
            As :meth:`sum`.

        Returns
        -------
        MaskedArray
            bool.
        """
        return self._reduce(_codes.CA_RED_ANY, axis, keepdims, split_every)

    def all(self, axis=None, keepdims=False, split_every=None):
        """Whether every unmasked element is true.

        Parameters
        ----------
        axis, keepdims, split_every
            As :meth:`sum`.

        Returns
        -------
        MaskedArray
            bool.
        """
        return self._reduce(_codes.CA_RED_ALL, axis, keepdims, split_every)

    def argmin(self, axis=None, split_every=None):
        """Index of the minimum, masked elements taken as the dtype's largest value (numpy.ma).

        Parameters
        ----------
        axis : int, optional
            One axis, or None for the flattened index.
        split_every : int, optional
            Blocks combined per tree node.

        Returns
        -------
        Array
            int64 indices (unmasked, as numpy.ma returns a plain array).
        """
        return self._reduce(_codes.CA_RED_ARGMIN, axis, False, split_every).data

    def argmax(self, axis=None, split_every=None):
        """Index of the maximum, masked elements taken as the dtype's smallest value.

        Parameters
        ----------
        axis, split_every
            As :meth:`argmin`.

        Returns
        -------
        Array
            int64 indices.
        """
        return self._reduce(_codes.CA_RED_ARGMAX, axis, False, split_every).data

    def to_zarr(self, path, **kwargs):
        """Write as a Zarr array (:func:`to_zarr`).

        Parameters
        ----------
        path : str or os.PathLike
            The store's directory.
        **kwargs
            As :func:`to_zarr`.
        """
        to_zarr(self, path, **kwargs)


def _arr_new(fn, *args):
    """An Array from ``fn(&out, *args)``, masked arrays passed as their handles."""
    return _Array._new(fn, *[a._h if isinstance(a, MaskedArray) else a for a in args])


def _from_parts(data, mask, like=None):
    fill = like.fill_value if like is not None and data.dtype == like.dtype else None
    return masked_array(data, mask, fill_value=fill)


def _asmasked(a):
    """A MaskedArray from a MaskedArray, a chunkarray Array, a numpy.ma array or array-like data."""
    if isinstance(a, MaskedArray):
        return a
    if isinstance(a, _np.ma.MaskedArray):
        mask = _np.ma.getmaskarray(a)
        fv = a.fill_value if a._fill_value is not None else None
        return masked_array(_asarray(_np.ma.getdata(a)), _asarray(mask) if _np.ma.getmask(a) is not _np.ma.nomask
                            else None, fill_value=fv)
    return masked_array(a)


# ------------------------------------------------------------------------------------------------
# dask.array.ma's functions
# ------------------------------------------------------------------------------------------------

def masked_array(data, mask=_np.ma.nomask, fill_value=None, **kwargs):
    """A masked array of ``data`` (``dask.array.ma.masked_array``).

    Parameters
    ----------
    data : Array or array_like
        The data (numeric).
    mask : Array or array_like, optional
        Of data's shape, or of size 1; nonzero = masked. Default: nothing masked (nomask).
    fill_value : scalar, optional
        Default numpy.ma's for the dtype.
    **kwargs
        ``dtype=`` casts the data; ``chunks=`` is used when ``data`` is not yet an Array.

    Returns
    -------
    MaskedArray
        Data and mask with unified chunks.

    Raises
    ------
    InvalidArgumentError
        A mask of another shape ("Mask and data not compatible").
    """
    if isinstance(data, MaskedArray) and mask is _np.ma.nomask and fill_value is None and not kwargs:
        return data
    if isinstance(data, _np.ma.MaskedArray):
        if mask is _np.ma.nomask and _np.ma.getmask(data) is not _np.ma.nomask:
            mask = _np.ma.getmaskarray(data)
        if fill_value is None and data._fill_value is not None:
            fill_value = data.fill_value
        data = _np.ma.getdata(data)
    chunks = kwargs.pop("chunks", "auto")
    d = _asarray(data, chunks=chunks)
    if "dtype" in kwargs and kwargs["dtype"] is not None:
        d = d.astype(kwargs.pop("dtype"))
    m = None
    if mask is not _np.ma.nomask and mask is not None:
        if isinstance(mask, (bool, _np.bool_)) or (not isinstance(mask, _Array) and _np.ndim(mask) == 0):
            m = _asarray(_np.full(d.shape, bool(mask)), chunks=d.chunks) if d.ndim else _asarray(_np.bool_(mask))
        else:
            m = mask if isinstance(mask, _Array) else _asarray(_np.asarray(mask),
                                                              chunks=d.chunks if _np.shape(mask) == d.shape else "auto")
    fp, keep = _fill_arg(fill_value)
    return MaskedArray._new(_lib().ca_masked_new, d, m, fp)


def _compare(test, a, v1, v2=0):
    if getattr(v1, "shape", ()) or getattr(v2, "shape", ()):
        raise ValueError("da.ma functions don't support array `value`s")
    return MaskedArray._new(_lib().ca_masked_compare, _asmasked(a), test, _scalar(v1), _scalar(v2))


def masked_equal(a, value):
    """Mask where ``a == value``; the fill value becomes ``value`` (``numpy.ma.masked_equal``).

    Parameters
    ----------
    a : MaskedArray, Array or array_like
        The data.
    value : scalar
        The value to mask.

    Returns
    -------
    MaskedArray
        a with the equal elements masked too.
    """
    return _compare(_EQ, a, value)


def masked_not_equal(a, value):
    """Mask where ``a != value`` (``numpy.ma.masked_not_equal``).

    Parameters
    ----------
    a : MaskedArray, Array or array_like
        The data.
    value : scalar
        The value kept.

    Returns
    -------
    MaskedArray
        The masked array.
    """
    return _compare(_NE, a, value)


def masked_greater(a, value):
    """Mask where ``a > value`` (``numpy.ma.masked_greater``).

    Parameters
    ----------
    a : MaskedArray, Array or array_like
        The data.
    value : scalar
        The bound.

    Returns
    -------
    MaskedArray
        The masked array.
    """
    return _compare(_GT, a, value)


def masked_greater_equal(a, value):
    """Mask where ``a >= value`` (``numpy.ma.masked_greater_equal``).

    Parameters
    ----------
    a : MaskedArray, Array or array_like
        The data.
    value : scalar
        The bound.

    Returns
    -------
    MaskedArray
        The masked array.
    """
    return _compare(_GE, a, value)


def masked_less(a, value):
    """Mask where ``a < value`` (``numpy.ma.masked_less``).

    Parameters
    ----------
    a : MaskedArray, Array or array_like
        The data.
    value : scalar
        The bound.

    Returns
    -------
    MaskedArray
        The masked array.
    """
    return _compare(_LT, a, value)


def masked_less_equal(a, value):
    """Mask where ``a <= value`` (``numpy.ma.masked_less_equal``).

    Parameters
    ----------
    a : MaskedArray, Array or array_like
        The data.
    value : scalar
        The bound.

    Returns
    -------
    MaskedArray
        The masked array.
    """
    return _compare(_LE, a, value)


def masked_inside(x, v1, v2):
    """Mask where ``v1 <= x <= v2`` (bounds in either order; ``numpy.ma.masked_inside``).

    Parameters
    ----------
    x : MaskedArray, Array or array_like
        The data.
    v1, v2 : scalar
        The interval's ends.

    Returns
    -------
    MaskedArray
        The masked array.
    """
    return _compare(_INSIDE, x, v1, v2)


def masked_outside(x, v1, v2):
    """Mask where ``x < v1`` or ``x > v2`` (bounds in either order; ``numpy.ma.masked_outside``).

    Parameters
    ----------
    x : MaskedArray, Array or array_like
        The data.
    v1, v2 : scalar
        The interval's ends.

    Returns
    -------
    MaskedArray
        The masked array.
    """
    return _compare(_OUTSIDE, x, v1, v2)


def masked_invalid(a):
    """Mask nan and infinities too (``numpy.ma.masked_invalid``).

    Parameters
    ----------
    a : MaskedArray, Array or array_like
        The data.

    Returns
    -------
    MaskedArray
        The masked array.
    """
    return MaskedArray._new(_lib().ca_masked_invalid, _asmasked(a))


def masked_where(condition, a):
    """Mask where ``condition`` is true (``numpy.ma.masked_where``); a's mask is kept.

    Parameters
    ----------
    condition : Array or array_like
        a's shape (or a scalar); nonzero = mask.
    a : MaskedArray, Array or array_like
        The data.

    Returns
    -------
    MaskedArray
        The masked array.

    Raises
    ------
    IndexError
        ``condition`` has another shape (dask's message).
    """
    a = _asmasked(a)
    cshape = getattr(condition, "shape", ())
    if cshape and tuple(cshape) != tuple(a.shape):
        raise IndexError("Inconsistant shape between the condition and the input (got %s and %s)"
                         % (tuple(cshape), tuple(a.shape)))
    c = condition if isinstance(condition, _Array) else _asarray(
        _np.asarray(condition), chunks=a.chunks if cshape else "auto")
    return MaskedArray._new(_lib().ca_masked_where, c, a)


def masked_values(x, value, rtol=1e-05, atol=1e-08, shrink=True):
    """Mask values close to ``value``: ``isclose`` for floats, ``==`` otherwise (``numpy.ma.masked_values``).

    Parameters
    ----------
    x : MaskedArray, Array or array_like
        The data.
    value : scalar
        The value; becomes the fill value.
    rtol, atol : float
        As ``numpy.isclose``.
    shrink : bool, default True
        Accepted for compatibility (the mask is always kept as an array).

    Returns
    -------
    MaskedArray
        The masked array.
    """
    if getattr(value, "shape", ()):
        raise ValueError("da.ma.masked_values doesn't support array `value`s")
    return MaskedArray._new(_lib().ca_masked_values, _asmasked(x), _scalar(value), float(rtol), float(atol))


def fix_invalid(a, fill_value=None):
    """Mask nan and infinities and set their data to the fill value (``numpy.ma.fix_invalid``).

    Parameters
    ----------
    a : MaskedArray, Array or array_like
        The data.
    fill_value : scalar, optional
        Default a's fill value.

    Returns
    -------
    MaskedArray
        The fixed array.
    """
    fp, keep = _fill_arg(fill_value)
    return MaskedArray._new(_lib().ca_masked_fix_invalid, _asmasked(a), fp)


def filled(a, fill_value=None):
    """The data with masked elements replaced by ``fill_value`` (``numpy.ma.filled``).

    Parameters
    ----------
    a : MaskedArray, Array or array_like
        The masked array (an unmasked one comes back as its data).
    fill_value : scalar, optional
        Default a's fill value.

    Returns
    -------
    Array
        The filled data.
    """
    fp, keep = _fill_arg(fill_value)
    return _arr_new(_lib().ca_masked_filled, _asmasked(a), fp)


def getdata(a):
    """The data of a masked array (``numpy.ma.getdata``).

    Parameters
    ----------
    a : MaskedArray, Array or array_like
        The masked array.

    Returns
    -------
    Array
        Its data.
    """
    return _asmasked(a).data


def getmaskarray(a):
    """The mask as a full bool array (``numpy.ma.getmaskarray``).

    Parameters
    ----------
    a : MaskedArray, Array or array_like
        The masked array.

    Returns
    -------
    Array
        bool, a's shape and chunks.
    """
    return _asmasked(a).mask


def set_fill_value(a, fill_value):
    """Set a masked array's fill value in place (``dask.array.ma.set_fill_value``).

    Parameters
    ----------
    a : MaskedArray
        Changed in place.
    fill_value : scalar or None
        The new fill value (None: the dtype's default).
    """
    if getattr(fill_value, "shape", ()):
        raise ValueError("da.ma.set_fill_value doesn't support array `value`s")
    if not isinstance(a, MaskedArray):
        return
    fp, keep = _fill_arg(fill_value)
    new = MaskedArray._new(_lib().ca_masked_set_fill_value, a, fp)
    old, a._h = a._h, new._h
    new._h = old  # the replaced handle is freed with `new`


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """Weighted average of the unmasked elements (``numpy.ma.average``).

    Parameters
    ----------
    a : MaskedArray, Array or array_like
        The data.
    axis : int or tuple of int, optional
        Axes averaged over (default all).
    weights : MaskedArray, Array or array_like, optional
        a's shape, or 1-d of a's extent along a single ``axis``; masked where a is.
    returned : bool, default False
        Also return the sum of the weights.
    keepdims : bool, default False
        Keep the reduced axes with extent 1.

    Returns
    -------
    MaskedArray or tuple of MaskedArray
        The average (and the sum of weights).
    """
    a = _asmasked(a)
    w = None
    if weights is not None:
        w = _asmasked(weights)
        if tuple(w.shape) != tuple(a.shape):
            if axis is None or not isinstance(axis, (_numbers.Integral, _np.integer)):
                raise TypeError("Axis must be specified when shapes of a and weights differ.")
            if w.ndim != 1:
                raise TypeError("1D weights expected when shapes of a and weights differ.")
            if w.shape[0] != a.shape[axis]:
                raise ValueError("Length of weights not compatible with specified axis.")
            ax = axis % a.ndim
            shape = [1] * a.ndim
            shape[ax] = w.shape[0]
            w = w.reshape(*shape)
    ax, n = _axes(axis, a.ndim)
    out, scl = _C.c_vp(), _C.c_vp()
    _check(_lib().ca_masked_average(_ctypes.byref(out), _ctypes.byref(scl), a._h, w._h if w is not None else None,
                                    ax, n, 1 if keepdims else 0))
    avg, s = MaskedArray(out.value), MaskedArray(scl.value)
    return (avg, s) if returned else avg


def count(a, axis=None, keepdims=False, split_every=None):
    """The number of unmasked elements (``dask.array.ma.count``).

    Parameters
    ----------
    a : MaskedArray, Array or array_like
        The masked array.
    axis : int or tuple of int, optional
        Axes counted over (default all).
    keepdims : bool, default False
        Keep the reduced axes with extent 1.
    split_every : int, optional
        Blocks combined per tree node.

    Returns
    -------
    Array
        int64 (np.intp) counts; 0-d for axis None.
    """
    ax, n = _axes(axis, None)
    return _arr_new(_lib().ca_masked_count, _asmasked(a), ax, n, 1 if keepdims else 0, int(split_every or 0))


def _like(kind, a, **kwargs):
    from . import _routines
    a = _asmasked(a)
    f = {"ones": _routines.ones_like, "zeros": _routines.zeros_like, "empty": _routines.empty_like}[kind]
    return masked_array(f(a.data, **kwargs), a.mask)


def ones_like(a, **kwargs):
    """Ones with a's shape, chunks and mask (``numpy.ma.core.ones_like``).

    Parameters
    ----------
    a : MaskedArray, Array or array_like
        The template.
    **kwargs
        ``dtype=`` as ``chunkarray.ones_like``.

    Returns
    -------
    MaskedArray
        The new array.
    """
    return _like("ones", a, **kwargs)


def zeros_like(a, **kwargs):
    """Zeros with a's shape, chunks and mask (``numpy.ma.core.zeros_like``).

    Parameters
    ----------
    a : MaskedArray, Array or array_like
        The template.
    **kwargs
        ``dtype=`` as ``chunkarray.zeros_like``.

    Returns
    -------
    MaskedArray
        The new array.
    """
    return _like("zeros", a, **kwargs)


def empty_like(a, **kwargs):
    """Uninitialised values with a's shape, chunks and mask (``numpy.ma.core.empty_like``).

    Parameters
    ----------
    a : MaskedArray, Array or array_like
        The template.
    **kwargs
        ``dtype=`` as ``chunkarray.empty_like``.

    Returns
    -------
    MaskedArray
        The new array.
    """
    return _like("empty", a, **kwargs)


# ------------------------------------------------------------------------------------------------
# Zarr and graph files
# ------------------------------------------------------------------------------------------------

def from_zarr(path, chunks=None):
    """A masked array over a Zarr v2 array: elements equal to its fill_value masked (nan-aware).

    Parameters
    ----------
    path : str or os.PathLike
        The array's directory.
    chunks : tuple of tuples, optional
        Normalized chunks; default the store's.

    Returns
    -------
    MaskedArray
        Masked where the data equals the store's fill_value (nothing masked for a null fill_value).
    """
    st, keep = (None, None)
    if chunks is not None:
        st, keep = _chunks_struct(chunks)
        st = _ctypes.byref(st)
    return MaskedArray._new(_lib().ca_masked_from_zarr, str(path).encode(), st)


def to_zarr(a, path, chunks=None, compressor=None, level=-1, overwrite=False, ctx=None):
    """Write a masked array as a Zarr v2 array: masked elements written as the fill value, which the
    store records as its fill_value.

    Parameters
    ----------
    a : MaskedArray
        The array.
    path : str or os.PathLike
        The store's directory.
    chunks : tuple of int, optional
        The Zarr chunk shape; default the array's chunk size.
    compressor : {None, "zlib", "gzip", "zstd", "blosc"}, optional
        The codec.
    level : int, default -1
        Its compression level.
    overwrite : bool, default False
        Replace an existing store.
    ctx : Context, optional
        Where to run.
    """
    a = _asmasked(a)
    ctx = ctx or _default_context()
    ctx._sync_kernels()
    keep = _i64arr(chunks) if chunks is not None else None
    o = _C.ZarrOptions(_ctypes.sizeof(_C.ZarrOptions), keep, compressor.encode() if compressor else None, int(level),
                       None, 1, None, 1 if overwrite else 0, b"C", b".", 0, 0.0)
    _check(_lib().ca_masked_to_zarr(ctx.handle, a._h, str(path).encode(), _ctypes.byref(o), None))


def save(masked, path=None):
    """Save masked arrays to a graph file (``ca_masked_save``), or to bytes when ``path`` is None.

    Parameters
    ----------
    masked : MaskedArray or sequence of MaskedArray
        What to save (data, mask and fill value of each).
    path : str or os.PathLike, optional
        The file; None returns the bytes.

    Returns
    -------
    bytes or None
        The file's bytes when ``path`` is None.
    """
    if isinstance(masked, MaskedArray):
        masked = [masked]
    masked = [_asmasked(m) for m in masked]
    hs = (_C.c_vp * max(1, len(masked)))(*[m._h for m in masked])
    o = _C.SaveOptions(_ctypes.sizeof(_C.SaveOptions), None, str(path).encode() if path is not None else None, None,
                       None, 0)
    if path is not None:
        _check(_lib().ca_masked_save(None, None, hs, len(masked), _ctypes.byref(o)))
        return None
    data, size = _C.c_vp(), _ctypes.c_size_t()
    _check(_lib().ca_masked_save(_ctypes.byref(data), _ctypes.byref(size), hs, len(masked), _ctypes.byref(o)))
    try:
        return _ctypes.string_at(data.value, size.value) if size.value else b""
    finally:
        _lib().ca_buffer_free(data)


def load(path=None, data=None):
    """Load the masked arrays of a file written by :func:`save` (a path, or its bytes).

    Parameters
    ----------
    path : str or os.PathLike, optional
        The file.
    data : bytes, optional
        Or its bytes.

    Returns
    -------
    list of MaskedArray
        In their saved order.
    """
    o = _C.LoadOptions(_ctypes.sizeof(_C.LoadOptions), str(path).encode() if path is not None else None,
                       _ctypes.cast(_ctypes.c_char_p(data), _C.c_vp) if data is not None else None,
                       len(data) if data is not None else 0)
    out = _ctypes.POINTER(_C.c_vp)()
    n = _ctypes.c_size_t()
    _check(_lib().ca_masked_load(_ctypes.byref(out), _ctypes.byref(n), _ctypes.byref(o)))
    try:
        return [MaskedArray(_lib().ca_masked_retain(out[i])) for i in range(n.value)]
    finally:
        _lib().ca_masked_free_many(out, n.value)
