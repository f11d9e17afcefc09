"""NumPy-style functions over chunkarray.Array (kept apart from core so they do not shadow builtins there)."""
import numpy as np

from . import _lib as C
from . import core
from .core import Array, asarray, _is_scalar, _scalar, _UNARY, _BINARY, _REDUCE, _SCAN, lib


def _numpy_summary(name):
    """The one-line summary of NumPy's function ``name`` (after a ufunc's signature line)."""
    f = getattr(np, name, None)
    doc = getattr(f, "__doc__", None) or ""
    for para in doc.split("\n\n"):
        text = " ".join(line.strip() for line in para.strip().splitlines())
        if text and not text.startswith(f"{name}("):
            return text.rstrip(".")
    return name.replace("_", " ").capitalize()


def _doc(name, params, returns="Array\n    The lazy result, chunked like the input.", notes=""):
    doc = (f"{_numpy_summary(name)}, lazily (``numpy.{name}``).\n\n"
           f"Parameters\n----------\n{params}\n\nReturns\n-------\n{returns}\n")
    if notes:
        doc += f"\nNotes\n-----\n{notes}\n"
    if hasattr(np, name):
        doc += f"\nSee Also\n--------\nnumpy.{name}\n"
    return doc


_X = "x : Array or array_like\n    The input (NumPy values are wrapped with :func:`asarray`)."
_XY = ("x, y : Array, array_like or scalar\n    The operands, broadcast against each other as NumPy does; a "
       "scalar stays a scalar (no block of its own).")
_REDUCE_PARAMS = """a : Array or array_like
    The input.
axis : int or tuple of int, optional
    The axes to reduce; None reduces every axis.
dtype : numpy.dtype, optional
    The accumulator and result dtype (NumPy's default for the reduction when None; ignored by
    min, max, argmin, argmax, any, all and their nan-versions).
keepdims : bool, default False
    Keep the reduced axes with length 1.
split_every : int or dict, optional
    Blocks combined per step of the reduction tree (dask's ``split_every``).
ddof : int, default 0
    Delta degrees of freedom (var and std).
out : None
    Only None (chunkarray arrays are immutable)."""

def _unary_fn(op, name):
    def f(x):
        return asarray(x)._unop(op)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = _doc(name, _X)
    return f


def _binary_fn(op, name):
    def f(x, y):
        if isinstance(x, Array):
            return x._binop(op, y)
        if isinstance(y, Array):
            return y._binop(op, x, True)
        return asarray(x)._binop(op, y)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = _doc(name, _XY, "Array\n    The lazy result, with the broadcast shape and NumPy's result dtype.")
    return f


for _n, _op in _UNARY.items():
    globals()[_n] = _unary_fn(_op, _n)
for _n, _op in _BINARY.items():
    globals()[_n] = _binary_fn(_op, _n)
abs = globals()["absolute"]  # noqa: A001
conj = globals()["conjugate"]


def _reduce_fn(name):
    def f(a, axis=None, dtype=None, keepdims=False, split_every=None, ddof=0, out=None):
        if out is not None:
            raise NotImplementedError(f"{name}(out=...)")
        a = asarray(a)
        if name in ("min", "max", "argmin", "argmax", "any", "all", "nanmin", "nanmax", "nanargmin", "nanargmax"):
            dtype = None
        return a._reduce(name, axis, keepdims, dtype, ddof, split_every)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = _doc(name, _REDUCE_PARAMS, "Array\n    The lazy reduction (0-d when every axis is reduced: computes to a "
                     "NumPy scalar).", "A tree reduction: each block is reduced, then groups of ``split_every`` "
                     "partial results are combined until one remains (dask's reduction).")
    return f


for _n in _REDUCE:
    globals()[_n] = _reduce_fn(_n)
amin, amax = globals()["min"], globals()["max"]


def _scan_fn(name):
    def f(a, axis=None, dtype=None):
        return asarray(a)._scan(name, axis, dtype)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = _doc(name, "a : Array or array_like\n    The input.\naxis : int, optional\n    The axis to scan along; "
                     "None scans the flattened array.\ndtype : numpy.dtype, optional\n    The accumulator and "
                     "result dtype.")
    return f


