// Masked arrays (masked.hpp): numpy.ma's rules written as expressions over the data and the mask.
#include "array/masked.hpp"

#include <cmath>
#include <limits>

#include "array/create.hpp"
#include "array/expr.hpp"
#include "array/reduce.hpp"
#include "core/error.hpp"

namespace ca::ma {

namespace {

// ---- scalars ------------------------------------------------------------------------------------

ca_scalar_t py_float(double v) { return ca_scalar_t{CA_FLOAT64, 0, v, 0.0, 0}; }
ca_scalar_t py_bool(bool v) { return ca_scalar_t{CA_BOOL, 0, v ? 1.0 : 0.0, 0.0, v ? 1 : 0}; }

// A scalar of exactly `dt` (a typed scalar: it does not change the dtype of an expression of `dt`).
ca_scalar_t typed(DType dt, double v) {
  ca_scalar_t s{dt, CA_SCALAR_TYPED, v, 0.0, 0};
  if (dtype_is_integer(dt) || dt == CA_BOOL) s.i64 = dt == CA_BOOL ? (v != 0) : int64_t(v);
  return s;
}

// numpy.ma's minimum_fill_value (the largest value of the dtype) and maximum_fill_value.
ca_scalar_t extreme(DType dt, bool largest) {
  if (dt == CA_BOOL) return typed(dt, largest ? 1 : 0);
  if (dtype_is_float(dt) || dtype_is_complex(dt)) {
    double inf = std::numeric_limits<double>::infinity();
    return typed(dt, largest ? inf : -inf);
  }
  return dispatch_dtype(dt, [&](auto tag) -> ca_scalar_t {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      T v = largest ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
      ca_scalar_t s{dt, CA_SCALAR_TYPED, double(v), 0.0, int64_t(v)};
      return s;
    } else {
      fail(CA_ETYPE, "masked arrays: no extreme value of dtype ", dtype_name(dt));
    }
  });
}

void check_dtype(DType dt, const char *what) {
  CA_CHECK(dtype_is_numeric(dt) || dt == CA_FLOAT16, CA_ETYPE, what, ": masked arrays of dtype ", dtype_name(dt),
           " are not supported (numeric dtypes only)");
}

// ---- arrays -------------------------------------------------------------------------------------

ArrayPtr not_(const ArrayPtr &m) { return elementwise_unary(CA_OP_NOT, m); }
ArrayPtr or_(const ArrayPtr &a, const ArrayPtr &b) { return elementwise_binary(CA_OP_OR, a, b); }
ArrayPtr false_like(const ArrayPtr &a) { return zeros(a->shape, a->chunks, CA_BOOL); }
// where(cond, s, a): elements of a, s where cond.
ArrayPtr where_scalar(const ArrayPtr &cond, const ca_scalar_t &s, const ArrayPtr &a) {
  return elementwise_where(cond, nullptr, a, s, s);
}
ArrayPtr where3(const ArrayPtr &cond, const ArrayPtr &a, const ArrayPtr &b) {
  ca_scalar_t unused{};
  unused.kind = CA_FLOAT64;
  return elementwise_where(cond, a, b, unused, unused);
}
ArrayPtr astype(const ArrayPtr &a, DType dt) { return a->dtype == dt ? a : elementwise_astype(a, dt); }
bool has_nonfinite(DType dt) { return dtype_is_float(dt) || dtype_is_complex(dt); }
ArrayPtr not_finite(const ArrayPtr &a) { return not_(elementwise_unary(CA_OP_ISFINITE, a)); }

// A masked array from data and a mask built by this file (the same shape): the data rechunked to
// the mask's chunks where the two expressions unified chunks differently.
MaskedPtr assemble(ArrayPtr data, ArrayPtr mask, bool nomask, bool has_fill, const ca_scalar_t &fill) {
  CA_CHECK(mask->dtype == CA_BOOL, CA_EINTERNAL, "masked: mask of dtype ", dtype_name(mask->dtype));
  if (data->shape != mask->shape) {
    // broadcasting made one of them larger: bring the other to the common shape
    ArrayPtr f = zeros(data->shape, data->chunks, CA_BOOL);
    mask = or_(f, mask);
    if (data->shape != mask->shape) data = where3(false_like(mask), data, data);
  }
  if (data->chunks != mask->chunks) {
    if (data->nblocks() >= mask->nblocks()) mask = rechunk(mask, data->chunks);
    else data = rechunk(data, mask->chunks);
  }
  auto m = std::make_shared<Masked>();
  m->data = std::move(data);
  m->mask = std::move(mask);
  m->nomask = nomask;
  m->has_fill = has_fill;
  m->fill = fill;
  return m;
}
MaskedPtr assemble(ArrayPtr data, ArrayPtr mask) { return assemble(std::move(data), std::move(mask), false, false, {}); }

// The result of an operation on `a` keeps a's explicit fill value when the dtype is the same.
MaskedPtr assemble_like(const Masked &a, ArrayPtr data, ArrayPtr mask) {
  bool keep = a.has_fill && data->dtype == a.data->dtype;
  return assemble(std::move(data), std::move(mask), false, keep, a.fill);
}

// A masked array whose mask is all false (numpy's nomask).
MaskedPtr unmasked(const ArrayPtr &data) { return assemble(data, false_like(data), true, false, {}); }

// Elements where `data` may be written back under the mask (numpy.ma's copyto(result, d,
// where=m)): only when d's dtype converts to the result's without loss.
ArrayPtr restore_masked(const ArrayPtr &result, const ArrayPtr &mask, const ArrayPtr &d) {
  DType p = 0;
  try {
    p = dtype_promote(d->dtype, result->dtype);
  } catch (const Error &) {
    return result;
  }
  if (p != result->dtype) return result;
  return where3(mask, astype(d, result->dtype), result);
}

// An operand of a binary operation: an array or a scalar.
struct Operand {
  ArrayPtr a;
  const ca_scalar_t *s = nullptr;
};

ArrayPtr apply(int32_t op, const Operand &x, const Operand &y) {
  if (x.a && y.a) return elementwise_binary(op, x.a, y.a);
  if (x.a) return elementwise_scalar(op, x.a, *y.s, false);
  return elementwise_scalar(op, y.a, *x.s, true);
}

double scalar_abs(const ca_scalar_t &s) {
  ScalarValue v = scalar_value(s);
  if (v.kind == 'c') return std::hypot(v.re, v.im);
  if (v.kind == 'u') return double(v.u);
  if (v.kind == 'i' || v.kind == 'b') return std::fabs(double(v.i));
  return std::fabs(v.re);
}

// numpy.ma's _DomainSafeDivide: |a| * tiny >= |b| (division by zero and overflowing quotients).
ArrayPtr safe_divide_domain(const Operand &x, const Operand &y) {
  const double tiny = std::numeric_limits<double>::min();
  if (x.a && y.a)
    return elementwise_binary(CA_OP_GE, elementwise_scalar(CA_OP_MUL, elementwise_unary(CA_OP_ABS, x.a),
                                                           py_float(tiny), false),
                              elementwise_unary(CA_OP_ABS, y.a));
  if (x.a)
    return elementwise_scalar(CA_OP_GE,
                              elementwise_scalar(CA_OP_MUL, elementwise_unary(CA_OP_ABS, x.a), py_float(tiny), false),
                              py_float(scalar_abs(*y.s)), false);
  return elementwise_scalar(CA_OP_LE, elementwise_unary(CA_OP_ABS, y.a), py_float(scalar_abs(*x.s) * tiny), false);
}

// Operations with numpy.ma's safe-divide domain. divide and floor_divide (MaskedArray's / and //,
// np.ma.divide) also mask non-finite results; remainder and fmod (% and the ufuncs, which numpy.ma
// applies through __array_wrap__) take the domain only.
bool is_domained_divide(int32_t op) {
  return op == CA_OP_DIV || op == CA_OP_FLOORDIV || op == CA_OP_MOD || op == CA_OP_FMOD;
}
bool masks_nonfinite(int32_t op) { return op == CA_OP_DIV || op == CA_OP_FLOORDIV; }

// The binary operation on masked operands; a null mask is an unmasked operand (or a scalar).
MaskedPtr binary_impl(int32_t op, const Masked *ma_, const Operand &x, const Masked *mb_, const Operand &y,
                      const Masked &like) {
  ArrayPtr result = apply(op, x, y);
  ArrayPtr m;
  if (ma_ && mb_) m = or_(ma_->mask, mb_->mask);
  else m = ma_ ? ma_->mask : mb_->mask;
  if (is_domained_divide(op)) {
    if (masks_nonfinite(op) && has_nonfinite(result->dtype)) m = or_(m, not_finite(result));
    m = or_(m, safe_divide_domain(x, y));
  } else if (op == CA_OP_POW || op == CA_OP_FLOAT_POWER) {
    if (has_nonfinite(result->dtype)) m = or_(m, not_finite(result));
  }
  if (is_domained_divide(op)) {
    // numpy.ma: result[m] = 0, then result += m * da when that casts safely (so a -0.0 quotient
    // becomes 0.0, as in NumPy)
    ArrayPtr z = where_scalar(m, typed(result->dtype, 0), result);
    DType dadt = x.a ? x.a->dtype : scalar_promote(result->dtype, *x.s);
    DType p = 0;
    try {
      p = dtype_promote(dadt, result->dtype);
    } catch (const Error &) {
    }
    if (p == result->dtype) {
      ArrayPtr back = x.a ? where_scalar(not_(m), typed(x.a->dtype, 0), x.a)
                          : elementwise_where(not_(m), nullptr, nullptr, typed(result->dtype, 0), *x.s);
      z = astype(elementwise_binary(CA_OP_ADD, z, back), result->dtype);
    }
    return assemble_like(like, std::move(z), std::move(m));
  }
  // the first operand's data where masked (numpy.ma reverts the result to it)
  bool nomask = (!ma_ || ma_->nomask) && (!mb_ || mb_->nomask) && !is_domained_divide(op) && op != CA_OP_POW &&
                op != CA_OP_FLOAT_POWER;
  if (nomask) {
    MaskedPtr r = assemble_like(like, std::move(result), std::move(m));
    auto w = std::make_shared<Masked>(*r);
    w->nomask = true;
    return w;
  }
  if (x.a) result = restore_masked(result, m, x.a);
  else result = where_scalar(m, *x.s, result);
  return assemble_like(like, std::move(result), std::move(m));
}

// ---- reductions ---------------------------------------------------------------------------------

ArrayPtr red(int32_t op, const ArrayPtr &a, const std::vector<int32_t> &axes, bool keepdims, int32_t split_every,
             int32_t ddof = 0, DType dtype = 0) {
  return reduce(op, a, axes, keepdims, split_every, ddof, dtype);
}

// mask.all(axis): where a reduction's result is masked.
ArrayPtr all_masked(const Masked &a, const std::vector<int32_t> &axes, bool keepdims, int32_t split_every) {
  return red(CA_RED_ALL, a.mask, axes, keepdims, split_every);
}

// The number of elements a reduction over `axes` (empty: all) combines into each result.
Index reduced_count(const Masked &a, const std::vector<int32_t> &axes) {
  std::vector<int32_t> ax = normalize_axes(axes, a.data->ndim());
  if (axes.empty()) {
    ax.clear();
    for (int32_t d = 0; d < a.data->ndim(); ++d) ax.push_back(d);
  }
  Index n = 1;
  for (int32_t d : ax) n *= a.data->shape[size_t(d)];
  return n;
}

// numpy.ma's divide domain of a quotient q = s / n by a count n: |s| * tiny >= |n|, i.e. |q| * tiny
// >= 1 (an infinite quotient), and everything when n is 0.
ArrayPtr quotient_domain(const ArrayPtr &q, Index n) {
  if (n == 0) return not_(false_like(q));
  const double tiny = std::numeric_limits<double>::min();
  return elementwise_scalar(CA_OP_GE, elementwise_scalar(CA_OP_MUL, elementwise_unary(CA_OP_ABS, q), py_float(tiny),
                                                         false),
                            py_float(1.0), false);
}

MaskedPtr mean(const Masked &a, const std::vector<int32_t> &axes, bool keepdims, int32_t split_every, DType dtype) {
  DType in = a.data->dtype;
  if (a.nomask) {
    // numpy.ma's nomask mean is ndarray.mean, whose final true_divide of a MaskedArray takes the
    // divide domain: |sum| * tiny >= n, i.e. masked where the mean is infinite (or n is 0)
    ArrayPtr d = red(CA_RED_MEAN, a.data, axes, keepdims, split_every, 0, dtype);
    return assemble(d, quotient_domain(d, reduced_count(a, axes)));
  }
  bool f16 = false;
  if (!dtype) {
    if (dtype_is_integer(in) || in == CA_BOOL) dtype = CA_FLOAT64;
    else if (in == CA_FLOAT16) dtype = CA_FLOAT32, f16 = true;
  }
  MaskedPtr dsum = ma::reduce(CA_RED_SUM, a, axes, keepdims, split_every, 0, dtype);
  ArrayPtr cnt = count(a, axes, keepdims, split_every);
  MaskedPtr res;
  if (dsum->data->ndim() == 0) {
    // numpy.ma: a scalar sum divided as scalars (no domain), masked when nothing was counted
    ArrayPtr q = elementwise_binary(CA_OP_DIV, elementwise_scalar(CA_OP_MUL, dsum->data, py_float(1.0), false), cnt);
    ca_scalar_t zero{CA_INT64, 0, 0.0, 0.0, 0};
    res = assemble(q, elementwise_scalar(CA_OP_EQ, cnt, zero, false));
  } else {
    MaskedPtr scaled = binary_scalar(CA_OP_MUL, *dsum, py_float(1.0), false);
    res = binary(CA_OP_DIV, *scaled, *unmasked(cnt));
  }
  if (f16) res = assemble(astype(res->data, CA_FLOAT16), res->mask);
  return res;
}

MaskedPtr var(const Masked &a, const std::vector<int32_t> &axes, bool keepdims, int32_t split_every, int32_t ddof,
              DType dtype) {
  if (a.nomask) {
    // ndarray.var on a MaskedArray: the mean's divide domain propagates, and the last division by
    // n - ddof takes the domain again
    ArrayPtr d = red(CA_RED_VAR, a.data, axes, keepdims, split_every, ddof, dtype);
    Index n = reduced_count(a, axes);
    ArrayPtr mu = red(CA_RED_MEAN, a.data, axes, keepdims, split_every, 0, dtype);
    return assemble(d, or_(quotient_domain(mu, n), quotient_domain(d, n - ddof)));
  }
  ArrayPtr cnt = count(a, axes, keepdims, split_every);
  ca_scalar_t dd{CA_INT64, 0, double(ddof), 0.0, ddof};
  cnt = elementwise_scalar(CA_OP_SUB, cnt, dd, false);
  MaskedPtr mu = mean(a, axes, true, split_every, dtype);
  MaskedPtr danom = binary(CA_OP_SUB, a, *mu);
  if (dtype_is_complex(danom->data->dtype)) {
    danom = unary(CA_OP_ABS, *danom);
    danom = binary_scalar(CA_OP_POW, *danom, ca_scalar_t{CA_INT64, 0, 2.0, 0.0, 2}, false);
  } else {
    danom = binary(CA_OP_MUL, *danom, *danom);
  }
  MaskedPtr s = ma::reduce(CA_RED_SUM, *danom, axes, keepdims, split_every, 0, 0);
  ArrayPtr q = elementwise_binary(CA_OP_DIV, s->data, cnt);
  ca_scalar_t zero{CA_INT64, 0, 0.0, 0.0, 0};
  ArrayPtr m = elementwise_scalar(CA_OP_LE, cnt, zero, false);
  if (q->ndim() > 0) m = or_(all_masked(a, axes, keepdims, split_every), m);
  else m = or_(or_(s->mask, m), has_nonfinite(q->dtype) ? not_finite(q) : false_like(q));
  return assemble(q, m);
}

}  // namespace

