"""ChunkArrayManager: xarray's ChunkManagerEntrypoint methods, called with xarray's signatures (Debian 12's
xarray 2023.01 has no chunk managers, so they are called directly) and compared with dask.array."""
import inspect
import os
import tomllib

import dask
import dask.array as da
import numpy as np
import pytest

import chunkarray as ca
from chunkarray.chunkmanager import ChunkArrayManager

dask.config.set(scheduler="synchronous")
X = np.random.default_rng(7).standard_normal((11, 9))
CH = ((4, 4, 3), (5, 4))


@pytest.fixture
def m():
    return ChunkArrayManager()


def close(a, b):
    a = a.compute() if hasattr(a, "compute") else a
    b = b.compute() if hasattr(b, "compute") else b
    np.testing.assert_allclose(a, b, equal_nan=True)


# xarray's ChunkManagerEntrypoint (xarray/namedarray/parallelcompat.py), parameter names in order.
XARRAY_SIGNATURES = {
    "is_chunked_array": ["data"],
    "chunks": ["data"],
    "normalize_chunks": ["chunks", "shape", "limit", "dtype", "previous_chunks"],
    "from_array": ["data", "chunks", "kwargs"],
    "rechunk": ["data", "chunks", "kwargs"],
    "compute": ["data", "kwargs"],
    "persist": ["data", "kwargs"],
    "reduction": ["arr", "func", "combine_func", "aggregate_func", "axis", "dtype", "keepdims"],
    "scan": ["func", "binop", "ident", "arr", "axis", "dtype", "kwargs"],
    "apply_gufunc": ["func", "signature", "args", "axes", "keepdims", "output_dtypes", "vectorize", "kwargs"],
    "map_blocks": ["func", "args", "dtype", "chunks", "drop_axis", "new_axis", "kwargs"],
    "blockwise": ["func", "out_ind", "args", "adjust_chunks", "new_axes", "align_arrays", "kwargs"],
    "unify_chunks": ["args", "kwargs"],
    "store": ["sources", "targets", "kwargs"],
    "get_auto_chunk_size": [],
}


def test_signatures_match_xarray(m):
    for name, params in XARRAY_SIGNATURES.items():
        sig = inspect.signature(getattr(m, name))
        assert list(sig.parameters) == params, name
    assert isinstance(type(m).__dict__["array_api"], property)


def test_entry_point_in_pyproject():
    with open(os.path.join(os.path.dirname(__file__), "..", "pyproject.toml"), "rb") as f:
        meta = tomllib.load(f)
    ep = meta["project"]["entry-points"]["xarray.chunkmanagers"]
    mod, cls = ep["chunkarray"].split(":")
    import importlib
    assert getattr(importlib.import_module(mod), cls) is ChunkArrayManager


def test_basics(m):
    x = m.from_array(X, chunks=CH)
    assert m.is_chunked_array(x) and not m.is_chunked_array(X)
    assert m.chunks(x) == CH
    assert m.normalize_chunks((4, 5), shape=(11, 9)) == da.core.normalize_chunks((4, 5), shape=(11, 9))
    auto = m.normalize_chunks("auto", shape=(2000, 3000), limit=1 << 20, dtype=np.float64)
    assert tuple(sum(c) for c in auto) == (2000, 3000)
    assert max(auto[0]) * max(auto[1]) * 8 <= 1 << 20
    assert m.normalize_chunks(CH) == CH
    y = m.rechunk(x, (6, 3))
    assert m.chunks(y) == da.from_array(X, chunks=CH).rechunk((6, 3)).chunks
    (a, b, c) = m.compute(x, y + 1, 3)
    np.testing.assert_array_equal(a, X)
    np.testing.assert_allclose(b, X + 1)
    assert c == 3
    (p,) = m.persist(x * 2)
    assert m.is_chunked_array(p)
    close(p, X * 2)
    assert m.get_auto_chunk_size() == 128 * 2**20
    assert m.array_api is ca and hasattr(m.array_api, "sum")


def test_reduction_and_scan(m):
    x, d = m.from_array(X, chunks=CH), da.from_array(X, chunks=CH)
    for axis in (None, 0, 1):
        close(m.reduction(x, np.sum, combine_func=np.sum, aggregate_func=np.sum, axis=axis, dtype=np.float64),
              da.reduction(d, np.sum, np.sum, combine=np.sum, axis=axis, dtype=np.float64))
    close(m.reduction(x, np.max, aggregate_func=np.max, axis=1, keepdims=True),
          d.max(axis=1, keepdims=True))
    from dask.array.reductions import cumreduction
    close(m.scan(np.cumsum, np.add, 0, x, axis=0, dtype=np.float64),
          cumreduction(np.cumsum, np.add, 0, d, axis=0, dtype=np.float64))
    close(m.scan(np.minimum.accumulate, np.minimum, np.inf, x, axis=1, dtype=np.float64),
          cumreduction(np.minimum.accumulate, np.minimum, np.inf, d, axis=1, dtype=np.float64))


