// einsum through BLAS where it applies (issue 16): a two-operand einsum whose letters are either
// contracted (in both operands, not in the output) or free (in one operand and in the output) is a
// tensordot (ca.linalg.matmul blocks, OpenBLAS gemm) followed by a transpose; everything else is
// the generic blockwise einsum of array/einsum.cpp. The chunks are the same either way (each free
// letter keeps its operand's chunks, contracted letters are unified).
#include <algorithm>
#include <numeric>

#include "array/einsum.hpp"
#include "array/shape.hpp"
#include "linalg/linalg.hpp"

namespace ca::linalg {

namespace {

bool er_blas_dtype(DType t) { return t == CA_FLOAT32 || t == CA_FLOAT64 || t == CA_COMPLEX64 || t == CA_COMPLEX128; }

bool er_distinct(const std::string &s) {
  std::string t = s;
  std::sort(t.begin(), t.end());
  return std::adjacent_find(t.begin(), t.end()) == t.end();
}

}  // namespace

ArrayPtr einsum(const std::string &subscripts, const std::vector<ArrayPtr> &operands, DType dtype) {
  if (operands.size() != 2 || !operands[0] || !operands[1]) return ca::einsum(subscripts, operands, dtype);
  const ArrayPtr &a = operands[0], &b = operands[1];
  const DType common = dtype_promote(a->dtype, b->dtype);
  if (!er_blas_dtype(a->dtype) || !er_blas_dtype(b->dtype) || (dtype != CA_DTYPE_INVALID && dtype != common))
    return ca::einsum(subscripts, operands, dtype);
  const EinsumSpec spec = parse_einsum(subscripts, {a->ndim(), b->ndim()});
  const std::string &sa = spec.inputs[0], &sb = spec.inputs[1], &out = spec.output;
  if (!er_distinct(sa) || !er_distinct(sb)) return ca::einsum(subscripts, operands, dtype);
  std::vector<int32_t> a_axes, b_axes;
  std::string free;
  for (size_t i = 0; i < sa.size(); ++i) {
    const size_t j = sb.find(sa[i]);
    const bool in_out = out.find(sa[i]) != std::string::npos;
    if (j != std::string::npos) {
      if (in_out || a->shape[i] != b->shape[j]) return ca::einsum(subscripts, operands, dtype);  // batch or broadcast
      a_axes.push_back(int32_t(i));
      b_axes.push_back(int32_t(j));
    } else if (!in_out) {
      return ca::einsum(subscripts, operands, dtype);  // summed over one operand only
    } else {
      free += sa[i];
    }
  }
  for (char c : sb) {
    if (sa.find(c) != std::string::npos) continue;
    if (out.find(c) == std::string::npos) return ca::einsum(subscripts, operands, dtype);
    free += c;
  }
  ArrayPtr r = tensordot(a, b, a_axes, b_axes);
  std::vector<int64_t> perm;
  for (char c : out) perm.push_back(int64_t(free.find(c)));
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == int64_t(i);
  return identity ? r : transpose(r, perm);
}

}  // namespace ca::linalg
