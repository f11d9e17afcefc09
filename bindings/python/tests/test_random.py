"""chunkarray.random: every Generator distribution against its exact law (Kolmogorov-Smirnov with SciPy
for the continuous ones, chi-square against the exact pmf for the discrete ones), chunking
independence, reproducibility, shapes, dtypes, errors, choice/permutation/shuffle, default_rng and
RandomState. Fixed seeds: the tests can fail but never flake (p-value thresholds of 1e-4).
"""
import re

import numpy as np
import pytest
import scipy.stats as st

import chunkarray as ca
from chunkarray import random as car

N = 20000
CHUNKS = (7000, 1, 6999, 6000)
ALPHA = 1e-4

# name, args, scipy frozen distribution
CONTINUOUS = [
    ("beta", (0.5, 0.7), st.beta(0.5, 0.7)),
    ("beta", (2.0, 5.0), st.beta(2.0, 5.0)),
    ("chisquare", (3.0,), st.chi2(3.0)),
    ("exponential", (2.5,), st.expon(scale=2.5)),
    ("f", (5.0, 12.0), st.f(5.0, 12.0)),
    ("gamma", (0.3, 2.0), st.gamma(0.3, scale=2.0)),
    ("gamma", (7.5, 0.5), st.gamma(7.5, scale=0.5)),
    ("gumbel", (1.0, 2.0), st.gumbel_r(1.0, 2.0)),
    ("laplace", (-1.0, 0.5), st.laplace(-1.0, 0.5)),
    ("logistic", (3.0, 1.5), st.logistic(3.0, 1.5)),
    ("lognormal", (0.3, 0.4), st.lognorm(0.4, scale=np.exp(0.3))),
    ("noncentral_chisquare", (0.5, 2.0), st.ncx2(0.5, 2.0)),
    ("noncentral_chisquare", (4.0, 2.0), st.ncx2(4.0, 2.0)),
    ("noncentral_f", (4.0, 20.0, 3.0), st.ncf(4.0, 20.0, 3.0)),
    ("normal", (10.0, 2.0), st.norm(10.0, 2.0)),
    ("pareto", (5.0,), st.lomax(5.0)),
    ("power", (3.0,), st.powerlaw(3.0)),
    ("rayleigh", (2.0,), st.rayleigh(scale=2.0)),
    ("standard_cauchy", (), st.cauchy()),
    ("standard_exponential", (), st.expon()),
    ("standard_gamma", (2.5,), st.gamma(2.5)),
    ("standard_normal", (), st.norm()),
    ("standard_t", (3.0,), st.t(3.0)),
    ("triangular", (-1.0, 0.5, 4.0), st.triang(1.5 / 5.0, loc=-1.0, scale=5.0)),
    ("uniform", (-2.0, 3.0), st.uniform(-2.0, 5.0)),
    ("vonmises", (0.0, 2.0), st.vonmises(2.0)),  # mu 0: scipy does not wrap loc + [-pi, pi] as NumPy does
    ("wald", (1.5, 3.0), st.invgauss(1.5 / 3.0, scale=3.0)),
    ("weibull", (1.5,), st.weibull_min(1.5)),
]

DISCRETE = [
    ("binomial", (10, 0.3), st.binom(10, 0.3)),
    ("binomial", (1000, 0.2), st.binom(1000, 0.2)),
    ("binomial", (200, 0.9), st.binom(200, 0.9)),
    ("geometric", (0.05,), st.geom(0.05)),
    ("geometric", (0.5,), st.geom(0.5)),
    ("hypergeometric", (30, 50, 25), st.hypergeom(80, 30, 25)),
    ("logseries", (0.6,), st.logser(0.6)),
    ("negative_binomial", (3.5, 0.4), st.nbinom(3.5, 0.4)),
    ("poisson", (3.5,), st.poisson(3.5)),
    ("poisson", (40.0,), st.poisson(40.0)),
    ("zipf", (3.0,), st.zipf(3.0)),
]


