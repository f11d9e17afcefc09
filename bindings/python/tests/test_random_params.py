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
    with pytest.raises(ValueError, match="array-valued low and high are not supported"):
        g.integers(np.array([1, 2]), 5)
