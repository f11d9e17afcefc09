#!/usr/bin/env bash
# W8: time loading a 1,000,000-task materialized graph file.
#   tests/bench/bench_format.sh [BUILD_DIR] [bench_format args...]
# BUILD_DIR defaults to build (configure a release build: meson setup build --buildtype=release).
set -euo pipefail
dir=${1:-build}
shift || true
exe=$dir/tests/bench/bench_format
[[ -x $exe ]] || { echo "bench_format.sh: $exe not built (ninja -C $dir tests/bench/bench_format)" >&2; exit 1; }
echo "== W8: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(meson introspect --buildoptions "$dir" 2>/dev/null | /usr/bin/python3 -c 'import json,sys; print("buildtype", [o["value"] for o in json.load(sys.stdin) if o["name"]=="buildtype"][0])' 2>/dev/null || echo "buildtype ?")"
"$exe" --tasks 1000000 --reps "${CA_BENCH_REPS:-20}" "$@"
