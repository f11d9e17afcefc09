"""Build and save flip(concatenate([x, x])) of a 1-d array of N one-element blocks, in a fresh
process per measurement: seconds to build, seconds to save (ca_save to bytes), file bytes and peak
RSS growth (after the build, after the save). Run it with two libraries alternating in one invocation (docs/benchmarks.md,
"Index-map layers as runs"), e.g.

    for i in 1 2; do for lib in OLD/libchunkarray.so.1 build/capi/libchunkarray.so.1; do
      CHUNKARRAY_LIB=$lib /usr/bin/python3 tests/bench/bench_index_map_runs.py 1000000; done; done
"""
import os
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings", "python"))
import chunkarray as ca  # noqa: E402
from chunkarray import core  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
x = ca.ones((N,), chunks=1)
r0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
y = ca.flip(ca.concatenate([x, x]), 0)
t1 = time.perf_counter()
rm = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
data = core.save_file(arrays=[y.handle])
t2 = time.perf_counter()
r1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
assert len(data) > 0 and y.shape == (2 * N,)
print(f"{os.environ.get('CHUNKARRAY_LIB', 'libchunkarray.so.1')}: build {t1 - t0:.3f} s, save {t2 - t1:.3f} s, "
      f"{len(data)} bytes, peak RSS +{(rm - r0) / 1024:.0f} MB after the build, +{(r1 - r0) / 1024:.0f} MB after the save")