def test_map_blocks_blockwise_gufunc(m):
    x, d = m.from_array(X, chunks=CH), da.from_array(X, chunks=CH)
    close(m.map_blocks(lambda b: b * 3, x, dtype=np.float64), d * 3)
    close(m.map_blocks(lambda b: b.sum(axis=1), x, dtype=np.float64, drop_axis=1),
          da.map_blocks(lambda b: b.sum(axis=1), d.rechunk({1: -1}), dtype=np.float64, drop_axis=1))
    close(m.blockwise(np.add, "ij", x, "ij", x, "ij", dtype=np.float64), 2 * X)
    # xarray's apply_ufunc(dask="parallelized") path: a core dimension in one chunk
    xr1, dr1 = m.rechunk(x, {1: -1}), d.rechunk({1: -1})
    close(m.apply_gufunc(lambda a: a.mean(axis=-1), "(i)->()", xr1, output_dtypes=[np.float64]),
          da.apply_gufunc(lambda a: a.mean(axis=-1), "(i)->()", dr1, output_dtypes=[np.float64]))
    close(m.apply_gufunc(lambda a, b: a * b, "(),()->()", x, 2.0 * x, output_dtypes=[np.float64]), 2 * X * X)
    close(m.apply_gufunc(np.dot, "(i),(i)->()", xr1, xr1, output_dtypes=[np.float64], vectorize=True),
          (X * X).sum(axis=1))
    with pytest.raises(ValueError, match="core dimension"):
        m.apply_gufunc(np.sum, "(i)->()", x, output_dtypes=[np.float64])


def test_unify_chunks_and_store(m):
    x = m.from_array(X, chunks=CH)
    y = m.from_array(X, chunks=(3, 3))
    chunkss, arrays = m.unify_chunks(x, "ij", y, "ij")
    assert arrays[0].chunks == arrays[1].chunks == (chunkss["i"], chunkss["j"])
    dchunkss, _ = da.core.unify_chunks(da.from_array(X, chunks=CH), "ij", da.from_array(X, chunks=(3, 3)), "ij")
    assert chunkss == dchunkss
    t1, t2 = np.zeros_like(X), np.zeros_like(X)
    m.store([x, y * 2], [t1, t2])
    np.testing.assert_allclose(t1, X)
    np.testing.assert_allclose(t2, 2 * X)


def _push(a, axis):
    """Forward fill NaNs along axis (xarray's ffill building block)."""
    a = np.moveaxis(np.array(a, dtype=float), axis, -1)
    out = a.copy()
    for i in range(1, out.shape[-1]):
        out[..., i] = np.where(np.isnan(out[..., i]), out[..., i - 1], out[..., i])
    return np.moveaxis(out, -1, axis)


def _fill_with_last_one(a, b):
    return np.where(np.isnan(b), a, b)


def test_scan_forward_fill_like_xarray(m):
    a = X.copy()
    a[np.abs(a) < 0.8] = np.nan
    x = m.from_array(a, chunks=((4, 4, 3), (2, 3, 4)))
    for axis in (0, 1):
        r = m.scan(_push, _fill_with_last_one, np.nan, x, axis=axis, dtype=np.float64).compute()
        np.testing.assert_array_equal(np.isnan(r), np.isnan(_push(a, axis)))
        np.testing.assert_allclose(r, _push(a, axis), equal_nan=True)


def test_apply_gufunc_through_the_library(m):
    """The manager's apply_gufunc is ca_array_apply_gufunc: several outputs, axes=, keepdims, broadcast
    loop dimensions and allow_rechunk (what xarray's apply_ufunc(dask="parallelized") passes)."""
    x, d = m.from_array(X, chunks=CH), da.from_array(X, chunks=CH)
    lo, hi = m.apply_gufunc(lambda a: (a.min(axis=-1), a.max(axis=-1)), "(i)->(),()", m.rechunk(x, {1: -1}),
                            output_dtypes=[np.float64, np.float64])
    close(lo, X.min(axis=1))
    close(hi, X.max(axis=1))
    xr0 = m.rechunk(x, {0: -1})
    close(m.apply_gufunc(lambda a: a.sum(axis=-1), "(i)->()", xr0, axes=[(0,), ()], output_dtypes=[np.float64]),
          da.apply_gufunc(lambda a: a.sum(axis=-1), "(i)->()", d.rechunk({0: -1}), axes=[(0,), ()],
                          output_dtypes=[np.float64]))
    close(m.apply_gufunc(lambda a: a.sum(axis=-1), "(i)->()", xr0, axes=[(0,)], keepdims=True,
                         output_dtypes=[np.float64]), X.sum(axis=0, keepdims=True))
    col = m.from_array(X[:, :1], chunks=(3, 1))
    close(m.apply_gufunc(np.add, "(),()->()", x, col, output_dtypes=[np.float64], allow_rechunk=True), X + X[:, :1])
    close(m.apply_gufunc(lambda a: np.sum(a, axis=-1), "(i)->()", x, output_dtypes=[np.float64], allow_rechunk=True),
          X.sum(axis=1))
