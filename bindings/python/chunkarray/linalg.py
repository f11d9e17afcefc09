"""Linear algebra (include/chunkarray/linalg.h): matmul/dot/tensordot/outer and dask.array.linalg's
qr, tsqr, sfqr, svd, svd_compressed, lu, solve, solve_triangular, inv, cholesky, lstsq and norm."""
import ctypes as _ctypes
import numbers as _numbers

import numpy as _np

from ._lib import lib as _lib
from .core import Array as _Array, _check, _i32arr, asarray as _asarray

__all__ = ["matmul", "dot", "tensordot", "outer", "qr", "tsqr", "sfqr", "svd", "svd_compressed", "svd_flip",
           "compression_level", "compression_matrix", "lu", "solve", "solve_triangular", "inv", "cholesky", "lstsq",
           "norm"]


def matmul(a, b):
    """Matrix product of two arrays (``numpy.matmul``; stacks of matrices broadcast).

    Parameters
    ----------
    a, b : Array or array_like
        The operands; the last axis of ``a`` is contracted with the second-to-last of ``b``.

    Returns
    -------
    Array
        The lazy product.

    See Also
    --------
    numpy.matmul
    """
    return _Array._new(_lib().ca_linalg_matmul, _asarray(a), _asarray(b))


def dot(a, b):
    """Dot product (``numpy.dot``): inner product of vectors, matrix product of 2-d arrays.

    Parameters
    ----------
    a, b : Array or array_like
        The operands.

    Returns
    -------
    Array
        The lazy product (0-d for two vectors: computes to a NumPy scalar).

    See Also
    --------
    numpy.dot
    """
    return _Array._new(_lib().ca_linalg_dot, _asarray(a), _asarray(b))


def tensordot(a, b, axes=2, split_every=None):
    """Sum products over the given axes (``numpy.tensordot``).

    Parameters
    ----------
    a, b : Array or array_like
        The operands.
    axes : int or (sequence of int, sequence of int), default 2
        An int ``n`` contracts the last ``n`` axes of ``a`` with the first ``n`` of ``b``; a pair
        lists the axes of each.
    split_every : int, optional
        Blocks combined per step of the tree sum over contracted blocks (dask's ``split_every``).

    Returns
    -------
    Array
        The lazy contraction.

    See Also
    --------
    numpy.tensordot
    """
    a, b = _asarray(a), _asarray(b)
    if isinstance(axes, (_numbers.Integral, _np.integer)):
        n = int(axes)
        aa, ba = list(range(a.ndim - n, a.ndim)), list(range(n))
    else:
        aa, ba = axes
        aa = [int(aa)] if isinstance(aa, (_numbers.Integral, _np.integer)) else [int(v) for v in aa]
        ba = [int(ba)] if isinstance(ba, (_numbers.Integral, _np.integer)) else [int(v) for v in ba]
        if len(aa) != len(ba):
            raise ValueError("shape-mismatch for sum")
    return _Array._new(_lib().ca_linalg_tensordot, a.handle, b.handle, _i32arr(aa), _i32arr(ba), len(aa),
                      int(split_every or 0))


def outer(a, b):
    """Outer product of two vectors (``numpy.outer``; other inputs are flattened).

    Parameters
    ----------
    a, b : Array or array_like
        The vectors.

    Returns
    -------
    Array
        ``out[i, j] = a[i] * b[j]``.
    """
    a, b = _asarray(a), _asarray(b)
    a = a if a.ndim == 1 else a.ravel()
    b = b if b.ndim == 1 else b.ravel()
    return _Array._new(_lib().ca_linalg_outer, a.handle, b.handle)


def _outs(fn, n, *inputs):
    hs = [_ctypes.c_void_p() for _ in range(n)]
    arrays = [_asarray(i) for i in inputs]  # alive during the call
    _check(fn(*[_ctypes.byref(h) for h in hs], *[a.handle for a in arrays]))
    return tuple(_Array(h.value) for h in hs)


def qr(a):
    """Reduced QR decomposition (dask's tsqr/sfqr).

    Parameters
    ----------
    a : Array
        A 2-d array with a single column block (tall and skinny) or a single row block.

    Returns
    -------
    q, r : Array
        ``a = q @ r``, ``q`` with orthonormal columns, ``r`` upper triangular.
    """
    return _outs(_lib().ca_linalg_qr, 2, a)


