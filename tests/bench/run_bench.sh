#!/bin/bash
# Side-by-side W1/W2 benchmark: chunkarray (tests/bench/bench_graph) against dask.array (Debian's
# python3-dask, tests/bench/dask_w1.py), in one invocation on the same machine. Prints the table
# workload | dask | chunkarray | ratio | target | pass/fail and updates docs/benchmarks.md.
#
# Builds nothing: build first, e.g.
#     meson setup build -Dcapnp=disabled && ninja -C build
#     tests/bench/run_bench.sh build
#
# Usage: run_bench.sh [BUILD_DIR] [--no-docs] [--reps N] [--dask-computes N] [--workers N]
#   BUILD_DIR          meson build directory (default: build), must contain tests/bench/bench_graph
#   --no-docs          print the table only, leave docs/benchmarks.md alone
#   --reps N           timed chunkarray computes per thread count (default 7)
#   --dask-computes N  timed dask computes (default 1; each takes ~35-50 s on 2 cores)
#   --workers N        threads for both engines (default: nproc, as in WORKLOADS.md)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

build="build"
docs=1
reps=7
dask_computes=1
workers="$(nproc)"
positional=0
while [ $# -gt 0 ]; do
  case "$1" in
    --no-docs) docs=0 ;;
    --reps) reps="$2"; shift ;;
    --dask-computes) dask_computes="$2"; shift ;;
    --workers) workers="$2"; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "run_bench.sh: unknown option $1" >&2; exit 2 ;;
    *) if [ $positional -eq 0 ]; then build="$1"; positional=1; else echo "run_bench.sh: extra argument $1" >&2; exit 2; fi ;;
  esac
  shift
done

