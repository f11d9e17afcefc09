// NumPy's Generator distributions (array/random_dists.cpp): sample moments against the exact ones,
// Kolmogorov-Smirnov against closed-form CDFs, chi-square against exact pmfs, chunking independence,
// reproducibility, dtypes, shapes, errors and fusion. Fixed seeds: the tests can fail but never flake.
#include <gtest/gtest.h>

#include <chunkarray/array.h>

#include <algorithm>
#include <chunkarray/context.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "array/array.hpp"
#include "support/expect_error.hpp"
#include "support/builtin_registry.hpp"
#include "array/create.hpp"
#include "array/expr.hpp"
#include "array/reduce.hpp"
#include "builtins/builtins.hpp"
#include "exec/executor.hpp"
#include "kernel/kernel.hpp"

using namespace ca;
using ca::test::compute_bytes;

namespace {

// The values as doubles (float64, float32 or int64 arrays).
std::vector<double> values(const ArrayPtr &a, int32_t threads = 2) {
  std::vector<uint8_t> b = compute_bytes(a, threads);
  std::vector<double> out;
  if (a->dtype == CA_FLOAT64) {
    out.resize(b.size() / 8);
    if (!b.empty()) std::memcpy(out.data(), b.data(), b.size());
  } else if (a->dtype == CA_FLOAT32) {
    std::vector<float> f(b.size() / 4);
    if (!b.empty()) std::memcpy(f.data(), b.data(), b.size());
    out.assign(f.begin(), f.end());
  } else {
    std::vector<int64_t> v(b.size() / 8);
    if (!b.empty()) std::memcpy(v.data(), b.data(), b.size());
    out.assign(v.begin(), v.end());
  }
  return out;
}

constexpr Index kN = 200000;
const Chunks kChunks{{70000, 1, 59999, 70000}};

ArrayPtr draw(int32_t code, uint64_t seed, double p0, double p1 = 1, double p2 = 0, DType dt = 0) {
  if (dt == 0) dt = random_dist_is_discrete(code) ? CA_INT64 : CA_FLOAT64;
  return random(code, seed, {kN}, kChunks, dt, p0, p1, p2);
}

// Sample mean within 5 standard errors of `mean`, sample variance within 5 standard errors of `var`
// (the variance's standard error from the sample's fourth central moment).
void expect_moments(const std::vector<double> &x, double mean, double var, const std::string &what) {
  const double n = double(x.size());
  double s = 0;
  for (double v : x) s += v;
  const double m = s / n;
  double m2 = 0, m4 = 0;
  for (double v : x) {
    const double d = v - m;
    m2 += d * d;
    m4 += d * d * d * d;
  }
  m2 /= n, m4 /= n;
  EXPECT_NEAR(m, mean, 5 * std::sqrt(var / n)) << what << ": mean";
  EXPECT_NEAR(m2, var, 5 * std::sqrt(std::max(m4 - m2 * m2, 0.0) / n) + 1e-12) << what << ": variance";
}

// The Kolmogorov-Smirnov statistic against a continuous CDF; at n = 200000 the 0.1% critical value
// is 1.95 / sqrt(n) = 0.0044.
void expect_ks(std::vector<double> x, const std::function<double(double)> &cdf, const std::string &what) {
  std::sort(x.begin(), x.end());
  const double n = double(x.size());
  double d = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double F = cdf(x[i]);
    d = std::max({d, F - double(i) / n, double(i + 1) / n - F});
  }
  EXPECT_LT(d, 1.95 / std::sqrt(n)) << what << ": KS statistic";
}

