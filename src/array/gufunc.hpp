// Generalized ufuncs (dask/array/gufunc.py): signature parsing and apply_gufunc over registered
// kernels. See include/chunkarray/gufunc.h for the kernel contract.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "array/array.hpp"

namespace ca {

struct GufuncSignature {
  std::vector<std::vector<std::string>> inputs;   // core dimension names per input
  std::vector<std::vector<std::string>> outputs;  // per output
};

/// NumPy's gufunc signature grammar (dask's _parse_gufunc_signature); whitespace ignored. Throws
/// CA_EINVAL naming the problem and its offset.
GufuncSignature parse_gufunc_signature(const std::string &signature);

struct GufuncOptions {
  std::vector<DType> output_dtypes;  // empty: promoted input dtype
  bool has_axes = false;
  std::vector<std::vector<int32_t>> axes;  // per argument (inputs, then optionally outputs)
  bool has_axis = false;
  int32_t axis = 0;
  bool keepdims = false;
  std::map<std::string, Index> output_sizes;
  bool allow_rechunk = false;
  std::vector<ca_arg_t> extra;
  std::string name;  // prefix; empty: the kernel name
};

/// dask's apply_gufunc: one array per output of the signature.
std::vector<ArrayPtr> apply_gufunc(const std::string &kernel, const std::string &signature,
                                   const std::vector<ArrayPtr> &args, const GufuncOptions &opts);

}  // namespace ca
