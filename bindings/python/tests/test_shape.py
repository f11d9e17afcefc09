"""Shape functions (shape.h) against NumPy and dask.array: values and chunks."""
import dask
import dask.array as da
import numpy as np
import pytest

import chunkarray as ca

dask.config.set(scheduler="synchronous")

RNG = np.random.default_rng(3)
A = RNG.standard_normal((6, 5, 4))
CH = ((2, 4), (3, 2), (4,))


def both(x=A, chunks=CH):
    return ca.from_array(x, chunks=chunks), da.from_array(x, chunks=chunks)


def check(x, d, expected, chunks=True):
    r = x.compute()
    assert r.shape == expected.shape and r.dtype == expected.dtype, (r.shape, expected.shape, r.dtype)
    np.testing.assert_array_equal(r, expected)
    if d is not None:
        if chunks:
            assert x.chunks == d.chunks, (x.chunks, d.chunks)
        np.testing.assert_array_equal(r, d.compute())


@pytest.mark.parametrize("shape", [(30, 4), (6, 20), (120,), (3, 2, 5, 4), (-1, 4), (6, 5, 2, 2)])
def test_reshape(shape):
    x, d = both()
    check(x.reshape(shape), d.reshape(shape), A.reshape(shape))
    check(ca.reshape(x, shape), da.reshape(d, shape), A.reshape(shape))


def test_reshape_errors_and_ravel():
    x, d = both()
    with pytest.raises(ValueError, match="cannot reshape"):
        x.reshape(7, 7)
    check(x.ravel(), d.ravel(), A.ravel())
    check(x.flatten(), d.flatten(), A.ravel())
    check(np.ravel(x), da.ravel(d), A.ravel())
    check(x.reshape(6, 20, 1), d.reshape(6, 20, 1), A.reshape(6, 20, 1))


def test_transpose_moveaxis_swapaxes():
    x, d = both()
    check(x.T, d.T, A.T)
    check(x.transpose(1, 2, 0), d.transpose(1, 2, 0), A.transpose(1, 2, 0))
    check(np.transpose(x, (2, 0, 1)), np.transpose(d, (2, 0, 1)), np.transpose(A, (2, 0, 1)))
    check(ca.moveaxis(x, 0, -1), da.moveaxis(d, 0, -1), np.moveaxis(A, 0, -1))
    check(np.moveaxis(x, [0, 1], [2, 0]), da.moveaxis(d, [0, 1], [2, 0]), np.moveaxis(A, [0, 1], [2, 0]))
    check(x.swapaxes(0, 2), d.swapaxes(0, 2), A.swapaxes(0, 2))
    check(ca.swapaxes(x, -1, 1), da.swapaxes(d, -1, 1), A.swapaxes(-1, 1))
    with pytest.raises(ValueError):
        x.transpose(0, 0, 1)


def test_squeeze_expand_dims_broadcast_to():
    b = A[:, :1, None]
    x, d = both(b, (3, 1, 1, 2))
    check(x.squeeze(), d.squeeze(), b.squeeze())
    check(ca.squeeze(x, axis=1), da.squeeze(d, axis=1), b.squeeze(axis=1))
    with pytest.raises(ValueError):
        ca.squeeze(x, axis=0)
    y, e = both()
    check(ca.expand_dims(y, 0), da.expand_dims(e, 0), np.expand_dims(A, 0))
    check(ca.expand_dims(y, (1, -1)), da.expand_dims(e, (1, -1)), np.expand_dims(A, (1, -1)))
    v = np.arange(4.0)
    xv, dv = both(v, 3)
    check(ca.broadcast_to(xv, (3, 5, 4)), da.broadcast_to(dv, (3, 5, 4)), np.broadcast_to(v, (3, 5, 4)))
    check(ca.broadcast_to(xv, (6, 4), chunks=((2, 4), (3, 1))), da.broadcast_to(dv, (6, 4), chunks=((2, 4), (3, 1))),
          np.broadcast_to(v, (6, 4)))
    check(np.broadcast_to(x, (2, 6, 1, 1, 4)), None, np.broadcast_to(b, (2, 6, 1, 1, 4)))
    with pytest.raises(ValueError, match="broadcast"):
        ca.broadcast_to(xv, (4, 3))