@pytest.mark.parametrize("name,args,dist", CONTINUOUS, ids=[f"{c[0]}{c[1]}" for c in CONTINUOUS])
def test_continuous_ks_and_mean(name, args, dist):
    x = getattr(ca.random.default_rng(11), name)(*args, size=N, chunks=(CHUNKS,)).compute()
    assert x.dtype == np.float64 and x.shape == (N,)
    assert st.kstest(x, dist.cdf).pvalue > ALPHA
    if np.isfinite(dist.var()):
        assert abs(x.mean() - dist.mean()) < 5 * np.sqrt(dist.var() / N)


@pytest.mark.parametrize("name,args,dist", DISCRETE, ids=[f"{c[0]}{c[1]}" for c in DISCRETE])
def test_discrete_chisquare(name, args, dist):
    x = getattr(ca.random.default_rng(12), name)(*args, size=N, chunks=(CHUNKS,)).compute()
    assert x.dtype == np.int64 and x.shape == (N,)
    lo, hi = int(dist.ppf(1e-6)), int(dist.ppf(1 - 1e-6))
    ks = np.arange(lo, hi + 1)
    expected = dist.pmf(ks) * N
    observed = np.array([(x == k).sum() for k in ks], dtype=float)
    # merge cells with < 20 expected into their neighbours; the rest outside [lo, hi] into one cell
    cells_o, cells_e, acc_o, acc_e = [], [], 0.0, 0.0
    for o, e in zip(observed, expected):
        acc_o += o
        acc_e += e
        if acc_e >= 20:
            cells_o.append(acc_o)
            cells_e.append(acc_e)
            acc_o = acc_e = 0.0
    cells_o[-1] += acc_o + ((x < lo) | (x > hi)).sum()
    cells_e[-1] += acc_e + N - expected.sum()
    chi2 = st.chisquare(cells_o, cells_e)
    assert chi2.pvalue > ALPHA, (cells_o, cells_e)


def test_chunking_threads_and_runs_never_change_values():
    for name, args in [("gamma", (0.7, 2.0)), ("binomial", (100, 0.3)), ("vonmises", (0.0, 3.0)),
                       ("hypergeometric", (7, 9, 5)), ("standard_t", (3.0,)), ("zipf", (2.0,))]:
        a = getattr(car, name)(*args, size=(37, 41), chunks=(37, 41), seed=42).compute()
        b = getattr(car, name)(*args, size=(37, 41), chunks=((5, 1, 31), (1, 39, 1)), seed=42).compute()
        c = getattr(car, name)(*args, size=(37, 41), chunks=(10, 10), seed=42).compute()
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
        d = getattr(car, name)(*args, size=(37, 41), chunks=(37, 41), seed=43).compute()
        assert not np.array_equal(a, d)


def test_generator_stream_and_seeds():
    g1, g2 = ca.random.default_rng(5), ca.random.default_rng(5)
    a1, b1 = g1.gamma(2.0, size=100).compute(), g1.gamma(2.0, size=100).compute()
    a2, b2 = g2.gamma(2.0, size=100).compute(), g2.gamma(2.0, size=100).compute()
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(b1, b2)
    assert not np.array_equal(a1, b1)  # successive calls draw new values
    # the first call of default_rng(s) is the module function with seed=s
    np.testing.assert_array_equal(a1, car.gamma(2.0, size=100, seed=5).compute())
    assert ca.random.default_rng(g1) is g1
    r = ca.random.RandomState(9)
    x = r.random_sample((4, 5), chunks=2).compute()
    r.seed(9)
    np.testing.assert_array_equal(x, r.random_sample((4, 5), chunks=3).compute())
    assert r.randint(3, 7, size=1000).compute().min() >= 3
    assert r.random_integers(3, 7, size=1000).compute().max() == 7
    assert ca.random.default_rng(None)._seed != ca.random.default_rng(None)._seed
    ss = np.random.SeedSequence(3)
    np.testing.assert_array_equal(ca.random.default_rng(ss).random(5).compute(),
                                  ca.random.default_rng(np.random.SeedSequence(3)).random(5).compute())
    with pytest.raises(ValueError, match="non-negative"):
        ca.random.default_rng(-1)


