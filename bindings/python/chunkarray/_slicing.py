"""Operations built as materialized task layers (ca_graph_add_task + ca_array_new) over Python kernels:
generic scans (dask's cumreduction with a Python func/binop). Indexing is in _indexing.py (slicing.h)."""
import ctypes
import numpy as np

from . import _lib as C
from ._callables import ScanStep
from ._lib import lib
from .core import (Array, _ArgBuilder, _KeyRef, _ca_dtype, _check, _chunks_struct, _i64arr, _py_kernel, _token,
                   InvalidArgumentError)

c_vp = ctypes.c_void_p


def materialize(inputs, name, chunks, dtype, tasks):
    """An array whose layers are the inputs' plus ``tasks``: (layer, index, kernel, args) with
    _KeyRef arguments for block references. ``name`` is the layer holding the result's blocks."""
    L = lib()
    g = c_vp()
    _check(L.ca_graph_new(ctypes.byref(g)))
    try:
        for a in inputs:
            ag = c_vp()
            _check(L.ca_array_graph(ctypes.byref(ag), a.handle))
            try:
                _check(L.ca_graph_merge(g, ag))
            finally:
                L.ca_graph_free(ag)
        for layer, idx, kname, args in tasks:
            ab = _ArgBuilder()
            arr = ab.array(args)
            lname = layer.encode()
            ix = _i64arr(idx)
            key = C.Key(lname, ix, len(idx))
            _check(L.ca_graph_add_task(g, ctypes.byref(key), kname.encode(), arr, len(args)))
        st, keep = _chunks_struct(chunks)
        h = c_vp()
        _check(L.ca_array_new(ctypes.byref(h), g, name.encode(), ctypes.byref(st), _ca_dtype(dtype)))
        return Array(h.value)
    finally:
        L.ca_graph_free(g)


def generic_scan(func, binop, ident, x, axis, dtype):
    """dask's sequential cumreduction: scanned_k = func(block_k, axis); carry_0 = ident;
    carry_k = binop(carry_{k-1}, last(scanned_{k-1})); out_k = binop(carry_k, scanned_k)."""
    tok = _token(x.name, repr(func), repr(binop), repr(ident), axis, str(dtype))

    kb, kf, kc, ka = (_py_kernel(ScanStep(which, func, binop, ident, axis, dtype), f"scan.{which}", dtype)
                      for which in ("block", "first", "carry", "apply"))
    blk, car, out = f"scan-block-{tok}", f"scan-carry-{tok}", f"scan-{tok}"
    tasks = []
    for idx in np.ndindex(*x.numblocks):
        idx = tuple(int(i) for i in idx)
        tasks.append((blk, idx, kb, [_KeyRef(x.name, idx)]))
        if idx[axis] == 0:
            tasks.append((car, idx, kf, [_KeyRef(blk, idx)]))
        else:
            prev = list(idx)
            prev[axis] -= 1
            tasks.append((car, idx, kc, [_KeyRef(car, prev), _KeyRef(blk, prev)]))
        tasks.append((out, idx, ka, [_KeyRef(car, idx), _KeyRef(blk, idx)]))
    if x.size == 0:
        raise InvalidArgumentError(-1, "scan of an empty array")
    return materialize([x], out, x.chunks, dtype, tasks)
