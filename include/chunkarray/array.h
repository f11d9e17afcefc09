/**
 * @file chunkarray/array.h
 * @brief Chunked N-d arrays: dask.array's model as a C API.
 *
 * An array is exactly four things: a task graph, a name, chunks (a tuple of tuples: the block sizes
 * along each dimension, possibly ragged) and a dtype. Block (i, j, k) of array `name` is the graph key
 * (name, i, j, k); len(chunks) == ndim and sum(chunks[d]) == shape[d]. Operations build new graph
 * layers (symbolic wherever possible), new chunks and dtypes; nothing runs until a compute.
 *
 * Arrays are immutable and may be shared by threads. Names are deterministic tokens of the operation
 * and its inputs ("add-3f2a9c01..."): the same expression built twice has the same name.
 * Chains of elementwise operations are fused into one task per block, and a reduction fuses with the
 * elementwise expression feeding it.
 */
#ifndef CHUNKARRAY_ARRAY_H
#define CHUNKARRAY_ARRAY_H

#include "chunkarray/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A lazy chunked array: a graph, a name, chunks and a dtype (immutable; free with ca_array_free()). */
typedef struct ca_array ca_array_t;

/** Chunks as passed in: numblocks[d] block sizes for each dimension d, dimension after dimension. */
typedef struct ca_chunks {
  int32_t ndim; /**< number of dimensions */
  const int64_t *numblocks; /**< ndim entries */
  const int64_t *sizes;     /**< sum(numblocks) entries: dimension 0's sizes, then dimension 1's, ... */
} ca_chunks_t;

/* ------------------------------------------------------------------------------------------------ */
/* Chunk specifications and normalize_chunks                                                        */
/* ------------------------------------------------------------------------------------------------ */

/** One dimension's chunk request (dask's chunks= argument, per dimension). */
typedef struct ca_dimchunks {
  /** > 0: blocks of this size (the last one ragged); CA_CHUNKS_WHOLE (-1): one block; CA_CHUNKS_AUTO
   *  (0): chosen so blocks are near the context's array.chunk-size; CA_CHUNKS_EXPLICIT (-2): use
   *  `sizes`. */
  int64_t size;
  const int64_t *sizes; /**< CA_CHUNKS_EXPLICIT: nsizes block sizes, which must sum to the extent */
  int64_t nsizes; /**< number of entries in sizes (CA_CHUNKS_EXPLICIT) */
} ca_dimchunks_t;

#define CA_CHUNKS_AUTO 0 /**< ca_dimchunks_t.size: blocks of the configured byte size (dask's "auto") */
#define CA_CHUNKS_WHOLE (-1) /**< ca_dimchunks_t.size: one block along the dimension (dask's -1) */
#define CA_CHUNKS_EXPLICIT (-2) /**< ca_dimchunks_t.size: the block sizes in sizes/nsizes */

/** Owned, normalized chunks (a tuple of tuples). */
typedef struct ca_chunkset ca_chunkset_t;
/** @return the number of dimensions of @p cs, -1 for NULL. */
CA_API int32_t ca_chunkset_ndim(const ca_chunkset_t *cs);
/** @return borrowed block sizes of dimension @p dim; *n receives their count. NULL if out of range. */
CA_API const int64_t *ca_chunkset_sizes(const ca_chunkset_t *cs, int32_t dim, int64_t *n);
/** @return a borrowed view valid while @p cs lives. */
CA_API ca_chunks_t ca_chunkset_view(const ca_chunkset_t *cs);
/** Free a chunk set. Accepts NULL. */
CA_API void ca_chunkset_free(ca_chunkset_t *cs);

/**
 * dask's normalize_chunks: turn a per-dimension request into explicit chunks.
 * @param spec ndim entries (NULL: all CA_CHUNKS_AUTO).
 * @param limit target bytes per block for "auto" (0: the context's array.chunk-size, 128 MiB).
 * @param ctx may be NULL (then the default 128 MiB).
 * Errors name the dimension: "chunks along axis 1 sum to 23, shape is 24" (dask's "Chunks do not add
 * up to shape"), negative sizes, ndim mismatch.
 * @return CA_OK; CA_EINVAL (NULL out, NULL shape with ndim > 0, ndim out of range, negative sizes, explicit sizes
 *         that do not sum to the extent: the message names the axis); CA_ETYPE (invalid dtype); CA_ENOMEM.
 * @param[out] out owned, free with ca_chunkset_free(); NULL on failure.
 */
CA_API ca_status_t ca_normalize_chunks(ca_chunkset_t **out, const ca_context_t *ctx, const ca_dimchunks_t *spec,
                                       int32_t ndim, const int64_t *shape, ca_dtype_t dtype, int64_t limit);

/**
 * Parse a dask-style chunks string and normalize it. The string is the Python literal a dask user passes
 * as `chunks=`, read as Python reads it ("(5)" is 5, "(5,)" a 1-tuple) by the same parser as
 * ca_array_rechunk_spec(): "auto", "5", "-1" (whole), "(None, 5)" (None: whole), "(2, 3, 4), -1",
 * "((2,3,4),(5,5))", "{0: 5, 1: -1}" (missing dims: whole), "64MiB" (auto with that block size), "(5, 'auto')".
 * Auto sizes are dask's: the root of the byte budget left by the other axes, not rounded to even blocks.
 * @return CA_OK; CA_EINVAL (NULL out or spec, a spec that does not parse or does not fit the shape: the message
 *         quotes it and names the axis); CA_ETYPE (invalid dtype); CA_ENOMEM.
 * @param[out] out owned, free with ca_chunkset_free(); NULL on failure.
 */
CA_API ca_status_t ca_normalize_chunks_spec(ca_chunkset_t **out, const ca_context_t *ctx, const char *spec,
                                            int32_t ndim, const int64_t *shape, ca_dtype_t dtype);

/** Deprecated (0.2, removed in 0.3): the old name of ca_normalize_chunks_spec(). @return as ca_normalize_chunks_spec(). */
CA_API CA_DEPRECATED("ca_normalize_chunks_spec") ca_status_t ca_normalize_chunks_str(ca_chunkset_t **out,
    const ca_context_t *ctx, const char *spec, int32_t ndim, const int64_t *shape, ca_dtype_t dtype);

/* ------------------------------------------------------------------------------------------------ */
/* The array model                                                                                   */
/* ------------------------------------------------------------------------------------------------ */

/**
 * The seed's constructor: an array from a graph, a name, chunks and a dtype. Validates
 * len(chunks) == ndim, non-negative block sizes, and that @p graph holds every key (name, i, j, ...)
 * of the chunk grid (the error names the first missing key).
 * @param graph borrowed: the array shares its layers (O(layers)); later changes to @p graph do not
 *        affect the array.
 * @return CA_OK; CA_EINVAL (NULL out, graph, name or chunks; bad chunks); CA_ENOTFOUND (a key of the chunk grid is
 *         missing from the graph, named); CA_ETYPE (invalid dtype); CA_ENOMEM.
 * @param[out] out owned, free with ca_array_free().
 */
CA_API ca_status_t ca_array_new(ca_array_t **out, const ca_graph_t *graph, const char *name,
                                const ca_chunks_t *chunks, ca_dtype_t dtype);
/** Another reference (for bindings); free each with ca_array_free(). */
CA_API ca_array_t *ca_array_retain(const ca_array_t *a);
/** Drop one reference to @p a (the array lives while any reference or dependent array does). Accepts NULL. */
CA_API void ca_array_free(const ca_array_t *a);

