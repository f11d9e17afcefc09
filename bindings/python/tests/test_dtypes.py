"""float16, datetime64/timedelta64 (every unit, NaT) and fixed-width bytes/unicode against NumPy:
creation, slicing, concatenation, where, comparisons, astype, arithmetic and reductions, on ragged
chunks, 0-d, empty and size-1 arrays; the invalid cases raise clear errors; Zarr and graph-file
round trips keep the dtype."""
import os
import warnings

import numpy as np
import pytest

import chunkarray as ca
from chunkarray.core import DTypeError

UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"]
SHAPES = [((7, 5), (3, 2)), ((1,), (1,)), ((0,), (1,)), ((), ())]


def _dt_values(unit, shape, seed=0, nat=True):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape)) if shape else 1
    v = rng.integers(-10**6, 10**6, size=n).astype(np.int64)
    if nat and n > 2:
        v[::3] = np.iinfo(np.int64).min
    return v.reshape(shape).view(f"M8[{unit}]")


def _eq(got, want):
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


# ---- dtype mapping ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ["f2", "M8[ns]", "m8[s]", "M8[Y]", "m8[as]", "U8", "S5", "U1", "S1"])
def test_dtype_round_trip(dt):
    x = ca.from_array(np.zeros(3, dt), chunks=2)
    assert x.dtype == np.dtype(dt)


@pytest.mark.parametrize("dt", ["M8", "m8", "M8[5s]", "V4", "O"])
def test_unsupported_dtypes_raise(dt):
    with pytest.raises(DTypeError):
        ca.from_array(np.zeros(2, dt), chunks=1)


# ---- float16 ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,chunks", SHAPES)
def test_float16_arithmetic_and_reductions(shape, chunks):
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(shape) * 100).astype(np.float16)
    b = (rng.standard_normal(shape) * 3).astype(np.float16)
    x, y = ca.from_array(a, chunks=chunks), ca.from_array(b, chunks=chunks)
    with np.errstate(all="ignore"):
        for got, want in [(x + y, a + b), (x * y - x, a * b - a), (x / y, a / b), (-x, -a), (abs(x), abs(a)),
                          (np.sqrt(abs(x)), np.sqrt(abs(a))), (x < y, a < b),
                          (x.astype("f8"), a.astype("f8")), (x.astype("i4"), a.astype("i4")),
                          (ca.where(x > 0, x, y), np.where(a > 0, a, b))] + (
                          # NumPy treats a 0-d array with a Python float as two scalars (float64)
                          [(x + 1.5, a + 1.5)] if a.ndim else []):
            _eq(got.compute(), want)
    if a.size:
        for name in ["sum", "mean", "min", "max", "prod", "std", "var"]:
            got = getattr(x, name)().compute()
            # var/std square in float32 (NumPy squares float16 deviations in float16: inf from 256 up)
            want = getattr(a.astype("f4"), name)().astype("f2") if name in ("std", "var") else getattr(a, name)()
            assert got.dtype == np.float16, name
            np.testing.assert_allclose(got.astype("f8"), want.astype("f8"), rtol=2e-3, atol=1e-3, err_msg=name)
        if len(shape) == 2:
            got = x.sum(axis=0).compute()
            np.testing.assert_allclose(got.astype("f8"), a.sum(axis=0).astype("f8"), rtol=2e-3)
            # cumsum accumulates in float32 and rounds once (NumPy rounds every partial sum to float16)
            got = x.cumsum(axis=1).compute()
            assert got.dtype == np.float16
            np.testing.assert_allclose(got.astype("f8"), a.astype("f4").cumsum(axis=1).astype("f2").astype("f8"))


