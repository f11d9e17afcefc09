"""NumPy routines (routines.h) against NumPy values and dask.array's chunks: *_like, indices, meshgrid,
broadcast_arrays, tril/triu(+_indices), diagonal, sort/argsort, unique, isin, union1d, searchsorted,
digitize, nonzero, flatnonzero, argwhere, take, roll, rot90, rollaxis, dstack, atleast_3d."""
import dask
import dask.array as da
import numpy as np
import pytest

import chunkarray as ca

dask.config.set(scheduler="synchronous")

RNG = np.random.default_rng(7)
CH2 = ((1, 3), (2, 1, 3))  # a ragged (4, 6)
DTYPES = [np.float64, np.float32, np.int32, np.int8, np.uint16, np.bool_, np.complex128]


def sample(shape, dtype, nans=False):
    """Values with repeats and zeros (and NaNs for floats when asked)."""
    x = RNG.integers(-3, 4, size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.integers(-1, 2, size=shape)
    x = np.asarray(x).astype(dtype)
    if nans and np.dtype(dtype).kind == "f" and x.size:
        x.flat[:: 5] = np.nan
    return x


def both(x, chunks):
    return ca.from_array(x, chunks=chunks), da.from_array(x, chunks=chunks)


def norm_chunks(c):
    return tuple(tuple("nan" if s != s else int(s) for s in dim) for dim in c)


def check(got, expected, d=None):
    r = got.compute()
    expected = np.asarray(expected)
    assert r.shape == expected.shape, (r.shape, expected.shape)
    assert r.dtype == expected.dtype, (r.dtype, expected.dtype)
    np.testing.assert_array_equal(r, expected)
    if d is not None:
        assert norm_chunks(got.chunks) == norm_chunks(d.chunks), (got.chunks, d.chunks)


# ---- creation ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_like(dtype):
    a = sample((4, 6), dtype)
    x, d = both(a, CH2)
    check(ca.zeros_like(x), np.zeros_like(a), da.zeros_like(d))
    check(ca.ones_like(x), np.ones_like(a), da.ones_like(d))
    check(ca.full_like(x, 2), np.full_like(a, 2), da.full_like(d, 2))
    check(ca.empty_like(x).astype(bool) | True, np.ones(a.shape, bool))  # shape/dtype only
    assert ca.empty_like(x).dtype == a.dtype and ca.empty_like(x).chunks == d.chunks
    check(ca.full_like(x, -2.5, dtype=np.int16), np.full_like(a, -2.5, dtype=np.int16),
          da.full_like(d, -2.5, dtype=np.int16))
    check(ca.ones_like(x, shape=(3, 5)), np.ones_like(a, shape=(3, 5)), da.ones_like(d, shape=(3, 5)))
    check(ca.zeros_like(x, chunks=2), np.zeros_like(a), da.zeros_like(d, chunks=2))


def test_like_edge_cases():
    for a, ch in [(np.float32(3.5), ()), (np.zeros((0, 3)), ((0,), (2, 1))), (np.ones(1), ((1,),))]:
        x, d = both(np.asarray(a), ch)
        check(ca.full_like(x, 7), np.full_like(a, 7), da.full_like(d, 7))
    with pytest.raises(ValueError, match="fill_value must be scalar"):
        ca.full_like(ca.ones(3), [1, 2, 3])
    unknown = ca.from_array(np.arange(5.0), chunks=2)
    unknown = unknown[unknown > 1]
    with pytest.raises(ca.InvalidArgumentError, match="unknown"):
        ca.zeros_like(unknown)


@pytest.mark.parametrize("dims,chunks,dtype", [((3, 4), 2, int), ((5, 2, 3), ((1, 4), (2,), (2, 1)), np.float32),
                                               ((7,), 3, np.int16), ((0, 3), (1, 2), int), ((1, 1), 1, np.uint8)])
def test_indices(dims, chunks, dtype):
    check(ca.indices(dims, dtype=dtype, chunks=chunks), np.indices(dims, dtype=dtype),
          da.indices(dims, dtype=dtype, chunks=chunks))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
def test_meshgrid(indexing, sparse):
    arrs = [(sample((5,), np.float64), ((2, 3),)), (sample((3,), np.int32), ((1, 1, 1),)),
            (sample((2, 2), np.int8), ((1, 1), (2,)))]
    xs = [ca.from_array(a, chunks=c) for a, c in arrs]
    ds = [da.from_array(a, chunks=c) for a, c in arrs]
    want = np.meshgrid(*[a for a, _ in arrs], indexing=indexing, sparse=sparse)
    got = ca.meshgrid(*xs, indexing=indexing, sparse=sparse)
    dk = da.meshgrid(*ds, indexing=indexing, sparse=sparse)
    assert len(got) == 3
    for g, w, d in zip(got, want, dk):
        check(g, w, d)
    assert ca.meshgrid() == []
    with pytest.raises(ValueError):
        ca.meshgrid(xs[0], indexing="yx")


def test_broadcast_arrays():
    arrs = [(sample((4, 1), np.float64), ((1, 3), (1,))), (sample((6,), np.int16), ((4, 2),)),
            (sample((3, 4, 6), np.float32), ((1, 2), (2, 2), (3, 3))), (sample((), np.int8), ())]
    xs = [ca.from_array(a, chunks=c) for a, c in arrs]
    ds = [da.from_array(a, chunks=c) for a, c in arrs]
    for g, w, d in zip(ca.broadcast_arrays(*xs), np.broadcast_arrays(*[a for a, _ in arrs]), da.broadcast_arrays(*ds)):
        check(g, w, d)
    with pytest.raises(ca.InvalidArgumentError, match="shape mismatch"):
        ca.broadcast_arrays(ca.ones(3), ca.ones(4))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", [-2, 0, 1, 9])
def test_tril_triu(dtype, k):
    a = sample((4, 6), dtype)
    x, d = both(a, CH2)
    check(ca.tril(x, k), np.tril(a, k), da.tril(d, k))
    check(ca.triu(x, k), np.triu(a, k), da.triu(d, k))
    b = sample((2, 3, 5), dtype)
    x, d = both(b, ((1, 1), (2, 1), (3, 2)))
    check(ca.tril(x, k), np.tril(b, k), da.tril(d, k))


@pytest.mark.parametrize("n,k,m,chunks", [(5, 0, None, 2), (5, -1, 4, ((2, 3), (1, 3))), (4, 2, 6, 3), (0, 0, None, 1),
                                          (1, 0, 1, 1)])
def test_tri_indices(n, k, m, chunks):
    for name in ("tril_indices", "triu_indices"):
        got = getattr(ca, name)(n, k, m, chunks=chunks)
        want = getattr(np, name)(n, k, m)
        dk = getattr(da, name)(n, k, m, chunks=chunks)
        for g, w, d in zip(got, want, dk):
            check(g, w.astype(np.int64), d)
    a = sample((4, 6), np.float64)
    x, d = both(a, CH2)
    for name in ("tril_indices_from", "triu_indices_from"):
        for g, w, dd in zip(getattr(ca, name)(x, 1), getattr(np, name)(a, 1), getattr(da, name)(d, 1)):
            check(g, w.astype(np.int64), dd)
    with pytest.raises(ValueError, match="2-d"):
        ca.tril_indices_from(ca.ones(3))


@pytest.mark.parametrize("offset,axis1,axis2", [(0, 0, 1), (1, 0, 1), (-2, 0, 1), (7, 0, 1), (2, 1, 0), (0, 0, 2),
                                                (-1, 2, 0), (1, -1, -2)])
def test_diagonal(offset, axis1, axis2):
    a = sample((4, 6, 5), np.float64)
    x, d = both(a, ((1, 3), (2, 1, 3), (2, 3)))
    check(ca.diagonal(x, offset, axis1, axis2), np.diagonal(a, offset, axis1, axis2), da.diagonal(d, offset, axis1, axis2))
    b = sample((4, 6), np.int32)
    x, d = both(b, CH2)
    if max(axis1, axis2) < 2 and min(axis1, axis2) >= -2:
        check(ca.diagonal(x, offset, axis1, axis2), np.diagonal(b, offset, axis1, axis2),
              da.diagonal(d, offset, axis1, axis2))
    with pytest.raises(ca.InvalidArgumentError, match="at least two"):
        ca.diagonal(ca.ones(3))


# ---- sorting, sets, searching -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_sort_argsort(dtype, axis):
    a = sample((4, 6), dtype, nans=True)
    x = ca.from_array(a, chunks=CH2)
    check(ca.sort(x, axis=axis), np.sort(a, axis=axis))
    check(ca.argsort(x, axis=axis), np.argsort(a, axis=axis, kind="stable"))
    if axis is not None:
        expected_chunks = list(CH2)
        expected_chunks[axis] = (a.shape[axis],)
        assert ca.sort(x, axis=axis).chunks == tuple(expected_chunks)
        # descending as numpy.array_api: flip(sort(flip(x))), indices n - 1 - flip(argsort(flip(x)))
        check(ca.sort(x, axis=axis, descending=True), np.flip(np.sort(np.flip(a, axis), axis=axis), axis))
        check(ca.argsort(x, axis=axis, descending=True),
              a.shape[axis] - 1 - np.flip(np.argsort(np.flip(a, axis), axis=axis, kind="stable"), axis))
    assert np.sort(x, axis=-1 if axis is None else axis).__class__ is ca.Array  # __array_function__


def test_sort_edge_cases():
    check(ca.sort(ca.from_array(np.zeros(0), chunks=1)), np.zeros(0))
    check(ca.sort(ca.from_array(np.array([2]), chunks=1)), np.array([2]))
    with pytest.raises(ca.InvalidArgumentError):
        ca.sort(ca.from_array(np.float64(1.0)))
    with pytest.raises(ca.DTypeError):
        ca.sort(ca.from_array(np.array(["b", "a"])))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,chunks", [((4, 6), CH2), ((9,), ((2, 7),)), ((0,), ((0,),)), ((), ())])
def test_unique(dtype, shape, chunks):
    a = sample(shape, dtype, nans=True)
    x, d = both(a, chunks)
    want = np.unique(a, True, True, True)
    got = ca.unique(x, True, True, True)
    dk = da.unique(d, True, True, True) if shape != () else [None] * 4
    for g, w, dd in zip(got, want, dk):
        check(g, w if w.dtype == a.dtype else w.astype(np.int64), dd)
    check(ca.unique(x), np.unique(a))
    if np.dtype(dtype).kind == "f":
        check(ca.unique(x, equal_nan=False), np.unique(a, equal_nan=False))


def test_unique_of_unknown_sizes():
    a = np.array([3, 1, 3, 0, 2, 1, 7])
    x = ca.from_array(a, chunks=3)
    sel = x[x > 0]
    check(ca.unique(sel), np.unique(a[a > 0]))
    check(ca.unique(sel, return_counts=True)[1], np.unique(a[a > 0], return_counts=True)[1])


@pytest.mark.parametrize("dtype", [np.float64, np.int8, np.complex128, np.bool_])
@pytest.mark.parametrize("invert", [False, True])
def test_isin(dtype, invert):
    a = sample((4, 6), dtype, nans=True)
    t = np.array([2, 0, -3, 9], dtype=np.float64)
    t[1] = np.nan
    x, d = both(a, CH2)
    ct, dt = both(t, 3)
    check(ca.isin(x, ct, invert=invert), np.isin(a, t, invert=invert), da.isin(d, dt, invert=invert))
    check(ca.isin(x, [1, 2], invert=invert), np.isin(a, [1, 2], invert=invert))


def test_union1d():
    a, b = sample((3, 4), np.int16), sample((5,), np.float32, nans=True)
    (x, d), (y, e) = both(a, ((1, 2), (4,))), both(b, ((2, 3),))
    check(ca.union1d(x, y), np.union1d(a, b), da.union1d(d, e))


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("vdtype", [np.float64, np.int32, np.uint8])
def test_searchsorted(side, vdtype):
    s = np.array([-5.0, 0, 0, 3, 3, 3, 10, np.nan])
    v = sample((4, 6), vdtype, nans=True)
    (cs, ds), (x, d) = both(s, ((3, 5),)), both(v, CH2)
    check(ca.searchsorted(cs, x, side=side), np.searchsorted(s, v, side=side), da.searchsorted(ds, d, side=side))
    v0 = np.array(2.5)
    check(ca.searchsorted(cs, v0, side=side), np.searchsorted(s, v0, side=side))
    unsorted = np.array([4.0, -1, 9, 2, 2.5])
    order = np.argsort(unsorted)
    check(ca.searchsorted(ca.from_array(unsorted, chunks=2), x, side=side, sorter=ca.from_array(order, chunks=3)),
          np.searchsorted(unsorted, v, side=side, sorter=order))


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("bins", [[-2.0, 0, 0, 4, 11], [11.0, 4, 0, 0, -2], [1.0], []])
def test_digitize(right, bins):
    bins = np.array(bins)
    v = sample((4, 6), np.float64, nans=True)
    x, d = both(v, CH2)
    check(ca.digitize(x, bins, right=right), np.digitize(v, bins, right=right), da.digitize(d, bins, right=right))


def test_digitize_errors():
    x = ca.from_array(np.arange(4.0), chunks=2)
    with pytest.raises(ca.ChunkArrayError, match="monotonically"):
        ca.digitize(x, np.array([1.0, 3, 2])).compute()
    with pytest.raises(ca.DTypeError, match="complex"):
        ca.digitize(x.astype(complex), np.array([1.0]))


@pytest.mark.parametrize("dtype", [np.int32, np.bool_, np.float64, np.complex64])
@pytest.mark.parametrize("shape,chunks", [((4, 6), CH2), ((3, 4, 5), ((1, 2), (2, 2), (5,))), ((9,), ((4, 5),)),
                                          ((0, 3), ((0,), (2, 1)))])
def test_nonzero_argwhere(dtype, shape, chunks):
    a = sample(shape, dtype)
    x, d = both(a, chunks)
    if a.size == 0:  # dask cannot ravel an empty multi-block array (NotImplementedError): values only
        check(ca.argwhere(x), np.argwhere(a))
        check(ca.flatnonzero(x), np.flatnonzero(a))
        for g, w in zip(ca.nonzero(x), np.nonzero(a)):
            check(g, w)
        return
    check(ca.argwhere(x), np.argwhere(a), da.argwhere(d))
    check(ca.flatnonzero(x), np.flatnonzero(a), da.flatnonzero(d))
    got, want, dk = ca.nonzero(x), np.nonzero(a), da.nonzero(d)
    assert len(got) == len(want)
    for g, w, dd in zip(got, want, dk):
        check(g, w, dd)


def test_argwhere_0d():
    check(ca.argwhere(ca.from_array(np.float64(2.0))), np.argwhere(np.float64(2.0)))
    check(ca.argwhere(ca.from_array(np.float64(0.0))), np.argwhere(np.float64(0.0)))
    with pytest.raises(ValueError):
        ca.nonzero(ca.from_array(np.float64(2.0)))


# ---- manipulation -----------------------------------------------------------------------------------

@pytest.mark.parametrize("indices,axis", [([0, 3, 1], 0), ([5, -1, 0, 0], 1), (np.array([2, 2]), -1), ([1, 7], None)])
def test_take(indices, axis):
    a = sample((4, 6), np.float32)
    x, d = both(a, CH2)
    check(ca.take(x, indices, axis=axis), np.take(a, indices, axis=axis),
          da.take(d, indices, axis=axis) if axis is not None else None)


@pytest.mark.parametrize("shift,axis", [(2, None), (-7, None), (3, 1), (-1, 0), (13, -1), ((1, 2), (0, 1)), (0, 1),
                                        (2, (0, 1))])
def test_roll(shift, axis):
    a = sample((4, 6), np.int64)
    x, d = both(a, CH2)
    check(ca.roll(x, shift, axis), np.roll(a, shift, axis), da.roll(d, shift, axis) if axis != (0, 1) or
          not isinstance(shift, int) else None)


@pytest.mark.parametrize("k", [1, 2, 3, -1, 4])
@pytest.mark.parametrize("axes", [(0, 1), (1, 0), (-1, 0)])
def test_rot90(k, axes):
    a = sample((3, 4, 5), np.int16)
    x, d = both(a, ((1, 2), (4,), (2, 3)))
    check(ca.rot90(x, k, axes), np.rot90(a, k, axes), da.rot90(d, k, axes))


@pytest.mark.parametrize("axis,start", [(2, 0), (0, 3), (1, 1), (-1, -2), (0, 2)])
def test_rollaxis(axis, start):
    a = sample((2, 3, 4), np.float32)
    x, d = both(a, ((1, 1), (3,), (2, 2)))
    check(ca.rollaxis(x, axis, start), np.rollaxis(a, axis, start), da.rollaxis(d, axis, start))


def test_atleast_3d_dstack():
    arrs = [np.float64(1.5), np.arange(4.0), np.arange(8.0).reshape(2, 4), np.ones((2, 3, 4))]
    for a in arrs:
        x, d = both(a, "auto")
        check(ca.atleast_3d(x), np.atleast_3d(a), da.atleast_3d(d))
    ps = [np.arange(4.0).reshape(2, 2), np.ones((2, 2), np.int32)]
    (x, d), (y, e) = both(ps[0], 1), both(ps[1], 2)
    check(ca.dstack([x, y]), np.dstack(ps), da.dstack([d, e]))
