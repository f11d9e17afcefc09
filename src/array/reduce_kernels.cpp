// Kernels of reductions and scans (see array/reduce.hpp for the partial layouts and the graph shape).
//
//   ca.reduce_chunk(program BYTES, spec TUPLE, array_shape TUPLE, block_origin TUPLE, block_shape TUPLE,
//                   leaf blocks...)                        -> partial (RAW, keepdims shape + (sizeof P,))
//   ca.reduce_combine(partials (nested lists), spec)      -> partial
//   ca.reduce_agg(partials (nested lists), spec, out_block_shape TUPLE) -> result block
//   ca.reduce_squeeze(block, shape TUPLE)                 -> the block viewed with another shape
//   ca.scan_block(program, spec, block_shape, leaves...)  -> per-block scan (result dtype)
//   ca.scan_carry(spec, previous carry | None, scanned)   -> running total (axis extent 1)
//   ca.scan_apply(spec, scanned, carry)                   -> scanned op carry
// spec (reductions) = (op, input dtype, result dtype, reduced-axes bit mask, arg axis (-1: flat), ddof)
// spec (scans)      = (op, input dtype, result dtype, axis)
#include <chunkarray/array.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>
#include <new>
#include <type_traits>
#include <vector>

#include "array/expr.hpp"
#include "core/isa.hpp"
#include "array/reduce.hpp"
#include "core/block.hpp"
#include "core/checked.hpp"
#include "kernel/adapter.hpp"

