"""from_array over array-likes other than NumPy's: nothing read at construction, one x[slices] per
block at compute, lock=/asarray=/meta= as dask's (issue 12, part 2)."""
import concurrent.futures
import os
import pickle
import subprocess
import sys
import tarfile
import textwrap
import threading

import numpy as np
import pytest

import chunkarray as ca

RNG = np.random.default_rng(8)
A = RNG.standard_normal((11, 9))


class Counting:
    """An array-like with shape, dtype and __getitem__ that counts its reads (no __array__)."""

    def __init__(self, a):
        self.a, self.shape, self.dtype = a, a.shape, a.dtype
        self.keys = []

    def __getitem__(self, key):
        assert isinstance(key, tuple) and all(isinstance(k, slice) for k in key), key
        self.keys.append(key)
        return self.a[key]


class Deferred:
    """What xarray's lazy indexing returns: a value read when converted with np.asarray."""

    def __init__(self, a, lock):
        self.a, self.lock = a, lock

    def __array__(self, dtype=None):
        assert self.lock.locked(), "np.asarray ran outside the lock"
        return np.asarray(self.a, dtype=dtype)


class DeferredSource(Counting):
    def __init__(self, a, lock):
        super().__init__(a)
        self.lock = lock

    def __getitem__(self, key):
        return Deferred(super().__getitem__(key), self.lock)


@pytest.mark.parametrize("chunks", [(4, 5), ((5, 5, 1), (2, 7)), -1, 3, "auto"])
def test_nothing_read_until_compute_then_one_read_per_block(chunks):
    src = Counting(A)
    x = ca.from_array(src, chunks=chunks)
    y = (x * 2 + 1).sum(axis=0)
    assert src.keys == [] and x.shape == A.shape and x.dtype == A.dtype
    np.testing.assert_allclose(y.compute(), (A * 2 + 1).sum(axis=0))
    assert len(src.keys) == x.npartitions
    starts = [np.cumsum((0,) + c) for c in x.chunks]
    expected = sorted(tuple((int(s[i]), int(s[i + 1]), None) for s, i in zip(starts, idx))
                      for idx in np.ndindex(*x.numblocks))
    got = sorted(tuple((k.start, k.stop, k.step) for k in key) for key in src.keys)
    assert got == expected  # exactly the blocks, each once
    np.testing.assert_array_equal(x.compute(), A)
    assert len(src.keys) == 2 * x.npartitions


def test_slicing_reads_only_the_blocks_needed():
    src = Counting(A)
    x = ca.from_array(src, chunks=(4, 3))
    np.testing.assert_array_equal(x[:3, 4:5].compute(), A[:3, 4:5])
    assert src.keys == [(slice(0, 4), slice(3, 6))]


def test_edge_shapes_and_dtypes():
    for a in (np.array(3.5), np.zeros((0, 4)), np.array([[7]], np.int16), np.arange(10, dtype=">i4"),
              (RNG.standard_normal(6) > 0), np.arange(6, dtype=np.uint8).reshape(2, 3)):
        src = Counting(a)
        x = ca.from_array(src, chunks=2 if a.ndim else ())
        assert src.keys == []
        r = x.compute()
        assert r.shape == a.shape and r.dtype == a.dtype.newbyteorder("=")
        np.testing.assert_array_equal(r, a)


def test_chunks_auto_follows_the_source_chunks():
    src = Counting(A)
    src.chunks = (4, 2)  # zarr-style: one chunk shape
    x = ca.from_array(src)
    assert x.chunks == ((4, 4, 3), (2, 2, 2, 2, 1))
    assert ca.from_array(src, chunks=(5, 9)).chunks == ((5, 5, 1), (9,))
    with pytest.raises(ValueError):
        ca.from_array(Counting(A), chunks=((5, 5), (9,)))  # do not add up to 11


@pytest.mark.graph_files
def test_lock_and_asarray():
    held = []

    class Lock:
        def __init__(self):
            self.inner = threading.Lock()

        def __enter__(self):
            self.inner.acquire()
            held.append(1)

        def __exit__(self, *exc):
            self.inner.release()

        def locked(self):
            return self.inner.locked()

    lk = Lock()
    src = DeferredSource(A, lk)
    x = ca.from_array(src, chunks=(3, 3), lock=lk)  # no __array_function__: asarray under the lock
    np.testing.assert_array_equal(x.compute(), A)
    assert len(held) == x.npartitions
    # asarray=False: the conversion happens after the lock is released
    src2 = DeferredSource(A, lk)
    with pytest.raises(ca.KernelError, match="outside the lock"):
        ca.from_array(src2, chunks=(3, 3), lock=lk, asarray=False).compute()
    # lock=True: a lock that pickles
    x = ca.from_array(Counting(A), chunks=4, lock=True)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(x)).compute(), A)


def test_meta_getitem_and_bad_dtypes():
    ca.from_array(Counting(A), meta=np.ndarray)
    ca.from_array(Counting(A), meta=np.empty((0, 0)))
    with pytest.raises(NotImplementedError, match="NumPy"):
        ca.from_array(Counting(A), meta=list)
    # getitem= is dask's (test_creation_like.py has the details)
    np.testing.assert_array_equal(ca.from_array(Counting(A), getitem=lambda a, b: a[b]).compute(), A)
    with pytest.raises(ca.DTypeError):
        ca.from_array(Counting(np.array(["a", "b"], dtype=object)))


