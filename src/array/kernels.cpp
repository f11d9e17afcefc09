// Registration of the array kernels (array/kernels.hpp).
#include "array/kernels.hpp"

#include "array/create.hpp"
#include "array/quantile.hpp"
#include "array/rechunk.hpp"
#include "array/reduce.hpp"
#include "array/routines.hpp"
#include "array/shape.hpp"
#include "array/slicing.hpp"

namespace ca {

void register_array_kernels(KernelRegistry &reg) {
  register_rechunk_kernels(reg);
  register_ops_kernels(reg);
  register_reduce_kernels(reg);
  register_creation_kernels(reg);
  register_overlap_kernels(reg);
  register_gufunc_kernels(reg);
  register_shape_kernels(reg);
  register_slicing_kernels(reg);
  register_routines_kernels(reg);
  register_histogram_kernels(reg);
  register_quantile_kernels(reg);
  void register_einsum_kernels(KernelRegistry &);  // array/einsum.cpp
  register_einsum_kernels(reg);
}

}  // namespace ca
