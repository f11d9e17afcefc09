// The interpreter of fused elementwise programs (array/expr.hpp) and the `ca.fused` kernel.
//
// A program is a register machine over tiles: the output (the broadcast shape of the inputs) is
// walked in C order in tiles of kTile elements; every register is one tile buffer. Inputs with the
// output's size are read in place, broadcast inputs are gathered per tile (stride 0 along broadcast
// dimensions), size-1 inputs and constants are filled once. Each instruction resolves once per
// program to a function pointer instantiated for its dtype, whose loop is a plain typed loop over
// __restrict pointers (GCC vectorizes the arithmetic at -O3). Register buffers are reused once their
// value is dead, so a long chain needs only a few tiles of scratch memory.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <type_traits>

#include "array/create.hpp"
#include "array/expr.hpp"
#include "core/isa.hpp"
#include "kernel/kernel.hpp"

namespace ca {

namespace {

#ifndef CA_FUSED_TILE
#define CA_FUSED_TILE 1024
#endif
constexpr int64_t kTile = CA_FUSED_TILE;  // elements per tile (16 KiB of float64 per register)
constexpr size_t kMaxItem = 16;  // largest dtype (complex128)

template <class T>
struct is_cplx : std::false_type {};
template <class T>
struct is_cplx<std::complex<T>> : std::true_type {};
template <class T>
constexpr bool is_cplx_v = is_cplx<T>::value;

template <class T>
struct real_of {
  using type = T;
};
template <class T>
struct real_of<std::complex<T>> {
  using type = T;
};
template <class T>
using real_t = typename real_of<T>::type;

template <class T>
constexpr bool is_bool_v = std::is_same_v<T, bool>;
template <class T>
constexpr bool is_int_v = std::is_integral_v<T> && !is_bool_v<T>;  // int8..uint64
template <class T>
constexpr bool is_float_v = std::is_floating_point_v<T>;
template <class T>
constexpr bool is_inexact_v = is_float_v<T> || is_cplx_v<T>;

// ---- integer arithmetic with NumPy's wrap-around (no UB) -----------------------------------------

template <class T>
using wide_u = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <class T>
inline T wadd(T a, T b) {
  if constexpr (is_int_v<T>) return T(wide_u<T>(a) + wide_u<T>(b));
  else return a + b;
}
template <class T>
inline T wsub(T a, T b) {
  if constexpr (is_int_v<T>) return T(wide_u<T>(a) - wide_u<T>(b));
  else return a - b;
}
template <class T>
inline T wmul(T a, T b) {
  if constexpr (is_int_v<T>) return T(wide_u<T>(a) * wide_u<T>(b));
  else return a * b;
}

// ---- casts as NumPy's astype on x86-64 ------------------------------------------------------------

// C casts of out-of-range floats are UB; these reproduce what x86-64 (cvttsd2si) gives NumPy.
inline int64_t f2i64(double x) {
  return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? int64_t(x) : std::numeric_limits<int64_t>::min();
}
inline int32_t f2i32(double x) {
  return (x > -2147483649.0 && x < 2147483648.0) ? int32_t(x) : std::numeric_limits<int32_t>::min();
}
inline uint64_t f2u64(double x) {
  if (x != x) return uint64_t(1) << 63;
  if (x < 9223372036854775808.0) return uint64_t(f2i64(x));
  return uint64_t(f2i64(x - 9223372036854775808.0)) ^ (uint64_t(1) << 63);
}
template <class To>
inline To float_to_int(double x) {
  if constexpr (std::is_same_v<To, int64_t>) return f2i64(x);
  else if constexpr (std::is_same_v<To, uint64_t>) return f2u64(x);
  else if constexpr (std::is_same_v<To, uint32_t>) return To(f2i64(x));
  else return To(f2i32(x));  // int32 and the narrower types (through a 32-bit conversion)
}

template <class To, class From>
inline To cvt(From x) {
  if constexpr (std::is_same_v<To, From>) return x;
  else if constexpr (is_bool_v<To>) {
    if constexpr (is_cplx_v<From>) return x.real() != 0 || x.imag() != 0;
    else return x != From(0);
  } else if constexpr (is_cplx_v<From>) {
    if constexpr (is_cplx_v<To>) return To(typename To::value_type(x.real()), typename To::value_type(x.imag()));
    else return cvt<To>(x.real());  // NumPy drops the imaginary part (ComplexWarning)
  } else if constexpr (is_cplx_v<To>) {
    return To(typename To::value_type(x), typename To::value_type(0));
  } else if constexpr (is_float_v<From> && is_int_v<To>) {
    return float_to_int<To>(double(x));
  } else {
    return To(x);  // int -> int wraps (C++20), int/bool -> float, float -> float
  }
}

// ---- instruction functions -------------------------------------------------------------------------

using Fn = void (*)(const ExprInstr &ins, const void *a, const void *b, const void *c, void *r, int64_t n);

template <class T, class R, class Op>
void k_unary(const ExprInstr &, const void *a, const void *, const void *, void *r, int64_t n) {
  const T *__restrict pa = static_cast<const T *>(a);
  R *__restrict pr = static_cast<R *>(r);
  for (int64_t i = 0; i < n; ++i) pr[i] = Op::template f<T>(pa[i]);
}

// SA / SB: operand a / b is a scalar (an invariant register: only its first element is read).
template <class T, class R, class Op, bool SA = false, bool SB = false>
void k_binary(const ExprInstr &, const void *a, const void *b, const void *, void *r, int64_t n) {
  const T *__restrict pa = static_cast<const T *>(a);
  const T *__restrict pb = static_cast<const T *>(b);
  R *__restrict pr = static_cast<R *>(r);
  if constexpr (SA) {
    const T x = pa[0];
    for (int64_t i = 0; i < n; ++i) pr[i] = Op::template f<T>(x, pb[i]);
  } else if constexpr (SB) {
    const T y = pb[0];
    for (int64_t i = 0; i < n; ++i) pr[i] = Op::template f<T>(pa[i], y);
  } else {
    for (int64_t i = 0; i < n; ++i) pr[i] = Op::template f<T>(pa[i], pb[i]);
  }
}

template <class From, class To>
void k_cast(const ExprInstr &, const void *a, const void *, const void *, void *r, int64_t n) {
  const From *__restrict pa = static_cast<const From *>(a);
  To *__restrict pr = static_cast<To *>(r);
  for (int64_t i = 0; i < n; ++i) pr[i] = cvt<To>(pa[i]);
}

template <class T>
void k_const(const ExprInstr &ins, const void *, const void *, const void *, void *r, int64_t n) {
  T v;
  if constexpr (is_bool_v<T>) v = ins.ivalue != 0;
  else if constexpr (std::is_unsigned_v<T>) v = T(ins.uvalue);
  else if constexpr (is_int_v<T>) v = T(ins.ivalue);
  else if constexpr (is_float_v<T>) v = T(ins.value.real());
  else v = T(typename T::value_type(ins.value.real()), typename T::value_type(ins.value.imag()));
  T *__restrict pr = static_cast<T *>(r);
  for (int64_t i = 0; i < n; ++i) pr[i] = v;
}

template <class T>
void k_where(const ExprInstr &, const void *a, const void *b, const void *c, void *r, int64_t n) {
  const bool *__restrict pa = static_cast<const bool *>(a);
  const T *__restrict pb = static_cast<const T *>(b);
  const T *__restrict pc = static_cast<const T *>(c);
  T *__restrict pr = static_cast<T *>(r);
  for (int64_t i = 0; i < n; ++i) pr[i] = pa[i] ? pb[i] : pc[i];
}

// Integer power: NumPy raises for negative exponents; results wrap.
template <class T>
void k_ipow(const ExprInstr &, const void *a, const void *b, const void *, void *r, int64_t n) {
  const T *__restrict pa = static_cast<const T *>(a);
  const T *__restrict pb = static_cast<const T *>(b);
  T *__restrict pr = static_cast<T *>(r);
  if constexpr (std::is_signed_v<T>) {
    for (int64_t i = 0; i < n; ++i)
      if (pb[i] < 0) fail(CA_EINVAL, "Integers to negative integer powers are not allowed (exponent ", int64_t(pb[i]), ")");
  }
  for (int64_t i = 0; i < n; ++i) {
    T base = pa[i];
    auto e = std::make_unsigned_t<T>(pb[i]);
    T acc = 1;
    while (e) {
      if (e & 1) acc = wmul(acc, base);
      base = wmul(base, base);
      e >>= 1;
    }
    pr[i] = acc;
  }
}

// np.round(x, decimals) (decimals = int(ins.value.real())).
template <class T>
void k_round_dec(const ExprInstr &ins, const void *a, const void *, const void *, void *r, int64_t n) {
  const int d = int(ins.value.real());
  const T *__restrict pa = static_cast<const T *>(a);
  T *__restrict pr = static_cast<T *>(r);
  if constexpr (is_int_v<T>) {
    if (d >= 0) {
      for (int64_t i = 0; i < n; ++i) pr[i] = pa[i];
      return;
    }
    const double f = std::pow(10.0, double(-d));
    for (int64_t i = 0; i < n; ++i) pr[i] = cvt<T>(std::nearbyint(double(pa[i]) / f) * f);
  } else {
    using F = real_t<T>;
    const F f = F(std::pow(10.0, double(d >= 0 ? d : -d)));
    auto rnd = [&](F x) -> F { return d >= 0 ? std::nearbyint(x * f) / f : std::nearbyint(x / f) * f; };
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (is_cplx_v<T>) pr[i] = T(rnd(pa[i].real()), rnd(pa[i].imag()));
      else pr[i] = rnd(pa[i]);
    }
  }
}

// ---- the operations (f<T>: one element; ok<T>: whether the op exists for T; R<T>: its result) ------

template <class T>
inline bool c_isnan(T x) {
  if constexpr (is_cplx_v<T>) return std::isnan(x.real()) || std::isnan(x.imag());
  else if constexpr (is_float_v<T>) return std::isnan(x);
  else return false;
}

// NumPy's lexicographic complex ordering (npy_math: CLT, CLE, CGT, CGE).
template <class T>
inline bool clt(T x, T y) {
  return (x.real() < y.real() && x.imag() == x.imag() && y.imag() == y.imag()) ||
         (x.real() == y.real() && x.imag() < y.imag());
}
template <class T>
inline bool cle(T x, T y) {
  return (x.real() < y.real() && x.imag() == x.imag() && y.imag() == y.imag()) ||
         (x.real() == y.real() && x.imag() <= y.imag());
}

#define CA_SAME_RESULT   \
  template <class T>     \
  using R = T;
#define CA_BOOL_RESULT   \
  template <class T>     \
  using R = bool;

struct OpAdd {
  template <class T> static constexpr bool ok = true;
  CA_SAME_RESULT
  template <class T> static T f(T a, T b) {
    if constexpr (is_bool_v<T>) return a || b;
    else return wadd(a, b);
  }
};
struct OpSub {
  template <class T> static constexpr bool ok = !is_bool_v<T>;
  CA_SAME_RESULT
  template <class T> static T f(T a, T b) { return wsub(a, b); }
};
struct OpMul {
  template <class T> static constexpr bool ok = true;
  CA_SAME_RESULT
  template <class T> static T f(T a, T b) {
    if constexpr (is_bool_v<T>) return a && b;
    else return wmul(a, b);
  }
};
struct OpDiv {
  template <class T> static constexpr bool ok = is_inexact_v<T>;
  CA_SAME_RESULT
  template <class T> static T f(T a, T b) { return a / b; }
};

// npy_divmod: Python's floor division and modulo for floats.
template <class F>
inline F fl_floordiv(F a, F b) {
  if (b == 0) return a / b;
  F mod = std::fmod(a, b);
  F div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) div -= F(1);
  }
  F fdiv;
  if (div != 0) {
    fdiv = std::floor(div);
    if (div - fdiv > F(0.5)) fdiv += F(1);
  } else {
    fdiv = std::copysign(F(0), a / b);
  }
  return fdiv;
}
template <class F>
inline F fl_mod(F a, F b) {
  if (b == 0) return std::fmod(a, b);
  F mod = std::fmod(a, b);
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = std::copysign(F(0), b);
  }
  return mod;
}

