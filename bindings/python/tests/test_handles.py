"""Native handles under Python's object protocols: copy, deepcopy, pickle (also into other processes),
weakref, and garbage collection from any thread and at exit (issue 12, part 1)."""
import concurrent.futures
import copy
import gc
import multiprocessing
import os
import pickle
import subprocess
import sys
import textwrap
import threading
import weakref

import numpy as np
import pytest

import chunkarray as ca

RNG = np.random.default_rng(12)
A = RNG.standard_normal((13, 17))
CH = ((5, 5, 3), (4, 4, 4, 5))  # ragged


# Module-level functions: Python kernels pickle them by reference.
def double_plus(block, k=1.0):
    return block * 2 + k


def block_sum_id(block, block_id=None):
    return block + sum(block_id)


def row_sum(b):
    return b.sum(-1)


def np_sum(x, axis=None, keepdims=False):
    return np.sum(x, axis=axis, keepdims=keepdims)


def _pickled(x):
    return pickle.loads(pickle.dumps(x))


COPIES = {"copy": copy.copy, "deepcopy": copy.deepcopy, "pickle": _pickled,
          "pickle-protocol-2": lambda x: pickle.loads(pickle.dumps(x, protocol=2))}


def _cases():
    """(name, lazy array, NumPy reference) built from many kinds of operations."""
    x = ca.from_array(A, chunks=CH)
    cases = [
        ("from_array", x, A),
        ("elementwise", (x + 1) * 2 - x / 3, (A + 1) * 2 - A / 3),
        ("ufunc", np.sin(x) + np.exp(x / 10), np.sin(A) + np.exp(A / 10)),
        ("ufunc-fallback", np.cbrt(x), np.cbrt(A)),
        ("sum-axis", x.sum(axis=0), A.sum(axis=0)),
        ("mean-all", x.mean(), A.mean()),
        ("argmax", x.argmax(axis=1), A.argmax(axis=1)),
        ("slicing", x[1:12:2, ::-3], A[1:12:2, ::-3]),
        ("int-index", x[3], A[3]),
        ("transpose-reshape", x.T.reshape(17 * 13), A.T.reshape(17 * 13)),
        ("rechunk", x.rechunk((7, 9)), A),
        ("cumsum", x.cumsum(axis=1), A.cumsum(axis=1)),
        ("ones", ca.ones((4, 6), chunks=(2, 3)), np.ones((4, 6))),
        ("arange", ca.arange(0, 20, 3, chunks=4), np.arange(0, 20, 3)),
        ("zero-d", ca.from_array(np.float64(2.5)) * 2, np.float64(5.0)),
        ("empty", ca.from_array(np.zeros((0, 3)), chunks=2) + 1, np.zeros((0, 3)) + 1),
        ("size-1", ca.from_array(np.array([[7]], dtype=np.int32)) * 3, np.array([[21]], dtype=np.int32)),
        ("int-data", ca.from_array(np.arange(30, dtype=np.int16).reshape(5, 6), chunks=(2, 4)) % 7,
         np.arange(30, dtype=np.int16).reshape(5, 6) % 7),
        ("map_blocks", ca.map_blocks(double_plus, x, k=3.0), A * 2 + 3.0),
        ("map_blocks-block_id", ca.map_blocks(block_sum_id, x), None),
        ("blockwise", ca.blockwise(np.add, "ij", x, "ij", x.T.T, "ij"), A + A),
        ("reduction", ca.reduction(x, np_sum, np_sum, axis=1), A.sum(axis=1)),
        ("generic-scan", ca.scan(np.maximum.accumulate, np.maximum, -np.inf, x, axis=0), np.maximum.accumulate(A, 0)),
        ("persisted", (x * 2).persist(), A * 2),
        ("gufunc", ca.apply_gufunc(row_sum, "(i)->()", x.rechunk({1: -1})), A.sum(-1)),
        ("gufunc-vectorize", ca.apply_gufunc(np.linalg.norm, "(i)->()", x.rechunk({1: -1}), vectorize=True,
                                             output_dtypes=float), np.linalg.norm(A, axis=-1)),
        ("map_overlap", ca.map_overlap(np.negative, x, depth=1, boundary="reflect"), -A),
        ("matmul", x @ x.T, A @ A.T),
    ]
    r = ca.random.normal(size=(9, 8), chunks=(4, 3), seed=5)
    cases.append(("random", r + 0, r.compute()))
    m = x[x > 0.5]  # unknown chunk sizes
    cases.append(("mask-unknown-chunks", m, A[A > 0.5]))
    return cases


