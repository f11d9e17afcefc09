"""chunkarray.array_api: the Python array API standard (2021.12) over chunkarray's lazy chunked arrays.

The main ``chunkarray`` module keeps dask.array's NumPy semantics; this namespace applies the
standard's rules strictly, as ``numpy.array_api`` does beside ``numpy``: its own dtype objects, the
standard's type promotion table without value-based casting, Python scalars cast to the array's
dtype, only the indices the standard specifies, and the ``linalg`` extension. Arrays are lazy: a
value is computed when Python needs one (``bool(x)``, ``int(x)``, ``float(x)``, ``np.asarray(x)``,
``from_dlpack``).
"""
import builtins as _b
import math as _math
from collections import namedtuple as _namedtuple

import numpy as _np

from .. import core as _core
from .. import _codes
from .._lib import lib as _lib
from .. import _lib as _L
from ._dtypes import (int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64, bool,
                      _all_dtypes, _boolean_dtypes, _floating_dtypes, _integer_dtypes, _numeric_dtypes,
                      _integer_or_boolean_dtypes, _result_type, _dtype_categories)
from ._array_object import Array, _binop, _unop, _from_numpy, _known

__array_api_version__ = "2021.12"

e = _math.e
inf = _math.inf
nan = _math.nan
pi = _math.pi
newaxis = None

_CA = _core.Array
_DEFAULT_FLOAT, _DEFAULT_INT = float64, int64


def _wrap(a):
    return Array._new(a)


def _check_device(device):
    if device not in ("cpu", None):
        raise ValueError(f"Unsupported device {device!r}")


def _check_dtype(dtype):
    if dtype is not None and dtype not in _all_dtypes:
        raise ValueError(f"dtype {dtype!r} is not one of the array API dtypes")


def _need(x, name, category="all"):
    if not isinstance(x, Array):
        raise TypeError(f"{name}: expected an array_api Array, got {type(x).__name__}")
    if x.dtype not in _dtype_categories[category]:
        raise TypeError(f"Only {category} dtypes are allowed in {name}")


def _chunks(shape):
    n = 1
    for s in shape:
        n *= s
    return -1 if n <= (1 << 20) else "auto"


def _shape(shape):
    return (int(shape),) if isinstance(shape, (int, _np.integer)) else tuple(int(s) for s in shape)


# ------------------------------------------------------------------------------------------------
# Creation functions
# ------------------------------------------------------------------------------------------------

def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """Convert the input to an array.

    Parameters
    ----------
    obj : Array, NumPy array, Python scalar, nested sequence, or object with a buffer
        The data. Python scalars and sequences get the default dtypes (bool, int64, float64).
    dtype : dtype, optional
        The output dtype.
    device : {"cpu", None}
        The device.
    copy : bool, optional
        True always copies; False never does (ValueError where a copy is needed); None copies only
        when needed.

    Returns
    -------
    Array
        The array.
    """
    _check_device(device)
    _check_dtype(dtype)
    if isinstance(obj, Array):
        if dtype is not None and obj.dtype != dtype:
            if copy is False:
                raise ValueError("asarray: copy=False, but a cast to another dtype needs a copy")
            return Array._new(obj._array.astype(dtype))
        # arrays are immutable values underneath: a copy is a new Array over the same graph
        return Array._new(obj._array._another()) if copy else obj
    if copy is False and not isinstance(obj, _np.ndarray):
        raise ValueError("asarray: copy=False needs an object whose memory can be shared (an ndarray)")
    if isinstance(obj, (int, float)) and not isinstance(obj, type(True)) and dtype is None:
        if isinstance(obj, int):
            if not -(1 << 63) <= obj < (1 << 63):
                raise OverflowError(f"Python int {obj} too large for int64")
            dtype = int64
        else:
            dtype = float64
    if dtype is None and not isinstance(obj, _np.ndarray):
        probe = _np.asarray(obj)
        if probe.dtype.kind == "i":
            dtype = int64
        elif probe.dtype.kind == "f":
            dtype = float64
        elif probe.dtype.kind == "u":  # only Python ints above int64's range get here
            raise OverflowError("asarray: an integer does not fit int64")
    a = _np.array(obj, dtype=dtype, copy=True)
    if a.dtype not in _all_dtypes:
        raise TypeError(f"The array_api namespace does not support the dtype '{a.dtype}'")
    return Array._new(_from_numpy(a))


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    """Evenly spaced values in ``[start, stop)``.

    Parameters
    ----------
    start, stop, step : int or float
        As Python's ``range``; ``arange(n)`` is ``[0, n)``.
    dtype : dtype, optional
        int64 for integer arguments, float64 otherwise.
    device : {"cpu", None}
        The device.

    Returns
    -------
    Array
        A 1-d array.
    """
    _check_device(device)
    _check_dtype(dtype)
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        dtype = int64 if _b.all(isinstance(v, int) for v in (start, stop, step)) else float64
    n = _b.max(0, _math.ceil((stop - start) / step)) if step else 0
    return Array._new(_core.arange(start, stop, step, chunks=-1 if n <= (1 << 20) else "auto", dtype=dtype))


