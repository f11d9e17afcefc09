"""xarray driven through its chunk-manager entry point with chunked_array_type="chunkarray", every
everyday workflow compared with the same workflow on dask.

xarray 2023.08.0 (the release whose ChunkManagerEntrypoint API the chunk manager implements) comes from
../shared/vendor/ beside the repository (or $CHUNKARRAY_VENDOR): Debian 12's xarray predates chunk
managers. It is unpacked into a temporary directory with two entry-point metadata folders, as the
vendor README describes, and put first on sys.path (tests/conftest.py does it before any test module is
imported). Without the tarball the module is skipped, saying so.

Each workflow runs twice, on dask and on chunkarray, from the same NumPy data and chunks. It passes
when the chunkarray result stays lazy (its variables hold chunkarray arrays until compute) and its
values equal dask's. Workflows that do not work yet are marked xfail(strict=True) with the reason
measured here, so one that starts working fails the suite until its mark is removed.
"""
import os
from pathlib import Path

import numpy as np
import pytest

VENDOR = Path(os.environ.get("CHUNKARRAY_VENDOR",
                             Path(__file__).resolve().parents[3].parent / "shared" / "vendor"))
TARBALL = VENDOR / "xarray-2023.08.0.tar.gz"

if not TARBALL.is_file():
    pytest.skip(f"SKIPPED: the vendored xarray is not at {TARBALL}: the xarray workflow suite did not run",
                allow_module_level=True)

# conftest.py put the vendored xarray first on sys.path before any test imported chunkarray.chunkmanager
# (whose base class comes from the xarray it finds first).
import dask  # noqa: E402
import dask.array as da  # noqa: E402
import pandas as pd  # noqa: E402
import xarray as xr  # noqa: E402

import chunkarray as ca  # noqa: E402

dask.config.set(scheduler="synchronous")
CA = "chunkarray"


def test_vendored_xarray_lists_both_chunk_managers():
    from xarray.core.parallelcompat import list_chunkmanagers
    assert xr.__version__ == "2023.8.0"
    assert {"chunkarray", "dask"} <= set(list_chunkmanagers())


# ---- data ------------------------------------------------------------------------------------------

def make_dataset():
    rng = np.random.default_rng(42)
    time = pd.date_range("2000-01-01", periods=24, freq="6H")
    t = rng.standard_normal((24, 5, 6))
    t[3, 1, 2] = np.nan
    t[10, :, 4] = np.nan
    p = rng.uniform(0, 10, (24, 5, 6))
    return xr.Dataset(
        {"t": (("time", "y", "x"), t), "p": (("time", "y", "x"), p),
         "w": (("y",), rng.uniform(0.5, 2.0, 5))},
        coords={"time": time, "y": np.arange(5) * 10.0, "x": np.linspace(0, 1, 6),
                "region": ("x", np.array([0, 0, 1, 1, 2, 2]))})


CHUNKS = {"time": 7, "y": 3, "x": 4}


def both(chunks=CHUNKS):
    ds = make_dataset()
    return ds.chunk(chunks), ds.chunk(chunks, chunked_array_type=CA)


def is_lazy_ca(obj):
    """Every data variable of obj holds a chunkarray Array (nothing computed)."""
    variables = obj.data_vars.values() if isinstance(obj, xr.Dataset) else [obj]
    return all(isinstance(v.data, ca.Array) for v in variables)


def check(workflow, chunks=CHUNKS, lazy=True, rtol=1e-12):
    ref_in, ca_in = both(chunks)
    expected = workflow(ref_in)
    got = workflow(ca_in)
    if lazy:
        assert is_lazy_ca(got), f"result is not a lazy chunkarray object: {type(getattr(got, 'data', got))}"
    xr.testing.assert_allclose(got.compute(), expected.compute(), rtol=rtol)
    return got


def xfail(reason):
    return pytest.mark.xfail(strict=True, reason=reason)


# ---- workflows -------------------------------------------------------------------------------------

def test_chunk_dict_and_auto():
    ds = make_dataset()
    got = ds.chunk(CHUNKS, chunked_array_type=CA)
    assert got.t.data.chunks == ((7, 7, 7, 3), (3, 2), (4, 2))
    auto = ds.chunk("auto", chunked_array_type=CA)
    assert is_lazy_ca(auto)
    xr.testing.assert_identical(auto.compute(), ds)


