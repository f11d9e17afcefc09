// einsum (dask.array.einsum): see einsum.cpp's opening comment.
#pragma once

#include <string>
#include <vector>

#include "array/array.hpp"

namespace ca {

class KernelRegistry;

/// Parsed subscripts: per operand its letters (ellipsis dimensions given letters of their own), the
/// output letters and the contracted letters (ASCII order).
struct EinsumSpec {
  std::vector<std::string> inputs;
  std::string output, contracted;
  bool explicit_output = false;
};

/// numpy's einsum subscripts for operands of `ndims` dimensions. Errors (CA_EINVAL) name the
/// operand or subscript ("einsum: operand 1 has 2 dimensions but subscripts 'ijk' name 3").
EinsumSpec parse_einsum(const std::string &subscripts, const std::vector<int32_t> &ndims);

/// dask.array.einsum: lazy; dtype CA_DTYPE_INVALID = NumPy's promotion of the operands' dtypes.
/// CA_EINVAL for bad subscripts or extents that do not broadcast; CA_ETYPE for non-numeric dtypes.
ArrayPtr einsum(const std::string &subscripts, const std::vector<ArrayPtr> &operands, DType dtype);

/// ca.einsum.
void register_einsum_kernels(KernelRegistry &reg);

}  // namespace ca
