"""The bindings' common example pipeline, in Python: create an array, elementwise, reduce, run a user
kernel written in Python, save the graph to a file (when the library has ca_graph_save).

    CHUNKARRAY_LIB=build/capi/libchunkarray.so.1 PYTHONPATH=bindings/python python3 bindings/python/examples/pipeline.py [out-dir]
"""
import os
import sys
import tempfile

import numpy as np

import chunkarray as ca


def main(out_dir):
    x = ca.random.uniform(0.0, 1.0, size=(2000, 1500), chunks=(500, 400), seed=1)   # create
    y = ca.sqrt(x) * 2.0 + 1.0                                                       # elementwise (fused)
    col_means = y.mean(axis=0)                                                       # reduce
    z = y.map_blocks(lambda b: np.where(b > 2.0, b, 0.0))                            # a Python kernel
    total, means, zsum = ca.compute(y.sum(), col_means, z.sum())                     # one pass
    xs = x.compute()
    ys = np.sqrt(xs) * 2.0 + 1.0
    assert np.allclose(total, ys.sum()) and np.allclose(means, ys.mean(axis=0))
    assert np.allclose(zsum, np.where(ys > 2.0, ys, 0.0).sum())
    print(f"sum={total:.6f} mean[0]={means[0]:.6f} kernel-sum={zsum:.6f} blocks={y.npartitions}")
    path = os.path.join(out_dir, "pipeline.graph")
    try:
        col_means.graph().save(path)
        print(f"graph saved to {path}")
    except ca.core.UnsupportedError as e:  # a library built without graph files (-Dcapnp=disabled)
        dot = os.path.join(out_dir, "pipeline.dot")
        with open(dot, "w") as f:
            f.write(col_means.graph().to_dot())
        print(f"{e}; graphviz dot written to {dot} instead")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="chunkarray-"))