// Chi-square of the counts against an exact pmf, cells with expected count < 20 merged into the
// tails; fails beyond the 0.1% point (Wilson-Hilferty approximation of the quantile).
void expect_pmf(const std::vector<double> &x, const std::function<double(int64_t)> &pmf, int64_t lo, int64_t hi,
                const std::string &what) {
  const double n = double(x.size());
  std::map<int64_t, double> count;
  for (double v : x) {
    ASSERT_EQ(v, std::floor(v)) << what;
    count[int64_t(v)] += 1;
  }
  double chi2 = 0, obs = 0, expc = 0, tail_p = 1;
  int cells = 0;
  for (int64_t k = lo; k <= hi; ++k) {
    const double p = pmf(k);
    tail_p -= p;
    obs += count.count(k) ? count[k] : 0;
    expc += n * p;
    if (expc >= 20) {
      chi2 += (obs - expc) * (obs - expc) / expc;
      ++cells;
      obs = expc = 0;
    }
  }
  // Everything else (below lo never happens: checked by the caller's range) in one cell.
  double rest = 0;
  for (auto &[k, c] : count)
    if (k > hi || k < lo) rest += c;
  obs += rest;
  expc += n * std::max(tail_p, 0.0);
  if (expc > 0) {
    chi2 += (obs - expc) * (obs - expc) / expc;
    ++cells;
  }
  const double df = cells - 1;
  const double z = 3.09;  // 0.1%
  const double crit = df * std::pow(1 - 2 / (9 * df) + z * std::sqrt(2 / (9 * df)), 3);
  EXPECT_LT(chi2, crit) << what << ": chi-square over " << cells << " cells";
}

double lchoose(double n, double k) { return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1); }

using ca::test::expect_error;

}  // namespace

