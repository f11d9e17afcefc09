#!/usr/bin/python3
"""Issue 7: Zarr v2 storage throughput with dask.array (threaded scheduler), the counterpart of
bench_zarr.c (same array, chunks, compressors, measurements and JSON lines):

  x = da.from_array(np.resize(np.arange(1000) * 0.001, rows * cols).reshape(rows, cols), chunks)
      (x.flat[i] = (i % 1000) * 0.001; default (16384, 16384) float64 = 2 GiB, chunks (2048, 2048))
  write  da.to_zarr(x, DIR/dask-<compressor>.zarr, compressor=...) into a fresh directory
  read   da.from_zarr(path).sum().compute(), checked against the closed form (relative 1e-9)
  compressors: none (compressor=None) and blosc-lz4 (Blosc(cname='lz4', clevel=5, shuffle=SHUFFLE),
  zarr's default)

Both run under dask.config.set(scheduler='threads', num_workers=W). GB/s = rows * cols * 8 / 1e9 / s.
Prints one JSON line per measurement ("zarr_write", "zarr_read_sum"; see bench_zarr.c) and a summary on
stderr; --read-store PATH only reads and sums an existing store ("zarr_read_store").

Usage: dask_zarr.py [--reps N] [--dir PATH] [--rows R] [--cols C] [--chunk-rows R] [--chunk-cols C]
                    [--workers W] [--compressor none|blosc-lz4|zlib|zstd|all] [--no-compress] [--keep]
                    [--read-store PATH]
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time

import dask
import dask.array as da
import numpy as np
import zarr
from numcodecs import Blosc, Zlib, Zstd


def cpu_now():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def expected_sum(n):
    full, rem = divmod(n, 1000)
    return (full * 499500 + rem * (rem - 1) // 2) * 0.001


def sum_ok(s, expect):
    return abs(s - expect) <= 1e-9 * abs(expect)


def tree_bytes(path):
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            p = os.path.join(root, f)
            if os.path.isfile(p) and not os.path.islink(p):
                total += os.path.getsize(p)
    return total


def read_sum(path):
    c0, t0 = cpu_now(), time.perf_counter()
    a = da.from_zarr(path)
    s = float(a.sum().compute())
    return s, time.perf_counter() - t0, cpu_now() - c0, a.shape, a.dtype


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--dir")
    p.add_argument("--rows", type=int, default=16384)
    p.add_argument("--cols", type=int, default=16384)
    p.add_argument("--chunk-rows", type=int, default=2048)
    p.add_argument("--chunk-cols", type=int, default=2048)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--compressor", default="all", choices=["none", "blosc-lz4", "zlib", "zstd", "all"])
    p.add_argument("--no-compress", action="store_true")
    p.add_argument("--keep", action="store_true")
    p.add_argument("--read-store")
    a = p.parse_args()
    if a.no_compress:
        a.compressor = "none"
    if a.reps < 1:
        p.error("--reps must be >= 1")

    with dask.config.set(scheduler="threads", num_workers=a.workers):
        if a.read_store:
            s, secs, cpu, shape, dtype = read_sum(a.read_store)
            n = shape[0] * shape[1] if len(shape) == 2 else 0
            expect = expected_sum(n)
            ok = len(shape) == 2 and dtype == np.float64 and sum_ok(s, expect)
            print(json.dumps({"bench": "zarr_read_store", "path": a.read_store, "rows": shape[0],
                              "cols": shape[1] if len(shape) > 1 else None, "threads": a.workers,
                              "seconds": round(secs, 4), "cpu_seconds": round(cpu, 4), "sum": s,
                              "expected": expect, "ok": ok}))
            if not ok:
                print(f"dask_zarr.py: {a.read_store}: wrong sum {s!r} (expected {expect!r}), shape {shape}, "
                      f"dtype {dtype}", file=sys.stderr)
            return 0 if ok else 1

        own_dir = a.dir is None
        d = tempfile.mkdtemp(prefix="dask_zarr.", dir="/var/tmp") if own_dir else a.dir
        os.makedirs(d, exist_ok=True)

        rows, cols = a.rows, a.cols
        n = rows * cols
        nbytes = n * 8
        np_x = np.resize(np.arange(1000) * 0.001, n).reshape(rows, cols)
        x = da.from_array(np_x, chunks=(a.chunk_rows, a.chunk_cols))
        expect = expected_sum(n)
        compressors = {"none": None, "blosc-lz4": Blosc(cname="lz4", clevel=5, shuffle=Blosc.SHUFFLE),
                       "zlib": Zlib(level=1), "zstd": Zstd(level=1)}
        names = list(compressors) if a.compressor == "all" else [a.compressor]
        common = {"rows": rows, "cols": cols, "chunks": [a.chunk_rows, a.chunk_cols], "threads": a.workers}
        failed = False
        times = {}
        for name in names:
            path = os.path.join(d, f"dask-{name}.zarr")
            for r in range(a.reps):
                shutil.rmtree(path, ignore_errors=True)
                c0, t0 = cpu_now(), time.perf_counter()
                da.to_zarr(x, path, compressor=compressors[name])
                ws, wc = time.perf_counter() - t0, cpu_now() - c0
                sbytes = tree_bytes(path)
                times.setdefault(("write", name), []).append(ws)
                print(json.dumps({"bench": "zarr_write", "compressor": name, **common, "rep": r,
                                  "seconds": round(ws, 4), "gbps": round(nbytes / 1e9 / ws, 4),
                                  "cpu_seconds": round(wc, 4), "nbytes": nbytes, "store_bytes": sbytes}), flush=True)
                s, rs, rc, shape, _dtype = read_sum(path)
                ok = tuple(shape) == (rows, cols) and sum_ok(s, expect)
                times.setdefault(("read+sum", name), []).append(rs)
                print(json.dumps({"bench": "zarr_read_sum", "compressor": name, **common, "rep": r,
                                  "seconds": round(rs, 4), "gbps": round(nbytes / 1e9 / rs, 4),
                                  "cpu_seconds": round(rc, 4), "nbytes": nbytes, "store_bytes": sbytes,
                                  "sum": s, "expected": expect, "ok": ok}), flush=True)
                if not ok:
                    print(f"dask_zarr.py: {path}: wrong sum {s!r} (expected {expect!r}) or shape {shape}",
                          file=sys.stderr)
                    failed = True
            if not a.keep:
                shutil.rmtree(path, ignore_errors=True)

    print(f"dask_zarr.py: ({rows}, {cols}) float64 = {nbytes / 1e9:.3f} GB, chunks ({a.chunk_rows}, "
          f"{a.chunk_cols}), {a.workers} workers, {a.reps} reps, dask {dask.__version__}, zarr {zarr.__version__}, "
          f"dir {d}{' (kept)' if a.keep else ''}", file=sys.stderr)
    for (what, name), ts in times.items():
        best, med = min(ts), statistics.median(ts)
        print(f"  {what} {name:9s} best {best:.3f} s ({nbytes / 1e9 / best:.2f} GB/s), "
              f"median {med:.3f} s ({nbytes / 1e9 / med:.2f} GB/s)", file=sys.stderr)
    if own_dir and not a.keep:
        shutil.rmtree(d, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
