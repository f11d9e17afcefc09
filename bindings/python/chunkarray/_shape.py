"""Shape functions through include/chunkarray/shape.h (NumPy's values, dask's chunks)."""
import ctypes
import numbers

import numpy as np

from . import _lib as C
from ._lib import lib
from .core import (Array, _axes, _chunks_struct, _i32arr, _i64arr, _is_explicit, _scalar, asarray,
                   normalize_chunks)

c_vp = ctypes.c_void_p


def _axis_list(axis):
    if axis is None:
        return None
    if isinstance(axis, (numbers.Integral, np.integer)):
        return [int(axis)]
    return [int(a) for a in axis]


def reshape(a, shape, merge_chunks=True, limit=None):
    """Give a new shape (dask's reshape).

    Parameters
    ----------
    a : Array or array_like
        The input.
    shape : int or tuple of int
        The new shape; one entry may be -1.
    merge_chunks : bool, default True
        Rechunk the input so that every output block comes from whole input blocks.
    limit : int, optional
        The byte size blocks aim at when rechunking.

    Returns
    -------
    Array
        The lazy result.

    See Also
    --------
    numpy.reshape
    """
    a = asarray(a)
    if isinstance(shape, (numbers.Integral, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    return Array._new(lib().ca_array_reshape, a.handle, len(shape), _i64arr(shape) if shape else None)


def ravel(a):
    """The flattened array, C order (``numpy.ravel``).

    Parameters
    ----------
    a : Array or array_like
        The input.

    Returns
    -------
    Array
        1-d.
    """
    return Array._new(lib().ca_array_ravel, asarray(a))


def transpose(a, axes=None):
    """Permute the axes (``numpy.transpose``).

    Parameters
    ----------
    a : Array or array_like
        The input.
    axes : tuple of int, optional
        The new order; None reverses the axes.

    Returns
    -------
    Array
        The lazy result.
    """
    a = asarray(a)
    if axes is None:
        return Array._new(lib().ca_array_transpose, a.handle, None)
    axes = [int(x) for x in axes]
    if len(axes) != a.ndim:
        raise ValueError("axes don't match array")
    return Array._new(lib().ca_array_transpose, a.handle, _i32arr(axes))


def moveaxis(a, source, destination):
    """Move axes to new positions (``numpy.moveaxis``).

    Parameters
    ----------
    a : Array or array_like
        The input.
    source : int or sequence of int
        The axes to move.
    destination : int or sequence of int
        Their new positions.

    Returns
    -------
    Array
        The lazy result.
    """
    a = asarray(a)
    s, d = _axis_list(source), _axis_list(destination)
    if len(s) != len(d):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    return Array._new(lib().ca_array_moveaxis, asarray(a), _i32arr(s), _i32arr(d), len(s))


def swapaxes(a, axis1, axis2):
    """Exchange two axes (``numpy.swapaxes``).

    Parameters
    ----------
    a : Array or array_like
        The input.
    axis1, axis2 : int
        The axes.

    Returns
    -------
    Array
        The lazy result.
    """
    return Array._new(lib().ca_array_swapaxes, asarray(a), int(axis1), int(axis2))


def squeeze(a, axis=None):
    """Remove axes of length one (``numpy.squeeze``).

    Parameters
    ----------
    a : Array or array_like
        The input.
    axis : int or tuple of int, optional
        The axes; None removes every length-one axis.

    Returns
    -------
    Array
        The lazy result.
    """
    ax = _axis_list(axis)
    return Array._new(lib().ca_array_squeeze, asarray(a), _i32arr(ax) if ax is not None else None,
                      len(ax) if ax is not None else 0)


def expand_dims(a, axis):
    """Insert axes of length one (``numpy.expand_dims``).

    Parameters
    ----------
    a : Array or array_like
        The input.
    axis : int or tuple of int
        Positions of the new axes in the result.

    Returns
    -------
    Array
        The lazy result.
    """
    ax = _axis_list(axis)
    return Array._new(lib().ca_array_expand_dims, asarray(a), _i32arr(ax), len(ax))


def broadcast_to(x, shape, chunks=None, meta=None):
    """Broadcast to a shape (``numpy.broadcast_to``; a new lazy array, no view).

    Parameters
    ----------
    x : Array or array_like
        The input.
    shape : int or tuple of int
        The target shape.
    chunks : tuple, optional
        The result's chunks (default: the input's along its axes, one block along new ones).
    meta : numpy.ndarray, optional
        Accepted for dask's signature.

    Returns
    -------
    Array
        The lazy result.
    """
    x = asarray(x)
    if isinstance(shape, (numbers.Integral, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    st = keep = None
    if chunks is not None:
        ch = tuple(tuple(c) for c in chunks) if _is_explicit(chunks) else normalize_chunks(chunks, shape,
                                                                                             dtype=x.dtype)
        st, keep = _chunks_struct(ch)
    return Array._new(lib().ca_array_broadcast_to, x.handle, len(shape), _i64arr(shape),
                      ctypes.byref(st) if st is not None else None)


def _handles(seq):
    arrs = [asarray(a) for a in seq]
    return arrs, (c_vp * max(1, len(arrs)))(*[a.handle for a in arrs])


def concatenate(seq, axis=0, allow_unknown_chunksizes=False):
    """Join arrays along an existing axis (``numpy.concatenate``).

    Parameters
    ----------
    seq : sequence of Array or array_like
        The arrays.
    axis : int or None, default 0
        The axis; None flattens the arrays first.
    allow_unknown_chunksizes : bool, default False
        Accepted for dask's signature.

    Returns
    -------
    Array
        The lazy result.
    """
    arrs, hs = _handles(seq)
    if not arrs:
        raise ValueError("Need array(s) to concatenate")
    if axis is None:
        arrs = [ravel(a) for a in arrs]
        arrs, hs = _handles(arrs)
        axis = 0
    return Array._new(lib().ca_array_concatenate, hs, len(arrs), int(axis))


def stack(seq, axis=0, allow_unknown_chunksizes=False):
    """Join arrays along a new axis (``numpy.stack``).

    Parameters
    ----------
    seq : sequence of Array or array_like
        Arrays of one shape.
    axis : int, default 0
        The new axis's position.
    allow_unknown_chunksizes : bool, default False
        Accepted for dask's signature.

    Returns
    -------
    Array
        The lazy result.
    """
    arrs, hs = _handles(seq)
    if not arrs:
        raise ValueError("Need array(s) to stack")
    return Array._new(lib().ca_array_stack, hs, len(arrs), int(axis))


def block(arrays, allow_unknown_chunksizes=False):
    """Assemble an array from nested lists of blocks (``numpy.block``).

    Parameters
    ----------
    arrays : nested list of Array or array_like
        The blocks; the innermost lists join along the last axis.
    allow_unknown_chunksizes : bool, default False
        Accepted for dask's signature.

    Returns
    -------
    Array
        The lazy result.
    """
    leaves, sizes = [], []

    def depth_of(x):
        return 1 + depth_of(x[0]) if isinstance(x, list) and x else (1 if isinstance(x, list) else 0)

    depth = depth_of(arrays)

    def walk(x, d):
        if isinstance(x, tuple):
            raise TypeError("block: arrays is a tuple; only lists can be used to arrange blocks")
        if isinstance(x, list):
            if d == 0:
                raise ValueError("List depths are mismatched")
            sizes.append(len(x))
            for i in x:
                walk(i, d - 1)
        else:
            if d != 0:
                raise ValueError("List depths are mismatched")
            leaves.append(asarray(x))

    walk(arrays, depth)
    hs = (c_vp * max(1, len(leaves)))(*[a.handle for a in leaves])
    return Array._new(lib().ca_array_block, hs, len(leaves), depth, _i64arr(sizes), len(sizes))


def repeat(a, repeats, axis=None):
    """Repeat elements (``numpy.repeat``, a scalar count).

    Parameters
    ----------
    a : Array or array_like
        The input.
    repeats : int
        Repetitions of each element.
    axis : int, optional
        The axis; None repeats the flattened array.

    Returns
    -------
    Array
        The lazy result.
    """
    a = asarray(a)
    if not isinstance(repeats, (numbers.Integral, np.integer)):
        raise NotImplementedError("repeat with per-element counts: only a scalar count is supported")
    if axis is None:
        a, axis = ravel(a), 0
    return Array._new(lib().ca_array_repeat, a.handle, int(repeats), int(axis))


def tile(A, reps):
    """Repeat the whole array (``numpy.tile``).

    Parameters
    ----------
    A : Array or array_like
        The input.
    reps : int or tuple of int
        Repetitions along each axis.

    Returns
    -------
    Array
        The lazy result.
    """
    A = asarray(A)
    reps = (int(reps),) if isinstance(reps, (numbers.Integral, np.integer)) else tuple(int(r) for r in reps)
    return Array._new(lib().ca_array_tile, A.handle, _i64arr(reps), len(reps))


_PAD_MODES = {"constant": C.PAD_CONSTANT, "edge": C.PAD_EDGE, "reflect": C.PAD_REFLECT}


def pad(array, pad_width, mode="constant", **kwargs):
    """Pad an array (``numpy.pad``: modes constant, edge and reflect).

    Parameters
    ----------
    array : Array or array_like
        The input.
    pad_width : int or sequence
        ``(before, after)`` widths per axis, broadcast as NumPy does.
    mode : {"constant", "edge", "reflect"}, default "constant"
        How the border is filled.
    **kwargs
        ``constant_values`` (one value) for constant, ``reflect_type="even"`` for reflect.

    Returns
    -------
    Array
        The lazy result.
    """
    a = asarray(array)
    if mode not in _PAD_MODES:
        raise NotImplementedError(f"pad mode {mode!r} (supported: {', '.join(_PAD_MODES)})")
    if mode == "reflect" and kwargs.get("reflect_type", "even") != "even":
        raise NotImplementedError("pad(mode='reflect', reflect_type='odd')")
    w = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (a.ndim, 2))
    cv = kwargs.get("constant_values", 0)
    if mode == "constant" and not np.isscalar(cv):
        c = np.unique(np.asarray(cv))
        if c.size != 1:
            raise NotImplementedError("pad with different constant values per side/axis")
        cv = c[0]
    return Array._new(lib().ca_array_pad, a.handle, _i64arr(w[:, 0]), _i64arr(w[:, 1]), _PAD_MODES[mode],
                      _scalar(cv if mode == "constant" else 0))


def flip(m, axis=None):
    """Reverse the order of elements along axes (``numpy.flip``).

    Parameters
    ----------
    m : Array or array_like
        The input.
    axis : int or tuple of int, optional
        The axes; None reverses every axis.

    Returns
    -------
    Array
        The lazy result.
    """
    ax = _axis_list(axis)
    return Array._new(lib().ca_array_flip, asarray(m), _i32arr(ax) if ax is not None else None,
                      len(ax) if ax is not None else 0)


def flipud(m):
    """Reverse along axis 0 (``numpy.flipud``).

    Parameters
    ----------
    m : Array or array_like
        The input.

    Returns
    -------
    Array
        The lazy result.
    """
    return flip(m, 0)


def fliplr(m):
    """Reverse along axis 1 (``numpy.fliplr``).

    Parameters
    ----------
    m : Array or array_like
        The input, at least 2-d.

    Returns
    -------
    Array
        The lazy result.
    """
    return flip(m, 1)


def atleast_1d(*arys):
    """Inputs as arrays of at least one dimension (``numpy.atleast_1d``).

    Parameters
    ----------
    *arys : Array or array_like
        The inputs.

    Returns
    -------
    Array or list of Array
        One array for one input, else a list.
    """
    r = [reshape(a, (1,)) if asarray(a).ndim == 0 else asarray(a) for a in arys]
    return r[0] if len(r) == 1 else r


def atleast_2d(*arys):
    """Inputs as arrays of at least two dimensions (``numpy.atleast_2d``).

    Parameters
    ----------
    *arys : Array or array_like
        The inputs.

    Returns
    -------
    Array or list of Array
        One array for one input, else a list.
    """
    out = []
    for a in arys:
        a = asarray(a)
        out.append(reshape(a, (1, 1)) if a.ndim == 0 else expand_dims(a, 0) if a.ndim == 1 else a)
    return out[0] if len(out) == 1 else out


def vstack(tup, allow_unknown_chunksizes=False):
    """Stack arrays vertically, row-wise (``numpy.vstack``).

    Parameters
    ----------
    tup : sequence of Array or array_like
        The arrays.
    allow_unknown_chunksizes : bool, default False
        Accepted for dask's signature.

    Returns
    -------
    Array
        The lazy result.
    """
    return concatenate([atleast_2d(a) for a in tup], axis=0)


def hstack(tup, allow_unknown_chunksizes=False):
    """Stack arrays horizontally, column-wise (``numpy.hstack``).

    Parameters
    ----------
    tup : sequence of Array or array_like
        The arrays.
    allow_unknown_chunksizes : bool, default False
        Accepted for dask's signature.

    Returns
    -------
    Array
        The lazy result.
    """
    arrs = [atleast_1d(a) for a in tup]
    return concatenate(arrs, axis=0 if all(a.ndim == 1 for a in arrs) else 1)


__all__ = ["reshape", "ravel", "transpose", "moveaxis", "swapaxes", "squeeze", "expand_dims", "broadcast_to", "concatenate",
           "stack", "block", "repeat", "tile", "pad", "flip", "flipud", "fliplr", "atleast_1d", "atleast_2d",
           "vstack", "hstack"]
del _axes
