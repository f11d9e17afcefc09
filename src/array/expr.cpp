// Fused elementwise expressions: NumPy's type rules, the expression builders, the compiler to
// ExprProgram and its byte format. The interpreter is array/ops_kernels.cpp.
#include <functional>  // before expr.hpp, which uses std::function

#include "array/expr.hpp"

#include "array/create.hpp"
#include "array/op_table.hpp"
#include "core/checked.hpp"
#include "core/datetime.hpp"
#include "core/half.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace ca {

namespace {

// A fused expression stops growing beyond this many instructions: the operands become leaves
// (their own blocks are computed) and a new expression starts over them.
constexpr size_t kMaxFusedInstructions = 64;

const char *op_name(int32_t op) {
  if (const char *n = op_info(op).name) return n;
  switch (op) {
    case kOpConst: return "const";
    case kOpCast: return "astype";
    case kOpWhere: return "where";
    case kOpRoundDec: return "round";
    case kOpGen: return "generate";
    case kOpTimeScale: return "timedelta_scale";
    default: return nullptr;
  }
}

bool known_op(int32_t op) { return op_name(op) != nullptr; }

/// Ops whose float16 result is not float32's rounded (the neighbouring float16 values, float16's
/// largest value): they have float16 kernels of their own (array/expr_instr.inc).
bool half_native(int32_t op) { return op == CA_OP_SPACING || op == CA_OP_NEXTAFTER || op == CA_OP_NAN_TO_NUM; }

/// The float dtype NumPy's math functions give for an integer/bool input: the smallest float that
/// holds every value (float16 for bool/int8/uint8, float32 for 16-bit integers, float64 beyond).
DType math_float(DType t) {
  switch (t) {
    case CA_BOOL:
    case CA_INT8:
    case CA_UINT8: return CA_FLOAT16;
    case CA_INT16:
    case CA_UINT16: return CA_FLOAT32;
    default: return CA_FLOAT64;
  }
}

DType real_dtype(DType t) { return t == CA_COMPLEX64 ? CA_FLOAT32 : t == CA_COMPLEX128 ? CA_FLOAT64 : t; }

void check_numeric(DType t) {
  if (!dtype_valid(t) || t == CA_RAW) fail(CA_ETYPE, "dtype ", t, " is not a numeric dtype");
  if (dtype_is_string(t)) fail(CA_ETYPE, "arithmetic is not supported for the string dtype ", dtype_name(t));
  if (dtype_is_time(t)) fail(CA_ETYPE, "this operation is not supported for ", dtype_name(t));
}

/// The dtype NumPy's loops convert both operands to, for datetime64/timedelta64 operations: the
/// promotion of two times (the finer unit; a datetime if either is), or the time operand's dtype
/// (the other, an integer, converts to it).
DType time_operand_dtype(DType a, DType b) {
  if (dtype_is_time(a) && dtype_is_time(b)) return dtype_promote(a, b);
  return dtype_is_time(a) ? a : b;
}

/// The result of a binary operation involving a datetime64/timedelta64 (NumPy's datetime loops).
DType time_binary_result(int32_t op, DType a, DType b) {
  const char ka = dtype_kind(a), kb = dtype_kind(b);
  auto bad = [&]() -> DType {
    fail(CA_ETYPE, "ufunc '", op_name(op), "' is not supported for dtypes ", dtype_name(a), " and ", dtype_name(b),
         " (NumPy raises UFuncTypeError)");
  };
  auto integral = [](char k) { return k == 'b' || k == 'i' || k == 'u'; };
  if (dtype_is_string(a) || dtype_is_string(b) || a == CA_RAW || b == CA_RAW) return bad();
  const bool ta = ka == 'M' || ka == 'm', tb = kb == 'M' || kb == 'm';
  if ((!ta && !integral(ka)) || (!tb && !integral(kb))) {
    // timedelta * float, float * timedelta, timedelta / float: a timedelta (NumPy's m8,f8->m8 loops).
    if (op == CA_OP_MUL && ((ka == 'm' && kb == 'f') || (ka == 'f' && kb == 'm'))) return ka == 'm' ? a : b;
    if (op == CA_OP_DIV && ka == 'm' && kb == 'f') return a;
    return bad();
  }
  if ((ta && tb) || is_comparison(op) || op == CA_OP_MAXIMUM || op == CA_OP_MINIMUM)
    (void)time_operand_dtype(a, b);  // the units must have a common one (CA_ETYPE otherwise)
  if ((!ta || !tb) && (ka == 'M' || kb == 'M') && !(op == CA_OP_ADD || op == CA_OP_SUB)) return bad();
  if (!ta && !tb) return bad();
  if (!ta && kb == 'm' && (op == CA_OP_SUB || op == CA_OP_DIV || op == CA_OP_FLOORDIV || op == CA_OP_MOD)) return bad();
  if (!ta && kb == 'M' && op == CA_OP_SUB) return bad();
  const DType t = time_operand_dtype(a, b);
  for (DType x : {a, b}) {
    // A timedelta in years or months converts to a linear unit only by NumPy's unsafe casting.
    const int32_t u = dtype_unit(x);
    if (dtype_is_timedelta(x) && (u == CA_UNIT_Y || u == CA_UNIT_M) && dtype_unit(t) != u)
      fail(CA_ETYPE, "ufunc '", op_name(op), "': cannot cast ", dtype_name(x), " to the unit [", unit_name(dtype_unit(t)),
           "] according to the rule 'same_kind' (NumPy raises UFuncTypeError)");
  }
  switch (op) {
    case CA_OP_ADD:
      if (ka == 'M' && kb == 'M') return bad();
      return t;
    case CA_OP_SUB:
      if (ka == 'm' && kb == 'M') return bad();
      if (ka == 'M' && kb == 'M') return CA_DTYPE_MAKE(CA_TIMEDELTA64, dtype_unit(t));
      return t;
    case CA_OP_MUL:
      if (ta && tb) return bad();
      return t;
    case CA_OP_DIV:
      if (ka != 'm') return bad();
      return tb ? (kb == 'm' ? DType(CA_FLOAT64) : bad()) : t;
    case CA_OP_FLOORDIV:  // timedelta // timedelta is int64, timedelta // int a timedelta
      if (ka != 'm' || (tb && kb != 'm')) return bad();
      return tb ? DType(CA_INT64) : t;
    case CA_OP_MOD:
      if (ka != 'm' || kb != 'm') return bad();
      return t;
    case CA_OP_MAXIMUM:
    case CA_OP_MINIMUM:
      if (!(ta && tb) || ka != kb) return bad();
      return t;
    default:
      if (is_comparison(op)) {
        if (ta != tb && (ka == 'M' || kb == 'M')) return bad();
        if (ta && tb && ka != kb) return bad();
        return CA_BOOL;
      }
      return bad();
  }
}

/// NumPy 1.x's "kind category" for value-based casting: bool 0, integers 1, float and complex 2.
int category(DType t) {
  char k = dtype_kind(t);
  return k == 'b' ? 0 : (k == 'i' || k == 'u') ? 1 : 2;
}

}  // namespace

