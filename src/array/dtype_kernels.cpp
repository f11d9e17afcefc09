// Instruction functions of fused elementwise programs for the dtypes with their own storage rules
// (core/dtype.hpp): float16 (binary16 storage; the compiler computes in float32 and casts back, so
// only casts, constants, where, and spacing/nextafter/nan_to_num, which need float16's own neighbours
// and largest value, exist here), datetime64 / timedelta64 (int64 with NaT, NumPy's
// datetime loops) and fixed-width bytes / unicode (comparisons, where, casts between widths).
// Baseline code only: these are not the hot loops of numeric work.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "array/expr_instr.hpp"
#include "core/datetime.hpp"
#include "core/half.hpp"
#include "core/numtext.hpp"

namespace ca::instr {

namespace {

[[noreturn]] void bad(const ExprInstr &ins, const char *why) {
  fail(CA_EFORMAT, "fused program: op ", ins.op, " on ", dtype_name(ins.in_dtype) ? dtype_name(ins.in_dtype) : "?",
       " -> ", dtype_name(ins.dtype) ? dtype_name(ins.dtype) : "?", ": ", why);
}

bool ext_dtype(DType t) { return t == CA_FLOAT16 || dtype_is_time(t) || dtype_is_string(t); }

// ---- generic -------------------------------------------------------------------------------------

void k_where_bytes(const ExprInstr &ins, const void *a, const void *b, const void *c, void *r, int64_t n) {
  const size_t isz = dtype_size(ins.dtype);
  const bool *pa = static_cast<const bool *>(a);
  const char *pb = static_cast<const char *>(b), *pc = static_cast<const char *>(c);
  char *pr = static_cast<char *>(r);
  for (int64_t i = 0; i < n; ++i) std::memcpy(pr + size_t(i) * isz, (pa[i] ? pb : pc) + size_t(i) * isz, isz);
}

void k_gen_elsewhere(const ExprInstr &, const void *, const void *, const void *, void *, int64_t) {
  fail(CA_EINTERNAL, "fused program: a generator evaluated without coordinates");
}

void k_const_f16(const ExprInstr &ins, const void *, const void *, const void *, void *r, int64_t n) {
  std::fill_n(static_cast<uint16_t *>(r), n, double_to_half(ins.value.real()));
}
void k_const_i64(const ExprInstr &ins, const void *, const void *, const void *, void *r, int64_t n) {
  std::fill_n(static_cast<int64_t *>(r), n, ins.ivalue);
}

// ---- float16 casts ---------------------------------------------------------------------------------

template <class To>
void k_from_half(const ExprInstr &, const void *a, const void *, const void *, void *r, int64_t n) {
  const uint16_t *pa = static_cast<const uint16_t *>(a);
  To *pr = static_cast<To *>(r);
  for (int64_t i = 0; i < n; ++i) pr[i] = To(half_to_float(pa[i]));
}

template <class From>
void k_to_half(const ExprInstr &, const void *a, const void *, const void *, void *r, int64_t n) {
  const From *pa = static_cast<const From *>(a);
  uint16_t *pr = static_cast<uint16_t *>(r);
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<From, std::complex<float>> || std::is_same_v<From, std::complex<double>>)
      pr[i] = double_to_half(double(pa[i].real()));
    else if constexpr (std::is_same_v<From, bool>) pr[i] = pa[i] ? 0x3c00 : 0;
    else pr[i] = double_to_half(double(pa[i]));
  }
}

void k_time_to_half(const ExprInstr &, const void *a, const void *, const void *, void *r, int64_t n) {
  const int64_t *pa = static_cast<const int64_t *>(a);
  uint16_t *pr = static_cast<uint16_t *>(r);
  for (int64_t i = 0; i < n; ++i) pr[i] = double_to_half(double(pa[i]));
}

// ---- datetime64 / timedelta64 ----------------------------------------------------------------------

