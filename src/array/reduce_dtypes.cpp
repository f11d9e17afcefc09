// Builtin reductions of float16, datetime64/timedelta64 and strings, built from the numeric ones
// (array/reduce.cpp calls reduce_special first):
// - float16 reduces in float32 (NumPy's loops accumulate float16 in float) and rounds back to float16;
// - datetime64/timedelta64 reduce their int64 ticks, with NaT (the smallest int64) propagating as NaN
//   does (min/max, sum and mean of timedeltas) or skipped (nanmin/nanmax), as NumPy >= 1.18;
// - strings and the reductions NumPy does not define for a dtype raise CA_ETYPE.
#include <limits>

#include "array/expr.hpp"
#include "array/op_table.hpp"
#include "array/reduce.hpp"
#include "core/datetime.hpp"

namespace ca {

namespace {

ca_scalar_t typed_i64(DType t, int64_t v) {
  ca_scalar_t s{};
  s.kind = t;
  s.flags = CA_SCALAR_TYPED;
  s.i64 = v;
  s.re = double(v);
  return s;
}

/// where(cond, NaT, x) for a time array x.
ArrayPtr nat_where(const ArrayPtr &cond, const ArrayPtr &x) {
  return elementwise_where(cond, nullptr, x, typed_i64(x->dtype, kNaT), ca_scalar_t{});
}

const char *red_label(int32_t op) {
  const char *n = red_info(op).name;
  return n ? n : "reduction";
}

}  // namespace

ArrayPtr reduce_special(int32_t op, const ArrayPtr &a, const std::vector<int32_t> &axes, bool keepdims,
                        int32_t split_every, int32_t ddof, DType dtype) {
  const DType in = a->dtype;
  if (dtype_is_string(in))
    fail(CA_ETYPE, red_label(op), " is not supported for the string dtype ", dtype_name(in),
         " (NumPy: cannot perform reduce with flexible type)");
  auto red = [&](int32_t o, const ArrayPtr &x, DType d = 0) { return reduce(o, x, axes, keepdims, split_every, ddof, d); };
  if (in == CA_FLOAT16) {
    if (dtype != 0 && dtype != CA_FLOAT16) return red(op, elementwise_astype(a, CA_FLOAT32), dtype);
    const ArrayPtr r = red(op, elementwise_astype(a, CA_FLOAT32));
    return r->dtype == CA_FLOAT32 ? elementwise_astype(r, CA_FLOAT16) : r;
  }
  if (!dtype_is_time(in)) return nullptr;
  const bool td = dtype_is_timedelta(in);
  if (dtype != 0 && dtype != in)
    fail(CA_ETYPE, red_label(op), " of ", dtype_name(in), " with dtype=", dtype_name(dtype) ? dtype_name(dtype) : "?",
         " is not supported");
  const ArrayPtr ticks = elementwise_astype(a, CA_INT64);
  const ArrayPtr nat = elementwise_unary(CA_OP_ISNAN, a);
  auto back = [&](const ArrayPtr &r) { return elementwise_astype(r, in); };
  const ca_scalar_t big = typed_i64(CA_INT64, std::numeric_limits<int64_t>::max());
  switch (op) {
    case CA_RED_MIN: return back(red(CA_RED_MIN, ticks));  // NaT is the smallest int64: it propagates
    case CA_RED_MAX: return nat_where(red(CA_RED_ANY, nat), back(red(CA_RED_MAX, ticks)));
    case CA_RED_NANMAX: return back(red(CA_RED_MAX, ticks));  // NaT loses unless all are NaT
    case CA_RED_NANMIN: {
      const ArrayPtr m = red(CA_RED_MIN, elementwise_where(nat, nullptr, ticks, big, ca_scalar_t{}));
      return nat_where(red(CA_RED_ALL, nat), back(m));
    }
    case CA_RED_ARGMIN: return red(CA_RED_ARGMIN, ticks);  // the first NaT, as NumPy
    case CA_RED_ARGMAX: return red(CA_RED_ARGMAX, elementwise_where(nat, nullptr, ticks, big, ca_scalar_t{}));
    case CA_RED_ANY:
    case CA_RED_ALL: return red(op, ticks);
    case CA_RED_SUM:
    case CA_RED_NANSUM:
    case CA_RED_MEAN:
    case CA_RED_NANMEAN: {
      if (!td)
        fail(CA_ETYPE, red_label(op), " is not defined for ", dtype_name(in),
             " (NumPy cannot add datetimes: subtract an epoch and reduce the timedelta64)");
      const bool nan = op == CA_RED_NANSUM || op == CA_RED_NANMEAN;
      // nansum/nanmean skip NaT (as 0 / not counted); sum/mean propagate it.
      const ArrayPtr t = nan ? elementwise_where(nat, nullptr, ticks, typed_i64(CA_INT64, 0), ca_scalar_t{}) : ticks;
      ArrayPtr s = back(red(CA_RED_SUM, t));
      if (!nan) s = nat_where(red(CA_RED_ANY, nat), s);
      if (op == CA_RED_SUM || op == CA_RED_NANSUM) return s;
      // mean: the sum divided by the count, truncated (NumPy's timedelta64 / int).
      ArrayPtr count = red(CA_RED_SUM, elementwise_unary(CA_OP_NOT, nan ? nat : elementwise_unary(CA_OP_ISINF, a)));
      return elementwise_binary(CA_OP_DIV, s, count);
    }
    default:
      fail(CA_ETYPE, red_label(op), " is not supported for ", dtype_name(in), " (NumPy raises UFuncTypeError)");
  }
}

}  // namespace ca