def empty(shape, *, dtype=None, device=None):
    """An uninitialised array (zeros here).

    Parameters
    ----------
    shape : int or tuple of int
        The shape.
    dtype : dtype, optional
        Default float64.
    device : {"cpu", None}
        The device.

    Returns
    -------
    Array
        The array.
    """
    return zeros(shape, dtype=dtype, device=device)


def zeros(shape, *, dtype=None, device=None):
    """An array of zeros.

    Parameters
    ----------
    shape : int or tuple of int
        The shape.
    dtype : dtype, optional
        Default float64.
    device : {"cpu", None}
        The device.

    Returns
    -------
    Array
        The array.
    """
    return full(shape, 0, dtype=dtype or _DEFAULT_FLOAT, device=device)


def ones(shape, *, dtype=None, device=None):
    """An array of ones.

    Parameters
    ----------
    shape : int or tuple of int
        The shape.
    dtype : dtype, optional
        Default float64.
    device : {"cpu", None}
        The device.

    Returns
    -------
    Array
        The array.
    """
    return full(shape, 1, dtype=dtype or _DEFAULT_FLOAT, device=device)


def full(shape, fill_value, *, dtype=None, device=None):
    """An array filled with one value.

    Parameters
    ----------
    shape : int or tuple of int
        The shape.
    fill_value : bool, int, float or 0-d Array
        The value.
    dtype : dtype, optional
        The value's default dtype (bool, int64 or float64) when None.
    device : {"cpu", None}
        The device.

    Returns
    -------
    Array
        The array.
    """
    _check_device(device)
    _check_dtype(dtype)
    if isinstance(fill_value, Array) and fill_value.ndim == 0:
        fill_value = fill_value._value()[()]
    if dtype is None:
        if isinstance(fill_value, type(True)):
            dtype = bool
        elif isinstance(fill_value, int):
            dtype = int64
        elif isinstance(fill_value, float):
            dtype = float64
        else:
            dtype = _np.asarray(fill_value).dtype
    shape = _shape(shape)
    dtype = _np.dtype(dtype)
    # an int fill value goes through ca_array_full_int64/_uint64 (exact past 2**53)
    return Array._new(_core.full(shape, fill_value, chunks=_chunks(shape), dtype=dtype))


def _like(x, dtype, device):
    _check_device(device)
    _check_dtype(dtype)
    return x.shape, (x.dtype if dtype is None else dtype)


def empty_like(x, /, *, dtype=None, device=None):
    """An uninitialised array like ``x`` (zeros here).

    Parameters
    ----------
    x : Array
        Gives the shape, and the dtype when ``dtype`` is None.
    dtype : dtype, optional
        The dtype.
    device : {"cpu", None}
        The device.

    Returns
    -------
    Array
        The array.
    """
    shape, dt = _like(x, dtype, device)
    return full(shape, 0, dtype=dt)


def zeros_like(x, /, *, dtype=None, device=None):
    """Zeros like ``x``.

    Parameters
    ----------
    x : Array
        Gives the shape, and the dtype when ``dtype`` is None.
    dtype : dtype, optional
        The dtype.
    device : {"cpu", None}
        The device.

    Returns
    -------
    Array
        The array.
    """
    shape, dt = _like(x, dtype, device)
    return full(shape, 0, dtype=dt)


def ones_like(x, /, *, dtype=None, device=None):
    """Ones like ``x``.

    Parameters
    ----------
    x : Array
        Gives the shape, and the dtype when ``dtype`` is None.
    dtype : dtype, optional
        The dtype.
    device : {"cpu", None}
        The device.

    Returns
    -------
    Array
        The array.
    """
    shape, dt = _like(x, dtype, device)
    return full(shape, 1, dtype=dt)


