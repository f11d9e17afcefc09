"""Array.astype with NumPy's casting/copy semantics and the NumPy function protocol without needless
computes: metadata functions, lazy *_like, dispatch, and a warning naming what is computed (issue 12)."""
import warnings

import numpy as np
import pytest

import chunkarray as ca

RNG = np.random.default_rng(3)
A = RNG.standard_normal((7, 10))
CH = ((3, 3, 1), (4, 4, 2))

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
          "complex64", "complex128"]


@pytest.fixture
def computes(monkeypatch):
    """Counts every compute of a chunkarray array (Array.compute, chunkarray.compute)."""
    n = [0]
    orig, orig_many = ca.Array.compute, ca.core.compute

    def counted(self, *a, **k):
        n[0] += 1
        return orig(self, *a, **k)

    def counted_many(*a, **k):
        n[0] += 1
        return orig_many(*a, **k)
    monkeypatch.setattr(ca.Array, "compute", counted)
    monkeypatch.setattr(ca.core, "compute", counted_many)
    return n


@pytest.fixture
def no_fallback():
    with warnings.catch_warnings():
        warnings.simplefilter("error", ca.ComputeWarning)
        yield


# -- astype -------------------------------------------------------------------------------------------

def test_astype_copy_semantics():
    x = ca.from_array(A, chunks=CH)
    assert x.astype(np.float64, copy=False) is x
    assert x.astype("f8", copy=False) is x
    y = x.astype(np.float64)  # copy=True: a new object (over the same immutable native array)
    assert y is not x and y.name == x.name
    y[0, 0] = 100.0  # rebinding the copy leaves the original alone
    assert x.compute()[0, 0] == A[0, 0] and y.compute()[0, 0] == 100.0
    z = x.astype(np.float32, copy=False)  # another dtype: always a new array
    assert z is not x and z.dtype == np.float32
    np.testing.assert_array_equal(z.compute(), A.astype(np.float32))


@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe"])
def test_astype_casting_rules_as_numpy(casting):
    base = np.array([[0, 1, 2, 3], [4, 5, 0, 1], [1, 1, 0, 2]])
    checked = 0
    for src in DTYPES:
        a = base.astype(src)
        x = ca.from_array(a, chunks=(2, 3))
        for dst in DTYPES:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", np.ComplexWarning)
                    ref = a.astype(dst, casting=casting)
            except TypeError as e:
                with pytest.raises(TypeError) as ei:
                    x.astype(dst, casting=casting)
                assert str(ei.value) == str(e)  # NumPy's message
                continue
            got = x.astype(dst, casting=casting, copy=False)
            assert got.dtype == ref.dtype, (src, dst)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", np.ComplexWarning)
                np.testing.assert_array_equal(got.compute(), ref)
            checked += 1
    assert checked >= len(DTYPES)  # at least the identity casts


def test_astype_bad_arguments():
    x = ca.ones((3,), chunks=2)
    with pytest.raises(ValueError, match="casting must be one of"):
        x.astype(np.int32, casting="sometimes")
    with pytest.raises(ValueError, match="order must be"):
        x.astype(np.int32, order="Z")
    with pytest.raises(TypeError):
        x.astype("not-a-dtype")
    for order in "KACF":
        np.testing.assert_array_equal(x.astype(np.int8, order=order).compute(), np.ones(3, np.int8))


def test_astype_zero_d_and_empty():
    x = ca.from_array(np.float64(2.75))
    assert x.astype(np.int64).compute() == 2
    e = ca.from_array(np.zeros((0, 3)), chunks=2)
    r = e.astype(np.int16, casting="unsafe").compute()
    assert r.shape == (0, 3) and r.dtype == np.int16


# -- metadata functions ---------------------------------------------------------------------------------

def test_metadata_functions_do_not_compute(computes, no_fallback):
    x = ca.from_array(A, chunks=CH)
    i = ca.from_array(np.arange(6, dtype=np.int16), chunks=4)
    c = ca.from_array(A.astype(np.complex64), chunks=CH)
    z = ca.from_array(np.float32(1.5))
    computes[0] = 0
    assert np.result_type(x, np.float32) == np.result_type(A, np.float32)
    assert np.result_type(i, np.float32) == np.float32 == np.result_type(np.arange(6, dtype=np.int16), np.float32)
    assert np.result_type(i, c, np.int64) == np.complex128
    assert np.result_type(z, np.float64) == np.float64  # by dtype, as dask
    assert np.shape(x) == A.shape and np.ndim(x) == 2 and np.size(x) == A.size and np.size(x, 1) == 10
    assert np.shape(z) == () and np.ndim(z) == 0 and np.size(z) == 1
    assert not np.iscomplexobj(x) and np.iscomplexobj(c) and np.isrealobj(i) and not np.isrealobj(c)
    assert np.can_cast(i, np.float32) and not np.can_cast(x, np.int32) and np.can_cast(x, np.int32, "unsafe")
    assert np.min_scalar_type(x) == np.float64 and np.min_scalar_type(i) == np.int16
    assert np.common_type(x, i) == np.common_type(A, np.arange(6, dtype=np.int16))
    assert not np.shares_memory(x, A) and not np.may_share_memory(x, x)
    assert computes[0] == 0