def test_concatenate_stack_block():
    x, d = both()
    y, e = both(A * 2, ((3, 3), (5,), (1, 3)))
    check(ca.concatenate([x, y], axis=0), da.concatenate([d, e], axis=0), np.concatenate([A, A * 2], axis=0))
    check(ca.concatenate([x, y, x], axis=2), da.concatenate([d, e, d], axis=2),
          np.concatenate([A, A * 2, A], axis=2))
    i = ca.from_array(np.ones((6, 5, 2), np.int32), chunks=2)
    check(np.concatenate([x, i], axis=-1), None, np.concatenate([A, np.ones((6, 5, 2), np.int32)], axis=-1))
    check(ca.concatenate([x, A], axis=1), None, np.concatenate([A, A], axis=1))  # a NumPy operand
    with pytest.raises(ValueError, match="dimension"):
        ca.concatenate([x, x[:, :2, :3]], axis=1)
    check(ca.stack([x, y]), da.stack([d, e]), np.stack([A, A * 2]), chunks=False)
    check(ca.stack([x, y, x], axis=-1), da.stack([d, e, d], axis=-1), np.stack([A, A * 2, A], axis=-1),
          chunks=False)
    m = np.arange(12.0).reshape(3, 4)
    p, q = ca.from_array(m, chunks=2), da.from_array(m, chunks=2)
    z = ca.from_array(np.zeros((3, 2)), chunks=2)
    dz = da.from_array(np.zeros((3, 2)), chunks=2)
    check(ca.block([[p, z], [z[:1], p[:1]]]), da.block([[q, dz], [dz[:1], q[:1]]]),
          np.block([[m, np.zeros((3, 2))], [np.zeros((1, 2)), m[:1]]]))
    check(ca.block([p, p]), da.block([q, q]), np.block([m, m]))
    check(np.block([[p], [p]]), None, np.block([[m], [m]]))
    check(ca.vstack([p, p]), da.vstack([q, q]), np.vstack([m, m]))
    check(ca.hstack([p, z]), da.hstack([q, dz]), np.hstack([m, np.zeros((3, 2))]))


def test_repeat_tile_pad_flip():
    x, d = both()
    check(x.repeat(3, axis=1), d.repeat(3, axis=1), A.repeat(3, axis=1))
    check(np.repeat(x, 2, axis=0), da.repeat(d, 2, axis=0), np.repeat(A, 2, axis=0))
    check(ca.repeat(x, 2), None, np.repeat(A, 2))
    check(ca.tile(x, 2), da.tile(d, 2), np.tile(A, 2))
    check(ca.tile(x, (2, 1, 1, 3)), da.tile(d, (2, 1, 1, 3)), np.tile(A, (2, 1, 1, 3)))
    check(np.tile(x, (0, 1, 1)), None, np.tile(A, (0, 1, 1)))
    for mode, kw in [("constant", {}), ("constant", {"constant_values": 9.5}), ("edge", {}), ("reflect", {})]:
        w = ((1, 2), (0, 3), (2, 2))
        check(ca.pad(x, w, mode=mode, **kw), da.pad(d, w, mode=mode, **kw), np.pad(A, w, mode=mode, **kw),
              chunks=False)
        check(np.pad(x, 1, mode=mode, **kw), None, np.pad(A, 1, mode=mode, **kw))
    i = np.arange(10).reshape(2, 5)
    check(ca.pad(ca.from_array(i, chunks=2), (1, 2), constant_values=7.9), None, np.pad(i, (1, 2), constant_values=7.9))
    with pytest.raises(NotImplementedError):
        ca.pad(x, 1, mode="wrap")
    check(ca.flip(x), da.flip(d) if hasattr(da, "flip") else None, np.flip(A))
    check(ca.flip(x, 1), da.flip(d, 1), np.flip(A, 1))
    check(np.flip(x, (0, 2)), None, np.flip(A, (0, 2)))
    check(ca.flipud(x), da.flipud(d), np.flipud(A))
    check(ca.fliplr(x), da.fliplr(d), np.fliplr(A))


def test_cumulative_axis_none():
    x, d = both()
    np.testing.assert_allclose(x.cumsum().compute(), np.cumsum(A))
    np.testing.assert_allclose(ca.cumprod(x * 0.5 + 1).compute(), np.cumprod(A * 0.5 + 1))
    np.testing.assert_allclose(np.cumsum(x).compute(), np.cumsum(A))
    np.testing.assert_allclose(x.cumsum().compute(), d.ravel().cumsum(axis=0).compute())


def test_chained_with_slicing_and_reductions():
    x, d = both()
    y = ca.concatenate([x, x[::-1]], axis=1).reshape(6, 40).T[5:30:2].sum(axis=1)
    e = da.concatenate([d, d[::-1]], axis=1).reshape(6, 40).T[5:30:2].sum(axis=1)
    np.testing.assert_allclose(y.compute(), e.compute())
    np.testing.assert_allclose(y.compute(), np.concatenate([A, A[::-1]], axis=1).reshape(6, 40).T[5:30:2].sum(axis=1))
