/**
 * @file chunkarray/routines.h
 * @brief NumPy routines: *_like, indices, meshgrid, broadcast_arrays, tril/triu and their indices,
 * diagonal; sort/argsort; unique, isin, union1d; searchsorted, digitize, nonzero, flatnonzero,
 * argwhere; roll, rot90, rollaxis; insert, delete, choose, select; coarsen; bincount; histogram,
 * histogram2d, histogramdd; ravel_multi_index, unravel_index.
 *
 * Values are NumPy's; the chunks of each result are the ones dask.array computes for the same call
 * on the same input chunks. dask has no general sort: ca_array_sort() makes the sorted axis one block
 * and keeps the other axes' chunks (what the Python array API's sort needs). Results whose size
 * depends on the data (unique, nonzero, argwhere, tril_indices, ...) have blocks of unknown size
 * (::CA_CHUNK_UNKNOWN, dask's NaN chunks; see chunkarray/slicing.h): compute them, or call
 * ca_array_compute_chunk_sizes() before operations that need sizes.
 *
 * Orders are NumPy's: NaNs sort last, complex numbers lexicographically (NumPy's NaN rules), sorts
 * are stable. Sorting, set and search routines take bool, integer, floating and complex dtypes
 * (CA_ETYPE for others); two inputs are compared in their promoted dtype.
 *
 * Common to every function: outputs receive new arrays (free each with ca_array_free()), all NULL
 * on failure; input arrays are borrowed. Errors: CA_EINVAL (a NULL argument, an axis out of range,
 * shapes that do not broadcast, unknown chunk sizes where sizes are needed) with a message naming
 * the problem; CA_ETYPE (a dtype the routine does not take); CA_ENOMEM. Negative axes count from
 * the end. Nothing runs until a compute; errors that depend on values (digitize's bins that are
 * not monotonic) fail that compute.
 * Thread safety: arrays are immutable; these functions may run concurrently.
 *
 * Example (the unique values of x and how often each occurs):
 * @code
 *   ca_array_t *values = NULL, *counts = NULL;
 *   if (ca_array_unique(&values, NULL, NULL, &counts, x, 0) != CA_OK) puts(ca_last_error_message());
 *   // values and counts: one block each, chunks ((nan,),) until computed
 * @endcode
 */
#ifndef CHUNKARRAY_ROUTINES_H
#define CHUNKARRAY_ROUTINES_H

#include "chunkarray/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------ */
/* Creation                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

/** Options of the *_like functions. Start from CA_LIKE_OPTIONS_INIT; fields are only appended. */
typedef struct ca_like_options {
  uint32_t struct_size;      /**< sizeof(ca_like_options_t) */
  ca_dtype_t dtype;          /**< the result's dtype; CA_DTYPE_INVALID (default): the input's */
  int32_t ndim;              /**< -1 (default): the input's shape; otherwise the new shape's ndim */
  const int64_t *shape;      /**< with ndim >= 0: the new shape (borrowed for the call; may be NULL for ndim 0) */
  const ca_chunks_t *chunks; /**< the result's chunks (borrowed for the call); NULL: the input's chunks for
                                  its own shape, dask's "auto" chunks for a new shape */
  int64_t limit;             /**< "auto": bytes per block; 0 (default): 128 MiB */
} ca_like_options_t;
/** ca_like_options_t's defaults: the input's dtype, shape and chunks. */
#define CA_LIKE_OPTIONS_INIT {sizeof(ca_like_options_t), CA_DTYPE_INVALID, -1, NULL, NULL, 0}

/**
 * dask's empty_like(a, dtype=, shape=, chunks=): contents unspecified (zeros in practice).
 * @param a borrowed; its chunks must be known unless @p opts gives a shape or chunks.
 * @param opts borrowed, may be NULL (the defaults of CA_LIKE_OPTIONS_INIT: a's dtype, shape and chunks).
 * @return CA_OK; CA_EINVAL (NULL out or a, opts->struct_size too small, a negative extent, chunks
 *         that do not fit the shape, unknown chunk sizes of a); CA_ETYPE (invalid dtype); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_empty_like(ca_array_t **out, const ca_array_t *a, const ca_like_options_t *opts);
/** dask's zeros_like. @param opts borrowed, may be NULL. @return as ca_array_empty_like(). */
CA_API ca_status_t ca_array_zeros_like(ca_array_t **out, const ca_array_t *a, const ca_like_options_t *opts);
/** dask's ones_like. @param opts borrowed, may be NULL. @return as ca_array_empty_like(). */
CA_API ca_status_t ca_array_ones_like(ca_array_t **out, const ca_array_t *a, const ca_like_options_t *opts);
/**
 * dask's full_like(a, value): @p value converted to the result's dtype as NumPy's unsafe cast
 * (integers truncate, bool is value != 0; the conversion goes through a double, so integers beyond
 * 2^53 are rounded).
 * @param opts borrowed, may be NULL.
 * @return as ca_array_empty_like(); CA_EINVAL also for an invalid scalar kind.
 */
