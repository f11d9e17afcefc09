"""einsum (ca_linalg_einsum) against np.einsum and dask.array.einsum's chunks: explicit and implicit
outputs, diagonals, ellipsis, broadcasting, dtype promotion, bool, ragged chunks, 0-d, empty, size-1."""
import warnings

import dask
import dask.array as da
import numpy as np
import pytest

import chunkarray as ca

dask.config.set(scheduler="synchronous")
RNG = np.random.default_rng(8)

CASES = [
    ("ij,jk->ik", [(7, 5), (5, 6)], [((3, 4), (2, 3)), ((4, 1), (6,))]),
    ("ij,jk", [(7, 5), (5, 6)], [((7,), (1, 1, 3)), ((2, 3), (3, 3))]),
    ("ii->i", [(6, 6)], [((2, 4), (3, 3))]),
    ("ii", [(6, 6)], [((2, 4), (3, 3))]),
    ("ij->", [(5, 4)], [((2, 3), (4,))]),
    ("ij->ji", [(5, 4)], [((2, 3), (1, 3))]),
    ("i,i", [(9,), (9,)], [((4, 5),), ((9,),)]),
    ("i,j->ij", [(4,), (3,)], [((1, 3),), ((2, 1),)]),
    ("...ij,...jk->...ik", [(3, 4, 5), (5, 2)], [((2, 1), (4,), (2, 3)), ((5,), (2,))]),
    ("bij,bjk->bik", [(3, 4, 5), (3, 5, 2)], [((1, 2), (2, 2), (5,)), ((3,), (3, 2), (1, 1))]),
    ("ij,ij->ij", [(4, 1), (4, 6)], [((2, 2), (1,)), ((3, 1), (4, 2))]),  # extent-1 broadcast
    ("i,i->", [(1,), (6,)], [((1,),), ((2, 4),)]),
    ("abc,cd,b->ad", [(3, 4, 5), (5, 2), (4,)], [((3,), (2, 2), (2, 3)), ((1, 4), (2,)), ((1, 3),)]),
    ("i...->...", [(2, 3)], [((1, 1), (3,))]),
    (",i->i", [(), (5,)], [(), ((2, 3),)]),
    ("ij,jk->ik", [(0, 5), (5, 3)], [((0,), (5,)), ((5,), (3,))]),   # empty
    ("ij,jk->ik", [(3, 0), (0, 3)], [((3,), (0,)), ((0,), (3,))]),   # empty contraction: zeros
    ("", [()], [()]),
]


@pytest.mark.parametrize("subscripts, shapes, chunks", CASES, ids=[c[0] or "0d" for c in CASES])
def test_matches_numpy(subscripts, shapes, chunks):
    xs = [RNG.standard_normal(s) for s in shapes]
    arrays = [ca.from_array(x, chunks=c if c else ()) for x, c in zip(xs, chunks)]
    r = ca.einsum(subscripts, *arrays)
    want = np.einsum(subscripts, *xs)
    got = r.compute()
    assert r.shape == np.shape(want) and got.dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_chunks_match_dask():
    x, y = RNG.standard_normal((7, 5)), RNG.standard_normal((5, 6))
    for sub in ("ij,jk->ik", "ij,jk->ijk", "ij,jk->ki"):
        r = ca.einsum(sub, ca.from_array(x, chunks=(3, 2)), ca.from_array(y, chunks=(2, 4)))
        d = da.einsum(sub, da.from_array(x, chunks=(3, 2)), da.from_array(y, chunks=(2, 4)))
        assert r.chunks == d.chunks
        np.testing.assert_allclose(r.compute(), d.compute(), rtol=1e-12)


@pytest.mark.parametrize("dts", [(np.int32, np.int32), (np.int8, np.uint8), (np.int64, np.float32),
                                 (np.float32, np.float32), (np.complex64, np.float64), (np.bool_, np.bool_),
                                 (np.uint16, np.bool_)])
def test_dtype_promotion(dts):
    a = (RNG.standard_normal((4, 5)) * 10).astype(dts[0])
    b = (RNG.standard_normal((5, 3)) * 10).astype(dts[1])
    r = ca.einsum("ij,jk->ik", ca.from_array(a, chunks=2), ca.from_array(b, chunks=(3, 2)))
    want = np.einsum("ij,jk->ik", a, b)
    got = r.compute()
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5 if want.dtype.kind in "fc" else 0)


def test_integer_wraps_and_dtype_argument():
    a = np.full((3, 4), 100, dtype=np.int8)
    r = ca.einsum("ij,ij->i", ca.from_array(a, chunks=2), ca.from_array(a, chunks=2))
    np.testing.assert_array_equal(r.compute(), np.einsum("ij,ij->i", a, a))
    f = ca.einsum("ij->i", ca.from_array(a, chunks=2), dtype=np.float64)
    assert f.dtype == np.float64
    np.testing.assert_array_equal(f.compute(), np.einsum("ij->i", a, dtype=np.float64))
    with pytest.raises(TypeError):
        ca.einsum("ij->i", ca.from_array(np.ones((2, 2))), dtype=np.int32)


def test_dispatch_interleaved_and_lazy():
    x, y = RNG.standard_normal((4, 5)), RNG.standard_normal((5,))
    a, b = ca.from_array(x, chunks=2), ca.from_array(y, chunks=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = np.einsum("ij,j->i", a, b, optimize=True)
    assert isinstance(r, ca.Array)
    np.testing.assert_allclose(r.compute(), x @ y)
    np.testing.assert_allclose(ca.einsum(a, [0, 1], b, [1], [0]).compute(), np.einsum(x, [0, 1], y, [1], [0]))


@pytest.mark.parametrize("sub, shapes, msg", [
    ("ij,jk->ik", [(2, 3), (4, 5)], "could not be broadcast"),
    ("ijk", [(2, 3)], "operand 0 has 2 dimensions but subscripts 'ijk' name 3"),
    ("ij,jk", [(2, 3)], "2 operand subscripts"),
    ("ij->iz", [(2, 3)], "output subscript 'z' does not appear"),
    ("ij->ii", [(2, 3)], "appears more than once"),
    ("i1", [(2, 3)], "invalid subscript '1'"),
    ("...i->i", [(2, 3)], "no '...' ellipsis"),
])
def test_errors(sub, shapes, msg):
    arrays = [ca.from_array(np.ones(s)) for s in shapes]
    with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(".", r"\.")):
        ca.einsum(sub, *arrays)
    with pytest.raises(ValueError):
        np.einsum(sub, *[np.ones(s) for s in shapes])
