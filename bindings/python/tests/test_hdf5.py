"""HDF5 (from_hdf5 / to_hdf5) interop with h5py, and npy stacks interop with dask."""
import os
import pickle

import numpy as np
import pytest

import chunkarray as ca
from chunkarray.core import ChunkArrayError, NotFoundError, UnsupportedError

h5py = pytest.importorskip("h5py")


def _hdf5_or_skip(tmp_path):
    p = tmp_path / "probe.h5"
    with h5py.File(p, "w") as f:
        f["x"] = np.zeros(2)
    try:
        ca.from_hdf5(p, "x")
    except UnsupportedError as e:
        pytest.skip(f"built without HDF5: {e}")


@pytest.fixture
def h5(tmp_path):
    _hdf5_or_skip(tmp_path)
    return tmp_path


X = np.arange(203 * 37, dtype="f8").reshape(203, 37) * 0.5 - 11


@pytest.mark.parametrize("kw", [dict(chunks=(50, 10), compression="gzip", shuffle=True),
                                dict(chunks=(64, 37), compression="gzip", compression_opts=9),
                                dict(chunks=(17, 5)), dict()])  # the last: contiguous
def test_read_what_h5py_wrote(h5, kw):
    p = h5 / "a.h5"
    with h5py.File(p, "w") as f:
        f.create_dataset("grp/x", data=X, **kw)
    a = ca.from_hdf5(p, "/grp/x")
    if kw.get("chunks"):  # default chunks: the dataset's HDF5 chunks, edges trimmed
        c = kw["chunks"]
        assert a.chunks == tuple(tuple(min(c[d], n - i) for i in range(0, n, c[d])) for d, n in enumerate(X.shape))
    np.testing.assert_array_equal(a.compute(), X)
    # ragged boxes that cut through HDF5 chunks
    b = ca.from_hdf5(p, "grp/x", chunks=(33, 9))
    assert b.chunks == ((33,) * 6 + (5,), (9, 9, 9, 9, 1))
    np.testing.assert_array_equal(b.compute(), X)
    np.testing.assert_array_equal(b[7:190:3, 5:31].compute(), X[7:190:3, 5:31])
    assert float(ca.from_hdf5(p, "grp/x").sum().compute()) == X.sum()


def test_auto_chunks_follow_dask(h5):
    da = pytest.importorskip("dask.array")
    p = h5 / "a.h5"
    with h5py.File(p, "w") as f:
        f.create_dataset("x", data=np.zeros((2000, 3000)), chunks=(100, 300))
        a = ca.from_hdf5(p, "x", chunks="auto")
        d = da.from_array(f["x"], chunks="auto")
        assert a.chunks == d.chunks
        assert ca.from_hdf5(p, "x", chunks="1MiB").chunks == da.from_array(f["x"], chunks="1MiB").chunks


DTYPES = ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16", "?", "S4"]


@pytest.mark.parametrize("dt", DTYPES)
def test_every_dtype_both_ways(h5, dt):
    rng = np.random.default_rng(3)
    if dt == "S4":
        x = np.array([b"ab", b"", b"wxyz", b"q"] * 15, dtype="S4").reshape(6, 10)
    else:
        x = (rng.standard_normal((6, 10)) * 100).astype(dt)
        if np.dtype(dt).kind == "c":
            x = x + 1j * x[::-1]
    p = h5 / "d.h5"
    with h5py.File(p, "w") as f:
        f.create_dataset("chunked", data=x, chunks=(4, 3))
        f.create_dataset("contig", data=x)
        f.create_dataset("be", data=x.astype(np.dtype(dt).newbyteorder(">")), chunks=(4, 3))
    for n in ["chunked", "contig", "be"]:
        a = ca.from_hdf5(p, n)
        assert np.dtype(a.dtype) == np.dtype(dt).newbyteorder("=")
        np.testing.assert_array_equal(a.compute(), x)
    ca.from_array(x, chunks=(4, 3)).to_hdf5(p, "ours", compression="gzip", shuffle=True)
    ca.from_array(x, chunks=(4, 3)).to_hdf5(p, "ours_contig", chunks=None)
    with h5py.File(p, "r") as f:
        for n in ["ours", "ours_contig"]:
            got = f[n][()]
            assert got.dtype == x.dtype
            np.testing.assert_array_equal(got, x)
        assert f["ours"].chunks == (4, 3) and f["ours"].compression == "gzip" and f["ours"].shuffle
        assert f["ours_contig"].chunks is None