def test_shapes_dtypes_and_legacy_signatures():
    g = ca.random.default_rng(1)
    z = g.gamma(2.0).compute()  # size None: 0-d
    assert np.shape(z) == () and z > 0
    assert g.poisson(3.0, size=(0, 4)).compute().shape == (0, 4)
    for m in ("standard_normal", "standard_exponential", "random"):
        f = getattr(g, m)(size=(3, 4), chunks=2, dtype=np.float32).compute()
        assert f.dtype == np.float32 and f.shape == (3, 4)
    f = g.standard_gamma(2.0, size=7, dtype=np.float32).compute()
    assert f.dtype == np.float32
    with pytest.raises(TypeError, match="Unsupported dtype"):
        g.standard_normal(size=3, dtype=np.int32)
    # float32 values are the float64 ones rounded
    a = car.standard_gamma(0.5, size=50, seed=3).compute()
    b = car.standard_gamma(0.5, size=50, seed=3, dtype=np.float32).compute()
    np.testing.assert_array_equal(a.astype(np.float32), b)
    # the first release's keywords
    u = ca.random.uniform(0, 1, (100, 50), chunks=(30, 20), seed=3)
    assert u.chunks[0] == (30, 30, 30, 10)
    assert ca.random.integers(0, 5, size=10, seed=1).compute().max() < 5
    # dask's module functions
    np.testing.assert_array_equal(ca.random.randint(0, 5, size=10, seed=1).compute(),
                                  ca.random.integers(0, 5, size=10, seed=1).compute())
    assert ca.random.random_integers(3, size=100, seed=1).compute().min() >= 1
    np.testing.assert_array_equal(ca.random.random_sample(7, seed=2).compute(), ca.random.random(7, seed=2).compute())


def test_errors_name_function_and_problem():
    g = ca.random.default_rng(0)
    cases = [(lambda: g.gamma(1.0, -1.0, size=3), "scale < 0"),
             (lambda: g.normal(0, -1, size=3), "scale < 0"),
             (lambda: g.binomial(10, 1.5, size=3), "p < 0, p > 1 or p is NaN"),
             (lambda: g.poisson(-1, size=3), "lam < 0"),
             (lambda: g.beta(0, 1, size=3), "a <= 0"),
             (lambda: g.triangular(2, 1, 3, size=3), "left > mode"),
             (lambda: g.hypergeometric(2, 3, 6, size=3), "ngood + nbad < nsample"),
             (lambda: g.zipf(1.0, size=3), "a <= 1"),
             (lambda: g.logseries(1.0, size=3), "p < 0, p >= 1"),
             (lambda: g.wald(1, 0, size=3), "scale <= 0"),
             (lambda: g.dirichlet([1, 0], size=3), "alpha <= 0"),
             (lambda: g.choice(5, size=6, replace=False), "larger sample"),
             (lambda: g.choice(3, p=[0.5, 0.6, 0.1]), "do not sum to 1"),
             (lambda: g.multinomial(5, [0.8, 0.5, 0.1]), "sum(pvals"),
             (lambda: g.integers(5, 5), "low >= high")]
    for fn, msg in cases:
        with pytest.raises(ValueError, match=re.escape(msg)):
            fn()
    # Array-valued parameters are supported (test_random_params.py); a bad value raises at compute.
    with pytest.raises(ca.ChunkArrayError, match="gamma: shape < 0"):
        g.gamma(np.array([1.0, -2.0]), size=2).compute()


