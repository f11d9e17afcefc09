"""The chunkarray CLI on real graph files; outputs checked with NumPy (and zarr).

usage: test_cli.py CHUNKARRAY MAKE_GRAPHS EXAMPLE_PLUGIN EXAMPLE_GRAPH
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

cli, make_graphs, plugin, example = sys.argv[1:5]
failures = []


def run(*args, ok=True):
    """Run the CLI; ok=True: must succeed, False: must fail, None: either."""
    r = subprocess.run([cli, *args], capture_output=True, text=True, errors="replace")
    if ok and r.returncode != 0:
        failures.append(f"chunkarray {' '.join(args)} exited {r.returncode}:\n{r.stderr}")
    if ok is False and r.returncode == 0:
        failures.append(f"chunkarray {' '.join(args)} should have failed")
    return r


def check(cond, what):
    if not cond:
        failures.append(what)


with tempfile.TemporaryDirectory() as d:
    # A fresh process writes the graph file and its expected results.
    subprocess.run([make_graphs, d], check=True)
    graph = os.path.join(d, "pipelines.cagraph")
    expected = {f[:-4]: np.load(os.path.join(d, "expected", f)) for f in os.listdir(os.path.join(d, "expected"))}
    check(len(expected) >= 7, f"make_graphs wrote {len(expected)} arrays")

    # run --out (npy): another fresh process loads and computes; identical results.
    out = os.path.join(d, "out")
    r = run("run", graph, "--out", out, "--threads", "2")
    check("progress:" in r.stderr, "no plain progress lines without a tty: " + r.stderr)
    for name, want in expected.items():
        path = os.path.join(out, name + ".npy")
        if not os.path.exists(path):
            failures.append(f"{path} missing")
            continue
        got = np.load(path)
        check(got.dtype == want.dtype and got.shape == want.shape, f"{name}: {got.dtype}{got.shape} vs {want.dtype}{want.shape}")
        check(np.array_equal(got, want, equal_nan=True), f"{name}: values differ")
    # Synchronous mode and a memory limit give the same values.
    out1 = os.path.join(d, "out1")
    run("run", graph, "--out", out1, "--threads", "0", "--memory-limit", "64MiB", "--quiet")
    for name, want in expected.items():
        got = np.load(os.path.join(out1, name + ".npy"))
        check(np.array_equal(got, want, equal_nan=True), f"{name} (threads 0): values differ")

    # run --format zarr with a compressor: a group with one array per output.
    zout = os.path.join(d, "zout")
    run("run", graph, "--out", zout, "--format", "zarr", "--compressor", "blosc-lz4", "--quiet")
    check(os.path.exists(os.path.join(zout, ".zgroup")), "no .zgroup")
    try:
        import zarr
        g = zarr.open_group(zout, mode="r")
        for name, want in expected.items():
            got = g[name][...]
            check(np.array_equal(got, want, equal_nan=True), f"zarr {name}: values differ")
            check(g[name].compressor is not None and g[name].compressor.codec_id == "blosc", f"zarr {name}: compressor")
    except ImportError:
        pass

    # run without --out computes and summarizes.
    r = run("run", graph, "--quiet")
    check(all(n in r.stdout for n in expected), "run without --out does not name every array:\n" + r.stdout)

    # info names the masked arrays of a ca_masked_save file: which arrays are data and mask, and
    # the fill value (nomask for an array saved without a mask).
    mfile = os.path.join(d, "masked.cagraph")
    subprocess.run([make_graphs, "--masked", mfile], check=True)
    r = run("info", mfile)
    lines = [l.strip() for l in r.stdout.splitlines()]
    check("masked arrays: 2" in lines, "info lacks 'masked arrays: 2':\n" + r.stdout)
    mlines = [l for l in lines if l.startswith("data ")]
    check(len(mlines) == 2 and mlines[0].endswith("fill_value -1") and "mask (nomask)" not in mlines[0]
          and "mask (nomask), fill_value 999999" in mlines[1], "masked lines:\n" + r.stdout)
    r = run("info", graph)
    check("masked arrays" not in r.stdout, "a file without masked arrays lists some:\n" + r.stdout)

    # info / dot / validate.
    r = run("info", graph)
    for word in ("format version: 1", "layers:", "tasks:", "arrays: 7", "kernels:", "ca.fused", "data", "blockwise"):
        check(word in r.stdout, f"info lacks '{word}':\n{r.stdout}")
    r = run("dot", graph)
    check(r.stdout.startswith("digraph"), "dot output is not graphviz")
    r = run("validate", graph)
    check("valid" in r.stdout, "validate: " + r.stdout)

    # A graph file without arrays: run computes the final tasks (here none; the golden rich graph
    # references a key no layer holds, so running it fails naming it).
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(example))))
    r = run("run", os.path.join(root, "tests", "fuzz", "corpus", "empty_graph"), "--quiet")
    check("computed 0 final tasks of 0" in r.stdout, "graph-only run: " + r.stdout)
    r = run("run", os.path.join(root, "tests", "format", "golden", "rich_graph.cagraph"), "--quiet", ok=False)
    check("CA_ENOTFOUND" in r.stderr and "'elsewhere'" in r.stderr, "graph-only run with a missing key: " + r.stderr)
    r = run("info", os.path.join(root, "tests", "format", "golden", "rich_graph.cagraph"))
    check("materialized" in r.stdout and "arrays: 0" in r.stdout, "info on a graph file: " + r.stdout)
    # Bad input: nonzero exit and a message.
    bad = os.path.join(d, "bad.cagraph")
    with open(graph, "rb") as f:
        data = bytearray(f.read())
    data[20:28] = b"\xff" * 8
    with open(bad, "wb") as f:
        f.write(data)
    r = run("info", bad, ok=False)
    check("chunkarray:" in r.stderr, "corrupt file message: " + r.stderr)
    data[8] = 9
    with open(bad, "wb") as f:
        f.write(data)
    r = run("run", bad, ok=False)
    check("newer" in r.stderr and "CA_EVERSION" in r.stderr, "newer version message: " + r.stderr)
    run("info", os.path.join(d, "missing.cagraph"), ok=False)

    # Messages about a file name it once ("chunkarray: g.dot: not a ...", never "g.dot: g.dot: ..."),
    # and say what is wrong in our words: no Cap'n Proto internals, on any truncation or corruption.
    capnp_words = ("expected ", "segmentSize", "prematurely", "kj/", "capnp", "Message ", "array.size()")
    dot = os.path.join(d, "g.dot")
    with open(dot, "w") as f:
        f.write("digraph {}\n")
    for cmd in ("info", "run", "validate", "dot"):
        r = run(cmd, dot, ok=False)
        check(r.stderr == f"chunkarray: {dot}: not a chunkarray graph file: 11 bytes, shorter than the header "
                          "(CA_EFORMAT)\n", f"{cmd} on a dot file: {r.stderr!r}")
    golden1 = os.path.join(root, "tests", "format", "golden", "overlap_v1.cagraph")
    with open(golden1, "rb") as f:
        one = f.read()
    cut = os.path.join(d, "cut.cagraph")
    # A few truncations and corruptions: this checks how the CLI shows the format layer's messages;
    # tests/format/test_format.cpp (Format.BadFilesFailCleanly) checks every truncation and every single-byte
    # corruption in-process (a CLI process each cost ~0.7 s under ASan).
    for n in (16 + 4, 16 + 8, len(one) // 2, len(one) - 1):
        with open(cut, "wb") as f:
            f.write(one[:n])
        r = run("info", cut, ok=False)
        check(r.stderr.count(cut) == 1 and "truncated" in r.stderr and "CA_EFORMAT" in r.stderr
              and not any(w in r.stderr for w in capnp_words), f"info on {n} of {len(one)} bytes: {r.stderr!r}")
    r = run("info", cut, ok=False)
    check(f"its message needs {len(one) - 16} bytes after the header, the file has {len(one) - 17}" in r.stderr,
          "truncation by one byte: " + r.stderr)
    decode_errors = 0
    for i in (24, 116, 300, len(one) // 3, len(one) // 2, len(one) - 8):  # 24 and 116 reach the decoder
        bad1 = bytearray(one)
        bad1[i] ^= 0xA5
        with open(cut, "wb") as f:
            f.write(bad1)
        r = run("info", cut, ok=None)
        check(not any(w in r.stderr for w in capnp_words), f"corrupt byte {i}: Cap'n Proto's text leaks: {r.stderr!r}")
        decode_errors += "does not decode" in r.stderr
    check(decode_errors > 0, "no corruption reached the decoder's message")

    # Counts read as English: "1 layer", "1 array", "12 tasks".
    r = run("validate", golden1)
    check(r.stdout == f"{golden1}: valid (2 layers, 12 tasks, 1 array)\n", "validate counts: " + r.stdout)
    r = run("validate", os.path.join(root, "tests", "format", "golden", "pipelines.cagraph"))
    check("(18 layers, 108 tasks, 7 arrays)" in r.stdout, "validate counts: " + r.stdout)

    # Usage errors: exit 2 with usage text; --help exits 0.
    for args in ([], ["bogus"], ["run"], ["run", graph, "--bogus"], ["run", graph, "--threads", "x"],
                 ["run", graph, "--format", "hdf5"], ["run", graph, "--format", "zarr", "--compressor", "lzma"],
                 ["info"], ["dot", "a", "b"], ["validate", "--plugin"]):
        r = subprocess.run([cli, *args], capture_output=True, text=True, errors="replace")
        check(r.returncode == 2 and "usage:" in r.stderr, f"chunkarray {args}: exit {r.returncode}, stderr {r.stderr!r}")
    for cmd in ([], ["run"], ["info"], ["dot"], ["validate"]):
        r = subprocess.run([cli, *cmd, "--help"], capture_output=True, text=True)
        check(r.returncode == 0 and "usage:" in r.stdout, f"chunkarray {cmd} --help: exit {r.returncode}")

    # The example plugin: its saved graph fails without the plugin and runs with it.
    r = run("run", example, "--quiet", ok=False)
    check("example.affine" in r.stderr, "missing-kernel message: " + r.stderr)
    r = run("validate", example, ok=False)
    run("validate", example, "--plugin", plugin)
    pout = os.path.join(d, "pout")
    run("run", example, "--plugin", plugin, "--out", pout, "--quiet")
    files = sorted(os.listdir(pout))
    x = np.arange(60.0)
    aff = 0.5 * x - 3
    for f in files:
        got = np.load(os.path.join(pout, f))
        want = aff if f.startswith("affine") else np.hypot(np.clip(x, 10, 40), aff)
        check(np.allclose(got, want, rtol=1e-15, atol=0), f"plugin output {f} differs from NumPy")
    check(len(files) == 2, f"plugin run wrote {files}")

    # Kernel versions: info shows what a file records; run and validate refuse a kernel registered at
    # another version than the file records, with the library's message.
    r = run("info", example)
    check("example.affine (version not recorded)" in r.stdout, "info on a file without versions:\n" + r.stdout)
    r = run("info", graph)
    check("ca.fused (version 1)" in r.stdout, "info: builtin kernels record their version:\n" + r.stdout)
    v2 = os.path.join(d, "versioned2.cagraph")
    subprocess.run([make_graphs, "--versioned", v2, "2"], check=True)
    r = run("info", v2)
    check("example.affine (version 2)" in r.stdout, "info on a versioned file:\n" + r.stdout)
    mismatch = ("needs kernel 'example.affine' version 2 (recorded in the graph); "
                "the registered 'example.affine' is version 1")
    for cmd in (["validate", v2, "--plugin", plugin], ["run", v2, "--plugin", plugin, "--quiet"],
                ["run", v2, "--plugin", plugin, "--out", os.path.join(d, "vout"), "--quiet"]):
        r = run(*cmd, ok=False)
        check(r.returncode == 1 and mismatch in r.stderr and "CA_EVERSION" in r.stderr,
              f"chunkarray {' '.join(cmd)}: exit {r.returncode}, stderr {r.stderr!r}")
    v1 = os.path.join(d, "versioned1.cagraph")
    subprocess.run([make_graphs, "--versioned", v1, "1"], check=True)
    run("validate", v1, "--plugin", plugin)
    vout = os.path.join(d, "v1out")
    run("run", v1, "--plugin", plugin, "--out", vout, "--quiet")
    got = [np.load(os.path.join(vout, f)) for f in os.listdir(vout)]
    check(len(got) == 1 and np.allclose(got[0], aff, rtol=1e-15, atol=0), "versioned run output differs from NumPy")
    for cmd in (["info"], ["run"], ["validate"]):
        r = subprocess.run([cli, *cmd, "--help"], capture_output=True, text=True)
        check("version" in r.stdout, f"chunkarray {cmd} --help does not mention kernel versions")

    # Names from a graph file never reach outside --out, and nothing is deleted: a graph naming its
    # array "..", "." or "a/../../x" once replaced the parent store or emptied the output directory.
    base = os.path.join(d, "names")
    parent = os.path.join(base, "parent")
    outdir = os.path.join(parent, "out")
    os.makedirs(outdir)
    sentinels = {os.path.join(parent, ".zgroup"): '{"zarr_format": 2}',  # the parent is a zarr group
                 os.path.join(parent, "keep.txt"): "parent data",
                 os.path.join(outdir, "keep.txt"): "output dir data",
                 os.path.join(base, "x.npy"): "not to be replaced",
                 os.path.join(base, "x", "keep.txt"): "not to be replaced"}

    def write_sentinels():
        for path, text in sentinels.items():
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)

    def sentinels_intact(what):
        for path, text in sentinels.items():
            ok = os.path.exists(path) and open(path).read() == text
            check(ok, f"{what}: {path} was deleted or changed")

    write_sentinels()
    tested = []
    for name in ("..", ".", "a/../../x", "a/b", "../x", "x\x01y", "x\\y"):
        gfile = os.path.join(d, "named.cagraph")
        made = subprocess.run([make_graphs, "--named", gfile, name], capture_output=True, text=True)
        if made.returncode != 0:  # the library refused the name itself: nothing to run
            continue
        tested.append(name)
        for fmt in ("zarr", "npy"):
            r = run("run", gfile, "--out", outdir, "--format", fmt, "--quiet", ok=False)
            check(r.returncode == 1 and "cannot be used as a file name" in r.stderr and "nothing was written" in r.stderr,
                  f"run --format {fmt} with array name {name!r}: exit {r.returncode}, stderr {r.stderr!r}")
            sentinels_intact(f"array name {name!r}, --format {fmt}")
            check(sorted(os.listdir(outdir)) == ["keep.txt"], f"array name {name!r}: {os.listdir(outdir)} in --out")
    check(".." in tested and "." in tested and "a/../../x" in tested, f"names tested: {tested}")
    # A good name writes exactly DIR/<name>; a second run replaces that array and nothing else; an array
    # directory holding something foreign is not replaced (exit 1, the file survives).
    gfile = os.path.join(d, "named.cagraph")
    subprocess.run([make_graphs, "--named", gfile, "good"], check=True)
    for _ in range(2):
        run("run", gfile, "--out", outdir, "--format", "zarr", "--quiet")
        sentinels_intact("array name 'good'")
    import zarr as _zarr_check  # noqa: F401  (python3-zarr is a test dependency)
    check(np.array_equal(_zarr_check.open(os.path.join(outdir, "good"), mode="r")[...], np.arange(5.0)),
          "zarr array 'good' differs from arange(5)")
    with open(os.path.join(outdir, "good", "notes.txt"), "w") as f:
        f.write("mine")
    r = run("run", gfile, "--out", outdir, "--format", "zarr", "--quiet", ok=False)
    check(r.returncode == 1 and "notes.txt" in r.stderr and "CA_EEXISTS" in r.stderr, "foreign file in array: " + r.stderr)
    check(os.path.exists(os.path.join(outdir, "good", "notes.txt")), "overwrite removed a foreign file")
    # --out naming a zarr group (the array's parent): the group is never replaced.
    r = run("run", gfile, "--out", parent, "--format", "zarr", "--quiet")
    sentinels_intact("--out on an existing group")

    # Errors are loud: a graph of 2^40 tasks (whose final layer's keys cannot be listed) fails with the
    # reason and exit 1 (it once printed "computed 0 final task(s)" and exited 0). The task budget now
    # refuses it before its keys are listed, naming the count and the budget.
    hfile = os.path.join(d, "huge.cagraph")
    subprocess.run([make_graphs, "--huge", hfile], check=True)
    r = run("run", hfile, "--quiet", ok=False)
    check(r.returncode == 1 and "computed" not in r.stdout and "1099511627776 tasks" in r.stderr
          and "task budget" in r.stderr and "CA_E" in r.stderr,
          f"run on a graph whose keys cannot be listed: exit {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr!r}")
    # A FIFO in place of the graph file fails at once (it blocked forever).
    fifo = os.path.join(d, "fifo.cagraph")
    os.mkfifo(fifo)
    for cmd in ("run", "info", "validate", "dot"):
        try:
            r = subprocess.run([cli, cmd, fifo], capture_output=True, text=True, timeout=20)
            check(r.returncode == 1 and "regular file" in r.stderr, f"{cmd} on a FIFO: {r.returncode} {r.stderr!r}")
        except subprocess.TimeoutExpired:
            failures.append(f"chunkarray {cmd} on a FIFO hangs")
    # Output that cannot be written (stdout is /dev/full) is an error.
    with open("/dev/full", "w") as full:
        r = subprocess.run([cli, "info", graph], stdout=full, stderr=subprocess.PIPE, text=True)
    check(r.returncode == 1 and "cannot write" in r.stderr, f"info > /dev/full: {r.returncode} {r.stderr!r}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("cli ok")
