"""Tile algorithms of linalg (solve, inv, cholesky, solve_triangular; src/linalg/tiled.cpp) against
NumPy, SciPy and dask.array.linalg on several tile grids, dtypes and failure cases."""
import dask
import dask.array as da
import numpy as np
import pytest
import scipy.linalg

import chunkarray as ca
from chunkarray import linalg

dask.config.set(scheduler="synchronous")
# dask's meta for complex linalg results warns "Casting complex values to real".
pytestmark = pytest.mark.filterwarnings("ignore::numpy.ComplexWarning")

RNG = np.random.default_rng(1912)

# (n, a's chunks, b's column chunks); dask needs every chunk equal, so only the even grids are
# compared with dask as well.
GRIDS = [
    (8, (8, 8), (3,)),
    (8, (4, 4), (2, 1)),
    (12, (3, 3), (2, 2)),
    (10, ((3, 3, 3, 1), (3, 3, 3, 1)), (1, 1, 1)),
    (10, ((4, 6), (3, 7)), (3,)),
    (1, (1, 1), (1,)),
]
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def tol(dt):
    return dict(rtol=2e-4, atol=2e-4) if np.dtype(dt) in (np.float32, np.complex64) else dict(rtol=1e-10, atol=1e-11)


def rand(shape, dt):
    x = RNG.standard_normal(shape)
    if np.issubdtype(dt, np.complexfloating):
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dt)


def general(n, dt):
    return (rand((n, n), dt) + n * np.eye(n)).astype(dt)


def hpd(n, dt):
    m = rand((n, n), dt)
    return (m @ m.conj().T + n * np.eye(n)).astype(dt)


def even(chunks):
    return isinstance(chunks[0], int) and chunks[0] == chunks[1]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n,chunks,bcols", GRIDS)
def test_solve_inv_against_numpy_scipy_dask(n, chunks, bcols, dt):
    a, b, v = general(n, dt), rand((n, sum(bcols)), dt), rand((n,), dt)
    rows = chunks[0]
    A = ca.from_array(a, chunks=chunks)
    B = ca.from_array(b, chunks=(rows, bcols))
    V = ca.from_array(v, chunks=(chunks[1],))
    x = linalg.solve(A, B)
    assert x.chunks == B.chunks and x.dtype == np.dtype(dt)
    got = x.compute()
    np.testing.assert_allclose(got, np.linalg.solve(a, b), **tol(dt))
    np.testing.assert_allclose(got, scipy.linalg.solve(a, b), **tol(dt))
    np.testing.assert_allclose(linalg.solve(A, V).compute(), np.linalg.solve(a, v), **tol(dt))
    ai = linalg.inv(A)
    assert ai.chunks == A.chunks
    np.testing.assert_allclose(ai.compute(), np.linalg.inv(a), **tol(dt))
    if even(chunks):
        d = da.linalg.solve(da.from_array(a, chunks=chunks), da.from_array(b, chunks=(rows, bcols)))
        np.testing.assert_allclose(got, d.compute(), **tol(dt))
        np.testing.assert_allclose(ai.compute(), da.linalg.inv(da.from_array(a, chunks=chunks)).compute(), **tol(dt))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n,chunks,bcols", GRIDS)
