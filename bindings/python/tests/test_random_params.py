"""Array-valued parameters of chunkarray.random (``ca_array_random_params``): per-element parameter
grids against NumPy's exact distributions (Kolmogorov-Smirnov for continuous ones, moments for
discrete ones), constant arrays equal to the scalar draw, broadcasting as NumPy, chunkarray arrays as
parameters, and NumPy's errors. Fixed seeds: the tests can fail but never flake."""
import numpy as np
import pytest
import scipy.stats as st

import chunkarray as ca
from chunkarray import random as car

N = 4000  # draws per parameter value


def _c(a):
    return np.asarray(a.compute())


def _ks_rows(x, dists):
    for i, d in enumerate(dists):
        p = st.kstest(x[i], d.cdf).pvalue
        assert p > 1e-4, (i, p)


def _moment_rows(x, dists):
    for i, d in enumerate(dists):
        m, v = d.mean(), d.var()
        se_m = np.sqrt(v / x.shape[1])
        assert abs(x[i].mean() - m) < 5 * se_m, (i, x[i].mean(), m)
        if v > 0:
            assert abs(x[i].var() - v) < 0.15 * v, (i, x[i].var(), v)


@pytest.mark.parametrize("name,grid,scipy_of", [
    ("gamma", [(0.3, 1.0), (2.5, 0.5), (9.0, 3.0)], lambda a, b: st.gamma(a, scale=b)),
    ("beta", [(0.5, 0.5), (2.0, 3.0), (8.0, 1.5)], lambda a, b: st.beta(a, b)),
    ("wald", [(0.5, 1.0), (2.0, 4.0), (1.0, 0.2)], lambda m, s: st.invgauss(m / s, scale=s)),
    ("f", [(3.0, 5.0), (10.0, 20.0), (1.0, 7.0)], lambda a, b: st.f(a, b)),
    ("vonmises", [(0.0, 0.5), (1.0, 4.0), (-2.0, 20.0)], lambda m, k: st.vonmises(k, loc=m)),
])
def test_continuous_grid_ks(name, grid, scipy_of):
    p0 = np.array([g[0] for g in grid])[:, None]
    p1 = np.array([g[1] for g in grid])[:, None]
    x = _c(getattr(car.default_rng(11), name)(p0, p1, size=(len(grid), N), chunks=(2, 1500)))
    assert x.shape == (len(grid), N)
    _ks_rows(x, [scipy_of(*g) for g in grid])


def test_one_parameter_grids_ks():
    df = np.array([[1.0], [4.0], [30.0]])
    _ks_rows(_c(car.default_rng(2).standard_t(df, size=(3, N))), [st.t(d) for d in df[:, 0]])
    _ks_rows(_c(car.default_rng(3).chisquare(df, size=(3, N))), [st.chi2(d) for d in df[:, 0]])
    a = np.array([[0.5], [2.0], [5.0]])
    _ks_rows(_c(car.default_rng(4).weibull(a, size=(3, N))), [st.weibull_min(v) for v in a[:, 0]])
    _ks_rows(_c(car.default_rng(5).pareto(a, size=(3, N))), [st.lomax(v) for v in a[:, 0]])
    left, mode, right = np.array([[0.0], [-1.0]]), np.array([[0.2], [0.0]]), np.array([[1.0], [3.0]])
    x = _c(car.default_rng(6).triangular(left, mode, right, size=(2, N)))
    _ks_rows(x, [st.triang((mode[i, 0] - left[i, 0]) / (right[i, 0] - left[i, 0]), loc=left[i, 0],
                           scale=right[i, 0] - left[i, 0]) for i in range(2)])


