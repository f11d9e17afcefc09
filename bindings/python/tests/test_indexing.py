"""Indexing through slicing.h (x[...], vindex, setitem, unknown chunk sizes) against NumPy and dask.array."""
import math

import dask
import dask.array as da
import numpy as np
import pytest

import chunkarray as ca

dask.config.set(scheduler="synchronous")

RNG = np.random.default_rng(11)
X = RNG.standard_normal((13, 17))
CH = ((5, 5, 3), (4, 4, 4, 5))


def both(x=X, chunks=CH):
    return ca.from_array(x, chunks=chunks), da.from_array(x, chunks=chunks)


def same_chunks(a, b):
    """Chunks equal, NaN (unknown) matching NaN."""
    assert len(a) == len(b), (a, b)
    for ca_, cb in zip(a, b):
        assert len(ca_) == len(cb), (a, b)
        for u, v in zip(ca_, cb):
            assert (math.isnan(u) and math.isnan(v)) or u == v, (a, b)


def check(x, d, expected):
    r = x.compute()
    assert r.shape == expected.shape and r.dtype == expected.dtype
    np.testing.assert_array_equal(r, expected)
    if d is not None:
        same_chunks(x.chunks, d.chunks)
        np.testing.assert_array_equal(r, d.compute())


@pytest.mark.parametrize("index", [
    5, -1, (2, 3), slice(None, None, -1), (slice(12, 2, -3), slice(None, None, -2)), (None, Ellipsis, None),
    (Ellipsis, 4), (slice(2, 9), None, -3), (), (Ellipsis,), (slice(-100, 100), slice(3, 3)),
])
def test_basic(index):
    x, d = both()
    check(x[index], d[index], X[index])


@pytest.mark.parametrize("index", [
    [0, 4, 5, 12], [12, 0, 3, 3, -1], (slice(None), [1, 2, 16, 0]), (Ellipsis, [3]), ([], slice(None)),
    (slice(2, 10), [5, 4, 3]), (3, [0, 8, 16]), (np.array([7, 1]), slice(None, None, -1)), (None, [1, 2]),
])
def test_integer_lists(index):
    x, d = both()
    check(x[index], d[index], X[index])


def test_boolean_numpy_masks():
    x, d = both()
    rows = X[:, 0] > 0
    cols = np.arange(17) % 3 == 0
    check(x[rows], d[rows], X[rows])
    check(x[:, cols], d[:, cols], X[:, cols])
    check(x[rows.tolist(), 2:5], d[rows.tolist(), 2:5], X[rows, 2:5])
    m2 = X > 0.5  # a mask over both axes: its true positions, in order
    np.testing.assert_array_equal(x[m2].compute(), X[m2])
    with pytest.raises(IndexError):
        x[np.ones(12, bool)]


def test_boolean_array_mask_unknown_chunks():
    x, d = both()
    y, e = x[x > 0], d[d > 0]
    assert y.ndim == 1 and math.isnan(y.shape[0]) and math.isnan(e.shape[0])
    assert all(math.isnan(c) for c in y.chunks[0]) and len(y.chunks[0]) == len(e.chunks[0])
    assert not y.chunks_known and math.isnan(y.size)
    np.testing.assert_array_equal(y.compute(), X[X > 0])
    np.testing.assert_allclose(y.mean().compute(), X[X > 0].mean())
    np.testing.assert_allclose((y * 2).sum().compute(), (e * 2).sum().compute())
    with pytest.raises(ValueError, match="unknown"):
        y[:3]
    with pytest.raises(ValueError):
        len(y)
    z = y.compute_chunk_sizes()
    assert z is y and y.chunks_known
    e.compute_chunk_sizes()
    assert y.chunks == e.chunks and y.shape == (int((X > 0).sum()),)
    check(y[:3], e[:3], X[X > 0][:3])
    # a 1-d boolean Array along one axis
    rm = x[:, 0] > 0
    r = x[rm]
    assert math.isnan(r.shape[0]) and r.shape[1] == 17
    np.testing.assert_array_equal(r.compute(), X[X[:, 0] > 0])
    cm = ca.from_array(np.arange(17) % 2 == 0, chunks=4)
    np.testing.assert_array_equal(x[:, cm].compute(), X[:, np.arange(17) % 2 == 0])
    np.testing.assert_array_equal(ca.compute(x[x > 1])[0], X[X > 1])