def tsqr(data, compute_svd=False, _max_vchunk_size=None):
    """QR (or SVD) of a tall-and-skinny matrix (dask.array.linalg.tsqr).

    Parameters
    ----------
    data : Array
        A 2-d array with one column block.
    compute_svd : bool, default False
        Return ``u, s, vh`` (the SVD) instead of ``q, r``.
    _max_vchunk_size : None
        dask's internal knob; accepted and ignored (the stacking tree is chosen from the blocks).

    Returns
    -------
    q, r : Array
        Or ``u, s, vh`` with ``compute_svd``.
    """
    data = _asarray(data)
    if data.ndim != 2 or len(data.chunks[1]) != 1:
        raise ValueError("Input must have the following properties:\n  1. Have two dimensions\n"
                         "  2. Have only one column of blocks\n\nNote: This function (tsqr) supports QR "
                         "decomposition in the case of\ntall-and-skinny matrices (single column chunk/block;"
                         " see qr)\nCurrent shape: {},\nCurrent chunksize: {}".format(data.shape, data.chunksize))
    return svd(data) if compute_svd else qr(data)


def sfqr(data, name=None):
    """QR of a short-and-fat matrix (dask.array.linalg.sfqr).

    Parameters
    ----------
    data : Array
        A 2-d array with one row block.
    name : str, optional
        dask's graph-name prefix; accepted and ignored.

    Returns
    -------
    q, r : Array
        ``data = q @ r``.
    """
    data = _asarray(data)
    if data.ndim != 2 or len(data.chunks[0]) != 1:
        raise ValueError("Input must have the following properties:\n  1. Have two dimensions\n"
                         "  2. Have only one row of blocks\n\nNote: This function (sfqr) supports QR "
                         "decomposition in the case of\nshort-and-fat matrices (single row chunk/block; see qr)")
    return qr(data)


def lu(a):
    """LU decomposition with pivoting inside each diagonal tile (dask.array.linalg.lu).

    ``a = p @ l @ u``: dask's blocked LU over square tiles (``a``'s row chunks on both axes), ``p``
    block diagonal, ``l`` lower triangular with unit diagonal, ``u`` upper triangular; as dask, rows
    are never exchanged between tiles. Computed in C (``ca_linalg_lu``).

    Parameters
    ----------
    a : Array or array_like
        A square 2-d array.

    Returns
    -------
    p, l, u : Array
        With ``a``'s chunks.
    """
    return _outs(_lib().ca_linalg_lu, 3, a)


def svd_flip(u, v, u_based_decision=False):
    """Make the signs of singular vectors deterministic (dask.array.linalg.svd_flip).

    Parameters
    ----------
    u, v : Array
        The left singular vectors (columns) and the right ones (rows, NumPy's ``vh``).
    u_based_decision : bool, default False
        Take the signs from ``u``'s column sums instead of ``v``'s row sums.

    Returns
    -------
    u, v : Array
        Each pair of singular vectors multiplied by +1 or -1 so the sum decides the half-space.
    """
    if u_based_decision:
        signs = u.sum(axis=0, keepdims=True)
        dtype = u.dtype
    else:
        signs = v.sum(axis=1, keepdims=True).T
        dtype = v.dtype
    signs = 2.0 * ((signs >= 0) - 0.5).astype(dtype)
    return u * signs, v * signs.T


def compression_level(n, q, n_oversamples=10, min_subspace_size=20):
    """The size of the subspace of a randomized SVD (dask.array.linalg.compression_level).

    Parameters
    ----------
    n : int
        The smaller dimension of the matrix.
    q : int
        The requested rank.
    n_oversamples : int, default 10
        Extra dimensions.
    min_subspace_size : int, default 20
        The smallest subspace.

    Returns
    -------
    int
        ``min(max(min_subspace_size, q + n_oversamples), n)``.
    """
    return min(max(min_subspace_size, q + n_oversamples), n)


