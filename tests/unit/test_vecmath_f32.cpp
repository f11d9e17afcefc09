// The purpose-written float32 kernels of array/vecpoly_f32.inc (sinh, cosh, expm1, exp2, log10, log2, log1p,
// arcsinh, arccosh, arctanh, cbrt, power, arctan2, hypot) at every ISA level this CPU has:
//   - a dense sample of all float32 inputs (every 9973rd bit pattern, both signs, subnormals, NaNs,
//     infinities) against long-double libm in ULPs, with per-function bounds (docs/math.md) that the
//     test fails above; NumPy's own error on the same inputs is printed beside ours;
//   - special values (NaN, +-inf, +-0, subnormals, domain edges, overflow thresholds) equal in class
//     (NaN, infinity and its sign, zero and its sign) to NumPy's results and within the bound.
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
#include "numpy_ref.hpp"

using namespace ca;
using ca::test::Npy;

namespace ca::test {

/// The float32 max-ULP bound of the functions of array/vecpoly_f32.inc (docs/math.md), `other` for
/// the rest (test_vecmath.cpp asserts these on its inputs too). All within NumPy's SVML bound of 4.
double vecpoly_f32_bound(int32_t op, double other) {
  switch (op) {
    case CA_OP_SINH: return 2.5;
    case CA_OP_COSH: return 2.5;
    case CA_OP_EXPM1: return 1.5;
    case CA_OP_EXP2: return 1.5;
    case CA_OP_LOG10: return 2.0;
    case CA_OP_LOG2: return 2.0;
    case CA_OP_LOG1P: return 2.0;
    case CA_OP_ARCSINH: return 2.5;
    case CA_OP_ARCCOSH: return 2.0;
    case CA_OP_ARCTANH: return 2.5;
    case CA_OP_CBRT: return 1.5;
    case CA_OP_POW: return 1.0;
    case CA_OP_ARCTAN2: return 2.0;
    case CA_OP_HYPOT: return 0.501;  // float64 evaluation rounded once (a double rounding: 0.5 + 2^-29)
    default: return other;
  }
}

}  // namespace ca::test

namespace {

struct Fn {
  int32_t op;
  const char *np;
  long double (*ref1)(long double);
  long double (*ref2)(long double, long double);
};

const std::vector<Fn> kUnary = {
    {CA_OP_SINH, "sinh", sinhl, nullptr},       {CA_OP_COSH, "cosh", coshl, nullptr},
    {CA_OP_EXPM1, "expm1", expm1l, nullptr},    {CA_OP_EXP2, "exp2", exp2l, nullptr},
    {CA_OP_LOG10, "log10", log10l, nullptr},    {CA_OP_LOG2, "log2", log2l, nullptr},
    {CA_OP_LOG1P, "log1p", log1pl, nullptr},
    {CA_OP_ARCSINH, "arcsinh", asinhl, nullptr}, {CA_OP_ARCCOSH, "arccosh", acoshl, nullptr},
    {CA_OP_ARCTANH, "arctanh", atanhl, nullptr}, {CA_OP_CBRT, "cbrt", cbrtl, nullptr},
};
const std::vector<Fn> kBinary = {
    {CA_OP_POW, "power", nullptr, powl},
    {CA_OP_ARCTAN2, "arctan2", nullptr, atan2l},
    {CA_OP_HYPOT, "hypot", nullptr, hypotl},
};
const std::vector<vecmath::Level> kLevels = {vecmath::Level::Sse2, vecmath::Level::Avx2, vecmath::Level::Avx512};

using ca::test::ulp_err;
using ca::test::vm_instr;

/// Same class: both NaN, or equal infinities, or zeros of the same sign, or both finite nonzero.
bool same_class(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  if (a == 0 || b == 0) return a == b && std::signbit(a) == std::signbit(b);
  return true;
}

float bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

std::vector<float> dense_sample() {
  std::vector<float> x;
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 9973) x.push_back(bits(uint32_t(u)));
  return x;
}