def test_float16_casts_from_every_dtype():
    for dt in ["?", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4", "f8", "c8", "c16"]:
        a = (np.arange(-6, 6) * 1234.567).astype(dt) if dt != "?" else np.arange(12) % 2 == 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = a.astype("f2")
        _eq(ca.from_array(a, chunks=5).astype("f2").compute(), want)


def test_float16_promotion():
    x = ca.from_array(np.ones(3, "f2"), chunks=2)
    for other in ["i1", "u1", "i2", "f4", "f8", "c8"]:
        o = np.ones(3, other)
        _eq((x + ca.from_array(o, chunks=2)).compute(), np.ones(3, "f2") + o)


@pytest.mark.parametrize("shape,chunks", [((7, 5), (3, 2)), ((0, 4), (1, 2)), ((1, 1), (1, 1))])
def test_float16_products_and_scans(shape, chunks):
    """matmul/tensordot/dot/outer of float16 accumulate in float32 and round once (NumPy's half loops);
    cumsum with dtype= another type casts the float16 values (exact in float32) first."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal(shape).astype("f2")
    b = rng.standard_normal(shape[::-1]).astype("f2")
    x, y = ca.from_array(a, chunks=chunks), ca.from_array(b, chunks=chunks[::-1])
    for got, want in [(x @ y, a @ b), (ca.tensordot(x, y, 1), np.tensordot(a, b, 1)),
                      (ca.dot(x, y), np.dot(a, b)), (ca.outer(x.ravel(), y.ravel()), np.outer(a, b))]:
        assert got.dtype == want.dtype == np.float16
        np.testing.assert_allclose(got.compute().astype("f4"), want.astype("f4"), rtol=2e-3, atol=2e-2)
    for dt in ["i4", "f8"]:
        got = ca.cumsum(x, axis=0, dtype=dt)
        want = np.cumsum(a, axis=0, dtype=dt)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.compute(), want, rtol=1e-12)


def test_products_refuse_time_and_string_dtypes_when_built():
    t = ca.from_array(np.arange(6, dtype="m8[s]").reshape(2, 3), chunks=2)
    s = ca.from_array(np.array([["a", "b"], ["c", "d"]]), chunks=1)
    for x in (t, s):
        with pytest.raises(DTypeError, match="matmul: not supported for the dtype"):
            x @ x.T
        with pytest.raises(DTypeError, match="tensordot: not supported for the dtype"):
            ca.tensordot(x, x.T, 1)


# ---- datetime64 / timedelta64 -----------------------------------------------------------------------

@pytest.mark.parametrize("unit", UNITS)
def test_datetime_every_unit(unit):
    a = _dt_values(unit, (7, 5))
    b = _dt_values(unit, (7, 5), seed=3)
    x, y = ca.from_array(a, chunks=(3, 2)), ca.from_array(b, chunks=(2, 3))
    _eq(x.compute(), a)
    _eq(x[1:6:2, ::-1].compute(), a[1:6:2, ::-1])
    _eq((x - y).compute(), a - b)                    # datetime - datetime = timedelta
    d = b - a
    _eq((x + ca.from_array(d, chunks=(3, 2))).compute(), a + d)   # datetime + timedelta = datetime
    for op in ["__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"]:
        _eq(getattr(x, op)(y).compute(), getattr(a, op)(b))      # NaT compares False except !=
    _eq(np.isnat(x).compute(), np.isnat(a))
    _eq(ca.where(np.isnat(x), y, x).compute(), np.where(np.isnat(a), b, a))
    _eq(x.astype("i8").compute(), a.astype("i8"))
    _eq(ca.concatenate([x, y], axis=0).compute(), np.concatenate([a, b]))
    for name in ["min", "max"]:
        got = getattr(x, name)(axis=0).compute()
        _eq(got, getattr(a, name)(axis=0))
        _eq(np.asarray(getattr(x, name)().compute()), np.asarray(getattr(a, name)()))


@pytest.mark.parametrize("src", ["Y", "M", "D", "h", "s", "ns"])
@pytest.mark.parametrize("dst", ["Y", "M", "W", "D", "m", "us", "ns"])
def test_datetime_unit_casts_and_mixed_units(src, dst):
    a = _dt_values(src, (11,), nat=True)
    if np.dtype(f"m8[{src}]") and src in "YM" and dst not in "YM":
        a = (a.view("i8") % 3000).view(a.dtype)   # keep far dates within ns range
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = a.astype(f"M8[{dst}]")
    x = ca.from_array(a, chunks=4)
    _eq(x.astype(f"M8[{dst}]").compute(), want)
    b = _dt_values(dst, (11,), seed=5)
    if {src, dst} <= set(UNITS[3:]) and UNITS.index(max(src, dst, key=UNITS.index)) <= UNITS.index("us"):
        _eq((x - ca.from_array(b, chunks=3)).compute(), a - b)   # the finer unit


def test_timedelta_arithmetic():
    rng = np.random.default_rng(2)
    a = rng.integers(-1000, 1000, size=(6, 4)).astype("m8[s]")
    a[0, 0] = np.timedelta64("NaT")
    b = rng.integers(1, 50, size=(6, 4)).astype("m8[ms]")
    b[1, 1] = np.timedelta64("NaT")
    x, y = ca.from_array(a, chunks=(4, 3)), ca.from_array(b, chunks=(2, 2))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        cases = [(x + y, a + b), (x - y, a - b), (x * 3, a * 3), (2 * x, 2 * a), (x / y, a / b), (x // y, a // b),
                 (x % y, a % b), (-x, -a), (abs(x), abs(a)), (np.maximum(x, y), np.maximum(a, b)),
                 (x * ca.from_array(np.arange(24).reshape(6, 4), chunks=2), a * np.arange(24).reshape(6, 4)),
                 (x // 7, a // 7), (x + np.timedelta64(5, "m"), a + np.timedelta64(5, "m")),
                 (x < np.timedelta64(1, "m"), a < np.timedelta64(1, "m")),
                 (x.astype("m8[h]"), a.astype("m8[h]"))]
        for got, want in cases:
            if want is None:
                continue
            _eq(got.compute(), want)
    _eq(np.asarray(x.sum().compute()), np.asarray(a.sum()))
    _eq(np.asarray(x[1:].sum().compute()), np.asarray(a[1:].sum()))
    _eq(x[1:].sum(axis=0).compute(), a[1:].sum(axis=0))
    _eq(x[1:].mean(axis=1).compute(), a[1:].mean(axis=1))
    _eq(np.asarray(x.mean().compute()), np.asarray(a.mean()))


def test_datetime_scalars_and_nat():
    a = np.array(["2020-01-01", "NaT", "2021-06-30", "1969-12-31"], "M8[D]")
    x = ca.from_array(a, chunks=3)
    _eq((x - np.datetime64("2020-01-01")).compute(), a - np.datetime64("2020-01-01"))
    _eq((x + np.timedelta64(36, "h")).compute(), a + np.timedelta64(36, "h"))
    _eq((x == np.datetime64("NaT")).compute(), a == np.datetime64("NaT"))
    _eq((x != np.datetime64("NaT")).compute(), a != np.datetime64("NaT"))
    _eq(ca.where(x > np.datetime64("2020-06-01"), x, np.datetime64("NaT")).compute(),
        np.where(a > np.datetime64("2020-06-01"), a, np.datetime64("NaT")))
    _eq(ca.full((3,), np.datetime64("2020-01-01T00:00:00.123456789"), chunks=2).compute(),
        np.full((3,), np.datetime64("2020-01-01T00:00:00.123456789")))
    _eq(ca.zeros((2,), chunks=1, dtype="M8[s]").compute(), np.zeros(2, "M8[s]"))
    _eq(np.asarray(x.max().compute()), np.asarray(a.max()))      # NaT propagates
    _eq(np.asarray(x.min().compute()), np.asarray(a.min()))


@pytest.mark.parametrize("shape,chunks", SHAPES)
def test_datetime_edge_shapes(shape, chunks):
    a = _dt_values("ns", shape)
    x = ca.from_array(a, chunks=chunks)
    _eq(x.compute(), a)
    _eq((x - x).compute(), a - a)
    _eq(np.isnat(x).compute(), np.isnat(a))
    if a.size:
        _eq(np.asarray(x.min().compute()), np.asarray(a.min()))


def test_datetime_invalid_operations():
    x = ca.from_array(np.array(["2020-01-01"], "M8[D]"), chunks=1)
    t = ca.from_array(np.array([1], "m8[s]"), chunks=1)
    with pytest.raises(TypeError):
        x + x                                   # datetime + datetime
    with pytest.raises(TypeError):
        x * 2
    with pytest.raises(TypeError):
        t - x                                   # timedelta - datetime
    with pytest.raises(TypeError):
        x.sum()
    with pytest.raises(TypeError):
        ca.from_array(np.array([1], "m8[Y]"), chunks=1) + ca.from_array(np.array([1], "m8[D]"), chunks=1)
    with pytest.raises(TypeError):
        np.sqrt(t)


# ---- bytes / unicode --------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["U", "S"])
def test_strings(kind):
    words = ["", "a", "bc", "hello", "xyz", "a", "zz", "naïve" if kind == "U" else "nai"]
    a = np.array(words * 3, dtype=f"{kind}5").reshape(4, 6)
    b = np.array(list(reversed(words * 3)), dtype=f"{kind}3").reshape(4, 6)
    x, y = ca.from_array(a, chunks=(3, 4)), ca.from_array(b, chunks=(2, 5))
    _eq(x.compute(), a)
    _eq(x[::2, 1:5].compute(), a[::2, 1:5])
    _eq(x.T.compute(), a.T)
    _eq(ca.concatenate([x, y], axis=1).compute(), np.concatenate([a, b], axis=1))   # itemsize = max
    _eq(ca.stack([x, y]).compute(), np.stack([a, b]))
    for op in ["__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"]:
        _eq(getattr(x, op)(y).compute(), getattr(a, op)(b))
    _eq(ca.where(x == y, x, y).compute(), np.where(a == b, a, b))
    _eq(x.astype(f"{kind}2").compute(), a.astype(f"{kind}2"))
    _eq(x.astype(f"{kind}9").compute(), a.astype(f"{kind}9"))
    _eq(x.rechunk((1, 6)).compute(), a)
    _eq(ca.zeros((3, 2), chunks=2, dtype=f"{kind}4").compute(), np.zeros((3, 2), f"{kind}4"))
    _eq(ca.empty((3,), chunks=2, dtype=f"{kind}4").compute(), np.zeros((3,), f"{kind}4"))
    _eq(ca.full((3,), "ab" if kind == "U" else b"ab", chunks=2).compute(), np.full((3,), "ab" if kind == "U" else b"ab"))


def test_string_casts_between_kinds():
    u = np.array(["ab", "", "xyz"], "U3")
    _eq(ca.from_array(u, chunks=2).astype("S3").compute(), u.astype("S3"))
    s = np.array([b"ab", b"", b"xyz"], "S3")
    _eq(ca.from_array(s, chunks=2).astype("U5").compute(), s.astype("U5"))
    with pytest.raises(ca.ChunkArrayError):
        ca.from_array(np.array(["é"], "U1"), chunks=1).astype("S1").compute()   # not ASCII


@pytest.mark.parametrize("shape,chunks", SHAPES)
def test_string_edge_shapes(shape, chunks):
    a = np.full(shape, "q", "U2")
    x = ca.from_array(a, chunks=chunks)
    _eq(x.compute(), a)
    _eq((x == x).compute(), a == a)


def test_string_invalid_operations():
    x = ca.from_array(np.array(["a", "b"]), chunks=1)
    with pytest.raises(TypeError):
        x + x
    with pytest.raises(TypeError):
        x.sum()
    with pytest.raises(TypeError):
        x == ca.from_array(np.array([1, 2]), chunks=1)
    with pytest.raises(ca.ChunkArrayError, match="invalid literal for int"):
        x.astype("i8").compute()  # text casts to numbers like NumPy: 'a' is not an integer


# ---- storage ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt,fill", [("M8[ns]", np.datetime64("NaT")), ("m8[s]", np.timedelta64(7, "s")),
                                     ("U8", "fill"), ("S5", b"ab"), ("f2", 1.5)])
def test_zarr_round_trip(tmp_path, dt, fill):
    zarr = pytest.importorskip("zarr")
    if dt[0] in "Mm":
        a = _dt_values(dt[3:-1], (9, 4)).view(dt)
    elif dt[0] in "US":
        a = np.array([str(i) * (i % 4) for i in range(36)], dt).reshape(9, 4)
    else:
        a = np.linspace(-3, 3, 36).astype(dt).reshape(9, 4)
    # Written by chunkarray, read by zarr-python.
    p = str(tmp_path / "a.zarr")
    ca.from_array(a, chunks=(4, 3)).to_zarr(p)
    z = zarr.open(p, mode="r")
    assert z.dtype == a.dtype
    _eq(z[...], a)
    # Written by zarr-python with a fill value and a missing chunk, read by chunkarray.
    q = str(tmp_path / "b.zarr")
    z = zarr.open(q, mode="w", shape=a.shape, chunks=(4, 3), dtype=a.dtype, fill_value=fill)
    z[:4] = a[:4]
    x = ca.from_zarr(q)
    assert x.dtype == a.dtype
    _eq(x.compute(), z[...])


def test_npy_round_trip(tmp_path):
    for a in [_dt_values("us", (5, 3)), np.array(["a", "bcd"], "U3"), np.array([b"x"], "S2"),
              np.arange(4, dtype="f2")]:
        p = str(tmp_path / "a.npy")
        np.save(p, a)
        _eq(ca.from_npy(p).compute(), a)
        q = str(tmp_path / "b.npy")
        ca.from_array(a, chunks=2).to_npy(q)
        _eq(np.load(q), a)


@pytest.mark.graph_files
def test_graph_file_round_trip(tmp_path):
    a = _dt_values("ms", (6,))
    s = np.array(["ab", "c", "", "def", "g", "h"], "U3")
    x = ca.from_array(a, chunks=4)
    y = (x - x.min()).astype("m8[s]")
    z = ca.where(ca.from_array(s, chunks=4) == "c", ca.from_array(s, chunks=4), ca.from_array(s[::-1], chunks=4))
    import pickle
    for arr in [x, y, z, ca.from_array(np.arange(6, dtype="f2"), chunks=4) * 2]:
        back = pickle.loads(pickle.dumps(arr))
        assert back.dtype == arr.dtype
        _eq(back.compute(), arr.compute())


@pytest.mark.parametrize("unit", ["ns", "s", "D"])
def test_timedelta_times_and_divided_by_float(unit):
    # NumPy's m8,f8->m8 loops: ticks scaled in double and truncated; NaT for NaT and non-finite results.
    a = np.array([10, -7, 3, "NaT", 1, 0], f"m8[{unit}]")
    f = np.array([1.5, 0.3, np.nan, 2.0, np.inf, -0.0])
    x = ca.from_array(a, chunks=4)
    y = ca.from_array(f, chunks=((2, 4),))
    cases = [
        (x * 1.5, a * 1.5), (2.5 * x, 2.5 * a), (x / 4.0, a / 4.0), (x * np.float32(0.7), a * np.float32(0.7)),
        (x * y, a * f), (y * x, f * a), (x * y.astype("f2"), a * f.astype("f2")),
    ]
    with np.errstate(all="ignore"):
        cases.append((x / y, a / f))
        for got, want in cases:
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.compute().view("i8"), want.view("i8"))
    # float * datetime, timedelta // float and float / timedelta stay errors, as in NumPy
    d = ca.from_array(np.array([1, 2], "M8[s]"), chunks=1)
    for bad in (lambda: d * 1.5, lambda: 1.5 / x, lambda: x * ca.from_array(np.array([1j]))):
        with pytest.raises(ca.DTypeError):
            bad()


NUMBER_TEXT_CASES = {
    "bool": [True, False],
    "int8": [0, -128, 127, 5],
    "uint8": [0, 255, 7],
    "int64": [0, -9223372036854775808, 9223372036854775807, 42],
    "uint64": [0, 18446744073709551615, 10],
    "float16": [0.1, 65504, 1e-4, -0.0, np.nan, np.inf, 6e-8, 1.5, 2048, 0.00011],
    "float32": [0.1, 1.0, 1e16, 3.4e38, 16777216.0, -1.5e-5, np.nan, -np.inf, 1e-45, 0.3],
    "float64": [0.1, 1.0, 1e16, 9999999999999998.0, 1e-5, 1e-4, 123456789.123, np.nan, -np.inf, -0.0, 1e300,
                5e-324, 2.0 ** 60, 0.1 + 0.2],
    "complex64": [1 + 2j, 2j, -0.5 - 1.5j, complex(0.1, -0.0), complex(np.nan, np.inf)],
    "complex128": [1 + 2j, 2j, complex(-0.0, 1), 1e20 + 1e-20j, complex(3, np.nan)],
}


@pytest.mark.parametrize("src", sorted(NUMBER_TEXT_CASES))
@pytest.mark.parametrize("to", ["U", "S", "U4", "S40"])
def test_numbers_to_text_as_numpy(src, to):
    with np.errstate(all="ignore"):
        a = np.array(NUMBER_TEXT_CASES[src], src)
    want = a.astype(to)
    got = ca.from_array(a, chunks=3).astype(to)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.compute(), want)


@pytest.mark.parametrize("to", ["bool", "int8", "uint16", "int64", "uint64", "float16", "float32", "float64"])
@pytest.mark.parametrize("kind", ["U", "S"])
def test_text_to_numbers_as_numpy(to, kind):
    ints = [" 12", "-3", "+4", "1_000", "0", "7\t"]
    floats = ints + [" 1.5", "nan", "-inf", "1e3", "1_0.2_5", ".5", "5.", "-0.0", "1E-2", "Infinity", "3.4e38"]
    texts = floats if np.dtype(to).kind == "f" else ints
    a = np.array(texts, kind)
    with np.errstate(all="ignore"):
        want = a.astype(to)
    got = ca.from_array(a, chunks=4).astype(to)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.compute(), want)


@pytest.mark.parametrize("text,to", [("abc", "float64"), ("1.5", "int64"), ("1__0", "int32"), ("0x10", "float64"),
                                     ("", "int8"), ("1e", "float32"), ("_1", "int64"), ("True", "bool")])
def test_bad_text_to_numbers_raise_as_numpy(text, to):
    a = np.array(["1", text])
    with pytest.raises(ValueError):
        a.astype(to)
    x = ca.from_array(a, chunks=1).astype(to)  # lazy: the text is read when computing
    with pytest.raises(ca.ChunkArrayError, match="int\\(\\)|float|literal"):
        x.compute()


def test_text_casts_not_supported_say_so():
    d = ca.from_array(np.array(["2020-01-01"]), chunks=1)
    with pytest.raises(ca.ChunkArrayError, match="not supported"):
        d.astype("M8[D]")
    with pytest.raises(ca.ChunkArrayError, match="not supported"):
        ca.from_array(np.array(["1+2j"]), chunks=1).astype("c16")
    with pytest.raises(ca.ChunkArrayError, match="not supported"):
        ca.from_array(np.array([1], "M8[D]"), chunks=1).astype("U")
