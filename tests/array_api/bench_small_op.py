#!/usr/bin/env python3
"""Per-operation cost on a tiny array (docs/benchmarks.md, "Small operations"): one element-wise add
on a 10-element float64 array plus getting its value as an ndarray, in numpy.array_api,
chunkarray.array_api, chunkarray's main module and dask.array.

The cases run alternately in one process (round after round: every case once per round, N calls
each, N/10 for dask), so a busy machine slows them alike; the table gives each case's median and best
round and the ratio of medians to numpy.array_api's, which is the figure that counts.

Usage: bench_small_op.py [N] [ROUNDS]   (CHUNKARRAY_LIB and PYTHONPATH=bindings/python as for the tests)
"""
import statistics
import sys
import timeit
import warnings

import numpy as np


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 41
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        import numpy.array_api as npx
    import chunkarray as ca
    import chunkarray.array_api as cax
    import dask
    import dask.array as da
    v = np.arange(10.0)
    xn, xc, xm = npx.asarray(v), cax.asarray(v), ca.from_array(v, chunks=-1)
    xd = da.from_array(v, chunks=-1)
    cases = [
        ("`numpy.array_api`: `np.asarray(x + 1.0)`", lambda: np.asarray(xn + 1.0)),
        ("`chunkarray.array_api`: `np.asarray(x + 1.0)`", lambda: np.asarray(xc + 1.0)),
        ("`chunkarray` (main module): `(x + 1.0).compute()`", lambda: (xm + 1.0).compute()),
        ("`dask.array`: `(x + 1.0).compute(scheduler='sync')`",
         lambda: (xd + 1.0).compute(scheduler="sync")),
        ("`dask.array`: `(x + 1.0).compute()` (threads)", lambda: (xd + 1.0).compute()),
    ]
    times = {name: [] for name, _ in cases}
    for _, f in cases:
        f()
    for _ in range(rounds):
        for name, f in cases:
            reps = n if "dask" not in name else max(5, n // 20)
            times[name].append(timeit.timeit(f, number=reps) / reps)
    base = statistics.median(times[cases[0][0]])
    print(f"{rounds} alternating rounds of {n} calls ({max(5, n // 20)} for dask)\n")
    print("| operation | median per call | best round | × numpy.array_api (medians) |\n|---|---|---|---|")
    for name, _ in cases:
        med = statistics.median(times[name])
        print(f"| {name} | {med * 1e6:.1f} µs | {min(times[name]) * 1e6:.1f} µs | {med / base:.2f}× |")
    del dask


if __name__ == "__main__":
    main()
