// Vectorized transcendental functions for the fused elementwise interpreter (array/expr_instr.hpp):
// float32 and float64 sin, cos, tan, arcsin, arccos, arctan, sinh, cosh, tanh, arcsinh, arccosh,
// arctanh, exp, exp2, expm1, log, log2, log10, log1p, cbrt, sqrt, power and arctan2 from SLEEF's
// 3.5-ULP ("u35") functions where SLEEF has a faster one (within NumPy's SVML bound of 4 ULP), its
// 1.0-ULP ("u10") ones otherwise, hypot from its 0.5001-ULP ("u05") one; float32 sinh, cosh, expm1,
// exp2, log2, log10, log1p, arcsinh, arccosh, arctanh, cbrt, power, arctan2 and hypot from the own kernels
// of array/vecpoly_f32.inc (with or without SLEEF); per function in docs/math.md. Chosen once per
// process for the widest ISA level the CPU has:
//
//   avx512  8 doubles / 16 floats per call (SLEEF *avx512f)
//   avx2    4 doubles / 8 floats (SLEEF *avx2: AVX2 + FMA)
//   sse2    float32 only (SLEEF *sse2); float64 keeps glibc's scalar libm at this level,
//           which measured faster than SLEEF's FMA-less double-double SSE2 code.
//
// sqrt uses the hardware instruction (correctly rounded) at every level. Built without SLEEF
// (meson -Dsleef=disabled, or libsleef-dev missing), only sqrt is vectorized here and the other
// functions stay the scalar libm calls of array/expr_instr.inc.
#pragma once

#include <cstdint>

#include "array/expr_instr.hpp"

namespace ca::vecmath {

enum class Level { Scalar, Sse2, Avx2, Avx512 };

/// The level the interpreter uses: the widest the CPU supports, lowered by the environment variable
/// CA_DISABLE_CPU_FEATURES (read once): "avx512f" turns AVX-512 off, "avx2" turns AVX2 and AVX-512
/// off (as the interpreter's own AVX2 level).
Level active_level();
const char *level_name(Level level);
/// Whether this CPU can run the functions of `level`.
bool level_supported(Level level);
/// Whether SLEEF was found at build time.
bool have_sleef();

/// The vectorized function for an instruction at `level` (variant as instr::resolve), or nullptr
/// when there is none (not a transcendental op, not float32/float64, no such level in this build):
/// the caller then uses the scalar interpreter function.
instr::Fn resolve(const ExprInstr &ins, int variant, Level level);

}  // namespace ca::vecmath
