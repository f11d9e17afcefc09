"""Discrete Fourier transforms (include/chunkarray/fft.h): ``dask.array.fft``'s functions with NumPy's
values.

As in dask, every transformed axis must be one block (``ValueError`` with dask's message otherwise:
rechunk it first); the other axes keep their chunks. Results are complex128 (float64 for ``irfft*``
and ``hfft``) for every input dtype, as NumPy 1.24's pocketfft computes them. Unlike dask 2022.12,
every transform also takes NumPy's ``norm=``. The backend (``backend()``) is pocketfft by default,
KISS FFT in a library built with ``-Dfft=kissfft``, or FFTW with ``-Dfft=fftw`` (``-Dfftw=enabled``).
"""
import ctypes as _ctypes
from collections.abc import Sequence as _Sequence

import numpy as _np

from . import _lib as _C
from ._lib import lib as _lib
from .core import Array as _Array, _chunks_struct, _i32arr, _i64arr, _is_explicit, asarray as _asarray
from .core import normalize_chunks as _normalize_chunks

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn",
           "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift", "backend"]

_KIND = {"fft": 0, "ifft": 1, "rfft": 2, "irfft": 3, "hfft": 4, "ihfft": 5}
_NORM = {None: 0, "backward": 0, "ortho": 1, "forward": 2}


def _norm_code(norm):
    try:
        return _NORM[norm]
    except (KeyError, TypeError):
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".') from None


def _transform(kind, a, s, axes, norm):
    a = _asarray(a)
    opts = _C.FftOptions(_ctypes.sizeof(_C.FftOptions), -1, None, -1, None, _norm_code(norm))
    keep = []
    if axes is not None:
        axes = [int(x) for x in axes]
        ax = _i32arr(axes)
        keep.append(ax)
        opts.naxes, opts.axes = len(axes), _ctypes.cast(ax, _ctypes.POINTER(_ctypes.c_int32))
    if s is not None:
        s = [int(x) for x in s]
        sa = _i64arr(s)
        keep.append(sa)
        opts.ns, opts.s = len(s), _ctypes.cast(sa, _ctypes.POINTER(_ctypes.c_int64))
    return _Array._new(_lib().ca_fft_transform, a, _KIND[kind], _ctypes.byref(opts))


def _one(kind, a, n, axis, norm):
    return _transform(kind, a, None if n is None else (n,), (-1 if axis is None else axis,), norm)


def fft(a, n=None, axis=-1, norm=None):
    """One-dimensional discrete Fourier transform (``numpy.fft.fft``, ``dask.array.fft.fft``).

    Parameters
    ----------
    a : Array or array_like
        Input; ``axis`` must be one block.
    n : int, optional
        Length of the transformed axis (the input is truncated or zero-padded); default its length.
    axis : int, default -1
        The axis to transform.
    norm : {None, "backward", "ortho", "forward"}, optional
        Normalization (NumPy's; None is "backward").

    Returns
    -------
    Array
        complex128; ``axis`` one block of length ``n``, the other axes with ``a``'s chunks.

    Raises
    ------
    ValueError
        ``axis`` has several blocks (dask's message), ``n`` < 1 or an invalid ``norm``.

    See Also
    --------
    numpy.fft.fft
    """
    return _one("fft", a, n, axis, norm)


def ifft(a, n=None, axis=-1, norm=None):
    """One-dimensional inverse discrete Fourier transform (``numpy.fft.ifft``).

    Parameters
    ----------
    a : Array or array_like
        Input; ``axis`` must be one block.
    n : int, optional
        Length of the transformed axis; default its length.
    axis : int, default -1
        The axis to transform.
    norm : {None, "backward", "ortho", "forward"}, optional
        Normalization.

    Returns
    -------
    Array
        complex128.

    See Also
    --------
    numpy.fft.ifft
    """
    return _one("ifft", a, n, axis, norm)


def rfft(a, n=None, axis=-1, norm=None):
    """One-dimensional discrete Fourier transform of real input (``numpy.fft.rfft``).

    Parameters
    ----------
    a : Array or array_like
        Real input (the imaginary part of complex input is discarded, as NumPy does); ``axis`` must be
        one block.
    n : int, optional
        Number of input points used along ``axis``; default its length.
    axis : int, default -1
        The axis to transform.
    norm : {None, "backward", "ortho", "forward"}, optional
        Normalization.

    Returns
    -------
    Array
        complex128 with ``n // 2 + 1`` entries along ``axis``.

    See Also
    --------
    numpy.fft.rfft
    """
    return _one("rfft", a, n, axis, norm)


