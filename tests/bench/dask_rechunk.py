#!/usr/bin/python3
"""W6 of WORKLOADS.md with dask.array (threaded scheduler), the counterpart of bench_rechunk.c:

  gen: da.random.random((N, N), chunks=(N, N/100)).rechunk((N/100, N)).sum()
  mem: the same over the random array persisted first (x.persist())

Prints one JSON line like bench_rechunk: seconds, peak_rss (getrusage maximum resident set size),
base_rss (resident set just before the compute), cpu_seconds (user + system time of the process
during the compute), stages (len of dask's plan_rechunk).
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
    x = da.random.random((n, n), chunks=(n, w))
    if a.variant == "mem":
        with dask.config.set(scheduler="threads", num_workers=a.workers):
            x = x.persist()
            expect = float(x.sum().compute())
    stages = len(plan_rechunk(x.chunks, ((w,) * 100, (n,)), 8))
    base = rss_now()
    with dask.config.set(scheduler="threads", num_workers=a.workers):
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        s = float(x.rechunk((w, n)).sum().compute())
        t1 = time.perf_counter()
        r1 = resource.getrusage(resource.RUSAGE_SELF)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    ok = (abs(s - expect) <= 1e-9 * abs(expect)) if expect is not None else abs(s / (n * n) - 0.5) < 0.01
    print(json.dumps({"bench": "w6_" + a.variant, "n": n, "threads": a.workers, "seconds": round(t1 - t0, 4),
                      "peak_rss": peak, "base_rss": base, "stages": stages, "cpu_seconds": round(cpu, 4), "sum": s, "ok": ok}))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
