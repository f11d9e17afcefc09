// Exact quantiles along axes: np.quantile / percentile / median and the nan-skipping variants
// (array/quantile.cpp).
#pragma once

#include "array/array.hpp"
#include "kernel/kernel.hpp"

#include <cstdint>
#include <vector>

namespace ca {

/// NumPy's interpolation methods (the public CA_QUANTILE_* values).
enum class QuantileMethod : int32_t { Linear = 0, Lower = 1, Higher = 2, Nearest = 3, Midpoint = 4 };

struct QuantileOptions {
  QuantileMethod method = QuantileMethod::Linear;
  bool keepdims = false;
  bool skip_nan = false;  // np.nanquantile: nan ignored (all-nan rows give nan)
  DType dtype = CA_DTYPE_INVALID;  // the result's; CA_DTYPE_INVALID: quantile_result_dtype
};

/// NumPy 1.24's result dtype: float64 for linear/midpoint (CA_ETYPE for bool), the input's for
/// lower/higher/nearest; CA_ETYPE for complex and non-numeric dtypes. (np.median keeps float16/32:
/// callers pass that dtype in QuantileOptions.)
DType quantile_result_dtype(DType t, QuantileMethod method);

/// np.quantile(a, q, axis=axes) for q in [0, 1] (a scalar when q_scalar; else 1-d, its axis first in
/// the result); empty `axes`: every axis. The reduced axes are rechunked to one chunk (only those), as
/// dask.array's median. Rows with a nan give nan (skip_nan: nan are ignored); empty rows give nan.
/// Throws Error(CA_EINVAL) for q outside [0, 1], a bad or repeated axis, a 0-d array; CA_ETYPE for
/// complex or non-numeric dtypes.
ArrayPtr quantile(const ArrayPtr &a, const std::vector<double> &q, bool q_scalar, std::vector<int32_t> axes,
                  const QuantileOptions &opts);

void register_quantile_kernels(KernelRegistry &reg);

}  // namespace ca
