// The purpose-written float64 kernels of array/vecpoly_f64.inc (log1p, log10, arcsinh, arccosh,
// arctanh, sin, cos, cosh, cbrt, power, exp2, exp; arctan: SLEEF's) at every ISA level this CPU has: dense sweeps of each function's ranges (uniform, log-uniform
// down to the subnormals and up to the overflow threshold, the neighbourhoods of the domain edges and
// of the method's branch points) against long-double libm (~2^11 times finer than float64), asserting
// the per-function max-ULP bound docs/math.md states, and the special values (NaN, ±inf, ±0,
// subnormals, domain edges, overflow) equal to NumPy 1.24's results (C99 Annex F, which NumPy's loops
// follow for these functions).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "array/expr_instr.hpp"
#include "support/vecmath_test.hpp"
#include "array/vecmath.hpp"

using namespace ca;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

struct Case {
  int32_t op;
  const char *name;
  long double (*ref)(long double);
  double bound;  // max ULP (docs/math.md)
  std::vector<double> (*inputs)();
};

std::vector<double> uniform(double lo, double hi, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(d(rng));
  return v;
}
std::vector<double> logu(double e_lo, double e_hi, int n, uint64_t seed, bool both_signs) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(e_lo, e_hi);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back((both_signs && i % 2 ? -1 : 1) * std::exp2(d(rng)));
  return v;
}
void append(std::vector<double> &v, const std::vector<double> &w) { v.insert(v.end(), w.begin(), w.end()); }
// n values each side of x, one ULP apart
void around(std::vector<double> &v, double x, int n) {
  double lo = x, hi = x;
  for (int i = 0; i < n; ++i) v.push_back(lo = std::nextafter(lo, -kInf)), v.push_back(hi = std::nextafter(hi, kInf));
}

// The log core's table boundaries (docs/math.md): z = 0.703125 + j/32 below 1, 1 + j/16 above, times 2^k.
std::vector<double> log_table_edges() {
  std::vector<double> e;
  for (int j = 0; j <= 9; ++j) e.push_back(0.703125 + j / 32.0);
  for (int j = 0; j <= 6; ++j) e.push_back(1.03125 + j / 16.0);
  return e;
}
std::vector<double> in_log1p() {
  std::vector<double> v = uniform(-1, 1, 60000, 1);
  append(v, uniform(-1, -0.25, 20000, 2));
  append(v, logu(-1074, 0, 20000, 3, true));  // tiny of both signs, subnormals
  append(v, logu(0, 1023.9, 20000, 4, false));
  for (double b : log_table_edges())
    for (int k : {-1, 0, 1, 5}) around(v, std::ldexp(b, k) - 1, 30);
  around(v, -1, 0), around(v, std::sqrt(0.5) - 1, 200), around(v, std::sqrt(2.0) - 1, 200), around(v, 0x1p-54, 50);
  v.push_back(std::nextafter(-1.0, 0.0));
  return v;
}
std::vector<double> in_log10() {
  std::vector<double> v = logu(-1074, 1023.99, 60000, 30, false);
  append(v, uniform(0.5, 2, 40000, 31));
  append(v, uniform(0.001, 1000, 20000, 32));
  for (double b : log_table_edges())
    for (int k : {-1074 + 60, -1022, -30, -1, 0, 1, 7, 1000}) around(v, std::ldexp(b, k), 20);
  around(v, 1, 200), around(v, 10, 50), around(v, 0x1p-1022, 50);
  for (int p = -300; p <= 300; ++p) v.push_back(std::pow(10.0, p));
  return v;
}
// sin/cos: uniform and log-uniform up to past the vector range's limit (1e6), the neighbourhoods of
// multiples of pi/2 (where the reduced argument cancels), tiny and subnormal arguments.
std::vector<double> in_trig() {
  std::vector<double> v = uniform(-10, 10, 40000, 40);
  append(v, uniform(-1e6, 1e6, 20000, 41));
  append(v, logu(-1074, 22, 30000, 42, true));
  for (int k = -200000; k <= 200000; k += 997) around(v, k * (M_PI / 2), 3);
  for (int k : {1, 2, 3, 4, 5, 6, 100, 355, 103993, 312689, 636619}) around(v, k * (M_PI / 2), 20), around(v, -k * (M_PI / 2), 20);
  around(v, 1e6, 20);
  return v;
}
std::vector<double> in_asinh() {
  std::vector<double> v = uniform(-3, 3, 60000, 5);
  append(v, logu(-1074, 1023.9, 40000, 6, true));
  around(v, 2, 200), around(v, -2, 200), around(v, 0x1p28, 200), around(v, 0x1p-28, 200), around(v, 1.3e154, 50);
  return v;
}
std::vector<double> in_acosh() {
  std::vector<double> v = uniform(1, 3, 60000, 7);
  append(v, logu(0, 1023.9, 40000, 8, false));
  append(v, logu(-52, -1, 20000, 9, false));
  for (double &x : v) if (x < 0.5) x += 1;  // 1 + tiny
  around(v, 1, 0), around(v, 2, 200), around(v, 0x1p28, 200);
  for (int i = 1; i <= 200; ++i) v.push_back(1 + i * 0x1p-52);
  return v;
}
std::vector<double> in_atanh() {
  std::vector<double> v = uniform(-1, 1, 60000, 10);
  append(v, logu(-1074, 0, 20000, 11, true));
  std::vector<double> e = logu(-53, -1, 20000, 12, false);
  for (size_t i = 0; i < e.size(); ++i) v.push_back((i % 2 ? -1 : 1) * (1 - e[i]));  // towards ±1
  around(v, 0.5, 200), around(v, -0.5, 200), around(v, 0x1p-28, 200);
  return v;
}
std::vector<double> in_cosh() {
  std::vector<double> v = uniform(-3, 3, 40000, 13);
  append(v, uniform(-709, 709, 40000, 14));
  append(v, logu(-1074, 9.47, 20000, 15, true));
  append(v, uniform(708, 711, 2000, 16));
  append(v, uniform(-711, -708, 2000, 17));
  around(v, 709, 100), around(v, 710.4758600739439, 100);
  return v;
}

