"""Issue 16's elementwise functions against NumPy (values, dtypes, special values) and dask (chunks):
every input dtype including float16, ragged chunks, 0-d and empty arrays, and fusion into one layer."""
import warnings

import dask.array as da
import numpy as np
import pytest

import chunkarray as ca

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
          "float32", "float64", "complex64", "complex128"]

UNARY = ["cbrt", "deg2rad", "radians", "degrees", "rad2deg", "exp2", "fabs", "fix", "spacing", "signbit", "sinc",
         "i0", "reciprocal", "positive", "bitwise_not", "angle", "iscomplex", "isreal", "isneginf", "isposinf",
         "nan_to_num"]
BINARY = ["hypot", "fmax", "fmin", "fmod", "copysign", "float_power", "logaddexp", "logaddexp2", "nextafter",
          "left_shift", "right_shift"]
# Not ufuncs in NumPy: their float16/float32 results are computed in float16/float32 steps there, here
# in float32 (float16) or float64 (i0) and rounded once.
APPROX = {"sinc", "i0", "exp2", "cbrt", "hypot", "logaddexp", "logaddexp2", "float_power", "angle"}
# sin(pi x) near its zeros: compared with an absolute tolerance of the dtype's precision
ABS = {"sinc": {2: 2e-3, 4: 2e-6, 8: 1e-15}}

SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -3.75, 7.0, 9.5, -20.0, 1e-3, 65504.0]


def values(dtype, n=13, salt=0):
    dt = np.dtype(dtype)
    i = np.arange(n)
    v = ((i * 7 + salt * 3) % 11 - 5).astype(np.float64) * 0.75
    if dt.kind == "b":
        return (i + salt) % 3 == 0
    if dt.kind == "u":
        return np.abs(((i * 7 + salt * 3) % 11 - 5)).astype(dt)
    if dt.kind == "i":
        return ((i * 7 + salt * 3) % 11 - 5).astype(dt)
    if dt.kind == "c":
        return (v + 1j * (((i * 5 + salt) % 7) - 3) * 0.5).astype(dt)
    x = v.astype(dt)
    if n >= len(SPECIAL):
        x[:len(SPECIAL)] = np.array(SPECIAL).astype(dt)
    return x


