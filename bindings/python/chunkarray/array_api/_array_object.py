"""The array API standard's Array object over a lazy chunkarray.Array.

Modelled on ``numpy.array_api._array_object`` (NumPy 1.24, BSD-3-Clause): the same strict checks on
dtypes, Python scalars and indices, with chunkarray's lazy, chunked array underneath. Values are
computed when a Python value is asked for (``bool``, ``int``, ``float``, ``__array__``, DLPack).
"""
import ctypes
import operator

import numpy as np

from .. import core as _core
from .._lib import lib as _lib
from .. import _codes
from ._dtypes import (_all_dtypes, _boolean_dtypes, _integer_dtypes, _integer_or_boolean_dtypes,
                      _floating_dtypes, _numeric_dtypes, _result_type, _dtype_categories, _int_ranges)

_CA = _core.Array
_BOOL = np.dtype(bool)
_ALL = frozenset(_all_dtypes)
_FLOATS = frozenset(_floating_dtypes)
_BOOL_UNARY = frozenset([_codes.CA_OP_ISNAN, _codes.CA_OP_ISINF, _codes.CA_OP_ISFINITE, _codes.CA_OP_NOT,
                         _codes.CA_OP_SIGNBIT])
# unary ops whose result has the input's dtype for every dtype the namespace passes them (the standard's
# categories: numeric for abs/negative/sign/square, floating-point for the functions, integer or
# boolean for invert; ceil/floor/trunc/round on integers never reach the engine)
_SAME_UNARY = frozenset(_codes.UNARY[n] for n in (
    "absolute", "negative", "sign", "square", "invert", "sqrt", "exp", "expm1", "log", "log1p", "log2", "log10",
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
    "ceil", "floor", "trunc", "rint"))
_BOOL_RESULT = frozenset([_codes.CA_OP_EQ, _codes.CA_OP_NE, _codes.CA_OP_LT, _codes.CA_OP_LE, _codes.CA_OP_GT,
                          _codes.CA_OP_GE] + [_codes.BINARY[n] for n in ("logical_and", "logical_or", "logical_xor")])


_SMALL = 1 << 16  # arrays up to this many elements compute on the calling thread
_sync_ctx = None


def _ctx(a):
    """The Context to compute ``a`` in: small arrays on the calling thread (a Context with no worker
    threads: no hand-off to a pool for a few microseconds of work), larger ones in the default one."""
    global _sync_ctx
    size = a.size
    if size == size and size <= _SMALL:
        if _sync_ctx is None:
            _sync_ctx = _core.Context(num_threads=0)
        return _sync_ctx
    return None


def _np_value(a, shape=None, dtype=None):
    """The computed value of a chunkarray.Array as an ndarray (0-d stays an ndarray).

    Known shapes take the short path: one ca_array_compute_into into a new ndarray (the wrapper
    already knows the shape and dtype, so no metadata round trips through ctypes). The buffer goes
    to C as ``byref(c_char.from_buffer(out))``: a fifth of the cost of ``out.ctypes.data``."""
    if shape is None or None in shape:
        return np.asarray(a._compute_array(ctx=_ctx(a)))
    n = 1
    for d in shape:
        n *= d
    if n > _SMALL:
        return np.asarray(a._compute_array())
    ctx = _sync_ctx or _make_sync_ctx()
    if _core._py_kernels:  # Python kernels (linalg's per-matrix functions) registered with the context
        ctx._sync_kernels()
    out = np.empty(shape, dtype)
    nb = out.nbytes
    st = _fns.compute_into(ctx.handle, a._h, _byref(_c_char.from_buffer(out)) if nb else None, nb, None)
    if st:
        _core._check(st)
    return out


def _make_sync_ctx():
    global _sync_ctx
    if _sync_ctx is None:
        _sync_ctx = _core.Context(num_threads=0)
    return _sync_ctx


class _Fns:
    """The ctypes function objects of the element-wise fast path, looked up once."""

    def __getattr__(self, name):
        L = _lib()
        fns = {"compute_into": L.ca_array_compute_into, "unary": L.ca_array_unary,
               "binary_std": L.ca_array_binary_std, "scalar_std": L.ca_array_binary_scalar_std}
        self.__dict__.update(fns)
        return fns[name]