long double r_log1p(long double x) { return log1pl(x); }
long double r_asinh(long double x) { return asinhl(x); }
long double r_acosh(long double x) { return acoshl(x); }
long double r_atanh(long double x) { return atanhl(x); }
long double r_cosh(long double x) { return coshl(x); }
long double r_cbrt(long double x) { return cbrtl(x); }
long double r_log10(long double x) { return log10l(x); }
long double r_sin(long double x) { return sinl(x); }
long double r_atan(long double x) { return atanl(x); }
// arctan (SLEEF's u35 at both levels: an own table kernel measured no faster, docs/math.md): uniform,
// log-uniform over the whole range, the points j/16 and their reciprocals.
std::vector<double> in_atan() {
  std::vector<double> v = uniform(-10, 10, 40000, 60);
  append(v, uniform(-1.5, 1.5, 20000, 61));
  append(v, logu(-1074, 1023.99, 40000, 62, true));
  for (int j = 0; j <= 16; ++j) {
    const double c = j / 16.0;
    around(v, c, 20), around(v, -c, 20);
    if (c > 0) around(v, 1 / c, 20), around(v, -1 / c, 20);
  }
  around(v, 0x1p60, 10);
  return v;
}
long double r_cos(long double x) { return cosl(x); }
long double r_exp2(long double x) { return exp2l(x); }
long double r_exp(long double x) { return expl(x); }
// exp (AVX-512: the own table kernel; AVX2: SLEEF's u10): uniform over the finite-result range
// (subnormal results below -708.4, overflow above 709.78), small and tiny arguments, the points
// j ln2/16 and the midpoints between them, the underflow and overflow edges.
std::vector<double> in_exp() {
  std::vector<double> v = uniform(-746, 710, 60000, 73);
  append(v, uniform(-2, 2, 40000, 74));
  append(v, logu(-1074, 0, 20000, 75, true));
  for (int j = -40; j <= 40; ++j) around(v, j * 0.6931471805599453 / 16, 10), around(v, (j + 0.5) * 0.6931471805599453 / 16, 10);
  for (double p : {-708.3964185322641, -744.4400719213812, -745.1332191019411, -745.1332191019412, 709.782712893384, 709.7827128933841, 709.0})
    around(v, p, 50);
  return v;
}
// exp2 (AVX-512: the own table kernel; AVX2: SLEEF's u10): uniform over the whole finite-result range
// (subnormal results below -1022, overflow at 1024), small and tiny arguments, the table's points j/16
// and the midpoints between them (where the reduction's n rounds), the underflow and overflow edges.
std::vector<double> in_exp2() {
  std::vector<double> v = uniform(-1080, 1030, 60000, 70);
  append(v, uniform(-2, 2, 40000, 71));
  append(v, logu(-1074, 0, 20000, 72, true));
  for (int j = -40; j <= 40; ++j) around(v, j / 16.0, 10), around(v, (j + 0.5) / 16.0, 10);
  for (double p : {-1022.0, -1074.0, -1075.0, -1074.5, 1023.0, 1024.0, 1023.9999999999999}) around(v, p, 50);
  return v;
}
std::vector<double> in_cbrt() {
  std::vector<double> v = uniform(-10, 10, 40000, 18);
  append(v, logu(-1074, 1023.99, 60000, 19, true));
  for (double p : {1.0, 2.0, 4.0, 8.0, 0x1p-1022, 0x1p-1020, 0x1p-1021, 27.0, 1e300, 1e-300}) around(v, p, 50), around(v, -p, 50);
  return v;
}