struct OpFloorDiv {
  template <class T> static constexpr bool ok = is_int_v<T> || is_float_v<T>;
  CA_SAME_RESULT
  template <class T> static T f(T a, T b) {
    if constexpr (is_float_v<T>) {
      return fl_floordiv(a, b);
    } else if constexpr (std::is_unsigned_v<T>) {
      return b == 0 ? T(0) : T(a / b);
    } else {
      if (b == 0) return T(0);
      if (b == T(-1)) return T(wide_u<T>(0) - wide_u<T>(a));  // MIN // -1 wraps to MIN as NumPy
      T q = T(a / b);
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      return q;
    }
  }
};
struct OpMod {
  template <class T> static constexpr bool ok = is_int_v<T> || is_float_v<T>;
  CA_SAME_RESULT
  template <class T> static T f(T a, T b) {
    if constexpr (is_float_v<T>) {
      return fl_mod(a, b);
    } else if constexpr (std::is_unsigned_v<T>) {
      return b == 0 ? T(0) : T(a % b);
    } else {
      if (b == 0 || b == T(-1)) return T(0);
      T m = T(a % b);
      if (m != 0 && ((m < 0) != (b < 0))) m = T(m + b);
      return m;
    }
  }
};

// Complex power as NumPy's npy_cpow: exact repeated multiplication for small integral exponents.
template <class C>
inline C cpow(C a, C b) {
  using F = typename C::value_type;
  if (b.real() == 0 && b.imag() == 0) return C(1, 0);
  if (a.real() == 0 && a.imag() == 0) {
    if (b.real() > 0 && b.imag() == 0) return C(0, 0);
    return C(std::numeric_limits<F>::quiet_NaN(), std::numeric_limits<F>::quiet_NaN());
  }
  if (b.imag() == 0 && b.real() == std::trunc(b.real()) && std::fabs(b.real()) < 100) {
    long n = long(b.real());
    if (n == 1) return a;
    if (n == 2) return a * a;
    if (n == 3) return a * a * a;
    if (n > -100 && n < 100) {
      unsigned long mask = 1;
      long an = n < 0 ? -n : n;
      C aa(1, 0), p = a;
      while (true) {
        if (an & long(mask)) aa = aa * p;
        mask <<= 1;
        if (long(mask) > an || mask == 0) break;
        p = p * p;
      }
      if (n < 0) return C(1, 0) / aa;
      return aa;
    }
  }
  return std::pow(a, b);
}

