// The instruction functions of fused elementwise programs (array/expr.hpp) and their resolution from
// an instruction to a function pointer, compiled three times into this one object: for baseline
// x86-64 (SSE2, 2 doubles per instruction) in ca::instr::baseline and, on x86-64 with GCC, for AVX2
// (4 per instruction) in ca::instr::avx2 and AVX-512 (8) in ca::instr::avx512, under `#pragma GCC
// target`. One file rather than three objects built with different flags: the pragma applies only
// to what array/expr_instr.inc defines, so the inline and template functions of shared headers
// (libstdc++, core/) stay baseline wherever the compiler emits them out of line, and the linker can
// never keep a wider copy of one for a CPU without it. There is no FMA at any level (the AVX2 target
// has none, and the AVX-512 one is compiled with fp-contract=off: AVX-512F itself has FMA
// instructions, and contracted float32 logaddexp2 differed from NumPy in the last bit): results are
// the same bit for bit at every level. AVX-512 ran W4's
// `((x + 1) * 2).sum()` from cache 1.18x faster than AVX2 (5.1 -> 6.0 G elements/s on one thread),
// so two threads keep up with memory that reads faster than 60 GB/s. The float32/float64
// transcendental functions and sqrt are not here but in array/vecmath.hpp (SLEEF, per ISA level up to
// AVX-512): those may differ in the last bit between levels, within their stated ULP bounds (docs/math.md).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

#include "array/create.hpp"
#include "array/expr_instr.hpp"
#include "array/op_table.hpp"
#include "array/vecmath.hpp"

namespace ca::instr {

namespace baseline {
#include "array/expr_instr.inc"
}  // namespace baseline

#if CA_INSTR_HAVE_AVX2
#pragma GCC push_options
#pragma GCC target("avx2")
namespace avx2 {
#include "array/expr_instr.inc"
}  // namespace avx2
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,avx512f,avx512bw,avx512dq,avx512vl")
#pragma GCC optimize("fp-contract=off")  // (AVX-512F has FMA instructions: no contraction into them)
namespace avx512 {
#include "array/expr_instr.inc"
}  // namespace avx512
#pragma GCC pop_options
#endif

namespace {

Isa detect() {
  const char *off = std::getenv("CA_DISABLE_CPU_FEATURES");
  const bool no_avx2 = off && std::strstr(off, "avx2") != nullptr;
  const bool no_avx512 = no_avx2 || (off && std::strstr(off, "avx512") != nullptr);
#if CA_INSTR_HAVE_AVX2
  if (!no_avx512 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return Isa::Avx512;
  if (!no_avx2 && __builtin_cpu_supports("avx2")) return Isa::Avx2;
#else
  (void)no_avx2;
  (void)no_avx512;
#endif
  return Isa::Baseline;
}

}  // namespace

Isa active_isa() {
  static const Isa isa = detect();
  return isa;
}

const char *isa_name(Isa isa) { return isa == Isa::Avx512 ? "avx512" : isa == Isa::Avx2 ? "avx2" : "baseline"; }

Fn resolve(const ExprInstr &ins, int variant) {
  if (is_ext_instr(ins)) return resolve_ext(ins, variant);
  // float32/float64 transcendental functions and sqrt: SLEEF's vector functions (array/vecmath.hpp)
  if (Fn f = vecmath::resolve(ins, variant, vecmath::active_level())) return f;
#if CA_INSTR_HAVE_AVX2
  if (active_isa() == Isa::Avx512) return avx512::resolve_variant(ins, variant);
  if (active_isa() == Isa::Avx2) return avx2::resolve_variant(ins, variant);
#endif
  return baseline::resolve_variant(ins, variant);
}

}  // namespace ca::instr
