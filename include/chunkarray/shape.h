/**
 * @file chunkarray/shape.h
 * @brief Shape operations: reshape, transpose, squeeze, expand_dims, broadcast_to, concatenate, stack,
 * block, repeat, tile, pad, flip.
 *
 * Values are NumPy's; the chunks of each result are the ones dask.array computes for the same call on
 * the same input chunks (e.g. reshape rechunks its input so that reshaping is blockwise, dask's
 * merge_chunks rule; concatenate keeps ragged chunks and unifies the other axes). Nothing runs until a
 * compute: each call adds graph layers, symbolic where the block mapping is regular.
 *
 * Common to every function: @p out receives a new array (free with ca_array_free()), or NULL on
 * failure; input arrays are borrowed. Errors: CA_EINVAL (NULL argument, axis out of range, repeated
 * axis, incompatible shapes, negative widths/repeats) with a message naming the problem, e.g.
 * "concatenate: all the input array dimensions except for the concatenation axis must match exactly,
 * but along dimension 1, the array at index 0 has size 4 and the array at index 1 has size 5";
 * CA_ETYPE (dtypes that cannot be promoted); CA_ENOMEM. Negative axes count from the end.
 * Thread safety: arrays are immutable; these functions may run concurrently.
 */
#ifndef CHUNKARRAY_SHAPE_H
#define CHUNKARRAY_SHAPE_H