struct OpPow {
  template <class T> static constexpr bool ok = is_inexact_v<T>;
  CA_SAME_RESULT
  template <class T> static T f(T a, T b) {
    if constexpr (is_cplx_v<T>) return cpow(a, b);
    else return std::pow(a, b);
  }
};

#define CA_CMP(NAME, EXPR, CEXPR)                                  \
  struct NAME {                                                    \
    template <class T> static constexpr bool ok = true;            \
    CA_BOOL_RESULT                                                 \
    template <class T> static bool f(T a, T b) {                   \
      if constexpr (is_cplx_v<T>) return CEXPR;                    \
      else return EXPR;                                            \
    }                                                              \
  };
CA_CMP(OpEq, a == b, a == b)
CA_CMP(OpNe, a != b, a != b)
CA_CMP(OpLt, a < b, clt(a, b))
CA_CMP(OpLe, a <= b, cle(a, b))
CA_CMP(OpGt, a > b, clt(b, a))
CA_CMP(OpGe, a >= b, cle(b, a))
#undef CA_CMP

struct OpLAnd {
  template <class T> static constexpr bool ok = is_bool_v<T>;
  CA_BOOL_RESULT
  template <class T> static bool f(T a, T b) { return a && b; }
};
struct OpLOr {
  template <class T> static constexpr bool ok = is_bool_v<T>;
  CA_BOOL_RESULT
  template <class T> static bool f(T a, T b) { return a || b; }
};
struct OpLXor {
  template <class T> static constexpr bool ok = is_bool_v<T>;
  CA_BOOL_RESULT
  template <class T> static bool f(T a, T b) { return a != b; }
};
struct OpMax {
  template <class T> static constexpr bool ok = true;
  CA_SAME_RESULT
  template <class T> static T f(T a, T b) {
    if constexpr (is_cplx_v<T>) return (c_isnan(a) || cle(b, a)) ? a : b;
    else if constexpr (is_float_v<T>) return (a >= b || a != a) ? a : b;
    else return a >= b ? a : b;
  }
};
struct OpMin {
  template <class T> static constexpr bool ok = true;
  CA_SAME_RESULT
  template <class T> static T f(T a, T b) {
    if constexpr (is_cplx_v<T>) return (c_isnan(a) || cle(a, b)) ? a : b;
    else if constexpr (is_float_v<T>) return (a <= b || a != a) ? a : b;
    else return a <= b ? a : b;
  }
};
struct OpArctan2 {
  template <class T> static constexpr bool ok = is_float_v<T>;
  CA_SAME_RESULT
  template <class T> static T f(T a, T b) { return std::atan2(a, b); }
};
struct OpBitAnd {
  template <class T> static constexpr bool ok = std::is_integral_v<T>;
  CA_SAME_RESULT
  template <class T> static T f(T a, T b) { return T(a & b); }
};
struct OpBitOr {
  template <class T> static constexpr bool ok = std::is_integral_v<T>;
  CA_SAME_RESULT
  template <class T> static T f(T a, T b) { return T(a | b); }
};
struct OpBitXor {
  template <class T> static constexpr bool ok = std::is_integral_v<T>;
  CA_SAME_RESULT
  template <class T> static T f(T a, T b) { return T(a ^ b); }
};

// ---- unary ----------------------------------------------------------------------------------------

struct OpNeg {
  template <class T> static constexpr bool ok = !is_bool_v<T>;
  CA_SAME_RESULT
  template <class T> static T f(T a) {
    if constexpr (is_int_v<T>) return T(wide_u<T>(0) - wide_u<T>(a));
    else return -a;
  }
};
struct OpAbs {
  template <class T> static constexpr bool ok = true;
  template <class T> using R = real_t<T>;
  template <class T> static real_t<T> f(T a) {
    if constexpr (is_cplx_v<T>) return std::abs(a);
    else if constexpr (is_float_v<T>) return std::fabs(a);
    else if constexpr (std::is_signed_v<T>) return a < 0 ? T(wide_u<T>(0) - wide_u<T>(a)) : a;
    else return a;
  }
};
struct OpSign {
  template <class T> static constexpr bool ok = !is_bool_v<T>;
  CA_SAME_RESULT
  template <class T> static T f(T a) {
    if constexpr (is_cplx_v<T>) {
      using F = typename T::value_type;
      const T z(0, 0);
      F s = clt(z, a) ? F(1) : clt(a, z) ? F(-1) : (a == z) ? F(0) : std::numeric_limits<F>::quiet_NaN();
      return T(s, 0);
    } else if constexpr (is_float_v<T>) {
      return a > 0 ? T(1) : a < 0 ? T(-1) : a == 0 ? T(0) : a;
    } else if constexpr (std::is_unsigned_v<T>) {
      return T(a > 0);
    } else {
      return T((a > 0) - (a < 0));
    }
  }
};

#define CA_MATH(NAME, FEXPR, CEXPR)                      \
  struct NAME {                                          \
    template <class T> static constexpr bool ok = is_inexact_v<T>; \
    CA_SAME_RESULT                                       \
    template <class T> static T f(T a) {                 \
      if constexpr (is_cplx_v<T>) return CEXPR;          \
      else return FEXPR;                                 \
    }                                                    \
  };