TEST(Random, ContinuousMomentsAndKS) {
  const double pi = 3.14159265358979323846;
  // Closed-form CDFs: KS and moments.
  {
    auto x = values(draw(CA_RANDOM_EXPONENTIAL, 1, 2.5));
    expect_moments(x, 2.5, 6.25, "exponential");
    expect_ks(x, [](double v) { return v < 0 ? 0 : -std::expm1(-v / 2.5); }, "exponential");
  }
  {
    auto x = values(draw(CA_RANDOM_STANDARD_EXPONENTIAL, 2, 0));
    expect_moments(x, 1, 1, "standard_exponential");
    expect_ks(x, [](double v) { return v < 0 ? 0 : -std::expm1(-v); }, "standard_exponential");
  }
  {
    const double mu = 1, b = 2, g = 0.5772156649015329;
    auto x = values(draw(CA_RANDOM_GUMBEL, 3, mu, b));
    expect_moments(x, mu + b * g, pi * pi / 6 * b * b, "gumbel");
    expect_ks(x, [&](double v) { return std::exp(-std::exp(-(v - mu) / b)); }, "gumbel");
  }
  {
    auto x = values(draw(CA_RANDOM_LAPLACE, 4, -1, 0.5));
    expect_moments(x, -1, 2 * 0.25, "laplace");
    expect_ks(x, [](double v) { return v < -1 ? 0.5 * std::exp((v + 1) / 0.5) : 1 - 0.5 * std::exp(-(v + 1) / 0.5); },
              "laplace");
  }
  {
    auto x = values(draw(CA_RANDOM_LOGISTIC, 5, 3, 1.5));
    expect_moments(x, 3, 1.5 * 1.5 * pi * pi / 3, "logistic");
    expect_ks(x, [](double v) { return 1 / (1 + std::exp(-(v - 3) / 1.5)); }, "logistic");
  }
  {
    const double mu = 0.3, s = 0.4;
    auto x = values(draw(CA_RANDOM_LOGNORMAL, 6, mu, s));
    expect_moments(x, std::exp(mu + s * s / 2), std::expm1(s * s) * std::exp(2 * mu + s * s), "lognormal");
    expect_ks(x, [&](double v) { return v <= 0 ? 0 : 0.5 * std::erfc(-(std::log(v) - mu) / (s * std::sqrt(2.0))); },
              "lognormal");
  }
  {
    const double a = 5;  // Lomax: mean 1/(a-1), var a/((a-1)^2 (a-2))
    auto x = values(draw(CA_RANDOM_PARETO, 7, a));
    expect_moments(x, 1 / (a - 1), a / ((a - 1) * (a - 1) * (a - 2)), "pareto");
    expect_ks(x, [&](double v) { return v < 0 ? 0 : 1 - std::pow(1 + v, -a); }, "pareto");
  }
  {
    const double a = 3;
    auto x = values(draw(CA_RANDOM_POWER, 8, a));
    expect_moments(x, a / (a + 1), a / ((a + 1) * (a + 1) * (a + 2)), "power");
    expect_ks(x, [&](double v) { return v <= 0 ? 0 : v >= 1 ? 1 : std::pow(v, a); }, "power");
  }
  {
    const double s = 2;
    auto x = values(draw(CA_RANDOM_RAYLEIGH, 9, s));
    expect_moments(x, s * std::sqrt(pi / 2), (4 - pi) / 2 * s * s, "rayleigh");
    expect_ks(x, [&](double v) { return v < 0 ? 0 : -std::expm1(-v * v / (2 * s * s)); }, "rayleigh");
  }
  {
    auto x = values(draw(CA_RANDOM_STANDARD_CAUCHY, 10, 0));
    expect_ks(x, [&](double v) { return 0.5 + std::atan(v) / pi; }, "standard_cauchy");
  }
  {
    const double l = -1, m = 0.5, r = 4;
    auto x = values(draw(CA_RANDOM_TRIANGULAR, 11, l, m, r));
    expect_moments(x, (l + m + r) / 3, (l * l + m * m + r * r - l * m - l * r - m * r) / 18, "triangular");
    expect_ks(x,
              [&](double v) {
                if (v <= l) return 0.0;
                if (v <= m) return (v - l) * (v - l) / ((r - l) * (m - l));
                if (v < r) return 1 - (r - v) * (r - v) / ((r - l) * (r - m));
                return 1.0;
              },
              "triangular");
  }
  {
    const double k = 1.5;
    auto x = values(draw(CA_RANDOM_WEIBULL, 12, k));
    const double g1 = std::tgamma(1 + 1 / k), g2 = std::tgamma(1 + 2 / k);
    expect_moments(x, g1, g2 - g1 * g1, "weibull");
    expect_ks(x, [&](double v) { return v < 0 ? 0 : -std::expm1(-std::pow(v, k)); }, "weibull");
  }
  // Moments only (their CDFs need special functions: the Python suite runs KS with SciPy).
  for (double shape : {0.3, 1.0, 4.5, 50.0}) {
    auto x = values(draw(CA_RANDOM_GAMMA, 13, shape, 2));
    expect_moments(x, shape * 2, shape * 4, "gamma " + std::to_string(shape));
    auto y = values(draw(CA_RANDOM_STANDARD_GAMMA, 14, shape));
    expect_moments(y, shape, shape, "standard_gamma " + std::to_string(shape));
  }
  for (auto [a, b] : {std::pair{0.5, 0.7}, std::pair{2.0, 5.0}}) {
    auto x = values(draw(CA_RANDOM_BETA, 15, a, b));
    expect_moments(x, a / (a + b), a * b / ((a + b) * (a + b) * (a + b + 1)), "beta");
  }
  {
    auto x = values(draw(CA_RANDOM_CHISQUARE, 16, 3));
    expect_moments(x, 3, 6, "chisquare");
  }
  {
    const double d1 = 5, d2 = 12;
    auto x = values(draw(CA_RANDOM_F, 17, d1, d2));
    expect_moments(x, d2 / (d2 - 2), 2 * d2 * d2 * (d1 + d2 - 2) / (d1 * (d2 - 2) * (d2 - 2) * (d2 - 4)), "f");
  }
  for (double df : {0.5, 4.0}) {
    const double nc = 2;
    auto x = values(draw(CA_RANDOM_NONCENTRAL_CHISQUARE, 18, df, nc));
    expect_moments(x, df + nc, 2 * (df + 2 * nc), "noncentral_chisquare");
  }
  {
    const double d1 = 4, d2 = 20, nc = 3;
    auto x = values(draw(CA_RANDOM_NONCENTRAL_F, 19, d1, d2, nc));
    const double mean = d2 * (d1 + nc) / (d1 * (d2 - 2));
    const double var = 2 * (d2 / d1) * (d2 / d1) * ((d1 + nc) * (d1 + nc) + (d1 + 2 * nc) * (d2 - 2)) /
                       ((d2 - 2) * (d2 - 2) * (d2 - 4));
    expect_moments(x, mean, var, "noncentral_f");
  }
  {
    const double nu = 6;
    auto x = values(draw(CA_RANDOM_STANDARD_T, 20, nu));
    expect_moments(x, 0, nu / (nu - 2), "standard_t");
  }
  {
    const double mu = 1.5, lam = 3;
    auto x = values(draw(CA_RANDOM_WALD, 21, mu, lam));
    expect_moments(x, mu, mu * mu * mu / lam, "wald");
  }
  {
    // von Mises: E[cos(x - mu)] = I1(k)/I0(k); I_n by its series.
    const double mu = 0.5, k = 2;
    auto bessel = [](int nn, double z) {
      double s = 0, t = std::pow(z / 2, nn) / std::tgamma(nn + 1);
      for (int m = 0; m < 60; ++m) {
        s += t;
        t *= (z / 2) * (z / 2) / ((m + 1.0) * (m + 1.0 + nn));
      }
      return s;
    };
    auto x = values(draw(CA_RANDOM_VONMISES, 22, mu, k));
    std::vector<double> c;
    for (double v : x) {
      ASSERT_GE(v, -pi);
      ASSERT_LE(v, pi);
      c.push_back(std::cos(v - mu));
    }
    const double r1 = bessel(1, k) / bessel(0, k), r2 = bessel(2, k) / bessel(0, k);
    expect_moments(c, r1, (1 + r2) / 2 - r1 * r1, "vonmises");
  }
}