CA_API ca_status_t ca_array_full_like(ca_array_t **out, const ca_array_t *a, ca_scalar_t value,
                                      const ca_like_options_t *opts);

/**
 * np.indices(dimensions, dtype): shape (ndim, *dimensions); element [c, i0, i1, ...] is i_c. dask's
 * chunks: ((1,) * ndim, *chunks). One symbolic layer: every block is generated from its position.
 * @param dims borrowed, @p ndim non-negative extents (may be NULL when ndim is 0).
 * @param chunks borrowed: normalized chunks of @p dims (ndim dimensions).
 * @return CA_OK; CA_EINVAL (NULL out or chunks, NULL dims with ndim > 0, ndim out of range, negative
 *         extents, chunks that do not fit); CA_ETYPE (a dtype that is not bool, integer, floating or
 *         complex); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_indices(ca_array_t **out, int32_t ndim, const int64_t *dims, const ca_chunks_t *chunks,
                                    ca_dtype_t dtype);

/** ca_array_meshgrid indexing. Values are pinned. */
typedef enum ca_meshgrid_indexing_t CA_ENUM32 {
  CA_MESHGRID_XY = 0, /**< Cartesian (NumPy's default): the first two output axes swapped */
  CA_MESHGRID_IJ = 1, /**< matrix indexing */
  CA_MESHGRID__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_meshgrid_indexing_t;

/**
 * np.meshgrid(*arrays, indexing, sparse) with dask's chunks: each input is raveled and keeps its
 * chunks along its own output axis; the other axes are one block of extent 1 (sparse) or the other
 * inputs' chunks (broadcast).
 * @param[out] out caller's array of @p n pointers; each receives an owned array; all NULL on failure.
 * @param arrays borrowed, @p n arrays (may be NULL when n is 0), none NULL.
 * @param sparse 0 or 1.
 * @return CA_OK; CA_EINVAL (NULL out, arrays NULL with n > 0, a NULL array, an unknown indexing,
 *         more than CA_MAX_NDIM arrays, arrays of unknown chunk sizes and several dimensions);
 *         CA_ENOMEM.
 */
CA_API ca_status_t ca_array_meshgrid(ca_array_t **out, const ca_array_t *const *arrays, size_t n,
                                     ca_meshgrid_indexing_t indexing, int sparse);

/**
 * np.broadcast_arrays(*arrays) with dask's chunks: the inputs' chunks are unified along their
 * trailing axes (rechunked to the common refinement where they differ), then each is broadcast to
 * the common shape.
 * @param[out] out caller's array of @p n pointers; each receives an owned array; all NULL on failure.
 * @param arrays borrowed, @p n arrays (may be NULL when n is 0), none NULL.
 * @return CA_OK; CA_EINVAL (NULL out, arrays NULL with n > 0, a NULL array, shapes that do not
 *         broadcast: "shape mismatch: objects cannot be broadcast to a single shape: (2,) (3,)");
 *         CA_ENOMEM.
 */
CA_API ca_status_t ca_array_broadcast_arrays(ca_array_t **out, const ca_array_t *const *arrays, size_t n);

/**
 * np.tril(m, k): the elements above the k-th diagonal of the last two axes set to zero (dask: where
 * with a tri mask chunked like @p m, so the result keeps m's chunks and dtype).
 * @param m borrowed, at least 2-d.
 * @return CA_OK; CA_EINVAL (NULL out or m, fewer than 2 dimensions, unknown chunk sizes along the
 *         last two axes); CA_ETYPE (a bytes or unicode dtype); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_tril(ca_array_t **out, const ca_array_t *m, int64_t k);
/** np.triu(m, k): the elements below the k-th diagonal set to zero. @return as ca_array_tril(). */
CA_API ca_status_t ca_array_triu(ca_array_t **out, const ca_array_t *m, int64_t k);

/**
 * np.tril_indices(n, k, m) with dask's chunks (nonzero of a tri mask with @p chunks): the row and the
 * column indices (int64) of the lower triangle in C order, blocks of unknown size.
 * For np.tril_indices_from(arr, k) pass arr's shape and chunks.
 * @param[out] rows, cols receive owned arrays; both NULL on failure.
 * @param m columns (negative: @p n, NumPy's m=None).
 * @param chunks borrowed: normalized 2-d chunks of (n, m).
 * @return CA_OK; CA_EINVAL (NULL rows, cols or chunks, negative n, chunks that do not fit); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_tril_indices(ca_array_t **rows, ca_array_t **cols, int64_t n, int64_t k, int64_t m,
                                         const ca_chunks_t *chunks);
/** np.triu_indices(n, k, m): the upper triangle (see ca_array_tril_indices()).
 *  @param[out] rows, cols receive owned arrays; both NULL on failure.
 *  @return as ca_array_tril_indices(). */
CA_API ca_status_t ca_array_triu_indices(ca_array_t **rows, ca_array_t **cols, int64_t n, int64_t k, int64_t m,
                                         const ca_chunks_t *chunks);

/**
 * np.diagonal(a, offset, axis1, axis2) with dask's chunks: the other axes keep their order and
 * chunks, the diagonal is the last axis with one block per input block it crosses.
 * @return CA_OK; CA_EINVAL (NULL out or a, fewer than 2 dimensions, an axis out of range, axis1 ==
 *         axis2, unknown chunk sizes along axis1 or axis2); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_diagonal(ca_array_t **out, const ca_array_t *a, int64_t offset, int32_t axis1,
                                     int32_t axis2);

/* ------------------------------------------------------------------------------------------------ */
/* Sorting, sets, searching                                                                          */
/* ------------------------------------------------------------------------------------------------ */

/**
 * np.sort(a, axis) (stable, NaNs last). @p axis is rechunked into one block; the other axes keep
 * their chunks. With @p descending (0 or 1): the stable descending order, NaNs first (as the array
 * API's sort(descending=True) in numpy.array_api).
 * @return CA_OK; CA_EINVAL (NULL out or a, an axis out of range (also for 0-d arrays), unknown chunk
 *         sizes along @p axis); CA_ETYPE (a dtype other than bool, integer, floating or complex);
 *         CA_ENOMEM.
 */
CA_API ca_status_t ca_array_sort(ca_array_t **out, const ca_array_t *a, int32_t axis, int descending);
/** np.argsort(a, axis, kind='stable'): the int64 indices that sort @p a along @p axis (see
 *  ca_array_sort()). @return as ca_array_sort(). */
CA_API ca_status_t ca_array_argsort(ca_array_t **out, const ca_array_t *a, int32_t axis, int descending);

/** ca_array_unique() flag: each NaN is a value of its own (the array API's rule); without it NaNs
 *  collapse into one (NumPy's equal_nan=True default). */
#define CA_UNIQUE_DISTINCT_NAN 1u

/**
 * np.unique(a, return_index, return_inverse, return_counts) over the flattened array.
 * The values (a's dtype, sorted), the index of each value's first occurrence and the counts (int64)
 * are one block of unknown size each, computed by one task over all of a's blocks (the flattened
 * array is held in memory once); the inverse (int64, the position of each element's value among the
 * values, flattened as NumPy 1.x returns it) has the raveled array's chunks and is computed block by
 * block.
 * @param[out] values receives the unique values (required).
 * @param[out] index, inverse, counts may be NULL: not computed. Each non-NULL one receives an owned
 *         array. Every output is NULL on failure.
 * @param flags 0 or CA_UNIQUE_DISTINCT_NAN.
 * @return CA_OK; CA_EINVAL (NULL values or a, unknown flag bits, unknown chunk sizes of a
 *         multi-dimensional a); CA_ETYPE (a dtype other than bool, integer, floating or complex);
 *         CA_ENOMEM.
 */
CA_API ca_status_t ca_array_unique(ca_array_t **values, ca_array_t **index, ca_array_t **inverse,
                                   ca_array_t **counts, const ca_array_t *a, uint32_t flags);

/**
 * np.isin(element, test_elements, invert): bool with element's chunks (NaN is never found).
 * @p test_elements is flattened into one block and sorted in each task; each element is a binary
 * search.
 * @param invert 0 or 1.
 * @return CA_OK; CA_EINVAL (NULL out, element or test_elements; unknown chunk sizes of a multi-block
 *         test_elements); CA_ETYPE (dtypes that are not bool, integer, floating or complex, or
 *         without a common dtype); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_isin(ca_array_t **out, const ca_array_t *element, const ca_array_t *test_elements,
                                 int invert);

/**
 * np.union1d(a, b): the sorted unique values of both, flattened (one block of unknown size).
 * @return as ca_array_unique(); CA_EINVAL also for a NULL b.
 */
CA_API ca_status_t ca_array_union1d(ca_array_t **out, const ca_array_t *a, const ca_array_t *b);

/** ca_array_searchsorted sides. Values are pinned. */
typedef enum ca_side_t CA_ENUM32 {
  CA_SIDE_LEFT = 0, /**< the first suitable position */
  CA_SIDE_RIGHT = 1, /**< the last suitable position */
  CA_SIDE__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_side_t;

/**
 * np.searchsorted(a, v, side, sorter): int64 insertion positions with v's chunks (v may have any
 * shape, also 0-d). @p a (1-d, sorted as NumPy sorts, or put in order by @p sorter) is made one
 * block and read whole by each task.
 * @param sorter borrowed, may be NULL: otherwise a 1-d integer array of the indices that sort @p a
 *        (an index out of bounds fails the compute).
 * @return CA_OK; CA_EINVAL (NULL out, a or v; a not 1-d; an unknown side; a sorter that is not a
 *         1-d integer array of a's length; unknown chunk sizes of a multi-block a); CA_ETYPE (dtypes
 *         that are not bool, integer, floating or complex, or without a common dtype); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_searchsorted(ca_array_t **out, const ca_array_t *a, const ca_array_t *v, ca_side_t side,
                                         const ca_array_t *sorter);

/**
 * np.digitize(x, bins, right): int64 bin indices with x's chunks (dask's map_blocks over x). @p bins
 * is 1-d and monotonically increasing or decreasing; it is checked when computed (a compute with
 * other bins fails with "digitize: bins must be monotonically increasing or decreasing").
 * @param right 0 or 1.
 * @return CA_OK; CA_EINVAL (NULL out, x or bins; bins not 1-d); CA_ETYPE (complex x or bins, other
 *         dtypes that are not bool, integer or floating); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_digitize(ca_array_t **out, const ca_array_t *x, const ca_array_t *bins, int right);

/**
 * np.argwhere(a) with dask's chunks: (unknown, ndim) int64, the indices of the nonzero elements in
 * C order; one block per block of the raveled a (dask's compress of indices()).
 * @return CA_OK; CA_EINVAL (NULL out or a, unknown chunk sizes); CA_ETYPE (bytes or unicode dtypes);
 *         CA_ENOMEM.
 */
CA_API ca_status_t ca_array_argwhere(ca_array_t **out, const ca_array_t *a);

/**
 * np.nonzero(a): one int64 array per axis of @p a (columns of ca_array_argwhere()).
 * @param[out] out caller's array of ca_array_ndim(a) pointers; each receives an owned array; all
 *         NULL on failure.
 * @return as ca_array_argwhere(); CA_EINVAL also for a 0-d a.
 */
CA_API ca_status_t ca_array_nonzero(ca_array_t **out, const ca_array_t *a);

/** np.flatnonzero(a): the nonzero positions of the raveled a (int64, unknown block sizes).
 *  @return as ca_array_argwhere(). */
CA_API ca_status_t ca_array_flatnonzero(ca_array_t **out, const ca_array_t *a);

/* ------------------------------------------------------------------------------------------------ */
/* Manipulation                                                                                      */
/* ------------------------------------------------------------------------------------------------ */

/**
 * np.roll(a, shifts, axes) as dask (per axis, the two slices concatenated).
 * @param shifts borrowed, @p n shifts (any sign and size).
 * @param axes borrowed, @p n axes; NULL: the flattened array is rolled by shifts[0] (n must be 1) and
 *        reshaped back.
 * @return CA_OK; CA_EINVAL (NULL out, a or shifts; n < 1; an axis out of range; unknown chunk sizes
 *         along a rolled axis); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_roll(ca_array_t **out, const ca_array_t *a, const int64_t *shifts, const int32_t *axes,
                                 int32_t n);

/**
 * np.rot90(m, k, axes=(axis0, axis1)) as dask (flips and a transpose).
 * @return CA_OK; CA_EINVAL (NULL out or m, fewer than 2 dimensions, equal axes, an axis out of range);
 *         CA_ENOMEM.
 */
CA_API ca_status_t ca_array_rot90(ca_array_t **out, const ca_array_t *m, int64_t k, int32_t axis0, int32_t axis1);

/**
 * np.rollaxis(a, axis, start).
 * @return CA_OK; CA_EINVAL (NULL out or a, axis or start out of range); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_rollaxis(ca_array_t **out, const ca_array_t *a, int32_t axis, int32_t start);

/**
 * np.insert(arr, obj, values, axis) with dask's chunks: @p arr is split at the distinct positions and
 * the values are placed between the pieces (empty pieces dropped), then everything is concatenated
 * along @p axis. The values are cast to arr's dtype (NumPy's rule) and broadcast to arr's shape with
 * @p n along @p axis; they keep their own chunks along @p axis and take arr's along the others.
 * Values for equal or unsorted positions go in the stable order of their positions (NumPy's), which
 * dask does not support. For NumPy's scalar obj (values inserted as a block at one position) pass the
 * position @p n times, the values' axis moved to @p axis; for axis=None pass the raveled array.
 * @param positions borrowed, @p n positions (negative count from the end; 0..extent of the axis);
 *        may be NULL when n is 0 (the result is @p arr).
 * @param values borrowed.
 * @return CA_OK; CA_EINVAL (NULL out, arr or values; positions NULL with n > 0; an axis or position
 *         out of range: "index 7 is out of bounds for axis 0 with size 5"; values that do not
 *         broadcast; unknown chunk sizes); CA_ETYPE (values that do not cast to arr's dtype);
 *         CA_ENOMEM.
 */
CA_API ca_status_t ca_array_insert(ca_array_t **out, const ca_array_t *arr, const int64_t *positions, size_t n,
                                   const ca_array_t *values, int32_t axis);

/**
 * np.delete(arr, obj, axis) with dask's chunks: arr split at the sorted distinct positions, each
 * piece after the first without its first element, concatenated along @p axis.
 * @param positions borrowed, @p n positions (negative count from the end; repeats allowed); may be
 *        NULL when n is 0 (the result is @p arr). For axis=None pass the raveled array.
 * @return CA_OK; CA_EINVAL (NULL out or arr; positions NULL with n > 0; an axis or position out of
 *         range: "index 5 is out of bounds for axis 0 with size 5"; unknown chunk sizes along
 *         @p axis); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_delete(ca_array_t **out, const ca_array_t *arr, const int64_t *positions, size_t n,
                                   int32_t axis);

/** ca_array_choose's handling of indices outside [0, n) (NumPy's mode=). Values are pinned. */
typedef enum ca_choose_mode_t CA_ENUM32 {
  CA_CHOOSE_RAISE = 0, /**< the compute fails with "choose: invalid entry in choice array" */
  CA_CHOOSE_WRAP = 1,  /**< the index taken modulo n */
  CA_CHOOSE_CLIP = 2,  /**< the index clipped to [0, n - 1] */
  CA_CHOOSE__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_choose_mode_t;

/**
 * np.choose(a, choices, mode) (dask's choose and Array.choose): element i is choices[a[i]][i]. @p a and
 * the choices are broadcast together with dask's elementwise chunks; the result has the choices'
 * common dtype. One task per block gathers from the choices' blocks.
 * @param a borrowed, a bool or integer array.
 * @param choices borrowed, @p n arrays (n >= 1), none NULL.
 * @return CA_OK; CA_EINVAL (NULL out or a, choices NULL or n == 0, a NULL choice, an unknown mode,
 *         shapes that do not broadcast); CA_ETYPE (a not bool or integer; choices without a common
 *         dtype); CA_ENOMEM. With ::CA_CHOOSE_RAISE an index out of range fails the compute.
 */
CA_API ca_status_t ca_array_choose(ca_array_t **out, const ca_array_t *a, const ca_array_t *const *choices, size_t n,
                                   ca_choose_mode_t mode);

/**
 * np.select(condlist, choicelist, default): where the first true condition is, its choice; where
 * none is, @p default_value. One fused elementwise expression (a chain of where), all operands
 * broadcast together; the dtype is NumPy's result_type of the choices and the default.
 * @param conditions borrowed, @p n bool arrays (n >= 1).
 * @param choices borrowed, @p n arrays.
 * @param default_value a scalar (a Python scalar's value-based promotion, or a typed scalar).
 * @return CA_OK; CA_EINVAL (NULL out, conditions or choices, n == 0, a NULL array, shapes that do not
 *         broadcast); CA_ETYPE (a condition that is not bool: "invalid entry 0 in condlist: should be
 *         boolean ndarray"; no common dtype); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_select(ca_array_t **out, const ca_array_t *const *conditions,
                                   const ca_array_t *const *choices, size_t n, ca_scalar_t default_value);

/**
 * dask's coarsen(reduction, x, {axis: factor}, trim_excess): x reduced over non-overlapping windows of
 * @p factors elements (NumPy's reduction of x.reshape(n0 / f0, f0, n1 / f1, f1, ...) over the window
 * axes). The chunks are first aligned to the factors as dask's aligned_coarsen_chunks does, so every
 * window lies in one block; the result has dask's chunks (each block divided by the factor).
 * @param op a builtin reduction other than the arg-reductions (CA_RED_SUM, CA_RED_MEAN, CA_RED_MAX, ...;
 *        NumPy's default result dtype).
 * @param factors borrowed, ca_array_ndim(x) window sizes, each >= 1 (1: the axis is untouched); may be
 *        NULL for a 0-d x.
 * @param trim_excess 0: every extent must be a multiple of its factor; 1: the excess at the end of each
 *        axis is dropped.
 * @return CA_OK; CA_EINVAL (NULL out, x or factors (with ndim > 0); a factor < 1; extents that are not
 *         multiples without trim_excess: "Coarsening factors {0: 3} do not align with array shape
 *         (10,)."; an arg-reduction or unknown op; unknown chunk sizes); CA_ETYPE (the reduction is not
 *         defined for x's dtype); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_coarsen(ca_array_t **out, ca_reduction_t op, const ca_array_t *x, const int64_t *factors,
                                    int trim_excess);

/** ca_array_bincount()'s length for a result max(max(x) + 1, @p minlength) long, found by the compute
 *  (unknown size): NumPy's bincount(x, minlength=m) in one pass. A negative value (-1 - m). */
#define CA_BINCOUNT_AT_LEAST(minlength) (-1 - (int64_t)(minlength))
/** ca_array_bincount()'s length for a result max(x) + 1 long (CA_BINCOUNT_AT_LEAST(0)). */
#define CA_BINCOUNT_AUTO (-1)

/**
 * np.bincount(x, weights) with a result of @p length elements: how often each value 0..length-1
 * occurs in @p x (int64), or with @p weights the sum of the weights of its occurrences (float64, NumPy's
 * double). Each block counts into a row (one task per block), the rows are summed by a tree
 * reduction (dask's scheme); the result is one block. NumPy's length is max(max(x) + 1, minlength):
 * either the caller determines it (a reduction of x, computed before) and passes it, or passes
 * #CA_BINCOUNT_AT_LEAST(minlength) (#CA_BINCOUNT_AUTO for 0): then each block counts up to its own
 * maximum, the tree pads and sums the rows, and the result's length is max(max(x) + 1, minlength),
 * unknown until computed (dask's nan chunk, as dask.array.bincount without minlength); a negative
 * value fails the compute with NumPy's "'list' argument must have no negative elements".
 * @param x borrowed, 1-d, a bool or integer dtype that casts safely to int64 (not uint64, as NumPy), known
 *        chunk sizes.
 * @param weights borrowed, may be NULL (counts); otherwise x's shape, a real numeric dtype (rechunked
 *        like x when its chunks differ).
 * @param length the result's length (>= 0), or #CA_BINCOUNT_AT_LEAST(m) (< 0). A value of x outside [0, length)
 *        fails the compute with "bincount: value 12 is outside [0, 10)".
 * @param split_every blocks combined per tree node (0: dask's default).
 * @return CA_OK; CA_EINVAL (NULL out or x, x not 1-d, a length of INT64_MIN, weights of another shape,
 *         unknown chunk sizes); CA_ETYPE (x not bool or integer, complex or non-numeric weights);
 *         CA_ENOMEM.
 */
CA_API ca_status_t ca_array_bincount(ca_array_t **out, const ca_array_t *x, const ca_array_t *weights, int64_t length,
                                     int32_t split_every);

/** One dimension's bins of ca_array_histogramdd(): @p nbins equal bins over [@p lo, @p hi]
 *  (NumPy's bins=int with range=(lo, hi)), or, with @p nbins 0, the edges in @p edges
 *  (NumPy's bins=array). */
typedef struct ca_histogram_bins {
  int64_t nbins;           /**< > 0: that many equal bins over [lo, hi]; 0: the bins are @p edges */
  double lo;               /**< nbins > 0: the lower outer edge (finite, <= hi; lo == hi: [lo - 0.5, hi + 0.5]) */
  double hi;               /**< nbins > 0: the upper outer edge (finite) */
  const ca_array_t *edges; /**< nbins == 0: borrowed 1-d array of at least one edge, a real numeric dtype,
                                monotonically increasing (checked at compute; any chunks); otherwise NULL */
} ca_histogram_bins_t;

/** ca_histogram_options_t::mode: whose semantics ca_array_histogramdd() follows. Values are pinned. */
typedef enum ca_histogram_mode_t CA_ENUM32 {
  /** numpy.histogram (one sample): int64 counts, or the weights' sums in the weights' dtype; uniform
   *  edges in NumPy's bin type (float32 for float16/float32 samples, float64 otherwise; float16
   *  samples get float16 edges, binned in float32); uniform bins found as NumPy's computed index. */
  CA_HISTOGRAM_1D = 0,
  /** numpy.histogramdd / histogram2d: float64 counts (complex128 with complex weights), float64
   *  uniform edges, every value placed by a search of the edges (NumPy's searchsorted(side='right')). */
  CA_HISTOGRAM_DD = 1,
  CA_HISTOGRAM__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_histogram_mode_t;

/** Options of ca_array_histogramdd(). Start from CA_HISTOGRAM_OPTIONS_INIT; fields are only appended. */
typedef struct ca_histogram_options {
  uint32_t struct_size;       /**< sizeof(ca_histogram_options_t) */
  const ca_array_t *weights;  /**< borrowed, may be NULL (counts); otherwise the samples' shape, numeric
                                   (rechunked like the samples when its chunks differ) */
  int32_t density;            /**< non-zero: NumPy's density=True (counts / total / bin volume) */
  ca_histogram_mode_t mode;   /**< CA_HISTOGRAM_1D (default) or CA_HISTOGRAM_DD */
  int32_t split_every;        /**< partial histograms summed per tree node; 0 = dask's 16 */
} ca_histogram_options_t;
/** ca_histogram_options_t's defaults: no weights, counts, numpy.histogram's semantics. */
#define CA_HISTOGRAM_OPTIONS_INIT {sizeof(ca_histogram_options_t), NULL, 0, CA_HISTOGRAM_1D, 0}

/**
 * numpy.histogram (D = 1, ::CA_HISTOGRAM_1D), numpy.histogram2d (D = 2) and numpy.histogramdd
 * (::CA_HISTOGRAM_DD) with dask.array's scheme: one task per block of the samples counts the block's
 * values into a partial histogram (the elementwise expressions feeding the samples and the weights
 * are evaluated inside that task, never stored), a tree reduction sums the partials (dask's sum over
 * the stacked per-block histograms), one pass over the data. The result is one block per axis, as
 * dask's (shape (nbins_0, ..., nbins_{D-1})).
 *
 * Semantics (NumPy 1.24): the samples are flattened in C order (the D samples element by element);
 * values outside [first edge, last edge] and NaNs are ignored; the last bin is closed on the right,
 * the others half-open. Without weights the CA_HISTOGRAM_1D result is int64; with weights it has the
 * weights' dtype (sums accumulate in int64, float64 or complex128 and are converted at the end); with
 * density float64 (complex128 for complex weights): counts / bin width / total (CA_HISTOGRAM_DD:
 * divided by each dimension's widths, then by the total). The CA_HISTOGRAM_DD result is float64
 * (complex128 with complex weights; NumPy rejects those). A zero total with density gives NaNs, as
 * NumPy. Samples are compared with the edges in float64 (float32 for float32 samples with uniform
 * CA_HISTOGRAM_1D bins, as NumPy), so integers beyond 2^53 are rounded.
 *
 * Edges (@p edges_out): uniform bins get NumPy's linspace edges (an array of one block, dtype as the
 * mode says); given edges are returned as given (the same array, dask's). A range is required for
 * uniform bins (dask's rule: it does not compute min/max), so ::ca_histogram_bins_t always has one.
 *
 * @param[out] out the histogram (owned).
 * @param[out] edges_out caller's array of @p d pointers, may be NULL; each receives the edges of its
 *        dimension (owned); all NULL on failure.
 * @param samples borrowed, @p d arrays of one shape (any shape; 0-d counts as one value), bool,
 *        integer or floating dtypes, known chunk sizes; rechunked like the first where they differ.
 * @param d the number of dimensions (>= 1; 1 for CA_HISTOGRAM_1D).
 * @param bins borrowed, @p d bin specifications.
 * @param opts borrowed, may be NULL (CA_HISTOGRAM_OPTIONS_INIT).
 * @return CA_OK; CA_EINVAL (NULL out, samples or bins, d == 0, a NULL sample, d != 1 with
 *         CA_HISTOGRAM_1D, an unknown mode, samples of different shapes, unknown chunk sizes, weights
 *         of another shape ("histogram: weights should have the same shape as a."), nbins < 0, a
 *         uniform dimension with nbins > 0 and lo > hi ("max must be larger than min in range
 *         parameter.") or a non-finite range ("supplied range of [0, inf] is not finite"), nbins 0
 *         without edges, edges that are not 1-d or empty, more bins than int64 holds,
 *         opts->struct_size too small); CA_ETYPE (complex or non-numeric samples, non-numeric
 *         weights, complex or non-numeric edges); CA_ENOMEM. Edges that do not increase fail the
 *         compute ("histogram: `bins` must increase monotonically, when an array").
 */
CA_API ca_status_t ca_array_histogramdd(ca_array_t **out, ca_array_t **edges_out, const ca_array_t *const *samples,
                                        size_t d, const ca_histogram_bins_t *bins,
                                        const ca_histogram_options_t *opts);

/**
 * np.ravel_multi_index(multi_index, dims, mode, order): the flat int64 index of each coordinate tuple.
 * The @p n coordinate arrays (integer dtypes) are broadcast together with dask's elementwise chunks;
 * one task per block.
 * @param coords borrowed, @p n arrays, none NULL.
 * @param dims borrowed, the @p n extents of the indexed shape (n >= 1, each >= 0).
 * @param modes borrowed, may be NULL (::CA_CHOOSE_RAISE for every dimension); otherwise @p n
 *        ::ca_choose_mode_t values (NumPy's mode=): RAISE fails the compute on a coordinate out of range
 *        ("ravel_multi_index: invalid entry in coordinates array"), WRAP, CLIP.
 * @param fortran_order 0: C order (row-major), 1: Fortran order.
 * @return CA_OK; CA_EINVAL (NULL out, coords or dims, n == 0, a NULL array, an unknown mode, a negative
 *         extent, dims whose size overflows int64, shapes that do not broadcast); CA_ETYPE (a
 *         coordinate array that is not of an integer dtype: "only int indices permitted"); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_ravel_multi_index(ca_array_t **out, const ca_array_t *const *coords, size_t n,
                                              const int64_t *dims, const int32_t *modes, int fortran_order);

/**
 * np.unravel_index(indices, shape, order): the coordinates of each flat index, one int64 array per
 * dimension with the indices' chunks (one task per block and dimension). An index outside
 * [0, prod(dims)) fails the compute ("unravel_index: index 60 is out of bounds for array with size 60").
 * @param[out] out caller's array of @p n pointers; each receives an owned array; all NULL on failure.
 * @param indices borrowed, an integer array.
 * @param dims borrowed, the @p n extents (n >= 1, each >= 0).
 * @param fortran_order 0: C order, 1: Fortran order.
 * @return CA_OK; CA_EINVAL (NULL out, indices or dims, n == 0, a negative extent, dims whose size
 *         overflows int64); CA_ETYPE (indices not of an integer dtype); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_unravel_index(ca_array_t **out, const ca_array_t *indices, const int64_t *dims, size_t n,
                                          int fortran_order);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_ROUTINES_H */
