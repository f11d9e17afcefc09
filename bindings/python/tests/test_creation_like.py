"""from_array(getitem=, fancy=, inline_array=) with dask's semantics and NEP 35 `like=` (np.ones(..., like=x)
dispatched to chunkarray for a chunkarray x; chunkarray's creation functions accept like= when it asks for
NumPy blocks), checked against NumPy and dask.array."""
import threading
import warnings

import dask
import dask.array as da
import numpy as np
import pytest

import chunkarray as ca

dask.config.set(scheduler="synchronous")


class Source:
    """An array-like that counts reads and refuses fancy (list) indexes."""

    def __init__(self, a):
        self.a, self.reads = a, []
        self.shape, self.dtype, self.ndim = a.shape, a.dtype, a.ndim

    def __getitem__(self, key):
        assert all(isinstance(k, slice) for k in key), key
        self.reads.append(key)
        return self.a[key]


def test_getitem_is_called_per_block_at_compute_like_dask():
    x = np.arange(24.0).reshape(4, 6)
    calls = []

    def my_getitem(a, key, **kw):
        calls.append((key, sorted(kw)))
        return a[key] * 2

    src = Source(x)
    r = ca.from_array(src, chunks=(2, 3), getitem=my_getitem)
    assert calls == []  # nothing read at construction
    d = da.from_array(Source(x), chunks=(2, 3), getitem=my_getitem)
    np.testing.assert_array_equal(r.compute(), x * 2)
    assert len(calls) == 4 and all(kw == [] for _, kw in calls)
    calls.clear()
    np.testing.assert_array_equal(d.compute(), x * 2)  # dask calls it the same way
    assert len(calls) == 4 and all(kw == [] for _, kw in calls)


def test_getitem_receives_lock_and_asarray_as_dask_passes_them():
    seen = []

    def g(a, key, asarray=None, lock=None):
        seen.append((asarray, lock is not None))
        with lock:
            return a[key]

    x = np.arange(10)
    lk = threading.Lock()
    np.testing.assert_array_equal(ca.from_array(x, chunks=4, getitem=g, lock=lk, asarray=True).compute(), x)
    assert seen and all(s == (True, True) for s in seen)
    # a NumPy source is read lazily through getitem too
    seen.clear()
    r = ca.from_array(x, chunks=5, getitem=lambda a, k: a[k] + 1)
    np.testing.assert_array_equal(r.compute(), x + 1)
    with pytest.raises(TypeError, match="callable"):
        ca.from_array(x, getitem=3)


@pytest.mark.parametrize("fancy", [True, False])
@pytest.mark.parametrize("inline_array", [True, False])
def test_fancy_and_inline_array(fancy, inline_array):
    x = np.arange(30.0).reshape(5, 6)
    src = Source(x)
    r = ca.from_array(src, chunks=(2, 4), fancy=fancy, inline_array=inline_array)
    # fancy indexing applies after the reads, which are slices only (Source asserts it)
    np.testing.assert_array_equal(r[[4, 0, 0], :].compute(), x[[4, 0, 0], :])
    np.testing.assert_array_equal(r.vindex[[1, 3], [5, 0]].compute(), x[[1, 3], [5, 0]])
    d = da.from_array(x, chunks=(2, 4), fancy=fancy, inline_array=inline_array)
    assert r.chunks == d.chunks


def test_nep35_like_dispatches_to_chunkarray():
    x = ca.ones(4, chunks=2)
    cases = [(np.ones, ((3, 2),), {}), (np.zeros, ((3,),), {"dtype": "i4"}), (np.full, ((2, 2), 7), {}),
             (np.arange, (1, 7, 2), {}), (np.arange, (0.5, 3), {}), (np.eye, (3,), {"k": 1}), (np.identity, (2,), {}),
             (np.tri, (3,), {}), (np.array, ([[1, 2]],), {}), (np.asarray, ([1.5, 2],), {"dtype": "f4"}),
             (np.frombuffer, (b"abcd", np.uint8), {}), (np.loadtxt, (["1", "2"],), {})]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComputeWarning: nothing is computed
        for f, a, k in cases:
            r = f(*a, like=x, **k)
            want = f(*a, **k)
            assert isinstance(r, ca.Array), f
            assert r.dtype == want.dtype and r.shape == want.shape, f
            np.testing.assert_array_equal(r.compute(), want)
    assert isinstance(np.ones(3, like=np.empty(0)), np.ndarray)  # NumPy's like: NumPy's namespace


def test_like_in_chunkarray_creation():
    x = ca.ones(4, chunks=2)
    for like in (None, x, np.empty(0)):
        np.testing.assert_array_equal(ca.zeros(3, like=like).compute(), np.zeros(3))
        np.testing.assert_array_equal(ca.arange(5, like=like).compute(), np.arange(5))
        np.testing.assert_array_equal(ca.asarray([1, 2], like=like).compute(), np.array([1, 2]))

    class Other:
        pass
    with pytest.raises(NotImplementedError, match="like="):
        ca.ones(3, like=Other())
