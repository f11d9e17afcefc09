"""NumPy's advanced indexing (several integer arrays of any shape, boolean arrays, ints among them,
NumPy's axis order), dask's vindex and outer indexing (oindex) through ca_array_index, checked against
NumPy (fancy indexing, np.ix_) and dask.array's vindex, on ragged chunks, 0-d, empty and size-1 cases."""
import dask
import dask.array as da
import numpy as np
import pytest

import chunkarray as ca
from chunkarray._indexing import IndexingError

dask.config.set(scheduler="synchronous")

RNG = np.random.default_rng(5)
X3 = RNG.standard_normal((7, 9, 5))
CH3 = ((3, 1, 3), (4, 0, 4, 1), (2, 3))


def arr(x=X3, chunks=CH3):
    return ca.from_array(x, chunks=chunks)


def check(got, want):
    r = got.compute()
    assert got.shape == want.shape, (got.shape, want.shape)
    assert r.shape == want.shape and r.dtype == want.dtype, (r.shape, want.shape, r.dtype, want.dtype)
    np.testing.assert_array_equal(r, want)
    for c, s in zip(got.chunks, got.shape):
        assert sum(c) == s


NUMPY_KEYS = [
    ([0, 6, 2], [1, 8, 0]),                              # two arrays, adjacent: broadcast dims first (at 0)
    (slice(None), [0, 3, 3, -1], [1, 0, 4, 2]),         # adjacent after a slice: dims stay at position 1
    ([0, 6], slice(None), [1, 4]),                       # separated by a slice: dims go first
    ([1, 2], slice(1, 8, 2), 0),                         # int among arrays, separated: dims first
    (slice(None), 0, [1, 4, 2]),                         # int adjacent to an array: dims at position 1
    (0, slice(None), [1, 4, 2]),                         # int then slice then array: dims first
    (np.array([[0, 1], [5, 6]]), np.array([[2], [7]])),  # 2-d arrays broadcasting to (2, 2)
    (np.array([[0, 1], [5, 6]]),),                       # one 2-d array
    (Ellipsis, np.array([[0], [4]]), np.array([1, 2, 3])),
    (None, [0, 1], None, [2, 3]),                        # newaxes separate the arrays: dims first
    ([0, 1], None, slice(2, 5)),
    (X3[:, :, 0] > 0.3,),                                # a 2-d boolean mask covers two axes
    (slice(None), X3[0, :, :] > 0,),
    ([True, False, True, False, False, False, True], [0, 2, 8]),
    (np.array(3), [1, 2]),                               # a 0-d integer array among arrays
    ([[-1, -7]], slice(None, None, -1), [-5, 4]),        # negative indices, negative step
    (np.zeros((0,), dtype=np.int64), [1]),               # empty broadcast
    (np.zeros((0, 3), dtype=np.int64), slice(None), np.zeros((1, 3), dtype=np.int64)),
    ([5], [8], [4]),                                     # size-1, every axis indexed
    ([0, 6], slice(None, None, -1), [1, 4]),             # negative step over an axis with an empty block
    ([[0], [6]], slice(7, 0, -3), slice(None, None, -1)),
]


@pytest.mark.parametrize("key", NUMPY_KEYS, ids=range(len(NUMPY_KEYS)))
def test_numpy_advanced_indexing(key):
    check(arr()[key], X3[key])


@pytest.mark.parametrize("chunks", [((7,), (9,), (5,)), ((1,) * 7, (2, 2, 2, 2, 1), (5,)), CH3])
def test_numpy_advanced_indexing_across_chunkings(chunks):
    rng = np.random.default_rng(1)
    for _ in range(10):
        i = rng.integers(-7, 7, size=(4, 1))
        j = rng.integers(0, 9, size=(3,))
        check(arr(chunks=chunks)[i, :, 1], X3[i, :, 1])
        check(arr(chunks=chunks)[i, j], X3[i, j])
        check(arr(chunks=chunks)[:, j, i % 5], X3[:, j, i % 5])


def test_points_are_split_into_bounded_blocks():
    x = np.arange(200.0).reshape(20, 10)
    a = ca.from_array(x, chunks=(4, 3))
    i = np.arange(100) % 20
    j = (np.arange(100) * 7) % 10
    r = a.vindex[i, j]
    assert r.chunks == ((12,) * 8 + (4,),)  # 4 * 3 points per block, as dask >= 2024
    check(r, x[i, j])
    # 2-d broadcast points keep their shape
    check(a.vindex[i.reshape(10, 10), j.reshape(10, 10)], x[i.reshape(10, 10), j.reshape(10, 10)])


def test_many_points_stay_linear():
    # 200k points over 10k blocks: grouping is O(points), the graph only has touched blocks
    x = np.arange(1_000_000, dtype=np.int64).reshape(1000, 1000)
    a = ca.from_array(x, chunks=(10, 10))
    rng = np.random.default_rng(0)
    i, j = rng.integers(0, 1000, 200_000), rng.integers(0, 1000, 200_000)
    np.testing.assert_array_equal(a[i, j].compute(), x[i, j])


