#!/bin/bash
# Issue 7: Zarr v2 write and read throughput side by side with dask.array's to_zarr / from_zarr
# (Debian's python3-dask + python3-zarr), in one invocation on the same machine:
#   x = (16384, 16384) float64 (2 GiB), x.flat[i] = (i % 1000) * 0.001, chunks (2048, 2048)
#   write     to_zarr into a fresh directory under /var/tmp
#   read+sum  from_zarr(path).sum() computed, checked against the closed form (relative 1e-9)
#   for compressor none, blosc-lz4 (zarr's default Blosc(cname='lz4', clevel=5, shuffle=SHUFFLE)),
#   zlib and zstd (numcodecs' Zlib() and Zstd(): level 1).
# chunkarray: tests/bench/bench_zarr (public C API, a context of W threads); dask:
# tests/bench/dask_zarr.py (scheduler='threads', num_workers=W). Then the cross-compatibility check:
# each side reads and sums the stores the other wrote, and the chunk files of both are compared
# (zlib's differ when chunkarray is built with libdeflate: same format, another encoder).
# Prints a markdown table: workload | dask GB/s | chunkarray GB/s | ratio (chunkarray / dask), best of
# --reps (GB = 1e9 bytes of the uncompressed array, for writes and reads alike), and one of the CPU
# seconds of each side (least of the reps; steadier than the wall clock on a loaded machine).
# About 2-3 minutes on 2 cores with the defaults; needs ~3 GiB of memory and ~5 GiB in /var/tmp.
#
# Builds nothing: e.g. ninja -C build tests/bench/bench_zarr
# Usage: run_zarr.sh [BUILD_DIR] [--reps N] [--rounds N] [--exe PATH] [--rows R] [--cols C] [--chunk-rows R]
#                    [--chunk-cols C] [--workers W] [--compressor NAME] [--no-compress] [--tmp DIR]
#   BUILD_DIR  meson build directory (default: build); the binary is BUILD_DIR/tests/bench/bench_zarr
#   --exe      bench_zarr built elsewhere
#   --reps     write + read reps per compressor on each side (default 3)
#   --rounds   run the two sides in turn this many times (default 1), each time with --reps: on a shared
#              machine both sides then meet the same spells of load; the table takes the best of all
#   --rows/--cols/--chunk-rows/--chunk-cols  a smaller array for a quick correctness run
#   --workers  threads on both sides (default 2)
#   --compressor  one of none, blosc-lz4, zlib, zstd on both sides (default all; --no-compress = none)
#   --tmp      parent of the scratch directory (default /var/tmp; must be a local disk)
set -euo pipefail
# zarr-python does not fsync; chunkarray's writes do by default (durability). Measure like for like;
# set CA_IO_NO_FSYNC=0 to include the fsync cost.
export CA_IO_NO_FSYNC=${CA_IO_NO_FSYNC:-1}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="build"
exe=""
reps=3
rounds=1
workers=2
tmp_parent=/var/tmp
size_args=()
comp_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) reps="$2"; shift ;;
    --rounds) rounds="$2"; shift ;;
    --exe) exe="$2"; shift ;;
    --workers) workers="$2"; shift ;;
    --rows|--cols|--chunk-rows|--chunk-cols) size_args+=("$1" "$2"); shift ;;
    --no-compress) comp_args=(--no-compress) ;;
    --compressor) comp_args=(--compressor "$2"); shift ;;
    --tmp) tmp_parent="$2"; shift ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    -*) echo "run_zarr.sh: unknown option $1" >&2; exit 2 ;;
    *) build="$1" ;;
  esac
  shift
done
case "$build" in /*) ;; *) build="$root/$build" ;; esac
[ -n "$exe" ] || exe="$build/tests/bench/bench_zarr"
[ -x "$exe" ] || { echo "run_zarr.sh: $exe not found (ninja -C $build tests/bench/bench_zarr, or --exe)" >&2; exit 2; }
py=/usr/bin/python3
"$py" -c 'import dask.array, zarr, numcodecs' 2>/dev/null ||
  { echo "run_zarr.sh: $py cannot import dask.array, zarr and numcodecs (apt-get install python3-dask python3-zarr)" >&2; exit 2; }

work="$(mktemp -d "$tmp_parent/run_zarr.XXXXXX")"
trap 'rm -rf "$work"' EXIT
out="$work/results"
mkdir -p "$out"

: > "$out/ca.jsonl"
: > "$out/dask.jsonl"
for ((round = 1; round <= rounds; ++round)); do
  echo "== round $round of $rounds, $(uptime)" >&2
  echo "== chunkarray: $exe --reps $reps --threads $workers ${size_args[*]} ${comp_args[*]}" >&2
  "$exe" --reps "$reps" --threads "$workers" --dir "$work/ca" --keep "${size_args[@]}" "${comp_args[@]}" >> "$out/ca.jsonl"
  echo "== dask: $py $here/dask_zarr.py --reps $reps --workers $workers ${size_args[*]} ${comp_args[*]}" >&2
  "$py" "$here/dask_zarr.py" --reps "$reps" --workers "$workers" --dir "$work/dask" --keep "${size_args[@]}" \
    "${comp_args[@]}" >> "$out/dask.jsonl"
done

# Cross-compatibility: each side reads the other's stores; chunk files compared byte for byte.
echo "== cross-compatibility" >&2
cross_ok=1
: > "$out/cross.jsonl"
: > "$out/cmp.txt"
for store in "$work"/dask/dask-*.zarr; do
  c="${store##*/dask-}"; c="${c%.zarr}"
  "$exe" --read-store "$store" --threads "$workers" | sed "s/^/ca $c /" >> "$out/cross.jsonl" || cross_ok=0
  "$py" "$here/dask_zarr.py" --read-store "$work/ca/chunkarray-$c.zarr" --workers "$workers" |
    sed "s/^/dask $c /" >> "$out/cross.jsonl" || cross_ok=0
  if diff -rq -x .zarray -x .zattrs "$work/ca/chunkarray-$c.zarr" "$store" > /dev/null 2>&1; then
    echo "$c identical" >> "$out/cmp.txt"
  else
    echo "$c different" >> "$out/cmp.txt"
  fi
