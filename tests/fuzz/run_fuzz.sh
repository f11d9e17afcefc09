#!/usr/bin/env bash
# Run the graph-file loader fuzzer for a while over a scratch copy of the seed corpus.
#   run_fuzz.sh FUZZER SEED_CORPUS_DIR
# CA_FUZZ_SECONDS sets the run time (default CA_FUZZ_SECONDS_DEFAULT, else 30): e.g. 3600 for a long run.
# CA_FUZZ_CORPUS=DIR keeps the grown corpus in DIR (default: a temporary directory, removed).
# CA_FUZZ_TIMEOUT: seconds one input may take before it counts as a hang (default 20).
# CA_FUZZ_SEED (default CA_FUZZ_SEED_DEFAULT, else 0: a fresh random seed): the test suite fixes it,
# so its short search tries the same inputs in the same order every run, as far as its time allows
# (a finding is reproducible, and CI does not pass or fail by luck);
# ./dev fuzz searches with fresh seeds.
# Crashing inputs are kept as crash-* in the current directory (meson's test working dir) and
# the script exits non-zero.
set -euo pipefail
fuzzer=$1
seeds=$2
seconds=${CA_FUZZ_SECONDS:-${CA_FUZZ_SECONDS_DEFAULT:-30}}
work=${CA_FUZZ_CORPUS:-}
cleanup=0
if [[ -z $work ]]; then
  work=$(mktemp -d)
  cleanup=1
fi
mkdir -p "$work"
trap '((cleanup)) && rm -rf "$work"' EXIT
# The fuzzer is built with its own sanitizers; keep the suite's ASAN_OPTIONS from aborting on leaks
# in libFuzzer itself, but report everything in the loader.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
echo "fuzzing for ${seconds}s, seeds from $seeds"
# -error_exitcode=1: libFuzzer's default for a crash is 77, which meson reads as "skipped".
"$fuzzer" -error_exitcode=1 -seed="${CA_FUZZ_SEED:-${CA_FUZZ_SEED_DEFAULT:-0}}" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout="${CA_FUZZ_TIMEOUT:-20}" -max_len=65536 \
  -print_final_stats=1 "$work" "$seeds"
