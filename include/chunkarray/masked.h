/**
 * @file chunkarray/masked.h
 * @brief Masked arrays: numpy.ma's MaskedArray over chunked arrays (dask.array.ma), NumPy 1.24's values.
 *
 * A masked array (ca_masked_t) is a data array, a boolean mask of the same shape and chunks (1 =
 * masked: the element is invalid and skipped) and a fill value. Like arrays they are lazy and
 * immutable: every function returns a new masked array whose data and mask are expressions of its
 * inputs'. Elementwise operations fuse: the data and the mask of `log(a) + b` are each one fused
 * expression, and ca_masked_compute() computes both in one pass over the merged graph (inputs that
 * data and mask share are read once).
 *
 * Semantics are numpy.ma's:
 * - the mask of an elementwise result is the OR of the operands' masks, plus numpy.ma's domains:
 *   sqrt of x < 0, log/log2/log10 of x <= 0, tan where |cos x| < 1e-35, arcsin/arccos outside
 *   [-1, 1], arccosh of x < 1, arctanh outside [-1 + 1e-15, 1 - 1e-15] (those also mask non-finite
 *   results); divide, floor_divide, remainder and fmod mask |a| * tiny >= |b| (division by zero),
 *   divide and floor_divide also non-finite results (MaskedArray's / and //; its % is the plain
 *   ufunc with the domain only); power masks non-finite results. Under the mask, the data keeps the first
 *   operand's value where its dtype converts to the result's without loss (numpy.ma's rule).
 * - reductions skip masked elements (they are filled with the reduction's identity: 0 for sum, 1 for
 *   prod, the dtype's largest value for min, ...), and a result over masked elements only is masked;
 *   their chunks are the unmasked reduction's (dask.array's). mean, var and std of a masked array made
 *   without a mask (numpy's nomask) are the plain reductions, masked only where numpy.ma's final
 *   division masks them (an infinite result, or nothing to divide by).
 * - the fill value: NULL everywhere means numpy.ma's default for the dtype (True for bool, 999999 for
 *   integers, 1e20 for floats, 1e20+0j for complex); masked_equal and masked_values set it to the value.
 *
 * Masked arrays hold numeric data only (bool, integers, float16/32/64, complex): other dtypes are
 * CA_ETYPE. Common to every function: `out` receives a new masked array (or array), owned by the
 * caller and NULL on failure; inputs are borrowed. Masked arrays may be shared between threads and
 * these functions may run concurrently.
 *
 * @code
 *   ca_masked_t *m = NULL, *l = NULL, *s = NULL;
 *   ca_masked_new(&m, data, NULL, NULL);                        // nothing masked yet
 *   ca_scalar_t zero = {CA_FLOAT64, 0, 0.0, 0.0, 0};
 *   ca_masked_compare(&l, m, CA_MASK_LESS, zero, zero);          // np.ma.masked_less(x, 0)
 *   ca_masked_reduce(&s, CA_RED_MEAN, l, NULL, 0, 0, NULL);      // mean of the non-negative values
 *   ca_block_t *d = NULL, *k = NULL;
 *   ca_masked_compute(&d, &k, ctx, s, NULL);                     // 0-d data and mask, one pass
 * @endcode
 */
#ifndef CHUNKARRAY_MASKED_H
#define CHUNKARRAY_MASKED_H

#include "chunkarray/array.h"
#include "chunkarray/io.h"
#include "chunkarray/format.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A lazy masked array: data, mask and fill value (immutable; free with ca_masked_free()). */
typedef struct ca_masked ca_masked_t;

/**
 * np.ma.masked_array(data, mask, fill_value) as dask.array.ma.masked_array: data and mask get
 * unified chunks (where they differ, both are rechunked to their common refinement, as blockwise does).
 * @param[out] out owned, free with ca_masked_free(); NULL on failure.
 * @param data borrowed, a numeric array.
 * @param mask borrowed, may be NULL (nothing masked: numpy's nomask); of data's shape or of size 1
 *        (broadcast); any dtype, converted to bool (nonzero = masked).
 * @param fill_value borrowed, may be NULL (the dtype's default).
 * @return CA_OK; CA_EINVAL (NULL out or data; a mask of another shape: "Mask and data not compatible:
 *         data shape is ((3,)), and mask shape is ((4,))"; an invalid scalar kind); CA_ETYPE (a
 *         string or time data dtype; a fill value that does not convert, e.g. complex or nan for an
 *         integer array); CA_ENOMEM.
 */
CA_API ca_status_t ca_masked_new(ca_masked_t **out, const ca_array_t *data, const ca_array_t *mask,
                                 const ca_scalar_t *fill_value);