ScalarValue scalar_value(const ca_scalar_t &s) {
  ScalarValue v;
  v.typed = (s.flags & CA_SCALAR_TYPED) != 0;
  if (s.flags & ~int32_t(CA_SCALAR_TYPED)) fail(CA_EINVAL, "scalar flags ", s.flags, " has unknown bits");
  if (v.typed) {
    if (!dtype_valid(s.kind) || s.kind == CA_RAW) fail(CA_ETYPE, "typed scalar kind ", s.kind, " is not a numeric dtype");
    if (dtype_is_string(s.kind))
      fail(CA_ETYPE, "a scalar cannot be of the string dtype ", dtype_name(s.kind), " (pass strings as 0-d arrays)");
    if (dtype_is_time(s.kind) || s.kind == CA_FLOAT16) {
      v.dtype = s.kind;
      v.kind = dtype_kind(s.kind);
      if (s.kind == CA_FLOAT16) v.re = double(half_to_float(double_to_half(s.re)));
      else v.i = s.i64, v.re = double(s.i64);
      return v;
    }
  } else if (s.kind != CA_BOOL && s.kind != CA_INT64 && s.kind != CA_UINT64 && s.kind != CA_FLOAT64 &&
             s.kind != CA_COMPLEX128) {
    fail(CA_ETYPE, "scalar kind ", s.kind,
         " is not CA_BOOL, CA_INT64, CA_UINT64, CA_FLOAT64 or CA_COMPLEX128 (set CA_SCALAR_TYPED for other dtypes)");
  }
  v.dtype = s.kind;
  v.kind = dtype_kind(s.kind);
  switch (v.kind) {
    case 'b': v.i = s.i64 != 0, v.re = double(v.i); break;
    case 'i': v.i = s.i64, v.re = double(v.i); break;
    case 'u':
      v.u = uint64_t(s.i64), v.re = double(v.u);
      if (!v.typed && v.u < (uint64_t(1) << 63))
        fail(CA_EINVAL, "a Python-int scalar of kind CA_UINT64 must be >= 2**63 (smaller ones are CA_INT64), got ", v.u);
      break;
    case 'f': v.re = s.re; break;
    default: v.re = s.re, v.im = s.im; break;
  }
  // A typed scalar holds a value of its dtype (the narrow integer and float32 values as they convert).
  if (v.typed) {
    dispatch_dtype(v.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, bool>) {
      } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
        if (v.i != int64_t(T(v.i))) fail(CA_EINVAL, "typed scalar value ", v.i, " does not fit ", dtype_name(v.dtype));
      } else if constexpr (std::is_integral_v<T>) {
        if (v.u != uint64_t(T(v.u))) fail(CA_EINVAL, "typed scalar value ", v.u, " does not fit ", dtype_name(v.dtype));
      } else if constexpr (std::is_floating_point_v<T>) {
        v.re = double(T(v.re));
      } else {
        using F = typename T::value_type;
        v.re = double(F(v.re)), v.im = double(F(v.im));
      }
    });
  }
  return v;
}

namespace {

/// The scalar's own dtype: a Python scalar's default (bool, int64, uint64, float64, complex128), or
/// a typed scalar's dtype.
DType scalar_default(const ca_scalar_t &s) { return scalar_value(s).dtype; }

// ---- byte format -----------------------------------------------------------------------------------

constexpr char kMagic[4] = {'C', 'A', 'X', 'P'};
constexpr uint32_t kFormatVersion = 2;
constexpr uint32_t kTransposedBit = uint32_t(1) << 30;  // in an input's dtype word: read transposed
constexpr size_t kHeaderBytes = 4 + 5 * 4;  // magic, version, inputs, instructions, result, ndim
constexpr size_t kInstrBytes = 7 * 4 + 5 * 8;

void put_u32(std::string &o, uint32_t v) {
  for (int i = 0; i < 4; ++i) o.push_back(char((v >> (8 * i)) & 0xff));
}
void put_u64(std::string &o, uint64_t v) {
  for (int i = 0; i < 8; ++i) o.push_back(char((v >> (8 * i)) & 0xff));
}
void put_f64(std::string &o, double d) {
  uint64_t v;
  std::memcpy(&v, &d, 8);
  put_u64(o, v);
}
struct Reader {
  const unsigned char *p;
  size_t n, pos = 0;
  uint32_t u32() {
    if (n - pos < 4) fail(CA_EFORMAT, "fused program: truncated at byte ", pos);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(p[pos + size_t(i)]) << (8 * i);
    pos += 4;
    return v;
  }
  int32_t i32() { return int32_t(u32()); }
  uint64_t u64() {
    uint64_t lo = u32();
    uint64_t hi = u32();
    return lo | (hi << 32);
  }
  double f64() {
    uint64_t v = u64();
    double d;
    std::memcpy(&d, &v, 8);
    return d;
  }
};

// ---- trees -----------------------------------------------------------------------------------------

ExprPtr make_leaf(const ArrayPtr &a) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Leaf;
  e->dtype = a->dtype;
  e->leaf = a;
  return e;
}

ExprPtr make_const(const ca_scalar_t &s, DType dtype) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Const;
  e->dtype = dtype;
  e->scalar = s;
  return e;
}

ExprPtr make_op(int32_t op, DType dtype, std::vector<ExprPtr> args, int32_t param = 0) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Op;
  e->op = op;
  e->dtype = dtype;
  e->param = param;
  e->args = std::move(args);
  return e;
}

/// The dtype an Op node computes in (operands are cast to it), given its operands.
DType compute_dtype(const Expr &e) {
  if (e.op != kOpCast && e.op != kOpWhere && !e.args.empty()) {
    const DType a0 = e.args[0]->dtype, a1 = e.args.size() > 1 ? e.args[1]->dtype : 0;
    if (dtype_is_time(a0) || (a1 && dtype_is_time(a1))) return a1 ? time_operand_dtype(a0, a1) : a0;
    if (dtype_is_string(a0)) return a1 ? dtype_promote(a0, a1) : a0;
  }
  if (e.op == kOpCast) return e.args[0]->dtype;
  switch (op_info(e.op).compute) {
    case OpCompute::Input: return e.args[0]->dtype;
    case OpCompute::InputIfComplex: return dtype_is_complex(e.args[0]->dtype) ? e.args[0]->dtype : e.dtype;
    case OpCompute::Bool: return CA_BOOL;
    case OpCompute::Promoted: return dtype_promote(e.args[0]->dtype, e.args[1]->dtype);
    case OpCompute::Result: break;
  }
  return e.dtype;
}

struct Compiler {
  ExprProgram prog;
  std::vector<ArrayPtr> leaves;
  std::unordered_map<std::string, int32_t> leaf_reg;  // by name
  const std::vector<Index> *shape = nullptr;  // inline generators of this shape
  std::vector<ArrayPtr> gens;
  std::unordered_map<std::string, int32_t> gen_reg;  // by name, once compiled

  bool inline_gen(const ArrayPtr &a) const { return shape && a->gen && a->shape == *shape; }
  std::unordered_map<const Expr *, int32_t> memo;
  std::map<std::pair<int32_t, DType>, int32_t> casts;

  void collect(const ExprPtr &e, std::unordered_map<const Expr *, bool> &seen) {
    if (seen.count(e.get())) return;
    seen[e.get()] = true;
    if (e->kind == Expr::Leaf) {
      if (!e->leaf) fail(CA_EINTERNAL, "expression leaf without an array");
      if (inline_gen(e->leaf)) {
        bool known = false;
        for (auto &g : gens) known |= g->name == e->leaf->name;
        if (!known) gens.push_back(e->leaf);
      } else if (!leaf_reg.count(e->leaf->name)) {
        leaf_reg[e->leaf->name] = int32_t(leaves.size());
        leaves.push_back(e->leaf);
        prog.inputs.push_back(e->leaf->dtype);
      }
    }
    for (auto &a : e->args) collect(a, seen);
  }

  int32_t emit(ExprInstr ins) {
    prog.code.push_back(ins);
    return int32_t(prog.inputs.size() + prog.code.size() - 1);
  }

  int32_t as(int32_t reg, DType t) {
    DType have = prog.reg_dtype(reg);
    if (have == t) return reg;
    auto key = std::make_pair(reg, t);
    auto it = casts.find(key);
    if (it != casts.end()) return it->second;
    // Casts the instruction functions do in steps: float16 to anything but float32/float64 through
    // float32; datetime64/timedelta64 to and from numbers (but float16) through int64.
    DType via = 0;
    if (have == CA_FLOAT16 && t != CA_FLOAT32 && t != CA_FLOAT64 && !dtype_is_string(t)) via = CA_FLOAT32;
    else if (dtype_is_time(have) && !dtype_is_time(t) && t != CA_INT64 && t != CA_FLOAT16) via = CA_INT64;
    else if (dtype_is_time(t) && !dtype_is_time(have) && have != CA_INT64) via = CA_INT64;
    if (via) {
      const int32_t r = as(as(reg, via), t);
      casts[key] = r;
      return r;
    }
    ExprInstr ins;
    ins.op = kOpCast;
    ins.dtype = t;
    ins.in_dtype = have;
    ins.a = reg;
    int32_t r = emit(ins);
    casts[key] = r;
    return r;
  }