def test_multivariate():
    g = ca.random.default_rng(21)
    alpha = np.array([1.0, 2.0, 3.5])
    d = g.dirichlet(alpha, size=N, chunks=5000)
    assert d.shape == (N, 3) and d.chunks[1] == (3,)
    dv = d.compute()
    np.testing.assert_allclose(dv.sum(axis=1), 1.0)
    a0 = alpha.sum()
    for j in range(3):  # marginals are beta(alpha_j, a0 - alpha_j)
        assert st.kstest(dv[:, j], st.beta(alpha[j], a0 - alpha[j]).cdf).pvalue > ALPHA
    mean = np.array([1.0, -2.0, 0.5])
    cov = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])
    m = g.multivariate_normal(mean, cov, size=N, chunks=(3000,)).compute()
    assert m.shape == (N, 3)
    se = np.sqrt(np.diag(cov) / N)
    assert np.all(np.abs(m.mean(axis=0) - mean) < 5 * se)
    assert np.allclose(np.cov(m.T), cov, atol=0.06)
    for j in range(3):
        assert st.kstest(m[:, j], st.norm(mean[j], np.sqrt(cov[j, j])).cdf).pvalue > ALPHA
    p = np.array([0.2, 0.3, 0.5])
    mn = g.multinomial(20, p, size=(400, 5), chunks=(150, 5)).compute()
    assert mn.shape == (400, 5, 3) and mn.dtype == np.int64
    assert np.all(mn.sum(axis=-1) == 20)
    assert np.all(np.abs(mn.reshape(-1, 3).mean(axis=0) - 20 * p) < 5 * np.sqrt(20 * p * (1 - p) / 2000))
    for j in range(3):  # marginals are binomial(20, p_j)
        counts = np.bincount(mn[..., j].ravel(), minlength=21)
        expected = st.binom(20, p[j]).pmf(np.arange(21)) * 2000
        keep = expected >= 20
        o = np.append(counts[keep], counts[~keep].sum())
        e = np.append(expected[keep], expected[~keep].sum())
        assert st.chisquare(o, e * o.sum() / e.sum()).pvalue > ALPHA
    # chunking independence of the multivariate draws
    a = car.multinomial(20, p, size=37, chunks=37, seed=4).compute()
    b = car.multinomial(20, p, size=37, chunks=5, seed=4).compute()
    np.testing.assert_array_equal(a, b)
    a = car.dirichlet(alpha, size=37, chunks=37, seed=4).compute()
    b = car.dirichlet(alpha, size=37, chunks=(5,), seed=4).compute()
    np.testing.assert_array_equal(a, b)


def test_choice_permutation_shuffle():
    g = ca.random.default_rng(31)
    # with replacement, uniform: every value equally often
    c = g.choice(7, size=N, chunks=3000).compute()
    counts = np.bincount(c, minlength=7)
    assert st.chisquare(counts).pvalue > ALPHA
    # with replacement and p
    p = np.array([0.1, 0.0, 0.4, 0.2, 0.3])
    pop = np.array([10, 20, 30, 40, 50])
    c = g.choice(pop, size=N, p=p, chunks=4000).compute()
    counts = np.array([(c == v).sum() for v in pop])
    assert counts[1] == 0
    assert st.chisquare(counts[p > 0], p[p > 0] * N).pvalue > ALPHA
    # without replacement: distinct values
    c = g.choice(100, size=(5, 6), replace=False).compute()
    assert c.shape == (5, 6) and len(np.unique(c)) == 30 and c.max() < 100
    # without replacement with p: first draw's law is p
    first = np.array([car.choice(4, size=2, replace=False, p=[0.1, 0.2, 0.3, 0.4], seed=s).compute()[0]
                      for s in range(400)])
    assert st.chisquare(np.bincount(first, minlength=4), np.array([0.1, 0.2, 0.3, 0.4]) * 400).pvalue > ALPHA
    # permutation of an int: a permutation, uniform over positions
    perm = g.permutation(1000).compute()
    np.testing.assert_array_equal(np.sort(perm), np.arange(1000))
    pos0 = np.array([car.permutation(5, seed=s).compute()[0] for s in range(500)])
    assert st.chisquare(np.bincount(pos0, minlength=5)).pvalue > ALPHA
    # permutation of an array along an axis keeps rows/columns whole
    x = np.arange(60).reshape(6, 10)
    xc = ca.from_array(x, chunks=(4, 3))
    py = g.permutation(xc, axis=1).compute()
    np.testing.assert_array_equal(np.sort(py, axis=1), x)
    assert len({tuple(np.argsort(r)) for r in py - py[:, :1]}) >= 1
    np.testing.assert_array_equal(py - py[:, :1], np.broadcast_to(py[0] - py[0, 0], py.shape))
    sh = g.shuffle(xc).compute()
    np.testing.assert_array_equal(np.sort(sh, axis=0), x)
    # same seed, other chunks: the same permutation
    np.testing.assert_array_equal(car.permutation(ca.from_array(x, chunks=(6, 10)), seed=3).compute(),
                                  car.permutation(ca.from_array(x, chunks=(1, 5)), seed=3).compute())


