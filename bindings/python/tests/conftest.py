import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


def _install_vendored_xarray():
    """xarray 2023.08.0 from ../shared/vendor (or $CHUNKARRAY_VENDOR), unpacked into a temporary
    directory with the two entry-point metadata folders its README describes, first on sys.path. It
    must come before any test imports chunkarray.chunkmanager, whose base class is xarray's
    ChunkManagerEntrypoint when xarray can be imported. Absent tarball: nothing happens (the xarray
    workflow suite then skips, saying so)."""
    import atexit
    import shutil
    import tarfile
    import tempfile
    from pathlib import Path

    vendor = Path(os.environ.get("CHUNKARRAY_VENDOR",
                                 Path(__file__).resolve().parents[3].parent / "shared" / "vendor"))
    tarball = vendor / "xarray-2023.08.0.tar.gz"
    if not tarball.is_file():
        return
    tmp = Path(tempfile.mkdtemp(prefix="ca_xarray_"))
    atexit.register(shutil.rmtree, tmp, True)
    with tarfile.open(tarball) as t:
        t.extractall(tmp / "src")
    meta = tmp / "meta"
    for name, version, eps in (
            ("chunkarray", "0.1.0", "chunkarray = chunkarray.chunkmanager:ChunkArrayManager"),
            ("xarray", "2023.8.0", "dask = xarray.core.daskmanager:DaskManager")):
        d = meta / f"{name}-{version}.dist-info"
        d.mkdir(parents=True)
        (d / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        (d / "entry_points.txt").write_text(f"[xarray.chunkmanagers]\n{eps}\n")
    sys.path[:0] = [str(tmp / "src"), str(meta)]


_install_vendored_xarray()


def _graph_files_supported():
    """False when this library was built without Cap'n Proto (-Dcapnp=disabled): saving an empty
    graph then says CA_EUNSUPPORTED."""
    import tempfile
    import chunkarray as ca
    with tempfile.TemporaryDirectory() as d:
        try:
            ca.Graph().save(os.path.join(d, "probe.cagraph"))
        except ca.core.UnsupportedError:
            return False
    return True


def pytest_configure(config):
    config.addinivalue_line("markers", "graph_files: needs graph files (saving, loading, pickling arrays)")


def pytest_collection_modifyitems(config, items):
    """Tests whose subject needs graph files (save/load, pickle, process pools) skip, saying why, in
    a build without them, instead of failing on what that build cannot have."""
    marked = [item for item in items if "graph_files" in item.keywords]
    if not marked or _graph_files_supported():
        return
    import pytest
    skip = pytest.mark.skip(reason="this chunkarray was built without graph files (-Dcapnp=disabled: "
                                   "ca_save says CA_EUNSUPPORTED)")
    for item in marked:
        item.add_marker(skip)