def irfft(a, n=None, axis=-1, norm=None):
    """Inverse of ``rfft`` (``numpy.fft.irfft``).

    Parameters
    ----------
    a : Array or array_like
        The non-negative frequency terms; ``axis`` must be one block.
    n : int, optional
        Length of the real output; default ``2 * (m - 1)`` for ``m`` input points.
    axis : int, default -1
        The axis to transform.
    norm : {None, "backward", "ortho", "forward"}, optional
        Normalization.

    Returns
    -------
    Array
        float64 with ``n`` entries along ``axis``.

    See Also
    --------
    numpy.fft.irfft
    """
    return _one("irfft", a, n, axis, norm)


def hfft(a, n=None, axis=-1, norm=None):
    """FFT of a signal with Hermitian symmetry: a real spectrum (``numpy.fft.hfft``).

    Parameters
    ----------
    a : Array or array_like
        The first half of the Hermitian signal; ``axis`` must be one block.
    n : int, optional
        Length of the output; default ``2 * (m - 1)``.
    axis : int, default -1
        The axis to transform.
    norm : {None, "backward", "ortho", "forward"}, optional
        Normalization.

    Returns
    -------
    Array
        float64 with ``n`` entries along ``axis``.

    See Also
    --------
    numpy.fft.hfft
    """
    return _one("hfft", a, n, axis, norm)


def ihfft(a, n=None, axis=-1, norm=None):
    """Inverse of ``hfft`` (``numpy.fft.ihfft``).

    Parameters
    ----------
    a : Array or array_like
        Real input; ``axis`` must be one block.
    n : int, optional
        Number of input points used; default the axis length.
    axis : int, default -1
        The axis to transform.
    norm : {None, "backward", "ortho", "forward"}, optional
        Normalization.

    Returns
    -------
    Array
        complex128 with ``n // 2 + 1`` entries along ``axis``.

    See Also
    --------
    numpy.fft.ihfft
    """
    return _one("ihfft", a, n, axis, norm)


