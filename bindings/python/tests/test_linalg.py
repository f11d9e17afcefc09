"""Linear algebra (linalg.h), map_overlap (overlap.h) and apply_gufunc (gufunc.h) against NumPy and dask."""
import dask
import dask.array as da
import numpy as np
import pytest

import chunkarray as ca
from chunkarray import linalg

dask.config.set(scheduler="synchronous")

RNG = np.random.default_rng(21)
A = RNG.standard_normal((12, 9))
B = RNG.standard_normal((9, 7))


def close(x, expected, d=None, rtol=1e-10, atol=1e-12, chunks=True):
    r = x.compute() if isinstance(x, ca.Array) else x
    assert r.shape == np.shape(expected) and r.dtype == np.asarray(expected).dtype, (r.shape, r.dtype,
                                                                                    np.shape(expected))
    np.testing.assert_allclose(r, expected, rtol=rtol, atol=atol)
    if d is not None:
        if chunks:
            assert x.chunks == d.chunks, (x.chunks, d.chunks)
        np.testing.assert_allclose(r, d.compute(), rtol=rtol, atol=atol)


def test_matmul_dot():
    a, b = ca.from_array(A, chunks=(5, 4)), ca.from_array(B, chunks=(4, 3))
    da_, db = da.from_array(A, chunks=(5, 4)), da.from_array(B, chunks=(4, 3))
    close(a @ b, A @ B, da_ @ db)
    close(ca.matmul(a, b), A @ B)
    close(np.matmul(a, b), A @ B)
    close(a @ B, A @ B)  # NumPy operand
    close(A @ b, A @ B)  # __rmatmul__
    v = RNG.standard_normal(9)
    close(a @ ca.from_array(v, chunks=4), A @ v, da_ @ da.from_array(v, chunks=4))
    close(a.dot(b), A.dot(B), da_.dot(db))
    close(np.dot(a, b), np.dot(A, B))
    close(ca.dot(a, 2.0) if False else ca.dot(a, ca.from_array(np.float64(2.0))), A * 2.0)
    batch = RNG.standard_normal((3, 4, 5))
    bb = RNG.standard_normal((5, 2))
    close(ca.from_array(batch, chunks=2) @ ca.from_array(bb, chunks=2), batch @ bb)
    i = np.arange(12).reshape(3, 4)
    close(ca.from_array(i, chunks=2) @ ca.from_array(i.T, chunks=3), i @ i.T)
    with pytest.raises(ValueError):
        a @ a


def test_tensordot_outer():
    t = RNG.standard_normal((4, 5, 6))
    u = RNG.standard_normal((6, 5, 3))
    x, y = ca.from_array(t, chunks=(2, 3, 4)), ca.from_array(u, chunks=(4, 2, 3))
    dx, dy = da.from_array(t, chunks=(2, 3, 4)), da.from_array(u, chunks=(4, 2, 3))
    for axes in [([1, 2], [1, 0]), 1 if False else ([2], [0]), (2, 0)]:
        close(ca.tensordot(x, y, axes=axes), np.tensordot(t, u, axes=axes), da.tensordot(dx, dy, axes=axes),
              chunks=False)
    close(np.tensordot(x, x, axes=3), np.tensordot(t, t, axes=3))
    close(ca.tensordot(x, y, axes=0), np.tensordot(t, u, axes=0))
    v, w = RNG.standard_normal(7), RNG.standard_normal(4)
    close(ca.outer(ca.from_array(v, chunks=3), ca.from_array(w, chunks=2)), np.outer(v, w),
          da.outer(da.from_array(v, chunks=3), da.from_array(w, chunks=2)))
    close(np.outer(ca.from_array(A, chunks=5), ca.from_array(w, chunks=2)), np.outer(A, w))