TEST(Random, DiscretePmfs) {
  for (double lam : {0.0, 3.5, 40.0, 1000.0}) {
    auto x = values(draw(CA_RANDOM_POISSON, 30, lam));
    expect_moments(x, lam, lam, "poisson " + std::to_string(lam));
    if (lam > 0) {
      const int64_t lo = std::max<int64_t>(0, int64_t(lam - 8 * std::sqrt(lam))), hi = int64_t(lam + 8 * std::sqrt(lam)) + 5;
      expect_pmf(x, [&](int64_t k) { return std::exp(k * std::log(lam) - lam - std::lgamma(k + 1.0)); }, lo, hi,
                 "poisson");
    } else {
      EXPECT_EQ(*std::max_element(x.begin(), x.end()), 0);
    }
  }
  for (auto [n, p] : {std::pair{10.0, 0.3}, std::pair{1000.0, 0.2}, std::pair{200.0, 0.9}, std::pair{5.0, 1.0}}) {
    auto x = values(draw(CA_RANDOM_BINOMIAL, 31, n, p));
    expect_moments(x, n * p, n * p * (1 - p), "binomial");
    if (p < 1)
      expect_pmf(x, [&](int64_t k) { return std::exp(lchoose(n, double(k)) + k * std::log(p) + (n - k) * std::log1p(-p)); },
                 0, int64_t(n), "binomial");
  }
  for (double p : {0.05, 0.5}) {
    auto x = values(draw(CA_RANDOM_GEOMETRIC, 32, p));
    expect_moments(x, 1 / p, (1 - p) / (p * p), "geometric");
    expect_pmf(x, [&](int64_t k) { return k < 1 ? 0 : std::pow(1 - p, double(k - 1)) * p; }, 1, 400, "geometric");
  }
  {
    const double ng = 30, nb = 50, ns = 25, N = ng + nb;
    auto x = values(draw(CA_RANDOM_HYPERGEOMETRIC, 33, ng, nb, ns));
    expect_moments(x, ns * ng / N, ns * (ng / N) * (nb / N) * (N - ns) / (N - 1), "hypergeometric");
    expect_pmf(x, [&](int64_t k) { return std::exp(lchoose(ng, double(k)) + lchoose(nb, ns - k) - lchoose(N, ns)); }, 0,
               25, "hypergeometric");
    auto y = values(draw(CA_RANDOM_HYPERGEOMETRIC, 34, 5, 3, 8));  // nsample = total: all good ones
    EXPECT_EQ(*std::min_element(y.begin(), y.end()), 5);
    EXPECT_EQ(*std::max_element(y.begin(), y.end()), 5);
  }
  {
    const double p = 0.6, r = -1 / std::log1p(-p);
    auto x = values(draw(CA_RANDOM_LOGSERIES, 35, p));
    expect_moments(x, r * p / (1 - p), r * p * (1 - r * p) / ((1 - p) * (1 - p)), "logseries");
    expect_pmf(x, [&](int64_t k) { return k < 1 ? 0 : r * std::pow(p, double(k)) / double(k); }, 1, 60, "logseries");
  }
  {
    const double n = 3.5, p = 0.4;
    auto x = values(draw(CA_RANDOM_NEGATIVE_BINOMIAL, 36, n, p));
    expect_moments(x, n * (1 - p) / p, n * (1 - p) / (p * p), "negative_binomial");
    expect_pmf(x,
               [&](int64_t k) {
                 return std::exp(std::lgamma(k + n) - std::lgamma(n) - std::lgamma(k + 1.0) + n * std::log(p) +
                                 k * std::log1p(-p));
               },
               0, 80, "negative_binomial");
  }
  {
    const double a = 3.0;  // zeta(3), zeta(2) ... exact pmf k^-a / zeta(a)
    double z = 0;
    for (int k = 1; k < 200000; ++k) z += std::pow(k, -a);
    auto x = values(draw(CA_RANDOM_ZIPF, 37, a));
    expect_pmf(x, [&](int64_t k) { return k < 1 ? 0 : std::pow(double(k), -a) / z; }, 1, 200, "zipf");
  }
}

