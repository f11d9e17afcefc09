#!/usr/bin/env python3
"""Run the vendored array API conformance suite (data-apis/array-api-tests 2022.09.30) against
chunkarray.array_api: one pytest process per test file, Hypothesis with --max-examples N, the linalg
extension on and fft off.

A test failing here must be a known failure: one that numpy.array_api (NumPy 1.24) also fails on the
same flags, listed in KNOWN_FAILURES with the reason (docs/array-api.md has the table). The run fails
on any other failure and on a file that crashes or times out. Exit 77 (meson's "skipped") when the vendored tarballs are absent.

Usage: run_array_api_tests.py [--vendor DIR] --bindings DIR --workdir DIR [--max-examples N]
       [--module chunkarray.array_api] [--files test_a.py ...] [--timeout S]
"""
import argparse
import os
import re
import subprocess
import sys
import tarfile
import time

SUITE = "array-api-tests-2022.09.30.tar.gz"
NDINDEX = "ndindex-1.6.tar.gz"

# Tests numpy.array_api (NumPy 1.24) fails too, on the same flags (and the same Hypothesis seed), and
# why: node ids relative to array_api_tests/.
KNOWN_FAILURES = {
    # none: numpy.array_api's 21 failures on these flags (18 floor_divide special cases with infinities,
    # asarray(copy=False), reshape's copy argument, trace's dtype) all pass in chunkarray.array_api.
}


def extract(vendor, workdir):
    """Extract the suite and ndindex into workdir (once) and drop conftest's pytest-json-report import."""
    root = os.path.join(workdir, "array-api-tests")
    stamp = os.path.join(workdir, ".extracted")
    if not os.path.exists(stamp):
        os.makedirs(workdir, exist_ok=True)
        for name in (SUITE, NDINDEX):
            with tarfile.open(os.path.join(vendor, name)) as t:
                t.extractall(workdir)
        conf = os.path.join(root, "conftest.py")
        text = open(conf).read()
        text = re.sub(r"^from reporting import .*$", "# no pytest-json-report", text, flags=re.M)
        open(conf, "w").write(text)
        open(stamp, "w").close()
    return root, os.path.join(workdir, "ndindex-1.6")


def run_file(root, ndindex, bindings, module, fname, max_examples, timeout, seed):
    env = dict(os.environ, ARRAY_API_TESTS_MODULE=module,
               PYTHONPATH=os.pathsep.join([ndindex, bindings] + [p for p in [os.environ.get("PYTHONPATH")] if p]),
               PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rfE", "--tb=no",
           "--max-examples", str(max_examples), "--disable-extension", "fft", f"--hypothesis-seed={seed}", "-o", "console_output_style=classic",
           os.path.join("array_api_tests", fname)]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        so = e.stdout or b""
        return None, f"timed out after {timeout} s", time.time() - t0, (
            so.decode(errors="replace") if isinstance(so, bytes) else so)
    out = p.stdout + p.stderr
    counts = {k: 0 for k in ("passed", "failed", "skipped", "error", "errors")}
    summary = [line for line in out.splitlines() if re.search(r"\d+ (passed|failed|error)", line)]
    if summary:
        for n, k in re.findall(r"(\d+) (passed|failed|skipped|errors?)", summary[-1]):
            counts[k] += int(n)
    failed = [m.split(" - ")[0] for m in re.findall(r"^(?:FAILED|ERROR) (.+)$", out, flags=re.M)]
    if p.returncode not in (0, 1) or not summary:
        return None, f"pytest exited with {p.returncode}", time.time() - t0, out
    return (counts, failed), None, time.time() - t0, out


def known(test_id):
    """Whether a failing node id (array_api_tests/<file>::<test>[<params>]) is a known failure."""
    short = test_id.split("/", 1)[-1]
    return short in KNOWN_FAILURES


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vendor", help="the directory with the tarballs (default: $CHUNKARRAY_VENDOR, else "
                    "../shared/vendor or ../../shared/vendor beside --source-root)")
    ap.add_argument("--source-root", default=os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    ap.add_argument("--bindings", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--module", default="chunkarray.array_api")
    ap.add_argument("--max-examples", type=int, default=20)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--files", nargs="*")
    ap.add_argument("--seed", type=int, default=0,
                    help="Hypothesis seed (fixed: the same examples on every run and for every namespace)")
    ap.add_argument("--examples-for", nargs="*", default=[], metavar="FILE=N",
                    help="a smaller --max-examples for the files of thousands of tests (test_type_promotion.py=2)")
    ap.add_argument("--no-known-check", action="store_true", help="report only (e.g. for numpy.array_api)")
    args = ap.parse_args()
    if args.vendor is None:
        cands = [os.environ.get("CHUNKARRAY_VENDOR")] + [
            os.path.join(args.source_root, up, "shared", "vendor") for up in ("..", os.path.join("..", ".."))]
        args.vendor = next((c for c in cands if c and os.path.exists(os.path.join(c, SUITE))), cands[1])
    if not all(os.path.exists(os.path.join(args.vendor, n)) for n in (SUITE, NDINDEX)):
        print(f"SKIPPED: the vendored array API test suite ({SUITE}, {NDINDEX}) is not in {args.vendor}")
        return 77
    root, ndindex = extract(args.vendor, args.workdir)
    files = args.files or sorted(f for f in os.listdir(os.path.join(root, "array_api_tests"))
                                 if f.startswith("test_") and f.endswith(".py"))
    total = {"passed": 0, "failed": 0, "skipped": 0}
    problems, seen_known = [], set()
    t_all = time.time()
    per_file = dict(kv.split("=", 1) for kv in args.examples_for)
    for f in files:
        n = int(per_file.get(f, args.max_examples))
        res, err, dt, out = run_file(root, ndindex, args.bindings, args.module, f, n, args.timeout, args.seed)
        if err:
            problems.append(f"{f}: {err}")
            print(f"{f}: CRASH ({err}) in {dt:.0f} s\n{out[-3000:]}", flush=True)
            continue
        counts, failed = res
        for k in total:
            total[k] += counts[k]
        total["failed"] += counts["error"] + counts["errors"]
        print(f"{f} (--max-examples {n}): {counts['passed']} passed, {counts['failed']} failed, "
              f"{counts['skipped']} skipped in {dt:.0f} s", flush=True)
        for t in failed:
            print(f"    FAILED {t}")
            if known(t):
                seen_known.add(t)
            elif not args.no_known_check:
                problems.append(f"unexpected failure {t}")
    extra = f" ({', '.join(args.examples_for)})" if args.examples_for else ""
    print(f"TOTAL ({args.module}, --max-examples {args.max_examples}{extra}, --hypothesis-seed={args.seed}, "
          f"--disable-extension fft): "
          f"{total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped "
          f"in {time.time() - t_all:.0f} s")
    if problems:
        print("PROBLEMS:\n  " + "\n  ".join(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
