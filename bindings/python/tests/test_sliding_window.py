"""sliding_window_view (ca_array_sliding_window_view) against numpy.lib.stride_tricks and dask.array's
chunks, on ragged chunks, 0-d windows errors, size-1 and empty axes; np.lib.stride_tricks dispatches lazily."""
import warnings

import dask
import dask.array as da
import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view as np_swv

import chunkarray as ca

dask.config.set(scheduler="synchronous")
X = np.random.default_rng(3).standard_normal((11, 8, 3))


@pytest.mark.parametrize("chunks", [((4, 4, 3), (3, 5), (3,)), ((1,) * 11, (8,), (1, 1, 1)),
                                    ((6, 0, 5), (2, 2, 2, 2), (2, 1))])
@pytest.mark.parametrize("window, axis", [
    (3, 0), ((2, 4), (0, 1)), ((11, 1, 3), None), ((2, 3), (0, 0)), (1, -1), (8, 1), ((5,), (1,)),
])
def test_matches_numpy_and_dask_chunks(chunks, window, axis):
    x = ca.from_array(X, chunks=chunks)
    r = ca.sliding_window_view(x, window, axis)
    want = np_swv(X, window, axis)
    got = r.compute()
    assert r.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    if 0 not in sum(chunks, ()):  # dask's own graph builders fail on empty blocks next to others
        d = da.lib.stride_tricks.sliding_window_view(da.from_array(X, chunks=chunks), window, axis)
        assert r.chunks == d.chunks


def test_dispatch_is_lazy_and_integer_and_empty():
    xi = np.arange(30, dtype=np.int16).reshape(5, 6)
    x = ca.from_array(xi, chunks=(2, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = np_swv(x, (2, 2))
    assert isinstance(r, ca.Array)
    np.testing.assert_array_equal(r.compute(), np_swv(xi, (2, 2)))
    e = ca.from_array(np.zeros((0, 4)), chunks=2)
    np.testing.assert_array_equal(ca.sliding_window_view(e, 2, axis=1).compute(), np_swv(np.zeros((0, 4)), 2, 1))
    one = ca.from_array(np.array([7.0]), chunks=1)
    np.testing.assert_array_equal(ca.sliding_window_view(one, 1).compute(), np.array([[7.0]]))


def test_errors():
    x = ca.from_array(X, chunks=4)
    with pytest.raises(ValueError, match="window shape cannot be larger than input array shape"):
        ca.sliding_window_view(x, 12, axis=0)
    with pytest.raises(ValueError, match="cannot contain negative values"):
        ca.sliding_window_view(x, -1, axis=0)
    with pytest.raises(ValueError, match="out of bounds"):
        ca.sliding_window_view(x, 2, axis=3)
    with pytest.raises(ValueError, match="Since axis is `None`"):
        ca.sliding_window_view(x, 2)
    with pytest.raises(ValueError, match="matching length"):
        ca.sliding_window_view(x, (2, 2), axis=0)