TEST(Random, IndependentOfChunkingAndThreads) {
  struct Case {
    int32_t code;
    double p0, p1, p2;
  };
  const Case cases[] = {{CA_RANDOM_GAMMA, 0.7, 2, 0},     {CA_RANDOM_BINOMIAL, 100, 0.3, 0},
                        {CA_RANDOM_POISSON, 25, 1, 0},    {CA_RANDOM_TRIANGULAR, 0, 1, 3},
                        {CA_RANDOM_VONMISES, 0, 3, 0},    {CA_RANDOM_HYPERGEOMETRIC, 7, 9, 5},
                        {CA_RANDOM_STANDARD_T, 3, 1, 0},  {CA_RANDOM_ZIPF, 2, 1, 0}};
  for (const Case &c : cases) {
    const DType dt = random_dist_is_discrete(c.code) ? CA_INT64 : CA_FLOAT64;
    ArrayPtr a = random(c.code, 42, {37, 41}, Chunks{{37}, {41}}, dt, c.p0, c.p1, c.p2);
    ArrayPtr b = random(c.code, 42, {37, 41}, Chunks{{5, 1, 31}, {1, 39, 1}}, dt, c.p0, c.p1, c.p2);
    ArrayPtr other = random(c.code, 43, {37, 41}, Chunks{{37}, {41}}, dt, c.p0, c.p1, c.p2);
    EXPECT_TRUE(a->gen && b->gen);
    const std::vector<uint8_t> va = compute_bytes(a, 0);
    EXPECT_EQ(va, compute_bytes(b, 2)) << random_dist_name(c.code);
    EXPECT_EQ(va, compute_bytes(b, 1)) << random_dist_name(c.code);
    EXPECT_EQ(va, compute_bytes(a, 2)) << random_dist_name(c.code);
    EXPECT_NE(va, compute_bytes(other, 2)) << random_dist_name(c.code);
    EXPECT_EQ(a->name, random(c.code, 42, {37, 41}, Chunks{{37}, {41}}, dt, c.p0, c.p1, c.p2)->name);
    EXPECT_NE(a->name, other->name);
    // A prefix of a longer 1-d array is the same values (element index = value's identity).
    ArrayPtr l = random(c.code, 42, {37 * 41 + 13}, Chunks{{100, 1417, 13}}, dt, c.p0, c.p1, c.p2);
    std::vector<uint8_t> vl = compute_bytes(l);
    EXPECT_TRUE(std::equal(va.begin(), va.end(), vl.begin())) << random_dist_name(c.code);
    // float32 is float64 rounded.
    if (dt == CA_FLOAT64) {
      std::vector<double> d = values(a);
      std::vector<double> f = values(random(c.code, 42, {37, 41}, Chunks{{20, 17}, {41}}, CA_FLOAT32, c.p0, c.p1, c.p2));
      for (size_t i = 0; i < d.size(); ++i) ASSERT_EQ(f[i], double(float(d[i]))) << i;
    }
  }
  // Known values pin the stream scheme (element g's k-th Philox call uses counter (g, k, 1)) and the
  // algorithms (standard_exponential: the 256-layer ziggurat on the word's bits 3..63): a change of
  // scheme or algorithm changes saved graphs' results and must be deliberate.
  std::vector<double> e = values(random(CA_RANDOM_STANDARD_EXPONENTIAL, 7, {3}, Chunks{{3}}, CA_FLOAT64, 0, 1, 0));
  const double pinned[3] = {0x1.0ab09598c2101p+0, 0x1.8f097fb767434p-1, 0x1.03d45f71aa302p-6};
  for (uint64_t g = 0; g < 3; ++g) {
    EXPECT_EQ(e[g], pinned[g]) << g;
  }
}

