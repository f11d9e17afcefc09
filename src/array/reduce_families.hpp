// The reduction families as templates, for the translation units that instantiate them
// (array/reduce_kernels_<group>.cpp) and array/reduce_kernels.cpp's casts. Each family: P (partial),
// Out (final value type), init, merge, horiz (a run into one partial), vert (a run into consecutive
// partials), finalize; run_stage<Family> runs one kernel stage with it.
//
// Everything here has internal linkage (an anonymous namespace): fold_run is a target_clones function,
// and an ifunc resolver must not be a COMDAT shared between objects. Include it only from .cpp files.
#pragma once

#include <chunkarray/array.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "array/expr.hpp"
#include "array/expr_chain.hpp"
#include "array/op_table.hpp"
#include "array/reduce_kernels.hpp"
#include "core/block.hpp"
#include "core/checked.hpp"
#include "core/isa.hpp"

namespace ca::red {

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

// Row updates of the SoA states of reductions over outer axes (run_chunk), in clones per ISA level
// (8 lanes with AVX-512; the states of one column segment are in L1). Element-wise: no reordering
// across elements, and no contraction into FMAs (fp-contract off), so every clone gives the
// default one's values bit for bit.
template <class T>
CA_ISA_CLONES __attribute__((optimize("fp-contract=off"))) void add_run(double *__restrict s, const T *__restrict x,
                                                                          Index n) {
  for (Index j = 0; j < n; ++j) s[j] += cvt<double>(x[j]);
}

// Welford's step for a run whose outputs have all seen cnt[0] elements: one division per run.
template <class T>
CA_ISA_CLONES __attribute__((optimize("fp-contract=off"))) void welford_run_uniform(
    double *__restrict cnt, double *__restrict mean, double *__restrict m2, const T *__restrict x, Index n) {
  const double n1 = cnt[0] + 1.0, inv = 1.0 / n1;
  for (Index j = 0; j < n; ++j) {
    const double v = cvt<double>(x[j]), d = v - mean[j];
    cnt[j] = n1;
    mean[j] += d * inv;
    m2[j] += d * (v - mean[j]);
  }
}

// Pairwise (cascade) summation like NumPy: 16 independent accumulators over leaves of <= 4096
// elements (each accumulator adds 256 of them), halves combined recursively. No per-element branches,
// so it vectorizes; smaller leaves cost measurable bandwidth (the horizontal reduction per leaf). The
// leaf size is instr::Chain::kLeaf: the fused chain sums of array/expr_chain.hpp add in this same order.
template <class A, bool SKIP, bool PROD, class T>
CA_ISA_CLONES A fold_run(const T *x, Index n) {
  const A id = PROD ? A(1) : A(0);
  if (n <= instr::Chain::kLeaf) {
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
  // A fused chain's run summed in one pass (array/expr_chain.hpp): what horiz adds for that run.
  static constexpr bool kChain = !SKIP && !PROD && std::is_same_v<A, double> &&
                                 (std::is_same_v<T, double> || std::is_same_v<T, float>);
  static void horiz_sum(P &acc, double s, Index) {
    if constexpr (kChain) acc = acc + s;
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
  static constexpr bool kChain = !SKIP && std::is_same_v<A, double> &&
                                 (std::is_same_v<T, double> || std::is_same_v<T, float>);
  static void horiz_sum(P &acc, double s, Index n) {
    if constexpr (kChain) acc.s = acc.s + s, acc.n += double(n);
  }
  // Without NaN skipping every element counts: vert leaves the counts to vert_rows (run_chunk adds
  // the rows of a chunk reduced across them once per output), so its loop is a plain sum.
  static constexpr bool kVertRows = !(SKIP && kFloaty<T>);
  static void vert(P *acc, const T *x, Index n) {
    for (Index j = 0; j < n; ++j) {
      acc[j].s = op2<A, false>(acc[j].s, load<A, SKIP, false>(x[j]));
      if constexpr (!kVertRows) acc[j].n += is_nan(x[j]) ? 0.0 : 1.0;
    }
  }
  static void vert_rows(P *acc, Index nout, double rows) {
    if constexpr (kVertRows)
      for (Index i = 0; i < nout; ++i) acc[i].n += rows;
  }
  // Real double sums over outer axes: one array of sums while the chunk runs (run_chunk), so the
  // row loop is a plain vectorized add instead of a walk over 16-byte structs (W7's mean(axis=0)).
  static constexpr int kSoA = kVertRows && std::is_same_v<A, double> ? 1 : 0;
  static void soa_store(P &p, const double *const *st, Index i) { p.s = A(st[0][i]); }
  static void vert_soa(double *const *st, Index o, const T *__restrict x, Index n) { add_run(st[0] + o, x, n); }
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
  static constexpr bool kVertRows = false;
  static void vert_rows(P *, Index, double) {}
  // Reductions over outer axes of real data keep the Welford states as three arrays (counts, means,
  // sums of squared deviations) while the chunk runs, so each row's update is one vectorized loop
  // instead of a walk over 24-byte structs (run_chunk; W7's std(axis=0)).
  static constexpr int kSoA = !kCplx<T> && !(SKIP && kFloaty<T>) ? 3 : 0;
  static void soa_store(P &p, const double *const *st, Index i) { p.n = st[0][i], p.mean = M(st[1][i]), p.m2 = st[2][i]; }
  static void vert_soa(double *const *st, Index o, const T *x, Index n) {
    vert_welford(st[0] + o, st[1] + o, st[2] + o, x, n);
  }
  static void vert_welford(double *__restrict cnt, double *__restrict mean, double *__restrict m2, const T *__restrict x,
                           Index n) {
    if (n > 0 && cnt[0] == cnt[n - 1]) {  // (as vert: one division per run)
      welford_run_uniform(cnt, mean, m2, x, n);
      return;
    }
    for (Index j = 0; j < n; ++j) {
      const double v = cvt<double>(x[j]), c = cnt[j] + 1.0, d = v - mean[j];
      cnt[j] = c;
      mean[j] += d / c;
      m2[j] += d * (v - mean[j]);
    }
  }
  static void vert(P *acc, const T *x, Index n) {
    if constexpr (!(SKIP && kFloaty<T>)) {
      // Every output of one run has seen the same number of elements (the runs before it each covered
      // all of them), so Welford's 1 / n is one division per run instead of one per element.
      if (n > 0 && acc[0].n == acc[n - 1].n) {
        const double n1 = acc[0].n + 1.0;
        const M inv = M(1.0 / n1);
        for (Index j = 0; j < n; ++j) {
          P &p = acc[j];
          const M v = cvt<M>(x[j]);
          p.n = n1;
          const M d = v - p.mean;
          p.mean += d * inv;
          p.m2 += dotre(d, v - p.mean);
        }
        return;
      }
    }
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
    if (d == 0 && red_info(s.op).nan) {
      o = nan_of<double>();
      return;
    }
    double v = p.m2 / d;
    o = red_info(s.op).family == RedFamily::Std ? std::sqrt(v) : v;
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
inline WalkPlan make_plan(const std::vector<Index> &shape, uint64_t mask, bool collapse) {
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

// The chunk's elements as tiles (f(tile, n, flat offset)). columns: a reduction over outer axes
// whose per-output updates commute across outputs may take a generated chunk's tiles column
// segment by column segment (eval_program_tiles; each output still sees its elements in C order).
template <class T, class F>
void for_tiles(const ChunkIn &in, F &&f, bool columns = false) {
  if (in.identity) {
    const Block *b = in.leaves[0];
    f(static_cast<const T *>(b->data), b->size, Index(0));
    return;
  }
  std::vector<Index> shape;
  GenCoords c{in.origin.data(), in.bshape.data(), int32_t(in.bshape.size())};
  eval_program_tiles(*in.pp, in.leaves.data(), in.leaves.size(), in.prog->coords ? &c : nullptr, shape,
                     [&](const void *t, int64_t n, int64_t off) { f(static_cast<const T *>(t), n, off); },
                     &columns);
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
    // Families with kSoA = K > 0 keep the state of a reduction over outer axes in K arrays of
    // doubles while the chunk runs (vert_soa), written to the partials at the end (soa_store): the
    // row loops then vectorize, where a walk over P structs is strided.
    bool soa = false;
    if constexpr (requires { Fam::kSoA; }) {
      if constexpr (Fam::kSoA > 0) {
        if (!w.inner_red) {
          constexpr int K = Fam::kSoA;
          std::vector<double> st(size_t(K) * size_t(nout), 0.0);
          double *arr[K];
          for (int k = 0; k < K; ++k) arr[k] = st.data() + size_t(k) * size_t(nout);
          // Column segments: one segment's states (K doubles per output) stay in L1 over all the
          // chunk's rows instead of streaming every row's states through L2 (W7's std(axis=0)).
          for_tiles<T>(
              in,
              [&](const T *x, Index n, Index off) {
                walk(
                    w, x, n, off, [&](Index, const T *, Index, Index) {},
                    [&](Index o, const T *xs, Index len, Index) { Fam::vert_soa(arr, o, xs, len); });
              },
              true);
          for (Index i = 0; i < nout; ++i) Fam::soa_store(acc[i], arr, i);
          soa = true;
        }
      }
    }
    // A fused chain reduced along its last axes: each run summed in one pass (array/expr_chain.hpp),
    // the same value as horiz over the run of the computed expression.
    bool chained = false;
    if constexpr (requires { Fam::kChain; }) {
      if constexpr (Fam::kChain) {
        if (!soa && w.inner_red && !in.identity && in.pp && chain_candidate(*in.pp)) {
          Index total = 1;
          for (Index e : in.bshape) total *= e;
          instr::Chain ch;
          if (total > 0 && chain_of(*in.pp, in.leaves.data(), in.leaves.size(), total, ch)) {
            for (Index off = 0; off < total; off += w.L) {
              Index o = 0;
              for (int32_t g = 0; g < w.ng; ++g) o += ((off / w.instride[g]) % w.size[g]) * w.ostride[g];
              Fam::horiz_sum(acc[o], instr::chain_sum(ch, off, w.L), w.L);
            }
            chained = true;
          }
        }
      }
    }
    if (!soa && !chained)
      for_tiles<T>(in, [&](const T *x, Index n, Index off) {
        walk(
            w, x, n, off, [&](Index o, const T *xs, Index len, Index) { Fam::horiz(acc[o], xs, len); },
            [&](Index o, const T *xs, Index len, Index) { Fam::vert(acc + o, xs, len); });
      });
    if constexpr (requires { Fam::kVertRows; }) {
      if constexpr (Fam::kVertRows) {
        Index total = 1;
        for (Index e : in.bshape) total *= e;
        if (!w.inner_red && nout > 0) Fam::vert_rows(acc, nout, double(total / nout));
      }
    }
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

// ---- one stage of a reduction with family Fam -----------------------------------------------------

template <class Fam>
void run_stage(RedCall &c) {
  using P = typename Fam::P;
  const Spec &s = *c.spec;
  switch (c.stage) {
    case RedCall::PartialSize: c.partial_size = sizeof(P); return;
    case RedCall::Chunk: {
      const ChunkIn &in = *c.in;
      std::vector<int64_t> pshape;
      for (size_t d = 0; d < in.bshape.size(); ++d) pshape.push_back((s.mask >> d) & 1 ? 1 : in.bshape[d]);
      pshape.push_back(int64_t(sizeof(P)));
      BlockRef r(block_new(CA_RAW, int32_t(pshape.size()), pshape.data()));
      Index nout = r->nbytes / Index(sizeof(P));
      run_chunk<Fam>(in, static_cast<P *>(r->data), nout);
      c.out = r.release();
      return;
    }
    case RedCall::Combine: {
      const std::vector<const Block *> &parts = *c.parts;
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
      c.out = r.release();
      return;
    }
    case RedCall::Agg: {
      using Out = typename Fam::Out;
      const std::vector<const Block *> &parts = *c.parts;
      const std::vector<Index> &oshape = *c.oshape;
      const Index n = checked_size(oshape);
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
      c.out = r.release();
      return;
    }
  }
}

/// The nan-skipping variant runs only for float and complex inputs (integers have no NaN).
inline bool skips_nan(const Spec &s) { return red_info(s.op).nan; }

/// fn(TypeTag<int64_t | uint64_t | double | complex<double>>) for the accumulator of a result dtype.
template <class F>
void with_accumulator(DType out, F &&f) {
  switch (dtype_kind(out)) {
    case 'b':
    case 'i': f(TypeTag<int64_t>{}); break;
    case 'u': f(TypeTag<uint64_t>{}); break;
    case 'f': f(TypeTag<double>{}); break;
    case 'c': f(TypeTag<std::complex<double>>{}); break;
    default: fail(CA_ETYPE, "reduction result dtype ", out, " is not numeric");
  }
}

[[noreturn]] inline void not_in_group(const Spec &s, const char *group) {
  fail(CA_EINVAL, "unknown reduction op ", s.op, " (not a ", group, " reduction)");
}

}  // namespace

}  // namespace ca::red
