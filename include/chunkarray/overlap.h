/**
 * @file chunkarray/overlap.h
 * @brief Overlapping blocks: dask.array's overlap, trim_internal and map_overlap.
 *
 * ca_array_overlap() extends every block with @p depth elements of its neighbours along each axis
 * (diagonal neighbours included), so a stencil kernel run on each extended block sees the values
 * it needs across block edges. At the outer edges of the array a boundary condition applies:
 * - CA_BOUNDARY_NONE: no extension there (edge blocks grow on their inner sides only);
 * - CA_BOUNDARY_REFLECT: the array mirrored at its edge, edge element included
 *   (NumPy's pad mode "symmetric": [x1 x0 | x0 x1 x2 ...]);
 * - CA_BOUNDARY_PERIODIC: the other end of the array (wrap around);
 * - CA_BOUNDARY_NEAREST: the edge element repeated;
 * - CA_BOUNDARY_CONSTANT: ca_boundary_t.value, converted to the array's dtype.
 *
 * Semantics and resulting chunks are dask's (dask/array/overlap.py): with a boundary other than NONE
 * every block along that axis grows by depth on both sides; with NONE interior blocks grow on both
 * sides and edge blocks on their inner side. Every block must be at least @p depth long: with
 * allow_rechunk (the default) too-small blocks are merged into their neighbours first (dask's
 * ensure_minimum_chunksize), otherwise the call fails with CA_EINVAL. A depth larger than the
 * array's extent always fails.
 *
 * The overlap is one symbolic graph layer whatever the block count: each task references its (up
 * to 3^ndim) neighbour blocks and builds the extended block in one copy, boundary included (no extra
 * boundary blocks, no getitem/concatenate tasks).
 *
 * Thread safety: as every array function (arrays are immutable, these calls only build graphs).
 */
#ifndef CHUNKARRAY_OVERLAP_H
#define CHUNKARRAY_OVERLAP_H

