// The vector-math tests' shared pieces (test_vecmath.cpp, test_vecmath_f32.cpp, test_vecmath_f64.cpp):
// ulp_err, the error of a result against an exact reference in ULPs of its type, and vm_instr, the
// elementwise instruction of one op on one float dtype that vecmath::resolve takes.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "array/expr_instr.hpp"

namespace ca::test {

/// The error of `got` against the exact value `ref` in ULPs of T at ref (subnormal spacing below
/// the normal range). Infinite where the classes differ: NaN against a number, an infinity against
/// a finite value, a zero of the wrong sign where the exact result is a signed zero.
template <class T>
double ulp_err(T got, long double ref) {
  const double inf = std::numeric_limits<double>::infinity();
  if (std::isnan(ref)) return std::isnan(got) ? 0 : inf;
  if (std::isnan(got)) return inf;
  const T r = T(ref);
  if (std::isinf(r) || std::isinf(got)) return got == r ? 0 : inf;
  if (ref == 0) return (got == 0 && std::signbit(got) == std::signbit(ref)) ? 0 : inf;
  int e = 0;
  frexpl(ref, &e);  // |ref| = m 2^e, m in [0.5, 1)
  long double ulp = ldexpl(1.0L, e - std::numeric_limits<T>::digits);
  const long double tiny = std::numeric_limits<T>::denorm_min();
  if (ulp < tiny) ulp = tiny;
  return double(fabsl((long double)got - ref) / ulp);
}

/// The instruction `op` on `dt` in and out (the form vecmath::resolve is asked about).
inline ExprInstr vm_instr(int32_t op, DType dt) {
  ExprInstr ins;
  ins.op = op;
  ins.dtype = dt;
  ins.in_dtype = dt;
  return ins;
}

}  // namespace ca::test
