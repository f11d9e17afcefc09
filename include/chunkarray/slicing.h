/**
 * @file chunkarray/slicing.h
 * @brief Indexing: dask.array's slicing (x[...]), take, boolean masks, vindex and item assignment.
 *
 * Every function returns a new array and leaves its input unchanged (arrays are immutable; dask's
 * `x[idx] = v` rebinds x to a new array too). Results equal NumPy's; graphs and output chunks are
 * dask's:
 * - basic indexing (integers, slices with any step, newaxis, Ellipsis) adds one task per output
 *   block reading exactly the one input block it comes from, so computing a small slice of a large
 *   array runs only the blocks it needs;
 * - an integer list along one axis is dask's take: consecutive indices falling in the same input
 *   block form one output block (unsorted or repeated indices are fine and give more blocks);
 * - a boolean mask gives blocks whose sizes are unknown until computed (dask's NaN chunks), stored
 *   as ::CA_CHUNK_UNKNOWN.
 *
 * Unknown chunk sizes. ca_array_chunks() reports ::CA_CHUNK_UNKNOWN for such blocks,
 * ca_array_shape() reports ::CA_CHUNK_UNKNOWN for such axes, and ca_array_size() / ca_array_nbytes()
 * return ::CA_CHUNK_UNKNOWN. Elementwise operations between arrays of the same (unknown) block
 * structure, reductions (sum, mean, var, min, max, any, all, ... but not argmin/argmax),
 * ca_array_compute(), ca_array_persist() and further masks work. Operations that need sizes (slicing
 * an unknown axis other than with ':', take, rechunk, scans, vindex, setitem, ca_array_compute_into,
 * SVG) fail with CA_EINVAL and a message such as "chunk sizes are unknown along axis 0; call
 * ca_array_compute_chunk_sizes". ca_array_compute_chunk_sizes() computes the sizes.
 *
 * Thread safety: all functions may be called concurrently on shared arrays.
 *
 * Example (x[x > 0].mean()):
 * @code
 *   ca_array_t *pos = NULL, *mask = NULL, *mean = NULL;
 *   ca_scalar_t zero = {CA_INT64, 0, 0.0, 0.0, 0};
 *   ca_array_binary_scalar(&mask, CA_OP_GT, x, zero, false);
 *   ca_array_mask_select(&pos, x, mask);                 // chunks ((nan, nan, ...),)
 *   ca_array_reduce(&mean, CA_RED_MEAN, pos, NULL, 0, false, NULL);
 * @endcode
 */
#ifndef CHUNKARRAY_SLICING_H
#define CHUNKARRAY_SLICING_H

#include "chunkarray/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A block size (and an axis extent) not known until computed: dask's NaN chunks. */
#define CA_CHUNK_UNKNOWN (-1)

