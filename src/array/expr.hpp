// Fused elementwise expressions.
//
// An elementwise operation on arrays does not add a task per operation: it builds an expression
// tree whose leaves are non-fused arrays. The array's layer is one `ca.fused` task per output block
// evaluating the whole tree over cache-sized tiles (no full-size temporaries). A reduction over an
// expression evaluates it tile by tile inside the reduction's chunk step.
//
// The tree is compiled to an ExprProgram (a register machine), serialized into the task's first
// argument (bytes). Every instruction computes in one dtype: the builder inserts explicit casts, so
// an interpreter only needs (op, dtype) kernels and casts.
#pragma once

#include <chunkarray/array.h>

#include <complex>
#include <functional>
#include <string>
#include <vector>

#include "array/array.hpp"

namespace ca {

// ---- the program (what ca.fused executes) --------------------------------------------------------

/// Instruction opcodes: the CA_OP_* values of array.h, plus these.
enum ExprCode : int32_t {
  kOpConst = 1000,  // result = constant (Instr::value), dtype = Instr::dtype
  kOpCast = 1001,   // result = cast(a) from Instr::in_dtype to Instr::dtype (NumPy's astype)
  kOpWhere = 1002,  // result = a (bool) ? b : c, all of dtype Instr::dtype except a (bool)
  kOpRoundDec = 1003,  // result = np.round(a, decimals=int(value.real())), float/complex
};

struct ExprInstr {
  int32_t op = 0;         // CA_OP_* or ExprCode
  DType dtype = 0;        // result dtype
  DType in_dtype = 0;     // operand dtype (bool for where's condition aside)
  int32_t a = -1, b = -1, c = -1;  // operand registers
  std::complex<double> value{};    // kOpConst (for integers: exact in ivalue), kOpRoundDec
  int64_t ivalue = 0;              // kOpConst exact integer value (int/bool dtypes)
  uint64_t uvalue = 0;             // kOpConst exact unsigned value (uint dtypes)
};

/// Registers 0..inputs.size()-1 are the input blocks (kernel arguments 1..n, in order), then one
/// register per instruction, in order. The result is register `out` (dtype of that register).
struct ExprProgram {
  std::vector<DType> inputs;
  std::vector<ExprInstr> code;
  int32_t out = 0;

  DType reg_dtype(int32_t r) const { return r < int32_t(inputs.size()) ? inputs[size_t(r)] : code[size_t(r) - inputs.size()].dtype; }
  std::string serialize() const;
  static ExprProgram parse(const void *data, size_t n);  // throws CA_EFORMAT on bad bytes
};

/// Evaluate a program over input blocks (the `ca.fused` kernel). Inputs broadcast (NumPy rules) to
/// the output shape. Implemented in array/ops_kernels.cpp.
Block *eval_program(const ExprProgram &p, const Block *const *inputs, size_t ninputs);

/// Tile-wise evaluation for fused reductions: calls `sink(tile_ptr, n, flat_offset)` for consecutive
/// runs of the result (of the program's result dtype) in C order over the broadcast output shape.
/// `out_shape` receives that shape. Implemented in array/ops_kernels.cpp.
void eval_program_tiles(const ExprProgram &p, const Block *const *inputs, size_t ninputs,
                        std::vector<Index> &out_shape,
                        const std::function<void(const void *tile, int64_t n, int64_t offset)> &sink);

// ---- the tree (what array operations build) ------------------------------------------------------

struct Expr {
  enum Kind { Leaf, Const, Op } kind = Leaf;
  DType dtype = CA_FLOAT64;  // result dtype
  ArrayPtr leaf;             // Leaf: a non-fused array
  ca_scalar_t scalar{};      // Const
  int32_t op = 0;            // Op: CA_OP_* or ExprCode (cast/where/round)
  int32_t param = 0;         // kOpRoundDec: decimals
  std::vector<ExprPtr> args; // Op operands
};

/// The expression of an array: its own expr, or a leaf over it.
ExprPtr expr_of(const ArrayPtr &a);

/// NumPy result dtypes.
DType unary_result_dtype(int32_t op, DType in);
DType binary_result_dtype(int32_t op, DType a, DType b);
/// NumPy's dtype for an array combined with a Python scalar (value-based casting of NumPy 1.x).
DType scalar_promote(DType array_dtype, const ca_scalar_t &s);

/// Build elementwise arrays (fused): validate ops/dtypes, broadcast shapes, unify chunks.
ArrayPtr elementwise_unary(int32_t op, const ArrayPtr &a);
ArrayPtr elementwise_binary(int32_t op, const ArrayPtr &a, const ArrayPtr &b);
ArrayPtr elementwise_scalar(int32_t op, const ArrayPtr &a, const ca_scalar_t &s, bool scalar_first);
ArrayPtr elementwise_where(const ArrayPtr &cond, const ArrayPtr &a, const ArrayPtr &b, const ca_scalar_t &sa,
                           const ca_scalar_t &sb);
ArrayPtr elementwise_clip(const ArrayPtr &a, const ca_scalar_t *lo, const ca_scalar_t *hi);
ArrayPtr elementwise_astype(const ArrayPtr &a, DType dtype);
ArrayPtr elementwise_round(const ArrayPtr &a, int32_t decimals);

/// Compile a tree: the leaves (deduplicated by name, in first-use order) and the program.
ExprProgram compile_expr(const ExprPtr &e, std::vector<ArrayPtr> &leaves);

}  // namespace ca