def test_qr_svd():
    tall = RNG.standard_normal((40, 5))
    x = ca.from_array(tall, chunks=(10, 5))
    q, r = linalg.qr(x)
    assert q.chunks == ((10,) * 4, (5,)) and r.shape == (5, 5)
    qn, rn = q.compute(), r.compute()
    np.testing.assert_allclose(qn @ rn, tall, atol=1e-12)
    np.testing.assert_allclose(qn.T @ qn, np.eye(5), atol=1e-12)
    np.testing.assert_allclose(np.abs(rn), np.abs(np.linalg.qr(tall)[1]), atol=1e-12)
    dq, dr = da.linalg.qr(da.from_array(tall, chunks=(10, 5)))
    assert q.chunks == dq.chunks and r.chunks == dr.chunks
    u, s, v = linalg.svd(x)
    np.testing.assert_allclose(s.compute(), np.linalg.svd(tall, compute_uv=False), rtol=1e-12)
    np.testing.assert_allclose((u.compute() * s.compute()) @ v.compute(), tall, atol=1e-12)
    du, ds, dv = da.linalg.svd(da.from_array(tall, chunks=(10, 5)))
    assert u.chunks == du.chunks and s.chunks == ds.chunks and v.chunks == dv.chunks
    q2, r2 = np.linalg.qr(x)  # through __array_function__
    np.testing.assert_allclose(q2.compute() @ r2.compute(), tall, atol=1e-12)
    with pytest.raises(ValueError, match="tall-and-skinny"):
        linalg.qr(ca.from_array(np.ones((10, 10)), chunks=5))


def test_solve_inv_cholesky_lstsq():
    m = RNG.standard_normal((8, 8)) + 8 * np.eye(8)
    spd = m @ m.T
    b = RNG.standard_normal((8, 3))
    x, xb = ca.from_array(m, chunks=4), ca.from_array(b, chunks=(4, 2))
    close(linalg.solve(x, xb), np.linalg.solve(m, b), da.linalg.solve(da.from_array(m, chunks=4),
                                                                       da.from_array(b, chunks=(4, 2))),
          rtol=1e-9, chunks=False)
    close(linalg.solve(x, ca.from_array(b[:, 0], chunks=4)), np.linalg.solve(m, b[:, 0]), rtol=1e-9)
    close(linalg.inv(x), np.linalg.inv(m), da.linalg.inv(da.from_array(m, chunks=4)), rtol=1e-9, chunks=False)
    close(linalg.inv(ca.from_array(m, chunks=3)), np.linalg.inv(m), rtol=1e-9)
    close(np.linalg.inv(x), np.linalg.inv(m), rtol=1e-9)
    s = ca.from_array(spd, chunks=4)
    close(linalg.cholesky(s, lower=True), np.linalg.cholesky(spd), rtol=1e-9)
    close(linalg.cholesky(s), da.linalg.cholesky(da.from_array(spd, chunks=4)).compute(), rtol=1e-9)
    close(np.linalg.cholesky(s), np.linalg.cholesky(spd), rtol=1e-9)
    with pytest.raises(ca.KernelError, match="Singular"):
        linalg.inv(ca.from_array(np.ones((4, 4)), chunks=2)).compute()
    a = RNG.standard_normal((30, 4))
    y = RNG.standard_normal(30)
    sol, res, rank, sv = linalg.lstsq(ca.from_array(a, chunks=(10, 4)), ca.from_array(y, chunks=10))
    esol, eres, erank, esv = np.linalg.lstsq(a, y, rcond=None)
    close(sol, esol, rtol=1e-9)
    close(res, eres, rtol=1e-9)
    assert int(rank.compute()) == erank
    close(sv, esv, rtol=1e-9)
    dsol, dres, drank, dsv = da.linalg.lstsq(da.from_array(a, chunks=(10, 4)), da.from_array(y, chunks=10))
    np.testing.assert_allclose(sol.compute(), dsol.compute(), rtol=1e-9)


@pytest.mark.parametrize("ord,axis", [(None, None), ("fro", None), (1, None), (np.inf, None), (-np.inf, None),
                                      (None, 0), (1, 1), (3.5, 0), (0, 1), (-2, 0), (2, None), ("nuc", None)])
def test_norm(ord, axis):
    a = A if ord not in (2, -2, "nuc") else A[:, :3]
    chunks = (5, 9) if ord in (2, -2, "nuc") else (5, 4)
    x = ca.from_array(a, chunks=(5, a.shape[1]) if ord in (2, "nuc") else chunks)
    close(linalg.norm(x, ord=ord, axis=axis), np.linalg.norm(a, ord=ord, axis=axis), rtol=1e-9)
    if ord is None:
        close(np.linalg.norm(x, axis=axis, keepdims=True), np.linalg.norm(a, axis=axis, keepdims=True), rtol=1e-9)


