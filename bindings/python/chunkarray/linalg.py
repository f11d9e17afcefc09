"""Linear algebra (include/chunkarray/linalg.h): matmul/dot/tensordot/outer and dask.array.linalg's
qr, svd, solve, inv, cholesky, lstsq and norm."""
import ctypes
import numbers

import numpy as np

from ._lib import lib
from .core import Array, _check, _i32arr, asarray

c_vp = ctypes.c_void_p

__all__ = ["matmul", "dot", "tensordot", "outer", "qr", "svd", "solve", "inv", "cholesky", "lstsq", "norm"]


def matmul(a, b):
    return Array._new(lib().ca_linalg_matmul, asarray(a), asarray(b))


def dot(a, b):
    return Array._new(lib().ca_linalg_dot, asarray(a), asarray(b))


def tensordot(a, b, axes=2, split_every=None):
    a, b = asarray(a), asarray(b)
    if isinstance(axes, (numbers.Integral, np.integer)):
        n = int(axes)
        aa, ba = list(range(a.ndim - n, a.ndim)), list(range(n))
    else:
        aa, ba = axes
        aa = [int(aa)] if isinstance(aa, (numbers.Integral, np.integer)) else [int(v) for v in aa]
        ba = [int(ba)] if isinstance(ba, (numbers.Integral, np.integer)) else [int(v) for v in ba]
        if len(aa) != len(ba):
            raise ValueError("shape-mismatch for sum")
    return Array._new(lib().ca_linalg_tensordot, a.handle, b.handle, _i32arr(aa), _i32arr(ba), len(aa),
                      int(split_every or 0))


def outer(a, b):
    a, b = asarray(a), asarray(b)
    a = a if a.ndim == 1 else a.ravel()
    b = b if b.ndim == 1 else b.ravel()
    return Array._new(lib().ca_linalg_outer, a.handle, b.handle)


def _outs(fn, n, *inputs):
    hs = [c_vp() for _ in range(n)]
    arrays = [asarray(i) for i in inputs]  # alive during the call
    _check(fn(*[ctypes.byref(h) for h in hs], *[a.handle for a in arrays]))
    return tuple(Array(h.value) for h in hs)


def qr(a):
    """Reduced QR (tsqr / sfqr): a 2-d array with one column block or one row block."""
    return _outs(lib().ca_linalg_qr, 2, a)


def svd(a, coerce_signs=True):
    """Thin SVD (u, s, v) of a 2-d array with one column block or one row block."""
    return _outs(lib().ca_linalg_svd, 3, a)


def solve(a, b, sym_pos=None, assume_a="gen"):
    return Array._new(lib().ca_linalg_solve, asarray(a), asarray(b))


def inv(a):
    return Array._new(lib().ca_linalg_inv, asarray(a))


def cholesky(a, lower=False):
    """dask's cholesky: upper factor U (a = U^H U) by default; lower=True gives NumPy's L."""
    return Array._new(lib().ca_linalg_cholesky, asarray(a), bool(lower))


def lstsq(a, b):
    """(x, residuals, rank, s) as dask.array.linalg.lstsq (a: m >= n, one column block)."""
    return _outs(lib().ca_linalg_lstsq, 4, a, b)


def norm(x, ord=None, axis=None, keepdims=False):
    x = asarray(x)
    if ord is None:
        o = None
    elif isinstance(ord, str):
        o = ord.encode()
    elif ord == np.inf:
        o = b"inf"
    elif ord == -np.inf:
        o = b"-inf"
    else:
        o = repr(float(ord) if not isinstance(ord, (numbers.Integral, np.integer)) else int(ord)).encode()
    if axis is None:
        ax = []
    elif isinstance(axis, (numbers.Integral, np.integer)):
        ax = [int(axis)]
    else:
        ax = [int(v) for v in axis]
    return Array._new(lib().ca_linalg_norm, x.handle, o, _i32arr(ax) if ax else None, len(ax), bool(keepdims))