void k_time_convert(const ExprInstr &ins, const void *a, const void *, const void *, void *r, int64_t n) {
  const int64_t *pa = static_cast<const int64_t *>(a);
  int64_t *pr = static_cast<int64_t *>(r);
  const int32_t from = dtype_unit(ins.in_dtype), to = dtype_unit(ins.dtype);
  // A datetime in a calendar unit converts through the calendar; a timedelta (or a kind change)
  // through NumPy's average year.
  const bool datetime = dtype_is_datetime(ins.in_dtype) && dtype_is_datetime(ins.dtype);
  if (from == to || from == 0 || to == 0) {  // same unit, or int64 <-> time: the values as they are
    std::memcpy(pr, pa, size_t(n) * 8);
    return;
  }
  for (int64_t i = 0; i < n; ++i) pr[i] = time_convert(pa[i], from, to, datetime);
}

inline int64_t wrap_add(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }
inline int64_t wrap_sub(int64_t a, int64_t b) { return int64_t(uint64_t(a) - uint64_t(b)); }
inline int64_t wrap_mul(int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); }

template <class R, class F>
void time_binary(const void *a, const void *b, void *r, int64_t n, F f) {
  const int64_t *pa = static_cast<const int64_t *>(a), *pb = static_cast<const int64_t *>(b);
  R *pr = static_cast<R *>(r);
  for (int64_t i = 0; i < n; ++i) pr[i] = f(pa[i], pb[i]);
}

#define CA_TIME_KERNEL(name, R, expr)                                                                \
  void name(const ExprInstr &, const void *a, const void *b, const void *, void *r, int64_t n) {   \
    time_binary<R>(a, b, r, n, [](int64_t x, int64_t y) -> R { return expr; });                     \
  }

CA_TIME_KERNEL(k_t_add, int64_t, (x == kNaT || y == kNaT) ? kNaT : wrap_add(x, y))
CA_TIME_KERNEL(k_t_sub, int64_t, (x == kNaT || y == kNaT) ? kNaT : wrap_sub(x, y))
CA_TIME_KERNEL(k_t_mul, int64_t, (x == kNaT || y == kNaT) ? kNaT : wrap_mul(x, y))
CA_TIME_KERNEL(k_t_div_f, double,
               (x == kNaT || y == kNaT) ? std::numeric_limits<double>::quiet_NaN() : double(x) / double(y))
CA_TIME_KERNEL(k_t_div_i, int64_t, (x == kNaT || y == 0 || y == kNaT) ? kNaT : (y == -1 ? wrap_sub(0, x) : x / y))
// timedelta // timedelta: NumPy gives 0 (with a RuntimeWarning) for NaT or a zero divisor.
CA_TIME_KERNEL(k_t_floordiv, int64_t,
               (x == kNaT || y == kNaT || y == 0) ? 0
                                                  : (y == -1 ? wrap_sub(0, x)
                                                             : (x / y - ((x % y != 0) && ((x < 0) != (y < 0))))))
// timedelta // integer: a timedelta (NaT for NaT or a zero divisor), truncated as NumPy's loop.
CA_TIME_KERNEL(k_t_floordiv_m, int64_t,
               (x == kNaT || y == kNaT || y == 0) ? kNaT : (y == -1 ? wrap_sub(0, x) : x / y))
CA_TIME_KERNEL(k_t_mod, int64_t,
               (x == kNaT || y == kNaT || y == 0) ? kNaT
                                                  : (y == -1 ? 0 : ((x % y != 0 && ((x % y < 0) != (y < 0))) ? x % y + y : x % y)))
CA_TIME_KERNEL(k_t_eq, bool, x == y && x != kNaT)
CA_TIME_KERNEL(k_t_ne, bool, x != y || x == kNaT)
CA_TIME_KERNEL(k_t_lt, bool, x != kNaT && y != kNaT && x < y)
CA_TIME_KERNEL(k_t_le, bool, x != kNaT && y != kNaT && x <= y)
CA_TIME_KERNEL(k_t_gt, bool, x != kNaT && y != kNaT && x > y)
CA_TIME_KERNEL(k_t_ge, bool, x != kNaT && y != kNaT && x >= y)
CA_TIME_KERNEL(k_t_max, int64_t, (x == kNaT || y == kNaT) ? kNaT : std::max(x, y))
CA_TIME_KERNEL(k_t_min, int64_t, (x == kNaT || y == kNaT) ? kNaT : std::min(x, y))
#undef CA_TIME_KERNEL

