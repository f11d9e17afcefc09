"""Distributed computes over MPI: ``compute``/``persist``/``to_zarr``/``store`` with ``comm=`` an
mpi4py communicator.

Every rank of the communicator makes the same call on the same array (built the same way, or loaded
from the same graph file). The compute runs SPMD through libchunkarray_mpi (found through
$CHUNKARRAY_MPI_LIB, else ``libchunkarray_mpi.so.1``): ``compute`` gathers the result to ``root``
(a NumPy array there, ``None`` elsewhere); ``persist`` leaves each block on the rank that computed
it (a distributed array: compute it again with ``comm=``); ``to_zarr`` and ``store`` write each
rank's blocks from that rank. See docs/distributed.md.
"""

import ctypes
import ctypes.util
import os
import threading

from ._lib import lib

__all__ = ["compute", "persist", "store", "mpi_library_path"]

_PLACEMENTS = {"locality": 0, "round-robin": 1, "locality-count": 2}


class DistStats(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("rank", ctypes.c_int32), ("tasks", ctypes.c_int64),
                ("plan_tasks", ctypes.c_int64), ("blocks_sent", ctypes.c_int64),
                ("blocks_received", ctypes.c_int64), ("bytes_sent", ctypes.c_int64),
                ("bytes_received", ctypes.c_int64), ("wait_us", ctypes.c_int64),
                ("tasks_replicated", ctypes.c_int64), ("peak_bytes", ctypes.c_int64)]

    def as_dict(self):
        return {name: getattr(self, name) for name, _ in self._fields_ if name != "struct_size"}


class DistOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("transport", ctypes.c_void_p), ("results", ctypes.c_int32),
                ("root", ctypes.c_int32), ("placement", ctypes.c_int32), ("stats", ctypes.POINTER(DistStats))]


_mpi = None
_mpi_lock = threading.Lock()


def mpi_library_path():
    """Where libchunkarray_mpi is loaded from.

    Returns
    -------
    str
        ``$CHUNKARRAY_MPI_LIB``, the library the loader finds, or ``libchunkarray_mpi.so.1``.
    """
    p = os.environ.get("CHUNKARRAY_MPI_LIB")
    if p:
        return p
    return ctypes.util.find_library("chunkarray_mpi") or "libchunkarray_mpi.so.1"


def mpi_lib():
    """libchunkarray_mpi, loaded on first use (after libchunkarray)."""
    global _mpi
    if _mpi is None:
        with _mpi_lock:
            if _mpi is None:
                lib()  # libchunkarray first: libchunkarray_mpi links it
                try:
                    m = ctypes.CDLL(mpi_library_path())
                except OSError as e:
                    raise OSError(f"libchunkarray_mpi could not be loaded ({e}); build chunkarray with "
                                  "-Dmpi=enabled and set CHUNKARRAY_MPI_LIB to its path") from e
                m.ca_mpi_transport_new.restype = ctypes.c_int32
                m.ca_mpi_transport_new.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int64]
                m.ca_mpi_transport_free.restype = None
                m.ca_mpi_transport_free.argtypes = [ctypes.c_void_p]
                _mpi = m
    return _mpi


def _comm_handle(comm):
    """An mpi4py communicator as its Fortran handle (the ABI-stable form libchunkarray_mpi takes)."""
    py2f = getattr(comm, "py2f", None)
    if py2f is None:
        raise TypeError(f"comm must be an mpi4py communicator, not {type(comm).__name__}")
    return int(py2f())