template <class C>
inline C c_log1p(C z) {
  return std::log(C(1) + z);
}
template <class C>
inline C c_expm1(C z) {  // NumPy's nc_expm1
  using F = typename C::value_type;
  F x = z.real(), y = z.imag();
  F s = std::sin(y / 2);
  return C(std::expm1(x) * std::cos(y) - 2 * s * s, std::exp(x) * std::sin(y));
}
CA_MATH(OpSqrt, std::sqrt(a), std::sqrt(a))
CA_MATH(OpExp, std::exp(a), std::exp(a))
CA_MATH(OpLog, std::log(a), std::log(a))
CA_MATH(OpLog1p, std::log1p(a), c_log1p(a))
CA_MATH(OpExpm1, std::expm1(a), c_expm1(a))
CA_MATH(OpSin, std::sin(a), std::sin(a))
CA_MATH(OpCos, std::cos(a), std::cos(a))
CA_MATH(OpTan, std::tan(a), std::tan(a))
CA_MATH(OpArcsin, std::asin(a), std::asin(a))
CA_MATH(OpArccos, std::acos(a), std::acos(a))
CA_MATH(OpArctan, std::atan(a), std::atan(a))
CA_MATH(OpSinh, std::sinh(a), std::sinh(a))
CA_MATH(OpCosh, std::cosh(a), std::cosh(a))
CA_MATH(OpTanh, std::tanh(a), std::tanh(a))
CA_MATH(OpArcsinh, std::asinh(a), std::asinh(a))
CA_MATH(OpArccosh, std::acosh(a), std::acosh(a))
CA_MATH(OpArctanh, std::atanh(a), std::atanh(a))
CA_MATH(OpLog10, std::log10(a), std::log10(a))
CA_MATH(OpLog2, std::log2(a), std::log(a) / typename T::value_type(0.693147180559945309417232121458176568L))
#undef CA_MATH

#define CA_FLOATONLY(NAME, FEXPR)                                  \
  struct NAME {                                                    \
    template <class T> static constexpr bool ok = is_float_v<T>;   \
    CA_SAME_RESULT                                                 \
    template <class T> static T f(T a) { return FEXPR; }           \
  };
CA_FLOATONLY(OpFloor, std::floor(a))
CA_FLOATONLY(OpCeil, std::ceil(a))
CA_FLOATONLY(OpTrunc, std::trunc(a))
#undef CA_FLOATONLY

struct OpRound {  // half to even; integers unchanged
  template <class T> static constexpr bool ok = !is_bool_v<T>;
  CA_SAME_RESULT
  template <class T> static T f(T a) {
    if constexpr (is_cplx_v<T>) return T(std::nearbyint(a.real()), std::nearbyint(a.imag()));
    else if constexpr (is_float_v<T>) return std::nearbyint(a);
    else return a;
  }
};
struct OpIsnan {
  template <class T> static constexpr bool ok = true;
  CA_BOOL_RESULT
  template <class T> static bool f(T a) { return c_isnan(a); }
};
struct OpIsinf {
  template <class T> static constexpr bool ok = true;
  CA_BOOL_RESULT
  template <class T> static bool f(T a) {
    if constexpr (is_cplx_v<T>) return std::isinf(a.real()) || std::isinf(a.imag());
    else if constexpr (is_float_v<T>) return std::isinf(a);
    else return false;
  }
};
struct OpIsfinite {
  template <class T> static constexpr bool ok = true;
  CA_BOOL_RESULT
  template <class T> static bool f(T a) {
    if constexpr (is_cplx_v<T>) return std::isfinite(a.real()) && std::isfinite(a.imag());
    else if constexpr (is_float_v<T>) return std::isfinite(a);
    else return true;
  }
};
struct OpNot {
  template <class T> static constexpr bool ok = is_bool_v<T>;
  CA_BOOL_RESULT
  template <class T> static bool f(T a) { return !a; }
};
struct OpInvert {
  template <class T> static constexpr bool ok = std::is_integral_v<T>;
  CA_SAME_RESULT
  template <class T> static T f(T a) {
    if constexpr (is_bool_v<T>) return !a;
    else return T(~a);
  }
};
struct OpSquare {
  template <class T> static constexpr bool ok = !is_bool_v<T>;
  CA_SAME_RESULT
  template <class T> static T f(T a) { return wmul(a, a); }
};
struct OpConj {
  template <class T> static constexpr bool ok = !is_bool_v<T>;
  CA_SAME_RESULT
  template <class T> static T f(T a) {
    if constexpr (is_cplx_v<T>) return std::conj(a);
    else return a;
  }
};
struct OpReal {
  template <class T> static constexpr bool ok = true;
  template <class T> using R = real_t<T>;
  template <class T> static real_t<T> f(T a) {
    if constexpr (is_cplx_v<T>) return a.real();
    else return a;
  }
};
struct OpImag {
  template <class T> static constexpr bool ok = true;
  template <class T> using R = real_t<T>;
  template <class T> static real_t<T> f(T a) {
    if constexpr (is_cplx_v<T>) return a.imag();
    else return real_t<T>(0);
  }
};

// ---- resolution ------------------------------------------------------------------------------------

[[noreturn]] void bad_instr(const ExprInstr &ins, const char *why) {
  fail(CA_EFORMAT, "fused program: op ", ins.op, " on ", dtype_name(ins.in_dtype) ? dtype_name(ins.in_dtype) : "?",
       " -> ", dtype_name(ins.dtype) ? dtype_name(ins.dtype) : "?", ": ", why);
}

// variant (binary ops): 0 both operands vectors, 1 a scalar, 2 b scalar.
thread_local int t_variant = 0;

template <class Op, bool Unary>
Fn pick(const ExprInstr &ins) {
  return dispatch_dtype(ins.in_dtype, [&](auto tag) -> Fn {
    using T = typename decltype(tag)::type;
    if constexpr (Op::template ok<T>) {
      using R = typename Op::template R<T>;
      if (dtype_of<R>() != ins.dtype) bad_instr(ins, "wrong result dtype");
      if constexpr (Unary) return t_variant ? nullptr : &k_unary<T, R, Op>;
      else if (t_variant == 1) return &k_binary<T, R, Op, true, false>;
      else if (t_variant == 2) return &k_binary<T, R, Op, false, true>;
      else return &k_binary<T, R, Op>;
    } else {
      bad_instr(ins, "operation not defined for this dtype");
    }
  });
}

Fn resolve_impl(const ExprInstr &ins);

void k_gen_unreachable(const ExprInstr &, const void *, const void *, const void *, void *, int64_t) {
  fail(CA_EINTERNAL, "fused program: a generator evaluated without coordinates");
}