  int32_t compile(const ExprPtr &e) {
    auto it = memo.find(e.get());
    if (it != memo.end()) return it->second;
    int32_t r = -1;
    if (e->kind == Expr::Leaf && inline_gen(e->leaf)) {
      auto g = gen_reg.find(e->leaf->name);
      if (g != gen_reg.end()) {
        r = g->second;
      } else {
        r = emit(gen_instr(*e->leaf->gen));
        gen_reg[e->leaf->name] = r;
        prog.gshape = *shape;
        prog.coords = true;
      }
    } else if (e->kind == Expr::Leaf) {
      r = leaf_reg.at(e->leaf->name);
    } else if (e->kind == Expr::Const) {
      ExprInstr ins;
      ins.op = kOpConst;
      ins.dtype = ins.in_dtype = e->dtype;
      const ScalarValue v = scalar_value(e->scalar);
      if (v.kind == 'M' || v.kind == 'm') {
        // A datetime64/timedelta64 constant: the scalar's ticks, converted to the constant's unit.
        if (!dtype_is_time(e->dtype)) fail(CA_ETYPE, "a ", dtype_name(v.dtype), " constant used as ", dtype_name(e->dtype));
        ins.ivalue = time_convert(v.i, dtype_unit(v.dtype), dtype_unit(e->dtype),
                                  dtype_is_datetime(v.dtype) && dtype_is_datetime(e->dtype));
      } else if (dtype_is_time(e->dtype) && (v.kind == 'b' || v.kind == 'i' || v.kind == 'u')) {
        ins.ivalue = v.kind == 'u' ? int64_t(v.u) : v.i;  // an integer as ticks of the unit
      } else if (v.kind == 'b' || v.kind == 'i') {
        ins.value = std::complex<double>(double(v.i), 0);
        ins.ivalue = e->dtype == CA_BOOL ? (v.i != 0) : v.i;
        ins.uvalue = uint64_t(v.i);
      } else if (v.kind == 'u') {
        ins.value = std::complex<double>(double(v.u), 0);
        ins.ivalue = e->dtype == CA_BOOL ? (v.u != 0) : int64_t(v.u);
        ins.uvalue = v.u;
      } else {
        ins.value = std::complex<double>(v.re, v.im);
        ins.ivalue = e->dtype == CA_BOOL ? (v.re != 0 || v.im != 0) : 0;
      }
      r = emit(ins);
    } else if ((e->op == CA_OP_MUL || e->op == CA_OP_DIV) && e->args.size() == 2 && dtype_is_timedelta(e->dtype) &&
               (dtype_is_float(e->args[0]->dtype) || dtype_is_float(e->args[1]->dtype))) {
      // timedelta64 times / divided by a float: ticks scaled in double (NumPy's m8,f8->m8 loops).
      const int tix = dtype_is_timedelta(e->args[0]->dtype) ? 0 : 1;
      const int32_t t = compile(e->args[size_t(tix)]), f = compile(e->args[size_t(1 - tix)]);
      ExprInstr ins;
      ins.op = kOpTimeScale;
      ins.dtype = ins.in_dtype = e->dtype;
      ins.a = as(t, e->dtype);
      ins.b = as(f, CA_FLOAT64);
      ins.ivalue = e->op == CA_OP_DIV;
      r = emit(ins);
    } else {
      ExprInstr ins;
      ins.op = e->op;
      ins.dtype = e->dtype;
      ins.in_dtype = compute_dtype(*e);
      std::vector<int32_t> ops;
      for (auto &a : e->args) ops.push_back(compile(a));
      if (e->op == kOpCast) {
        r = as(ops[0], e->dtype);
        memo[e.get()] = r;
        return r;
      }
      if (e->op == kOpWhere) {
        ins.a = as(ops[0], CA_BOOL);
        ins.b = as(ops[1], ins.in_dtype);
        ins.c = as(ops[2], ins.in_dtype);
      } else {
        if (ops.size() > 0) ins.a = as(ops[0], ins.in_dtype);
        if (ops.size() > 1) ins.b = as(ops[1], ins.in_dtype);
      }
      if (e->op == kOpRoundDec) ins.value = std::complex<double>(double(e->param), 0);
      if (ins.in_dtype == CA_FLOAT16 && e->op != kOpWhere && !half_native(e->op)) {
        // float16 computes in float32 and rounds back to float16 after each operation (NumPy's loops).
        ins.in_dtype = CA_FLOAT32;
        for (int32_t *o : {&ins.a, &ins.b, &ins.c})
          if (*o >= 0) *o = as(*o, CA_FLOAT32);
        const bool back = ins.dtype == CA_FLOAT16;
        if (back) ins.dtype = CA_FLOAT32;
        r = emit(ins);
        if (back) r = as(r, CA_FLOAT16);
        memo[e.get()] = r;
        return r;
      }
      r = emit(ins);
    }
    memo[e.get()] = r;
    return r;
  }
};

/// The number of instructions a tree compiles to (cheap enough: trees are bounded by fusion).
/// Replace leaves by the arrays of the same position after unify_chunks (memoized over the DAG).
ExprPtr replace_leaves(const ExprPtr &e, const std::unordered_map<std::string, ArrayPtr> &repl,
                       std::unordered_map<const Expr *, ExprPtr> &memo) {
  auto it = memo.find(e.get());
  if (it != memo.end()) return it->second;
  ExprPtr r = e;
  if (e->kind == Expr::Leaf) {
    auto f = repl.find(e->leaf->name);
    if (f != repl.end()) r = make_leaf(f->second);
  } else if (e->kind == Expr::Op) {
    std::vector<ExprPtr> args;
    bool changed = false;
    for (auto &a : e->args) {
      args.push_back(replace_leaves(a, repl, memo));
      changed |= args.back() != a;
    }
    if (changed) r = make_op(e->op, e->dtype, std::move(args), e->param);
  }
  memo[e.get()] = r;
  return r;
}

std::vector<Index> broadcast_shapes(const std::vector<const std::vector<Index> *> &shapes) {
  size_t D = 0;
  for (auto *s : shapes) D = std::max(D, s->size());
  std::vector<Index> out(D, 1);
  for (auto *s : shapes) {
    for (size_t k = 0; k < s->size(); ++k) {
      Index e = (*s)[k];
      Index &o = out[D - s->size() + k];
      if (e == o || e == 1) continue;
      if (o == 1) {
        o = e;
        continue;
      }
      std::string msg = "operands could not be broadcast together with shapes";
      for (auto *t : shapes) {
        msg.push_back(' ');
        msg.append(shape_str(*t));
      }
      fail(CA_EINVAL, msg);
    }
  }
  return out;
}

/// Turn a tree into an array: broadcast, unify the leaves' chunks, one `ca.fused` blockwise layer.
/// `operands` are the arrays the new node was built from (for the broadcast check and the fallback
/// when the expression grows too large); `rebuild` makes the same node over leaf operands.
ArrayPtr finish(const char *prefix, ExprPtr tree, const std::vector<ArrayPtr> &operands,
                const std::function<ExprPtr(const std::vector<ExprPtr> &)> &rebuild) {
  std::vector<const std::vector<Index> *> shapes;
  for (auto &a : operands) shapes.push_back(&a->shape);
  std::vector<Index> shape = broadcast_shapes(shapes);

  std::vector<ArrayPtr> leaves, gens;
  ExprProgram prog = compile_expr(tree, leaves, &shape, &gens);
  if (prog.code.size() > kMaxFusedInstructions) {
    std::vector<ExprPtr> ops;
    for (auto &a : operands) ops.push_back(make_leaf(a));
    tree = rebuild(ops);
    leaves.clear();
    gens.clear();
    prog = compile_expr(tree, leaves, &shape, &gens);
  }

  const int32_t D = int32_t(shape.size());
  const std::string out_index = index_letters(size_t(D));
  std::vector<std::string> indices;
  for (auto &l : leaves) {
    if (l->ndim() > D) fail(CA_EINTERNAL, "expression leaf has more dimensions than the result");
    indices.push_back(out_index.substr(size_t(D - l->ndim())));
  }
  std::vector<ArrayPtr> unified = leaves.size() > 1 ? unify_chunks(leaves, indices) : leaves;
  std::unordered_map<std::string, ArrayPtr> repl;
  for (size_t i = 0; i < leaves.size(); ++i)
    if (unified[i] != leaves[i] && unified[i]->name != leaves[i]->name) repl[leaves[i]->name] = unified[i];
  if (!repl.empty()) {
    std::unordered_map<const Expr *, ExprPtr> memo;
    tree = replace_leaves(tree, repl, memo);
  }

  // Output chunks: from a leaf that spans each dimension (not broadcasting along it).
  Chunks chunks(static_cast<size_t>(D));
  for (int32_t d = 0; d < D; ++d) {
    bool found = false;
    for (auto &l : unified) {
      int32_t k = d - (D - l->ndim());
      if (k < 0 || l->shape[size_t(k)] != shape[size_t(d)]) continue;
      chunks[size_t(d)] = l->chunks[size_t(k)];
      found = true;
      break;
    }
    // No input spans it: a generated leaf's chunks (generated leaves have the result's shape).
    if (!found && !gens.empty()) {
      chunks[size_t(d)] = gens[0]->chunks[size_t(d)];
      found = true;
    }
    if (!found) chunks[size_t(d)] = {shape[size_t(d)]};
  }

  fuse_transposed_leaves(prog, unified, indices, shape);
  const std::string bytes = prog.serialize();
  Tokenizer tok(prefix);
  tok.add_data(bytes.data(), bytes.size());  // the 4-lane hash: the byte-wise one was the top cost of a small op
  std::vector<ArrayArg> args;
  args.push_back(ArrayArg::lit(ca_arg_bytes(bytes.data(), bytes.size())));
  if (prog.coords) {
    args.push_back(ArrayArg::special(BlockwiseArg::BlockOrigin));
    args.push_back(ArrayArg::special(BlockwiseArg::BlockShape));
  }
  for (size_t i = 0; i < unified.size(); ++i) {
    tok.add(unified[i]->name).add(indices[i]).add(unified[i]->chunks);
    args.push_back(ArrayArg::of(unified[i], indices[i]));
  }
  tok.add(chunks);
  const DType dtype = prog.reg_dtype(prog.out);
  ArrayPtr base = blockwise_layer(tok.name(), "ca.fused", out_index, args, chunks, dtype);
  auto arr = std::make_shared<Array>(*base);
  arr->expr = std::move(tree);
  return arr;
}