// ---- construction -------------------------------------------------------------------------------

ca_scalar_t default_fill_value(DType dt) {
  if (dt == CA_BOOL) return py_bool(true);
  if (dtype_is_integer(dt)) return ca_scalar_t{CA_INT64, 0, 999999.0, 0.0, 999999};
  if (dtype_is_complex(dt)) return ca_scalar_t{CA_COMPLEX128, 0, 1e20, 0.0, 0};
  return py_float(1e20);
}

ca_scalar_t fill_value(const Masked &m) { return m.has_fill ? m.fill : default_fill_value(m.data->dtype); }

namespace {
void check_fill(const ca_scalar_t &f, DType dt, const char *what) {
  ScalarValue v = scalar_value(f);  // validates kind and flags
  if (dtype_is_integer(dt) || dt == CA_BOOL)
    CA_CHECK(v.kind != 'c', CA_ETYPE, what, ": a complex fill value does not convert to ", dtype_name(dt));
  if (dtype_is_integer(dt) && v.kind == 'f')
    CA_CHECK(std::isfinite(v.re), CA_ETYPE, what, ": fill value ", v.re, " does not convert to ", dtype_name(dt));
}
}  // namespace

MaskedPtr make(const ArrayPtr &data, const ArrayPtr &mask, const ca_scalar_t *fill) {
  check_dtype(data->dtype, "masked_array");
  if (fill) check_fill(*fill, data->dtype, "masked_array");
  ca_scalar_t f = fill ? *fill : ca_scalar_t{};
  if (!mask) return assemble(data, false_like(data), true, fill != nullptr, f);
  bool one = mask->size() == 1;
  CA_CHECK(mask->shape == data->shape || one, CA_EINVAL, "masked_array: Mask and data not compatible: data shape is ",
           chunks_str({data->shape}), ", and mask shape is ", chunks_str({mask->shape}));
  ArrayPtr m = astype(mask, CA_BOOL);
  if (one && mask->shape != data->shape) {
    // a single flag for every element (dask reshapes it to (1,) * ndim and broadcasts)
    ArrayPtr flag = m->ndim() > 0 ? red(CA_RED_ANY, m, {}, false, 0) : m;
    m = or_(false_like(data), flag);
  } else {
    m = or_(false_like(data), m);  // unified chunks with the data's
  }
  return assemble(data, m, false, fill != nullptr, f);
}