_fns = _Fns()
_byref = ctypes.byref
_c_char = ctypes.c_char
_c_vp = ctypes.c_void_p


def _settle(a):
    """After an in-place update: a small array is persisted (its blocks computed and kept), so that
    repeated updates (``x[i] = v`` in a loop) do not grow a chain of graph layers that every later
    read would recompute. Large arrays stay lazy, as in dask."""
    ctx = _ctx(a)
    return a.persist(ctx=ctx) if ctx is not None else a


def _from_numpy(x):
    """A chunkarray.Array over an ndarray: one block up to 2**20 elements, dask's auto chunks above."""
    x = np.asarray(x)
    return _core.from_array(x, chunks=-1 if x.size <= (1 << 20) else "auto")


class Array:
    """An n-d array of the array API standard, lazy and chunked (chunkarray.Array underneath).

    Do not construct it directly: use :func:`chunkarray.array_api.asarray` or another creation
    function. ``x._array`` is the underlying :class:`chunkarray.Array` (dask.array semantics).

    Attributes
    ----------
    dtype : numpy.dtype
        One of the namespace's dtypes.
    shape : tuple
        The shape; an entry is None where a size is known only after computing (``x[mask]``).
    """

    @classmethod
    def _new(cls, x, dtype=None):
        """Wrap a chunkarray.Array (or an ndarray / NumPy scalar, which becomes one); ``dtype`` is
        x's dtype when the caller knows it (saves the metadata call)."""
        obj = object.__new__(cls)
        if not isinstance(x, _CA):
            x = _from_numpy(x)
        dt = dtype if dtype is not None else x.dtype
        if dt not in _ALL:
            raise TypeError(f"The array_api namespace does not support the dtype '{dt}'")
        obj._a, obj._dtype, obj._shape = x, dt, None
        return obj

    @property
    def _array(self):
        """The underlying chunkarray.Array."""
        return self._a

    @_array.setter
    def _array(self, a):
        self._a, self._dtype, self._shape = a, a.dtype, None

    def __new__(cls, *args, **kwargs):
        raise TypeError("The array_api Array object should not be instantiated directly. "
                        "Use an array creation function, such as asarray(), instead.")

    def __repr__(self):
        if 0 in self._array.shape or None in self.shape:
            return f"Array(<lazy>, shape={self.shape}, dtype={self.dtype.name})"
        return f"Array({np.array2string(self._value(), separator=', ')}, dtype={self.dtype.name})"

    __str__ = __repr__

    def _value(self):
        return _np_value(self._a, self.shape, self._dtype)

    def __array__(self, dtype=None):
        """The computed value as an ndarray (not part of the standard)."""
        v = self._value()
        return v if dtype is None else v.astype(dtype, copy=False)

    # -- helpers --------------------------------------------------------------------------------
    def _check_allowed_dtypes(self, other, dtype_category, op):
        """The operand checks of numpy.array_api: the op's dtype category; a Python scalar comes back
        as a plain bool/int/float (the C library applies the standard's scalar rule); an Array must
        promote with this one (the C library's table) and, in place, leave its dtype unchanged."""
        cat = _dtype_categories[dtype_category]
        if self._dtype not in cat:
            raise TypeError(f"Only {dtype_category} dtypes are allowed in {op}")
        t = type(other)
        if t is float or t is int or t is builtins_bool:
            return other
        if isinstance(other, builtins_bool):
            return builtins_bool(other)
        if isinstance(other, int):
            return int(other)
        if isinstance(other, float):
            return float(other)  # np.float64 is a float: a Python scalar here, not a typed one
        if not isinstance(other, Array):
            return NotImplemented
        if other._dtype not in cat:
            raise TypeError(f"Only {dtype_category} dtypes are allowed in {op}")
        res_dtype = _result_type(self._dtype, other._dtype)
        if op.startswith("__i") and res_dtype != self._dtype:
            raise TypeError(f"Cannot perform {op} with dtypes {self.dtype} and {other.dtype}")
        return other

    def _promote_scalar(self, scalar):
        """A Python scalar as a 0-d array of this array's dtype (the standard's scalar rule)."""
        if isinstance(scalar, builtins_bool):
            if self.dtype not in _boolean_dtypes:
                raise TypeError("Python bool scalars can only be promoted with bool arrays")
        elif isinstance(scalar, int):
            if self.dtype in _boolean_dtypes:
                raise TypeError("Python int scalars cannot be promoted with bool arrays")
            rng = _int_ranges.get(self._dtype)
            if rng is not None and not rng[0] <= scalar <= rng[1]:
                raise OverflowError(f"Python int {scalar} out of bounds for {self.dtype}")
        elif isinstance(scalar, float):
            if self.dtype not in _floating_dtypes:
                raise TypeError("Python float scalars can only be promoted with floating-point arrays.")
        else:
            raise TypeError("'scalar' must be a Python scalar")
        return _Scalar(self._dtype.type(scalar))

    # -- the element-wise engine: operands of one dtype, the C op -------------------------------
    def _binary(self, other, op, category, name, reflected=False):
        other = self._check_allowed_dtypes(other, category, name)
        if other is NotImplemented:
            return other
        a, b = (other, self) if reflected else (self, other)
        return _binop(op, a, b)

    def _inplace(self, other, op, category, name):
        other = self._check_allowed_dtypes(other, category, name)
        if other is NotImplemented:
            return other
        res = _binop(op, self, other)
        if res.shape != self.shape:
            raise ValueError(f"{name}: the result's shape {res.shape} is not the array's {self.shape}")
        self._array = _settle(res._array)
        return self

    # -- the standard's operators ---------------------------------------------------------------
    def __abs__(self):
        if self.dtype not in _numeric_dtypes:
            raise TypeError("Only numeric dtypes are allowed in __abs__")
        return _unop(_codes.CA_OP_ABS, self)

    def __neg__(self):
        if self.dtype not in _numeric_dtypes:
            raise TypeError("Only numeric dtypes are allowed in __neg__")
        return _unop(_codes.CA_OP_NEG, self)

    def __pos__(self):
        if self.dtype not in _numeric_dtypes:
            raise TypeError("Only numeric dtypes are allowed in __pos__")
        return Array._new(self._array._another())

    def __invert__(self):
        if self.dtype not in _integer_or_boolean_dtypes:
            raise TypeError("Only integer or boolean dtypes are allowed in __invert__")
        return _unop(_codes.CA_OP_INVERT, self)

    def __array_namespace__(self, *, api_version=None):
        if api_version is not None and not api_version.startswith("2021."):
            raise ValueError(f"Unrecognized array API version: {api_version!r}")
        from .. import array_api
        return array_api

    def _scalar_value(self, kinds, name, pyname):
        if self.ndim != 0:
            raise TypeError(f"{pyname} is only allowed on arrays with 0 dimensions")
        if self.dtype not in kinds:
            raise ValueError(f"{pyname} is only allowed on {name} arrays")
        return self._value()[()]

    def __bool__(self):
        return builtins_bool(self._scalar_value(_boolean_dtypes, "boolean", "bool"))

    def __int__(self):
        return int(self._scalar_value(_integer_dtypes, "integer", "int"))

    def __float__(self):
        return float(self._scalar_value(_floating_dtypes, "floating-point", "float"))

    def __index__(self):
        return operator.index(self._scalar_value(_integer_dtypes, "integer", "__index__"))

    def __dlpack__(self, *, stream=None):
        if stream is not None:
            raise ValueError("__dlpack__: chunkarray arrays are on the CPU, stream must be None")
        return self._value().__dlpack__()

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU, device 0

    # comparisons (any two promotable dtypes; ordering only for numeric)
    def __eq__(self, other):  # noqa: D105
        return self._binary(other, _codes.CA_OP_EQ, "all", "__eq__")

    def __ne__(self, other):
        return self._binary(other, _codes.CA_OP_NE, "all", "__ne__")

    def __lt__(self, other):
        return self._binary(other, _codes.CA_OP_LT, "numeric", "__lt__")

    def __le__(self, other):
        return self._binary(other, _codes.CA_OP_LE, "numeric", "__le__")

    def __gt__(self, other):
        return self._binary(other, _codes.CA_OP_GT, "numeric", "__gt__")

    def __ge__(self, other):
        return self._binary(other, _codes.CA_OP_GE, "numeric", "__ge__")

    __hash__ = None

    def __getitem__(self, key):
        _validate_index(self, key)
        if isinstance(key, Array) and key.dtype in _boolean_dtypes:
            if key.ndim > self.ndim or not builtins_all(k in (s, 0) for s, k in zip(self.shape, key.shape)):
                raise IndexError(f"boolean index of shape {key.shape} does not match the array's shape "
                                 f"{self.shape}")
            if key.ndim == 0:  # x[True] is x[None]; x[False] is x[None][:0]
                out = self._a[None]
                return Array._new(out if bool(key) else out[0:0])
            if key.size == 0:  # an empty mask selects nothing (NumPy's rule: it is an empty index)
                rest = self.shape[key.ndim:]
                return Array._new(self._a.reshape((-1,) + rest)[0:0] if self.size else
                                  _core.full((0,) + rest, 0, dtype=self.dtype))
        return Array._new(_known(self._array[_ca_key(key)]))

    def __setitem__(self, key, value):
        _validate_index(self, key)
        if isinstance(value, Array):
            v = value._array
        elif isinstance(value, (int, float, builtins_bool)):
            v = np.asarray(self._promote_scalar(value).value)
        else:
            raise TypeError(f"__setitem__: value must be an array or a Python scalar, not {type(value)}")
        self._array[_ca_key(key)] = v
        self._array = _settle(self._array)

    def __matmul__(self, other):
        other = self._check_allowed_dtypes(other, "numeric", "__matmul__")
        if other is NotImplemented:
            return other
        from .linalg import matmul
        return matmul(self, other)

    def __rmatmul__(self, other):
        other = self._check_allowed_dtypes(other, "numeric", "__rmatmul__")
        if other is NotImplemented:
            return other
        from .linalg import matmul
        return matmul(other, self)

    def __imatmul__(self, other):
        other = self._check_allowed_dtypes(other, "numeric", "__imatmul__")
        if other is NotImplemented:
            return other
        if self.shape == () or other.shape == ():
            raise ValueError("@= requires at least one dimension")
        if len(other.shape) == 1 or other.shape[-1] != other.shape[-2]:
            raise ValueError("@= cannot change the shape of the input array")
        from .linalg import matmul
        res = matmul(self, other)
        if res.shape != self.shape:
            raise ValueError("@= cannot change the shape of the input array")
        self._array = res._array
        return self

    def to_device(self, device, /, stream=None):
        """Move to a device: only ``"cpu"`` (this array).

        Parameters
        ----------
        device : str
            ``"cpu"``.
        stream : None
            Must be None.

        Returns
        -------
        Array
            This array.
        """
        if stream is not None:
            raise ValueError("The stream argument to to_device() is not supported")
        if device == "cpu":
            return self
        raise ValueError(f"Unsupported device {device!r}")

    @property
    def dtype(self):
        """The dtype (one of the namespace's dtype objects)."""
        return self._dtype

    @property
    def device(self):
        """The device: ``"cpu"``."""
        return "cpu"

    @property
    def mT(self):
        """The transpose of the last two axes (a stack of matrices)."""
        from .linalg import matrix_transpose
        return matrix_transpose(self)

    @property
    def ndim(self):
        """The number of dimensions."""
        return len(self.shape)

    @property
    def shape(self):
        """The shape: a tuple of int, None for a size known only after computing."""
        s = self._shape
        if s is None:
            s = self._shape = tuple(None if d != d else int(d) for d in self._a.shape)
        return s

    @property
    def size(self):
        """The number of elements, None when a size is unknown."""
        s = self.shape
        if None in s:
            return None
        n = 1
        for d in s:
            n *= d
        return n

    @property
    def T(self):
        """The transpose of a 2-d array."""
        if self.ndim != 2:
            raise ValueError("x.T requires x to have 2 dimensions. Use x.mT to transpose stacks of "
                             "matrices and permute_dims() to permute dimensions.")
        return Array._new(self._array.T)


