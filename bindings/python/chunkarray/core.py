"""chunkarray.Array and friends: dask.array's user surface over the C ABI, through ctypes."""
import atexit
import ctypes
import hashlib
import inspect
import itertools
import numbers
import os
import threading
import weakref

import numpy as np

from . import _callables
from . import _codes
from . import _lib as C
from ._lib import lib

c_vp = ctypes.c_void_p


# ------------------------------------------------------------------------------------------------
# Errors
# ------------------------------------------------------------------------------------------------

class ChunkArrayError(Exception):
    """A failed chunkarray call: the C status and the library's message.

    Attributes
    ----------
    status : int
        The negative ``CA_E*`` status code.
    code : str
        Its name, such as ``"CA_EINVAL"``.
    message : str
        The library's message (``ca_last_error_message()``), naming the offending argument.
    """

    def __init__(self, status, message):
        self.status = status
        self.code = C.STATUS_NAMES.get(status, "CA_E?")
        self.message = message
        super().__init__(f"{self.code}: {message}")

    def __reduce__(self):  # errors cross process boundaries (concurrent.futures) intact
        return (type(self), (self.status, self.message))


class InvalidArgumentError(ChunkArrayError, ValueError):
    """``CA_EINVAL``: an argument is invalid (also a ``ValueError``); the message names it.
    """
    pass


class DTypeError(ChunkArrayError, TypeError):
    """``CA_ETYPE``: a dtype chunkarray does not support or cannot combine (also a ``TypeError``).
    """
    pass


class NotFoundError(ChunkArrayError, LookupError):
    """``CA_ENOTFOUND``: a key, layer, kernel or file is missing (also a ``LookupError``).
    """
    pass


class KernelError(ChunkArrayError, RuntimeError):
    """``CA_EKERNEL``: a kernel failed during a compute (also a ``RuntimeError``).

    A Python kernel's exception is chained as ``__cause__``.
    """
    pass


class UnsupportedError(ChunkArrayError, NotImplementedError):
    """``CA_EUNSUPPORTED``: not available in this build or library (also ``NotImplementedError``).
    """
    pass


_ERROR_CLASSES = {-1: InvalidArgumentError, -3: NotFoundError, -5: KernelError, -11: DTypeError,
                  -13: UnsupportedError}

# The Python exception a Python kernel raised last, per message, so the error the compute reports
# can be chained to it.
_kernel_exceptions = {}
_kernel_exc_lock = threading.Lock()


def _check(status):
    """Raise for a failed status; the message is read at once, on the calling OS thread."""
    if status == C.CA_OK:
        return
    msg = lib().ca_last_error_message()
    msg = msg.decode("utf-8", "replace") if msg else ""
    err = _ERROR_CLASSES.get(status, ChunkArrayError)(status, msg)
    if status == C.CA_EKERNEL:
        with _kernel_exc_lock:
            for m, exc in list(_kernel_exceptions.items()):
                if m in msg:
                    del _kernel_exceptions[m]
                    raise err from exc
    raise err


def version():
    """The loaded library's version string (``ca_version_string()``).

    Returns
    -------
    str
        Such as ``"0.1.0"``.
    """
    return lib().ca_version_string().decode()


# ------------------------------------------------------------------------------------------------
# dtypes
# ------------------------------------------------------------------------------------------------

_DTYPE_CODES = {}
_NP_DTYPES = {}


def _ca_dtype(dtype):
    """The ca_dtype_t of a NumPy dtype: numbers, float16, datetime64/timedelta64 with a unit, and
    fixed-width bytes/unicode (the code carries the unit or the length, common.h)."""
    dt = np.dtype(dtype)
    code = _DTYPE_CODES.get(dt)
    if code is not None:
        return code
    # NumPy's names ("float64", "datetime64[ns]"); bytes/unicode by their typestr ("|S5", "<U8").
    name = dt.str if dt.kind in "SU" else dt.name
    out = ctypes.c_int32()
    st = lib().ca_dtype_from_name(ctypes.byref(out), name.encode())
    if st != 0:
        msg = lib().ca_last_error_message().decode(errors="replace")
        raise DTypeError(st, f"dtype {dt} is not supported by chunkarray: {msg}")
    _DTYPE_CODES[dt] = out.value
    return out.value


def _np_dtype(code):
    dt = _NP_DTYPES.get(code)
    if dt is not None:
        return dt
    if code == C.CA_RAW:
        dt = np.dtype("uint8")
    else:
        name = lib().ca_dtype_name(code)
        if not name:
            raise DTypeError(-11, f"unknown chunkarray dtype code {code}")
        dt = np.dtype(name.decode())
    _NP_DTYPES[code] = dt
    return dt


def _time_scalar(v):
    """A NumPy datetime64/timedelta64 scalar as a typed ca_scalar_t (its ticks). NaT of NumPy's
    generic unit (np.datetime64('NaT')) takes the coarsest unit that promotes to any other: years
    for datetimes, weeks for timedeltas (NaT is the same value in every unit)."""
    s = C.Scalar()
    dt = v.dtype
    unit, count = np.datetime_data(dt)
    if unit == "generic":
        if not np.isnat(v):
            raise DTypeError(-11, f"{v!r} has no unit: give one, as in np.timedelta64(5, 's')")
        dt = np.dtype("M8[Y]" if dt.kind == "M" else "m8[W]")
        v = v.astype(dt)
    s.kind, s.flags = _ca_dtype(dt), C.CA_SCALAR_TYPED
    s.i64 = int(v.view("i8"))
    s.re = float(s.i64)
    return s


def _i64arr(values):
    values = [int(v) for v in values]
    return (ctypes.c_int64 * max(1, len(values)))(*values)


def _i32arr(values):
    values = [int(v) for v in values]
    return (ctypes.c_int32 * max(1, len(values)))(*values)


def _scalar(v):
    """A Python or NumPy scalar as ca_scalar_t: a NumPy scalar (np.float32(1.5)) is typed
    (CA_SCALAR_TYPED: it promotes as an array of its dtype), a Python scalar follows NumPy's
    value-based rules."""
    if isinstance(v, (np.datetime64, np.timedelta64)):
        return _time_scalar(v)
    s = C.Scalar()
    if isinstance(v, np.generic) and v.dtype.kind in "biufc":
        s.kind, s.flags = _ca_dtype(v.dtype), C.CA_SCALAR_TYPED
        k = v.dtype.kind
        if k in "bi":
            s.i64, s.re = int(v), float(v)
        elif k == "u":
            s.i64, s.re = int(v) - (1 << 64) if int(v) >= 1 << 63 else int(v), float(v)
        elif k == "f":
            s.re = float(v)
        else:
            s.re, s.im = float(v.real), float(v.imag)
        return s
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bool):
        s.kind, s.i64, s.re = C.CA_BOOL, int(v), float(v)
    elif isinstance(v, numbers.Integral):
        v = int(v)
        if 2**63 <= v < 2**64:  # a Python int only uint64 holds (NumPy: uint64, or float64 with signed arrays)
            s.kind, s.i64, s.re = C.CA_UINT64, v - 2**64, float(v)
            return s
        if not -2**63 <= v < 2**63:
            raise OverflowError(f"Python int {v} too large to convert to C long")
        s.kind, s.i64, s.re = C.CA_INT64, v, float(v)
    elif isinstance(v, numbers.Real):
        s.kind, s.re = C.CA_FLOAT64, float(v)
    elif isinstance(v, numbers.Complex):
        s.kind, s.re, s.im = C.CA_COMPLEX128, v.real, v.imag
    else:
        raise TypeError(f"not a scalar: {v!r}")
    return s


def _is_scalar(v):
    """A number (Python or NumPy, datetime64/timedelta64 included); strings are 0-d arrays."""
    return isinstance(v, (numbers.Number, np.generic)) and not isinstance(v, (str, bytes)) and np.ndim(v) == 0


# ------------------------------------------------------------------------------------------------
# Blocks <-> NumPy
# ------------------------------------------------------------------------------------------------

def _size_or_nan(n):
    return float("nan") if n == C.CHUNK_UNKNOWN else n


def _block_view(b, writeable=False):
    """A NumPy view of a block's buffer (valid while the block lives)."""
    L = lib()
    dt = _np_dtype(L.ca_block_dtype(b))
    nd = L.ca_block_ndim(b)
    sp = L.ca_block_shape(b)
    shape = tuple(sp[i] for i in range(nd))
    nbytes = L.ca_block_nbytes(b)
    if nbytes == 0:
        return np.empty(shape, dt)
    buf = (ctypes.c_char * nbytes).from_address(L.ca_block_data(b))
    a = np.frombuffer(buf, dtype=dt).reshape(shape)
    a.flags.writeable = writeable
    return a


class _OwnedBlock:
    """Owns a block; the NumPy array made from it (``np.asarray(owner)``) keeps it alive as its base.

    The block is freed when the last array using its memory goes away, so large results reuse the
    library's cached pages (no fresh page faults per compute) instead of being copied into new memory.
    """

    def __init__(self, b):
        L = lib()
        self._b = b
        nd = L.ca_block_ndim(b)
        sp = L.ca_block_shape(b)
        self.__array_interface__ = {"shape": tuple(sp[i] for i in range(nd)),
                                    "typestr": _np_dtype(L.ca_block_dtype(b)).str,
                                    "data": (L.ca_block_data(b), False), "version": 3}

    def __del__(self):
        if self._b:
            lib().ca_block_free(self._b)
            self._b = None


def _block_as_numpy(b):
    """A writeable ndarray over a block's memory, without a copy; the array owns the block."""
    if not lib().ca_block_nbytes(b):
        return _block_to_numpy(b)
    return np.asarray(_OwnedBlock(b))


def _block_to_numpy(b):
    """Copy a block into a new ndarray and free the block."""
    try:
        return _block_view(b).copy()
    finally:
        lib().ca_block_free(b)


def _new_block(arr):
    """A new owned block holding a copy of ``arr``."""
    arr = np.asarray(arr)
    if not arr.flags.c_contiguous:
        arr = arr.copy(order="C")
    L = lib()
    out = c_vp()
    _check(L.ca_block_new(ctypes.byref(out), _ca_dtype(arr.dtype), arr.ndim, _i64arr(arr.shape)))
    if arr.nbytes:
        ctypes.memmove(L.ca_block_data(out), arr.ctypes.data, arr.nbytes)
    return out.value


def _arg_to_py(a):
    k = a.kind
    if k == C.ARG_BLOCK:
        return _block_view(a.u.block)
    if k == C.ARG_INT64:
        return a.u.i64
    if k == C.ARG_FLOAT64:
        return a.u.f64
    if k in (C.ARG_STRING, C.ARG_BYTES):
        data = ctypes.string_at(a.u.bytes.data, a.u.bytes.len) if a.u.bytes.len else b""
        return data.decode() if k == C.ARG_STRING else data
    if k == C.ARG_TUPLE:
        return tuple(a.u.tuple.items[i] for i in range(a.u.tuple.len))
    if k == C.ARG_SLICE:
        s = a.u.slice
        return slice(s.start if s.flags & C.SLICE_START else None, s.stop if s.flags & C.SLICE_STOP else None,
                     s.step if s.flags & C.SLICE_STEP else None)
    if k == C.ARG_LIST:
        return [_arg_to_py(a.u.list.items[i]) for i in range(a.u.list.len)]
    if k == C.ARG_NONE:
        return None
    raise TypeError(f"unexpected kernel argument kind {k}")


class _ArgBuilder:
    """Builds ca_arg_t values from Python literals, keeping their buffers alive."""

    def __init__(self):
        self.keep = []

    def arg(self, v):
        a = C.Arg()
        if v is None:
            a.kind = C.ARG_NONE
        elif isinstance(v, (bool, numbers.Integral)) and not isinstance(v, np.ndarray):
            a.kind, a.u.i64 = C.ARG_INT64, int(v)
        elif isinstance(v, numbers.Real):
            a.kind, a.u.f64 = C.ARG_FLOAT64, float(v)
        elif isinstance(v, (str, bytes)):
            b = v.encode() if isinstance(v, str) else v
            buf = ctypes.create_string_buffer(b, len(b) + 1)
            self.keep.append(buf)
            a.kind = C.ARG_STRING if isinstance(v, str) else C.ARG_BYTES
            a.u.bytes.data, a.u.bytes.len = ctypes.cast(buf, c_vp), len(b)
        elif isinstance(v, tuple) and all(isinstance(i, numbers.Integral) for i in v):
            arr = _i64arr(v)
            self.keep.append(arr)
            a.kind, a.u.tuple.items, a.u.tuple.len = C.ARG_TUPLE, arr, len(v)
        elif isinstance(v, slice):
            a.kind = C.ARG_SLICE
            for field, flag in (("start", C.SLICE_START), ("stop", C.SLICE_STOP), ("step", C.SLICE_STEP)):
                x = getattr(v, field)
                if x is not None:
                    setattr(a.u.slice, field, int(x))
                    a.u.slice.flags |= flag
        elif isinstance(v, _KeyRef):
            name = v.name.encode()
            idx = _i64arr(v.index)
            self.keep += [name, idx]
            a.kind = C.ARG_KEY
            a.u.key.name, a.u.key.index, a.u.key.nindex = name, idx, len(v.index)
        elif isinstance(v, list):
            items = self.array(v)
            a.kind, a.u.list.items, a.u.list.len = C.ARG_LIST, items, len(v)
        else:
            raise TypeError(f"cannot pass {type(v).__name__} {v!r} to a C kernel (int, float, str, bytes, "
                            "tuple of ints, slice, None or a list of these)")
        return a

    def array(self, values):
        arr = (C.Arg * max(1, len(values)))(*[self.arg(v) for v in values])
        self.keep.append(arr)
        return arr


class _KeyRef:
    def __init__(self, name, index):
        self.name, self.index = name, tuple(index)


# ------------------------------------------------------------------------------------------------
# Kernels written in Python
# ------------------------------------------------------------------------------------------------

_py_kernels = {}  # name -> _PyKernel; registered into every context before it computes
_py_kernels_lock = threading.Lock()
_kernel_counter = itertools.count()


def _new_process_token():
    return os.urandom(6).hex()


# Kernel names carry a token of the process that made them: a graph pickled in one process and
# unpickled in another brings its Python kernels by name, and must not meet another kernel that the
# receiving process numbered the same way. A forked child draws a new token.
_process_token = _new_process_token()


def _after_fork_in_child():
    """A forked child has none of the parent's native worker threads: every Context inherited from
    the parent is unusable there (computing would wait forever for threads that do not exist).
    They are marked closed (their native memory is left alone) and the default context is recreated
    on first use."""
    global _process_token, _default_ctx, _py_kernels_lock, _kernel_exc_lock, _deferred_lock, _default_ctx_lock
    _process_token = _new_process_token()
    # locks another parent thread held at the fork would stay held here forever
    _py_kernels_lock, _kernel_exc_lock = threading.Lock(), threading.Lock()
    _deferred_lock, _default_ctx_lock = threading.Lock(), threading.Lock()
    for c in list(_all_contexts):
        c._h = None
        c._forked = True
    _all_contexts.clear()
    _default_ctx = None
    del _deferred_contexts[:]


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class _PyKernel:
    """A native kernel calling a Python function: fn(*args) -> ndarray (or a scalar)."""

    def __init__(self, name, fn, dtype=None):
        self.name = name
        self.fn = fn
        self.dtype = None if dtype is None else np.dtype(dtype)
        self.cfn = C.KERNEL_FN(self._call)

    def register(self, ctx_handle):
        opts = C.KernelOptions(ctypes.sizeof(C.KernelOptions), 1, None, C.FREE_FN())
        return lib().ca_context_register(ctx_handle, self.name.encode(), self.cfn, ctypes.byref(opts))

    def __reduce__(self):  # the ctypes callback is rebuilt, the function pickled (by reference)
        return (_PyKernel, (self.name, self.fn, self.dtype))

    def _call(self, out, args, nargs, kctx, user_data):
        _in_kernel.depth = getattr(_in_kernel, "depth", 0) + 1
        try:
            pyargs = [_arg_to_py(args[i]) for i in range(nargs)]
            res = np.asarray(self.fn(*pyargs))
            if self.dtype is not None and res.dtype != self.dtype:
                res = res.astype(self.dtype)
            out[0] = _new_block(res)
            return 0
        except BaseException as e:  # noqa: B902 - nothing may cross the C boundary
            msg = f"{self.name}: {type(e).__name__}: {e}"
            with _kernel_exc_lock:
                _kernel_exceptions[msg] = e
            lib().ca_kernel_set_error(kctx, msg.encode("utf-8", "replace"))
            return C.CA_EKERNEL
        finally:
            _in_kernel.depth -= 1


# Anonymous kernels (a function given to map_blocks, blockwise, reduction, ...) belong to the arrays
# whose graphs call them. They are pruned when no live Array or Graph object's graph names them any
# more: a check that runs when their number has doubled since the last one (amortized O(1) per new
# kernel; it reads each live graph's kernel names, O(layers)). Kernels registered by name
# (register_kernel, register_ffi) stay, as a C registration does.
_anon_kernels = set()      # names of anonymous kernels in _py_kernels
_anon_seen = set()         # those that existed at the last check: only these may be pruned (a kernel made
                           # since, by another thread whose Array does not exist yet, is never dropped)
