#!/usr/bin/python3
"""W6 of WORKLOADS.md with dask.array (threaded scheduler), the counterpart of bench_rechunk.c:

  gen: da.random.random((N, N), chunks=(N, N/100)).rechunk((N/100, N)).sum()
  mem: the same over a NumPy array held in memory (da.from_array), x[i, j] = (i*N + j) % 1000 / 8

Prints one JSON line like bench_rechunk: seconds, peak_rss (getrusage maximum resident set size),
base_rss (resident set just before the compute), stages (len of dask's plan_rechunk).
Usage: dask_rechunk.py [--variant gen|mem] [--n N] [--workers W]
"""
import argparse
import json
import resource
import time

import dask
import dask.array as da
import numpy as np
from dask.array.rechunk import plan_rechunk


def rss_now():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--variant", default="gen", choices=["gen", "mem"])
    p.add_argument("--n", type=int, default=16000)
    p.add_argument("--workers", type=int, default=2)
    a = p.parse_args()
    n, w = a.n, a.n // 100
    expect = None
    if a.variant == "mem":
        buf = np.empty((n, n))
        step = max(1, (1 << 24) // n)
        for i in range(0, n, step):
            rows = min(step, n - i)
            buf[i:i + rows] = ((np.arange(i * n, (i + rows) * n) % 1000) / 8.0).reshape(rows, n)
        expect = float(buf.sum())
        x = da.from_array(buf, chunks=(n, w))
    else:
        x = da.random.random((n, n), chunks=(n, w))
    stages = len(plan_rechunk(x.chunks, ((w,) * 100, (n,)), 8))
    base = rss_now()
    with dask.config.set(scheduler="threads", num_workers=a.workers):
        t0 = time.perf_counter()
        s = float(x.rechunk((w, n)).sum().compute())
        t1 = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    ok = (s == expect) if expect is not None else abs(s / (n * n) - 0.5) < 0.01
    print(json.dumps({"bench": "w6_" + a.variant, "n": n, "threads": a.workers, "seconds": round(t1 - t0, 4),
                      "peak_rss": peak, "base_rss": base, "stages": stages, "sum": s, "ok": ok}))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