builtins_bool = type(True)
builtins_all = all


class _Scalar:
    """A Python scalar already cast to an array's dtype (a typed scalar operand of a C op)."""
    __slots__ = ("value", "dtype", "shape", "ndim")

    def __init__(self, value):
        self.value, self.dtype, self.shape, self.ndim = value, value.dtype, (), 0


def _known(a):
    """A chunkarray.Array with its data-dependent sizes (a boolean mask's, unique's) learnt: the
    standard's shape is a tuple of ints wherever a library can give one, and its test suite checks it."""
    if a.chunks_known:
        return a
    global _sync_ctx
    if _sync_ctx is None:
        _sync_ctx = _core.Context(num_threads=0)
    return a.compute_chunk_sizes(ctx=_sync_ctx)


def _with_shape(r, shape):
    """An element-wise result has its operand's shape: record it (saves the metadata round trip)."""
    if shape is not None:
        r._shape = shape
    return r


def _result(h, dtype, shape):
    """An Array over the new handle ``h`` with the dtype and shape the caller knows (no metadata
    calls): the element-wise fast path."""
    obj = object.__new__(Array)
    obj._a, obj._dtype, obj._shape = _CA._wrap(h), dtype, shape
    return obj


def _unop(op, x):
    h = _c_vp()
    st = _fns.unary(_byref(h), op, x._a._h)
    if st:
        _core._check(st)
    if op in _BOOL_UNARY:
        return _result(h.value, _BOOL, x.shape)
    if op in _SAME_UNARY:
        return _result(h.value, x._dtype, x.shape)
    return _with_shape(Array._new(_CA._wrap(h.value)), x.shape)  # the dtype from the library


