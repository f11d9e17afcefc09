"""The array API standard's ``linalg`` extension over chunkarray's blocked linear algebra.

``matmul``, ``tensordot``, ``outer``, ``vecdot``, ``trace``, ``diagonal``, ``matrix_transpose`` and the
norms are chunked as dask does them (any chunks). ``cholesky``, ``inv`` and ``solve`` of one matrix
(2-d) run chunkarray's tile algorithms (any chunks: a tiled Cholesky, dask's blocked LU; no block
holds the whole matrix). The other factorizations and functions of a whole matrix (``det``, ``eigh``,
``eigvalsh``, ``matrix_power``, ``matrix_rank``, ``pinv``, ``qr``, ``slogdet``, ``svd``, ``svdvals``),
and ``cholesky``/``inv``/``solve`` of stacks, run per matrix of a stack: the last two axes must each be
one block (a ValueError names the function otherwise; ``rechunk`` first), and the stack axes keep their
chunks, as dask's ``apply_gufunc`` does.
"""
from collections import namedtuple as _namedtuple

import numpy as _np

from .. import core as _core
from .. import linalg as _calg
from .. import _shape, _routines, _stats
from ._array_object import Array, _binop
from ._dtypes import _floating_dtypes, _numeric_dtypes, _result_type, float64
from .. import _codes

__all__ = ["cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm",
           "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve",
           "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm"]

EighResult = _namedtuple("EighResult", "eigenvalues eigenvectors")
QRResult = _namedtuple("QRResult", "Q R")
SlogdetResult = _namedtuple("SlogdetResult", "sign logabsdet")
SVDResult = _namedtuple("SVDResult", "U S Vh")


def _float(x, name):
    if not isinstance(x, Array) or x.dtype not in _floating_dtypes:
        raise TypeError(f"Only floating-point dtypes are allowed in {name}")


def _numeric(x, name):
    if not isinstance(x, Array) or x.dtype not in _numeric_dtypes:
        raise TypeError(f"Only numeric dtypes are allowed in {name}")


def _matrix_blocks(a, name):
    """Check that the matrix axes of a chunkarray.Array are single blocks."""
    if a.ndim < 2:
        raise ValueError(f"linalg.{name}: needs at least 2 dimensions, got {a.ndim}")
    for ax in (a.ndim - 2, a.ndim - 1):
        if len(a.chunks[ax]) > 1:
            raise ValueError(f"linalg.{name}: axis {ax} has {len(a.chunks[ax])} blocks; the matrix axes must "
                             f"each be one block (rechunk them first)")


def _per_matrix(fn, x, core_shape, dtype, name):
    """``fn`` (a NumPy function of a stack of matrices) on each block of the stack axes.

    ``core_shape`` is the shape fn gives each matrix (it replaces the last two axes)."""
    a = x._array
    _matrix_blocks(a, name)
    nb = a.ndim - 2
    chunks = tuple(a.chunks[:nb]) + tuple((int(s),) for s in core_shape)
    kw = dict(dtype=dtype, chunks=chunks)
    if len(core_shape) < 2:
        kw["drop_axis"] = list(range(nb + len(core_shape), a.ndim))
    elif len(core_shape) > 2:
        kw["new_axis"] = list(range(a.ndim, nb + len(core_shape)))
    if a.size == 0:  # nothing to compute: NumPy's empty result of the right shape
        return Array._new(_np.empty(tuple(sum(c) for c in chunks), dtype))
    return Array._new(_core.map_blocks(fn, a, **kw))


def _m(x):
    return x.shape[-2], x.shape[-1]


def cholesky(x, /, *, upper=False):
    """The Cholesky factor of each symmetric positive-definite matrix.

    Parameters
    ----------
    x : Array
        A (stack of) square floating-point matrices.
    upper : bool, default False
        Return the upper factor U (x = U^T U) instead of the lower L (x = L L^T).

    Returns
    -------
    Array
        The factor.
    """
    _float(x, "cholesky")
    if x.ndim == 2 and x.size > 0 and x.shape[0] == x.shape[1]:
        # One matrix: the tiled Cholesky over its blocks (NumPy's lower factor; upper is its transpose).
        L = Array._new(_calg.cholesky(x._array, lower=True))
    else:
        L = _per_matrix(_np.linalg.cholesky, x, _m(x), x.dtype, "cholesky")
    return matrix_transpose(L) if upper else L