def compression_matrix(data, q, iterator="power", n_power_iter=0, n_oversamples=10, seed=None, compute=False):
    """A matrix whose rows span ``data``'s dominant column space (dask.array.linalg.compression_matrix).

    Halko, Martinsson and Tropp's randomized range finder as dask builds it: ``data @ omega`` with a
    Gaussian ``omega`` (chunkarray's random generator, so its values differ from dask's), ``n_power_iter``
    power (or QR) iterations, then tsqr.

    Parameters
    ----------
    data : Array
        A 2-d array.
    q : int
        The requested rank.
    iterator : {"power", "QR"}, default "power"
        How the iterations are stabilized.
    n_power_iter : int, default 0
        Number of iterations.
    n_oversamples : int, default 10
        Extra dimensions of the subspace.
    seed : int or chunkarray.random.RandomState, optional
        The random stream.
    compute : bool, default False
        Persist the intermediates (as dask's ``compute=True``).

    Returns
    -------
    Array
        ``(compression_level, n_rows)``: the transposed orthonormal basis.
    """
    from . import random as _random
    if iterator not in ["power", "QR"]:
        raise ValueError(f"Iterator '{iterator}' not valid, must one one of ['power', 'QR']")
    data = _asarray(data)
    m, n = data.shape
    comp_level = compression_level(min(m, n), q, n_oversamples=n_oversamples)
    state = seed if isinstance(seed, _random.RandomState) else _random.RandomState(seed)
    datatype = _np.float32 if _np.dtype(data.dtype).type in (_np.float32, _np.complex64) else _np.float64
    omega = state.standard_normal(size=(n, comp_level), chunks=(data.chunks[1], (comp_level,))).astype(datatype)
    keep = (lambda x: x.persist()) if compute else (lambda x: x)
    mat_h = data.dot(omega)
    if iterator == "power":
        for _ in range(n_power_iter):
            mat_h = keep(data.dot(keep(data.T.dot(keep(mat_h)))))
        qm, _ = tsqr(mat_h)
    else:
        qm, _ = tsqr(mat_h)
        for _ in range(n_power_iter):
            qm, _ = tsqr(data.T.dot(keep(qm)))
            qm, _ = tsqr(data.dot(keep(qm)))
    return qm.T


def svd_compressed(a, k, iterator="power", n_power_iter=0, n_oversamples=10, seed=None, compute=False,
                   coerce_signs=True):
    """Randomized truncated SVD (dask.array.linalg.svd_compressed), for any chunking.

    Parameters
    ----------
    a : Array
        A 2-d array.
    k : int
        The rank of the approximation.
    iterator, n_power_iter, n_oversamples, seed, compute
        As for :func:`compression_matrix`.
    coerce_signs : bool, default True
        Apply :func:`svd_flip`.

    Returns
    -------
    u, s, v : Array
        ``(m, k)``, ``(k,)`` and ``(k, n)``: ``a ~ u @ diag(s) @ v``.
    """
    a = _asarray(a)
    comp = compression_matrix(a, k, iterator=iterator, n_power_iter=n_power_iter, n_oversamples=n_oversamples,
                              seed=seed, compute=compute)
    if compute:
        comp = comp.persist()
    a_compressed = comp.dot(a)
    v, s, u = tsqr(a_compressed.T, compute_svd=True)
    u = comp.T.dot(u.T)
    v = v.T
    u, s, v = u[:, :k], s[:k], v[:k, :]
    if coerce_signs:
        u, v = svd_flip(u, v)
    return u, s, v


def svd(a, coerce_signs=True):
    """Thin singular value decomposition (dask's tsqr-based svd).

    Parameters
    ----------
    a : Array
        A 2-d array with a single column block or a single row block.
    coerce_signs : bool, default True
        Accepted for dask's signature; the signs are always made deterministic.

    Returns
    -------
    u, s, v : Array
        ``a = u @ diag(s) @ v``.
    """
    return _outs(_lib().ca_linalg_svd, 3, a)


def solve(a, b, sym_pos=None, assume_a="gen"):
    """Solve ``a @ x = b`` for ``x`` (dask.array.linalg.solve) with tile algorithms.

    ``assume_a="gen"``: dask's blocked LU (partial pivoting inside each diagonal tile) and two
    blocked triangular solves; ``"pos"``: the tiled Cholesky factor ``L`` and the solves with ``L``
    and ``L^H``. Tiles are ``a``'s row chunks on both axes (``a`` is rechunked when its column
    chunks differ; dask requires all chunks equal).

    Parameters
    ----------
    a : Array or array_like
        A square 2-d array.
    b : Array or array_like
        A 1-d or 2-d right-hand side.
    sym_pos : bool, optional
        Deprecated in dask: True means ``assume_a="pos"`` (with dask's FutureWarning).
    assume_a : {"gen", "pos"}, default "gen"
        A general matrix, or a Hermitian positive-definite one.

    Returns
    -------
    Array
        The solution ``x``, with ``b``'s chunks.

    Raises
    ------
    ValueError
        For an ``assume_a`` other than "gen" and "pos" (as dask).
    """
    if sym_pos is not None:
        import warnings
        warnings.warn("The sym_pos keyword is deprecated and should be replaced by using ``assume_a = 'pos'``."
                      "``sym_pos`` will be removed in a future version.", category=FutureWarning, stacklevel=2)
        if sym_pos:
            assume_a = "pos"
    if assume_a == "pos":
        a, b = _asarray(a), _asarray(b)
        lo = cholesky(a, lower=True)
        y = solve_triangular(lo, b, lower=True)
        return solve_triangular(lo.conj().T, y, lower=False)
    if assume_a != "gen":
        raise ValueError(f"{assume_a = } is not a recognized matrix structure, valid structures in Dask are "
                         "'pos' and 'gen'.")
    return _Array._new(_lib().ca_linalg_solve, _asarray(a), _asarray(b))