/// The function for an instruction; variant 1/2: the version with a scalar first/second operand
/// (nullptr where there is none).
Fn resolve(const ExprInstr &ins, int variant = 0) {
  if (variant) {
    if (!(ins.op >= CA_OP_ADD && ins.op <= CA_OP_BITXOR) || (ins.op == CA_OP_POW && dtype_is_integer(ins.in_dtype)))
      return nullptr;
  }
  t_variant = variant;
  struct Reset {
    ~Reset() { t_variant = 0; }
  } reset;
  return resolve_impl(ins);
}

Fn resolve_impl(const ExprInstr &ins) {
  if (!dtype_valid(ins.dtype) || ins.dtype == CA_RAW) bad_instr(ins, "bad dtype");
  switch (ins.op) {
    case kOpConst:
      return dispatch_dtype(ins.dtype, [](auto tag) -> Fn { return &k_const<typename decltype(tag)::type>; });
    case kOpGen:
      return &k_gen_unreachable;  // run() generates through gen_fill with the tile's coordinates
    case kOpCast:
      return dispatch_dtype(ins.in_dtype, [&](auto from) -> Fn {
        return dispatch_dtype(ins.dtype, [&](auto to) -> Fn {
          return &k_cast<typename decltype(from)::type, typename decltype(to)::type>;
        });
      });
    case kOpWhere:
      if (ins.in_dtype != ins.dtype) bad_instr(ins, "where computes in its result dtype");
      return dispatch_dtype(ins.dtype, [](auto tag) -> Fn { return &k_where<typename decltype(tag)::type>; });
    case kOpRoundDec:
      if (ins.in_dtype != ins.dtype) bad_instr(ins, "round computes in its result dtype");
      return dispatch_dtype(ins.dtype, [&](auto tag) -> Fn {
        using T = typename decltype(tag)::type;
        if constexpr (is_bool_v<T>) bad_instr(ins, "round is not defined for bool");
        else return &k_round_dec<T>;
      });
    case CA_OP_POW:
      if (dtype_is_integer(ins.in_dtype)) {
        if (ins.in_dtype != ins.dtype) bad_instr(ins, "wrong result dtype");
        return dispatch_dtype(ins.dtype, [&](auto tag) -> Fn {
          using T = typename decltype(tag)::type;
          if constexpr (is_int_v<T>) return &k_ipow<T>;
          else bad_instr(ins, "unreachable");
        });
      }
      return pick<OpPow, false>(ins);
    case CA_OP_ADD: return pick<OpAdd, false>(ins);
    case CA_OP_SUB: return pick<OpSub, false>(ins);
    case CA_OP_MUL: return pick<OpMul, false>(ins);
    case CA_OP_DIV: return pick<OpDiv, false>(ins);
    case CA_OP_FLOORDIV: return pick<OpFloorDiv, false>(ins);
    case CA_OP_MOD: return pick<OpMod, false>(ins);
    case CA_OP_EQ: return pick<OpEq, false>(ins);
    case CA_OP_NE: return pick<OpNe, false>(ins);
    case CA_OP_LT: return pick<OpLt, false>(ins);
    case CA_OP_LE: return pick<OpLe, false>(ins);
    case CA_OP_GT: return pick<OpGt, false>(ins);
    case CA_OP_GE: return pick<OpGe, false>(ins);
    case CA_OP_AND: return pick<OpLAnd, false>(ins);
    case CA_OP_OR: return pick<OpLOr, false>(ins);
    case CA_OP_XOR: return pick<OpLXor, false>(ins);
    case CA_OP_MAXIMUM: return pick<OpMax, false>(ins);
    case CA_OP_MINIMUM: return pick<OpMin, false>(ins);
    case CA_OP_ARCTAN2: return pick<OpArctan2, false>(ins);
    case CA_OP_BITAND: return pick<OpBitAnd, false>(ins);
    case CA_OP_BITOR: return pick<OpBitOr, false>(ins);
    case CA_OP_BITXOR: return pick<OpBitXor, false>(ins);
    case CA_OP_NEG: return pick<OpNeg, true>(ins);
    case CA_OP_ABS: return pick<OpAbs, true>(ins);
    case CA_OP_SIGN: return pick<OpSign, true>(ins);
    case CA_OP_SQRT: return pick<OpSqrt, true>(ins);
    case CA_OP_EXP: return pick<OpExp, true>(ins);
    case CA_OP_LOG: return pick<OpLog, true>(ins);
    case CA_OP_LOG1P: return pick<OpLog1p, true>(ins);
    case CA_OP_EXPM1: return pick<OpExpm1, true>(ins);
    case CA_OP_SIN: return pick<OpSin, true>(ins);
    case CA_OP_COS: return pick<OpCos, true>(ins);
    case CA_OP_TAN: return pick<OpTan, true>(ins);
    case CA_OP_ARCSIN: return pick<OpArcsin, true>(ins);
    case CA_OP_ARCCOS: return pick<OpArccos, true>(ins);
    case CA_OP_ARCTAN: return pick<OpArctan, true>(ins);
    case CA_OP_SINH: return pick<OpSinh, true>(ins);
    case CA_OP_COSH: return pick<OpCosh, true>(ins);
    case CA_OP_TANH: return pick<OpTanh, true>(ins);
    case CA_OP_ARCSINH: return pick<OpArcsinh, true>(ins);
    case CA_OP_ARCCOSH: return pick<OpArccosh, true>(ins);
    case CA_OP_ARCTANH: return pick<OpArctanh, true>(ins);
    case CA_OP_FLOOR: return pick<OpFloor, true>(ins);
    case CA_OP_CEIL: return pick<OpCeil, true>(ins);
    case CA_OP_ROUND: return pick<OpRound, true>(ins);
    case CA_OP_ISNAN: return pick<OpIsnan, true>(ins);
    case CA_OP_ISINF: return pick<OpIsinf, true>(ins);
    case CA_OP_ISFINITE: return pick<OpIsfinite, true>(ins);
    case CA_OP_NOT: return pick<OpNot, true>(ins);
    case CA_OP_INVERT: return pick<OpInvert, true>(ins);
    case CA_OP_LOG10: return pick<OpLog10, true>(ins);
    case CA_OP_LOG2: return pick<OpLog2, true>(ins);
    case CA_OP_SQUARE: return pick<OpSquare, true>(ins);
    case CA_OP_CONJ: return pick<OpConj, true>(ins);
    case CA_OP_REAL: return pick<OpReal, true>(ins);
    case CA_OP_IMAG: return pick<OpImag, true>(ins);
    case CA_OP_TRUNC: return pick<OpTrunc, true>(ins);
    default: bad_instr(ins, "unknown op");
  }
}

// ---- evaluation ------------------------------------------------------------------------------------

}  // namespace

