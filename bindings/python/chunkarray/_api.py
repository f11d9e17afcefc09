"""NumPy-style functions over chunkarray.Array (kept apart from core so they do not shadow builtins there)."""
import numpy as np

from . import _lib as C
from . import core
from .core import Array, asarray, _is_scalar, _scalar, _UNARY, _BINARY, _REDUCE, _SCAN, lib

def _unary_fn(op):
    def f(x):
        return asarray(x)._unop(op)
    return f


def _binary_fn(op):
    def f(x, y):
        if isinstance(x, Array):
            return x._binop(op, y)
        if isinstance(y, Array):
            return y._binop(op, x, True)
        return asarray(x)._binop(op, y)
    return f


for _n, _op in _UNARY.items():
    globals()[_n] = _unary_fn(_op)
for _n, _op in _BINARY.items():
    globals()[_n] = _binary_fn(_op)
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
    f.__name__ = name
    return f


for _n in _REDUCE:
    globals()[_n] = _reduce_fn(_n)
amin, amax = globals()["min"], globals()["max"]


def _scan_fn(name):
    def f(a, axis=None, dtype=None):
        return asarray(a)._scan(name, axis, dtype)
    f.__name__ = name
    return f


for _n in _SCAN:
    globals()[_n] = _scan_fn(_n)


def where(cond, x, y):
    cond = asarray(cond)
    xs, ys = _is_scalar(x), _is_scalar(y)
    xa = None if xs else asarray(x)
    ya = None if ys else asarray(y)
    return core.Array._new(lib().ca_array_where, cond._h, xa._h if xa is not None else None,
                      ya._h if ya is not None else None, _scalar(x) if xs else C.Scalar(),
                      _scalar(y) if ys else C.Scalar())


def clip(a, a_min=None, a_max=None):
    return asarray(a).clip(a_min, a_max)


def round(a, decimals=0):  # noqa: A001
    return asarray(a).round(decimals)


around = round



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