def full_like(x, /, fill_value, *, dtype=None, device=None):
    """An array like ``x`` filled with one value.

    Parameters
    ----------
    x : Array
        Gives the shape, and the dtype when ``dtype`` is None.
    fill_value : bool, int or float
        The value.
    dtype : dtype, optional
        The dtype.
    device : {"cpu", None}
        The device.

    Returns
    -------
    Array
        The array.
    """
    shape, dt = _like(x, dtype, device)
    return full(shape, fill_value, dtype=dt)


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    """A 2-d array with ones on a diagonal.

    Parameters
    ----------
    n_rows, n_cols : int
        The shape (``n_cols`` defaults to ``n_rows``).
    k : int, default 0
        The diagonal's offset.
    dtype : dtype, optional
        Default float64.
    device : {"cpu", None}
        The device.

    Returns
    -------
    Array
        The array.
    """
    _check_device(device)
    _check_dtype(dtype)
    m = n_rows if n_cols is None else n_cols
    return Array._new(_core.eye(n_rows, m, k=k, chunks=_chunks((n_rows, m)), dtype=dtype or float64))


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    """Evenly spaced numbers over an interval.

    Parameters
    ----------
    start, stop : int or float
        The interval's ends.
    num : int
        How many values.
    dtype : dtype, optional
        Default float64.
    device : {"cpu", None}
        The device.
    endpoint : bool, default True
        Whether ``stop`` is included.

    Returns
    -------
    Array
        A 1-d array.
    """
    _check_device(device)
    _check_dtype(dtype)
    return Array._new(_core.linspace(start, stop, num=num, endpoint=endpoint, chunks=_chunks((num,)),
                                     dtype=dtype or float64))


def meshgrid(*arrays, indexing="xy"):
    """Coordinate matrices from coordinate vectors.

    Parameters
    ----------
    *arrays : Array
        1-d arrays of one dtype.
    indexing : {"xy", "ij"}
        Cartesian or matrix indexing.

    Returns
    -------
    list of Array
        One array per input.
    """
    from .. import _routines
    if len({a.dtype for a in arrays}) > 1:
        raise ValueError("meshgrid inputs must all have the same dtype")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', not {indexing!r}")
    return [Array._new(a) for a in _routines.meshgrid(*[a._array for a in arrays], indexing=indexing)]


def tril(x, /, *, k=0):
    """The lower triangle of (each matrix of) ``x``.

    Parameters
    ----------
    x : Array
        At least 2-d.
    k : int, default 0
        The diagonal above which to zero.

    Returns
    -------
    Array
        The result.
    """
    from .. import _routines
    if x.ndim < 2:
        raise ValueError("x must be at least 2-dimensional for tril")
    return Array._new(_routines.tril(x._array, k=k))


def triu(x, /, *, k=0):
    """The upper triangle of (each matrix of) ``x``.

    Parameters
    ----------
    x : Array
        At least 2-d.
    k : int, default 0
        The diagonal below which to zero.

    Returns
    -------
    Array
        The result.
    """
    from .. import _routines
    if x.ndim < 2:
        raise ValueError("x must be at least 2-dimensional for triu")
    return Array._new(_routines.triu(x._array, k=k))


def from_dlpack(x, /):
    """An array from an object with ``__dlpack__`` (a NumPy array, another namespace's array).

    Parameters
    ----------
    x : object
        Supports the DLPack protocol on the CPU.

    Returns
    -------
    Array
        A copy of its data, as a chunkarray array.
    """
    return Array._new(_from_numpy(_np.from_dlpack(x).copy()))


# ------------------------------------------------------------------------------------------------
# Data type functions
# ------------------------------------------------------------------------------------------------

def astype(x, dtype, /, *, copy=True):
    """Cast an array to another dtype.

    Parameters
    ----------
    x : Array
        The input.
    dtype : dtype
        The new dtype.
    copy : bool, default True
        False returns ``x`` itself when the dtype is unchanged.

    Returns
    -------
    Array
        The cast array.
    """
    _check_dtype(dtype)
    if not copy and dtype == x.dtype:
        return x
    return Array._new(x._array.astype(dtype))


def broadcast_arrays(*arrays):
    """Broadcast arrays against each other.

    Parameters
    ----------
    *arrays : Array
        The arrays.

    Returns
    -------
    list of Array
        The broadcast arrays.
    """
    from .. import _routines
    return [Array._new(a) for a in _routines.broadcast_arrays(*[a._array for a in arrays])]


def broadcast_to(x, /, shape):
    """Broadcast an array to a shape.

    Parameters
    ----------
    x : Array
        The input.
    shape : tuple of int
        The new shape.

    Returns
    -------
    Array
        The broadcast array.
    """
    from .. import _shape
    return Array._new(_shape.broadcast_to(x._array, _shape_arg(shape)))


