#!/usr/bin/python3
"""W7 of /work/shared/WORKLOADS.md with dask.array (Debian's python3-dask), the dask side of
tests/bench/bench_anomaly.c:

    x = da.random.random((40000, 10000), chunks=(1000, 10000))    # 3.2 GB float64
    y = x - x.mean(axis=0)
    y.std(axis=0).compute(scheduler='threads', num_workers=N)

Prints one JSON line per compute with the time and the process's peak RSS so far (getrusage), and
checks the result (std of uniform [0, 1) is 1/sqrt(12) within 7 standard errors per column).

Usage: dask_anomaly.py [--computes N] [--workers N] [--rows R]
"""
import argparse
import json
import os
import resource
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--computes", type=int, default=1)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--rows", type=int, default=40000)
    args = ap.parse_args()
    import dask.array as da
    import numpy as np

    for _ in range(args.computes):
        t0 = time.perf_counter()
        x = da.random.random((args.rows, 10000), chunks=(1000, 10000))
        y = x - x.mean(axis=0)
        s = y.std(axis=0).compute(scheduler="threads", num_workers=args.workers)
        t = time.perf_counter() - t0
        # the sample std's standard error is sigma * sqrt(0.8 / (4 n)) (uniform: kurtosis 1.8); 7 of
        # them per column, as bench_anomaly.c (dask draws a new seed each run: a fixed 1 % bound, 4.5
        # errors at 40,000 rows, failed about one run in 15 over 10,000 columns)
        want = 1 / np.sqrt(12)
        tol = 7 * want * np.sqrt(0.8 / (4 * args.rows))
        if not np.all(np.abs(s - want) < tol):
            bad = int(np.argmax(np.abs(s - want)))
            print(f"dask_anomaly: FAILED: wrong std[{bad}] = {s[bad]:.6f}, expected {want:.6f} within {tol:.6f}",
                  file=sys.stderr)
            return 1
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        print(json.dumps({"bench": "dask_w7", "workers": args.workers, "rows": args.rows, "seconds": t,
                          "peak_rss_bytes": rss}), flush=True)
        print(f"dask W7: {t:.3f} s, peak RSS {rss / 2**20:.1f} MB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