def test_generated_arrays_stay_lazy():
    # an expression over a distribution is one fused layer per input: nothing of the draw is stored
    g = car.gamma(2.0, size=(300, 40), chunks=(100, 40), seed=1)
    p = car.poisson(4.0, size=(300, 40), chunks=(60, 20), seed=2)
    e = (g * p - (g * p).mean(axis=0))
    v = e.compute()
    gv, pv = g.compute(), p.compute()
    np.testing.assert_allclose(v, gv * pv - (gv * pv).mean(axis=0), rtol=1e-12, atol=1e-12)


def test_location_scale_parameters_broadcast():
    g = ca.random.default_rng(41)
    loc = np.array([-3.0, 0.0, 10.0, 2.5])
    scale = np.array([[0.5], [2.0]])
    x = g.normal(loc, scale, size=(N // 8, 2, 4), chunks=(700, 2, 4)).compute()
    assert x.shape == (N // 8, 2, 4)
    assert st.kstest(((x - loc) / scale).ravel(), st.norm().cdf).pvalue > ALPHA
    lo, hi = np.array([0.0, -5.0]), ca.from_array(np.array([1.0, 5.0]), chunks=1)
    u = g.uniform(lo, hi, size=(N // 2, 2)).compute()
    assert st.kstest(((u - lo) / np.array([1.0, 10.0])).ravel(), st.uniform().cdf).pvalue > ALPHA
    for name, dist in [("gumbel", st.gumbel_r()), ("laplace", st.laplace()), ("logistic", st.logistic())]:
        y = getattr(g, name)(loc, 2.0, size=(N // 4, 4)).compute()
        assert st.kstest(((y - loc) / 2.0).ravel(), dist.cdf).pvalue > ALPHA, name
    e = g.exponential(np.array([1.0, 3.0]), size=(N // 2, 2)).compute()
    assert st.kstest((e / np.array([1.0, 3.0])).ravel(), st.expon().cdf).pvalue > ALPHA
    r = g.rayleigh(np.array([1.0, 3.0]), size=(N // 2, 2)).compute()
    assert st.kstest((r / np.array([1.0, 3.0])).ravel(), st.rayleigh().cdf).pvalue > ALPHA
    ln = g.lognormal(np.array([0.0, 1.0]), 0.5, size=(N // 2, 2)).compute()
    assert st.kstest(((np.log(ln) - np.array([0.0, 1.0])) / 0.5).ravel(), st.norm().cdf).pvalue > ALPHA
    assert g.normal(loc).shape == (4,)  # size None: the parameters' shape
    with pytest.raises(ValueError, match="cannot be broadcast"):
        g.normal(np.zeros(3), 1.0, size=(2, 2))
    with pytest.raises(ValueError, match="scale < 0"):
        g.exponential(np.array([1.0, -1.0]))
    with pytest.raises(ValueError, match="sigma < 0"):
        g.lognormal(0.0, np.array([1.0, -1.0]))