def test_cholesky_solve_triangular_against_numpy_scipy_dask(n, chunks, bcols, dt):
    h, b = hpd(n, dt), rand((n, sum(bcols)), dt)
    H = ca.from_array(h, chunks=chunks)
    lo, up = linalg.cholesky(H, lower=True), linalg.cholesky(H)
    assert lo.chunks == H.chunks and up.chunks == H.chunks
    np.testing.assert_allclose(lo.compute(), np.linalg.cholesky(h), **tol(dt))
    np.testing.assert_allclose(up.compute(), scipy.linalg.cholesky(h, lower=False), **tol(dt))
    B = ca.from_array(b, chunks=(chunks[0], bcols))
    # Only the selected triangle is read: pass the full matrix.
    a = general(n, dt)
    A = ca.from_array(a, chunks=chunks)
    for lower in (True, False):
        x = linalg.solve_triangular(A, B, lower=lower)
        assert x.chunks == B.chunks
        np.testing.assert_allclose(x.compute(), scipy.linalg.solve_triangular(a, b, lower=lower), **tol(dt))
        np.testing.assert_allclose(linalg.solve_triangular(A, B[:, 0], lower=lower).compute(),
                                   scipy.linalg.solve_triangular(a, b[:, 0], lower=lower), **tol(dt))
    np.testing.assert_allclose(linalg.solve(H, B, assume_a="pos").compute(), np.linalg.solve(h, b), **tol(dt))
    if even(chunks):
        dh = da.from_array(h, chunks=chunks)
        # dask's tiled Cholesky transposes without conjugating (its upper factor is np.transpose
        # of the lower one, and the panel solves use it): for complex input over several tiles its
        # factors are not Cholesky factors; ours are NumPy's and SciPy's (checked above).
        if not np.issubdtype(dt, np.complexfloating):
            np.testing.assert_allclose(up.compute(), da.linalg.cholesky(dh).compute(), **tol(dt))
            np.testing.assert_allclose(lo.compute(), da.linalg.cholesky(dh, lower=True).compute(), **tol(dt))
        tri = np.tril(a)
        dx = da.linalg.solve_triangular(da.from_array(tri, chunks=chunks), da.from_array(b, chunks=(chunks[0], bcols)),
                                        lower=True)
        np.testing.assert_allclose(linalg.solve_triangular(A, B, lower=True).compute(), dx.compute(), **tol(dt))


def test_integer_input_and_larger_grid():
    a = RNG.integers(-5, 5, (40, 40)) + 40 * np.eye(40, dtype=np.int64)
    b = RNG.integers(-5, 5, 40)
    x = linalg.solve(ca.from_array(a, chunks=8), ca.from_array(b, chunks=8))
    assert x.dtype == np.float64
    np.testing.assert_allclose(x.compute(), np.linalg.solve(a, b), rtol=1e-10)
    d = da.linalg.solve(da.from_array(a, chunks=8), da.from_array(b, chunks=8)).compute()
    np.testing.assert_allclose(x.compute(), d, rtol=1e-12)


def test_failures():
    s = np.array([[1., 2, 3, 4], [2, 5, 1, 1], [3, 7, 4, 5], [4, 9, 5, 6]])  # rank 2
    with pytest.raises(ca.KernelError, match="Singular matrix"):
        linalg.solve(ca.from_array(s, chunks=2), ca.from_array(np.ones(4), chunks=2)).compute()
    with pytest.raises(ca.KernelError, match="Singular matrix"):
        linalg.inv(ca.from_array(s, chunks=(2, 2))).compute()
    with pytest.raises(ca.KernelError, match="not positive definite"):
        linalg.cholesky(ca.from_array(np.diag([1., 1, -1, 1]), chunks=2)).compute()
    with pytest.raises(ca.KernelError, match="Singular"):
        linalg.solve_triangular(ca.from_array(np.diag([1., 0, 2, 3]), chunks=2), ca.from_array(np.ones(4), chunks=2),
                                lower=True).compute()
    with pytest.raises(ca.InvalidArgumentError, match="square"):
        linalg.solve(ca.from_array(np.ones((3, 4)), chunks=2), ca.from_array(np.ones(3), chunks=2))
    with pytest.raises(ca.InvalidArgumentError, match="incompatible"):
        linalg.solve_triangular(ca.from_array(np.eye(3), chunks=2), ca.from_array(np.ones(4), chunks=2))
    with pytest.raises(ValueError, match="not a recognized matrix structure"):
        linalg.solve(np.eye(2), np.ones(2), assume_a="sym")