case "$build" in /*) ;; *) build="$root/$build" ;; esac
exe="$build/tests/bench/bench_graph"
if [ ! -x "$exe" ]; then
  echo "run_bench.sh: $exe not found: build with -Dbenchmarks=true first (ninja -C $build)" >&2
  exit 2
fi
python=/usr/bin/python3
if ! "$python" -c 'import dask.array' 2>/dev/null; then
  echo "run_bench.sh: $python cannot import dask.array (apt-get install python3-dask)" >&2
  exit 2
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# Machine information, recorded with the numbers.
{
  echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "nproc=$(nproc)"
  echo "cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)"
  echo "mem=$(free -g 2>/dev/null | awk '/^Mem:/ {print $2 " GiB"}')"
  echo "kernel=$(uname -r)"
  echo "os=$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
  echo "load=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "commit=$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)"
  echo "libbuilt=$(date -u -r "$(readlink -f "$build/capi/libchunkarray.so")" '+%Y-%m-%d %H:%M UTC' 2>/dev/null || echo '?')"
  echo "buildtype=$(meson introspect --buildoptions "$build" 2>/dev/null | "$python" -c 'import json,sys; print(next((o["value"] for o in json.load(sys.stdin) if o["name"]=="buildtype"), "?"))' 2>/dev/null || echo '?')"
  echo "ca_reps=$reps"
  echo "dask_computes=$dask_computes"
  echo "workers=$workers"
} > "$out/machine.txt"

# Thread counts for chunkarray: the compared one first, then 1 and synchronous mode (information).
threads="$workers"
[ "$workers" != 1 ] && threads="$threads,1"
threads="$threads,0"

echo "== chunkarray: $exe --reps $reps --threads $threads" >&2
"$exe" --reps "$reps" --threads "$threads" > "$out/ca.jsonl"
echo "== dask: $python $here/dask_w1.py --computes $dask_computes --workers $workers" >&2
"$python" "$here/dask_w1.py" --computes "$dask_computes" --workers "$workers" > "$out/dask.jsonl"

docs_arg=""
[ $docs -eq 1 ] && docs_arg="$root/docs/benchmarks.md"

"$python" - "$out" "$docs_arg" <<'PY'
import json, re, sys, os

out, docs = sys.argv[1], sys.argv[2]

def load(path):
    recs = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                r = json.loads(line)
                key = r["bench"] + (f":{r['threads']}" if "threads" in r else "")
                recs[key] = r
    return recs

ca, dk = load(f"{out}/ca.jsonl"), load(f"{out}/dask.jsonl")
m = dict(l.rstrip("\n").split("=", 1) for l in open(f"{out}/machine.txt") if "=" in l)
workers = int(m["workers"])

TARGET_W1_US = 0.5
TARGET_W2_S = 0.03

def fmt_s(s):
    if s >= 1: return f"{s:.2f} s"
    if s >= 1e-3: return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.1f} µs"

def fmt_us(u):
    return f"{u:.3f} µs" if u < 10 else f"{u:.1f} µs"

def ratio(a, b):
    r = a / b
    return f"{r:,.0f}×" if r >= 100 else f"{r:.1f}×"

w1 = ca[f"w1_compute:{workers}"]
dw1 = dk["dask_w1_compute"]
w2 = ca["w2_build"]
dw2 = dk["dask_w2_build"]

rows = []
# W1: per task, best of the runs; pass/fail on the median (the more conservative figure).
w1_pass = w1["median_us_per_task"] <= TARGET_W1_US
rows.append((f"W1 compute, {workers} threads, per task (666,670 tasks)",
             f"{fmt_us(dw1['best_us_per_task'])} ({fmt_s(dw1['best_s'])})",
             f"{fmt_us(w1['best_us_per_task'])} ({fmt_s(w1['best_s'])}); median {fmt_us(w1['median_us_per_task'])}",
             ratio(dw1["best_us_per_task"], w1["best_us_per_task"]),
             f"≤ {TARGET_W1_US} µs",
             "PASS" if w1_pass else f"FAIL (median {w1['median_us_per_task'] / TARGET_W1_US:.2f}× the target)"))
w2_pass = w2["median_s"] <= TARGET_W2_S
rows.append(("W2 graph build (dask: build + materialize)",
             fmt_s(dw2["materialized_best_s"]),
             f"{fmt_s(w2['best_s'])}; median {fmt_s(w2['median_s'])}",
             ratio(dw2["materialized_best_s"], w2["best_s"]),
             f"≤ {TARGET_W2_S} s",
             "PASS" if w2_pass else f"FAIL ({w2['median_s'] / TARGET_W2_S:.2f}× the target)"))
rows.append(("W2' graph build, lazy only (dask: HighLevelGraph)",
             fmt_s(dw2["lazy_best_s"]),
             fmt_s(w2["best_s"]),
             ratio(dw2["lazy_best_s"], w2["best_s"]),
             "—", "info"))

hdr = ("workload", "dask.array", "chunkarray (best)", "ratio dask/chunkarray", "target", "pass/fail")

def md_table(header, rs):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rs]
    return "\n".join(lines)

# chunkarray breakdown (information)
brk = []
for key in sorted((k for k in ca if k.startswith("w1_compute:")), key=lambda k: -int(k.split(":")[1]) or 99):
    r = ca[key]
    t = r["threads"]
    name = f"ca_compute, num_threads={t}" + (" (synchronous)" if t == 0 else "")
    brk.append((name, fmt_s(r["best_s"]), fmt_us(r["best_us_per_task"]), fmt_us(r["median_us_per_task"])))
p = ca["plan"]
brk.append(("plan only (ca_graph_validate: cull + materialize + CSR)", fmt_s(p["best_s"]),
            fmt_us(p["best_us_per_task"]), fmt_us(p["median_us_per_task"])))
kf = ca["kernel_floor"]
brk.append(("kernel floor (same kernels called in a loop, no graph)", fmt_s(kf["best_s"]),
            fmt_us(kf["best_us_per_task"]), fmt_us(kf["median_us_per_task"])))
brk_hdr = ("chunkarray, 666,670 tasks", "best total", "best per task", "median per task")

dinfo = dk.get("dask_info", {})
dopt = dk.get("dask_optimized")
notes = [
    f"dask {dinfo.get('dask_version', '?')} (NumPy {dinfo.get('numpy_version', '?')}, Python {dinfo.get('python', '?')}), "
    f"threaded scheduler, num_workers={dw1['workers']}; {dw1['reps']} timed compute(s); graph of {dw1['tasks']:,} tasks"
    + (f", {dopt['optimized_tasks']:,} after dask's blockwise fusion (optimize: {fmt_s(dopt['optimize_s'])})" if dopt else "") + ".",
    f"chunkarray: {w1['reps']} timed computes per thread count after one warm-up; "
    f"build best of {w2['reps']}; {w2['layers']} symbolic layers; result checked == 2,000,000 every run.",
]
machine = (f"{m['date']} · {m['nproc']} cores · {m['cpu']} · {m['mem']} · {m['os']} · Linux {m['kernel']} · "
           f"load average at start {m['load']} · working tree {m['commit']} · libchunkarray.so built {m['libbuilt']} · buildtype {m['buildtype']}")

table = md_table(hdr, rows)
btable = md_table(brk_hdr, brk)

print()
print(f"W1/W2 side by side ({machine})")
print()
print(table)
print()
print(btable)
print()
for n in notes:
    print("- " + n)

if docs:
    begin, end = "<!-- BEGIN W1W2 (generated by tests/bench/run_bench.sh) -->", "<!-- END W1W2 -->"
    block = "\n".join([begin, "", f"Run: {machine}.", "", table, "", btable, "", *("- " + n for n in notes), "", end])
    text = open(docs).read() if os.path.exists(docs) else "# Benchmarks\n"
    if begin in text and end in text:
        text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + "\n\n## W1 / W2 results\n\n" + block + "\n"
    with open(docs, "w") as f:
        f.write(text)
    print(f"\nupdated {docs}")

sys.exit(0 if (w1_pass and w2_pass) else 3)
PY