def test_discrete_grids_moments():
    lam = np.array([[0.5], [7.0], [60.0]])
    x = _c(car.default_rng(7).poisson(lam, size=(3, N)))
    assert x.dtype == np.int64
    _moment_rows(x, [st.poisson(v) for v in lam[:, 0]])
    n = np.array([[5], [40], [300]])
    p = np.array([0.1, 0.5, 0.8])[:, None]
    _moment_rows(_c(car.default_rng(8).binomial(n, p, size=(3, N))), [st.binom(n[i, 0], p[i, 0]) for i in range(3)])
    good, bad, ns = np.array([[10], [50]]), np.array([[5], [70]]), np.array([[7], [30]])
    _moment_rows(_c(car.default_rng(9).hypergeometric(good, bad, ns, size=(2, N))),
                 [st.hypergeom(good[i, 0] + bad[i, 0], good[i, 0], ns[i, 0]) for i in range(2)])
    nb_n, nb_p = np.array([[2.0], [10.0]]), np.array([[0.3], [0.7]])
    _moment_rows(_c(car.default_rng(10).negative_binomial(nb_n, nb_p, size=(2, N))),
                 [st.nbinom(nb_n[i, 0], nb_p[i, 0]) for i in range(2)])
    gp = np.array([[0.05], [0.6]])
    _moment_rows(_c(car.default_rng(12).geometric(gp, size=(2, N))), [st.geom(v) for v in gp[:, 0]])


@pytest.mark.parametrize("method,params", [
    ("gamma", (2.5, 2.0)), ("beta", (2.0, 3.0)), ("binomial", (20, 0.3)), ("poisson", (4.0,)),
    ("noncentral_f", (3.0, 5.0, 2.0)), ("hypergeometric", (10, 7, 5)), ("zipf", (2.5,)), ("logseries", (0.6,)),
    ("standard_gamma", (0.7,)), ("power", (3.0,)), ("noncentral_chisquare", (3.0, 2.0)),
])
def test_constant_arrays_equal_scalar(method, params):
    size = (7, 9)
    want = _c(getattr(car.default_rng(5), method)(*params, size=size, chunks=(3, 4)))
    arrays = [np.full(size, p) for p in params]
    got = _c(getattr(car.default_rng(5), method)(*arrays, size=size, chunks=(3, 4)))
    np.testing.assert_array_equal(got, want)
    # size None: the parameters' broadcast shape; a chunkarray array as a parameter.
    got2 = _c(getattr(car.default_rng(5), method)(ca.from_array(arrays[0], chunks=(2, 5)), *params[1:],
                                                   chunks=(3, 4)))
    np.testing.assert_array_equal(got2, want)


def test_broadcasting_shapes_and_edge_cases():
    g = car.default_rng(1)
    assert g.gamma(np.ones((3, 1)), size=(3, 4)).shape == (3, 4)
    assert g.gamma(np.ones(3), np.ones((2, 1))).shape == (2, 3)
    assert g.beta(np.ones(3), 2.0, size=(2, 3)).shape == (2, 3)
    assert _c(g.gamma(np.float64(2.0) * np.ones(()), size=None)).shape == ()
    assert _c(g.poisson(np.ones((0, 3)))).shape == (0, 3)
    assert _c(g.poisson(np.ones(1), size=(0,))).shape == (0,)
    one = _c(g.beta(np.array([2.0]), np.array([3.0])))
    assert one.shape == (1,) and 0 < one[0] < 1
    with pytest.raises(ValueError, match="shape mismatch"):
        g.gamma(np.ones((3, 2)), size=(3, 4))
    with pytest.raises(ValueError, match="not compatible with broadcast dimensions"):
        g.gamma(np.ones((2, 1)), size=(4,))
    with pytest.raises(ValueError, match="shape mismatch"):
        g.gamma(np.ones(3), np.ones(2))


