// Registration of the array kernels.
#include <cstring>

#include "array/array.hpp"
#include "array/rechunk.hpp"
#include "kernel/kernel.hpp"

namespace ca {

// Implemented by the ops, reductions and creation parts.
void register_ops_kernels(KernelRegistry &reg);
void register_reduce_kernels(KernelRegistry &reg);
void register_creation_kernels(KernelRegistry &reg);

void register_array_kernels(KernelRegistry &reg) {
  register_rechunk_kernels(reg);  // ca.assemble (array/rechunk.cpp)
  register_ops_kernels(reg);
  register_reduce_kernels(reg);
  register_creation_kernels(reg);
  void register_io_kernels(KernelRegistry &);  // io/array_io.cpp
  register_io_kernels(reg);
  void register_overlap_kernels(KernelRegistry &);  // array/overlap_kernels.cpp
  register_overlap_kernels(reg);
  void register_gufunc_kernels(KernelRegistry &);  // array/gufunc.cpp
  register_gufunc_kernels(reg);
  void register_linalg_kernels_entry(KernelRegistry &);  // linalg/linalg_kernels.cpp
  register_linalg_kernels_entry(reg);
  void register_shape_kernels(KernelRegistry &);  // array/shape_kernels.cpp
  register_shape_kernels(reg);
  void register_slicing_kernels(KernelRegistry &);  // array/slicing_kernels.cpp
  register_slicing_kernels(reg);
  void register_einsum_kernels(KernelRegistry &);  // array/einsum.cpp
  register_einsum_kernels(reg);
}

}  // namespace ca
