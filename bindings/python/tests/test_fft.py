"""chunkarray.fft (fft.h) against numpy.fft (values, dtypes) and dask.array.fft (output chunks, errors)
on ragged chunks along the axes not transformed, several dtypes, empty and size-1 axes, n smaller and
larger than the axis, every norm."""
import dask
import dask.array as da
import numpy as np
import pytest

import chunkarray as ca
from chunkarray import fft as cfft

dask.config.set(scheduler="synchronous")

RNG = np.random.default_rng(17)
NORMS = [None, "backward", "ortho", "forward"]


def data(shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return RNG.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        return RNG.integers(-50 if dtype.kind == "i" else 0, 50, shape).astype(dtype)
    x = RNG.standard_normal(shape)
    if dtype.kind == "c":
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dtype)


def check(got, expected, d=None):
    """got: a chunkarray result; expected: NumPy's; d: dask's for the same call (its chunks)."""
    r = got.compute()
    assert r.dtype == expected.dtype, (r.dtype, expected.dtype)
    assert r.shape == expected.shape, (r.shape, expected.shape)
    scale = max(1.0, float(np.max(np.abs(expected)))) if expected.size else 1.0
    np.testing.assert_allclose(r, expected, rtol=1e-10, atol=1e-11 * scale)
    if d is not None:
        assert got.chunks == d.chunks, (got.chunks, d.chunks)
        assert got.dtype == d.dtype, (got.dtype, d.dtype)  # dask's declared dtype (complex128 for float32 too)


ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128", "complex64", "int32", "bool"])
def test_1d_ragged_rows(name, dtype):
    x = data((7, 12), dtype)
    if name in ("rfft", "ihfft") and np.dtype(dtype).kind == "c":
        x = x.real.copy()  # NumPy warns and drops the imaginary part; tested once below
    a, d = ca.from_array(x, chunks=((2, 5), (12,))), da.from_array(x, chunks=((2, 5), (12,)))
    f, df, nf = getattr(cfft, name), getattr(da.fft, name), getattr(np.fft, name)
    for n in (None, 5, 12, 17):
        check(f(a, n=n), nf(x, n=n), df(d, n=n))
        for norm in NORMS:
            check(f(a, n=n, norm=norm), nf(x, n=n, norm=norm))


@pytest.mark.parametrize("name", ONE_D)
def test_1d_leading_axis(name):
    x = data((9, 10), "complex128" if name in ("fft", "ifft", "irfft", "hfft") else "float64")
    a, d = ca.from_array(x, chunks=((9,), (3, 4, 3))), da.from_array(x, chunks=((9,), (3, 4, 3)))
    f, df, nf = getattr(cfft, name), getattr(da.fft, name), getattr(np.fft, name)
    for n in (None, 4, 9, 16):
        check(f(a, n=n, axis=0), nf(x, n=n, axis=0), df(d, n=n, axis=0))
        check(f(a, n=n, axis=-2, norm="ortho"), nf(x, n=n, axis=-2, norm="ortho"))


def test_rfft_of_complex_drops_imaginary_part():
    x = data((3, 8), "complex128")
    with pytest.warns(np.ComplexWarning):
        expected = np.fft.rfft(x)
    check(cfft.rfft(ca.from_array(x)), expected)


@pytest.mark.parametrize("n", [1, 2, 3, 97, 127, 257, 1009, 4099, 4096, 2 * 2003])
def test_lengths_primes_and_powers(n):
    x = data((2, n), "float64")
    a = ca.from_array(x, chunks=(1, n))
    check(cfft.fft(a), np.fft.fft(x))
    check(cfft.rfft(a), np.fft.rfft(x))
    check(cfft.irfft(cfft.rfft(a), n=n), np.fft.irfft(np.fft.rfft(x), n=n))
    check(cfft.ifft(a.astype(np.complex128)), np.fft.ifft(x))


ND = ["fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn"]


