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
  kOpGen = 1004,  // result = a generated array's elements at the tile's global indices (GenSpec in
                  // gen, value, ivalue, ivalue2, uvalue); needs the block's origin (ExprProgram::coords)
  kOpTimeScale = 1005,  // result = a (timedelta64, Instr::in_dtype = dtype) * b (float64), or a / b when
                        // ivalue is 1; NaT for NaT or a non-finite or out-of-range result (NumPy's m8/f8)
};

struct ExprInstr {
  int32_t op = 0;         // CA_OP_* or ExprCode
  DType dtype = 0;        // result dtype
  DType in_dtype = 0;     // operand dtype (bool for where's condition aside)
  int32_t a = -1, b = -1, c = -1;  // operand registers
  std::complex<double> value{};    // kOpConst (for integers: exact in ivalue), kOpRoundDec
  int64_t ivalue = 0;              // kOpConst exact integer value (int/bool dtypes)
  uint64_t uvalue = 0;             // kOpConst exact unsigned value (uint dtypes)
  int32_t gen = 0;                 // kOpGen: GenSpec::Kind
  int64_t ivalue2 = 0;             // kOpGen: GenSpec::i1
};

struct GenSpec;
/// The kOpGen instruction of a generator, and back.
ExprInstr gen_instr(const GenSpec &g);
GenSpec gen_spec_of(const ExprInstr &ins);

/// Registers 0..inputs.size()-1 are the input blocks (kernel arguments 1..n, in order), then one
/// register per instruction, in order. The result is register `out` (dtype of that register).
struct ExprProgram {
  std::vector<DType> inputs;
  std::vector<ExprInstr> code;
  int32_t out = 0;
  /// With kOpGen instructions: the shape of the whole array the program computes (its generators'
  /// shape). Such a program is called with its block's origin and shape (GenCoords).
  std::vector<Index> gshape;
  bool coords = false;
  /// Per input (or empty: none): 1 = the input is a 2-D block read transposed (the program sees
  /// block.T; the result is then 2-D of that shape). Serialized as bit 30 of the input's dtype
  /// word, so programs without transposed inputs keep their bytes. Set by fuse_transposed_leaves.
  std::vector<uint8_t> transposed;
  bool is_transposed(size_t input) const { return input < transposed.size() && transposed[input]; }

  DType reg_dtype(int32_t r) const { return r < int32_t(inputs.size()) ? inputs[size_t(r)] : code[size_t(r) - inputs.size()].dtype; }
  std::string serialize() const;
  static ExprProgram parse(const void *data, size_t n);  // throws CA_EFORMAT on bad bytes
};

/// Where a block sits, for programs with generators (ExprProgram::coords): its origin in the array
/// and its shape (ndim = gshape's).
struct GenCoords {
  const Index *origin = nullptr;
  const Index *shape = nullptr;
  int32_t ndim = 0;
};
/// The coordinates from a kernel's BlockOrigin and BlockShape tuple arguments (CA_EINVAL if wrong).
GenCoords gen_coords_from_args(const ExprProgram &p, const ca_arg_t &origin, const ca_arg_t &shape);

/// A parsed program resolved to its instruction functions, cached per thread by its bytes (the
/// tasks of one layer share one). Implemented in array/ops_kernels.cpp.
struct PreparedProgram;
const PreparedProgram &prepared_program(const void *bytes, size_t n);
const ExprProgram &program_of(const PreparedProgram &pp);

/// Evaluate a program over input blocks (the `ca.fused` kernel). Inputs broadcast (NumPy rules) to
/// the output shape. Implemented in array/ops_kernels.cpp.
Block *eval_program(const ExprProgram &p, const Block *const *inputs, size_t ninputs,
                    const GenCoords *coords = nullptr);
/// dest (optional): memory of dest_bytes bytes the result is written to when it has exactly that
/// size and no input shares that memory (the returned block then wraps dest; else a new block).
Block *eval_prepared_program(const PreparedProgram &pp, const Block *const *inputs, size_t ninputs,
                             const GenCoords *coords, void *dest = nullptr, int64_t dest_bytes = 0);

/// Whether `k` is the builtin `ca.fused` kernel (a context without builtins may register its own
/// kernel under that name: the single-block compute path then does not bypass it).
bool is_builtin_fused_kernel(const ca_kernel_t *k);