ExprPtr node_of(const ArrayPtr &a) { return expr_of(a); }

void check_scalar_pow(int32_t op, DType result, const ca_scalar_t &s, bool scalar_first) {
  if (op != CA_OP_POW || scalar_first || !dtype_is_integer(result)) return;
  const ScalarValue v = scalar_value(s);
  if (v.kind == 'i' && v.i < 0)
    fail(CA_EINVAL, "Integers to negative integer powers are not allowed (exponent ", v.i, ")");
}

}  // namespace

// ---- byte format -----------------------------------------------------------------------------------

std::string ExprProgram::serialize() const {
  std::string o;
  o.reserve(kHeaderBytes + inputs.size() * 4 + code.size() * kInstrBytes);
  o.append(kMagic, 4);
  put_u32(o, kFormatVersion);
  put_u32(o, uint32_t(inputs.size()));
  put_u32(o, uint32_t(code.size()));
  put_u32(o, uint32_t(out));
  put_u32(o, coords ? uint32_t(gshape.size()) : UINT32_MAX);
  if (coords)
    for (Index e : gshape) put_u64(o, uint64_t(e));
  for (size_t i = 0; i < inputs.size(); ++i) put_u32(o, uint32_t(inputs[i]) | (is_transposed(i) ? kTransposedBit : 0));
  for (const ExprInstr &i : code) {
    put_u32(o, uint32_t(i.op));
    put_u32(o, uint32_t(i.dtype));
    put_u32(o, uint32_t(i.in_dtype));
    put_u32(o, uint32_t(i.a));
    put_u32(o, uint32_t(i.b));
    put_u32(o, uint32_t(i.c));
    put_f64(o, i.value.real());
    put_f64(o, i.value.imag());
    put_u64(o, uint64_t(i.ivalue));
    put_u64(o, i.uvalue);
    put_u32(o, uint32_t(i.gen));
    put_u64(o, uint64_t(i.ivalue2));
  }
  return o;
}

ExprProgram ExprProgram::parse(const void *data, size_t n) {
  if (!data && n) fail(CA_EFORMAT, "fused program: null data");
  Reader r{static_cast<const unsigned char *>(data), n};
  if (n < kHeaderBytes || std::memcmp(data, kMagic, 4) != 0)
    fail(CA_EFORMAT, "fused program: bad magic (not a chunkarray expression program)");
  r.pos = 4;
  uint32_t version = r.u32();
  if (version != kFormatVersion) fail(CA_EFORMAT, "fused program: unsupported format version ", version);
  uint32_t nin = r.u32(), ncode = r.u32();
  int32_t out = r.i32();
  uint32_t gnd = r.u32();
  ExprProgram p;
  if (gnd != UINT32_MAX) {
    if (gnd > CA_MAX_NDIM) fail(CA_EFORMAT, "fused program: ", gnd, " dimensions");
    p.coords = true;
    for (uint32_t d = 0; d < gnd; ++d) {
      Index e = Index(r.u64());
      if (e < 0) fail(CA_EFORMAT, "fused program: negative array extent ", e);
      p.gshape.push_back(e);
    }
  }
  const size_t rest = n - r.pos;
  if (nin > rest / 4 || ncode > rest / kInstrBytes || size_t(nin) * 4 + size_t(ncode) * kInstrBytes != rest)
    fail(CA_EFORMAT, "fused program: ", nin, " inputs and ", ncode, " instructions do not match its size of ", n,
         " bytes");
  p.inputs.resize(nin);
  auto check_dtype = [](DType t, const char *what, size_t k) {
    if (!dtype_valid(t) || t == CA_RAW) fail(CA_EFORMAT, "fused program: ", what, " ", k, " has invalid dtype ", t);
  };
  for (uint32_t i = 0; i < nin; ++i) {
    const uint32_t word = r.u32();
    if (word & kTransposedBit) {
      p.transposed.resize(nin, 0);
      p.transposed[i] = 1;
    }
    p.inputs[i] = DType(word & ~kTransposedBit);
    check_dtype(p.inputs[i], "input", i);
  }
  p.code.resize(ncode);
  for (uint32_t k = 0; k < ncode; ++k) {
    ExprInstr &ins = p.code[k];
    ins.op = r.i32();
    ins.dtype = r.i32();
    ins.in_dtype = r.i32();
    ins.a = r.i32();
    ins.b = r.i32();
    ins.c = r.i32();
    double re = r.f64(), im = r.f64();
    ins.value = {re, im};
    ins.ivalue = int64_t(r.u64());
    ins.uvalue = r.u64();
    ins.gen = r.i32();
    ins.ivalue2 = int64_t(r.u64());
    if (!known_op(ins.op)) fail(CA_EFORMAT, "fused program: instruction ", k, " has unknown op ", ins.op);
    check_dtype(ins.dtype, "instruction", k);
    check_dtype(ins.in_dtype, "instruction", k);
    if (ins.op == kOpGen) {
      if (!p.coords) fail(CA_EFORMAT, "fused program: instruction ", k, " generates but the program has no shape");
      if (ins.dtype != ins.in_dtype) fail(CA_EFORMAT, "fused program: generator ", k, " changes dtype");
      gen_check(gen_spec_of(ins));
    }
    if (ins.op == kOpTimeScale && (!dtype_is_timedelta(ins.dtype) || ins.in_dtype != ins.dtype ||
                                   (ins.ivalue != 0 && ins.ivalue != 1)))
      fail(CA_EFORMAT, "fused program: instruction ", k, " scales a ", dtype_name(ins.dtype), " (mode ", ins.ivalue, ")");
    const int arity = ins.op == kOpConst || ins.op == kOpGen                          ? 0
                      : ins.op == kOpWhere                                           ? 3
                      : is_binary_op(ins.op) || ins.op == kOpTimeScale ? 2
                                                                                     : 1;
    const int32_t limit = int32_t(nin + k);
    int32_t ops[3] = {ins.a, ins.b, ins.c};
    for (int j = 0; j < 3; ++j) {
      if (j < arity) {
        if (ops[j] < 0 || ops[j] >= limit)
          fail(CA_EFORMAT, "fused program: instruction ", k, " reads register ", ops[j], " (registers 0..", limit - 1,
               " are defined)");
        DType want = ins.op == kOpWhere       ? (j == 0 ? CA_BOOL : ins.dtype)
                     : ins.op == kOpTimeScale ? (j == 1 ? DType(CA_FLOAT64) : ins.in_dtype)
                                              : ins.in_dtype;
        if (p.reg_dtype(ops[j]) != want)
          fail(CA_EFORMAT, "fused program: instruction ", k, " operand ", j, " has dtype ",
               dtype_name(p.reg_dtype(ops[j])), ", expected ", dtype_name(want));
      } else if (ops[j] != -1) {
        fail(CA_EFORMAT, "fused program: instruction ", k, " has a stray operand register ", ops[j]);
      }
    }
    if (ins.op == kOpRoundDec && !(std::fabs(re) <= 400 && re == std::trunc(re)))
      fail(CA_EFORMAT, "fused program: instruction ", k, " has bad decimals ", re);
  }
  if (out < 0 || size_t(out) >= size_t(nin) + ncode)
    fail(CA_EFORMAT, "fused program: result register ", out, " out of range");
  p.out = out;
  return p;
}