/** @return the number of dimensions; -1 for NULL. */
CA_API int32_t ca_array_ndim(const ca_array_t *a);
/** @return borrowed ndim extents (NULL for 0-d). */
CA_API const int64_t *ca_array_shape(const ca_array_t *a);
/** @return the number of elements; -1 for NULL or when a chunk size is unknown (ca_array_chunks_known()). */
CA_API int64_t ca_array_size(const ca_array_t *a);
/** @return the array's size in bytes; -1 for NULL or when a chunk size is unknown. */
CA_API int64_t ca_array_nbytes(const ca_array_t *a);
/** @return the element type; CA_DTYPE_INVALID for NULL. */
CA_API ca_dtype_t ca_array_dtype(const ca_array_t *a);
/** @return the array's name (borrowed). */
CA_API const char *ca_array_name(const ca_array_t *a);
/** @return borrowed number of blocks per dimension (NULL for 0-d). */
CA_API const int64_t *ca_array_numblocks(const ca_array_t *a);
/** @return borrowed block sizes along @p dim; *n receives the count. */
CA_API const int64_t *ca_array_chunks(const ca_array_t *a, int32_t dim, int64_t *n);
/** @return a borrowed view of all chunks, valid while @p a lives. */
CA_API ca_chunks_t ca_array_chunks_view(const ca_array_t *a);
/**
 * @param[out] out a new graph holding the array's layers (shared).
 * @return CA_OK; CA_EINVAL (NULL out or a); CA_ENOMEM. The caller owns *out (ca_graph_free()).
 */
CA_API ca_status_t ca_array_graph(ca_graph_t **out, const ca_array_t *a);
/**
 * @param[out] out the block keys in C order (dask's __dask_keys__, flattened).
 * @return CA_OK; CA_EINVAL (NULL out or a); CA_ENOMEM. The caller owns *out (ca_keylist_free()).
 */
CA_API ca_status_t ca_array_keys(ca_keylist_t **out, const ca_array_t *a);
/** @return the array's meta: its block type, "numpy.ndarray"-like "ndarray" (static string). */
CA_API const char *ca_array_meta(const ca_array_t *a);

/* ------------------------------------------------------------------------------------------------ */
/* Creation                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

/* ca_array_from_buffer flags */
#define CA_BUFFER_COPY 0u   /**< copy the data now; the caller's buffer is free afterwards */
#define CA_BUFFER_BORROW 1u /**< zero-copy: blocks view the buffer where they are contiguous; @p release
                                 runs once when no array or block needs the buffer any more */
#define CA_BUFFER_UNIQUE_NAME 2u /**< a fresh name instead of a token of the contents (dask's
                                      name=False): no pass over the data to hash it */

/** Options of ca_array_from_buffer(). Start from CA_BUFFER_OPTIONS_INIT; fields are only appended. */
typedef struct ca_buffer_options {
  uint32_t struct_size;   /**< sizeof(ca_buffer_options_t) */
  uint32_t flags;         /**< CA_BUFFER_COPY or CA_BUFFER_BORROW, optionally | CA_BUFFER_UNIQUE_NAME;
                               other bits are CA_EINVAL */
  const int64_t *strides; /**< byte strides per dimension (borrowed for the call), NULL for
                               C-contiguous; may be negative or zero */
  /** With CA_BUFFER_BORROW: called exactly once when the buffer is no longer needed (also on
   *  failure); may be NULL. May run on any thread. */
  void (*release)(void *user_data);
  void *user_data;        /**< passed to release; may be NULL */
} ca_buffer_options_t;
/** The defaults of ca_buffer_options_t (copy the buffer). */
#define CA_BUFFER_OPTIONS_INIT {sizeof(ca_buffer_options_t), CA_BUFFER_COPY, NULL, NULL, NULL}

/**
 * An array over a caller's buffer (dask's from_array).
 *
 * Its name is a token of its contents, as dask's from_array tokenizes a NumPy array: the dtype, the
 * chunks and the bytes of every block (one fast hashing pass, ~10 GB/s). The same data with the same
 * chunks gives the same name, copied or borrowed, so expressions over it share graph entries and two
 * arrays over equal buffers combine. With CA_BUFFER_UNIQUE_NAME every call gets a new name.
 * @param[out] out owned, free with ca_array_free(); NULL on failure.
 * @param data borrowed: copied now (CA_BUFFER_COPY) or viewed until opts->release runs
 *        (CA_BUFFER_BORROW). May be NULL only when the array is empty.
 * @param shape @p ndim extents (may be NULL when ndim is 0).
 * @param chunks normalized chunks for @p shape (e.g. from ca_normalize_chunks()).
 * @param opts borrowed, may be NULL (copy, C-contiguous, name from the contents: the defaults of
 *        CA_BUFFER_OPTIONS_INIT).
 * @return CA_OK; CA_EINVAL (NULL out/chunks, NULL shape with ndim > 0, ndim out of range, unknown
 *         flag bits, opts->struct_size too small, chunks that do not match the shape; the message
 *         names the argument); CA_ETYPE (invalid dtype); CA_ENOMEM.
 *         With CA_BUFFER_BORROW, opts->release runs exactly once, also on every failure (except
 *         when opts->struct_size is too small to hold it).
 */
CA_API ca_status_t ca_array_from_buffer(ca_array_t **out, const void *data, ca_dtype_t dtype, int32_t ndim,
                                        const int64_t *shape, const ca_chunks_t *chunks,
                                        const ca_buffer_options_t *opts);

/**
 * full(shape, value): @p value_re/@p value_im converted to dtype (im ignored unless complex).
 * @return CA_OK; CA_EINVAL (NULL out or chunks, NULL shape with ndim > 0, ndim out of range, chunks that do not match
 *         the shape: the axis is named); CA_ETYPE (invalid dtype); CA_ENOMEM. The caller owns *out (ca_array_free()),
 *         here and in every ca_array_* constructor and operation below; *out is NULL on failure.
 */
CA_API ca_status_t ca_array_full(ca_array_t **out, int32_t ndim, const int64_t *shape, const ca_chunks_t *chunks,
                                 ca_dtype_t dtype, double value_re, double value_im);
/**
 * full(shape, value) with an exact 64-bit signed integer: integer dtypes hold the value itself (not
 * through a double, so 2**53 + 1, INT64_MIN and INT64_MAX stay exact), datetime64/timedelta64 take it
 * as ticks, float dtypes its nearest value, complex dtypes its nearest value as the real part, bool
 * value != 0.
 * @return CA_OK; CA_EINVAL (as ca_array_full(), and a value the integer dtype does not hold, e.g. 300
 *         for uint8: the message names value and dtype); CA_ETYPE (invalid dtype, a bytes/unicode dtype:
 *         use ca_array_full()); CA_ENOMEM. The caller owns *out (ca_array_free()).
 */
CA_API ca_status_t ca_array_full_int64(ca_array_t **out, int32_t ndim, const int64_t *shape,
                                       const ca_chunks_t *chunks, ca_dtype_t dtype, int64_t value);
/**
 * full(shape, value) with an exact 64-bit unsigned integer (UINT64_MAX included); otherwise as
 * ca_array_full_int64().
 * @return as ca_array_full_int64().
 */
CA_API ca_status_t ca_array_full_uint64(ca_array_t **out, int32_t ndim, const int64_t *shape,
                                        const ca_chunks_t *chunks, ca_dtype_t dtype, uint64_t value);
/**
 * @return as ca_array_full().
 */
CA_API ca_status_t ca_array_zeros(ca_array_t **out, int32_t ndim, const int64_t *shape, const ca_chunks_t *chunks,
                                  ca_dtype_t dtype);
/**
 * @return as ca_array_full().
 */
CA_API ca_status_t ca_array_ones(ca_array_t **out, int32_t ndim, const int64_t *shape, const ca_chunks_t *chunks,
                                 ca_dtype_t dtype);
/**
 * empty: contents unspecified (zeros in practice).
 * @return as ca_array_full().
 */
CA_API ca_status_t ca_array_empty(ca_array_t **out, int32_t ndim, const int64_t *shape, const ca_chunks_t *chunks,
                                  ca_dtype_t dtype);
/**
 * arange(start, stop, step) as NumPy: length ceil((stop - start) / step). chunks: 1-d.
 * @return CA_OK; CA_EINVAL (NULL out or chunks, step 0, a length that does not fit, chunks that do not match it);
 *         CA_ETYPE (invalid dtype); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_arange(ca_array_t **out, double start, double stop, double step,
                                   const ca_chunks_t *chunks, ca_dtype_t dtype);
/**
 * linspace(start, stop, num, endpoint).
 * @return CA_OK; CA_EINVAL (NULL out or chunks, negative num, chunks that do not match it); CA_ETYPE (invalid dtype);
 *         CA_ENOMEM.
 */
