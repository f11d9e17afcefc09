"""The seed's low level from Python: Graph(), add_task, Array(graph, name, chunks, dtype); dask's
custom ``eye`` and ``diag`` built by hand and checked against NumPy. Also the user-facing surface of
compute (progress bars, NumPy scalars for 0-d results), visualize and the module's exports."""
import functools
import io
import os
import subprocess
import sys
import types

import numpy as np
import pytest

import chunkarray as ca
from chunkarray import core


# --- dask's custom array functions, as its documentation writes them -----------------------------

def custom_eye(n, blocksize, name="eye-custom"):
    """dask's documented example: identity blocks on the diagonal, zeros elsewhere. The last block
    along each axis is smaller when blocksize does not divide n (ragged chunks)."""
    sizes = tuple([blocksize] * (n // blocksize) + ([n % blocksize] if n % blocksize else []))
    g = ca.Graph()
    for i, bi in enumerate(sizes):
        for j, bj in enumerate(sizes):
            if i == j:
                g.add_task((name, i, j), np.eye, bi)
            else:
                g.add_task((name, i, j), np.zeros, (bi, bj))
    return ca.Array(g, name, (sizes, sizes), np.eye(0).dtype)


def custom_diag(v, name=None):
    """dask's old diag(v) for a 1-d array: np.diag of v's block (a key reference) on the diagonal,
    zero blocks elsewhere; v's graph merged in (dask's ``merge(v.dask, dsk)``) as a dict graph."""
    name = name or "diag-" + v.name
    c = v.chunks[0]
    zeros = functools.partial(np.zeros, dtype=v.dtype)  # blocks in v's dtype
    dsk = {}
    for i, vi in enumerate(c):
        for j, vj in enumerate(c):
            dsk[(name, i, j)] = (np.diag, (v.name, i)) if i == j else (zeros, (vi, vj))
    g = ca.Graph(dsk).merge(v)
    return ca.Array(g, name, (c, c), v.dtype)


@pytest.mark.parametrize("n,blocksize", [(6, 3), (7, 3), (5, 5), (1, 1), (4, 1)])
def test_custom_eye_matches_numpy(n, blocksize):
    x = custom_eye(n, blocksize)
    assert x.shape == (n, n)
    assert x.dtype == np.float64
    np.testing.assert_array_equal(x.compute(), np.eye(n))
    # it composes with the rest of the library like any array
    np.testing.assert_array_equal((x * 3 + 1).sum(axis=0).compute(), (np.eye(n) * 3 + 1).sum(axis=0))


@pytest.mark.parametrize("chunks", [((2, 3),), ((5,),), ((1, 1, 3),), ((1,) * 5,)])
def test_custom_diag_matches_numpy(chunks):
    values = np.arange(1.0, 6.0)
    v = ca.from_array(values, chunks=chunks)
    d = custom_diag(v)
    assert d.chunks == (chunks[0], chunks[0])
    np.testing.assert_array_equal(d.compute(), np.diag(values))


def test_custom_diag_of_a_computed_expression():
    v = ca.arange(7, chunks=3) * 2 - 1
    np.testing.assert_array_equal(custom_diag(v).compute(), np.diag(np.arange(7) * 2 - 1))


def test_add_task_literals_and_key_references():
    g = ca.Graph()
    g.add_task(("a", 0, 0), np.full, (2, 3), 1.5)            # tuple of ints and float literals
    g.add_task(("b", 0, 0), lambda x, s, k, sl, none: x[sl] * k + len(s) + (none is None),
               ("a", 0, 0), "abc", 2, slice(0, 1), None)     # a reference, str, int, slice, None
    g.add_task(("c", 0, 0), lambda blocks: blocks[0][:1] + blocks[1], [("a", 0, 0), ("b", 0, 0)])  # a list
    assert ("a", 0, 0) in g and ("c", 0, 0) in g and ("d", 0, 0) not in g
    assert len(g) == 3
    b = ca.Array(g, "b", ((1,), (3,)), float).compute()
    np.testing.assert_array_equal(b, np.full((1, 3), 1.5 * 2 + 3 + 1))
    c = ca.Array(g, "c", ((1,), (3,)), float).compute()
    np.testing.assert_array_equal(c, np.full((1, 3), 1.5 + 7.0))


def test_add_task_by_kernel_name():
    ca.register_kernel("test_custom_graph.twice", lambda b: b * 2)
    g = ca.Graph({("s", 0): (np.arange, 4.0)})
    g.add_task(("t", 0), "test_custom_graph.twice", ("s", 0))
    np.testing.assert_array_equal(ca.Array(g, "t", ((4,),), float).compute(), np.arange(4.0) * 2)


def test_zero_d_custom_array():
    g = ca.Graph({("z",): (np.array, 3.5)})
    x = ca.Array(g, "z", (), float)
    assert x.shape == ()
    assert x.compute() == 3.5


def test_one_function_is_one_kernel():
    g = ca.Graph()
    for i in range(50):
        g.add_task(("k", i), np.ones, 1)
    names = core._graph_kernel_names(g.handle)
    assert len(names) == 1


def test_array_from_graph_validation():
    g = ca.Graph({("x", 0): (np.ones, 2), ("x", 1): (np.ones, 2)})
    with pytest.raises(ca.NotFoundError, match=r"'x', 2"):
        ca.Array(g, "x", ((2, 2, 2),), float)          # a key of the chunk grid is missing
    with pytest.raises(ca.NotFoundError, match="no layer"):
        ca.Array(g, "y", ((2,),), float)
    with pytest.raises(ca.InvalidArgumentError, match="tuple of tuples"):
        ca.Array(g, "x", (2, 2), float)
    with pytest.raises(ca.InvalidArgumentError):
        ca.Array(g, "x", ((2, -2),), float)            # negative block size: ca_array_new's check
    with pytest.raises(ca.DTypeError):
        ca.Array(g, "x", ((2, 2),), object)
    with pytest.raises(TypeError, match="required"):
        ca.Array(g, "x")
    with pytest.raises(TypeError, match="non-empty string"):
        ca.Array(g, "", ((2, 2),), float)
    with pytest.raises(TypeError, match="a key is a tuple"):
        g.add_task(("x", "i"), np.ones, 1)
    with pytest.raises(TypeError, match="kernel name"):
        g.add_task(("x", 5), 42)
    with pytest.raises(ca.ChunkArrayError, match="EEXISTS|exists|duplicate"):
        g.add_task(("x", 0), np.ones, 2)
    with pytest.raises(ca.InvalidArgumentError):
        g.add_task(("x", 0, 0), np.ones, 2)             # index count differs from the layer's
    with pytest.raises(TypeError, match="cannot pass"):
        g.add_task(("x", 7), np.ones, object())
    with pytest.raises(TypeError, match=r"tuple \(func, \*args\)"):
        ca.Graph({("x", 0): 5})


def test_wrong_block_from_a_task_is_a_clear_error():
    g = ca.Graph({("x", 0): (np.ones, 2)})
    with pytest.raises(ca.KernelError, match="extent 2 along axis 0, its chunks say 3"):
        ca.Array(g, "x", ((3,),), float).compute()
    with pytest.raises(ca.KernelError, match="dtype float64, the array has int32"):
        ca.Array(g, "x", ((2,),), "int32").compute()


def test_later_changes_to_the_graph_do_not_affect_the_array():
    g = ca.Graph({("x", 0): (np.ones, 2)})
    x = ca.Array(g, "x", ((2,),), float)
    g.add_task(("x", 1), np.ones, 2)
    assert x.shape == (2,)
    np.testing.assert_array_equal(x.compute(), np.ones(2))


# --- compute: progress bars and result types -------------------------------------------------------

def test_progress_true_draws_a_bar(capfd):
    x = ca.ones((40, 40), chunks=5).sum()
    assert x.compute(progress=True) == 1600.0
    err = capfd.readouterr().err
    assert "Exception ignored" not in err
    assert "100% Completed" in err and err.endswith("\n") and "[" + "#" * 40 + "]" in err
    assert ca.compute(x, progress=True) == (1600.0,)
    assert "100% Completed" in capfd.readouterr().err


def test_progress_callable_and_bad_value():
    calls = []
    ca.ones(10, chunks=2).sum().compute(progress=lambda d, t: calls.append((d, t)))
    assert calls and calls[-1][0] == calls[-1][1] > 0
    with pytest.raises(TypeError, match="progress must be"):
        ca.ones(3).compute(progress="yes")


def test_progress_bar_draws_fractions():
    out = io.StringIO()
    bar = core._ProgressBar(width=10, out=out)
    bar(1, 4)
    bar(4, 4)
    bar(4, 4)  # after the end: nothing more
    text = out.getvalue()
    assert "[##        ] |  25% Completed" in text
    assert text.count("100% Completed") == 1 and text.endswith("\n")


def test_zero_d_results_have_dasks_types():
    dask = pytest.importorskip("dask.array")
    x, dx = ca.ones((4, 3), chunks=2), dask.ones((4, 3), chunks=2)
    cases = [lambda m, a: a.sum(), lambda m, a: a.mean(), lambda m, a: a.argmax(), lambda m, a: a[0, 0],
             lambda m, a: a.any(), lambda m, a: a.std(), lambda m, a: a.sum() + 1,
             lambda m, a: m.zeros(()), lambda m, a: m.zeros(()) + 1, lambda m, a: m.full((), 3),
             lambda m, a: m.zeros(()).astype(int), lambda m, a: m.from_array(np.float64(2)),
             lambda m, a: -m.ones(()), lambda m, a: m.ones(3).sum(axis=0)]
    for i, case in enumerate(cases):
        got, want = case(ca, x).compute(), case(dask, dx).compute()
        assert type(got) is type(want), (i, type(got), type(want))
        np.testing.assert_array_equal(got, want)
    assert type(ca.compute(x.sum())[0]) is np.float64
    assert type(np.asarray(x.sum())) is np.ndarray   # __array__ stays an ndarray


# --- visualize -------------------------------------------------------------------------------------

def test_visualize_renders_by_extension(tmp_path):
    x = ca.ones((4, 4), chunks=2) + 1
    dot = x.visualize(str(tmp_path / "g.dot"))
    assert open(dot).read().lstrip().startswith(("digraph", "strict digraph"))
    if not subprocess.run(["sh", "-c", "command -v dot"], capture_output=True).stdout:
        pytest.skip("Graphviz's dot is not installed")
    svg = x.visualize(tmp_path / "g.svg")
    assert open(svg, "rb").read().lstrip().startswith(b"<?xml") and b"<svg" in open(svg, "rb").read()
    png = x.visualize(str(tmp_path / "g.png"))
    assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    os.chdir(tmp_path)
    assert x.visualize() == "mydask.png" and os.path.exists(tmp_path / "mydask.png")
    assert x.visualize("other", format="svg") == "other.svg"
    assert x.visualize(None, format="svg").lstrip().startswith(b"<?xml")
    assert x.graph().visualize(str(tmp_path / "graph.svg")).endswith("graph.svg")


def test_visualize_without_graphviz(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no dot here
    x = ca.ones(4, chunks=2)
    with pytest.raises(RuntimeError, match="needs Graphviz's 'dot'.*apt-get install graphviz"):
        x.visualize(str(tmp_path / "g.svg"))
    assert x.visualize(str(tmp_path / "g.dot")).endswith("g.dot")  # dot text needs no Graphviz
    with pytest.raises(ValueError, match="unknown format"):
        x.visualize(str(tmp_path / "g"), format="bmpx")


# --- the module's surface --------------------------------------------------------------------------

def test_all_has_no_internals():
    assert "Graph" in ca.__all__ and "Array" in ca.__all__ and "linalg" in ca.__all__
    for internal in ("C", "np", "lib", "core", "ctypes", "chunkmanager"):
        assert internal not in ca.__all__, internal
    for internal in ("C", "np", "lib"):
        assert not hasattr(ca, internal), internal
    for name in ca.__all__:
        assert hasattr(ca, name), name
    for internal in ("ctypes", "np", "numbers", "lib", "c_vp"):
        assert not hasattr(ca.linalg, internal), internal
    public = {n for n in dir(ca.linalg) if not n.startswith("_")}
    assert public == set(ca.linalg.__all__)
    # every exported name that is not a submodule is documented in help(chunkarray)
    modules = {n for n in ca.__all__ if isinstance(getattr(ca, n), types.ModuleType)}
    assert modules == {"fft", "linalg", "ma", "mpi", "random"}


def test_help_is_readable():
    """help(chunkarray) lists the exported names, not ctypes internals, and renders without error."""
    import pydoc
    text = pydoc.render_doc(ca, renderer=pydoc.plaintext)
    assert "Graph" in text and "add_task" in text and "from_array" in text
    assert "c_vp" not in text and "_ArgBuilder" not in text
    text = pydoc.render_doc(ca.Array, renderer=pydoc.plaintext)
    assert "Array(graph, name, chunks, dtype)" in text


def test_graph_example_in_docstring_runs():
    """The Graph and Array docstring examples are executed (doctest)."""
    import doctest
    for obj in (ca.Graph, ca.Array):
        finder = doctest.DocTestFinder(recurse=False)
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        tests = finder.find(obj, obj.__name__, globs={})
        assert tests and tests[0].examples
        for t in tests:
            runner.run(t, out=sys.stderr.write)
        assert runner.failures == 0, obj


def test_readme_example_program_runs():
    """examples/custom_array.py (the README's eye and diag) runs and checks itself against NumPy."""
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.path.dirname(here))
    r = subprocess.run([sys.executable, os.path.join(here, "..", "examples", "custom_array.py")],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "both equal NumPy's" in r.stdout
