// Fused sums in one pass: a reduction of a short arithmetic chain (`((x + 1) * 2).sum()`,
// `(x * y).sum()`, `abs(x - m).mean()`) evaluated element by element in vector registers and added up
// as it goes, instead of through the interpreter's tiles (array/ops_kernels.cpp), which pass over
// each 4 KiB tile once per instruction and once more for the sum. Between the tiles' reads of memory
// the core then works in L1 with no load of the input in flight, and one thread read W4 at ~30 GB/s
// where x.sum() reads ~42 (docs/benchmarks.md, W4); in one pass the reads never pause.
//
// A chain is a program (array/expr.hpp) whose instructions that depend on the inputs are float32 or
// float64 add, subtract, multiply, divide, negative, absolute or square, each reading at most: the
// previous such instruction's value (and nothing later reads that), inputs read in place (of the
// output's size and the chain's dtype), and invariants (constants, size-1 inputs, anything computed
// from those alone: evaluated once, by the interpreter's own functions). Other programs take the tile
// path. The values are the interpreter's bit for bit (IEEE operations, no contraction into FMA), and
// the sum adds them in the order of the reduction's fold over a materialized run (fold_run in
// array/reduce_families.hpp: halves down to leaves of at most 4096 elements, each leaf in 16
// interleaved accumulators folded pairwise): a fused sum equals the sum of the computed expression
// exactly.
#pragma once

#include <cstdint>

#include "array/expr.hpp"

namespace ca::instr {

struct Chain {
  static constexpr int kMaxOps = 16, kMaxIn = 4, kMaxConst = 16;
  static constexpr int kLeaf = 4096;  // fold_run's leaf (array/reduce_families.hpp)
  enum Kind : uint8_t { kCur = 0, kIn = 1, kConst = 2 };
  enum Code : uint8_t { kAdd = 0, kSub, kMul, kDiv, kNeg, kAbs, kSquare, kCodes };
  struct Op {
    uint8_t key = 0;  // code * 9 + kind of a * 3 + kind of b (unary: kind of b = 0)
    uint8_t a = 0, b = 0;  // kIn: the input's index; kConst: the constant's index
  };
  DType dtype = 0;  // the chain's (and its in-place inputs') dtype: CA_FLOAT32 or CA_FLOAT64
  int32_t nops = 0;
  int32_t nin = 0;  // the program's inputs; in[i]: input i read in place, or null (an invariant)
  Op ops[kMaxOps];
  const void *in[kMaxIn] = {};
  double kd[kMaxConst] = {};
  float kf[kMaxConst] = {};
};

/// The sum, in double, of the chain's values at the elements [off, off + n) of its output (flat C
/// order), added in fold_run's order (see above); at the ISA level of the instruction functions.
double chain_sum(const Chain &c, int64_t off, int64_t n);

}  // namespace ca::instr

namespace ca {

/// Whether the program may be a chain (its input-dependent instructions are all chain operations of
/// one float dtype, it has no generators and no transposed inputs): decided once per prepared program.
bool chain_candidate(const PreparedProgram &pp);
/// The program over these input blocks (output of N elements) as a chain, or false when it is none
/// (then the interpreter's tiles evaluate it). Evaluates the invariants; `c` borrows the inputs.
bool chain_of(const PreparedProgram &pp, const Block *const *inputs, size_t ninputs, int64_t N, instr::Chain &c);

}  // namespace ca
