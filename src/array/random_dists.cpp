// NumPy's Generator distributions over per-element Philox substreams (array.h, CA_RANDOM_BETA ...).
//
// Why substreams: a counter-based generator makes every element a function of (seed, index), which
// keeps values independent of chunking and lets fused programs regenerate any region. Rejection
// samplers need a variable number of uniforms per element, so element g owns a stream: its k-th
// Philox4x32-10 call uses counter (g lo, g hi, k, 1) (x3 = 1 keeps it apart from the stream-0 words
// of uniform/normal/integers, whose x3 is 0) and yields two 64-bit words. Nothing is shared between
// elements, so any subset of them is computed on its own, in any order.
//
// The algorithms are NumPy 1.24's (numpy/random/src/distributions/distributions.c) except where
// noted: binomial uses inversion for n*p < 10 and Hörmann's BTRS above it (NumPy: BTPE above 30);
// hypergeometric uses NumPy's sequential sampling for every nsample (NumPy: HRUA from 10 on), which
// costs min(nsample, total - nsample) draws per element. Both are exact samplers of the same law.
#include <chunkarray/array.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "array/create.hpp"
#include "core/checked.hpp"
#include "array/rechunk.hpp"
#include "core/dtype.hpp"
#include "core/isa.hpp"
#include "kernel/adapter.hpp"

namespace ca {

namespace {

constexpr double kPi = 3.14159265358979323846264338328;

// A non-negative integral double as int64, saturating (NumPy casts; beyond 2**63 that is undefined).
int64_t to_i64(double k) { return k >= 9.2233720368547758e18 ? std::numeric_limits<int64_t>::max() : int64_t(k); }

double bits_to_double(int64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

}  // namespace

NormalZiggurat::NormalZiggurat() {
  const double m = 0x1.0p52;
  double dn = kR, tn = dn;
  const double q = kV / std::exp(-0.5 * dn * dn);
  k[0] = uint64_t((dn / q) * m);
  k[1] = 0;
  w[0] = q / m;
  w[255] = dn / m;
  f[0] = 1.0;
  f[255] = std::exp(-0.5 * dn * dn);
  for (int i = 254; i >= 1; --i) {
    dn = std::sqrt(-2.0 * std::log(kV / dn + std::exp(-0.5 * dn * dn)));
    k[i + 1] = uint64_t((dn / tn) * m);
    tn = dn;
    f[i] = std::exp(-0.5 * dn * dn);
    w[i] = dn / m;
  }
}

const NormalZiggurat &normal_ziggurat() {
  static const NormalZiggurat z;
  return z;
}

namespace {

// The same for the standard exponential (Marsaglia and Tsang's REXP), 256 layers over 53-bit
// magnitudes: a word's bits 3..10 pick the layer, the 53 above them the magnitude (NumPy's layout).
struct ExpZiggurat {
  static constexpr double kR = 7.6971174701310497140446280481, kV = 3.9496598225815571993e-3;
  uint64_t k[256];
  double w[256], f[256];
  ExpZiggurat() {
    const double m = 0x1.0p53;
    double de = kR, te = de;
    const double q = kV / std::exp(-de);
    k[0] = uint64_t((de / q) * m);
    k[1] = 0;
    w[0] = q / m;
    w[255] = de / m;
    f[0] = 1.0;
    f[255] = std::exp(-de);
    for (int i = 254; i >= 1; --i) {
      de = -std::log(kV / de + std::exp(-de));
      k[i + 1] = uint64_t((de / te) * m);
      te = de;
      f[i] = std::exp(-de);
      w[i] = de / m;
    }
  }
};
const ExpZiggurat &exp_ziggurat() {
  static const ExpZiggurat z;
  return z;
}

// Element g's own stream.
struct Stream {
  uint32_t key[2];
  uint32_t ctr[4];
  uint32_t buf[8];
  int pos = 0, end = 0;  // the 64-bit words buf[2 pos ..] not yet used, up to end