CA_API ca_status_t ca_array_linspace(ca_array_t **out, double start, double stop, int64_t num, int endpoint,
                                     const ca_chunks_t *chunks, ca_dtype_t dtype);
/**
 * eye(N, M, k): ones on the k-th diagonal. chunks: 2-d for (N, M).
 * @return CA_OK; CA_EINVAL (NULL out or chunks, negative n or m, chunks that do not match (n, m)); CA_ETYPE (invalid
 *         dtype); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_eye(ca_array_t **out, int64_t n, int64_t m, int64_t k, const ca_chunks_t *chunks,
                                ca_dtype_t dtype);
/**
 * tri(N, M, k): ones at and below the k-th diagonal.
 * @return as ca_array_eye().
 */
CA_API ca_status_t ca_array_tri(ca_array_t **out, int64_t n, int64_t m, int64_t k, const ca_chunks_t *chunks,
                                ca_dtype_t dtype);
/** diag as NumPy: a 1-d array gives a 2-d matrix with it on the k-th diagonal; a 2-d array gives its
 *  k-th diagonal (1-d).
 *  @return CA_OK; CA_EINVAL (NULL out or a, an array that is not 1-d or 2-d); CA_ENOMEM. */
CA_API ca_status_t ca_array_diag(ca_array_t **out, const ca_array_t *a, int64_t k);

/* Random distributions (ca_array_random): NumPy's Generator distributions. Counter-based
 * (Philox4x32-10 keyed by the seed): each element's value depends only on (seed, its C-order index),
 * never on chunks, threads or order. Expressions and reductions over a random array regenerate its
 * values where they need them instead of holding its blocks.
 *
 * Streams. UNIFORM, NORMAL and INTEGERS read counter (g / 2, stream 0) for element g (word g % 2;
 * NORMAL: Box-Muller over the pair 2c, 2c + 1; a rejected INTEGERS word is redrawn from stream 1,
 * 2, ...). Every other distribution gives element g its own substream: its k-th Philox call uses
 * counter (g low 32 bits, g high 32 bits, k, 1) and yields two 64-bit words, so a rejection sampler
 * (gamma: Marsaglia-Tsang, poisson: PTRS, binomial: BTRS, ...) draws as many uniforms as it needs
 * and element g stays a function of (seed, g) alone. A uniform double is the top 53 bits of a word.
 * Within the substreams a standard normal or exponential draw is a 256-layer ziggurat on one word
 * (NumPy's Generator's bit layout; further words only for the ~1% it rejects). Stream change in 0.2:
 * substream distributions drew normals by Box-Muller and exponentials by -log1p(-u) before, so their
 * values (not their laws) differ from earlier releases; UNIFORM, NORMAL and INTEGERS are unchanged.
 *
 * Parameters are scalars p0, p1, p2 (ca_random_options_t), in NumPy's argument order; unused ones
 * are ignored. ca_array_random_params() takes arrays for any of them (same streams, per-element
 * parameters). Float distributions make float64 or float32 (computed in double precision, then
 * rounded); discrete ones (marked "int64") make CA_INT64. Bad parameters give CA_EINVAL with NumPy's
 * message ("scale < 0", "p < 0, p > 1 or p is NaN", ...). standard_normal is NORMAL (0, 1). */
