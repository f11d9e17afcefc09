# Writes golden/index_map_v3_segments.cagraph (index-map layers in the per-block segment form of
# format version 3, as main wrote them before the run form, commit c563231): twelve structural ops
# over ragged chunks, each checked against NumPy here. Usage (from the repository root):
#   CHUNKARRAY_LIB=build/capi/libchunkarray.so.1 /usr/bin/python3 tests/format/golden/make_index_map_v3_segments.py OUT.cagraph EXPECTED_DIR
# (EXPECTED_DIR/<array name>.npy: each array's NumPy result, golden/expected in the tree).
import os, sys, numpy as np
sys.path.insert(0, "bindings/python")
import chunkarray as ca
from chunkarray import core
x0 = (np.arange(11*9).reshape(11, 9) * 1.5 - 20).astype(np.float64)
x = ca.from_array(x0, chunks=((4, 4, 3), (3, 6)))
z0 = np.arange(11*4).reshape(11, 4).astype(np.float64) + 1000
z = ca.from_array(z0, chunks=((5, 6), (1, 3)))
ops = [
  ("flip0", ca.flip(x, 0), np.flip(x0, 0)),
  ("flipall", ca.flip(x), np.flip(x0)),
  ("concat1", ca.concatenate([x, z], axis=1), np.concatenate([x0, z0], axis=1)),
  ("concatxx", ca.concatenate([x, x], axis=0), np.concatenate([x0, x0], axis=0)),
  ("stack1", ca.stack([x, x], axis=1), np.stack([x0, x0], axis=1)),
  ("padconst", ca.pad(x, ((1, 0), (2, 3)), mode="constant", constant_values=7.5), np.pad(x0, ((1, 0), (2, 3)), constant_values=7.5)),
  ("padedge", ca.pad(x, ((1, 0), (2, 3)), mode="edge"), np.pad(x0, ((1, 0), (2, 3)), mode="edge")),
  ("padreflect", ca.pad(x, ((5, 6), (2, 3)), mode="reflect"), np.pad(x0, ((5, 6), (2, 3)), mode="reflect")),
  ("repeat3", ca.repeat(x, 3, axis=1), np.repeat(x0, 3, axis=1)),
  ("repeat5", ca.repeat(x, 5, axis=0), np.repeat(x0, 5, axis=0)),
  ("tile", ca.tile(x, (2, 3)), np.tile(x0, (2, 3))),
  ("flipconcat", ca.flip(ca.concatenate([x, x], axis=0), 0), np.flip(np.concatenate([x0, x0]), 0)),
]
for n, a, w in ops:
    got = np.asarray(a.compute())
    assert got.shape == w.shape and np.array_equal(got, w), n
data = core.save_file(arrays=[a._h if hasattr(a, "_h") else a.handle for _, a, _ in ops])
open(sys.argv[1], "wb").write(data)
for _, a, w in ops:
    np.save(os.path.join(sys.argv[2], a.name + ".npy"), w)
print(len(data), [n for n, _, _ in ops])