/** Another reference (for bindings); free each with ca_masked_free(). NULL for NULL. */
CA_API ca_masked_t *ca_masked_retain(const ca_masked_t *m);
/** Drop one reference to @p m. Accepts NULL. */
CA_API void ca_masked_free(const ca_masked_t *m);

/**
 * np.ma.getdata: the data array (values under the mask included).
 * @param[out] out owned, free with ca_array_free(); NULL on failure.
 * @return CA_OK; CA_EINVAL (NULL out or m).
 */
CA_API ca_status_t ca_masked_data(ca_array_t **out, const ca_masked_t *m);
/**
 * np.ma.getmaskarray: the mask, a bool array of the data's shape and chunks (all false for nomask).
 * @param[out] out owned, free with ca_array_free(); NULL on failure.
 * @return CA_OK; CA_EINVAL (NULL out or m).
 */
CA_API ca_status_t ca_masked_mask(ca_array_t **out, const ca_masked_t *m);
/**
 * The fill value in effect (set, or the dtype's default), as a Python scalar or the typed scalar
 * it was set as.
 * @param[out] out the value; zeroed on failure.
 * @return CA_OK; CA_EINVAL (NULL out or m).
 */
CA_API ca_status_t ca_masked_fill_value(ca_scalar_t *out, const ca_masked_t *m);
/**
 * @return 1 when @p m has numpy's nomask (made without a mask, and no operation since could mask an
 *         element), 0 otherwise or for NULL.
 */
CA_API int ca_masked_is_nomask(const ca_masked_t *m);
/**
 * np.ma.set_fill_value: as masked arrays are immutable, a new masked array (the same data and mask)
 * with @p fill_value (NULL: the default).
 * @return CA_OK; CA_EINVAL (NULL out or m, an invalid scalar kind); CA_ETYPE (a value that does not
 *         convert to the dtype).
 */
CA_API ca_status_t ca_masked_set_fill_value(ca_masked_t **out, const ca_masked_t *m, const ca_scalar_t *fill_value);
/**
 * np.ma.filled: the data with masked elements replaced by @p fill_value (NULL: m's fill value),
 * converted to the dtype as NumPy casts (999999 in int8 is 63).
 * @param[out] out owned, free with ca_array_free(); NULL on failure.
 * @return as ca_masked_set_fill_value().
 */
CA_API ca_status_t ca_masked_filled(ca_array_t **out, const ca_masked_t *m, const ca_scalar_t *fill_value);

/* ------------------------------------------------------------------------------------------------ */
/* Masking                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

/** The conditions of ca_masked_compare(). Values are pinned. */
typedef enum ca_mask_test_t CA_ENUM32 {
  CA_MASK_EQUAL = 0,         /**< masked_equal: x == v1 (and the fill value becomes v1) */
  CA_MASK_NOT_EQUAL = 1,     /**< masked_not_equal: x != v1 */
  CA_MASK_GREATER = 2,       /**< masked_greater: x > v1 */
  CA_MASK_GREATER_EQUAL = 3, /**< masked_greater_equal: x >= v1 */
  CA_MASK_LESS = 4,          /**< masked_less: x < v1 */
  CA_MASK_LESS_EQUAL = 5,    /**< masked_less_equal: x <= v1 */
  CA_MASK_INSIDE = 6,        /**< masked_inside: v1 <= x <= v2 (bounds in either order; filled data) */
  CA_MASK_OUTSIDE = 7,       /**< masked_outside: x < v1 or x > v2 (bounds in either order; filled data) */
  CA_MASK_TEST__FORCE32 = 0x7fffffff /**< makes the enum 32 bits wide; not a value */
} ca_mask_test_t;

/**
 * np.ma.masked_where(cond, a): a with the elements where @p cond is true masked too (the existing
 * mask is kept).
 * @param cond borrowed, a's shape (or 0-d), any dtype (nonzero = true).
 * @return CA_OK; CA_EINVAL (NULL out, cond or a; a cond of another shape: "Inconsistent shape between
 *         the condition and the input (got ((4,)) and ((3,)))"); CA_ENOMEM.
 */
CA_API ca_status_t ca_masked_where(ca_masked_t **out, const ca_array_t *cond, const ca_masked_t *a);
/**
 * np.ma.masked_equal, masked_not_equal, masked_greater, masked_greater_equal, masked_less,
 * masked_less_equal (@p v1 the value, @p v2 ignored), masked_inside, masked_outside (between @p v1
 * and @p v2).
 * @return CA_OK; CA_EINVAL (NULL out or a, an unknown test, an invalid scalar kind); CA_ETYPE
 *         (complex bounds for inside/outside; a value masked_equal cannot take as fill value);
 *         CA_ENOMEM.
 */
CA_API ca_status_t ca_masked_compare(ca_masked_t **out, const ca_masked_t *a, ca_mask_test_t test, ca_scalar_t v1,
                                     ca_scalar_t v2);
