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
    """np.radians: the same as deg2rad."""
    return _unop(x, _codes.CA_OP_DEG2RAD)


def degrees(x):
    """np.degrees: the same as rad2deg."""
    return _unop(x, _codes.CA_OP_RAD2DEG)


def fix(x):
    """np.fix: round toward zero (the C library's trunc: the same values, signed zeros and dtypes)."""
    return _unop(x, _codes.CA_OP_TRUNC)


def bitwise_not(x):
    """np.bitwise_not: the same as invert."""
    return _unop(x, _codes.CA_OP_INVERT)


def frexp(x):
    """np.frexp: (mantissa, exponent) with x == mantissa * 2**exponent; the exponent is int32.

    Two lazy arrays over the same input (the C library's CA_OP_FREXP_MANTISSA and CA_OP_FREXP_EXPONENT):
    computing both together reads the input once per block."""
    x = asarray(x)
    return x._unop(_codes.CA_OP_FREXP_MANTISSA), x._unop(_codes.CA_OP_FREXP_EXPONENT)


def modf(x):
    """np.modf: (fractional part, integral part), both signed as x (CA_OP_MODF_FRACTION, CA_OP_TRUNC)."""
    x = asarray(x)
    return x._unop(_codes.CA_OP_MODF_FRACTION), x._unop(_codes.CA_OP_TRUNC)


def divmod(x, y):  # noqa: A001 - NumPy's name
    """np.divmod: (floor_divide(x, y), remainder(x, y))."""
    return _binop(_codes.CA_OP_FLOORDIV, x, y), _binop(_codes.CA_OP_MOD, x, y)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """np.nan_to_num: nan, +inf and -inf replaced (by default 0 and the dtype's largest finite values).

    Complex arrays with other values than the defaults compute block by block through NumPy."""
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
    """np.isclose as one fused expression (the C library's ca_array_isclose)."""
    return Array._new(lib().ca_array_isclose, _operand(a), _operand(b), float(rtol), float(atol),
                      int(bool(equal_nan)))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """np.allclose: a lazy 0-d bool array (as dask's), the all() reduction fused with isclose."""
    return isclose(a, b, rtol, atol, equal_nan).all()


def angle(z, deg=False):
    """np.angle: the argument in radians (degrees with ``deg``)."""
    r = _unop(z, _codes.CA_OP_ANGLE)
    return r * (180 / np.pi) if deg else r


def isnull(values):
    """dask.array.isnull: nan (and NaT) elementwise; False for integers and bool."""
    return _unop(values, _codes.CA_OP_ISNAN)


def notnull(values):
    """dask.array.notnull: the negation of isnull."""
    return _unop(_unop(values, _codes.CA_OP_ISNAN), _codes.CA_OP_NOT)


# NumPy's ufuncs with two results, and its aliases that are separate ufunc objects, through
# Array.__array_ufunc__; its functions through __array_function__.
core._UFUNC_FUNCTIONS.update({"frexp": frexp, "modf": modf, "divmod": divmod, "radians": radians,
                              "degrees": degrees})
core._NUMPY_FUNCTIONS.update({np.fix: fix, np.nan_to_num: nan_to_num, np.isclose: isclose,
                              np.allclose: allclose, np.angle: angle})
