"""dask's custom array functions, eye and diag, built by hand with chunkarray's Graph and Array.

Run: CHUNKARRAY_LIB=build/capi/libchunkarray.so PYTHONPATH=bindings/python \\
     /usr/bin/python3 bindings/python/examples/custom_array.py
"""
import functools

import numpy as np

import chunkarray as ca


def eye(n, blocksize, name="eye"):
    """numpy.eye(n) as dask's documentation writes it: identity blocks on the diagonal, zeros elsewhere
    (the last block along each axis is smaller when blocksize does not divide n)."""
    sizes = tuple([blocksize] * (n // blocksize) + ([n % blocksize] if n % blocksize else []))
    g = ca.Graph()
    for i, bi in enumerate(sizes):
        for j, bj in enumerate(sizes):
            g.add_task((name, i, j), *((np.eye, bi) if i == j else (np.zeros, (bi, bj))))
    return ca.Array(g, name, (sizes, sizes), np.eye(0).dtype)


def diag(v):
    """numpy.diag(v) for a 1-d chunkarray array: np.diag of v's block on the diagonal blocks."""
    name, c = "diag-" + v.name, v.chunks[0]
    zeros = functools.partial(np.zeros, dtype=v.dtype)
    dsk = {(name, i, j): (np.diag, (v.name, i)) if i == j else (zeros, (vi, vj))
           for i, vi in enumerate(c) for j, vj in enumerate(c)}
    return ca.Array(ca.Graph(dsk).merge(v), name, (c, c), v.dtype)


if __name__ == "__main__":
    x = eye(7, 3)
    print("eye(7, 3): chunks", x.chunks)
    assert np.array_equal(x.compute(), np.eye(7))
    v = ca.arange(1.0, 6.0, chunks=2)
    d = diag(v)
    print("diag(arange(1, 6)): chunks", d.chunks)
    print(d.compute())
    assert np.array_equal(d.compute(), np.diag(np.arange(1.0, 6.0)))
    print("both equal NumPy's")
