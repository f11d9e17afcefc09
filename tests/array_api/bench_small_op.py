#!/usr/bin/env python3
"""Per-operation cost on a tiny array (docs/benchmarks.md, "Small operations"): one element-wise add
on a 10-element float64 array plus getting its value as an ndarray, in numpy.array_api,
chunkarray.array_api, chunkarray's main module and dask.array. Best of 30 repeats of N calls each (N/10
for dask): the minimum is the cost without the noise of other processes on the machine.

Usage: bench_small_op.py [N]   (CHUNKARRAY_LIB and PYTHONPATH=bindings/python as for the tests)
"""
import sys
import timeit
import warnings

import numpy as np


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
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
        ("numpy.array_api: np.asarray(x + 1.0)", lambda: np.asarray(xn + 1.0)),
        ("chunkarray.array_api: np.asarray(x + 1.0)", lambda: np.asarray(xc + 1.0)),
        ("chunkarray: (x + 1.0).compute()", lambda: (xm + 1.0).compute()),
        ("dask.array: (x + 1.0).compute(scheduler='sync')",
         lambda: (xd + 1.0).compute(scheduler="sync")),
        ("dask.array: (x + 1.0).compute() (threads)", lambda: (xd + 1.0).compute()),
    ]
    base = None
    print(f"| operation | per call | × numpy.array_api |\n|---|---|---|")
    for name, f in cases:
        f()
        reps = n if "dask" not in name else max(10, n // 10)
        t = min(timeit.repeat(f, number=reps, repeat=30)) / reps
        base = base or t
        print(f"| {name} | {t * 1e6:.1f} µs | {t / base:.1f}× |")
    del dask


if __name__ == "__main__":
    main()