done

"$py" - "$out" "$cross_ok" <<'PYEOF'
import json, os, sys
out, cross_ok = sys.argv[1], sys.argv[2] == "1"

def load(path):
    recs = []
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            recs.append(json.loads(line))
    return recs

ca, dk = load(os.path.join(out, "ca.jsonl")), load(os.path.join(out, "dask.jsonl"))
def best(recs, bench, comp):
    rs = [r for r in recs if r["bench"] == bench and r["compressor"] == comp]
    return max(rs, key=lambda r: r["gbps"]) if rs else None

first = ca[0]
print(f"Zarr v2, ({first['rows']}, {first['cols']}) float64 = {first['nbytes'] / 1e9:.2f} GB, chunks "
      f"({first['chunks'][0]}, {first['chunks'][1]}), {first['threads']} threads, best of "
      f"{sum(1 for r in ca if r['bench'] == 'zarr_write' and r['compressor'] == first['compressor'])} reps; ratio = chunkarray / dask (> 1: chunkarray faster)")
print()
print("| workload | dask GB/s | chunkarray GB/s | ratio |")
print("|---|---|---|---|")
bad = []
sizes = []
for comp in ("none", "blosc-lz4", "zlib", "zstd"):
    for bench, label in (("zarr_write", "write"), ("zarr_read_sum", "read + sum")):
        c, k = best(ca, bench, comp), best(dk, bench, comp)
        if c is None or k is None:
            continue
        print(f"| {label}, {comp} | {k['gbps']:.2f} | {c['gbps']:.2f} | {c['gbps'] / k['gbps']:.2f}x |")
        if bench == "zarr_write":
            sizes.append(f"{comp}: chunkarray {c['store_bytes'] / 2**20:.1f} MiB, dask {k['store_bytes'] / 2**20:.1f} MiB")
    for who, recs in (("chunkarray", ca), ("dask", dk)):
        for r in recs:
            if r["bench"] == "zarr_read_sum" and r["compressor"] == comp and not r["ok"]:
                bad.append(f"{who} {comp} rep {r['rep']}: sum {r['sum']!r}, expected {r['expected']!r}")
# CPU seconds (process CPU time over the timed call, least of the reps): steadier than the wall clock
# when other processes share the cores.
print()
print("| workload | dask CPU s | chunkarray CPU s | dask / chunkarray |")
print("|---|---|---|---|")
for comp in ("none", "blosc-lz4", "zlib", "zstd"):
    for bench, label in (("zarr_write", "write"), ("zarr_read_sum", "read + sum")):
        cs = [r["cpu_seconds"] for r in ca if r["bench"] == bench and r["compressor"] == comp]
        ks = [r["cpu_seconds"] for r in dk if r["bench"] == bench and r["compressor"] == comp]
        if cs and ks:
            print(f"| {label}, {comp} | {min(ks):.3f} | {min(cs):.3f} | {min(ks) / min(cs):.2f}x |")
print()
print("Store sizes: " + "; ".join(sizes))
cross = []
for line in open(os.path.join(out, "cross.jsonl")):
    who, comp, js = line.split(" ", 2)
    r = json.loads(js)
    other = "dask" if who == "ca" else "chunkarray"
    reader = "chunkarray" if who == "ca" else "dask"
    cross.append(f"{reader} reads {other}'s {comp} store: sum {r['sum']!r} {'ok' if r['ok'] else 'WRONG'}")
    if not r["ok"]:
        bad.append(cross[-1])
cmp = [l.split() for l in open(os.path.join(out, "cmp.txt"))]
print("Cross-compatibility: " + ("; ".join(cross) if cross else "not run") +
      ("" if cross_ok else " (a reader FAILED)"))
if cmp:
    print("Chunk files, chunkarray vs dask: " + "; ".join(f"{c} {s}" for c, s in cmp))
if bad or not cross_ok:
    print("WRONG RESULTS: " + "; ".join(bad) if bad else "CROSS-READ FAILED")
    sys.exit(1)
PYEOF
