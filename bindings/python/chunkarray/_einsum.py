"""numpy.einsum, lazily (ca_linalg_einsum, linalg.h): dask.array.einsum's blockwise plan in C++."""
import ctypes

import numpy as np

from ._lib import lib
from .core import Array, _ca_dtype, asarray

__all__ = ["einsum"]

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _sublist_to_str(sub):
    out = []
    for s in sub:
        if s is Ellipsis:
            out.append("...")
        else:
            s = int(s)
            if not 0 <= s < 52:
                raise ValueError(f"subscript is not within the valid range [0, 52), got {s}")
            out.append(_LETTERS[s])
    return "".join(out)


def einsum(*operands, dtype=None, optimize=False, casting="safe", order="K", out=None, split_every=None):
    """Einstein summation (dask.array.einsum), lazily.

    Parameters
    ----------
    *operands
        ``subscripts, op0, op1, ...`` or NumPy's interleaved form ``op0, sublist0, op1, sublist1, ..., [sublistout]``.
    dtype : numpy.dtype, optional
        The result's dtype.
    optimize : bool or str, default False
        Accepted (the contraction is blockwise over all letters, as dask's).
    casting : str, default "safe"
        Applies to ``dtype``.
    order : str, default "K"
        Accepted for NumPy's signature.
    out : None
        Only None.
    split_every : int, optional
        Blocks combined per step of the sum over contracted letters.

    Returns
    -------
    Array
        The lazy result.

    See Also
    --------
    numpy.einsum
    """
    if out is not None:
        raise NotImplementedError("einsum: out= is not supported for chunkarray arrays")
    if not operands:
        raise ValueError("einsum: no subscripts given")
    if isinstance(operands[0], str):
        subscripts, arrays = operands[0], list(operands[1:])
    else:  # interleaved: op, sublist, op, sublist, ..., [out sublist]
        ops = list(operands)
        arrays, subs = ops[0::2], ops[1::2]
        outsub = None
        if len(arrays) > len(subs):
            outsub = arrays.pop()
        subscripts = ",".join(_sublist_to_str(s) for s in subs)
        if outsub is not None:
            subscripts += "->" + _sublist_to_str(outsub)
    arrays = [a if isinstance(a, Array) else asarray(np.asarray(a)) for a in arrays]
    want = np.result_type(*[a.dtype for a in arrays]) if arrays else None
    ca_dt = 0
    if dtype is not None:
        dtype = np.dtype(dtype)
        if want is not None and not np.can_cast(want, dtype, casting=casting):
            raise TypeError(f"Cannot cast array data from dtype('{want}') to dtype('{dtype}') according to the rule "
                            f"'{casting}'")
        ca_dt = _ca_dtype(dtype)
    hs = (ctypes.c_void_p * max(1, len(arrays)))(*[a._h for a in arrays])
    keep = arrays  # noqa: F841 - the handles stay alive for the call
    return Array._new(lib().ca_linalg_einsum, subscripts.encode(), hs, len(arrays), ctypes.c_int32(ca_dt))
