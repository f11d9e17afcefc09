/**
 * @file chunkarray/store.h
 * @brief Rechunking with dask's planner, and storing an array block by block through a callback
 *        (dask's rechunk and store).
 *
 * Rechunking changes an array's chunks, not its values. As in dask, a rechunk that would cross too
 * many old and new blocks goes through intermediate chunkings (dask's plan_rechunk), chosen so that
 * no intermediate block exceeds the block-size limit (the context's "array.chunk-size", 128 MiB by
 * default) and the graph stays small. A piece of an old block costs far less here than a dask task,
 * so by default a rechunk is direct (one pass over the data) up to 2^18 pieces and planned in stages
 * beyond; an explicit threshold applies dask's heuristic exactly. An input whose blocks are held in
 * memory (persisted, or from a buffer) is rechunked directly up to 2^18 pieces whatever the
 * threshold, holding only the new blocks in flight beyond it. Rechunking to the chunks an array
 * already has returns that array.
 *
 * Storing computes an array and hands every block, with its place in the array, to a callback (the
 * "sink": write it to a file, a database, a socket...) as soon as it is computed; the block is then
 * freed. Memory stays bounded by the blocks in flight, so an array larger than memory can be stored.
 *
 * Thread safety: every function may be called from any thread; the sink runs concurrently on worker
 * threads.
 *
 * Example:
 * @code
 *   static ca_status_t write_block(const ca_block_t *b, const ca_store_region_t *r, void *ud) {
 *     FILE *f = ud;  // rows of a 2-d float64 array, stored as they come
 *     (void)r;
 *     return fwrite(ca_block_data(b), 1, ca_block_nbytes(b), f) == ca_block_nbytes(b) ? CA_OK : CA_EIO;
 *   }
 *   ca_array_t *r = NULL;
 *   if (ca_array_rechunk_str(&r, ctx, a, "{0: 1000, 1: -1}") == CA_OK) {
 *     ca_array_store(ctx, r, write_block, f, NULL);
 *     ca_array_free(r);
 *   }
 * @endcode
 */
#ifndef CHUNKARRAY_STORE_H
#define CHUNKARRAY_STORE_H

#include "chunkarray/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------ */
/* Rechunk                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

/** Options of ca_array_rechunk_ex(). Zero fields mean the defaults. */
typedef struct ca_rechunk_options {
  uint32_t struct_size;     /**< sizeof(ca_rechunk_options_t) */
  /** Largest intermediate block in bytes, and the target size of "auto" dimensions (dask's
   *  block_size_limit); 0 = the context's array.chunk-size (128 MiB without a context). */
  int64_t block_size_limit;
  /** dask's array.rechunk-threshold: the graph growth factor under which no intermediate stage is
   *  planned (dask's default is 4); 0 = direct up to 2^18 pieces, beyond that dask's plan with 4. */
  double threshold;
  /** Non-zero: dask's balance=True, even out the block sizes (drops small leftover blocks). */
  int32_t balance;
} ca_rechunk_options_t;

/** The defaults of ca_rechunk_options_t. */
#define CA_RECHUNK_OPTIONS_INIT {sizeof(ca_rechunk_options_t), 0, 0.0, 0}

/**
 * dask's x.rechunk(chunks) with the chunks written as a Python literal:
 * "auto", "64MiB" (auto with that block size), "100" (every axis), "(1000, -1)" (-1: the whole
 * axis), "(None, 'auto')" (None: keep the current chunks), "((2, 3, 4), 5)" (explicit sizes),
 * "{0: -1, 1: 'auto'}" or "{-1: 10}" (axes not named keep their chunks). "auto" follows dask's
 * auto_chunks with the current chunks as inspiration, within the context's array.chunk-size.
 * @param[out] out owned (ca_array_free()); @p a itself (a new reference) when nothing changes; NULL
 *             on failure.
 * @param ctx borrowed, may be NULL (then 128 MiB).
 * @param a borrowed.
 * @param chunks borrowed.
 * @return CA_OK; CA_EINVAL (NULL argument, bad syntax, axis out of range, sizes that do not add up to
 *         the shape, negative or zero sizes; the message names the part); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_rechunk_spec(ca_array_t **out, const ca_context_t *ctx, const ca_array_t *a,
                                         const char *chunks);

/** Deprecated (0.2, removed in 0.3): the old name of ca_array_rechunk_spec(). @return as ca_array_rechunk_spec(). */
CA_API CA_DEPRECATED("ca_array_rechunk_spec") ca_status_t ca_array_rechunk_str(ca_array_t **out,
    const ca_context_t *ctx, const ca_array_t *a, const char *chunks);

