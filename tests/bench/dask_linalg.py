#!/usr/bin/python3
"""W5 of WORKLOADS.md on dask.array: x @ x.T, x 4000 x 4000 float64, chunks 1000 (threaded scheduler).

x is persisted first (random generation is not timed); each timed compute is (x @ x.T).compute().
Also x @ y for information, and the whole-matrix NumPy products (one OpenBLAS dgemm for x @ y, one
dsyrk for x @ x.T, OpenBLAS on --workers threads) as the physical reference. Prints one JSON object per
line:
  {"bench": "dask_w5_xxt", "workers": 2, "n": 4000, "chunk": 1000, "best_s": ..., "median_s": ..., "gflops": ...}

Usage: dask_linalg.py [--n 4000] [--chunk 1000] [--reps 3] [--workers 2]
"""
import argparse
import json
import statistics
import sys
import time

import dask
import dask.array as da
import numpy as np


def timed(expr, reps, workers):
    expr.compute(scheduler="threads", num_workers=workers)  # warm-up
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        r = expr.compute(scheduler="threads", num_workers=workers)
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times), r


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=4000)
    p.add_argument("--chunk", type=int, default=1000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--workers", type=int, default=2)
    a = p.parse_args()
    with dask.config.set(scheduler="threads", num_workers=a.workers):
        x = da.random.random((a.n, a.n), chunks=a.chunk).persist()
        y = da.random.random((a.n, a.n), chunks=a.chunk).persist()
        flops = 2.0 * a.n ** 3
        for name, expr in (("dask_w5_xxt", x @ x.T), ("dask_w5_matmul", x @ y)):
            best, med, r = timed(expr, a.reps, a.workers)
            if name == "dask_w5_xxt":
                xn = x.compute()
                i, j = 17 % a.n, 123 % a.n
                ref = float(np.dot(xn[i], xn[j]))
                if abs(r[i, j] - ref) > 1e-9 * abs(ref):
                    print("dask_linalg.py: wrong result", file=sys.stderr)
                    return 1
            print(json.dumps({"bench": name, "workers": a.workers, "n": a.n, "chunk": a.chunk, "best_s": best,
                              "median_s": med, "gflops": flops / best * 1e-9}), flush=True)
            print(f"dask {name}: best {best:.3f} s ({flops / best * 1e-9:.1f} GFLOP/s), median {med:.3f} s",
                  file=sys.stderr)
        # The physical reference of WORKLOADS.md: one whole-matrix OpenBLAS call on the same cores
        # (x @ y is one dgemm; NumPy's x @ x.T is one dsyrk, half the multiplications).
        xn, yn = x.compute(), y.compute()
        for name, f in (("numpy_dgemm", lambda: xn @ yn), ("numpy_xxt", lambda: xn @ xn.T)):
            f()
            times = []
            for _ in range(a.reps):
                t0 = time.perf_counter()
                f()
                times.append(time.perf_counter() - t0)
            best = min(times)
            print(json.dumps({"bench": name, "workers": a.workers, "n": a.n, "best_s": best,
                              "median_s": statistics.median(times), "gflops": flops / best * 1e-9}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
