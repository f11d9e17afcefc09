"""Elementwise functions beyond one ufunc per table row (issue 16): NumPy's aliases, the ufuncs with two
results (frexp, modf, divmod), the NumPy functions with parameters (nan_to_num, isclose, allclose, angle)
and dask's pandas-style isnull/notnull. Every one is built from the C library's fused ops, so a chain of
them computes in one pass over each block.
"""
import ctypes
import functools

import numpy as np

from . import _codes
from . import core
from .core import Array, asarray, _is_scalar, lib

__all__ = ["radians", "degrees", "fix", "bitwise_not", "frexp", "modf", "divmod", "nan_to_num", "isclose",
           "allclose", "angle", "isnull", "notnull"]


def _unop(x, code):
    return asarray(x)._unop(code)


def _binop(code, x, y):
    if isinstance(x, Array):
        return x._binop(code, y)
    if isinstance(y, Array):
        return y._binop(code, x, True)
    return asarray(x)._binop(code, y)


def radians(x):
    """Convert angles from degrees to radians (``numpy.radians``, the same op as ``deg2rad``).

    Parameters
    ----------
    x : Array or array_like
        The input (array_like goes through ``asarray``).

    Returns
    -------
    Array
        The lazy result, elementwise, with x's shape and chunks.
    """
    return _unop(x, _codes.CA_OP_DEG2RAD)


def degrees(x):
    """Convert angles from radians to degrees (``numpy.degrees``, the same op as ``rad2deg``).

    Parameters
    ----------
    x : Array or array_like
        The input (array_like goes through ``asarray``).

    Returns
    -------
    Array
        The lazy result, elementwise, with x's shape and chunks.
    """
    return _unop(x, _codes.CA_OP_RAD2DEG)


def fix(x):
    """Round toward zero (``numpy.fix``).

    The C library's trunc: the same values, signed zeros and dtypes as NumPy's fix.

    Parameters
    ----------
    x : Array or array_like
        The input (array_like goes through ``asarray``).

    Returns
    -------
    Array
        The lazy result with x's shape and chunks.
    """
    return _unop(x, _codes.CA_OP_TRUNC)


def bitwise_not(x):
    """Bitwise NOT, logical NOT for bool (``numpy.bitwise_not``, the same op as ``invert``).

    Parameters
    ----------
    x : Array or array_like
        The input (array_like goes through ``asarray``).

    Returns
    -------
    Array
        The lazy result with x's shape, chunks and dtype.
    """
    return _unop(x, _codes.CA_OP_INVERT)


def frexp(x):
    """Split into mantissa and exponent of two (``numpy.frexp``): ``x == mantissa * 2**exponent``.

    Two lazy arrays over the same input (the C library's CA_OP_FREXP_MANTISSA and CA_OP_FREXP_EXPONENT):
    computing both together reads the input once per block.

    Parameters
    ----------
    x : Array or array_like
        The input, a floating dtype.

    Returns
    -------
    mantissa : Array
        In x's floating dtype, with absolute value in [0.5, 1) (0 for 0).
    exponent : Array
        int32.
    """
    x = asarray(x)
    return x._unop(_codes.CA_OP_FREXP_MANTISSA), x._unop(_codes.CA_OP_FREXP_EXPONENT)


def modf(x):
    """The fractional and integral parts (``numpy.modf``), both with the sign of x.

    Two lazy arrays over the same input (CA_OP_MODF_FRACTION and CA_OP_TRUNC).

    Parameters
    ----------
    x : Array or array_like
        The input.

    Returns
    -------
    fraction : Array
        The fractional part.
    integral : Array
        The integral part (x rounded toward zero).
    """
    x = asarray(x)
    return x._unop(_codes.CA_OP_MODF_FRACTION), x._unop(_codes.CA_OP_TRUNC)


