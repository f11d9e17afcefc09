"""The chunkarray CLI under mpirun: a distributed `run` writes what a single process writes, and
`plan --ranks N` conserves totals. Results checked with NumPy and zarr-python.

usage: test_cli_mpi.py MPIEXEC CHUNKARRAY MAKE_GRAPHS
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import zarr

mpiexec, cli, make_graphs = sys.argv[1:4]
failures = []
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
mpi = [mpiexec, "--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,tcp"]


def run(cmd, ok=True):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=240)
    if ok and r.returncode != 0:
        failures.append(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    if not ok and r.returncode == 0:
        failures.append(f"{' '.join(cmd)} should have failed")
    return r


def check(cond, what):
    if not cond:
        failures.append(what)


with tempfile.TemporaryDirectory() as d:
    subprocess.run([make_graphs, d], check=True)
    graph = os.path.join(d, "pipelines.cagraph")
    expected = {f[:-4]: np.load(os.path.join(d, "expected", f)) for f in os.listdir(os.path.join(d, "expected"))}
    check(len(expected) >= 7, f"make_graphs wrote {len(expected)} arrays")

    # One process, then two ranks over TCP: the same zarr arrays, bit for bit.
    one, two = os.path.join(d, "one"), os.path.join(d, "two")
    run([cli, "run", graph, "--out", one, "--format", "zarr", "--quiet", "--threads", "1"])
    r = run(mpi + ["-np", "2", cli, "run", graph, "--out", two, "--format", "zarr", "--threads", "1"])
    for name, want in expected.items():
        a = zarr.open(os.path.join(one, name), mode="r")[...]
        b = zarr.open(os.path.join(two, name), mode="r")[...]
        check(a.dtype == b.dtype and a.shape == b.shape, f"{name}: {b.dtype}{b.shape} vs {a.dtype}{a.shape}")
        check(np.array_equal(a, b, equal_nan=True), f"{name}: 2 ranks differ from one process")
        check(np.array_equal(b, want, equal_nan=True), f"{name}: 2 ranks differ from the expected values")
    # Rank 0 reports: each array once on stdout, progress over all ranks, a per-rank summary.
    for name in expected:
        check(len(re.findall(rf"^{re.escape(name)} ", r.stdout, re.M)) == 1, f"{name} not reported once:\n{r.stdout}")
    check("progress:" in r.stderr, "no progress lines:\n" + r.stderr)
    rows = {m.group(1): [int(v) for v in m.group(2).split()[:5]]
            for m in re.finditer(r"^(\d+|total)\s+(\d+\s+\d+\s+\d+\s+\d+\s+\d+)\s+[\d.]+$", r.stderr, re.M)}
    check(set(rows) == {"0", "1", "total"}, "per-rank summary missing:\n" + r.stderr)
    if set(rows) == {"0", "1", "total"}:
        check(rows["0"][0] > 0 and rows["1"][0] > 0, f"a rank ran no task: {rows}")
        check(rows["total"][0] == rows["0"][0] + rows["1"][0], f"task totals: {rows}")
        check(rows["total"][3] == rows["total"][4], f"bytes sent != bytes received: {rows}")
    # CA_DIST_TRACE=1: each rank's exchange timeline on stderr; one "received" line per block received.
    env["CA_DIST_TRACE"] = "1"
    traced = os.path.join(d, "traced")
    r = run(mpi + ["-x", "CA_DIST_TRACE", "-np", "2", cli, "run", graph, "--out", traced, "--format", "zarr",
                   "--threads", "1"])
    del env["CA_DIST_TRACE"]
    for rank in (0, 1):
        check(re.search(rf"^\[ca-dist {rank}/2\] +[\d.]+ ms  run returned$", r.stderr, re.M) is not None,
              f"no trace of rank {rank}:\n{r.stderr[:3000]}")
        check(re.search(rf"^\[ca-dist {rank}/2\] tasks \d+ \(\d+ replicated\), calling thread idle", r.stderr, re.M)
              is not None, f"no trace summary of rank {rank}")
    rows = {m.group(1): [int(v) for v in m.group(2).split()[:5]]
            for m in re.finditer(r"^(\d+|total)\s+(\d+\s+\d+\s+\d+\s+\d+\s+\d+)\s+[\d.]+$", r.stderr, re.M)}
    received = len(re.findall(r"^\[ca-dist \d/2\] +[\d.]+ ms  received task \d+ .* bytes from rank \d$", r.stderr, re.M))
    check("total" in rows and received == rows["total"][2] and received > 0,
          f"{received} blocks received in the trace, {rows.get('total')} in the summary")
    # npy: gathered and written by rank 0.
    npy = os.path.join(d, "npy")
    run(mpi + ["-np", "2", cli, "run", graph, "--out", npy, "--quiet"])
    for name, want in expected.items():
        got = np.load(os.path.join(npy, name + ".npy"))
        check(np.array_equal(got, want, equal_nan=True), f"{name} (npy, 2 ranks): values differ")
    # A failure on every rank is reported once and every rank exits 1 (no hang).
    r = run(mpi + ["-np", "2", cli, "run", os.path.join(d, "missing.cagraph"), "--quiet"], ok=False)
    check(r.returncode != 0, "a missing file did not fail")

    # plan --ranks N: totals conserved, the same plan whatever N.
    totals = {}
    for n in (1, 2, 4096):
        r = run([cli, "plan", graph, "--ranks", str(n), "--all"])
        ranks = [list(map(int, m.group(1).split()))
                 for m in re.finditer(r"^\d+\s+(\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+)$", r.stdout, re.M)]
        tot = re.search(r"^total\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)", r.stdout, re.M)
        check(len(ranks) == n and tot is not None, f"plan --ranks {n}: {len(ranks)} rank lines\n{r.stdout[:2000]}")
        if tot is None or len(ranks) != n:
            continue
        t = list(map(int, tot.groups()))
        check(sum(x[0] for x in ranks) == t[0], f"plan --ranks {n}: tasks do not add up")
        check(t[1] == t[3] and t[2] == t[4], f"plan --ranks {n}: in {t[1]}/{t[2]} != out {t[3]}/{t[4]}")
        if n == 1:
            check(t[1] == 0, "plan --ranks 1 moves blocks")
        # Generated blocks made again on a second rank (instead of sent) are runs beyond the plan's tasks.
        again = re.search(r"^(\d+) of the tasks are generated blocks made again", r.stdout, re.M)
        if n == 1:
            check(again is None, "plan --ranks 1 makes blocks twice")
        totals[n] = t[0] - (int(again.group(1)) if again else 0)
    check(len(set(totals.values())) == 1, f"task totals differ between rank counts: {totals}")
    r = run([cli, "plan", graph, "--ranks", "4096"])
    check("not shown" in r.stdout and "median" in r.stdout, "plan --ranks 4096 without --all is not summarized")
    run([cli, "plan", graph, "--ranks", "0"], ok=False)
    run([cli, "plan", graph, "--ranks", "2", "--placement", "nearest"], ok=False)

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("ok")