const std::vector<Case> kCases = {
    {CA_OP_LOG1P, "log1p", r_log1p, 2.0, in_log1p},     {CA_OP_ARCSINH, "arcsinh", r_asinh, 1.5, in_asinh},
    {CA_OP_ARCCOSH, "arccosh", r_acosh, 1.5, in_acosh}, {CA_OP_ARCTANH, "arctanh", r_atanh, 2.0, in_atanh},
    {CA_OP_COSH, "cosh", r_cosh, 2.0, in_cosh},         {CA_OP_CBRT, "cbrt", r_cbrt, 1.0, in_cbrt},
    {CA_OP_LOG10, "log10", r_log10, 1.5, in_log10},     {CA_OP_SIN, "sin", r_sin, 2.5, in_trig},
    {CA_OP_COS, "cos", r_cos, 2.5, in_trig},            {CA_OP_ARCTAN, "arctan", r_atan, 2.0, in_atan},
    {CA_OP_EXP2, "exp2", r_exp2, 1.0, in_exp2},
    {CA_OP_EXP, "exp", r_exp, 1.0, in_exp},
};

using ca::test::ulp_err;
using ca::test::vm_instr;


std::vector<vecmath::Level> vector_levels() {
  std::vector<vecmath::Level> out;
  for (vecmath::Level l : {vecmath::Level::Avx2, vecmath::Level::Avx512})
    if (vecmath::level_supported(l) && vecmath::have_sleef()) out.push_back(l);
  return out;
}

std::vector<double> run(const ExprInstr &ins, vecmath::Level level, const std::vector<double> &x) {
  instr::Fn f = vecmath::resolve(ins, 0, level);
  EXPECT_NE(f, nullptr);
  std::vector<double> r(x.size(), -7.0);
  if (f) f(ins, x.data(), nullptr, nullptr, r.data(), int64_t(x.size()));
  return r;
}

// Exactly NumPy's class and value for NaN, infinities, zeros and the results equal to a subnormal
// argument; a finite ordinary result (cosh(710), arcsinh(DBL_MAX)) within 2 ULP of glibc's.
bool same(double a, double b) {
  if (std::isfinite(b) && std::fabs(b) > 0x1p-1000) return ulp_err(a, (long double)b) <= 2.0;
  return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

}  // namespace

