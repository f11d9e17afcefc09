// The vectorized math of array/vecmath.hpp: array/vecmath.inc compiled once per ISA level in this one
// object, under `#pragma GCC target` (as array/expr_instr.cpp does for its AVX2 level), so no inline
// function of a shared header is ever emitted with AVX instructions. SLEEF's header declares each
// level's functions only when the compiler's macro for it (__AVX__, __AVX512F__) is defined, which a
// target pragma does not do: they are defined around its inclusion alone, after the intrinsics
// headers, which already declare every vector type.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "array/vecmath.hpp"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define CA_VM_X86 1
#include <immintrin.h>
#else
#define CA_VM_X86 0
#endif

#if CA_HAVE_SLEEF && CA_VM_X86
#ifndef __AVX__
#define __AVX__ 1
#define CA_VM_UNDEF_AVX
#endif
#ifndef __AVX512F__
#define __AVX512F__ 1
#define CA_VM_UNDEF_AVX512F
#endif
#include <sleef.h>
#ifdef CA_VM_UNDEF_AVX
#undef __AVX__
#undef CA_VM_UNDEF_AVX
#endif
#ifdef CA_VM_UNDEF_AVX512F
#undef __AVX512F__
#undef CA_VM_UNDEF_AVX512F
#endif
#else
#undef CA_HAVE_SLEEF
#define CA_HAVE_SLEEF 0
#endif

namespace ca::vecmath {

#if CA_VM_X86

namespace {

// The scalar libm functions for the lanes SLEEF is not accurate on (array/vecmath.inc), compiled
// for baseline x86-64 outside the target pragmas.
template <class T>
[[gnu::noinline]] T scalar1(int32_t op, T x) {
  switch (op) {
    case CA_OP_SINH: return std::sinh(x);
    case CA_OP_COSH: return std::cosh(x);
    case CA_OP_ARCSINH: return std::asinh(x);
    case CA_OP_ARCCOSH: return std::acosh(x);
    case CA_OP_LOG1P: return std::log1p(x);
    default: return std::numeric_limits<T>::quiet_NaN();
  }
}
#if CA_HAVE_SLEEF
template <class T>
[[gnu::noinline]] T scalar2(int32_t op, T x, T y) {
  return op == CA_OP_POW ? std::pow(x, y) : std::atan2(x, y);
}
#endif

}  // namespace

// ---- SSE2 (baseline x86-64): float32 only, float64 stays glibc (see vecmath.hpp) -----------------
namespace sse2 {
#define CA_VM_SFX sse2
#define CA_VM_HAVE_D 0
#define CA_VM_F_W 4
#define CA_VM_FW f4
#define CA_VM_F_V __m128
#define CA_VM_F_LD _mm_loadu_ps
#define CA_VM_F_ST _mm_storeu_ps
#define CA_VM_F_SET1 _mm_set1_ps
#define CA_VM_F_MUL _mm_mul_ps
#define CA_VM_F_SQRT _mm_sqrt_ps
#include "array/vecmath.inc"
}  // namespace sse2
#undef CA_VM_SFX
#undef CA_VM_HAVE_D
#undef CA_VM_F_W
#undef CA_VM_FW
#undef CA_VM_F_V
#undef CA_VM_F_LD
#undef CA_VM_F_ST
#undef CA_VM_F_SET1
#undef CA_VM_F_MUL
#undef CA_VM_F_SQRT

// ---- AVX2 + FMA ------------------------------------------------------------------------------------
#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2 {
#define CA_VM_SFX avx2
#define CA_VM_HAVE_D 1
#define CA_VM_D_W 4
#define CA_VM_DW d4
#define CA_VM_D_V __m256d
#define CA_VM_D_LD _mm256_loadu_pd
#define CA_VM_D_ST _mm256_storeu_pd
#define CA_VM_D_SET1 _mm256_set1_pd
#define CA_VM_D_MUL _mm256_mul_pd
#define CA_VM_D_SQRT _mm256_sqrt_pd
#define CA_VM_F_W 8
#define CA_VM_FW f8
#define CA_VM_F_V __m256
#define CA_VM_F_LD _mm256_loadu_ps
#define CA_VM_F_ST _mm256_storeu_ps
#define CA_VM_F_SET1 _mm256_set1_ps
#define CA_VM_F_MUL _mm256_mul_ps
#define CA_VM_F_SQRT _mm256_sqrt_ps
#include "array/vecmath.inc"
}  // namespace avx2
#pragma GCC pop_options
#undef CA_VM_SFX
#undef CA_VM_D_W
#undef CA_VM_DW
#undef CA_VM_D_V
#undef CA_VM_D_LD
#undef CA_VM_D_ST
#undef CA_VM_D_SET1
#undef CA_VM_D_MUL
#undef CA_VM_D_SQRT
#undef CA_VM_F_W
#undef CA_VM_FW
#undef CA_VM_F_V
#undef CA_VM_F_LD
#undef CA_VM_F_ST
#undef CA_VM_F_SET1
#undef CA_VM_F_MUL
#undef CA_VM_F_SQRT

