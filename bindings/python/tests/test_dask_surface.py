"""Issue 16's completeness check: every public top-level callable of dask.array (Debian's
python3-dask) and every public attribute of dask.array.Array exists in chunkarray, except the
dask-specific names listed below with the reason each has no meaning here.

Introspection only (nothing is computed): new dask names make this fail until they are implemented
or listed.
"""
import inspect

import pytest

import chunkarray as ca

da = pytest.importorskip("dask.array")

# Top-level names of dask.array that belong to dask's machinery, not to NumPy's surface:
DASK_SPECIFIC = {
    # dask.delayed and its task graphs: chunkarray has no Delayed objects (Array.blocks / Array.to_delayed
    # give one-block Arrays; Graph builds custom arrays from tasks).
    "from_delayed",
    # dask's testing helper (compares a dask collection with NumPy by computing it); the tests here
    # compare values with numpy.testing directly.
    "assert_eq",
    # dask's collection-level graph optimization (culling, fusing); the library optimizes when it
    # computes, there is no graph to hand back to the caller.
    "optimize",
    # dask's registry of block types (sparse, cupy) for NumPy-protocol dispatch: blocks are NumPy arrays.
    "register_chunk_type",
    # dask warns with it about graphs with too many tasks in its Python graph builders; nothing in
    # chunkarray raises it.
    "PerformanceWarning",
    # deprecated alias of blockwise in dask ("The da.atop function has moved to da.blockwise").
    "atop",
    # TileDB I/O: the library (tiledb) is not part of this project's dependencies (Zarr, .npy, npy
    # stacks and HDF5 are supported: to_zarr, from_npy_stack, to_hdf5, ...).
    "from_tiledb", "to_tiledb",
}

# Array attributes of dask.array.Array that expose dask itself:
ARRAY_DASK_SPECIFIC = {
    # the HighLevelGraph of the array; chunkarray's graph is Array.graph (a Graph object).
    "dask",
    # dask.dataframe conversion: no dataframe library here.
    "to_dask_dataframe",
    # the TileDB writer (see above).
    "to_tiledb",
}


def _dask_top_level():
    return sorted(n for n in dir(da) if not n.startswith("_") and not inspect.ismodule(getattr(da, n)))


def _dask_array_attrs():
    return sorted(n for n in dir(da.Array) if not n.startswith("_"))


def test_every_dask_top_level_name_exists():
    missing = [n for n in _dask_top_level() if n not in DASK_SPECIFIC and not hasattr(ca, n)]
    assert not missing, f"dask.array names missing from chunkarray: {missing}"


def test_dask_top_level_names_are_exported():
    not_exported = [n for n in _dask_top_level()
                    if n not in DASK_SPECIFIC and hasattr(ca, n) and n not in ca.__all__
                    and not inspect.ismodule(getattr(ca, n))]
    assert not not_exported, f"in chunkarray but not in __all__: {not_exported}"


def test_every_dask_array_attribute_exists():
    missing = [n for n in _dask_array_attrs() if n not in ARRAY_DASK_SPECIFIC and not hasattr(ca.Array, n)]
    assert not missing, f"dask.array.Array attributes missing from chunkarray.Array: {missing}"


def test_the_exclusions_are_still_dask_names():
    # A name dask dropped should leave the list too (the list documents what dask has).
    assert DASK_SPECIFIC <= set(_dask_top_level())
    assert ARRAY_DASK_SPECIFIC <= set(_dask_array_attrs())


def test_callables_stay_callable():
    # dask's top-level callables are callable here too (not, for instance, shadowed by data).
    wrong = [n for n in _dask_top_level()
             if n not in DASK_SPECIFIC and callable(getattr(da, n)) and not callable(getattr(ca, n, None))]
    assert not wrong, wrong


# The submodules: every public function dask.array.linalg / fft / random / ma defines itself (not the
# names they import from elsewhere in dask) exists in chunkarray's module of the same name, except:
SUBMODULE_DASK_SPECIFIC = {
    # dask's tokenize hook for numpy.ma arrays (registered with dask.base.normalize_token): dask's
    # graph-naming machinery, no user-facing function.
    ("ma", "normalize_masked_array"),
    # the global RandomState's seed: chunkarray's module-level random functions are stateless (each
    # takes seed=, default 0, and the same seed gives the same values; docs/random.md), so
    # there is no global stream to reseed -- RandomState(seed) / default_rng(seed) give one.
    ("random", "seed"),
}


def _dask_submodule_functions(sub):
    mod = getattr(da, sub)
    return sorted(n for n in dir(mod) if not n.startswith("_") and callable(getattr(mod, n))
                  and getattr(getattr(mod, n), "__module__", None) == mod.__name__)


@pytest.mark.parametrize("sub", ["linalg", "fft", "random", "ma"])
def test_every_dask_submodule_function_exists(sub):
    ours = getattr(ca, sub)
    missing = [n for n in _dask_submodule_functions(sub) if (sub, n) not in SUBMODULE_DASK_SPECIFIC
               and not callable(getattr(ours, n, None))]
    assert not missing, f"dask.array.{sub} functions missing from chunkarray.{sub}: {missing}"
    not_exported = [n for n in _dask_submodule_functions(sub) if (sub, n) not in SUBMODULE_DASK_SPECIFIC
                    and hasattr(ours, n) and n not in getattr(ours, "__all__", [])]
    assert not not_exported, f"in chunkarray.{sub} but not in its __all__: {not_exported}"


def test_the_submodule_exclusions_are_still_dask_names():
    for sub, n in SUBMODULE_DASK_SPECIFIC:
        assert n in _dask_submodule_functions(sub), (sub, n)