def test_h5py_reads_what_we_wrote(h5):
    p = h5 / "out.h5"
    y = ca.from_array(X, chunks=(60, 20))
    ca.to_hdf5(p, "/deep/group/y", y, compression="gzip", compression_opts=1, shuffle=True)
    ca.to_hdf5(p, {"/a": y + 1, "b": y[:, :5]})
    y.to_hdf5(p, "unaligned", chunks=(25, 8))  # blocks rechunked to whole HDF5 chunks
    with h5py.File(p, "r") as f:
        np.testing.assert_array_equal(f["deep/group/y"][()], X)
        np.testing.assert_array_equal(f["a"][()], X + 1)
        np.testing.assert_array_equal(f["b"][()], X[:, :5])
        np.testing.assert_array_equal(f["unaligned"][()], X)
        assert f["deep/group/y"].chunks == (60, 20) and f["deep/group/y"].compression_opts == 1
        assert f["unaligned"].chunks == (25, 8)
    with pytest.raises(ChunkArrayError, match="already exists"):
        y.to_hdf5(p, "a")
    (y * 2).to_hdf5(p, "a", overwrite=True)
    with h5py.File(p, "r") as f:
        np.testing.assert_array_equal(f["a"][()], X * 2)
    # read it back through a second dataset of the same file while writing a third
    z = ca.from_hdf5(p, "a") + 1
    z.to_hdf5(p, "c")
    with h5py.File(p, "r") as f:
        np.testing.assert_array_equal(f["c"][()], X * 2 + 1)


@pytest.mark.parametrize("shape", [(), (0,), (0, 4), (1,), (1, 1), (5, 0, 3)])
def test_zero_d_empty_size_one(h5, shape):
    x = np.arange(int(np.prod(shape)), dtype="i4").reshape(shape) + 7
    p = h5 / "e.h5"
    ca.asarray(x).to_hdf5(p, "x")
    with h5py.File(p, "r") as f:
        assert f["x"].shape == shape
        np.testing.assert_array_equal(f["x"][()], x)
        f.close()
    with h5py.File(p, "a") as f:
        f.create_dataset("y", data=x)
    for n in ["x", "y"]:
        a = ca.from_hdf5(p, n)
        assert a.shape == shape
        np.testing.assert_array_equal(a.compute(), x)


def test_errors(h5):
    p = h5 / "a.h5"
    with h5py.File(p, "w") as f:
        f.create_dataset("g/x", data=X, chunks=(50, 10))
        f.create_dataset("vs", data=["a", "bb"], dtype=h5py.string_dtype())
        f.create_dataset("cmp", data=np.zeros(3, dtype=[("a", "i4"), ("b", "f8")]))
    with pytest.raises(NotFoundError, match="no such HDF5 file"):
        ca.from_hdf5(h5 / "missing.h5", "x")
    with pytest.raises(NotFoundError, match=r"has no dataset 'g/y/z' \(it has no group '/g/y'\)"):
        ca.from_hdf5(p, "g/y/z")
    with pytest.raises(NotFoundError, match="has no dataset 'nope'"):
        ca.from_hdf5(p, "nope")
    with pytest.raises(ValueError, match="is not a dataset"):
        ca.from_hdf5(p, "g")
    with pytest.raises(UnsupportedError, match="variable-length strings"):
        ca.from_hdf5(p, "vs")
    with pytest.raises(UnsupportedError, match="compound"):
        ca.from_hdf5(p, "cmp")
    junk = h5 / "junk.h5"
    junk.write_bytes(b"not hdf5 " * 100)
    with pytest.raises(ChunkArrayError, match="is not an HDF5 file"):
        ca.from_hdf5(junk, "x")
    with pytest.raises(ChunkArrayError, match="is not an HDF5 file"):
        ca.from_array(X).to_hdf5(junk, "x")
    with pytest.raises(ChunkArrayError, match="not a dataset"):
        ca.from_array(X).to_hdf5(p, "g")
    with pytest.raises(ValueError, match="lzf"):
        ca.from_array(X).to_hdf5(p, "l", compression="lzf")
    with pytest.raises(ChunkArrayError, match="gzip level"):
        ca.from_array(X).to_hdf5(p, "l", compression="gzip", compression_opts=12)
    with pytest.raises(UnsupportedError, match="datetime64"):
        ca.asarray(np.array(["2020-01-01"], dtype="M8[D]")).to_hdf5(p, "t")