std::vector<float> specials() {
  const float inf = INFINITY, fmax = std::numeric_limits<float>::max(), fmin = std::numeric_limits<float>::min();
  const float den = std::numeric_limits<float>::denorm_min(), eps = std::numeric_limits<float>::epsilon();
  std::vector<float> v = {NAN, inf, 0.0f, fmax, fmin, den, 3 * den, fmin / 2, 1.0f, 1 + eps, 1 - eps / 2, 0.5f,
                          2.0f, 3.0f, 0x1p-12f, 0x1p-24f, 0x1p-30f, 0x1p28f, 0x1p28f - 16, 0x1p64f, 1.8e19f,
                          88.72283f, 88.7228394f, 88.7229f, 89.41598f, 89.416f, 90.0f, 127.99999f, 128.0f,
                          126.0f, 149.0f, 150.0f, 151.0f, 103.97f, 104.0f, 17.0f, 30.0f, 0.34657359f, 0.6931472f,
                          0.41421356f, 1.41421356f, 0.70710678f, 1e-38f, 1e38f, 100.0f, 1e10f};
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i) v.push_back(-v[i]);
  return v;
}

std::string list(const std::vector<float> &v) {
  std::string s = "[";
  char buf[64];
  for (float f : v) {
    std::snprintf(buf, sizeof buf, "%a,", double(f));
    s += buf;
  }
  return s + "]";
}

Npy npy_f32(const std::vector<float> &v) {
  return ca::test::npy_of(CA_FLOAT32, {Index(v.size())}, v.data());
}


}  // namespace

TEST(VecMathF32, DispatchUsesPurposeWrittenKernels) {
  // Every level this CPU has gives a kernel for each function, distinct per ISA level.
  for (const Fn &fn : kUnary)
    for (vecmath::Level level : kLevels) {
      if (!vecmath::level_supported(level)) continue;
      EXPECT_NE(vecmath::resolve(vm_instr(fn.op, CA_FLOAT32), 0, level), nullptr) << fn.np << " " << vecmath::level_name(level);
      EXPECT_EQ(vecmath::resolve(vm_instr(fn.op, CA_FLOAT32), 1, level), nullptr) << fn.np;
    }
  for (const Fn &fn : kBinary)
    for (vecmath::Level level : kLevels) {
      if (!vecmath::level_supported(level)) continue;
      for (int variant = 0; variant < 3; ++variant)
        EXPECT_NE(vecmath::resolve(vm_instr(fn.op, CA_FLOAT32), variant, level), nullptr) << fn.np;
    }
}

TEST(VecMathF32, DenseSampleUlpBoundsAndNumPysError) {
  const std::vector<float> x = dense_sample();
  // NumPy's results on the same inputs, all functions in one run: its own error, printed beside ours.
  std::string code = "result = np.stack([";
  for (const Fn &fn : kUnary) code += std::string("np.") + fn.np + "(x),";
  code += "])";
  const Npy want = ca::test::run_numpy(code, {{"x", npy_f32(x)}});
  ASSERT_EQ(want.size(), Index(x.size() * kUnary.size()));
  std::vector<long double> ref(x.size());
  std::vector<float> r(x.size());
  for (size_t f = 0; f < kUnary.size(); ++f) {
    const Fn &fn = kUnary[f];
    const double bound = ca::test::vecpoly_f32_bound(fn.op, 0);
    ASSERT_LE(bound, 4.0);
    for (size_t i = 0; i < x.size(); ++i) ref[i] = fn.ref1((long double)x[i]);
    double np_worst = 0;
    const float *np_r = want.as<float>() + f * x.size();
    for (size_t i = 0; i < x.size(); ++i) np_worst = std::max(np_worst, ulp_err(np_r[i], ref[i]));
    for (vecmath::Level level : kLevels) {
      if (!vecmath::level_supported(level)) continue;
      const ExprInstr ins = vm_instr(fn.op, CA_FLOAT32);
      instr::Fn k = vecmath::resolve(ins, 0, level);
      ASSERT_NE(k, nullptr);
      k(ins, x.data(), nullptr, nullptr, r.data(), int64_t(x.size()));
      double worst = 0;
      int fails = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        const double e = ulp_err(r[i], ref[i]);
        worst = std::max(worst, e);
        if (e > bound && ++fails <= 5)
          ADD_FAILURE() << fn.np << " at " << vecmath::level_name(level) << ": x = " << std::hexfloat << x[i] << " gives "
                        << r[i] << ", exact " << double(ref[i]) << std::defaultfloat << ": " << e << " ULP > " << bound;
      }
      std::printf("  %-7s %-8s max ULP %.3f (bound %.3g; NumPy's own %.3f) on %zu inputs\n", vecmath::level_name(level),
                  fn.np, worst, bound, np_worst, x.size());
    }
  }
}

