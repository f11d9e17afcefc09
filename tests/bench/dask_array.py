#!/usr/bin/python3
"""W3 / W4 (and optionally W1 / W2) of /work/shared/WORKLOADS.md with dask.array (Debian's
python3-dask), the dask side of tests/bench/bench_array.c.

    np_x = 2 GiB float64 of shape (131072, 2048), np_x.flat[i] = (i % 1000) * 0.001
    x = da.from_array(np_x, chunks=(2048, 2048))      # dask's from_array of an in-memory NumPy array
    W3  x.sum()
    W4  ((x + 1) * 2).sum()

Each is timed as .compute(scheduler='threads', num_workers=N) of a graph built outside the timing
(dask's graph optimization is inside, as in every dask compute), one warm-up then --computes timed
runs; GB/s = 2 GiB (2^31 bytes of x) / time. Results are checked against NumPy on np_x (relative
1e-9).

W1 / W2 are the same dask expression at graph and array level ((ones(1_000_000, chunks=5) + 1)
.sum(split_every=4)): dask_w1.py measures them; run_bench.sh runs it once and uses its figures for
both tables. --w1 runs it here as well (same code, dask_w1.main) for a standalone run.

Prints one JSON object per line on stdout (a summary on stderr). Exits 1 on a wrong result.

Usage: dask_array.py [--computes N] [--workers N] [--w1 [--w1-computes N]]
"""

import argparse
import json
import os
import statistics
import sys
import time

ROWS, COLS, CHUNK = 131072, 2048, 2048
NBYTES = ROWS * COLS * 8  # 2 GiB


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--computes", type=int, default=5, help="timed computes per workload")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--w1", action="store_true", help="also run dask_w1.py's W1/W2 (~1 min)")
    ap.add_argument("--w1-computes", type=int, default=1)
    args = ap.parse_args()

    import dask
    import dask.array as da
    import numpy as np

    def emit(obj):
        print(json.dumps(obj), flush=True)

    emit({"bench": "dask_info", "dask_version": dask.__version__, "numpy_version": np.__version__,
          "python": sys.version.split()[0], "workers": args.workers})

    # ---- the 2 GiB array: same values as bench_array.c ----
    t0 = time.perf_counter()
    np_x = np.resize(np.arange(1000, dtype=np.float64) * 0.001, ROWS * COLS).reshape(ROWS, COLS)
    assert np_x.nbytes == NBYTES and np_x.flags.c_contiguous
    ref3 = float(np_x.sum())
    ref4 = float(((np_x + 1) * 2).sum())
    print(f"dask W3/W4: built the 2 GiB NumPy array and the references in {time.perf_counter() - t0:.1f} s",
          file=sys.stderr)

    workloads = [
        ("dask_w3_sum", "x.sum()", lambda x: x.sum(), ref3),
        ("dask_w4_expr_sum", "((x + 1) * 2).sum()", lambda x: ((x + 1) * 2).sum(), ref4),
    ]
    for bench, expr, f, ref in workloads:
        times = []
        ntasks = None
        for rep in range(args.computes + 1):  # the first is a warm-up
            x = da.from_array(np_x, chunks=(CHUNK, CHUNK))
            y = f(x)
            ntasks = len(y.__dask_graph__())
            t0 = time.perf_counter()
            r = float(y.compute(scheduler="threads", num_workers=args.workers))
            t1 = time.perf_counter()
            if not abs(r - ref) <= 1e-9 * abs(ref):
                print(f"dask_array.py: FAILED: {expr} = {r!r}, NumPy says {ref!r}", file=sys.stderr)
                return 1
            if rep:
                times.append(t1 - t0)
            del x, y
        best, med = min(times), statistics.median(times)
        emit({"bench": bench, "expr": expr, "workers": args.workers, "tasks": ntasks, "reps": len(times),
              "bytes": NBYTES, "best_s": best, "median_s": med, "worst_s": max(times),
              "best_gbs": NBYTES / best * 1e-9, "median_gbs": NBYTES / med * 1e-9, "result": r})
        print(f"dask {expr} (threads, {args.workers} workers, {ntasks} tasks): best {best * 1e3:.1f} ms = "
              f"{NBYTES / best * 1e-9:.2f} GB/s, median {NBYTES / med * 1e-9:.2f} GB/s", file=sys.stderr)

    # NumPy alone on the whole array (one thread): information.
    t = []
    for _ in range(3):
        t0 = time.perf_counter()
        np_x.sum()
        t.append(time.perf_counter() - t0)
    emit({"bench": "numpy_sum", "best_s": min(t), "best_gbs": NBYTES / min(t) * 1e-9})
    print(f"numpy np_x.sum() (1 thread): {NBYTES / min(t) * 1e-9:.2f} GB/s", file=sys.stderr)
    del np_x

    if args.w1:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import dask_w1
        sys.argv = [sys.argv[0], "--computes", str(args.w1_computes), "--workers", str(args.workers)]
        return dask_w1.main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
