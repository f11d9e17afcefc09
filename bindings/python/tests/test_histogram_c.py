"""histogram / histogram2d / histogramdd through the C library (ca_array_histogramdd), against NumPy's
values and dtypes and dask's chunks: ragged and N-d chunks, empty, size-1 and 0-d inputs, bool/int/
float samples, weights of several dtypes, density, explicit (also chunked Array) edges, values on the
edges, NaN, out-of-range values, fused expressions and errors."""
import warnings

import dask.array as da
import numpy as np
import pytest

import chunkarray as ca

RNG = np.random.default_rng(16)


def same(h, expected, exact=True, rtol=1e-12):
    got = h.compute() if isinstance(h, ca.Array) else h
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape
    if exact:
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=0, equal_nan=True)


def samples(dtype, shape):
    if dtype == np.bool_:
        return RNG.random(shape) < 0.4
    if np.issubdtype(dtype, np.integer):
        return RNG.integers(-3, 12, size=shape).astype(dtype)
    x = RNG.normal(0.5, 0.4, size=shape).astype(dtype)
    flat = x.reshape(-1)
    if flat.size > 8:  # values exactly on edges, NaN, out of range
        flat[:6] = [0.0, 1.0, 0.25, np.nan, -5.0, 7.0]
    return x


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.uint8, np.bool_, np.int64])
@pytest.mark.parametrize("chunks", [((4, 5, 1), (3, 8)), ((9, 1), (11,))])
def test_histogram_uniform(dtype, chunks):
    x = samples(dtype, (10, 11))
    a = ca.from_array(x, chunks=chunks)
    for bins, rng in ((4, (0, 1)), (7, (-2.5, 9)), (1, (0.5, 0.5)), (3, (0, 0))):
        h, e = ca.histogram(a, bins=bins, range=rng)
        nh, ne = np.histogram(x, bins=bins, range=rng)
        same(h, nh)
        assert h.chunks == ((bins,),)
        same(e, ne)
        hd, _ = ca.histogram(a, bins=bins, range=rng, density=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            same(hd, np.histogram(x, bins=bins, range=rng, density=True)[0], exact=False)
    # dask's chunks for the same call
    dh, _ = da.histogram(da.from_array(x, chunks=chunks), bins=4, range=(0, 1))
    assert ca.histogram(a, bins=4, range=(0, 1))[0].chunks == dh.chunks


@pytest.mark.parametrize("wdtype", [np.float64, np.float32, np.int64, np.int16, np.complex128, np.bool_])
def test_histogram_weights(wdtype):
    x = samples(np.float64, (23,))
    w = (RNG.random(23) * 5).astype(wdtype) if wdtype != np.bool_ else RNG.random(23) < 0.5
    if wdtype == np.complex128:
        w = w + 1j * RNG.random(23)
    a, wa = ca.from_array(x, chunks=((5, 9, 9),)), ca.from_array(w, chunks=7)
    for bins in (5, [0, 0.1, 0.5, 0.9, 1.0]):
        kw = dict(bins=bins, range=(0, 1)) if np.ndim(bins) == 0 else dict(bins=bins)
        h, _ = ca.histogram(a, weights=wa, **kw)
        if wdtype == np.bool_ and np.ndim(bins):  # NumPy fails; ours: as its uniform bins (any weight set)
            nh = np.histogram(x, weights=w.astype(np.int64), **kw)[0].astype(bool)
        else:
            nh = np.histogram(x, weights=w, **kw)[0]
        # float32: NumPy sums the explicit-edge bins by a float32 cumsum of the sorted weights
        same(h, nh, exact=wdtype not in (np.float32, np.float64, np.complex128),
             rtol=2e-6 if wdtype == np.float32 else 1e-12)
        if wdtype != np.bool_:
            hd, _ = ca.histogram(a, weights=wa, density=True, **kw)
            same(hd, np.histogram(x, weights=w, density=True, **kw)[0], exact=False,
                 rtol=2e-6 if wdtype == np.float32 else 1e-12)


def test_histogram_edges():
    x = samples(np.float64, (40,))
    a = ca.from_array(x, chunks=((13, 13, 14),))
    edges = np.array([-1.0, 0.0, 0.25, 0.25, 1.0, 1.5])  # a repeated edge, values on edges
    h, e = ca.histogram(a, bins=edges)
    nh, ne = np.histogram(x, bins=edges)
    same(h, nh)
    np.testing.assert_array_equal(e, ne)
    same(ca.histogram(a, bins=edges, density=True)[0], np.histogram(x, bins=edges, density=True)[0], exact=False)
    # integer edges with integer data; a chunked edges Array (dask's bins Array) comes back as given
    xi = RNG.integers(0, 10, 50)
    ei = np.array([0, 2, 3, 7, 9])
    be = ca.from_array(ei, chunks=2)
    h, e = ca.histogram(ca.from_array(xi, chunks=11), bins=be)
    same(h, np.histogram(xi, bins=ei)[0])
    assert e is be
    same(ca.histogram(ca.from_array(xi, chunks=11), bins=be, density=True)[0],
         np.histogram(xi, bins=ei, density=True)[0], exact=False)
    # one edge: no bins
    same(ca.histogram(a, bins=[0.5])[0], np.histogram(x, bins=[0.5])[0])
    # edges that decrease fail the compute with NumPy's message
    h, _ = ca.histogram(a, bins=ca.from_array(np.array([0.0, 2.0, 1.0])))
    with pytest.raises(Exception, match="must increase monotonically"):
        h.compute()
    with pytest.raises(ValueError, match="must increase monotonically"):  # NumPy edges: at the call, as NumPy
        ca.histogram(a, bins=[0.0, 2.0, 1.0])


def test_histogram_small_and_fused():
    # empty, size 1, 0-d
    for x, chunks in ((np.zeros(0), 3), (np.array([0.5]), 1), (np.array(1.0), ())):
        a = ca.from_array(x, chunks=chunks)
        same(ca.histogram(a, bins=3, range=(0, 1))[0], np.histogram(x, bins=3, range=(0, 1))[0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            same(ca.histogram(a, bins=3, range=(0, 1), density=True)[0],
                 np.histogram(x, bins=3, range=(0, 1), density=True)[0], exact=False)
    # an expression of the input and a generated input: fused into the counting task
    x = samples(np.float64, (6, 50))
    a = ca.from_array(x, chunks=(4, 17))
    h, _ = ca.histogram(np.sin(a) * 2 + 1, bins=9, range=(-1, 3), weights=a * a)
    same(h, np.histogram(np.sin(x) * 2 + 1, bins=9, range=(-1, 3), weights=x * x)[0], exact=False)
    # fused: the graph is the input, the counting tasks, the sums and the finish (no stored expression)
    kinds = sorted(name.rsplit("-", 1)[0] for name in h.graph().layers())
    assert kinds == ["array", "histogram", "histogram-chunk", "histogram-sum"], kinds
    r = ca.arange(100, chunks=30) / 7
    same(ca.histogram(r, bins=6, range=(0, 14))[0], np.histogram(np.arange(100) / 7, bins=6, range=(0, 14))[0])


def test_histogram_errors():
    a = ca.from_array(np.arange(5.0), chunks=2)
    with pytest.raises(ValueError, match="max must be larger than min"):
        ca.histogram(a, bins=3, range=(2, 1))
    with pytest.raises(ValueError, match="not finite"):
        ca.histogram(a, bins=3, range=(0, np.inf))
    with pytest.raises(ValueError, match="must be positive"):
        ca.histogram(a, bins=0, range=(0, 1))
    with pytest.raises(ValueError, match="requires either"):
        ca.histogram(a, bins=3)
    with pytest.raises(TypeError):
        ca.histogram(ca.from_array(np.ones(3, np.complex128)), bins=3, range=(0, 1))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16])
def test_histogramdd(dtype):
    pts = samples(dtype, (60, 3))
    x = ca.from_array(pts, chunks=((20, 7, 33), (2, 1)))
    rng = [(0, 1), (-1, 2), (0.5, 0.5)]
    h, e = ca.histogramdd(x, bins=(3, 4, 2), range=rng)
    nh, ne = np.histogramdd(pts, bins=(3, 4, 2), range=rng)
    same(h, nh)
    assert h.chunks == ((3,), (4,), (2,))
    for got, exp in zip(e, ne):
        same(got, exp)
    w = RNG.random(60)
    for density in (False, True):
        h, _ = ca.histogramdd(x, bins=(3, 4, 2), range=rng, weights=ca.from_array(w, chunks=9), density=density)
        same(h, np.histogramdd(pts, bins=(3, 4, 2), range=rng, weights=w, density=density)[0], exact=False)
    edges = [np.array([0.0, 0.2, 1.0]), np.array([-1, 0, 1, 2]), np.array([0.0, 1.0])]
    h, e = ca.histogramdd([x[:, 0], x[:, 1], x[:, 2]], bins=edges)
    same(h, np.histogramdd(pts, bins=edges)[0])
    dh, _ = da.histogramdd(da.from_array(pts, chunks=(20, 3)), bins=edges)
    assert h.chunks == dh.chunks
    with pytest.raises(ValueError, match="monotonically"):
        ca.histogramdd(x, bins=[np.array([0.0, 2.0, 1.0])] * 3)


def test_histogram2d():
    a, b = samples(np.float64, (31,)), samples(np.float64, (31,))
    x, y = ca.from_array(a, chunks=10), ca.from_array(b, chunks=((1, 30),))
    h, xe, ye = ca.histogram2d(x, y, bins=(3, 5), range=[(0, 1), (-1, 1)])
    nh, nxe, nye = np.histogram2d(a, b, bins=(3, 5), range=[(0, 1), (-1, 1)])
    same(h, nh)
    same(xe, nxe)
    same(ye, nye)
    w = RNG.integers(0, 4, 31)
    h, _, _ = ca.histogram2d(x, y, bins=[0, 0.5, 1], weights=ca.from_array(w, chunks=10), density=True)
    same(h, np.histogram2d(a, b, bins=[0, 0.5, 1], weights=w, density=True)[0], exact=False)
    h, _, _ = ca.histogram2d(ca.zeros((0,), chunks=1), ca.zeros((0,), chunks=1), bins=2, range=[(0, 1), (0, 1)])
    same(h, np.histogram2d(np.zeros(0), np.zeros(0), bins=2, range=[(0, 1), (0, 1)])[0])