def test_meta_and_priority():
    for a in (A, np.arange(5, dtype=np.int8), np.float32(1)):
        x = ca.from_array(a)
        m = x._meta
        assert isinstance(m, np.ndarray) and m.dtype == x.dtype and m.ndim == x.ndim
        assert m.shape == (0,) * x.ndim  # 0-d: shape (), as dask's meta
    assert ca.Array.__array_priority__ > 0


# -- *_like ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fn, args", [(np.zeros_like, ()), (np.ones_like, ()), (np.empty_like, ()),
                                      (np.full_like, (2.5,))])
def test_like_functions_are_lazy_with_same_chunks(fn, args, computes, no_fallback):
    x = ca.from_array(A, chunks=CH)
    computes[0] = 0
    r = fn(x, *args)
    assert isinstance(r, ca.Array) and r.chunks == x.chunks and r.dtype == x.dtype
    r32 = fn(x, *args, dtype=np.float32)
    assert r32.dtype == np.float32 and r32.chunks == x.chunks
    rs = fn(x, *args, shape=(3, 4))
    assert isinstance(rs, ca.Array) and rs.shape == (3, 4)
    assert computes[0] == 0
    if fn is not np.empty_like:
        np.testing.assert_array_equal(r.compute(), fn(A, *args))
        np.testing.assert_array_equal(r32.compute(), fn(A, *args, dtype=np.float32))
        np.testing.assert_array_equal(rs.compute(), fn(A, *args, shape=(3, 4)))
    else:
        assert r.compute().shape == A.shape


def test_like_functions_edge_cases(no_fallback):
    z = ca.from_array(np.int32(4))
    r = np.ones_like(z)
    assert isinstance(r, ca.Array) and r.shape == () and r.dtype == np.int32 and r.compute() == 1
    e = ca.from_array(np.zeros((0, 3)), chunks=2)
    r = np.zeros_like(e)
    assert r.shape == (0, 3) and r.chunks == e.chunks and r.compute().shape == (0, 3)
    i = ca.from_array(np.arange(5), chunks=2)
    np.testing.assert_array_equal(np.full_like(i, 2.7).compute(), np.full_like(np.arange(5), 2.7))  # cast to int
    np.testing.assert_array_equal(np.full_like(i, True, dtype=bool).compute(), np.ones(5, bool))
    np.testing.assert_array_equal(np.full_like(i, np.arange(5) * 2).compute(), np.arange(5) * 2)
    m = i[i > 2]  # unknown chunk sizes
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        np.zeros_like(m)


# -- dispatch and fallback -------------------------------------------------------------------------------

def test_implemented_functions_dispatch_lazily(computes, no_fallback):
    x = ca.from_array(A, chunks=CH)
    c = ca.from_array(A + 1j * A[::-1], chunks=CH)
    computes[0] = 0
    lazy = {
        "sum": (np.sum(x, axis=0), np.sum(A, axis=0)),
        "concatenate": (np.concatenate([x, x], axis=1), np.concatenate([A, A], axis=1)),
        "take": (np.take(x, [0, 3, 5], axis=1), np.take(A, [0, 3, 5], axis=1)),
        "take-flat": (np.take(x, [0, 13, 69]), np.take(A, [0, 13, 69])),
        "ptp": (np.ptp(x, axis=1), np.ptp(A, axis=1)),
        "count_nonzero": (np.count_nonzero(x > 0, axis=0), np.count_nonzero(A > 0, axis=0)),
        "copy": (np.copy(x), A),
        "real": (np.real(c), np.real(A + 1j * A[::-1])),
        "imag": (np.imag(c), np.imag(A + 1j * A[::-1])),
        "iscomplex": (np.iscomplex(c), np.iscomplex(A + 1j * A[::-1])),
        "isreal": (np.isreal(x), np.isreal(A)),
        "diag": (np.diag(x[:, :7]), np.diag(A[:, :7])),
        "where": (np.where(x > 0, x, 0.0), np.where(A > 0, A, 0.0)),
        "transpose": (np.transpose(x), A.T),
        "mean": (np.mean(x), A.mean()),
    }
    for name, (got, _) in lazy.items():
        assert isinstance(got, ca.Array), name
    assert computes[0] == 0
    for name, (got, ref) in lazy.items():
        r = got.compute()
        np.testing.assert_allclose(r, ref, rtol=1e-12, err_msg=name)
        assert np.asarray(r).dtype == np.asarray(ref).dtype or name == "count_nonzero", name


def test_fallback_computes_with_a_warning_naming_the_function():
    x = ca.from_array(A, chunks=CH)
    with pytest.warns(ca.ComputeWarning, match=r"numpy\.unwrap is not implemented lazily"):
        r = np.unwrap(x, axis=0)
    np.testing.assert_allclose(r, np.unwrap(A, axis=0))
    assert isinstance(np.median(x, axis=0), ca.Array)  # lazy since issue 16
    assert isinstance(np.sort(x, axis=1), ca.Array)  # lazy: routines.h
    with pytest.warns(ca.ComputeWarning, match=r"numpy\.trapz"):
        r = np.trapz(x, axis=1)
    np.testing.assert_allclose(r, np.trapz(A, axis=1))
    assert issubclass(ca.ComputeWarning, UserWarning)


def test_other_duck_arrays_decide_for_themselves():
    class Other:
        def __array_function__(self, func, types, args, kwargs):
            return "other"

    x = ca.ones((3,), chunks=2)
    assert np.concatenate([x, Other()]) == "other"