@pytest.mark.parametrize("name", ND)
def test_nd(name):
    x = data((4, 6, 5), "complex128" if name.startswith(("fft", "ifft", "irfft")) else "float64")
    f, df, nf = getattr(cfft, name), getattr(da.fft, name), getattr(np.fft, name)
    # The last two axes transformed, the first ragged.
    a, d = ca.from_array(x, chunks=((1, 3), (6,), (5,))), da.from_array(x, chunks=((1, 3), (6,), (5,)))
    for s in (None, (3, 8), (6, 5), (7, 2)):
        check(f(a, s=s, axes=(-2, -1)), nf(x, s=s, axes=(-2, -1)), df(d, s=s, axes=(-2, -1)))
        for norm in NORMS:
            check(f(a, s=s, axes=(1, 2), norm=norm), nf(x, s=s, axes=(1, 2), norm=norm))
    # Axes in another order (the real axis is the last listed), over the first and last axes.
    b, db = ca.from_array(x, chunks=((4,), (2, 4), (5,))), da.from_array(x, chunks=((4,), (2, 4), (5,)))
    check(f(b, axes=(2, 0)), nf(x, axes=(2, 0)), df(db, axes=(2, 0)))
    check(f(b, s=(3, 6), axes=(0, -1)), nf(x, s=(3, 6), axes=(0, -1)), df(db, s=(3, 6), axes=(0, -1)))
    if name.endswith("n"):
        # Every axis by default.
        w, dw = ca.from_array(x, chunks=-1), da.from_array(x, chunks=-1)
        check(f(w), nf(x), df(dw))
        # dask's default axes with s: the first len(s) axes (NumPy would take the last).
        check(f(b.rechunk((4, 6, 5)), s=(5, 3)), nf(x, s=(5, 3), axes=(0, 1)), df(dw, s=(5, 3)))


def test_empty_and_size_one():
    e = np.zeros((0, 8))
    a, d = ca.from_array(e, chunks=((0,), (8,))), da.from_array(e, chunks=((0,), (8,)))
    check(cfft.fft(a), np.fft.fft(e), da.fft.fft(d))
    check(cfft.rfft(a), np.fft.rfft(e), da.fft.rfft(d))
    check(cfft.irfft(a), np.fft.irfft(e), da.fft.irfft(d))
    check(cfft.fft2(ca.from_array(np.zeros((3, 0, 4)), chunks=-1), axes=(0, 2)),
          np.fft.fft2(np.zeros((3, 0, 4)), axes=(0, 2)))
    one = data((5, 1), "float64")
    b = ca.from_array(one, chunks=((2, 3), (1,)))
    check(cfft.fft(b), np.fft.fft(one), da.fft.fft(da.from_array(one, chunks=((2, 3), (1,)))))
    check(cfft.rfft(b), np.fft.rfft(one))
    check(cfft.ihfft(b), np.fft.ihfft(one))
    check(cfft.irfft(b, n=1), np.fft.irfft(one, n=1))
    check(cfft.fft(ca.from_array(np.array([2.5]))), np.fft.fft(np.array([2.5])))
    # irfft of one point without n: 2 * (1 - 1) = 0 points, NumPy's error.
    with pytest.raises(ValueError, match=r"Invalid number of FFT data points \(0\) specified"):
        cfft.irfft(b)
    with pytest.raises(ValueError, match=r"Invalid number of FFT data points \(0\) specified"):
        cfft.fft(a, n=0)
    with pytest.raises(ValueError, match=r"Invalid number of FFT data points \(0\) specified"):
        cfft.fft(ca.from_array(np.zeros((2, 0)), chunks=((1, 1), (0,))))