TEST(VecMathF32, BinaryDenseSampleUlpBounds) {
  std::mt19937 rng(19);
  std::uniform_real_distribution<float> ys(-40, 40);
  for (const Fn &fn : kBinary) {
    std::vector<float> a, b;
    if (fn.op == CA_OP_POW) {  // positive bases of every magnitude; exponents fractional and integral
      for (uint64_t u = 0; u < (uint64_t(1) << 31); u += 9973) {
        a.push_back(bits(uint32_t(u)));
        const float y = ys(rng);
        b.push_back(u % 3 == 0 ? std::round(y) : u % 3 == 1 ? y : y / 64);
      }
      // bases near 1 with large exponents (y log2 x up to +-120: the log's relative error is scaled
      // by |y| there)
      std::uniform_real_distribution<float> near1(-0x1p-5f, 0x1p-5f), t(-120, 120);
      for (int i = 0; i < 100000; ++i) {
        const float x = 1.0f + near1(rng);
        if (x == 1.0f) continue;
        a.push_back(x);
        b.push_back(float(t(rng) / std::log2(double(x))));
      }
    } else {  // random bit patterns in both operands, and the same exponents (atan2's ratios near 1)
      for (int i = 0; i < 300000; ++i) {
        const uint32_t u = rng(), w = rng();
        a.push_back(bits(u));
        b.push_back(i % 2 ? bits(w) : bits((u & 0xff800000u) | (w & 0x807fffffu)));
      }
    }
    // NaN operands are the special-value test's (signaling NaNs here: long double's reference quiets
    // them, and pow(NaN, 0) = 1 then, while powf and NumPy give NaN for a signaling one)
    for (size_t i = a.size(); i-- > 0;)
      if (std::isnan(a[i]) || std::isnan(b[i])) a.erase(a.begin() + long(i)), b.erase(b.begin() + long(i));
    const double bound = ca::test::vecpoly_f32_bound(fn.op, 0);
    std::vector<long double> ref(a.size());
    for (size_t i = 0; i < a.size(); ++i) ref[i] = fn.ref2((long double)a[i], (long double)b[i]);
    std::vector<float> r(a.size());
    for (vecmath::Level level : kLevels) {
      if (!vecmath::level_supported(level)) continue;
      const ExprInstr ins = vm_instr(fn.op, CA_FLOAT32);
      vecmath::resolve(ins, 0, level)(ins, a.data(), b.data(), nullptr, r.data(), int64_t(a.size()));
      double worst = 0;
      int fails = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        const double e = ulp_err(r[i], ref[i]);
        worst = std::max(worst, e);
        if (e > bound && ++fails <= 5)
          ADD_FAILURE() << fn.np << " at " << vecmath::level_name(level) << ": (" << std::hexfloat << a[i] << ", "
                        << b[i] << ") gives " << r[i] << ", exact " << double(ref[i]) << std::defaultfloat << ": " << e
                        << " ULP > " << bound;
      }
      std::printf("  %-7s %-8s max ULP %.3f (bound %.3g) on %zu pairs\n", vecmath::level_name(level), fn.np, worst,
                  bound, a.size());
    }
  }
}