VINDEX_KEYS = [
    ([0, 6, 2], [1, 8, 0]),
    ([0, 6], slice(None), [1, 4]),
    (slice(None), [0, 3, 3, -1], [1, 0, 4, 2]),       # dims first, unlike NumPy
    (2, [1, 2], [0, 4]),
    (Ellipsis, [1, 2]),
    (np.array([[0, 1], [5, 6]]), np.array([[2], [7]])),
    (slice(1, 5), [0, 8]),
    ([[6]],),
]


@pytest.mark.parametrize("key", VINDEX_KEYS, ids=range(len(VINDEX_KEYS)))
def test_vindex_matches_dask(key):
    want = da.from_array(X3, chunks=CH3).vindex[key].compute()
    check(arr().vindex[key], want)


@pytest.mark.parametrize("key", [
    ([0, 6, 2], [1, 8, 0]),
    ([0, 6, 2], slice(None), [1, 4]),
    (1, [1, 8, 0], slice(1, 3)),
    ([True, False, True, False, False, False, True], [3, 3, 0], [4]),
    (slice(None), [], [1]),
    (Ellipsis, [4, 0]),
])
def test_oindex_matches_ix(key):
    # reference: each axis on its own (np.take / slices), from the last axis to the first
    if key[0] is Ellipsis:
        key = (slice(None),) * (X3.ndim - len(key) + 1) + key[1:]
    want = X3
    for ax in reversed(range(len(key))):
        k = key[ax]
        if isinstance(k, slice):
            want = want[(slice(None),) * ax + (k,)]
        else:
            k = np.asarray(k)
            want = np.take(want, np.nonzero(k)[0] if k.dtype == bool else k.astype(np.int64), axis=ax)
    check(arr().oindex[key], want)
    if not any(isinstance(k, int) for k in key):  # np.ix_ agrees when no axis is dropped
        full = [np.arange(n)[k] if isinstance(k, slice) else np.asarray(k, dtype=bool if k and isinstance(k[0], bool)
                                                                   else np.int64) for k, n in zip(key, X3.shape)]
        np.testing.assert_array_equal(want, X3[np.ix_(*full)])


def test_oindex_with_lazy_arrays():
    a = arr()
    i = ca.from_array(np.array([6, 0, 2, 2]), chunks=2)
    m = ca.from_array(X3[0, :, 0] > 0, chunks=4)
    r = a.oindex[i, m, [1, 3]]
    want = X3[np.ix_([6, 0, 2, 2], np.nonzero(X3[0, :, 0] > 0)[0], [1, 3])]
    np.testing.assert_array_equal(r.compute(), want)


def test_zero_d_and_size_one():
    z = ca.from_array(np.array(4.5))
    check(z[()], np.array(4.5)[()] * np.ones(()))
    one = ca.from_array(np.array([[7]]), chunks=1)
    check(one[[0, 0, 0], [0, -1, 0]], np.array([[7]])[[0, 0, 0], [0, -1, 0]])
    check(one.oindex[[0, 0], [0]], np.array([[7, ], [7]]))
    check(one.vindex[[[0], [0]], [0, 0]], np.full((2, 2), 7))


@pytest.mark.parametrize("key, msg", [
    (([0, 7], [1, 1]), "index 7 is out of bounds for axis 0 with size 7"),
    (([0, 1], slice(None), [1, -6]), "index -6 is out of bounds for axis 2 with size 5"),
    (([0, 1], [1, 2, 3]), "shape mismatch: indexing arrays could not be broadcast together with shapes (2,) (3,)"),
    ((X3[:, :3, 0] > 0,), "boolean index did not match indexed array along axis 1"),
    (([0], [0], [0], [0]), "too many indices"),
])
def test_errors_name_index_and_axis(key, msg):
    with pytest.raises(IndexError) as e:
        arr()[key]
    assert msg in str(e.value)
    with pytest.raises(IndexError):
        X3[key]


def test_vindex_and_oindex_errors():
    a = arr()
    with pytest.raises(IndexError, match="None"):
        a.vindex[None, [0]]
    with pytest.raises(IndexError, match="boolean"):
        a.vindex[[True, False, True, False, False, False, True]]
    with pytest.raises(IndexError, match="at least one non-slice"):
        a.vindex[1:3]
    assert a.vindex[:, :].name == a.name
    with pytest.raises(IndexError, match="outer indexing takes 1-d arrays"):
        a.oindex[[[0, 1]]]
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 1 with size 9"):
        a.oindex[:, [9]]


class _Counting:
    def __init__(self, a):
        self.a, self.reads = a, []
        self.shape, self.dtype, self.ndim = a.shape, a.dtype, a.ndim

    def __getitem__(self, key):
        self.reads.append(key)
        return self.a[key]


def test_stays_lazy_and_reads_only_needed_blocks():
    src = _Counting(X3)
    a = ca.from_array(src, chunks=CH3)
    r = a[[0, 1], :, [1, 2]]  # points (0, 1) and (1, 2): row block 0, column blocks 0 and 1
    assert isinstance(r, ca.Array) and r.shape == (2, 9) and src.reads == []
    np.testing.assert_array_equal(r.compute(), X3[[0, 1], :, [1, 2]])
    assert len(src.reads) == 4 * 2  # every block of axis 1, only the touched blocks of axes 0 and 2
    assert all(k[0] == slice(0, 3) for k in src.reads)