def _shape_arg(shape):
    return tuple(int(s) for s in shape)


def can_cast(from_, to, /):
    """Whether the standard's promotion rules cast ``from_`` to ``to``.

    Parameters
    ----------
    from_ : dtype or Array
        The source.
    to : dtype
        The target.

    Returns
    -------
    bool
        True if ``from_`` promotes to ``to``.
    """
    if isinstance(from_, Array):
        from_ = from_.dtype
    elif from_ not in _all_dtypes:
        raise TypeError(f"{from_=}, but should be an array_api array or dtype")
    if to not in _all_dtypes:
        raise TypeError(f"{to=}, but should be a dtype")
    try:
        return _result_type(from_, to) == to
    except TypeError:
        return False


finfo_object = _namedtuple("finfo_object", "bits eps max min smallest_normal")
iinfo_object = _namedtuple("iinfo_object", "bits max min")


def finfo(type, /):  # noqa: A002
    """Machine limits of a floating-point dtype.

    Parameters
    ----------
    type : dtype or Array
        float32 or float64.

    Returns
    -------
    finfo_object
        ``bits``, ``eps``, ``max``, ``min``, ``smallest_normal`` as Python numbers.
    """
    fi = _np.finfo(type.dtype if isinstance(type, Array) else type)
    return finfo_object(fi.bits, float(fi.eps), float(fi.max), float(fi.min), float(fi.smallest_normal))


def iinfo(type, /):  # noqa: A002
    """Machine limits of an integer dtype.

    Parameters
    ----------
    type : dtype or Array
        An integer dtype.

    Returns
    -------
    iinfo_object
        ``bits``, ``max``, ``min`` as Python ints.
    """
    ii = _np.iinfo(type.dtype if isinstance(type, Array) else type)
    return iinfo_object(ii.bits, int(ii.max), int(ii.min))


def result_type(*arrays_and_dtypes):
    """The dtype the standard's promotion table gives the arguments.

    Parameters
    ----------
    *arrays_and_dtypes : Array or dtype
        At least one.

    Returns
    -------
    dtype
        The promoted dtype (TypeError where the table has none).
    """
    A = []
    for a in arrays_and_dtypes:
        if isinstance(a, Array):
            a = a.dtype
        elif isinstance(a, _np.ndarray) or a not in _all_dtypes:
            raise TypeError("result_type() inputs must be array_api arrays or dtypes")
        A.append(a)
    if not A:
        raise ValueError("at least one array or dtype is required")
    t = A[0]
    for t2 in A[1:]:
        t = _result_type(t, t2)
    return t


# ------------------------------------------------------------------------------------------------
# Element-wise functions
# ------------------------------------------------------------------------------------------------

_U = _codes.UNARY
_B = _codes.BINARY


def _unary(std_name, code, category, doc, identity_for_int=False):
    def f(x, /):
        _need(x, std_name, category)
        if identity_for_int and x.dtype in _integer_dtypes:
            return Array._new(x._array._another())
        return _unop(code, x)
    f.__name__ = f.__qualname__ = std_name
    f.__doc__ = (f"{doc}, element-wise.\n\nParameters\n----------\nx : Array\n    The input ({category} "
                 f"dtype).\n\nReturns\n-------\nArray\n    The lazy result.\n")
    return f


def _binary(std_name, code, category, doc):
    def f(x1, x2, /):
        _need(x1, std_name, category)
        _need(x2, std_name, category)
        return _binop(code, x1, x2)
    f.__name__ = f.__qualname__ = std_name
    f.__doc__ = (f"{doc}, element-wise.\n\nParameters\n----------\nx1, x2 : Array\n    The operands "
                 f"({category} dtypes), broadcast together and promoted by the standard's table.\n\n"
                 f"Returns\n-------\nArray\n    The lazy result.\n")
    return f


