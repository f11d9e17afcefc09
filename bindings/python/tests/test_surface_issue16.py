"""The rest of issue 16's surface against NumPy values and dask.array's chunks: insert, delete, append,
compress, extract, choose, select, coarsen (routines.h), and the Python compositions (apply_along_axis,
apply_over_axes, piecewise, ravel_multi_index, unravel_index, histogram2d/dd, vdot, fromfunction,
frompyfunc, array, asanyarray, shape, ndim, result_type, gufunc, to/from_npy_stack) and Array methods
(blocks, partitions, to_delayed, A, itemsize, copy, view, choose, nonzero, trace, moment, topk,
argtopk, store)."""
import warnings

import dask
import dask.array as da
import numpy as np
import pytest

import chunkarray as ca

dask.config.set(scheduler="synchronous")

RNG = np.random.default_rng(16)
DTYPES = [np.float64, np.float32, np.int64, np.int8, np.uint16, np.bool_, np.complex128]


def sample(shape, dtype):
    x = RNG.integers(-3, 4, size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.integers(-1, 2, size=shape)
    return np.asarray(x).astype(dtype)


def both(x, chunks):
    return ca.from_array(x, chunks=chunks), da.from_array(x, chunks=chunks)


def norm_chunks(c):
    return tuple(tuple("nan" if s != s else int(s) for s in dim) for dim in c)


def check(got, expected, d=None, exact_dtype=True):
    r = np.asarray(got.compute())
    expected = np.asarray(expected)
    assert r.shape == expected.shape, (r.shape, expected.shape)
    if exact_dtype:
        assert r.dtype == expected.dtype, (r.dtype, expected.dtype)
    if r.dtype.kind in "fc":
        np.testing.assert_allclose(r, expected, rtol=1e-6, atol=1e-9, equal_nan=True)
    else:
        np.testing.assert_array_equal(r, expected)
    if d is not None:
        assert norm_chunks(got.chunks) == norm_chunks(d.chunks), (got.chunks, d.chunks)


# ---- insert, delete, append -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_insert_1d(dtype):
    a = sample(9, dtype)
    x, d = both(a, ((3, 2, 4),))
    v = sample(4, dtype)
    for obj in ([0, 2, 2, 9], [1, 5, 7, 8], [9, 9, 9, 9]):  # monotonic: dask's chunks too
        check(ca.insert(x, obj, v, axis=0), np.insert(a, obj, v), da.insert(d, obj, da.asarray(v), axis=0))
    check(ca.insert(x, [3, -1, 1, 1], v, axis=0), np.insert(a, [3, -1, 1, 1], v))  # NumPy's order
    check(ca.insert(x, 4, 7, axis=0), np.insert(a, 4, 7), da.insert(d, 4, 7, axis=0))
    check(ca.insert(x, 2, v[:3], axis=0), np.insert(a, 2, v[:3]))  # a block at one position
    check(ca.insert(x, slice(1, 8, 3), v[:3], axis=0), np.insert(a, slice(1, 8, 3), v[:3]))
    check(ca.insert(x, [], [], axis=0), np.insert(a, [], []))


def test_insert_nd_and_casts():
    a = sample((4, 6), np.int32)
    x, d = both(a, ((1, 3), (2, 1, 3)))
    col = np.array([10, 20, 30, 40])
    check(ca.insert(x, 1, col, axis=1), np.insert(a, 1, col, axis=1), da.insert(d, 1, da.asarray(col), axis=1))
    check(ca.insert(x, [0, 6], 2.7, axis=1), np.insert(a, [0, 6], 2.7, axis=1))  # cast to int32 as NumPy
    check(ca.insert(x, [2], np.arange(6), axis=0), np.insert(a, [2], np.arange(6), axis=0))
    check(ca.insert(x, [1, 3], ca.from_array(np.ones((4, 2), np.int32), chunks=1), axis=-1),
          np.insert(a, [1, 3], np.ones((4, 2), np.int32), axis=-1))
    check(ca.insert(x, 3, 5, axis=None), np.insert(a, 3, 5))
    check(ca.insert(ca.zeros((0, 3), chunks=1), 0, 1.5, axis=0), np.insert(np.zeros((0, 3)), 0, 1.5, axis=0))
    check(ca.insert(ca.zeros((0,), chunks=1), [0, 0], [1.0, 2.0], axis=0), np.insert(np.zeros(0), [0, 0], [1, 2]))
    with pytest.raises(ca.InvalidArgumentError, match="out of bounds"):
        ca.insert(x, 7, 0, axis=1)
    with pytest.raises(ca.InvalidArgumentError, match="broadcast"):
        ca.insert(x, [1, 2], np.ones((3, 2)), axis=1)
    with pytest.raises(np.AxisError):
        ca.insert(x, 0, 0, axis=2)


@pytest.mark.parametrize("dtype", DTYPES)
def test_delete(dtype):
    a = sample((7, 5), dtype)
    x, d = both(a, ((2, 4, 1), (3, 2)))
    for obj in ([0], [1, 2, 5], [6, -7, 3, 3], slice(None, None, 2), []):
        check(ca.delete(x, obj, axis=0), np.delete(a, obj, axis=0), da.delete(d, obj, axis=0))
    mask = np.arange(7) % 3 == 0  # NumPy's boolean mask (dask reads it as the positions 0 and 1)
    check(ca.delete(x, mask, axis=0), np.delete(a, mask, axis=0))
    check(ca.delete(x, 4, axis=1), np.delete(a, 4, axis=1), da.delete(d, 4, axis=1))
    check(ca.delete(x, [0, 34, 12], axis=None), np.delete(a, [0, 34, 12]))
    check(ca.delete(ca.from_array(np.arange(1.0), chunks=1), 0, axis=0), np.delete(np.arange(1.0), 0))
    with pytest.raises(ca.InvalidArgumentError, match="index 7 is out of bounds for axis 0 with size 7"):
        ca.delete(x, 7, axis=0)


def test_append():
    a, b = sample((3, 4), np.float32), sample((3, 2), np.int16)
    (x, d), (y, e) = both(a, ((1, 2), (3, 1))), both(b, ((2, 1), 1))
    check(ca.append(x, y, axis=1), np.append(a, b, axis=1), da.append(d, e, axis=1))
    check(ca.append(x, y), np.append(a, b), da.append(d, e))
    check(ca.append(ca.from_array(np.float64(2.0)), [1, 2]), np.append(2.0, [1, 2]))


# ---- compress, extract ------------------------------------------------------------------------------

def test_compress_extract():
    a = sample((5, 6), np.int16)
    x, d = both(a, ((2, 3), (4, 2)))
    cond = [True, False, True, True, False]
    check(ca.compress(cond, x, axis=0), np.compress(cond, a, axis=0), da.compress(cond, d, axis=0))
    check(ca.compress(cond[:3], x, axis=1), np.compress(cond[:3], a, axis=1), da.compress(cond[:3], d, axis=1))
    check(ca.compress([0, 1, 1], x), np.compress([0, 1, 1], a), da.compress([0, 1, 1], d))
    lazy = ca.from_array(np.array(cond), chunks=2)
    got = ca.compress(lazy, x, axis=0)
    assert any(c != c for c in got.chunks[0])  # unknown sizes, as dask's
    check(got, np.compress(cond, a, axis=0))
    check(ca.extract(a % 2 == 0, x), np.extract(a % 2 == 0, a))
    check(ca.extract(x > 0, x), np.extract(a > 0, a))
    with pytest.raises(ValueError, match="one dimensional"):
        ca.compress([[True]], x)


# ---- choose, select ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_choose(dtype):
    idx = RNG.integers(0, 3, size=(4, 6)).astype(np.int8)
    cs = [sample((4, 6), dtype), sample((6,), dtype), sample((4, 1), dtype)]
    (x, d) = both(idx, ((1, 3), (2, 4)))
    cx = [ca.from_array(c, chunks=2) for c in cs]
    cd = [da.from_array(c, chunks=2) for c in cs]
    check(ca.choose(x, cx), np.choose(idx, cs), da.choose(d, cd))
    check(x.choose(cx), np.choose(idx, cs))
    big = idx.astype(np.int64) * 3 - 2
    for mode in ("wrap", "clip"):
        check(ca.choose(ca.from_array(big, chunks=3), cs, mode=mode), np.choose(big, cs, mode=mode))
    bad = ca.choose(ca.from_array(big, chunks=3), cs)
    with pytest.raises(ca.ChunkArrayError, match="invalid entry in choice array"):
        bad.compute()


def test_choose_dtypes_and_errors():
    idx = np.array([0, 1, 1, 0])
    check(ca.choose(idx, [np.arange(4, dtype=np.int8), np.full(4, 0.5, np.float32)]),
          np.choose(idx, [np.arange(4, dtype=np.int8), np.full(4, 0.5, np.float32)]))
    check(ca.choose(np.array([], np.int64), [np.array([]), np.array([])]),
          np.choose(np.array([], np.int64), [np.array([]), np.array([])]))
    check(ca.choose(np.int64(1), [5, 7]), np.choose(1, [5, 7]))  # 0-d
    with pytest.raises(ca.DTypeError):
        ca.choose(np.array([0.5]), [[1.0]])
    with pytest.raises(ValueError):
        ca.choose(idx, [np.arange(4)], mode="nope")


@pytest.mark.parametrize("dtype", DTYPES)
def test_select(dtype):
    a = sample((5, 4), dtype)
    x, d = both(a, ((2, 3), (1, 3)))
    conds_np = [a.real > 1, a.real < -1, a.real == 0]
    choices_np = [a, a * 2, np.ones_like(a)]
    conds = [x.real > 1, x.real < -1, x.real == 0]
    choices = [x, x * 2, ca.ones_like(x)]
    dconds = [d.real > 1, d.real < -1, d.real == 0]
    dchoices = [d, d * 2, da.ones_like(d)]
    check(ca.select(conds, choices), np.select(conds_np, choices_np), da.select(dconds, dchoices))
    check(ca.select(conds, choices, default=3), np.select(conds_np, choices_np, default=3))
    check(ca.select(conds[:1], [x], default=np.arange(4)), np.select(conds_np[:1], [a], default=np.arange(4)))


def test_select_promotion_and_errors():
    c = np.array([True, False, False])
    check(ca.select([c, ~c], [np.arange(3, dtype=np.int8), np.ones(3, np.float32)], default=-1),
          np.select([c, ~c], [np.arange(3, dtype=np.int8), np.ones(3, np.float32)], default=-1))
    check(ca.select([c], [np.arange(3, dtype=np.int8)], default=1000),
          np.select([c], [np.arange(3, dtype=np.int8)], default=1000))
    check(ca.select([np.bool_(True)], [np.float64(2.0)]), np.select([np.bool_(True)], [np.float64(2.0)]))
    with pytest.raises(ca.DTypeError, match="invalid entry 0 in condlist"):
        ca.select([np.arange(3)], [np.arange(3)])
    with pytest.raises(ValueError, match="same length"):
        ca.select([c], [])
    with pytest.raises(ValueError, match="empty condition list"):
        ca.select([], [])


# ---- coarsen ------------------------------------------------------------------------------------------

def _np_coarsen(f, a, axes, trim=False):
    sl = tuple(slice(0, s - s % axes.get(i, 1)) for i, s in enumerate(a.shape)) if trim else ...
    b = a[sl]
    shp = sum(((s // axes.get(i, 1), axes.get(i, 1)) for i, s in enumerate(b.shape)), ())
    return f(b.reshape(shp), axis=tuple(range(1, 2 * b.ndim, 2)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.uint8, np.bool_])
def test_coarsen_builtin(dtype):
    a = sample((12, 6), dtype)
    x, d = both(a, ((4, 5, 3), (3, 3)))
    for f in (np.sum, np.mean, np.max, np.min, np.prod, np.any):
        check(ca.coarsen(f, x, {0: 2, 1: 3}), _np_coarsen(f, a, {0: 2, 1: 3}), da.coarsen(f, d, {0: 2, 1: 3}))
    check(ca.coarsen(ca.sum, x, {0: 4}), _np_coarsen(np.sum, a, {0: 4}), da.coarsen(np.sum, d, {0: 4}))


def test_coarsen_trim_and_fallback():
    a = RNG.random((11, 7))
    x, d = both(a, ((3, 5, 3), (4, 3)))
    check(ca.coarsen(np.mean, x, {0: 3, 1: 2}, trim_excess=True), _np_coarsen(np.mean, a, {0: 3, 1: 2}, True),
          da.coarsen(np.mean, d, {0: 3, 1: 2}, trim_excess=True))
    # a Python reduction runs on each block (dask's chunk.coarsen); the empty trimmed block is not reduced
    check(ca.coarsen(np.median, x, {0: 3}, trim_excess=True), _np_coarsen(np.median, a, {0: 3}, True),
          da.coarsen(np.median, d, {0: 3}, trim_excess=True))
    check(ca.coarsen(np.median, x, {0: 3, 1: 7}, trim_excess=True), _np_coarsen(np.median, a, {0: 3, 1: 7}, True))
    with pytest.raises(ValueError, match="do not align"):
        ca.coarsen(np.sum, x, {0: 3})
    with pytest.raises(ValueError, match="do not align"):
        ca.coarsen(np.median, x, {0: 3})
    e = ca.zeros((0, 4), chunks=2)
    check(ca.coarsen(np.sum, e, {1: 2}), np.zeros((0, 2)))
    check(ca.coarsen(np.sum, ca.from_array(np.float32(3)), {}), np.sum(np.float32(3)))


# ---- Python compositions ---------------------------------------------------------------------------

def test_apply_along_axis_and_over_axes():
    a = RNG.random((5, 6))
    x, d = both(a, ((2, 3), (4, 2)))
    check(ca.apply_along_axis(np.cumsum, 1, x, shape=(6,), dtype=float), np.apply_along_axis(np.cumsum, 1, a),
          da.apply_along_axis(np.cumsum, 1, d, shape=(6,), dtype=float))
    check(ca.apply_along_axis(np.sum, 0, x), np.apply_along_axis(np.sum, 0, a), da.apply_along_axis(np.sum, 0, d))
    outer = lambda v: np.outer(v[:2], v[:3])  # noqa: E731
    check(ca.apply_along_axis(outer, 0, x, shape=(2, 3), dtype=float), np.apply_along_axis(outer, 0, a),
          da.apply_along_axis(outer, 0, d, shape=(2, 3), dtype=float))
    check(ca.apply_along_axis(lambda v: v[::-1], 1, x[:1], shape=(6,)), np.apply_along_axis(lambda v: v[::-1], 1, a[:1]))
    check(ca.apply_over_axes(ca.sum, x, [0, 1]), np.apply_over_axes(np.sum, a, [0, 1]))
    check(ca.apply_over_axes(ca.cumsum, x, 1), np.apply_over_axes(np.cumsum, a, 1))


def test_piecewise():
    a = np.linspace(-2, 2, 11)
    x, d = both(a, 4)
    conds = [a < 0, a >= 0]
    got = ca.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v ** 2])
    check(got, np.piecewise(a, conds, [lambda v: -v, lambda v: v ** 2]),
          da.piecewise(d, [d < 0, d >= 0], [lambda v: -v, lambda v: v ** 2]))
    check(ca.piecewise(x, [x < -1], [0, 5.0]), np.piecewise(a, [a < -1], [0, 5.0]))


def test_ravel_unravel_index():
    dims = (4, 5, 3)
    coords = [RNG.integers(0, s, size=(6, 2)) for s in dims]
    cx = [ca.from_array(c, chunks=(4, 1)) for c in coords]
    dx = [da.from_array(c, chunks=(4, 1)) for c in coords]
    check(ca.ravel_multi_index(cx, dims), np.ravel_multi_index(coords, dims), da.ravel_multi_index(dx, dims))
    check(ca.ravel_multi_index(cx, dims, order="F"), np.ravel_multi_index(coords, dims, order="F"))
    big = [c + 4 for c in coords]
    check(ca.ravel_multi_index(big, dims, mode="wrap"), np.ravel_multi_index(big, dims, mode="wrap"))
    with pytest.raises(Exception, match="invalid entry"):
        ca.ravel_multi_index(big, dims).compute()
    flat = RNG.integers(0, 60, size=(7,))
    x, d = both(flat, 3)
    got, want = ca.unravel_index(x, dims), np.unravel_index(flat, dims)
    dgot = da.unravel_index(d, dims)
    for g, w, dd in zip(got, want, dgot):
        check(g, w.astype(np.int64), dd)
    for g, w in zip(ca.unravel_index(x, dims, order="F"), np.unravel_index(flat, dims, order="F")):
        check(g, w.astype(np.int64))
    for g, w in zip(ca.unravel_index(np.array([], np.int64), dims), np.unravel_index(np.array([], np.int64), dims)):
        check(g, w.astype(np.int64))
    with pytest.raises(TypeError):
        ca.ravel_multi_index([np.array([0.5])], (3,))


def test_histogramdd_2d():
    pts = RNG.random((50, 3))
    w = RNG.random(50)
    x = ca.from_array(pts, chunks=((20, 25, 5), (2, 1)))
    rng = [(0, 1), (0, 0.5), (0.2, 1)]
    h, e = ca.histogramdd(x, bins=(3, 4, 5), range=rng)
    nh, ne = np.histogramdd(pts, bins=(3, 4, 5), range=rng)
    check(h, nh)
    for g, n in zip(e, ne):
        np.testing.assert_allclose(g, n)
    h, _ = ca.histogramdd(x, bins=(3, 4, 5), range=rng, weights=ca.from_array(w, chunks=7), density=True)
    check(h, np.histogramdd(pts, bins=(3, 4, 5), range=rng, weights=w, density=True)[0])
    edges = [np.array([0, 0.3, 1.0]), np.array([0, 0.5, 0.7, 1.0])]
    h, xe, ye = ca.histogram2d(x[:, 0], x[:, 1], bins=edges)
    nh, nxe, nye = np.histogram2d(pts[:, 0], pts[:, 1], bins=edges)
    check(h, nh)
    h, xe, ye = ca.histogram2d(x[:, 0], x[:, 2], bins=4, range=[(0, 1), (0, 1)], weights=w)
    check(h, np.histogram2d(pts[:, 0], pts[:, 2], bins=4, range=[(0, 1), (0, 1)], weights=w)[0])
    h, _ = ca.histogramdd([ca.zeros((0,), chunks=1)], bins=3, range=[(0, 1)])
    check(h, np.histogramdd(np.zeros((0, 1)), bins=3, range=[(0, 1)])[0])
    with pytest.raises(ValueError, match="range"):
        ca.histogramdd(x, bins=3)


def test_vdot_shape_ndim_result_type_array():
    a = RNG.random((3, 4)) + 1j * RNG.random((3, 4))
    b = RNG.random((4, 3))
    x, y = ca.from_array(a, chunks=2), ca.from_array(b, chunks=(3, 1))
    check(ca.vdot(x, y), np.vdot(a, b))
    assert ca.shape(x) == (3, 4) and ca.shape([[1, 2]]) == (1, 2)
    assert ca.ndim(x) == 2 and ca.ndim(5) == 0
    assert ca.result_type(x, np.int8) == np.result_type(a.dtype, np.int8)
    assert ca.result_type(ca.ones(3, chunks=1, dtype=np.int8), 1) == np.int8
    check(ca.array([1, 2], ndmin=3), np.array([1, 2], ndmin=3))
    check(ca.array([1, 2], dtype=np.float32), np.array([1, 2], np.float32))
    check(ca.asanyarray([[1.5]]), np.asanyarray([[1.5]]))


def test_fromfunction_frompyfunc():
    f = lambda i, j: i * 10 + j  # noqa: E731
    check(ca.fromfunction(f, shape=(4, 5), chunks=(3, 2), dtype=np.int64),
          np.fromfunction(f, (4, 5), dtype=np.int64), da.fromfunction(f, shape=(4, 5), chunks=(3, 2), dtype=np.int64))
    check(ca.fromfunction(lambda i: i / 2, shape=(5,), chunks=2), np.fromfunction(lambda i: i / 2, (5,)))
    uf = ca.frompyfunc(lambda p, q: p * 2 + q, 2, 1)
    a = np.arange(6).reshape(2, 3)
    check(uf(ca.from_array(a, chunks=1), ca.from_array(np.arange(3), chunks=2)), a * 2 + np.arange(3))
    dm = ca.frompyfunc(divmod, 2, 2)
    q, r = dm(ca.from_array(np.arange(7), chunks=3), 3)
    check(q, np.arange(7) // 3)
    check(r, np.arange(7) % 3)


def test_gufunc():
    @ca.as_gufunc("(i)->()", output_dtypes=float)
    def span(v):
        return v.max(axis=-1) - v.min(axis=-1)
    a = RNG.random((4, 5))
    check(span(ca.from_array(a, chunks=(2, 5))), np.ptp(a, axis=-1))
    g = ca.gufunc(lambda v: v.sum(axis=-1), signature="(i)->()", output_dtypes=float, allow_rechunk=True)
    check(g(ca.from_array(a, chunks=(2, 2))), a.sum(-1))


def test_npy_stack_round_trip(tmp_path):
    a = RNG.random((7, 4))
    x, d = both(a, ((3, 4), (2, 2)))
    ca.to_npy_stack(str(tmp_path / "s"), x, axis=0)
    back = ca.from_npy_stack(str(tmp_path / "s"))
    check(back, a)
    assert back.chunks == ((3, 4), (4,))
    np.testing.assert_array_equal(da.from_npy_stack(str(tmp_path / "s")).compute(), a)  # dask reads it
    da.to_npy_stack(str(tmp_path / "t"), d, axis=1)
    check(ca.from_npy_stack(str(tmp_path / "t")), a, da.from_npy_stack(str(tmp_path / "t")))


# ---- Array methods ----------------------------------------------------------------------------------

def test_blocks_and_partitions():
    a = np.arange(7 * 5).reshape(7, 5)
    x, d = both(a, ((2, 3, 2), (1, 4)))
    for idx in [(0, 0), (1,), (slice(None), 1), (slice(1, None), slice(None)), ([2, 0], 1), (-1, -1),
                (Ellipsis, 0), (slice(None, None, 2),)]:
        check(x.blocks[idx], d.blocks[idx].compute(), d.blocks[idx])
        check(x.partitions[idx], d.partitions[idx].compute(), d.partitions[idx])
    assert x.blocks[[]].shape == (0, 5)
    assert x.blocks.shape == (3, 2) and x.blocks.size == 6
    assert [b.shape for b in x.blocks.ravel()] == [b.shape for b in d.blocks.ravel()]
    with pytest.raises(IndexError):
        x.blocks[3]
    with pytest.raises(IndexError):
        x.blocks[0, 0, 0]
    dl = x.to_delayed()
    assert dl.shape == (3, 2)
    np.testing.assert_array_equal(dl[1, 1].compute(), d.to_delayed()[1, 1].compute())


def test_array_methods():
    a = sample((4, 6), np.int32)
    x, d = both(a, ((1, 3), (2, 4)))
    assert x.A is x and x.itemsize == 4
    c = x.copy()
    assert c is not x and c.chunks == x.chunks
    check(c, a)
    check(x.view(np.uint32), a.view(np.uint32), d.view(np.uint32))
    check(x.view(np.int16), a.view(np.int16), d.view(np.int16))
    check(x.view(np.uint8), a.view(np.uint8), d.view(np.uint8))
    for got, want in zip(x.nonzero(), np.nonzero(a)):
        check(got, want.astype(np.int64))
    check(x.trace(), np.trace(a).astype(np.int64), exact_dtype=False)
    check(x.trace(1, dtype=np.float32), np.trace(a, 1, dtype=np.float32))
    f = RNG.random((5, 4))
    y, e = both(f, 2)
    check(y.moment(3, axis=0), e.moment(3, axis=0).compute())
    check(y.topk(2, axis=0), e.topk(2, axis=0).compute(), e.topk(2, axis=0))
    check(y.argtopk(-2), e.argtopk(-2).compute().astype(np.int64))
    out = np.zeros((5, 4))
    y.store(out)
    np.testing.assert_array_equal(out, f)


def test_numpy_functions_dispatch_without_computing():
    a = np.arange(10.0)
    x = ca.from_array(a, chunks=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ca.ComputeWarning)
        for got, want in [(np.insert(x, 2, 5.0), np.insert(a, 2, 5.0)), (np.delete(x, [1, 2]), np.delete(a, [1, 2])),
                          (np.append(x, [1.0]), np.append(a, [1.0])),
                          (np.select([x > 5], [x]), np.select([a > 5], [a])),
                          (np.choose(np.array([0, 1]), [x[:2], x[2:4]]), np.choose([0, 1], [a[:2], a[2:4]])),
                          (np.compress([1, 0, 1], x), np.compress([1, 0, 1], a)),
                          (np.extract(x > 4, x), np.extract(a > 4, a)),
                          (np.vdot(x, x), np.vdot(a, a))]:
            assert isinstance(got, ca.Array)
            check(got, want)
    with pytest.warns(ca.ComputeWarning, match=r"numpy\.trapz"):
        np.trapz(x)
    # histogram2d without a range: NumPy finds it from the data, so it computes (and says so)
    with pytest.warns(ca.ComputeWarning, match=r"numpy\.histogram2d"):
        h = np.histogram2d(x, x, bins=3)
    np.testing.assert_array_equal(h[0], np.histogram2d(a, a, bins=3)[0])
    # apply_along_axis finds the shape of a length-dependent function without shape=
    check(np.apply_along_axis(np.cumsum, 0, x), np.cumsum(a))


# ---- the benchmarked paths: unique per block, integer tables; einsum through BLAS --------------------

@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64, np.uint64, np.int32])
def test_unique_integer_ranges(dtype):
    info = np.iinfo(dtype)
    small = RNG.integers(max(info.min, -50), min(info.max, 50), size=1000).astype(dtype)  # the table path
    wide = np.array([info.min, info.max, 0, info.max, 1, info.min], dtype=dtype)  # a range beyond the table
    for a, ch in ((small, ((300, 500, 200),)), (wide, ((2, 3, 1),)), (small[:1], ((1,),)), (small[:0], ((0,),))):
        x, d = both(a, ch)
        check(ca.unique(x), np.unique(a))
        values, counts = ca.unique(x, return_counts=True)
        nv, nc = np.unique(a, return_counts=True)
        check(values, nv)
        check(counts, nc.astype(np.int64))


def test_unique_floats_across_blocks():
    a = np.array([3.0, np.nan, 1.0, -0.0, 0.0, np.nan, 3.0, np.inf, -np.inf, 1.0])
    x, _ = both(a, ((3, 3, 4),))
    check(ca.unique(x), np.unique(a))
    c = np.array([1 + 1j, np.nan, 1 + 1j, 2 - 1j, 0j])
    check(ca.unique(ca.from_array(c, chunks=2)), np.unique(c))
    b = np.array([True, True, False])
    check(ca.unique(ca.from_array(b, chunks=1)), np.unique(b))


@pytest.mark.parametrize("spec, shapes", [
    ("ij,jk->ik", [(5, 6), (6, 4)]), ("ij,jk->ki", [(5, 6), (6, 4)]), ("ijk,jl->lik", [(3, 4, 5), (4, 2)]),
    ("i,i->", [(7,), (7,)]), ("i,j->ij", [(3,), (4,)]), ("ij,ij->", [(4, 5), (4, 5)]),
    ("ij,jk", [(5, 6), (6, 4)]),
    # not contractions: the blockwise einsum
    ("ij,ij->ij", [(4, 5), (4, 5)]), ("ii,i->i", [(4, 4), (4,)]), ("ij,jk->i", [(3, 4), (4, 2)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_einsum_routes(spec, shapes, dtype):
    ops = [sample(s, dtype) + 0.5 for s in shapes]
    chunks = [tuple(max(1, n // 2) for n in s) for s in shapes]
    cx = [ca.from_array(o, chunks=c) for o, c in zip(ops, chunks)]
    dx = [da.from_array(o, chunks=c) for o, c in zip(ops, chunks)]
    check(ca.einsum(spec, *cx), np.einsum(spec, *ops), da.einsum(spec, *dx))


def test_einsum_route_dtypes():
    a, b = RNG.random((4, 3)).astype(np.float32), RNG.random((3, 5))
    check(ca.einsum("ij,jk->ik", ca.from_array(a, chunks=2), ca.from_array(b, chunks=2)), np.einsum("ij,jk->ik", a, b))
    i = np.arange(12).reshape(3, 4)
    check(ca.einsum("ij,jk->ik", ca.from_array(i, chunks=2), ca.from_array(i.T, chunks=2)), np.einsum("ij,jk->ik", i, i.T))
    check(ca.einsum("ij,jk->ik", ca.from_array(a, chunks=2), ca.from_array(b, chunks=2), dtype=np.float32,
                    casting="unsafe"), np.einsum("ij,jk->ik", a, b, dtype=np.float32, casting="unsafe"))


def test_bincount_in_the_library():
    x = RNG.integers(0, 9, size=40)
    w = RNG.integers(-3, 4, size=40).astype(np.int16)
    a = ca.from_array(x, chunks=((7, 20, 13),))
    check(ca.bincount(a, weights=ca.from_array(w, chunks=9)), np.bincount(x, weights=w))
    check(ca.bincount(a, minlength=3, split_every=2), np.bincount(x, minlength=3))
    check(ca.bincount(ca.from_array(np.array([True, False, True]), chunks=1)), np.bincount([True, False, True]))
    with pytest.raises(TypeError):
        ca.bincount(a, weights=ca.from_array(w.astype(complex), chunks=9))
    # the C function trusts the length it is given and fails the compute on a value outside it
    short = ca.Array._new(ca.core.lib().ca_array_bincount, a, None, 5, 0)
    assert short.shape == (5,)
    with pytest.raises(ca.ChunkArrayError, match=r"bincount: value \d is outside \[0, 5\)"):
        short.compute()
