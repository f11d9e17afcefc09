// The code tables of elementwise ops, reductions and scans as the engine reads them: everything is
// expanded from array/ops.def, array/reductions.def and array/scans.def (one row per code), so a new
// op is a row there plus its functor, not an edit here. The public CA_OP_* / CA_RED_* / CA_SCAN_*
// constants of <chunkarray/array.h> are generated from the same rows (tools/gen_codes.py); the
// static_asserts below fail the build if the header and the rows disagree.
#pragma once

#include <chunkarray/array.h>

#include <cstdint>

namespace ca {

/// How an elementwise op's result dtype follows from its (promoted) operand dtype (ops.def RESULT).
enum class OpRule : uint8_t {
  Same,        // the operand dtype
  SameNoBool,  // the operand dtype; bool raises (negative, sign)
  Subtract,    // the operand dtype; bool raises with NumPy's hint to use logical_xor
  TrueDivide,  // float64 for bool/integers, else the operand dtype
  FloorMod,    // int8 for bool; complex raises
  Power,       // int8 for bool
  FloatLoop,   // the float loop both operands cast to safely; complex raises (arctan2, hypot...)
  FloatPower,  // float64; complex128 if either operand is complex (float_power)
  Ldexp,       // the float loop of the first operand (Math); the second an integer up to int64
  Shift,       // integers; bool gives int8 (left_shift, right_shift)
  Bitwise,     // integers and bool only
  Bool,        // bool (comparisons, logical ops, isnan...)
  RealPart,    // the real dtype of a complex operand (abs, real, imag)
  Math,        // float/complex keep; bool/integers give a float (math_float)
  Rint,        // as Math (np.rint has float loops only), compared exactly in tests
  RealMath,    // as Math; complex raises (floor, ceil, trunc)
  BoolToInt8,  // int8 for bool, else the operand dtype (square, conj)
  BoolReal,    // bool; complex raises (signbit, isposinf)
  MathF64,     // float/complex keep; bool/integers give float64 (np.sinc: not a ufunc)
  RealMathF64, // as MathF64; complex raises (np.i0)
  Angle,       // the real dtype of a complex operand; bool float64; integers as Math (np.angle)
  Int32Real,   // int32; complex raises (frexp's exponent)
};

/// The dtype an op's operands are cast to before it runs (ops.def COMPUTE).
enum class OpCompute : uint8_t {
  Result,          // the result dtype
  Input,           // the operand's own dtype (isnan, real...)
  InputIfComplex,  // the operand's dtype when complex, else the result dtype (abs)
  Bool,            // bool (logical ops)
  Promoted,        // the operands' promoted dtype (comparisons)
};

struct OpInfo {
  int32_t code = 0;
  int32_t arity = 0;  // 0: not an elementwise op of ops.def
  const char *name = nullptr;
  OpRule rule = OpRule::Same;
  OpCompute compute = OpCompute::Result;
};

/// The row of ops.def for `op` (arity 0 and name nullptr when there is none).
constexpr OpInfo op_info(int32_t op) {
  switch (op) {
#define CA_OP(ENUM, CODE, ARITY, NAME, NUMPY, RESULT, COMPUTE, FUNCTOR, DOC) \
  case CODE: return OpInfo{CODE, ARITY, NAME, OpRule::RESULT, OpCompute::COMPUTE};
#include "array/ops.def"
    default: return OpInfo{};
  }
}

constexpr bool is_unary_op(int32_t op) { return op_info(op).arity == 1; }
constexpr bool is_binary_op(int32_t op) { return op_info(op).arity == 2; }
constexpr bool is_comparison(int32_t op) { return op_info(op).compute == OpCompute::Promoted; }

/// The reduction a nan-skipping one is without skipping (RedFamily names the plain reductions).
enum class RedFamily : uint8_t { None, Sum, Prod, Mean, Var, Std, Min, Max, ArgMin, ArgMax, Any, All };

struct RedInfo {
  int32_t code = 0;
  const char *name = nullptr;  // nullptr: not a reduction of reductions.def
  RedFamily family = RedFamily::None;
  bool nan = false;
};

constexpr RedInfo red_info(int32_t op) {
  switch (op) {
#define CA_RED(ENUM, CODE, NAME, BASE, NAN, DOC) \
  case CODE: return RedInfo{CODE, NAME, RedFamily::BASE, NAN != 0};
#include "array/reductions.def"
    default: return RedInfo{};
  }
}

/// The plain reduction of a family (CA_RED_SUM for Sum), 0 for None.
constexpr int32_t red_of_family(RedFamily f) {
#define CA_RED(ENUM, CODE, NAME, BASE, NAN, DOC) \
  if (!(NAN) && f == RedFamily::BASE) return CODE;
#include "array/reductions.def"
  return 0;
}

constexpr bool is_arg_reduction(int32_t op) {
  return red_info(op).family == RedFamily::ArgMin || red_info(op).family == RedFamily::ArgMax;
}

struct ScanInfo {
  int32_t code = 0;
  const char *name = nullptr;  // nullptr: not a scan of scans.def
  bool prod = false;
  bool nan = false;
};

constexpr ScanInfo scan_info(int32_t op) {
  switch (op) {
#define CA_SCAN(ENUM, CODE, NAME, PROD, NAN, DOC) \
  case CODE: return ScanInfo{CODE, NAME, PROD != 0, NAN != 0};
#include "array/scans.def"
    default: return ScanInfo{};
  }
}

/// The scan without nan-skipping of the same kind (cumsum for nancumsum).
constexpr int32_t scan_base(int32_t op) {
  const ScanInfo s = scan_info(op);
#define CA_SCAN(ENUM, CODE, NAME, PROD, NAN, DOC) \
  if (!(NAN) && (PROD != 0) == s.prod && s.name) return CODE;
#include "array/scans.def"
  return op;
}

// The public header's constants are the rows' codes.
#define CA_OP(ENUM, CODE, ARITY, NAME, NUMPY, RESULT, COMPUTE, FUNCTOR, DOC) \
  static_assert(CA_OP_##ENUM == CODE && (ARITY == 1 || ARITY == 2), "CA_OP_" #ENUM);
#include "array/ops.def"
#define CA_RED(ENUM, CODE, NAME, BASE, NAN, DOC) static_assert(CA_RED_##ENUM == CODE, "CA_RED_" #ENUM);
#include "array/reductions.def"
#define CA_SCAN(ENUM, CODE, NAME, PROD, NAN, DOC) static_assert(CA_SCAN_##ENUM == CODE, "CA_SCAN_" #ENUM);
#include "array/scans.def"

}  // namespace ca