_anon_prune_at = 64        # prune when len(_anon_kernels) reaches this
_live_objects = weakref.WeakSet()  # Array and Graph objects (their graphs may name anonymous kernels)


def _graph_kernel_names(graph_handle):
    L = lib()
    h = c_vp()
    _check(L.ca_graph_kernel_names(ctypes.byref(h), graph_handle))
    try:
        names = set()
        k = C.Key()
        for i in range(L.ca_keylist_size(h.value)):
            _check(L.ca_keylist_get(h.value, i, ctypes.byref(k)))
            names.add(k.name.decode())
        return names
    finally:
        L.ca_keylist_free(h.value)


def _kernels_in_use():
    used = set()
    for obj in list(_live_objects):
        h = getattr(obj, "_h", None)
        if not h:
            continue
        if isinstance(obj, Array):
            g = c_vp()
            if lib().ca_array_graph(ctypes.byref(g), h) != 0:
                continue
            try:
                used |= _graph_kernel_names(g.value)
            finally:
                lib().ca_graph_free(g.value)
        else:
            used |= _graph_kernel_names(h)
    return used


def _prune_anonymous_kernels():
    """Drop the anonymous kernels no live array or graph calls, from this module and from every
    context (the native registry holds their callbacks: a pruned kernel is removed there first)."""
    global _anon_prune_at, _anon_seen
    with _py_kernels_lock:
        candidates = set(_anon_seen)
    used = _kernels_in_use()
    with _py_kernels_lock:
        dead = [n for n in candidates if n not in used and n in _anon_kernels]
    for c in list(_all_contexts):
        if not c._h:
            continue
        with c._lock:
            for n in dead:
                if n in c._registered:
                    lib().ca_context_remove_kernel(c._h, n.encode())
                    c._registered.discard(n)
    with _py_kernels_lock:
        for n in dead:
            _anon_kernels.discard(n)
            _py_kernels.pop(n, None)
        _anon_seen = set(_anon_kernels)
        _anon_prune_at = max(64, 2 * len(_anon_kernels))


def _py_kernel(fn, prefix, dtype=None):
    name = f"py.{prefix}.{getattr(fn, '__name__', 'fn')}.{_process_token}.{next(_kernel_counter)}"
    k = _PyKernel(name, fn, dtype)
    with _py_kernels_lock:
        _py_kernels[name] = k
        _anon_kernels.add(name)
        prune = len(_anon_kernels) >= _anon_prune_at
    if prune and not getattr(_in_kernel, "depth", 0):
        _prune_anonymous_kernels()
    return name


class _FfiKernel:
    """A plain C function called through libffi (ca_context_register_ffi): elementwise when every
    parameter is a scalar (``"f64(f64)"``), whole blocks with pointer parameters (``"void(f64*,i64)"``)."""

    def __init__(self, name, fn, signature):
        self.name = name
        self.signature = signature
        self.fn = fn  # keeps a ctypes function (and its library) alive
        self.addr = ctypes.cast(fn, c_vp).value if not isinstance(fn, int) else fn

    def register(self, ctx_handle):
        return lib().ca_context_register_ffi(ctx_handle, self.name.encode(), self.addr, self.signature.encode(),
                                             None)

    def __reduce__(self):
        raise TypeError(f"kernel {self.name!r} is a C function registered with register_ffi (a machine address): "
                        "it cannot be pickled; register it under the same name in the receiving process")


def register_ffi(name, fn, signature, ctx=None):
    """Register a plain C function as a kernel, called through libffi.

    Parameters
    ----------
    name : str
        The kernel's name, to use in :func:`map_blocks`, :func:`blockwise` or :meth:`Graph.add_task`.
    fn : ctypes function or int
        A ctypes function (such as ``ctypes.CDLL("libm.so.6").cbrt``) or a function address.
    signature : str
        A libffi signature: elementwise when every parameter is a scalar (``"f64(f64)"``), whole
        blocks with pointer parameters (``"void(f64*,i64)"``).
    ctx : Context, optional
        Register there at once; otherwise in every context when it next computes.

    Returns
    -------
    str
        ``name``.
    """
    k = _FfiKernel(name, fn, signature)
    with _py_kernels_lock:
        _py_kernels[name] = k
    if ctx is not None:
        ctx._sync_kernels()
    return name


def register_kernel(name, fn, ctx=None):
    """Register a Python function as a named kernel.

    Parameters
    ----------
    name : str
        The kernel's name, usable in :func:`map_blocks`, :func:`blockwise`, :func:`reduction` and
        :meth:`Graph.add_task` like a C kernel's.
    fn : callable
        ``fn(*blocks_and_literals) -> numpy.ndarray``.
    ctx : Context, optional
        Register there at once; otherwise in every context when it next computes.

    Returns
    -------
    str
        ``name``.
    """
    k = _PyKernel(name, fn)
    with _py_kernels_lock:
        _py_kernels[name] = k
    if ctx is not None:
        ctx._sync_kernels()
    return name


# ------------------------------------------------------------------------------------------------
# Context
# ------------------------------------------------------------------------------------------------

# Set while a Python kernel runs (on a context's worker thread). A Context object collected there
# (the garbage collector runs on whatever thread allocates) must not free its native context at once:
# ca_context_free joins the worker threads, possibly the current one. Such frees are deferred to the
# next Context call on another thread, or exit.
_in_kernel = threading.local()
_all_contexts = weakref.WeakSet()  # to mark them unusable in a forked child
_deferred_contexts = []
_deferred_lock = threading.Lock()


def _free_deferred_contexts():
    if getattr(_in_kernel, "depth", 0) or not _deferred_contexts:
        return
    with _deferred_lock:
        todo = list(_deferred_contexts)
        del _deferred_contexts[:]
    for h in todo:
        lib().ca_context_free(h)


class Context:
    """Worker threads, configuration and the kernel registry (``ca_context_t``).

    A Context can be closed from any thread except from inside a kernel it runs (then the native
    context is freed later, outside). It cannot be copied or pickled (TypeError). It is a context
    manager: ``with Context(4) as ctx: x.compute(ctx=ctx)``.

    Parameters
    ----------
    num_threads : int, default -1
        Worker threads; -1 is one per core.
    memory_limit : int, default 0
        Bytes of block memory the scheduler keeps in flight at most; 0 is no limit.
    chunk_size : int, default 0
        The byte size ``chunks="auto"`` aims at; 0 is the library's default (128 MiB).
    builtin_kernels : bool, default True
        Register the builtin ``ca.*`` kernels.
    """

    def __init__(self, num_threads=-1, memory_limit=0, chunk_size=0, builtin_kernels=True):
        o = C.ContextOptions(ctypes.sizeof(C.ContextOptions), num_threads, memory_limit, chunk_size,
                             1 if builtin_kernels else 0)
        h = c_vp()
        _check(lib().ca_context_new(ctypes.byref(h), ctypes.byref(o)))
        self._h = h.value
        self._registered = set()
        self._lock = threading.Lock()
        _all_contexts.add(self)

    @property
    def handle(self):
        """The native ``ca_context_t*``, borrowed: valid until :meth:`close`.
        """
        if not self._h:
            if getattr(self, "_forked", False):
                raise ValueError("context was created in the parent of this forked process, whose worker "
                                 "threads do not exist here: create a new Context (default_context() does)")
            raise ValueError("context is closed")
        return self._h

    def close(self):
        """Free the native context (its threads are joined); later use raises ValueError.
        """
        h = getattr(self, "_h", None)
        if h:
            self._h = None
            if getattr(_in_kernel, "depth", 0):
                with _deferred_lock:
                    _deferred_contexts.append(h)
            else:
                lib().ca_context_free(h)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # A context owns worker threads and a kernel registry that cannot be shared by reference count
    # nor sent to another process: copying or pickling one is refused (rather than two objects
    # freeing one native context).
    def _refuse(self, what):
        raise TypeError(f"chunkarray.Context cannot be {what}: it owns native worker threads and a kernel "
                        "registry; create a new Context (or use chunkarray.default_context()) instead")

    def __copy__(self):
        self._refuse("copied")

    def __deepcopy__(self, memo):
        self._refuse("deep-copied")

    def __reduce_ex__(self, protocol):
        self._refuse("pickled")

    @property
    def num_threads(self):
        """The number of worker threads.
        """
        return lib().ca_context_num_threads(self.handle)

    def set_config(self, key, value):
        """Set a configuration value (``ca_context_set_config``).

        Parameters
        ----------
        key : str
            The setting, such as ``"array.chunk-size"``.
        value : str
            Its value, as text.
        """
        _check(lib().ca_context_set_config(self.handle, key.encode(), str(value).encode()))

    def get_config(self, key):
        """A configuration value (``ca_context_get_config``).

        Parameters
        ----------
        key : str
            The setting.

        Returns
        -------
        str
            Its value, as text.
        """
        out = ctypes.c_char_p()
        _check(lib().ca_context_get_config(ctypes.byref(out), self.handle, key.encode()))
        return out.value.decode()

    def register_c_kernel(self, name, cfunc, version=1):
        """Register a native ``ca_kernel_fn`` under a name.

        Parameters
        ----------
        name : str
            The kernel's name.
        cfunc : ctypes function
            A ``CFUNCTYPE`` of the kernel signature (``chunkarray._lib.KERNEL_FN``); kept alive here.
        version : int, default 1
            The kernel's version, recorded by graph files saved with this context.

        Returns
        -------
        str
            ``name``.
        """
        if not isinstance(cfunc, C.KERNEL_FN):
            cfunc = C.KERNEL_FN(cfunc)
        self._keep = getattr(self, "_keep", []) + [cfunc]
        opts = C.KernelOptions(ctypes.sizeof(C.KernelOptions), version, None, C.FREE_FN())
        _check(lib().ca_context_register(self.handle, name.encode(), cfunc, ctypes.byref(opts)))
        return name

    def _sync_kernels(self):
        _free_deferred_contexts()
        with self._lock:
            with _py_kernels_lock:
                todo = [k for n, k in _py_kernels.items() if n not in self._registered]
            for k in todo:
                st = k.register(self.handle)
                if st == -10:  # CA_EEXISTS: a kernel registered under the same name by hand
                    lib().ca_context_remove_kernel(self.handle, k.name.encode())
                    st = k.register(self.handle)
                _check(st)
                self._registered.add(k.name)


_default_ctx = None
_default_ctx_lock = threading.Lock()


def default_context():
    """The process-wide default Context, made on first use (one thread per core).

    Returns
    -------
    Context
        The context ``compute`` uses when none is given.
    """
    global _default_ctx
    ctx = _default_ctx
    if ctx is None or not ctx._h:
        with _default_ctx_lock:  # one default context, also when threads ask at once
            if _default_ctx is None or not _default_ctx._h:
                _default_ctx = Context()
            ctx = _default_ctx
    return ctx


@atexit.register
def _close_default():
    if _default_ctx is not None:
        _default_ctx.close()
    _free_deferred_contexts()


class _ProgressBar:
    """The terminal bar of ``compute(progress=True)``, like dask.diagnostics.ProgressBar:
    ``[########                ] | 33% Completed | 1.2s`` on one line of ``out`` (stderr),
    redrawn on each progress call; a newline once every task is done."""

    def __init__(self, width=40, out=None):
        import sys
        import time
        self._time = time.monotonic
        self.width, self.out = width, out if out is not None else sys.stderr
        self.t0 = self._time()
        self.ended = False

    def __call__(self, done, total):
        if self.ended:
            return
        frac = done / total if total > 0 else 1.0
        bar = "#" * int(self.width * frac)
        elapsed = self._time() - self.t0
        self.out.write(f"\r[{bar:<{self.width}}] | {int(100 * frac):3d}% Completed | {elapsed:.1f}s")
        if done >= total:
            self.out.write("\n")
            self.ended = True
        self.out.flush()


def _compute_options(progress):
    """ca_compute_options_t for a ``progress`` argument: None (no callback), True (a terminal
    progress bar on stderr) or a callable ``progress(done, total)``; returns (options, keepalive)."""
    if progress is None or progress is False:
        return None, None
    if progress is True:
        progress = _ProgressBar()
    elif not callable(progress):
        raise TypeError(f"progress must be True, None or a callable progress(done, total), not {progress!r}")
    cb = C.PROGRESS_FN(lambda done, total, ud: progress(done, total))
    o = C.ComputeOptions(ctypes.sizeof(C.ComputeOptions), cb, None, 0, None)
    return ctypes.byref(o), (o, cb)


# ------------------------------------------------------------------------------------------------
# Chunks
# ------------------------------------------------------------------------------------------------

def _chunks_struct(chunks):
    """A ca_chunks_t over a tuple of tuples; returns (struct, keepalive)."""
    nb = _i64arr([len(c) for c in chunks])
    sizes = _i64arr([s for c in chunks for s in c])
    st = C.Chunks(len(chunks), nb, sizes)
    return st, (nb, sizes)


def _read_chunkset(cs):
    L = lib()
    try:
        nd = L.ca_chunkset_ndim(cs)
        out = []
        for d in range(nd):
            n = ctypes.c_int64()
            p = L.ca_chunkset_sizes(cs, d, ctypes.byref(n))
            out.append(tuple(p[i] for i in range(n.value)))
        return tuple(out)
    finally:
        L.ca_chunkset_free(cs)


def _is_explicit(chunks):
    return isinstance(chunks, (tuple, list)) and len(chunks) > 0 and all(
        isinstance(c, (tuple, list)) for c in chunks)


def normalize_chunks(chunks, shape=None, limit=None, dtype=None, previous_chunks=None, ctx=None):
    """dask's normalize_chunks: explicit block sizes from a chunk specification.

    Parameters
    ----------
    chunks : str, int, tuple, dict
        ``"auto"``, an int, a per-dimension tuple (int, -1, None, ``"auto"`` or a tuple of sizes), a
        dict ``{axis: spec}``, a byte size string (``"64MiB"``) or explicit tuple of tuples.
    shape : tuple of int, optional
        The array's shape (needed unless ``chunks`` is explicit).
    limit : int, optional
        The byte size ``"auto"`` aims at (default: the context's).
    dtype : numpy.dtype, optional
        The element type ``"auto"`` sizes blocks for (default float64).
    previous_chunks : tuple of tuples, optional
        Chunks to follow where ``None`` or ``"auto"`` is given.
    ctx : Context, optional
        Whose configured chunk size ``"auto"`` uses.

    Returns
    -------
    tuple of tuples of int
        The block sizes along each axis.
    """
    if shape is None:
        if _is_explicit(chunks):
            return tuple(tuple(int(s) for s in c) for c in chunks)
        raise ValueError("normalize_chunks needs a shape unless chunks are explicit")
    shape = tuple(int(s) for s in shape)
    ndim = len(shape)
    dt = _ca_dtype(dtype if dtype is not None else np.float64)
    ch = ctx.handle if ctx is not None else None
    out = c_vp()
    if isinstance(chunks, str) and chunks != "auto":
        _check(lib().ca_normalize_chunks_spec(ctypes.byref(out), ch, chunks.encode(), ndim, _i64arr(shape), dt))
        return _read_chunkset(out.value)
    prev = previous_chunks
    if chunks is None or (isinstance(chunks, str) and chunks == "auto"):
        spec = ["auto"] * ndim
    elif isinstance(chunks, (numbers.Integral, np.integer)):
        spec = [int(chunks)] * ndim
    elif isinstance(chunks, dict):
        spec = []
        for i in range(ndim):
            v = chunks.get(i, chunks.get(i - ndim, None))
            spec.append(v)
    elif isinstance(chunks, (tuple, list)):
        if len(chunks) != ndim:
            raise InvalidArgumentError(-1, f"chunks {chunks!r} have {len(chunks)} dimensions, shape {shape} "
                                       f"has {ndim}")
        spec = list(chunks)
    else:
        raise TypeError(f"chunks must be 'auto', an int, a tuple, a dict or a string, not {chunks!r}")
    dims = (C.DimChunks * max(1, ndim))()
    keep = []
    for i, s in enumerate(spec):
        if s is None:
            s = prev[i] if prev is not None else -1
        if isinstance(s, str):
            if s != "auto":
                raise InvalidArgumentError(-1, f"chunks along axis {i}: {s!r} (per-axis strings: 'auto')")
            dims[i].size = C.CHUNKS_AUTO
        elif isinstance(s, (tuple, list)):
            arr = _i64arr(s)
            keep.append(arr)
            dims[i].size, dims[i].sizes, dims[i].nsizes = C.CHUNKS_EXPLICIT, arr, len(s)
        elif isinstance(s, (numbers.Integral, np.integer)):
            s = int(s)
            if s == -1:
                dims[i].size = C.CHUNKS_WHOLE
            elif s <= 0:
                raise InvalidArgumentError(-1, f"chunks along axis {i}: {s} (must be > 0, -1 or 'auto')")
            else:
                dims[i].size = s
        else:
            raise TypeError(f"chunks along axis {i}: {s!r}")
    _check(lib().ca_normalize_chunks(ctypes.byref(out), ch, dims, ndim, _i64arr(shape), dt,
                                     int(limit) if limit else 0))
    return _read_chunkset(out.value)


def _token(*parts):
    h = hashlib.sha1(repr(parts).encode()).hexdigest()[:16]
    return h


# ------------------------------------------------------------------------------------------------
# Array
# ------------------------------------------------------------------------------------------------