def test_several_chunks_is_dasks_error():
    x = data((6, 8), "float64")
    a, d = ca.from_array(x, chunks=(3, 4)), da.from_array(x, chunks=(3, 4))
    for name, kw in (("fft", {}), ("rfft", {"axis": 0}), ("fft2", {}), ("irfftn", {"axes": (1,)})):
        with pytest.raises(ValueError) as want:
            getattr(da.fft, name)(d, **kw)
        with pytest.raises(ValueError) as got:
            getattr(cfft, name)(a, **kw)
        assert str(want.value) in str(got.value), (str(got.value), str(want.value))
    # Rechunked, it works.
    check(cfft.fft(a.rechunk({1: -1})), np.fft.fft(x), da.fft.fft(d.rechunk({1: -1})))


def test_argument_errors():
    a = ca.from_array(data((4, 6), "float64"), chunks=-1)
    with pytest.raises(ValueError, match="Duplicate axes not allowed"):
        cfft.fftn(a, axes=(1, 1))
    with pytest.raises(ValueError, match="Duplicate axes not allowed"):
        cfft.fftn(a, axes=(1, -1))
    with pytest.raises(ValueError, match="Invalid norm value"):
        cfft.fft(a, norm="bogus")
    with pytest.raises(ValueError, match="Shape and axes have different lengths"):
        cfft.fftn(a, s=(2, 3), axes=(0,))
    with pytest.raises(ValueError, match="out of range|out of bounds"):
        cfft.fft(a, axis=2)
    with pytest.raises(TypeError):
        cfft.fft(ca.from_array(np.array(["a", "b"])))


@pytest.mark.parametrize("n", [1, 2, 7, 10, 33])
@pytest.mark.parametrize("chunks", [3, "auto", (2, 1, -1)])
def test_fftfreq(n, chunks):
    for d_ in (1.0, 0.1):
        ch = chunks
        if isinstance(chunks, tuple):
            ch = 2 if n > 3 else -1
        check(cfft.fftfreq(n, d_, chunks=ch), np.fft.fftfreq(n, d_), da.fft.fftfreq(n, d_, chunks=ch))
        check(cfft.rfftfreq(n, d_, chunks=ch), np.fft.rfftfreq(n, d_), da.fft.rfftfreq(n, d_, chunks=ch))


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_shifts(name):
    f, df, nf = getattr(cfft, name), getattr(da.fft, name), getattr(np.fft, name)
    for shape, chunks in (((9,), ((2, 3, 4),)), ((5, 8), ((5,), (3, 5))), ((4, 7, 1), ((1, 3), (7,), (1,))),
                          ((1,), ((1,),)), ((0, 3), ((0,), (2, 1)))):
        x = data(shape, "float64")
        a, d = ca.from_array(x, chunks=chunks), da.from_array(x, chunks=chunks)
        check(f(a), nf(x), df(d))
        for axes in (0, -1, (0,), tuple(range(len(shape))), (-1, 0)):
            check(f(a, axes=axes), nf(x, axes=axes), df(d, axes=axes))


def test_round_trips_and_composition():
    x = data((3, 10, 6), "complex128")
    a = ca.from_array(x, chunks=((1, 2), (10,), (6,)))
    check(cfft.ifftn(cfft.fftn(a, axes=(1, 2)), axes=(1, 2)), x.astype(np.complex128))
    r = data((5, 16), "float32")
    b = ca.from_array(r, chunks=((2, 3), (16,)))
    check(cfft.irfft(cfft.rfft(b, norm="ortho"), norm="ortho"), np.fft.irfft(np.fft.rfft(r, norm="ortho"),
                                                                           norm="ortho"))
    check(cfft.fftshift(cfft.fftfreq(10, 0.5, chunks=4)), np.fft.fftshift(np.fft.fftfreq(10, 0.5)))


def test_backend_and_exports():
    assert cfft.backend() in ("pocketfft", "kissfft", "fftw3")
    assert "fft" in ca.__all__ and ca.fft is cfft
    assert len([n for n in cfft.__all__ if n not in ("backend", "fft_wrap")]) == 18


