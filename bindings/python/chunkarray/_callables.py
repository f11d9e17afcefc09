"""The Python callables behind Python kernels, as module-level classes so that they pickle.

A graph that calls Python kernels pickles them with itself (see _serialize.py). A closure defined
inside map_blocks() cannot be pickled; an instance of one of these classes can, whenever what it holds
can: the user's function (by reference, so a module-level function), literal arguments and keyword
arguments. Each instance holds no chunkarray.Array (a kernel outlives the call that made it and must
not keep the input arrays and their graphs alive).
"""
import numpy as np


class _Repr:
    """Kernel callables show the user's function (what a PicklingError names)."""

    def __repr__(self):
        inner = getattr(self, "func", None) or getattr(self, "f", None) or getattr(self, "ufunc", None) \
            or getattr(self, "source", None)
        return f"{type(self).__name__}({inner!r})"


def _fill(lits, positions, blocks):
    full = list(lits)
    for p, b in zip(positions, blocks):
        full[p] = b
    return full


class MapBlocksCall(_Repr):
    """map_blocks: ``func(*args, **kwargs)`` with the blocks at ``positions`` of ``lits``; with
    ``want_id``/``want_info`` the kernel receives the block index and location after the blocks and
    passes ``block_id``/``block_info`` (``chunks`` is set once the output array exists)."""

    def __init__(self, func, lits, positions, kwargs, want_id, want_info, dtype):
        self.func, self.lits, self.positions, self.kwargs = func, lits, positions, kwargs
        self.want_id, self.want_info, self.dtype = want_id, want_info, dtype
        self.chunks = None

    def __call__(self, *blocks):
        kw = dict(self.kwargs)
        if self.want_id or self.want_info:
            blocks, bidx = blocks[:-2], blocks[-2]
            ch = self.chunks
            if self.want_id:
                kw["block_id"] = tuple(bidx)
            if self.want_info:
                loc = [(sum(ch[d][:i]), sum(ch[d][:i + 1])) for d, i in enumerate(bidx)]
                kw["block_info"] = {None: {"chunk-location": tuple(bidx), "array-location": loc,
                                           "shape": tuple(sum(c) for c in ch), "num-chunks": tuple(len(c) for c in ch),
                                           "chunk-shape": tuple(b - a for a, b in loc), "dtype": self.dtype}}
        return self.func(*_fill(self.lits, self.positions, blocks), **kw)


class BlockwiseCall(_Repr):
    """blockwise / map_overlap: ``func`` with the blocks put back among the literal arguments;
    ``want_id``: the kernel receives (block index, location) after the blocks (map_overlap)."""

    def __init__(self, func, lits, positions, kwargs, want_id=False):
        self.func, self.lits, self.positions, self.kwargs, self.want_id = func, lits, positions, kwargs, want_id

    def __call__(self, *blocks):
        kw = dict(self.kwargs)
        if self.want_id:
            blocks, bidx = blocks[:-2], blocks[-2]
            kw["block_id"] = tuple(bidx)
        return self.func(*_fill(self.lits, self.positions, blocks), **kw)


class UfuncCall(_Repr):
    """A NumPy ufunc (pickled by reference) with keyword arguments, applied to blocks."""

    def __init__(self, ufunc, kwargs):
        self.ufunc, self.kwargs = ufunc, kwargs

    def __call__(self, *blocks):
        return self.ufunc(*blocks, **self.kwargs)

    @property
    def __name__(self):
        return self.ufunc.__name__


def concat_nested(x, axes):
    """Concatenate a nested list of partial results along ``axes`` (outermost list: first axis)."""
    if not isinstance(x, list):
        return x
    ax = axes[0] if axes else -1
    parts = [concat_nested(i, axes[1:]) for i in x]
    return np.concatenate(parts, axis=ax) if len(parts) > 1 else parts[0]


class ReductionChunk(_Repr):
    """reduction's chunk step: ``f(block, axis=axes, keepdims=True, **kwargs)``."""

    def __init__(self, f, axes, kwargs):
        self.f, self.axes, self.kwargs = f, tuple(axes), kwargs

    def __call__(self, b):
        return self.f(b, axis=self.axes, keepdims=True, **self.kwargs)