# NumPy name -> C code, generated from the library's tables (_codes.py; tools/gen_codes.py).
_UNARY = dict(_codes.UNARY)
_BINARY = dict(_codes.BINARY, divide=_codes.CA_OP_DIV, mod=_codes.CA_OP_MOD)  # NumPy's aliases
_REDUCE = dict(_codes.REDUCTIONS)
_SCAN = dict(_codes.SCANS)



# Array ** Python number: the exponents NumPy's operator evaluates with another ufunc (Array.__pow__).
_FAST_POWER = {2: _codes.CA_OP_SQUARE, 0.5: _codes.CA_OP_SQRT, -1: _codes.CA_OP_RECIPROCAL}

class Array:
    """A lazy chunked N-d array: a task graph, a name, chunks and a dtype (dask.array.Array).

    Arrays usually come from creation functions (:func:`from_array`, :func:`zeros`, ...) and
    operations on other arrays. ``Array(graph, name, chunks, dtype)`` is dask's low-level
    constructor: an array whose block ``(i, j, ...)`` is the task ``(name, i, j, ...)`` of ``graph``.

    Parameters
    ----------
    graph : Graph or dict
        The tasks (a dict ``{key: (func, *args)}`` is turned into a :class:`Graph`). The array shares
        the graph's layers; later changes to ``graph`` do not affect it.
    name : str
        The layer holding the array's blocks.
    chunks : tuple of tuples of int
        The block sizes along each axis, e.g. ``((2, 2, 1), (3,))`` (dask's normalized chunks).
        Every key of the chunk grid must be in the graph.
    dtype : numpy.dtype or str
        The blocks' dtype.

    Raises
    ------
    InvalidArgumentError
        Bad chunks (negative sizes, not a tuple of tuples).
    NotFoundError
        A key of the chunk grid is not in the graph (the first missing key is named).
    DTypeError
        A dtype chunkarray does not support.

    See Also
    --------
    Graph : building the tasks.

    Notes
    -----
    ``Array(h)`` with one argument takes over an owned native ``ca_array_t*`` (for code that calls
    the C library directly), or shares another Array's native array.

    Examples
    --------
    >>> import numpy as np, chunkarray as ca
    >>> g = ca.Graph({("x", 0): (np.ones, 2), ("x", 1): (np.zeros, 3)})
    >>> ca.Array(g, "x", ((2, 3),), float).compute()
    array([1., 1., 0., 0., 0.])
    """

    __array_priority__ = 20

    def __init__(self, graph, name=None, chunks=None, dtype=None):
        if name is not None or chunks is not None or dtype is not None:
            self._h = None
            self._h = self._from_graph(graph, name, chunks, dtype)
            _live_objects.add(self)
            return
        handle = graph
        if isinstance(handle, Array):
            handle = lib().ca_array_retain(handle.handle)
        if isinstance(handle, (dict, Graph)):
            raise TypeError("Array(graph, name, chunks, dtype): name, chunks and dtype are required")
        if not handle:
            raise ValueError("NULL array handle")
        self._h = handle  # owned reference
        _live_objects.add(self)

    @classmethod
    def _wrap(cls, h):
        """An Array owning the new handle ``h`` (an int from a ca_ call), without __init__'s checks:
        the element-wise fast path of chunkarray.array_api. It is registered as a live object (for
        pruning anonymous Python kernels) only while such kernels exist: an array made while there
        are none cannot name one."""
        obj = object.__new__(cls)
        obj._h = h
        if _anon_kernels:
            _live_objects.add(obj)
        return obj

    @staticmethod
    def _from_graph(graph, name, chunks, dtype):
        if name is None or chunks is None or dtype is None:
            raise TypeError("Array(graph, name, chunks, dtype): name, chunks and dtype are required")
        if isinstance(graph, dict):
            graph = Graph(graph)
        if not isinstance(graph, Graph):
            raise TypeError(f"Array(graph, name, chunks, dtype): graph must be a Graph or a dict of tasks, "
                            f"not {type(graph).__name__}")
        if not isinstance(name, str) or not name:
            raise TypeError(f"Array(graph, name, chunks, dtype): name must be a non-empty string, not {name!r}")
        if not isinstance(chunks, (tuple, list)) or not all(
                isinstance(c, (tuple, list)) and all(isinstance(s, (numbers.Integral, np.integer)) for s in c)
                for c in chunks):
            raise InvalidArgumentError(-1, f"Array(graph, name, chunks, dtype): chunks must be a tuple of tuples "
                                           f"of block sizes per axis, such as ((2, 2), (3,)), not {chunks!r}")
        st, keep = _chunks_struct(tuple(tuple(int(s) for s in c) for c in chunks))
        h = c_vp()
        _check(lib().ca_array_new(ctypes.byref(h), graph.handle, name.encode(), ctypes.byref(st),
                                  _ca_dtype(dtype)))
        return h.value

    @classmethod
    def _new(cls, fn, *args):
        """Call ``fn(&out, *args)``; Array arguments are passed as their handles (and stay alive for
        the call even when they are temporaries such as ``asarray(numpy_array)``)."""
        h = c_vp()
        _check(fn(ctypes.byref(h), *[a._h if isinstance(a, Array) else a for a in args]))
        return cls(h.value)

    def __del__(self):
        h = getattr(self, "_h", None)
        if h:
            try:
                lib().ca_array_free(h)
            except Exception:
                pass
            self._h = None

    # -- Python object protocols -------------------------------------------------------------------
    # Every Array object owns one reference to its native array (ca_array_retain/ca_array_free), so
    # the default copy/pickle (which would copy the raw handle into a second owner) is replaced:
    # copies share the immutable native array through a new reference; pickles carry its graph.
    def _another(self):
        """A new object of this type owning a new reference to the same native array."""
        new = type(self).__new__(type(self))
        new.__dict__.update({k: v for k, v in self.__dict__.items() if k != "_h"})
        new._h = lib().ca_array_retain(self.handle)
        return new

    def __copy__(self):
        return self._another()

    def __deepcopy__(self, memo):
        new = self._another()  # immutable: sharing the native array is a deep copy
        memo[id(self)] = new
        return new

    def __reduce__(self):
        """Pickle as the array's graph (the bytes Array.save writes) and its Python kernels: loads in
        another process (multiprocessing, concurrent.futures); see chunkarray._serialize."""
        from . import _serialize
        return (_serialize.load_array, _serialize.dumps_array(self))

    # -- model ----------------------------------------------------------------------------------
    @property
    def handle(self):
        """The native ca_array_t*, borrowed: valid while this object lives (ca_array_retain it to
        keep it longer; never pass it to Array(), which takes ownership)."""
        if not self._h:
            raise ValueError("chunkarray.Array has no native array (freed)")
        return self._h

    @property
    def ndim(self):
        """The number of dimensions.
        """
        return lib().ca_array_ndim(self._h)

    @property
    def shape(self):
        """Extents; NaN along axes whose chunk sizes are unknown (after a boolean mask), as dask."""
        p = lib().ca_array_shape(self._h)
        return tuple(_size_or_nan(p[i]) for i in range(self.ndim))

    @property
    def size(self):
        """The number of elements (NaN when a chunk size is unknown).
        """
        n = lib().ca_array_size(self._h)
        return _size_or_nan(n)

    @property
    def nbytes(self):
        """The number of bytes of the whole array (NaN when a chunk size is unknown).
        """
        return _size_or_nan(lib().ca_array_nbytes(self._h))

    @property
    def dtype(self):
        """The elements' NumPy dtype.
        """
        return _np_dtype(lib().ca_array_dtype(self._h))

    @property
    def name(self):
        """The array's name: the layer of its graph that holds its blocks.
        """
        return lib().ca_array_name(self._h).decode()

    @property
    def chunks(self):
        """Block sizes per axis; NaN for sizes not known until computed (dask's unknown chunks)."""
        L = lib()
        out = []
        for d in range(self.ndim):
            n = ctypes.c_int64()
            p = L.ca_array_chunks(self._h, d, ctypes.byref(n))
            out.append(tuple(_size_or_nan(p[i]) for i in range(n.value)))
        return tuple(out)

    @property
    def chunks_known(self):
        """Whether every block size is known (False after a boolean mask, until computed).
        """
        return bool(lib().ca_array_chunks_known(self._h))

    @property
    def numblocks(self):
        """The number of blocks along each axis.
        """
        return tuple(len(c) for c in self.chunks)

    @property
    def npartitions(self):
        """The total number of blocks.
        """
        return int(np.prod(self.numblocks))

    @property
    def chunksize(self):
        """The largest block size along each axis.
        """
        return tuple(max(c) if c else 0 for c in self.chunks)

    def _replace(self, other):
        """Make this object hold ``other``'s array (dask's in-place __setitem__/compute_chunk_sizes)."""
        old, self._h = self._h, lib().ca_array_retain(other._h)
        if old:
            lib().ca_array_free(old)
        return self

    def compute_chunk_sizes(self, ctx=None):
        """Learn unknown block sizes by running the graph (dask's compute_chunk_sizes).

        Parameters
        ----------
        ctx : Context, optional
            Where to run; default :func:`default_context`.

        Returns
        -------
        Array
            This array, updated in place (same name and graph, known chunks).
        """
        if self.chunks_known:
            return self
        ctx = ctx or default_context()
        ctx._sync_kernels()
        return self._replace(Array._new(lib().ca_array_compute_chunk_sizes, ctx.handle, self._h, None))

    def __len__(self):
        if not self.ndim:
            raise TypeError("len() of unsized object")
        n = self.shape[0]
        if n != n:
            raise ValueError("Cannot call len() on object with unknown chunk size; call "
                             "x.compute_chunk_sizes() first")
        return n

    def __repr__(self):
        return (f"chunkarray.Array<{self.name}, shape={self.shape}, dtype={self.dtype}, "
                f"chunksize={self.chunksize}, chunktype=numpy.ndarray>")

    def to_svg(self, size=120):
        """An SVG picture of the chunk grid (what notebooks show).

        Parameters
        ----------
        size : int, default 120
            The picture's size in pixels.

        Returns
        -------
        str
            The SVG text.
        """
        out = c_vp()
        _check(lib().ca_array_to_svg(ctypes.byref(out), self._h, size))
        try:
            return ctypes.string_at(out.value).decode()
        finally:
            lib().ca_string_free(out.value)

    def _repr_html_(self):
        nb = self.nbytes
        cb = float(np.prod(self.chunksize)) * self.dtype.itemsize if self.ndim else self.dtype.itemsize
        rows = [("Bytes", _fmt_bytes(nb), _fmt_bytes(cb)), ("Shape", self.shape, self.chunksize),
                ("Dask graph", f"{self.npartitions} chunks", ""), ("Data type", f"{self.dtype} numpy.ndarray", "")]
        table = "".join(f"<tr><th>{a}</th><td>{b}</td><td>{c}</td></tr>" for a, b, c in rows)
        try:
            svg = self.to_svg()
        except ChunkArrayError:
            svg = ""
        return ("<table><tr><td><table><thead><tr><td></td><th>Array</th><th>Chunk</th></tr></thead>"
                f"<tbody>{table}</tbody></table></td><td>{svg}</td></tr></table>")

    def graph(self):
        """The array's task graph.

        Returns
        -------
        Graph
            A new graph object sharing the array's layers.
        """
        h = c_vp()
        _check(lib().ca_array_graph(ctypes.byref(h), self._h))
        return Graph(h.value)

    def __dask_keys__(self):
        names = [self.name]
        return [tuple(names + list(i)) for i in np.ndindex(*self.numblocks)]

    # -- compute ----------------------------------------------------------------------------------
    def compute(self, ctx=None, progress=None, comm=None):
        """Compute the array: its value as a NumPy array.

        Parameters
        ----------
        ctx : Context, optional
            Where to run (worker threads, memory limit, kernels); default :func:`default_context`.
        progress : bool or callable, optional
            True draws a progress bar on the terminal (stderr); a callable is called as
            ``progress(done, total)`` with task counts, on the calling thread, at most every 100 ms
            and once at the end.
        comm : mpi4py communicator, optional
            Compute over MPI ranks (:mod:`chunkarray.mpi`); the result is on rank 0.

        Returns
        -------
        numpy.ndarray or numpy.generic
            The value. A 0-d result is a NumPy scalar (``numpy.float64``, ...) as in dask, except
            for 0-d arrays made by a creation function (``zeros(())``, ``from_array`` of a 0-d
            array) and their ``astype``/``rechunk``, which stay 0-d ndarrays as dask's do.
        """
        return _scalar_result(self, self._compute_array(ctx, progress, comm))

    def _compute_array(self, ctx=None, progress=None, comm=None):
        if comm is not None:  # distributed over an mpi4py communicator: the result on rank 0
            from . import mpi
            return mpi.compute(self, comm, ctx=ctx, progress=progress)
        ctx = ctx or default_context()
        ctx._sync_kernels()
        if not self.chunks_known:  # the shape is known only from the computed blocks
            opts, keep = _compute_options(progress)
            b = c_vp()
            _check(lib().ca_array_compute(ctypes.byref(b), ctx.handle, self._h, opts))
            del keep
            return _block_to_numpy(b.value)
        out = np.empty(self.shape, self.dtype)
        opts, keep = _compute_options(progress)
        _check(lib().ca_array_compute_into(ctx.handle, self._h, out.ctypes.data if out.nbytes else None,
                                           out.nbytes, opts))
        del keep
        return out

    def persist(self, ctx=None, comm=None):
        """Compute the blocks and keep them in memory: an array over the results.

        Parameters
        ----------
        ctx : Context, optional
            Where to run; default :func:`default_context`.
        comm : mpi4py communicator, optional
            Distributed: each block stays on the rank that computed it (:func:`chunkarray.mpi.persist`).

        Returns
        -------
        Array
            Same name, chunks and dtype; its graph holds the computed blocks.
        """
        if comm is not None:  # distributed: each block stays on the rank that computed it
            from . import mpi
            return mpi.persist(self, comm, ctx=ctx)
        ctx = ctx or default_context()
        ctx._sync_kernels()
        return Array._new(lib().ca_array_persist, ctx.handle, self._h, None)

    def __array__(self, dtype=None):
        x = self._compute_array()
        return x if dtype is None else x.astype(dtype, copy=False)

    def __bool__(self):
        return bool(self.compute())

    def __float__(self):
        return float(self.compute())

    def __int__(self):
        return int(self.compute())

    def __complex__(self):
        return complex(self.compute())

    def __index__(self):
        return int(self.compute())

    # -- elementwise ------------------------------------------------------------------------------
    def _binop(self, op, other, reflected=False):
        L = lib()
        if isinstance(other, Array):
            a, b = (other, self) if reflected else (self, other)
            return Array._new(L.ca_array_binary, op, a._h, b._h)
        if _is_scalar(other):
            return Array._new(L.ca_array_binary_scalar, op, self._h, _scalar(other), reflected)
        if isinstance(other, (np.ndarray, list, str, bytes)):  # a string: a 0-d bytes/unicode array
            o = from_array(np.asarray(other), chunks=-1)
            return self._binop(op, o, reflected)
        return NotImplemented

    def _unop(self, op):
        return Array._new(lib().ca_array_unary, op, self._h)

    def __add__(self, o): return self._binop(_codes.CA_OP_ADD, o)
    def __radd__(self, o): return self._binop(_codes.CA_OP_ADD, o, True)
    def __sub__(self, o): return self._binop(_codes.CA_OP_SUB, o)
    def __rsub__(self, o): return self._binop(_codes.CA_OP_SUB, o, True)
    def __mul__(self, o): return self._binop(_codes.CA_OP_MUL, o)
    def __rmul__(self, o): return self._binop(_codes.CA_OP_MUL, o, True)
    def __truediv__(self, o): return self._binop(_codes.CA_OP_DIV, o)
    def __rtruediv__(self, o): return self._binop(_codes.CA_OP_DIV, o, True)
    def __floordiv__(self, o): return self._binop(_codes.CA_OP_FLOORDIV, o)
    def __rfloordiv__(self, o): return self._binop(_codes.CA_OP_FLOORDIV, o, True)
    def __mod__(self, o): return self._binop(_codes.CA_OP_MOD, o)
    def __rmod__(self, o): return self._binop(_codes.CA_OP_MOD, o, True)
    def __pow__(self, o):
        # NumPy's ndarray ** scalar (fast_scalar_power in numpy/core/src/multiarray/number.c): a float or
        # complex array to a Python number 2, 0.5 or -1 is square, sqrt or reciprocal, correctly rounded
        # where power() may differ in the last bit (dask's x ** 0.5 runs NumPy's operator per block).
        # (** 1 and ** 0 are already exact: pow(x, 1) is x, pow(x, 0) is 1.)
        if type(o) in (int, float) and self.dtype.kind in "fc":
            op = _FAST_POWER.get(o)
            if op is not None:
                return self._unop(op)
        return self._binop(_codes.CA_OP_POW, o)
    def __rpow__(self, o): return self._binop(_codes.CA_OP_POW, o, True)
    def __eq__(self, o): return self._binop(_codes.CA_OP_EQ, o)  # noqa: E704
    def __ne__(self, o): return self._binop(_codes.CA_OP_NE, o)
    def __lt__(self, o): return self._binop(_codes.CA_OP_LT, o)
    def __le__(self, o): return self._binop(_codes.CA_OP_LE, o)
    def __gt__(self, o): return self._binop(_codes.CA_OP_GT, o)
    def __ge__(self, o): return self._binop(_codes.CA_OP_GE, o)
    def __and__(self, o): return self._binop(_codes.CA_OP_BITAND, o)
    def __rand__(self, o): return self._binop(_codes.CA_OP_BITAND, o, True)
    def __or__(self, o): return self._binop(_codes.CA_OP_BITOR, o)
    def __ror__(self, o): return self._binop(_codes.CA_OP_BITOR, o, True)
    def __xor__(self, o): return self._binop(_codes.CA_OP_BITXOR, o)
    def __rxor__(self, o): return self._binop(_codes.CA_OP_BITXOR, o, True)
    def __neg__(self): return self._unop(_codes.CA_OP_NEG)
    def __pos__(self): return self
    def __abs__(self): return self._unop(_codes.CA_OP_ABS)
    def __invert__(self): return self._unop(_codes.CA_OP_INVERT)

    __hash__ = object.__hash__

    @property
    def real(self):
        """The real part, lazily (``numpy.real``).
        """
        return self._unop(_codes.CA_OP_REAL)

    @property
    def imag(self):
        """The imaginary part, lazily (``numpy.imag``).
        """
        return self._unop(_codes.CA_OP_IMAG)

    def conj(self):
        """The complex conjugate, lazily.

        Returns
        -------
        Array
            The conjugate.
        """
        return self._unop(_codes.CA_OP_CONJ)

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        """Cast to another dtype, lazily (``numpy.ndarray.astype``).

        Parameters
        ----------
        dtype : numpy.dtype or str
            The new dtype.
        order : {"K", "A", "C", "F"}, default "K"
            Accepted for NumPy's signature (results are C-ordered).
        casting : {"no", "equiv", "safe", "same_kind", "unsafe"}, default "unsafe"
            Checked with ``numpy.can_cast`` on the dtypes (TypeError as NumPy's).
        subok : bool, default True
            Accepted for NumPy's signature.
        copy : bool, default True
            False with the dtype already right returns this array itself.

        Returns
        -------
        Array
            The cast array (a new object sharing the native array when the dtype is unchanged).
        """
        dt = np.dtype(dtype)
        if dt.kind in "SU" and dt.itemsize == 0:
            dt = np.empty(0, self.dtype).astype(dt).dtype  # NumPy's width for the source dtype ('U' of int64: U21)
        if casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
            raise ValueError(f"casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe', "
                             f"not {casting!r}")
        if order not in ("K", "A", "C", "F", None):
            raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
        if not np.can_cast(self.dtype, dt, casting=casting):
            raise TypeError(f"Cannot cast array data from {self.dtype!r} to {dt!r} according to the rule "
                            f"{casting!r}")
        if dt == self.dtype:
            return self._another() if copy else self
        out = Array._new(lib().ca_array_astype, self._h, _ca_dtype(dt))
        out._0d_ndarray = getattr(self, "_0d_ndarray", False)
        return out

    def round(self, decimals=0):
        """Round to ``decimals`` decimals, halves to even (``numpy.round``).

        Parameters
        ----------
        decimals : int, default 0
            Decimal places.

        Returns
        -------
        Array
            The rounded values.
        """
        return Array._new(lib().ca_array_round, self._h, int(decimals))

    def clip(self, min=None, max=None):
        """Limit the values to ``[min, max]`` (``numpy.clip``).

        Parameters
        ----------
        min, max : scalar, optional
            The bounds; None leaves that side open.

        Returns
        -------
        Array
            The clipped values.
        """
        lo = _scalar(min) if min is not None else C.Scalar()
        hi = _scalar(max) if max is not None else C.Scalar()
        return Array._new(lib().ca_array_clip, self._h, min is not None, lo, max is not None, hi)

    # -- reductions -------------------------------------------------------------------------------
    def _reduce(self, name, axis=None, keepdims=False, dtype=None, ddof=0, split_every=None):
        axes = _axes(axis, self.ndim)
        if axes == () and axis is not None:
            raise InvalidArgumentError(-1, f"{name}: axis=() (an empty axis tuple) is not supported")
        opts = C.ReduceOptions(ctypes.sizeof(C.ReduceOptions), int(split_every or 0), int(ddof),
                               _ca_dtype(dtype) if dtype is not None else 0)
        arr = _i32arr(axes)
        return Array._new(lib().ca_array_reduce, _REDUCE[name], self._h, arr if axes else None, len(axes),
                          bool(keepdims), ctypes.byref(opts))

    def sum(self, axis=None, dtype=None, keepdims=False, split_every=None):
        return self._reduce("sum", axis, keepdims, dtype, split_every=split_every)

    def prod(self, axis=None, dtype=None, keepdims=False, split_every=None):
        return self._reduce("prod", axis, keepdims, dtype, split_every=split_every)

    def mean(self, axis=None, dtype=None, keepdims=False, split_every=None):
        return self._reduce("mean", axis, keepdims, dtype, split_every=split_every)

    def var(self, axis=None, dtype=None, keepdims=False, ddof=0, split_every=None):
        return self._reduce("var", axis, keepdims, dtype, ddof, split_every)

    def std(self, axis=None, dtype=None, keepdims=False, ddof=0, split_every=None):
        return self._reduce("std", axis, keepdims, dtype, ddof, split_every)

    def min(self, axis=None, keepdims=False, split_every=None):
        return self._reduce("min", axis, keepdims, split_every=split_every)

    def max(self, axis=None, keepdims=False, split_every=None):
        return self._reduce("max", axis, keepdims, split_every=split_every)

    def argmin(self, axis=None, keepdims=False, split_every=None):
        return self._reduce("argmin", axis, keepdims, split_every=split_every)

    def argmax(self, axis=None, keepdims=False, split_every=None):
        return self._reduce("argmax", axis, keepdims, split_every=split_every)

    def any(self, axis=None, keepdims=False, split_every=None):
        return self._reduce("any", axis, keepdims, split_every=split_every)

    def all(self, axis=None, keepdims=False, split_every=None):
        return self._reduce("all", axis, keepdims, split_every=split_every)

    def _scan(self, name, axis, dtype):
        if axis is None:  # NumPy flattens
            return (self.ravel() if self.ndim != 1 else self)._scan(name, 0, dtype)
        opts = C.ScanOptions(ctypes.sizeof(C.ScanOptions), _ca_dtype(dtype) if dtype is not None else 0)
        return Array._new(lib().ca_array_scan, _SCAN[name], self._h, int(axis), ctypes.byref(opts))

    def cumsum(self, axis=None, dtype=None):
        return self._scan("cumsum", axis, dtype)

    def cumprod(self, axis=None, dtype=None):
        return self._scan("cumprod", axis, dtype)

    # -- structure --------------------------------------------------------------------------------
    def rechunk(self, chunks="auto", threshold=None, block_size_limit=None, balance=False):
        """Change the block sizes (dask's rechunk).

        Parameters
        ----------
        chunks : str, int, tuple or dict, default "auto"
            The new chunks, any form :func:`normalize_chunks` takes; None or a missing dict entry keeps
            an axis's chunks.
        threshold : int, optional
            Accepted for dask's signature.
        block_size_limit : int, optional
            The byte size ``"auto"`` aims at.
        balance : bool, default False
            Accepted for dask's signature.

        Returns
        -------
        Array
            The rechunked array (this array when the chunks do not change).
        """
        cur = self.chunks
        if isinstance(chunks, dict):
            chunks = {(k % self.ndim if self.ndim else k): v for k, v in chunks.items()}
            chunks = tuple(chunks.get(i, cur[i]) for i in range(self.ndim))
        elif isinstance(chunks, (tuple, list)) and len(chunks) == self.ndim:
            chunks = tuple(cur[i] if c is None else c for i, c in enumerate(chunks))
        new = normalize_chunks(chunks, self.shape, limit=block_size_limit, dtype=self.dtype,
                               previous_chunks=cur)
        if new == cur:
            return self
        st, keep = _chunks_struct(new)
        return Array._new(lib().ca_array_rechunk, self._h, ctypes.byref(st))

    def map_blocks(self, func, *args, **kwargs):
        """``map_blocks(func, self, *args, **kwargs)``: see :func:`map_blocks`.

        Parameters
        ----------
        func : callable or str
            The function or kernel name.
        *args
            More arguments.
        **kwargs
            As :func:`map_blocks`.

        Returns
        -------
        Array
            The lazy result.
        """
        return map_blocks(func, self, *args, **kwargs)

    def __getitem__(self, index):
        from ._indexing import getitem
        return getitem(self, index)

    def __setitem__(self, index, value):
        """dask's x[index] = value: this object is rebound to the new array (ca_array_setitem);
        arrays built from the old value keep it."""
        from ._indexing import setitem
        self._replace(setitem(self, index, value))

    @property
    def vindex(self):
        """Pointwise indexing: x.vindex[[0, 2], [1, 3]] is the points (0, 1) and (2, 3)."""
        from ._indexing import _VIndexer
        return _VIndexer(self)

    @property
    def oindex(self):
        """Outer indexing: x.oindex[[0, 2], [1, 3]] is x[np.ix_([0, 2], [1, 3])] (zarr's and xarray's)."""
        from ._indexing import _OIndexer
        return _OIndexer(self)

    @property
    def T(self):
        """The transpose (axes reversed).
        """
        return self.transpose()

    def transpose(self, *axes):
        """Permute the axes (``numpy.transpose``).

        Parameters
        ----------
        *axes : int or tuple of int
            The new order; none reverses the axes.

        Returns
        -------
        Array
            The transposed array.
        """
        from ._shape import transpose
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        if len(axes) == 1 and axes[0] is None:
            axes = ()
        return transpose(self, axes or None)

    def reshape(self, *shape, merge_chunks=True, limit=None):
        """Give a new shape (dask's reshape).

        Parameters
        ----------
        *shape : int or tuple of int
            The new shape; one entry may be -1.
        merge_chunks : bool, default True
            Rechunk the input so that every output block comes from whole input blocks.
        limit : int, optional
            The byte size blocks aim at when rechunking.

        Returns
        -------
        Array
            The reshaped array.
        """
        from ._shape import reshape
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return reshape(self, shape)

    def ravel(self):
        """The flattened array (C order).

        Returns
        -------
        Array
            1-d.
        """
        from ._shape import ravel
        return ravel(self)

    flatten = ravel

    def swapaxes(self, axis1, axis2):
        """Exchange two axes (``numpy.swapaxes``).

        Parameters
        ----------
        axis1, axis2 : int
            The axes.

        Returns
        -------
        Array
            The array with the axes exchanged.
        """
        from ._shape import swapaxes
        return swapaxes(self, axis1, axis2)

    def squeeze(self, axis=None):
        """Remove axes of length one (``numpy.squeeze``).

        Parameters
        ----------
        axis : int or tuple of int, optional
            The axes; None removes every length-one axis.

        Returns
        -------
        Array
            The squeezed array.
        """
        from ._shape import squeeze
        return squeeze(self, axis)

    def repeat(self, repeats, axis=None):
        """Repeat elements (``numpy.repeat``).

        Parameters
        ----------
        repeats : int
            Repetitions of each element.
        axis : int, optional
            The axis; None repeats the flattened array.

        Returns
        -------
        Array
            The repeated array.
        """
        from ._shape import repeat
        return repeat(self, repeats, axis)

    def dot(self, other):
        """Dot product with ``other`` (``numpy.dot``).

        Parameters
        ----------
        other : Array or array_like
            The other operand.

        Returns
        -------
        Array
            The product.
        """
        from .linalg import dot
        return dot(self, other)

    def __matmul__(self, other):
        from .linalg import matmul
        return matmul(self, other)

    def __rmatmul__(self, other):
        from .linalg import matmul
        return matmul(other, self)

    def map_overlap(self, func, depth, boundary=None, trim=True, **kwargs):
        """``map_overlap(func, self, ...)``: see :func:`map_overlap`.

        Parameters
        ----------
        func : callable or str
            The function or kernel name.
        depth : int, tuple or dict
            Elements shared with the neighbouring blocks along each axis.
        boundary : str or scalar, optional
            What lies beyond the array's edge.
        trim : bool, default True
            Remove the overlap from the results.
        **kwargs
            As :func:`map_overlap`.

        Returns
        -------
        Array
            The lazy result.
        """
        return map_overlap(func, self, depth=depth, boundary=boundary, trim=trim, **kwargs)

    # -- storage ----------------------------------------------------------------------------------
    def to_npy(self, path, ctx=None):
        """Compute into a ``.npy`` file, block by block.

        Parameters
        ----------
        path : str or os.PathLike
            The file.
        ctx : Context, optional
            Where to run.
        """
        ctx = ctx or default_context()
        ctx._sync_kernels()
        _check(lib().ca_array_to_npy(ctx.handle, self._h, str(path).encode(), None))

    def to_zarr(self, path, chunks=None, compressor=None, level=-1, overwrite=False, attrs=None, ctx=None, comm=None):
        """Compute into a Zarr v2 store, chunk by chunk.

        Parameters
        ----------
        path : str or os.PathLike
            The store's directory.
        chunks : tuple of int, optional
            The Zarr chunk shape; default the array's chunk size.
        compressor : {None, "zlib", "gzip", "zstd", "blosc"}, optional
            The codec.
        level : int, default -1
            Its compression level (-1: its default).
        overwrite : bool, default False
            Replace an existing store.
        attrs : dict, optional
            Written to ``.zattrs``.
        ctx : Context, optional
            Where to run.
        comm : mpi4py communicator, optional
            Distributed: every rank writes the chunks of the blocks it computed.
        """
        import json
        ctx = ctx or default_context()
        ctx._sync_kernels()
        keep = _i64arr(chunks) if chunks is not None else None
        o = C.ZarrOptions(ctypes.sizeof(C.ZarrOptions), keep, compressor.encode() if compressor else None, int(level),
                          None, 1, json.dumps(attrs).encode() if attrs is not None else None, 1 if overwrite else 0,
                          b"C", b".", 0, 0.0)
        if comm is not None:
            from . import mpi
            mpi.to_zarr(self, path, comm, o, ctx=ctx)
            return
        _check(lib().ca_array_to_zarr(ctx.handle, self._h, str(path).encode(), ctypes.byref(o), None))

    def to_hdf5(self, filename, datapath, chunks=True, compression=None, compression_opts=None, shuffle=False,
                overwrite=False, ctx=None):
        """Compute into an HDF5 dataset, block by block (dask's ``to_hdf5``).

        Parameters
        ----------
        filename : str or os.PathLike
            The HDF5 file (created if missing; other objects in it are kept).
        datapath : str
            The dataset's name; groups on its path are created.
        chunks : bool or tuple of int, default True
            True: HDF5 chunks of the array's chunk size; a tuple: that chunk shape; None or False:
            contiguous layout.
        compression : {None, "gzip"}, optional
            HDF5's deflate filter.
        compression_opts : int, optional
            The gzip level 0..9 (default 4, as h5py).
        shuffle : bool, default False
            HDF5's shuffle filter.
        overwrite : bool, default False
            Replace an existing dataset of that name.
        ctx : Context, optional
            Where to run.
        """
        ctx = ctx or default_context()
        ctx._sync_kernels()
        if compression not in (None, "gzip"):
            raise ValueError(f"to_hdf5: compression {compression!r} is not available (None or 'gzip'; "
                             "lzf is h5py's own filter)")
        level = -1 if compression is None else (4 if compression_opts is None else int(compression_opts))
        contiguous = chunks is None or chunks is False
        keep = _i64arr(tuple(chunks)) if not contiguous and chunks is not True else None
        o = C.Hdf5Options(ctypes.sizeof(C.Hdf5Options), keep, 1 if contiguous else 0, level, 1 if shuffle else 0,
                          1 if overwrite else 0)
        _check(lib().ca_array_to_hdf5(ctx.handle, self._h, os.fspath(filename).encode(), str(datapath).encode(),
                                      ctypes.byref(o), None))

    def visualize(self, filename="mydask", format=None):
        """Render the task graph with Graphviz, as dask's ``visualize``.

        Parameters
        ----------
        filename : str or os.PathLike or None, default "mydask"
            The file to write. Its extension picks the format (``.svg``, ``.png``, ``.pdf``,
            ``.jpg``, ``.dot``); without one, ``format`` is appended (dask's behaviour). None writes
            no file and returns the rendered bytes.
        format : str, optional
            ``"png"`` (default), ``"svg"``, ``"pdf"``, ``"jpg"`` or ``"dot"`` (the graph's dot
            text, no Graphviz needed). Used when ``filename`` has no extension.

        Returns
        -------
        str or bytes
            The path written, or the rendered bytes when ``filename`` is None.

        Raises
        ------
        RuntimeError
            Graphviz's ``dot`` program is not installed (rendering anything but ``.dot``), or it
            failed.
        """
        return _visualize(self.graph().to_dot(), filename, format)

    def save(self, path, context=None):
        """Save the array (graph, name, chunks, dtype) to a graph file (``ca_save``).

        Python kernels are saved by name: a process that loads the file registers them
        (:func:`register_kernel`) to compute.

        Parameters
        ----------
        path : str or os.PathLike
            The file.
        context : Context, optional
            Record the version of every kernel as registered there; computing the loaded array where a
            kernel has another version then fails with ``CA_EVERSION``. Without one, builtin kernels
            record this library's versions and other kernels none.
        """
        save_file(path, arrays=[self._h], context=context)

    # -- NumPy protocols --------------------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if kwargs.get("out") is not None:
            return NotImplemented
        kwargs.pop("out", None)
        name = ufunc.__name__
        if ufunc is np.matmul and method == "__call__" and not kwargs and len(inputs) == 2:
            from .linalg import matmul
            return matmul(*inputs)
        if method == "__call__" and not kwargs:
            if name in _UNARY and len(inputs) == 1:
                return inputs[0]._unop(_UNARY[name])
            if name in _BINARY and len(inputs) == 2:
                a, b = inputs
                op = _BINARY[name]
                if isinstance(a, Array):
                    return a._binop(op, b)
                return b._binop(op, a, True)
            if name in _UFUNC_FUNCTIONS:
                return _UFUNC_FUNCTIONS[name](*inputs)
        if method == "reduce" and len(inputs) == 1:
            red = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
                   "logical_and": "all", "logical_or": "any"}.get(name)
            if red:
                return inputs[0]._reduce(red, kwargs.get("axis", 0), kwargs.get("keepdims", False),
                                         kwargs.get("dtype"))
        if method == "accumulate" and name in ("add", "multiply") and len(inputs) == 1:
            return inputs[0]._scan("cumsum" if name == "add" else "cumprod", kwargs.get("axis", 0),
                                   kwargs.get("dtype"))
        # Anything else: elementwise through a Python kernel over the blocks.
        if method == "__call__" and ufunc.nout == 1:
            return elemwise(_callables.UfuncCall(ufunc, kwargs), *inputs)
        return NotImplemented

    def __array_function__(self, func, types, args, kwargs):
        # NEP 18: another duck array type among the arguments decides for itself
        if any(not issubclass(t, (Array, np.ndarray)) for t in types):
            return NotImplemented
        impl = _NUMPY_FUNCTIONS.get(func)
        if impl is not None:
            return impl(*args, **kwargs)
        # Not lazily supported: compute the arrays and call NumPy, saying so (as dask does).
        import warnings
        fname = f"{getattr(func, '__module__', 'numpy')}.{getattr(func, '__name__', func)}"
        warnings.warn(f"{fname} is not implemented lazily by chunkarray: its chunkarray arguments are computed "
                      "and NumPy's function is called (map_blocks keeps it lazy)", ComputeWarning, stacklevel=3)
        return func(*_computed(args), **_computed(kwargs))

    @property
    def _meta(self):
        """dask's _meta: an empty NumPy array of the blocks' type, dtype and ndim."""
        return np.empty((0,) * self.ndim, dtype=self.dtype)


