"""The array API standard's dtypes. Its type promotion table (2021.12, no value-based casting) is the C
library's (``ca_dtype_promote_std``); this module remembers its answers.

The dtype objects are NumPy dtype objects, as in ``numpy.array_api``: the standard asks only that they
compare equal to themselves, and chunkarray's blocks are NumPy-typed.
"""
import numpy as np

int8 = np.dtype("int8")
int16 = np.dtype("int16")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
uint8 = np.dtype("uint8")
uint16 = np.dtype("uint16")
uint32 = np.dtype("uint32")
uint64 = np.dtype("uint64")
float32 = np.dtype("float32")
float64 = np.dtype("float64")
bool = np.dtype("bool")  # noqa: A001 - the standard's name

_signed = (int8, int16, int32, int64)
_unsigned = (uint8, uint16, uint32, uint64)
_integer_dtypes = _signed + _unsigned
_floating_dtypes = (float32, float64)
_boolean_dtypes = (bool,)
_numeric_dtypes = _integer_dtypes + _floating_dtypes
_integer_or_boolean_dtypes = _boolean_dtypes + _integer_dtypes
_all_dtypes = _numeric_dtypes + _boolean_dtypes

# frozensets: membership is one hash lookup (the operators check it on every call)
_dtype_categories = {
    "all": frozenset(_all_dtypes),
    "numeric": frozenset(_numeric_dtypes),
    "integer": frozenset(_integer_dtypes),
    "integer or boolean": frozenset(_integer_or_boolean_dtypes),
    "boolean": frozenset(_boolean_dtypes),
    "floating-point": frozenset(_floating_dtypes),
}
_int_ranges = {d: (int(np.iinfo(d).min), int(np.iinfo(d).max)) for d in _integer_dtypes}


_std_set = frozenset(_all_dtypes)
_promotions = {}  # (dtype, dtype) -> dtype, or the error message: the C library's answers, remembered


def _result_type(type1, type2):
    """The promoted dtype of two array API dtypes by the standard's table, which lives in the C
    library (``ca_dtype_promote_std``); TypeError, with its message, where the standard defines none."""
    try:
        r = _promotions[(type1, type2)]
    except KeyError:
        r = _promote_in_c(type1, type2)
    except TypeError:  # unhashable
        r = f"{type1!r} and {type2!r} cannot be type promoted together (array API standard)"
    if type(r) is str:
        raise TypeError(r)
    return r


def _promote_in_c(type1, type2):
    if type1 not in _std_set or type2 not in _std_set:
        return f"{type1} and {type2} cannot be type promoted together (array API standard: not its dtypes)"
    import ctypes
    from .. import core
    out = ctypes.c_int32()
    L = core.lib()
    st = L.ca_dtype_promote_std(ctypes.byref(out), core._ca_dtype(type1), core._ca_dtype(type2))
    if st == 0:
        r = core._np_dtype(out.value)
    else:
        msg = L.ca_last_error_message()
        r = (msg.decode("utf-8", "replace") if msg else "") or f"{type1} and {type2} cannot be type promoted"
    _promotions[(type1, type2)] = r
    return r