class ReductionCombine(_Repr):
    """reduction's combine/aggregate step over the partials (concatenated along the axes when
    ``concatenate``)."""

    def __init__(self, f, axes, concatenate, kwargs):
        self.f, self.axes, self.concatenate, self.kwargs = f, tuple(axes), concatenate, kwargs

    def __call__(self, parts):
        if self.concatenate:
            parts = concat_nested(parts, list(self.axes))
        return self.f(parts, axis=self.axes, keepdims=True, **self.kwargs)


class GufuncCall(_Repr):
    """apply_gufunc: ``f(*blocks, **kwargs)``; with several outputs the kernel's last argument is the
    output's position."""

    def __init__(self, f, kwargs, multi):
        self.f, self.kwargs, self.multi = f, kwargs, multi

    def __call__(self, *blocks):
        if self.multi:
            return self.f(*blocks[:-1], **self.kwargs)[blocks[-1]]
        return self.f(*blocks, **self.kwargs)


class ScanStep(_Repr):
    """generic_scan's four kernels (``which``: block, first, carry, apply): dask's sequential
    cumreduction with scanned_k = func(block_k), carry_0 = ident, carry_k = binop(carry_{k-1},
    last(scanned_{k-1})), out_k = binop(carry_k, scanned_k)."""

    def __init__(self, which, func, binop, ident, axis, dtype):
        self.which, self.func, self.binop, self.ident, self.axis = which, func, binop, ident, axis
        self.dtype = np.dtype(dtype)

    def _last(self, b):
        return np.take(b, [b.shape[self.axis] - 1], axis=self.axis) if b.shape[self.axis] else None

    def __call__(self, *args):
        if self.which == "block":
            return np.asarray(self.func(args[0], axis=self.axis), dtype=self.dtype)
        if self.which == "first":
            shape = list(args[0].shape)
            shape[self.axis] = 1
            return np.full(shape, self.ident, dtype=self.dtype)
        if self.which == "carry":
            carry, prev = args
            lp = self._last(prev)
            return carry if lp is None else np.asarray(self.binop(carry, lp), dtype=self.dtype)
        carry, b = args
        return np.asarray(self.binop(carry, b), dtype=self.dtype)


class SerializableLock:
    """A lock that pickles (dask's SerializableLock): every copy of one lock, in this process, is the
    same threading.Lock; in another process, the copies made there share one lock there."""

    _locks = {}  # token -> threading.Lock, per process
    _guard = __import__("threading").Lock()

    def __init__(self, token=None):
        import uuid
        self.token = token or uuid.uuid4().hex
        with SerializableLock._guard:
            self.lock = SerializableLock._locks.setdefault(self.token, __import__("threading").Lock())

    def acquire(self, *args, **kwargs):
        return self.lock.acquire(*args, **kwargs)

    def release(self):
        return self.lock.release()

    def __enter__(self):
        self.lock.acquire()
        return self

    def __exit__(self, *exc):
        self.lock.release()

    def locked(self):
        return self.lock.locked()

    def __reduce__(self):
        return (SerializableLock, (self.token,))

    def __repr__(self):
        return f"<SerializableLock {self.token}>"


class CustomGetterCall(_Repr):
    """from_array(getitem=f): ``f(source, slices, [asarray=...], [lock=...])`` per block, as dask's
    graph_from_arraylike calls it (asarray only when given, lock only when one is used)."""

    def __init__(self, source, getitem, lock, asarray):
        self.source, self.getitem, self.lock, self.asarray = source, getitem, lock, asarray

    def __call__(self, *slices):
        kw = {}
        if self.asarray is not None:
            kw["asarray"] = self.asarray
        if self.lock is not None:
            kw["lock"] = self.lock
        return np.asarray(self.getitem(self.source, tuple(slices), **kw))

    @property
    def __name__(self):
        return getattr(self.getitem, "__name__", "getitem")


class GetterCall(_Repr):
    """from_array over an array-like: one ``source[slices]`` per block, under ``lock`` if any (with
    ``asarray``, the conversion to NumPy happens under the lock too, as dask's getter does)."""

    def __init__(self, source, lock, asarray):
        self.source, self.lock, self.asarray = source, lock, asarray

    def _get(self, key):
        c = self.source[key]
        return np.asarray(c) if self.asarray else c

    def __call__(self, *slices):
        key = tuple(slices)
        if self.lock is not None:
            with self.lock:
                return self._get(key)
        return self._get(key)

    @property
    def __name__(self):
        return "getitem"
