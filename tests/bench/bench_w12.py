#!/usr/bin/python3
"""W12 of /work/shared/WORKLOADS.md: blocked linear algebra, solve(A, b) with A n² float64 in
tile² tiles (target: 16000² in 2000² tiles), chunkarray's tiled LU (src/linalg/tiled.cpp) against
dask.array.linalg.solve on the same tiles and one LAPACK dgesv (numpy.linalg.solve), in one
invocation on the same machine.

Each side runs in its own fresh process (this script with --side), so each peak RSS
(getrusage ru_maxrss) is that side's alone: the process's baseline after imports, then A (NumPy,
random with n/4 added to the diagonal, the same seed on every side) is built, then the timed solve. Peak
memory is reported as a multiple of A's size; it includes A itself (resident on every side) and
the interpreter (chunkarray's side drops NumPy's A once from_array has copied it into the graph).
The residuals ||A x - b|| / (||A|| ||x||) are computed afterwards in the parent. chunkarray: Context(num_threads=T) (OpenBLAS one thread per task); dask:
scheduler='threads', num_workers=T (NumPy's OpenBLAS threads as configured); dgesv: OpenBLAS with
T threads. The solutions are checked against each other (relative 1e-8) and by their residual.

Timing is noisy on a shared machine: the size defaults to 8000² in 1000² tiles; run the W12 size
with --n 16000 --tile 2000 when the machine is quiet (needs ~3 × 2 GB free).

Usage: CHUNKARRAY_LIB=build/capi/libchunkarray.so bench_w12.py [--n 8000] [--tile 1000] [--threads 2]
           [--sides ca,dask,dgesv]
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))


def maxrss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def make_a(n):
    import numpy as np
    rng = np.random.default_rng(12)
    a = rng.random((n, n))
    a[np.diag_indices(n)] += n / 4  # well conditioned for the tile-local pivoting of dask's lu
    b = rng.random(n)
    return a, b


def side(args):
    if args.side == "dgesv":
        os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    import numpy as np
    if args.side == "ca":
        sys.path.insert(0, os.path.join(here, "..", "..", "bindings", "python"))
        import chunkarray as ca
        from chunkarray import linalg
    elif args.side == "dask":
        import dask
        import dask.array as da
    base = maxrss()
    a, b = make_a(args.n)
    if args.side == "ca":
        # from_array copies NumPy data into the graph: drop NumPy's copy so one A is resident, as
        # on the dask side (da.from_array keeps a reference, no copy).
        ctx = ca.Context(num_threads=args.threads)
        ca_a, ca_b = ca.from_array(a, chunks=args.tile), ca.from_array(b, chunks=args.tile)
        del a
        t0 = time.perf_counter()
        x = linalg.solve(ca_a, ca_b).compute(ctx)
    elif args.side == "dask":
        t0 = time.perf_counter()
        with dask.config.set(scheduler="threads", num_workers=args.threads):
            x = da.linalg.solve(da.from_array(a, chunks=args.tile), da.from_array(b, chunks=args.tile)).compute()
    else:
        t0 = time.perf_counter()
        x = np.linalg.solve(a, b)
    t = time.perf_counter() - t0
    np.save(args.out, x)
    print(json.dumps({"time": t, "peak": maxrss(), "base": base}))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=8000)
    p.add_argument("--tile", type=int, default=1000)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--sides", default="ca,dask,dgesv")
    p.add_argument("--side", choices=["ca", "dask", "dgesv"], help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.side:
        return side(args)
    import numpy as np
    abytes = args.n * args.n * 8
    print(f"load average before: {'/'.join(f'{v:.2f}' for v in os.getloadavg())}")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for s in args.sides.split(","):
            out = os.path.join(tmp, s + ".npy")
            cmd = [sys.executable, os.path.abspath(__file__), "--side", s, "--n", str(args.n), "--tile", str(args.tile),
                   "--threads", str(args.threads), "--out", out]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"{s} failed:\n{r.stderr}")
            results[s] = json.loads(r.stdout.strip().splitlines()[-1])
            results[s]["x"] = np.load(out)
    a, b = make_a(args.n)  # the residuals, in this process (its memory is not measured)
    for v in results.values():
        v["residual"] = float(np.linalg.norm(a @ v["x"] - b) / (np.linalg.norm(a) * np.linalg.norm(v["x"])))
    del a
    ref = results.get("dgesv") or results.get("dask")
    for s, v in results.items():
        if ref is not None and not np.allclose(v["x"], ref["x"], rtol=1e-8, atol=1e-12):
            sys.exit(f"{s}: solution differs from the reference by {np.max(np.abs(v['x'] - ref['x']))}")
    names = {"ca": "chunkarray (tiled LU)", "dask": "dask `da.linalg.solve`", "dgesv": "NumPy `solve` (one dgesv)"}
    print(f"\nW12: solve(A, b), A {args.n}² float64 ({abytes / 1e9:.2f} GB) in {args.tile}² tiles, "
          f"{args.threads} threads each side\n")
    print("| side | time s | peak RSS GB | peak / A | RSS before A GB | residual |")
    print("|---|---|---|---|---|---|")
    for s, v in results.items():
        print(f"| {names[s]} | {v['time']:.2f} | {v['peak'] / 1e9:.2f} | {v['peak'] / abytes:.2f} | "
              f"{v['base'] / 1e9:.2f} | {v['residual']:.1e} |")
    if "ca" in results and "dask" in results:
        print(f"\ntime dask / chunkarray: **{results['dask']['time'] / results['ca']['time']:.2f}×**")
    if "ca" in results and "dgesv" in results:
        print(f"time chunkarray / one dgesv: {results['ca']['time'] / results['dgesv']['time']:.2f}×")
    print(f"\nload average after: {'/'.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
