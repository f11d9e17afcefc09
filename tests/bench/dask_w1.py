#!/usr/bin/python3
"""W1 / W2 of /work/shared/WORKLOADS.md with dask.array (Debian's python3-dask), for comparison.

    x = da.ones(1_000_000, chunks=5); y = (x + 1).sum(split_every=4)

W2  graph construction: the lazy build of y (symbolic HighLevelGraph layers), and the materialized
    build, lazy build + len(dict(y.__dask_graph__())) (dask materializes layers when a graph is
    turned into a task dict, which every compute does). The materialized figure is the one compared
    with chunkarray's build, whose layers stay symbolic until compute.
W1  y.compute(scheduler='threads', num_workers=N) wall time / number of tasks in y's graph (666,670).
    dask's compute includes its graph optimization (it fuses the ones/add/chunk-sum blockwise layers,
    so fewer tasks actually run: see "optimized_tasks").

Prints one JSON object per line on stdout (a summary on stderr). Exits 1 if the result is not 2e6 or
the task count is far from 666,670.

Usage: dask_w1.py [--computes N] [--workers N] [--build-reps N] [--no-optimized-count]
"""

import argparse
import json
import os
import statistics
import sys
import time

EXPECTED_TASKS = 666_670
EXPECTED_RESULT = 2_000_000.0


def build():
    import dask.array as da
    x = da.ones(1_000_000, chunks=5)
    return (x + 1).sum(split_every=4)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--computes", type=int, default=1, help="timed computes (each ~35 s)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--build-reps", type=int, default=3)
    ap.add_argument("--no-optimized-count", action="store_true",
                    help="skip counting the tasks of the optimized graph (costs a few seconds)")
    args = ap.parse_args()

    import dask
    import dask.array as da  # noqa: F401  (import cost kept out of the timings)
    import numpy as np

    def emit(obj):
        print(json.dumps(obj), flush=True)

    emit({"bench": "dask_info", "dask_version": dask.__version__, "numpy_version": np.__version__,
          "python": sys.version.split()[0], "workers": args.workers})

    # ---- W2: lazy and materialized graph build ----
    lazy, mat = [], []
    ntasks = None
    for _ in range(args.build_reps):
        t0 = time.perf_counter()
        y = build()
        t1 = time.perf_counter()
        n = len(dict(y.__dask_graph__()))
        t2 = time.perf_counter()
        lazy.append(t1 - t0)
        mat.append(t2 - t0)
        ntasks = n
        del y
    emit({"bench": "dask_w2_build", "tasks": ntasks, "reps": args.build_reps,
          "lazy_best_s": min(lazy), "lazy_median_s": statistics.median(lazy),
          "materialized_best_s": min(mat), "materialized_median_s": statistics.median(mat)})
    print(f"dask W2: lazy build best {min(lazy) * 1e3:.2f} ms; built + materialized "
          f"({ntasks} tasks) best {min(mat):.3f} s", file=sys.stderr)
    if abs(ntasks - EXPECTED_TASKS) > EXPECTED_TASKS // 100:
        print(f"dask_w1.py: FAILED: {ntasks} tasks, expected about {EXPECTED_TASKS}", file=sys.stderr)
        return 1

    # ---- informational: tasks after dask's optimization (what actually runs) ----
    if not args.no_optimized_count:
        y = build()
        t0 = time.perf_counter()
        (yo,) = dask.optimize(y)
        nopt = len(dict(yo.__dask_graph__()))
        t1 = time.perf_counter()
        emit({"bench": "dask_optimized", "optimized_tasks": nopt, "optimize_s": t1 - t0})
        print(f"dask optimize: {nopt} tasks after fusion ({t1 - t0:.2f} s)", file=sys.stderr)
        del y, yo

    # ---- W1: threaded compute ----
    times = []
    for _ in range(args.computes):
        y = build()  # fresh graph each time, built outside the timing
        t0 = time.perf_counter()
        r = y.compute(scheduler="threads", num_workers=args.workers)
        t1 = time.perf_counter()
        if float(r) != EXPECTED_RESULT:
            print(f"dask_w1.py: FAILED: result {r!r}, expected {EXPECTED_RESULT}", file=sys.stderr)
            return 1
        times.append(t1 - t0)
        del y
    best, med = min(times), statistics.median(times)
    emit({"bench": "dask_w1_compute", "workers": args.workers, "tasks": ntasks, "reps": len(times),
          "best_s": best, "median_s": med,
          "best_us_per_task": best * 1e6 / ntasks, "median_us_per_task": med * 1e6 / ntasks,
          "result": float(r)})
    print(f"dask W1 (threads, {args.workers} workers): best {best:.2f} s = "
          f"{best * 1e6 / ntasks:.2f} us/task", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