TEST(Random, ShapesAndDtypes) {
  // 0-d, empty, size-1.
  ArrayPtr z = random(CA_RANDOM_GAMMA, 1, {}, Chunks{}, CA_FLOAT64, 2, 1, 0);
  std::vector<double> vz = values(z);
  ASSERT_EQ(vz.size(), 1u);
  EXPECT_GT(vz[0], 0);
  EXPECT_EQ(values(random(CA_RANDOM_POISSON, 1, {0, 5}, Chunks{{0}, {5}}, CA_INT64, 3, 1, 0)).size(), 0u);
  EXPECT_EQ(values(random(CA_RANDOM_BETA, 1, {1}, Chunks{{1}}, CA_FLOAT32, 2, 2, 0)).size(), 1u);
  // Degenerate parameters NumPy allows.
  for (double v : values(random(CA_RANDOM_BINOMIAL, 1, {50}, Chunks{{50}}, CA_INT64, 0, 0.5, 0))) EXPECT_EQ(v, 0);
  for (double v : values(random(CA_RANDOM_EXPONENTIAL, 1, {50}, Chunks{{50}}, CA_FLOAT64, 0, 1, 0))) EXPECT_EQ(v, 0);
  for (double v : values(random(CA_RANDOM_GEOMETRIC, 1, {50}, Chunks{{50}}, CA_INT64, 1, 1, 0))) EXPECT_EQ(v, 1);
  for (double v : values(random(CA_RANDOM_LOGSERIES, 1, {50}, Chunks{{50}}, CA_INT64, 0, 1, 0))) EXPECT_EQ(v, 1);
  for (double v : values(random(CA_RANDOM_WEIBULL, 1, {50}, Chunks{{50}}, CA_FLOAT64, 0, 1, 0))) EXPECT_EQ(v, 0);
}

TEST(Random, Errors) {
  auto r = [](int32_t code, double p0, double p1 = 1, double p2 = 0, DType dt = 0) {
    return [=] {
      random(code, 1, {3}, Chunks{{3}}, dt ? dt : (random_dist_is_discrete(code) ? CA_INT64 : CA_FLOAT64), p0, p1, p2);
    };
  };
  expect_error(CA_EINVAL, "gamma: scale < 0", r(CA_RANDOM_GAMMA, 1, -1));
  expect_error(CA_EINVAL, "gamma: shape < 0", r(CA_RANDOM_GAMMA, -1, 1));
  expect_error(CA_EINVAL, "exponential: scale < 0", r(CA_RANDOM_EXPONENTIAL, -2));
  expect_error(CA_EINVAL, "beta: a <= 0", r(CA_RANDOM_BETA, 0, 1));
  expect_error(CA_EINVAL, "binomial: p < 0, p > 1 or p is NaN", r(CA_RANDOM_BINOMIAL, 10, 1.5));
  expect_error(CA_EINVAL, "binomial: p < 0, p > 1 or p is NaN", r(CA_RANDOM_BINOMIAL, 10, NAN));
  expect_error(CA_EINVAL, "binomial: n < 0", r(CA_RANDOM_BINOMIAL, -1, 0.5));
  expect_error(CA_EINVAL, "binomial: n must be an integer", r(CA_RANDOM_BINOMIAL, 2.5, 0.5));
  expect_error(CA_EINVAL, "poisson: lam < 0", r(CA_RANDOM_POISSON, -1));
  expect_error(CA_EINVAL, "poisson: lam value too large", r(CA_RANDOM_POISSON, 1e19));
  expect_error(CA_EINVAL, "hypergeometric: ngood + nbad < nsample", r(CA_RANDOM_HYPERGEOMETRIC, 2, 3, 6));
  expect_error(CA_EINVAL, "triangular: left > mode", r(CA_RANDOM_TRIANGULAR, 2, 1, 3));
  expect_error(CA_EINVAL, "triangular: mode > right", r(CA_RANDOM_TRIANGULAR, 0, 4, 3));
  expect_error(CA_EINVAL, "triangular: left == right", r(CA_RANDOM_TRIANGULAR, 1, 1, 1));
  expect_error(CA_EINVAL, "zipf: a <= 1", r(CA_RANDOM_ZIPF, 1));
  expect_error(CA_EINVAL, "vonmises: kappa < 0", r(CA_RANDOM_VONMISES, 0, -1));
  expect_error(CA_EINVAL, "wald: scale <= 0", r(CA_RANDOM_WALD, 1, 0));
  expect_error(CA_EINVAL, "logseries: p < 0, p >= 1", r(CA_RANDOM_LOGSERIES, 1));
  expect_error(CA_EINVAL, "geometric: p <= 0, p > 1", r(CA_RANDOM_GEOMETRIC, 0));
  expect_error(CA_EINVAL, "negative_binomial: n <= 0", r(CA_RANDOM_NEGATIVE_BINOMIAL, 0, 0.5));
  expect_error(CA_EINVAL, "noncentral_f: nonc < 0", r(CA_RANDOM_NONCENTRAL_F, 1, 1, -1));
  expect_error(CA_ETYPE, "poisson: dtype must be int64", r(CA_RANDOM_POISSON, 1, 1, 0, CA_FLOAT64));
  expect_error(CA_ETYPE, "gamma: dtype must be float32 or float64", r(CA_RANDOM_GAMMA, 1, 1, 0, CA_INT64));
  expect_error(CA_EINVAL, "unknown distribution", r(32, 1));
}