_UNARY_TABLE = [  # standard name, chunkarray op, dtype category, summary
    ("abs", "absolute", "numeric", "The absolute value"),
    ("acos", "arccos", "floating-point", "The inverse cosine"),
    ("acosh", "arccosh", "floating-point", "The inverse hyperbolic cosine"),
    ("asin", "arcsin", "floating-point", "The inverse sine"),
    ("asinh", "arcsinh", "floating-point", "The inverse hyperbolic sine"),
    ("atan", "arctan", "floating-point", "The inverse tangent"),
    ("atanh", "arctanh", "floating-point", "The inverse hyperbolic tangent"),
    ("bitwise_invert", "invert", "integer or boolean", "The bitwise inversion"),
    ("cos", "cos", "floating-point", "The cosine"),
    ("cosh", "cosh", "floating-point", "The hyperbolic cosine"),
    ("exp", "exp", "floating-point", "The exponential"),
    ("expm1", "expm1", "floating-point", "exp(x) - 1"),
    ("isfinite", "isfinite", "numeric", "Whether finite"),
    ("isinf", "isinf", "numeric", "Whether infinite"),
    ("isnan", "isnan", "numeric", "Whether NaN"),
    ("log", "log", "floating-point", "The natural logarithm"),
    ("log1p", "log1p", "floating-point", "log(1 + x)"),
    ("log2", "log2", "floating-point", "The base-2 logarithm"),
    ("log10", "log10", "floating-point", "The base-10 logarithm"),
    ("logical_not", "logical_not", "boolean", "The logical NOT"),
    ("negative", "negative", "numeric", "The negation"),
    ("sign", "sign", "numeric", "The sign"),
    ("sin", "sin", "floating-point", "The sine"),
    ("sinh", "sinh", "floating-point", "The hyperbolic sine"),
    ("square", "square", "numeric", "The square"),
    ("sqrt", "sqrt", "floating-point", "The square root"),
    ("tan", "tan", "floating-point", "The tangent"),
    ("tanh", "tanh", "floating-point", "The hyperbolic tangent"),
]
for _n, _c, _cat, _d in _UNARY_TABLE:
    globals()[_n] = _unary(_n, _U[_c], _cat, _d)
for _n, _c, _d in (("ceil", "ceil", "The ceiling"), ("floor", "floor", "The floor"),
                   ("trunc", "trunc", "The truncation"), ("round", "rint", "Rounding half to even")):
    globals()[_n] = _unary(_n, _U[_c], "numeric", _d, identity_for_int=True)

_BINARY_TABLE = [
    ("add", "add", "numeric", "The sum"),
    ("atan2", "arctan2", "floating-point", "The inverse tangent of x1/x2 by quadrant"),
    ("bitwise_and", "bitwise_and", "integer or boolean", "The bitwise AND"),
    ("bitwise_left_shift", "left_shift", "integer", "The left shift"),
    ("bitwise_or", "bitwise_or", "integer or boolean", "The bitwise OR"),
    ("bitwise_right_shift", "right_shift", "integer", "The right shift"),
    ("bitwise_xor", "bitwise_xor", "integer or boolean", "The bitwise XOR"),
    ("divide", "true_divide", "floating-point", "The true quotient"),
    ("equal", "equal", "all", "Equality"),
    ("floor_divide", "floordiv_std", "numeric", "The floored quotient (the standard's special cases)"),
    ("greater", "greater", "numeric", "x1 > x2"),
    ("greater_equal", "greater_equal", "numeric", "x1 >= x2"),
    ("less", "less", "numeric", "x1 < x2"),
    ("less_equal", "less_equal", "numeric", "x1 <= x2"),
    ("logaddexp", "logaddexp", "floating-point", "log(exp(x1) + exp(x2))"),
    ("logical_and", "logical_and", "boolean", "The logical AND"),
    ("logical_or", "logical_or", "boolean", "The logical OR"),
    ("logical_xor", "logical_xor", "boolean", "The logical XOR"),
    ("multiply", "multiply", "numeric", "The product"),
    ("not_equal", "not_equal", "all", "Inequality"),
    ("pow", "power", "numeric", "x1 to the power x2"),
    ("remainder", "remainder", "numeric", "The remainder, with the sign of x2"),
    ("subtract", "subtract", "numeric", "The difference"),
]
_B = dict(_B, floordiv_std=_codes.CA_OP_FLOORDIV_STD)  # not a NumPy ufunc: no entry in BINARY
for _n, _c, _cat, _d in _BINARY_TABLE:
    globals()[_n] = _binary(_n, _B[_c], _cat, _d)


def positive(x, /):
    """The identity (``+x``), element-wise.

    Parameters
    ----------
    x : Array
        A numeric array.

    Returns
    -------
    Array
        An array equal to ``x``.
    """
    _need(x, "positive", "numeric")
    return +x


# ------------------------------------------------------------------------------------------------
# Manipulation
# ------------------------------------------------------------------------------------------------