namespace ca {

namespace {

// ---- scalar helpers -----------------------------------------------------------------------------

template <class T>
struct IsCplx : std::false_type {};
template <class F>
struct IsCplx<std::complex<F>> : std::true_type {};
template <class T>
inline constexpr bool kCplx = IsCplx<T>::value;
template <class T>
inline constexpr bool kFloaty = std::is_floating_point_v<T> || kCplx<T>;

template <class T>
inline bool is_nan(const T &x) {
  if constexpr (std::is_floating_point_v<T>)
    return x != x;
  else if constexpr (kCplx<T>)
    return x.real() != x.real() || x.imag() != x.imag();
  else
    return false;
}

template <class To, class From>
inline To cvt(const From &x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (std::is_same_v<To, bool>) {
    return x != From(0);
  } else if constexpr (kCplx<To>) {
    using V = typename To::value_type;
    if constexpr (kCplx<From>)
      return To(V(x.real()), V(x.imag()));
    else
      return To(V(x), V(0));
  } else if constexpr (kCplx<From>) {
    return cvt<To>(x.real());
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    // Out-of-range float -> int is undefined in C++. NumPy's astype on x86-64 (cvttsd2si, as
    // array/expr_instr.inc's cvt): through int64 for int64 and uint32, through int32 for the narrower
    // types, the indefinite integer (the minimum) when out of that range; uint64 above 2**63 by offset.
    const double d = double(x);
    auto i64 = [](double v) {
      return (v >= -9223372036854775808.0 && v < 9223372036854775808.0) ? int64_t(v)
                                                                          : std::numeric_limits<int64_t>::min();
    };
    if constexpr (std::is_same_v<To, uint64_t>) {
      if (d != d) return uint64_t(1) << 63;
      if (d < 9223372036854775808.0) return uint64_t(i64(d));
      return uint64_t(i64(d - 9223372036854775808.0)) ^ (uint64_t(1) << 63);
    } else if constexpr (std::is_same_v<To, int64_t> || std::is_same_v<To, uint32_t>) {
      return To(i64(d));
    } else {
      return To((d > -2147483649.0 && d < 2147483648.0) ? int32_t(d) : std::numeric_limits<int32_t>::min());
    }
  } else {
    return To(x);
  }
}

template <class T>
inline bool lt(const T &a, const T &b) {
  if constexpr (kCplx<T>)
    return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
  else
    return a < b;
}

template <class T>
inline double sqmag(const T &d) {
  if constexpr (kCplx<T>)
    return d.real() * d.real() + d.imag() * d.imag();
  else
    return double(d) * double(d);
}

/// Re(conj(a) * b): Welford's m2 increment (a * b for reals).
template <class T>
inline double dotre(const T &a, const T &b) {
  if constexpr (kCplx<T>)
    return double(a.real()) * double(b.real()) + double(a.imag()) * double(b.imag());
  else
    return double(a) * double(b);
}

template <class T>
inline T nan_of() {
  if constexpr (kCplx<T>) {
    using V = typename T::value_type;
    return T(std::numeric_limits<V>::quiet_NaN(), std::numeric_limits<V>::quiet_NaN());
  } else if constexpr (std::is_floating_point_v<T>) {
    return std::numeric_limits<T>::quiet_NaN();
  } else {
    return T{};
  }
}

// ---- spec ---------------------------------------------------------------------------------------

struct Spec {
  int32_t op = 0;
  DType in = 0, out = 0;
  uint64_t mask = 0;
  int32_t argaxis = -1;
  int32_t ddof = 0;
};

Spec parse_spec(const ca_arg_t &a) {
  CA_CHECK(a.kind == CA_ARG_TUPLE && a.u.tuple.len >= 6, CA_EINVAL, "reduction spec must be a 6-tuple");
  const int64_t *t = a.u.tuple.items;
  Spec s;
  s.op = int32_t(t[0]);
  s.in = DType(t[1]);
  s.out = DType(t[2]);
  s.mask = uint64_t(t[3]);
  s.argaxis = int32_t(t[4]);
  s.ddof = int32_t(t[5]);
  return s;
}

std::vector<Index> tuple_of(const ca_arg_t &a, const char *what) {
  CA_CHECK(a.kind == CA_ARG_TUPLE, CA_EINVAL, what, " must be a tuple");
  return std::vector<Index>(a.u.tuple.items, a.u.tuple.items + a.u.tuple.len);
}

const Block *block_arg(const ca_arg_t &a, const char *what) {
  CA_CHECK(a.kind == CA_ARG_BLOCK && a.u.block, CA_EINVAL, what, " must be a block");
  return a.u.block;
}

void flatten_blocks(const ca_arg_t &a, std::vector<const Block *> &out) {
  if (a.kind == CA_ARG_LIST) {
    for (size_t i = 0; i < a.u.list.len; ++i) flatten_blocks(a.u.list.items[i], out);
  } else {
    out.push_back(block_arg(a, "a partial"));
  }
}

// Elements of a block shape from a task's arguments (a graph file's, so checked: CA_EINVAL for a
// negative extent or a product past 2^63-1).
Index prod(const std::vector<Index> &v) {
  for (Index x : v) CA_CHECK(x >= 0, CA_EINVAL, "block shape ", shape_str(v), " has a negative extent");
  return shape_size(v);
}

// ---- families -------------------------------------------------------------------------------------
// Each: P (partial), Out (final value type), init, merge, horiz (a run into one partial), vert (a run
// into consecutive partials), finalize.

// Integer sums and products wrap around like NumPy's: computed in the unsigned type (at least
// `unsigned int`, so narrow types do not promote to a signed int), where overflow is defined, and
// converted back (modular since C++20). Signed overflow would be undefined behaviour.
template <class A>
using wide_u = std::conditional_t<(sizeof(A) < sizeof(unsigned)), unsigned, std::make_unsigned_t<A>>;

template <class A, bool PROD>
inline A op2(A a, A b) {
  if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool>) {
    if constexpr (PROD)
      return A(wide_u<A>(a) * wide_u<A>(b));
    else
      return A(wide_u<A>(a) + wide_u<A>(b));
  } else if constexpr (PROD && kCplx<A>) {
    // NumPy's complex product, without C's Annex G recovery of infinities (as the elementwise *)
    return A(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
  } else if constexpr (PROD) {
    return a * b;
  } else {
    return a + b;
  }
}

template <class A, bool SKIP, bool PROD, class T>
inline A load(const T &x) {
  A v = cvt<A>(x);
  if constexpr (SKIP && kFloaty<T>) {
    if (is_nan(x)) v = PROD ? A(1) : A(0);
  }
  return v;
}

// Pairwise (cascade) summation like NumPy: 16 independent accumulators over leaves of <= 4096
// elements (each accumulator adds 256 of them), halves combined recursively. No per-element branches,
// so it vectorizes; smaller leaves cost measurable bandwidth (the horizontal reduction per leaf).
template <class A, bool SKIP, bool PROD, class T>
CA_ISA_CLONES A fold_run(const T *x, Index n) {
  const A id = PROD ? A(1) : A(0);
  if (n <= 4096) {
    A s[16];
    for (int j = 0; j < 16; ++j) s[j] = id;
    Index i = 0;
    for (; i + 16 <= n; i += 16)
      for (int j = 0; j < 16; ++j) s[j] = op2<A, PROD>(s[j], load<A, SKIP, PROD>(x[i + j]));
    A r = id;
    for (; i < n; ++i) r = op2<A, PROD>(r, load<A, SKIP, PROD>(x[i]));
    for (int w = 8; w >= 1; w /= 2)
      for (int j = 0; j < w; ++j) s[j] = op2<A, PROD>(s[j], s[j + w]);
    return op2<A, PROD>(s[0], r);
  }
  Index h = (n / 2) & ~Index(15);
  // The halves in address order: as two arguments of one call, their order would be unspecified, and
  // GCC evaluates right to left, which read every block's 32 KiB leaves backwards (the hardware
  // prefetcher does not follow that: one thread's x.sum() read ~16 GB/s instead of ~26).
  const A lo = fold_run<A, SKIP, PROD>(x, h);
  const A hi = fold_run<A, SKIP, PROD>(x + h, n - h);
  return op2<A, PROD>(lo, hi);
}

template <class T>
Index count_valid(const T *x, Index n) {
  if constexpr (kFloaty<T>) {
    Index c = 0;
    for (Index i = 0; i < n; ++i) c += is_nan(x[i]) ? 0 : 1;
    return c;
  } else {
    return n;
  }
}

template <class T, class A, bool SKIP, bool PROD>
struct SumFam {
  using In = T;
  using P = A;
  using Out = A;
  static constexpr bool kArg = false;
  static void init(P &p) { p = PROD ? A(1) : A(0); }
  static void merge(P &a, const P &b) { a = op2<A, PROD>(a, b); }
  static void horiz(P &acc, const T *x, Index n) { acc = op2<A, PROD>(acc, fold_run<A, SKIP, PROD>(x, n)); }
  static void vert(P *acc, const T *x, Index n) {
    for (Index j = 0; j < n; ++j) acc[j] = op2<A, PROD>(acc[j], load<A, SKIP, PROD>(x[j]));
  }
  static void finalize(const P &p, Out &o, const Spec &) { o = p; }
};

template <class A>
struct MeanP {
  double n;
  A s;
};

/// The integer `v` wrapped to the integer dtype `t` (NumPy sums in the requested dtype), as a double.
template <class A>
double wrap_to(A v, DType t) {
  double r = double(v);
  dispatch_dtype(t, [&](auto tt) {
    using R = typename decltype(tt)::type;
    if constexpr (std::is_integral_v<R> && !std::is_same_v<R, bool>) r = double(R(v));
  });
  return r;
}

// A mean with an integer result dtype (mean(dtype='int8')) sums in an integer accumulator A, wrapped to
// that dtype before the division as NumPy does (it sums in the dtype, then divides); else A is double
// or complex<double>.
template <class T, class A, bool SKIP>
struct MeanFam {
  using In = T;
  using P = MeanP<A>;
  using Out = std::conditional_t<std::is_integral_v<A>, double, A>;
  static constexpr bool kArg = false;
  static void init(P &p) { p.n = 0, p.s = A(0); }
  static void merge(P &a, const P &b) { a.n += b.n, a.s = op2<A, false>(a.s, b.s); }
  static void horiz(P &acc, const T *x, Index n) {
    acc.s = op2<A, false>(acc.s, fold_run<A, SKIP, false>(x, n));
    acc.n += double(SKIP ? count_valid(x, n) : n);
  }
  static void vert(P *acc, const T *x, Index n) {
    for (Index j = 0; j < n; ++j) {
      acc[j].s = op2<A, false>(acc[j].s, load<A, SKIP, false>(x[j]));
      if constexpr (SKIP && kFloaty<T>)
        acc[j].n += is_nan(x[j]) ? 0.0 : 1.0;
      else
        acc[j].n += 1.0;
    }
  }
  static void finalize(const P &p, Out &o, const Spec &s) {
    if constexpr (std::is_integral_v<A>) {
      o = p.n == 0 ? nan_of<double>() : wrap_to(p.s, s.out) / p.n;
    } else if constexpr (kCplx<A>) {
      // NumPy divides by the count as a complex number (n + 0i, Smith's algorithm): a NaN or inf in
      // one part reaches the other through the 0 * part terms.
      if (p.n == 0) {
        o = nan_of<A>();
      } else {
        const double scl = 1.0 / p.n, re = p.s.real(), im = p.s.imag();
        o = A((re + im * 0.0) * scl, (im - re * 0.0) * scl);
      }
    } else {
      o = p.n == 0 ? nan_of<A>() : A(p.s / p.n);
    }
  }
};

template <class M>
struct VarP {
  double n;
  M mean;
  double m2;
};

// var/std in one pass over the data (fused expressions and generated arrays are evaluated once):
// a run into one partial is two-pass over the run itself (its mean, then the squared deviations from
// it, while it is in cache) and merged with Chan et al.'s update; a run across partials is Welford's
// update per element. Both are stable for data with a large mean.
template <class T, class M, bool SKIP>
struct VarFam {
  using In = T;
  using P = VarP<M>;
  using Out = double;
  using Mean = MeanFam<T, M, SKIP>;
  static constexpr bool kArg = false;
  static void init(P &p) { p.n = 0, p.mean = M(0), p.m2 = 0; }
  static void horiz(P &acc, const T *x, Index n) {
    typename Mean::P m;
    Mean::init(m);
    Mean::horiz(m, x, n);
    if (m.n == 0) return;
    P r;
    r.n = m.n;
    r.mean = M(m.s / m.n);
    r.m2 = 0;
    horiz2(r, x, n);
    merge(acc, r);
  }
  static void vert(P *acc, const T *x, Index n) {
    for (Index j = 0; j < n; ++j) {
      if constexpr (SKIP && kFloaty<T>) {
        if (is_nan(x[j])) continue;
      }
      P &p = acc[j];
      const M v = cvt<M>(x[j]);
      p.n += 1.0;
      const M d = v - p.mean;
      p.mean += d / M(p.n);
      p.m2 += dotre(d, v - p.mean);
    }
  }
  static void merge(P &a, const P &b) {
    if (b.n == 0) return;
    if (a.n == 0) {
      a = b;
      return;
    }
    double n = a.n + b.n;
    M delta = b.mean - a.mean;
    a.mean += delta * (b.n / n);
    a.m2 += b.m2 + sqmag(delta) * (a.n * b.n / n);
    a.n = n;
  }
  // the sum of squared deviations of a run from its mean (acc.mean)
  static void horiz2(P &acc, const T *x, Index n) {
    const M m = acc.mean;
    double s[4] = {0, 0, 0, 0};
    Index i = 0;
    for (; i + 4 <= n; i += 4)
      for (int k = 0; k < 4; ++k) {
        double d = sqmag(cvt<M>(x[i + k]) - m);
        if constexpr (SKIP && kFloaty<T>) d = is_nan(x[i + k]) ? 0.0 : d;
        s[k] += d;
      }
    double r = 0;
    for (; i < n; ++i) {
      double d = sqmag(cvt<M>(x[i]) - m);
      if constexpr (SKIP && kFloaty<T>) d = is_nan(x[i]) ? 0.0 : d;
      r += d;
    }
    acc.m2 += ((s[0] + s[1]) + (s[2] + s[3])) + r;
  }
  static void finalize(const P &p, Out &o, const Spec &s) {
    double d = std::max(p.n - double(s.ddof), 0.0);
    // var/std divide by max(n - ddof, 0) (inf or NaN at 0, with NumPy's warning); nanvar/nanstd give
    // NaN when the degrees of freedom are <= 0.
    if (d == 0 && (s.op == CA_RED_NANVAR || s.op == CA_RED_NANSTD)) {
      o = nan_of<double>();
      return;
    }
    double v = p.m2 / d;
    o = (s.op == CA_RED_STD || s.op == CA_RED_NANSTD) ? std::sqrt(v) : v;
  }
};

template <class T>
struct MinMaxP {
  T v;
  int64_t n;     // values taken (NaNs skipped by nanmin/nanmax are not)
  int64_t seen;  // values visited: 0 only for an empty reduction
};

template <class T, bool SKIP, bool MAX>
struct MinMaxFam {
  using In = T;
  using P = MinMaxP<T>;
  using Out = T;
  static constexpr bool kArg = false;
  static bool better(const T &x, const T &cur) { return MAX ? lt(cur, x) : lt(x, cur); }
  static void init(P &p) { p.v = T{}, p.n = 0, p.seen = 0; }
  static void put(P &a, const T &x) {
    a.seen++;
    if constexpr (kFloaty<T>) {
      if (is_nan(x)) {
        if (SKIP) return;
        if (a.n == 0 || !is_nan(a.v)) a.v = x;
        a.n++;
        return;
      }
      if (a.n == 0 || (!is_nan(a.v) && better(x, a.v))) a.v = x;
    } else {
      if (a.n == 0 || better(x, a.v)) a.v = x;
    }
    a.n++;
  }
  static void merge(P &a, const P &b) {
    a.seen += b.seen;
    if (b.n == 0) return;
    if (a.n == 0) {
      const int64_t seen = a.seen;
      a = b;
      a.seen = seen;
      return;
    }
    if (!is_nan(a.v) && (is_nan(b.v) || better(b.v, a.v))) a.v = b.v;
    a.n += b.n;
  }
  static void horiz(P &acc, const T *x, Index n) {
    if constexpr (!kFloaty<T>) {
      if (n == 0) return;
      T m = acc.n ? acc.v : x[0];
      for (Index i = 0; i < n; ++i) m = better(x[i], m) ? x[i] : m;
      acc.v = m;
      acc.n += n;
      acc.seen += n;
    } else {
      for (Index i = 0; i < n; ++i) put(acc, x[i]);
    }
  }
  static void vert(P *acc, const T *x, Index n) {
    for (Index j = 0; j < n; ++j) put(acc[j], x[j]);
  }
  static void finalize(const P &p, Out &o, const Spec &) {
    // Only reachable with unknown block sizes that turn out empty (x[mask].min(), nanmin too):
    // known empty extents fail when the graph is built. All-NaN slices of nanmin/nanmax are NaN.
    if (p.seen == 0)
      fail(CA_EINVAL, "zero-size array to reduction operation ", SKIP ? (MAX ? "fmax" : "fmin") : (MAX ? "maximum" : "minimum"),
           " which has no identity");
    o = p.n == 0 ? nan_of<T>() : p.v;
  }
};

template <class T>
struct ArgP {
  T v;
  int64_t idx;
  int64_t n;
};

template <class T, bool SKIP, bool MAX>
struct ArgFam {
  using In = T;
  using P = ArgP<T>;
  using Out = int64_t;
  static constexpr bool kArg = true;
  static bool better(const T &x, const T &cur) { return MAX ? lt(cur, x) : lt(x, cur); }
  static void init(P &p) { p.v = T{}, p.idx = 0, p.n = 0; }
  // Elements arrive in increasing index order: strict comparisons keep the first occurrence.
  static void put(P &a, const T &x, int64_t idx) {
    if constexpr (kFloaty<T>) {
      if (is_nan(x)) {
        if (SKIP) return;
        if (a.n == 0 || !is_nan(a.v)) a.v = x, a.idx = idx;
        a.n++;
        return;
      }
      if (a.n == 0 || (!is_nan(a.v) && better(x, a.v))) a.v = x, a.idx = idx;
    } else {
      if (a.n == 0 || better(x, a.v)) a.v = x, a.idx = idx;
    }
    a.n++;
  }
  static void merge(P &a, const P &b) {
    if (b.n == 0) return;
    if (a.n == 0) {
      a = b;
      return;
    }
    bool an = is_nan(a.v), bn = is_nan(b.v), take;
    if (an || bn)
      take = an && bn ? b.idx < a.idx : bn;
    else
      take = better(b.v, a.v) || (!better(a.v, b.v) && b.idx < a.idx);
    if (take) a.v = b.v, a.idx = b.idx;
    a.n += b.n;
  }
  static void finalize(const P &p, Out &o, const Spec &) {
    if (p.n == 0) fail(CA_EINVAL, "All-NaN slice encountered");
    o = p.idx;
  }
};

template <class T, bool ALL>
struct AnyAllFam {
  using In = T;
  using P = uint8_t;
  using Out = bool;
  static constexpr bool kArg = false;
  static void init(P &p) { p = ALL ? 1 : 0; }
  static void merge(P &a, const P &b) { a = ALL ? (a & b) : (a | b); }
  static void horiz(P &acc, const T *x, Index n) {
    uint8_t r = acc;
    for (Index i = 0; i < n; ++i) {
      uint8_t t = x[i] != T(0) ? 1 : 0;
      r = ALL ? (r & t) : (r | t);
    }
    acc = r;
  }
  static void vert(P *acc, const T *x, Index n) {
    for (Index j = 0; j < n; ++j) {
      uint8_t t = x[j] != T(0) ? 1 : 0;
      acc[j] = ALL ? (acc[j] & t) : (acc[j] | t);
    }
  }
  static void finalize(const P &p, Out &o, const Spec &) { o = p != 0; }
};

bool is_nan_op(int32_t op) { return op >= CA_RED_NANSUM && op <= CA_RED_NANARGMAX; }

// Call fn(TypeTag<Family>{}) for the spec.
template <class Fn>
void with_family(const Spec &s, Fn &&fn) {
  dispatch_dtype(s.in, [&](auto tt) {
    using T = typename decltype(tt)::type;
    constexpr bool F = kFloaty<T>;
    const bool nan = is_nan_op(s.op);
    auto acc_of = [&](auto &&f) {
      switch (dtype_kind(s.out)) {
        case 'b':
        case 'i': f(TypeTag<int64_t>{}); break;
        case 'u': f(TypeTag<uint64_t>{}); break;
        case 'f': f(TypeTag<double>{}); break;
        case 'c': f(TypeTag<std::complex<double>>{}); break;
        default: fail(CA_ETYPE, "reduction result dtype ", s.out, " is not numeric");
      }
    };
    switch (s.op) {
      case CA_RED_SUM:
      case CA_RED_NANSUM:
      case CA_RED_PROD:
      case CA_RED_NANPROD: {
        const bool p = s.op == CA_RED_PROD || s.op == CA_RED_NANPROD;
        acc_of([&](auto at) {
          using A = typename decltype(at)::type;
          if (nan && F) {
            if (p) fn(TypeTag<SumFam<T, A, F, true>>{});
            else fn(TypeTag<SumFam<T, A, F, false>>{});
          } else {
            if (p) fn(TypeTag<SumFam<T, A, false, true>>{});
            else fn(TypeTag<SumFam<T, A, false, false>>{});
          }
        });
        return;
      }
      case CA_RED_MEAN:
      case CA_RED_NANMEAN:
        if (dtype_kind(s.out) == 'i' || dtype_kind(s.out) == 'u') {
          if constexpr (!kCplx<T>) {
            if (dtype_kind(s.out) == 'u') {
              if (nan && F) fn(TypeTag<MeanFam<T, uint64_t, F>>{});
              else fn(TypeTag<MeanFam<T, uint64_t, false>>{});
            } else {
              if (nan && F) fn(TypeTag<MeanFam<T, int64_t, F>>{});
              else fn(TypeTag<MeanFam<T, int64_t, false>>{});
            }
            return;
          }
        }
        if (dtype_is_complex(s.out)) {
          if (nan && F) fn(TypeTag<MeanFam<T, std::complex<double>, F>>{});
          else fn(TypeTag<MeanFam<T, std::complex<double>, false>>{});
        } else {
          if (nan && F) fn(TypeTag<MeanFam<T, double, F>>{});
          else fn(TypeTag<MeanFam<T, double, false>>{});
        }
        return;
      case CA_RED_VAR:
      case CA_RED_STD:
      case CA_RED_NANVAR:
      case CA_RED_NANSTD: {
        using M = std::conditional_t<kCplx<T>, std::complex<double>, double>;
        if (nan && F) fn(TypeTag<VarFam<T, M, F>>{});
        else fn(TypeTag<VarFam<T, M, false>>{});
        return;
      }
      case CA_RED_MIN:
      case CA_RED_NANMIN:
        if (nan && F) fn(TypeTag<MinMaxFam<T, F, false>>{});
        else fn(TypeTag<MinMaxFam<T, false, false>>{});
        return;
      case CA_RED_MAX:
      case CA_RED_NANMAX:
        if (nan && F) fn(TypeTag<MinMaxFam<T, F, true>>{});
        else fn(TypeTag<MinMaxFam<T, false, true>>{});
        return;
      case CA_RED_ARGMIN:
      case CA_RED_NANARGMIN:
        if (nan && F) fn(TypeTag<ArgFam<T, F, false>>{});
        else fn(TypeTag<ArgFam<T, false, false>>{});
        return;
      case CA_RED_ARGMAX:
      case CA_RED_NANARGMAX:
        if (nan && F) fn(TypeTag<ArgFam<T, F, true>>{});
        else fn(TypeTag<ArgFam<T, false, true>>{});
        return;
      case CA_RED_ANY: fn(TypeTag<AnyAllFam<T, false>>{}); return;
      case CA_RED_ALL: fn(TypeTag<AnyAllFam<T, true>>{}); return;
      default: fail(CA_EINVAL, "unknown reduction op ", s.op);
    }
  });
}

// ---- walking a block: C-order runs -> output partials ---------------------------------------------

struct WalkPlan {
  int32_t ng = 0;
  Index size[CA_MAX_NDIM + 1];
  Index instride[CA_MAX_NDIM + 1];
  Index ostride[CA_MAX_NDIM + 1];
  bool red[CA_MAX_NDIM + 1];
  Index L = 1;
  bool inner_red = true;
  Index nout = 1;
};

// collapse: drop size-1 dimensions and merge neighbours alike (reduced or kept) into groups.
WalkPlan make_plan(const std::vector<Index> &shape, uint64_t mask, bool collapse) {
  WalkPlan w;
  const int32_t nd = int32_t(shape.size());
  std::vector<Index> ostr(size_t(nd) + 1, 1);
  for (int32_t d = nd - 1; d >= 0; --d) {
    bool r = (mask >> d) & 1;
    ostr[size_t(d)] = ostr[size_t(d) + 1] * (r ? 1 : shape[size_t(d)]);
  }
  w.nout = ostr[0];
  for (int32_t d = 0; d < nd; ++d) {
    bool r = (mask >> d) & 1;
    Index s = shape[size_t(d)];
    if (collapse && s == 1) continue;
    if (collapse && w.ng > 0 && w.red[w.ng - 1] == r) {
      w.size[w.ng - 1] *= s;
      w.ostride[w.ng - 1] = r ? 0 : ostr[size_t(d) + 1];
      continue;
    }
    w.size[w.ng] = s;
    w.red[w.ng] = r;
    w.ostride[w.ng] = r ? 0 : ostr[size_t(d) + 1];
    w.ng++;
  }
  if (w.ng == 0) {
    w.size[0] = 1, w.red[0] = true, w.ostride[0] = 0, w.ng = 1;
  }
  Index st = 1;
  for (int32_t g = w.ng - 1; g >= 0; --g) {
    w.instride[g] = st;
    st *= w.size[g];
  }
  w.L = w.size[w.ng - 1];
  w.inner_red = w.red[w.ng - 1];
  return w;
}

// h(o, x, len, pos): a run into partial o; v(o, x, len, pos): a run into partials o..o+len.
template <class T, class H, class V>
inline void walk(const WalkPlan &w, const T *x, Index n, Index off, H &&h, V &&v) {
  while (n > 0) {
    Index j0 = off % w.L;
    Index len = std::min(n, w.L - j0);
    Index o = 0;
    for (int32_t g = 0; g < w.ng; ++g) o += ((off / w.instride[g]) % w.size[g]) * w.ostride[g];
    if (w.inner_red)
      h(o, x, len, off);
    else
      v(o, x, len, off);
    x += len, off += len, n -= len;
  }
}

struct ChunkIn {
  const PreparedProgram *pp = nullptr;
  const ExprProgram *prog = nullptr;
  bool identity = false;
  std::vector<const Block *> leaves;
  std::vector<Index> gshape, origin, bshape;
  Spec spec;
};

template <class T, class F>
void for_tiles(const ChunkIn &in, F &&f) {
  if (in.identity) {
    const Block *b = in.leaves[0];
    f(static_cast<const T *>(b->data), b->size, Index(0));
    return;
  }
  std::vector<Index> shape;
  GenCoords c{in.origin.data(), in.bshape.data(), int32_t(in.bshape.size())};
  eval_program_tiles(*in.pp, in.leaves.data(), in.leaves.size(), in.prog->coords ? &c : nullptr, shape,
                     [&](const void *t, int64_t n, int64_t off) { f(static_cast<const T *>(t), n, off); });
}

template <class Fam>
void run_chunk(const ChunkIn &in, typename Fam::P *acc, Index nout) {
  using T = typename Fam::In;
  using P = typename Fam::P;
  for (Index i = 0; i < nout; ++i) Fam::init(acc[i]);
  const Spec &s = in.spec;
  if constexpr (Fam::kArg) {
    const WalkPlan w = make_plan(in.bshape, s.mask, false);
    const int32_t nd = int32_t(in.bshape.size());
    std::vector<Index> gstride(size_t(nd) + 1, 1);
    for (int32_t d = nd - 2; d >= 0; --d) gstride[size_t(d)] = gstride[size_t(d) + 1] * in.gshape[size_t(d) + 1];
    auto coord = [&](Index pos, int32_t d) { return (pos / w.instride[d]) % w.size[d]; };
    auto index_at = [&](Index pos) -> Index {
      if (s.argaxis < 0) {
        Index g = 0;
        for (int32_t d = 0; d < nd; ++d) g += (in.origin[size_t(d)] + coord(pos, d)) * gstride[size_t(d)];
        return g;
      }
      return in.origin[size_t(s.argaxis)] + coord(pos, s.argaxis);
    };
    for_tiles<T>(in, [&](const T *x, Index n, Index off) {
      walk(
          w, x, n, off,
          [&](Index o, const T *xs, Index len, Index pos) {
            Index i0 = index_at(pos);
            for (Index j = 0; j < len; ++j) Fam::put(acc[o], xs[j], i0 + j);
          },
          [&](Index o, const T *xs, Index len, Index pos) {
            Index i0 = index_at(pos);
            for (Index j = 0; j < len; ++j) Fam::put(acc[o + j], xs[j], i0);
          });
    });
  } else {
    const WalkPlan w = make_plan(in.bshape, s.mask, true);
    for_tiles<T>(in, [&](const T *x, Index n, Index off) {
      walk(
          w, x, n, off, [&](Index o, const T *xs, Index len, Index) { Fam::horiz(acc[o], xs, len); },
          [&](Index o, const T *xs, Index len, Index) { Fam::vert(acc + o, xs, len); });
    });
  }
  (void)sizeof(P);
}

// ---- casting --------------------------------------------------------------------------------------

template <class From>
void cast_into(const From *src, Index n, DType to, void *dst) {
  dispatch_dtype(to, [&](auto tt) {
    using To = typename decltype(tt)::type;
    To *d = static_cast<To *>(dst);
    for (Index i = 0; i < n; ++i) d[i] = cvt<To>(src[i]);
  });
}

/// A new block of dtype `to` (always a private copy).
Block *cast_block(const Block *src, DType to) {
  BlockRef out(block_new(to, src->ndim, src->shape));
  if (src->dtype == to) {
    if (src->nbytes) std::memcpy(out->data, src->data, size_t(src->nbytes));
  } else {
    dispatch_dtype(src->dtype, [&](auto tt) {
      using F = typename decltype(tt)::type;
      cast_into(static_cast<const F *>(src->data), src->size, to, out->data);
    });
  }
  return out.release();
}

// ---- kernels --------------------------------------------------------------------------------------

// The kernel adapter's exception boundary (kernel/adapter.hpp); the body sets *out.
template <class F>
ca_status_t guard(ca_kernel_ctx_t *kctx, const char *, F &&f) {
  return kernel_boundary(kctx, std::forward<F>(f));
}

const PreparedProgram &parse_program(const ca_arg_t &a, bool &identity) {
  CA_CHECK(a.kind == CA_ARG_BYTES || a.kind == CA_ARG_STRING, CA_EINVAL, "program must be bytes");
  const PreparedProgram &pp = prepared_program(a.u.bytes.data, a.u.bytes.len);
  const ExprProgram &p = program_of(pp);
  identity = p.code.empty() && p.inputs.size() == 1 && p.out == 0;
  return pp;
}

ca_status_t k_reduce_chunk(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return guard(kctx, "ca.reduce_chunk", [&] {
    CA_CHECK(nargs >= 5, CA_EINVAL, "ca.reduce_chunk takes a program, 4 tuples and leaf blocks");
    ChunkIn in;
    in.pp = &parse_program(args[0], in.identity);
    in.prog = &program_of(*in.pp);
    in.spec = parse_spec(args[1]);
    in.gshape = tuple_of(args[2], "array shape");
    in.origin = tuple_of(args[3], "block origin");
    in.bshape = tuple_of(args[4], "block shape");
    for (size_t i = 5; i < nargs; ++i) in.leaves.push_back(block_arg(args[i], "a leaf"));
    CA_CHECK(in.leaves.size() == in.prog->inputs.size(), CA_EINVAL, "ca.reduce_chunk: program takes ",
             in.prog->inputs.size(), " inputs, got ", in.leaves.size());
    // Unknown block sizes (dask's NaN chunks, kUnknownChunk): the block's extents are the broadcast
    // extents of its leaves.
    for (size_t d = 0; d < in.bshape.size(); ++d) {
      if (in.bshape[d] >= 0) continue;
      Index e = 1;
      for (const Block *l : in.leaves) {
        int32_t k = int32_t(d) - int32_t(in.bshape.size()) + l->ndim;
        if (k >= 0 && l->shape[k] != 1) e = l->shape[k];
      }
      in.bshape[d] = e;
    }
    if (in.prog->coords) {
      const ca_arg_t o = ca_arg_tuple(in.origin.data(), in.origin.size());
      const ca_arg_t b = ca_arg_tuple(in.bshape.data(), in.bshape.size());
      gen_coords_from_args(*in.prog, o, b);  // validates origin and shape against the program
      CA_CHECK(in.gshape == in.prog->gshape, CA_EINVAL, "ca.reduce_chunk: array shape differs from the program's");
    }
    if (in.identity) {
      const Block *b = in.leaves[0];
      CA_CHECK(b->dtype == in.spec.in && b->size == prod(in.bshape), CA_EINVAL,
               "ca.reduce_chunk: block does not match its shape/dtype");
    }
    CA_CHECK(in.prog->reg_dtype(in.prog->out) == in.spec.in, CA_EINVAL, "ca.reduce_chunk: program dtype mismatch");
    with_family(in.spec, [&](auto ft) {
      using Fam = typename decltype(ft)::type;
      using P = typename Fam::P;
      std::vector<int64_t> pshape;
      for (size_t d = 0; d < in.bshape.size(); ++d) pshape.push_back((in.spec.mask >> d) & 1 ? 1 : in.bshape[d]);
      pshape.push_back(int64_t(sizeof(P)));
      BlockRef r(block_new(CA_RAW, int32_t(pshape.size()), pshape.data()));
      Index nout = r->nbytes / Index(sizeof(P));
      run_chunk<Fam>(in, static_cast<P *>(r->data), nout);
      *out = r.release();
    });
  });
}

ca_status_t k_reduce_combine(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return guard(kctx, "ca.reduce_combine", [&] {
    CA_CHECK(nargs == 2, CA_EINVAL, "ca.reduce_combine takes partials and a spec");
    std::vector<const Block *> parts;
    flatten_blocks(args[0], parts);
    CA_CHECK(!parts.empty(), CA_EINVAL, "ca.reduce_combine: no partials");
    Spec s = parse_spec(args[1]);
    with_family(s, [&](auto ft) {
      using Fam = typename decltype(ft)::type;
      using P = typename Fam::P;
      const Block *b0 = parts[0];
      for (const Block *b : parts)
        CA_CHECK(b->dtype == CA_RAW && b->nbytes == b0->nbytes && b->nbytes % Index(sizeof(P)) == 0, CA_EINVAL,
                 "ca.reduce_combine: partials of different shapes");
      BlockRef r(block_new(CA_RAW, b0->ndim, b0->shape));
      Index n = b0->nbytes / Index(sizeof(P));
      P *acc = static_cast<P *>(r->data);
      std::memcpy(acc, b0->data, size_t(b0->nbytes));
      for (size_t k = 1; k < parts.size(); ++k) {
        const P *p = static_cast<const P *>(parts[k]->data);
        for (Index i = 0; i < n; ++i) Fam::merge(acc[i], p[i]);
      }
      *out = r.release();
    });
  });
}

ca_status_t k_reduce_agg(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return guard(kctx, "ca.reduce_agg", [&] {
    CA_CHECK(nargs == 3, CA_EINVAL, "ca.reduce_agg takes partials, a spec and the output block shape");
    std::vector<const Block *> parts;
    flatten_blocks(args[0], parts);
    Spec s = parse_spec(args[1]);
    std::vector<Index> oshape = tuple_of(args[2], "output block shape");
    // Unknown extents (kept axes of unknown size): from the partials, whose shape is the keepdims
    // block shape plus the byte axis.
    if (!parts.empty()) {
      size_t od = 0;
      bool kd = size_t(parts[0]->ndim) == oshape.size() + 1;
      for (int32_t d = 0; d + 1 < parts[0]->ndim && od < oshape.size(); ++d) {
        if (!kd && ((s.mask >> d) & 1)) continue;
        if (oshape[od] < 0) oshape[od] = parts[0]->shape[d];
        ++od;
      }
    }
    CA_CHECK(!parts.empty(), CA_EINVAL, "ca.reduce_agg: no partials");
    const Index n = prod(oshape);
    with_family(s, [&](auto ft) {
      using Fam = typename decltype(ft)::type;
      using P = typename Fam::P;
      using Out = typename Fam::Out;
      // The partials' sizes first: the accumulators are then no larger than a partial in memory.
      Index want;
      const bool fits = !__builtin_mul_overflow(n, Index(sizeof(P)), &want);
      for (const Block *b : parts)
        CA_CHECK(fits && b->dtype == CA_RAW && b->nbytes == want, CA_EINVAL, "ca.reduce_agg: a partial of ",
                 b->nbytes, " bytes for ", n, " outputs");
      std::vector<P> acc(static_cast<size_t>(n));
      for (auto &p : acc) Fam::init(p);
      for (const Block *b : parts) {
        const P *p = static_cast<const P *>(b->data);
        for (Index i = 0; i < n; ++i) Fam::merge(acc[size_t(i)], p[i]);
      }
      constexpr DType od = dtype_of<Out>();
      BlockRef r(block_new(od, int32_t(oshape.size()), oshape.data()));
      Out *o = static_cast<Out *>(r->data);
      for (Index i = 0; i < n; ++i) Fam::finalize(acc[size_t(i)], o[i], s);
      if (s.out != od) r = BlockRef(cast_block(r.get(), s.out));
      *out = r.release();
    });
  });
}

void release_block_ud(void *p) { block_release(static_cast<const Block *>(p)); }

ca_status_t k_reduce_squeeze(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return guard(kctx, "ca.reduce_squeeze", [&] {
    CA_CHECK(nargs == 2, CA_EINVAL, "ca.reduce_squeeze takes a block and a shape");
    const Block *b = block_arg(args[0], "ca.reduce_squeeze's input");
    std::vector<Index> shape = tuple_of(args[1], "shape");
    CA_CHECK(prod(shape) == b->size, CA_EINVAL, "ca.reduce_squeeze: the aggregate returned ", b->size,
             " elements for a block of ", prod(shape));
    Block *src = block_retain(b);
    *out = block_wrap(b->dtype, int32_t(shape.size()), shape.data(), b->data, release_block_ud, src);
  });
}

// ---- scans ----------------------------------------------------------------------------------------

struct ScanSpec {
  int32_t op;
  DType in, out;
  int32_t axis;
};

ScanSpec parse_scan_spec(const ca_arg_t &a) {
  CA_CHECK(a.kind == CA_ARG_TUPLE && a.u.tuple.len >= 4, CA_EINVAL, "scan spec must be a 4-tuple");
  const int64_t *t = a.u.tuple.items;
  return ScanSpec{int32_t(t[0]), DType(t[1]), DType(t[2]), int32_t(t[3])};
}

bool scan_is_prod(int32_t op) { return op == CA_SCAN_CUMPROD || op == CA_SCAN_NANCUMPROD; }
bool scan_is_nan(int32_t op) { return op == CA_SCAN_NANCUMSUM || op == CA_SCAN_NANCUMPROD; }

// (outer, n, inner) around the axis
void split_axis(const Block *b, int32_t axis, Index &outer, Index &n, Index &inner) {
  CA_CHECK(axis >= 0 && axis < b->ndim, CA_EINVAL, "scan axis ", axis, " out of range for a block of ", b->ndim,
           " dimensions");
  outer = 1, inner = 1;
  for (int32_t d = 0; d < axis; ++d) outer *= b->shape[d];
  n = b->shape[axis];
  for (int32_t d = axis + 1; d < b->ndim; ++d) inner *= b->shape[d];
}

template <class R, bool PROD>
void scan_inplace(R *x, Index outer, Index n, Index inner) {
  for (Index o = 0; o < outer; ++o) {
    R *base = x + o * n * inner;
    for (Index k = 1; k < n; ++k) {
      const R *prev = base + (k - 1) * inner;
      R *cur = base + k * inner;
      for (Index i = 0; i < inner; ++i) {
        if constexpr (std::is_same_v<R, bool>)
          cur[i] = PROD ? (prev[i] && cur[i]) : (prev[i] || cur[i]);
        else
          cur[i] = op2<R, PROD>(prev[i], cur[i]);
      }
    }
  }
}

ca_status_t k_scan_block(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return guard(kctx, "ca.scan_block", [&] {
    CA_CHECK(nargs >= 4, CA_EINVAL, "ca.scan_block takes a program, a spec, the block's shape and origin and leaf blocks");
    bool identity = false;
    const PreparedProgram &pp = parse_program(args[0], identity);
    const ExprProgram &prog = program_of(pp);
    ScanSpec s = parse_scan_spec(args[1]);
    std::vector<const Block *> leaves;
    for (size_t i = 4; i < nargs; ++i) leaves.push_back(block_arg(args[i], "a leaf"));
    CA_CHECK(leaves.size() == prog.inputs.size(), CA_EINVAL, "ca.scan_block: wrong number of leaves");
    GenCoords coords;
    if (prog.coords) coords = gen_coords_from_args(prog, args[3], args[2]);
    BlockRef val;
    if (identity)
      val = BlockRef(block_retain(leaves[0]));
    else
      val = BlockRef(eval_prepared_program(pp, leaves.data(), leaves.size(), prog.coords ? &coords : nullptr));
    const bool prodop = scan_is_prod(s.op);
    // nancumsum/nancumprod replace NaN by the identity before the cast to the result dtype (NumPy's
    // order: nancumsum([1., nan], dtype='int16') is [1, 1]).
    BlockRef r;
    if (scan_is_nan(s.op) && (dtype_is_float(val->dtype) || dtype_is_complex(val->dtype))) {
      r = BlockRef(cast_block(val.get(), val->dtype));  // a private copy
      dispatch_dtype(r->dtype, [&](auto tt) {
        using V = typename decltype(tt)::type;
        if constexpr (kFloaty<V>) {
          V *x = static_cast<V *>(r->data);
          const V id = prodop ? V(1) : V(0);
          for (Index i = 0; i < r->size; ++i) x[i] = is_nan(x[i]) ? id : x[i];
        }
      });
      if (s.out != r->dtype) r = BlockRef(cast_block(r.get(), s.out));
    } else {
      r = BlockRef(cast_block(val.get(), s.out));
    }
    val = BlockRef();
    Index outer, n, inner;
    split_axis(r.get(), s.axis, outer, n, inner);
    dispatch_dtype(s.out, [&](auto tt) {
      using R = typename decltype(tt)::type;
      R *x = static_cast<R *>(r->data);
      if (prodop)
        scan_inplace<R, true>(x, outer, n, inner);
      else
        scan_inplace<R, false>(x, outer, n, inner);
    });
    *out = r.release();
  });
}

template <class R, bool PROD>
inline R combine2(R a, R b) {
  if constexpr (std::is_same_v<R, bool>)
    return PROD ? (a && b) : (a || b);
  else
    return op2<R, PROD>(a, b);
}

ca_status_t k_scan_carry(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return guard(kctx, "ca.scan_carry", [&] {
    CA_CHECK(nargs == 3, CA_EINVAL, "ca.scan_carry takes a spec, the previous carry and a scanned block");
    ScanSpec s = parse_scan_spec(args[0]);
    const Block *prev = args[1].kind == CA_ARG_NONE ? nullptr : block_arg(args[1], "previous carry");
    const Block *m = block_arg(args[2], "scanned block");
    CA_CHECK(m->dtype == s.out, CA_EINVAL, "ca.scan_carry: dtype mismatch");
    Index outer, n, inner;
    split_axis(m, s.axis, outer, n, inner);
    std::vector<int64_t> shape(m->shape, m->shape + m->ndim);
    shape[size_t(s.axis)] = 1;
    BlockRef r(block_new(s.out, m->ndim, shape.data()));
    if (prev) CA_CHECK(prev->size == r->size && prev->dtype == s.out, CA_EINVAL, "ca.scan_carry: bad carry");
    const bool prodop = scan_is_prod(s.op);
    dispatch_dtype(s.out, [&](auto tt) {
      using R = typename decltype(tt)::type;
      R *o = static_cast<R *>(r->data);
      const R *x = static_cast<const R *>(m->data);
      const R *p = prev ? static_cast<const R *>(prev->data) : nullptr;
      const R id = prodop ? R(1) : R(0);
      for (Index a = 0; a < outer; ++a)
        for (Index i = 0; i < inner; ++i) {
          R last = n > 0 ? x[(a * n + n - 1) * inner + i] : id;
          R c = p ? p[a * inner + i] : id;
          o[a * inner + i] = prodop ? combine2<R, true>(c, last) : combine2<R, false>(c, last);
        }
    });
    *out = r.release();
  });
}

ca_status_t k_scan_apply(ca_block_t **out, const ca_arg_t *args, size_t nargs, ca_kernel_ctx_t *kctx, void *) {
  return guard(kctx, "ca.scan_apply", [&] {
    CA_CHECK(nargs == 3, CA_EINVAL, "ca.scan_apply takes a spec, a scanned block and a carry");
    ScanSpec s = parse_scan_spec(args[0]);
    const Block *m = block_arg(args[1], "scanned block");
    const Block *c = block_arg(args[2], "carry");
    Index outer, n, inner;
    split_axis(m, s.axis, outer, n, inner);
    CA_CHECK(m->dtype == s.out && c->dtype == s.out && c->size == outer * inner, CA_EINVAL,
             "ca.scan_apply: carry does not match the block");
    BlockRef r(cast_block(m, s.out));
    const bool prodop = scan_is_prod(s.op);
    dispatch_dtype(s.out, [&](auto tt) {
      using R = typename decltype(tt)::type;
      R *x = static_cast<R *>(r->data);
      const R *cv = static_cast<const R *>(c->data);
      for (Index a = 0; a < outer; ++a)
        for (Index k = 0; k < n; ++k) {
          R *row = x + (a * n + k) * inner;
          const R *cr = cv + a * inner;
          if (prodop)
            for (Index i = 0; i < inner; ++i) row[i] = combine2<R, true>(cr[i], row[i]);
          else
            for (Index i = 0; i < inner; ++i) row[i] = combine2<R, false>(cr[i], row[i]);
        }
    });
    *out = r.release();
  });
}

}  // namespace

void register_reduce_kernels(KernelRegistry &reg) {
  reg.add(kernel_new("ca.reduce_chunk", k_reduce_chunk, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.reduce_combine", k_reduce_combine, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.reduce_agg", k_reduce_agg, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.reduce_squeeze", k_reduce_squeeze, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.scan_block", k_scan_block, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.scan_carry", k_scan_carry, 1, nullptr, nullptr), true);
  reg.add(kernel_new("ca.scan_apply", k_scan_apply, 1, nullptr, nullptr), true);
}

}  // namespace ca