def _block_id_ref():
    out = A.copy()
    starts = [np.cumsum((0,) + c) for c in CH]
    for i in range(len(CH[0])):
        for j in range(len(CH[1])):
            out[starts[0][i]:starts[0][i + 1], starts[1][j]:starts[1][j + 1]] += i + j
    return out


def _ref(name, ref):
    return _block_id_ref() if name == "map_blocks-block_id" else ref


def _check_same(y, x, ref):
    assert isinstance(y, ca.Array)
    assert y is not x and y.handle != 0
    assert y.dtype == x.dtype and y.ndim == x.ndim
    if x.chunks_known:
        assert y.shape == x.shape and y.chunks == x.chunks
    got = y.compute()
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=0)
    assert got.dtype == x.dtype


def test_issue_repro_deepcopy_then_free():
    x = ca.ones((4, 6), chunks=(2, 3))
    y = copy.deepcopy(x)
    del y
    gc.collect()
    assert x.sum().compute() == 24.0
    z = copy.copy(x)
    del x
    gc.collect()
    assert z.sum().compute() == 24.0


@pytest.mark.graph_files
@pytest.mark.parametrize("how", list(COPIES))
def test_copy_and_pickle_round_trips(how):
    f = COPIES[how]
    for name, x, ref in _cases():
        ref = _ref(name, ref)
        y = f(x)
        _check_same(y, x, ref)
        if how != "pickle" or x.chunks_known:
            assert y.name == x.name, name  # the same array, not a recomputation
        del y  # the copy goes first: the original is intact
        gc.collect()
        np.testing.assert_allclose(x.compute(), ref, rtol=1e-12)
        y = f(x)
        del x  # the original goes first: the copy is intact
        gc.collect()
        np.testing.assert_allclose(y.compute(), ref, rtol=1e-12)


@pytest.mark.graph_files
def test_copies_are_independent_objects_under_setitem():
    x = ca.from_array(np.arange(12.0).reshape(3, 4), chunks=2)
    for y in (copy.copy(x), copy.deepcopy(x), _pickled(x)):
        y[0, 0] = -1.0  # rebinds y only (dask semantics)
        assert y.compute()[0, 0] == -1.0
        assert x.compute()[0, 0] == 0.0


def test_deepcopy_inside_containers_keeps_identity():
    x = ca.ones((3, 3), chunks=2)
    c = copy.deepcopy({"a": x, "b": [x, x]})
    assert c["a"] is c["b"][0] is c["b"][1] and c["a"] is not x
    np.testing.assert_array_equal(c["a"].compute(), np.ones((3, 3)))


def test_copy_keeps_subclass_and_attributes():
    class Tagged(ca.Array):
        pass

    base = ca.ones((2, 2), chunks=1)
    x = Tagged(ca._lib_handle().ca_array_retain(base.handle))  # Array() owns the reference it is given
    del base
    x.tag = "t"
    for y in (copy.copy(x), copy.deepcopy(x)):
        assert type(y) is Tagged and y.tag == "t" and y.handle != 0
        np.testing.assert_array_equal(y.compute(), np.ones((2, 2)))


def test_pickle_of_lambda_kernel_is_a_clear_error():
    x = ca.from_array(A, chunks=CH)
    y = ca.map_blocks(lambda b: b + 1, x)
    with pytest.raises(pickle.PicklingError, match=r"Python kernel 'py\.map_blocks\.<lambda>.*module level"):
        pickle.dumps(y)
    # copies need no pickling: they work
    np.testing.assert_allclose(copy.deepcopy(y).compute(), A + 1)
    np.testing.assert_allclose(y.compute(), A + 1)

    def nested(b):
        return b - 1
    with pytest.raises(pickle.PicklingError, match="nested"):
        pickle.dumps((ca.map_blocks(nested, x) * 2).sum())