def np_call(name, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return getattr(np, name)(*args)


def check(got, want, name):
    got_c = got.compute()
    assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
    assert got_c.dtype == want.dtype, (name, got_c.dtype, want.dtype)
    assert got_c.shape == want.shape
    if want.dtype.kind in "fc":
        if name in APPROX:
            rtol = {2: 2e-3, 4: 1e-5, 8: 1e-13, 16: 1e-13}[want.dtype.itemsize if want.dtype.kind == "f"
                                                        else want.dtype.itemsize // 2]
        else:
            rtol = 0
        atol = ABS.get(name, {}).get(want.dtype.itemsize if want.dtype.kind == "f" else want.dtype.itemsize // 2, 0)
        np.testing.assert_allclose(got_c, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=name)
        if rtol == 0:  # exact: signed zeros too
            assert np.array_equal(np.signbit(np.real(got_c)), np.signbit(np.real(want))), name
    else:
        np.testing.assert_array_equal(got_c, want, err_msg=name)


def reference_unary(name, x):
    if x.ndim == 0:  # NumPy 1.24 casts 0-d operands by value (docs/numpy-differences.md): as 1-d
        return np.asarray(reference_unary(name, x.reshape(1))).reshape(())
    if name in ("sinc", "i0") and x.dtype in (np.float16, np.float32):
        # NumPy's float16/float32 steps (sinc(0) is nan in float16: 1e-20 underflows); ours rounds once
        return np_call(name, x.astype(np.float64)).astype(x.dtype)
    return np_call(name, x)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_vs_numpy(name, dtype):
    x = values(dtype, 23)
    a = ca.from_array(x, chunks=((5, 7, 11),))
    try:
        want = reference_unary(name, x)
    except TypeError:
        with pytest.raises((ca.DTypeError, TypeError)):
            getattr(ca, name)(a)
        return
    got = getattr(ca, name)(a)
    check(got, np.asarray(want), name)
    # dask's chunks for the same call
    assert got.chunks == getattr(da, name)(da.from_array(x, chunks=((5, 7, 11),))).chunks


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_vs_numpy(name, dtype):
    x = values(dtype, 23, 0)
    y = values(dtype, 23, 1)
    if name in ("left_shift", "right_shift") and np.dtype(dtype).kind in "iu":
        y = (np.arange(23) % 11 - 2).astype(dtype)  # negative and oversized shifts
    a = ca.from_array(x, chunks=((5, 7, 11),))
    b = ca.from_array(y, chunks=((12, 11),))
    try:
        want = np.asarray(np_call(name, x, y))
    except TypeError:
        with pytest.raises((ca.DTypeError, TypeError)):
            getattr(ca, name)(a, b)
        return
    got = getattr(ca, name)(a, b)
    check(got, want, name)
    dres = getattr(da, name)(da.from_array(x, chunks=((5, 7, 11),)), da.from_array(y, chunks=((12, 11),)))
    assert got.chunks == dres.chunks


@pytest.mark.parametrize("name", BINARY)
def test_binary_scalar_dtypes(name):
    # Python scalars: NumPy 1.24's value-based loop choice (uint8 with 300, int8 with -1, ...)
    for dtype in ["bool", "int8", "uint8", "uint16", "float16", "float32", "int64"]:
        x = values(dtype, 9)
        a = ca.from_array(x, chunks=4)
        for s in [3, -1, 300, 2.5]:
            for first in (False, True):
                try:
                    want = np.asarray(np_call(name, s, x) if first else np_call(name, x, s))
                except TypeError:
                    continue
                got = getattr(ca, name)(s, a) if first else getattr(ca, name)(a, s)
                check(got, want, f"{name} {dtype} {s} first={first}")


def test_ldexp():
    x = values("float32", 13)
    for edt in ["int8", "int32", "int64", "uint32", "bool"]:
        e = (np.arange(13) % 7 - 3).astype(edt)
        check(ca.ldexp(ca.from_array(x, chunks=5), ca.from_array(e, chunks=6)), np.ldexp(x, e), "ldexp")
    for xdt in ["int8", "uint16", "int64", "float16", "bool"]:
        xv = values(xdt, 13)
        check(ca.ldexp(ca.from_array(xv, chunks=5), 3), np.ldexp(xv, 3), f"ldexp {xdt}")
    huge = np.array([1e-300, 1.0, 3.0, -2.0, 0.0, np.inf, np.nan])
    ex = np.array([1100, -1100, 2**40, -(2**40), 5, 1, 1], dtype=np.int64)
    check(ca.ldexp(ca.from_array(huge, chunks=3), ca.from_array(ex, chunks=4)), np.ldexp(huge, ex), "ldexp huge")
    for bad in ["float32", "uint64"]:
        with pytest.raises(ca.DTypeError):
            ca.ldexp(ca.from_array(x, chunks=5), ca.from_array(np.ones(13, bad), chunks=5))
    with pytest.raises(ca.DTypeError):
        ca.ldexp(ca.from_array(x, chunks=5), 2.5)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int32", "uint8", "bool"])
def test_two_result_functions(dtype):
    x = values(dtype, 23)
    a = ca.from_array(x, chunks=((5, 7, 11),))
    with np.errstate(all="ignore"):
        m, e = np.frexp(x)
        f, i = np.modf(x)
    gm, ge = ca.frexp(a)
    check(gm, m, "frexp mantissa")
    check(ge, e, "frexp exponent")
    gf, gi = ca.modf(a)
    check(gf, f, "modf fraction")
    check(gi, i, "modf integral")
    # through NumPy's ufuncs (Array.__array_ufunc__)
    nm, ne = np.frexp(a)
    check(ne, e, "np.frexp")
    y = values(dtype, 23, 1)
    if np.dtype(dtype).kind != "b":
        y = np.where(y == 0, 1, y).astype(dtype)
    try:
        with np.errstate(all="ignore"):
            q, r = np.divmod(x, y)
    except TypeError:
        return
    gq, gr = ca.divmod(a, ca.from_array(y, chunks=6))
    check(gq, q, "divmod quotient")
    check(gr, r, "divmod remainder")
    gq, gr = np.divmod(a, y)
    check(gr, r, "np.divmod")


def test_complex_rejected_by_real_functions():
    z = ca.from_array(values("complex128", 7), chunks=3)
    for f in [ca.cbrt, ca.fabs, ca.spacing, ca.signbit, ca.i0, ca.isneginf, ca.isposinf, ca.deg2rad,
              lambda v: ca.frexp(v)[0], lambda v: ca.modf(v)[0]]:
        with pytest.raises(ca.DTypeError):
            f(z)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128", "int16", "bool"])
def test_nan_to_num(dtype):
    x = values(dtype, 23)
    if np.dtype(dtype).kind == "c":
        x[:6] = np.array([complex(np.nan, 1), complex(1, np.inf), complex(-np.inf, np.nan), complex(-0.0, -np.inf),
                          1 + 2j, np.nan]).astype(dtype)
    a = ca.from_array(x, chunks=((5, 7, 11),))
    check(ca.nan_to_num(a), np.nan_to_num(x), "nan_to_num")
    kw = dict(nan=-1.5, posinf=1e10, neginf=-7.0)
    with np.errstate(all="ignore"):
        want = np.nan_to_num(x, **kw)
    check(ca.nan_to_num(a, **kw), want, "nan_to_num values")
    check(ca.nan_to_num(a, nan=3.0), np.nan_to_num(x, nan=3.0), "nan_to_num nan only")
    check(np.nan_to_num(a, posinf=2.0), np.nan_to_num(x, posinf=2.0), "np.nan_to_num")


@pytest.mark.parametrize("pair", [("float64", "float64"), ("float32", "float32"), ("float16", "float16"),
                                  ("int32", "int32"), ("int8", "float32"), ("complex64", "complex128"),
                                  ("bool", "bool"), ("float32", "int64")])
@pytest.mark.parametrize("equal_nan", [False, True])
def test_isclose_allclose(pair, equal_nan):
    x = values(pair[0], 23)
    y = x.astype(pair[1]) if np.can_cast(x.dtype, pair[1]) else values(pair[1], 23)
    y = y.copy()
    if y.dtype.kind in "fc":
        y[::3] = (y[::3] * (1 + 1e-6)).astype(y.dtype)
        y[1::5] = (y[1::5] + 1e-3).astype(y.dtype)
    a = ca.from_array(x, chunks=((5, 7, 11),))
    b = ca.from_array(y, chunks=((12, 11),))
    want = np.isclose(x, y, equal_nan=equal_nan)
    got = ca.isclose(a, b, equal_nan=equal_nan)
    check(got, want, "isclose")
    assert got.chunks == da.isclose(da.from_array(x, chunks=((5, 7, 11),)), da.from_array(y, chunks=((12, 11),)),
                                    equal_nan=equal_nan).chunks
    check(ca.isclose(a, b, rtol=1e-2, atol=0.5), np.isclose(x, y, rtol=1e-2, atol=0.5), "isclose tolerances")
    assert bool(ca.allclose(a, b, equal_nan=equal_nan).compute()) == np.allclose(x, y, equal_nan=equal_nan)
    assert bool(ca.allclose(a, a, equal_nan=True).compute())
    check(ca.isclose(a, 0.5), np.isclose(x, 0.5), "isclose scalar")
    check(np.isclose(a, b), np.isclose(x, y), "np.isclose")


def test_angle_isnull_notnull_aliases():
    z = values("complex128", 11)
    a = ca.from_array(z, chunks=4)
    check(ca.angle(a, deg=True), np.angle(z, deg=True), "angle")  # arctan2: within an ulp
    x = values("float32", 23)
    b = ca.from_array(x, chunks=((5, 7, 11),))
    check(ca.isnull(b), np.isnan(x), "isnull")
    check(ca.notnull(b), ~np.isnan(x), "notnull")
    assert ca.isnull(b).chunks == da.isnull(da.from_array(x, chunks=((5, 7, 11),))).chunks
    i = ca.from_array(np.arange(5), chunks=2)
    check(ca.isnull(i), np.zeros(5, bool), "isnull int")
    check(np.radians(b), np.radians(x), "np.radians")
    check(np.degrees(b), np.degrees(x), "np.degrees")
    check(np.fix(b), np.fix(x), "np.fix")
    check(np.sinc(b), np.sinc(x.astype(np.float64)).astype(np.float32), "sinc")


@pytest.mark.parametrize("name", ["cbrt", "exp2", "spacing", "nan_to_num", "signbit", "i0", "angle"])
def test_zero_d_and_empty(name):
    for x in [np.array(2.5), np.array(-0.0, dtype=np.float16), np.zeros((0, 3)), np.zeros((4, 0), np.float32)]:
        a = ca.from_array(x, chunks=2 if x.ndim else ())
        check(getattr(ca, name)(a), np.asarray(reference_unary(name, x)), name)
    for x in [np.array(2.5), np.zeros((0, 3))]:
        a = ca.from_array(x, chunks=2 if x.ndim else ())
        check(ca.hypot(a, a), np.hypot(x, x), "hypot")
        check(ca.isclose(a, a), np.isclose(x, x), "isclose")


def test_float16_native_precision():
    # spacing, nextafter and nan_to_num depend on float16's own neighbours and largest value
    h = np.array([1.0, -1.0, 0.0, -0.0, 65504.0, -65504.0, 6e-8, -2.0, np.inf, np.nan, 1e-5], np.float16)
    a = ca.from_array(h, chunks=4)
    check(ca.spacing(a), np.spacing(h), "spacing f16")
    t = np.array([2.0, -np.inf, 1.0, -1.0, np.inf, 0.0, 0.0, -2.0, 0.0, 1.0, -1.0], np.float16)
    check(ca.nextafter(a, ca.from_array(t, chunks=5)), np.nextafter(h, t), "nextafter f16")
    check(ca.nextafter(a, np.float16(0)), np.nextafter(h, np.float16(0)), "nextafter f16 scalar")
    check(ca.nan_to_num(a), np.nan_to_num(h), "nan_to_num f16")


def test_chain_fuses_into_one_layer():
    x = values("float64", 23)
    y = values("float64", 23, 1)
    a = ca.from_array(x, chunks=((5, 7, 11),))
    b = ca.from_array(y, chunks=((5, 7, 11),))
    base = ca.from_array(x, chunks=((5, 7, 11),)).graph().num_layers
    e = ca.nan_to_num(ca.logaddexp(ca.cbrt(a), ca.hypot(a, b))) + ca.copysign(ca.fmax(a, b), ca.exp2(b))
    # two inputs of one layer each, one fused layer over them
    assert e.graph().num_layers == 2 * base + 1
    with np.errstate(all="ignore"):
        want = np.nan_to_num(np.logaddexp(np.cbrt(x), np.hypot(x, y))) + np.copysign(np.fmax(x, y), np.exp2(y))
    np.testing.assert_allclose(e.compute(), want, rtol=1e-13)
    c = ca.isclose(a, b, equal_nan=True)
    assert c.graph().num_layers == 2 * base + 1
