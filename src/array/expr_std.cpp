// Elementwise binary operations under the Python array API standard's type promotion (2021.12):
// the standard's table instead of NumPy's (no value-based casting, no int/float mixing, bool only
// with bool), and its rule for Python scalars: the scalar takes the array's dtype.
#include <cstdint>
#include <limits>

#include "array/expr.hpp"
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

}  // namespace

ArrayPtr elementwise_binary_std(int32_t op, const ArrayPtr &a, const ArrayPtr &b) {
  if (!a || !b) fail(CA_EINVAL, "ca_array_binary_std: array is null");
  // The standard defines a result wherever NumPy's promotion agrees with its table, so the check is
  // all that differs: the op then runs on the operands as they are (fused, no cast layers).
  dtype_promote_std(a->dtype, b->dtype);
  return elementwise_binary(op, a, b);
}

ArrayPtr elementwise_scalar_std(int32_t op, const ArrayPtr &a, const ca_scalar_t &s, bool scalar_first) {
  if (!a) fail(CA_EINVAL, "ca_array_binary_scalar_std: array is null");
  dtype_promote_std(a->dtype, a->dtype);  // the array's dtype must be one of the standard's
  const ScalarValue sv = scalar_value(s);
  if (sv.typed) {
    // a typed scalar is an operand of its own dtype, as a 0-d array would be
    dtype_promote_std(a->dtype, sv.dtype);
    return elementwise_scalar(op, a, s, scalar_first);
  }
  return elementwise_scalar(op, a, std_scalar_as("ca_array_binary_scalar_std", a->dtype, sv), scalar_first);
}

}  // namespace ca