// ---- type rules ------------------------------------------------------------------------------------

DType unary_result_dtype(int32_t op, DType t) {
  if (dtype_is_time(t)) {
    switch (op) {
      case CA_OP_ISNAN:  // np.isnat, and np.isnan of datetimes (NumPy >= 1.18)
      case CA_OP_ISFINITE:
      case CA_OP_ISINF: return CA_BOOL;
      case CA_OP_NEG:
      case CA_OP_ABS:
      case CA_OP_SIGN:
        if (dtype_is_timedelta(t)) return t;
        break;
      default: break;
    }
    fail(CA_ETYPE, "ufunc '", op_name(op) ? op_name(op) : "?", "' is not supported for ", dtype_name(t),
         " (NumPy raises UFuncTypeError)");
  }
  if (dtype_is_string(t))
    fail(CA_ETYPE, "ufunc '", op_name(op) ? op_name(op) : "?", "' is not supported for the string dtype ", dtype_name(t));
  check_numeric(t);
  const char k = dtype_kind(t);
  const bool inexact = k == 'f' || k == 'c';
  if (!is_unary_op(op)) fail(CA_EINVAL, "op ", op, " is not a unary elementwise operation");
  switch (op_info(op).rule) {
    case OpRule::SameNoBool:
      if (k == 'b') fail(CA_ETYPE, op_name(op), " is not supported for bool (NumPy raises TypeError)");
      return t;
    case OpRule::RealPart: return real_dtype(t);
    case OpRule::Math: return inexact ? t : math_float(t);
    case OpRule::Rint:  // np.rint: a float loop only (float16 for bool/8-bit, float32 for 16-bit ints),
                        // float64 for wider integers
      return inexact ? t : math_float(t);
    case OpRule::RealMath:
      if (k == 'c') fail(CA_ETYPE, op_name(op), " is not supported for complex dtypes");
      return inexact ? t : math_float(t);
    case OpRule::Bool: return CA_BOOL;
    case OpRule::Bitwise:
      if (inexact)
        fail(CA_ETYPE, op_name(op), " (bitwise not) is only defined for integer and bool dtypes, not ", dtype_name(t));
      return t;
    case OpRule::BoolToInt8: return k == 'b' ? CA_INT8 : t;
    case OpRule::Same: return t;
    case OpRule::BoolReal:
      if (k == 'c') fail(CA_ETYPE, op_name(op), " is not supported for complex dtypes");
      return CA_BOOL;
    case OpRule::MathF64: return inexact ? t : CA_FLOAT64;
    case OpRule::RealMathF64:
      if (k == 'c') fail(CA_ETYPE, op_name(op), " is not supported for complex dtypes");
      return inexact ? t : CA_FLOAT64;
    case OpRule::Angle:  // np.angle: arctan2(0, x) with a Python 0 (bool: float64 by value-based casting)
      return k == 'c' ? real_dtype(t) : k == 'b' ? CA_FLOAT64 : inexact ? t : math_float(t);
    case OpRule::Int32Real:
      if (k == 'c') fail(CA_ETYPE, op_name(op), " is not supported for complex dtypes");
      return CA_INT32;
    default: fail(CA_EINTERNAL, "ops.def: rule of unary op ", op_name(op), " is a binary rule");
  }
}

DType binary_result_dtype(int32_t op, DType a, DType b) {
  if (!is_binary_op(op)) fail(CA_EINVAL, "op ", op, " is not a binary elementwise operation");
  if (dtype_is_string(a) || dtype_is_string(b)) {
    if (is_comparison(op) && dtype_is_string(a) && dtype_is_string(b)) {
      (void)dtype_promote(a, b);
      return CA_BOOL;
    }
    fail(CA_ETYPE, "ufunc '", op_name(op), "' is not supported for dtypes ", dtype_name(a) ? dtype_name(a) : "?",
         " and ", dtype_name(b) ? dtype_name(b) : "?", " (arithmetic on strings; NumPy raises UFuncTypeError)");
  }
  if (dtype_is_time(a) || dtype_is_time(b)) {
    if (!dtype_valid(a) || !dtype_valid(b)) fail(CA_ETYPE, "invalid dtype ", dtype_valid(a) ? b : a);
    return time_binary_result(op, a, b);
  }
  check_numeric(a);
  check_numeric(b);
  if (!is_binary_op(op)) fail(CA_EINVAL, "op ", op, " is not a binary elementwise operation");
  const DType p = dtype_promote(a, b);
  const char k = dtype_kind(p);
  switch (op_info(op).rule) {
    case OpRule::Same: return p;
    case OpRule::Subtract:
      if (k == 'b')
        fail(CA_ETYPE, "numpy boolean subtract, the `-` operator, is not supported; use logical_xor instead");
      return p;
    case OpRule::TrueDivide: return (k == 'b' || k == 'i' || k == 'u') ? CA_FLOAT64 : p;
    case OpRule::FloorMod:
      if (k == 'c') fail(CA_ETYPE, op_name(op), " is not supported for complex dtypes");
      return k == 'b' ? CA_INT8 : p;
    case OpRule::Power: return k == 'b' ? CA_INT8 : p;
    case OpRule::FloatLoop:
      if (k == 'c') fail(CA_ETYPE, op_name(op), " is not supported for complex dtypes");
      // The float loop both operands cast to safely (uint16 with int8: float32).
      return dtype_promote(dtype_is_float(a) ? a : math_float(a), dtype_is_float(b) ? b : math_float(b));
    case OpRule::FloatPower: return k == 'c' ? CA_COMPLEX128 : CA_FLOAT64;
    case OpRule::Ldexp: {
      // NumPy's loops: (float16|float32|float64, int32|int64); the first operand casts to its float.
      const char ka = dtype_kind(a), kb = dtype_kind(b);
      if (ka == 'c' || !(kb == 'b' || kb == 'i' || (kb == 'u' && b != CA_UINT64)))
        fail(CA_ETYPE, "ufunc 'ldexp' is not supported for dtypes ", dtype_name(a), " and ", dtype_name(b),
             " (the first operand must be real, the second an integer that casts safely to int64)");
      return ka == 'f' ? a : math_float(a);
    }
    case OpRule::Bitwise:
      if (k == 'f' || k == 'c')
        fail(CA_ETYPE, op_name(op), " is only defined for integer and bool dtypes, not ", dtype_name(p));
      return p;
    case OpRule::Shift:
      if (k == 'f' || k == 'c')
        fail(CA_ETYPE, op_name(op), " is only defined for integer and bool dtypes, not ", dtype_name(p));
      return k == 'b' ? CA_INT8 : p;
    case OpRule::Bool: return CA_BOOL;  // comparisons, logical
    default: fail(CA_EINTERNAL, "ops.def: rule of binary op ", op_name(op), " is a unary rule");
  }
}