def test_errors_numpy_messages():
    g = car.default_rng(1)
    with pytest.raises(TypeError, match=r"Cannot cast array data from dtype\('float64'\) to dtype\('int64'\)"):
        g.binomial(np.array([2.0, 3.0]), 0.5)
    with pytest.raises(TypeError, match="Cannot cast array data"):
        g.hypergeometric(np.array([2, 3], dtype=np.uint64), 3, 1)
    # Values are checked when computed: NumPy's message.
    x = g.gamma(1.0, np.array([1.0, -1.0]))
    with pytest.raises(ca.ChunkArrayError, match="scale < 0"):
        x.compute()
    with pytest.raises(ca.ChunkArrayError, match="left > mode"):
        g.triangular(np.array([0.0, 2.0]), 1.0, 3.0).compute()
    with pytest.raises(ca.ChunkArrayError, match=r"p < 0, p > 1 or p is NaN"):
        g.binomial(3, np.array([0.5, np.nan])).compute()
    # integers: NumPy arrays are checked at the call as NumPy does, chunkarray arrays when computed.
    with pytest.raises(ValueError, match="low >= high"):
        g.integers(np.array([1, 5]), 5)
    with pytest.raises(ValueError, match="low > high"):
        g.integers(np.array([1, 6]), 5, endpoint=True)
    with pytest.raises(ValueError, match="low is out of bounds for uint8"):
        g.integers(np.array([-1, 2]), 5, dtype=np.uint8)
    with pytest.raises(ValueError, match="high is out of bounds for int8"):
        g.integers(0, np.array([5, 129]), dtype=np.int8)
    with pytest.raises(ca.ChunkArrayError, match=r"integers: low >= high \(low 7, high 7\)"):
        g.integers(ca.asarray(np.array([1, 7])), 7).compute()
    with pytest.raises(TypeError, match="Unsupported dtype"):
        g.integers(np.array([1, 2]), 5, dtype=np.float64)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64, np.uint64, np.bool_])
def test_integers_array_bounds(dtype):
    """Element (i, j) lies in [low_j, high_j) (closed with endpoint), every value of a small range
    occurs with NumPy's uniform frequency, constant bound arrays equal the scalar draw bit for bit,
    and chunkarray arrays as bounds give the NumPy-array result."""
    info = np.iinfo(dtype) if dtype is not np.bool_ else None
    if info is None:
        lo, hi = np.array([0, 0, 1]), np.array([1, 2, 2])
    else:
        top_lo = info.max - 4 if info.bits < 64 else 2.0**60  # (bounds pass through float64, as NumPy's do not)
        top_hi = info.max if info.bits < 64 else 2.0**60 + 2048
        lo = np.array([0, 3, max(info.min, -7), top_lo], dtype=np.float64)
        hi = np.array([1, 9, 7, top_hi], dtype=np.float64)
    for endpoint in (False, True):  # the same ranges: [lo, hi) and [lo, hi - 1]
        g = car.default_rng(12)
        h = hi - 1 if endpoint else hi
        x = _c(g.integers(lo, h, size=(N, lo.size), dtype=dtype, chunks=(1000, 2), endpoint=endpoint))
        assert x.dtype == np.dtype(dtype) and x.shape == (N, lo.size)
        top = hi - 1
        xi = x.astype(np.float64)
        assert (xi >= lo).all() and (xi <= top).all()
        for j in range(lo.size):
            vals = np.arange(lo[j], top[j] + 1)
            if vals.size <= 16:
                counts = np.array([(xi[:, j] == v).sum() for v in vals])
                exp = N / vals.size
                assert counts.sum() == N
                assert np.all(np.abs(counts - exp) < 6 * np.sqrt(exp)), (j, counts)
        same = _c(car.default_rng(12).integers(ca.asarray(lo), ca.asarray(h), size=(N, lo.size), dtype=dtype,
                                                 chunks=(1000, 2), endpoint=endpoint))
        np.testing.assert_array_equal(same, x)
    # Constant bounds: the scalar version's values.
    c = _c(car.default_rng(4).integers(np.full(6, 2), np.full(6, 5), size=(3, 6), dtype=dtype if info else np.int64))
    d = _c(car.default_rng(4).integers(2, 5, size=(3, 6), dtype=dtype if info else np.int64))
    np.testing.assert_array_equal(c, d)
    # size None: the broadcast shape of the bounds; 0-d and empty.
    assert car.default_rng(1).integers(np.array([[0], [1]]), np.array([3, 4, 5])).shape == (2, 3)
    assert _c(car.default_rng(1).integers(np.array(2), 3)) == 2
    assert _c(car.default_rng(1).integers(np.array([], dtype=np.int64), 3)).shape == (0,)
    # RandomState.randint takes arrays as NumPy's does.
    r = _c(car.RandomState(2).randint(np.array([1, 5]), np.array([3, 6]), size=(5, 2)))
    assert (r[:, 1] == 5).all() and ((r[:, 0] >= 1) & (r[:, 0] < 3)).all()
