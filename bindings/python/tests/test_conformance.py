"""Regression tests of issue 14: value semantics that disagreed with NumPy (each failed before its fix)."""
import dask
import dask.array as da
import numpy as np
import pytest

import chunkarray as ca

dask.config.set(scheduler="synchronous")


def check(got, want):
    got = got.compute() if isinstance(got, ca.Array) else got
    want = np.asarray(want)
    assert np.shape(got) == want.shape, (np.shape(got), want.shape)
    assert np.asarray(got).dtype == want.dtype, (np.asarray(got).dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


def masked_1d():
    x = ca.from_array(np.array([1., -2., 3., 4.]), chunks=2)
    return x[x > 0]


# 1. pad with unknown chunk sizes
def test_pad_constant_unknown_sizes():
    y = masked_1d()
    r = ca.pad(y, 1)
    check(r, np.array([0., 1., 3., 4., 0.]))
    check(ca.pad(y, (2, 0), constant_values=7), np.array([7., 7., 1., 3., 4.]))
    dk = da.from_array(np.array([1., -2., 3., 4.]), chunks=2)
    assert len(r.chunks[0]) == len(da.pad(dk[dk > 0], 1).chunks[0])


def test_pad_unknown_sizes_2d_and_modes():
    a = np.arange(12.).reshape(4, 3) - 3
    x = ca.from_array(a, chunks=2)
    y = x[x[:, 0] > 0]           # rows unknown
    want_rows = a[a[:, 0] > 0]
    check(ca.pad(y, ((1, 2), (0, 0))), np.pad(want_rows, ((1, 2), (0, 0))))
    # padding blocks across an unknown axis, and edge/reflect: dask raises ValueError (unknown chunks)
    for kw in [dict(pad_width=((0, 0), (1, 1))), dict(pad_width=1, mode="edge"), dict(pad_width=1, mode="reflect")]:
        with pytest.raises(ValueError, match="unknown"):
            ca.pad(y, **kw)
    with pytest.raises(ValueError, match="unknown"):
        ca.pad(masked_1d(), 1, mode="edge")


# 2. rint of integers is float
@pytest.mark.parametrize("dt,want", [("int8", "float16"), ("uint16", "float32"), ("int32", "float64"),
                                     ("uint64", "float64"), ("bool", "float16"), ("float32", "float32"),
                                     ("complex64", "complex64")])
def test_rint_dtype(dt, want):
    a = np.array([1, 0, 1], dtype=dt)
    r = ca.rint(ca.from_array(a, chunks=2))
    assert r.dtype == np.dtype(want)
    np.testing.assert_array_equal(r.compute(), np.rint(a))
    # np.round keeps integers
    if np.dtype(dt).kind in "iu":
        check(ca.round(ca.from_array(a, chunks=2)), np.round(a))


# 3. NumPy scalars keep their type (NEP 50: as a 0-d array of their dtype)
@pytest.mark.parametrize("adt,scalar,want", [
    ("uint8", np.float32(1.5), "float32"), ("bool", np.int16(1000), "int16"), ("bool", np.uint64(5), "uint64"),
    ("int16", np.complex64(1 - 1j), "complex64"), ("float32", np.float64(0.1), "float64"),
    ("int8", np.int64(3), "int64"), ("uint64", np.uint64(2**64 - 1), "uint64"), ("int8", np.uint8(200), "int16"),
])
def test_numpy_scalar_operands(adt, scalar, want):
    a = np.array([1, 0, 1], dtype=adt)
    x = ca.from_array(a, chunks=2)
    r = x + scalar
    assert r.dtype == np.dtype(want)
    np.testing.assert_array_equal(r.compute(), a.astype(want) + np.array(scalar).astype(want))
    r2 = scalar * x
    assert r2.dtype == np.dtype(want)
    np.testing.assert_array_equal(r2.compute(), np.array(scalar).astype(want) * a.astype(want))


def test_numpy_scalar_in_where_and_clip():
    c = np.array([True, False, True])
    a = np.array([1, 2, 3], np.int16)
    r = ca.where(ca.from_array(c), np.complex64(2 - 1j), ca.from_array(a))
    assert r.dtype == np.complex64
    np.testing.assert_array_equal(r.compute(), np.where(c, np.complex64(2 - 1j), a))
    r = ca.from_array(np.array([1, 200], np.uint8)).clip(np.int16(5), None)
    assert r.dtype == np.int16


def test_python_int_beyond_int64():
    a = np.array([1, 2**63], np.uint64)
    x = ca.from_array(a, chunks=1)
    check(x + 2**63, a + np.uint64(2**63))
    check(x == 2**63, a == 2**63)
    # signed arrays: NumPy 1.x's value-based result is float64
    check(ca.from_array(np.array([1], np.int64)) + 2**63, np.array([1], np.int64) + 2**63)
    with pytest.raises(OverflowError):
        x + 2**64


# 4. complex products with infinities
def test_complex_outer_inf():
    a = np.array([0.25 - 2.75j])
    b = np.array([-np.inf])
    check(ca.outer(ca.from_array(a), ca.from_array(b)), np.outer(a, b))
    A = a.reshape(1, 1)
    B = b.reshape(1, 1).astype(complex)
    check(ca.matmul(ca.from_array(A), ca.from_array(B)), A @ B)
    a2 = np.array([1 + 1j, np.inf, 2j, -1])
    b2 = np.array([0.5, -np.inf, 1j])
    check(ca.outer(ca.from_array(a2, chunks=3), ca.from_array(b2, chunks=2)), np.outer(a2, b2))


# 5. nancumsum/nancumprod with an integer dtype replace NaN before the cast
def test_nancumsum_integer_dtype():
    a = np.array([1., np.nan, 2.])
    x = ca.from_array(a, chunks=2)
    check(ca.nancumsum(x, dtype="int16"), np.nancumsum(a, dtype="int16"))
    check(ca.nancumprod(x, dtype="int32"), np.nancumprod(a, dtype="int32"))
    check(ca.nansum(x, dtype="int16"), np.nansum(a, dtype="int16"))


# 6. integer overflow wraps like NumPy (and is no UB: the ASan+UBSan build runs this too)
@pytest.mark.parametrize("dt", ["int64", "int32", "int8", "uint64", "uint16"])
def test_integer_overflow_wraps(dt):
    info = np.iinfo(dt)
    a = np.array([info.max // 2 + 1, 4, 3, info.max, info.min + 1], dtype=dt)
    x = ca.from_array(a, chunks=2)
    with np.errstate(over="ignore"):
        check(x.prod(), a.prod())
        check(x.sum(), a.sum())
        check(ca.nanprod(x), np.nanprod(a))
        check(ca.nansum(x), np.nansum(a))
        check(ca.cumsum(x), np.cumsum(a))
        check(ca.cumprod(x), np.cumprod(a))
        check(ca.nancumsum(x), np.nancumsum(a))
        check(x.sum(dtype=dt), a.sum(dtype=dt))
        check(x.prod(dtype=dt), a.prod(dtype=dt))
        check(ca.cumsum(x, dtype=dt), np.cumsum(a, dtype=dt))
        check(ca.cumprod(x, dtype=dt), np.cumprod(a, dtype=dt))
    check(ca.from_array(np.array([2**62, 4, 3])).prod(), np.array([2**62, 4, 3]).prod())


# 7. assigning values with extra leading size-1 dimensions
def test_setitem_drops_leading_ones():
    a = np.arange(4)
    x = ca.from_array(a.copy(), chunks=3)
    x[1] = np.array([[3]])
    a[1] = np.array([[3]])
    check(x, a)
    b = np.zeros((2, 3))
    y = ca.from_array(b.copy(), chunks=2)
    y[0] = np.ones((1, 1, 3))
    b[0] = np.ones((1, 1, 3))
    check(y, b)
    z = ca.from_array(np.arange(3.), chunks=2)
    z[3:] = np.zeros((1, 1, 0))
    check(z, np.arange(3.))
    with pytest.raises(ValueError):
        z[0] = np.ones((2, 1))


# 8. unsigned dtype= over negative values: NumPy casts each element to the dtype first
def test_reduction_unsigned_dtype():
    i8 = np.array([-6, 4], np.int8)
    check(ca.from_array(i8, chunks=1).mean(dtype="uint32"), i8.mean(dtype="uint32"))
    f = np.array([-1.5, -2, 3.25, 1])
    check(ca.from_array(f, chunks=3).sum(dtype="uint32"), f.sum(dtype="uint32"))
    check(ca.from_array(f, chunks=3).prod(dtype="int16"), f.prod(dtype="int16"))
    i = np.array([100, 100, 100], np.int64)
    check(ca.from_array(i, chunks=2).mean(dtype="int8"), i.mean(dtype="int8"))
    check(ca.from_array(f, chunks=3).astype("uint32").sum(dtype="uint32"), f.astype("uint32").sum(dtype="uint32"))
    with pytest.raises(TypeError):
        ca.nanmean(ca.from_array(f), dtype="int32")


# 9. nanvar/nanstd with ddof >= count are NaN (var/std: inf, as NumPy)
def test_nanvar_ddof_too_large():
    a = np.array([[1., np.nan, 3.], [np.nan, np.nan, 2.]])
    x = ca.from_array(a, chunks=2)
    for ddof in (1, 2, 3):
        for ax in (None, 0, 1):
            check(ca.nanvar(x, axis=ax, ddof=ddof), _quiet(np.nanvar, a, axis=ax, ddof=ddof))
            check(ca.nanstd(x, axis=ax, ddof=ddof), _quiet(np.nanstd, a, axis=ax, ddof=ddof))
    b = np.array([1., 2.])
    check(ca.from_array(b).var(ddof=2), _quiet(np.var, b, ddof=2))
    check(ca.from_array(np.array([1, 2])).var(ddof=3), _quiet(np.var, np.array([1, 2]), ddof=3))


def _quiet(f, *a, **kw):
    import warnings
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return f(*a, **kw)


# unknown chunk sizes: scans, stack, squeeze (dask computes these)
def test_unknown_sizes_scan_stack_squeeze():
    y = masked_1d()
    check(ca.cumsum(y, axis=0), np.array([1., 4., 8.]))
    check(ca.cumprod(y, axis=0), np.array([1., 3., 12.]))
    check(ca.stack([y, y]), np.array([[1., 3., 4.], [1., 3., 4.]]))
    check(ca.squeeze(y[None]), np.array([1., 3., 4.]))
    a = np.arange(12.).reshape(4, 3) - 3
    x = ca.from_array(a, chunks=2)
    z = x[x[:, 0] > 0]
    check(ca.cumsum(z, axis=1), np.cumsum(a[a[:, 0] > 0], axis=1))
    check(ca.cumsum(z, axis=0), np.cumsum(a[a[:, 0] > 0], axis=0))