MaskedPtr with_fill_value(const Masked &m, const ca_scalar_t *fill) {
  if (fill) check_fill(*fill, m.data->dtype, "set_fill_value");
  auto r = std::make_shared<Masked>(m);
  r->has_fill = fill != nullptr;
  r->fill = fill ? *fill : ca_scalar_t{};
  return r;
}

ca_scalar_t cast_fill(const ca_scalar_t &f, DType dt) {
  check_fill(f, dt, "filled");
  ScalarValue v = scalar_value(f);
  ca_scalar_t t = typed(dt, v.kind == 'u' ? double(v.u) : (v.kind == 'i' || v.kind == 'b') ? double(v.i) : v.re);
  if (v.kind == 'c' && dtype_is_complex(dt)) t.im = v.im;
  if (dtype_is_integer(dt)) {
    // integers wrap as NumPy's cast of a Python int does (999999 in int8 is 63)
    int64_t i = v.kind == 'u' ? int64_t(v.u) : (v.kind == 'i' || v.kind == 'b') ? v.i : int64_t(v.re);
    int64_t bits = int64_t(dtype_size(dt) * 8);
    if (bits < 64) {
      uint64_t mod = uint64_t(1) << bits;
      uint64_t u = uint64_t(i) & (mod - 1);
      bool is_signed = dtype_kind(dt) == 'i';
      i = is_signed && u >= mod / 2 ? int64_t(u) - int64_t(mod) : int64_t(u);
    }
    t.i64 = i;
    t.re = dtype_kind(dt) == 'u' ? double(uint64_t(i)) : double(i);
  }
  return t;
}

