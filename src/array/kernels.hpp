// Registration of the array layer's kernels. register_array_kernels is the layer's one entry point
// (called by register_builtin_kernels, builtins/builtins.cpp); the others are its parts, each defined
// next to the kernels it registers.
#pragma once

#include "kernel/kernel.hpp"

namespace ca {

/// Every kernel of the array layer (src/array): assemble, fused elementwise, reductions, creation,
/// overlap, gufunc, shape and slicing kernels. Registering twice replaces (idempotent).
void register_array_kernels(KernelRegistry &reg);

// The parts whose files have no header of their own; the others are declared in rechunk.hpp,
// reduce.hpp, create.hpp, shape.hpp, slicing.hpp and quantile.hpp.
void register_ops_kernels(KernelRegistry &reg);      // array/ops_kernels.cpp
void register_overlap_kernels(KernelRegistry &reg);  // array/overlap_kernels.cpp
void register_gufunc_kernels(KernelRegistry &reg);   // array/gufunc.cpp

}  // namespace ca
