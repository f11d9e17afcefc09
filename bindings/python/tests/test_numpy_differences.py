"""Each row of docs/numpy-differences.md: NumPy 1.24 does one thing, chunkarray deliberately another.
Both sides are asserted, so a change in either library shows up here."""
import warnings

import dask.array as da
import numpy as np
import pytest

import chunkarray as ca

NUMPY_1 = np.lib.NumpyVersion(np.__version__) < "2.0.0"


def quiet(f):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return f()


def test_zero_d_array_operand_is_not_value_based():
    a, z = np.array([1, 2], np.int8), np.array(1, np.int64)
    if NUMPY_1:
        assert (a + z).dtype == np.int8
    r = ca.from_array(a) + ca.from_array(z)
    assert r.dtype == np.int64
    np.testing.assert_array_equal(r.compute(), a.astype(np.int64) + 1)
    # a reduction's 0-d result keeps its dtype in later arithmetic
    s = ca.from_array(np.array([100, 100], np.int64)).sum()
    assert (ca.from_array(a) + s).dtype == np.int64


def test_zero_d_array_with_python_scalar():
    z = np.array(1, np.int8)
    if NUMPY_1:
        assert (z + 1).dtype == np.int64
    r = ca.from_array(z) + 1
    assert r.dtype == np.int8 and r.compute() == 2


@pytest.mark.parametrize("adt,scalar,want", [("int8", np.int64(3), "int64"), ("float32", np.float64(0.1), "float64"),
                                             ("uint8", np.uint16(2), "uint16")])
def test_numpy_scalar_keeps_its_type(adt, scalar, want):
    a = np.array([1, 2], adt)
    if NUMPY_1:
        assert (a + scalar).dtype == np.dtype(adt)
    r = ca.from_array(a) + scalar
    assert r.dtype == np.dtype(want)
    np.testing.assert_array_equal(r.compute(), a.astype(want) + np.array(scalar).astype(want))


@pytest.mark.parametrize("fn", ["sqrt", "rint", "sin", "exp", "log1p", "floor"])
@pytest.mark.parametrize("dt", ["bool", "int8", "uint8"])
def test_math_of_small_ints_is_float16(fn, dt):
    # NumPy's smallest float that holds every value: float16 for bool and 8-bit integers.
    a = np.array([1, 0, 1, 1, 0], dt) if dt == "bool" else np.arange(-3 if dt == "int8" else 0, 7).astype(dt)
    want = getattr(np, fn)(a)
    assert want.dtype == np.float16
    r = getattr(ca, fn)(ca.from_array(a, chunks=3))
    assert r.dtype == np.float16
    np.testing.assert_array_equal(r.compute(), want)


def test_assignment_out_of_range_float_raises():
    a = np.zeros(3, np.int8)
    quiet(lambda: a.__setitem__(0, 1e10))  # NumPy stores something, without an error
    x = ca.from_array(np.zeros(3, np.int8), chunks=2)
    with pytest.raises(ValueError, match="out of bounds"):
        x[0] = 1e10
    x[0] = 2.7  # in range: truncated as NumPy does
    assert x.compute()[0] == 2


def test_python_int_beyond_uint64_raises():
    a = np.array([1], np.uint64)
    if NUMPY_1:
        assert quiet(lambda: a + 2**64).dtype == object
    with pytest.raises(OverflowError):
        ca.from_array(a) + 2**64
    assert (ca.from_array(a) + 2**63).compute()[0] == 2**63 + 1


def test_data_dependent_error_is_kernel_error():
    a = np.array([1., 2.])
    with pytest.raises(ValueError):
        a[a > 9].min()
    x = ca.from_array(a, chunks=1)
    with pytest.raises(ca.KernelError, match="zero-size array to reduction operation minimum"):
        x[x > 9].min().compute()
    assert issubclass(ca.KernelError, RuntimeError)


def test_complex_power_nonfinite_uses_cpow():
    a = np.array([16 + 0j], np.complex64)
    want = quiet(lambda: np.power(a, 64))  # overflows complex64
    got = quiet(lambda: ca.power(ca.from_array(a), 64).compute())
    assert got.dtype == want.dtype == np.complex64
    assert np.isnan(want.real[0]) and np.isnan(want.imag[0])  # npy_cpow: nan+nanj
    assert np.isinf(got.real[0])  # C's cpowf: inf in the real part