TEST(VecMathF32, SpecialValuesMatchNumPy) {
  const std::vector<float> s = specials();
  std::vector<float> a, b;  // every pair, for the binary functions
  for (float u : s)
    for (float w : s) a.push_back(u), b.push_back(w);
  std::string code = "result = np.concatenate([";
  for (const Fn &fn : kUnary) code += std::string("np.") + fn.np + "(s),";
  for (const Fn &fn : kBinary) code += std::string("np.") + fn.np + "(a, b),";
  code += "])";
  const Npy want = ca::test::run_numpy(code, {{"s", npy_f32(s)}, {"a", npy_f32(a)}, {"b", npy_f32(b)}});
  const float *w = want.as<float>();
  for (vecmath::Level level : kLevels) {
    if (!vecmath::level_supported(level)) continue;
    size_t off = 0;
    auto check = [&](const Fn &fn, const std::vector<float> &r, const std::vector<float> &x, const std::vector<float> *y) {
      const double bound = ca::test::vecpoly_f32_bound(fn.op, 0);
      for (size_t i = 0; i < r.size(); ++i) {
        const float np = w[off + i];
        const long double exact = y ? fn.ref2(x[i], (*y)[i]) : fn.ref1(x[i]);
        std::string at = std::string(fn.np) + " at " + vecmath::level_name(level) + " of " + list({x[i]}) +
                         (y ? list({(*y)[i]}) : std::string());
        EXPECT_TRUE(same_class(r[i], np)) << at << ": " << r[i] << ", NumPy " << np;
        EXPECT_LE(ulp_err(r[i], exact), bound) << at << ": " << r[i] << ", exact " << double(exact);
      }
      off += r.size();
    };
    for (const Fn &fn : kUnary) {
      const ExprInstr ins = vm_instr(fn.op, CA_FLOAT32);
      std::vector<float> r(s.size());
      vecmath::resolve(ins, 0, level)(ins, s.data(), nullptr, nullptr, r.data(), int64_t(s.size()));
      check(fn, r, s, nullptr);
    }
    for (const Fn &fn : kBinary) {
      const ExprInstr ins = vm_instr(fn.op, CA_FLOAT32);
      std::vector<float> r(a.size());
      vecmath::resolve(ins, 0, level)(ins, a.data(), b.data(), nullptr, r.data(), int64_t(a.size()));
      check(fn, r, a, &b);
      // scalar operands (variants 1, 2): the same as the vector form, element for element
      for (float sc : {2.0f, 0.5f, -3.0f, 0.0f, -0.0f, NAN, INFINITY}) {
        std::vector<float> sv(s.size(), sc), r1(s.size()), v1(s.size()), r2(s.size()), v2(s.size());
        vecmath::resolve(ins, 1, level)(ins, &sc, s.data(), nullptr, r1.data(), int64_t(s.size()));
        vecmath::resolve(ins, 0, level)(ins, sv.data(), s.data(), nullptr, v1.data(), int64_t(s.size()));
        vecmath::resolve(ins, 2, level)(ins, s.data(), &sc, nullptr, r2.data(), int64_t(s.size()));
        vecmath::resolve(ins, 0, level)(ins, s.data(), sv.data(), nullptr, v2.data(), int64_t(s.size()));
        // bit for bit, but any NaN for a NaN (which NaN operand x + y returns is the compiler's choice)
        auto same = [](float p, float q) { return std::memcmp(&p, &q, 4) == 0 || (std::isnan(p) && std::isnan(q)); };
        for (size_t i = 0; i < s.size(); ++i) {
          EXPECT_TRUE(same(r1[i], v1[i])) << fn.np << " scalar first " << sc << " i=" << i;
          if (fn.op == CA_OP_POW && sc == 2.0f)  // x ** 2 is x * x
            EXPECT_TRUE(same(r2[i], s[i] * s[i])) << s[i];
          else
            EXPECT_TRUE(same(r2[i], v2[i])) << fn.np << " scalar second " << sc << " i=" << i;
        }
      }
    }
  }
}

TEST(VecMathF32, EachLaneIndependentOfItsNeighbours) {
  // A lane's result must not depend on the other lanes of its vector (which path the vector takes):
  // the same element alone (the zero-padded tail) and among mixed neighbours gives the same bits, so
  // results do not change with the chunking.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> wide(-100, 100), unit(-1, 1), near1(0.5f, 3.0f);
  const std::vector<float> sp = specials();
  std::vector<float> x;
  for (int i = 0; i < 4096; ++i) {
    const int k = int(rng() % 8);
    x.push_back(k < 3 ? wide(rng) : k < 5 ? unit(rng) : k < 7 ? near1(rng) : sp[rng() % sp.size()]);
  }
  auto same = [](float p, float q) { return std::memcmp(&p, &q, 4) == 0 || (std::isnan(p) && std::isnan(q)); };
  for (const Fn &fn : kUnary)
    for (vecmath::Level level : kLevels) {
      if (!vecmath::level_supported(level)) continue;
      const ExprInstr ins = vm_instr(fn.op, CA_FLOAT32);
      const instr::Fn k = vecmath::resolve(ins, 0, level);
      std::vector<float> all(x.size());
      k(ins, x.data(), nullptr, nullptr, all.data(), int64_t(x.size()));
      int fails = 0;
      for (size_t i = 0; i < x.size() && fails < 5; ++i) {
        float one = -7;
        k(ins, &x[i], nullptr, nullptr, &one, 1);
        if (!same(one, all[i]))
          ++fails, ADD_FAILURE() << fn.np << " at " << vecmath::level_name(level) << " of " << std::hexfloat << x[i]
                                 << ": alone " << one << ", among others " << all[i];
      }
    }
}