_PY_SCALARS = (builtins_bool, int, float)
_Scal = _core.C.Scalar
_K_F64, _K_BOOL = _core.C.CA_FLOAT64, _core.C.CA_BOOL


def _py_scalar(s):
    """A Python bool/int/float as an untyped ca_scalar_t (the standard's rule is applied in C)."""
    t = type(s)
    if t is float:
        return _Scal(_K_F64, 0, s, 0.0, 0)
    if t is builtins_bool:
        return _Scal(_K_BOOL, 0, float(s), 0.0, int(s))
    return _core._scalar(s)  # ints: int64 or uint64 kinds, OverflowError past them


def _binop(op, a, b):
    """A binary C op under the standard's promotion (ca_array_binary_std: the table is the C
    library's; ca_array_binary_scalar_std: a Python scalar takes the array's dtype). a and b are
    Arrays, or one of them a Python bool/int/float."""
    h = _c_vp()
    if type(b) in _PY_SCALARS:
        x, s, first = a, b, 0
    elif type(a) in _PY_SCALARS:
        x, s, first = b, a, 1
    else:
        dt = _result_type(a._dtype, b._dtype)  # TypeError where the standard has no promotion
        st = _fns.binary_std(_byref(h), op, a._a._h, b._a._h)
        if st:
            _core._check(st)
        sa, sb = a._shape, b._shape
        return _result(h.value, _BOOL if op in _BOOL_RESULT else dt, sa if sa is not None and sa == sb else None)
    st = _fns.scalar_std(_byref(h), op, x._a._h, _py_scalar(s), first)
    if st:
        try:
            _core._check(st)
        except _core.InvalidArgumentError as e:
            if "out of bounds" in str(e):  # an int scalar the array's dtype does not hold: as numpy.array_api
                raise OverflowError(str(e)) from None
            raise
    return _result(h.value, _BOOL if op in _BOOL_RESULT else x._dtype, x.shape)


