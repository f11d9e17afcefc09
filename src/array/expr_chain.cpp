// The chain sums of array/expr_chain.hpp, compiled into this one object for baseline x86-64 and, on
// x86-64 with GCC, for AVX2 and AVX-512 under `#pragma GCC target` (as array/expr_instr.cpp, whose
// ISA level they follow: instr::active_isa()). No contraction into FMA at any level: the chain's
// values must be the interpreter's bit for bit.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "array/expr_chain.hpp"
#include "array/expr_instr.hpp"

// The chain's vectors are wider than a baseline register (GCC warns that passing them by value would
// change the ABI between levels): they only pass between inlined functions of one level here.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace ca::instr {

namespace baseline {
constexpr int kVecBytes = 16;
#include "array/expr_chain.inc"
}  // namespace baseline

#if CA_INSTR_HAVE_AVX2
#pragma GCC push_options
#pragma GCC target("avx2")
#pragma GCC optimize("fp-contract=off")
namespace avx2 {
constexpr int kVecBytes = 32;
#include "array/expr_chain.inc"
}  // namespace avx2
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,avx512f,avx512bw,avx512dq,avx512vl")
#pragma GCC optimize("fp-contract=off")
namespace avx512 {
constexpr int kVecBytes = 64;
#include "array/expr_chain.inc"
}  // namespace avx512
#pragma GCC pop_options
#endif

double chain_sum(const Chain &c, int64_t off, int64_t n) {
  if (n <= 0) return 0.0;
#if CA_INSTR_HAVE_AVX2
  if (active_isa() == Isa::Avx512) return avx512::chain_sum_level(c, off, n);
  if (active_isa() == Isa::Avx2) return avx2::chain_sum_level(c, off, n);
#endif
  return baseline::chain_sum_level(c, off, n);
}

}  // namespace ca::instr