TEST(Random, ExpressionsRegenerateInsteadOfHolding) {
  const Chunks gc{{10, 1, 26}, {23}};
  ArrayPtr g = random(CA_RANDOM_GAMMA, 11, {37, 23}, gc, CA_FLOAT64, 2, 1, 0);
  ArrayPtr p = random(CA_RANDOM_POISSON, 12, {37, 23}, gc, CA_INT64, 4, 1, 0);
  ASSERT_TRUE(g->gen && p->gen);
  // g * p - mean(g * p, axis=0): neither g nor p is a layer of the result's graph.
  ArrayPtr prod = elementwise_binary(CA_OP_MUL, g, elementwise_astype(p, CA_FLOAT64));
  ArrayPtr m = reduce(CA_RED_MEAN, prod, {0}, false, 0, 0, 0);
  ArrayPtr d = elementwise_binary(CA_OP_SUB, prod, m);
  EXPECT_EQ(d->graph->find(g->name), nullptr);
  EXPECT_EQ(d->graph->find(p->name), nullptr);
  // ... and its values are those of the generated blocks.
  std::vector<double> vg = values(g), vp = values(p), vd = values(d);
  std::vector<double> mean(23, 0);
  for (size_t i = 0; i < vg.size(); ++i) mean[i % 23] += vg[i] * vp[i] / 37;
  for (size_t i = 0; i < vg.size(); ++i) EXPECT_NEAR(vd[i], vg[i] * vp[i] - mean[i % 23], 1e-9) << i;
  // A generated distribution survives the program's byte format (as graph files carry it).
  ExprProgram prog;
  prog.code.push_back(gen_instr(*g->gen));
  prog.gshape = {37, 23};
  prog.coords = true;
  const std::string bytes = prog.serialize();
  ExprProgram back = ExprProgram::parse(bytes.data(), bytes.size());
  GenSpec s = gen_spec_of(back.code[0]);
  EXPECT_EQ(s.kind, g->gen->kind);
  EXPECT_EQ(s.p0, 2);
  // A corrupted parameter is a format error, not a crash.
  GenSpec bad = *g->gen;
  bad.p1 = -1;
  ExprProgram pb = prog;
  pb.code[0] = gen_instr(bad);
  const std::string bb = pb.serialize();
  try {
    ExprProgram::parse(bb.data(), bb.size());
    ADD_FAILURE() << "bad generator parsed";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), CA_EFORMAT) << e.message();
    EXPECT_NE(e.message().find("scale < 0"), std::string::npos) << e.message();
  }
}