ArrayPtr filled(const Masked &m, const ca_scalar_t *fill) {
  if (m.nomask) return m.data;
  // the fill value is written in the data's dtype (numpy's copyto with unsafe casting)
  return where_scalar(m.mask, cast_fill(fill ? *fill : fill_value(m), m.data->dtype), m.data);
}

// ---- masking functions --------------------------------------------------------------------------

MaskedPtr masked_where(const ArrayPtr &cond, const Masked &a) {
  CA_CHECK(cond->shape == a.data->shape || cond->ndim() == 0, CA_EINVAL,
           "masked_where: Inconsistent shape between the condition and the input (got ", chunks_str({cond->shape}),
           " and ", chunks_str({a.data->shape}), ")");
  ArrayPtr c = astype(cond, CA_BOOL);
  return assemble(a.data, or_(a.mask, c), false, a.has_fill, a.fill);
}

MaskedPtr masked_compare(const Masked &a, Test test, const ca_scalar_t &v1, const ca_scalar_t &v2) {
  const ArrayPtr &x = a.data;
  ArrayPtr cond;
  switch (test) {
    case Test::Equal: cond = elementwise_scalar(CA_OP_EQ, x, v1, false); break;
    case Test::NotEqual: cond = elementwise_scalar(CA_OP_NE, x, v1, false); break;
    case Test::Greater: cond = elementwise_scalar(CA_OP_GT, x, v1, false); break;
    case Test::GreaterEqual: cond = elementwise_scalar(CA_OP_GE, x, v1, false); break;
    case Test::Less: cond = elementwise_scalar(CA_OP_LT, x, v1, false); break;
    case Test::LessEqual: cond = elementwise_scalar(CA_OP_LE, x, v1, false); break;
    case Test::Inside:
    case Test::Outside: {
      ScalarValue s1 = scalar_value(v1), s2 = scalar_value(v2);
      CA_CHECK(s1.kind != 'c' && s2.kind != 'c', CA_ETYPE, "masked_inside/outside: complex bounds are not ordered");
      auto num = [](const ScalarValue &s) { return s.kind == 'u' ? double(s.u) : s.kind == 'f' ? s.re : double(s.i); };
      bool swap = num(s2) < num(s1);
      const ca_scalar_t &lo = swap ? v2 : v1, &hi = swap ? v1 : v2;
      ArrayPtr xf = filled(a, nullptr);  // numpy compares the filled data
      if (test == Test::Inside)
        cond = elementwise_binary(CA_OP_AND, elementwise_scalar(CA_OP_GE, xf, lo, false),
                                  elementwise_scalar(CA_OP_LE, xf, hi, false));
      else
        cond = elementwise_binary(CA_OP_OR, elementwise_scalar(CA_OP_LT, xf, lo, false),
                                  elementwise_scalar(CA_OP_GT, xf, hi, false));
      break;
    }
  }
  MaskedPtr r = assemble(a.data, or_(a.mask, cond), false, a.has_fill, a.fill);
  if (test == Test::Equal) {
    // masked_equal sets the fill value to the value (numpy.ma)
    check_fill(v1, a.data->dtype, "masked_equal");
    return with_fill_value(*r, &v1);
  }
  return r;
}

