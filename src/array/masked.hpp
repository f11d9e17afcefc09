// Masked arrays: numpy.ma's MaskedArray over chunked arrays (dask.array.ma).
//
// A masked array is two lazy arrays of one shape and one chunking, the data and a boolean mask
// (true = masked, invalid), plus an optional fill value. Every operation here builds both as
// expressions of existing array operations: elementwise work on masked arrays is one fused
// expression for the data and one for the mask (the mask is the OR of the operands' masks plus
// numpy.ma's domain masks: log of x <= 0, division by 0, ...), and computing both with
// compute_blocks({data, mask}) runs the merged graph in one pass, shared inputs read once.
// Reductions follow numpy.ma (masked elements are skipped by filling them with the reduction's
// identity; a result over only masked elements is masked) and have the chunks of the unmasked
// reduction, as dask.array's reductions over masked blocks do.
//
// `nomask` records numpy.ma's nomask (a masked array made without a mask): numpy.ma takes plain
// code paths for it (mean and var of an unmasked array do not mask non-finite results), and so do
// the reductions here. Its mask array is a generated all-false array (never stored).
#pragma once

#include <chunkarray/array.h>

#include <memory>
#include <utility>
#include <vector>

#include "array/array.hpp"

namespace ca::ma {

struct Masked {
  ArrayPtr data;
  ArrayPtr mask;  // CA_BOOL, data's shape and chunks
  bool nomask = false;
  bool has_fill = false;  // false: numpy.ma's default fill value of the data's dtype
  ca_scalar_t fill{};
};
using MaskedPtr = std::shared_ptr<const Masked>;

/// np.ma.masked_array(data, mask, fill_value): mask null = nothing masked (nomask); a mask of
/// data's shape or of size 1 is converted to bool (nonzero = masked) and broadcast; data and mask
/// get unified chunks (dask's blockwise). CA_EINVAL for a mask of another shape (numpy's MaskError
/// text), CA_ETYPE for a string/time data dtype or a fill value that does not convert.
MaskedPtr make(const ArrayPtr &data, const ArrayPtr &mask, const ca_scalar_t *fill);
/// numpy.ma's default_fill_value of a dtype: True, 999999, 1e20 (1e20+0j for complex).
ca_scalar_t default_fill_value(DType dtype);
/// The fill value in effect (the explicit one or the default).
ca_scalar_t fill_value(const Masked &m);
/// The same masked array with another fill value (null: the default).
MaskedPtr with_fill_value(const Masked &m, const ca_scalar_t *fill);
/// `f` as a typed scalar of `dt`, converted as NumPy casts a fill value (integers wrap: 999999 in
/// int8 is 63). CA_ETYPE for a complex value into a real dtype or a non-finite one into integers.
ca_scalar_t cast_fill(const ca_scalar_t &f, DType dt);
/// np.ma.filled(m, fill): masked elements replaced by fill (null: m's fill value).
ArrayPtr filled(const Masked &m, const ca_scalar_t *fill);

/// The masking functions (np.ma.masked_*).
enum class Test { Equal, NotEqual, Greater, GreaterEqual, Less, LessEqual, Inside, Outside };
MaskedPtr masked_where(const ArrayPtr &cond, const Masked &a);
MaskedPtr masked_compare(const Masked &a, Test test, const ca_scalar_t &v1, const ca_scalar_t &v2);
MaskedPtr masked_invalid(const Masked &a);
MaskedPtr masked_values(const Masked &a, const ca_scalar_t &value, double rtol, double atol);
MaskedPtr fix_invalid(const Masked &a, const ca_scalar_t *fill);

/// numpy.ma's ufuncs: unary ops with their domains (sqrt, log, log2, log10, tan, arcsin, arccos,
/// arccosh, arctanh), binary ops with theirs (divide, floor_divide, remainder, fmod: numpy.ma's
/// _DomainSafeDivide) and power's rule (non-finite results masked).
MaskedPtr unary(int32_t op, const Masked &a);
MaskedPtr binary(int32_t op, const Masked &a, const Masked &b);
MaskedPtr binary_scalar(int32_t op, const Masked &a, const ca_scalar_t &s, bool scalar_first);

/// MaskedArray's reductions: CA_RED_SUM, PROD, MEAN, VAR, STD, MIN, MAX, ARGMIN, ARGMAX, ANY, ALL.
/// ARGMIN/ARGMAX give an unmasked int64 result (numpy.ma returns a plain array).
MaskedPtr reduce(int32_t op, const Masked &a, std::vector<int32_t> axes, bool keepdims, int32_t split_every,
                 int32_t ddof, DType dtype);
/// np.ma.count(a, axis): the unmasked elements (int64).
ArrayPtr count(const Masked &a, std::vector<int32_t> axes, bool keepdims, int32_t split_every);
/// np.ma.average(a, axis, weights, returned=True, keepdims): the average and the sum of weights
/// (weights null: the count, as the average's dtype).
std::pair<MaskedPtr, MaskedPtr> average(const Masked &a, const Masked *weights, std::vector<int32_t> axes,
                                        bool keepdims);

}  // namespace ca::ma