def compute(array, comm, ctx=None, root=0, placement="locality", stats=None, progress=None):
    """Compute ``array`` across the ranks of ``comm``; the result on rank ``root``.

    Raises ChunkArrayError with the same message on every rank when a kernel fails on any rank,
    or when the ranks' graphs differ.

    Parameters
    ----------
    array : Array
        The same array on every rank (known chunk sizes).
    comm : mpi4py.MPI.Comm
        The communicator.
    root : int, default 0
        The rank receiving the result.
    ctx : Context, optional
        Where this rank runs its tasks.
    placement : {"locality", "round-robin", "locality-count"}, default "locality"
        How blocks are assigned to ranks.
    stats : dict, optional
        Filled with this rank's counters (tasks, tasks_replicated: generated blocks made again here instead of received, blocks and bytes sent and received, wait_us, peak_bytes).
    progress : bool or callable, optional
        As :meth:`Array.compute` (this rank's tasks; on the root, all).

    Returns
    -------
    numpy.ndarray or None
        The value on ``root``, None elsewhere.
    """
    from .core import _block_as_numpy, _check, _compute_options
    ctx = _ready(array, ctx, "compute")
    f = _array_call("ca_dist_array_compute", [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_void_p,
                                              ctypes.c_void_p, ctypes.POINTER(DistOptions)])
    out = ctypes.c_void_p()
    with _Transport(comm, root=root, placement=placement, stats=stats) as t:
        copts, keep = _compute_options(progress)
        _check(f(ctypes.byref(out), ctx.handle, array._h, copts, ctypes.byref(t.opts)))
        del keep
    if not out.value:
        return None  # not the root
    # The library assembles the gathered blocks into one block; the result is that
    # block's memory (no second copy, and pages the library's cache reuses across computes).
    return _block_as_numpy(out.value)


def _array_call(name, argtypes):
    f = getattr(lib().cdll, name)
    f.restype = ctypes.c_int32
    f.argtypes = argtypes
    return f


class _Transport:
    """A libchunkarray_mpi transport over ``comm`` for one call, with its options and statistics."""

    def __init__(self, comm, root=0, placement="locality", stats=None):
        if placement not in _PLACEMENTS:
            raise ValueError(f"placement must be one of {sorted(_PLACEMENTS)}, not {placement!r}")
        self.handle = _comm_handle(comm)
        self.stats = stats
        self.m = mpi_lib()
        self.t = ctypes.c_void_p()
        self.root, self.placement = int(root), _PLACEMENTS[placement]

    def __enter__(self):
        from .core import _check
        _check(self.m.ca_mpi_transport_new(ctypes.byref(self.t), self.handle))
        self.st = DistStats()
        self.st.struct_size = ctypes.sizeof(DistStats)
        self.opts = DistOptions(ctypes.sizeof(DistOptions), self.t, 0, self.root, self.placement,
                                ctypes.pointer(self.st))
        return self

    def __exit__(self, *exc):
        if self.stats is not None:
            self.stats.update(self.st.as_dict())
        self.m.ca_mpi_transport_free(self.t)
        return False


def _ready(array, ctx, what):
    from .core import default_context
    if not array.chunks_known:
        raise ValueError(f"{what}(comm=...) needs known chunk sizes (compute_chunk_sizes() first)")
    ctx = ctx or default_context()
    ctx._sync_kernels()
    return ctx


def persist(array, comm, ctx=None, placement="locality", stats=None, progress=None):
    """Distributed persist: each block stays on the rank that computed it.

    Compute the result (or what is built on it) with the same ``comm``: its blocks are used where
    they are.

    Parameters
    ----------
    array : Array
        The same array on every rank.
    comm : mpi4py.MPI.Comm
        The communicator.
    ctx : Context, optional
        Where this rank runs its tasks.
    placement : {"locality", "round-robin", "locality-count"}, default "locality"
        How blocks are assigned to ranks.
    stats : dict, optional
        Filled with this rank's counters (tasks, tasks_replicated: generated blocks made again here instead of received, blocks and bytes sent and received, wait_us, peak_bytes).
    progress : bool or callable, optional
        As :meth:`Array.compute` (this rank's tasks; on the root, all).

    Returns
    -------
    Array
        On every rank, the array holding this rank's blocks.
    """
    from .core import Array, _check, _compute_options
    ctx = _ready(array, ctx, "persist")
    f = _array_call("ca_dist_array_persist", [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_void_p,
                                              ctypes.c_void_p, ctypes.POINTER(DistOptions)])
    out = ctypes.c_void_p()
    with _Transport(comm, placement=placement, stats=stats) as t:
        copts, keep = _compute_options(progress)
        _check(f(ctypes.byref(out), ctx.handle, array._h, copts, ctypes.byref(t.opts)))
        del keep
    return Array(out.value)