/// Tile-wise evaluation for fused reductions: calls `sink(tile_ptr, n, flat_offset)` for consecutive
/// runs of the result (of the program's result dtype) in C order over the broadcast output shape.
/// `out_shape` receives that shape. Implemented in array/ops_kernels.cpp.
/// With `columns` set and a program whose inputs are all generated or broadcast (nothing read from
/// a block of the output's size, which column order would read across rows), the tiles come column
/// segment by column segment instead: the last axis cut into tile-wide segments, each segment's
/// tiles in row order (every tile still inside one row). A reduction over the leading axes then
/// sees each output's elements in the same order as in C order (identical results) while its
/// per-column state for one segment stays in L1 for all the rows. `*columns` says which order ran.
void eval_program_tiles(const PreparedProgram &pp, const Block *const *inputs, size_t ninputs,
                        const GenCoords *coords, std::vector<Index> &out_shape,
                        const std::function<void(const void *tile, int64_t n, int64_t offset)> &sink,
                        bool *columns = nullptr);

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
/// A scalar operand decoded and validated (CA_ETYPE/CA_EINVAL for kinds, flags or values that do
/// not go together): its dtype (a Python scalar's default: bool, int64, uint64 for ints >= 2**63,
/// float64, complex128; or a typed scalar's dtype) and its value in the field of its kind.
struct ScalarValue {
  DType dtype = 0;
  bool typed = false;
  char kind = 0;          // 'b', 'i', 'u', 'f', 'c'
  int64_t i = 0;          // 'b', 'i'
  uint64_t u = 0;         // 'u'
  double re = 0, im = 0;  // 'f', 'c'; the value as a double for the others
};
ScalarValue scalar_value(const ca_scalar_t &s);
/// Write `sv` as one element of dtype `dt` at `dst` (dtype_size(dt) bytes), NumPy's assignment
/// casting: numeric dtypes, float16, and datetime64/timedelta64 (integer ticks or a time scalar, its
/// unit converted). `strict` (setitem, pad): NaN/inf or an out-of-range float into an integer dtype is
/// CA_EINVAL, as NumPy's assignment raises; otherwise (np.full's cast) those store 0. CA_ETYPE for
/// strings and kinds that do not assign (a float into datetime64).
void store_scalar(const ScalarValue &sv, DType dt, void *dst, bool strict);
/// NumPy's dtype for an array combined with a scalar: value-based casting of NumPy 1.x for a Python
/// scalar, the typed scalar's dtype as an array's (NEP 50) for a typed one.
DType scalar_promote(DType array_dtype, const ca_scalar_t &s);

/// Build elementwise arrays (fused): validate ops/dtypes, broadcast shapes, unify chunks.
ArrayPtr elementwise_unary(int32_t op, const ArrayPtr &a);
ArrayPtr elementwise_binary(int32_t op, const ArrayPtr &a, const ArrayPtr &b);
ArrayPtr elementwise_scalar(int32_t op, const ArrayPtr &a, const ca_scalar_t &s, bool scalar_first);
/// The same under the array API standard's promotion (array/expr_std.cpp): dtype_promote_std's table
/// (CA_ETYPE where it has none); a Python scalar takes the array's dtype (CA_ETYPE for a kind that
/// does not go with it, CA_EINVAL for an integer the dtype does not hold).
ArrayPtr elementwise_binary_std(int32_t op, const ArrayPtr &a, const ArrayPtr &b);
ArrayPtr elementwise_scalar_std(int32_t op, const ArrayPtr &a, const ca_scalar_t &s, bool scalar_first);
ArrayPtr elementwise_where(const ArrayPtr &cond, const ArrayPtr &a, const ArrayPtr &b, const ca_scalar_t &sa,
                           const ca_scalar_t &sb);
ArrayPtr elementwise_clip(const ArrayPtr &a, const ca_scalar_t *lo, const ca_scalar_t *hi);
ArrayPtr elementwise_astype(const ArrayPtr &a, DType dtype);
ArrayPtr elementwise_round(const ArrayPtr &a, int32_t decimals);
/// np.isclose(a, b, rtol, atol, equal_nan) as one fused expression of table ops.
ArrayPtr elementwise_isclose(const ArrayPtr &a, const ArrayPtr &b, double rtol, double atol, bool equal_nan);
/// np.nan_to_num(a, nan=nan, posinf=*posinf, neginf=*neginf) (null: the dtype's largest finite values).
/// Complex dtypes take the defaults only (CA_EUNSUPPORTED otherwise).
ArrayPtr elementwise_nan_to_num(const ArrayPtr &a, double nan, const double *posinf, const double *neginf);

/// The array `l` transposes when l is a whole 2-D transpose: transpose()'s blockwise layer (kernel
/// ca.shape.transpose, block (i, j) = block (j, i) of one input, axes (1, 0)) with no expression or
/// generator of its own; over the layers the source needs (not the transpose layer). Null otherwise.
ArrayPtr transpose_source(const ArrayPtr &l);

/// Leaves that are whole 2-D transposes (x.T: transpose()'s ca.shape.transpose layer, nothing fused
/// into it) of a 2-D result of the same shape are replaced by the array they transpose, read with
/// swapped block indices (`indices`, the leaves' index letters) and marked in p.transposed: the
/// interpreter reads those blocks transposed through a small band buffer instead of a task copying
/// each block transposed first (W10: `(x + x.T).sum()`).
void fuse_transposed_leaves(ExprProgram &p, std::vector<ArrayPtr> &leaves, std::vector<std::string> &indices,
                            const std::vector<Index> &shape);

/// Compile a tree: the leaves (deduplicated by name, in first-use order) and the program. With
/// `shape` (the result's array shape), generated leaves of that shape (Array::gen) become kOpGen
/// instructions instead of inputs, listed in `gens` when given.
ExprProgram compile_expr(const ExprPtr &e, std::vector<ArrayPtr> &leaves, const std::vector<Index> *shape = nullptr,
                         std::vector<ArrayPtr> *gens = nullptr);

}  // namespace ca