def concat(arrays, /, *, axis=0):
    """Join arrays along an axis.

    Parameters
    ----------
    arrays : sequence of Array
        The arrays (same shape but along ``axis``).
    axis : int or None, default 0
        The axis; None flattens first.

    Returns
    -------
    Array
        The joined array, in the promoted dtype.
    """
    dtype = result_type(*arrays)
    arrs = [a._array if a.dtype == dtype else a._array.astype(dtype) for a in arrays]
    from .. import _shape
    if axis is None:
        arrs = [_shape.ravel(a) for a in arrs]
        axis = 0
    return Array._new(_shape.concatenate(arrs, axis=axis))


def expand_dims(x, /, *, axis=0):
    """Insert a length-1 axis.

    Parameters
    ----------
    x : Array
        The input.
    axis : int, default 0
        Where the new axis goes (in ``[-ndim-1, ndim]``).

    Returns
    -------
    Array
        The expanded array.
    """
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise IndexError(f"expand_dims: axis {axis} out of range for {x.ndim + 1} dimensions")
    from .. import _shape
    return Array._new(_shape.expand_dims(x._array, axis))


def flip(x, /, *, axis=None):
    """Reverse the order of elements along axes.

    Parameters
    ----------
    x : Array
        The input.
    axis : int, tuple of int or None
        The axes; None flips every axis.

    Returns
    -------
    Array
        The flipped array.
    """
    from .. import _shape
    return Array._new(_shape.flip(x._array, axis=axis))


def permute_dims(x, /, axes):
    """Permute the axes.

    Parameters
    ----------
    x : Array
        The input.
    axes : tuple of int
        The new order of the axes.

    Returns
    -------
    Array
        The transposed array.
    """
    from .. import _shape
    return Array._new(_shape.transpose(x._array, tuple(axes)))


def reshape(x, /, shape, *, copy=None):
    """Give an array a new shape.

    Parameters
    ----------
    x : Array
        The input.
    shape : tuple of int
        The new shape (one entry may be -1).
    copy : bool, optional
        Accepted; chunkarray arrays are immutable values, so a reshape never shares writable memory.

    Returns
    -------
    Array
        The reshaped array.
    """
    from .. import _shape
    shape = _shape_arg(shape)
    if copy is False and x.size and tuple(shape) != x.shape:
        pass  # immutable values: nothing is shared that could be written through
    return Array._new(_shape.reshape(x._array, shape))


def roll(x, /, shift, *, axis=None):
    """Roll elements along axes.

    Parameters
    ----------
    x : Array
        The input.
    shift : int or tuple of int
        The shifts.
    axis : int, tuple of int or None
        The axes; None rolls the flattened array.

    Returns
    -------
    Array
        The rolled array.
    """
    from .. import _routines
    return Array._new(_routines.roll(x._array, shift, axis=axis))


def squeeze(x, /, axis):
    """Remove length-1 axes.

    Parameters
    ----------
    x : Array
        The input.
    axis : int or tuple of int
        The axes (each of length 1, else ValueError).

    Returns
    -------
    Array
        The squeezed array.
    """
    from .. import _shape
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    for a in axes:
        if not -x.ndim <= a < x.ndim:
            raise IndexError(f"squeeze: axis {a} out of range for {x.ndim} dimensions")
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has length {x.shape[a]}, not 1")
    return Array._new(_shape.squeeze(x._array, axis=axes))


def stack(arrays, /, *, axis=0):
    """Join arrays along a new axis.

    Parameters
    ----------
    arrays : sequence of Array
        Arrays of one shape.
    axis : int, default 0
        The new axis's position.

    Returns
    -------
    Array
        The stacked array, in the promoted dtype.
    """
    dtype = result_type(*arrays)
    from .. import _shape
    return Array._new(_shape.stack([a._array if a.dtype == dtype else a._array.astype(dtype)
                                    for a in arrays], axis=axis))


# ------------------------------------------------------------------------------------------------
# Searching, sorting, sets
# ------------------------------------------------------------------------------------------------

def argmax(x, /, *, axis=None, keepdims=False):
    """The index of the largest value (the first one on ties).

    Parameters
    ----------
    x : Array
        A numeric array.
    axis : int, optional
        The axis; None searches the flattened array.
    keepdims : bool, default False
        Keep the reduced axis with length 1.

    Returns
    -------
    Array
        int64 indices.
    """
    _need(x, "argmax", "numeric")
    return Array._new(_reduce_ca("argmax", x, axis, keepdims))


