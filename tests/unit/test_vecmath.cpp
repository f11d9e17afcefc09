// The vectorized transcendental functions of the fused interpreter (array/vecmath.hpp, SLEEF):
// every function at every ISA level this CPU has, float32 and float64, against long-double libm
// (an independent reference ~2^11 times finer than float64) in ULPs, on ranges with the special
// values (±0, ±inf, NaN, subnormals, domain edges, overflow edges, huge arguments of sin/cos/tan),
// and every tail length; then through fused programs against NumPy on ragged chunks, 0-d, empty and
// size-1 arrays, and the W9 expression. The bounds asserted here are the ones docs/math.md states.
#include <gtest/gtest.h>

#include <chunkarray/array.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "array/array.hpp"
#include "array/expr.hpp"
#include "array/expr_instr.hpp"
#include "support/vecmath_test.hpp"
#include "array/reduce.hpp"
#include "array/vecmath.hpp"
#include "core/memory.hpp"
#include "numpy_ref.hpp"

using namespace ca;
using ca::test::Npy;

namespace ca::test {
// The float32 bounds of the purpose-written kernels (array/vecpoly_f32.inc; test_vecmath_f32.cpp).
double vecpoly_f32_bound(int32_t op, double other);
}  // namespace ca::test

namespace {

using Ref1 = long double (*)(long double);
using Ref2 = long double (*)(long double, long double);

struct Fn1 {
  int32_t op;
  const char *np;
  Ref1 ref;
  double bound;  // max ULP error asserted (docs/math.md)
};
struct Fn2 {
  int32_t op;
  const char *np;
  Ref2 ref;
  double bound;
};

long double ref_sin(long double x) { return sinl(x); }
long double ref_cos(long double x) { return cosl(x); }
long double ref_tan(long double x) { return tanl(x); }
long double ref_asin(long double x) { return asinl(x); }
long double ref_acos(long double x) { return acosl(x); }
long double ref_atan(long double x) { return atanl(x); }
long double ref_sinh(long double x) { return sinhl(x); }
long double ref_cosh(long double x) { return coshl(x); }
long double ref_tanh(long double x) { return tanhl(x); }
long double ref_asinh(long double x) { return asinhl(x); }
long double ref_acosh(long double x) { return acoshl(x); }
long double ref_atanh(long double x) { return atanhl(x); }
long double ref_exp(long double x) { return expl(x); }
long double ref_expm1(long double x) { return expm1l(x); }
long double ref_log(long double x) { return logl(x); }
long double ref_log2(long double x) { return log2l(x); }
long double ref_log10(long double x) { return log10l(x); }
long double ref_log1p(long double x) { return log1pl(x); }
long double ref_sqrt(long double x) { return sqrtl(x); }
long double ref_exp2(long double x) { return exp2l(x); }
long double ref_cbrt(long double x) { return cbrtl(x); }
long double ref_hypot(long double x, long double y) { return hypotl(x, y); }
long double ref_pow(long double x, long double y) { return powl(x, y); }
long double ref_atan2(long double y, long double x) { return atan2l(y, x); }

// The bound per function (docs/math.md): SLEEF's 3.5-ULP ("u35") functions where SLEEF has one and it
// is faster (NumPy 1.24's own float64 loops on this kind of CPU are Intel SVML's, <= 4 ULP), its
// 1.0-ULP ("u10") ones otherwise; sqrt is the correctly rounded instruction (0.5 ULP).
constexpr double kU35 = 3.5, kU10 = 1.0;
const std::vector<Fn1> kUnary = {
    {CA_OP_SIN, "np.sin", ref_sin, kU35},          {CA_OP_COS, "np.cos", ref_cos, kU35},
    {CA_OP_TAN, "np.tan", ref_tan, kU35},          {CA_OP_ARCSIN, "np.arcsin", ref_asin, kU35},
    {CA_OP_ARCCOS, "np.arccos", ref_acos, kU35},   {CA_OP_ARCTAN, "np.arctan", ref_atan, kU35},
    {CA_OP_SINH, "np.sinh", ref_sinh, kU35},       {CA_OP_COSH, "np.cosh", ref_cosh, kU35},
    {CA_OP_TANH, "np.tanh", ref_tanh, kU35},       {CA_OP_ARCSINH, "np.arcsinh", ref_asinh, kU10},
    {CA_OP_ARCCOSH, "np.arccosh", ref_acosh, kU10}, {CA_OP_ARCTANH, "np.arctanh", ref_atanh, kU10},
    {CA_OP_EXP, "np.exp", ref_exp, kU10},          {CA_OP_EXPM1, "np.expm1", ref_expm1, kU10},
    {CA_OP_LOG, "np.log", ref_log, kU35},          {CA_OP_LOG2, "np.log2", ref_log2, kU35},
    {CA_OP_LOG10, "np.log10", ref_log10, kU10},    {CA_OP_LOG1P, "np.log1p", ref_log1p, kU10},
    {CA_OP_SQRT, "np.sqrt", ref_sqrt, 0.5},
    {CA_OP_EXP2, "np.exp2", ref_exp2, kU10},       {CA_OP_CBRT, "np.cbrt", ref_cbrt, kU35},
};
const std::vector<Fn2> kBinary = {
    {CA_OP_POW, "np.power", ref_pow, kU10},
    {CA_OP_ARCTAN2, "np.arctan2", ref_atan2, kU35},
    {CA_OP_HYPOT, "np.hypot", ref_hypot, 0.5001},  // SLEEF's u05
};

// The reference's own error (long double, ~2^-11 of a float64 ULP) as a relative slack on the bounds.
constexpr double kSlack = 1 + 1e-6;

const std::vector<vecmath::Level> kLevels = {vecmath::Level::Sse2, vecmath::Level::Avx2, vecmath::Level::Avx512};

using ca::test::ulp_err;
using ca::test::vm_instr;

/// Test inputs: special values, domain and overflow edges, subnormals, huge arguments, random values
/// uniform on [-10, 10] and log-uniform over the whole exponent range, both signs.
template <class T>
std::vector<T> inputs(int salt) {
  using L = std::numeric_limits<T>;
  std::vector<double> v = {0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, 10.0,
                           0.1, -0.1, 1e-5, -1e-5, 1e-10, 1e-30, 1e-300, 1e-310, -1e-310, 1e22, -1e22, 1e300,
                           -1e300, 1e5, 1e15, 3.14159265358979, 1.5707963267948966, 6.283185307179586,
                           709.78, 709.7, -708.3, -745.0, -745.2, 88.72, 88.7, -87.3, -103.9, -104.0, 710.0,
                           -1.0000001, 0.99999999, 1.0000001};
  for (T s : {L::denorm_min(), L::min(), L::max(), L::epsilon(), T(1) - L::epsilon() / 2, T(1) + L::epsilon()})
    for (T sign : {T(1), T(-1)}) v.push_back(double(sign * s));
  std::mt19937_64 rng(uint64_t(salt) * 7919 + 11);
  std::uniform_real_distribution<double> uni(-10, 10), expo(double(L::min_exponent - L::digits), double(L::max_exponent));
  for (int i = 0; i < 3000; ++i) v.push_back(uni(rng));
  for (int i = 0; i < 3000; ++i) v.push_back((i % 2 ? -1 : 1) * std::exp2(expo(rng)));
  for (int i = 0; i < 1000; ++i) v.push_back(uni(rng) / 10);  // (-1, 1): arcsin, arccos, arctanh
  for (int i = 0; i < 1000; ++i) v.push_back(1 + std::fabs(uni(rng)) * 1e3);  // arccosh
  std::vector<T> out;
  for (double d : v) out.push_back(T(d));  // float32: out of range rounds to ±inf, tiny to 0 or subnormal
  return out;
}


template <class T>
constexpr DType dtype_v = std::is_same_v<T, float> ? CA_FLOAT32 : CA_FLOAT64;

// The float64 functions of array/vecpoly_f64.inc have their own bound (docs/math.md;
// tests/unit/test_vecmath_f64.cpp tests them densely).
double unary_bound(const Fn1 &fn, bool f64) {
  const bool poly = fn.op == CA_OP_LOG1P || fn.op == CA_OP_ARCSINH || fn.op == CA_OP_ARCCOSH ||
                    fn.op == CA_OP_ARCTANH || fn.op == CA_OP_COSH || fn.op == CA_OP_LOG10;
  return f64 && poly ? 2.0 : fn.bound;
}

template <class T>
void check_unary_level(const Fn1 &fn, vecmath::Level level, double *worst) {
  const ExprInstr ins = vm_instr(fn.op, dtype_v<T>);
  const double bound =
      std::is_same_v<T, float> ? ca::test::vecpoly_f32_bound(fn.op, fn.bound) : unary_bound(fn, true);
  instr::Fn f = vecmath::resolve(ins, 0, level);
  if (!f) return;
  EXPECT_EQ(vecmath::resolve(ins, 1, level), nullptr);
  const std::vector<T> x = inputs<T>(fn.op);
  std::vector<T> r(x.size(), T(-7));
  f(ins, x.data(), nullptr, nullptr, r.data(), int64_t(x.size()));
  int fails = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const T exact_sqrt = std::sqrt(x[i]);  // correctly rounded: the same bits
    const double e = fn.op == CA_OP_SQRT
                         ? (std::memcmp(&r[i], &exact_sqrt, sizeof(T)) == 0 || (std::isnan(r[i]) && std::isnan(exact_sqrt)) ? 0 : 99)
                         : ulp_err<T>(r[i], fn.ref((long double)x[i]));
    if (e > *worst) *worst = e;
    if (e > bound * kSlack) {
      ADD_FAILURE() << fn.np << " " << dtype_name(dtype_v<T>) << " at " << vecmath::level_name(level) << ": x = "
                    << double(x[i]) << " (" << std::hexfloat << double(x[i]) << std::defaultfloat << ") gives "
                    << double(r[i]) << ", exact " << double(fn.ref((long double)x[i])) << ": " << e << " ULP > " << bound;
      if (++fails > 8) return;
    }
  }
  // Every tail length (and n = 0): the same values element for element, nothing written past n.
  f(ins, nullptr, nullptr, nullptr, nullptr, 0);
  for (int64_t n = 1; n <= 33; ++n) {
    std::vector<T> rr(size_t(n) + 1, T(-7));
    f(ins, x.data() + 100, nullptr, nullptr, rr.data(), n);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(std::memcmp(&rr[size_t(i)], &r[size_t(100 + i)], sizeof(T)), 0) << fn.np << " n=" << n << " i=" << i;
    ASSERT_EQ(rr[size_t(n)], T(-7)) << fn.np << ": wrote past n=" << n;
  }
}