def test_corrupt_chunks_are_errors_not_crashes(h5):
    p = h5 / "c.h5"
    with h5py.File(p, "w") as f:
        d = f.create_dataset("x", data=X, chunks=(50, 10), compression="gzip", shuffle=True)
        infos = [d.id.get_chunk_info(i) for i in range(d.id.get_num_chunks())]
    raw = bytearray(p.read_bytes())
    rng = np.random.default_rng(0)
    for k, info in enumerate(infos[:8]):
        bad = bytearray(raw)
        start = info.byte_offset + (0 if k % 2 == 0 else int(rng.integers(1, info.size)))
        for j in range(start, min(start + 16, info.byte_offset + info.size)):
            bad[j] ^= 0x5A
        q = h5 / f"bad{k}.h5"
        q.write_bytes(bytes(bad))
        a = ca.from_hdf5(q, "x")
        try:
            v = a.compute()
        except ChunkArrayError as e:
            assert "c.h5" not in str(e) and f"bad{k}.h5" in str(e) and "dataset 'x'" in str(e)
        else:  # a flip deflate did not notice (it has no checksum of the data) reads as other values
            assert v.shape == X.shape
    trunc = h5 / "trunc.h5"
    trunc.write_bytes(bytes(raw[:infos[-1].byte_offset + 3]))
    with pytest.raises(ChunkArrayError, match="trunc.h5"):
        ca.from_hdf5(trunc, "x").compute()


def test_from_array_of_h5py_dataset_still_works(h5):
    da = pytest.importorskip("dask.array")
    p = h5 / "a.h5"
    with h5py.File(p, "w") as f:
        f.create_dataset("x", data=X, chunks=(50, 10), compression="gzip")
        f.create_dataset("en", data=np.array([0, 1, 1, 0], "i1"), dtype=h5py.enum_dtype({"R": 0, "G": 1}, "i1"))
    with h5py.File(p, "r") as f:
        for chunks in [(64, 37), "auto", 100, {0: 30}, (None, 8), (50, "auto")]:
            a = ca.from_array(f["x"], chunks=chunks)  # the library's reader (file opened read-only)
            assert "from-hdf5" in a.name
            assert a.chunks == da.from_array(f["x"], chunks=chunks).chunks
            np.testing.assert_array_equal(a.compute(), X)
        b = ca.from_array(f["en"])  # an HDF5 type the library does not read: h5py reads it, as before
        assert "from-hdf5" not in b.name
        np.testing.assert_array_equal(b.compute(), [0, 1, 1, 0])
        named = ca.from_array(f["x"], chunks=(64, 37), name="mine")  # a name: the generic lazy path
        np.testing.assert_array_equal(named.compute(), X)
    with h5py.File(p, "r+") as f:  # writable: h5py reads it (it may hold unflushed data)
        a = ca.from_array(f["x"], chunks=(64, 37))
        assert "from-hdf5" not in a.name
        np.testing.assert_array_equal(a.compute(), X)


# ---- npy stacks --------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ["f8", "i2", "?", "c16", "S3", "U2", "f2"])
@pytest.mark.parametrize("axis", [0, 1])
def test_npy_stack_both_ways_with_dask(tmp_path, dt, axis):
    da = pytest.importorskip("dask.array")
    x = (np.arange(7 * 5) % 11).astype(dt).reshape(7, 5)
    ca.to_npy_stack(tmp_path / "ours", ca.from_array(x, chunks=(3, 2)), axis=axis)
    d = da.from_npy_stack(str(tmp_path / "ours"))
    want = ((3, 3, 1), (5,)) if axis == 0 else ((7,), (2, 2, 1))
    assert d.chunks == want and d.dtype == x.dtype
    np.testing.assert_array_equal(d.compute(), x)
    with open(tmp_path / "ours" / "info", "rb") as f:
        info = pickle.load(f)
    assert info == {"chunks": want, "dtype": x.dtype, "axis": axis}
    da.to_npy_stack(str(tmp_path / "theirs"), da.from_array(x, chunks=(3, 2)), axis=axis)
    b = ca.from_npy_stack(tmp_path / "theirs")
    assert b.chunks == want and np.dtype(b.dtype) == x.dtype
    np.testing.assert_array_equal(b.compute(), x)


