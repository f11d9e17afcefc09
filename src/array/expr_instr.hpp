// The instruction functions of fused elementwise programs (array/expr.hpp): one function per
// (operation, operand dtypes, scalar operand) that runs an instruction over a tile, compiled for
// baseline x86-64, AVX2 and AVX-512 (array/expr_instr.cpp) and chosen once per process.
#pragma once

#include <cstdint>

#include "array/expr.hpp"
#include "core/sanitizer.hpp"

// Sanitizer builds compile the instructions once, at the baseline level: the AVX2 and AVX-512 copies
// are the same source under other targets (the release build tests every level: `elementwise`,
// `elementwise_avx2`, `elementwise_baseline`), and instrumenting them too was a large part of those
// trees' compile time.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !CA_ASAN && !CA_TSAN
#define CA_INSTR_HAVE_AVX2 1
#else
#define CA_INSTR_HAVE_AVX2 0
#endif

namespace ca::instr {

/// An instruction over n elements: r[i] = op(a[i], b[i], c[i]) (operands the instruction does not
/// use are null; a scalar operand is read at index 0 only).
using Fn = void (*)(const ExprInstr &ins, const void *a, const void *b, const void *c, void *r, int64_t n);

enum class Isa { Baseline, Avx2, Avx512 };

/// The ISA level the instruction functions run at: the widest the CPU (and OS) has — AVX-512
/// (F, BW, DQ, VL), AVX2, baseline — below the first one the environment variable
/// CA_DISABLE_CPU_FEATURES names ("avx512", "avx2"; read once, as NumPy's NPY_DISABLE_CPU_FEATURES).
Isa active_isa();
const char *isa_name(Isa isa);

/// The function for an instruction at the active ISA level; variant 1/2: the version whose first /
/// second operand is a scalar (nullptr where the operation has none). Throws CA_EFORMAT for an
/// instruction no function exists for (bad op, dtype or result dtype).
Fn resolve(const ExprInstr &ins, int variant);

/// Instructions on float16, datetime64/timedelta64 or bytes/unicode (an operand or the result):
/// their functions are in array/dtype_kernels.cpp (baseline only).
bool is_ext_instr(const ExprInstr &ins);
Fn resolve_ext(const ExprInstr &ins, int variant);

}  // namespace ca::instr