template <class T>
void check_binary_level(const Fn2 &fn, vecmath::Level level, double *worst) {
  const ExprInstr ins = vm_instr(fn.op, dtype_v<T>);
  const double bound = std::is_same_v<T, float> ? ca::test::vecpoly_f32_bound(fn.op, fn.bound) : fn.bound;
  instr::Fn f = vecmath::resolve(ins, 0, level);
  if (!f) return;
  instr::Fn fa = vecmath::resolve(ins, 1, level), fb = vecmath::resolve(ins, 2, level);
  ASSERT_NE(fa, nullptr);
  ASSERT_NE(fb, nullptr);
  // All pairs of a grid of specials and random values (bases and exponents both signs).
  std::vector<T> g = inputs<T>(fn.op);
  g.resize(48 + 60);  // the specials and some random values
  std::vector<T> a, b;
  for (T u : g)
    for (T w : g) a.push_back(u), b.push_back(w);
  for (T w : {T(0.5), T(-1), T(3), T(-2.5), T(1) / T(3), T(100), T(-300)})  // integral and fractional exponents
    for (T u : inputs<T>(fn.op + 1)) a.push_back(fn.op == CA_OP_POW ? T(std::fabs(u) > 100 ? u / 1e300 : u) : u), b.push_back(w);
  std::vector<T> r(a.size());
  f(ins, a.data(), b.data(), nullptr, r.data(), int64_t(a.size()));
  int fails = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double e = ulp_err<T>(r[i], fn.ref((long double)a[i], (long double)b[i]));
    if (e > *worst) *worst = e;
    if (e > bound * kSlack) {
      ADD_FAILURE() << fn.np << " " << dtype_name(dtype_v<T>) << " at " << vecmath::level_name(level) << ": ("
                    << double(a[i]) << ", " << double(b[i]) << ") gives " << double(r[i]) << ", exact "
                    << double(fn.ref((long double)a[i], (long double)b[i])) << ": " << e << " ULP";
      if (++fails > 8) return;
    }
  }
  // Every tail length (n = 0 with null operands): the same values, nothing written past n.
  f(ins, nullptr, nullptr, nullptr, nullptr, 0);
  for (int64_t n = 1; n <= 33; ++n) {
    std::vector<T> rr(size_t(n) + 1, T(-7));
    f(ins, a.data() + 200, b.data() + 200, nullptr, rr.data(), n);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(std::memcmp(&rr[size_t(i)], &r[size_t(200 + i)], sizeof(T)), 0) << fn.np << " n=" << n << " i=" << i;
    ASSERT_EQ(rr[size_t(n)], T(-7)) << fn.np << ": wrote past n=" << n;
  }
  // Scalar first / second operand: the same as the vector form with the value repeated.
  for (T s : {T(2), T(0.5), T(-3), T(0), T(NAN), T(INFINITY)}) {
    const size_t n = 37;
    std::vector<T> sv(n, s), r1(n), r2(n), v1(n), v2(n);
    fa(ins, &s, a.data() + 500, nullptr, r1.data(), int64_t(n));
    f(ins, sv.data(), a.data() + 500, nullptr, v1.data(), int64_t(n));
    fb(ins, a.data() + 500, &s, nullptr, r2.data(), int64_t(n));
    f(ins, a.data() + 500, sv.data(), nullptr, v2.data(), int64_t(n));
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(std::memcmp(&r1[i], &v1[i], sizeof(T)), 0) << fn.np << " scalar first " << double(s) << " i=" << i;
      // x ** 2 is x * x (exact): within the function's bound of pow's vector form, bit-equal to x * x.
      if (fn.op == CA_OP_POW && s == T(2)) {
        const T sq = a[500 + i] * a[500 + i];
        EXPECT_TRUE(r2[i] == sq || (std::isnan(r2[i]) && std::isnan(sq))) << double(a[500 + i]) << "**2: " << double(r2[i]);
      }
      else EXPECT_EQ(std::memcmp(&r2[i], &v2[i], sizeof(T)), 0) << fn.np << " scalar second " << double(s) << " i=" << i;
    }
  }
}

}  // namespace