@pytest.mark.parametrize("shape,chunks", [((60, 4), (8, 4)), ((97, 3), (7, 3)), ((41, 2), (4, 2))])
def test_multilevel_tsqr_against_numpy_and_dask(shape, chunks):
    # More row blocks than one level stacks (n x blocks > the tallest block): dask recurses, so do we.
    a = RNG.standard_normal(shape)
    y = RNG.standard_normal(shape[0])
    A, dA = ca.from_array(a, chunks=chunks), da.from_array(a, chunks=chunks)
    assert any("qr-stack-l2" in name for name in linalg.qr(A)[0].graph().layers())
    q, r = (x.compute() for x in linalg.qr(A))
    dq, dr = (x.compute() for x in da.linalg.qr(dA))
    np.testing.assert_allclose(q @ r, a, atol=1e-12)
    np.testing.assert_allclose(q.T @ q, np.eye(shape[1]), atol=1e-12)
    np.testing.assert_allclose(np.abs(r), np.abs(dr), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.abs(r), np.abs(np.linalg.qr(a)[1]), rtol=1e-10, atol=1e-12)
    u, s, v = (x.compute() for x in linalg.svd(A))
    np.testing.assert_allclose(s, da.linalg.svd(dA)[1].compute(), rtol=1e-10)
    np.testing.assert_allclose((u * s) @ v, a, atol=1e-12)
    x = linalg.lstsq(A, ca.from_array(y, chunks=chunks[0]))[0].compute()
    np.testing.assert_allclose(x, da.linalg.lstsq(dA, da.from_array(y, chunks=chunks[0]))[0].compute(), rtol=1e-9)
    np.testing.assert_allclose(x, np.linalg.lstsq(a, y, rcond=None)[0], rtol=1e-9)


def test_empty():
    e = ca.from_array(np.zeros((0, 0)), chunks=1)
    assert linalg.cholesky(e).compute().shape == (0, 0)
    assert linalg.inv(e).compute().shape == (0, 0)
    assert linalg.solve(e, ca.from_array(np.zeros(0), chunks=1)).compute().shape == (0,)
    assert linalg.solve_triangular(e, ca.from_array(np.zeros((0, 3)), chunks=1)).compute().shape == (0, 3)
    x = linalg.solve(ca.from_array(2 * np.eye(3), chunks=2), ca.from_array(np.zeros((3, 0)), chunks=2))
    assert x.compute().shape == (3, 0) and x.chunks == ((2, 1), (0,))


@pytest.mark.parametrize("n,chunks", [(9, 3), (12, 4), (10, 4), (7, (3, 4)), (1, 1), (5, 5)])
@pytest.mark.parametrize("dt", [np.float64, np.float32, np.complex128, np.int64])
def test_lu_against_dask_and_reconstruction(n, chunks, dt):
    rng = np.random.default_rng(n)
    a = rng.normal(size=(n, n)) + (1j * rng.normal(size=(n, n)) if np.dtype(dt).kind == "c" else 0)
    a = (a * 4).astype(dt) if np.dtype(dt).kind == "i" else a.astype(dt)
    a = a + (n * np.eye(n)).astype(dt)  # diagonal tiles stay nonsingular
    x = ca.from_array(a, chunks=chunks)
    p, l, u = linalg.lu(x)
    want_dt = np.linalg.inv(np.eye(1, dtype=dt)).dtype  # NumPy's float dtype of a
    for m in (p, l, u):
        assert m.chunks == x.chunks and m.dtype == want_dt
    P, L, U = p.compute(), l.compute(), u.compute()
    tol = 1e-4 if want_dt in (np.float32, np.complex64) else 1e-10
    np.testing.assert_allclose(P @ L @ U, a, rtol=tol, atol=tol * n)
    np.testing.assert_array_equal(L, np.tril(L))
    np.testing.assert_array_equal(U, np.triu(U))
    np.testing.assert_array_equal(np.diag(L), np.ones(n))
    assert set(np.unique(P)) <= {0, 1} and np.array_equal(P @ P.T, np.eye(n))
    if isinstance(chunks, int) and n % chunks == 0 and np.dtype(dt).kind == "f":
        # dask's lu (square tiles only): the same factorization
        dp, dl, du = da.linalg.lu(da.from_array(a, chunks=chunks))
        np.testing.assert_allclose(P, dp.compute())
        np.testing.assert_allclose(L, dl.compute(), rtol=tol, atol=tol)
        np.testing.assert_allclose(U, du.compute(), rtol=tol, atol=tol * n)


