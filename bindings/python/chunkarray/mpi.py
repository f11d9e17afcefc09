"""Distributed computes over MPI: ``Array.compute(comm=...)`` with an mpi4py communicator.

Every rank of the communicator calls ``compute(comm=comm)`` on the same array (built the same way,
or loaded from the same graph file). The compute runs SPMD through libchunkarray_mpi (found through
$CHUNKARRAY_MPI_LIB, else ``libchunkarray_mpi.so.1``); the result is gathered to ``root`` (returned
there as a NumPy array; ``None`` on the other ranks). See docs/distributed.md.
"""

import ctypes
import ctypes.util
import os
import threading

import numpy as np

from . import _lib as C
from ._lib import lib

_PLACEMENTS = {"locality": 0, "round-robin": 1}


class DistStats(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("rank", ctypes.c_int32), ("tasks", ctypes.c_int64),
                ("plan_tasks", ctypes.c_int64), ("blocks_sent", ctypes.c_int64),
                ("blocks_received", ctypes.c_int64), ("bytes_sent", ctypes.c_int64),
                ("bytes_received", ctypes.c_int64), ("wait_us", ctypes.c_int64)]

    def as_dict(self):
        return {name: getattr(self, name) for name, _ in self._fields_ if name != "struct_size"}


class DistOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("transport", ctypes.c_void_p), ("results", ctypes.c_int32),
                ("root", ctypes.c_int32), ("placement", ctypes.c_int32), ("stats", ctypes.POINTER(DistStats))]


_mpi = None
_mpi_lock = threading.Lock()


def mpi_library_path():
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


def _dist_compute():
    f = lib().cdll.ca_dist_compute
    f.restype = ctypes.c_int32
    f.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(C.Key),
                  ctypes.c_size_t, ctypes.c_void_p, ctypes.POINTER(DistOptions)]
    return f


def _comm_handle(comm):
    """An mpi4py communicator as its Fortran handle (the ABI-stable form libchunkarray_mpi takes)."""
    py2f = getattr(comm, "py2f", None)
    if py2f is None:
        raise TypeError(f"comm must be an mpi4py communicator, not {type(comm).__name__}")
    return int(py2f())


def compute(array, comm, ctx=None, root=0, placement="locality", stats=None, progress=None):
    """Compute ``array`` across the ranks of ``comm``; the result on rank ``root``, ``None`` elsewhere.

    ``stats``: an optional dict filled with this rank's counters (tasks, blocks and bytes sent and
    received, wait_us). Raises ChunkArrayError with the same message on every rank when a kernel
    fails on any rank, or when the ranks' graphs differ.
    """
    from .core import _block_to_numpy, _check, _compute_options, default_context

    if placement not in _PLACEMENTS:
        raise ValueError(f"placement must be one of {sorted(_PLACEMENTS)}, not {placement!r}")
    if not array.chunks_known:
        raise ValueError("compute(comm=...) needs known chunk sizes (compute_chunk_sizes() first)")
    handle = _comm_handle(comm)
    ctx = ctx or default_context()
    ctx._sync_kernels()
    m = mpi_lib()
    transport = ctypes.c_void_p()
    _check(m.ca_mpi_transport_new(ctypes.byref(transport), handle))
    try:
        graph = array.graph()
        idx = list(np.ndindex(*array.numblocks))
        name = array.name.encode()
        index_arrays = [(ctypes.c_int64 * max(1, len(i)))(*i) for i in idx]
        keys = (C.Key * max(1, len(idx)))()
        for k, (i, arr) in enumerate(zip(idx, index_arrays)):
            keys[k] = C.Key(name, ctypes.cast(arr, C.c_i64p), len(i))
        results = (ctypes.c_void_p * max(1, len(idx)))()
        st = DistStats()
        st.struct_size = ctypes.sizeof(DistStats)
        o = DistOptions(ctypes.sizeof(DistOptions), transport, 0, int(root), _PLACEMENTS[placement],
                        ctypes.pointer(st))
        copts, keep = _compute_options(progress)
        _check(_dist_compute()(results, ctx.handle, graph.handle, keys, len(idx), copts, ctypes.byref(o)))
        del keep
        if stats is not None:
            stats.update(st.as_dict())
        if not results[0] and idx:
            return None  # not the root
        out = np.empty(array.shape, array.dtype)
        offsets = [np.concatenate([[0], np.cumsum(c)]).astype(int) for c in array.chunks]
        for k, i in enumerate(idx):
            block = _block_to_numpy(results[k])
            out[tuple(slice(offsets[d][j], offsets[d][j + 1]) for d, j in enumerate(i))] = block
        return out
    finally:
        m.ca_mpi_transport_free(transport)
