// builtin_registry(): one process-wide registry of the builtin kernels for the engine-level tests, and
// compute_bytes(a, threads): an array's C-order bytes computed through it. The engine-level tests' one
// copy (test_reduce.cpp adds its own test kernels to a registry of its own).
#pragma once

#include <cstdint>
#include <vector>

#include "array/array.hpp"
#include "array/expr.hpp"
#include "builtins/builtins.hpp"
#include "exec/executor.hpp"
#include "kernel/kernel.hpp"

namespace ca::test {

inline KernelRegistry &builtin_registry() {
  static KernelRegistry *reg = [] {
    auto *r = new KernelRegistry;
    register_builtin_kernels(*r);
    return r;
  }();
  return *reg;
}

/// The bytes of `a` computed with `threads` workers (a fresh executor per call).
inline std::vector<uint8_t> compute_bytes(const ArrayPtr &a, int32_t threads = 2) {
  Executor ex(threads);
  std::vector<uint8_t> buf(size_t(a->nbytes()));
  compute_into(ex, builtin_registry(), {a}, {buf.data()}, RunOptions{});
  return buf;
}

}  // namespace ca::test