DType scalar_promote(DType array_dtype, const ca_scalar_t &s) {
  const ScalarValue sv = scalar_value(s);
  if (dtype_is_time(array_dtype) || dtype_is_time(sv.dtype)) {
    // With a time array a Python int is ticks (an int64 operand); a typed scalar is its dtype.
    if (sv.typed) return dtype_is_time(array_dtype) && dtype_is_time(sv.dtype) ? dtype_promote(array_dtype, sv.dtype) : sv.dtype;
    if (sv.kind == 'i' || sv.kind == 'b') return CA_INT64;
    if (sv.kind == 'f') return CA_FLOAT64;  // timedelta * 1.5, timedelta / 2.0 (the op's rule checks the rest)
    fail(CA_EUNSUPPORTED, "a Python ", sv.kind == 'c' ? "complex" : "int >= 2**63", " scalar with ",
         dtype_name(array_dtype), " is not supported (use an integer number of ticks or a timedelta64)");
  }
  check_numeric(array_dtype);
  // A typed (NumPy) scalar promotes as an array of its dtype (NEP 50).
  if (sv.typed) return dtype_promote(array_dtype, sv.dtype);
  const DType def = sv.dtype;
  // NumPy 1.x: a Python scalar is value-based only when its category does not exceed the array's.
  if (category(def) > category(array_dtype)) return dtype_promote(array_dtype, def);
  DType min_t = def;
  bool small_unsigned = false;  // a non-negative value that also fits the signed type of that size
  switch (s.kind) {
    case CA_BOOL: min_t = CA_BOOL; break;
    case CA_UINT64: min_t = CA_UINT64; break;  // a Python int >= 2**63
    case CA_INT64: {
      const int64_t v = s.i64;
      if (v >= 0) {
        if (v <= 255) min_t = CA_UINT8, small_unsigned = v <= 127;
        else if (v <= 65535) min_t = CA_UINT16, small_unsigned = v <= 32767;
        else if (v <= 4294967295LL) min_t = CA_UINT32, small_unsigned = v <= 2147483647LL;
        else min_t = CA_UINT64, small_unsigned = true;  // every int64 value fits int64
      } else {
        min_t = v >= -128 ? CA_INT8 : v >= -32768 ? CA_INT16 : v >= -2147483648LL ? CA_INT32 : CA_INT64;
      }
      break;
    }
    case CA_FLOAT64: {
      // float16 if in its range, float32 if in its range (no float16 here: both are "float32 or less").
      // NumPy's min_scalar_type: float16 strictly inside +-65000 (and nan, inf), float32 inside its range.
      const double a = std::fabs(s.re);
      min_t = (std::isnan(s.re) || std::isinf(s.re) || a < 65000.0)   ? CA_FLOAT16
              : a <= 3.4028234663852886e38 ? CA_FLOAT32
                                           : CA_FLOAT64;
      break;
    }
    case CA_COMPLEX128: {
      auto fits = [](double x) { return std::isnan(x) || std::isinf(x) || std::fabs(x) <= 3.4028234663852886e38; };
      min_t = fits(s.re) && fits(s.im) ? CA_COMPLEX64 : CA_COMPLEX128;
      break;
    }
    default: break;
  }
  if (small_unsigned) {
    const char k = dtype_kind(array_dtype);
    if (k != 'b' && k != 'u')
      min_t = min_t == CA_UINT8 ? CA_INT8 : min_t == CA_UINT16 ? CA_INT16 : min_t == CA_UINT32 ? CA_INT32 : CA_INT64;
  }
  return dtype_promote(array_dtype, min_t);
}

// ---- trees and builders ----------------------------------------------------------------------------

ExprPtr expr_of(const ArrayPtr &a) {
  if (!a) fail(CA_EINVAL, "array is null");
  if (a->expr) return a->expr;
  return make_leaf(a);
}

ArrayPtr transpose_source(const ArrayPtr &l) {
  if (!l || l->expr || l->gen || l->ndim() != 2 || !l->graph) return nullptr;
  const Layer *layer = l->graph->find(l->name);
  if (!layer || layer->kind() != LayerKind::Blockwise) return nullptr;
  const auto &bl = static_cast<const BlockwiseLayer &>(*layer);
  if (bl.kernel() != "ca.shape.transpose" || bl.args().size() != 2) return nullptr;
  const BlockwiseArg &ref = bl.args()[0], &axes = bl.args()[1];
  if (!ref.is_ref || ref.dims.size() != 2 || ref.dims[0].kind != DimMap::Out || ref.dims[0].out_dim != 1 ||
      ref.dims[1].kind != DimMap::Out || ref.dims[1].out_dim != 0 || ref.dep_slot < 0 ||
      size_t(ref.dep_slot) >= bl.deps().size())
    return nullptr;
  if (axes.is_ref || axes.literal.kind != CA_ARG_TUPLE || axes.tuple_payload != std::vector<int64_t>{1, 0})
    return nullptr;
  // The source over the layers it needs (l's graph without the transpose layer and whatever only
  // it used), so the fused graph holds no transpose tasks nobody reads.
  const std::string &src = bl.deps()[size_t(ref.dep_slot)];
  std::unordered_set<std::string> need{src};
  const auto &layers = l->graph->layers();
  for (size_t i = layers.size(); i-- > 0;)
    if (need.count(layers[i]->name()))
      for (const std::string &d : layers[i]->deps()) need.insert(d);
  auto g = std::make_shared<Graph>();
  for (const LayerPtr &x : layers)
    if (need.count(x->name())) g->add_layer(x);
  return array_from_layer(std::move(g), src, Chunks{l->chunks[1], l->chunks[0]}, l->dtype);
}

void fuse_transposed_leaves(ExprProgram &p, std::vector<ArrayPtr> &leaves, std::vector<std::string> &indices,
                            const std::vector<Index> &shape) {
  // Known extents only (kernels derive unknown block extents from their leaves' unswapped shapes).
  if (shape.size() != 2 || shape[0] < 0 || shape[1] < 0 || leaves.size() != p.inputs.size() ||
      indices.size() != leaves.size())
    return;
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (p.is_transposed(i) || leaves[i]->shape != shape || indices[i].size() != 2) continue;
    ArrayPtr src = transpose_source(leaves[i]);
    if (!src || src->dtype != p.inputs[i]) continue;
    leaves[i] = std::move(src);
    indices[i] = {indices[i][1], indices[i][0]};
    p.transposed.resize(p.inputs.size(), 0);
    p.transposed[i] = 1;
  }
}

ExprProgram compile_expr(const ExprPtr &e, std::vector<ArrayPtr> &leaves, const std::vector<Index> *shape,
                         std::vector<ArrayPtr> *gens) {
  if (!e) fail(CA_EINVAL, "expression is null");
  Compiler c;
  c.shape = shape;
  std::unordered_map<const Expr *, bool> seen;
  c.collect(e, seen);
  c.prog.out = c.compile(e);
  leaves = std::move(c.leaves);
  if (gens) *gens = std::move(c.gens);
  return std::move(c.prog);
}

ExprInstr gen_instr(const GenSpec &g) {
  ExprInstr ins;
  ins.op = kOpGen;
  ins.dtype = ins.in_dtype = g.dtype;
  ins.gen = g.kind;
  ins.value = std::complex<double>(g.p0, g.p1);
  ins.ivalue = g.i0;
  ins.ivalue2 = g.i1;
  ins.uvalue = g.seed;
  return ins;
}

GenSpec gen_spec_of(const ExprInstr &ins) {
  GenSpec g;
  g.kind = ins.gen;
  g.dtype = ins.dtype;
  g.p0 = ins.value.real();
  g.p1 = ins.value.imag();
  g.i0 = ins.ivalue;
  g.i1 = ins.ivalue2;
  g.seed = ins.uvalue;
  return g;
}

GenCoords gen_coords_from_args(const ExprProgram &p, const ca_arg_t &origin, const ca_arg_t &shape) {
  if (origin.kind != CA_ARG_TUPLE || shape.kind != CA_ARG_TUPLE)
    fail(CA_EINVAL, "a generating program takes its block's origin and shape (tuples)");
  if (origin.u.tuple.len != p.gshape.size() || shape.u.tuple.len != p.gshape.size())
    fail(CA_EINVAL, "a generating program over a ", p.gshape.size(), "-d array got a ", origin.u.tuple.len,
         "-d block origin and a ", shape.u.tuple.len, "-d block shape");
  for (size_t d = 0; d < p.gshape.size(); ++d) {
    const Index o = origin.u.tuple.items[d], e = shape.u.tuple.items[d];
    if (o < 0 || e < 0 || o > p.gshape[d] - e)
      fail(CA_EINVAL, "block at ", o, " of extent ", e, " lies outside the array's extent ", p.gshape[d],
           " along axis ", d);
  }
  return GenCoords{origin.u.tuple.items, shape.u.tuple.items, int32_t(p.gshape.size())};
}