def _ca_key(key):
    """An array API index as chunkarray's: 0-d integer arrays as ints, boolean arrays as masks."""
    if isinstance(key, tuple):
        return tuple(_ca_key(k) for k in key)
    if isinstance(key, Array):
        if key.dtype in _boolean_dtypes:
            return key._array
        return operator.index(key)
    return key


def _validate_index(self, key):
    """The standard's indices only (numpy.array_api's rules): no flat indexing, in-bounds slices,
    a boolean mask only as the sole index, no integer arrays but 0-d ones."""
    _key = key if isinstance(key, tuple) else (key,)
    for i in _key:
        if isinstance(i, builtins_bool) or not (
                isinstance(i, (int, np.integer, slice, Array)) or i is Ellipsis or i is None):
            raise IndexError(f"Single-axes index {i} has {type(i)=}, but only integers, slices (:), "
                             "ellipsis (...), newaxis (None), zero-dimensional integer arrays and boolean "
                             "arrays are specified in the Array API.")
    nonexpanding = [i for i in _key if i is not None]
    single_axes = [i for i in nonexpanding if i is not Ellipsis]
    n_ellipsis = len(nonexpanding) - len(single_axes)
    has_mask = any(isinstance(i, Array) and i.dtype in _boolean_dtypes for i in _key)
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_ellipsis == 0:
        if not has_mask and len(single_axes) < self.ndim:
            raise IndexError(f"{self.ndim=}, but the multi-axes index only specifies {len(single_axes)} "
                             "dimensions. If this was intentional, add a trailing ellipsis (...).")
        indexed_shape = self.shape
    else:
        start = next(p for p, i in enumerate(nonexpanding) if i is Ellipsis)
        end = self.ndim - (len(single_axes) - start)
        indexed_shape = self.shape[:start] + self.shape[end:]
    for i, side in zip(single_axes, indexed_shape):
        if isinstance(i, slice):
            rng = "0 (or None)" if side == 0 else f"between -{side} and {side - 1} (or None)"
            for what in ("start", "stop"):
                v = getattr(i, what)
                if v is not None and side is not None and not -side <= operator.index(v) <= side:
                    raise IndexError(f"Slice {i} contains {what}={v}, but should be {rng} for an axis of "
                                     f"size {side} (out-of-bounds {what}s are not specified in the Array API)")
        elif isinstance(i, Array):
            if i.dtype in _boolean_dtypes and len(_key) != 1:
                raise IndexError(f"Single-axes index {i} is a boolean array and {len(_key)=}, but masking "
                                 "is only specified in the Array API when the array is the sole index.")
            if i.dtype in _integer_dtypes and i.ndim != 0:
                raise IndexError(f"Single-axes index {i} is a non-zero-dimensional integer array, but "
                                 "advanced integer indexing is not specified in the Array API.")
        elif isinstance(i, (int, np.integer)) and side is not None and not -side <= int(i) < side:
            raise IndexError(f"index {i} is out of bounds for an axis of size {side}")