TEST(VecMath, DispatchCoversEveryFunction) {
  // The interpreter's level is the widest this CPU has (unless CA_DISABLE_CPU_FEATURES lowers it).
  std::printf("vecmath: active level %s, SLEEF %s\n", vecmath::level_name(vecmath::active_level()),
              vecmath::have_sleef() ? "yes" : "no (scalar libm)");
  for (vecmath::Level level : kLevels) {
    if (!vecmath::level_supported(level)) continue;
    for (DType dt : {CA_FLOAT32, CA_FLOAT64}) {
      for (const Fn1 &fn : kUnary) {
        // float32 sinh ... hypot: array/vecpoly_f32.inc's own kernels, with or without SLEEF
        const bool own = dt == CA_FLOAT32 && ca::test::vecpoly_f32_bound(fn.op, -1) > 0;
        const bool want = fn.op == CA_OP_SQRT || own ? !(dt == CA_FLOAT64 && level == vecmath::Level::Sse2)
                                                     : vecmath::have_sleef() && !(dt == CA_FLOAT64 && level == vecmath::Level::Sse2);
        EXPECT_EQ(vecmath::resolve(vm_instr(fn.op, dt), 0, level) != nullptr, want)
            << fn.np << " " << dtype_name(dt) << " " << vecmath::level_name(level);
      }
      for (const Fn2 &fn : kBinary)
        EXPECT_EQ(vecmath::resolve(vm_instr(fn.op, dt), 0, level) != nullptr,
                  dt == CA_FLOAT32 || (vecmath::have_sleef() && level != vecmath::Level::Sse2));
    }
  }
  // Not float32/float64, or a mixed instruction: the interpreter's own functions.
  EXPECT_EQ(vecmath::resolve(vm_instr(CA_OP_SIN, CA_COMPLEX128), 0, vecmath::Level::Avx2), nullptr);
  EXPECT_EQ(vecmath::resolve(vm_instr(CA_OP_ADD, CA_FLOAT64), 0, vecmath::Level::Avx2), nullptr);
  ExprInstr mixed = vm_instr(CA_OP_SIN, CA_FLOAT64);
  mixed.in_dtype = CA_FLOAT32;
  EXPECT_EQ(vecmath::resolve(mixed, 0, vecmath::Level::Avx2), nullptr);
  EXPECT_EQ(vecmath::resolve(vm_instr(CA_OP_SIN, CA_FLOAT64), 0, vecmath::Level::Scalar), nullptr);
}