TEST(VecMathF64, DenseUlpBoundsEveryLevel) {
  const auto levels = vector_levels();
  if (levels.empty()) GTEST_SKIP() << "no AVX2/AVX-512 level with SLEEF on this CPU/build";
  for (const Case &c : kCases) {
    const std::vector<double> x = c.inputs();
    for (vecmath::Level level : levels) {
      const std::vector<double> r = run(vm_instr(c.op, CA_FLOAT64), level, x);
      double worst = 0, at = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        const double e = ulp_err(r[i], c.ref((long double)x[i]));
        if (e > worst) worst = e, at = x[i];
      }
      std::printf("  %-7s np.%-8s float64 max ULP %.3f (at %a), %zu inputs\n", vecmath::level_name(level), c.name,
                  worst, at, x.size());
      EXPECT_LE(worst, c.bound * (1 + 1e-6)) << "np." << c.name << " at " << vecmath::level_name(level) << ": x = " << at;
    }
  }
}

TEST(VecMathF64, SpecialValuesAsNumpy) {
  const double dmax = std::numeric_limits<double>::max(), sub = 0x1p-1070, tiny = std::numeric_limits<double>::denorm_min();
  // (op, x, NumPy 1.24's result)
  struct S { int32_t op; double x, want; };
  const std::vector<S> cases = {
      {CA_OP_LOG1P, kNan, kNan}, {CA_OP_LOG1P, kInf, kInf}, {CA_OP_LOG1P, -kInf, kNan}, {CA_OP_LOG1P, 0.0, 0.0},
      {CA_OP_LOG1P, -0.0, -0.0}, {CA_OP_LOG1P, -1.0, -kInf}, {CA_OP_LOG1P, -2.0, kNan}, {CA_OP_LOG1P, sub, sub},
      {CA_OP_LOG1P, -sub, -sub}, {CA_OP_LOG1P, tiny, tiny}, {CA_OP_LOG1P, dmax, std::log1p(dmax)},
      {CA_OP_ARCSINH, kNan, kNan}, {CA_OP_ARCSINH, kInf, kInf}, {CA_OP_ARCSINH, -kInf, -kInf},
      {CA_OP_ARCSINH, 0.0, 0.0}, {CA_OP_ARCSINH, -0.0, -0.0}, {CA_OP_ARCSINH, sub, sub}, {CA_OP_ARCSINH, -sub, -sub},
      {CA_OP_ARCSINH, dmax, std::asinh(dmax)}, {CA_OP_ARCSINH, -dmax, -std::asinh(dmax)},
      {CA_OP_ARCCOSH, kNan, kNan}, {CA_OP_ARCCOSH, kInf, kInf}, {CA_OP_ARCCOSH, -kInf, kNan},
      {CA_OP_ARCCOSH, 1.0, 0.0}, {CA_OP_ARCCOSH, 0.0, kNan}, {CA_OP_ARCCOSH, -0.0, kNan},
      {CA_OP_ARCCOSH, std::nextafter(1.0, 0.0), kNan}, {CA_OP_ARCCOSH, -1.0, kNan}, {CA_OP_ARCCOSH, -2.0, kNan},
      {CA_OP_ARCCOSH, dmax, std::acosh(dmax)},
      {CA_OP_ARCTANH, kNan, kNan}, {CA_OP_ARCTANH, kInf, kNan}, {CA_OP_ARCTANH, -kInf, kNan},
      {CA_OP_ARCTANH, 0.0, 0.0}, {CA_OP_ARCTANH, -0.0, -0.0}, {CA_OP_ARCTANH, 1.0, kInf}, {CA_OP_ARCTANH, -1.0, -kInf},
      {CA_OP_ARCTANH, 1.5, kNan}, {CA_OP_ARCTANH, -2.0, kNan}, {CA_OP_ARCTANH, std::nextafter(1.0, 2.0), kNan},
      {CA_OP_ARCTANH, sub, sub}, {CA_OP_ARCTANH, -sub, -sub}, {CA_OP_ARCTANH, 1e22, kNan}, {CA_OP_ARCTANH, -1e300, kNan},
      {CA_OP_ARCTANH, dmax, kNan}, {CA_OP_ARCTANH, 3.0, kNan}, {CA_OP_ARCTANH, 0x1p60, kNan},
      {CA_OP_COSH, kNan, kNan}, {CA_OP_COSH, kInf, kInf}, {CA_OP_COSH, -kInf, kInf}, {CA_OP_COSH, 0.0, 1.0},
      {CA_OP_COSH, -0.0, 1.0}, {CA_OP_COSH, sub, 1.0}, {CA_OP_COSH, 710.0, std::cosh(710.0)},
      {CA_OP_COSH, -710.0, std::cosh(710.0)}, {CA_OP_COSH, 710.5, kInf}, {CA_OP_COSH, -711.0, kInf},
      {CA_OP_COSH, 1000.0, kInf},
      {CA_OP_CBRT, kNan, kNan}, {CA_OP_CBRT, kInf, kInf}, {CA_OP_CBRT, -kInf, -kInf}, {CA_OP_CBRT, 0.0, 0.0},
      {CA_OP_CBRT, -0.0, -0.0}, {CA_OP_CBRT, 27.0, 3.0}, {CA_OP_CBRT, -8.0, -2.0}, {CA_OP_CBRT, 0x1p-1074, 0x1p-358},
      {CA_OP_CBRT, -0x1p-1071, -0x1p-357}, {CA_OP_CBRT, dmax, std::cbrt(dmax)},
      {CA_OP_LOG10, kNan, kNan}, {CA_OP_LOG10, kInf, kInf}, {CA_OP_LOG10, -kInf, kNan}, {CA_OP_LOG10, 0.0, -kInf},
      {CA_OP_LOG10, -0.0, -kInf}, {CA_OP_LOG10, -1.0, kNan}, {CA_OP_LOG10, 1.0, 0.0}, {CA_OP_LOG10, 10.0, 1.0},
      {CA_OP_LOG10, 1e-300, -300.0}, {CA_OP_LOG10, tiny, std::log10(tiny)}, {CA_OP_LOG10, sub, std::log10(sub)},
      {CA_OP_LOG10, dmax, std::log10(dmax)}, {CA_OP_LOG10, -tiny, kNan},
      {CA_OP_SIN, kNan, kNan}, {CA_OP_SIN, kInf, kNan}, {CA_OP_SIN, -kInf, kNan}, {CA_OP_SIN, 0.0, 0.0},
      {CA_OP_SIN, -0.0, -0.0}, {CA_OP_SIN, sub, sub}, {CA_OP_SIN, -tiny, -tiny}, {CA_OP_SIN, 1e22, std::sin(1e22)},
      {CA_OP_SIN, dmax, std::sin(dmax)}, {CA_OP_SIN, 0x1p-30, std::sin(0x1p-30)},
      {CA_OP_ARCTAN, kNan, kNan}, {CA_OP_ARCTAN, kInf, M_PI / 2}, {CA_OP_ARCTAN, -kInf, -M_PI / 2},
      {CA_OP_ARCTAN, 0.0, 0.0}, {CA_OP_ARCTAN, -0.0, -0.0}, {CA_OP_ARCTAN, sub, sub}, {CA_OP_ARCTAN, -tiny, -tiny},
      {CA_OP_ARCTAN, 1.0, M_PI / 4}, {CA_OP_ARCTAN, -dmax, -M_PI / 2},
      {CA_OP_COS, kNan, kNan}, {CA_OP_COS, kInf, kNan}, {CA_OP_COS, -kInf, kNan}, {CA_OP_COS, 0.0, 1.0},
      {CA_OP_COS, -0.0, 1.0}, {CA_OP_COS, sub, 1.0}, {CA_OP_COS, 1e22, std::cos(1e22)}, {CA_OP_COS, -dmax, std::cos(dmax)},
      {CA_OP_EXP2, kNan, kNan}, {CA_OP_EXP2, kInf, kInf}, {CA_OP_EXP2, -kInf, 0.0}, {CA_OP_EXP2, 0.0, 1.0},
      {CA_OP_EXP2, -0.0, 1.0}, {CA_OP_EXP2, sub, 1.0}, {CA_OP_EXP2, 1024.0, kInf}, {CA_OP_EXP2, 1e300, kInf},
      {CA_OP_EXP2, dmax, kInf}, {CA_OP_EXP2, -1074.0, tiny}, {CA_OP_EXP2, -1075.5, 0.0}, {CA_OP_EXP2, -dmax, 0.0},
      {CA_OP_EXP2, -1022.0, 0x1p-1022}, {CA_OP_EXP2, 1023.0, 0x1p1023}, {CA_OP_EXP2, 10.0, 1024.0},
      {CA_OP_EXP, kNan, kNan}, {CA_OP_EXP, kInf, kInf}, {CA_OP_EXP, -kInf, 0.0}, {CA_OP_EXP, 0.0, 1.0},
      {CA_OP_EXP, -0.0, 1.0}, {CA_OP_EXP, sub, 1.0}, {CA_OP_EXP, 709.8, kInf}, {CA_OP_EXP, 1e300, kInf},
      {CA_OP_EXP, dmax, kInf}, {CA_OP_EXP, -746.0, 0.0}, {CA_OP_EXP, -dmax, 0.0}, {CA_OP_EXP, 1.0, M_E},
      {CA_OP_EXP, 709.78, std::exp(709.78)}, {CA_OP_EXP, -708.5, std::exp(-708.5)}, {CA_OP_EXP, -745.0, std::exp(-745.0)},
  };
  const auto levels = vector_levels();
  if (levels.empty()) GTEST_SKIP() << "no AVX2/AVX-512 level with SLEEF on this CPU/build";
  for (vecmath::Level level : levels) {
    for (const S &s : cases) {
      // alone (the padded tail) and inside a full vector of ordinary values
      for (size_t n : {size_t(1), size_t(19)}) {
        std::vector<double> x(n, 0.75);
        if (s.op == CA_OP_ARCCOSH) std::fill(x.begin(), x.end(), 1.75);
        x[n / 2] = s.x;
        const std::vector<double> r = run(vm_instr(s.op, CA_FLOAT64), level, x);
        EXPECT_TRUE(same(r[n / 2], s.want)) << "op " << s.op << " at " << vecmath::level_name(level) << ": x = " << s.x
                                            << " gives " << r[n / 2] << ", NumPy " << s.want;
      }
    }
  }
}