for _n in _SCAN:
    globals()[_n] = _scan_fn(_n)


def where(cond, x, y):
    """Elements of ``x`` where ``cond`` is true, else of ``y`` (``numpy.where`` with three arguments).

    Parameters
    ----------
    cond : Array or array_like
        The condition.
    x, y : Array, array_like or scalar
        The values chosen from, broadcast with ``cond``.

    Returns
    -------
    Array
        The lazy selection, in NumPy's result dtype of ``x`` and ``y``.

    See Also
    --------
    numpy.where
    """
    cond = asarray(cond)
    xs, ys = _is_scalar(x), _is_scalar(y)
    xa = None if xs else asarray(x)
    ya = None if ys else asarray(y)
    return core.Array._new(lib().ca_array_where, cond._h, xa._h if xa is not None else None,
                      ya._h if ya is not None else None, _scalar(x) if xs else C.Scalar(),
                      _scalar(y) if ys else C.Scalar())


def clip(a, a_min=None, a_max=None):
    """Limit the values to ``[a_min, a_max]`` (``numpy.clip``).

    Parameters
    ----------
    a : Array or array_like
        The input.
    a_min, a_max : scalar, optional
        The bounds; None leaves that side open.

    Returns
    -------
    Array
        The clipped values.

    See Also
    --------
    numpy.clip
    """
    return asarray(a).clip(a_min, a_max)


def round(a, decimals=0):  # noqa: A001
    """Round to ``decimals`` decimals, halves to even (``numpy.round``).

    Parameters
    ----------
    a : Array or array_like
        The input.
    decimals : int, default 0
        Decimal places (negative: to the left of the point).

    Returns
    -------
    Array
        The rounded values, same dtype.

    See Also
    --------
    numpy.round
    """
    return asarray(a).round(decimals)


around = round



# Array's reduction and scan methods: the same docs as the functions, from their own signatures.
_METHOD_PARAMS = {
    "axis": "axis : int or tuple of int, optional\n    The axes (None: all of them; a scan: the flattened array).",
    "dtype": "dtype : numpy.dtype, optional\n    The accumulator and result dtype.",
    "keepdims": "keepdims : bool, default False\n    Keep the reduced axes with length 1.",
    "split_every": "split_every : int or dict, optional\n    Blocks combined per step of the reduction tree.",
    "ddof": "ddof : int, default 0\n    Delta degrees of freedom.",
}


def _document_methods():
    import inspect
    for n in list(_REDUCE) + list(_SCAN):
        m = Array.__dict__.get(n)
        if m is None or m.__doc__:
            continue
        params = [p for p in inspect.signature(m).parameters if p != "self"]
        m.__doc__ = _doc(n, "\n".join(_METHOD_PARAMS[p] for p in params),
                         "Array\n    The lazy result (0-d when every axis is reduced).")


_document_methods()

__all__ = sorted(list(_UNARY) + list(_BINARY) + list(_REDUCE) + list(_SCAN)
                 + ["abs", "conj", "amin", "amax", "where", "clip", "round", "around"])


def _np_table():
    g = globals()
    t = {}
    for n in list(_UNARY) + list(_BINARY) + list(_REDUCE) + list(_SCAN) + [
            "where", "clip", "round", "around", "transpose", "amin", "amax"]:
        f = getattr(np, n, None)
        if f is not None and n in g:
            t[f] = g[n]
    t[np.round_] = g["round"]
    t[np.where] = g["where"]
    from . import _shape, linalg
    for n in _shape.__all__:
        t[getattr(np, n)] = getattr(_shape, n)
    for n in ("matmul", "dot", "tensordot", "outer"):
        t[getattr(np, n)] = getattr(linalg, n)
    for n in ("qr", "svd", "solve", "inv", "cholesky", "norm"):
        t[getattr(np.linalg, n)] = getattr(linalg, n)
    t[np.linalg.cholesky] = lambda a: linalg.cholesky(a, lower=True)  # NumPy's factor is the lower one
    t[np.linalg.lstsq] = lambda a, b, rcond=None: linalg.lstsq(a, b)
    return t


core._NUMPY_FUNCTIONS.update(_np_table())
