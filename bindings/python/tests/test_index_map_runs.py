"""Structural layers stored as runs (src/graph/index_map.hpp): flip, concatenate, stack, pad, repeat
and tile over ragged chunks (zero-size chunks included), many blocks, several dtypes, 0-d, empty and
size-1 arrays: values against NumPy, chunks against dask.array, and the same values after a round
trip through a graph file (which holds the runs)."""
import dask
import dask.array as da
import numpy as np
import pytest

import chunkarray as ca

dask.config.set(scheduler="synchronous")

RNG = np.random.default_rng(19)
DTYPES = [np.float64, np.int32, np.complex64, np.bool_]
# 1-d chunkings: ragged, with zero-size chunks (first, inside, last), one block, many blocks.
RAGGED = [(3, 1, 4, 2), (0, 2, 0, 3, 1, 0), (5,), tuple(1 + i % 3 for i in range(150))]


def data(shape, dtype):
    v = RNG.integers(-50, 50, size=shape)
    if dtype == np.complex64:
        return (v + 1j * RNG.integers(-5, 5, size=shape)).astype(dtype)
    return (v > 0) if dtype == np.bool_ else v.astype(dtype)


def check(x, expected, d=None, path=None, chunks=True):
    r = x.compute()
    assert r.shape == expected.shape and r.dtype == expected.dtype, (r.shape, expected.shape, r.dtype)
    np.testing.assert_array_equal(r, expected)
    if d is not None and chunks:
        assert x.chunks == d.chunks, (x.chunks, d.chunks)
    if path is not None:
        x.save(path)
        y = ca.load(path)
        assert y.chunks == x.chunks
        np.testing.assert_array_equal(y.compute(), expected)


def ops_1d(x, d, a):
    """(label, chunkarray result, dask result or None, NumPy result, compare chunks)."""
    # dask's flip is x[::-1], whose chunks drop zero-size chunks; chunkarray's keeps them reversed.
    keeps = 0 not in x.chunks[0]
    yield "flip", ca.flip(x, 0), da.flip(d, 0), np.flip(a, 0), keeps
    yield "concatenate", ca.concatenate([x, x, x]), da.concatenate([d, d, d]), np.concatenate([a, a, a]), True
    yield "stack", ca.stack([x, x], axis=1), da.stack([d, d], axis=1), np.stack([a, a], axis=1), True
    yield "flip of concatenate", ca.flip(ca.concatenate([x, x])), None, np.flip(np.concatenate([a, a])), True
    for r in (2, 3, 7):
        yield f"repeat {r}", ca.repeat(x, r), da.repeat(d, r), np.repeat(a, r), True
    yield "repeat 0", ca.repeat(x, 0), None, np.repeat(a, 0), True
    yield "tile 3", ca.tile(x, 3), da.tile(d, 3), np.tile(a, 3), True
    yield "tile (2, 2)", ca.tile(x, (2, 2)), da.tile(d, (2, 2)), np.tile(a, (2, 2)), True
    n = a.shape[0]
    for mode in ("constant", "edge", "reflect"):
        for w in ((1, 2), (0, 4), (n - 1, n - 1)):
            if mode == "reflect" and (max(w) >= n or n == 0):
                continue
            if mode != "constant" and n == 0:
                continue
            kw = {"constant_values": a.flat[0].item() if n else 1} if mode == "constant" else {}
            yield f"pad {mode} {w}", ca.pad(x, w, mode=mode, **kw), da.pad(d, w, mode=mode, **kw), \
                np.pad(a, w, mode=mode, **kw), False


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("chunks", RAGGED, ids=lambda c: f"{len(c)}blocks")
def test_runs_1d_against_numpy(chunks, dtype, tmp_path):
    a = data((sum(chunks),), dtype)
    x, d = ca.from_array(a, chunks=(chunks,)), da.from_array(a, chunks=(chunks,))
    for k, (label, y, e, want, cmp_chunks) in enumerate(ops_1d(x, d, a)):
        # File round trips for the first dtype only (they read the same runs for every dtype).
        check(y, want, e, tmp_path / f"{k}.cagraph" if dtype == np.float64 else None, cmp_chunks)


