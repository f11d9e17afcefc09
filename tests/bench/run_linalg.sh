#!/bin/bash
# Side-by-side W5 (WORKLOADS.md): x @ x.T, 4000 x 4000 float64, chunks 1000, chunkarray
# (tests/bench/bench_linalg, public C API, OpenBLAS one thread per call inside our workers) vs
# dask.array (tests/bench/dask_linalg.py, threaded scheduler) with the same number of workers, in
# one invocation on the same machine. Also x @ y for information. Prints
#   workload | dask GFLOP/s | chunkarray GFLOP/s | ratio | target
#
# Builds nothing: e.g.  meson setup build-rel --buildtype=release -Dcapnp=disabled &&
#                       ninja -C build-rel tests/bench/bench_linalg && tests/bench/run_linalg.sh build-rel
#
# Usage: run_linalg.sh [BUILD_DIR] [--reps N] [--dask-reps N] [--workers N] [--n N] [--chunk N]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="build"; reps=5; dask_reps=3; workers=2; n=4000; chunk=1000
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) reps="$2"; shift ;;
    --dask-reps) dask_reps="$2"; shift ;;
    --workers) workers="$2"; shift ;;
    --n) n="$2"; shift ;;
    --chunk) chunk="$2"; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "run_linalg.sh: unknown option $1" >&2; exit 2 ;;
    *) build="$1" ;;
  esac
  shift
done
case "$build" in /*) ;; *) build="$root/$build" ;; esac
exe="$build/tests/bench/bench_linalg"
[ -x "$exe" ] || { echo "run_linalg.sh: $exe not found (ninja -C $build tests/bench/bench_linalg)" >&2; exit 2; }

ours="$("$exe" --n "$n" --chunk "$chunk" --reps "$reps" --threads "$workers")"
theirs="$(OPENBLAS_NUM_THREADS="$workers" /usr/bin/python3 "$here/dask_linalg.py" --n "$n" --chunk "$chunk" --reps "$dask_reps" --workers "$workers")"

/usr/bin/python3 - "$ours" "$theirs" "$n" "$chunk" "$workers" <<'PY'
import json, sys
ours = {j["bench"]: j for j in map(json.loads, sys.argv[1].splitlines())}
theirs = {j["bench"]: j for j in map(json.loads, sys.argv[2].splitlines())}
n, chunk, workers = sys.argv[3:6]
print(f"W5 on this machine: n={n}, chunks {chunk}, {workers} workers (GFLOP/s = 2 n^3 / best time)")
print("| workload | dask GFLOP/s | chunkarray GFLOP/s | ratio | target |")
print("| --- | --- | --- | --- | --- |")
for key, label, target in (("w5_xxt", "W5 `x @ x.T`", ">= 0.93 x one dgemm (150 GFLOP/s on the reference machine)"),
                           ("w5_matmul", "`x @ y` (information)", "-")):
    d, o = theirs["dask_" + key]["gflops"], ours[key]["gflops"]
    print(f"| {label} | {d:.1f} | {o:.1f} | {o / d:.2f}x | {target} |")
g, s = theirs["numpy_dgemm"]["gflops"], theirs["numpy_xxt"]["gflops"]
print(f"one whole-matrix OpenBLAS dgemm (NumPy x @ y, {workers} threads): {g:.1f} GFLOP/s; "
      f"W5 chunkarray / dgemm = {ours['w5_xxt']['gflops'] / g:.2f} (target >= 0.93)")
print(f"NumPy x @ x.T (one dsyrk, {workers} threads): {s:.1f} GFLOP/s (2 n^3 / time); "
      f"W5 chunkarray / that = {ours['w5_xxt']['gflops'] / s:.2f}")
PY
