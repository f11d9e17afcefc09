"""Anonymous Python kernels (functions given to map_blocks, ...) are dropped once no live array or
graph calls them: a loop of map_blocks calls does not grow the registry without bound."""
import gc

import numpy as np

import chunkarray as ca
from chunkarray import core


def _anon_count():
    return len(core._anon_kernels)


def test_anonymous_kernels_are_pruned_and_used_ones_kept():
    a = np.arange(12.0).reshape(3, 4)
    x = ca.from_array(a, chunks=2)
    keep = x.map_blocks(lambda b: b + 1.0)                      # alive: its kernel must survive
    derived = ca.concatenate([x.map_blocks(lambda b: b * 3.0)] * 2, axis=0)  # only the native graph refers to it
    gc.collect()
    before = _anon_count()
    for i in range(400):
        y = x.map_blocks(lambda b, i=i: b - i)
        if i % 97 == 0:
            np.testing.assert_array_equal(y.compute(), a - i)   # registered into the default context too
        del y
    gc.collect()
    assert _anon_count() <= max(2 * (before + 2), 64) * 2, _anon_count()
    np.testing.assert_array_equal(keep.compute(), a + 1.0)
    np.testing.assert_array_equal(derived.compute(), np.concatenate([a * 3.0] * 2))
    # the pruned kernels are gone from the native registry too: computing after more pruning still works
    for i in range(300):
        x.map_blocks(lambda b: b)
    gc.collect()
    np.testing.assert_array_equal(derived.compute(), np.concatenate([a * 3.0] * 2))
    assert keep.name and _anon_count() < 300


def test_graph_objects_keep_their_kernels():
    x = ca.from_array(np.ones(4), chunks=2)
    y = x.map_blocks(lambda b: b * 5)
    g = y.graph()
    used = {n for n in core._graph_kernel_names(g.handle) if n.startswith("py.")}
    assert len(used) == 1
    del y
    for i in range(300):
        x.map_blocks(lambda b: b)
    gc.collect()
    assert used <= core._anon_kernels  # the Graph object still calls it
    del g
    for i in range(600):
        x.map_blocks(lambda b: b)
    gc.collect()
    assert not (used & core._anon_kernels)