def divmod(x, y):  # noqa: A001 - NumPy's name
    """Floor division and remainder together (``numpy.divmod``).

    Parameters
    ----------
    x, y : Array, array_like or scalar
        The dividend and the divisor; they broadcast. At least one should be an Array (otherwise x is
        wrapped as one).

    Returns
    -------
    quotient : Array
        ``floor_divide(x, y)``.
    remainder : Array
        ``remainder(x, y)`` (the sign of y, as NumPy's).
    """
    return _binop(_codes.CA_OP_FLOORDIV, x, y), _binop(_codes.CA_OP_MOD, x, y)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """Replace nan, +inf and -inf by finite numbers (``numpy.nan_to_num``).

    By default nan becomes 0 and the infinities the dtype's largest and smallest finite values; one fused
    op of the C library (ca_array_nan_to_num). Complex arrays with other values than the defaults compute
    block by block through NumPy. Integer and bool arrays come back unchanged.

    Parameters
    ----------
    x : Array or array_like
        The input.
    copy : bool, default True
        Accepted for NumPy's signature: the result is always a new lazy array (no in-place change).
    nan : float, default 0.0
        The value for nan.
    posinf, neginf : float, optional
        The values for +inf and -inf; None: the dtype's largest / smallest finite value.

    Returns
    -------
    Array
        The lazy result with x's shape, chunks and dtype.
    """
    x = asarray(x)
    if x.dtype.kind == "c" and (nan != 0 or np.signbit(nan) or posinf is not None or neginf is not None):
        return core.elemwise(functools.partial(np.nan_to_num, nan=nan, posinf=posinf, neginf=neginf), x,
                             dtype=x.dtype)
    pi = ctypes.byref(ctypes.c_double(posinf)) if posinf is not None else None
    ni = ctypes.byref(ctypes.c_double(neginf)) if neginf is not None else None
    return Array._new(lib().ca_array_nan_to_num, x, float(nan), pi, ni)


def _operand(v):
    if isinstance(v, Array):
        return v
    return asarray(np.asarray(v))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise equality within a tolerance (``numpy.isclose``).

    ``|a - b| <= atol + rtol * |b|``, as one fused expression (the C library's ca_array_isclose);
    infinities are close only to the same infinity.

    Parameters
    ----------
    a, b : Array, array_like or scalar
        The inputs; they broadcast.
    rtol : float, default 1e-05
        The relative tolerance (applied to ``|b|``).
    atol : float, default 1e-08
        The absolute tolerance.
    equal_nan : bool, default False
        Whether nan is close to nan.

    Returns
    -------
    Array
        A lazy bool array of the broadcast shape.
    """
    return Array._new(lib().ca_array_isclose, _operand(a), _operand(b), float(rtol), float(atol),
                      int(bool(equal_nan)))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether all elements are equal within a tolerance (``numpy.allclose``).

    Unlike NumPy (which returns a Python bool) this returns a lazy 0-d bool Array, as dask does: the
    ``all()`` reduction fused with isclose. ``bool(result)`` computes it.

    Parameters
    ----------
    a, b : Array, array_like or scalar
        The inputs; they broadcast.
    rtol : float, default 1e-05
        The relative tolerance.
    atol : float, default 1e-08
        The absolute tolerance.
    equal_nan : bool, default False
        Whether nan is close to nan.

    Returns
    -------
    Array
        A lazy 0-d bool array.
    """
    return isclose(a, b, rtol, atol, equal_nan).all()


def angle(z, deg=False):
    """The argument (phase angle) of complex values (``numpy.angle``).

    Parameters
    ----------
    z : Array or array_like
        The input; real values have angle 0 (or pi for negative values).
    deg : bool, default False
        Return degrees instead of radians.

    Returns
    -------
    Array
        The lazy result, a floating dtype, with z's shape and chunks.
    """
    r = _unop(z, _codes.CA_OP_ANGLE)
    return r * (180 / np.pi) if deg else r


def isnull(values):
    """Elementwise test for missing values (``dask.array.isnull``): nan (and NaT).

    Parameters
    ----------
    values : Array or array_like
        The input; integer and bool arrays give all False.

    Returns
    -------
    Array
        A lazy bool array with the input's shape and chunks.
    """
    return _unop(values, _codes.CA_OP_ISNAN)


def notnull(values):
    """Elementwise test for present values (``dask.array.notnull``): the negation of isnull.

    Parameters
    ----------
    values : Array or array_like
        The input; integer and bool arrays give all True.

    Returns
    -------
    Array
        A lazy bool array with the input's shape and chunks.
    """
    return _unop(_unop(values, _codes.CA_OP_ISNAN), _codes.CA_OP_NOT)


# NumPy's ufuncs with two results, and its aliases that are separate ufunc objects, through
# Array.__array_ufunc__; its functions through __array_function__.
core._UFUNC_FUNCTIONS.update({"frexp": frexp, "modf": modf, "divmod": divmod, "radians": radians,
                              "degrees": degrees})
core._NUMPY_FUNCTIONS.update({np.fix: fix, np.nan_to_num: nan_to_num, np.isclose: isclose,
                              np.allclose: allclose, np.angle: angle})