def test_arithmetic_and_broadcasting():
    check(lambda ds: (ds.t * 2 + ds.p - ds.w) / (1 + ds.x))


def test_reductions_skipna():
    check(lambda ds: ds.t.mean("time", skipna=True))
    check(lambda ds: ds.t.sum(("y", "x"), skipna=False))
    check(lambda ds: ds.t.std("time", ddof=1))


def test_reductions_min_count():
    check(lambda ds: ds.t.sum("x", min_count=6))


def test_where_and_fillna():
    check(lambda ds: ds.t.where(ds.t > 0))
    check(lambda ds: ds.t.fillna(-1.0))


def test_isel_sel_basic():
    check(lambda ds: ds.isel(time=slice(2, 20, 3), x=[0, 2, 5]))
    check(lambda ds: ds.sel(y=slice(10, 30)).sel(x=0.4, method="nearest"))


def test_isel_vectorized():
    idx = xr.DataArray([0, 3, 5], dims="pts")
    idy = xr.DataArray([1, 2, 4], dims="pts")
    check(lambda ds: ds.t.isel(x=idx, y=idy))
    # xarray indexes a non-dask chunked array through NdArrayLikeIndexingAdapter (indexing.py:723):
    # NumpyVIndexAdapter's x[key] + np.moveaxis for vectorized keys, _outer_to_numpy_indexer for outer
    # ones; only DaskIndexingAdapter (indexing.py:721, is_duck_dask_array) is dask's, and not needed.
    check(lambda ds: ds.t.isel(time=xr.DataArray([[1, 20], [5, 5]], dims=("a", "b")), x=idx))
    check(lambda ds: ds.sel(x=xr.DataArray([0.1, 0.9], dims="pts"), y=xr.DataArray([0.0, 40.0], dims="pts"),
                            method="nearest"))
    check(lambda ds: ds.t.isel(y=[4, 0, 1], x=[5, 1]))  # outer indexing with two lists
    check(lambda ds: ds.t[:, [0, 2], [1, 3, 5]])


def test_concat_merge_align_reindex():
    check(lambda ds: xr.concat([ds.t.isel(time=slice(0, 10)), ds.t.isel(time=slice(10, None))], "time"))
    check(lambda ds: xr.merge([ds.t.rename("a"), ds.p.rename("b")]))
    check(lambda ds: xr.align(ds.t.isel(x=slice(0, 4)), ds.p.isel(x=slice(2, 6)), join="outer")[0])
    check(lambda ds: ds.t.reindex(x=[0.0, 0.2, 0.5, 1.0]))


def test_shift_diff_roll():
    check(lambda ds: ds.t.shift(time=2))
    check(lambda ds: ds.t.diff("time"))
    check(lambda ds: ds.t.roll(x=2))


def test_rolling():
    # Reserved for dask by xarray: rolling.py:564 (`and not is_duck_dask_array(self.obj.data)`) sends a
    # rolling reduction over one dimension of any non-dask array to bottleneck, which reads it with
    # np.asarray (eager). With use_bottleneck=False xarray takes the path it takes for dask: construct
    # (sliding_window_view, lazy here) and a reduction.
    with xr.set_options(use_bottleneck=False):
        check(lambda ds: ds.t.rolling(time=3, center=True).mean())
    check(lambda ds: ds.t.rolling(time=4, x=2, min_periods=2).sum())  # two dimensions: no bottleneck
    check(lambda ds: ds.t.rolling(time=5).construct("window"))


def test_coarsen():
    check(lambda ds: ds.t.coarsen(time=4, x=2, boundary="trim").mean(), chunks={"time": 8, "y": 3, "x": 2})


def test_groupby():
    check(lambda ds: ds.t.groupby("region").mean())


def test_groupby_bins():
    check(lambda ds: ds.p.groupby_bins("x", [0, 0.3, 0.7, 1.0]).sum())


def test_resample():
    check(lambda ds: ds.t.resample(time="1D").mean())


def test_apply_ufunc_parallelized():
    def detrend(a):
        return a - a.mean(axis=-1, keepdims=True)

    check(lambda ds: xr.apply_ufunc(detrend, ds.t, input_core_dims=[["x"]], output_core_dims=[["x"]],
                                    dask="parallelized", output_dtypes=[float]),
          chunks={"time": 7, "y": 3, "x": -1})