def test_unknown_chunks_float16_and_padding_an_empty_axis():
    x = data((8, 6), "float64")
    keep = x[:, 0] > 0
    a = ca.from_array(x, chunks=((3, 5), (6,)))
    u = a[a[:, 0] > 0]  # rows of unknown count: the transformed axis is known, the other is not
    r = cfft.rfft(u)
    assert any(np.isnan(c) for c in r.chunks[0])
    check(r, np.fft.rfft(x[keep]))
    h = data((4, 10), "float16")
    check(cfft.fft(ca.from_array(h, chunks=(2, 10))), np.fft.fft(h))
    check(cfft.rfft(ca.from_array(h, chunks=(2, 10)), n=7), np.fft.rfft(h, n=7))
    e = np.zeros((3, 0))
    check(cfft.fft(ca.from_array(e, chunks=((1, 2), (0,))), n=4), np.fft.fft(e, n=4))
    check(cfft.irfft(ca.from_array(e.astype(complex), chunks=((1, 2), (0,))), n=5), np.fft.irfft(e, n=5))
    i = RNG.integers(-9, 9, (5, 7)).astype(np.int64)
    check(cfft.hfft(ca.from_array(i, chunks=((2, 3), (7,))), n=11, norm="ortho"), np.fft.hfft(i, n=11, norm="ortho"))


def test_numpy_fft_functions_dispatch_lazily():
    import warnings
    x = data((4, 6), "float64")
    a = ca.from_array(x, chunks=((1, 3), (6,)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a computed fallback would warn (ComputeWarning)
        for name in ("fft", "rfft", "ihfft"):
            r = getattr(np.fft, name)(a, n=5, norm="ortho")
            assert isinstance(r, ca.Array)
            check(r, getattr(np.fft, name)(x, n=5, norm="ortho"))
        r = np.fft.fftshift(a, axes=0)
        assert isinstance(r, ca.Array)
        check(r, np.fft.fftshift(x, axes=0))


def test_fft_wrap_numpy_and_other_functions():
    import dask.array as da
    import scipy.fft
    x = np.random.default_rng(5).normal(size=(6, 8))
    a = ca.from_array(x, chunks=(3, 8))
    got = ca.fft.fft_wrap(scipy.fft.fft2)(ca.from_array(x, chunks=(6, 8)), s=(4, 5))
    want = da.fft.fft_wrap(scipy.fft.fft2)(da.from_array(x, chunks=(6, 8)), s=(4, 5))
    assert got.chunks == want.chunks
    np.testing.assert_allclose(got.compute(), want.compute(), rtol=1e-12, atol=1e-12)
    for f in (np.fft.fft, np.fft.rfft, np.fft.ihfft, np.fft.fft2, np.fft.rfftn, np.fft.irfft):
        ours = ca.fft.fft_wrap(f)
        theirs = da.fft.fft_wrap(f)
        kw = {} if f.__name__.endswith(("2", "n")) else {}
        b = ca.from_array(x, chunks=(6, 8)) if f.__name__.endswith(("2", "n")) else a
        db = da.from_array(x, chunks=b.chunks)
        got, want = ours(b, **kw), theirs(db, **kw)
        assert got.chunks == want.chunks, f.__name__
        np.testing.assert_allclose(got.compute(), want.compute(), rtol=1e-12, atol=1e-12)
    # a function that is not NumPy's runs per block, with dask's chunks and sizes
    for f, kind, n in ((scipy.fft.fft, None, 5), (scipy.fft.rfft, None, None), (scipy.fft.irfft, None, 10),
                       (scipy.fft.ihfft, "ihfft", 7)):
        got = ca.fft.fft_wrap(f, kind=kind)(a, n=n)
        want = da.fft.fft_wrap(f, kind=kind)(da.from_array(x, chunks=(3, 8)), n=n)
        assert got.chunks == want.chunks and got.dtype == want.dtype
        np.testing.assert_allclose(got.compute(), want.compute(), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="single chunk"):
        ca.fft.fft_wrap(scipy.fft.fft)(ca.from_array(x, chunks=(3, 4)))
    with pytest.raises(ValueError, match="unknown `kind`"):
        ca.fft.fft_wrap(np.sum)
