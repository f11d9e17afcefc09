// Elementwise binary operations under the Python array API standard's type promotion (2021.12):
// the standard's table instead of NumPy's (no value-based casting, no int/float mixing, bool only
// with bool), and its rule for Python scalars: the scalar takes the array's dtype.
#include <cstdint>
#include <limits>

#include "array/expr.hpp"
#include "array/op_table.hpp"
#include "core/dtype.hpp"

namespace ca {

namespace {

/// A Python scalar (untyped ca_scalar_t) as a typed scalar of the array's dtype `dt`, or CA_ETYPE
/// (a kind the standard does not combine with dt) / CA_EINVAL (an integer that dt does not hold).
ca_scalar_t std_scalar_as(const char *fn, DType dt, const ScalarValue &sv) {
  const char dk = dtype_kind(dt);
  const char *what = sv.kind == 'b' ? "bool" : (sv.kind == 'i' || sv.kind == 'u') ? "int" : sv.kind == 'f' ? "float"
                                                                                                           : "complex";
  bool ok = false;
  switch (sv.kind) {
    case 'b': ok = dk == 'b'; break;
    case 'i':
    case 'u': ok = dk == 'i' || dk == 'u' || dk == 'f' || dk == 'c'; break;
    case 'f': ok = dk == 'f' || dk == 'c'; break;
    default: ok = dk == 'c'; break;
  }
  if (!ok)
    fail(CA_ETYPE, fn, ": a Python ", what, " scalar does not combine with an array of dtype ", dtype_name(dt),
         " under the array API standard (bool scalars go with bool arrays, int scalars with integer and "
         "floating-point arrays, float scalars with floating-point arrays)");
  ca_scalar_t t{};
  t.kind = dt;
  t.flags = CA_SCALAR_TYPED;
  if (dk == 'b') {
    t.i64 = sv.i;
  } else if (dk == 'i' || dk == 'u') {
    // the scalar takes the array's dtype: it must fit
    const bool neg = sv.kind == 'i' && sv.i < 0;
    const uint64_t mag = sv.kind == 'u' ? sv.u : neg ? uint64_t(0) - uint64_t(sv.i) : uint64_t(sv.i);
    const size_t bits = dtype_size(dt) * 8;
    bool fits;
    if (dk == 'u') fits = !neg && (bits == 64 || mag < (uint64_t(1) << bits));
    else fits = neg ? mag <= (uint64_t(1) << (bits - 1)) : mag < (uint64_t(1) << (bits - 1));
    if (!fits) {
      if (sv.kind == 'u')
        fail(CA_EINVAL, fn, ": the Python int ", sv.u, " is out of bounds for ", dtype_name(dt));
      fail(CA_EINVAL, fn, ": the Python int ", sv.i, " is out of bounds for ", dtype_name(dt));
    }
    t.i64 = sv.kind == 'u' ? int64_t(sv.u) : sv.i;
    t.re = sv.re;
  } else {
    t.re = sv.kind == 'u' ? double(sv.u) : (sv.kind == 'i' || sv.kind == 'b') ? double(sv.i) : sv.re;
    t.im = sv.kind == 'c' ? sv.im : 0.0;
  }
  return t;
}

// The dtypes each binary operation of the standard accepts (2021.12, complex as in 2022.12), as
// numpy.array_api checks them; operations outside the standard (fmax, ldexp, ...) only promote.
enum class StdCategory { Any, All, Numeric, RealNumeric, Floating, RealFloating, Integer, IntegerOrBool, Bool };

StdCategory std_category(int32_t op) {
  switch (op) {
    case CA_OP_ADD: case CA_OP_SUB: case CA_OP_MUL: case CA_OP_POW: return StdCategory::Numeric;
    case CA_OP_DIV: return StdCategory::Floating;
    case CA_OP_FLOORDIV: case CA_OP_FLOORDIV_STD: case CA_OP_MOD:
    case CA_OP_LT: case CA_OP_LE: case CA_OP_GT: case CA_OP_GE:
    case CA_OP_MAXIMUM: case CA_OP_MINIMUM: return StdCategory::RealNumeric;
    case CA_OP_EQ: case CA_OP_NE: return StdCategory::All;
    case CA_OP_AND: case CA_OP_OR: case CA_OP_XOR: return StdCategory::Bool;
    case CA_OP_BITAND: case CA_OP_BITOR: case CA_OP_BITXOR: return StdCategory::IntegerOrBool;
    case CA_OP_LEFT_SHIFT: case CA_OP_RIGHT_SHIFT: return StdCategory::Integer;
    case CA_OP_ARCTAN2: case CA_OP_LOGADDEXP: case CA_OP_HYPOT: case CA_OP_COPYSIGN: return StdCategory::RealFloating;
    default: return StdCategory::Any;
  }
}

bool in_category(StdCategory c, DType dt) {
  const char k = dtype_kind(dt);
  switch (c) {
    case StdCategory::Any: case StdCategory::All: return true;
    case StdCategory::Numeric: return k == 'i' || k == 'u' || k == 'f' || k == 'c';
    case StdCategory::RealNumeric: return k == 'i' || k == 'u' || k == 'f';
    case StdCategory::Floating: return k == 'f' || k == 'c';
    case StdCategory::RealFloating: return k == 'f';
    case StdCategory::Integer: return k == 'i' || k == 'u';
    case StdCategory::IntegerOrBool: return k == 'i' || k == 'u' || k == 'b';
    case StdCategory::Bool: return k == 'b';
  }
  return true;
}

const char *category_name(StdCategory c) {
  switch (c) {
    case StdCategory::Numeric: return "numeric";
    case StdCategory::RealNumeric: return "real numeric";
    case StdCategory::Floating: return "floating-point";
    case StdCategory::RealFloating: return "real floating-point";
    case StdCategory::Integer: return "integer";
    case StdCategory::IntegerOrBool: return "integer or boolean";
    case StdCategory::Bool: return "boolean";
    default: return "any";
  }
}

// CA_ETYPE when `dt` is outside what the standard's `op` takes (numpy.array_api's TypeError).
void check_std_category(const char *fn, int32_t op, DType dt) {
  const StdCategory c = std_category(op);
  if (in_category(c, dt)) return;
  const char *name = op_info(op).name ? op_info(op).name : "the operation";
  fail(CA_ETYPE, fn, ": ", name, " takes ", category_name(c), " dtypes under the array API standard, not ",
       dtype_name(dt));
}

}  // namespace

ArrayPtr elementwise_binary_std(int32_t op, const ArrayPtr &a, const ArrayPtr &b) {
  if (!a || !b) fail(CA_EINVAL, "ca_array_binary_std: array is null");
  // The standard defines a result wherever NumPy's promotion agrees with its table, so the check is
  // all that differs: the op then runs on the operands as they are (fused, no cast layers).
  dtype_promote_std(a->dtype, b->dtype);
  check_std_category("ca_array_binary_std", op, a->dtype);
  check_std_category("ca_array_binary_std", op, b->dtype);
  return elementwise_binary(op, a, b);
}

ArrayPtr elementwise_scalar_std(int32_t op, const ArrayPtr &a, const ca_scalar_t &s, bool scalar_first) {
  if (!a) fail(CA_EINVAL, "ca_array_binary_scalar_std: array is null");
  dtype_promote_std(a->dtype, a->dtype);  // the array's dtype must be one of the standard's
  check_std_category("ca_array_binary_scalar_std", op, a->dtype);
  const ScalarValue sv = scalar_value(s);
  if (sv.typed) {
    // a typed scalar is an operand of its own dtype, as a 0-d array would be
    dtype_promote_std(a->dtype, sv.dtype);
    return elementwise_scalar(op, a, s, scalar_first);
  }
  return elementwise_scalar(op, a, std_scalar_as("ca_array_binary_scalar_std", a->dtype, sv), scalar_first);
}

}  // namespace ca