def to_zarr(array, path, comm, zarr_options, ctx=None, root=0, placement="locality", stats=None, progress=None):
    """Distributed to_zarr: ``root`` writes the metadata, every rank the chunks of its blocks."""
    from .core import _check, _compute_options
    ctx = _ready(array, ctx, "to_zarr")
    f = _array_call("ca_dist_array_to_zarr", [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p,
                                              ctypes.c_void_p, ctypes.POINTER(DistOptions)])
    with _Transport(comm, root=root, placement=placement, stats=stats) as t:
        copts, keep = _compute_options(progress)
        _check(f(ctx.handle, array._h, str(path).encode(), ctypes.byref(zarr_options), copts, ctypes.byref(t.opts)))
        del keep


class _Region(ctypes.Structure):
    _fields_ = [("array", ctypes.c_size_t), ("ndim", ctypes.c_int32), ("start", ctypes.POINTER(ctypes.c_int64)),
                ("stop", ctypes.POINTER(ctypes.c_int64)), ("block_index", ctypes.POINTER(ctypes.c_int64)),
                ("reserved", ctypes.c_void_p)]


_SINK_FN = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.POINTER(_Region), ctypes.c_void_p)


def store(array, comm, write, ctx=None, placement="locality", stats=None, progress=None):
    """Distributed store: ``write(block, slices)`` for each block this rank computed.

    Called on worker threads, concurrently, with the block as a NumPy view valid during the call and
    its place in the array as a tuple of slices. Nothing is gathered.

    Parameters
    ----------
    array : Array
        The same array on every rank.
    comm : mpi4py.MPI.Comm
        The communicator.
    write : callable
        ``write(block, slices)``.
    ctx : Context, optional
        Where this rank runs its tasks.
    placement : {"locality", "round-robin", "locality-count"}, default "locality"
        How blocks are assigned to ranks.
    stats : dict, optional
        Filled with this rank's counters (tasks, tasks_replicated: generated blocks made again here instead of received, blocks and bytes sent and received, wait_us, peak_bytes).
    progress : bool or callable, optional
        As :meth:`Array.compute` (this rank's tasks; on the root, all).
    """
    from .core import _block_view, _check, _compute_options
    ctx = _ready(array, ctx, "store")
    errors = []

    def sink(block, region, ud):
        try:
            r = region.contents
            idx = tuple(slice(int(r.start[d]), int(r.stop[d])) for d in range(r.ndim))
            write(_block_view(block), idx)
            return 0
        except BaseException as e:  # reported below, with every rank failing alike
            errors.append(e)
            msg = f"{type(e).__name__}: {e}".encode()
            lib().cdll.ca_store_set_error(region, msg)
            return -1 if not isinstance(e, MemoryError) else -3

    cb = _SINK_FN(sink)
    f = _array_call("ca_dist_array_store", [ctypes.c_void_p, ctypes.c_void_p, _SINK_FN, ctypes.c_void_p,
                                            ctypes.c_void_p, ctypes.POINTER(DistOptions)])
    lib().cdll.ca_store_set_error.restype = None
    lib().cdll.ca_store_set_error.argtypes = [ctypes.POINTER(_Region), ctypes.c_char_p]
    with _Transport(comm, placement=placement, stats=stats) as t:
        copts, keep = _compute_options(progress)
        try:
            _check(f(ctx.handle, array._h, cb, None, copts, ctypes.byref(t.opts)))
        except Exception:
            if errors:
                raise errors[0]
            raise
        del keep
