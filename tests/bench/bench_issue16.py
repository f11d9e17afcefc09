#!/usr/bin/python3
"""Issue 16's benchmarks: median(axis=0), unique, histogram, einsum('ij,jk->ik') and bincount,
chunkarray (through its Python binding; the work runs in the library: histogram in
ca_array_histogramdd, bincount in ca_array_bincount) side by side with dask.array, in one
invocation on the same machine, 2 threads both sides (chunkarray: Context(num_threads=T); dask:
scheduler='threads', num_workers=T). Inputs are generated once by NumPy and handed to both with
from_array (outside the timing). Each result is checked against the other side's.

Prints a markdown table: median of --reps seconds (min-max) and the ratio dask / chunkarray
(above 1: chunkarray is faster; the issue's target is >= 1.5), and the load average before and after.

Usage: CHUNKARRAY_LIB=build/capi/libchunkarray.so bench_issue16.py [--reps 3] [--threads 2] [--scale 1]
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
    times, r = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        r = fn()
        times.append(time.perf_counter() - t0)
    return r, times


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--scale", type=float, default=1.0)
    args = p.parse_args()
    import dask
    import dask.array as da

    s = args.scale
    rng = np.random.default_rng(16)
    ctx = ca.Context(num_threads=args.threads)
    load0 = os.getloadavg()[0]
    n = int(4000 * s ** 0.5)
    m = rng.random((n, n))
    ints = rng.integers(0, 1000, size=int(10_000_000 * s))
    flt = rng.random(int(10_000_000 * s))
    k = int(1500 * s ** (1 / 3))
    a, b = rng.random((k, k)), rng.random((k, k))
    cm, dm = ca.from_array(m, chunks=(1000, 1000)), da.from_array(m, chunks=(1000, 1000))
    ci, di = ca.from_array(ints, chunks=1_000_000), da.from_array(ints, chunks=1_000_000)
    cf, df = ca.from_array(flt, chunks=1_000_000), da.from_array(flt, chunks=1_000_000)
    ca_, cb = ca.from_array(a, chunks=500), ca.from_array(b, chunks=500)
    da_, db = da.from_array(a, chunks=500), da.from_array(b, chunks=500)
    work = [
        (f"`median(x, axis=0)`, x ({n}, {n}) float64, chunks 1000²",
         lambda: ca.median(cm, axis=0).compute(ctx), lambda: da.median(dm, axis=0).compute()),
        (f"`unique(x)`, {ints.size:,} int64 in [0, 1000), chunks 1e6",
         lambda: ca.unique(ci).compute(ctx), lambda: da.unique(di).compute()),
        (f"`histogram(x, bins=100, range=(0, 1))`, {flt.size:,} float64, chunks 1e6",
         lambda: ca.histogram(cf, bins=100, range=(0, 1))[0].compute(ctx),
         lambda: da.histogram(df, bins=100, range=(0, 1))[0].compute()),
        (f"`einsum('ij,jk->ik')`, ({k}, {k}) float64 each, chunks 500²",
         lambda: ca.einsum("ij,jk->ik", ca_, cb).compute(ctx), lambda: da.einsum("ij,jk->ik", da_, db).compute()),
        (f"`bincount(x, minlength=1000)`, {ints.size:,} int64, chunks 1e6",
         lambda: ca.bincount(ci, minlength=1000).compute(ctx), lambda: da.bincount(di, minlength=1000).compute()),
    ]
    rows = []
    with dask.config.set(scheduler="threads", num_workers=args.threads):
        for name, cfn, dfn in work:
            cfn(), dfn()  # warm up
            cr, ct = timeit(cfn, args.reps)
            dr, dt = timeit(dfn, args.reps)
            if not np.allclose(np.asarray(cr), np.asarray(dr), rtol=1e-9, atol=1e-9):
                sys.exit(f"{name}: chunkarray and dask differ")
            ratio = statistics.median(dt) / statistics.median(ct)
            rows.append(f"| {name} | {statistics.median(dt):.3f} ({min(dt):.3f}–{max(dt):.3f}) | "
                        f"{statistics.median(ct):.3f} ({min(ct):.3f}–{max(ct):.3f}) | **{ratio:.2f}×** "
                        f"{'(meets 1.5×)' if ratio >= 1.5 else '(below 1.5×)'} |")
    print(f"\nissue 16, {args.threads} threads both sides, median of {args.reps} s (min–max), "
          f"load average {load0:.2f} → {os.getloadavg()[0]:.2f}\n")
    print("| workload | dask s | chunkarray s | ratio (dask / chunkarray) |")
    print("|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
