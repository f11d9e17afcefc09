#!/bin/bash
# W6 of WORKLOADS.md side by side with dask.array, in one invocation on the same machine:
#   gen  random((N, N), chunks=(N, N/100)).rechunk((N/100, N)).sum()
#   gen-daskplan  gen with chunkarray planning exactly as dask (threshold 4: dask's stages)
#   mem  the same over the random input persisted first (held in memory on both sides)
# chunkarray: tests/bench/bench_rechunk (public C API); dask: tests/bench/dask_rechunk.py (threaded
# scheduler). Each run is its own process, so each peak RSS (getrusage) is its own. Prints a table
# with the wall and CPU time ratios (dask / chunkarray) and both peak resident sets, and the memory
# held beyond what was resident before the compute (for "mem": beyond the persisted input).
#
# Builds nothing: e.g. meson setup build-rel --buildtype=release && ninja -C build-rel tests/bench/bench_rechunk
# Usage: run_rechunk.sh [BUILD_DIR] [--n N] [--workers W] [--variants "gen gen-daskplan mem"]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="build"
n=16000
workers="$(nproc)"
variants="gen gen-daskplan mem"
while [ $# -gt 0 ]; do
  case "$1" in
    --n) n="$2"; shift ;;
    --workers) workers="$2"; shift ;;
    --variants) variants="$2"; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "run_rechunk.sh: unknown option $1" >&2; exit 2 ;;
    *) build="$1" ;;
  esac
  shift
done
case "$build" in /*) ;; *) build="$root/$build" ;; esac
exe="$build/tests/bench/bench_rechunk"
[ -x "$exe" ] || { echo "run_rechunk.sh: $exe not found (ninja -C $build tests/bench/bench_rechunk)" >&2; exit 2; }
py=/usr/bin/python3
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
for v in $variants; do
  echo "W6 $v: chunkarray ..." >&2
  base="${v%-daskplan}"
  extra=()
  [ "$v" = "$base" ] || extra=(--threshold 4)
  "$exe" --variant "$base" --n "$n" --threads "$workers" "${extra[@]}" | sed "s/^/ca /; s/w6_$base/w6_$v/" >> "$out"
  echo "W6 $v: dask ..." >&2
  "$py" "$here/dask_rechunk.py" --variant "$base" --n "$n" --workers "$workers" | sed "s/^/dask /; s/w6_$base/w6_$v/" >> "$out"
done
"$py" - "$out" <<'PYEOF'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    who, js = line.split(" ", 1)
    r = json.loads(js)
    rows.setdefault(r["bench"], {})[who] = r
mib = lambda b: b / 2**20
print("| workload | dask s | chunkarray s | speedup | dask CPU s | chunkarray CPU s | CPU ratio | dask peak RSS MiB | chunkarray peak RSS MiB | RSS ratio "
      "| dask beyond input MiB | chunkarray beyond input MiB | stages dask / ca |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for name, d in rows.items():
    k, c = d["dask"], d["ca"]
    print(f"| {name} n={c['n']} | {k['seconds']:.2f} | {c['seconds']:.2f} | {k['seconds'] / c['seconds']:.1f}x "
          f"| {k['cpu_seconds']:.2f} | {c['cpu_seconds']:.2f} | {k['cpu_seconds'] / c['cpu_seconds']:.1f}x "
          f"| {mib(k['peak_rss']):.0f} | {mib(c['peak_rss']):.0f} | {k['peak_rss'] / c['peak_rss']:.1f}x "
          f"| {mib(k['peak_rss'] - k['base_rss']):.0f} | {mib(c['peak_rss'] - c['base_rss']):.0f} "
          f"| {k['stages']} / {c['stages']} |")
    if not (k["ok"] and c["ok"]):
        print(f"  WRONG RESULT: dask ok={k['ok']} chunkarray ok={c['ok']}")
PYEOF