// timedelta64 * float64 (ivalue 0) or / float64 (ivalue 1): NumPy's m8,f8->m8 loops (NaT for NaT and for
// a non-finite result; a result beyond int64 is NaT too instead of C's undefined conversion).
void k_t_scale(const ExprInstr &ins, const void *a, const void *b, const void *, void *r, int64_t n) {
  const int64_t *pa = static_cast<const int64_t *>(a);
  const double *pb = static_cast<const double *>(b);
  int64_t *pr = static_cast<int64_t *>(r);
  const bool div = ins.ivalue == 1;
  for (int64_t i = 0; i < n; ++i) {
    if (pa[i] == kNaT) {
      pr[i] = kNaT;
      continue;
    }
    const double v = div ? double(pa[i]) / pb[i] : double(pa[i]) * pb[i];
    pr[i] = (std::isfinite(v) && v > -9223372036854775808.0 && v < 9223372036854775808.0) ? int64_t(v) : kNaT;
  }
}

template <class R, class F>
void time_unary(const void *a, void *r, int64_t n, F f) {
  const int64_t *pa = static_cast<const int64_t *>(a);
  R *pr = static_cast<R *>(r);
  for (int64_t i = 0; i < n; ++i) pr[i] = f(pa[i]);
}
void k_t_neg(const ExprInstr &, const void *a, const void *, const void *, void *r, int64_t n) {
  time_unary<int64_t>(a, r, n, [](int64_t x) { return x == kNaT ? kNaT : wrap_sub(0, x); });
}
void k_t_abs(const ExprInstr &, const void *a, const void *, const void *, void *r, int64_t n) {
  time_unary<int64_t>(a, r, n, [](int64_t x) { return x == kNaT ? kNaT : (x < 0 ? wrap_sub(0, x) : x); });
}
void k_t_sign(const ExprInstr &, const void *a, const void *, const void *, void *r, int64_t n) {
  time_unary<int64_t>(a, r, n, [](int64_t x) -> int64_t { return x == kNaT ? kNaT : (x > 0) - (x < 0); });
}
void k_t_isnat(const ExprInstr &, const void *a, const void *, const void *, void *r, int64_t n) {
  time_unary<bool>(a, r, n, [](int64_t x) { return x == kNaT; });
}
void k_t_isfinite(const ExprInstr &, const void *a, const void *, const void *, void *r, int64_t n) {
  time_unary<bool>(a, r, n, [](int64_t x) { return x != kNaT; });
}
void k_t_isinf(const ExprInstr &, const void *, const void *, const void *, void *r, int64_t n) {
  std::fill_n(static_cast<bool *>(r), n, false);
}

// ---- bytes / unicode -------------------------------------------------------------------------------

// Compare two equal-width strings (NUL padded): bytes as unsigned char, unicode as uint32 code points.
template <class C>
int str_cmp(const C *x, const C *y, int64_t len) {
  for (int64_t k = 0; k < len; ++k)
    if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
  return 0;
}

template <class C, int32_t Op>
void k_s_cmp(const ExprInstr &ins, const void *a, const void *b, const void *, void *r, int64_t n) {
  const int64_t len = dtype_length(ins.in_dtype);
  const C *pa = static_cast<const C *>(a), *pb = static_cast<const C *>(b);
  bool *pr = static_cast<bool *>(r);
  for (int64_t i = 0; i < n; ++i) {
    const int c = str_cmp(pa + i * len, pb + i * len, len);
    switch (Op) {
      case CA_OP_EQ: pr[i] = c == 0; break;
      case CA_OP_NE: pr[i] = c != 0; break;
      case CA_OP_LT: pr[i] = c < 0; break;
      case CA_OP_LE: pr[i] = c <= 0; break;
      case CA_OP_GT: pr[i] = c > 0; break;
      default: pr[i] = c >= 0; break;
    }
  }
}

