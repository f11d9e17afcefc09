"""Array.compute(comm=...) under mpirun: the gathered result equals NumPy's and the single-process
result on rank 0 (None elsewhere); a failing kernel raises the same error on every rank.
Run: mpirun -np N python3 test_python_mpi.py (CHUNKARRAY_LIB, CHUNKARRAY_MPI_LIB, PYTHONPATH set)."""
import sys

import numpy as np
from mpi4py import MPI

import chunkarray as ca

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"rank {rank}: FAILED {what}", flush=True)


x = np.arange(240 * 180, dtype=np.float64).reshape(240, 180)
a = ca.from_array(x, chunks=(40, 60))
for name, expr, ref in [
    ("sum", a.sum(), x.sum()),
    ("mean axis 0", a.mean(axis=0), x.mean(axis=0)),
    ("rechunk", a.rechunk((240, 20)), x),
    ("slice", a[5:200:3, ::-2], x[5:200:3, ::-2]),
    ("matmul", a @ a.T, x @ x.T),
]:
    stats = {}
    got = ca.mpi.compute(expr, comm, stats=stats)
    if rank == 0:
        single = expr.compute()
        check(got is not None and got.shape == ref.shape, f"{name}: shape")
        check(got is not None and np.array_equal(got, single), f"{name}: equals the single-process result")
        check(got is not None and np.allclose(got, ref), f"{name}: equals NumPy")
    else:
        check(got is None, f"{name}: None off the root")
    total = comm.allreduce(stats["tasks"])
    check(total == stats["plan_tasks"], f"{name}: every task ran once ({total} of {stats['plan_tasks']})")
    sent = comm.allreduce(stats["bytes_sent"])
    if name == "sum":
        check(sent <= 8 * 12, f"sum: only partial sums move ({sent} bytes)")

# The gathered result is the library's block wrapped without a copy: an ordinary writeable array that
# owns that memory (it outlives the expression, the context and other results); empty and 0-d too.
ctx = ca.Context(num_threads=1)
r1 = ca.mpi.compute(a + 1, comm, ctx=ctx)
r2 = ca.mpi.compute(a + 1, comm, ctx=ctx)
e = ca.mpi.compute(a[:0], comm)
z = ca.mpi.compute(a.sum(), comm)
del ctx
if rank == 0:
    check(isinstance(r1, np.ndarray) and r1.flags.writeable and r1.flags.c_contiguous, "result: a writeable C array")
    r1 += 1
    check(np.array_equal(r1, x + 2) and np.array_equal(r2, x + 1), "results do not share memory")
    check(isinstance(e, np.ndarray) and e.shape == (0, 180), "empty result")
    check(isinstance(z, np.ndarray) and z.shape == () and z == x.sum(), "0-d result")
    v = r2[10:20]
    del r2
    check(np.array_equal(v, (x + 1)[10:20]), "a view keeps the result's memory alive")

got = a.sum().compute(comm=comm)
check((got is None) == (rank != 0), "Array.compute(comm=) gathers to rank 0")
if rank == 0:
    check(got == x.sum(), "Array.compute(comm=) value")

# persist(comm=): blocks stay where computed; computing on it again moves only partial sums.
b = a * 3 + 1
p = b.persist(comm=comm)
check(p.name.startswith("dist-persist"), "persist(comm=) gives a distributed array")
stats = {}
s = ca.mpi.compute(p.sum(), comm, stats=stats)
check(comm.allreduce(stats["bytes_sent"]) <= 8 * 24, "a persisted array's blocks did not move")
full = p.compute(comm=comm)
if rank == 0:
    check(s == (x * 3 + 1).sum() and np.array_equal(full, b.compute()), "persist(comm=) values")

# to_zarr(comm=): every rank writes its chunks; read back in one process.
import tempfile  # noqa: E402
d = comm.bcast(tempfile.mkdtemp() if rank == 0 else None)
b.to_zarr(d + "/b.zarr", comm=comm)
comm.Barrier()
check(np.array_equal(ca.from_zarr(d + "/b.zarr").compute(), x * 3 + 1), "to_zarr(comm=) values")

# store(comm=): each rank writes its blocks into its own target; together, the whole array.
target = np.zeros_like(x)
ca.store(b, target, comm=comm)
total = np.zeros_like(x)
comm.Allreduce(target, total)
check(np.array_equal(total, x * 3 + 1), "store(comm=): each block written once over the ranks")
comm.Barrier()
if rank == 0:
    import shutil
    shutil.rmtree(d)

try:
    ca.mpi.compute(a.sum(), "not a communicator")
    check(False, "a non-communicator is refused")
except TypeError as e:
    check("mpi4py communicator" in str(e), "TypeError names mpi4py")

bad = comm.allreduce(len(failures))
if rank == 0:
    print(f"{size} ranks: {'OK' if bad == 0 else f'{bad} failures'}", flush=True)
sys.exit(1 if bad else 0)