TEST(VecMath, UlpBoundsAgainstLongDoubleEveryLevel) {
  for (vecmath::Level level : kLevels) {
    if (!vecmath::level_supported(level)) continue;
    for (const Fn1 &fn : kUnary) {
      double w32 = 0, w64 = 0;
      check_unary_level<float>(fn, level, &w32);
      check_unary_level<double>(fn, level, &w64);
      std::printf("  %-7s %-11s max ULP float32 %.3f float64 %.3f\n", vecmath::level_name(level), fn.np, w32, w64);
    }
    for (const Fn2 &fn : kBinary) {
      double w32 = 0, w64 = 0;
      check_binary_level<float>(fn, level, &w32);
      check_binary_level<double>(fn, level, &w64);
      std::printf("  %-7s %-11s max ULP float32 %.3f float64 %.3f\n", vecmath::level_name(level), fn.np, w32, w64);
    }
  }
}

namespace {

/// got vs NumPy's want, elementwise: the same class (NaN, ±inf, signed zero) and within `ulps`.
template <class T>
void expect_ulps(const Npy &got, const Npy &want, double ulps, const std::string &what) {
  ASSERT_EQ(got.dtype, want.dtype) << what;
  ASSERT_EQ(got.shape, want.shape) << what;
  const T *g = got.as<T>(), *w = want.as<T>();
  for (Index i = 0; i < got.size(); ++i) {
    const double e = ulp_err<T>(g[i], (long double)w[i]);
    ASSERT_LE(e, ulps) << what << " [" << i << "]: " << double(g[i]) << " vs NumPy " << double(w[i]);
  }
}

ca_scalar_t py_float(double v) {
  ca_scalar_t s{};
  s.kind = CA_FLOAT64;
  s.re = v;
  return s;
}

template <class T>
Npy make_npy(std::vector<Index> shape, int salt) {
  std::vector<T> pool = inputs<T>(salt);
  Npy n;
  n.dtype = dtype_v<T>;
  n.shape = std::move(shape);
  n.data.resize(size_t(n.size()) * sizeof(T));
  T *p = reinterpret_cast<T *>(n.data.data());
  for (Index i = 0; i < n.size(); ++i) p[i] = pool[size_t((i * 131 + salt) % Index(pool.size()))];
  return n;
}

template <class T>
void check_against_numpy() {
  const char *dt = std::is_same_v<T, float> ? "float32" : "float64";
  // ragged 2-D (tails of every length in the blocks), 0-d, empty, size 1
  struct Shape {
    std::vector<Index> shape;
    Chunks chunks;
  };
  const std::vector<Shape> shapes = {{{97, 13}, {{40, 40, 17}, {5, 8}}}, {{}, {}}, {{0, 3}, {{0}, {3}}}, {{1}, {{1}}}};
  // NumPy's own loops are within 4 ULP (float64, its SVML/AVX-512 loops) and ~1-4 ULP (float32);
  // ours within 3.5 (u35) or 1: they agree within 7.5.
  const double tol = 7.5;
  for (size_t si = 0; si < shapes.size(); ++si) {
    const Shape &s = shapes[si];
    Npy x = make_npy<T>(s.shape, int(si) + 3), y = make_npy<T>(s.shape, int(si) + 101);
    ArrayPtr ax = ca::test::array_from_npy(x, s.chunks), ay = ca::test::array_from_npy(y, s.chunks);
    std::string py = "results = [";
    std::vector<ArrayPtr> got;
    std::vector<std::string> names;
    for (const Fn1 &fn : kUnary) {
      got.push_back(elementwise_unary(fn.op, ax));
      py += std::string(fn.np) + "(x), ";
      names.push_back(fn.np);
    }
    for (const Fn2 &fn : kBinary) {
      got.push_back(elementwise_binary(fn.op, ax, ay));
      py += std::string(fn.np) + "(x, y), ";
      names.push_back(fn.np);
    }
    got.push_back(elementwise_scalar(CA_OP_POW, ax, py_float(2), false));
    py += "x ** np." + std::string(dt) + "(2), ";
    names.push_back("x ** 2");
    got.push_back(elementwise_scalar(CA_OP_POW, ax, py_float(0.5), true));
    py += "np." + std::string(dt) + "(0.5) ** x, ";
    names.push_back("0.5 ** x");
    py += "]\nresult = np.concatenate([np.asarray(r, dtype=np." + std::string(dt) + ").ravel() for r in results])";
    Npy want = ca::test::run_numpy(py, {{"x", x}, {"y", y}});
    const Index each = x.size();
    ASSERT_EQ(want.size(), each * Index(got.size()));
    for (size_t k = 0; k < got.size(); ++k) {
      Npy g = ca::test::compute_npy(got[k]);
      ASSERT_EQ(g.dtype, dtype_v<T>) << names[k];
      ASSERT_EQ(g.shape, s.shape) << names[k];
      Npy w;
      w.dtype = want.dtype;
      w.shape = s.shape;
      w.data.assign(want.data.begin() + long(k) * each * long(sizeof(T)), want.data.begin() + long(k + 1) * each * long(sizeof(T)));
      expect_ulps<T>(g, w, tol, names[k] + " " + dt + " shape #" + std::to_string(si));
    }
  }
}

}  // namespace

