/**
 * @file chunkarray/gufunc.h
 * @brief Generalized ufuncs over chunked arrays: dask.array's apply_gufunc.
 *
 * A signature such as `(i),(i)->()` (inner product), `(m,n),(n,p)->(m,p)` (matmul), `()->()`
 * (elementwise) or `(i)->(),()` (two outputs) names the *core dimensions* of every input and
 * output; all other dimensions are *loop dimensions*, which broadcast against each other as in
 * NumPy (aligned from the right; extent 1 stretches). Dimension names are words of letters, digits
 * and underscores; whitespace is ignored.
 *
 * One task per block of the broadcast loop dimensions calls a registered kernel with the matching
 * block of every input, in order, each with its loop dimensions first and its core dimensions last
 * (moved there by `axes`/`axis` if needed). A core dimension must be one chunk in every input: with
 * allow_rechunk = 0 (dask's default) a chunked core dimension fails with CA_EINVAL, with 1 it is
 * rechunked to one chunk first. Loop dimensions of the inputs are unified (rechunked to common
 * chunks) when allow_rechunk is 1; otherwise inputs whose loop dimensions of extent > 1 are chunked
 * differently fail.
 *
 * **Kernel contract.** The kernel receives (block_0, ..., block_{nin-1}, extra..., [output index]):
 * - block_k has input k's loop dimensions for this task (extent 1 where input k broadcasts, fewer
 *   leading dimensions where input k has fewer loop dimensions) followed by its core dimensions;
 *   the kernel broadcasts the loop dimensions itself, as a NumPy gufunc would;
 * - extra: the literal arguments of ca_gufunc_options_t.extra;
 * - with several outputs, one more CA_ARG_INT64 argument: the index of the output to compute.
 *   Each output is a separate task (one kernel call per output and block): a kernel for
 *   `(i)->(),()` is called once with 0 and once with 1 for every block.
 * It returns one block of the output's dtype whose shape is the broadcast loop shape of the task
 * followed by that output's core dimensions (core sizes from the inputs or from output_sizes).
 * Shapes and dtypes are checked when the result is computed (CA_EKERNEL naming the block).
 *
 * Thread safety: as every array function.
 */
#ifndef CHUNKARRAY_GUFUNC_H
#define CHUNKARRAY_GUFUNC_H

#include "chunkarray/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options of ca_array_apply_gufunc() (NULL = defaults). */
typedef struct ca_gufunc_options {
  uint32_t struct_size; /**< sizeof(ca_gufunc_options_t) */
  /** nout dtypes, one per output; NULL = NumPy's promotion of the input dtypes for every output. */
  const ca_dtype_t *output_dtypes;
  /** dask's axes=: for each described argument (inputs first, then outputs), the axes holding its
   *  core dimensions, in the order of the signature. Flat: axes_counts[0] entries for argument 0,
   *  then axes_counts[1] for argument 1, ... Negative axes count from the end. Output axes are axes of
   *  the output array. NULL / naxes_args 0: core dimensions are the last ones. */
  const int32_t *axes;
  const int32_t *axes_counts; /**< naxes_args entries */
  int32_t naxes_args;         /**< 0, nin (outputs default), or nin + nout */
  /** 1: use `axis` (dask's axis=): every input's single core dimension is at that axis, and so
   *  is each output's (with keepdims). Only when every input has the same one core dimension. */
  int32_t has_axis;
  int32_t axis; /**< with has_axis: the single core axis of every argument (NumPy's axis=) */
  /** 1: outputs keep the input's core dimensions as extent-1 axes (dask's keepdims; only when
   *  outputs have no core dimensions and all inputs share the same ones). */
  int32_t keepdims;
  /** Sizes of output core dimensions that appear in no input (dask's output_sizes): names and values,
   *  noutput_sizes entries each. */
  const char *const *output_size_names;
  const int64_t *output_sizes; /**< the sizes, one per name in output_size_names */
  int32_t noutput_sizes; /**< entries in output_size_names and output_sizes */
  /** 1: rechunk core dimensions to one chunk and unify loop chunks; 0 (default): fail instead. */
  int32_t allow_rechunk;
  /** Literal arguments appended to every kernel call after the blocks (dask's **kwargs). */
  const ca_arg_t *extra;
  size_t nextra; /**< entries in extra */
  const char *name; /**< output name prefix (default: the kernel name) */
} ca_gufunc_options_t;
/** The defaults of ca_gufunc_options_t. */
#define CA_GUFUNC_OPTIONS_INIT {sizeof(ca_gufunc_options_t), NULL, NULL, NULL, 0, 0, 0, 0, NULL, NULL, 0, 0, NULL, 0, NULL}

/**
 * Parse a gufunc signature.
 * @param[out] nin number of inputs (may be NULL).
 * @param[out] nout number of outputs (may be NULL).
 * @param signature borrowed, e.g. "(m,n),(n,p)->(m,p)".
 * @return CA_OK, or CA_EINVAL with a message naming the problem and its offset
 *         ("expected ')' after dimension 'i' at offset 4").
 */
CA_API ca_status_t ca_gufunc_signature_parse(const char *signature, int32_t *nin, int32_t *nout);

/**
 * dask's apply_gufunc(func, signature, *arrays, output_dtypes, axes, axis, keepdims, output_sizes,
 * allow_rechunk) with a registered kernel (see the kernel contract above).
 * @param[out] out @p nout owned arrays, one per output of the signature (all NULL on failure).
 * @param nout the signature's number of outputs (checked).
 * @param kernel borrowed: the name of a kernel registered in the context that computes the result.
 * @param signature borrowed gufunc signature.
 * @param arrays borrowed, @p narrays inputs: exactly the signature's number of inputs.
 * @param opts borrowed, may be NULL for defaults.
 * @return CA_OK; CA_EINVAL (bad signature, wrong number of inputs or outputs, an input with fewer
 *         dimensions than its core dimensions, core dimension sizes that differ, loop dimensions that
 *         do not broadcast, a chunked core dimension without allow_rechunk, bad axes, an output core
 *         dimension without a size); CA_ETYPE (bad output dtype).
 *
 * Example: an inner product over the last axis.
 * @code
 *   ca_dtype_t f8 = CA_FLOAT64;
 *   ca_gufunc_options_t o = CA_GUFUNC_OPTIONS_INIT;
 *   o.output_dtypes = &f8;
 *   const ca_array_t *in[2] = {x, y};
 *   ca_array_t *dot = NULL;
 *   ca_array_apply_gufunc(&dot, 1, "my.inner", "(i),(i)->()", in, 2, &o);
 * @endcode
 */
CA_API ca_status_t ca_array_apply_gufunc(ca_array_t **out, size_t nout, const char *kernel, const char *signature,
                                         const ca_array_t *const *arrays, size_t narrays,
                                         const ca_gufunc_options_t *opts);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_GUFUNC_H */
