"""chunkarray.array_api's own rules, checked against numpy.array_api (NumPy 1.24) and plain NumPy:
dtypes and promotion without value-based casting, Python scalars, 0-d conversions, in-place operators,
indices, DLPack, integer-exact int64 values, stable descending sorts, unique_*, linalg's chunk rule and
the example of docs/array-api.md. Ragged chunks come from the main module's arrays (``x._array``)."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import chunkarray as ca
import chunkarray.array_api as xp

with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    import numpy.array_api as npx

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]


def ragged(values, chunks):
    """An array_api Array over a chunkarray.Array with the given (ragged) chunks."""
    return xp.Array._new(ca.from_array(np.asarray(values), chunks=chunks))


def test_namespace_and_attributes():
    x = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
    assert x.__array_namespace__() is xp
    assert x.device == "cpu" and x.to_device("cpu") is x
    np.testing.assert_array_equal(np.asarray(x.mT), [[1.0, 3.0], [2.0, 4.0]])
    with pytest.raises(ValueError, match="array API version"):
        x.__array_namespace__(api_version="1999.01")
    with pytest.raises(TypeError, match="instantiated directly"):
        xp.Array()


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", DTYPES)
def test_result_type_matches_numpy_array_api(a, b):
    da, db = getattr(xp, a), getattr(xp, b)
    na, nb = getattr(npx, a), getattr(npx, b)
    try:
        want = npx.result_type(na, nb)
    except TypeError:
        with pytest.raises(TypeError):
            xp.result_type(da, db)
        with pytest.raises(TypeError):
            xp.ones(3, dtype=da) == xp.ones(3, dtype=db)
        return
    assert xp.result_type(da, db) == want
    assert xp.can_cast(da, db) == npx.can_cast(na, nb)
    if want != npx.bool:
        # the operator gives the table's dtype, also with a 0-d operand (no value-based casting)
        r = xp.ones((), dtype=da) * xp.ones(4, dtype=db) if a != "bool" and b != "bool" else None
        if r is not None:
            assert r.dtype == want and r.shape == (4,)


def test_python_scalars_take_the_array_dtype():
    x = xp.asarray([1, 2, 3], dtype=xp.int8)
    assert (x + 1).dtype == xp.int8
    f = xp.asarray([1.0], dtype=xp.float32)
    assert (f * 2.5).dtype == xp.float32 and (2 * f).dtype == xp.float32
    with pytest.raises(TypeError):
        x + 1.5
    with pytest.raises(TypeError):
        xp.asarray([True]) + 1
    with pytest.raises(OverflowError):
        x + 300


def test_zero_d_conversions():
    assert bool(xp.asarray(True)) is True
    assert int(xp.asarray(7)) == 7 and float(xp.asarray(2.5)) == 2.5
    assert [10, 20, 30][xp.asarray(1)] == 20
    with pytest.raises(TypeError):
        bool(xp.asarray([True, False]))
    with pytest.raises(ValueError):
        float(xp.asarray(1))


def test_int64_exact_beyond_float64():
    big = 2**53 + 1
    x = xp.asarray([big, -big], dtype=xp.int64)
    np.testing.assert_array_equal(np.asarray(x + 0), [big, -big])
    assert int(xp.asarray(big)) == big
    assert int(xp.max(x)) == big
    y = ragged(np.array([big, big + 2, 3, -big], dtype=np.int64), ((3, 1),))
    np.testing.assert_array_equal(np.asarray(xp.subtract(y, xp.asarray(1))), [big - 1, big + 1, 2, -big - 1])


def test_inplace_operators():
    x = xp.asarray([1, 2, 3], dtype=xp.int16)
    y = x
    x += 1
    assert y is x
    np.testing.assert_array_equal(np.asarray(x), [2, 3, 4])
    with pytest.raises(TypeError):
        x += xp.asarray([1, 1, 1], dtype=xp.int32)  # would change the dtype
    f = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
    f @= xp.eye(2)
    np.testing.assert_array_equal(np.asarray(f), [[1.0, 2.0], [3.0, 4.0]])


def test_indexing_rules():
    x = ragged(np.arange(12.0).reshape(3, 4), ((2, 1), (1, 3)))
    np.testing.assert_array_equal(np.asarray(x[1, ...]), np.arange(4.0, 8.0))
    np.testing.assert_array_equal(np.asarray(x[xp.asarray(2), :]), np.arange(8.0, 12.0))
    with pytest.raises(IndexError):
        x[1]  # flat indexing is not in the standard
    with pytest.raises(IndexError):
        x[xp.asarray([0, 1]), :]  # integer array indices are not either
    with pytest.raises(IndexError):
        x[0:10, :]
    m = x > 5.0
    assert np.asarray(x[m]).tolist() == [6.0, 7.0, 8.0, 9.0, 10.0, 11.0]
    x[0, :] = 1.0
    np.testing.assert_array_equal(np.asarray(x)[0], [1.0] * 4)


def test_dlpack_round_trip():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    x = xp.from_dlpack(a)
    assert x.dtype == xp.int32
    np.testing.assert_array_equal(np.from_dlpack(x), a)


@pytest.mark.parametrize("descending", [False, True])
def test_sort_is_stable(descending):
    v = np.array([3, 1, 2, 1, 3, 2, 1], dtype=np.int32)
    x = ragged(v, ((3, 4),))
    idx = np.asarray(xp.argsort(x, descending=descending))
    want = np.argsort(-v if descending else v, kind="stable")
    np.testing.assert_array_equal(idx, want)
    np.testing.assert_array_equal(np.asarray(xp.sort(x, descending=descending)), v[want])


def test_unique_functions():
    v = np.array([[2.0, np.nan, 1.0], [2.0, np.nan, 5.0]])
    x = ragged(v, ((1, 1), (2, 1)))
    vals = np.asarray(xp.unique_values(x))
    assert np.isnan(vals).sum() == 2  # each NaN is its own value
    np.testing.assert_array_equal(vals[:3], [1.0, 2.0, 5.0])
    r = xp.unique_all(x)
    values, idx, inv, counts = (np.asarray(a) for a in r)
    assert inv.shape == v.shape
    np.testing.assert_array_equal(values[inv][~np.isnan(v)], v[~np.isnan(v)])
    np.testing.assert_array_equal(v.ravel()[idx][:3], values[:3])
    assert counts.sum() == v.size
    c = xp.unique_counts(xp.asarray([1, 1, 3], dtype=xp.uint8))
    np.testing.assert_array_equal(np.asarray(c.values), [1, 3])
    np.testing.assert_array_equal(np.asarray(c.counts), [2, 1])


def test_statistics_correction_and_sum_dtype():
    v = np.array([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]])
    x = ragged(v, ((1, 1), (2, 1)))
    np.testing.assert_allclose(np.asarray(xp.var(x, axis=1, correction=1)), v.var(axis=1, ddof=1))
    np.testing.assert_allclose(np.asarray(xp.std(x, correction=1.0)), v.std(ddof=1))
    assert xp.sum(xp.asarray([1, 2], dtype=xp.int8)).dtype == xp.int64
    assert xp.sum(xp.asarray([1, 2], dtype=xp.uint8)).dtype == xp.uint64
    assert xp.sum(xp.asarray([1, 2], dtype=xp.float32)).dtype == xp.float64  # 2021.12: the default float


def test_linalg_matches_numpy_and_names_the_block_rule():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(2, 4, 4))
    spd = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4)
    x = xp.asarray(spd)
    np.testing.assert_allclose(np.asarray(xp.linalg.cholesky(x)), np.linalg.cholesky(spd), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(xp.linalg.det(x)), np.linalg.det(spd), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(xp.linalg.inv(x)), np.linalg.inv(spd), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.asarray(xp.linalg.eigvalsh(x)), np.linalg.eigvalsh(spd), rtol=1e-10)
    s = xp.linalg.slogdet(x)
    np.testing.assert_allclose(np.asarray(s.logabsdet), np.linalg.slogdet(spd)[1], rtol=1e-10)
    np.testing.assert_allclose(np.asarray(xp.linalg.svdvals(x)), np.linalg.svd(spd, compute_uv=False), rtol=1e-10)
    b = rng.normal(size=(2, 4, 1))
    np.testing.assert_allclose(np.asarray(xp.linalg.solve(x, xp.asarray(b))), np.linalg.solve(spd, b), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(xp.linalg.vector_norm(x, axis=(1, 2))),
                               np.sqrt((spd ** 2).sum(axis=(1, 2))), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(xp.linalg.trace(x)), np.trace(spd, axis1=1, axis2=2), rtol=1e-12)
    # One matrix in several blocks: cholesky, inv and solve run the tile algorithms (any chunks); the
    # per-matrix functions name the block rule.
    m = xp.Array._new(ca.from_array(spd[0], chunks=(3, 2)))
    np.testing.assert_allclose(np.asarray(xp.linalg.inv(m)), np.linalg.inv(spd[0]), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.asarray(xp.linalg.cholesky(m)), np.linalg.cholesky(spd[0]), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(xp.linalg.cholesky(m, upper=True)), np.linalg.cholesky(spd[0]).T,
                               rtol=1e-12)
    for rhs in (b[0, :, 0], rng.normal(size=(4, 3))):
        got = xp.linalg.solve(m, xp.Array._new(ca.from_array(rhs, chunks=1)))
        np.testing.assert_allclose(np.asarray(got), np.linalg.solve(spd[0], rhs), rtol=1e-10)
        assert got.shape == rhs.shape and got.dtype == xp.float64
    m32 = xp.asarray(spd[0].astype(np.float32))
    assert xp.linalg.inv(m32).dtype == xp.float32 and xp.linalg.cholesky(m32).dtype == xp.float32
    with pytest.raises(ValueError, match="linalg.det: axis 0 has 2 blocks"):
        xp.linalg.det(m)
    np.testing.assert_allclose(np.asarray(m @ m), spd[0] @ spd[0], rtol=1e-12)  # matmul takes any chunks


def test_ridge_example_runs_on_both_namespaces():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    script = os.path.join(root, "bindings", "python", "examples", "array_api_ridge.py")
    p = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "the two namespaces agree" in p.stdout


@pytest.mark.parametrize("dt", DTYPES)
def test_operator_result_dtype_is_the_engines(dt):
    """The wrapper records an operator's result dtype without asking the engine: check that it is
    the engine's, for every operator the dtype allows, with array and scalar operands."""
    d = getattr(xp, dt)
    x = xp.ones(3, dtype=d)
    ops = ["__eq__", "__ne__"]
    if dt == "bool":
        ops += ["__and__", "__or__", "__xor__"]
        s = True
    else:
        ops += ["__add__", "__sub__", "__mul__", "__floordiv__", "__mod__", "__pow__", "__lt__", "__le__",
                "__gt__", "__ge__", "__radd__", "__rsub__"]
        s = 1
        if dt.startswith(("int", "uint")):
            ops += ["__and__", "__or__", "__xor__", "__lshift__", "__rshift__"]
        else:
            ops += ["__truediv__", "__rtruediv__"]
            s = 1.0
    for op in ops:
        for other in (x, s):
            r = getattr(x, op)(other)
            assert r.dtype == r._array.dtype, (op, dt, other)
            assert np.asarray(r).dtype == r.dtype