MaskedPtr masked_invalid(const Masked &a) {
  if (!has_nonfinite(a.data->dtype)) return assemble(a.data, a.mask, a.nomask, a.has_fill, a.fill);
  return assemble(a.data, or_(a.mask, not_finite(a.data)), false, a.has_fill, a.fill);
}

MaskedPtr masked_values(const Masked &a, const ca_scalar_t &value, double rtol, double atol) {
  ArrayPtr cond;
  if (dtype_is_float(a.data->dtype)) {
    // np.isclose(x, value, atol, rtol): the value as an array of the data's dtype... of float64,
    // NumPy's result_type(value, 1.0)
    ScalarValue v = scalar_value(value);
    ArrayPtr va = full({}, {}, CA_FLOAT64, std::complex<double>(v.kind == 'u' ? double(v.u) : v.kind == 'f' ? v.re : double(v.i), 0));
    cond = elementwise_isclose(a.data, va, rtol, atol, false);
  } else {
    cond = elementwise_scalar(CA_OP_EQ, a.data, value, false);
  }
  MaskedPtr r = assemble(a.data, or_(a.mask, cond), false, false, {});
  check_fill(value, a.data->dtype, "masked_values");
  return with_fill_value(*r, &value);
}

MaskedPtr fix_invalid(const Masked &a, const ca_scalar_t *fill) {
  // the result keeps a's fill value; `fill` only replaces the invalid data (numpy.ma:
  // a._data[invalid] = fill_value)
  MaskedPtr r = masked_invalid(a);
  if (fill) check_fill(*fill, a.data->dtype, "fix_invalid");
  if (!has_nonfinite(a.data->dtype)) return r;
  Masked inv = *r;
  inv.mask = not_finite(a.data);
  inv.nomask = false;
  ArrayPtr d = filled(inv, fill);
  return assemble(d, r->mask, false, r->has_fill, r->fill);
}

