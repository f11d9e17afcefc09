#!/bin/bash
# Side-by-side benchmark of WORKLOADS.md W1-W4 against dask.array (Debian's python3-dask), in one
# invocation on the same machine:
#   graph level  W1/W2  tests/bench/bench_graph  vs tests/bench/dask_w1.py
#   array level  W1-W4  tests/bench/bench_array  vs tests/bench/dask_w1.py (W1/W2: the same dask
#                                                   expression, run once) + tests/bench/dask_array.py (W3/W4)
# Prints the tables workload | dask | chunkarray | ratio | target | pass/fail and updates
# docs/benchmarks.md.
#
# Builds nothing: build first, e.g.
#     meson setup build -Dcapnp=disabled && ninja -C build
#     tests/bench/run_bench.sh build
#
# Usage: run_bench.sh [BUILD_DIR] [--no-docs] [--reps N] [--dask-computes N] [--workers N]
#                     [--array-exe PATH] [--no-array]
#   BUILD_DIR          meson build directory (default: build), must contain tests/bench/bench_graph
#                      and tests/bench/bench_array
#   --no-docs          print the table only, leave docs/benchmarks.md alone
#   --reps N           timed chunkarray computes per thread count (default 7)
#   --dask-computes N  timed dask computes (default 1; each takes ~35-50 s on 2 cores)
#   --workers N        threads for both engines (default: nproc, as in WORKLOADS.md)
#   --array-exe PATH   bench_array built elsewhere (default: BUILD_DIR/tests/bench/bench_array)
#   --no-array         graph-level W1/W2 only (the array part needs ~5 GiB free memory and ~1 min)
# W3/W4 use 2 GiB arrays on both sides, one side at a time; their dask side runs 1 warm-up + 5 computes.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

build="build"
docs=1
reps=7
dask_computes=1
workers="$(nproc)"
array_exe=""
array=1
positional=0
while [ $# -gt 0 ]; do
  case "$1" in
    --no-docs) docs=0 ;;
    --reps) reps="$2"; shift ;;
    --dask-computes) dask_computes="$2"; shift ;;
    --workers) workers="$2"; shift ;;
    --array-exe) array_exe="$2"; shift ;;
    --no-array) array=0 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
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
if [ $array -eq 1 ]; then
  [ -n "$array_exe" ] || array_exe="$build/tests/bench/bench_array"
  if [ ! -x "$array_exe" ]; then
    echo "run_bench.sh: $array_exe not found: build it (ninja -C $build) or pass --array-exe" >&2
    exit 2
  fi
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
  echo "array=$array"
} > "$out/machine.txt"

# Thread counts for chunkarray: the compared one first, then 1 and synchronous mode (information).
threads="$workers"
[ "$workers" != 1 ] && threads="$threads,1"
threads="$threads,0"

# With more than one worker: also the paired measurement (1 thread and $workers back to back).
paired=0
[ "$workers" != 1 ] && paired=9
echo "== chunkarray: $exe --reps $reps --threads $threads --paired $paired" >&2
"$exe" --reps "$reps" --threads "$threads" --paired "$paired" > "$out/ca.jsonl"
if [ $array -eq 1 ]; then
  echo "== chunkarray: $array_exe --reps $reps --threads $threads" >&2
  "$array_exe" --reps "$reps" --threads "$threads" > "$out/ca_array.jsonl"
fi
echo "== dask: $python $here/dask_w1.py --computes $dask_computes --workers $workers" >&2
"$python" "$here/dask_w1.py" --computes "$dask_computes" --workers "$workers" > "$out/dask.jsonl"
if [ $array -eq 1 ]; then
  echo "== dask: $python $here/dask_array.py --workers $workers" >&2
  "$python" "$here/dask_array.py" --workers "$workers" > "$out/dask_array.jsonl"
fi

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
pw = ca.get(f"w1_paired:{workers}")
if pw:
    brk.append((f"{workers} threads / 1 thread, {pw['pairs']} pairs back to back: median (lowest–highest)",
                f"{pw['ratio_median']:.2f}× ({pw['ratio_lowest']:.2f}–{pw['ratio_highest']:.2f}×)",
                f"host probe: {pw['host_median']:.2f}×", f"{pw['host_below_1_85']} pair(s) with the probe < 1.85×"))
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
    f"chunkarray: {w1['reps']} timed computes per thread count after 2 s of warm-up computes; "
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

def write_block(text, begin, end, block, heading):
    if begin in text and end in text:
        return text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    return text.rstrip("\n") + f"\n\n{heading}\n\n" + block + "\n"