ArrayPtr elementwise_unary(int32_t op, const ArrayPtr &a) {
  if (!a) fail(CA_EINVAL, "array is null");
  const DType dt = unary_result_dtype(op, a->dtype);
  auto rebuild = [op, dt](const std::vector<ExprPtr> &o) { return make_op(op, dt, {o[0]}); };
  return finish(op_name(op), rebuild({node_of(a)}), {a}, rebuild);
}

ArrayPtr elementwise_binary(int32_t op, const ArrayPtr &a, const ArrayPtr &b) {
  if (!a || !b) fail(CA_EINVAL, "array is null");
  const DType dt = binary_result_dtype(op, a->dtype, b->dtype);
  auto rebuild = [op, dt](const std::vector<ExprPtr> &o) { return make_op(op, dt, {o[0], o[1]}); };
  return finish(op_name(op), rebuild({node_of(a), node_of(b)}), {a, b}, rebuild);
}

ArrayPtr elementwise_scalar(int32_t op, const ArrayPtr &a, const ca_scalar_t &s, bool scalar_first) {
  if (!a) fail(CA_EINVAL, "array is null");
  // A typed scalar is an operand of its own dtype, as an array would be (arctan2's loop follows it).
  DType ct = (s.flags & CA_SCALAR_TYPED) ? scalar_value(s).dtype : scalar_promote(a->dtype, s);
  if (s.kind == CA_INT64 && !(s.flags & CA_SCALAR_TYPED) && dtype_is_integer(a->dtype) &&
      (op == CA_OP_FLOORDIV || op == CA_OP_MOD || op == CA_OP_BITAND || op == CA_OP_BITOR || op == CA_OP_BITXOR ||
       op == CA_OP_FMOD || op == CA_OP_LEFT_SHIFT || op == CA_OP_RIGHT_SHIFT)) {
    // These ufuncs resolve their loop by NumPy's linear search (first loop the array casts to safely
    // and the value fits), not result_type: uint8 // 300 is int16 where uint8 + 300 is uint16.
    const DType order[] = {CA_INT8, CA_UINT8, CA_INT16, CA_UINT16, CA_INT32, CA_UINT32, CA_INT64, CA_UINT64};
    auto fits = [](int64_t v, DType t) {
      switch (t) {
        case CA_INT8: return v >= -128 && v <= 127;
        case CA_UINT8: return v >= 0 && v <= 255;
        case CA_INT16: return v >= -32768 && v <= 32767;
        case CA_UINT16: return v >= 0 && v <= 65535;
        case CA_INT32: return v >= INT32_MIN && v <= INT32_MAX;
        case CA_UINT32: return v >= 0 && v <= int64_t(UINT32_MAX);
        case CA_INT64: return true;
        default: return v >= 0;
      }
    };
    for (DType t : order)
      if (dtype_promote(a->dtype, t) == t && fits(s.i64, t)) {
        ct = t;
        break;
      }
  }
  if ((s.kind == CA_INT64 || s.kind == CA_BOOL) && !(s.flags & CA_SCALAR_TYPED) && op == CA_OP_LDEXP && !scalar_first)
    ct = s.kind == CA_BOOL ? CA_BOOL : CA_INT64;  // the exponent: its own integer type, not promoted with the array
  if (s.kind == CA_INT64 && !(s.flags & CA_SCALAR_TYPED) && op_info(op).rule == OpRule::FloatLoop &&
      dtype_is_integer(a->dtype)) {
    // arctan2's (hypot's, ...) float loop takes the value's own smallest integer type (uint16 array with -1: int8,
    // float32), not its promotion with the array (int32, which would make it float64).
    const int64_t v = s.i64;
    ct = v >= -128 && v <= 255 ? (v < 0 ? CA_INT8 : CA_UINT8)
         : v >= -32768 && v <= 65535 ? (v < 0 ? CA_INT16 : CA_UINT16)
                                     : CA_INT64;
  }
  const DType dt = scalar_first ? binary_result_dtype(op, ct, a->dtype) : binary_result_dtype(op, a->dtype, ct);
  check_scalar_pow(op, dt, s, scalar_first);
  ExprPtr c = make_const(s, ct);
  auto rebuild = [op, dt, c, scalar_first](const std::vector<ExprPtr> &o) {
    return scalar_first ? make_op(op, dt, {c, o[0]}) : make_op(op, dt, {o[0], c});
  };
  return finish(op_name(op), rebuild({node_of(a)}), {a}, rebuild);
}

ArrayPtr elementwise_where(const ArrayPtr &cond, const ArrayPtr &a, const ArrayPtr &b, const ca_scalar_t &sa,
                           const ca_scalar_t &sb) {
  if (!cond) fail(CA_EINVAL, "where: condition is null");
  check_numeric(cond->dtype);
  DType dt;
  if (a && b) dt = dtype_promote(a->dtype, b->dtype);
  else if (a) dt = scalar_promote(a->dtype, sb);
  else if (b) dt = scalar_promote(b->dtype, sa);
  else dt = dtype_promote(scalar_default(sa), scalar_default(sb));
  for (const ArrayPtr &x : {a, b})
    if (x && (dtype_is_time(x->dtype) || dtype_is_string(x->dtype)) && dtype_kind(dt) != dtype_kind(x->dtype))
      fail(CA_ETYPE, "where: ", dtype_name(x->dtype), " and a scalar of another kind have no common dtype");
  std::vector<ArrayPtr> operands{cond};
  if (a) operands.push_back(a);
  if (b) operands.push_back(b);
  ExprPtr ca_ = a ? nullptr : make_const(sa, dt);
  ExprPtr cb_ = b ? nullptr : make_const(sb, dt);
  const bool has_a = bool(a), has_b = bool(b);
  auto rebuild = [dt, ca_, cb_, has_a, has_b](const std::vector<ExprPtr> &o) {
    size_t i = 1;
    ExprPtr x = has_a ? o[i++] : ca_;
    ExprPtr y = has_b ? o[i++] : cb_;
    return make_op(kOpWhere, dt, {o[0], x, y});
  };
  std::vector<ExprPtr> nodes;
  for (auto &op : operands) nodes.push_back(node_of(op));
  return finish("where", rebuild(nodes), operands, rebuild);
}

ArrayPtr elementwise_clip(const ArrayPtr &a, const ca_scalar_t *lo, const ca_scalar_t *hi) {
  if (!a) fail(CA_EINVAL, "array is null");
  if (!lo && !hi) fail(CA_EINVAL, "clip: one of the lower and upper bounds must be given");
  DType dt = a->dtype;
  if (lo) dt = scalar_promote(dt, *lo);
  if (hi) dt = scalar_promote(dt, *hi);
  ExprPtr clo = lo ? make_const(*lo, dt) : nullptr;
  ExprPtr chi = hi ? make_const(*hi, dt) : nullptr;
  auto rebuild = [dt, clo, chi](const std::vector<ExprPtr> &o) {
    ExprPtr x = o[0];
    if (clo) x = make_op(CA_OP_MAXIMUM, dt, {x, clo});
    if (chi) x = make_op(CA_OP_MINIMUM, dt, {x, chi});
    return x;
  };
  return finish("clip", rebuild({node_of(a)}), {a}, rebuild);
}

ArrayPtr elementwise_astype(const ArrayPtr &a, DType dtype) {
  if (!a) fail(CA_EINVAL, "array is null");
  if (!dtype_valid(a->dtype) || a->dtype == CA_RAW) fail(CA_ETYPE, "astype: the array's dtype ", a->dtype, " is not castable");
  if (!dtype_valid(dtype) || dtype == CA_RAW) fail(CA_ETYPE, "astype: dtype ", dtype, " is not a valid target dtype");
  if (dtype_is_string(a->dtype) != dtype_is_string(dtype)) {
    // Numbers <-> text as NumPy (str of each value; Python's int()/float() of each text). Not yet:
    // datetime64/timedelta64 <-> ISO text, complex from text.
    const DType other = dtype_is_string(dtype) ? a->dtype : dtype;
    if (dtype_is_time(other) || (dtype_is_string(a->dtype) && dtype_is_complex(dtype)))
      fail(CA_EUNSUPPORTED, "astype from ", dtype_name(a->dtype), " to ", dtype_name(dtype),
           " is not supported (text casts to and from bool, integer and float dtypes, and from complex)");
  }
  if (dtype == a->dtype) return a;
  auto rebuild = [dtype](const std::vector<ExprPtr> &o) { return make_op(kOpCast, dtype, {o[0]}); };
  return finish("astype", rebuild({node_of(a)}), {a}, rebuild);
}