/* ca_index_t kinds. Values are stable. */
/** The kind of one index of a subscript (ca_index_t.kind). */
typedef enum ca_index_kind_t CA_ENUM32 {
  CA_IDX_INT = 0, /**< `i`: one position (negative counts from the end); the axis is dropped */
  CA_IDX_SLICE = 1, /**< slice.start:stop:step, Python's rules (missing parts: their CA_SLICE_* bit clear) */
  CA_IDX_NEWAXIS = 2, /**< None / np.newaxis: a new axis of extent 1 */
  CA_IDX_ELLIPSIS = 3, /**< ...: as many whole axes as needed (at most one per index) */
  CA_IDX_ARRAY = 4, /**< `indices[0..nindices)`: an integer list (dask's take); one per index */
  CA_IDX_BOOL = 5, /**< `bools[0..nindices)`: a boolean list of the axis' extent (its true positions) */
  CA_IDX_MASK = 6, /**< `array`: a 1-d boolean array along this axis (unknown sizes along it) */
  CA_IDX_INDEX_ARRAY = 7, /**< `array`: a 1-d integer array of indices (ca_array_take_array); counts
                                    as the index's one integer list */
  CA_IDX__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_index_kind_t;

/** One item of an index tuple (Python's x[item, item, ...]). Fields not used by `kind` are ignored. */
typedef struct ca_index {
  ca_index_kind_t kind; /**< CA_IDX_* */
  int32_t reserved; /**< 0 */
  int64_t i;        /**< CA_IDX_INT */
  /** CA_IDX_SLICE: start:stop:step, the one slice struct of the API (kernel.h). slice.flags says which
   *  parts are present (CA_SLICE_START | CA_SLICE_STOP | CA_SLICE_STEP); an absent part is
   *  Python's None. A present step must not be 0. */
  ca_slice_t slice;
  const int64_t *indices;  /**< CA_IDX_ARRAY (borrowed for the call) */
  const uint8_t *bools;    /**< CA_IDX_BOOL: 0/1 bytes, NumPy's bool layout (borrowed for the call) */
  int64_t nindices;        /**< CA_IDX_ARRAY / CA_IDX_BOOL: number of entries */
  const ca_array_t *array; /**< CA_IDX_MASK / CA_IDX_INDEX_ARRAY (borrowed) */
} ca_index_t;

/** A whole axis (':'); set slice.start/stop/step and their CA_SLICE_* bits in slice.flags for
 *  other slices. */
#define CA_INDEX_SLICE_INIT {CA_IDX_SLICE, 0, 0, {0, 0, 1, 0u}, NULL, NULL, 0, NULL}
/** One position. */
#define CA_INDEX_INT_INIT(v) {CA_IDX_INT, 0, (v), {0, 0, 1, 0u}, NULL, NULL, 0, NULL}
/** A ca_index_t for numpy.newaxis. */
#define CA_INDEX_NEWAXIS_INIT {CA_IDX_NEWAXIS, 0, 0, {0, 0, 1, 0u}, NULL, NULL, 0, NULL}
/** A ca_index_t for an Ellipsis (...). */
#define CA_INDEX_ELLIPSIS_INIT {CA_IDX_ELLIPSIS, 0, 0, {0, 0, 1, 0u}, NULL, NULL, 0, NULL}

/**
 * x[idx[0], ..., idx[n-1]] as NumPy (basic indexing plus at most one integer list, boolean list or
 * integer index array, and 1-d boolean arrays along axes). A single CA_IDX_MASK whose array has x's dimensions (more than
 * one) is ca_array_mask_select(). Axes not mentioned are whole; an index that selects everything
 * returns a new reference to the same array (same name).
 * @param[out] out the result (NULL on failure).
 * @param a borrowed.
 * @param idx @p n items (may be NULL when n is 0: x[()]).
 * @return CA_OK; CA_EINVAL for a NULL argument, an unknown kind, too many indices ("too many indices
 *         for array: array is 2-dimensional, but 3 were indexed"), an index out of bounds ("index 10
 *         is out of bounds for axis 0 with size 10"), a zero slice step, two ellipses, more than one
 *         integer list (use ca_array_vindex()), a boolean list of the wrong length, or an axis of
 *         unknown chunk sizes indexed other than with ':'.
 */
CA_API ca_status_t ca_array_getitem(ca_array_t **out, const ca_array_t *a, const ca_index_t *idx, size_t n);

/**
 * dask's take: x[..., indices, ...] along @p axis (negative axis counts from the end). Indices may
 * be unsorted, repeated or negative.
 * @param indices @p n positions (borrowed; may be NULL when n is 0).
 * @return CA_OK; CA_EINVAL for a NULL argument, a bad axis, an index out of bounds (naming axis and
 *         size) or unknown chunk sizes along @p axis.
 */
CA_API ca_status_t ca_array_take(ca_array_t **out, const ca_array_t *a, const int64_t *indices, int64_t n,
                                 int32_t axis);

/**
 * dask's x[index_array]: take along @p axis with a 1-d integer array of indices whose values are
 * known only when computed. The result's chunks along @p axis are the index array's (unknown sizes
 * pass through); each output block gathers from the blocks of its row along @p axis.
 * @return CA_OK; CA_EINVAL for NULL arguments, a bad axis, a non-integer or non-1-d index array, or
 *         unknown chunk sizes of @p a along @p axis. An index out of bounds fails the compute with
 *         CA_EKERNEL ("index 12 is out of bounds for axis 0 with size 10").
 */
CA_API ca_status_t ca_array_take_array(ca_array_t **out, const ca_array_t *a, const ca_array_t *indices,
                                       int32_t axis);

/**
 * x[mask] with a boolean @p mask of x's shape: the selected elements in C order, 1-d, with blocks of
 * unknown size (::CA_CHUNK_UNKNOWN). As dask, x and the mask are first rechunked as ravel() would
 * (the axes after the first one made whole, that axis' blocks split to keep their count; nothing
 * moves when every leading block has extent 1), then each block gives one output block.
 * @return CA_OK; CA_EINVAL for NULL arguments, a non-boolean mask ("the mask must be a boolean
 *         array, got float64") or a shape mismatch ("boolean index did not match indexed array:
 *         array shape (4, 5), mask shape (4, 4)").
 */
CA_API ca_status_t ca_array_mask_select(ca_array_t **out, const ca_array_t *a, const ca_array_t *mask);

/**
 * x[:, ..., mask, ...]: a 1-d boolean @p mask along @p axis; the blocks keep their structure and
 * their sizes along @p axis become unknown.
 * @return CA_OK; CA_EINVAL for NULL arguments, a bad axis, a non-boolean or non-1-d mask or a
 *         length mismatch.
 */
CA_API ca_status_t ca_array_mask_select_axis(ca_array_t **out, const ca_array_t *a, const ca_array_t *mask,
                                             int32_t axis);

/** @return true when every block size of @p a is known (false for NULL). */
CA_API int ca_array_chunks_known(const ca_array_t *a);

/**
 * dask's compute_chunk_sizes: runs the graph keeping only each block's shape (blocks are freed as
 * soon as measured) and returns the same array (same name and graph) with known chunks. An array
 * whose sizes are known is returned as a new reference to itself.
 * @param ctx the context whose kernels and threads run the graph (required).
 * @param opts progress/cancellation options, may be NULL.
 * @return CA_OK; CA_EINVAL for NULL arguments; CA_EKERNEL / CA_ECANCELED / CA_ENOMEM from the run.
 */
CA_API ca_status_t ca_array_compute_chunk_sizes(ca_array_t **out, ca_context_t *ctx, const ca_array_t *a,
                                                const ca_compute_options_t *opts);

/**
 * Pointwise indexing (dask's x.vindex[i0, i1, ...]): point p is x[indices[0][p], indices[1][p], ...].
 * @param indices @p nidx arrays of @p n coordinates (nidx <= ndim), one per leading axis; an entry
 *        may be NULL for a whole axis, and axes after the first @p nidx are whole.
 * @param n number of points.
 * @return the result has shape (n,) followed by the whole axes' extents (dask puts the point axis
 *         first), one block along the point axis. CA_EINVAL for NULL arguments, no indexed axis,
 *         a coordinate out of bounds, too many indices or unknown chunk sizes.
 */
CA_API ca_status_t ca_array_vindex(ca_array_t **out, const ca_array_t *a, const int64_t *const *indices,
                                   int32_t nidx, int64_t n);

/* ca_index_options_t.mode values (32-bit, pinned). */
/** How a subscript with several arrays is read (ca_index_options_t.mode). */
typedef enum ca_index_mode_t CA_ENUM32 {
  CA_INDEX_NUMPY = 0, /**< NumPy's x[...] (see ca_array_index()) */
  CA_INDEX_VECTORIZED = 1, /**< dask's x.vindex[...] */
  CA_INDEX_OUTER = 2, /**< x.oindex[...] (zarr's and xarray's outer / orthogonal indexing) */
  CA_INDEX__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_index_mode_t;

/** Options of ca_array_index(). Fields are only appended; set struct_size (CA_INDEX_OPTIONS_INIT). */
typedef struct ca_index_options {
  uint32_t struct_size; /**< sizeof(ca_index_options_t) */
  ca_index_mode_t mode; /**< CA_INDEX_NUMPY (default), CA_INDEX_VECTORIZED or CA_INDEX_OUTER */
  /** Per index item (the `n` items of the call), the number of dimensions of a CA_IDX_ARRAY or
   *  CA_IDX_BOOL item: its `nindices` values are then an array of shape `shapes[k][0..ndims[k])` in
   *  C order (0 for a 0-d integer array). NULL: every such item is 1-d. Ignored for other kinds. */
  const int32_t *ndims;
  /** Per index item, its shape when `ndims` is set (an entry may be NULL for items that are not
   *  arrays or are 1-d); borrowed for the call. */
  const int64_t *const *shapes;
} ca_index_options_t;

/** The defaults of ca_index_options_t (NumPy's indexing). */
#define CA_INDEX_OPTIONS_INIT {sizeof(ca_index_options_t), CA_INDEX_NUMPY, NULL, NULL}

/**
 * x[idx[0], ..., idx[n-1]] with advanced indexing:
 * - CA_INDEX_NUMPY: NumPy's rules. Any number of integer arrays (CA_IDX_ARRAY, any shape) and
 *   boolean arrays (CA_IDX_BOOL, any shape: a k-d boolean array covers k axes and stands for its
 *   nonzero positions) broadcast together; integers among them count as 0-d arrays. The broadcast
 *   dimensions replace the indexed axes when all advanced items are adjacent, and come first
 *   otherwise (x[:, [0, 1], [1, 2]] has shape (d0, 2); x[[0, 1], :, 0] has shape (2, d1)). Slices,
 *   None and one Ellipsis mix freely. An index with at most one 1-d array is ca_array_getitem()
 *   (dask's take chunks, lazy CA_IDX_INDEX_ARRAY / CA_IDX_MASK allowed).
 * - CA_INDEX_VECTORIZED: dask's vindex. Integers drop their axis and slices apply first; the
 *   integer arrays broadcast together and their dimensions always come first, followed by the
 *   remaining axes. No None and no boolean arrays; with slices only, the slices must select
 *   everything (the array itself is returned).
 * - CA_INDEX_OUTER: each 1-d integer or boolean array (also a lazy CA_IDX_INDEX_ARRAY or 1-d
 *   CA_IDX_MASK) selects along its own axis independently (the result has one axis per array, as
 *   np.ix_); integers drop their axis.
 * Points are gathered as dask's _vindex_array: the point axis is split into blocks of
 * prod(largest input chunk along the indexed axes) points, and each output block reads only the
 * input blocks its points fall in. Outer indexing is one take per array (dask's chunks).
 * @param[out] out the result (NULL on failure).
 * @param a borrowed.
 * @param idx @p n items (may be NULL when n is 0), borrowed for the call.
 * @param opts borrowed, may be NULL (CA_INDEX_OPTIONS_INIT: NumPy mode, 1-d arrays).
 * @return CA_OK; CA_EINVAL for a NULL @p a, @p out or @p idx (with n > 0), an unknown mode or item
 *         kind, an array shape whose product is not `nindices`, too many indices, an index out of
 *         bounds ("index 10 is out of bounds for axis 0 with size 10"), arrays that do not broadcast
 *         ("shape mismatch: indexing arrays could not be broadcast together with shapes (2,) (3,)"),
 *         a boolean array of the wrong shape, None or boolean arrays in vindex, a 2+-d array in outer
 *         mode, a lazy index array combined with other arrays outside outer mode, or unknown chunk
 *         sizes along an indexed axis.
 */
CA_API ca_status_t ca_array_index(ca_array_t **out, const ca_array_t *a, const ca_index_t *idx, size_t n,
                                  const ca_index_options_t *opts);

/**
 * x[idx] = value as a new array (dask's setitem; @p a is unchanged). @p idx holds integers, slices
 * (any step), at most one integer or boolean list (CA_IDX_ARRAY / CA_IDX_BOOL: unsorted, negative
 * and repeated positions allowed; a repeated position keeps the last value, as NumPy) and at most
 * one Ellipsis. @p value is broadcast to the shape of x[idx] and converted
 * to x's dtype as NumPy's assignment does (floats truncated into integers). Blocks outside the region
 * are shared with @p a; only the blocks it touches are copied.
 * @return CA_OK; CA_EINVAL for NULL arguments, other index kinds, an index out of bounds, a value
 *         that does not broadcast ("could not broadcast input array from shape (3, 3) into shape
 *         (3, 4)") or unknown chunk sizes.
 */
CA_API ca_status_t ca_array_setitem(ca_array_t **out, const ca_array_t *a, const ca_index_t *idx, size_t n,
                                    const ca_array_t *value);

/** x[idx] = scalar (see ca_array_setitem()); CA_EINVAL also for NaN/inf or out-of-range floats into
 *  an integer array ("cannot convert float nan to integer"). */
CA_API ca_status_t ca_array_setitem_scalar(ca_array_t **out, const ca_array_t *a, const ca_index_t *idx, size_t n,
                                           ca_scalar_t value);

/**
 * x[mask] = value with a boolean @p mask of x's shape: where(mask, value, x), kept in x's dtype
 * (dask's __setitem__ with an array key), fused like any elementwise operation; chunks as for
 * ca_array_binary() of x and the mask.
 * @return CA_OK; CA_EINVAL for NULL arguments, a non-boolean mask or a shape mismatch.
 */
CA_API ca_status_t ca_array_mask_set(ca_array_t **out, const ca_array_t *a, const ca_array_t *mask,
                                     ca_scalar_t value);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_SLICING_H */