// Between widths and between bytes and unicode (bytes are code points 0..127 as NumPy's ASCII codec:
// other bytes and code points raise, as NumPy's UnicodeDecodeError / UnicodeEncodeError).
template <class From, class To>
void k_s_cast(const ExprInstr &ins, const void *a, const void *, const void *, void *r, int64_t n) {
  const int64_t lf = dtype_length(ins.in_dtype), lt = dtype_length(ins.dtype);
  const From *pa = static_cast<const From *>(a);
  To *pr = static_cast<To *>(r);
  const int64_t m = std::min(lf, lt);
  for (int64_t i = 0; i < n; ++i) {
    const From *s = pa + i * lf;
    To *d = pr + i * lt;
    for (int64_t k = 0; k < m; ++k) {
      if constexpr (!std::is_same_v<From, To>) {
        if (uint32_t(s[k]) > 127)
          fail(CA_EINVAL, "astype ", dtype_name(ins.in_dtype), " -> ", dtype_name(ins.dtype), ": character ",
               uint32_t(s[k]), " is not ASCII (NumPy raises ", sizeof(From) == 1 ? "UnicodeDecodeError" : "UnicodeEncodeError",
               ")");
      }
      d[k] = To(s[k]);
    }
    for (int64_t k = m; k < lt; ++k) d[k] = 0;
  }
}

// Numbers to bytes/unicode (NumPy's str of each value, cut to the width) and back (Python's int() and
// float() of the text; an error names the text, as NumPy's ValueError does).
template <class T>
std::string number_text(const T &v) {
  if constexpr (std::is_same_v<T, bool>) return v ? "True" : "False";
  else if constexpr (std::is_same_v<T, Half>) return float_text(double(v), 16);
  else if constexpr (std::is_same_v<T, float>) return float_text(double(v), 32);
  else if constexpr (std::is_same_v<T, double>) return float_text(v, 64);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return complex_text(std::complex<double>(v.real(), v.imag()), 32);
  else if constexpr (std::is_same_v<T, std::complex<double>>) return complex_text(v, 64);
  else if constexpr (std::is_signed_v<T>) return int_text(int64_t(v));
  else return uint_text(uint64_t(v));
}

template <class T, class C>
void k_num_to_str(const ExprInstr &ins, const void *a, const void *, const void *, void *r, int64_t n) {
  const int64_t len = dtype_length(ins.dtype);
  const T *pa = static_cast<const T *>(a);
  C *pr = static_cast<C *>(r);
  for (int64_t i = 0; i < n; ++i) {
    const std::string t = number_text(pa[i]);
    C *d = pr + i * len;
    const int64_t m = std::min<int64_t>(len, int64_t(t.size()));
    for (int64_t k = 0; k < m; ++k) d[k] = C(uint8_t(t[size_t(k)]));
    for (int64_t k = m; k < len; ++k) d[k] = 0;
  }
}

template <class C>
std::string element_text(const C *p, int64_t len, DType dt) {
  int64_t e = len;
  while (e > 0 && p[e - 1] == 0) --e;  // NumPy strips the NUL padding
  std::string s;
  for (int64_t k = 0; k < e; ++k) {
    if (uint32_t(p[k]) > 127)
      fail(CA_EINVAL, "astype ", dtype_name(dt), " -> number: character ", uint32_t(p[k]), " is not a digit, sign or ASCII letter");
    s.push_back(char(p[k]));
  }
  return s;
}

