"""xarray chunk manager for chunkarray (xarray's ChunkManagerEntrypoint, registered under the
``xarray.chunkmanagers`` entry point as "chunkarray").

xarray >= 2023.05 loads it through the entry point. With an older xarray, or none, the class stands
alone with the same method names and signatures (Debian 12 ships xarray 2023.01, which has no chunk
managers).
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

import numpy as np

from . import core

try:  # xarray >= 2024.02
    from xarray.namedarray.parallelcompat import ChunkManagerEntrypoint as _Base
except ImportError:  # pragma: no cover - depends on the installed xarray
    try:  # xarray 2023.05 .. 2024.01
        from xarray.core.parallelcompat import ChunkManagerEntrypoint as _Base
    except ImportError:
        class _Base:  # stand-in with the attributes xarray's base class has
            array_cls: type
            available: bool = True

            def is_chunked_array(self, data: Any) -> bool:
                return isinstance(data, self.array_cls)


class ChunkArrayManager(_Base):
    """xarray's chunk manager methods over chunkarray.Array."""

    array_cls = core.Array
    available = True

    def __init__(self) -> None:
        self.array_cls = core.Array

    def is_chunked_array(self, data: Any) -> bool:
        return isinstance(data, core.Array)

    def chunks(self, data: core.Array) -> tuple[tuple[int, ...], ...]:
        return data.chunks

    def normalize_chunks(self, chunks: Any, shape: tuple[int, ...] | None = None, limit: int | None = None,
                         dtype: np.dtype | None = None,
                         previous_chunks: tuple[tuple[int, ...], ...] | None = None) -> tuple[tuple[int, ...], ...]:
        return core.normalize_chunks(chunks, shape, limit=limit, dtype=dtype, previous_chunks=previous_chunks)

    def from_array(self, data: Any, chunks: Any, **kwargs: Any) -> core.Array:
        """Lazy over array-likes (xarray's backend arrays: nothing is read until compute), a copy of
        in-memory data; ``name``, ``lock``, ``inline_array``, ``asarray``, ``meta`` as dask's."""
        if isinstance(data, core.Array):
            return data.rechunk(chunks)
        return core.from_array(data, chunks=chunks, **kwargs)

    def rechunk(self, data: core.Array, chunks: Any, **kwargs: Any) -> core.Array:
        return data.rechunk(chunks, **kwargs)

    def compute(self, *data: Any, **kwargs: Any) -> tuple[np.ndarray, ...]:
        return core.compute(*data, **kwargs)

    def persist(self, *data: Any, **kwargs: Any) -> tuple[Any, ...]:
        return core.persist(*data, **kwargs)

    @property
    def array_api(self) -> Any:
        import chunkarray
        return chunkarray

    def reduction(self, arr: core.Array, func: Callable[..., Any], combine_func: Callable[..., Any] | None = None,
                  aggregate_func: Callable[..., Any] | None = None, axis: int | Sequence[int] | None = None,
                  dtype: np.dtype | None = None, keepdims: bool = False) -> core.Array:
        return core.reduction(arr, chunk=func, combine=combine_func, aggregate=aggregate_func, axis=axis,
                              dtype=dtype, keepdims=keepdims)

    def scan(self, func: Callable[..., Any], binop: Callable[..., Any], ident: float, arr: core.Array,
             axis: int | None = None, dtype: np.dtype | None = None, **kwargs: Any) -> core.Array:
        return core.scan(func, binop, ident, arr, axis=axis, dtype=dtype, **kwargs)

    def apply_gufunc(self, func: Callable[..., Any], signature: str, *args: Any,
                     axes: Sequence[tuple[int, ...]] | None = None, keepdims: bool = False,
                     output_dtypes: Sequence[np.dtype] | None = None, vectorize: bool | None = None,
                     **kwargs: Any) -> Any:
        return core.apply_gufunc(func, signature, *args, axes=axes, keepdims=keepdims,
                                 output_dtypes=output_dtypes, vectorize=vectorize, **kwargs)

    def map_blocks(self, func: Callable[..., Any], *args: Any, dtype: np.dtype | None = None,
                   chunks: tuple[int, ...] | None = None, drop_axis: int | Sequence[int] | None = None,
                   new_axis: int | Sequence[int] | None = None, **kwargs: Any) -> Any:
        return core.map_blocks(func, *args, dtype=dtype, chunks=chunks, drop_axis=drop_axis, new_axis=new_axis,
                               **kwargs)

    def blockwise(self, func: Callable[..., Any], out_ind: Iterable[Any], *args: Any,
                  adjust_chunks: dict[Any, Callable[..., Any]] | None = None, new_axes: dict[Any, int] | None = None,
                  align_arrays: bool = True, **kwargs: Any) -> Any:
        return core.blockwise(func, out_ind, *args, adjust_chunks=adjust_chunks, new_axes=new_axes,
                              align_arrays=align_arrays, **kwargs)

    def unify_chunks(self, *args: Any, **kwargs: Any) -> tuple[dict[str, tuple[tuple[int, ...], ...]], list[core.Array]]:
        return core.unify_chunks(*args, **kwargs)

    def store(self, sources: core.Array | Sequence[core.Array], targets: Any, **kwargs: Any) -> Any:
        return core.store(sources, targets, **kwargs)

    def get_auto_chunk_size(self) -> int:
        return int(core.default_context().get_config("array.chunk-size"))