/**
 * np.ma.masked_invalid: nan and infinities masked too.
 * @return CA_OK; CA_EINVAL (NULL out or a); CA_ENOMEM.
 */
CA_API ca_status_t ca_masked_invalid(ca_masked_t **out, const ca_masked_t *a);
/**
 * np.ma.masked_values(x, value, rtol, atol): floats masked where np.isclose(x, value, rtol, atol),
 * other dtypes where x == value; the fill value becomes @p value.
 * @return CA_OK; CA_EINVAL (NULL out or a, an invalid scalar kind); CA_ETYPE (a value that does not
 *         convert to the dtype); CA_ENOMEM.
 */
CA_API ca_status_t ca_masked_values(ca_masked_t **out, const ca_masked_t *a, ca_scalar_t value, double rtol,
                                    double atol);
/**
 * np.ma.fix_invalid(a, fill_value): nan and infinities masked, and their data replaced by
 * @p fill_value (NULL: a's fill value); the result keeps a's fill value, as numpy.ma's.
 * @return as ca_masked_set_fill_value(); CA_ENOMEM.
 */
CA_API ca_status_t ca_masked_fix_invalid(ca_masked_t **out, const ca_masked_t *a, const ca_scalar_t *fill_value);

/* ------------------------------------------------------------------------------------------------ */
/* Elementwise and reductions                                                                        */
/* ------------------------------------------------------------------------------------------------ */

/**
 * numpy.ma's unary ufunc @p op (any unary CA_OP_* of ca_array_unary()) with its domain (above).
 * @return CA_OK; CA_EINVAL (NULL out or a, unknown op); CA_ETYPE (the op is not defined for the
 *         dtype); CA_ENOMEM.
 */
CA_API ca_status_t ca_masked_unary(ca_masked_t **out, ca_op_t op, const ca_masked_t *a);
/**
 * numpy.ma's binary ufunc @p op (any binary CA_OP_*): broadcasting and chunks as ca_array_binary().
 * @return CA_OK; CA_EINVAL (NULL out, a or b, unknown op, shapes that do not broadcast); CA_ETYPE (no
 *         promotion of the dtypes, or the op is not defined for it); CA_ENOMEM.
 */
CA_API ca_status_t ca_masked_binary(ca_masked_t **out, ca_op_t op, const ca_masked_t *a, const ca_masked_t *b);
/**
 * a op s (or s op a when @p scalar_first), the scalar unmasked, promoted as ca_array_binary_scalar().
 * @return as ca_masked_binary(); CA_EINVAL also for an invalid scalar kind.
 */
CA_API ca_status_t ca_masked_binary_scalar(ca_masked_t **out, ca_op_t op, const ca_masked_t *a, ca_scalar_t s,
                                           int scalar_first);
/**
 * MaskedArray.sum, prod, mean, var, std, min, max, argmin, argmax, any, all (@p op from CA_RED_SUM
 * to CA_RED_ALL, not the nan-variants) over @p naxes axes (naxes 0 with axes NULL: all), with numpy.ma's
 * result dtypes (mean of integers is float64, of float16 float16 computed in float32) and masks (a
 * result over masked elements only is masked; mean/var of a non-0-d result also mask where numpy.ma's
 * division does). argmin/argmax take one axis or all, treat masked elements as the dtype's largest
 * (smallest) value and give an unmasked int64 result, as numpy.ma returns a plain array.
 * @param opts borrowed, may be NULL: split_every, ddof (var/std) and dtype as ca_array_reduce().
 * @return CA_OK; CA_EINVAL (NULL out or a, an op not listed, bad axes, opts->struct_size too small);
 *         CA_ETYPE (the reduction is not defined for the dtype); CA_ENOMEM.
 */
CA_API ca_status_t ca_masked_reduce(ca_masked_t **out, ca_reduction_t op, const ca_masked_t *a, const int32_t *axes,
                                    int32_t naxes, int keepdims, const ca_reduce_options_t *opts);
/**
 * np.ma.count(a, axis, keepdims): the number of unmasked elements, an int64 array (chunks as a sum's).
 * @param split_every 0: dask's default.
 * @param[out] out owned, free with ca_array_free(); NULL on failure.
 * @return CA_OK; CA_EINVAL (NULL out or a, bad axes); CA_ENOMEM.
 */
CA_API ca_status_t ca_masked_count(ca_array_t **out, const ca_masked_t *a, const int32_t *axes, int32_t naxes,
                                   int keepdims, int32_t split_every);