template <class C, class T>
void k_str_to_num(const ExprInstr &ins, const void *a, const void *, const void *, void *r, int64_t n) {
  const int64_t len = dtype_length(ins.in_dtype);
  const C *pa = static_cast<const C *>(a);
  T *pr = static_cast<T *>(r);
  for (int64_t i = 0; i < n; ++i) {
    const std::string t = element_text(pa + i * len, len, ins.in_dtype);
    if constexpr (std::is_same_v<T, bool>) {
      pr[i] = parse_int_text(t) != 0;  // NumPy: bool(int(text))
    } else if constexpr (std::is_integral_v<T>) {
      pr[i] = T(uint64_t((unsigned __int128)parse_int_text(t)));  // wraps as NumPy's int -> fixed cast
    } else if constexpr (std::is_same_v<T, Half>) {
      pr[i] = Half(parse_float_text(t));
    } else {
      pr[i] = T(parse_float_text(t));
    }
  }
}

template <class C>
Fn str_number_fn(const ExprInstr &ins, bool to_str) {
  const DType num = to_str ? ins.in_dtype : ins.dtype;
  if (!to_str && dtype_is_complex(num)) bad(ins, "complex from text is not supported");
  return dispatch_dtype_f16(num, [&](auto tag) -> Fn {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
      if (!to_str) bad(ins, "complex from text is not supported");
      return &k_num_to_str<T, C>;
    } else {
      return to_str ? &k_num_to_str<T, C> : &k_str_to_num<C, T>;
    }
  });
}

Fn time_binary_fn(const ExprInstr &ins) {
  const DType in = ins.in_dtype, out = ins.dtype;
  const bool out_time = dtype_base(out) == CA_DATETIME64 || dtype_base(out) == CA_TIMEDELTA64;
  auto need = [&](bool ok) {
    if (!ok) bad(ins, "operation not defined for these dtypes");
  };
  switch (ins.op) {
    case CA_OP_ADD: need(out_time); return &k_t_add;
    case CA_OP_SUB: need(out_time); return &k_t_sub;
    case CA_OP_MUL: need(dtype_is_timedelta(out)); return &k_t_mul;
    case CA_OP_DIV:
      need(dtype_is_timedelta(in) && (out == CA_FLOAT64 || out == in));
      return out == CA_FLOAT64 ? &k_t_div_f : &k_t_div_i;
    case CA_OP_FLOORDIV:
      need(dtype_is_timedelta(in) && (out == CA_INT64 || out == in));
      return out == CA_INT64 ? &k_t_floordiv : &k_t_floordiv_m;
    case CA_OP_MOD: need(dtype_is_timedelta(in) && out == in); return &k_t_mod;
    case CA_OP_EQ: need(out == CA_BOOL); return &k_t_eq;
    case CA_OP_NE: need(out == CA_BOOL); return &k_t_ne;
    case CA_OP_LT: need(out == CA_BOOL); return &k_t_lt;
    case CA_OP_LE: need(out == CA_BOOL); return &k_t_le;
    case CA_OP_GT: need(out == CA_BOOL); return &k_t_gt;
    case CA_OP_GE: need(out == CA_BOOL); return &k_t_ge;
    case CA_OP_MAXIMUM: need(out == in); return &k_t_max;
    case CA_OP_MINIMUM: need(out == in); return &k_t_min;
    default: bad(ins, "operation not defined for datetime64/timedelta64");
  }
}

Fn time_unary_fn(const ExprInstr &ins) {
  switch (ins.op) {
    case CA_OP_NEG:
    case CA_OP_ABS:
    case CA_OP_SIGN:
      if (!dtype_is_timedelta(ins.in_dtype) || ins.dtype != ins.in_dtype) bad(ins, "wrong dtypes");
      return ins.op == CA_OP_NEG ? &k_t_neg : ins.op == CA_OP_ABS ? &k_t_abs : &k_t_sign;
    case CA_OP_ISNAN:
    case CA_OP_ISFINITE:
    case CA_OP_ISINF:
      if (ins.dtype != CA_BOOL) bad(ins, "wrong result dtype");
      return ins.op == CA_OP_ISNAN ? &k_t_isnat : ins.op == CA_OP_ISFINITE ? &k_t_isfinite : &k_t_isinf;
    default: bad(ins, "operation not defined for datetime64/timedelta64");
  }
}