def test_pickle_of_unpicklable_literal_is_a_clear_error():
    x = ca.from_array(A, chunks=CH)
    y = ca.map_blocks(double_plus, x, k=threading.Lock())
    with pytest.raises(pickle.PicklingError, match="double_plus"):
        pickle.dumps(y)


def test_unpickled_kernel_names_do_not_meet_other_kernels():
    # a kernel name from another process is never one this process already uses for another function
    x = ca.from_array(A, chunks=CH)
    ca.map_blocks(double_plus, x, k=1.0)  # registers a kernel
    names = ca.core._py_kernels.keys()
    tok = ca.core._process_token
    assert all(tok in n for n in names if n.startswith("py."))


def test_weakref():
    x = ca.ones((3,), chunks=2)
    r = weakref.ref(x)
    assert r() is x
    p = weakref.proxy(x)
    assert p.shape == (3,)
    d = weakref.WeakValueDictionary({"x": x})
    del x
    gc.collect()
    assert r() is None and "x" not in d
    g = ca.ones((3,), chunks=2).graph()
    rg = weakref.ref(g)
    del g
    gc.collect()
    assert rg() is None


@pytest.mark.graph_files
def test_delete_copies_from_other_threads():
    x = (ca.from_array(A, chunks=CH) * 2).sum(axis=0)
    copies = [f(x) for _ in range(20) for f in (copy.copy, copy.deepcopy, _pickled)]
    barrier = threading.Barrier(4)

    def drop(part):
        barrier.wait()
        for c in part:
            c.compute()
        part.clear()
        gc.collect()

    parts = [copies[i::4] for i in range(4)]
    del copies
    ts = [threading.Thread(target=drop, args=(p,)) for p in parts]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    np.testing.assert_allclose(x.compute(), (A * 2).sum(axis=0))


class _Cycle:
    def __init__(self, payload):
        self.payload = payload
        self.me = self


def collect_in_kernel(block, ctx_box=None):
    """Runs on a worker thread: garbage holding arrays (and a context) is collected right here."""
    _Cycle(copy.copy(_GLOBAL_ARRAY[0]))
    if ctx_box is not None:
        _Cycle(ctx_box.pop())
    gc.collect()
    return block + 1


_GLOBAL_ARRAY = []


def test_gc_on_a_worker_thread_frees_arrays_and_defers_contexts():
    _GLOBAL_ARRAY[:] = [ca.ones((5,), chunks=2)]
    try:
        x = ca.from_array(np.arange(8.0), chunks=3)
        y = ca.map_blocks(collect_in_kernel, x, dtype=x.dtype)
        np.testing.assert_allclose(y.compute(), np.arange(8.0) + 1)
        ctxs = [ca.Context(num_threads=1) for _ in range(3)]
        z = ca.map_blocks(collect_in_kernel, x, ctx_box=ctxs, dtype=x.dtype)
        del ctxs
        with ca.Context(num_threads=1) as one:  # one kernel at a time: each gc.collect() finds its garbage
            np.testing.assert_allclose(z.compute(ctx=one), np.arange(8.0) + 1)
        assert len(ca.core._deferred_contexts) == 3  # collected inside kernels: not freed there
        gc.collect()
        np.testing.assert_allclose(_GLOBAL_ARRAY[0].compute(), np.ones(5))
        x.sum().compute()  # frees the deferred contexts here, on this thread
        assert not ca.core._deferred_contexts
    finally:
        _GLOBAL_ARRAY.clear()


@pytest.mark.graph_files
def test_graph_copy_and_pickle():
    x = ca.map_blocks(double_plus, (ca.from_array(A, chunks=CH) + 1).sum(axis=0), k=0.5)
    g = x.graph()
    for y in (copy.copy(g), copy.deepcopy(g), _pickled(g)):
        assert isinstance(y, ca.Graph) and y.handle != g.handle
        assert len(y) == len(g) and sorted(y.layers()) == sorted(g.layers())
        assert y.to_dot() == g.to_dot()
    y = copy.copy(g)
    del g
    gc.collect()
    assert len(y) > 0 and "digraph" in y.to_dot()
    with pytest.raises(pickle.PicklingError, match="lambda"):
        pickle.dumps(ca.map_blocks(lambda b: b, x).graph())


