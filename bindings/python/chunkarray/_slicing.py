"""Operations built as materialized task layers (ca_graph_add_task + ca_array_new) over Python kernels:
basic slicing and generic scans. The library has no slicing functions yet (include/chunkarray/slicing.h
is planned); once it has, Array.__getitem__ should call them instead."""
import ctypes
import itertools
import numbers

import numpy as np

from . import _lib as C
from ._lib import lib
from .core import (Array, _ArgBuilder, _KeyRef, _PyKernel, _ca_dtype, _check, _chunks_struct, _i64arr,
                   _py_kernel, _py_kernels, _py_kernels_lock, _token, InvalidArgumentError)

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


def _getitem_kernel(block, index):
    return block[tuple(index)]


_GETITEM = "py.getitem"
with _py_kernels_lock:
    _py_kernels[_GETITEM] = _PyKernel(_GETITEM, _getitem_kernel)


def _normalize_index(index, ndim):
    if not isinstance(index, tuple):
        index = (index,)
    for i in index:
        if not (i is None or i is Ellipsis or isinstance(i, (slice, numbers.Integral, np.integer))):
            raise NotImplementedError(
                f"index {i!r}: only basic indexing (ints, slices, None, ...) is implemented; fancy and boolean "
                "indexing need ca_array_take / ca_array_getitem (include/chunkarray/slicing.h), which the "
                "loaded library does not have")
    n_ell = sum(1 for i in index if i is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    n_real = sum(1 for i in index if i is not None and i is not Ellipsis)
    if n_real > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but {n_real} were indexed")
    out = []
    for i in index:
        if i is Ellipsis:
            out += [slice(None)] * (ndim - n_real)
        else:
            out.append(i)
    if not n_ell:
        out += [slice(None)] * (ndim - n_real)
    return out


def _dim_pieces(item, chunks, axis):
    """For one input dimension: list of (input block, local index, output size); None for a dropped
    dimension's single piece marker."""
    n = sum(chunks)
    starts = list(itertools.accumulate((0,) + tuple(chunks)))
    if isinstance(item, (numbers.Integral, np.integer)):
        i = int(item)
        if not -n <= i < n:
            raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
        i %= n
        b = next(k for k in range(len(chunks)) if starts[k] <= i < starts[k + 1])
        return [(b, i - starts[b], None)]
    start, stop, step = item.indices(n)
    r = range(start, stop, step)
    pieces = []
    order = range(len(chunks)) if step > 0 else range(len(chunks) - 1, -1, -1)

    def ceil_div(p, q):
        return -(-p // q)

    for b in order:
        lo, hi = starts[b], starts[b + 1]
        if step > 0:
            k0, k1 = ceil_div(lo - start, step), ceil_div(hi - start, step)
        else:
            k0, k1 = ceil_div(start - hi + 1, -step), ceil_div(start - lo + 1, -step)
        k0, k1 = min(max(k0, 0), len(r)), min(max(k1, 0), len(r))
        if k1 <= k0:
            continue
        f, l = r[k0] - lo, r[k1 - 1] - lo
        stop_local = l + (1 if step > 0 else -1)
        pieces.append((b, slice(f, stop_local if stop_local >= 0 else None, step), k1 - k0))
    if not pieces:
        pieces.append((0, slice(0, 0, 1), 0))
    return pieces


def getitem(x, index):
    """Basic indexing (ints, slices with any step, None, Ellipsis), dask's slice_array."""
    items = _normalize_index(index, x.ndim)
    if all(isinstance(i, slice) and i == slice(None) for i in items):
        return x
    chunks = x.chunks
    per_dim = []  # (kind, pieces): kind 'in' for input dims, 'new' for None
    d = 0
    for it in items:
        if it is None:
            per_dim.append(("new", [(None, None, 1)]))
        else:
            if len(chunks[d]) == 0:
                raise IndexError(f"axis {d} has no blocks")
            per_dim.append(("in", _dim_pieces(it, chunks[d], d)))
            d += 1
    out_chunks = []
    for kind, pieces in per_dim:
        if kind == "new":
            out_chunks.append((1,))
        elif pieces[0][2] is not None:
            out_chunks.append(tuple(p[2] for p in pieces))
    name = "getitem-" + _token(x.name, repr(items))
    tasks = []
    for combo in itertools.product(*[list(enumerate(p)) for _, p in per_dim]):
        out_idx, in_idx, local = [], [], []
        for (kind, _), (j, (b, loc, size)) in zip(per_dim, combo):
            if kind == "new":
                out_idx.append(0)
                local.append(None)
            else:
                in_idx.append(b)
                local.append(loc)
                if size is not None:
                    out_idx.append(j)
        tasks.append((name, tuple(out_idx), _GETITEM, [_KeyRef(x.name, in_idx), local]))
    return materialize([x], name, tuple(out_chunks), x.dtype, tasks)


def generic_scan(func, binop, ident, x, axis, dtype):
    """dask's sequential cumreduction: scanned_k = func(block_k, axis); carry_0 = ident;
    carry_k = binop(carry_{k-1}, last(scanned_{k-1})); out_k = binop(carry_k, scanned_k)."""
    tok = _token(x.name, repr(func), repr(binop), repr(ident), axis, str(dtype))

    def last(b):
        return np.take(b, [b.shape[axis] - 1], axis=axis) if b.shape[axis] else None

    def k_block(b):
        return np.asarray(func(b, axis=axis), dtype=dtype)

    def k_first(b):
        shape = list(b.shape)
        shape[axis] = 1
        return np.full(shape, ident, dtype=dtype)

    def k_carry(carry, prev):
        lp = last(prev)
        return carry if lp is None else np.asarray(binop(carry, lp), dtype=dtype)

    def k_apply(carry, b):
        return np.asarray(binop(carry, b), dtype=dtype)

    kb, kf, kc, ka = (_py_kernel(f, "scan", dtype) for f in (k_block, k_first, k_carry, k_apply))
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