template <class C>
Fn string_cmp_fn(const ExprInstr &ins) {
  switch (ins.op) {
    case CA_OP_EQ: return &k_s_cmp<C, CA_OP_EQ>;
    case CA_OP_NE: return &k_s_cmp<C, CA_OP_NE>;
    case CA_OP_LT: return &k_s_cmp<C, CA_OP_LT>;
    case CA_OP_LE: return &k_s_cmp<C, CA_OP_LE>;
    case CA_OP_GT: return &k_s_cmp<C, CA_OP_GT>;
    case CA_OP_GE: return &k_s_cmp<C, CA_OP_GE>;
    default: bad(ins, "operation not defined for strings");
  }
}

Fn cast_fn(const ExprInstr &ins) {
  const DType from = ins.in_dtype, to = ins.dtype;
  if (dtype_is_string(from) != dtype_is_string(to) && !dtype_is_time(from) && !dtype_is_time(to)) {
    const bool to_str = dtype_is_string(to);
    return dtype_kind(to_str ? to : from) == 'S' ? str_number_fn<uint8_t>(ins, to_str) : str_number_fn<uint32_t>(ins, to_str);
  }
  if (from == CA_FLOAT16) {
    if (to == CA_FLOAT32) return &k_from_half<float>;
    if (to == CA_FLOAT64) return &k_from_half<double>;
    bad(ins, "float16 casts through float32");
  }
  if (to == CA_FLOAT16) {
    if (dtype_is_time(from)) return &k_time_to_half;
    return dispatch_dtype(from, [](auto tag) -> Fn { return &k_to_half<typename decltype(tag)::type>; });
  }
  if (dtype_is_time(from) || dtype_is_time(to)) {
    const bool ok = (dtype_is_time(from) && dtype_is_time(to)) || (from == CA_INT64 && dtype_is_time(to)) ||
                    (dtype_is_time(from) && to == CA_INT64);
    if (!ok) bad(ins, "datetime64/timedelta64 casts go through int64");
    return &k_time_convert;
  }
  const char kf = dtype_kind(from), kt = dtype_kind(to);
  if (kf == 'S' && kt == 'S') return &k_s_cast<uint8_t, uint8_t>;
  if (kf == 'S' && kt == 'U') return &k_s_cast<uint8_t, uint32_t>;
  if (kf == 'U' && kt == 'S') return &k_s_cast<uint32_t, uint8_t>;
  if (kf == 'U' && kt == 'U') return &k_s_cast<uint32_t, uint32_t>;
  bad(ins, "no cast between these dtypes");
}

// ---- float16 ops whose result depends on float16's own precision (NumPy's npy_half_* functions on
// the bits; array/expr.cpp's half_native): every other op computes float16 in float32 ---------------

constexpr uint16_t kHalfNan = 0x7e00u;
inline bool h_isnan(uint16_t h) { return (h & 0x7fffu) > 0x7c00u; }

inline uint16_t h_nextafter(uint16_t x, uint16_t y) {  // npy_half_nextafter
  if (h_isnan(x) || h_isnan(y)) return kHalfNan;
  if (x == y || ((x | y) & 0x7fffu) == 0) return x;  // equal (+0 == -0 too)
  if ((x & 0x7fffu) == 0) return uint16_t((y & 0x8000u) + 1);
  if (!(x & 0x8000u)) return int16_t(x) > int16_t(y) ? uint16_t(x - 1) : uint16_t(x + 1);
  if (!(y & 0x8000u) || (x & 0x7fffu) > (y & 0x7fffu)) return uint16_t(x - 1);
  return uint16_t(x + 1);
}
inline uint16_t h_spacing(uint16_t h) {  // npy_half_spacing (unsigned for negative values, as NumPy)
  const uint16_t e = h & 0x7c00u, sig = h & 0x03ffu;
  if (e == 0x7c00u) return kHalfNan;
  if (h == 0x7bffu) return 0x7c00u;
  if ((h & 0x8000u) && sig == 0) {
    if (e > 0x2c00u) return uint16_t(e - 0x2c00u);
    if (e > 0x0400u) return uint16_t(1u << ((e >> 10) - 2));
    return 0x0001u;
  }
  if (e > 0x2800u) return uint16_t(e - 0x2800u);
  if (e > 0x0400u) return uint16_t(1u << ((e >> 10) - 1));
  return 0x0001u;
}
inline uint16_t h_nan_to_num(uint16_t h) {
  if (h_isnan(h)) return 0;
  if ((h & 0x7fffu) == 0x7c00u) return (h & 0x8000u) ? 0xfbffu : 0x7bffu;
  return h;
}

