// Kernels and argument helpers shared by the C++ unit tests (header-only, public C API only).
#pragma once

#include <chunkarray/chunkarray.h>

#include <cstdint>

namespace ca_test {

/// A scalar argument's value: a 0-d block's first element, a float or an int literal; 0 otherwise.
inline double scalar(const ca_arg_t &a) {
  if (a.kind == CA_ARG_BLOCK) return *static_cast<const double *>(ca_block_data(a.u.block));
  if (a.kind == CA_ARG_FLOAT64) return a.u.f64;
  if (a.kind == CA_ARG_INT64) return double(a.u.i64);
  return 0;
}

/// The sum of every float64 element an argument holds (lists recursed, literals by value).
inline double sum_arg(const ca_arg_t &a) {
  if (a.kind == CA_ARG_LIST) {
    double s = 0;
    for (size_t i = 0; i < a.u.list.len; ++i) s += sum_arg(a.u.list.items[i]);
    return s;
  }
  if (a.kind == CA_ARG_BLOCK) {
    const double *d = static_cast<const double *>(ca_block_data(a.u.block));
    double s = 0;
    for (int64_t i = 0; i < ca_block_size(a.u.block); ++i) s += d[i];
    return s;
  }
  return scalar(a);
}

/// ones(n): a 1-d float64 block of n ones.
inline ca_status_t k_ones(ca_block_t **out, const ca_arg_t *a, size_t, ca_kernel_ctx_t *, void *) {
  int64_t n = a[0].u.i64;
  ca_status_t st = ca_block_new(out, CA_FLOAT64, 1, &n);
  if (st) return st;
  double *d = static_cast<double *>(ca_block_data(*out));
  for (int64_t i = 0; i < n; ++i) d[i] = 1.0;
  return CA_OK;
}

/// sum(args...): a 0-d float64 block holding the sum of every argument (blocks summed, lists recursed).
inline ca_status_t k_sum(ca_block_t **out, const ca_arg_t *a, size_t n, ca_kernel_ctx_t *, void *) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += sum_arg(a[i]);
  ca_status_t st = ca_block_new(out, CA_FLOAT64, 0, nullptr);
  if (st) return st;
  *static_cast<double *>(ca_block_data(*out)) = s;
  return CA_OK;
}

}  // namespace ca_test