def test_lu_errors_and_singular_tile():
    with pytest.raises(ValueError, match="square"):
        linalg.lu(ca.ones((3, 4), chunks=2))
    with pytest.raises(ValueError):
        linalg.lu(ca.ones(4, chunks=2))
    a = np.eye(4)
    a[0, 0] = 0  # the first 2x2 diagonal tile [[0, 0], [0, 1]] is singular
    p, l, u = linalg.lu(ca.from_array(a, chunks=2))
    with pytest.raises(Exception, match="Singular matrix"):
        u.compute()


def test_tsqr_sfqr_svd_compressed_and_helpers():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(60, 40)) @ np.diag(np.logspace(0, -8, 40)) @ rng.normal(size=(40, 40))
    q, r = linalg.tsqr(ca.from_array(x, chunks=(20, 40)))
    np.testing.assert_allclose((q @ r).compute(), x, atol=1e-10)
    u, s, vh = linalg.tsqr(ca.from_array(x, chunks=(20, 40)), compute_svd=True)
    np.testing.assert_allclose(s.compute(), np.linalg.svd(x, compute_uv=False), rtol=1e-8, atol=1e-14)
    q, r = linalg.sfqr(ca.from_array(x.T, chunks=(40, 20)))
    np.testing.assert_allclose((q @ r).compute(), x.T, atol=1e-10)
    with pytest.raises(ValueError, match="one column of blocks"):
        linalg.tsqr(ca.from_array(x, chunks=(20, 20)))
    with pytest.raises(ValueError, match="one row of blocks"):
        linalg.sfqr(ca.from_array(x, chunks=(20, 20)))
    assert linalg.compression_level(100, 5) == da.linalg.compression_level(100, 5) == 20
    assert linalg.compression_level(12, 5) == da.linalg.compression_level(12, 5) == 12
    assert linalg.compression_level(100, 30, n_oversamples=4) == da.linalg.compression_level(100, 30, 4)
    X = ca.from_array(x, chunks=(20, 15))  # any chunks
    for it in ("power", "QR"):
        u, s, v = linalg.svd_compressed(X, 5, iterator=it, n_power_iter=2, seed=1)
        assert u.shape == (60, 5) and s.shape == (5,) and v.shape == (5, 40)
        np.testing.assert_allclose(s.compute(), np.linalg.svd(x, compute_uv=False)[:5], rtol=1e-6)
        U, V = u.compute(), v.compute()
        np.testing.assert_allclose(U.T @ U, np.eye(5), atol=1e-8)
        assert np.all(V.sum(axis=1) >= 0)  # svd_flip's sign rule
    comp = linalg.compression_matrix(X, 5, seed=ca.random.RandomState(3))
    assert comp.shape == (20, 60)
    with pytest.raises(ValueError, match="Iterator"):
        linalg.compression_matrix(X, 5, iterator="bad")
    uu, vv = rng.normal(size=(6, 3)), rng.normal(size=(3, 4))
    for based in (False, True):
        fu, fv = linalg.svd_flip(ca.from_array(uu, chunks=3), ca.from_array(vv, chunks=2), u_based_decision=based)
        du, dv = da.linalg.svd_flip(da.from_array(uu), da.from_array(vv), u_based_decision=based)
        np.testing.assert_array_equal(fu.compute(), du.compute())
        np.testing.assert_array_equal(fv.compute(), dv.compute())