template <uint16_t (*F)(uint16_t)>
void k_half_unary(const ExprInstr &, const void *a, const void *, const void *, void *r, int64_t n) {
  const uint16_t *__restrict pa = static_cast<const uint16_t *>(a);
  uint16_t *__restrict pr = static_cast<uint16_t *>(r);
  for (int64_t i = 0; i < n; ++i) pr[i] = F(pa[i]);
}
template <uint16_t (*F)(uint16_t, uint16_t)>
void k_half_binary(const ExprInstr &, const void *a, const void *b, const void *, void *r, int64_t n) {
  const uint16_t *__restrict pa = static_cast<const uint16_t *>(a);
  const uint16_t *__restrict pb = static_cast<const uint16_t *>(b);
  uint16_t *__restrict pr = static_cast<uint16_t *>(r);
  for (int64_t i = 0; i < n; ++i) pr[i] = F(pa[i], pb[i]);
}

}  // namespace

bool is_ext_instr(const ExprInstr &ins) { return ext_dtype(ins.in_dtype) || ext_dtype(ins.dtype); }

Fn resolve_ext(const ExprInstr &ins, int variant) {
  if (variant) return nullptr;  // no scalar-operand versions: invariant operands fill a tile
  if (!dtype_valid(ins.dtype) || !dtype_valid(ins.in_dtype)) bad(ins, "bad dtype");
  switch (ins.op) {
    case kOpConst:
      if (ins.dtype == CA_FLOAT16) return &k_const_f16;
      if (dtype_is_time(ins.dtype)) return &k_const_i64;
      bad(ins, "no constants of this dtype (strings are 0-d arrays)");
    case kOpCast: return cast_fn(ins);
    case kOpGen: return &k_gen_elsewhere;
    case kOpTimeScale:
      if (!dtype_is_timedelta(ins.dtype) || ins.in_dtype != ins.dtype) bad(ins, "scales timedelta64 only");
      return &k_t_scale;
    case kOpWhere:
      if (ins.in_dtype != ins.dtype) bad(ins, "where computes in its result dtype");
      return &k_where_bytes;
    default: break;
  }
  if (ins.in_dtype == CA_FLOAT16 && ins.dtype == CA_FLOAT16) {
    switch (ins.op) {
      case CA_OP_SPACING: return &k_half_unary<h_spacing>;
      case CA_OP_NAN_TO_NUM: return &k_half_unary<h_nan_to_num>;
      case CA_OP_NEXTAFTER: return &k_half_binary<h_nextafter>;
      default: break;
    }
  }
  if (ins.in_dtype == CA_FLOAT16 || ins.dtype == CA_FLOAT16) bad(ins, "float16 computes in float32");
  if (dtype_is_time(ins.in_dtype)) {
    const bool binary = ins.op >= CA_OP_ADD && ins.op <= CA_OP_BITXOR;
    return binary ? time_binary_fn(ins) : time_unary_fn(ins);
  }
  if (dtype_is_string(ins.in_dtype)) {
    if (ins.dtype != CA_BOOL) bad(ins, "strings only compare");
    return dtype_kind(ins.in_dtype) == 'S' ? string_cmp_fn<uint8_t>(ins) : string_cmp_fn<uint32_t>(ins);
  }
  bad(ins, "operation not defined for this dtype");
}

}  // namespace ca::instr