TEST(VecMath, FusedProgramsAgainstNumpyFloat64) { check_against_numpy<double>(); }
TEST(VecMath, FusedProgramsAgainstNumpyFloat32) { check_against_numpy<float>(); }

// W9's expression through one fused program and a reduction, ragged chunks: sin² + cos² sums to n.
TEST(VecMath, SinSquaredPlusCosSquaredSum) {
  Npy x = make_npy<double>({300, 70}, 5);
  double *p = reinterpret_cast<double *>(x.data.data());
  for (Index i = 0; i < x.size(); ++i)
    if (!std::isfinite(p[i])) p[i] = double(i);  // finite values: the sum is then n up to rounding
  ArrayPtr a = ca::test::array_from_npy(x, {{128, 128, 44}, {64, 6}});
  ArrayPtr s2 = elementwise_scalar(CA_OP_POW, elementwise_unary(CA_OP_SIN, a), py_float(2), false);
  ArrayPtr c2 = elementwise_scalar(CA_OP_POW, elementwise_unary(CA_OP_COS, a), py_float(2), false);
  ArrayPtr e = elementwise_binary(CA_OP_ADD, s2, c2);
  Npy got = ca::test::compute_npy(reduce(CA_RED_SUM, e, {}, false, 0, 0, 0));
  Npy want = ca::test::run_numpy("result = (np.sin(x) ** 2 + np.cos(x) ** 2).sum()", {{"x", x}});
  ASSERT_EQ(got.dtype, CA_FLOAT64);
  EXPECT_NEAR(got.as<double>()[0], want.as<double>()[0], 1e-9 * double(x.size()));
  EXPECT_NEAR(got.as<double>()[0], double(x.size()), 1e-9 * double(x.size()));
}