docs_text = None
if docs:
    begin, end = "<!-- BEGIN W1W2 (generated by tests/bench/run_bench.sh) -->", "<!-- END W1W2 -->"
    block = "\n".join([begin, "", f"Run: {machine}.", "", table, "", btable, "", *("- " + n for n in notes), "", end])
    docs_text = open(docs).read() if os.path.exists(docs) else "# Benchmarks\n"
    docs_text = write_block(docs_text, begin, end, block, "## W1 / W2 results")

all_pass = w1_pass and w2_pass

# ------------------------------------------------------------------------------------------------
# Array level: W1-W4 (bench_array vs dask_w1.py + dask_array.py)
# ------------------------------------------------------------------------------------------------
if m.get("array", "0") == "1":
    ca_a, dk_a = load(f"{out}/ca_array.jsonl"), load(f"{out}/dask_array.jsonl")
    TARGET_W3_GBS, TARGET_W4_GBS = 28.0, 25.0
    aw1, aw2 = ca_a[f"a_w1_compute:{workers}"], ca_a["a_w2_build"]
    aw3, aw4 = ca_a[f"a_w3_sum:{workers}"], ca_a[f"a_w4_expr_sum:{workers}"]
    dw3, dw4 = dk_a["dask_w3_sum"], dk_a["dask_w4_expr_sum"]
    ref = ca_a["a_ref"]

    def fail(x):
        return f"FAIL (median {x:.2f}× the target)"

    arows = []
    p1 = aw1["median_us_per_task"] <= TARGET_W1_US
    arows.append((f"W1 `(ones(1e6, chunks=5) + 1).sum()`, {workers} threads, per dask task (/ 666,670)",
                  f"{fmt_us(dw1['best_us_per_task'])} ({fmt_s(dw1['best_s'])})",
                  f"{fmt_us(aw1['best_us_per_task'])} ({fmt_s(aw1['best_s'])}); median {fmt_us(aw1['median_us_per_task'])}",
                  ratio(dw1["best_us_per_task"], aw1["best_us_per_task"]), f"≤ {TARGET_W1_US} µs",
                  "PASS" if p1 else fail(aw1["median_us_per_task"] / TARGET_W1_US)))
    p2 = aw2["median_s"] <= TARGET_W2_S
    arows.append(("W2 build of the W1 array (dask: build + materialize)",
                  fmt_s(dw2["materialized_best_s"]),
                  f"{fmt_s(aw2['best_s'])}; median {fmt_s(aw2['median_s'])}",
                  ratio(dw2["materialized_best_s"], aw2["best_s"]), f"≤ {TARGET_W2_S} s",
                  "PASS" if p2 else f"FAIL ({aw2['median_s'] / TARGET_W2_S:.2f}× the target)"))
    p3 = aw3["median_gbs"] >= TARGET_W3_GBS
    arows.append((f"W3 `x.sum()`, 2 GiB, {workers} threads",
                  f"{dw3['best_gbs']:.1f} GB/s ({fmt_s(dw3['best_s'])}); median {dw3['median_gbs']:.1f}",
                  f"{aw3['best_gbs']:.1f} GB/s ({fmt_s(aw3['best_s'])}); median {aw3['median_gbs']:.1f}",
                  ratio(aw3["best_gbs"], dw3["best_gbs"]), f"≥ {TARGET_W3_GBS:g} GB/s",
                  "PASS" if p3 else f"FAIL (median {aw3['median_gbs'] / TARGET_W3_GBS:.2f}× the target)"))
    p4 = aw4["median_gbs"] >= TARGET_W4_GBS
    arows.append((f"W4 `((x + 1) * 2).sum()`, 2 GiB, {workers} threads",
                  f"{dw4['best_gbs']:.1f} GB/s ({fmt_s(dw4['best_s'])}); median {dw4['median_gbs']:.1f}",
                  f"{aw4['best_gbs']:.1f} GB/s ({fmt_s(aw4['best_s'])}); median {aw4['median_gbs']:.1f}",
                  ratio(aw4["best_gbs"], dw4["best_gbs"]), f"≥ {TARGET_W4_GBS:g} GB/s",
                  "PASS" if p4 else f"FAIL (median {aw4['median_gbs'] / TARGET_W4_GBS:.2f}× the target)"))
    atable = md_table(hdr, arows)

    def tname(t):
        return f"num_threads={t}" + (" (synchronous)" if t == 0 else "")

    def tkeys(prefix):
        return sorted((k for k in ca_a if k.startswith(prefix + ":")), key=lambda k: -int(k.split(":")[1]) or 99)

    abrk = []
    for k in tkeys("a_w1_compute"):
        r = ca_a[k]
        abrk.append((f"W1, {tname(r['threads'])}", f"{fmt_s(r['best_s'])}; {fmt_us(r['best_us_per_task'])} per dask task, "
                     f"{fmt_us(r['best_us_per_ca_task'])} per chunkarray task", fmt_s(r["median_s"])))
    for name, pre in (("W3", "a_w3_sum"), ("W4", "a_w4_expr_sum")):
        for k in tkeys(pre):
            r = ca_a[k]
            abrk.append((f"{name}, {tname(r['threads'])}", f"{fmt_s(r['best_s'])} = {r['best_gbs']:.1f} GB/s",
                         f"{fmt_s(r['median_s'])} = {r['median_gbs']:.1f} GB/s"))
    abrk.append(("plain C loop `sum`, 1 thread (the W3 check)", f"{ref['sum_best_gbs']:.1f} GB/s", "—"))
    abrk.append(("plain C loop `((x+1)*2).sum`, 1 thread (the W4 check)", f"{ref['expr_best_gbs']:.1f} GB/s", "—"))
    abrk.append((f"plain C loop `sum` split over {ref['mt_threads']} pthreads (read bandwidth)",
                 f"{ref['sum_mt_best_gbs']:.1f} GB/s", "—"))
    pr = ca_a.get(f"a_paired:{ref['mt_threads']}")
    if pr:  # WORKLOADS.md reads W3/W4's targets as ≥ 0.9 × this loop, measured in the same run
        abrk.append((f"W3 / W4 paired with that loop, alternated ({pr['reps']} pairs): median ratio of bandwidths",
                     f"{pr['w3_ratio_median']:.2f}× / {pr['w4_ratio_median']:.2f}× (target ≥ 0.9×)",
                     f"lowest {pr['w3_ratio_worst']:.2f}× / {pr['w4_ratio_worst']:.2f}×"))
    if "numpy_sum" in dk_a:
        abrk.append(("NumPy `np_x.sum()`, 1 thread (dask's chunk kernel on the whole array)",
                     f"{dk_a['numpy_sum']['best_gbs']:.1f} GB/s", "—"))
    abtable = md_table(("chunkarray array level (information)", "best", "median"), abrk)

    anotes = [
        f"W1/W2 dask figures are those of the graph-level table (the same dask expression, `dask_w1.py`, run once). "
        f"chunkarray's W1 array graph holds {aw1['ca_tasks']:,} tasks (`ca_graph_num_tasks(ca_array_graph(sum))`, "
        f"an upper bound: elementwise chains fuse with the chunk reduction at compute); W1 is compute time / 666,670 "
        f"(dask's task count, as in WORKLOADS.md); result == 2,000,000 checked every run.",
        f"W2 chunkarray: `ca_normalize_chunks` + `ca_array_ones` + `ca_array_binary_scalar` + `ca_array_reduce`, best of {aw2['reps']}.",
        f"W3/W4: x = 2 GiB float64 (131072, 2048), chunks (2048, 2048) = 64 blocks of 32 MiB; chunkarray "
        f"`ca_array_from_buffer(CA_BUFFER_BORROW)` ({aw3['tasks']} / {aw4['tasks']} tasks), dask `da.from_array(np_x)` "
        f"({dw3['tasks']} / {dw4['tasks']} tasks); GB/s = 2^31 bytes / wall time; chunkarray {aw3['reps']} computes after a "
        f"warm-up, dask {dw3['reps']} after a warm-up; results checked against a plain loop / NumPy (relative 1e-9).",
        "Ratio: dask time / chunkarray time (above 1: chunkarray faster). Pass/fail on chunkarray's median.",
    ]
    print()
    print(f"W1-W4 array level, side by side ({machine})")
    print()
    print(atable)
    print()
    print(abtable)
    print()
    for n in anotes:
        print("- " + n)
    all_pass = all_pass and p1 and p2 and p3 and p4
    if docs:
        begin, end = "<!-- BEGIN ARRAY (generated by tests/bench/run_bench.sh) -->", "<!-- END ARRAY -->"
        block = "\n".join([begin, "", f"Run: {machine}.", "", atable, "", abtable, "", *("- " + n for n in anotes), "", end])
        docs_text = write_block(docs_text, begin, end, block, "## W1–W4 array-level results")

if docs:
    with open(docs, "w") as f:
        f.write(docs_text)
    print(f"\nupdated {docs}")

sys.exit(0 if all_pass else 3)
PY