def test_runs_2d_ragged_and_file_round_trip(tmp_path):
    a = data((9, 7), np.float64)
    ch = ((2, 0, 4, 3), (3, 1, 3))
    x, d = ca.from_array(a, chunks=ch), da.from_array(a, chunks=ch)
    z = data((9, 2), np.float64)
    zc = ((2, 0, 4, 3), (1, 1))
    xz, dz = ca.from_array(z, chunks=zc), da.from_array(z, chunks=zc)
    cases = [
        (ca.flip(x), None, np.flip(a)),  # dask drops the zero-size chunk (x[::-1])
        (ca.concatenate([x, xz, x], axis=1), da.concatenate([d, dz, d], axis=1), np.concatenate([a, z, a], axis=1)),
        (ca.stack([x, x, x], axis=0), da.stack([d, d, d], axis=0), np.stack([a, a, a])),
        (ca.repeat(x, 4, axis=0), da.repeat(d, 4, axis=0), np.repeat(a, 4, axis=0)),
        (ca.tile(x, (2, 3)), da.tile(d, (2, 3)), np.tile(a, (2, 3))),
        (ca.pad(x, ((2, 1), (3, 0)), mode="reflect"), None, np.pad(a, ((2, 1), (3, 0)), mode="reflect")),
        (ca.pad(x, ((1, 1), (0, 2)), mode="edge"), None, np.pad(a, ((1, 1), (0, 2)), mode="edge")),
        (ca.pad(x, 2, constant_values=-1.5), None, np.pad(a, 2, constant_values=-1.5)),
    ]
    for k, (y, e, want) in enumerate(cases):
        check(y, want, e, tmp_path / f"{k}.cagraph")


def test_runs_0d_empty_and_size_1(tmp_path):
    s = np.float32(2.5)
    x0 = ca.from_array(np.asarray(s))
    check(ca.flip(x0, None), np.flip(np.asarray(s)))
    check(ca.tile(x0, (2, 3)), np.tile(s, (2, 3)), path=tmp_path / "t0.cagraph")
    check(ca.repeat(x0, 3), np.repeat(s, 3), path=tmp_path / "r0.cagraph")
    check(ca.stack([x0, x0]), np.stack([s, s]), path=tmp_path / "s0.cagraph")
    e = np.zeros((0, 4), np.int32)
    xe, de = ca.from_array(e, chunks=((0,), (2, 2))), da.from_array(e, chunks=((0,), (2, 2)))
    check(ca.flip(xe, 1), np.flip(e, 1), da.flip(de, 1), tmp_path / "fe.cagraph")
    check(ca.concatenate([xe, xe]), np.concatenate([e, e]), da.concatenate([de, de]), tmp_path / "ce.cagraph")
    check(ca.repeat(xe, 2, axis=1), np.repeat(e, 2, axis=1), da.repeat(de, 2, axis=1), tmp_path / "re.cagraph")
    check(ca.tile(xe, (2, 1)), np.tile(e, (2, 1)), da.tile(de, (2, 1)), tmp_path / "te.cagraph")
    check(ca.pad(xe, 1, constant_values=3), np.pad(e, 1, constant_values=3), path=tmp_path / "pe.cagraph")
    one = np.array([[7.0]])
    x1, d1 = ca.from_array(one, chunks=1), da.from_array(one, chunks=1)
    check(ca.flip(x1), np.flip(one), da.flip(d1, (0, 1)), tmp_path / "f1.cagraph")
    check(ca.repeat(x1, 5, axis=1), np.repeat(one, 5, axis=1), da.repeat(d1, 5, axis=1), tmp_path / "r1.cagraph")
    check(ca.tile(x1, (3, 1)), np.tile(one, (3, 1)), da.tile(d1, (3, 1)), tmp_path / "t1.cagraph")
    check(ca.pad(x1, 2, mode="edge"), np.pad(one, 2, mode="edge"), path=tmp_path / "p1.cagraph")