/// A program resolved to functions, plus each register's last use (for buffer reuse).
struct PreparedProgram {
  const ExprProgram *p = nullptr;
  std::vector<Fn> fns;
  std::vector<Fn> fns_sa, fns_sb;  // binary ops with a scalar first / second operand
  std::vector<int32_t> last_use;  // per register: index of the last instruction reading it
  std::vector<GenSpec> gens;      // per instruction (kOpGen only)
};

namespace {

using Prepared = PreparedProgram;

void prepare(Prepared &pp, const ExprProgram &p) {
  pp.p = &p;
  const int32_t nin = int32_t(p.inputs.size());
  const int32_t nreg = nin + int32_t(p.code.size());
  if (p.out < 0 || p.out >= nreg) fail(CA_EFORMAT, "fused program: result register ", p.out, " out of range");
  pp.fns.resize(p.code.size());
  pp.fns_sa.resize(p.code.size());
  pp.fns_sb.resize(p.code.size());
  pp.last_use.assign(size_t(nreg), -1);
  pp.gens.assign(p.code.size(), GenSpec{});
  for (size_t k = 0; k < p.code.size(); ++k) {
    const ExprInstr &ins = p.code[k];
    if (ins.op == kOpGen) {
      if (!p.coords) fail(CA_EFORMAT, "fused program: a generator without the array's shape");
      pp.gens[k] = gen_spec_of(ins);
      gen_check(pp.gens[k]);
    }
    pp.fns[k] = resolve(ins);
    pp.fns_sa[k] = resolve(ins, 1);
    pp.fns_sb[k] = resolve(ins, 2);
    for (int32_t r : {ins.a, ins.b, ins.c}) {
      if (r < -1 || r >= nin + int32_t(k)) fail(CA_EFORMAT, "fused program: instruction ", k, " reads register ", r);
      if (r >= 0) pp.last_use[size_t(r)] = int32_t(k);
    }
  }
  pp.last_use[size_t(p.out)] = std::numeric_limits<int32_t>::max();
}

struct AlignedFree {
  void operator()(void *p) const { std::free(p); }
};

/// Per-thread scratch memory for register tiles (reused across kernel calls).
struct Scratch {
  std::unique_ptr<char, AlignedFree> mem;
  size_t cap = 0;
  bool busy = false;
  char *get(size_t n) {
    if (n > cap) {
      size_t c = std::max(n, cap * 2);
      c = (c + 63) & ~size_t(63);
      void *m = std::aligned_alloc(64, c);
      if (!m) throw std::bad_alloc();
      mem.reset(static_cast<char *>(m));
      cap = c;
    }
    return mem.get();
  }
};
thread_local Scratch t_scratch;

struct InputView {
  const char *data = nullptr;
  size_t isz = 0;
  int mode = 0;  // 0 in place, 1 gathered per tile, 2 invariant (one element)
  Index strides[CA_MAX_NDIM];  // elements, per output dimension (0 where broadcast)
};

void fill_elems(char *dst, const char *elem, size_t isz, int64_t n) {
  switch (isz) {
    case 1: std::memset(dst, *elem, size_t(n)); break;
    case 2: { uint16_t v; std::memcpy(&v, elem, 2); auto *d = reinterpret_cast<uint16_t *>(dst); for (int64_t i = 0; i < n; ++i) d[i] = v; break; }
    case 4: { uint32_t v; std::memcpy(&v, elem, 4); auto *d = reinterpret_cast<uint32_t *>(dst); for (int64_t i = 0; i < n; ++i) d[i] = v; break; }
    case 8: { uint64_t v; std::memcpy(&v, elem, 8); auto *d = reinterpret_cast<uint64_t *>(dst); for (int64_t i = 0; i < n; ++i) d[i] = v; break; }
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + size_t(i) * isz, elem, isz);
  }
}

/// Copy elements [off, off + n) of the broadcast view of `in` (C order over `shape`) into dst.
void gather(const InputView &in, const std::vector<Index> &shape, Index off, Index n, char *dst) {
  const int D = int(shape.size());
  const size_t isz = in.isz;
  if (D == 0) {
    std::memcpy(dst, in.data, isz);
    return;
  }
  Index idx[CA_MAX_NDIM];
  Index rem = off;
  for (int d = D - 1; d >= 0; --d) {
    idx[d] = rem % shape[size_t(d)];
    rem /= shape[size_t(d)];
  }
  const Index last = shape[size_t(D - 1)];
  const Index ls = in.strides[D - 1];
  Index done = 0;
  while (done < n) {
    Index src = 0;
    for (int d = 0; d < D; ++d) src += idx[d] * in.strides[d];
    Index run = std::min(last - idx[D - 1], n - done);
    const char *s = in.data + size_t(src) * isz;
    char *o = dst + size_t(done) * isz;
    if (ls == 0) fill_elems(o, s, isz, run);
    else std::memcpy(o, s, size_t(run) * isz);
    done += run;
    idx[D - 1] += run;
    for (int d = D - 1; d > 0 && idx[d] == shape[size_t(d)]; --d) {
      idx[d] = 0;
      ++idx[d - 1];
    }
  }
}

/// Validate the input blocks against the program and compute the broadcast output shape.
void broadcast_inputs(const ExprProgram &p, const Block *const *inputs, size_t ninputs, const GenCoords *coords,
                      std::vector<Index> &shape) {
  const size_t nin = p.inputs.size();
  if (ninputs != nin) fail(CA_EINVAL, "fused program takes ", nin, " input blocks, got ", ninputs);
  if (p.coords && !coords) fail(CA_EINVAL, "a generating fused program needs its block's origin and shape");
  int D = p.coords ? coords->ndim : 0;
  for (size_t i = 0; i < nin; ++i) {
    if (!inputs[i]) fail(CA_EINVAL, "fused program: input ", i, " is null");
    if (inputs[i]->dtype != p.inputs[i])
      fail(CA_ETYPE, "fused program: input ", i, " has dtype ",
           dtype_name(inputs[i]->dtype) ? dtype_name(inputs[i]->dtype) : "?", ", the program expects ",
           dtype_name(p.inputs[i]));
    D = std::max(D, int(inputs[i]->ndim));
  }
  shape.assign(size_t(D), 1);
  if (p.coords) {
    for (int d = 0; d < coords->ndim; ++d) shape[size_t(D - coords->ndim + d)] = coords->shape[d];
  }
  for (size_t i = 0; i < nin; ++i) {
    const Block *b = inputs[i];
    for (int k = 0; k < b->ndim; ++k) {
      Index e = b->shape[k];
      Index &s = shape[size_t(D - b->ndim + k)];
      if (e == s || e == 1) continue;
      if (s == 1) s = e;
      else
        fail(CA_EINVAL, "fused program: input blocks do not broadcast (dimension ", D - b->ndim + k, ": ", s,
             " vs ", e, ")");
    }
  }
}