// compute_into hands each task the region of the destination its block fills when that region is
// contiguous (RunOptions::out_dest): the fused program writes there, with no fresh block and no copy.
// Checked on ragged chunks against a plain loop (sqrt is correctly rounded: bit-equal), with the
// memory a run charges: none for results written in place, at least one block's bytes otherwise.
TEST(VecMath, ComputeIntoWritesContiguousBlocksInPlace) {
  struct Case {
    std::vector<Index> shape;
    Chunks chunks;
    bool in_place;  // every block is one contiguous region of the destination
  };
  const std::vector<Case> cases = {
      // (blocks of >= 16 KiB: smaller ones are not charged to a budget, core/memory.hpp)
      {{1000, 37}, {{400, 400, 200}, {37}}, true},       // row bands: whole rows
      {{1000, 37}, {{400, 400, 200}, {17, 20}}, false},  // column splits: strided regions, copied
      {{30011}, {{12000, 12000, 6011}}, true},
      {{2, 5001}, {{1, 1}, {2500, 2501}}, true},         // extent 1 above a split axis: contiguous
      {{3, 1, 3000}, {{1, 2}, {1}, {3000}}, true},
  };
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const Case &c = cases[ci];
    Npy x = make_npy<double>(c.shape, int(ci) + 11);
    auto *xv = reinterpret_cast<double *>(x.data.data());
    for (Index i = 0; i < x.size(); ++i) xv[i] = std::fabs(xv[i]);
    ArrayPtr ax = ca::test::array_from_npy(x, c.chunks);
    ArrayPtr y = elementwise_binary(CA_OP_ADD, elementwise_unary(CA_OP_SQRT, ax), ax);
    std::vector<double> out(size_t(x.size()), std::nan("")), want(out.size());
    for (size_t i = 0; i < want.size(); ++i) want[i] = std::sqrt(x.as<double>()[i]) + x.as<double>()[i];
    MemoryBudget *budget = MemoryBudget::create(0);
    RunOptions ro;
    ro.budget = budget;
    compute_into(ca::test::Runtime::get().ex, ca::test::Runtime::get().reg, {y}, {out.data()}, ro);
    const int64_t peak = budget->peak();
    budget->release();
    for (size_t i = 0; i < out.size(); ++i)
      ASSERT_EQ(std::memcmp(&out[i], &want[i], sizeof(double)), 0) << "case " << ci << " [" << i << "]";
    if (c.in_place) EXPECT_EQ(peak, 0) << "case " << ci << ": results were allocated, not written in place";
    else EXPECT_GE(peak, int64_t(sizeof(double)) * 200 * 17) << "case " << ci;
  }
  // The destination is the input's own memory (borrowed): the in-place write would overwrite blocks
  // other tasks still read, so such tasks get fresh blocks and the copy; the result is still exact.
  std::vector<double> buf(1261);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = double(i) * 0.25;
  std::vector<double> want(buf.size());
  for (size_t i = 0; i < buf.size(); ++i) want[i] = std::sqrt(buf[i]) + buf[i];
  ArrayPtr ax = from_buffer(buf.data(), CA_FLOAT64, {1261}, nullptr, {{500, 500, 261}}, true, nullptr, nullptr, true);
  ArrayPtr y = elementwise_binary(CA_OP_ADD, elementwise_unary(CA_OP_SQRT, ax), ax);
  RunOptions ro;
  compute_into(ca::test::Runtime::get().ex, ca::test::Runtime::get().reg, {y}, {buf.data()}, ro);
  for (size_t i = 0; i < buf.size(); ++i) ASSERT_EQ(buf[i], want[i]) << i;
}