def test_pad_reflect_wider_than_axis():
    a = np.arange(3.)
    assert np.pad(a, 3, mode="reflect").shape == (9,)
    with pytest.raises(ValueError, match="wider reflections are not supported"):
        ca.pad(ca.from_array(a), 3, mode="reflect")


def test_unknown_chunk_sizes_like_dask():
    a = np.array([1., -2., 3., 4.])
    x = ca.from_array(a, chunks=2)
    d = da.from_array(a, chunks=2)
    y, dy = x[x > 0], d[d > 0]
    for mode in ("edge", "reflect"):
        with pytest.raises(ValueError):
            da.pad(dy, 1, mode=mode)
        with pytest.raises(ValueError, match="compute_chunk_sizes"):
            ca.pad(y, 1, mode=mode)
    np.testing.assert_array_equal(ca.pad(y, 1).compute(), da.pad(dy, 1).compute())
    np.testing.assert_array_equal(ca.stack([y, y]).compute(), da.stack([dy, dy]).compute())
    np.testing.assert_array_equal(ca.squeeze(y[None]).compute(), da.squeeze(dy[None]).compute())
    np.testing.assert_array_equal(ca.cumsum(y, axis=0).compute(), da.cumsum(dy, axis=0).compute())


def test_complex_matmul_overflow_blas():
    a = np.zeros((2, 1, 5), np.complex64)
    a[1, 0, 4] = 1e30
    want = quiet(lambda: np.matmul(a, np.swapaxes(a, -1, -2))).ravel()
    x = ca.from_array(a)
    got = quiet(lambda: ca.matmul(x, ca.swapaxes(x, -1, -2)).compute()).ravel()
    np.testing.assert_array_equal(got.real, want.real)  # 0 and inf
    assert want.imag[1] == 0 and np.isnan(got.imag[1])  # BLAS's alpha = 1+0i times inf
    # an outer product (contracted extent 1) follows NumPy exactly
    b = np.array([0.25 - 2.75j, 1e30], np.complex64)
    np.testing.assert_array_equal(quiet(lambda: ca.outer(ca.from_array(b), ca.from_array(b)).compute()),
                                  quiet(lambda: np.outer(b, b)))


def test_max_min_of_signed_zeros_returns_first_operand():
    a, b = np.array([0.0, -0.0]), np.array([-0.0, 0.0])
    for fn in ("maximum", "minimum"):
        got = getattr(ca, fn)(ca.from_array(a), ca.from_array(b)).compute()
        want = getattr(np, fn)(a, b)
        np.testing.assert_array_equal(got, want)  # equal values: +0.0 == -0.0
        np.testing.assert_array_equal(np.signbit(got), np.signbit(a))  # the first operand's zero


def test_complex_prod_with_inf_follows_dask():
    # NaN parts of complex products with inf depend on the multiplication order and on the levels of
    # the reduction tree: chunkarray's tree gives what dask's gives, not always NumPy's flat loop.
    for a in (np.array([np.inf + 0j]), np.array([np.inf + 0j, 2 + 0j]), np.array([1 + 0j, np.inf + 0j, 2 + 1j])):
        for chunks in (1, a.size):
            with np.errstate(all="ignore"):
                want = da.from_array(a, chunks=chunks).prod().compute()
            got = ca.from_array(a, chunks=chunks).prod().compute()
            np.testing.assert_array_equal(np.isnan([got.real, got.imag]), np.isnan([want.real, want.imag]))
    with np.errstate(all="ignore"):
        assert np.isnan(np.prod(np.array([np.inf + 0j])).imag) and np.isinf(np.prod(np.array([np.inf + 0j])).real)


def test_float16_var_squares_in_float32():
    a = np.array([0, 300, -300, 10], np.float16)
    assert np.isinf(quiet(lambda: a.std()))               # NumPy squares in float16: 300**2 overflows
    x = ca.from_array(a, chunks=3)
    got = x.std().compute()
    assert got.dtype == np.float16
    assert got == a.astype(np.float32).std().astype(np.float16)
    c = ca.from_array(np.full(300, 0.1, np.float16), chunks=64).cumsum().compute()
    assert c[-1] == np.float16(np.full(300, 0.1, np.float16).astype(np.float32).cumsum()[-1])
    assert c[-1] != np.full(300, 0.1, np.float16).cumsum()[-1]


def test_unit_multipliers_rejected():
    np.zeros(2, "M8[5s]")                                   # NumPy has them
    for dt in ["M8[5s]", "M8", "m8"]:
        with pytest.raises(ca.DTypeError):
            ca.from_array(np.zeros(2, dt), chunks=1)