  Stream(uint64_t seed, uint64_t g) {
    key[0] = uint32_t(seed), key[1] = uint32_t(seed >> 32);
    ctr[0] = uint32_t(g), ctr[1] = uint32_t(g >> 32), ctr[2] = 0, ctr[3] = 1;
  }
  // With its first Philox call (k = 0), and maybe its second (k = 1), already made (first_calls).
  Stream(uint64_t seed, uint64_t g, const uint32_t first[4], const uint32_t *second) : Stream(seed, g) {
    std::memcpy(buf, first, 4 * sizeof(uint32_t));
    if (second) std::memcpy(buf + 4, second, 4 * sizeof(uint32_t));
    ctr[2] = second ? 2 : 1;
    end = second ? 4 : 2;
  }
  uint64_t next_u64() {
    if (pos == end) {
      detail::philox4x32_10(ctr, key, buf);
      ++ctr[2];
      pos = 0, end = 2;
    }
    const int i = pos++;
    return uint64_t(buf[2 * i]) | uint64_t(buf[2 * i + 1]) << 32;
  }
  double next_double() { return double(next_u64() >> 11) * 0x1.0p-53; }  // [0, 1)
  // Uniform integer in [0, max] (Lemire's method, exact).
  uint64_t interval(uint64_t max) {
    if (max == 0) return 0;
    const uint64_t range = max + 1;
    if (range == 0) return next_u64();
    const uint64_t t = (0 - range) % range;
    for (;;) {
      unsigned __int128 m = (unsigned __int128)next_u64() * range;
      if (uint64_t(m) >= t) return uint64_t(m >> 64);
    }
  }
  double std_exponential() {  // the ziggurat: one word 98.9% of the time
    const ExpZiggurat &z = exp_ziggurat();
    for (;;) {
      uint64_t r = next_u64() >> 3;
      const int idx = int(r & 0xff);
      r >>= 8;
      const double x = double(r) * z.w[idx];
      if (r < z.k[idx]) return x;
      if (idx == 0) return ExpZiggurat::kR - std::log1p(-next_double());
      if ((z.f[idx - 1] - z.f[idx]) * next_double() + z.f[idx] < std::exp(-x)) return x;
    }
  }
  double std_normal() {  // the ziggurat (create.hpp): one word 99% of the time
    return ziggurat_normal(next_u64(), [this] { return next_u64(); });
  }
  double std_gamma(double shape) {
    if (shape == 1.0) return std_exponential();
    if (shape == 0.0) return 0.0;
    if (shape < 1.0) {
      for (;;) {
        const double U = next_double(), V = std_exponential();
        if (U <= 1.0 - shape) {
          const double X = std::pow(U, 1.0 / shape);
          if (X <= V) return X;
        } else {
          const double Y = -std::log((1 - U) / shape);
          const double X = std::pow(1.0 - shape + shape * Y, 1.0 / shape);
          if (X <= V + Y) return X;
        }
      }
    }
    // Marsaglia and Tsang (2000).
    const double b = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9 * b);
    for (;;) {
      double X, V;
      do {
        X = std_normal();
        V = 1.0 + c * X;
      } while (V <= 0.0);
      V = V * V * V;
      const double U = next_double();
      if (U < 1.0 - 0.0331 * (X * X) * (X * X)) return b * V;
      if (std::log(U) < 0.5 * X * X + b * (1. - V + std::log(V))) return b * V;
    }
  }
  double chisquare(double df) { return 2.0 * std_gamma(df / 2.0); }
  int64_t poisson(double lam) {
    if (lam >= 10) {  // PTRS, Hörmann (1993)
      const double slam = std::sqrt(lam), loglam = std::log(lam);
      const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
      const double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
      for (;;) {
        const double U = next_double() - 0.5, V = next_double();
        const double us = 0.5 - std::fabs(U);
        const double k = std::floor((2 * a / us + b) * U + lam + 0.43);
        if (us >= 0.07 && V <= vr) return to_i64(k);
        if (k < 0 || (us < 0.013 && V > us)) continue;
        if (std::log(V) + std::log(invalpha) - std::log(a / (us * us) + b) <= -lam + k * loglam - std::lgamma(k + 1))
          return to_i64(k);
      }
    }
    if (lam == 0) return 0;
    const double enlam = std::exp(-lam);
    int64_t X = 0;
    double prod = 1.0;
    for (;;) {
      prod *= next_double();
      if (prod > enlam) ++X;
      else return X;
    }
  }
  int64_t binomial(int64_t n, double p) {
    if (n == 0 || p == 0.0) return 0;
    if (p > 0.5) return n - binomial(n, 1.0 - p);
    const double q = 1.0 - p, np = double(n) * p;
    if (np < 10) {  // inversion (NumPy's random_binomial_inversion)
      const double qn = std::exp(double(n) * std::log1p(-p));
      const double bound = std::min(double(n), np + 10.0 * std::sqrt(np * q + 1));
      int64_t X = 0;
      double px = qn, U = next_double();
      while (U > px) {
        ++X;
        if (double(X) > bound) {
          X = 0;
          px = qn;
          U = next_double();
        } else {
          U -= px;
          px = (double(n - X + 1) * p * px) / (double(X) * q);
        }
      }
      return X;
    }
    // BTRS, Hörmann (1993), "The generation of binomial random variates".
    const double spq = std::sqrt(np * q);
    const double b = 1.15 + 2.53 * spq, a = -0.0873 + 0.0248 * b + 0.01 * p, c = np + 0.5;
    const double vr = 0.92 - 4.2 / b, alpha = (2.83 + 5.1 / b) * spq, lpq = std::log(p / q);
    const double m = std::floor(double(n + 1) * p);
    const double h = std::lgamma(m + 1) + std::lgamma(double(n) - m + 1);
    for (;;) {
      const double U = next_double() - 0.5;
      double V = next_double();
      const double us = 0.5 - std::fabs(U);
      const double k = std::floor((2 * a / us + b) * U + c);
      if (k < 0 || k > double(n)) continue;
      if (us >= 0.07 && V <= vr) return int64_t(k);
      V = std::log(V * alpha / (a / (us * us) + b));
      if (V <= h - std::lgamma(k + 1) - std::lgamma(double(n) - k + 1) + (k - m) * lpq) return int64_t(k);
    }
  }
  double noncentral_chisquare(double df, double nonc) {
    if (std::isnan(nonc)) return NAN;
    if (nonc == 0) return chisquare(df);
    if (1 < df) {
      const double Chi2 = chisquare(df - 1);
      const double n = std_normal() + std::sqrt(nonc);
      return Chi2 + n * n;
    }
    const int64_t i = poisson(nonc / 2.0);
    return chisquare(df + 2 * double(i));
  }
};

// Philox call k of kBatch consecutive elements' streams, counters (g, k, 1) in struct-of-arrays form
// so the rounds vectorize (most samplers need no further call).
constexpr Index kBatch = 64;

void first_calls(uint64_t seed, uint64_t g0, uint32_t k, uint32_t (*out)[4] /* kBatch */) {
  static_assert(kBatch == 64);
  detail::philox_counters64(seed, g0, k, 1, &out[0][0]);
}

// Samplers that usually need more than two words (two gamma draws, a normal and a gamma, ...): their
// streams' second call is made in the batch too. Only a speed choice: values are the same either way.
bool primes_two_calls(int32_t code) {
  return code == CA_RANDOM_BETA || code == CA_RANDOM_F || code == CA_RANDOM_NONCENTRAL_F ||
         code == CA_RANDOM_STANDARD_T || code == CA_RANDOM_NEGATIVE_BINOMIAL ||
         code == CA_RANDOM_NONCENTRAL_CHISQUARE || code == CA_RANDOM_STANDARD_CAUCHY;
}

// Calls f(i, stream) for the elements [glin, glin + n), each stream primed by first_calls (calls
// 0 and, with `two`, 1).
template <class F>
void for_streams(uint64_t seed, Index glin, Index n, F &&f, bool two = false) {
  uint32_t first[kBatch][4], second[kBatch][4];
  for (Index i0 = 0; i0 < n; i0 += kBatch) {
    first_calls(seed, uint64_t(glin + i0), 0, first);
    if (two) first_calls(seed, uint64_t(glin + i0), 1, second);
    const Index m = std::min(kBatch, n - i0);
    for (Index t = 0; t < m; ++t) {
      Stream s(seed, uint64_t(glin + i0 + t), first[t], two ? second[t] : nullptr);
      f(i0 + t, s);
    }
  }
}

// Parameters of one spec, read once per fill.
struct Params {
  double p0, p1, p2;
};

double sample_float(int32_t code, const Params &P, Stream &s) {
  const double p0 = P.p0, p1 = P.p1, p2 = P.p2;
  switch (code) {
    case CA_RANDOM_BETA: {
      const double a = p0, b = p1;
      if (a <= 1.0 && b <= 1.0) {  // Johnk
        for (;;) {
          const double U = s.next_double(), V = s.next_double();
          const double X = std::pow(U, 1.0 / a), Y = std::pow(V, 1.0 / b), XpY = X + Y;
          if (XpY <= 1.0 && U + V > 0.0) {
            if (XpY > 0) return X / XpY;
            double logX = std::log(U) / a, logY = std::log(V) / b;
            const double logM = std::max(logX, logY);
            logX -= logM;
            logY -= logM;
            return std::exp(logX - std::log(std::exp(logX) + std::exp(logY)));
          }
        }
      }
      const double Ga = s.std_gamma(a), Gb = s.std_gamma(b);
      return Ga / (Ga + Gb);
    }
    case CA_RANDOM_CHISQUARE: return s.chisquare(p0);
    case CA_RANDOM_EXPONENTIAL: return p0 * s.std_exponential();
    case CA_RANDOM_F: return (s.chisquare(p0) * p1) / (s.chisquare(p1) * p0);
    case CA_RANDOM_GAMMA: return p1 * s.std_gamma(p0);
    case CA_RANDOM_GUMBEL:
      for (;;) {
        const double U = 1.0 - s.next_double();
        if (U < 1.0) return p0 - p1 * std::log(-std::log(U));
      }
    case CA_RANDOM_LAPLACE:
      for (;;) {
        const double U = s.next_double();
        if (U >= 0.5) return p0 - p1 * std::log(2.0 - U - U);
        if (U > 0.0) return p0 + p1 * std::log(U + U);
      }
    case CA_RANDOM_LOGISTIC:
      for (;;) {
        const double U = s.next_double();
        if (U > 0.0) return p0 + p1 * std::log(U / (1.0 - U));
      }
    case CA_RANDOM_LOGNORMAL: return std::exp(p0 + p1 * s.std_normal());
    case CA_RANDOM_NONCENTRAL_CHISQUARE: return s.noncentral_chisquare(p0, p1);
    case CA_RANDOM_NONCENTRAL_F: {
      const double t = s.noncentral_chisquare(p0, p2) * p1;
      return t / (s.chisquare(p1) * p0);
    }
    case CA_RANDOM_PARETO: return std::expm1(s.std_exponential() / p0);
    case CA_RANDOM_POWER: return std::pow(-std::expm1(-s.std_exponential()), 1. / p0);
    case CA_RANDOM_RAYLEIGH: return p0 * std::sqrt(2.0 * s.std_exponential());
    case CA_RANDOM_STANDARD_CAUCHY: {
      const double a = s.std_normal();
      return a / s.std_normal();
    }
    case CA_RANDOM_STANDARD_EXPONENTIAL: return s.std_exponential();
    case CA_RANDOM_STANDARD_GAMMA: return s.std_gamma(p0);
    case CA_RANDOM_STANDARD_T: {
      const double num = s.std_normal();
      const double denom = s.std_gamma(p0 / 2);
      return std::sqrt(p0 / 2) * num / std::sqrt(denom);
    }
    case CA_RANDOM_TRIANGULAR: {
      const double left = p0, mode = p1, right = p2;
      const double base = right - left, leftbase = mode - left, ratio = leftbase / base;
      const double leftprod = leftbase * base, rightprod = (right - mode) * base;
      const double U = s.next_double();
      if (U <= ratio) return left + std::sqrt(U * leftprod);
      return right - std::sqrt((1.0 - U) * rightprod);
    }
    case CA_RANDOM_VONMISES: {
      const double mu = p0, kappa = p1;
      if (std::isnan(kappa)) return NAN;
      if (kappa < 1e-8) return kPi * (2 * s.next_double() - 1);
      double sv, W;
      if (kappa < 1e-5) {
        sv = 1. / kappa + kappa;
      } else if (kappa <= 1e6) {
        const double r = 1 + std::sqrt(1 + 4 * kappa * kappa);
        const double rho = (r - std::sqrt(2 * r)) / (2 * kappa);
        sv = (1 + rho * rho) / (2 * rho);
      } else {
        double result = mu + std::sqrt(1. / kappa) * s.std_normal();
        if (result < -kPi) result += 2 * kPi;
        if (result > kPi) result -= 2 * kPi;
        return result;
      }
      for (;;) {
        const double U = s.next_double(), Z = std::cos(kPi * U);
        W = (1 + sv * Z) / (sv + Z);
        const double Y = kappa * (sv - W), V = s.next_double();
        if ((Y * (2 - Y) - V >= 0) || (std::log(Y / V) + 1 - Y >= 0)) break;
      }
      const double U = s.next_double();
      double result = std::acos(W);
      if (U < 0.5) result = -result;
      result += mu;
      const bool neg = result < 0;
      double mod = std::fabs(result);
      mod = std::fmod(mod + kPi, 2 * kPi) - kPi;
      if (neg) mod *= -1;
      return mod;
    }
    case CA_RANDOM_WALD: {
      const double mean = p0, scale = p1, mu_2l = mean / (2 * scale);
      double Y = s.std_normal();
      Y = mean * Y * Y;
      const double X = mean + mu_2l * (Y - std::sqrt(4 * scale * Y + Y * Y));
      const double U = s.next_double();
      if (U <= mean / (mean + X)) return X;
      return mean * mean / X;
    }
    case CA_RANDOM_WEIBULL:
      if (p0 == 0.0) return 0.0;
      return std::pow(s.std_exponential(), 1. / p0);
    default: fail(CA_EFORMAT, "random: distribution ", code, " is not a float distribution");
  }
}

int64_t sample_int(int32_t code, const Params &P, Stream &s) {
  const double p0 = P.p0, p1 = P.p1, p2 = P.p2;
  switch (code) {
    case CA_RANDOM_BINOMIAL: return s.binomial(int64_t(p0), p1);
    case CA_RANDOM_GEOMETRIC: {
      const double p = p0;
      if (p >= 0.333333333333333333333333) {  // search
        int64_t X = 1;
        double sum = p, prod = p;
        const double U = s.next_double(), q = 1.0 - p;
        while (U > sum) {
          prod *= q;
          sum += prod;
          X++;
        }
        return X;
      }
      return to_i64(std::ceil(-s.std_exponential() / std::log1p(-p)));
    }
    case CA_RANDOM_HYPERGEOMETRIC: {
      const int64_t good = int64_t(p0), bad = int64_t(p1), sample = int64_t(p2);
      const int64_t total = good + bad;
      const int64_t computed = sample > total / 2 ? total - sample : sample;
      int64_t remaining_total = total, remaining_good = good, left = computed;
      while (left > 0 && remaining_good > 0 && remaining_total > remaining_good) {
        --remaining_total;
        if (int64_t(s.interval(uint64_t(remaining_total))) < remaining_good) --remaining_good;
        --left;
      }
      if (remaining_total == remaining_good) remaining_good -= left;
      return sample > total / 2 ? remaining_good : good - remaining_good;
    }
    case CA_RANDOM_LOGSERIES: {
      const double p = p0;
      const double r = std::log1p(-p);
      for (;;) {
        const double V = s.next_double();
        if (V >= p) return 1;
        const double U = s.next_double();
        const double q = -std::expm1(r * U);
        if (V <= q * q) {
          const double result = std::floor(1 + std::log(V) / std::log(q));
          if (result < 1 || V == 0.0) continue;
          return to_i64(result);
        }
        if (V >= q) return 1;
        return 2;
      }
    }
    case CA_RANDOM_NEGATIVE_BINOMIAL: {
      const double Y = s.std_gamma(p0) * ((1 - p1) / p1);
      return s.poisson(Y);
    }
    case CA_RANDOM_POISSON: return s.poisson(p0);
    case CA_RANDOM_ZIPF: {
      const double a = p0, am1 = a - 1.0, b = std::pow(2.0, am1);
      for (;;) {
        const double U = 1.0 - s.next_double(), V = s.next_double();
        const double X = std::floor(std::pow(U, -1.0 / am1));
        if (X >= 9.2233720368547758e18 || X < 1.0) continue;
        const double T = std::pow(1.0 + 1.0 / X, am1);
        if (V * X * (T - 1.0) / (b - 1.0) <= T / b) return int64_t(X);
      }
    }
    default: fail(CA_EFORMAT, "random: distribution ", code, " is not a discrete distribution");
  }
}

const char *dist_name(int32_t code) {
  switch (code) {
    case CA_RANDOM_BETA: return "beta";
    case CA_RANDOM_BINOMIAL: return "binomial";
    case CA_RANDOM_CHISQUARE: return "chisquare";
    case CA_RANDOM_EXPONENTIAL: return "exponential";
    case CA_RANDOM_F: return "f";
    case CA_RANDOM_GAMMA: return "gamma";
    case CA_RANDOM_GEOMETRIC: return "geometric";
    case CA_RANDOM_GUMBEL: return "gumbel";
    case CA_RANDOM_HYPERGEOMETRIC: return "hypergeometric";
    case CA_RANDOM_LAPLACE: return "laplace";
    case CA_RANDOM_LOGISTIC: return "logistic";
    case CA_RANDOM_LOGNORMAL: return "lognormal";
    case CA_RANDOM_LOGSERIES: return "logseries";
    case CA_RANDOM_NEGATIVE_BINOMIAL: return "negative_binomial";
    case CA_RANDOM_NONCENTRAL_CHISQUARE: return "noncentral_chisquare";
    case CA_RANDOM_NONCENTRAL_F: return "noncentral_f";
    case CA_RANDOM_PARETO: return "pareto";
    case CA_RANDOM_POISSON: return "poisson";
    case CA_RANDOM_POWER: return "power";
    case CA_RANDOM_RAYLEIGH: return "rayleigh";
    case CA_RANDOM_STANDARD_CAUCHY: return "standard_cauchy";
    case CA_RANDOM_STANDARD_EXPONENTIAL: return "standard_exponential";
    case CA_RANDOM_STANDARD_GAMMA: return "standard_gamma";
    case CA_RANDOM_STANDARD_T: return "standard_t";
    case CA_RANDOM_TRIANGULAR: return "triangular";
    case CA_RANDOM_VONMISES: return "vonmises";
    case CA_RANDOM_WALD: return "wald";
    case CA_RANDOM_WEIBULL: return "weibull";
    case CA_RANDOM_ZIPF: return "zipf";
    default: return nullptr;
  }
}

// The largest poisson lam NumPy accepts (POISSON_LAM_MAX: int64 max - 10 sigma).
constexpr double kPoissonLamMax = 9.2233720064847708e18;

}  // namespace

bool random_dist_is_discrete(int32_t code) {
  return code == CA_RANDOM_BINOMIAL || code == CA_RANDOM_GEOMETRIC || code == CA_RANDOM_HYPERGEOMETRIC ||
         code == CA_RANDOM_LOGSERIES || code == CA_RANDOM_NEGATIVE_BINOMIAL || code == CA_RANDOM_POISSON ||
         code == CA_RANDOM_ZIPF;
}

const char *random_dist_name(int32_t code) { return dist_name(code); }

namespace {

void check_dist_dtype(int32_t code, DType dtype, ca_status_t err) {
  const char *name = dist_name(code);
  if (!name) fail(err, "random: unknown distribution ", code);
  if (random_dist_is_discrete(code)) {
    CA_CHECK(dtype == CA_INT64, err == CA_EINVAL ? CA_ETYPE : err, name, ": dtype must be int64 (got ",
             dtype_name(dtype), ")");
  } else {
    CA_CHECK(dtype == CA_FLOAT32 || dtype == CA_FLOAT64, err == CA_EINVAL ? CA_ETYPE : err, name,
             ": dtype must be float32 or float64 (got ", dtype_name(dtype), ")");
  }
}

void check_dist_params(int32_t code, double p0, double p1, double p2, ca_status_t err);

}  // namespace

void random_dist_validate(int32_t code, DType dtype, double p0, double p1, double p2, ca_status_t err) {
  check_dist_dtype(code, dtype, err);
  check_dist_params(code, p0, p1, p2, err);
}

namespace {

void check_dist_params(int32_t code, double p0, double p1, double p2, ca_status_t err) {
  const char *name = dist_name(code);
  auto need = [&](bool ok, const char *msg) { CA_CHECK(ok, err, name, ": ", msg, " (got ", p0, ", ", p1, ", ", p2, ")"); };
  auto integral = [](double v) { return std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 9007199254740992.0; };
  switch (code) {
    case CA_RANDOM_BETA:
      need(p0 > 0, "a <= 0");
      need(p1 > 0, "b <= 0");
      break;
    case CA_RANDOM_BINOMIAL:
      need(integral(p0), "n must be an integer below 2**53");
      need(p0 >= 0, "n < 0");
      need(p1 >= 0 && p1 <= 1, "p < 0, p > 1 or p is NaN");
      break;
    case CA_RANDOM_CHISQUARE: need(p0 > 0, "df <= 0"); break;
    case CA_RANDOM_EXPONENTIAL: need(p0 >= 0, "scale < 0"); break;
    case CA_RANDOM_F:
      need(p0 > 0, "dfnum <= 0");
      need(p1 > 0, "dfden <= 0");
      break;
    case CA_RANDOM_GAMMA:
      need(p0 >= 0, "shape < 0");
      need(p1 >= 0, "scale < 0");
      break;
    case CA_RANDOM_GEOMETRIC: need(p0 > 0 && p0 <= 1, "p <= 0, p > 1 or p contains NaNs"); break;
    case CA_RANDOM_GUMBEL:
    case CA_RANDOM_LAPLACE:
    case CA_RANDOM_LOGISTIC:
      need(std::isfinite(p0), "loc must be finite");
      need(p1 >= 0, "scale < 0");
      break;
    case CA_RANDOM_HYPERGEOMETRIC:
      need(integral(p0) && integral(p1) && integral(p2), "ngood, nbad and nsample must be integers");
      need(p0 >= 0, "ngood < 0");
      need(p1 >= 0, "nbad < 0");
      need(p2 >= 0, "nsample < 0");
      need(p0 + p1 < 1e9, "both ngood and nbad must be less than 1000000000");
      need(p0 + p1 >= p2, "ngood + nbad < nsample");
      break;
    case CA_RANDOM_LOGNORMAL:
      need(std::isfinite(p0), "mean must be finite");
      need(p1 >= 0, "sigma < 0");
      break;
    case CA_RANDOM_LOGSERIES: need(p0 >= 0 && p0 < 1, "p < 0, p >= 1 or p is NaN"); break;
    case CA_RANDOM_NEGATIVE_BINOMIAL:
      need(p0 > 0, "n <= 0");
      need(p1 > 0 && p1 <= 1, "p <= 0, p > 1 or p contains NaNs");
      break;
    case CA_RANDOM_NONCENTRAL_CHISQUARE:
      need(p0 > 0, "df <= 0");
      need(p1 >= 0, "nonc < 0");
      break;
    case CA_RANDOM_NONCENTRAL_F:
      need(p0 > 0, "dfnum <= 0");
      need(p1 > 0, "dfden <= 0");
      need(p2 >= 0, "nonc < 0");
      break;
    case CA_RANDOM_PARETO: need(p0 > 0, "a <= 0"); break;
    case CA_RANDOM_POISSON:
      need(p0 >= 0, "lam < 0");
      need(p0 <= kPoissonLamMax, "lam value too large");
      break;
    case CA_RANDOM_POWER: need(p0 > 0, "a <= 0"); break;
    case CA_RANDOM_RAYLEIGH: need(p0 >= 0, "scale < 0"); break;
    case CA_RANDOM_STANDARD_CAUCHY:
    case CA_RANDOM_STANDARD_EXPONENTIAL: break;
    case CA_RANDOM_STANDARD_GAMMA: need(p0 >= 0, "shape < 0"); break;
    case CA_RANDOM_STANDARD_T: need(p0 > 0, "df <= 0"); break;
    case CA_RANDOM_TRIANGULAR:
      need(std::isfinite(p0) && std::isfinite(p1) && std::isfinite(p2), "left, mode and right must be finite");
      need(p0 <= p1, "left > mode");
      need(p1 <= p2, "mode > right");
      need(p0 < p2, "left == right");
      break;
    case CA_RANDOM_VONMISES:
      need(std::isfinite(p0), "mu must be finite");
      need(p1 >= 0, "kappa < 0");
      break;
    case CA_RANDOM_WALD:
      need(p0 > 0, "mean <= 0");
      need(p1 > 0, "scale <= 0");
      break;
    case CA_RANDOM_WEIBULL: need(p0 >= 0, "a < 0"); break;
    case CA_RANDOM_ZIPF: need(p0 > 1, "a <= 1 or a is NaN"); break;
    default: fail(err, "random: unknown distribution ", code);
  }
  // Parameters NumPy accepts as +inf still make no sense here except where stated above.
  CA_CHECK(!std::isnan(p0) && !std::isnan(p1) && !std::isnan(p2), err, name, ": parameters must not be NaN");
}

}  // namespace

void random_dist_fill(const GenSpec &spec, Index glin, Index n, void *out) {
  const int32_t code = spec.kind - GenSpec::DistBase;
  const Params P{spec.p0, spec.p1, bits_to_double(spec.i0)};
  if (random_dist_is_discrete(code)) {
    int64_t *p = static_cast<int64_t *>(out);
    for_streams(spec.seed, glin, n, [&](Index i, Stream &s) { p[i] = sample_int(code, P, s); }, primes_two_calls(code));
  } else if (spec.dtype == CA_FLOAT64) {
    double *p = static_cast<double *>(out);
    for_streams(spec.seed, glin, n, [&](Index i, Stream &s) { p[i] = sample_float(code, P, s); }, primes_two_calls(code));
  } else {
    float *p = static_cast<float *>(out);
    for_streams(spec.seed, glin, n, [&](Index i, Stream &s) { p[i] = float(sample_float(code, P, s)); },
                primes_two_calls(code));
  }
}

namespace {

// ca.random_multinomial(pvals: bytes, n: int, seed: int, size: tuple, origin: tuple, shape: tuple)
Block *k_multinomial(const KernelArgs &A) {
  const std::string_view pb = A.bytes(0, "pvals");
  const int64_t n = A.int64(1, "n");
  const uint64_t seed = uint64_t(A.int64(2, "seed"));
  const std::span<const int64_t> size = A.tuple(3, "size"), origin = A.tuple(4, "origin"), shape = A.tuple(5, "shape");
  const size_t k = pb.size() / sizeof(double);
  CA_CHECK(k >= 1 && pb.size() % sizeof(double) == 0 && n >= 0, CA_EINVAL, A.kernel(), ": bad pvals or n");
  const size_t nd = size.size();
  CA_CHECK(origin.size() == nd + 1 && shape.size() == nd + 1 && shape[nd] == int64_t(k) && origin[nd] == 0,
           CA_EINVAL, A.kernel(), ": blocks are ", nd + 1, "-d with the whole last axis of ", k);
  for (size_t d = 0; d < nd; ++d)
    CA_CHECK(origin[d] >= 0 && shape[d] >= 0 && origin[d] + shape[d] <= size[d], CA_EINVAL, A.kernel(),
             ": block outside the array along axis ", d);
  std::vector<double> pv(k);
  std::memcpy(pv.data(), pb.data(), pb.size());
  BlockRef b(block_new(CA_INT64, int32_t(nd + 1), shape.data(), false));
  int64_t *out = b.data<int64_t>();
  Index rows = 1;
  for (size_t d = 0; d < nd; ++d) rows *= shape[d];
  std::vector<int64_t> idx(nd, 0);  // local multi-index of the row
  for (Index r = 0; r < rows; ++r) {
    uint64_t g = 0;
    for (size_t d = 0; d < nd; ++d) g = g * uint64_t(size[d]) + uint64_t(origin[d] + idx[d]);
    Stream s(seed, g);
    int64_t *row = out + r * Index(k);
    int64_t remaining = n;
    double remaining_p = 1.0;
    for (size_t j = 0; j + 1 < k; ++j) {
      const double pj = remaining_p > 0 ? std::clamp(pv[j] / remaining_p, 0.0, 1.0) : 0.0;
      row[j] = remaining > 0 ? s.binomial(remaining, pj) : 0;
      remaining -= row[j];
      remaining_p -= pv[j];
    }
    row[k - 1] = remaining;
    for (size_t d = nd; d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return b.release();
}

}  // namespace

// ---- array-valued parameters (ca_array_random_params) ---------------------------------------------

namespace {

// How many parameters CA_RANDOM_<code> takes (p0, p1, p2 in NumPy's order); -1 for none known.
int dist_nparams(int32_t code) {
  switch (code) {
    case CA_RANDOM_UNIFORM:
    case CA_RANDOM_NORMAL:
    case CA_RANDOM_INTEGERS:
    case CA_RANDOM_BETA:
    case CA_RANDOM_BINOMIAL:
    case CA_RANDOM_F:
    case CA_RANDOM_GAMMA:
    case CA_RANDOM_GUMBEL:
    case CA_RANDOM_LAPLACE:
    case CA_RANDOM_LOGISTIC:
    case CA_RANDOM_LOGNORMAL:
    case CA_RANDOM_NEGATIVE_BINOMIAL:
    case CA_RANDOM_NONCENTRAL_CHISQUARE:
    case CA_RANDOM_VONMISES:
    case CA_RANDOM_WALD: return 2;
    case CA_RANDOM_HYPERGEOMETRIC:
    case CA_RANDOM_NONCENTRAL_F:
    case CA_RANDOM_TRIANGULAR: return 3;
    case CA_RANDOM_STANDARD_CAUCHY:
    case CA_RANDOM_STANDARD_EXPONENTIAL: return 0;
    default: return dist_name(code) ? 1 : -1;
  }
}

const char *params_dist_name(int32_t code) {
  return code == CA_RANDOM_UNIFORM    ? "uniform"
         : code == CA_RANDOM_NORMAL   ? "normal"
         : code == CA_RANDOM_INTEGERS ? "integers"
                                      : dist_name(code);
}

// The output dtype a distribution allows (CA_ETYPE naming it otherwise).
void check_params_dtype(int32_t code, DType dtype) {
  const char *name = params_dist_name(code);
  if (code == CA_RANDOM_UNIFORM || code == CA_RANDOM_NORMAL)
    CA_CHECK(dtype == CA_FLOAT32 || dtype == CA_FLOAT64, CA_ETYPE, name, ": dtype must be float32 or float64 (got ",
             dtype_name(dtype), ")");
  else if (code == CA_RANDOM_INTEGERS)
    CA_CHECK(dtype_is_integer(dtype) || dtype == CA_BOOL, CA_ETYPE, "integers: dtype must be an integer dtype (got ",
             dtype_name(dtype), ")");
  else
    check_dist_dtype(code, dtype, CA_EINVAL);
}

// Parameters NumPy casts to int64 with the 'safe' rule: binomial's n, hypergeometric's three.
bool integer_param(int32_t code, int slot) {
  return (code == CA_RANDOM_BINOMIAL && slot == 0) || code == CA_RANDOM_HYPERGEOMETRIC;
}

// One element's parameters checked as the scalar ones are (NumPy's messages), CA_EINVAL.
void check_element_params(int32_t code, double p0, double p1, double p2) {
  if (code == CA_RANDOM_UNIFORM) {
    CA_CHECK(std::isfinite(p0) && std::isfinite(p1), CA_EINVAL, "uniform: parameters must be finite (got ", p0,
             ", ", p1, ")");
  } else if (code == CA_RANDOM_NORMAL) {
    CA_CHECK(std::isfinite(p0) && std::isfinite(p1), CA_EINVAL, "normal: parameters must be finite (got ", p0, ", ",
             p1, ")");
    CA_CHECK(p1 >= 0, CA_EINVAL, "normal: scale < 0 (standard deviation ", p1, ")");
  } else {
    check_dist_params(code, p0, p1, p2, CA_EINVAL);
  }
}

// The substream-0 word of element g (create_kernels.cpp's philox_word: counter (g / 2, 0), word g % 2).
inline void stream0_pair(uint64_t seed, uint64_t g, uint64_t &w0, uint64_t &w1) {
  const uint32_t ctr[4] = {uint32_t(g >> 1), uint32_t(g >> 33), 0, 0};
  const uint32_t key[2] = {uint32_t(seed), uint32_t(seed >> 32)};
  uint32_t o[4];
  detail::philox4x32_10(ctr, key, o);
  w0 = uint64_t(o[0]) | uint64_t(o[1]) << 32;
  w1 = uint64_t(o[2]) | uint64_t(o[3]) << 32;
}

// Element g of uniform(p0, p1) / normal(p0, p1), the very values of the scalar fill (create_kernels.cpp).
template <class T>
T uniform_elem(uint64_t seed, uint64_t g, double lo, double hi) {
  uint64_t w0, w1;
  stream0_pair(seed, g, w0, w1);
  const uint64_t w = (g & 1) ? w1 : w0;
  const double scale = hi - lo;
  if constexpr (std::is_same_v<T, double>) {
    const uint64_t b = (w >> 12) | 0x3FF0000000000000ull;
    double d;
    std::memcpy(&d, &b, 8);
    return std::fma(scale, d - 1.0, lo);  // (as create_kernels.cpp's uniform_f64: one rounding)
  } else {
    const float flo = float(lo), fhi = float(hi);
    float v = float(lo + scale * (double(w >> 40) * 0x1.0p-24));
    if (fhi > flo && v >= fhi) v = std::nextafter(fhi, flo);
    return v;
  }
}

template <class T>
T normal_elem(uint64_t seed, uint64_t g, double mean, double sd) {
  uint64_t w0, w1;
  stream0_pair(seed, g, w0, w1);
  const double r = std::sqrt(-2.0 * std::log(double((w0 >> 11) + 1) * 0x1.0p-53));
  const double th = 6.283185307179586476925286766559 * (double(int64_t(w1 >> 11)) * 0x1.0p-53);
  return T(mean + sd * r * ((g & 1) ? std::sin(th) : std::cos(th)));
}

// A parameter block as doubles (its own shape; extent-1 axes broadcast).
std::vector<double> param_doubles(const Block *b) {
  const Index n = Index(b->size);
  std::vector<double> v(static_cast<size_t>(n));
  const void *d = b->data;
  switch (b->dtype) {
#define CA_PARAM_CASE(code, T) \
  case code:                   \
    for (Index i = 0; i < n; ++i) v[size_t(i)] = double(static_cast<const T *>(d)[i]); \
    break;
    CA_PARAM_CASE(CA_BOOL, bool)
    CA_PARAM_CASE(CA_INT8, int8_t)
    CA_PARAM_CASE(CA_INT16, int16_t)
    CA_PARAM_CASE(CA_INT32, int32_t)
    CA_PARAM_CASE(CA_INT64, int64_t)
    CA_PARAM_CASE(CA_UINT8, uint8_t)
    CA_PARAM_CASE(CA_UINT16, uint16_t)
    CA_PARAM_CASE(CA_UINT32, uint32_t)
    CA_PARAM_CASE(CA_UINT64, uint64_t)
    CA_PARAM_CASE(CA_FLOAT32, float)
    CA_PARAM_CASE(CA_FLOAT64, double)
#undef CA_PARAM_CASE
    default: fail(CA_ETYPE, "ca.random_params: a parameter block of dtype ", dtype_name(b->dtype));
  }
  return v;
}

bool param_dtype_ok(DType dt) {
  return dt == CA_BOOL || dtype_kind(dt) == 'i' || dtype_kind(dt) == 'u' || dt == CA_FLOAT32 || dt == CA_FLOAT64;
}

// ca.random_params(distribution: int, seed: int, dtype: int, scalars: bytes, size: tuple, origin: tuple,
//                  shape: tuple, mask: int, params: block...)
Block *k_random_params(const KernelArgs &A) {
  const int32_t code = int32_t(A.int64(0, "distribution"));
  const uint64_t seed = uint64_t(A.int64(1, "seed"));
  const DType dtype = DType(A.int64(2, "dtype"));
  const std::string_view sc = A.bytes(3, "scalars");
  const std::span<const int64_t> size = A.tuple(4, "size"), origin = A.tuple(5, "origin"), shape = A.tuple(6, "shape");
  const int64_t mask = A.int64(7, "mask");
  CA_CHECK(params_dist_name(code), CA_EINVAL, A.kernel(), ": unknown distribution ", code);
  check_params_dtype(code, dtype);
  CA_CHECK(sc.size() == 3 * sizeof(double), CA_EINVAL, A.kernel(), ": scalars must be 3 float64 values");
  CA_CHECK(mask >= 0 && mask < 8, CA_EINVAL, A.kernel(), ": mask ", mask, " is not a subset of {p0, p1, p2}");
  const size_t nd = size.size();
  CA_CHECK(origin.size() == nd && shape.size() == nd, CA_EINVAL, A.kernel(), ": blocks are ", nd, "-d");
  for (size_t d = 0; d < nd; ++d)
    CA_CHECK(size[d] >= 0 && origin[d] >= 0 && shape[d] >= 0 && origin[d] + shape[d] <= size[d], CA_EINVAL,
             A.kernel(), ": block outside the array along axis ", d);
  double scal[3];
  std::memcpy(scal, sc.data(), sizeof scal);

  // The parameter blocks: values as doubles, strides over the output block (0 where broadcast).
  struct P {
    std::vector<double> v;
    std::vector<Index> stride;  // per output axis
  };
  P prm[3];
  bool has[3] = {false, false, false};
  size_t arg = 8;
  for (int j = 0; j < 3; ++j) {
    if (!(mask >> j & 1)) continue;
    const Block *b = A.block(arg++, "parameter");
    CA_CHECK(size_t(b->ndim) <= nd, CA_EINVAL, A.kernel(), ": a parameter block of ", b->ndim, " dimensions for ", nd,
             "-d output blocks");
    const size_t off = nd - size_t(b->ndim);
    prm[j].stride.assign(nd, 0);
    Index st = 1;
    for (size_t d = nd; d-- > off;) {
      const int64_t e = b->shape[d - off];
      CA_CHECK(e == shape[d] || e == 1, CA_EINVAL, A.kernel(), ": a parameter block of extent ", e, " along axis ",
               d, " for an output block of ", shape[d]);
      prm[j].stride[d] = e == 1 ? 0 : st;
      st *= e;
    }
    prm[j].v = param_doubles(b);
    has[j] = true;
  }
  CA_CHECK(arg == A.size(), CA_EINVAL, A.kernel(), ": ", A.size(), " arguments for mask ", mask);

  BlockRef out(block_new(dtype, int32_t(nd), shape.data(), false));
  Index total = 1;
  for (size_t d = 0; d < nd; ++d) total *= shape[d];
  if (total == 0) return out.release();
  const Index row = nd ? shape[nd - 1] : 1;
  const Index rows = total / row;
  std::vector<int64_t> idx(nd, 0);
  double last[3] = {NAN, NAN, NAN};
  bool checked = false;
  int64_t int_lo = 0;      // integers: the current element's bounds (integers_bounds)
  uint64_t int_range = 0;
  for (Index r = 0; r < rows; ++r) {
    uint64_t g0 = 0;
    for (size_t d = 0; d < nd; ++d) g0 = g0 * uint64_t(size[d]) + uint64_t(origin[d] + idx[d]);
    Index base[3] = {0, 0, 0};
    for (int j = 0; j < 3; ++j)
      if (has[j])
        for (size_t d = 0; d + 1 < nd; ++d) base[j] += idx[d] * prm[j].stride[d];
    const Index last_stride[3] = {has[0] && nd ? prm[0].stride[nd - 1] : 0, has[1] && nd ? prm[1].stride[nd - 1] : 0,
                                  has[2] && nd ? prm[2].stride[nd - 1] : 0};
    auto params_of = [&](Index t, Params &q) {
      q.p0 = has[0] ? prm[0].v[size_t(base[0] + t * last_stride[0])] : scal[0];
      q.p1 = has[1] ? prm[1].v[size_t(base[1] + t * last_stride[1])] : scal[1];
      q.p2 = has[2] ? prm[2].v[size_t(base[2] + t * last_stride[2])] : scal[2];
      // Validate when they change (NaN never compares equal, so it is always checked).
      if (!checked || q.p0 != last[0] || q.p1 != last[1] || q.p2 != last[2]) {
        if (code == CA_RANDOM_INTEGERS)
          integers_bounds(q.p0, q.p1, dtype, CA_EINVAL, int_lo, int_range);
        else
          check_element_params(code, q.p0, q.p1, q.p2);
        last[0] = q.p0, last[1] = q.p1, last[2] = q.p2;
        checked = true;
      }
    };
    const Index o = r * row;
    if (code == CA_RANDOM_INTEGERS) {
      // The scalar fill's values (create_kernels.cpp gen_integers): low + a bounded draw from g's word.
      auto fill = [&]<class T>(T *p) {
        for (Index t = 0; t < row; ++t) {
          Params q;
          params_of(t, q);
          const uint64_t g = g0 + uint64_t(t);
          uint64_t w0, w1;
          stream0_pair(seed, g, w0, w1);
          const uint64_t v = uint64_t(int_lo) + detail::bounded_word(seed, g, (g & 1) ? w1 : w0, int_range);
          if constexpr (std::is_same_v<T, bool>) p[t] = (v & 1) != 0;
          else p[t] = T(v);
        }
      };
      switch (dtype) {
        case CA_BOOL: fill(out.data<bool>() + o); break;
        case CA_INT8: fill(out.data<int8_t>() + o); break;
        case CA_INT16: fill(out.data<int16_t>() + o); break;
        case CA_INT32: fill(out.data<int32_t>() + o); break;
        case CA_INT64: fill(out.data<int64_t>() + o); break;
        case CA_UINT8: fill(out.data<uint8_t>() + o); break;
        case CA_UINT16: fill(out.data<uint16_t>() + o); break;
        case CA_UINT32: fill(out.data<uint32_t>() + o); break;
        case CA_UINT64: fill(out.data<uint64_t>() + o); break;
        default: fail(CA_ETYPE, "integers: dtype ", dtype_name(dtype));
      }
    } else if (code == CA_RANDOM_UNIFORM || code == CA_RANDOM_NORMAL) {
      for (Index t = 0; t < row; ++t) {
        Params q;
        params_of(t, q);
        const uint64_t g = g0 + uint64_t(t);
        if (dtype == CA_FLOAT64)
          out.data<double>()[o + t] = code == CA_RANDOM_UNIFORM ? uniform_elem<double>(seed, g, q.p0, q.p1)
                                                                : normal_elem<double>(seed, g, q.p0, q.p1);
        else
          out.data<float>()[o + t] = code == CA_RANDOM_UNIFORM ? uniform_elem<float>(seed, g, q.p0, q.p1)
                                                               : normal_elem<float>(seed, g, q.p0, q.p1);
      }
    } else if (random_dist_is_discrete(code)) {
      int64_t *p = out.data<int64_t>() + o;
      for_streams(seed, Index(g0), row, [&](Index t, Stream &s) {
        Params q;
        params_of(t, q);
        p[t] = sample_int(code, q, s);
     }, primes_two_calls(code));
    } else if (dtype == CA_FLOAT64) {
      double *p = out.data<double>() + o;
      for_streams(seed, Index(g0), row, [&](Index t, Stream &s) {
        Params q;
        params_of(t, q);
        p[t] = sample_float(code, q, s);
     }, primes_two_calls(code));
    } else {
      float *p = out.data<float>() + o;
      for_streams(seed, Index(g0), row, [&](Index t, Stream &s) {
        Params q;
        params_of(t, q);
        p[t] = float(sample_float(code, q, s));
     }, primes_two_calls(code));
    }
    for (size_t d = nd >= 1 ? nd - 1 : 0; d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return out.release();
}

}  // namespace

ArrayPtr random_params(int32_t code, uint64_t seed, std::vector<Index> shape, const Chunks &chunks, DType dtype,
                       const std::vector<ArrayPtr> &params, double p0, double p1, double p2) {
  const char *name = params_dist_name(code);
  CA_CHECK(name, CA_EINVAL, "random_params: unknown distribution ", code);
  CA_CHECK(params.size() <= 3, CA_EINVAL, name, ": ", params.size(), " parameter arrays (at most 3: p0, p1, p2)");
  CA_CHECK(shape.size() <= CA_MAX_NDIM, CA_EINVAL, name, ": ", shape.size(), " dimensions (max ", CA_MAX_NDIM, ")");
  for (size_t d = 0; d < shape.size(); ++d)
    CA_CHECK(shape[d] >= 0, CA_EINVAL, name, ": negative dimensions are not allowed (shape[", d, "] = ", shape[d],
             ")");
  check_chunks_shape(chunks, shape, name);
  bool any = false;
  for (const ArrayPtr &a : params) any = any || a != nullptr;
  if (!any) return random(code, seed, std::move(shape), chunks, dtype, p0, p1, p2);
  check_params_dtype(code, dtype);
  const int np = dist_nparams(code);
  const size_t nd = shape.size();
  std::string out_index;
  for (size_t d = 0; d < nd; ++d) out_index.push_back(char('a' + d));
  int64_t mask = 0;
  std::vector<ArrayArg> args;
  Tokenizer tok("random_params");
  tok.add(int64_t(code)).add(seed).add(shape).add(chunks).add(int64_t(dtype));
  const double sc[3] = {p0, p1, p2};
  std::vector<ArrayArg> blocks;
  for (size_t j = 0; j < params.size(); ++j) {
    const ArrayPtr &a = params[j];
    if (!a) {
      tok.add(sc[j]);
      continue;
    }
    CA_CHECK(int(j) < np, CA_EINVAL, name, ": takes ", np, " parameter", np == 1 ? "" : "s", ", got an array for p", j);
    CA_CHECK(param_dtype_ok(a->dtype), CA_ETYPE, name, ": parameter p", j, " has dtype ", dtype_name(a->dtype),
             " (a real number or bool dtype is needed)");
    if (integer_param(code, int(j)))
      CA_CHECK(a->dtype == CA_BOOL || a->dtype == CA_INT8 || a->dtype == CA_INT16 || a->dtype == CA_INT32 ||
                   a->dtype == CA_INT64 || a->dtype == CA_UINT8 || a->dtype == CA_UINT16 || a->dtype == CA_UINT32,
               CA_ETYPE, name, ": Cannot cast array data from dtype('", dtype_name(a->dtype),
               "') to dtype('int64') according to the rule 'safe' (parameter p", j, ")");
    CA_CHECK(size_t(a->ndim()) <= nd, CA_EINVAL, name, ": Output size ", shape_str(shape),
             " is not compatible with broadcast dimensions of inputs (parameter p", j, " has shape ",
             shape_str(a->shape), ")");
    const size_t off = nd - size_t(a->ndim());
    Chunks want(size_t(a->ndim()));
    for (size_t d = 0; d < size_t(a->ndim()); ++d) {
      const Index e = a->shape[d], oe = shape[off + d];
      CA_CHECK(e != kUnknownChunk, CA_EINVAL, name, ": parameter p", j, " has unknown chunk sizes (compute them first)");
      CA_CHECK(e == oe || e == 1, CA_EINVAL, name, ": shape mismatch: objects cannot be broadcast to a single shape "
               "(parameter p", j, " has shape ", shape_str(a->shape), ", the output ", shape_str(shape), ")");
      want[d] = (e == oe && !(e == 1 && chunks[off + d].size() != 1)) ? chunks[off + d] : std::vector<Index>{e};
    }
    ArrayPtr pa = a->chunks == want ? a : rechunk(a, want);
    tok.add(*pa);
    mask |= int64_t(1) << j;
    blocks.push_back(ArrayArg::of(pa, out_index.substr(off)));
  }
  std::vector<int64_t> sz(shape.begin(), shape.end());
  args.push_back(ArrayArg::lit(ca_arg_i64(code)));
  args.push_back(ArrayArg::lit(ca_arg_i64(int64_t(seed))));
  args.push_back(ArrayArg::lit(ca_arg_i64(int64_t(dtype))));
  args.push_back(ArrayArg::lit(ca_arg_bytes(sc, sizeof sc)));
  args.push_back(ArrayArg::lit(ca_arg_tuple(sz.data(), sz.size())));
  args.push_back(ArrayArg::special(BlockwiseArg::BlockOrigin));
  args.push_back(ArrayArg::special(BlockwiseArg::BlockShape));
  args.push_back(ArrayArg::lit(ca_arg_i64(mask)));
  for (ArrayArg &b : blocks) args.push_back(std::move(b));
  tok.add(mask);
  return blockwise_layer(tok.name(), "ca.random_params", out_index, args, chunks, dtype);
}

void register_random_kernels(KernelRegistry &reg) {
  register_builtin<k_multinomial>(reg, "ca.random_multinomial");
  register_builtin<k_random_params>(reg, "ca.random_params");
}

}  // namespace ca
