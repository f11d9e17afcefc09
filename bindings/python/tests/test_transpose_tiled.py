"""Transposed blocks (ca.shape.transpose's tiled copy, issue 19 W10) and `(x + x.T).sum()` exactly as
NumPy: ragged and non-square blocks, tile edges (sizes around the 16 x 8 tiles), every element size
the tiled copy specialises (1, 2, 4, 8 and 16 bytes), and permutations of 3-D and 4-D blocks."""
import numpy as np
import pytest

import chunkarray as ca

RNG = np.random.default_rng(19)

DTYPES = [np.int8, np.int16, np.float32, np.int32, np.float64, np.int64, np.complex128, np.bool_]


def sample(shape, dt):
    v = RNG.integers(-50, 50, size=shape)
    if dt is np.complex128:
        return (v + 1j * RNG.integers(-50, 50, size=shape)).astype(dt)
    return v.astype(dt)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape,chunks", [((37, 53), (16, 20)), ((64, 64), (33, 31)), ((1, 40), (1, 7)),
                                          ((40, 1), (9, 1)), ((17, 8), (17, 8)), ((130, 3), (64, 2))])
def test_transpose_2d(dt, shape, chunks):
    a = sample(shape, dt)
    x = ca.from_array(a, chunks=chunks)
    np.testing.assert_array_equal(x.T.compute(), a.T)
    if a.shape[0] == a.shape[1]:
        want = (a + a.T).sum()
        got = (x + x.T).sum().compute()
        assert got == want and np.asarray(got).dtype == want.dtype


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int16, np.complex128])
@pytest.mark.parametrize("axes", [(1, 0, 2), (0, 2, 1), (2, 1, 0), (1, 2, 0)])
def test_transpose_3d(dt, axes):
    a = sample((19, 23, 17), dt)
    x = ca.from_array(a, chunks=(10, 12, 9))
    np.testing.assert_array_equal(x.transpose(axes).compute(), a.transpose(axes))


def test_transpose_4d_and_empty():
    a = sample((5, 6, 7, 9), np.float64)
    x = ca.from_array(a, chunks=(2, 3, 4, 5))
    for axes in [(3, 2, 1, 0), (0, 1, 3, 2), (2, 0, 3, 1)]:
        np.testing.assert_array_equal(x.transpose(axes).compute(), a.transpose(axes))
    e = np.zeros((0, 5))
    np.testing.assert_array_equal(ca.from_array(e, chunks=(1, 2)).T.compute(), e.T)


def test_x_plus_xT_sum_ragged_float():
    a = RNG.uniform(0, 1, size=(300, 300))
    x = ca.from_array(a, chunks=(128, 100))
    np.testing.assert_allclose((x + x.T).sum().compute(), (a + a.T).sum(), rtol=1e-12)
    np.testing.assert_array_equal((x + x.T).compute(), a + a.T)


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int32, np.int8, np.complex128])
def test_fused_transposed_reads(dt):
    # Symmetric chunks: x.T's blocks are read transposed inside the fused program (no copy task);
    # non-square (33 x 31) and edge blocks, axis reductions, and x.T alone.
    a = sample((64, 64), dt)
    x = ca.from_array(a, chunks=(33, 31))
    np.testing.assert_array_equal((x.T * 2 - x).compute(), a.T * 2 - a)
    np.testing.assert_array_equal(x.T.sum(axis=0).compute(), a.T.sum(axis=0))
    np.testing.assert_array_equal((x - x.T).max(axis=1).compute(), (a - a.T).max(axis=1))
    np.testing.assert_array_equal(x.T.sum().compute(), a.T.sum())
    np.testing.assert_array_equal((x.T + x.T).compute(), a.T + a.T)
    np.testing.assert_array_equal((x + x.T).T.compute(), (a + a.T).T)
    # Broadcasting against x.T keeps the copy path (a 1-D operand broadcast along rows).
    v = sample((64,), dt)
    y = ca.from_array(v, chunks=31)
    np.testing.assert_array_equal((x.T + y).compute(), a.T + v)


def test_fused_transposed_mismatched_chunks():
    # x.T rechunked to x's chunks (asymmetric chunks): not fused, the same values.
    a = RNG.uniform(0, 1, size=(50, 50))
    x = ca.from_array(a, chunks=(20, 7))
    np.testing.assert_array_equal((x + x.T).compute(), a + a.T)


def test_fused_transpose_leaves_no_copy_layer():
    # (x + x.T) over symmetric chunks reads x's blocks transposed: its graph has no transpose layer
    # (x.T on its own keeps one), and computes as NumPy.
    a = sample((40, 40), np.float64)
    x = ca.from_array(a, chunks=(16, 16))
    assert any(n.startswith("transpose") for n in x.T.graph().layers())
    for y in [x + x.T, (x * x.T).sum(), x.T.sum(axis=1)]:
        assert not any(n.startswith("transpose") for n in y.graph().layers()), y.graph().layers()
    np.testing.assert_array_equal((x * x.T).sum().compute(), (a * a.T).sum())
