"""Distributed benchmark: the same workloads on 1 and N MPI ranks, and on dask.distributed.

  mpirun -np 1 python3 tests/bench/bench_mpi.py            # chunkarray, 1 rank, 1 thread
  mpirun -np 2 --bind-to core python3 tests/bench/bench_mpi.py
  python3 tests/bench/bench_mpi.py --dask 2                 # dask.distributed LocalCluster(2 x 1 thread)

Environment: CHUNKARRAY_LIB / CHUNKARRAY_MPI_LIB / PYTHONPATH as for the tests. Numbers are only
meaningful on a quiet machine (nothing else compiling or running): report them with the machine.
Each line: workload, ranks (or dask workers), best of --repeat wall seconds, bytes sent (chunkarray).
"""
import argparse
import time

import numpy as np


def workloads(lib):
    """name -> a function building the lazy expression with `lib` (chunkarray or dask.array)."""
    def w_sum():  # tree reduction (W1-style)
        return (lib.ones((8000, 8000), chunks=(1000, 1000)) * 3).sum()

    def w_elementwise_mean():  # elementwise chain + reduction along an axis
        x = lib.ones((8000, 8000), chunks=(1000, 1000))
        return ((x * 2 + 1) ** 2).mean(axis=0)

    def w_rechunk():  # all-to-all (W6-style)
        x = lib.ones((8000, 8000), chunks=(8000, 250))
        return x.rechunk((250, 8000)).sum(axis=1)

    def w_matmul():
        x = lib.ones((3000, 3000), chunks=(750, 750))
        return (x @ x).sum()

    return {"sum": w_sum, "elementwise_mean": w_elementwise_mean, "rechunk": w_rechunk, "matmul": w_matmul}


def best(f, repeat):
    t = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        t.append(time.perf_counter() - t0)
    return min(t)


def run_chunkarray(repeat):
    from mpi4py import MPI
    import chunkarray as ca
    comm = MPI.COMM_WORLD
    ctx = ca.Context(num_threads=1)
    for name, build in workloads(ca).items():
        expr = build()
        stats = {}

        def go():
            comm.Barrier()
            ca.mpi.compute(expr, comm, ctx=ctx, stats=stats)
        secs = best(go, repeat)
        sent = comm.allreduce(stats.get("bytes_sent", 0))
        if comm.Get_rank() == 0:
            print(f"chunkarray {name:18s} ranks={comm.Get_size()} {secs:8.3f} s  bytes_sent={sent}", flush=True)


def run_dask(workers, repeat):
    import dask.array as da
    from dask.distributed import Client, LocalCluster
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True) as cluster, Client(cluster):
        for name, build in workloads(da).items():
            expr = build()
            secs = best(lambda: expr.compute(), repeat)
            print(f"dask.distributed {name:18s} workers={workers} {secs:8.3f} s", flush=True)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--dask", type=int, default=0, help="run on dask.distributed with this many workers")
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    np.seterr(all="ignore")
    if a.dask:
        run_dask(a.dask, a.repeat)
    else:
        run_chunkarray(a.repeat)
