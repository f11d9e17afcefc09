"""numpy.lib.stride_tricks.sliding_window_view, lazily (ca_array_sliding_window_view, overlap.h)."""
import ctypes
import operator

import numpy as np

from ._lib import lib
from .core import Array, asarray

__all__ = ["sliding_window_view"]


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """Sliding windows over an array (dask.array.lib.stride_tricks.sliding_window_view).

    The result has ``x``'s axes, each windowed axis shortened by ``window - 1``, followed by one
    axis per window. It is a new lazy array, not a view.

    Parameters
    ----------
    x : Array or array_like
        The input.
    window_shape : int or tuple of int
        The window's extent along each windowed axis.
    axis : int or tuple of int, optional
        The windowed axes (default: every axis, one window extent each).
    subok : bool, default False
        Accepted for NumPy's signature.
    writeable : bool, default False
        Accepted for NumPy's signature (the result is never a view).

    Returns
    -------
    Array
        The lazy result.
    """
    x = asarray(x)
    window_shape = tuple(window_shape) if np.iterable(window_shape) else (window_shape,)
    w = [operator.index(v) for v in window_shape]
    wbuf = (ctypes.c_int64 * max(1, len(w)))(*w)
    abuf = None
    if axis is not None:
        axis = tuple(axis) if np.iterable(axis) else (axis,)
        if len(axis) != len(w):
            raise ValueError(f"Must provide matching length window_shape and axis; got {len(w)} window_shape "
                             f"elements and {len(axis)} axes elements.")
        abuf = (ctypes.c_int32 * max(1, len(axis)))(*[operator.index(a) for a in axis])
    elif len(w) != x.ndim:
        raise ValueError(f"Since axis is `None`, must provide window_shape for all dimensions of `x`; got "
                         f"{len(w)} window_shape elements and `x.ndim` is {x.ndim}.")
    return Array._new(lib().ca_array_sliding_window_view, x, wbuf, len(w), abuf)
