#!/usr/bin/env python3
"""FFT throughput: chunkarray.fft (one worker thread) against numpy.fft (pocketfft), side by side.

    CHUNKARRAY_LIB=build/capi/libchunkarray.so.1 /usr/bin/python3 tests/bench/bench_fft.py [--reps N]

Each case transforms one array that is a single block (so chunkarray runs one task on one thread, as
NumPy runs on one); both figures are the best of N runs after a warm-up, in CPU time of the process
(time.process_time: every thread, so chunkarray's scheduling is counted; robust to the shared machine's
load, which wall time is not), and the result is checked against NumPy's. Prints a Markdown table: ratio = NumPy time / chunkarray time (above 1: faster).
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings", "python"))
import chunkarray as ca  # noqa: E402


def best(f, reps):
    f()
    t = []
    for _ in range(reps):
        t0 = time.process_time()
        f()
        t.append(time.process_time() - t0)
    return min(t)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=3)
    args = p.parse_args()
    ctx = ca.Context(num_threads=1)
    rng = np.random.default_rng(0)
    cases = [
        ("fft, 512 rows x 4096 (complex128)", (512, 4096), True, "fft", {}),
        ("rfft, 512 rows x 4096 (float64)", (512, 4096), False, "rfft", {}),
        ("fft, 256 rows x 4099 (prime, complex128)", (256, 4099), True, "fft", {}),
        ("rfft, 256 rows x 4099 (prime, float64)", (256, 4099), False, "rfft", {}),
        ("fft2, 2048 x 2048 (complex128)", (2048, 2048), True, "fft2", {}),
        ("rfft2, 2048 x 2048 (float64)", (2048, 2048), False, "rfft2", {}),
    ]
    print(f"backend: {ca.fft.backend()}; load average {os.getloadavg()[0]:.2f}; best of {args.reps}")
    print()
    print("| transform | NumPy (pocketfft) | chunkarray, 1 thread | ratio |")
    print("|---|---:|---:|---:|")
    for label, shape, cplx, name, kw in cases:
        x = rng.standard_normal(shape)
        if cplx:
            x = x + 1j * rng.standard_normal(shape)
        a = ca.from_array(x, chunks=-1)
        nf, cf = getattr(np.fft, name), getattr(ca.fft, name)
        want = nf(x, **kw)
        got = cf(a, **kw).compute(ctx=ctx)
        err = np.max(np.abs(got - want)) / np.max(np.abs(want))
        assert err < 1e-10, (label, err)
        tn = best(lambda: nf(x, **kw), args.reps)
        tc = best(lambda: cf(a, **kw).compute(ctx=ctx), args.reps)
        print(f"| {label} | {tn * 1e3:.1f} ms | {tc * 1e3:.1f} ms | {tn / tc:.2f} |", flush=True)
    # What any single-block result of that size costs chunkarray besides the kernel (allocating the
    # block, copying it into the NumPy result): a trivial elementwise op over the same arrays.
    print()
    for label, shape, cplx in (("512 x 4096 complex128", (512, 4096), True), ("2048 x 2048 complex128", (2048, 2048), True)):
        x = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if cplx else 0)
        a = ca.from_array(x, chunks=-1)
        tb = best(lambda: (a * 1).compute(ctx=ctx), args.reps)
        tnb = best(lambda: x * 1, args.reps)
        print(f"baseline `(a * 1).compute()` of {label}: chunkarray {tb * 1e3:.1f} ms, NumPy `x * 1` {tnb * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