def test_integer_array_index():
    x, d = both()
    idx = np.array([3, 0, 12, 5, 5, 7])
    xi, di = ca.from_array(idx, chunks=4), da.from_array(idx, chunks=4)
    check(x[xi], d[di], X[idx])
    check(x[:, xi], d[:, di], X[:, idx])
    # an index array with unknown sizes: the positions of the positive entries of column 0
    pos = ca.from_array(np.arange(13), chunks=5)[x[:, 0] > 0]
    np.testing.assert_array_equal(x[pos].compute(), X[np.arange(13)[X[:, 0] > 0]])
    with pytest.raises(ca.KernelError, match="out of bounds"):
        x[ca.from_array(np.array([1, 40]), chunks=1)].compute()


def test_vindex():
    x, d = both()
    i, j = [0, 3, 12, 7], [16, 2, 0, 5]
    check(x.vindex[i, j], d.vindex[i, j], X[i, j])
    check(x.vindex[[1, 2, 1]], d.vindex[[1, 2, 1]], X[[1, 2, 1]])
    ii, jj = np.array([[0, 1], [2, 12]]), np.array([[3], [4]])  # broadcast to (2, 2)
    np.testing.assert_array_equal(x.vindex[ii, jj].compute(), X[ii, jj])
    np.testing.assert_array_equal(x.vindex[3, [1, 2]].compute(), X[3, [1, 2]])
    np.testing.assert_array_equal(x.vindex[[1, 2], 2:9].compute(), X[[1, 2], 2:9])
    with pytest.raises(IndexError):
        x.vindex[[0, 20], [0, 0]]


def test_setitem():
    x, d = both()
    a = X.copy()
    y = x
    x[1:4, ::-3] = 7.0
    d[1:4, ::-3] = 7.0
    a[1:4, ::-3] = 7.0
    check(x, d, a)
    assert y is x
    x[[0, 12, 5], 2] = -1
    d[[0, 12, 5], 2] = -1
    a[[0, 12, 5], 2] = -1
    check(x, d, a)
    v = np.arange(17.0)
    x[6] = v
    d[6] = v
    a[6] = v
    check(x, d, a)
    x[..., 0] = ca.from_array(np.arange(13.0), chunks=4)
    a[..., 0] = np.arange(13.0)
    np.testing.assert_array_equal(x.compute(), a)
    x[x > 1] = 0  # a boolean Array key: where(mask, value, x)
    d2 = da.from_array(a, chunks=CH)
    d2[d2 > 1] = 0
    a[a > 1] = 0
    check(x, d2, a)
    x[np.abs(a) < 0.1] = 5.5  # a NumPy mask of x's shape
    a[np.abs(a) < 0.1] = 5.5
    np.testing.assert_array_equal(x.compute(), a)
    x[x < -1] = 2 * ca.ones(x.shape, chunks=CH)
    a[a < -1] = 2
    np.testing.assert_array_equal(x.compute(), a)
    i = ca.from_array(np.arange(6), chunks=3)
    i[2:4] = 2.9  # float into an integer array truncates, as NumPy
    np.testing.assert_array_equal(i.compute(), [0, 1, 2, 2, 4, 5])
    assert i.dtype == np.int64
    with pytest.raises(ValueError, match="broadcast"):
        x[0:2] = np.ones((3, 17))
    with pytest.raises(IndexError):
        x[20] = 1.0


def test_slicing_matches_numpy_everywhere():
    """Every slice of a 1-d array with ragged and empty blocks (negative steps, out-of-range bounds)."""
    a = np.arange(9.0)
    for chunks in [(9,), ((4, 0, 5),), (2,)]:
        x = ca.from_array(a, chunks=chunks)
        for s in [None] + list(range(-11, 12, 2)):
            for e in [None] + list(range(-11, 12, 3)):
                for st in [None, 1, 2, -1, -2, -3]:
                    sl = slice(s, e, st)
                    np.testing.assert_array_equal(x[sl].compute(), a[sl], err_msg=f"{chunks} {sl}")
                    y = ca.from_array(a, chunks=chunks)
                    b = a.copy()
                    y[sl] = -1.0
                    b[sl] = -1.0
                    np.testing.assert_array_equal(y.compute(), b, err_msg=f"setitem {chunks} {sl}")


def test_small_slice_reads_only_its_blocks():
    calls = []

    def f(b):
        calls.append(b.shape)
        return b

    x = ca.from_array(np.arange(100.0), chunks=10).map_blocks(f, dtype=float)
    np.testing.assert_array_equal(x[25:27].compute(), [25.0, 26.0])
    assert len(calls) == 1