def test_apply_ufunc_output_sizes():
    def pairs(a):
        return np.stack([a.min(axis=-1), a.max(axis=-1)], axis=-1)

    check(lambda ds: xr.apply_ufunc(pairs, ds.p, input_core_dims=[["x"]], output_core_dims=[["stat"]],
                                    dask="parallelized", output_dtypes=[float],
                                    dask_gufunc_kwargs={"output_sizes": {"stat": 2}}),
          chunks={"time": 7, "y": 3, "x": -1})


def test_map_blocks():
    check(lambda ds: xr.map_blocks(lambda b: b * 2 + 1, ds.t))


def test_interp():
    check(lambda ds: ds.p.interp(x=[0.1, 0.35, 0.9]), chunks={"time": 7, "y": 3, "x": -1})


def test_weighted():
    check(lambda ds: ds.t.fillna(0).weighted(ds.w).mean("y"))
    check(lambda ds: ds.t.weighted(ds.w).sum(("y", "x")))


def test_dot():
    check(lambda ds: xr.dot(ds.t.fillna(0), ds.p, dims="x"))
    check(lambda ds: xr.dot(ds.t.fillna(0), ds.w))  # all common dims
    check(lambda ds: xr.dot(ds.p, ds.w, dims=[]))  # no contraction: broadcasting product


def test_cov_corr():
    check(lambda ds: xr.cov(ds.t, ds.p, dim="time"))
    check(lambda ds: xr.corr(ds.t, ds.p, dim="time"))


def test_cumsum():
    check(lambda ds: ds.p.cumsum("time"))


def test_copy_deep():
    ref_in, ca_in = both()
    deep = ca_in.copy(deep=True)
    del ca_in
    assert is_lazy_ca(deep)
    xr.testing.assert_allclose(deep.compute(), ref_in.compute())


def test_compute_load_persist():
    ref_in, ca_in = both()
    persisted = ca_in.persist()
    assert is_lazy_ca(persisted)
    xr.testing.assert_allclose(persisted.compute(), ref_in.compute())
    loaded = ca_in.copy().load()
    assert isinstance(loaded.t.data, np.ndarray)
    xr.testing.assert_allclose(loaded, ref_in.compute())


def test_repr():
    _, ca_in = both()
    text = repr(ca_in.t)
    assert "chunkarray" in text.lower() or "chunksize" in text, text


def test_zarr_roundtrip_lazy(tmp_path):
    ref_in, ca_in = both()
    store = str(tmp_path / "ds.zarr")
    ca_in.to_zarr(store, mode="w")
    opened = xr.open_zarr(store, chunks=CHUNKS, chunked_array_type=CA)
    assert is_lazy_ca(opened)
    xr.testing.assert_allclose(opened.compute(), ref_in.compute())


def test_zarr_region_write(tmp_path):
    ref_in, ca_in = both()
    store = str(tmp_path / "region.zarr")
    ref_in.to_zarr(store, mode="w", compute=False)
    # A region write takes only the variables along the region's dimension.
    timeless = [k for k, v in ca_in.variables.items() if "time" not in v.dims]
    part = ca_in.drop_vars(timeless)
    part.isel(time=slice(0, 14)).to_zarr(store, region={"time": slice(0, 14)})
    part.isel(time=slice(14, None)).to_zarr(store, region={"time": slice(14, None)})
    # compute=False wrote only metadata for the other (chunked) variables: compare what the regions wrote.
    opened = xr.open_zarr(store)
    for name in ("t", "p"):
        xr.testing.assert_allclose(opened[name].reset_coords(drop=True).compute(),
                                   ref_in[name].reset_coords(drop=True).compute())


class CountingStore(dict):
    """A zarr store (a plain mapping) that counts reads of data chunks (not metadata)."""
    chunk_reads = 0

    def __getitem__(self, key):
        if not key.rsplit("/", 1)[-1].startswith("."):
            type(self).chunk_reads += 1
        return super().__getitem__(key)


def test_open_zarr_reads_no_chunk_until_compute():
    ref_in, _ = both()
    store = CountingStore()
    ref_in.to_zarr(store, mode="w")
    CountingStore.chunk_reads = 0
    xr.open_zarr(store, chunks=CHUNKS)  # dask: xarray itself reads the index coordinates
    dask_reads = CountingStore.chunk_reads
    CountingStore.chunk_reads = 0
    opened = xr.open_zarr(store, chunks=CHUNKS, chunked_array_type=CA)
    index_reads = CountingStore.chunk_reads
    assert is_lazy_ca(opened)
    assert index_reads == dask_reads, (index_reads, dask_reads)
    result = opened.t.mean().compute()
    assert CountingStore.chunk_reads > index_reads
    np.testing.assert_allclose(result.values, ref_in.t.mean().compute().values)


