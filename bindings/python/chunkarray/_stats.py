"""Statistics with dask.array's semantics (issue 16): ptp, average, count_nonzero, moment, diff, ediff1d,
trace, median/nanmedian, percentile/nanpercentile, cov, corrcoef, bincount, histogram, topk, argtopk.

Built from the C library's fused elementwise ops and reductions where they apply (count_nonzero, moment,
average, ptp and trace are one reduction over a fused expression each), and from block functions over
NumPy where the work is a sort or a count (median, percentile, histogram, bincount, topk): those rechunk
only what they must (the reduced axes to one chunk), so results are exact.
"""
import ctypes
import functools
import math
import numbers
import operator

import numpy as np

from . import _api, core
from . import _lib as C
from ._shape import broadcast_to, concatenate, moveaxis, ravel, swapaxes
from .core import Array, asarray

__all__ = ["ptp", "average", "count_nonzero", "moment", "diff", "ediff1d", "trace", "median", "nanmedian",
           "percentile", "nanpercentile", "cov", "corrcoef", "bincount", "histogram", "topk", "argtopk",
           "gradient"]


def _axis_tuple(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    out = []
    for ax in axes:
        if not -ndim <= ax < ndim:
            raise np.AxisError(ax, ndim)
        out.append(int(ax) % ndim)
    if len(set(out)) != len(out):
        raise ValueError("duplicate value in 'axis'")
    return tuple(out)


# ---- reductions over fused expressions ------------------------------------------------------------

def ptp(a, axis=None):
    """Range of values, maximum minus minimum, along an axis (``numpy.ptp``).

    dask's method: ``a.max(axis) - a.min(axis)`` (two reductions).

    Parameters
    ----------
    a : Array or array_like
        The input.
    axis : int, tuple of int or None, default None
        The axes to reduce; None: all.

    Returns
    -------
    Array
        The lazy result, a's dtype.
    """
    a = asarray(a)
    return a.max(axis=axis) - a.min(axis=axis)


def count_nonzero(a, axis=None):
    """The number of nonzero elements (``numpy.count_nonzero``).

    One sum reduction fused with the test ``a != 0`` (nan counts as nonzero).

    Parameters
    ----------
    a : Array or array_like
        The input.
    axis : int, tuple of int or None, default None
        The axes to count along; None: all.

    Returns
    -------
    Array
        The lazy counts, intp (a 0-d array for ``axis=None``, where NumPy returns an int).
    """
    a = asarray(a)
    return a.astype(bool)._reduce("sum", axis, False, np.intp)


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """The weighted average along an axis (``numpy.average``, dask's ``_average``).

    ``sum(a * w) / sum(w)``, computed in ``result_type(a, w)`` (with float64 for integer and bool a).

    Parameters
    ----------
    a : Array or array_like
        The input.
    axis : int, tuple of int or None, default None
        The axes to average over; None: all.
    weights : Array or array_like, optional
        The weights: a's shape, or 1-d of the length of a single ``axis``. None: the plain mean.
    returned : bool, default False
        Also return the sum of the weights.
    keepdims : bool, default False
        Keep the reduced axes with extent 1.

    Returns
    -------
    avg : Array
        The lazy average.
    sum_of_weights : Array or scalar
        Only with ``returned``: the weights' sum broadcast to avg's shape; without weights, the number of
        elements averaged, as a NumPy scalar of avg's dtype.
    """
    a = asarray(a)
    if weights is None:
        avg = a.mean(axis, keepdims=keepdims)
        scl = avg.dtype.type(a.size / avg.size) if avg.size else avg.dtype.type(np.nan)
    else:
        wgt = asarray(weights)
        if a.dtype.kind in "biu":
            result_dtype = np.result_type(a.dtype, wgt.dtype, "f8")
        else:
            result_dtype = np.result_type(a.dtype, wgt.dtype)
        if a.shape != wgt.shape:
            if axis is None:
                raise TypeError("Axis must be specified when shapes of a and weights differ.")
            if wgt.ndim != 1:
                raise TypeError("1D weights expected when shapes of a and weights differ.")
            if not isinstance(axis, numbers.Integral):
                raise TypeError("Single axis expected when shapes of a and weights differ.")
            if wgt.shape[0] != a.shape[axis]:
                raise ValueError("Length of weights not compatible with specified axis.")
            wgt = broadcast_to(wgt, (a.ndim - 1) * (1,) + wgt.shape)
            wgt = swapaxes(wgt, -1, axis)
        scl = wgt.sum(axis=axis, dtype=result_dtype, keepdims=keepdims)
        avg = (a.astype(result_dtype) * wgt.astype(result_dtype)).sum(axis, keepdims=keepdims) / scl
    if returned:
        if not isinstance(scl, Array):
            return avg, scl
        if scl.shape != avg.shape:
            scl = broadcast_to(scl, avg.shape)
        return avg, scl
    return avg


def _reduced_shape_chunks(a, axis, keepdims):
    axes = _axis_tuple(axis, a.ndim)
    shape = tuple(1 if i in axes else s for i, s in enumerate(a.shape) if keepdims or i not in axes)
    chunks = tuple((1,) if i in axes else c for i, c in enumerate(a.chunks) if keepdims or i not in axes)
    return shape, chunks


def moment(a, order, axis=None, dtype=None, keepdims=False, ddof=0, split_every=None):
    """The ``order``-th central moment (``dask.array.moment``): ``sum((a - mean)**order) / (n - ddof)``.

    Two passes (the mean, then one reduction fused with the powered deviations): exact where dask's
    one-pass merge of partial moments rounds differently. Order 0 gives ones and order 1 zeros (float64,
    as dask).

    Parameters
    ----------
    a : Array or array_like
        The input.
    order : int
        The order, >= 0.
    axis : int, tuple of int or None, default None
        The axes to reduce; None: all.
    dtype : dtype, optional
        The computation's and the result's dtype; None: numpy.var's for a's dtype (float64 for integers).
    keepdims : bool, default False
        Keep the reduced axes with extent 1.
    ddof : int, default 0
        Delta degrees of freedom (n - ddof < 0 gives nan).
    split_every : int or dict, optional
        The reductions' tree width (see ``Array.sum``).

    Returns
    -------
    Array
        The lazy result.
    """
    if not isinstance(order, numbers.Integral) or order < 0:
        raise ValueError("Order must be an integer >= 0")
    a = asarray(a)
    if dtype is None:
        dtype = getattr(np.var(np.ones(shape=(1,), dtype=a.dtype)), "dtype", object)
    dtype = np.dtype(dtype)
    if order < 2:
        shape, chunks = _reduced_shape_chunks(a, axis, keepdims)
        make = core.ones if order == 0 else core.zeros
        return make(shape, chunks=chunks, dtype="f8")
    axes = _axis_tuple(axis, a.ndim)
    n = 1
    for ax in axes:
        n *= a.shape[ax]
    mu = a.mean(axis=axes, keepdims=True, dtype=dtype, split_every=split_every)
    dev = a.astype(dtype) - mu
    m = (dev ** order).sum(axis=axes, keepdims=keepdims, dtype=dtype, split_every=split_every)
    denom = n - ddof
    return m / (denom if denom >= 0 else np.nan)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """The sum along a diagonal (``numpy.trace``).

    One sum reduction over a fused select (``where(eye, a, 0)`` with the eye chunked as a), so no block
    is copied.

    Parameters
    ----------
    a : Array or array_like
        At least 2-d.
    offset : int, default 0
        The diagonal's offset from the main one (positive: above it).
    axis1, axis2 : int, default 0 and 1
        The two (distinct) axes of the diagonal; the result has the other axes.
    dtype : dtype, optional
        The sum's dtype (NumPy's default accumulation dtype if None).

    Returns
    -------
    Array
        The lazy result (0-d for a 2-d a).
    """
    a = asarray(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    axis1, axis2 = _axis_tuple(axis1, a.ndim)[0], _axis_tuple(axis2, a.ndim)[0]
    if axis1 == axis2:
        raise ValueError("axis1 and axis2 cannot be the same")
    b = moveaxis(a, (axis1, axis2), (-2, -1))
    n, m = b.shape[-2], b.shape[-1]
    mask = core.eye(n, m, k=int(offset), chunks=(b.chunks[-2], b.chunks[-1]), dtype=bool)
    picked = _api.where(mask, b, 0)
    if a.dtype.kind == "b":
        picked = _api.where(mask, b, False)
    return picked.sum(axis=(-2, -1), dtype=dtype)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The n-th discrete difference along an axis (``numpy.diff``).

    dask's method: ``a[1:] - a[:-1]`` along the axis, n times (``!=`` for bool).

    Parameters
    ----------
    a : Array or array_like
        At least 1-d.
    n : int, default 1
        The number of times to difference (>= 0; 0 returns a).
    axis : int, default -1
        The axis.
    prepend, append : Array, array_like or scalar, optional
        Values joined to a along the axis before differencing; a scalar is broadcast to extent 1 along
        the axis.

    Returns
    -------
    Array
        The lazy result, shorter by n along the axis.
    """
    a = asarray(a)
    n = int(n)
    axis = int(axis)
    if n == 0:
        return a
    if n < 0:
        raise ValueError("order must be non-negative but got %d" % n)
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    def edge(extra):
        e = asarray(extra)
        if e.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            e = broadcast_to(e, tuple(shape))
        return e

    combined = ([edge(prepend)] if prepend is not None else []) + [a] + \
        ([edge(append)] if append is not None else [])
    if len(combined) > 1:
        a = concatenate(combined, axis)
    sl_1 = [slice(None)] * a.ndim
    sl_2 = [slice(None)] * a.ndim
    sl_1[axis] = slice(1, None)
    sl_2[axis] = slice(None, -1)
    sl_1, sl_2 = tuple(sl_1), tuple(sl_2)
    r = a
    for _ in range(n):
        r = r[sl_1] - r[sl_2] if r.dtype.kind != "b" else _api.not_equal(r[sl_1], r[sl_2])
    return r


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences between consecutive elements of the flattened array (``numpy.ediff1d``).

    Parameters
    ----------
    ary : Array or array_like
        The input (flattened).
    to_end : Array, array_like or scalar, optional
        Values (flattened) appended after the differences.
    to_begin : Array, array_like or scalar, optional
        Values (flattened) put before the differences.

    Returns
    -------
    Array
        The lazy 1-d result.
    """
    ary = asarray(ary)
    aryf = ravel(ary)
    r = [aryf[1:] - aryf[:-1]]
    if to_begin is not None:
        r = [ravel(asarray(to_begin))] + r
    if to_end is not None:
        r = r + [ravel(asarray(to_end))]
    return concatenate(r) if len(r) > 1 else r[0]


# ---- order statistics: the reduced axes in one chunk, NumPy on each block -------------------------

def _one_chunk_along(a, axes):
    if any(len(a.chunks[ax]) > 1 for ax in axes):
        a = a.rechunk({ax: -1 for ax in axes})  # only these axes (dask also rechunks the others "auto")
    return a


_METHODS = {"linear": 0, "lower": 1, "higher": 2, "nearest": 3, "midpoint": 4}


def _c_quantile(a, qf, axis, method, keepdims, skip_nan, dtype=None):
    """The C library's exact quantile (ca_array_quantile), or None where it does not apply (complex
    dtypes, methods other than NumPy's five classic ones, q of more than one dimension)."""
    qf = np.asarray(qf, dtype=np.float64)
    if a.dtype.kind not in "biuf" or method not in _METHODS or qf.ndim > 1 or a.ndim == 0 or qf.size == 0:
        return None
    if np.any(np.isnan(qf)) or np.any((qf < 0) | (qf > 1)):
        raise ValueError("Quantiles must be in the range [0, 1]")
    axes = _axis_tuple(axis, a.ndim) if axis is not None else ()
    qa = np.ascontiguousarray(qf.ravel())
    if dtype is None and method in ("linear", "midpoint") and a.dtype.kind == "b":
        return None  # NumPy raises (boolean subtract): its own message
    opts = C.QuantileOptions(ctypes.sizeof(C.QuantileOptions), _METHODS[method], int(bool(keepdims)),
                             int(bool(skip_nan)), core._ca_dtype(dtype) if dtype is not None else 0)
    ax = core._i32arr(axes) if axes else None
    return Array._new(core.lib().ca_array_quantile, a, qa.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
                      qa.size, int(qf.ndim == 0), ax, len(axes), ctypes.byref(opts))


def _median(fn, a, axis, keepdims):
    a = asarray(a)
    # np.median keeps float16/float32 (np.quantile gives float64)
    dtype = a.dtype if a.dtype in (np.float16, np.float32) else np.float64
    r = _c_quantile(a, 0.5, axis, "linear", keepdims, fn is np.nanmedian, dtype)
    if r is not None:
        return r
    if axis is None:
        out = _median(fn, ravel(a), 0, False)
        if keepdims:
            out = out.reshape((1,) * a.ndim)
        return out
    axes = _axis_tuple(axis, a.ndim)
    a = _one_chunk_along(a, axes)
    dtype = fn(np.ones((1,) * a.ndim, a.dtype), axis=axes).dtype
    return core.map_blocks(fn, a, axis=axes, keepdims=keepdims, dtype=dtype,
                           drop_axis=axes if not keepdims else None,
                           chunks=tuple((1,) if i in axes else c for i, c in enumerate(a.chunks)) if keepdims
                           else None)


def median(a, axis=None, keepdims=False, out=None):
    """The median along axes (``numpy.median``).

    The C library's exact quantile (ca_array_quantile) for bool, integer and floating dtypes; other dtypes
    rechunk the reduced axes to one chunk and call ``numpy.median`` per block (dask's method). Unlike dask,
    ``axis=None`` is allowed: the flattened array in one chunk.

    Parameters
    ----------
    a : Array or array_like
        The input.
    axis : int, sequence of int or None, default None
        The axes to reduce; None: all.
    keepdims : bool, default False
        Keep the reduced axes with extent 1.
    out : None
        Not supported: anything but None raises NotImplementedError.

    Returns
    -------
    Array
        The lazy result: float16 and float32 stay, other dtypes give float64 (NumPy's).
    """
    if out is not None:
        raise NotImplementedError("median(out=...)")
    return _median(np.median, a, axis, keepdims)


def nanmedian(a, axis=None, keepdims=False, out=None):
    """The median along axes, ignoring nan (``numpy.nanmedian``).

    The C library's exact quantile (ca_array_quantile) for bool, integer and floating dtypes; other dtypes
    rechunk the reduced axes to one chunk and call ``numpy.nanmedian`` per block (dask's method). Unlike dask,
    ``axis=None`` is allowed: the flattened array in one chunk. An all-nan slice gives nan.

    Parameters
    ----------
    a : Array or array_like
        The input.
    axis : int, sequence of int or None, default None
        The axes to reduce; None: all.
    keepdims : bool, default False
        Keep the reduced axes with extent 1.
    out : None
        Not supported: anything but None raises NotImplementedError.

    Returns
    -------
    Array
        The lazy result: float16 and float32 stay, other dtypes give float64 (NumPy's).
    """
    if out is not None:
        raise NotImplementedError("nanmedian(out=...)")
    return _median(np.nanmedian, a, axis, keepdims)


def _percentile(fn, a, q, axis, method, keepdims):
    a = asarray(a)
    q = np.asarray(q)
    if np.any(np.isnan(q)) or np.any((q < 0) | (q > 100)):
        raise ValueError("Percentiles must be in the range [0, 100]")
    if fn is np.percentile and q.size:
        axes = _axis_tuple(axis, a.ndim)
        if a.ndim and math.prod(a.shape[ax] for ax in axes) == 0 and (
                axis is None or math.prod(n for i, n in enumerate(a.shape) if i not in axes) > 0):
            raise IndexError("cannot do a non-empty take from an empty axes.")  # NumPy's
    r = _c_quantile(a, np.true_divide(q, 100), axis, method, keepdims, fn is np.nanpercentile)
    if r is not None:
        return r
    if axis is None:
        r = _percentile(fn, ravel(a), q, 0, method, False)
        if keepdims:
            r = r.reshape(q.shape + (1,) * a.ndim)
        return r
    axes = _axis_tuple(axis, a.ndim)
    a = _one_chunk_along(a, axes)
    dtype = fn(np.ones((1,) * a.ndim, a.dtype), q, axis=axes, method=method).dtype
    if keepdims:
        rest = [(1,) if i in axes else c for i, c in enumerate(a.chunks)]
    else:
        rest = [c for i, c in enumerate(a.chunks) if i not in axes]
    chunks = tuple((s,) for s in q.shape) + tuple(rest)

    def block(x):
        # the reduced axes flattened into a first one: NumPy 1.24's nanpercentile misplaces a 2-d q's
        # axes when it reduces another axis than the first (np.nanpercentile(x, [[1, 2]], axis=1))
        rest = [n for i, n in enumerate(x.shape) if i not in axes]
        r = fn(np.moveaxis(x, axes, tuple(range(len(axes)))).reshape([-1] + rest), q, axis=0, method=method)
        if keepdims:
            r = r.reshape(q.shape + tuple(1 if i in axes else n for i, n in enumerate(x.shape)))
        return r

    block.__name__ = fn.__name__
    # the reduced axes (one chunk each) leave, or stay as size 1; q's axes come first
    return core.map_blocks(block, a, dtype=dtype, drop_axis=None if keepdims else axes,
                           new_axis=list(range(q.ndim)) or None, chunks=chunks or None)


def percentile(a, q, axis=None, method="linear", keepdims=False, out=None):
    """The q-th percentiles along axes (``numpy.percentile``).

    Exact: for bool, integer and floating dtypes with one of NumPy's five classic methods and a q of at
    most one dimension, the C library's quantile (ca_array_quantile); otherwise the reduced axes (all for
    ``axis=None``) are rechunked to one chunk and ``numpy.percentile`` runs per block.
    For 1-d ``a`` the result's chunks are dask's.

    Parameters
    ----------
    a : Array or array_like
        The input.
    q : float or array_like of float
        The percentiles, in [0, 100] (others, and nan, raise ValueError).
    axis : int, sequence of int or None, default None
        The axes to reduce; None: all.
    method : str, default "linear"
        NumPy's interpolation method ("linear", "lower", "higher", "nearest", "midpoint", or one of
        NumPy's other methods, computed through NumPy).
    keepdims : bool, default False
        Keep the reduced axes with extent 1.
    out : None
        Not supported: anything but None raises NotImplementedError.

    Returns
    -------
    Array
        The lazy result; q's dimensions come first (NumPy's layout).
    """
    if out is not None:
        raise NotImplementedError("percentile(out=...)")
    return _percentile(np.percentile, a, q, axis, method, keepdims)


def nanpercentile(a, q, axis=None, method="linear", keepdims=False, out=None):
    """The q-th percentiles along axes, ignoring nan (``numpy.nanpercentile``).

    Exact: for bool, integer and floating dtypes with one of NumPy's five classic methods and a q of at
    most one dimension, the C library's quantile (ca_array_quantile); otherwise the reduced axes (all for
    ``axis=None``) are rechunked to one chunk and ``numpy.nanpercentile`` runs per block.

    Parameters
    ----------
    a : Array or array_like
        The input.
    q : float or array_like of float
        The percentiles, in [0, 100] (others, and nan, raise ValueError).
    axis : int, sequence of int or None, default None
        The axes to reduce; None: all.
    method : str, default "linear"
        NumPy's interpolation method ("linear", "lower", "higher", "nearest", "midpoint", or one of
        NumPy's other methods, computed through NumPy).
    keepdims : bool, default False
        Keep the reduced axes with extent 1.
    out : None
        Not supported: anything but None raises NotImplementedError.

    Returns
    -------
    Array
        The lazy result; q's dimensions come first (NumPy's layout).
    """
    if out is not None:
        raise NotImplementedError("nanpercentile(out=...)")
    return _percentile(np.nanpercentile, a, q, axis, method, keepdims)


# ---- covariance ------------------------------------------------------------------------------------

def cov(m, y=None, rowvar=1, bias=0, ddof=None):
    """The covariance matrix (``numpy.cov``), as dask: the centered variables' product over the observations.

    Computed in float64 (complex128 for complex input) through ``linalg.dot``. Fewer than one degree of
    freedom warns (RuntimeWarning) and divides by 0, as NumPy.

    Parameters
    ----------
    m : Array or array_like
        1-d or 2-d: each row a variable, each column an observation (transposed with ``rowvar=0``).
    y : Array or array_like, optional
        More variables, in m's layout, joined to m.
    rowvar : int or bool, default 1
        Whether rows are variables (a single row always is).
    bias : int or bool, default 0
        Normalize by N instead of N - 1 (when ddof is None).
    ddof : int, optional
        The delta degrees of freedom (N - ddof is the divisor); overrides bias.

    Returns
    -------
    Array
        The lazy (nvars, nvars) matrix, squeezed (0-d for a single variable).
    """
    from .linalg import dot
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    m = asarray(m)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    dtype = np.result_type(m.dtype, np.float64) if y is None else np.result_type(m.dtype, asarray(y).dtype,
                                                                                 np.float64)
    X = m.astype(dtype)
    if X.ndim < 2:
        X = X.reshape((1,) + X.shape) if X.ndim == 1 else X.reshape((1, 1))
    if X.shape[0] == 1:
        rowvar = 1
    if rowvar:
        N = X.shape[1]
        axis = 0
    else:
        N = X.shape[0]
        axis = 1
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    fact = float(N - ddof)
    if fact <= 0:
        import warnings
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning)
        fact = 0.0
    if y is not None:
        yy = asarray(y).astype(dtype)
        if yy.ndim < 2:
            yy = yy.reshape((1,) + yy.shape)
        if not rowvar and yy.shape[0] != 1:
            pass
        X = concatenate((X, yy), axis)
    X = X - X.mean(axis=1 - axis, keepdims=True)
    Xc = X.conj() if X.dtype.kind == "c" else X
    if not rowvar:
        r = dot(X.T, Xc) / fact
    else:
        r = dot(X, Xc.T) / fact
    return r.squeeze()


def corrcoef(x, y=None, rowvar=1):
    """The Pearson correlation coefficients (``numpy.corrcoef``): ``cov / sqrt(diag(cov) diag(cov).T)``.

    Parameters
    ----------
    x : Array or array_like
        1-d or 2-d: each row a variable (see cov).
    y : Array or array_like, optional
        More variables, joined to x.
    rowvar : int or bool, default 1
        Whether rows are variables.

    Returns
    -------
    Array
        The lazy coefficient matrix (0-d for a single variable). NumPy clips to [-1, 1]; this does not.
    """
    c = cov(x, y, rowvar)
    if c.shape == ():
        return c / c
    d = core.diag(c)
    d = d.reshape((d.shape[0], 1))
    sqr_d = _api.sqrt(d)
    return (c / sqr_d) / sqr_d.T


# ---- counting --------------------------------------------------------------------------------------

def _histogram_c(samples, specs, weights, density, dd, split_every=None):
    """ca_array_histogramdd over Arrays: ``specs`` per dimension ``("n", nbins, lo, hi)`` (uniform bins)
    or ``("e", edges Array)``. Returns the histogram and the edge Arrays."""
    d = len(samples)
    handles = (C.c_vp * d)(*[x._h for x in samples])
    bins = (C.HistogramBins * d)()
    for i, sp in enumerate(specs):
        if sp[0] == "n":
            bins[i].nbins, bins[i].lo, bins[i].hi = int(sp[1]), float(sp[2]), float(sp[3])
        else:
            bins[i].nbins, bins[i].edges = 0, sp[1]._h
    opts = C.HistogramOptions(ctypes.sizeof(C.HistogramOptions), weights._h if weights is not None else None,
                              int(bool(density)), int(bool(dd)), int(split_every or 0))
    out = C.c_vp()
    edges = (C.c_vp * d)()
    core._check(core.lib().ca_array_histogramdd(ctypes.byref(out), edges, handles, d, bins, ctypes.byref(opts)))
    return Array(out.value), [Array(edges[i]) for i in builtins_range(d)]


builtins_range = range


def histogram(a, bins=None, range=None, normed=False, weights=None, density=None):
    """The histogram of an array (``numpy.histogram``) with dask's rules.

    ``bins`` is a sequence of edges, or a number of bins together with ``range``. The C library counts
    (ca_array_histogramdd): one task per block of ``a`` counts the block's values (the elementwise
    expression that produces ``a`` is evaluated inside that task), a tree reduction sums the partial
    histograms; NumPy's values (its edges for a's dtype, the last bin closed, values outside the range
    and NaNs ignored) and dask's chunks (one block).

    Parameters
    ----------
    a : Array or array_like
        The values (flattened).
    bins : int, sequence of scalars or 1-d Array
        The bin edges (1-d, monotonic), or the number of equal bins (then ``range`` is required).
    range : (float, float), optional
        The lower and upper edge for an int ``bins``.
    normed : False
        Deprecated by NumPy: anything but False raises ValueError (use density).
    weights : Array or array_like, optional
        a's shape: each value contributes its weight instead of 1.
    density : bool, optional
        Return the probability density (counts / total / bin width) instead of the counts.

    Returns
    -------
    hist : Array
        The lazy counts (or density), one per bin.
    bin_edges : numpy.ndarray or Array
        The edges (NumPy's for a number of bins; ``bins`` itself when it is an Array).
    """
    a = asarray(a)
    if isinstance(bins, Array) and bins.ndim == 0:
        bins = bins.compute()[()]
    scalar_bins = not isinstance(bins, Array) and np.ndim(bins) == 0
    if bins is None or (scalar_bins and range is None):
        raise ValueError("dask.array.histogram requires either specifying bins as an iterable or specifying "
                         "both a range and the number of bins")
    if normed is not False:
        raise ValueError("The normed= keyword argument has been deprecated. Please use density instead.")
    if weights is not None:
        weights = asarray(weights)
        if weights.shape != a.shape:
            raise ValueError("Input array and weights must have the same shape")
    if range is not None:
        if len(range) != 2:
            raise ValueError(f"range must be a sequence or array of length 2, but got {len(range)} items")
        range = (range[0], range[1])
    if scalar_bins:
        try:
            n = operator.index(bins)
        except TypeError as e:
            raise TypeError("`bins` must be an integer, a string, or an array") from e
        if n < 1:
            raise ValueError("`bins` must be positive, when an integer")
        spec, given = ("n", n, range[0], range[1]), None
    else:
        given = bins if isinstance(bins, Array) else np.asarray(bins)
        if given.ndim != 1:
            raise ValueError(f"bins must be a 1-dimensional array or sequence, got shape {given.shape}")
        if not isinstance(given, Array) and np.any(given[:-1] > given[1:]):
            raise ValueError("`bins` must increase monotonically, when an array")
        spec = ("e", given if isinstance(given, Array) else asarray(given))
    hist, edges = _histogram_c([a], [spec], weights, density, dd=False)
    return hist, (edges[0].compute() if given is None else given)


def bincount(x, weights=None, minlength=0, split_every=None):
    """Count the occurrences of each value in a 1-d array of non-negative integers (``numpy.bincount``).

    The length is ``max(x) + 1``, at least ``minlength``, and unknown (nan) until computed: each
    block counts up to its own maximum in the C library (ca_array_bincount) and a tree reduction pads
    and sums the rows, one pass over ``x``; a negative value fails the compute. dask gives the same
    unknown length without a minlength; with one it declares ``(minlength,)``, which is wrong when a
    value reaches minlength (docs/numpy-differences.md).

    Parameters
    ----------
    x : Array or array_like
        1-d, a bool or integer dtype.
    weights : Array or array_like, optional
        x's shape: each value contributes its weight instead of 1 (the result is then float64, or
        NumPy's bincount dtype for the weights).
    minlength : int, default 0
        The minimum length of the result.
    split_every : int or dict, optional
        The tree width of the reduction that sums the blocks' counts.

    Returns
    -------
    Array
        The lazy counts (intp without weights), one chunk of unknown size (nan) until computed.
    """
    x = asarray(x)
    if x.ndim != 1:
        raise ValueError("Input array must be one dimensional. Try using x.ravel()")
    if x.dtype.kind not in "biu" or x.dtype == np.uint64:
        raise TypeError(f"Cannot cast array data from dtype('{x.dtype}') to dtype('int64') according to the rule "
                        "'safe'")
    if weights is not None:
        weights = asarray(weights)
        if weights.shape != x.shape:
            raise ValueError("The weights and list don't have the same length.")
        weights = weights.rechunk(x.chunks)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    # CA_BINCOUNT_AT_LEAST(minlength) = -1 - minlength: max(max(x) + 1, minlength), found by the compute
    length = -1 - int(minlength) if x.size else int(minlength)
    if weights is not None and weights.dtype.kind not in "biuf":
        raise TypeError(f"Cannot cast array data from dtype('{weights.dtype}') to dtype('float64') according to the "
                        "rule 'safe'")
    se = split_every if isinstance(split_every, (int, np.integer)) else (
        max(split_every.values()) if isinstance(split_every, dict) and split_every else 0)
    # the C library's ca_array_bincount: a row of counts per block (one task each, no Python), summed
    return Array._new(core.lib().ca_array_bincount, x, weights, int(length), int(se or 0))


# ---- topk ------------------------------------------------------------------------------------------

def _topk_block(x, k, axis):
    n = x.shape[axis]
    if abs(k) >= n:
        return x
    if k > 0:
        return np.partition(x, n - k, axis=axis).take(np.arange(n - k, n), axis=axis)
    return np.partition(x, -k - 1, axis=axis).take(np.arange(-k), axis=axis)


def _topk_sorted(x, k, axis):
    x = _topk_block(x, k, axis)
    s = np.sort(x, axis=axis)
    return np.flip(s, axis=axis) if k > 0 else s


def _argtopk_block(x, k, axis, offset):
    n = x.shape[axis]
    idx = np.broadcast_to(np.arange(offset, offset + n).reshape([-1 if i == axis else 1 for i in range(x.ndim)]),
                          x.shape)
    if abs(k) >= n:
        return x, idx
    if k > 0:
        p = np.argpartition(x, n - k, axis=axis).take(np.arange(n - k, n), axis=axis)
    else:
        p = np.argpartition(x, -k - 1, axis=axis).take(np.arange(-k), axis=axis)
    return np.take_along_axis(x, p, axis), np.take_along_axis(idx, p, axis)


def _check_topk(a, k, axis):
    if not isinstance(k, numbers.Integral) or k == 0:
        raise ValueError(f"k must be a nonzero integer, got {k!r}")
    axis = _axis_tuple(axis, a.ndim)[0]
    if abs(k) > a.shape[axis]:
        raise ValueError(f"|k| = {abs(k)} is larger than the length {a.shape[axis]} of axis {axis}")
    return int(k), axis


def topk(a, k, axis=-1, split_every=None):
    """The k largest (or smallest) elements along an axis (``dask.array.topk``).

    dask's method: each block keeps its own top |k| along the axis first (NumPy's partition), then only
    those are gathered into one chunk along the axis and sorted. The other axes keep their chunks.

    Parameters
    ----------
    a : Array or array_like
        The input.
    k : int
        Nonzero, |k| at most the axis length: k > 0 the k largest, largest first; k < 0 the -k
        smallest, smallest first.
    axis : int, default -1
        The axis.
    split_every : int, optional
        Accepted for dask's signature; ignored (all the blocks' candidates are merged in one step).

    Returns
    -------
    Array
        The lazy result, a's dtype, extent |k| (one chunk) along the axis.
    """
    a = asarray(a)
    k, axis = _check_topk(a, k, axis)
    kk = abs(k)
    part_chunks = tuple(tuple(min(c, kk) for c in cs) if i == axis else cs for i, cs in enumerate(a.chunks))
    part = core.map_blocks(_topk_block, a, k=k, axis=axis, dtype=a.dtype, chunks=part_chunks)
    part = part.rechunk({axis: -1})
    out_chunks = tuple((kk,) if i == axis else cs for i, cs in enumerate(part.chunks))
    return core.map_blocks(_topk_sorted, part, k=k, axis=axis, dtype=a.dtype, chunks=out_chunks)


def argtopk(a, k, axis=-1, split_every=None):
    """The indices of topk's elements along an axis (``dask.array.argtopk``).

    dask's method: each block keeps its own top |k| along the axis first (NumPy's partition), then only
    those are gathered into one chunk along the axis and sorted. The other axes keep their chunks.

    Parameters
    ----------
    a : Array or array_like
        The input.
    k : int
        Nonzero, |k| at most the axis length: k > 0 the k largest, largest first; k < 0 the -k
        smallest, smallest first.
    axis : int, default -1
        The axis.
    split_every : int, optional
        Accepted for dask's signature; ignored (all the blocks' candidates are merged in one step).

    Returns
    -------
    Array
        intp indices along the axis into a, in topk's order (extent |k|, one chunk).
    """
    a = asarray(a)
    k, axis = _check_topk(a, k, axis)
    kk = abs(k)
    offsets = np.concatenate([[0], np.cumsum(a.chunks[axis])[:-1]]).astype(np.int64)
    part_chunks = tuple(tuple(min(c, kk) for c in cs) if i == axis else cs for i, cs in enumerate(a.chunks))

    def vals(x, block_id=None):
        return _argtopk_block(x, k, axis, int(offsets[block_id[axis]]))[0]

    def idxs(x, block_id=None):
        return _argtopk_block(x, k, axis, int(offsets[block_id[axis]]))[1]

    v = core.map_blocks(vals, a, dtype=a.dtype, chunks=part_chunks).rechunk({axis: -1})
    i = core.map_blocks(idxs, a, dtype=np.intp, chunks=part_chunks).rechunk({axis: -1})

    def pick(x, ix):
        if k > 0:
            order = np.flip(np.argsort(x, axis=axis, kind="stable"), axis=axis)
        else:
            order = np.argsort(x, axis=axis, kind="stable")
        order = order.take(np.arange(kk), axis=axis)
        return np.take_along_axis(ix, order, axis)

    out_chunks = tuple((kk,) if j == axis else cs for j, cs in enumerate(v.chunks))
    return core.map_blocks(pick, v, i, dtype=np.intp, chunks=out_chunks)


# ---- gradient ---------------------------------------------------------------------------------------

def gradient(f, *varargs, axis=None, **kwargs):
    """The gradient by central differences (``numpy.gradient``).

    dask's method: ``numpy.gradient`` on each block extended by one element of its neighbours along the
    axis (map_overlap), so every chunk along a differentiated axis needs at least ``edge_order + 1``
    elements (ValueError otherwise).
    Integer, bool and float16 input computes in float64 (rounded once to NumPy's result dtype).

    Parameters
    ----------
    f : Array or array_like
        The input.
    *varargs : scalar or 1-d array_like
        The spacing: none (1), one scalar for every axis, or one scalar or 1-d NumPy coordinate array per
        axis (a chunkarray Array raises NotImplementedError).
    axis : int, tuple of int or None, default None
        The axes to differentiate; None: all.
    **kwargs
        ``edge_order`` (1 or 2, default 1): the accuracy at the boundaries, as NumPy's.

    Returns
    -------
    Array or list of Array
        One gradient per axis: a single Array for an int ``axis``, otherwise a list (dask's rule: also for
        a 1-d f with ``axis=None``, where NumPy returns one array).
    """
    f = asarray(f)
    kwargs["edge_order"] = math.ceil(kwargs.get("edge_order", 1))
    if kwargs["edge_order"] > 2:
        raise ValueError("edge_order must be less than or equal to 2.")
    drop_result_list = False
    if axis is None:
        axis = tuple(range(f.ndim))
    elif isinstance(axis, numbers.Integral):
        drop_result_list = True
        axis = (axis,)
    axis = _axis_tuple(axis, f.ndim)
    if varargs == ():
        varargs = (1,)
    if len(varargs) == 1:
        varargs = len(axis) * varargs
    if len(varargs) != len(axis):
        raise TypeError("Spacing must either be a single scalar, or a scalar / 1d-array per axis")
    out_dtype = np.gradient(np.ones((3,) * f.ndim, f.dtype), axis=axis[0] if axis else 0).dtype
    if f.dtype.kind in "biu" or (f.dtype.kind == "f" and f.dtype.itemsize < 4):
        f = f.astype(float)  # float16 computes in float64 and rounds once (NumPy's dtype, dask's precision)
    results = []
    for i, ax in enumerate(axis):
        if min(f.chunks[ax]) < kwargs["edge_order"] + 1:
            raise ValueError("Chunk size must be larger than edge_order + 1. Minimum chunk for axis {} is {}. "
                             "Rechunk to proceed.".format(ax, min(f.chunks[ax])))
        coord = varargs[i]
        if np.isscalar(coord):
            locs = None
        else:
            if isinstance(coord, Array):
                raise NotImplementedError("chunkarray array coordinates are not supported.")
            coord = np.asarray(coord)
            chunk = np.array(f.chunks[ax])
            stop = np.cumsum(chunk) + 1
            start = stop - chunk - 2
            stop[-1] -= 1
            start[0] = 0
            locs = (start, stop)

        def kernel(x, block_id=None, coord=coord, ax=ax, locs=locs):
            c = coord
            if locs is not None:
                c = coord[locs[0][block_id[ax]]:locs[1][block_id[ax]]]
            return np.gradient(x, c, axis=ax, **kwargs)

        kernel.__name__ = "gradient"
        r = core.map_overlap(kernel, f, dtype=f.dtype, depth={j: 1 if j == ax else 0 for j in range(f.ndim)},
                             boundary="none")
        results.append(r if r.dtype == out_dtype else r.astype(out_dtype))
    return results[0] if drop_result_list else results


def _register():
    table = {np.ptp: ptp, np.average: average, np.count_nonzero: count_nonzero, np.diff: diff,
             np.ediff1d: ediff1d, np.trace: trace, np.median: median, np.nanmedian: nanmedian,
             np.percentile: percentile, np.nanpercentile: nanpercentile, np.cov: cov, np.corrcoef: corrcoef,
             np.bincount: bincount, np.histogram: histogram, np.gradient: gradient}
    core._NUMPY_FUNCTIONS.update(table)


_register()
del functools