def test_npy_stack_pickle_protocols_and_refusals(tmp_path):
    x = np.arange(12.0).reshape(4, 3)
    ca.to_npy_stack(tmp_path / "s", ca.from_array(x, chunks=(2, 3)))
    info = {"chunks": ((2, 2), (3,)), "dtype": np.dtype("f8"), "axis": 0}
    for proto in (2, 3, 4, 5):
        (tmp_path / "s" / "info").write_bytes(pickle.dumps(info, protocol=proto))
        np.testing.assert_array_equal(ca.from_npy_stack(tmp_path / "s").compute(), x)
    evil = pickle.dumps({"chunks": ((2, 2), (3,)), "dtype": np.dtype("f8"), "axis": os.getpid})
    for bad, what in [(evil, "posix|os"), (pickle.dumps([1, 2]), "opcode|dict"),
                      (pickle.dumps({**info, "extra": 1}), "unexpected key"),
                      (pickle.dumps({**info, "axis": 5}), "out of range"),
                      (pickle.dumps({**info, "chunks": ((2, 1), (3,))}), "extent"),
                      (pickle.dumps(info)[:-5], "truncated|STOP"), (b"", "STOP|truncated")]:
        (tmp_path / "s" / "info").write_bytes(bad)
        with pytest.raises(ChunkArrayError, match=what):
            ca.from_npy_stack(tmp_path / "s").compute()
    with pytest.raises(NotFoundError):
        ca.from_npy_stack(tmp_path / "nothing")
    with pytest.raises(ValueError):
        ca.to_npy_stack(tmp_path / "z", ca.asarray(np.float64(1)))


def test_fill_values_and_other_filters(h5):
    p = h5 / "f.h5"
    with h5py.File(p, "w") as f:
        d = f.create_dataset("fv", shape=(100, 6), chunks=(10, 4), fillvalue=7.5, dtype="f4")
        d[20:35, 1:5] = 1.0  # the other chunks are never allocated: they read as the fill value
        f.create_dataset("fl", data=X, chunks=(40, 8), fletcher32=True, compression="gzip")  # HDF5 reads it
        f.create_dataset("sz", data=X.astype("i4"), chunks=(64, 16), scaleoffset=0)
        want = {n: f[n][()] for n in ["fv", "fl", "sz"]}
    for n, w in want.items():
        for chunks in [None, "(33, 5)"]:
            np.testing.assert_array_equal(ca.from_hdf5(p, n, chunks=chunks).compute(), w)
    assert (want["fv"] == 7.5).sum() == 100 * 6 - 15 * 4


def test_big_chunks_written_direct_h5py_reads(h5, monkeypatch):
    # Unfiltered chunks of at least CA_HDF5_ODIRECT_MIN bytes (default 1 MiB, lowered here) are
    # allocated when the dataset is created, on 4 KiB boundaries, and written at their addresses
    # (O_DIRECT where the file system takes it): h5py reads them, ragged edge chunks included, and
    # the file's other datasets (here one h5py wrote first) are kept.
    monkeypatch.setenv("CA_HDF5_ODIRECT_MIN", "4096")
    p = h5 / "big.h5"
    prior = np.arange(1000, dtype="i2")
    with h5py.File(p, "w") as f:
        f.create_dataset("prior", data=prior, chunks=(300,))
    a = np.arange(150 * 1100, dtype="f8").reshape(150, 1100) / 7
    ca.to_hdf5(p, "c", ca.from_array(a, chunks=(64, 512)), chunks=(64, 512))
    ca.to_hdf5(p, "m", ca.from_array(a, chunks=(128, 1024)), chunks=(64, 512))  # 2 x 2 chunks a block
    r = np.arange(150 * 1024, dtype="f4").reshape(150, 1024)
    ca.to_hdf5(p, "contig", ca.from_array(r, chunks=(64, 1024)), chunks=None)  # contiguous
    with h5py.File(p, "r") as f:
        np.testing.assert_array_equal(f["prior"][()], prior)
        for n in ["c", "m"]:
            d = f[n]
            np.testing.assert_array_equal(d[()], a)
            assert d.chunks == (64, 512) and d.compression is None
            assert d.id.get_num_chunks() == 9
            for i in range(9):
                assert d.id.get_chunk_info(i).byte_offset % 4096 == 0
        assert f["contig"].chunks is None
        np.testing.assert_array_equal(f["contig"][()], r)
        assert f["contig"].id.get_offset() % 4096 == 0
    np.testing.assert_array_equal(ca.from_hdf5(p, "m", chunks="(50, 300)").compute(), a)
