"""chunkarray.ma against numpy.ma (values, masks, dtypes) and dask.array.ma (chunks)."""

import numpy as np
import pytest

import chunkarray as ca
import chunkarray.ma as cma

da = pytest.importorskip("dask.array")
dma = pytest.importorskip("dask.array.ma")

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's own warnings on the reference side


def check(got, expected, chunks=None, dtype=True):
    """got: a computed numpy.ma array; expected: numpy.ma's result (array, scalar or np.ma.masked)."""
    exp = np.ma.asarray(expected)
    assert isinstance(got, np.ma.MaskedArray)
    assert got.shape == exp.shape, (got.shape, exp.shape)
    gm, em = np.ma.getmaskarray(got), np.ma.getmaskarray(exp)
    np.testing.assert_array_equal(gm, em)
    if dtype:
        assert got.dtype == exp.dtype, (got.dtype, exp.dtype)
    keep = ~em
    gd, ed = np.asarray(np.ma.getdata(got))[keep], np.asarray(np.ma.getdata(exp))[keep]
    if gd.dtype.kind in "fc":
        np.testing.assert_allclose(gd, ed.astype(gd.dtype), rtol=1e-6, atol=0, equal_nan=True)
    else:
        np.testing.assert_array_equal(gd, ed)


def pair(data, mask, chunks, fill_value=None):
    """(chunkarray masked array, numpy masked array, dask masked array) of the same values."""
    data = np.asarray(data)
    nm = np.ma.masked_array(data, mask=mask if mask is not None else np.ma.nomask, fill_value=fill_value)
    c = cma.masked_array(ca.from_array(data, chunks=chunks), mask=mask if mask is not None else np.ma.nomask,
                         fill_value=fill_value)
    d = dma.masked_array(da.from_array(data, chunks=chunks),
                         mask=da.from_array(np.asarray(mask), chunks=chunks) if mask is not None else np.ma.nomask,
                         fill_value=fill_value)
    return c, nm, d


RNG = np.random.default_rng(7)
F2 = RNG.standard_normal((5, 7)) * 3
F2[1, 2] = np.nan
F2[3, 4] = np.inf
M2 = RNG.random((5, 7)) < 0.3
M2[:, 6] = True  # a column masked everywhere
CASES = [
    ("f8-2d", F2, M2, (2, 3)),
    ("f4-2d", F2.astype(np.float32), M2, (3, 4)),
    ("i4-2d", (F2 * 0).astype(np.int32) + np.arange(35).reshape(5, 7).astype(np.int32) - 10, M2, (2, 7)),
    ("f8-nomask", F2, None, (5, 2)),
    ("f8-none-masked", np.abs(F2) + 1, np.zeros((5, 7), bool), (2, 2)),
    ("f8-all-masked", F2, np.ones((5, 7), bool), (3, 3)),
    ("i8-1d", np.arange(-4, 7, dtype=np.int64), np.arange(11) % 3 == 0, (4,)),
    ("f8-empty", np.zeros((0,)), np.zeros((0,), bool), (3,)),
    ("f8-size1", np.array([2.5]), np.array([False]), (1,)),
]


@pytest.mark.parametrize("name,data,mask,chunks", CASES, ids=[c[0] for c in CASES])
def test_construct_filled_parts(name, data, mask, chunks):
    c, nm, d = pair(data, mask, chunks)
    check(c.compute(), nm)
    assert c.chunks == d.chunks
    np.testing.assert_array_equal(cma.filled(c).compute(), nm.filled())
    np.testing.assert_array_equal(cma.filled(c, 7).compute(), nm.filled(7))
    np.testing.assert_array_equal(cma.getdata(c).compute(), np.ma.getdata(nm))
    np.testing.assert_array_equal(cma.getmaskarray(c).compute(), np.ma.getmaskarray(nm))
    assert cma.getmaskarray(c).chunks == dma.getmaskarray(d).chunks
    assert c.fill_value == nm.fill_value


