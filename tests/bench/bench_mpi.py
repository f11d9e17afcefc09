"""Distributed benchmark (W13 of ../shared/WORKLOADS.md): W5, W6 and W7 on 1 and 2 MPI ranks of one
thread each, and on dask.distributed LocalCluster(n_workers=2, threads_per_worker=1), in one run.

  python3 tests/bench/bench_mpi.py --all [--repeat 5] [--rounds 3] [--only W5,W7]   # everything; the table
  mpirun -np 2 python3 tests/bench/bench_mpi.py                       # one side only (JSON lines)
  python3 tests/bench/bench_mpi.py --dask 2

W5: x @ x.T, x = random((4000, 4000), chunks=1000), float64
W6: random((16000, 16000), chunks=(16000, 160)).rechunk((160, 16000)).sum()
W7: x = random((40000, 10000), chunks=(1000, 10000)); (x - x.mean(axis=0)).std(axis=0)

Each side first runs each workload once untimed (a warm-up: worker start, imports, first-touch
memory), then --repeat timed runs (wall seconds, a barrier before each on MPI). --all runs the three
sides (1 rank, 2 ranks, dask.distributed) in turn, --rounds times over, so a slow spell of the shared
machine falls on every side; each figure is the median of all its runs (rounds x repeat), printed
with their range. chunkarray lines also give the bytes sent over all ranks. Environment: CHUNKARRAY_LIB / CHUNKARRAY_MPI_LIB /
PYTHONPATH as for the tests. The machine is shared: the driver prints the load average before and
after; report it with the figures.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np


def workloads(lib, random):
    """name -> a function building the lazy expression with `lib` (chunkarray or dask.array)."""
    def w5():
        x = random((4000, 4000), chunks=(1000, 1000))
        return x @ x.T

    def w6():
        return random((16000, 16000), chunks=(16000, 160)).rechunk((160, 16000)).sum()

    def w7():
        x = random((40000, 10000), chunks=(1000, 10000))
        return (x - x.mean(axis=0)).std(axis=0)

    return {"W5": w5, "W6": w6, "W7": w7}


def median_time(f, repeat, warmup=None):
    if warmup is not None:
        warmup()
    t = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        t.append(time.perf_counter() - t0)
    return statistics.median(t), t


def run_chunkarray(repeat, only):
    from mpi4py import MPI
    import chunkarray as ca
    comm = MPI.COMM_WORLD
    ctx = ca.Context(num_threads=1)

    def random(shape, chunks):
        return ca.random.uniform(0.0, 1.0, size=shape, chunks=chunks, seed=42)

    for name, build in workloads(ca, random).items():
        if only and name not in only:
            continue
        expr = build()
        stats = {}

        def go():
            comm.Barrier()
            ca.mpi.compute(expr, comm, ctx=ctx, stats=stats)
            comm.Barrier()
        secs, all_t = median_time(go, repeat, warmup=go)
        sent = comm.allreduce(stats.get("bytes_sent", 0))
        wait = comm.allreduce(stats.get("wait_us", 0))
        if comm.Get_rank() == 0:
            print(json.dumps({"impl": "chunkarray", "workload": name, "ranks": comm.Get_size(), "seconds": secs,
                              "runs": all_t, "bytes_sent": sent, "wait_us": wait}), flush=True)


def run_dask(workers, repeat, only):
    import dask
    import dask.array as da
    from dask.distributed import Client, LocalCluster

    def random(shape, chunks):
        return da.random.random(shape, chunks=chunks)

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster):
        for name, build in workloads(da, random).items():
            if only and name not in only:
                continue
            # a fresh graph per run (new random keys): recomputing the same keys right after a compute lets
            # the scheduler hand back results it has not yet released (a 3.2 GB W7 "in" 0.02 s)
            exprs = [build() for _ in range(repeat + 1)]
            secs, all_t = median_time(lambda: dask.compute(exprs.pop()), repeat,
                                      warmup=lambda: dask.compute(exprs.pop()))
            print(json.dumps({"impl": "dask.distributed", "workload": name, "ranks": workers, "seconds": secs,
                              "runs": all_t}), flush=True)


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def drive(repeat, only, rounds=1):
    here = os.path.abspath(__file__)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1")
    extra = ["--repeat", str(repeat)] + (["--only", ",".join(only)] if only else [])
    results = {}
    print(f"load average before: {load()}", flush=True)
    cmds = [["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(n), "-x", "PYTHONPATH", "-x",
             "CHUNKARRAY_LIB", "-x", "CHUNKARRAY_MPI_LIB", "-x", "OPENBLAS_NUM_THREADS", sys.executable, here] + extra
            for n in (1, 2)] + [[sys.executable, here, "--dask", "2"] + extra]
    for rnd in range(rounds):
        for cmd in cmds:
            out = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if out.returncode != 0:
                print(out.stderr, file=sys.stderr)
                raise SystemExit(f"{' '.join(cmd)} failed ({out.returncode})")
            for line in out.stdout.splitlines():
                if line.startswith("{"):
                    r = json.loads(line)
                    key = (r["impl"], r["ranks"], r["workload"])
                    if key in results:  # another round: pool the runs
                        results[key]["runs"] += r["runs"]
                        results[key]["seconds"] = statistics.median(results[key]["runs"])
                    else:
                        results[key] = r
                    print(line, flush=True)
        print(f"load average after round {rnd + 1}: {load()}", flush=True)
    print()
    print(f"Medians of {rounds} x {repeat} runs each (min-max in brackets):")
    print()
    print("| workload | chunkarray 1 rank (s) | chunkarray 2 ranks (s) | speedup 2 vs 1 | dask.distributed 2x1 (s) "
          "| chunkarray 2 ranks vs dask | bytes sent, 2 ranks |")
    print("|---|---|---|---|---|---|---|")

    def fig(r):
        return f"{r['seconds']:.3f} ({min(r['runs']):.3f}-{max(r['runs']):.3f})"
    for w in ("W5", "W6", "W7"):
        if only and w not in only:
            continue
        one = results.get(("chunkarray", 1, w))
        two = results.get(("chunkarray", 2, w))
        dk = results.get(("dask.distributed", 2, w))
        if not (one and two and dk):
            continue
        print(f"| {w} | {fig(one)} | {fig(two)} | {one['seconds'] / two['seconds']:.2f}x "
              f"| {fig(dk)} | {dk['seconds'] / two['seconds']:.2f}x | {two['bytes_sent']:,} |")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--dask", type=int, default=0, help="run on dask.distributed with this many workers")
    p.add_argument("--all", action="store_true", help="run 1 rank, 2 ranks and dask.distributed; print the table")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--rounds", type=int, default=3, help="with --all: run the three sides in turn this many times")
    p.add_argument("--only", default="", help="comma-separated workloads (W5,W6,W7)")
    a = p.parse_args()
    only = [w for w in a.only.split(",") if w]
    np.seterr(all="ignore")
    if a.all:
        drive(a.repeat, only, a.rounds)
    elif a.dask:
        run_dask(a.dask, a.repeat, only)
    else:
        run_chunkarray(a.repeat, only)
