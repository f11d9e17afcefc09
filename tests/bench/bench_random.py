#!/usr/bin/env python3
"""Random draws per element: chunkarray.random (one worker thread) against numpy.random.default_rng
(PCG64, single thread), side by side in one invocation.

    CHUNKARRAY_LIB=build/capi/libchunkarray.so.1 /usr/bin/python3 tests/bench/bench_random.py [--n N] [--reps R]

Each case draws N float64 values: NumPy as one call, chunkarray as one array of 8 blocks computed
by a Context of one thread. Both figures are the best of R runs (alternating sides, after a warm-up)
in CPU time of the process (time.process_time), and printed as ns per element with ratio = NumPy
time / chunkarray time (above 1: chunkarray is faster). The machine may be shared: the load
average is printed; compare ratios, not absolute times.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings", "python"))
import chunkarray as ca  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=4_000_000)
    p.add_argument("--reps", type=int, default=3)
    args = p.parse_args()
    n = args.n
    ctx = ca.Context(num_threads=1)
    rng = np.random.default_rng(0)
    cases = [
        ("gamma(2.5)", lambda r, **k: r.gamma(2.5, size=n, **k)),
        ("gamma(0.5)", lambda r, **k: r.gamma(0.5, size=n, **k)),
        ("beta(2, 3)", lambda r, **k: r.beta(2.0, 3.0, size=n, **k)),
        ("standard_normal", lambda r, **k: r.standard_normal(size=n, **k)),
        ("exponential", lambda r, **k: r.exponential(1.0, size=n, **k)),
        ("gamma(shape array 2.5, size n)", None),
    ]
    shape_arr = np.full(n, 2.5)
    print(f"n = {n}; load average {os.getloadavg()[0]:.2f}; best of {args.reps}; CPU time, one thread each")
    print()
    print("| draw | NumPy Generator (ns/elem) | chunkarray, 1 thread (ns/elem) | ratio |")
    print("|---|---:|---:|---:|")
    for label, f in cases:
        if f is None:
            def fn(): return rng.gamma(shape_arr)
            def fc(): return ca.random.default_rng(1).gamma(shape_arr, chunks=n // 8).compute(ctx=ctx)
        else:
            def fn(): return f(rng)
            def fc(): return f(ca.random.default_rng(1), chunks=n // 8).compute(ctx=ctx)
        fn(), fc()
        tn, tc = [], []
        for _ in range(args.reps):
            t0 = time.process_time()
            fn()
            tn.append(time.process_time() - t0)
            t0 = time.process_time()
            fc()
            tc.append(time.process_time() - t0)
        a, b = min(tn), min(tc)
        print(f"| {label} | {a / n * 1e9:.1f} | {b / n * 1e9:.1f} | {a / b:.2f} |", flush=True)


if __name__ == "__main__":
    main()