def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-element vectors.

    Parameters
    ----------
    x1, x2 : Array
        Numeric arrays of one shape, 3 along ``axis``.
    axis : int, default -1
        The vector axis.

    Returns
    -------
    Array
        The cross products.
    """
    _numeric(x1, "cross")
    _numeric(x2, "cross")
    if x1.shape != x2.shape:
        raise ValueError("x1 and x2 must have the same shape")
    if x1.ndim == 0:
        raise ValueError("cross() requires arrays of dimension at least 1")
    if x1.shape[axis] != 3:
        raise ValueError("cross() dimension must equal 3")
    dt = _result_type(x1.dtype, x2.dtype)
    ax = axis % x1.ndim

    def comp(a, i):
        return Array._new(_routines.take(a._array if a.dtype == dt else a._array.astype(dt), [i], axis=ax))
    a0, a1, a2 = (comp(x1, i) for i in range(3))
    b0, b1, b2 = (comp(x2, i) for i in range(3))
    parts = [a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0]
    return Array._new(_shape.concatenate([p._array for p in parts], axis=ax))


def det(x, /):
    """The determinant of each square matrix.

    Parameters
    ----------
    x : Array
        A (stack of) square floating-point matrices.

    Returns
    -------
    Array
        The determinants (the stack's shape).
    """
    _float(x, "det")
    return _per_matrix(_np.linalg.det, x, (), x.dtype, "det")


def diagonal(x, /, *, offset=0):
    """The diagonal of each matrix (the last two axes).

    Parameters
    ----------
    x : Array
        At least 2-d.
    offset : int, default 0
        The diagonal's offset.

    Returns
    -------
    Array
        The diagonals.
    """
    if x.ndim < 2:
        raise ValueError("diagonal: x must be at least 2-dimensional")
    return Array._new(_routines.diagonal(x._array, offset=offset, axis1=-2, axis2=-1))


def eigh(x, /):
    """Eigenvalues and eigenvectors of each symmetric matrix.

    Parameters
    ----------
    x : Array
        A (stack of) symmetric floating-point matrices.

    Returns
    -------
    EighResult
        ``eigenvalues`` (ascending) and ``eigenvectors`` (columns).
    """
    _float(x, "eigh")
    n = x.shape[-1]
    w = _per_matrix(lambda a: _np.linalg.eigh(a)[0], x, (n,), x.dtype, "eigh")
    v = _per_matrix(lambda a: _np.linalg.eigh(a)[1], x, (n, n), x.dtype, "eigh")
    return EighResult(w, v)


def eigvalsh(x, /):
    """Eigenvalues of each symmetric matrix, ascending.

    Parameters
    ----------
    x : Array
        A (stack of) symmetric floating-point matrices.

    Returns
    -------
    Array
        The eigenvalues.
    """
    _float(x, "eigvalsh")
    return _per_matrix(_np.linalg.eigvalsh, x, (x.shape[-1],), x.dtype, "eigvalsh")


def inv(x, /):
    """The inverse of each square matrix.

    Parameters
    ----------
    x : Array
        A (stack of) square floating-point matrices.

    Returns
    -------
    Array
        The inverses.
    """
    _float(x, "inv")
    if x.ndim == 2 and x.size > 0 and x.shape[0] == x.shape[1]:
        return Array._new(_calg.inv(x._array))  # one matrix: dask's blocked LU, any chunks
    return _per_matrix(_np.linalg.inv, x, _m(x), x.dtype, "inv")


def matmul(x1, x2, /):
    """The matrix product (stacks broadcast), chunked as dask's.

    Parameters
    ----------
    x1, x2 : Array
        Numeric arrays, at least 1-d.

    Returns
    -------
    Array
        The product, in the promoted dtype.
    """
    _numeric(x1, "matmul")
    _numeric(x2, "matmul")
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("matmul: 0-d operands are not allowed")
    dt = _result_type(x1.dtype, x2.dtype)
    a = x1._array if x1.dtype == dt else x1._array.astype(dt)
    b = x2._array if x2.dtype == dt else x2._array.astype(dt)
    k1 = x1.shape[-1]
    k2 = x2.shape[0] if x2.ndim == 1 else x2.shape[-2]
    if k1 != k2:
        raise ValueError(f"matmul: x1's last axis ({k1}) does not match x2's contracted axis ({k2})")
    return Array._new(_calg.matmul(a, b))


def matrix_norm(x, /, *, keepdims=False, ord="fro"):  # noqa: A002
    """A norm of each matrix (the last two axes).

    Parameters
    ----------
    x : Array
        A (stack of) floating-point matrices.
    keepdims : bool, default False
        Keep the two matrix axes with length 1.
    ord : {"fro", "nuc", 1, -1, 2, -2, inf, -inf}
        The norm, as ``numpy.linalg.norm``.

    Returns
    -------
    Array
        The norms.
    """
    _float(x, "matrix_norm")
    core = (1, 1) if keepdims else ()
    return _per_matrix(lambda a: _np.linalg.norm(a, axis=(-2, -1), keepdims=keepdims, ord=ord), x, core,
                       x.dtype, "matrix_norm")


def matrix_power(x, n, /):
    """Raise each square matrix to an integer power.

    Parameters
    ----------
    x : Array
        A (stack of) square floating-point matrices.
    n : int
        The power (negative: of the inverse).

    Returns
    -------
    Array
        The powers.
    """
    _float(x, "matrix_power")
    return _per_matrix(lambda a: _np.linalg.matrix_power(a, n), x, _m(x), x.dtype, "matrix_power")


def matrix_rank(x, /, *, rtol=None):
    """The rank of each matrix (singular values above ``rtol`` times the largest).

    Parameters
    ----------
    x : Array
        A (stack of) floating-point matrices.
    rtol : float or Array, optional
        The relative tolerance; default ``max(M, N) * eps``.

    Returns
    -------
    Array
        int64 ranks.
    """
    if x.ndim < 2:
        raise _np.linalg.LinAlgError("1-dimensional array given. Array must be at least two-dimensional")
    r = rtol._value() if isinstance(rtol, Array) else rtol

    def rank(a):
        S = _np.linalg.svd(a, compute_uv=False)
        if r is None:
            tol = S.max(axis=-1, keepdims=True) * max(a.shape[-2:]) * _np.finfo(S.dtype).eps
        else:
            tol = S.max(axis=-1, keepdims=True) * _np.asarray(r)[..., _np.newaxis]
        return _np.count_nonzero(S > tol, axis=-1).astype(_np.int64)
    return _per_matrix(rank, x, (), _np.dtype(_np.int64), "matrix_rank")


def matrix_transpose(x, /):
    """Transpose each matrix (swap the last two axes).

    Parameters
    ----------
    x : Array
        At least 2-d.

    Returns
    -------
    Array
        The transposes.
    """
    if x.ndim < 2:
        raise ValueError("x must be at least 2-dimensional for matrix_transpose")
    return Array._new(_shape.swapaxes(x._array, -1, -2))


def outer(x1, x2, /):
    """The outer product of two vectors.

    Parameters
    ----------
    x1, x2 : Array
        1-d numeric arrays.

    Returns
    -------
    Array
        A 2-d array in the promoted dtype.
    """
    _numeric(x1, "outer")
    _numeric(x2, "outer")
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError("The input arrays to outer must be 1-dimensional")
    dt = _result_type(x1.dtype, x2.dtype)
    a = x1._array if x1.dtype == dt else x1._array.astype(dt)
    b = x2._array if x2.dtype == dt else x2._array.astype(dt)
    return Array._new(_calg.outer(a, b))


def pinv(x, /, *, rtol=None):
    """The Moore-Penrose pseudo-inverse of each matrix.

    Parameters
    ----------
    x : Array
        A (stack of) floating-point matrices.
    rtol : float or Array, optional
        Cutoff for small singular values; default ``max(M, N) * eps``.

    Returns
    -------
    Array
        The pseudo-inverses (the last two axes swapped in size).
    """
    _float(x, "pinv")
    r = max(x.shape[-2:]) * _np.finfo(x.dtype).eps if rtol is None else (
        rtol._value() if isinstance(rtol, Array) else rtol)
    return _per_matrix(lambda a: _np.linalg.pinv(a, rcond=r), x, (x.shape[-1], x.shape[-2]), x.dtype, "pinv")


def qr(x, /, *, mode="reduced"):
    """The QR factorization of each matrix.

    Parameters
    ----------
    x : Array
        A (stack of) floating-point matrices.
    mode : {"reduced", "complete"}
        The factors' sizes.

    Returns
    -------
    QRResult
        ``Q`` (orthonormal columns) and ``R`` (upper triangular).
    """
    _float(x, "qr")
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', not {mode!r}")
    m, n = _m(x)
    k = min(m, n) if mode == "reduced" else m
    q = _per_matrix(lambda a: _np.linalg.qr(a, mode=mode)[0], x, (m, k), x.dtype, "qr")
    r = _per_matrix(lambda a: _np.linalg.qr(a, mode=mode)[1], x, (k, n), x.dtype, "qr")
    return QRResult(q, r)


def slogdet(x, /):
    """The sign and the log of the absolute value of each determinant.

    Parameters
    ----------
    x : Array
        A (stack of) square floating-point matrices.

    Returns
    -------
    SlogdetResult
        ``sign`` and ``logabsdet``.
    """
    _float(x, "slogdet")
    s = _per_matrix(lambda a: _np.linalg.slogdet(a)[0], x, (), x.dtype, "slogdet")
    v = _per_matrix(lambda a: _np.linalg.slogdet(a)[1], x, (), x.dtype, "slogdet")
    return SlogdetResult(s, v)


def solve(x1, x2, /):
    """Solve ``x1 @ out = x2`` for each square matrix of ``x1``.

    Parameters
    ----------
    x1 : Array
        A (stack of) square floating-point matrices (a stack: one block along the matrix axes).
    x2 : Array
        The right-hand side: a vector (1-d) or a (stack of) matrices.

    Returns
    -------
    Array
        The solution, in the promoted dtype.
    """
    _float(x1, "solve")
    _float(x2, "solve")
    dt = _result_type(x1.dtype, x2.dtype)
    a = x1._array if x1.dtype == dt else x1._array.astype(dt)
    b = x2._array if x2.dtype == dt else x2._array.astype(dt)
    n = x1.shape[-1]
    if x1.ndim == 2 and x2.ndim in (1, 2) and x1.shape[0] == n and x2.shape[0] == n and a.size > 0 and b.size > 0:
        return Array._new(_calg.solve(a, b))  # one matrix: dask's blocked LU and substitutions, any chunks
    _matrix_blocks(a, "solve")
    if x1.shape[-2] != n:
        raise ValueError(f"linalg.solve: x1's matrices must be square, got {x1.shape[-2:]}")
    vector = x2.ndim == 1
    if vector:  # a vector right-hand side, shared by every matrix of the stack
        b = _shape.reshape(b, (n, 1))
    if b.shape[-2] != n:
        raise ValueError(f"linalg.solve: x2 has {b.shape[-2]} rows, x1's matrices are {n} x {n}")
    batch = _np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    a = _shape.broadcast_to(a, batch + (n, n))
    b = _shape.broadcast_to(b, batch + tuple(b.shape[-2:]))
    k = b.shape[-1]
    a = a.rechunk(tuple(-1 for _ in a.shape))
    b = b.rechunk(tuple(-1 for _ in b.shape))
    if a.size == 0 or b.size == 0:
        out = Array._new(_np.empty(batch + (n, k), dt))
    else:
        ix = "".join(chr(ord("a") + i) for i in range(len(batch)))
        out = Array._new(_core.blockwise(_np.linalg.solve, ix + "xk", a, ix + "xy", b, ix + "yk", dtype=dt,
                                         concatenate=True))
    return Array._new(out._array[..., 0]) if vector else out


def svd(x, /, *, full_matrices=True):
    """The singular value decomposition of each matrix.

    Parameters
    ----------
    x : Array
        A (stack of) floating-point matrices.
    full_matrices : bool, default True
        Square U and Vh (True) or the reduced ones.

    Returns
    -------
    SVDResult
        ``U``, ``S`` (descending), ``Vh``.
    """
    _float(x, "svd")
    m, n = _m(x)
    k = min(m, n)
    us = (m, m) if full_matrices else (m, k)
    vs = (n, n) if full_matrices else (k, n)
    u = _per_matrix(lambda a: _np.linalg.svd(a, full_matrices=full_matrices)[0], x, us, x.dtype, "svd")
    s = _per_matrix(lambda a: _np.linalg.svd(a, compute_uv=False), x, (k,), x.dtype, "svd")
    v = _per_matrix(lambda a: _np.linalg.svd(a, full_matrices=full_matrices)[2], x, vs, x.dtype, "svd")
    return SVDResult(u, s, v)


def svdvals(x, /):
    """The singular values of each matrix, descending.

    Parameters
    ----------
    x : Array
        A (stack of) floating-point matrices.

    Returns
    -------
    Array
        The singular values.
    """
    _float(x, "svdvals")
    return _per_matrix(lambda a: _np.linalg.svd(a, compute_uv=False), x, (min(_m(x)),), x.dtype, "svdvals")


def tensordot(x1, x2, /, *, axes=2):
    """Sum of products over the given axes, chunked as dask's.

    Parameters
    ----------
    x1, x2 : Array
        Numeric arrays.
    axes : int or (sequence of int, sequence of int), default 2
        The last ``axes`` axes of x1 with the first of x2, or explicit axis lists.

    Returns
    -------
    Array
        The contraction, in the promoted dtype.
    """
    _numeric(x1, "tensordot")
    _numeric(x2, "tensordot")
    dt = _result_type(x1.dtype, x2.dtype)
    a = x1._array if x1.dtype == dt else x1._array.astype(dt)
    b = x2._array if x2.dtype == dt else x2._array.astype(dt)
    return Array._new(_calg.tensordot(a, b, axes=axes))


def trace(x, /, *, offset=0):
    """The sum along each matrix's diagonal.

    Parameters
    ----------
    x : Array
        A (stack of) numeric matrices.
    offset : int, default 0
        The diagonal's offset.

    Returns
    -------
    Array
        The traces, in x's dtype (the 2021.12 standard).
    """
    _numeric(x, "trace")
    if x.ndim < 2:
        raise ValueError("trace: x must be at least 2-dimensional")
    dt = x.dtype  # the 2021.12 standard: the input's dtype
    d = _routines.diagonal(x._array, offset=offset, axis1=-2, axis2=-1)
    return Array._new(d.sum(axis=-1, dtype=dt))


def vecdot(x1, x2, /, *, axis=-1):
    """The dot product of vectors along an axis (broadcasting the others).

    Parameters
    ----------
    x1, x2 : Array
        Numeric arrays.
    axis : int, default -1
        The vector axis (of the broadcast shape).

    Returns
    -------
    Array
        The dot products, in the promoted dtype.
    """
    _numeric(x1, "vecdot")
    _numeric(x2, "vecdot")
    ndim = max(x1.ndim, x2.ndim)
    s1 = (1,) * (ndim - x1.ndim) + tuple(x1.shape)
    s2 = (1,) * (ndim - x2.ndim) + tuple(x2.shape)
    if s1[axis] != s2[axis]:
        raise ValueError("x1 and x2 must have the same size along the given axis")
    prod = _binop(_codes.CA_OP_MUL, x1, x2)
    return Array._new(prod._array.sum(axis=axis, dtype=prod.dtype))


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: A002
    """A vector norm over the given axes.

    Parameters
    ----------
    x : Array
        A floating-point array.
    axis : int, tuple of int or None
        The axes (None: all, as one vector).
    keepdims : bool, default False
        Keep the reduced axes with length 1.
    ord : int, float, inf or -inf, default 2
        The norm's order (0 counts the non-zeros).

    Returns
    -------
    Array
        The norms.
    """
    _float(x, "vector_norm")
    a = x._array
    ax = tuple(range(x.ndim)) if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    ax = tuple(i % x.ndim for i in ax) if x.ndim else ()
    absx = abs(a)
    if ord == _np.inf:
        r = absx.max(axis=ax, keepdims=keepdims)
    elif ord == -_np.inf:
        r = absx.min(axis=ax, keepdims=keepdims)
    elif ord == 0:
        r = (a != 0).astype(x.dtype).sum(axis=ax, keepdims=keepdims, dtype=x.dtype)
    elif ord == 1:
        r = absx.sum(axis=ax, keepdims=keepdims, dtype=x.dtype)
    elif ord == 2:
        r = (absx * absx).sum(axis=ax, keepdims=keepdims, dtype=x.dtype) ** _np.array(0.5, x.dtype)[()]
    else:
        p = _np.array(ord, x.dtype)[()]
        r = (absx ** p).sum(axis=ax, keepdims=keepdims, dtype=x.dtype) ** (_np.array(1, x.dtype)[()] / p)
    return Array._new(r)