// ---- AVX-512F --------------------------------------------------------------------------------------
#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")
// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*(), which -Wmaybe-uninitialized reports
// at every inlined use (GCC bug 105593, fixed in GCC 13): a false positive.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
namespace avx512 {
#define CA_VM_SFX avx512f
#define CA_VM_D_W 8
#define CA_VM_DW d8
#define CA_VM_D_V __m512d
#define CA_VM_D_LD _mm512_loadu_pd
#define CA_VM_D_ST _mm512_storeu_pd
#define CA_VM_D_SET1 _mm512_set1_pd
#define CA_VM_D_MUL _mm512_mul_pd
#define CA_VM_D_SQRT _mm512_sqrt_pd
#define CA_VM_F_W 16
#define CA_VM_FW f16
#define CA_VM_F_V __m512
#define CA_VM_F_LD _mm512_loadu_ps
#define CA_VM_F_ST _mm512_storeu_ps
#define CA_VM_F_SET1 _mm512_set1_ps
#define CA_VM_F_MUL _mm512_mul_ps
#define CA_VM_F_SQRT _mm512_sqrt_ps
#include "array/vecmath.inc"
}  // namespace avx512
#pragma GCC diagnostic pop
#pragma GCC pop_options
#undef CA_VM_SFX
#undef CA_VM_HAVE_D
#undef CA_VM_D_W
#undef CA_VM_DW
#undef CA_VM_D_V
#undef CA_VM_D_LD
#undef CA_VM_D_ST
#undef CA_VM_D_SET1
#undef CA_VM_D_MUL
#undef CA_VM_D_SQRT
#undef CA_VM_F_W
#undef CA_VM_FW
#undef CA_VM_F_V
#undef CA_VM_F_LD
#undef CA_VM_F_ST
#undef CA_VM_F_SET1
#undef CA_VM_F_MUL
#undef CA_VM_F_SQRT

#endif  // CA_VM_X86

namespace {

Level detect() {
  const char *off = std::getenv("CA_DISABLE_CPU_FEATURES");
  const bool no_avx2 = off && std::strstr(off, "avx2") != nullptr;
  const bool no_avx512 = no_avx2 || (off && std::strstr(off, "avx512") != nullptr);
  if (!no_avx512 && level_supported(Level::Avx512)) return Level::Avx512;
  if (!no_avx2 && level_supported(Level::Avx2)) return Level::Avx2;
  if (level_supported(Level::Sse2)) return Level::Sse2;
  return Level::Scalar;
}

}  // namespace

bool have_sleef() { return CA_HAVE_SLEEF != 0; }

bool level_supported(Level level) {
#if CA_VM_X86
  switch (level) {
    case Level::Scalar:
    case Level::Sse2: return true;
    case Level::Avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Level::Avx512: return __builtin_cpu_supports("avx512f");
  }
  return false;
#else
  return level == Level::Scalar;
#endif
}

Level active_level() {
  static const Level level = detect();
  return level;
}

const char *level_name(Level level) {
  switch (level) {
    case Level::Sse2: return "sse2";
    case Level::Avx2: return "avx2";
    case Level::Avx512: return "avx512";
    case Level::Scalar: break;
  }
  return "scalar";
}

instr::Fn resolve(const ExprInstr &ins, int variant, Level level) {
  if (ins.in_dtype != ins.dtype || (ins.dtype != CA_FLOAT32 && ins.dtype != CA_FLOAT64)) return nullptr;
#if CA_VM_X86
  switch (level) {
    case Level::Sse2: return sse2::resolve_level(ins, variant);
    case Level::Avx2: return avx2::resolve_level(ins, variant);
    case Level::Avx512: return avx512::resolve_level(ins, variant);
    case Level::Scalar: break;
  }
#else
  (void)variant;
  (void)level;
#endif
  return nullptr;
}

}  // namespace ca::vecmath