// ---- ufuncs -------------------------------------------------------------------------------------

MaskedPtr unary(int32_t op, const Masked &a) {
  const ArrayPtr &d = a.data;
  ArrayPtr result = elementwise_unary(op, d);
  ArrayPtr dom;
  bool real = !dtype_is_complex(d->dtype);
  auto cmp = [&](int32_t o, double v) { return elementwise_scalar(o, d, py_float(v), false); };
  switch (op) {
    case CA_OP_SQRT: if (real) dom = cmp(CA_OP_LT, 0.0); break;
    case CA_OP_LOG:
    case CA_OP_LOG2:
    case CA_OP_LOG10: if (real) dom = cmp(CA_OP_LE, 0.0); break;
    case CA_OP_TAN:
      if (real)
        dom = elementwise_scalar(CA_OP_LT, elementwise_unary(CA_OP_ABS, elementwise_unary(CA_OP_COS, d)),
                                 py_float(1e-35), false);
      break;
    case CA_OP_ARCSIN:
    case CA_OP_ARCCOS: if (real) dom = or_(cmp(CA_OP_LT, -1.0), cmp(CA_OP_GT, 1.0)); break;
    case CA_OP_ARCCOSH: if (real) dom = cmp(CA_OP_LT, 1.0); break;
    case CA_OP_ARCTANH: if (real) dom = or_(cmp(CA_OP_LT, -1.0 + 1e-15), cmp(CA_OP_GT, 1.0 - 1e-15)); break;
    default: break;
  }
  bool domained = op == CA_OP_SQRT || op == CA_OP_LOG || op == CA_OP_LOG2 || op == CA_OP_LOG10 || op == CA_OP_TAN ||
                  op == CA_OP_ARCSIN || op == CA_OP_ARCCOS || op == CA_OP_ARCCOSH || op == CA_OP_ARCTANH;
  ArrayPtr m = a.mask;
  bool nomask = a.nomask;
  if (domained) {
    if (has_nonfinite(result->dtype)) m = or_(m, not_finite(result)), nomask = false;
    if (dom) m = or_(m, dom), nomask = false;
  }
  if (!nomask) result = restore_masked(result, m, d);
  MaskedPtr r = assemble_like(a, std::move(result), std::move(m));
  if (nomask) {
    auto w = std::make_shared<Masked>(*r);
    w->nomask = true;
    return w;
  }
  return r;
}