/// Evaluate over the broadcast `shape` (from broadcast_inputs): `out_data` receives the result in C
/// order, or (out_data null) each tile goes to `sink`.
/// Elements [off, off + n) (C order over the block's `shape`) of generator `g` into dst.
void gen_tile(const GenSpec &g, const GenCoords &c, const Index *gstride, const std::vector<Index> &shape, Index off,
              Index n, char *dst) {
  const int D = int(shape.size());
  const size_t isz = dtype_size(g.dtype);
  if (D == 0 || g.kind == GenSpec::Full) {
    gen_fill(g, 0, n, dst);
    return;
  }
  Index idx[CA_MAX_NDIM];
  Index rem = off;
  for (int d = D - 1; d >= 0; --d) {
    idx[d] = rem % shape[size_t(d)];
    rem /= shape[size_t(d)];
  }
  const Index last = shape[size_t(D - 1)];
  const int lead = D - c.ndim;  // the block may have leading broadcast dims the generator lacks
  Index done = 0;
  while (done < n) {
    Index glin = 0;
    for (int d = 0; d < c.ndim; ++d) glin += (c.origin[d] + idx[lead + d]) * gstride[d];
    Index run = std::min(last - idx[D - 1], n - done);
    gen_fill(g, glin, run, dst + size_t(done) * isz);
    done += run;
    idx[D - 1] += run;
    for (int d = D - 1; d > 0 && idx[d] == shape[size_t(d)]; --d) {
      idx[d] = 0;
      ++idx[d - 1];
    }
  }
}

void run(const Prepared &pp, const Block *const *inputs, const std::vector<Index> &shape, const GenCoords *coords,
         char *out_data, const std::function<void(const void *, int64_t, int64_t)> *sink) {
  const ExprProgram &p = *pp.p;
  const size_t nin = p.inputs.size();
  const int D = int(shape.size());
  Index N = 1;
  for (Index s : shape) N *= s;
  if (N == 0) return;

  const int32_t nreg = int32_t(nin + p.code.size());
  const int64_t T = std::min<int64_t>(kTile, N);
  // Slots are staggered by 5 cache lines so that tiles of different registers do not alias modulo
  // 4 KiB (loads stalling behind stores to a different register: a large slowdown on x86).
  const size_t slot_bytes = ((size_t(T) * kMaxItem + 63) & ~size_t(63)) + 320;

  // Register plan: which registers hold a slot, which are invariant (same in every tile).
  std::vector<InputView> views(nin);
  std::vector<int32_t> slot(size_t(nreg), -1);
  std::vector<uint8_t> inv(size_t(nreg), 0);
  std::vector<int32_t> free_slots;
  int32_t nslots = 0;
  for (size_t i = 0; i < nin; ++i) {
    const Block *b = inputs[i];
    InputView &v = views[i];
    v.data = static_cast<const char *>(b->data);
    v.isz = dtype_size(b->dtype);
    if (b->size == N) {
      v.mode = 0;
    } else if (b->size == 1) {
      v.mode = 2;
      inv[i] = 1;
      slot[i] = nslots++;
    } else {
      v.mode = 1;
      slot[i] = nslots++;
      Index st = 1;
      for (int d = D - 1; d >= 0; --d) {
        int k = d - (D - b->ndim);
        if (k < 0 || b->shape[k] == 1) {
          v.strides[d] = 0;
        } else {
          v.strides[d] = st;
          st *= b->shape[k];
        }
      }
    }
  }
  for (size_t k = 0; k < p.code.size(); ++k) {
    const ExprInstr &ins = p.code[k];
    const int32_t r = int32_t(nin + k);
    bool all_inv = ins.op != kOpGen || pp.gens[k].kind == GenSpec::Full;
    for (int32_t o : {ins.a, ins.b, ins.c})
      if (o >= 0 && !inv[size_t(o)]) all_inv = false;
    inv[size_t(r)] = all_inv;
    if (!free_slots.empty() && !all_inv) {
      slot[size_t(r)] = free_slots.back();
      free_slots.pop_back();
    } else {
      slot[size_t(r)] = nslots++;
    }
    // Release operands whose value dies here (not inputs, not invariants).
    int32_t ops[3] = {ins.a, ins.b, ins.c};
    for (int j = 0; j < 3; ++j) {
      int32_t o = ops[j];
      if (o < int32_t(nin) || inv[size_t(o)] || pp.last_use[size_t(o)] != int32_t(k)) continue;
      bool dup = false;
      for (int q = 0; q < j; ++q) dup |= ops[q] == o;
      if (!dup) free_slots.push_back(slot[size_t(o)]);
    }
  }

  Scratch local;
  Scratch &scr = t_scratch.busy ? local : t_scratch;
  const bool was_busy = scr.busy;
  scr.busy = true;
  struct Unbusy {
    Scratch &s;
    bool v;
    ~Unbusy() { s.busy = v; }
  } unbusy{scr, was_busy};
  char *mem = scr.get(slot_bytes * size_t(std::max(nslots, 1)));
  auto slot_ptr = [&](int32_t r) { return mem + size_t(slot[size_t(r)]) * slot_bytes; };

  std::vector<const void *> regp(size_t(nreg), nullptr);
  auto operand = [&](int32_t o) -> const void * { return o >= 0 ? regp[size_t(o)] : nullptr; };
  // Invariants: computed once over a whole tile.
  for (size_t i = 0; i < nin; ++i)
    if (views[i].mode == 2) {
      fill_elems(slot_ptr(int32_t(i)), views[i].data, views[i].isz, T);
      regp[i] = slot_ptr(int32_t(i));
    }
  for (size_t k = 0; k < p.code.size(); ++k) {
    const int32_t r = int32_t(nin + k);
    if (!inv[size_t(r)]) continue;
    const ExprInstr &ins = p.code[k];
    if (ins.op == kOpGen) gen_fill(pp.gens[k], 0, T, slot_ptr(r));
    else pp.fns[k](ins, operand(ins.a), operand(ins.b), operand(ins.c), slot_ptr(r), T);
    regp[size_t(r)] = slot_ptr(r);
  }
  // Generators: the block's global strides.
  Index gstride[CA_MAX_NDIM] = {};
  if (p.coords) {
    Index st = 1;
    for (int d = int(p.gshape.size()) - 1; d >= 0; --d) {
      gstride[d] = st;
      st *= p.gshape[size_t(d)];
    }
  }

  // Per instruction: the scalar-operand version where one operand is invariant.
  std::vector<Fn> fn(pp.fns);
  for (size_t k = 0; k < p.code.size(); ++k) {
    const ExprInstr &ins = p.code[k];
    if (ins.a < 0 || ins.b < 0) continue;
    const bool ia = inv[size_t(ins.a)], ib = inv[size_t(ins.b)];
    if (ib && !ia && pp.fns_sb[k]) fn[k] = pp.fns_sb[k];
    else if (ia && !ib && pp.fns_sa[k]) fn[k] = pp.fns_sa[k];
  }
  const size_t osz = dtype_size(p.reg_dtype(p.out));
  const bool out_direct = out_data && p.out >= int32_t(nin) && !inv[size_t(p.out)];
  for (Index off = 0; off < N; off += T) {
    const int64_t n = std::min<int64_t>(T, N - off);
    for (size_t i = 0; i < nin; ++i) {
      const InputView &v = views[i];
      if (v.mode == 0) {
        regp[i] = v.data + size_t(off) * v.isz;
      } else if (v.mode == 1) {
        gather(v, shape, off, n, slot_ptr(int32_t(i)));
        regp[i] = slot_ptr(int32_t(i));
      }
    }
    for (size_t k = 0; k < p.code.size(); ++k) {
      const int32_t r = int32_t(nin + k);
      if (inv[size_t(r)]) continue;
      const ExprInstr &ins = p.code[k];
      void *dst = (out_direct && r == p.out) ? static_cast<void *>(out_data + size_t(off) * osz) : slot_ptr(r);
      if (ins.op == kOpGen) gen_tile(pp.gens[k], *coords, gstride, shape, off, n, static_cast<char *>(dst));
      else fn[k](ins, operand(ins.a), operand(ins.b), operand(ins.c), dst, n);
      regp[size_t(r)] = dst;
    }
    if (out_data) {
      if (!out_direct) std::memcpy(out_data + size_t(off) * osz, regp[size_t(p.out)], size_t(n) * osz);
    } else {
      (*sink)(regp[size_t(p.out)], n, off);
    }
  }
}