def test_zero_d_and_fill_defaults():
    c = cma.masked_array(ca.from_array(np.float64(3.0)), mask=True)
    got = c.compute()
    assert got.shape == () and bool(got.mask)
    for dt, fv in [(np.int8, 999999), (np.uint16, 999999), (np.float32, 1e20), (np.bool_, True),
                   (np.complex128, 1e20 + 0j)]:
        x = np.zeros(3, dt)
        m = cma.masked_array(ca.from_array(x), mask=[1, 0, 0])
        assert np.ma.masked_array(x).fill_value == fv
        # filled casts the default as NumPy does (999999 in int8 is 63)
        np.testing.assert_array_equal(m.filled().compute(), np.ma.masked_array(x, mask=[1, 0, 0]).filled())


@pytest.mark.parametrize("name,data,mask,chunks", CASES, ids=[c[0] for c in CASES])
def test_masking_functions(name, data, mask, chunks):
    c, nm, d = pair(data, mask, chunks)
    for f, args in [("masked_equal", (0,)), ("masked_not_equal", (1,)), ("masked_greater", (0.5,)),
                    ("masked_greater_equal", (1,)), ("masked_less", (0,)), ("masked_less_equal", (-1,)),
                    ("masked_inside", (2, -1)), ("masked_outside", (-1, 2)), ("masked_invalid", ()),
                    ("masked_values", (1.0,))]:
        if name.startswith("i") and f == "masked_invalid":
            continue
        got = getattr(cma, f)(c, *args)
        check(got.compute(), getattr(np.ma, f)(nm, *args))
        assert got.chunks == getattr(dma, f)(d, *args).chunks, f
        if f in ("masked_equal", "masked_values"):
            assert got.fill_value == getattr(np.ma, f)(nm, *args).fill_value
    cond = np.asarray(data) > 0.5
    check(cma.masked_where(cond, c).compute(), np.ma.masked_where(cond, nm))
    if np.asarray(data).dtype.kind == "f":
        fx = cma.fix_invalid(c, fill_value=-5)
        exp = np.ma.fix_invalid(nm, fill_value=-5)
        check(fx.compute(), exp)
        np.testing.assert_array_equal(fx.compute().filled(), exp.filled())
        np.testing.assert_array_equal(cma.getdata(fx).compute(), np.ma.getdata(exp))


def test_masked_values_tolerances_and_plain_inputs():
    x = np.array([1.0, 1.0 + 1e-9, 1.1, 2.0, np.nan])
    check(cma.masked_values(x, 1.0).compute(), np.ma.masked_values(x, 1.0))
    check(cma.masked_values(x, 1.0, rtol=0.2).compute(), np.ma.masked_values(x, 1.0, rtol=0.2))
    check(cma.masked_values(x, 1.0, atol=0, rtol=0).compute(), np.ma.masked_values(x, 1.0, atol=0, rtol=0))
    # a numpy.ma input keeps its mask
    nm = np.ma.masked_array(x, mask=[0, 0, 1, 0, 0])
    check(cma.masked_greater(nm, 1.5).compute(), np.ma.masked_greater(nm, 1.5))


UNARY = ["log", "log2", "log10", "sqrt", "exp", "sin", "tan", "arcsin", "arccos", "arccosh", "arctanh", "negative",
         "absolute", "floor"]


@pytest.mark.parametrize("name,data,mask,chunks", CASES, ids=[c[0] for c in CASES])
def test_unary_ufuncs(name, data, mask, chunks):
    c, nm, d = pair(data, mask, chunks)
    for u in UNARY:
        exp = getattr(np.ma, u)(nm)
        got = getattr(np, u)(c)
        check(got.compute(), exp)
        assert got.chunks == d.chunks


@pytest.mark.parametrize("name,data,mask,chunks", CASES, ids=[c[0] for c in CASES])
def test_binary_ops(name, data, mask, chunks):
    c, nm, d = pair(data, mask, chunks)
    other = np.round(np.asarray(data, dtype=np.float64) * 0.7) if np.asarray(data).dtype.kind == "f" else \
        (np.asarray(data) % 3).astype(np.asarray(data).dtype)
    omask = (np.arange(other.size).reshape(other.shape) % 4 == 1) if other.size else np.zeros(other.shape, bool)
    c2, nm2, d2 = pair(other, omask, chunks)
    ops = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b, lambda a, b: a // b,
           lambda a, b: a % b, lambda a, b: a > b, lambda a, b: np.maximum(a, b), lambda a, b: np.hypot(a, b)]
    for op in ops:
        check(op(c, c2).compute(), op(nm, nm2))
        assert op(c, c2).chunks == op(d, d2).chunks
        check(op(c, 2).compute(), op(nm, 2))
        check(op(3, c).compute(), op(3, nm))
        check(op(c, 0).compute(), op(nm, 0))
    if np.asarray(data).dtype.kind == "f":
        check((c ** 0.5).compute(), nm ** 0.5)
        check((c ** c2).compute(), nm ** nm2)
    # an unmasked chunkarray Array as the other operand
    check((c + ca.from_array(other, chunks=chunks)).compute(), nm + other)