MaskedPtr binary(int32_t op, const Masked &a, const Masked &b) {
  return binary_impl(op, &a, Operand{a.data, nullptr}, &b, Operand{b.data, nullptr}, a);
}

MaskedPtr binary_scalar(int32_t op, const Masked &a, const ca_scalar_t &s, bool scalar_first) {
  Operand x{a.data, nullptr}, y{nullptr, &s};
  if (scalar_first) return binary_impl(op, nullptr, y, &a, x, a);
  return binary_impl(op, &a, x, nullptr, y, a);
}

// ---- reductions ---------------------------------------------------------------------------------

ArrayPtr count(const Masked &a, std::vector<int32_t> axes, bool keepdims, int32_t split_every) {
  return red(CA_RED_SUM, not_(a.mask), axes, keepdims, split_every, 0, CA_INT64);
}

MaskedPtr reduce(int32_t op, const Masked &a, std::vector<int32_t> axes, bool keepdims, int32_t split_every,
                 int32_t ddof, DType dtype) {
  DType dt = a.data->dtype;
  switch (op) {
    case CA_RED_MEAN: return mean(a, axes, keepdims, split_every, dtype);
    case CA_RED_VAR: return var(a, axes, keepdims, split_every, ddof, dtype);
    case CA_RED_STD: return unary(CA_OP_SQRT, *var(a, axes, keepdims, split_every, ddof, dtype));
    case CA_RED_ARGMIN:
    case CA_RED_ARGMAX: {
      ArrayPtr d = a.nomask ? a.data : where_scalar(a.mask, extreme(dt, op == CA_RED_ARGMIN), a.data);
      return unmasked(red(op, d, axes, keepdims, split_every));
    }
    default: break;
  }
  ca_scalar_t fill;
  switch (op) {
    case CA_RED_SUM: fill = typed(dt, 0); break;
    case CA_RED_PROD: fill = typed(dt, 1); break;
    case CA_RED_MIN: fill = extreme(dt, true); break;
    case CA_RED_MAX: fill = extreme(dt, false); break;
    case CA_RED_ANY: fill = typed(dt, 0); break;
    case CA_RED_ALL: fill = typed(dt, 1); break;
    default:
      fail(CA_EINVAL, "masked reduce: reduction ", op,
           " is not one of sum, prod, mean, var, std, min, max, argmin, argmax, any, all");
  }
  ArrayPtr d = a.nomask ? a.data : where_scalar(a.mask, fill, a.data);
  ArrayPtr r = red(op, d, axes, keepdims, split_every, ddof, dtype);
  ArrayPtr m = all_masked(a, axes, keepdims, split_every);
  if ((op == CA_RED_MIN || op == CA_RED_MAX) && r->ndim() > 0 && !a.nomask)
    // numpy.ma: copyto(result, fill_value, where=newmask), the default fill value cast (63 in int8)
    r = where_scalar(m, cast_fill(default_fill_value(r->dtype), r->dtype), r);
  if (a.nomask) return assemble(r, false_like(r), true, false, {});
  return assemble(r, m);
}