def argmin(x, /, *, axis=None, keepdims=False):
    """The index of the smallest value (the first one on ties).

    Parameters
    ----------
    x : Array
        A numeric array.
    axis : int, optional
        The axis; None searches the flattened array.
    keepdims : bool, default False
        Keep the reduced axis with length 1.

    Returns
    -------
    Array
        int64 indices.
    """
    _need(x, "argmin", "numeric")
    return Array._new(_reduce_ca("argmin", x, axis, keepdims))


def nonzero(x, /):
    """The indices of the non-zero elements.

    Parameters
    ----------
    x : Array
        At least 1-d.

    Returns
    -------
    tuple of Array
        One int64 array per axis (their length is known after computing).
    """
    from .. import _routines, _shape as _sh
    if x.ndim == 0:  # as numpy.array_api (NumPy treats a 0-d array as 1-d here)
        return (Array._new(_known(_routines.nonzero(_sh.reshape(x._array, (1,)))[0])),)
    return tuple(Array._new(_known(a)) for a in _routines.nonzero(x._array))


def where(condition, x1, x2, /):
    """Elements of ``x1`` where ``condition`` holds, of ``x2`` elsewhere.

    Parameters
    ----------
    condition : Array
        A boolean array.
    x1, x2 : Array
        The choices (promoted by the standard's table).

    Returns
    -------
    Array
        The selection.
    """
    dt = _result_type(x1.dtype, x2.dtype)
    a, b = x1._array, x2._array
    a = a if a.dtype == dt else a.astype(dt)
    b = b if b.dtype == dt else b.astype(dt)
    return Array._new(_CA._new(_lib().ca_array_where, condition._array, a, b,
                               _L.Scalar(), _L.Scalar()))


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """Sort along an axis (stable; NaNs last ascending, first descending).

    Parameters
    ----------
    x : Array
        The input.
    axis : int, default -1
        The axis.
    descending : bool, default False
        Sort in descending order (stable: equal elements keep their order).
    stable : bool, default True
        The sort is always stable.

    Returns
    -------
    Array
        The sorted array.
    """
    from .. import _routines
    return Array._new(_routines.sort(x._array, axis=axis, descending=descending))


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """The indices that sort along an axis (stable).

    Parameters
    ----------
    x : Array
        The input.
    axis : int, default -1
        The axis.
    descending : bool, default False
        Sort in descending order (stable).
    stable : bool, default True
        The sort is always stable.

    Returns
    -------
    Array
        int64 indices.
    """
    from .. import _routines
    return Array._new(_routines.argsort(x._array, axis=axis, descending=descending))


UniqueAllResult = _namedtuple("UniqueAllResult", "values indices inverse_indices counts")
UniqueCountsResult = _namedtuple("UniqueCountsResult", "values counts")
UniqueInverseResult = _namedtuple("UniqueInverseResult", "values inverse_indices")


def _unique(x, index, inverse, counts):
    from .. import _routines
    out = _routines.unique(x._array, return_index=index, return_inverse=inverse, return_counts=counts,
                           equal_nan=False)
    out = out if isinstance(out, tuple) else (out,)
    out = tuple(_known(o) for o in out)
    res = [Array._new(o) for o in out]
    if inverse:  # the standard's inverse indices have the input's shape
        k = 1 + int(index)
        if x.ndim != 1:
            from .. import _shape
            res[k] = Array._new(_shape.reshape(out[k], x.shape))
    return res


def unique_all(x, /):
    """The unique values, the first index of each, the inverse indices and the counts.

    NaNs are each a value of their own (the standard's rule). Output lengths are known after
    computing.

    Parameters
    ----------
    x : Array
        The input (flattened).

    Returns
    -------
    UniqueAllResult
        ``values``, ``indices``, ``inverse_indices`` (x's shape), ``counts``.
    """
    return UniqueAllResult(*_unique(x, True, True, True))


def unique_counts(x, /):
    """The unique values and their counts.

    Parameters
    ----------
    x : Array
        The input (flattened).

    Returns
    -------
    UniqueCountsResult
        ``values``, ``counts``.
    """
    return UniqueCountsResult(*_unique(x, False, False, True))


def unique_inverse(x, /):
    """The unique values and the inverse indices.

    Parameters
    ----------
    x : Array
        The input (flattened).

    Returns
    -------
    UniqueInverseResult
        ``values``, ``inverse_indices`` (x's shape).
    """
    return UniqueInverseResult(*_unique(x, False, True, False))


def unique_values(x, /):
    """The unique values, sorted (each NaN its own value).

    Parameters
    ----------
    x : Array
        The input (flattened).

    Returns
    -------
    Array
        The values.
    """
    return _unique(x, False, False, False)[0]