/**
 * np.ma.average(a, axis, weights, returned=True, keepdims): sum(a * w) / sum(w) over the unmasked
 * elements (w masked where a is), in float64 for bool/integer a (else the promotion of a's and the
 * weights' dtypes); with @p weights NULL, the mean and the count.
 * @param[out] out the average, owned (ca_masked_free()); NULL on failure.
 * @param[out] out_sum_of_weights may be NULL; else receives the sum of the weights (the count as the
 *        average's dtype without weights), owned (ca_masked_free()); NULL on failure.
 * @param weights borrowed, may be NULL; a's shape, or one that broadcasts against it.
 * @return CA_OK; CA_EINVAL (NULL out or a, bad axes, weights that do not broadcast); CA_ETYPE (dtypes
 *         without a promotion); CA_ENOMEM.
 */
CA_API ca_status_t ca_masked_average(ca_masked_t **out, ca_masked_t **out_sum_of_weights, const ca_masked_t *a,
                                     const ca_masked_t *weights, const int32_t *axes, int32_t naxes, int keepdims);

/* ------------------------------------------------------------------------------------------------ */
/* Compute, Zarr and graph files                                                                     */
/* ------------------------------------------------------------------------------------------------ */

/**
 * Compute the data and the mask of @p m in one pass (ca_array_compute_many() of both: work they
 * share runs once).
 * @param[out] out_data the data as one C-order block, owned (ca_block_free()); NULL on failure.
 * @param[out] out_mask the mask (bool) likewise.
 * @param opts borrowed, may be NULL.
 * @return as ca_array_compute(); CA_EINVAL also for NULL out_data, out_mask, ctx or m.
 */
CA_API ca_status_t ca_masked_compute(ca_block_t **out_data, ca_block_t **out_mask, ca_context_t *ctx,
                                     const ca_masked_t *m, const ca_compute_options_t *opts);

/**
 * A masked array over the zarr v2 array at @p path (ca_array_from_zarr()): with a fill_value in
 * .zarray, the elements equal to it are masked (a nan fill value masks nan) and it becomes the fill
 * value; a null fill_value gives nothing masked (nomask).
 * @param chunks borrowed, may be NULL: the store's chunks, as ca_array_from_zarr().
 * @return as ca_array_from_zarr().
 */
CA_API ca_status_t ca_masked_from_zarr(ca_masked_t **out, const char *path, const ca_chunks_t *chunks);
/**
 * Write @p m as a zarr v2 array (ca_array_to_zarr()): masked elements are written as the fill value,
 * which .zarray records as fill_value (opts->has_fill_value and opts->fill_value are ignored), so
 * ca_masked_from_zarr() gives back the mask (unless an unmasked element equals the fill value).
 * @return as ca_array_to_zarr(); CA_EINVAL also for NULL m; CA_EUNSUPPORTED also for a complex
 *         fill value with a nonzero imaginary part.
 */
CA_API ca_status_t ca_masked_to_zarr(ca_context_t *ctx, const ca_masked_t *m, const char *path,
                                     const ca_zarr_options_t *opts, const ca_compute_options_t *copts);

/**
 * Save masked arrays (and @p opts->arrays, which may be set too) to a graph file or buffer as
 * ca_save() does: the file lists each masked array's data and mask among its arrays and records
 * which pairs are masked arrays and their fill values (format version 1 readers see the data and
 * masks as plain arrays).
 * @param[out] out with opts->path NULL: receives the bytes, owned by the caller, free with
 *        ca_buffer_free(); NULL on failure. With a path: may be NULL.
 * @param[out] out_size with opts->path NULL: the size in bytes. With a path: may be NULL.
 * @param masked borrowed, @p nmasked masked arrays (none NULL).
 * @param opts borrowed, not NULL: the target and context as ca_save() (opts->graph must be NULL).
 * @return as ca_save(); CA_EINVAL also for masked NULL with nmasked > 0, a NULL entry, or opts->graph set.
 */
CA_API ca_status_t ca_masked_save(void **out, size_t *out_size, const ca_masked_t *const *masked, size_t nmasked,
                                  const ca_save_options_t *opts);
/**
 * Load the masked arrays of a file written by ca_masked_save(), in their saved order.
 * @param[out] out an owned list of owned masked arrays, free with ca_masked_free_many(); NULL (and
 *        *out_n 0) on failure and for a file without masked arrays.
 * @param[out] out_n their number.
 * @param opts borrowed, not NULL, as ca_load().
 * @return as ca_load(); CA_EINVAL also for NULL out or out_n; CA_EFORMAT also for a masked entry
 *         that names no array of the file or a mask that is not bool of the data's shape.
 */
CA_API ca_status_t ca_masked_load(ca_masked_t ***out, size_t *out_n, const ca_load_options_t *opts);
/** Free a list from ca_masked_load() and each masked array in it. Accepts NULL. */
CA_API void ca_masked_free_many(ca_masked_t **masked, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKARRAY_MASKED_H */