#include "chunkarray/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Boundary kinds (ca_boundary_t.kind). Values are stable. */
/** What lies beyond the array's edge in ca_array_overlap(). */
typedef enum ca_boundary_kind_t CA_ENUM32 {
  CA_BOUNDARY_NONE = 0, /**< no extension at the array's edge */
  CA_BOUNDARY_REFLECT = 1, /**< mirror, edge element included */
  CA_BOUNDARY_PERIODIC = 2, /**< wrap around */
  CA_BOUNDARY_NEAREST = 3, /**< repeat the edge element */
  CA_BOUNDARY_CONSTANT = 4, /**< fill with ca_boundary_t.value */
  CA_BOUNDARY__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_boundary_kind_t;

/** The boundary condition of one axis. */
typedef struct ca_boundary {
  ca_boundary_kind_t kind; /**< CA_BOUNDARY_* */
  int32_t reserved; /**< 0 */
  double value;     /**< CA_BOUNDARY_CONSTANT: the fill value (converted to the array's dtype) */
} ca_boundary_t;

/** A boundary of @p kind (value 0). */
static inline ca_boundary_t ca_boundary(ca_boundary_kind_t kind) {
  ca_boundary_t b;
  b.kind = kind;
  b.reserved = 0;
  b.value = 0.0;
  return b;
}
/** A constant boundary filled with @p value. */
static inline ca_boundary_t ca_boundary_constant(double value) {
  ca_boundary_t b;
  b.kind = CA_BOUNDARY_CONSTANT;
  b.reserved = 0;
  b.value = value;
  return b;
}

/** Options of ca_array_overlap() (NULL = defaults). */
typedef struct ca_overlap_options {
  uint32_t struct_size; /**< sizeof(ca_overlap_options_t) */
  /** NULL: symmetric depth. Otherwise ndim entries: @p depth is the number of elements taken from
   *  the block before, depth_after from the block after (dask's asymmetric (before, after) depth;
   *  only with CA_BOUNDARY_NONE on axes where they differ). */
  const int64_t *depth_after;
  /** 1 (default): merge blocks smaller than the depth into their neighbours first; 0: fail with
   *  CA_EINVAL instead. */
  int32_t allow_rechunk;
} ca_overlap_options_t;
/** The defaults of ca_overlap_options_t. */
#define CA_OVERLAP_OPTIONS_INIT {sizeof(ca_overlap_options_t), NULL, 1}

/**
 * dask's overlap(x, depth, boundary): every block extended by its neighbours' edges.
 * @param[out] out owned new array; NULL on failure.
 * @param a borrowed.
 * @param depth borrowed, ndim entries >= 0 (elements shared with each neighbour); NULL: all 0.
 * @param boundary borrowed, ndim entries; NULL: CA_BOUNDARY_NONE on every axis.
 * @param opts borrowed, may be NULL for defaults.
 * @return CA_OK; CA_EINVAL (NULL array, negative depth, unknown boundary kind, depth larger than the
 *         array's extent, or a block smaller than the depth without allow_rechunk; the message names
 *         the axis); CA_EUNSUPPORTED (asymmetric depth with a boundary other than NONE, or more than
 *         10 overlapped axes: each block references 3^axes neighbours).
 * A 0-d array, or all depths 0 (after any rechunk), returns the (rechunked) input itself.
 */
CA_API ca_status_t ca_array_overlap(ca_array_t **out, const ca_array_t *a, const int64_t *depth,
                                    const ca_boundary_t *boundary, const ca_overlap_options_t *opts);

/**
 * dask's trim_internal(x, depth, boundary): remove what ca_array_overlap() added, block by block.
 * Blocks along an axis with CA_BOUNDARY_NONE keep their outer edges (nothing was added there).
 * @param depth ndim entries (NULL: all 0); @p opts supplies depth_after for asymmetric trims
 *        (allow_rechunk is ignored).
 * @return CA_OK; CA_EINVAL (NULL array, negative depth, bad boundary kind, a block shorter than
 *         what is trimmed from it).
 */
CA_API ca_status_t ca_array_trim_internal(ca_array_t **out, const ca_array_t *a, const int64_t *depth,
                                          const ca_boundary_t *boundary, const ca_overlap_options_t *opts);

/** Options of ca_array_map_overlap() (NULL = defaults). */
typedef struct ca_map_overlap_options {
  uint32_t struct_size; /**< sizeof(ca_map_overlap_options_t) */
  ca_dtype_t dtype;     /**< the kernel's output dtype; CA_DTYPE_INVALID = the first input's */
  /** 1 (default): trim the overlap from the kernel's output blocks (dask's trim=True); 0: the
   *  kernel returns blocks of the un-extended size itself. */
  int32_t trim;
  /** Explicit chunks of the kernel's output blocks (before trimming); NULL = the extended blocks'
   *  chunks when trimming, the un-extended (input) chunks otherwise. */
  const ca_chunks_t *chunks;
  /** As ca_overlap_options_t.allow_rechunk (default 1). */
  int32_t allow_rechunk;
  /** 1 (default): unify the inputs' chunks first (dask's align_arrays). */
  int32_t align_arrays;
  /** NULL: symmetric depth; else as ca_overlap_options_t.depth_after. */
  const int64_t *depth_after;
  /** 1: append the block index and the block's origin in the extended array (two int64 tuples)
   *  after the extra arguments, as ca_map_blocks_options_t.block_info. */
  int32_t block_info;
  const char *name; /**< output name prefix (default: the kernel name) */
} ca_map_overlap_options_t;
/** The defaults of ca_map_overlap_options_t. */
#define CA_MAP_OVERLAP_OPTIONS_INIT {sizeof(ca_map_overlap_options_t), CA_DTYPE_INVALID, 1, NULL, 1, 1, NULL, 0, NULL}

/**
 * dask's map_overlap(func, *arrays, depth, boundary, trim): overlap each input, run @p kernel on
 * each set of extended blocks (as ca_array_map_blocks(): blocks in input order, then @p extra), and
 * trim the overlap from the results.
 *
 * @p depth and @p boundary describe the dimensions of the highest-rank input (ndim entries); an input
 * with fewer dimensions uses the trailing entries (inputs align from the right, as in broadcasting).
 * With all depths 0 this is ca_array_map_blocks(). The trim uses the highest-rank input's depth
 * and boundary, so the kernel must return blocks of its extended input's shape (unless @p opts gives
 * chunks).
 * @param kernel borrowed: the name of a kernel registered in the context that computes the result.
 * @param arrays borrowed, @p narrays >= 1 arrays.
 * @param extra borrowed literal arguments appended to every call (may be NULL when nextra is 0).
 * @param boundary borrowed, ndim entries; NULL: CA_BOUNDARY_NONE on every axis.
 * @param opts borrowed, may be NULL (the defaults of CA_MAP_OVERLAP_OPTIONS_INIT).
 * @return CA_OK; CA_EINVAL / CA_EUNSUPPORTED as ca_array_overlap(); CA_ETYPE (bad dtype).
 *
 * Example: a 3-point Laplacian `lap(x)[i] = x[i-1] - 2 x[i] + x[i+1]` with zero boundaries:
 * @code
 *   int64_t depth[1] = {1};
 *   ca_boundary_t bnd[1] = {ca_boundary_constant(0.0)};
 *   ca_array_map_overlap(&y, "my.laplace", &x, 1, depth, bnd, NULL, 0, NULL);
 * @endcode
 */
CA_API ca_status_t ca_array_map_overlap(ca_array_t **out, const char *kernel, const ca_array_t *const *arrays,
                                        size_t narrays, const int64_t *depth, const ca_boundary_t *boundary,
                                        const ca_arg_t *extra, size_t nextra, const ca_map_overlap_options_t *opts);

/**
 * numpy.lib.stride_tricks.sliding_window_view(a, window_shape, axis), lazily, as
 * dask.array.overlap.sliding_window_view: the blocks are rechunked to hold at least one window
 * (dask's ensure_minimum_chunksize), overlapped by window - 1 elements on their right and each block
 * copies out its windows. The result has a's axes, each windowed axis shortened by window - 1,
 * followed by one axis per window (one block each). Unlike NumPy's view, the result is a new array.
 * @param[out] out the result (NULL on failure).
 * @param a borrowed.
 * @param window_shape @p nwindow window extents (>= 1), borrowed; may be NULL only when nwindow is 0.
 * @param axis @p nwindow axes (negative count from the end, repeats compose), borrowed; NULL: every
 *        axis in order (nwindow must then be a's number of dimensions).
 * @return CA_OK; CA_EINVAL for a NULL @p a or @p out, NULL @p window_shape with nwindow > 0, a
 *         negative or zero window, an axis out of range, a window larger than its axis ("window shape
 *         cannot be larger than input array shape"), nwindow not ndim with @p axis NULL, or unknown
 *         chunk sizes.
 */
CA_API ca_status_t ca_array_sliding_window_view(ca_array_t **out, const ca_array_t *a, const int64_t *window_shape,
                                                size_t nwindow, const int32_t *axis);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_OVERLAP_H */
