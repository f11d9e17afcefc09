/**
 * @file chunkarray/block.h
 * @brief Blocks: the values tasks produce and consume. An N-d, C-contiguous, typed buffer.
 *
 * Blocks are reference counted and immutable once a task has returned them: a kernel may read its
 * input blocks from any thread, never write them. Buffers are 64-byte aligned and come from mimalloc.
 * Thread safety: retain/free may be called from any thread.
 */
#ifndef CHUNKARRAY_BLOCK_H
#define CHUNKARRAY_BLOCK_H

#include "chunkarray/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Maximum number of dimensions of a block or array (NumPy's limit). */
#define CA_MAX_NDIM 32

/** An N-d buffer of one dtype in C order: what kernels take and return (reference counted). */
typedef struct ca_block ca_block_t;

/**
 * A new block with uninitialized contents.
 * @param[out] out owned; free with ca_block_free(). NULL on failure.
 * @param dtype element type.
 * @param ndim 0..CA_MAX_NDIM (0 is a scalar block of one element).
 * @param shape borrowed, ndim entries, each >= 0; may be NULL when ndim is 0.
 * @return CA_OK, CA_EINVAL (NULL out, bad ndim or negative extent), CA_ETYPE (bad dtype), CA_ENOMEM.
 */
CA_API ca_status_t ca_block_new(ca_block_t **out, ca_dtype_t dtype, int32_t ndim, const int64_t *shape);

/**
 * As ca_block_new(), with every byte zero.
 * @return as ca_block_new().
 */
CA_API ca_status_t ca_block_new_zeroed(ca_block_t **out, ca_dtype_t dtype, int32_t ndim,
                                       const int64_t *shape);

/**
 * A block over a caller's C-contiguous buffer, without copying (zero-copy, borrowed).
 * @param data borrowed until @p release runs; must stay valid and unchanged while any reference lives.
 * @param release called exactly once, on any thread, when the last reference goes (also when this call
 *        fails); may be NULL.
 * @param user_data passed to @p release; may be NULL.
 * @return CA_OK; CA_EINVAL (NULL out, NULL data with a non-empty shape, bad ndim or negative extent); CA_ETYPE (bad
 *         dtype); CA_ENOMEM. The caller owns *out (ca_block_free()).
 */
CA_API ca_status_t ca_block_wrap(ca_block_t **out, ca_dtype_t dtype, int32_t ndim, const int64_t *shape,
                                 void *data, void (*release)(void *user_data), void *user_data);

/** Add a reference. @return @p block (NULL stays NULL). */
CA_API ca_block_t *ca_block_retain(const ca_block_t *block);
/** Drop a reference; the buffer is freed with the last one. Accepts NULL. */
CA_API void ca_block_free(const ca_block_t *block);

/** @return the block's element type. */
CA_API ca_dtype_t ca_block_dtype(const ca_block_t *block);
/** @return the block's number of dimensions. */
CA_API int32_t ca_block_ndim(const ca_block_t *block);
/** @return borrowed pointer to ndim extents (valid while the block lives; NULL if ndim is 0). */
CA_API const int64_t *ca_block_shape(const ca_block_t *block);
/** @return the number of elements (product of the shape; 1 for 0-d). */
CA_API int64_t ca_block_size(const ca_block_t *block);
/** @return size in bytes of the data. */
CA_API size_t ca_block_nbytes(const ca_block_t *block);
/**
 * @return the data pointer (C order). Writable only for a block the caller has just created and not
 * yet handed to the library (a kernel's own output).
 */
CA_API void *ca_block_data(const ca_block_t *block);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_BLOCK_H */