# ------------------------------------------------------------------------------------------------
# Statistics and utilities
# ------------------------------------------------------------------------------------------------

def _axis_arg(axis, ndim):
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    for a in axes:
        if not -ndim <= a < _b.max(ndim, 1) or (ndim == 0 and a not in (0, -1)):
            raise IndexError(f"axis {a} is out of bounds for an array of {ndim} dimensions")
    return axes


def _reduce_ca(name, x, axis, keepdims, dtype=None, ddof=0):
    axis = _axis_arg(axis, x.ndim)
    if axis == ():  # a reduction over no axis: each element alone
        return _reduce_none(name, x, dtype, ddof)
    if axis is not None and x.ndim == 0:
        axis = None
    return x._array._reduce(name, axis=axis, keepdims=keepdims, dtype=dtype, ddof=ddof)


def _reduce_none(name, x, dtype, ddof):
    """The reduction of each element on its own (``axis=()``), with the engine's element-wise ops."""
    a = x._array
    if name in ("sum", "prod", "max", "min", "mean"):
        return a.astype(dtype) if dtype is not None and dtype != a.dtype else a._another()
    if name in ("all", "any"):
        return a.astype(bool) if a.dtype != bool else a._another()
    if name in ("var", "std"):
        zero = a - a
        v = zero * zero / _np.array(_b.max(1.0 - ddof, 0.0), a.dtype)[()]
        return v if name == "var" else v ** _np.array(0.5, a.dtype)[()]
    raise ValueError(f"{name}: axis=() is not supported")


def _stat_fn(name, category, doc, default_dtype=False, correction=False):
    def f(x, /, *, axis=None, dtype=None, keepdims=False, correction=0.0):
        _need(x, name, category)
        dt = None
        if default_dtype:
            _check_dtype(dtype)
            if dtype is None:
                if x.dtype in _floating_dtypes:
                    dt = float64  # the 2021.12 standard: the default floating-point dtype
                elif x.dtype.kind == "u":
                    dt = uint64
                else:
                    dt = int64
            else:
                dt = dtype
        return Array._new(_reduce_ca(name, x, axis, keepdims, dt, correction))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"{doc}.\n\nParameters\n----------\nx : Array\n    The input ({category} dtype).\n"
                 "axis : int, tuple of int or None\n    The axes to reduce; None reduces all.\n"
                 "dtype : dtype, optional\n    sum/prod: the result dtype (default: the input's kind at "
                 "its widest).\nkeepdims : bool, default False\n    Keep the reduced axes with length 1.\n"
                 "correction : float, default 0\n    std/var: the degrees of freedom subtracted from N.\n\n"
                 "Returns\n-------\nArray\n    The reduction.\n")
    return f


max = _stat_fn("max", "numeric", "The maximum")  # noqa: A001
min = _stat_fn("min", "numeric", "The minimum")  # noqa: A001
mean = _stat_fn("mean", "floating-point", "The arithmetic mean")
prod = _stat_fn("prod", "numeric", "The product", default_dtype=True)
sum = _stat_fn("sum", "numeric", "The sum", default_dtype=True)  # noqa: A001
std = _stat_fn("std", "floating-point", "The standard deviation")
var = _stat_fn("var", "floating-point", "The variance")


def all(x, /, *, axis=None, keepdims=False):  # noqa: A001
    """Whether every element along the axes is true.

    Parameters
    ----------
    x : Array
        The input.
    axis : int, tuple of int or None
        The axes; None reduces all.
    keepdims : bool, default False
        Keep the reduced axes with length 1.

    Returns
    -------
    Array
        A boolean array.
    """
    return Array._new(_reduce_ca("all", x, axis, keepdims))


def any(x, /, *, axis=None, keepdims=False):  # noqa: A001
    """Whether any element along the axes is true.

    Parameters
    ----------
    x : Array
        The input.
    axis : int, tuple of int or None
        The axes; None reduces all.
    keepdims : bool, default False
        Keep the reduced axes with length 1.

    Returns
    -------
    Array
        A boolean array.
    """
    return Array._new(_reduce_ca("any", x, axis, keepdims))


from . import linalg  # noqa: E402
from .linalg import matmul, matrix_transpose, tensordot, vecdot  # noqa: E402,F401

__all__ = sorted([n for n, v in list(globals().items())
                  if not n.startswith("_") and n not in ("linalg",) and not isinstance(v, type(_math))]
                 + ["linalg"])