@pytest.mark.parametrize("how", [copy.copy, copy.deepcopy, pickle.dumps])
def test_context_refuses_copy_and_pickle(how):
    with ca.Context(num_threads=1) as ctx:
        with pytest.raises(TypeError, match="Context cannot be"):
            how(ctx)
        assert ctx.num_threads == 1  # untouched
    with pytest.raises(TypeError, match="Context cannot be"):
        how(ca.default_context())
    assert ca.ones(3, chunks=2).sum().compute() == 3


def test_errors_pickle():
    with pytest.raises(ca.ChunkArrayError) as ei:
        ca.ones((4,), chunks=2).reshape((3,))
    e = _pickled(ei.value)
    assert type(e) is type(ei.value) and e.status == ei.value.status and str(e) == str(ei.value)
    e = _pickled(ca.KernelError(-5, "boom"))
    assert isinstance(e, RuntimeError) and e.code == "CA_EKERNEL" and e.message == "boom"


def test_kernel_objects_pickle_or_refuse():
    k = ca.core._PyKernel("py.test.k", double_plus, np.float32)
    k2 = _pickled(k)
    assert k2.name == k.name and k2.fn is double_plus and k2.dtype == np.float32
    with pytest.raises(TypeError, match="register_ffi"):
        pickle.dumps(ca.core._FfiKernel("ffi.k", 0, "f64(f64)"))


# -- other processes ---------------------------------------------------------------------------------

def _compute_remote(x):
    return x.compute()


def _reduce_remote(x):
    return float(x.sum().compute())


def _remote_error(x):
    return x.reshape((3,))


def _process_cases():
    x = ca.from_array(A, chunks=CH)
    return [
        (ca.map_blocks(double_plus, x, k=2.0).sum(axis=1), (A * 2 + 2.0).sum(axis=1)),
        (np.cbrt(x[::2]), np.cbrt(A[::2])),
        (ca.reduction(x, np_sum, np_sum, axis=0), A.sum(axis=0)),
        (ca.scan(np.maximum.accumulate, np.maximum, -np.inf, x, axis=1), np.maximum.accumulate(A, 1)),
        ((x @ x.T).persist(), A @ A.T),
        (x[x > 0], A[A > 0]),
    ]


@pytest.mark.graph_files
@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_process_pool_computes_unpickled_arrays(method):
    cases = _process_cases()
    mpctx = multiprocessing.get_context(method)
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=mpctx) as ex:
        results = list(ex.map(_compute_remote, [c[0] for c in cases]))
        total = ex.submit(_reduce_remote, ca.from_array(A, chunks=CH) * 3).result()
        with pytest.raises(ca.InvalidArgumentError, match="reshape"):
            ex.submit(_remote_error, ca.ones((4,), chunks=2)).result()
    for got, (_, ref) in zip(results, cases):
        np.testing.assert_allclose(got, ref, rtol=1e-12)
    assert total == pytest.approx((A * 3).sum())


@pytest.mark.graph_files
def test_multiprocessing_pool_returns_arrays():
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        arrays = pool.map(np.negative, [ca.from_array(A, chunks=CH), ca.ones((3, 2), chunks=1)])
    # the pool sent lazy arrays back: they compute here
    assert all(isinstance(a, ca.Array) for a in arrays)
    np.testing.assert_allclose(arrays[0].compute(), -A)
    np.testing.assert_allclose(arrays[1].compute(), -np.ones((3, 2)))


def _run(code, env=None):
    e = dict(os.environ)
    e.update(env or {})
    e["PYTHONPATH"] = os.pathsep.join([os.path.join(os.path.dirname(__file__), ".."), os.path.dirname(__file__)])
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=e, timeout=300)


@pytest.mark.graph_files
def test_unpickle_in_a_fresh_process(tmp_path):
    x = ca.from_array(A, chunks=CH)
    y = (ca.map_blocks(double_plus, x, k=1.5) + np.cbrt(x)).sum(axis=0)
    p = tmp_path / "y.pkl"
    p.write_bytes(pickle.dumps(y))
    np.save(tmp_path / "ref.npy", (A * 2 + 1.5 + np.cbrt(A)).sum(axis=0))
    r = _run(f"""
        import pickle, numpy as np
        y = pickle.loads(open({str(p)!r}, "rb").read())
        np.testing.assert_allclose(y.compute(), np.load({str(tmp_path / 'ref.npy')!r}), rtol=1e-12)
        print("ok", type(y).__module__)
    """)
    assert r.returncode == 0, r.stderr
    assert "ok chunkarray.core" in r.stdout