def test_numpy_arrays_stay_eager_and_content_named():
    x = ca.from_array(A, chunks=4)
    y = ca.from_array(A.copy(), chunks=4)
    assert x.name == y.name  # named by contents, as before
    m = np.memmap  # ndarray subclasses are NumPy arrays too
    assert issubclass(m, np.ndarray)


def _compute(x):
    return x.compute()


@pytest.mark.graph_files
def test_lazy_array_pickles_with_its_source():
    src = Counting(A)
    x = ca.from_array(src, chunks=(4, 4)) + 1
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=__import__("multiprocessing").get_context("spawn")) as ex:
        np.testing.assert_array_equal(ex.submit(_compute, x).result(), A + 1)
    assert src.keys == []  # read there, not here


@pytest.mark.graph_files
def test_zarr_array(tmp_path):
    zarr = pytest.importorskip("zarr")
    z = zarr.open(str(tmp_path / "a.zarr"), mode="w", shape=A.shape, chunks=(4, 5), dtype=A.dtype)
    z[...] = A
    reads = []

    class CountingStore(zarr.storage.DirectoryStore):
        def __getitem__(self, key):
            if not key.split("/")[-1].startswith(".z"):
                reads.append(key)
            return super().__getitem__(key)

    zc = zarr.open(CountingStore(str(tmp_path / "a.zarr")), mode="r")
    x = ca.from_array(zc)
    assert reads == [] and x.chunks == ((4, 4, 3), (5, 4))
    np.testing.assert_array_equal(x.compute(), A)
    assert sorted(reads) == sorted(f"{i}.{j}" for i in range(3) for j in range(2))
    # a zarr array pickles: the lazy array computes in another process
    x2 = ca.from_array(zarr.open(str(tmp_path / "a.zarr"), mode="r"), chunks=(6, 9))
    with concurrent.futures.ProcessPoolExecutor(1) as ex:
        np.testing.assert_array_equal(ex.submit(_compute, x2[2:]).result(), A[2:])


def test_chunkmanager_from_array_is_lazy():
    src = Counting(A)
    m = ca.ChunkArrayManager()
    x = m.from_array(src, (4, 9), name="xarray-v-123", lock=False, inline_array=False)
    assert src.keys == [] and x.name == "xarray-v-123"
    np.testing.assert_array_equal(m.compute(x)[0], A)
    assert len(src.keys) == 3


VENDOR = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "shared", "vendor", "xarray-2023.08.0.tar.gz")


@pytest.mark.skipif(not os.path.exists(VENDOR), reason="vendored xarray 2023.08 not present (../shared/vendor)")
def test_xarray_open_zarr_reads_no_chunk_until_compute(tmp_path):
    with tarfile.open(VENDOR) as t:
        t.extractall(tmp_path / "xr")
    meta = tmp_path / "meta"
    for name, version, ep in (("chunkarray", "0.1.0", "chunkarray = chunkarray.chunkmanager:ChunkArrayManager"),
                              ("xarray", "2023.8.0", "dask = xarray.core.daskmanager:DaskManager")):
        d = meta / f"{name}-{version}.dist-info"
        d.mkdir(parents=True)
        (d / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        (d / "entry_points.txt").write_text(f"[xarray.chunkmanagers]\n{ep}\n")
    code = textwrap.dedent(f"""
        import numpy as np, xarray as xr, zarr
        assert xr.__version__ == "2023.8.0", xr.__version__
        import chunkarray as ca
        a = np.arange(7 * 10, dtype="f8").reshape(7, 10)
        b = np.arange(7, dtype="i4") * 3
        xr.Dataset({{"a": (("y", "x"), a), "b": (("y",), b)}}).to_zarr({str(tmp_path / "d.zarr")!r},
            encoding={{"a": {{"chunks": (3, 4)}}, "b": {{"chunks": (5,)}}}}, mode="w")
        reads = []
        class Store(zarr.storage.DirectoryStore):
            def __getitem__(self, key):
                if not key.split("/")[-1].startswith(".z"):
                    reads.append(key)
                return super().__getitem__(key)
        ds = xr.open_zarr(Store({str(tmp_path / "d.zarr")!r}), chunks={{}}, chunked_array_type="chunkarray")
        assert isinstance(ds["a"].data, ca.Array), type(ds["a"].data)
        assert ds["a"].data.chunks == ((3, 3, 1), (4, 4, 2)), ds["a"].data.chunks
        assert reads == [], reads
        s = (ds["a"] * 2).sum("x")
        assert reads == [], reads
        np.testing.assert_array_equal(s.values, (a * 2).sum(1))
        assert sorted(k for k in reads if k.startswith("a/")) == sorted(f"a/{{i}}.{{j}}" for i in range(3) for j in range(3))
        np.testing.assert_array_equal(ds["b"].values, b)
        print("lazy-ok", len(reads))
    """)
    env = dict(os.environ)
    here = os.path.dirname(os.path.abspath(__file__))
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "xr"), str(meta), os.path.join(here, "..")])
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "lazy-ok" in r.stdout