class ComputeWarning(UserWarning):
    """A NumPy function that chunkarray does not implement lazily computed its array arguments."""


def _computed(x):
    if isinstance(x, Array):
        return x.compute()
    if isinstance(x, (list, tuple)):
        return type(x)(_computed(i) for i in x)
    if isinstance(x, dict):
        return {k: _computed(v) for k, v in x.items()}
    return x


def _fmt_bytes(n):
    if n != n:
        return "unknown"
    n = int(n)
    for unit in ("B", "kiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.2f} {unit}" if unit != "B" else f"{n} B"
        n /= 1024


_VIS_FORMATS = ("png", "svg", "pdf", "jpg", "jpeg", "gif", "dot")


def _visualize(dot_text, filename, format):
    """Render ``dot_text`` as ``visualize`` documents (Graphviz's ``dot -T<format>``)."""
    import shutil
    import subprocess
    fmt = format.lower().lstrip(".") if format else None
    path = None
    if filename is not None:
        path = os.fspath(filename)
        ext = os.path.splitext(path)[1].lower().lstrip(".")
        if ext in _VIS_FORMATS:
            fmt = ext
        else:
            fmt = fmt or "png"
            path = f"{path}.{fmt}"
    fmt = fmt or "png"
    if fmt not in _VIS_FORMATS:
        raise ValueError(f"visualize: unknown format {fmt!r} (one of {', '.join(_VIS_FORMATS)})")
    if fmt == "dot":
        data = dot_text.encode()
    else:
        exe = shutil.which("dot")
        if exe is None:
            raise RuntimeError(f"visualize: rendering {fmt} needs Graphviz's 'dot' program, which is not on PATH "
                               "(Debian: apt-get install graphviz); a filename ending in .dot writes the graph "
                               "as dot text without it")
        r = subprocess.run([exe, f"-T{fmt}"], input=dot_text.encode(), capture_output=True, check=False)
        if r.returncode != 0:
            raise RuntimeError(f"visualize: dot -T{fmt} failed (exit {r.returncode}): "
                               f"{r.stderr.decode(errors='replace').strip()}")
        data = r.stdout
    if path is None:
        return data
    with open(path, "wb") as f:
        f.write(data)
    return path


def _scalar_result(arr, value):
    """dask's result types: a computed 0-d array is a NumPy scalar, except for 0-d arrays that a
    creation function made (and their astype/rechunk), which dask returns as 0-d ndarrays."""
    if isinstance(value, np.ndarray) and value.ndim == 0 and not getattr(arr, "_0d_ndarray", False):
        return value[()]
    return value


def _keeps_0d(fn):
    """Marks a creation function's 0-d results as computing to 0-d ndarrays (see _scalar_result)."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        out = fn(*args, **kwargs)
        if isinstance(out, Array) and out.ndim == 0 and not any(out is a for a in args):
            out._0d_ndarray = True
        return out
    return wrapper


def _axes(axis, ndim):
    if axis is None:
        return ()
    if isinstance(axis, (numbers.Integral, np.integer)):
        axis = (int(axis),)
    out = []
    for a in axis:
        a = int(a)
        if not -ndim <= a < max(ndim, 1):
            raise np.AxisError(a, ndim)
        out.append(a % ndim if ndim else a)
    return tuple(out)


def _letters(n, skip=""):
    return "".join([c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in skip][:n])


# ------------------------------------------------------------------------------------------------
# Graphs
# ------------------------------------------------------------------------------------------------

class Graph:
    """A task graph (``ca_graph_t``): dask's HighLevelGraph, built task by task or taken from an array.

    ``Graph()`` is an empty graph to which :meth:`add_task` adds tasks keyed ``(name, i, j, ...)``
    (dask's custom graphs); ``Graph(dsk)`` builds one from a dask-style dict ``{key: (func, *args)}``.
    An array over the tasks of one name is then ``Array(graph, name, chunks, dtype)``.

    Parameters
    ----------
    dsk : dict or Graph, optional
        Tasks to add, as ``{key: (func, *args)}`` (see :meth:`add_task` for keys, functions and
        arguments), or a Graph whose layers are shared (as :meth:`merge`).

    See Also
    --------
    Array : ``Array(graph, name, chunks, dtype)`` makes an array over a layer of the graph.

    Examples
    --------
    dask's custom ``eye``: identity blocks on the diagonal, zeros elsewhere.

    >>> import numpy as np, chunkarray as ca
    >>> g = ca.Graph()
    >>> for i in range(2):
    ...     for j in range(2):
    ...         if i == j:
    ...             g.add_task(("eye", i, j), np.eye, 3)
    ...         else:
    ...             g.add_task(("eye", i, j), np.zeros, (3, 3))
    >>> x = ca.Array(g, "eye", ((3, 3), (3, 3)), float)
    >>> int(x.sum().compute())
    6
    """

    def __init__(self, dsk=None):
        if dsk is None or isinstance(dsk, (dict, Graph)):
            h = c_vp()
            _check(lib().ca_graph_new(ctypes.byref(h)))
            self._h = h.value
            self._fn_kernels = {}
            _live_objects.add(self)
            if isinstance(dsk, Graph):
                self.merge(dsk)
            elif dsk is not None:
                for key, task in dsk.items():
                    if not isinstance(task, tuple) or not task or not (callable(task[0]) or isinstance(task[0], str)):
                        raise TypeError(f"Graph: the task of {key!r} must be a tuple (func, *args) with a callable "
                                        f"or a kernel name first, not {task!r}")
                    self.add_task(key, task[0], *task[1:])
            return
        # An owned native ca_graph_t* (from a C call such as ca_array_graph): taken over.
        if not isinstance(dsk, int):
            raise TypeError(f"Graph() takes a dict of tasks, a Graph or nothing, not {type(dsk).__name__}")
        self._h = dsk  # owned
        self._fn_kernels = {}
        _live_objects.add(self)

    @staticmethod
    def _key(key, what):
        if isinstance(key, str):
            key = (key,)
        if not (isinstance(key, tuple) and key and isinstance(key[0], str)
                and all(isinstance(i, (numbers.Integral, np.integer)) and not isinstance(i, bool) for i in key[1:])):
            raise TypeError(f"{what}: a key is a tuple (name, i, j, ...) of a string and integer block indices, "
                            f"not {key!r}")
        return key[0], tuple(int(i) for i in key[1:])

    def _kernel_for(self, func):
        if isinstance(func, str):
            return func
        if not callable(func):
            raise TypeError(f"add_task: the function is a kernel name (str) or a Python callable, not {func!r}")
        name = self._fn_kernels.get(id(func))
        if name is None or name[1] is not func:
            name = (_py_kernel(func, "task"), func)
            self._fn_kernels[id(func)] = name
        return name[0]

    @staticmethod
    def _task_arg(v):
        """dask's task arguments: a tuple (name, i, ...) with a string first is a key reference; lists
        are lists (of references or literals); anything else is a literal."""
        if isinstance(v, tuple) and v and isinstance(v[0], str):
            name, idx = Graph._key(v, "add_task")
            return _KeyRef(name, idx)
        if isinstance(v, list):
            return [Graph._task_arg(i) for i in v]
        if isinstance(v, np.integer):
            return int(v)
        if isinstance(v, np.floating):
            return float(v)
        return v

    def add_task(self, key, func, *args):
        """Add the task ``key = func(*args)`` (``ca_graph_add_task``).

        Parameters
        ----------
        key : tuple
            ``(name, i, j, ...)``: the layer name and the block index. Every key of one name has the
            same number of indices; a 0-d array's key is ``(name,)``.
        func : str or callable
            The name of a registered kernel (a builtin ``ca.*`` kernel, one from
            :func:`register_kernel`, :func:`register_ffi` or a plugin), or a Python callable that
            returns a NumPy array (the block).
        *args
            The task's arguments. A tuple whose first item is a string, ``(name, i, ...)``, is a
            reference to another task's result: the callable receives that block. A list is a list
            (it may hold references). Other values are literals: int, float, str, bytes, None,
            slices and tuples of ints.

        Raises
        ------
        InvalidArgumentError
            An empty name, an index count other than the layer's, an unsupported argument.
        ChunkArrayError
            ``CA_EEXISTS``: the key is already in the graph.

        Notes
        -----
        Referenced keys need not exist yet: they are checked when an array is built over the graph
        and at compute time.
        """
        name, idx = self._key(key, "add_task")
        kname = self._kernel_for(func)
        ab = _ArgBuilder()
        arr = ab.array([self._task_arg(a) for a in args])
        lname = name.encode()
        ix = _i64arr(idx)
        k = C.Key(lname, ix, len(idx))
        _check(lib().ca_graph_add_task(self.handle, ctypes.byref(k), kname.encode(), arr, len(args)))

    def merge(self, other):
        """Add every layer of ``other`` (``ca_graph_merge``): dask's ``merge(v.dask, dsk)``.

        Parameters
        ----------
        other : Graph or Array
            A graph, or an array whose graph is added (so that tasks may reference its blocks).

        Returns
        -------
        Graph
            This graph.

        Raises
        ------
        ChunkArrayError
            ``CA_EEXISTS`` when a layer of the same name with other content is already here.
        """
        if isinstance(other, Array):
            other = other.graph()
        if not isinstance(other, Graph):
            raise TypeError(f"merge: a Graph or an Array, not {type(other).__name__}")
        _check(lib().ca_graph_merge(self.handle, other.handle))
        return self

    def __contains__(self, key):
        name, idx = self._key(key, "Graph.__contains__")
        ix = _i64arr(idx)
        k = C.Key(name.encode(), ix, len(idx))
        return bool(lib().ca_graph_has_key(self.handle, ctypes.byref(k)))

    # Each Graph object owns its native graph: a copy is a new native graph sharing the layers
    # (ca_graph_copy), a pickle carries the graph file bytes and its Python kernels.
    def __copy__(self):
        h = c_vp()
        _check(lib().ca_graph_copy(ctypes.byref(h), self.handle))
        return Graph(h.value)

    def __deepcopy__(self, memo):
        new = self.__copy__()
        memo[id(self)] = new
        return new

    def __reduce__(self):
        from . import _serialize
        return (_serialize.load_graph, _serialize.dumps_graph(self))

    def __del__(self):
        if getattr(self, "_h", None):
            try:
                lib().ca_graph_free(self._h)
            except Exception:
                pass
            self._h = None

    @property
    def handle(self):
        """The native ``ca_graph_t*``, borrowed: valid while this object lives.
        """
        return self._h

    def __len__(self):
        return lib().ca_graph_num_tasks(self._h)

    @property
    def num_layers(self):
        """The number of layers.
        """
        return lib().ca_graph_num_layers(self._h)

    def layers(self):
        """The layer names, in insertion order.

        Returns
        -------
        list of str
            The names.
        """
        h = c_vp()
        _check(lib().ca_graph_layers(ctypes.byref(h), self._h))
        L = lib()
        try:
            out = []
            for i in range(L.ca_keylist_size(h.value)):
                k = C.Key()
                _check(L.ca_keylist_get(h.value, i, ctypes.byref(k)))
                out.append(k.name.decode())
            return out
        finally:
            L.ca_keylist_free(h.value)

    def to_dot(self):
        """The graph as Graphviz dot text.

        Returns
        -------
        str
            The dot source.
        """
        out = c_vp()
        _check(lib().ca_graph_to_dot(ctypes.byref(out), self._h, None, 0))
        try:
            return ctypes.string_at(out.value).decode()
        finally:
            lib().ca_string_free(out.value)

    def visualize(self, filename="mydask", format=None):
        """Render the graph with Graphviz (as :meth:`Array.visualize`).

        Parameters
        ----------
        filename : str or os.PathLike or None, default "mydask"
            The file; its extension picks the format. None returns the bytes.
        format : str, optional
            ``"png"`` (default), ``"svg"``, ``"pdf"``, ``"jpg"`` or ``"dot"``, when ``filename`` has
            no extension.

        Returns
        -------
        str or bytes
            The path written, or the rendered bytes.
        """
        return _visualize(self.to_dot(), filename, format)

    def save(self, path, context=None):
        """Save the graph to a graph file (``ca_save``).

        Parameters
        ----------
        path : str or os.PathLike
            The file.
        context : Context, optional
            Record the versions of the kernels registered there (see :meth:`Array.save`).
        """
        save_file(path, graph=self._h, context=context)

    def kernel_version(self, kernel):
        """The version of a kernel the graph records (from the file it was loaded from).

        Parameters
        ----------
        kernel : str
            The kernel's name.

        Returns
        -------
        int
            The version, 0 if none is recorded.

        Raises
        ------
        NotFoundError
            No task calls the kernel.
        ChunkArrayError
            ``CA_EVERSION``: layers record different versions.
        """
        v = ctypes.c_int32()
        _check(lib_call("ca_graph_kernel_version", ctypes.byref(v), self._h, kernel.encode()))
        return v.value

    @staticmethod
    def load(path):
        """Load a graph file (``ca_load``).

        Parameters
        ----------
        path : str or os.PathLike
            The file.

        Returns
        -------
        Graph
            Its graph.
        """
        return Graph(load_handles(path=path, graph=True)[0])


def lib_call(name, *args):
    """Call an optional library function; UnsupportedError if the loaded library lacks it."""
    f = getattr(lib(), name, None)
    if f is None:
        raise UnsupportedError(-13, f"{name} is not in the loaded library")  # CA_EUNSUPPORTED
    return f(*args)


def save_file(path=None, graph=None, arrays=(), context=None):
    """ca_save of a graph handle or array handles to ``path``, or (path None) to bytes, returned.
    With a ``context``, the file records its kernel versions (its Python kernels registered first,
    as a compute would)."""
    if context is not None:
        context._sync_kernels()
    hs = (c_vp * max(1, len(arrays)))(*arrays)
    o = C.SaveOptions(ctypes.sizeof(C.SaveOptions), context.handle if context is not None else None,
                      str(path).encode() if path is not None else None, graph,
                      hs if graph is None else None, len(arrays) if graph is None else 0)
    if path is not None:
        _check(lib().ca_save(None, None, ctypes.byref(o)))
        return None
    data, size = c_vp(), ctypes.c_size_t()
    _check(lib().ca_save(ctypes.byref(data), ctypes.byref(size), ctypes.byref(o)))
    try:
        return ctypes.string_at(data.value, size.value) if size.value else b""
    finally:
        lib().ca_buffer_free(data)


def load_handles(path=None, data=None, graph=False):
    """ca_load of a file (path) or bytes (data): (graph handle or None, [new array references]).
    Graph handles are owned by the caller; the array references too (free with ca_array_free)."""
    o = C.LoadOptions(ctypes.sizeof(C.LoadOptions), str(path).encode() if path is not None else None,
                      ctypes.cast(ctypes.c_char_p(data), c_vp) if data is not None else None,
                      len(data) if data is not None else 0)
    g = c_vp()
    out = ctypes.POINTER(c_vp)()
    n = ctypes.c_size_t()
    if graph:
        _check(lib().ca_load(ctypes.byref(g), None, None, ctypes.byref(o)))
        return g.value, []
    _check(lib().ca_load(None, ctypes.byref(out), ctypes.byref(n), ctypes.byref(o)))
    try:
        return None, [lib().ca_array_retain(out[i]) for i in range(n.value)]
    finally:
        lib().ca_array_free_many(out, n.value)


def load(path):
    """Load an array saved with :meth:`Array.save` (``ca_load`` of a file holding one array).

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    Array
        The array.
    """
    _, hs = load_handles(path=path)
    if len(hs) != 1:
        for h in hs:
            lib().ca_array_free(h)
        if not hs:
            raise NotFoundError(-3, f"load: '{path}' holds no array (a graph file?)")  # CA_ENOTFOUND
        raise InvalidArgumentError(-1, f"load: '{path}' holds {len(hs)} arrays")  # CA_EINVAL
    return Array(hs[0])


# ------------------------------------------------------------------------------------------------
# Creation
# ------------------------------------------------------------------------------------------------

def _check_like(like, fname):
    """NEP 35's ``like=`` in a creation function: the reference decides the blocks' type. chunkarray's
    blocks are NumPy arrays, so a chunkarray array, a NumPy array or None is accepted; anything else
    (CuPy, sparse, ...) asks for another block type and is refused."""
    if like is None or isinstance(like, (Array, np.ndarray, np.generic)):
        return
    raise NotImplementedError(f"{fname}(like=<{type(like).__module__}.{type(like).__name__}>): chunkarray's blocks "
                              "are NumPy arrays; like= must be a chunkarray Array, a NumPy array or None")


def asarray(x, chunks="auto", dtype=None, *, like=None):
    """dask.array.asarray: a chunkarray Array from array-like data.

    Parameters
    ----------
    x : array_like or Array
        The data; an Array is returned as is (cast to ``dtype`` if given).
    chunks : str, int, tuple or dict, default "auto"
        As :func:`from_array`.
    dtype : numpy.dtype, optional
        Cast to this dtype.
    like : Array or numpy.ndarray, optional
        NEP 35: only NumPy-backed references are accepted (chunkarray's blocks are NumPy arrays).

    Returns
    -------
    Array
        The array.
    """
    _check_like(like, "asarray")
    if isinstance(x, Array):
        return x if dtype is None or np.dtype(dtype) == x.dtype else x.astype(dtype)
    if dtype is not None:
        x = np.asarray(x, dtype=dtype)
    return from_array(x, chunks=chunks)


def _is_lazy_source(x):
    """An array-like read block by block (shape, dtype and __getitem__), not an in-memory NumPy value."""
    return (not isinstance(x, (np.ndarray, np.generic, list, tuple)) and hasattr(x, "shape")
            and hasattr(x, "dtype") and hasattr(x, "__getitem__")
            and not type(x).__module__.startswith("pandas"))  # label-indexed: taken as values


def _from_h5py_dataset(x, chunks):
    """from_array of an h5py Dataset of a file opened read-only: the library's own HDF5 reader
    (ca_array_from_hdf5: parallel direct chunk reads, no Python per block), same chunks as dask's
    from_array(dset, chunks). None when that does not apply (then the generic lazy path reads it)."""
    if type(x).__name__ != "Dataset" or not type(x).__module__.startswith("h5py"):
        return None
    try:
        f = x.file
        if f.mode != "r" or f.driver != "sec2" or not os.path.isfile(f.filename):
            return None
        if isinstance(chunks, dict):  # normalize_chunks' meaning: axes not named are whole
            nd = len(x.shape)
            chunks = tuple(chunks.get(i, chunks.get(i - nd, -1)) for i in range(nd))
        if isinstance(chunks, tuple):  # normalize_chunks' meaning: None is the whole axis
            chunks = tuple(-1 if c is None else c for c in chunks)
        if isinstance(chunks, str):
            spec = chunks
        elif isinstance(chunks, (int, tuple)) and not isinstance(chunks, bool):
            spec = repr(chunks)
        else:
            return None
        return Array._new(lib().ca_array_from_hdf5, os.fsencode(f.filename), x.name.encode(), spec.encode())
    except ChunkArrayError:
        return None  # a dtype, chunk request or build (no HDF5) the library does not take: read through h5py


@_keeps_0d
def from_array(x, chunks="auto", name=None, lock=False, asarray=None, fancy=True, getitem=None, meta=None,
               inline_array=False):
    """dask.array.from_array: a chunked array over ``x``.

    A NumPy array (or anything else ``np.asarray`` takes: lists, scalars) is copied into the graph
    now; as in dask, the array's name is then a token of its contents. Any other array-like with
    ``shape``, ``dtype`` and ``__getitem__`` (zarr, h5py, netCDF variables, xarray's lazy backend
    arrays) is read lazily: computing runs one ``x[slices]`` per block. An h5py Dataset of a file
    opened read-only is read by the library itself instead (as :func:`from_hdf5`: parallel chunk
    reads, no Python per block), with the same chunks.

    Parameters
    ----------
    x : array_like
        The data or a lazily read array-like.
    chunks : str, int, tuple or dict, default "auto"
        Block sizes (:func:`normalize_chunks`); ``"auto"`` follows ``x.chunks`` where it has them.
    name : str or False, optional
        A string names a lazily read array (dask's semantics: equal names mean equal data);
        ``False`` gives a fresh name without hashing the data.
    lock : bool or lock, default False
        True for a new lock shared by the block reads, or any lock object, held around each read.
    asarray : bool, optional
        Whether ``np.asarray`` is applied to each read under the lock (default: when ``x`` has no
        ``__array_function__``).
    fancy : bool, default True
        dask's; chunkarray reads every block with slices, so any value is safe.
    getitem : callable, optional
        ``getitem(x, slices)`` reads a block (dask's getter); ``x`` is then always read lazily.
    meta : numpy.ndarray, optional
        Only NumPy's (the blocks are NumPy arrays).
    inline_array : bool, default False
        dask's; both values give the same graph here.

    Returns
    -------
    Array
        The array.
    """
    if isinstance(x, Array):
        return x.rechunk(chunks) if chunks != "auto" else x
    if getitem is not None:
        if not callable(getitem):
            raise TypeError(f"from_array(getitem=...) must be callable, got {type(getitem).__name__}")
        if not (hasattr(x, "shape") and hasattr(x, "dtype")):
            x = np.asarray(x)
        return _from_array_lazy(x, chunks, name, lock, asarray, getitem=getitem)
    if meta is not None and not (meta is np.ndarray or isinstance(meta, np.ndarray)
                                 or (isinstance(meta, type) and issubclass(meta, np.ndarray))):
        raise NotImplementedError(f"from_array(meta={meta!r}): chunkarray blocks are NumPy arrays")
    if _is_lazy_source(x):
        if name is None and asarray is None:
            a = _from_h5py_dataset(x, chunks)
            if a is not None:
                return a
        return _from_array_lazy(x, chunks, name, lock, asarray)
    x = np.asarray(x)
    if not x.flags.c_contiguous:
        x = x.copy(order="C")
    if x.dtype.byteorder == ">":
        x = x.astype(x.dtype.newbyteorder("="))
    dt = _ca_dtype(x.dtype)
    if _is_explicit(chunks) and x.ndim:
        ch = normalize_chunks(chunks)
    else:
        ch = normalize_chunks(chunks, x.shape, dtype=x.dtype)
    st, keep = _chunks_struct(ch)
    opts = C.BufferOptions(ctypes.sizeof(C.BufferOptions), C.BUFFER_COPY | (C.BUFFER_UNIQUE_NAME if name is False else 0))
    return Array._new(lib().ca_array_from_buffer, x.ctypes.data if x.nbytes else None, dt, x.ndim,
                      _i64arr(x.shape), ctypes.byref(st), ctypes.byref(opts))


def _from_array_lazy(x, chunks, name, lock, asarray, getitem=None):
    from ._slicing import materialize
    shape = tuple(int(s) for s in x.shape)
    dt = np.dtype(x.dtype)
    native = dt.newbyteorder("=") if dt.byteorder not in ("=", "|") else dt
    _ca_dtype(native)  # unsupported dtypes fail now, not at compute
    prev = getattr(x, "chunks", None)
    if not (isinstance(prev, tuple) and len(prev) == len(shape)
            and all(isinstance(c, (numbers.Integral, tuple)) for c in prev)):
        prev = None
    if _is_explicit(chunks) and shape:
        ch = normalize_chunks(chunks)
    elif prev is not None and (chunks is None or (isinstance(chunks, str) and chunks == "auto")):
        ch = normalize_chunks(tuple(None for _ in shape), shape, dtype=native, previous_chunks=prev)
    else:
        ch = normalize_chunks(chunks, shape, dtype=native, previous_chunks=prev)
    if any(sum(c) != s for c, s in zip(ch, shape)):
        raise InvalidArgumentError(-1, f"from_array: chunks {ch} do not add up to shape {shape}")
    if lock is True:
        lock = _callables.SerializableLock()
    elif lock is False:
        lock = None
    if getitem is not None:
        kname = _py_kernel(_callables.CustomGetterCall(x, getitem, lock, asarray), "from_array", native)
    else:
        if asarray is None:
            asarray = not hasattr(x, "__array_function__")
        kname = _py_kernel(_callables.GetterCall(x, lock, bool(asarray)), "from_array", native)
    if not isinstance(name, str) or not name:
        name = f"array-{os.urandom(16).hex()}"
    starts = [np.cumsum((0,) + tuple(c)) for c in ch]
    tasks = []
    for idx in np.ndindex(*[len(c) for c in ch]):
        idx = tuple(int(i) for i in idx)
        sl = [slice(int(st[i]), int(st[i + 1])) for st, i in zip(starts, idx)]
        tasks.append((name, idx, kname, sl))
    return materialize([], name, ch, native, tasks)


def _shape_chunks(shape, chunks, dtype):
    if isinstance(shape, (numbers.Integral, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    ch = normalize_chunks(chunks, shape, dtype=dtype)
    st, keep = _chunks_struct(ch)
    return shape, st, keep


@_keeps_0d
def full(shape, fill_value, chunks="auto", dtype=None, *, like=None):
    """An array filled with ``fill_value`` (``numpy.full``).

    Parameters
    ----------
    shape : int or tuple of int
        The shape.
    fill_value : scalar
        The value.
    chunks : str, int, tuple or dict, default "auto"
        Block sizes (:func:`normalize_chunks`).
    dtype : numpy.dtype, optional
        The dtype (default: ``fill_value``'s).
    like : Array or numpy.ndarray, optional
        NEP 35 reference (NumPy-backed only).

    Returns
    -------
    Array
        The array.
    """
    _check_like(like, "full")
    if dtype is None:
        dtype = np.array(fill_value).dtype
    dtype = np.dtype(dtype)
    if dtype.kind in "MmSU":
        # Ticks and strings are exact: a 0-d array broadcast (the C full takes a double).
        from ._shape import broadcast_to
        shape = (int(shape),) if isinstance(shape, (numbers.Integral, np.integer)) else tuple(int(s) for s in shape)
        ch = normalize_chunks(chunks, shape, dtype=dtype)
        return broadcast_to(from_array(np.array(fill_value).astype(dtype)), shape, chunks=ch)
    shape, st, keep = _shape_chunks(shape, chunks, dtype)
    if (isinstance(fill_value, (numbers.Integral, np.integer)) and not isinstance(fill_value, (bool, np.bool_))
            and dtype.kind in "iubf"):
        # an integer exactly (ca_array_full_int64/_uint64: not through a double, so 2**53 + 1 stays);
        # a value the integer dtype does not hold keeps NumPy's wrap-around below
        v = int(fill_value)
        lo, hi = (int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)) if dtype.kind in "iu" else (-2**63, 2**64 - 1)
        if lo <= v <= hi:
            fn = lib().ca_array_full_int64 if v < 2**63 else lib().ca_array_full_uint64
            return Array._new(fn, len(shape), _i64arr(shape), ctypes.byref(st), _ca_dtype(dtype), v)
    v = complex(fill_value)
    return Array._new(lib().ca_array_full, len(shape), _i64arr(shape), ctypes.byref(st), _ca_dtype(dtype),
                      v.real, v.imag)


@_keeps_0d
def zeros(shape, chunks="auto", dtype=float, *, like=None):
    """An array of zeros (``numpy.zeros``).

    Parameters
    ----------
    shape : int or tuple of int
        The shape.
    chunks : str, int, tuple or dict, default "auto"
        Block sizes (:func:`normalize_chunks`).
    dtype : numpy.dtype, default float
        The dtype.
    like : Array or numpy.ndarray, optional
        NEP 35 reference (NumPy-backed only).

    Returns
    -------
    Array
        The array.
    """
    _check_like(like, "zeros")
    shape, st, keep = _shape_chunks(shape, chunks, dtype)
    return Array._new(lib().ca_array_zeros, len(shape), _i64arr(shape), ctypes.byref(st), _ca_dtype(dtype))


@_keeps_0d
def ones(shape, chunks="auto", dtype=float, *, like=None):
    """An array of ones (``numpy.ones``).

    Parameters
    ----------
    shape : int or tuple of int
        The shape.
    chunks : str, int, tuple or dict, default "auto"
        Block sizes (:func:`normalize_chunks`).
    dtype : numpy.dtype, default float
        The dtype.
    like : Array or numpy.ndarray, optional
        NEP 35 reference (NumPy-backed only).

    Returns
    -------
    Array
        The array.
    """
    _check_like(like, "ones")
    shape, st, keep = _shape_chunks(shape, chunks, dtype)
    return Array._new(lib().ca_array_ones, len(shape), _i64arr(shape), ctypes.byref(st), _ca_dtype(dtype))


@_keeps_0d
def empty(shape, chunks="auto", dtype=float, *, like=None):
    """An array of uninitialized values (``numpy.empty``).

    Parameters
    ----------
    shape : int or tuple of int
        The shape.
    chunks : str, int, tuple or dict, default "auto"
        Block sizes (:func:`normalize_chunks`).
    dtype : numpy.dtype, default float
        The dtype.
    like : Array or numpy.ndarray, optional
        NEP 35 reference (NumPy-backed only).

    Returns
    -------
    Array
        The array.
    """
    _check_like(like, "empty")
    shape, st, keep = _shape_chunks(shape, chunks, dtype)
    return Array._new(lib().ca_array_empty, len(shape), _i64arr(shape), ctypes.byref(st), _ca_dtype(dtype))


def arange(start, stop=None, step=1, chunks="auto", dtype=None, *, like=None):
    """Evenly spaced values in ``[start, stop)`` (``numpy.arange``).

    Parameters
    ----------
    start : number
        The first value (or ``stop`` when ``stop`` is None, starting at 0).
    stop : number, optional
        The end (excluded).
    step : number, default 1
        The spacing.
    chunks : str, int, tuple or dict, default "auto"
        Block sizes.
    dtype : numpy.dtype, optional
        The dtype (default: NumPy's for the arguments).
    like : Array or numpy.ndarray, optional
        NEP 35 reference (NumPy-backed only).

    Returns
    -------
    Array
        1-d.
    """
    _check_like(like, "arange")
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        dtype = np.array([start, stop, step]).dtype
    n = max(0, int(np.ceil((stop - start) / step)))
    ch = normalize_chunks(chunks, (n,), dtype=dtype)
    st, keep = _chunks_struct(ch)
    return Array._new(lib().ca_array_arange, float(start), float(stop), float(step), ctypes.byref(st),
                      _ca_dtype(dtype))


def linspace(start, stop, num=50, endpoint=True, chunks="auto", dtype=float, *, like=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` (``numpy.linspace``).

    Parameters
    ----------
    start, stop : float
        The ends.
    num : int, default 50
        The number of values.
    endpoint : bool, default True
        Whether ``stop`` is included.
    chunks : str, int, tuple or dict, default "auto"
        Block sizes.
    dtype : numpy.dtype, default float
        The dtype.
    like : Array or numpy.ndarray, optional
        NEP 35 reference (NumPy-backed only).

    Returns
    -------
    Array
        1-d.
    """
    _check_like(like, "linspace")
    ch = normalize_chunks(chunks, (int(num),), dtype=dtype)
    st, keep = _chunks_struct(ch)
    return Array._new(lib().ca_array_linspace, float(start), float(stop), int(num), bool(endpoint),
                      ctypes.byref(st), _ca_dtype(dtype))


def eye(N, M=None, k=0, chunks="auto", dtype=float, *, like=None):
    """Ones on the ``k``-th diagonal, zeros elsewhere (``numpy.eye``).

    Parameters
    ----------
    N : int
        Rows.
    M : int, optional
        Columns (default ``N``).
    k : int, default 0
        The diagonal: 0 the main one, positive above, negative below.
    chunks : str, int, tuple or dict, default "auto"
        Block sizes.
    dtype : numpy.dtype, default float
        The dtype.
    like : Array or numpy.ndarray, optional
        NEP 35 reference (NumPy-backed only).

    Returns
    -------
    Array
        2-d, ``(N, M)``.
    """
    _check_like(like, "eye")
    M = N if M is None else M
    ch = normalize_chunks(chunks, (N, M), dtype=dtype)
    st, keep = _chunks_struct(ch)
    return Array._new(lib().ca_array_eye, int(N), int(M), int(k), ctypes.byref(st), _ca_dtype(dtype))


def tri(N, M=None, k=0, chunks="auto", dtype=float, *, like=None):
    """Ones at and below the ``k``-th diagonal, zeros above (``numpy.tri``).

    Parameters
    ----------
    N : int
        Rows.
    M : int, optional
        Columns (default ``N``).
    k : int, default 0
        The diagonal: 0 the main one, positive above, negative below.
    chunks : str, int, tuple or dict, default "auto"
        Block sizes.
    dtype : numpy.dtype, default float
        The dtype.
    like : Array or numpy.ndarray, optional
        NEP 35 reference (NumPy-backed only).

    Returns
    -------
    Array
        2-d, ``(N, M)``.
    """
    _check_like(like, "tri")
    M = N if M is None else M
    ch = normalize_chunks(chunks, (N, M), dtype=dtype)
    st, keep = _chunks_struct(ch)
    return Array._new(lib().ca_array_tri, int(N), int(M), int(k), ctypes.byref(st), _ca_dtype(dtype))


def diag(v, k=0):
    """Extract a diagonal of a 2-d array, or build a 2-d array with a 1-d one on the diagonal.

    Parameters
    ----------
    v : Array or array_like
        1-d or 2-d.
    k : int, default 0
        The diagonal.

    Returns
    -------
    Array
        1-d for a 2-d input, 2-d for a 1-d input (``numpy.diag``).
    """
    return Array._new(lib().ca_array_diag, asarray(v), int(k))


def from_npy(path, chunks=None):
    """An array read from a ``.npy`` file, block by block at compute time.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    chunks : str, int, tuple or dict, optional
        Block sizes (default ``"auto"``).

    Returns
    -------
    Array
        The array.
    """
    if chunks is None:
        return Array._new(lib().ca_array_from_npy, str(path).encode(), None)
    shape = np.load(path, mmap_mode="r").shape
    dt = np.load(path, mmap_mode="r").dtype
    st, keep = _chunks_struct(normalize_chunks(chunks, shape, dtype=dt))
    return Array._new(lib().ca_array_from_npy, str(path).encode(), ctypes.byref(st))


def from_zarr(path, chunks=None):
    """An array read from a Zarr v2 store, chunk by chunk at compute time.

    Parameters
    ----------
    path : str or os.PathLike
        The store's directory.
    chunks : str, int, tuple or dict, optional
        Block sizes (default: the store's chunks).

    Returns
    -------
    Array
        The array.
    """
    if chunks is not None:
        raise NotImplementedError("from_zarr(chunks=...): rechunk the result instead")
    return Array._new(lib().ca_array_from_zarr, str(path).encode(), None)


# ------------------------------------------------------------------------------------------------
# Functions
# ------------------------------------------------------------------------------------------------

def compute(*args, ctx=None, progress=None):
    """Compute several arrays in one pass over their merged graph (dask.compute).

    Shared work runs once.

    Parameters
    ----------
    *args
        Arrays, and other values that are returned unchanged.
    ctx : Context, optional
        Where to run; default :func:`default_context`.
    progress : bool or callable, optional
        True draws a terminal progress bar (stderr); a callable gets ``progress(done, total)``.

    Returns
    -------
    tuple
        One value per argument: NumPy arrays (NumPy scalars for 0-d results, as
        :meth:`Array.compute`) in place of the arrays.
    """
    arrays = [a for a in args if isinstance(a, Array)]
    results = {}
    if arrays:
        ctx = ctx or default_context()
        ctx._sync_kernels()
        n = len(arrays)
        outs = (c_vp * n)()
        ins = (c_vp * n)(*[a._h for a in arrays])
        opts, keep = _compute_options(progress)
        _check(lib().ca_array_compute_many(outs, ctx.handle, ins, n, opts))
        blocks = [outs[i] for i in range(n)]
        for a, b in zip(arrays, blocks):
            results[id(a)] = _scalar_result(a, _block_to_numpy(b))
    return tuple(results[id(a)] if isinstance(a, Array) else a for a in args)


def persist(*args, ctx=None):
    """Persist several arrays (:meth:`Array.persist` on each; other values unchanged).

    Parameters
    ----------
    *args
        Arrays and other values.
    ctx : Context, optional
        Where to run.

    Returns
    -------
    tuple
        One value per argument.
    """
    return tuple(a.persist(ctx) if isinstance(a, Array) else a for a in args)


def rechunk(x, chunks="auto", **kwargs):
    """Change the block sizes of ``x`` (dask's rechunk).

    Parameters
    ----------
    x : Array or array_like
        The array.
    chunks : str, int, tuple or dict, default "auto"
        The new chunks.
    **kwargs
        As :meth:`Array.rechunk`.

    Returns
    -------
    Array
        The rechunked array.
    """
    return asarray(x).rechunk(chunks, **kwargs)


def transpose(a, axes=None):
    """Permute the axes (``numpy.transpose``).

    Parameters
    ----------
    a : Array or array_like
        The array.
    axes : tuple of int, optional
        The new order; None reverses the axes.

    Returns
    -------
    Array
        The transposed array.
    """
    from ._shape import transpose as t
    return t(a, axes)


def _infer_dtype(func, arrays, args, kwargs, default):
    try:
        metas = [np.ones((1,) * a.ndim, a.dtype) if isinstance(a, Array) else a for a in arrays]
        return np.asarray(func(*metas, *args, **kwargs)).dtype
    except Exception:
        return default


def elemwise(func, *args, dtype=None):
    """A Python function applied elementwise, block by block with NumPy broadcasting.

    Parameters
    ----------
    func : callable
        Called with the broadcast blocks (NumPy arrays) and scalar arguments.
    *args
        Arrays and scalars.
    dtype : numpy.dtype, optional
        The result's dtype (default: inferred by calling ``func`` on small arrays).

    Returns
    -------
    Array
        The lazy result.
    """
    arrs = [asarray(a) for a in args if not _is_scalar(a)]
    nd = max(a.ndim for a in arrs)
    letters = _letters(nd)
    pairs = []
    for a in args:
        if _is_scalar(a):
            pairs += [a, None]
        else:
            a = asarray(a)
            pairs += [a, letters[nd - a.ndim:]]
    if dtype is None:
        dtype = _infer_dtype(func, [np.ones((1,) * asarray(a).ndim, asarray(a).dtype) if not _is_scalar(a) else a
                                    for a in args], (), {}, arrs[0].dtype)
    return blockwise(func, letters, *pairs, dtype=dtype, name=getattr(func, "__name__", "elemwise"))


def _kernel_name(func, prefix, dtype=None, wrap=None):
    """A kernel name for a C kernel name, a Kernel-like object with .name, or a Python callable."""
    if isinstance(func, str):
        return func, False
    if hasattr(func, "name") and isinstance(getattr(func, "name"), str) and not callable(func):
        return func.name, False
    if callable(func):
        return _py_kernel(wrap or func, prefix, dtype), True
    raise TypeError(f"a kernel is a C kernel name or a Python callable, not {func!r}")


def map_blocks(func, *args, dtype=None, chunks=None, drop_axis=None, new_axis=None, name=None,
               meta=None, **kwargs):
    """dask's map_blocks: ``func`` on each block of the array arguments.

    Parameters
    ----------
    func : callable or str
        A Python callable, called with NumPy blocks, the other arguments and ``kwargs`` (it may take
        ``block_id`` and ``block_info``), or the name of a registered kernel (then the non-array
        arguments are literals after the blocks).
    *args
        Arrays (aligned block by block) and other arguments.
    dtype : numpy.dtype, optional
        The result's dtype (default: inferred).
    chunks : tuple, optional
        The result's chunks when they differ from the input's.
    drop_axis : int or tuple of int, optional
        Input axes the function removes.
    new_axis : int or tuple of int, optional
        Axes the function adds.
    name : str, optional
        The result's name prefix.
    meta : numpy.ndarray, optional
        Only NumPy's.
    **kwargs
        Passed to ``func``.

    Returns
    -------
    Array
        The lazy result.
    """
    arrays = [a for a in args if isinstance(a, Array)]
    if not arrays:
        raise ValueError("map_blocks needs at least one chunkarray.Array argument")
    drop = sorted(_axes(drop_axis, arrays[0].ndim)) if drop_axis is not None else []
    if new_axis is not None:
        new = [new_axis] if isinstance(new_axis, numbers.Integral) else list(new_axis)
    else:
        new = []
    wants_info = False
    if callable(func) and not isinstance(func, str):
        try:
            params = inspect.signature(func).parameters
            wants_info = "block_id" in params or "block_info" in params
        except (TypeError, ValueError):
            params = {}
        if dtype is None:
            dtype = _infer_dtype(func, arrays, [a for a in args if not isinstance(a, Array)], kwargs,
                                 arrays[0].dtype) if not wants_info and not drop and not new else arrays[0].dtype
    if dtype is None:
        dtype = arrays[0].dtype
    dtype = np.dtype(dtype)

    positions = [i for i, a in enumerate(args) if isinstance(a, Array)]
    # the kernel outlives this call: it must not keep the input arrays (and their graphs) alive
    lits = [None if isinstance(a, Array) else a for a in args]
    call = None
    if callable(func) and not isinstance(func, str):
        call = _callables.MapBlocksCall(func, lits, positions, kwargs, wants_info and "block_id" in params,
                                        wants_info and "block_info" in params, dtype)

    if isinstance(func, str) or not callable(func):
        kname, _ = _kernel_name(func, "map_blocks")
        extra = [a for a in args if not isinstance(a, Array)]
        if kwargs:
            raise TypeError("keyword arguments are only for Python callables, not C kernels")
    else:
        kname = _py_kernel(call, "map_blocks." + getattr(func, "__name__", "fn"), dtype)
        extra = []
    out_nd = max(a.ndim for a in arrays) - len(drop) + len(new)
    st = None
    keep = None
    if chunks is not None:
        if _is_explicit(chunks):
            ch = tuple(tuple(c) for c in chunks)
        else:
            # one size per block along each axis (dask's chunks=(2, 3)): repeated over the blocks
            base = [len(c) for i, c in enumerate(arrays[0].chunks) if i not in drop]
            for ax in sorted(a % out_nd for a in new):
                base.insert(ax, 1)
            if len(chunks) != out_nd:
                raise InvalidArgumentError(-1, f"map_blocks: chunks {chunks} has {len(chunks)} entries, the "
                                           f"output has {out_nd} dimensions")
            ch = tuple((int(c),) * n for c, n in zip(chunks, base))
        st, keep = _chunks_struct(ch)
    ab = _ArgBuilder()
    ex = ab.array(extra)
    da = _i32arr(drop)
    na = _i32arr(new)
    opts = C.MapBlocksOptions(ctypes.sizeof(C.MapBlocksOptions), _ca_dtype(dtype),
                              ctypes.pointer(st) if st is not None else None, da, len(drop), na, len(new),
                              1 if wants_info else 0, (name or "").encode() or None)
    ins = (c_vp * len(arrays))(*[a._h for a in arrays])
    out = Array._new(lib().ca_array_map_blocks, kname.encode(), ins, len(arrays), ex, len(extra),
                     ctypes.byref(opts))
    if call is not None:
        call.chunks = out.chunks
    del keep
    return out


def blockwise(func, out_ind, *args, dtype=None, new_axes=None, concatenate=None, align_arrays=True,
              adjust_chunks=None, name=None, meta=None, **kwargs):
    """dask's blockwise: ``blockwise(func, out_ind, arr1, ind1, arr2, ind2, ...)``.

    Parameters
    ----------
    func : callable or str
        A Python callable or a registered kernel name.
    out_ind : str or tuple
        The output's index letters.
    *args
        Pairs of an array (or literal) and its index (None marks a literal).
    dtype : numpy.dtype, optional
        The result's dtype.
    new_axes : dict, optional
        ``{letter: size}`` for letters no input has.
    concatenate : bool, optional
        Concatenate the blocks along contracted letters before calling ``func``.
    align_arrays : bool, default True
        Rechunk the inputs to common chunks along shared letters.
    adjust_chunks : dict, optional
        ``{letter: size, tuple or callable}`` changing output block sizes.
    name : str, optional
        The result's name.
    meta : numpy.ndarray, optional
        Only NumPy's.
    **kwargs
        Passed to ``func``.

    Returns
    -------
    Array
        The lazy result.
    """
    if len(args) % 2:
        raise ValueError("blockwise arguments come in (array, index) pairs")
    symbols = {}

    def letters_of(ind):
        out = ""
        for s in ind:
            if s not in symbols:
                symbols[s] = _letters(len(symbols) + 1)[-1]
            out += symbols[s]
        return out

    out_letters = letters_of(out_ind)
    pairs = []
    for i in range(0, len(args), 2):
        a, ind = args[i], args[i + 1]
        if ind is None:
            pairs.append((a, None))
        else:
            pairs.append((asarray(a), letters_of(ind)))
    arrays = [a for a, ind in pairs if ind is not None]
    if dtype is None:
        dtype = arrays[0].dtype if arrays else np.float64
    dtype = np.dtype(dtype)
    new_axes = dict(new_axes or {})
    nl = "".join(letters_of([k]) for k in new_axes)
    nls = []
    for key, v in new_axes.items():
        if isinstance(v, numbers.Integral):
            nls.append(int(v))
        elif len(tuple(v)) == 1:  # dask also takes the new axis's chunks: one chunk is its size
            nls.append(int(tuple(v)[0]))
        else:
            raise NotImplementedError(f"blockwise: new axis {key!r} with chunks {tuple(v)}: a new axis is one "
                                      "block here (rechunk the result)")
    py = callable(func) and not isinstance(func, str)
    if py:
        positions = [i for i, (a, ind) in enumerate(pairs) if ind is not None]
        lits = [None if ind is not None else a for a, ind in pairs]  # no references to the input arrays
        call = _callables.BlockwiseCall(func, lits, positions, kwargs)
        kname = _py_kernel(call, "blockwise." + getattr(func, "__name__", "fn"), dtype)
    else:
        kname, _ = _kernel_name(func, "blockwise")
    ab = _ArgBuilder()
    cargs = (C.ArrayArg * max(1, len(pairs)))()
    k = 0
    for a, ind in pairs:
        if ind is not None:
            cargs[k].array, cargs[k].index = a._h, ind.encode()
            k += 1
        elif not py:
            cargs[k].array, cargs[k].literal = None, ab.arg(a)
            k += 1
    nsz = _i64arr(nls)
    if concatenate is None:
        concatenate = py
    opts = C.BlockwiseArrayOptions(ctypes.sizeof(C.BlockwiseArrayOptions), nl.encode() if nl else None,
                                   nsz if nl else None, None, 1 if concatenate else 0, 1 if align_arrays else 0,
                                   (name or "").encode() or None)
    out = Array._new(lib().ca_array_blockwise, kname.encode(), out_letters.encode(), cargs, k, _ca_dtype(dtype),
                     ctypes.byref(opts))
    if adjust_chunks:
        ch = list(out.chunks)
        for key, adj in adjust_chunks.items():
            d = out_letters.index(letters_of([key]))
            if callable(adj):
                ch[d] = tuple(int(adj(c)) for c in ch[d])
            elif isinstance(adj, numbers.Integral):
                ch[d] = (int(adj),) * len(ch[d])
            else:
                ch[d] = tuple(int(c) for c in adj)
        st, keep = _chunks_struct(tuple(ch))
        opts.chunks = ctypes.pointer(st)
        out = Array._new(lib().ca_array_blockwise, kname.encode(), out_letters.encode(), cargs, k,
                         _ca_dtype(dtype), ctypes.byref(opts))
    return out


_concat_nested = _callables.concat_nested


def reduction(x, chunk, aggregate, axis=None, keepdims=False, dtype=None, split_every=None, combine=None,
              concatenate=True, name=None, **kwargs):
    """dask's reduction: a custom tree reduction from chunk, combine and aggregate steps.

    Parameters
    ----------
    x : Array
        The input.
    chunk : callable or str
        ``chunk(block, axis=, keepdims=True)`` on each block.
    aggregate : callable or str
        ``aggregate(partials, axis=, keepdims=)``: the final step.
    axis : int or tuple of int, optional
        The axes to reduce (None: all).
    keepdims : bool, default False
        Keep the reduced axes with length 1.
    dtype : numpy.dtype, optional
        The result's dtype.
    split_every : int or dict, optional
        Partial results combined per step.
    combine : callable or str, optional
        ``combine(partials, axis=, keepdims=True)`` for the intermediate steps (default ``aggregate``).
    concatenate : bool, default True
        Partials arrive concatenated along the reduced axes.
    name : str, optional
        The result's name.
    **kwargs
        Passed to the steps.

    Returns
    -------
    Array
        The lazy reduction.
    """
    x = asarray(x)
    axes = _axes(axis, x.ndim) or tuple(range(x.ndim))
    if dtype is None:
        dtype = x.dtype
    dtype = np.dtype(dtype)
    saxes = sorted(axes)

    def wrap(f, is_chunk):
        if isinstance(f, str) or f is None:
            return f
        if is_chunk:
            return _callables.ReductionChunk(f, saxes, kwargs)
        return _callables.ReductionCombine(f, saxes, concatenate, kwargs)

    names = []
    for f, is_chunk, what in ((chunk, True, "chunk"), (combine, False, "combine"), (aggregate, False, "aggregate")):
        w = wrap(f, is_chunk)
        if w is None or isinstance(w, str):
            names.append(w)
        else:
            names.append(_py_kernel(w, "reduction." + what, dtype if what == "aggregate" else None))
    arr = _i32arr(saxes)
    opts = C.ReductionOptions(ctypes.sizeof(C.ReductionOptions), int(split_every or 0),
                              names[1].encode() if names[1] else None, _ca_dtype(dtype))
    return Array._new(lib().ca_array_reduction, x._h, names[0].encode(), names[2].encode(), arr, len(saxes),
                      int(bool(keepdims)), ctypes.byref(opts))


def unify_chunks(*args, **kwargs):
    """dask's unify_chunks: rechunk arrays to common chunks along shared index letters.

    Parameters
    ----------
    *args
        Pairs ``arr1, ind1, arr2, ind2, ...``.
    **kwargs
        Accepted for dask's signature.

    Returns
    -------
    chunkss : dict
        ``{letter: chunks}``.
    arrays : list of Array
        The rechunked arrays.
    """
    pairs = [(args[i], args[i + 1]) for i in range(0, len(args), 2)]
    arrs = [(asarray(a), "".join(str(s) if len(str(s)) == 1 else "?" for s in ind)) for a, ind in pairs
            if ind is not None]
    sym = {}
    for a, ind in pairs:
        if ind is not None:
            for s in ind:
                sym.setdefault(s, _letters(len(sym) + 1)[-1])
    letters = ["".join(sym[s] for s in ind) for a, ind in pairs if ind is not None]
    n = len(arrs)
    outs = (c_vp * max(1, n))()
    ins = (c_vp * max(1, n))(*[a._h for a, _ in arrs])
    inds = (ctypes.c_char_p * max(1, n))(*[s.encode() for s in letters])
    _check(lib().ca_unify_chunks(outs, ins, inds, n))
    result = [Array(outs[i]) for i in range(n)]
    chunkss = {}
    it = iter(result)
    out_arrays = []
    for a, ind in pairs:
        if ind is None:
            out_arrays.append(a)
            continue
        r = next(it)
        out_arrays.append(r)
        for s, c in zip(ind, r.chunks):
            chunkss.setdefault(s, c)
    return chunkss, out_arrays


def store(sources, targets, lock=None, regions=None, compute=True, comm=None, **kwargs):
    """dask's store: write each source block into ``target[region]`` as it is computed.

    Parameters
    ----------
    sources : Array or sequence of Array
        The arrays.
    targets : array-like or sequence
        Objects supporting ``target[slices] = block`` (NumPy arrays, zarr arrays, h5py datasets).
    lock : bool or lock, optional
        Held around each write (True: a new lock).
    regions : tuple of slices or sequence, optional
        Where in each target the source goes.
    compute : bool, default True
        Write now; False is not supported lazily.
    comm : mpi4py communicator, optional
        Distributed: each rank writes the blocks it computed into its own ``targets``.
    **kwargs
        Accepted for dask's signature.

    Returns
    -------
    None
        The data is in the targets.
    """
    if isinstance(sources, Array):
        sources, targets = [sources], [targets]
    if len(sources) != len(targets):
        raise ValueError(f"store: {len(sources)} sources but {len(targets)} targets")
    regions = regions if isinstance(regions, (list, tuple)) else [regions] * len(sources)
    lock = lock if lock not in (None, True, False) else threading.Lock()
    if comm is not None:
        if not compute:
            raise ValueError("store(comm=...) computes now: compute=False is not supported with comm")
        from . import mpi
        for src, tgt, reg in zip(sources, targets, regions):
            def write(block, idx, tgt=tgt, reg=reg):
                if reg is not None:
                    idx = tuple(slice((r.start or 0) + i.start, (r.start or 0) + i.stop) for r, i in zip(reg, idx))
                with lock:
                    tgt[idx] = block
            mpi.store(src, comm, write)
        return None
    writers = []
    for src, tgt, reg in zip(sources, targets, regions):
        starts = [np.cumsum((0,) + c) for c in src.chunks]

        def write(block, block_id=None, tgt=tgt, reg=reg, starts=starts):
            idx = tuple(slice(int(st[i]), int(st[i + 1])) for st, i in zip(starts, block_id))
            if reg is not None:
                idx = tuple(slice((r.start or 0) + i.start, (r.start or 0) + i.stop) for r, i in zip(reg, idx))
            with lock:
                tgt[idx] = block
            return np.zeros((0,) * block.ndim, dtype=block.dtype)
        writers.append(map_blocks(write, src, dtype=src.dtype, chunks=tuple((0,) * len(c) for c in src.chunks),
                                  name="store"))
    if not compute:
        return writers
    globals()["compute"](*writers)
    return None


def _parse_signature(signature):
    import re
    sig = signature.replace(" ", "")
    ins_s, outs_s = sig.split("->")
    parse = lambda t: [tuple(d for d in g.split(",") if d) for g in re.findall(r"\(([^()]*)\)", t)]  # noqa: E731
    return parse(ins_s), parse(outs_s)


def apply_gufunc(func, signature, *args, axes=None, axis=None, keepdims=False, output_dtypes=None,
                 output_sizes=None, vectorize=None, allow_rechunk=False, meta=None, **kwargs):
    """dask's apply_gufunc: a generalized ufunc over core dimensions.

    Parameters
    ----------
    func : callable
        Called on blocks holding whole core dimensions.
    signature : str
        The gufunc signature, such as ``"(i)->()"``.
    *args
        The inputs.
    axes : list of tuples, optional
        Core axes per argument.
    axis : int, optional
        The core axis when every input and output has one core dimension.
    keepdims : bool, default False
        Keep reduced core dimensions with length 1.
    output_dtypes : dtype or list of dtypes, optional
        The outputs' dtypes.
    output_sizes : dict, optional
        Sizes of core dimensions only outputs have.
    vectorize : bool, optional
        Wrap ``func`` in ``numpy.vectorize``.
    allow_rechunk : bool, default False
        Rechunk core dimensions into one block (else an error when they have several).
    meta : numpy.ndarray, optional
        Only NumPy's.
    **kwargs
        Passed to ``func``.

    Returns
    -------
    Array or tuple of Array
        One array per output.
    """
    L = lib()
    in_cores, out_cores = _parse_signature(signature)
    nin = ctypes.c_int32()
    nout = ctypes.c_int32()
    _check(L.ca_gufunc_signature_parse(signature.encode(), ctypes.byref(nin), ctypes.byref(nout)))
    nin, nout = nin.value, nout.value
    if len(args) != nin:
        raise ValueError(f"According to `signature`, `func` requires {nin} arguments, but {len(args)} given")
    arrays = [asarray(a) for a in args]
    f = np.vectorize(func, signature=signature) if vectorize else func
    if output_dtypes is None:
        sample = [np.ones((1,) * a.ndim, a.dtype) for a in arrays]
        try:
            res = f(*sample, **kwargs) if not axes and axis is None else None
        except Exception:
            res = None
        if res is None:
            output_dtypes = [np.result_type(*[a.dtype for a in arrays])] * nout
        else:
            output_dtypes = [np.asarray(r).dtype for r in (res if nout > 1 else (res,))]
    elif not isinstance(output_dtypes, (list, tuple)):
        output_dtypes = [output_dtypes]
    if len(output_dtypes) != nout:
        raise ValueError(f"apply_gufunc: {len(output_dtypes)} output dtypes for {nout} outputs")
    dts = (ctypes.c_int32 * nout)(*[_ca_dtype(d) for d in output_dtypes])
    call = _callables.GufuncCall(f, kwargs, nout != 1)
    kname = _py_kernel(call, "gufunc." + getattr(func, "__name__", "fn"))
    o = C.gufunc_options(output_dtypes=dts, keepdims=1 if keepdims else 0, allow_rechunk=1 if allow_rechunk else 0,
                         name=getattr(func, "__name__", "apply_gufunc").encode())
    keep = [dts]
    if axes is not None:
        flat, counts = [], []
        for ax in axes:
            ax = (ax,) if isinstance(ax, (numbers.Integral, np.integer)) else tuple(ax)
            counts.append(len(ax))
            flat += [int(v) for v in ax]
        fa, ca_ = _i32arr(flat), _i32arr(counts)
        keep += [fa, ca_]
        o.axes, o.axes_counts, o.naxes_args = fa, ca_, len(counts)
    if axis is not None:
        o.has_axis, o.axis = 1, int(axis)
    if output_sizes:
        names = [str(k).encode() for k in output_sizes]
        na = (ctypes.c_char_p * len(names))(*names)
        sz = _i64arr([int(v) for v in output_sizes.values()])
        keep += [names, na, sz]
        o.output_size_names, o.output_sizes, o.noutput_sizes = na, sz, len(names)
    outs = (c_vp * nout)()
    ins = (c_vp * max(1, nin))(*[a._h for a in arrays])
    _check(L.ca_array_apply_gufunc(outs, nout, kname.encode(), signature.encode(), ins, nin, ctypes.byref(o)))
    del keep
    res = [Array(outs[i]) for i in range(nout)]
    return res[0] if nout == 1 else tuple(res)


_BOUNDARIES = {"none": C.BOUNDARY_NONE, "reflect": C.BOUNDARY_REFLECT, "periodic": C.BOUNDARY_PERIODIC,
               "nearest": C.BOUNDARY_NEAREST}


def _overlap_args(ndim, depth, boundary):
    """(depth, depth_after or None, ca_boundary_t array) from dask's depth/boundary forms."""
    if depth is None:
        depth = 0
    if isinstance(depth, (numbers.Integral, np.integer)):
        depth = (int(depth),) * ndim
    if isinstance(depth, dict):
        depth = tuple(depth.get(i, depth.get(i - ndim, 0)) for i in range(ndim))
    depth = tuple(depth)
    if len(depth) != ndim:
        raise ValueError(f"depth {depth} has {len(depth)} entries for {ndim} dimensions")
    before = [d[0] if isinstance(d, tuple) else int(d) for d in depth]
    after = [d[1] if isinstance(d, tuple) else int(d) for d in depth]
    if boundary is None:
        boundary = "none"
    if not isinstance(boundary, (tuple, dict)):
        boundary = (boundary,) * ndim
    if isinstance(boundary, tuple):
        boundary = dict(enumerate(boundary))
    bnd = (C.Boundary * max(1, ndim))()
    for i in range(ndim):
        b = boundary.get(i, boundary.get(i - ndim, "none"))
        if isinstance(b, str):
            if b not in _BOUNDARIES:
                raise ValueError(f"boundary {b!r} (one of {', '.join(_BOUNDARIES)} or a number)")
            bnd[i].kind = _BOUNDARIES[b]
        elif b is None:
            bnd[i].kind = C.BOUNDARY_NONE
        else:
            bnd[i].kind, bnd[i].value = C.BOUNDARY_CONSTANT, float(b)
    return _i64arr(before), (_i64arr(after) if after != before else None), bnd


def overlap(x, depth, boundary=None, allow_rechunk=True):
    """dask's overlap: every block extended by ``depth`` elements of its neighbours.

    Parameters
    ----------
    x : Array
        The input.
    depth : int, tuple or dict
        Elements taken from each neighbour, per axis.
    boundary : str, scalar or dict, optional
        Beyond the array's edge: ``"reflect"``, ``"periodic"``, ``"nearest"``, ``"none"`` or a
        constant.
    allow_rechunk : bool, default True
        Rechunk blocks smaller than ``depth``.

    Returns
    -------
    Array
        The overlapped array.
    """
    x = asarray(x)
    d, da, bnd = _overlap_args(x.ndim, depth, boundary)
    o = C.overlap_options(depth_after=da, allow_rechunk=1 if allow_rechunk else 0)
    return Array._new(lib().ca_array_overlap, x._h, d, bnd, ctypes.byref(o))


def trim_internal(x, axes, boundary=None):
    """dask's trim_internal: remove what :func:`overlap` added.

    Parameters
    ----------
    x : Array
        The overlapped array.
    axes : int, tuple or dict
        The depths.
    boundary : str or dict, optional
        The boundary used by :func:`overlap`.

    Returns
    -------
    Array
        The trimmed array.
    """
    x = asarray(x)
    d, da, bnd = _overlap_args(x.ndim, axes, boundary)
    o = C.overlap_options(depth_after=da)
    return Array._new(lib().ca_array_trim_internal, x._h, d, bnd, ctypes.byref(o))


def map_overlap(func, *args, depth=None, boundary=None, trim=True, align_arrays=True, allow_rechunk=True,
                dtype=None, chunks=None, name=None, meta=None, **kwargs):
    """dask's map_overlap: ``func`` on every block extended by its neighbours' edges.

    Parameters
    ----------
    func : callable or str
        A Python callable (it may take ``block_id``) or a registered kernel name.
    *args
        The arrays.
    depth : int, tuple or dict
        Elements shared with each neighbour, per axis.
    boundary : str, scalar or dict, optional
        Beyond the array's edge (see :func:`overlap`).
    trim : bool, default True
        Remove the overlap from the results.
    align_arrays : bool, default True
        Rechunk the arrays to common chunks.
    allow_rechunk : bool, default True
        Rechunk blocks smaller than ``depth``.
    dtype : numpy.dtype, optional
        The result's dtype.
    chunks : tuple, optional
        The result's chunks.
    name : str, optional
        The result's name.
    meta : numpy.ndarray, optional
        Only NumPy's.
    **kwargs
        Passed to ``func``.

    Returns
    -------
    Array
        The lazy result.
    """
    arrays = [asarray(a) for a in args if isinstance(a, (Array, np.ndarray))]
    if not arrays:
        raise ValueError("map_overlap needs at least one array argument")
    nd = max(a.ndim for a in arrays)
    d, da_, bnd = _overlap_args(nd, depth, boundary)
    extra = []
    block_info = 0
    if isinstance(func, str) or not callable(func):
        kname, _ = _kernel_name(func, "map_overlap")
        extra = [a for a in args if not isinstance(a, (Array, np.ndarray))]
    else:
        try:
            params = inspect.signature(func).parameters
        except (TypeError, ValueError):
            params = {}
        wants_id = "block_id" in params
        block_info = 1 if wants_id else 0
        positions = [i for i, a in enumerate(args) if isinstance(a, (Array, np.ndarray))]
        lits = [None if isinstance(a, (Array, np.ndarray)) else a for a in args]
        call = _callables.BlockwiseCall(func, lits, positions, kwargs, want_id=wants_id)

        if dtype is None:
            dtype = _infer_dtype(func, arrays, [], kwargs, arrays[0].dtype) if not wants_id else arrays[0].dtype
        kname = _py_kernel(call, "map_overlap." + getattr(func, "__name__", "fn"), dtype)
    st = keep = None
    if chunks is not None:
        st, keep = _chunks_struct(tuple(tuple(int(v) for v in c) for c in chunks))
    o = C.map_overlap_options(dtype=_ca_dtype(dtype) if dtype is not None else 0, trim=1 if trim else 0,
                              chunks=ctypes.pointer(st) if st is not None else None,
                              allow_rechunk=1 if allow_rechunk else 0, align_arrays=1 if align_arrays else 0,
                              depth_after=da_, block_info=block_info, name=(name or "").encode() or None)
    ab = _ArgBuilder()
    ex = ab.array(extra)
    ins = (c_vp * len(arrays))(*[a._h for a in arrays])
    out = Array._new(lib().ca_array_map_overlap, kname.encode(), ins, len(arrays), d, bnd, ex, len(extra),
                     ctypes.byref(o))
    del keep
    return out


def scan(func, binop, ident, x, axis=None, dtype=None, out=None, method="sequential", preop=None, **kwargs):
    """dask's cumreduction: a cumulative scan along an axis.

    NumPy's cumsum/cumprod/nancumsum/nancumprod map to the builtin scans; other (func, binop) pairs
    run ``func`` on each block and carry ``binop`` of the previous blocks' last values.

    Parameters
    ----------
    func : callable
        The per-block scan, ``func(block, axis=)``.
    binop : callable
        Combines the carry with a block's values.
    ident : scalar
        ``binop``'s identity.
    x : Array
        The input.
    axis : int, optional
        The axis (None: the flattened array).
    dtype : numpy.dtype, optional
        The result's dtype.
    out : None
        Only None.
    method : {"sequential", "blelloch"}, default "sequential"
        dask's; the carry is sequential here.
    preop : callable, optional
        Not supported (dask's).
    **kwargs
        Accepted for dask's signature.

    Returns
    -------
    Array
        The scan.
    """
    x = asarray(x)
    if axis is None:
        x, axis = (x.ravel() if x.ndim != 1 else x), 0
    axis = _axes(axis, x.ndim)[0]
    builtin = {(np.cumsum, np.add): "cumsum", (np.cumprod, np.multiply): "cumprod",
               (np.nancumsum, np.add): "nancumsum", (np.nancumprod, np.multiply): "nancumprod"}
    key = builtin.get((func, binop))
    if key is not None:
        return x._scan(key, axis, dtype)
    from ._slicing import generic_scan
    return generic_scan(func, binop, ident, x, axis, np.dtype(dtype) if dtype is not None else x.dtype)


_NUMPY_FUNCTIONS = {}  # filled by chunkarray._api
_UFUNC_FUNCTIONS = {}  # ufunc name -> function, for ufuncs that are not one table op (chunkarray._elementwise)