/** A distribution of ca_array_random(). Values are pinned: never renumbered or reused. */
typedef enum ca_random_t CA_ENUM32 {
  CA_RANDOM_UNIFORM = 0, /**< [p0, p1) */
  CA_RANDOM_NORMAL = 1, /**< mean p0, standard deviation p1 */
  CA_RANDOM_INTEGERS = 2, /**< integers in [p0, p1), integer dtype */
  CA_RANDOM_BETA = 3, /**< beta(a = p0, b = p1); a, b > 0 */
  CA_RANDOM_BINOMIAL = 4, /**< binomial(n = p0, p = p1), int64; n a non-negative integer < 2**53 */
  CA_RANDOM_CHISQUARE = 5, /**< chisquare(df = p0 > 0) */
  CA_RANDOM_EXPONENTIAL = 6, /**< exponential(scale = p0 >= 0) */
  CA_RANDOM_F = 7, /**< f(dfnum = p0 > 0, dfden = p1 > 0) */
  CA_RANDOM_GAMMA = 8, /**< gamma(shape = p0 >= 0, scale = p1 >= 0) */
  CA_RANDOM_GEOMETRIC = 9, /**< geometric(p = p0 in (0, 1]), int64, values >= 1 */
  CA_RANDOM_GUMBEL = 10, /**< gumbel(loc = p0, scale = p1 >= 0) */
  CA_RANDOM_HYPERGEOMETRIC = 11, /**< hypergeometric(ngood = p0, nbad = p1, nsample = p2), int64 */
  CA_RANDOM_LAPLACE = 12, /**< laplace(loc = p0, scale = p1 >= 0) */
  CA_RANDOM_LOGISTIC = 13, /**< logistic(loc = p0, scale = p1 >= 0) */
  CA_RANDOM_LOGNORMAL = 14, /**< lognormal(mean = p0, sigma = p1 >= 0) */
  CA_RANDOM_LOGSERIES = 15, /**< logseries(p = p0 in [0, 1)), int64 */
  CA_RANDOM_NEGATIVE_BINOMIAL = 16, /**< negative_binomial(n = p0 > 0, p = p1 in (0, 1]), int64 */
  CA_RANDOM_NONCENTRAL_CHISQUARE = 17, /**< noncentral_chisquare(df = p0 > 0, nonc = p1 >= 0) */
  CA_RANDOM_NONCENTRAL_F = 18, /**< noncentral_f(dfnum = p0 > 0, dfden = p1 > 0, nonc = p2 >= 0) */
  CA_RANDOM_PARETO = 19, /**< pareto(a = p0 > 0) (Lomax: values >= 0) */
  CA_RANDOM_POISSON = 20, /**< poisson(lam = p0 >= 0), int64 */
  CA_RANDOM_POWER = 21, /**< power(a = p0 > 0) */
  CA_RANDOM_RAYLEIGH = 22, /**< rayleigh(scale = p0 >= 0) */
  CA_RANDOM_STANDARD_CAUCHY = 23, /**< standard_cauchy() */
  CA_RANDOM_STANDARD_EXPONENTIAL = 24, /**< standard_exponential() */
  CA_RANDOM_STANDARD_GAMMA = 25, /**< standard_gamma(shape = p0 >= 0) */
  CA_RANDOM_STANDARD_T = 26, /**< standard_t(df = p0 > 0) */
  CA_RANDOM_TRIANGULAR = 27, /**< triangular(left = p0, mode = p1, right = p2); left <= mode <= right, left < right */
  CA_RANDOM_VONMISES = 28, /**< vonmises(mu = p0, kappa = p1 >= 0), values in [-pi, pi] */
  CA_RANDOM_WALD = 29, /**< wald(mean = p0 > 0, scale = p1 > 0) */
  CA_RANDOM_WEIBULL = 30, /**< weibull(a = p0 >= 0) */
  CA_RANDOM_ZIPF = 31, /**< zipf(a = p0 > 1), int64 */
  CA_RANDOM__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_random_t;

/** Options of ca_array_random(). Start from CA_RANDOM_OPTIONS_INIT; fields are only appended. */
typedef struct ca_random_options {
  uint32_t struct_size; /**< sizeof(ca_random_options_t) */
  uint32_t reserved;    /**< 0 */
  uint64_t seed;        /**< the Philox key: the same seed gives the same values */
  double p0;            /**< the distribution's first parameter (see CA_RANDOM_*); default 0 */
  double p1;            /**< its second parameter; default 1 */
  double p2;            /**< its third parameter (hypergeometric, noncentral_f, triangular); default 0.
                             Appended: an older struct_size without it reads as 0 */
} ca_random_options_t;
/** The defaults of ca_random_options_t (seed 0, [0, 1)). */
#define CA_RANDOM_OPTIONS_INIT {sizeof(ca_random_options_t), 0u, 0u, 0.0, 1.0, 0.0}

/**
 * An array of random values of @p distribution (CA_RANDOM_*), never stored: its blocks, and any
 * region an expression over it reads, are generated where needed.
 * @param[out] out owned, free with ca_array_free(); NULL on failure.
 * @param shape @p ndim extents (may be NULL when ndim is 0). @param chunks normalized chunks of it.
 * @param dtype float64 or float32 for the float distributions, CA_INT64 for the discrete ones
 *        (binomial, geometric, hypergeometric, logseries, negative_binomial, poisson, zipf), any
 *        integer dtype or bool for INTEGERS.
 * @param opts borrowed, may be NULL (seed 0, p0 0, p1 1, p2 0: the defaults of CA_RANDOM_OPTIONS_INIT).
 * @return CA_OK; CA_EINVAL (NULL out/chunks, bad shape or chunks, unknown distribution, bad
 *         parameters with NumPy's message, e.g. "normal: scale < 0", "binomial: p < 0, p > 1 or p is
 *         NaN", "integers: low >= high", opts->struct_size too small); CA_ETYPE (a dtype the
 *         distribution cannot produce); CA_ENOMEM.
 *
 * @code
 * ca_random_options_t o = CA_RANDOM_OPTIONS_INIT;
 * o.seed = 42; o.p0 = 2.5; o.p1 = 1.0;        // gamma(shape 2.5, scale 1)
 * ca_array_t *g = NULL;
 * int64_t shape[1] = {1000000};
 * ca_status_t st = ca_array_random(&g, CA_RANDOM_GAMMA, 1, shape, chunks, CA_FLOAT64, &o);
 * @endcode
 */
CA_API ca_status_t ca_array_random(ca_array_t **out, ca_random_t distribution, int32_t ndim, const int64_t *shape,
                                   const ca_chunks_t *chunks, ca_dtype_t dtype, const ca_random_options_t *opts);
/**
 * ca_array_random() with array-valued parameters: parameter j (p0, p1, p2 in NumPy's order, see
 * CA_RANDOM_*) is the array @p params[j], or the scalar opts->pj where @p params[j] is NULL or
 * j >= @p nparams. Each parameter array is broadcast against @p shape as NumPy broadcasts a
 * Generator method's parameters against size: its dimensions align with the trailing ones of
 * @p shape, each of its extents equals the output's or is 1. Parameter arrays stay lazy: each output
 * block reads the parameter blocks aligned with it (the ca.random_params kernel), nothing else.
 *
 * Element g draws from the same stream as in ca_array_random() with its own parameters, so constant
 * parameter arrays give ca_array_random()'s values bit for bit, and values never depend on the chunks.
 * Parameter values are only known at compute time: they are checked there, per element, as
 * ca_array_random() checks scalars, and a bad value (e.g. gamma's scale < 0) fails the kernel with
 * CA_EINVAL and NumPy's message ("gamma: scale < 0 (got ...)"), which a compute reports as
 * CA_EKERNEL with that message (as every failed kernel).
 *
 * @param[out] out owned, free with ca_array_free(); NULL on failure.
 * @param distribution any CA_RANDOM_* (CA_RANDOM_INTEGERS: low and high, truncated toward zero as
 *        NumPy force-casts them, each element checked as ca_array_random() checks its bounds: low <
 *        high and both within @p dtype, "integers: low >= high ...", "... is out of bounds for int8").
 * @param shape @p ndim extents (may be NULL when ndim is 0). @param chunks normalized chunks of it.
 * @param dtype as ca_array_random().
 * @param params borrowed, @p nparams entries (NULL entries allowed); may be NULL when nparams is 0.
 *        Parameter arrays of a real or bool dtype; binomial's n and hypergeometric's ngood, nbad and
 *        nsample need a dtype NumPy casts safely to int64 (bool, int8-int64, uint8-uint32).
 * @param nparams 0 to 3. With no parameter array this is ca_array_random().
 * @param opts borrowed, may be NULL: the seed and the scalar parameters.
 * @return CA_OK; CA_EINVAL (NULL out/chunks, nparams out of range, params NULL with nparams > 0, bad
 *         shape or chunks, unknown distribution, an array for a parameter the distribution does not
 *         take, a parameter array that does not broadcast to @p shape: "shape mismatch: objects cannot
 *         be broadcast to a single shape", one of more dimensions than @p shape, or of unknown chunk
 *         sizes, opts->struct_size too small); CA_ETYPE (a dtype the distribution cannot produce, a
 *         complex/string/time parameter array, a float or uint64 array for an integer parameter: "Cannot
 *         cast array data from dtype('float64') to dtype('int64') according to the rule 'safe'");
 *         CA_ENOMEM. At compute: CA_EKERNEL for a bad parameter
 *         value, with NumPy's message.
 *
 * @code
 * ca_random_options_t o = CA_RANDOM_OPTIONS_INIT;
 * o.seed = 42; o.p1 = 2.0;                       // scale 2 for every element
 * const ca_array_t *ps[2] = {shape_array, NULL}; // shape: an array broadcasting to (n, m)
 * ca_status_t st = ca_array_random_params(&g, CA_RANDOM_GAMMA, 2, nm, chunks, CA_FLOAT64, ps, 2, &o);
 * @endcode
 */
CA_API ca_status_t ca_array_random_params(ca_array_t **out, ca_random_t distribution, int32_t ndim,
                                          const int64_t *shape, const ca_chunks_t *chunks, ca_dtype_t dtype,
                                          const ca_array_t *const *params, int32_t nparams,
                                          const ca_random_options_t *opts);
/**
 * multinomial(n, pvals, size) as NumPy's Generator: counts of @p n draws over @p k categories, an
 * int64 array of shape size + (k,). Row r (the C-order index over size) uses element r's substream
 * (the scheme of the discrete CA_RANDOM_* distributions): count j is binomial(n - the counts before
 * it, pvals[j] / (1 - the pvals before it)), the last category takes the rest. Values do not depend
 * on the chunks; the array is generated at compute time, never stored.
 * @param[out] out owned, free with ca_array_free(); NULL on failure.
 * @param n the number of draws (>= 0). @param pvals borrowed, @p k >= 1 probabilities in [0, 1];
 *        the last is implied by the others (sum(pvals[:-1]) <= 1, as NumPy).
 * @param ndim, shape size (@p shape may be NULL when @p ndim is 0).
 * @param chunks normalized chunks of size + (k,) (@p ndim + 1 axes); the last axis one chunk of k.
 * @param seed the Philox key.
 * @return CA_OK; CA_EINVAL (NULL out, pvals or chunks, n < 0, k < 1, "pvals < 0, pvals > 1 or pvals
 *         contains NaNs", "sum(pvals[:-1]) > 1.0", bad shape or chunks, a last axis of several
 *         chunks); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_random_multinomial(ca_array_t **out, int64_t n, const double *pvals, int64_t k,
                                               int32_t ndim, const int64_t *shape, const ca_chunks_t *chunks,
                                               uint64_t seed);

/* ------------------------------------------------------------------------------------------------ */
/* Elementwise (fused)                                                                               */
/* ------------------------------------------------------------------------------------------------ */

/* @generated ops begin: tools/gen_codes.py */
/** Elementwise operators (ca_array_unary, ca_array_binary, ca_array_binary_scalar).
 * Values are pinned: never renumbered or reused.
 * Generated from src/array/ops.def by tools/gen_codes.py: edit the table, then run
 * `python3 tools/gen_codes.py --write`. 32 bits wide (CA_ENUM32, common.h). */
typedef enum ca_op_t CA_ENUM32 {
  /* binary */
  CA_OP_ADD = 1,
  CA_OP_SUB = 2,
  CA_OP_MUL = 3,
  CA_OP_DIV = 4,             /**< true division */
  CA_OP_FLOORDIV = 5,
  CA_OP_MOD = 6,
  CA_OP_POW = 7,
  CA_OP_EQ = 8,
  CA_OP_NE = 9,
  CA_OP_LT = 10,
  CA_OP_LE = 11,
  CA_OP_GT = 12,
  CA_OP_GE = 13,
  CA_OP_AND = 14,            /**< logical_and */
  CA_OP_OR = 15,
  CA_OP_XOR = 16,
  CA_OP_MAXIMUM = 17,
  CA_OP_MINIMUM = 18,
  CA_OP_ARCTAN2 = 19,
  CA_OP_BITAND = 20,
  CA_OP_BITOR = 21,
  CA_OP_BITXOR = 22,
  CA_OP_HYPOT = 23,
  CA_OP_FMAX = 24,           /**< maximum ignoring nan */
  CA_OP_FMIN = 25,           /**< minimum ignoring nan */
  CA_OP_FMOD = 26,           /**< C's remainder: the sign of the dividend */
  CA_OP_COPYSIGN = 27,
  CA_OP_FLOAT_POWER = 28,    /**< power in float64 (complex128 for complex operands) */
  CA_OP_LDEXP = 29,          /**< a * 2**b: a float (or integer: the float NumPy's loop takes), b an integer up
                                to int64 */
  CA_OP_LOGADDEXP = 30,
  CA_OP_LOGADDEXP2 = 31,
  CA_OP_NEXTAFTER = 32,
  CA_OP_LEFT_SHIFT = 33,     /**< shifts by the bit width or more (or negative) give 0 */
  CA_OP_RIGHT_SHIFT = 34,    /**< arithmetic for signed types; shifts by the bit width or more (or negative)
                                give 0 or -1 */
  CA_OP_FLOORDIV_STD = 35,   /**< floor_divide with the array API standard's special cases: an infinity over a
                                nonzero finite number is the signed infinity (CA_OP_FLOORDIV gives NaN as
                                NumPy), a finite number over an infinity the signed zero (NumPy: -1 for unlike
                                signs); otherwise as CA_OP_FLOORDIV */
  /* unary */
  CA_OP_NEG = 40,
  CA_OP_ABS = 41,
  CA_OP_SIGN = 42,
  CA_OP_SQRT = 43,
  CA_OP_EXP = 44,
  CA_OP_LOG = 45,
  CA_OP_LOG1P = 46,
  CA_OP_EXPM1 = 47,
  CA_OP_SIN = 48,
  CA_OP_COS = 49,
  CA_OP_TAN = 50,
  CA_OP_ARCSIN = 51,
  CA_OP_ARCCOS = 52,
  CA_OP_ARCTAN = 53,
  CA_OP_SINH = 54,
  CA_OP_COSH = 55,
  CA_OP_TANH = 56,
  CA_OP_ARCSINH = 57,
  CA_OP_ARCCOSH = 58,
  CA_OP_ARCTANH = 59,
  CA_OP_FLOOR = 60,
  CA_OP_CEIL = 61,
  CA_OP_ROUND = 62,          /**< round half to even, as np.rint: integer and bool inputs give a float dtype
                                (float32 up to 16 bits, float64 wider); ca_array_round keeps integers */
  CA_OP_ISNAN = 63,
  CA_OP_ISINF = 64,
  CA_OP_ISFINITE = 65,
  CA_OP_NOT = 66,            /**< logical_not */
  CA_OP_INVERT = 67,         /**< bitwise not (logical not for bool) */
  CA_OP_LOG10 = 68,
  CA_OP_LOG2 = 69,
  CA_OP_SQUARE = 70,
  CA_OP_CONJ = 71,
  CA_OP_REAL = 72,
  CA_OP_IMAG = 73,
  CA_OP_TRUNC = 74,          /**< also np.fix */
  CA_OP_CBRT = 75,
  CA_OP_DEG2RAD = 76,        /**< also np.radians */
  CA_OP_RAD2DEG = 77,        /**< also np.degrees */
  CA_OP_EXP2 = 78,
  CA_OP_FABS = 79,
  CA_OP_SPACING = 80,        /**< the distance to the next value away from zero (float16 in its own precision) */
  CA_OP_SIGNBIT = 81,
  CA_OP_SINC = 82,           /**< sin(pi x) / (pi x), 1 at 0 (np.sinc: bool and integers give float64) */
  CA_OP_I0 = 83,             /**< modified Bessel function of the first kind, order 0 (np.i0: bool and integers
                                give float64) */
  CA_OP_RECIPROCAL = 84,     /**< 1 / x; integers as NumPy: the float quotient truncated */
  CA_OP_POSITIVE = 85,
  CA_OP_ANGLE = 86,          /**< the argument in radians (np.angle; bool gives float64 as NumPy) */
  CA_OP_ISCOMPLEX = 87,      /**< imaginary part != 0 */
  CA_OP_ISREAL = 88,         /**< imaginary part == 0 */
  CA_OP_ISNEGINF = 89,
  CA_OP_ISPOSINF = 90,
  CA_OP_NAN_TO_NUM = 91,     /**< nan -> 0, +-inf -> the dtype's largest finite values (complex: each part);
                                ca_array_nan_to_num takes other values */
  CA_OP_FREXP_MANTISSA = 92, /**< np.frexp(x)[0] */
  CA_OP_FREXP_EXPONENT = 93, /**< np.frexp(x)[1] (int32) */
  CA_OP_MODF_FRACTION = 94,  /**< np.modf(x)[0]; np.modf(x)[1] is CA_OP_TRUNC */
  CA_OP__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_op_t;
/* @generated ops end */

/** ca_scalar_t::flags: the scalar is typed (a NumPy scalar such as np.float32(1.5), a Rust f32): it
 *  promotes like an array of dtype `kind` (NumPy 2's rule, NEP 50), e.g. uint8 array + float32 scalar
 *  is float32 and bool array + int16 scalar is int16. Without it the scalar is a Python scalar. */
#define CA_SCALAR_TYPED 1

/** A scalar operand.
 *
 *  A Python scalar (flags 0; kind CA_BOOL, CA_INT64, CA_FLOAT64 or CA_COMPLEX128: which Python type
 *  it is, or CA_UINT64 for a Python int in [2**63, 2**64)) follows NumPy 1.x's value-based rules: it
 *  does not upcast an array of the same kind (int8 array + 1 is int8). A typed scalar (flags
 *  CA_SCALAR_TYPED, kind any numeric dtype, float16, or a datetime64/timedelta64 dtype with its unit)
 *  promotes like an array of that dtype; bytes/unicode values are passed as 0-d arrays instead.
 *  The value: `i64` for bool and signed integer kinds, `i64` reinterpreted as uint64 for unsigned
 *  kinds (set `re` to the value too), `re` for float kinds, `re` and `im` for complex kinds, `i64`
 *  (the ticks, CA_NAT for NaT) for datetime64/timedelta64 kinds. */
typedef struct ca_scalar {
  ca_dtype_t kind; /**< which type it is (see above) */
  int32_t flags;   /**< 0 or CA_SCALAR_TYPED */
  double re; /**< the value (the real part of a complex value) */
  double im; /**< the imaginary part (complex dtypes only) */
  int64_t i64;     /**< exact value for integer and bool kinds (unsigned: the uint64 bits) */
} ca_scalar_t;

/**
 * @return CA_OK; CA_EINVAL (NULL out or a, unknown op); CA_ETYPE (the op is not defined for the dtype, e.g. a bitwise
 *         op on floats, or a string or time dtype); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_unary(ca_array_t **out, ca_op_t op, const ca_array_t *a);
/**
 * a op b with NumPy broadcasting; chunks unified (rechunked where they differ).
 * @return CA_OK; CA_EINVAL (NULL out, a or b, unknown op, shapes that do not broadcast: both named); CA_ETYPE (no
 *         NumPy promotion of the dtypes, or the op is not defined for it); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_binary(ca_array_t **out, ca_op_t op, const ca_array_t *a, const ca_array_t *b);
/**
 * a op s (or s op a when @p scalar_first).
 * @return as ca_array_binary(); CA_EINVAL also for an invalid scalar kind.
 */
CA_API ca_status_t ca_array_binary_scalar(ca_array_t **out, ca_op_t op, const ca_array_t *a, ca_scalar_t s,
                                          int scalar_first);
/**
 * a op b under the Python array API standard's type promotion (ca_dtype_promote_std()) instead of
 * NumPy's: the dtypes must be a pair the standard promotes (int64 with float32, bool with int8 or
 * int64 with uint64 are refused); the result is then what ca_array_binary() gives (the promoted dtype,
 * bool for comparisons and logical ops). Broadcasting and chunks as ca_array_binary(). Use
 * CA_OP_FLOORDIV_STD for the standard's floor_divide special cases. Each operation of the standard
 * also takes only its dtype category, as numpy.array_api checks: CA_OP_DIV floating-point; the
 * comparisons (but equality), floor division, remainder, maximum and minimum real numeric;
 * CA_OP_AND/OR/XOR boolean; the bitwise ops integer or boolean; the shifts integer; arctan2,
 * logaddexp, hypot and copysign real floating-point; the arithmetic ops numeric (operations outside
 * the standard only promote). @p a and @p b are borrowed.
 * @return CA_OK; CA_EINVAL (NULL out, a or b, unknown op, shapes that do not broadcast); CA_ETYPE (a dtype
 *         pair the standard does not promote, naming both dtypes; a dtype outside the standard's set or
 *         outside the op's category, naming both; or the op is not defined for the dtype); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_binary_std(ca_array_t **out, ca_op_t op, const ca_array_t *a, const ca_array_t *b);
/**
 * a op s (or s op a when @p scalar_first) under the array API standard's rules for scalars: a Python
 * scalar (flags 0) takes the array's dtype (int8 array + 1 is int8, float32 array + 0.5 is float32,
 * never value-based). A bool scalar goes only with a bool array, an int scalar (kind CA_INT64 or
 * CA_UINT64) with integer, floating-point and complex arrays, a float scalar (CA_FLOAT64) with
 * floating-point and complex arrays, a complex scalar with complex arrays. A typed scalar
 * (CA_SCALAR_TYPED) is an operand of its own dtype, promoted with the array by ca_dtype_promote_std().
 * @p a is borrowed.
 * @return CA_OK; CA_EINVAL (NULL out or a, unknown op, invalid scalar flags or kind, an int scalar the
 *         array's dtype does not hold: "the Python int 300 is out of bounds for uint8"); CA_ETYPE (a
 *         scalar kind the standard does not combine with the array's dtype, a typed scalar's dtype without
 *         a promotion, an array dtype outside the standard's set or the op's category (as
 *         ca_array_binary_std()), or the op is not defined for the dtype); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_binary_scalar_std(ca_array_t **out, ca_op_t op, const ca_array_t *a, ca_scalar_t s,
                                              int scalar_first);
/**
 * where(cond, a, b); any of a, b may be NULL to use the scalars sa, sb instead.
 * @return CA_OK; CA_EINVAL (NULL out or cond, shapes that do not broadcast); CA_ETYPE (a non-boolean-convertible cond
 *         or dtypes without a promotion); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_where(ca_array_t **out, const ca_array_t *cond, const ca_array_t *a, const ca_array_t *b,
                                  ca_scalar_t sa, ca_scalar_t sb);
/**
 * clip(a, lo, hi): use has_lo/has_hi for one-sided clips.
 * @return CA_OK; CA_EINVAL (NULL out or a); CA_ETYPE (a bound that does not convert to the dtype, or a string dtype);
 *         CA_ENOMEM.
 */
CA_API ca_status_t ca_array_clip(ca_array_t **out, const ca_array_t *a, int has_lo, ca_scalar_t lo, int has_hi,
                                 ca_scalar_t hi);
/**
 * @return CA_OK; CA_EINVAL (NULL out or a); CA_ETYPE (invalid dtype, or a cast NumPy refuses, e.g. between time and
 *         string dtypes); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_astype(ca_array_t **out, const ca_array_t *a, ca_dtype_t dtype);
/**
 * np.round(a, decimals).
 * @return CA_OK; CA_EINVAL (NULL out or a); CA_ETYPE (a string or time dtype); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_round(ca_array_t **out, const ca_array_t *a, int32_t decimals);
/**
 * np.isclose(a, b, rtol, atol, equal_nan): |a - b| <= atol + rtol * |b| where both are finite, a == b where
 * either is not, and nan against nan true when @p equal_nan is 1. b is taken as float64 when it is bool or
 * integer (NumPy's result_type(b, 1.0)). A boolean array of the broadcast shape, one fused expression.
 * Both arrays are borrowed; *out is the caller's (ca_array_free).
 * @return CA_OK; CA_EINVAL (NULL out, a or b, shapes that do not broadcast); CA_ETYPE (a string or time dtype, or
 *         dtypes without a promotion); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_isclose(ca_array_t **out, const ca_array_t *a, const ca_array_t *b, double rtol,
                                    double atol, int equal_nan);
/**
 * np.nan_to_num(a, nan=nan, posinf=*posinf, neginf=*neginf): nan, +inf and -inf replaced by the values cast to
 * a's dtype. NULL @p posinf / @p neginf: the dtype's largest / most negative finite value (the defaults, which
 * CA_OP_NAN_TO_NUM computes with nan = 0). Bool and integer arrays come back unchanged. a is borrowed; *out is
 * the caller's.
 * @return CA_OK; CA_EINVAL (NULL out or a); CA_ETYPE (a string or time dtype); CA_EUNSUPPORTED (a complex dtype
 *         with values other than the defaults); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_nan_to_num(ca_array_t **out, const ca_array_t *a, double nan, const double *posinf,
                                       const double *neginf);

/* ------------------------------------------------------------------------------------------------ */
/* Reductions and scans                                                                              */
/* ------------------------------------------------------------------------------------------------ */

/* @generated reductions begin: tools/gen_codes.py */
/** Builtin reductions (ca_array_reduce).
 * Values are pinned: never renumbered or reused.
 * Generated from src/array/reductions.def by tools/gen_codes.py: edit the table, then run
 * `python3 tools/gen_codes.py --write`. 32 bits wide (CA_ENUM32, common.h). */
typedef enum ca_reduction_t CA_ENUM32 {
  CA_RED_SUM = 1,
  CA_RED_PROD = 2,
  CA_RED_MEAN = 3,
  CA_RED_VAR = 4,
  CA_RED_STD = 5,
  CA_RED_MIN = 6,
  CA_RED_MAX = 7,
  CA_RED_ARGMIN = 8,
  CA_RED_ARGMAX = 9,
  CA_RED_ANY = 10,
  CA_RED_ALL = 11,
  CA_RED_NANSUM = 12,
  CA_RED_NANPROD = 13,
  CA_RED_NANMEAN = 14,
  CA_RED_NANVAR = 15,
  CA_RED_NANSTD = 16,
  CA_RED_NANMIN = 17,
  CA_RED_NANMAX = 18,
  CA_RED_NANARGMIN = 19,
  CA_RED_NANARGMAX = 20,
  CA_RED__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_reduction_t;
/* @generated reductions end */

/** Options of ca_array_reduce() (NULL = defaults). */
typedef struct ca_reduce_options {
  uint32_t struct_size; /**< sizeof(ca_reduce_options_t) */
  int32_t split_every; /**< blocks combined per tree node (spread over the reduced axes); 0 = dask's 16 */
  int32_t ddof;        /**< var/std */
  ca_dtype_t dtype;    /**< accumulate/return dtype; CA_DTYPE_INVALID = NumPy's default */
} ca_reduce_options_t;
/** The defaults of ca_reduce_options_t. */
#define CA_REDUCE_OPTIONS_INIT {sizeof(ca_reduce_options_t), 0, 0, CA_DTYPE_INVALID}

/**
 * A builtin reduction over @p naxes axes (naxes 0 with axes NULL: all axes; negative axes count from
 * the end). arg-reductions take one axis or all (flattened index).
 * @param opts borrowed, may be NULL (the defaults of CA_REDUCE_OPTIONS_INIT).
 * @return CA_OK; CA_EINVAL (NULL out or a, unknown op, axes NULL with naxes > 0, an axis out of range or repeated,
 *         several axes for an arg-reduction, opts->struct_size too small); CA_ETYPE (the reduction is not defined for
 *         the dtype, or an invalid opts->dtype); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_reduce(ca_array_t **out, ca_reduction_t op, const ca_array_t *a, const int32_t *axes,
                                   int32_t naxes, int keepdims, const ca_reduce_options_t *opts);

/** Interpolation between order statistics (ca_array_quantile): NumPy's `method` of np.quantile. Values are pinned. */
typedef enum ca_quantile_method_t CA_ENUM32 {
  CA_QUANTILE_LINEAR = 0,   /**< NumPy's default */
  CA_QUANTILE_LOWER = 1,    /**< the order statistic below */
  CA_QUANTILE_HIGHER = 2,   /**< the one above */
  CA_QUANTILE_NEAREST = 3,  /**< the nearer one (half to even) */
  CA_QUANTILE_MIDPOINT = 4, /**< the mean of both */
  CA_QUANTILE__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_quantile_method_t;

/** Options of ca_array_quantile(). Start from CA_QUANTILE_OPTIONS_INIT; fields are only appended. */
typedef struct ca_quantile_options {
  uint32_t struct_size;        /**< sizeof(ca_quantile_options_t) */
  ca_quantile_method_t method; /**< CA_QUANTILE_* */
  int32_t keepdims;            /**< 1: the reduced axes stay, of extent 1 */
  int32_t skip_nan;            /**< 1: np.nanquantile (nan ignored); 0: a row with a nan gives nan */
  ca_dtype_t dtype;            /**< the result dtype: float16/32/64, or a's for lower/higher/nearest;
                                    CA_DTYPE_INVALID = np.quantile's (float64 for linear/midpoint, a's for
                                    the others; np.median keeps float16/float32: pass a's dtype) */
} ca_quantile_options_t;
/** ca_quantile_options_t's defaults: linear, no keepdims, NaNs propagate, NumPy's result dtype. */
#define CA_QUANTILE_OPTIONS_INIT {sizeof(ca_quantile_options_t), CA_QUANTILE_LINEAR, 0, 0, CA_DTYPE_INVALID}

/**
 * np.quantile(a, q, axis=axes), exact (np.median is q 0.5, np.percentile q / 100). The reduced axes
 * (@p naxes of @p axes; naxes 0 with axes NULL: all) are rechunked to one chunk each and no other
 * axis is, as dask.array's median; each block then selects its rows' order statistics (in a's own
 * type for lower/higher/nearest: exact for int64). @p q holds @p nq values in [0, 1]: with
 * @p q_is_scalar 1 it is one value and the result has no q axis, otherwise the result's first axis is
 * q's. Result dtype: opts->dtype. Rows that are empty (or all nan with skip_nan) give nan.
 * @p a and @p q are borrowed (q is copied); *out is the caller's.
 * @param opts borrowed, may be NULL (the defaults of CA_QUANTILE_OPTIONS_INIT).
 * @return CA_OK; CA_EINVAL (NULL out, a, or q with nq > 0; nq 0; q_is_scalar with nq != 1; a value of q outside
 *         [0, 1] or nan; axes NULL with naxes > 0; an axis out of range or repeated; a 0-d array; an unknown method;
 *         opts->struct_size too small); CA_ETYPE (a complex, string or time dtype; bool with linear/midpoint and no
 *         float result dtype; a result dtype that is not float16/32/64 or a's for lower/higher/nearest);
 *         CA_ENOMEM.
 */
CA_API ca_status_t ca_array_quantile(ca_array_t **out, const ca_array_t *a, const double *q, size_t nq,
                                     int q_is_scalar, const int32_t *axes, int32_t naxes,
                                     const ca_quantile_options_t *opts);

/* @generated scans begin: tools/gen_codes.py */
/** Builtin scans (ca_array_scan).
 * Values are pinned: never renumbered or reused.
 * Generated from src/array/scans.def by tools/gen_codes.py: edit the table, then run
 * `python3 tools/gen_codes.py --write`. 32 bits wide (CA_ENUM32, common.h). */
typedef enum ca_scan_t CA_ENUM32 {
  CA_SCAN_CUMSUM = 1,
  CA_SCAN_CUMPROD = 2,
  CA_SCAN_NANCUMSUM = 3,
  CA_SCAN_NANCUMPROD = 4,
  CA_SCAN__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_scan_t;
/* @generated scans end */

/** Options of ca_array_scan(). Start from CA_SCAN_OPTIONS_INIT; fields are only appended. */
typedef struct ca_scan_options {
  uint32_t struct_size; /**< sizeof(ca_scan_options_t) */
  ca_dtype_t dtype;     /**< accumulate/return dtype; CA_DTYPE_INVALID = NumPy's default */
} ca_scan_options_t;
/** The defaults of ca_scan_options_t. */
#define CA_SCAN_OPTIONS_INIT {sizeof(ca_scan_options_t), CA_DTYPE_INVALID}

/**
 * Cumulative reduction along @p axis (dask's cumreduction: per-block scan plus a carried total).
 * @param[out] out owned, free with ca_array_free(); NULL on failure.
 * @param op CA_SCAN_*. @param a borrowed. @param axis negative counts from the end.
 * @param opts borrowed, may be NULL (the defaults of CA_SCAN_OPTIONS_INIT).
 * @return CA_OK; CA_EINVAL (NULL out or a, unknown op, axis out of range, opts->struct_size too
 *         small); CA_ETYPE (a dtype the scan does not take); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_scan(ca_array_t **out, ca_scan_t op, const ca_array_t *a, int32_t axis,
                                 const ca_scan_options_t *opts);

/** Options of ca_array_reduction(). Start from CA_REDUCTION_OPTIONS_INIT; fields are only appended. */
typedef struct ca_reduction_options {
  uint32_t struct_size; /**< sizeof(ca_reduction_options_t) */
  int32_t split_every;  /**< blocks combined per tree node; 0 = dask's 16 */
  const char *combine;  /**< the combine kernel (borrowed for the call); NULL = aggregate at every level */
  ca_dtype_t dtype;     /**< the output dtype; CA_DTYPE_INVALID = the input's */
} ca_reduction_options_t;
/** The defaults of ca_reduction_options_t. */
#define CA_REDUCTION_OPTIONS_INIT {sizeof(ca_reduction_options_t), 0, NULL, CA_DTYPE_INVALID}

/**
 * dask's generic tree reduction with user kernels:
 * - chunk(block) -> partial, with reduced axes kept at size 1 (keepdims);
 * - combine(nested list of partials) -> partial (lists nest one level per reduced axis);
 * - aggregate(nested list of partials) -> final block (keepdims shape; axes dropped afterwards
 *   unless @p keepdims).
 * Kernels are looked up by name at compute.
 * @param[out] out owned, free with ca_array_free(); NULL on failure.
 * @param a borrowed. @param chunk, aggregate kernel names (borrowed, copied).
 * @param axes @p naxes axes (naxes 0 with axes NULL: all axes). @param keepdims 0 or 1.
 * @param opts borrowed, may be NULL (the defaults of CA_REDUCTION_OPTIONS_INIT).
 * @return CA_OK; CA_EINVAL (NULL out, a, chunk or aggregate; bad axes; opts->struct_size too small);
 *         CA_ETYPE (invalid dtype); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_reduction(ca_array_t **out, const ca_array_t *a, const char *chunk,
                                      const char *aggregate, const int32_t *axes, int32_t naxes, int keepdims,
                                      const ca_reduction_options_t *opts);

/* ------------------------------------------------------------------------------------------------ */
/* Block primitives                                                                                  */
/* ------------------------------------------------------------------------------------------------ */

/** One argument of ca_array_blockwise: an array with index letters, or a literal. */
typedef struct ca_array_arg {
  const ca_array_t *array; /**< NULL for a literal */
  const char *index;       /**< letters, one per dimension of array ("ij"); ignored for literals */
  ca_arg_t literal;        /**< used when array is NULL */
} ca_array_arg_t;

/** Options of ca_array_blockwise() (NULL = defaults). */
typedef struct ca_blockwise_array_options {
  uint32_t struct_size; /**< sizeof(ca_blockwise_array_options_t) */
  /** letters of the output absent from every input: their sizes (one block each) */
  const char *new_axes;          /**< e.g. "k" */
  const int64_t *new_axes_sizes; /**< one per letter of new_axes */
  /** explicit output chunks (overrides what is derived from the inputs); NULL = derived */
  const ca_chunks_t *chunks;
  /** contracted letters: 1 = concatenate the blocks along them into one block (dask's
   *  concatenate=True); 0 = pass a (nested) list of blocks */
  int32_t concatenate;
  /** 1 (default) = unify the chunks of the inputs (rechunk) where letters disagree */
  int32_t align_arrays;
  const char *name; /**< output name prefix (default: the kernel name) */
} ca_blockwise_array_options_t;
/** The defaults of ca_blockwise_array_options_t. */
#define CA_BLOCKWISE_ARRAY_OPTIONS_INIT {sizeof(ca_blockwise_array_options_t), NULL, NULL, NULL, 0, 1, NULL}

/**
 * dask's blockwise(func, out_ind, *(arg, ind)...): one task per output block calling @p kernel with
 * the corresponding blocks of the inputs.
 * @return CA_OK; CA_EINVAL (NULL out, kernel or out_index; args NULL with nargs > 0; index letters that do not match
 *         an array's dimensions; a letter with different block counts and align_arrays 0; opts->struct_size too
 *         small); CA_ETYPE (invalid dtype); CA_ENOMEM. The kernel is looked up at compute (CA_ENOTFOUND then).
 */
CA_API ca_status_t ca_array_blockwise(ca_array_t **out, const char *kernel, const char *out_index,
                                      const ca_array_arg_t *args, size_t nargs, ca_dtype_t dtype,
                                      const ca_blockwise_array_options_t *opts);

/** Options of ca_array_map_blocks() (NULL = defaults). */
typedef struct ca_map_blocks_options {
  uint32_t struct_size; /**< sizeof(ca_map_blocks_options_t) */
  ca_dtype_t dtype;          /**< output dtype; CA_DTYPE_INVALID = the first input's */
  const ca_chunks_t *chunks; /**< explicit output chunks; NULL = the first input's (adjusted by axes) */
  const int32_t *drop_axis;  /**< output drops these axes of the inputs */
  int32_t ndrop_axis; /**< entries in drop_axis */
  const int32_t *new_axis;   /**< output gains these axes (size 1 unless chunks says otherwise) */
  int32_t nnew_axis; /**< entries in new_axis */
  /** 1: append two literal arguments: the block index (tuple) and the block's location in the
   *  array (tuple of start offsets), dask's block_info */
  int32_t block_info;
  const char *name;          /**< output name prefix (default: the kernel name) */
} ca_map_blocks_options_t;
/** The defaults of ca_map_blocks_options_t. */
#define CA_MAP_BLOCKS_OPTIONS_INIT {sizeof(ca_map_blocks_options_t), CA_DTYPE_INVALID, NULL, NULL, 0, NULL, 0, 0, NULL}

/**
 * dask's map_blocks: @p kernel on each block of the inputs (aligned by broadcasting like blockwise),
 * followed by @p extra literal arguments (and block_info when asked).
 * @param arrays borrowed, narrays ≥ 1 entries, none NULL.
 * @param extra borrowed, may be NULL when nextra is 0.
 * @param opts borrowed, may be NULL (the defaults of CA_MAP_BLOCKS_OPTIONS_INIT).
 * @return CA_OK; CA_EINVAL (NULL out, kernel or arrays; narrays 0; a NULL array; extra NULL with nextra > 0; arrays
 *         that do not broadcast; bad drop_axis/new_axis; explicit chunks that do not fit; opts->struct_size too
 *         small); CA_ETYPE (invalid opts->dtype); CA_ENOMEM. The kernel is looked up at compute (CA_ENOTFOUND then).
 */
CA_API ca_status_t ca_array_map_blocks(ca_array_t **out, const char *kernel, const ca_array_t *const *arrays,
                                       size_t narrays, const ca_arg_t *extra, size_t nextra,
                                       const ca_map_blocks_options_t *opts);

/**
 * Rechunk to @p chunks (normalized chunks of the same shape).
 * @return CA_OK; CA_EINVAL (NULL out, a or chunks; chunks of another shape, the axis named); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_rechunk(ca_array_t **out, const ca_array_t *a, const ca_chunks_t *chunks);

/**
 * dask's unify_chunks: arrays indexed by letters are rechunked so every letter has one common
 * chunking (a dimension of extent 1 broadcasts). @p out receives narrays new references.
 * @return CA_OK; CA_EINVAL (NULL out, arrays or indices; a NULL array; index letters that do not match an array's
 *         dimensions; a letter whose extents differ and are not 1); CA_ENOMEM.
 * @param[out] out caller's array of narrays pointers; each receives an owned array (ca_array_free()); all NULL on
 *         failure.
 */
CA_API ca_status_t ca_unify_chunks(ca_array_t **out, const ca_array_t *const *arrays, const char *const *indices,
                                   size_t narrays);

/* ------------------------------------------------------------------------------------------------ */
/* Compute                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

/**
 * Compute an array into one C-order block (library-allocated). Blocks are copied into place as they
 * finish and freed at once: peak memory is the result plus the blocks in flight.
 * Fails as ca_compute() does; e.g. CA_EVERSION for an array loaded from a graph file that records a
 * kernel version other than the registered one (format.h). The same holds for every compute call here.
 * @param opts borrowed, may be NULL (no progress callback, no cancellation), here and in every
 *        compute call below.
 */
CA_API ca_status_t ca_array_compute(ca_block_t **out, ca_context_t *ctx, const ca_array_t *a,
                                    const ca_compute_options_t *opts);
/**
 * Compute into a caller's C-order buffer of exactly ca_array_nbytes() bytes.
 * @return as ca_array_compute(); CA_EINVAL also for a NULL buffer or nbytes other than ca_array_nbytes().
 */
CA_API ca_status_t ca_array_compute_into(ca_context_t *ctx, const ca_array_t *a, void *buffer, size_t nbytes,
                                         const ca_compute_options_t *opts);
/** Compute several arrays in one pass over their merged graph (shared work runs once).
 *  @param opts borrowed, may be NULL.
 *  @return as ca_array_compute(); CA_EINVAL also for arrays NULL with narrays > 0 or a NULL array.
 *  @param[out] out caller's array of narrays pointers; each receives an owned block (ca_block_free()); all NULL on
 *          failure. */
CA_API ca_status_t ca_array_compute_many(ca_block_t **out, ca_context_t *ctx, const ca_array_t *const *arrays,
                                         size_t narrays, const ca_compute_options_t *opts);
/** dask's persist: compute and keep the blocks in memory as a new array with the same chunks.
 *  @param opts borrowed, may be NULL.
 *  @return as ca_array_compute(). The caller owns *out (ca_array_free()). */
CA_API ca_status_t ca_array_persist(ca_array_t **out, ca_context_t *ctx, const ca_array_t *a,
                                    const ca_compute_options_t *opts);

/* ------------------------------------------------------------------------------------------------ */
/* Pictures                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

/**
 * The chunk-grid diagram dask shows in notebooks, as SVG.
 * @param[out] out owned NUL-terminated text; free with ca_string_free(). NULL on failure.
 * @param size drawing size in pixels (0: 120).
 * @return CA_OK; CA_EINVAL (out or a NULL); CA_ENOMEM.
 */
CA_API ca_status_t ca_array_to_svg(char **out, const ca_array_t *a, int32_t size);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_ARRAY_H */