def fft2(a, s=None, axes=(-2, -1), norm=None):
    """Two-dimensional discrete Fourier transform (``numpy.fft.fft2``).

    Parameters
    ----------
    a : Array or array_like
        Input; the transformed axes must be one block each.
    s : sequence of int, optional
        Output lengths along ``axes``.
    axes : sequence of int, default (-2, -1)
        The axes to transform.
    norm : {None, "backward", "ortho", "forward"}, optional
        Normalization.

    Returns
    -------
    Array
        complex128.

    See Also
    --------
    numpy.fft.fft2
    """
    return _transform("fft", a, s, axes, norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    """Two-dimensional inverse discrete Fourier transform (``numpy.fft.ifft2``).

    Parameters
    ----------
    a : Array or array_like
        Input; the transformed axes must be one block each.
    s : sequence of int, optional
        Output lengths along ``axes``.
    axes : sequence of int, default (-2, -1)
        The axes to transform.
    norm : {None, "backward", "ortho", "forward"}, optional
        Normalization.

    Returns
    -------
    Array
        complex128.

    See Also
    --------
    numpy.fft.ifft2
    """
    return _transform("ifft", a, s, axes, norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    """Two-dimensional FFT of real input (``numpy.fft.rfft2``).

    Parameters
    ----------
    a : Array or array_like
        Real input; the transformed axes must be one block each.
    s : sequence of int, optional
        Input lengths used along ``axes``.
    axes : sequence of int, default (-2, -1)
        The axes to transform (the last one is halved).
    norm : {None, "backward", "ortho", "forward"}, optional
        Normalization.

    Returns
    -------
    Array
        complex128.

    See Also
    --------
    numpy.fft.rfft2
    """
    return _transform("rfft", a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    """Inverse of ``rfft2`` (``numpy.fft.irfft2``).

    Parameters
    ----------
    a : Array or array_like
        Input; the transformed axes must be one block each.
    s : sequence of int, optional
        Output lengths along ``axes``.
    axes : sequence of int, default (-2, -1)
        The axes to transform.
    norm : {None, "backward", "ortho", "forward"}, optional
        Normalization.

    Returns
    -------
    Array
        float64.

    See Also
    --------
    numpy.fft.irfft2
    """
    return _transform("irfft", a, s, axes, norm)


def fftn(a, s=None, axes=None, norm=None):
    """N-dimensional discrete Fourier transform (``numpy.fft.fftn``).

    Parameters
    ----------
    a : Array or array_like
        Input; the transformed axes must be one block each.
    s : sequence of int, optional
        Output lengths along ``axes``.
    axes : sequence of int, optional
        The axes to transform: default every axis, or (as dask, unlike NumPy) the first ``len(s)``
        axes when ``s`` is given.
    norm : {None, "backward", "ortho", "forward"}, optional
        Normalization.

    Returns
    -------
    Array
        complex128.

    See Also
    --------
    numpy.fft.fftn
    """
    return _transform("fft", a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
    """N-dimensional inverse discrete Fourier transform (``numpy.fft.ifftn``).

    Parameters
    ----------
    a : Array or array_like
        Input; the transformed axes must be one block each.
    s : sequence of int, optional
        Output lengths along ``axes``.
    axes : sequence of int, optional
        The axes to transform (default as ``fftn``).
    norm : {None, "backward", "ortho", "forward"}, optional
        Normalization.

    Returns
    -------
    Array
        complex128.

    See Also
    --------
    numpy.fft.ifftn
    """
    return _transform("ifft", a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
    """N-dimensional FFT of real input (``numpy.fft.rfftn``).

    Parameters
    ----------
    a : Array or array_like
        Real input; the transformed axes must be one block each.
    s : sequence of int, optional
        Input lengths used along ``axes``.
    axes : sequence of int, optional
        The axes to transform (default as ``fftn``); the last one is halved.
    norm : {None, "backward", "ortho", "forward"}, optional
        Normalization.

    Returns
    -------
    Array
        complex128.

    See Also
    --------
    numpy.fft.rfftn
    """
    return _transform("rfft", a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
    """Inverse of ``rfftn`` (``numpy.fft.irfftn``).

    Parameters
    ----------
    a : Array or array_like
        Input; the transformed axes must be one block each.
    s : sequence of int, optional
        Output lengths along ``axes`` (default: the input's, ``2 * (m - 1)`` on the last axis).
    axes : sequence of int, optional
        The axes to transform (default as ``fftn``).
    norm : {None, "backward", "ortho", "forward"}, optional
        Normalization.

    Returns
    -------
    Array
        float64.

    See Also
    --------
    numpy.fft.irfftn
    """
    return _transform("irfft", a, s, axes, norm)


def _freq_chunks(chunks, n):
    ch = tuple(tuple(int(x) for x in c) for c in chunks) if _is_explicit(chunks) else _normalize_chunks(
        chunks, (n,), dtype=_np.float64)
    return _chunks_struct(ch)


def fftfreq(n, d=1.0, chunks="auto"):
    """Sample frequencies of the discrete Fourier transform (``numpy.fft.fftfreq``).

    Parameters
    ----------
    n : int
        Window length.
    d : float, default 1.0
        Sample spacing.
    chunks : str, int, tuple or dict, default "auto"
        Block sizes of the result (dask's).

    Returns
    -------
    Array
        float64 of length ``n``.

    See Also
    --------
    numpy.fft.fftfreq
    """
    n, d = int(n), float(d)
    st, _keep = _freq_chunks(chunks, n)
    return _Array._new(_lib().ca_fft_fftfreq, n, d, _ctypes.byref(st))


def rfftfreq(n, d=1.0, chunks="auto"):
    """Sample frequencies of ``rfft`` (``numpy.fft.rfftfreq``).

    Parameters
    ----------
    n : int
        Window length.
    d : float, default 1.0
        Sample spacing.
    chunks : str, int, tuple or dict, default "auto"
        Block sizes of the result (dask's).

    Returns
    -------
    Array
        float64 of length ``n // 2 + 1``.

    See Also
    --------
    numpy.fft.rfftfreq
    """
    n, d = int(n), float(d)
    st, _keep = _freq_chunks(chunks, n // 2 + 1)
    return _Array._new(_lib().ca_fft_rfftfreq, n, d, _ctypes.byref(st))


def _shift(fn, x, axes):
    x = _asarray(x)
    if axes is None:
        return _Array._new(fn, x, None, -1)
    if not isinstance(axes, _Sequence):
        axes = (axes,)
    axes = [int(a) for a in axes]
    return _Array._new(fn, x, _ctypes.cast(_i32arr(axes), _ctypes.POINTER(_ctypes.c_int32)), len(axes))


def fftshift(x, axes=None):
    """Shift the zero-frequency term to the centre (``numpy.fft.fftshift``, dask's chunks).

    Parameters
    ----------
    x : Array or array_like
        Input.
    axes : int or sequence of int, optional
        Axes to shift; default all.

    Returns
    -------
    Array
        The shifted array.

    See Also
    --------
    numpy.fft.fftshift
    """
    return _shift(_lib().ca_fft_fftshift, x, axes)


def ifftshift(x, axes=None):
    """The inverse of ``fftshift`` (``numpy.fft.ifftshift``, dask's chunks).

    Parameters
    ----------
    x : Array or array_like
        Input.
    axes : int or sequence of int, optional
        Axes to shift; default all.

    Returns
    -------
    Array
        The shifted array.

    See Also
    --------
    numpy.fft.ifftshift
    """
    return _shift(_lib().ca_fft_ifftshift, x, axes)


def backend():
    """The FFT library the loaded libchunkarray was built with.

    Returns
    -------
    str
        ``"pocketfft"`` (the default build), ``"kissfft"`` (``-Dfft=kissfft``) or ``"fftw3"``
        (``-Dfft=fftw``, ``-Dfftw=enabled``).
    """
    return _lib().ca_fft_backend().decode()


# NEP 18: numpy.fft.fft(chunkarray_array) and the others run these lazily (as numpy.fft functions on a
# dask array run dask.array.fft's).
def _register_numpy_functions():
    from . import core as _core
    _core._NUMPY_FUNCTIONS.update({getattr(_np.fft, n): globals()[n] for n in __all__ if n != "backend"})


_register_numpy_functions()


def fft_wrap(fft_func, kind=None, dtype=None):
    """Wrap a NumPy-like FFT function for chunked arrays (dask.array.fft.fft_wrap).

    NumPy's own functions (``numpy.fft.fft``, ``rfft2``, ...) map to this module's, which run in C;
    any other function with NumPy's signature (e.g. SciPy's) runs on each block through
    ``map_blocks``, with dask's rule: the transformed axes must be one block each.

    Parameters
    ----------
    fft_func : callable
        A function like ``numpy.fft.fft``.
    kind : str, optional
        Which NumPy function it behaves like (``"fft"``, ``"rfft2"``, ``"ihfft"``, ...); default its name.
    dtype : numpy.dtype, optional
        The result's dtype (default: found by calling ``fft_func`` on a small sample).

    Returns
    -------
    callable
        ``func(a, s=None, axes=None)`` (``func(a, n=None, axis=None)`` for the one-axis kinds), as dask's.
    """
    if kind is None:
        kind = fft_func.__name__
    base = kind.rstrip("2n")
    if base not in _KIND:
        raise ValueError("Given unknown `kind` %s." % kind)

    def func(a, s=None, axes=None):
        a = _asarray(a)
        if axes is None:
            if kind.endswith("2"):
                axes = (-2, -1)
            elif kind.endswith("n"):
                axes = tuple(range(a.ndim)) if s is None else tuple(range(len(s)))
            else:
                axes = (-1,)
        elif len(set(axes)) < len(axes):
            raise ValueError("Duplicate axes not allowed.")
        if fft_func is getattr(_np.fft, kind, None) and dtype is None:
            if kind.endswith("fft"):  # one axis: NumPy's (n, axis)
                return globals()[kind](a, None if s is None else s[0], axes[0])
            return globals()[kind](a, s, axes)
        _dtype = dtype
        if _dtype is None:
            sample = _np.ones(a.ndim * (8,), dtype=a.dtype)
            try:
                _dtype = fft_func(sample, axes=axes).dtype
            except TypeError:
                _dtype = fft_func(sample).dtype
        axes_n = [ax % a.ndim for ax in axes]
        for ax in axes_n:
            if len(a.chunks[ax]) != 1:
                raise ValueError("Dask array only supports taking an FFT along an axis that \n"
                                 "has a single chunk. An FFT operation was tried on axis %s \n"
                                 "which has chunks %s. To change the array's chunks use "
                                 "dask.Array.rechunk." % (ax, a.chunks[ax]))
        chunks = list(a.chunks)
        for i, ax in enumerate(axes_n):
            n_in = a.shape[ax]
            last = i == len(axes_n) - 1
            if base in ("rfft", "ihfft"):
                n = n_in if s is None else s[i]
                chunks[ax] = (n // 2 + 1,) if last else (n,)
            elif base in ("irfft", "hfft"):
                n = (2 * (n_in - 1) if last else n_in) if s is None else s[i]
                chunks[ax] = (n,)
            else:
                chunks[ax] = (n_in if s is None else s[i],)
        if kind.endswith("fft"):
            args = (None if s is None else s[0], axes[0])
        else:
            args = (s, axes)
        from .core import map_blocks as _map_blocks
        return _map_blocks(fft_func, a, *args, dtype=_dtype, chunks=tuple(chunks))

    if kind.endswith("fft"):  # one axis: dask's func(a, n=None, axis=None)
        _func = func

        def func(a, n=None, axis=None):
            return _func(a, None if n is None else (n,), None if axis is None else (axis,))

    func.__name__ = kind
    func.__doc__ = f"``{kind}`` of a chunked array through ``{getattr(fft_func, '__name__', fft_func)}`` (fft_wrap)."
    return func


__all__ = __all__ + ["fft_wrap"]