/**
 * Rechunk with options: to explicit @p chunks, or to the request @p spec (as ca_array_rechunk_spec());
 * exactly one of them is non-NULL.
 * @param ctx borrowed, may be NULL. @param a borrowed. @param opts borrowed, may be NULL (defaults).
 * @return as ca_array_rechunk_spec(); CA_EINVAL also when both or neither of @p chunks and @p spec
 *         are given, or for a negative limit or threshold.
 */
CA_API ca_status_t ca_array_rechunk_ex(ca_array_t **out, const ca_context_t *ctx, const ca_array_t *a,
                                       const ca_chunks_t *chunks, const char *spec,
                                       const ca_rechunk_options_t *opts);

/**
 * The number of rechunk stages (layers) a rechunk of @p a to @p chunks builds: 0 when it returns
 * @p a, 1 for a direct rechunk, more when intermediate chunkings are planned.
 * @param[out] out receives the count (0 on failure).
 * @param ctx borrowed, may be NULL (then 128 MiB blocks). @param opts borrowed, may be NULL.
 * @return CA_OK; CA_EINVAL (NULL argument, chunks of another shape).
 */
CA_API ca_status_t ca_array_rechunk_nstages(int64_t *out, const ca_context_t *ctx, const ca_array_t *a,
                                            const ca_chunks_t *chunks, const ca_rechunk_options_t *opts);

/* ------------------------------------------------------------------------------------------------ */
/* Store                                                                                             */
/* ------------------------------------------------------------------------------------------------ */

/** Where a block belongs; valid only during the sink call. */
typedef struct ca_store_region {
  size_t array;               /**< index of the array in ca_array_store_many() (0 for ca_array_store) */
  int32_t ndim;               /**< the array's number of dimensions */
  const int64_t *start;       /**< ndim entries: the block's first element along each axis */
  const int64_t *stop;        /**< ndim entries: start + the block's extent (exclusive end) */
  const int64_t *block_index; /**< ndim entries: the block's index in the chunk grid */
  void *reserved;             /**< for the library (ca_store_set_error) */
} ca_store_region_t;

/**
 * A sink: receives one computed block and its region. Runs on a worker thread, concurrently with
 * other calls of the same sink; each block of each array comes exactly once (empty blocks too), in
 * no particular order.
 * @param block borrowed for the duration of the call (ca_block_retain() to keep it).
 * @param region borrowed for the duration of the call.
 * @return CA_OK to go on; anything else stops the compute: no further task starts and the store call
 *         returns that status (positive values as CA_EKERNEL) with the message set by
 *         ca_store_set_error(), if any.
 */
typedef ca_status_t (*ca_store_fn)(const ca_block_t *block, const ca_store_region_t *region, void *user_data);

/** From inside a sink: the message the failing store call reports (copied). */
CA_API void ca_store_set_error(const ca_store_region_t *region, const char *message);

/**
 * dask's da.store(a, target): compute @p a and hand every block to @p sink as soon as it is
 * computed, then free it (unless another task still needs it).
 * @param ctx borrowed: its executor, kernels and memory limit run the compute.
 * @param a borrowed.
 * @param sink called for every block.
 * @param user_data passed through to @p sink (borrowed); may be NULL.
 * @param opts borrowed, may be NULL: progress, cancellation.
 * @return CA_OK once every block was stored; CA_EINVAL (NULL argument); the sink's status (message:
 *         the block's key and the sink's message); CA_EKERNEL (a kernel failed); CA_ECANCELED;
 *         CA_ENOMEM. On failure blocks already stored stay stored; nothing is leaked.
 * Blocks the calling thread.
 */
CA_API ca_status_t ca_array_store(ca_context_t *ctx, const ca_array_t *a, ca_store_fn sink, void *user_data,
                                  const ca_compute_options_t *opts);

/**
 * Store several arrays in one compute (work they share is done once); region->array tells which
 * array a block belongs to.
 * @param arrays borrowed, @p narrays entries (0 is allowed: nothing happens).
 * @param user_data passed through to @p sink (borrowed); may be NULL.
 * @param opts borrowed, may be NULL: progress, cancellation.
 * @return as ca_array_store().
 */
CA_API ca_status_t ca_array_store_many(ca_context_t *ctx, const ca_array_t *const *arrays, size_t narrays,
                                       ca_store_fn sink, void *user_data, const ca_compute_options_t *opts);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_STORE_H */