Block *eval_prepared(const Prepared &pp, const Block *const *inputs, size_t ninputs, const GenCoords *coords) {
  const ExprProgram &p = *pp.p;
  // Identity over an input of the output's shape: hand the block out without copying.
  if (p.out < int32_t(p.inputs.size()) && ninputs == 1 && p.inputs.size() == 1 && inputs[0] &&
      inputs[0]->dtype == p.inputs[0])
    return block_retain(inputs[0]);
  std::vector<Index> shape;
  broadcast_inputs(p, inputs, ninputs, coords, shape);
  BlockRef out(block_new(p.reg_dtype(p.out), int32_t(shape.size()), shape.data()));
  run(pp, inputs, shape, coords, static_cast<char *>(out->data), nullptr);
  return out.release();
}

// ---- the kernel ------------------------------------------------------------------------------------

/// Parsed and resolved programs, cached per thread by their bytes (tasks of one layer share one).
struct CacheEntry {
  std::string bytes;
  std::unique_ptr<ExprProgram> program;
  Prepared prepared;
};
struct ProgramCache {
  static constexpr size_t kSize = 16;
  CacheEntry entries[kSize];
  size_t next = 0;
  const Prepared &get(const void *data, size_t n) {
    for (auto &e : entries)
      if (e.program && e.bytes.size() == n && std::memcmp(e.bytes.data(), data, n) == 0) return e.prepared;
    CacheEntry &e = entries[next];
    next = (next + 1) % kSize;
    e.program.reset();
    auto prog = std::make_unique<ExprProgram>(ExprProgram::parse(data, n));
    prepare(e.prepared, *prog);
    e.bytes.assign(static_cast<const char *>(data), n);
    e.program = std::move(prog);
    e.prepared.p = e.program.get();
    return e.prepared;
  }
};
thread_local ProgramCache t_cache;

ca_status_t k_fused(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  try {
    if (nargs < 1 || args[0].kind != CA_ARG_BYTES)
      fail(CA_EINVAL, "ca.fused takes the program (bytes) and then its input blocks");
    const Prepared &pp = t_cache.get(args[0].u.bytes.data, args[0].u.bytes.len);
    GenCoords coords;
    size_t first = 1;
    if (pp.p->coords) {
      if (nargs < 3) fail(CA_EINVAL, "ca.fused: a generating program takes its block's origin and shape");
      coords = gen_coords_from_args(*pp.p, args[1], args[2]);
      first = 3;
    }
    const Block *small[16];
    std::vector<const Block *> big;
    const Block **in = small;
    const size_t nin = nargs - first;
    if (nin > 16) {
      big.resize(nin);
      in = big.data();
    }
    for (size_t i = 0; i < nin; ++i) {
      if (args[i + first].kind != CA_ARG_BLOCK || !args[i + first].u.block)
        fail(CA_EINVAL, "ca.fused: argument ", i + first, " is not a block");
      in[i] = args[i + first].u.block;
    }
    *out = eval_prepared(pp, in, nin, pp.p->coords ? &coords : nullptr);
    return CA_OK;
  } catch (const Error &e) {
    if (kctx) kctx->error = e.message();
    return e.code();
  } catch (const std::bad_alloc &) {
    if (kctx) kctx->error = "ca.fused: out of memory";
    return CA_ENOMEM;
  } catch (const std::exception &e) {
    if (kctx) kctx->error = str("ca.fused: ", e.what());
    return CA_EINTERNAL;
  }
}

}  // namespace

Block *eval_program(const ExprProgram &p, const Block *const *inputs, size_t ninputs, const GenCoords *coords) {
  Prepared pp;
  prepare(pp, p);
  return eval_prepared(pp, inputs, ninputs, coords);
}

Block *eval_prepared_program(const PreparedProgram &pp, const Block *const *inputs, size_t ninputs,
                             const GenCoords *coords) {
  return eval_prepared(pp, inputs, ninputs, coords);
}

const PreparedProgram &prepared_program(const void *bytes, size_t n) { return t_cache.get(bytes, n); }
const ExprProgram &program_of(const PreparedProgram &pp) { return *pp.p; }

void eval_program_tiles(const PreparedProgram &pp, const Block *const *inputs, size_t ninputs,
                        const GenCoords *coords, std::vector<Index> &out_shape,
                        const std::function<void(const void *tile, int64_t n, int64_t offset)> &sink) {
  broadcast_inputs(*pp.p, inputs, ninputs, coords, out_shape);
  run(pp, inputs, out_shape, coords, nullptr, &sink);
}

void register_ops_kernels(KernelRegistry &reg) { reg.add(kernel_new("ca.fused", k_fused, 1, nullptr, nullptr), true); }

}  // namespace ca
