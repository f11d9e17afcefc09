#!/usr/bin/python3
"""W9 of /work/shared/WORKLOADS.md: transcendental ufuncs, chunkarray (through its Python binding:
the fused interpreter's SLEEF vector math, src/array/vecmath.hpp) side by side with dask.array and
NumPy, in one invocation on the same machine.

Part 1, W9 (2 threads both sides, x = 8192² float64 in memory, chunks 1024²):
    (sin(x)**2 + cos(x)**2).sum()     and     exp(x).sum()
    chunkarray: Context(num_threads=T), one compute per rep; dask: scheduler='threads', num_workers=T.
    x = random [0, 1) as W6/W7's `random` (and, with --wide, also uniform(-100, 100), where sin/cos
    take their slower range reduction on both sides), generated once by NumPy and handed to both
    (from_array, outside the timing).
    Results are checked against each other (relative 1e-9).
Part 2, per function, single thread: chunkarray (Context(num_threads=1), f(x) of a 1-D array of N
    elements in chunks of N/8 computed into a preallocated array: ca_array_compute_into, what
    Array.compute does after np.empty) against NumPy's f(x, out=preallocated) on the same x, float64
    and float32; throughput in million elements per second. Both write into memory already touched:
    fresh result allocations would time the kernel's page faults instead (on this machine a fresh
    32 MB result costs more than exp itself). Inputs in each function's domain; results checked
    against NumPy (relative 1e-5 float32, 1e-12 float64).

Prints markdown tables (median of --reps, and the min/max) and the load average before and after.
Timing is noisy on a shared machine: run it with `nice -n -5` or when `uptime` shows a low load.

Usage: CHUNKARRAY_LIB=build/capi/libchunkarray.so bench_w9.py [--reps 5] [--threads 2] [--n 8192]
           [--chunk 1024] [--fn-size 4194304] [--only w9|fn] [--wide]
           [--fns exp2,log10] [--dtype both|float64|float32]
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


def fmt(times):
    return f"{statistics.median(times):.3f}"


def loadavg():
    return "/".join(f"{v:.2f}" for v in os.getloadavg())


def w9(args):
    import dask
    import dask.array as da

    rng = np.random.default_rng(9)
    ctx = ca.Context(num_threads=args.threads)
    rows = []
    for lo, hi in [(0, 1)] + ([(-100, 100)] if args.wide else []):
      x = rng.uniform(lo, hi, size=(args.n, args.n))
      cx = ca.from_array(x, chunks=(args.chunk, args.chunk))
      dx = da.from_array(x, chunks=(args.chunk, args.chunk))
      rng_s = "[0, 1)" if lo == 0 else f"[{lo}, {hi})"
      work = [
        (f"`(sin(x)**2 + cos(x)**2).sum()`, x in {rng_s}",
         lambda: (ca.sin(cx) ** 2 + ca.cos(cx) ** 2).sum().compute(ctx),
         lambda: (da.sin(dx) ** 2 + da.cos(dx) ** 2).sum().compute()),
        (f"`exp(x).sum()`, x in {rng_s}", lambda: ca.exp(cx).sum().compute(ctx), lambda: da.exp(dx).sum().compute()),
      ]
      with dask.config.set(scheduler="threads", num_workers=args.threads):
        for name, cfn, dfn in work:
          cfn(), dfn()  # warm up (thread pools, page faults of the result paths)
          cr, ct = timeit(cfn, args.reps)
          dr, dt = timeit(dfn, args.reps)
          if not np.isclose(float(cr), float(dr), rtol=1e-9):
              sys.exit(f"W9 {name}: chunkarray {float(cr)!r} != dask {float(dr)!r}")
          ratio = statistics.median(dt) / statistics.median(ct)
          rows.append(f"| {name} | {fmt(dt)} ({min(dt):.3f}–{max(dt):.3f}) | {fmt(ct)} ({min(ct):.3f}–{max(ct):.3f}) "
                      f"| **{ratio:.2f}×** |")
    print(f"\nW9, x {args.n}² float64, chunks {args.chunk}², {args.threads} threads both sides, "
          f"median of {args.reps} s (min–max)\n")
    print("| workload | dask s | chunkarray s | ratio (dask / chunkarray) |")
    print("|---|---|---|---|")
    print("\n".join(rows))


UNARY = [  # name, domain
    ("sin", (-100, 100)), ("cos", (-100, 100)), ("tan", (-1.5, 1.5)), ("arcsin", (-1, 1)),
    ("arccos", (-1, 1)), ("arctan", (-10, 10)), ("sinh", (-10, 10)), ("cosh", (-10, 10)),
    ("tanh", (-10, 10)), ("arcsinh", (-100, 100)), ("arccosh", (1, 100)), ("arctanh", (-0.99, 0.99)),
    ("exp", (-50, 50)), ("expm1", (-5, 5)), ("log", (0.001, 1000)), ("log2", (0.001, 1000)),
    ("log10", (0.001, 1000)), ("log1p", (-0.5, 1000)), ("sqrt", (0, 1000)), ("exp2", (-50, 50)),
    ("cbrt", (-100, 100)),
]
BINARY = [("power", (0.01, 10), (-5, 5)), ("arctan2", (-10, 10), (-10, 10)), ("hypot", (-10, 10), (-10, 10))]


def compute_into(ctx, a, out):
    from chunkarray import core
    from chunkarray._lib import lib
    opts, keep = core._compute_options(None)
    core._check(lib().ca_array_compute_into(ctx.handle, a._h, out.ctypes.data, out.nbytes, opts))
    del keep
    return out


def per_function(args):
    ctx = ca.Context(num_threads=1)
    rng = np.random.default_rng(1)
    n, chunk = args.fn_size, args.fn_size // 8
    print(f"\nPer function, single thread: {n} elements (chunks of {chunk}), million elements/s, "
          f"median of {args.reps}, NumPy and chunkarray alternating (f(x) into a preallocated array on both "
          f"sides); ratio = chunkarray / NumPy throughput, of the medians and of the fastest reps\n")
    print("| function | NumPy f64 | chunkarray f64 | ratio | ratio of bests | NumPy f32 | chunkarray f32 | ratio "
          "| ratio of bests |")
    print("|---|---|---|---|---|---|---|---|---|")
    cases = [(name, [dom]) for name, dom in UNARY] + [(name, [d1, d2]) for name, d1, d2 in BINARY]
    if args.fns:
        want = args.fns.split(",")
        cases = [c for c in cases if c[0] in want]
    dtypes = {"both": (np.float64, np.float32), "float64": (np.float64,), "float32": (np.float32,)}[args.dtype]
    worst = []
    for name, doms in cases:
        cells = []
        for dt in (np.float64, np.float32):
            if dt not in dtypes:
                cells += ["", "", "", ""]
                continue
            xs = [rng.uniform(lo, hi, size=n).astype(dt) for lo, hi in doms]
            cxs = [ca.from_array(v, chunks=chunk) for v in xs]
            nf, cf = getattr(np, name), getattr(ca, name)
            nout, cout = np.empty(n, dt), np.empty(n, dt)
            expr = cf(*cxs)
            nfn = lambda: nf(*xs, out=nout)  # noqa: E731
            cfn = lambda: compute_into(ctx, expr, cout)  # noqa: E731
            nfn(), cfn()
            nt, ct = [], []
            for _ in range(args.reps):  # alternating, so both sides see the same machine load
                nt += timeit(nfn, 1)[1]
                ct += timeit(cfn, 1)[1]
            nr, cr = nout, cout
            rtol = 1e-5 if dt == np.float32 else 1e-12
            if cr.dtype != nr.dtype or not np.allclose(cr, nr, rtol=rtol, atol=0, equal_nan=True):
                bad = np.argmax(~np.isclose(cr, nr, rtol=rtol, atol=0, equal_nan=True))
                sys.exit(f"{name} {np.dtype(dt).name}: chunkarray {cr.flat[bad]!r} != NumPy {nr.flat[bad]!r}")
            nm, cm = n / statistics.median(nt) / 1e6, n / statistics.median(ct) / 1e6
            best = min(nt) / min(ct)  # the fastest rep of each side: less sensitive to other load
            cells += [f"{nm:.0f}", f"{cm:.0f}", f"{cm / nm:.2f}×", f"{best:.2f}×"]
            worst.append((cm / nm, f"{name} {np.dtype(dt).name}"))
        print(f"| {name} | " + " | ".join(cells) + " |")
    lo = min(worst)
    print(f"\nLowest ratio: {lo[1]} {lo[0]:.2f}×")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--n", type=int, default=8192)
    p.add_argument("--chunk", type=int, default=1024)
    p.add_argument("--fn-size", type=int, default=1 << 22)
    p.add_argument("--only", choices=["w9", "fn"])
    p.add_argument("--wide", action="store_true", help="W9 also on x uniform in [-100, 100)")
    p.add_argument("--fns", help="per function: only these (comma-separated NumPy names, e.g. exp2,log10)")
    p.add_argument("--dtype", choices=["both", "float64", "float32"], default="both",
                   help="per function: only this dtype")
    args = p.parse_args()
    print(f"load average before: {loadavg()}; chunkarray vector math: "
          f"{os.environ.get('CA_DISABLE_CPU_FEATURES') or 'widest ISA level of this CPU'}; NumPy {np.__version__}")
    if args.only != "fn":
        w9(args)
    if args.only != "w9":
        per_function(args)
    print(f"\nload average after: {loadavg()}")


if __name__ == "__main__":
    main()