// np.power (AVX-512: the own kernel; AVX2: SLEEF's u10): dense pairs against long double powl within
// 1 ULP (the vecmath suite's bound for power), including results near the overflow and underflow
// thresholds (the libm lanes) and bases near 1 with large exponents (where log(x) must be accurate
// to ~2^-62); then every pair of a grid of special values equal to C99 pow's (NumPy's loop), whole
// vectors and tails, vector and scalar operands.
TEST(VecMathF64, PowerDenseUlpAndSpecials) {
  const auto levels = vector_levels();
  if (levels.empty()) GTEST_SKIP() << "no AVX2/AVX-512 level with SLEEF on this CPU/build";
  std::vector<double> xs, ys;
  std::mt19937_64 rng(50);
  std::uniform_real_distribution<double> u01(0, 1);
  for (int i = 0; i < 40000; ++i) xs.push_back(0.01 + 9.99 * u01(rng)), ys.push_back(-5 + 10 * u01(rng));
  for (int i = 0; i < 40000; ++i) {  // any base, |y log x| up to ~760 (over/underflow at the top)
    const double x = std::exp2(-1074 + 2097 * u01(rng)), t = (u01(rng) * 2 - 1) * 760;
    xs.push_back(x), ys.push_back(std::log(x) != 0 ? t / std::log(x) : 3.0);
  }
  for (int i = 0; i < 20000; ++i) {  // bases near 1, large exponents
    const double x = 1 + (u01(rng) * 2 - 1) * std::exp2(-52 + 48 * u01(rng));
    xs.push_back(x), ys.push_back(std::log(x) != 0 ? (u01(rng) * 2 - 1) * 700 / std::log(x) : 1e10);
  }
  for (int i = 0; i < 5000; ++i) {  // negative bases, integral exponents
    xs.push_back(-std::exp2(-20 + 40 * u01(rng))), ys.push_back(std::floor(-40 + 80 * u01(rng)));
  }
  // the log table's interval edges (m = j/16 +- 1/32) and exact powers
  for (int j = 12; j <= 24; ++j)
    for (double e : {-1.0, 0.0, 3.0}) {
      const double b = std::ldexp((j + 0.5) / 16, int(e));
      for (double x : {std::nextafter(b, 0.0), b, std::nextafter(b, 4.0)}) xs.push_back(x), ys.push_back(2.5);
    }
  for (double x : {2.0, 3.0, 10.0, 0.5}) for (double y : {1.0, 2.0, 3.0, 10.0, -1.0, 0.5}) xs.push_back(x), ys.push_back(y);
  const ExprInstr ins = vm_instr(CA_OP_POW, CA_FLOAT64);
  for (vecmath::Level level : levels) {
    instr::Fn f = vecmath::resolve(ins, 0, level);
    ASSERT_NE(f, nullptr);
    std::vector<double> r(xs.size());
    f(ins, xs.data(), ys.data(), nullptr, r.data(), int64_t(xs.size()));
    double worst = 0, wx = 0, wy = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double e = ulp_err(r[i], powl((long double)xs[i], (long double)ys[i]));
      if (e > worst) worst = e, wx = xs[i], wy = ys[i];
    }
    std::printf("  %-7s np.power    float64 max ULP %.3f (at %a ** %a), %zu pairs\n", vecmath::level_name(level), worst, wx,
                wy, xs.size());
    EXPECT_LE(worst, 1.0 * (1 + 1e-6)) << vecmath::level_name(level) << ": " << wx << " ** " << wy;
  }
  // specials: every pair, against std::pow
  const double dmax = std::numeric_limits<double>::max();
  const std::vector<double> sp = {0.0, -0.0, kInf, -kInf, kNan, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 2.5, -2.5,
                                  1e300, -1e300, 1e-310, -1e-310, dmax, 1e-300, 1075.0, -1075.0, 0x1p53, -0x1p53};
  std::vector<double> a, b;
  for (double x : sp)
    for (double y : sp) a.push_back(x), b.push_back(y);
  for (vecmath::Level level : levels) {
    instr::Fn f = vecmath::resolve(ins, 0, level), fa = vecmath::resolve(ins, 1, level), fb = vecmath::resolve(ins, 2, level);
    std::vector<double> r(a.size());
    f(ins, a.data(), b.data(), nullptr, r.data(), int64_t(a.size()));
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_TRUE(same(r[i], std::pow(a[i], b[i]))) << vecmath::level_name(level) << ": " << a[i] << " ** " << b[i] << " gives "
                                                     << r[i] << ", pow " << std::pow(a[i], b[i]);
    for (double s : sp) {  // scalar base / scalar exponent, 25 elements (a tail of 1)
      std::vector<double> r1(sp.size()), r2(sp.size());
      fa(ins, &s, sp.data(), nullptr, r1.data(), int64_t(sp.size()));
      fb(ins, sp.data(), &s, nullptr, r2.data(), int64_t(sp.size()));
      for (size_t i = 0; i < sp.size(); ++i) {
        EXPECT_TRUE(same(r1[i], std::pow(s, sp[i]))) << s << " ** " << sp[i] << " (scalar base) gives " << r1[i];
        EXPECT_TRUE(same(r2[i], s == 2 ? sp[i] * sp[i] : std::pow(sp[i], s))) << sp[i] << " ** " << s << " (scalar exponent) gives " << r2[i];
      }
    }
  }
}