def solve_triangular(a, b, lower=False):
    """Solve ``a @ x = b`` for a triangular ``a`` (dask.array.linalg.solve_triangular).

    Blocked forward (lower) or back substitution over ``b``'s row tiles: one triangular solve per
    diagonal tile and one matrix product per off-diagonal tile, as tasks.

    Parameters
    ----------
    a : Array or array_like
        A square 2-d triangular array; only the selected triangle is read.
    b : Array or array_like
        A 1-d or 2-d right-hand side.
    lower : bool, default False
        Whether ``a`` is lower (True) or upper (False) triangular.

    Returns
    -------
    Array
        The solution ``x``, with ``b``'s chunks.
    """
    return _Array._new(_lib().ca_linalg_solve_triangular, _asarray(a), _asarray(b), bool(lower))


def inv(a):
    """Inverse of a square matrix (dask.array.linalg.inv: ``solve`` with the identity).

    Parameters
    ----------
    a : Array or array_like
        A square 2-d array.

    Returns
    -------
    Array
        ``a``'s inverse.
    """
    return _Array._new(_lib().ca_linalg_inv, _asarray(a))


def cholesky(a, lower=False):
    """Cholesky factor of a Hermitian positive-definite matrix (dask.array.linalg.cholesky).

    A tiled right-looking factorization (a task per tile operation) over ``a``'s row chunks on
    both axes.

    Parameters
    ----------
    a : Array or array_like
        A square 2-d array.
    lower : bool, default False
        False gives dask's upper factor ``U`` (``a = U^H U``); True NumPy's lower ``L``.

    Returns
    -------
    Array
        The triangular factor.
    """
    return _Array._new(_lib().ca_linalg_cholesky, _asarray(a), bool(lower))


def lstsq(a, b):
    """Least-squares solution of ``a @ x = b`` (dask.array.linalg.lstsq).

    Parameters
    ----------
    a : Array or array_like
        A 2-d array, ``m >= n``, with one column block.
    b : Array or array_like
        The right-hand side.

    Returns
    -------
    x, residuals, rank, s : Array
        As ``numpy.linalg.lstsq``.
    """
    return _outs(_lib().ca_linalg_lstsq, 4, a, b)


def norm(x, ord=None, axis=None, keepdims=False):
    """Matrix or vector norm (``numpy.linalg.norm``).

    Parameters
    ----------
    x : Array or array_like
        The input.
    ord : {None, int, float, inf, -inf, 'fro', 'nuc'}, optional
        The norm's order, as NumPy's.
    axis : int or tuple of int, optional
        The axis (vector norm) or pair of axes (matrix norm); None: all of ``x``.
    keepdims : bool, default False
        Keep the reduced axes with size 1.

    Returns
    -------
    Array
        The norm (0-d when every axis is reduced).
    """
    x = _asarray(x)
    if ord is None:
        o = None
    elif isinstance(ord, str):
        o = ord.encode()
    elif ord == _np.inf:
        o = b"inf"
    elif ord == -_np.inf:
        o = b"-inf"
    else:
        o = repr(float(ord) if not isinstance(ord, (_numbers.Integral, _np.integer)) else int(ord)).encode()
    if axis is None:
        ax = []
    elif isinstance(axis, (_numbers.Integral, _np.integer)):
        ax = [int(axis)]
    else:
        ax = [int(v) for v in axis]
    return _Array._new(_lib().ca_linalg_norm, x.handle, o, _i32arr(ax) if ax else None, len(ax), bool(keepdims))