ArrayPtr elementwise_round(const ArrayPtr &a, int32_t decimals) {
  if (!a) fail(CA_EINVAL, "array is null");
  check_numeric(a->dtype);
  if (decimals < -400 || decimals > 400) fail(CA_EINVAL, "round: decimals ", decimals, " out of range");
  // np.round keeps integer dtypes (unchanged for decimals >= 0); rint (CA_OP_ROUND) gives floats.
  if (dtype_is_integer(a->dtype) && decimals >= 0) return a;
  if (decimals == 0) return elementwise_unary(CA_OP_ROUND, a);  // bool: rint's float (NumPy: float16)
  if (a->dtype == CA_BOOL) fail(CA_ETYPE, "round with decimals is not supported for bool");
  const DType dt = a->dtype;
  auto rebuild = [dt, decimals](const std::vector<ExprPtr> &o) { return make_op(kOpRoundDec, dt, {o[0]}, decimals); };
  return finish("round", rebuild({node_of(a)}), {a}, rebuild);
}

namespace {
ca_scalar_t float_scalar(double v, DType typed = 0) {
  ca_scalar_t s{};
  s.kind = typed ? typed : CA_FLOAT64;
  s.flags = typed ? CA_SCALAR_TYPED : 0;
  s.re = v;
  return s;
}
}  // namespace

ArrayPtr elementwise_isclose(const ArrayPtr &a, const ArrayPtr &b, double rtol, double atol, bool equal_nan) {
  if (!a || !b) fail(CA_EINVAL, "isclose: array is null");
  // np.isclose: y as result_type(y, 1.0); |x - y| <= atol + rtol * |y| where both are finite, x == y
  // elsewhere, and nan == nan with equal_nan. One fused expression.
  ArrayPtr y = b;
  const char k = dtype_kind(b->dtype);
  if (k == 'b' || k == 'i' || k == 'u') y = elementwise_astype(b, CA_FLOAT64);
  ArrayPtr diff = elementwise_unary(CA_OP_ABS, elementwise_binary(CA_OP_SUB, a, y));
  ArrayPtr tol = elementwise_scalar(CA_OP_MUL, elementwise_unary(CA_OP_ABS, y), float_scalar(rtol), true);
  tol = elementwise_scalar(CA_OP_ADD, tol, float_scalar(atol), true);
  ArrayPtr within = elementwise_binary(CA_OP_LE, diff, tol);
  ArrayPtr finite = elementwise_binary(CA_OP_AND, elementwise_unary(CA_OP_ISFINITE, a), elementwise_unary(CA_OP_ISFINITE, y));
  ArrayPtr r = elementwise_where(finite, within, elementwise_binary(CA_OP_EQ, a, y), ca_scalar_t{}, ca_scalar_t{});
  if (equal_nan)
    r = elementwise_binary(CA_OP_OR, r, elementwise_binary(CA_OP_AND, elementwise_unary(CA_OP_ISNAN, a),
                                                           elementwise_unary(CA_OP_ISNAN, y)));
  return r;
}

ArrayPtr elementwise_nan_to_num(const ArrayPtr &a, double nan, const double *posinf, const double *neginf) {
  if (!a) fail(CA_EINVAL, "nan_to_num: array is null");
  ArrayPtr r = elementwise_unary(CA_OP_NAN_TO_NUM, a);  // the defaults; integers and bool unchanged
  const char k = dtype_kind(a->dtype);
  if (k != 'f' && k != 'c') return r;
  if (nan == 0 && !std::signbit(nan) && !posinf && !neginf) return r;
  if (k == 'c')
    fail(CA_EUNSUPPORTED, "nan_to_num: replacement values other than the defaults (nan=0, posinf/neginf the "
         "largest finite values) are not supported for ", dtype_name(a->dtype));
  // The values cast to the array's dtype (NumPy's copyto), replacing where the input is nan / +-inf.
  const ca_scalar_t none{};
  auto put = [&](int32_t test, double v) {
    r = elementwise_where(elementwise_unary(test, a), nullptr, r, float_scalar(v, a->dtype), none);
  };
  if (nan != 0 || std::signbit(nan)) put(CA_OP_ISNAN, nan);
  if (posinf) put(CA_OP_ISPOSINF, *posinf);
  if (neginf) put(CA_OP_ISNEGINF, *neginf);
  return r;
}

ArrayPtr rechunk_generated(const ArrayPtr &a, const Chunks &chunks) {
  if (!a) fail(CA_EINVAL, "array is null");
  if (a->gen && !a->expr) {
    const std::string name = Tokenizer("rechunk-gen").add(*a).add(chunks).name();
    return gen_array(name, *a->gen, a->shape, chunks);
  }
  if (!a->expr) return nullptr;
  std::vector<ArrayPtr> leaves, gens;
  compile_expr(a->expr, leaves, &a->shape, &gens);
  if (!leaves.empty() || gens.empty()) return nullptr;
  // The same tree over the generated leaves rechunked: the result's chunks follow them (finish).
  std::unordered_map<std::string, ArrayPtr> repl;
  for (auto &g : gens) repl[g->name] = rechunk_generated(g, chunks);
  std::unordered_map<const Expr *, ExprPtr> memo;
  ExprPtr tree = replace_leaves(a->expr, repl, memo);
  std::vector<ArrayPtr> operands;
  for (auto &g : gens) operands.push_back(repl[g->name]);
  return finish("rechunk-gen", tree, operands, [&](const std::vector<ExprPtr> &) { return tree; });
}

FusedArgs fused_args(const ArrayPtr &a) {
  if (!a) fail(CA_EINVAL, "array is null");
  FusedArgs r;
  r.out_index = index_letters(size_t(a->ndim()));
  if (!a->expr && a->gen) {
    ExprProgram p;
    p.code.push_back(gen_instr(*a->gen));
    p.out = 0;
    p.gshape = a->shape;
    p.coords = true;
    r.program = p.serialize();
    r.coords = true;
    return r;
  }
  std::vector<ArrayPtr> leaves;
  std::vector<std::string> indices;
  ExprProgram p;
  if (!a->expr) {
    p.inputs = {a->dtype};
    p.out = 0;
    leaves = {a};
  } else {
    p = compile_expr(a->expr, leaves, &a->shape);
  }
  for (auto &l : leaves) {
    if (l->ndim() > a->ndim()) fail(CA_EINTERNAL, "expression leaf has more dimensions than its array");
    indices.push_back(r.out_index.substr(size_t(a->ndim() - l->ndim())));
  }
  fuse_transposed_leaves(p, leaves, indices, a->shape);
  r.program = p.serialize();
  r.coords = p.coords;
  for (size_t i = 0; i < leaves.size(); ++i) r.inputs.push_back(ArrayArg::of(leaves[i], indices[i]));
  return r;
}

void fused_leaf_args(const FusedArgs &fa, std::vector<std::string> &deps, std::vector<BlockwiseArg> &bargs) {
  for (const ArrayArg &in : fa.inputs) {
    if (!in.array) {
      bargs.push_back(in.literal);
      continue;
    }
    BlockwiseArg b;
    b.is_ref = true;
    auto it = std::find(deps.begin(), deps.end(), in.array->name);
    b.dep_slot = int32_t(it - deps.begin());
    if (it == deps.end()) deps.push_back(in.array->name);
    CA_CHECK(int32_t(in.index.size()) == in.array->ndim(), CA_EINTERNAL, "fused input '", in.array->name,
             "' has index '", in.index, "' for ", in.array->ndim(), " dimensions");
    for (size_t d = 0; d < in.index.size(); ++d) {
      DimMap m;
      auto pos = fa.out_index.find(in.index[d]);
      CA_CHECK(pos != std::string::npos, CA_EINTERNAL, "fused input index letter '", in.index[d],
               "' is not an output letter");
      m.kind = DimMap::Out;
      m.out_dim = int32_t(pos);
      m.extent = in.array->numblocks[d];
      b.dims.push_back(m);
    }
    bargs.push_back(std::move(b));
  }
}

std::vector<ArrayPtr> fused_leaf_arrays(const FusedArgs &fa) {
  std::vector<ArrayPtr> v;
  for (const ArrayArg &in : fa.inputs)
    if (in.array) v.push_back(in.array);
  return v;
}

}  // namespace ca
