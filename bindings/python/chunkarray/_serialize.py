"""Pickling arrays and graphs (what copy, multiprocessing and concurrent.futures use).

An array pickles as its graph file in memory (ca_save into a buffer: the Cap'n Proto message that
Array.save writes, block bytes of data layers included) plus the Python kernels its graph calls.
Unpickling loads the bytes (ca_load from a buffer) into a new native array, in this process or any
other, and registers the kernels it brought that the process does not have yet.

Python kernels pickle with the standard pickle module: a function by reference (module-level
functions, NumPy ufuncs, functools.partial of those, the binding's own kernel classes), literal
arguments by value. A kernel pickle cannot handle (a lambda, a nested function, a lock) fails with
pickle.PicklingError naming the kernel and the function. Kernels that are not Python callables are
sent by name only, as in a graph file: C kernels registered with Context.register_c_kernel or
register_ffi, and plugin kernels, must be registered under the same name where the array computes
(computing fails with CA_ENOTFOUND naming the kernel otherwise).
"""
import ctypes
import pickle

from . import _lib as C
from . import core
from ._lib import lib

c_vp = ctypes.c_void_p


def _take_buffer(data, size):
    """bytes of a library-owned buffer, which is freed."""
    try:
        return ctypes.string_at(data.value, size.value) if size.value else b""
    finally:
        lib().ca_buffer_free(data)


def _kernel_names(graph_handle):
    L = lib()
    h = c_vp()
    core._check(L.ca_graph_kernel_names(ctypes.byref(h), graph_handle))
    try:
        out = []
        for i in range(L.ca_keylist_size(h.value)):
            k = C.Key()
            core._check(L.ca_keylist_get(h.value, i, ctypes.byref(k)))
            out.append(k.name.decode())
        return out
    finally:
        L.ca_keylist_free(h.value)


def _kernels_payload(graph_handle, what):
    """[(name, pickled _PyKernel)] for the Python kernels the graph calls."""
    names = _kernel_names(graph_handle)
    with core._py_kernels_lock:
        found = [(n, core._py_kernels.get(n)) for n in names]
    out = []
    for name, k in found:
        if not isinstance(k, core._PyKernel):
            continue
        try:
            data = pickle.dumps(k, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as e:
            raise pickle.PicklingError(
                f"cannot pickle {what}: its graph calls the Python kernel {name!r}, whose function {k.fn!r} cannot "
                f"be pickled ({type(e).__name__}: {e}). Functions pickle by reference: use a function defined at "
                "module level (not a lambda or a nested function) and picklable arguments, or persist() the array "
                "first") from e
        out.append((name, data))
    return out


def _register_kernels(payload):
    """Register the Python kernels a pickle brought; a kernel the process has under that name already
    (the process that pickled it, or one that registered it by hand) is kept."""
    for name, data in payload:
        with core._py_kernels_lock:
            if name in core._py_kernels:
                continue
        k = pickle.loads(data)
        with core._py_kernels_lock:
            core._py_kernels.setdefault(name, k)


def dumps_array(a):
    """(graph-file bytes, kernel payload) of one array."""
    L = lib()
    arrays = (c_vp * 1)(a.handle)
    data, size = c_vp(), ctypes.c_size_t()
    gh = c_vp()
    core._check(L.ca_array_graph(ctypes.byref(gh), a.handle))
    try:
        kernels = _kernels_payload(gh.value, f"chunkarray.Array {a.name!r}")
    finally:
        L.ca_graph_free(gh.value)
    return core.save_file(arrays=[a.handle]), kernels


def load_array(data, kernels):
    """The array of bytes from dumps_array (the unpickling function)."""
    _register_kernels(kernels)
    _, hs = core.load_handles(data=bytes(data))
    if len(hs) != 1:
        for h in hs:
            lib().ca_array_free(h)
        raise core.InvalidArgumentError(-7, f"pickled array data holds {len(hs)} arrays, expected 1")
    return core.Array(hs[0])


def dumps_graph(g):
    L = lib()
    kernels = _kernels_payload(g.handle, "chunkarray.Graph")
    return core.save_file(graph=g.handle), kernels


def load_graph(data, kernels):
    _register_kernels(kernels)
    return core.Graph(core.load_handles(data=bytes(data), graph=True)[0])