TEST(Random, CApiThirdParameterAndOldStructSize) {
  ca_context_t *ctx = nullptr;
  ASSERT_EQ(ca_context_new(&ctx, nullptr), CA_OK);
  const int64_t shape[1] = {1000}, nb = 3, sizes[3] = {400, 1, 599};
  const ca_chunks_t ch{1, &nb, sizes};
  ca_random_options_t o = CA_RANDOM_OPTIONS_INIT;
  o.seed = 3, o.p0 = -1, o.p1 = 0, o.p2 = 2;
  ca_array_t *t = nullptr;
  ASSERT_EQ(ca_array_random(&t, CA_RANDOM_TRIANGULAR, 1, shape, &ch, CA_FLOAT64, &o), CA_OK) << ca_last_error_message();
  std::vector<double> v(1000);
  ASSERT_EQ(ca_array_compute_into(ctx, t, v.data(), v.size() * 8, nullptr), CA_OK);
  EXPECT_GE(*std::min_element(v.begin(), v.end()), -1);
  EXPECT_LE(*std::max_element(v.begin(), v.end()), 2);
  EXPECT_LT(*std::min_element(v.begin(), v.end()), -0.8);
  EXPECT_GT(*std::max_element(v.begin(), v.end()), 1.8);
  ca_array_free(t);
  // A caller built against the struct without p2 (struct_size = offsetof(p2)): p2 reads as 0.
  o.struct_size = uint32_t(offsetof(ca_random_options_t, p2));
  o.p1 = 0.5;  // triangular(-1, 0.5, p2 = 0): mode > right
  EXPECT_EQ(ca_array_random(&t, CA_RANDOM_TRIANGULAR, 1, shape, &ch, CA_FLOAT64, &o), CA_EINVAL);
  EXPECT_EQ(t, nullptr);
  EXPECT_NE(std::string(ca_last_error_message()).find("triangular: mode > right"), std::string::npos)
      << ca_last_error_message();
  o.p0 = 2, o.p1 = 0.5;
  ASSERT_EQ(ca_array_random(&t, CA_RANDOM_GAMMA, 1, shape, &ch, CA_FLOAT64, &o), CA_OK) << ca_last_error_message();
  ca_array_free(t);
  EXPECT_EQ(ca_array_random(&t, CA_RANDOM_POISSON, 1, shape, &ch, CA_FLOAT64, &o), CA_ETYPE);
  ca_context_free(ctx);
}

TEST(Random, Multinomial) {
  const std::vector<double> p{0.2, 0.3, 0.5};
  ArrayPtr a = random_multinomial(5, 20, p, {400, 5}, Chunks{{400}, {5}, {3}});
  ArrayPtr b = random_multinomial(5, 20, p, {400, 5}, Chunks{{1, 250, 149}, {2, 3}, {3}});
  ASSERT_EQ(a->dtype, CA_INT64);
  std::vector<double> va = values(a), vb = values(b);
  EXPECT_EQ(va, vb);
  EXPECT_NE(va, values(random_multinomial(6, 20, p, {400, 5}, Chunks{{400}, {5}, {3}})));
  std::vector<double> first;
  for (size_t r = 0; r < va.size() / 3; ++r) {
    ASSERT_EQ(va[3 * r] + va[3 * r + 1] + va[3 * r + 2], 20) << r;
    first.push_back(va[3 * r]);
  }
  // Each count's marginal is binomial(20, p_j).
  expect_pmf(first, [&](int64_t k) { return std::exp(lchoose(20, double(k)) + k * std::log(0.2) + (20 - k) * std::log(0.8)); },
             0, 20, "multinomial marginal");
  // 0-d size: one row of k; n = 0: zeros.
  std::vector<double> z = values(random_multinomial(1, 0, p, {}, Chunks{{3}}));
  EXPECT_EQ(z, (std::vector<double>{0, 0, 0}));
  expect_error(CA_EINVAL, "sum(pvals[:-1]) > 1.0", [&] { random_multinomial(1, 5, {0.8, 0.5, 0.1}, {3}, Chunks{{3}, {3}}); });
  expect_error(CA_EINVAL, "pvals < 0", [&] { random_multinomial(1, 5, {-0.1, 1.1}, {3}, Chunks{{3}, {2}}); });
  expect_error(CA_EINVAL, "n < 0", [&] { random_multinomial(1, -5, p, {3}, Chunks{{3}, {3}}); });
  expect_error(CA_EINVAL, "one chunk", [&] { random_multinomial(1, 5, p, {3}, Chunks{{3}, {1, 2}}); });
}
