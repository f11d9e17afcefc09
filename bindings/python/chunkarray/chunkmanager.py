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
        """Whether ``data`` is a chunkarray Array.

        Parameters
        ----------
        data : object
            Any object.

        Returns
        -------
        bool
            True for a chunkarray.Array.
        """
        return isinstance(data, core.Array)

    def chunks(self, data: core.Array) -> tuple[tuple[int, ...], ...]:
        """The chunks of an array.

        Parameters
        ----------
        data : Array
            The array.

        Returns
        -------
        tuple of tuple of int
            Its chunks (nan for unknown sizes).
        """
        return data.chunks

    def normalize_chunks(self, chunks: Any, shape: tuple[int, ...] | None = None, limit: int | None = None,
                         dtype: np.dtype | None = None,
                         previous_chunks: tuple[tuple[int, ...], ...] | None = None) -> tuple[tuple[int, ...], ...]:
        """Explicit chunks (:func:`chunkarray.normalize_chunks`).

        Parameters
        ----------
        chunks : Any
            The specification.
        shape : tuple of int, optional
            The shape.
        limit : int, optional
            Bytes per block for ``"auto"``.
        dtype : numpy.dtype, optional
            The element type.
        previous_chunks : tuple, optional
            Chunks to follow.

        Returns
        -------
        tuple of tuples of int
            The chunks.
        """
        return core.normalize_chunks(chunks, shape, limit=limit, dtype=dtype, previous_chunks=previous_chunks)

    def from_array(self, data: Any, chunks: Any, **kwargs: Any) -> core.Array:
        """A chunkarray array over ``data`` (:func:`chunkarray.from_array`).

        Lazy over array-likes (xarray's backend arrays: nothing is read until compute), a copy of
        in-memory data.

        Parameters
        ----------
        data : array_like
            The data.
        chunks : Any
            The chunks.
        **kwargs
            ``name``, ``lock``, ``inline_array``, ``asarray``, ``meta`` as dask's.

        Returns
        -------
        Array
            The array.
        """
        if isinstance(data, core.Array):
            return data.rechunk(chunks)
        return core.from_array(data, chunks=chunks, **kwargs)

    def rechunk(self, data: core.Array, chunks: Any, **kwargs: Any) -> core.Array:
        """Rechunk (:meth:`Array.rechunk`).

        Parameters
        ----------
        data : Array
            The array.
        chunks : Any
            The new chunks.
        **kwargs
            As :meth:`Array.rechunk`.

        Returns
        -------
        Array
            The lazy result.
        """
        return data.rechunk(chunks, **kwargs)

    def compute(self, *data: Any, **kwargs: Any) -> tuple[np.ndarray, ...]:
        """Compute arrays (:func:`chunkarray.compute`).

        Parameters
        ----------
        *data
            The arrays.
        **kwargs
            As :func:`chunkarray.compute`.

        Returns
        -------
        tuple of numpy.ndarray
            The values.
        """
        return core.compute(*data, **kwargs)

    def persist(self, *data: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Persist arrays (:func:`chunkarray.persist`).

        Parameters
        ----------
        *data
            The arrays.
        **kwargs
            As :func:`chunkarray.persist`.

        Returns
        -------
        tuple
            The persisted arrays.
        """
        return core.persist(*data, **kwargs)

    @property
    def array_api(self) -> Any:
        """The array namespace xarray uses (the ``chunkarray`` module).
        """
        import chunkarray
        return chunkarray

    def reduction(self, arr: core.Array, func: Callable[..., Any], combine_func: Callable[..., Any] | None = None,
                  aggregate_func: Callable[..., Any] | None = None, axis: int | Sequence[int] | None = None,
                  dtype: np.dtype | None = None, keepdims: bool = False) -> core.Array:
        """A tree reduction (:func:`chunkarray.reduction`).

        Parameters
        ----------
        arr : Array
            The input.
        func : callable
            The per-block step.
        combine_func : callable, optional
            The intermediate step.
        aggregate_func : callable, optional
            The final step.
        axis : int or sequence of int, optional
            The axes.
        dtype : numpy.dtype, optional
            The result's dtype.
        keepdims : bool, default False
            Keep reduced axes.

        Returns
        -------
        Array
            The lazy result.
        """
        return core.reduction(arr, chunk=func, combine=combine_func, aggregate=aggregate_func, axis=axis,
                              dtype=dtype, keepdims=keepdims)

    def scan(self, func: Callable[..., Any], binop: Callable[..., Any], ident: float, arr: core.Array,
             axis: int | None = None, dtype: np.dtype | None = None, **kwargs: Any) -> core.Array:
        """A cumulative scan (:func:`chunkarray.scan`).

        Parameters
        ----------
        func : callable
            The per-block scan.
        binop : callable
            The carry's operation.
        ident : float
            Its identity.
        arr : Array
            The input.
        axis : int, optional
            The axis.
        dtype : numpy.dtype, optional
            The result's dtype.
        **kwargs
            As :func:`chunkarray.scan`.

        Returns
        -------
        Array
            The lazy result.
        """
        return core.scan(func, binop, ident, arr, axis=axis, dtype=dtype, **kwargs)

    def apply_gufunc(self, func: Callable[..., Any], signature: str, *args: Any,
                     axes: Sequence[tuple[int, ...]] | None = None, keepdims: bool = False,
                     output_dtypes: Sequence[np.dtype] | None = None, vectorize: bool | None = None,
                     **kwargs: Any) -> Any:
        """A generalized ufunc (:func:`chunkarray.apply_gufunc`).

        Parameters
        ----------
        func : callable
            The function.
        signature : str
            The gufunc signature.
        *args
            The inputs.
        axes : list of tuples, optional
            Core axes per argument.
        keepdims : bool, default False
            Keep reduced core dimensions.
        output_dtypes : sequence of dtypes, optional
            The outputs' dtypes.
        vectorize : bool, optional
            Wrap ``func`` in ``numpy.vectorize``.
        **kwargs
            As :func:`chunkarray.apply_gufunc`.

        Returns
        -------
        Array or tuple of Array
            The outputs.
        """
        return core.apply_gufunc(func, signature, *args, axes=axes, keepdims=keepdims,
                                 output_dtypes=output_dtypes, vectorize=vectorize, **kwargs)

    def map_blocks(self, func: Callable[..., Any], *args: Any, dtype: np.dtype | None = None,
                   chunks: tuple[int, ...] | None = None, drop_axis: int | Sequence[int] | None = None,
                   new_axis: int | Sequence[int] | None = None, **kwargs: Any) -> Any:
        """Map a function over blocks (:func:`chunkarray.map_blocks`).

        Parameters
        ----------
        func : callable
            The function.
        *args
            Arrays and other arguments.
        dtype : numpy.dtype, optional
            The result's dtype.
        chunks : tuple, optional
            The result's chunks.
        drop_axis : int or sequence of int, optional
            Axes the function removes.
        new_axis : int or sequence of int, optional
            Axes the function adds.
        **kwargs
            Passed to ``func``.

        Returns
        -------
        Array
            The lazy result.
        """
        return core.map_blocks(func, *args, dtype=dtype, chunks=chunks, drop_axis=drop_axis, new_axis=new_axis,
                               **kwargs)

    def blockwise(self, func: Callable[..., Any], out_ind: Iterable[Any], *args: Any,
                  adjust_chunks: dict[Any, Callable[..., Any]] | None = None, new_axes: dict[Any, int] | None = None,
                  align_arrays: bool = True, **kwargs: Any) -> Any:
        """Blockwise (:func:`chunkarray.blockwise`).

        Parameters
        ----------
        func : callable
            The function.
        out_ind : iterable
            The output's index.
        *args
            Array, index pairs.
        adjust_chunks : dict, optional
            Output block size changes.
        new_axes : dict, optional
            Sizes of new letters.
        align_arrays : bool, default True
            Rechunk inputs to common chunks.
        **kwargs
            Passed to ``func``.

        Returns
        -------
        Array
            The lazy result.
        """
        return core.blockwise(func, out_ind, *args, adjust_chunks=adjust_chunks, new_axes=new_axes,
                              align_arrays=align_arrays, **kwargs)

    def unify_chunks(self, *args: Any, **kwargs: Any) -> tuple[dict[str, tuple[tuple[int, ...], ...]], list[core.Array]]:
        """Common chunks along shared letters (:func:`chunkarray.unify_chunks`).

        Parameters
        ----------
        *args
            ``arr1, ind1, arr2, ind2, ...``.
        **kwargs
            Accepted.

        Returns
        -------
        tuple
            ``(chunkss, arrays)``.
        """
        return core.unify_chunks(*args, **kwargs)

    def store(self, sources: core.Array | Sequence[core.Array], targets: Any, **kwargs: Any) -> Any:
        """Store arrays into targets (:func:`chunkarray.store`).

        Parameters
        ----------
        sources : Array or sequence of Array
            The arrays.
        targets : Any
            Objects supporting ``target[slices] = block``.
        **kwargs
            As :func:`chunkarray.store`.

        Returns
        -------
        None
            The data is in the targets.
        """
        return core.store(sources, targets, **kwargs)

    def get_auto_chunk_size(self) -> int:
        """The byte size ``chunks="auto"`` aims at (the default context's ``array.chunk-size``).

        Returns
        -------
        int
            Bytes.
        """
        return int(core.default_context().get_config("array.chunk-size"))
