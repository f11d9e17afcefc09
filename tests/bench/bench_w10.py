#!/usr/bin/python3
"""W10 of /work/shared/WORKLOADS.md: `(x + x.T).sum()`, x 8192² float64 in memory, chunks 1024², 2
threads both sides: chunkarray (through its Python binding) side by side with dask.array, in one
invocation on the same machine.

x = uniform [0, 1), generated once by NumPy and handed to both (from_array, outside the timing).
chunkarray: Context(num_threads=T), one compute per rep; dask: scheduler='threads', num_workers=T.
The two results are checked against each other (relative 1e-9) and against NumPy's.

Prints a markdown row (median of --reps, with min/max) and the load average before and after.
Timing is noisy on a shared machine: run it when `uptime` shows a low load.

Usage: CHUNKARRAY_LIB=build/capi/libchunkarray.so bench_w10.py [--reps 5] [--threads 2] [--n 8192]
           [--chunk 1024]
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "bindings", "python"))
import chunkarray as ca  # noqa: E402


def timeit(fn, reps):
    out, times = None, []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, times


def loadavg():
    return "/".join(f"{v:.2f}" for v in os.getloadavg())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--n", type=int, default=8192)
    p.add_argument("--chunk", type=int, default=1024)
    args = p.parse_args()
    import dask
    import dask.array as da

    print(f"load average before: {loadavg()}")
    x = np.random.default_rng(10).uniform(0, 1, size=(args.n, args.n))
    cx = ca.from_array(x, chunks=(args.chunk, args.chunk))
    dx = da.from_array(x, chunks=(args.chunk, args.chunk))
    ctx = ca.Context(num_threads=args.threads)
    cfn = lambda: float((cx + cx.T).sum().compute(ctx))  # noqa: E731
    dfn = lambda: float((dx + dx.T).sum().compute())  # noqa: E731
    with dask.config.set(scheduler="threads", num_workers=args.threads):
        cfn(), dfn()  # warm up
        cr, ct = timeit(cfn, args.reps)
        dr, dt = timeit(dfn, args.reps)
    want = float(2 * x.sum())
    assert abs(cr - dr) <= 1e-9 * abs(dr), (cr, dr)
    assert abs(cr - want) <= 1e-9 * abs(want), (cr, want)
    cm, dm = statistics.median(ct), statistics.median(dt)
    print(f"load average after: {loadavg()}")
    print()
    print("| workload | dask | chunkarray | ratio (dask / chunkarray) | min/max dask | min/max chunkarray |")
    print("|---|---|---|---|---|---|")
    print(f"| `(x + x.T).sum()`, x {args.n}² float64, chunks {args.chunk}², {args.threads} threads "
          f"| {dm:.3f} s | {cm:.3f} s | {dm / cm:.2f}× | {min(dt):.3f}/{max(dt):.3f} "
          f"| {min(ct):.3f}/{max(ct):.3f} |")


if __name__ == "__main__":
    main()