# ---- datetime64 / timedelta64 / string / float16 variables (issue 12, item 3) ----------------------

def make_time_dataset():
    rng = np.random.default_rng(7)
    time = pd.date_range("2000-01-01", periods=20, freq="6H")
    bnds = np.stack([time.values, (time + pd.Timedelta("6H")).values], axis=1)
    bnds[5, 1] = np.datetime64("NaT")
    return xr.Dataset(
        {"t": (("time", "x"), rng.standard_normal((20, 4))),
         "time_bnds": (("time", "bnds"), bnds),
         "lag": (("time",), (np.arange(20) * 3600).astype("m8[s]")),
         "station": (("x",), np.array(["alpha", "b", "gamma", "d"])),
         "code": (("x",), np.array([b"A1", b"B22", b"C", b""])),
         "h": (("time", "x"), rng.uniform(0, 5, (20, 4)).astype("f2"))},
        coords={"time": time, "x": np.arange(4)})


def check_time(workflow, chunks={"time": 6, "x": 3}, lazy=True, ref="dask", rtol=None):
    """As check(), on make_time_dataset(); ref="numpy" compares with the unchunked Dataset where dask
    itself fails (dask 2022.12's sum of timedelta64 passes a unit to np.sum's dtype= and NumPy raises);
    rtol for float16 (chunkarray accumulates float16 in float32, dask's chunk sums round to float16)."""
    ds = make_time_dataset()
    expected = workflow(ds.chunk(chunks) if ref == "dask" else ds)
    got = workflow(ds.chunk(chunks, chunked_array_type=CA))
    if lazy:
        assert is_lazy_ca(got), f"result is not a lazy chunkarray object: {type(getattr(got, 'data', got))}"
    if rtol:
        xr.testing.assert_allclose(got.compute(), expected.compute(), rtol=rtol)
    else:
        xr.testing.assert_identical(got.compute(), expected.compute())
    return got


def test_chunk_dataset_with_time_bounds_and_strings():
    ds = make_time_dataset()
    got = ds.chunk({"time": 6, "x": 3}, chunked_array_type=CA)   # no DTypeError
    for name in ["time_bnds", "lag", "station", "code", "h"]:
        assert isinstance(got[name].data, ca.Array), name
        assert got[name].dtype == ds[name].dtype, name
    assert got.time_bnds.data.chunks == ((6, 6, 6, 2), (2,))
    xr.testing.assert_identical(got.compute(), ds)


def test_time_bounds_arithmetic_and_reductions():
    check_time(lambda ds: ds.time_bnds.isel(bnds=1) - ds.time_bnds.isel(bnds=0))
    check_time(lambda ds: ds.time_bnds.max("bnds"))
    check_time(lambda ds: ds.time_bnds.min("time"))
    check_time(lambda ds: ds.lag.sum(), ref="numpy")
    check_time(lambda ds: ds.lag.mean(), ref="numpy")
    check_time(lambda ds: ds.time_bnds.isel(bnds=0) + ds.lag)
    check_time(lambda ds: ds.time_bnds.where(ds.time_bnds > np.datetime64("2000-01-03")))


def test_sel_on_time_and_strings():
    check_time(lambda ds: ds.sel(time=slice("2000-01-02", "2000-01-04")))
    check_time(lambda ds: ds.station.where(ds.station != "b", "zz"), lazy=False)
    check_time(lambda ds: ds.isel(x=[0, 2])[["station", "code", "time_bnds"]])
    check_time(lambda ds: xr.concat([ds.station, ds.station.isel(x=slice(0, 2))], "x"))


def test_float16_variable():
    check_time(lambda ds: (ds.h * 2 + 1).mean("x"), rtol=2e-3)


def test_resample_mean_stays_lazy_with_time_variables():
    got = check_time(lambda ds: ds[["t", "h"]].resample(time="1D").mean(), rtol=2e-3)
    assert all(isinstance(v.data, ca.Array) for v in got.data_vars.values())