def test_map_overlap():
    a = RNG.standard_normal((20, 15))
    x, d = ca.from_array(a, chunks=(6, 5)), da.from_array(a, chunks=(6, 5))

    def lap(b):
        out = -4 * b
        out[1:] += b[:-1]
        out[:-1] += b[1:]
        out[:, 1:] += b[:, :-1]
        out[:, :-1] += b[:, 1:]
        return out

    for boundary in ["none", "reflect", "periodic", "nearest", 0.5, {0: "periodic", 1: "none"}]:
        y = x.map_overlap(lap, depth=1, boundary=boundary)
        e = d.map_overlap(lap, depth=1, boundary=boundary)
        assert y.chunks == e.chunks
        np.testing.assert_allclose(y.compute(), e.compute(), err_msg=str(boundary))
    y = ca.map_overlap(lambda b: b + 0, x, depth={0: 2, 1: 0}, boundary="reflect", trim=True)
    close(y, a)
    y = ca.map_overlap(lambda b: b[2:-2, 1:-1], x, depth=(2, 1), boundary="nearest", trim=False, dtype=a.dtype)
    close(y, a)
    # two inputs, and block_id
    y = ca.map_overlap(lambda p, q: p + q, x, 2 * x, depth=1, boundary="none")
    close(y, 3 * a)

    def bid(b, block_id=None):
        return np.full(b.shape, block_id[0] * 10 + block_id[1], dtype=float)

    close(x.map_overlap(bid, depth=1, boundary="none"), d.map_overlap(bid, depth=1, boundary="none", dtype=float).compute())
    o = ca.overlap(x, depth={0: 1, 1: 2}, boundary={0: 100, 1: "reflect"})
    e = da.overlap.overlap(d, depth={0: 1, 1: 2}, boundary={0: 100, 1: "reflect"})
    assert o.chunks == e.chunks
    np.testing.assert_allclose(o.compute(), e.compute())
    t = ca.trim_internal(o, {0: 1, 1: 2}, boundary={0: 100, 1: "reflect"})
    close(t, a)


def test_apply_gufunc_through_the_library():
    a = RNG.standard_normal((10, 6))
    x, d = ca.from_array(a, chunks=(4, 6)), da.from_array(a, chunks=(4, 6))
    close(ca.apply_gufunc(lambda v: v.mean(axis=-1), "(i)->()", x, output_dtypes=float),
          a.mean(axis=-1), da.apply_gufunc(lambda v: v.mean(axis=-1), "(i)->()", d, output_dtypes=float))
    # two outputs
    mn, mx = ca.apply_gufunc(lambda v: (v.min(axis=-1), v.max(axis=-1)), "(i)->(),()", x,
                             output_dtypes=(float, float))
    close(mn, a.min(axis=-1))
    close(mx, a.max(axis=-1))
    # axis= / keepdims / axes
    xc = ca.from_array(a, chunks=(10, 3))
    close(ca.apply_gufunc(lambda v: v.sum(axis=-1), "(i)->()", xc, axis=0, output_dtypes=float), a.sum(axis=0))
    close(ca.apply_gufunc(lambda v: v.sum(axis=-1, keepdims=True)[..., 0], "(i)->()", x, keepdims=True,
                          output_dtypes=float), a.sum(axis=-1, keepdims=True))
    close(ca.apply_gufunc(np.linalg.norm, "(i)->()", xc, axes=[(0,), ()], vectorize=True, output_dtypes=float),
          np.linalg.norm(a, axis=0))
    # broadcasting loop dimensions, new output core dimension, allow_rechunk
    row = RNG.standard_normal(6)
    close(ca.apply_gufunc(lambda p, q: p * q, "(),()->()", x, ca.from_array(row, chunks=3), allow_rechunk=True,
                          output_dtypes=float), a * row)
    close(ca.apply_gufunc(lambda v: np.repeat(v[..., None], 3, axis=-1), "()->(k)", x, output_sizes={"k": 3},
                          output_dtypes=float), np.repeat(a[..., None], 3, axis=-1))
    with pytest.raises(ValueError, match="core dimension"):
        ca.apply_gufunc(np.sum, "(i)->()", ca.from_array(a, chunks=3), output_dtypes=float)
    close(ca.apply_gufunc(lambda v: v.sum(axis=-1), "(i)->()", ca.from_array(a, chunks=3), allow_rechunk=True,
                          output_dtypes=float), a.sum(axis=-1))


@pytest.mark.graph_files
def test_linalg_save_load_roundtrip(tmp_path):
    a, b = ca.from_array(A, chunks=(5, 4)), ca.from_array(B, chunks=(4, 3))
    y = ((a @ b)[::2].T.reshape(-1) + ca.concatenate([ca.ones(3 * 6 + 3, chunks=7)] * 2)[:42])
    p = tmp_path / "y.cagraph"
    y.save(p)
    z = ca.load(p)
    assert z.name == y.name and z.chunks == y.chunks
    close(z, y.compute())