#include "chunkarray/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * np.reshape(a, shape): the same elements in C order with a new shape.
 * @param ndim number of entries of @p shape (0..CA_MAX_NDIM).
 * @param shape borrowed; one entry may be -1 (inferred). May be NULL when ndim is 0.
 * Only reshapes that merge or split dimensions evenly are supported (dask's rule), e.g. (6, 5, 4) to
 * (30, 4) or (3, 2, 5, 4); others fail with CA_EINVAL ("reshape in several steps"). Empty arrays are
 * merged into one block first.
 * @return CA_OK, CA_EINVAL ("cannot reshape array of size 24 into shape (5, 5)").
 */
CA_API ca_status_t ca_array_reshape(ca_array_t **out, const ca_array_t *a, int32_t ndim, const int64_t *shape);

/** np.ravel(a): reshape to one dimension. @return CA_OK, CA_EINVAL. */
CA_API ca_status_t ca_array_ravel(ca_array_t **out, const ca_array_t *a);

/**
 * np.transpose(a, axes): axis i of the result is axis axes[i] of @p a; chunks are permuted.
 * @param axes borrowed, ca_array_ndim(a) entries forming a permutation; NULL reverses the axes.
 * @return CA_OK, CA_EINVAL (not a permutation, axis out of range).
 */
CA_API ca_status_t ca_array_transpose(ca_array_t **out, const ca_array_t *a, const int32_t *axes);

/**
 * np.moveaxis(a, source, destination).
 * @param source, destination borrowed, @p n distinct axes each.
 * @return CA_OK, CA_EINVAL.
 */
CA_API ca_status_t ca_array_moveaxis(ca_array_t **out, const ca_array_t *a, const int32_t *source,
                                     const int32_t *destination, int32_t n);

/** np.swapaxes(a, axis1, axis2). @return CA_OK, CA_EINVAL (axis out of range). */
CA_API ca_status_t ca_array_swapaxes(ca_array_t **out, const ca_array_t *a, int32_t axis1, int32_t axis2);

/**
 * np.squeeze(a, axis).
 * @param axes borrowed, @p naxes axes of extent 1; NULL: every axis of extent 1.
 * @return CA_OK, CA_EINVAL (an axis whose extent is not 1, axis out of range).
 */
CA_API ca_status_t ca_array_squeeze(ca_array_t **out, const ca_array_t *a, const int32_t *axes, int32_t naxes);

/**
 * np.expand_dims(a, axis): new axes of extent 1 (one block) at positions @p axes of the result.
 * @return CA_OK, CA_EINVAL (repeated axis, out of range).
 */
CA_API ca_status_t ca_array_expand_dims(ca_array_t **out, const ca_array_t *a, const int32_t *axes, int32_t naxes);

/**
 * np.broadcast_to(a, shape): new leading axes and axes of extent 1 repeated, as dask's broadcast_to.
 * @param chunks borrowed, may be NULL: then new axes are one block and the others keep a's chunks.
 *        Otherwise the result's chunks; they may differ from a's only along new axes and axes of
 *        extent 1 in @p a.
 * @return CA_OK, CA_EINVAL ("cannot broadcast shape (4, 3) to shape (4, 4)", bad chunks).
 */
CA_API ca_status_t ca_array_broadcast_to(ca_array_t **out, const ca_array_t *a, int32_t ndim, const int64_t *shape,
                                         const ca_chunks_t *chunks);

/**
 * np.concatenate(arrays, axis): dtypes promoted as NumPy; the result's chunks along @p axis are the
 * inputs' chunks one after the other (ragged kept, empty inputs dropped), the other axes unified
 * (rechunked to their common refinement where the inputs differ).
 * @param arrays borrowed, @p n arrays of equal ndim (>= 1) and equal extents except along @p axis.
 * Graph building is linear in the number of output blocks.
 * @return CA_OK, CA_EINVAL (names the mismatching axis), CA_ETYPE.
 */
CA_API ca_status_t ca_array_concatenate(ca_array_t **out, const ca_array_t *const *arrays, size_t n, int32_t axis);

/**
 * np.stack(arrays, axis): a new axis of extent n (one block per input).
 * @return CA_OK, CA_EINVAL (shapes differ, axis out of range), CA_ETYPE.
 */
CA_API ca_status_t ca_array_stack(ca_array_t **out, const ca_array_t *const *arrays, size_t n, int32_t axis);

/**
 * np.block over nested lists of uniform depth.
 * @param arrays borrowed, the @p n leaves in order.
 * @param depth nesting depth of the lists (0: @p n must be 1 and that array is returned).
 * @param list_sizes borrowed, the length of every list in preorder (outermost first), @p nlists
 *        entries: [[a, b], [c]] is depth 2 with list_sizes {2, 2, 1}; [a, b] is depth 1, {2}.
 * Arrays with fewer dimensions than the result get leading axes of extent 1, as NumPy.
 * @return CA_OK, CA_EINVAL (empty list, description and arrays disagree, shapes do not fit).
 */
CA_API ca_status_t ca_array_block(ca_array_t **out, const ca_array_t *const *arrays, size_t n, int32_t depth,
                                  const int64_t *list_sizes, size_t nlists);

/**
 * np.repeat(a, repeats, axis) with a scalar count; chunks as dask (each block cut into slabs).
 * @return CA_OK, CA_EINVAL (negative repeats, axis out of range).
 */
CA_API ca_status_t ca_array_repeat(ca_array_t **out, const ca_array_t *a, int64_t repeats, int32_t axis);

/**
 * np.tile(a, reps): the blocks repeated (no data copied at graph time).
 * @param reps borrowed, @p nreps non-negative counts (may be NULL when nreps is 0).
 * @return CA_OK, CA_EINVAL (negative reps).
 */
CA_API ca_status_t ca_array_tile(ca_array_t **out, const ca_array_t *a, const int64_t *reps, int32_t nreps);

/* ca_array_pad modes. Values are stable. */
/** How ca_array_pad() fills the border. */
typedef enum ca_pad_mode_t CA_ENUM32 {
  CA_PAD_CONSTANT = 0, /**< the value given */
  CA_PAD_EDGE = 1, /**< the edge element repeated */
  CA_PAD_REFLECT = 2, /**< mirrored without the edge (widths below the axis extent) */
  CA_PAD__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_pad_mode_t;

/**
 * np.pad(a, ((before[0], after[0]), ...), mode, constant_values=value).
 * @param before, after borrowed, ca_array_ndim(a) non-negative widths each.
 * @param value for CA_PAD_CONSTANT: converted to a's dtype as NumPy assigns it.
 * @return CA_OK, CA_EINVAL (negative widths, unknown mode, edge/reflect of an empty axis, reflect
 *         wider than extent - 1).
 */
CA_API ca_status_t ca_array_pad(ca_array_t **out, const ca_array_t *a, const int64_t *before, const int64_t *after,
                                ca_pad_mode_t mode, ca_scalar_t value);

/**
 * np.flip(a, axis): block order reversed and each block reversed along the axes.
 * @param axes borrowed, @p naxes distinct axes; NULL: all axes.
 * @return CA_OK, CA_EINVAL (axis out of range, repeated).
 */
CA_API ca_status_t ca_array_flip(ca_array_t **out, const ca_array_t *a, const int32_t *axes, int32_t naxes);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_SHAPE_H */
