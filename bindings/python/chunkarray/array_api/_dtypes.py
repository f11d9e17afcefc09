"""The array API standard's dtypes and its type promotion table (2021.12), without value-based casting.

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


def _build_table():
    """The standard's promotion lattice: within a kind the wider type; signed with unsigned the
    smallest signed type holding both (none for uint64); no promotion across kinds."""
    t = {(bool, bool): bool}
    for a in _integer_dtypes:
        for b in _integer_dtypes:
            sa, sb = a.kind == "i", b.kind == "i"
            if sa == sb:
                t[(a, b)] = a if a.itemsize >= b.itemsize else b
            else:
                u, s = (b, a) if sa else (a, b)
                size = max(s.itemsize, 2 * u.itemsize)
                if size <= 8:
                    t[(a, b)] = np.dtype(f"int{8 * size}")
    for a in _floating_dtypes:
        for b in _floating_dtypes:
            t[(a, b)] = a if a.itemsize >= b.itemsize else b
    return t


_promotion_table = _build_table()


def _result_type(type1, type2):
    """The promoted dtype of two array API dtypes; TypeError where the standard defines none."""
    try:
        return _promotion_table[(type1, type2)]
    except (KeyError, TypeError):
        raise TypeError(f"{type1} and {type2} cannot be type promoted together (array API standard)") from None