def test_fused_chain_one_pass():
    x = np.linspace(-2, 2, 50)
    nm = np.ma.masked_less(x, -1.5)
    c = cma.masked_less(ca.from_array(x, chunks=7), -1.5)
    expr = np.log(c * c) / (c - 0.5) + np.sqrt(c)
    check(expr.compute(), np.ma.log(nm * nm) / (nm - 0.5) + np.ma.sqrt(nm))


REDUCTIONS = ["sum", "prod", "mean", "var", "std", "min", "max", "any", "all"]


@pytest.mark.parametrize("name,data,mask,chunks", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("axis", [None, 0, -1, (0,)])
def test_reductions(name, data, mask, chunks, axis):
    c, nm, d = pair(data, mask, chunks)
    for r in REDUCTIONS:
        if r in ("prod",) and np.asarray(data).dtype.kind == "i":
            continue  # overflow differs only by accumulation order
        if r in ("min", "max") and nm.size == 0:
            with pytest.raises(ValueError):
                getattr(nm, r)(axis=axis)
            with pytest.raises(ca.InvalidArgumentError, match="zero-size array"):
                getattr(c, r)(axis=axis)
            continue
        for keepdims in (False, True):
            exp = getattr(nm, r)(axis=axis, keepdims=keepdims)
            got = getattr(c, r)(axis=axis, keepdims=keepdims)
            # numpy.ma's dtype rules are followed; std/var of a 0-d result is a Python float there
            check(got.compute(), exp, dtype=np.ndim(exp) > 0)
            dres = getattr(d, r)(axis=axis, keepdims=keepdims)
            assert got.chunks == dres.chunks, (r, got.chunks, dres.chunks)
    ax = axis[0] if isinstance(axis, tuple) else axis
    if nm.size:
        for r in ("argmin", "argmax"):
            np.testing.assert_array_equal(getattr(c, r)(axis=ax).compute(), getattr(nm, r)(axis=ax))
    cnt = cma.count(c, axis=axis)
    np.testing.assert_array_equal(cnt.compute(), np.ma.count(nm, axis=axis))
    assert cnt.chunks == dma.count(d, axis=axis).chunks


def test_reduction_dtypes_and_ddof():
    x = np.arange(12, dtype=np.int16).reshape(3, 4)
    m = x % 5 == 0
    c, nm, d = pair(x, m, (2, 3))
    check(c.mean(axis=1).compute(), nm.mean(axis=1))
    check(c.var(axis=0, ddof=1).compute(), nm.var(axis=0, ddof=1))
    check(c.std(axis=1, ddof=2).compute(), nm.std(axis=1, ddof=2))
    check(c.sum(axis=0, dtype=np.float32).compute(), nm.sum(axis=0, dtype=np.float32))
    # a row with one unmasked element and ddof 1: masked (count - ddof <= 0)
    y = np.ma.masked_array(np.arange(6.0).reshape(2, 3), mask=[[1, 1, 0], [0, 0, 0]])
    cy = cma.masked_array(ca.from_array(y.data, chunks=2), mask=y.mask)
    check(cy.var(axis=1, ddof=1).compute(), y.var(axis=1, ddof=1))


@pytest.mark.parametrize("name,data,mask,chunks", CASES[:3] + CASES[6:7], ids=[c[0] for c in CASES[:3] + CASES[6:7]])
def test_average(name, data, mask, chunks):
    c, nm, d = pair(data, mask, chunks)
    check(cma.average(c).compute(), np.ma.average(nm))
    axes = [0] if nm.ndim == 1 else [0, 1]
    for axis in axes:
        check(cma.average(c, axis=axis).compute(), np.ma.average(nm, axis=axis))
        w = np.abs(np.asarray(data, dtype=np.float64)) % 3 + (np.arange(nm.size).reshape(nm.shape) % 2)
        got, scl = cma.average(c, axis=axis, weights=w, returned=True)
        eavg, escl = np.ma.average(nm, axis=axis, weights=w, returned=True)
        check(got.compute(), eavg)
        check(scl.compute(), escl)
        assert got.chunks == dma.average(d, axis=axis, weights=w).chunks
        w1 = np.arange(1, nm.shape[axis] + 1, dtype=np.float64)
        check(cma.average(c, axis=axis, weights=w1).compute(), np.ma.average(nm, axis=axis, weights=w1))
        # masked weights
        wm = np.ma.masked_array(w, mask=np.arange(w.size).reshape(w.shape) % 5 == 0)
        check(cma.average(c, axis=axis, weights=wm).compute(), np.ma.average(nm, axis=axis, weights=wm))


def test_set_fill_value_in_place_and_like():
    c, nm, d = pair(np.arange(5.0), [0, 1, 0, 0, 1], (2,))
    cma.set_fill_value(c, -3.0)
    nm.set_fill_value(-3.0)
    assert c.fill_value == -3.0
    np.testing.assert_array_equal(c.filled().compute(), nm.filled())
    cma.set_fill_value(c, None)
    assert c.fill_value == 1e20
    o = cma.ones_like(c)
    check(o.compute(), np.ma.ones_like(nm))
    check(cma.zeros_like(c).compute(), np.ma.zeros_like(nm))
    assert cma.empty_like(c).compute().mask.tolist() == nm.mask.tolist()


def test_indexing_rechunk():
    x = np.arange(20.0).reshape(4, 5)
    c, nm, d = pair(x, x % 3 == 0, (3, 2))
    check(c[1:, ::2].compute(), nm[1:, ::2])
    check(c.rechunk((2, 5)).compute(), nm)
    assert c.rechunk((2, 5)).chunks == ((2, 2), (5,))
    check(c.T.compute(), nm.T)


def test_errors():
    x = ca.from_array(np.arange(3.0))
    with pytest.raises(ca.InvalidArgumentError, match="Mask and data not compatible"):
        cma.masked_array(x, mask=[True, False, True, False])
    with pytest.raises(IndexError, match="Inconsistant shape"):
        cma.masked_where(np.array([True, False]), x)
    with pytest.raises(ca.DTypeError, match="fill value"):
        cma.masked_array(ca.from_array(np.arange(3)), fill_value=float("nan"))
    with pytest.raises(ValueError, match="array `value`s"):
        cma.masked_values(x, np.array([1.0, 2.0]))
    with pytest.raises(ca.InvalidArgumentError, match="shape"):
        (cma.masked_array(x) + cma.masked_array(ca.from_array(np.arange(4.0))))


def test_zarr_round_trip(tmp_path):
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    c = cma.masked_greater(ca.from_array(x, chunks=(2, 3)), 17)
    cma.set_fill_value(c, -1.0)
    cma.to_zarr(c, tmp_path / "z")
    import json
    meta = json.loads((tmp_path / "z" / ".zarray").read_text())
    assert meta["fill_value"] == -1.0
    np.testing.assert_array_equal(ca.from_zarr(str(tmp_path / "z")).compute(), np.ma.masked_greater(x, 17).filled(-1))
    back = cma.from_zarr(tmp_path / "z")
    check(back.compute(), np.ma.masked_greater(x, 17))
    assert back.fill_value == -1.0
    # nan as fill value masks nan; an integer store; a null fill value gives nothing masked
    y = np.array([1.0, np.nan, 3.0])
    cma.to_zarr(cma.masked_array(ca.from_array(y), mask=[0, 1, 0], fill_value=np.nan), tmp_path / "n")
    check(cma.from_zarr(tmp_path / "n").compute(), np.ma.masked_invalid(y))
    i = cma.masked_equal(ca.from_array(np.arange(6, dtype=np.int16), chunks=4), 4)
    cma.to_zarr(i, tmp_path / "i")
    check(cma.from_zarr(tmp_path / "i").compute(), np.ma.masked_equal(np.arange(6, dtype=np.int16), 4))
    ca.from_array(np.arange(4.0)).to_zarr(tmp_path / "plain")
    r = cma.from_zarr(tmp_path / "plain").compute()
    assert not r.mask.any()


@pytest.mark.graph_files
def test_graph_file_round_trip(tmp_path):
    x = np.linspace(-1, 1, 9)
    c = np.log(cma.masked_less(ca.from_array(x, chunks=4), 0.0) + 0.25)
    cma.set_fill_value(c, 2.5)
    i = cma.masked_array(ca.from_array(np.arange(5, dtype=np.int8)), mask=[1, 0, 0, 0, 1])
    cma.save([c, i], tmp_path / "m.cagraph")
    back = cma.load(tmp_path / "m.cagraph")
    assert len(back) == 2
    check(back[0].compute(), np.ma.log(np.ma.masked_less(x, 0.0) + 0.25))
    assert back[0].fill_value == 2.5 and back[0].chunks == c.chunks
    check(back[1].compute(), np.ma.masked_array(np.arange(5, dtype=np.int8), mask=[1, 0, 0, 0, 1]))
    data = cma.save(c)
    check(cma.load(data=data)[0].compute(), c.compute())
    # the plain loader sees the data and the masks as arrays
    handles = ca.core.load_handles(path=tmp_path / "m.cagraph")[1]
    arrays = [ca.Array(h) for h in handles]
    assert [a.dtype for a in arrays] == [np.float64, np.bool_, np.int8, np.bool_]
    np.testing.assert_array_equal(arrays[3].compute(), [True, False, False, False, True])
    # a file without masked arrays holds none
    xa = ca.from_array(x)
    plain = ca.core.save_file(arrays=[xa.handle])
    assert cma.load(data=plain) == []


def test_zarr_python_interop(tmp_path):
    zarr = pytest.importorskip("zarr")
    x = np.arange(20, dtype=np.int32).reshape(4, 5)
    x[1, 2] = -9
    z = zarr.open(str(tmp_path / "zp"), mode="w", shape=x.shape, chunks=(3, 2), dtype=x.dtype, fill_value=-9)
    z[:] = x
    got = cma.from_zarr(tmp_path / "zp")
    check(got.compute(), np.ma.masked_equal(x, -9))
    assert got.chunks == ((3, 1), (2, 2, 1)) and got.fill_value == -9
    # and zarr-python reads what to_zarr wrote: masked elements as the store's fill_value
    c = cma.masked_greater(ca.from_array(x.astype(np.float64), chunks=2), 15)
    cma.set_fill_value(c, -1.5)
    cma.to_zarr(c, tmp_path / "out")
    back = zarr.open(str(tmp_path / "out"), mode="r")
    assert back.fill_value == -1.5
    np.testing.assert_array_equal(back[:], np.ma.masked_greater(x.astype(np.float64), 15).filled(-1.5))


@pytest.mark.parametrize("dtype", [np.uint8, np.bool_, np.int16, np.float32])
def test_small_dtypes_and_0d(dtype):
    x = (np.arange(10) % 4).astype(dtype)
    mask = np.arange(10) % 3 == 0
    c, nm, d = pair(x, mask, (4,))
    for r in ("sum", "mean", "min", "max", "any", "all"):
        check(getattr(c, r)().compute(), getattr(nm, r)(), dtype=False)
        check(getattr(c, r)(axis=0, keepdims=True).compute(), getattr(nm, r)(axis=0, keepdims=True))
    check(c.sum(axis=0, keepdims=True).compute(), nm.sum(axis=0, keepdims=True))
    if dtype != np.bool_:
        check((c * 2).compute(), nm * 2)
        check((c - c).compute(), nm - nm)
    z = cma.masked_array(ca.from_array(np.array(x[1])), mask=False)
    # (dtype not compared: NumPy 1.x promotes a 0-d array with a Python scalar as two scalars)
    check((z + 1).compute(), np.ma.masked_array(x[1], mask=False) + 1, dtype=False)
    check(z.sum().compute(), np.ma.masked_array(x[1], mask=False).sum(), dtype=False)