std::pair<MaskedPtr, MaskedPtr> average(const Masked &a, const Masked *weights, std::vector<int32_t> axes,
                                        bool keepdims) {
  if (!weights) {
    MaskedPtr avg = mean(a, axes, keepdims, 0, 0);
    ArrayPtr scl = astype(count(a, axes, keepdims, 0), avg->data->dtype);
    return {avg, unmasked(scl)};
  }
  DType adt = a.data->dtype, wdt = weights->data->dtype;
  DType rdt = dtype_promote(adt, wdt);
  if (dtype_is_integer(adt) || adt == CA_BOOL) rdt = dtype_promote(rdt, CA_FLOAT64);
  MaskedPtr wgt = std::make_shared<Masked>(*weights);
  if (!a.nomask) {
    // wgt = wgt * ~a.mask; wgt.mask |= a.mask
    MaskedPtr notm = unmasked(not_(a.mask));
    wgt = binary(CA_OP_MUL, *wgt, *notm);
    wgt = assemble(wgt->data, or_(wgt->mask, a.mask));
  }
  MaskedPtr scl = ma::reduce(CA_RED_SUM, *wgt, axes, keepdims, 0, 0, rdt);
  auto cast = [&](const Masked &m) { return assemble(astype(m.data, rdt), m.mask, m.nomask, false, {}); };
  MaskedPtr prod = binary(CA_OP_MUL, *cast(a), *cast(*wgt));
  MaskedPtr num = ma::reduce(CA_RED_SUM, *prod, axes, keepdims, 0, 0, 0);
  MaskedPtr avg;
  if (num->data->ndim() == 0) {
    // numpy divides the two scalars: masked only when either is masked
    avg = assemble(elementwise_binary(CA_OP_DIV, num->data, scl->data), or_(num->mask, scl->mask));
  } else {
    avg = binary(CA_OP_DIV, *num, *scl);
  }
  if (scl->data->shape != avg->data->shape) scl = binary(CA_OP_ADD, *scl, *unmasked(zeros(avg->data->shape, avg->data->chunks, scl->data->dtype)));
  return {avg, scl};
}

}  // namespace ca::ma
