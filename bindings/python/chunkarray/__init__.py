"""chunkarray: dask.array's design over a native library (libchunkarray.so), through ctypes.

Set CHUNKARRAY_LIB to the shared library's path, or have libchunkarray.so.1 on the loader path.
"""
from .core import (Array, ChunkArrayError, Context, DTypeError, Graph, InvalidArgumentError, KernelError,
                   NotFoundError, UnsupportedError, apply_gufunc, arange, asarray, blockwise, compute,
                   default_context, diag, elemwise, empty, eye, from_array, from_npy, from_zarr, full, linspace,
                   load, map_blocks, normalize_chunks, register_ffi, ones, persist, rechunk, reduction,
                   register_kernel, scan, store, tri, unify_chunks, version, zeros)
from ._api import *  # noqa: F401,F403 - the NumPy-style functions
from ._api import abs, around, clip, conj, round, where  # noqa: F401,A004
from ._elementwise import *  # noqa: F401,F403 - frexp, modf, divmod, nan_to_num, isclose, ...
from ._elementwise import divmod  # noqa: F401,A004
from ._stats import *  # noqa: F401,F403 - ptp, average, median, percentile, histogram, topk, ...
from ._window import sliding_window_view  # noqa: F401
from ._einsum import einsum  # noqa: F401
from ._shape import *  # noqa: F401,F403 - reshape, concatenate, stack, ...
from ._routines import *  # noqa: F401,F403 - *_like, meshgrid, tril, sort, unique, searchsorted, ... (routines.h)
from ._surface import *  # noqa: F401,F403 - insert, delete, choose, select, coarsen, histogramdd, ... (issue 16)
from ._surface import shape, ndim  # noqa: F401 - (also names of Array properties)
from .core import map_overlap, overlap, trim_internal  # noqa: F401
from .linalg import dot, matmul, outer, tensordot  # noqa: F401
from ._indexing import IndexingError  # noqa: F401
from . import linalg  # noqa: F401
from . import fft  # noqa: F401 - dask.array.fft (fft.h)
from . import ma  # noqa: F401 - dask.array.ma: masked arrays (masked.h)
from . import random  # noqa: F401 - NumPy's Generator distributions, default_rng, RandomState
from . import mpi  # noqa: F401 - compute(comm=...) over MPI (libchunkarray_mpi, loaded on first use)
from . import _protocol  # noqa: F401 - metadata and *_like NumPy functions without computing
from . import _routines as _routines_mod
from .core import _NUMPY_FUNCTIONS as _nf
_nf.update(_routines_mod._np_table())
from . import _surface as _surface_mod
_nf.update(_surface_mod._np_table())
del _nf
from .core import ComputeWarning  # noqa: F401
from .chunkmanager import ChunkArrayManager  # noqa: F401
from ._lib import lib as _lib_handle
import types as _types


def has_function(name):
    """Whether the loaded libchunkarray exports a C function (for functions added in later versions).

    Parameters
    ----------
    name : str
        The C function's name, such as ``"ca_array_new"``.

    Returns
    -------
    bool
        True if the library has it.
    """
    return hasattr(_lib_handle().cdll, name)


__version__ = "0.1.0"

# The public names: every function and class imported above, and the linalg, mpi, fft, ma and random
# namespaces. Helper modules (core, chunkmanager, _lib, ...) are importable but not exported.
__all__ = sorted([_n for _n, _v in globals().items()
                  if not _n.startswith("_") and not isinstance(_v, _types.ModuleType)]
                 + ["linalg", "mpi", "fft", "ma", "random"])