def test_sinc_i0_float16_rounded_once():
    h = np.array([0.0, 0.5, -1.5, 7.0, 9.0], np.float16)
    assert np.isnan(quiet(lambda: np.sinc(h))[0])
    got = ca.sinc(ca.from_array(h, chunks=2)).compute()
    assert got.dtype == np.float16 and got[0] == 1
    np.testing.assert_allclose(got, np.sinc(h.astype(np.float32)).astype(np.float16), rtol=1e-3)
    np.testing.assert_allclose(ca.i0(ca.from_array(h, chunks=2)).compute(), np.i0(h.astype(np.float64)).astype(np.float16),
                               rtol=1e-3)
    x = np.array([0.0, 0.25, -3.0, 12.5])
    np.testing.assert_allclose(ca.sinc(ca.from_array(x, chunks=3)).compute(), np.sinc(x), rtol=1e-15)
    np.testing.assert_allclose(ca.i0(ca.from_array(x, chunks=3)).compute(), np.i0(x), rtol=1e-15)


def test_fftn_s_without_axes_takes_the_first_axes():
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_allclose(np.fft.fftn(x, s=(3, 5)), np.fft.fftn(x, s=(3, 5), axes=(1, 2)))   # NumPy: the last
    d = da.fft.fftn(da.from_array(x, chunks=-1), s=(3, 5)).compute()
    np.testing.assert_allclose(d, np.fft.fftn(x, s=(3, 5), axes=(0, 1)))                          # dask: the first
    got = ca.fft.fftn(ca.from_array(x, chunks=-1), s=(3, 5)).compute()
    np.testing.assert_allclose(got, d)


def test_bincount_length_is_found_by_the_compute():
    x = np.array([0, 3, 3, 7, 1, 0, 9])
    a = ca.from_array(x, chunks=3)
    for m in (0, 4, 15):
        r = ca.bincount(a, minlength=m)
        assert np.isnan(r.shape[0])  # NumPy's length is known; here it is after the compute
        assert np.array_equal(r.compute(), np.bincount(x, minlength=m))
    d = da.bincount(da.from_array(x, chunks=3), minlength=4)
    assert d.chunks == ((4,),) and d.compute().shape == (10,)  # dask's declared length is wrong here


def test_random_same_law_other_values():
    import scipy.stats as st
    x = ca.random.default_rng(0).gamma(2.0, size=20000, chunks=3000).compute()
    y = np.random.default_rng(0).gamma(2.0, size=20000)
    assert not np.array_equal(x, y)  # other bits
    assert st.ks_2samp(x, y).pvalue > 1e-4  # same law
    np.testing.assert_array_equal(x, ca.random.default_rng(0).gamma(2.0, size=20000, chunks=777).compute())
    # dask's RandomState: values depend on the chunks
    a = da.random.RandomState(0).gamma(2.0, size=100, chunks=50).compute()
    b = da.random.RandomState(0).gamma(2.0, size=100, chunks=25).compute()
    assert not np.array_equal(a, b)


def test_histogram_numpy_differences():
    """float16 samples are placed in float32 (the edges are NumPy's float16 ones); histogramdd sums complex
    weights (NumPy raises)."""
    # float16: the edges are NumPy's (float16), values are placed in float32
    x = np.array([0.1, 0.2, 0.7, 0.95, 1.0], np.float16)
    h, e = ca.histogram(ca.from_array(x, chunks=2), bins=4, range=(0, 1))
    assert e.dtype == np.float16
    np.testing.assert_array_equal(e, np.histogram(x, bins=4, range=(0, 1))[1])
    np.testing.assert_array_equal(h.compute(), np.histogram(x.astype(np.float32), bins=4, range=(0, 1))[0])
    # histogramdd with complex weights: NumPy raises, chunkarray sums in complex128
    p = np.array([0.1, 0.6, 0.7])
    w = np.array([1 + 2j, 3j, 1.0])
    h, _ = ca.histogramdd([ca.from_array(p)], bins=[2], range=[(0, 1)], weights=ca.from_array(w))
    assert h.dtype == np.complex128
    np.testing.assert_array_equal(h.compute(), [1 + 2j, 1 + 3j])
    with pytest.raises(TypeError):
        np.histogramdd(p[:, None], bins=[2], range=[(0, 1)], weights=w)