@pytest.mark.graph_files
def test_garbage_at_interpreter_exit():
    r = _run("""
        import copy, gc, pickle, threading
        import numpy as np
        import chunkarray as ca
        x = ca.from_array(np.arange(20.0), chunks=3)
        keep = [copy.copy(x), copy.deepcopy(x), pickle.loads(pickle.dumps(x)), x.graph(), copy.copy(x.graph())]
        class C:
            pass
        c = C(); c.self = c; c.arrays = keep; c.ctx = ca.Context(num_threads=1)
        d = C(); d.self = d; d.ctx = ca.Context(num_threads=2); d.x = x * 2
        t = threading.Thread(target=lambda: [copy.copy(x).sum().compute() for _ in range(50)], daemon=True)
        t.start()
        print(float(x.sum().compute()))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "190.0"


def _asan_lib():
    p = os.environ.get("CHUNKARRAY_ASAN_LIB")  # e.g. build-asan/capi/libchunkarray.so (ASan+UBSan build)
    return p if p and os.path.exists(p) else None


@pytest.mark.skipif(_asan_lib() is None, reason="set CHUNKARRAY_ASAN_LIB to a sanitizer build's libchunkarray.so")
def test_handles_under_asan():
    """Copies, pickles and frees from other threads under AddressSanitizer: no use-after-free."""
    runtime = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    ubsan = subprocess.run(["gcc", "-print-file-name=libubsan.so"], capture_output=True, text=True).stdout.strip()
    r = _run("""
        import copy, gc, pickle, threading
        import numpy as np
        import chunkarray as ca
        x = ca.ones((4, 6), chunks=(2, 3))
        y = copy.deepcopy(x); del y; gc.collect()
        assert x.sum().compute() == 24
        a = ca.from_array(np.arange(30.0).reshape(5, 6), chunks=(2, 4))
        for f in (copy.copy, copy.deepcopy, lambda v: pickle.loads(pickle.dumps(v))):
            for v in (a, (a + 1).sum(axis=0), a[1:, ::2], np.cbrt(a), a[a > 3]):
                w = f(v); del v; gc.collect(); w.compute(); del w
        g = a.graph(); h = pickle.loads(pickle.dumps(g)); del g; len(h); del h
        cs = [copy.copy(a) for _ in range(40)]
        ts = [threading.Thread(target=lambda p=cs[i::4]: (p.clear(), gc.collect())) for i in range(4)]
        del cs
        [t.start() for t in ts]; [t.join() for t in ts]
        np.testing.assert_array_equal(a.compute(), np.arange(30.0).reshape(5, 6))
        print("asan-ok")
    """, env={"CHUNKARRAY_LIB": _asan_lib(), "LD_PRELOAD": f"{runtime} {ubsan}",
              "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1", "UBSAN_OPTIONS": "halt_on_error=1"})
    assert r.returncode == 0, r.stderr[-4000:]
    assert "asan-ok" in r.stdout


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_child_does_not_use_the_parents_contexts():
    x = ca.from_array(A, chunks=CH)
    mine = ca.Context(num_threads=2)
    assert float(x.sum().compute(ctx=mine)) == pytest.approx(A.sum())
    assert float(x.sum().compute()) == pytest.approx(A.sum())  # the default context has worker threads now
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: must not wait for the parent's threads
        code = 1
        try:
            ok = abs(float((x * 2).sum().compute()) - 2 * A.sum()) < 1e-9
            try:
                x.sum().compute(ctx=mine)
            except ValueError as e:
                ok = ok and "forked" in str(e)
            else:
                ok = False
            code = 0 if ok else 2
        finally:
            os.write(w, bytes([code]))
            os._exit(0)
    os.close(w)
    got = os.read(r, 1)
    os.waitpid(pid, 0)
    os.close(r)
    assert got == b"\x00"
    assert mine.num_threads == 2  # the parent's context is untouched
    mine.close()