def test_floor_divide_special_cases_from_the_c_library():
    """CA_OP_FLOORDIV_STD: the standard's floor_divide where NumPy's differs (infinity over a finite
    number, a finite number over an infinity); elsewhere NumPy's, signed zeros included."""
    inf = float("inf")
    a = np.array([inf, inf, -inf, -inf, 1.0, -1.0, 1.0, -1.0, 7.0, -7.0, 0.0, -0.0, 5.0])
    b = np.array([2.0, -2.0, 3.0, -0.5, -inf, inf, inf, -inf, -2.0, 2.0, 3.0, 3.0, 0.0])
    want = np.array([inf, -inf, -inf, inf, -0.0, -0.0, 0.0, 0.0, -4.0, -4.0, 0.0, -0.0, inf])
    for dt in (np.float64, np.float32):
        x, y = ragged(a.astype(dt), ((6, 7),)), ragged(b.astype(dt), ((13,),))
        for got in (np.asarray(xp.floor_divide(x, y)), np.asarray(x // y)):
            assert got.dtype == dt
            np.testing.assert_array_equal(got, want.astype(dt))
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    # the main module keeps NumPy's result (NaN, -1)
    m = (ca.from_array(a[:2]) // ca.from_array(np.array([2.0, 2.0]))).compute()
    assert np.isnan(m).all()
    i = xp.asarray([7, -7, -9], dtype=xp.int16)
    np.testing.assert_array_equal(np.asarray(i // 2), [3, -4, -5])


def test_promotion_is_the_c_librarys():
    """The table lives in C (ca_dtype_promote_std): its answers and its messages reach Python, the
    operators run the C std entry points on mixed dtypes (no Python-side casts), and values match
    numpy.array_api on ragged chunks."""
    from chunkarray.array_api import _dtypes
    _dtypes._promotions.clear()
    with pytest.raises(TypeError, match="int64 and float32 have no promotion in the standard"):
        xp.result_type(xp.int64, xp.float32)
    assert (xp.int64, xp.float32) in _dtypes._promotions  # remembered from the C call
    with pytest.raises(TypeError, match="int64 and uint64 have no promotion"):
        xp.asarray([1], dtype=xp.int64) + xp.asarray([1], dtype=xp.uint64)
    a = ragged(np.array([-128, -1, 0, 5, 127], np.int8), ((2, 3),))
    b = ragged(np.array([255, 1, 0, 200, 128], np.uint8), ((4, 1),))
    want = npx.asarray(np.asarray(a)) + npx.asarray(np.asarray(b))
    got = a + b
    assert got.dtype == xp.int16 == want.dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    np.testing.assert_array_equal(np.asarray(xp.bitwise_left_shift(b, a[...] * 0 + 1)),
                                  np.asarray(np.asarray(b).astype(np.int16) << 1))


def test_scalars_follow_the_c_rule():
    """A Python scalar takes the array's dtype (C: ca_array_binary_scalar_std): errors for kind
    mismatches (TypeError, as numpy.array_api) and values the dtype does not hold (OverflowError, where
    NumPy 1.24 still wraps with a DeprecationWarning and later NumPy raises)."""
    a = ragged(np.array([1, 2, 3], np.uint8), ((1, 2),))
    assert (a + 250).dtype == xp.uint8
    np.testing.assert_array_equal(np.asarray(a + 250), np.array([251, 252, 253], np.uint8))
    np.testing.assert_array_equal(np.asarray(255 - a), np.array([254, 253, 252], np.uint8))
    for bad, exc in ((256, OverflowError), (-1, OverflowError), (1.5, TypeError), (True, TypeError),
                     (2**64, OverflowError)):
        with pytest.raises(exc):
            a + bad
        if exc is TypeError:
            with pytest.raises(exc):
                npx.asarray(np.asarray(a)) + bad  # the reference raises the same (it wraps 256 with a warning)
    f = xp.asarray([0.5, 1.5], dtype=xp.float32)
    assert (f + np.float64(2.0)).dtype == xp.float32  # a NumPy float64 scalar is a Python float here
    assert (f * 3).dtype == xp.float32
    with pytest.raises(TypeError):
        xp.asarray([True]) + 1


@pytest.mark.parametrize("dtype, value", [("int64", 2**53 + 1), ("int64", -(2**53) - 1), ("int64", -2**63),
                                          ("int64", 2**63 - 1), ("uint64", 2**64 - 1), ("uint64", 2**63 + 1)])
def test_full_is_exact_past_2_53(dtype, value):
    """full goes through ca_array_full_int64/_uint64, in the namespace and in the main module."""
    want = np.full((5,), value, dtype=dtype)
    np.testing.assert_array_equal(np.asarray(xp.full((5,), value, dtype=getattr(xp, dtype))), want)
    got = np.asarray(ca.full((5,), value, dtype=dtype, chunks=2).compute())
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.asarray(xp.full_like(xp.asarray([1, 2], dtype=getattr(xp, dtype)), value)),
                                  np.full((2,), value, dtype=dtype))
    np.testing.assert_array_equal(np.asarray(ca.full((), value, dtype=dtype).compute()), np.array(value, dtype))
    # the main module keeps NumPy's value-based default dtype and its float rounding
    assert np.asarray(ca.full((2,), value, dtype="float64").compute())[0] == np.float64(value)


def test_fast_path_dtypes_are_the_librarys():
    """The element-wise fast path records the result's dtype and shape without asking the library:
    they must be what the library built, for every unary and binary function over every dtype (pair)
    its category admits, with arrays and with Python scalars."""
    from chunkarray.array_api import _dtypes
    import itertools
    vals = {d: xp.asarray(np.ones(3, dtype=d)) for d in DTYPES}
    checked = 0

    def agree(r):
        nonlocal checked
        assert r.dtype == r._array.dtype and r.shape == tuple(r._array.shape)
        checked += 1

    for name, _c, cat, _d in xp._UNARY_TABLE:
        for d in DTYPES:
            if np.dtype(d) in _dtypes._dtype_categories[cat]:
                agree(getattr(xp, name)(vals[d]))
    for name, _c, cat, _d in xp._BINARY_TABLE:
        ok = _dtypes._dtype_categories[cat]
        for a, b in itertools.product(DTYPES, DTYPES):
            if np.dtype(a) in ok and np.dtype(b) in ok:
                try:
                    r = getattr(xp, name)(vals[a], vals[b])
                except TypeError:
                    continue  # no promotion
                agree(r)
        for d in DTYPES:
            if np.dtype(d) in ok:
                s = True if d == "bool" else (1.0 if "float" in d else 1)
                agree(getattr(xp, name)(vals[d], xp.asarray(s, dtype=vals[d].dtype)))
    for d in DTYPES:
        if d != "bool":
            agree(vals[d] + 1)
            agree(2 * vals[d])
            agree(vals[d] < 1)
            agree(-vals[d])
    assert checked > 700