def _add_operators():
    C = _codes
    table = [  # name, op code, dtype category
        ("add", C.CA_OP_ADD, "numeric"), ("sub", C.CA_OP_SUB, "numeric"), ("mul", C.CA_OP_MUL, "numeric"),
        ("truediv", C.CA_OP_DIV, "floating-point"), ("floordiv", C.CA_OP_FLOORDIV_STD, "numeric"),
        ("mod", C.CA_OP_MOD, "numeric"), ("pow", C.CA_OP_POW, "numeric"),
        ("and", C.CA_OP_BITAND, "integer or boolean"), ("or", C.CA_OP_BITOR, "integer or boolean"),
        ("xor", C.CA_OP_BITXOR, "integer or boolean"),
        ("lshift", C.BINARY["left_shift"], "integer"), ("rshift", C.BINARY["right_shift"], "integer"),
    ]
    for name, op, cat in table:
        def fwd(self, other, op=op, cat=cat, n=f"__{name}__"):
            return self._binary(other, op, cat, n)

        def rev(self, other, op=op, cat=cat, n=f"__r{name}__"):
            return self._binary(other, op, cat, n, reflected=True)

        def inp(self, other, op=op, cat=cat, n=f"__i{name}__"):
            return self._inplace(other, op, cat, n)
        for f, n in ((fwd, f"__{name}__"), (rev, f"__r{name}__"), (inp, f"__i{name}__")):
            f.__name__ = f.__qualname__ = n
            f.__doc__ = f"The operator {n} under the standard's type promotion."
            setattr(Array, n, f)


_add_operators()
